/* scaler/asg.c: see asg.h. Launch configurations, groups, activities and the step. */
#include "scaler/asg.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/asg_internal.h"
#include "scaler/civil.h"
#include "scaler/hash.h"
#include "scaler/save.h"

/* --- small helpers ---------------------------------------------------------------------- */

char *asg_asprintf(const char *fmt, ...)
{
    va_list ap;
    int n;
    char *s;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

char **asg_dup_strv(const char *const *v, int n)
{
    char **d;

    if (n <= 0)
        return NULL;
    d = calloc((size_t)n, sizeof(*d));
    if (!d)
        return NULL;
    for (int i = 0; i < n; i++) {
        d[i] = sc_strdup(v[i] ? v[i] : "");
        if (!d[i]) {
            sc_strv_free(d, i);
            return NULL;
        }
    }
    return d;
}

/* Appends "At <t> <clause>." to buf (joined by two spaces), within ASG_CAUSE_LEN. */
void asg_cause_add(char *buf, int64_t now_ms, const char *fmt, ...)
{
    char t[ASG_TIME_LEN];
    size_t len = strlen(buf);
    va_list ap;
    int n;

    sc_civil_format_iso(now_ms, t, sizeof(t));
    if (len > 0 && len + 2 < ASG_CAUSE_LEN) {
        memcpy(buf + len, "  ", 3);
        len += 2;
    }
    n = snprintf(buf + len, ASG_CAUSE_LEN - len, "At %s ", t);
    if (n < 0 || (size_t)n >= ASG_CAUSE_LEN - len)
        return;
    len += (size_t)n;
    va_start(ap, fmt);
    n = vsnprintf(buf + len, ASG_CAUSE_LEN - len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= ASG_CAUSE_LEN - len)
        return;
    len += (size_t)n;
    if (len + 1 < ASG_CAUSE_LEN) {
        buf[len] = '.';
        buf[len + 1] = '\0';
    }
}

static enum sc_status smithy_length(struct sc_error *err, const char *member, const char *v,
                                    size_t max)
{
    if (!v)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null",
            member);
    if (v[0] == '\0')
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1",
            member);
    if (strlen(v) > max)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%.64s...' at '%s' failed to satisfy constraint: Member must have length less than or equal to %zu",
            v, member, max);
    return SC_OK;
}

static enum sc_status smithy_min0(struct sc_error *err, const char *member, int v)
{
    if (v < 0)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%d' at '%s' failed to satisfy constraint: Member must have value greater than or equal to 0",
            v, member);
    return SC_OK;
}

/* --- names ---------------------------------------------------------------------------------- */

static const char *const lifecycle_names[] = {
    [SC_ASG_PENDING] = "Pending",
    [SC_ASG_PENDING_WAIT] = "Pending:Wait",
    [SC_ASG_PENDING_PROCEED] = "Pending:Proceed",
    [SC_ASG_IN_SERVICE] = "InService",
    [SC_ASG_TERMINATING] = "Terminating",
    [SC_ASG_TERMINATING_WAIT] = "Terminating:Wait",
    [SC_ASG_TERMINATING_PROCEED] = "Terminating:Proceed",
    [SC_ASG_TERMINATED] = "Terminated",
    [SC_ASG_DETACHING] = "Detaching",
    [SC_ASG_DETACHED] = "Detached",
    [SC_ASG_ENTERING_STANDBY] = "EnteringStandby",
    [SC_ASG_STANDBY] = "Standby",
    [SC_ASG_WARMED_PENDING] = "Warmed:Pending",
    [SC_ASG_WARMED_PENDING_WAIT] = "Warmed:Pending:Wait",
    [SC_ASG_WARMED_PENDING_PROCEED] = "Warmed:Pending:Proceed",
    [SC_ASG_WARMED_TERMINATING] = "Warmed:Terminating",
    [SC_ASG_WARMED_TERMINATING_WAIT] = "Warmed:Terminating:Wait",
    [SC_ASG_WARMED_TERMINATING_PROCEED] = "Warmed:Terminating:Proceed",
    [SC_ASG_WARMED_TERMINATED] = "Warmed:Terminated",
    [SC_ASG_WARMED_STOPPED] = "Warmed:Stopped",
    [SC_ASG_WARMED_RUNNING] = "Warmed:Running",
    [SC_ASG_WARMED_HIBERNATED] = "Warmed:Hibernated",
};

const char *sc_asg_lifecycle_str(enum sc_asg_lifecycle s)
{
    if ((unsigned)s >= sizeof(lifecycle_names) / sizeof(lifecycle_names[0]))
        return "";
    return lifecycle_names[s];
}

static const char *const process_names[SC_ASG_PROC_COUNT + 1] = {
    "Launch",      "Terminate",        "AddToLoadBalancer", "AlarmNotification", "AZRebalance",
    "HealthCheck", "ReplaceUnhealthy", "ScheduledActions",  "InstanceRefresh",   NULL,
};

const char *sc_asg_process_str(enum sc_asg_process p)
{
    if ((unsigned)p >= SC_ASG_PROC_COUNT)
        return "";
    return process_names[p];
}

static const char *const metric_names[SC_ASG_METRIC_COUNT + 1] = {
    "GroupMinSize",
    "GroupMaxSize",
    "GroupDesiredCapacity",
    "GroupInServiceInstances",
    "GroupPendingInstances",
    "GroupStandbyInstances",
    "GroupTerminatingInstances",
    "GroupTotalInstances",
    /* the warm pool metrics (docs/autoscaling.md 7.3), in the user guide's order */
    "WarmPoolMinSize",
    "WarmPoolDesiredCapacity",
    "WarmPoolPendingCapacity",
    "WarmPoolTerminatingCapacity",
    "WarmPoolWarmedCapacity",
    "WarmPoolTotalCapacity",
    "GroupAndWarmPoolDesiredCapacity",
    "GroupAndWarmPoolTotalCapacity",
    /* capacity units (weights), docs/autoscaling.md 14 */
    "GroupInServiceCapacity",
    "GroupPendingCapacity",
    "GroupStandbyCapacity",
    "GroupTerminatingCapacity",
    "GroupTotalCapacity",
    NULL,
};

const char *sc_asg_metric_str(int i)
{
    if (i < 0 || i >= SC_ASG_METRIC_COUNT)
        return "";
    return metric_names[i];
}

const char *sc_asg_health_str(int healthy)
{
    return healthy ? "Healthy" : "Unhealthy";
}

const char *sc_asg_health_upper_str(int healthy)
{
    return healthy ? "HEALTHY" : "UNHEALTHY";
}

