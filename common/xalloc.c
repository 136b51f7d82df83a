/* common/xalloc.c: see xalloc.h. */
#include "common/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

static void oom(size_t n)
{
    log_error("out of memory allocating %zu bytes", n);
    abort();
}

void *cm_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    if (!p)
        oom(n);
    return p;
}

void *cm_xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

    if (!p)
        oom(nmemb * size);
    return p;
}

void *cm_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);

    if (!q)
        oom(n);
    return q;
}

char *cm_xstrdup(const char *s)
{
    return cm_xstrndup(s, strlen(s));
}

char *cm_xstrndup(const char *s, size_t n)
{
    char *p = cm_xmalloc(n + 1);

    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *cm_xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        oom(0);
    return s;
}
