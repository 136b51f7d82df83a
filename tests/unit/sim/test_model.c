/* tests/unit/sim/test_model.c: the modelled instances obey queueing theory: utilization
 * = lambda*S/c, Little's law (busy servers = lambda*S), the M/M/c mean response time,
 * closed-model throughput N/(Z+S), overload failures; in both modes. Fixed seeds; the
 * bounds are statistical (several standard errors wide), never timing. */
#include "scaler/sim/load.h"
#include "scaler/sim/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static struct sim_scenario *scenario(const char *load, const char *service, int workers,
                                     int queue_limit)
{
    char text[4096], err[SIM_ERR_MAX];
    struct sim_scenario *sc;

    snprintf(text, sizeof(text),
             "{\"duration\":\"3h\",\"infrastructure\":{"
             "\"load_balancers\":[{\"name\":\"lb\",\"listeners\":[{\"lb_port\":80,"
             "\"instance_port\":80}]}],"
             "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{\"boot_s\":0,\"workers\":%d,"
             "\"queue_limit\":%d,\"service_ms\":%s}}],"
             "\"groups\":[{\"name\":\"g\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":1}]},"
             "\"load\":[%s]}",
             workers, queue_limit, service, load);
    sc = sim_scenario_parse(text, "t.json", err);
    if (!sc)
        fail_msg("%s", err);
    return sc;
}

struct figures {
    double util;    /* busy workers / workers */
    double busy;    /* mean busy workers */
    double mean_ms; /* mean response time of completed requests */
    double xput;    /* completed per second */
    double fail_rate;
};

static void run(struct sim_scenario *sc, enum sim_mode mode, int ninst, int64_t secs,
                struct figures *f)
{
    struct sim_model_config cfg = { 0 };
    struct sim_model *m;
    int slots[8];
    double busy = 0, up = 0;
    struct sim_lb_counters c;

    cfg.mode = mode;
    cfg.sc = sc;
    cfg.start_us = 0;
    cfg.seed = 1;
    m = sim_model_create(&cfg);
    assert_non_null(m);
    for (int i = 0; i < ninst; i++) {
        char id[32];
        snprintf(id, sizeof(id), "i-%d", i);
        slots[i] = sim_model_instance_start(m, id, 0, &sc->lcs[0].app, "us-east-1a", 0);
        assert_true(sim_model_instance_up(m, slots[i]));
    }
    sim_model_set_routes(m, 0, slots, ninst);
    sim_model_advance(m, secs * 1000000);
    for (int i = 0; i < ninst; i++) {
        double b, u;
        sim_model_instance_integrals(m, slots[i], &b, &u);
        busy += b;
        up += u;
    }
    sim_model_lb_counters(m, 0, &c);
    f->busy = busy / (up / ninst);
    f->util = busy / (up * sc->lcs[0].app.workers);
    f->mean_ms = c.completed > 0 ? c.latency_sum_us / c.completed / 1000.0 : 0;
    f->xput = c.completed / (double)secs;
    f->fail_rate = c.failed / (double)secs;
    sim_model_destroy(m);
}

static void near(double got, double want, double rel, const char *what)
{
    if (fabs(got - want) > rel * fabs(want))
        fail_msg("%s: got %.4f, want %.4f +- %.1f%%", what, got, want, rel * 100);
}

/* M/M/4, lambda 50/s, S 40 ms: rho = 0.5, busy = 2, W = S + C/(c mu - lambda). */
static void check_mmc(enum sim_mode mode, double tol)
{
    struct sim_scenario *sc = scenario("{\"rate\":50,\"until\":\"3h\"}",
                                       "{\"dist\":\"exponential\",\"mean\":40}", 4, 1000);
    struct figures f;
    double c = sim_erlang_c(50 * 0.04, 4), w = 40 + c / (4 / 0.04 - 50) * 1000;

    run(sc, mode, 1, 10000, &f);
    near(f.util, 0.5, tol, "utilization = lambda S / c");
    near(f.busy, 50 * 0.04, tol, "Little's law: busy servers = lambda S");
    near(f.mean_ms, w, tol * 2, "M/M/c mean response time");
    near(f.xput, 50, tol, "throughput = lambda");
    assert_true(f.fail_rate == 0);
    sim_scenario_destroy(sc);
}

