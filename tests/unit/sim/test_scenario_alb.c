/* tests/unit/sim/test_scenario_alb.c: the scenario's Application Load Balancers
 * (scaler/sim/scenario_alb.c): target groups, ALBs, listeners, rules and a phase's request
 * mix parse into the right values; unknown keys get a "did you mean", references to unknown
 * target groups and load balancers are errors with the JSON path. */
#include "scaler/sim/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/elbv2.h"

static const char *base =
    "{\"duration\":\"1h\",\"infrastructure\":{"
    "\"target_groups\":[{\"name\":\"api-tg\",\"port\":8080,\"health_check\":{\"path\":\"/h\","
    "\"matcher\":200,\"interval\":10,\"timeout\":4,\"healthy_threshold\":2,"
    "\"unhealthy_threshold\":3},\"deregistration_delay\":\"45s\",\"slow_start\":\"1m\","
    "\"algorithm\":\"least_outstanding_requests\"},{\"name\":\"web-tg\"}],"
    "\"albs\":[{\"name\":\"front\",\"listeners\":[{\"port\":80,"
    "\"default_action\":{\"fixed_response\":{\"status\":404,\"body\":\"no\"}},"
    "\"rules\":[{\"priority\":10,\"conditions\":{\"path_pattern\":[\"/api/*\"],"
    "\"http_header\":{\"name\":\"X-Env\",\"values\":[\"beta\"]},"
    "\"query_string\":[{\"key\":\"v\",\"value\":\"2\"},{\"value\":\"x\"}]},"
    "\"action\":{\"forward\":[{\"target_group\":\"api-tg\",\"weight\":3},"
    "{\"target_group\":\"web-tg\"}]}},"
    "{\"priority\":20,\"conditions\":{\"host_header\":\"old.example.com\"},"
    "\"action\":{\"redirect\":{\"host\":\"new.example.com\",\"status\":301}}}]}]}],"
    "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{\"service_ms\":20}}],"
    "\"groups\":[{\"name\":\"g\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":3,"
    "\"target_groups\":[\"api-tg\"]}]},"
    "\"load\":[{\"target\":\"front\",\"rate\":10,\"listener_port\":80,"
    "\"requests\":[{\"path\":\"/api/x\",\"weight\":3,\"headers\":{\"X-Env\":\"beta\"}},"
    "{\"path\":\"/\",\"host\":\"old.example.com\",\"method\":\"HEAD\","
    "\"source_ip\":\"10.0.0.1\"}]}]}";

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

static void test_scenario_alb_values(void **state)
{
    char err[SIM_ERR_MAX];
    struct sim_scenario *sc = sim_scenario_parse(base, "t.json", err);
    const struct sim_tg *t;
    const struct sim_alb_listener *l;
    const struct sim_alb_rule *r;
    const struct sim_phase *ph;

    (void)state;
    if (!sc)
        fail_msg("%s", err);
    assert_int_equal(sc->ntgs, 2);
    t = &sc->tgs[0];
    assert_string_equal(t->name, "api-tg");
    assert_string_equal(t->protocol, "HTTP");
    assert_int_equal(t->port, 8080);
    assert_string_equal(t->hc_path, "/h");
    assert_string_equal(t->hc_matcher, "200");
    assert_true(t->has_interval && t->interval_s == 10);
    assert_true(t->has_unhealthy && t->unhealthy_threshold == 3);
    assert_true(t->has_deregistration_delay && t->deregistration_delay_s == 45);
    assert_true(t->has_slow_start && t->slow_start_s == 60);
    assert_string_equal(t->algorithm, "least_outstanding_requests");
    assert_int_equal(sc->tgs[1].port, 80);
    assert_false(sc->tgs[1].has_interval);
    assert_int_equal(sc->nalbs, 1);
    l = &sc->albs[0].listeners[0];
    assert_int_equal(l->port, 80);
    assert_int_equal(l->default_action.kind, SIM_ALB_FIXED_RESPONSE);
    assert_string_equal(l->default_action.status, "404");
    assert_int_equal(l->nrules, 2);
    r = &l->rules[0];
    assert_int_equal(r->priority, 10);
    assert_int_equal(r->nconditions, 3);
    assert_int_equal(r->conditions[0].field, SC_ELBV2_PATH_PATTERN);
    assert_int_equal(r->conditions[1].field, SC_ELBV2_HTTP_HEADER);
    assert_string_equal(r->conditions[1].header_name, "X-Env");
    assert_int_equal(r->conditions[2].field, SC_ELBV2_QUERY_STRING);
    assert_string_equal(r->conditions[2].query_keys[0], "v");
    assert_null(r->conditions[2].query_keys[1]);
    assert_true(r->action.weighted);
    assert_int_equal(r->action.nforward, 2);
    assert_int_equal(r->action.forward[0].weight, 3);
    assert_int_equal(r->action.forward[1].weight, 1);
    r = &l->rules[1];
    assert_int_equal(r->conditions[0].field, SC_ELBV2_HOST_HEADER);
    assert_int_equal(r->conditions[0].nvalues, 1);
    assert_int_equal(r->action.kind, SIM_ALB_REDIRECT);
    assert_string_equal(r->action.status, "HTTP_301");
    assert_string_equal(sc->groups[0].target_groups[0], "api-tg");
    ph = &sc->phases[0];
    assert_int_equal(ph->listener_port, 80);
    assert_int_equal(ph->nrequests, 2);
    assert_string_equal(ph->requests[0].method, "GET");
    assert_string_equal(ph->requests[0].header_kv[0], "X-Env");
    assert_null(ph->requests[0].host);
    assert_string_equal(ph->requests[1].host, "old.example.com");
    assert_string_equal(ph->requests[1].source_ip, "10.0.0.1");
    sim_scenario_destroy(sc);
}

