/* scaler/sim/scenario_alb.c: the scenario's Application Load Balancers (docs/scenarios.md,
 * "Application Load Balancers"): $.infrastructure.target_groups, $.infrastructure.albs with
 * their listeners and rules, and a load phase's `requests` mix. The reader checks types,
 * keys and references; AWS's own rules (ranges, priorities, a matcher's codes, redirect
 * parts) are libscaler's, whose errors the run reports with the object's path. */
#include "scaler/sim/scenario.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/xalloc.h"
#include "scaler/elbv2.h"
#include "scaler/save.h"
#include "scaler/sim/scenario_internal.h"

static void free_strs(char **a, int n)
{
    for (int i = 0; i < n; i++)
        free(a[i]);
    free(a);
}

/* A number or a string given as "code": both read as the string AWS takes. */
static int get_code(struct ctx *c, const json_t *o, const char *path, const char *key, int required,
                    char **out)
{
    char p[SIM_PATH_MAX];
    json_t *v;
    int r = lookup(c, o, path, key, required, &v, p);

    *out = NULL;
    if (r <= 0)
        return r;
    if (json_is_integer(v)) {
        *out = cm_xasprintf("%lld", (long long)json_integer_value(v));
        return 1;
    }
    if (json_is_string(v)) {
        *out = cm_xstrdup(json_string_value(v));
        return 1;
    }
    return fail(c, p, "must be a number or a string, not %s", sc_json_type_name(v));
}

int parse_tg(struct ctx *c, const json_t *o, const char *path, struct sim_tg *tg)
{
    static const char *const keys[] = { "name",         "protocol",  "port",
                                        "health_check", "algorithm", "deregistration_delay",
                                        "slow_start",   NULL };
    static const char *const hc_keys[] = { "protocol",
                                           "port",
                                           "path",
                                           "matcher",
                                           "interval",
                                           "timeout",
                                           "healthy_threshold",
                                           "unhealthy_threshold",
                                           NULL };
    static const char *const protos[] = { "HTTP", "HTTPS", NULL };
    static const char *const algs[] = { "round_robin", "least_outstanding_requests",
                                        "weighted_random", NULL };
    char p[SIM_PATH_MAX];
    json_t *v;
    int64_t ms;
    int r, bad = 0;

    path_join(tg->path, path, "");
    bad |= check_keys(c, o, path, keys) != 0;
    bad |= get_str(c, o, path, "name", 1, NULL, &tg->name) < 0;
    bad |= get_enum(c, o, path, "protocol", 0, "HTTP", protos, &tg->protocol) < 0;
    bad |= get_int(c, o, path, "port", 0, 80, 1, 65535, &tg->port) < 0;
    bad |= get_enum(c, o, path, "algorithm", 0, NULL, algs, &tg->algorithm) < 0;
    r = get_dur(c, o, path, "deregistration_delay", 0, 0, &ms);
    bad |= r < 0;
    tg->has_deregistration_delay = r > 0;
    tg->deregistration_delay_s = (int)(ms / 1000);
    r = get_dur(c, o, path, "slow_start", 0, 0, &ms);
    bad |= r < 0;
    tg->has_slow_start = r > 0;
    tg->slow_start_s = (int)(ms / 1000);
    if (lookup(c, o, path, "health_check", 0, &v, p) > 0) {
        if (want_object(c, v, p) != 0)
            return -1;
        bad |= check_keys(c, v, p, hc_keys) != 0;
        bad |= get_enum(c, v, p, "protocol", 0, NULL, protos, &tg->hc_protocol) < 0;
        bad |= get_code(c, v, p, "port", 0, &tg->hc_port) < 0;
        bad |= get_str(c, v, p, "path", 0, NULL, &tg->hc_path) < 0;
        bad |= get_code(c, v, p, "matcher", 0, &tg->hc_matcher) < 0;
        bad |= (r = get_int(c, v, p, "interval", 0, 0, 0, 1000000, &tg->interval_s)) < 0;
        tg->has_interval = r > 0;
        bad |= (r = get_int(c, v, p, "timeout", 0, 0, 0, 1000000, &tg->timeout_s)) < 0;
        tg->has_timeout = r > 0;
        bad |= (r = get_int(c, v, p, "healthy_threshold", 0, 0, 0, 1000000,
                            &tg->healthy_threshold)) < 0;
        tg->has_healthy = r > 0;
        bad |= (r = get_int(c, v, p, "unhealthy_threshold", 0, 0, 0, 1000000,
                            &tg->unhealthy_threshold)) < 0;
        tg->has_unhealthy = r > 0;
    }
    return bad ? -1 : 0;
}

