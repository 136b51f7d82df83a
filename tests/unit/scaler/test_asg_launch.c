/* tests/unit/scaler/test_asg_launch.c: LaunchInstances (scaler/asg_launch.c) against a fake
 * EC2: one test per rule of docs/autoscaling.md 11; time passed in. */
#include "scaler/asg_launch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <jansson.h>

#include "scaler/asg_internal.h"

#define FX_MAXI 160
#include "tests/unit/scaler/asg_fixture.h"

#define HOUR (3600 * SEC)

static int budget = -1; /* launches that succeed before EC2 runs out of capacity; -1 no limit */

static enum sc_status l_run(void *ud, const struct sc_asg_launch_spec *s, int64_t now,
                            char id[SC_ASG_ID_LEN], struct sc_error *err)
{
    const char *type = s->instance_type ? s->instance_type : "t3.micro";

    (void)now;
    if (budget == 0)
        return sc_fail(err, SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY,
                       "There is not enough capacity to fulfill your request for instance type "
                       "'%s' in '%s'",
                       type, s->zone);
    if (budget > 0)
        budget--;
    return fake_launch(ud, s, type, id, err);
}

/* One template, "web" (lt-0aaa, t3.micro). */
static enum sc_status l_lt(void *ud, const char *id, const char *name, const char *version,
                           struct sc_asg_lt_resolved *out, struct sc_error *err)
{
    (void)ud;
    (void)version;
    if ((id && strcmp(id, "lt-0aaa") == 0) || (name && strcmp(name, "web") == 0)) {
        if (out) {
            snprintf(out->launch_template_id, sizeof(out->launch_template_id), "lt-0aaa");
            snprintf(out->launch_template_name, sizeof(out->launch_template_name), "web");
            snprintf(out->instance_type, sizeof(out->instance_type), "t3.micro");
        }
        return SC_OK;
    }
    return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_NOT_FOUND, "no template %s", name ? name : id);
}

static int l_subnet_zone(void *ud, const char *subnet, char zone[SC_ASG_ID_LEN])
{
    (void)ud;
    if (strcmp(subnet, "subnet-a") && strcmp(subnet, "subnet-b"))
        return -1;
    snprintf(zone, SC_ASG_ID_LEN, "us-east-1%c", subnet[7]);
    return 0;
}

static int l_zone_id(void *ud, const char *zone, char id[SC_ASG_ID_LEN])
{
    (void)ud;
    if (strcmp(zone, "us-east-1a") && strcmp(zone, "us-east-1b"))
        return -1;
    snprintf(id, SC_ASG_ID_LEN, "use1-az%d", zone[9] == 'a' ? 1 : 2);
    return 0;
}

static struct sc_asg_env launch_env(struct fx *x)
{
    struct sc_asg_env env = fx_env(x);

    env.run_instance = l_run;
    env.launch_template_resolve = l_lt;
    env.subnet_zone = l_subnet_zone;
    env.zone_id = l_zone_id;
    return env;
}

static int setup(void **state)
{
    struct fx *x = fx_alloc();

    budget = -1;
    if (!x || !(x->asg = fx_asg_with(x, launch_env(x))))
        return -1;
    *state = x;
    return 0;
}

/* Group name over template "web": min 0, max, desired 0, in subnets (or us-east-1a). */
static void group(struct fx *x, const char *name, int max, const char *subnets,
                  const struct sc_asg_mixed_req *m)
{
    static const char *const zone[] = { "us-east-1a" };
    struct sc_asg_group_req r = { .auto_scaling_group_name = name,
                                  .launch_template_name = m ? NULL : "web",
                                  .mixed_instances_policy = m,
                                  .has_min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = max,
                                  .has_desired_capacity = 1,
                                  .vpc_zone_identifier = subnets,
                                  .availability_zones = subnets ? NULL : zone,
                                  .navailability_zones = subnets ? 0 : 1 };

    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
}

