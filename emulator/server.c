/* emulator/server.c: see server.h. */
#include "emulator/server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>
#include <zlib.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "emulator/acbor.h"
#include "emulator/admin.h"
#include "emulator/api.h"
#include "emulator/auth.h"
#include "emulator/autoscale.h"
#include "emulator/awsjson.h"
#include "emulator/metric_journal.h"
#include "emulator/model.h"
#include "emulator/query.h"
#include "emulator/state.h"
#include "emulator/xml.h"
#include "scaler/asg.h"
#include "scaler/cloudwatch.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "scaler/world.h"

#define CBOR_PATH_PREFIX    "/service/GraniteServiceVersion20100801/operation/"
#define MAX_REQUEST_HEADERS 1024 /* more than MHD's 32 KiB connection pool can hold */
#define MAX_REGIONS         32

struct region_state {
    char account[16];
    char region[40];
    struct sc_world *w;
};

enum proto { PROTO_QUERY, PROTO_EC2, PROTO_JSON, PROTO_CBOR };

struct srv {
    struct srv_config cfg;
    struct cm_ev *ev;
    struct MHD_Daemon *mhd;
    int port;
    struct auth_keys *keys;
    int64_t base_epoch_ms, base_mono_ms, manual_ms;
    uint64_t rid[2];
    uint64_t requests;
    struct region_state regions[MAX_REGIONS];
    int nregions;
    long step_timer;
    struct autoscale *as; /* the real data plane (processes, proxies); NULL: records only */
    struct state *st;     /* --state FILE; NULL: memory only */
    struct metric_journal *journal; /* FILE.metrics beside --state; NULL: none */
    struct conn_req *waiting;       /* replies held until the next commit (--state) */
};

void srv_config_defaults(struct srv_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->bind = "127.0.0.1";
    cfg->port = 4566;
    cfg->region = "us-east-1";
    cfg->account = "123456789012";
    cfg->time_scale = 1.0;
    cfg->max_body = SRV_DEFAULT_MAX_BODY;
}

static int64_t wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t srv_now_ms(const struct srv *s)
{
    if (s->cfg.clock_manual)
        return s->manual_ms;
    return s->base_epoch_ms +
           (int64_t)((double)(cm_ev_now_ms() - s->base_mono_ms) * s->cfg.time_scale);
}

int srv_clock_is_manual(const struct srv *s)
{
    return s->cfg.clock_manual;
}

double srv_time_scale(const struct srv *s)
{
    return s->cfg.time_scale;
}

int srv_clock_advance(struct srv *s, int64_t ms)
{
    if (!s->cfg.clock_manual || ms < 0)
        return -1;
    s->manual_ms += ms;
    return 0;
}

static void regions_free(struct srv *s)
{
    for (int i = 0; i < s->nregions; i++) {
        autoscale_forget_world(s->as, s->regions[i].w);
        sc_world_destroy(s->regions[i].w);
    }
    s->nregions = 0;
}

void srv_reset(struct srv *s)
{
    regions_free(s);
    if (s->st)
        state_reset_writers(s->st);
    log_info("admin: state reset");
}

