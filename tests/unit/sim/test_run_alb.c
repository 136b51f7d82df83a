/* tests/unit/sim/test_run_alb.c: the simulator's ALB glue (scaler/sim/run_alb.c): the
 * records go through libscaler (its errors carry the scenario's path), each phase's request
 * mix is routed by sc_elbv2_route into shares per target group and per answer of the load
 * balancer, a resource label written with names gets the ids libscaler made, and a target
 * in slow start gets libscaler's share in the model's picks and splits. */
#include "scaler/sim/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/ec2.h"
#include "scaler/elbv2.h"
#include "scaler/sim/model.h"
#include "scaler/sim/run_internal.h"
#include "scaler/world.h"

static const char *base =
    "{\"duration\":\"1h\",\"infrastructure\":{"
    "\"target_groups\":[{\"name\":\"api-tg\"},{\"name\":\"web-tg\"}],"
    "\"albs\":[{\"name\":\"front\",\"listeners\":[{\"port\":80,"
    "\"default_action\":{\"fixed_response\":{\"status\":404}},"
    "\"rules\":[{\"priority\":10,\"conditions\":{\"path_pattern\":[\"/api/*\"]},"
    "\"action\":{\"forward\":[{\"target_group\":\"api-tg\",\"weight\":3},"
    "{\"target_group\":\"web-tg\",\"weight\":1}]}},"
    "{\"priority\":20,\"conditions\":{\"host_header\":[\"old.example.com\"]},"
    "\"action\":{\"redirect\":{\"host\":\"new.example.com\",\"status\":301}}},"
    "{\"priority\":30,\"conditions\":{\"http_request_method\":[\"DELETE\"]},"
    "\"action\":{\"forward\":\"web-tg\"}}]},"
    "{\"port\":8080,\"default_action\":{\"forward\":\"web-tg\"}}]}],"
    "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{\"service_ms\":20}}],"
    "\"groups\":[{\"name\":\"g\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":3,"
    "\"target_groups\":[\"api-tg\"]}]},"
    "\"load\":[{\"target\":\"front\",\"rate\":10,"
    "\"requests\":[{\"path\":\"/api/x\",\"weight\":2},{\"path\":\"/\"},"
    "{\"path\":\"/\",\"host\":\"old.example.com\"}]},"
    "{\"target\":\"front\",\"rate\":5,\"requests\":[{\"method\":\"DELETE\",\"path\":\"/x\"}]},"
    "{\"target\":\"front\",\"rate\":5,\"listener_port\":8080},"
    "{\"target\":\"front\",\"rate\":5,\"requests\":[{\"path\":\"/API/x\"}]}]}";

/* Replaces the first occurrence of from by to in base. */
static char *edit(const char *from, const char *to)
{
    const char *p = strstr(base, from);
    size_t n = strlen(base) - strlen(from) + strlen(to) + 1;
    char *out;

    assert_non_null(p);
    out = malloc(n);
    assert_non_null(out);
    memcpy(out, base, (size_t)(p - base));
    strcpy(out + (p - base), to);
    strcat(out, p + strlen(from));
    return out;
}

struct fx {
    struct sim_scenario *sc;
    struct eng e;
};

static int make(struct fx *f, const char *text)
{
    struct sc_world_config wc;
    char err[SIM_ERR_MAX];

    memset(f, 0, sizeof(*f));
    f->sc = sim_scenario_parse(text, "t.json", err);
    if (!f->sc)
        fail_msg("%s", err);
    sc_world_config_defaults(&wc);
    wc.seed = 1;
    wc.start_ms = f->sc->start_ms;
    f->e.sc = f->sc;
    f->e.w = sc_world_create(&wc);
    assert_non_null(f->e.w);
    f->e.ec2 = sc_world_ec2(f->e.w);
    f->e.start_ms = f->e.now_ms = f->sc->start_ms;
    return alb_setup(&f->e);
}

static void destroy(struct fx *f)
{
    alb_cleanup(&f->e);
    sc_world_destroy(f->e.w);
    sim_scenario_destroy(f->sc);
}

