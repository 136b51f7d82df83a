/* scaler/asg_policy.c: scaling policies, ExecutePolicy and alarm actions (spec 4). */
#include "scaler/asg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/alarm.h"
#include "scaler/asg_internal.h"
#include "scaler/asg_predict.h"
#include "scaler/elbv2.h"

#define NOT_OVERRIDE                                                                               \
    "Auto Scaling Policy not executed because its effect does not override in-progress scaling actions"

static const char *const policy_type_names[] = {
    [SC_ASG_SIMPLE_SCALING] = "SimpleScaling",
    [SC_ASG_STEP_SCALING] = "StepScaling",
    [SC_ASG_TARGET_TRACKING_SCALING] = "TargetTrackingScaling",
    [SC_ASG_PREDICTIVE_SCALING] = "PredictiveScaling",
};

const char *sc_asg_policy_type_str(enum sc_asg_policy_type t)
{
    if ((unsigned)t > SC_ASG_PREDICTIVE_SCALING)
        return "";
    return policy_type_names[t];
}

void asg_policy_free(struct asg_policy *p)
{
    struct sc_asg_policy_info *i;

    if (!p)
        return;
    i = &p->info;
    free(i->auto_scaling_group_name);
    free(i->policy_name);
    free(i->policy_arn);
    free(i->metric_aggregation_type);
    free(i->step_adjustments);
    free(i->predefined_metric_type);
    free(i->resource_label);
    free(i->metric_name);
    free(i->namespace_);
    for (int k = 0; k < i->ndimensions; k++) {
        free(i->dimensions[k].key);
        free(i->dimensions[k].value);
    }
    free(i->dimensions);
    free(i->statistic);
    free(i->unit);
    sc_alarm_queries_free(i->metrics, i->nmetrics);
    for (int k = 0; k < 2; k++) {
        free(i->alarm_names[k]);
        free(i->alarm_arns[k]);
    }
    asg_predictive_free(i->predictive);
    free(p);
}

static void drop_alarms(struct sc_asg *asg, struct asg_policy *p, int64_t now_ms)
{
    for (int k = 0; k < 2; k++) {
        if (p->info.alarm_names[k] && asg->env.delete_alarm)
            asg->env.delete_alarm(asg->env.ud, p->info.alarm_names[k], now_ms);
        free(p->info.alarm_names[k]);
        free(p->info.alarm_arns[k]);
        p->info.alarm_names[k] = NULL;
        p->info.alarm_arns[k] = NULL;
    }
}

void asg_group_drop_policies(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    for (int k = 0; k < g->npol; k++) {
        drop_alarms(asg, g->pol[k], now_ms);
        asg_policy_free(g->pol[k]);
    }
    free(g->pol);
    g->pol = NULL;
    g->npol = 0;
}

int asg_group_warmup_s(const struct asg_group *g)
{
    int best = -1;

    for (int k = 0; k < g->npol; k++) {
        const struct sc_asg_policy_info *p = &g->pol[k]->info;

        if (p->policy_type != SC_ASG_SIMPLE_SCALING && p->has_estimated_instance_warmup &&
            p->estimated_instance_warmup > best)
            best = p->estimated_instance_warmup;
    }
    if (best >= 0)
        return best;
    if (g->info.has_default_instance_warmup)
        return g->info.default_instance_warmup;
    return g->info.default_cooldown;
}

/* --- lookup ------------------------------------------------------------------------------------
 */

static struct asg_policy *policy_find(const struct sc_asg *asg, const char *group,
                                      const char *name_or_arn)
{
    if (!name_or_arn)
        return NULL;
    if (strncmp(name_or_arn, "arn:", 4) == 0) {
        for (int gi = 0; gi < asg->ngroups; gi++) {
            struct asg_group *g = asg->groups[gi];

            for (int k = 0; k < g->npol; k++)
                if (strcmp(g->pol[k]->info.policy_arn, name_or_arn) == 0)
                    return g->pol[k];
        }
        return NULL;
    }
    {
        struct asg_group *g = asg_group_find(asg, group);

        if (!g)
            return NULL;
        for (int k = 0; k < g->npol; k++)
            if (strcmp(g->pol[k]->info.policy_name, name_or_arn) == 0)
                return g->pol[k];
    }
    return NULL;
}

int sc_asg_policy_count(const struct sc_asg *asg)
{
    int n = 0;

    for (int gi = 0; gi < asg->ngroups; gi++)
        n += asg->groups[gi]->npol;
    return n;
}

const struct sc_asg_policy_info *sc_asg_policy_at(const struct sc_asg *asg, int i)
{
    for (int gi = 0; gi < asg->ngroups && i >= 0; gi++) {
        struct asg_group *g = asg->groups[gi];

        if (i < g->npol)
            return &g->pol[i]->info;
        i -= g->npol;
    }
    return NULL;
}

const struct sc_asg_policy_info *sc_asg_policy_find(const struct sc_asg *asg, const char *group,
                                                    const char *policy_name_or_arn)
{
    struct asg_policy *p = policy_find(asg, group, policy_name_or_arn);

    return p ? &p->info : NULL;
}

/* --- PutScalingPolicy ------------------------------------------------------------------------- */

