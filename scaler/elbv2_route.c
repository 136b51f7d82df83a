/* scaler/elbv2_route.c: see elbv2.h. The data plane's one routing decision (docs/elbv2.md
 * 10): a parsed request against a listener's rules to the action it performs, the forward's
 * target group picked by weight, and a redirect's Location. Allocation-free, no clock. */
#include "scaler/elbv2.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum sc_elbv2_action_type sc_elbv2_route(const struct sc_elbv2_listener *l,
                                         const struct sc_elbv2_http_request *q, uint64_t draw,
                                         struct sc_elbv2_route *out)
{
    const struct sc_elbv2_action *a;
    int k;

    memset(out, 0, sizeof(*out));
    out->rule = sc_elbv2_listener_match(l, q);
    a = sc_elbv2_rule_action(out->rule);
    out->action = a;
    if (!a) {
        /* a listener always has its default rule; nothing to route by otherwise */
        out->type = SC_ELBV2_ACTION_FIXED_RESPONSE;
        out->status = 503;
        return out->type;
    }
    out->type = a->type;
    switch (a->type) {
    case SC_ELBV2_ACTION_FORWARD:
        k = a->nforward > 0 ? sc_elbv2_forward_pick(a, draw) : -1;
        out->target_group_arn = k >= 0 ? a->forward[k].target_group_arn : a->target_group_arn;
        break;
    case SC_ELBV2_ACTION_REDIRECT:
        out->status = a->redirect_status && strcmp(a->redirect_status, "HTTP_301") == 0 ? 301 : 302;
        break;
    case SC_ELBV2_ACTION_FIXED_RESPONSE:
        out->status = 0;
        for (const char *p = a->fixed_status; p && *p >= '0' && *p <= '9'; p++)
            out->status = out->status * 10 + (*p - '0');
        if (out->status < 200 || out->status > 599)
            out->status = 503;
        break;
    }
    return out->type;
}

/* Appends s[0..n) to out at *o (cap bytes, one kept for the NUL); -1 when it does not fit. */
static int put(char *out, size_t cap, size_t *o, const char *s, size_t n)
{
    if (*o + n + 1 > cap)
        return -1;
    memcpy(out + *o, s, n);
    *o += n;
    out[*o] = '\0';
    return 0;
}

static int put_lower(char *out, size_t cap, size_t *o, const char *s)
{
    size_t n = strlen(s);

    if (put(out, cap, o, s, n) < 0)
        return -1;
    for (size_t i = *o - n; i < *o; i++)
        out[i] = (char)tolower((unsigned char)out[i]);
    return 0;
}

/* The host without its port (an IPv6 literal keeps its brackets). */
static size_t host_len(const struct sc_elbv2_http_request *q)
{
    for (size_t i = q->host_len; i > 0; i--) {
        if (q->host[i - 1] == ':')
            return i - 1;
        if (q->host[i - 1] == ']' || !isdigit((unsigned char)q->host[i - 1]))
            break;
    }
    return q->host_len;
}

/* Expands one component: #{protocol} #{host} #{port} #{path} #{query} replaced. */
static int expand(char *out, size_t cap, size_t *o, const char *tmpl,
                  const struct sc_elbv2_http_request *q, const char *protocol, int port)
{
    char num[16];

    for (const char *p = tmpl; p && *p;) {
        if (strncmp(p, "#{protocol}", 11) == 0) {
            if (put_lower(out, cap, o, protocol) < 0)
                return -1;
            p += 11;
        } else if (strncmp(p, "#{host}", 7) == 0) {
            if (put(out, cap, o, q->host, host_len(q)) < 0)
                return -1;
            p += 7;
        } else if (strncmp(p, "#{port}", 7) == 0) {
            snprintf(num, sizeof(num), "%d", port);
            if (put(out, cap, o, num, strlen(num)) < 0)
                return -1;
            p += 7;
        } else if (strncmp(p, "#{path}", 7) == 0) {
            /* the leading "/" is removed */
            size_t skip = q->path_len > 0 && q->path[0] == '/';

            if (put(out, cap, o, q->path + skip, q->path_len - skip) < 0)
                return -1;
            p += 7;
        } else if (strncmp(p, "#{query}", 8) == 0) {
            if (put(out, cap, o, q->query, q->query_len) < 0)
                return -1;
            p += 8;
        } else {
            if (put(out, cap, o, p, 1) < 0)
                return -1;
            p++;
        }
    }
    return 0;
}

long sc_elbv2_redirect_format(const struct sc_elbv2_action *a,
                              const struct sc_elbv2_http_request *q, const char *protocol, int port,
                              char *out, size_t cap)
{
    char proto[16], portbuf[16];
    size_t o = 0, n = 0, mark;
    long p = 0;

    if (!a || a->type != SC_ELBV2_ACTION_REDIRECT || cap == 0)
        return -1;
    out[0] = '\0';
    /* protocol and port first: the default port is left out of the URL */
    if (expand(proto, sizeof(proto), &n,
               a->redirect_protocol ? a->redirect_protocol : "#{protocol}", q, protocol, port) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        proto[i] = (char)tolower((unsigned char)proto[i]);
    n = 0;
    if (expand(portbuf, sizeof(portbuf), &n, a->redirect_port ? a->redirect_port : "#{port}", q,
               protocol, port) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        p = portbuf[i] >= '0' && portbuf[i] <= '9' ? p * 10 + (portbuf[i] - '0') : -1000000;
    if (put(out, cap, &o, proto, strlen(proto)) < 0 || put(out, cap, &o, "://", 3) < 0 ||
        expand(out, cap, &o, a->redirect_host ? a->redirect_host : "#{host}", q, protocol, port) <
            0)
        return -1;
    if (!((strcmp(proto, "http") == 0 && p == 80) || (strcmp(proto, "https") == 0 && p == 443))) {
        if (put(out, cap, &o, ":", 1) < 0 || put(out, cap, &o, portbuf, n) < 0)
            return -1;
    }
    if (expand(out, cap, &o, a->redirect_path ? a->redirect_path : "/#{path}", q, protocol, port) <
        0)
        return -1;
    mark = o;
    if (put(out, cap, &o, "?", 1) < 0 ||
        expand(out, cap, &o, a->redirect_query ? a->redirect_query : "#{query}", q, protocol,
               port) < 0)
        return -1;
    if (o == mark + 1) { /* an empty query: no "?" */
        o = mark;
        out[o] = '\0';
    }
    return (long)o;
}
