/* loadgen/scenario.c: see scenario.h. */
#include "loadgen/scenario.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/base64.h"
#include "common/buf.h"
#include "common/tz.h"
#include "common/xalloc.h"
#include "loadgen/scn_run.h"
#include "scaler/alarm_composite.h"
#include "scaler/app.h"
#include "scaler/asg_sched.h"
#include "scaler/elbv2.h"

static struct scn_call *call_add(struct scn_call **v, int *n, enum aws_service svc,
                                 const char *action)
{
    struct scn_call *c;

    *v = cm_xrealloc(*v, (size_t)(*n + 1) * sizeof(**v));
    c = &(*v)[(*n)++];
    memset(c, 0, sizeof(*c));
    c->svc = svc;
    c->action = cm_xstrdup(action);
    c->policy = cm_xstrdup("");
    c->ref = cm_xstrdup("");
    aws_params_init(&c->params);
    return c;
}

/* A scenario app as the emulator's instance profile (sc_app_format(): the same keys, so
 * every key reaches the instance), base64 as CreateLaunchConfiguration's UserData is sent.
 * CPUUtilization is the profile's busy-worker model in both worlds; cpu_ms (real CPU
 * burnt per request) stays the scenario's, 0 unless it says otherwise. */
static char *user_data(const struct sc_app *app_in, const struct scn_service *svc)
{
    char json[SC_APP_FORMAT_LEN];
    struct sc_app app = *app_in;
    int n;

    if (svc && svc->scaled) {
        app.time_scaled = 1;
        app.batch = svc->weight;
    }
    n = sc_app_format(&app, json, sizeof(json));

    assert(n > 0); /* SC_APP_FORMAT_LEN holds every profile */
    return cm_base64_encode(json, (size_t)n);
}

/* ref: cm_xasprintf()'d, taken */
static void call_ref(struct scn_call *c, const char *elem, char *ref)
{
    free(c->ref);
    c->ref = ref;
    c->ref_elem = elem;
}

static void add_name(struct aws_params *p, const char *key, const char *prefix, const char *name)
{
    aws_params_addf(p, key, "%s-%s", prefix, name);
}

static void add_zones(struct aws_params *p, char **zones, int n)
{
    aws_params_add_list(p, "AvailabilityZones", 1, (const char *const *)zones, n);
}

static const char *policy_type(enum sim_policy_type t)
{
    return t == SIM_POLICY_STEP         ? "StepScaling"
           : t == SIM_POLICY_TARGET     ? "TargetTrackingScaling"
           : t == SIM_POLICY_PREDICTIVE ? "PredictiveScaling"
                                        : "SimpleScaling";
}

/* predictive: PredictiveScalingConfiguration with one metric pair (the "predictive" key). */
static char *alb_names(const struct sim_scenario *sc, const char *dim, const char *value);

static void plan_predictive(struct aws_params *p, const struct sim_policy *po,
                            const struct sim_scenario *sc)
{
    static const char spec[] = "PredictiveScalingConfiguration.MetricSpecifications.member.1.";

    char k[160];

    snprintf(k, sizeof(k), "%sTargetValue", spec);
    aws_params_addf(p, k, "%.17g", po->target_value);
    snprintf(k, sizeof(k), "%sPredefinedMetricPairSpecification.PredefinedMetricType", spec);
    aws_params_add(p, k, po->predefined_metric);
    if (po->resource_label) {
        char *label = alb_names(sc, NULL, po->resource_label);

        snprintf(k, sizeof(k), "%sPredefinedMetricPairSpecification.ResourceLabel", spec);
        aws_params_add(p, k, label);
        free(label);
    }
    if (po->mode)
        aws_params_add(p, "PredictiveScalingConfiguration.Mode", po->mode);
    if (po->has_buffer_s)
        aws_params_addf(p, "PredictiveScalingConfiguration.SchedulingBufferTime", "%d",
                        po->buffer_s);
    if (po->breach)
        aws_params_add(p, "PredictiveScalingConfiguration.MaxCapacityBreachBehavior", po->breach);
    if (po->has_max_buffer)
        aws_params_addf(p, "PredictiveScalingConfiguration.MaxCapacityBuffer", "%d",
                        po->max_buffer_pct);
}

static void plan_lbs(struct scn_plan *plan, const struct sim_scenario *sc, const char *prefix)
{
    for (int i = 0; i < sc->nlbs; i++) {
        const struct sim_lb *lb = &sc->lbs[i];
        struct scn_call *c = call_add(&plan->setup, &plan->nsetup, AWS_ELB, "CreateLoadBalancer");

        add_name(&c->params, "LoadBalancerName", prefix, lb->name);
        for (int l = 0; l < lb->nlisteners; l++) {
            const struct sim_listener *li = &lb->listeners[l];
            char k[96];

            snprintf(k, sizeof(k), "Listeners.member.%d.Protocol", l + 1);
            aws_params_add(&c->params, k, li->protocol);
            snprintf(k, sizeof(k), "Listeners.member.%d.LoadBalancerPort", l + 1);
            aws_params_addf(&c->params, k, "%d", li->lb_port);
            snprintf(k, sizeof(k), "Listeners.member.%d.InstancePort", l + 1);
            aws_params_addf(&c->params, k, "%d", li->instance_port);
            if (li->instance_protocol) {
                snprintf(k, sizeof(k), "Listeners.member.%d.InstanceProtocol", l + 1);
                aws_params_add(&c->params, k, li->instance_protocol);
            }
        }
        if (lb->nzones)
            add_zones(&c->params, lb->zones, lb->nzones);
        else
            add_zones(&c->params, sc->zones, sc->nzones);
        if (lb->has_health_check) {
            c = call_add(&plan->setup, &plan->nsetup, AWS_ELB, "ConfigureHealthCheck");
            add_name(&c->params, "LoadBalancerName", prefix, lb->name);
            aws_params_add(&c->params, "HealthCheck.Target", lb->health_check.target);
            aws_params_addf(&c->params, "HealthCheck.Interval", "%d", lb->health_check.interval_s);
            aws_params_addf(&c->params, "HealthCheck.Timeout", "%d", lb->health_check.timeout_s);
            aws_params_addf(&c->params, "HealthCheck.UnhealthyThreshold", "%d",
                            lb->health_check.unhealthy_threshold);
            aws_params_addf(&c->params, "HealthCheck.HealthyThreshold", "%d",
                            lb->health_check.healthy_threshold);
        }
        c = call_add(&plan->setup, &plan->nsetup, AWS_ELB, "ModifyLoadBalancerAttributes");
        add_name(&c->params, "LoadBalancerName", prefix, lb->name);
        aws_params_add(&c->params, "LoadBalancerAttributes.CrossZoneLoadBalancing.Enabled",
                       lb->cross_zone ? "true" : "false");
        aws_params_add(&c->params, "LoadBalancerAttributes.ConnectionDraining.Enabled",
                       lb->draining ? "true" : "false");
        if (lb->draining)
            aws_params_addf(&c->params, "LoadBalancerAttributes.ConnectionDraining.Timeout", "%d",
                            lb->draining_timeout_s);
    }
}

/* ---- Application Load Balancers (ELBv2, docs/loadgen.md) ---- */

static void addk(struct aws_params *p, const char *base, const char *member, const char *v)
{
    char k[256];

    snprintf(k, sizeof(k), "%s%s", base, member);
    aws_params_add(p, k, v);
}

static void addk_list(struct aws_params *p, const char *base, const char *member, char **v, int n)
{
    char k[256];

    for (int i = 0; i < n; i++) {
        snprintf(k, sizeof(k), "%s%s.member.%d", base, member, i + 1);
        aws_params_add(p, k, v[i]);
    }
}

