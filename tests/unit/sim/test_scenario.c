/* tests/unit/sim/test_scenario.c: the scenario format: valid files parse into the right
 * values; every kind of bad input names the JSON path and the problem. */
#include "scaler/sim/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* A valid scenario; the bad-input table edits it with one substitution each. */
static const char *base =
    "{\"name\":\"t\",\"seed\":7,\"duration\":\"2h\",\"sample\":\"30s\","
    "\"infrastructure\":{"
    "\"load_balancers\":[{\"name\":\"lb\",\"zones\":[\"us-east-1a\"],"
    "\"listeners\":[{\"lb_port\":80,\"instance_port\":8080,\"protocol\":\"HTTP\"}],"
    "\"health_check\":{\"target\":\"TCP:8080\",\"interval\":5,\"timeout\":3,"
    "\"unhealthy_threshold\":2,\"healthy_threshold\":2}}],"
    "\"launch_configurations\":[{\"name\":\"lc\",\"instance_type\":\"m1.large\","
    "\"app\":{\"boot_s\":30,\"workers\":4,\"service_ms\":{\"dist\":\"lognormal\",\"median\":50,"
    "\"sigma\":0.5},\"queue_limit\":100}}],"
    "\"groups\":[{\"name\":\"g\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":5,"
    "\"load_balancers\":[\"lb\"]}],"
    "\"policies\":[{\"name\":\"up\",\"group\":\"g\",\"type\":\"SimpleScaling\","
    "\"adjustment_type\":\"ChangeInCapacity\",\"adjustment\":1,\"cooldown\":300},"
    "{\"name\":\"steps\",\"group\":\"g\",\"type\":\"StepScaling\","
    "\"adjustment_type\":\"ChangeInCapacity\",\"steps\":[{\"lower\":0,\"upper\":10,"
    "\"adjustment\":1},{\"lower\":10,\"adjustment\":2}]},"
    "{\"name\":\"tt\",\"group\":\"g\",\"type\":\"TargetTrackingScaling\","
    "\"target\":{\"value\":50}}],"
    "\"alarms\":[{\"name\":\"high\",\"dimensions\":{\"AutoScalingGroupName\":\"g\"},"
    "\"period\":60,\"evaluation_periods\":2,\"comparison\":\">\",\"threshold\":80,"
    "\"actions\":[\"up\"]}]},"
    "\"load\":[{\"at\":\"0m\",\"until\":\"1h\",\"rate\":100,"
    "\"shape\":{\"type\":\"ramp\",\"to\":300}},"
    "{\"at\":\"1h\",\"for\":\"30m\",\"clients\":20,\"think\":\"1s\"}],"
    "\"faults\":[{\"at\":\"30m\",\"kill\":{\"group\":\"g\",\"count\":1}}],"
    "\"expect\":[{\"by\":\"1h\",\"in_service\":{\"min\":2}},"
    "{\"throughout\":true,\"failed_pct\":{\"max\":1}},"
    "{\"window\":\"1h\",\"direction_changes\":{\"max\":2}}]}";

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

static void test_scenario_valid_values(void **state)
{
    char err[SIM_ERR_MAX];
    struct sim_scenario *sc = sim_scenario_parse(base, "x.json", err);

    (void)state;
    if (!sc)
        fail_msg("%s", err);
    assert_string_equal(sc->name, "t");
    assert_int_equal(sc->seed, 7);
    assert_int_equal(sc->duration_ms, 7200000);
    assert_int_equal(sc->sample_ms, 30000);
    assert_int_equal(sc->start_ms, 1767225600000LL);
    assert_int_equal(sc->nlbs, 1);
    assert_int_equal(sc->lbs[0].health_check.interval_s, 5);
    assert_int_equal(sc->lbs[0].listeners[0].instance_port, 8080);
    assert_int_equal(sc->lcs[0].app.workers, 4);
    assert_int_equal(sc->lcs[0].app.dist, SC_APP_DIST_LOGNORMAL);
    /* lognormal mean = median * exp(sigma^2 / 2) */
    assert_true(sc->lcs[0].app.service_mean_ms > 56.65 && sc->lcs[0].app.service_mean_ms < 56.66);
    assert_int_equal(sc->groups[0].default_cooldown_s, 300);
    assert_int_equal(sc->npolicies, 3);
    assert_int_equal(sc->policies[1].type, SIM_POLICY_STEP);
    assert_int_equal(sc->policies[1].nsteps, 2);
    assert_false(sc->policies[1].steps[1].has_upper);
    assert_int_equal(sc->policies[2].type, SIM_POLICY_TARGET);
    assert_true(sc->policies[2].target_value == 50);
    assert_string_equal(sc->alarms[0].comparison, "GreaterThanThreshold");
    assert_string_equal(sc->alarms[0].statistic, "Average");
    assert_int_equal(sc->nphases, 2);
    assert_int_equal(sc->phases[0].shape, SIM_SHAPE_RAMP);
    assert_string_equal(sc->phases[0].target, "lb"); /* the only load balancer */
    assert_true(sc->phases[1].closed);
    assert_int_equal(sc->phases[1].until_ms, 5400000);
    assert_true(sc->phases[1].think_ms == 1000);
    assert_int_equal(sc->faults[0].kind, SIM_FAULT_KILL);
    assert_int_equal(sc->expects[0].when, SIM_WHEN_BY);
    assert_string_equal(sc->expects[0].group, "g"); /* the only group */
    assert_int_equal(sc->expects[2].window_ms, 3600000);
    sim_scenario_destroy(sc);
}