static enum sc_status parse_type(const char *s, enum sc_asg_policy_type *t, struct sc_error *err)
{
    if (!s || strcmp(s, "SimpleScaling") == 0) {
        *t = SC_ASG_SIMPLE_SCALING;
        return SC_OK;
    }
    if (strcmp(s, "StepScaling") == 0) {
        *t = SC_ASG_STEP_SCALING;
        return SC_OK;
    }
    if (strcmp(s, "TargetTrackingScaling") == 0) {
        *t = SC_ASG_TARGET_TRACKING_SCALING;
        return SC_OK;
    }
    if (strcmp(s, "PredictiveScaling") == 0) {
        *t = SC_ASG_PREDICTIVE_SCALING;
        return SC_OK;
    }
    return sc_fail(
        err, SC_ERR_VALIDATION,
        "1 validation error detected: Value '%s' at 'policyType' failed to satisfy constraint: Member must satisfy enum value set: [SimpleScaling, StepScaling, TargetTrackingScaling, PredictiveScaling]",
        s);
}

static enum sc_status validate(const struct sc_asg_policy_req *r, enum sc_asg_policy_type t,
                               enum sc_adjustment_type *adj, struct sc_error *err)
{
    enum sc_status st;

    if (!r->policy_name || !r->policy_name[0] || strlen(r->policy_name) > 255)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value at 'policyName' failed to satisfy constraint: Member must have length between 1 and 255");
    if (t == SC_ASG_PREDICTIVE_SCALING) {
        if (!r->predictive)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "PredictiveScalingConfiguration is required for policy type PredictiveScaling.");
        if (r->adjustment_type || r->has_scaling_adjustment || r->nstep_adjustments > 0 ||
            r->has_min_adjustment_magnitude || r->has_cooldown || r->metric_aggregation_type ||
            r->has_estimated_instance_warmup || r->has_target_tracking)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "AdjustmentType, ScalingAdjustment, StepAdjustments, MinAdjustmentMagnitude, Cooldown, MetricAggregationType, EstimatedInstanceWarmup and TargetTrackingConfiguration are not supported for policy type PredictiveScaling.");
        return sc_asg_predictive_validate(r->predictive, err);
    }
    if (r->predictive)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "PredictiveScalingConfiguration is only supported for policy type PredictiveScaling.");
    if (t == SC_ASG_TARGET_TRACKING_SCALING) {
        const struct sc_asg_tt_req *tt = &r->target_tracking;

        if (!r->has_target_tracking)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "TargetTrackingConfiguration is required for policy type TargetTrackingScaling.");
        if (r->adjustment_type || r->has_scaling_adjustment || r->nstep_adjustments > 0 ||
            r->has_min_adjustment_magnitude || r->has_cooldown || r->metric_aggregation_type)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "AdjustmentType, ScalingAdjustment, StepAdjustments, MinAdjustmentMagnitude, Cooldown and MetricAggregationType are not supported for policy type TargetTrackingScaling.");
        if (!isfinite(tt->target_value))
            return sc_fail(err, SC_ERR_VALIDATION, "TargetValue must be a finite number.");
        if (!(tt->target_value > 0))
            return sc_fail(err, SC_ERR_VALIDATION, "TargetValue must be greater than 0.");
        if (tt->predefined_metric_type) {
            static const char *const ok[] = { "ASGAverageCPUUtilization", "ASGAverageNetworkIn",
                                              "ASGAverageNetworkOut", "ALBRequestCountPerTarget" };
            int found = 0;

            for (size_t k = 0; k < sizeof(ok) / sizeof(ok[0]); k++)
                found |= strcmp(tt->predefined_metric_type, ok[k]) == 0;
            if (!found)
                return sc_fail(
                    err, SC_ERR_VALIDATION,
                    "1 validation error detected: Value '%s' at 'targetTrackingConfiguration.predefinedMetricSpecification.predefinedMetricType' failed to satisfy constraint: Member must satisfy enum value set: [ASGAverageCPUUtilization, ASGAverageNetworkIn, ASGAverageNetworkOut, ALBRequestCountPerTarget]",
                    tt->predefined_metric_type);
            /* docs/elbv2.md 12 */
            if (strcmp(tt->predefined_metric_type, "ALBRequestCountPerTarget") == 0 &&
                (!tt->resource_label || !*tt->resource_label))
                return sc_fail(
                    err, SC_ERR_VALIDATION,
                    "Resource label should be specified for predefined metric type ALBRequestCountPerTarget");
            if (strcmp(tt->predefined_metric_type, "ALBRequestCountPerTarget") == 0 &&
                !sc_elbv2_resource_label_valid(tt->resource_label))
                return sc_fail(
                    err, SC_ERR_VALIDATION,
                    "Invalid resource label '%s' for predefined metric type ALBRequestCountPerTarget",
                    tt->resource_label);
        } else if (tt->has_metrics) {
            int nret = 0;

            if (tt->metric_name || tt->namespace_ || tt->statistic || tt->unit ||
                tt->ndimensions > 0)
                return sc_fail(
                    err, SC_ERR_VALIDATION,
                    "Either Metrics or MetricName, Namespace and Statistic must be specified in CustomizedMetricSpecification, not both.");
            if (tt->nmetrics < 1 || tt->nmetrics > SC_ALARM_MAX_QUERIES)
                return sc_fail(err, SC_ERR_VALIDATION, "Invalid metrics list");
            for (int k = 0; k < tt->nmetrics; k++)
                nret += !tt->metrics[k].has_return_data || tt->metrics[k].return_data;
            if (nret != 1)
                return sc_fail(err, SC_ERR_VALIDATION,
                               "Exactly one element of the metrics list should return data.");
            /* the rest (Ids, statistics, expressions) is CloudWatch's, checked when the
             * policy's alarms are put */
        } else if (!tt->metric_name || !tt->namespace_ || !tt->statistic) {
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Either PredefinedMetricSpecification or CustomizedMetricSpecification (MetricName, Namespace, Statistic) must be specified.");
        }
        if (r->has_estimated_instance_warmup && r->estimated_instance_warmup < 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "EstimatedInstanceWarmup must be greater than or equal to 0.");
        return SC_OK;
    }
    if (r->has_target_tracking)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "TargetTrackingConfiguration is only supported for policy type TargetTrackingScaling.");
    if (!r->adjustment_type)
        return sc_fail(err, SC_ERR_VALIDATION, "AdjustmentType is required for policy type %s.",
                       sc_asg_policy_type_str(t));
    if (sc_adjustment_type_parse(r->adjustment_type, adj) != 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Invalid adjustment type %s.", r->adjustment_type);
    if (r->has_min_adjustment_magnitude) {
        if (*adj != SC_ADJ_PERCENT_CHANGE_IN_CAPACITY)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "MinAdjustmentMagnitude may only be specified with an AdjustmentType of PercentChangeInCapacity.");
        if (r->min_adjustment_magnitude < 1)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "MinAdjustmentMagnitude must be greater than or equal to 1.");
    }
    if (t == SC_ASG_SIMPLE_SCALING) {
        if (!r->has_scaling_adjustment)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "ScalingAdjustment is required for policy type SimpleScaling.");
        if (r->nstep_adjustments > 0 || r->metric_aggregation_type ||
            r->has_estimated_instance_warmup)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "StepAdjustments, MetricAggregationType and EstimatedInstanceWarmup are not supported for policy type SimpleScaling.");
        if (*adj == SC_ADJ_EXACT_CAPACITY && r->scaling_adjustment < 0)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "ScalingAdjustment must be greater than or equal to 0 for AdjustmentType ExactCapacity.");
        if (r->has_cooldown && r->cooldown < 0)
            return sc_fail(err, SC_ERR_VALIDATION, "Cooldown must be greater than or equal to 0.");
        return SC_OK;
    }
    /* StepScaling */
    if (r->has_scaling_adjustment || r->has_cooldown)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "ScalingAdjustment and Cooldown are not supported for policy type StepScaling.");
    if (r->metric_aggregation_type && strcmp(r->metric_aggregation_type, "Average") != 0 &&
        strcmp(r->metric_aggregation_type, "Minimum") != 0 &&
        strcmp(r->metric_aggregation_type, "Maximum") != 0)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Invalid metric aggregation type %s. Valid values are Average, Minimum and Maximum.",
            r->metric_aggregation_type);
    if (r->has_estimated_instance_warmup && r->estimated_instance_warmup < 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "EstimatedInstanceWarmup must be greater than or equal to 0.");
    st = sc_policy_steps_validate(r->step_adjustments, r->nstep_adjustments, err);
    if (st != SC_OK)
        return st;
    if (*adj == SC_ADJ_EXACT_CAPACITY)
        for (int k = 0; k < r->nstep_adjustments; k++)
            if (r->step_adjustments[k].scaling_adjustment < 0)
                return sc_fail(
                    err, SC_ERR_VALIDATION,
                    "ScalingAdjustment must be greater than or equal to 0 for AdjustmentType ExactCapacity.");
    return SC_OK;
}

