/* tests/unit/scaler/test_cloudwatch.c: scaler/cloudwatch.c (the service facade) */
#include "scaler/cloudwatch.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define T0  1767225600000LL /* 2026-01-01T00:00:00Z */
#define MIN 60000LL
#define AS_ARN                                                                                     \
    "arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:u:autoScalingGroupName/g:policyName/up"

static struct sc_cw *cw_new(void)
{
    struct sc_cw_config c;
    struct sc_cw *cw;

    sc_cw_config_defaults(&c);
    c.start_ms = T0;
    cw = sc_cw_create(&c);
    assert_non_null(cw);
    return cw;
}

static void put(struct sc_cw *cw, const char *unit, double v, int64_t ts, int64_t now)
{
    struct sc_metric_datum d = { .metric_name = "M",
                                 .has_value = 1,
                                 .value = v,
                                 .has_timestamp = 1,
                                 .timestamp_ms = ts,
                                 .unit = unit };
    struct sc_put_metric_data_req r = { "App", &d, 1, 0 };
    assert_int_equal(sc_cw_put_metric_data(cw, &r, now, NULL), SC_OK);
}

struct dps {
    int n;
    struct sc_datapoint dp[64];
};

static int collect_dp(const struct sc_datapoint *dp, void *ud)
{
    struct dps *d = ud;
    if (d->n < 64)
        d->dp[d->n] = *dp;
    d->n++;
    return 0;
}

static struct sc_get_metric_statistics_req gms(int64_t start, int64_t end, int period,
                                               const char *const *stats, int nstats)
{
    struct sc_get_metric_statistics_req r;

    memset(&r, 0, sizeof(r));
    r.namespace = "App";
    r.metric_name = "M";
    r.has_start_time = 1;
    r.start_time_ms = start;
    r.has_end_time = 1;
    r.end_time_ms = end;
    r.has_period = 1;
    r.period = period;
    r.statistics = stats;
    r.n_statistics = nstats;
    return r;
}

/* One MetricStat query on App/M (period 60, stat), for GetMetricData. */
static struct sc_metric_data_query mdq(const char *id, const char *stat)
{
    struct sc_metric_data_query q;

    memset(&q, 0, sizeof(q));
    q.id = id;
    q.has_metric_stat = 1;
    q.metric = (struct sc_metric_key){ "App", "M", NULL, 0 };
    q.period = 60;
    q.stat = stat;
    return q;
}

/* GetMetricData of the n queries q over [start, end). */
static struct sc_get_metric_data_req gmd(const struct sc_metric_data_query *q, int n, int64_t start,
                                         int64_t end)
{
    struct sc_get_metric_data_req r;

    memset(&r, 0, sizeof(r));
    r.queries = q;
    r.n_queries = n;
    r.has_start_time = 1;
    r.start_time_ms = start;
    r.has_end_time = 1;
    r.end_time_ms = end;
    return r;
}

/* The alarm these tests put: Average of App/M over one period, GreaterThanThreshold,
 * with nacts alarm actions. */
static struct sc_put_metric_alarm_req alarm_req(const char *name, int period, double threshold,
                                                const char *const *acts, int nacts)
{
    struct sc_put_metric_alarm_req a;

    memset(&a, 0, sizeof(a));
    a.alarm_name = name;
    a.metric_name = "M";
    a.namespace = "App";
    a.statistic = "Average";
    a.has_period = 1;
    a.period = period;
    a.has_evaluation_periods = 1;
    a.evaluation_periods = 1;
    a.has_threshold = 1;
    a.threshold = threshold;
    a.comparison_operator = "GreaterThanThreshold";
    a.alarm_actions = acts;
    a.n_alarm_actions = nacts;
    return a;
}

