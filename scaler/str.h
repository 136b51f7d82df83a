/* scaler/str.h: the fallible string copy of libscaler. libscaler returns OOM instead of
 * aborting (STYLE: programs use cm_xstrdup, libraries do not), so its copies may fail.
 *
 * Header-only (static inline), like rec.h. */
#ifndef SCALER_STR_H
#define SCALER_STR_H

#include <stdlib.h>
#include <string.h>

/* A malloc'd copy of s, the caller's to free(). NULL in gives NULL out (an absent optional
 * string stays absent); NULL also on OOM: when s may be NULL, tell the two apart with
 * sc_strdup_opt(). */
static inline char *sc_strdup(const char *s)
{
    size_t n;
    char *p;

    if (!s)
        return NULL;
    n = strlen(s) + 1;
    p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

/* *dst = sc_strdup(src) for an optional src: 0 (*dst NULL when src is), or -1 on OOM (then
 * *dst is NULL). */
static inline int sc_strdup_opt(char **dst, const char *src)
{
    *dst = sc_strdup(src);
    return src && !*dst ? -1 : 0;
}

#endif
