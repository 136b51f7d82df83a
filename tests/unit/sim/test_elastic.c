/* tests/unit/sim/test_elastic.c: scaler/sim/elastic.c, against hand-computed cases. */
#include "scaler/sim/elastic.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define MIN_MS     60000LL
#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* minute : demand supply billed
 *   0    :   1      1      2
 *   1    :   2      1      2     demand up, supply lags       -> mismatch
 *   2    :   2      2      3     supply catches up            -> mismatch
 *   3    :   3      3      4     both up together             -> match
 *   4    :   3      3      4     neither moves                -> match
 *   end at 5.
 * theta_U = 100 * (1/2 for 1 min) / 5 min = 10; tau_U = 20; nothing over-provisioned.
 * upsilon = 2 mismatching minutes of the 4 after the first = 50.
 * E_S = 2 (min 2, 3), E_D = 2 (min 1, 3): jitter 0.
 * supply integral 1+1+2+3+3 = 10 instance-min; billed 2+2+3+4+4 = 15 instance-min. */
static void test_elastic_reactive_lag(void **state)
{
    static const double d[] = { 1, 2, 2, 3, 3 }, s[] = { 1, 1, 2, 3, 3 }, b[] = { 2, 2, 3, 4, 4 };
    struct sim_elastic e;
    struct sim_elastic_result r;

    (void)state;
    sim_elastic_init(&e);
    for (int i = 0; i < 5; i++)
        assert_int_equal(sim_elastic_add(&e, i * MIN_MS, d[i], s[i], b[i]), 0);
    sim_elastic_result(&e, 5 * MIN_MS, &r);
    NEAR(r.duration_s, 300);
    NEAR(r.theta_u_pct, 10);
    NEAR(r.theta_o_pct, 0);
    NEAR(r.tau_u_pct, 20);
    NEAR(r.tau_o_pct, 0);
    NEAR(r.instability_pct, 50);
    assert_int_equal(r.supply_changes, 2);
    assert_int_equal(r.demand_changes, 2);
    NEAR(r.jitter_per_h, 0);
    NEAR(r.mean_demand, 2.2);
    NEAR(r.mean_supply, 2.0);
    NEAR(r.supply_instance_hours, 10.0 / 60);
    NEAR(r.cost_instance_hours, 15.0 / 60);
}

/* 30 min of no demand with 2 instances, then 30 min of demand 4 with the same 2.
 * Zero demand counts as one instance in the denominator: theta_O = 100 * (2/1 * 30) / 60
 * = 100; theta_U = 100 * (2/4 * 30) / 60 = 25; tau_U = tau_O = 50.
 * After the first sample demand rose and supply did not: upsilon 100.
 * E_S 0, E_D 1 over one hour: jitter -1 per hour (supply too inert). */
static void test_elastic_idle_then_short(void **state)
{
    struct sim_elastic e;
    struct sim_elastic_result r;

    (void)state;
    sim_elastic_init(&e);
    sim_elastic_add(&e, 0, 0, 2, 2);
    sim_elastic_add(&e, 30 * MIN_MS, 4, 2, 2);
    sim_elastic_result(&e, 60 * MIN_MS, &r);
    NEAR(r.theta_o_pct, 100);
    NEAR(r.theta_u_pct, 25);
    NEAR(r.tau_u_pct, 50);
    NEAR(r.tau_o_pct, 50);
    NEAR(r.instability_pct, 100);
    NEAR(r.jitter_per_h, -1);
    NEAR(r.cost_instance_hours, 2);
}

/* Supply flapping 2,3,2,3 under a flat demand of 2, 15-minute samples over an hour:
 * theta_O = 100 * (1/2 * 30 min) / 60 = 25, tau_O = 50; every change after the first
 * mismatches (upsilon 100); E_S 3, E_D 0: jitter +3 per hour (too eager). */