static void test_cloudwatch_get_metric_statistics_buckets(void **state)
{
    struct sc_cw *cw = cw_new();
    const char *stats[] = { "Sum", "SampleCount" };
    struct sc_get_metric_statistics_req r;
    struct dps d = { 0 };

    (void)state;
    put(cw, NULL, 1, T0 + 10000, T0 + 10 * MIN);
    put(cw, NULL, 2, T0 + 4 * MIN, T0 + 10 * MIN);
    put(cw, NULL, 4, T0 + 5 * MIN, T0 + 10 * MIN);
    /* StartTime rounded down to the minute; EndTime exclusive; empty buckets omitted */
    r = gms(T0 + 30000, T0 + 5 * MIN, 60, stats, 2);
    assert_int_equal(sc_cw_get_metric_statistics(cw, &r, T0 + 10 * MIN, collect_dp, &d, NULL),
                     SC_OK);
    assert_int_equal(d.n, 2);
    assert_true(d.dp[0].timestamp_ms == T0 && d.dp[0].value[0] == 1 && d.dp[0].value[1] == 1);
    assert_true(d.dp[1].timestamp_ms == T0 + 4 * MIN && d.dp[1].value[0] == 2);
    assert_string_equal(d.dp[0].unit, "None");
    sc_cw_destroy(cw);
}

static void test_cloudwatch_get_metric_statistics_one_datapoint_per_unit(void **state)
{
    struct sc_cw *cw = cw_new();
    const char *stats[] = { "Average" };
    struct sc_get_metric_statistics_req r = gms(T0, T0 + MIN, 60, stats, 1);
    struct dps d = { 0 };

    (void)state;
    put(cw, "Seconds", 1, T0, T0 + MIN);
    put(cw, "Milliseconds", 500, T0, T0 + MIN);
    sc_cw_get_metric_statistics(cw, &r, T0 + MIN, collect_dp, &d, NULL);
    assert_int_equal(d.n, 2);
    assert_string_equal(d.dp[0].unit, "Seconds");
    assert_string_equal(d.dp[1].unit, "Milliseconds");
    r.unit = "Milliseconds";
    d.n = 0;
    sc_cw_get_metric_statistics(cw, &r, T0 + MIN, collect_dp, &d, NULL);
    assert_int_equal(d.n, 1);
    assert_true(d.dp[0].value[0] == 500);
    sc_cw_destroy(cw);
}

static void test_cloudwatch_get_metric_statistics_extended(void **state)
{
    struct sc_cw *cw = cw_new();
    const char *ext[] = { "p50", "p100" };
    struct sc_get_metric_statistics_req r = gms(T0, T0 + 4 * MIN, 240, NULL, 0);
    struct dps d = { 0 };

    (void)state;
    r.extended_statistics = ext;
    r.n_extended_statistics = 2;
    for (int i = 0; i < 4; i++)
        put(cw, NULL, 10.0 * (i + 1), T0 + i * MIN, T0 + 4 * MIN);
    sc_cw_get_metric_statistics(cw, &r, T0 + 4 * MIN, collect_dp, &d, NULL);
    assert_int_equal(d.n, 1);
    assert_true(d.dp[0].ext_has[0] && d.dp[0].ext_value[0] == 20);
    assert_true(d.dp[0].ext_has[1] && d.dp[0].ext_value[1] == 40);
    sc_cw_destroy(cw);
}