/* Fills the target-tracking metric fields of p from the request. Returns 0 or -1 (OOM). */
static int set_tt_metric(struct asg_policy *p, const struct sc_asg_tt_req *tt)
{
    struct sc_asg_policy_info *i = &p->info;

    i->target_value = tt->target_value;
    i->disable_scale_in = !!tt->disable_scale_in;
    if (tt->predefined_metric_type) {
        i->predefined_metric_type = sc_strdup(tt->predefined_metric_type);
        i->resource_label = sc_strdup(tt->resource_label);
        return i->predefined_metric_type && (!tt->resource_label || i->resource_label) ? 0 : -1;
    }
    if (tt->has_metrics) {
        struct sc_alarm_query *q;

        if (sc_alarm_queries_dup(tt->metrics, tt->nmetrics, &q))
            return -1;
        /* a TargetTrackingMetricStat without Period: 60 s, the policy's alarm period */
        for (int k = 0; k < tt->nmetrics; k++)
            if (q[k].has_metric_stat && !q[k].has_stat_period) {
                q[k].has_stat_period = 1;
                q[k].stat_period = 60;
            }
        i->metrics = q;
        i->nmetrics = tt->nmetrics;
        return 0;
    }
    i->metric_name = sc_strdup(tt->metric_name);
    i->namespace_ = sc_strdup(tt->namespace_);
    i->statistic = sc_strdup(tt->statistic);
    i->unit = sc_strdup(tt->unit);
    if (!i->metric_name || !i->namespace_ || !i->statistic || (tt->unit && !i->unit))
        return -1;
    if (tt->ndimensions > 0) {
        i->dimensions = calloc((size_t)tt->ndimensions, sizeof(*i->dimensions));
        if (!i->dimensions)
            return -1;
        i->ndimensions = tt->ndimensions;
        for (int k = 0; k < tt->ndimensions; k++) {
            i->dimensions[k].key = sc_strdup(tt->dimensions[k].key ? tt->dimensions[k].key : "");
            i->dimensions[k].value =
                sc_strdup(tt->dimensions[k].value ? tt->dimensions[k].value : "");
            if (!i->dimensions[k].key || !i->dimensions[k].value)
                return -1;
        }
    }
    return 0;
}