static const char *const adjustment_types[] = { "ChangeInCapacity", "ExactCapacity",
                                                "PercentChangeInCapacity", NULL };
static const char *const termination_policy_types[] = {
    "AllocationStrategy",
    "ClosestToNextInstanceHour",
    "Default",
    "NewestInstance",
    "OldestInstance",
    "OldestLaunchConfiguration",
    "OldestLaunchTemplate",
    NULL,
};
static const char *const granularity_types[] = { "1Minute", NULL };
static const char *const lifecycle_hook_types[] = { "autoscaling:EC2_INSTANCE_LAUNCHING",
                                                    "autoscaling:EC2_INSTANCE_TERMINATING", NULL };
static const char *const notification_types[] = {
    "autoscaling:EC2_INSTANCE_LAUNCH",    "autoscaling:EC2_INSTANCE_LAUNCH_ERROR",
    "autoscaling:EC2_INSTANCE_TERMINATE", "autoscaling:EC2_INSTANCE_TERMINATE_ERROR",
    "autoscaling:TEST_NOTIFICATION",      NULL,
};

const char *const *sc_asg_adjustment_types(void)
{
    return adjustment_types;
}
const char *const *sc_asg_termination_policy_types(void)
{
    return termination_policy_types;
}
const char *const *sc_asg_scaling_process_types(void)
{
    return process_names;
}
const char *const *sc_asg_metric_collection_types(void)
{
    return metric_names;
}
const char *const *sc_asg_metric_granularity_types(void)
{
    return granularity_types;
}
const char *const *sc_asg_lifecycle_hook_types(void)
{
    return lifecycle_hook_types;
}
const char *const *sc_asg_notification_types(void)
{
    return notification_types;
}

/* --- create / destroy ------------------------------------------------------------------------ */

struct sc_asg *sc_asg_create(const struct sc_asg_config *cfg)
{
    struct sc_asg *asg;

    if (!cfg || !cfg->rng)
        return NULL;
    asg = calloc(1, sizeof(*asg));
    if (!asg)
        return NULL;
    snprintf(asg->account, sizeof(asg->account), "%s",
             cfg->account_id ? cfg->account_id : "123456789012");
    snprintf(asg->region, sizeof(asg->region), "%s", cfg->region ? cfg->region : "us-east-1");
    asg->rng = cfg->rng;
    asg->env = cfg->env;
    asg->health_sweep_ms = cfg->health_sweep_ms > 0 ? cfg->health_sweep_ms : 10000;
    asg->next_sweep_ms = INT64_MIN;
    asg->inputs_gen = 1; /* sig_gen 0: no signature part yet */
    asg->decisions = sc_decision_log_create();
    if (!asg->decisions) {
        free(asg);
        return NULL;
    }
    return asg;
}

void asg_lc_free(struct asg_lc *lc)
{
    struct sc_asg_lc_info *i;

    if (!lc)
        return;
    i = &lc->info;
    free(i->launch_configuration_name);
    free(i->launch_configuration_arn);
    free(i->image_id);
    free(i->instance_type);
    free(i->key_name);
    free(i->user_data);
    free(i->iam_instance_profile);
    json_decref(i->other);
    sc_strv_free(i->security_groups, i->nsecurity_groups);
    free(lc);
}

void sc_asg_destroy(struct sc_asg *asg)
{
    if (!asg)
        return;
    for (int i = 0; i < asg->ngroups; i++)
        asg_group_free(asg->groups[i]);
    free(asg->groups);
    for (int i = 0; i < asg->ndel_acts; i++)
        asg_activity_free(asg->del_acts[i]);
    free(asg->del_acts);
    for (int i = 0; i < asg->nlcs; i++)
        asg_lc_free(asg->lcs[i]);
    free(asg->lcs);
    free(asg->idx);
    sc_decision_log_destroy(asg->decisions);
    asg_notify_log_free(asg);
    asg_tokens_free(asg);
    free(asg);
}

const struct sc_decision_log *sc_asg_decisions(const struct sc_asg *asg)
{
    return asg->decisions;
}

/* --- launch configurations ---------------------------------------------------------------------
 */

/* The index of name, or -1 with *pos (when given) its insertion point. */
static int lc_index(const struct sc_asg *asg, const char *name, int *pos)
{
    int i = lc_vec_find(asg->lcs, asg->nlcs, name);

    if (pos)
        *pos = i >= 0 ? i : -i - 1;
    return i >= 0 ? i : -1;
}

void sc_asg_lc_from_instance(const struct sc_asg_lc_req *req,
                             const struct sc_asg_instance_attrs *attrs, struct sc_asg_lc_req *out)
{
    *out = *req;
    out->instance_id = NULL;
    if (!out->image_id || !out->image_id[0])
        out->image_id = attrs->image_id;
    if (!out->instance_type || !out->instance_type[0])
        out->instance_type = attrs->instance_type;
    if (!out->key_name)
        out->key_name = attrs->key_name;
    if (!out->user_data)
        out->user_data = attrs->user_data;
    if (!out->iam_instance_profile)
        out->iam_instance_profile = attrs->iam_instance_profile;
    if (out->nsecurity_groups == 0) {
        out->security_groups = attrs->security_groups;
        out->nsecurity_groups = attrs->nsecurity_groups;
    }
    if (!out->has_instance_monitoring) {
        out->has_instance_monitoring = 1;
        out->instance_monitoring = !!attrs->monitoring_enabled;
    }
}

enum sc_status asg_instance_attrs(struct sc_asg *asg, const char *instance_id,
                                  struct sc_asg_instance_attrs *out, struct sc_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!asg->env.instance_attrs || asg->env.instance_attrs(asg->env.ud, instance_id, out) != 0)
        return sc_fail(err, SC_ERR_VALIDATION, "The instance ID '%s' does not exist", instance_id);
    return SC_OK;
}

enum sc_status sc_asg_create_launch_configuration(struct sc_asg *asg,
                                                  const struct sc_asg_lc_req *req, int64_t now_ms,
                                                  struct sc_error *err)
{
    struct asg_lc *lc = NULL;
    struct sc_asg_lc_info *i;
    char uuid[SC_RNG_UUID_LEN];
    enum sc_status st;
    int pos;