static void test_cloudwatch_get_metric_statistics_errors(void **state)
{
    struct sc_cw *cw = cw_new();
    const char *stats[] = { "Average" };
    const char *six[] = { "Average", "Sum", "Minimum", "Maximum", "SampleCount", "Sum" };
    const char *bad[] = { "Mean" };
    const char *ext[] = { "p99" };
    struct {
        const char *what;
        struct sc_get_metric_statistics_req r;
        enum sc_status code;
        const char *msg;
    } cases[] = {
        { "1,608 points", gms(T0, T0 + 1608 * MIN, 60, stats, 1),
          SC_ERR_INVALID_PARAMETER_COMBINATION,
          "You have requested up to 1,608 datapoints, which exceeds the limit of 1,440. You may "
          "reduce the datapoints requested by increasing Period, or decreasing the time range." },
        { "period 61", gms(T0, T0 + MIN, 61, stats, 1), SC_ERR_INVALID_PARAMETER_VALUE,
          "The parameter Period must be a multiple of 60." },
        { "no statistics", gms(T0, T0 + MIN, 60, NULL, 0), SC_ERR_MISSING_PARAMETER,
          "At least one of the parameters Statistics and ExtendedStatistics must be specified." },
        { "six statistics", gms(T0, T0 + MIN, 60, six, 6), SC_ERR_INVALID_PARAMETER_VALUE,
          "The collection Statistics must not have a size greater than 5." },
        { "unknown statistic", gms(T0, T0 + MIN, 60, bad, 1), SC_ERR_INVALID_PARAMETER_VALUE,
          "The parameter Statistics.member.1 must be a value in the set [Average, Sum, "
          "SampleCount, Maximum, Minimum]." },
        { "both kinds", gms(T0, T0 + MIN, 60, stats, 1), SC_ERR_INVALID_PARAMETER_COMBINATION,
          "The parameters Statistics and ExtendedStatistics are mutually exclusive and you have "
          "specified both." },
        { "start after end", gms(T0 + MIN, T0, 60, stats, 1), SC_ERR_INVALID_PARAMETER_VALUE,
          "The parameter StartTime must be less than the parameter EndTime." },
        { "no namespace", gms(T0, T0 + MIN, 60, stats, 1), SC_ERR_MISSING_PARAMETER,
          "The parameter Namespace is required." },
    };
    struct dps d = { 0 };

    (void)state;
    cases[5].r.extended_statistics = ext;
    cases[5].r.n_extended_statistics = 1;
    cases[7].r.namespace = NULL;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sc_error err = { 0 };
        enum sc_status st =
            sc_cw_get_metric_statistics(cw, &cases[i].r, T0 + 2000 * MIN, collect_dp, &d, &err);
        if (st != cases[i].code || strcmp(err.message, cases[i].msg) != 0)
            fail_msg("%s: got %d '%s'", cases[i].what, st, err.message);
    }
    /* exactly 1,440 is allowed */
    {
        struct sc_get_metric_statistics_req ok = gms(T0, T0 + 1440 * MIN, 60, stats, 1);
        assert_int_equal(
            sc_cw_get_metric_statistics(cw, &ok, T0 + 1440 * MIN, collect_dp, &d, NULL), SC_OK);
    }
    sc_cw_destroy(cw);
}

struct results {
    int n;
    char ids[8][16];
    int nv[8];
    double first[8];
    int64_t first_ts[8];
    char status[8][16];
    const char *msg;
};

static int collect_result(const struct sc_metric_data_result *r, void *ud)
{
    struct results *x = ud;
    snprintf(x->ids[x->n], 16, "%s", r->id);
    x->nv[x->n] = r->n_values;
    x->first[x->n] = r->n_values ? r->values[0] : -1;
    x->first_ts[x->n] = r->n_values ? r->timestamps_ms[0] : -1;
    snprintf(x->status[x->n], 16, "%s", r->status_code);
    x->msg = r->message_code;
    x->n++;
    return 0;
}

static void test_cloudwatch_get_metric_data_scan_by_and_status(void **state)
{
    struct sc_cw *cw = cw_new();
    struct sc_metric_data_query q[2] = { mdq("m1", "Maximum"), mdq("m2", "p90") };
    struct sc_get_metric_data_req r = gmd(q, 2, T0, T0 + 5 * MIN);
    struct results x = { 0 };

    (void)state;
    for (int i = 0; i < 5; i++)
        put(cw, NULL, i, T0 + i * MIN, T0 + 5 * MIN);
    assert_int_equal(sc_cw_get_metric_data(cw, &r, T0 + 5 * MIN, collect_result, &x, NULL), SC_OK);
    assert_int_equal(x.n, 2);
    assert_int_equal(x.nv[0], 5);
    /* TimestampDescending by default: newest first */
    assert_true(x.first[0] == 4 && x.first_ts[0] == T0 + 4 * MIN);
    assert_string_equal(x.status[0], "Complete");
    r.scan_by = "TimestampAscending";
    r.has_max_datapoints = 1;
    r.max_datapoints = 3;
    memset(&x, 0, sizeof(x));
    sc_cw_get_metric_data(cw, &r, T0 + 5 * MIN, collect_result, &x, NULL);
    assert_true(x.first[0] == 0);
    assert_int_equal(x.nv[0], 3);
    assert_string_equal(x.status[0], "PartialData");
    sc_cw_destroy(cw);
}