static int region_name_ok(const char *r)
{
    size_t n = strlen(r);

    return n > 0 && n < 32 && strspn(r, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

static uint64_t seed_of(const char *account, const char *region)
{
    uint64_t h = 1469598103934665603ULL;

    for (const char *p = account; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    for (const char *p = region; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return h;
}

struct sc_world *srv_world(struct srv *s, const char *account, const char *region)
{
    struct region_state *rs;
    struct sc_world_config wc;

    for (int i = 0; i < s->nregions; i++) {
        if (strcmp(s->regions[i].account, account) == 0 &&
            strcmp(s->regions[i].region, region) == 0)
            return s->regions[i].w;
    }
    if (!region_name_ok(region) || s->nregions == MAX_REGIONS)
        return NULL;
    sc_world_config_defaults(&wc);
    wc.account_id = account;
    wc.region = region;
    wc.seed = seed_of(account, region);
    wc.start_ms = srv_now_ms(s);
    rs = &s->regions[s->nregions];
    rs->w = sc_world_create(&wc);
    if (!rs->w)
        return NULL;
    snprintf(rs->account, sizeof(rs->account), "%s", account);
    snprintf(rs->region, sizeof(rs->region), "%s", region);
    s->nregions++;
    log_info("state: new world account=%s region=%s", account, region);
    if (s->journal && metric_journal_attach(s->journal, sc_world_cw(rs->w), account, region) < 0)
        log_warn("state: metric journal: too many worlds: %s/%s is not journaled", account, region);
    return rs->w;
}

/* The control-plane data plane: instances are records only until they become processes
 * (the "real instances" issue): pending ones are up at once, shutting-down / stopping
 * ones are gone at once, and every health check a load balancer asks for passes. */
static int data_plane(struct sc_world *w, int64_t now)
{
    struct sc_ec2 *ec2 = sc_world_ec2(w);
    struct sc_elb *elb = sc_world_elb(w);
    int n = sc_ec2_instance_count(ec2), changed = 0;

    for (int k = 0; k < n; k++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(ec2, k);
        char id[SC_EC2_ID_LEN];
        enum sc_ec2_state st = in->state;

        snprintf(id, sizeof(id), "%s", in->instance_id);
        /* each call may invalidate `in`: keep the id only */
        if (st == SC_EC2_PENDING)
            changed |= sc_ec2_instance_running(ec2, id, now) == SC_OK;
        else if (st == SC_EC2_SHUTTING_DOWN)
            changed |= sc_ec2_instance_terminated(ec2, id, now) == SC_OK;
        else if (st == SC_EC2_STOPPING)
            changed |= sc_ec2_instance_stopped(ec2, id, now) == SC_OK;
    }
    for (int i = 0; i < sc_elb_lb_count(elb); i++) {
        char name[SC_ELB_NAME_LEN];
        int nt;

        snprintf(name, sizeof(name), "%s", sc_elb_lb_at(elb, i)->load_balancer_name);
        nt = sc_elb_target_count(elb, name);
        for (int t = 0; t < nt; t++) {
            struct sc_elb_target tg;
            char id[SC_EC2_ID_LEN];

            if (sc_elb_target_at(elb, name, t, &tg) < 0 || !tg.checked)
                continue;
            if (tg.state == SC_ELB_IN_SERVICE)
                continue;
            snprintf(id, sizeof(id), "%s", tg.instance_id);
            if (sc_elb_health_result(elb, name, id, 1, now) == 1)
                changed = 1;
        }
    }
    return changed;
}

void srv_step(struct srv *s)
{
    int64_t now = srv_now_ms(s);

    /* the clock may have changed the worlds: written within a second when it did */
    if (s->st)
        state_touch(s->st);
    for (int i = 0; i < s->nregions; i++) {
        struct sc_world *w = s->regions[i].w;

        /* step, let the data plane follow, step again so groups see it (bounded) */
        for (int round = 0; round < 4; round++) {
            sc_world_step(w, now);
            if (!(s->as ? autoscale_step(s->as, w, now) : data_plane(w, now)))
                break;
        }
    }
}

static int64_t on_step_timer(struct cm_ev *ev, int64_t now_ms, void *ud)
{
    (void)ev;
    (void)now_ms;
    struct srv *s = ud;
    double period = 1000.0 / s->cfg.time_scale;

    srv_step(s);
    /* the emulated clock may run fast: step at least every emulated second, at most
     * every 20 real ms */
    return period > 1000 ? 1000 : period < 20 ? 20 : (int64_t)period;
}

struct state *srv_state(struct srv *s)
{
    return s->st;
}

uint64_t srv_requests(const struct srv *s)
{
    return s->requests;
}

int srv_port(const struct srv *s)
{
    return s->port;
}

/* ---- responses ---------------------------------------------------------------------- */

void srv_response_header(struct srv_response *rs, const char *name, const char *fmt, ...)
{
    va_list ap;

    if (rs->nheaders >= SRV_MAX_RESPONSE_HEADERS)
        return;
    rs->headers[rs->nheaders].name = name;
    va_start(ap, fmt);
    vsnprintf(rs->headers[rs->nheaders].value, sizeof(rs->headers[0].value), fmt, ap);
    va_end(ap);
    rs->nheaders++;
}

void srv_response_cleanup(struct srv_response *rs)
{
    cm_buf_cleanup(&rs->body);
}

static void request_id(struct srv *s, char out[37])
{
    /* xorshift128+ over a random seed: unique, cheap, uuid-shaped (version 4 bits) */
    uint64_t x = s->rid[0], y = s->rid[1];
    uint64_t a, b;

    s->rid[0] = y;
    x ^= x << 23;
    s->rid[1] = x ^ y ^ (x >> 17) ^ (y >> 26);
    a = s->rid[1] + y;
    b = a * 0x9e3779b97f4a7c15ULL ^ ++s->requests;
    snprintf(out, 37, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
             (unsigned)((b >> 48) & 0x3fff) | 0x8000, (unsigned long long)(b & 0xffffffffffffULL));
}

static const char *req_header(const struct srv_request *rq, const char *name)
{
    for (int i = 0; i < rq->nhdrs; i++) {
        if (strcasecmp(rq->hdrs[i].name, name) == 0)
            return rq->hdrs[i].value;
    }
    return NULL;
}

static void render_error(struct srv_response *rs, enum proto p, const struct model_service *svc,
                         const struct awserr *e, const char *rid)
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
            srv_response_header(rs, "smithy-protocol", "rpc-v2-cbor");
            acbor_write_error(&rs->body, svc, e);
        }
        srv_response_header(rs, "x-amzn-query-error", "%s;%s", e->code,
                            e->sender ? "Sender" : "Receiver");
        srv_response_header(rs, "X-Amzn-Errortype", "%s",
                            strchr(type, '#') ? strchr(type, '#') + 1 : type);
        return;
    }
    default:
        rs->content_type = "text/xml";
        xml_write_error(&rs->body, svc, e, rid);
        return;
    }
}