/* One action as Actions.member.1 (base "Actions.member.1."). */
static void plan_action(struct aws_params *p, const char *base, const struct sim_alb_action *a)
{
    char k[256], v[300];

    if (a->kind == SIM_ALB_FORWARD) {
        addk(p, base, "Type", "forward");
        if (!a->weighted) {
            snprintf(v, sizeof(v), "{tg:%s}", a->forward[0].target_group);
            addk(p, base, "TargetGroupArn", v);
            return;
        }
        for (int i = 0; i < a->nforward; i++) {
            snprintf(k, sizeof(k), "%sForwardConfig.TargetGroups.member.%d.TargetGroupArn", base,
                     i + 1);
            snprintf(v, sizeof(v), "{tg:%s}", a->forward[i].target_group);
            aws_params_add(p, k, v);
            snprintf(k, sizeof(k), "%sForwardConfig.TargetGroups.member.%d.Weight", base, i + 1);
            aws_params_addf(p, k, "%d", a->forward[i].weight);
        }
        return;
    }
    if (a->kind == SIM_ALB_FIXED_RESPONSE) {
        addk(p, base, "Type", "fixed-response");
        addk(p, base, "FixedResponseConfig.StatusCode", a->status);
        if (a->content_type)
            addk(p, base, "FixedResponseConfig.ContentType", a->content_type);
        if (a->body)
            addk(p, base, "FixedResponseConfig.MessageBody", a->body);
        return;
    }
    addk(p, base, "Type", "redirect");
    addk(p, base, "RedirectConfig.StatusCode", a->status);
    if (a->r_protocol)
        addk(p, base, "RedirectConfig.Protocol", a->r_protocol);
    if (a->r_port)
        addk(p, base, "RedirectConfig.Port", a->r_port);
    if (a->r_host)
        addk(p, base, "RedirectConfig.Host", a->r_host);
    if (a->r_path)
        addk(p, base, "RedirectConfig.Path", a->r_path);
    if (a->r_query)
        addk(p, base, "RedirectConfig.Query", a->r_query);
}

/* A rule's conditions as Conditions.member.N (AWS's *Config members). */
static void plan_conditions(struct aws_params *p, const struct sim_alb_rule *ru)
{
    static const char *const cfg[] = { "PathPatternConfig", "HostHeaderConfig",
                                       "HttpHeaderConfig",  "HttpRequestMethodConfig",
                                       "QueryStringConfig", "SourceIpConfig" };

    for (int i = 0; i < ru->nconditions; i++) {
        const struct sim_alb_condition *co = &ru->conditions[i];
        char base[128], k[256];

        snprintf(base, sizeof(base), "Conditions.member.%d.", i + 1);
        addk(p, base, "Field", sc_elbv2_field_name((enum sc_elbv2_field)co->field));
        snprintf(base, sizeof(base), "Conditions.member.%d.%s.", i + 1, cfg[co->field]);
        if (co->field == SC_ELBV2_HTTP_HEADER)
            addk(p, base, "HttpHeaderName", co->header_name);
        if (co->field != SC_ELBV2_QUERY_STRING) {
            addk_list(p, base, "Values", co->values, co->nvalues);
            continue;
        }
        for (int v = 0; v < co->nvalues; v++) {
            if (co->query_keys[v]) {
                snprintf(k, sizeof(k), "%sValues.member.%d.Key", base, v + 1);
                aws_params_add(p, k, co->query_keys[v]);
            }
            snprintf(k, sizeof(k), "%sValues.member.%d.Value", base, v + 1);
            aws_params_add(p, k, co->values[v]);
        }
    }
}

/* target_groups: CreateTargetGroup in the default VPC, then ModifyTargetGroupAttributes for
 * the attributes given; albs: CreateLoadBalancer (Type application, each zone's default
 * subnet), CreateListener per listener, CreateRule per rule. */
static void plan_albs(struct scn_plan *plan, const struct sim_scenario *sc, const char *prefix)
{
    for (int i = 0; i < sc->ntgs; i++) {
        const struct sim_tg *tg = &sc->tgs[i];
        struct scn_call *c = call_add(&plan->setup, &plan->nsetup, AWS_ELBV2, "CreateTargetGroup");
        struct aws_params *p = &c->params;
        int na = 0;

        call_ref(c, "TargetGroupArn", cm_xasprintf("tg:%s", tg->name));
        add_name(p, "Name", prefix, tg->name);
        aws_params_add(p, "Protocol", tg->protocol ? tg->protocol : "HTTP");
        aws_params_addf(p, "Port", "%d", tg->port);
        aws_params_add(p, "VpcId", "{vpc:default}");
        aws_params_add(p, "TargetType", "instance");
        if (tg->hc_protocol)
            aws_params_add(p, "HealthCheckProtocol", tg->hc_protocol);
        if (tg->hc_port)
            aws_params_add(p, "HealthCheckPort", tg->hc_port);
        if (tg->hc_path)
            aws_params_add(p, "HealthCheckPath", tg->hc_path);
        if (tg->hc_matcher)
            aws_params_add(p, "Matcher.HttpCode", tg->hc_matcher);
        if (tg->has_interval)
            aws_params_addf(p, "HealthCheckIntervalSeconds", "%d", tg->interval_s);
        if (tg->has_timeout)
            aws_params_addf(p, "HealthCheckTimeoutSeconds", "%d", tg->timeout_s);
        if (tg->has_healthy)
            aws_params_addf(p, "HealthyThresholdCount", "%d", tg->healthy_threshold);
        if (tg->has_unhealthy)
            aws_params_addf(p, "UnhealthyThresholdCount", "%d", tg->unhealthy_threshold);
        if (!tg->has_deregistration_delay && !tg->has_slow_start && !tg->algorithm)
            continue;
        c = call_add(&plan->setup, &plan->nsetup, AWS_ELBV2, "ModifyTargetGroupAttributes");
        p = &c->params;
        aws_params_addf(p, "TargetGroupArn", "{tg:%s}", tg->name);
        if (tg->has_deregistration_delay) {
            aws_params_addf(p, "Attributes.member.1.Key", "deregistration_delay.timeout_seconds");
            aws_params_addf(p, "Attributes.member.1.Value", "%d", tg->deregistration_delay_s);
            na = 1;
        }
        if (tg->has_slow_start) {
            char k[64];

            snprintf(k, sizeof(k), "Attributes.member.%d.Key", ++na);
            aws_params_add(p, k, "slow_start.duration_seconds");
            snprintf(k, sizeof(k), "Attributes.member.%d.Value", na);
            aws_params_addf(p, k, "%d", tg->slow_start_s);
        }
        if (tg->algorithm) {
            char k[64];

            snprintf(k, sizeof(k), "Attributes.member.%d.Key", ++na);
            aws_params_add(p, k, "load_balancing.algorithm.type");
            snprintf(k, sizeof(k), "Attributes.member.%d.Value", na);
            aws_params_add(p, k, tg->algorithm);
        }
    }
    for (int i = 0; i < sc->nalbs; i++) {
        const struct sim_alb *b = &sc->albs[i];
        struct scn_call *c = call_add(&plan->setup, &plan->nsetup, AWS_ELBV2, "CreateLoadBalancer");
        char **zones = b->nzones ? b->zones : sc->zones;
        int nz = b->nzones ? b->nzones : sc->nzones;

        call_ref(c, "LoadBalancerArn", cm_xasprintf("alb:%s", b->name));
        add_name(&c->params, "Name", prefix, b->name);
        aws_params_add(&c->params, "Type", "application");
        for (int z = 0; z < nz; z++) {
            char k[64];

            snprintf(k, sizeof(k), "Subnets.member.%d", z + 1);
            aws_params_addf(&c->params, k, "{subnet:%s}", zones[z]);
        }
        for (int l = 0; l < b->nlisteners; l++) {
            const struct sim_alb_listener *li = &b->listeners[l];

            c = call_add(&plan->setup, &plan->nsetup, AWS_ELBV2, "CreateListener");
            call_ref(c, "ListenerArn", cm_xasprintf("listener:%s:%d", b->name, li->port));
            aws_params_addf(&c->params, "LoadBalancerArn", "{alb:%s}", b->name);
            aws_params_add(&c->params, "Protocol", li->protocol ? li->protocol : "HTTP");
            aws_params_addf(&c->params, "Port", "%d", li->port);
            plan_action(&c->params, "DefaultActions.member.1.", &li->default_action);
            for (int k = 0; k < li->nrules; k++) {
                const struct sim_alb_rule *ru = &li->rules[k];

                c = call_add(&plan->setup, &plan->nsetup, AWS_ELBV2, "CreateRule");
                call_ref(c, "RuleArn",
                         cm_xasprintf("rule:%s:%d:%d", b->name, li->port, ru->priority));
                aws_params_addf(&c->params, "ListenerArn", "{listener:%s:%d}", b->name, li->port);
                aws_params_addf(&c->params, "Priority", "%d", ru->priority);
                plan_conditions(&c->params, ru);
                plan_action(&c->params, "Actions.member.1.", &ru->action);
            }
        }
    }
}

