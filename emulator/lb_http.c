/* emulator/lb_http.c: see lb_http.h.
 *
 * Why loadgen/resp.c is a second HTTP/1 parser: the proxy, the health checker and the
 * instance hold each head whole in their connection's buffer (the proxy forwards it), so
 * this parses it in place with no allocation, returns every header's offsets for
 * forwarding and rewriting, and parses requests too, with the anti-smuggling rules a
 * server side needs. loadgen's client streams responses through one buffer per thread
 * and only measures them (status, framing, byte counts as ab reports them), so it keeps a
 * byte-fed state machine of its own rather than a head buffer per connection. */
#include "emulator/lb_http.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static int is_tchar(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return 1;
    return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Finds the end of the head: index just past the blank line, 0 when not there yet. */
static size_t head_end(const char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (buf[i] != '\n')
            continue;
        if (i + 1 < len && buf[i + 1] == '\n')
            return i + 2;
        if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

/* Line [*pos, eol) without its CR; advances *pos past the LF. Returns the line length or
 * -1 when no LF before end. */
static long next_line(const char *buf, size_t end, size_t *pos, size_t *start)
{
    const char *lf = memchr(buf + *pos, '\n', end - *pos);
    size_t e;

    if (!lf)
        return -1;
    *start = *pos;
    e = (size_t)(lf - buf);
    *pos = e + 1;
    if (e > *start && buf[e - 1] == '\r')
        e--;
    return (long)(e - *start);
}

static int token_has(const char *v, size_t n, const char *tok)
{
    size_t tl = strlen(tok);
    size_t i = 0;

    while (i < n) {
        size_t s, e;

        while (i < n && (is_blank(v[i]) || v[i] == ','))
            i++;
        s = i;
        while (i < n && v[i] != ',')
            i++;
        e = i;
        while (e > s && is_blank(v[e - 1]))
            e--;
        if (e - s == tl && strncasecmp(v + s, tok, tl) == 0)
            return 1;
    }
    return 0;
}

/* Last comma-separated token of v is tok. */
static int last_token_is(const char *v, size_t n, const char *tok)
{
    size_t tl = strlen(tok);
    size_t e = n, s;

    while (e > 0 && (is_blank(v[e - 1]) || v[e - 1] == ','))
        e--;
    s = e;
    while (s > 0 && v[s - 1] != ',' && !is_blank(v[s - 1]))
        s--;
    return e - s == tl && strncasecmp(v + s, tok, tl) == 0;
}

static int parse_version(const char *p, size_t n, int *minor)
{
    if (n != 8 || memcmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1'))
        return -1;
    *minor = p[7] - '0';
    return 0;
}

static int parse_u64(const char *p, size_t n, int64_t *out)
{
    int64_t v = 0;

    if (n == 0 || n > 18)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 0;
}

/* Parses header lines from pos to end (end = just past the blank line) and the framing
 * headers. is_req selects the request rules. */
static enum lb_http_result parse_headers(const char *buf, size_t pos, size_t end,
                                         struct lb_http_msg *m, int is_req)
{
    int conn_close = 0, conn_keep = 0, has_te = 0;

    m->nheaders = 0;
    m->content_length = -1;
    m->chunked = 0;
    m->expect_continue = 0;
    m->xff = -1;
    for (;;) {
        size_t ls, i, ne, vs, ve;
        long ll = next_line(buf, end, &pos, &ls);
        const char *l = buf + ls;
        struct lb_http_header *h;

        if (ll < 0)
            return LB_HTTP_MALFORMED;
        if (ll == 0)
            break;
        if (is_blank(l[0]))
            return LB_HTTP_MALFORMED; /* obsolete folding */
        for (i = 0; i < (size_t)ll && is_tchar((unsigned char)l[i]); i++)
            ;
        if (i == 0 || i >= (size_t)ll || l[i] != ':')
            return LB_HTTP_MALFORMED;
        ne = i;
        vs = i + 1;
        while (vs < (size_t)ll && is_blank(l[vs]))
            vs++;
        ve = (size_t)ll;
        while (ve > vs && is_blank(l[ve - 1]))
            ve--;
        for (size_t k = vs; k < ve; k++) {
            if (l[k] == '\0' || l[k] == '\r')
                return LB_HTTP_MALFORMED;
        }
        if (m->nheaders == LB_HTTP_MAX_HEADERS)
            return LB_HTTP_TOO_LARGE;
        h = &m->headers[m->nheaders];
        h->name_off = (uint32_t)ls;
        h->name_len = (uint32_t)ne;
        h->value_off = (uint32_t)(ls + vs);
        h->value_len = (uint32_t)(ve - vs);
        if (ne == 14 && strncasecmp(l, "Content-Length", 14) == 0) {
            int64_t v;

            if (parse_u64(l + vs, ve - vs, &v) < 0)
                return LB_HTTP_MALFORMED;
            if (m->content_length >= 0 && m->content_length != v)
                return LB_HTTP_MALFORMED;
            m->content_length = v;
        } else if (ne == 17 && strncasecmp(l, "Transfer-Encoding", 17) == 0) {
            has_te = 1;
            m->chunked = last_token_is(l + vs, ve - vs, "chunked");
            if (is_req && !m->chunked)
                return LB_HTTP_MALFORMED;
        } else if (ne == 10 && strncasecmp(l, "Connection", 10) == 0) {
            conn_close |= token_has(l + vs, ve - vs, "close");
            conn_keep |= token_has(l + vs, ve - vs, "keep-alive");
        } else if (is_req && ne == 6 && strncasecmp(l, "Expect", 6) == 0) {
            if (ve - vs == 12 && strncasecmp(l + vs, "100-continue", 12) == 0)
                m->expect_continue = 1;
        } else if (ne == 15 && strncasecmp(l, "X-Forwarded-For", 15) == 0) {
            if (m->xff < 0)
                m->xff = m->nheaders;
        }
        m->nheaders++;
    }
    if (has_te && m->content_length >= 0) {
        if (is_req)
            return LB_HTTP_MALFORMED;
        m->content_length = -1; /* RFC 9112 6.1: Transfer-Encoding wins */
    }
    if (m->minor == 0)
        m->keep_alive = conn_keep && !conn_close;
    else
        m->keep_alive = !conn_close;
    m->head_len = end;
    return LB_HTTP_OK;
}

enum lb_http_result lb_http_parse_request(const char *buf, size_t len, struct lb_http_msg *m)
{
    size_t end, pos = 0, ls, i, sp1, sp2;
    long ll;
    const char *l;

    end = head_end(buf, len < LB_HTTP_MAX_HEAD ? len : LB_HTTP_MAX_HEAD);
    if (!end) {
        /* a request may not start with blank lines we would wait on forever */
        return len >= LB_HTTP_MAX_HEAD ? LB_HTTP_TOO_LARGE : LB_HTTP_PARTIAL;
    }
    ll = next_line(buf, end, &pos, &ls);
    l = buf + ls;
    if (ll <= 0)
        return LB_HTTP_MALFORMED;
    for (i = 0; i < (size_t)ll && is_tchar((unsigned char)l[i]); i++)
        ;
    if (i == 0 || i >= (size_t)ll || l[i] != ' ')
        return LB_HTTP_MALFORMED;
    sp1 = i;
    for (i = sp1 + 1; i < (size_t)ll && l[i] != ' '; i++) {
        if ((unsigned char)l[i] <= 0x20 || l[i] == 0x7f)
            return LB_HTTP_MALFORMED;
    }
    if (i == sp1 + 1 || i >= (size_t)ll)
        return LB_HTTP_MALFORMED;
    sp2 = i;
    if (parse_version(l + sp2 + 1, (size_t)ll - sp2 - 1, &m->minor) < 0)
        return LB_HTTP_MALFORMED;
    m->method_off = (uint32_t)ls;
    m->method_len = (uint32_t)sp1;
    m->target_off = (uint32_t)(ls + sp1 + 1);
    m->target_len = (uint32_t)(sp2 - sp1 - 1);
    m->status = 0;
    m->reason_off = m->reason_len = 0;
    m->is_head = sp1 == 4 && memcmp(l, "HEAD", 4) == 0;
    return parse_headers(buf, pos, end, m, 1);
}

enum lb_http_result lb_http_parse_response(const char *buf, size_t len, struct lb_http_msg *m)
{
    size_t end, pos = 0, ls;
    long ll;
    const char *l;

    end = head_end(buf, len < LB_HTTP_MAX_HEAD ? len : LB_HTTP_MAX_HEAD);
    if (!end)
        return len >= LB_HTTP_MAX_HEAD ? LB_HTTP_TOO_LARGE : LB_HTTP_PARTIAL;
    ll = next_line(buf, end, &pos, &ls);
    l = buf + ls;
    /* "HTTP/1.1 200" at least, then optional " reason" */
    if (ll < 12 || parse_version(l, 8, &m->minor) < 0 || l[8] != ' ')
        return LB_HTTP_MALFORMED;
    for (int k = 9; k < 12; k++) {
        if (l[k] < '0' || l[k] > '9')
            return LB_HTTP_MALFORMED;
    }
    if (ll > 12 && l[12] != ' ')
        return LB_HTTP_MALFORMED;
    m->status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
    if (m->status < 100)
        return LB_HTTP_MALFORMED;
    m->reason_off = (uint32_t)(ls + (ll > 12 ? 13 : 12));
    m->reason_len = (uint32_t)(ll > 12 ? ll - 13 : 0);
    m->method_off = m->method_len = m->target_off = m->target_len = 0;
    m->is_head = 0;
    return parse_headers(buf, pos, end, m, 0);
}

enum lb_http_body lb_http_request_body(const struct lb_http_msg *m)
{
    if (m->chunked)
        return LB_HTTP_BODY_CHUNKED;
    if (m->content_length > 0)
        return LB_HTTP_BODY_LENGTH;
    return LB_HTTP_BODY_NONE;
}

enum lb_http_body lb_http_response_body(const struct lb_http_msg *m, int req_head)
{
    if (req_head || m->status < 200 || m->status == 204 || m->status == 304)
        return LB_HTTP_BODY_NONE;
    if (m->chunked)
        return LB_HTTP_BODY_CHUNKED;
    if (m->content_length == 0)
        return LB_HTTP_BODY_NONE;
    if (m->content_length > 0)
        return LB_HTTP_BODY_LENGTH;
    return LB_HTTP_BODY_EOF;
}

int lb_http_header_is(const char *buf, const struct lb_http_msg *m, int i, const char *name)
{
    size_t n = strlen(name);

    return i >= 0 && i < m->nheaders && m->headers[i].name_len == n &&
           strncasecmp(buf + m->headers[i].name_off, name, n) == 0;
}

int lb_http_header_find(const char *buf, const struct lb_http_msg *m, const char *name)
{
    for (int i = 0; i < m->nheaders; i++) {
        if (lb_http_header_is(buf, m, i, name))
            return i;
    }
    return -1;
}

/* --- chunked ------------------------------------------------------------------------ */

enum {
    CH_SIZE,     /* hex digits */
    CH_EXT,      /* chunk extension until LF */
    CH_DATA,     /* remaining bytes of data */
    CH_DATA_END, /* CR? LF after data */
    CH_TRAILER,  /* start of a trailer line (or the final blank line) */
    CH_TRAILER_LINE,
    CH_LAST_LF, /* final CR seen, expect LF */
    CH_DONE,
};

void lb_http_chunked_init(struct lb_http_chunked *c)
{
    memset(c, 0, sizeof(*c));
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

ssize_t lb_http_chunked_scan(struct lb_http_chunked *c, const char *p, size_t len, int *done)
{
    size_t i = 0;

    *done = c->state == CH_DONE;
    while (i < len && c->state != CH_DONE) {
        char ch = p[i];

        switch (c->state) {
        case CH_SIZE: {
            int v = hexval(ch);

            if (v >= 0) {
                if (++c->digits > 15)
                    return -1;
                c->remaining = c->remaining * 16 + (uint64_t)v;
            } else if (c->digits == 0) {
                return -1;
            } else if (ch == '\n') {
                c->state = c->remaining ? CH_DATA : CH_TRAILER;
            } else if (ch == ';' || ch == '\r' || is_blank(ch)) {
                c->state = CH_EXT;
            } else {
                return -1;
            }
            i++;
            break;
        }
        case CH_EXT:
            if (ch == '\n')
                c->state = c->remaining ? CH_DATA : CH_TRAILER;
            i++;
            break;
        case CH_DATA: {
            size_t n = len - i;

            if (n > c->remaining)
                n = (size_t)c->remaining;
            c->remaining -= n;
            i += n;
            if (c->remaining == 0)
                c->state = CH_DATA_END;
            break;
        }
        case CH_DATA_END:
            if (ch == '\n') {
                c->state = CH_SIZE;
                c->digits = 0;
            } else if (ch != '\r') {
                return -1;
            }
            i++;
            break;
        case CH_TRAILER:
            if (ch == '\n')
                c->state = CH_DONE;
            else if (ch == '\r')
                c->state = CH_LAST_LF;
            else
                c->state = CH_TRAILER_LINE;
            i++;
            break;
        case CH_LAST_LF:
            if (ch != '\n')
                return -1;
            c->state = CH_DONE;
            i++;
            break;
        case CH_TRAILER_LINE:
            if (ch == '\n')
                c->state = CH_TRAILER;
            i++;
            break;
        default:
            return -1;
        }
    }
    *done = c->state == CH_DONE;
    return (ssize_t)i;
}

/* --- forwarding -------------------------------------------------------------------- */

struct out {
    char *p;
    size_t len, cap;
    int over;
};

static void put(struct out *o, const char *s, size_t n)
{
    if (o->over || o->len + n > o->cap) {
        o->over = 1;
        return;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
}

static void puts_(struct out *o, const char *s)
{
    put(o, s, strlen(s));
}

static void put_int(struct out *o, long v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof(tmp), "%ld", v);

    put(o, tmp, (size_t)n);
}

static int hop_by_hop(const char *buf, const struct lb_http_msg *m, int i, int drop_expect)
{
    static const char *const names[] = {
        "Connection", "Keep-Alive",        "Proxy-Connection", "Upgrade",
        "TE",         "X-Forwarded-Proto", "X-Forwarded-Port", "X-Forwarded-For",
    };

    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        if (lb_http_header_is(buf, m, i, names[k]))
            return 1;
    }
    return drop_expect && lb_http_header_is(buf, m, i, "Expect");
}

ssize_t lb_http_forward_request(const char *buf, const struct lb_http_msg *m,
                                const struct lb_http_forward *fwd, char *out, size_t cap)
{
    struct out o = { out, 0, cap, 0 };

    put(&o, buf + m->method_off, m->method_len);
    put(&o, " ", 1);
    put(&o, buf + m->target_off, m->target_len);
    puts_(&o, " HTTP/1.1\r\n");
    for (int i = 0; i < m->nheaders; i++) {
        const struct lb_http_header *h = &m->headers[i];

        if (hop_by_hop(buf, m, i, fwd->drop_expect) ||
            (fwd->drop_prefix && h->name_len >= strlen(fwd->drop_prefix) &&
             strncasecmp(buf + h->name_off, fwd->drop_prefix, strlen(fwd->drop_prefix)) == 0))
            continue;
        put(&o, buf + h->name_off, h->name_len);
        puts_(&o, ": ");
        put(&o, buf + h->value_off, h->value_len);
        puts_(&o, "\r\n");
    }
    puts_(&o, "X-Forwarded-For: ");
    if (m->xff >= 0 && m->headers[m->xff].value_len > 0) {
        put(&o, buf + m->headers[m->xff].value_off, m->headers[m->xff].value_len);
        puts_(&o, ", ");
    }
    puts_(&o, fwd->client_ip ? fwd->client_ip : "127.0.0.1");
    puts_(&o, "\r\nX-Forwarded-Proto: ");
    puts_(&o, fwd->proto ? fwd->proto : "http");
    puts_(&o, "\r\nX-Forwarded-Port: ");
    put_int(&o, fwd->port);
    puts_(&o, "\r\n");
    if (fwd->extra)
        puts_(&o, fwd->extra);
    puts_(&o, "\r\n");
    return o.over ? -1 : (ssize_t)o.len;
}

ssize_t lb_http_forward_response(const char *buf, const struct lb_http_msg *m, int close,
                                 int client_minor, char *out, size_t cap)
{
    struct out o = { out, 0, cap, 0 };
    size_t ls = 0, pos = 0;
    long ll = next_line(buf, m->head_len, &pos, &ls);

    if (ll < 0)
        return -1;
    put(&o, buf, (size_t)ll);
    puts_(&o, "\r\n");
    for (int i = 0; i < m->nheaders; i++) {
        const struct lb_http_header *h = &m->headers[i];

        if (lb_http_header_is(buf, m, i, "Connection") ||
            lb_http_header_is(buf, m, i, "Keep-Alive"))
            continue;
        put(&o, buf + h->name_off, h->name_len);
        puts_(&o, ": ");
        put(&o, buf + h->value_off, h->value_len);
        puts_(&o, "\r\n");
    }
    if (close)
        puts_(&o, "Connection: close\r\n");
    else if (client_minor == 0)
        puts_(&o, "Connection: keep-alive\r\n");
    puts_(&o, "\r\n");
    return o.over ? -1 : (ssize_t)o.len;
}

const char *lb_http_reason(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 301:
        return "Moved Permanently";
    case 302:
        return "Found";
    case 400:
        return "Bad Request";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 413:
        return "Request Entity Too Large";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    default:
        return "Unknown";
    }
}

ssize_t lb_http_format_response(char *out, size_t cap, int status, const char *ctype,
                                const char *extra, const char *body, size_t body_len, int close,
                                int minor)
{
    struct out o = { out, 0, cap, 0 };

    puts_(&o, minor == 0 ? "HTTP/1.0 " : "HTTP/1.1 ");
    put_int(&o, status);
    puts_(&o, " ");
    puts_(&o, lb_http_reason(status));
    puts_(&o, "\r\nContent-Type: ");
    puts_(&o, ctype ? ctype : "text/plain");
    puts_(&o, "\r\nContent-Length: ");
    put_int(&o, (long)body_len);
    puts_(&o, "\r\n");
    if (close)
        puts_(&o, "Connection: close\r\n");
    else if (minor == 0)
        puts_(&o, "Connection: keep-alive\r\n");
    if (extra)
        puts_(&o, extra);
    puts_(&o, "\r\n");
    if (body_len)
        put(&o, body, body_len);
    return o.over ? -1 : (ssize_t)o.len;
}
