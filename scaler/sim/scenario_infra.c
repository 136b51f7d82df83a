/* scaler/sim/scenario_infra.c: the scenario's infrastructure: load balancers, launch
 * configurations and their app model, groups, scaling policies and alarms. */
#include "scaler/sim/scenario.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/xalloc.h"
#include "scaler/app.h"
#include "scaler/save.h"
#include "scaler/sim/scenario_internal.h"

/* ---- infrastructure ---- */

int parse_lb(struct ctx *c, const json_t *o, const char *path, struct sim_lb *lb)
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
    int bad = 0;

    path_join(lb->path, path, "");
    bad |= check_keys(c, o, path, keys) != 0;
    bad |= get_str(c, o, path, "name", 1, NULL, &lb->name) < 0;
    bad |= get_str_array(c, o, path, "zones", 0, &lb->zones, &lb->nzones) < 0;
    bad |= get_bool(c, o, path, "cross_zone", 1, &lb->cross_zone) < 0;
    if (get_obj_array(c, o, path, "listeners", &arr, &n, p) < 0) {
        bad = 1;
        n = 0;
    } else if (n == 0) {
        bad |= fail(c, path, "needs at least one listener in \"listeners\"") < 0;
    }
    lb->listeners = cm_xcalloc(n + 1, sizeof(*lb->listeners));
    for (size_t i = 0; i < n; i++) {
        struct sim_listener *l = &lb->listeners[lb->nlisteners++];
        json_t *lo = json_array_get(arr, i);
        path_idx(pi, p, i);
        bad |= check_keys(c, lo, pi, l_keys) != 0;
        bad |= get_int(c, lo, pi, "lb_port", 1, 0, 1, 65535, &l->lb_port) < 0;
        bad |= get_int(c, lo, pi, "instance_port", 1, 0, 1, 65535, &l->instance_port) < 0;
        bad |= get_enum(c, lo, pi, "protocol", 0, "HTTP", protos, &l->protocol) < 0;
        bad |= get_enum(c, lo, pi, "instance_protocol", 0, NULL, protos, &l->instance_protocol) < 0;
    }
    if (lookup(c, o, path, "health_check", 0, &v, p) > 0) {
        struct sim_health_check *hc = &lb->health_check;
        int hbad = want_object(c, v, p) != 0;

        if (!hbad) {
            hbad |= check_keys(c, v, p, hc_keys) != 0;
            hbad |= get_str(c, v, p, "target", 1, NULL, &hc->target) < 0;
            hbad |= get_int(c, v, p, "interval", 0, 30, 1, 100000, &hc->interval_s) < 0;
            hbad |= get_int(c, v, p, "timeout", 0, 5, 1, 100000, &hc->timeout_s) < 0;
            hbad |= get_int(c, v, p, "unhealthy_threshold", 0, 2, 1, 1000,
                            &hc->unhealthy_threshold) < 0;
            hbad |=
                get_int(c, v, p, "healthy_threshold", 0, 10, 1, 1000, &hc->healthy_threshold) < 0;
        }
        bad |= hbad;
        lb->has_health_check = !hbad;
    }
    lb->draining = 0;
    lb->draining_timeout_s = 300;
    if (lookup(c, o, path, "connection_draining", 0, &v, p) > 0 && !json_is_false(v)) {
        if (parse_duration_value(c, v, p, &dr) != 0) {
            bad = 1;
        } else {
            lb->draining = 1;
            lb->draining_timeout_s = (int)(dr / 1000);
        }
    }
    return bad ? -1 : 0;
}

/* The launch configuration's app: the one profile (scaler/app.h), and the simulator's own
 * limit on it. */
static int parse_app(struct ctx *c, const json_t *o, const char *path, struct sc_app *a)
{
    char p[SIM_PATH_MAX];

    if (sc_app_parse_lint(a, o, path, c->lint) != SC_OK)
        return -1;
    if (a->service_mean_ms <= 0) {
        /* 0 (answer at once) is the emulator's; a queue served in no time has no model */
        path_key(p, path, "service_ms");
        return fail(c, p, "service time must be > 0");
    }
    return 0;
}

int parse_lc(struct ctx *c, const json_t *o, const char *path, struct sim_launch_config *lc)
{
    static const char *const keys[] = { "name", "image_id", "instance_type", "app", NULL };
    char p[SIM_PATH_MAX];
    json_t *v;

    int bad = 0;

    path_join(lc->path, path, "");
    bad |= check_keys(c, o, path, keys) != 0;
    bad |= get_str(c, o, path, "name", 1, NULL, &lc->name) < 0;
    bad |= get_str(c, o, path, "image_id", 0, "ami-0c02fb55956c7d316", &lc->image_id) < 0;
    bad |= get_str(c, o, path, "instance_type", 0, "t3.micro", &lc->instance_type) < 0;
    if (lookup(c, o, path, "app", 1, &v, p) <= 0)
        return -1;
    bad |= parse_app(c, v, p, &lc->app) < 0;
    return bad ? -1 : 0;
}