/* One PutScheduledUpdateGroupAction of a scheduled action's runs: StartTime "{at:MS}"
 * (the emulated time MS after the scenario's start), EndTime too for a one-time action that
 * has one, the sizes as given. */
static void sched_call(struct scn_plan *plan, const struct sim_group *g, const struct sim_sched *s,
                       const char *name, int64_t at_ms, const char *prefix)
{
    struct scn_call *c =
        call_add(&plan->setup, &plan->nsetup, AWS_AUTOSCALING, "PutScheduledUpdateGroupAction");

    add_name(&c->params, "AutoScalingGroupName", prefix, g->name);
    aws_params_add(&c->params, "ScheduledActionName", name);
    aws_params_addf(&c->params, "StartTime", "{at:%lld}", (long long)at_ms);
    if (s->has_until && !s->recurrence)
        aws_params_addf(&c->params, "EndTime", "{at:%lld}", (long long)s->until_ms);
    if (s->has_min)
        aws_params_addf(&c->params, "MinSize", "%d", s->min);
    if (s->has_max)
        aws_params_addf(&c->params, "MaxSize", "%d", s->max);
    if (s->has_desired)
        aws_params_addf(&c->params, "DesiredCapacity", "%d", s->desired);
}

/* scheduled_actions (docs/loadgen.md, Auto Scaling): a one-time action at its time; a
 * recurrence read in its TimeZone on the scenario's clock (as the simulator reads it) and
 * played as one-time actions at its runs within the scenario, named NAME-1, NAME-2, ...,
 * since the endpoint's clock is not the scenario's: the runs fall at the same scenario
 * times in both worlds. At most SC_ASG_MAX_SCHEDULED_ACTIONS per group. */
static int plan_scheds(struct scn_plan *plan, const struct sim_scenario *sc,
                       const struct sim_group *g, const char *prefix, char *err, size_t n)
{
    int count = 0;

    for (int k = 0; k < g->nscheds; k++) {
        const struct sim_sched *s = &g->scheds[k];
        int64_t end = sc->duration_ms, t;
        int runs = 0;
        char name[300];

        if (!s->recurrence) {
            if (++count > SC_ASG_MAX_SCHEDULED_ACTIONS)
                goto too_many;
            sched_call(plan, g, s, s->name, s->at_ms, prefix);
            continue;
        }
        if (s->has_until && s->until_ms < end)
            end = s->until_ms;
        if (s->has_at) {
            t = s->at_ms; /* StartTime is the first run (libscaler's asg_sched) */
        } else {
            t = sc_asg_recurrence_next(s->recurrence, sc->start_ms, cm_tz_offset, NULL,
                                       s->time_zone);
            t = t < 0 ? -1 : t - sc->start_ms;
        }
        while (t >= 0 && t <= end) {
            if (++count > SC_ASG_MAX_SCHEDULED_ACTIONS)
                goto too_many;
            snprintf(name, sizeof(name), "%s-%d", s->name, ++runs);
            sched_call(plan, g, s, name, t, prefix);
            t = sc_asg_recurrence_next(s->recurrence, sc->start_ms + t, cm_tz_offset, NULL,
                                       s->time_zone);
            t = t < 0 ? -1 : t - sc->start_ms;
        }
    }
    return 0;
too_many:
    snprintf(err, n,
             "%s.scheduled_actions: more than %d runs within the scenario (each is a one-time "
             "action on the endpoint, at most %d per group)",
             g->path, SC_ASG_MAX_SCHEDULED_ACTIONS, SC_ASG_MAX_SCHEDULED_ACTIONS);
    return -1;
}

/* instance_refresh at its time: UpdateAutoScalingGroup to its launch configuration (when it
 * names one), then StartInstanceRefresh with its preferences, as the simulator does. */
static void plan_refresh(struct scn_plan *plan, const struct sim_group *g, const char *prefix)
{
    const struct sim_refresh *r = &g->refresh;
    struct scn_call *c;

    if (r->launch_configuration) {
        c = call_add(&plan->timed, &plan->ntimed, AWS_AUTOSCALING, "UpdateAutoScalingGroup");
        c->at_ms = r->at_ms;
        add_name(&c->params, "AutoScalingGroupName", prefix, g->name);
        add_name(&c->params, "LaunchConfigurationName", prefix, r->launch_configuration);
    }
    c = call_add(&plan->timed, &plan->ntimed, AWS_AUTOSCALING, "StartInstanceRefresh");
    c->at_ms = r->at_ms;
    add_name(&c->params, "AutoScalingGroupName", prefix, g->name);
    if (r->has_min)
        aws_params_addf(&c->params, "Preferences.MinHealthyPercentage", "%d",
                        r->min_healthy_percentage);
    if (r->has_max)
        aws_params_addf(&c->params, "Preferences.MaxHealthyPercentage", "%d",
                        r->max_healthy_percentage);
    if (r->has_warmup)
        aws_params_addf(&c->params, "Preferences.InstanceWarmup", "%d", r->instance_warmup_s);
    for (int k = 0; k < r->ncheckpoints; k++) {
        char key[64];

        snprintf(key, sizeof(key), "Preferences.CheckpointPercentages.member.%d", k + 1);
        aws_params_addf(&c->params, key, "%d", r->checkpoints[k]);
    }
    if (r->has_delay)
        aws_params_addf(&c->params, "Preferences.CheckpointDelay", "%d", r->checkpoint_delay_s);
}

/* launch_instances: LaunchInstances at each call's time, with the ClientToken the simulator
 * sends behind the run's prefix (sim_launch_token): a token lives 8 hours, so a second run
 * against the same endpoint must not meet the first one's. */
static void plan_launches(struct scn_plan *plan, const struct sim_scenario *sc, int gi,
                          const char *prefix)
{
    const struct sim_group *g = &sc->groups[gi];

    for (int k = 0; k < g->nlaunches; k++) {
        const struct sim_launch *l = &g->launches[k];
        struct scn_call *c =
            call_add(&plan->timed, &plan->ntimed, AWS_AUTOSCALING, "LaunchInstances");
        char token[SIM_PATH_MAX];

        c->at_ms = l->at_ms;
        c->launch_gi = gi;
        c->launch = k + 1;
        sim_launch_token(sc, gi, k, prefix, token, sizeof(token));
        add_name(&c->params, "AutoScalingGroupName", prefix, g->name);
        aws_params_addf(&c->params, "RequestedCapacity", "%d", l->requested_capacity);
        aws_params_add(&c->params, "ClientToken", token);
        if (l->zone)
            aws_params_add(&c->params, "AvailabilityZones.member.1", l->zone);
        if (l->retry_strategy)
            aws_params_add(&c->params, "RetryStrategy", l->retry_strategy);
    }
}

