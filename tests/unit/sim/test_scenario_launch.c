/* tests/unit/sim/test_scenario_launch.c: launch templates and launch_instances in scenarios
 * (docs/scenarios.md): the reader's rules with their JSON paths, the ClientToken the run
 * sends, the run's LaunchInstances calls through libscaler and their timeline events. */
#include "scaler/sim/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/asg_launch.h"
#include "scaler/sim/run.h"
#include "scaler/sim/timeline.h"

/* A group in two zones launched from a template (or a configuration of the same name,
 * source "launch_configuration"), max 4, with the launch_instances `calls`. */
static char *text(const char *source, const char *calls)
{
    static char buf[4096];

    snprintf(
        buf, sizeof(buf),
        "{\"duration\":\"20m\",\"zones\":[\"us-east-1a\",\"us-east-1b\"],"
        "\"infrastructure\":{"
        "\"launch_templates\":[{\"name\":\"web\",\"instance_type\":\"m5.large\","
        "\"app\":{\"boot_s\":30,\"service_ms\":{\"mean\":10}}}],"
        "\"launch_configurations\":[{\"name\":\"web\",\"app\":{\"service_ms\":{\"mean\":20}}}],"
        "\"groups\":[{\"name\":\"g.1\",\"%s\":\"web\",\"min\":1,\"max\":4,"
        "\"launch_instances\":[%s]}]}}",
        source, calls);
    return buf;
}

static struct sim_scenario *parse_ok(const char *t)
{
    char err[SIM_ERR_MAX];
    struct sim_scenario *sc = sim_scenario_parse(t, "t.json", err);

    if (!sc)
        fail_msg("%s", err);
    return sc;
}

/* The reader's errors for t must contain want. */
static void parse_bad(const char *t, const char *want)
{
    char err[SIM_ERR_MAX];
    struct sim_scenario *sc = sim_scenario_parse(t, "t.json", err);

    assert_null(sc);
    if (!strstr(err, want))
        fail_msg("want \"%s\" in:\n%s", want, err);
}

static void test_launch_template_is_read_like_a_launch_configuration(void **state)
{
    struct sim_scenario *sc = parse_ok(text("launch_template", ""));
    int lt;

    (void)state;
    assert_int_equal(sc->nlcs, 2);
    assert_int_equal(sc->nlts, 1);
    lt = sim_scenario_lt_index(sc, "web");
    assert_int_equal(lt, 1);
    assert_int_equal(sc->lcs[lt].template, 1);
    assert_string_equal(sc->lcs[lt].instance_type, "m5.large");
    assert_string_equal(sc->lcs[lt].path, "$.infrastructure.launch_templates[0]");
    /* two namespaces, as AWS's: the configuration of the same name is another entry */
    assert_int_equal(sim_scenario_lc_index(sc, "web"), 0);
    assert_int_equal(sim_scenario_group_lc(sc, &sc->groups[0]), 1);
    assert_null(sc->groups[0].launch_configuration);
    sim_scenario_destroy(sc);
}

static void test_group_launches_from_exactly_one_source(void **state)
{
    char t[4096];

    (void)state;
    snprintf(t, sizeof(t), "%s", text("launch_template", ""));
    *strstr(t, "\"launch_template\"") = '\0';
    strcat(t, "\"min\":1,\"max\":4}]}}");
    parse_bad(t, "$.infrastructure.groups[0]: missing required key \"launch_configuration\" (or "
                 "\"launch_template\")");
    parse_bad(text("launch_configuration\":\"web\",\"launch_template", ""),
              "$.infrastructure.groups[0].launch_template: not with \"launch_configuration\"");
}

static void test_launch_template_reference_did_you_mean(void **state)
{
    char t[4096], *p;

    (void)state;
    snprintf(t, sizeof(t), "%s", text("launch_template", ""));
    p = strstr(t, "\"launch_template\":\"web\"");
    memcpy(p, "\"launch_template\":\"wab\"", 23);
    parse_bad(t, "$.infrastructure.groups[0].launch_template: no launch template named \"wab\" "
                 "(did you mean \"web\"?)");
}

static void test_launch_template_names_unique(void **state)
{
    (void)state;
    parse_bad("{\"duration\":\"20m\",\"infrastructure\":{"
              "\"launch_templates\":[{\"name\":\"web\",\"app\":{\"service_ms\":1}},"
              "{\"name\":\"web\",\"app\":{\"service_ms\":2}}],"
              "\"groups\":[{\"name\":\"g\",\"launch_template\":\"web\",\"min\":1,\"max\":4}]}}",
              "$.infrastructure.launch_templates[1].name: a second launch template named "
              "\"web\"");
}

static void test_launch_requested_capacity_at_least_1(void **state)
{
    (void)state;
    parse_bad(
        text("launch_template", "{\"at\":\"5m\",\"requested_capacity\":0,\"zone\":\"us-east-1a\"}"),
        "$.infrastructure.groups[0].launch_instances[0].requested_capacity: must be >= 1");
    parse_bad(text("launch_template", "{\"at\":\"5m\",\"zone\":\"us-east-1a\"}"),
              "$.infrastructure.groups[0].launch_instances[0]: missing required key "
              "\"requested_capacity\"");
}