static void test_model_des_mmc(void **state)
{
    (void)state;
    check_mmc(SIM_MODE_DES, 0.03);
}

static void test_model_fluid_mmc(void **state)
{
    (void)state;
    check_mmc(SIM_MODE_FLUID, 0.03);
}

/* Closed model, N = 2 clients below c = 4 workers: X = N / (Z + S). */
static void check_closed(enum sim_mode mode)
{
    struct sim_scenario *sc = scenario("{\"clients\":2,\"think\":\"100ms\",\"until\":\"3h\"}",
                                       "{\"dist\":\"fixed\",\"mean\":50}", 4, 1000);
    struct figures f;

    run(sc, mode, 1, 5000, &f);
    near(f.xput, 2 / 0.150, 0.03, "closed throughput N/(Z+S)");
    near(f.mean_ms, 50, 0.01, "no queueing below c");
    sim_scenario_destroy(sc);
}

static void test_model_des_closed_throughput(void **state)
{
    (void)state;
    check_closed(SIM_MODE_DES);
}

static void test_model_fluid_closed_throughput(void **state)
{
    (void)state;
    check_closed(SIM_MODE_FLUID);
}

/* Closed, saturated: N = 40 clients, Z = 0, 2 instances x 4 workers at S = 20 ms fixed:
 * X = capacity = 400/s and R = N / X = 100 ms. */
static void check_closed_saturated(enum sim_mode mode)
{
    struct sim_scenario *sc =
        scenario("{\"clients\":40,\"until\":\"3h\"}", "{\"dist\":\"fixed\",\"mean\":20}", 4, 1000);
    struct figures f;

    run(sc, mode, 2, 2000, &f);
    near(f.xput, 400, 0.02, "saturated closed throughput = capacity");
    near(f.mean_ms, 100, 0.05, "response time N/X (Little)");
    near(f.util, 1.0, 0.02, "saturated utilization");
    sim_scenario_destroy(sc);
}

static void test_model_des_closed_saturated(void **state)
{
    (void)state;
    check_closed_saturated(SIM_MODE_DES);
}

static void test_model_fluid_closed_saturated(void **state)
{
    (void)state;
    check_closed_saturated(SIM_MODE_FLUID);
}

/* Overload: lambda 150/s against capacity 100/s with a small queue: the excess fails. */
static void check_overload(enum sim_mode mode)
{
    struct sim_scenario *sc =
        scenario("{\"rate\":150,\"until\":\"3h\"}", "{\"dist\":\"fixed\",\"mean\":40}", 4, 20);
    struct figures f;

    run(sc, mode, 1, 2000, &f);
    near(f.xput, 100, 0.02, "throughput capped at c/S");
    near(f.fail_rate, 50, 0.05, "the excess fails");
    sim_scenario_destroy(sc);
}

static void test_model_des_overload_fails_excess(void **state)
{
    (void)state;
    check_overload(SIM_MODE_DES);
}

static void test_model_fluid_overload_fails_excess(void **state)
{
    (void)state;
    check_overload(SIM_MODE_FLUID);
}

static void test_model_no_route_fails_everything(void **state)
{
    struct sim_scenario *sc =
        scenario("{\"rate\":10,\"until\":\"3h\"}", "{\"dist\":\"fixed\",\"mean\":40}", 4, 20);
    struct figures f;

    (void)state;
    run(sc, SIM_MODE_DES, 0, 1000, &f);
    assert_true(f.xput == 0);
    near(f.fail_rate, 10, 0.1, "no instance: every request fails");
    sim_scenario_destroy(sc);
}

