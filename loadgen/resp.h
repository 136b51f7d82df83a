/* loadgen/resp.h: an incremental HTTP/1.x response parser.
 *
 * Bytes are fed as they arrive, in pieces of any size (a status line split across
 * three reads is fine); the parser keeps only a small state and, when a line is split,
 * the partial line (heap, capped). Bodies are framed by Content-Length, chunked
 * transfer coding, or the connection's end (resp_eof). Responses to HEAD, 1xx (skipped),
 * 204 and 304 have no body. The parser never copies body bytes.
 *
 * One resp is reused for each response on a connection: resp_begin() before each one.
 * Called only from the loop that owns the connection. */
#ifndef LOADGEN_RESP_H
#define LOADGEN_RESP_H

#include <stddef.h>
#include <stdint.h>

#define RESP_LINE_MAX   8192  /* longest status/header/chunk-size line */
#define RESP_HEADER_MAX 65536 /* most header bytes per response */

enum resp_result {
    RESP_ERROR = -1, /* malformed: see resp.error; close the connection */
    RESP_MORE = 0,   /* need more bytes */
    RESP_DONE = 1,   /* one whole response parsed */
};

enum resp_error {
    RESP_E_NONE = 0,
    RESP_E_NOT_HTTP,  /* the reply does not start with "HTTP/1." */
    RESP_E_STATUS,    /* malformed status line */
    RESP_E_HEADER,    /* malformed header line */
    RESP_E_LENGTH,    /* malformed or conflicting Content-Length */
    RESP_E_CHUNK,     /* malformed chunk framing */
    RESP_E_TOO_BIG,   /* a line or the header block passed its cap */
    RESP_E_TRUNCATED, /* the connection ended inside the response */
};

struct resp {
    /* results, valid once the header block is parsed (RESP_DONE at the latest) */
    int status;     /* 100..999 */
    int http_minor; /* 0 or 1 */
    int keep_alive; /* the connection may carry another request afterwards */
    int chunked;
    int64_t content_length; /* -1 when absent */
    uint64_t header_bytes;  /* status line and headers, with the blank line */
    uint64_t
        body_bytes; /* every byte after the header block (chunk framing included, as ab counts) */
    enum resp_error error;
    int got_header; /* header block complete */
    /* optional: where to copy the Server header (set server_cap > 0 to capture) */
    char *server;
    size_t server_cap;
    /* private */
    int state;
    int head;
    int seen_bytes;
    uint64_t remaining;
    char *line; /* partial line carried across reads */
    size_t line_len;
    size_t line_cap;
};

/* Prepares r for a fresh connection. The partial-line buffer is allocated on demand. */
void resp_init(struct resp *r);
/* Releases r's buffer. */
void resp_cleanup(struct resp *r);
/* Starts a new response; head: the request was HEAD (no body will follow). */
void resp_begin(struct resp *r, int head);
/* Feeds n bytes. *used is set to the bytes consumed (less than n only on RESP_DONE,
 * when bytes follow the response). */
enum resp_result resp_feed(struct resp *r, const char *p, size_t n, size_t *used);
/* The connection ended: RESP_DONE if the body was delimited by the close, otherwise
 * RESP_ERROR with RESP_E_TRUNCATED (or RESP_MORE if not a byte of this response came). */
enum resp_result resp_eof(struct resp *r);
/* True once any byte of the current response arrived. */
int resp_started(const struct resp *r);
/* A short English reason for an error. */
const char *resp_error_str(enum resp_error e);

#endif
