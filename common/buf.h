/* common/buf.h: a growable byte buffer with a hard cap (network-fed data is capped).
 *
 * The buffer owns its memory; cm_buf_cleanup() frees it. Contents are always
 * NUL-terminated (the NUL is not counted in len), so text can be used in place. */
#ifndef COMMON_BUF_H
#define COMMON_BUF_H

#include <stddef.h>

struct cm_buf {
    char *data;
    size_t len;
    size_t cap;
    size_t max; /* appends that would pass this fail with -1 */
};

/* max 0 means no cap (for program-built output, never for input). */
void cm_buf_init(struct cm_buf *b, size_t max);
void cm_buf_cleanup(struct cm_buf *b);
void cm_buf_reset(struct cm_buf *b);
/* Each returns 0, or -1 when the cap would be exceeded (the buffer is unchanged). */
int cm_buf_append(struct cm_buf *b, const void *p, size_t n);
int cm_buf_puts(struct cm_buf *b, const char *s);
int cm_buf_putc(struct cm_buf *b, char c);
int cm_buf_printf(struct cm_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the contents to the caller (free() it) and leaves the buffer empty. */
char *cm_buf_take(struct cm_buf *b, size_t *len);

#endif