struct bad {
    const char *from, *to;
    const char *want; /* the error must start with this */
};

static const struct bad bad_cases[] = {
    /* the warm pool (docs/scenarios.md groups[].warm_pool) */
    { "\"load_balancers\":[\"lb\"]}]",
      "\"load_balancers\":[\"lb\"],\"warm_pool\":{\"pool_state\":\"Frozen\"}}]",
      "$.infrastructure.groups[0].warm_pool.pool_state: must be one of" },
    { "\"load_balancers\":[\"lb\"]}]", "\"load_balancers\":[\"lb\"],\"warm_pool\":{\"size\":1}}]",
      "$.infrastructure.groups[0].warm_pool.size: unknown key" },
    { "\"load_balancers\":[\"lb\"]}]",
      "\"load_balancers\":[\"lb\"],\"warm_pool\":{\"min_size\":-1}}]",
      "$.infrastructure.groups[0].warm_pool.min_size: must be" },
    /* unknown keys, at every level */
    { "\"seed\":7", "\"seed\":7,\"sead\":1", "$.sead: unknown key" },
    { "\"boot_s\":30", "\"boot\":30",
      "$.infrastructure.launch_configurations[0].app.boot: unknown key" },
    { "\"rate\":100", "\"rate\":100,\"rps\":1", "$.load[0].rps: unknown key" },
    /* wrong types */
    { "\"seed\":7", "\"seed\":\"7\"", "$.seed: must be a number, not a string" },
    { "\"min\":1", "\"min\":\"1\"",
      "$.infrastructure.groups[0].min: must be an integer, not a string" },
    { "\"min\":1", "\"min\":1.5",
      "$.infrastructure.groups[0].min: must be an integer, not a fraction" },
    { "\"zones\":[\"us-east-1a\"]", "\"zones\":\"us-east-1a\"",
      "$.infrastructure.load_balancers[0].zones: must be an array" },
    { "\"seed\":7", "\"seed\":[7]", "$.seed: must be a number, not an array" },
    { "\"faults\":[{", "\"faults\":[7,{", "$.faults[0]: must be an object, not a number" },
    { "\"duration\":\"2h\"", "\"duration\":\"2 hours\"", "$.duration: not a duration" },
    /* ranges */
    { "\"min\":1,\"max\":5", "\"min\":6,\"max\":5",
      "$.infrastructure.groups[0].min: must be <= max (5), is 6" },
    { "\"rate\":100", "\"rate\":-1", "$.load[0].rate: must be >= 0" },
    { "\"clients\":20", "\"clients\":-3", "$.load[1].clients: must be >= 0" },
    { "\"lower\":0,\"upper\":10", "\"lower\":10,\"upper\":0",
      "$.infrastructure.policies[1].steps[0].lower: must be < upper" },
    { "\"workers\":4", "\"workers\":0",
      "$.infrastructure.launch_configurations[0].app.workers: must be >= 1" },
    { "\"evaluation_periods\":2", "\"evaluation_periods\":2,\"datapoints_to_alarm\":3",
      "$.infrastructure.alarms[0].datapoints_to_alarm: must be <= evaluation_periods" },
    { "{\"min\":2}", "{\"min\":3,\"max\":2}", "$.expect[0].in_service.min: must be <= max" },
    { "\"until\":\"1h\"", "\"until\":\"0s\"",
      "$.load[0].until: the phase must end after it starts" },
    /* references */
    { "\"actions\":[\"up\"]", "\"actions\":[\"upp\"]",
      "$.infrastructure.alarms[0].actions[0]: no policy named \"upp\"" },
    { "\"actions\":[\"up\"]", "\"actions\":[\"tt\"]",
      "$.infrastructure.alarms[0].actions[0]: policy \"tt\" is target tracking" },
    { "\"launch_configuration\":\"lc\"", "\"launch_configuration\":\"lcx\"",
      "$.infrastructure.groups[0].launch_configuration: no launch configuration named \"lcx\"" },
    { "\"load_balancers\":[\"lb\"]", "\"load_balancers\":[\"nope\"]",
      "$.infrastructure.groups[0].load_balancers[0]: no load balancer named \"nope\"" },
    { "{\"name\":\"up\",\"group\":\"g\"", "{\"name\":\"up\",\"group\":\"h\"",
      "$.infrastructure.policies[0].group: no group named \"h\"" },
    { "\"rate\":100", "\"rate\":100,\"target\":\"x\"",
      "$.load[0].target: no load balancer named \"x\"" },
    { "{\"name\":\"steps\"", "{\"name\":\"up\"",
      "$.infrastructure.policies[1].name: a second policy named \"up\"" },
    /* shapes and kinds */
    { "\"type\":\"ramp\"", "\"type\":\"zigzag\"", "$.load[0].shape.type: must be one of" },
    { "\"type\":\"ramp\",\"to\":300", "\"type\":\"ramp\",\"to\":300,\"period\":\"1h\"",
      "$.load[0].shape.period: not a key of shape \"ramp\"" },
    { "\"rate\":100", "\"rate\":100,\"clients\":3", "$.load[0]: give exactly one of" },
    { "\"think\":\"1s\"", "\"think\":\"1s\",\"shape\":{\"type\":\"bursts\",\"requests\":10}",
      "$.load[1].shape: missing required key \"gap\"" },
    { "\"kill\":{\"group\":\"g\",\"count\":1}",
      "\"kill\":{\"group\":\"g\",\"count\":1},\"hang\":{}", "$.faults[0]: give exactly one of" },
    { "\"comparison\":\">\"", "\"comparison\":\"=>\"",
      "$.infrastructure.alarms[0].comparison: must be >, >=, <, <=" },
    { "\"type\":\"SimpleScaling\"", "\"type\":\"Simple\"",
      "$.infrastructure.policies[0].type: must be one of" },
    { "\"adjustment\":1,\"cooldown\":300}", "\"adjustment\":1,\"cooldown\":300,\"steps\":[]}",
      "$.infrastructure.policies[0].steps: only for type StepScaling" },
    { "{\"min\":2}}", "{\"min\":2},\"failed_pct\":{\"max\":1}}",
      "$.expect[0]: give exactly one check" },
    { "\"dist\":\"lognormal\",\"median\":50", "\"dist\":\"fixed\",\"median\":50",
      "$.infrastructure.launch_configurations[0].app.service_ms: missing required key \"mean\"" },
    /* the app profile (scaler/app.h): the old instance key, and the simulator's own limit */
    { "\"queue_limit\":100", "\"queue\":100",
      "$.infrastructure.launch_configurations[0].app.queue: unknown key" },
    { "\"service_ms\":{\"dist\":\"lognormal\",\"median\":50,\"sigma\":0.5}", "\"service_ms\":0",
      "$.infrastructure.launch_configurations[0].app.service_ms: service time must be > 0" },
    /* missing pieces */
    { "\"duration\":\"2h\",", "", "$: missing required key \"duration\"" },
    { "{\"name\":\"lc\",", "{",
      "$.infrastructure.launch_configurations[0]: missing required key \"name\"" },
    /* instance_refresh */
    { "\"load_balancers\":[\"lb\"]}]", "\"load_balancers\":[\"lb\"],\"instance_refresh\":{}}]",
      "$.infrastructure.groups[0].instance_refresh: missing required key \"at\"" },
    { "\"load_balancers\":[\"lb\"]}]",
      "\"load_balancers\":[\"lb\"],\"instance_refresh\":{\"at\":\"1h\",\"min_healthy_percentage\":101}}]",
      "$.infrastructure.groups[0].instance_refresh.min_healthy_percentage: must be <= 100" },
    { "\"load_balancers\":[\"lb\"]}]",
      "\"load_balancers\":[\"lb\"],\"instance_refresh\":{\"at\":\"1h\",\"checkpoint_percentages\":[0]}}]",
      "$.infrastructure.groups[0].instance_refresh.checkpoint_percentages[0]: must be an integer in 1..100" },
    { "\"load_balancers\":[\"lb\"]}]",
      "\"load_balancers\":[\"lb\"],\"instance_refresh\":{\"at\":\"1h\",\"launch_configuration\":\"v9\"}}]",
      "$.infrastructure.groups[0].instance_refresh.launch_configuration: no launch configuration named \"v9\"" },
    /* not JSON */
    { "{\"name\":\"t\"", "{\"name\":\"t\",,", "line 1 column" },
};

