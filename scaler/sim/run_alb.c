/* scaler/sim/run_alb.c: the simulator's Application Load Balancers (docs/scenarios.md,
 * "Application Load Balancers"). The records are libscaler's (scaler/elbv2.h), made with the
 * calls the emulator's API handlers make, so AWS's validation answers a wrong scenario. Each
 * phase's request mix is routed once, at the start, by sc_elbv2_route (the emulator's data
 * plane's call): the rules cannot change during a run, so a request kind always takes the
 * same action, and the phase becomes one model source per destination with its share (a
 * weighted forward splits by its weights: the mean of the draws). Target groups' route sets
 * follow sc_elbv2_route_set (healthy, fail open, never draining); their health checks report
 * through sc_elbv2_health_result; every minute sc_elbv2_report_minute puts the
 * AWS/ApplicationELB metrics. */
#include "scaler/sim/run.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/ec2.h"
#include "scaler/elbv2.h"
#include "scaler/sim/run_internal.h"

static int alb_fail(struct eng *e, const char *path, const struct sc_error *err)
{
    snprintf(e->err, sizeof(e->err), "%s: %s: %s", path, sc_status_code(err->status), err->message);
    return 2;
}

const char *alb_tg_arn(struct eng *e, const char *name)
{
    int i = sim_scenario_tg_index(e->sc, name);

    return i >= 0 ? e->tgs[i].arn : NULL;
}

/* The scenario's action as libscaler's request (strings borrowed from the scenario and e). */
static void to_action(struct eng *e, const struct sim_alb_action *a, struct sc_elbv2_action *out)
{
    memset(out, 0, sizeof(*out));
    switch (a->kind) {
    case SIM_ALB_FORWARD:
        out->type = SC_ELBV2_ACTION_FORWARD;
        if (!a->weighted) {
            out->target_group_arn = alb_tg_arn(e, a->forward[0].target_group);
            break;
        }
        out->has_forward_config = 1;
        for (int i = 0; i < a->nforward && i < SC_ELBV2_MAX_FORWARD; i++) {
            out->forward[i].target_group_arn = alb_tg_arn(e, a->forward[i].target_group);
            out->forward[i].weight = a->forward[i].weight;
        }
        /* more than AWS takes: passed on whole so its limit answers */
        out->nforward = a->nforward < SC_ELBV2_MAX_FORWARD ? a->nforward : SC_ELBV2_MAX_FORWARD;
        break;
    case SIM_ALB_FIXED_RESPONSE:
        out->type = SC_ELBV2_ACTION_FIXED_RESPONSE;
        out->fixed_status = a->status;
        out->fixed_content_type = a->content_type;
        out->fixed_body = a->body;
        break;
    case SIM_ALB_REDIRECT:
        out->type = SC_ELBV2_ACTION_REDIRECT;
        out->redirect_protocol = a->r_protocol;
        out->redirect_port = a->r_port;
        out->redirect_host = a->r_host;
        out->redirect_path = a->r_path;
        out->redirect_query = a->r_query;
        out->redirect_status = a->status;
        break;
    }
}

