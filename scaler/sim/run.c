/* scaler/sim/run.c: the simulator's loop around libscaler's world and the model. */
#include "scaler/sim/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "common/xalloc.h"
#include "scaler/asg.h"
#include "scaler/cloudwatch.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "scaler/sim/expect.h"
#include "scaler/world.h"

#define GROUP_TAG "aws:autoscaling:groupName"

enum elb_metric {
    ELB_REQUEST_COUNT = 0,
    ELB_LATENCY,
    ELB_5XX,
    ELB_HEALTHY,
    ELB_UNHEALTHY,
    ELB_NMETRICS
};
static const char *const elb_metric_names[ELB_NMETRICS] = { "RequestCount", "Latency",
                                                            "HTTPCode_ELB_5XX", "HealthyHostCount",
                                                            "UnHealthyHostCount" };

struct slot_state {
    char id[32];
    int group;
    int running_reported;
    int warmed;
    double min_busy, min_up; /* snapshot at the last metric minute */
    double smp_busy, smp_up; /* snapshot at the last sample */
    int hc_ok_streak;        /* last reported result was a pass (per run, any lb) */
};

struct lb_state {
    uint64_t hc_sig;              /* world signature at the last full health round */
    uint64_t hu_model, hu_streak; /* health_unchanged() held at these versions */
    int hc_all_good;              /* that round found every target InService and passing */
    int64_t hc_next_ms;
    int64_t hc_interval_ms;
    int http;
    int port_ok; /* the check's port is one the app listens on */
    int metric[ELB_NMETRICS];
    struct sim_lb_counters min_snap, smp_snap;
    int ngroups_behind;
    const char **ids; /* route set scratch */
    int *slots;
    int *zones;
    int cap;
};

struct alarm_track {
    char name[256];
    enum sc_alarm_state last;
};

struct group_track {
    char newest_done[SC_RNG_UUID_LEN]; /* the newest finished activity already pushed */
    int cpu_metric;                    /* some alarm reads this group's CPUUtilization */
    const struct sim_app *app;
    int lb; /* first load balancer, or -1 */
};

struct fault_track {
    const struct sim_fault *f;
    int started, ended;
    char ids[64][32]; /* instances a hang/slow acted on, to undo */
    int nids;
};

struct eng {
    const struct sim_run_config *cfg;
    const struct sim_scenario *sc;
    struct sc_world *w;
    struct sc_cw *cw;
    struct sc_asg *asg;
    struct sc_elb *elb;
    struct sc_ec2 *ec2;
    struct sim_model *model;
    struct sim_timeline *tl;
    enum sim_mode mode;

    int64_t start_ms, end_ms, now_ms;
    int64_t sample_ms;
    char *policy_arns[256];

    struct lb_state *lbs;
    struct group_track *groups;
    struct alarm_track *alarms;
    int nalarms;
    struct fault_track *faults;

    struct slot_state *slots;
    int nslots;

    int cpu_all_metric, cpu_instance_metric;
    /* what the data plane last saw, so unchanged rounds skip the library's reads */
    uint64_t world_sig; /* EC2 instance count and states, registrations */
    int routes_dirty;   /* the route sets must be read again */
    struct cm_hist run_hist;
    /* world_signature() cache: epoch counts the engine's own changes to EC2 and the load
     * balancers (world steps, reports, faults) */
    uint64_t epoch, sig_epoch, sig_value;
    /* world_signature()'s EC2 part as of sc_ec2_generation() == sig_ec2_gen (0: none) */
    uint64_t sig_ec2_gen, sig_ec2_value;
    uint64_t sync_sig;   /* world_signature() after the last sync_instances() */
    int sync_force;      /* the model changed (a boot ended, a fault): sync even if equal */
    int need_hist;       /* a p99 expectation reads each sample's histogram */
    uint64_t streak_ver; /* counts changes of any slot's hc_ok_streak */
    uint64_t acts_seen;  /* sc_asg_activity_version() + 1 at the last push_activities */
    struct sim_latency_entry *ents; /* scratch: a sample's latencies, sorted */
    int cap_ents;
    char err[SIM_ERR_MAX];
};

static int64_t us(int64_t ms)
{
    return ms * 1000;
}

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

