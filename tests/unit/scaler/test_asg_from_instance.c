/* tests/unit/scaler/test_asg_from_instance.c: a launch configuration and a group made from
 * an EC2 instance (CreateLaunchConfiguration / CreateAutoScalingGroup InstanceId), one test
 * per rule of docs/autoscaling.md section 15, against a real sc_world (its EC2 answers
 * env.instance_attrs). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/asg.h"
#include "scaler/ec2.h"
#include "scaler/world.h"

#define T0  1767225600000LL /* 2026-01-01T00:00:00Z */
#define SEC 1000LL

struct fx {
    struct sc_world *w;
    struct sc_asg *asg;
    struct sc_ec2 *ec2;
    struct sc_error err;
    char id[SC_EC2_ID_LEN]; /* the source instance */
    char zone[64];
    char subnet[64];
};

static int setup(void **state)
{
    struct sc_world_config cfg;
    struct fx *x = calloc(1, sizeof(*x));
    const struct sc_ec2_reservation *res = NULL;
    struct sc_ec2_run_req rr = { .image_id = "ami-0123456789abcdef0",
                                 .instance_type = "t3.small",
                                 .min_count = 1,
                                 .max_count = 1,
                                 .key_name = "kp-1",
                                 .user_data = "IyEvYmluL3NoCg==",
                                 .monitoring_enabled = 1 };

    if (!x)
        return -1;
    sc_world_config_defaults(&cfg);
    cfg.seed = 13;
    cfg.start_ms = T0;
    x->w = sc_world_create(&cfg);
    if (!x->w)
        return -1;
    x->asg = sc_world_asg(x->w);
    x->ec2 = sc_world_ec2(x->w);
    if (sc_ec2_run_instances(x->ec2, &rr, T0, &res, &x->err) != SC_OK || !res ||
        res->ninstances != 1)
        return -1;
    snprintf(x->id, sizeof(x->id), "%s", res->instances[0]->instance_id);
    snprintf(x->zone, sizeof(x->zone), "%s", res->instances[0]->availability_zone);
    snprintf(x->subnet, sizeof(x->subnet), "%s",
             res->instances[0]->subnet_id ? res->instances[0]->subnet_id : "");
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    struct fx *x = *state;

    sc_world_destroy(x->w);
    free(x);
    return 0;
}

static struct sc_asg_group_req group_req(struct fx *x, const char *name)
{
    struct sc_asg_group_req r = { .auto_scaling_group_name = name,
                                  .instance_id = x->id,
                                  .has_min_size = 1,
                                  .min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = 3,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = 2 };
    return r;
}

/* The rule itself: every member the request leaves out comes from the instance. */
static void test_lc_from_instance_derives_missing_members(void **state)
{
    const char *sgs[] = { "sg-1", "sg-2" };
    struct sc_asg_instance_attrs a = { .image_id = "ami-i",
                                       .instance_type = "c5.large",
                                       .key_name = "k",
                                       .user_data = "dWQ=",
                                       .iam_instance_profile = "prof",
                                       .security_groups = sgs,
                                       .nsecurity_groups = 2,
                                       .monitoring_enabled = 0 };
    struct sc_asg_lc_req rq = { .launch_configuration_name = "lc", .instance_id = "i-1" }, out;

    (void)state;
    sc_asg_lc_from_instance(&rq, &a, &out);
    assert_string_equal(out.launch_configuration_name, "lc");
    assert_null(out.instance_id);
    assert_string_equal(out.image_id, "ami-i");
    assert_string_equal(out.instance_type, "c5.large");
    assert_string_equal(out.key_name, "k");
    assert_string_equal(out.user_data, "dWQ=");
    assert_string_equal(out.iam_instance_profile, "prof");
    assert_int_equal(out.nsecurity_groups, 2);
    assert_string_equal(out.security_groups[1], "sg-2");
    assert_int_equal(out.has_instance_monitoring, 1);
    assert_int_equal(out.instance_monitoring, 0);
}

