/* tests/unit/scaler/test_stall.c: host stalls on a time-scaled run (scaler/stall.h), one
 * test per rule: the threshold (10 % of an emulated minute, 5 real ms floor), the
 * conversion to emulated time, merging overlapping intervals (the time lost is their
 * union), grouping windows within one emulated minute, the blame rule, the emulator's
 * ring, and the line and --json the outputs share. */
#include "scaler/stall.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void test_stall_threshold_is_a_tenth_of_an_emulated_minute(void **state)
{
    (void)state;
    assert_true(fabs(sc_stall_threshold_ms(600) - 10.0) < 1e-9);
    assert_true(fabs(sc_stall_threshold_ms(60) - 100.0) < 1e-9);
    assert_true(fabs(sc_stall_threshold_ms(1) - 6000.0) < 1e-9);
}

static void test_stall_threshold_has_a_floor_of_5_real_ms(void **state)
{
    (void)state;
    assert_true(fabs(sc_stall_threshold_ms(6000) - 5.0) < 1e-9); /* 1 ms by the share */
    assert_true(fabs(sc_stall_threshold_ms(1200) - 5.0) < 1e-9);
    assert_true(fabs(sc_stall_threshold_ms(0) - 6000.0) < 1e-9); /* no scale: real time */
}

static void test_stall_converts_real_ms_to_emulated_by_the_scale(void **state)
{
    struct sc_stalls s;

    (void)state;
    assert_true(fabs(sc_stall_emulated_ms(140, 600) - 84000.0) < 1e-9);
    sc_stalls_init(&s, 600);
    /* 140 real ms late at emulated 05:00: off the CPU over [04:36, 05:00] */
    assert_int_equal(sc_stalls_add(&s, SC_STALL_RUNNER, 300000, 140), 1);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.iv[0].from_ms, 216000);
    assert_int_equal(s.iv[0].to_ms, 300000);
    assert_int_equal(sc_stalls_lost_ms(&s), 84000);
}

static void test_stall_under_the_threshold_is_not_a_stall(void **state)
{
    struct sc_stalls s;

    (void)state;
    sc_stalls_init(&s, 600);
    assert_int_equal(sc_stalls_add(&s, SC_STALL_LOAD, 60000, 9.99), 0);
    assert_int_equal(sc_stalls_add(&s, SC_STALL_LOAD, 60000, NAN), 0);
    assert_int_equal(s.count, 0);
    assert_int_equal(s.n, 0);
    assert_int_equal(sc_stalls_add(&s, SC_STALL_LOAD, 60000, 10), 1);
    assert_int_equal(s.count, 1);
    assert_int_equal(s.by_source[SC_STALL_LOAD], 1);
}

static void test_stall_overlapping_intervals_count_once_in_time_lost(void **state)
{
    struct sc_stalls s;

    (void)state;
    sc_stalls_init(&s, 600);
    /* one host stall seen by the emulator and by loadgen: 300 and 280 real ms ending
     * 20 real ms apart */
    sc_stalls_add(&s, SC_STALL_EMULATOR, 600000, 300);
    sc_stalls_add(&s, SC_STALL_RUNNER, 612000, 280);
    assert_int_equal(s.count, 2);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.iv[0].from_ms, 420000);
    assert_int_equal(s.iv[0].to_ms, 612000);
    assert_int_equal(sc_stalls_lost_ms(&s), 192000);
    assert_true(fabs(s.longest_ms - 300) < 1e-9);
    /* out of order, inside: nothing grows; one joining two: they become one */
    sc_stalls_add(&s, SC_STALL_LOAD, 500000, 20);
    assert_int_equal(s.n, 1);
    sc_stalls_add(&s, SC_STALL_LOAD, 900000, 20);
    sc_stalls_add(&s, SC_STALL_LOAD, 700000, 20);
    assert_int_equal(s.n, 3);
    sc_stalls_add(&s, SC_STALL_LOAD, 890000, 500); /* [590, 890] s: all three */
    assert_int_equal(s.n, 1);
    assert_int_equal(s.iv[0].from_ms, 420000);
    assert_int_equal(s.iv[0].to_ms, 900000);
}

