/* scaler/sim/scenario.c: reads a scenario file into struct sim_scenario, checking it: the
 * JSON readers, the whole file and its cross-references. The parts of the file are read in
 * scenario_infra.c, scenario_load.c and scenario_expect.c. */
#include "scaler/sim/scenario.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/units.h"
#include "common/xalloc.h"
#include "scaler/asg_launch.h"
#include "scaler/civil.h"
#include "scaler/lint.h"
#include "scaler/save.h"
#include "scaler/sim/scenario_internal.h"

int fail(struct ctx *c, const char *path, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sc_lint_vfail(c->lint, path, fmt, ap);
    va_end(ap);
    return -1;
}

/* Paths are truncated at SIM_PATH_MAX - 1; out may not alias base. */
void path_join(char *out, const char *base, const char *tail)
{
    size_t nb = strlen(base), nt = strlen(tail);

    if (nb > SIM_PATH_MAX - 1)
        nb = SIM_PATH_MAX - 1;
    memcpy(out, base, nb);
    if (nt > SIM_PATH_MAX - 1 - nb)
        nt = SIM_PATH_MAX - 1 - nb;
    memcpy(out + nb, tail, nt);
    out[nb + nt] = '\0';
}

void path_key(char *out, const char *base, const char *key)
{
    sc_lint_path_key(out, SIM_PATH_MAX, base, key);
}

void path_idx(char *out, const char *base, size_t i)
{
    sc_lint_path_idx(out, SIM_PATH_MAX, base, i);
}

/* Unknown keys are errors: a typo must not silently change a scenario. Each is reported
 * (with a "did you mean") and the reader goes on, so one run names them all. */
int check_keys(struct ctx *c, const json_t *obj, const char *path, const char *const *allowed)
{
    sc_lint_check_keys(c->lint, obj, path, allowed);
    return 0;
}

int want_object(struct ctx *c, const json_t *v, const char *path)
{
    if (!json_is_object(v))
        return fail(c, path, "must be an object, not %s", sc_json_type_name(v));
    return 0;
}

/* Looks up key; returns 1 present, 0 absent (error when required), -1 error. */
int lookup(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
           json_t **out, char *p)
{
    path_key(p, path, key);
    *out = json_object_get(obj, key);
    if (!*out || json_is_null(*out)) {
        *out = NULL;
        if (required)
            return fail(c, path, "missing required key \"%s\"", key);
        return 0;
    }
    return 1;
}

int get_num(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
            double def, double lo, double hi, double *out)
{
    char p[SIM_PATH_MAX];
    json_t *v;
    int r = lookup(c, obj, path, key, required, &v, p);

    if (r <= 0) {
        *out = def;
        return r;
    }
    if (!json_is_number(v))
        return fail(c, p, "must be a number, not %s", sc_json_type_name(v));
    *out = json_number_value(v);
    if (!isfinite(*out))
        return fail(c, p, "must be finite");
    if (*out < lo)
        return fail(c, p, "must be >= %g", lo);
    if (*out > hi)
        return fail(c, p, "must be <= %g", hi);
    return 1;
}

int get_int(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
            int def, int lo, int hi, int *out)
{
    char p[SIM_PATH_MAX];
    json_t *v;
    int r = lookup(c, obj, path, key, required, &v, p);
    json_int_t x;

    if (r <= 0) {
        *out = def;
        return r;
    }
    if (!json_is_integer(v))
        return fail(c, p, "must be an integer, not %s",
                    json_is_real(v) ? "a fraction" : sc_json_type_name(v));
    x = json_integer_value(v);
    if (x < lo)
        return fail(c, p, "must be >= %d", lo);
    if (x > hi)
        return fail(c, p, "must be <= %d", hi);
    *out = (int)x;
    return 1;
}

int get_bool(struct ctx *c, const json_t *obj, const char *path, const char *key, int def, int *out)
{
    char p[SIM_PATH_MAX];
    json_t *v;
    int r = lookup(c, obj, path, key, 0, &v, p);

    if (r <= 0) {
        *out = def;
        return r;
    }
    if (!json_is_boolean(v))
        return fail(c, p, "must be a boolean, not %s", sc_json_type_name(v));
    *out = json_is_true(v);
    return 1;
}

int get_str(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
            const char *def, char **out)
{
    char p[SIM_PATH_MAX];
    json_t *v;
    int r = lookup(c, obj, path, key, required, &v, p);

    if (r <= 0) {
        *out = def ? cm_xstrdup(def) : NULL;
        return r;
    }
    if (!json_is_string(v))
        return fail(c, p, "must be a string, not %s", sc_json_type_name(v));
    if (json_string_length(v) == 0)
        return fail(c, p, "must not be empty");
    *out = cm_xstrdup(json_string_value(v));
    return 1;
}

/* One of the listed words, or an error listing them. */
int get_enum(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
             const char *def, const char *const *words, char **out)
{
    char p[SIM_PATH_MAX];
    int r = get_str(c, obj, path, key, required, def, out);

    if (r <= 0 || !*out)
        return r;
    for (const char *const *w = words; *w; w++)
        if (strcmp(*w, *out) == 0)
            return 1;
    path_key(p, path, key);
    {
        char list[256] = "";
        const char *near = sc_lint_suggest(*out, words);
        for (const char *const *w = words; *w; w++) {
            if (list[0])
                strncat(list, ", ", sizeof(list) - strlen(list) - 1);
            strncat(list, *w, sizeof(list) - strlen(list) - 1);
        }
        /* a typo names the word it is one of, as an unknown key does */
        if (near)
            fail(c, p, "must be one of %s, not \"%s\" (did you mean \"%s\"?)", list, *out, near);
        else
            fail(c, p, "must be one of %s, not \"%s\"", list, *out);
    }
    free(*out);
    *out = NULL;
    return -1;
}