static void test_launch_retry_strategy_enum_did_you_mean(void **state)
{
    (void)state;
    parse_bad(text("launch_template",
                   "{\"at\":\"5m\",\"requested_capacity\":1,\"retry_strategy\":\"nonee\"}"),
              "$.infrastructure.groups[0].launch_instances[0].retry_strategy: must be one of none, "
              "retry-with-group-configuration, not \"nonee\" (did you mean \"none\"?)");
}

static void test_launch_zone_must_be_the_groups(void **state)
{
    (void)state;
    parse_bad(text("launch_template",
                   "{\"at\":\"5m\",\"requested_capacity\":1,\"zone\":\"us-east-1a\"},"
                   "{\"at\":\"6m\",\"requested_capacity\":1,\"zone\":\"us-east-1c\"}"),
              "$.infrastructure.groups[0].launch_instances[1].zone: \"us-east-1c\" is not one of "
              "the group's zones (us-east-1a, us-east-1b)");
}

static void test_launch_unknown_key_did_you_mean(void **state)
{
    (void)state;
    parse_bad(text("launch_template", "{\"at\":\"5m\",\"requested_capacity\":1,\"zones\":[]}"),
              "$.infrastructure.groups[0].launch_instances[0].zones: unknown key (did you mean "
              "\"zone\"?)");
}

static void test_launch_token_default_prefix_and_length(void **state)
{
    struct sim_scenario *sc = parse_ok(text(
        "launch_template",
        "{\"at\":\"5m\",\"requested_capacity\":1,\"zone\":\"us-east-1a\"},"
        "{\"at\":\"6m\",\"requested_capacity\":1,\"zone\":\"us-east-1a\",\"client_token\":\"t-1\"}"));
    char tok[128];

    (void)state;
    /* made from the group's name with "." (outside the token's pattern) as "-" */
    sim_launch_token(sc, 0, 0, NULL, tok, sizeof(tok));
    assert_string_equal(tok, "g-1-launch-1");
    sim_launch_token(sc, 0, 0, "sl-1", tok, sizeof(tok));
    assert_string_equal(tok, "sl-1-g-1-launch-1");
    sim_launch_token(sc, 0, 1, NULL, tok, sizeof(tok));
    assert_string_equal(tok, "t-1");
    sim_launch_token(sc, 0, 1, "sl-1", tok, sizeof(tok));
    assert_string_equal(tok, "sl-1-t-1");
    /* a prefix never makes it longer than ClientToken's 64 */
    sim_launch_token(sc, 0, 1, "p123456789p123456789p123456789p123456789p123456789p123456789", tok,
                     sizeof(tok));
    assert_int_equal(strlen(tok), SC_ASG_CLIENT_TOKEN_LEN - 1);
    sim_scenario_destroy(sc);
}

/* The run's launch events, in order, with their statuses and texts. */
static struct sim_timeline *run(const struct sim_scenario *sc)
{
    struct sim_run_config rc = { 0 };
    struct sim_run_result res;
    struct sim_timeline *tl = NULL;
    char err[SIM_ERR_MAX];

    rc.sc = sc;
    rc.mode = SIM_MODE_DES;
    rc.seed = 1;
    assert_int_equal(sim_run(&rc, &res, &tl, err), 0);
    sim_run_result_cleanup(&res);
    return tl;
}

static const struct sim_event *launch_event(const struct sim_timeline *tl, int k)
{
    for (int i = 0; i < sim_timeline_event_count(tl); i++) {
        const struct sim_event *e = sim_timeline_event(tl, i);

        if (e->kind == SIM_EVENT_LAUNCH && k-- == 0)
            return e;
    }
    fail_msg("no launch event %d", k);
    return NULL;
}