    st = smithy_length(err, "launchConfigurationName", req->launch_configuration_name, 255);
    if (st != SC_OK)
        return st;
    if (lc_index(asg, req->launch_configuration_name, &pos) >= 0)
        return sc_fail(
            err, SC_ERR_ALREADY_EXISTS,
            "Launch Configuration by this name already exists - A launch configuration already exists with the name %s",
            req->launch_configuration_name);
    if (req->instance_id) {
        struct sc_asg_instance_attrs attrs;
        struct sc_asg_lc_req derived;

        st = asg_instance_attrs(asg, req->instance_id, &attrs, err);
        if (st != SC_OK)
            return st;
        sc_asg_lc_from_instance(req, &attrs, &derived);
        return sc_asg_create_launch_configuration(asg, &derived, now_ms, err);
    }
    if (!req->image_id || !req->image_id[0])
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Invalid launch configuration: ImageId must be specified when InstanceId is not given.");
    if (!req->instance_type || !req->instance_type[0])
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Invalid launch configuration: InstanceType must be specified when InstanceId is not given.");
    if (asg->nlcs >= SC_ASG_MAX_LAUNCH_CONFIGURATIONS)
        return sc_fail(
            err, SC_ERR_LIMIT_EXCEEDED,
            "Launch configuration limit exceeded: you have reached your quota of %d launch configurations.",
            SC_ASG_MAX_LAUNCH_CONFIGURATIONS);
    lc = calloc(1, sizeof(*lc));
    if (!lc)
        goto oom;
    i = &lc->info;
    sc_rng_uuid(asg->rng, uuid);
    i->launch_configuration_name = sc_strdup(req->launch_configuration_name);
    i->launch_configuration_arn =
        asg_asprintf("arn:aws:autoscaling:%s:%s:launchConfiguration:%s:launchConfigurationName/%s",
                     asg->region, asg->account, uuid, req->launch_configuration_name);
    i->image_id = sc_strdup(req->image_id);
    i->instance_type = sc_strdup(req->instance_type);
    i->key_name = sc_strdup(req->key_name);
    i->user_data = sc_strdup(req->user_data);
    i->iam_instance_profile = sc_strdup(req->iam_instance_profile);
    if (req->nsecurity_groups > 0) {
        i->security_groups = asg_dup_strv(req->security_groups, req->nsecurity_groups);
        if (!i->security_groups)
            goto oom;
        i->nsecurity_groups = req->nsecurity_groups;
    }
    i->instance_monitoring = req->has_instance_monitoring ? !!req->instance_monitoring : 1;
    i->has_associate_public_ip_address = req->has_associate_public_ip_address;
    i->associate_public_ip_address = !!req->associate_public_ip_address;
    if (json_object_size(req->other) > 0) {
        i->other = json_deep_copy(req->other);
        if (!i->other)
            goto oom;
    }
    i->created_ms = now_ms;
    if (!i->launch_configuration_name || !i->launch_configuration_arn || !i->image_id ||
        !i->instance_type || (req->key_name && !i->key_name) || (req->user_data && !i->user_data) ||
        (req->iam_instance_profile && !i->iam_instance_profile))
        goto oom;
    if (lc_vec_insert(&asg->lcs, &asg->nlcs, &asg->lcs_cap, pos, lc) < 0)
        goto oom;
    return SC_OK;

oom:
    asg_lc_free(lc);
    return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
}

enum sc_status sc_asg_delete_launch_configuration(struct sc_asg *asg, const char *name,
                                                  int64_t now_ms, struct sc_error *err)
{
    int idx = name ? lc_index(asg, name, NULL) : -1;

    (void)now_ms;
    if (idx < 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Launch configuration name not found - Launch configuration %s not found",
                       name ? name : "null");
    for (int g = 0; g < asg->ngroups; g++) {
        const struct sc_asg_group_info *gi = &asg->groups[g]->info;

        if (gi->launch_configuration_name && strcmp(gi->launch_configuration_name, name) == 0)
            return sc_fail(
                err, SC_ERR_RESOURCE_IN_USE,
                "Cannot delete launch configuration %s because it is attached to AutoScalingGroup %s",
                name, gi->auto_scaling_group_name);
    }
    asg_lc_free(lc_vec_remove(asg->lcs, &asg->nlcs, idx));
    return SC_OK;
}

int sc_asg_lc_count(const struct sc_asg *asg)
{
    return asg->nlcs;
}

const struct sc_asg_lc_info *sc_asg_lc_at(const struct sc_asg *asg, int i)
{
    if (i < 0 || i >= asg->nlcs)
        return NULL;
    return &asg->lcs[i]->info;
}

const struct sc_asg_lc_info *sc_asg_lc_find(const struct sc_asg *asg, const char *name)
{
    int idx = name ? lc_index(asg, name, NULL) : -1;

    return idx < 0 ? NULL : &asg->lcs[idx]->info;
}

/* --- groups: lookup ------------------------------------------------------------------------------
 */

int asg_group_index(const struct sc_asg *asg, const char *name, int *pos)
{
    int i = group_vec_find(asg->groups, asg->ngroups, name);

    if (pos)
        *pos = i >= 0 ? i : -i - 1;
    return i >= 0 ? i : -1;
}

struct asg_group *asg_group_find(const struct sc_asg *asg, const char *name)
{
    int idx = name ? asg_group_index(asg, name, NULL) : -1;

    return idx < 0 ? NULL : asg->groups[idx];
}

enum sc_status sc_asg_group_not_found(const char *name, struct sc_error *err)
{
    if (!name)
        return sc_fail(err, SC_ERR_VALIDATION, "AutoScalingGroup name not found - null");
    return sc_fail(err, SC_ERR_VALIDATION,
                   "AutoScalingGroup name not found - AutoScalingGroup: %s not found", name);
}

int sc_asg_group_count(const struct sc_asg *asg)
{
    return asg->ngroups;
}

const struct sc_asg_group_info *sc_asg_group_at(const struct sc_asg *asg, int i)
{
    if (i < 0 || i >= asg->ngroups)
        return NULL;
    return &asg->groups[i]->info;
}

const struct sc_asg_group_info *sc_asg_group_find(const struct sc_asg *asg, const char *name)
{
    struct asg_group *g = asg_group_find(asg, name);

    return g ? &g->info : NULL;
}

int sc_asg_group_instance_count(const struct sc_asg_group_info *gi)
{
    const struct asg_group *g = (const struct asg_group *)gi;

    return g->ninst;
}

const struct sc_asg_instance_info *sc_asg_group_instance_at(const struct sc_asg_group_info *gi,
                                                            int i)
{
    const struct asg_group *g = (const struct asg_group *)gi;

    if (i < 0 || i >= g->ninst)
        return NULL;
    return &g->inst[i].info;
}

int sc_asg_group_capacity(const struct sc_asg_group_info *gi)
{
    const struct asg_group *g = (const struct asg_group *)gi;

    return g->census.cap_units;
}