int parse_duration_value(struct ctx *c, const json_t *v, const char *p, int64_t *out)
{
    if (json_is_number(v)) {
        double s = json_number_value(v);
        if (!isfinite(s) || s < 0)
            return fail(c, p, "must be >= 0");
        if (s > 9.0e12)
            return fail(c, p, "is too large");
        *out = (int64_t)llround(s * 1000.0);
        return 0;
    }
    if (json_is_string(v)) {
        int64_t us;
        const char *s = json_string_value(v);
        if (s[0] == '-')
            return fail(c, p, "must be >= 0");
        if (cm_duration_parse_us(s, CM_UNIT_S, &us) != 0)
            return fail(c, p, "not a duration: \"%s\" (use 90s, 10m, 30h)", s);
        *out = us / 1000;
        return 0;
    }
    return fail(c, p, "must be a duration (\"90s\", \"10m\", \"30h\" or seconds), not %s",
                sc_json_type_name(v));
}

int get_dur(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
            int64_t def, int64_t *out)
{
    char p[SIM_PATH_MAX];
    json_t *v;
    int r = lookup(c, obj, path, key, required, &v, p);

    if (r <= 0) {
        *out = def;
        return r;
    }
    if (parse_duration_value(c, v, p, out) != 0)
        return -1;
    return 1;
}

/* An array of non-empty strings (possibly absent). */
int get_str_array(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
                  char ***out, int *n)
{
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];
    json_t *v, *e;
    size_t i;
    int r = lookup(c, obj, path, key, required, &v, p);

    *out = NULL;
    *n = 0;
    if (r <= 0)
        return r;
    if (!json_is_array(v))
        return fail(c, p, "must be an array, not %s", sc_json_type_name(v));
    *out = cm_xcalloc(json_array_size(v) + 1, sizeof(char *));
    json_array_foreach(v, i, e)
    {
        path_idx(pi, p, i);
        if (!json_is_string(e))
            return fail(c, pi, "must be a string, not %s", sc_json_type_name(e));
        if (json_string_length(e) == 0)
            return fail(c, pi, "must not be empty");
        (*out)[(*n)++] = cm_xstrdup(json_string_value(e));
    }
    return 1;
}

static void free_str_array(char **a, int n)
{
    for (int i = 0; i < n; i++)
        free(a[i]);
    free(a);
}

/* An array of objects: returns its size in *n (0 when absent) and the array in *arr. */
int get_obj_array(struct ctx *c, const json_t *obj, const char *path, const char *key, json_t **arr,
                  size_t *n, char *p)
{
    json_t *v;
    int r = lookup(c, obj, path, key, 0, &v, p);

    *arr = NULL;
    *n = 0;
    if (r <= 0)
        return r;
    if (!json_is_array(v))
        return fail(c, p, "must be an array, not %s", sc_json_type_name(v));
    for (size_t i = 0; i < json_array_size(v); i++) {
        char pi[SIM_PATH_MAX];
        path_idx(pi, p, i);
        if (want_object(c, json_array_get(v, i), pi) != 0)
            return -1;
    }
    *arr = v;
    *n = json_array_size(v);
    return 1;
}

/* ---- the whole file ---- */

static int parse_start(struct ctx *c, const json_t *o, int64_t *out)
{
    char p[SIM_PATH_MAX] = "$.start";
    json_t *v = json_object_get(o, "start");
    const char *s;

    *out = 1767225600000LL; /* 2026-01-01T00:00:00Z */
    if (!v)
        return 0;
    if (!json_is_string(v))
        return fail(c, p, "must be a string (2026-01-01T00:00:00Z), not %s", sc_json_type_name(v));
    s = json_string_value(v);
    if (sc_civil_parse_iso(s, out) != 0)
        return fail(c, p, "not a UTC time like 2026-01-01T00:00:00Z: \"%s\"", s);
    return 0;
}

#include <stddef.h>
_Static_assert(offsetof(struct sim_lb, name) == SIM_PATH_MAX, "path then name");
_Static_assert(offsetof(struct sim_launch_config, name) == SIM_PATH_MAX, "path then name");
_Static_assert(offsetof(struct sim_group, name) == SIM_PATH_MAX, "path then name");
_Static_assert(offsetof(struct sim_policy, name) == SIM_PATH_MAX, "path then name");
_Static_assert(offsetof(struct sim_alarm, name) == SIM_PATH_MAX, "path then name");
_Static_assert(offsetof(struct sim_composite, name) == SIM_PATH_MAX, "path then name");
_Static_assert(offsetof(struct sim_tg, name) == SIM_PATH_MAX, "path then name");
_Static_assert(offsetof(struct sim_alb, name) == SIM_PATH_MAX, "path then name");

/* The name (of n objects stride bytes apart from base, each a path then a name) closest
 * to word, for a "did you mean"; NULL when none is close. */
static const char *near_name(const char *word, int n, size_t stride, const void *base)
{
    const char **names;
    const char *near;

    if (!word || n <= 0)
        return NULL;
    names = cm_xcalloc((size_t)n, sizeof(*names));
    for (int i = 0; i < n; i++)
        names[i] = *(char *const *)((const char *)base + (size_t)i * stride + SIM_PATH_MAX);
    near = sc_lint_suggest_n(word, names, n);
    free(names);
    return near;
}

#define NEAR(arr, count, word) near_name((word), sc->count, sizeof(*sc->arr), sc->arr)

/* " (did you mean "x"?)" or "". */
static const char *dym(char *buf, size_t cap, const char *near)
{
    if (!near)
        return "";
    snprintf(buf, cap, " (did you mean \"%s\"?)", near);
    return buf;
}

static void check_unique(struct ctx *c, const char *kind, int n, size_t stride, const char *base)
{
    for (int i = 0; i < n; i++) {
        const char *pi = base + (size_t)i * stride;
        const char *ni = *(char *const *)(pi + SIM_PATH_MAX);
        if (!ni)
            continue; /* its "name" is already an error */
        for (int j = 0; j < i; j++) {
            const char *nj = *(char *const *)(base + (size_t)j * stride + SIM_PATH_MAX);
            if (nj && strcmp(ni, nj) == 0) {
                char p[SIM_PATH_MAX];
                path_key(p, pi, "name");
                fail(c, p, "a second %s named \"%s\"", kind, ni);
                break;
            }
        }
    }
}

/* A dimension that names a group or load balancer (AutoScalingGroupName, LoadBalancerName)
 * must name one of the scenario's: else the alarm or policy reads a series nothing writes
 * and never gets data. AWS accepts such a dimension, so --lenient makes it a warning. */
