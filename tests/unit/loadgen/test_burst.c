/* tests/unit/loadgen/test_burst.c: the persistent burst engine's gap clock (loadgen/burst.c,
 * struct burst_clock): when the next burst is released, and the figures a burst adds. The
 * engine itself is tested against a server in test_player.c. */
#include "loadgen/burst.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

static void test_burst_clock_first_release_is_the_gap_after_the_last_reply(void **state)
{
    struct burst_clock k;

    (void)state;
    burst_clock_init(&k, 10000);
    /* no start measured yet: exactly the gap */
    assert_int_equal(burst_clock_next(&k, 1000000), 1010000);
    burst_clock_init(&k, -5);
    assert_int_equal(k.gap_us, 0);
}

static void test_burst_clock_counts_gaps_from_the_previous_last_reply(void **state)
{
    struct burst_clock k;
    struct player_bursts b;

    (void)state;
    memset(&b, 0, sizeof(b));
    burst_clock_init(&k, 10000);
    /* burst 1: planned at 0, first write at 2 ms, last reply at 30 ms: no gap yet */
    burst_clock_record(&k, &b, 0, 2000, 30000);
    assert_int_equal(b.bursts, 1);
    assert_int_equal(b.gaps, 0);
    assert_float_equal(b.start_sum_ms, 2.0, 1e-9);
    assert_float_equal(b.busy_sum_ms, 28.0, 1e-9);
    /* the first start is the estimate: the next release 2 ms before the gap's end */
    assert_int_equal(burst_clock_next(&k, 30000), 38000);
    /* burst 2: planned at 38 ms, written at 41 ms (gap 11 ms: 1 ms beyond the asked 10) */
    burst_clock_record(&k, &b, 38000, 41000, 60000);
    assert_int_equal(b.bursts, 2);
    assert_int_equal(b.gaps, 1);
    assert_float_equal(b.gap_sum_ms, 11.0, 1e-9);
    assert_float_equal(b.excess_sum_ms, 1.0, 1e-9);
    assert_float_equal(b.start_sum_ms, 5.0, 1e-9);
    assert_float_equal(b.start_max_ms, 3.0, 1e-9);
    /* EWMA 1/4: 2 + (3 - 2) / 4 = 2.25 ms */
    assert_int_equal(burst_clock_next(&k, 60000), 60000 + 10000 - 2250);
    /* burst 3: written early (gap 8 ms): no excess, the gap counted as measured */
    burst_clock_record(&k, &b, 67750, 68000, 90000);
    assert_int_equal(b.gaps, 2);
    assert_float_equal(b.gap_sum_ms, 19.0, 1e-9);
    assert_float_equal(b.excess_sum_ms, 1.0, 1e-9);
}

static void test_burst_clock_burst_with_no_write_counts_but_measures_nothing(void **state)
{
    struct burst_clock k;
    struct player_bursts b;

    (void)state;
    memset(&b, 0, sizeof(b));
    burst_clock_init(&k, 10000);
    burst_clock_record(&k, &b, 0, 1000, 5000);
    /* every ticket failed before a write (a dead listener): a burst, no gap, no start */
    burst_clock_record(&k, &b, 14000, 0, 20000);
    assert_int_equal(b.bursts, 2);
    assert_int_equal(b.gaps, 0);
    assert_float_equal(b.start_sum_ms, 1.0, 1e-9);
    /* the next gap counts from that burst's end */
    burst_clock_record(&k, &b, 29000, 31000, 40000);
    assert_int_equal(b.gaps, 1);
    assert_float_equal(b.gap_sum_ms, 11.0, 1e-9);
}

static void test_burst_clock_write_before_its_plan_is_a_zero_start(void **state)
{
    struct burst_clock k;
    struct player_bursts b;

    (void)state;
    memset(&b, 0, sizeof(b));
    burst_clock_init(&k, 10000);
    burst_clock_record(&k, &b, 5000, 4000, 9000);
    assert_float_equal(b.start_sum_ms, 0.0, 1e-9);
    assert_int_equal(burst_clock_next(&k, 9000), 19000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_clock_first_release_is_the_gap_after_the_last_reply),
        cmocka_unit_test(test_burst_clock_counts_gaps_from_the_previous_last_reply),
        cmocka_unit_test(test_burst_clock_burst_with_no_write_counts_but_measures_nothing),
        cmocka_unit_test(test_burst_clock_write_before_its_plan_is_a_zero_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