static void test_run_launch_instances_at_their_times(void **state)
{
    struct sim_scenario *sc = parse_ok(text(
        "launch_template",
        "{\"at\":\"5m\",\"requested_capacity\":2,\"zone\":\"us-east-1b\",\"client_token\":\"a\"},"
        "{\"at\":\"6m\",\"requested_capacity\":2,\"zone\":\"us-east-1b\",\"client_token\":\"a\"},"
        "{\"at\":\"7m\",\"requested_capacity\":2,\"zone\":\"us-east-1a\"},"
        "{\"at\":\"8m\",\"requested_capacity\":1,\"retry_strategy\":\"none\"}"));
    struct sim_timeline *tl = run(sc);
    const struct sim_event *e;
    char first[SIM_EVENT_TEXT_MAX];

    (void)state;
    e = launch_event(tl, 0);
    assert_int_equal(e->t_ms - sc->start_ms, 300000);
    assert_string_equal(e->group, "g.1");
    assert_string_equal(e->name, "a");
    assert_string_equal(e->status, "Successful");
    assert_string_equal(e->cause, "RequestedCapacity 2, AvailabilityZones us-east-1b");
    assert_non_null(strstr(e->description, "launched 2 (m5.large in us-east-1b): i-"));
    snprintf(first, sizeof(first), "%s", e->description);
    /* the same token and parameters: the first reply again, nothing launched */
    e = launch_event(tl, 1);
    assert_string_equal(e->status, "Successful");
    assert_string_equal(e->description, first);
    /* 3 + 2 > MaxSize 4: refused with SetDesiredCapacity's text */
    e = launch_event(tl, 2);
    assert_string_equal(e->name, "g-1-launch-3");
    assert_string_equal(e->status, "ValidationError");
    assert_string_equal(e->description, "New SetDesiredCapacity value 5 is above max value 4 for "
                                        "the AutoScalingGroup.");
    /* two zones and none given */
    e = launch_event(tl, 3);
    assert_string_equal(e->status, "ValidationError");
    assert_string_equal(e->cause, "RequestedCapacity 1, RetryStrategy none");
    assert_non_null(strstr(e->description, "Either AvailabilityZones, AvailabilityZoneIds or "
                                           "SubnetIds must be specified"));
    sim_timeline_destroy(tl);
    sim_scenario_destroy(sc);
}

static void test_run_launch_instances_refused_for_a_launch_configuration(void **state)
{
    struct sim_scenario *sc =
        parse_ok(text("launch_configuration",
                      "{\"at\":\"5m\",\"requested_capacity\":1,\"zone\":\"us-east-1a\"}"));
    struct sim_timeline *tl = run(sc);
    const struct sim_event *e = launch_event(tl, 0);

    (void)state;
    assert_string_equal(e->status, "ValidationError");
    assert_string_equal(
        e->description,
        "LaunchInstances does not support Auto Scaling groups that use launch "
        "configurations. Migrate the group g.1 to a launch template and try again.");
    sim_timeline_destroy(tl);
    sim_scenario_destroy(sc);
}

static void test_event_from_launch_status_by_reply(void **state)
{
    struct sim_launch l = { 0 };
    struct sc_asg_launch_item inst = { 0 }, errs = { 0 };
    struct sc_asg_launch_info rep = { 0 };
    char ids[2][SC_ASG_ID_LEN] = { "i-1", "i-2" };
    char cause[256], line[512];
    struct sim_event e;

    (void)state;
    l.requested_capacity = 3;
    snprintf(inst.instance_type, sizeof(inst.instance_type), "t3.micro");
    snprintf(inst.availability_zone, sizeof(inst.availability_zone), "us-east-1a");
    inst.instance_ids = ids;
    inst.ninstance_ids = 2;
    errs.error_code = "InsufficientInstanceCapacity";
    errs.error_message = "no room";
    rep.instances = &inst;
    rep.ninstances = 1;
    sim_event_from_launch(&e, 5, "g", &l, "tok", &rep, NULL, NULL, cause, sizeof(cause), line,
                          sizeof(line));
    assert_int_equal(e.kind, SIM_EVENT_LAUNCH);
    assert_string_equal(e.status, "Successful");
    assert_string_equal(e.description, "launched 2 (t3.micro in us-east-1a): i-1 i-2");
    assert_ptr_equal(e.launch, &rep);
    rep.errors = &errs;
    rep.nerrors = 1;
    sim_event_from_launch(&e, 5, "g", &l, "tok", &rep, NULL, NULL, cause, sizeof(cause), line,
                          sizeof(line));
    assert_string_equal(e.status, "Partial");
    assert_string_equal(e.description, "launched 2 (t3.micro in us-east-1a): i-1 i-2; "
                                       "InsufficientInstanceCapacity: no room");
    rep.ninstances = 0;
    sim_event_from_launch(&e, 5, "g", &l, "tok", &rep, NULL, NULL, cause, sizeof(cause), line,
                          sizeof(line));
    assert_string_equal(e.status, "Failed");
    sim_event_from_launch(&e, 5, "g", &l, "tok", NULL, "ValidationError", "bad", cause,
                          sizeof(cause), line, sizeof(line));
    assert_string_equal(e.status, "ValidationError");
    assert_string_equal(e.description, "bad");
    assert_null(e.launch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_template_is_read_like_a_launch_configuration),
        cmocka_unit_test(test_group_launches_from_exactly_one_source),
        cmocka_unit_test(test_launch_template_reference_did_you_mean),
        cmocka_unit_test(test_launch_template_names_unique),
        cmocka_unit_test(test_launch_requested_capacity_at_least_1),
        cmocka_unit_test(test_launch_retry_strategy_enum_did_you_mean),
        cmocka_unit_test(test_launch_zone_must_be_the_groups),
        cmocka_unit_test(test_launch_unknown_key_did_you_mean),
        cmocka_unit_test(test_launch_token_default_prefix_and_length),
        cmocka_unit_test(test_run_launch_instances_at_their_times),
        cmocka_unit_test(test_run_launch_instances_refused_for_a_launch_configuration),
        cmocka_unit_test(test_event_from_launch_status_by_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