/* The share of phase ph going to route r, 0 when none. */
static double share(const struct eng *e, int ph, int r)
{
    for (int i = 0; i < e->nsplits; i++)
        if (e->splits[i].phase == ph && e->splits[i].route == r)
            return e->splits[i].share;
    return 0;
}

static double phase_total(const struct eng *e, int ph)
{
    double t = 0;

    for (int i = 0; i < e->nsplits; i++)
        if (e->splits[i].phase == ph)
            t += e->splits[i].share;
    return t;
}

static void test_run_alb_plan_routes_by_the_rules(void **state)
{
    struct fx f;
    int api, web, a404 = -1, a301 = -1;

    (void)state;
    assert_int_equal(make(&f, base), 0);
    assert_int_equal(alb_plan(&f.e), 0);
    api = f.sc->nlbs + 0;
    web = f.sc->nlbs + 1;
    assert_int_equal(f.e.nanswers, 2);
    for (int i = 0; i < f.e.nanswers; i++) {
        if (f.e.answers[i].status == 404 && f.e.answers[i].kind == ANSWER_FIXED)
            a404 = f.sc->nlbs + f.sc->ntgs + i;
        if (f.e.answers[i].status == 301 && f.e.answers[i].kind == ANSWER_REDIRECT)
            a301 = f.sc->nlbs + f.sc->ntgs + i;
    }
    assert_true(a404 >= 0 && a301 >= 0);
    /* phase 0: /api/x (weight 2 of 4) forwards 3:1; / answers 404; old.example.com 301 */
    assert_float_equal(share(&f.e, 0, api), 0.5 * 0.75, 1e-12);
    assert_float_equal(share(&f.e, 0, web), 0.5 * 0.25, 1e-12);
    assert_float_equal(share(&f.e, 0, a404), 0.25, 1e-12);
    assert_float_equal(share(&f.e, 0, a301), 0.25, 1e-12);
    assert_float_equal(phase_total(&f.e, 0), 1.0, 1e-12);
    /* phase 1: the method condition; phase 2: the second listener's default */
    assert_float_equal(share(&f.e, 1, web), 1.0, 0);
    assert_float_equal(share(&f.e, 2, web), 1.0, 0);
    /* phase 3: path patterns are case sensitive (docs/elbv2.md 6): the default 404 */
    assert_float_equal(share(&f.e, 3, a404), 1.0, 0);
    /* the model's answer statuses: target groups 0, then each answer's */
    assert_int_equal(f.e.answer_status[0], 0);
    assert_int_equal(f.e.answer_status[1], 0);
    assert_int_equal(f.e.answer_status[a404 - f.sc->nlbs], 404);
    assert_int_equal(f.e.answer_status[a301 - f.sc->nlbs], 301);
    /* the group behind api-tg */
    assert_int_equal(f.e.tgs[0].ngroups_behind, 1);
    assert_float_equal(route_group_share(&f.e, api), 1.0, 0);
    destroy(&f);
}

static void test_run_alb_label_gets_the_ids(void **state)
{
    struct fx f;
    char buf[2 * SC_ELBV2_ARN_LEN];
    const char *l;

    (void)state;
    assert_int_equal(make(&f, base), 0);
    l = alb_label(&f.e, "app/front/targetgroup/api-tg", buf, sizeof(buf));
    assert_ptr_equal(l, buf);
    assert_true(sc_elbv2_resource_label_valid(l));
    assert_int_equal(strncmp(l, "app/front/", 10), 0);
    assert_non_null(strstr(l, "/targetgroup/api-tg/"));
    /* AWS's full form, and names the scenario does not have, pass through */
    assert_string_equal(
        alb_label(&f.e, "app/x/0123456789abcdef/targetgroup/y/0123456789abcdef", buf, sizeof(buf)),
        "app/x/0123456789abcdef/targetgroup/y/0123456789abcdef");
    assert_string_equal(alb_label(&f.e, "app/nope/targetgroup/api-tg", buf, sizeof(buf)),
                        "app/nope/targetgroup/api-tg");
    /* alarm dimensions written with names */
    l = alb_dimension(&f.e, "TargetGroup", "targetgroup/web-tg", buf, sizeof(buf));
    assert_string_equal(l, sc_elbv2_arn_dimension(f.e.tgs[1].arn));
    l = alb_dimension(&f.e, "LoadBalancer", "app/front", buf, sizeof(buf));
    assert_string_equal(l, sc_elbv2_arn_dimension(f.e.alb_arns[0]));
    assert_int_equal(strncmp(l, "app/front/", 10), 0);
    assert_string_equal(alb_dimension(&f.e, "AutoScalingGroupName", "app/front", buf, sizeof(buf)),
                        "app/front");
    destroy(&f);
}