static void test_cloudwatch_get_metric_data_errors(void **state)
{
    struct sc_cw *cw = cw_new();
    struct sc_metric_data_query q = mdq("Bad", "Average");
    struct sc_get_metric_data_req r = gmd(&q, 1, T0, T0 + MIN);
    struct results x = { 0 };
    struct sc_error err;

    (void)state;
    assert_int_equal(sc_cw_get_metric_data(cw, &r, T0, collect_result, &x, &err),
                     SC_ERR_VALIDATION);
    assert_string_equal(err.message, "The value Bad for parameter MetricDataQueries.member.1.Id is "
                                     "invalid: it must match ^[a-z][a-zA-Z0-9_]*$.");
    q.id = "e1";
    q.expression = "SUM(METRICS())";
    assert_int_equal(sc_cw_get_metric_data(cw, &r, T0, collect_result, &x, &err),
                     SC_ERR_VALIDATION);
    assert_string_equal(err.message, "The parameters MetricDataQueries.member.1.MetricStat and "
                                     "MetricDataQueries.member.1.Expression are mutually exclusive "
                                     "and you have specified both.");
    sc_cw_destroy(cw);
}

/* moto's tests quote AWS: a query with neither MetricStat nor Expression (the text ends with a
 * newline), StartTime equal to EndTime (compared in whole seconds). */
static void test_cloudwatch_get_metric_data_aws_texts_neither_and_equal_times(void **state)
{
    struct sc_cw *cw = cw_new();
    struct sc_metric_data_query q = mdq("m1", "Average");
    struct sc_get_metric_data_req r = gmd(&q, 1, T0, T0 + MIN);
    struct results x = { 0 };
    struct sc_error err;

    (void)state;
    q.has_metric_stat = 0;
    assert_int_equal(sc_cw_get_metric_data(cw, &r, T0, collect_result, &x, &err),
                     SC_ERR_VALIDATION);
    assert_string_equal(err.message,
                        "The parameter MetricDataQueries.member.1.MetricStat is required.\n");
    q.has_metric_stat = 1;
    r.end_time_ms = r.start_time_ms = T0 + 20;
    r.end_time_ms = T0 + 987;
    assert_int_equal(sc_cw_get_metric_data(cw, &r, T0, collect_result, &x, &err),
                     SC_ERR_VALIDATION);
    assert_string_equal(err.message, "The parameter StartTime must not equal parameter EndTime.");
    sc_cw_destroy(cw);
}

/* GetMetricData serves expressions: ReturnData false hides the inputs, an expression's
 * default label is its Id, unknown Ids answer a ValidationError. */
static void test_cloudwatch_get_metric_data_expression(void **state)
{
    struct sc_cw *cw = cw_new();
    struct sc_metric_data_query q[3] = { mdq("m1", "Sum"), mdq("m2", "Sum"), mdq("e1", NULL) };
    struct sc_get_metric_data_req r = gmd(q, 3, T0, T0 + 3 * MIN);
    struct results x = { 0 };
    struct sc_error err;

    (void)state;
    put(cw, NULL, 10, T0, T0);
    put(cw, NULL, 30, T0 + MIN, T0 + MIN);
    q[0].has_return_data = 1;
    q[0].return_data = 0;
    q[1].metric.metric_name = "Other";
    q[1].has_return_data = 1;
    q[1].return_data = 0;
    q[2].has_metric_stat = 0;
    q[2].expression = "m1 * 2 + FILL(m2, 1)";
    r.scan_by = "TimestampAscending";
    assert_int_equal(sc_cw_get_metric_data(cw, &r, T0 + 5 * MIN, collect_result, &x, &err), SC_OK);
    assert_int_equal(x.n, 1);
    assert_string_equal(x.ids[0], "e1");
    assert_int_equal(x.nv[0], 3); /* FILL makes the third minute: 0 * 2 + 1 */
    assert_true(x.first[0] == 21);
    q[2].expression = "m1 + m9";
    assert_int_equal(sc_cw_get_metric_data(cw, &r, T0 + 5 * MIN, collect_result, &x, &err),
                     SC_ERR_VALIDATION);
    assert_string_equal(err.message,
                        "Error in expression e1: Unrecognized identifier m9 at position 6");
    sc_cw_destroy(cw);
}

