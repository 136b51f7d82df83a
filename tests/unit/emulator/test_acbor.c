/* tests/unit/emulator/test_acbor.c: the CBOR decoder/encoder (emulator/acbor.c): RFC 8949
 * appendix A vectors, malformed and hostile inputs, and model-driven replies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "emulator/acbor.h"

struct dcase {
    const char *hex;
    const char *want; /* compact JSON, sorted keys; NULL: malformed */
};

/* Valid items from RFC 8949 appendix A, plus malformed ones. */
static const struct dcase dcases[] = {
    { "00", "0" },
    { "17", "23" },
    { "1818", "24" },
    { "1903e8", "1000" },
    { "1b000000e8d4a51000", "1000000000000" },
    { "20", "-1" },
    { "3903e7", "-1000" },
    { "f93c00", "1.0" },
    { "f97bff", "65504.0" },
    { "fa47c35000", "100000.0" },
    { "fb3ff199999999999a", "1.1000000000000001" },
    { "f97c00", "\"Infinity\"" },
    { "f97e00", "\"NaN\"" },
    { "f4", "false" },
    { "f5", "true" },
    { "f6", "null" },
    { "6161", "\"a\"" },
    { "62c3bc", "\"\\u00FC\"" },
    { "7f657374726561646d696e67ff", "\"streaming\"" },
    { "83010203", "[1,2,3]" },
    { "9f018202039f0405ffff", "[1,[2,3],[4,5]]" },
    { "a201020304", NULL }, /* integer map keys are not ours */
    { "a26161016162820203", "{\"a\":1,\"b\":[2,3]}" },
    { "bf61610161629f0203ffff", "{\"a\":1,\"b\":[2,3]}" },
    { "c11a514b67b0", "1363896240" }, /* tag 1 keeps its number */
    { "", NULL },
    { "18", NULL },                 /* truncated argument */
    { "62c3", NULL },               /* truncated string */
    { "7affffffff", NULL },         /* length far past the input */
    { "9bffffffffffffffff", NULL }, /* array count far past the input */
    { "62c328", NULL },             /* invalid UTF-8 */
    { "1c", NULL },                 /* reserved additional information */
    { "7f61610102ff", NULL },       /* bad chunk in indefinite string */
    { "0001", NULL },               /* trailing bytes */
    { "9f01", NULL },               /* unterminated indefinite array */
    { "f8ff", NULL },               /* unsupported simple value */
    { "3bffffffffffffffff", NULL }, /* negative integer out of range */
};

static size_t unhex(const char *h, uint8_t *out)
{
    size_t n = strlen(h) / 2;

    for (size_t i = 0; i < n; i++) {
        unsigned v;

        sscanf(h + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
    return n;
}

static void test_acbor_decode_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(dcases) / sizeof(dcases[0]); i++) {
        uint8_t buf[64];
        size_t n = unhex(dcases[i].hex, buf);
        struct awserr err = { 0 };
        json_t *v = NULL;
        int rc = acbor_decode(buf, n, &v, &err);

        if (!dcases[i].want) {
            if (rc == 0)
                fail_msg("case %s: decoded, want an error", dcases[i].hex);
            assert_int_equal(err.http, 400);
            assert_string_equal(err.code, "SerializationException");
        } else {
            char *got;

            if (rc != 0)
                fail_msg("case %s: %s", dcases[i].hex, err.message);
            got = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY |
                                    JSON_ENSURE_ASCII | JSON_REAL_PRECISION(17));
            if (strcmp(got, dcases[i].want) != 0)
                fail_msg("case %s: got %s want %s", dcases[i].hex, got, dcases[i].want);
            free(got);
        }
        json_decref(v);
    }
}

/* a map key given twice is refused, as the JSON protocol refuses it (issue 19 finding 13:
 * CBOR kept the last, JSON answered SerializationException) */
static void test_acbor_duplicate_map_key_rejected(void **state)
{
    uint8_t buf[32];
    struct awserr err = { 0 };
    json_t *v = NULL;

    (void)state;
    /* {"a": 1, "a": 2}, definite and indefinite */
    assert_int_equal(acbor_decode(buf, unhex("a2616101616102", buf), &v, &err), -1);
    assert_string_equal(err.code, "SerializationException");
    assert_non_null(strstr(err.message, "duplicate map key"));
    assert_int_equal(acbor_decode(buf, unhex("bf616101616102ff", buf), &v, &err), -1);
    /* {"a": 1, "b": 2} is fine */
    assert_int_equal(acbor_decode(buf, unhex("a2616101616202", buf), &v, &err), 0);
    json_decref(v);
}