static int setup_lcs_groups(struct eng *e)
{
    const struct sim_scenario *sc = e->sc;

    for (int i = 0; i < sc->nlcs; i++) {
        const struct sim_launch_config *lc = &sc->lcs[i];
        struct sc_asg_lc_req req = { 0 };
        struct sc_error err = { 0 };
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

        req.auto_scaling_group_name = g->name;
        req.launch_configuration_name = g->launch_configuration;
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
        req.termination_policies = (const char *const *)g->termination_policies;
        req.ntermination_policies = g->ntermination_policies;
        if (sc_asg_create_group(e->asg, &req, e->now_ms, &err) != SC_OK)
            return lib_fail(e, g->path, &err);
        e->groups[i].app = &sc->lcs[sim_scenario_lc_index(sc, g->launch_configuration)].app;
        e->groups[i].lb = lb0 ? sim_scenario_lb_index(sc, lb0->name) : -1;
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

        req.auto_scaling_group_name = p->group;
        req.policy_name = p->name;
        req.policy_type = p->type == SIM_POLICY_SIMPLE ? "SimpleScaling"
                          : p->type == SIM_POLICY_STEP ? "StepScaling"
                                                       : "TargetTrackingScaling";
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
            req.target_tracking.resource_label = p->resource_label;
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

        for (int j = 0; j < nd; j++) {
            dims[j].name = a->dimensions[j].name;
            dims[j].value = a->dimensions[j].value;
        }
        for (int j = 0; j < a->nactions && j <= SC_ALARM_MAX_ACTIONS; j++)
            actions[j] = e->policy_arns[sim_scenario_policy_index(sc, a->actions[j])];
        for (int j = 0; j < a->nok_actions && j <= SC_ALARM_MAX_ACTIONS; j++)
            ok_actions[j] = e->policy_arns[sim_scenario_policy_index(sc, a->ok_actions[j])];
        req.alarm_name = a->name;
        req.has_actions_enabled = 1;
        req.actions_enabled = a->actions_enabled;
        req.alarm_actions = actions;
        req.n_alarm_actions =
            a->nactions <= SC_ALARM_MAX_ACTIONS + 1 ? a->nactions : SC_ALARM_MAX_ACTIONS + 1;
        req.ok_actions = ok_actions;
        req.n_ok_actions =
            a->nok_actions <= SC_ALARM_MAX_ACTIONS + 1 ? a->nok_actions : SC_ALARM_MAX_ACTIONS + 1;
        req.metric_name = a->metric;
        req.namespace = a->namespace_;
        req.statistic = a->statistic;
        req.extended_statistic = a->extended_statistic;
        req.dimensions = dims;
        req.n_dimensions = nd;
        req.has_period = 1;
        req.period = a->period_s;
        req.has_evaluation_periods = 1;
        req.evaluation_periods = a->evaluation_periods;
        req.has_datapoints_to_alarm = a->has_datapoints_to_alarm;
        req.datapoints_to_alarm = a->datapoints_to_alarm;
        req.has_threshold = 1;
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

/* Which metrics some alarm reads: only those are put. */
static void plan_metrics(struct eng *e)
{
    for (int i = 0; i < e->nalarms; i++) {
        const struct sc_alarm_view *v = sc_cw_alarm_find(e->cw, e->alarms[i].name);
        int known = 0;
        if (!v)
            continue;
        if (strcmp(v->namespace, "AWS/EC2") == 0 && strcmp(v->metric_name, "CPUUtilization") == 0) {
            if (v->n_dimensions == 0) {
                e->cpu_all_metric = 1;
                known = 1;
            } else if (v->n_dimensions == 1 &&
                       strcmp(v->dimensions[0].name, "AutoScalingGroupName") == 0) {
                int g = sim_scenario_group_index(e->sc, v->dimensions[0].value);
                if (g >= 0)
                    e->groups[g].cpu_metric = 1;
                known = 1;
            } else if (v->n_dimensions == 1 && strcmp(v->dimensions[0].name, "InstanceId") == 0) {
                e->cpu_instance_metric = 1;
                known = 1;
            }
        } else if (strcmp(v->namespace, "AWS/ELB") == 0 && v->n_dimensions == 1 &&
                   strcmp(v->dimensions[0].name, "LoadBalancerName") == 0) {
            int lb = sim_scenario_lb_index(e->sc, v->dimensions[0].value);
            for (int k = 0; k < ELB_NMETRICS && lb >= 0; k++) {
                if (strcmp(v->metric_name, elb_metric_names[k]) == 0) {
                    e->lbs[lb].metric[k] = 1;
                    known = 1;
                }
            }
        }
        if (!known)
            fprintf(stderr,
                    "scaler: warning: alarm %s reads %s %s, which the simulator does not "
                    "produce; it will see no data\n",
                    v->alarm_name, v->namespace, v->metric_name);
    }
}

static void setup_health(struct eng *e)
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
            fprintf(stderr,
                    "scaler: warning: %s: health check target %s names port %d, which no "
                    "listener's instance_port serves; every check will fail\n",
                    e->sc->lbs[i].path, lb->health_check.target, port);
    }
}

/* ---- the data plane ---- */

static struct slot_state *slot_grow(struct eng *e, int slot);

static inline struct slot_state *slot_of(struct eng *e, int slot)
{
    return slot < e->nslots ? &e->slots[slot] : slot_grow(e, slot);
}

static struct slot_state *slot_grow(struct eng *e, int slot)
{
    if (slot >= e->nslots) {
        int n = slot + 16;
        e->slots = cm_xrealloc(e->slots, (size_t)n * sizeof(*e->slots));
        memset(e->slots + e->nslots, 0, (size_t)(n - e->nslots) * sizeof(*e->slots));
        e->nslots = n;
    }
    return &e->slots[slot];
}

static void push_fault_event(struct eng *e, const char *cause, const char *group, const char *desc)
{
    struct sim_event ev = { 0 };

    ev.kind = SIM_EVENT_FAULT;
    ev.t_ms = ev.end_ms = e->now_ms;
    ev.group = group;
    ev.cause = cause;
    ev.description = desc;
    ev.status = "";
    sim_timeline_push_event(e->tl, &ev);
}

static uint64_t world_signature(struct eng *e);

/* Makes the model match EC2. Returns 1 when it reported something to the world. Nothing
 * to do while EC2 is as the last call left it and the model did not change. */
