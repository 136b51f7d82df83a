/* scaler/world.c: see world.h. Wires sc_asg's env callbacks to sc_ec2, sc_elb and sc_cw,
 * and routes CloudWatch alarm actions to Auto Scaling policies. */
#include "scaler/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/anomaly.h"
#include "scaler/asg.h"
#include "scaler/asg_predict.h"
#include "scaler/cloudwatch.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "scaler/elbv2.h"
#include "scaler/hash.h"
#include "scaler/save.h"

struct sc_world {
    char account[32];
    char region[32];
    char zones[SC_WORLD_MAX_ZONES][SC_ASG_ID_LEN];
    int nzones;
    struct sc_rng rng;
    struct sc_ec2 *ec2;
    struct sc_elb *elb;
    struct sc_elbv2 *elbv2;
    struct sc_cw *cw;
    struct sc_asg *asg;
    int (*tz_offset)(void *ud, const char *zone, int64_t utc_ms, int *offset_s);
    void *tz_ud;
    int64_t last_ms;
    uint64_t elb_ec2_sig; /* ec2_sig() when sc_elb_step last ran; 0 before */
    int elb_idle_ok;      /* then, no instance that is not running was registered */
    /* sc_ec2_next_due_ms() (a function of the records alone) as of
     * sc_ec2_generation() == ec2_due_gen (0: none yet) */
    uint64_t ec2_due_gen;
    int64_t ec2_due;
    /* during sc_world_step: ec2_sig() now, while step_sig_valid (a launch or termination
     * through the asg clears it) */
    uint64_t step_sig;
    int step_sig_valid;
    /* ec2_sig() as of sc_ec2_generation() == ec2_sig_gen (0: none yet) */
    uint64_t ec2_sig_gen;
    uint64_t ec2_sig_val;
    char action_msg[SC_ERR_MESSAGE_LEN + 64];
};

/* A hash of the EC2 records: identity, state, status checks; computed again only when
 * the records changed (sc_ec2_generation). */
static uint64_t ec2_sig(struct sc_world *w)
{
    uint64_t h = SC_HASH_FNV1A_BASIS;
    uint64_t gen = sc_ec2_generation(w->ec2);
    int n;

    if (w->ec2_sig_gen == gen)
        return w->ec2_sig_val;
    n = sc_ec2_instance_count(w->ec2);
    h = sc_hash_mix(h, (uint64_t)n);
    for (int i = 0; i < n; i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(w->ec2, i);

        h = sc_hash_mix(h, (uint64_t)(uintptr_t)in);
        h = sc_hash_mix(h, (uint64_t)in->state << 16 | (uint64_t)in->instance_status << 8 |
                               (uint64_t)in->system_status);
    }
    w->ec2_sig_gen = gen;
    w->ec2_sig_val = h ? h : 1;
    return w->ec2_sig_val;
}

void sc_world_config_defaults(struct sc_world_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->account_id = "123456789012";
    cfg->region = "us-east-1";
    cfg->health_sweep_ms = 10000;
}

static uint64_t world_rand64(void *ud)
{
    return sc_rng_next(ud);
}

/* --- the asg's view of EC2 --------------------------------------------------------------- */

static enum sc_status env_run(void *ud, const struct sc_asg_launch_spec *s, int64_t now_ms,
                              char id_out[SC_ASG_ID_LEN], struct sc_error *err)
{
    struct sc_world *w = ud;
    struct sc_ec2_tag tags[SC_ASG_MAX_TAGS + 1];
    struct sc_ec2_run_req r;
    const struct sc_ec2_reservation *res = NULL;
    enum sc_status st;
    int nt = s->ntags < SC_ASG_MAX_TAGS + 1 ? s->ntags : SC_ASG_MAX_TAGS + 1;

    for (int i = 0; i < nt; i++) {
        tags[i].key = s->tags[i].key;
        tags[i].value = s->tags[i].value;
    }
    memset(&r, 0, sizeof(r));
    r.image_id = s->image_id;
    r.instance_type = s->instance_type;
    r.min_count = 1;
    r.max_count = 1;
    r.key_name = s->key_name;
    r.subnet_id = s->subnet_id;
    r.availability_zone = s->subnet_id ? NULL : s->zone;
    r.user_data = s->user_data;
    r.tags = tags;
    r.ntags = nt;
    r.monitoring_enabled = s->monitoring_enabled;
    r.launch_template_id = s->launch_template_id;
    r.launch_template_name = s->launch_template_name;
    r.launch_template_version = s->launch_template_version;
    r.launch_configuration_name = s->launch_configuration_name;
    w->step_sig_valid = 0;
    st = sc_ec2_run_instances(w->ec2, &r, now_ms, &res, err);
    if (st != SC_OK)
        return st;
    if (!res || res->ninstances < 1)
        return sc_fail(err, SC_ERR_INTERNAL, "RunInstances returned no instance");
    snprintf(id_out, SC_ASG_ID_LEN, "%s", res->instances[0]->instance_id);
    return SC_OK;
}