/* Creates (or re-puts) the High and Low alarms of a target-tracking policy. */
static enum sc_status put_tt_alarms(struct sc_asg *asg, struct asg_policy *p, int64_t now_ms,
                                    struct sc_error *err)
{
    struct sc_asg_policy_info *i = &p->info;
    const char *group = i->auto_scaling_group_name;
    struct sc_asg_alarm_spec spec;
    struct sc_asg_kv dims[32];
    char *desc;
    int nd = 0;

    memset(&spec, 0, sizeof(spec));
    if (i->predefined_metric_type) {
        const char *pm = i->predefined_metric_type;

        if (strcmp(pm, "ALBRequestCountPerTarget") == 0) {
            const char *tg = strstr(i->resource_label, "targetgroup/");

            spec.namespace_ = "AWS/ApplicationELB";
            spec.metric_name = "RequestCountPerTarget";
            spec.statistic = "Sum";
            dims[nd].key = "TargetGroup";
            dims[nd++].value = tg;
        } else {
            spec.namespace_ = "AWS/EC2";
            spec.metric_name = strcmp(pm, "ASGAverageCPUUtilization") == 0 ? "CPUUtilization"
                               : strcmp(pm, "ASGAverageNetworkIn") == 0    ? "NetworkIn"
                                                                           : "NetworkOut";
            spec.statistic = "Average";
            dims[nd].key = "AutoScalingGroupName";
            dims[nd++].value = group;
        }
    } else if (i->nmetrics) {
        spec.metrics = i->metrics;
        spec.nmetrics = i->nmetrics;
    } else {
        spec.namespace_ = i->namespace_;
        spec.metric_name = i->metric_name;
        spec.statistic = i->statistic;
        spec.unit = i->unit;
        for (int k = 0; k < i->ndimensions && nd < 32; k++) {
            dims[nd].key = i->dimensions[k].key;
            dims[nd++].value = i->dimensions[k].value;
        }
    }
    spec.dimensions = dims;
    spec.ndimensions = nd;
    spec.period_s = 60;
    spec.alarm_action = i->policy_arn;
    desc =
        asg_asprintf("DO NOT EDIT OR DELETE. For TargetTrackingScaling policy %s.", i->policy_arn);
    if (!desc)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    spec.alarm_description = desc;
    for (int k = 0; k < 2; k++) {
        char uuid[SC_RNG_UUID_LEN];
        enum sc_status st;

        if (k == 1 && i->disable_scale_in) {
            continue;
        }
        if (!i->alarm_names[k]) {
            sc_rng_uuid(asg->rng, uuid);
            i->alarm_names[k] = asg_asprintf("TargetTracking-%s-%s-%s", group,
                                             k == 0 ? "AlarmHigh" : "AlarmLow", uuid);
            if (!i->alarm_names[k])
                goto oom;
            i->alarm_arns[k] =
                asg_asprintf("arn:%s:cloudwatch:%s:%s:alarm:%s", sc_alarm_partition(asg->region),
                             asg->region, asg->account, i->alarm_names[k]);
            if (!i->alarm_arns[k])
                goto oom;
        }
        spec.alarm_name = i->alarm_names[k];
        spec.evaluation_periods = k == 0 ? 3 : 15;
        spec.datapoints_to_alarm = spec.evaluation_periods;
        spec.threshold = k == 0 ? i->target_value : i->target_value * 0.9;
        spec.comparison_operator = k == 0 ? "GreaterThanThreshold" : "LessThanThreshold";
        if (asg->env.put_alarm) {
            st = asg->env.put_alarm(asg->env.ud, &spec, now_ms, err);
            if (st != SC_OK) {
                free(desc);
                return st;
            }
        }
    }
    free(desc);
    return SC_OK;

oom:
    free(desc);
    return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
}