static void test_cloudwatch_get_metric_data_multiple_units(void **state)
{
    struct sc_cw *cw = cw_new();
    struct sc_metric_data_query q = mdq("m", "Sum");
    struct sc_get_metric_data_req r = gmd(&q, 1, T0, T0 + MIN);
    struct results x = { 0 };
    char msg[128];

    (void)state;
    put(cw, "Seconds", 1, T0, T0 + MIN);
    put(cw, "Milliseconds", 1, T0, T0 + MIN);
    sc_cw_get_metric_data(cw, &r, T0 + MIN, collect_result, &x, NULL);
    assert_string_equal(x.msg, "MultipleUnits");
    (void)msg;
    sc_cw_destroy(cw);
}

static int collect_metric(const struct sc_metric_view *m, void *ud)
{
    char *out = ud;
    strcat(out, m->metric_name);
    for (int i = 0; i < m->n_dimensions; i++) {
        strcat(out, ":");
        strcat(out, m->dimensions[i].value);
    }
    strcat(out, ",");
    return 0;
}

static void test_cloudwatch_list_metrics_filters_recent(void **state)
{
    struct sc_cw *cw = cw_new();
    struct sc_dimension g1[] = { { "AutoScalingGroupName", "g1" } };
    struct sc_dimension f[] = { { "AutoScalingGroupName", NULL } };
    struct sc_list_metrics_req r = { 0 };
    char out[256] = "";

    (void)state;
    sc_cw_put_value(cw, "AWS/EC2", "CPUUtilization", g1, 1, "Percent", 50, T0, T0);
    sc_cw_put_value(cw, "AWS/EC2", "CPUUtilization", NULL, 0, "Percent", 50, T0 + 10 * 86400000LL,
                    T0 + 10 * 86400000LL);
    r.namespace = "AWS/EC2";
    sc_cw_list_metrics(cw, &r, T0 + 10 * 86400000LL, collect_metric, out, NULL);
    assert_string_equal(out, "CPUUtilization:g1,CPUUtilization,");
    r.dimensions = f;
    r.n_dimensions = 1;
    out[0] = 0;
    sc_cw_list_metrics(cw, &r, T0 + 10 * 86400000LL, collect_metric, out, NULL);
    assert_string_equal(out, "CPUUtilization:g1,");
    /* metrics without data in the last 14 days are not listed; PT3H narrows to 3 h */
    r.n_dimensions = 0;
    out[0] = 0;
    sc_cw_list_metrics(cw, &r, T0 + 15 * 86400000LL, collect_metric, out, NULL);
    assert_string_equal(out, "CPUUtilization,");
    r.recently_active = "PT3H";
    out[0] = 0;
    sc_cw_list_metrics(cw, &r, T0 + 15 * 86400000LL, collect_metric, out, NULL);
    assert_string_equal(out, "");
    sc_cw_destroy(cw);
}

struct hits {
    int n;
    char last[200];
};

static const char *on_action(const char *arn, const struct sc_alarm_view *al, int64_t now, void *ud)
{
    struct hits *h = ud;
    (void)al;
    (void)now;
    h->n++;
    snprintf(h->last, sizeof(h->last), "%s", arn);
    return NULL;
}