/* Busy worker-time of each of three instances, two in zone 0 and one in zone 1, after
 * 20 minutes of 40 req/s; zoned: cross-zone off (each zone's node takes half). */
static void zone_busy(enum sim_mode mode, int zoned, double busy[3])
{
    struct sim_scenario *sc = scenario("{\"rate\":40,\"until\":\"3h\"}",
                                       "{\"dist\":\"exponential\",\"mean\":10}", 4, 1000);
    struct sim_model_config cfg = { 0 };
    struct sim_model *m;
    int slots[3], zones[3] = { 0, 0, 1 };

    cfg.mode = mode;
    cfg.sc = sc;
    cfg.seed = 1;
    m = sim_model_create(&cfg);
    assert_non_null(m);
    for (int i = 0; i < 3; i++) {
        char id[32];
        snprintf(id, sizeof(id), "i-%d", i);
        slots[i] = sim_model_instance_start(m, id, 0, &sc->lcs[0].app,
                                            zones[i] ? "us-east-1b" : "us-east-1a", 0);
    }
    if (zoned)
        sim_model_set_zone_routes(m, 0, slots, zones, 3, 2);
    else
        sim_model_set_routes(m, 0, slots, 3);
    sim_model_advance(m, 1200 * 1000000LL);
    for (int i = 0; i < 3; i++) {
        double up;
        sim_model_instance_integrals(m, slots[i], &busy[i], &up);
    }
    sim_model_destroy(m);
    sim_scenario_destroy(sc);
}

/* Cross-zone off: each enabled zone takes an equal share, split among its instances, so
 * the lone instance of zone 1 works twice as hard as each of zone 0's two; with
 * cross-zone on all three share alike. */
static void check_cross_zone(enum sim_mode mode)
{
    double on[3], off[3];

    zone_busy(mode, 0, on);
    zone_busy(mode, 1, off);
    near(on[2] / on[0], 1, 0.1, "cross-zone on: equal shares");
    near(on[1] / on[0], 1, 0.1, "cross-zone on: equal shares");
    near(off[2] / off[0], 2, 0.1, "cross-zone off: the lone zone-1 instance takes half");
    near(off[1] / off[0], 1, 0.1, "cross-zone off: zone 0 splits its half");
    near(off[0] + off[1] + off[2], on[0] + on[1] + on[2], 0.05, "same work in all");
}

static void test_model_des_cross_zone_off_routes_evenly_per_zone(void **state)
{
    (void)state;
    check_cross_zone(SIM_MODE_DES);
}

static void test_model_fluid_cross_zone_off_routes_evenly_per_zone(void **state)
{
    (void)state;
    check_cross_zone(SIM_MODE_FLUID);
}

static void test_model_erlang_c(void **state)
{
    (void)state;
    /* M/M/1: C = rho */
    near(sim_erlang_c(0.5, 1), 0.5, 1e-9, "M/M/1");
    /* M/M/2, a = 1: C = 1/3 */
    near(sim_erlang_c(1.0, 2), 1.0 / 3.0, 1e-9, "M/M/2");
    assert_true(sim_erlang_c(5, 4) == 1);
}

static void test_model_demand(void **state)
{
    struct sim_scenario *sc =
        scenario("{\"rate\":100,\"until\":\"3h\"}", "{\"dist\":\"fixed\",\"mean\":40}", 4, 20);
    struct sim_model_config cfg = { 0 };
    struct sim_model *m;

    (void)state;
    cfg.mode = SIM_MODE_FLUID;
    cfg.sc = sc;
    m = sim_model_create(&cfg);
    /* work = 100 * 0.04 = 4 workers; at 70% of 4 workers per instance: ceil(4 / 2.8) = 2 */
    assert_int_equal(sim_model_demand(m, 0, &sc->lcs[0].app, 70, 1, 0, 60000000), 2);
    /* at 100%: exactly 1 */
    assert_int_equal(sim_model_demand(m, 0, &sc->lcs[0].app, 100, 1, 0, 60000000), 1);
    sim_model_destroy(m);
    sim_scenario_destroy(sc);
}