static void check_dimension(struct ctx *c, const struct sim_scenario *sc, const char *path,
                            const char *name, const char *value)
{
    char p[SIM_PATH_MAX], buf[SIM_PATH_MAX + 32];
    const char *kind, *near;

    if (!name || !value)
        return;
    if (strcmp(name, "AutoScalingGroupName") == 0) {
        if (sim_scenario_group_index(sc, value) >= 0)
            return;
        kind = "group";
        near = NEAR(groups, ngroups, value);
    } else if (strcmp(name, "LoadBalancerName") == 0) {
        if (sim_scenario_lb_index(sc, value) >= 0)
            return;
        kind = "load balancer";
        near = NEAR(lbs, nlbs, value);
    } else {
        return;
    }
    path_key(p, path, name);
    if (c->lenient)
        sc_lint_warn(c->lint, p, "\"%s\" names no %s of the scenario%s: it never gets data", value,
                     kind, dym(buf, sizeof(buf), near));
    else
        fail(c, p, "\"%s\" names no %s of the scenario%s", value, kind,
             dym(buf, sizeof(buf), near));
}

static void check_dimensions(struct ctx *c, const struct sim_scenario *sc)
{
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX], pd[SIM_PATH_MAX];

    for (int i = 0; i < sc->nalarms; i++) {
        const struct sim_alarm *a = &sc->alarms[i];
        path_key(p, a->path, "dimensions");
        for (int j = 0; j < a->ndimensions; j++)
            check_dimension(c, sc, p, a->dimensions[j].name, a->dimensions[j].value);
    }
    for (int i = 0; i < sc->npolicies; i++) {
        const struct sim_policy *pl = &sc->policies[i];
        path_key(p, pl->path, "target");
        path_key(pi, p, "metrics");
        for (int j = 0; j < pl->nmetrics; j++) {
            const struct sc_alarm_query *q = &pl->metrics[j];
            path_idx(p, pi, (size_t)j);
            path_key(pd, p, "metric");
            path_key(p, pd, "dimensions");
            for (int k = 0; k < q->metric.n_dimensions; k++)
                check_dimension(c, sc, p, q->metric.dimensions[k].name,
                                q->metric.dimensions[k].value);
        }
    }
}

/* A forward's target groups must exist. */
static void check_action_refs(struct ctx *c, const struct sim_scenario *sc, const char *path,
                              const struct sim_alb_action *a)
{
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX], pk[SIM_PATH_MAX], buf[SIM_PATH_MAX + 32];

    path_key(p, path, "forward");
    for (int i = 0; i < a->nforward; i++) {
        const char *t = a->forward[i].target_group;
        if (!t || sim_scenario_tg_index(sc, t) >= 0)
            continue;
        if (a->weighted) {
            path_idx(pi, p, (size_t)i);
            path_key(pk, pi, "target_group");
        } else {
            path_join(pk, p, "");
        }
        fail(c, pk, "no target group named \"%s\"%s", t, dym(buf, sizeof(buf), NEAR(tgs, ntgs, t)));
    }
}

/* ALB names are load balancer names too (a phase's target): one namespace; forwards name
 * target groups of the scenario. */
static void check_alb_refs(struct ctx *c, const struct sim_scenario *sc)
{
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];

    for (int i = 0; i < sc->nalbs; i++) {
        const struct sim_alb *b = &sc->albs[i];
        if (b->name && sim_scenario_lb_index(sc, b->name) >= 0) {
            path_key(p, b->path, "name");
            fail(c, p, "\"%s\" is also a classic load balancer's name", b->name);
        }
        for (int j = 0; j < b->nlisteners; j++) {
            const struct sim_alb_listener *l = &b->listeners[j];
            path_key(p, l->path, "default_action");
            check_action_refs(c, sc, p, &l->default_action);
            for (int k = 0; k < l->nrules; k++) {
                path_key(pi, l->rules[k].path, "action");
                check_action_refs(c, sc, pi, &l->rules[k].action);
            }
        }
    }
}

/* A phase's "requests" and "listener_port" are for an ALB; the port must be a listener's. */
static void check_phase_alb(struct ctx *c, const struct sim_scenario *sc,
                            const struct sim_phase *ph)
{
    char p[SIM_PATH_MAX];
    int b = ph->target ? sim_scenario_alb_index(sc, ph->target) : -1, found = 0;

    if (b < 0) {
        if (ph->target && sim_scenario_lb_index(sc, ph->target) >= 0 &&
            (ph->requests || ph->listener_port)) {
            path_key(p, ph->path, ph->requests ? "requests" : "listener_port");
            fail(c, p, "only for a phase aimed at an ALB (\"%s\" is a classic load balancer)",
                 ph->target);
        }
        return;
    }
    if (!ph->listener_port)
        return;
    for (int j = 0; j < sc->albs[b].nlisteners; j++)
        found |= sc->albs[b].listeners[j].port == ph->listener_port;
    if (!found) {
        path_key(p, ph->path, "listener_port");
        fail(c, p, "ALB \"%s\" has no listener on port %d", ph->target, ph->listener_port);
    }
}

/* An alarm's or composite's actions (at path) name policies an alarm can run. */
static void check_actions(struct ctx *c, const struct sim_scenario *sc, const char *path,
                          char **actions, int nactions, char **ok_actions, int nok_actions)
{
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX], buf[SIM_PATH_MAX + 32];

    for (int j = 0; j < nactions + nok_actions; j++) {
        int ok = j >= nactions;
        const char *name = ok ? ok_actions[j - nactions] : actions[j];
        int k = sim_scenario_policy_index(sc, name);
        path_key(p, path, ok ? "ok_actions" : "actions");
        path_idx(pi, p, (size_t)(ok ? j - nactions : j));
        if (k < 0)
            fail(c, pi, "no policy named \"%s\"%s", name,
                 dym(buf, sizeof(buf), NEAR(policies, npolicies, name)));
        else if (sc->policies[k].type == SIM_POLICY_TARGET)
            fail(c, pi, "policy \"%s\" is target tracking: it makes its own alarms", name);
        else if (sc->policies[k].type == SIM_POLICY_PREDICTIVE)
            fail(c, pi, "policy \"%s\" is predictive: alarms do not run it", name);
    }
}