static void env_terminate(void *ud, const char *id, int64_t now_ms)
{
    struct sc_world *w = ud;
    struct sc_error err;

    w->step_sig_valid = 0;
    (void)sc_ec2_terminate_instances(w->ec2, &id, 1, now_ms, NULL, &err);
}

/* Warm pools (asg_warm.h): StopInstances / StartInstances of one instance. */
static void env_stop(void *ud, const char *id, int64_t now_ms)
{
    struct sc_world *w = ud;
    struct sc_error err;

    w->step_sig_valid = 0;
    (void)sc_ec2_stop_instances(w->ec2, &id, 1, now_ms, NULL, &err);
}

static void env_hibernate(void *ud, const char *id, int64_t now_ms)
{
    struct sc_world *w = ud;
    struct sc_error err;

    w->step_sig_valid = 0;
    (void)sc_ec2_hibernate_instances(w->ec2, &id, 1, now_ms, NULL, &err);
}

static void env_start(void *ud, const char *id, int64_t now_ms)
{
    struct sc_world *w = ud;
    struct sc_error err;

    w->step_sig_valid = 0;
    (void)sc_ec2_start_instances(w->ec2, &id, 1, now_ms, NULL, &err);
}

static enum sc_asg_ec2_state env_state(void *ud, const char *id)
{
    struct sc_world *w = ud;
    const struct sc_ec2_instance *in = sc_ec2_instance_find(w->ec2, id);

    if (!in)
        return SC_ASG_EC2_GONE;
    switch (in->state) {
    case SC_EC2_PENDING:
        return SC_ASG_EC2_PENDING;
    case SC_EC2_RUNNING:
        return in->instance_status == SC_EC2_CHECK_IMPAIRED ||
                       in->system_status == SC_EC2_CHECK_IMPAIRED
                   ? SC_ASG_EC2_IMPAIRED
                   : SC_ASG_EC2_RUNNING;
    case SC_EC2_SHUTTING_DOWN:
        return SC_ASG_EC2_SHUTTING_DOWN;
    case SC_EC2_STOPPING:
        return SC_ASG_EC2_STOPPING;
    case SC_EC2_STOPPED:
        return SC_ASG_EC2_STOPPED;
    case SC_EC2_TERMINATED:
        break;
    }
    return SC_ASG_EC2_GONE;
}

static int env_instance_zone(void *ud, const char *id, char zone[SC_ASG_ID_LEN])
{
    struct sc_world *w = ud;
    const struct sc_ec2_instance *in = sc_ec2_instance_find(w->ec2, id);

    if (!in || !in->availability_zone)
        return -1;
    snprintf(zone, SC_ASG_ID_LEN, "%s", in->availability_zone);
    return 0;
}

static int env_instance_attrs(void *ud, const char *id, struct sc_asg_instance_attrs *out)
{
    struct sc_world *w = ud;
    const struct sc_ec2_instance *in = sc_ec2_instance_find(w->ec2, id);

    if (!in || in->state == SC_EC2_TERMINATED)
        return -1;
    /* EC2 here keeps no security groups nor IAM profile on an instance */
    memset(out, 0, sizeof(*out));
    out->image_id = in->image_id;
    out->instance_type = in->instance_type;
    out->key_name = in->key_name;
    out->user_data = in->user_data;
    out->monitoring_enabled = in->monitoring_enabled;
    out->availability_zone = in->availability_zone;
    out->subnet_id = in->subnet_id;
    return 0;
}

static int env_subnet_zone(void *ud, const char *subnet, char zone[SC_ASG_ID_LEN])
{
    struct sc_world *w = ud;
    const struct sc_ec2_subnet *s = sc_ec2_subnet_find(w->ec2, subnet);

    if (!s || !s->availability_zone)
        return -1;
    snprintf(zone, SC_ASG_ID_LEN, "%s", s->availability_zone);
    return 0;
}

static int env_zone_valid(void *ud, const char *zone)
{
    struct sc_world *w = ud;

    return sc_ec2_zone_find(w->ec2, zone) != NULL;
}

static int env_zone_id(void *ud, const char *zone, char id[SC_ASG_ID_LEN])
{
    struct sc_world *w = ud;
    const struct sc_ec2_zone *z = sc_ec2_zone_find(w->ec2, zone);

    if (!z || !z->zone_id)
        return -1;
    snprintf(id, SC_ASG_ID_LEN, "%s", z->zone_id);
    return 0;
}

static enum sc_status env_lt_resolve(void *ud, const char *id, const char *name,
                                     const char *version, struct sc_asg_lt_resolved *out,
                                     struct sc_error *err)
{
    struct sc_world *w = ud;
    const struct sc_ec2_lt_version *v = NULL;
    enum sc_status st = sc_ec2_resolve_launch_template(w->ec2, id, name, version, &v, err);

    if (st != SC_OK || !out)
        return st;
    snprintf(out->launch_template_id, sizeof(out->launch_template_id), "%s",
             v->launch_template_id ? v->launch_template_id : "");
    snprintf(out->launch_template_name, sizeof(out->launch_template_name), "%s",
             v->launch_template_name ? v->launch_template_name : "");
    snprintf(out->instance_type, sizeof(out->instance_type), "%s",
             v->data.instance_type ? v->data.instance_type : "");
    return SC_OK;
}