void sc_asg_group_lifecycle_counts(const struct sc_asg_group_info *gi, int *pending,
                                   int *in_service, int *terminating)
{
    const struct asg_group *g = (const struct asg_group *)gi;

    *pending = asg_census_pending(&g->census);
    *in_service = g->census.state[SC_ASG_IN_SERVICE];
    *terminating = asg_census_terminating(&g->census);
}

const struct sc_asg_group_info *sc_asg_instance_group(const struct sc_asg *asg,
                                                      const char *instance_id,
                                                      const struct sc_asg_instance_info **out)
{
    struct asg_group *g = NULL;
    struct asg_inst *in = asg_inst_find(asg, instance_id, &g);

    if (!in)
        return NULL;
    if (out)
        *out = &in->info;
    return &g->info;
}

static uint64_t idx_hash(const char *s)
{
    return sc_hash_fnv1a_str(SC_HASH_FNV1A_BASIS, s);
}

static struct asg_idx_slot *idx_find(const struct sc_asg *asg, const char *id)
{
    size_t mask, i;

    if (!asg->idx_cap)
        return NULL;
    mask = asg->idx_cap - 1;
    for (i = idx_hash(id) & mask;; i = (i + 1) & mask) {
        struct asg_idx_slot *s = &asg->idx[i];

        if (s->used == 0)
            return NULL;
        if (s->used == 1 && strcmp(s->id, id) == 0)
            return s;
    }
}

/* Rehashes, doubling only when live entries fill a quarter (so deleted slots left by
 * churn are reclaimed and the table stays flat over long runs). */
static int idx_grow(struct sc_asg *asg)
{
    size_t live = 0, cap, oldcap = asg->idx_cap;
    struct asg_idx_slot *old = asg->idx, *n;

    for (size_t k = 0; k < oldcap; k++)
        live += old[k].used == 1;
    cap = oldcap < 64 ? 64 : ((live + 1) * 4 > oldcap ? oldcap * 2 : oldcap);
    n = calloc(cap, sizeof(*n));

    if (!n)
        return -1;
    asg->idx = n;
    asg->idx_cap = cap;
    asg->idx_fill = 0;
    for (size_t k = 0; k < oldcap; k++) {
        if (old[k].used == 1) {
            size_t i = idx_hash(old[k].id) & (cap - 1);

            while (n[i].used)
                i = (i + 1) & (cap - 1);
            n[i] = old[k];
            asg->idx_fill++;
        }
    }
    free(old);
    return 0;
}

int asg_idx_put(struct sc_asg *asg, const char *id, struct asg_group *g, int pos)
{
    struct asg_idx_slot *s = idx_find(asg, id);
    size_t i;

    if (s) {
        s->g = g;
        s->pos = pos;
        return 0;
    }
    if ((asg->idx_fill + 1) * 2 > asg->idx_cap && idx_grow(asg) != 0)
        return -1;
    for (i = idx_hash(id) & (asg->idx_cap - 1); asg->idx[i].used == 1;
         i = (i + 1) & (asg->idx_cap - 1))
        ;
    if (asg->idx[i].used == 0)
        asg->idx_fill++;
    s = &asg->idx[i];
    snprintf(s->id, sizeof(s->id), "%s", id);
    s->g = g;
    s->pos = pos;
    s->used = 1;
    return 0;
}

void asg_idx_del(struct sc_asg *asg, const char *id)
{
    struct asg_idx_slot *s = idx_find(asg, id);

    if (s)
        s->used = 2;
}

struct asg_inst *asg_inst_find(const struct sc_asg *asg, const char *instance_id,
                               struct asg_group **gout)
{
    struct asg_idx_slot *s;

    if (!instance_id)
        return NULL;
    s = idx_find(asg, instance_id);
    if (!s || s->pos < 0 || s->pos >= s->g->ninst)
        return NULL;
    if (gout)
        *gout = s->g;
    return &s->g->inst[s->pos];
}

int sc_asg_instance_warmed(const struct sc_asg *asg, const char *instance_id, int64_t now_ms)
{
    struct asg_inst *in = asg_inst_find(asg, instance_id, NULL);

    return in && in->info.lifecycle_state == SC_ASG_IN_SERVICE && now_ms >= in->warm_until_ms;
}

void sc_asg_account_limits(const struct sc_asg *asg, struct sc_asg_account_limits *out)
{
    out->max_number_of_auto_scaling_groups = SC_ASG_MAX_GROUPS;
    out->max_number_of_launch_configurations = SC_ASG_MAX_LAUNCH_CONFIGURATIONS;
    out->number_of_auto_scaling_groups = asg->ngroups;
    out->number_of_launch_configurations = asg->nlcs;
}

/* --- groups: create / update / delete -----------------------------------------------------------
 */

static void tags_free(struct sc_asg_tag *t, int n)
{
    for (int i = 0; i < n; i++) {
        free(t[i].key);
        free(t[i].value);
    }
    free(t);
}

void asg_group_free(struct asg_group *g)
{
    struct sc_asg_group_info *i;

    if (!g)
        return;
    asg_warm_free(g);
    asg_removing_free(g);
    i = &g->info;
    free(i->auto_scaling_group_name);
    free(i->auto_scaling_group_arn);
    free(i->launch_configuration_name);
    free(i->launch_template_id);
    free(i->launch_template_name);
    free(i->launch_template_version);
    asg_mixed_free(&i->mixed);
    free(i->desired_capacity_type);
    free(i->placement_group);
    free(i->context);
    free(i->service_linked_role_arn);
    sc_strv_free(i->availability_zones, i->navailability_zones);
    sc_strv_free(i->subnets, i->navailability_zones);
    free(i->vpc_zone_identifier);
    free(i->health_check_type);
    sc_strv_free(i->load_balancer_names, i->nload_balancer_names);
    sc_strv_free(i->target_group_arns, i->ntarget_group_arns);
    sc_strv_free(i->termination_policies, i->ntermination_policies);
    tags_free(i->tags, i->ntags);
    for (int k = 0; k < g->ninst; k++)
        asg_inst_cleanup(&g->inst[k]);
    free(g->inst);
    free(g->scratch);
    free(g->scratch_key);
    for (int k = 0; k < g->nacts; k++)
        asg_activity_free(g->acts[k]);
    free(g->acts);
    for (int k = 0; k < g->npol; k++)
        asg_policy_free(g->pol[k]);
    free(g->pol);
    asg_hooks_free(g);
    asg_scheds_free(g);
    asg_refreshes_free(g);
    asg_notify_free(g);
    free(g);
}