static void test_cloudwatch_step_evaluates_every_minute(void **state)
{
    struct sc_cw *cw = cw_new();
    const char *acts[] = { AS_ARN };
    struct sc_put_metric_alarm_req a = alarm_req("high", 60, 50, acts, 1);
    struct hits h = { 0 };
    int64_t now = T0;

    (void)state;
    sc_cw_set_action_handler(cw, on_action, &h);
    assert_int_equal(sc_cw_put_metric_alarm(cw, &a, T0, NULL), SC_OK);
    assert_true(sc_cw_next_due_ms(cw, T0) == T0);
    for (int i = 0; i < 5; i++) {
        put(cw, NULL, 80, now, now);
        now = sc_cw_next_due_ms(cw, now);
        if (now <= T0 + i * MIN)
            now = T0 + (i + 1) * MIN;
        sc_cw_step(cw, now);
    }
    assert_int_equal(sc_cw_alarm_find(cw, "high")->state, SC_ALARM_ALARM);
    /* ALARM at the first minute with data, then once per minute after */
    assert_true(h.n >= 4);
    assert_string_equal(h.last, AS_ARN);
    {
        double vals[4];
        assert_int_equal(sc_cw_alarm_recent_values(cw, "high", vals, 4), 1);
        assert_true(vals[0] == 80);
        assert_int_equal(sc_cw_alarm_recent_values(cw, "nope", vals, 4), -1);
    }
    sc_cw_destroy(cw);
}

static void test_cloudwatch_next_due_pending_set_alarm_state(void **state)
{
    struct sc_cw *cw = cw_new();
    const char *acts[] = { AS_ARN };
    struct sc_put_metric_alarm_req a = alarm_req("x", 300, 1, acts, 1);
    struct sc_set_alarm_state_req s = { "x", "ALARM", "manual", NULL };
    struct hits h = { 0 };

    (void)state;
    sc_cw_set_action_handler(cw, on_action, &h);
    sc_cw_put_metric_alarm(cw, &a, T0, NULL);
    sc_cw_step(cw, T0);
    assert_true(sc_cw_next_due_ms(cw, T0 + 1000) == T0 + MIN);
    assert_int_equal(sc_cw_set_alarm_state(cw, &s, T0 + 1000, NULL), SC_OK);
    assert_true(sc_cw_next_due_ms(cw, T0 + 1000) == T0 + 1000);
    sc_cw_step(cw, T0 + 1000);
    assert_int_equal(h.n, 1);
    sc_cw_destroy(cw);
}

static int collect_tag(const char *k, const char *v, void *ud)
{
    char *out = ud;
    strcat(out, k);
    strcat(out, "=");
    strcat(out, v);
    strcat(out, ",");
    return 0;
}

static void test_cloudwatch_tags_by_arn(void **state)
{
    struct sc_cw *cw = cw_new();
    struct sc_put_metric_alarm_req a = alarm_req("x", 60, 0, NULL, 0);
    struct sc_tag t[] = { { "team", "ops" }, { "env", "lab" } };
    const char *keys[] = { "team" };
    const char *arn = "arn:aws:cloudwatch:us-east-1:123456789012:alarm:x";
    char out[128] = "";
    struct sc_error err;

    (void)state;
    sc_cw_put_metric_alarm(cw, &a, T0, NULL);
    assert_int_equal(sc_cw_tag_resource(cw, arn, t, 2, NULL), SC_OK);
    assert_int_equal(sc_cw_untag_resource(cw, arn, keys, 1, NULL), SC_OK);
    sc_cw_list_tags_for_resource(cw, arn, collect_tag, out, NULL);
    assert_string_equal(out, "env=lab,");
    assert_int_equal(sc_cw_list_tags_for_resource(cw, "arn:aws:cloudwatch:us-east-1:1:alarm:no",
                                                  collect_tag, out, &err),
                     SC_ERR_RESOURCE_NOT_FOUND_EXCEPTION);
    /* TagResource and UntagResource: AWS's ResourceNotFoundException, 404, "Unknown" (moto
     * test_tag_resource_error_not_exists, test_untag_resource_error_not_exists) */
    assert_int_equal(sc_cw_tag_resource(cw, "arn:aws:cloudwatch:us-east-1:1:alarm:no", t, 1, &err),
                     SC_ERR_RESOURCE_NOT_FOUND_EXCEPTION);
    assert_string_equal(sc_status_code(err.status), "ResourceNotFoundException");
    assert_int_equal(sc_status_http(err.status), 404);
    assert_string_equal(err.message, "Unknown");
    assert_int_equal(
        sc_cw_untag_resource(cw, "arn:aws:cloudwatch:us-east-1:1:alarm:no", keys, 1, &err),
        SC_ERR_RESOURCE_NOT_FOUND_EXCEPTION);
    sc_cw_destroy(cw);
}

