/* tests/unit/scaler/test_metric_stream.c: scaler/metric_stream.c (PutMetricStream's checks,
 * the state on create and update, Start/Stop all or nothing, the filter rule, save/load) */
#include "scaler/metric_stream.h"

#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define FH   "arn:aws:firehose:us-east-1:123456789012:deliverystream/ds"
#define ROLE "arn:aws:iam::123456789012:role/r"

static json_t *req(const char *name, const char *extra)
{
    char buf[1024];
    json_t *j;

    snprintf(buf, sizeof(buf),
             "{\"Name\":\"%s\",\"FirehoseArn\":\"" FH "\",\"RoleArn\":\"" ROLE "\","
             "\"OutputFormat\":\"json\"%s%s}",
             name, extra ? "," : "", extra ? extra : "");
    j = json_loads(buf, 0, NULL);
    assert_non_null(j);
    return j;
}

static const char *state_of(struct sc_metric_streams *s, const char *name)
{
    static char st[16];
    json_t *o;
    struct sc_error e;

    assert_int_equal(sc_metric_streams_get(s, name, &o, &e), SC_OK);
    snprintf(st, sizeof(st), "%s", json_string_value(json_object_get(o, "State")));
    json_decref(o);
    return st;
}

static void test_metric_stream_created_running_update_keeps_state(void **state)
{
    struct sc_metric_streams *s = sc_metric_streams_create(NULL, NULL);
    struct sc_error e;
    const char *arn;
    const char *names[] = { "s" };
    json_t *r = req("s", NULL), *o;

    (void)state;
    assert_int_equal(sc_metric_streams_put(s, r, 1000, &arn, &e), SC_OK);
    assert_string_equal(arn, "arn:aws:cloudwatch:us-east-1:123456789012:metric-stream/s");
    assert_string_equal(state_of(s, "s"), "running");
    assert_int_equal(sc_metric_streams_set_state(s, names, 1, 0, 2000, &e), SC_OK);
    assert_int_equal(sc_metric_streams_put(s, r, 3000, NULL, &e), SC_OK);
    assert_string_equal(state_of(s, "s"), "stopped");
    assert_int_equal(sc_metric_streams_get(s, "s", &o, &e), SC_OK);
    assert_int_equal(json_integer_value(json_object_get(o, "CreationDate")), 1000);
    assert_int_equal(json_integer_value(json_object_get(o, "LastUpdateDate")), 3000);
    json_decref(o);
    json_decref(r);
    sc_metric_streams_destroy(s);
}

static void test_metric_stream_bad_input_changes_nothing(void **state)
{
    static const struct {
        const char *extra;
        enum sc_status st;
        const char *msg;
    } cases[] = {
        { "\"IncludeFilters\":[{\"Namespace\":\"A\"}],\"ExcludeFilters\":[{\"Namespace\":\"B\"}]",
          SC_ERR_INVALID_PARAMETER_COMBINATION,
          "You cannot include both IncludeFilters and ExcludeFilters in the same operation." },
        { "\"IncludeFilters\":[{\"MetricNames\":[\"x\"]}]", SC_ERR_INVALID_PARAMETER_VALUE,
          "A metric stream filter must have a Namespace." },
        { "\"StatisticsConfigurations\":[{\"IncludeMetrics\":[],\"AdditionalStatistics\":"
          "[\"Median\"]}]",
          SC_ERR_INVALID_PARAMETER_VALUE, "Invalid statistic Median for output format json." },
    };
    struct sc_metric_streams *s = sc_metric_streams_create(NULL, NULL);
    struct sc_error e;
    json_t *r;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        r = req("s", cases[i].extra);
        assert_int_equal(sc_metric_streams_put(s, r, 1, NULL, &e), cases[i].st);
        assert_string_equal(e.message, cases[i].msg);
        json_decref(r);
    }
    r = json_pack("{s:s,s:s,s:s,s:s}", "Name", "s", "FirehoseArn",
                  "arn:aws:firehose:us-east-1:999999999999:deliverystream/d", "RoleArn", ROLE,
                  "OutputFormat", "json");
    assert_int_equal(sc_metric_streams_put(s, r, 1, NULL, &e), SC_ERR_INVALID_PARAMETER_VALUE);
    json_decref(r);
    r = json_pack("{s:s,s:s,s:s,s:s}", "Name", "a b", "FirehoseArn", FH, "RoleArn", ROLE,
                  "OutputFormat", "json");
    assert_int_equal(sc_metric_streams_put(s, r, 1, NULL, &e), SC_ERR_INVALID_PARAMETER_VALUE);
    json_decref(r);
    assert_int_equal(sc_metric_streams_count(s), 0);
    sc_metric_streams_destroy(s);
}

