/* emulator/api_autoscaling_policy.c: Auto Scaling handlers of scaling policies (Put, Describe,
 * Delete, Execute) (see
 * api_autoscaling_internal.h). IR in -> one sc_asg call -> IR out; every rule and message
 * is the library's. */
#include "emulator/api_autoscaling_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "emulator/api_autoscaling_predict.h"
#include "scaler/alarm.h"
#include "scaler/asg.h"
#include "scaler/world.h"

/* ---- policies
 * ------------------------------------------------------------------------------------ */

/* A policy's alarms (target tracking makes two) as PutScalingPolicy and DescribePolicies
 * return them. */
static json_t *alarms_json(const struct sc_asg_policy_info *p)
{
    json_t *alarms = json_array();

    for (int k = 0; k < 2; k++) {
        if (p->alarm_names[k])
            json_array_append_new(alarms,
                                  json_pack("{s:s,s:s}", "AlarmName", p->alarm_names[k], "AlarmARN",
                                            p->alarm_arns[k] ? p->alarm_arns[k] : ""));
    }
    return alarms;
}

static int put_scaling_policy(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    struct sc_asg_policy_req rq;
    const struct sc_asg_policy_info *p = NULL;
    json_t *steps = json_object_get(in, "StepAdjustments");
    json_t *tt = json_object_get(in, "TargetTrackingConfiguration");
    json_t *pc = json_object_get(in, "PredictiveScalingConfiguration");
    struct api_predictive pred = { 0 };
    struct sc_step_adjustment *sa = NULL;
    struct sc_asg_kv *dims = NULL;
    size_t i;
    json_t *e;
    int v, rc = 0;

    memset(&rq, 0, sizeof(rq));
    rq.auto_scaling_group_name = api_str(in, "AutoScalingGroupName");
    rq.policy_name = api_str(in, "PolicyName");
    rq.policy_type = api_str(in, "PolicyType");
    rq.adjustment_type = api_str(in, "AdjustmentType");
    if (api_int(in, "ScalingAdjustment", &v)) {
        rq.has_scaling_adjustment = 1;
        rq.scaling_adjustment = v;
    }
    if (api_int(in, "MinAdjustmentMagnitude", &v) || api_int(in, "MinAdjustmentStep", &v)) {
        rq.has_min_adjustment_magnitude = 1;
        rq.min_adjustment_magnitude = v;
        rq.min_adjustment_step = !json_object_get(in, "MinAdjustmentMagnitude");
    }
    rq.has_cooldown = api_int(in, "Cooldown", &rq.cooldown);
    rq.metric_aggregation_type = api_str(in, "MetricAggregationType");
    rq.has_estimated_instance_warmup =
        api_int(in, "EstimatedInstanceWarmup", &rq.estimated_instance_warmup);
    if (json_array_size(steps)) {
        sa = cm_xcalloc(json_array_size(steps), sizeof(*sa));
        json_array_foreach(steps, i, e)
        {
            json_t *lo = json_object_get(e, "MetricIntervalLowerBound");
            json_t *hi = json_object_get(e, "MetricIntervalUpperBound");

            sa[i].has_lower = json_is_number(lo);
            sa[i].lower = json_number_value(lo);
            sa[i].has_upper = json_is_number(hi);
            sa[i].upper = json_number_value(hi);
            sa[i].scaling_adjustment = json_integer_value(json_object_get(e, "ScalingAdjustment"));
        }
        rq.step_adjustments = sa;
        rq.nstep_adjustments = (int)json_array_size(steps);
    }
    if (tt) {
        json_t *pre = json_object_get(tt, "PredefinedMetricSpecification");
        json_t *cus = json_object_get(tt, "CustomizedMetricSpecification");
        json_t *dl = json_object_get(cus, "Dimensions");

        rq.has_target_tracking = 1;
        rq.target_tracking.predefined_metric_type = api_str(pre, "PredefinedMetricType");
        rq.target_tracking.resource_label = api_str(pre, "ResourceLabel");
        rq.target_tracking.metric_name = api_str(cus, "MetricName");
        rq.target_tracking.namespace_ = api_str(cus, "Namespace");
        rq.target_tracking.statistic = api_str(cus, "Statistic");
        rq.target_tracking.unit = api_str(cus, "Unit");
        if (json_object_get(cus, "Metrics")) {
            rq.target_tracking.has_metrics = 1;
            rq.target_tracking.metrics =
                api_alarm_queries(json_object_get(cus, "Metrics"), &rq.target_tracking.nmetrics);
        }
        if (json_array_size(dl)) {
            dims = cm_xcalloc(json_array_size(dl), sizeof(*dims));
            json_array_foreach(dl, i, e)
            {
                dims[i].key = api_str(e, "Name");
                dims[i].value = api_str(e, "Value");
            }
            rq.target_tracking.dimensions = dims;
            rq.target_tracking.ndimensions = (int)json_array_size(dl);
        }
        rq.target_tracking.target_value = json_number_value(json_object_get(tt, "TargetValue"));
        rq.target_tracking.disable_scale_in = api_bool(tt, "DisableScaleIn", 0);
    }
    if (json_is_boolean(json_object_get(in, "Enabled"))) {
        rq.has_enabled = 1;
        rq.enabled = api_bool(in, "Enabled", 1);
    }
    if (pc) {
        api_predictive_read(pc, &pred);
        rq.predictive = &pred.cfg;
    }
    if (sc_asg_put_scaling_policy(asg, &rq, ctx->now_ms, &p, &se) != SC_OK)
        rc = awserr_from_sc(err, &se);
    else
        *out = json_pack("{s:s,s:o}", "PolicyARN", p->policy_arn, "Alarms", alarms_json(p));
    free(sa);
    free(dims);
    api_predictive_cleanup(&pred);
    api_alarm_queries_free((struct sc_alarm_query *)rq.target_tracking.metrics,
                           rq.target_tracking.nmetrics);
    return rc;
}

