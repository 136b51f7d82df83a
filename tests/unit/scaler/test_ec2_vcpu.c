/* tests/unit/scaler/test_ec2_vcpu.c: the account's running On-Demand vCPU limit
 * (sc_ec2_config.max_vcpus, the emulator's --max-vcpus; docs/dataplane.md "Launching: rate
 * and bound"), one test per rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "scaler/asg.h"
#include "scaler/ec2.h"
#include "scaler/status.h"
#include "scaler/world.h"

#define T0 1767225600000LL /* 2026-01-01T00:00:00Z */

#define VCPU_TEXT(n)                                                                               \
    "You have requested more vCPU capacity than your current vCPU limit of " #n " allows for "     \
    "the instance bucket that the specified instance type belongs to. Please visit "               \
    "http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit."

static struct sc_ec2 *mk_limited(int max_vcpus)
{
    struct sc_ec2_config cfg = { 0 };
    struct sc_ec2 *ec2;

    cfg.seed = 7;
    cfg.max_vcpus = max_vcpus;
    ec2 = sc_ec2_create(&cfg);
    assert_non_null(ec2);
    return ec2;
}

static enum sc_status run_type(struct sc_ec2 *ec2, const char *type, int min, int max,
                               const struct sc_ec2_reservation **r, struct sc_error *err)
{
    struct sc_ec2_run_req req = { 0 };

    req.image_id = "ami-12c6146b";
    req.instance_type = type;
    req.min_count = min;
    req.max_count = max;
    return sc_ec2_run_instances(ec2, &req, T0, r, err);
}

/* MinCount instances whose vCPUs would pass the limit: VcpuLimitExceeded (HTTP 400, AWS's
 * text naming the limit), nothing stored; counted from the types' vCPUs. */
static void test_ec2_vcpu_limit_refuses_min_count(void **state)
{
    struct sc_ec2 *ec2 = mk_limited(8);
    const struct sc_ec2_reservation *r = NULL;
    struct sc_error err = { 0 };

    (void)state;
    assert_int_equal(run_type(ec2, "m5.large", 3, 3, &r, &err), SC_OK); /* 3 x 2 vCPUs */
    assert_int_equal(sc_ec2_running_vcpus(ec2), 6);
    assert_int_equal(run_type(ec2, "c5.xlarge", 1, 1, &r, &err), SC_ERR_VCPU_LIMIT_EXCEEDED);
    assert_string_equal(err.message, VCPU_TEXT(8));
    assert_string_equal(sc_status_code(err.status), "VcpuLimitExceeded");
    assert_int_equal(sc_status_http(err.status), 400);
    assert_int_equal(sc_ec2_instance_count(ec2), 3);
    /* 2 vCPUs left: one more m5.large fits, a second does not */
    assert_int_equal(run_type(ec2, "m1.small", 2, 2, &r, &err), SC_OK);
    assert_int_equal(sc_ec2_running_vcpus(ec2), 8);
    assert_int_equal(run_type(ec2, "m1.small", 1, 1, &r, &err), SC_ERR_VCPU_LIMIT_EXCEEDED);
    sc_ec2_destroy(ec2);
}

/* MaxCount past the limit with MinCount within it: as many as fit. */
static void test_ec2_vcpu_limit_max_count_gets_what_fits(void **state)
{
    struct sc_ec2 *ec2 = mk_limited(5);
    const struct sc_ec2_reservation *r = NULL;
    struct sc_error err = { 0 };

    (void)state;
    assert_int_equal(run_type(ec2, "t3.micro", 1, 10, &r, &err), SC_OK);
    assert_int_equal(r->ninstances, 2);
    assert_int_equal(sc_ec2_running_vcpus(ec2), 4);
    sc_ec2_destroy(ec2);
}

/* Only pending and running instances count: stopping, stopped, shutting-down and
 * terminated ones give their vCPUs back. No limit (0) refuses nothing. */