/* The demand is the smallest instance count whose CPU is at or under the target: for
 * open load, CPU(n) = rate x S x cpu_per_request / (n x workers). Checked on a sweep of
 * rates that puts the quotient on and beside whole numbers. */
static void test_model_demand_is_smallest_count_at_target(void **state)
{
    (void)state;
    for (int rate = 1; rate <= 4000; rate += 37) {
        char load[128];
        struct sim_scenario *sc;
        struct sim_model_config cfg = { 0 };
        struct sim_model *m;

        snprintf(load, sizeof(load), "{\"rate\":%d,\"until\":\"3h\"}", rate);
        sc = scenario(load, "{\"dist\":\"fixed\",\"mean\":40}", 4, 20);
        cfg.mode = SIM_MODE_FLUID;
        cfg.sc = sc;
        m = sim_model_create(&cfg);
        for (int tgt = 10; tgt <= 100; tgt += 15) {
            int n = sim_model_demand(m, 0, &sc->lcs[0].app, tgt, 1, 0, 60000000);
            double work = rate * 0.04 * sc->lcs[0].app.cpu_per_request;
            assert_true(n >= 1);
            assert_true(work / (n * 4.0) <= tgt / 100.0);
            if (n > 1 && work / ((n - 1) * 4.0) <= tgt / 100.0)
                fail_msg("rate %d target %d: %d instances, %d would do", rate, tgt, n, n - 1);
        }
        sim_model_destroy(m);
        sim_scenario_destroy(sc);
    }
}

/* sim_model_cpu_table() reads what sim_model_instance_integrals() reads, slot by slot,
 * and follows instances that die or go at the instant it was last read. */
static void check_cpu_table(enum sim_mode mode)
{
    struct sim_scenario *sc = scenario("{\"rate\":40,\"until\":\"3h\"}",
                                       "{\"dist\":\"exponential\",\"mean\":10}", 4, 1000);
    struct sim_model_config cfg = { 0 };
    const struct sim_slot_cpu *tab;
    struct sim_model *m;
    int slots[3], n;

    cfg.mode = mode;
    cfg.sc = sc;
    cfg.seed = 1;
    m = sim_model_create(&cfg);
    for (int i = 0; i < 3; i++) {
        char id[32];
        snprintf(id, sizeof(id), "i-%d", i);
        slots[i] = sim_model_instance_start(m, id, 0, &sc->lcs[0].app, "us-east-1a", 0);
    }
    sim_model_set_routes(m, 0, slots, 3);
    for (int step = 1; step <= 3; step++) {
        sim_model_advance(m, step * 60 * 1000000LL);
        if (step == 2) {
            n = sim_model_cpu_table(m, &tab);
            assert_int_equal(tab[slots[0]].state, SIM_SLOT_LIVE);
            sim_model_instance_kill(m, slots[0], sim_model_now_us(m));
            sim_model_instance_stop(m, slots[2], sim_model_now_us(m));
        }
        n = sim_model_cpu_table(m, &tab);
        assert_int_equal(n, sim_model_slot_count(m));
        for (int s = 0; s < n; s++) {
            double busy, up;
            if (!sim_model_slot_live(m, s)) {
                assert_int_equal(tab[s].state, 0);
                continue;
            }
            sim_model_instance_integrals(m, s, &busy, &up);
            assert_int_equal(tab[s].state,
                             SIM_SLOT_LIVE | (sim_model_instance_dead(m, s) ? SIM_SLOT_DEAD : 0));
            assert_int_equal(tab[s].workers, 4);
            assert_true(tab[s].busy_worker_us == busy);
            assert_true(tab[s].up_us == up);
        }
    }
    assert_int_equal(tab[slots[0]].state, SIM_SLOT_LIVE | SIM_SLOT_DEAD);
    assert_int_equal(tab[slots[2]].state, 0);
    sim_model_destroy(m);
    sim_scenario_destroy(sc);
}