static double env_price(void *ud, const char *instance_type)
{
    const struct sc_ec2_instance_type *t = sc_ec2_instance_type_find(instance_type);

    (void)ud;
    return t ? t->on_demand_usd_per_hour : -1;
}

/* --- the asg's view of the load balancers ------------------------------------------------- */

/* The asg names classic load balancers by name and ELBv2 target groups by ARN (its
 * TargetGroupARNs): one set of callbacks serves both. */
static int is_tg_arn(const char *lb)
{
    return lb && strncmp(lb, "arn:", 4) == 0 && strstr(lb, ":targetgroup/") != NULL;
}

static int env_lb_exists(void *ud, const char *lb)
{
    struct sc_world *w = ud;

    if (is_tg_arn(lb))
        return sc_elbv2_tg_find(w->elbv2, lb) != NULL;
    return sc_elb_lb_find(w->elb, lb) != NULL;
}

/* Registers or deregisters an instance with a target group on the group's port. */
static void tg_change(struct sc_world *w, const char *arn, const char *id, int reg, int64_t now_ms)
{
    struct sc_elbv2_target_req t = { .id = id };
    struct sc_error err;

    if (reg)
        (void)sc_elbv2_register_targets(w->elbv2, arn, &t, 1, now_ms, &err);
    else
        (void)sc_elbv2_deregister_targets(w->elbv2, arn, &t, 1, now_ms, &err);
}

static void env_lb_register(void *ud, const char *lb, const char *id, int64_t now_ms)
{
    struct sc_world *w = ud;
    struct sc_error err;

    if (is_tg_arn(lb)) {
        tg_change(w, lb, id, 1, now_ms);
        return;
    }
    (void)sc_elb_register_instances(w->elb, lb, &id, 1, now_ms, &err);
}

static void env_lb_deregister(void *ud, const char *lb, const char *id, int64_t now_ms)
{
    struct sc_world *w = ud;
    struct sc_error err;

    if (is_tg_arn(lb)) {
        tg_change(w, lb, id, 0, now_ms);
        return;
    }
    (void)sc_elb_deregister_instances(w->elb, lb, &id, 1, now_ms, &err);
}

static enum sc_asg_lb_state env_lb_state(void *ud, const char *lb, const char *id)
{
    struct sc_world *w = ud;
    struct sc_elb_instance_health h;
    struct sc_error err;
    int n = 0;

    if (is_tg_arn(lb)) {
        /* initial and unused are not failed health checks (docs/elbv2.md 9) */
        switch (sc_elbv2_instance_membership(w->elbv2, lb, id)) {
        case SC_ELBV2_MEMBER_HEALTHY:
            return SC_ASG_LB_IN_SERVICE;
        case SC_ELBV2_MEMBER_UNHEALTHY:
            return SC_ASG_LB_OUT_OF_SERVICE;
        case SC_ELBV2_MEMBER_DRAINING:
            return SC_ASG_LB_DRAINING;
        default:
            return SC_ASG_LB_NOT_REGISTERED;
        }
    }
    if (sc_elb_instance_draining(w->elb, lb, id))
        return SC_ASG_LB_DRAINING;
    if (sc_elb_instance_in_service(w->elb, lb, id))
        return SC_ASG_LB_IN_SERVICE;
    if (sc_elb_describe_instance_health(w->elb, lb, &id, 1, &h, &n, &err) != SC_OK || n < 1)
        return SC_ASG_LB_NOT_REGISTERED;
    /* Registration still in progress (first check not passed yet) or not registered: not
     * a failed health check, so not a reason to replace the instance. */
    if (h.description && (strstr(h.description, "registration is still in progress") ||
                          strstr(h.description, "not currently registered")))
        return SC_ASG_LB_NOT_REGISTERED;
    return SC_ASG_LB_OUT_OF_SERVICE;
}

/* --- the asg's view of CloudWatch ----------------------------------------------------------- */

static enum sc_status env_put_alarm(void *ud, const struct sc_asg_alarm_spec *a, int64_t now_ms,
                                    struct sc_error *err)
{
    struct sc_world *w = ud;
    struct sc_dimension dims[32];
    struct sc_put_metric_alarm_req r;
    int nd = a->ndimensions < 32 ? a->ndimensions : 32;