static void render_reply(struct srv_response *rs, enum proto p, const struct model_service *svc,
                         const struct model_op *op, json_t *out, const char *rid)
{
    rs->status = 200;
    switch (p) {
    case PROTO_JSON:
        rs->content_type = "application/x-amz-json-1.0";
        awsjson_write_reply(&rs->body, svc, op, out);
        return;
    case PROTO_CBOR:
        rs->content_type = "application/cbor";
        srv_response_header(rs, "smithy-protocol", "rpc-v2-cbor");
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

static int route(const struct srv_request *rq, const struct auth_scope *scope, int scoped,
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
        action = query_form_get(&r->form, "Action");
        version = query_form_get(&r->form, "Version");
        if (!action || !*action)
            return awserr_set(err, 400, "MissingAction", "Missing Action");
        snprintf(r->action, sizeof(r->action), "%s", action);
        r->svc = NULL;
        if (scoped) {
            if (version && strcmp(scope->service, "elasticloadbalancing") == 0 &&
                strcmp(version, "2015-12-01") == 0)
                return awserr_set(err, 400, "InvalidAction",
                                  "Elastic Load Balancing v2 (2015-12-01) is not served by "
                                  "scalelab; use classic ELB (2012-06-01)");
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
    do {
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
    } while (zr != Z_STREAM_END && (z.avail_in > 0 || z.avail_out == 0));
    if (rc == 0 && zr != Z_STREAM_END)
        rc = -1;
    inflateEnd(&z);
    return rc;
}

void srv_handle(struct srv *s, const struct srv_request *rq_wire, struct srv_response *rs)
{
    struct srv_request dec = *rq_wire;
    const struct srv_request *rq = &dec; /* the request with its body decoded */
    struct cm_buf inflated;
    const char *enc;
    struct route r;
    struct awserr err = { 0 };
    struct auth_scope scope;
    char rid[37];
    int scoped;
    int64_t t0 = cm_ev_now_ms();
    json_t *in = NULL, *out = NULL;
    struct timespec ts0, ts1;

    clock_gettime(CLOCK_MONOTONIC, &ts0);
    cm_buf_init(&inflated, 0);
    memset(rs, 0, sizeof(*rs));
    cm_buf_init(&rs->body, 0);
    memset(&r, 0, sizeof(r));
    r.proto = PROTO_QUERY;
    request_id(s, rid);
    srv_response_header(rs, "x-amzn-RequestId", "%s", rid);

    if (admin_is_admin_path(rq->path)) {
        admin_handle(s, rq, rs);
        goto log;
    }
    scoped = auth_parse(req_header(rq, "Authorization"), &scope) == 0 && scope.has_credential;
    enc = req_header(rq, "Content-Encoding");
    if (enc && strcasecmp(enc, "gzip") == 0 && !rq->too_large && rq->body_len > 0) {
        int zr = gunzip(rq->body, rq->body_len, s->cfg.max_body, &inflated);

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
    if (rq->too_large) {
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
        awserr_set(&err, 413, "RequestEntityTooLarge", "Request body exceeds %zu bytes",
                   s->cfg.max_body);
        goto fail;
    }
    if (route(rq, &scope, scoped, &r, &err) < 0)
        goto fail;
    if (s->cfg.auth_sigv4) {
        /* the signature covers the body as sent (compressed) */
        struct auth_request ar = { rq_wire->method,   rq_wire->path,  rq_wire->query,
                                   rq_wire->hdrs,     rq_wire->nhdrs, rq_wire->body,
                                   rq_wire->body_len, r.svc->sigv4,   s->cfg.region };

        if (auth_verify(s->keys, &ar, wall_ms(), &err) < 0)
            goto fail;
    }
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
        api_fn fn = api_find(r.svc->name, r.op->name);
        struct api_ctx ctx = { s, s->cfg.account,
                               scoped && scope.region[0] ? scope.region : s->cfg.region, rid,
                               srv_now_ms(s) };

        if (!fn) {
            awserr_set(&err, 501, "NotImplemented", "scalelab does not implement %s %s yet",
                       r.svc->name, r.op->name);
            goto fail;
        }
        if (fn(&ctx, in, &out, &err) < 0) {
            if (!awserr_is_set(&err))
                awserr_set(&err, 500, "InternalFailure", "handler failed");
            goto fail;
        }
    }
    render_reply(rs, r.proto, r.svc, r.op, out, rid);
    /* a change shows at once (instances come up, groups reconcile); reads change nothing */
    if (strncmp(r.op->name, "Describe", 8) != 0 && strncmp(r.op->name, "List", 4) != 0 &&
        strncmp(r.op->name, "Get", 3) != 0) {
        srv_step(s);
        /* acknowledged only once durable: datapoints go to the metric journal (a state
         * writer), everything else is in the snapshot */
        rs->state_kind = strcmp(r.op->name, "PutMetricData") == 0 ? STATE_JOURNAL : STATE_SNAPSHOT;
    }
    goto log;

fail:
    render_error(rs, r.proto, r.svc, &err, rid);
log:
    if (!s->cfg.quiet) {
        clock_gettime(CLOCK_MONOTONIC, &ts1);
        log_info("req service=%s action=%s status=%d ms=%.3f%s%s",
                 r.svc ? r.svc->name : (admin_is_admin_path(rq->path) ? "admin" : "-"),
                 r.action[0] ? r.action : rq->path, rs->status,
                 (double)(ts1.tv_sec - ts0.tv_sec) * 1e3 +
                     (double)(ts1.tv_nsec - ts0.tv_nsec) / 1e6,
                 awserr_is_set(&err) ? " code=" : "", awserr_is_set(&err) ? err.code : "");
    }
    (void)t0;
    json_decref(in);
    json_decref(out);
    if (r.have_form)
        query_form_cleanup(&r.form);
    cm_buf_cleanup(&inflated);
}

/* ---- libmicrohttpd glue ------------------------------------------------------------------ */

struct conn_req {
    char *uri;
    struct cm_buf body;
    int started;
    int too_large;
    /* --state: the reply, held (connection suspended) until its change is durable */
    struct MHD_Connection *conn;
    struct srv_response held;
    int holding;
    uint64_t ticket;
    enum state_ticket_status result;
    struct conn_req *next_waiting;
    int waiting;
};

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    struct srv *s = cls;
    struct conn_req *r = cm_xcalloc(1, sizeof(*r));

    (void)c;
    r->uri = cm_xstrdup(uri ? uri : "/");
    cm_buf_init(&r->body, s->cfg.max_body);
    return r;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct conn_req *r = *req_cls;

    (void)c;
    (void)toe;
    if (!r)
        return;
    if (r->waiting) {
        struct conn_req **pp = &((struct srv *)cls)->waiting;

        while (*pp && *pp != r)
            pp = &(*pp)->next_waiting;
        if (*pp)
            *pp = r->next_waiting;
    }
    if (r->holding)
        srv_response_cleanup(&r->held);
    cm_buf_cleanup(&r->body);
    free(r->uri);
    free(r);
    *req_cls = NULL;
}

struct hdr_collect {
    struct cm_sigv4_header h[MAX_REQUEST_HEADERS];
    int n;
};

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
    struct hdr_collect *hc = cls;

    (void)kind;
    if (hc->n < MAX_REQUEST_HEADERS) {
        hc->h[hc->n].name = key;
        hc->h[hc->n].value = value ? value : "";
        hc->n++;
    }
    return MHD_YES;
}

static enum MHD_Result queue_reply(struct MHD_Connection *c, struct srv_response *rsp);

/* The reply when the commit covering a change failed: the change is in memory (and
 * written by a later commit) but was never acknowledged. */
static void state_failed_reply(struct srv_response *rs)
{
    memset(rs, 0, sizeof(*rs));
    cm_buf_init(&rs->body, 0);
    rs->status = 500;
    rs->content_type = "text/xml";
    cm_buf_puts(&rs->body,
                "<ErrorResponse><Error><Type>Receiver</Type><Code>InternalFailure</Code>"
                "<Message>scalelab could not save its state file (see the emulator's "
                "log); the change is not acknowledged</Message></Error></ErrorResponse>\n");
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version, const char *upload_data,
                                 size_t *upload_size, void **req_cls)
{
    struct srv *s = cls;
    struct conn_req *r = *req_cls;
    struct hdr_collect hc;
    struct srv_request rq;
    struct srv_response rs;
    char *path, *q;

    (void)url;
    (void)version;
    if (!r)
        return MHD_NO;
    if (!r->started) {
        r->started = 1;
        return MHD_YES;
    }
    if (r->holding) {
        /* resumed after the commit that covered this request */
        r->holding = 0;
        if (r->result != STATE_DURABLE) {
            srv_response_cleanup(&r->held);
            state_failed_reply(&r->held);
        }
        return queue_reply(c, &r->held);
    }
    if (*upload_size) {
        if (!r->too_large && cm_buf_append(&r->body, upload_data, *upload_size) < 0) {
            r->too_large = 1;
            cm_buf_cleanup(&r->body);
            cm_buf_init(&r->body, s->cfg.max_body);
        }
        *upload_size = 0;
        return MHD_YES;
    }
    hc.n = 0;
    MHD_get_connection_values(c, MHD_HEADER_KIND, collect_header, &hc);
    path = cm_xstrdup(r->uri);
    q = strchr(path, '?');
    if (q)
        *q++ = '\0';
    memset(&rq, 0, sizeof(rq));
    rq.method = method;
    rq.path = path;
    rq.query = q ? q : "";
    rq.hdrs = hc.h;
    rq.nhdrs = hc.n;
    rq.body = r->body.data ? r->body.data : "";
    rq.body_len = r->body.len;
    rq.too_large = r->too_large;
    srv_handle(s, &rq, &rs);
    free(path);
    if (s->st && rs.state_kind && rs.status < 300) {
        /* the change is acknowledged only once it is on disk: hold the reply */
        r->ticket = state_change(s->st, rs.state_kind);
        r->held = rs;
        r->holding = 1;
        r->conn = c;
        r->waiting = 1;
        r->next_waiting = s->waiting;
        s->waiting = r;
        MHD_suspend_connection(c);
        return MHD_YES;
    }
    return queue_reply(c, &rs);
}

/* Queues rs (consumed) on c. */
static enum MHD_Result queue_reply(struct MHD_Connection *c, struct srv_response *rsp)
{
    struct srv_response rs = *rsp;
    struct MHD_Response *resp;
    enum MHD_Result ret;
    size_t len;
    char *body;

    body = cm_buf_take(&rs.body, &len);
    resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(body);
        return MHD_NO;
    }
    if (rs.content_type)
        MHD_add_response_header(resp, "Content-Type", rs.content_type);
    for (int i = 0; i < rs.nheaders; i++)
        MHD_add_response_header(resp, rs.headers[i].name, rs.headers[i].value);
    ret = MHD_queue_response(c, (unsigned)rs.status, resp);
    MHD_destroy_response(resp);
    srv_response_cleanup(&rs);
    return ret;
}

