/* scaler/elbv2_target.c: see elbv2.h. Target groups, their targets, the health rule, the
 * target states DescribeTargetHealth shows (docs/elbv2.md 4, 7), routing sets and
 * deregistration delays. */
#include "scaler/elbv2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/elb.h"
#include "scaler/elbv2_internal.h"
#include "scaler/rec.h"

static const char *const state_names[] = {
    "initial", "healthy", "unhealthy", "unused", "draining", "unavailable",
};

const char *sc_elbv2_target_state_name(enum sc_elbv2_target_state s)
{
    return (unsigned)s < 6 ? state_names[s] : NULL;
}

/* --- the health rule -------------------------------------------------------------------------- */

int sc_elbv2_health_step(struct sc_elbv2_health *h, enum sc_elbv2_hc_result r, int code,
                         int healthy_threshold, int unhealthy_threshold)
{
    struct sc_elb_health c = { h->in_service, h->ever_in_service, h->fails_out, h->consec_ok,
                               h->consec_fail };
    int ok = r == SC_ELBV2_HC_OK;

    /* initial: classic's rule for a registration that is out, so it takes
     * healthy_threshold passes to go in; unhealthy_threshold failures decide it out */
    if (!h->decided)
        c.failed_out = 1;
    sc_elb_health_step(&c, ok, healthy_threshold, unhealthy_threshold);
    h->checks++;
    h->in_service = c.in_service;
    h->ever_in_service = c.ever_in_service;
    h->fails_out = c.failed_out;
    h->consec_ok = c.consec_ok;
    h->consec_fail = c.consec_fail;
    if (!ok) {
        h->last_fail = r;
        h->last_code = code;
    }
    if (!h->decided && (c.in_service || c.consec_fail >= unhealthy_threshold))
        h->decided = 1;
    return h->in_service;
}

/* --- target groups ---------------------------------------------------------------------------- */

void v2_tg_free(struct tgrec *g)
{
    if (!g)
        return;
    sa_free(&g->a);
    sa_free(&g->ha);
    kv_free(&g->attrs);
    kv_free(&g->tags);
    free(g->targets);
    free(g->lbv);
    free(g);
}

void v2_tg_view(struct tgrec *g)
{
    g->v.attrs = g->attrs.v;
    g->v.nattrs = g->attrs.n;
    g->v.load_balancer_arns = g->lbv;
}

static int is_http(const char *p)
{
    return p && (strcmp(p, "HTTP") == 0 || strcmp(p, "HTTPS") == 0);
}

static int matcher_ok(const char *m, int lo, int hi)
{
    const char *p = m;

    if (!m || !*m)
        return 0;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b;

        if (end == p || a < lo || a > hi)
            return 0;
        b = a;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || b < a || b > hi)
                return 0;
        }
        if (*end == ',')
            end++;
        else if (*end)
            return 0;
        p = end;
    }
    return 1;
}

int sc_elbv2_matcher_takes(const char *matcher, int code)
{
    const char *p = matcher && *matcher ? matcher : "200";

    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b;

        if (end == p)
            return 0;
        b = a;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p)
                return 0;
        }
        if (code >= a && code <= b)
            return 1;
        if (*end != ',')
            return 0;
        p = end + 1;
    }
    return 0;
}

enum sc_elbv2_hc_result sc_elbv2_hc_judge(const struct sc_elbv2_tg *tg, enum sc_elbv2_probe p,
                                          int status)
{
    int alb = is_http(tg->protocol);
    int tcp_check = tg->hc.protocol && strcmp(tg->hc.protocol, "TCP") == 0;

    switch (p) {
    case SC_ELBV2_PROBE_ANSWERED:
        if (tcp_check || sc_elbv2_matcher_takes(tg->hc.matcher, status))
            return SC_ELBV2_HC_OK;
        return alb ? SC_ELBV2_HC_CODE_MISMATCH : SC_ELBV2_HC_FAILED;
    case SC_ELBV2_PROBE_TIMEOUT:
        return alb ? SC_ELBV2_HC_TIMEOUT : SC_ELBV2_HC_FAILED;
    default:
        return SC_ELBV2_HC_FAILED;
    }
}

/* The health check a request gives, over `base` (the current one, or the protocol's
 * defaults); checks AWS's ranges. */
static enum sc_status hc_resolve(const char *tg_protocol, const char *target_type,
                                 const struct sc_elbv2_health_check *base,
                                 const struct sc_elbv2_hc_req *r, struct sc_elbv2_health_check *out,
                                 struct sc_error *err)
{
    int http_tg = is_http(tg_protocol);