static int plan_groups(struct scn_plan *plan, const struct sim_scenario *sc, const char *prefix,
                       const struct scn_service *svc, char *err, size_t n)
{
    for (int i = 0; i < sc->nlcs; i++) {
        const struct sim_launch_config *lc = &sc->lcs[i];
        struct scn_call *c;
        char *ud = user_data(&lc->app, svc);

        if (lc->template) { /* launch_templates: CreateLaunchTemplate, version 1 */
            c = call_add(&plan->setup, &plan->nsetup, AWS_EC2, "CreateLaunchTemplate");
            add_name(&c->params, "LaunchTemplateName", prefix, lc->name);
            aws_params_add(&c->params, "LaunchTemplateData.ImageId", lc->image_id);
            aws_params_add(&c->params, "LaunchTemplateData.InstanceType", lc->instance_type);
            aws_params_add(&c->params, "LaunchTemplateData.UserData", ud);
            free(ud);
            continue;
        }
        c = call_add(&plan->setup, &plan->nsetup, AWS_AUTOSCALING, "CreateLaunchConfiguration");
        add_name(&c->params, "LaunchConfigurationName", prefix, lc->name);
        aws_params_add(&c->params, "ImageId", lc->image_id);
        aws_params_add(&c->params, "InstanceType", lc->instance_type);
        aws_params_add(&c->params, "UserData", ud);
        free(ud);
    }
    for (int i = 0; i < sc->ngroups; i++) {
        const struct sim_group *g = &sc->groups[i];
        struct scn_call *c =
            call_add(&plan->setup, &plan->nsetup, AWS_AUTOSCALING, "CreateAutoScalingGroup");

        add_name(&c->params, "AutoScalingGroupName", prefix, g->name);
        if (g->launch_template)
            add_name(&c->params, "LaunchTemplate.LaunchTemplateName", prefix, g->launch_template);
        else
            add_name(&c->params, "LaunchConfigurationName", prefix, g->launch_configuration);
        aws_params_addf(&c->params, "MinSize", "%d", g->min);
        aws_params_addf(&c->params, "MaxSize", "%d", g->max);
        if (g->has_desired)
            aws_params_addf(&c->params, "DesiredCapacity", "%d", g->desired);
        if (g->nzones) {
            add_zones(&c->params, g->zones, g->nzones);
        } else {
            int lbi = g->nload_balancers ? sim_scenario_lb_index(sc, g->load_balancers[0]) : -1;

            if (lbi >= 0 && sc->lbs[lbi].nzones)
                add_zones(&c->params, sc->lbs[lbi].zones, sc->lbs[lbi].nzones);
            else
                add_zones(&c->params, sc->zones, sc->nzones);
        }
        for (int l = 0; l < g->nload_balancers; l++) {
            char k[64];

            snprintf(k, sizeof(k), "LoadBalancerNames.member.%d", l + 1);
            add_name(&c->params, k, prefix, g->load_balancers[l]);
        }
        for (int t = 0; t < g->ntarget_groups; t++) {
            char k[64];

            snprintf(k, sizeof(k), "TargetGroupARNs.member.%d", t + 1);
            aws_params_addf(&c->params, k, "{tg:%s}", g->target_groups[t]);
        }
        aws_params_addf(&c->params, "DefaultCooldown", "%d", g->default_cooldown_s);
        aws_params_add(&c->params, "HealthCheckType",
                       g->health_check_type ? g->health_check_type : "EC2");
        aws_params_addf(&c->params, "HealthCheckGracePeriod", "%d", g->health_check_grace_period_s);
        aws_params_add_list(&c->params, "TerminationPolicies", 1,
                            (const char *const *)g->termination_policies, g->ntermination_policies);
        if (g->new_instances_protected_from_scale_in)
            aws_params_add(&c->params, "NewInstancesProtectedFromScaleIn", "true");
        if (g->has_max_instance_lifetime)
            aws_params_addf(&c->params, "MaxInstanceLifetime", "%d", g->max_instance_lifetime_s);
        for (int h = 0; h < g->nhooks; h++) {
            const struct sim_hook *hk = &g->hooks[h];
            char k[96];

            snprintf(k, sizeof(k), "LifecycleHookSpecificationList.member.%d.LifecycleHookName",
                     h + 1);
            aws_params_add(&c->params, k, hk->name);
            snprintf(k, sizeof(k), "LifecycleHookSpecificationList.member.%d.LifecycleTransition",
                     h + 1);
            aws_params_add(&c->params, k,
                           hk->launching ? "autoscaling:EC2_INSTANCE_LAUNCHING"
                                         : "autoscaling:EC2_INSTANCE_TERMINATING");
            snprintf(k, sizeof(k), "LifecycleHookSpecificationList.member.%d.HeartbeatTimeout",
                     h + 1);
            aws_params_addf(&c->params, k, "%d", hk->heartbeat_s);
            snprintf(k, sizeof(k), "LifecycleHookSpecificationList.member.%d.DefaultResult", h + 1);
            aws_params_add(&c->params, k, hk->default_result);
        }
        if (g->warm) { /* warm_pool (docs/scenarios.md): PutWarmPool once the group is made */
            c = call_add(&plan->setup, &plan->nsetup, AWS_AUTOSCALING, "PutWarmPool");
            add_name(&c->params, "AutoScalingGroupName", prefix, g->name);
            aws_params_addf(&c->params, "MinSize", "%d", g->warm->min_size);
            if (g->warm->has_max_group_prepared_capacity)
                aws_params_addf(&c->params, "MaxGroupPreparedCapacity", "%d",
                                g->warm->max_group_prepared_capacity);
            aws_params_add(&c->params, "PoolState", g->warm->pool_state);
            aws_params_add(&c->params, "InstanceReusePolicy.ReuseOnScaleIn",
                           g->warm->reuse_on_scale_in ? "true" : "false");
        }
        /* notifications (docs/scenarios.md): PutNotificationConfiguration once the group is
         * made; the emulator's event stream then carries them */
        for (int k = 0; k < g->nnotifications; k++) {
            const struct sim_notify *nf = &g->notifications[k];

            c = call_add(&plan->setup, &plan->nsetup, AWS_AUTOSCALING,
                         "PutNotificationConfiguration");
            add_name(&c->params, "AutoScalingGroupName", prefix, g->name);
            aws_params_add(&c->params, "TopicARN", nf->topic_arn);
            aws_params_add_list(&c->params, "NotificationTypes", 1, (const char *const *)nf->types,
                                nf->ntypes);
        }
        if (plan_scheds(plan, sc, g, prefix, err, n) != 0)
            return -1;
        if (g->refresh.has)
            plan_refresh(plan, g, prefix);
        plan_launches(plan, sc, i, prefix);
    }
    return 0;
}

/* A dimension value naming one of the scenario's own resources follows its prefix. */
static void add_dimension_value(struct aws_params *p, const char *key, const char *prefix,
                                const char *name, const char *value)
{
    if (strcmp(name, "AutoScalingGroupName") == 0 || strcmp(name, "LoadBalancerName") == 0)
        add_name(p, key, prefix, value);
    else
        aws_params_add(p, key, value);
}

/* An ALB's or target group's name as the scenario writes it ("app/front", "targetgroup/api-tg",
 * the label "app/front/targetgroup/api-tg", naming its own ALBs and target groups) gets the
 * "{lbdim:..}" / "{tgdim:..}" placeholders the run fills in with the ids; anything else
 * (AWS's full form) is returned as is. Returns a cm_xasprintf()'d string. */
static char *alb_names(const struct sim_scenario *sc, const char *dim, const char *value)
{
    char lb[64], tg[64];
    int n = 0;

    if (!value)
        return NULL;
    if ((!dim || strcmp(dim, "ALB") == 0) &&
        sscanf(value, "app/%63[^/]/targetgroup/%63[^/]%n", lb, tg, &n) == 2 && !value[n] &&
        sim_scenario_alb_index(sc, lb) >= 0 && sim_scenario_tg_index(sc, tg) >= 0)
        return cm_xasprintf("{lbdim:%s}/{tgdim:%s}", lb, tg);
    n = 0;
    if (dim && strcmp(dim, "LoadBalancer") == 0 && sscanf(value, "app/%63[^/]%n", lb, &n) == 1 &&
        !value[n] && sim_scenario_alb_index(sc, lb) >= 0)
        return cm_xasprintf("{lbdim:%s}", lb);
    n = 0;
    if (dim && strcmp(dim, "TargetGroup") == 0 &&
        sscanf(value, "targetgroup/%63[^/]%n", tg, &n) == 1 && !value[n] &&
        sim_scenario_tg_index(sc, tg) >= 0)
        return cm_xasprintf("{tgdim:%s}", tg);
    return cm_xstrdup(value);
}

/* target.metrics: TargetTrackingConfiguration.CustomizedMetricSpecification.Metrics, the
 * query protocol's member names of TargetTrackingMetricDataQuery (botocore's model). */