static void test_elastic_flapping(void **state)
{
    static const double s[] = { 2, 3, 2, 3 };
    struct sim_elastic e;
    struct sim_elastic_result r;

    (void)state;
    sim_elastic_init(&e);
    for (int i = 0; i < 4; i++)
        sim_elastic_add(&e, i * 15 * MIN_MS, 2, s[i], s[i]);
    sim_elastic_result(&e, 60 * MIN_MS, &r);
    NEAR(r.theta_o_pct, 25);
    NEAR(r.tau_o_pct, 50);
    NEAR(r.theta_u_pct, 0);
    NEAR(r.instability_pct, 100);
    assert_int_equal(r.supply_changes, 3);
    NEAR(r.jitter_per_h, 3);
}

/* A sample at the same time replaces the previous one; an earlier one is refused;
 * irregular samples weigh their durations. Demand 3 from 0, supply 1 until 10 min then
 * 3, end at 20: theta_U = 100 * (2/3 * 10) / 20 = 33.33...; tau_U = 50. */
static void test_elastic_replace_and_order(void **state)
{
    struct sim_elastic e;
    struct sim_elastic_result r;

    (void)state;
    sim_elastic_init(&e);
    assert_int_equal(sim_elastic_add(&e, 0, 1, 1, 1), 0);
    assert_int_equal(sim_elastic_add(&e, 0, 3, 1, 1), 0); /* replaces */
    assert_int_equal(sim_elastic_add(&e, 10 * MIN_MS, 3, 3, 3), 0);
    assert_int_equal(sim_elastic_add(&e, 5 * MIN_MS, 9, 9, 9), -1);
    assert_int_equal(e.nsamples, 2);
    sim_elastic_result(&e, 20 * MIN_MS, &r);
    NEAR(r.theta_u_pct, 100.0 * (2.0 / 3.0) * 10 / 20);
    NEAR(r.tau_u_pct, 50);
    assert_int_equal(r.supply_changes, 1);
    assert_int_equal(r.demand_changes, 0);
    /* Reading mid-run leaves the accumulator as it was. */
    sim_elastic_result(&e, 20 * MIN_MS, &r);
    NEAR(r.theta_u_pct, 100.0 * (2.0 / 3.0) * 10 / 20);
    /* An end before the last sample ends at the last sample. */
    sim_elastic_result(&e, 1, &r);
    NEAR(r.duration_s, 600);
}

static void test_elastic_empty_and_bad_values(void **state)
{
    struct sim_elastic e;
    struct sim_elastic_result r;

    (void)state;
    sim_elastic_init(&e);
    sim_elastic_result(&e, 1000, &r);
    NEAR(r.duration_s, 0);
    NEAR(r.theta_u_pct, 0);
    /* NAN and negative values count as 0: demand 0, supply 0 is exact provisioning. */
    sim_elastic_add(&e, 0, NAN, -3, INFINITY);
    sim_elastic_result(&e, MIN_MS, &r);
    NEAR(r.theta_u_pct, 0);
    NEAR(r.theta_o_pct, 0);
    NEAR(r.tau_u_pct, 0);
    NEAR(r.tau_o_pct, 0);
    NEAR(r.cost_instance_hours, 0);
    /* A single sample ending where it starts: zero duration, all zero. */
    sim_elastic_init(&e);
    sim_elastic_add(&e, 5, 1, 2, 2);
    sim_elastic_result(&e, 5, &r);
    NEAR(r.theta_o_pct, 0);
}

