/* tests/unit/scaler/test_lint.c: scaler/lint.c, the error reporting of every reader of a
 * user's file, through both of its readers: the application profile (scaler/app.c) and
 * the scenario file (scaler/sim/scenario.c). Every error of a file is reported, unknown
 * keys get a "did you mean", a dimension naming no group or load balancer of the scenario
 * is an error, and a warning with SIM_SCENARIO_LENIENT. */
#include "scaler/lint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/app.h"
#include "scaler/sim/scenario.h"

/* A valid scenario: one load balancer "web-lb", one group "web-asg", a simple policy and
 * an alarm on the group's CPU acting on it, a target-tracking policy on metric math. */
static const char *base =
    "{\"duration\":\"1h\",\"infrastructure\":{"
    "\"load_balancers\":[{\"name\":\"web-lb\",\"listeners\":[{\"lb_port\":80,"
    "\"instance_port\":8080}]}],"
    "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{\"workers\":2}}],"
    "\"groups\":[{\"name\":\"web-asg\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":4,"
    "\"load_balancers\":[\"web-lb\"]}],"
    "\"policies\":[{\"name\":\"up\",\"group\":\"web-asg\",\"adjustment_type\":"
    "\"ChangeInCapacity\",\"adjustment\":1},"
    "{\"name\":\"tt\",\"group\":\"web-asg\",\"type\":\"TargetTrackingScaling\","
    "\"target\":{\"value\":50,\"metrics\":[{\"id\":\"m1\",\"metric\":{\"namespace\":"
    "\"AWS/EC2\",\"name\":\"CPUUtilization\",\"stat\":\"Average\","
    "\"dimensions\":{\"AutoScalingGroupName\":\"web-asg\"}}}]}}],"
    "\"alarms\":[{\"name\":\"lat\",\"namespace\":\"AWS/ELB\",\"metric\":\"Latency\","
    "\"dimensions\":{\"LoadBalancerName\":\"web-lb\"},\"comparison\":\">\","
    "\"threshold\":1,\"actions\":[\"up\"]},"
    "{\"name\":\"high\",\"dimensions\":{\"AutoScalingGroupName\":\"web-asg\"},"
    "\"comparison\":\">\",\"threshold\":80,\"actions\":[\"up\"]}]},"
    "\"load\":[{\"rate\":10}],"
    "\"expect\":[{\"throughout\":true,\"failed_pct\":{\"max\":1}}]}";

/* base with each (from, to) pair replaced once, in order. */
static char *edit(const char *const *pairs)
{
    char *s = strdup(base);

    for (; pairs[0]; pairs += 2) {
        char *p = strstr(s, pairs[0]);
        char *out;
        size_t n;

        if (!p)
            fail_msg("'%s' is not in the scenario", pairs[0]);
        n = strlen(s) - strlen(pairs[0]) + strlen(pairs[1]) + 1;
        out = malloc(n);
        assert_non_null(out);
        memcpy(out, s, (size_t)(p - s));
        strcpy(out + (p - s), pairs[1]);
        strcat(out, p + strlen(pairs[0]));
        free(s);
        s = out;
    }
    return s;
}