static void plan_target_metrics(struct aws_params *p, const struct sim_policy *po,
                                const char *prefix)
{
    static const char base[] = "TargetTrackingConfiguration.CustomizedMetricSpecification."
                               "Metrics.member";
    char k[256];

    for (int m = 0; m < po->nmetrics; m++) {
        const struct sc_alarm_query *q = &po->metrics[m];
        const struct sc_metric_key *mk = &q->metric;

        snprintf(k, sizeof(k), "%s.%d.Id", base, m + 1);
        aws_params_add(p, k, q->id);
        if (q->expression) {
            snprintf(k, sizeof(k), "%s.%d.Expression", base, m + 1);
            aws_params_add(p, k, q->expression);
        }
        if (q->label) {
            snprintf(k, sizeof(k), "%s.%d.Label", base, m + 1);
            aws_params_add(p, k, q->label);
        }
        if (q->has_return_data) {
            snprintf(k, sizeof(k), "%s.%d.ReturnData", base, m + 1);
            aws_params_add(p, k, q->return_data ? "true" : "false");
        }
        if (q->period > 0) {
            snprintf(k, sizeof(k), "%s.%d.Period", base, m + 1);
            aws_params_addf(p, k, "%d", q->period);
        }
        if (!q->has_metric_stat)
            continue;
        snprintf(k, sizeof(k), "%s.%d.MetricStat.Metric.Namespace", base, m + 1);
        aws_params_add(p, k, mk->namespace);
        snprintf(k, sizeof(k), "%s.%d.MetricStat.Metric.MetricName", base, m + 1);
        aws_params_add(p, k, mk->metric_name);
        for (int d = 0; d < mk->n_dimensions; d++) {
            snprintf(k, sizeof(k), "%s.%d.MetricStat.Metric.Dimensions.member.%d.Name", base, m + 1,
                     d + 1);
            aws_params_add(p, k, mk->dimensions[d].name);
            snprintf(k, sizeof(k), "%s.%d.MetricStat.Metric.Dimensions.member.%d.Value", base,
                     m + 1, d + 1);
            add_dimension_value(p, k, prefix, mk->dimensions[d].name, mk->dimensions[d].value);
        }
        snprintf(k, sizeof(k), "%s.%d.MetricStat.Stat", base, m + 1);
        aws_params_add(p, k, q->stat);
        if (q->unit) {
            snprintf(k, sizeof(k), "%s.%d.MetricStat.Unit", base, m + 1);
            aws_params_add(p, k, q->unit);
        }
        if (q->has_stat_period) {
            snprintf(k, sizeof(k), "%s.%d.MetricStat.Period", base, m + 1);
            aws_params_addf(p, k, "%d", q->stat_period);
        }
    }
}

static void plan_policies(struct scn_plan *plan, const struct sim_scenario *sc, const char *prefix)
{
    for (int i = 0; i < sc->npolicies; i++) {
        const struct sim_policy *po = &sc->policies[i];
        struct scn_call *c =
            call_add(&plan->setup, &plan->nsetup, AWS_AUTOSCALING, "PutScalingPolicy");
        struct aws_params *p = &c->params;

        free(c->policy);
        c->policy = cm_xstrdup(po->name);
        add_name(p, "AutoScalingGroupName", prefix, po->group);
        aws_params_add(p, "PolicyName", po->name);
        aws_params_add(p, "PolicyType", policy_type(po->type));
        if (po->type != SIM_POLICY_TARGET && po->adjustment_type)
            aws_params_add(p, "AdjustmentType", po->adjustment_type);
        if (po->type == SIM_POLICY_SIMPLE) {
            aws_params_addf(p, "ScalingAdjustment", "%d", po->adjustment);
            if (po->has_cooldown)
                aws_params_addf(p, "Cooldown", "%d", po->cooldown_s);
        }
        if (po->has_min_adjustment_magnitude)
            aws_params_addf(p, "MinAdjustmentMagnitude", "%d", po->min_adjustment_magnitude);
        if (po->type == SIM_POLICY_STEP) {
            for (int s = 0; s < po->nsteps; s++) {
                char k[96];

                if (po->steps[s].has_lower) {
                    snprintf(k, sizeof(k), "StepAdjustments.member.%d.MetricIntervalLowerBound",
                             s + 1);
                    aws_params_addf(p, k, "%.17g", po->steps[s].lower);
                }
                if (po->steps[s].has_upper) {
                    snprintf(k, sizeof(k), "StepAdjustments.member.%d.MetricIntervalUpperBound",
                             s + 1);
                    aws_params_addf(p, k, "%.17g", po->steps[s].upper);
                }
                snprintf(k, sizeof(k), "StepAdjustments.member.%d.ScalingAdjustment", s + 1);
                aws_params_addf(p, k, "%d", po->steps[s].adjustment);
            }
            if (po->metric_aggregation_type)
                aws_params_add(p, "MetricAggregationType", po->metric_aggregation_type);
        }
        if (po->type != SIM_POLICY_SIMPLE && po->has_warmup)
            aws_params_addf(p, "EstimatedInstanceWarmup", "%d", po->estimated_instance_warmup_s);
        if (po->type == SIM_POLICY_PREDICTIVE)
            plan_predictive(p, po, sc);
        if (po->type == SIM_POLICY_TARGET && po->nmetrics > 0) {
            plan_target_metrics(p, po, prefix);
        } else if (po->type == SIM_POLICY_TARGET) {
            aws_params_add(p,
                           "TargetTrackingConfiguration.PredefinedMetricSpecification."
                           "PredefinedMetricType",
                           po->predefined_metric);
        }
        if (po->type == SIM_POLICY_TARGET) {
            if (po->resource_label && po->nmetrics == 0) {
                char *label = alb_names(sc, NULL, po->resource_label);

                aws_params_add(p,
                               "TargetTrackingConfiguration.PredefinedMetricSpecification."
                               "ResourceLabel",
                               label);
                free(label);
            }
            aws_params_addf(p, "TargetTrackingConfiguration.TargetValue", "%.17g",
                            po->target_value);
            if (po->disable_scale_in)
                aws_params_add(p, "TargetTrackingConfiguration.DisableScaleIn", "true");
        }
    }
}

/* LIST.member.N = "{arn:POLICY}" for each policy name (the PutScalingPolicy reply's
 * PolicyARN when run). */
static void add_policy_arns(struct aws_params *p, const char *list, char *const *policies, int n)
{
    for (int i = 0; i < n; i++) {
        char k[64];

        snprintf(k, sizeof(k), "%s.member.%d", list, i + 1);
        aws_params_addf(p, k, "{arn:%s}", policies[i]);
    }
}

static void plan_alarms(struct scn_plan *plan, const struct sim_scenario *sc, const char *prefix)
{
    for (int i = 0; i < sc->nalarms; i++) {
        const struct sim_alarm *al = &sc->alarms[i];
        struct scn_call *c =
            call_add(&plan->setup, &plan->nsetup, AWS_CLOUDWATCH, "PutMetricAlarm");
        struct aws_params *p = &c->params;

        add_name(p, "AlarmName", prefix, al->name);
        aws_params_add(p, "Namespace", al->namespace_);
        aws_params_add(p, "MetricName", al->metric);
        for (int d = 0; d < al->ndimensions; d++) {
            char k[64];
            const char *dn = al->dimensions[d].name;

            snprintf(k, sizeof(k), "Dimensions.member.%d.Name", d + 1);
            aws_params_add(p, k, dn);
            snprintf(k, sizeof(k), "Dimensions.member.%d.Value", d + 1);
            if (strcmp(dn, "LoadBalancer") == 0 || strcmp(dn, "TargetGroup") == 0) {
                char *v = alb_names(sc, dn, al->dimensions[d].value);

                aws_params_add(p, k, v);
                free(v);
            } else {
                add_dimension_value(p, k, prefix, dn, al->dimensions[d].value);
            }
        }
        if (al->extended_statistic)
            aws_params_add(p, "ExtendedStatistic", al->extended_statistic);
        else
            aws_params_add(p, "Statistic", al->statistic);
        aws_params_addf(p, "Period", "%d", al->period_s);
        aws_params_addf(p, "EvaluationPeriods", "%d", al->evaluation_periods);
        if (al->has_datapoints_to_alarm)
            aws_params_addf(p, "DatapointsToAlarm", "%d", al->datapoints_to_alarm);
        aws_params_add(p, "ComparisonOperator", al->comparison);
        aws_params_addf(p, "Threshold", "%.17g", al->threshold);
        if (al->treat_missing_data)
            aws_params_add(p, "TreatMissingData", al->treat_missing_data);
        add_policy_arns(p, "AlarmActions", al->actions, al->nactions);
        add_policy_arns(p, "OKActions", al->ok_actions, al->nok_actions);
        aws_params_add(p, "ActionsEnabled", al->actions_enabled ? "true" : "false");
    }
}

