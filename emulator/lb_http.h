/* emulator/lb_http.h: the HTTP/1.x message parsing shared by the load-balancer proxy
 * (lb.c), the health checker (health.c) and the instance program (instance_main.c).
 *
 * Zero-allocation and stateless for heads: a head is parsed in place once its blank line
 * is in the buffer; the result holds offsets into that buffer (valid while the bytes
 * stay). Chunked bodies are scanned incrementally by a tiny state machine, so a proxy can
 * pass bytes through unchanged and still know where the message ends.
 *
 * Strict where smuggling lives: conflicting Content-Length values, Content-Length with
 * Transfer-Encoding, a Transfer-Encoding other than "chunked" on a request, whitespace
 * before a header's colon and obsolete line folding are malformed. Lines may end in CRLF
 * or a bare LF. */
#ifndef EMULATOR_LB_HTTP_H
#define EMULATOR_LB_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define LB_HTTP_MAX_HEADERS 64
#define LB_HTTP_MAX_HEAD    16384 /* a head longer than this is refused */

struct lb_http_header {
    uint32_t name_off, name_len;
    uint32_t value_off, value_len; /* value without surrounding blanks */
};

enum lb_http_body {
    LB_HTTP_BODY_NONE,    /* no body */
    LB_HTTP_BODY_LENGTH,  /* content_length bytes */
    LB_HTTP_BODY_CHUNKED, /* chunked: scan with lb_http_chunked_scan */
    LB_HTTP_BODY_EOF,     /* responses only: until the server closes */
};

struct lb_http_msg {
    size_t head_len; /* bytes of the head, blank line included */
    /* request line (offsets into the buffer) */
    uint32_t method_off, method_len;
    uint32_t target_off, target_len;
    /* status line */
    int status;
    uint32_t reason_off, reason_len;
    int minor;              /* HTTP/1.<minor>: 0 or 1 */
    int64_t content_length; /* -1 when absent */
    int chunked;            /* Transfer-Encoding ends in chunked */
    int keep_alive;         /* the connection may carry another message */
    int expect_continue;    /* request has Expect: 100-continue */
    int is_head;            /* request method is HEAD */
    int xff;                /* index of X-Forwarded-For, or -1 */
    int nheaders;
    struct lb_http_header headers[LB_HTTP_MAX_HEADERS];
};

enum lb_http_result {
    LB_HTTP_OK = 1,         /* head parsed; m->head_len set */
    LB_HTTP_PARTIAL = 0,    /* need more bytes */
    LB_HTTP_MALFORMED = -1, /* not HTTP/1.x, or forbidden framing */
    LB_HTTP_TOO_LARGE = -2, /* head over LB_HTTP_MAX_HEAD or over LB_HTTP_MAX_HEADERS */
};

/* Parse a request head at the start of buf[0..len). */
enum lb_http_result lb_http_parse_request(const char *buf, size_t len, struct lb_http_msg *m);
/* Parse a response head (status line). 1xx responses parse like others; the caller skips
 * them (lb_http_body_of_response gives NONE). */
enum lb_http_result lb_http_parse_response(const char *buf, size_t len, struct lb_http_msg *m);

/* Body framing of a parsed request (NONE / LENGTH / CHUNKED). */
enum lb_http_body lb_http_request_body(const struct lb_http_msg *m);
/* Body framing of a parsed response to a request whose method was HEAD (req_head 1) or
 * not: 1xx, 204, 304 and HEAD have none; chunked; Content-Length; else until EOF. */
enum lb_http_body lb_http_response_body(const struct lb_http_msg *m, int req_head);

/* 1 when header i's name equals name (case-insensitive). */
int lb_http_header_is(const char *buf, const struct lb_http_msg *m, int i, const char *name);
/* Index of the first header named name, or -1. */
int lb_http_header_find(const char *buf, const struct lb_http_msg *m, const char *name);

/* Incremental chunked-body scanner. Zero it (or lb_http_chunked_init) per message. */
struct lb_http_chunked {
    int state;
    uint64_t remaining; /* bytes left in the current chunk's data */
    int digits;
};
void lb_http_chunked_init(struct lb_http_chunked *c);
/* Scans len bytes; returns how many belong to the body (== len unless the body ended
 * inside them), sets *done to 1 once the last chunk and the trailers are consumed.
 * Returns -1 on malformed framing. */
ssize_t lb_http_chunked_scan(struct lb_http_chunked *c, const char *p, size_t len, int *done);

/* What a proxy adds to a forwarded request. */
struct lb_http_forward {
    const char *client_ip;   /* appended to X-Forwarded-For */
    const char *proto;       /* X-Forwarded-Proto: "http" */
    int port;                /* X-Forwarded-Port: the listener's port */
    int drop_expect;         /* the proxy answered Expect: 100-continue itself */
    const char *drop_prefix; /* drop the client's headers whose name starts with it (any case) */
    const char *extra;       /* header lines (each ending in CRLF) appended, or NULL */
};
/* Writes the request head to forward to a backend into out[0..cap): the request line as
 * HTTP/1.1, the headers minus hop-by-hop ones (Connection, Keep-Alive, Proxy-Connection,
 * Upgrade, TE, and the X-Forwarded-* the proxy sets; Expect when drop_expect), then
 * X-Forwarded-For (the client's list with client_ip appended), -Proto and -Port. The
 * backend connection stays keep-alive (no Connection header in HTTP/1.1). Returns the
 * length, or -1 when cap is too small. */
ssize_t lb_http_forward_request(const char *buf, const struct lb_http_msg *m,
                                const struct lb_http_forward *fwd, char *out, size_t cap);
/* Writes the response head to send to the client: the status line as the backend sent
 * it, the headers minus Connection/Keep-Alive, plus "Connection: close" when close is 1,
 * or "Connection: keep-alive" for a keep-alive HTTP/1.0 client (client_minor 0). */
ssize_t lb_http_forward_response(const char *buf, const struct lb_http_msg *m, int close,
                                 int client_minor, char *out, size_t cap);

/* Formats a complete small response (the proxy's own 503/504/502/400, the instance's
 * replies): status line, Content-Type, Content-Length, Connection when close (or for
 * keep-alive with minor 0), extra header lines (each ending in CRLF, may be NULL), body.
 * Returns the length, or -1 when cap is too small. */
ssize_t lb_http_format_response(char *out, size_t cap, int status, const char *ctype,
                                const char *extra, const char *body, size_t body_len, int close,
                                int minor);
/* Reason phrase for the statuses this program emits ("OK", "Service Unavailable", ...). */
const char *lb_http_reason(int status);

#endif