static int setup_tgs(struct eng *e)
{
    const struct sim_scenario *sc = e->sc;
    const struct sc_ec2_vpc *vpc = sc_ec2_default_vpc(e->ec2);

    for (int i = 0; i < sc->ntgs; i++) {
        const struct sim_tg *t = &sc->tgs[i];
        struct sc_elbv2_tg_req r = { 0 };
        struct sc_elbv2_kv kv[3];
        char dd[16], ss[16];
        const struct sc_elbv2_tg *g;
        struct sc_error err = { 0 };
        int n = 0;

        r.name = t->name;
        r.protocol = t->protocol;
        r.has_port = 1;
        r.port = t->port;
        r.vpc_id = vpc ? vpc->vpc_id : NULL;
        r.hc.protocol = t->hc_protocol;
        r.hc.port = t->hc_port;
        r.hc.path = t->hc_path;
        r.hc.matcher = t->hc_matcher;
        r.hc.has_interval = t->has_interval;
        r.hc.interval_s = t->interval_s;
        r.hc.has_timeout = t->has_timeout;
        r.hc.timeout_s = t->timeout_s;
        r.hc.has_healthy = t->has_healthy;
        r.hc.healthy_threshold = t->healthy_threshold;
        r.hc.has_unhealthy = t->has_unhealthy;
        r.hc.unhealthy_threshold = t->unhealthy_threshold;
        if (sc_elbv2_create_target_group(e->elbv2, &r, e->now_ms, &g, &err) != SC_OK)
            return alb_fail(e, t->path, &err);
        snprintf(e->tgs[i].arn, sizeof(e->tgs[i].arn), "%s", g->arn);
        e->tgs[i].alb = -1;
        e->tgs[i].hc_interval_ms = (int64_t)g->hc.interval_s * 1000;
        if (e->tgs[i].hc_interval_ms <= 0)
            e->tgs[i].hc_interval_ms = 30000;
        e->tgs[i].hc_next_ms = e->start_ms + e->tgs[i].hc_interval_ms;
        e->tgs[i].http = g->hc.protocol && strcmp(g->hc.protocol, "TCP") != 0;
        e->tgs[i].port_ok =
            !g->hc.port || strcmp(g->hc.port, "traffic-port") == 0 || atoi(g->hc.port) == g->port;
        if (t->has_deregistration_delay) {
            snprintf(dd, sizeof(dd), "%d", t->deregistration_delay_s);
            kv[n].key = "deregistration_delay.timeout_seconds";
            kv[n++].value = dd;
        }
        if (t->has_slow_start) {
            snprintf(ss, sizeof(ss), "%d", t->slow_start_s);
            kv[n].key = "slow_start.duration_seconds";
            kv[n++].value = ss;
        }
        if (t->algorithm) {
            kv[n].key = "load_balancing.algorithm.type";
            kv[n++].value = t->algorithm;
        }
        if (n &&
            sc_elbv2_modify_attributes(e->elbv2, e->tgs[i].arn, kv, n, e->now_ms, &err) != SC_OK)
            return alb_fail(e, t->path, &err);
    }
    return 0;
}

static int to_conditions(struct eng *e, const struct sim_alb_rule *r, struct sc_elbv2_condition *c)
{
    char p[SIM_PATH_MAX + 48];

    for (int k = 0; k < r->nconditions && k < SC_ELBV2_MAX_CONDITIONS; k++) {
        const struct sim_alb_condition *s = &r->conditions[k];
        memset(&c[k], 0, sizeof(c[k]));
        c[k].field = (enum sc_elbv2_field)s->field;
        c[k].header_name = s->header_name;
        if (s->nvalues > SC_ELBV2_MAX_VALUES) {
            snprintf(p, sizeof(p), "%s.conditions.%s", r->path, sc_elbv2_field_name(c[k].field));
            snprintf(e->err, sizeof(e->err),
                     "%s: ValidationError: A condition can have at most %d values", p,
                     SC_ELBV2_MAX_VALUES);
            return 2;
        }
        for (int v = 0; v < s->nvalues; v++) {
            c[k].values[v] = s->values[v];
            c[k].query_keys[v] = s->query_keys ? s->query_keys[v] : NULL;
        }
        c[k].nvalues = s->nvalues;
    }
    return 0;
}