/* $.infrastructure.groups[i].lifecycle_hooks (docs/scenarios.md). */
static int parse_hooks(struct ctx *c, const json_t *o, const char *path, struct sim_group *g)
{
    static const char *const keys[] = { "name",           "transition", "heartbeat_timeout",
                                        "default_result", "handler",    NULL };
    static const char *const hkeys[] = { "after", "result", NULL };
    static const char *const trans[] = { "launching", "terminating", NULL };
    static const char *const results[] = { "CONTINUE", "ABANDON", NULL };
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX], ph[SIM_PATH_MAX];
    json_t *arr, *h;
    size_t n;
    int r, bad = 0;

    r = get_obj_array(c, o, path, "lifecycle_hooks", &arr, &n, p);
    if (r <= 0)
        return r;
    g->hooks = cm_xcalloc(n + 1, sizeof(*g->hooks));
    for (size_t i = 0; i < n; i++) {
        struct sim_hook *k = &g->hooks[i];
        const json_t *ho = json_array_get(arr, i);
        char *t = NULL;
        int kbad = 0;

        path_idx(pi, p, i);
        g->nhooks++;
        kbad |= check_keys(c, ho, pi, keys) != 0;
        kbad |= get_str(c, ho, pi, "name", 1, NULL, &k->name) < 0;
        kbad |= get_enum(c, ho, pi, "transition", 1, NULL, trans, &t) < 0;
        kbad |= get_int(c, ho, pi, "heartbeat_timeout", 0, 3600, 30, 7200, &k->heartbeat_s) < 0;
        kbad |=
            get_enum(c, ho, pi, "default_result", 0, "ABANDON", results, &k->default_result) < 0;
        k->launching = t && strcmp(t, "launching") == 0;
        free(t);
        h = json_object_get(ho, "handler");
        if (h) {
            path_key(ph, pi, "handler");
            if (want_object(c, h, ph) != 0) {
                kbad = 1;
            } else {
                kbad |= check_keys(c, h, ph, hkeys) != 0;
                kbad |= get_dur(c, h, ph, "after", 1, 0, &k->handler_after_ms) < 0;
                kbad |=
                    get_enum(c, h, ph, "result", 0, "CONTINUE", results, &k->handler_result) < 0;
                k->has_handler = 1;
            }
        }
        bad |= kbad;
    }
    if (bad)
        return -1;
    for (int i = 1; i < g->nhooks; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(g->hooks[i].name, g->hooks[j].name) == 0) {
                path_idx(pi, p, (size_t)i);
                return fail(c, pi, "a second hook named \"%s\"", g->hooks[i].name);
            }
    return 0;
}

/* $.infrastructure.groups[i].notifications (docs/scenarios.md): the rules (an SNS topic ARN,
 * the five types) are libscaler's, checked when the run puts them. */
static int parse_notifications(struct ctx *c, const json_t *o, const char *path,
                               struct sim_group *g)
{
    static const char *const keys[] = { "topic_arn", "types", NULL };
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];
    json_t *arr;
    size_t n;
    int r, bad = 0;

    r = get_obj_array(c, o, path, "notifications", &arr, &n, p);
    if (r <= 0)
        return r;
    g->notifications = cm_xcalloc(n + 1, sizeof(*g->notifications));
    for (size_t i = 0; i < n; i++) {
        struct sim_notify *k = &g->notifications[i];
        const json_t *no = json_array_get(arr, i);

        path_idx(pi, p, i);
        g->nnotifications++;
        bad |= check_keys(c, no, pi, keys) != 0;
        bad |= get_str(c, no, pi, "topic_arn", 1, NULL, &k->topic_arn) < 0;
        bad |= get_str_array(c, no, pi, "types", 1, &k->types, &k->ntypes) < 0;
    }
    return bad ? -1 : 0;
}

/* $.infrastructure.groups[i].scheduled_actions (docs/scenarios.md): the rules (a size, a
 * time or a recurrence that parses) are libscaler's, checked when the run puts them. */
static int parse_scheds(struct ctx *c, const json_t *o, const char *path, struct sim_group *g)
{
    static const char *const keys[] = { "name", "at",  "until",   "recurrence", "time_zone",
                                        "min",  "max", "desired", NULL };
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];
    json_t *arr;
    size_t n;
    int r, bad = 0;

    r = get_obj_array(c, o, path, "scheduled_actions", &arr, &n, p);
    if (r <= 0)
        return r;
    g->scheds = cm_xcalloc(n + 1, sizeof(*g->scheds));
    for (size_t i = 0; i < n; i++) {
        struct sim_sched *s = &g->scheds[i];
        const json_t *so = json_array_get(arr, i);
        int ra, ru, rmin, rmax, rd;

        path_idx(pi, p, i);
        g->nscheds++;
        bad |= check_keys(c, so, pi, keys) != 0;
        bad |= get_str(c, so, pi, "name", 1, NULL, &s->name) < 0;
        bad |= (ra = get_dur(c, so, pi, "at", 0, 0, &s->at_ms)) < 0;
        bad |= (ru = get_dur(c, so, pi, "until", 0, 0, &s->until_ms)) < 0;
        bad |= get_str(c, so, pi, "recurrence", 0, NULL, &s->recurrence) < 0;
        bad |= get_str(c, so, pi, "time_zone", 0, NULL, &s->time_zone) < 0;
        bad |= (rmin = get_int(c, so, pi, "min", 0, 0, 0, 100000, &s->min)) < 0;
        bad |= (rmax = get_int(c, so, pi, "max", 0, 0, 0, 100000, &s->max)) < 0;
        bad |= (rd = get_int(c, so, pi, "desired", 0, 0, 0, 100000, &s->desired)) < 0;
        if (bad)
            continue;
        s->has_at = ra;
        s->has_until = ru;
        s->has_min = rmin;
        s->has_max = rmax;
        s->has_desired = rd;
    }
    return bad ? -1 : 0;
}