static int sync_instances(struct eng *e)
{
    int n = sc_ec2_instance_count(e->ec2), reported = 0;
    int64_t now_us = us(e->now_ms);

    if (!e->sync_force && world_signature(e) == e->sync_sig)
        return 0;
    e->sync_force = 0;

    for (int i = 0; i < n; i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(e->ec2, i);
        int slot;
        if (in->state == SC_EC2_TERMINATED || in->state == SC_EC2_STOPPED) {
            slot = sim_model_instance_find(e->model, in->instance_id);
            if (slot >= 0)
                sim_model_instance_stop(e->model, slot, now_us);
            continue;
        }
        slot = sim_model_instance_find(e->model, in->instance_id);
        if (in->state == SC_EC2_PENDING && slot < 0) {
            const char *gname = sc_ec2_instance_tag(in, GROUP_TAG);
            int g = gname ? sim_scenario_group_index(e->sc, gname) : -1;
            const struct sim_app *app = g >= 0 ? e->groups[g].app : &e->sc->lcs[0].app;
            struct slot_state *ss;
            slot = sim_model_instance_start(e->model, in->instance_id, g, app,
                                            in->availability_zone, now_us);
            ss = slot_of(e, slot);
            memset(ss, 0, sizeof(*ss));
            snprintf(ss->id, sizeof(ss->id), "%s", in->instance_id);
            ss->group = g;
        }
        if (slot < 0)
            continue;
        if ((in->state == SC_EC2_SHUTTING_DOWN || in->state == SC_EC2_STOPPING)) {
            sim_model_instance_stop(e->model, slot, now_us);
            if (in->state == SC_EC2_SHUTTING_DOWN)
                sc_ec2_instance_terminated(e->ec2, in->instance_id, e->now_ms);
            else
                sc_ec2_instance_stopped(e->ec2, in->instance_id, e->now_ms);
            reported = 1;
            /* the records may have moved: restart the scan */
            n = sc_ec2_instance_count(e->ec2);
            i = -1;
            continue;
        }
        if (in->state == SC_EC2_PENDING && sim_model_instance_up(e->model, slot) &&
            !sim_model_instance_dead(e->model, slot)) {
            struct slot_state *ss = slot_of(e, slot);
            if (!ss->running_reported) {
                ss->running_reported = 1;
                sc_ec2_instance_running(e->ec2, in->instance_id, e->now_ms);
                reported = 1;
            }
        }
    }
    if (reported)
        e->epoch++;
    e->sync_sig = world_signature(e);
    return reported;
}

/* The model's CPU table, with e->slots covering every slot in it. */
static int cpu_table(struct eng *e, const struct sim_slot_cpu **tab)
{
    int n = sim_model_cpu_table(e->model, tab);

    if (n > 0)
        slot_of(e, n - 1);
    return n;
}

/* A cheap summary of what changes routing: EC2 instances and their states, and each
 * load balancer's registrations. Equal signatures mean the route sets are unchanged
 * unless a health result moved an instance in or out of service (routes_dirty). */
static uint64_t world_signature(struct eng *e)
{
    uint64_t h = 1469598103934665603ULL;
    uint64_t gen = sc_ec2_generation(e->ec2);

    if (e->sig_epoch == e->epoch + 1)
        return e->sig_value;

    if (e->sig_ec2_gen == gen) {
        h = e->sig_ec2_value;
    } else {
        int n = sc_ec2_instance_count(e->ec2);

        h = (h ^ (uint64_t)n) * 1099511628211ULL;
        for (int i = 0; i < n; i++) {
            const struct sc_ec2_instance *in = sc_ec2_instance_at(e->ec2, i);
            h = (h ^ (uint64_t)(uintptr_t)in) * 1099511628211ULL;
            h = (h ^ (uint64_t)in->state) * 1099511628211ULL;
            h = (h ^ (uint64_t)in->instance_status) * 1099511628211ULL;
        }
        e->sig_ec2_gen = gen;
        e->sig_ec2_value = h;
    }
    for (int lb = 0; lb < e->sc->nlbs; lb++)
        h = (h ^ (uint64_t)(uint32_t)sc_elb_target_count(e->elb, e->sc->lbs[lb].name)) *
            1099511628211ULL;
    e->sig_epoch = e->epoch + 1;
    e->sig_value = h;
    return h;
}

static void sync_routes(struct eng *e)
{
    uint64_t sig = world_signature(e);

    if (!e->routes_dirty && sig == e->world_sig)
        return;
    e->world_sig = sig;
    e->routes_dirty = 0;
    for (int lb = 0; lb < e->sc->nlbs; lb++) {
        struct lb_state *ls = &e->lbs[lb];
        const char *name = e->sc->lbs[lb].name;
        const struct sc_elb_lb *v = sc_elb_lb_find(e->elb, name);
        int all = sc_elb_route_set(e->elb, name, NULL, NULL, 0), k = 0;

        if (all > ls->cap) {
            ls->cap = all * 2;
            ls->ids = cm_xrealloc(ls->ids, (size_t)ls->cap * sizeof(*ls->ids));
            ls->slots = cm_xrealloc(ls->slots, (size_t)ls->cap * sizeof(*ls->slots));
            ls->zones = cm_xrealloc(ls->zones, (size_t)ls->cap * sizeof(*ls->zones));
        }
        if (!v || v->attributes.cross_zone_enabled || v->nzones <= 1) {
            int n = sc_elb_route_set(e->elb, name, NULL, ls->ids, ls->cap);
            for (int i = 0; i < n && i < ls->cap; i++) {
                int slot = sim_model_instance_find(e->model, ls->ids[i]);
                if (slot >= 0)
                    ls->slots[k++] = slot;
            }
            sim_model_set_routes(e->model, lb, ls->slots, k);
            continue;
        }
        /* cross-zone off: each enabled zone's node routes to its zone's instances */
        for (int z = 0; z < v->nzones; z++) {
            int base = k;
            int n = sc_elb_route_set(e->elb, name, v->availability_zones[z], ls->ids + base,
                                     ls->cap - base);
            for (int i = 0; i < n && base + i < ls->cap; i++) {
                int slot = sim_model_instance_find(e->model, ls->ids[base + i]);
                if (slot >= 0) {
                    ls->slots[k] = slot;
                    ls->zones[k++] = z;
                }
            }
        }
        sim_model_set_zone_routes(e->model, lb, ls->slots, ls->zones, k, v->nzones);
    }
}

/* 1 when every live, running instance would pass lb's check as it did last time. */
static int health_unchanged(struct eng *e, int lb)
{
    struct lb_state *ls = &e->lbs[lb];

    for (int slot = 0; slot < sim_model_slot_count(e->model); slot++) {
        struct slot_state *ss;
        if (!sim_model_slot_live(e->model, slot) || !sim_model_instance_up(e->model, slot))
            continue;
        ss = slot_of(e, slot);
        if (!ss->hc_ok_streak ||
            !(ls->port_ok && sim_model_instance_health(e->model, slot, ls->http)))
            return 0;
    }
    return 1;
}