static int setup_albs(struct eng *e)
{
    const struct sim_scenario *sc = e->sc;

    for (int i = 0; i < sc->nalbs; i++) {
        const struct sim_alb *b = &sc->albs[i];
        const char *subnets[SC_WORLD_MAX_ZONES];
        char **zones = b->nzones ? b->zones : sc->zones;
        int nz = b->nzones ? b->nzones : sc->nzones, ns = 0;
        struct sc_elbv2_lb_req lr = { 0 };
        const struct sc_elbv2_lb *v;
        struct sc_error err = { 0 };
        char p[SIM_PATH_MAX + 16];

        for (int z = 0; z < nz && ns < SC_WORLD_MAX_ZONES; z++) {
            const struct sc_ec2_subnet *sn = sc_ec2_default_subnet(e->ec2, zones[z]);
            if (!sn) {
                snprintf(e->err, sizeof(e->err), "%s.zones: no zone \"%s\" in the region", b->path,
                         zones[z]);
                return 2;
            }
            subnets[ns++] = sn->subnet_id;
        }
        lr.name = b->name;
        lr.type = "application";
        lr.subnets = subnets;
        lr.nsubnets = ns;
        if (sc_elbv2_create_load_balancer(e->elbv2, &lr, e->now_ms, &v, &err) != SC_OK)
            return alb_fail(e, b->path, &err);
        snprintf(e->alb_arns[i], sizeof(e->alb_arns[i]), "%s", v->arn);
        for (int j = 0; j < b->nlisteners; j++) {
            const struct sim_alb_listener *sl = &b->listeners[j];
            struct sc_elbv2_listener_req li = { 0 };
            struct sc_elbv2_action a;
            const struct sc_elbv2_listener *l;

            to_action(e, &sl->default_action, &a);
            li.load_balancer_arn = e->alb_arns[i];
            li.protocol = sl->protocol;
            li.has_port = 1;
            li.port = sl->port;
            li.actions = &a;
            li.nactions = 1;
            if (sc_elbv2_create_listener(e->elbv2, &li, e->now_ms, &l, &err) != SC_OK)
                return alb_fail(e, sl->path, &err);
            snprintf(p, sizeof(p), "%s", l->arn);
            for (int k = 0; k < sl->nrules; k++) {
                const struct sim_alb_rule *r = &sl->rules[k];
                struct sc_elbv2_condition conds[SC_ELBV2_MAX_CONDITIONS];
                struct sc_elbv2_rule_req rr = { 0 };
                int rc = to_conditions(e, r, conds);

                if (rc)
                    return rc;
                to_action(e, &r->action, &a);
                rr.listener_arn = p;
                rr.has_priority = 1;
                rr.priority = r->priority;
                rr.conditions = conds;
                rr.nconditions = r->nconditions < SC_ELBV2_MAX_CONDITIONS ? r->nconditions
                                                                          : SC_ELBV2_MAX_CONDITIONS;
                rr.actions = &a;
                rr.nactions = 1;
                if (sc_elbv2_create_rule(e->elbv2, &rr, e->now_ms, NULL, &err) != SC_OK)
                    return alb_fail(e, r->path, &err);
            }
        }
    }
    /* a target group's traffic counts for the first load balancer forwarding to it */
    for (int t = 0; t < sc->ntgs; t++) {
        const struct sc_elbv2_tg *g = sc_elbv2_tg_find(e->elbv2, e->tgs[t].arn);
        for (int i = 0; g && i < sc->nalbs && e->tgs[t].alb < 0; i++)
            for (int k = 0; k < g->nload_balancer_arns; k++)
                if (strcmp(g->load_balancer_arns[k], e->alb_arns[i]) == 0)
                    e->tgs[t].alb = i;
    }
    return 0;
}

int alb_setup(struct eng *e)
{
    const struct sim_scenario *sc = e->sc;
    int rc;

    e->elbv2 = sc_world_elbv2(e->w);
    e->tgs = cm_xcalloc((size_t)sc->ntgs + 1, sizeof(*e->tgs));
    e->alb_arns = cm_xcalloc((size_t)sc->nalbs + 1, sizeof(*e->alb_arns));
    rc = setup_tgs(e);
    if (!rc)
        rc = setup_albs(e);
    for (int g = 0; g < sc->ngroups; g++)
        for (int j = 0; j < sc->groups[g].ntarget_groups; j++)
            e->tgs[sim_scenario_tg_index(sc, sc->groups[g].target_groups[j])].ngroups_behind++;
    return rc;
}

const char *alb_label(struct eng *e, const char *label, char *buf, size_t cap)
{
    char lb[SC_ELBV2_NAME_LEN + 1], tg[SC_ELBV2_NAME_LEN + 1];
    int b, t, n = 0;

    if (!label || sscanf(label, "app/%32[^/]/targetgroup/%32[^/]%n", lb, tg, &n) != 2 ||
        label[n] != '\0')
        return label;
    b = sim_scenario_alb_index(e->sc, lb);
    t = sim_scenario_tg_index(e->sc, tg);
    if (b < 0 || t < 0 || !e->alb_arns[b][0] || !e->tgs[t].arn[0])
        return label;
    snprintf(buf, cap, "%s/%s", sc_elbv2_arn_dimension(e->alb_arns[b]),
             sc_elbv2_arn_dimension(e->tgs[t].arn));
    return buf;
}