/* $.infrastructure.groups[i].instance_refresh (docs/scenarios.md): the preferences' rules
 * are libscaler's, checked when the run starts it. */
static int parse_refresh(struct ctx *c, const json_t *o, const char *path, struct sim_group *g)
{
    static const char *const keys[] = { "at",
                                        "launch_configuration",
                                        "min_healthy_percentage",
                                        "max_healthy_percentage",
                                        "instance_warmup",
                                        "checkpoint_percentages",
                                        "checkpoint_delay",
                                        NULL };
    struct sim_refresh *r = &g->refresh;
    const json_t *ro = json_object_get(o, "instance_refresh"), *cp;
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX], pk[SIM_PATH_MAX];
    int64_t warm_ms = 0, delay_ms = 0;
    int rw, rd, bad = 0;

    if (!ro)
        return 0;
    path_key(p, path, "instance_refresh");
    if (want_object(c, ro, p) != 0)
        return -1;
    bad |= check_keys(c, ro, p, keys) != 0;
    bad |= get_dur(c, ro, p, "at", 1, 0, &r->at_ms) < 0;
    bad |= get_str(c, ro, p, "launch_configuration", 0, NULL, &r->launch_configuration) < 0;
    bad |= (r->has_min = get_int(c, ro, p, "min_healthy_percentage", 0, 90, 0, 100,
                                 &r->min_healthy_percentage)) < 0;
    bad |= (r->has_max = get_int(c, ro, p, "max_healthy_percentage", 0, 100, 100, 200,
                                 &r->max_healthy_percentage)) < 0;
    bad |= (rw = get_dur(c, ro, p, "instance_warmup", 0, 0, &warm_ms)) < 0;
    bad |= (rd = get_dur(c, ro, p, "checkpoint_delay", 0, 0, &delay_ms)) < 0;
    r->has = 1;
    r->has_warmup = rw;
    r->instance_warmup_s = (int)(warm_ms / 1000);
    r->has_delay = rd;
    r->checkpoint_delay_s = (int)(delay_ms / 1000);
    cp = json_object_get(ro, "checkpoint_percentages");
    if (cp) {
        path_key(pi, p, "checkpoint_percentages");
        if (!json_is_array(cp))
            return fail(c, pi, "must be an array of percentages");
        r->checkpoints = cm_xcalloc(json_array_size(cp) + 1, sizeof(*r->checkpoints));
        for (size_t k = 0; k < json_array_size(cp); k++) {
            const json_t *v = json_array_get(cp, k);

            if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 100) {
                path_idx(pk, pi, k);
                bad |= fail(c, pk, "must be an integer in 1..100") < 0;
                continue;
            }
            r->checkpoints[r->ncheckpoints++] = (int)json_integer_value(v);
        }
    }
    return bad ? -1 : 0;
}

/* $.infrastructure.groups[i].launch_instances (docs/scenarios.md): LaunchInstances calls at
 * their times. Here the shapes and what the file alone shows wrong (a capacity below 1, a
 * RetryStrategy outside the model's enum); a zone outside the group is checked with the
 * references (scenario.c), every other rule is libscaler's when the run makes the call. */
static int parse_launches(struct ctx *c, const json_t *o, const char *path, struct sim_group *g)
{
    static const char *const keys[] = { "at",           "requested_capacity",
                                        "zone",         "retry_strategy",
                                        "client_token", NULL };
    static const char *const retries[] = { "none", "retry-with-group-configuration", NULL };
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];
    json_t *arr;
    size_t n;
    int r, bad = 0;

    r = get_obj_array(c, o, path, "launch_instances", &arr, &n, p);
    if (r <= 0)
        return r;
    g->launches = cm_xcalloc(n + 1, sizeof(*g->launches));
    for (size_t i = 0; i < n; i++) {
        struct sim_launch *l = &g->launches[i];
        const json_t *lo = json_array_get(arr, i);

        path_idx(pi, p, i);
        g->nlaunches++;
        bad |= check_keys(c, lo, pi, keys) != 0;
        bad |= get_dur(c, lo, pi, "at", 1, 0, &l->at_ms) < 0;
        bad |=
            get_int(c, lo, pi, "requested_capacity", 1, 0, 1, 100000, &l->requested_capacity) < 0;
        bad |= get_str(c, lo, pi, "zone", 0, NULL, &l->zone) < 0;
        bad |= get_enum(c, lo, pi, "retry_strategy", 0, NULL, retries, &l->retry_strategy) < 0;
        bad |= get_str(c, lo, pi, "client_token", 0, NULL, &l->client_token) < 0;
    }
    return bad ? -1 : 0;
}

/* $.infrastructure.groups[i].warm_pool (docs/scenarios.md): the rules (sizes, the mixed
 * policy refusal) are libscaler's, checked when the run puts it. */
