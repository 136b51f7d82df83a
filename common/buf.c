/* common/buf.c: see buf.h. */
#include "common/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void cm_buf_init(struct cm_buf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max;
}

void cm_buf_cleanup(struct cm_buf *b)
{
    free(b->data);
    cm_buf_init(b, b->max);
}

void cm_buf_reset(struct cm_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

static int reserve(struct cm_buf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    size_t cap;

    if (b->max && b->len + extra > b->max)
        return -1;
    if (need <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    b->data = cm_xrealloc(b->data, cap);
    b->cap = cap;
    return 0;
}

int cm_buf_append(struct cm_buf *b, const void *p, size_t n)
{
    if (reserve(b, n) < 0)
        return -1;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int cm_buf_puts(struct cm_buf *b, const char *s)
{
    return cm_buf_append(b, s, strlen(s));
}

int cm_buf_putc(struct cm_buf *b, char c)
{
    return cm_buf_append(b, &c, 1);
}

int cm_buf_printf(struct cm_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(b, (size_t)n) < 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

char *cm_buf_take(struct cm_buf *b, size_t *len)
{
    char *p;

    if (!b->data) {
        if (reserve(b, 0) < 0)
            return NULL;
        b->data[0] = '\0'; /* a never-written buffer hands out "" */
    }
    p = b->data;
    if (len)
        *len = b->len;
    cm_buf_init(b, b->max);
    return p;
}
