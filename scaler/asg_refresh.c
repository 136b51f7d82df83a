/* scaler/asg_refresh.c: instance refresh, its records and rules (see asg_refresh.h and
 * docs/autoscaling.md section 8). */
#include "scaler/asg_refresh.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scaler/asg_internal.h"
#include "scaler/save.h"
#include "scaler/str.h"

struct asg_refresh {
    struct sc_asg_refresh_info info; /* first: views convert back */
    /* the launch source before the refresh, put back on cancel, failure and rollback */
    char *old_lc;
    char *old_lt_id;
    char *old_lt_version;
    /* the members still to replace, and how many there were */
    char (*todo)[SC_ASG_ID_LEN];
    int ntodo;
    int total;
    int next_checkpoint;      /* index of the first checkpoint not reached */
    int64_t wait_until_ms;    /* checkpoint delay or bake time running out; 0: none */
    int64_t blocked_since_ms; /* only protected / Standby instances left since; 0: not */
    int64_t started_ms;       /* InProgress (or RollbackInProgress) since */
};

static const char *const status_names[] = {
    "Pending",
    "InProgress",
    "Successful",
    "Failed",
    "Cancelling",
    "Cancelled",
    "RollbackInProgress",
    "RollbackFailed",
    "RollbackSuccessful",
    "Baking",
};

const char *sc_asg_refresh_status_str(enum sc_asg_refresh_status s)
{
    if ((unsigned)s >= sizeof(status_names) / sizeof(status_names[0]))
        return "Pending";
    return status_names[s];
}

int sc_asg_refresh_status_active(enum sc_asg_refresh_status s)
{
    return s == SC_ASG_REFRESH_PENDING || s == SC_ASG_REFRESH_IN_PROGRESS ||
           s == SC_ASG_REFRESH_CANCELLING || s == SC_ASG_REFRESH_ROLLBACK_IN_PROGRESS ||
           s == SC_ASG_REFRESH_BAKING;
}

static void refresh_free(struct asg_refresh *r)
{
    if (!r)
        return;
    free(r->info.auto_scaling_group_name);
    free(r->info.desired_launch_template_id);
    free(r->info.desired_launch_template_name);
    free(r->info.desired_launch_template_version);
    free(r->old_lc);
    free(r->old_lt_id);
    free(r->old_lt_version);
    free(r->todo);
    free(r);
}

void asg_refreshes_free(struct asg_group *g)
{
    for (int k = 0; k < g->nrefreshes; k++)
        refresh_free(g->refreshes[k]);
    free(g->refreshes);
    g->refreshes = NULL;
    g->nrefreshes = 0;
}

/* The group's active refresh (always the newest), or NULL. */
static struct asg_refresh *active_of(const struct asg_group *g)
{
    if (g->nrefreshes == 0 || !sc_asg_refresh_status_active(g->refreshes[0]->info.status))
        return NULL;
    return g->refreshes[0];
}

static int str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* "$Latest", "$Default" or none ($Default at launch): a rollback cannot come back to it. */
static int version_floating(const char *v)
{
    return !v || strcmp(v, "$Latest") == 0 || strcmp(v, "$Default") == 0;
}

static struct asg_inst *member(struct asg_group *g, const char *id)
{
    for (int i = 0; i < g->ninst; i++)
        if (strcmp(g->inst[i].info.instance_id, id) == 0)
            return &g->inst[i];
    return NULL;
}

static int in_todo(const struct asg_refresh *r, const char *id)
{
    for (int k = 0; k < r->ntodo; k++)
        if (strcmp(r->todo[k], id) == 0)
            return 1;
    return 0;
}

static void todo_drop(struct asg_refresh *r, int k)
{
    memmove(&r->todo[k], &r->todo[k + 1], (size_t)(r->ntodo - k - 1) * sizeof(r->todo[0]));
    r->ntodo--;
}

/* SkipMatching (docs 8.3): the instance runs the launch template id and version given (or
 * the launch configuration), and for a mixed instances group a type among its overrides. */
static int inst_matches(const struct asg_group *g, const struct asg_inst *in, const char *lc,
                        const char *lt_id, const char *lt_version)
{
    const struct sc_asg_group_info *gi = &g->info;

    if (lc)
        return in->info.launch_configuration_name &&
               strcmp(in->info.launch_configuration_name, lc) == 0;
    if (!lt_id || !str_eq(in->info.launch_template_id, lt_id) ||
        !str_eq(in->info.launch_template_version, lt_version))
        return 0;
    if (gi->mixed_instances_policy && gi->mixed.noverrides > 0) {
        for (int k = 0; k < gi->mixed.noverrides; k++)
            if (in->info.instance_type &&
                strcmp(gi->mixed.overrides[k].instance_type, in->info.instance_type) == 0)
                return 1;
        return 0;
    }
    return 1;
}

/* Fills r->todo with the members to replace: those counting toward capacity and those in
 * Standby (unless StandbyInstances is Ignore), less protected ones with Ignore, less with
 * skip (SkipMatching, or a rollback) those matching (lc | lt_id, lt_version). Returns 0, or
 * -1 on OOM. */
static int todo_build(struct asg_group *g, struct asg_refresh *r, int skip, const char *lc,
                      const char *lt_id, const char *lt_version)
{
    const struct sc_asg_refresh_prefs *p = &r->info.prefs;

    free(r->todo);
    r->ntodo = 0;
    r->todo = calloc((size_t)g->ninst + 1, sizeof(*r->todo));
    if (!r->todo)
        return -1;
    for (int i = 0; i < g->ninst; i++) {
        const struct asg_inst *in = &g->inst[i];
        enum sc_asg_lifecycle s = in->info.lifecycle_state;

        if (!asg_counts_capacity(s) && s != SC_ASG_STANDBY)
            continue;
        if (s == SC_ASG_STANDBY && strcmp(p->standby_instances, "Ignore") == 0)
            continue;
        if (s != SC_ASG_STANDBY && in->info.protected_from_scale_in &&
            strcmp(p->scale_in_protected_instances, "Ignore") == 0)
            continue;
        if (skip && inst_matches(g, in, lc, lt_id, lt_version))
            continue;
        memcpy(r->todo[r->ntodo++], in->info.instance_id, SC_ASG_ID_LEN);
    }
    r->total = r->ntodo;
    return 0;
}