static struct sc_asg_launch_req req(const char *g, int n, const char *token)
{
    struct sc_asg_launch_req r = { .auto_scaling_group_name = g,
                                   .requested_capacity = n,
                                   .client_token = token };

    return r;
}

static const struct sc_asg_group_info *find(struct fx *x, const char *name)
{
    const struct sc_asg_group_info *g = sc_asg_group_find(x->asg, name);

    assert_non_null(g);
    return g;
}

static void expect_error(struct fx *x, const struct sc_asg_launch_req *r, enum sc_status st,
                         const char *text)
{
    int runs = x->f.runs;

    assert_int_equal(sc_asg_launch_instances(x->asg, r, T0, NULL, &x->err), st);
    assert_string_equal(x->err.message, text);
    assert_int_equal(x->f.runs, runs); /* nothing launched */
}

/* --- rules ----------------------------------------------------------------------------------- */

static void test_asg_launch_single_zone_group_needs_no_zone(void **state)
{
    struct fx *x = *state;
    struct sc_asg_launch_req r = req("g", 2, "tok-1");
    const struct sc_asg_launch_info *rep = NULL;
    const struct sc_asg_group_info *g;

    group(x, "g", 5, NULL, NULL);
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0, &rep, &x->err), SC_OK);
    assert_string_equal(rep->auto_scaling_group_name, "g");
    assert_string_equal(rep->client_token, "tok-1");
    assert_int_equal(rep->ninstances, 1);
    assert_int_equal(rep->nerrors, 0);
    assert_int_equal(rep->instances[0].ninstance_ids, 2);
    assert_string_equal(rep->instances[0].instance_type, "t3.micro");
    assert_string_equal(rep->instances[0].market_type, "OnDemand");
    assert_string_equal(rep->instances[0].availability_zone, "us-east-1a");
    assert_string_equal(rep->instances[0].availability_zone_id, "use1-az1");
    g = find(x, "g");
    /* Pending members at once; desired raised by what launched; the step adds none */
    assert_int_equal(sc_asg_group_instance_count(g), 2);
    assert_int_equal(sc_asg_group_instance_at(g, 0)->lifecycle_state, SC_ASG_PENDING);
    assert_int_equal(g->desired_capacity, 2);
    settle(x, T0 + SEC);
    assert_int_equal(sc_asg_group_instance_count(g), 2);
    assert_int_equal(sc_asg_group_instance_at(g, 1)->lifecycle_state, SC_ASG_IN_SERVICE);
    /* each launch is an activity as any launch is */
    assert_int_equal(sc_asg_activity_count(x->asg, "g"), 2);
    assert_non_null(strstr(sc_asg_activity_at(x->asg, "g", 0)->cause,
                           "in response to a LaunchInstances request (client token tok-1), "
                           "increasing the capacity from 0 to 2"));
}