const char *alb_dimension(struct eng *e, const char *name, const char *value, char *buf, size_t cap)
{
    int i;

    if (!name || !value)
        return value;
    if (strcmp(name, "LoadBalancer") == 0 && strncmp(value, "app/", 4) == 0 &&
        (i = sim_scenario_alb_index(e->sc, value + 4)) >= 0 && e->alb_arns[i][0]) {
        snprintf(buf, cap, "%s", sc_elbv2_arn_dimension(e->alb_arns[i]));
        return buf;
    }
    if (strcmp(name, "TargetGroup") == 0 && strncmp(value, "targetgroup/", 12) == 0 &&
        (i = sim_scenario_tg_index(e->sc, value + 12)) >= 0 && e->tgs[i].arn[0]) {
        snprintf(buf, cap, "%s", sc_elbv2_arn_dimension(e->tgs[i].arn));
        return buf;
    }
    return value;
}

/* ---- routing plan ---- */

/* The request kind as the listener sees it; ip/hdrs are the caller's storage. */
static void to_request(const struct sim_request *q, const char *dns,
                       struct sc_elbv2_http_header *hdrs, struct sc_elbv2_http_request *out)
{
    const char *host = q && q->host ? q->host : dns;
    const char *method = q ? q->method : "GET", *path = q ? q->path : "/",
               *query = q ? q->query : "";
    const char *ip = q ? q->source_ip : "198.51.100.10";

    memset(out, 0, sizeof(*out));
    out->method = method;
    out->method_len = strlen(method);
    out->path = path;
    out->path_len = strlen(path);
    out->query = query;
    out->query_len = strlen(query);
    out->host = host;
    out->host_len = strlen(host);
    for (int h = 0; q && h < q->nheaders; h++) {
        hdrs[h].name = q->header_kv[2 * h];
        hdrs[h].name_len = strlen(hdrs[h].name);
        hdrs[h].value = q->header_kv[2 * h + 1];
        hdrs[h].value_len = strlen(hdrs[h].value);
    }
    out->headers = hdrs;
    out->nheaders = q ? q->nheaders : 0;
    if (inet_pton(AF_INET, ip, out->source.addr) == 1) {
        out->source.family = 4;
        out->source.prefix = 32;
    } else if (inet_pton(AF_INET6, ip, out->source.addr) == 1) {
        out->source.family = 6;
        out->source.prefix = 128;
    }
}

/* The route of the ALB's own answer (made on first use). */
static int answer_route(struct eng *e, int alb, int status, enum answer_kind kind)
{
    for (int i = 0; i < e->nanswers; i++)
        if (e->answers[i].alb == alb && e->answers[i].status == status &&
            e->answers[i].kind == kind)
            return e->sc->nlbs + e->sc->ntgs + i;
    e->answers = cm_xrealloc(e->answers, ((size_t)e->nanswers + 1) * sizeof(*e->answers));
    memset(&e->answers[e->nanswers], 0, sizeof(e->answers[0]));
    e->answers[e->nanswers].alb = alb;
    e->answers[e->nanswers].status = status;
    e->answers[e->nanswers].kind = kind;
    return e->sc->nlbs + e->sc->ntgs + e->nanswers++;
}

static void add_split(struct eng *e, int phase, int route, double share, int *cap)
{
    if (share <= 0)
        return;
    for (int i = 0; i < e->nsplits; i++)
        if (e->splits[i].phase == phase && e->splits[i].route == route) {
            e->splits[i].share += share;
            return;
        }
    if (e->nsplits == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        e->splits = cm_xrealloc(e->splits, (size_t)*cap * sizeof(*e->splits));
    }
    e->splits[e->nsplits].phase = phase;
    e->splits[e->nsplits].route = route;
    e->splits[e->nsplits++].share = share;
}