enum sc_status sc_asg_put_scaling_policy(struct sc_asg *asg, const struct sc_asg_policy_req *r,
                                         int64_t now_ms, const struct sc_asg_policy_info **out,
                                         struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, r->auto_scaling_group_name);
    struct asg_policy *old, *p = NULL;
    struct sc_asg_policy_info *i;
    enum sc_asg_policy_type t = SC_ASG_SIMPLE_SCALING;
    enum sc_adjustment_type adj = SC_ADJ_CHANGE_IN_CAPACITY;
    enum sc_status st;
    char uuid[SC_RNG_UUID_LEN];

    if (!g || g->deleting)
        return sc_asg_group_not_found(r->auto_scaling_group_name, err);
    st = parse_type(r->policy_type, &t, err);
    if (st != SC_OK)
        return st;
    st = validate(r, t, &adj, err);
    if (st != SC_OK)
        return st;
    old = policy_find(asg, r->auto_scaling_group_name, r->policy_name);
    if (!old && g->npol >= SC_ASG_MAX_POLICIES)
        return sc_fail(
            err, SC_ERR_LIMIT_EXCEEDED,
            "You have reached your quota of %d scaling policies for Auto Scaling group %s.",
            SC_ASG_MAX_POLICIES, g->info.auto_scaling_group_name);
    p = calloc(1, sizeof(*p));
    if (!p)
        goto oom;
    p->group = g;
    i = &p->info;
    i->auto_scaling_group_name = sc_strdup(g->info.auto_scaling_group_name);
    i->policy_name = sc_strdup(r->policy_name);
    if (old) {
        i->policy_arn = sc_strdup(old->info.policy_arn);
    } else {
        sc_rng_uuid(asg->rng, uuid);
        i->policy_arn = asg_asprintf(
            "arn:aws:autoscaling:%s:%s:scalingPolicy:%s:autoScalingGroupName/%s:policyName/%s",
            asg->region, asg->account, uuid, g->info.auto_scaling_group_name, r->policy_name);
    }
    if (!i->auto_scaling_group_name || !i->policy_name || !i->policy_arn)
        goto oom;
    i->policy_type = t;
    i->enabled = r->has_enabled ? !!r->enabled : 1;
    i->has_estimated_instance_warmup = r->has_estimated_instance_warmup;
    i->estimated_instance_warmup = r->estimated_instance_warmup;
    if (t == SC_ASG_PREDICTIVE_SCALING) {
        i->predictive = asg_predictive_dup(r->predictive);
        if (!i->predictive)
            goto oom;
        asg_predict_init(asg, g, i->predictive, now_ms);
    } else if (t != SC_ASG_TARGET_TRACKING_SCALING) {
        i->has_adjustment_type = 1;
        i->adjustment_type = adj;
        i->has_min_adjustment_magnitude = r->has_min_adjustment_magnitude;
        i->min_adjustment_magnitude = r->min_adjustment_magnitude;
        i->min_adjustment_step = r->has_min_adjustment_magnitude && r->min_adjustment_step;
    }
    if (t == SC_ASG_SIMPLE_SCALING) {
        i->has_scaling_adjustment = 1;
        i->scaling_adjustment = r->scaling_adjustment;
        i->has_cooldown = r->has_cooldown;
        i->cooldown = r->cooldown;
    } else if (t == SC_ASG_STEP_SCALING) {
        i->metric_aggregation_type =
            sc_strdup(r->metric_aggregation_type ? r->metric_aggregation_type : "Average");
        i->step_adjustments = calloc((size_t)r->nstep_adjustments, sizeof(*i->step_adjustments));
        if (!i->metric_aggregation_type || !i->step_adjustments)
            goto oom;
        memcpy(i->step_adjustments, r->step_adjustments,
               (size_t)r->nstep_adjustments * sizeof(*i->step_adjustments));
        i->nstep_adjustments = r->nstep_adjustments;
    } else if (t == SC_ASG_TARGET_TRACKING_SCALING) {
        if (set_tt_metric(p, &r->target_tracking) != 0)
            goto oom;
        if (old) {
            /* Keep the alarm names; drop the Low alarm when scale-in is now disabled. */
            for (int k = 0; k < 2; k++) {
                if (!old->info.alarm_names[k])
                    continue;
                if (k == 1 && i->disable_scale_in) {
                    if (asg->env.delete_alarm)
                        asg->env.delete_alarm(asg->env.ud, old->info.alarm_names[k], now_ms);
                    continue;
                }
                i->alarm_names[k] = old->info.alarm_names[k];
                i->alarm_arns[k] = old->info.alarm_arns[k];
                old->info.alarm_names[k] = NULL;
                old->info.alarm_arns[k] = NULL;
            }
        }
        st = put_tt_alarms(asg, p, now_ms, err);
        if (st != SC_OK) {
            asg_policy_free(p);
            return st;
        }
    }
    if (old) {
        if (t != SC_ASG_TARGET_TRACKING_SCALING)
            drop_alarms(asg, old, now_ms);
        for (int k = 0; k < g->npol; k++)
            if (g->pol[k] == old)
                g->pol[k] = p;
        asg_policy_free(old);
    } else {
        struct asg_policy **grown = realloc(g->pol, (size_t)(g->npol + 1) * sizeof(*grown));

        if (!grown) {
            drop_alarms(asg, p, now_ms);
            goto oom;
        }
        g->pol = grown;
        g->pol[g->npol++] = p;
    }
    if (out)
        *out = &p->info;
    return SC_OK;

oom:
    asg_policy_free(p);
    return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
}

enum sc_status sc_asg_delete_policy(struct sc_asg *asg, const char *group,
                                    const char *policy_name_or_arn, int64_t now_ms,
                                    struct sc_error *err)
{
    struct asg_policy *p = policy_find(asg, group, policy_name_or_arn);
    struct asg_group *g;

    if (!p) {
        if (policy_name_or_arn && strncmp(policy_name_or_arn, "arn:", 4) != 0 &&
            !asg_group_find(asg, group))
            return sc_asg_group_not_found(group, err);
        return sc_fail(err, SC_ERR_VALIDATION, "Policy %s not found",
                       policy_name_or_arn ? policy_name_or_arn : "null");
    }
    g = p->group;
    drop_alarms(asg, p, now_ms);
    for (int k = 0; k < g->npol; k++) {
        if (g->pol[k] == p) {
            memmove(&g->pol[k], &g->pol[k + 1], (size_t)(g->npol - k - 1) * sizeof(g->pol[0]));
            g->npol--;
            break;
        }
    }
    asg_policy_free(p);
    return SC_OK;
}