static void test_scenario_bad_input_names_path(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        char err[SIM_ERR_MAX];
        char *text = edit(bad_cases[i].from, bad_cases[i].to);
        struct sim_scenario *sc = sim_scenario_parse(text, "x.json", err);
        if (sc)
            fail_msg("case %zu parsed but should fail with '%s'", i, bad_cases[i].want);
        if (strncmp(err, bad_cases[i].want, strlen(bad_cases[i].want)) != 0)
            fail_msg("case %zu: got '%s', want '%s...'", i, err, bad_cases[i].want);
        free(text);
    }
}

/* groups[].instance_refresh: the refresh's time, launch configuration and preferences. */
static void test_scenario_instance_refresh(void **state)
{
    char err[SIM_ERR_MAX];
    char *text = edit("\"load_balancers\":[\"lb\"]}]",
                      "\"load_balancers\":[\"lb\"],\"instance_refresh\":{\"at\":\"1h\","
                      "\"launch_configuration\":\"lc\",\"min_healthy_percentage\":75,"
                      "\"instance_warmup\":\"2m\",\"checkpoint_percentages\":[50,100],"
                      "\"checkpoint_delay\":\"10m\"}}]");
    struct sim_scenario *sc = sim_scenario_parse(text, "x.json", err);
    const struct sim_refresh *r;

    (void)state;
    if (!sc)
        fail_msg("%s", err);
    r = &sc->groups[0].refresh;
    assert_true(r->has);
    assert_int_equal(r->at_ms, 3600000);
    assert_string_equal(r->launch_configuration, "lc");
    assert_true(r->has_min);
    assert_int_equal(r->min_healthy_percentage, 75);
    assert_false(r->has_max);
    assert_int_equal(r->instance_warmup_s, 120);
    assert_int_equal(r->ncheckpoints, 2);
    assert_int_equal(r->checkpoints[1], 100);
    assert_int_equal(r->checkpoint_delay_s, 600);
    sim_scenario_destroy(sc);
    free(text);
}