static void test_acbor_deep_nesting_rejected(void **state)
{
    size_t n = 100000;
    uint8_t *buf = malloc(n);
    struct awserr err = { 0 };
    json_t *v = NULL;

    (void)state;
    memset(buf, 0x81, n); /* [[[[... */
    assert_int_equal(acbor_decode(buf, n, &v, &err), -1);
    assert_non_null(strstr(err.message, "nested too deeply"));
    memset(buf, 0xc1, n); /* tag(tag(tag(... */
    assert_int_equal(acbor_decode(buf, n, &v, &err), -1);
    free(buf);
}

static void test_acbor_roundtrip_json(void **state)
{
    json_t *in = json_loads("{\"a\":[1,-2,3.5,\"x\",true,false,null],\"b\":{\"c\":\"\\u00e9\"},"
                            "\"big\":4294967296,\"neg\":-4294967297}",
                            0, NULL);
    struct cm_buf b;
    json_t *out = NULL;
    struct awserr err = { 0 };

    (void)state;
    cm_buf_init(&b, 0);
    acbor_put_json(&b, in);
    assert_int_equal(acbor_decode((const uint8_t *)b.data, b.len, &out, &err), 0);
    assert_true(json_equal(in, out));
    json_decref(in);
    json_decref(out);
    cm_buf_cleanup(&b);
}

static void test_acbor_request_and_reply_use_the_model(void **state)
{
    const struct model_op *op = model_op_find(&model_cloudwatch, "PutMetricData");
    const struct model_op *gop = model_op_find(&model_cloudwatch, "GetMetricStatistics");
    struct cm_buf b;
    json_t *in = NULL, *reply, *back = NULL;
    struct awserr err = { 0 };
    char *s;

    (void)state;
    /* {"Namespace":"App","MetricData":[{"MetricName":"m","Timestamp":1(1767225600)}]} */
    cm_buf_init(&b, 0);
    acbor_put_head(&b, 5, 2);
    acbor_put_text(&b, "Namespace", 9);
    acbor_put_text(&b, "App", 3);
    acbor_put_text(&b, "MetricData", 10);
    acbor_put_head(&b, 4, 1);
    acbor_put_head(&b, 5, 2);
    acbor_put_text(&b, "MetricName", 10);
    acbor_put_text(&b, "m", 1);
    acbor_put_text(&b, "Timestamp", 9);
    acbor_put_head(&b, 6, 1);
    acbor_put_double(&b, 1767225600.5);
    assert_int_equal(
        acbor_parse_request(&model_cloudwatch, op, (const uint8_t *)b.data, b.len, &in, &err), 0);
    s = json_dumps(in, JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(s, "{\"MetricData\":[{\"MetricName\":\"m\",\"Timestamp\":1767225600500}],"
                           "\"Namespace\":\"App\"}");
    free(s);
    json_decref(in);
    /* a string where a list belongs is a validation error */
    cm_buf_reset(&b);
    acbor_put_head(&b, 5, 2);
    acbor_put_text(&b, "Namespace", 9);
    acbor_put_text(&b, "App", 3);
    acbor_put_text(&b, "MetricData", 10);
    acbor_put_text(&b, "oops", 4);
    assert_int_equal(
        acbor_parse_request(&model_cloudwatch, op, (const uint8_t *)b.data, b.len, &in, &err), -1);
    assert_string_equal(err.code, "ValidationError");
    /* reply: timestamps go out as tag 1 */
    reply = json_loads("{\"Label\":\"m\",\"Datapoints\":[{\"Timestamp\":1767225600000,"
                       "\"Average\":2.5,\"Unit\":\"Percent\"}]}",
                       0, NULL);
    cm_buf_reset(&b);
    acbor_write_reply(&b, &model_cloudwatch, gop, reply);
    assert_non_null(memmem(b.data, b.len, "\xc1\x1a\x69\x55\xb9\x00", 6)); /* 1(1767225600) */
    assert_int_equal(acbor_decode((const uint8_t *)b.data, b.len, &back, &err), 0);
    assert_int_equal(json_integer_value(json_object_get(
                         json_array_get(json_object_get(back, "Datapoints"), 0), "Timestamp")),
                     1767225600);
    json_decref(back);
    json_decref(reply);
    cm_buf_cleanup(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_acbor_decode_table),
        cmocka_unit_test(test_acbor_duplicate_map_key_rejected),
        cmocka_unit_test(test_acbor_deep_nesting_rejected),
        cmocka_unit_test(test_acbor_roundtrip_json),
        cmocka_unit_test(test_acbor_request_and_reply_use_the_model),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