    for (int i = 0; i < nd; i++) {
        dims[i].name = a->dimensions[i].key;
        dims[i].value = a->dimensions[i].value;
    }
    memset(&r, 0, sizeof(r));
    r.alarm_name = a->alarm_name;
    r.alarm_description = a->alarm_description;
    r.alarm_actions = &a->alarm_action;
    r.n_alarm_actions = 1;
    r.metric_name = a->metric_name;
    r.namespace = a->namespace_;
    r.statistic = a->statistic;
    r.dimensions = dims;
    r.n_dimensions = nd;
    r.has_period = 1;
    r.period = a->period_s;
    r.unit = a->unit;
    r.has_evaluation_periods = 1;
    r.evaluation_periods = a->evaluation_periods;
    r.has_datapoints_to_alarm = 1;
    r.datapoints_to_alarm = a->datapoints_to_alarm;
    r.has_threshold = 1;
    r.threshold = a->threshold;
    r.comparison_operator = a->comparison_operator;
    if (a->nmetrics) {
        r.has_metrics = 1;
        r.metrics = a->metrics;
        r.n_metrics = a->nmetrics;
        r.has_period = 0;
        r.n_dimensions = 0;
    }
    return sc_cw_put_metric_alarm(w->cw, &r, now_ms, err);
}

static void env_delete_alarm(void *ud, const char *name, int64_t now_ms)
{
    struct sc_world *w = ud;
    struct sc_error err;

    (void)sc_cw_delete_alarms(w->cw, &name, 1, now_ms, &err);
}

static int env_in_alarm(void *ud, const char *name)
{
    struct sc_world *w = ud;
    const struct sc_alarm_view *a = sc_cw_alarm_find(w->cw, name);

    return a && a->state == SC_ALARM_ALARM;
}

static void env_put_metric(void *ud, const char *ns, const char *name, const char *dim_name,
                           const char *dim_value, double value, const char *unit, int64_t now_ms)
{
    struct sc_world *w = ud;
    struct sc_dimension d = { .name = dim_name, .value = dim_value };

    (void)sc_cw_put_value(w->cw, ns, name, &d, 1, unit, value, now_ms,
                          w->last_ms > now_ms ? w->last_ms : now_ms);
}

/* Everything env_state and env_lb_state can answer, hashed (see sc_asg_env): each EC2
 * record's identity, state and status checks, and with with_lb each registration's
 * identity, health state, draining flag and (when not InService) its standing. */
static uint64_t env_health_sig(void *ud, int with_lb)
{
    struct sc_world *w = ud;
    uint64_t h = w->step_sig_valid ? w->step_sig : ec2_sig(w);

    for (int l = 0; with_lb && l < sc_elb_lb_count(w->elb); l++) {
        const char *name = sc_elb_lb_at(w->elb, l)->load_balancer_name;
        int nt = sc_elb_target_count(w->elb, name);

        h = sc_hash_mix(h, (uint64_t)(uintptr_t)name);
        h = sc_hash_mix(h, (uint64_t)nt);
        for (int i = 0; i < nt; i++) {
            struct sc_elb_target t;

            if (sc_elb_target_at(w->elb, name, i, &t) != 0)
                continue;
            h = sc_hash_mix(h, (uint64_t)(uintptr_t)t.instance_id);
            h = sc_hash_mix(h, (uint64_t)t.state << 1 | (uint64_t)(t.draining != 0));
            if (t.state != SC_ELB_IN_SERVICE)
                h = sc_hash_mix(h, (uint64_t)env_lb_state(w, name, t.instance_id));
        }
    }
    for (int g = 0; with_lb && g < sc_elbv2_tg_count(w->elbv2); g++) {
        const char *arn = sc_elbv2_tg_at(w->elbv2, g)->arn;
        int nt = sc_elbv2_target_count(w->elbv2, arn);

        h = sc_hash_mix(h, (uint64_t)(uintptr_t)arn);
        h = sc_hash_mix(h, (uint64_t)nt);
        for (int i = 0; i < nt; i++) {
            struct sc_elbv2_target_health t;

            if (sc_elbv2_target_at(w->elbv2, arn, i, &t) != 0)
                continue;
            h = sc_hash_mix(h, (uint64_t)(uintptr_t)t.id);
            h = sc_hash_mix(h, (uint64_t)t.state);
        }
    }
    return h;
}

int sc_world_policy_alarms(const struct sc_world *w, const char *policy_arn,
                           const struct sc_alarm_view **out, int max)
{
    return sc_alarms_with_action(sc_cw_alarms(w->cw), policy_arn, out, max);
}

/* --- alarm actions -> policies ---------------------------------------------------------------- */

static double aggregate(const double *v, int n, const char *how)
{
    double r = v[0];

    for (int i = 1; i < n; i++) {
        if (how && strcmp(how, "Minimum") == 0)
            r = v[i] < r ? v[i] : r;
        else if (how && strcmp(how, "Maximum") == 0)
            r = v[i] > r ? v[i] : r;
        else
            r += v[i];
    }
    if (!how || (strcmp(how, "Minimum") != 0 && strcmp(how, "Maximum") != 0))
        r /= n;
    return r;
}

