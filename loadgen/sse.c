/* loadgen/sse.c: see sse.h. */
#include "loadgen/sse.h"

#include <stdlib.h>
#include <string.h>

struct sse {
    sse_event_fn fn;
    void *ud;
    char line[SSE_LINE_MAX + 1];
    size_t len;
    int line_over; /* the current line passed SSE_LINE_MAX */
    int after_cr;  /* the last byte ended a line with CR: a LF next belongs to it */
    char data[SSE_DATA_MAX + 1];
    size_t dlen;
    int has_data;
    int event_over; /* the current event lost a line or data: dropped at dispatch */
    char id[128];
    char type[64];
    uint64_t dropped;
};

struct sse *sse_create(sse_event_fn fn, void *ud)
{
    struct sse *p = calloc(1, sizeof(*p));

    if (!p)
        return NULL;
    p->fn = fn;
    p->ud = ud;
    return p;
}

void sse_destroy(struct sse *p)
{
    free(p);
}

void sse_reset(struct sse *p)
{
    p->len = 0;
    p->line_over = 0;
    p->after_cr = 0;
    p->dlen = 0;
    p->has_data = 0;
    p->event_over = 0;
    p->type[0] = '\0';
}

uint64_t sse_dropped(const struct sse *p)
{
    return p->dropped;
}

static void dispatch(struct sse *p)
{
    if (p->event_over)
        p->dropped++;
    else if (p->has_data)
        p->fn(p->id, p->type[0] ? p->type : "message", p->data, p->dlen, p->ud);
    p->dlen = 0;
    p->has_data = 0;
    p->event_over = 0;
    p->type[0] = '\0';
}

static void field(struct sse *p)
{
    char *colon, *value;
    size_t vlen;

    if (p->line_over) {
        p->event_over = 1;
        return;
    }
    p->line[p->len] = '\0';
    if (p->line[0] == ':')
        return;
    colon = strchr(p->line, ':');
    if (colon) {
        *colon = '\0';
        value = colon + 1;
        if (*value == ' ')
            value++;
    } else {
        value = p->line + p->len; /* a field with no colon: the whole line, empty value */
    }
    vlen = strlen(value);
    if (strcmp(p->line, "data") == 0) {
        if (p->dlen + vlen + (p->has_data ? 1 : 0) > SSE_DATA_MAX) {
            p->event_over = 1;
            return;
        }
        if (p->has_data)
            p->data[p->dlen++] = '\n';
        memcpy(p->data + p->dlen, value, vlen);
        p->dlen += vlen;
        p->data[p->dlen] = '\0';
        p->has_data = 1;
    } else if (strcmp(p->line, "event") == 0) {
        if (vlen >= sizeof(p->type))
            p->event_over = 1;
        else
            memcpy(p->type, value, vlen + 1);
    } else if (strcmp(p->line, "id") == 0) {
        /* the standard ignores an id holding NUL; ours are numbers */
        if (vlen < sizeof(p->id))
            memcpy(p->id, value, vlen + 1);
    }
}

static void end_line(struct sse *p)
{
    if (p->len == 0 && !p->line_over)
        dispatch(p);
    else
        field(p);
    p->len = 0;
    p->line_over = 0;
}

void sse_feed(struct sse *p, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = buf[i];

        if (p->after_cr) {
            p->after_cr = 0;
            if (c == '\n')
                continue;
        }
        if (c == '\r' || c == '\n') {
            p->after_cr = c == '\r';
            end_line(p);
        } else if (p->len < SSE_LINE_MAX) {
            p->line[p->len++] = c;
        } else {
            p->line_over = 1;
        }
    }
}