/* An alarm name of the scenario (a metric alarm or a composite) as the endpoint knows it. */
struct rename_ctx {
    const struct sim_scenario *sc;
    const char *prefix;
    char buf[600];
};

static int scenario_alarm(const struct sim_scenario *sc, const char *name)
{
    for (int i = 0; i < sc->nalarms; i++)
        if (strcmp(sc->alarms[i].name, name) == 0)
            return 1;
    for (int i = 0; i < sc->ncomposites; i++)
        if (strcmp(sc->composites[i].name, name) == 0)
            return 1;
    return 0;
}

/* sc_alarm_rule_rename's fn: a reference to one of the scenario's alarms, by name or by
 * an alarm ARN (its partition, region and account kept as written), gets the runner's
 * prefix; any other reference is left as written (the endpoint answers it). */
static const char *prefixed_ref(const char *ref, void *ud)
{
    struct rename_ctx *x = ud;
    const char *name = ref, *at = strstr(ref, ":alarm:");

    if (strncmp(ref, "arn:", 4) == 0 && at)
        name = at + strlen(":alarm:");
    if (!scenario_alarm(x->sc, name))
        return NULL;
    snprintf(x->buf, sizeof(x->buf), "%.*s%s-%s", (int)(name - ref), ref, x->prefix, name);
    return x->buf;
}

/* infrastructure.composite_alarms, in the file's order (a rule may name a composite put
 * before it), after the metric alarms: PutCompositeAlarm with the rule's references to the
 * scenario's alarms prefixed (renamed through libscaler's AlarmRule parser), the actions as
 * PolicyARNs as the simulator resolves them, ActionsSuppressor (prefixed) and its periods. */
static int plan_composites(struct scn_plan *plan, const struct sim_scenario *sc, const char *prefix,
                           char *err, size_t n)
{
    struct rename_ctx x = { sc, prefix, "" };

    for (int i = 0; i < sc->ncomposites; i++) {
        const struct sim_composite *a = &sc->composites[i];
        char rule[SC_ALARM_RULE_MAX + 1];
        struct sc_error e = { 0 };
        struct scn_call *c;
        struct aws_params *p;

        if (sc_alarm_rule_rename(a->alarm_rule, prefixed_ref, &x, rule, sizeof(rule), &e) !=
            SC_OK) {
            snprintf(err, n, "%s.alarm_rule: %s", a->path, e.message);
            return -1;
        }
        c = call_add(&plan->setup, &plan->nsetup, AWS_CLOUDWATCH, "PutCompositeAlarm");
        p = &c->params;
        add_name(p, "AlarmName", prefix, a->name);
        aws_params_add(p, "AlarmRule", rule);
        add_policy_arns(p, "AlarmActions", a->actions, a->nactions);
        add_policy_arns(p, "OKActions", a->ok_actions, a->nok_actions);
        aws_params_add(p, "ActionsEnabled", a->actions_enabled ? "true" : "false");
        if (a->actions_suppressor) {
            const char *sup = prefixed_ref(a->actions_suppressor, &x);

            aws_params_add(p, "ActionsSuppressor", sup ? sup : a->actions_suppressor);
        }
        if (a->has_wait_period)
            aws_params_addf(p, "ActionsSuppressorWaitPeriod", "%d", a->wait_period_s);
        if (a->has_extension_period)
            aws_params_addf(p, "ActionsSuppressorExtensionPeriod", "%d", a->extension_period_s);
    }
    return 0;
}

static void plan_teardown(struct scn_plan *plan, const struct sim_scenario *sc, const char *prefix)
{
    struct scn_call *c;

    /* composites first, the last put first: AWS refuses to delete an alarm a composite's
     * rule names (a child composite included) */
    for (int i = sc->ncomposites - 1; i >= 0; i--) {
        c = call_add(&plan->teardown, &plan->nteardown, AWS_CLOUDWATCH, "DeleteAlarms");
        add_name(&c->params, "AlarmNames.member.1", prefix, sc->composites[i].name);
    }

    if (sc->nalarms) {
        c = call_add(&plan->teardown, &plan->nteardown, AWS_CLOUDWATCH, "DeleteAlarms");
        for (int i = 0; i < sc->nalarms; i++) {
            char k[64];

            snprintf(k, sizeof(k), "AlarmNames.member.%d", i + 1);
            add_name(&c->params, k, prefix, sc->alarms[i].name);
        }
    }
    /* ForceDelete terminates the instances and deletes the policies with the group */
    for (int i = 0; i < sc->ngroups; i++) {
        c = call_add(&plan->teardown, &plan->nteardown, AWS_AUTOSCALING, "DeleteAutoScalingGroup");
        add_name(&c->params, "AutoScalingGroupName", prefix, sc->groups[i].name);
        aws_params_add(&c->params, "ForceDelete", "true");
    }
    for (int i = 0; i < sc->nlcs; i++) {
        if (sc->lcs[i].template) {
            c = call_add(&plan->teardown, &plan->nteardown, AWS_EC2, "DeleteLaunchTemplate");
            add_name(&c->params, "LaunchTemplateName", prefix, sc->lcs[i].name);
            continue;
        }
        c = call_add(&plan->teardown, &plan->nteardown, AWS_AUTOSCALING,
                     "DeleteLaunchConfiguration");
        add_name(&c->params, "LaunchConfigurationName", prefix, sc->lcs[i].name);
    }
    /* ALBs in reverse: rules, listeners, load balancer; then the target groups */
    for (int i = sc->nalbs - 1; i >= 0; i--) {
        const struct sim_alb *b = &sc->albs[i];

        for (int l = b->nlisteners - 1; l >= 0; l--) {
            const struct sim_alb_listener *li = &b->listeners[l];

            for (int k = li->nrules - 1; k >= 0; k--) {
                c = call_add(&plan->teardown, &plan->nteardown, AWS_ELBV2, "DeleteRule");
                aws_params_addf(&c->params, "RuleArn", "{rule:%s:%d:%d}", b->name, li->port,
                                li->rules[k].priority);
            }
            c = call_add(&plan->teardown, &plan->nteardown, AWS_ELBV2, "DeleteListener");
            aws_params_addf(&c->params, "ListenerArn", "{listener:%s:%d}", b->name, li->port);
        }
        c = call_add(&plan->teardown, &plan->nteardown, AWS_ELBV2, "DeleteLoadBalancer");
        aws_params_addf(&c->params, "LoadBalancerArn", "{alb:%s}", b->name);
    }
    for (int i = sc->ntgs - 1; i >= 0; i--) {
        c = call_add(&plan->teardown, &plan->nteardown, AWS_ELBV2, "DeleteTargetGroup");
        aws_params_addf(&c->params, "TargetGroupArn", "{tg:%s}", sc->tgs[i].name);
    }
    for (int i = 0; i < sc->nlbs; i++) {
        c = call_add(&plan->teardown, &plan->nteardown, AWS_ELB, "DeleteLoadBalancer");
        add_name(&c->params, "LoadBalancerName", prefix, sc->lbs[i].name);
    }
}

void scn_service_choose(const struct sim_scenario *sc, double scale, enum scn_service_mode mode,
                        double batch, struct scn_service *out)
{
    double least = 0;
    int closed = 0;

    out->scaled = 0;
    out->weight = 1;
    for (int i = 0; i < sc->nphases; i++)
        closed |= sc->phases[i].closed;
    if (mode == SCN_SERVICE_REAL || (mode == SCN_SERVICE_AUTO && !(scale > 1 && closed)))
        return;
    out->scaled = 1;
    if (batch > 0) {
        out->weight = batch;
        return;
    }
    for (int i = 0; i < sc->nlcs; i++)
        if (sc->lcs[i].app.service_mean_ms > 0 &&
            (least == 0 || sc->lcs[i].app.service_mean_ms < least))
            least = sc->lcs[i].app.service_mean_ms;
    if (least > 0 && SCN_MIN_REAL_SERVICE_MS * scale / least > 1)
        out->weight = ceil(SCN_MIN_REAL_SERVICE_MS * scale / least);
    for (int i = 0; i < sc->nphases; i++) {
        const struct sim_phase *ph = &sc->phases[i];
        int workers = 0;

        if (!ph->closed || ph->shape != SIM_SHAPE_BURSTS || ph->burst_requests <= 0)
            continue;
        for (int l = 0; l < sc->nlcs; l++)
            if (sc->lcs[l].app.workers > workers)
                workers = sc->lcs[l].app.workers;
        if (workers > 0 && out->weight > 1 &&
            out->weight * SCN_MIN_BURST_ROUNDS * workers > ph->burst_requests)
            out->weight = floor((double)ph->burst_requests / (SCN_MIN_BURST_ROUNDS * workers));
        if (out->weight < 1)
            out->weight = 1;
    }
    if (out->weight > 100000)
        out->weight = 100000;
}

