/* tests/unit/sim/test_composite.c: infrastructure.composite_alarms: the reader's checks,
 * the run's PutCompositeAlarm (libscaler's codes and texts at the composite's path), the
 * composites' transitions in the timeline, and an Auto Scaling action of a composite shown
 * as the failed Action item it is, never a scale-out. */
#include "scaler/sim/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/sim/result.h"
#include "scaler/sim/scenario.h"
#include "scaler/sim/timeline.h"

/* A group under a load that steps from 100 to 600 req/s at 10 min; two CPU alarms without
 * actions; a simple policy "up" and a target-tracking "tt" at 100 % CPU (its alarms are
 * never breached); `composites` is the composite_alarms array's text. */
static char *scenario_text(const char *composites)
{
    char *text = malloc(8192);

    snprintf(text, 8192,
             "{\"duration\":\"30m\",\"infrastructure\":{"
             "\"load_balancers\":[{\"name\":\"lb\",\"listeners\":[{\"lb_port\":80,"
             "\"instance_port\":8080,\"protocol\":\"HTTP\"}],"
             "\"health_check\":{\"target\":\"TCP:8080\",\"interval\":5,\"timeout\":3,"
             "\"unhealthy_threshold\":2,\"healthy_threshold\":2}}],"
             "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{\"workers\":4,"
             "\"service_ms\":{\"mean\":20}}}],"
             "\"groups\":[{\"name\":\"g\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":4,"
             "\"load_balancers\":[\"lb\"]}],"
             "\"policies\":[{\"name\":\"up\",\"group\":\"g\",\"type\":\"SimpleScaling\","
             "\"adjustment_type\":\"ChangeInCapacity\",\"adjustment\":1},"
             "{\"name\":\"tt\",\"group\":\"g\",\"type\":\"TargetTrackingScaling\","
             "\"target\":{\"value\":100}}],"
             "\"alarms\":[{\"name\":\"hot\",\"dimensions\":{\"AutoScalingGroupName\":\"g\"},"
             "\"period\":60,\"evaluation_periods\":1,\"comparison\":\">\",\"threshold\":60},"
             "{\"name\":\"warm\",\"dimensions\":{\"AutoScalingGroupName\":\"g\"},"
             "\"period\":60,\"evaluation_periods\":1,\"comparison\":\">\",\"threshold\":40}],"
             "\"composite_alarms\":%s},"
             "\"load\":[{\"at\":\"0s\",\"until\":\"30m\",\"rate\":100,"
             "\"shape\":{\"type\":\"step\",\"at\":\"10m\",\"to\":600}}]}",
             composites);
    return text;
}

static struct sim_scenario *parse(const char *composites, char *err)
{
    char *text = scenario_text(composites);
    struct sim_scenario *sc = sim_scenario_parse(text, "t.json", err);

    free(text);
    return sc;
}

/* Runs the scenario; returns sim_run's status, the timeline in *tl. */
static int run(const struct sim_scenario *sc, struct sim_timeline **tl, struct sim_run_result *res,
               char *err)
{
    struct sim_run_config rc = { 0 };

    rc.sc = sc;
    rc.mode = SIM_MODE_FLUID;
    rc.seed = 1;
    return sim_run(&rc, res, tl, err);
}

static void test_composite_keys_read(void **state)
{
    char err[SIM_ERR_MAX];
    struct sim_scenario *sc =
        parse("[{\"name\":\"both\",\"alarm_rule\":\"ALARM(hot) AND ALARM(warm)\","
              "\"actions\":[\"up\"],\"ok_actions\":[\"up\"],\"actions_enabled\":false,"
              "\"actions_suppressor\":\"warm\",\"actions_suppressor_wait_period\":120,"
              "\"actions_suppressor_extension_period\":60}]",
              err);
    (void)state;
    if (!sc)
        fail_msg("%s", err);
    assert_int_equal(sc->ncomposites, 1);
    assert_string_equal(sc->composites[0].name, "both");
    assert_string_equal(sc->composites[0].alarm_rule, "ALARM(hot) AND ALARM(warm)");
    assert_int_equal(sc->composites[0].nactions, 1);
    assert_int_equal(sc->composites[0].nok_actions, 1);
    assert_int_equal(sc->composites[0].actions_enabled, 0);
    assert_string_equal(sc->composites[0].actions_suppressor, "warm");
    assert_true(sc->composites[0].has_wait_period);
    assert_int_equal(sc->composites[0].wait_period_s, 120);
    assert_true(sc->composites[0].has_extension_period);
    assert_int_equal(sc->composites[0].extension_period_s, 60);
    sim_scenario_destroy(sc);
}