static int count_lines(const char *s)
{
    int n = s[0] != '\0';

    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void want_line(const char *all, const char *line)
{
    const char *s = all;
    size_t n = strlen(line);

    while ((s = strstr(s, line)) != NULL) {
        if ((s == all || s[-1] == '\n') && (s[n] == '\n' || s[n] == '\0'))
            return;
        s++;
    }
    fail_msg("no line '%s' in:\n%s", line, all);
}

static void test_lint_base_is_valid(void **state)
{
    char err[SIM_ERR_MAX];
    struct sim_scenario *sc = sim_scenario_parse(base, "scenario.json", err);

    (void)state;
    if (!sc)
        fail_msg("%s", err);
    assert_string_equal(sc->warnings, "");
    sim_scenario_destroy(sc);
}

/* Every error of a file is reported, in the order of the file, not only the first: unknown
 * keys at several levels, wrong values in several objects, references naming nothing. */
static void test_lint_reports_every_error(void **state)
{
    static const char *const pairs[] = { "\"duration\":\"1h\"",
                                         "\"duration\":\"1h\",\"sead\":3",
                                         "\"workers\":2",
                                         "\"workers\":0",
                                         "\"min\":1,\"max\":4",
                                         "\"min\":1,\"max\":\"4\",\"mni\":1",
                                         "\"threshold\":80",
                                         "\"threshold\":80,\"periodd\":60",
                                         "\"rate\":10",
                                         "\"rate\":-10",
                                         "\"actions\":[\"up\"]}]}",
                                         "\"actions\":[\"upp\"]}]}",
                                         NULL };
    char err[SIM_ERR_MAX];
    char *text = edit(pairs);
    struct sim_scenario *sc = sim_scenario_parse(text, "scenario.json", err);

    (void)state;
    assert_null(sc);
    want_line(err, "$.sead: unknown key (did you mean \"seed\"?)");
    want_line(err, "$.infrastructure.launch_configurations[0].app.workers: must be >= 1");
    want_line(err, "$.infrastructure.groups[0].mni: unknown key (did you mean \"min\"?)");
    want_line(err, "$.infrastructure.groups[0].max: must be an integer, not a string");
    want_line(err, "$.infrastructure.alarms[1].periodd: unknown key (did you mean \"period\"?)");
    want_line(err, "$.load[0].rate: must be >= 0");
    want_line(err, "$.infrastructure.alarms[1].actions[0]: no policy named \"upp\" (did you "
                   "mean \"up\"?)");
    assert_int_equal(count_lines(err), 7);
    /* the file's order: the top level first, the references last */
    assert_true(strstr(err, "$.sead") < strstr(err, "app.workers"));
    assert_true(strstr(err, "$.load[0]") < strstr(err, "actions[0]"));
    free(text);

    /* the application profile's reader shares the reporting: both its unknown keys */
    {
        char e[512];
        struct sc_app a;
        assert_int_equal(sc_app_parse_text(&a, "{\"wrokers\":2,\"bot_s\":1}", e, sizeof(e)),
                         SC_ERR_VALIDATION);
        assert_string_equal(e, "wrokers: unknown key (did you mean \"workers\"?)\n"
                               "bot_s: unknown key (did you mean \"boot_s\"?)");
    }

    /* more errors than the buffer holds: the last line says how many were left out */
    {
        struct sc_lint l;
        char small[120];
        sc_lint_init(&l, small, sizeof(small), NULL, 0);
        for (int i = 0; i < 10; i++)
            sc_lint_fail(&l, "$.x", "error %d", i);
        sc_lint_finish(&l);
        assert_int_equal(sc_lint_errors(&l), 10);
        assert_non_null(strstr(small, "$.x: error 0\n"));
        assert_non_null(strstr(small, "more errors not shown)"));
    }
}

/* Within one object every wrong value is reported, not only the first, beside its
 * unknown keys: a group, an alarm, a listener, a policy and the application profile each
 * with several. */
static void test_lint_reports_every_wrong_value_of_an_object(void **state)
{
    static const char *const pairs[] = {
        "\"lb_port\":80,\"instance_port\":8080",
        "\"lb_port\":0,\"instance_port\":\"x\",\"protocol\":\"FTP\"",
        "\"workers\":2",
        "\"workers\":0,\"slow\":-1,\"error_rate\":2",
        "\"min\":1,\"max\":4",
        "\"min\":\"1\",\"max\":-4,\"health_check_type\":\"ELX\",\"default_cooldwn\":1",
        "\"adjustment_type\":\"ChangeInCapacity\",\"adjustment\":1",
        "\"adjustment_type\":\"Change\",\"adjustment\":\"1\",\"cooldown\":-1",
        "\"comparison\":\">\",\"threshold\":80",
        "\"comparison\":\"~\",\"threshold\":\"80\",\"period\":0",
        NULL
    };
    char err[SIM_ERR_MAX];
    char *text = edit(pairs);
    struct sim_scenario *sc = sim_scenario_parse(text, "scenario.json", err);

    (void)state;
    assert_null(sc);
    want_line(err, "$.infrastructure.load_balancers[0].listeners[0].lb_port: must be >= 1");
    want_line(err, "$.infrastructure.load_balancers[0].listeners[0].instance_port: must be an "
                   "integer, not a string");
    want_line(err, "$.infrastructure.load_balancers[0].listeners[0].protocol: must be one of "
                   "HTTP, HTTPS, TCP, SSL, not \"FTP\"");
    want_line(err, "$.infrastructure.launch_configurations[0].app.workers: must be >= 1");
    want_line(err, "$.infrastructure.launch_configurations[0].app.error_rate: must be <= 1");
    want_line(err, "$.infrastructure.launch_configurations[0].app.slow: must be >= 0");
    want_line(err, "$.infrastructure.groups[0].default_cooldwn: unknown key (did you mean "
                   "\"default_cooldown\"?)");
    want_line(err, "$.infrastructure.groups[0].min: must be an integer, not a string");
    want_line(err, "$.infrastructure.groups[0].max: must be >= 0");
    want_line(err, "$.infrastructure.groups[0].health_check_type: must be one of EC2, ELB, not "
                   "\"ELX\" (did you mean \"ELB\"?)");
    want_line(err, "$.infrastructure.policies[0].adjustment_type: must be one of "
                   "ChangeInCapacity, ExactCapacity, PercentChangeInCapacity, not \"Change\"");
    want_line(err, "$.infrastructure.policies[0].adjustment: must be an integer, not a string");
    want_line(err, "$.infrastructure.policies[0].cooldown: must be >= 0");
    want_line(err, "$.infrastructure.alarms[1].period: must be >= 1");
    want_line(err, "$.infrastructure.alarms[1].comparison: must be >, >=, <, <= or an AWS "
                   "ComparisonOperator, not \"~\"");
    want_line(err, "$.infrastructure.alarms[1].threshold: must be a number, not a string");
    assert_int_equal(count_lines(err), 16);
    /* the object's order: its keys as the reader takes them */
    assert_true(strstr(err, "groups[0].min") < strstr(err, "groups[0].max"));
    free(text);
}

/* A wrong value does not hide the checks that do not need it: with max wrong, desired is
 * still checked against min (and with min wrong, against max); with a policy's type
 * wrong (named with the type it is a typo of), the keys every type takes are still
 * checked. */
static void test_lint_checks_what_a_wrong_value_leaves(void **state)
{
    static const char *const pairs[] = {
        "\"min\":1,\"max\":4", "\"min\":3,\"max\":\"4\",\"desired\":2",
        "\"type\":\"TargetTrackingScaling\",",
        "\"type\":\"TargetTrackingScalng\",\"estimated_instance_warmup\":-1,", NULL
    };
    static const char *const pairs2[] = { "\"min\":1,\"max\":4",
                                          "\"min\":\"1\",\"max\":4,\"desired\":5", NULL };
    char err[SIM_ERR_MAX];
    char *text = edit(pairs);
    struct sim_scenario *sc = sim_scenario_parse(text, "scenario.json", err);

    (void)state;
    assert_null(sc);
    want_line(err, "$.infrastructure.groups[0].max: must be an integer, not a string");
    want_line(err, "$.infrastructure.groups[0].desired: must be >= min (3), is 2");
    want_line(err, "$.infrastructure.policies[1].type: must be one of SimpleScaling, "
                   "StepScaling, TargetTrackingScaling, PredictiveScaling, not "
                   "\"TargetTrackingScalng\" (did you mean \"TargetTrackingScaling\"?)");
    want_line(err, "$.infrastructure.policies[1].estimated_instance_warmup: must be >= 0");
    assert_int_equal(count_lines(err), 4);
    free(text);

    text = edit(pairs2);
    sc = sim_scenario_parse(text, "scenario.json", err);
    assert_null(sc);
    want_line(err, "$.infrastructure.groups[0].min: must be an integer, not a string");
    want_line(err, "$.infrastructure.groups[0].desired: must be <= max (4), is 5");
    assert_int_equal(count_lines(err), 2);
    free(text);
}

/* An unknown key names the allowed key it is a typo of (edit distance, swaps count 1); a
 * key close to none gets no guess. */
static void test_lint_did_you_mean_unknown_key(void **state)
{
    static const char *const keys[] = {
        "name", "min", "max", "desired", "health_check_grace_period", NULL
    };
    char err[SIM_ERR_MAX];
    struct sim_scenario *sc;
    char *text;

    (void)state;
    assert_int_equal(sc_lint_distance("threshold", "threshold"), 0);
    assert_int_equal(sc_lint_distance("thershold", "threshold"), 1); /* a swap */
    assert_int_equal(sc_lint_distance("desird", "desired"), 1);
    assert_int_equal(sc_lint_distance("", "abc"), 3);
    assert_string_equal(sc_lint_suggest("desird", keys), "desired");
    assert_string_equal(sc_lint_suggest("nmae", keys), "name");
    assert_string_equal(sc_lint_suggest("health_check_grace", keys) ? "x" : "none", "none");
    assert_string_equal(sc_lint_suggest("health_check_grace_perod", keys),
                        "health_check_grace_period");
    assert_null(sc_lint_suggest("zones", keys));
    assert_null(sc_lint_suggest("min", keys)); /* a key itself */
    assert_string_equal(sc_lint_suggest("mi", keys), "min");
    assert_null(sc_lint_suggest("x", keys)); /* too short to guess from */

    {
        static const char *const pairs[] = { "\"min\":1,", "\"mn\":1,\"desird\":2,\"zzz\":1,",
                                             NULL };
        text = edit(pairs);
    }
    sc = sim_scenario_parse(text, "scenario.json", err);
    assert_null(sc);
    want_line(err, "$.infrastructure.groups[0].desird: unknown key (did you mean \"desired\"?)");
    want_line(err, "$.infrastructure.groups[0].zzz: unknown key");
    /* "mn" is one edit from "min" and "max": the first of the table */
    want_line(err, "$.infrastructure.groups[0].mn: unknown key (did you mean \"min\"?)");
    free(text);
}

/* An alarm's or a policy's dimension naming no group or load balancer of the scenario is an
 * error, with the closest name; other dimensions (InstanceId, ...) are not checked. */
static void test_lint_dimension_names_no_group(void **state)
{
    static const char *const pairs[] = {
        "{\"LoadBalancerName\":\"web-lb\"}",
        "{\"LoadBalancerName\":\"web-lbb\"}",
        "\"dimensions\":{\"AutoScalingGroupName\":\"web-asg\"},\"comparison\"",
        "\"dimensions\":{\"AutoScalingGroupName\":\"web-asgg\",\"InstanceId\":\"i-1\"},"
        "\"comparison\"",
        "\"dimensions\":{\"AutoScalingGroupName\":\"web-asg\"}}}]",
        "\"dimensions\":{\"AutoScalingGroupName\":\"db\"}}}]",
        NULL
    };
    char err[SIM_ERR_MAX];
    char *text = edit(pairs);
    struct sim_scenario *sc = sim_scenario_parse(text, "scenario.json", err);

    (void)state;
    assert_null(sc);
    want_line(err, "$.infrastructure.policies[1].target.metrics[0].metric.dimensions."
                   "AutoScalingGroupName: \"db\" names no group of the scenario");
    want_line(err, "$.infrastructure.alarms[0].dimensions.LoadBalancerName: \"web-lbb\" names "
                   "no load balancer of the scenario (did you mean \"web-lb\"?)");
    want_line(err, "$.infrastructure.alarms[1].dimensions.AutoScalingGroupName: \"web-asgg\" "
                   "names no group of the scenario (did you mean \"web-asg\"?)");
    assert_int_equal(count_lines(err), 3);
    free(text);
}

/* With SIM_SCENARIO_LENIENT the dimensions naming nothing are warnings and the file loads;
 * every other error stays one (an expectation's group has nothing to check). */
static void test_lint_lenient_warns(void **state)
{
    static const char *const pairs[] = {
        "\"dimensions\":{\"AutoScalingGroupName\":\"web-asg\"},\"comparison\"",
        "\"dimensions\":{\"AutoScalingGroupName\":\"web-asgg\"},\"comparison\"", NULL
    };
    static const char *const worse[] = {
        "\"dimensions\":{\"AutoScalingGroupName\":\"web-asg\"},\"comparison\"",
        "\"dimensions\":{\"AutoScalingGroupName\":\"web-asgg\"},\"comparison\"",
        "{\"throughout\":true,\"failed_pct\":{\"max\":1}}",
        "{\"at\":\"30m\",\"group\":\"web-asgg\",\"in_service\":{\"min\":1}}", NULL
    };
    char err[SIM_ERR_MAX];
    char *text = edit(pairs);
    struct sim_scenario *sc = sim_scenario_parse(text, "scenario.json", err);

    (void)state;
    assert_null(sc); /* strict: an error */
    sc = sim_scenario_parse_flags(text, "scenario.json", SIM_SCENARIO_LENIENT, err);
    if (!sc)
        fail_msg("%s", err);
    assert_int_equal(sc->nwarnings, 1);
    assert_string_equal(sc->warnings, "$.infrastructure.alarms[1].dimensions.AutoScalingGroupName: "
                                      "\"web-asgg\" names no group of the scenario (did you mean "
                                      "\"web-asg\"?): it never gets data");
    sim_scenario_destroy(sc);
    free(text);

    text = edit(worse);
    assert_null(sim_scenario_parse_flags(text, "scenario.json", SIM_SCENARIO_LENIENT, err));
    want_line(err, "$.expect[0].group: no group named \"web-asgg\" (did you mean \"web-asg\"?)");
    assert_int_equal(count_lines(err), 1);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lint_base_is_valid),
        cmocka_unit_test(test_lint_reports_every_error),
        cmocka_unit_test(test_lint_reports_every_wrong_value_of_an_object),
        cmocka_unit_test(test_lint_checks_what_a_wrong_value_leaves),
        cmocka_unit_test(test_lint_did_you_mean_unknown_key),
        cmocka_unit_test(test_lint_dimension_names_no_group),
        cmocka_unit_test(test_lint_lenient_warns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