static int parse_warm(struct ctx *c, const json_t *o, const char *path, struct sim_group *g)
{
    static const char *const keys[] = { "min_size", "max_group_prepared_capacity", "pool_state",
                                        "reuse_on_scale_in", NULL };
    static const char *const states[] = { "Stopped", "Running", "Hibernated", NULL };
    const json_t *w = json_object_get(o, "warm_pool");
    char p[SIM_PATH_MAX];
    int r, bad = 0;

    if (!w)
        return 0;
    path_key(p, path, "warm_pool");
    if (want_object(c, w, p) != 0)
        return -1;
    bad |= check_keys(c, w, p, keys) != 0;
    g->warm = cm_xcalloc(1, sizeof(*g->warm));
    bad |= get_int(c, w, p, "min_size", 0, 0, 0, 100000, &g->warm->min_size) < 0;
    bad |= (r = get_int(c, w, p, "max_group_prepared_capacity", 0, 0, 0, 100000,
                        &g->warm->max_group_prepared_capacity)) < 0;
    bad |= get_enum(c, w, p, "pool_state", 0, "Stopped", states, &g->warm->pool_state) < 0;
    bad |= get_bool(c, w, p, "reuse_on_scale_in", 0, &g->warm->reuse_on_scale_in) < 0;
    g->warm->has_max_group_prepared_capacity = r > 0;
    return bad ? -1 : 0;
}

int parse_group(struct ctx *c, const json_t *o, const char *path, struct sim_group *g)
{
    static const char *const keys[] = { "name",
                                        "launch_configuration",
                                        "launch_template",
                                        "min",
                                        "max",
                                        "desired",
                                        "zones",
                                        "load_balancers",
                                        "target_groups",
                                        "default_cooldown",
                                        "health_check_type",
                                        "health_check_grace_period",
                                        "termination_policies",
                                        "new_instances_protected_from_scale_in",
                                        "lifecycle_hooks",
                                        "scheduled_actions",
                                        "instance_refresh",
                                        "warm_pool",
                                        "notifications",
                                        "max_instance_lifetime",
                                        "launch_instances",
                                        NULL };
    static const char *const hct[] = { "EC2", "ELB", NULL };
    char p[SIM_PATH_MAX];

    int r, rmin, rmax, bad = 0;

    path_join(g->path, path, "");
    bad |= check_keys(c, o, path, keys) != 0;
    bad |= get_str(c, o, path, "name", 1, NULL, &g->name) < 0;
    bad |= get_str(c, o, path, "launch_configuration", 0, NULL, &g->launch_configuration) < 0;
    bad |= get_str(c, o, path, "launch_template", 0, NULL, &g->launch_template) < 0;
    if (!json_object_get(o, "launch_configuration") && !json_object_get(o, "launch_template")) {
        bad |= fail(c, path,
                    "missing required key \"launch_configuration\" (or "
                    "\"launch_template\")") < 0;
    } else if (g->launch_configuration && g->launch_template) {
        path_key(p, path, "launch_template");
        bad |= fail(c, p, "not with \"launch_configuration\" (a group launches from one)") < 0;
    }
    bad |= (rmin = get_int(c, o, path, "min", 1, 0, 0, 100000, &g->min)) < 0;
    bad |= (rmax = get_int(c, o, path, "max", 1, 0, 0, 100000, &g->max)) < 0;
    bad |= (r = get_int(c, o, path, "desired", 0, 0, 0, 100000, &g->desired)) < 0;
    bad |= get_str_array(c, o, path, "zones", 0, &g->zones, &g->nzones) < 0;
    bad |=
        get_str_array(c, o, path, "load_balancers", 0, &g->load_balancers, &g->nload_balancers) < 0;
    bad |= get_str_array(c, o, path, "target_groups", 0, &g->target_groups, &g->ntarget_groups) < 0;
    bad |=
        get_int(c, o, path, "default_cooldown", 0, 300, 0, 100000000, &g->default_cooldown_s) < 0;
    bad |= get_enum(c, o, path, "health_check_type", 0, "EC2", hct, &g->health_check_type) < 0;
    bad |= get_int(c, o, path, "health_check_grace_period", 0, 300, 0, 100000000,
                   &g->health_check_grace_period_s) < 0;
    bad |= get_str_array(c, o, path, "termination_policies", 0, &g->termination_policies,
                         &g->ntermination_policies) < 0;
    bad |= get_bool(c, o, path, "new_instances_protected_from_scale_in", 0,
                    &g->new_instances_protected_from_scale_in) < 0;
    bad |= (g->has_max_instance_lifetime = get_int(c, o, path, "max_instance_lifetime", 0, 0, 0,
                                                   2000000000, &g->max_instance_lifetime_s)) < 0;
    bad |= parse_hooks(c, o, path, g) < 0;
    bad |= parse_scheds(c, o, path, g) < 0;
    bad |= parse_refresh(c, o, path, g) < 0;
    bad |= parse_warm(c, o, path, g) < 0;
    bad |= parse_notifications(c, o, path, g) < 0;
    bad |= parse_launches(c, o, path, g) < 0;
    g->has_desired = r > 0;
    if (rmin < 0 || rmax < 0) {
        /* what the good one of the two still bounds */
        if (g->has_desired && rmin >= 0 && g->desired < g->min) {
            path_key(p, path, "desired");
            fail(c, p, "must be >= min (%d), is %d", g->min, g->desired);
        } else if (g->has_desired && rmax >= 0 && g->desired > g->max) {
            path_key(p, path, "desired");
            fail(c, p, "must be <= max (%d), is %d", g->max, g->desired);
        }
        return -1;
    }
    if (g->min > g->max) {
        path_key(p, path, "min");
        return fail(c, p, "must be <= max (%d), is %d", g->max, g->min);
    }
    if (g->has_desired && (g->desired < g->min || g->desired > g->max)) {
        path_key(p, path, "desired");
        return fail(c, p, "must be within min..max (%d..%d), is %d", g->min, g->max, g->desired);
    }
    return bad ? -1 : 0;
}