/* The sink adds each sample at the start of its interval, per group. */
static void test_elastic_sink_per_group(void **state)
{
    struct sim_elastic_sink sink;
    struct sim_group_sample g[2];
    struct sim_sample smp;
    struct sim_elastic_result r0, r1;

    (void)state;
    memset(&smp, 0, sizeof(smp));
    sim_elastic_sink_init(&sink, 2);
    smp.ngroups = 2;
    smp.groups = g;
    smp.interval_ms = MIN_MS;
    for (int i = 1; i <= 4; i++) {
        memset(g, 0, sizeof(g));
        smp.t_ms = i * MIN_MS;
        g[0].demand = 2;
        g[0].in_service = i <= 2 ? 1 : 2; /* short for the first two minutes */
        g[0].pending = i <= 2 ? 1 : 0;
        g[1].demand = 1;
        g[1].in_service = 1;
        g[1].warm_billed = i == 1 ? 3 : 0; /* a warm pool's instances running, then stopped */
        sim_elastic_sink_on_sample(&smp, &sink);
    }
    sim_elastic_result(&sink.groups[0], 4 * MIN_MS, &r0);
    sim_elastic_result(&sink.groups[1], 4 * MIN_MS, &r1);
    NEAR(r0.duration_s, 240);
    NEAR(r0.theta_u_pct, 100.0 * (0.5 * 2) / 4);
    NEAR(r0.tau_u_pct, 50);
    NEAR(r0.cost_instance_hours, 8.0 / 60); /* 2 billed each minute */
    NEAR(r0.supply_instance_hours, 6.0 / 60);
    NEAR(r0.warm_instance_hours, 0);
    NEAR(r1.theta_u_pct, 0);
    NEAR(r1.theta_o_pct, 0);
    NEAR(r1.instability_pct, 0);
    /* billed: the running warm instances too (docs/autoscaling.md 7.4), supply not */
    NEAR(r1.cost_instance_hours, (4.0 + 3.0) / 60);
    NEAR(r1.warm_instance_hours, 3.0 / 60);
    NEAR(r1.supply_instance_hours, 4.0 / 60);
}

/* a: 1 from 0 s, 2 from 10 s, 3 from 20 s; b: 1 from 0 s, 2 from 12 s, 4 from 25 s; end 30 s.
 * |a-b|: 0 on [0,10), 1 on [10,12), 0 on [12,20), 1 on [20,25), 1 on [25,30).
 * differ 12 of 30 s = 40 %; over a tolerance of 1: 0 %; of 0: 40 %; max 1; ends 3 vs 4. */
static void test_elastic_diff_step_series(void **state)
{
    static const int64_t ta[] = { 0, 10000, 20000 }, tb[] = { 0, 12000, 25000 };
    static const double va[] = { 1, 2, 3 }, vb[] = { 1, 2, 4 };
    static const int64_t tc[] = { 5000 };
    static const double vc[] = { 3 };
    struct sim_elastic_diff d;

    (void)state;
    assert_int_equal(sim_elastic_diff(ta, va, 3, tb, vb, 3, 30000, 1, &d), 0);
    NEAR(d.duration_s, 30);
    NEAR(d.differ_pct, 40);
    NEAR(d.over_tolerance_pct, 0);
    NEAR(d.max_abs, 1);
    NEAR(d.final_a, 3);
    NEAR(d.final_b, 4);
    assert_int_equal(sim_elastic_diff(ta, va, 3, tb, vb, 3, 30000, 0, &d), 0);
    NEAR(d.over_tolerance_pct, 40);
    /* A series starting later: the span is [5 s, 30 s]; a vs constant 3 differs by 2 on
     * [5,10), 1 on [10,20), 0 on [20,30): over tolerance 1 for 5 of 25 s = 20 %. */
    assert_int_equal(sim_elastic_diff(ta, va, 3, tc, vc, 1, 30000, 1, &d), 0);
    NEAR(d.duration_s, 25);
    NEAR(d.over_tolerance_pct, 20);
    NEAR(d.differ_pct, 60);
    NEAR(d.max_abs, 2);
    /* Empty inputs and empty spans are refused. */
    assert_int_equal(sim_elastic_diff(ta, va, 0, tb, vb, 3, 30000, 1, &d), -1);
    assert_int_equal(sim_elastic_diff(ta, va, 3, tc, vc, 1, 5000, 1, &d), -1);
}

/* The demand basis: the scenario's demand_target_pct when it sets one; else the CPU target
 * of the group's target-tracking policy on ASGAverageCPUUtilization; else 70 %. */