int alb_plan(struct eng *e)
{
    const struct sim_scenario *sc = e->sc;
    int cap = 0;

    for (int i = 0; i < sc->nphases; i++) {
        const struct sim_phase *ph = &sc->phases[i];
        int b = sim_scenario_alb_index(sc, ph->target), nq, first = e->nsplits;
        const struct sc_elbv2_listener *l = NULL;
        const struct sc_elbv2_lb *v;
        double total = 0;

        if (b < 0)
            continue;
        v = sc_elbv2_lb_find(e->elbv2, e->alb_arns[b]);
        for (int k = 0; k < sc_elbv2_listener_count(e->elbv2); k++) {
            const struct sc_elbv2_listener *x = sc_elbv2_listener_at(e->elbv2, k);
            if (strcmp(x->load_balancer_arn, e->alb_arns[b]) != 0)
                continue;
            if (ph->listener_port ? x->port == ph->listener_port : !l)
                l = x;
        }
        if (!l || !v) {
            snprintf(e->err, sizeof(e->err), "%s.target: ALB \"%s\" has no listener", ph->path,
                     ph->target);
            return 2;
        }
        nq = ph->nrequests ? ph->nrequests : 1;
        for (int q = 0; q < nq; q++)
            total += ph->requests ? ph->requests[q].weight : 1;
        for (int q = 0; q < nq; q++) {
            const struct sim_request *rq = ph->requests ? &ph->requests[q] : NULL;
            struct sc_elbv2_http_header hdrs[64];
            struct sc_elbv2_http_request req;
            struct sc_elbv2_route rt;
            double w = (rq ? rq->weight : 1) / total;

            if (rq && rq->nheaders > 64) {
                snprintf(e->err, sizeof(e->err), "%s.requests[%d].headers: at most 64", ph->path,
                         q);
                return 2;
            }
            to_request(rq, v->dns_name, hdrs, &req);
            sc_elbv2_route(l, &req, 0, &rt);
            if (rt.type == SC_ELBV2_ACTION_FORWARD && rt.action && rt.action->nforward > 0) {
                /* a weighted forward: each group by its weight (all 0: AWS answers 503) */
                double tw = 0;
                for (int f = 0; f < rt.action->nforward; f++)
                    tw += rt.action->forward[f].weight;
                if (tw <= 0)
                    add_split(e, i, answer_route(e, b, 503, ANSWER_NO_TARGET), w, &cap);
                for (int f = 0; tw > 0 && f < rt.action->nforward; f++) {
                    int t = -1;
                    for (int k = 0; k < sc->ntgs; k++)
                        if (strcmp(e->tgs[k].arn, rt.action->forward[f].target_group_arn) == 0)
                            t = k;
                    if (t >= 0)
                        add_split(e, i, sc->nlbs + t, w * rt.action->forward[f].weight / tw, &cap);
                }
            } else if (rt.type == SC_ELBV2_ACTION_FORWARD) {
                int t = -1;
                for (int k = 0; rt.target_group_arn && k < sc->ntgs; k++)
                    if (strcmp(e->tgs[k].arn, rt.target_group_arn) == 0)
                        t = k;
                add_split(e, i, t >= 0 ? sc->nlbs + t : answer_route(e, b, 503, ANSWER_NO_TARGET),
                          w, &cap);
            } else {
                add_split(e, i,
                          answer_route(e, b, rt.status,
                                       rt.type == SC_ELBV2_ACTION_REDIRECT ? ANSWER_REDIRECT
                                                                           : ANSWER_FIXED),
                          w, &cap);
            }
        }
        if (ph->closed &&
            (e->nsplits - first != 1 || e->splits[first].route >= sc->nlbs + sc->ntgs)) {
            snprintf(e->err, sizeof(e->err),
                     "%s: a closed-model phase on an ALB must send all its requests to one "
                     "target group (the simulator does not split clients)",
                     ph->path);
            return 2;
        }
    }
    e->answer_status = cm_xcalloc((size_t)sc->ntgs + (size_t)e->nanswers + 1, sizeof(int));
    for (int i = 0; i < e->nanswers; i++)
        e->answer_status[sc->ntgs + i] = e->answers[i].status;
    return 0;
}

/* ---- data plane ---- */

/* When target (id, port) of group tg entered slow start (libscaler's record), -1: not. */
static int64_t slow_start_since(struct eng *e, const char *tg, const char *id, int port)
{
    int n = sc_elbv2_target_count(e->elbv2, tg);

    for (int i = 0; i < n; i++) {
        struct sc_elbv2_target_health th;

        if (sc_elbv2_target_at(e->elbv2, tg, i, &th) == 0 && th.port == port &&
            strcmp(th.id, id) == 0)
            return th.slow_start_since_ms;
    }
    return -1;
}