static void test_cloudwatch_put_value_internal_namespace(void **state)
{
    struct sc_cw *cw = cw_new();
    struct sc_metric_datum d = { .metric_name = "CPUUtilization", .has_value = 1, .value = 1 };
    struct sc_put_metric_data_req r = { "AWS/EC2", &d, 1, 0 };
    struct sc_error err;

    (void)state;
    /* the API refuses AWS/ namespaces; the world's internal puts may use them */
    assert_int_equal(sc_cw_put_metric_data(cw, &r, T0, &err), SC_ERR_INVALID_PARAMETER_VALUE);
    assert_int_equal(
        sc_cw_put_value(cw, "AWS/EC2", "CPUUtilization", NULL, 0, "Percent", 1, T0, T0), SC_OK);
    sc_cw_destroy(cw);
}

struct reenter {
    struct sc_cw *cw;
    int calls;
};

/* A handler that deletes the alarm it serves and creates others, as a policy change might. */
static const char *reentrant_action(const char *arn, const struct sc_alarm_view *al, int64_t now,
                                    void *ud)
{
    struct reenter *r = ud;
    const char *name = al->alarm_name;
    struct sc_put_metric_alarm_req a;
    char other[32];

    (void)arn;
    r->calls++;
    snprintf(other, sizeof(other), "made-%d", r->calls);
    a = alarm_req(other, 60, 0, NULL, 0);
    assert_int_equal(sc_cw_put_metric_alarm(r->cw, &a, now, NULL), SC_OK);
    assert_int_equal(sc_cw_delete_alarms(r->cw, &name, 1, now, NULL), SC_OK);
    return NULL;
}

static void test_cloudwatch_action_handler_may_change_alarms(void **state)
{
    struct sc_cw *cw = cw_new();
    struct reenter r = { cw, 0 };
    const char *acts[] = { AS_ARN, AS_ARN };
    const char *names[] = { "a1", "a2", "a3" };

    (void)state;
    sc_cw_set_action_handler(cw, reentrant_action, &r);
    for (int i = 0; i < 3; i++) {
        struct sc_put_metric_alarm_req a = alarm_req(names[i], 60, 1, acts, 2);

        sc_cw_put_metric_alarm(cw, &a, T0, NULL);
    }
    put(cw, NULL, 5, T0, T0 + MIN);
    sc_cw_step(cw, T0 + MIN);
    /* each alarm went to ALARM once; its first action deleted it, the second found it gone */
    assert_int_equal(r.calls, 3);
    assert_null(sc_cw_alarm_find(cw, "a1"));
    assert_non_null(sc_cw_alarm_find(cw, "made-3"));
    sc_cw_destroy(cw);
}

/* Evaluation cadence [D AlarmThatSendsEmail]: an alarm with a period of a minute or more
 * is evaluated every minute, over a window that slides by one minute (its slots end at the
 * tick, not at period boundaries): a 5-minute alarm sees a point of minute 7 at the tick of
 * minute 8, not at minute 10. */
static void test_cloudwatch_cadence_window_slides_by_one_minute(void **state)
{
    struct sc_cw *cw = cw_new();
    struct sc_put_metric_alarm_req a = alarm_req("five", 300, 50, NULL, 0);

    (void)state;
    assert_int_equal(sc_cw_put_metric_alarm(cw, &a, T0, NULL), SC_OK);
    for (int m = 0; m <= 7; m++)
        sc_cw_step(cw, T0 + m * MIN);
    assert_true(sc_cw_alarm_find(cw, "five")->state != SC_ALARM_ALARM);
    put(cw, NULL, 80, T0 + 7 * MIN, T0 + 7 * MIN + 10000);
    assert_true(sc_cw_next_due_ms(cw, T0 + 7 * MIN + 10000) == T0 + 8 * MIN);
    sc_cw_step(cw, T0 + 8 * MIN);
    assert_int_equal(sc_cw_alarm_find(cw, "five")->state, SC_ALARM_ALARM);
    assert_true(sc_cw_alarm_find(cw, "five")->state_updated_timestamp_ms == T0 + 8 * MIN);
    sc_cw_destroy(cw);
}