/* --- executing a policy --------------------------------------------------------------------------
 */

enum trigger { BY_USER, BY_ALARM };

struct exec {
    enum trigger by;
    const char *alarm_name;
    int honor_cooldown;
    int has_metric;
    double metric;
    double threshold;
    struct sc_decision *d; /* what this evaluation decided and why (docs/decisions.md) */
};

/* --- the decision record (docs/decisions.md 3) --- */

static void decision_begin(struct sc_decision *d, const struct asg_group *g,
                           const struct asg_policy *p, const struct exec *x, int64_t now_ms)
{
    memset(d, 0, sizeof(*d));
    d->time_ms = now_ms;
    snprintf(d->group, sizeof(d->group), "%s", g->info.auto_scaling_group_name);
    snprintf(d->policy, sizeof(d->policy), "%s", p->info.policy_name);
    snprintf(d->alarm, sizeof(d->alarm), "%s", x->alarm_name ? x->alarm_name : "");
    d->policy_type = sc_asg_policy_type_str(p->info.policy_type);
    d->trigger = x->by == BY_ALARM ? "alarm" : "ExecutePolicy";
    d->has_metric = x->has_metric;
    d->metric = x->metric;
    d->has_threshold = x->by == BY_ALARM || x->has_metric;
    d->threshold = x->threshold;
    d->has_target = p->info.policy_type == SC_ASG_TARGET_TRACKING_SCALING;
    d->target = p->info.target_value;
    d->current = d->counted = d->computed = d->desired = g->info.desired_capacity;
    d->min_size = g->info.min_size;
    d->max_size = g->info.max_size;
    d->reason = SC_DECISION_NO_CHANGE;
}

/* An alarm's scale-out needs Launch, its scale-in Terminate ("can't initiate scale-out
 * activities for alarms that are in breach"). 1 when the process is suspended, said so in
 * the record. */
static int blocked_by_process(const struct asg_group *g, const struct exec *x, int64_t want)
{
    enum sc_asg_process proc;

    if (x->by != BY_ALARM || want == g->info.desired_capacity)
        return 0;
    proc = want > g->info.desired_capacity ? SC_ASG_PROC_LAUNCH : SC_ASG_PROC_TERMINATE;
    if (!asg_proc_suspended(g, proc))
        return 0;
    sc_decision_unchanged(x->d, SC_DECISION_SUSPENDED);
    x->d->process = sc_asg_process_str(proc);
    return 1;
}

static void change_desired(struct asg_group *g, struct asg_policy *p, const struct exec *x,
                           int desired, int64_t now_ms)
{
    x->d->desired = desired;
    if (x->by == BY_ALARM)
        asg_set_desired(g, desired, now_ms, "a monitor alarm %s in state ALARM triggered policy %s",
                        x->alarm_name, p->info.policy_name);
    else
        asg_set_desired(g, desired, now_ms, "a user request executed policy %s",
                        p->info.policy_name);
}

static enum sc_status exec_simple(struct asg_group *g, struct asg_policy *p, const struct exec *x,
                                  int64_t now_ms, struct sc_error *err)
{
    const struct sc_asg_policy_info *i = &p->info;
    struct sc_decision *d = x->d;
    int64_t want;

    want = sc_policy_new_capacity(i->adjustment_type, g->info.desired_capacity,
                                  i->scaling_adjustment, i->min_adjustment_magnitude);
    sc_decision_arith_adjust(d, "", i->adjustment_type, g->info.desired_capacity,
                             i->scaling_adjustment, i->min_adjustment_magnitude, want);
    want = sc_decision_bounds(d, g->info.desired_capacity, asg_predict_min(g, now_ms, want),
                              g->info.max_size, want);
    if (asg_in_cooldown(g, now_ms) && (x->by == BY_ALARM || x->honor_cooldown)) {
        if (g->cooldown_pending_s >= 0) {
            sc_decision_unchanged(d, SC_DECISION_ACTIVITY_IN_PROGRESS);
        } else {
            sc_decision_unchanged(d, SC_DECISION_COOLDOWN);
            d->cooldown_left_s = (int)((g->cooldown_until_ms - now_ms + 999) / 1000);
        }
        if (x->by == BY_USER)
            return sc_fail(
                err, SC_ERR_SCALING_ACTIVITY_IN_PROGRESS,
                "Scaling activity is in progress or the group is in cooldown; policy %s was not executed because HonorCooldown is true.",
                i->policy_name);
        return sc_fail(err, SC_ERR_SCALING_ACTIVITY_IN_PROGRESS,
                       "Auto Scaling Policy not executed because the group is in cooldown");
    }
    if (want != g->info.desired_capacity && !blocked_by_process(g, x, want)) {
        change_desired(g, p, x, (int)want, now_ms);
        asg_start_cooldown(g, i->has_cooldown ? i->cooldown : g->info.default_cooldown);
    }
    return SC_OK;
}

/* Step and target tracking: scale-out counts from the warmed instances and never lowers
 * what warming instances already stand for; scale-in waits until none is warming. */