/* target.metrics: CustomizedMetricSpecification.Metrics in the scenario's words (the
 * target-tracking policy then has no predefined metric); not with predefined_metric. */
static void test_scenario_target_metrics_are_a_math_query_list(void **state)
{
    char err[SIM_ERR_MAX];
    char *text = edit("\"target\":{\"value\":50}",
                      "\"target\":{\"value\":100,\"metrics\":[{\"id\":\"m1\",\"return_data\":false,"
                      "\"metric\":{\"namespace\":\"AWS/EC2\",\"name\":\"CPUUtilization\","
                      "\"dimensions\":{\"AutoScalingGroupName\":\"g\"},\"stat\":\"Average\"}},"
                      "{\"id\":\"e1\",\"expression\":\"m1 * 2\"}]}");
    struct sim_scenario *sc = sim_scenario_parse(text, "x.json", err);
    const struct sim_policy *pl;

    (void)state;
    if (!sc)
        fail_msg("%s", err);
    pl = &sc->policies[2];
    assert_null(pl->predefined_metric);
    assert_int_equal(pl->nmetrics, 2);
    assert_string_equal(pl->metrics[0].metric.dimensions[0].value, "g");
    assert_int_equal(pl->metrics[0].stat_period, 60);
    assert_string_equal(pl->metrics[1].expression, "m1 * 2");
    sim_scenario_destroy(sc);
    free(text);
    text = edit("\"target\":{\"value\":50}",
                "\"target\":{\"value\":50,\"predefined_metric\":\"ASGAverageCPUUtilization\","
                "\"metrics\":[{\"id\":\"e1\",\"expression\":\"TIME_SERIES(1)\"}]}");
    assert_null(sim_scenario_parse(text, "x.json", err));
    assert_non_null(strstr(err, "not with predefined_metric"));
    free(text);
}