static int valid_health_check_type(const char *t)
{
    static const char *const ok[] = { "EC2", "ELB", "EBS", "VPC_LATTICE" };

    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        if (strcmp(t, ok[i]) == 0)
            return 1;
    return 0;
}

static enum sc_status check_termination_policies(const char *const *v, int n, struct sc_error *err)
{
    for (int i = 0; i < n; i++) {
        int ok = 0;

        for (int k = 0; termination_policy_types[k]; k++)
            ok |= v[i] && strcmp(v[i], termination_policy_types[k]) == 0;
        if (!ok && v[i] && strncmp(v[i], "arn:aws:lambda:", 15) == 0)
            ok = 1; /* custom termination policy (a Lambda ARN): accepted, acts as Default */
        if (!ok)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Unsupported termination policy: %s. Valid values are AllocationStrategy, ClosestToNextInstanceHour, Default, NewestInstance, OldestInstance, OldestLaunchConfiguration, OldestLaunchTemplate.",
                v[i] ? v[i] : "null");
        if (strcmp(v[i], "Default") == 0 && i != n - 1)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "The Default termination policy must be the last one in the list of termination policies.");
    }
    return SC_OK;
}

/* Splits "subnet-a, subnet-b" and resolves each subnet's zone. */
static enum sc_status resolve_subnets(struct sc_asg *asg, const char *vzi, char ***zones_out,
                                      char ***subnets_out, int *n_out, struct sc_error *err)
{
    char **zones = NULL, **subnets = NULL;
    int n = 0;
    const char *p = vzi;

    while (*p) {
        const char *start, *end;
        char sub[SC_ASG_ID_LEN], zone[SC_ASG_ID_LEN];
        char **gz, **gs;
        size_t len;

        while (*p == ',' || *p == ' ')
            p++;
        if (!*p)
            break;
        start = p;
        while (*p && *p != ',')
            p++;
        end = p;
        while (end > start && end[-1] == ' ')
            end--;
        len = (size_t)(end - start);
        if (len >= sizeof(sub)) {
            sc_fail(err, SC_ERR_VALIDATION, "The subnet ID '%.*s' does not exist", (int)len, start);
            goto fail;
        }
        memcpy(sub, start, len);
        sub[len] = '\0';
        if (!asg->env.subnet_zone || asg->env.subnet_zone(asg->env.ud, sub, zone) != 0) {
            sc_fail(err, SC_ERR_VALIDATION, "The subnet ID '%s' does not exist", sub);
            goto fail;
        }
        gz = realloc(zones, (size_t)(n + 1) * sizeof(*gz));
        if (!gz)
            goto oom;
        zones = gz;
        gs = realloc(subnets, (size_t)(n + 1) * sizeof(*gs));
        if (!gs)
            goto oom;
        subnets = gs;
        zones[n] = sc_strdup(zone);
        subnets[n] = sc_strdup(sub);
        n++;
        if (!zones[n - 1] || !subnets[n - 1])
            goto oom;
    }
    if (n == 0) {
        sc_fail(err, SC_ERR_VALIDATION,
                "At least one Availability Zone or VPC Subnet is required.");
        goto fail;
    }
    *zones_out = zones;
    *subnets_out = subnets;
    *n_out = n;
    return SC_OK;

oom:
    sc_fail(err, SC_ERR_INTERNAL, "out of memory");
fail:
    sc_strv_free(zones, n);
    sc_strv_free(subnets, n);
    return err ? err->status : SC_ERR_VALIDATION;
}

static enum sc_status check_lbs(struct sc_asg *asg, const char *const *names, int n,
                                struct sc_error *err)
{
    for (int i = 0; i < n; i++)
        if (!names[i] || !asg->env.lb_exists || !asg->env.lb_exists(asg->env.ud, names[i]))
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Provided Load Balancers may not be valid. Please ensure they exist and try again.");
    return SC_OK;
}

static enum sc_status group_set_zones(struct sc_asg *asg, struct asg_group *g,
                                      const struct sc_asg_group_req *r, struct sc_error *err)
{
    struct sc_asg_group_info *i = &g->info;
    char **zones = NULL, **subnets = NULL;
    int n = 0;
    enum sc_status st;

    if (r->vpc_zone_identifier && r->vpc_zone_identifier[0]) {
        st = resolve_subnets(asg, r->vpc_zone_identifier, &zones, &subnets, &n, err);
        if (st != SC_OK)
            return st;
    } else {
        for (int k = 0; k < r->navailability_zones; k++) {
            if (!r->availability_zones[k] ||
                (asg->env.zone_valid &&
                 !asg->env.zone_valid(asg->env.ud, r->availability_zones[k])))
                return sc_fail(err, SC_ERR_VALIDATION, "Invalid Availability Zone: %s",
                               r->availability_zones[k] ? r->availability_zones[k] : "null");
        }
        if (r->navailability_zones <= 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "At least one Availability Zone or VPC Subnet is required.");
        zones = asg_dup_strv(r->availability_zones, r->navailability_zones);
        if (!zones)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        n = r->navailability_zones;
    }
    sc_strv_free(i->availability_zones, i->navailability_zones);
    sc_strv_free(i->subnets, i->navailability_zones);
    free(i->vpc_zone_identifier);
    i->availability_zones = zones;
    g->zones_gen++;
    i->subnets = subnets;
    i->navailability_zones = n;
    i->vpc_zone_identifier = sc_strdup(subnets ? r->vpc_zone_identifier : "");
    if (!i->vpc_zone_identifier)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    return SC_OK;
}

void asg_set_desired(struct asg_group *g, int desired, int64_t now_ms, const char *clause_fmt, ...)
{
    char clause[ASG_CAUSE_LEN];
    va_list ap;
    int from = g->info.desired_capacity;

    if (desired == from)
        return;
    va_start(ap, clause_fmt);
    vsnprintf(clause, sizeof(clause), clause_fmt, ap);
    va_end(ap);
    g->info.desired_capacity = desired;
    g->pending_cause[0] = '\0';
    asg_cause_add(g->pending_cause, now_ms, "%s changing the desired capacity from %d to %d",
                  clause, from, desired);
}

static enum sc_status check_sizes(int min, int max, int has_desired, int desired,
                                  struct sc_error *err)
{
    enum sc_status st;

    st = smithy_min0(err, "minSize", min);
    if (st != SC_OK)
        return st;
    st = smithy_min0(err, "maxSize", max);
    if (st != SC_OK)
        return st;
    if (max < min)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Max bound, %d, must be greater than or equal to min bound, %d", max, min);
    if (has_desired && (desired < min || desired > max))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Desired capacity:%d must be between the specified min size:%d and max size:%d",
            desired, min, max);
    return SC_OK;
}