/* An action object: exactly one of forward, fixed_response, redirect. */
static int parse_action(struct ctx *c, const json_t *o, const char *path, struct sim_alb_action *a)
{
    static const char *const keys[] = { "forward", "fixed_response", "redirect", NULL };
    static const char *const fkeys[] = { "target_group", "weight", NULL };
    static const char *const xkeys[] = { "status", "content_type", "body", NULL };
    static const char *const rkeys[] = {
        "protocol", "port", "host", "path", "query", "status", NULL
    };
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];
    json_t *v;
    int given = 0, bad = 0;

    if (want_object(c, o, path) != 0)
        return -1;
    bad |= check_keys(c, o, path, keys) != 0;
    for (int k = 0; keys[k]; k++)
        given += json_object_get(o, keys[k]) != NULL;
    if (given != 1)
        return fail(c, path, "give one of \"forward\", \"fixed_response\", \"redirect\"");
    if (lookup(c, o, path, "forward", 0, &v, p) > 0) {
        a->kind = SIM_ALB_FORWARD;
        if (json_is_string(v)) {
            a->forward = cm_xcalloc(1, sizeof(*a->forward));
            a->forward[0].target_group = cm_xstrdup(json_string_value(v));
            a->forward[0].weight = 1;
            a->nforward = 1;
            return bad ? -1 : 0;
        }
        if (!json_is_array(v) || json_array_size(v) == 0)
            return fail(c, p,
                        "must be a target group's name or a non-empty list of "
                        "{\"target_group\", \"weight\"}");
        a->weighted = 1;
        a->forward = cm_xcalloc(json_array_size(v) + 1, sizeof(*a->forward));
        for (size_t i = 0; i < json_array_size(v); i++) {
            const json_t *f = json_array_get(v, i);
            struct sim_alb_forward *fw = &a->forward[a->nforward++];
            path_idx(pi, p, i);
            if (want_object(c, f, pi) != 0) {
                bad = 1;
                continue;
            }
            bad |= check_keys(c, f, pi, fkeys) != 0;
            bad |= get_str(c, f, pi, "target_group", 1, NULL, &fw->target_group) < 0;
            bad |= get_int(c, f, pi, "weight", 0, 1, 0, 999, &fw->weight) < 0;
        }
        return bad ? -1 : 0;
    }
    if (lookup(c, o, path, "fixed_response", 0, &v, p) > 0) {
        a->kind = SIM_ALB_FIXED_RESPONSE;
        if (want_object(c, v, p) != 0)
            return -1;
        bad |= check_keys(c, v, p, xkeys) != 0;
        bad |= get_code(c, v, p, "status", 1, &a->status) < 0;
        bad |= get_str(c, v, p, "content_type", 0, NULL, &a->content_type) < 0;
        bad |= get_str(c, v, p, "body", 0, NULL, &a->body) < 0;
        return bad ? -1 : 0;
    }
    lookup(c, o, path, "redirect", 0, &v, p);
    a->kind = SIM_ALB_REDIRECT;
    if (want_object(c, v, p) != 0)
        return -1;
    bad |= check_keys(c, v, p, rkeys) != 0;
    bad |= get_str(c, v, p, "protocol", 0, NULL, &a->r_protocol) < 0;
    bad |= get_code(c, v, p, "port", 0, &a->r_port) < 0;
    bad |= get_str(c, v, p, "host", 0, NULL, &a->r_host) < 0;
    bad |= get_str(c, v, p, "path", 0, NULL, &a->r_path) < 0;
    bad |= get_str(c, v, p, "query", 0, NULL, &a->r_query) < 0;
    {
        char *st = NULL;
        int r = get_code(c, v, p, "status", 1, &st);

        bad |= r < 0;
        if (r > 0) {
            path_key(pi, p, "status");
            if (strcmp(st, "301") == 0 || strcmp(st, "HTTP_301") == 0)
                a->status = cm_xstrdup("HTTP_301");
            else if (strcmp(st, "302") == 0 || strcmp(st, "HTTP_302") == 0)
                a->status = cm_xstrdup("HTTP_302");
            else
                bad |= fail(c, pi, "must be 301 or 302, is \"%s\"", st) < 0;
        }
        free(st);
    }
    return bad ? -1 : 0;
}

