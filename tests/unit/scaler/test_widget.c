/* tests/unit/scaler/test_widget.c: scaler/widget.c (GetMetricWidgetImage's MetricWidget:
 * its structure, "." and "..." entries, math over the entries, the time range, errors) */
#include "scaler/widget.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/alarm.h"
#include "scaler/cloudwatch.h"

#define T0  1767225600000LL /* 2026-01-01T00:00:00Z */
#define MIN 60000LL
#define NOW (T0 + 60 * MIN)

/* App/Lat with H=a (10, 11, ...) and H=b (40, 39, ...) each minute of the hour before NOW. */
static struct sc_cw *cw_with_data(void)
{
    struct sc_cw_config c;
    struct sc_cw *cw;

    sc_cw_config_defaults(&c);
    c.start_ms = T0;
    cw = sc_cw_create(&c);
    assert_non_null(cw);
    for (int i = 0; i < 60; i++) {
        struct sc_dimension da = { "H", "a" }, db = { "H", "b" };
        struct sc_metric_datum d[2] = {
            { .metric_name = "Lat",
              .dimensions = &da,
              .n_dimensions = 1,
              .has_value = 1,
              .value = 10 + i,
              .has_timestamp = 1,
              .timestamp_ms = T0 + i * MIN },
            { .metric_name = "Lat",
              .dimensions = &db,
              .n_dimensions = 1,
              .has_value = 1,
              .value = 40 - i,
              .has_timestamp = 1,
              .timestamp_ms = T0 + i * MIN },
        };
        struct sc_put_metric_data_req r = { "App", d, 2, 0 };
        assert_int_equal(sc_cw_put_metric_data(cw, &r, NOW, NULL), SC_OK);
    }
    return cw;
}

static void test_widget_parse_time_iso_and_durations(void **state)
{
    int64_t t;

    (void)state;
    assert_int_equal(sc_widget_parse_time("2026-01-01T00:00:00.000Z", NOW, &t), 0);
    assert_true(t == T0);
    assert_int_equal(sc_widget_parse_time("-PT3H", NOW, &t), 0);
    assert_true(t == NOW - 180 * MIN);
    assert_int_equal(sc_widget_parse_time("-P1D", NOW, &t), 0);
    assert_true(t == NOW - 1440 * MIN);
    assert_int_equal(sc_widget_parse_time("-PT1H30M", NOW, &t), 0);
    assert_true(t == NOW - 90 * MIN);
    assert_int_equal(sc_widget_parse_time("-P1W", NOW, &t), 0);
    assert_true(t == NOW - 7 * 1440 * MIN);
    assert_int_equal(sc_widget_parse_time("-PT0H", NOW, &t), 0);
    assert_true(t == NOW);
    assert_int_equal(sc_widget_parse_time("-P3H", NOW, &t), -1); /* H needs T */
    assert_int_equal(sc_widget_parse_time("yesterday", NOW, &t), -1);
    assert_int_equal(sc_widget_parse_time("-P", NOW, &t), -1);
}

/* The three entries: a metric, "..." repeating it with another dimension value, and an
 * expression over both: the sum is 50 at every minute. */