    *out = *base;
    if (r->protocol) {
        if (strcmp(r->protocol, "HTTP") != 0 && strcmp(r->protocol, "HTTPS") != 0 &&
            strcmp(r->protocol, "TCP") != 0)
            return sc_fail(err, SC_ERR_VALIDATION, "Health check protocol '%s' is not supported",
                           r->protocol);
        if (http_tg && strcmp(r->protocol, "TCP") == 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Health check protocol 'TCP' is not supported for target groups with "
                           "the protocol '%s'",
                           tg_protocol);
        out->protocol = r->protocol;
        if (!is_http(r->protocol)) {
            out->path = NULL;
            out->matcher = NULL;
        } else {
            out->path = out->path ? out->path : "/";
            out->matcher = out->matcher ? out->matcher : "200";
        }
    }
    if (r->port) {
        char *end;
        long p = strtol(r->port, &end, 10);

        if (strcmp(r->port, "traffic-port") != 0 && (*end || p < 1 || p > 65535))
            return sc_fail(err, SC_ERR_VALIDATION, "Health check port '%s' is not valid", r->port);
        out->port = r->port;
    }
    if (r->has_enabled) {
        if (!r->enabled)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Health check enabled must be true for target groups with target "
                           "type '%s'",
                           target_type);
    }
    if (r->path) {
        if (!is_http(out->protocol))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "A health check path can only be specified for HTTP and HTTPS health "
                           "checks");
        if (r->path[0] != '/' || strlen(r->path) > 1024)
            return sc_fail(err, SC_ERR_VALIDATION, "Health check path '%s' is not valid", r->path);
        out->path = r->path;
    }
    if (r->matcher) {
        if (!is_http(out->protocol))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "A health check matcher can only be specified for HTTP and HTTPS "
                           "health checks");
        if (!matcher_ok(r->matcher, 200, http_tg ? 499 : 599))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Health check matcher HTTP code '%s' must be "
                           "within '200-%d' inclusive",
                           r->matcher, http_tg ? 499 : 599);
        out->matcher = r->matcher;
    }
    if (r->has_interval) {
        if (r->interval_s < 5 || r->interval_s > 300)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Health check interval '%d' must be between 5 and 300 seconds",
                           r->interval_s);
        out->interval_s = r->interval_s;
    }
    if (r->has_timeout) {
        if (r->timeout_s < 2 || r->timeout_s > 120)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Health check timeout '%d' must be between 2 and 120 seconds",
                           r->timeout_s);
        out->timeout_s = r->timeout_s;
    }
    if (r->has_healthy) {
        if (r->healthy_threshold < 2 || r->healthy_threshold > 10)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Healthy threshold count '%d' must be between 2 and 10",
                           r->healthy_threshold);
        out->healthy_threshold = r->healthy_threshold;
    }
    if (r->has_unhealthy) {
        if (r->unhealthy_threshold < 2 || r->unhealthy_threshold > 10)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Unhealthy threshold count '%d' must be between 2 and 10",
                           r->unhealthy_threshold);
        out->unhealthy_threshold = r->unhealthy_threshold;
    }
    if (out->timeout_s >= out->interval_s)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Health check timeout '%d' must be smaller than the interval '%d'",
                       out->timeout_s, out->interval_s);
    return SC_OK;
}

/* The defaults of a protocol (docs/elbv2.md 4). */
static void hc_defaults(const char *protocol, struct sc_elbv2_health_check *hc)
{
    memset(hc, 0, sizeof(*hc));
    hc->enabled = 1;
    hc->port = "traffic-port";
    hc->interval_s = 30;
    hc->healthy_threshold = 5;
    hc->unhealthy_threshold = 2;
    if (strcmp(protocol, "HTTP") == 0) {
        hc->protocol = "HTTP";
        hc->timeout_s = 6;
    } else if (strcmp(protocol, "HTTPS") == 0) {
        hc->protocol = "HTTPS";
        hc->timeout_s = 10;
    } else {
        hc->protocol = "TCP";
        hc->timeout_s = 10;
    }
    if (is_http(protocol)) {
        hc->path = "/";
        hc->matcher = "200";
    }
}

static int hc_keep(struct sarena *a, struct sc_elbv2_health_check *hc)
{
    hc->protocol = sa_keep(a, hc->protocol);
    hc->port = sa_keep(a, hc->port);
    hc->path = sa_keep(a, hc->path);
    hc->matcher = sa_keep(a, hc->matcher);
    return a->oom ? -1 : 0;
}