/* "conditions": {"path_pattern": [...], "host_header": [...], "http_request_method": [...],
 * "source_ip": [...], "http_header": {"name", "values"}, "query_string": [{"key",
 * "value"}]}: one condition per key. */
static int parse_conditions(struct ctx *c, const json_t *o, const char *path,
                            struct sim_alb_rule *r)
{
    static const char *const keys[] = {
        "path_pattern", "host_header", "http_header", "http_request_method",
        "query_string", "source_ip",   NULL
    };
    static const int fields[] = { SC_ELBV2_PATH_PATTERN, SC_ELBV2_HOST_HEADER,
                                  SC_ELBV2_HTTP_HEADER,  SC_ELBV2_HTTP_REQUEST_METHOD,
                                  SC_ELBV2_QUERY_STRING, SC_ELBV2_SOURCE_IP };
    static const char *const hkeys[] = { "name", "values", NULL };
    static const char *const qkeys[] = { "key", "value", NULL };
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];
    json_t *v;
    int bad = 0;

    if (want_object(c, o, path) != 0)
        return -1;
    bad |= check_keys(c, o, path, keys) != 0;
    r->conditions = cm_xcalloc(7, sizeof(*r->conditions));
    for (int k = 0; keys[k]; k++) {
        struct sim_alb_condition *cd;
        if (lookup(c, o, path, keys[k], 0, &v, p) <= 0)
            continue;
        cd = &r->conditions[r->nconditions++];
        cd->field = fields[k];
        if (fields[k] == SC_ELBV2_HTTP_HEADER) {
            if (want_object(c, v, p) != 0) {
                bad = 1;
                continue;
            }
            bad |= check_keys(c, v, p, hkeys) != 0;
            bad |= get_str(c, v, p, "name", 1, NULL, &cd->header_name) < 0;
            bad |= get_str_array(c, v, p, "values", 1, &cd->values, &cd->nvalues) < 0;
        } else if (fields[k] == SC_ELBV2_QUERY_STRING) {
            if (!json_is_array(v)) {
                bad |= fail(c, p, "must be an array of {\"key\", \"value\"}, not %s",
                            sc_json_type_name(v)) < 0;
                continue;
            }
            cd->values = cm_xcalloc(json_array_size(v) + 1, sizeof(char *));
            cd->query_keys = cm_xcalloc(json_array_size(v) + 1, sizeof(char *));
            for (size_t i = 0; i < json_array_size(v); i++) {
                const json_t *q = json_array_get(v, i);
                path_idx(pi, p, i);
                if (want_object(c, q, pi) != 0) {
                    bad = 1;
                    continue;
                }
                bad |= check_keys(c, q, pi, qkeys) != 0;
                bad |= get_str(c, q, pi, "key", 0, NULL, &cd->query_keys[cd->nvalues]) < 0;
                bad |= get_str(c, q, pi, "value", 1, NULL, &cd->values[cd->nvalues]) < 0;
                cd->nvalues++;
            }
        } else {
            char **vals = NULL;
            int n = 0;
            /* a bare string is one value */
            if (json_is_string(v)) {
                vals = cm_xcalloc(2, sizeof(char *));
                vals[n++] = cm_xstrdup(json_string_value(v));
            } else if (get_str_array(c, o, path, keys[k], 1, &vals, &n) < 0) {
                bad = 1;
            }
            cd->values = vals;
            cd->nvalues = n;
        }
    }
    if (r->nconditions == 0 && !bad)
        return fail(c, path,
                    "needs at least one condition (a rule without one is the "
                    "listener's default_action)");
    return bad ? -1 : 0;
}