static void test_asg_launch_zone_selection(void **state)
{
    struct fx *x = *state;
    static const char *const zb[] = { "us-east-1b" }, *const zc[] = { "us-east-1c" };
    static const char *const id1[] = { "use1-az1" }, *const sb[] = { "subnet-b" };
    struct sc_asg_launch_req r = req("g", 1, "t1");
    const struct sc_asg_launch_info *rep = NULL;
    const struct sc_asg_group_info *g;

    group(x, "g", 10, "subnet-a,subnet-b", NULL);
    expect_error(x, &r, SC_ERR_VALIDATION,
                 "Either AvailabilityZones, AvailabilityZoneIds or SubnetIds must be specified "
                 "for an Auto Scaling group with multiple Availability Zones.");
    r.availability_zones = zc;
    r.navailability_zones = 1;
    expect_error(x, &r, SC_ERR_VALIDATION,
                 "The Availability Zone us-east-1c is not one of the Auto Scaling group's "
                 "Availability Zones.");
    r.availability_zones = zb;
    r.availability_zone_ids = id1;
    r.navailability_zone_ids = 1;
    expect_error(x, &r, SC_ERR_VALIDATION,
                 "You cannot specify both AvailabilityZones and AvailabilityZoneIds.");
    r.navailability_zone_ids = 0;
    r.availability_zone_ids = NULL;
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0, &rep, &x->err), SC_OK);
    assert_string_equal(rep->instances[0].availability_zone, "us-east-1b");
    assert_string_equal(rep->instances[0].subnet_id, "subnet-b");
    /* by zone id */
    r = req("g", 1, "t2");
    r.availability_zone_ids = id1;
    r.navailability_zone_ids = 1;
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0, &rep, &x->err), SC_OK);
    assert_string_equal(rep->instances[0].availability_zone, "us-east-1a");
    assert_string_equal(rep->instances[0].availability_zone_id, "use1-az1");
    /* by subnet; a subnet outside the zone given is refused */
    r = req("g", 1, "t3");
    r.subnet_ids = sb;
    r.nsubnet_ids = 1;
    r.availability_zone_ids = id1;
    r.navailability_zone_ids = 1;
    expect_error(x, &r, SC_ERR_VALIDATION,
                 "The subnet ID subnet-b does not reside in the Availability Zone us-east-1a.");
    r.navailability_zone_ids = 0;
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0, &rep, &x->err), SC_OK);
    assert_string_equal(rep->instances[0].availability_zone, "us-east-1b");
    g = find(x, "g");
    assert_int_equal(asg_zone_count((const struct asg_group *)g, "us-east-1b"), 2);
    assert_int_equal(asg_zone_count((const struct asg_group *)g, "us-east-1a"), 1);
    assert_int_equal(g->desired_capacity, 3);
}

static void test_asg_launch_launch_configuration_group_refused(void **state)
{
    struct fx *x = *state;
    struct sc_asg_launch_req r = req("g", 1, "t");

    assert_int_equal(fx_group(x, "g", 0, 0), SC_OK);
    expect_error(x, &r, SC_ERR_VALIDATION,
                 "LaunchInstances does not support Auto Scaling groups that use launch "
                 "configurations. Migrate the group g to a launch template and try again.");
    assert_int_equal(find(x, "g")->desired_capacity, 0);
}

static void test_asg_launch_mixed_on_demand_and_spot_refused(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req half = { .has_launch_template_spec = 1,
                                     .launch_template_name = "web",
                                     .has_on_demand_percentage_above_base_capacity = 1,
                                     .on_demand_percentage_above_base_capacity = 50 };
    struct sc_asg_mixed_req spot = half;
    struct sc_asg_launch_req r = req("half", 1, "t1");

    spot.on_demand_percentage_above_base_capacity = 0;
    group(x, "half", 5, NULL, &half);
    group(x, "spot", 5, NULL, &spot);
    expect_error(x, &r, SC_ERR_VALIDATION,
                 "LaunchInstances supports mixed instances policies with fully On-Demand or "
                 "fully Spot purchasing options only. The group half combines On-Demand and "
                 "Spot Instances.");
    /* fully Spot is served (launched On-Demand: scalelab has no Spot market) */
    r = req("spot", 1, "t2");
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0, NULL, &x->err), SC_OK);
    assert_int_equal(find(x, "spot")->desired_capacity, 1);
}

