/* tests/unit/loadgen/test_scn_probe.c: scn_probe_warnings, the rule that a health check on
 * a queued path cannot meet a scaled timeout with real service times (docs/dataplane.md,
 * Time) */
#include "loadgen/scenario.h"

#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/sim/scenario.h"

/* One classic load balancer checking `target` (timeout 3 s) before a 50 ms-median app. */
static struct sim_scenario *scenario(const char *target, const char *health_path)
{
    char text[2048], err[SIM_ERR_MAX];
    struct sim_scenario *sc;

    snprintf(text, sizeof(text),
             "{\"name\": \"p\", \"duration\": \"10m\", \"infrastructure\": {"
             "\"load_balancers\": [{\"name\": \"lb\", \"zones\": [\"us-east-1a\"],"
             " \"listeners\": [{\"lb_port\": 80, \"instance_port\": 8080, \"protocol\": "
             "\"HTTP\"}],"
             " \"health_check\": {\"target\": \"%s\", \"interval\": 5, \"timeout\": 3,"
             " \"unhealthy_threshold\": 2, \"healthy_threshold\": 2}}],"
             "\"launch_configurations\": [{\"name\": \"lc\", \"image_id\": \"ami-12345678\","
             " \"instance_type\": \"m5.large\", \"app\": {\"workers\": 8, %s%s%s \"service_ms\": "
             "{\"dist\": \"lognormal\", \"median\": 50, \"sigma\": 0.5}}}],"
             "\"groups\": [{\"name\": \"g\", \"launch_configuration\": \"lc\", \"zones\": "
             "[\"us-east-1a\"], \"min\": 1, \"max\": 2, \"desired\": 1, \"load_balancers\": "
             "[\"lb\"]}]},"
             "\"load\": [{\"target\": \"lb\", \"rate\": 10}]}",
             target, health_path ? "\"health_path\": \"" : "", health_path ? health_path : "",
             health_path ? "\"," : "");
    sc = sim_scenario_parse(text, "t.json", err);
    if (!sc)
        fail_msg("%s", err);
    return sc;
}

static void test_scn_probe_queued_path_warns_at_a_scale(void **state)
{
    struct sim_scenario *sc = scenario("HTTP:8080/", NULL);
    struct scn_service real = { 0, 1 }, emulated = { 1, 6 };
    char buf[1024] = "";
    FILE *f = fmemopen(buf, sizeof(buf), "w");

    (void)state;
    /* x60: 3 s is 50 real ms against a 56.7 ms mean service */
    assert_int_equal(scn_probe_warnings(sc, 60, &real, f), 1);
    fclose(f);
    assert_non_null(strstr(buf, "$.infrastructure.load_balancers[0].health_check"));
    assert_non_null(strstr(buf, "HTTP:8080/"));
    assert_non_null(strstr(buf, "3 s / 60 = 50.0 real ms"));
    /* real time (3,000 ms), x10 (300 ms > 3 x 56.7), or service scaled too: no warning */
    assert_int_equal(scn_probe_warnings(sc, 1, &real, NULL), 0);
    assert_int_equal(scn_probe_warnings(sc, 10, &real, NULL), 0);
    assert_int_equal(scn_probe_warnings(sc, 60, &emulated, NULL), 0);
    sim_scenario_destroy(sc);
}

static void test_scn_probe_health_paths_and_tcp_are_instant(void **state)
{
    struct scn_service real = { 0, 1 };
    struct sim_scenario *sc;

    (void)state;
    sc = scenario("HTTP:8080/health", NULL);
    assert_int_equal(scn_probe_warnings(sc, 600, &real, NULL), 0);
    sim_scenario_destroy(sc);
    sc = scenario("HTTP:8080/ping", "/ping");
    assert_int_equal(scn_probe_warnings(sc, 600, &real, NULL), 0);
    sim_scenario_destroy(sc);
    sc = scenario("TCP:8080", NULL);
    assert_int_equal(scn_probe_warnings(sc, 600, &real, NULL), 0);
    sim_scenario_destroy(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scn_probe_queued_path_warns_at_a_scale),
        cmocka_unit_test(test_scn_probe_health_paths_and_tcp_are_instant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
