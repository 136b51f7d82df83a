/* emulator/dispatch.c: routing, gunzip, SigV4, decoding, the world, the handler call,
 * rendering and the request log line (see dispatch.h). */
#include "emulator/dispatch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include <zlib.h>

#include "common/ev.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "emulator/acbor.h"
#include "emulator/admin.h"
#include "emulator/api.h"
#include "emulator/auth.h"
#include "emulator/awsjson.h"
#include "emulator/console.h"
#include "emulator/emu.h"
#include "emulator/model.h"
#include "emulator/query.h"
#include "emulator/ratelimit.h"
#include "emulator/state.h"
#include "emulator/xml.h"
#include "scaler/world.h"

#define CBOR_PATH_PREFIX "/service/GraniteServiceVersion20100801/operation/"

enum proto { PROTO_QUERY, PROTO_EC2, PROTO_JSON, PROTO_CBOR };

struct dispatch {
    struct dispatch_config cfg;
    struct emu *emu;
    struct auth_keys *keys;
    uint64_t rid[2];
    uint64_t requests;
    struct ratelimit *by_client, *by_account; /* NULL: that limit is off */
    int64_t untracked_logged_ms;
};

void dispatch_config_defaults(struct dispatch_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->region = "us-east-1";
    cfg->account = "123456789012";
    cfg->max_body = DISPATCH_DEFAULT_MAX_BODY;
    cfg->client_rate = DISPATCH_DEFAULT_CLIENT_RATE;
    cfg->account_rate = DISPATCH_DEFAULT_ACCOUNT_RATE;
}

static int64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* AWS's throttling answer in the request's service (docs/dataplane.md "Request rate"). */
static void throttled(struct awserr *err, const struct model_service *svc)
{
    if (svc == &model_ec2)
        awserr_set(err, 503, "RequestLimitExceeded", "Request limit exceeded.");
    else
        awserr_set(err, 400, "Throttling", "Rate exceeded");
    err->sender = 1;
}

/* 0 when rq's client has a token (taken), -1 with err set when it is throttled. */
static int take_client(struct dispatch *d, const struct dispatch_request *rq,
                       const struct model_service *svc, struct awserr *err)
{
    int64_t now = mono_ms();
    uint64_t untracked = ratelimit_untracked(d->by_client);

    if (!rq->client || ratelimit_take(d->by_client, rq->client, now))
        goto ok;
    throttled(err, svc);
    return -1;
ok:
    if (ratelimit_untracked(d->by_client) != untracked && now - d->untracked_logged_ms >= 1000) {
        d->untracked_logged_ms = now;
        log_warn("api: rate limit: %d client addresses tracked, %s not limited", RL_MAX_KEYS,
                 rq->client);
    }
    return 0;
}

/* The account and Region's token, after the client's (given back when refused here). */
static int take_account(struct dispatch *d, const struct dispatch_request *rq, const char *account,
                        const char *region, const struct model_service *svc, struct awserr *err)
{
    char key[RL_KEY_LEN];

    if (!rq->client)
        return 0;
    snprintf(key, sizeof(key), "%s/%s", account, region);
    if (ratelimit_take(d->by_account, key, mono_ms()))
        return 0;
    ratelimit_give_back(d->by_client, rq->client);
    throttled(err, svc);
    return -1;
}

static int64_t wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t dispatch_requests(const struct dispatch *d)
{
    return d->requests;
}

/* ---- responses ---------------------------------------------------------------------- */

void dispatch_response_header(struct dispatch_response *rs, const char *name, const char *fmt, ...)
{
    va_list ap;

    if (rs->nheaders >= DISPATCH_MAX_RESPONSE_HEADERS)
        return;
    rs->headers[rs->nheaders].name = name;
    va_start(ap, fmt);
    vsnprintf(rs->headers[rs->nheaders].value, sizeof(rs->headers[0].value), fmt, ap);
    va_end(ap);
    rs->nheaders++;
}

void dispatch_response_cleanup(struct dispatch_response *rs)
{
    cm_buf_cleanup(&rs->body);
}