/* AWS's validation is libscaler's: its code and text, with the rule's path. */
static void test_run_alb_library_errors_name_the_path(void **state)
{
    struct fx f;
    char *text = edit("\"priority\":20", "\"priority\":10");

    (void)state;
    assert_int_equal(make(&f, text), 2);
    assert_non_null(strstr(f.e.err, "$.infrastructure.albs[0].listeners[0].rules[1]: "
                                    "PriorityInUse: "));
    destroy(&f);
    free(text);
}

/* A closed-model phase whose requests the rules split is refused (clients are not split). */
static void test_run_alb_closed_phase_needs_one_target_group(void **state)
{
    struct fx f;
    char *text = edit("{\"target\":\"front\",\"rate\":10,", "{\"target\":\"front\",\"clients\":9,");

    (void)state;
    assert_int_equal(make(&f, text), 0);
    assert_int_equal(alb_plan(&f.e), 2);
    assert_non_null(strstr(f.e.err, "$.load[0]: a closed-model phase on an ALB must send"));
    destroy(&f);
    free(text);
}

/* ---- slow start (docs/elbv2.md 10.2) ---- */

#define RAMP_TEXT                                                                                  \
    "{\"duration\":\"1h\",\"infrastructure\":{"                                                    \
    "\"target_groups\":[{\"name\":\"api-tg\",\"health_check\":{\"interval\":10,"                   \
    "\"healthy_threshold\":2},\"slow_start\":\"%s\",\"algorithm\":\"%s\"}],"                       \
    "\"albs\":[{\"name\":\"front\",\"listeners\":[{\"port\":80,"                                   \
    "\"default_action\":{\"forward\":\"api-tg\"}}]}],"                                             \
    "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{\"boot_s\":0,\"workers\":8,"             \
    "\"queue_limit\":20,\"service_ms\":{\"dist\":\"fixed\",\"mean\":10}}}],"                       \
    "\"groups\":[{\"name\":\"g\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":2,"             \
    "\"target_groups\":[\"api-tg\"]}]},"                                                           \
    "\"load\":[{\"target\":\"front\",\"rate\":200}]}"

/* An EC2 instance running in the world and in the model, registered with the group. */
static int ramp_target(struct fx *f, char id[SC_EC2_ID_LEN])
{
    struct sc_ec2_run_req rq = { 0 };
    const struct sc_ec2_reservation *r;
    struct sc_elbv2_target_req t = { 0 };
    struct sc_error err = { 0 };
    int slot;

    rq.image_id = "ami-12c6146b";
    rq.min_count = rq.max_count = 1;
    rq.availability_zone = "us-east-1a";
    assert_int_equal(sc_ec2_run_instances(f->e.ec2, &rq, f->e.now_ms, &r, &err), SC_OK);
    snprintf(id, SC_EC2_ID_LEN, "%s", r->instances[0]->instance_id);
    assert_int_equal(sc_ec2_instance_running(f->e.ec2, id, f->e.now_ms), SC_OK);
    slot = sim_model_instance_start(f->e.model, id, 0, &f->sc->lcs[0].app, "us-east-1a",
                                    f->e.now_ms * 1000);
    assert_true(sim_model_instance_up(f->e.model, slot));
    t.id = id;
    assert_int_equal(
        sc_elbv2_register_targets(f->e.elbv2, f->e.tgs[0].arn, &t, 1, f->e.now_ms, &err), SC_OK);
    return slot;
}

