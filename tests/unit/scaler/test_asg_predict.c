/* tests/unit/scaler/test_asg_predict.c: scaler/asg_predict.c: one test per rule of
 * docs/autoscaling.md section 9 (the model, the capacity, the max-capacity behaviours, the
 * refresh, ForecastAndScale's instants, the validation texts, the forecast's range, the
 * state file); a fake load history, time passed in. */
#include "scaler/asg_predict.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <jansson.h>

#include "tests/unit/scaler/asg_fixture.h"

#define HR (3600 * SEC)

/* The fake history: a daily peak (load 400 from 09:00 to 17:00 UTC, 100 otherwise), with
 * data from data_from_ms on; calls counted. */
static int64_t data_from_ms;
static int history_calls;
static char last_metric[64], last_dim[64];

static double daily_load(int64_t hour_ms)
{
    int64_t h = (hour_ms / HR) % 24;

    return h >= 9 && h < 17 ? 400 : 100;
}

static void f_history(void *ud, const struct sc_metric_key *m, const char *stat, const char *unit,
                      int64_t from_ms, int n, double *out, int64_t now_ms)
{
    (void)ud;
    (void)stat;
    (void)unit;
    (void)now_ms;
    history_calls++;
    snprintf(last_metric, sizeof(last_metric), "%s/%s", m->namespace, m->metric_name);
    snprintf(last_dim, sizeof(last_dim), "%s=%s", m->n_dimensions ? m->dimensions[0].name : "",
             m->n_dimensions ? m->dimensions[0].value : "");
    for (int i = 0; i < n; i++) {
        int64_t t = from_ms + i * HR;

        out[i] = t >= data_from_ms ? daily_load(t) : NAN;
    }
}

static int setup(void **state)
{
    struct fx *x = fx_alloc();
    struct sc_asg_env env;

    if (!x)
        return -1;
    env = fx_env(x);
    env.load_history = f_history;
    x->asg = fx_asg_with(x, env);
    data_from_ms = T0 - 3 * 24 * HR; /* three days of data before 2026-01-01 */
    history_calls = 0;
    *state = x;
    return x->asg && fx_group(x, "g", 1, 0) == SC_OK ? 0 : -1;
}

/* A predictive policy request: the CPU pair, target 100 (so capacity = load / 100). */
struct preq {
    struct sc_predict_spec_req spec;
    struct sc_asg_predictive_req cfg;
    struct sc_asg_policy_req req;
};

static void preq_init(struct preq *p, const char *mode)
{
    memset(p, 0, sizeof(*p));
    p->spec.has_target_value = 1;
    p->spec.target_value = 100;
    p->spec.slot[SC_PREDICT_PAIR].set = 1;
    p->spec.slot[SC_PREDICT_PAIR].predefined_metric_type = "ASGCPUUtilization";
    p->cfg.specs = &p->spec;
    p->cfg.nspecs = 1;
    p->cfg.mode = mode;
    p->req.auto_scaling_group_name = "g";
    p->req.policy_name = "pred";
    p->req.policy_type = "PredictiveScaling";
    p->req.predictive = &p->cfg;
}

static enum sc_status put(struct fx *x, struct preq *p, int64_t now)
{
    p->req.predictive = &p->cfg;
    p->cfg.specs = &p->spec;
    return sc_asg_put_scaling_policy(x->asg, &p->req, now, NULL, &x->err);
}

static const struct sc_asg_predictive_info *pinfo(struct fx *x)
{
    const struct sc_asg_policy_info *i = sc_asg_policy_find(x->asg, "g", "pred");

    return i ? i->predictive : NULL;
}

/* --- the model ---------------------------------------------------------------------------- */

