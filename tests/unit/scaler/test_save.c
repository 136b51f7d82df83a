/* tests/unit/scaler/test_save.c: sc_world_save / sc_world_load and the services' save
 * and load (asg, ec2, elb): a world with load balancers, launch configurations and
 * templates, VPCs, groups, policies (simple, step, target tracking), activities and
 * instances in every state saves, loads into a new world (another seed) and saves again
 * to the same JSON; the loaded world then behaves as the original (same ids, same
 * results); corrupt, truncated and unknown-version documents fail with a clear error
 * and leave the service empty. CloudWatch (alarms, metrics) is not in the save yet. */
#include "scaler/world.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/asg.h"
#include "scaler/cloudwatch.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "tests/unit/scaler/world_fixture.h"

/* The tutorial's load balancer, a launch configuration and a template, a VPC with a
 * subnet, three groups (one force-deleted), policies of every type, activities and
 * instances in many states, standalone and stopped instances. */
static void build(struct sc_world *w)
{
    struct sc_error err = { 0 };
    struct sc_asg *asg = sc_world_asg(w);
    struct sc_elb *elb = sc_world_elb(w);
    struct sc_ec2 *ec2 = sc_world_ec2(w);
    static const char *const zones[] = { "us-east-1a", "us-east-1b" };
    static const char *const lbzones[] = { "us-east-1c" };
    const struct sc_elb_listener listeners[] = { { "HTTP", 80, "HTTP", 8280, NULL },
                                                 { "TCP", 443, "TCP", 8243, NULL } };
    const struct sc_elb_tag lbtag = { "team", "lab" };
    const char *lbnames[] = { "autoscalelb" };
    struct sc_elb_create_req lr = { .load_balancer_name = "autoscalelb",
                                    .listeners = listeners,
                                    .nlisteners = 2,
                                    .availability_zones = lbzones,
                                    .nzones = 1,
                                    .tags = &lbtag,
                                    .ntags = 1 };
    struct sc_elb_health_check hc = { "TCP:8280", 5, 3, 2, 2 };
    struct sc_elb_attributes_req ar = { .has_connection_draining = 1,
                                        .connection_draining_enabled = 1,
                                        .has_connection_draining_timeout = 1,
                                        .connection_draining_timeout_s = 120,
                                        .has_cross_zone = 1,
                                        .cross_zone_enabled = 1 };
    struct sc_asg_lc_req lc = { .launch_configuration_name = "autoscalelc",
                                .instance_type = "m1.large",
                                .user_data = "{\"boot_s\": 60}" };
    struct sc_ec2_lt_create_req lt = { .launch_template_name = "tmpl",
                                       .version_description = "first" };
    const struct sc_ec2_vpc *vpc = NULL;
    const struct sc_ec2_subnet *sub = NULL;
    const struct sc_ec2_reservation *res = NULL;
    struct sc_ec2_run_req rr = { .min_count = 2, .max_count = 2 };
    const struct sc_ec2_tag etag = { "Name", "standalone" };
    struct sc_asg_tag_req gtag = { "web", "auto-scaling-group", "env", "test", 1 };
    struct sc_asg_group_req web = { .auto_scaling_group_name = "web",
                                    .launch_configuration_name = "autoscalelc",
                                    .has_min_size = 1,
                                    .min_size = 1,
                                    .has_max_size = 1,
                                    .max_size = 10,
                                    .has_desired_capacity = 1,
                                    .desired_capacity = 4,
                                    .availability_zones = lbzones,
                                    .navailability_zones = 1,
                                    .load_balancer_names = lbnames,
                                    .nload_balancer_names = 1,
                                    .health_check_type = "ELB",
                                    .has_health_check_grace_period = 1,
                                    .health_check_grace_period = 30,
                                    .tags = &gtag,
                                    .ntags = 1 };
    struct sc_asg_group_req vpcg = { .auto_scaling_group_name = "vpc-group",
                                     .launch_template_name = "tmpl",
                                     .has_min_size = 1,
                                     .min_size = 0,
                                     .has_max_size = 1,
                                     .max_size = 3,
                                     .has_desired_capacity = 1,
                                     .desired_capacity = 2 };
    struct sc_asg_group_req gone = { .auto_scaling_group_name = "gone",
                                     .launch_configuration_name = "autoscalelc",
                                     .has_min_size = 1,
                                     .min_size = 1,
                                     .has_max_size = 1,
                                     .max_size = 2,
                                     .availability_zones = zones,
                                     .navailability_zones = 2 };
    static const struct sc_step_adjustment steps[] = { { 1, 0, 1, 10, 1 }, { 1, 10, 0, 0, 2 } };
    struct sc_asg_policy_req up = up_policy("web");
    struct sc_asg_policy_req step = { .auto_scaling_group_name = "web",
                                      .policy_name = "step",
                                      .policy_type = "StepScaling",
                                      .adjustment_type = "ChangeInCapacity",
                                      .step_adjustments = steps,
                                      .nstep_adjustments = 2,
                                      .has_estimated_instance_warmup = 1,
                                      .estimated_instance_warmup = 60 };
    struct sc_asg_policy_req tt = cpu50_policy("vpc-group", 50.5);
    struct sc_asg_exec_req ex = { .auto_scaling_group_name = "web", .policy_name = "up" };
    const char *sus[] = { "AZRebalance" };
    const char *ids[1];
    char vzi[64];

    lc.image_id = sc_ec2_image_at(0)->image_id;
    lt.data.image_id = lc.image_id;
    lt.data.instance_type = "t3.micro";
    assert_int_equal(sc_elb_create_load_balancer(elb, &lr, T0, NULL, &err), SC_OK);
    assert_int_equal(sc_elb_configure_health_check(elb, "autoscalelb", &hc, T0, NULL, &err), SC_OK);
    assert_int_equal(sc_elb_modify_attributes(elb, "autoscalelb", &ar, T0, NULL, &err), SC_OK);
    assert_int_equal(sc_asg_create_launch_configuration(asg, &lc, T0, &err), SC_OK);
    assert_int_equal(sc_ec2_create_launch_template(ec2, &lt, T0, NULL, &err), SC_OK);
    assert_int_equal(sc_ec2_create_vpc(ec2, "10.0.0.0/16", &etag, 1, T0, &vpc, &err), SC_OK);
    assert_int_equal(sc_ec2_create_subnet(ec2, vpc->vpc_id, "10.0.1.0/24", "us-east-1b", NULL, 0,
                                          T0, &sub, &err),
                     SC_OK);
    snprintf(vzi, sizeof(vzi), "%s", sub->subnet_id);
    vpcg.vpc_zone_identifier = vzi;
    rr.image_id = lc.image_id;
    rr.tags = &etag;
    rr.ntags = 1;
    assert_int_equal(sc_ec2_run_instances(ec2, &rr, T0, &res, &err), SC_OK);
    ids[0] = res->instances[1]->instance_id;
    assert_int_equal(sc_ec2_stop_instances(ec2, ids, 1, T0, NULL, &err), SC_OK);

    assert_int_equal(sc_asg_create_group(asg, &web, T0, &err), SC_OK);
    assert_int_equal(sc_asg_create_group(asg, &vpcg, T0, &err), SC_OK);
    assert_int_equal(sc_asg_create_group(asg, &gone, T0, &err), SC_OK);
    assert_int_equal(sc_asg_put_scaling_policy(asg, &up, T0, NULL, &err), SC_OK);
    assert_int_equal(sc_asg_put_scaling_policy(asg, &step, T0, NULL, &err), SC_OK);
    assert_int_equal(sc_asg_put_scaling_policy(asg, &tt, T0, NULL, &err), SC_OK);
    assert_int_equal(sc_asg_suspend_processes(asg, "web", sus, 1, T0, &err), SC_OK);
    assert_int_equal(
        sc_asg_enable_metrics_collection(asg, "vpc-group", NULL, 0, "1Minute", T0, &err), SC_OK);
    run(w, T0, T0 + 3 * MIN, -1, 20 * SEC);
    /* every member InService; now move some into other states */
    ids[0] = member_id(w, "web", 0);
    if (sc_asg_enter_standby(asg, "web", ids, 1, 0, T0 + 3 * MIN, &err) != SC_OK)
        fail_msg("standby: %s", err.message);
    assert_int_equal(sc_asg_execute_policy(asg, &ex, T0 + 3 * MIN, &err), SC_OK);
    assert_int_equal(sc_asg_set_instance_health(asg, member_id(w, "vpc-group", 0), "Unhealthy", 0,
                                                T0 + 3 * MIN, &err),
                     SC_OK);
    assert_int_equal(
        sc_asg_terminate_instance(asg, member_id(w, "web", 1), 0, T0 + 3 * MIN, NULL, &err), SC_OK);
    assert_int_equal(sc_asg_delete_group(asg, "gone", 1, T0 + 3 * MIN, &err), SC_OK);
    sc_world_step(w, T0 + 3 * MIN + 1);
}

