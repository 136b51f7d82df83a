/* tests/unit/sim/test_expect.c: expectations settle on the right sample with the right
 * observed value: at, by, throughout, failed_pct, p99_ms, direction changes in a
 * window, scale-out within a time. */
#include "scaler/sim/expect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static struct sim_scenario *scenario(const char *expect)
{
    char text[4096], err[SIM_ERR_MAX];
    struct sim_scenario *sc;

    snprintf(text, sizeof(text),
             "{\"duration\":\"1h\",\"infrastructure\":{"
             "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{\"service_ms\":{\"mean\":10}}}],"
             "\"groups\":[{\"name\":\"g\",\"launch_configuration\":\"lc\",\"min\":0,\"max\":9}]},"
             "\"expect\":[%s]}",
             expect);
    sc = sim_scenario_parse(text, "t.json", err);
    if (!sc)
        fail_msg("%s", err);
    return sc;
}

/* Feeds one sample per minute: desired[i] and in_service[i], completed/failed. */
static void feed(struct sim_checker *ch, const int *desired, const int *in_service, int n,
                 uint64_t completed, uint64_t failed)
{
    for (int i = 0; i < n; i++) {
        struct sim_group_sample g = { 0 };
        struct sim_sample s = { 0 };
        g.desired = desired[i];
        g.in_service = in_service[i];
        s.t_ms = 1767225600000LL + (int64_t)(i + 1) * 60000;
        s.interval_ms = 60000;
        s.completed = completed;
        s.failed = failed;
        s.ngroups = 1;
        s.groups = &g;
        sim_checker_on_sample(&s, ch);
    }
}

static void test_expect_by_holds_at_first_good_sample(void **state)
{
    struct sim_scenario *sc = scenario("{\"by\":\"5m\",\"in_service\":{\"min\":2}}");
    struct sim_checker *ch = sim_checker_create(sc, sc->start_ms);
    int d[] = { 1, 1, 2, 2, 2, 2 }, in[] = { 0, 1, 1, 2, 2, 2 };

    (void)state;
    feed(ch, d, in, 6, 10, 0);
    sim_checker_finish(ch, sc->start_ms + 3600000);
    assert_int_equal(sim_checker_failed(ch), 0);
    assert_int_equal(sim_checker_result(ch, 0)->when_ms, 4 * 60000);
    sim_checker_destroy(ch);
    sim_scenario_destroy(sc);
}

static void test_expect_by_fails_when_time_passes(void **state)
{
    struct sim_scenario *sc = scenario("{\"by\":\"2m\",\"in_service\":{\"min\":2}}");
    struct sim_checker *ch = sim_checker_create(sc, sc->start_ms);
    int d[] = { 1, 1, 2, 2 }, in[] = { 0, 1, 1, 2 };

    (void)state;
    feed(ch, d, in, 4, 10, 0);
    sim_checker_finish(ch, sc->start_ms + 3600000);
    assert_int_equal(sim_checker_failed(ch), 1);
    assert_int_equal(sim_checker_result(ch, 0)->when_ms, 2 * 60000);
    assert_string_equal(sim_checker_result(ch, 0)->observed, "in_service was 1");
    assert_true(sim_checker_result(ch, 0)->value == 1); /* the figure as a number */
    sim_checker_destroy(ch);
    sim_scenario_destroy(sc);
}

static void test_expect_throughout_fails_at_first_violation(void **state)
{
    struct sim_scenario *sc =
        scenario("{\"from\":\"2m\",\"until\":\"10m\",\"desired\":{\"min\":1,\"max\":3}}");
    struct sim_checker *ch = sim_checker_create(sc, sc->start_ms);
    int d[] = { 9, 2, 3, 4, 3 }, in[] = { 0, 0, 0, 0, 0 };

    (void)state;
    feed(ch, d, in, 5, 10, 0);
    sim_checker_finish(ch, sc->start_ms + 3600000);
    assert_int_equal(sim_checker_failed(ch), 1); /* 9 at 1m is outside the span */
    assert_int_equal(sim_checker_result(ch, 0)->when_ms, 4 * 60000);
    assert_string_equal(sim_checker_result(ch, 0)->observed, "desired was 4");
    assert_true(sim_checker_result(ch, 0)->value == 4);
    {
        double lo, hi;
        sim_check_limits(sim_checker_result(ch, 0)->e, &lo, &hi);
        assert_true(lo == 1 && hi == 3);
    }
    sim_checker_destroy(ch);
    sim_scenario_destroy(sc);
}