#define NEAR_LC(word) near_name((word), sc->nlcs - sc->nlts, sizeof(*sc->lcs), sc->lcs)

/* The zones group g is made in (as the run and loadgen make it): its own, its first load
 * balancer's, else the scenario's. */
static void group_zones(const struct sim_scenario *sc, const struct sim_group *g, char ***zones,
                        int *n)
{
    int lb = g->nload_balancers ? sim_scenario_lb_index(sc, g->load_balancers[0]) : -1;

    if (g->nzones) {
        *zones = g->zones;
        *n = g->nzones;
    } else if (lb >= 0 && sc->lbs[lb].nzones) {
        *zones = sc->lbs[lb].zones;
        *n = sc->lbs[lb].nzones;
    } else {
        *zones = sc->zones;
        *n = sc->nzones;
    }
}

/* launch_instances[k].zone must be one of the group's zones (LaunchInstances refuses any
 * other, docs/autoscaling.md 11.3): the file shows it, so it is an error before the run. */
static void check_launches(struct ctx *c, const struct sim_scenario *sc, const struct sim_group *g)
{
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX], pk[SIM_PATH_MAX], list[SIM_PATH_MAX];
    char **zones;
    int nz;
    size_t n = 0;

    group_zones(sc, g, &zones, &nz);
    list[0] = '\0';
    for (int j = 0; j < nz && n < sizeof(list); j++)
        n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", j ? ", " : "", zones[j]);
    for (int k = 0; k < g->nlaunches; k++) {
        const char *z = g->launches[k].zone;
        int found = 0;

        for (int j = 0; z && j < nz; j++)
            found |= strcmp(zones[j], z) == 0;
        if (!z || found)
            continue;
        path_key(p, g->path, "launch_instances");
        path_idx(pi, p, (size_t)k);
        path_key(pk, pi, "zone");
        fail(c, pk, "\"%s\" is not one of the group's zones (%s)", z, list);
    }
}

/* Every reference error is reported; an object whose own reading failed may have a NULL
 * name or reference, which is skipped here (it is already an error). */
static void check_refs(struct ctx *c, struct sim_scenario *sc)
{
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX], buf[SIM_PATH_MAX + 32];

    /* each struct starts with path[SIM_PATH_MAX] then char *name */
    check_unique(c, "load balancer", sc->nlbs, sizeof(*sc->lbs), (const char *)sc->lbs);
    check_unique(c, "target group", sc->ntgs, sizeof(*sc->tgs), (const char *)sc->tgs);
    check_unique(c, "ALB", sc->nalbs, sizeof(*sc->albs), (const char *)sc->albs);
    check_alb_refs(c, sc);
    check_unique(c, "launch configuration", sc->nlcs - sc->nlts, sizeof(*sc->lcs),
                 (const char *)sc->lcs);
    check_unique(c, "launch template", sc->nlts, sizeof(*sc->lcs),
                 (const char *)(sc->lcs + sc->nlcs - sc->nlts));
    check_unique(c, "group", sc->ngroups, sizeof(*sc->groups), (const char *)sc->groups);
    check_unique(c, "policy", sc->npolicies, sizeof(*sc->policies), (const char *)sc->policies);
    check_unique(c, "alarm", sc->nalarms, sizeof(*sc->alarms), (const char *)sc->alarms);
    for (int i = 0; i < sc->ngroups; i++) {
        struct sim_group *g = &sc->groups[i];
        if (g->launch_configuration && sim_scenario_lc_index(sc, g->launch_configuration) < 0) {
            path_key(p, g->path, "launch_configuration");
            fail(c, p, "no launch configuration named \"%s\"%s", g->launch_configuration,
                 dym(buf, sizeof(buf), NEAR_LC(g->launch_configuration)));
        }
        if (g->launch_template && sim_scenario_lt_index(sc, g->launch_template) < 0) {
            path_key(p, g->path, "launch_template");
            fail(c, p, "no launch template named \"%s\"%s", g->launch_template,
                 dym(buf, sizeof(buf),
                     near_name(g->launch_template, sc->nlts, sizeof(*sc->lcs),
                               sc->lcs + sc->nlcs - sc->nlts)));
        }
        check_launches(c, sc, g);
        if (g->refresh.launch_configuration &&
            sim_scenario_lc_index(sc, g->refresh.launch_configuration) < 0) {
            path_key(pi, g->path, "instance_refresh");
            path_key(p, pi, "launch_configuration");
            fail(c, p, "no launch configuration named \"%s\"%s", g->refresh.launch_configuration,
                 dym(buf, sizeof(buf), NEAR_LC(g->refresh.launch_configuration)));
        }
        for (int j = 0; j < g->ntarget_groups; j++) {
            if (sim_scenario_tg_index(sc, g->target_groups[j]) < 0) {
                path_key(p, g->path, "target_groups");
                path_idx(pi, p, (size_t)j);
                fail(c, pi, "no target group named \"%s\"%s", g->target_groups[j],
                     dym(buf, sizeof(buf), NEAR(tgs, ntgs, g->target_groups[j])));
            }
        }
        for (int j = 0; j < g->nload_balancers; j++) {
            if (sim_scenario_lb_index(sc, g->load_balancers[j]) < 0) {
                path_key(p, g->path, "load_balancers");
                path_idx(pi, p, (size_t)j);
                fail(c, pi, "no load balancer named \"%s\"%s", g->load_balancers[j],
                     dym(buf, sizeof(buf), NEAR(lbs, nlbs, g->load_balancers[j])));
            }
        }
    }
    for (int i = 0; i < sc->npolicies; i++) {
        struct sim_policy *pl = &sc->policies[i];
        if (pl->group && sim_scenario_group_index(sc, pl->group) < 0) {
            path_key(p, pl->path, "group");
            fail(c, p, "no group named \"%s\"%s", pl->group,
                 dym(buf, sizeof(buf), NEAR(groups, ngroups, pl->group)));
        }
    }
    check_unique(c, "composite alarm", sc->ncomposites, sizeof(*sc->composites),
                 (const char *)sc->composites);
    for (int i = 0; i < sc->nalarms; i++) {
        struct sim_alarm *a = &sc->alarms[i];
        check_actions(c, sc, a->path, a->actions, a->nactions, a->ok_actions, a->nok_actions);
    }
    for (int i = 0; i < sc->ncomposites; i++) {
        struct sim_composite *a = &sc->composites[i];
        check_actions(c, sc, a->path, a->actions, a->nactions, a->ok_actions, a->nok_actions);
    }
    for (int i = 0; i < sc->nphases; i++) {
        struct sim_phase *ph = &sc->phases[i];
        if (!ph->target) {
            if (sc->nlbs + sc->nalbs != 1) {
                path_key(p, ph->path, "target");
                fail(c, p,
                     sc->nlbs + sc->nalbs ? "missing: which load balancer gets the load?"
                                          : "missing: the scenario has no load balancer");
            } else if (sc->nlbs && sc->lbs[0].name) {
                ph->target = cm_xstrdup(sc->lbs[0].name);
            } else if (sc->nalbs && sc->albs[0].name) {
                ph->target = cm_xstrdup(sc->albs[0].name);
            }
        } else if (sim_scenario_lb_index(sc, ph->target) < 0 &&
                   sim_scenario_alb_index(sc, ph->target) < 0) {
            const char *near = NEAR(lbs, nlbs, ph->target);
            path_key(p, ph->path, "target");
            fail(c, p, "no load balancer named \"%s\"%s", ph->target,
                 dym(buf, sizeof(buf), near ? near : NEAR(albs, nalbs, ph->target)));
        }
        check_phase_alb(c, sc, ph);
    }
    for (int i = 0; i < sc->nfaults; i++) {
        struct sim_fault *f = &sc->faults[i];
        if (f->kind == SIM_FAULT_AZ_OUTAGE)
            continue;
        if (!f->group) {
            if (sc->ngroups != 1) {
                path_key(p, f->path, "group");
                fail(c, p, "missing: which group?");
            } else if (sc->groups[0].name) {
                f->group = cm_xstrdup(sc->groups[0].name);
            }
        } else if (sim_scenario_group_index(sc, f->group) < 0) {
            fail(c, f->path, "no group named \"%s\"%s", f->group,
                 dym(buf, sizeof(buf), NEAR(groups, ngroups, f->group)));
        }
    }
    for (int i = 0; i < sc->nexpects; i++) {
        struct sim_expect *e = &sc->expects[i];
        int needs_group = e->kind == SIM_EXPECT_IN_SERVICE || e->kind == SIM_EXPECT_DESIRED ||
                          e->kind == SIM_EXPECT_DIRECTION_CHANGES ||
                          e->kind == SIM_EXPECT_SCALE_OUT;
        if (!needs_group) {
            if (e->group) {
                path_key(p, e->path, "group");
                fail(c, p, "not used by this check (it covers every request)");
            }
            continue;
        }
        if (!e->group) {
            if (sc->ngroups != 1) {
                path_key(p, e->path, "group");
                fail(c, p, "missing: which group?");
            } else if (sc->groups[0].name) {
                e->group = cm_xstrdup(sc->groups[0].name);
            }
        } else if (sim_scenario_group_index(sc, e->group) < 0) {
            /* not softened by --lenient: the check has nothing to read */
            path_key(p, e->path, "group");
            fail(c, p, "no group named \"%s\"%s", e->group,
                 dym(buf, sizeof(buf), NEAR(groups, ngroups, e->group)));
        }
    }
    check_dimensions(c, sc);
}
#undef NEAR