/* DescribePolicies' Alarms: every alarm whose actions name the policy (the world's rule). */
static json_t *related_alarms_json(struct sc_world *w, const struct sc_asg_policy_info *p)
{
    json_t *alarms = json_array();
    int n = sc_world_policy_alarms(w, p->policy_arn, NULL, 0);
    const struct sc_alarm_view **v;

    if (n == 0)
        return alarms;
    v = cm_xcalloc((size_t)n, sizeof(*v));
    n = sc_world_policy_alarms(w, p->policy_arn, v, n);
    for (int i = 0; i < n; i++)
        json_array_append_new(alarms, json_pack("{s:s,s:s}", "AlarmName", v[i]->alarm_name,
                                                "AlarmARN", v[i]->alarm_arn));
    free(v);
    return alarms;
}

static json_t *policy_json(struct sc_world *w, const struct sc_asg_policy_info *p)
{
    json_t *o =
        json_pack("{s:s,s:s,s:s,s:s,s:b}", "AutoScalingGroupName", p->auto_scaling_group_name,
                  "PolicyName", p->policy_name, "PolicyARN", p->policy_arn, "PolicyType",
                  sc_asg_policy_type_str(p->policy_type), "Enabled", p->enabled);

    if (p->has_adjustment_type)
        json_object_set_new(o, "AdjustmentType",
                            json_string(sc_adjustment_type_str(p->adjustment_type)));
    if (p->has_scaling_adjustment)
        json_object_set_new(o, "ScalingAdjustment", json_integer(p->scaling_adjustment));
    if (p->has_min_adjustment_magnitude)
        json_object_set_new(o, "MinAdjustmentMagnitude", json_integer(p->min_adjustment_magnitude));
    if (p->has_min_adjustment_magnitude && p->min_adjustment_step)
        json_object_set_new(o, "MinAdjustmentStep", json_integer(p->min_adjustment_magnitude));
    if (p->has_cooldown)
        json_object_set_new(o, "Cooldown", json_integer(p->cooldown));
    api_asg_set_str(o, "MetricAggregationType", p->metric_aggregation_type);
    if (p->has_estimated_instance_warmup)
        json_object_set_new(o, "EstimatedInstanceWarmup",
                            json_integer(p->estimated_instance_warmup));
    if (p->policy_type == SC_ASG_STEP_SCALING) {
        json_t *sa = json_array();

        for (int i = 0; i < p->nstep_adjustments; i++) {
            const struct sc_step_adjustment *s = &p->step_adjustments[i];
            json_t *so = json_pack("{s:I}", "ScalingAdjustment", (json_int_t)s->scaling_adjustment);

            if (s->has_lower)
                json_object_set_new(so, "MetricIntervalLowerBound", json_real(s->lower));
            if (s->has_upper)
                json_object_set_new(so, "MetricIntervalUpperBound", json_real(s->upper));
            json_array_append_new(sa, so);
        }
        json_object_set_new(o, "StepAdjustments", sa);
    } else {
        json_object_set_new(o, "StepAdjustments", json_array());
    }
    if (p->policy_type == SC_ASG_TARGET_TRACKING_SCALING) {
        json_t *tt = json_pack("{s:f,s:b}", "TargetValue", p->target_value, "DisableScaleIn",
                               p->disable_scale_in);

        if (p->predefined_metric_type) {
            json_t *pre = json_pack("{s:s}", "PredefinedMetricType", p->predefined_metric_type);

            api_asg_set_str(pre, "ResourceLabel", p->resource_label);
            json_object_set_new(tt, "PredefinedMetricSpecification", pre);
        } else {
            json_t *cus = json_object();
            json_t *dl = json_array();

            api_asg_set_str(cus, "MetricName", p->metric_name);
            api_asg_set_str(cus, "Namespace", p->namespace_);
            api_asg_set_str(cus, "Statistic", p->statistic);
            api_asg_set_str(cus, "Unit", p->unit);
            for (int i = 0; i < p->ndimensions; i++)
                json_array_append_new(dl, json_pack("{s:s,s:s}", "Name", p->dimensions[i].key,
                                                    "Value", p->dimensions[i].value));
            if (p->nmetrics) {
                json_decref(dl);
                json_object_set_new(cus, "Metrics",
                                    api_alarm_queries_json(p->metrics, p->nmetrics));
            } else {
                json_object_set_new(cus, "Dimensions", dl);
            }
            json_object_set_new(tt, "CustomizedMetricSpecification", cus);
        }
        json_object_set_new(o, "TargetTrackingConfiguration", tt);
    }
    if (p->predictive)
        json_object_set_new(o, "PredictiveScalingConfiguration",
                            api_predictive_json(p->predictive));
    json_object_set_new(o, "Alarms", related_alarms_json(w, p));
    return o;
}