static void test_elastic_demand_basis_is_the_policy_target(void **state)
{
    static const char *const head =
        "{\"duration\":\"1h\",%s\"infrastructure\":{"
        "\"load_balancers\":[{\"name\":\"lb\",\"listeners\":[{\"lb_port\":80,"
        "\"instance_port\":80}]}],"
        "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{}}],"
        "\"groups\":[{\"name\":\"a\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":4},"
        "{\"name\":\"b\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":4}],"
        "\"policies\":[{\"name\":\"net\",\"group\":\"a\",\"type\":\"TargetTrackingScaling\","
        "\"target\":{\"predefined_metric\":\"ASGAverageNetworkIn\",\"value\":1000}},"
        "{\"name\":\"cpu50\",\"group\":\"a\",\"type\":\"TargetTrackingScaling\","
        "\"target\":{\"value\":50}}]}}";
    char text[2048], err[SIM_ERR_MAX];
    struct sim_scenario *sc;
    struct sim_demand_basis b;

    (void)state;
    snprintf(text, sizeof(text), head, "");
    sc = sim_scenario_parse(text, "t.json", err);
    if (!sc)
        fail_msg("%s", err);
    sim_elastic_demand_basis(sc, 0, &b); /* the CPU policy, not the network one */
    NEAR(b.cpu_pct, 50);
    assert_string_equal(b.source, "target-tracking policy \"cpu50\"");
    sim_elastic_demand_basis(sc, 1, &b); /* no policy */
    NEAR(b.cpu_pct, 70);
    assert_string_equal(b.source, "default");
    sim_scenario_destroy(sc);

    snprintf(text, sizeof(text), head, "\"demand_target_pct\":60,");
    sc = sim_scenario_parse(text, "t.json", err);
    if (!sc)
        fail_msg("%s", err);
    sim_elastic_demand_basis(sc, 0, &b); /* the file's own choice wins */
    NEAR(b.cpu_pct, 60);
    assert_string_equal(b.source, "demand_target_pct");
    sim_scenario_destroy(sc);
}

/* ALBRequestCountPerTarget at T requests per target per minute: a group's demand for an
 * interval is ceil(the target group's requests / groups in it / (T x minutes)). */
static void test_elastic_request_demand_is_requests_over_the_target(void **state)
{
    struct sim_demand_basis b = { 0 };

    (void)state;
    b.kind = SIM_DEMAND_REQUESTS;
    b.requests_per_target = 600;
    b.groups_sharing = 1;
    /* 5 minutes: 3,000 requests a target */
    assert_int_equal(sim_elastic_request_demand(&b, 9000, 300000), 3);
    assert_int_equal(sim_elastic_request_demand(&b, 9001, 300000), 4);
    assert_int_equal(sim_elastic_request_demand(&b, 1, 300000), 1);
    assert_int_equal(sim_elastic_request_demand(&b, 0, 300000), 0);
    /* one minute, and half a minute (the rate per minute counts) */
    assert_int_equal(sim_elastic_request_demand(&b, 1800, 60000), 3);
    assert_int_equal(sim_elastic_request_demand(&b, 900, 30000), 3);
    assert_int_equal(sim_elastic_request_demand(&b, 901, 30000), 4);
    /* two groups in the target group split its requests */
    b.groups_sharing = 2;
    assert_int_equal(sim_elastic_request_demand(&b, 9000, 300000), 2);
    /* no interval, a bad count, or a CPU basis: none */
    assert_int_equal(sim_elastic_request_demand(&b, 9000, 0), 0);
    assert_int_equal(sim_elastic_request_demand(&b, NAN, 60000), 0);
    b.kind = SIM_DEMAND_CPU;
    assert_int_equal(sim_elastic_request_demand(&b, 9000, 300000), 0);
}

/* A group whose first target-tracking policy with a basis is on ALBRequestCountPerTarget
 * is judged on requests (the network one before it has none); demand_target_pct still
 * wins. */