/* One round of lb's health checks. Returns 1 when it reported a result to the library. */
static int health_checks(struct eng *e, int lb)
{
    struct lb_state *ls = &e->lbs[lb];
    const char *name = e->sc->lbs[lb].name;
    uint64_t sig = world_signature(e);
    int n, all_good = 1, reported = 0;

    /* nothing changed since a round where every target was InService and passing: each
     * result would be a skipped pass again */
    if (ls->hc_all_good && sig == ls->hc_sig) {
        uint64_t mv = sim_model_health_version(e->model) + 1;
        if (ls->hu_model == mv && ls->hu_streak == e->streak_ver)
            return 0;
        if (health_unchanged(e, lb)) {
            ls->hu_model = mv;
            ls->hu_streak = e->streak_ver;
            return 0;
        }
    }
    n = sc_elb_target_count(e->elb, name);
    for (int i = 0; i < n; i++) {
        struct sc_elb_target t;
        struct slot_state *ss;
        int slot, ok, now_in;
        if (sc_elb_target_at(e->elb, name, i, &t) != 0) {
            all_good = 0;
            continue;
        }
        if (!t.checked) {
            all_good = 0;
            continue;
        }
        slot = sim_model_instance_find(e->model, t.instance_id);
        ok = slot >= 0 && ls->port_ok && sim_model_instance_health(e->model, slot, ls->http);
        ss = slot >= 0 ? slot_of(e, slot) : NULL;
        /* a pass for an instance InService after a pass changes nothing: skip the call */
        if (ok && ss && ss->hc_ok_streak && t.state == SC_ELB_IN_SERVICE)
            continue;
        now_in = sc_elb_health_result(e->elb, name, t.instance_id, ok, e->now_ms);
        reported = 1;
        e->epoch++;
        if ((now_in == 1) != (t.state == SC_ELB_IN_SERVICE))
            e->routes_dirty = 1;
        all_good = 0;
        if (ss && ss->hc_ok_streak != ok) {
            ss->hc_ok_streak = ok;
            e->streak_ver++;
        }
    }
    ls->hc_all_good = all_good;
    ls->hc_sig = world_signature(e);
    return reported;
}

/* ---- metrics ---- */

static void put_stat(struct eng *e, const char *ns, const char *metric, const char *dim,
                     const char *value, const char *unit, double count, double sum, double mn,
                     double mx, int64_t ts_ms)
{
    struct sc_dimension d = { dim, value };
    struct sc_metric_datum datum = { 0 };
    struct sc_put_metric_data_req req = { 0 };
    struct sc_error err = { 0 };

    if (count <= 0)
        return;
    datum.metric_name = metric;
    datum.dimensions = dim ? &d : NULL;
    datum.n_dimensions = dim ? 1 : 0;
    datum.has_timestamp = 1;
    datum.timestamp_ms = ts_ms;
    datum.has_statistic_values = 1;
    datum.statistic_values.sample_count = count;
    datum.statistic_values.sum = sum;
    datum.statistic_values.minimum = mn;
    datum.statistic_values.maximum = mx;
    datum.statistic_values.has_sample_count = datum.statistic_values.has_sum = 1;
    datum.statistic_values.has_minimum = datum.statistic_values.has_maximum = 1;
    datum.unit = unit;
    req.namespace = ns;
    req.metric_data = &datum;
    req.n_metric_data = 1;
    req.internal = 1;
    sc_cw_put_metric_data(e->cw, &req, e->now_ms, &err);
}

static void put_value(struct eng *e, const char *ns, const char *metric, const char *dim,
                      const char *value, const char *unit, double v, int64_t ts_ms)
{
    put_stat(e, ns, metric, dim, value, unit, 1, v, v, v, ts_ms);
}

/* A statistic set of one minute's CPU figures. */
struct cpu_stat {
    double cnt, sum, mn, mx;
};

static inline void cpu_stat_add(struct cpu_stat *st, double pct)
{
    /* pct is finite: plain comparisons do what fmin/fmax would */
    st->mn = st->cnt && st->mn < pct ? st->mn : pct;
    st->mx = st->cnt && st->mx > pct ? st->mx : pct;
    st->cnt++;
    st->sum += pct;
}

