/* scaler/sim/run.c: the simulator's loop around libscaler's world and the model: setup and
 * the loop (the data plane and faults are in run_plane.c, metrics and samples in run_sample.c). */
#include "scaler/sim/run.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "common/tz.h"
#include "common/xalloc.h"
#include "scaler/asg.h"
#include "scaler/asg_hook.h"
#include "scaler/asg_launch.h"
#include "scaler/asg_notify.h"
#include "scaler/asg_predict.h"
#include "scaler/asg_refresh.h"
#include "scaler/asg_sched.h"
#include "scaler/asg_warm.h"
#include "scaler/cloudwatch.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "scaler/sim/elastic.h"
#include "scaler/sim/expect.h"
#include "scaler/sim/run_internal.h"
#include "scaler/world.h"

/* ---- setup ---- */

static int lib_fail(struct eng *e, const char *path, const struct sc_error *err)
{
    snprintf(e->err, sizeof(e->err), "%s: %s: %s", path, sc_status_code(err->status), err->message);
    return 2;
}

static int setup_lbs(struct eng *e)
{
    const struct sim_scenario *sc = e->sc;

    for (int i = 0; i < sc->nlbs; i++) {
        const struct sim_lb *lb = &sc->lbs[i];
        struct sc_elb_listener ls[64];
        struct sc_elb_create_req req = { 0 };
        struct sc_elb_attributes_req attr = { 0 };
        struct sc_error err = { 0 };
        int n = lb->nlisteners < 64 ? lb->nlisteners : 64;

        for (int j = 0; j < n; j++) {
            ls[j].protocol = lb->listeners[j].protocol;
            ls[j].load_balancer_port = lb->listeners[j].lb_port;
            ls[j].instance_protocol = lb->listeners[j].instance_protocol;
            ls[j].instance_port = lb->listeners[j].instance_port;
            ls[j].ssl_certificate_id = NULL;
        }
        req.load_balancer_name = lb->name;
        req.listeners = ls;
        req.nlisteners = n;
        req.availability_zones = (const char *const *)(lb->nzones ? lb->zones : sc->zones);
        req.nzones = lb->nzones ? lb->nzones : sc->nzones;
        if (sc_elb_create_load_balancer(e->elb, &req, e->now_ms, NULL, &err) != SC_OK)
            return lib_fail(e, lb->path, &err);
        if (lb->has_health_check) {
            struct sc_elb_health_check hc = { lb->health_check.target, lb->health_check.interval_s,
                                              lb->health_check.timeout_s,
                                              lb->health_check.unhealthy_threshold,
                                              lb->health_check.healthy_threshold };
            char p[SIM_PATH_MAX + 16];
            if (sc_elb_configure_health_check(e->elb, lb->name, &hc, e->now_ms, NULL, &err) !=
                SC_OK) {
                snprintf(p, sizeof(p), "%s.health_check", lb->path);
                return lib_fail(e, p, &err);
            }
        }
        attr.has_cross_zone = 1;
        attr.cross_zone_enabled = lb->cross_zone;
        attr.has_connection_draining = 1;
        attr.connection_draining_enabled = lb->draining;
        if (lb->draining) {
            attr.has_connection_draining_timeout = 1;
            attr.connection_draining_timeout_s = lb->draining_timeout_s;
        }
        if (sc_elb_modify_attributes(e->elb, lb->name, &attr, e->now_ms, NULL, &err) != SC_OK)
            return lib_fail(e, lb->path, &err);
    }
    return 0;
}

/* A group's target groups passed on (AWS takes 50 per call; more are an error there). */
#define SIM_MAX_GROUP_TGS 64