/* An array of objects of the file, each read by fn; every entry is read, even after one
 * failed, so each one's errors are reported. */
/* $.infrastructure.launch_templates: read as launch configurations are (the same keys and
 * app), appended to sc->lcs with template set. */
static void parse_lts(struct ctx *c, const json_t *infra, struct sim_scenario *sc)
{
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];
    json_t *arr;
    size_t n;

    if (get_obj_array(c, infra, "$.infrastructure", "launch_templates", &arr, &n, p) <= 0 || !n)
        return;
    sc->lcs = cm_xrealloc(sc->lcs, ((size_t)sc->nlcs + n + 1) * sizeof(*sc->lcs));
    memset(&sc->lcs[sc->nlcs], 0, (n + 1) * sizeof(*sc->lcs));
    for (size_t i = 0; i < n; i++) {
        struct sim_launch_config *lt = &sc->lcs[sc->nlcs++];

        sc->nlts++;
        lt->template = 1;
        path_idx(pi, p, i);
        parse_lc(c, json_array_get(arr, i), pi, lt);
    }
}

#define PARSE_EACH(obj, path, key, field, count, call)                                             \
    do {                                                                                           \
        json_t *arr_;                                                                              \
        size_t n_;                                                                                 \
        char p_[SIM_PATH_MAX], pi[SIM_PATH_MAX];                                                   \
        if (get_obj_array(&c, obj, path, key, &arr_, &n_, p_) < 0)                                 \
            n_ = 0;                                                                                \
        sc->field = cm_xcalloc(n_ + 1, sizeof(*sc->field));                                        \
        for (size_t i = 0; i < n_; i++) {                                                          \
            json_t *o_ = json_array_get(arr_, i);                                                  \
            path_idx(pi, p_, i);                                                                   \
            sc->count++;                                                                           \
            (void)(call);                                                                          \
        }                                                                                          \
    } while (0)