/* Resumes the held replies whose change is durable (or failed). Returns how many. */
static int resume_answered(struct srv *s)
{
    struct conn_req **pp = &s->waiting;
    int n = 0;

    while (*pp) {
        struct conn_req *r = *pp;
        enum state_ticket_status t = state_ticket(s->st, r->ticket);

        if (t == STATE_PENDING) {
            pp = &r->next_waiting;
            continue;
        }
        *pp = r->next_waiting;
        r->next_waiting = NULL;
        r->waiting = 0;
        r->result = t;
        MHD_resume_connection(r->conn);
        n++;
    }
    return n;
}

/* Starts a commit (--state) when a reply waits or the clock changed the worlds and no
 * write is in flight; resumes what is answered. Returns 1 when replies were resumed. */
static int state_flush(struct srv *s)
{
    int64_t now = cm_ev_now_ms();

    if (!s->st)
        return 0;
    if (!state_in_flight(s->st) && (state_has_waiters(s->st) || state_next_due_ms(s->st, now) == 0))
        state_commit(s->st, now);
    return resume_answered(s) > 0;
}

/* The writer thread finished a snapshot: answer its replies, start the next batch. */
static void on_state_written(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct srv *s = ud;

    (void)ev;
    (void)fd;
    (void)events;
    state_complete(s->st);
    resume_answered(s);
    state_flush(s);
    MHD_run(s->mhd); /* the resumed replies go out now */
}

