/* scaler/sim/scenario.c: reads a scenario file into struct sim_scenario, checking it. */
#include "scaler/sim/scenario.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "common/units.h"
#include "common/xalloc.h"

struct ctx {
    char *err;
    const char *file;
};

static int fail(struct ctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct ctx *c, const char *path, const char *fmt, ...)
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
static void path_join(char *out, const char *base, const char *tail)
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

static void path_key(char *out, const char *base, const char *key)
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

static void path_idx(char *out, const char *base, size_t i)
{
    char tail[32];

    snprintf(tail, sizeof(tail), "[%zu]", i);
    path_join(out, base, tail);
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "?";
}

/* Unknown keys are errors: a typo must not silently change a scenario. */
static int check_keys(struct ctx *c, const json_t *obj, const char *path,
                      const char *const *allowed)
{
    const char *key;
    json_t *v;

    json_object_foreach((json_t *)obj, key, v)
    {
        int ok = 0;
        (void)v;
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

static int want_object(struct ctx *c, const json_t *v, const char *path)
{
    if (!json_is_object(v))
        return fail(c, path, "must be an object, not %s", type_name(v));
    return 0;
}

/* Looks up key; returns 1 present, 0 absent (error when required), -1 error. */
static int lookup(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
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

static int get_num(struct ctx *c, const json_t *obj, const char *path, const char *key,
                   int required, double def, double lo, double hi, double *out)
{
    char p[SIM_PATH_MAX];
    json_t *v;
    int r = lookup(c, obj, path, key, required, &v, p);

    if (r <= 0) {
        *out = def;
        return r;
    }
    if (!json_is_number(v))
        return fail(c, p, "must be a number, not %s", type_name(v));
    *out = json_number_value(v);
    if (!isfinite(*out))
        return fail(c, p, "must be finite");
    if (*out < lo)
        return fail(c, p, "must be >= %g", lo);
    if (*out > hi)
        return fail(c, p, "must be <= %g", hi);
    return 1;
}

static int get_int(struct ctx *c, const json_t *obj, const char *path, const char *key,
                   int required, int def, int lo, int hi, int *out)
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
                    json_is_real(v) ? "a fraction" : type_name(v));
    x = json_integer_value(v);
    if (x < lo)
        return fail(c, p, "must be >= %d", lo);
    if (x > hi)
        return fail(c, p, "must be <= %d", hi);
    *out = (int)x;
    return 1;
}

static int get_bool(struct ctx *c, const json_t *obj, const char *path, const char *key, int def,
                    int *out)
{
    char p[SIM_PATH_MAX];
    json_t *v;
    int r = lookup(c, obj, path, key, 0, &v, p);

    if (r <= 0) {
        *out = def;
        return r;
    }
    if (!json_is_boolean(v))
        return fail(c, p, "must be a boolean, not %s", type_name(v));
    *out = json_is_true(v);
    return 1;
}

static int get_str(struct ctx *c, const json_t *obj, const char *path, const char *key,
                   int required, const char *def, char **out)
{
    char p[SIM_PATH_MAX];
    json_t *v;
    int r = lookup(c, obj, path, key, required, &v, p);

    if (r <= 0) {
        *out = def ? cm_xstrdup(def) : NULL;
        return r;
    }
    if (!json_is_string(v))
        return fail(c, p, "must be a string, not %s", type_name(v));
    if (json_string_length(v) == 0)
        return fail(c, p, "must not be empty");
    *out = cm_xstrdup(json_string_value(v));
    return 1;
}

/* One of the listed words, or an error listing them. */
static int get_enum(struct ctx *c, const json_t *obj, const char *path, const char *key,
                    int required, const char *def, const char *const *words, char **out)
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

static int parse_duration_value(struct ctx *c, const json_t *v, const char *p, int64_t *out)
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
                type_name(v));
}

