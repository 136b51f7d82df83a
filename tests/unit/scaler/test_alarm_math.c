/* tests/unit/scaler/test_alarm_math.c: alarms on metric math (PutMetricAlarm Metrics,
 * docs/metric-math.md 6), one test per rule: the parameters that must be absent, exactly
 * one query returning data, "Invalid metrics list" for the other defects (nothing stored),
 * the evaluator following an expression's inputs, Describe echoing the queries, the state
 * file keeping them, and the ARN partition of China regions. */
#include "scaler/cloudwatch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define T0  1767225600000LL /* 2026-01-01T00:00:00Z */
#define MIN 60000LL

static struct sc_cw *cw_new(const char *region)
{
    struct sc_cw_config c;
    struct sc_cw *cw;

    sc_cw_config_defaults(&c);
    c.start_ms = T0;
    c.region = region;
    cw = sc_cw_create(&c);
    assert_non_null(cw);
    return cw;
}

static void put(struct sc_cw *cw, const char *name, double v, int64_t ts)
{
    struct sc_metric_datum d = {
        .metric_name = name, .has_value = 1, .value = v, .has_timestamp = 1, .timestamp_ms = ts
    };
    struct sc_put_metric_data_req r = { "App", &d, 1, 0 };

    assert_int_equal(sc_cw_put_metric_data(cw, &r, ts, NULL), SC_OK);
}

static struct sc_alarm_query stat_q(const char *id, const char *name)
{
    struct sc_alarm_query q;

    memset(&q, 0, sizeof(q));
    q.id = id;
    q.has_return_data = 1;
    q.return_data = 0;
    q.has_metric_stat = 1;
    q.metric = (struct sc_metric_key){ "App", name, NULL, 0 };
    q.has_stat_period = 1;
    q.stat_period = 60;
    q.stat = "Sum";
    return q;
}

static struct sc_alarm_query expr_q(const char *id, const char *e)
{
    struct sc_alarm_query q;

    memset(&q, 0, sizeof(q));
    q.id = id;
    q.expression = e;
    return q; /* ReturnData omitted: true */
}

/* m1 (A), m2 (B), e1 = m1 + m2 > 10 for 2 of 2 periods. */
static struct sc_put_metric_alarm_req math_req(struct sc_alarm_query *q)
{
    struct sc_put_metric_alarm_req r;

    q[0] = stat_q("m1", "A");
    q[1] = stat_q("m2", "B");
    q[2] = expr_q("e1", "m1 + m2");
    memset(&r, 0, sizeof(r));
    r.alarm_name = "sum";
    r.has_metrics = 1;
    r.metrics = q;
    r.n_metrics = 3;
    r.has_evaluation_periods = 1;
    r.evaluation_periods = 2;
    r.has_threshold = 1;
    r.threshold = 10;
    r.comparison_operator = "GreaterThanThreshold";
    return r;
}

static void expect_put_error(struct sc_cw *cw, const struct sc_put_metric_alarm_req *r,
                             const char *msg)
{
    struct sc_error err;

    assert_int_equal(sc_cw_put_metric_alarm(cw, r, T0, &err), SC_ERR_VALIDATION);
    assert_string_equal(err.message, msg);
    assert_null(sc_cw_alarm_find(cw, r->alarm_name)); /* nothing stored */
}

static void test_alarm_math_metric_parameters_must_be_absent(void **state)
{
    struct sc_cw *cw = cw_new(NULL);
    struct sc_alarm_query q[3];
    struct sc_put_metric_alarm_req r = math_req(q);

    (void)state;
    r.statistic = "Sum";
    expect_put_error(cw, &r, "Statistic should not be set if list of Metrics is set.");
    r.statistic = NULL;
    r.unit = "Count";
    expect_put_error(cw, &r, "Unit should not be set if list of Metrics is set.");
    r.unit = NULL;
    r.has_period = 1;
    r.period = 60;
    expect_put_error(cw, &r, "Period should not be set if list of Metrics is set.");
    sc_cw_destroy(cw);
}

static void test_alarm_math_exactly_one_query_returns_data(void **state)
{
    struct sc_cw *cw = cw_new(NULL);
    struct sc_alarm_query q[3];
    struct sc_put_metric_alarm_req r = math_req(q);

    (void)state;
    q[0].has_return_data = 0; /* omitted counts as true */
    expect_put_error(cw, &r, "Exactly one element of the metrics list should return data.");
    q[0].has_return_data = 1;
    q[2].has_return_data = 1;
    q[2].return_data = 0;
    expect_put_error(cw, &r, "Exactly one element of the metrics list should return data.");
    sc_cw_destroy(cw);
}

static void test_alarm_math_other_defects_are_invalid_metrics_list(void **state)
{
    struct sc_cw *cw = cw_new(NULL);
    struct sc_alarm_query q[3];
    struct sc_put_metric_alarm_req r = math_req(q);

    (void)state;
    q[0].stat = "Avg";
    expect_put_error(cw, &r, "Invalid metrics list"); /* bad statistic (terraform#19567) */
    q[0].stat = "Sum";
    q[2].expression = "m1 + m3";
    expect_put_error(cw, &r, "Invalid metrics list"); /* unknown Id */
    q[2].expression = "m1 +";
    expect_put_error(cw, &r, "Invalid metrics list"); /* does not parse */
    q[2].expression = "SUM(SEARCH('{App} A', 'Sum'))";
    expect_put_error(cw, &r, "Invalid metrics list"); /* SEARCH: not in alarms */
    q[2].expression = "m1 + m2";
    q[1].stat_period = 300;
    expect_put_error(cw, &r, "Invalid metrics list"); /* two periods */
    q[1].stat_period = 60;
    q[1].has_stat_period = 0;
    expect_put_error(cw, &r, "Invalid metrics list"); /* MetricStat without Period */
    sc_cw_destroy(cw);
}

