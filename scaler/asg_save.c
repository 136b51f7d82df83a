/* scaler/asg_save.c: sc_asg_save / sc_asg_load (asg.h): the whole Auto Scaling state as
 * JSON (launch configurations; groups with their instances, activities, policies and
 * private bookkeeping: cooldowns, retries, pending causes, zone failures; deleted groups'
 * activities), and back. */
#include "scaler/asg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/asg_internal.h"
#include "scaler/save.h"

/* Every status code an activity can carry (the info holds a pointer to a literal). */
static const char *const status_codes[] = {
    "PendingSpotBidPlacement",
    "WaitingForSpotInstanceRequestId",
    "WaitingForSpotInstanceId",
    "WaitingForInstanceId",
    "PreInService",
    "InProgress",
    "WaitingForELBConnectionDraining",
    "MidLifecycleAction",
    "WaitingForInstanceWarmup",
    "Successful",
    "Failed",
    "Cancelled",
    "WaitingForConnectionDraining",
};

static const char *status_code_intern(const char *s)
{
    for (size_t i = 0; s && i < sizeof(status_codes) / sizeof(status_codes[0]); i++) {
        if (strcmp(s, status_codes[i]) == 0)
            return status_codes[i];
    }
    return NULL;
}

/* --- save ------------------------------------------------------------------------------- */