static int get_dur(struct ctx *c, const json_t *obj, const char *path, const char *key,
                   int required, int64_t def, int64_t *out)
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
static int get_str_array(struct ctx *c, const json_t *obj, const char *path, const char *key,
                         int required, char ***out, int *n)
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
        return fail(c, p, "must be an array, not %s", type_name(v));
    *out = cm_xcalloc(json_array_size(v) + 1, sizeof(char *));
    json_array_foreach(v, i, e)
    {
        path_idx(pi, p, i);
        if (!json_is_string(e))
            return fail(c, pi, "must be a string, not %s", type_name(e));
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
static int get_obj_array(struct ctx *c, const json_t *obj, const char *path, const char *key,
                         json_t **arr, size_t *n, char *p)
{
    json_t *v;
    int r = lookup(c, obj, path, key, 0, &v, p);

    *arr = NULL;
    *n = 0;
    if (r <= 0)
        return r;
    if (!json_is_array(v))
        return fail(c, p, "must be an array, not %s", type_name(v));
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

/* ---- infrastructure ---- */

static int parse_lb(struct ctx *c, const json_t *o, const char *path, struct sim_lb *lb)
{
    static const char *const keys[] = {
        "name", "zones", "listeners", "health_check", "cross_zone", "connection_draining", NULL
    };
    static const char *const hc_keys[] = {
        "target", "interval", "timeout", "unhealthy_threshold", "healthy_threshold", NULL
    };
    static const char *const l_keys[] = { "lb_port", "instance_port", "protocol",
                                          "instance_protocol", NULL };
    static const char *const protos[] = { "HTTP", "HTTPS", "TCP", "SSL", NULL };
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];
    json_t *arr, *v;
    size_t n;
    int64_t dr;

    path_join(lb->path, path, "");
    if (check_keys(c, o, path, keys) != 0 || get_str(c, o, path, "name", 1, NULL, &lb->name) < 0 ||
        get_str_array(c, o, path, "zones", 0, &lb->zones, &lb->nzones) < 0 ||
        get_bool(c, o, path, "cross_zone", 1, &lb->cross_zone) < 0)
        return -1;
    if (get_obj_array(c, o, path, "listeners", &arr, &n, p) < 0)
        return -1;
    if (n == 0)
        return fail(c, path, "needs at least one listener in \"listeners\"");
    lb->listeners = cm_xcalloc(n, sizeof(*lb->listeners));
    for (size_t i = 0; i < n; i++) {
        struct sim_listener *l = &lb->listeners[lb->nlisteners++];
        json_t *lo = json_array_get(arr, i);
        path_idx(pi, p, i);
        if (check_keys(c, lo, pi, l_keys) != 0 ||
            get_int(c, lo, pi, "lb_port", 1, 0, 1, 65535, &l->lb_port) < 0 ||
            get_int(c, lo, pi, "instance_port", 1, 0, 1, 65535, &l->instance_port) < 0 ||
            get_enum(c, lo, pi, "protocol", 0, "HTTP", protos, &l->protocol) < 0 ||
            get_enum(c, lo, pi, "instance_protocol", 0, NULL, protos, &l->instance_protocol) < 0)
            return -1;
    }
    if (lookup(c, o, path, "health_check", 0, &v, p) > 0) {
        struct sim_health_check *hc = &lb->health_check;
        if (want_object(c, v, p) != 0 || check_keys(c, v, p, hc_keys) != 0 ||
            get_str(c, v, p, "target", 1, NULL, &hc->target) < 0 ||
            get_int(c, v, p, "interval", 0, 30, 1, 100000, &hc->interval_s) < 0 ||
            get_int(c, v, p, "timeout", 0, 5, 1, 100000, &hc->timeout_s) < 0 ||
            get_int(c, v, p, "unhealthy_threshold", 0, 2, 1, 1000, &hc->unhealthy_threshold) < 0 ||
            get_int(c, v, p, "healthy_threshold", 0, 10, 1, 1000, &hc->healthy_threshold) < 0)
            return -1;
        lb->has_health_check = 1;
    }
    lb->draining = 0;
    lb->draining_timeout_s = 300;
    if (lookup(c, o, path, "connection_draining", 0, &v, p) > 0) {
        if (json_is_false(v)) {
            lb->draining = 0;
        } else {
            if (parse_duration_value(c, v, p, &dr) != 0)
                return -1;
            lb->draining = 1;
            lb->draining_timeout_s = (int)(dr / 1000);
        }
    }
    return 0;
}

static int parse_app(struct ctx *c, const json_t *o, const char *path, struct sim_app *a)
{
    static const char *const keys[] = { "boot_s",          "workers",     "service_ms",
                                        "cpu_per_request", "queue_limit", NULL };
    static const char *const s_keys[] = { "dist", "mean", "median", "sigma", NULL };
    static const char *const dists[] = { "fixed", "exponential", "lognormal", NULL };
    char p[SIM_PATH_MAX];
    json_t *v;
    char *dist = NULL;
    int r;

    if (want_object(c, o, path) != 0 || check_keys(c, o, path, keys) != 0 ||
        get_num(c, o, path, "boot_s", 0, 60, 0, 86400, &a->boot_s) < 0 ||
        get_int(c, o, path, "workers", 0, 1, 1, 100000, &a->workers) < 0 ||
        get_num(c, o, path, "cpu_per_request", 0, 1, 0, 1, &a->cpu_per_request) < 0 ||
        get_int(c, o, path, "queue_limit", 0, 1000, 0, 100000000, &a->queue_limit) < 0)
        return -1;
    if (a->cpu_per_request <= 0) {
        path_key(p, path, "cpu_per_request");
        return fail(c, p, "must be > 0");
    }
    if (lookup(c, o, path, "service_ms", 1, &v, p) <= 0)
        return -1;
    if (want_object(c, v, p) != 0 || check_keys(c, v, p, s_keys) != 0 ||
        get_enum(c, v, p, "dist", 0, "exponential", dists, &dist) < 0)
        goto fail;
    if (strcmp(dist, "lognormal") == 0) {
        double mean, median;
        int hm, hmed;
        a->dist = SIM_DIST_LOGNORMAL;
        if (get_num(c, v, p, "sigma", 0, 0.5, 0, 5, &a->service_sigma) < 0 ||
            (hm = get_num(c, v, p, "mean", 0, 0, 0, 1e9, &mean)) < 0 ||
            (hmed = get_num(c, v, p, "median", 0, 0, 0, 1e9, &median)) < 0)
            goto fail;
        if (hm && hmed) {
            fail(c, p, "give \"mean\" or \"median\", not both");
            goto fail;
        }
        if (!hm && !hmed) {
            fail(c, p, "missing required key \"median\" (or \"mean\")");
            goto fail;
        }
        if (hmed)
            mean = median * exp(a->service_sigma * a->service_sigma / 2);
        else
            median = mean / exp(a->service_sigma * a->service_sigma / 2);
        a->service_mean_ms = mean;
        a->service_median_ms = median;
    } else {
        a->dist = strcmp(dist, "fixed") == 0 ? SIM_DIST_FIXED : SIM_DIST_EXPONENTIAL;
        r = get_num(c, v, p, "mean", 1, 0, 0, 1e9, &a->service_mean_ms);
        if (r < 0)
            goto fail;
        if (json_object_get(v, "median") || json_object_get(v, "sigma")) {
            char pk[SIM_PATH_MAX];
            path_key(pk, p, json_object_get(v, "median") ? "median" : "sigma");
            fail(c, pk, "only for dist \"lognormal\"");
            goto fail;
        }
        a->service_median_ms =
            a->dist == SIM_DIST_FIXED ? a->service_mean_ms : a->service_mean_ms * log(2.0);
    }
    if (a->service_mean_ms <= 0) {
        fail(c, p, "service time must be > 0");
        goto fail;
    }
    free(dist);
    return 0;
fail:
    free(dist);
    return -1;
}

static int parse_lc(struct ctx *c, const json_t *o, const char *path, struct sim_launch_config *lc)
{
    static const char *const keys[] = { "name", "image_id", "instance_type", "app", NULL };
    char p[SIM_PATH_MAX];
    json_t *v;

    path_join(lc->path, path, "");
    if (check_keys(c, o, path, keys) != 0 || get_str(c, o, path, "name", 1, NULL, &lc->name) < 0 ||
        get_str(c, o, path, "image_id", 0, "ami-0c02fb55956c7d316", &lc->image_id) < 0 ||
        get_str(c, o, path, "instance_type", 0, "t3.micro", &lc->instance_type) < 0)
        return -1;
    if (lookup(c, o, path, "app", 1, &v, p) <= 0)
        return -1;
    return parse_app(c, v, p, &lc->app);
}

static int parse_group(struct ctx *c, const json_t *o, const char *path, struct sim_group *g)
{
    static const char *const keys[] = { "name",
                                        "launch_configuration",
                                        "min",
                                        "max",
                                        "desired",
                                        "zones",
                                        "load_balancers",
                                        "default_cooldown",
                                        "health_check_type",
                                        "health_check_grace_period",
                                        "termination_policies",
                                        NULL };
    static const char *const hct[] = { "EC2", "ELB", NULL };
    char p[SIM_PATH_MAX];
    int r;

    path_join(g->path, path, "");
    if (check_keys(c, o, path, keys) != 0 || get_str(c, o, path, "name", 1, NULL, &g->name) < 0 ||
        get_str(c, o, path, "launch_configuration", 1, NULL, &g->launch_configuration) < 0 ||
        get_int(c, o, path, "min", 1, 0, 0, 100000, &g->min) < 0 ||
        get_int(c, o, path, "max", 1, 0, 0, 100000, &g->max) < 0 ||
        (r = get_int(c, o, path, "desired", 0, 0, 0, 100000, &g->desired)) < 0 ||
        get_str_array(c, o, path, "zones", 0, &g->zones, &g->nzones) < 0 ||
        get_str_array(c, o, path, "load_balancers", 0, &g->load_balancers, &g->nload_balancers) <
            0 ||
        get_int(c, o, path, "default_cooldown", 0, 300, 0, 100000000, &g->default_cooldown_s) < 0 ||
        get_enum(c, o, path, "health_check_type", 0, "EC2", hct, &g->health_check_type) < 0 ||
        get_int(c, o, path, "health_check_grace_period", 0, 300, 0, 100000000,
                &g->health_check_grace_period_s) < 0 ||
        get_str_array(c, o, path, "termination_policies", 0, &g->termination_policies,
                      &g->ntermination_policies) < 0)
        return -1;
    g->has_desired = r;
    if (g->min > g->max) {
        path_key(p, path, "min");
        return fail(c, p, "must be <= max (%d), is %d", g->max, g->min);
    }
    if (g->has_desired && (g->desired < g->min || g->desired > g->max)) {
        path_key(p, path, "desired");
        return fail(c, p, "must be within min..max (%d..%d), is %d", g->min, g->max, g->desired);
    }
    return 0;
}

static int parse_policy(struct ctx *c, const json_t *o, const char *path, struct sim_policy *pl)
{
    static const char *const keys[] = { "name",
                                        "group",
                                        "type",
                                        "adjustment_type",
                                        "adjustment",
                                        "cooldown",
                                        "min_adjustment_magnitude",
                                        "steps",
                                        "metric_aggregation_type",
                                        "estimated_instance_warmup",
                                        "target",
                                        NULL };
    static const char *const types[] = { "SimpleScaling", "StepScaling", "TargetTrackingScaling",
                                         NULL };
    static const char *const adj[] = { "ChangeInCapacity", "ExactCapacity",
                                       "PercentChangeInCapacity", NULL };
    static const char *const agg[] = { "Average", "Minimum", "Maximum", NULL };
    static const char *const step_keys[] = { "lower", "upper", "adjustment", NULL };
    static const char *const tt_keys[] = { "predefined_metric", "resource_label", "value",
                                           "disable_scale_in", NULL };
    static const char *const predef[] = { "ASGAverageCPUUtilization", "ASGAverageNetworkIn",
                                          "ASGAverageNetworkOut", "ALBRequestCountPerTarget",
                                          NULL };
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];
    char *type = NULL;
    json_t *arr, *v;
    size_t n;
    int r;

    path_join(pl->path, path, "");
    if (check_keys(c, o, path, keys) != 0 || get_str(c, o, path, "name", 1, NULL, &pl->name) < 0 ||
        get_str(c, o, path, "group", 1, NULL, &pl->group) < 0 ||
        get_enum(c, o, path, "type", 0, "SimpleScaling", types, &type) < 0)
        goto fail;
    pl->type = strcmp(type, "SimpleScaling") == 0 ? SIM_POLICY_SIMPLE
               : strcmp(type, "StepScaling") == 0 ? SIM_POLICY_STEP
                                                  : SIM_POLICY_TARGET;
    free(type);
    type = NULL;
    if ((r = get_int(c, o, path, "estimated_instance_warmup", 0, 0, 0, 100000000,
                     &pl->estimated_instance_warmup_s)) < 0)
        return -1;
    pl->has_warmup = r;

    if (pl->type != SIM_POLICY_TARGET) {
        if (get_enum(c, o, path, "adjustment_type", 1, NULL, adj, &pl->adjustment_type) < 0 ||
            (r = get_int(c, o, path, "min_adjustment_magnitude", 0, 0, 1, 100000,
                         &pl->min_adjustment_magnitude)) < 0)
            return -1;
        pl->has_min_adjustment_magnitude = r;
        if (json_object_get(o, "target")) {
            path_key(p, path, "target");
            return fail(c, p, "only for type TargetTrackingScaling");
        }
    }
    if (pl->type == SIM_POLICY_SIMPLE) {
        if (get_int(c, o, path, "adjustment", 1, 0, -100000, 100000, &pl->adjustment) < 0 ||
            (r = get_int(c, o, path, "cooldown", 0, 0, 0, 100000000, &pl->cooldown_s)) < 0)
            return -1;
        pl->has_cooldown = r;
        if (json_object_get(o, "steps")) {
            path_key(p, path, "steps");
            return fail(c, p, "only for type StepScaling");
        }
    } else if (pl->type == SIM_POLICY_STEP) {
        if (get_enum(c, o, path, "metric_aggregation_type", 0, "Average", agg,
                     &pl->metric_aggregation_type) < 0)
            return -1;
        if (json_object_get(o, "adjustment") || json_object_get(o, "cooldown")) {
            path_key(p, path, json_object_get(o, "adjustment") ? "adjustment" : "cooldown");
            return fail(c, p, "only for type SimpleScaling (StepScaling uses \"steps\")");
        }
        if (lookup(c, o, path, "steps", 1, &v, p) <= 0 ||
            get_obj_array(c, o, path, "steps", &arr, &n, p) < 0)
            return -1;
        if (n == 0)
            return fail(c, p, "needs at least one step");
        pl->steps = cm_xcalloc(n, sizeof(*pl->steps));
        for (size_t i = 0; i < n; i++) {
            struct sim_step *s = &pl->steps[pl->nsteps++];
            json_t *so = json_array_get(arr, i);
            path_idx(pi, p, i);
            if (check_keys(c, so, pi, step_keys) != 0 ||
                (s->has_lower = get_num(c, so, pi, "lower", 0, 0, -1e300, 1e300, &s->lower)) < 0 ||
                (s->has_upper = get_num(c, so, pi, "upper", 0, 0, -1e300, 1e300, &s->upper)) < 0 ||
                get_int(c, so, pi, "adjustment", 1, 0, -100000, 100000, &s->adjustment) < 0)
                return -1;
            if (s->has_lower && s->has_upper && s->lower >= s->upper) {
                char pk[SIM_PATH_MAX];
                path_key(pk, pi, "lower");
                return fail(c, pk, "must be < upper (%g), is %g", s->upper, s->lower);
            }
        }
    } else {
        static const char *const bad[] = {
            "adjustment", "adjustment_type",          "cooldown",
            "steps",      "min_adjustment_magnitude", "metric_aggregation_type",
            NULL
        };
        for (const char *const *b = bad; *b; b++)
            if (json_object_get(o, *b)) {
                path_key(p, path, *b);
                return fail(c, p, "not for type TargetTrackingScaling");
            }
        if (lookup(c, o, path, "target", 1, &v, p) <= 0)
            return -1;
        if (want_object(c, v, p) != 0 || check_keys(c, v, p, tt_keys) != 0 ||
            get_enum(c, v, p, "predefined_metric", 0, "ASGAverageCPUUtilization", predef,
                     &pl->predefined_metric) < 0 ||
            get_str(c, v, p, "resource_label", 0, NULL, &pl->resource_label) < 0 ||
            get_num(c, v, p, "value", 1, 0, 0, 1e12, &pl->target_value) < 0 ||
            get_bool(c, v, p, "disable_scale_in", 0, &pl->disable_scale_in) < 0)
            return -1;
    }
    return 0;
fail:
    free(type);
    return -1;
}