struct sim_scenario *sim_scenario_parse_flags(const char *text, const char *file, int flags,
                                              char *err)
{
    static const char *const keys[] = { "name",
                                        "description",
                                        "seed",
                                        "start",
                                        "duration",
                                        "sample",
                                        "demand_target_pct",
                                        "region",
                                        "zones",
                                        "infrastructure",
                                        "load",
                                        "faults",
                                        "expect",
                                        NULL };
    static const char *const infra_keys[] = {
        "load_balancers", "target_groups", "albs",   "launch_configurations", "launch_templates",
        "groups",         "policies",      "alarms", "composite_alarms",      NULL
    };
    struct sc_lint lint;
    char warnings[SIM_ERR_MAX];
    struct ctx c = { &lint, file, (flags & SIM_SCENARIO_LENIENT) != 0 };
    struct sim_scenario *sc = cm_xcalloc(1, sizeof(*sc));
    json_error_t jerr;
    json_t *root, *infra;
    double seed = 1;
    int hd, hs;
    int64_t parse_duration_ms;

    sc_lint_init(&lint, err, SIM_ERR_MAX, warnings, sizeof(warnings));
    sc->file = cm_xstrdup(file ? file : "-");
    root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        snprintf(err, SIM_ERR_MAX, "line %d column %d: %s", jerr.line, jerr.column, jerr.text);
        goto fail;
    }
    if (want_object(&c, root, "$") != 0)
        goto fail;
    check_keys(&c, root, "$", keys);
    get_str(&c, root, "$", "name", 0, NULL, &sc->name);
    get_str(&c, root, "$", "description", 0, NULL, &sc->description);
    if (get_num(&c, root, "$", "seed", 0, 1, 0, 9007199254740991.0, &seed) >= 0) {
        if (seed != floor(seed))
            fail(&c, "$.seed", "must be a whole number");
        else
            sc->seed = (uint64_t)seed;
    }
    parse_start(&c, root, &sc->start_ms);
    hd = get_dur(&c, root, "$", "duration", 1, 0, &sc->duration_ms);
    if (hd > 0 && sc->duration_ms <= 0)
        fail(&c, "$.duration", "must be > 0");
    hs = get_dur(&c, root, "$", "sample", 0, 60000, &sc->sample_ms);
    if (hs > 0 && sc->sample_ms < 1000)
        fail(&c, "$.sample", "must be >= 1s");
    sc->has_demand_target_pct =
        get_num(&c, root, "$", "demand_target_pct", 0, 70, 1, 100, &sc->demand_target_pct) > 0;
    get_str(&c, root, "$", "region", 0, "us-east-1", &sc->region);
    get_str_array(&c, root, "$", "zones", 0, &sc->zones, &sc->nzones);
    if (!sc->name) {
        const char *base = file ? strrchr(file, '/') : NULL;
        base = base ? base + 1 : file ? file : "scenario";
        sc->name = cm_xstrndup(base, strcspn(base, "."));
    }
    if (sc->nzones == 0 && sc->region) {
        free_str_array(sc->zones, sc->nzones);
        sc->zones = cm_xcalloc(4, sizeof(char *));
        for (int i = 0; i < 3; i++)
            sc->zones[i] = cm_xasprintf("%s%c", sc->region, 'a' + i);
        sc->nzones = 3;
    }
    /* the rest is read against a duration that cannot add errors of its own when the
     * duration itself is wrong */
    parse_duration_ms = sc->duration_ms > 0 ? sc->duration_ms : INT64_MAX / 4;

    infra = json_object_get(root, "infrastructure");
    if (!infra) {
        fail(&c, "$", "missing required key \"infrastructure\"");
    } else if (want_object(&c, infra, "$.infrastructure") == 0) {
        check_keys(&c, infra, "$.infrastructure", infra_keys);
        PARSE_EACH(infra, "$.infrastructure", "load_balancers", lbs, nlbs,
                   parse_lb(&c, o_, pi, &sc->lbs[i]));
        PARSE_EACH(infra, "$.infrastructure", "target_groups", tgs, ntgs,
                   parse_tg(&c, o_, pi, &sc->tgs[i]));
        PARSE_EACH(infra, "$.infrastructure", "albs", albs, nalbs,
                   parse_alb(&c, o_, pi, &sc->albs[i]));
        PARSE_EACH(infra, "$.infrastructure", "launch_configurations", lcs, nlcs,
                   parse_lc(&c, o_, pi, &sc->lcs[i]));
        parse_lts(&c, infra, sc);
        PARSE_EACH(infra, "$.infrastructure", "groups", groups, ngroups,
                   parse_group(&c, o_, pi, &sc->groups[i]));
        PARSE_EACH(infra, "$.infrastructure", "policies", policies, npolicies,
                   parse_policy(&c, o_, pi, &sc->policies[i]));
        PARSE_EACH(infra, "$.infrastructure", "alarms", alarms, nalarms,
                   parse_alarm(&c, o_, pi, &sc->alarms[i]));
        PARSE_EACH(infra, "$.infrastructure", "composite_alarms", composites, ncomposites,
                   parse_composite(&c, o_, pi, &sc->composites[i]));
        if (sc->ngroups == 0 &&
            (!json_object_get(infra, "groups") || json_is_array(json_object_get(infra, "groups"))))
            fail(&c, "$.infrastructure.groups", "needs at least one group");
    }
    PARSE_EACH(root, "$", "load", phases, nphases,
               parse_phase(&c, o_, pi, &sc->phases[i], parse_duration_ms));
    PARSE_EACH(root, "$", "faults", faults, nfaults, parse_fault(&c, o_, pi, &sc->faults[i]));
    PARSE_EACH(root, "$", "expect", expects, nexpects,
               parse_expect(&c, o_, pi, &sc->expects[i], parse_duration_ms));
    check_refs(&c, sc);
    if (sc_lint_errors(&lint) > 0)
        goto fail;
    sc->warnings = cm_xstrdup(warnings);
    sc->nwarnings = lint.nwarnings;
    json_decref(root);
    return sc;

fail:
    sc_lint_finish(&lint);
    json_decref(root);
    sim_scenario_destroy(sc);
    return NULL;
}
#undef PARSE_EACH

struct sim_scenario *sim_scenario_parse(const char *text, const char *file, char *err)
{
    return sim_scenario_parse_flags(text, file, 0, err);
}

struct sim_scenario *sim_scenario_load_flags(const char *file, int flags, char *err)
{
    FILE *f = fopen(file, "rb");
    struct sim_scenario *sc;
    char *text;
    long len;

