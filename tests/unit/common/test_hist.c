/* tests/unit/common/test_hist.c: common/hist.c */
#include "common/hist.h"

#include <stdint.h>
#include <stdlib.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void test_hist_three_significant_digits(void **state)
{
    struct cm_hist h;

    (void)state;
    assert_int_equal(cm_hist_init(&h, INT64_C(3600000000), 3), 0);
    /* Every value up to 2047 has its own slot; above, slots are within 0.1 %. */
    for (int64_t v = 1; v < 2048; v++)
        assert_int_equal(cm_hist_value_at(&h, cm_hist_index_of(&h, v)), v);
    for (int64_t v = 2048; v < INT64_C(3600000000); v = v * 3 / 2 + 7) {
        int64_t eq = cm_hist_value_at(&h, cm_hist_index_of(&h, v));
        assert_true(eq >= v);
        assert_true((double)(eq - v) <= (double)v / 1000.0);
    }
    cm_hist_cleanup(&h);
}

static void test_hist_percentiles_of_uniform_values(void **state)
{
    struct cm_hist h;

    (void)state;
    cm_hist_init(&h, 1000000, 3);
    for (int v = 1; v <= 10000; v++)
        cm_hist_record(&h, v);
    assert_int_equal(h.total, 10000);
    assert_int_equal(h.min, 1);
    assert_int_equal(h.max, 10000);
    assert_true(llabs(cm_hist_percentile(&h, 50) - 5000) <= 5);
    assert_true(llabs(cm_hist_percentile(&h, 99) - 9900) <= 10);
    assert_int_equal(cm_hist_percentile(&h, 100), 10000);
    assert_true(cm_hist_mean(&h) > 5000.4 && cm_hist_mean(&h) < 5000.6);
    cm_hist_cleanup(&h);
}

static void test_hist_merge_is_exact(void **state)
{
    struct cm_hist a, b, all;

    (void)state;
    cm_hist_init(&a, 1000000, 3);
    cm_hist_init(&b, 1000000, 3);
    cm_hist_init(&all, 1000000, 3);
    for (int v = 1; v < 50000; v += 7) {
        cm_hist_record(v % 2 ? &a : &b, v);
        cm_hist_record(&all, v);
    }
    assert_int_equal(cm_hist_merge(&a, &b), 0);
    assert_int_equal(a.total, all.total);
    for (int i = 0; i < a.counts_len; i++)
        assert_int_equal(a.counts[i], all.counts[i]);
    for (double p = 0; p <= 100; p += 12.5)
        assert_int_equal(cm_hist_percentile(&a, p), cm_hist_percentile(&all, p));
    cm_hist_cleanup(&a);
    cm_hist_cleanup(&b);
    cm_hist_cleanup(&all);
}

static void test_hist_merge_refuses_other_layouts(void **state)
{
    struct cm_hist a, b;

    (void)state;
    cm_hist_init(&a, 1000000, 3);
    cm_hist_init(&b, 1000000, 2);
    assert_int_equal(cm_hist_merge(&a, &b), -1);
    cm_hist_cleanup(&a);
    cm_hist_cleanup(&b);
}

static void test_hist_clamps_and_resets(void **state)
{
    struct cm_hist h;

    (void)state;
    cm_hist_init(&h, 1000, 2);
    cm_hist_record(&h, 5000);
    cm_hist_record(&h, -3);
    assert_int_equal(h.clamped, 1);
    assert_int_equal(h.max, 1000);
    assert_int_equal(h.min, 0);
    cm_hist_reset(&h);
    assert_int_equal(h.total, 0);
    assert_int_equal(cm_hist_percentile(&h, 99), 0);
    for (int i = 0; i < h.counts_len; i++)
        assert_int_equal(h.counts[i], 0);
    cm_hist_cleanup(&h);
}

static void test_hist_rejects_bad_layouts(void **state)
{
    struct cm_hist h;

    (void)state;
    assert_int_equal(cm_hist_init(&h, 1, 3), -1);
    assert_int_equal(cm_hist_init(&h, 1000, 0), -1);
    assert_int_equal(cm_hist_init(&h, 1000, 5), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hist_three_significant_digits),
        cmocka_unit_test(test_hist_percentiles_of_uniform_values),
        cmocka_unit_test(test_hist_merge_is_exact),
        cmocka_unit_test(test_hist_merge_refuses_other_layouts),
        cmocka_unit_test(test_hist_clamps_and_resets),
        cmocka_unit_test(test_hist_rejects_bad_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