static void render_error(struct dispatch_response *rs, enum proto p,
                         const struct model_service *svc, const struct awserr *e, const char *rid);

void dispatch_response_fail(struct dispatch_response *rs, const char *message)
{
    struct awserr err = { 0 };
    char rid[37];

    snprintf(rid, sizeof(rid), "%s", rs->request_id);
    awserr_set(&err, 500, "InternalFailure", "%s", message);
    rs->nheaders = 0;
    rs->state_kind = 0;
    dispatch_response_header(rs, "x-amzn-RequestId", "%s", rid);
    render_error(rs, (enum proto)rs->proto, rs->svc, &err, rid);
}

static void request_id(struct dispatch *d, char out[37])
{
    /* xorshift128+ over a random seed: unique, cheap, uuid-shaped (version 4 bits) */
    uint64_t x = d->rid[0], y = d->rid[1];
    uint64_t a, b;

    d->rid[0] = y;
    x ^= x << 23;
    d->rid[1] = x ^ y ^ (x >> 17) ^ (y >> 26);
    a = d->rid[1] + y;
    b = a * 0x9e3779b97f4a7c15ULL ^ ++d->requests;
    snprintf(out, 37, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
             (unsigned)((b >> 48) & 0x3fff) | 0x8000, (unsigned long long)(b & 0xffffffffffffULL));
}

static const char *req_header(const struct dispatch_request *rq, const char *name)
{
    for (int i = 0; i < rq->nhdrs; i++) {
        if (strcasecmp(rq->hdrs[i].name, name) == 0)
            return rq->hdrs[i].value;
    }
    return NULL;
}

static void render_error(struct dispatch_response *rs, enum proto p,
                         const struct model_service *svc, const struct awserr *e, const char *rid)
{
    rs->status = e->http;
    cm_buf_reset(&rs->body);
    switch (p) {
    case PROTO_JSON:
    case PROTO_CBOR: {
        char type[256];

        awsjson_error_type(svc, e, type, sizeof(type));
        if (p == PROTO_JSON) {
            rs->content_type = "application/x-amz-json-1.0";
            awsjson_write_error(&rs->body, svc, e);
        } else {
            rs->content_type = "application/cbor";
            dispatch_response_header(rs, "smithy-protocol", "rpc-v2-cbor");
            acbor_write_error(&rs->body, svc, e);
        }
        dispatch_response_header(rs, "x-amzn-query-error", "%s;%s", e->code,
                                 e->sender ? "Sender" : "Receiver");
        dispatch_response_header(rs, "X-Amzn-Errortype", "%s",
                                 strchr(type, '#') ? strchr(type, '#') + 1 : type);
        return;
    }
    default:
        rs->content_type = "text/xml";
        xml_write_error(&rs->body, svc, e, rid);
        return;
    }
}

static void render_reply(struct dispatch_response *rs, enum proto p,
                         const struct model_service *svc, const struct model_op *op, json_t *out,
                         const char *rid)
{
    rs->status = 200;
    switch (p) {
    case PROTO_JSON:
        rs->content_type = "application/x-amz-json-1.0";
        awsjson_write_reply(&rs->body, svc, op, out);
        return;
    case PROTO_CBOR:
        rs->content_type = "application/cbor";
        dispatch_response_header(rs, "smithy-protocol", "rpc-v2-cbor");
        acbor_write_reply(&rs->body, svc, op, out);
        return;
    default:
        rs->content_type = "text/xml";
        xml_write_reply(&rs->body, svc, op, out, rid);
        return;
    }
}

/* ---- routing ---------------------------------------------------------------------------- */

struct route {
    enum proto proto;
    const struct model_service *svc;
    const struct model_op *op;
    char action[128];
    struct query_form form;
    int have_form;
};

static int route(const struct dispatch_request *rq, const struct auth_scope *scope, int scoped,
                 struct route *r, struct awserr *err)
{
    const char *target = req_header(rq, "X-Amz-Target");
    const char *action, *version;
    const char *ctype = req_header(rq, "Content-Type");

