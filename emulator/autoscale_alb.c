/* emulator/autoscale_alb.c: the Application Load Balancer data plane (docs/elbv2.md 10-11).
 * Each HTTP/HTTPS listener of an ALB is a proxy (lb.c) on its Port whose routing hook
 * evaluates the listener's rules with libscaler's sc_elbv2_route on every request: a forward
 * goes to a routable target of the chosen target group (one backend group of the proxy per
 * target group, in the order the listener first forwarded to them), a redirect or a fixed
 * response is answered by the proxy. Targets are the groups' registrations on their
 * instance processes' ports, routable as libscaler says (healthy, or fail open; never
 * draining). Each emulated minute the proxies' counters go to sc_elbv2_report_minute. A
 * Network Load Balancer's TCP and TLS listeners are the engine's TCP pipe (TLS terminated)
 * to its one target group's routable targets, taken in turn. */
#include "emulator/autoscale_internal.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "emulator/balancer.h"
#include "emulator/lb.h"
#include "emulator/lb_http.h"
#include "emulator/lb_tls.h"
#include "scaler/elbv2.h"
#include "scaler/elbv2_mtls.h"
#include "scaler/elbv2_trust.h"
#include "scaler/lb_sticky.h"
#include "scaler/world.h"

struct alb {
    struct autoscale *a;
    struct sc_world *w;
    char arn[SC_ELBV2_ARN_LEN];
    char lb_arn[SC_ELBV2_ARN_LEN];
    int port;
    int tls;
    int tcp; /* a Network Load Balancer's listener: bytes piped, no rules */
    int udp; /* its UDP forwarder (lb_config.udp): 1 TCP_UDP, 2 UDP */
    struct lb_listener *l;
    struct ssl_ctx_st *ctx; /* HTTPS/TLS: this listener's context (certificate, mTLS) */
    uint64_t ctx_key;       /* what it was made from (tls_key) */
    int ctx_failed;         /* the last rebuild failed (logged once) */
    char tgs[LB_GROUPS_MAX][SC_ELBV2_ARN_LEN]; /* backend group i serves tgs[i] */
    int ntgs;
    uint64_t seq;                 /* the weighted pick's draw: exact shares in turn */
    uint64_t redirects, fixed;    /* since the last minute */
    char scratch[2304];           /* the current answer's Location header */
    char tgck[512];               /* the current forward's AWSALBTG cookies */
    uint64_t secret;              /* seals AWSALBTG cookies */
    char zones[LB_ZONES_MAX][32]; /* the load balancer's zones: the proxy's nodes */
    int nzones;
    int seen;
};

static int tg_index(const struct alb *x, const char *arn)
{
    for (int i = 0; arn && i < x->ntgs; i++) {
        if (strcmp(x->tgs[i], arn) == 0)
            return i;
    }
    return -1;
}

/* The request as sc_elbv2_route takes it: views into the head, no copies. */
static void parse_request(const char *buf, const struct lb_http_msg *m,
                          const struct sockaddr_in *peer, struct sc_elbv2_http_header *hs,
                          struct sc_elbv2_http_request *q)
{
    const char *t = buf + m->target_off;
    const char *qm = memchr(t, '?', m->target_len);

    memset(q, 0, sizeof(*q));
    q->method = buf + m->method_off;
    q->method_len = m->method_len;
    q->path = t;
    q->path_len = qm ? (size_t)(qm - t) : m->target_len;
    q->query = qm ? qm + 1 : "";
    q->query_len = qm ? m->target_len - q->path_len - 1 : 0;
    q->host = "";
    for (int i = 0; i < m->nheaders; i++) {
        hs[i].name = buf + m->headers[i].name_off;
        hs[i].name_len = m->headers[i].name_len;
        hs[i].value = buf + m->headers[i].value_off;
        hs[i].value_len = m->headers[i].value_len;
        if (hs[i].name_len == 4 && strncasecmp(hs[i].name, "host", 4) == 0) {
            q->host = hs[i].value;
            q->host_len = hs[i].value_len;
        }
    }
    q->headers = hs;
    q->nheaders = m->nheaders;
    q->source.family = 4;
    memcpy(q->source.addr, &peer->sin_addr, 4);
}