static void test_model_des_cpu_table_matches_integrals(void **state)
{
    (void)state;
    check_cpu_table(SIM_MODE_DES);
}

static void test_model_fluid_cpu_table_matches_integrals(void **state)
{
    (void)state;
    check_cpu_table(SIM_MODE_FLUID);
}

/* The model remembers a continuous shape's value per grid cell: what it offers is what
 * the phase rule (sim_phase_value_at) gives, however the reads jump between cells. */
static void test_model_diurnal_load_follows_the_phase_rule(void **state)
{
    struct sim_scenario *sc =
        scenario("{\"rate\":400,\"until\":\"3h\",\"shape\":{\"type\":\"diurnal\","
                 "\"amplitude\":0.5,\"period\":\"1h\",\"peak_at\":\"10m\"}}",
                 "{\"dist\":\"fixed\",\"mean\":40}", 4, 20);
    struct sim_model_config cfg = { 0 };
    struct sim_model *m;
    uint64_t x = 12345;

    (void)state;
    cfg.mode = SIM_MODE_FLUID;
    cfg.sc = sc;
    m = sim_model_create(&cfg);
    for (int i = 0; i < 5000; i++) {
        int64_t t;
        int clients;
        double want;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        /* mostly nearby cells, sometimes far ones (beyond what is remembered) */
        t = (int64_t)((x >> 33) % (i % 7 ? 200 : 10800)) * 1000000 + (int64_t)(x % 1000000);
        want = sim_phase_value_at(&sc->phases[0], sc->duration_ms, t, 10000000);
        assert_true(sim_model_offered_load(m, t, &clients) == want);
    }
    sim_model_destroy(m);
    sim_scenario_destroy(sc);
}

/* An overloaded pair behind least outstanding requests (250 req/s against 2 x 100, queues
 * of 200): an HTTP health probe finds an instance's queue full only part of the time. The
 * joint queue stands j below its top with probability p (1 - p)^j, p = 0.2 the refused
 * share, and then 2 - j of the 2 are full: 0.2 + 0.16 / 2 = 0.28 of the probes fail. */
static double probe_full_share(enum sim_mode mode)
{
    struct sim_scenario *sc = scenario("{\"rate\":250,\"until\":\"3h\"}",
                                       "{\"dist\":\"exponential\",\"mean\":40}", 4, 200);
    struct sim_model_config cfg = { 0 };
    struct sim_model *m;
    int slots[2], fails = 0, probes = 0;

    cfg.mode = mode;
    cfg.sc = sc;
    cfg.seed = 1;
    m = sim_model_create(&cfg);
    slots[0] = sim_model_instance_start(m, "i-a", 0, &sc->lcs[0].app, "us-east-1a", 0);
    slots[1] = sim_model_instance_start(m, "i-b", 0, &sc->lcs[0].app, "us-east-1a", 0);
    sim_model_set_routes(m, 0, slots, 2);
    for (int64_t t = 60; t < 60 + 30 * 300; t += 30) {
        sim_model_advance(m, t * 1000000);
        for (int i = 0; i < 2; i++) {
            fails += !sim_model_instance_health(m, slots[i], 1);
            probes++;
            /* a TCP check connects whatever the queue holds */
            assert_true(sim_model_instance_health(m, slots[i], 0));
        }
    }
    sim_model_destroy(m);
    sim_scenario_destroy(sc);
    return (double)fails / probes;
}

static void test_model_des_probe_finds_full_queue_part_of_the_time(void **state)
{
    (void)state;
    near(probe_full_share(SIM_MODE_DES), 0.28, 0.2, "share of probes finding the queue full");
}