    if (strncmp(rq->path, CBOR_PATH_PREFIX, strlen(CBOR_PATH_PREFIX)) == 0) {
        r->proto = PROTO_CBOR;
        r->svc = &model_cloudwatch;
        snprintf(r->action, sizeof(r->action), "%s", rq->path + strlen(CBOR_PATH_PREFIX));
    } else if (target) {
        const char *dot = strrchr(target, '.');

        r->proto = PROTO_JSON;
        r->svc = NULL;
        for (int i = 0; model_services[i]; i++) {
            const char *tp = model_services[i]->target_prefix;

            if (tp && dot && strlen(tp) == (size_t)(dot - target) &&
                strncmp(tp, target, (size_t)(dot - target)) == 0)
                r->svc = model_services[i];
        }
        if (!r->svc)
            return awserr_set(err, 400, "UnknownOperationException", "Unknown target %.200s",
                              target);
        snprintf(r->action, sizeof(r->action), "%s", dot + 1);
    } else {
        struct awserr ferr = { 0 };
        int form_body =
            strcmp(rq->method, "POST") == 0 && rq->body_len > 0 &&
            (!ctype || strncasecmp(ctype, "application/x-www-form-urlencoded", 33) == 0);

        r->proto = PROTO_QUERY;
        /* GET carries the form in the query string; POST in the body (plus any query) */
        if (form_body) {
            struct cm_buf all;

            cm_buf_init(&all, 0);
            cm_buf_append(&all, rq->body, rq->body_len);
            if (rq->query[0]) {
                cm_buf_putc(&all, '&');
                cm_buf_puts(&all, rq->query);
            }
            if (query_form_parse(&r->form, all.data, all.len, &ferr) < 0) {
                cm_buf_cleanup(&all);
                *err = ferr;
                return -1;
            }
            cm_buf_cleanup(&all);
        } else if (query_form_parse(&r->form, rq->query, strlen(rq->query), &ferr) < 0) {
            *err = ferr;
            return -1;
        }
        r->have_form = 1;
        action = query_form_find(&r->form, "Action");
        version = query_form_find(&r->form, "Version");
        if (!action || !*action)
            return awserr_set(err, 400, "MissingAction", "Missing Action");
        /* a NUL byte (%00) cuts the C string: the action is not the name before it */
        if (strlen(action) != query_form_pair(&r->form, "Action")->value_len) {
            char shown[128];

            snprintf(shown, sizeof(shown), "%s%%00...", action);
            return awserr_set(err, 400, "InvalidAction",
                              "The action %.100s is not valid for this web service.", shown);
        }
        snprintf(r->action, sizeof(r->action), "%s", action);
        r->svc = NULL;
        if (scoped) {
            /* elasticloadbalancing serves classic ELB and ELBv2: the Version tells */
            r->svc = model_service_find(scope->service, version);
            if (!r->svc)
                r->svc = model_service_find(scope->service, NULL);
        }
        if (!r->svc && version)
            r->svc = model_service_by_version(version);
        if (!r->svc)
            return awserr_set(err, 400, "InvalidAction",
                              "Could not determine the service of action %.100s: sign the "
                              "request (SigV4 credential scope) or give a known Version",
                              action);
        if (r->svc == &model_ec2)
            r->proto = PROTO_EC2;
    }
    r->op = model_op_find(r->svc, r->action);
    if (!r->op) {
        if (r->proto == PROTO_JSON || r->proto == PROTO_CBOR)
            return awserr_set(err, 400, "UnknownOperationException",
                              "The action %.100s is not valid for this web service.", r->action);
        return awserr_set(err, 400, "InvalidAction",
                          "The action %.100s is not valid for this web service.", r->action);
    }
    return 0;
}

/* Inflates a gzip body (Content-Encoding: gzip, which botocore uses for large
 * PutMetricData) into out, at most max bytes. Returns 0, -1 when malformed, -2 when the
 * result would pass max. */