static char *dump(json_t *o)
{
    char *s;

    assert_non_null(o);
    s = json_dumps(o, JSON_COMPACT);
    assert_non_null(s);
    return s;
}

static char *save_string(const struct sc_world *w)
{
    json_t *o = sc_world_save(w);
    char *s = dump(o);

    json_decref(o);
    return s;
}

/* A new world (another seed) loaded from w's save. */
static struct sc_world *reload(const struct sc_world *w)
{
    json_t *o = sc_world_save(w);
    struct sc_world *n = new_world(99);
    struct sc_error err = { 0 };

    assert_non_null(o);
    if (sc_world_load(n, o, &err) != SC_OK)
        fail_msg("load: %s", err.message);
    json_decref(o);
    return n;
}

static void test_save_round_trip(void **state)
{
    struct sc_world *w = new_world(1), *n;
    char *a, *b;
    const struct sc_asg_group_info *g;
    int states[SC_ASG_STANDBY + 1] = { 0 };

    (void)state;
    build(w);
    /* the world covers what the save has to: instances in several lifecycle states */
    for (int i = 0; i < sc_asg_group_count(sc_world_asg(w)); i++) {
        g = sc_asg_group_at(sc_world_asg(w), i);
        for (int k = 0; k < sc_asg_group_instance_count(g); k++)
            states[sc_asg_group_instance_at(g, k)->lifecycle_state]++;
    }
    assert_true(states[SC_ASG_PENDING] > 0);
    assert_true(states[SC_ASG_IN_SERVICE] > 0);
    assert_true(states[SC_ASG_STANDBY] + states[SC_ASG_ENTERING_STANDBY] > 0);
    assert_true(states[SC_ASG_TERMINATING] + states[SC_ASG_TERMINATING_WAIT] > 0);
    assert_string_equal(sc_asg_group_find(sc_world_asg(w), "gone")->status, "Delete in progress");
    assert_true(sc_asg_activity_count(sc_world_asg(w), "web") > 3);

    a = save_string(w);
    n = reload(w);
    b = save_string(n);
    assert_string_equal(a, b);
    /* spot checks through the services' own reads */
    g = sc_asg_group_find(sc_world_asg(n), "web");
    assert_non_null(g);
    assert_string_equal(g->auto_scaling_group_arn,
                        sc_asg_group_find(sc_world_asg(w), "web")->auto_scaling_group_arn);
    assert_int_equal(g->desired_capacity, 5);
    assert_non_null(sc_asg_policy_find(sc_world_asg(n), "web", "step"));
    assert_int_equal(sc_elb_lb_find(sc_world_elb(n), "autoscalelb")->health_check.interval_s, 5);
    assert_int_equal(sc_ec2_vpc_count(sc_world_ec2(n)), 2);
    free(a);
    free(b);
    sc_world_destroy(n);
    sc_world_destroy(w);
}