static void test_asg_predict_needs_24_hours_of_history(void **state)
{
    double h[SC_PREDICT_HISTORY_HOURS], out[SC_PREDICT_FORECAST_HOURS] = { 0 };

    (void)state;
    for (int i = 0; i < SC_PREDICT_HISTORY_HOURS; i++)
        h[i] = i >= SC_PREDICT_HISTORY_HOURS - 23 ? 5 : NAN;
    assert_int_equal(sc_predict_load_forecast(h, SC_PREDICT_HISTORY_HOURS, out, 48), -1);
    assert_true(out[0] == 0); /* untouched */
    h[SC_PREDICT_HISTORY_HOURS - 24] = 5;
    assert_int_equal(sc_predict_load_forecast(h, SC_PREDICT_HISTORY_HOURS, out, 48), 0);
    assert_true(out[0] == 5);
}

static void test_asg_predict_load_is_the_daily_mean_of_the_hour(void **state)
{
    double h[72], out[48];

    (void)state;
    /* three days, hour i of day d = 10 * (d + 1) + i % 24 */
    for (int i = 0; i < 72; i++)
        h[i] = 10.0 * (i / 24 + 1) + i % 24;
    assert_int_equal(sc_predict_load_forecast(h, 72, out, 48), 0);
    /* each hour of day: the mean over the three days (10, 20, 30 -> 20) plus the hour */
    assert_true(fabs(out[0] - 20) < 1e-9);
    assert_true(fabs(out[5] - 25) < 1e-9);
    assert_true(fabs(out[29] - 25) < 1e-9); /* tomorrow's 05:00, same days */
}

static void test_asg_predict_hour_without_data_takes_the_mean(void **state)
{
    double h[48], out[24];

    (void)state;
    for (int i = 0; i < 48; i++)
        h[i] = 10;
    h[3] = h[27] = NAN; /* hour 3 never seen */
    h[10] = h[34] = 20;
    assert_int_equal(sc_predict_load_forecast(h, 48, out, 24), 0);
    assert_true(fabs(out[10] - 20) < 1e-9);
    assert_true(fabs(out[3] - (10.0 * 44 + 40) / 46) < 1e-9);
}

static void test_asg_predict_capacity_is_load_over_target(void **state)
{
    (void)state;
    assert_true(sc_predict_capacity(400, 100) == 4);
    assert_true(sc_predict_capacity(401, 100) == 5);
    assert_true(sc_predict_capacity(0.3 * 3, 0.3) == 3); /* a rounding error is no instance */
    assert_true(sc_predict_capacity(0, 50) == 0);
    assert_true(sc_predict_capacity(-5, 50) == 0);
}

static void test_asg_predict_honor_max_capacity(void **state)
{
    int d, m;

    (void)state;
    sc_predict_scale_target(50, 1, 40, 0, 0, &d, &m);
    assert_int_equal(d, 40);
    assert_int_equal(m, 40);
    sc_predict_scale_target(0, 2, 40, 0, 0, &d, &m);
    assert_int_equal(d, 2); /* never below min */
}

static void test_asg_predict_increase_max_capacity(void **state)
{
    int d, m;

    (void)state;
    /* AWS's example: forecast 50, max 40, buffer 10 -> effective maximum 55 */
    sc_predict_scale_target(50, 1, 40, 1, 10, &d, &m);
    assert_int_equal(d, 50);
    assert_int_equal(m, 55);
    /* buffer 0: up to the forecast, not above */
    sc_predict_scale_target(50, 1, 40, 1, 0, &d, &m);
    assert_int_equal(d, 50);
    assert_int_equal(m, 50);
    /* well under the maximum: unchanged */
    sc_predict_scale_target(10, 1, 40, 1, 10, &d, &m);
    assert_int_equal(d, 10);
    assert_int_equal(m, 40);
}

static void test_asg_predict_refresh_is_every_6_hours(void **state)
{
    (void)state;
    assert_true(sc_predict_refresh_floor(T0 + 5 * HR + 59 * 60 * SEC) == T0);
    assert_true(sc_predict_refresh_floor(T0 + 6 * HR) == T0 + 6 * HR);
    assert_true(sc_predict_refresh_floor(T0 + 23 * HR) == T0 + 18 * HR);
}

/* --- the policy in the asg ---------------------------------------------------------------- */