static int setup_lcs_groups(struct eng *e)
{
    const struct sim_scenario *sc = e->sc;

    for (int i = 0; i < sc->nlcs; i++) {
        const struct sim_launch_config *lc = &sc->lcs[i];
        struct sc_asg_lc_req req = { 0 };
        struct sc_error err = { 0 };

        if (lc->template) { /* CreateLaunchTemplate: version 1, the default */
            struct sc_ec2_lt_create_req lt = { 0 };

            lt.launch_template_name = lc->name;
            lt.data.image_id = lc->image_id;
            lt.data.instance_type = lc->instance_type;
            if (sc_ec2_create_launch_template(e->ec2, &lt, e->now_ms, NULL, &err) != SC_OK)
                return lib_fail(e, lc->path, &err);
            continue;
        }
        req.launch_configuration_name = lc->name;
        req.image_id = lc->image_id;
        req.instance_type = lc->instance_type;
        if (sc_asg_create_launch_configuration(e->asg, &req, e->now_ms, &err) != SC_OK)
            return lib_fail(e, lc->path, &err);
    }
    for (int i = 0; i < sc->ngroups; i++) {
        const struct sim_group *g = &sc->groups[i];
        struct sc_asg_group_req req = { 0 };
        struct sc_error err = { 0 };
        const struct sim_lb *lb0 =
            g->nload_balancers ? &sc->lbs[sim_scenario_lb_index(sc, g->load_balancers[0])] : NULL;
        const char *tg_arns[SIM_MAX_GROUP_TGS];

        req.auto_scaling_group_name = g->name;
        req.launch_configuration_name = g->launch_configuration;
        req.launch_template_name = g->launch_template;
        req.has_min_size = req.has_max_size = 1;
        req.min_size = g->min;
        req.max_size = g->max;
        req.has_desired_capacity = g->has_desired;
        req.desired_capacity = g->desired;
        req.has_default_cooldown = 1;
        req.default_cooldown = g->default_cooldown_s;
        if (g->nzones) {
            req.availability_zones = (const char *const *)g->zones;
            req.navailability_zones = g->nzones;
        } else if (lb0 && lb0->nzones) {
            req.availability_zones = (const char *const *)lb0->zones;
            req.navailability_zones = lb0->nzones;
        } else {
            req.availability_zones = (const char *const *)sc->zones;
            req.navailability_zones = sc->nzones;
        }
        req.health_check_type = g->health_check_type;
        req.has_health_check_grace_period = 1;
        req.health_check_grace_period = g->health_check_grace_period_s;
        req.load_balancer_names = (const char *const *)g->load_balancers;
        req.nload_balancer_names = g->nload_balancers;
        for (int j = 0; j < g->ntarget_groups && j < SIM_MAX_GROUP_TGS; j++)
            tg_arns[j] = alb_tg_arn(e, g->target_groups[j]);
        req.target_group_arns = tg_arns;
        req.ntarget_group_arns =
            g->ntarget_groups < SIM_MAX_GROUP_TGS ? g->ntarget_groups : SIM_MAX_GROUP_TGS;
        req.termination_policies = (const char *const *)g->termination_policies;
        req.ntermination_policies = g->ntermination_policies;
        req.has_new_instances_protected_from_scale_in = 1;
        req.new_instances_protected_from_scale_in = g->new_instances_protected_from_scale_in;
        req.has_max_instance_lifetime = g->has_max_instance_lifetime;
        req.max_instance_lifetime = g->max_instance_lifetime_s;
        {
            struct sc_asg_hook_req hooks[SC_ASG_MAX_HOOKS];
            int nh = g->nhooks < SC_ASG_MAX_HOOKS ? g->nhooks : SC_ASG_MAX_HOOKS;

            memset(hooks, 0, sizeof(hooks));
            for (int k = 0; k < nh; k++) {
                hooks[k].lifecycle_hook_name = g->hooks[k].name;
                hooks[k].lifecycle_transition = g->hooks[k].launching
                                                    ? SC_ASG_LAUNCHING_TRANSITION
                                                    : SC_ASG_TERMINATING_TRANSITION;
                hooks[k].has_heartbeat_timeout = 1;
                hooks[k].heartbeat_timeout = g->hooks[k].heartbeat_s;
                hooks[k].default_result = g->hooks[k].default_result;
                e->has_handlers |= g->hooks[k].has_handler;
            }
            if (sc_asg_create_group_with_hooks(e->asg, &req, hooks, g->nhooks, e->now_ms, &err) !=
                SC_OK)
                return lib_fail(e, g->path, &err);
        }
        for (int k = 0; k < g->nscheds; k++) {
            const struct sim_sched *s = &g->scheds[k];
            struct sc_asg_sched_req sr = { 0 };
            char p[SIM_PATH_MAX + 32];

            sr.auto_scaling_group_name = g->name;
            sr.scheduled_action_name = s->name;
            sr.has_start_time = s->has_at;
            sr.start_ms = e->now_ms + s->at_ms;
            sr.has_end_time = s->has_until;
            sr.end_ms = e->now_ms + s->until_ms;
            sr.recurrence = s->recurrence;
            sr.time_zone = s->time_zone;
            sr.has_min_size = s->has_min;
            sr.min_size = s->min;
            sr.has_max_size = s->has_max;
            sr.max_size = s->max;
            sr.has_desired_capacity = s->has_desired;
            sr.desired_capacity = s->desired;
            snprintf(p, sizeof(p), "%s.scheduled_actions[%d]", g->path, k);
            if (sc_asg_put_scheduled_action(e->asg, &sr, e->now_ms, &err) != SC_OK)
                return lib_fail(e, p, &err);
        }
        for (int k = 0; k < g->nnotifications; k++) { /* docs/autoscaling.md 9 */
            const struct sim_notify *nf = &g->notifications[k];
            char p[SIM_PATH_MAX + 32];

            snprintf(p, sizeof(p), "%s.notifications[%d]", g->path, k);
            if (sc_asg_put_notification_configuration(e->asg, g->name, nf->topic_arn,
                                                      (const char *const *)nf->types, nf->ntypes,
                                                      e->now_ms, &err) != SC_OK)
                return lib_fail(e, p, &err);
            e->has_notifications = 1;
        }
        if (g->warm) { /* warm_pool: PutWarmPool (docs/autoscaling.md 7) */
            struct sc_asg_warm_req wr = { 0 };
            char p[SIM_PATH_MAX + 32];

            wr.auto_scaling_group_name = g->name;
            wr.has_max_group_prepared_capacity = g->warm->has_max_group_prepared_capacity;
            wr.max_group_prepared_capacity = g->warm->max_group_prepared_capacity;
            wr.has_min_size = 1;
            wr.min_size = g->warm->min_size;
            wr.pool_state = g->warm->pool_state;
            wr.has_reuse_on_scale_in = 1;
            wr.reuse_on_scale_in = g->warm->reuse_on_scale_in;
            snprintf(p, sizeof(p), "%s.warm_pool", g->path);
            if (sc_asg_put_warm_pool(e->asg, &wr, e->now_ms, &err) != SC_OK)
                return lib_fail(e, p, &err);
        }
        e->groups[i].app = &sc->lcs[sim_scenario_group_lc(sc, g)].app;
        e->groups[i].lb = lb0 ? sim_scenario_lb_index(sc, lb0->name)
                          : g->ntarget_groups
                              ? sc->nlbs + sim_scenario_tg_index(sc, g->target_groups[0])
                              : -1;
        for (int j = 0; j < g->nload_balancers; j++)
            e->lbs[sim_scenario_lb_index(sc, g->load_balancers[j])].ngroups_behind++;
    }
    return 0;
}

