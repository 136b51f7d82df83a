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
#include "scaler/civil.h"
#include "scaler/save.h"
#include "scaler/sim/scenario_internal.h"

int fail(struct ctx *c, const char *path, const char *fmt, ...)
{
    va_list ap;
    int n;

    n = snprintf(c->err, SIM_ERR_MAX, "%s: ", path);
    if (n < 0 || n >= SIM_ERR_MAX)
        return -1;
    va_start(ap, fmt);
    vsnprintf(c->err + n, (size_t)(SIM_ERR_MAX - n), fmt, ap);
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
    char tail[SIM_PATH_MAX];
    size_t n = strlen(key);

    if (n > SIM_PATH_MAX - 2)
        n = SIM_PATH_MAX - 2;
    tail[0] = '.';
    memcpy(tail + 1, key, n);
    tail[n + 1] = '\0';
    path_join(out, base, tail);
}

void path_idx(char *out, const char *base, size_t i)
{
    char tail[32];

    snprintf(tail, sizeof(tail), "[%zu]", i);
    path_join(out, base, tail);
}

/* Unknown keys are errors: a typo must not silently change a scenario. */
int check_keys(struct ctx *c, const json_t *obj, const char *path, const char *const *allowed)
{
    /* keys only: json_object_foreach's order without its value variable */
    for (void *it = json_object_iter((json_t *)obj); it;
         it = json_object_iter_next((json_t *)obj, it)) {
        const char *key = json_object_iter_key(it);
        int ok = 0;

        for (const char *const *a = allowed; *a; a++)
            if (strcmp(*a, key) == 0)
                ok = 1;
        if (!ok) {
            char p[SIM_PATH_MAX];
            path_key(p, path, key);
            return fail(c, p, "unknown key");
        }
    }
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
        for (const char *const *w = words; *w; w++) {
            if (list[0])
                strncat(list, ", ", sizeof(list) - strlen(list) - 1);
            strncat(list, *w, sizeof(list) - strlen(list) - 1);
        }
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

static int check_unique(struct ctx *c, const char *kind, int n, size_t stride, const char *base)
{
    for (int i = 0; i < n; i++) {
        const char *pi = base + (size_t)i * stride;
        const char *ni = *(char *const *)(pi + SIM_PATH_MAX);
        for (int j = 0; j < i; j++) {
            const char *nj = *(char *const *)(base + (size_t)j * stride + SIM_PATH_MAX);
            if (strcmp(ni, nj) == 0) {
                char p[SIM_PATH_MAX];
                path_key(p, pi, "name");
                return fail(c, p, "a second %s named \"%s\"", kind, ni);
            }
        }
    }
    return 0;
}

static int check_refs(struct ctx *c, struct sim_scenario *sc)
{
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];

    /* each struct starts with path[SIM_PATH_MAX] then char *name */
    if (check_unique(c, "load balancer", sc->nlbs, sizeof(*sc->lbs), (const char *)sc->lbs) ||
        check_unique(c, "launch configuration", sc->nlcs, sizeof(*sc->lcs),
                     (const char *)sc->lcs) ||
        check_unique(c, "group", sc->ngroups, sizeof(*sc->groups), (const char *)sc->groups) ||
        check_unique(c, "policy", sc->npolicies, sizeof(*sc->policies),
                     (const char *)sc->policies) ||
        check_unique(c, "alarm", sc->nalarms, sizeof(*sc->alarms), (const char *)sc->alarms))
        return -1;
    for (int i = 0; i < sc->ngroups; i++) {
        struct sim_group *g = &sc->groups[i];
        if (sim_scenario_lc_index(sc, g->launch_configuration) < 0) {
            path_key(p, g->path, "launch_configuration");
            return fail(c, p, "no launch configuration named \"%s\"", g->launch_configuration);
        }
        for (int j = 0; j < g->nload_balancers; j++) {
            if (sim_scenario_lb_index(sc, g->load_balancers[j]) < 0) {
                path_key(p, g->path, "load_balancers");
                path_idx(pi, p, (size_t)j);
                return fail(c, pi, "no load balancer named \"%s\"", g->load_balancers[j]);
            }
        }
    }
    for (int i = 0; i < sc->npolicies; i++) {
        struct sim_policy *pl = &sc->policies[i];
        if (sim_scenario_group_index(sc, pl->group) < 0) {
            path_key(p, pl->path, "group");
            return fail(c, p, "no group named \"%s\"", pl->group);
        }
    }
    for (int i = 0; i < sc->nalarms; i++) {
        struct sim_alarm *a = &sc->alarms[i];
        for (int j = 0; j < a->nactions + a->nok_actions; j++) {
            int ok = j >= a->nactions;
            const char *name = ok ? a->ok_actions[j - a->nactions] : a->actions[j];
            if (sim_scenario_policy_index(sc, name) < 0) {
                path_key(p, a->path, ok ? "ok_actions" : "actions");
                path_idx(pi, p, (size_t)(ok ? j - a->nactions : j));
                return fail(c, pi, "no policy named \"%s\"", name);
            }
            if (sc->policies[sim_scenario_policy_index(sc, name)].type == SIM_POLICY_TARGET) {
                path_key(p, a->path, ok ? "ok_actions" : "actions");
                path_idx(pi, p, (size_t)(ok ? j - a->nactions : j));
                return fail(c, pi, "policy \"%s\" is target tracking: it makes its own alarms",
                            name);
            }
        }
    }
    for (int i = 0; i < sc->nphases; i++) {
        struct sim_phase *ph = &sc->phases[i];
        if (!ph->target) {
            if (sc->nlbs != 1) {
                path_key(p, ph->path, "target");
                return fail(c, p,
                            sc->nlbs ? "missing: which load balancer gets the load?"
                                     : "missing: the scenario has no load balancer");
            }
            ph->target = cm_xstrdup(sc->lbs[0].name);
        } else if (sim_scenario_lb_index(sc, ph->target) < 0) {
            path_key(p, ph->path, "target");
            return fail(c, p, "no load balancer named \"%s\"", ph->target);
        }
    }
    for (int i = 0; i < sc->nfaults; i++) {
        struct sim_fault *f = &sc->faults[i];
        if (f->kind == SIM_FAULT_AZ_OUTAGE)
            continue;
        if (!f->group) {
            if (sc->ngroups != 1) {
                path_key(p, f->path, "group");
                return fail(c, p, "missing: which group?");
            }
            f->group = cm_xstrdup(sc->groups[0].name);
        } else if (sim_scenario_group_index(sc, f->group) < 0) {
            return fail(c, f->path, "no group named \"%s\"", f->group);
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
                return fail(c, p, "not used by this check (it covers every request)");
            }
            continue;
        }
        if (!e->group) {
            if (sc->ngroups != 1) {
                path_key(p, e->path, "group");
                return fail(c, p, "missing: which group?");
            }
            e->group = cm_xstrdup(sc->groups[0].name);
        } else if (sim_scenario_group_index(sc, e->group) < 0) {
            path_key(p, e->path, "group");
            return fail(c, p, "no group named \"%s\"", e->group);
        }
    }
    return 0;
}