static void on_mhd_fd(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct srv *s = ud;

    (void)ev;
    (void)fd;
    (void)events;
    MHD_run(s->mhd);
}

static int64_t on_hook(struct cm_ev *ev, int after, int64_t now_ms, void *ud)
{
    struct srv *s = ud;
    MHD_UNSIGNED_LONG_LONG to;

    int64_t wait = -1;

    (void)ev;
    (void)now_ms;
    if (after) {
        MHD_run(s->mhd);
        return -1;
    }
    /* group commit: every change served in the last iteration is written once, here */
    if (state_flush(s))
        MHD_run(s->mhd); /* the resumed replies go out now */
    if (MHD_get_timeout(s->mhd, &to) == MHD_YES)
        wait = (int64_t)to;
    if (s->st) {
        /* -1 while a write is in flight: its event fd wakes the loop */
        int64_t d = state_next_due_ms(s->st, cm_ev_now_ms());

        if (d >= 0 && (wait < 0 || d < wait))
            wait = d;
    }
    return wait;
}

static int64_t as_now(void *ud)
{
    return srv_now_ms(ud);
}

static void as_step(void *ud)
{
    srv_step(ud);
}

/* Instances as processes and load balancers as proxies (emulator/autoscale.c); without it
 * (no child watcher) the records-only data plane above stands in. */