static const char *on_alarm_action(const char *arn, const struct sc_alarm_view *alarm,
                                   int64_t now_ms, void *ud)
{
    struct sc_world *w = ud;
    const struct sc_asg_policy_info *p;
    struct sc_asg_alarm_ctx ctx = { 0 };
    struct sc_error err = { 0 };

    if (!arn || strncmp(arn, "arn:aws:autoscaling:", 20) != 0)
        return NULL; /* other action kinds (SNS, EC2) have no receiver here */
    p = sc_asg_policy_find(w->asg, NULL, arn);
    if (!p) {
        snprintf(w->action_msg, sizeof(w->action_msg),
                 "Failed to execute Auto Scaling action: No scaling policy found for %s", arn);
        return w->action_msg;
    }
    ctx.alarm_name = alarm->alarm_name;
    ctx.threshold = alarm->threshold;
    if (alarm->n_recent_values > 0) {
        ctx.has_metric_value = 1;
        if (p->policy_type == SC_ASG_STEP_SCALING)
            ctx.metric_value =
                aggregate(alarm->recent_values, alarm->n_recent_values, p->metric_aggregation_type);
        else
            ctx.metric_value = alarm->recent_values[0];
    }
    if (sc_asg_alarm_action(w->asg, arn, &ctx, now_ms, &err) != SC_OK) {
        snprintf(w->action_msg, sizeof(w->action_msg), "Failed to execute Auto Scaling action: %s",
                 err.message);
        return w->action_msg;
    }
    return NULL;
}

/* Predictive scaling's history (sc_asg_env.load_history): per-minute statistics, a day per
 * GetMetricStatistics call (its 1,440-datapoint limit), each hour the mean of its minutes. */
struct hourly {
    int64_t from_ms;
    int n;
    double *sum;
    int *cnt;
};

static int hourly_visit(const struct sc_datapoint *dp, void *ud)
{
    struct hourly *h = ud;
    int64_t i = (dp->timestamp_ms - h->from_ms) / 3600000;

    if (i >= 0 && i < h->n && (dp->has[0] || dp->ext_has[0])) {
        h->sum[i] += dp->has[0] ? dp->value[0] : dp->ext_value[0];
        h->cnt[i]++;
    }
    return 0;
}

static void env_load_history(void *ud, const struct sc_metric_key *m, const char *stat,
                             const char *unit, int64_t from_ms, int n, double *out, int64_t now_ms)
{
    struct sc_world *w = ud;
    double sum[SC_PREDICT_HISTORY_HOURS] = { 0 };
    int cnt[SC_PREDICT_HISTORY_HOURS] = { 0 };
    struct hourly h = { from_ms, n < SC_PREDICT_HISTORY_HOURS ? n : SC_PREDICT_HISTORY_HOURS, sum,
                        cnt };
    int pct = stat && stat[0] == 'p';

    for (int64_t day = 0; day * 24 < h.n; day++) {
        struct sc_get_metric_statistics_req q = { 0 };
        int64_t a = from_ms + day * 24 * 3600000;
        int64_t b = a + 24 * 3600000;
        struct sc_error err = { 0 };

        if (b > from_ms + (int64_t)h.n * 3600000)
            b = from_ms + (int64_t)h.n * 3600000;
        q.namespace = m->namespace;
        q.metric_name = m->metric_name;
        q.dimensions = m->dimensions;
        q.n_dimensions = m->n_dimensions;
        q.has_start_time = q.has_end_time = q.has_period = 1;
        q.start_time_ms = a;
        q.end_time_ms = b;
        q.period = 60;
        q.statistics = pct ? NULL : &stat;
        q.n_statistics = pct ? 0 : 1;
        q.extended_statistics = pct ? &stat : NULL;
        q.n_extended_statistics = pct ? 1 : 0;
        q.unit = unit;
        (void)sc_cw_get_metric_statistics(w->cw, &q, now_ms, hourly_visit, &h, &err);
    }
    for (int i = 0; i < h.n; i++)
        out[i] = cnt[i] ? sum[i] / cnt[i] : NAN;
}

/* --- create / destroy ------------------------------------------------------------------------- */

static int env_tz_offset(void *ud, const char *zone, int64_t utc_ms, int *offset_s)
{
    struct sc_world *w = ud;

    return w->tz_offset(w->tz_ud, zone, utc_ms, offset_s);
}

struct sc_world *sc_world_create(const struct sc_world_config *cfg)
{
    struct sc_world_config def;
    struct sc_world *w;
    struct sc_ec2_config ec;
    struct sc_elb_config lc;
    struct sc_cw_config cc;
    struct sc_asg_config ac;
    const char *zones[SC_WORLD_MAX_ZONES];

    if (!cfg) {
        sc_world_config_defaults(&def);
        cfg = &def;
    }
    if (cfg->nzones < 0 || cfg->nzones > SC_WORLD_MAX_ZONES)
        return NULL;
    if ((cfg->account_id && !cfg->account_id[0]) || (cfg->region && !cfg->region[0]))
        return NULL;
    w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    snprintf(w->account, sizeof(w->account), "%s",
             cfg->account_id ? cfg->account_id : "123456789012");
    snprintf(w->region, sizeof(w->region), "%s", cfg->region ? cfg->region : "us-east-1");
    if (cfg->nzones == 0) {
        w->nzones = 3;
        for (int i = 0; i < 3; i++)
            snprintf(w->zones[i], sizeof(w->zones[i]), "%.20s%c", w->region, 'a' + i);
    } else {
        w->nzones = cfg->nzones;
        for (int i = 0; i < cfg->nzones; i++) {
            if (!cfg->zones[i] || !cfg->zones[i][0])
                goto fail;
            snprintf(w->zones[i], sizeof(w->zones[i]), "%s", cfg->zones[i]);
        }
    }
    for (int i = 0; i < w->nzones; i++)
        zones[i] = w->zones[i];
    sc_rng_init(&w->rng, cfg->seed);
    w->last_ms = cfg->start_ms;

