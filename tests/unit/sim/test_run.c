/* tests/unit/sim/test_run.c: sim_run() returns what setup cannot model as warnings in its
 * result and prints nothing (the caller logs). */
#include "scaler/sim/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/sim/scenario.h"

/* A group behind a load balancer whose check names `hc_port`, and an alarm on `metric`. */
static struct sim_scenario *scenario(int hc_port, const char *metric)
{
    char text[4096], err[SIM_ERR_MAX];
    struct sim_scenario *sc;

    snprintf(text, sizeof(text),
             "{\"duration\":\"5m\",\"infrastructure\":{"
             "\"load_balancers\":[{\"name\":\"lb\",\"listeners\":[{\"lb_port\":80,"
             "\"instance_port\":8080,\"protocol\":\"HTTP\"}],"
             "\"health_check\":{\"target\":\"TCP:%d\",\"interval\":5,\"timeout\":3,"
             "\"unhealthy_threshold\":2,\"healthy_threshold\":2}}],"
             "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{\"service_ms\":{\"mean\":10}}}],"
             "\"groups\":[{\"name\":\"g\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":2,"
             "\"load_balancers\":[\"lb\"]}],"
             "\"alarms\":[{\"name\":\"a\",\"namespace\":\"AWS/EC2\",\"metric\":\"%s\","
             "\"dimensions\":{\"AutoScalingGroupName\":\"g\"},\"statistic\":\"Average\","
             "\"period\":60,\"evaluation_periods\":1,\"comparison\":\">\",\"threshold\":50}]}}",
             hc_port, metric);
    sc = sim_scenario_parse(text, "t.json", err);
    if (!sc)
        fail_msg("%s", err);
    return sc;
}

/* Runs sc with stderr captured into a temporary file; returns how many bytes it got. */
static long run_quiet(const struct sim_scenario *sc, struct sim_run_result *res)
{
    struct sim_run_config rc = { 0 };
    char err[SIM_ERR_MAX];
    FILE *cap = tmpfile();
    int saved = dup(STDERR_FILENO);
    long n;

    assert_non_null(cap);
    assert_true(saved >= 0);
    fflush(stderr);
    assert_true(dup2(fileno(cap), STDERR_FILENO) >= 0);
    rc.sc = sc;
    rc.mode = SIM_MODE_DES;
    rc.seed = 1;
    assert_int_equal(sim_run(&rc, res, NULL, err), 0);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    assert_int_equal(fseek(cap, 0, SEEK_END), 0);
    n = ftell(cap);
    fclose(cap);
    return n;
}

static void test_run_warnings_returned_not_printed(void **state)
{
    struct sim_scenario *sc = scenario(9999, "MemoryUtilization");
    struct sim_run_result res;

    (void)state;
    assert_int_equal(run_quiet(sc, &res), 0);
    assert_int_equal(res.nwarnings, 2);
    assert_string_equal(res.warnings[0],
                        "alarm a reads AWS/EC2 MemoryUtilization, which the simulator does not "
                        "produce; it will see no data");
    assert_string_equal(res.warnings[1],
                        "$.infrastructure.load_balancers[0]: health check target TCP:9999 names "
                        "port 9999, which no listener's instance_port serves; every check will "
                        "fail");
    sim_run_result_cleanup(&res);
    assert_int_equal(res.nwarnings, 0);
    assert_null(res.warnings);
    sim_scenario_destroy(sc);
}

static void test_run_no_warnings_when_modelled(void **state)
{
    struct sim_scenario *sc = scenario(8080, "CPUUtilization");
    struct sim_run_result res;

    (void)state;
    assert_int_equal(run_quiet(sc, &res), 0);
    assert_int_equal(res.nwarnings, 0);
    sim_run_result_cleanup(&res);
    sim_scenario_destroy(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_warnings_returned_not_printed),
        cmocka_unit_test(test_run_no_warnings_when_modelled),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