static void test_expect_failed_pct_over_span(void **state)
{
    struct sim_scenario *sc = scenario("{\"failed_pct\":{\"max\":1}}");
    struct sim_checker *ch = sim_checker_create(sc, sc->start_ms);
    int d[] = { 1, 1, 1, 1 }, in[] = { 1, 1, 1, 1 };

    (void)state;
    feed(ch, d, in, 4, 98, 2); /* 2% */
    sim_checker_finish(ch, sc->start_ms + 3600000);
    assert_int_equal(sim_checker_failed(ch), 1);
    assert_string_equal(sim_checker_result(ch, 0)->observed, "failed 2.000%");
    assert_true(fabs(sim_checker_result(ch, 0)->value - 2.0) < 1e-9);
    sim_checker_destroy(ch);
    sim_scenario_destroy(sc);
}

static void test_expect_direction_changes_in_window(void **state)
{
    struct sim_scenario *sc = scenario("{\"window\":\"5m\",\"direction_changes\":{\"max\":2}}");
    struct sim_checker *ch = sim_checker_create(sc, sc->start_ms);
    /* up, down (1), up (2) at 3m and 4m ... then a long pause, down (3) at 12m: the
     * window of 5 minutes never holds 3 changes */
    int d1[] = { 1, 2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 1 }, in[12] = { 0 };
    int d2[] = { 1, 2, 1, 2, 1 };

    (void)state;
    feed(ch, d1, in, 12, 1, 0);
    sim_checker_finish(ch, sc->start_ms + 3600000);
    assert_int_equal(sim_checker_failed(ch), 0);
    sim_checker_destroy(ch);
    ch = sim_checker_create(sc, sc->start_ms);
    feed(ch, d2, in, 5, 1, 0); /* three changes within 3 minutes */
    sim_checker_finish(ch, sc->start_ms + 3600000);
    assert_int_equal(sim_checker_failed(ch), 1);
    assert_int_equal(sim_checker_result(ch, 0)->when_ms, 5 * 60000);
    assert_true(sim_checker_result(ch, 0)->value == 3);
    sim_checker_destroy(ch);
    sim_scenario_destroy(sc);
}

static void test_expect_scale_out_within(void **state)
{
    struct sim_scenario *sc = scenario("{\"scale_out\":{\"after\":\"2m\",\"within\":\"2m\"}}");
    struct sim_checker *ch = sim_checker_create(sc, sc->start_ms);
    int ok[] = { 1, 1, 1, 2 }, late[] = { 1, 1, 1, 1, 1, 2 }, in[6] = { 0 };

    (void)state;
    feed(ch, ok, in, 4, 1, 0);
    sim_checker_finish(ch, sc->start_ms + 3600000);
    assert_int_equal(sim_checker_failed(ch), 0);
    assert_string_equal(sim_checker_result(ch, 0)->observed, "scaled out after 120s");
    assert_true(sim_checker_result(ch, 0)->value == 120);
    {
        double lo, hi;
        sim_check_limits(sim_checker_result(ch, 0)->e, &lo, &hi);
        assert_true(isnan(lo) && hi == 120); /* within, in seconds */
    }
    sim_checker_destroy(ch);
    ch = sim_checker_create(sc, sc->start_ms);
    feed(ch, late, in, 6, 1, 0);
    sim_checker_finish(ch, sc->start_ms + 3600000);
    assert_int_equal(sim_checker_failed(ch), 1);
    assert_string_equal(sim_checker_result(ch, 0)->observed, "desired stayed at 1");
    assert_true(isnan(sim_checker_result(ch, 0)->value)); /* no scale-out: no figure */
    sim_checker_destroy(ch);
    sim_scenario_destroy(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expect_by_holds_at_first_good_sample),
        cmocka_unit_test(test_expect_by_fails_when_time_passes),
        cmocka_unit_test(test_expect_throughout_fails_at_first_violation),
        cmocka_unit_test(test_expect_failed_pct_over_span),
        cmocka_unit_test(test_expect_direction_changes_in_window),
        cmocka_unit_test(test_expect_scale_out_within),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
