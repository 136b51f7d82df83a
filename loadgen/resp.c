/* loadgen/resp.c: see resp.h. Lines are found with memchr and handled in place when
 * they lie inside one read; only lines split across reads are copied.
 *
 * Why emulator/lb_http.c is a second HTTP/1 parser: loadgen reads all of a thread's
 * connections through one shared buffer, so this parser keeps its state between reads,
 * never needs a whole head in memory and only measures (status, framing, header and body
 * bytes as ab counts them), where the proxy parses a head it holds whole anyway, in place
 * and without allocating, keeping every header's offsets to forward and rewrite them.
 * One parser would cost loadgen a head buffer per connection or the proxy a line buffer
 * and a byte-at-a-time state machine, for rules (framing) that fit in a few lines here. */
#include "loadgen/resp.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

enum {
    ST_STATUS,
    ST_HEADER,
    ST_BODY_LEN,
    ST_BODY_EOF,
    ST_CHUNK_SIZE,
    ST_CHUNK_DATA,
    ST_CHUNK_END,
    ST_TRAILER,
    ST_DONE,
    ST_ERROR,
};

void resp_init(struct resp *r)
{
    memset(r, 0, sizeof(*r));
    resp_begin(r, 0);
}

void resp_cleanup(struct resp *r)
{
    free(r->line);
    r->line = NULL;
    r->line_cap = r->line_len = 0;
}

void resp_begin(struct resp *r, int head)
{
    r->status = 0;
    r->http_minor = 0;
    r->keep_alive = 0;
    r->chunked = 0;
    r->content_length = -1;
    r->header_bytes = 0;
    r->body_bytes = 0;
    r->error = RESP_E_NONE;
    r->got_header = 0;
    r->state = ST_STATUS;
    r->head = head;
    r->seen_bytes = 0;
    r->remaining = 0;
    r->line_len = 0;
}

int resp_started(const struct resp *r)
{
    return r->seen_bytes;
}

const char *resp_error_str(enum resp_error e)
{
    switch (e) {
    case RESP_E_NONE:
        return "no error";
    case RESP_E_NOT_HTTP:
        return "reply is not HTTP";
    case RESP_E_STATUS:
        return "malformed status line";
    case RESP_E_HEADER:
        return "malformed header line";
    case RESP_E_LENGTH:
        return "malformed Content-Length";
    case RESP_E_CHUNK:
        return "malformed chunked body";
    case RESP_E_TOO_BIG:
        return "header too large";
    case RESP_E_TRUNCATED:
        return "connection closed inside the response";
    }
    return "unknown error";
}

static enum resp_result fail(struct resp *r, enum resp_error e)
{
    r->error = e;
    r->state = ST_ERROR;
    return RESP_ERROR;
}

