/* emulator/dispatch.h: one AWS (or admin) request from memory to its reply: routing
 * (rpc-v2 CBOR path, X-Amz-Target, Action+Version with the service from the SigV4
 * credential scope), gunzip, optional SigV4 verification, the protocol parsers, the
 * request's world found once (emu_world), the handler (emulator/api.h), the serializers,
 * the step after a change (emu_step), and one log line per request.
 *
 * No sockets: emulator/server.c feeds it from libmicrohttpd, and tests and fuzzers call
 * dispatch_handle() directly. Single-threaded: everything runs on the loop's thread. */
#ifndef EMULATOR_DISPATCH_H
#define EMULATOR_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/sigv4.h"

struct emu;
struct events;

#define DISPATCH_DEFAULT_MAX_BODY     (2 * 1024 * 1024)
#define DISPATCH_MAX_RESPONSE_HEADERS 8
/* the request rate limits' defaults: generous, above what the one loop serves */
#define DISPATCH_DEFAULT_CLIENT_RATE  5000
#define DISPATCH_DEFAULT_ACCOUNT_RATE 10000

struct dispatch_config {
    const char *region;      /* default region: "us-east-1" */
    const char *account;     /* "123456789012" */
    int auth_sigv4;          /* 1: verify signatures */
    const char *credentials; /* keys file for auth_sigv4 (env keys are added) */
    /* with auth_sigv4: the console's token (emulator/console.h), accepted on the admin API
     * as a cookie or X-Scalelab-Token besides a signature; NULL: signatures only */
    const char *console_token;
    const char *s3_dir; /* S3 objects ELBv2 reads: DIR/bucket/key (NULL: none) */
    size_t max_body;    /* inflated bodies over this answer 413 */
    int quiet;          /* no per-request log line */
    /* request rate limits (emulator/ratelimit.h, docs/dataplane.md): tokens a second and
     * burst per client address and per account and Region; rate 0 = off */
    double client_rate, client_burst;
    double account_rate, account_burst;
};

void dispatch_config_defaults(struct dispatch_config *cfg);

struct dispatch_request {
    const char *method;
    const char *path;  /* raw, as sent (before '?') */
    const char *query; /* raw query string, "" when none */
    const struct cm_sigv4_header *hdrs;
    int nhdrs;
    const char *body;
    size_t body_len;
    int too_large;      /* the body passed max_body and was dropped */
    int overloaded;     /* the body was dropped: the server's budget of held upload bytes was
                         * spent (503 ServiceUnavailable) */
    const char *client; /* the peer's address; NULL (in-process callers): not rate limited */
};

struct dispatch_response {
    int status;
    /* enum state_kind bits when the request changed state (0: a read or a failure); with
     * --state the reply is held until that change is durable */
    unsigned state_kind;
    const char *content_type;
    struct cm_buf body;
    int nheaders;
    struct {
        const char *name;
        char value[256];
    } headers[DISPATCH_MAX_RESPONSE_HEADERS];
    /* non-NULL: the reply is a live stream of this event log (GET /_scalelab/events) from
     * the event after stream_after on; the server subscribes (emulator/events.h) and the
     * body is unused */
    struct events *stream;
    uint64_t stream_after;
    /* what the request spoke, for dispatch_response_fail() */
    int proto;
    const struct model_service *svc;
    char request_id[37];
};

/* Replaces rs (a reply dispatch_handle() made, held for a commit that then failed) with
 * 500 InternalFailure and message, in the request's own protocol (query XML, EC2 XML,
 * JSON 1.0 or RPC v2 CBOR, with the same request id). */
void dispatch_response_fail(struct dispatch_response *rs, const char *message);

struct dispatch;

/* A dispatcher over e's worlds (borrowed until dispatch_destroy()). Returns NULL with err
 * filled when the credentials cannot be loaded. */
struct dispatch *dispatch_create(const struct dispatch_config *cfg, struct emu *e, char *err,
                                 size_t errlen);
void dispatch_destroy(struct dispatch *d); /* NULL is a no-op */

/* Answers one request. rs is initialized here; the caller frees it with
 * dispatch_response_cleanup(). */
void dispatch_handle(struct dispatch *d, const struct dispatch_request *rq,
                     struct dispatch_response *rs);
void dispatch_response_cleanup(struct dispatch_response *rs);
/* Adds a response header (silently dropped past DISPATCH_MAX_RESPONSE_HEADERS). */
void dispatch_response_header(struct dispatch_response *rs, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Number of requests answered so far (the current one included while it runs). */
uint64_t dispatch_requests(const struct dispatch *d);

#endif