    memset(&ec, 0, sizeof(ec));
    ec.account_id = w->account;
    ec.region = w->region;
    ec.zones = zones;
    ec.nzones = w->nzones;
    ec.rand64 = world_rand64;
    ec.rand_ud = &w->rng;
    ec.host_room = cfg->host_room;
    ec.host_ud = cfg->host_ud;
    ec.max_vcpus = cfg->max_vcpus;
    w->ec2 = sc_ec2_create(&ec);
    if (!w->ec2)
        goto fail;

    memset(&lc, 0, sizeof(lc));
    lc.account_id = w->account;
    lc.region = w->region;
    lc.ec2 = w->ec2;
    lc.rand64 = world_rand64;
    lc.rand_ud = &w->rng;
    w->elb = sc_elb_create(&lc);
    if (!w->elb)
        goto fail;
    {
        struct sc_elbv2_config vc = { .account_id = w->account,
                                      .region = w->region,
                                      .ec2 = w->ec2,
                                      .rand64 = world_rand64,
                                      .rand_ud = &w->rng };

        w->elbv2 = sc_elbv2_create(&vc);
        if (!w->elbv2)
            goto fail;
    }

    sc_cw_config_defaults(&cc);
    if (cfg->aws_retention)
        sc_metric_config_aws(&cc.metrics);
    if (cfg->max_metric_series > 0)
        cc.metrics.max_series = cfg->max_metric_series;
    cc.region = w->region;
    cc.account = w->account;
    cc.start_ms = cfg->start_ms;
    cc.dashboards = cfg->dashboards;
    w->cw = sc_cw_create(&cc);
    if (!w->cw)
        goto fail;
    sc_cw_set_action_handler(w->cw, on_alarm_action, w);
    if (cfg->tz_offset) /* alarm mute rules read their Timezone as scheduled actions do */
        sc_alarms_set_tz(sc_cw_alarms(w->cw), env_tz_offset, w);
    if (cfg->tz_offset) /* anomaly detectors' MetricTimezone */
        sc_anomaly_detectors_set_tz(sc_cw_anomaly(w->cw), env_tz_offset, w);

    memset(&ac, 0, sizeof(ac));
    ac.account_id = w->account;
    ac.region = w->region;
    ac.rng = &w->rng;
    ac.health_sweep_ms = cfg->health_sweep_ms;
    ac.env = (struct sc_asg_env){
        .ud = w,
        .run_instance = env_run,
        .terminate_instance = env_terminate,
        .instance_state = env_state,
        .instance_zone = env_instance_zone,
        .instance_attrs = env_instance_attrs,
        .subnet_zone = env_subnet_zone,
        .zone_valid = env_zone_valid,
        .zone_id = env_zone_id,
        .launch_template_resolve = env_lt_resolve,
        .on_demand_price = env_price,
        .lb_exists = env_lb_exists,
        .lb_register = env_lb_register,
        .lb_deregister = env_lb_deregister,
        .lb_instance_state = env_lb_state,
        .put_alarm = env_put_alarm,
        .delete_alarm = env_delete_alarm,
        .alarm_in_alarm = env_in_alarm,
        .put_metric = env_put_metric,
        .health_inputs_sig = env_health_sig,
        .tz_offset = cfg->tz_offset ? env_tz_offset : NULL,
        .stop_instance = env_stop,
        .start_instance = env_start,
        .hibernate_instance = env_hibernate,
        .load_history = env_load_history,
    };
    w->tz_offset = cfg->tz_offset;
    w->tz_ud = cfg->tz_ud;
    w->asg = sc_asg_create(&ac);
    if (!w->asg)
        goto fail;
    return w;

fail:
    sc_world_destroy(w);
    return NULL;
}

void sc_world_destroy(struct sc_world *w)
{
    if (!w)
        return;
    sc_asg_destroy(w->asg);
    sc_cw_destroy(w->cw);
    sc_elb_destroy(w->elb);
    sc_elbv2_destroy(w->elbv2);
    sc_ec2_destroy(w->ec2);
    free(w);
}

struct sc_elbv2 *sc_world_elbv2(struct sc_world *w)
{
    return w->elbv2;
}

struct sc_cw *sc_world_cw(struct sc_world *w)
{
    return w->cw;
}

struct sc_asg *sc_world_asg(struct sc_world *w)
{
    return w->asg;
}

struct sc_elb *sc_world_elb(struct sc_world *w)
{
    return w->elb;
}

struct sc_ec2 *sc_world_ec2(struct sc_world *w)
{
    return w->ec2;
}