static void test_widget_metrics_dots_and_math(void **state)
{
    struct sc_cw *cw = cw_with_data();
    struct sc_widget *w = NULL;
    struct sc_error err;
    const char *json =
        "{\"metrics\":[[\"App\",\"Lat\",\"H\",\"a\"],[\"...\",\"b\"],"
        "[{\"expression\":\"m1+m2\",\"label\":\"sum\",\"id\":\"e1\",\"color\":\"#ff0000\"}]],"
        "\"period\":60,\"start\":\"-PT1H\",\"title\":\"T\",\"yAxis\":{\"left\":{\"min\":0}},"
        "\"annotations\":{\"horizontal\":[{\"value\":30,\"label\":\"slo\"},"
        "[{\"value\":1},{\"value\":2}]],\"vertical\":[{\"value\":\"-PT30M\"}]}}";

    (void)state;
    assert_int_equal(sc_widget_create(cw, json, NOW, &w, &err), SC_OK);
    assert_int_equal(w->n_series, 3);
    assert_string_equal(w->series[0].id, "m1");
    assert_string_equal(w->series[1].id, "m2");
    assert_string_equal(w->series[2].id, "e1");
    assert_string_equal(w->series[2].label, "sum");
    assert_string_equal(w->series[2].color, "#ff0000");
    assert_int_equal(w->series[0].n, 60);
    assert_true(w->series[0].ts_ms[0] < w->series[0].ts_ms[1]); /* ascending */
    assert_true(w->series[0].values[0] == 10 && w->series[1].values[0] == 40);
    for (int i = 0; i < w->series[2].n; i++)
        assert_true(w->series[2].values[i] == 50);
    assert_true(sc_widget_series_value(&w->series[0]) == 69);
    assert_string_equal(w->title, "T");
    assert_true(w->left.has_min && w->left.min == 0 && !w->left.has_max);
    assert_int_equal(w->n_hlines, 2);
    assert_true(w->hlines[1].band && w->hlines[1].y2 == 2);
    assert_int_equal(w->n_vlines, 1);
    assert_true(w->vlines[0].t_ms == NOW - 30 * MIN);
    assert_int_equal(w->width, 600);
    assert_int_equal(w->height, 400);
    sc_widget_destroy(w);
    sc_cw_destroy(cw);
}

/* visible false: fetched for the expression, not drawn; the widget's stat and period. */
static void test_widget_invisible_metric_feeds_expression(void **state)
{
    struct sc_cw *cw = cw_with_data();
    struct sc_widget *w = NULL;
    struct sc_error err;
    const char *json = "{\"metrics\":[[\"App\",\"Lat\",\"H\",\"a\",{\"visible\":false}],"
                       "[{\"expression\":\"m1*2\"}]],\"period\":600,\"stat\":\"Maximum\","
                       "\"start\":\"-PT1H\",\"view\":\"bar\"}";

    (void)state;
    assert_int_equal(sc_widget_create(cw, json, NOW, &w, &err), SC_OK);
    assert_int_equal(w->view, SC_WIDGET_BAR);
    assert_int_equal(w->n_series, 1);
    assert_string_equal(w->series[0].id, "e1");
    assert_int_equal(w->series[0].n, 6);
    assert_true(w->series[0].values[0] == 2 * 19); /* max of 10..19 in the first 10 min */
    sc_widget_destroy(w);
    sc_cw_destroy(cw);
}

/* setPeriodToTimeRange: one value per series over the whole range. */
static void test_widget_period_to_time_range(void **state)
{
    struct sc_cw *cw = cw_with_data();
    struct sc_widget *w = NULL;
    struct sc_error err;
    const char *json = "{\"metrics\":[[\"App\",\"Lat\",\"H\",\"a\",{\"stat\":\"Sum\"}]],"
                       "\"view\":\"pie\",\"setPeriodToTimeRange\":true,"
                       "\"start\":\"2026-01-01T00:00:00Z\",\"end\":\"2026-01-01T01:00:00Z\"}";

    (void)state;
    assert_int_equal(sc_widget_create(cw, json, NOW, &w, &err), SC_OK);
    assert_int_equal(w->n_series, 1);
    assert_int_equal(w->series[0].n, 1);
    assert_true(w->series[0].values[0] == 60 * 10 + 59 * 60 / 2); /* 10 + ... + 69 */
    sc_widget_destroy(w);
    sc_cw_destroy(cw);
}