static enum sc_status apply_warmup_rules(struct asg_group *g, struct asg_policy *p,
                                         const struct exec *x, int out, int64_t want,
                                         int64_t now_ms, struct sc_error *err)
{
    struct sc_decision *d = x->d;
    int desired = g->info.desired_capacity;
    int warming = asg_group_warming(g, now_ms);

    d->warming = warming;
    want = sc_decision_bounds(d, g->info.desired_capacity, asg_predict_min(g, now_ms, want),
                              g->info.max_size, want);
    d->direction = out ? 1 : -1;
    if (out) {
        if (want <= desired) {
            if (want < desired || warming > 0) {
                if (d->reason != SC_DECISION_AT_MAX)
                    sc_decision_unchanged(d, SC_DECISION_NOT_COUNTED);
                return sc_fail(err, SC_ERR_SCALING_ACTIVITY_IN_PROGRESS, NOT_OVERRIDE);
            }
            return SC_OK;
        }
    } else {
        if (want >= desired) {
            if (d->reason == SC_DECISION_CHANGED || d->reason == SC_DECISION_AT_MAX)
                sc_decision_unchanged(d, SC_DECISION_NO_CHANGE);
            return SC_OK;
        }
        if (warming > 0) {
            sc_decision_unchanged(d, SC_DECISION_WARMUP);
            return sc_fail(err, SC_ERR_SCALING_ACTIVITY_IN_PROGRESS, NOT_OVERRIDE);
        }
    }
    if (!blocked_by_process(g, x, want))
        change_desired(g, p, x, (int)want, now_ms);
    return SC_OK;
}

static enum sc_status exec_step(struct asg_group *g, struct asg_policy *p, const struct exec *x,
                                int64_t now_ms, struct sc_error *err)
{
    const struct sc_asg_policy_info *i = &p->info;
    struct sc_decision *d = x->d;
    char prefix[224], bounds[72];
    int idx, out;
    int64_t a, want, base;

    if (!x->has_metric) {
        sc_decision_unchanged(d, SC_DECISION_NO_METRIC);
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Policy %s not executed: no metric value to select a step adjustment.",
                       i->policy_name);
    }
    idx =
        sc_policy_step_select(i->step_adjustments, i->nstep_adjustments, x->metric - x->threshold);
    if (idx < 0) {
        sc_decision_unchanged(d, SC_DECISION_NO_STEP);
        snprintf(d->arithmetic, sizeof(d->arithmetic), "metric %g - threshold %g = %g: no step",
                 x->metric, x->threshold, x->metric - x->threshold);
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Policy %s: the metric value %g does not fall into any of the step adjustments for breach threshold %g.",
            i->policy_name, x->metric, x->threshold);
    }
    a = i->step_adjustments[idx].scaling_adjustment;
    sc_decision_step_bounds(&i->step_adjustments[idx], x->metric - x->threshold, bounds,
                            sizeof(bounds));
    snprintf(prefix, sizeof(prefix), "metric %g - threshold %g = %g in step %s: ", x->metric,
             x->threshold, x->metric - x->threshold, bounds);
    if (i->adjustment_type == SC_ADJ_EXACT_CAPACITY)
        out = a > g->info.desired_capacity;
    else
        out = a > 0;
    if (i->adjustment_type != SC_ADJ_EXACT_CAPACITY && a == 0) {
        snprintf(d->arithmetic, sizeof(d->arithmetic), "%sadjustment 0", prefix);
        return SC_OK;
    }
    base = out ? asg_group_warmed(g, now_ms) : g->info.desired_capacity;
    d->counted = base;
    want = sc_policy_new_capacity(i->adjustment_type, base, a, i->min_adjustment_magnitude);
    sc_decision_arith_adjust(d, prefix, i->adjustment_type, base, a, i->min_adjustment_magnitude,
                             want);
    return apply_warmup_rules(g, p, x, out, want, now_ms, err);
}

static enum sc_status exec_tt(struct sc_asg *asg, struct asg_group *g, struct asg_policy *p,
                              const struct exec *x, int64_t now_ms, struct sc_error *err)
{
    const struct sc_asg_policy_info *i = &p->info;
    struct sc_decision *d = x->d;
    int high = i->alarm_names[0] && x->alarm_name && strcmp(x->alarm_name, i->alarm_names[0]) == 0;
    int low = i->alarm_names[1] && x->alarm_name && strcmp(x->alarm_name, i->alarm_names[1]) == 0;
    int64_t want, counted;

    if (!x->has_metric) {
        sc_decision_unchanged(d, SC_DECISION_NO_METRIC);
        return SC_OK;
    }
    if (!high && !low) {
        snprintf(d->arithmetic, sizeof(d->arithmetic), "alarm %s is not one of the policy's",
                 x->alarm_name ? x->alarm_name : "");
        return SC_OK;
    }
    if (high) {
        counted = asg_group_warmed(g, now_ms);
        d->counted = counted;
        want = sc_policy_target_tracking_capacity(counted, x->metric, i->target_value);
        sc_decision_arith_tt(d, counted, x->metric, i->target_value, want);
        return apply_warmup_rules(g, p, x, 1, want, now_ms, err);
    }
    d->direction = -1;
    if (i->disable_scale_in) {
        sc_decision_unchanged(d, SC_DECISION_SCALE_IN_DISABLED);
        return SC_OK;
    }
    /* Scale in only when every scale-in-enabled target-tracking policy agrees. */
    for (int k = 0; k < g->npol; k++) {
        const struct sc_asg_policy_info *o = &g->pol[k]->info;

        if (g->pol[k] == p || o->policy_type != SC_ASG_TARGET_TRACKING_SCALING || !o->enabled ||
            o->disable_scale_in || !o->alarm_names[1])
            continue;
        if (!asg->env.alarm_in_alarm || !asg->env.alarm_in_alarm(asg->env.ud, o->alarm_names[1])) {
            sc_decision_unchanged(d, SC_DECISION_OTHER_POLICY);
            snprintf(d->arithmetic, sizeof(d->arithmetic), "policy %s: alarm %s not in ALARM",
                     o->policy_name, o->alarm_names[1]);
            return SC_OK;
        }
    }
    want = sc_policy_target_tracking_capacity(g->info.desired_capacity, x->metric, i->target_value);
    sc_decision_arith_tt(d, g->info.desired_capacity, x->metric, i->target_value, want);
    return apply_warmup_rules(g, p, x, 0, want, now_ms, err);
}