struct sim_scenario *sim_scenario_parse(const char *text, const char *file, char *err)
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
    static const char *const infra_keys[] = { "load_balancers", "launch_configurations",
                                              "groups",         "policies",
                                              "alarms",         NULL };
    struct ctx c = { err, file };
    struct sim_scenario *sc = cm_xcalloc(1, sizeof(*sc));
    json_error_t jerr;
    json_t *root, *infra, *arr;
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];
    size_t n;
    double seed;

    err[0] = '\0';
    sc->file = cm_xstrdup(file ? file : "-");
    root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        snprintf(err, SIM_ERR_MAX, "line %d column %d: %s", jerr.line, jerr.column, jerr.text);
        goto fail;
    }
    if (want_object(&c, root, "$") != 0 || check_keys(&c, root, "$", keys) != 0 ||
        get_str(&c, root, "$", "name", 0, NULL, &sc->name) < 0 ||
        get_str(&c, root, "$", "description", 0, NULL, &sc->description) < 0 ||
        get_num(&c, root, "$", "seed", 0, 1, 0, 9007199254740991.0, &seed) < 0 ||
        parse_start(&c, root, &sc->start_ms) != 0 ||
        get_dur(&c, root, "$", "duration", 1, 0, &sc->duration_ms) < 0 ||
        get_dur(&c, root, "$", "sample", 0, 60000, &sc->sample_ms) < 0 ||
        get_num(&c, root, "$", "demand_target_pct", 0, 70, 1, 100, &sc->demand_target_pct) < 0 ||
        get_str(&c, root, "$", "region", 0, "us-east-1", &sc->region) < 0 ||
        get_str_array(&c, root, "$", "zones", 0, &sc->zones, &sc->nzones) < 0)
        goto fail;
    if (seed != floor(seed)) {
        fail(&c, "$.seed", "must be a whole number");
        goto fail;
    }
    sc->seed = (uint64_t)seed;
    if (!sc->name) {
        const char *base = file ? strrchr(file, '/') : NULL;
        base = base ? base + 1 : file ? file : "scenario";
        sc->name = cm_xstrndup(base, strcspn(base, "."));
    }
    if (sc->duration_ms <= 0) {
        fail(&c, "$.duration", "must be > 0");
        goto fail;
    }
    if (sc->sample_ms < 1000) {
        fail(&c, "$.sample", "must be >= 1s");
        goto fail;
    }
    if (sc->nzones == 0) {
        sc->zones = cm_xcalloc(4, sizeof(char *));
        for (int i = 0; i < 3; i++)
            sc->zones[i] = cm_xasprintf("%s%c", sc->region, 'a' + i);
        sc->nzones = 3;
    }

    infra = json_object_get(root, "infrastructure");
    if (!infra) {
        fail(&c, "$", "missing required key \"infrastructure\"");
        goto fail;
    }
    if (want_object(&c, infra, "$.infrastructure") != 0 ||
        check_keys(&c, infra, "$.infrastructure", infra_keys) != 0)
        goto fail;

