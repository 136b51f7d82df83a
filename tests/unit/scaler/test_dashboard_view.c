/* tests/unit/scaler/test_dashboard_view.c: scaler/dashboard_view.c (a dashboard's
 * periodOverride and variables applied to a widget's properties before drawing) */
#include "scaler/dashboard_view.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define NOW 1767225600000LL

static void test_dashboard_auto_period_at_most_1440_points(void **state)
{
    (void)state;
    assert_int_equal(sc_dashboard_auto_period(3 * 3600 * 1000LL), 60);
    assert_int_equal(sc_dashboard_auto_period(86400 * 1000LL), 60); /* 1440 points */
    assert_int_equal(sc_dashboard_auto_period(86400 * 1000LL + 60000), 300);
    assert_int_equal(sc_dashboard_auto_period(7 * 86400 * 1000LL), 900);
    assert_int_equal(sc_dashboard_auto_period(30 * 86400 * 1000LL), 3600);
    assert_int_equal(sc_dashboard_auto_period(455 * 86400 * 1000LL), 86400);
    assert_int_equal(sc_dashboard_auto_period(0), 60);
}

static char *present(const char *body, const char *props)
{
    json_t *b = json_loads(body, 0, NULL), *p = json_loads(props, 0, NULL);
    char *s;

    assert_non_null(b);
    assert_non_null(p);
    sc_dashboard_present(b, p, NOW);
    s = json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(b);
    json_decref(p);
    return s;
}

/* auto (and absent): the graph's period follows its range, the metrics' own periods go;
 * inherit: every period as given. */
static void test_dashboard_period_override_auto_and_inherit(void **state)
{
    char *s;

    (void)state;
    s = present("{\"widgets\":[],\"start\":\"-P7D\"}",
                "{\"period\":300,\"metrics\":[[\"A\",\"B\",{\"period\":3600}]]}");
    assert_string_equal(s, "{\"metrics\":[[\"A\",\"B\",{}]],\"period\":900}");
    free(s);
    s = present("{\"widgets\":[],\"periodOverride\":\"auto\"}",
                "{\"period\":300,\"start\":\"-PT1H\",\"metrics\":[[\"A\",\"B\"]]}");
    assert_string_equal(s, "{\"metrics\":[[\"A\",\"B\"]],\"period\":60,\"start\":\"-PT1H\"}");
    free(s);
    s = present("{\"widgets\":[],\"periodOverride\":\"inherit\",\"start\":\"-P7D\"}",
                "{\"period\":300,\"metrics\":[[\"A\",\"B\",{\"period\":3600}]]}");
    assert_string_equal(s, "{\"metrics\":[[\"A\",\"B\",{\"period\":3600}]],\"period\":300}");
    free(s);
}

/* A property variable on a dimension replaces that dimension's value in every metrics
 * entry; on region it sets the widget's region; its value is the default, else the first
 * listed value. */
static void test_dashboard_property_variables(void **state)
{
    char *s;

    (void)state;
    s = present("{\"periodOverride\":\"inherit\",\"variables\":[{\"type\":\"property\","
                "\"property\":\"InstanceId\",\"inputType\":\"select\",\"id\":\"i\","
                "\"defaultValue\":\"i-2\",\"values\":[{\"value\":\"i-1\"},{\"value\":\"i-2\"}]},"
                "{\"type\":\"property\",\"property\":\"region\",\"inputType\":\"input\","
                "\"id\":\"r\",\"values\":[{\"value\":\"eu-west-1\"}]}]}",
                "{\"region\":\"us-east-1\",\"metrics\":[[\"AWS/EC2\",\"CPUUtilization\","
                "\"InstanceId\",\"i-1\"],[\"...\",\"i-9\",{\"label\":\"InstanceId\"}]]}");
    assert_string_equal(s, "{\"metrics\":[[\"AWS/EC2\",\"CPUUtilization\",\"InstanceId\","
                           "\"i-2\"],[\"...\",\"i-9\",{\"label\":\"InstanceId\"}]],"
                           "\"region\":\"eu-west-1\"}");
    free(s);
}

/* A pattern variable replaces every match of its pattern in every string of the widget;
 * one without a value, or with a pattern that does not compile, changes nothing. */
static void test_dashboard_pattern_variables(void **state)
{
    char *s;

    (void)state;
    s = present("{\"periodOverride\":\"inherit\",\"variables\":[{\"type\":\"pattern\","
                "\"pattern\":\"web-[0-9]+\",\"inputType\":\"input\",\"id\":\"fn\","
                "\"defaultValue\":\"api-7\"},{\"type\":\"pattern\",\"pattern\":\"(\","
                "\"defaultValue\":\"x\"},{\"type\":\"pattern\",\"pattern\":\"App\"}]}",
                "{\"title\":\"web-1 and web-22\",\"metrics\":[[\"App\",\"Lat\",\"Fn\","
                "\"web-1\"]]}");
    assert_string_equal(s, "{\"metrics\":[[\"App\",\"Lat\",\"Fn\",\"api-7\"]],"
                           "\"title\":\"api-7 and api-7\"}");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dashboard_auto_period_at_most_1440_points),
        cmocka_unit_test(test_dashboard_period_override_auto_and_inherit),
        cmocka_unit_test(test_dashboard_property_variables),
        cmocka_unit_test(test_dashboard_pattern_variables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