static int parse_tt_metrics(struct ctx *c, const json_t *target, const char *path,
                            struct sim_policy *pl);

/* type PredictiveScaling: "predictive": {metric, resource_label, target, mode,
 * scheduling_buffer_time, max_capacity_breach_behavior, max_capacity_buffer}, the
 * PredictiveScalingConfiguration with a metric pair; the rules are libscaler's. */
static int parse_predictive(struct ctx *c, const json_t *o, const char *path, struct sim_policy *pl)
{
    static const char *const keys[] = { "metric",
                                        "resource_label",
                                        "target",
                                        "mode",
                                        "scheduling_buffer_time",
                                        "max_capacity_breach_behavior",
                                        "max_capacity_buffer",
                                        NULL };
    static const char *const pairs[] = { "ASGCPUUtilization", "ASGNetworkIn", "ASGNetworkOut",
                                         "ALBRequestCount", NULL };
    static const char *const modes[] = { "ForecastOnly", "ForecastAndScale", NULL };
    static const char *const breach[] = { "HonorMaxCapacity", "IncreaseMaxCapacity", NULL };
    static const char *const bad[] = { "adjustment",
                                       "adjustment_type",
                                       "cooldown",
                                       "steps",
                                       "min_adjustment_magnitude",
                                       "metric_aggregation_type",
                                       "estimated_instance_warmup",
                                       "target",
                                       NULL };
    char p[SIM_PATH_MAX];
    json_t *v;
    int r, wrong = 0;

    for (const char *const *b = bad; *b; b++)
        if (json_object_get(o, *b)) {
            path_key(p, path, *b);
            wrong |= fail(c, p, "not for type PredictiveScaling") < 0;
        }
    if (lookup(c, o, path, "predictive", 1, &v, p) <= 0 || want_object(c, v, p) != 0)
        return -1;
    wrong |= check_keys(c, v, p, keys) != 0;
    wrong |= get_enum(c, v, p, "metric", 0, "ASGCPUUtilization", pairs, &pl->predefined_metric) < 0;
    wrong |= get_str(c, v, p, "resource_label", 0, NULL, &pl->resource_label) < 0;
    wrong |= get_num(c, v, p, "target", 1, 0, 0, 1e12, &pl->target_value) < 0;
    wrong |= get_enum(c, v, p, "mode", 0, "ForecastOnly", modes, &pl->mode) < 0;
    wrong |= get_enum(c, v, p, "max_capacity_breach_behavior", 0, "HonorMaxCapacity", breach,
                      &pl->breach) < 0;
    wrong |= (r = get_int(c, v, p, "scheduling_buffer_time", 0, 0, 0, 3600, &pl->buffer_s)) < 0;
    pl->has_buffer_s = r > 0;
    wrong |= (r = get_int(c, v, p, "max_capacity_buffer", 0, 0, 0, 100, &pl->max_buffer_pct)) < 0;
    pl->has_max_buffer = r > 0;
    return wrong ? -1 : 0;
}

