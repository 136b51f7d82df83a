/* common/xalloc.h: allocation for programs (not for libscaler, which returns errors).
 * Each function logs and aborts on out-of-memory, so callers never check for NULL. */
#ifndef COMMON_XALLOC_H
#define COMMON_XALLOC_H

#include <stddef.h>

void *cm_xmalloc(size_t n);
void *cm_xcalloc(size_t nmemb, size_t size);
void *cm_xrealloc(void *p, size_t n);
char *cm_xstrdup(const char *s);
char *cm_xstrndup(const char *s, size_t n);
/* Returns a newly allocated formatted string; the caller frees it. */
char *cm_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