static void test_ec2_vcpu_limit_counts_pending_and_running(void **state)
{
    struct sc_ec2 *ec2 = mk_limited(4), *free_ec2 = mk_limited(0);
    const struct sc_ec2_reservation *r = NULL;
    struct sc_error err = { 0 };
    char a[SC_EC2_ID_LEN], b[SC_EC2_ID_LEN];
    const char *ida[1] = { a }, *idb[1] = { b };

    (void)state;
    assert_int_equal(run_type(ec2, "t3.micro", 2, 2, &r, &err), SC_OK);
    snprintf(a, sizeof(a), "%s", r->instances[0]->instance_id);
    snprintf(b, sizeof(b), "%s", r->instances[1]->instance_id);
    assert_int_equal(run_type(ec2, "t3.micro", 1, 1, &r, &err), SC_ERR_VCPU_LIMIT_EXCEEDED);
    assert_int_equal(sc_ec2_stop_instances(ec2, ida, 1, T0 + 1000, NULL, &err), SC_OK);
    assert_int_equal(sc_ec2_running_vcpus(ec2), 2);
    assert_int_equal(run_type(ec2, "t3.micro", 1, 1, &r, &err), SC_OK);
    assert_int_equal(sc_ec2_terminate_instances(ec2, idb, 1, T0 + 2000, NULL, &err), SC_OK);
    assert_int_equal(sc_ec2_running_vcpus(ec2), 2);
    assert_int_equal(run_type(ec2, "t3.micro", 1, 1, &r, &err), SC_OK);
    for (int i = 0; i < 20; i++)
        assert_int_equal(run_type(free_ec2, "c5.2xlarge", 1, 1, &r, &err), SC_OK);
    sc_ec2_destroy(ec2);
    sc_ec2_destroy(free_ec2);
}

/* A group's launch past the limit fails as AWS reports it: a Failed activity whose
 * Description is "Launching a new EC2 instance.  Status Reason: <EC2's text>. Launching
 * EC2 instance failed." and whose StatusMessage is EC2's text; the group keeps what fit. */
static void test_ec2_vcpu_limit_group_launch_fails_with_text(void **state)
{
    struct sc_world_config cfg;
    struct sc_world *w;
    struct sc_error err = { 0 };
    static const char *const zones[] = { "us-east-1a" };
    struct sc_asg_lc_req lc = { .launch_configuration_name = "lc",
                                .image_id = "ami-12c6146b",
                                .instance_type = "t3.micro" };
    struct sc_asg_group_req g = { .auto_scaling_group_name = "web",
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = 4,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = 3,
                                  .availability_zones = zones,
                                  .navailability_zones = 1 };
    int failed = 0, n;

    (void)state;
    sc_world_config_defaults(&cfg);
    cfg.seed = 3;
    cfg.start_ms = T0;
    cfg.max_vcpus = 4;
    w = sc_world_create(&cfg);
    assert_non_null(w);
    assert_int_equal(sc_asg_create_launch_configuration(sc_world_asg(w), &lc, T0, &err), SC_OK);
    assert_int_equal(sc_asg_create_group(sc_world_asg(w), &g, T0, &err), SC_OK);
    sc_world_step(w, T0);
    sc_world_step(w, T0 + 1000);
    assert_int_equal(sc_ec2_running_vcpus(sc_world_ec2(w)), 4);
    n = sc_asg_activity_count(sc_world_asg(w), "web");
    for (int i = 0; i < n; i++) {
        const struct sc_asg_activity_info *a = sc_asg_activity_at(sc_world_asg(w), "web", i);

        if (strcmp(a->status_code, "Failed") != 0)
            continue;
        failed++;
        assert_string_equal(a->status_message, VCPU_TEXT(4));
        assert_string_equal(a->description,
                            "Launching a new EC2 instance.  Status Reason: " VCPU_TEXT(
                                4) " Launching EC2 instance failed.");
    }
    assert_true(failed >= 1);
    sc_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ec2_vcpu_limit_refuses_min_count),
        cmocka_unit_test(test_ec2_vcpu_limit_max_count_gets_what_fits),
        cmocka_unit_test(test_ec2_vcpu_limit_counts_pending_and_running),
        cmocka_unit_test(test_ec2_vcpu_limit_group_launch_fails_with_text),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