int parse_policy(struct ctx *c, const json_t *o, const char *path, struct sim_policy *pl)
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
                                        "predictive",
                                        NULL };
    static const char *const types[] = { "SimpleScaling", "StepScaling", "TargetTrackingScaling",
                                         "PredictiveScaling", NULL };
    static const char *const adj[] = { "ChangeInCapacity", "ExactCapacity",
                                       "PercentChangeInCapacity", NULL };
    static const char *const agg[] = { "Average", "Minimum", "Maximum", NULL };
    static const char *const step_keys[] = { "lower", "upper", "adjustment", NULL };
    static const char *const tt_keys[] = { "predefined_metric", "resource_label", "value",
                                           "disable_scale_in",  "metrics",        NULL };
    static const char *const predef[] = { "ASGAverageCPUUtilization", "ASGAverageNetworkIn",
                                          "ASGAverageNetworkOut", "ALBRequestCountPerTarget",
                                          NULL };
    char p[SIM_PATH_MAX], pi[SIM_PATH_MAX];
    char *type = NULL;
    json_t *arr, *v;
    size_t n;
    int r, bad = 0;

    path_join(pl->path, path, "");
    bad |= check_keys(c, o, path, keys) != 0;
    bad |= get_str(c, o, path, "name", 1, NULL, &pl->name) < 0;
    bad |= get_str(c, o, path, "group", 1, NULL, &pl->group) < 0;
    if (get_enum(c, o, path, "type", 0, "SimpleScaling", types, &type) < 0) {
        /* the rest depends on the type, but for what every type takes */
        get_int(c, o, path, "estimated_instance_warmup", 0, 0, 0, 100000000,
                &pl->estimated_instance_warmup_s);
        goto fail;
    }
    pl->type = strcmp(type, "SimpleScaling") == 0           ? SIM_POLICY_SIMPLE
               : strcmp(type, "StepScaling") == 0           ? SIM_POLICY_STEP
               : strcmp(type, "TargetTrackingScaling") == 0 ? SIM_POLICY_TARGET
                                                            : SIM_POLICY_PREDICTIVE;
    free(type);
    type = NULL;
    if (pl->type == SIM_POLICY_PREDICTIVE)
        return (parse_predictive(c, o, path, pl) < 0) | bad ? -1 : 0;
    if (json_object_get(o, "predictive")) {
        path_key(p, path, "predictive");
        bad |= fail(c, p, "only for type PredictiveScaling") < 0;
    }
    bad |= (r = get_int(c, o, path, "estimated_instance_warmup", 0, 0, 0, 100000000,
                        &pl->estimated_instance_warmup_s)) < 0;
    pl->has_warmup = r > 0;

    if (pl->type != SIM_POLICY_TARGET) {
        bad |= get_enum(c, o, path, "adjustment_type", 1, NULL, adj, &pl->adjustment_type) < 0;
        bad |= (r = get_int(c, o, path, "min_adjustment_magnitude", 0, 0, 1, 100000,
                            &pl->min_adjustment_magnitude)) < 0;
        pl->has_min_adjustment_magnitude = r > 0;
        if (json_object_get(o, "target")) {
            path_key(p, path, "target");
            bad |= fail(c, p, "only for type TargetTrackingScaling") < 0;
        }
    }
    if (pl->type == SIM_POLICY_SIMPLE) {
        bad |= get_int(c, o, path, "adjustment", 1, 0, -100000, 100000, &pl->adjustment) < 0;
        bad |= (r = get_int(c, o, path, "cooldown", 0, 0, 0, 100000000, &pl->cooldown_s)) < 0;
        pl->has_cooldown = r > 0;
        if (json_object_get(o, "steps")) {
            path_key(p, path, "steps");
            bad |= fail(c, p, "only for type StepScaling") < 0;
        }
    } else if (pl->type == SIM_POLICY_STEP) {
        bad |= get_enum(c, o, path, "metric_aggregation_type", 0, "Average", agg,
                        &pl->metric_aggregation_type) < 0;
        for (int k = 0; k < 2; k++) {
            const char *key = k ? "cooldown" : "adjustment";

            if (json_object_get(o, key)) {
                path_key(p, path, key);
                bad |= fail(c, p, "only for type SimpleScaling (StepScaling uses \"steps\")") < 0;
            }
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
            int sbad = 0;

            path_idx(pi, p, i);
            sbad |= check_keys(c, so, pi, step_keys) != 0;
            sbad |=
                (s->has_lower = get_num(c, so, pi, "lower", 0, 0, -1e300, 1e300, &s->lower)) < 0;
            sbad |=
                (s->has_upper = get_num(c, so, pi, "upper", 0, 0, -1e300, 1e300, &s->upper)) < 0;
            sbad |= get_int(c, so, pi, "adjustment", 1, 0, -100000, 100000, &s->adjustment) < 0;
            if (s->has_lower > 0 && s->has_upper > 0 && s->lower >= s->upper) {
                char pk[SIM_PATH_MAX];
                path_key(pk, pi, "lower");
                sbad |= fail(c, pk, "must be < upper (%g), is %g", s->upper, s->lower) < 0;
            }
            bad |= sbad;
        }
    } else {
        static const char *const not_tt[] = {
            "adjustment", "adjustment_type",          "cooldown",
            "steps",      "min_adjustment_magnitude", "metric_aggregation_type",
            NULL
        };
        for (const char *const *b = not_tt; *b; b++)
            if (json_object_get(o, *b)) {
                path_key(p, path, *b);
                bad |= fail(c, p, "not for type TargetTrackingScaling") < 0;
            }
        if (lookup(c, o, path, "target", 1, &v, p) <= 0 || want_object(c, v, p) != 0)
            return -1;
        bad |= check_keys(c, v, p, tt_keys) != 0;
        bad |= parse_tt_metrics(c, v, p, pl) < 0;
        bad |= get_enum(c, v, p, "predefined_metric", 0,
                        pl->nmetrics ? NULL : "ASGAverageCPUUtilization", predef,
                        &pl->predefined_metric) < 0;
        bad |= get_str(c, v, p, "resource_label", 0, NULL, &pl->resource_label) < 0;
        bad |= get_num(c, v, p, "value", 1, 0, 0, 1e12, &pl->target_value) < 0;
        bad |= get_bool(c, v, p, "disable_scale_in", 0, &pl->disable_scale_in) < 0;
    }
    return bad ? -1 : 0;
fail:
    free(type);
    return -1;
}

/* target.metrics: [{id, expression | metric {namespace, name, dimensions, stat, unit,
 * period}, label, return_data, period}], CustomizedMetricSpecification.Metrics in the
 * scenario's words; the rules are libscaler's (PutScalingPolicy answers them). */
static int parse_queries(struct ctx *c, const json_t *obj, const char *path,
                         struct sc_alarm_query **out, int *nout);

static int parse_tt_metrics(struct ctx *c, const json_t *target, const char *path,
                            struct sim_policy *pl)
{
    char p[SIM_PATH_MAX];

    if (!json_object_get(target, "metrics"))
        return 0;
    if (json_object_get(target, "predefined_metric") || json_object_get(target, "resource_label")) {
        path_key(p, path, "metrics");
        return fail(c, p, "not with predefined_metric or resource_label");
    }
    return parse_queries(c, target, path, &pl->metrics, &pl->nmetrics);
}