static void test_widget_bad_input_aws_messages(void **state)
{
    static const struct {
        const char *json;
        enum sc_status st;
        const char *msg;
    } cases[] = {
        { "not json", SC_ERR_INVALID_PARAMETER_INPUT,
          "The field MetricWidget must be a valid JSON object" },
        { "[1]", SC_ERR_INVALID_PARAMETER_INPUT,
          "The field MetricWidget must be a valid JSON object" },
        { "{}", SC_ERR_INVALID_PARAMETER_INPUT, "Should have required property 'metrics'" },
        { "{\"metrics\":{}}", SC_ERR_INVALID_PARAMETER_INPUT, "/metrics: Should be array" },
        { "{\"metrics\":[]}", SC_ERR_INVALID_PARAMETER_INPUT,
          "/metrics: Should NOT have fewer than 1 items" },
        { "{\"metrics\":[1]}", SC_ERR_INVALID_PARAMETER_INPUT, "/metrics/0: Should be array" },
        { "{\"metrics\":[[\"A\"]]}", SC_ERR_INVALID_PARAMETER_INPUT,
          "/metrics/0: Should NOT have fewer than 2 items" },
        { "{\"metrics\":[[\"A\",\"B\",\"C\"]]}", SC_ERR_INVALID_PARAMETER_INPUT,
          "/metrics/0: Should have an even number of dimension names and values" },
        { "{\"metrics\":[[\"A\",\"B\"]],\"view\":\"line\"}", SC_ERR_INVALID_PARAMETER_INPUT,
          "/view: Should be equal to one of the allowed values" },
        { "{\"metrics\":[[\"A\",\"B\"]],\"width\":2001}", SC_ERR_INVALID_PARAMETER_INPUT,
          "/width: Should NOT be greater than 2000" },
        { "{\"metrics\":[[\"A\",\"B\"]],\"height\":0}", SC_ERR_INVALID_PARAMETER_INPUT,
          "/height: Should NOT be less than 1" },
        { "{\"metrics\":[[\"A\",\"B\"]],\"period\":90}", SC_ERR_INVALID_PARAMETER_INPUT,
          "/period: Should be a multiple of 60" },
        { "{\"metrics\":[[\"A\",\"B\"]],\"stat\":\"Median\"}", SC_ERR_INVALID_PARAMETER_INPUT,
          "/stat: Should be a valid statistic" },
        { "{\"metrics\":[[\"A\",\"B\"]],\"start\":\"soon\"}", SC_ERR_INVALID_PARAMETER_INPUT,
          "/start: Should be an ISO 8601 time or duration" },
        { "{\"metrics\":[[\"A\",\"B\"]],\"start\":\"-PT1H\",\"end\":\"-PT2H\"}",
          SC_ERR_INVALID_PARAMETER_INPUT, "The start time must be before the end time" },
        { "{\"metrics\":[[\"A\",\"B\",{\"color\":\"red\"}]]}", SC_ERR_INVALID_PARAMETER_INPUT,
          "/metrics/0/color: Should match pattern \"^#([0-9a-fA-F]{6})$\"" },
    };
    struct sc_cw *cw = cw_with_data();

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sc_widget *w = (struct sc_widget *)&cw; /* must be reset to NULL */
        struct sc_error err;

        assert_int_equal(sc_widget_create(cw, cases[i].json, NOW, &w, &err), cases[i].st);
        assert_null(w);
        if (strcmp(err.message, cases[i].msg) != 0)
            fail_msg("%s: got \"%s\"", cases[i].json, err.message);
    }
    sc_cw_destroy(cw);
}

/* 101 entries: AWS's limit of 100 metrics in the graph. */
static void test_widget_more_than_100_metrics(void **state)
{
    char json[4096];
    size_t n = 0;
    struct sc_cw *cw = cw_with_data();
    struct sc_widget *w = NULL;
    struct sc_error err;

    (void)state;
    n += (size_t)snprintf(json + n, sizeof(json) - n, "{\"metrics\":[");
    for (int i = 0; i < 101; i++)
        n += (size_t)snprintf(json + n, sizeof(json) - n, "%s[\"A\",\"B\"]", i ? "," : "");
    snprintf(json + n, sizeof(json) - n, "]}");
    assert_int_equal(sc_widget_create(cw, json, NOW, &w, &err), SC_ERR_INVALID_PARAMETER_INPUT);
    assert_string_equal(err.message, "/metrics: Should NOT have more than 100 items");
    sc_cw_destroy(cw);
}