/* The minute [now - 60 s, now) ended: put what alarms read. */
static void metrics_minute(struct eng *e)
{
    int64_t ts = e->now_ms - 60000;
    int ng = e->sc->ngroups;
    struct cpu_stat gst[SIM_TIMELINE_MAX_GROUPS] = { 0 }, all = { 0 }, cur = { 0 };
    int any_cpu = e->cpu_all_metric || e->cpu_instance_metric, cur_g = -1;
    const struct sim_slot_cpu *tab = NULL;
    int nslots = 0;

    for (int g = 0; g < ng; g++)
        any_cpu |= e->groups[g].cpu_metric;
    if (any_cpu)
        nslots = cpu_table(e, &tab);
    for (int slot = 0; slot < nslots; slot++) {
        struct slot_state *ss = &e->slots[slot];
        double busy = tab[slot].busy_worker_us, up = tab[slot].up_us, pct;
        int g = ss->group;
        if (tab[slot].state != SIM_SLOT_LIVE)
            continue;
        if (up - ss->min_up <= 0) {
            ss->min_busy = busy;
            ss->min_up = up;
            continue;
        }
        pct = 100.0 * (busy - ss->min_busy) / ((up - ss->min_up) * tab[slot].workers);
        if (pct > 100)
            pct = 100;
        if (pct < 0)
            pct = 0;
        ss->min_busy = busy;
        ss->min_up = up;
        if (e->cpu_instance_metric)
            put_value(e, "AWS/EC2", "CPUUtilization", "InstanceId", ss->id, "Percent", pct, ts);
        if (e->cpu_all_metric)
            cpu_stat_add(&all, pct);
        if (g < 0 || !e->groups[g].cpu_metric)
            continue;
        /* the group figure counts instances InService past their warm-up */
        if (!ss->warmed && !(ss->warmed = sc_asg_instance_warmed(e->asg, ss->id, e->now_ms)))
            continue;
        /* the group being summed stays in a local (slots of a group mostly come together) */
        if (g != cur_g) {
            if (cur_g >= 0)
                gst[cur_g] = cur;
            cur_g = g;
            cur = gst[g];
        }
        cpu_stat_add(&cur, pct);
    }
    if (cur_g >= 0)
        gst[cur_g] = cur;
    for (int g = 0; g < ng; g++)
        if (e->groups[g].cpu_metric)
            put_stat(e, "AWS/EC2", "CPUUtilization", "AutoScalingGroupName", e->sc->groups[g].name,
                     "Percent", gst[g].cnt, gst[g].sum, gst[g].mn, gst[g].mx, ts);
    if (e->cpu_all_metric)
        put_stat(e, "AWS/EC2", "CPUUtilization", NULL, NULL, "Percent", all.cnt, all.sum, all.mn,
                 all.mx, ts);

    for (int lb = 0; lb < e->sc->nlbs; lb++) {
        struct lb_state *ls = &e->lbs[lb];
        struct sim_lb_counters c;
        const char *name = e->sc->lbs[lb].name;
        double req, done, fail, lat;
        int any = 0;
        for (int k = 0; k < ELB_NMETRICS; k++)
            any |= ls->metric[k];
        sim_model_lb_counters(e->model, lb, &c);
        done = c.completed - ls->min_snap.completed;
        fail = c.failed - ls->min_snap.failed;
        lat = c.latency_sum_us - ls->min_snap.latency_sum_us;
        req = done + fail;
        ls->min_snap = c;
        if (!any)
            continue;
        if (ls->metric[ELB_REQUEST_COUNT] && req > 0)
            put_value(e, "AWS/ELB", "RequestCount", "LoadBalancerName", name, "Count",
                      floor(req + 0.5), ts);
        if (ls->metric[ELB_LATENCY] && done > 0)
            put_value(e, "AWS/ELB", "Latency", "LoadBalancerName", name, "Seconds",
                      lat / done / 1e6, ts);
        if (ls->metric[ELB_5XX] && fail > 0)
            put_value(e, "AWS/ELB", "HTTPCode_ELB_5XX", "LoadBalancerName", name, "Count",
                      floor(fail + 0.5), ts);
        if (ls->metric[ELB_HEALTHY] || ls->metric[ELB_UNHEALTHY]) {
            int nt = sc_elb_target_count(e->elb, name), healthy = 0, unhealthy = 0;
            for (int i = 0; i < nt; i++) {
                struct sc_elb_target t;
                if (sc_elb_target_at(e->elb, name, i, &t) != 0)
                    continue;
                if (t.state == SC_ELB_IN_SERVICE)
                    healthy++;
                else
                    unhealthy++;
            }
            if (ls->metric[ELB_HEALTHY])
                put_value(e, "AWS/ELB", "HealthyHostCount", "LoadBalancerName", name, "Count",
                          healthy, ts);
            if (ls->metric[ELB_UNHEALTHY])
                put_value(e, "AWS/ELB", "UnHealthyHostCount", "LoadBalancerName", name, "Count",
                          unhealthy, ts);
        }
    }
}

/* ---- faults ---- */

static int fault_targets(struct eng *e, const struct sim_fault *f, int *slots, int max)
{
    int n = 0, count = sc_ec2_instance_count(e->ec2);

    for (int i = 0; i < count && n < max; i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(e->ec2, i);
        const char *g;
        int slot;
        if (in->state != SC_EC2_RUNNING)
            continue;
        if (f->kind == SIM_FAULT_AZ_OUTAGE) {
            if (strcmp(in->availability_zone, f->zone) != 0)
                continue;
        } else {
            g = sc_ec2_instance_tag(in, GROUP_TAG);
            if (!g || strcmp(g, f->group) != 0)
                continue;
        }
        slot = sim_model_instance_find(e->model, in->instance_id);
        if (slot < 0 || sim_model_instance_dead(e->model, slot) ||
            (f->kind != SIM_FAULT_KILL && f->kind != SIM_FAULT_AZ_OUTAGE &&
             sim_model_instance_hung(e->model, slot)))
            continue;
        slots[n++] = slot;
    }
    return n;
}