static int gunzip(const char *in, size_t n, size_t max, struct cm_buf *out)
{
    z_stream z;
    char chunk[16384];
    int zr, rc = 0;

    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return -1;
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    for (;;) {
        z.next_out = (Bytef *)chunk;
        z.avail_out = sizeof(chunk);
        zr = inflate(&z, Z_NO_FLUSH);
        if (zr != Z_OK && zr != Z_STREAM_END) {
            rc = -1;
            break;
        }
        if (out->len + (sizeof(chunk) - z.avail_out) > max) {
            rc = -2;
            break;
        }
        cm_buf_append(out, chunk, sizeof(chunk) - z.avail_out);
        if (zr == Z_STREAM_END) {
            /* RFC 1952: the body is a series of members; anything else after one (trailing
             * garbage, which gzip(1) ignores with a warning) is a malformed body */
            if (z.avail_in == 0)
                break;
            if (z.avail_in < 2 || z.next_in[0] != 0x1f || z.next_in[1] != 0x8b ||
                inflateReset(&z) != Z_OK) {
                rc = -1;
                break;
            }
        } else if (z.avail_in == 0 && z.avail_out != 0) {
            rc = -1; /* truncated */
            break;
        }
    }
    inflateEnd(&z);
    return rc;
}

void dispatch_handle(struct dispatch *d, const struct dispatch_request *rq_wire,
                     struct dispatch_response *rs)
{
    struct dispatch_request dec = *rq_wire;
    const struct dispatch_request *rq = &dec; /* the request with its body decoded */
    struct cm_buf inflated;
    const char *enc;
    struct route r;
    struct awserr err = { 0 };
    struct auth_scope scope;
    char rid[37];
    int scoped;
    unsigned flags = 0;
    json_t *in = NULL, *out = NULL;
    struct sc_world *scratch = NULL; /* a read's world of a region with none yet */
    struct timespec ts0, ts1;

    clock_gettime(CLOCK_MONOTONIC, &ts0);
    cm_buf_init(&inflated, 0);
    memset(rs, 0, sizeof(*rs));
    cm_buf_init(&rs->body, 0);
    memset(&r, 0, sizeof(r));
    r.proto = PROTO_QUERY;
    request_id(d, rid);
    dispatch_response_header(rs, "x-amzn-RequestId", "%s", rid);