static void test_stall_windows_join_within_one_emulated_minute(void **state)
{
    struct sc_stalls s;
    struct sc_stall_window w[4];

    (void)state;
    sc_stalls_init(&s, 600);
    sc_stalls_add(&s, SC_STALL_RUNNER, 300000, 20); /* [288, 300] s */
    sc_stalls_add(&s, SC_STALL_RUNNER, 350000, 20); /* [338, 350]: 38 s after: joins */
    sc_stalls_add(&s, SC_STALL_RUNNER, 422000, 20); /* [410, 422]: 60 s after: apart */
    assert_int_equal(s.n, 3);
    assert_int_equal(sc_stalls_windows(&s, w, 4), 2);
    assert_int_equal(w[0].from_ms, 288000);
    assert_int_equal(w[0].to_ms, 350000);
    assert_int_equal(w[0].lost_ms, 24000);
    assert_int_equal(w[1].from_ms, 410000);
    assert_int_equal(w[1].lost_ms, 12000);
    /* more windows than asked for: the count says so */
    assert_int_equal(sc_stalls_windows(&s, w, 1), 2);
}

static void test_stall_full_intervals_join_the_nearest(void **state)
{
    struct sc_stalls s;
    int64_t lost;

    (void)state;
    sc_stalls_init(&s, 600);
    for (int i = 0; i < SC_STALL_MAX_INTERVALS; i++)
        sc_stalls_add(&s, SC_STALL_LOAD, (int64_t)(i + 1) * 100000, 10); /* 6 s each */
    assert_int_equal(s.n, SC_STALL_MAX_INTERVALS);
    lost = sc_stalls_lost_ms(&s);
    /* at 150 s: between the intervals ending at 100 s and 200 s, nearer the first */
    sc_stalls_add(&s, SC_STALL_LOAD, 150000, 10);
    assert_int_equal(s.n, SC_STALL_MAX_INTERVALS);
    assert_int_equal(s.iv[0].to_ms, 150000);
    assert_true(sc_stalls_lost_ms(&s) >= lost + 6000);
    assert_int_equal(s.count, SC_STALL_MAX_INTERVALS + 1);
}

static void test_stall_blame_by_time_lost_or_lead_up(void **state)
{
    struct sc_stalls s;

    (void)state;
    sc_stalls_init(&s, 600);
    assert_int_equal(sc_stalls_suspect(&s, 3600000), 0); /* no stall */
    sc_stalls_add(&s, SC_STALL_RUNNER, 600000, 20);      /* 12 s lost, ends at 10 min */
    assert_int_equal(sc_stalls_suspect(&s, 600000 + SC_STALL_BLAME_LEAD_MS), 1);
    assert_int_equal(sc_stalls_suspect(&s, 600001 + SC_STALL_BLAME_LEAD_MS), 0);
    assert_int_equal(sc_stalls_suspect(&s, 500000), 0); /* the failure came before it */
    /* a minute lost in all: any failure */
    sc_stalls_add(&s, SC_STALL_RUNNER, 7200000, 100);
    assert_int_equal(sc_stalls_lost_ms(&s), 72000);
    assert_int_equal(sc_stalls_suspect(&s, 500000), 1);
}

static void test_stall_emulator_ring_keeps_the_last_and_counts_all(void **state)
{
    struct sc_stall_ring g;

    (void)state;
    memset(&g, 0, sizeof(g));
    assert_int_equal(sc_stall_ring_note(&g, 600, 1000, 9), 0);
    for (int i = 0; i < SC_STALL_RING + 3; i++)
        assert_int_equal(sc_stall_ring_note(&g, 600, 1000 + i, 10 + i), 1);
    assert_int_equal(g.seq, SC_STALL_RING + 3);
    assert_int_equal(g.r[(SC_STALL_RING + 2) % SC_STALL_RING].at_ms, 1000 + SC_STALL_RING + 2);
    assert_true(fabs(g.longest_ms - (10 + SC_STALL_RING + 2)) < 1e-9);
}