static void test_asg_predict_forecast_from_the_groups_metric(void **state)
{
    struct fx *x = *state;
    struct preq p;
    const struct sc_asg_predictive_info *i;

    preq_init(&p, NULL);
    assert_int_equal(put(x, &p, T0 + 30 * 60 * SEC), SC_OK);
    i = pinfo(x);
    assert_non_null(i);
    assert_string_equal(last_metric, "AWS/EC2/CPUUtilization");
    assert_string_equal(last_dim, "AutoScalingGroupName=g");
    assert_int_equal(i->has_forecast, 1);
    assert_true(i->update_ms == T0 + 30 * 60 * SEC);
    assert_true(i->start_ms == T0); /* the hour of the update */
    assert_true(i->load[9] == 400 && i->capacity[9] == 4);
    assert_true(i->load[8] == 100 && i->capacity[8] == 1);
    assert_true(i->capacity[24 + 16] == 4 && i->capacity[24 + 17] == 1);
    assert_true(i->next_update_ms == T0 + 6 * HR);
    assert_int_equal(sc_predict_buffer_s(i), 300);
    assert_int_equal(i->forecast_and_scale, 0);
}

static void test_asg_predict_forecast_refreshed_at_6_hour_boundaries(void **state)
{
    struct fx *x = *state;
    struct preq p;

    preq_init(&p, NULL);
    assert_int_equal(put(x, &p, T0 + HR), SC_OK);
    assert_true(sc_asg_next_due_ms(x->asg, T0 + HR) <= T0 + 6 * HR);
    sc_asg_step(x->asg, T0 + 6 * HR - 1);
    assert_true(pinfo(x)->update_ms == T0 + HR);
    sc_asg_step(x->asg, T0 + 6 * HR);
    assert_true(pinfo(x)->update_ms == T0 + 6 * HR);
    assert_true(pinfo(x)->start_ms == T0 + 6 * HR);
    assert_true(pinfo(x)->next_update_ms == T0 + 12 * HR);
}

static void test_asg_predict_no_forecast_under_24_hours_retried_hourly(void **state)
{
    struct fx *x = *state;
    struct preq p;
    struct sc_predict_forecast_view v;

    data_from_ms = T0 - 20 * HR;
    preq_init(&p, NULL);
    assert_int_equal(put(x, &p, T0), SC_OK);
    assert_int_equal(pinfo(x)->has_forecast, 0);
    assert_true(pinfo(x)->next_update_ms == T0 + HR);
    assert_int_equal(
        sc_asg_get_predictive_forecast(x->asg, "g", "pred", T0, T0 + 48 * HR, &v, &x->err), SC_OK);
    assert_int_equal(v.n, 0);
    sc_asg_step(x->asg, T0 + 3 * HR); /* 23 hours of data */
    assert_int_equal(pinfo(x)->has_forecast, 0);
    sc_asg_step(x->asg, T0 + 4 * HR); /* 24 */
    assert_int_equal(pinfo(x)->has_forecast, 1);
    assert_true(pinfo(x)->next_update_ms == T0 + 6 * HR);
}

static void test_asg_predict_forecast_and_scale_raises_before_the_hour(void **state)
{
    struct fx *x = *state;
    struct preq p;
    const struct sc_asg_group_info *g;

    preq_init(&p, "ForecastAndScale");
    p.cfg.has_scheduling_buffer_time = 1;
    p.cfg.scheduling_buffer_time = 600;
    assert_int_equal(put(x, &p, T0 + 7 * HR), SC_OK);
    settle(x, T0 + 7 * HR);
    /* the 09:00 hour forecasts 4: raised at 08:50 */
    assert_true(sc_asg_next_due_ms(x->asg, T0 + 8 * HR + 30 * 60 * SEC) <=
                T0 + 8 * HR + 50 * 60 * SEC);
    settle(x, T0 + 8 * HR + 49 * 60 * SEC);
    g = sc_asg_group_find(x->asg, "g");
    assert_int_equal(g->desired_capacity, 1);
    settle(x, T0 + 8 * HR + 50 * 60 * SEC);
    g = sc_asg_group_find(x->asg, "g");
    assert_int_equal(g->desired_capacity, 4);
    assert_int_equal(g->max_size, 5);
    assert_non_null(strstr(sc_asg_activity_at(x->asg, "g", 0)->cause,
                           "the predictive scaling policy pred forecast a capacity of 4 for "
                           "2026-01-01T09:00:00Z changing the desired capacity from 1 to 4"));
}