/* The engine's round: the model up to now + 10 s, then the group's health checks
 * (sc_elbv2_health_result) and its route set into the model. */
static void ramp_step(struct fx *f)
{
    f->e.now_ms += 10000;
    sim_model_advance(f->e.model, f->e.now_ms * 1000);
    alb_health_checks(&f->e, 0);
    alb_sync_routes(&f->e);
}

static double busy(struct fx *f, int slot)
{
    double b, up;

    sim_model_instance_integrals(f->e.model, slot, &b, &up);
    return b;
}

/* A target group (slow_start ss, algorithm alg) behind an ALB taking 200 req/s of 10 ms
 * requests, in a model of mode: target A healthy, then B registered until healthy (as the
 * engine's rounds see it); *since: when libscaler put B in slow start (-1: not). */
static void two_targets(struct fx *f, enum sim_mode mode, const char *ss, const char *alg, int *a,
                        int *b, int64_t *since)
{
    struct sim_model_config mc = { 0 };
    struct sc_elbv2_target_health th = { 0 };
    char text[2048], a_id[SC_EC2_ID_LEN], b_id[SC_EC2_ID_LEN];

    snprintf(text, sizeof(text), RAMP_TEXT, ss, alg);
    assert_int_equal(make(f, text), 0);
    assert_int_equal(alb_plan(&f->e), 0);
    mc.mode = mode;
    mc.sc = f->sc;
    mc.start_us = f->e.start_ms * 1000;
    mc.seed = 1;
    mc.nextra_routes = f->sc->ntgs + f->e.nanswers;
    mc.answer_status = f->e.answer_status;
    mc.splits = f->e.splits;
    mc.nsplits = f->e.nsplits;
    f->e.model = sim_model_create(&mc);
    assert_non_null(f->e.model);
    *a = ramp_target(f, a_id);
    for (int k = 0; k < 3; k++)
        ramp_step(f);
    *b = ramp_target(f, b_id);
    for (int k = 0; k < 10 && th.state != SC_ELBV2_HEALTHY; k++) {
        ramp_step(f);
        assert_int_equal(sc_elbv2_target_at(f->e.elbv2, f->e.tgs[0].arn, 1, &th), 0);
        assert_string_equal(th.id, b_id);
    }
    assert_int_equal(th.state, SC_ELBV2_HEALTHY);
    *since = th.slow_start_since_ms;
    assert_true(*since <= f->e.now_ms);
}

/* B's share of the work in each 20 s window after it became healthy (8 windows, 160 s),
 * slow start 120 s, and when libscaler put it in slow start. */
static void ramp_run(enum sim_mode mode, const char *alg, double frac[8], int64_t *since)
{
    struct fx f;
    int a, b;
    double a0, b0;

    two_targets(&f, mode, "120s", alg, &a, &b, since);
    a0 = busy(&f, a);
    b0 = busy(&f, b);
    for (int w = 0; w < 8; w++) {
        double a1, b1;

        ramp_step(&f);
        ramp_step(&f);
        a1 = busy(&f, a);
        b1 = busy(&f, b);
        frac[w] = (b1 - b0) / (a1 - a0 + b1 - b0);
        a0 = a1;
        b0 = b1;
    }
    sim_model_destroy(f.e.model);
    destroy(&f);
}

/* B's expected share of the work in window w (20 s from its slow start's beginning): its
 * weight s = t / 120 s against A's 1, averaged over the window. */
static double ramp_want(int w)
{
    double sum = 0;

    for (int k = 0; k < 200; k++) {
        double t = w * 20 + (k + 0.5) * 0.1, s = t < 120 ? t / 120 : 1;
        sum += s / (1 + s);
    }
    return sum / 200;
}