static const char *comparison_name(const char *s)
{
    static const char *const pairs[][2] = {
        { ">", "GreaterThanThreshold" },
        { ">=", "GreaterThanOrEqualToThreshold" },
        { "<", "LessThanThreshold" },
        { "<=", "LessThanOrEqualToThreshold" },
        { "GreaterThanThreshold", "GreaterThanThreshold" },
        { "GreaterThanOrEqualToThreshold", "GreaterThanOrEqualToThreshold" },
        { "LessThanThreshold", "LessThanThreshold" },
        { "LessThanOrEqualToThreshold", "LessThanOrEqualToThreshold" },
        /* passed on so the library answers with AWS's ValidationError */
        { "LessThanLowerOrGreaterThanUpperThreshold", "LessThanLowerOrGreaterThanUpperThreshold" },
        { "LessThanLowerThreshold", "LessThanLowerThreshold" },
        { "GreaterThanUpperThreshold", "GreaterThanUpperThreshold" },
    };
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        if (strcmp(pairs[i][0], s) == 0)
            return pairs[i][1];
    return NULL;
}

static int parse_alarm(struct ctx *c, const json_t *o, const char *path, struct sim_alarm *a)
{
    static const char *const keys[] = { "name",       "namespace",          "metric",
                                        "dimensions", "statistic",          "extended_statistic",
                                        "period",     "evaluation_periods", "datapoints_to_alarm",
                                        "comparison", "threshold",          "treat_missing_data",
                                        "actions",    "ok_actions",         "actions_enabled",
                                        NULL };
    static const char *const stats[] = {
        "SampleCount", "Average", "Sum", "Minimum", "Maximum", NULL
    };
    static const char *const tmd[] = { "missing", "ignore", "breaching", "notBreaching", NULL };
    char p[SIM_PATH_MAX];
    char *cmp = NULL;
    const char *name;
    json_t *v;
    int r;

    path_join(a->path, path, "");
    if (check_keys(c, o, path, keys) != 0 || get_str(c, o, path, "name", 1, NULL, &a->name) < 0 ||
        get_str(c, o, path, "namespace", 0, "AWS/EC2", &a->namespace_) < 0 ||
        get_str(c, o, path, "metric", 0, "CPUUtilization", &a->metric) < 0 ||
        get_enum(c, o, path, "statistic", 0, NULL, stats, &a->statistic) < 0 ||
        get_str(c, o, path, "extended_statistic", 0, NULL, &a->extended_statistic) < 0 ||
        get_int(c, o, path, "period", 0, 300, 1, 86400 * 7, &a->period_s) < 0 ||
        get_int(c, o, path, "evaluation_periods", 0, 1, 1, 100000, &a->evaluation_periods) < 0 ||
        (r = get_int(c, o, path, "datapoints_to_alarm", 0, 0, 1, 100000, &a->datapoints_to_alarm)) <
            0)
        return -1;
    a->has_datapoints_to_alarm = r;
    if (a->statistic && a->extended_statistic)
        return fail(c, path, "give \"statistic\" or \"extended_statistic\", not both");
    if (!a->statistic && !a->extended_statistic)
        a->statistic = cm_xstrdup("Average");
    if (a->has_datapoints_to_alarm && a->datapoints_to_alarm > a->evaluation_periods) {
        path_key(p, path, "datapoints_to_alarm");
        return fail(c, p, "must be <= evaluation_periods (%d), is %d", a->evaluation_periods,
                    a->datapoints_to_alarm);
    }
    if (get_str(c, o, path, "comparison", 1, NULL, &cmp) < 0)
        return -1;
    name = comparison_name(cmp);
    if (!name) {
        path_key(p, path, "comparison");
        fail(c, p, "must be >, >=, <, <= or an AWS ComparisonOperator, not \"%s\"", cmp);
        free(cmp);
        return -1;
    }
    free(cmp);
    a->comparison = cm_xstrdup(name);
    if (get_num(c, o, path, "threshold", 1, 0, -1e300, 1e300, &a->threshold) < 0 ||
        get_enum(c, o, path, "treat_missing_data", 0, NULL, tmd, &a->treat_missing_data) < 0 ||
        get_str_array(c, o, path, "actions", 0, &a->actions, &a->nactions) < 0 ||
        get_str_array(c, o, path, "ok_actions", 0, &a->ok_actions, &a->nok_actions) < 0 ||
        get_bool(c, o, path, "actions_enabled", 1, &a->actions_enabled) < 0)
        return -1;
    if (lookup(c, o, path, "dimensions", 0, &v, p) > 0) {
        const char *key;
        json_t *dv;
        if (want_object(c, v, p) != 0)
            return -1;
        a->dimensions = cm_xcalloc(json_object_size(v) + 1, sizeof(*a->dimensions));
        json_object_foreach(v, key, dv)
        {
            char pk[SIM_PATH_MAX];
            path_key(pk, p, key);
            if (!json_is_string(dv))
                return fail(c, pk, "must be a string, not %s", type_name(dv));
            a->dimensions[a->ndimensions].name = cm_xstrdup(key);
            a->dimensions[a->ndimensions].value = cm_xstrdup(json_string_value(dv));
            a->ndimensions++;
        }
    }
    return 0;
}