static void test_asg_predict_never_scales_in(void **state)
{
    struct fx *x = *state;
    struct preq p;
    struct sc_asg_group_req up = { .auto_scaling_group_name = "g",
                                   .has_desired_capacity = 1,
                                   .desired_capacity = 5 };

    preq_init(&p, "ForecastAndScale");
    assert_int_equal(put(x, &p, T0), SC_OK);
    assert_int_equal(sc_asg_update_group(x->asg, &up, T0, &x->err), SC_OK);
    settle(x, T0);
    /* the 17:00 hour forecasts 1: nothing changes */
    settle(x, T0 + 17 * HR - 300 * SEC);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 5);
}

static void test_asg_predict_hour_capacity_floors_dynamic_scale_in(void **state)
{
    struct fx *x = *state;
    struct preq p;
    struct sc_step_adjustment down = { .has_upper = 1, .upper = 0, .scaling_adjustment = -3 };
    struct sc_asg_policy_req step = { .auto_scaling_group_name = "g",
                                      .policy_name = "down",
                                      .policy_type = "StepScaling",
                                      .adjustment_type = "ChangeInCapacity",
                                      .step_adjustments = &down,
                                      .nstep_adjustments = 1 };
    struct sc_asg_exec_req e = { .auto_scaling_group_name = "g",
                                 .policy_name = "down",
                                 .has_metric_value = 1,
                                 .metric_value = 0,
                                 .has_breach_threshold = 1,
                                 .breach_threshold = 10 };

    preq_init(&p, "ForecastAndScale");
    assert_int_equal(put(x, &p, T0), SC_OK);
    assert_int_equal(sc_asg_put_scaling_policy(x->asg, &step, T0, NULL, &x->err), SC_OK);
    settle(x, T0);
    settle(x, T0 + 9 * HR - 300 * SEC);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 4);
    /* within the 09:00 hour a scale-in stops at its forecast capacity */
    sc_asg_execute_policy(x->asg, &e, T0 + 9 * HR + 30 * 60 * SEC, &x->err);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 4);
    /* in the 17:00 hour (forecast 1) it goes down */
    settle(x, T0 + 17 * HR);
    sc_asg_execute_policy(x->asg, &e, T0 + 17 * HR + 60 * SEC, &x->err);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 1);
}

static void test_asg_predict_forecast_only_does_not_scale(void **state)
{
    struct fx *x = *state;
    struct preq p;

    preq_init(&p, "ForecastOnly");
    assert_int_equal(put(x, &p, T0), SC_OK);
    settle(x, T0);
    settle(x, T0 + 9 * HR);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 1);
    assert_int_equal(pinfo(x)->has_forecast, 1);
}

static void test_asg_predict_forecast_and_scale_honors_max(void **state)
{
    struct fx *x = *state;
    struct preq p;

    preq_init(&p, "ForecastAndScale");
    p.spec.target_value = 50; /* the peak needs 8; max is 5 */
    assert_int_equal(put(x, &p, T0), SC_OK);
    settle(x, T0);
    settle(x, T0 + 9 * HR - 300 * SEC);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 5);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->max_size, 5);
}

static void test_asg_predict_forecast_and_scale_increases_max(void **state)
{
    struct fx *x = *state;
    struct preq p;

    preq_init(&p, "ForecastAndScale");
    p.spec.target_value = 50;
    p.cfg.max_capacity_breach_behavior = "IncreaseMaxCapacity";
    p.cfg.has_max_capacity_buffer = 1;
    p.cfg.max_capacity_buffer = 25;
    assert_int_equal(put(x, &p, T0), SC_OK);
    settle(x, T0);
    settle(x, T0 + 9 * HR - 300 * SEC);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 8);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->max_size, 10);
}