static enum sc_status check_tag(const struct sc_asg_tag_req *t, struct sc_error *err)
{
    if (!t->key || !t->key[0] || strlen(t->key) > 128)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value at 'tags.member.key' failed to satisfy constraint: Member must have length between 1 and 128");
    if (strncmp(t->key, "aws:", 4) == 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Tag keys starting with 'aws:' are reserved for internal use");
    if (t->value && strlen(t->value) > 256)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value at 'tags.member.value' failed to satisfy constraint: Member must have length less than or equal to 256");
    return SC_OK;
}

/* Sets or replaces one tag on g. Returns 0, or -1 on OOM / limit. */
static int group_put_tag(struct asg_group *g, const struct sc_asg_tag_req *t)
{
    struct sc_asg_group_info *i = &g->info;
    struct sc_asg_tag *grown;
    char *v = sc_strdup(t->value ? t->value : "");

    if (!v)
        return -1;
    for (int k = 0; k < i->ntags; k++) {
        if (strcmp(i->tags[k].key, t->key) == 0) {
            free(i->tags[k].value);
            i->tags[k].value = v;
            i->tags[k].propagate_at_launch = !!t->propagate_at_launch;
            return 0;
        }
    }
    grown = realloc(i->tags, (size_t)(i->ntags + 1) * sizeof(*grown));
    if (!grown) {
        free(v);
        return -1;
    }
    i->tags = grown;
    grown[i->ntags].key = sc_strdup(t->key);
    if (!grown[i->ntags].key) {
        free(v);
        return -1;
    }
    grown[i->ntags].value = v;
    grown[i->ntags].propagate_at_launch = !!t->propagate_at_launch;
    i->ntags++;
    return 0;
}

/* DesiredCapacityType: only "units" (vcpu and memory-mib need attribute-based selection). */
static enum sc_status check_desired_capacity_type(const char *t, struct sc_error *err)
{
    if (t && strcmp(t, "units") != 0)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "DesiredCapacityType %s is not supported by scalelab: it needs InstanceRequirements (attribute-based instance type selection). Valid values are units.",
            t);
    return SC_OK;
}

/* *field = a copy of t, when t is given (the request's members an update may leave out). */
static int set_str(char **field, const char *t)
{
    char *d;

    if (!t)
        return 0;
    d = sc_strdup(t);
    if (!d)
        return -1;
    free(*field);
    *field = d;
    return 0;
}

/* The group members kept as sent (Create and Update alike). */
static int set_kept(struct sc_asg_group_info *i, const struct sc_asg_group_req *r)
{
    return set_str(&i->desired_capacity_type, r->desired_capacity_type) != 0 ||
                   set_str(&i->placement_group, r->placement_group) != 0 ||
                   set_str(&i->context, r->context) != 0 ||
                   set_str(&i->service_linked_role_arn, r->service_linked_role_arn) != 0
               ? -1
               : 0;
}

/* MaxInstanceLifetime's range and the members scalelab cannot act on as AWS does: an error
 * before anything changes. */
static enum sc_status check_unsupported(const struct sc_asg_group_req *r, struct sc_error *err)
{
    if (r->has_max_instance_lifetime) {
        enum sc_status st = sc_asg_lifetime_check(r->max_instance_lifetime, err);

        if (st != SC_OK)
            return st;
    }
    return check_desired_capacity_type(r->desired_capacity_type, err);
}

/* CreateAutoScalingGroup with InstanceId (docs/autoscaling.md 15): the launch
 * configuration named after the group is derived from the instance, the group made with
 * it; when the group is refused the configuration goes again, so nothing stays. */
static enum sc_status create_group_from_instance(struct sc_asg *asg,
                                                 const struct sc_asg_group_req *r, int64_t now_ms,
                                                 struct sc_error *err)
{
    struct sc_asg_instance_attrs attrs;
    struct sc_asg_lc_req lq, derived;
    struct sc_asg_group_req gr = *r;
    const char *zone;
    enum sc_status st;

    if (r->launch_configuration_name || r->launch_template_id || r->launch_template_name ||
        r->mixed_instances_policy)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Valid requests must contain either LaunchTemplate, LaunchConfigurationName, InstanceId or MixedInstancesPolicy parameter.");
    st = asg_instance_attrs(asg, r->instance_id, &attrs, err);
    if (st != SC_OK)
        return st;
    memset(&lq, 0, sizeof(lq));
    lq.launch_configuration_name = r->auto_scaling_group_name;
    sc_asg_lc_from_instance(&lq, &attrs, &derived);
    gr.instance_id = NULL;
    gr.launch_configuration_name = r->auto_scaling_group_name;
    if (r->navailability_zones == 0 && !r->vpc_zone_identifier) {
        zone = attrs.availability_zone;
        if (attrs.subnet_id)
            gr.vpc_zone_identifier = attrs.subnet_id;
        else if (zone) {
            gr.availability_zones = &zone;
            gr.navailability_zones = 1;
        }
    }
    st = sc_asg_create_launch_configuration(asg, &derived, now_ms, err);
    if (st != SC_OK)
        return st;
    st = sc_asg_create_group(asg, &gr, now_ms, err);
    if (st != SC_OK)
        (void)sc_asg_delete_launch_configuration(asg, gr.launch_configuration_name, now_ms, NULL);
    return st;
}