    if (!f) {
        snprintf(err, SIM_ERR_MAX, "cannot read: %s", strerror(errno));
        return NULL;
    }
    len = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (len < 0 || fseek(f, 0, SEEK_SET) != 0) {
        snprintf(err, SIM_ERR_MAX, "cannot read: %s", strerror(errno));
        fclose(f);
        return NULL;
    }
    text = cm_xmalloc((size_t)len + 1);
    if (fread(text, 1, (size_t)len, f) != (size_t)len) {
        snprintf(err, SIM_ERR_MAX, "cannot read: short read");
        fclose(f);
        free(text);
        return NULL;
    }
    text[len] = '\0';
    fclose(f);
    sc = sim_scenario_parse_flags(text, file, flags, err);
    free(text);
    return sc;
}

struct sim_scenario *sim_scenario_load(const char *file, char *err)
{
    return sim_scenario_load_flags(file, 0, err);
}

void sim_scenario_destroy(struct sim_scenario *sc)
{
    if (!sc)
        return;
    for (int i = 0; i < sc->nlbs; i++) {
        struct sim_lb *lb = &sc->lbs[i];
        free(lb->name);
        free_str_array(lb->zones, lb->nzones);
        for (int j = 0; j < lb->nlisteners; j++) {
            free(lb->listeners[j].protocol);
            free(lb->listeners[j].instance_protocol);
        }
        free(lb->listeners);
        free(lb->health_check.target);
    }
    free(sc->lbs);
    free_albs(sc);
    for (int i = 0; i < sc->nlcs; i++) {
        free(sc->lcs[i].name);
        free(sc->lcs[i].image_id);
        free(sc->lcs[i].instance_type);
    }
    free(sc->lcs);
    for (int i = 0; i < sc->ngroups; i++) {
        struct sim_group *g = &sc->groups[i];
        free(g->name);
        free(g->launch_configuration);
        free(g->launch_template);
        for (int k = 0; k < g->nlaunches; k++) {
            free(g->launches[k].zone);
            free(g->launches[k].retry_strategy);
            free(g->launches[k].client_token);
        }
        free(g->launches);
        free_str_array(g->zones, g->nzones);
        free_str_array(g->load_balancers, g->nload_balancers);
        free_str_array(g->target_groups, g->ntarget_groups);
        free(g->health_check_type);
        free_str_array(g->termination_policies, g->ntermination_policies);
        for (int k = 0; k < g->nhooks; k++) {
            free(g->hooks[k].name);
            free(g->hooks[k].default_result);
            free(g->hooks[k].handler_result);
        }
        free(g->hooks);
        for (int k = 0; k < g->nnotifications; k++) {
            free(g->notifications[k].topic_arn);
            free_str_array(g->notifications[k].types, g->notifications[k].ntypes);
        }
        free(g->notifications);
        if (g->warm)
            free(g->warm->pool_state);
        free(g->warm);
        for (int k = 0; k < g->nscheds; k++) {
            free(g->scheds[k].name);
            free(g->scheds[k].recurrence);
            free(g->scheds[k].time_zone);
        }
        free(g->scheds);
        free(g->refresh.launch_configuration);
        free(g->refresh.checkpoints);
    }
    free(sc->groups);
    for (int i = 0; i < sc->npolicies; i++) {
        struct sim_policy *pl = &sc->policies[i];
        free(pl->name);
        free(pl->group);
        free(pl->adjustment_type);
        free(pl->steps);
        free(pl->metric_aggregation_type);
        free(pl->predefined_metric);
        free(pl->resource_label);
        free(pl->mode);
        free(pl->breach);
        sc_alarm_queries_free(pl->metrics, pl->nmetrics);
    }
    free(sc->policies);
    for (int i = 0; i < sc->nalarms; i++) {
        struct sim_alarm *a = &sc->alarms[i];
        free(a->name);
        free(a->namespace_);
        free(a->metric);
        for (int j = 0; j < a->ndimensions; j++) {
            free(a->dimensions[j].name);
            free(a->dimensions[j].value);
        }
        free(a->dimensions);
        free(a->statistic);
        free(a->extended_statistic);
        free(a->comparison);
        free(a->treat_missing_data);
        free_str_array(a->actions, a->nactions);
        free_str_array(a->ok_actions, a->nok_actions);
        sc_alarm_queries_free(a->metrics, a->nmetrics);
        free(a->threshold_metric_id);
    }
    free(sc->alarms);
    for (int i = 0; i < sc->ncomposites; i++) {
        struct sim_composite *a = &sc->composites[i];
        free(a->name);
        free(a->alarm_rule);
        free_str_array(a->actions, a->nactions);
        free_str_array(a->ok_actions, a->nok_actions);
        free(a->actions_suppressor);
    }
    free(sc->composites);
    for (int i = 0; i < sc->nphases; i++) {
        free(sc->phases[i].target);
        free(sc->phases[i].trace_t_ms);
        free(sc->phases[i].trace_rate);
    }
    free(sc->phases);
    for (int i = 0; i < sc->nfaults; i++) {
        free(sc->faults[i].group);
        free(sc->faults[i].zone);
    }
    free(sc->faults);
    for (int i = 0; i < sc->nexpects; i++) {
        free(sc->expects[i].label);
        free(sc->expects[i].group);
    }
    free(sc->expects);
    free_str_array(sc->zones, sc->nzones);
    free(sc->file);
    free(sc->name);
    free(sc->description);
    free(sc->region);
    free(sc->warnings);
    free(sc);
}

/* The first launch configuration or template named name at index from or after; -1. */
static int sim_scenario_find_lc(const struct sim_scenario *sc, const char *name, int from)
{
    for (int i = from; name && i < sc->nlcs; i++)
        if (sc->lcs[i].name && strcmp(sc->lcs[i].name, name) == 0)
            return i;
    return -1;
}

#define FIND(arr, count)                                                                           \
    do {                                                                                           \
        if (!name)                                                                                 \
            return -1;                                                                             \
        for (int i = 0; i < sc->count; i++)                                                        \
            if (sc->arr[i].name && strcmp(sc->arr[i].name, name) == 0)                             \
                return i;                                                                          \
        return -1;                                                                                 \
    } while (0)

int sim_scenario_group_index(const struct sim_scenario *sc, const char *name)
{
    FIND(groups, ngroups);
}