static int setup_policies(struct eng *e)
{
    const struct sim_scenario *sc = e->sc;

    for (int i = 0; i < sc->npolicies && i < 256; i++) {
        const struct sim_policy *p = &sc->policies[i];
        struct sc_asg_policy_req req = { 0 };
        struct sc_step_adjustment steps[SC_POLICY_MAX_STEPS];
        const struct sc_asg_policy_info *info = NULL;
        struct sc_error err = { 0 };
        char label[2 * SC_ELBV2_ARN_LEN];

        req.auto_scaling_group_name = p->group;
        req.policy_name = p->name;
        struct sc_predict_spec_req spec = { 0 };
        struct sc_asg_predictive_req pred = { 0 };

        req.policy_type = p->type == SIM_POLICY_SIMPLE   ? "SimpleScaling"
                          : p->type == SIM_POLICY_STEP   ? "StepScaling"
                          : p->type == SIM_POLICY_TARGET ? "TargetTrackingScaling"
                                                         : "PredictiveScaling";
        if (p->type == SIM_POLICY_PREDICTIVE) {
            spec.has_target_value = 1;
            spec.target_value = p->target_value;
            spec.slot[SC_PREDICT_PAIR].set = 1;
            spec.slot[SC_PREDICT_PAIR].predefined_metric_type = p->predefined_metric;
            spec.slot[SC_PREDICT_PAIR].resource_label =
                alb_label(e, p->resource_label, label, sizeof(label));
            pred.specs = &spec;
            pred.nspecs = 1;
            pred.mode = p->mode;
            pred.has_scheduling_buffer_time = p->has_buffer_s;
            pred.scheduling_buffer_time = p->buffer_s;
            pred.max_capacity_breach_behavior = p->breach;
            pred.has_max_capacity_buffer = p->has_max_buffer;
            pred.max_capacity_buffer = p->max_buffer_pct;
            req.predictive = &pred;
        }
        req.adjustment_type = p->adjustment_type;
        if (p->type == SIM_POLICY_SIMPLE) {
            req.has_scaling_adjustment = 1;
            req.scaling_adjustment = p->adjustment;
            req.has_cooldown = p->has_cooldown;
            req.cooldown = p->cooldown_s;
        }
        req.has_min_adjustment_magnitude = p->has_min_adjustment_magnitude;
        req.min_adjustment_magnitude = p->min_adjustment_magnitude;
        req.has_estimated_instance_warmup = p->has_warmup;
        req.estimated_instance_warmup = p->estimated_instance_warmup_s;
        if (p->type == SIM_POLICY_STEP) {
            int n = p->nsteps < SC_POLICY_MAX_STEPS ? p->nsteps : SC_POLICY_MAX_STEPS;
            for (int j = 0; j < n; j++) {
                steps[j].has_lower = p->steps[j].has_lower;
                steps[j].lower = p->steps[j].lower;
                steps[j].has_upper = p->steps[j].has_upper;
                steps[j].upper = p->steps[j].upper;
                steps[j].scaling_adjustment = p->steps[j].adjustment;
            }
            req.step_adjustments = steps;
            req.nstep_adjustments = p->nsteps;
            req.metric_aggregation_type = p->metric_aggregation_type;
        }
        if (p->type == SIM_POLICY_TARGET) {
            req.has_target_tracking = 1;
            req.target_tracking.predefined_metric_type = p->predefined_metric;
            req.target_tracking.resource_label =
                alb_label(e, p->resource_label, label, sizeof(label));
            req.target_tracking.has_metrics = p->nmetrics > 0;
            req.target_tracking.metrics = p->metrics;
            req.target_tracking.nmetrics = p->nmetrics;
            req.target_tracking.target_value = p->target_value;
            req.target_tracking.disable_scale_in = p->disable_scale_in;
        }
        if (sc_asg_put_scaling_policy(e->asg, &req, e->now_ms, &info, &err) != SC_OK)
            return lib_fail(e, p->path, &err);
        e->policy_arns[i] = cm_xstrdup(info->policy_arn);
        if (p->type == SIM_POLICY_TARGET) {
            for (int k = 0; k < 2; k++) {
                if (!info->alarm_names[k])
                    continue;
                snprintf(e->alarms[e->nalarms].name, sizeof(e->alarms[0].name), "%s",
                         info->alarm_names[k]);
                e->alarms[e->nalarms].last = SC_ALARM_INSUFFICIENT_DATA;
                e->nalarms++;
            }
        }
    }
    return 0;
}

/* The PolicyARNs of an alarm's or a composite's actions (policy names, checked by the
 * reader) into out, at most SC_ALARM_MAX_ACTIONS + 1 of them (one past AWS's limit, so
 * PutMetricAlarm / PutCompositeAlarm answer it); returns how many. */
static int policy_arns(const struct eng *e, char *const *names, int n, const char **out)
{
    int k = n <= SC_ALARM_MAX_ACTIONS + 1 ? n : SC_ALARM_MAX_ACTIONS + 1;

    for (int j = 0; j < k; j++)
        out[j] = e->policy_arns[sim_scenario_policy_index(e->sc, names[j])];
    return k;
}

static int setup_alarms(struct eng *e)
{
    const struct sim_scenario *sc = e->sc;

    for (int i = 0; i < sc->nalarms; i++) {
        const struct sim_alarm *a = &sc->alarms[i];
        struct sc_put_metric_alarm_req req = { 0 };
        struct sc_dimension dims[SC_METRIC_MAX_DIMENSIONS];
        const char *actions[SC_ALARM_MAX_ACTIONS + 1], *ok_actions[SC_ALARM_MAX_ACTIONS + 1];
        struct sc_error err = { 0 };
        int nd =
            a->ndimensions < SC_METRIC_MAX_DIMENSIONS ? a->ndimensions : SC_METRIC_MAX_DIMENSIONS;

        char dimbuf[SC_METRIC_MAX_DIMENSIONS][SC_ELBV2_ARN_LEN];

        for (int j = 0; j < nd; j++) {
            dims[j].name = a->dimensions[j].name;
            dims[j].value = alb_dimension(e, a->dimensions[j].name, a->dimensions[j].value,
                                          dimbuf[j], sizeof(dimbuf[j]));
        }
        req.alarm_name = a->name;
        req.has_actions_enabled = 1;
        req.actions_enabled = a->actions_enabled;
        req.alarm_actions = actions;
        req.n_alarm_actions = policy_arns(e, a->actions, a->nactions, actions);
        req.ok_actions = ok_actions;
        req.n_ok_actions = policy_arns(e, a->ok_actions, a->nok_actions, ok_actions);
        if (a->nmetrics) { /* metric math or an anomaly band: the queries name the metrics */
            req.has_metrics = 1;
            req.metrics = a->metrics;
            req.n_metrics = a->nmetrics;
            req.threshold_metric_id = a->threshold_metric_id;
        } else {
            req.metric_name = a->metric;
            req.namespace = a->namespace_;
            req.statistic = a->statistic;
            req.extended_statistic = a->extended_statistic;
            req.dimensions = dims;
            req.n_dimensions = nd;
            req.has_period = 1;
            req.period = a->period_s;
            req.threshold_metric_id = a->threshold_metric_id;
        }
        req.has_evaluation_periods = 1;
        req.evaluation_periods = a->evaluation_periods;
        req.has_datapoints_to_alarm = a->has_datapoints_to_alarm;
        req.datapoints_to_alarm = a->datapoints_to_alarm;
        req.has_threshold = !a->threshold_metric_id;
        req.threshold = a->threshold;
        req.comparison_operator = a->comparison;
        req.treat_missing_data = a->treat_missing_data;
        if (sc_cw_put_metric_alarm(e->cw, &req, e->now_ms, &err) != SC_OK)
            return lib_fail(e, a->path, &err);
        snprintf(e->alarms[e->nalarms].name, sizeof(e->alarms[0].name), "%s", a->name);
        e->alarms[e->nalarms].last = SC_ALARM_INSUFFICIENT_DATA;
        e->nalarms++;
    }
    return 0;
}