/* ---- load ---- */

static int read_trace(struct ctx *c, const char *path, const char *file, struct sim_phase *ph)
{
    char full[4096], line[512];
    const char *slash = c->file ? strrchr(c->file, '/') : NULL;
    FILE *f;
    int cap = 0, lineno = 0;

    if (file[0] == '/' || !slash)
        snprintf(full, sizeof(full), "%s", file);
    else
        snprintf(full, sizeof(full), "%.*s/%s", (int)(slash - c->file), c->file, file);
    f = fopen(full, "r");
    if (!f)
        return fail(c, path, "cannot read trace %s: %s", full, strerror(errno));
    while (fgets(line, sizeof(line), f)) {
        char *comma, *end, *s = line;
        double rate;
        int64_t t_ms;
        lineno++;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || *s == '\n' || *s == '\r' || *s == '\0')
            continue;
        comma = strchr(s, ',');
        if (!comma)
            goto bad;
        *comma = '\0';
        {
            int64_t us;
            double secs = strtod(s, &end);
            if (end != s && (*end == '\0' || *end == ' ')) {
                if (!(secs >= 0))
                    goto bad;
                t_ms = (int64_t)llround(secs * 1000);
            } else if (cm_duration_parse_us(s, CM_UNIT_S, &us) == 0) {
                t_ms = us / 1000;
            } else if (ph->ntrace == 0 && lineno == 1) {
                continue; /* a header line */
            } else {
                goto bad;
            }
        }
        rate = strtod(comma + 1, &end);
        if (end == comma + 1 || !(rate >= 0) || !isfinite(rate))
            goto bad;
        if (ph->ntrace > 0 && t_ms <= ph->trace_t_ms[ph->ntrace - 1]) {
            fclose(f);
            return fail(c, path, "%s:%d: times must increase", full, lineno);
        }
        if (ph->ntrace == cap) {
            cap = cap ? cap * 2 : 64;
            ph->trace_t_ms = cm_xrealloc(ph->trace_t_ms, (size_t)cap * sizeof(int64_t));
            ph->trace_rate = cm_xrealloc(ph->trace_rate, (size_t)cap * sizeof(double));
        }
        ph->trace_t_ms[ph->ntrace] = t_ms;
        ph->trace_rate[ph->ntrace] = rate;
        ph->ntrace++;
    }
    fclose(f);
    if (ph->ntrace == 0)
        return fail(c, path, "trace %s has no rows (time,rate)", full);
    return 0;