static void start_autoscale(struct srv *s)
{
    struct autoscale_config ac;
    char err[256];

    memset(&ac, 0, sizeof(ac));
    ac.ev = s->ev;
    ac.time_scale = s->cfg.clock_manual ? 1.0 : s->cfg.time_scale;
    ac.now_ms = as_now;
    ac.step = as_step;
    ac.ud = s;
    ac.tls_cert = s->cfg.tls_cert;
    ac.tls_key = s->cfg.tls_key;
    s->as = autoscale_create(&ac, err, sizeof(err));
    if (!s->as)
        log_warn("server: instances stay records: %s", err);
}

struct autoscale *srv_autoscale(struct srv *s)
{
    return s->as;
}

/* ---- durable state (--state FILE) ---------------------------------------------------- */

json_t *srv_state_json(struct srv *s)
{
    json_t *doc = json_object();
    json_t *worlds = json_array();
    char iso[40];
    int64_t now = srv_now_ms(s);

    if (!doc || !worlds)
        goto fail;
    model_format_iso8601(now, iso, sizeof(iso));
    if (json_object_set_new(doc, "version", json_integer(STATE_VERSION)) ||
        json_object_set_new(doc, "saved_at", json_string(iso)) ||
        json_object_set_new(doc, "now_ms", json_integer((json_int_t)now)) ||
        json_object_set_new(doc, "clock", json_string(s->cfg.clock_manual ? "manual" : "real")))
        goto fail;
    for (int i = 0; i < s->nregions; i++) {
        json_t *w = sc_world_save(s->regions[i].w);

        if (!w || json_array_append_new(worlds, w) != 0)
            goto fail;
    }
    if (json_object_set_new(doc, "worlds", worlds) != 0) {
        worlds = NULL;
        goto fail;
    }
    return doc;

fail:
    json_decref(worlds);
    json_decref(doc);
    return NULL;
}

static json_t *snapshot(void *ud)
{
    return srv_state_json(ud);
}

/* Loads a state document (state_read checked its version): every world, the clock.
 * Returns 0, or -1 with err ("<what>: <problem>"). */