enum sc_status sc_asg_create_group(struct sc_asg *asg, const struct sc_asg_group_req *r,
                                   int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = NULL;
    struct sc_asg_group_info *i;
    char uuid[SC_RNG_UUID_LEN];
    struct asg_lt_ids ids;
    enum sc_status st;
    int pos, idx, desired;

    st = smithy_length(err, "autoScalingGroupName", r->auto_scaling_group_name, 255);
    if (st != SC_OK)
        return st;
    idx = asg_group_index(asg, r->auto_scaling_group_name, &pos);
    if (idx >= 0) {
        if (asg->groups[idx]->deleting)
            return sc_fail(err, SC_ERR_ALREADY_EXISTS,
                           "AutoScalingGroup by this name already exists and is pending delete");
        return sc_fail(
            err, SC_ERR_ALREADY_EXISTS,
            "AutoScalingGroup by this name already exists - A group with the name %s already exists",
            r->auto_scaling_group_name);
    }
    if (r->instance_id)
        return create_group_from_instance(asg, r, now_ms, err);
    if (!r->has_min_size)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value null at 'minSize' failed to satisfy constraint: Member must not be null");
    if (!r->has_max_size)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value null at 'maxSize' failed to satisfy constraint: Member must not be null");
    st = asg_launch_source_check(asg, NULL, r, &ids, err);
    if (st != SC_OK)
        return st;
    st = check_unsupported(r, err);
    if (st != SC_OK)
        return st;
    st = check_sizes(r->min_size, r->max_size, r->has_desired_capacity, r->desired_capacity, err);
    if (st != SC_OK)
        return st;
    if (r->has_default_cooldown) {
        st = smithy_min0(err, "defaultCooldown", r->default_cooldown);
        if (st != SC_OK)
            return st;
    }
    if (r->has_health_check_grace_period) {
        st = smithy_min0(err, "healthCheckGracePeriod", r->health_check_grace_period);
        if (st != SC_OK)
            return st;
    }
    if (r->has_default_instance_warmup) {
        st = smithy_min0(err, "defaultInstanceWarmup", r->default_instance_warmup);
        if (st != SC_OK)
            return st;
    }
    if (r->health_check_type && !valid_health_check_type(r->health_check_type))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Invalid health check type: %s. Valid values are EC2, ELB, EBS, VPC_LATTICE.",
            r->health_check_type);
    st = check_termination_policies(r->termination_policies, r->ntermination_policies, err);
    if (st != SC_OK)
        return st;
    st = check_lbs(asg, r->load_balancer_names, r->nload_balancer_names, err);
    if (st != SC_OK)
        return st;
    st = asg_check_target_groups(asg, r->target_group_arns, r->ntarget_group_arns, err);
    if (st != SC_OK)
        return st;
    st = asg_traffic_check_create(asg, r, err);
    if (st != SC_OK)
        return st;
    if (r->nload_balancer_names > SC_ASG_MAX_LOAD_BALANCERS)
        return sc_fail(
            err, SC_ERR_LIMIT_EXCEEDED,
            "You have reached your quota of %d Classic Load Balancers per Auto Scaling group.",
            SC_ASG_MAX_LOAD_BALANCERS);
    if (r->ntags > SC_ASG_MAX_TAGS)
        return sc_fail(err, SC_ERR_LIMIT_EXCEEDED,
                       "Tag limit exceeded: an Auto Scaling group can have at most %d tags.",
                       SC_ASG_MAX_TAGS);
    for (int k = 0; k < r->ntags; k++) {
        st = check_tag(&r->tags[k], err);
        if (st != SC_OK)
            return st;
    }
    if (asg->ngroups >= SC_ASG_MAX_GROUPS)
        return sc_fail(err, SC_ERR_LIMIT_EXCEEDED,
                       "You have reached your quota of %d Auto Scaling groups.", SC_ASG_MAX_GROUPS);

    g = calloc(1, sizeof(*g));
    if (!g)
        goto oom;
    i = &g->info;
    st = group_set_zones(asg, g, r, err);
    if (st != SC_OK) {
        asg_group_free(g);
        return st;
    }
    sc_rng_uuid(asg->rng, uuid);
    i->auto_scaling_group_name = sc_strdup(r->auto_scaling_group_name);
    i->auto_scaling_group_arn =
        asg_asprintf("arn:aws:autoscaling:%s:%s:autoScalingGroup:%s:autoScalingGroupName/%s",
                     asg->region, asg->account, uuid, r->auto_scaling_group_name);
    if (!i->auto_scaling_group_name || !i->auto_scaling_group_arn ||
        asg_launch_source_set(asg, g, r, &ids) != 0 || set_kept(i, r) != 0)
        goto oom;
    i->min_size = r->min_size;
    i->max_size = r->max_size;
    desired = r->has_desired_capacity ? r->desired_capacity : r->min_size;
    i->default_cooldown = r->has_default_cooldown ? r->default_cooldown : 300;
    i->has_default_instance_warmup = r->has_default_instance_warmup;
    i->default_instance_warmup = r->default_instance_warmup;
    i->health_check_type = sc_strdup(r->health_check_type ? r->health_check_type : "EC2");
    i->health_check_grace_period =
        r->has_health_check_grace_period ? r->health_check_grace_period : 0;
    if (!i->health_check_type)
        goto oom;
    if (r->nload_balancer_names > 0) {
        i->load_balancer_names = asg_dup_strv(r->load_balancer_names, r->nload_balancer_names);
        if (!i->load_balancer_names)
            goto oom;
        i->nload_balancer_names = r->nload_balancer_names;
    }
    if (r->ntarget_group_arns > 0) {
        i->target_group_arns = asg_dup_strv(r->target_group_arns, r->ntarget_group_arns);
        if (!i->target_group_arns)
            goto oom;
        i->ntarget_group_arns = r->ntarget_group_arns;
    }
    if (asg_traffic_add_create(asg, g, r, &(struct sc_error){ 0 }) != SC_OK)
        goto oom; /* (checked above: only memory can fail here) */
    if (r->ntermination_policies > 0) {
        i->termination_policies = asg_dup_strv(r->termination_policies, r->ntermination_policies);
        if (!i->termination_policies)
            goto oom;
        i->ntermination_policies = r->ntermination_policies;
    } else {
        static const char *const def[] = { "Default" };

        i->termination_policies = asg_dup_strv(def, 1);
        if (!i->termination_policies)
            goto oom;
        i->ntermination_policies = 1;
    }
    for (int k = 0; k < r->ntags; k++)
        if (group_put_tag(g, &r->tags[k]) != 0)
            goto oom;
    i->new_instances_protected_from_scale_in =
        r->has_new_instances_protected_from_scale_in && r->new_instances_protected_from_scale_in;
    i->capacity_rebalance = r->has_capacity_rebalance && r->capacity_rebalance;
    i->has_max_instance_lifetime = r->has_max_instance_lifetime;
    i->max_instance_lifetime = r->has_max_instance_lifetime ? r->max_instance_lifetime : 0;
    i->created_ms = now_ms;
    g->cooldown_pending_s = -1;
    g->next_metrics_ms = INT64_MAX;
    asg_set_desired(g, desired, now_ms, "a user request created an AutoScalingGroup");

    if (group_vec_insert(&asg->groups, &asg->ngroups, &asg->groups_cap, pos, g) < 0)
        goto oom;
    asg_inputs_changed(asg);
    return SC_OK;

oom:
    asg_group_free(g);
    return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
}