static json_t *lc_save(const struct sc_asg_lc_info *i)
{
    json_t *o = json_object();
    int bad = !o;

    if (bad)
        return NULL;
    bad |= sc_save_str(o, "name", i->launch_configuration_name);
    bad |= sc_save_str(o, "arn", i->launch_configuration_arn);
    bad |= sc_save_str(o, "image_id", i->image_id);
    bad |= sc_save_str(o, "instance_type", i->instance_type);
    bad |= sc_save_str(o, "key_name", i->key_name);
    bad |= sc_save_str(o, "user_data", i->user_data);
    bad |= sc_save_str(o, "iam_instance_profile", i->iam_instance_profile);
    bad |= sc_save_strv(o, "security_groups", i->security_groups, i->nsecurity_groups);
    bad |= sc_save_bool(o, "instance_monitoring", i->instance_monitoring);
    bad |= sc_save_bool(o, "has_associate_public_ip_address", i->has_associate_public_ip_address);
    bad |= sc_save_bool(o, "associate_public_ip_address", i->associate_public_ip_address);
    if (i->other)
        bad |= sc_save_take(o, "other", json_deep_copy(i->other));
    bad |= sc_save_int(o, "created_ms", i->created_ms);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *tags_save(const struct sc_asg_tag *t, int n)
{
    json_t *a = json_array();

    for (int k = 0; a && k < n; k++) {
        json_t *o = json_object();
        int bad = !o;

        if (o) {
            bad |= sc_save_str(o, "key", t[k].key);
            bad |= sc_save_str(o, "value", t[k].value);
            bad |= sc_save_bool(o, "propagate_at_launch", t[k].propagate_at_launch);
        }
        if (bad || json_array_append_new(a, o) != 0) {
            json_decref(o);
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *inst_save(const struct asg_inst *in)
{
    const struct sc_asg_instance_info *i = &in->info;
    json_t *o = json_object();
    int bad = !o;

    if (bad)
        return NULL;
    bad |= sc_save_str(o, "instance_id", i->instance_id);
    bad |= sc_save_str(o, "availability_zone", i->availability_zone);
    bad |= sc_save_str(o, "subnet_id", i->subnet_id);
    bad |= sc_save_str(o, "lifecycle_state", sc_asg_lifecycle_str(i->lifecycle_state));
    bad |= sc_save_bool(o, "healthy", i->healthy);
    bad |= sc_save_str(o, "launch_configuration_name", i->launch_configuration_name);
    bad |= sc_save_str(o, "launch_template_id", i->launch_template_id);
    bad |= sc_save_str(o, "launch_template_name", i->launch_template_name);
    bad |= sc_save_str(o, "launch_template_version", i->launch_template_version);
    bad |= sc_save_str(o, "instance_type", i->instance_type);
    bad |= sc_save_bool(o, "protected_from_scale_in", i->protected_from_scale_in);
    bad |= sc_save_int(o, "launch_ms", i->launch_ms);
    bad |= sc_save_int(o, "weight", i->weight);
    bad |= sc_save_int(o, "unhealthy", in->unhealthy);
    bad |= sc_save_int(o, "inservice_ms", in->inservice_ms);
    bad |= sc_save_int(o, "warm_until_ms", in->warm_until_ms);
    bad |= sc_save_int(o, "impaired_since_ms", in->impaired_since_ms);
    bad |= sc_save_str(o, "activity_id", in->activity_id);
    bad |= sc_save_bool(o, "terminate_sent", in->terminate_sent);
    bad |= sc_save_bool(o, "from_standby", in->from_standby);
    bad |= sc_save_take(o, "lifecycle_actions", asg_actions_save(in));
    bad |= sc_save_bool(o, "skip_launch_hooks", in->skip_launch_hooks);
    bad |= sc_save_bool(o, "skip_terminate_hooks", in->skip_terminate_hooks);
    if (in->warm_stop_sent || in->warm_returning) { /* warm pools (asg_warm.c) */
        bad |= sc_save_bool(o, "warm_stop_sent", in->warm_stop_sent);
        bad |= sc_save_bool(o, "warm_returning", in->warm_returning);
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *act_save(const struct asg_activity *a)
{
    const struct sc_asg_activity_info *i = &a->info;
    json_t *o = json_object();
    int bad = !o;

    if (bad)
        return NULL;
    bad |= sc_save_str(o, "activity_id", i->activity_id);
    bad |= sc_save_str(o, "group_name", i->auto_scaling_group_name);
    bad |= sc_save_str(o, "group_arn", i->auto_scaling_group_arn);
    bad |= sc_save_str(o, "description", i->description);
    bad |= sc_save_str(o, "cause", i->cause);
    bad |= sc_save_int(o, "start_ms", i->start_ms);
    bad |= sc_save_int(o, "end_ms", i->end_ms);
    bad |= sc_save_str(o, "status_code", i->status_code);
    bad |= sc_save_str(o, "status_message", i->status_message);
    bad |= sc_save_int(o, "progress", i->progress);
    bad |= sc_save_str(o, "details", i->details);
    bad |= sc_save_bool(o, "group_deleted", i->group_deleted);
    bad |= sc_save_int(o, "seq", (int64_t)a->seq);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *policy_save(const struct asg_policy *p)
{
    const struct sc_asg_policy_info *i = &p->info;
    json_t *o = json_object();
    json_t *steps = json_array();
    int bad = !o || !steps;

    if (bad) {
        json_decref(o);
        json_decref(steps);
        return NULL;
    }
    for (int k = 0; k < i->nstep_adjustments && !bad; k++) {
        const struct sc_step_adjustment *s = &i->step_adjustments[k];
        json_t *so = json_object();

        bad |= !so;
        if (so) {
            bad |= sc_save_bool(so, "has_lower", s->has_lower);
            bad |= sc_save_real(so, "lower", s->has_lower ? s->lower : 0);
            bad |= sc_save_bool(so, "has_upper", s->has_upper);
            bad |= sc_save_real(so, "upper", s->has_upper ? s->upper : 0);
            bad |= sc_save_int(so, "scaling_adjustment", s->scaling_adjustment);
            bad |= json_array_append_new(steps, so);
        }
    }
    bad |= sc_save_take(o, "step_adjustments", steps);
    bad |= sc_save_str(o, "group_name", i->auto_scaling_group_name);
    bad |= sc_save_str(o, "policy_name", i->policy_name);
    bad |= sc_save_str(o, "policy_arn", i->policy_arn);
    bad |= sc_save_str(o, "policy_type", sc_asg_policy_type_str(i->policy_type));
    bad |= sc_save_bool(o, "has_adjustment_type", i->has_adjustment_type);
    bad |= sc_save_int(o, "adjustment_type", (int64_t)i->adjustment_type);
    bad |= sc_save_bool(o, "has_scaling_adjustment", i->has_scaling_adjustment);
    bad |= sc_save_int(o, "scaling_adjustment", i->scaling_adjustment);
    bad |= sc_save_bool(o, "has_min_adjustment_magnitude", i->has_min_adjustment_magnitude);
    bad |= sc_save_int(o, "min_adjustment_magnitude", i->min_adjustment_magnitude);
    if (i->min_adjustment_step)
        bad |= sc_save_bool(o, "min_adjustment_step", 1);
    bad |= sc_save_bool(o, "has_cooldown", i->has_cooldown);
    bad |= sc_save_int(o, "cooldown", i->cooldown);
    bad |= sc_save_str(o, "metric_aggregation_type", i->metric_aggregation_type);
    bad |= sc_save_bool(o, "has_estimated_instance_warmup", i->has_estimated_instance_warmup);
    bad |= sc_save_int(o, "estimated_instance_warmup", i->estimated_instance_warmup);
    bad |= sc_save_str(o, "predefined_metric_type", i->predefined_metric_type);
    bad |= sc_save_str(o, "resource_label", i->resource_label);
    bad |= sc_save_str(o, "metric_name", i->metric_name);
    bad |= sc_save_str(o, "namespace", i->namespace_);
    bad |= sc_save_take(o, "dimensions", tags_save(i->dimensions, i->ndimensions));
    bad |= sc_save_str(o, "statistic", i->statistic);
    bad |= sc_save_str(o, "unit", i->unit);
    if (i->nmetrics)
        bad |= sc_save_take(o, "metrics", sc_alarm_queries_save(i->metrics, i->nmetrics));
    bad |= sc_save_real(o, "target_value", i->target_value);
    bad |= sc_save_bool(o, "disable_scale_in", i->disable_scale_in);
    bad |= sc_save_strv(o, "alarm_names", i->alarm_names, 2);
    bad |= sc_save_strv(o, "alarm_arns", i->alarm_arns, 2);
    bad |= sc_save_bool(o, "enabled", i->enabled);
    if (i->predictive)
        bad |= sc_save_take(o, "predictive", asg_predictive_save(i->predictive));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The mixed instances policy's details (the group's launch_template_* are its template). */
static json_t *mixed_save(const struct sc_asg_mixed_info *m)
{
    json_t *o = json_object(), *ov = json_array();
    int bad = !o || !ov;

    for (int k = 0; !bad && k < m->noverrides; k++) {
        const struct sc_asg_override_info *x = &m->overrides[k];
        json_t *e = json_object();

        if (!e || json_array_append_new(ov, e) != 0) {
            bad = 1;
        } else {
            bad |= sc_save_str(e, "instance_type", x->instance_type);
            bad |= sc_save_str(e, "weighted_capacity", x->weighted_capacity);
            bad |= sc_save_int(e, "weight", x->weight);
            bad |= sc_save_str(e, "launch_template_id", x->launch_template_id);
            bad |= sc_save_str(e, "launch_template_name", x->launch_template_name);
            bad |= sc_save_str(e, "launch_template_version", x->launch_template_version);
        }
    }
    if (bad) {
        json_decref(o);
        json_decref(ov);
        return NULL;
    }
    bad |= sc_save_take(o, "overrides", ov);
    bad |= sc_save_str(o, "on_demand_allocation_strategy", m->on_demand_allocation_strategy);
    bad |= sc_save_int(o, "on_demand_base_capacity", m->on_demand_base_capacity);
    bad |= sc_save_int(o, "on_demand_percentage_above_base_capacity",
                       m->on_demand_percentage_above_base_capacity);
    bad |= sc_save_str(o, "spot_allocation_strategy", m->spot_allocation_strategy);
    bad |= sc_save_int(o, "spot_instance_pools", m->spot_instance_pools);
    bad |= sc_save_bool(o, "spot_instance_pools_sent", m->spot_instance_pools_sent);
    bad |= sc_save_str(o, "spot_max_price", m->spot_max_price);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *group_save(const struct asg_group *g)
{
    const struct sc_asg_group_info *i = &g->info;
    json_t *o = json_object();
    json_t *a;
    int bad = !o;

    if (bad)
        return NULL;
    bad |= sc_save_str(o, "name", i->auto_scaling_group_name);
    bad |= sc_save_str(o, "arn", i->auto_scaling_group_arn);
    bad |= sc_save_str(o, "launch_configuration_name", i->launch_configuration_name);
    bad |= sc_save_str(o, "launch_template_id", i->launch_template_id);
    bad |= sc_save_str(o, "launch_template_name", i->launch_template_name);
    bad |= sc_save_str(o, "launch_template_version", i->launch_template_version);
    bad |= sc_save_bool(o, "mixed_instances_policy", i->mixed_instances_policy);
    if (i->mixed_instances_policy)
        bad |= sc_save_take(o, "mixed", mixed_save(&i->mixed));
    bad |= sc_save_str(o, "desired_capacity_type", i->desired_capacity_type);
    bad |= sc_save_str(o, "placement_group", i->placement_group);
    bad |= sc_save_str(o, "context", i->context);
    bad |= sc_save_str(o, "service_linked_role_arn", i->service_linked_role_arn);
    bad |= sc_save_int(o, "min_size", i->min_size);
    bad |= sc_save_int(o, "max_size", i->max_size);
    bad |= sc_save_int(o, "desired_capacity", i->desired_capacity);
    bad |= sc_save_int(o, "default_cooldown", i->default_cooldown);
    bad |= sc_save_bool(o, "has_default_instance_warmup", i->has_default_instance_warmup);
    bad |= sc_save_int(o, "default_instance_warmup", i->default_instance_warmup);
    bad |= sc_save_strv(o, "availability_zones", i->availability_zones, i->navailability_zones);
    bad |= sc_save_str(o, "vpc_zone_identifier", i->vpc_zone_identifier);
    bad |= sc_save_strv(o, "subnets", i->subnets, i->navailability_zones);
    bad |= sc_save_str(o, "health_check_type", i->health_check_type);
    bad |= sc_save_int(o, "health_check_grace_period", i->health_check_grace_period);
    bad |= sc_save_strv(o, "load_balancer_names", i->load_balancer_names, i->nload_balancer_names);
    if (i->ntarget_group_arns > 0)
        bad |= sc_save_strv(o, "target_group_arns", i->target_group_arns, i->ntarget_group_arns);
    bad |=
        sc_save_strv(o, "termination_policies", i->termination_policies, i->ntermination_policies);
    bad |= sc_save_take(o, "tags", tags_save(i->tags, i->ntags));
    bad |= sc_save_bool(o, "new_instances_protected_from_scale_in",
                        i->new_instances_protected_from_scale_in);
    bad |= sc_save_bool(o, "capacity_rebalance", i->capacity_rebalance);
    if (i->has_max_instance_lifetime)
        bad |= sc_save_int(o, "max_instance_lifetime", i->max_instance_lifetime);
    bad |= sc_save_int(o, "created_ms", i->created_ms);
    bad |= sc_save_int(o, "suspended", i->suspended);
    a = json_array();
    for (int k = 0; a && k < SC_ASG_PROC_COUNT; k++)
        bad |= json_array_append_new(a, json_integer(i->suspended_ms[k]));
    bad |= sc_save_take(o, "suspended_ms", a);
    bad |= sc_save_int(o, "metrics_enabled", i->metrics_enabled);
    bad |= sc_save_str(o, "status", i->status);
    bad |= sc_save_str(o, "pending_cause", g->pending_cause);
    bad |= sc_save_int(o, "cooldown_until_ms", g->cooldown_until_ms);
    bad |= sc_save_int(o, "cooldown_pending_s", g->cooldown_pending_s);
    bad |= sc_save_int(o, "next_launch_ms", g->next_launch_ms);
    bad |= sc_save_int(o, "next_metrics_ms", g->next_metrics_ms);
    bad |= sc_save_int(o, "elb_budget", g->elb_budget);
    a = json_array();
    for (int k = 0; a && k < ASG_TRACKED_ZONES; k++)
        bad |= json_array_append_new(a, json_integer(g->zone_fail_until[k]));
    bad |= sc_save_take(o, "zone_fail_until", a);
    bad |= sc_save_bool(o, "rebalancing", g->rebalancing);
    bad |= sc_save_bool(o, "deleting", g->deleting);
    a = json_array();
    for (int k = 0; a && k < g->ninst; k++)
        bad |= json_array_append_new(a, inst_save(&g->inst[k]));
    bad |= sc_save_take(o, "instances", a);
    a = json_array();
    for (int k = 0; a && k < g->nacts; k++)
        bad |= json_array_append_new(a, act_save(g->acts[k]));
    bad |= sc_save_take(o, "activities", a);
    a = json_array();
    for (int k = 0; a && k < g->npol; k++)
        bad |= json_array_append_new(a, policy_save(g->pol[k]));
    bad |= sc_save_take(o, "policies", a);
    bad |= sc_save_take(o, "lifecycle_hooks", asg_hooks_save(g));
    bad |= sc_save_take(o, "scheduled_actions", asg_scheds_save(g));
    bad |= sc_save_take(o, "instance_refreshes", asg_refreshes_save(g));
    if (g->warm) /* absent without a pool: files stay as they were */
        bad |= sc_save_take(o, "warm_pool", asg_warm_save(g));
    if (g->nnotify) /* absent without configurations, as the warm pool */
        bad |= sc_save_take(o, "notifications", asg_notify_save(g));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *sc_asg_save(const struct sc_asg *asg)
{
    json_t *o = json_object();
    json_t *a;
    int bad = !o;

    if (bad)
        return NULL;
    bad |= sc_save_int(o, "last_now_ms", asg->last_now_ms);
    bad |= sc_save_int(o, "next_sweep_ms", asg->next_sweep_ms);
    bad |= sc_save_int(o, "seq", (int64_t)asg->seq);
    a = json_array();
    for (int k = 0; a && k < asg->nlcs; k++)
        bad |= json_array_append_new(a, lc_save(&asg->lcs[k]->info));
    bad |= sc_save_take(o, "launch_configurations", a);
    a = json_array();
    for (int k = 0; a && k < asg->ngroups; k++)
        bad |= json_array_append_new(a, group_save(asg->groups[k]));
    bad |= sc_save_take(o, "groups", a);
    a = json_array();
    for (int k = 0; a && k < asg->ndel_acts; k++)
        bad |= json_array_append_new(a, act_save(asg->del_acts[k]));
    bad |= sc_save_take(o, "deleted_activities", a);
    bad |= sc_save_take(o, "launch_client_tokens", asg_tokens_save(asg));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* --- load ------------------------------------------------------------------------------- */

static struct sc_asg_tag *tags_load(struct sc_load *l, const json_t *o, const char *key, int *n)
{
    const json_t *a = sc_load_array(l, o, key);
    struct sc_asg_tag *t;
    size_t k;

    *n = 0;
    if (!a || json_array_size(a) == 0)
        return NULL;
    t = calloc(json_array_size(a), sizeof(*t));
    if (!t) {
        sc_load_fail(l, "%s: out of memory", key);
        return NULL;
    }
    for (k = 0; k < json_array_size(a); k++) {
        const json_t *x = json_array_get(a, k);

        t[k].key = sc_load_str(l, x, "key");
        t[k].value = sc_load_str(l, x, "value");
        t[k].propagate_at_launch = sc_load_bool(l, x, "propagate_at_launch");
        if (!l->failed && (!t[k].key || !t[k].value))
            sc_load_fail(l, "%s: a tag's key and value must be strings", key);
    }
    *n = (int)k;
    return t;
}

static struct asg_lc *lc_load(struct sc_load *l, const json_t *o)
{
    struct asg_lc *lc = calloc(1, sizeof(*lc));
    struct sc_asg_lc_info *i;

    if (!lc) {
        sc_load_fail(l, "out of memory");
        return NULL;
    }
    i = &lc->info;
    i->launch_configuration_name = sc_load_str(l, o, "name");
    i->launch_configuration_arn = sc_load_str(l, o, "arn");
    i->image_id = sc_load_str(l, o, "image_id");
    i->instance_type = sc_load_str(l, o, "instance_type");
    i->key_name = sc_load_str(l, o, "key_name");
    i->user_data = sc_load_str(l, o, "user_data");
    i->iam_instance_profile = sc_load_str(l, o, "iam_instance_profile");
    i->security_groups = sc_load_strv(l, o, "security_groups", &i->nsecurity_groups);
    i->instance_monitoring = sc_load_bool(l, o, "instance_monitoring");
    i->has_associate_public_ip_address = sc_load_bool(l, o, "has_associate_public_ip_address");
    i->associate_public_ip_address = sc_load_bool(l, o, "associate_public_ip_address");
    if (json_object_get(o, "other")) { /* absent: none, or written before it was kept */
        const json_t *other = sc_load_object(l, o, "other");

        i->other = other ? json_deep_copy(other) : NULL;
    }
    i->created_ms = sc_load_int(l, o, "created_ms");
    if (!l->failed && (!i->launch_configuration_name || !i->launch_configuration_arn))
        sc_load_fail(l, "a launch configuration needs a name and an ARN");
    return lc;
}

static int lifecycle_parse(const char *s)
{
    for (int k = SC_ASG_PENDING; s && k <= SC_ASG_WARMED_HIBERNATED; k++) {
        if (strcmp(sc_asg_lifecycle_str((enum sc_asg_lifecycle)k), s) == 0)
            return k;
    }
    return -1;
}

static void inst_load(struct sc_load *l, const json_t *o, struct asg_inst *in)
{
    struct sc_asg_instance_info *i = &in->info;
    int lc;

    memset(in, 0, sizeof(*in));
    sc_load_buf(l, o, "instance_id", i->instance_id, sizeof(i->instance_id));
    sc_load_buf(l, o, "availability_zone", i->availability_zone, sizeof(i->availability_zone));
    sc_load_buf(l, o, "subnet_id", i->subnet_id, sizeof(i->subnet_id));
    lc = lifecycle_parse(sc_load_cstr(l, o, "lifecycle_state"));
    if (!l->failed && lc < 0)
        sc_load_fail(l, "lifecycle_state: unknown state");
    i->lifecycle_state = lc < 0 ? SC_ASG_PENDING : (enum sc_asg_lifecycle)lc;
    i->healthy = sc_load_bool(l, o, "healthy");
    i->launch_configuration_name = sc_load_str(l, o, "launch_configuration_name");
    i->launch_template_id = sc_load_str(l, o, "launch_template_id");
    i->launch_template_name = sc_load_str(l, o, "launch_template_name");
    i->launch_template_version = sc_load_str(l, o, "launch_template_version");
    i->instance_type = sc_load_str(l, o, "instance_type");
    i->protected_from_scale_in = sc_load_bool(l, o, "protected_from_scale_in");
    i->launch_ms = sc_load_int(l, o, "launch_ms");
    /* absent in files written before weights: 1 */
    i->weight = json_object_get(o, "weight") ? sc_load_int_range(l, o, "weight", 1, 999) : 1;
    in->unhealthy =
        (enum asg_unhealthy)sc_load_int_range(l, o, "unhealthy", ASG_HEALTHY, ASG_UNHEALTHY_USER);
    in->inservice_ms = sc_load_int(l, o, "inservice_ms");
    in->warm_until_ms = sc_load_int(l, o, "warm_until_ms");
    in->impaired_since_ms = sc_load_int(l, o, "impaired_since_ms");
    sc_load_buf(l, o, "activity_id", in->activity_id, sizeof(in->activity_id));
    in->terminate_sent = sc_load_bool(l, o, "terminate_sent");
    in->from_standby = sc_load_bool(l, o, "from_standby");
    /* absent in files written before lifecycle hooks: none */
    if (json_object_get(o, "lifecycle_actions")) {
        asg_actions_load(l, sc_load_array(l, o, "lifecycle_actions"), in);
        in->skip_launch_hooks = sc_load_bool(l, o, "skip_launch_hooks");
        in->skip_terminate_hooks = sc_load_bool(l, o, "skip_terminate_hooks");
    }
    if (json_object_get(o, "warm_stop_sent")) { /* warm pools: absent unless set */
        in->warm_stop_sent = sc_load_bool(l, o, "warm_stop_sent");
        in->warm_returning = sc_load_bool(l, o, "warm_returning");
    }
}

static struct asg_activity *act_load(struct sc_load *l, const json_t *o)
{
    struct asg_activity *a = calloc(1, sizeof(*a));
    struct sc_asg_activity_info *i;
    const char *code;

    if (!a) {
        sc_load_fail(l, "out of memory");
        return NULL;
    }
    i = &a->info;
    sc_load_buf(l, o, "activity_id", i->activity_id, sizeof(i->activity_id));
    i->auto_scaling_group_name = sc_load_str(l, o, "group_name");
    i->auto_scaling_group_arn = sc_load_str(l, o, "group_arn");
    i->description = sc_load_str(l, o, "description");
    i->cause = sc_load_str(l, o, "cause");
    i->start_ms = sc_load_int(l, o, "start_ms");
    i->end_ms = sc_load_int(l, o, "end_ms");
    code = sc_load_cstr(l, o, "status_code");
    i->status_code = status_code_intern(code);
    if (!l->failed && !i->status_code)
        sc_load_fail(l, "status_code: unknown activity status %s", code);
    i->status_message = sc_load_str(l, o, "status_message");
    i->progress = sc_load_int_range(l, o, "progress", 0, 100);
    i->details = sc_load_str(l, o, "details");
    i->group_deleted = sc_load_bool(l, o, "group_deleted");
    a->seq = (uint64_t)sc_load_int(l, o, "seq");
    if (!l->failed && (!i->auto_scaling_group_name || !i->auto_scaling_group_arn ||
                       !i->description || !i->cause || !i->details))
        sc_load_fail(l, "activity %s: a required string is null", i->activity_id);
    return a;
}

static int policy_type_parse(const char *s)
{
    for (int k = SC_ASG_SIMPLE_SCALING; s && k <= SC_ASG_PREDICTIVE_SCALING; k++) {
        if (strcmp(sc_asg_policy_type_str((enum sc_asg_policy_type)k), s) == 0)
            return k;
    }
    return -1;
}

/* Two strings or nulls (target tracking's High and Low alarms). */
static void pair_load(struct sc_load *l, const json_t *o, const char *key, char *out[2])
{
    const json_t *a = sc_load_array(l, o, key);

    if (a && json_array_size(a) != 2) {
        sc_load_fail(l, "%s: expected 2 entries", key);
        return;
    }
    for (size_t k = 0; a && !l->failed && k < 2; k++) {
        const json_t *x = json_array_get(a, k);

        if (json_is_null(x))
            continue;
        if (!json_is_string(x)) {
            sc_load_fail(l, "%s: expected strings or nulls", key);
            return;
        }
        out[k] = sc_strdup(json_string_value(x));
        if (!out[k])
            sc_load_fail(l, "%s: out of memory", key);
    }
}

static struct asg_policy *policy_load(struct sc_load *l, const json_t *o, struct asg_group *g)
{
    struct asg_policy *p = calloc(1, sizeof(*p));
    struct sc_asg_policy_info *i;
    const json_t *steps;
    int t;

    if (!p) {
        sc_load_fail(l, "out of memory");
        return NULL;
    }
    p->group = g;
    i = &p->info;
    i->auto_scaling_group_name = sc_load_str(l, o, "group_name");
    i->policy_name = sc_load_str(l, o, "policy_name");
    i->policy_arn = sc_load_str(l, o, "policy_arn");
    t = policy_type_parse(sc_load_cstr(l, o, "policy_type"));
    if (!l->failed && t < 0)
        sc_load_fail(l, "policy_type: unknown");
    i->policy_type = t < 0 ? SC_ASG_SIMPLE_SCALING : (enum sc_asg_policy_type)t;
    i->has_adjustment_type = sc_load_bool(l, o, "has_adjustment_type");
    i->adjustment_type = (enum sc_adjustment_type)sc_load_int_range(l, o, "adjustment_type", 0, 2);
    i->has_scaling_adjustment = sc_load_bool(l, o, "has_scaling_adjustment");
    i->scaling_adjustment = sc_load_int(l, o, "scaling_adjustment");
    i->has_min_adjustment_magnitude = sc_load_bool(l, o, "has_min_adjustment_magnitude");
    i->min_adjustment_magnitude = sc_load_int(l, o, "min_adjustment_magnitude");
    i->min_adjustment_step =
        json_object_get(o, "min_adjustment_step") ? sc_load_bool(l, o, "min_adjustment_step") : 0;
    i->has_cooldown = sc_load_bool(l, o, "has_cooldown");
    i->cooldown = (int)sc_load_int(l, o, "cooldown");
    i->metric_aggregation_type = sc_load_str(l, o, "metric_aggregation_type");
    i->has_estimated_instance_warmup = sc_load_bool(l, o, "has_estimated_instance_warmup");
    i->estimated_instance_warmup = (int)sc_load_int(l, o, "estimated_instance_warmup");
    i->predefined_metric_type = sc_load_str(l, o, "predefined_metric_type");
    i->resource_label = sc_load_str(l, o, "resource_label");
    i->metric_name = sc_load_str(l, o, "metric_name");
    i->namespace_ = sc_load_str(l, o, "namespace");
    i->dimensions = tags_load(l, o, "dimensions", &i->ndimensions);
    i->statistic = sc_load_str(l, o, "statistic");
    i->unit = sc_load_str(l, o, "unit");
    if (json_object_get(o, "metrics")) {
        char msg[160];

        if (sc_alarm_queries_load(json_object_get(o, "metrics"), &i->metrics, &i->nmetrics, msg,
                                  sizeof(msg)) < 0)
            sc_load_fail(l, "metrics: %s", msg);
    }
    i->target_value = sc_load_real(l, o, "target_value");
    i->disable_scale_in = sc_load_bool(l, o, "disable_scale_in");
    i->enabled = sc_load_bool(l, o, "enabled");
    pair_load(l, o, "alarm_names", i->alarm_names);
    pair_load(l, o, "alarm_arns", i->alarm_arns);
    steps = sc_load_array(l, o, "step_adjustments");
    if (steps && json_array_size(steps) > 0) {
        size_t ns = json_array_size(steps);

        i->step_adjustments = calloc(ns, sizeof(*i->step_adjustments));
        if (!i->step_adjustments)
            sc_load_fail(l, "out of memory");
        for (size_t k = 0; i->step_adjustments && k < ns; k++) {
            const json_t *s = json_array_get(steps, k);
            struct sc_step_adjustment *sa = &i->step_adjustments[k];

            sa->has_lower = sc_load_bool(l, s, "has_lower");
            sa->lower = sc_load_real(l, s, "lower");
            sa->has_upper = sc_load_bool(l, s, "has_upper");
            sa->upper = sc_load_real(l, s, "upper");
            sa->scaling_adjustment = sc_load_int(l, s, "scaling_adjustment");
        }
        if (i->step_adjustments)
            i->nstep_adjustments = (int)ns;
    }
    if (json_object_get(o, "predictive"))
        i->predictive = asg_predictive_load(l, sc_load_object(l, o, "predictive"));
    if (!l->failed && i->policy_type == SC_ASG_PREDICTIVE_SCALING && !i->predictive)
        sc_load_fail(l, "a PredictiveScaling policy needs its predictive configuration");
    if (!l->failed && (!i->auto_scaling_group_name || !i->policy_name || !i->policy_arn))
        sc_load_fail(l, "a policy needs its group, name and ARN");
    return p;
}

/* What mixed_save wrote; absent (a file written before the policy's details were kept):
 * AWS's defaults and no overrides. */
static void mixed_load(struct sc_load *l, const json_t *o, struct sc_asg_mixed_info *m)
{
    const json_t *ov;

    memset(m, 0, sizeof(*m));
    m->on_demand_percentage_above_base_capacity = 100;
    m->spot_instance_pools = 2;
    if (!o) {
        m->on_demand_allocation_strategy = sc_strdup("prioritized");
        m->spot_allocation_strategy = sc_strdup("lowest-price");
        m->has_spot_instance_pools = 1;
        if (!m->on_demand_allocation_strategy || !m->spot_allocation_strategy)
            sc_load_fail(l, "out of memory");
        return;
    }
    ov = sc_load_array(l, o, "overrides");
    if (ov && !l->failed && json_array_size(ov) > SC_ASG_MAX_OVERRIDES)
        sc_load_fail(l, "mixed.overrides: more than %d", SC_ASG_MAX_OVERRIDES);
    if (ov && !l->failed && json_array_size(ov) > 0) {
        m->overrides = calloc(json_array_size(ov), sizeof(*m->overrides));
        if (!m->overrides)
            sc_load_fail(l, "out of memory");
        for (size_t k = 0; m->overrides && k < json_array_size(ov) && !l->failed; k++) {
            const json_t *e = json_array_get(ov, k);
            struct sc_asg_override_info *x = &m->overrides[k];

            m->noverrides++;
            x->instance_type = sc_load_str(l, e, "instance_type");
            x->weighted_capacity = sc_load_str(l, e, "weighted_capacity");
            x->weight = sc_load_int_range(l, e, "weight", 1, 999);
            x->launch_template_id = sc_load_str(l, e, "launch_template_id");
            x->launch_template_name = sc_load_str(l, e, "launch_template_name");
            x->launch_template_version = sc_load_str(l, e, "launch_template_version");
            m->weighted |= x->weighted_capacity != NULL;
            if (!l->failed && !x->instance_type)
                sc_load_fail(l, "mixed.overrides: an override needs its instance type");
        }
    }
    m->on_demand_allocation_strategy = sc_load_str(l, o, "on_demand_allocation_strategy");
    m->on_demand_base_capacity = (int)sc_load_int(l, o, "on_demand_base_capacity");
    m->on_demand_percentage_above_base_capacity =
        sc_load_int_range(l, o, "on_demand_percentage_above_base_capacity", 0, 100);
    m->spot_allocation_strategy = sc_load_str(l, o, "spot_allocation_strategy");
    m->spot_instance_pools = (int)sc_load_int(l, o, "spot_instance_pools");
    m->spot_instance_pools_sent = sc_load_bool(l, o, "spot_instance_pools_sent");
    m->spot_max_price = sc_load_str(l, o, "spot_max_price");
    if (!l->failed && (!m->on_demand_allocation_strategy || !m->spot_allocation_strategy))
        sc_load_fail(l, "mixed: the allocation strategies are required");
    m->has_spot_instance_pools =
        m->spot_instance_pools_sent ||
        (m->spot_allocation_strategy && strcmp(m->spot_allocation_strategy, "lowest-price") == 0);
}

static struct asg_group *group_load(struct sc_load *l, const json_t *o)
{
    struct asg_group *g = calloc(1, sizeof(*g));
    struct sc_asg_group_info *i;
    const json_t *a;
    int nsub = 0;

    if (!g) {
        sc_load_fail(l, "out of memory");
        return NULL;
    }
    i = &g->info;
    i->auto_scaling_group_name = sc_load_str(l, o, "name");
    i->auto_scaling_group_arn = sc_load_str(l, o, "arn");
    i->launch_configuration_name = sc_load_str(l, o, "launch_configuration_name");
    i->launch_template_id = sc_load_str(l, o, "launch_template_id");
    i->launch_template_name = sc_load_str(l, o, "launch_template_name");
    i->launch_template_version = sc_load_str(l, o, "launch_template_version");
    i->mixed_instances_policy = sc_load_bool(l, o, "mixed_instances_policy");
    if (i->mixed_instances_policy && !l->failed)
        mixed_load(l, json_object_get(o, "mixed") ? sc_load_object(l, o, "mixed") : NULL,
                   &i->mixed);
    i->desired_capacity_type = json_object_get(o, "desired_capacity_type")
                                   ? sc_load_str(l, o, "desired_capacity_type")
                                   : NULL;
    /* absent in files written before they were kept */
    i->placement_group =
        json_object_get(o, "placement_group") ? sc_load_str(l, o, "placement_group") : NULL;
    i->context = json_object_get(o, "context") ? sc_load_str(l, o, "context") : NULL;
    i->service_linked_role_arn = json_object_get(o, "service_linked_role_arn")
                                     ? sc_load_str(l, o, "service_linked_role_arn")
                                     : NULL;
    i->min_size = (int)sc_load_int(l, o, "min_size");
    i->max_size = (int)sc_load_int(l, o, "max_size");
    i->desired_capacity = (int)sc_load_int(l, o, "desired_capacity");
    i->default_cooldown = (int)sc_load_int(l, o, "default_cooldown");
    i->has_default_instance_warmup = sc_load_bool(l, o, "has_default_instance_warmup");
    i->default_instance_warmup = (int)sc_load_int(l, o, "default_instance_warmup");
    i->availability_zones = sc_load_strv(l, o, "availability_zones", &i->navailability_zones);
    i->vpc_zone_identifier = sc_load_str(l, o, "vpc_zone_identifier");
    i->subnets = sc_load_strv(l, o, "subnets", &nsub);
    if (!l->failed && i->subnets && nsub != i->navailability_zones)
        sc_load_fail(l, "subnets: not parallel to availability_zones");
    i->health_check_type = sc_load_str(l, o, "health_check_type");
    i->health_check_grace_period = (int)sc_load_int(l, o, "health_check_grace_period");
    i->load_balancer_names = sc_load_strv(l, o, "load_balancer_names", &i->nload_balancer_names);
    /* absent in documents written before target groups were served */
    if (json_object_get(o, "target_group_arns"))
        i->target_group_arns = sc_load_strv(l, o, "target_group_arns", &i->ntarget_group_arns);
    i->termination_policies = sc_load_strv(l, o, "termination_policies", &i->ntermination_policies);
    i->tags = tags_load(l, o, "tags", &i->ntags);
    i->new_instances_protected_from_scale_in =
        sc_load_bool(l, o, "new_instances_protected_from_scale_in");
    /* absent in files written before it was kept */
    i->capacity_rebalance =
        json_object_get(o, "capacity_rebalance") ? sc_load_bool(l, o, "capacity_rebalance") : 0;
    /* absent when never set */
    if (json_object_get(o, "max_instance_lifetime")) {
        i->has_max_instance_lifetime = 1;
        i->max_instance_lifetime = (int)sc_load_int(l, o, "max_instance_lifetime");
    }
    i->created_ms = sc_load_int(l, o, "created_ms");
    i->suspended = (unsigned)sc_load_int(l, o, "suspended");
    a = sc_load_array(l, o, "suspended_ms");
    if (a && json_array_size(a) != SC_ASG_PROC_COUNT)
        sc_load_fail(l, "suspended_ms: expected %d entries", SC_ASG_PROC_COUNT);
    for (int k = 0; a && !l->failed && k < SC_ASG_PROC_COUNT; k++) {
        const json_t *x = json_array_get(a, (size_t)k);

        if (!json_is_integer(x))
            sc_load_fail(l, "suspended_ms: expected integers");
        i->suspended_ms[k] = json_integer_value(x);
    }
    i->metrics_enabled = (unsigned)sc_load_int(l, o, "metrics_enabled");
    {
        const json_t *st = json_object_get(o, "status");

        if (json_is_string(st) && strcmp(json_string_value(st), "Delete in progress") == 0)
            i->status = "Delete in progress";
        else if (!json_is_null(st) && !l->failed)
            sc_load_fail(l, "status: expected null or \"Delete in progress\"");
    }
    sc_load_buf(l, o, "pending_cause", g->pending_cause, sizeof(g->pending_cause));
    g->cooldown_until_ms = sc_load_int(l, o, "cooldown_until_ms");
    g->cooldown_pending_s = (int)sc_load_int(l, o, "cooldown_pending_s");
    g->next_launch_ms = sc_load_int(l, o, "next_launch_ms");
    g->next_metrics_ms = sc_load_int(l, o, "next_metrics_ms");
    g->elb_budget = (int)sc_load_int(l, o, "elb_budget");
    a = sc_load_array(l, o, "zone_fail_until");
    if (a && json_array_size(a) != ASG_TRACKED_ZONES)
        sc_load_fail(l, "zone_fail_until: expected %d entries", ASG_TRACKED_ZONES);
    for (int k = 0; a && !l->failed && k < ASG_TRACKED_ZONES; k++) {
        const json_t *x = json_array_get(a, (size_t)k);

        if (!json_is_integer(x))
            sc_load_fail(l, "zone_fail_until: expected integers");
        g->zone_fail_until[k] = json_integer_value(x);
    }
    g->rebalancing = sc_load_bool(l, o, "rebalancing");
    g->deleting = sc_load_bool(l, o, "deleting");
    if (!l->failed && (!i->auto_scaling_group_name || !i->auto_scaling_group_arn ||
                       !i->vpc_zone_identifier || !i->health_check_type))
        sc_load_fail(l, "a group needs a name, ARN, vpc_zone_identifier and health check type");

    a = sc_load_array(l, o, "instances");
    if (a && !l->failed && json_array_size(a) > 0) {
        size_t n = json_array_size(a);

        g->inst = calloc(n, sizeof(*g->inst));
        g->scratch = calloc(n, sizeof(*g->scratch));
        g->scratch_key = calloc(n, sizeof(*g->scratch_key));
        if (!g->inst || !g->scratch || !g->scratch_key) {
            sc_load_fail(l, "out of memory");
        } else {
            g->cap_inst = (int)n;
            for (size_t k = 0; k < n && !l->failed; k++) {
                inst_load(l, json_array_get(a, k), &g->inst[k]);
                if (g->inst[k].warm_until_ms > g->warm_max_ms)
                    g->warm_max_ms = g->inst[k].warm_until_ms;
                g->ninst++;
            }
        }
    }
    asg_census_rebuild(g); /* the census is not saved: it follows from the instances */
    a = sc_load_array(l, o, "activities");
    if (a && !l->failed && json_array_size(a) > 0) {
        size_t n = json_array_size(a);

        g->acts = calloc(n, sizeof(*g->acts));
        if (!g->acts)
            sc_load_fail(l, "out of memory");
        for (size_t k = 0; g->acts && k < n && !l->failed; k++) {
            g->acts[k] = act_load(l, json_array_get(a, k));
            if (g->acts[k])
                g->nacts++;
        }
    }
    a = sc_load_array(l, o, "policies");
    if (a && !l->failed && json_array_size(a) > 0) {
        size_t n = json_array_size(a);

        g->pol = calloc(n, sizeof(*g->pol));
        if (!g->pol)
            sc_load_fail(l, "out of memory");
        for (size_t k = 0; g->pol && k < n && !l->failed; k++) {
            g->pol[k] = policy_load(l, json_array_get(a, k), g);
            if (g->pol[k])
                g->npol++;
        }
    }
    /* absent in files written before lifecycle hooks: none */
    if (json_object_get(o, "lifecycle_hooks") && !l->failed)
        asg_hooks_load(l, sc_load_array(l, o, "lifecycle_hooks"), g);
    if (json_object_get(o, "scheduled_actions") && !l->failed)
        asg_scheds_load(l, sc_load_array(l, o, "scheduled_actions"), g);
    if (json_object_get(o, "instance_refreshes") && !l->failed)
        asg_refreshes_load(l, sc_load_array(l, o, "instance_refreshes"), g);
    if (json_object_get(o, "warm_pool") && !l->failed)
        asg_warm_load(l, json_object_get(o, "warm_pool"), g);
    if (json_object_get(o, "notifications") && !l->failed)
        asg_notify_load(l, sc_load_array(l, o, "notifications"), g);
    /* what ended before the save was notified then */
    asg_notify_mark_all(g);
    return g;
}

enum sc_status sc_asg_load(struct sc_asg *asg, const json_t *obj, struct sc_error *err)
{
    struct sc_load l;
    const json_t *a;
    struct asg_lc **lcs = NULL;
    struct asg_group **groups = NULL;
    struct asg_activity **dels = NULL;
    int nlcs = 0, ngroups = 0, ndels = 0;
    int64_t last_now = 0, next_sweep = 0;
    uint64_t seq = 0;

    sc_load_init(&l, "asg", err);
    if (asg->ngroups || asg->nlcs || asg->ndel_acts || asg->ntokens)
        return sc_fail(err, SC_ERR_VALIDATION, "state: asg: load into a non-empty asg");
    if (!json_is_object(obj))
        return sc_fail(err, SC_ERR_VALIDATION, "state: asg: expected an object");
    last_now = sc_load_int(&l, obj, "last_now_ms");
    next_sweep = sc_load_int(&l, obj, "next_sweep_ms");
    seq = (uint64_t)sc_load_int(&l, obj, "seq");
    a = sc_load_array(&l, obj, "launch_configurations");
    if (a && json_array_size(a) > SC_ASG_MAX_LAUNCH_CONFIGURATIONS)
        sc_load_fail(&l, "launch_configurations: more than %d", SC_ASG_MAX_LAUNCH_CONFIGURATIONS);
    if (a && !l.failed && json_array_size(a) > 0) {
        lcs = calloc(json_array_size(a), sizeof(*lcs));
        if (!lcs)
            sc_load_fail(&l, "out of memory");
        for (size_t k = 0; lcs && k < json_array_size(a) && !l.failed; k++) {
            lcs[k] = lc_load(&l, json_array_get(a, k));
            if (lcs[k])
                nlcs++;
            if (!l.failed && k > 0 &&
                strcmp(lcs[k - 1]->info.launch_configuration_name,
                       lcs[k]->info.launch_configuration_name) >= 0)
                sc_load_fail(&l, "launch_configurations: not in name order");
        }
    }
    a = sc_load_array(&l, obj, "groups");
    if (a && json_array_size(a) > SC_ASG_MAX_GROUPS)
        sc_load_fail(&l, "groups: more than %d", SC_ASG_MAX_GROUPS);
    if (a && !l.failed && json_array_size(a) > 0) {
        groups = calloc(json_array_size(a), sizeof(*groups));
        if (!groups)
            sc_load_fail(&l, "out of memory");
        for (size_t k = 0; groups && k < json_array_size(a) && !l.failed; k++) {
            groups[k] = group_load(&l, json_array_get(a, k));
            if (groups[k])
                ngroups++;
            if (!l.failed && k > 0 &&
                strcmp(groups[k - 1]->info.auto_scaling_group_name,
                       groups[k]->info.auto_scaling_group_name) >= 0)
                sc_load_fail(&l, "groups: not in name order");
        }
    }
    /* optional: a file written before deleted groups' activities were kept has none */
    a = json_object_get(obj, "deleted_activities") ? sc_load_array(&l, obj, "deleted_activities")
                                                   : NULL;
    if (a && json_array_size(a) > SC_ASG_MAX_DELETED_ACTIVITIES)
        sc_load_fail(&l, "deleted_activities: more than %d", SC_ASG_MAX_DELETED_ACTIVITIES);
    if (a && !l.failed && json_array_size(a) > 0) {
        dels = calloc(json_array_size(a), sizeof(*dels));
        if (!dels)
            sc_load_fail(&l, "out of memory");
        for (size_t k = 0; dels && k < json_array_size(a) && !l.failed; k++) {
            dels[k] = act_load(&l, json_array_get(a, k));
            if (dels[k])
                ndels++;
            if (!l.failed && !dels[k]->info.group_deleted)
                sc_load_fail(&l, "deleted_activities: activity %s is not marked deleted",
                             dels[k]->info.activity_id);
        }
    }
    /* optional too: a file written before LaunchInstances was served has none */
    if (!l.failed)
        asg_tokens_load(&l, obj, asg);
    if (l.failed)
        goto fail;
    /* commit: nothing can fail below except the instance index (OOM), undone whole */
    asg->lcs = lcs;
    asg->nlcs = asg->lcs_cap = nlcs;
    asg->groups = groups;
    asg->ngroups = asg->groups_cap = ngroups;
    asg->del_acts = dels;
    asg->ndel_acts = ndels;
    asg_deleted_acts_sort(asg);
    for (int k = 0; k < ngroups; k++) {
        struct asg_group *g = groups[k];

        for (int j = 0; j < g->ninst; j++) {
            if (asg_inst_find(asg, g->inst[j].info.instance_id, NULL)) {
                sc_load_fail(&l, "instance %s is in two groups", g->inst[j].info.instance_id);
                goto undo;
            }
            if (asg_idx_put(asg, g->inst[j].info.instance_id, g, j) != 0) {
                sc_load_fail(&l, "out of memory");
                goto undo;
            }
        }
    }
    asg->last_now_ms = last_now;
    asg->next_sweep_ms = next_sweep;
    asg->seq = seq;
    asg_inputs_changed(asg); /* every group and instance is new */
    return SC_OK;

undo:
    asg->lcs = NULL;
    asg->nlcs = asg->lcs_cap = 0;
    asg->groups = NULL;
    asg->ngroups = asg->groups_cap = 0;
    asg->del_acts = NULL;
    asg->ndel_acts = 0;
    free(asg->idx);
    asg->idx = NULL;
    asg->idx_cap = 0;
    asg->idx_fill = 0;
fail:
    asg_tokens_free(asg);
    for (int k = 0; k < nlcs; k++)
        asg_lc_free(lcs[k]);
    free(lcs);
    for (int k = 0; k < ngroups; k++)
        asg_group_free(groups[k]);
    free(groups);
    for (int k = 0; k < ndels; k++)
        asg_activity_free(dels[k]);
    free(dels);
    return err ? err->status : SC_ERR_VALIDATION;
}