static void test_composite_reader_errors(void **state)
{
    static const struct {
        const char *composites, *want;
    } cases[] = {
        { "[{\"name\":\"c\",\"alarm_rul\":\"ALARM(hot)\"}]",
          "$.infrastructure.composite_alarms[0].alarm_rul: unknown key (did you mean "
          "\"alarm_rule\"?)" },
        { "[{\"name\":\"c\"}]", "$.infrastructure.composite_alarms[0]" },
        { "[{\"name\":\"c\",\"alarm_rule\":\"ALARM(hot)\",\"actions\":[\"upp\"]}]",
          "$.infrastructure.composite_alarms[0].actions[0]: no policy named \"upp\" (did you "
          "mean \"up\"?)" },
        { "[{\"name\":\"c\",\"alarm_rule\":\"ALARM(hot)\",\"ok_actions\":[\"tt\"]}]",
          "$.infrastructure.composite_alarms[0].ok_actions[0]: policy \"tt\" is target "
          "tracking" },
        { "[{\"name\":\"c\",\"alarm_rule\":\"ALARM(hot)\"},"
          "{\"name\":\"c\",\"alarm_rule\":\"ALARM(warm)\"}]",
          "$.infrastructure.composite_alarms[1].name: a second composite alarm named \"c\"" },
        { "[{\"name\":\"c\",\"alarm_rule\":\"ALARM(hot)\",\"actions_enabled\":1}]",
          "$.infrastructure.composite_alarms[0].actions_enabled" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char err[SIM_ERR_MAX];
        struct sim_scenario *sc = parse(cases[i].composites, err);
        if (sc)
            fail_msg("case %zu read", i);
        if (!strstr(err, cases[i].want))
            fail_msg("case %zu: %s\nwanted: %s", i, err, cases[i].want);
    }
}

/* The rule and the suppressor are PutCompositeAlarm's to check: AWS's code and text at the
 * composite's path. */
static void test_composite_put_errors_are_libscalers(void **state)
{
    static const struct {
        const char *composites, *want;
    } cases[] = {
        { "[{\"name\":\"c\",\"alarm_rule\":\"ALARM(hot) AND\"}]",
          "$.infrastructure.composite_alarms[0]: ValidationError: " },
        { "[{\"name\":\"c\",\"alarm_rule\":\"ALARM(hot) OR ALARM(cold)\"}]",
          "$.infrastructure.composite_alarms[0]: ValidationError: Could not save the "
          "composite alarm as alarms [cold] in the alarm rule do not exist" },
        { "[{\"name\":\"hot\",\"alarm_rule\":\"ALARM(warm)\"}]",
          "$.infrastructure.composite_alarms[0]: ValidationError: An alarm with the name hot "
          "already exists as a metric alarm." },
        { "[{\"name\":\"c\",\"alarm_rule\":\"ALARM(hot)\",\"actions_suppressor\":\"warm\"}]",
          "$.infrastructure.composite_alarms[0]: ValidationError: "
          "ActionsSuppressorWaitPeriod and ActionsSuppressorExtensionPeriod are required when "
          "ActionsSuppressor is specified." },
        /* a rule names a composite given before it, not one after */
        { "[{\"name\":\"c1\",\"alarm_rule\":\"ALARM(c2)\"},"
          "{\"name\":\"c2\",\"alarm_rule\":\"ALARM(hot)\"}]",
          "$.infrastructure.composite_alarms[0]: ValidationError: Could not save the "
          "composite alarm as alarms [c2] in the alarm rule do not exist" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char err[SIM_ERR_MAX];
        struct sim_run_result res;
        struct sim_scenario *sc = parse(cases[i].composites, err);
        if (!sc)
            fail_msg("case %zu: %s", i, err);
        assert_int_equal(run(sc, NULL, &res, err), 2);
        if (!strstr(err, cases[i].want))
            fail_msg("case %zu: %s\nwanted: %s", i, err, cases[i].want);
        sim_run_result_cleanup(&res);
        sim_scenario_destroy(sc);
    }
}

/* Composites evaluate when their children change; their transitions are alarm events; an
 * Auto Scaling action of theirs is a failed Action note and the group never scales. */
static void test_composite_transitions_and_no_scaling(void **state)
{
    char err[SIM_ERR_MAX];
    struct sim_timeline *tl = NULL;
    struct sim_run_result res;
    struct sim_scenario *sc =
        parse("[{\"name\":\"c1\",\"alarm_rule\":\"ALARM(hot) AND ALARM(warm)\","
              "\"actions\":[\"up\"]},"
              "{\"name\":\"c2\",\"alarm_rule\":\"ALARM(c1) AND NOT OK(warm)\"}]",
              err);
    int c1_alarm = 0, c2_alarm = 0, failed = 0, launches = 0;
    int64_t hot_ms = -1, c1_ms = -1;

    (void)state;
    if (!sc)
        fail_msg("%s", err);
    assert_int_equal(run(sc, &tl, &res, err), 0);
    for (int i = 0; i < sim_timeline_event_count(tl); i++) {
        const struct sim_event *e = sim_timeline_event(tl, i);
        if (e->kind == SIM_EVENT_ACTIVITY && strstr(e->description, "Launching"))
            launches++;
        if (e->kind != SIM_EVENT_ALARM)
            continue;
        if (strcmp(e->name, "hot") == 0 && strcmp(e->status, "ALARM") == 0 && hot_ms < 0)
            hot_ms = e->t_ms;
        if (strcmp(e->name, "c1") == 0 && strcmp(e->cause, "OK -> ALARM") == 0) {
            c1_alarm++;
            c1_ms = e->t_ms;
            assert_non_null(strstr(e->description, ":alarm:hot transitioned to ALARM at ")
                                ? e->description
                                : strstr(e->description, ":alarm:warm transitioned to ALARM at "));
        }
        if (strcmp(e->name, "c2") == 0 && strcmp(e->cause, "OK -> ALARM") == 0)
            c2_alarm++;
        if (strcmp(e->name, "c1") == 0 && strcmp(e->status, "Action") == 0) {
            failed++;
            assert_non_null(strstr(e->cause, "Failed to execute action arn:aws:autoscaling:"));
            assert_non_null(
                strstr(e->cause, "composite alarms can't trigger Auto Scaling actions"));
        }
    }
    assert_true(hot_ms > 0);
    assert_int_equal(c1_alarm, 1);
    assert_int_equal(c1_ms, hot_ms); /* evaluated when its children changed */
    assert_int_equal(c2_alarm, 1);
    assert_int_equal(failed, 1);
    assert_int_equal(launches, 1); /* the first instance only: nothing scaled */
    {
        /* the composites are alarms of the timeline after the metric alarms (and the
         * target-tracking policy's two), with their rule and no metric */
        const struct sim_timeline_config *tc = sim_timeline_config(tl);
        assert_int_equal(tc->nalarms, 6);
        assert_string_equal(tc->alarms[4].name, "c1");
        assert_string_equal(tc->alarms[4].alarm_rule, "ALARM(hot) AND ALARM(warm)");
        assert_string_equal(tc->alarms[5].alarm_rule, "ALARM(c1) AND NOT OK(warm)");
        assert_null(tc->alarms[0].alarm_rule);
    }
    sim_timeline_destroy(tl);
    sim_run_result_cleanup(&res);
    sim_scenario_destroy(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_composite_keys_read),
        cmocka_unit_test(test_composite_reader_errors),
        cmocka_unit_test(test_composite_put_errors_are_libscalers),
        cmocka_unit_test(test_composite_transitions_and_no_scaling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