/* Characters allowed in a header name (RFC 9110 tchar). */
static const unsigned char tchar[256] = {
    ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['*'] = 1, ['+'] = 1,
    ['-'] = 1, ['.'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['|'] = 1,  ['~'] = 1, ['0'] = 1,
    ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,  ['7'] = 1, ['8'] = 1,
    ['9'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1,  ['F'] = 1, ['G'] = 1,
    ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1,  ['N'] = 1, ['O'] = 1,
    ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1,  ['V'] = 1, ['W'] = 1,
    ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1,  ['d'] = 1, ['e'] = 1,
    ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1,  ['l'] = 1, ['m'] = 1,
    ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1,  ['t'] = 1, ['u'] = 1,
    ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

/* ASCII case-insensitive equality of n bytes; lower must be lower case. */
static int eq_lower(const char *p, const char *lower, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 'A' && c <= 'Z')
            c |= 0x20;
        if (c != (unsigned char)lower[i])
            return 0;
    }
    return 1;
}

/* Does [p, p+n) contain the token tok (lower case) as a comma-separated element? */
static int has_token(const char *p, size_t n, const char *tok)
{
    size_t tl = strlen(tok);

    if (n == tl)
        return eq_lower(p, tok, tl); /* the usual case: the value is the token */
    for (size_t i = 0; i + tl <= n; i++) {
        if (!eq_lower(p + i, tok, tl))
            continue;
        if ((i == 0 || !isalnum((unsigned char)p[i - 1])) &&
            (i + tl == n || !isalnum((unsigned char)p[i + tl])))
            return 1;
    }
    return 0;
}

static int parse_status(struct resp *r, const char *p, size_t n)
{
    if (n < 12 || memcmp(p, "HTTP/1.", 7) != 0)
        return -1;
    if (p[7] != '0' && p[7] != '1')
        return -1;
    if (p[8] != ' ')
        return -1;
    if (!isdigit((unsigned char)p[9]) || !isdigit((unsigned char)p[10]) ||
        !isdigit((unsigned char)p[11]) || p[9] == '0')
        return -1;
    if (n > 12 && p[12] != ' ')
        return -1;
    r->http_minor = p[7] - '0';
    r->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
    r->keep_alive = r->http_minor == 1;
    return 0;
}

/* One header line: the name is checked and matched in a single pass; only the four
 * headers that matter are looked at further. */
static int parse_header(struct resp *r, const char *p, size_t n)
{
    const char *v, *end = p + n;
    size_t nl = 0;

    while (nl < n && tchar[(unsigned char)p[nl]])
        nl++;
    if (nl == 0 || nl == n || p[nl] != ':')
        return RESP_E_HEADER;
    v = p + nl + 1;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    switch (nl) {
    case 14:
        if (eq_lower(p, "content-length", 14)) {
            uint64_t len = 0;

            if (v == end)
                return RESP_E_LENGTH;
            for (const char *q = v; q < end; q++) {
                if (*q < '0' || *q > '9' || len > (UINT64_MAX - 9) / 10 / 16)
                    return RESP_E_LENGTH;
                len = len * 10 + (uint64_t)(*q - '0');
            }
            if (r->content_length >= 0 && (uint64_t)r->content_length != len)
                return RESP_E_LENGTH;
            r->content_length = (int64_t)len;
        }
        break;
    case 10:
        if (eq_lower(p, "connection", 10)) {
            if (has_token(v, (size_t)(end - v), "close"))
                r->keep_alive = 0;
            else if (has_token(v, (size_t)(end - v), "keep-alive"))
                r->keep_alive = 1;
        }
        break;
    case 17:
        if (eq_lower(p, "transfer-encoding", 17)) {
            size_t vl = (size_t)(end - v);
            r->chunked = vl >= 7 && eq_lower(end - 7, "chunked", 7);
        }
        break;
    case 6:
        if (r->server_cap && eq_lower(p, "server", 6)) {
            size_t vl = (size_t)(end - v);
            if (vl >= r->server_cap)
                vl = r->server_cap - 1;
            memcpy(r->server, v, vl);
            r->server[vl] = '\0';
        }
        break;
    default:
        break;
    }
    return RESP_E_NONE;
}

/* End of the header block: choose how the body is framed. */
static void headers_done(struct resp *r)
{
    r->got_header = 1;
    if (r->head || r->status == 204 || r->status == 304) {
        r->state = ST_DONE;
    } else if (r->chunked) {
        r->state = ST_CHUNK_SIZE;
    } else if (r->content_length >= 0) {
        r->remaining = (uint64_t)r->content_length;
        r->state = r->remaining ? ST_BODY_LEN : ST_DONE;
    } else {
        r->keep_alive = 0;
        r->state = ST_BODY_EOF;
    }
}

static int parse_chunk_size(struct resp *r, const char *p, size_t n)
{
    uint64_t size = 0;
    size_t i = 0;

    while (i < n && isxdigit((unsigned char)p[i])) {
        int d = isdigit((unsigned char)p[i]) ? p[i] - '0' : (p[i] | 0x20) - 'a' + 10;
        if (size >> 56)
            return -1;
        size = size * 16 + (uint64_t)d;
        i++;
    }
    if (i == 0)
        return -1;
    while (i < n && (p[i] == ' ' || p[i] == '\t'))
        i++;
    if (i < n && p[i] != ';')
        return -1;
    r->remaining = size;
    r->state = size ? ST_CHUNK_DATA : ST_TRAILER;
    return 0;
}

/* One complete line (without its \n, and without a final \r). */
static enum resp_result on_line(struct resp *r, const char *p, size_t n)
{
    if (n && p[n - 1] == '\r')
        n--;
    switch (r->state) {
    case ST_STATUS:
        if (parse_status(r, p, n) < 0)
            return fail(r,
                        memcmp(p, "HTTP/", n < 5 ? n : 5) == 0 ? RESP_E_STATUS : RESP_E_NOT_HTTP);
        r->state = ST_HEADER;
        return RESP_MORE;
    case ST_HEADER:
        if (n == 0) {
            if (r->status < 200) { /* 1xx: an interim response; the real one follows */
                r->state = ST_STATUS;
                r->content_length = -1;
                r->chunked = 0;
                return RESP_MORE;
            }
            headers_done(r);
            return r->state == ST_DONE ? RESP_DONE : RESP_MORE;
        } else {
            enum resp_error e = (enum resp_error)parse_header(r, p, n);
            if (e != RESP_E_NONE)
                return fail(r, e);
        }
        return RESP_MORE;
    case ST_CHUNK_SIZE:
        if (parse_chunk_size(r, p, n) < 0)
            return fail(r, RESP_E_CHUNK);
        return RESP_MORE;
    case ST_CHUNK_END:
        if (n != 0)
            return fail(r, RESP_E_CHUNK);
        r->state = ST_CHUNK_SIZE;
        return RESP_MORE;
    case ST_TRAILER:
        if (n == 0) {
            r->state = ST_DONE;
            return RESP_DONE;
        }
        return RESP_MORE;
    default:
        return fail(r, RESP_E_HEADER);
    }
}

static int in_header(const struct resp *r)
{
    return r->state == ST_STATUS || r->state == ST_HEADER;
}

enum resp_result resp_feed(struct resp *r, const char *p, size_t n, size_t *used)
{
    size_t off = 0;
    enum resp_result res = RESP_MORE;

    if (r->state == ST_ERROR) {
        *used = 0;
        return RESP_ERROR;
    }
    if (n)
        r->seen_bytes = 1;
    /* Reject a non-HTTP reply at its first bytes rather than waiting for a newline. */
    if (r->state == ST_STATUS && r->line_len == 0 && n) {
        size_t k = n < 5 ? n : 5;
        if (memcmp(p, "HTTP/", k) != 0) {
            *used = 0;
            return fail(r, RESP_E_NOT_HTTP);
        }
    }
    while (off < n) {
        switch (r->state) {
        case ST_BODY_LEN:
        case ST_CHUNK_DATA: {
            size_t take = n - off;
            if (take > r->remaining)
                take = (size_t)r->remaining;
            r->remaining -= take;
            r->body_bytes += take;
            off += take;
            if (r->remaining == 0) {
                if (r->state == ST_BODY_LEN) {
                    r->state = ST_DONE;
                    res = RESP_DONE;
                    goto out;
                }
                r->state = ST_CHUNK_END;
            }
            break;
        }
        case ST_BODY_EOF:
            r->body_bytes += n - off;
            off = n;
            break;
        case ST_DONE:
            res = RESP_DONE;
            goto out;
        case ST_ERROR:
            res = RESP_ERROR;
            goto out;
        default: { /* line-oriented states */
            const char *nl = memchr(p + off, '\n', n - off);
            size_t part = nl ? (size_t)(nl - (p + off)) + 1 : n - off;
            int hdr = in_header(r);

            if (hdr) {
                r->header_bytes += part;
                if (r->header_bytes > RESP_HEADER_MAX) {
                    res = fail(r, RESP_E_TOO_BIG);
                    goto out;
                }
            } else {
                r->body_bytes += part;
            }
            if (r->line_len + part > RESP_LINE_MAX) {
                res = fail(r, RESP_E_TOO_BIG);
                goto out;
            }
            if (!nl || r->line_len) { /* split line: gather it */
                if (r->line_len + part > r->line_cap) {
                    r->line_cap = RESP_LINE_MAX;
                    r->line = cm_xrealloc(r->line, r->line_cap);
                }
                memcpy(r->line + r->line_len, p + off, part);
                r->line_len += part;
                off += part;
                if (!nl)
                    break;
                res = on_line(r, r->line, r->line_len - 1);
                r->line_len = 0;
            } else {
                res = on_line(r, p + off, part - 1);
                off += part;
            }
            if (res != RESP_MORE)
                goto out;
            break;
        }
        }
    }
    if (r->state == ST_DONE)
        res = RESP_DONE;
out:
    *used = off;
    return res;
}

enum resp_result resp_eof(struct resp *r)
{
    if (r->state == ST_BODY_EOF) {
        r->state = ST_DONE;
        return RESP_DONE;
    }
    if (r->state == ST_DONE)
        return RESP_DONE;
    if (!r->seen_bytes)
        return RESP_MORE;
    if (r->state == ST_ERROR)
        return RESP_ERROR;
    return fail(r, RESP_E_TRUNCATED);
}