/* High resolution [D "High-resolution alarms"]: with a 10-second period the alarms are
 * evaluated every 10 s; standard-period alarms still only at minute ticks. */
static void test_cloudwatch_cadence_high_resolution_every_10s(void **state)
{
    struct sc_cw *cw = cw_new();
    struct sc_put_metric_alarm_req hi = alarm_req("ten", 10, 50, NULL, 0);
    struct sc_put_metric_alarm_req lo = alarm_req("minute", 60, 50, NULL, 0);
    struct sc_metric_datum d = { .metric_name = "M",
                                 .has_value = 1,
                                 .value = 80,
                                 .has_timestamp = 1,
                                 .timestamp_ms = T0 + 12000,
                                 .storage_resolution = 1 };
    struct sc_put_metric_data_req r = { "App", &d, 1, 0 };
    int64_t lo_changed;

    (void)state;
    assert_int_equal(sc_cw_put_metric_alarm(cw, &hi, T0, NULL), SC_OK);
    assert_int_equal(sc_cw_put_metric_alarm(cw, &lo, T0, NULL), SC_OK);
    sc_cw_step(cw, T0);
    assert_true(sc_cw_next_due_ms(cw, T0) == T0 + 10000);
    sc_cw_step(cw, T0 + 10000);
    lo_changed = sc_cw_alarm_find(cw, "minute")->state_updated_timestamp_ms;
    assert_int_equal(sc_cw_put_metric_data(cw, &r, T0 + 15000, NULL), SC_OK);
    assert_true(sc_cw_next_due_ms(cw, T0 + 15000) == T0 + 20000);
    sc_cw_step(cw, T0 + 20000); /* slot [10 s, 20 s) holds the point */
    assert_int_equal(sc_cw_alarm_find(cw, "ten")->state, SC_ALARM_ALARM);
    assert_true(sc_cw_alarm_find(cw, "ten")->state_updated_timestamp_ms == T0 + 20000);
    assert_true(sc_cw_alarm_find(cw, "minute")->state_updated_timestamp_ms == lo_changed);
    sc_cw_step(cw, T0 + MIN); /* the minute alarm's next evaluation */
    assert_int_equal(sc_cw_alarm_find(cw, "minute")->state, SC_ALARM_ALARM);
    sc_cw_destroy(cw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cloudwatch_get_metric_statistics_buckets),
        cmocka_unit_test(test_cloudwatch_get_metric_statistics_one_datapoint_per_unit),
        cmocka_unit_test(test_cloudwatch_get_metric_statistics_extended),
        cmocka_unit_test(test_cloudwatch_get_metric_statistics_errors),
        cmocka_unit_test(test_cloudwatch_get_metric_data_scan_by_and_status),
        cmocka_unit_test(test_cloudwatch_get_metric_data_errors),
        cmocka_unit_test(test_cloudwatch_get_metric_data_aws_texts_neither_and_equal_times),
        cmocka_unit_test(test_cloudwatch_get_metric_data_expression),
        cmocka_unit_test(test_cloudwatch_get_metric_data_multiple_units),
        cmocka_unit_test(test_cloudwatch_list_metrics_filters_recent),
        cmocka_unit_test(test_cloudwatch_step_evaluates_every_minute),
        cmocka_unit_test(test_cloudwatch_next_due_pending_set_alarm_state),
        cmocka_unit_test(test_cloudwatch_tags_by_arn),
        cmocka_unit_test(test_cloudwatch_cadence_window_slides_by_one_minute),
        cmocka_unit_test(test_cloudwatch_cadence_high_resolution_every_10s),
        cmocka_unit_test(test_cloudwatch_put_value_internal_namespace),
        cmocka_unit_test(test_cloudwatch_action_handler_may_change_alarms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