/* Puts the group's launch source back to what it was before the refresh. */
static enum sc_status restore_source(struct sc_asg *asg, struct asg_group *g,
                                     const struct asg_refresh *r, struct sc_error *err)
{
    struct sc_asg_group_req q = { .auto_scaling_group_name = g->info.auto_scaling_group_name };
    struct asg_lt_ids ids;
    enum sc_status st;

    if (!r->info.has_desired)
        return SC_OK; /* the source never changed */
    q.launch_configuration_name = r->old_lc;
    q.launch_template_id = r->old_lc ? NULL : r->old_lt_id;
    q.launch_template_version = r->old_lc ? NULL : r->old_lt_version;
    st = asg_launch_source_check(asg, g, &q, &ids, err);
    if (st != SC_OK)
        return st;
    if (asg_launch_source_set(asg, g, &q, &ids) != 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    return SC_OK;
}

static void set_reason(struct asg_refresh *r, const char *s)
{
    snprintf(r->info.status_reason, sizeof(r->info.status_reason), "%s", s);
}

static void finish(struct asg_refresh *r, enum sc_asg_refresh_status s, int64_t now_ms)
{
    r->info.status = s;
    r->info.end_ms = now_ms > 0 ? now_ms : 1;
    r->wait_until_ms = 0;
    r->blocked_since_ms = 0;
}

/* RollbackInProgress: the previous source back, the instances launched since replaced. */
static void start_rollback(struct sc_asg *asg, struct asg_group *g, struct asg_refresh *r,
                           const char *reason, int64_t now_ms)
{
    struct sc_error e = { 0 };

    r->info.has_rollback = 1;
    snprintf(r->info.rollback_reason, sizeof(r->info.rollback_reason), "%s", reason);
    r->info.rollback_start_ms = now_ms;
    r->info.status = SC_ASG_REFRESH_ROLLBACK_IN_PROGRESS;
    set_reason(r, reason);
    r->next_checkpoint = r->info.prefs.ncheckpoint_percentages; /* none in a rollback */
    r->wait_until_ms = 0;
    r->blocked_since_ms = 0;
    r->started_ms = now_ms;
    if (restore_source(asg, g, r, &e) != SC_OK ||
        todo_build(g, r, 1, r->old_lc, r->old_lt_id, r->old_lt_version) != 0) {
        set_reason(
            r,
            "Instance refresh rollback failed: the previous launch configuration could not be restored.");
        finish(r, SC_ASG_REFRESH_ROLLBACK_FAILED, now_ms);
        return;
    }
    r->info.instances_to_update_on_rollback = r->total;
    r->info.percentage_complete_on_rollback = r->total ? 0 : 100;
}

/* A failure: RollbackFailed during a rollback, a rollback with AutoRollback, else Failed
 * with the previous source back. */
static void refresh_fail(struct sc_asg *asg, struct asg_group *g, struct asg_refresh *r,
                         const char *reason, int64_t now_ms)
{
    struct sc_error e = { 0 };

    if (r->info.status == SC_ASG_REFRESH_ROLLBACK_IN_PROGRESS) {
        set_reason(r, reason);
        finish(r, SC_ASG_REFRESH_ROLLBACK_FAILED, now_ms);
        return;
    }
    if (r->info.prefs.auto_rollback) {
        start_rollback(asg, g, r, reason, now_ms);
        return;
    }
    (void)restore_source(asg, g, r, &e);
    set_reason(r, reason);
    finish(r, SC_ASG_REFRESH_FAILED, now_ms);
}

/* --- the start --------------------------------------------------------------------------- */

/* v's member equal to s (AWS's enums are case-sensitive), or NULL. */
static const char *enum_pick(const char *const *v, int n, const char *s)
{
    for (int k = 0; k < n; k++)
        if (strcmp(s, v[k]) == 0)
            return v[k];
    return NULL;
}

static enum sc_status prefs_fill(const struct sc_asg_group_info *gi,
                                 const struct sc_asg_refresh_req *q, struct sc_asg_refresh_prefs *p,
                                 struct sc_error *err)
{
    memset(p, 0, sizeof(*p));
    p->min_healthy_percentage = q->has_min_healthy_percentage ? q->min_healthy_percentage : 90;
    p->max_healthy_percentage = q->has_max_healthy_percentage ? q->max_healthy_percentage : 100;
    if (p->min_healthy_percentage < 0 || p->min_healthy_percentage > 100)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%d' at 'preferences.minHealthyPercentage' failed to satisfy constraint: Member must have value between 0 and 100",
            p->min_healthy_percentage);
    if (p->max_healthy_percentage < 100 || p->max_healthy_percentage > 200)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%d' at 'preferences.maxHealthyPercentage' failed to satisfy constraint: Member must have value between 100 and 200",
            p->max_healthy_percentage);
    if (p->max_healthy_percentage - p->min_healthy_percentage > 100)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "The difference between MaxHealthyPercentage and MinHealthyPercentage cannot be greater than 100.");
    if (q->has_instance_warmup && q->instance_warmup < 0)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%d' at 'preferences.instanceWarmup' failed to satisfy constraint: Member must have value greater than or equal to 0",
            q->instance_warmup);
    p->instance_warmup = q->has_instance_warmup            ? q->instance_warmup
                         : gi->has_default_instance_warmup ? gi->default_instance_warmup
                                                           : gi->health_check_grace_period;
    if (q->ncheckpoint_percentages > SC_ASG_REFRESH_MAX_CHECKPOINTS)
        return sc_fail(err, SC_ERR_VALIDATION, "Too many CheckpointPercentages.");
    for (int k = 0; k < q->ncheckpoint_percentages; k++) {
        int v = q->checkpoint_percentages[k];

        if (v < 1 || v > 100)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "1 validation error detected: Value '%d' at 'preferences.checkpointPercentages.%d.member' failed to satisfy constraint: Member must have value between 1 and 100",
                v, k + 1);
        if (k > 0 && v <= q->checkpoint_percentages[k - 1])
            return sc_fail(err, SC_ERR_VALIDATION,
                           "CheckpointPercentages must be unique and in ascending order.");
        p->checkpoint_percentages[k] = v;
    }
    p->ncheckpoint_percentages = q->ncheckpoint_percentages;
    if (q->has_checkpoint_delay && q->ncheckpoint_percentages == 0)
        return sc_fail(err, SC_ERR_VALIDATION, "CheckpointDelay requires CheckpointPercentages.");
    if (q->has_checkpoint_delay && (q->checkpoint_delay < 0 || q->checkpoint_delay > 172800))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%d' at 'preferences.checkpointDelay' failed to satisfy constraint: Member must have value between 0 and 172800",
            q->checkpoint_delay);
    p->checkpoint_delay = q->has_checkpoint_delay ? q->checkpoint_delay : 3600;
    p->skip_matching = q->has_skip_matching && q->skip_matching;
    p->auto_rollback = q->has_auto_rollback && q->auto_rollback;
    p->scale_in_protected_instances = "Wait";
    if (q->scale_in_protected_instances) {
        static const char *const v[] = { "Refresh", "Ignore", "Wait" };

        p->scale_in_protected_instances = enum_pick(v, 3, q->scale_in_protected_instances);
        if (!p->scale_in_protected_instances)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "1 validation error detected: Value '%s' at 'preferences.scaleInProtectedInstances' failed to satisfy constraint: Member must satisfy enum value set: [Refresh, Ignore, Wait]",
                q->scale_in_protected_instances);
    }
    p->standby_instances = "Wait";
    if (q->standby_instances) {
        static const char *const v[] = { "Terminate", "Ignore", "Wait" };

        p->standby_instances = enum_pick(v, 3, q->standby_instances);
        if (!p->standby_instances)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "1 validation error detected: Value '%s' at 'preferences.standbyInstances' failed to satisfy constraint: Member must satisfy enum value set: [Terminate, Ignore, Wait]",
                q->standby_instances);
    }
    if (q->has_bake_time && (q->bake_time < 0 || q->bake_time > 172800))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%d' at 'preferences.bakeTime' failed to satisfy constraint: Member must have value between 0 and 172800",
            q->bake_time);
    p->bake_time = q->has_bake_time ? q->bake_time : 0;
    return SC_OK;
}