static int parse_listener(struct ctx *c, const json_t *o, const char *path,
                          struct sim_alb_listener *l)
{
    static const char *const keys[] = { "port", "protocol", "default_action", "rules", NULL };
    static const char *const rkeys[] = { "priority", "conditions", "action", NULL };
    static const char *const protos[] = { "HTTP", NULL };
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX], pk[SIM_PATH_MAX];
    json_t *v, *arr;
    size_t n;
    int bad = 0;

    path_join(l->path, path, "");
    if (want_object(c, o, path) != 0)
        return -1;
    bad |= check_keys(c, o, path, keys) != 0;
    bad |= get_int(c, o, path, "port", 0, 80, 1, 65535, &l->port) < 0;
    bad |= get_enum(c, o, path, "protocol", 0, "HTTP", protos, &l->protocol) < 0;
    if (lookup(c, o, path, "default_action", 1, &v, p) <= 0)
        bad = 1;
    else
        bad |= parse_action(c, v, p, &l->default_action) < 0;
    if (get_obj_array(c, o, path, "rules", &arr, &n, p) < 0) {
        bad = 1;
        n = 0;
    }
    l->rules = cm_xcalloc(n + 1, sizeof(*l->rules));
    for (size_t i = 0; i < n; i++) {
        struct sim_alb_rule *r = &l->rules[l->nrules++];
        const json_t *ro = json_array_get(arr, i);
        path_idx(pi, p, i);
        path_join(r->path, pi, "");
        bad |= check_keys(c, ro, pi, rkeys) != 0;
        bad |= get_int(c, ro, pi, "priority", 1, 0, 0, 1000000, &r->priority) < 0;
        if (lookup(c, ro, pi, "conditions", 1, &v, pk) <= 0)
            bad = 1;
        else
            bad |= parse_conditions(c, v, pk, r) < 0;
        if (lookup(c, ro, pi, "action", 1, &v, pk) <= 0)
            bad = 1;
        else
            bad |= parse_action(c, v, pk, &r->action) < 0;
    }
    return bad ? -1 : 0;
}

int parse_alb(struct ctx *c, const json_t *o, const char *path, struct sim_alb *b)
{
    static const char *const keys[] = { "name", "zones", "listeners", NULL };
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];
    json_t *arr;
    size_t n;
    int bad = 0;

    path_join(b->path, path, "");
    bad |= check_keys(c, o, path, keys) != 0;
    bad |= get_str(c, o, path, "name", 1, NULL, &b->name) < 0;
    bad |= get_str_array(c, o, path, "zones", 0, &b->zones, &b->nzones) < 0;
    if (get_obj_array(c, o, path, "listeners", &arr, &n, p) < 0) {
        bad = 1;
        n = 0;
    } else if (n == 0) {
        bad |= fail(c, path, "needs at least one listener in \"listeners\"") < 0;
    }
    b->listeners = cm_xcalloc(n + 1, sizeof(*b->listeners));
    for (size_t i = 0; i < n; i++) {
        path_idx(pi, p, i);
        bad |= parse_listener(c, json_array_get(arr, i), pi, &b->listeners[b->nlisteners++]) < 0;
    }
    for (int i = 1; i < b->nlisteners; i++)
        for (int j = 0; j < i; j++)
            if (b->listeners[i].port == b->listeners[j].port) {
                path_key(pi, b->listeners[i].path, "port");
                bad |= fail(c, pi, "a second listener on port %d", b->listeners[i].port) < 0;
            }
    return bad ? -1 : 0;
}