static void test_elastic_demand_basis_is_the_request_count_target(void **state)
{
    static const char *const head =
        "{\"duration\":\"1h\",%s\"infrastructure\":{"
        "\"target_groups\":[{\"name\":\"api-tg\"}],"
        "\"albs\":[{\"name\":\"front\",\"listeners\":[{\"port\":80,"
        "\"default_action\":{\"forward\":\"api-tg\"}}]}],"
        "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{}}],"
        "\"groups\":[{\"name\":\"a\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":4,"
        "\"target_groups\":[\"api-tg\"]},"
        "{\"name\":\"b\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":4,"
        "\"target_groups\":[\"api-tg\"]}],"
        "\"policies\":[{\"name\":\"net\",\"group\":\"a\",\"type\":\"TargetTrackingScaling\","
        "\"target\":{\"predefined_metric\":\"ASGAverageNetworkIn\",\"value\":1000}},"
        "{\"name\":\"req\",\"group\":\"a\",\"type\":\"TargetTrackingScaling\","
        "\"target\":{\"predefined_metric\":\"ALBRequestCountPerTarget\","
        "\"resource_label\":\"app/front/targetgroup/api-tg\",\"value\":1000}},"
        "{\"name\":\"cpu40\",\"group\":\"a\",\"type\":\"TargetTrackingScaling\","
        "\"target\":{\"value\":40}}]}}";
    char text[4096], err[SIM_ERR_MAX], line[512];
    struct sim_scenario *sc;
    struct sim_demand_basis b;

    (void)state;
    snprintf(text, sizeof(text), head, "");
    sc = sim_scenario_parse(text, "t.json", err);
    if (!sc)
        fail_msg("%s", err);
    sim_elastic_demand_basis(sc, 0, &b); /* the request policy: the first usable one */
    assert_int_equal(b.kind, SIM_DEMAND_REQUESTS);
    NEAR(b.requests_per_target, 1000);
    assert_int_equal(b.tg, 0);
    assert_int_equal(b.alb, 0);
    assert_int_equal(b.groups_sharing, 2);
    assert_string_equal(b.target_group, "api-tg");
    assert_string_equal(b.source, "target-tracking policy \"req\"");
    sim_elastic_basis_format(&b, line, sizeof(line));
    assert_string_equal(line, "ALBRequestCountPerTarget 1000 requests/target/min on target "
                              "group api-tg, its requests split evenly over the groups in it "
                              "(target-tracking policy \"req\")");
    sim_elastic_demand_basis(sc, 1, &b); /* b has no policy: CPU at 70 % */
    assert_int_equal(b.kind, SIM_DEMAND_CPU);
    NEAR(b.cpu_pct, 70);
    sim_elastic_basis_format(&b, line, sizeof(line));
    assert_string_equal(line, "instances to keep CPU at or below 70 % (default)");
    sim_scenario_destroy(sc);

    snprintf(text, sizeof(text), head, "\"demand_target_pct\":60,");
    sc = sim_scenario_parse(text, "t.json", err);
    if (!sc)
        fail_msg("%s", err);
    sim_elastic_demand_basis(sc, 0, &b); /* the file's own choice wins */
    assert_int_equal(b.kind, SIM_DEMAND_CPU);
    NEAR(b.cpu_pct, 60);
    sim_scenario_destroy(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elastic_reactive_lag),
        cmocka_unit_test(test_elastic_idle_then_short),
        cmocka_unit_test(test_elastic_flapping),
        cmocka_unit_test(test_elastic_replace_and_order),
        cmocka_unit_test(test_elastic_empty_and_bad_values),
        cmocka_unit_test(test_elastic_sink_per_group),
        cmocka_unit_test(test_elastic_diff_step_series),
        cmocka_unit_test(test_elastic_demand_basis_is_the_policy_target),
        cmocka_unit_test(test_elastic_request_demand_is_requests_over_the_target),
        cmocka_unit_test(test_elastic_demand_basis_is_the_request_count_target),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