bad:
    fclose(f);
    return fail(c, path, "%s:%d: expected time,rate with rate >= 0", full, lineno);
}

static int parse_shape(struct ctx *c, const json_t *o, const char *path, struct sim_phase *ph)
{
    static const char *const keys[] = { "type",    "to",       "at", "for", "amplitude", "period",
                                        "peak_at", "requests", "on", "gap", NULL };
    static const char *const types[] = { "constant", "ramp",   "step", "spike",
                                         "diurnal",  "bursts", NULL };
    static const char *const allowed[][6] = {
        { NULL },
        { "to", NULL },
        { "to", "at", NULL },
        { "to", "at", "for", NULL },
        { "amplitude", "period", "peak_at", NULL },
        { "requests", "on", "gap", NULL },
    };
    char *type = NULL;
    const char *key;
    json_t *v;
    int r, t = 0;
    double req;

    if (want_object(c, o, path) != 0 || check_keys(c, o, path, keys) != 0 ||
        get_enum(c, o, path, "type", 1, NULL, types, &type) < 0)
        return -1;
    for (int i = 0; types[i]; i++)
        if (strcmp(types[i], type) == 0)
            t = i;
    free(type);
    ph->shape = (enum sim_shape)t;
    json_object_foreach((json_t *)o, key, v)
    {
        int ok = strcmp(key, "type") == 0;
        (void)v;
        for (int i = 0; allowed[t][i]; i++)
            if (strcmp(allowed[t][i], key) == 0)
                ok = 1;
        if (!ok) {
            char p[SIM_PATH_MAX];
            path_key(p, path, key);
            return fail(c, p, "not a key of shape \"%s\"", types[t]);
        }
    }
    switch (ph->shape) {
    case SIM_SHAPE_CONSTANT:
        break;
    case SIM_SHAPE_RAMP:
        return get_num(c, o, path, "to", 1, 0, 0, 1e12, &ph->to) < 0 ? -1 : 0;
    case SIM_SHAPE_STEP:
    case SIM_SHAPE_SPIKE:
        if (get_num(c, o, path, "to", 1, 0, 0, 1e12, &ph->to) < 0 ||
            get_dur(c, o, path, "at", 1, 0, &ph->shape_at_ms) < 0)
            return -1;
        if (ph->shape == SIM_SHAPE_SPIKE && get_dur(c, o, path, "for", 1, 0, &ph->shape_for_ms) < 0)
            return -1;
        break;
    case SIM_SHAPE_DIURNAL:
        if (get_num(c, o, path, "amplitude", 1, 0, 0, 1, &ph->amplitude) < 0 ||
            get_dur(c, o, path, "period", 0, 86400000, &ph->period_ms) < 0 ||
            get_dur(c, o, path, "peak_at", 0, 14 * 3600000, &ph->peak_ms) < 0)
            return -1;
        if (ph->period_ms <= 0) {
            char p[SIM_PATH_MAX];
            path_key(p, path, "period");
            return fail(c, p, "must be > 0");
        }
        break;
    case SIM_SHAPE_BURSTS:
        if ((r = get_num(c, o, path, "requests", 0, 0, 1, 1e12, &req)) < 0 ||
            get_dur(c, o, path, "on", 0, 0, &ph->on_ms) < 0 ||
            get_dur(c, o, path, "gap", 1, 0, &ph->gap_ms) < 0)
            return -1;
        ph->burst_requests = r ? (int64_t)req : 0;
        if (r && json_object_get(o, "on"))
            return fail(c, path, "give \"requests\" or \"on\", not both");
        if (!r && !json_object_get(o, "on"))
            return fail(c, path, "bursts need \"requests\" (closed model) or \"on\"");
        if (r && !ph->closed) {
            char p[SIM_PATH_MAX];
            path_key(p, path, "requests");
            return fail(c, p, "only for closed-model phases (\"clients\"); use \"on\" with a rate");
        }
        if (!r && ph->on_ms <= 0) {
            char p[SIM_PATH_MAX];
            path_key(p, path, "on");
            return fail(c, p, "must be > 0");
        }
        break;
    }
    return 0;
}