static void test_scenario_alb_bad_input_names_path(void **state)
{
    static const struct {
        const char *from, *to, *want;
    } cases[] = {
        { "\"path_pattern\"", "\"path_patern\"",
          "$.infrastructure.albs[0].listeners[0].rules[0].conditions.path_patern: unknown key "
          "(did you mean \"path_pattern\"?)" },
        { "{\"target_group\":\"web-tg\"}", "{\"target_group\":\"wep-tg\"}",
          "$.infrastructure.albs[0].listeners[0].rules[0].action.forward[1].target_group: no "
          "target group named \"wep-tg\" (did you mean \"web-tg\"?)" },
        { "\"target_groups\":[\"api-tg\"]", "\"target_groups\":[\"apitg\"]",
          "$.infrastructure.groups[0].target_groups[0]: no target group named \"apitg\" (did "
          "you mean \"api-tg\"?)" },
        { "\"target\":\"front\"", "\"target\":\"frnt\"",
          "$.load[0].target: no load balancer named \"frnt\" (did you mean \"front\"?)" },
        { "\"listener_port\":80", "\"listener_port\":81",
          "$.load[0].listener_port: ALB \"front\" has no listener on port 81" },
        { "{\"fixed_response\":{\"status\":404,\"body\":\"no\"}}",
          "{\"fixed_response\":{\"status\":404},\"forward\":\"web-tg\"}",
          "$.infrastructure.albs[0].listeners[0].default_action: give one of \"forward\", "
          "\"fixed_response\", \"redirect\"" },
        { "\"status\":301", "\"status\":307",
          "$.infrastructure.albs[0].listeners[0].rules[1].action.redirect.status: must be 301 "
          "or 302, is \"307\"" },
        { "\"algorithm\":\"least_outstanding_requests\"", "\"algorithm\":\"random\"",
          "$.infrastructure.target_groups[0].algorithm: " },
        { "{\"path\":\"/api/x\"", "{\"path\":\"api/x\"",
          "$.load[0].requests[0].path: must start with \"/\", is \"api/x\"" },
        { "\"healthy_threshold\":2", "\"healthy_treshold\":2",
          "$.infrastructure.target_groups[0].health_check.healthy_treshold: unknown key (did "
          "you mean \"healthy_threshold\"?)" },
        { "{\"name\":\"web-tg\"}", "{\"name\":\"api-tg\"}",
          "$.infrastructure.target_groups[1].name: " },
        { "\"conditions\":{\"host_header\":\"old.example.com\"}", "\"conditions\":{}",
          "$.infrastructure.albs[0].listeners[0].rules[1].conditions: needs at least one "
          "condition" },
    };
    char err[SIM_ERR_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *text = edit(cases[i].from, cases[i].to);
        struct sim_scenario *sc = sim_scenario_parse(text, "t.json", err);
        if (sc || !strstr(err, cases[i].want))
            fail_msg("case %zu: want \"%s\" in: %s", i, cases[i].want, sc ? "(parsed)" : err);
        free(text);
    }
}

/* "requests" is for a phase aimed at an ALB; a classic load balancer's phase is refused. */
static void test_scenario_alb_requests_only_for_albs(void **state)
{
    const char *text =
        "{\"duration\":\"1h\",\"infrastructure\":{\"load_balancers\":[{\"name\":\"lb\","
        "\"listeners\":[{\"lb_port\":80,\"instance_port\":80}]}],"
        "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{\"service_ms\":20}}],"
        "\"groups\":[{\"name\":\"g\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":1}]},"
        "\"load\":[{\"rate\":1,\"requests\":[{\"path\":\"/\"}]}]}";
    char err[SIM_ERR_MAX];

    (void)state;
    assert_null(sim_scenario_parse(text, "t.json", err));
    assert_non_null(strstr(err, "$.load[0].requests: only for a phase aimed at an ALB"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenario_alb_values),
        cmocka_unit_test(test_scenario_alb_bad_input_names_path),
        cmocka_unit_test(test_scenario_alb_requests_only_for_albs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