/* The loaded world goes on as the original would: same ids, same activities. */
static void test_save_loaded_world_continues(void **state)
{
    struct sc_world *w = new_world(1), *n;
    struct sc_error err = { 0 };
    char *a, *b;

    (void)state;
    build(w);
    n = reload(w);
    for (int k = 0; k < 2; k++) {
        struct sc_world *x = k ? n : w;

        assert_int_equal(
            sc_asg_set_desired_capacity(sc_world_asg(x), "web", 7, 0, T0 + 4 * MIN, &err), SC_OK);
        run(x, T0 + 4 * MIN, T0 + 12 * MIN, -1, 20 * SEC);
    }
    a = save_string(w);
    b = save_string(n);
    assert_string_equal(a, b);
    free(a);
    free(b);
    sc_world_destroy(n);
    sc_world_destroy(w);
}

static void test_save_empty_world(void **state)
{
    struct sc_world *w = new_world(5), *n;
    char *a, *b;

    (void)state;
    a = save_string(w);
    n = reload(w);
    b = save_string(n);
    assert_string_equal(a, b);
    /* the default VPC's ids are the saved ones, not the new seed's */
    assert_string_equal(sc_ec2_default_vpc(sc_world_ec2(n))->vpc_id,
                        sc_ec2_default_vpc(sc_world_ec2(w))->vpc_id);
    free(a);
    free(b);
    sc_world_destroy(n);
    sc_world_destroy(w);
}