static void fault_start(struct eng *e, struct fault_track *ft)
{
    const struct sim_fault *f = ft->f;
    int slots[64], n, max = f->kind == SIM_FAULT_AZ_OUTAGE ? 64 : (f->count < 64 ? f->count : 64);
    int64_t until_us = f->for_ms > 0 ? us(e->now_ms + f->for_ms) : 0;
    char desc[SIM_EVENT_TEXT_MAX];
    size_t len = 0;
    static const char *const causes[] = { "kill", "hang", "slow", "az-outage" };

    ft->started = 1;
    e->routes_dirty = 1;
    e->epoch++;
    e->sync_force = 1;
    if (f->kind == SIM_FAULT_AZ_OUTAGE) {
        /* libscaler's rule (the emulator's too): pending and running instances die */
        const char *dead[64];
        int nd = sc_ec2_zone_outage(e->ec2, f->zone, e->now_ms, dead, max);

        n = 0;
        for (int i = 0; i < nd && i < max; i++) {
            int slot = sim_model_instance_find(e->model, dead[i]);
            if (slot >= 0 && !sim_model_instance_dead(e->model, slot))
                slots[n++] = slot;
        }
    } else {
        n = fault_targets(e, f, slots, max);
    }
    desc[0] = '\0';
    for (int i = 0; i < n; i++) {
        const char *id = sim_model_instance_id(e->model, slots[i]);
        switch (f->kind) {
        case SIM_FAULT_KILL:
        case SIM_FAULT_AZ_OUTAGE:
            sim_model_instance_kill(e->model, slots[i], us(e->now_ms));
            sc_ec2_instance_lost(e->ec2, id, e->now_ms); /* a no-op after the outage */
            break;
        case SIM_FAULT_HANG:
            sim_model_instance_hang(e->model, slots[i], us(e->now_ms), until_us);
            sc_ec2_instance_set_impaired(e->ec2, id, 1, e->now_ms);
            break;
        case SIM_FAULT_SLOW:
            sim_model_instance_slow(e->model, slots[i], f->factor, us(e->now_ms), until_us);
            break;
        }
        if (ft->nids < 64)
            snprintf(ft->ids[ft->nids++], sizeof(ft->ids[0]), "%s", id);
        len += (size_t)snprintf(desc + len, len < sizeof(desc) ? sizeof(desc) - len : 0, "%s%s",
                                i ? " " : "", id);
        if (len >= sizeof(desc))
            len = sizeof(desc) - 1;
    }
    if (n == 0)
        snprintf(desc, sizeof(desc), "no running instance to act on");
    push_fault_event(e, causes[f->kind], f->group, desc);
}

static void fault_end(struct eng *e, struct fault_track *ft)
{
    const struct sim_fault *f = ft->f;

    ft->ended = 1;
    e->routes_dirty = 1;
    e->epoch++;
    e->sync_force = 1;
    if (f->kind == SIM_FAULT_AZ_OUTAGE) {
        sc_ec2_zone_set_available(e->ec2, f->zone, 1);
        push_fault_event(e, "az-outage-end", NULL, f->zone);
        return;
    }
    for (int i = 0; i < ft->nids; i++) {
        int slot = sim_model_instance_find(e->model, ft->ids[i]);
        if (slot >= 0 && f->kind == SIM_FAULT_HANG) {
            /* the model lifts the hang itself at until; EC2 status recovers with it */
            sc_ec2_instance_set_impaired(e->ec2, ft->ids[i], 0, e->now_ms);
        }
    }
    push_fault_event(e, f->kind == SIM_FAULT_HANG ? "hang-end" : "slow-end", f->group, "");
}

/* ---- events from the world ---- */

static void push_activities(struct eng *e)
{
    uint64_t v = sc_asg_activity_version(e->asg) + 1;

    if (v == e->acts_seen)
        return; /* no activity was created, finished or dropped since the last call */
    e->acts_seen = v;
    for (int g = 0; g < e->sc->ngroups; g++) {
        const char *name = e->sc->groups[g].name;
        int n = sc_asg_activity_count(e->asg, name), first_done = -1, stop = -1;
        if (n <= 0)
            continue;
        for (int i = 0; i < n; i++) {
            const struct sc_asg_activity_info *a = sc_asg_activity_at(e->asg, name, i);
            if (a->end_ms == 0)
                continue;
            if (first_done < 0)
                first_done = i;
            if (strcmp(a->activity_id, e->groups[g].newest_done) == 0) {
                stop = i;
                break;
            }
        }
        if (first_done < 0)
            continue;
        if (stop < 0)
            stop = n;
        /* oldest first */
        for (int i = stop - 1; i >= first_done; i--) {
            const struct sc_asg_activity_info *a = sc_asg_activity_at(e->asg, name, i);
            struct sim_event ev = { 0 };
            if (a->end_ms == 0)
                continue;
            ev.kind = SIM_EVENT_ACTIVITY;
            ev.t_ms = a->start_ms;
            ev.end_ms = a->end_ms;
            ev.group = name;
            ev.cause = a->cause ? a->cause : "";
            ev.description = a->description ? a->description : "";
            ev.status = a->status_code ? a->status_code : "";
            sim_timeline_push_event(e->tl, &ev);
        }
        snprintf(e->groups[g].newest_done, sizeof(e->groups[g].newest_done), "%s",
                 sc_asg_activity_at(e->asg, name, first_done)->activity_id);
    }
}

/* Activities still in progress when the run ends. */
static void push_unfinished(struct eng *e)
{
    for (int g = 0; g < e->sc->ngroups; g++) {
        const char *name = e->sc->groups[g].name;
        int n = sc_asg_activity_count(e->asg, name);
        for (int i = n - 1; i >= 0; i--) {
            const struct sc_asg_activity_info *a = sc_asg_activity_at(e->asg, name, i);
            struct sim_event ev = { 0 };
            if (a->end_ms != 0)
                continue;
            ev.kind = SIM_EVENT_ACTIVITY;
            ev.t_ms = a->start_ms;
            ev.group = name;
            ev.cause = a->cause ? a->cause : "";
            ev.description = a->description ? a->description : "";
            ev.status = a->status_code ? a->status_code : "";
            sim_timeline_push_event(e->tl, &ev);
        }
    }
}

static enum sim_alarm_state to_sim_state(enum sc_alarm_state s)
{
    return s == SC_ALARM_OK      ? SIM_ALARM_OK
           : s == SC_ALARM_ALARM ? SIM_ALARM_ALARM
                                 : SIM_ALARM_INSUFFICIENT_DATA;
}

static void push_alarm_changes(struct eng *e)
{
    for (int i = 0; i < e->nalarms; i++) {
        const struct sc_alarm_view *v = sc_cw_alarm_find(e->cw, e->alarms[i].name);
        char cause[64];
        struct sim_event ev = { 0 };
        if (!v || v->state == e->alarms[i].last)
            continue;
        snprintf(cause, sizeof(cause), "%s -> %s", sc_alarm_state_name(e->alarms[i].last),
                 sc_alarm_state_name(v->state));
        e->alarms[i].last = v->state;
        ev.kind = SIM_EVENT_ALARM;
        ev.t_ms = ev.end_ms = e->now_ms;
        ev.name = e->alarms[i].name;
        ev.cause = cause;
        ev.description = v->state_reason ? v->state_reason : "";
        ev.status = sc_alarm_state_name(v->state);
        sim_timeline_push_event(e->tl, &ev);
    }
}