int parse_requests(struct ctx *c, const json_t *o, const char *path, struct sim_phase *ph)
{
    static const char *const keys[] = { "weight", "method",  "path",      "query",
                                        "host",   "headers", "source_ip", NULL };
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX], ph_[SIM_PATH_MAX];
    json_t *arr, *hv;
    size_t n;
    int bad = 0;
    double total = 0;

    if (get_int(c, o, path, "listener_port", 0, 0, 1, 65535, &ph->listener_port) < 0)
        bad = 1;
    if (get_obj_array(c, o, path, "requests", &arr, &n, p) < 0)
        return -1;
    if (!arr)
        return bad ? -1 : 0;
    if (n == 0)
        return fail(c, p, "needs at least one request");
    ph->requests = cm_xcalloc(n + 1, sizeof(*ph->requests));
    for (size_t i = 0; i < n; i++) {
        struct sim_request *q = &ph->requests[ph->nrequests++];
        const json_t *qo = json_array_get(arr, i);
        path_idx(pi, p, i);
        bad |= check_keys(c, qo, pi, keys) != 0;
        bad |= get_num(c, qo, pi, "weight", 0, 1, 0, 1e9, &q->weight) < 0;
        bad |= get_str(c, qo, pi, "method", 0, "GET", &q->method) < 0;
        bad |= get_str(c, qo, pi, "path", 0, "/", &q->path) < 0;
        bad |= get_str(c, qo, pi, "query", 0, "", &q->query) < 0;
        bad |= get_str(c, qo, pi, "host", 0, NULL, &q->host) < 0;
        bad |= get_str(c, qo, pi, "source_ip", 0, "198.51.100.10", &q->source_ip) < 0;
        if (q->path && q->path[0] != '/') {
            path_key(ph_, pi, "path");
            bad |= fail(c, ph_, "must start with \"/\", is \"%s\"", q->path) < 0;
        }
        if (lookup(c, qo, pi, "headers", 0, &hv, ph_) > 0) {
            const char *k;
            json_t *hval;
            if (!json_is_object(hv)) {
                bad |= fail(c, ph_, "must be an object of name: value, not %s",
                            sc_json_type_name(hv)) < 0;
                continue;
            }
            q->header_kv = cm_xcalloc(2 * json_object_size(hv) + 1, sizeof(char *));
            json_object_foreach(hv, k, hval)
            {
                char hk[SIM_PATH_MAX];
                if (!json_is_string(hval)) {
                    path_key(hk, ph_, k);
                    bad |= fail(c, hk, "must be a string, not %s", sc_json_type_name(hval)) < 0;
                    continue;
                }
                q->header_kv[2 * q->nheaders] = cm_xstrdup(k);
                q->header_kv[2 * q->nheaders + 1] = cm_xstrdup(json_string_value(hval));
                q->nheaders++;
            }
        }
        total += q->weight;
    }
    if (!bad && total <= 0)
        return fail(c, p, "the weights add up to 0");
    return bad ? -1 : 0;
}

static void free_action(struct sim_alb_action *a)
{
    for (int i = 0; i < a->nforward; i++)
        free(a->forward[i].target_group);
    free(a->forward);
    free(a->status);
    free(a->content_type);
    free(a->body);
    free(a->r_protocol);
    free(a->r_port);
    free(a->r_host);
    free(a->r_path);
    free(a->r_query);
}

void free_albs(struct sim_scenario *sc)
{
    for (int i = 0; i < sc->ntgs; i++) {
        struct sim_tg *t = &sc->tgs[i];
        free(t->name);
        free(t->protocol);
        free(t->hc_protocol);
        free(t->hc_port);
        free(t->hc_path);
        free(t->hc_matcher);
        free(t->algorithm);
    }
    free(sc->tgs);
    for (int i = 0; i < sc->nalbs; i++) {
        struct sim_alb *b = &sc->albs[i];
        free(b->name);
        free_strs(b->zones, b->nzones);
        for (int j = 0; j < b->nlisteners; j++) {
            struct sim_alb_listener *l = &b->listeners[j];
            free(l->protocol);
            free_action(&l->default_action);
            for (int k = 0; k < l->nrules; k++) {
                struct sim_alb_rule *r = &l->rules[k];
                for (int m = 0; m < r->nconditions; m++) {
                    struct sim_alb_condition *cd = &r->conditions[m];
                    free(cd->header_name);
                    free_strs(cd->values, cd->nvalues);
                    free_strs(cd->query_keys, cd->query_keys ? cd->nvalues : 0);
                }
                free(r->conditions);
                free_action(&r->action);
            }
            free(l->rules);
        }
        free(b->listeners);
    }
    free(sc->albs);
    for (int i = 0; i < sc->nphases; i++) {
        struct sim_phase *ph = &sc->phases[i];
        for (int k = 0; k < ph->nrequests; k++) {
            struct sim_request *q = &ph->requests[k];
            free(q->method);
            free(q->path);
            free(q->query);
            free(q->host);
            free(q->source_ip);
            free_strs(q->header_kv, 2 * q->nheaders);
        }
        free(ph->requests);
    }
}