/* Applies a JSON-pointer-like edit ("asg/groups/0/min_size") to a copy of doc. */
static json_t *edited(const json_t *doc, const char *path, json_t *value)
{
    json_t *copy = json_deep_copy(doc);
    json_t *cur = copy;
    char buf[256];
    char *save = NULL, *tok, *next;

    snprintf(buf, sizeof(buf), "%s", path);
    tok = strtok_r(buf, "/", &save);
    while (tok) {
        next = strtok_r(NULL, "/", &save);
        if (!next) {
            if (json_is_array(cur)) {
                size_t i = strtoul(tok, NULL, 10);

                if (value)
                    json_array_set_new(cur, i, value);
                else
                    json_array_remove(cur, i);
            } else if (value) {
                json_object_set_new(cur, tok, value);
            } else {
                json_object_del(cur, tok);
            }
            break;
        }
        cur = json_is_array(cur) ? json_array_get(cur, strtoul(tok, NULL, 10))
                                 : json_object_get(cur, tok);
        assert_non_null(cur);
        tok = next;
    }
    return copy;
}

static void test_save_corrupt_documents_fail_clearly(void **state)
{
    static const struct {
        const char *path;
        const char *value; /* JSON; NULL: remove the member */
        const char *want;  /* in the message */
    } bad[] = {
        { "version", "2", "unknown version 2" },
        { "version", NULL, "version: missing" },
        { "region", "\"eu-west-1\"", "saved for region eu-west-1" },
        { "zones/0", "\"us-east-1z\"", "zones" },
        { "rng/0", "\"xyz\"", "rng" },
        { "asg", NULL, "asg: missing" },
        { "asg/groups/0/min_size", "\"one\"", "state: asg: min_size: expected an integer" },
        { "asg/groups/1/instances/0/lifecycle_state", "\"Flying\"", "lifecycle_state" },
        { "asg/groups/1/activities/0/status_code", "\"Bogus\"", "unknown activity status" },
        { "asg/groups/1/policies/0/policy_type", "\"Magic\"", "policy_type" },
        { "asg/groups/0/name", "\"zzz\"", "not in name order" },
        { "ec2/instances/0/subnet_id", "\"subnet-0000000000000000\"", "state: ec2:" },
        { "ec2/instances/0/state", "\"exploded\"", "state: ec2:" },
        { "ec2/vpcs", "[]", "state: ec2:" },
        { "ec2/subnets/0/cidr", "\"10.0.0.0/99\"", "bad cidr" },
        { "elb/load_balancers/0/vpc_id", "\"vpc-0000000000000000\"", "unknown vpc" },
        { "elb/load_balancers/0/listeners/0/load_balancer_port", "0", "out of range" },
        { "elb/load_balancers/0/subnets", "[]", "not parallel" },
    };
    struct sc_world *w = new_world(1);
    json_t *doc;

    (void)state;
    build(w);
    doc = sc_world_save(w);
    assert_non_null(doc);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *v = bad[i].value ? json_loads(bad[i].value, JSON_DECODE_ANY, NULL) : NULL;
        json_t *d = edited(doc, bad[i].path, v);
        struct sc_world *n = new_world(7);
        struct sc_error err = { 0 };

        if (sc_world_load(n, d, &err) == SC_OK)
            fail_msg("%s: loaded", bad[i].path);
        assert_int_equal(err.status, SC_ERR_VALIDATION);
        if (!strstr(err.message, bad[i].want))
            fail_msg("%s: message '%s' lacks '%s'", bad[i].path, err.message, bad[i].want);
        /* the failing service is left empty (all or nothing) */
        if (strncmp(bad[i].path, "asg/", 4) == 0) {
            assert_int_equal(sc_asg_group_count(sc_world_asg(n)), 0);
            assert_int_equal(sc_asg_lc_count(sc_world_asg(n)), 0);
        }
        if (strncmp(bad[i].path, "elb/", 4) == 0)
            assert_int_equal(sc_elb_lb_count(sc_world_elb(n)), 0);
        if (strncmp(bad[i].path, "ec2/", 4) == 0)
            assert_int_equal(sc_ec2_instance_count(sc_world_ec2(n)), 0);
        sc_world_destroy(n);
        json_decref(d);
    }
    json_decref(doc);
    sc_world_destroy(w);
}