/* Whether path is answered at once by the app of every launch configuration (the
 * instance answers /health and its profile's health_path without queueing). */
static int probe_path_is_instant(const struct sim_scenario *sc, const char *path)
{
    if (strcmp(path, "/health") == 0)
        return 1;
    for (int i = 0; i < sc->nlcs; i++)
        if (strcmp(path, sc->lcs[i].app.health_path) != 0)
            return 0;
    return sc->nlcs > 0;
}

static int probe_warn(const struct sim_scenario *sc, double scale, double service_ms,
                      const char *where, const char *check, const char *path, int timeout_s,
                      FILE *f)
{
    double real_ms = timeout_s * 1000.0 / scale;

    if (probe_path_is_instant(sc, path) || real_ms >= SCN_PROBE_SERVICE_FACTOR * service_ms)
        return 0;
    if (f)
        fprintf(f,
                "loadgen scenario: warning: %s: the health check %s waits for a request's real "
                "service time (mean %.1f ms) but times out after %d s / %g = %.1f real ms: its "
                "probes will fail where the simulator's pass; check the app's health path "
                "(/health) or run with --service-time emulated\n",
                where, check, service_ms, timeout_s, scale, real_ms);
    return 1;
}

int scn_probe_warnings(const struct sim_scenario *sc, double scale, const struct scn_service *svc,
                       FILE *f)
{
    double service_ms = 0;
    int n = 0;

    if (svc->scaled || !(scale > 1))
        return 0;
    for (int i = 0; i < sc->nlcs; i++)
        if (sc->lcs[i].app.service_mean_ms > service_ms)
            service_ms = sc->lcs[i].app.service_mean_ms;
    if (!(service_ms > 0))
        return 0;
    for (int i = 0; i < sc->nlbs; i++) {
        const struct sim_lb *lb = &sc->lbs[i];
        const char *t = lb->has_health_check ? lb->health_check.target : NULL;
        const char *slash;
        char where[SIM_PATH_MAX + 16];

        if (!t || (strncmp(t, "HTTP:", 5) != 0 && strncmp(t, "HTTPS:", 6) != 0) ||
            !(slash = strchr(t, '/')))
            continue;
        snprintf(where, sizeof(where), "%s.health_check", lb->path);
        n += probe_warn(sc, scale, service_ms, where, t, slash, lb->health_check.timeout_s, f);
    }
    for (int i = 0; i < sc->ntgs; i++) {
        const struct sim_tg *tg = &sc->tgs[i];
        const char *proto = tg->hc_protocol ? tg->hc_protocol
                            : tg->protocol  ? tg->protocol
                                            : "HTTP";
        const char *path = tg->hc_path ? tg->hc_path : "/"; /* AWS's default path */
        char where[SIM_PATH_MAX + 16], check[SIM_PATH_MAX + 16];

        if (strcmp(proto, "HTTP") != 0 && strcmp(proto, "HTTPS") != 0)
            continue;
        snprintf(where, sizeof(where), "%s.health_check", tg->path);
        snprintf(check, sizeof(check), "%s %s", proto, path);
        /* AWS's default timeout for an HTTP(S) target group of instances: 5 s */
        n += probe_warn(sc, scale, service_ms, where, check, path,
                        tg->has_timeout ? tg->timeout_s : 5, f);
    }
    return n;
}

int scn_plan_build(struct scn_plan *plan, const struct sim_scenario *sc, const char *prefix,
                   const struct scn_service *svc, char *err, size_t n)
{
    memset(plan, 0, sizeof(*plan));
    plan_lbs(plan, sc, prefix);
    plan_albs(plan, sc, prefix);
    if (plan_groups(plan, sc, prefix, svc, err, n) != 0) {
        scn_plan_cleanup(plan);
        return -1;
    }
    plan_policies(plan, sc, prefix);
    plan_alarms(plan, sc, prefix);
    if (plan_composites(plan, sc, prefix, err, n) != 0) {
        scn_plan_cleanup(plan);
        return -1;
    }
    plan_teardown(plan, sc, prefix);
    /* in time order, the plan's order within a time (an insertion sort: stable) */
    for (int i = 1; i < plan->ntimed; i++) {
        struct scn_call c = plan->timed[i];
        int j = i;

        for (; j > 0 && plan->timed[j - 1].at_ms > c.at_ms; j--)
            plan->timed[j] = plan->timed[j - 1];
        plan->timed[j] = c;
    }
    return 0;
}

static void calls_free(struct scn_call *v, int n)
{
    for (int i = 0; i < n; i++) {
        free(v[i].action);
        free(v[i].policy);
        free(v[i].ref);
        aws_params_cleanup(&v[i].params);
    }
    free(v);
}

void scn_plan_cleanup(struct scn_plan *plan)
{
    calls_free(plan->setup, plan->nsetup);
    calls_free(plan->timed, plan->ntimed);
    calls_free(plan->teardown, plan->nteardown);
    memset(plan, 0, sizeof(*plan));
}

static void print_word(FILE *f, const char *s)
{
    if (*s &&
        strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:,=+-@") ==
            strlen(s)) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

void scn_call_print(FILE *f, const struct scn_call *c)
{
    static const char *const cli[AWS_NSERVICES] = { "autoscaling", "elb", "cloudwatch", "ec2",
                                                    "elbv2" };

    fprintf(f, "%s %s", cli[c->svc], c->action);
    for (int i = 0; i < c->params.n; i++) {
        struct cm_buf b;
        char *w;

        cm_buf_init(&b, 1u << 20);
        cm_buf_printf(&b, "%s=%s", c->params.v[i].name, c->params.v[i].value);
        cm_buf_putc(&b, '\0');
        w = cm_buf_take(&b, NULL);
        fputc(' ', f);
        print_word(f, w);
        free(w);
    }
    fputc('\n', f);
}

static int usage(FILE *f, int rc)
{
    fprintf(f,
            "usage: loadgen scenario FILE [--endpoint URL | --aws] [--time-scale N]\n"
            "                             [--report FILE.html] [--json FILE] [--junit FILE]\n"
            "                             [--keep] [--service-time emulated|real] [--batch K]\n"
            "                             [--dry-run] [--prefix NAME] [--quiet] [--lenient]\n"
            "                             [--explain]\n"
            "  Plays a scenario (docs/scenarios.md) for real: creates its infrastructure\n"
            "  through the AWS API (names prefixed per run), plays its load through the load\n"
            "  balancers and its faults, polls the group, alarms, instance health and\n"
            "  activities each sample period (a live line per period), checks the\n"
            "  expectations, tears everything down, and compares the observed capacity with\n"
            "  the simulator's prediction for the same file.\n"
            "  (default)          start an emulator of its own (the `emulator` next to\n"
            "                     loadgen, or $SCALELAB_EMULATOR) on an ephemeral port\n"
            "  --endpoint URL     an emulator (or any AWS-compatible endpoint) already running\n"
            "  --aws              real AWS: credentials, profile and endpoints from the\n"
            "                     environment (docs/aws.md: what it creates and costs)\n"
            "  --time-scale N     emulated seconds per real second for its own emulator\n"
            "                     (default 60); an endpoint's own scale is read from it\n"
            "  --report FILE.html the report, with predicted vs observed capacity\n"
            "  --json FILE        the timeline as `scaler simulate --json` writes it\n"
            "  --explain          every policy decision of the scenario's groups (metric,\n"
            "                     arithmetic, computed capacity, why capacity did not\n"
            "                     change) and lifecycle-hook note, read from the emulator's\n"
            "                     event stream, in the timeline, the --json and the --report\n"
            "                     as `scaler simulate --explain` shows them (docs/decisions.md;\n"
            "                     an emulator only: AWS has no such stream)\n"
            "  --junit FILE.xml   a JUnit report: one testcase per expectation, a failed one\n"
            "                     with the line stderr prints\n"
            "  --keep             leave the infrastructure (and the emulator) running\n"
            "  --service-time emulated|real\n"
            "                     the instances' service times, think times and closed\n"
            "                     bursts' gaps on the emulated clock (default when the time\n"
            "                     scale is above 1 and a load phase is closed) or in real\n"
            "                     time (docs/dataplane.md, Time); latencies are reported in\n"
            "                     the same time\n"
            "  --batch K          with emulated service times, each request stands for K of\n"
            "                     the scenario's (default: enough for 5 ms of real service,\n"
            "                     at most a closed burst's requests / (16 x workers))\n"
            "  --dry-run          print the API calls (setup and teardown) and exit\n"
            "  --prefix NAME      the name prefix (default sl-<pid hex>-<time hex>)\n"
            "  --quiet            no live lines\n"
            "  --lenient          an alarm or policy dimension naming no group or load\n"
            "                     balancer of the scenario is a warning, not an error\n"
            "exit status: 0 every expectation holds; 3 one failed; 2 bad file or usage;\n"
            "1 runtime failure (endpoint unreachable, emulator would not start, setup\n"
            "refused, interrupted).\n");
    return rc;
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "loadgen scenario: %s%s\ntry 'loadgen scenario --help'\n", what, arg);
    return 2;
}

