/* tests/unit/scaler/test_insight.c: scaler/insight.c (the rule definition checks, states,
 * batch failures, the report of a rule without log data, save/load) */
#include "scaler/insight.h"

#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define RULE                                                                                       \
    "{\"Schema\":{\"Name\":\"CloudWatchLogRule\",\"Version\":1},\"LogGroupNames\":[\"g\"],"        \
    "\"LogFormat\":\"JSON\",\"Contribution\":{\"Keys\":[\"$.ip\",\"$.path\"]},"                    \
    "\"AggregateOn\":\"Count\"}"

static void test_insight_definition_checks(void **state)
{
    static const struct {
        const char *def;
        const char *msg; /* NULL: valid */
    } cases[] = {
        { RULE, NULL },
        { "[]", "RuleDefinition must be a valid JSON object." },
        { "{\"Schema\":{\"Name\":\"CloudWatchLogRule\",\"Version\":2}}",
          "The Schema must be {\"Name\": \"CloudWatchLogRule\", \"Version\": 1}." },
        { "{\"Schema\":{\"Name\":\"CloudWatchLogRule\",\"Version\":1},\"LogFormat\":\"JSON\"}",
          "Specify either LogGroupNames or LogGroupARNs, but not both." },
        { "{\"Schema\":{\"Name\":\"CloudWatchLogRule\",\"Version\":1},\"LogGroupNames\":[\"g\"],"
          "\"LogFormat\":\"JSON\",\"Contribution\":{\"Keys\":[\"a\",\"b\",\"c\",\"d\",\"e\"]},"
          "\"AggregateOn\":\"Count\"}",
          "Contribution.Keys must have 1 to 4 keys." },
        { "{\"Schema\":{\"Name\":\"CloudWatchLogRule\",\"Version\":1},\"LogGroupNames\":[\"g\"],"
          "\"LogFormat\":\"CLF\",\"Contribution\":{\"Keys\":[\"a\"]},\"AggregateOn\":\"Max\"}",
          "AggregateOn must be Count or Sum." },
        { "{\"Schema\":{\"Name\":\"CloudWatchLogRule\",\"Version\":1},\"LogGroupNames\":[\"g\"],"
          "\"LogFormat\":\"JSON\",\"Fields\":{},\"Contribution\":{\"Keys\":[\"a\"]},"
          "\"AggregateOn\":\"Count\"}",
          "Fields can only be used with the CLF log format." },
    };
    struct sc_error e;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        enum sc_status st = sc_insight_definition_check(cases[i].def, &e);
        if (!cases[i].msg) {
            assert_int_equal(st, SC_OK);
            continue;
        }
        assert_int_equal(st, SC_ERR_INVALID_PARAMETER_VALUE);
        assert_string_equal(e.message, cases[i].msg);
    }
}

static void test_insight_states_and_batch_failures(void **state)
{
    struct sc_insights *s = sc_insights_create();
    struct sc_error e;
    const char *names[] = { "r", "ghost" };
    json_t *req = json_pack("{s:s,s:s,s:s}", "RuleName", "r", "RuleDefinition", RULE, "RuleState",
                            "DISABLED");
    json_t *bad =
        json_pack("{s:s,s:s,s:s}", "RuleName", "r", "RuleDefinition", RULE, "RuleState", "PAUSED");
    json_t *d, *f;

    (void)state;
    assert_int_equal(sc_insights_put(s, req, &e), SC_OK);
    assert_int_equal(sc_insights_put(s, bad, &e), SC_ERR_INVALID_PARAMETER_VALUE);
    d = sc_insights_describe(s);
    assert_string_equal(json_string_value(json_object_get(json_array_get(d, 0), "State")),
                        "DISABLED");
    json_decref(d);
    f = sc_insights_batch(s, names, 2, SC_INSIGHT_ENABLE);
    assert_int_equal(json_array_size(f), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "FailureResource")),
                        "ghost");
    json_decref(f);
    d = sc_insights_describe(s);
    assert_string_equal(json_string_value(json_object_get(json_array_get(d, 0), "State")),
                        "ENABLED");
    json_decref(d);
    json_decref(sc_insights_batch(s, names, 1, SC_INSIGHT_DELETE));
    assert_int_equal(sc_insights_count(s), 0);
    json_decref(req);
    json_decref(bad);
    sc_insights_destroy(s);
}

static void test_insight_report_without_log_data(void **state)
{
    struct sc_insights *s = sc_insights_create();
    struct sc_error e;
    json_t *req = json_pack("{s:s,s:s}", "RuleName", "r", "RuleDefinition", RULE), *out;
    json_t *rep = json_pack("{s:s,s:I,s:I,s:i}", "RuleName", "r", "StartTime", (json_int_t)0,
                            "EndTime", (json_int_t)3600000, "Period", 60);
    json_t *missing = json_pack("{s:s,s:I,s:I,s:i}", "RuleName", "x", "StartTime", (json_int_t)0,
                                "EndTime", (json_int_t)3600000, "Period", 60);

    (void)state;
    assert_int_equal(sc_insights_put(s, req, &e), SC_OK);
    assert_int_equal(sc_insights_report(s, rep, &out, &e), SC_OK);
    assert_int_equal(json_array_size(json_object_get(out, "KeyLabels")), 2);
    assert_string_equal(json_string_value(json_object_get(out, "AggregationStatistic")), "count");
    assert_int_equal(json_array_size(json_object_get(out, "Contributors")), 0);
    assert_int_equal(json_array_size(json_object_get(out, "MetricDatapoints")), 0);
    json_decref(out);
    assert_int_equal(sc_insights_report(s, missing, &out, &e), SC_ERR_RESOURCE_NOT_FOUND_EXCEPTION);
    json_decref(req);
    json_decref(rep);
    json_decref(missing);
    sc_insights_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_insight_definition_checks),
        cmocka_unit_test(test_insight_states_and_batch_failures),
        cmocka_unit_test(test_insight_report_without_log_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