static void test_asg_launch_weights_and_100_instance_cap(void **state)
{
    struct fx *x = *state;
    static const struct sc_asg_override_req ov[] = {
        { .instance_type = "t3.small", .weighted_capacity = "2" },
        { .instance_type = "t3.micro", .weighted_capacity = "1" },
    };
    struct sc_asg_mixed_req m = { .has_launch_template_spec = 1,
                                  .launch_template_name = "web",
                                  .has_overrides = 1,
                                  .overrides = ov,
                                  .noverrides = 2 };
    struct sc_asg_launch_req r = req("g", 3, "t1");
    const struct sc_asg_launch_info *rep = NULL;
    const struct sc_asg_group_info *g;

    group(x, "g", 1000, NULL, &m);
    g = find(x, "g");
    /* 3 units: two t3.small (4 units); desired takes the 3 asked, the overage stays */
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0, &rep, &x->err), SC_OK);
    assert_int_equal(rep->instances[0].ninstance_ids, 2);
    assert_string_equal(rep->instances[0].instance_type, "t3.small");
    assert_int_equal(sc_asg_group_capacity(g), 4);
    assert_int_equal(g->desired_capacity, 3);
    settle(x, T0 + SEC);
    assert_int_equal(sc_asg_group_capacity(g), 4);
    /* 250 units would take 125 instances: 100 launch (200 units), desired takes those */
    r = req("g", 250, "t2");
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0 + 2 * SEC, &rep, &x->err), SC_OK);
    assert_int_equal(rep->instances[0].ninstance_ids, SC_ASG_LAUNCH_MAX_INSTANCES);
    assert_int_equal(rep->nerrors, 0);
    assert_int_equal(g->desired_capacity, 203);
    assert_int_equal(sc_asg_group_capacity(g), 204);
}

static void test_asg_launch_past_max_size_refused(void **state)
{
    struct fx *x = *state;
    struct sc_asg_launch_req r = req("g", 2, "t");

    group(x, "g", 5, NULL, NULL);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 4, 0, T0, &x->err), SC_OK);
    expect_error(x, &r, SC_ERR_VALIDATION,
                 "New SetDesiredCapacity value 6 is above max value 5 for the AutoScalingGroup.");
    assert_int_equal(find(x, "g")->desired_capacity, 4);
    r.requested_capacity = 1; /* the same token again: a refused call kept nothing */
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0, NULL, &x->err), SC_OK);
    assert_int_equal(find(x, "g")->desired_capacity, 5);
}

static void test_asg_launch_client_token_idempotent_for_8_hours(void **state)
{
    struct fx *x = *state;
    static const char *const za[] = { "us-east-1a" };
    struct sc_asg_launch_req r = req("g", 2, "same");
    const struct sc_asg_launch_info *rep = NULL;
    char first[SC_ASG_ID_LEN];
    int runs;

    group(x, "g", 10, NULL, NULL);
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0, &rep, &x->err), SC_OK);
    snprintf(first, sizeof(first), "%s", rep->instances[0].instance_ids[0]);
    runs = x->f.runs;
    /* the same request within 8 hours: the first reply, nothing launched */
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0 + 8 * HOUR - 1, &rep, &x->err), SC_OK);
    assert_string_equal(rep->instances[0].instance_ids[0], first);
    assert_int_equal(x->f.runs, runs);
    assert_int_equal(find(x, "g")->desired_capacity, 2);
    /* other parameters with that token */
    r.requested_capacity = 3;
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0 + HOUR, NULL, &x->err),
                     SC_ERR_IDEMPOTENT_PARAMETER_MISMATCH);
    assert_string_equal(sc_status_code(x->err.status), "IdempotentParameterMismatch");
    assert_string_equal(x->err.message, "The parameters of this request do not match those of "
                                        "the earlier request with client token same.");
    r.requested_capacity = 2;
    r.availability_zones = za; /* a zone not sent the first time is another parameter */
    r.navailability_zones = 1;
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0 + HOUR, NULL, &x->err),
                     SC_ERR_IDEMPOTENT_PARAMETER_MISMATCH);
    /* after 8 hours the token starts a new launch */
    r.navailability_zones = 0;
    r.requested_capacity = 3;
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0 + 8 * HOUR, &rep, &x->err), SC_OK);
    assert_int_equal(x->f.runs, runs + 3);
    assert_int_equal(find(x, "g")->desired_capacity, 5);
}