/* Target group stickiness of a weighted forward (docs/elbv2.md 10.1): the group the
 * request's AWSALBTG cookie names when the forward still sends to it (weight > 0) and the
 * cookie has not expired, else the group picked by weight; the response gets the cookies
 * binding the client to it. */
static const char *group_sticky(struct alb *x, const struct sc_elbv2_action *a,
                                const struct sc_elbv2_http_request *q, const char *picked,
                                const char **set_cookie)
{
    const char *chosen = picked, *v;
    size_t vn;
    uint64_t key;
    int64_t exp;
    int64_t now_s = (int64_t)time(NULL);

    for (int i = 0; i < q->nheaders; i++) {
        const struct sc_elbv2_http_header *h = &q->headers[i];

        if (h->name_len != 6 || strncasecmp(h->name, "cookie", 6) != 0 ||
            !sc_sticky_cookie_find(h->value, h->value_len, "AWSALBTG", &v, &vn) ||
            sc_sticky_decode(x->secret, v, vn, &key, &exp) != 0)
            continue;
        for (int k = 0; k < a->nforward; k++) {
            if (a->forward[k].weight > 0 && sc_sticky_key(a->forward[k].target_group_arn) == key &&
                sc_sticky_keep(1, exp, now_s, 1))
                chosen = a->forward[k].target_group_arn;
        }
    }
    if (chosen &&
        sc_sticky_set_group_cookie(x->secret, sc_sticky_key(chosen),
                                   a->stickiness_duration_s > 0 ? a->stickiness_duration_s : 3600,
                                   now_s, x->tgck, sizeof(x->tgck)) > 0)
        *set_cookie = x->tgck;
    return chosen;
}

/* lb_route_fn: one request through the listener's rules (the hot path: no allocation). */
static void on_route(void *ud, const char *buf, const struct lb_http_msg *m,
                     const struct sockaddr_in *peer, struct lb_route *out)
{
    struct alb *x = ud;
    const struct sc_elbv2_listener *li = sc_elbv2_listener_find(sc_world_elbv2(x->w), x->arn);
    struct sc_elbv2_http_header hs[LB_HTTP_MAX_HEADERS];
    struct sc_elbv2_http_request q;
    struct sc_elbv2_route r;
    long n;

    out->group = -1;
    out->status = 503;
    if (!li)
        return; /* deleted since the last step: the proxy goes at the next one */
    parse_request(buf, m, peer, hs, &q);
    switch (sc_elbv2_route(li, &q, x->seq++, &r)) {
    case SC_ELBV2_ACTION_FORWARD:
        if (r.action && r.action->stickiness_enabled && r.action->nforward > 1)
            r.target_group_arn =
                group_sticky(x, r.action, &q, r.target_group_arn, &out->set_cookie);
        out->group = tg_index(x, r.target_group_arn); /* -1: 503 */
        return;
    case SC_ELBV2_ACTION_REDIRECT:
        memcpy(x->scratch, "Location: ", 10);
        n = sc_elbv2_redirect_format(r.action, &q, li->protocol, li->port, x->scratch + 10,
                                     sizeof(x->scratch) - 40);
        if (n < 0) {
            out->status = 500; /* AWS: HTTP_Redirect_Url_Limit_Exceeded_Count */
            return;
        }
        snprintf(x->scratch + 10 + n, sizeof(x->scratch) - 10 - (size_t)n,
                 "\r\nServer: awselb/2.0\r\n");
        out->status = r.status;
        out->ctype = "text/html";
        out->extra = x->scratch;
        out->body = "";
        out->body_len = 0;
        x->redirects++;
        return;
    case SC_ELBV2_ACTION_FIXED_RESPONSE:
        out->status = r.status;
        out->ctype =
            r.action && r.action->fixed_content_type ? r.action->fixed_content_type : "text/plain";
        out->extra = "Server: awselb/2.0\r\n";
        out->body = r.action && r.action->fixed_body ? r.action->fixed_body : "";
        out->body_len = strlen(out->body);
        x->fixed++;
        return;
    }
}