/* Drops the oldest finished refreshes past SC_ASG_REFRESH_KEEP. */
static void refreshes_trim(struct asg_group *g)
{
    while (g->nrefreshes > SC_ASG_REFRESH_KEEP) {
        refresh_free(g->refreshes[g->nrefreshes - 1]);
        g->nrefreshes--;
    }
}

enum sc_status sc_asg_start_instance_refresh(struct sc_asg *asg, const struct sc_asg_refresh_req *q,
                                             int64_t now_ms, const char **id_out,
                                             struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, q->auto_scaling_group_name);
    struct sc_asg_group_req lt = { 0 };
    struct asg_lt_ids ids;
    struct sc_asg_refresh_prefs prefs;
    struct asg_refresh *r = NULL, **grown;
    enum sc_status st;
    int bad = 0;

    if (!g || g->deleting)
        return sc_asg_group_not_found(q->auto_scaling_group_name, err);
    if (active_of(g))
        return sc_fail(
            err, SC_ERR_INSTANCE_REFRESH_IN_PROGRESS,
            "An Instance Refresh is already in progress and blocks the execution of this Instance Refresh.");
    if (q->strategy && strcmp(q->strategy, "Rolling") != 0) {
        if (strcmp(q->strategy, "ReplaceRootVolume") == 0)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "The ReplaceRootVolume strategy is not supported by scalelab: root volumes are not modelled.");
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%s' at 'strategy' failed to satisfy constraint: Member must satisfy enum value set: [Rolling, ReplaceRootVolume]",
            q->strategy);
    }
    if (q->has_alarm_specification)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "AlarmSpecification is not supported by scalelab's instance refresh.");
    if (q->has_desired_mixed_instances_policy)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "A MixedInstancesPolicy in DesiredConfiguration is not supported by scalelab.");
    st = prefs_fill(&g->info, q, &prefs, err);
    if (st != SC_OK)
        return st;
    if (g->info.desired_capacity == 0)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "The Auto Scaling group %s has no instances to refresh: its desired capacity is 0.",
            g->info.auto_scaling_group_name);
    memset(&ids, 0, sizeof(ids));
    if (q->has_desired_launch_template) {
        if (g->info.mixed_instances_policy)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "To update a mixed instances group, you must specify a MixedInstancesPolicy in DesiredConfiguration.");
        lt.auto_scaling_group_name = g->info.auto_scaling_group_name;
        lt.launch_template_id = q->launch_template_id;
        lt.launch_template_name = q->launch_template_name;
        lt.launch_template_version = q->launch_template_version;
        if (!lt.launch_template_id && !lt.launch_template_name)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Valid requests must contain either launchTemplateId or LaunchTemplateName");
        st = asg_launch_source_check(asg, g, &lt, &ids, err);
        if (st != SC_OK)
            return st;
    }
    if (prefs.auto_rollback && !q->has_desired_launch_template)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "AutoRollback requires a DesiredConfiguration: the instance refresh cannot be rolled back without one.");
    if (prefs.auto_rollback && !g->info.launch_configuration_name &&
        version_floating(g->info.launch_template_version))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "AutoRollback is not supported: the Auto Scaling group uses the launch template's $Latest or $Default version.");

    r = calloc(1, sizeof(*r));
    grown = realloc(g->refreshes, (size_t)(g->nrefreshes + 1) * sizeof(*g->refreshes));
    if (!r || !grown) {
        free(r);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    g->refreshes = grown;
    sc_rng_uuid(asg->rng, r->info.instance_refresh_id);
    r->info.strategy = "Rolling";
    r->info.status = SC_ASG_REFRESH_PENDING;
    r->info.start_ms = now_ms;
    r->info.prefs = prefs;
    r->info.has_desired = q->has_desired_launch_template;
    bad |= sc_strdup_opt(&r->info.auto_scaling_group_name, g->info.auto_scaling_group_name);
    if (r->info.has_desired) {
        bad |= sc_strdup_opt(&r->info.desired_launch_template_id, ids.lt.launch_template_id);
        bad |= sc_strdup_opt(&r->info.desired_launch_template_name, ids.lt.launch_template_name);
        bad |= sc_strdup_opt(&r->info.desired_launch_template_version, q->launch_template_version);
    }
    bad |= sc_strdup_opt(&r->old_lc, g->info.launch_configuration_name);
    bad |= sc_strdup_opt(&r->old_lt_id, g->info.launch_template_id);
    bad |= sc_strdup_opt(&r->old_lt_version, g->info.launch_template_version);
    if (r->info.has_desired)
        bad |= todo_build(g, r, prefs.skip_matching, NULL, ids.lt.launch_template_id,
                          q->launch_template_version);
    else /* a launch configuration matches nothing (docs 8.3) */
        bad |= todo_build(g, r, prefs.skip_matching, NULL, g->info.launch_template_id,
                          g->info.launch_template_version);
    if (!bad && r->info.has_desired && asg_launch_source_set(asg, g, &lt, &ids) != 0)
        bad = 1;
    if (bad) {
        refresh_free(r);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    r->info.instances_to_update = r->total;
    memmove(&g->refreshes[1], &g->refreshes[0], (size_t)g->nrefreshes * sizeof(*g->refreshes));
    g->refreshes[0] = r;
    g->nrefreshes++;
    refreshes_trim(g);
    if (id_out)
        *id_out = r->info.instance_refresh_id;
    return SC_OK;
}

/* --- cancel, rollback ---------------------------------------------------------------------- */

static int batch_done(struct sc_asg *asg, struct asg_group *g, const struct asg_refresh *r,
                      int64_t now_ms, const struct asg_inst **warming);

enum sc_status sc_asg_cancel_instance_refresh(struct sc_asg *asg, const char *group, int wait,
                                              int64_t now_ms, const char **id_out,
                                              struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    struct asg_refresh *r;
    struct sc_error e = { 0 };

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    r = active_of(g);
    if (!r ||
        (r->info.status != SC_ASG_REFRESH_PENDING && r->info.status != SC_ASG_REFRESH_IN_PROGRESS &&
         r->info.status != SC_ASG_REFRESH_BAKING))
        return sc_fail(err, SC_ERR_ACTIVE_INSTANCE_REFRESH_NOT_FOUND,
                       "No in progress or pending Instance Refresh found for Auto Scaling group %s",
                       g->info.auto_scaling_group_name);
    (void)restore_source(asg, g, r, &e);
    set_reason(r, "Instance refresh cancelled by user request.");
    if (wait && !batch_done(asg, g, r, now_ms, NULL)) {
        r->info.status = SC_ASG_REFRESH_CANCELLING;
        r->wait_until_ms = 0;
    } else {
        finish(r, SC_ASG_REFRESH_CANCELLED, now_ms);
    }
    if (id_out)
        *id_out = r->info.instance_refresh_id;
    return SC_OK;
}

enum sc_status sc_asg_rollback_instance_refresh(struct sc_asg *asg, const char *group,
                                                int64_t now_ms, const char **id_out,
                                                struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    struct asg_refresh *r;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    r = active_of(g);
    if (!r ||
        (r->info.status != SC_ASG_REFRESH_PENDING && r->info.status != SC_ASG_REFRESH_IN_PROGRESS &&
         r->info.status != SC_ASG_REFRESH_BAKING))
        return sc_fail(err, SC_ERR_ACTIVE_INSTANCE_REFRESH_NOT_FOUND,
                       "No in progress or pending Instance Refresh found for Auto Scaling group %s",
                       g->info.auto_scaling_group_name);
    if (!r->info.has_desired)
        return sc_fail(
            err, SC_ERR_IRREVERSIBLE_INSTANCE_REFRESH,
            "The instance refresh cannot be rolled back: it was started without a DesiredConfiguration.");
    if (!r->old_lc && version_floating(r->old_lt_version))
        return sc_fail(
            err, SC_ERR_IRREVERSIBLE_INSTANCE_REFRESH,
            "The instance refresh cannot be rolled back: the Auto Scaling group used the launch template's $Latest or $Default version.");
    start_rollback(asg, g, r, "Rollback requested by user.", now_ms);
    if (id_out)
        *id_out = r->info.instance_refresh_id;
    return SC_OK;
}

/* --- the step ------------------------------------------------------------------------------ */

static int64_t warmup_ms(const struct asg_refresh *r)
{
    return (int64_t)r->info.prefs.instance_warmup * 1000;
}

/* Healthy to the refresh: InService, healthy, past the warm-up, and with HealthCheckType ELB
 * InService at every load balancer and target group of the group. */
static int inst_ready(struct sc_asg *asg, const struct asg_group *g, const struct asg_refresh *r,
                      const struct asg_inst *in, int64_t now_ms)
{
    if (in->info.lifecycle_state != SC_ASG_IN_SERVICE || in->unhealthy || !in->info.healthy)
        return 0;
    /* the warm-up is the new instances' (those InService before the refresh are warm) */
    if (in->inservice_ms >= r->info.start_ms && now_ms < in->inservice_ms + warmup_ms(r))
        return 0;
    if (strcmp(g->info.health_check_type, "ELB") == 0 && asg->env.lb_instance_state) {
        for (int k = 0; k < asg_lb_count(&g->info); k++)
            if (asg->env.lb_instance_state(asg->env.ud, asg_lb_at(&g->info, k),
                                           in->info.instance_id) != SC_ASG_LB_IN_SERVICE)
                return 0;
    }
    return 1;
}

/* A batch is done when no member is launching or terminating and every InService member
 * not to replace is healthy to the refresh; *warming (optional) is one that is not yet. */
static int batch_done(struct sc_asg *asg, struct asg_group *g, const struct asg_refresh *r,
                      int64_t now_ms, const struct asg_inst **warming)
{
    if (asg_census_pending(&g->census) + asg_census_terminating(&g->census) > 0)
        return 0;
    for (int i = 0; i < g->ninst; i++) {
        const struct asg_inst *in = &g->inst[i];

        if (in->info.lifecycle_state == SC_ASG_IN_SERVICE && !in_todo(r, in->info.instance_id) &&
            !inst_ready(asg, g, r, in, now_ms)) {
            if (warming)
                *warming = in;
            return 0;
        }
    }
    return 1;
}

/* InstancesToUpdate and PercentageComplete (docs 8.3): the old instances left, plus the
 * replacements launching or warming, of the total. */
static void progress(struct sc_asg *asg, struct asg_group *g, struct asg_refresh *r, int64_t now_ms)
{
    int flight = 0, itu, pct;

    for (int i = 0; i < g->ninst; i++) {
        const struct asg_inst *in = &g->inst[i];

        if (!asg_counts_capacity(in->info.lifecycle_state) || in_todo(r, in->info.instance_id))
            continue;
        flight += !inst_ready(asg, g, r, in, now_ms);
    }
    itu = r->ntodo + flight;
    if (itu > r->total)
        itu = r->total;
    pct = r->total ? (int)((int64_t)(r->total - itu) * 100 / r->total) : 100;
    if (r->info.status == SC_ASG_REFRESH_ROLLBACK_IN_PROGRESS) {
        r->info.instances_to_update_on_rollback = itu;
        r->info.percentage_complete_on_rollback = pct;
    } else {
        r->info.instances_to_update = itu;
        r->info.percentage_complete = pct;
    }
}

/* Forgets the old instances that left the group (or its capacity) another way. */
static void todo_prune(struct asg_group *g, struct asg_refresh *r)
{
    for (int k = 0; k < r->ntodo;) {
        const struct asg_inst *in = member(g, r->todo[k]);

        if (!in || (!asg_counts_capacity(in->info.lifecycle_state) &&
                    in->info.lifecycle_state != SC_ASG_STANDBY))
            todo_drop(r, k);
        else
            k++;
    }
}

/* The refresh's end: RollbackSuccessful, Baking, or Successful. */
static void complete(struct asg_refresh *r, int64_t now_ms)
{
    r->info.status_reason[0] = '\0';
    if (r->info.status == SC_ASG_REFRESH_ROLLBACK_IN_PROGRESS) {
        finish(r, SC_ASG_REFRESH_ROLLBACK_SUCCESSFUL, now_ms);
    } else if (r->info.prefs.bake_time > 0) {
        r->info.status = SC_ASG_REFRESH_BAKING;
        r->wait_until_ms = now_ms + (int64_t)r->info.prefs.bake_time * 1000;
    } else {
        finish(r, SC_ASG_REFRESH_SUCCESSFUL, now_ms);
    }
}

/* Terminates one old instance for the refresh (its replacement launches as capacity below
 * desired); takes it out of todo[k]. */
static void replace_one(struct sc_asg *asg, struct asg_group *g, struct asg_refresh *r, int k,
                        int64_t now_ms)
{
    struct asg_inst *in = member(g, r->todo[k]);
    char cause[ASG_CAUSE_LEN];

    todo_drop(r, k);
    if (!in)
        return;
    cause[0] = '\0';
    asg_cause_add(cause, now_ms,
                  "an instance was taken out of service in response to an instance refresh");
    asg_cause_add(cause, now_ms, "instance %s was selected for termination", in->info.instance_id);
    asg_inst_begin_terminate(asg, g, in, cause, now_ms);
}

/* The todo index of the next old instance to replace among the InService ones it may take:
 * not ready first, then the oldest launch; -1 when none. */
static int pick_old(struct sc_asg *asg, struct asg_group *g, const struct asg_refresh *r,
                    int64_t now_ms)
{
    int best = -1, best_ready = 2;
    int64_t best_launch = INT64_MAX;
    int refresh_protected = strcmp(r->info.prefs.scale_in_protected_instances, "Refresh") == 0;

    for (int k = 0; k < r->ntodo; k++) {
        const struct asg_inst *in = member(g, r->todo[k]);
        int ready;

        if (!in || in->info.lifecycle_state != SC_ASG_IN_SERVICE)
            continue;
        if (in->info.protected_from_scale_in && !refresh_protected)
            continue;
        ready = inst_ready(asg, g, r, in, now_ms);
        if (ready < best_ready || (ready == best_ready && in->info.launch_ms < best_launch)) {
            best = k;
            best_ready = ready;
            best_launch = in->info.launch_ms;
        }
    }
    return best;
}

static void run_batch(struct sc_asg *asg, struct asg_group *g, struct asg_refresh *r,
                      int64_t now_ms)
{
    const struct sc_asg_refresh_prefs *p = &r->info.prefs;
    int desired = g->info.desired_capacity;
    int floor_n = (desired * p->min_healthy_percentage + 99) / 100;
    int max_n = desired * p->max_healthy_percentage / 100;
    int ncap = g->census.state[SC_ASG_IN_SERVICE] + asg_census_pending(&g->census);
    int healthy = 0, eligible = 0, t, l = 0;
    char cause[ASG_CAUSE_LEN];

    /* Standby instances with StandbyInstances Terminate go at once (they serve nothing) */
    if (strcmp(p->standby_instances, "Terminate") == 0)
        for (int k = 0; k < r->ntodo;) {
            struct asg_inst *in = member(g, r->todo[k]);

            if (in && in->info.lifecycle_state == SC_ASG_STANDBY)
                replace_one(asg, g, r, k, now_ms);
            else
                k++;
        }
    for (int i = 0; i < g->ninst; i++)
        healthy += inst_ready(asg, g, r, &g->inst[i], now_ms);
    for (int k = 0; k < r->ntodo; k++) {
        const struct asg_inst *in = member(g, r->todo[k]);

        eligible += in && in->info.lifecycle_state == SC_ASG_IN_SERVICE &&
                    (!in->info.protected_from_scale_in ||
                     strcmp(p->scale_in_protected_instances, "Refresh") == 0);
    }
    if (eligible == 0) {
        int standby = 0;

        if (r->ntodo == 0)
            return;
        for (int k = 0; k < r->ntodo; k++) {
            const struct asg_inst *in = member(g, r->todo[k]);

            standby += in && in->info.lifecycle_state == SC_ASG_STANDBY;
        }
        if (!r->blocked_since_ms)
            r->blocked_since_ms = now_ms;
        set_reason(r, standby ? "Waiting for instances in Standby to return to service."
                              : "Waiting for instances protected from scale in to be unprotected.");
        if (now_ms - r->blocked_since_ms >= SC_ASG_REFRESH_WAIT_MS)
            refresh_fail(
                asg, g, r,
                standby
                    ? "Instance refresh failed: instances in Standby did not return to service within one hour."
                    : "Instance refresh failed: instances protected from scale in were not unprotected within one hour.",
                now_ms);
        return;
    }
    r->blocked_since_ms = 0;
    r->info.status_reason[0] = '\0';
    t = healthy - floor_n;
    t = t < 0 ? 0 : t > eligible ? eligible : t;
    if (p->max_healthy_percentage > 100) {
        l = max_n - ncap;
        l = l < 0 ? 0 : l > r->ntodo - t ? r->ntodo - t : l;
    }
    /* MinHealthyPercentage 100 (and no room above): one at a time */
    if (t == 0 && l == 0 && healthy >= floor_n && healthy >= ncap)
        t = 1;
    for (int n = 0; n < t; n++) {
        int k = pick_old(asg, g, r, now_ms);

        if (k < 0)
            break;
        replace_one(asg, g, r, k, now_ms);
    }
    if (l > 0 && !asg_proc_suspended(g, SC_ASG_PROC_LAUNCH) && g->info.navailability_zones > 0) {
        cause[0] = '\0';
        asg_cause_add(
            cause, now_ms,
            "an instance was started in response to an instance refresh, increasing the capacity from %d to %d",
            ncap, ncap + l);
        for (int n = 0; n < l; n++)
            if (asg_launch_one(asg, g, cause, now_ms) < 0)
                break;
    }
}

void asg_refresh_step(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    struct asg_refresh *r = active_of(g);
    const struct asg_inst *warming = NULL;
    const struct sc_asg_refresh_prefs *p;

    if (!r || g->deleting || asg_proc_suspended(g, SC_ASG_PROC_INSTANCE_REFRESH))
        return;
    p = &r->info.prefs;
    if (r->info.status == SC_ASG_REFRESH_PENDING) {
        r->info.status = SC_ASG_REFRESH_IN_PROGRESS;
        r->started_ms = now_ms;
    }
    todo_prune(g, r);
    progress(asg, g, r, now_ms);
    switch (r->info.status) {
    case SC_ASG_REFRESH_BAKING:
        if (now_ms >= r->wait_until_ms)
            finish(r, SC_ASG_REFRESH_SUCCESSFUL, now_ms);
        return;
    case SC_ASG_REFRESH_CANCELLING:
        if (batch_done(asg, g, r, now_ms, NULL))
            finish(r, SC_ASG_REFRESH_CANCELLED, now_ms);
        return;
    case SC_ASG_REFRESH_IN_PROGRESS:
    case SC_ASG_REFRESH_ROLLBACK_IN_PROGRESS:
        break;
    default:
        return;
    }
    /* a launch of the group failed since the refresh (re)started */
    if (g->next_launch_ms > now_ms && g->next_launch_ms - ASG_LAUNCH_RETRY_MS >= r->started_ms) {
        refresh_fail(asg, g, r, "Instance refresh failed: an instance launch failed.", now_ms);
        return;
    }
    if (!batch_done(asg, g, r, now_ms, &warming)) {
        if (warming)
            snprintf(
                r->info.status_reason, sizeof(r->info.status_reason),
                "Waiting for instances to warm up before continuing. For example: %s is warming up.",
                warming->info.instance_id);
        return;
    }
    if (r->wait_until_ms > now_ms)
        return; /* a checkpoint's delay */
    r->wait_until_ms = 0;
    {
        int reached = -1;

        while (r->next_checkpoint < p->ncheckpoint_percentages &&
               p->checkpoint_percentages[r->next_checkpoint] <= r->info.percentage_complete)
            reached = r->next_checkpoint++;
        if (reached >= 0 && reached == p->ncheckpoint_percentages - 1) {
            complete(r, now_ms);
            return;
        }
        if (reached >= 0) {
            r->wait_until_ms = now_ms + (int64_t)p->checkpoint_delay * 1000;
            snprintf(r->info.status_reason, sizeof(r->info.status_reason),
                     "Waiting for checkpoint delay: %d%% reached.",
                     p->checkpoint_percentages[reached]);
            if (r->wait_until_ms > now_ms)
                return;
        }
    }
    if (r->ntodo == 0) {
        complete(r, now_ms);
        return;
    }
    run_batch(asg, g, r, now_ms);
    progress(asg, g, r, now_ms);
}

int asg_refresh_extra(const struct asg_group *g)
{
    const struct asg_refresh *r = active_of(g);
    int desired = g->info.desired_capacity;

    if (!r || r->ntodo == 0 || r->info.prefs.max_healthy_percentage <= 100 ||
        (r->info.status != SC_ASG_REFRESH_IN_PROGRESS &&
         r->info.status != SC_ASG_REFRESH_ROLLBACK_IN_PROGRESS))
        return 0;
    return desired * r->info.prefs.max_healthy_percentage / 100 - desired;
}

int64_t asg_refresh_next_due(const struct asg_group *g, int64_t now_ms)
{
    const struct asg_refresh *r = active_of(g);
    int64_t due = INT64_MAX;

    if (!r)
        return INT64_MAX;
    if (r->info.status == SC_ASG_REFRESH_PENDING)
        return now_ms + 1;
    if (r->wait_until_ms > now_ms)
        due = r->wait_until_ms;
    if (r->blocked_since_ms && r->blocked_since_ms + SC_ASG_REFRESH_WAIT_MS > now_ms &&
        r->blocked_since_ms + SC_ASG_REFRESH_WAIT_MS < due)
        due = r->blocked_since_ms + SC_ASG_REFRESH_WAIT_MS;
    for (int i = 0; i < g->ninst; i++) {
        const struct asg_inst *in = &g->inst[i];
        int64_t w = in->inservice_ms + warmup_ms(r);

        if (in->info.lifecycle_state == SC_ASG_IN_SERVICE && w > now_ms && w < due)
            due = w;
    }
    return due;
}

/* --- reads --------------------------------------------------------------------------------- */

int sc_asg_instance_refresh_count(const struct sc_asg *asg, const char *group)
{
    const struct asg_group *g = asg_group_find(asg, group);

    return g ? g->nrefreshes : -1;
}

const struct sc_asg_refresh_info *sc_asg_instance_refresh_at(const struct sc_asg *asg,
                                                             const char *group, int i)
{
    const struct asg_group *g = asg_group_find(asg, group);

    if (!g || i < 0 || i >= g->nrefreshes)
        return NULL;
    return &g->refreshes[i]->info;
}

/* --- save / load --------------------------------------------------------------------------- */

json_t *asg_refreshes_save(const struct asg_group *g)
{
    json_t *a = json_array();
    int bad = !a;

    for (int k = 0; !bad && k < g->nrefreshes; k++) {
        const struct asg_refresh *r = g->refreshes[k];
        const struct sc_asg_refresh_info *i = &r->info;
        const struct sc_asg_refresh_prefs *p = &i->prefs;
        json_t *o = json_object(), *cp = json_array(), *todo = json_array();

        bad |= !o || !cp || !todo;
        for (int c = 0; !bad && c < p->ncheckpoint_percentages; c++)
            bad |= json_array_append_new(cp, json_integer(p->checkpoint_percentages[c]));
        for (int c = 0; !bad && c < r->ntodo; c++)
            bad |= json_array_append_new(todo, json_string(r->todo[c]));
        bad |= sc_save_str(o, "id", i->instance_refresh_id);
        bad |= sc_save_int(o, "status", i->status);
        bad |= sc_save_str(o, "reason", i->status_reason);
        bad |= sc_save_int(o, "start_ms", i->start_ms);
        bad |= sc_save_int(o, "end_ms", i->end_ms);
        bad |= sc_save_int(o, "pct", i->percentage_complete);
        bad |= sc_save_int(o, "itu", i->instances_to_update);
        bad |= sc_save_int(o, "min", p->min_healthy_percentage);
        bad |= sc_save_int(o, "max", p->max_healthy_percentage);
        bad |= sc_save_int(o, "warmup", p->instance_warmup);
        bad |= sc_save_take(o, "checkpoints", cp);
        cp = NULL;
        bad |= sc_save_int(o, "delay", p->checkpoint_delay);
        bad |= sc_save_bool(o, "skip", p->skip_matching);
        bad |= sc_save_bool(o, "rollback", p->auto_rollback);
        bad |= sc_save_str(o, "protected", p->scale_in_protected_instances);
        bad |= sc_save_str(o, "standby", p->standby_instances);
        bad |= sc_save_int(o, "bake", p->bake_time);
        bad |= sc_save_bool(o, "has_desired", i->has_desired);
        bad |= sc_save_str(o, "lt_id", i->desired_launch_template_id);
        bad |= sc_save_str(o, "lt_name", i->desired_launch_template_name);
        bad |= sc_save_str(o, "lt_version", i->desired_launch_template_version);
        bad |= sc_save_bool(o, "has_rb", i->has_rollback);
        bad |= sc_save_str(o, "rb_reason", i->rollback_reason);
        bad |= sc_save_int(o, "rb_start_ms", i->rollback_start_ms);
        bad |= sc_save_int(o, "rb_pct", i->percentage_complete_on_rollback);
        bad |= sc_save_int(o, "rb_itu", i->instances_to_update_on_rollback);
        bad |= sc_save_str(o, "old_lc", r->old_lc);
        bad |= sc_save_str(o, "old_lt_id", r->old_lt_id);
        bad |= sc_save_str(o, "old_lt_version", r->old_lt_version);
        bad |= sc_save_take(o, "todo", todo);
        todo = NULL;
        bad |= sc_save_int(o, "total", r->total);
        bad |= sc_save_int(o, "next_cp", r->next_checkpoint);
        bad |= sc_save_int(o, "wait_until_ms", r->wait_until_ms);
        bad |= sc_save_int(o, "blocked_ms", r->blocked_since_ms);
        bad |= sc_save_int(o, "started_ms", r->started_ms);
        json_decref(cp);
        json_decref(todo);
        bad |= json_array_append_new(a, o);
    }
    if (bad) {
        json_decref(a);
        return NULL;
    }
    return a;
}

/* One of the static preference strings for a loaded value, or NULL. */
static const char *pref_str(const char *s)
{
    static const char *const v[] = { "Refresh", "Ignore", "Wait", "Terminate" };

    for (int k = 0; s && k < 4; k++)
        if (strcmp(s, v[k]) == 0)
            return v[k];
    return NULL;
}

void asg_refreshes_load(struct sc_load *l, const json_t *a, struct asg_group *g)
{
    size_t n = json_array_size(a);

    if (n == 0)
        return;
    g->refreshes = calloc(n, sizeof(*g->refreshes));
    if (!g->refreshes) {
        sc_load_fail(l, "out of memory");
        return;
    }
    for (size_t k = 0; k < n && !l->failed; k++) {
        const json_t *o = json_array_get(a, k), *cp, *todo;
        struct asg_refresh *r = calloc(1, sizeof(*r));
        struct sc_asg_refresh_info *i;
        struct sc_asg_refresh_prefs *p;

        if (!r) {
            sc_load_fail(l, "out of memory");
            return;
        }
        g->refreshes[g->nrefreshes++] = r;
        i = &r->info;
        p = &i->prefs;
        sc_load_buf(l, o, "id", i->instance_refresh_id, sizeof(i->instance_refresh_id));
        i->auto_scaling_group_name = sc_strdup(g->info.auto_scaling_group_name);
        i->strategy = "Rolling";
        i->status =
            (enum sc_asg_refresh_status)sc_load_int_range(l, o, "status", 0, SC_ASG_REFRESH_BAKING);
        sc_load_buf(l, o, "reason", i->status_reason, sizeof(i->status_reason));
        i->start_ms = sc_load_int(l, o, "start_ms");
        i->end_ms = sc_load_int(l, o, "end_ms");
        i->percentage_complete = sc_load_int_range(l, o, "pct", 0, 100);
        i->instances_to_update = (int)sc_load_int(l, o, "itu");
        p->min_healthy_percentage = sc_load_int_range(l, o, "min", 0, 100);
        p->max_healthy_percentage = sc_load_int_range(l, o, "max", 100, 200);
        p->instance_warmup = (int)sc_load_int(l, o, "warmup");
        cp = sc_load_array(l, o, "checkpoints");
        for (size_t c = 0; c < json_array_size(cp) && c < SC_ASG_REFRESH_MAX_CHECKPOINTS; c++)
            p->checkpoint_percentages[p->ncheckpoint_percentages++] =
                (int)json_integer_value(json_array_get(cp, c));
        p->checkpoint_delay = (int)sc_load_int(l, o, "delay");
        p->skip_matching = sc_load_bool(l, o, "skip");
        p->auto_rollback = sc_load_bool(l, o, "rollback");
        p->scale_in_protected_instances = pref_str(sc_load_cstr(l, o, "protected"));
        p->standby_instances = pref_str(sc_load_cstr(l, o, "standby"));
        p->bake_time = (int)sc_load_int(l, o, "bake");
        i->has_desired = sc_load_bool(l, o, "has_desired");
        i->desired_launch_template_id = sc_load_str(l, o, "lt_id");
        i->desired_launch_template_name = sc_load_str(l, o, "lt_name");
        i->desired_launch_template_version = sc_load_str(l, o, "lt_version");
        i->has_rollback = sc_load_bool(l, o, "has_rb");
        sc_load_buf(l, o, "rb_reason", i->rollback_reason, sizeof(i->rollback_reason));
        i->rollback_start_ms = sc_load_int(l, o, "rb_start_ms");
        i->percentage_complete_on_rollback = sc_load_int_range(l, o, "rb_pct", 0, 100);
        i->instances_to_update_on_rollback = (int)sc_load_int(l, o, "rb_itu");
        r->old_lc = sc_load_str(l, o, "old_lc");
        r->old_lt_id = sc_load_str(l, o, "old_lt_id");
        r->old_lt_version = sc_load_str(l, o, "old_lt_version");
        todo = sc_load_array(l, o, "todo");
        r->todo = calloc(json_array_size(todo) + 1, sizeof(*r->todo));
        if (!r->todo) {
            sc_load_fail(l, "out of memory");
            return;
        }
        for (size_t c = 0; c < json_array_size(todo); c++) {
            const char *s = json_string_value(json_array_get(todo, c));

            if (!s || strlen(s) >= SC_ASG_ID_LEN) {
                sc_load_fail(l, "instance_refreshes[%zu]: todo: not an instance id", k);
                return;
            }
            memcpy(r->todo[r->ntodo++], s, strlen(s) + 1);
        }
        r->total = (int)sc_load_int(l, o, "total");
        r->next_checkpoint = (int)sc_load_int(l, o, "next_cp");
        r->wait_until_ms = sc_load_int(l, o, "wait_until_ms");
        r->blocked_since_ms = sc_load_int(l, o, "blocked_ms");
        r->started_ms = sc_load_int(l, o, "started_ms");
        if (!l->failed &&
            (!p->scale_in_protected_instances || !p->standby_instances || r->next_checkpoint < 0 ||
             r->next_checkpoint > p->ncheckpoint_percentages))
            sc_load_fail(l, "instance_refreshes[%zu]: not a valid instance refresh", k);
    }
}