static int parse_phase(struct ctx *c, const json_t *o, const char *path, struct sim_phase *ph,
                       int64_t duration_ms)
{
    static const char *const keys[] = { "at",      "until", "for",   "target", "rate",
                                        "clients", "think", "trace", "shape",  NULL };
    char p[SIM_PATH_MAX];
    char *trace = NULL;
    json_t *v;
    int hr, hc, ht, hu, hf;
    int64_t for_ms;

    path_join(ph->path, path, "");
    if (check_keys(c, o, path, keys) != 0 || get_dur(c, o, path, "at", 0, 0, &ph->at_ms) < 0 ||
        (hu = get_dur(c, o, path, "until", 0, duration_ms, &ph->until_ms)) < 0 ||
        (hf = get_dur(c, o, path, "for", 0, 0, &for_ms)) < 0 ||
        get_str(c, o, path, "target", 0, NULL, &ph->target) < 0 ||
        (hr = get_num(c, o, path, "rate", 0, 0, 0, 1e9, &ph->value)) < 0)
        return -1;
    if (hu && hf)
        return fail(c, path, "give \"until\" or \"for\", not both");
    if (hf)
        ph->until_ms = ph->at_ms + for_ms;
    if (ph->until_ms <= ph->at_ms) {
        path_key(p, path, hu ? "until" : "at");
        return fail(c, p, "the phase must end after it starts");
    }
    if (!hr) {
        if ((hc = get_num(c, o, path, "clients", 0, 0, 0, 1e7, &ph->value)) < 0)
            return -1;
    } else {
        hc = json_object_get(o, "clients") != NULL;
    }
    if ((ht = get_str(c, o, path, "trace", 0, NULL, &trace)) < 0)
        return -1;
    if (hr + hc + ht != 1) {
        free(trace);
        return fail(c, path, "give exactly one of \"rate\", \"clients\", \"trace\"");
    }
    ph->closed = hc;
    if (hc) {
        int64_t think;
        if (get_dur(c, o, path, "think", 0, 0, &think) < 0)
            return -1;
        ph->think_ms = (double)think;
        if (ph->value != floor(ph->value)) {
            path_key(p, path, "clients");
            return fail(c, p, "must be a whole number");
        }
    } else if (json_object_get(o, "think")) {
        path_key(p, path, "think");
        return fail(c, p, "only for closed-model phases (\"clients\")");
    }
    if (ht) {
        path_key(p, path, "trace");
        if (read_trace(c, p, trace, ph) != 0) {
            free(trace);
            return -1;
        }
        free(trace);
        if (json_object_get(o, "shape")) {
            path_key(p, path, "shape");
            return fail(c, p, "a trace phase takes no shape");
        }
    }
    ph->shape = SIM_SHAPE_CONSTANT;
    if (lookup(c, o, path, "shape", 0, &v, p) > 0 && parse_shape(c, v, p, ph) != 0)
        return -1;
    if (ph->closed && ph->shape != SIM_SHAPE_CONSTANT && ph->shape != SIM_SHAPE_BURSTS &&
        ph->to != floor(ph->to)) {
        path_key(p, path, "shape");
        return fail(c, p, ".to: clients must be a whole number");
    }
    return 0;
}