static int describe_policies(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    const char *group = api_str(in, "AutoScalingGroupName");
    const char **names, **types;
    int nn, nt;
    json_t *items;

    items = json_array();
    names = api_strings(in, "PolicyNames", &nn);
    types = api_strings(in, "PolicyTypes", &nt);
    for (int i = 0; i < sc_asg_policy_count(asg); i++) {
        const struct sc_asg_policy_info *p = sc_asg_policy_at(asg, i);

        if (group && strcmp(group, p->auto_scaling_group_name) != 0)
            continue;
        if (nn && !api_asg_in_list(names, nn, p->policy_name) &&
            !api_asg_in_list(names, nn, p->policy_arn))
            continue;
        if (nt && !api_asg_in_list(types, nt, sc_asg_policy_type_str(p->policy_type)))
            continue;
        json_array_append_new(items, policy_json(ctx->world, p));
    }
    free(names);
    free(types);
    return api_asg_page_out(items, in, 50, 100, out, "ScalingPolicies", err);
}

static int delete_policy(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };

    *out = NULL;
    return api_asg_done(err, &se,
                        sc_asg_delete_policy(asg, api_str(in, "AutoScalingGroupName"),
                                             api_str(in, "PolicyName"), ctx->now_ms, &se));
}

static int execute_policy(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    struct sc_asg_exec_req rq;
    json_t *mv = json_object_get(in, "MetricValue"), *bt = json_object_get(in, "BreachThreshold");

    *out = NULL;
    memset(&rq, 0, sizeof(rq));
    rq.auto_scaling_group_name = api_str(in, "AutoScalingGroupName");
    rq.policy_name = api_str(in, "PolicyName");
    rq.honor_cooldown = api_bool(in, "HonorCooldown", 0);
    rq.has_metric_value = json_is_number(mv);
    rq.metric_value = json_number_value(mv);
    rq.has_breach_threshold = json_is_number(bt);
    rq.breach_threshold = json_number_value(bt);
    return api_asg_done(err, &se, sc_asg_execute_policy(asg, &rq, ctx->now_ms, &se));
}

const struct api_handler api_autoscaling_policy_handlers[] = {
    { "DeletePolicy", delete_policy, API_MUTATES },
    { "DescribePolicies", describe_policies, 0 },
    { "ExecutePolicy", execute_policy, API_MUTATES },
    { "PutScalingPolicy", put_scaling_policy, API_MUTATES },
    { NULL, NULL, 0 },
};