static void test_asg_predict_customized_load_metric(void **state)
{
    struct fx *x = *state;
    struct preq p;
    struct sc_dimension d = { "Service", "web" };
    struct sc_alarm_query load = { .id = "load", .has_metric_stat = 1, .stat = "Sum" };
    struct sc_alarm_query scaling = { .id = "scaling", .has_metric_stat = 1, .stat = "Average" };

    load.metric.namespace = "App";
    load.metric.metric_name = "Requests";
    load.metric.dimensions = &d;
    load.metric.n_dimensions = 1;
    scaling.metric = load.metric;
    preq_init(&p, NULL);
    memset(&p.spec.slot[SC_PREDICT_PAIR], 0, sizeof(p.spec.slot[0]));
    p.spec.slot[SC_PREDICT_CUSTOM_LOAD] =
        (struct sc_predict_metric_req){ .set = 1, .queries = &load, .nqueries = 1 };
    p.spec.slot[SC_PREDICT_CUSTOM_SCALING] =
        (struct sc_predict_metric_req){ .set = 1, .queries = &scaling, .nqueries = 1 };
    assert_int_equal(put(x, &p, T0), SC_OK);
    assert_string_equal(last_metric, "App/Requests");
    assert_string_equal(last_dim, "Service=web");
    assert_int_equal(pinfo(x)->has_forecast, 1);
    assert_int_equal(pinfo(x)->slot[SC_PREDICT_CUSTOM_LOAD].nqueries, 1);
}

/* --- the checks ----------------------------------------------------------------------------- */

enum mut {
    NO_CONFIG,
    TWO_SPECS,
    NO_TARGET,
    ZERO_TARGET,
    PAIR_AND_LOAD,
    LOAD_ONLY,
    BAD_PAIR_TYPE,
    ALB_NO_LABEL,
    BAD_MODE,
    BUFFER_NEGATIVE,
    BUFFER_TOO_BIG,
    BAD_BREACH,
    INCREASE_NO_BUFFER,
    BUFFER_WITH_HONOR,
    CAP_BUFFER_RANGE,
    WITH_COOLDOWN,
    CONFIG_ON_SIMPLE,
    CUSTOM_TWO_RETURN,
};

static const struct {
    enum mut m;
    const char *text;
} bad[] = {
    { NO_CONFIG, "PredictiveScalingConfiguration is required for policy type PredictiveScaling." },
    { TWO_SPECS, "MetricSpecifications must contain exactly one metric specification" },
    { NO_TARGET, "TargetValue must be a finite number." },
    { ZERO_TARGET, "TargetValue must be greater than 0." },
    { PAIR_AND_LOAD, "The metric specification is invalid. A policy must have either one scaling "
                     "metric and one load metric or one metric pair." },
    { LOAD_ONLY, "The metric specification is invalid." },
    { BAD_PAIR_TYPE,
      "1 validation error detected: Value 'ASGAverageCPUUtilization' at "
      "'predictiveScalingConfiguration.metricSpecifications.member.1."
      "predefinedMetricPairSpecification.predefinedMetricType' failed to satisfy constraint: "
      "Member must satisfy enum value set: [ASGCPUUtilization, ASGNetworkIn, ASGNetworkOut, "
      "ALBRequestCount]" },
    { ALB_NO_LABEL,
      "Resource label should be specified for predefined metric type ALBRequestCount" },
    { BAD_MODE,
      "Value 'Scale' at 'predictiveScalingConfiguration.mode' failed to satisfy "
      "constraint: Member must satisfy enum value set: [ForecastAndScale, ForecastOnly]" },
    { BUFFER_NEGATIVE, "Value '-1' at 'predictiveScalingConfiguration.schedulingBufferTime'" },
    { BUFFER_TOO_BIG, "SchedulingBufferTime must be less than or equal to 3600 seconds." },
    { BAD_BREACH, "at 'predictiveScalingConfiguration.maxCapacityBreachBehavior'" },
    { INCREASE_NO_BUFFER,
      "MaxCapacityBuffer is required when MaxCapacityBreachBehavior is IncreaseMaxCapacity." },
    { BUFFER_WITH_HONOR, "MaxCapacityBuffer can only be specified when MaxCapacityBreachBehavior "
                         "is IncreaseMaxCapacity." },
    { CAP_BUFFER_RANGE, "Member must have value between 0 and 100" },
    { WITH_COOLDOWN, "are not supported for policy type PredictiveScaling." },
    { CONFIG_ON_SIMPLE,
      "PredictiveScalingConfiguration is only supported for policy type PredictiveScaling." },
    { CUSTOM_TWO_RETURN, "Exactly one element of the metrics list should return data." },
};