/* ---- faults ---- */

static int parse_fault(struct ctx *c, const json_t *o, const char *path, struct sim_fault *f)
{
    static const char *const keys[] = { "at", "kill", "hang", "slow", "az_outage", NULL };
    static const char *const kinds[] = { "kill", "hang", "slow", "az_outage", NULL };
    static const char *const inst_keys[] = { "group", "count", "factor", "for", NULL };
    static const char *const az_keys[] = { "zone", "for", NULL };
    char p[SIM_PATH_MAX];
    json_t *v = NULL;
    int found = 0;

    path_join(f->path, path, "");
    if (check_keys(c, o, path, keys) != 0 || get_dur(c, o, path, "at", 1, 0, &f->at_ms) < 0)
        return -1;
    for (int i = 0; kinds[i]; i++) {
        if (json_object_get(o, kinds[i])) {
            found++;
            f->kind = (enum sim_fault_kind)i;
            v = json_object_get(o, kinds[i]);
            path_key(p, path, kinds[i]);
        }
    }
    if (found != 1)
        return fail(c, path, "give exactly one of \"kill\", \"hang\", \"slow\", \"az_outage\"");
    if (want_object(c, v, p) != 0)
        return -1;
    if (f->kind == SIM_FAULT_AZ_OUTAGE) {
        if (check_keys(c, v, p, az_keys) != 0 || get_str(c, v, p, "zone", 1, NULL, &f->zone) < 0 ||
            get_dur(c, v, p, "for", 0, 0, &f->for_ms) < 0)
            return -1;
        return 0;
    }
    if (check_keys(c, v, p, inst_keys) != 0 || get_str(c, v, p, "group", 0, NULL, &f->group) < 0 ||
        get_int(c, v, p, "count", 0, 1, 1, 100000, &f->count) < 0)
        return -1;
    if (f->kind == SIM_FAULT_KILL && (json_object_get(v, "for") || json_object_get(v, "factor"))) {
        char pk[SIM_PATH_MAX];
        path_key(pk, p, json_object_get(v, "for") ? "for" : "factor");
        return fail(c, pk, "not a key of \"kill\"");
    }
    if (f->kind == SIM_FAULT_HANG && json_object_get(v, "factor")) {
        char pk[SIM_PATH_MAX];
        path_key(pk, p, "factor");
        return fail(c, pk, "only for \"slow\"");
    }
    if (get_dur(c, v, p, "for", 0, 0, &f->for_ms) < 0)
        return -1;
    if (f->kind == SIM_FAULT_SLOW && get_num(c, v, p, "factor", 1, 1, 1, 1e6, &f->factor) < 0)
        return -1;
    return 0;
}

/* ---- expectations ---- */

static int parse_bounds(struct ctx *c, const json_t *v, const char *p, struct sim_expect *e,
                        int need_max_only)
{
    static const char *const keys[] = { "min", "max", NULL };
    static const char *const max_keys[] = { "max", NULL };

    if (want_object(c, v, p) != 0 || check_keys(c, v, p, need_max_only ? max_keys : keys) != 0 ||
        (e->has_min = get_num(c, v, p, "min", 0, 0, 0, 1e12, &e->min)) < 0 ||
        (e->has_max = get_num(c, v, p, "max", need_max_only, 0, 0, 1e12, &e->max)) < 0)
        return -1;
    if (!e->has_min && !e->has_max)
        return fail(c, p, "give \"min\", \"max\" or both");
    if (e->has_min && e->has_max && e->min > e->max) {
        char pk[SIM_PATH_MAX];
        path_key(pk, p, "min");
        return fail(c, pk, "must be <= max (%g), is %g", e->max, e->min);
    }
    return 0;
}

