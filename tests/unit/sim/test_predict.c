/* tests/unit/sim/test_predict.c: sim_predict() gives one group's InService per sample, the
 * mode auto chose, the final capacity, and the run's warnings; a scenario the library
 * rejects fails with scaler simulate's reason. */
#include "scaler/sim/predict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* Two groups of fixed size (2 and 3) behind one load balancer checked on `hc`. */
static struct sim_scenario *scenario(const char *hc, int interval_s, int timeout_s)
{
    char text[4096], err[SIM_ERR_MAX];
    struct sim_scenario *sc;

    snprintf(text, sizeof(text),
             "{\"duration\":\"10m\",\"seed\":7,\"infrastructure\":{"
             "\"load_balancers\":[{\"name\":\"lb\",\"listeners\":[{\"lb_port\":80,"
             "\"instance_port\":8080,\"protocol\":\"HTTP\"}],"
             "\"health_check\":{\"target\":\"%s\",\"interval\":%d,\"timeout\":%d,"
             "\"unhealthy_threshold\":2,\"healthy_threshold\":2}}],"
             "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{\"boot_s\":30,"
             "\"service_ms\":{\"mean\":10}}}],"
             "\"groups\":[{\"name\":\"a\",\"launch_configuration\":\"lc\",\"min\":2,\"max\":2,"
             "\"load_balancers\":[\"lb\"]},"
             "{\"name\":\"b\",\"launch_configuration\":\"lc\",\"min\":3,\"max\":3}]},"
             "\"load\":[{\"at\":\"0s\",\"rate\":5,\"target\":\"lb\"}]}",
             hc, interval_s, timeout_s);
    sc = sim_scenario_parse(text, "t.json", err);
    if (!sc)
        fail_msg("%s", err);
    return sc;
}

static void test_predict_capacity_per_sample(void **state)
{
    struct sim_scenario *sc = scenario("TCP:8080", 5, 3);
    struct sim_predict_options po = { sc->seed, 0 };
    struct sim_prediction p;
    char err[SIM_ERR_MAX];

    (void)state;
    assert_int_equal(sim_predict(sc, &po, &p, err), 0);
    assert_string_equal(p.mode, "des");
    assert_int_equal(p.n, 10); /* ten minutes, a sample a minute */
    for (int i = 0; i < p.n; i++)
        assert_int_equal(p.t_ms[i], sc->start_ms + (int64_t)(i + 1) * 60000);
    assert_true(p.capacity[p.n - 1] == 2.0);
    assert_int_equal(p.final_in_service, 2);
    assert_int_equal(p.nwarnings, 0);
    sim_prediction_cleanup(&p);
    assert_null(p.t_ms);
    assert_int_equal(p.n, 0);

    po.group = 1; /* the other group's capacity */
    assert_int_equal(sim_predict(sc, &po, &p, err), 0);
    assert_int_equal(p.n, 10);
    assert_true(p.capacity[p.n - 1] == 3.0);
    assert_int_equal(p.final_in_service, 3);
    sim_prediction_cleanup(&p);

    po.group = 5; /* no such group: no series */
    assert_int_equal(sim_predict(sc, &po, &p, err), 0);
    assert_int_equal(p.n, 0);
    sim_prediction_cleanup(&p);
    sim_scenario_destroy(sc);
}

static void test_predict_warnings_returned(void **state)
{
    struct sim_scenario *sc = scenario("TCP:9999", 5, 3);
    struct sim_predict_options po = { 1, 0 };
    struct sim_prediction p;
    char err[SIM_ERR_MAX];

    (void)state;
    assert_int_equal(sim_predict(sc, &po, &p, err), 0);
    assert_int_equal(p.nwarnings, 1);
    assert_string_equal(p.warnings[0],
                        "$.infrastructure.load_balancers[0]: health check target TCP:9999 names "
                        "port 9999, which no listener's instance_port serves; every check will "
                        "fail");
    sim_prediction_cleanup(&p);
    assert_null(p.warnings);
    sim_scenario_destroy(sc);
}

static void test_predict_rejected_infrastructure_fails(void **state)
{
    struct sim_scenario *sc = scenario("TCP:8080", 5, 10); /* Timeout must be < Interval */
    struct sim_predict_options po = { 1, 0 };
    struct sim_prediction p;
    char err[SIM_ERR_MAX];

    (void)state;
    assert_int_equal(sim_predict(sc, &po, &p, err), -1);
    assert_non_null(strstr(err, "$.infrastructure.load_balancers[0]"));
    assert_int_equal(p.n, 0);
    sim_prediction_cleanup(&p);
    sim_scenario_destroy(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predict_capacity_per_sample),
        cmocka_unit_test(test_predict_warnings_returned),
        cmocka_unit_test(test_predict_rejected_infrastructure_fails),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