static void test_model_fluid_probe_finds_full_queue_part_of_the_time(void **state)
{
    (void)state;
    near(probe_full_share(SIM_MODE_FLUID), 0.28, 0.2, "share of probes finding the queue full");
}

/* An instance taken out of the route set with a full queue works it off (DES does by its
 * events; a fluid backlog must too): its requests complete, its CPU counts, and its
 * health probes pass again once the queue is no longer full. */
static void check_out_of_route_drains(enum sim_mode mode)
{
    struct sim_scenario *sc = scenario("{\"rate\":150,\"until\":\"3h\"}",
                                       "{\"dist\":\"exponential\",\"mean\":40}", 4, 200);
    struct sim_model_config cfg = { 0 };
    struct sim_model *m;
    struct sim_lb_counters c0, c1;
    double b0, b1, u;
    int slot, passes = 0;

    cfg.mode = mode;
    cfg.sc = sc;
    cfg.seed = 1;
    m = sim_model_create(&cfg);
    slot = sim_model_instance_start(m, "i-a", 0, &sc->lcs[0].app, "us-east-1a", 0);
    sim_model_set_routes(m, 0, &slot, 1);
    sim_model_advance(m, 60 * 1000000LL);
    sim_model_lb_counters(m, 0, &c0);
    sim_model_instance_integrals(m, slot, &b0, &u);
    sim_model_set_routes(m, 0, NULL, 0); /* the ELB took it out of service */
    sim_model_advance(m, 90 * 1000000LL);
    sim_model_lb_counters(m, 0, &c1);
    sim_model_instance_integrals(m, slot, &b1, &u);
    /* about 200 queued and 4 in service complete; 2 s at 4 busy workers */
    near(c1.completed - c0.completed, 203, 0.05, "the queue's requests complete");
    near((b1 - b0) / 1e6, 8, 0.15, "worker-seconds while it drains");
    for (int k = 0; k < 10; k++) {
        sim_model_advance(m, (100 + 30 * k) * 1000000LL);
        passes += sim_model_instance_health(m, slot, 1);
    }
    assert_int_equal(passes, 10);
    sim_model_destroy(m);
    sim_scenario_destroy(sc);
}

static void test_model_des_out_of_route_instance_drains(void **state)
{
    (void)state;
    check_out_of_route_drains(SIM_MODE_DES);
}

static void test_model_fluid_out_of_route_instance_drains(void **state)
{
    (void)state;
    check_out_of_route_drains(SIM_MODE_FLUID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_des_mmc),
        cmocka_unit_test(test_model_fluid_mmc),
        cmocka_unit_test(test_model_des_closed_throughput),
        cmocka_unit_test(test_model_fluid_closed_throughput),
        cmocka_unit_test(test_model_des_closed_saturated),
        cmocka_unit_test(test_model_fluid_closed_saturated),
        cmocka_unit_test(test_model_des_overload_fails_excess),
        cmocka_unit_test(test_model_fluid_overload_fails_excess),
        cmocka_unit_test(test_model_no_route_fails_everything),
        cmocka_unit_test(test_model_des_cross_zone_off_routes_evenly_per_zone),
        cmocka_unit_test(test_model_fluid_cross_zone_off_routes_evenly_per_zone),
        cmocka_unit_test(test_model_erlang_c),
        cmocka_unit_test(test_model_demand),
        cmocka_unit_test(test_model_diurnal_load_follows_the_phase_rule),
        cmocka_unit_test(test_model_demand_is_smallest_count_at_target),
        cmocka_unit_test(test_model_des_cpu_table_matches_integrals),
        cmocka_unit_test(test_model_fluid_cpu_table_matches_integrals),
        cmocka_unit_test(test_model_des_probe_finds_full_queue_part_of_the_time),
        cmocka_unit_test(test_model_fluid_probe_finds_full_queue_part_of_the_time),
        cmocka_unit_test(test_model_des_out_of_route_instance_drains),
        cmocka_unit_test(test_model_fluid_out_of_route_instance_drains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