static void test_widget_parse_timezone_offsets_and_local(void **state)
{
    int tz = 1;

    (void)state;
    assert_int_equal(sc_widget_parse_timezone("+0130", &tz), 0);
    assert_int_equal(tz, 5400);
    assert_int_equal(sc_widget_parse_timezone("-0500", &tz), 0);
    assert_int_equal(tz, -18000);
    assert_int_equal(sc_widget_parse_timezone("+0000", &tz), 0);
    assert_int_equal(tz, 0);
    tz = 1;
    assert_int_equal(sc_widget_parse_timezone("LOCAL", &tz), 0);
    assert_int_equal(tz, 0);
    assert_int_equal(sc_widget_parse_timezone("0130", &tz), -1);
    assert_int_equal(sc_widget_parse_timezone("+130", &tz), -1);
    assert_int_equal(sc_widget_parse_timezone("+2400", &tz), -1);
    assert_int_equal(sc_widget_parse_timezone("+0160", &tz), -1);
    assert_int_equal(sc_widget_parse_timezone("UTC", &tz), -1);
    assert_int_equal(sc_widget_parse_timezone(NULL, &tz), -1);
}

static void test_widget_timezone_and_bad_timezone(void **state)
{
    struct sc_cw *cw = cw_with_data();
    struct sc_widget *w = NULL;
    struct sc_error err;

    (void)state;
    assert_int_equal(sc_widget_create(cw,
                                      "{\"metrics\":[[\"App\",\"Lat\",\"H\",\"a\"]],"
                                      "\"timezone\":\"-0500\"}",
                                      NOW, &w, &err),
                     SC_OK);
    assert_int_equal(w->tz_offset_s, -18000);
    sc_widget_destroy(w);
    assert_int_equal(sc_widget_create(cw,
                                      "{\"metrics\":[[\"App\",\"Lat\",\"H\",\"a\"]],"
                                      "\"timezone\":\"Europe/Paris\"}",
                                      NOW, &w, &err),
                     SC_ERR_INVALID_PARAMETER_INPUT);
    assert_string_equal(err.message, "/timezone: Should be LOCAL or a UTC offset +HHMM / -HHMM");
    sc_cw_destroy(cw);
}

static void test_widget_alarm_label_console_wording(void **state)
{
    char s[128];

    (void)state;
    sc_widget_alarm_label("CPUUtilization", "GreaterThanOrEqualToThreshold", 70, 3, 3, 300, s,
                          sizeof(s));
    assert_string_equal(s, "CPUUtilization >= 70 for 3 datapoints within 15 minutes");
    sc_widget_alarm_label("Lat", "LessThanThreshold", 2.5, 1, 2, 10, s, sizeof(s));
    assert_string_equal(s, "Lat < 2.5 for 1 datapoints within 20 seconds");
}

static void put_lat_alarm(struct sc_cw *cw, const char *name, const char *op, double threshold)
{
    struct sc_dimension d = { "H", "a" };
    struct sc_put_metric_alarm_req r = { 0 };
    struct sc_error err;

    r.alarm_name = name;
    r.namespace = "App";
    r.metric_name = "Lat";
    r.statistic = "Maximum";
    r.dimensions = &d;
    r.n_dimensions = 1;
    r.has_period = 1;
    r.period = 60;
    r.has_evaluation_periods = 1;
    r.evaluation_periods = 2;
    r.has_threshold = 1;
    r.threshold = threshold;
    r.comparison_operator = op;
    assert_int_equal(sc_cw_put_metric_alarm(cw, &r, NOW, &err), SC_OK);
}

/* An alarm annotation without metrics: the graph of the alarm (its metric with its
 * statistic and period) and its threshold, filled on the alarm's side. */