static int load_state(struct srv *s, const json_t *doc, char *err, size_t errlen)
{
    const json_t *worlds = json_object_get(doc, "worlds");
    const json_t *now = json_object_get(doc, "now_ms");
    const json_t *x;
    size_t k;

    if (!json_is_array(worlds) || !json_is_integer(now)) {
        snprintf(err, errlen, "\"worlds\" (array) and \"now_ms\" (integer) are required");
        return -1;
    }
    /* the emulated clock goes on from where it stopped, never backwards */
    if (s->cfg.clock_manual) {
        if (!s->cfg.start_ms || json_integer_value(now) > s->manual_ms)
            s->manual_ms = json_integer_value(now);
    } else if (json_integer_value(now) > s->base_epoch_ms) {
        s->base_epoch_ms = json_integer_value(now);
    }
    json_array_foreach(worlds, k, x)
    {
        const char *account = json_string_value(json_object_get(x, "account"));
        const char *region = json_string_value(json_object_get(x, "region"));
        struct sc_world *w;
        struct sc_error e = { 0 };

        if (!account || !region || strlen(account) >= sizeof(s->regions[0].account)) {
            snprintf(err, errlen, "worlds[%zu]: account and region are required", k);
            return -1;
        }
        for (int i = 0; i < s->nregions; i++) {
            if (strcmp(s->regions[i].account, account) == 0 &&
                strcmp(s->regions[i].region, region) == 0) {
                snprintf(err, errlen, "worlds[%zu]: %s/%s appears twice", k, account, region);
                return -1;
            }
        }
        w = srv_world(s, account, region);
        if (!w) {
            snprintf(err, errlen, "worlds[%zu]: bad region %s (or too many regions)", k, region);
            return -1;
        }
        if (sc_world_load(w, x, &e) != SC_OK) {
            snprintf(err, errlen, "worlds[%zu] (%.16s/%.40s): %.400s", k, account, region,
                     e.message);
            return -1;
        }
        log_info("state: loaded world account=%s region=%s groups=%d instances=%d", account, region,
                 sc_asg_group_count(sc_world_asg(w)), sc_ec2_instance_count(sc_world_ec2(w)));
    }
    return 0;
}

static struct sc_cw *journal_world(const char *account, const char *region, void *ud)
{
    struct sc_world *w = srv_world(ud, account, region);

    return w ? sc_world_cw(w) : NULL;
}

/* The metric journal (FILE.metrics): replayed into the worlds, then every world's
 * CloudWatch puts are appended to it and its fdatasync joins the group commit. */
static int open_journal(struct srv *s, char *err, size_t errlen)
{
    struct metric_journal_replay_stats rs;
    struct state_writer w = { "metric journal", metric_journal_sync, metric_journal_reset, NULL };
    size_t n = strlen(state_path(s->st)) + sizeof(".metrics");
    char *path = cm_xmalloc(n);
    char e[512];

    snprintf(path, n, "%s.metrics", state_path(s->st));
    s->journal = metric_journal_open(path, err, errlen);
    if (!s->journal) {
        free(path);
        return -1;
    }
    if (metric_journal_replay(s->journal, journal_world, s, srv_now_ms(s), &rs, e, sizeof(e)) < 0) {
        snprintf(err, errlen, "%.800s (the file is left as it is)", e);
        free(path);
        return -1;
    }
    log_info("state: replayed %s: %llu datapoints, %llu series images, %llu expired, %llu "
             "skipped, %llu bytes dropped",
             path, (unsigned long long)rs.records, (unsigned long long)rs.images,
             (unsigned long long)rs.expired, (unsigned long long)rs.skipped,
             (unsigned long long)rs.truncated);
    free(path);
    for (int i = 0; i < s->nregions; i++)
        metric_journal_attach(s->journal, sc_world_cw(s->regions[i].w), s->regions[i].account,
                              s->regions[i].region);
    w.ud = s->journal;
    if (state_add_writer(s->st, &w) < 0) {
        snprintf(err, errlen, "state: cannot register the metric journal");
        return -1;
    }
    return 0;
}

/* --state FILE: load it when present (a bad file is an error: it is never overwritten),
 * then open its writer. */
static int open_state(struct srv *s, char *err, size_t errlen)
{
    const char *path = s->cfg.state_file;
    json_t *doc = NULL;
    char e[1024];
    int rc = state_read(path, &doc, e, sizeof(e));

    if (rc < 0) {
        snprintf(err, errlen, "%.800s (the file is left as it is)", e);
        return -1;
    }
    if (rc == 1) {
        if (load_state(s, doc, e, sizeof(e)) < 0) {
            snprintf(err, errlen, "%.200s: %.600s (the file is left as it is)", path, e);
            json_decref(doc);
            return -1;
        }
        json_decref(doc);
        log_info("state: loaded %s (%d worlds)", path, s->nregions);
    } else {
        log_info("state: %s does not exist: starting empty", path);
    }
    s->st = state_create(path, snapshot, s, err, errlen);
    if (!s->st)
        return -1;
    return open_journal(s, err, errlen);
}