    if (admin_is_admin_path(rq->path) || admin_is_console_request(rq)) {
        /* with --auth sigv4 the admin API (and the console page and its stream) is signed
         * too, with the same keys, for the signing name "scalelab" (docs/auth.md); refused
         * in AWS's query XML */
        if (d->cfg.auth_sigv4) {
            struct auth_request ar = { rq->method,   rq->path, rq->query,    rq->hdrs,
                                       rq->nhdrs,    rq->body, rq->body_len, ADMIN_SIGV4_SERVICE,
                                       d->cfg.region };
            /* or the console's token: a cookie the page got for it, or X-Scalelab-Token */
            int presented = console_token_presented(d->cfg.console_token, rq);

            if (console_token_door(d->cfg.console_token, presented, admin_is_console_request(rq),
                                   rq, rs))
                goto log;
            if (presented < 0 && !req_header(rq, "Authorization")) {
                awserr_set(&err, 403, "AccessDenied",
                           "The console token (cookie or X-Scalelab-Token) is not this "
                           "emulator's: open the console URL it printed at start, or sign the "
                           "request (docs/auth.md)");
                goto fail;
            }
            if (presented <= 0 && auth_verify(d->keys, &ar, wall_ms(), &err) < 0)
                goto fail;
        }
        admin_handle(d->emu, &d->cfg, d->requests, rq, rs);
        goto log;
    }
    scoped = auth_parse(req_header(rq, "Authorization"), &scope) == 0 && scope.has_credential;
    enc = req_header(rq, "Content-Encoding");
    if (enc && strcasecmp(enc, "gzip") == 0 && !rq->too_large && rq->body_len > 0) {
        int zr = gunzip(rq->body, rq->body_len, d->cfg.max_body, &inflated);

        if (zr == -2) {
            dec.too_large = 1;
        } else if (zr < 0) {
            awserr_set(&err, 400, "SerializationException", "Malformed gzip request body");
            goto fail;
        } else {
            dec.body = inflated.data ? inflated.data : "";
            dec.body_len = inflated.len;
        }
    }
    if (rq->too_large || rq->overloaded) {
        /* the body is gone: answer in the protocol the path and headers announce */
        if (strncmp(rq->path, CBOR_PATH_PREFIX, strlen(CBOR_PATH_PREFIX)) == 0) {
            r.proto = PROTO_CBOR;
            r.svc = &model_cloudwatch;
        } else if (req_header(rq, "X-Amz-Target")) {
            r.proto = PROTO_JSON;
            r.svc = &model_cloudwatch;
        } else if (scoped) {
            r.svc = model_service_find(scope.service, NULL);
            r.proto = r.svc == &model_ec2 ? PROTO_EC2 : PROTO_QUERY;
        }
        if (rq->overloaded)
            awserr_set(&err, 503, "ServiceUnavailable",
                       "The request has failed due to a temporary failure of the server.");
        else
            awserr_set(&err, 413, "RequestEntityTooLarge", "Request body exceeds %zu bytes",
                       d->cfg.max_body);
        goto fail;
    }
    if (route(rq, &scope, scoped, &r, &err) < 0)
        goto fail;
    if (take_client(d, rq, r.svc, &err) < 0)
        goto fail;
    if (d->cfg.auth_sigv4) {
        /* the signature covers the body as sent (compressed) */
        struct auth_request ar = { rq_wire->method,   rq_wire->path,  rq_wire->query,
                                   rq_wire->hdrs,     rq_wire->nhdrs, rq_wire->body,
                                   rq_wire->body_len, r.svc->sigv4,   d->cfg.region };

        if (auth_verify(d->keys, &ar, wall_ms(), &err) < 0)
            goto fail;
    }
    if (take_account(d, rq, d->cfg.account,
                     scoped && scope.region[0] ? scope.region : d->cfg.region, r.svc, &err) < 0)
        goto fail;
    switch (r.proto) {
    case PROTO_QUERY:
    case PROTO_EC2:
        if (query_parse(r.svc, r.op, &r.form, r.proto == PROTO_EC2, &in, &err) < 0)
            goto fail;
        break;
    case PROTO_JSON:
        if (awsjson_parse_request(r.svc, r.op, rq->body, rq->body_len, &in, &err) < 0)
            goto fail;
        break;
    case PROTO_CBOR:
        if (strcmp(rq->method, "POST") != 0) {
            awserr_set(&err, 405, "MethodNotAllowed", "RPC v2 requests must be POST");
            goto fail;
        }
        if (acbor_parse_request(r.svc, r.op, (const uint8_t *)rq->body, rq->body_len, &in, &err) <
            0)
            goto fail;
        break;
    }
    {
        const struct api_handler *h = api_find(r.svc->name, r.op->name);
        struct api_ctx ctx = {
            NULL, d->cfg.account,     scoped && scope.region[0] ? scope.region : d->cfg.region,
            rid,  emu_now_ms(d->emu), d->cfg.s3_dir
        };

        if (!h) {
            awserr_set(&err, 501, "NotImplemented", "scalelab does not implement %s %s yet",
                       r.svc->name, r.op->name);
            goto fail;
        }
        /* the world of the request's account and region, the same error in every service:
         * only AWS's regions and --region have one (AWS's answer to a credential scope of
         * another region), and only a change makes it; a read before any change reads a
         * scratch world, dropped after the reply */
        if (!(h->flags & API_WORLDLESS)) {
            if (!emu_region_ok(d->emu, ctx.region)) {
                awserr_set(&err, 403, "SignatureDoesNotMatch",
                           "Credential should be scoped to a valid region, not '%s'. ", ctx.region);
                goto fail;
            }
            ctx.world = (h->flags & API_MUTATES) ? emu_world(d->emu, ctx.account, ctx.region)
                                                 : emu_world_find(d->emu, ctx.account, ctx.region);
            if (!ctx.world && !(h->flags & API_MUTATES))
                ctx.world = scratch = emu_world_scratch(d->emu, ctx.account, ctx.region);
            if (!ctx.world) {
                awserr_set(&err, 503, "ServiceUnavailable",
                           "scalelab holds at most %d account and region worlds", EMU_MAX_WORLDS);
                goto fail;
            }
        }
        if (h->fn(&ctx, in, &out, &err) < 0) {
            if (!awserr_is_set(&err))
                awserr_set(&err, 500, "InternalFailure", "handler failed");
            goto fail;
        }
        flags = h->flags;
    }
    render_reply(rs, r.proto, r.svc, r.op, out, rid);
    rs->proto = (int)r.proto;
    rs->svc = r.svc;
    snprintf(rs->request_id, sizeof(rs->request_id), "%s", rid);
    /* a change shows at once (instances come up, groups reconcile); reads change nothing */
    if (flags & API_MUTATES) {
        emu_step(d->emu);
        /* acknowledged only once durable: datapoints go to the metric journal (a state
         * writer), everything else is in the snapshot */
        rs->state_kind = flags & API_JOURNAL ? STATE_JOURNAL : STATE_SNAPSHOT;
    }
    goto log;

fail:
    render_error(rs, r.proto, r.svc, &err, rid);
log:
    if (!d->cfg.quiet) {
        clock_gettime(CLOCK_MONOTONIC, &ts1);
        log_info("req service=%s action=%s status=%d ms=%.3f%s%s",
                 r.svc ? r.svc->name : (admin_is_admin_path(rq->path) ? "admin" : "-"),
                 r.action[0] ? r.action : rq->path, rs->status,
                 (double)(ts1.tv_sec - ts0.tv_sec) * 1e3 +
                     (double)(ts1.tv_nsec - ts0.tv_nsec) / 1e6,
                 awserr_is_set(&err) ? " code=" : "", awserr_is_set(&err) ? err.code : "");
    }
    json_decref(in);
    json_decref(out);
    sc_world_destroy(scratch);
    if (r.have_form)
        query_form_cleanup(&r.form);
    cm_buf_cleanup(&inflated);
}
/* ---- create/destroy ---------------------------------------------------------------------- */