static void test_widget_alarm_annotation_graphs_the_alarm(void **state)
{
    struct sc_cw *cw = cw_with_data();
    struct sc_widget *w = NULL;
    struct sc_error err;
    const struct sc_alarm_view *v;
    char json[512];

    (void)state;
    put_lat_alarm(cw, "lat-high", "GreaterThanThreshold", 50);
    v = sc_cw_alarm_find(cw, "lat-high");
    assert_non_null(v);
    snprintf(json, sizeof(json), "{\"annotations\":{\"alarms\":[\"%s\"]},\"start\":\"-PT1H\"}",
             v->alarm_arn);
    assert_int_equal(sc_widget_create(cw, json, NOW, &w, &err), SC_OK);
    assert_string_equal(w->alarm_name, "lat-high");
    assert_string_equal(w->alarm_arn, v->alarm_arn);
    assert_non_null(w->alarm_state);
    assert_int_equal(w->n_series, 1);
    assert_int_equal(w->series[0].n, 60); /* Maximum each minute: the alarm's period */
    assert_true(w->series[0].values[59] == 69);
    assert_int_equal(w->n_hlines, 1);
    assert_int_equal(w->hlines[0].alarm, 1);
    assert_true(w->hlines[0].y == 50);
    assert_int_equal(w->hlines[0].fill, 1); /* above: GreaterThan */
    assert_string_equal(w->hlines[0].label, "Lat > 50 for 2 datapoints within 2 minutes");
    sc_widget_destroy(w);

    /* With metrics, the alarm adds its threshold to the graph of those metrics. */
    put_lat_alarm(cw, "lat-low", "LessThanOrEqualToThreshold", 20);
    v = sc_cw_alarm_find(cw, "lat-low");
    snprintf(json, sizeof(json),
             "{\"metrics\":[[\"App\",\"Lat\",\"H\",\"b\"]],\"annotations\":{\"alarms\":[\"%s\"],"
             "\"horizontal\":[{\"value\":30}]}}",
             v->alarm_arn);
    assert_int_equal(sc_widget_create(cw, json, NOW, &w, &err), SC_OK);
    assert_int_equal(w->n_series, 1);
    assert_int_equal(w->n_hlines, 2);
    assert_int_equal(w->hlines[1].alarm, 1);
    assert_int_equal(w->hlines[1].fill, 2); /* below: LessThan */
    sc_widget_destroy(w);
    sc_cw_destroy(cw);
}

static void test_widget_alarm_annotation_errors(void **state)
{
    static const struct {
        const char *json, *msg;
    } cases[] = {
        { "{\"annotations\":{\"alarms\":\"x\"}}", "/annotations/alarms: Should be array" },
        { "{\"annotations\":{\"alarms\":[\"a\",\"b\"]}}",
          "/annotations/alarms: Should NOT have more than 1 items" },
        { "{\"annotations\":{\"alarms\":[1]}}", "/annotations/alarms/0: Should be string" },
        { "{\"annotations\":{\"alarms\":[\"arn:aws:cloudwatch:us-east-1:123456789012:alarm:nope\"]}}",
          "The alarm arn:aws:cloudwatch:us-east-1:123456789012:alarm:nope does not exist" },
        { "{\"annotations\":{\"alarms\":[]}}", "Should have required property 'metrics'" },
    };
    struct sc_cw *cw = cw_with_data();

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sc_widget *w = NULL;
        struct sc_error err;

        assert_int_equal(sc_widget_create(cw, cases[i].json, NOW, &w, &err),
                         SC_ERR_INVALID_PARAMETER_INPUT);
        assert_null(w);
        if (strcmp(err.message, cases[i].msg) != 0)
            fail_msg("%s: got \"%s\"", cases[i].json, err.message);
    }
    sc_cw_destroy(cw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widget_parse_time_iso_and_durations),
        cmocka_unit_test(test_widget_metrics_dots_and_math),
        cmocka_unit_test(test_widget_invisible_metric_feeds_expression),
        cmocka_unit_test(test_widget_period_to_time_range),
        cmocka_unit_test(test_widget_bad_input_aws_messages),
        cmocka_unit_test(test_widget_more_than_100_metrics),
        cmocka_unit_test(test_widget_parse_timezone_offsets_and_local),
        cmocka_unit_test(test_widget_timezone_and_bad_timezone),
        cmocka_unit_test(test_widget_alarm_label_console_wording),
        cmocka_unit_test(test_widget_alarm_annotation_graphs_the_alarm),
        cmocka_unit_test(test_widget_alarm_annotation_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