static void test_stall_unplaced_are_counted_not_placed(void **state)
{
    struct sc_stalls s;
    char line[1024];

    (void)state;
    sc_stalls_init(&s, 600);
    sc_stalls_add(&s, SC_STALL_EMULATOR, 60000, 20);
    sc_stalls_add_unplaced(&s, SC_STALL_EMULATOR, 5);
    assert_int_equal(s.count, 6);
    assert_int_equal(s.by_source[SC_STALL_EMULATOR], 6);
    assert_int_equal(s.n, 1);
    assert_int_equal(sc_stalls_lost_ms(&s), 12000);
    sc_stalls_line(&s, line, sizeof(line));
    assert_non_null(strstr(line, "(5 more not placed in time)"));
}

static void test_stall_line_and_json_say_the_same_figures(void **state)
{
    struct sc_stalls s;
    char line[1024], js[4096];

    (void)state;
    sc_stalls_init(&s, 600);
    s.measured[SC_STALL_RUNNER] = s.measured[SC_STALL_EMULATOR] = 1;
    sc_stalls_line(&s, line, sizeof(line));
    assert_non_null(strstr(line, "host: no stall"));
    assert_non_null(strstr(line, "10.0 real ms late = 6 emulated s at x600"));
    assert_non_null(strstr(line, "runner, emulator"));
    sc_stalls_add(&s, SC_STALL_EMULATOR, 17940000, 140); /* 04:59, 84 s back: 04:57:36 */
    sc_stalls_add(&s, SC_STALL_RUNNER, 18000000, 12);
    sc_stalls_line(&s, line, sizeof(line));
    assert_non_null(strstr(line, "host: 2 stalls"));
    assert_non_null(strstr(line, "longest 140 real ms = 84 emulated s, 91 emulated s lost"));
    assert_non_null(strstr(line, "in emulated minutes 04:57-05:00"));
    assert_int_equal(sc_stalls_json(&s, 1, js, sizeof(js)) > 0, 1);
    assert_non_null(strstr(js, "\"count\":2,"));
    assert_non_null(strstr(js, "\"longest_real_ms\":140.0000,\"longest_emulated_s\":84.0000,"
                               "\"lost_emulated_s\":91.200,"));
    assert_non_null(strstr(js, "\"sources\":{\"runner\":1,\"emulator\":1}"));
    assert_non_null(strstr(js, "\"windows\":[{\"from_s\":17856.000,\"to_s\":18000.000,"));
    assert_non_null(strstr(js, "\"failures_marked\":1}"));
    assert_int_equal(sc_stalls_json(&s, 1, js, 40), -1);
    sc_stalls_note(&s, line, sizeof(line));
    assert_non_null(strstr(line, "the host stalled for 91 emulated s"));
    assert_non_null(strstr(line, "rerun at a lower --time-scale or on a quieter machine"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stall_threshold_is_a_tenth_of_an_emulated_minute),
        cmocka_unit_test(test_stall_threshold_has_a_floor_of_5_real_ms),
        cmocka_unit_test(test_stall_converts_real_ms_to_emulated_by_the_scale),
        cmocka_unit_test(test_stall_under_the_threshold_is_not_a_stall),
        cmocka_unit_test(test_stall_overlapping_intervals_count_once_in_time_lost),
        cmocka_unit_test(test_stall_windows_join_within_one_emulated_minute),
        cmocka_unit_test(test_stall_full_intervals_join_the_nearest),
        cmocka_unit_test(test_stall_blame_by_time_lost_or_lead_up),
        cmocka_unit_test(test_stall_emulator_ring_keeps_the_last_and_counts_all),
        cmocka_unit_test(test_stall_unplaced_are_counted_not_placed),
        cmocka_unit_test(test_stall_line_and_json_say_the_same_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