/* ---- samples ---- */

/* Sorts entries by value (stable): bucketed by quantile level first, which leaves them
 * almost in order (a level's values come from ticks with similar load), then an
 * insertion sort fixes what is left. tmp holds n entries. */
static void sort_ents(struct sim_latency_entry *v, struct sim_latency_entry *tmp, int n)
{
    int start[17] = { 0 };

    for (int i = 0; i < n; i++)
        start[(v[i].level & 15) + 1]++;
    for (int k = 0; k < 16; k++)
        start[k + 1] += start[k];
    for (int i = 0; i < n; i++)
        tmp[start[v[i].level & 15]++] = v[i];
    memcpy(v, tmp, (size_t)n * sizeof(*v));
    for (int i = 1; i < n; i++) {
        struct sim_latency_entry x = v[i];
        int j = i;
        while (j > 0 && v[j - 1].value_us > x.value_us) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* p50 and p99 of the sample's latencies; adds them to the run's histogram. Reads the
 * model's short list when it has one (no walk over the histogram's slots). */
static void sample_latency(struct eng *e, struct sim_sample *s, struct sim_checker *checker)
{
    const struct sim_latency_entry *ents;
    int n = e->need_hist ? -1 : sim_model_latency_entries(e->model, &ents);
    uint64_t total = 0;

    if (n < 0) {
        const struct cm_hist *h = sim_model_hist(e->model);
        if (h->total > 0) {
            s->p50_ms = (double)cm_hist_percentile(h, 50) / 1000.0;
            s->p99_ms = (double)cm_hist_percentile(h, 99) / 1000.0;
        }
        if (checker)
            sim_checker_on_hist(checker, e->now_ms, h);
        cm_hist_merge(&e->run_hist, h);
        sim_model_hist_reset(e->model);
        return;
    }
    if (2 * n > e->cap_ents) {
        e->cap_ents = n * 4;
        e->ents = cm_xrealloc(e->ents, (size_t)e->cap_ents * sizeof(*e->ents));
    }
    for (int i = 0; i < n; i++) {
        e->ents[i] = ents[i];
        total += ents[i].count;
    }
    if (total > 0) {
        /* cm_hist_percentile() over the histogram these entries make (same slots, same
         * answers), walking the sorted entries slot by slot; each slot goes to the run's
         * histogram in at most two recordings (its first and last value keep the exact
         * minimum and maximum) */
        const struct cm_hist *lay = &e->run_hist;
        uint64_t want50 = (uint64_t)ceil(0.5 * (double)total), seen = 0;
        uint64_t want99 = (uint64_t)ceil(0.99 * (double)total);
        int64_t vmin, vmax;
        int got50 = 0, got99 = 0;

        sort_ents(e->ents, e->ents + n, n);
        vmin = e->ents[0].value_us;
        vmax = e->ents[n - 1].value_us;
        want50 = want50 ? want50 : 1;
        want99 = want99 ? want99 : 1;
        for (int i = 0; i < n;) {
            int idx = cm_hist_index_of(lay, e->ents[i].value_us), j = i + 1;
            uint64_t rest = 0;
            /* the slot's highest value: the sorted entries up to it share the slot */
            int64_t top = cm_hist_value_at(lay, idx), v;
            while (j < n && e->ents[j].value_us <= top)
                rest += e->ents[j++].count;
            cm_hist_record_n(&e->run_hist, e->ents[i].value_us, e->ents[i].count);
            if (j - i > 1)
                cm_hist_record_n(&e->run_hist, e->ents[j - 1].value_us, rest);
            seen += e->ents[i].count + rest;
            v = top;
            v = v > vmax ? vmax : v < vmin ? vmin : v;
            if (!got50 && seen >= want50) {
                s->p50_ms = (double)v / 1000.0;
                got50 = 1;
            }
            if (!got99 && seen >= want99) {
                s->p99_ms = (double)v / 1000.0;
                got99 = 1;
            }
            i = j;
        }
    }
    sim_model_hist_reset(e->model);
}

static void emit_sample(struct eng *e, int64_t interval_ms, struct sim_checker *checker)
{
    struct sim_group_sample gs[SIM_TIMELINE_MAX_GROUPS];
    enum sim_alarm_state as[SIM_TIMELINE_MAX_ALARMS];
    double gbusy[SIM_TIMELINE_MAX_GROUPS] = { 0 }, gcap[SIM_TIMELINE_MAX_GROUPS] = { 0 };
    struct sim_sample s = { 0 };
    double done = 0, fail = 0, arrived = 0;
    int64_t t0 = us(e->now_ms - interval_ms), t1 = us(e->now_ms);

    for (int lb = 0; lb < e->sc->nlbs; lb++) {
        struct lb_state *ls = &e->lbs[lb];
        struct sim_lb_counters c;
        sim_model_lb_counters(e->model, lb, &c);
        done += c.completed - ls->smp_snap.completed;
        fail += c.failed - ls->smp_snap.failed;
        arrived += c.arrived - ls->smp_snap.arrived;
        ls->smp_snap = c;
    }
    const struct sim_slot_cpu *tab;
    int nslots = cpu_table(e, &tab), cur_g = -1;
    double cur_busy = 0, cur_cap = 0;

    for (int slot = 0; slot < nslots; slot++) {
        struct slot_state *ss = &e->slots[slot];
        double busy = tab[slot].busy_worker_us, up = tab[slot].up_us;
        int g = ss->group;
        if (!tab[slot].state)
            continue;
        if (g >= 0 && up > ss->smp_up) {
            /* the group being summed stays in locals, as in metrics_minute() */
            if (g != cur_g) {
                if (cur_g >= 0) {
                    gbusy[cur_g] = cur_busy;
                    gcap[cur_g] = cur_cap;
                }
                cur_g = g;
                cur_busy = gbusy[g];
                cur_cap = gcap[g];
            }
            cur_busy += busy - ss->smp_busy;
            cur_cap += (up - ss->smp_up) * tab[slot].workers;
        }
        ss->smp_busy = busy;
        ss->smp_up = up;
    }
    if (cur_g >= 0) {
        gbusy[cur_g] = cur_busy;
        gcap[cur_g] = cur_cap;
    }
    for (int g = 0; g < e->sc->ngroups; g++) {
        const struct sc_asg_group_info *gi = sc_asg_group_find(e->asg, e->sc->groups[g].name);
        struct sim_group_sample *o = &gs[g];
        memset(o, 0, sizeof(*o));
        if (gi) {
            o->desired = gi->desired_capacity;
            sc_asg_group_lifecycle_counts(gi, &o->pending, &o->in_service, &o->terminating);
        }
        o->cpu_pct = gcap[g] > 0 ? 100.0 * gbusy[g] / gcap[g] : NAN;
        o->demand = e->groups[g].lb >= 0
                        ? sim_model_demand(e->model, e->groups[g].lb, e->groups[g].app,
                                           e->sc->demand_target_pct,
                                           1.0 / (e->lbs[e->groups[g].lb].ngroups_behind
                                                      ? e->lbs[e->groups[g].lb].ngroups_behind
                                                      : 1),
                                           t0, t1)
                        : 0;
    }
    for (int i = 0; i < e->nalarms; i++)
        as[i] = to_sim_state(e->alarms[i].last);

    s.t_ms = e->now_ms;
    s.interval_ms = interval_ms;
    s.load = sim_model_offered_load(e->model, t1 - 1, &s.load_is_clients);
    s.offered_rps = arrived / ((double)interval_ms / 1000.0);
    if (e->mode == SIM_MODE_FLUID) {
        s.completed = (uint64_t)llround(done);
        s.failed = (uint64_t)llround(fail);
    } else {
        s.completed = (uint64_t)llround(done);
        s.failed = (uint64_t)llround(fail);
    }
    sample_latency(e, &s, checker);
    s.error_pct = done + fail > 0 ? 100.0 * fail / (done + fail) : 0;
    s.ngroups = e->sc->ngroups;
    s.groups = gs;
    s.nalarms = e->nalarms;
    s.alarms = as;
    sim_timeline_push_sample(e->tl, &s);
}

/* ---- the loop ---- */

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
                            sc->lcs[sim_scenario_lc_index(sc, sc->groups[g].launch_configuration)]
                                    .app.service_mean_ms /
                                1000.0);
            peak = peak / (ph->think_ms / 1000.0 + s);
        }
        total += peak * dur_s;
    }
    if (est_requests)
        *est_requests = total;
    return total <= SIM_AUTO_DES_MAX_REQUESTS ? SIM_MODE_DES : SIM_MODE_FLUID;
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

    for (int g = 0; g < e->sc->ngroups && g < SIM_TIMELINE_MAX_GROUPS; g++)
        gnames[g] = e->sc->groups[g].name;
    for (int i = 0; i < e->nalarms; i++) {
        const struct sc_alarm_view *v = sc_cw_alarm_find(e->cw, e->alarms[i].name);
        ai[i].name = e->alarms[i].name;
        ai[i].metric = v ? v->metric_name : "";
        ai[i].comparison = v ? v->comparison_operator : "";
        ai[i].threshold = v ? v->threshold : 0;
    }
    tc.start_ms = e->start_ms;
    tc.end_ms = e->end_ms;
    tc.interval_ms = e->sample_ms;
    tc.scenario_name = e->sc->name;
    tc.ngroups = e->sc->ngroups;
    tc.group_names = gnames;
    tc.nalarms = e->nalarms;
    tc.alarms = ai;
    e->tl = sim_timeline_create(&tc);
}