struct sc_rng *sc_world_rng(struct sc_world *w)
{
    return &w->rng;
}

const char *sc_world_account(const struct sc_world *w)
{
    return w->account;
}

const char *sc_world_region(const struct sc_world *w)
{
    return w->region;
}

/* --- time ---------------------------------------------------------------------------------------
 */

void sc_world_step(struct sc_world *w, int64_t now_ms)
{
    if (now_ms < w->last_ms)
        now_ms = w->last_ms;
    w->last_ms = now_ms;
    /* The ELB step acts on EC2 changes (instances stopped or gone), on registrations of
     * instances that do not run (their health starts over at every step) and on drain
     * deadlines: with EC2 as it last saw it, no such registration and no deadline due,
     * it would change nothing. */
    {
        uint64_t es = ec2_sig(w);

        if (es != w->elb_ec2_sig || !w->elb_idle_ok ||
            sc_elb_next_due_ms(w->elb, now_ms) <= now_ms) {
            sc_elb_step(w->elb, now_ms);
            w->elb_ec2_sig = es;
            w->elb_idle_ok = 1;
            for (int i = 0; i < sc_ec2_instance_count(w->ec2) && w->elb_idle_ok; i++) {
                const struct sc_ec2_instance *in = sc_ec2_instance_at(w->ec2, i);
                if (in->state != SC_EC2_RUNNING &&
                    sc_elb_registered_anywhere(w->elb, in->instance_id))
                    w->elb_idle_ok = 0;
            }
        }
        /* the EC2 step has work only at its due time (status checks, purges), which
         * changes only with the records */
        if (sc_ec2_generation(w->ec2) != w->ec2_due_gen) {
            w->ec2_due = sc_ec2_next_due_ms(w->ec2, now_ms);
            w->ec2_due_gen = sc_ec2_generation(w->ec2);
        }
        if (now_ms >= w->ec2_due) {
            sc_ec2_step(w->ec2, now_ms);
            es = ec2_sig(w);
            w->ec2_due = sc_ec2_next_due_ms(w->ec2, now_ms);
            w->ec2_due_gen = sc_ec2_generation(w->ec2);
        }
        /* target groups: deregistration delays, targets whose instance EC2 dropped */
        sc_elbv2_step(w->elbv2, now_ms);
        w->step_sig = es;
        w->step_sig_valid = 1;
    }
    sc_cw_step(w->cw, now_ms);
    sc_asg_step(w->asg, now_ms);
    w->step_sig_valid = 0;
}

int64_t sc_world_next_due_ms(const struct sc_world *w, int64_t now_ms)
{
    int64_t due = sc_cw_next_due_ms(w->cw, now_ms);
    int64_t t;

    t = sc_elb_next_due_ms(w->elb, now_ms);
    if (t < due)
        due = t;
    t = sc_elbv2_next_due_ms(w->elbv2, now_ms);
    if (t < due)
        due = t;
    if (w->ec2_due_gen == sc_ec2_generation(w->ec2))
        t = w->ec2_due;
    else
        t = sc_ec2_next_due_ms(w->ec2, now_ms);
    if (t < due)
        due = t;
    t = sc_asg_next_due_ms(w->asg, now_ms);
    if (t < due)
        due = t;
    return due < now_ms ? now_ms : due;
}

enum sc_status sc_world_report_instance_cpu(struct sc_world *w, const char *instance_id, double pct,
                                            int64_t now_ms)
{
    const struct sc_asg_instance_info *member = NULL;
    const struct sc_asg_group_info *g;
    struct sc_dimension d;
    enum sc_status st;

    if (!isfinite(pct) || pct < 0 || pct > 100)
        return SC_ERR_VALIDATION;
    if (!instance_id)
        return SC_ERR_INSTANCE_ID_NOT_FOUND;
    /* A group member is known to EC2; others are looked up there. */
    g = sc_asg_instance_group(w->asg, instance_id, &member);
    if (!g && !sc_ec2_instance_find(w->ec2, instance_id))
        return SC_ERR_INSTANCE_ID_NOT_FOUND;
    d.name = "InstanceId";
    d.value = instance_id;
    st = sc_cw_put_value(w->cw, "AWS/EC2", "CPUUtilization", &d, 1, "Percent", pct, now_ms, now_ms);
    if (st != SC_OK)
        return st;
    if (g && member->lifecycle_state == SC_ASG_IN_SERVICE &&
        sc_asg_instance_warmed(w->asg, instance_id, now_ms)) {
        d.name = "AutoScalingGroupName";
        d.value = g->auto_scaling_group_name;
        st = sc_cw_put_value(w->cw, "AWS/EC2", "CPUUtilization", &d, 1, "Percent", pct, now_ms,
                             now_ms);
    }
    return st;
}

/* --- save / load (the emulator's --state; see world.h) ---------------------------------------- */