void alb_sync_routes(struct eng *e)
{
    for (int t = 0; t < e->sc->ntgs; t++) {
        struct tg_state *ts = &e->tgs[t];
        int all = sc_elbv2_route_set(e->elbv2, ts->arn, NULL, NULL, 0), n, k = 0;
        struct sc_elbv2_balancing bal;

        if (all < 0 || sc_elbv2_tg_balancing(e->elbv2, ts->arn, &bal) != 0)
            continue;
        if (all > ts->cap) {
            ts->cap = all * 2;
            ts->ids = cm_xrealloc(ts->ids, (size_t)ts->cap * sizeof(*ts->ids));
            ts->ports = cm_xrealloc(ts->ports, (size_t)ts->cap * sizeof(*ts->ports));
            ts->slots = cm_xrealloc(ts->slots, (size_t)ts->cap * sizeof(*ts->slots));
            ts->last = cm_xrealloc(ts->last, (size_t)ts->cap * sizeof(*ts->last));
            ts->since = cm_xrealloc(ts->since, (size_t)ts->cap * sizeof(*ts->since));
            ts->last_since = cm_xrealloc(ts->last_since, (size_t)ts->cap * sizeof(*ts->last_since));
            ts->nlast = -1;
        }
        n = sc_elbv2_route_set(e->elbv2, ts->arn, ts->ids, ts->ports, ts->cap);
        for (int i = 0; i < n && i < ts->cap; i++) {
            int slot = sim_model_instance_find(e->model, ts->ids[i]);
            if (slot < 0)
                continue;
            /* slow start's share is the model's, from the time libscaler's health result
             * put the target in it (docs/elbv2.md 10.2) */
            ts->since[k] =
                bal.slow_start_ms > 0 ? slow_start_since(e, ts->arn, ts->ids[i], ts->ports[i]) : -1;
            ts->slots[k++] = slot;
        }
        /* unchanged: the model keeps its aggregates */
        if (k == ts->nlast && bal.slow_start_ms == ts->last_ss_ms &&
            (int)bal.algorithm == ts->last_alg &&
            (k == 0 || (memcmp(ts->slots, ts->last, (size_t)k * sizeof(int)) == 0 &&
                        memcmp(ts->since, ts->last_since, (size_t)k * sizeof(int64_t)) == 0)))
            continue;
        if (k) {
            memcpy(ts->last, ts->slots, (size_t)k * sizeof(int));
            memcpy(ts->last_since, ts->since, (size_t)k * sizeof(int64_t));
        }
        ts->nlast = k;
        ts->last_ss_ms = bal.slow_start_ms;
        ts->last_alg = (int)bal.algorithm;
        sim_model_set_target_group_routes(e->model, e->sc->nlbs + t, ts->slots, ts->since, k,
                                          bal.algorithm, bal.slow_start_ms);
    }
}

int alb_health_checks(struct eng *e, int tg)
{
    struct tg_state *ts = &e->tgs[tg];
    int n = sc_elbv2_target_count(e->elbv2, ts->arn), reported = 0;

    for (int i = 0; i < n; i++) {
        struct sc_elbv2_target_health th;
        enum sc_elbv2_hc_result r;
        int slot, ok, was, now;

        if (sc_elbv2_target_at(e->elbv2, ts->arn, i, &th) != 0 || !th.checked)
            continue;
        slot = sim_model_instance_find(e->model, th.id);
        ok = slot >= 0 && ts->port_ok && sim_model_instance_health(e->model, slot, ts->http);
        /* a dead process refuses the connection; a hung or full one does not answer in time
         * (the modelled app answers 200 on every path) */
        r = ok ? SC_ELBV2_HC_OK
            : slot < 0 || sim_model_instance_dead(e->model, slot) || !ts->port_ok
                ? SC_ELBV2_HC_FAILED
                : SC_ELBV2_HC_TIMEOUT;
        was = th.state == SC_ELBV2_HEALTHY;
        now = sc_elbv2_health_result(e->elbv2, ts->arn, th.id, th.port, r, ok ? 200 : 0, e->now_ms);
        reported = 1;
        if ((now == 1) != was)
            e->routes_dirty = 1;
    }
    if (reported)
        e->epoch++;
    return reported;
}