/* obj.metrics: the query list of a policy's target or an alarm (owned into *out). */
static int parse_queries(struct ctx *c, const json_t *obj, const char *path,
                         struct sc_alarm_query **out, int *nout)
{
    static const char *const q_keys[] = { "id",          "expression", "metric", "label",
                                          "return_data", "period",     NULL };
    static const char *const m_keys[] = { "namespace", "name",   "dimensions", "stat",
                                          "unit",      "period", NULL };
    char p[SIM_PATH_MAX];
    json_t *arr;
    size_t n;
    int bad = 0;

    if (get_obj_array(c, obj, path, "metrics", &arr, &n, p) < 0)
        return -1;
    if (n == 0 || n > SC_ALARM_MAX_QUERIES)
        return fail(c, p, "needs 1 to %d queries", SC_ALARM_MAX_QUERIES);
    *out = cm_xcalloc(n, sizeof(**out));
    for (size_t i = 0; i < n; i++) {
        struct sc_alarm_query *q = &(*out)[i];
        json_t *o = json_array_get(arr, i), *m, *dv;
        char pi[SIM_PATH_MAX], pm[SIM_PATH_MAX];
        char *id = NULL, *e = NULL, *l = NULL;
        int rd = 1, qbad = 0;

        (*nout)++;
        path_idx(pi, p, i);
        qbad |= check_keys(c, o, pi, q_keys) != 0;
        qbad |= get_str(c, o, pi, "id", 1, NULL, &id) < 0;
        qbad |= get_str(c, o, pi, "expression", 0, NULL, &e) < 0;
        qbad |= get_str(c, o, pi, "label", 0, NULL, &l) < 0;
        qbad |= get_bool(c, o, pi, "return_data", 1, &rd) < 0;
        qbad |= get_int(c, o, pi, "period", 0, 0, 1, 86400, &q->period) < 0;
        bad |= qbad;
        q->id = id;
        q->expression = e;
        q->label = l;
        q->has_return_data = json_object_get(o, "return_data") != NULL;
        q->return_data = rd;
        if (lookup(c, o, pi, "metric", 0, &m, pm) <= 0)
            continue;
        if (want_object(c, m, pm) != 0) {
            bad = 1;
            continue;
        }
        bad |= check_keys(c, m, pm, m_keys) != 0;
        {
            char *ns = NULL, *name = NULL, *stat = NULL, *unit = NULL;
            int period = 0, r = 0;
            r |= get_str(c, m, pm, "namespace", 1, NULL, &ns) < 0;
            r |= get_str(c, m, pm, "name", 1, NULL, &name) < 0;
            r |= get_str(c, m, pm, "stat", 1, NULL, &stat) < 0;
            r |= get_str(c, m, pm, "unit", 0, NULL, &unit) < 0;
            r |= get_int(c, m, pm, "period", 0, 60, 1, 86400, &period) < 0;
            q->has_metric_stat = 1;
            q->metric.namespace = ns;
            q->metric.metric_name = name;
            q->stat = stat;
            q->unit = unit;
            q->has_stat_period = 1;
            q->stat_period = period;
            bad |= r;
        }
        if (lookup(c, m, pm, "dimensions", 0, &dv, pi) > 0) {
            struct sc_dimension *d;
            const char *key;
            json_t *val;
            if (want_object(c, dv, pi) != 0) {
                bad = 1;
                continue;
            }
            d = cm_xcalloc(json_object_size(dv) + 1, sizeof(*d));
            q->metric.dimensions = d;
            json_object_foreach(dv, key, val)
            {
                char pk[SIM_PATH_MAX];
                path_key(pk, pi, key);
                if (!json_is_string(val)) {
                    bad |= fail(c, pk, "must be a string, not %s", sc_json_type_name(val)) < 0;
                    continue;
                }
                d[q->metric.n_dimensions].name = cm_xstrdup(key);
                d[q->metric.n_dimensions].value = cm_xstrdup(json_string_value(val));
                q->metric.n_dimensions++;
            }
        }
    }
    return bad ? -1 : 0;
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

int parse_alarm(struct ctx *c, const json_t *o, const char *path, struct sim_alarm *a)
{
    static const char *const keys[] = { "name",       "namespace",           "metric",
                                        "dimensions", "statistic",           "extended_statistic",
                                        "period",     "evaluation_periods",  "datapoints_to_alarm",
                                        "comparison", "threshold",           "treat_missing_data",
                                        "actions",    "ok_actions",          "actions_enabled",
                                        "metrics",    "threshold_metric_id", NULL };
    static const char *const stats[] = {
        "SampleCount", "Average", "Sum", "Minimum", "Maximum", NULL
    };
    static const char *const tmd[] = { "missing", "ignore", "breaching", "notBreaching", NULL };
    char p[SIM_PATH_MAX];
    char *cmp = NULL;
    const char *name;
    json_t *v;
    int r, re, bad = 0;

    path_join(a->path, path, "");
    if (json_object_get(o, "metrics")) {
        static const char *const metric_keys[] = {
            "namespace", "metric", "dimensions", "statistic", "extended_statistic", "period", NULL
        };
        for (int i = 0; metric_keys[i]; i++)
            if (json_object_get(o, metric_keys[i])) {
                path_key(p, path, metric_keys[i]);
                bad |= fail(c, p, "not with \"metrics\" (the queries name the metrics)") < 0;
            }
    }
    bad |= check_keys(c, o, path, keys) != 0;
    bad |= get_str(c, o, path, "name", 1, NULL, &a->name) < 0;
    bad |= get_str(c, o, path, "namespace", 0, "AWS/EC2", &a->namespace_) < 0;
    bad |= get_str(c, o, path, "metric", 0, "CPUUtilization", &a->metric) < 0;
    bad |= get_enum(c, o, path, "statistic", 0, NULL, stats, &a->statistic) < 0;
    bad |= get_str(c, o, path, "extended_statistic", 0, NULL, &a->extended_statistic) < 0;
    bad |= get_int(c, o, path, "period", 0, 300, 1, 86400 * 7, &a->period_s) < 0;
    bad |= (re = get_int(c, o, path, "evaluation_periods", 0, 1, 1, 100000,
                         &a->evaluation_periods)) < 0;
    bad |= (r = get_int(c, o, path, "datapoints_to_alarm", 0, 0, 1, 100000,
                        &a->datapoints_to_alarm)) < 0;
    a->has_datapoints_to_alarm = r > 0;
    if (a->statistic && a->extended_statistic)
        bad |= fail(c, path, "give \"statistic\" or \"extended_statistic\", not both") < 0;
    if (!a->statistic && !a->extended_statistic)
        a->statistic = cm_xstrdup("Average");
    if (re >= 0 && a->has_datapoints_to_alarm && a->datapoints_to_alarm > a->evaluation_periods) {
        path_key(p, path, "datapoints_to_alarm");
        bad |= fail(c, p, "must be <= evaluation_periods (%d), is %d", a->evaluation_periods,
                    a->datapoints_to_alarm) < 0;
    }
    if (get_str(c, o, path, "comparison", 1, NULL, &cmp) < 0) {
        bad = 1;
    } else {
        name = comparison_name(cmp);
        if (!name) {
            path_key(p, path, "comparison");
            bad |= fail(c, p, "must be >, >=, <, <= or an AWS ComparisonOperator, not \"%s\"",
                        cmp) < 0;
        } else {
            a->comparison = cm_xstrdup(name);
        }
        free(cmp);
    }
    bad |= get_str(c, o, path, "threshold_metric_id", 0, NULL, &a->threshold_metric_id) < 0;
    if (json_object_get(o, "metrics"))
        bad |= parse_queries(c, o, path, &a->metrics, &a->nmetrics) < 0;
    bad |= get_num(c, o, path, "threshold", !a->threshold_metric_id, 0, -1e300, 1e300,
                   &a->threshold) < 0;
    bad |= get_enum(c, o, path, "treat_missing_data", 0, NULL, tmd, &a->treat_missing_data) < 0;
    bad |= get_str_array(c, o, path, "actions", 0, &a->actions, &a->nactions) < 0;
    bad |= get_str_array(c, o, path, "ok_actions", 0, &a->ok_actions, &a->nok_actions) < 0;
    bad |= get_bool(c, o, path, "actions_enabled", 1, &a->actions_enabled) < 0;
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
            if (!json_is_string(dv)) {
                bad |= fail(c, pk, "must be a string, not %s", sc_json_type_name(dv)) < 0;
                continue;
            }
            a->dimensions[a->ndimensions].name = cm_xstrdup(key);
            a->dimensions[a->ndimensions].value = cm_xstrdup(json_string_value(dv));
            a->ndimensions++;
        }
    }
    return bad ? -1 : 0;
}