struct srv *srv_create(const struct srv_config *cfg, struct cm_ev *ev, char *err, size_t errlen)
{
    struct srv *s = cm_xcalloc(1, sizeof(*s));
    struct sockaddr_in sa;
    const union MHD_DaemonInfo *info;

    s->cfg = *cfg;
    if (s->cfg.max_body == 0)
        s->cfg.max_body = SRV_DEFAULT_MAX_BODY;
    if (s->cfg.time_scale <= 0)
        s->cfg.time_scale = 1.0;
    s->base_epoch_ms = wall_ms();
    s->base_mono_ms = cm_ev_now_ms();
    s->manual_ms = cfg->start_ms ? cfg->start_ms : s->base_epoch_ms;
    if (getrandom(s->rid, sizeof(s->rid), 0) != (ssize_t)sizeof(s->rid)) {
        s->rid[0] = (uint64_t)s->base_epoch_ms * 0x9e3779b97f4a7c15ULL;
        s->rid[1] = (uint64_t)s->base_mono_ms | 1;
    }
    if (!s->rid[0] && !s->rid[1])
        s->rid[1] = 1;
    if (cfg->auth_sigv4) {
        s->keys = auth_keys_load(cfg->credentials, err, errlen);
        if (!s->keys)
            goto fail;
    }
    if (cfg->state_file && open_state(s, err, errlen) < 0)
        goto fail;
    if (!ev)
        return s;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)cfg->port);
    if (inet_pton(AF_INET, cfg->bind, &sa.sin_addr) != 1) {
        snprintf(err, errlen, "bad bind address %s (IPv4 expected)", cfg->bind);
        goto fail;
    }
    s->mhd = MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME, 0, NULL,
                              NULL, on_access, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                              MHD_OPTION_URI_LOG_CALLBACK, on_uri, s, MHD_OPTION_NOTIFY_COMPLETED,
                              on_completed, s, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)120,
                              MHD_OPTION_CONNECTION_LIMIT, (unsigned int)1000,
                              MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)1024, MHD_OPTION_END);
    if (!s->mhd) {
        snprintf(err, errlen, "cannot listen on %s:%d", cfg->bind, cfg->port);
        goto fail;
    }
    info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : cfg->port;
    info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_EPOLL_FD);
    if (!info || cm_ev_add_fd(ev, info->epoll_fd, EPOLLIN, on_mhd_fd, s) < 0) {
        snprintf(err, errlen, "cannot watch libmicrohttpd's epoll fd");
        goto fail;
    }
    s->ev = ev;
    if (s->st && cm_ev_add_fd(ev, state_event_fd(s->st), EPOLLIN, on_state_written, s) < 0) {
        snprintf(err, errlen, "cannot watch the state writer's event fd");
        goto fail;
    }
    cm_ev_set_hook(ev, on_hook, s);
    start_autoscale(s);
    s->step_timer = cm_ev_add_timer(ev, 1000, on_step_timer, s);
    return s;

fail:
    srv_destroy(s);
    return NULL;
}

void srv_destroy(struct srv *s)
{
    if (!s)
        return;
    /* held replies: write what they wait for, then let MHD answer or close them */
    for (int i = 0; s->st && s->mhd && s->waiting && i < 8; i++) {
        state_drain(s->st);
        state_flush(s);
        state_drain(s->st);
        if (resume_answered(s) >= 0)
            MHD_run(s->mhd);
    }
    if (s->st && s->ev)
        cm_ev_del_fd(s->ev, state_event_fd(s->st));
    if (s->mhd) {
        const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_EPOLL_FD);

        if (s->ev && info)
            cm_ev_del_fd(s->ev, info->epoll_fd);
        if (s->ev)
            cm_ev_set_hook(s->ev, NULL, NULL);
        if (s->ev && s->step_timer > 0)
            cm_ev_del_timer(s->ev, s->step_timer);
        MHD_stop_daemon(s->mhd);
    }
    autoscale_destroy(s->as);
    s->as = NULL;
    auth_keys_destroy(s->keys);
    if (s->st) {
        /* the last clock-driven changes (nothing acknowledged waits on them) */
        state_drain(s->st);
        if (state_next_due_ms(s->st, cm_ev_now_ms()) >= 0)
            state_commit(s->st, INT64_MAX / 2);
        state_drain(s->st);
        state_destroy(s->st);
    }
    metric_journal_close(s->journal); /* detaches from the worlds before they go */
    regions_free(s);
    free(s);
}
