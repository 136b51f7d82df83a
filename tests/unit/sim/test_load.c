/* tests/unit/sim/test_load.c: the phase value rule (scaler/sim/load.h) shared by the
 * simulator and the load player: shapes, clipping to the run, breaks. */
#include "scaler/sim/load.h"

#include <stdint.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define S 1000000LL /* µs per second */

static struct sim_phase phase(int closed, double value, int64_t at_ms, int64_t until_ms)
{
    struct sim_phase ph;

    memset(&ph, 0, sizeof(ph));
    ph.closed = closed;
    ph.value = value;
    ph.at_ms = at_ms;
    ph.until_ms = until_ms;
    return ph;
}

static void test_load_constant_is_zero_outside_the_phase(void **state)
{
    struct sim_phase ph = phase(0, 50, 10000, 20000);

    (void)state;
    assert_true(sim_phase_value_at(&ph, 3600000, 9 * S, S) == 0);
    assert_true(sim_phase_value_at(&ph, 3600000, 10 * S, S) == 50);
    assert_true(sim_phase_value_at(&ph, 3600000, 20 * S - 1, S) == 50);
    assert_true(sim_phase_value_at(&ph, 3600000, 20 * S, S) == 0);
    /* clipped to the run's duration */
    assert_int_equal(sim_phase_end_us(&ph, 15000), 15 * S);
    assert_true(sim_phase_value_at(&ph, 15000, 16 * S, S) == 0);
    assert_int_equal(sim_phase_next_break_us(&ph, 3600000, 0, S), 10 * S);
    assert_int_equal(sim_phase_next_break_us(&ph, 3600000, 12 * S, S), 20 * S);
    assert_int_equal(sim_phase_next_break_us(&ph, 3600000, 20 * S, S), INT64_MAX);
}

static void test_load_ramp_holds_on_the_grid(void **state)
{
    struct sim_phase ph = phase(0, 0, 0, 100000);

    (void)state;
    ph.shape = SIM_SHAPE_RAMP;
    ph.to = 100;
    /* cell [0, 10 s) holds the value at 5 s: 5 req/s */
    assert_true(sim_phase_value_at(&ph, 100000, 0, 10 * S) == 5);
    assert_true(sim_phase_value_at(&ph, 100000, 9 * S, 10 * S) == 5);
    assert_true(sim_phase_value_at(&ph, 100000, 10 * S, 10 * S) == 15);
    assert_int_equal(sim_phase_next_break_us(&ph, 100000, 3 * S, 10 * S), 10 * S);
    ph.closed = 1; /* clients: whole numbers */
    ph.to = 10;
    assert_true(sim_phase_value_at(&ph, 100000, 0, 10 * S) == 1); /* 0.5 rounds up */
}

static void test_load_step_spike_and_open_bursts(void **state)
{
    struct sim_phase ph = phase(0, 10, 60000, 600000);

    (void)state;
    ph.shape = SIM_SHAPE_STEP;
    ph.to = 40;
    ph.shape_at_ms = 30000; /* relative to the phase start */
    assert_true(sim_phase_value_at(&ph, 600000, 89 * S, S) == 10);
    assert_true(sim_phase_value_at(&ph, 600000, 90 * S, S) == 40);
    assert_int_equal(sim_phase_next_break_us(&ph, 600000, 61 * S, S), 90 * S);

    ph.shape = SIM_SHAPE_SPIKE;
    ph.shape_for_ms = 5000;
    assert_true(sim_phase_value_at(&ph, 600000, 92 * S, S) == 40);
    assert_true(sim_phase_value_at(&ph, 600000, 95 * S, S) == 10);
    assert_int_equal(sim_phase_next_break_us(&ph, 600000, 91 * S, S), 95 * S);

    ph.shape = SIM_SHAPE_BURSTS;
    ph.on_ms = 2000;
    ph.gap_ms = 3000;
    assert_true(sim_phase_value_at(&ph, 600000, 61 * S, S) == 10);
    assert_true(sim_phase_value_at(&ph, 600000, 63 * S, S) == 0);
    assert_true(sim_phase_value_at(&ph, 600000, 65 * S, S) == 10);
    assert_int_equal(sim_phase_next_break_us(&ph, 600000, 61 * S, S), 62 * S);
    assert_int_equal(sim_phase_next_break_us(&ph, 600000, 63 * S, S), 65 * S);
    ph.closed = 1; /* closed bursts: the clients, whatever the duty cycle */
    ph.burst_requests = 100;
    assert_true(sim_phase_value_at(&ph, 600000, 63 * S, S) == 10);
}

static void test_load_trace_rows_hold_until_the_next(void **state)
{
    struct sim_phase ph = phase(0, 0, 10000, 100000);
    int64_t t[] = { 5000, 20000 };
    double r[] = { 7, 3 };

    (void)state;
    ph.trace_t_ms = t;
    ph.trace_rate = r;
    ph.ntrace = 2;
    assert_true(sim_phase_value_at(&ph, 100000, 12 * S, S) == 0);
    assert_true(sim_phase_value_at(&ph, 100000, 15 * S, S) == 7);
    assert_true(sim_phase_value_at(&ph, 100000, 30 * S, S) == 3);
    assert_int_equal(sim_phase_next_break_us(&ph, 100000, 12 * S, S), 15 * S);
    assert_int_equal(sim_phase_next_break_us(&ph, 100000, 15 * S, S), 30 * S);
    assert_int_equal(sim_phase_next_break_us(&ph, 100000, 30 * S, S), 100 * S);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_constant_is_zero_outside_the_phase),
        cmocka_unit_test(test_load_ramp_holds_on_the_grid),
        cmocka_unit_test(test_load_step_spike_and_open_bursts),
        cmocka_unit_test(test_load_trace_rows_hold_until_the_next),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