int sim_scenario_lb_index(const struct sim_scenario *sc, const char *name)
{
    FIND(lbs, nlbs);
}

int sim_scenario_tg_index(const struct sim_scenario *sc, const char *name)
{
    FIND(tgs, ntgs);
}

int sim_scenario_alb_index(const struct sim_scenario *sc, const char *name)
{
    FIND(albs, nalbs);
}

int sim_scenario_lc_index(const struct sim_scenario *sc, const char *name)
{
    int i = -1;

    do {
        i = sim_scenario_find_lc(sc, name, i + 1);
    } while (i >= 0 && sc->lcs[i].template);
    return i;
}

int sim_scenario_lt_index(const struct sim_scenario *sc, const char *name)
{
    int i = -1;

    do {
        i = sim_scenario_find_lc(sc, name, i + 1);
    } while (i >= 0 && !sc->lcs[i].template);
    return i;
}

int sim_scenario_group_lc(const struct sim_scenario *sc, const struct sim_group *g)
{
    return g->launch_template ? sim_scenario_lt_index(sc, g->launch_template)
                              : sim_scenario_lc_index(sc, g->launch_configuration);
}

void sim_launch_token(const struct sim_scenario *sc, int gi, int k, const char *prefix, char *out,
                      size_t n)
{
    const struct sim_launch *l = &sc->groups[gi].launches[k];
    char t[SIM_PATH_MAX + 32];

    if (l->client_token) {
        snprintf(t, sizeof(t), "%s%s%s", prefix ? prefix : "", prefix ? "-" : "", l->client_token);
    } else {
        snprintf(t, sizeof(t), "%s%s%s-launch-%d", prefix ? prefix : "", prefix ? "-" : "",
                 sc->groups[gi].name, k + 1);
        for (char *q = t; *q; q++)
            if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_/", *q))
                *q = '-';
    }
    /* neither a long group name nor the prefix makes it too long; a token the file gives
     * goes as given otherwise (libscaler answers one too long) */
    if ((prefix || !l->client_token) && strlen(t) > SC_ASG_CLIENT_TOKEN_LEN - 1)
        t[SC_ASG_CLIENT_TOKEN_LEN - 1] = '\0';
    snprintf(out, n, "%s", t);
}

int sim_scenario_policy_index(const struct sim_scenario *sc, const char *name)
{
    FIND(policies, npolicies);
}
#undef FIND

/* --sweep: a dotted path into the JSON, arrays addressed by element name or index; a
 * last key absent from its object is added (the reader then checks it is a key). */
char *sim_scenario_set_param(const char *text, const char *param, double value, char *err)
{
    return sim_scenario_set_param_ex(text, param, value, NULL, err);
}

char *sim_scenario_set_param_ex(const char *text, const char *param, double value, int *added,
                                char *err)
{
    json_error_t jerr;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr), *cur, *next = NULL;
    char *copy, *seg, *save = NULL, *out = NULL, *last_key = NULL;
    json_t *parent = NULL;

    err[0] = '\0';
    if (added)
        *added = 0;
    if (!root) {
        snprintf(err, SIM_ERR_MAX, "line %d column %d: %s", jerr.line, jerr.column, jerr.text);
        return NULL;
    }
    copy = cm_xstrdup(param);
    cur = root;
    for (seg = strtok_r(copy, ".", &save); seg; seg = strtok_r(NULL, ".", &save)) {
        next = NULL;
        if (json_is_object(cur)) {
            next = json_object_get(cur, seg);
            if (!next && cur == root) {
                json_t *infra = json_object_get(root, "infrastructure");
                next = json_object_get(infra, seg);
                if (next)
                    cur = infra;
            }
        } else if (json_is_array(cur)) {
            char *end;
            long idx = strtol(seg, &end, 10);
            size_t i;
            json_t *e;
            if (*end == '\0' && end != seg && idx >= 0) {
                next = json_array_get(cur, (size_t)idx);
            } else {
                json_array_foreach(cur, i, e)
                {
                    json_t *nm = json_object_get(e, "name");
                    if (json_is_string(nm) && strcmp(json_string_value(nm), seg) == 0)
                        next = e;
                }
            }
        }
        if (!next && json_is_object(cur) && !strchr(param + (seg - copy), '.')) {
            /* the last key, left at its default: swept from the value given */
            json_object_set_new(cur, seg,
                                value == floor(value) && fabs(value) < 9e15
                                    ? json_integer((json_int_t)value)
                                    : json_real(value));
            if (added)
                *added = 1;
            parent = cur;
            last_key = seg;
            cur = json_object_get(cur, seg);
            break;
        }
        if (!next) {
            snprintf(err, SIM_ERR_MAX, "--sweep %s: no \"%s\" in the scenario", param, seg);
            goto out;
        }
        parent = cur;
        last_key = seg;
        cur = next;
    }
    if (!parent || !json_is_number(cur)) {
        snprintf(err, SIM_ERR_MAX, "--sweep %s: not a number in the scenario", param);
        goto out;
    }
    if (json_is_object(parent)) {
        if (json_object_get(parent, last_key) == cur)
            json_object_set_new(parent, last_key,
                                json_is_integer(cur) && value == floor(value)
                                    ? json_integer((json_int_t)value)
                                    : json_real(value));
    } else {
        size_t i;
        json_t *e;
        json_array_foreach(parent, i, e)
        {
            if (e == cur) {
                json_array_set_new(parent, i,
                                   json_is_integer(cur) && value == floor(value)
                                       ? json_integer((json_int_t)value)
                                       : json_real(value));
                break;
            }
        }
    }
    out = json_dumps(root, JSON_PRESERVE_ORDER);
    if (!out)
        snprintf(err, SIM_ERR_MAX, "--sweep %s: out of memory", param);
out:
    free(copy);
    json_decref(root);
    return out;
}

void sim_scenario_print_lines(FILE *f, const char *prog, const char *file, const char *lines,
                              int warning)
{
    const char *s = lines;

    while (s && *s) {
        size_t n = strcspn(s, "\n");
        fprintf(f, "%s: %s%s: %.*s\n", prog, warning ? "warning: " : "", file, (int)n, s);
        s += n;
        if (*s == '\n')
            s++;
    }
}