static void eng_cleanup(struct eng *e)
{
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
    e.alarms = cm_xcalloc((size_t)sc->nalarms + 2 * (size_t)sc->npolicies + 1, sizeof(*e.alarms));
    e.faults = cm_xcalloc((size_t)sc->nfaults + 1, sizeof(*e.faults));

    rc = setup_lbs(&e);
    if (!rc)
        rc = setup_lcs_groups(&e);
    if (!rc)
        rc = setup_policies(&e);
    if (!rc)
        rc = setup_alarms(&e);
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
    plan_metrics(&e);
    setup_health(&e);
    for (int i = 0; i < sc->nfaults; i++)
        e.faults[i].f = &sc->faults[i];
    qsort(e.faults, (size_t)sc->nfaults, sizeof(*e.faults), cmp_fault);

    mc.mode = e.mode;
    mc.sc = sc;
    mc.start_us = us(e.start_ms);
    mc.seed = cfg->seed;
    mc.tick_us = cfg->tick_us;
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
            sync_routes(&e);
            push_activities(&e);
            push_alarm_changes(&e);
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
        for (int lb = 0; lb < sc->nlbs; lb++)
            if (e.lbs[lb].hc_next_ms < t)
                t = e.lbs[lb].hc_next_ms;
        for (int i = 0; i < sc->nfaults; i++) {
            struct fault_track *ft = &e.faults[i];
            int64_t fs = e.start_ms + ft->f->at_ms;
            if (!ft->started && fs < t)
                t = fs;
            if (ft->started && !ft->ended && ft->f->for_ms > 0 && fs + ft->f->for_ms < t)
                t = fs + ft->f->for_ms;
        }
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
        if (reported || e.now_ms >= world_due)
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