static void alb_free(struct alb *x)
{
    lb_listener_destroy(x->l);
    lb_tls_ctx_free(x->ctx); /* after the listener that borrows it */
    free(x);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;

    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t fnv_s(uint64_t h, const char *s)
{
    return fnv(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

/* What a TLS listener's context is made from (docs/elbv2.md 10.6, 14.1): its default
 * certificate and its certificate list (each ARN's --certificate files, else --tls-cert,
 * else a self-signed one), its MutualAuthentication and, in verify mode, the trust store's
 * bundle and revocation lists; o filled (views into the records and the configuration,
 * the list into more, crl paths into crls). Returns its hash. */
static uint64_t tls_inputs(const struct autoscale *a, const struct sc_elbv2 *v2,
                           const struct sc_elbv2_listener *li, struct lb_tls_opts *o,
                           struct lb_tls_cert *more, const char **crls)
{
    const struct sc_elbv2_mutual_auth *ma = li->mutual_auth;
    uint64_t h = 0xcbf29ce484222325ULL;
    const char *cert = li->ncertificates > 0 ? li->certificates[0] : NULL;
    struct lb_tls_cert c;

    memset(o, 0, sizeof(*o));
    lb_tls_cert_for(cert, a->cfg.cert_map, a->cfg.ncert_map, a->cfg.tls_cert, a->cfg.tls_key, &c);
    o->cert_file = c.cert_file;
    o->key_file = c.key_file;
    o->label = cert ? c.label : NULL;
    o->mtls = (int)sc_elbv2_mtls_mode(li);
    h = fnv_s(h, cert);
    for (int i = 1; i < li->ncertificates && o->nmore < SC_ELBV2_MAX_CERTS; i++) {
        lb_tls_cert_for(li->certificates[i], a->cfg.cert_map, a->cfg.ncert_map, a->cfg.tls_cert,
                        a->cfg.tls_key, &more[o->nmore++]);
        h = fnv_s(h, li->certificates[i]);
    }
    o->more = more;
    h = fnv(h, &o->mtls, sizeof(o->mtls));
    if (o->mtls == SC_MTLS_VERIFY && ma && ma->trust_store_arn) {
        const struct sc_elbv2_revocation *revs[SC_ELBV2_MAX_REVOCATIONS];
        struct sc_error err;
        int nrev = 0;

        o->ca_pem = sc_elbv2_trust_store_bundle(v2, ma->trust_store_arn, &o->ca_len);
        o->ignore_expiry = ma->ignore_client_certificate_expiry;
        o->advertise_ca_names = ma->advertise_trust_store_ca_names &&
                                strcmp(ma->advertise_trust_store_ca_names, "on") == 0;
        if (sc_elbv2_describe_revocations(v2, ma->trust_store_arn, NULL, 0, revs, &nrev, &err) !=
            SC_OK)
            nrev = 0;
        for (int i = 0; i < nrev; i++) {
            const char *loc = revs[i]->location ? revs[i]->location : "";

            crls[o->ncrl++] = strncmp(loc, "file://", 7) == 0 ? loc + 7 : loc;
            h = fnv(h, &revs[i]->revocation_id, sizeof(revs[i]->revocation_id));
            h = fnv_s(h, loc);
        }
        o->crl_files = crls;
        h = fnv_s(h, ma->trust_store_arn);
        h = fnv(h, o->ca_pem ? o->ca_pem : "", o->ca_pem ? o->ca_len : 0);
        h = fnv(h, &o->ignore_expiry, sizeof(o->ignore_expiry));
        h = fnv(h, &o->advertise_ca_names, sizeof(o->advertise_ca_names));
    }
    return h;
}

/* Makes x's TLS context match li (a new one for new connections when its inputs changed);
 * -1 when there is none to serve with. */
static int tls_sync(struct autoscale *a, struct alb *x, const struct sc_elbv2_listener *li)
{
    const char *crls[SC_ELBV2_MAX_REVOCATIONS];
    struct lb_tls_cert more[SC_ELBV2_MAX_CERTS];
    struct lb_tls_opts o;
    uint64_t key = tls_inputs(a, sc_world_elbv2(x->w), li, &o, more, crls);
    struct ssl_ctx_st *ctx;
    char err[1024];

    if (x->ctx && key == x->ctx_key)
        return 0;
    if (!x->ctx && x->ctx_failed && key == x->ctx_key)
        return -1;
    x->ctx_key = key;
    ctx = lb_tls_ctx_create_opts(&o, err, sizeof(err));
    if (!ctx) {
        if (!x->ctx_failed)
            log_error("autoscale: listener %s: cannot make its TLS context: %s", li->arn, err);
        x->ctx_failed = 1;
        return x->ctx ? 0 : -1;
    }
    x->ctx_failed = 0;
    if (x->l)
        lb_listener_set_tls(x->l, ctx, o.mtls);
    lb_tls_ctx_free(x->ctx); /* sessions still open hold their own reference */
    x->ctx = ctx;
    return 0;
}

/* The proxy of listener li: the running one when its settings still match, else a new one
 * (an old one of the listener is replaced); NULL when it cannot start. */
static struct alb *alb_ensure(struct autoscale *a, struct sc_world *w,
                              const struct sc_elbv2_listener *li)
{
    int tls = strcmp(li->protocol, "HTTPS") == 0 || strcmp(li->protocol, "TLS") == 0;
    int udp = strcmp(li->protocol, "TCP_UDP") == 0 ? 1 : strcmp(li->protocol, "UDP") == 0 ? 2 : 0;
    int tcp = udp || strcmp(li->protocol, "TCP") == 0 || strcmp(li->protocol, "TLS") == 0;
    struct lb_config cfg;
    struct alb *x;
    char name[96], err[256];
    const char *lbname;

    for (int i = 0; i < a->nalbs; i++) {
        x = a->albs[i];
        if (x->w != w || strcmp(x->arn, li->arn) != 0)
            continue;
        if (x->port == li->port && x->tls == tls && x->tcp == tcp && x->udp == udp)
            return x;
        alb_free(x);
        a->albs[i] = a->albs[--a->nalbs];
        break;
    }
    x = cm_xcalloc(1, sizeof(*x));
    x->a = a;
    x->w = w;
    snprintf(x->arn, sizeof(x->arn), "%s", li->arn);
    snprintf(x->lb_arn, sizeof(x->lb_arn), "%s", li->load_balancer_arn);
    x->port = li->port;
    x->tls = tls;
    x->tcp = tcp;
    x->udp = udp;
    if (tls && tls_sync(a, x, li) < 0) {
        free(x);
        return NULL;
    }
    x->secret = ((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 11) ^ (uint64_t)time(NULL);
    lbname = sc_elbv2_arn_dimension(li->load_balancer_arn);
    snprintf(name, sizeof(name), "%s:%d", lbname ? lbname : "alb", li->port);
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = name;
    cfg.tls = x->ctx;
    cfg.mtls = tls ? (int)sc_elbv2_mtls_mode(li) : 0;
    cfg.mode = tcp ? LB_MODE_TCP : LB_MODE_HTTP;
    cfg.port = li->port;
    cfg.forwarded_port = li->port;
    cfg.route = tcp ? NULL : on_route;
    cfg.route_ud = x;
    cfg.udp = udp;
    x->l = lb_listener_create(a->cfg.ev, &cfg, err, sizeof(err));
    if (!x->l) {
        cfg.port = 0; /* privileged or taken: an ephemeral port, in the status JSON and the log */
        x->l = lb_listener_create(a->cfg.ev, &cfg, err, sizeof(err));
    }
    if (!x->l) {
        log_error("autoscale: listener %s: %s", name, err);
        lb_tls_ctx_free(x->ctx);
        free(x);
        return NULL;
    }
    log_info("autoscale: load balancer %s listener %d (%s) on 127.0.0.1:%d", lbname ? lbname : "?",
             li->port, li->protocol, lb_listener_port(x->l));
    PUSH(a->albs, a->nalbs, a->cap_albs, x);
    return x;
}

/* Every target group the listener's rules forward to gets a backend group (append-only,
 * so a group's index and counters stay while the proxy lives). */
static void collect_groups(struct alb *x, const struct sc_elbv2_listener *li)
{
    for (int r = 0; r < li->nrules; r++) {
        const struct sc_elbv2_rule *rule = li->rules[r];

        for (int k = 0; k < rule->nactions; k++) {
            const struct sc_elbv2_action *act = &rule->actions[k];

            if (act->type != SC_ELBV2_ACTION_FORWARD)
                continue;
            for (int f = 0; f < act->nforward; f++) {
                const char *arn = act->forward[f].target_group_arn;

                if (!arn || tg_index(x, arn) >= 0)
                    continue;
                if (x->ntgs == LB_GROUPS_MAX) {
                    log_warn("autoscale: listener %s forwards to more than %d target groups",
                             x->arn, LB_GROUPS_MAX);
                    continue;
                }
                snprintf(x->tgs[x->ntgs++], SC_ELBV2_ARN_LEN, "%s", arn);
            }
        }
    }
}

/* A backend's id: "GROUP/INSTANCE:PORT". */
static void backend_id(char *out, size_t cap, int g, const char *id, int port)
{
    snprintf(out, cap, "%d/%s:%d", g, id, port);
}

/* 1 when backend bid still names a registration of its group. */
static int backend_registered(const struct sc_elbv2 *v2, const struct alb *x, const char *bid)
{
    int g = atoi(bid);
    int n = g >= 0 && g < x->ntgs ? sc_elbv2_target_count(v2, x->tgs[g]) : -1;
    char want[BAL_ID_LEN];

    for (int i = 0; i < n; i++) {
        struct sc_elbv2_target_health t;

        if (sc_elbv2_target_at(v2, x->tgs[g], i, &t) != 0)
            continue;
        backend_id(want, sizeof(want), g, t.id, t.port);
        if (strcmp(want, bid) == 0)
            return 1;
    }
    return 0;
}

static void sync_backends(struct autoscale *a, struct alb *x, int64_t now)
{
    struct sc_elbv2 *v2 = sc_world_elbv2(x->w);
    char bid[BAL_ID_LEN];

    for (int g = 0; g < x->ntgs; g++) {
        int n = sc_elbv2_target_count(v2, x->tgs[g]);
        const struct sc_elbv2_tg *tg = sc_elbv2_tg_find(v2, x->tgs[g]);
        const char *tgtype = tg ? tg->target_type : "instance";
        struct sc_elbv2_balancing bal;

        if (sc_elbv2_tg_balancing(v2, x->tgs[g], &bal) == 0)
            lb_listener_set_group(x->l, g, (int)bal.algorithm, &bal.sticky);

        for (int i = 0; i < n; i++) {
            struct sc_elbv2_target_health t;
            int port;

            if (sc_elbv2_target_at(v2, x->tgs[g], i, &t) != 0)
                continue;
            port = as_target_port(a, x->w, tgtype, t.id, t.port);
            backend_id(bid, sizeof(bid), g, t.id, t.port);
            lb_backend_set_in(x->l, g, bid, port > 0 ? port : 1, t.availability_zone,
                              t.routable && t.state != SC_ELBV2_DRAINING && port > 0);
            /* slow start: the share grows with the emulated clock */
            lb_backend_set_weight(
                x->l, bid,
                sc_elbv2_slow_start_share(now, t.slow_start_since_ms, bal.slow_start_ms));
        }
    }
    for (int b = 0; b < lb_backend_count(x->l); b++) {
        snprintf(bid, sizeof(bid), "%s", lb_backend_id_at(x->l, b));
        if (!backend_registered(v2, x, bid)) {
            lb_backend_remove(x->l, bid);
            b--;
        }
    }
}

/* One node per zone of the load balancer, cross-zone (an ALB routes across zones): the
 * node a client's connection lands on names its requests' AvailabilityZone. */
static void zones_sync(struct alb *x, const struct sc_elbv2_lb *b)
{
    const char *zv[LB_ZONES_MAX];
    int n = b->nzones < LB_ZONES_MAX ? b->nzones : LB_ZONES_MAX, same = n == x->nzones;

    for (int z = 0; z < n; z++) {
        same = same && strcmp(x->zones[z], b->zones[z]) == 0;
        zv[z] = b->zones[z];
    }
    if (same)
        return;
    for (int z = 0; z < n; z++)
        snprintf(x->zones[z], sizeof(x->zones[z]), "%s", b->zones[z]);
    x->nzones = n;
    lb_listener_set_zones(x->l, zv, n, 1);
}

/* Draining targets with no request in flight and no connection open on any proxy that
 * forwards to their group end their deregistration now (docs/elbv2.md 7); a target no
 * proxy of ours serves waits its delay (nothing sees its connections). Returns 1 when one
 * went. */
static int drain_idle(struct autoscale *a, struct sc_world *w)
{
    struct sc_elbv2 *v2 = sc_world_elbv2(w);
    char bid[BAL_ID_LEN];
    int changed = 0;

    for (int g = 0; g < sc_elbv2_tg_count(v2); g++) {
        const char *tg = sc_elbv2_tg_at(v2, g)->arn;

        for (int i = 0; i < sc_elbv2_target_count(v2, tg); i++) {
            struct sc_elbv2_target_health t;
            int seen = 0, busy = 0;

            if (sc_elbv2_target_at(v2, tg, i, &t) != 0 || t.state != SC_ELBV2_DRAINING)
                continue;
            for (int k = 0; k < a->nalbs && !busy; k++) {
                const struct alb *x = a->albs[k];
                int gi = x->w == w ? tg_index(x, tg) : -1;
                int o;

                if (gi < 0)
                    continue;
                backend_id(bid, sizeof(bid), gi, t.id, t.port);
                o = lb_backend_outstanding(x->l, bid);
                seen |= o >= 0;
                busy |= o > 0;
            }
            if (seen && !busy) {
                char id[64];
                int port = t.port;

                snprintf(id, sizeof(id), "%s", t.id);
                if (sc_elbv2_drain_idle(v2, tg, id, port) == 1) {
                    log_info("autoscale: target %s:%d of %s drained (nothing in flight)", id, port,
                             tg);
                    changed = 1;
                    i--; /* the next registration took its place */
                }
            }
        }
    }
    return changed;
}

int as_alb_sync(struct autoscale *a, struct sc_world *w, int64_t now)
{
    struct sc_elbv2 *v2 = sc_world_elbv2(w);

    for (int i = 0; i < a->nalbs; i++)
        a->albs[i]->seen = a->albs[i]->w != w;
    for (int i = 0; i < sc_elbv2_listener_count(v2); i++) {
        const struct sc_elbv2_listener *li = sc_elbv2_listener_at(v2, i);
        const struct sc_elbv2_lb *b = sc_elbv2_lb_find(v2, li->load_balancer_arn);
        const char *idle;
        struct alb *x;

        int alb = b && strcmp(b->type, "application") == 0;

        /* ALB: HTTP and HTTPS; NLB: TCP and TLS piped, UDP forwarded, TCP_UDP both */
        if (!b ||
            (alb && strcmp(li->protocol, "HTTP") != 0 && strcmp(li->protocol, "HTTPS") != 0) ||
            (!alb && strcmp(li->protocol, "TCP") != 0 && strcmp(li->protocol, "TLS") != 0 &&
             strcmp(li->protocol, "UDP") != 0 && strcmp(li->protocol, "TCP_UDP") != 0))
            continue;
        x = alb_ensure(a, w, li);
        if (!x)
            continue;
        x->seen = 1;
        if (x->tls)
            tls_sync(a, x, li);
        idle = alb ? sc_elbv2_attr(b->attrs, b->nattrs, "idle_timeout.timeout_seconds")
                   : sc_elbv2_attr(li->attrs, li->nattrs, "tcp.idle_timeout.seconds");
        /* requests are real time: the idle timeout is not scaled */
        lb_listener_set_idle_timeout(x->l, (int64_t)(idle ? atoi(idle) : alb ? 60 : 350) * 1000);
        zones_sync(x, b);
        collect_groups(x, li);
        sync_backends(a, x, now);
    }
    for (int i = 0; i < a->nalbs; i++) {
        if (!a->albs[i]->seen) {
            log_info("autoscale: application load balancer listener %s closed", a->albs[i]->arn);
            alb_free(a->albs[i]);
            a->albs[i--] = a->albs[--a->nalbs];
        }
    }
    return drain_idle(a, w);
}

/* The entry of (tg, zone) in tt, added when new; NULL when tt is full. */
static struct sc_elbv2_tg_traffic *traffic_of(struct sc_elbv2_tg_traffic *tt, int *n, int cap,
                                              const char *tg, const char *zone)
{
    for (int j = 0; j < *n; j++) {
        if (strcmp(tt[j].target_group_arn, tg) == 0 &&
            (tt[j].zone == zone || (tt[j].zone && zone && strcmp(tt[j].zone, zone) == 0)))
            return &tt[j];
    }
    if (*n == cap)
        return NULL;
    memset(&tt[*n], 0, sizeof(tt[*n]));
    tt[*n].target_group_arn = tg;
    tt[*n].zone = zone;
    return &tt[(*n)++];
}

static void add_group(struct sc_elbv2_tg_traffic *p, const struct lb_group_metrics *gm, double ts)
{
    if (!p)
        return;
    p->requests += (double)gm->requests * ts;
    p->target_2xx += (double)gm->target_2xx * ts;
    p->target_3xx += (double)gm->target_3xx * ts;
    p->target_4xx += (double)gm->target_4xx * ts;
    p->target_5xx += (double)gm->target_5xx * ts;
    p->resp_time_sum_s += gm->resp_sum_ms / 1000.0; /* latency: a real figure */
    p->resp_count += (double)gm->resp_count;
    p->conn_errors += (double)gm->conn_errors * ts;
}

static void report_alb(struct autoscale *a, struct sc_world *w, const struct sc_elbv2_lb *b,
                       struct sc_elbv2_tg_traffic *tt, int cap, int64_t now)
{
    struct sc_elbv2 *v2 = sc_world_elbv2(w);
    double ts = a->cfg.time_scale;
    struct sc_elbv2_traffic t;
    int nlis = 0;

    memset(&t, 0, sizeof(t));
    t.tgs = tt;
    for (int k = 0; k < a->nalbs; k++) {
        struct alb *x = a->albs[k];
        struct lb_metrics m;

        if (x->w != w || strcmp(x->lb_arn, b->arn) != 0)
            continue;
        nlis++;
        lb_listener_metrics_take(x->l, &m);
        /* counts as the emulated minute would have seen them */
        t.elb_3xx += (double)x->redirects * ts;
        t.elb_4xx += (double)m.elb_4xx * ts;
        t.elb_5xx += (double)m.elb_5xx * ts;
        t.elb_502 += (double)m.elb_502 * ts;
        t.elb_503 += (double)m.elb_503 * ts;
        t.elb_504 += (double)m.elb_504 * ts;
        t.redirects += (double)x->redirects * ts;
        t.fixed_responses += (double)x->fixed * ts;
        /* concurrency is a level, not a count: not scaled */
        t.active_conns += (double)m.conns_open + (double)m.conns_closed;
        t.new_conns += (double)(m.client_conns + m.backend_conns) * ts;
        t.processed_bytes += (double)m.client_bytes * ts;
        x->redirects = x->fixed = 0;
        for (int g = 0; g < x->ntgs; g++) {
            struct lb_group_metrics gm;

            lb_listener_group_metrics_take(x->l, g, &gm);
            add_group(traffic_of(tt, &t.ntgs, cap, x->tgs[g], NULL), &gm, ts);
            for (int z = 0; z < x->nzones; z++) {
                lb_listener_group_zone_metrics_take(x->l, g, z, &gm);
                if (gm.requests > 0)
                    add_group(traffic_of(tt, &t.ntgs, cap, x->tgs[g], x->zones[z]), &gm, ts);
            }
        }
    }
    if (nlis > 0)
        sc_elbv2_report_minute(v2, sc_world_cw(w), b->arn, &t, now, now);
}

static void report_nlb(struct autoscale *a, struct sc_world *w, const struct sc_elbv2_lb *b,
                       int64_t now)
{
    double ts = a->cfg.time_scale;
    struct sc_elbv2_nlb_traffic t;
    int nlis = 0;

    memset(&t, 0, sizeof(t));
    for (int k = 0; k < a->nalbs; k++) {
        struct alb *x = a->albs[k];
        struct lb_metrics m;
        double active, fresh, bytes;

        if (x->w != w || strcmp(x->lb_arn, b->arn) != 0 || !x->tcp)
            continue;
        nlis++;
        lb_listener_metrics_take(x->l, &m);
        /* a flow: one client connection; open at some time in the minute */
        active = (double)lb_listener_client_conns(x->l) + (double)m.client_closed;
        fresh = (double)m.client_conns * ts;
        bytes = (double)m.client_bytes * ts;
        if (x->udp) {
            /* a UDP flow: one client address and port's datagrams (docs/elbv2.md 10.5) */
            t.active_flows_udp += (double)lb_listener_udp_flows(x->l) + (double)m.udp_flows_closed;
            t.new_flows_udp += (double)m.udp_new_flows * ts;
            t.bytes_udp += (double)m.udp_bytes * ts;
        }
        if (x->udp == 2) {
            /* no TCP socket: nothing of TCP to count */
        } else if (x->tls) {
            t.active_flows_tls += active;
            t.new_flows_tls += fresh;
            t.bytes_tls += bytes;
        } else {
            t.active_flows_tcp += active;
            t.new_flows_tcp += fresh;
            t.bytes_tcp += bytes;
        }
        t.client_resets += (double)m.client_resets * ts;
        t.target_resets += (double)m.backend_resets * ts;
        t.elb_resets += (double)m.own_resets * ts;
    }
    if (nlis > 0)
        sc_elbv2_report_nlb_minute(sc_world_elbv2(w), sc_world_cw(w), b->arn, &t, now, now);
}

void as_alb_report_minute(struct autoscale *a, struct sc_world *w, int64_t now)
{
    struct sc_elbv2 *v2 = sc_world_elbv2(w);
    int cap = LB_GROUPS_MAX * 4 * (1 + LB_ZONES_MAX);
    struct sc_elbv2_tg_traffic *tt = cm_xcalloc((size_t)cap, sizeof(*tt));

    for (int i = 0; i < sc_elbv2_lb_count(v2); i++) {
        const struct sc_elbv2_lb *b = sc_elbv2_lb_at(v2, i);

        if (strcmp(b->type, "application") == 0)
            report_alb(a, w, b, tt, cap, now);
        else if (strcmp(b->type, "network") == 0)
            report_nlb(a, w, b, now);
    }
    free(tt);
}

void as_alb_forget_world(struct autoscale *a, struct sc_world *w)
{
    for (int i = 0; i < a->nalbs; i++) {
        if (a->albs[i]->w == w) {
            alb_free(a->albs[i]);
            a->albs[i--] = a->albs[--a->nalbs];
        }
    }
}

void as_alb_destroy_all(struct autoscale *a)
{
    for (int i = 0; i < a->nalbs; i++)
        alb_free(a->albs[i]);
    free(a->albs);
    a->albs = NULL;
    a->nalbs = a->cap_albs = 0;
}

void as_alb_status_json(const struct autoscale *a, struct cm_buf *b)
{
    for (int i = 0; i < a->nalbs; i++) {
        const struct alb *x = a->albs[i];

        cm_buf_printf(b,
                      "%s{\"listener_arn\":\"%s\",\"load_balancer_arn\":\"%s\","
                      "\"listener_port\":%d,\"port\":%d,\"protocol\":\"%s\",\"target_groups\":%d,"
                      "\"backends\":%d,\"udp_flows\":%d,",
                      i ? "," : "", x->arn, x->lb_arn, x->port, lb_listener_port(x->l),
                      x->udp == 2   ? "UDP"
                      : x->udp == 1 ? "TCP_UDP"
                      : x->tcp      ? (x->tls ? "TLS" : "TCP")
                                    : (x->tls ? "HTTPS" : "HTTP"),
                      x->ntgs, lb_backend_count(x->l), lb_listener_udp_flows(x->l));
        as_traffic_json(b, x->l, x->tgs, x->ntgs);
        cm_buf_puts(b, "}");
    }
}