static void test_asg_predict_bad_input_is_refused_and_nothing_changes(void **state)
{
    struct fx *x = *state;
    struct preq good;
    struct sc_alarm_query q[2] = { { .id = "a", .has_metric_stat = 1, .stat = "Sum" },
                                   { .id = "b", .has_metric_stat = 1, .stat = "Sum" } };
    struct sc_predict_spec_req two[2];

    q[0].metric.namespace = q[1].metric.namespace = "App";
    q[0].metric.metric_name = q[1].metric.metric_name = "M";
    preq_init(&good, NULL);
    assert_int_equal(put(x, &good, T0), SC_OK);
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        struct preq p;
        const struct sc_asg_predictive_info *before = pinfo(x);
        enum sc_status st;

        preq_init(&p, NULL);
        switch (bad[k].m) {
        case NO_CONFIG:
            break;
        case TWO_SPECS:
            two[0] = two[1] = p.spec;
            break;
        case NO_TARGET:
            p.spec.has_target_value = 0;
            break;
        case ZERO_TARGET:
            p.spec.target_value = 0;
            break;
        case PAIR_AND_LOAD:
            p.spec.slot[SC_PREDICT_LOAD] = (struct sc_predict_metric_req){
                .set = 1, .predefined_metric_type = "ASGTotalCPUUtilization"
            };
            break;
        case LOAD_ONLY:
            p.spec.slot[SC_PREDICT_PAIR].set = 0;
            p.spec.slot[SC_PREDICT_LOAD] = (struct sc_predict_metric_req){
                .set = 1, .predefined_metric_type = "ASGTotalCPUUtilization"
            };
            break;
        case BAD_PAIR_TYPE:
            p.spec.slot[SC_PREDICT_PAIR].predefined_metric_type = "ASGAverageCPUUtilization";
            break;
        case ALB_NO_LABEL:
            p.spec.slot[SC_PREDICT_PAIR].predefined_metric_type = "ALBRequestCount";
            break;
        case BAD_MODE:
            p.cfg.mode = "Scale";
            break;
        case BUFFER_NEGATIVE:
            p.cfg.has_scheduling_buffer_time = 1;
            p.cfg.scheduling_buffer_time = -1;
            break;
        case BUFFER_TOO_BIG:
            p.cfg.has_scheduling_buffer_time = 1;
            p.cfg.scheduling_buffer_time = 3601;
            break;
        case BAD_BREACH:
            p.cfg.max_capacity_breach_behavior = "Ignore";
            break;
        case INCREASE_NO_BUFFER:
            p.cfg.max_capacity_breach_behavior = "IncreaseMaxCapacity";
            break;
        case BUFFER_WITH_HONOR:
            p.cfg.has_max_capacity_buffer = 1;
            p.cfg.max_capacity_buffer = 10;
            break;
        case CAP_BUFFER_RANGE:
            p.cfg.max_capacity_breach_behavior = "IncreaseMaxCapacity";
            p.cfg.has_max_capacity_buffer = 1;
            p.cfg.max_capacity_buffer = 101;
            break;
        case WITH_COOLDOWN:
            p.req.has_cooldown = 1;
            p.req.cooldown = 60;
            break;
        case CONFIG_ON_SIMPLE:
            p.req.policy_type = "SimpleScaling";
            p.req.adjustment_type = "ChangeInCapacity";
            p.req.has_scaling_adjustment = 1;
            p.req.scaling_adjustment = 1;
            break;
        case CUSTOM_TWO_RETURN:
            p.spec.slot[SC_PREDICT_PAIR].set = 0;
            p.spec.slot[SC_PREDICT_CUSTOM_LOAD] =
                (struct sc_predict_metric_req){ .set = 1, .queries = q, .nqueries = 2 };
            p.spec.slot[SC_PREDICT_CUSTOM_SCALING] =
                (struct sc_predict_metric_req){ .set = 1, .queries = q, .nqueries = 1 };
            break;
        }
        if (bad[k].m == NO_CONFIG) {
            p.req.predictive = NULL;
            st = sc_asg_put_scaling_policy(x->asg, &p.req, T0, NULL, &x->err);
        } else if (bad[k].m == TWO_SPECS) {
            p.req.predictive = &p.cfg;
            p.cfg.specs = two;
            p.cfg.nspecs = 2;
            st = sc_asg_put_scaling_policy(x->asg, &p.req, T0, NULL, &x->err);
        } else {
            st = put(x, &p, T0);
        }
        if (st != SC_ERR_VALIDATION || !strstr(x->err.message, bad[k].text))
            fail_msg("case %zu: status %d, message '%s'", k, (int)st, x->err.message);
        assert_int_equal(sc_asg_policy_count(x->asg), 1);
        assert_ptr_equal(pinfo(x), before);
        assert_int_equal(pinfo(x)->forecast_and_scale, 0);
    }
}