/* infrastructure.composite_alarms, in the file's order (a rule may name a composite put
 * before it), through PutCompositeAlarm's call: a rule that does not parse or names a
 * missing alarm is libscaler's ValidationError at the composite's path. */
static int setup_composites(struct eng *e)
{
    const struct sim_scenario *sc = e->sc;

    for (int i = 0; i < sc->ncomposites; i++) {
        const struct sim_composite *a = &sc->composites[i];
        struct sc_put_composite_alarm_req req = { 0 };
        const char *actions[SC_ALARM_MAX_ACTIONS + 1], *ok_actions[SC_ALARM_MAX_ACTIONS + 1];
        struct sc_error err = { 0 };

        req.alarm_name = a->name;
        req.alarm_rule = a->alarm_rule;
        req.has_actions_enabled = 1;
        req.actions_enabled = a->actions_enabled;
        req.alarm_actions = actions;
        req.n_alarm_actions = policy_arns(e, a->actions, a->nactions, actions);
        req.ok_actions = ok_actions;
        req.n_ok_actions = policy_arns(e, a->ok_actions, a->nok_actions, ok_actions);
        req.actions_suppressor = a->actions_suppressor;
        req.has_wait_period = a->has_wait_period;
        req.wait_period_s = a->wait_period_s;
        req.has_extension_period = a->has_extension_period;
        req.extension_period_s = a->extension_period_s;
        if (sc_cw_put_composite_alarm(e->cw, &req, e->now_ms, &err) != SC_OK)
            return lib_fail(e, a->path, &err);
        snprintf(e->alarms[e->nalarms].name, sizeof(e->alarms[0].name), "%s", a->name);
        e->alarms[e->nalarms].last = SC_ALARM_INSUFFICIENT_DATA;
        e->alarms[e->nalarms].composite = 1;
        e->alarms[e->nalarms].action_ms = INT64_MIN;
        e->nalarms++;
    }
    return 0;
}