static int parse_expect(struct ctx *c, const json_t *o, const char *path, struct sim_expect *e,
                        int64_t duration_ms)
{
    static const char *const keys[] = { "name",
                                        "group",
                                        "at",
                                        "by",
                                        "throughout",
                                        "from",
                                        "until",
                                        "window",
                                        "in_service",
                                        "desired",
                                        "failed_pct",
                                        "p99_ms",
                                        "direction_changes",
                                        "scale_out",
                                        NULL };
    static const char *const checks[] = { "in_service",        "desired",   "failed_pct", "p99_ms",
                                          "direction_changes", "scale_out", NULL };
    static const char *const so_keys[] = { "after", "within", NULL };
    char p[SIM_PATH_MAX];
    json_t *v = NULL;
    int found = 0, hat, hby, hth = 0, hfrom, huntil, hw;
    int64_t at_ms = 0, by_ms = 0;

    path_join(e->path, path, "");
    if (check_keys(c, o, path, keys) != 0 || get_str(c, o, path, "name", 0, NULL, &e->label) < 0 ||
        get_str(c, o, path, "group", 0, NULL, &e->group) < 0)
        return -1;
    for (int i = 0; checks[i]; i++) {
        if (json_object_get(o, checks[i])) {
            found++;
            e->kind = (enum sim_expect_kind)i;
            v = json_object_get(o, checks[i]);
            path_key(p, path, checks[i]);
        }
    }
    if (found != 1)
        return fail(c, path,
                    "give exactly one check: in_service, desired, failed_pct, p99_ms, "
                    "direction_changes, scale_out");
    if ((hat = get_dur(c, o, path, "at", 0, 0, &at_ms)) < 0 ||
        (hby = get_dur(c, o, path, "by", 0, 0, &by_ms)) < 0 ||
        get_bool(c, o, path, "throughout", 0, &hth) < 0 ||
        (hfrom = get_dur(c, o, path, "from", 0, 0, &e->from_ms)) < 0 ||
        (huntil = get_dur(c, o, path, "until", 0, duration_ms, &e->until_ms)) < 0 ||
        (hw = get_dur(c, o, path, "window", 0, 0, &e->window_ms)) < 0)
        return -1;
    if (hat && hby)
        return fail(c, path, "give \"at\" or \"by\", not both");
    e->at_ms = hat ? at_ms : by_ms;
    if ((hat || hby) && (hth || hfrom || huntil))
        return fail(c, path, "\"%s\" does not combine with throughout/from/until",
                    hat ? "at" : "by");
    e->when = hat ? SIM_WHEN_AT : hby ? SIM_WHEN_BY : SIM_WHEN_THROUGHOUT;
    if (e->when == SIM_WHEN_THROUGHOUT && e->from_ms > e->until_ms) {
        char pk[SIM_PATH_MAX];
        path_key(pk, path, "from");
        return fail(c, pk, "must be <= until");
    }
    if (hw && e->kind != SIM_EXPECT_DIRECTION_CHANGES) {
        char pk[SIM_PATH_MAX];
        path_key(pk, path, "window");
        return fail(c, pk, "only for direction_changes");
    }
    switch (e->kind) {
    case SIM_EXPECT_IN_SERVICE:
    case SIM_EXPECT_DESIRED:
        return parse_bounds(c, v, p, e, 0);
    case SIM_EXPECT_FAILED_PCT:
    case SIM_EXPECT_P99_MS:
        if (hat || hby)
            return fail(c, path, "%s is checked over a span: use throughout/from/until",
                        e->kind == SIM_EXPECT_P99_MS ? "p99_ms" : "failed_pct");
        return parse_bounds(c, v, p, e, 1);
    case SIM_EXPECT_DIRECTION_CHANGES:
        if (hat || hby)
            return fail(c, path, "direction_changes is checked over a span: use window/from/until");
        if (!hw)
            e->window_ms = e->until_ms - e->from_ms;
        if (e->window_ms <= 0) {
            char pk[SIM_PATH_MAX];
            path_key(pk, path, "window");
            return fail(c, pk, "must be > 0");
        }
        return parse_bounds(c, v, p, e, 1);
    case SIM_EXPECT_SCALE_OUT:
        if (hat || hby || hth || hfrom || huntil)
            return fail(c, path, "scale_out carries its own times (after, within)");
        if (want_object(c, v, p) != 0 || check_keys(c, v, p, so_keys) != 0 ||
            get_dur(c, v, p, "after", 1, 0, &e->after_ms) < 0 ||
            get_dur(c, v, p, "within", 1, 0, &e->within_ms) < 0)
            return -1;
        return 0;
    }
    return 0;
}

/* ---- the whole file ---- */

static int parse_start(struct ctx *c, const json_t *o, int64_t *out)
{
    char p[SIM_PATH_MAX] = "$.start";
    json_t *v = json_object_get(o, "start");
    struct tm tm;
    const char *s, *end;

    *out = 1767225600000LL; /* 2026-01-01T00:00:00Z */
    if (!v)
        return 0;
    if (!json_is_string(v))
        return fail(c, p, "must be a string (2026-01-01T00:00:00Z), not %s", type_name(v));
    s = json_string_value(v);
    memset(&tm, 0, sizeof(tm));
    end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!end || *end)
        return fail(c, p, "not a UTC time like 2026-01-01T00:00:00Z: \"%s\"", s);
    *out = (int64_t)timegm(&tm) * 1000;
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
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
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

double sim_app_mean_service_s(const struct sim_app *app)
{
    return app->service_mean_ms / 1000.0;
}

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