static void test_asg_launch_retry_strategy_none_vs_retry_with_group_configuration(void **state)
{
    struct fx *x = *state;
    struct sc_asg_launch_req r = req("g", 3, "none-1");
    const struct sc_asg_launch_info *rep = NULL;
    const struct sc_asg_group_info *g;

    group(x, "g", 10, NULL, NULL);
    g = find(x, "g");
    /* none, partly served: one launched, an Errors item with EC2's code for the rest; desired
     * takes what launched */
    budget = 1;
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0, &rep, &x->err), SC_OK);
    assert_int_equal(rep->ninstances, 1);
    assert_int_equal(rep->instances[0].ninstance_ids, 1);
    assert_int_equal(rep->nerrors, 1);
    assert_string_equal(rep->errors[0].error_code, "InsufficientInstanceCapacity");
    assert_string_equal(rep->errors[0].error_message,
                        "There is not enough capacity to fulfill your request for instance type "
                        "'t3.micro' in 'us-east-1a'");
    assert_string_equal(rep->errors[0].availability_zone, "us-east-1a");
    assert_int_equal(g->desired_capacity, 1);
    /* the failure is a Failed activity like any failed launch */
    assert_int_equal(sc_asg_activity_count(x->asg, "g"), 2);
    assert_string_equal(sc_asg_activity_at(x->asg, "g", 1)->status_code, "Failed");
    /* none, nothing launched: desired unchanged */
    r = req("g", 2, "none-2");
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0 + SEC, &rep, &x->err), SC_OK);
    assert_int_equal(rep->ninstances, 0);
    assert_int_equal(rep->nerrors, 1);
    assert_int_equal(g->desired_capacity, 1);
    /* retry-with-group-configuration: desired takes all that was asked; the group launches
     * the rest its usual way once capacity is back */
    r = req("g", 2, "retry-1");
    r.retry_strategy = "retry-with-group-configuration";
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0 + 2 * SEC, &rep, &x->err), SC_OK);
    assert_int_equal(rep->nerrors, 1);
    assert_int_equal(g->desired_capacity, 3);
    budget = -1;
    settle(x, T0 + 5 * 60 * SEC);
    assert_int_equal(sc_asg_group_capacity(g), 3);
    assert_non_null(strstr(sc_asg_activity_at(x->asg, "g", 0)->cause,
                           "a user request launched instances with LaunchInstances, changing "
                           "the desired capacity from 1 to 3"));
}

static void test_asg_launch_warm_pool_cold_start_with_unsupported_operation(void **state)
{
    struct fx *x = *state;
    struct sc_asg_warm_req w = { .auto_scaling_group_name = "g" };
    struct sc_asg_launch_req r = req("g", 1, "t");
    const struct sc_asg_launch_info *rep = NULL;
    const struct sc_asg_group_info *g;
    int pool;

    group(x, "g", 4, NULL, NULL);
    assert_int_equal(sc_asg_put_warm_pool(x->asg, &w, T0, &x->err), SC_OK);
    settle(x, T0);
    settle(x, T0 + 10);
    g = find(x, "g");
    pool = sc_asg_warm_pool_size(g);
    assert_int_equal(pool, 4);
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0 + SEC, &rep, &x->err), SC_OK);
    /* a new instance, not one of the pool's */
    assert_int_equal(rep->ninstances, 1);
    assert_int_equal(sc_asg_warm_pool_size(g), pool);
    assert_int_equal(x->f.inst[x->f.ninst - 1].state, SC_ASG_EC2_PENDING);
    assert_string_equal(rep->instances[0].instance_ids[0], x->f.inst[x->f.ninst - 1].id);
    assert_int_equal(rep->nerrors, 1);
    assert_string_equal(rep->errors[0].error_code, "UnsupportedOperation");
    assert_int_equal(g->desired_capacity, 1);
}