static int hc_same(const struct sc_elbv2_health_check *a, const struct sc_elbv2_health_check *b)
{
    return strcmp(a->protocol, b->protocol) == 0 && strcmp(a->port, b->port) == 0 &&
           (a->path == b->path || (a->path && b->path && strcmp(a->path, b->path) == 0)) &&
           (a->matcher == b->matcher ||
            (a->matcher && b->matcher && strcmp(a->matcher, b->matcher) == 0)) &&
           a->interval_s == b->interval_s && a->timeout_s == b->timeout_s &&
           a->healthy_threshold == b->healthy_threshold &&
           a->unhealthy_threshold == b->unhealthy_threshold;
}

enum sc_status sc_elbv2_create_target_group(struct sc_elbv2 *v2, const struct sc_elbv2_tg_req *r,
                                            int64_t now_ms, const struct sc_elbv2_tg **out,
                                            struct sc_error *err)
{
    const char *p = r->protocol;
    const char *tt = r->target_type ? r->target_type : "instance";
    struct sc_elbv2_health_check def, hc;
    struct tgrec *g;
    char arn[SC_ELBV2_ARN_LEN];
    enum sc_status st;

    (void)now_ms;
    if (!v2_name_valid(r->name))
        return sc_fail(err, SC_ERR_VALIDATION, "Target group name '%s' is not valid",
                       r->name ? r->name : "");
    if (strcmp(tt, "instance") != 0 && strcmp(tt, "ip") != 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Target type '%s' is not supported", tt);
    if (!p)
        return sc_fail(err, SC_ERR_VALIDATION, "A protocol must be specified");
    if (strcmp(p, "HTTP") != 0 && strcmp(p, "HTTPS") != 0 && strcmp(p, "TCP") != 0 &&
        strcmp(p, "TLS") != 0 && strcmp(p, "UDP") != 0 && strcmp(p, "TCP_UDP") != 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Protocol '%s' is not supported", p);
    if (!r->has_port)
        return sc_fail(err, SC_ERR_VALIDATION, "A port must be specified");
    if (r->port < 1 || r->port > 65535)
        return sc_fail(err, SC_ERR_VALIDATION, "Port '%d' is not valid", r->port);
    if (!r->vpc_id)
        return sc_fail(err, SC_ERR_VALIDATION, "A VPC ID must be specified");
    if (!sc_ec2_vpc_find(v2->ec2, r->vpc_id))
        return sc_fail(err, SC_ERR_VALIDATION, "The VPC ID '%s' is not found", r->vpc_id);
    if (r->protocol_version && !is_http(p))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "A protocol version can only be specified for HTTP and HTTPS target "
                       "groups");
    if (r->protocol_version && strcmp(r->protocol_version, "HTTP1") != 0 &&
        strcmp(r->protocol_version, "HTTP2") != 0 && strcmp(r->protocol_version, "GRPC") != 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Protocol version '%s' is not valid",
                       r->protocol_version);
    hc_defaults(p, &def);
    st = hc_resolve(p, tt, &def, &r->hc, &hc, err);
    if (st != SC_OK)
        return st;
    st = v2_check_tags(r->tags, r->ntags, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < v2->ntgs; i++) {
        const struct tgrec *o = v2->tgs[i];

        if (strcmp(o->v.name, r->name) != 0)
            continue;
        if (strcmp(o->v.protocol, p) == 0 && o->v.port == r->port &&
            strcmp(o->v.vpc_id, r->vpc_id) == 0 && strcmp(o->v.target_type, tt) == 0 &&
            hc_same(&o->v.hc, &hc)) {
            if (out)
                *out = &o->v;
            return SC_OK;
        }
        return sc_fail(err, SC_ERR_DUPLICATE_TARGET_GROUP_NAME,
                       "A target group with the same name '%s' exists, but with different "
                       "settings",
                       r->name);
    }
    if (v2->ntgs >= SC_ELBV2_MAX_TARGET_GROUPS)
        return sc_fail(err, SC_ERR_TOO_MANY_TARGET_GROUPS,
                       "You've reached the limit on the number of target groups for your AWS "
                       "account");
    if (v2_grow(&v2->tgs, v2->ntgs, &v2->captgs, sizeof(*v2->tgs)) != 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    g = calloc(1, sizeof(*g));
    if (!g)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    v2_hex_id(v2, g->id);
    snprintf(arn, sizeof(arn), "arn:aws:elasticloadbalancing:%s:%s:targetgroup/%s/%s", v2->region,
             v2->account, r->name, g->id);
    g->v.arn = sa_keep(&g->a, arn);
    g->v.name = sa_keep(&g->a, r->name);
    g->v.protocol = sa_keep(&g->a, p);
    g->v.protocol_version =
        is_http(p) ? sa_keep(&g->a, r->protocol_version ? r->protocol_version : "HTTP1") : NULL;
    g->v.port = r->port;
    g->v.vpc_id = sa_keep(&g->a, r->vpc_id);
    g->v.target_type = sa_keep(&g->a, tt);
    g->v.ip_address_type = sa_keep(&g->a, r->ip_address_type ? r->ip_address_type : "ipv4");
    g->v.hc = hc;
    if (g->a.oom || hc_keep(&g->ha, &g->v.hc) != 0 || v2_tg_attr_defaults(g) != 0 ||
        v2_tags_add(&g->tags, r->tags, r->ntags, err) != SC_OK) {
        v2_tg_free(g);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    v2_tg_view(g);
    v2->tgs[v2->ntgs++] = g;
    if (out)
        *out = &g->v;
    return SC_OK;
}

enum sc_status sc_elbv2_modify_target_group(struct sc_elbv2 *v2, const char *arn,
                                            const struct sc_elbv2_hc_req *r, int64_t now_ms,
                                            const struct sc_elbv2_tg **out, struct sc_error *err)
{
    struct tgrec *g = v2_tg(v2, arn);
    struct sc_elbv2_health_check hc;
    struct sarena fresh = { 0 };
    enum sc_status st;

    (void)now_ms;
    if (!g)
        return v2_not_found_tg(err);
    st = hc_resolve(g->v.protocol, g->v.target_type, &g->v.hc, r, &hc, err);
    if (st != SC_OK)
        return st;
    if (hc_keep(&fresh, &hc) != 0) {
        sa_free(&fresh);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    sa_free(&g->ha);
    g->ha = fresh;
    g->v.hc = hc;
    if (out)
        *out = &g->v;
    return SC_OK;
}

enum sc_status sc_elbv2_delete_target_group(struct sc_elbv2 *v2, const char *arn, int64_t now_ms,
                                            struct sc_error *err)
{
    (void)now_ms;
    for (int i = 0; i < v2->ntgs; i++) {
        if (!arn || strcmp(v2->tgs[i]->v.arn, arn) != 0)
            continue;
        if (sc_elbv2_tg_in_use(v2, arn))
            return sc_fail(err, SC_ERR_RESOURCE_IN_USE,
                           "Target group '%s' is currently in use by a listener or a rule", arn);
        v2_tg_free(v2->tgs[i]);
        memmove(&v2->tgs[i], &v2->tgs[i + 1], (size_t)(v2->ntgs - i - 1) * sizeof(*v2->tgs));
        v2->ntgs--;
        return SC_OK;
    }
    return SC_OK;
}

int sc_elbv2_tg_count(const struct sc_elbv2 *v2)
{
    return v2->ntgs;
}

const struct sc_elbv2_tg *sc_elbv2_tg_at(const struct sc_elbv2 *v2, int i)
{
    return i >= 0 && i < v2->ntgs ? &v2->tgs[i]->v : NULL;
}

const struct sc_elbv2_tg *sc_elbv2_tg_find(const struct sc_elbv2 *v2, const char *arn)
{
    struct tgrec *g = v2_tg(v2, arn);

    return g ? &g->v : NULL;
}

int sc_elbv2_tg_in_use(const struct sc_elbv2 *v2, const char *arn)
{
    for (int i = 0; i < v2->nrules; i++) {
        if (v2_actions_forward_to(v2->rules[i]->v.actions, v2->rules[i]->v.nactions, arn))
            return 1;
    }
    return 0;
}

enum sc_status sc_elbv2_describe_target_groups(const struct sc_elbv2 *v2, const char *lb_arn,
                                               const char *const *arns, int narns,
                                               const char *const *names, int nnames,
                                               const struct sc_elbv2_tg **out, int *nout,
                                               struct sc_error *err)
{
    *nout = 0;
    if ((lb_arn != NULL) + (narns > 0) + (nnames > 0) > 1)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Only one of load balancer ARN, target group ARNs or names can be "
                       "specified");
    if (lb_arn && !v2_lb(v2, lb_arn))
        return v2_not_found_lb(err);
    for (int i = 0; i < narns; i++) {
        const struct sc_elbv2_tg *g = sc_elbv2_tg_find(v2, arns[i]);

        if (!g)
            return v2_not_found_tg(err);
        out[(*nout)++] = g;
    }
    for (int i = 0; i < nnames; i++) {
        const struct sc_elbv2_tg *g = NULL;

        for (int k = 0; k < v2->ntgs; k++) {
            if (strcmp(v2->tgs[k]->v.name, names[i]) == 0)
                g = &v2->tgs[k]->v;
        }
        if (!g)
            return v2_not_found_tg(err);
        out[(*nout)++] = g;
    }
    if (narns == 0 && nnames == 0) {
        for (int i = 0; i < v2->ntgs; i++) {
            const struct sc_elbv2_tg *g = &v2->tgs[i]->v;

            if (!lb_arn || in_list(g->load_balancer_arns, g->nload_balancer_arns, lb_arn))
                out[(*nout)++] = g;
        }
    }
    return SC_OK;
}

/* --- targets ---------------------------------------------------------------------------------- */

static struct target *target_find(const struct tgrec *g, const char *id, int port, int *index)
{
    for (int i = 0; id && i < g->ntargets; i++) {
        if (strcmp(g->targets[i].id, id) == 0 && g->targets[i].port == port) {
            if (index)
                *index = i;
            return &g->targets[i];
        }
    }
    return NULL;
}

static void target_remove(struct tgrec *g, int i)
{
    memmove(&g->targets[i], &g->targets[i + 1],
            (size_t)(g->ntargets - i - 1) * sizeof(*g->targets));
    g->ntargets--;
}

static int ipv4_valid(const char *s)
{
    struct sc_elbv2_cidr c;
    char buf[80];

    if (strlen(s) > 60)
        return 0;
    snprintf(buf, sizeof(buf), "%s/32", s);
    return v2_cidr_parse(buf, &c) == 0 && c.family == 4;
}

enum sc_status sc_elbv2_register_targets(struct sc_elbv2 *v2, const char *tg_arn,
                                         const struct sc_elbv2_target_req *t, int n, int64_t now_ms,
                                         struct sc_error *err)
{
    struct tgrec *g = v2_tg(v2, tg_arn);
    int instance, fresh = 0;

    if (!g)
        return v2_not_found_tg(err);
    if (n < 1)
        return sc_fail(err, SC_ERR_VALIDATION, "At least one target must be specified");
    instance = strcmp(g->v.target_type, "instance") == 0;
    for (int i = 0; i < n; i++) {
        const char *id = t[i].id;
        int port = t[i].port ? t[i].port : g->v.port;

        if (!id || strlen(id) >= sizeof(g->targets[0].id))
            return sc_fail(err, SC_ERR_VALIDATION, "A target ID must be specified");
        if (port < 1 || port > 65535)
            return sc_fail(err, SC_ERR_VALIDATION, "Port '%d' is not valid", port);
        if (instance) {
            const struct sc_ec2_instance *in = sc_ec2_instance_find(v2->ec2, id);

            if (!in || in->state == SC_EC2_TERMINATED)
                return sc_fail(err, SC_ERR_INVALID_TARGET,
                               "The following targets are not valid instances: '%s'", id);
            if (in->state != SC_EC2_RUNNING)
                return sc_fail(err, SC_ERR_INVALID_TARGET,
                               "The following targets are not in a running state and cannot "
                               "be registered: '%s'",
                               id);
            if (in->vpc_id && strcmp(in->vpc_id, g->v.vpc_id) != 0)
                return sc_fail(err, SC_ERR_INVALID_TARGET,
                               "The following targets are not in the target group VPC '%s': '%s'",
                               g->v.vpc_id, id);
        } else if (!ipv4_valid(id)) {
            return sc_fail(err, SC_ERR_INVALID_TARGET,
                           "The IP address '%s' is not a valid IPv4 address", id);
        }
        fresh += !target_find(g, id, port, NULL);
    }
    if (g->ntargets + fresh > SC_ELBV2_MAX_TARGETS)
        return sc_fail(err, SC_ERR_TOO_MANY_TARGETS,
                       "You have reached the maximum number of targets for the target group");
    for (int i = 0; i < n; i++) {
        int port = t[i].port ? t[i].port : g->v.port;
        struct target *x = target_find(g, t[i].id, port, NULL);
        const struct sc_ec2_instance *in = sc_ec2_instance_find(v2->ec2, t[i].id);

        if (x && !x->draining)
            continue;
        if (!x) {
            if (v2_grow(&g->targets, g->ntargets, &g->captargets, sizeof(*g->targets)) != 0)
                return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
            x = &g->targets[g->ntargets++];
        }
        memset(x, 0, sizeof(*x));
        snprintf(x->id, sizeof(x->id), "%s", t[i].id);
        x->port = port;
        snprintf(x->zone, sizeof(x->zone), "%s",
                 t[i].availability_zone        ? t[i].availability_zone
                 : in && in->availability_zone ? in->availability_zone
                                               : "");
        x->registered_ms = now_ms;
    }
    return SC_OK;
}

enum sc_status sc_elbv2_deregister_targets(struct sc_elbv2 *v2, const char *tg_arn,
                                           const struct sc_elbv2_target_req *t, int n,
                                           int64_t now_ms, struct sc_error *err)
{
    struct tgrec *g = v2_tg(v2, tg_arn);
    const char *d;
    int delay_s, in_use;

    if (!g)
        return v2_not_found_tg(err);
    d = sc_elbv2_attr(g->attrs.v, g->attrs.n, "deregistration_delay.timeout_seconds");
    delay_s = d ? atoi(d) : 300;
    in_use = sc_elbv2_tg_in_use(v2, tg_arn);
    for (int i = 0; i < n; i++) {
        int at = -1;
        struct target *x = target_find(g, t[i].id, t[i].port ? t[i].port : g->v.port, &at);

        if (!x || x->draining)
            continue;
        if (in_use && delay_s > 0) {
            x->draining = 1;
            x->drain_deadline_ms = now_ms + (int64_t)delay_s * 1000;
        } else {
            target_remove(g, at);
        }
    }
    return SC_OK;
}

void v2_targets_step(struct sc_elbv2 *v2, int64_t now_ms)
{
    for (int i = 0; i < v2->ntgs; i++) {
        struct tgrec *g = v2->tgs[i];
        int instance = strcmp(g->v.target_type, "instance") == 0;

        for (int k = g->ntargets - 1; k >= 0; k--) {
            const struct target *x = &g->targets[k];

            if ((x->draining && now_ms >= x->drain_deadline_ms) ||
                (instance && !sc_ec2_instance_find(v2->ec2, x->id)))
                target_remove(g, k);
        }
    }
}

int64_t v2_targets_next_due(const struct sc_elbv2 *v2)
{
    int64_t due = INT64_MAX;

    for (int i = 0; i < v2->ntgs; i++) {
        for (int k = 0; k < v2->tgs[i]->ntargets; k++) {
            const struct target *x = &v2->tgs[i]->targets[k];

            if (x->draining && x->drain_deadline_ms < due)
                due = x->drain_deadline_ms;
        }
    }
    return due;
}

/* --- target health ---------------------------------------------------------------------------- */

/* Whether zone is one of the zones of a load balancer that forwards to g (any of them). */
static int zone_enabled(const struct sc_elbv2 *v2, const struct tgrec *g, const char *zone)
{
    for (int i = 0; i < g->v.nload_balancer_arns; i++) {
        const struct sc_elbv2_lb *b = sc_elbv2_lb_find(v2, g->v.load_balancer_arns[i]);

        if (b && (!zone || !*zone || in_list(b->zones, b->nzones, zone)))
            return 1;
    }
    return 0;
}

static void fill_health(const struct sc_elbv2 *v2, const struct tgrec *g, const struct target *x,
                        int in_use, struct sc_elbv2_target_health *o)
{
    const struct sc_ec2_instance *in =
        strcmp(g->v.target_type, "instance") == 0 ? sc_ec2_instance_find(v2->ec2, x->id) : NULL;
    int instance = in != NULL || strcmp(g->v.target_type, "instance") == 0;

    memset(o, 0, sizeof(*o));
    o->id = x->id;
    o->port = x->port;
    o->availability_zone = x->zone[0] ? x->zone : NULL;
    o->drain_deadline_ms = x->drain_deadline_ms;
    o->slow_start_since_ms = x->slow_start ? x->slow_start_ms : -1;
    snprintf(o->health_check_port, sizeof(o->health_check_port), "%s",
             strcmp(g->v.hc.port, "traffic-port") == 0 ? "" : g->v.hc.port);
    if (!o->health_check_port[0])
        snprintf(o->health_check_port, sizeof(o->health_check_port), "%d", x->port);
    if (x->draining) {
        o->state = SC_ELBV2_DRAINING;
        o->reason = "Target.DeregistrationInProgress";
        snprintf(o->description, sizeof(o->description), "Target deregistration is in progress");
        return;
    }
    if (instance && (!in || in->state != SC_EC2_RUNNING)) {
        o->state = SC_ELBV2_UNUSED;
        o->reason = "Target.InvalidState";
        snprintf(o->description, sizeof(o->description), "Target is in the %s state",
                 in && (in->state == SC_EC2_STOPPED || in->state == SC_EC2_STOPPING)
                     ? "stopped"
                     : "terminated");
        return;
    }
    if (!in_use) {
        o->state = SC_ELBV2_UNUSED;
        o->reason = "Target.NotInUse";
        snprintf(o->description, sizeof(o->description),
                 "Target group is not configured to receive traffic from the load balancer");
        return;
    }
    if (!zone_enabled(v2, g, x->zone)) {
        o->state = SC_ELBV2_UNUSED;
        o->reason = "Target.NotInUse";
        snprintf(o->description, sizeof(o->description),
                 "Target is in an Availability Zone that is not enabled for the load balancer");
        return;
    }
    o->checked = 1;
    if (x->h.in_service) {
        o->state = SC_ELBV2_HEALTHY;
        return;
    }
    if (!x->h.decided) {
        o->state = SC_ELBV2_INITIAL;
        o->reason = x->h.checks ? "Elb.InitialHealthChecking" : "Elb.RegistrationInProgress";
        snprintf(o->description, sizeof(o->description), "%s",
                 x->h.checks ? "Initial health checks in progress"
                             : "Target registration is in progress");
        return;
    }
    o->state = SC_ELBV2_UNHEALTHY;
    if (x->h.last_fail == SC_ELBV2_HC_TIMEOUT) {
        o->reason = "Target.Timeout";
        snprintf(o->description, sizeof(o->description), "Request timed out");
    } else if (x->h.last_fail == SC_ELBV2_HC_CODE_MISMATCH) {
        o->reason = "Target.ResponseCodeMismatch";
        snprintf(o->description, sizeof(o->description),
                 "Health checks failed with these codes: [%d]", x->h.last_code);
    } else {
        o->reason = "Target.FailedHealthChecks";
        snprintf(o->description, sizeof(o->description), "Health checks failed");
    }
}

/* Sets each entry's routable flag: healthy ones, or every checked one when none is. */
static void mark_routable(struct sc_elbv2_target_health *o, int n)
{
    int healthy = 0;

    for (int i = 0; i < n; i++)
        healthy += o[i].state == SC_ELBV2_HEALTHY;
    for (int i = 0; i < n; i++)
        o[i].routable = healthy ? o[i].state == SC_ELBV2_HEALTHY : o[i].checked;
}

enum sc_status sc_elbv2_describe_target_health(const struct sc_elbv2 *v2, const char *tg_arn,
                                               const struct sc_elbv2_target_req *t, int n,
                                               struct sc_elbv2_target_health *out, int *nout,
                                               struct sc_error *err)
{
    const struct tgrec *g = v2_tg(v2, tg_arn);
    int in_use;

    *nout = 0;
    if (!g)
        return v2_not_found_tg(err);
    in_use = sc_elbv2_tg_in_use(v2, tg_arn);
    if (n == 0) {
        for (int i = 0; i < g->ntargets; i++)
            fill_health(v2, g, &g->targets[i], in_use, &out[(*nout)++]);
        mark_routable(out, *nout);
        return SC_OK;
    }
    for (int i = 0; i < n; i++) {
        int port = t[i].port ? t[i].port : g->v.port;
        const struct target *x = target_find(g, t[i].id, port, NULL);
        struct sc_elbv2_target_health *o = &out[(*nout)++];

        if (strcmp(g->v.target_type, "instance") == 0 && !sc_ec2_instance_find(v2->ec2, t[i].id))
            return sc_fail(err, SC_ERR_INVALID_TARGET,
                           "The following targets are not valid instances: '%s'",
                           t[i].id ? t[i].id : "");
        if (x) {
            fill_health(v2, g, x, in_use, o);
            continue;
        }
        memset(o, 0, sizeof(*o));
        o->slow_start_since_ms = -1;
        o->id = t[i].id;
        o->port = port;
        o->state = SC_ELBV2_UNUSED;
        o->reason = "Target.NotRegistered";
        snprintf(o->description, sizeof(o->description),
                 "Target is not registered to the target group");
        snprintf(o->health_check_port, sizeof(o->health_check_port), "%d", port);
    }
    return SC_OK;
}

int sc_elbv2_target_count(const struct sc_elbv2 *v2, const char *tg_arn)
{
    const struct tgrec *g = v2_tg(v2, tg_arn);

    return g ? g->ntargets : -1;
}

int sc_elbv2_target_at(const struct sc_elbv2 *v2, const char *tg_arn, int i,
                       struct sc_elbv2_target_health *out)
{
    const struct tgrec *g = v2_tg(v2, tg_arn);
    int healthy = 0;

    if (!g || i < 0 || i >= g->ntargets)
        return -1;
    fill_health(v2, g, &g->targets[i], sc_elbv2_tg_in_use(v2, tg_arn), out);
    for (int k = 0; k < g->ntargets; k++)
        healthy += g->targets[k].h.in_service && !g->targets[k].draining;
    out->routable = healthy ? out->state == SC_ELBV2_HEALTHY : out->checked;
    return 0;
}

/* A target that just became healthy enters slow start when the group has a slow start
 * duration, its algorithm is not least_outstanding_requests, and another healthy target
 * is not in slow start (docs/elbv2.md 10.2). */
static void slow_start_enter(const struct sc_elbv2 *v2, const struct tgrec *g, struct target *x,
                             int64_t now_ms)
{
    struct sc_elbv2_balancing bal;

    x->slow_start = 0;
    if (sc_elbv2_tg_balancing(v2, g->v.arn, &bal) != 0 || bal.slow_start_ms <= 0)
        return;
    for (int k = 0; k < g->ntargets; k++) {
        const struct target *o = &g->targets[k];

        if (o == x || !o->h.in_service || o->draining)
            continue;
        if (!o->slow_start || now_ms >= o->slow_start_ms + bal.slow_start_ms) {
            x->slow_start = 1;
            x->slow_start_ms = now_ms;
            return;
        }
    }
}

int sc_elbv2_health_result(struct sc_elbv2 *v2, const char *tg_arn, const char *id, int port,
                           enum sc_elbv2_hc_result r, int code, int64_t now_ms)
{
    struct tgrec *g = v2_tg(v2, tg_arn);
    struct target *x = g ? target_find(g, id, port, NULL) : NULL;

    int before, after;

    if (!x || (x->draining && now_ms >= x->drain_deadline_ms))
        return -1;
    before = x->h.in_service;
    after = sc_elbv2_health_step(&x->h, r, code, g->v.hc.healthy_threshold,
                                 g->v.hc.unhealthy_threshold);
    if (!after)
        x->slow_start = 0; /* an unhealthy target leaves slow start */
    else if (!before)
        slow_start_enter(v2, g, x, now_ms);
    return after;
}

int sc_elbv2_drain_idle(struct sc_elbv2 *v2, const char *tg_arn, const char *id, int port)
{
    struct tgrec *g = v2_tg(v2, tg_arn);
    int at = -1;
    struct target *x = g ? target_find(g, id, port, &at) : NULL;

    if (!x)
        return -1;
    if (!x->draining)
        return 0;
    target_remove(g, at);
    return 1;
}

int sc_elbv2_route_set(const struct sc_elbv2 *v2, const char *tg_arn, const char **ids, int *ports,
                       int cap)
{
    const struct tgrec *g = v2_tg(v2, tg_arn);
    int n = 0, pass;

    if (!g)
        return -1;
    /* healthy ones; if none, every checked one (fail open) */
    for (pass = 0; pass < 2 && n == 0; pass++) {
        for (int i = 0; i < g->ntargets; i++) {
            struct sc_elbv2_target_health h;

            fill_health(v2, g, &g->targets[i], 1, &h);
            if (pass == 0 ? h.state != SC_ELBV2_HEALTHY : !h.checked)
                continue;
            if (n < cap) {
                ids[n] = g->targets[i].id;
                ports[n] = g->targets[i].port;
            }
            n++;
        }
    }
    return n;
}

enum sc_elbv2_membership sc_elbv2_instance_membership(const struct sc_elbv2 *v2, const char *tg_arn,
                                                      const char *id)
{
    const struct tgrec *g = v2_tg(v2, tg_arn);
    enum sc_elbv2_membership m = SC_ELBV2_MEMBER_NONE;
    int in_use;

    if (!g)
        return m;
    in_use = sc_elbv2_tg_in_use(v2, tg_arn);
    for (int i = 0; i < g->ntargets; i++) {
        struct sc_elbv2_target_health h;

        if (strcmp(g->targets[i].id, id) != 0)
            continue;
        fill_health(v2, g, &g->targets[i], in_use, &h);
        if (h.state == SC_ELBV2_DRAINING)
            return SC_ELBV2_MEMBER_DRAINING;
        if (h.state == SC_ELBV2_UNHEALTHY)
            m = SC_ELBV2_MEMBER_UNHEALTHY;
        else if (h.state == SC_ELBV2_HEALTHY && m != SC_ELBV2_MEMBER_UNHEALTHY)
            m = SC_ELBV2_MEMBER_HEALTHY;
        else if (m == SC_ELBV2_MEMBER_NONE)
            m = SC_ELBV2_MEMBER_INITIAL;
    }
    return m;
}

int sc_elbv2_registered_anywhere(const struct sc_elbv2 *v2, const char *id)
{
    for (int i = 0; i < v2->ntgs; i++) {
        for (int k = 0; k < v2->tgs[i]->ntargets; k++) {
            if (strcmp(v2->tgs[i]->targets[k].id, id) == 0)
                return 1;
        }
    }
    return 0;
}