/* Every prefix of the saved text: either not JSON, or (the whole text) a good load. */
static void test_save_truncated_documents(void **state)
{
    struct sc_world *w = new_world(1);
    char *s;
    size_t n;

    (void)state;
    build(w);
    s = save_string(w);
    n = strlen(s);
    for (size_t cut = 0; cut < n; cut += 1 + cut / 8) {
        json_error_t jerr;
        json_t *d = json_loadb(s, cut, 0, &jerr);

        /* a prefix of one object is never a whole JSON object */
        assert_null(d);
    }
    free(s);
    sc_world_destroy(w);
}

/* Each service alone: wrong types of the whole and non-empty targets are refused. */
static void test_save_service_guards(void **state)
{
    struct sc_world *w = new_world(1), *n = new_world(2);
    struct sc_error err = { 0 };
    json_t *asg, *arr = json_array();

    (void)state;
    build(w);
    asg = sc_asg_save(sc_world_asg(w));
    assert_non_null(asg);
    assert_int_equal(sc_asg_load(sc_world_asg(n), arr, &err), SC_ERR_VALIDATION);
    assert_int_equal(sc_ec2_load(sc_world_ec2(n), arr, &err), SC_ERR_VALIDATION);
    assert_int_equal(sc_elb_load(sc_world_elb(n), arr, &err), SC_ERR_VALIDATION);
    /* into a non-empty asg: refused, nothing changed */
    assert_int_equal(sc_asg_load(sc_world_asg(w), asg, &err), SC_ERR_VALIDATION);
    assert_non_null(strstr(err.message, "non-empty"));
    json_decref(asg);
    json_decref(arr);
    sc_world_destroy(n);
    sc_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_save_round_trip),
        cmocka_unit_test(test_save_loaded_world_continues),
        cmocka_unit_test(test_save_empty_world),
        cmocka_unit_test(test_save_corrupt_documents_fail_clearly),
        cmocka_unit_test(test_save_truncated_documents),
        cmocka_unit_test(test_save_service_guards),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