static double whole(double x)
{
    return floor(x + 0.5);
}

void alb_metrics_minute(struct eng *e)
{
    const struct sim_scenario *sc = e->sc;
    int64_t ts = e->now_ms - 60000;
    struct sc_elbv2_tg_traffic *tt = cm_xcalloc((size_t)sc->ntgs + 1, sizeof(*tt));

    for (int b = 0; b < sc->nalbs; b++) {
        struct sc_elbv2_traffic t = { 0 };
        int n = 0;

        for (int g = 0; g < sc->ntgs; g++) {
            struct tg_state *s = &e->tgs[g];
            struct sim_lb_counters c;
            double done, fail;
            if (s->alb != b)
                continue;
            sim_model_lb_counters(e->model, sc->nlbs + g, &c);
            done = c.completed - s->min_snap.completed;
            fail = c.failed - s->min_snap.failed;
            memset(&tt[n], 0, sizeof(tt[n]));
            tt[n].target_group_arn = s->arn;
            tt[n].requests = whole(done + fail);
            tt[n].target_2xx = whole(done);
            tt[n].resp_time_sum_s = (c.latency_sum_us - s->min_snap.latency_sum_us) / 1e6;
            tt[n].resp_count = done;
            n++;
            /* failures the model makes: no routable target, a full queue, a dead or hung
             * instance: the load balancer's 5XX (503 for the first two) */
            t.elb_5xx += whole(fail);
            t.elb_503 += whole(fail);
            s->min_snap = c;
        }
        for (int a = 0; a < e->nanswers; a++) {
            struct answer_route *ar = &e->answers[a];
            struct sim_lb_counters c;
            double k;
            if (ar->alb != b)
                continue;
            sim_model_lb_counters(e->model, sc->nlbs + sc->ntgs + a, &c);
            k = whole(c.arrived - ar->min_snap.arrived);
            ar->min_snap = c;
            if (ar->kind == ANSWER_REDIRECT) {
                t.redirects += k;
                t.elb_3xx += k;
                continue;
            }
            if (ar->kind == ANSWER_NO_TARGET) { /* every weight 0: AWS's own 503 */
                t.elb_5xx += k;
                t.elb_503 += k;
                continue;
            }
            t.fixed_responses += k;
            if (ar->status >= 500)
                t.elb_5xx += k;
            else if (ar->status >= 400)
                t.elb_4xx += k;
            else if (ar->status >= 300)
                t.elb_3xx += k;
            if (ar->status == 503)
                t.elb_503 += k;
        }
        t.tgs = tt;
        t.ntgs = n;
        sc_elbv2_report_minute(e->elbv2, e->cw, e->alb_arns[b], &t, ts, e->now_ms);
    }
    free(tt);
}

void alb_sample_counters(struct eng *e, double *done, double *fail, double *arrived)
{
    int n = e->sc->ntgs + e->nanswers;

    for (int i = 0; i < n; i++) {
        struct sim_lb_counters c,
            *snap = i < e->sc->ntgs ? &e->tgs[i].smp_snap : &e->answers[i - e->sc->ntgs].smp_snap;
        sim_model_lb_counters(e->model, e->sc->nlbs + i, &c);
        *done += c.completed - snap->completed;
        *fail += c.failed - snap->failed;
        *arrived += c.arrived - snap->arrived;
        if (i < e->sc->ntgs)
            e->tgs[i].smp_requests = whole(c.completed - snap->completed + c.failed - snap->failed);
        *snap = c;
    }
}

double route_group_share(const struct eng *e, int route)
{
    int n = route < e->sc->nlbs ? e->lbs[route].ngroups_behind
                                : e->tgs[route - e->sc->nlbs].ngroups_behind;

    return 1.0 / (n ? n : 1);
}

void alb_cleanup(struct eng *e)
{
    for (int i = 0; e->tgs && i < e->sc->ntgs; i++) {
        free(e->tgs[i].ids);
        free(e->tgs[i].ports);
        free(e->tgs[i].slots);
        free(e->tgs[i].last);
        free(e->tgs[i].since);
        free(e->tgs[i].last_since);
    }
    free(e->tgs);
    free(e->alb_arns);
    free(e->answers);
    free(e->splits);
    free(e->answer_status);
}