#define PARSE_ARRAY(key, field, count, fn)                                                         \
    do {                                                                                           \
        if (get_obj_array(&c, infra, "$.infrastructure", key, &arr, &n, p) < 0)                    \
            goto fail;                                                                             \
        sc->field = cm_xcalloc(n + 1, sizeof(*sc->field));                                         \
        for (size_t i = 0; i < n; i++) {                                                           \
            path_idx(pi, p, i);                                                                    \
            sc->count++;                                                                           \
            if (fn(&c, json_array_get(arr, i), pi, &sc->field[i]) != 0)                            \
                goto fail;                                                                         \
        }                                                                                          \
    } while (0)

    PARSE_ARRAY("load_balancers", lbs, nlbs, parse_lb);
    PARSE_ARRAY("launch_configurations", lcs, nlcs, parse_lc);
    PARSE_ARRAY("groups", groups, ngroups, parse_group);
    PARSE_ARRAY("policies", policies, npolicies, parse_policy);
    PARSE_ARRAY("alarms", alarms, nalarms, parse_alarm);
#undef PARSE_ARRAY
    if (sc->ngroups == 0) {
        fail(&c, "$.infrastructure.groups", "needs at least one group");
        goto fail;
    }

    if (get_obj_array(&c, root, "$", "load", &arr, &n, p) < 0)
        goto fail;
    sc->phases = cm_xcalloc(n + 1, sizeof(*sc->phases));
    for (size_t i = 0; i < n; i++) {
        path_idx(pi, p, i);
        sc->nphases++;
        if (parse_phase(&c, json_array_get(arr, i), pi, &sc->phases[i], sc->duration_ms) != 0)
            goto fail;
    }
    if (get_obj_array(&c, root, "$", "faults", &arr, &n, p) < 0)
        goto fail;
    sc->faults = cm_xcalloc(n + 1, sizeof(*sc->faults));
    for (size_t i = 0; i < n; i++) {
        path_idx(pi, p, i);
        sc->nfaults++;
        if (parse_fault(&c, json_array_get(arr, i), pi, &sc->faults[i]) != 0)
            goto fail;
    }
    if (get_obj_array(&c, root, "$", "expect", &arr, &n, p) < 0)
        goto fail;
    sc->expects = cm_xcalloc(n + 1, sizeof(*sc->expects));
    for (size_t i = 0; i < n; i++) {
        path_idx(pi, p, i);
        sc->nexpects++;
        if (parse_expect(&c, json_array_get(arr, i), pi, &sc->expects[i], sc->duration_ms) != 0)
            goto fail;
    }
    if (check_refs(&c, sc) != 0)
        goto fail;
    json_decref(root);
    return sc;

fail:
    json_decref(root);
    sim_scenario_destroy(sc);
    return NULL;
}

struct sim_scenario *sim_scenario_load(const char *file, char *err)
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
    sc = sim_scenario_parse(text, file, err);
    free(text);
    return sc;
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
        free_str_array(g->zones, g->nzones);
        free_str_array(g->load_balancers, g->nload_balancers);
        free(g->health_check_type);
        free_str_array(g->termination_policies, g->ntermination_policies);
        for (int k = 0; k < g->nhooks; k++) {
            free(g->hooks[k].name);
            free(g->hooks[k].default_result);
            free(g->hooks[k].handler_result);
        }
        free(g->hooks);
        if (g->warm)
            free(g->warm->pool_state);
        free(g->warm);
        for (int k = 0; k < g->nscheds; k++) {
            free(g->scheds[k].name);
            free(g->scheds[k].recurrence);
            free(g->scheds[k].time_zone);
        }
        free(g->scheds);
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
    }
    free(sc->alarms);
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
    free(sc);
}

#define FIND(arr, count)                                                                           \
    do {                                                                                           \
        if (!name)                                                                                 \
            return -1;                                                                             \
        for (int i = 0; i < sc->count; i++)                                                        \
            if (strcmp(sc->arr[i].name, name) == 0)                                                \
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

int sim_scenario_lc_index(const struct sim_scenario *sc, const char *name)
{
    FIND(lcs, nlcs);
}

int sim_scenario_policy_index(const struct sim_scenario *sc, const char *name)
{
    FIND(policies, npolicies);
}
#undef FIND

/* --sweep: a dotted path into the JSON, arrays addressed by element name or index. */
char *sim_scenario_set_param(const char *text, const char *param, double value, char *err)
{
    json_error_t jerr;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr), *cur, *next = NULL;
    char *copy, *seg, *save = NULL, *out = NULL, *last_key = NULL;
    json_t *parent = NULL;

    err[0] = '\0';
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
