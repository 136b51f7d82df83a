/* tests/unit/scaler/test_json.c: scaler/json.h, an object's keys in name order (the order
 * DescribeInsightRules and ListMetricStreams list their records in). */
#include "scaler/json.h"

#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void test_json_keys_sorted_in_byte_order(void **state)
{
    json_t *o = json_pack("{s:i,s:i,s:i,s:i,s:i}", "b", 1, "a-2", 2, "B", 3, "a", 4, "a-10", 5);
    size_t n = 99;
    const char **k;

    (void)state;
    assert_non_null(o);
    k = sc_json_keys_sorted(o, &n);
    assert_non_null(k);
    assert_int_equal(n, 5);
    /* strcmp's order: upper case before lower, "a-10" before "a-2", a prefix first */
    assert_string_equal(k[0], "B");
    assert_string_equal(k[1], "a");
    assert_string_equal(k[2], "a-10");
    assert_string_equal(k[3], "a-2");
    assert_string_equal(k[4], "b");
    assert_null(k[5]);
    /* borrowed from the object: the same storage json_object_get's key holds */
    assert_int_equal(json_integer_value(json_object_get(o, k[4])), 1);
    free(k);
    json_decref(o);
}

static void test_json_keys_sorted_empty_and_not_object(void **state)
{
    json_t *o = json_object(), *a = json_array();
    size_t n = 99;
    const char **k;

    (void)state;
    k = sc_json_keys_sorted(o, &n);
    assert_non_null(k);
    assert_int_equal(n, 0);
    assert_null(k[0]);
    free(k);
    n = 99;
    k = sc_json_keys_sorted(a, &n);
    assert_non_null(k);
    assert_int_equal(n, 0);
    assert_null(k[0]);
    free(k);
    n = 99;
    k = sc_json_keys_sorted(NULL, &n);
    assert_non_null(k);
    assert_int_equal(n, 0);
    free(k);
    json_decref(o);
    json_decref(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_keys_sorted_in_byte_order),
        cmocka_unit_test(test_json_keys_sorted_empty_and_not_object),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
