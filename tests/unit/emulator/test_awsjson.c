/* tests/unit/emulator/test_awsjson.c: CloudWatch's JSON 1.0 protocol (emulator/awsjson.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "emulator/awsjson.h"

struct jcase {
    const char *op;
    const char *body;
    const char *want; /* compact sorted IR, or NULL */
    const char *code;
    const char *msg;
};

static const struct jcase cases[] = {
    { "DescribeAlarms", "", "{}", NULL, NULL },
    { "DescribeAlarms", "{\"AlarmNames\":[\"a\"],\"MaxRecords\":10,\"Unknown\":1}",
      "{\"AlarmNames\":[\"a\"],\"MaxRecords\":10}", NULL, NULL },
    { "PutMetricData",
      "{\"Namespace\":\"App\",\"MetricData\":[{\"MetricName\":\"m\",\"Timestamp\":1767225600,"
      "\"Value\":2}]}",
      "{\"MetricData\":[{\"MetricName\":\"m\",\"Timestamp\":1767225600000,\"Value\":2.0}],"
      "\"Namespace\":\"App\"}",
      NULL, NULL },
    { "DescribeAlarms", "{\"MaxRecords\":\"10\"}", NULL, "ValidationError", "at 'maxRecords'" },
    { "DescribeAlarms", "{\"MaxRecords\":101}", NULL, "ValidationError",
      "Member must have value less than or equal to 100" },
    { "DescribeAlarms", "{\"MaxRecords\":1.5}", NULL, "ValidationError", "maxRecords" },
    { "DescribeAlarms", "{\"AlarmNames\":\"a\"}", NULL, "ValidationError",
      "Member must be a list" },
    { "DescribeAlarms", "[1]", NULL, "SerializationException", "" },
    { "DescribeAlarms", "{\"a\":", NULL, "SerializationException", "" },
    { "DescribeAlarms", "{\"a\":1,\"a\":2}", NULL, "SerializationException", "" },
    { "DescribeAlarms", "{\"AlarmNames\":[\"\\udc00\"]}", NULL, "SerializationException", "" },
    { "PutMetricData", "{\"MetricData\":[]}", NULL, "MissingParameter",
      "The parameter Namespace is required." },
};

static void test_awsjson_request_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct jcase *c = &cases[i];
        struct awserr err = { 0 };
        json_t *out = NULL;
        int rc = awsjson_parse_request(&model_cloudwatch, model_op_find(&model_cloudwatch, c->op),
                                       c->body, strlen(c->body), &out, &err);

        if (c->want) {
            char *got;

            if (rc)
                fail_msg("case %zu: %s %s", i, err.code, err.message);
            got = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
            if (strcmp(got, c->want))
                fail_msg("case %zu: got %s want %s", i, got, c->want);
            free(got);
        } else {
            if (!rc)
                fail_msg("case %zu: no error", i);
            assert_string_equal(err.code, c->code);
            if (!strstr(err.message, c->msg))
                fail_msg("case %zu: '%s' lacks '%s'", i, err.message, c->msg);
        }
        json_decref(out);
    }
}

static void test_awsjson_reply_timestamps_in_seconds(void **state)
{
    struct cm_buf b;
    json_t *ir = json_loads("{\"MetricAlarms\":[{\"AlarmName\":\"a\",\"StateUpdatedTimestamp\":"
                            "1767225600250,\"Threshold\":80.0}],\"CompositeAlarms\":[]}",
                            0, NULL);

    (void)state;
    cm_buf_init(&b, 0);
    awsjson_write_reply(&b, &model_cloudwatch, model_op_find(&model_cloudwatch, "DescribeAlarms"),
                        ir);
    assert_non_null(strstr(b.data, "\"StateUpdatedTimestamp\":1767225600.25"));
    assert_non_null(strstr(b.data, "\"CompositeAlarms\":[]"));
    cm_buf_reset(&b);
    awsjson_write_reply(&b, &model_cloudwatch, model_op_find(&model_cloudwatch, "PutMetricData"),
                        NULL);
    assert_string_equal(b.data, "{}");
    json_decref(ir);
    cm_buf_cleanup(&b);
}

static void test_awsjson_error_type(void **state)
{
    struct awserr e = { 0 };
    char t[128];
    struct cm_buf b;

    (void)state;
    awserr_set(&e, 400, "InvalidParameterValue", "bad");
    awsjson_error_type(&model_cloudwatch, &e, t, sizeof(t));
    assert_string_equal(t, "com.amazonaws.cloudwatch#InvalidParameterValueException");
    awserr_set(&e, 400, "ValidationError", "bad");
    awsjson_error_type(&model_cloudwatch, &e, t, sizeof(t));
    assert_string_equal(t, "ValidationError");
    cm_buf_init(&b, 0);
    awsjson_write_error(&b, &model_cloudwatch, &e);
    assert_string_equal(b.data, "{\"__type\":\"ValidationError\",\"message\":\"bad\"}");
    cm_buf_cleanup(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_awsjson_request_table),
        cmocka_unit_test(test_awsjson_reply_timestamps_in_seconds),
        cmocka_unit_test(test_awsjson_error_type),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