static void test_alarm_math_follows_its_inputs(void **state)
{
    struct sc_cw *cw = cw_new(NULL);
    struct sc_alarm_query q[3];
    struct sc_put_metric_alarm_req r = math_req(q);
    const struct sc_alarm_view *v;
    struct sc_error err;

    (void)state;
    assert_int_equal(sc_cw_put_metric_alarm(cw, &r, T0, &err), SC_OK);
    /* 4 + 3 = 7 each minute: OK */
    for (int m = 0; m < 3; m++) {
        put(cw, "A", 4, T0 + m * MIN + 1000);
        put(cw, "B", 3, T0 + m * MIN + 2000);
    }
    sc_cw_step(cw, T0 + 3 * MIN);
    v = sc_cw_alarm_find(cw, "sum");
    assert_string_equal(v->state_value, "OK");
    assert_int_equal(v->period, 60);
    assert_true(v->recent_values[0] == 7);
    /* B alone goes to 9: 13 > 10 for two minutes, ALARM */
    for (int m = 3; m < 5; m++) {
        put(cw, "A", 4, T0 + m * MIN + 1000);
        put(cw, "B", 9, T0 + m * MIN + 2000);
    }
    sc_cw_step(cw, T0 + 5 * MIN);
    v = sc_cw_alarm_find(cw, "sum");
    assert_string_equal(v->state_value, "ALARM");
    assert_true(v->recent_values[0] == 13);
    assert_non_null(strstr(v->state_reason, "Threshold Crossed: 2 out of the last 2 datapoints"));
    assert_null(strstr(v->state_reason_data, "\"statistic\""));
    sc_cw_destroy(cw);
}

static int count_visit(const struct sc_alarm_view *a, void *ud)
{
    (void)a;
    (*(int *)ud)++;
    return 0;
}

static void test_alarm_math_describe_echoes_queries(void **state)
{
    struct sc_cw *cw = cw_new(NULL);
    struct sc_alarm_query q[3];
    struct sc_put_metric_alarm_req r = math_req(q);
    struct sc_describe_alarms_for_metric_req fm = { .metric_name = "A", .namespace = "App" };
    const struct sc_alarm_view *v;
    int n = 0;

    (void)state;
    q[2].label = "total";
    assert_int_equal(sc_cw_put_metric_alarm(cw, &r, T0, NULL), SC_OK);
    v = sc_cw_alarm_find(cw, "sum");
    assert_null(v->metric_name);
    assert_null(v->statistic);
    assert_int_equal(v->n_metrics, 3);
    assert_string_equal(v->metrics[2].expression, "m1 + m2");
    assert_string_equal(v->metrics[2].label, "total");
    assert_string_equal(v->metrics[0].metric.metric_name, "A");
    assert_int_equal(v->metrics[0].stat_period, 60);
    assert_int_equal(sc_cw_describe_alarms_for_metric(cw, &fm, count_visit, &n, NULL), SC_OK);
    assert_int_equal(n, 0); /* watches no one metric */
    sc_cw_destroy(cw);
}

static void test_alarm_math_state_file_keeps_queries(void **state)
{
    struct sc_cw *cw = cw_new(NULL), *back = cw_new(NULL);
    struct sc_alarm_query q[3];
    struct sc_put_metric_alarm_req r = math_req(q);
    const struct sc_alarm_view *v;
    json_t *j, *j2;
    char *s1, *s2;

    (void)state;
    assert_int_equal(sc_cw_put_metric_alarm(cw, &r, T0, NULL), SC_OK);
    j = sc_cw_save(cw);
    assert_int_equal(sc_cw_load(back, j, NULL), SC_OK);
    v = sc_cw_alarm_find(back, "sum");
    assert_non_null(v);
    assert_int_equal(v->n_metrics, 3);
    assert_string_equal(v->metrics[2].expression, "m1 + m2");
    j2 = sc_cw_save(back);
    s1 = json_dumps(j, JSON_SORT_KEYS);
    s2 = json_dumps(j2, JSON_SORT_KEYS);
    assert_string_equal(s1, s2);
    free(s1);
    free(s2);
    json_decref(j);
    json_decref(j2);
    sc_cw_destroy(cw);
    sc_cw_destroy(back);
}

static void test_alarm_arn_partition_of_china_regions(void **state)
{
    struct sc_cw *cw = cw_new("cn-north-1");
    struct sc_alarm_query q[3];
    struct sc_put_metric_alarm_req r = math_req(q);

    (void)state;
    assert_int_equal(sc_cw_put_metric_alarm(cw, &r, T0, NULL), SC_OK);
    assert_string_equal(sc_cw_alarm_find(cw, "sum")->alarm_arn,
                        "arn:aws-cn:cloudwatch:cn-north-1:123456789012:alarm:sum");
    assert_string_equal(sc_alarm_partition("eu-west-1"), "aws");
    assert_string_equal(sc_alarm_partition("us-gov-west-1"), "aws-us-gov");
    sc_cw_destroy(cw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alarm_math_metric_parameters_must_be_absent),
        cmocka_unit_test(test_alarm_math_exactly_one_query_returns_data),
        cmocka_unit_test(test_alarm_math_other_defects_are_invalid_metrics_list),
        cmocka_unit_test(test_alarm_math_follows_its_inputs),
        cmocka_unit_test(test_alarm_math_describe_echoes_queries),
        cmocka_unit_test(test_alarm_math_state_file_keeps_queries),
        cmocka_unit_test(test_alarm_arn_partition_of_china_regions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