/* infrastructure.composite_alarms[i]. The rule and the suppressor's periods are checked by
 * libscaler when the run puts the composite (AWS's ValidationError texts); here only the
 * shapes. */
int parse_composite(struct ctx *c, const json_t *o, const char *path, struct sim_composite *a)
{
    static const char *const keys[] = { "name",
                                        "alarm_rule",
                                        "actions",
                                        "ok_actions",
                                        "actions_enabled",
                                        "actions_suppressor",
                                        "actions_suppressor_wait_period",
                                        "actions_suppressor_extension_period",
                                        NULL };
    int r, bad = 0;

    path_join(a->path, path, "");
    bad |= check_keys(c, o, path, keys) != 0;
    bad |= get_str(c, o, path, "name", 1, NULL, &a->name) < 0;
    bad |= get_str(c, o, path, "alarm_rule", 1, NULL, &a->alarm_rule) < 0;
    bad |= get_str_array(c, o, path, "actions", 0, &a->actions, &a->nactions) < 0;
    bad |= get_str_array(c, o, path, "ok_actions", 0, &a->ok_actions, &a->nok_actions) < 0;
    bad |= get_bool(c, o, path, "actions_enabled", 1, &a->actions_enabled) < 0;
    bad |= get_str(c, o, path, "actions_suppressor", 0, NULL, &a->actions_suppressor) < 0;
    bad |= (r = get_int(c, o, path, "actions_suppressor_wait_period", 0, 0, -2147483647, 2147483647,
                        &a->wait_period_s)) < 0;
    a->has_wait_period = r > 0;
    bad |= (r = get_int(c, o, path, "actions_suppressor_extension_period", 0, 0, -2147483647,
                        2147483647, &a->extension_period_s)) < 0;
    a->has_extension_period = r > 0;
    return bad ? -1 : 0;
}