enum sc_status sc_asg_execute_policy(struct sc_asg *asg, const struct sc_asg_exec_req *r,
                                     int64_t now_ms, struct sc_error *err)
{
    struct asg_policy *p;
    struct asg_group *g;
    struct exec x = { 0 };
    struct sc_decision d;
    enum sc_status st;

    if (r->policy_name && strncmp(r->policy_name, "arn:", 4) != 0 &&
        !asg_group_find(asg, r->auto_scaling_group_name))
        return sc_asg_group_not_found(r->auto_scaling_group_name, err);
    p = policy_find(asg, r->auto_scaling_group_name, r->policy_name);
    if (!p)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "No policy found for service namespace: autoscaling, policy name: %s",
                       r->policy_name ? r->policy_name : "null");
    g = p->group;
    if (g->deleting)
        return sc_asg_group_not_found(g->info.auto_scaling_group_name, err);
    x.by = BY_USER;
    x.honor_cooldown = r->honor_cooldown;
    x.d = &d;
    switch (p->info.policy_type) {
    case SC_ASG_SIMPLE_SCALING:
        if (r->has_metric_value || r->has_breach_threshold)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "MetricValue and BreachThreshold are only valid for policies of type StepScaling.");
        decision_begin(&d, g, p, &x, now_ms);
        st = exec_simple(g, p, &x, now_ms, err);
        break;
    case SC_ASG_STEP_SCALING:
        if (!r->has_metric_value || !r->has_breach_threshold)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "MetricValue and BreachThreshold are required for policies of type StepScaling.");
        x.has_metric = 1;
        x.metric = r->metric_value;
        x.threshold = r->breach_threshold;
        decision_begin(&d, g, p, &x, now_ms);
        st = exec_step(g, p, &x, now_ms, err);
        break;
    default:
        return sc_fail(err, SC_ERR_VALIDATION,
                       "ExecutePolicy is not supported for policies of type %s.",
                       sc_asg_policy_type_str(p->info.policy_type));
    }
    sc_decision_log_add(asg->decisions, &d);
    return st;
}

enum sc_status sc_asg_alarm_action(struct sc_asg *asg, const char *policy_arn,
                                   const struct sc_asg_alarm_ctx *ctx, int64_t now_ms,
                                   struct sc_error *err)
{
    struct asg_policy *p = policy_find(asg, NULL, policy_arn);
    struct asg_group *g;
    struct exec x = { 0 };
    struct sc_decision d;
    enum sc_status st = SC_OK;

    if (!p)
        return sc_fail(err, SC_ERR_VALIDATION, "No scaling policy found for %s",
                       policy_arn ? policy_arn : "null");
    g = p->group;
    if (g->deleting)
        return SC_OK;
    x.by = BY_ALARM;
    x.alarm_name = ctx && ctx->alarm_name ? ctx->alarm_name : "";
    x.has_metric = ctx && ctx->has_metric_value;
    x.metric = ctx ? ctx->metric_value : 0;
    x.threshold = ctx ? ctx->threshold : 0;
    x.d = &d;
    decision_begin(&d, g, p, &x, now_ms);
    if (asg_proc_suspended(g, SC_ASG_PROC_ALARM_NOTIFICATION)) {
        sc_decision_unchanged(&d, SC_DECISION_SUSPENDED);
        d.process = sc_asg_process_str(SC_ASG_PROC_ALARM_NOTIFICATION);
    } else if (!p->info.enabled) {
        sc_decision_unchanged(&d, SC_DECISION_DISABLED);
    } else {
        switch (p->info.policy_type) {
        case SC_ASG_SIMPLE_SCALING:
            st = exec_simple(g, p, &x, now_ms, err);
            break;
        case SC_ASG_STEP_SCALING:
            st = exec_step(g, p, &x, now_ms, err);
            break;
        case SC_ASG_TARGET_TRACKING_SCALING:
            st = exec_tt(asg, g, p, &x, now_ms, err);
            break;
        case SC_ASG_PREDICTIVE_SCALING: /* no alarms of its own; nothing to run */
            break;
        }
    }
    sc_decision_log_add(asg->decisions, &d);
    return st;
}
