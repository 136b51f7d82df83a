/* tests/unit/sim/test_run_alb.c: the simulator's ALB glue (scaler/sim/run_alb.c): the
 * records go through libscaler (its errors carry the scenario's path), each phase's request
 * mix is routed by sc_elbv2_route into shares per target group and per answer of the load
 * balancer, and a resource label written with names gets the ids libscaler made. */
#include "scaler/sim/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/elbv2.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_alb_plan_routes_by_the_rules),
        cmocka_unit_test(test_run_alb_label_gets_the_ids),
        cmocka_unit_test(test_run_alb_library_errors_name_the_path),
        cmocka_unit_test(test_run_alb_closed_phase_needs_one_target_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