/* Members given in the request override the instance's. */
static void test_lc_from_instance_request_members_win(void **state)
{
    const char *isg[] = { "sg-i" }, *rsg[] = { "sg-r" };
    struct sc_asg_instance_attrs a = { .image_id = "ami-i",
                                       .instance_type = "c5.large",
                                       .key_name = "k",
                                       .security_groups = isg,
                                       .nsecurity_groups = 1,
                                       .monitoring_enabled = 1 };
    struct sc_asg_lc_req rq = { .launch_configuration_name = "lc",
                                .instance_id = "i-1",
                                .instance_type = "t3.nano",
                                .key_name = "mine",
                                .security_groups = rsg,
                                .nsecurity_groups = 1,
                                .has_instance_monitoring = 1,
                                .instance_monitoring = 0 },
                         out;

    (void)state;
    sc_asg_lc_from_instance(&rq, &a, &out);
    assert_string_equal(out.image_id, "ami-i");
    assert_string_equal(out.instance_type, "t3.nano");
    assert_string_equal(out.key_name, "mine");
    assert_string_equal(out.security_groups[0], "sg-r");
    assert_int_equal(out.instance_monitoring, 0);
}

/* CreateLaunchConfiguration with only a name and an InstanceId stores the instance's
 * attributes. */
static void test_create_lc_from_instance_id(void **state)
{
    struct fx *x = *state;
    struct sc_asg_lc_req rq = { .launch_configuration_name = "from-i", .instance_id = x->id };
    const struct sc_asg_lc_info *lc;

    assert_int_equal(sc_asg_create_launch_configuration(x->asg, &rq, T0, &x->err), SC_OK);
    lc = sc_asg_lc_find(x->asg, "from-i");
    assert_non_null(lc);
    assert_string_equal(lc->image_id, "ami-0123456789abcdef0");
    assert_string_equal(lc->instance_type, "t3.small");
    assert_string_equal(lc->key_name, "kp-1");
    assert_string_equal(lc->user_data, "IyEvYmluL3NoCg==");
    assert_int_equal(lc->instance_monitoring, 1);
}