enum sc_status sc_asg_update_group(struct sc_asg *asg, const struct sc_asg_group_req *r,
                                   int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, r->auto_scaling_group_name);
    struct sc_asg_group_info *i;
    struct asg_lt_ids ids;
    int min, max, desired;
    enum sc_status st;

    if (!g || g->deleting)
        return sc_asg_group_not_found(r->auto_scaling_group_name, err);
    i = &g->info;
    st = asg_launch_source_check(asg, g, r, &ids, err);
    if (st != SC_OK)
        return st;
    st = check_unsupported(r, err);
    if (st != SC_OK)
        return st;
    min = r->has_min_size ? r->min_size : i->min_size;
    max = r->has_max_size ? r->max_size : i->max_size;
    desired = i->desired_capacity;
    if (!r->has_desired_capacity) {
        if (r->has_min_size && min > desired)
            desired = min;
        if (r->has_max_size && max < desired)
            desired = max;
    } else {
        desired = r->desired_capacity;
    }
    st = check_sizes(min, max, 1, desired, err);
    if (st != SC_OK)
        return st;
    if (r->has_default_cooldown) {
        st = smithy_min0(err, "defaultCooldown", r->default_cooldown);
        if (st != SC_OK)
            return st;
    }
    if (r->has_health_check_grace_period) {
        st = smithy_min0(err, "healthCheckGracePeriod", r->health_check_grace_period);
        if (st != SC_OK)
            return st;
    }
    if (r->health_check_type && !valid_health_check_type(r->health_check_type))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Invalid health check type: %s. Valid values are EC2, ELB, EBS, VPC_LATTICE.",
            r->health_check_type);
    if (r->ntermination_policies > 0) {
        st = check_termination_policies(r->termination_policies, r->ntermination_policies, err);
        if (st != SC_OK)
            return st;
    }
    if ((r->vpc_zone_identifier && r->vpc_zone_identifier[0]) || r->navailability_zones > 0) {
        st = group_set_zones(asg, g, r, err);
        if (st != SC_OK)
            return st;
    }
    if (asg_launch_source_set(asg, g, r, &ids) != 0 || set_kept(i, r) != 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    if (r->health_check_type) {
        char *t = sc_strdup(r->health_check_type);

        if (!t)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        free(i->health_check_type);
        i->health_check_type = t;
        asg_inputs_changed(asg);
    }
    if (r->ntermination_policies > 0) {
        char **tp = asg_dup_strv(r->termination_policies, r->ntermination_policies);

        if (!tp)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        sc_strv_free(i->termination_policies, i->ntermination_policies);
        i->termination_policies = tp;
        i->ntermination_policies = r->ntermination_policies;
    }
    if (r->has_default_cooldown)
        i->default_cooldown = r->default_cooldown;
    if (r->has_default_instance_warmup) {
        i->has_default_instance_warmup = 1;
        i->default_instance_warmup = r->default_instance_warmup;
    }
    if (r->has_health_check_grace_period) {
        i->health_check_grace_period = r->health_check_grace_period;
        asg_inputs_changed(asg);
    }
    if (r->has_new_instances_protected_from_scale_in)
        i->new_instances_protected_from_scale_in = !!r->new_instances_protected_from_scale_in;
    if (r->has_capacity_rebalance)
        i->capacity_rebalance = !!r->capacity_rebalance;
    if (r->has_max_instance_lifetime) {
        i->has_max_instance_lifetime = 1;
        i->max_instance_lifetime = r->max_instance_lifetime;
    }
    i->min_size = min;
    i->max_size = max;
    asg_set_desired(
        g, desired, now_ms,
        "a user request update of AutoScalingGroup constraints to min: %d, max: %d, desired: %d",
        min, max, desired);
    return SC_OK;
}

/* Removes g from the list and frees it (policies' alarms deleted first); its activities
 * go to the deleted groups' list. */
static void group_remove(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    int idx = asg_group_index(asg, g->info.auto_scaling_group_name, NULL);

    asg_group_drop_policies(asg, g, now_ms);
    asg_deleted_acts_take(asg, g, now_ms);
    for (int k = 0; k < g->ninst; k++)
        asg_idx_del(asg, g->inst[k].info.instance_id);
    if (idx >= 0)
        group_vec_remove(asg->groups, &asg->ngroups, idx);
    asg_group_free(g);
    asg_inputs_changed(asg);
}

enum sc_status sc_asg_delete_group(struct sc_asg *asg, const char *name, int force_delete,
                                   int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, name);
    int live = 0;

    if (!g)
        return sc_asg_group_not_found(name, err);
    if (g->deleting)
        return SC_OK;
    for (int i = 0; i < g->ninst; i++) {
        enum sc_asg_lifecycle s = g->inst[i].info.lifecycle_state;

        live += !(s == SC_ASG_TERMINATING || s == SC_ASG_TERMINATING_WAIT ||
                  s == SC_ASG_TERMINATING_PROCEED || s == SC_ASG_TERMINATED ||
                  s == SC_ASG_DETACHING || s == SC_ASG_DETACHED);
    }
    if (!force_delete) {
        if (live > 0)
            return sc_fail(
                err, SC_ERR_RESOURCE_IN_USE,
                "You cannot delete an AutoScalingGroup while there are instances or pending Spot instance request(s) still in the group.");
        if (g->ninst > 0 || asg_group_busy(g))
            return sc_fail(
                err, SC_ERR_SCALING_ACTIVITY_IN_PROGRESS,
                "You cannot delete an AutoScalingGroup while there are scaling activities in progress for that group.");
        group_remove(asg, g, now_ms);
        return SC_OK;
    }
    asg_group_drop_policies(asg, g, now_ms);
    if (g->ninst == 0) {
        group_remove(asg, g, now_ms);
        return SC_OK;
    }
    g->deleting = 1;
    g->info.status = "Delete in progress";
    g->info.min_size = 0;
    g->info.max_size = 0;
    g->info.desired_capacity = 0;
    g->pending_cause[0] = '\0';
    for (int i = 0; i < g->ninst; i++) {
        struct asg_inst *in = &g->inst[i];

        if (asg_counts_capacity(in->info.lifecycle_state) ||
            in->info.lifecycle_state == SC_ASG_STANDBY ||
            in->info.lifecycle_state == SC_ASG_ENTERING_STANDBY) {
            char cause[ASG_CAUSE_LEN] = "";

            asg_cause_add(
                cause, now_ms,
                "an instance was taken out of service in response to a user request to delete the group");
            asg_inst_begin_terminate(asg, g, in, cause, now_ms);
        }
    }
    return SC_OK;
}

/* Removes force-deleted groups whose instances are gone. */
void asg_reap_deleted(struct sc_asg *asg, int64_t now_ms)
{
    for (int i = 0; i < asg->ngroups;) {
        struct asg_group *g = asg->groups[i];

        if (g->deleting && g->ninst == 0)
            group_remove(asg, g, now_ms);
        else
            i++;
    }
}