json_t *sc_world_save(const struct sc_world *w)
{
    json_t *o = json_object();
    json_t *zones = json_array();
    json_t *rng = json_array();
    int bad = !o || !zones || !rng;

    for (int i = 0; !bad && i < w->nzones; i++)
        bad |= json_array_append_new(zones, json_string(w->zones[i]));
    for (int i = 0; !bad && i < 4; i++) {
        char hex[17];

        snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)w->rng.s[i]);
        bad |= json_array_append_new(rng, json_string(hex));
    }
    if (bad) {
        json_decref(o);
        json_decref(zones);
        json_decref(rng);
        return NULL;
    }
    bad |= sc_save_int(o, "version", SC_WORLD_SAVE_VERSION);
    bad |= sc_save_str(o, "account", w->account);
    bad |= sc_save_str(o, "region", w->region);
    bad |= sc_save_take(o, "zones", zones);
    bad |= sc_save_take(o, "rng", rng);
    bad |= sc_save_int(o, "last_ms", w->last_ms);
    bad |= sc_save_take(o, "ec2", sc_ec2_save(w->ec2));
    bad |= sc_save_take(o, "elb", sc_elb_save(w->elb));
    bad |= sc_save_take(o, "elbv2", sc_elbv2_save(w->elbv2));
    bad |= sc_save_take(o, "asg", sc_asg_save(w->asg));
    /* CloudWatch's alarms, tags, history and evaluation clock; its datapoints live in the
     * emulator's metric journal (emulator/metric_journal.h) */
    bad |= sc_save_take(o, "cloudwatch", sc_cw_save(w->cw));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

enum sc_status sc_world_load(struct sc_world *w, const json_t *obj, struct sc_error *err)
{
    struct sc_load l;
    const json_t *a, *x;
    uint64_t rng[4] = { 0, 0, 0, 0 };
    int64_t last;
    enum sc_status st;
    const char *s;
    size_t k;

    sc_load_init(&l, "world", err);
    if (!json_is_object(obj))
        return sc_fail(err, SC_ERR_VALIDATION, "state: world: expected an object");
    if (sc_load_int(&l, obj, "version") != SC_WORLD_SAVE_VERSION && !l.failed)
        sc_load_fail(&l, "unknown version %lld (this build reads %d)",
                     (long long)json_integer_value(json_object_get(obj, "version")),
                     SC_WORLD_SAVE_VERSION);
    s = sc_load_cstr(&l, obj, "account");
    if (s && strcmp(s, w->account) != 0)
        sc_load_fail(&l, "saved for account %s, not %s", s, w->account);
    s = sc_load_cstr(&l, obj, "region");
    if (s && strcmp(s, w->region) != 0)
        sc_load_fail(&l, "saved for region %s, not %s", s, w->region);
    a = sc_load_array(&l, obj, "zones");
    if (a && !l.failed && (int)json_array_size(a) != w->nzones)
        sc_load_fail(&l, "zones: saved %zu, this world has %d", json_array_size(a), w->nzones);
    json_array_foreach(a, k, x)
    {
        if (l.failed)
            break;
        if (!json_is_string(x) || strcmp(json_string_value(x), w->zones[k]) != 0)
            sc_load_fail(&l, "zones: saved zone %zu is not %s", k, w->zones[k]);
    }
    a = sc_load_array(&l, obj, "rng");
    if (a && !l.failed && json_array_size(a) != 4)
        sc_load_fail(&l, "rng: expected 4 words");
    for (int i = 0; a && !l.failed && i < 4; i++) {
        s = json_string_value(json_array_get(a, (size_t)i));
        if (!s || strlen(s) != 16 || strspn(s, "0123456789abcdef") != 16)
            sc_load_fail(&l, "rng: expected 16 hex digits");
        else
            rng[i] = strtoull(s, NULL, 16);
    }
    last = sc_load_int(&l, obj, "last_ms");
    (void)sc_load_object(&l, obj, "ec2");
    (void)sc_load_object(&l, obj, "elb");
    (void)sc_load_object(&l, obj, "asg");
    if (l.failed)
        return err ? err->status : SC_ERR_VALIDATION;
    /* Each service loads whole or not at all; a failure after the first leaves this world
     * partly loaded, so the caller destroys it (the contract: load into a fresh world and
     * use it only on SC_OK). EC2 first: the load balancers point at its VPCs. */
    st = sc_ec2_load(w->ec2, json_object_get(obj, "ec2"), err);
    if (st == SC_OK)
        st = sc_elb_load(w->elb, json_object_get(obj, "elb"), err);
    /* ELBv2: absent in documents written before it was served */
    if (st == SC_OK && json_object_get(obj, "elbv2"))
        st = sc_elbv2_load(w->elbv2, json_object_get(obj, "elbv2"), err);
    if (st == SC_OK)
        st = sc_asg_load(w->asg, json_object_get(obj, "asg"), err);
    /* CloudWatch: absent in documents written before it was saved (no alarms then) */
    if (st == SC_OK && json_object_get(obj, "cloudwatch"))
        st = sc_cw_load(w->cw, json_object_get(obj, "cloudwatch"), err);
    if (st != SC_OK)
        return st;
    memcpy(w->rng.s, rng, sizeof(rng));
    w->last_ms = last;
    return SC_OK;
}