static void check_ramp(enum sim_mode mode, const char *alg)
{
    double frac[8];
    int64_t since;

    ramp_run(mode, alg, frac, &since);
    assert_true(since >= 0);
    for (int w = 0; w < 8; w++)
        if (fabs(frac[w] - ramp_want(w)) > 0.03)
            fail_msg("%s %s window %d: B's share %.4f, want %.4f",
                     mode == SIM_MODE_DES ? "des" : "fluid", alg, w, frac[w], ramp_want(w));
    assert_true(frac[0] < 0.1);
    assert_true(fabs(frac[7] - 0.5) < 0.03);
}

/* A target that becomes healthy beside a full one gets a share rising linearly from 0
 * to a full target's over the group's slow_start duration; with least_outstanding_requests
 * slow start does not apply: its full share at once. Both modes. */
static void test_alb_slow_start_ramps_a_new_targets_share(void **state)
{
    double frac[8];
    int64_t since;

    (void)state;
    check_ramp(SIM_MODE_DES, "round_robin");
    check_ramp(SIM_MODE_FLUID, "round_robin");
    check_ramp(SIM_MODE_DES, "weighted_random");
    check_ramp(SIM_MODE_FLUID, "weighted_random");
    for (int mode = 0; mode < 2; mode++) {
        ramp_run(mode ? SIM_MODE_FLUID : SIM_MODE_DES, "least_outstanding_requests", frac, &since);
        assert_true(since == -1);
        for (int w = 0; w < 8; w++)
            if (fabs(frac[w] - 0.5) > 0.03)
                fail_msg("least outstanding window %d: B's share %.4f, want 0.5", w, frac[w]);
    }
}

/* The share of the requests the group failed over 20 s after B, healthy, got 20 times
 * slower (8 workers at 200 ms: 40 req/s, queue 20). */
static double slow_b_failed(enum sim_mode mode, const char *alg)
{
    struct sim_lb_counters c0, c1;
    struct fx f;
    int a, b, route;
    int64_t since;

    two_targets(&f, mode, "0s", alg, &a, &b, &since);
    assert_true(since == -1);
    route = f.sc->nlbs;
    sim_model_instance_slow(f.e.model, b, 20, f.e.now_ms * 1000, 0);
    sim_model_lb_counters(f.e.model, route, &c0);
    /* two rounds: its full queue fails one health check, not yet the two that take it out */
    for (int k = 0; k < 2; k++)
        ramp_step(&f);
    sim_model_lb_counters(f.e.model, route, &c1);
    sim_model_destroy(f.e.model);
    destroy(&f);
    return (c1.failed - c0.failed) / (c1.arrived - c0.arrived);
}

/* DES picks by the group's algorithm (docs/elbv2.md 10.3): round_robin gives a slow target
 * its turn (half of 200 req/s against 40 it can serve: 3/10 of all fail) and so does
 * weighted_random's draw, least_outstanding_requests sends it only what it can keep up with
 * (none fail). */
static void test_alb_target_group_algorithm_picks_in_des(void **state)
{
    double rr = slow_b_failed(SIM_MODE_DES, "round_robin");
    double wr = slow_b_failed(SIM_MODE_DES, "weighted_random");
    double lor = slow_b_failed(SIM_MODE_DES, "least_outstanding_requests");

    (void)state;
    if (fabs(rr - 0.3) > 0.03 || fabs(wr - 0.3) > 0.03 || lor != 0)
        fail_msg("failed shares: round robin %.4f, weighted random %.4f, least outstanding %.4f",
                 rr, wr, lor);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_alb_plan_routes_by_the_rules),
        cmocka_unit_test(test_run_alb_label_gets_the_ids),
        cmocka_unit_test(test_run_alb_library_errors_name_the_path),
        cmocka_unit_test(test_run_alb_closed_phase_needs_one_target_group),
        cmocka_unit_test(test_alb_slow_start_ramps_a_new_targets_share),
        cmocka_unit_test(test_alb_target_group_algorithm_picks_in_des),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