static void test_metric_stream_start_stop_all_or_nothing(void **state)
{
    struct sc_metric_streams *s = sc_metric_streams_create(NULL, NULL);
    struct sc_error e;
    const char *names[] = { "s", "ghost" };
    json_t *r = req("s", NULL);

    (void)state;
    assert_int_equal(sc_metric_streams_put(s, r, 1, NULL, &e), SC_OK);
    assert_int_equal(sc_metric_streams_set_state(s, names, 2, 0, 2, &e),
                     SC_ERR_INVALID_PARAMETER_VALUE);
    assert_string_equal(e.message, "The metric streams [ghost] do not exist.");
    assert_string_equal(state_of(s, "s"), "running");
    json_decref(r);
    sc_metric_streams_destroy(s);
}

static void test_metric_stream_selects_include_exclude(void **state)
{
    struct sc_metric_streams *s = sc_metric_streams_create(NULL, NULL);
    struct sc_error e;
    json_t *a = req("inc", "\"IncludeFilters\":[{\"Namespace\":\"AWS/EC2\",\"MetricNames\":"
                           "[\"CPUUtilization\"]},{\"Namespace\":\"App\"}]");
    json_t *b = req("exc", "\"ExcludeFilters\":[{\"Namespace\":\"AWS/EC2\"}]");
    json_t *c = req("all", NULL);

    (void)state;
    assert_int_equal(sc_metric_streams_put(s, a, 1, NULL, &e), SC_OK);
    assert_int_equal(sc_metric_streams_put(s, b, 1, NULL, &e), SC_OK);
    assert_int_equal(sc_metric_streams_put(s, c, 1, NULL, &e), SC_OK);
    assert_true(sc_metric_stream_selects(s, "inc", "AWS/EC2", "CPUUtilization"));
    assert_false(sc_metric_stream_selects(s, "inc", "AWS/EC2", "NetworkIn"));
    assert_true(sc_metric_stream_selects(s, "inc", "App", "Anything"));
    assert_false(sc_metric_stream_selects(s, "exc", "AWS/EC2", "CPUUtilization"));
    assert_true(sc_metric_stream_selects(s, "exc", "AWS/ELB", "Latency"));
    assert_true(sc_metric_stream_selects(s, "all", "X", "Y"));
    assert_false(sc_metric_stream_selects(s, "ghost", "X", "Y"));
    json_decref(a);
    json_decref(b);
    json_decref(c);
    sc_metric_streams_destroy(s);
}

static void test_metric_stream_save_load_round_trip(void **state)
{
    struct sc_metric_streams *s = sc_metric_streams_create(NULL, NULL);
    struct sc_metric_streams *t = sc_metric_streams_create(NULL, NULL);
    struct sc_error e;
    json_t *r = req("s", NULL), *j, *bad;

    (void)state;
    assert_int_equal(sc_metric_streams_put(s, r, 1, NULL, &e), SC_OK);
    sc_metric_streams_set_otel(s, 1);
    j = sc_metric_streams_save(s);
    assert_int_equal(sc_metric_streams_load(t, j, &e), SC_OK);
    assert_int_equal(sc_metric_streams_count(t), 1);
    assert_int_equal(sc_metric_streams_otel(t), 1);
    bad = json_loads("{\"streams\":[{\"Name\":\"x\"}]}", 0, NULL);
    assert_int_equal(sc_metric_streams_load(t, bad, &e), SC_ERR_VALIDATION);
    assert_int_equal(sc_metric_streams_count(t), 1); /* unchanged */
    json_decref(bad);
    json_decref(j);
    json_decref(r);
    sc_metric_streams_destroy(s);
    sc_metric_streams_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metric_stream_created_running_update_keeps_state),
        cmocka_unit_test(test_metric_stream_bad_input_changes_nothing),
        cmocka_unit_test(test_metric_stream_start_stop_all_or_nothing),
        cmocka_unit_test(test_metric_stream_selects_include_exclude),
        cmocka_unit_test(test_metric_stream_save_load_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