/* The app is the one profile: absent keys take its defaults (service_ms included), a plain
 * number is a fixed service time, and the emulator-only keys are read (and left to it). */
static void test_scenario_app_is_the_profile(void **state)
{
    char err[SIM_ERR_MAX];
    char *text = edit("\"app\":{\"boot_s\":30,\"workers\":4,\"service_ms\":{\"dist\":\"lognormal\","
                      "\"median\":50,\"sigma\":0.5},\"queue_limit\":100}",
                      "\"app\":{}");
    struct sim_scenario *sc = sim_scenario_parse(text, "x.json", err);
    struct sc_app d;
    char keys[128];

    (void)state;
    if (!sc)
        fail_msg("%s", err);
    sc_app_defaults(&d);
    assert_memory_equal(&sc->lcs[0].app, &d, sizeof(d));
    sim_scenario_destroy(sc);
    free(text);
    text = edit("\"queue_limit\":100}", "\"queue_limit\":100,\"error_rate\":0.1,\"cpu_ms\":2}");
    sc = sim_scenario_parse(text, "x.json", err);
    if (!sc)
        fail_msg("%s", err);
    assert_true(sc->lcs[0].app.error_rate == 0.1 && sc->lcs[0].app.cpu_ms == 2);
    assert_int_equal(sc_app_sim_ignored(&sc->lcs[0].app, keys, sizeof(keys)), 2);
    sim_scenario_destroy(sc);
    free(text);
    text = edit("\"service_ms\":{\"dist\":\"lognormal\",\"median\":50,\"sigma\":0.5}",
                "\"service_ms\":25");
    sc = sim_scenario_parse(text, "x.json", err);
    if (!sc)
        fail_msg("%s", err);
    assert_int_equal(sc->lcs[0].app.dist, SC_APP_DIST_FIXED);
    assert_true(sc->lcs[0].app.service_mean_ms == 25);
    sim_scenario_destroy(sc);
    free(text);
}

static void test_scenario_durations_accept_units(void **state)
{
    char err[SIM_ERR_MAX];
    char *text = edit("\"duration\":\"2h\"", "\"duration\":5400");
    struct sim_scenario *sc = sim_scenario_parse(text, "x.json", err);

    (void)state;
    if (!sc)
        fail_msg("%s", err);
    assert_int_equal(sc->duration_ms, 5400000); /* a bare number is seconds */
    sim_scenario_destroy(sc);
    free(text);
    text = edit("\"duration\":\"2h\"", "\"duration\":\"90m\"");
    sc = sim_scenario_parse(text, "x.json", err);
    assert_non_null(sc);
    assert_int_equal(sc->duration_ms, 5400000);
    sim_scenario_destroy(sc);
    free(text);
}

static void test_scenario_set_param_by_name(void **state)
{
    char err[SIM_ERR_MAX];
    char *text = sim_scenario_set_param(base, "alarms.high.threshold", 65, err);
    struct sim_scenario *sc;

    (void)state;
    if (!text)
        fail_msg("%s", err);
    sc = sim_scenario_parse(text, "x.json", err);
    assert_non_null(sc);
    assert_true(sc->alarms[0].threshold == 65);
    sim_scenario_destroy(sc);
    free(text);
    text = sim_scenario_set_param(base, "load.0.rate", 42, err);
    assert_non_null(text);
    sc = sim_scenario_parse(text, "x.json", err);
    assert_non_null(sc);
    assert_true(sc->phases[0].value == 42);
    sim_scenario_destroy(sc);
    free(text);
    assert_null(sim_scenario_set_param(base, "alarms.nope.threshold", 1, err));
    assert_non_null(strstr(err, "no \"nope\""));
    assert_null(sim_scenario_set_param(base, "name", 1, err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenario_valid_values),
        cmocka_unit_test(test_scenario_bad_input_names_path),
        cmocka_unit_test(test_scenario_instance_refresh),
        cmocka_unit_test(test_scenario_target_metrics_are_a_math_query_list),
        cmocka_unit_test(test_scenario_app_is_the_profile),
        cmocka_unit_test(test_scenario_durations_accept_units),
        cmocka_unit_test(test_scenario_set_param_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