/* An unknown instance: ValidationError with EC2's text, nothing stored. */
static void test_create_lc_unknown_instance_refused(void **state)
{
    struct fx *x = *state;
    struct sc_asg_lc_req rq = { .launch_configuration_name = "x",
                                .instance_id = "i-0123456789abcdef0" };

    assert_int_equal(sc_asg_create_launch_configuration(x->asg, &rq, T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, "The instance ID 'i-0123456789abcdef0' does not exist");
    assert_int_equal(sc_asg_lc_count(x->asg), 0);
}

/* A terminated instance counts as unknown. */
static void test_create_lc_terminated_instance_refused(void **state)
{
    struct fx *x = *state;
    const char *ids[] = { x->id };
    struct sc_asg_lc_req rq = { .launch_configuration_name = "x", .instance_id = x->id };

    assert_int_equal(sc_ec2_terminate_instances(x->ec2, ids, 1, T0, NULL, &x->err), SC_OK);
    assert_int_equal(sc_ec2_instance_terminated(x->ec2, x->id, T0 + SEC), SC_OK);
    assert_int_equal(sc_asg_create_launch_configuration(x->asg, &rq, T0 + 2 * SEC, &x->err),
                     SC_ERR_VALIDATION);
    assert_int_equal(sc_asg_lc_count(x->asg), 0);
}

/* Without an InstanceId ImageId and InstanceType stay required. */
static void test_create_lc_without_instance_needs_image(void **state)
{
    struct fx *x = *state;
    struct sc_asg_lc_req rq = { .launch_configuration_name = "x", .instance_type = "t3.micro" };

    assert_int_equal(sc_asg_create_launch_configuration(x->asg, &rq, T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(
        x->err.message,
        "Invalid launch configuration: ImageId must be specified when InstanceId is not given.");
}

/* CreateAutoScalingGroup with InstanceId: an LC named after the group, derived from the
 * instance; the group uses it and, without zones or subnets, the instance's subnet/zone. */
static void test_create_group_from_instance_names_lc_after_group(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = group_req(x, "web");
    const struct sc_asg_group_info *g;
    const struct sc_asg_lc_info *lc;

    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    lc = sc_asg_lc_find(x->asg, "web");
    assert_non_null(lc);
    assert_string_equal(lc->image_id, "ami-0123456789abcdef0");
    assert_string_equal(lc->instance_type, "t3.small");
    g = sc_asg_group_find(x->asg, "web");
    assert_non_null(g);
    assert_string_equal(g->launch_configuration_name, "web");
    assert_int_equal(g->navailability_zones, 1);
    assert_string_equal(g->availability_zones[0], x->zone);
    assert_string_equal(g->vpc_zone_identifier, x->subnet);
}

/* Zones given in the request are kept. */
static void test_create_group_from_instance_keeps_given_zones(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = group_req(x, "web");
    const char *zones[] = { "us-east-1b" };
    const struct sc_asg_group_info *g;

    r.availability_zones = zones;
    r.navailability_zones = 1;
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    g = sc_asg_group_find(x->asg, "web");
    assert_string_equal(g->availability_zones[0], "us-east-1b");
    assert_string_equal(g->vpc_zone_identifier, "");
}

/* InstanceId with another launch source is the one-source ValidationError. */
static void test_create_group_from_instance_with_other_source_refused(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = group_req(x, "web");

    r.launch_template_name = "lt";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
    assert_string_equal(
        x->err.message,
        "Valid requests must contain either LaunchTemplate, LaunchConfigurationName, InstanceId or MixedInstancesPolicy parameter.");
    assert_int_equal(sc_asg_lc_count(x->asg), 0);
    assert_int_equal(sc_asg_group_count(x->asg), 0);
}

/* A group refused after its LC was derived leaves no LC behind. */
static void test_create_group_from_instance_refused_leaves_no_lc(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = group_req(x, "web");

    r.min_size = 5; /* above MaxSize 3 */
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
    assert_int_equal(sc_asg_lc_count(x->asg), 0);
    assert_int_equal(sc_asg_group_count(x->asg), 0);
}

/* An unknown instance: the same ValidationError as CreateLaunchConfiguration's. */
static void test_create_group_from_unknown_instance_refused(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = group_req(x, "web");

    r.instance_id = "i-00000000000000000";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, "The instance ID 'i-00000000000000000' does not exist");
    assert_int_equal(sc_asg_lc_count(x->asg), 0);
}

/* An LC already named as the group: AlreadyExists, no group made, the LC untouched. */
static void test_create_group_from_instance_lc_name_taken(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = group_req(x, "web");
    struct sc_asg_lc_req lq = { .launch_configuration_name = "web",
                                .image_id = "ami-other",
                                .instance_type = "t3.micro" };

    assert_int_equal(sc_asg_create_launch_configuration(x->asg, &lq, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_ERR_ALREADY_EXISTS);
    assert_int_equal(sc_asg_group_count(x->asg), 0);
    assert_string_equal(sc_asg_lc_find(x->asg, "web")->image_id, "ami-other");
}

/* The group launches its desired capacity from the derived LC, like any group; the source
 * instance is not part of it. */
static void test_group_from_instance_launches(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = group_req(x, "web");
    int from_lc = 0;

    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    for (int64_t t = T0; t <= T0 + 30 * SEC; t += 10 * SEC)
        sc_world_step(x->w, t);
    for (int i = 0; i < sc_ec2_instance_count(x->ec2); i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(x->ec2, i);

        if (in->launch_configuration_name && strcmp(in->launch_configuration_name, "web") == 0) {
            from_lc++;
            assert_string_equal(in->image_id, "ami-0123456789abcdef0");
            assert_string_equal(in->instance_type, "t3.small");
            assert_string_equal(in->key_name, "kp-1");
            assert_string_equal(in->availability_zone, x->zone);
        }
    }
    assert_int_equal(from_lc, 2);
    assert_int_equal(sc_asg_group_instance_count(sc_asg_group_find(x->asg, "web")), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lc_from_instance_derives_missing_members),
        cmocka_unit_test(test_lc_from_instance_request_members_win),
        cmocka_unit_test_setup_teardown(test_create_lc_from_instance_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_lc_unknown_instance_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_lc_terminated_instance_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_create_lc_without_instance_needs_image, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_create_group_from_instance_names_lc_after_group, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_create_group_from_instance_keeps_given_zones, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_create_group_from_instance_with_other_source_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_group_from_instance_refused_leaves_no_lc, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_create_group_from_unknown_instance_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_create_group_from_instance_lc_name_taken, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_group_from_instance_launches, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