struct dispatch *dispatch_create(const struct dispatch_config *cfg, struct emu *e, char *err,
                                 size_t errlen)
{
    struct dispatch *d = cm_xcalloc(1, sizeof(*d));

    d->cfg = *cfg;
    if (d->cfg.max_body == 0)
        d->cfg.max_body = DISPATCH_DEFAULT_MAX_BODY;
    d->emu = e;
    if (getrandom(d->rid, sizeof(d->rid), 0) != (ssize_t)sizeof(d->rid)) {
        d->rid[0] = (uint64_t)wall_ms() * 0x9e3779b97f4a7c15ULL;
        d->rid[1] = (uint64_t)cm_ev_now_ms() | 1;
    }
    if (!d->rid[0] && !d->rid[1])
        d->rid[1] = 1;
    if (cfg->client_rate > 0)
        d->by_client = ratelimit_create(cfg->client_rate, cfg->client_burst);
    if (cfg->account_rate > 0)
        d->by_account = ratelimit_create(cfg->account_rate, cfg->account_burst);
    if ((cfg->client_rate > 0 && !d->by_client) || (cfg->account_rate > 0 && !d->by_account)) {
        snprintf(err, errlen, "out of memory");
        dispatch_destroy(d);
        return NULL;
    }
    if (cfg->auth_sigv4) {
        d->keys = auth_keys_load(cfg->credentials, err, errlen);
        if (!d->keys) {
            dispatch_destroy(d);
            return NULL;
        }
    }
    return d;
}

void dispatch_destroy(struct dispatch *d)
{
    if (!d)
        return;
    auth_keys_destroy(d->keys);
    ratelimit_destroy(d->by_client);
    ratelimit_destroy(d->by_account);
    free(d);
}