static void test_asg_launch_request_constraints(void **state)
{
    struct fx *x = *state;
    static const char *const two[] = { "us-east-1a", "us-east-1b" };
    struct sc_asg_launch_req r = req("g", 0, "t");

    group(x, "g", 5, NULL, NULL);
    expect_error(x, &r, SC_ERR_VALIDATION,
                 "1 validation error detected: Value '0' at 'requestedCapacity' failed to "
                 "satisfy constraint: Member must have value greater than or equal to 1");
    r = req("g", 1, "bad token");
    expect_error(x, &r, SC_ERR_VALIDATION,
                 "1 validation error detected: Value 'bad token' at 'clientToken' failed to "
                 "satisfy constraint: Member must satisfy regular expression pattern: "
                 "[A-Za-z0-9\\-_\\/]+");
    r = req("g", 1, "t");
    r.availability_zones = two;
    r.navailability_zones = 2;
    expect_error(x, &r, SC_ERR_VALIDATION,
                 "1 validation error detected: Value at 'availabilityZones' failed to satisfy "
                 "constraint: Member must have length less than or equal to 1");
    r = req("g", 1, "t");
    r.retry_strategy = "always";
    expect_error(x, &r, SC_ERR_VALIDATION,
                 "1 validation error detected: Value 'always' at 'retryStrategy' failed to "
                 "satisfy constraint: Member must satisfy enum value set: "
                 "[retry-with-group-configuration, none]");
    r = req("nope", 1, "t");
    expect_error(x, &r, SC_ERR_VALIDATION,
                 "AutoScalingGroup name not found - AutoScalingGroup: nope not found");
}

static void test_asg_launch_client_tokens_saved_and_loaded(void **state)
{
    struct fx *x = *state;
    struct sc_asg_launch_req r = req("g", 2, "kept");
    const struct sc_asg_launch_info *rep = NULL;
    struct fx y = { 0 };
    json_t *saved;
    char first[SC_ASG_ID_LEN];

    group(x, "g", 5, NULL, NULL);
    assert_int_equal(sc_asg_launch_instances(x->asg, &r, T0, &rep, &x->err), SC_OK);
    snprintf(first, sizeof(first), "%s", rep->instances[0].instance_ids[1]);
    saved = sc_asg_save(x->asg);
    assert_non_null(saved);
    sc_rng_init(&y.rng, 9);
    y.asg = fx_asg_with(&y, launch_env(&y));
    assert_int_equal(sc_asg_load(y.asg, saved, &y.err), SC_OK);
    json_decref(saved);
    assert_int_equal(sc_asg_launch_instances(y.asg, &r, T0 + HOUR, &rep, &y.err), SC_OK);
    assert_int_equal(y.f.runs, 0); /* answered from the token, nothing launched */
    assert_string_equal(rep->instances[0].instance_ids[1], first);
    r.requested_capacity = 1;
    assert_int_equal(sc_asg_launch_instances(y.asg, &r, T0 + HOUR, &rep, &y.err),
                     SC_ERR_IDEMPOTENT_PARAMETER_MISMATCH);
    sc_asg_destroy(y.asg);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, fx_teardown)
    const struct CMUnitTest tests[] = {
        T(test_asg_launch_single_zone_group_needs_no_zone),
        T(test_asg_launch_zone_selection),
        T(test_asg_launch_launch_configuration_group_refused),
        T(test_asg_launch_mixed_on_demand_and_spot_refused),
        T(test_asg_launch_weights_and_100_instance_cap),
        T(test_asg_launch_past_max_size_refused),
        T(test_asg_launch_client_token_idempotent_for_8_hours),
        T(test_asg_launch_retry_strategy_none_vs_retry_with_group_configuration),
        T(test_asg_launch_warm_pool_cold_start_with_unsupported_operation),
        T(test_asg_launch_request_constraints),
        T(test_asg_launch_client_tokens_saved_and_loaded),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