static void warn(struct sim_run_result *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Adds a line to res's warnings (sim_run prints nothing; its caller does). */
static void warn(struct sim_run_result *res, const char *fmt, ...)
{
    va_list ap;
    char *line;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    line = cm_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(line, (size_t)n + 1, fmt, ap);
    va_end(ap);
    res->warnings = cm_xrealloc(res->warnings, (size_t)(res->nwarnings + 1) * sizeof(char *));
    res->warnings[res->nwarnings++] = line;
}

/* Marks the metric ns/name/dims an alarm reads as one to put; warns when the simulator does
 * not produce it. */
static void plan_metric(struct eng *e, struct sim_run_result *res, const char *alarm,
                        const char *ns, const char *name, const struct sc_dimension *dims,
                        int ndims)
{
    int known = 0;

    if (strcmp(ns, "AWS/EC2") == 0 && strcmp(name, "CPUUtilization") == 0) {
        if (ndims == 0) {
            e->cpu_all_metric = 1;
            known = 1;
        } else if (ndims == 1 && strcmp(dims[0].name, "AutoScalingGroupName") == 0) {
            int g = sim_scenario_group_index(e->sc, dims[0].value);
            if (g >= 0)
                e->groups[g].cpu_metric = 1;
            known = 1;
        } else if (ndims == 1 && strcmp(dims[0].name, "InstanceId") == 0) {
            e->cpu_instance_metric = 1;
            known = 1;
        }
    } else if (strcmp(ns, "AWS/ApplicationELB") == 0 && e->sc->nalbs > 0) {
        /* sc_elbv2_report_minute puts them every minute, but the model has no figures for
         * connections, bytes, the targets' own 3xx-5xx or the 502/504 the proxy makes */
        static const char *const none[] = { "ActiveConnectionCount",
                                            "NewConnectionCount",
                                            "ProcessedBytes",
                                            "TargetConnectionErrorCount",
                                            "HTTPCode_Target_3XX_Count",
                                            "HTTPCode_Target_4XX_Count",
                                            "HTTPCode_Target_5XX_Count",
                                            "HTTPCode_ELB_502_Count",
                                            "HTTPCode_ELB_504_Count",
                                            NULL };
        known = sc_elbv2_metric_known(name);
        for (int k = 0; none[k]; k++)
            known &= strcmp(name, none[k]) != 0;
    } else if (strcmp(ns, "AWS/ELB") == 0 && ndims == 1 &&
               strcmp(dims[0].name, "LoadBalancerName") == 0) {
        int lb = sim_scenario_lb_index(e->sc, dims[0].value);
        int m = sc_elb_metric_find(name);
        if (lb >= 0 && m >= 0 && (SIM_ELB_METRICS & SC_ELB_METRIC_BIT(m))) {
            e->lbs[lb].metrics |= SC_ELB_METRIC_BIT(m);
            known = 1;
        }
    }
    if (!known)
        warn(res,
             "alarm %s reads %s %s, which the simulator does not produce; it will see no "
             "data",
             alarm, ns, name);
}

/* Which metrics some alarm reads (its own, or its Metrics' MetricStat queries): only those
 * are put. */
static void plan_metrics(struct eng *e, struct sim_run_result *res)
{
    for (int i = 0; i < e->nalarms; i++) {
        const struct sc_alarm_view *v = sc_cw_alarm_find(e->cw, e->alarms[i].name);
        if (!v)
            continue;
        if (v->n_metrics == 0) {
            plan_metric(e, res, v->alarm_name, v->namespace, v->metric_name, v->dimensions,
                        v->n_dimensions);
            continue;
        }
        for (int k = 0; k < v->n_metrics; k++) {
            const struct sc_alarm_query *q = &v->metrics[k];
            if (q->has_metric_stat)
                plan_metric(e, res, v->alarm_name, q->metric.namespace, q->metric.metric_name,
                            q->metric.dimensions, q->metric.n_dimensions);
        }
    }
    /* a predictive policy's load metric (docs/autoscaling.md 12.3) */
    for (int i = 0; i < e->sc->npolicies; i++) {
        const struct sim_policy *pl = &e->sc->policies[i];
        int g = sim_scenario_group_index(e->sc, pl->group);

        if (pl->type != SIM_POLICY_PREDICTIVE || g < 0)
            continue;
        if (strcmp(pl->predefined_metric, "ASGCPUUtilization") == 0)
            e->groups[g].cpu_metric = 1;
        else
            warn(res,
                 "policy %s forecasts from %s, which the simulator does not produce; it will "
                 "make no forecast",
                 pl->name, pl->predefined_metric);
    }
}

static void setup_health(struct eng *e, struct sim_run_result *res)
{
    for (int i = 0; i < e->sc->nlbs; i++) {
        const struct sc_elb_lb *lb = sc_elb_lb_find(e->elb, e->sc->lbs[i].name);
        struct lb_state *ls = &e->lbs[i];
        int port = 0;
        if (!lb)
            continue;
        ls->hc_interval_ms = (int64_t)lb->health_check.interval_s * 1000;
        if (ls->hc_interval_ms <= 0)
            ls->hc_interval_ms = 30000;
        ls->hc_next_ms = e->start_ms + ls->hc_interval_ms;
        ls->http =
            lb->hc_target.protocol == SC_ELB_HC_HTTP || lb->hc_target.protocol == SC_ELB_HC_HTTPS;
        port = lb->hc_target.port;
        ls->port_ok = 0;
        for (int j = 0; j < e->sc->lbs[i].nlisteners; j++)
            if (e->sc->lbs[i].listeners[j].instance_port == port)
                ls->port_ok = 1;
        if (!ls->port_ok)
            warn(res,
                 "%s: health check target %s names port %d, which no listener's "
                 "instance_port serves; every check will fail",
                 e->sc->lbs[i].path, lb->health_check.target, port);
    }
}

/* ---- the loop ---- */

const char *sim_run_tail_reason(const struct sim_scenario *sc)
{
    for (int i = 0; i < sc->nexpects; i++)
        if (sc->expects[i].kind == SIM_EXPECT_P99_MS)
            return sc->expects[i].path;
    for (int i = 0; i < sc->nalarms; i++)
        if (sc->alarms[i].extended_statistic)
            return sc->alarms[i].path;
    return NULL;
}

enum sim_mode sim_run_auto_mode(const struct sim_scenario *sc, double *est_requests)
{
    double total = 0;

    for (int i = 0; i < sc->nphases; i++) {
        const struct sim_phase *ph = &sc->phases[i];
        double dur_s = (double)(ph->until_ms - ph->at_ms) / 1000.0, peak = ph->value;
        if (ph->ntrace > 0)
            for (int k = 0; k < ph->ntrace; k++)
                peak = fmax(peak, ph->trace_rate[k]);
        if (ph->shape != SIM_SHAPE_CONSTANT && ph->shape != SIM_SHAPE_BURSTS)
            peak = fmax(peak, ph->to);
        if (ph->shape == SIM_SHAPE_DIURNAL)
            peak = ph->value * (1 + ph->amplitude);
        if (ph->closed) {
            /* clients cycle at most every think + service time */
            double s = 0.001;
            int lb = sim_scenario_lb_index(sc, ph->target);
            for (int g = 0; g < sc->ngroups; g++)
                for (int j = 0; j < sc->groups[g].nload_balancers; j++)
                    if (lb >= 0 && strcmp(sc->groups[g].load_balancers[j], sc->lbs[lb].name) == 0)
                        s = fmax(
                            s,
                            sc->lcs[sim_scenario_group_lc(sc, &sc->groups[g])].app.service_mean_ms /
                                1000.0);
            peak = peak / (ph->think_ms / 1000.0 + s);
        }
        total += peak * dur_s;
    }
    if (est_requests)
        *est_requests = total;
    if (total <= SIM_AUTO_DES_MAX_REQUESTS)
        return SIM_MODE_DES;
    if (total <= SIM_AUTO_DES_TAIL_MAX_REQUESTS && sim_run_tail_reason(sc))
        return SIM_MODE_DES;
    return SIM_MODE_FLUID;
}

/* The group's instance_refresh at its time (docs/scenarios.md): the group switches to the
 * refresh's launch configuration first (its app profile for the instances launched from now),
 * then StartInstanceRefresh; a refusal is a warning (the run goes on without it). */
static void start_refresh(struct eng *e, struct sim_run_result *res, int gi)
{
    const struct sim_group *g = &e->sc->groups[gi];
    const struct sim_refresh *r = &g->refresh;
    struct sc_asg_refresh_req q = { 0 };
    struct sc_error err = { 0 };

    e->groups[gi].refresh_started = 1;
    if (r->launch_configuration) {
        struct sc_asg_group_req up = { 0 };

        up.auto_scaling_group_name = g->name;
        up.launch_configuration_name = r->launch_configuration;
        if (sc_asg_update_group(e->asg, &up, e->now_ms, &err) != SC_OK) {
            warn(res, "%s.instance_refresh: %s: %s", g->path, sc_status_code(err.status),
                 err.message);
            return;
        }
        e->groups[gi].app = &e->sc->lcs[sim_scenario_lc_index(e->sc, r->launch_configuration)].app;
    }
    q.auto_scaling_group_name = g->name;
    q.has_min_healthy_percentage = r->has_min;
    q.min_healthy_percentage = r->min_healthy_percentage;
    q.has_max_healthy_percentage = r->has_max;
    q.max_healthy_percentage = r->max_healthy_percentage;
    q.has_instance_warmup = r->has_warmup;
    q.instance_warmup = r->instance_warmup_s;
    q.checkpoint_percentages = r->checkpoints;
    q.ncheckpoint_percentages = r->ncheckpoints;
    q.has_checkpoint_delay = r->has_delay;
    q.checkpoint_delay = r->checkpoint_delay_s;
    if (sc_asg_start_instance_refresh(e->asg, &q, e->now_ms, NULL, &err) != SC_OK)
        warn(res, "%s.instance_refresh: %s: %s", g->path, sc_status_code(err.status), err.message);
}

/* A group's launch_instances member k at its time (docs/scenarios.md): LaunchInstances through
 * libscaler's call, the one the emulator serves; its reply or refusal is the timeline's
 * SIM_EVENT_LAUNCH (a refusal changes nothing, and the run goes on). */
static void launch_call(struct eng *e, int gi, int k)
{
    const struct sim_group *g = &e->sc->groups[gi];
    const struct sim_launch *l = &g->launches[k];
    struct sc_asg_launch_req q = { 0 };
    const struct sc_asg_launch_info *rep = NULL;
    struct sc_error err = { 0 };
    struct sim_event ev;
    char token[SC_ASG_CLIENT_TOKEN_LEN + SIM_PATH_MAX], cause[256], line[SIM_EVENT_TEXT_MAX];
    const char *zones[1];

    e->groups[gi].launch_made[k] = 1;
    sim_launch_token(e->sc, gi, k, NULL, token, sizeof(token));
    q.auto_scaling_group_name = g->name;
    q.requested_capacity = l->requested_capacity;
    q.client_token = token;
    zones[0] = l->zone;
    q.availability_zones = zones;
    q.navailability_zones = l->zone ? 1 : 0;
    q.retry_strategy = l->retry_strategy;
    if (sc_asg_launch_instances(e->asg, &q, e->now_ms, &rep, &err) != SC_OK)
        rep = NULL;
    sim_event_from_launch(&ev, e->now_ms, g->name, l, token, rep, sc_status_code(err.status),
                          err.message, cause, sizeof(cause), line, sizeof(line));
    sim_timeline_push_event(e->tl, &ev);
}

/* The earliest launch_instances call not made yet, or INT64_MAX. */
static int64_t launch_next_ms(const struct eng *e)
{
    int64_t t = INT64_MAX;

    for (int g = 0; g < e->sc->ngroups; g++)
        for (int k = 0; k < e->sc->groups[g].nlaunches; k++)
            if (!e->groups[g].launch_made[k] &&
                e->start_ms + e->sc->groups[g].launches[k].at_ms < t)
                t = e->start_ms + e->sc->groups[g].launches[k].at_ms;
    return t;
}

static int cmp_fault(const void *a, const void *b)
{
    const struct fault_track *x = a, *y = b;

    if (x->f->at_ms != y->f->at_ms)
        return x->f->at_ms < y->f->at_ms ? -1 : 1;
    return x->f < y->f ? -1 : x->f > y->f;
}

static void make_timeline(struct eng *e)
{
    struct sim_timeline_config tc = { 0 };
    const char *gnames[SIM_TIMELINE_MAX_GROUPS];
    struct sim_alarm_info ai[SIM_TIMELINE_MAX_ALARMS];
    struct sim_demand_basis basis[SIM_TIMELINE_MAX_GROUPS];

    for (int g = 0; g < e->sc->ngroups && g < SIM_TIMELINE_MAX_GROUPS; g++)
        gnames[g] = e->sc->groups[g].name;
    for (int g = 0; g < e->sc->ngroups && g < SIM_TIMELINE_MAX_GROUPS; g++)
        sim_elastic_demand_basis(e->sc, g, &basis[g]);
    for (int i = 0; i < e->nalarms; i++) {
        const struct sc_alarm_view *v = sc_cw_alarm_find(e->cw, e->alarms[i].name);
        ai[i].name = e->alarms[i].name;
        ai[i].metric = v && v->metric_name ? v->metric_name : "";
        /* an alarm on Metrics: the returned query's expression (or its metric's name) */
        for (int k = 0; v && k < v->n_metrics; k++)
            if ((!v->metrics[k].has_return_data || v->metrics[k].return_data) &&
                !(v->threshold_metric_id && strcmp(v->metrics[k].id, v->threshold_metric_id) == 0))
                ai[i].metric = v->metrics[k].expression ? v->metrics[k].expression
                                                        : v->metrics[k].metric.metric_name;
        ai[i].comparison = v ? v->comparison_operator : "";
        ai[i].threshold = v ? v->threshold : 0;
        ai[i].alarm_rule = NULL;
        if (e->alarms[i].composite) {
            const struct sc_composite_view *cv =
                sc_alarms_composite_find(sc_cw_alarms(e->cw), e->alarms[i].name);
            ai[i].alarm_rule = cv ? cv->alarm_rule : "";
        }
    }
    tc.start_ms = e->start_ms;
    tc.end_ms = e->end_ms;
    tc.interval_ms = e->sample_ms;
    tc.scenario_name = e->sc->name;
    tc.ngroups = e->sc->ngroups;
    tc.group_names = gnames;
    tc.group_basis = basis;
    tc.nalarms = e->nalarms;
    tc.alarms = ai;
    e->tl = sim_timeline_create(&tc);
}

static void eng_cleanup(struct eng *e)
{
    sc_observer_destroy(e->obs);
    sim_model_destroy(e->model);
    sc_world_destroy(e->w);
    for (int i = 0; i < 256; i++)
        free(e->policy_arns[i]);
    for (int i = 0; e->lbs && i < e->sc->nlbs; i++) {
        free(e->lbs[i].ids);
        free(e->lbs[i].slots);
        free(e->lbs[i].zones);
    }
    free(e->lbs);
    alb_cleanup(e);
    for (int g = 0; e->groups && g < e->sc->ngroups; g++)
        free(e->groups[g].launch_made);
    free(e->groups);
    free(e->alarms);
    free(e->faults);
    free(e->slots);
    free(e->ents);
    cm_hist_cleanup(&e->run_hist);
}

int sim_run(const struct sim_run_config *cfg, struct sim_run_result *res,
            struct sim_timeline **tl_out, char *err)
{
    struct eng e;
    const struct sim_scenario *sc = cfg->sc;
    struct sc_world_config wc;
    struct sim_model_config mc = { 0 };
    int rc = 0, need_step = 1;
    int64_t next_sample, next_minute, world_due = 0;
    uint64_t due_epoch = 0;

    memset(&e, 0, sizeof(e));
    memset(res, 0, sizeof(*res));
    err[0] = '\0';
    e.cfg = cfg;
    e.sc = sc;
    if (sc->ngroups > SIM_TIMELINE_MAX_GROUPS) {
        snprintf(err, SIM_ERR_MAX, "$.infrastructure.groups: at most %d groups",
                 SIM_TIMELINE_MAX_GROUPS);
        return 2;
    }
    e.start_ms = sc->start_ms;
    e.end_ms = sc->start_ms + sc->duration_ms;
    e.now_ms = e.start_ms;
    e.sample_ms = cfg->sample_ms > 0 ? cfg->sample_ms : sc->sample_ms;
    e.mode = cfg->mode == SIM_MODE_AUTO ? sim_run_auto_mode(sc, NULL) : (enum sim_mode)cfg->mode;
    cm_hist_init(&e.run_hist, SIM_HIST_HIGHEST_US, SIM_HIST_DIGITS);
    for (int i = 0; i < sc->nexpects; i++)
        e.need_hist |= cfg->checker && sc->expects[i].kind == SIM_EXPECT_P99_MS;

    sc_world_config_defaults(&wc);
    wc.region = sc->region;
    for (int i = 0; i < sc->nzones && i < SC_WORLD_MAX_ZONES; i++)
        wc.zones[i] = sc->zones[i];
    wc.nzones = sc->nzones < SC_WORLD_MAX_ZONES ? sc->nzones : SC_WORLD_MAX_ZONES;
    wc.seed = cfg->seed;
    wc.start_ms = e.start_ms;
    /* CloudWatch keeps data as long as AWS does: the simulator has a few series, and a
     * year of them stays within the memory bar (docs/cloudwatch.md) */
    wc.aws_retention = 1;
    wc.tz_offset = cm_tz_offset; /* scheduled actions' TimeZone from the system's tzdata */
    e.w = sc_world_create(&wc);
    if (!e.w) {
        snprintf(err, SIM_ERR_MAX, "$.zones: the world could not be made from these zones");
        eng_cleanup(&e);
        return 2;
    }
    e.cw = sc_world_cw(e.w);
    e.asg = sc_world_asg(e.w);
    e.elb = sc_world_elb(e.w);
    e.ec2 = sc_world_ec2(e.w);
    e.lbs = cm_xcalloc((size_t)sc->nlbs + 1, sizeof(*e.lbs));
    e.groups = cm_xcalloc((size_t)sc->ngroups + 1, sizeof(*e.groups));
    e.alarms =
        cm_xcalloc((size_t)sc->nalarms + (size_t)sc->ncomposites + 2 * (size_t)sc->npolicies + 1,
                   sizeof(*e.alarms));
    e.faults = cm_xcalloc((size_t)sc->nfaults + 1, sizeof(*e.faults));
    for (int g = 0; g < sc->ngroups; g++)
        e.groups[g].launch_made = cm_xcalloc((size_t)sc->groups[g].nlaunches + 1, 1);

    rc = setup_lbs(&e);
    if (!rc)
        rc = alb_setup(&e);
    if (!rc)
        rc = setup_lcs_groups(&e);
    if (!rc)
        rc = setup_policies(&e);
    if (!rc)
        rc = setup_alarms(&e);
    if (!rc)
        rc = setup_composites(&e);
    if (!rc)
        rc = alb_plan(&e);
    if (!rc && e.nalarms > SIM_TIMELINE_MAX_ALARMS) {
        snprintf(e.err, sizeof(e.err), "$.infrastructure.alarms: at most %d alarms",
                 SIM_TIMELINE_MAX_ALARMS);
        rc = 2;
    }
    if (rc) {
        snprintf(err, SIM_ERR_MAX, "%s", e.err);
        eng_cleanup(&e);
        return rc;
    }
    plan_metrics(&e, res);
    setup_health(&e, res);
    if (e.mode == SIM_MODE_FLUID && sim_run_tail_reason(sc))
        warn(res,
             "%s: judges a latency tail, which fluid mode gets outside its measured validity "
             "(its p99 runs up to 2.5x DES's near saturation: docs/scenarios.md, Modes); "
             "--mode des gives the verdict%s",
             sim_run_tail_reason(sc),
             cfg->mode == SIM_MODE_AUTO ? " (auto chose fluid: the run is too long for DES)" : "");
    for (int i = 0; i < sc->nfaults; i++)
        e.faults[i].f = &sc->faults[i];
    qsort(e.faults, (size_t)sc->nfaults, sizeof(*e.faults), cmp_fault);

    mc.mode = e.mode;
    mc.sc = sc;
    mc.start_us = us(e.start_ms);
    mc.seed = cfg->seed;
    mc.tick_us = cfg->tick_us;
    mc.nextra_routes = sc->ntgs + e.nanswers;
    mc.answer_status = e.answer_status;
    mc.splits = e.splits;
    mc.nsplits = e.nsplits;
    e.model = sim_model_create(&mc);
    make_timeline(&e);
    if (!e.model || !e.tl) {
        snprintf(err, SIM_ERR_MAX, "cannot set up the model");
        sim_timeline_destroy(e.tl);
        eng_cleanup(&e);
        return 1;
    }
    if (cfg->on_timeline)
        cfg->on_timeline(e.tl, cfg->ud);
    /* --explain's decisions and hook notes; a group's notifications (docs/scenarios.md) */
    if (cfg->explain || e.has_notifications) {
        e.obs = sc_observer_create();
        if (!e.obs) {
            snprintf(err, SIM_ERR_MAX, "out of memory");
            sim_timeline_destroy(e.tl);
            eng_cleanup(&e);
            return 1;
        }
        sc_observer_set_kinds(
            e.obs, (cfg->explain ? (1u << SC_EVENT_DECISION) | (1u << SC_EVENT_HOOK) : 0) |
                       (e.has_notifications ? 1u << SC_EVENT_NOTIFICATION : 0));
    }

    next_sample = e.start_ms + e.sample_ms;
    next_minute = e.start_ms - e.start_ms % 60000 + 60000;
    for (;;) {
        int64_t t = e.end_ms, c;
        int reported = 0;

        if (need_step) {
            /* step, then let the data plane catch up until nothing new is reported */
            for (int guard = 0; guard < 8; guard++) {
                sc_world_step(e.w, e.now_ms);
                e.epoch++;
                if (!sync_instances(&e))
                    break;
            }
            /* the scenario's hook handlers answer the actions now due, then the world moves */
            for (int guard = 0; e.has_handlers && guard < 8 && hook_handlers(&e) > 0; guard++) {
                sc_world_step(e.w, e.now_ms);
                e.epoch++;
                sync_instances(&e);
            }
            sync_routes(&e);
            push_activities(&e);
            push_alarm_changes(&e);
            push_decisions(&e);
            push_forecasts(&e);
            need_step = 0;
        }
        if (e.now_ms >= next_sample) {
            emit_sample(&e, e.sample_ms, cfg->checker);
            next_sample += e.sample_ms;
        }
        if (e.now_ms >= e.end_ms) {
            int64_t last = next_sample - e.sample_ms;
            if (e.now_ms > last) /* a last, shorter sample */
                emit_sample(&e, e.now_ms - last, cfg->checker);
            break;
        }

        /* the world's next due instant changes only with what the engine does to it */
        if (due_epoch != e.epoch + 1 || world_due <= e.now_ms) {
            world_due = sc_world_next_due_ms(e.w, e.now_ms);
            due_epoch = e.epoch + 1;
        }
        if (world_due < t)
            t = world_due;
        if (next_sample < t)
            t = next_sample;
        if (next_minute < t)
            t = next_minute;
        if (e.has_handlers && e.hook_next_ms > e.now_ms && e.hook_next_ms < t)
            t = e.hook_next_ms;
        for (int lb = 0; lb < sc->nlbs; lb++)
            if (e.lbs[lb].hc_next_ms < t)
                t = e.lbs[lb].hc_next_ms;
        for (int tg = 0; tg < sc->ntgs; tg++)
            if (e.tgs[tg].hc_next_ms < t)
                t = e.tgs[tg].hc_next_ms;
        for (int i = 0; i < sc->nfaults; i++) {
            struct fault_track *ft = &e.faults[i];
            int64_t fs = e.start_ms + ft->f->at_ms;
            if (!ft->started && fs < t)
                t = fs;
            if (ft->started && !ft->ended && ft->f->for_ms > 0 && fs + ft->f->for_ms < t)
                t = fs + ft->f->for_ms;
        }
        for (int g = 0; g < sc->ngroups; g++)
            if (sc->groups[g].refresh.has && !e.groups[g].refresh_started &&
                e.start_ms + sc->groups[g].refresh.at_ms < t)
                t = e.start_ms + sc->groups[g].refresh.at_ms;
        if (launch_next_ms(&e) < t)
            t = launch_next_ms(&e);
        c = sim_model_next_control_us(e.model);
        if (c != INT64_MAX) {
            int64_t cm = (c + 999) / 1000;
            if (cm < t)
                t = cm;
        }
        if (t <= e.now_ms)
            t = e.now_ms + 1; /* never stall */
        if (t > e.end_ms)
            t = e.end_ms;

        sim_model_advance(e.model, us(t));
        e.now_ms = t;

        /* EC2 and the model were in step after the last world step; only a boot that
         * ended (a control instant) can make them differ now */
        if (c <= us(t))
            e.sync_force = 1;
        if (sync_instances(&e))
            reported = 1;
        for (int i = 0; i < sc->nfaults; i++) {
            struct fault_track *ft = &e.faults[i];
            int64_t fs = e.start_ms + ft->f->at_ms;
            if (!ft->started && fs <= e.now_ms) {
                fault_start(&e, ft);
                reported = 1;
            }
            if (ft->started && !ft->ended && ft->f->for_ms > 0 && fs + ft->f->for_ms <= e.now_ms) {
                fault_end(&e, ft);
                reported = 1;
            }
        }
        for (int g = 0; g < sc->ngroups; g++)
            if (sc->groups[g].refresh.has && !e.groups[g].refresh_started &&
                e.start_ms + sc->groups[g].refresh.at_ms <= e.now_ms) {
                start_refresh(&e, res, g);
                reported = 1;
            }
        /* in time order, the file's order at one time */
        while (launch_next_ms(&e) <= e.now_ms) {
            int64_t due = launch_next_ms(&e);

            for (int g = 0; g < sc->ngroups; g++)
                for (int k = 0; k < sc->groups[g].nlaunches; k++)
                    if (!e.groups[g].launch_made[k] &&
                        e.start_ms + sc->groups[g].launches[k].at_ms == due)
                        launch_call(&e, g, k);
            reported = 1;
        }
        if (e.now_ms >= next_minute) {
            metrics_minute(&e);
            next_minute += 60000;
            reported = 1;
        }
        for (int lb = 0; lb < sc->nlbs; lb++) {
            if (e.lbs[lb].hc_next_ms <= e.now_ms) {
                /* a round that reported nothing leaves the world as it was: no step */
                if (health_checks(&e, lb))
                    reported = 1;
                e.lbs[lb].hc_next_ms += e.lbs[lb].hc_interval_ms;
            }
        }
        for (int tg = 0; tg < sc->ntgs; tg++) {
            if (e.tgs[tg].hc_next_ms <= e.now_ms) {
                if (alb_health_checks(&e, tg))
                    reported = 1;
                e.tgs[tg].hc_next_ms += e.tgs[tg].hc_interval_ms;
            }
        }
        if (reported || e.now_ms >= world_due || (e.has_handlers && e.now_ms >= e.hook_next_ms))
            need_step = 1;
        if (reported)
            sync_routes(&e);
    }
    push_unfinished(&e);

    res->mode = e.mode;
    res->start_ms = e.start_ms;
    res->end_ms = e.end_ms;
    for (int lb = 0; lb < sc->nlbs; lb++) {
        struct sim_lb_counters c;
        sim_model_lb_counters(e.model, lb, &c);
        res->arrived += c.arrived;
        res->completed += c.completed;
        res->failed += c.failed;
    }
    for (int r = sc->nlbs; r < sc->nlbs + sc->ntgs + e.nanswers; r++) {
        struct sim_lb_counters c;
        sim_model_lb_counters(e.model, r, &c);
        res->arrived += c.arrived;
        res->completed += c.completed;
        res->failed += c.failed;
    }
    res->p50_ms = (double)cm_hist_percentile(&e.run_hist, 50) / 1000.0;
    res->p99_ms = (double)cm_hist_percentile(&e.run_hist, 99) / 1000.0;
    res->ngroups = sc->ngroups;
    {
        const struct sim_sample *last = sim_timeline_last_sample(e.tl);
        for (int g = 0; last && g < sc->ngroups; g++) {
            res->final_desired[g] = last->groups[g].desired;
            res->final_in_service[g] = last->groups[g].in_service;
        }
    }
    if (tl_out)
        *tl_out = e.tl;
    else
        sim_timeline_destroy(e.tl);
    eng_cleanup(&e);
    return 0;
}