static void test_asg_predict_execute_policy_refused(void **state)
{
    struct fx *x = *state;
    struct preq p;
    struct sc_asg_exec_req e = { .auto_scaling_group_name = "g", .policy_name = "pred" };

    preq_init(&p, NULL);
    assert_int_equal(put(x, &p, T0), SC_OK);
    assert_int_equal(sc_asg_execute_policy(x->asg, &e, T0, &x->err), SC_ERR_VALIDATION);
    assert_string_equal(x->err.message,
                        "ExecutePolicy is not supported for policies of type PredictiveScaling.");
}

static void test_asg_predict_get_forecast_range_and_errors(void **state)
{
    struct fx *x = *state;
    struct preq p;
    struct sc_predict_forecast_view v;
    struct sc_asg_policy_req simple = { .auto_scaling_group_name = "g",
                                        .policy_name = "simple",
                                        .adjustment_type = "ChangeInCapacity",
                                        .has_scaling_adjustment = 1,
                                        .scaling_adjustment = 1 };

    preq_init(&p, NULL);
    assert_int_equal(put(x, &p, T0), SC_OK);
    assert_int_equal(sc_asg_put_scaling_policy(x->asg, &simple, T0, NULL, &x->err), SC_OK);
    /* the whole forecast, then a slice: hours that start in [start, end) */
    assert_int_equal(sc_asg_get_predictive_forecast(x->asg, "g", "pred", T0 - 24 * HR,
                                                    T0 + 29 * 24 * HR, &v, &x->err),
                     SC_OK);
    assert_int_equal(v.n, 48);
    assert_true(v.first_ms == T0 && v.update_ms == T0);
    assert_int_equal(sc_asg_get_predictive_forecast(x->asg, "g", "pred", T0 + 8 * HR + 1,
                                                    T0 + 10 * HR, &v, &x->err),
                     SC_OK);
    assert_int_equal(v.n, 1);
    assert_true(v.first_ms == T0 + 9 * HR && v.capacity[0] == 4 && v.load[0] == 400);
    assert_int_equal(
        sc_asg_get_predictive_forecast(x->asg, "nope", "pred", T0, T0 + HR, &v, &x->err),
        SC_ERR_VALIDATION);
    assert_string_equal(x->err.message,
                        "AutoScalingGroup name not found - AutoScalingGroup: nope not found");
    assert_int_equal(sc_asg_get_predictive_forecast(x->asg, "g", "nope", T0, T0 + HR, &v, &x->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(x->err.message,
                        "No policy found for service namespace: autoscaling, policy name: nope");
    assert_int_equal(
        sc_asg_get_predictive_forecast(x->asg, "g", "simple", T0, T0 + HR, &v, &x->err),
        SC_ERR_VALIDATION);
    assert_non_null(
        strstr(x->err.message, "only supported for policies of type PredictiveScaling"));
    assert_int_equal(sc_asg_get_predictive_forecast(x->asg, "g", "pred", T0, T0, &v, &x->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, "EndTime must be after StartTime.");
    assert_int_equal(
        sc_asg_get_predictive_forecast(x->asg, "g", "pred", T0, T0 + 30 * 24 * HR + 1, &v, &x->err),
        SC_ERR_VALIDATION);
    assert_string_equal(x->err.message,
                        "The time range between StartTime and EndTime must not exceed 30 days.");
}

static void test_asg_predict_state_file_keeps_config_and_forecast(void **state)
{
    struct fx *x = *state;
    struct preq p;
    struct sc_asg *b;
    struct sc_asg_config cfg = { 0 };
    struct sc_rng rng;
    json_t *saved;
    const struct sc_asg_predictive_info *i;

    preq_init(&p, "ForecastAndScale");
    p.cfg.max_capacity_breach_behavior = "IncreaseMaxCapacity";
    p.cfg.has_max_capacity_buffer = 1;
    p.cfg.max_capacity_buffer = 10;
    assert_int_equal(put(x, &p, T0), SC_OK);
    saved = sc_asg_save(x->asg);
    assert_non_null(saved);
    sc_rng_init(&rng, 9);
    cfg.rng = &rng;
    b = sc_asg_create(&cfg);
    assert_int_equal(sc_asg_load(b, saved, &x->err), SC_OK);
    i = sc_asg_policy_find(b, "g", "pred")->predictive;
    assert_non_null(i);
    assert_int_equal(i->forecast_and_scale, 1);
    assert_int_equal(i->increase_max_capacity, 1);
    assert_int_equal(i->max_capacity_buffer, 10);
    assert_string_equal(i->slot[SC_PREDICT_PAIR].predefined_metric_type, "ASGCPUUtilization");
    assert_int_equal(i->has_forecast, 1);
    assert_true(i->capacity[9] == 4);
    assert_true(i->next_action_ms == pinfo(x)->next_action_ms);
    json_decref(saved);
    sc_asg_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_asg_predict_needs_24_hours_of_history),
        cmocka_unit_test(test_asg_predict_load_is_the_daily_mean_of_the_hour),
        cmocka_unit_test(test_asg_predict_hour_without_data_takes_the_mean),
        cmocka_unit_test(test_asg_predict_capacity_is_load_over_target),
        cmocka_unit_test(test_asg_predict_honor_max_capacity),
        cmocka_unit_test(test_asg_predict_increase_max_capacity),
        cmocka_unit_test(test_asg_predict_refresh_is_every_6_hours),
        cmocka_unit_test_setup_teardown(test_asg_predict_forecast_from_the_groups_metric, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_predict_forecast_refreshed_at_6_hour_boundaries,
                                        setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_predict_no_forecast_under_24_hours_retried_hourly,
                                        setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_predict_forecast_and_scale_raises_before_the_hour,
                                        setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_predict_never_scales_in, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_predict_hour_capacity_floors_dynamic_scale_in,
                                        setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_predict_forecast_only_does_not_scale, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_predict_forecast_and_scale_honors_max, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_predict_forecast_and_scale_increases_max, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_predict_customized_load_metric, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_predict_bad_input_is_refused_and_nothing_changes,
                                        setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_predict_execute_policy_refused, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_predict_get_forecast_range_and_errors, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_predict_state_file_keeps_config_and_forecast,
                                        setup, fx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