int scenario_main(int argc, char **argv)
{
    struct scn_opts o;
    int dry_run = 0, lenient = 0;
    char err[SIM_ERR_MAX], prefix[96];
    struct sim_scenario *sc;
    struct scn_plan plan;
    struct scn_service svc;
    int rc;

    memset(&o, 0, sizeof(o));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_val = i + 1 < argc;

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return usage(stdout, 0);
        if (strcmp(a, "--dry-run") == 0) {
            dry_run = 1;
        } else if (strcmp(a, "--keep") == 0) {
            o.keep = 1;
        } else if (strcmp(a, "--aws") == 0) {
            o.aws = 1;
        } else if (strcmp(a, "--quiet") == 0) {
            o.quiet = 1;
        } else if (strcmp(a, "--explain") == 0) {
            o.explain = 1;
        } else if (strcmp(a, "--lenient") == 0) {
            lenient = 1;
        } else if (strcmp(a, "--prefix") == 0 || strcmp(a, "--endpoint") == 0 ||
                   strcmp(a, "--report") == 0 || strcmp(a, "--json") == 0 ||
                   strcmp(a, "--junit") == 0 || strcmp(a, "--time-scale") == 0 ||
                   strcmp(a, "--service-time") == 0 || strcmp(a, "--batch") == 0) {
            const char *v;

            if (!has_val)
                return usage_error("option needs a value: ", a);
            v = argv[++i];
            if (strcmp(a, "--prefix") == 0) {
                if (!v[0] || strlen(v) > 40 ||
                    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") !=
                        strlen(v))
                    return usage_error("--prefix wants up to 40 letters, digits or '-': ", v);
                o.prefix = v;
            } else if (strcmp(a, "--endpoint") == 0) {
                if (strncmp(v, "http://", 7) != 0 && strncmp(v, "https://", 8) != 0)
                    return usage_error("--endpoint wants an http:// or https:// URL, not ", v);
                o.endpoint = v;
            } else if (strcmp(a, "--report") == 0) {
                o.report = v;
            } else if (strcmp(a, "--json") == 0) {
                o.json = v;
            } else if (strcmp(a, "--junit") == 0) {
                o.junit = v;
            } else if (strcmp(a, "--service-time") == 0) {
                if (strcmp(v, "emulated") == 0)
                    o.service_mode = SCN_SERVICE_EMULATED;
                else if (strcmp(v, "real") == 0)
                    o.service_mode = SCN_SERVICE_REAL;
                else
                    return usage_error("--service-time wants emulated or real, not ", v);
            } else if (strcmp(a, "--batch") == 0) {
                char *end;
                double k = strtod(v, &end);
                if (end == v || *end || !(k >= 1) || k > 100000)
                    return usage_error("--batch wants a number from 1 to 100000, not ", v);
                o.batch = k;
            } else {
                char *end;
                double ts = strtod(v, &end);
                if (end == v || *end || !(ts > 0) || ts > 100000)
                    return usage_error("--time-scale wants a number > 0 (at most 100000), not ", v);
                o.time_scale = ts;
            }
        } else if (a[0] == '-' || o.file) {
            return usage_error("unexpected argument ", a);
        } else {
            o.file = a;
        }
    }
    if (!o.file)
        return usage_error("need a scenario FILE", "");
    if (o.endpoint && o.aws)
        return usage_error("--endpoint and --aws exclude each other", "");
    sc = sim_scenario_load_flags(o.file, lenient ? SIM_SCENARIO_LENIENT : 0, err);
    if (!sc) {
        sim_scenario_print_lines(stderr, "loadgen scenario", o.file, err, 0);
        return 2;
    }
    sim_scenario_print_lines(stderr, "loadgen scenario", o.file, sc->warnings, 1);
    for (int i = 0; !dry_run && i < sc->nphases; i++) {
        /* a source_ip condition reads the connection's address: the observed requests come
         * from this host, not from the kinds' source_ip the simulator routes by */
        int a = sim_scenario_alb_index(sc, sc->phases[i].target);
        for (int l = 0; a >= 0 && l < sc->albs[a].nlisteners; l++) {
            const struct sim_alb_listener *li = &sc->albs[a].listeners[l];
            for (int k = 0; k < li->nrules; k++)
                for (int c = 0; c < li->rules[k].nconditions; c++)
                    if (li->rules[k].conditions[c].field == SC_ELBV2_SOURCE_IP)
                        fprintf(stderr,
                                "loadgen scenario: %s: warning: %s.conditions.source_ip: the "
                                "requests of %s come from this host's address, not from "
                                "their source_ip: the rule may route them otherwise than "
                                "scaler simulate does\n",
                                o.file, li->rules[k].path, sc->phases[i].path);
        }
    }
    if (!dry_run) {
        rc = scn_run(&o, sc);
        sim_scenario_destroy(sc);
        return rc;
    }
    if (o.prefix)
        snprintf(prefix, sizeof(prefix), "%s", o.prefix);
    else
        snprintf(prefix, sizeof(prefix), "sl-%x-%llx", (unsigned)getpid(),
                 (unsigned long long)time(NULL) & 0xffffffull);
    scn_service_choose(sc,
                       o.time_scale > 0      ? o.time_scale
                       : o.aws || o.endpoint ? 1
                                             : 60,
                       (enum scn_service_mode)o.service_mode, o.batch, &svc);
    if (scn_plan_build(&plan, sc, prefix, &svc, err, sizeof(err)) != 0) {
        fprintf(stderr, "loadgen scenario: %s: %s\n", o.file, err);
        sim_scenario_destroy(sc);
        return 2;
    }
    printf("# setup (%d calls; {arn:P} is the PolicyARN PutScalingPolicy returns for P, {at:MS} "
           "the endpoint's time MS ms after the scenario's start; ELBv2: {tg:T}, {alb:A}, "
           "{listener:A:PORT}, {rule:A:PORT:PRIORITY} the ARNs the create calls return, "
           "{subnet:ZONE} the zone's default subnet, {vpc:default}, {lbdim:A} app/NAME/ID, "
           "{tgdim:T} targetgroup/NAME/ID)\n",
           plan.nsetup);
    for (int i = 0; i < plan.nsetup; i++)
        scn_call_print(stdout, &plan.setup[i]);
    if (plan.ntimed)
        printf("# timed (%d calls, each made at the scenario second @S before it)\n", plan.ntimed);
    for (int i = 0; i < plan.ntimed; i++) {
        printf("@%lld ", (long long)(plan.timed[i].at_ms / 1000));
        scn_call_print(stdout, &plan.timed[i]);
    }
    printf("# teardown (%d calls; also on failure and Ctrl-C)\n", plan.nteardown);
    for (int i = 0; i < plan.nteardown; i++)
        scn_call_print(stdout, &plan.teardown[i]);
    scn_plan_cleanup(&plan);
    sim_scenario_destroy(sc);
    return 0;
}
