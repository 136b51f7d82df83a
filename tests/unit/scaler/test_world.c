/* tests/unit/scaler/test_world.c: scaler/world.c end to end (EC2 + ELB +
 * CloudWatch + Auto Scaling), with a minimal data plane in the test and time
 * passed in. */
#include "scaler/world.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/asg.h"
#include "scaler/asg_warm.h"
#include "scaler/cloudwatch.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "tests/unit/scaler/world_fixture.h"

static void make_group(struct sc_world *w, const char *name, int min, int max, int desired)
{
    struct sc_error err = { 0 };
    static const char *const zones[] = { "us-east-1a", "us-east-1b" };
    struct sc_asg_lc_req lc = { .launch_configuration_name = "lc",
                                .image_id = NULL,
                                .instance_type = "t3.micro" };
    struct sc_asg_group_req g = { .auto_scaling_group_name = name,
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .min_size = min,
                                  .has_max_size = 1,
                                  .max_size = max,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = desired,
                                  .availability_zones = zones,
                                  .navailability_zones = 2 };

    lc.image_id = sc_ec2_image_at(0)->image_id;
    if (!sc_asg_lc_find(sc_world_asg(w), "lc"))
        assert_int_equal(sc_asg_create_launch_configuration(sc_world_asg(w), &lc, T0, &err), SC_OK);
    assert_int_equal(sc_asg_create_group(sc_world_asg(w), &g, T0, &err), SC_OK);
}

static int in_service(struct sc_world *w, const char *group)
{
    const struct sc_asg_group_info *g = sc_asg_group_find(sc_world_asg(w), group);
    int n = 0;

    for (int i = 0; i < sc_asg_group_instance_count(g); i++)
        n += sc_asg_group_instance_at(g, i)->lifecycle_state == SC_ASG_IN_SERVICE;
    return n;
}

/* The host bound (sc_world_config.host_room, the emulator's --max-instances): a group
 * asked for more than the host holds launches what fits; each launch past it is a Failed
 * activity with InsufficientInstanceCapacity's text, as AWS writes a launch failure. */
static int room_of_three(void *ud)
{
    return 3 - sc_ec2_live_count(sc_world_ec2(*(struct sc_world **)ud));
}

static void test_world_host_room_fails_launch_activities(void **state)
{
    struct sc_world_config cfg;
    struct sc_world *w = NULL;
    int failed = 0;

    (void)state;
    sc_world_config_defaults(&cfg);
    cfg.seed = 1;
    cfg.start_ms = T0;
    cfg.host_room = room_of_three;
    cfg.host_ud = &w;
    w = sc_world_create(&cfg);
    assert_non_null(w);
    make_group(w, "web", 0, 10000, 10000);
    sc_world_step(w, T0);
    run(w, T0 + 10 * SEC, T0 + 60 * SEC, -1, 0);
    assert_int_equal(sc_ec2_live_count(sc_world_ec2(w)), 3);
    assert_int_equal(in_service(w, "web"), 3);
    for (int i = 0; i < sc_asg_activity_count(sc_world_asg(w), "web"); i++) {
        const struct sc_asg_activity_info *a = sc_asg_activity_at(sc_world_asg(w), "web", i);

        if (strcmp(a->status_code, "Failed") != 0)
            continue;
        failed++;
        assert_string_equal(a->status_message, "Insufficient capacity.");
        assert_string_equal(a->description, "Launching a new EC2 instance.  Status Reason: "
                                            "Insufficient capacity. Launching EC2 instance "
                                            "failed.");
    }
    assert_true(failed >= 1);
    sc_world_destroy(w);
}

static void test_world_create_defaults(void **state)
{
    struct sc_world *w = new_world(1);

    (void)state;
    assert_string_equal(sc_world_account(w), "123456789012");
    assert_string_equal(sc_world_region(w), "us-east-1");
    assert_non_null(sc_world_cw(w));
    assert_non_null(sc_world_elb(w));
    assert_non_null(sc_world_ec2(w));
    assert_non_null(sc_world_asg(w));
    assert_int_equal(sc_ec2_zone_count(sc_world_ec2(w)), 3);
    assert_non_null(sc_ec2_zone_find(sc_world_ec2(w), "us-east-1c"));
    sc_world_destroy(w);
    sc_world_destroy(NULL);
}

static void test_world_group_launches_through_ec2(void **state)
{
    struct sc_world *w = new_world(1);
    const struct sc_ec2_instance *in;

    (void)state;
    make_group(w, "web", 1, 4, 2);
    sc_world_step(w, T0);
    assert_int_equal(sc_ec2_instance_count(sc_world_ec2(w)), 2);
    in = sc_ec2_instance_at(sc_world_ec2(w), 0);
    assert_int_equal(in->state, SC_EC2_PENDING);
    assert_string_equal(sc_ec2_instance_tag(in, "aws:autoscaling:groupName"), "web");
    assert_string_equal(in->launch_configuration_name, "lc");
    run(w, T0 + 10 * SEC, T0 + 40 * SEC, -1, 20 * SEC);
    assert_int_equal(in_service(w, "web"), 2);
    sc_world_destroy(w);
}

/* A warm-pool instance is Warmed:Stopped only once EC2 reports it stopped: while the data
 * plane has not finished stopping it (EC2 stopping) the group still shows it on its way. */
static int warm_in(struct sc_world *w, const char *group, enum sc_asg_lifecycle s)
{
    const struct sc_asg_group_info *g = sc_asg_group_find(sc_world_asg(w), group);
    int n = 0;

    for (int i = 0; i < sc_asg_group_instance_count(g); i++)
        n += sc_asg_group_instance_at(g, i)->lifecycle_state == s;
    return n;
}

static void test_world_warm_stopped_only_when_ec2_stopped(void **state)
{
    struct sc_world *w = new_world(1);
    struct sc_error err = { 0 };
    struct sc_ec2 *ec2 = sc_world_ec2(w);
    struct sc_asg_warm_req r = { .auto_scaling_group_name = "web",
                                 .has_max_group_prepared_capacity = 1,
                                 .max_group_prepared_capacity = 2 };
    int64_t t = T0;

    (void)state;
    make_group(w, "web", 0, 4, 0);
    assert_int_equal(sc_asg_put_warm_pool(sc_world_asg(w), &r, T0, &err), SC_OK);
    /* boot the pool's instances, but leave stopping ones stopping */
    for (int k = 0; k < 20; k++, t += 10 * SEC) {
        for (int i = 0; i < sc_ec2_instance_count(ec2); i++) {
            const struct sc_ec2_instance *in = sc_ec2_instance_at(ec2, i);

            if (in->state == SC_EC2_PENDING)
                sc_ec2_instance_running(ec2, in->instance_id, t);
        }
        sc_world_step(w, t);
    }
    assert_int_equal(sc_ec2_instance_count(ec2), 2);
    for (int i = 0; i < 2; i++)
        assert_int_equal(sc_ec2_instance_at(ec2, i)->state, SC_EC2_STOPPING);
    assert_int_equal(warm_in(w, "web", SC_ASG_WARMED_STOPPED), 0);
    run(w, t, t + 30 * SEC, -1, 0);
    assert_int_equal(warm_in(w, "web", SC_ASG_WARMED_STOPPED), 2);
    sc_world_destroy(w);
}

/* An alarm in ALARM for 10 minutes with a +1 simple policy and cooldown 300 s:
 * the first action adds one; the cooldown (which starts once that instance is
 * InService) silences the re-invocations until it ends, then one more: exactly
 * two added. */
static void test_world_alarm_ten_minutes_cooldown_300(void **state)
{
    struct sc_world *w = new_world(1);
    struct sc_error err = { 0 };
    const struct sc_asg_policy_info *p = NULL;
    struct sc_asg_policy_req pr = up_policy("web");
    struct sc_dimension dim = { "AutoScalingGroupName", "web" };
    const char *actions[1];
    struct sc_put_metric_alarm_req ar = { .alarm_name = "high-cpu",
                                          .metric_name = "CPUUtilization",
                                          .namespace = "AWS/EC2",
                                          .statistic = "Average",
                                          .dimensions = &dim,
                                          .n_dimensions = 1,
                                          .has_period = 1,
                                          .period = 60,
                                          .has_evaluation_periods = 1,
                                          .evaluation_periods = 1,
                                          .has_threshold = 1,
                                          .threshold = 80,
                                          .comparison_operator = "GreaterThanThreshold",
                                          .alarm_actions = actions,
                                          .n_alarm_actions = 1 };
    const struct sc_alarm_view *a;
    int launches = 0;

    (void)state;
    make_group(w, "web", 1, 10, 1);
    run(w, T0, T0 + 6 * MIN, 10, 30 * SEC); /* warm up at low load */
    assert_int_equal(in_service(w, "web"), 1);
    assert_int_equal(sc_asg_put_scaling_policy(sc_world_asg(w), &pr, T0 + 6 * MIN, &p, &err),
                     SC_OK);
    actions[0] = p->policy_arn;
    assert_int_equal(sc_cw_put_metric_alarm(sc_world_cw(w), &ar, T0 + 6 * MIN, &err), SC_OK);
    run(w, T0 + 6 * MIN + 10 * SEC, T0 + 10 * MIN, 10, 30 * SEC);
    assert_int_equal(sc_asg_group_find(sc_world_asg(w), "web")->desired_capacity, 1);
    /* ten minutes of 95% CPU: the alarm is in ALARM from the first evaluated
     * minute */
    run(w, T0 + 10 * MIN + 10 * SEC, T0 + 20 * MIN, 95, 30 * SEC);
    a = sc_cw_alarm_find(sc_world_cw(w), "high-cpu");
    assert_non_null(a);
    assert_string_equal(a->state_value, "ALARM");
    assert_int_equal(sc_asg_group_find(sc_world_asg(w), "web")->desired_capacity, 3);
    for (int i = 0; i < sc_asg_activity_count(sc_world_asg(w), "web"); i++) {
        const struct sc_asg_activity_info *act = sc_asg_activity_at(sc_world_asg(w), "web", i);

        if (strstr(act->cause, "a monitor alarm high-cpu in state ALARM triggered "
                               "policy up changing the desired capacity from")) {
            launches++;
            assert_non_null(strstr(act->description, "Launching a new EC2 instance: i-"));
        }
    }
    assert_int_equal(launches, 2);
    sc_world_destroy(w);
}

static void test_world_lost_instance_replaced(void **state)
{
    struct sc_world *w = new_world(3);
    const struct sc_asg_group_info *g;
    char id[SC_ASG_ID_LEN];
    int found = 0;

    (void)state;
    make_group(w, "web", 2, 4, 2);
    run(w, T0, T0 + MIN, 20, 20 * SEC);
    assert_int_equal(in_service(w, "web"), 2);
    g = sc_asg_group_find(sc_world_asg(w), "web");
    snprintf(id, sizeof(id), "%s", sc_asg_group_instance_at(g, 0)->instance_id);
    assert_int_equal(sc_ec2_instance_lost(sc_world_ec2(w), id, T0 + MIN + 5 * SEC), SC_OK);
    run(w, T0 + MIN + 10 * SEC, T0 + 3 * MIN, 20, 20 * SEC);
    assert_int_equal(in_service(w, "web"), 2);
    assert_null(sc_asg_instance_group(sc_world_asg(w), id, NULL));
    for (int i = 0; i < sc_asg_activity_count(sc_world_asg(w), "web"); i++) {
        const struct sc_asg_activity_info *act = sc_asg_activity_at(sc_world_asg(w), "web", i);

        if (strstr(act->description, id) && strstr(act->description, "Terminating")) {
            found = 1;
            assert_non_null(strstr(act->cause,
                                   "an instance was taken out of service in response to a EC2 "
                                   "health check indicating it has been terminated or stopped."));
            assert_string_equal(act->status_code, "Successful");
        }
    }
    assert_true(found);
    sc_world_destroy(w);
}

static void test_world_delete_refused_then_forced(void **state)
{
    struct sc_world *w = new_world(4);
    struct sc_error err = { 0 };

    (void)state;
    make_group(w, "web", 1, 2, 1);
    run(w, T0, T0 + MIN, 20, 20 * SEC);
    assert_int_equal(sc_asg_delete_group(sc_world_asg(w), "web", 0, T0 + MIN, &err),
                     SC_ERR_RESOURCE_IN_USE);
    assert_string_equal(sc_status_code(err.status), "ResourceInUse");
    assert_int_equal(sc_asg_delete_group(sc_world_asg(w), "web", 1, T0 + MIN, &err), SC_OK);
    assert_string_equal(sc_asg_group_find(sc_world_asg(w), "web")->status, "Delete in progress");
    run(w, T0 + MIN + 10 * SEC, T0 + 2 * MIN, 20, 20 * SEC);
    assert_null(sc_asg_group_find(sc_world_asg(w), "web"));
    assert_int_equal(sc_ec2_instance_at(sc_world_ec2(w), 0)->state, SC_EC2_TERMINATED);
    sc_world_destroy(w);
}

static void snapshot(struct sc_world *w, char *out, size_t n)
{
    struct sc_ec2 *ec2 = sc_world_ec2(w);
    size_t len = 0;

    out[0] = '\0';
    for (int i = 0; i < sc_ec2_instance_count(ec2) && len < n; i++)
        len += (size_t)snprintf(out + len, n - len, "%s,", sc_ec2_instance_at(ec2, i)->instance_id);
    for (int i = 0; i < sc_asg_activity_count(sc_world_asg(w), "web") && len < n; i++) {
        const struct sc_asg_activity_info *a = sc_asg_activity_at(sc_world_asg(w), "web", i);

        len += (size_t)snprintf(out + len, n - len, "%s|%s|%s;", a->activity_id, a->cause,
                                a->status_code);
    }
}

static void scripted(struct sc_world *w)
{
    struct sc_error err = { 0 };

    make_group(w, "web", 1, 6, 3);
    run(w, T0, T0 + MIN, 30, 20 * SEC);
    assert_int_equal(sc_asg_set_desired_capacity(sc_world_asg(w), "web", 1, 0, T0 + MIN, &err),
                     SC_OK);
    run(w, T0 + MIN + 10 * SEC, T0 + 3 * MIN, 30, 20 * SEC);
}

static void test_world_same_seed_same_ids(void **state)
{
    struct sc_world *a = new_world(42), *b = new_world(42), *c = new_world(43);
    static char sa[16384], sb[16384], sc[16384];

    (void)state;
    scripted(a);
    scripted(b);
    scripted(c);
    snapshot(a, sa, sizeof(sa));
    snapshot(b, sb, sizeof(sb));
    snapshot(c, sc, sizeof(sc));
    assert_true(strlen(sa) > 100);
    assert_string_equal(sa, sb);
    assert_string_not_equal(sa, sc);
    sc_world_destroy(a);
    sc_world_destroy(b);
    sc_world_destroy(c);
}

static void test_world_report_cpu_group_excludes_warming(void **state)
{
    struct sc_world *w = new_world(5);
    struct sc_ec2 *ec2;
    char id[SC_EC2_ID_LEN];

    (void)state;
    make_group(w, "web", 1, 2, 1);
    run(w, T0, T0 + MIN, -1, 20 * SEC);
    ec2 = sc_world_ec2(w);
    snprintf(id, sizeof(id), "%s", sc_ec2_instance_at(ec2, 0)->instance_id);
    assert_int_equal(sc_world_report_instance_cpu(w, "i-0000000000000000f", 50, T0),
                     SC_ERR_INSTANCE_ID_NOT_FOUND);
    assert_int_equal(sc_world_report_instance_cpu(w, id, 101, T0), SC_ERR_VALIDATION);
    assert_false(sc_asg_instance_warmed(sc_world_asg(w), id, T0 + 2 * MIN)); /* warm-up 300 s */
    assert_true(sc_asg_instance_warmed(sc_world_asg(w), id, T0 + 7 * MIN));
    sc_world_destroy(w);
}

static void test_world_target_tracking_alarms_in_cloudwatch(void **state)
{
    struct sc_world *w = new_world(6);
    struct sc_error err = { 0 };
    const struct sc_asg_policy_info *p = NULL;
    struct sc_asg_policy_req r = cpu50_policy("web", 50);
    const struct sc_alarm_view *hi, *lo;
    char hname[200], lname[200];

    (void)state;
    make_group(w, "web", 1, 10, 2);
    assert_int_equal(sc_asg_put_scaling_policy(sc_world_asg(w), &r, T0, &p, &err), SC_OK);
    hi = sc_cw_alarm_find(sc_world_cw(w), p->alarm_names[0]);
    assert_non_null(hi);
    assert_string_equal(hi->comparison_operator, "GreaterThanThreshold");
    assert_int_equal(hi->evaluation_periods, 3);
    assert_string_equal(hi->alarm_actions[0], p->policy_arn);
    lo = sc_cw_alarm_find(sc_world_cw(w), p->alarm_names[1]);
    assert_non_null(lo);
    assert_true(lo->threshold == 45);
    snprintf(hname, sizeof(hname), "%s", p->alarm_names[0]);
    snprintf(lname, sizeof(lname), "%s", p->alarm_names[1]);
    assert_int_equal(sc_asg_delete_group(sc_world_asg(w), "web", 1, T0, &err), SC_OK);
    assert_null(sc_cw_alarm_find(sc_world_cw(w), hname));
    assert_null(sc_cw_alarm_find(sc_world_cw(w), lname));
    sc_world_destroy(w);
}

/* A policy's Alarms are the alarms whose actions name it: the simple policy an alarm's
 * AlarmActions or OKActions point at lists that alarm (name order), a target-tracking
 * policy its High and Low alarms, and a deleted alarm leaves the list. */
static void test_world_policy_alarms_are_alarms_naming_it(void **state)
{
    struct sc_world *w = new_world(7);
    struct sc_error err = { 0 };
    const struct sc_asg_policy_info *p = NULL, *tt = NULL;
    struct sc_asg_policy_req pr = up_policy("web");
    struct sc_asg_policy_req tr = cpu50_policy("web", 50);
    struct sc_dimension dim = { "AutoScalingGroupName", "web" };
    const char *actions[1];
    struct sc_put_metric_alarm_req ar = { .metric_name = "CPUUtilization",
                                          .namespace = "AWS/EC2",
                                          .statistic = "Average",
                                          .dimensions = &dim,
                                          .n_dimensions = 1,
                                          .has_period = 1,
                                          .period = 60,
                                          .has_evaluation_periods = 1,
                                          .evaluation_periods = 1,
                                          .has_threshold = 1,
                                          .threshold = 80,
                                          .comparison_operator = "GreaterThanThreshold" };
    const struct sc_alarm_view *v[4];
    const char *gone = "b-high";
    char policy_arn[400];

    (void)state;
    make_group(w, "web", 1, 10, 1);
    assert_int_equal(sc_asg_put_scaling_policy(sc_world_asg(w), &pr, T0, &p, &err), SC_OK);
    snprintf(policy_arn, sizeof(policy_arn), "%s", p->policy_arn);
    assert_int_equal(sc_world_policy_alarms(w, policy_arn, v, 4), 0);
    actions[0] = policy_arn;
    ar.alarm_name = "b-high";
    ar.alarm_actions = actions;
    ar.n_alarm_actions = 1;
    assert_int_equal(sc_cw_put_metric_alarm(sc_world_cw(w), &ar, T0, &err), SC_OK);
    ar.alarm_name = "a-ok";
    ar.alarm_actions = NULL;
    ar.n_alarm_actions = 0;
    ar.ok_actions = actions;
    ar.n_ok_actions = 1;
    assert_int_equal(sc_cw_put_metric_alarm(sc_world_cw(w), &ar, T0, &err), SC_OK);
    assert_int_equal(sc_world_policy_alarms(w, policy_arn, v, 4), 2);
    assert_string_equal(v[0]->alarm_name, "a-ok");
    assert_string_equal(v[1]->alarm_name, "b-high");
    assert_string_equal(v[1]->alarm_arn, "arn:aws:cloudwatch:us-east-1:123456789012:alarm:b-high");
    assert_int_equal(sc_world_policy_alarms(w, policy_arn, v, 1), 2); /* counts past max */
    assert_int_equal(sc_cw_delete_alarms(sc_world_cw(w), &gone, 1, T0, &err), SC_OK);
    assert_int_equal(sc_world_policy_alarms(w, policy_arn, v, 4), 1);
    assert_int_equal(sc_asg_put_scaling_policy(sc_world_asg(w), &tr, T0, &tt, &err), SC_OK);
    assert_int_equal(sc_world_policy_alarms(w, tt->policy_arn, v, 4), 2);
    assert_string_equal(v[0]->alarm_name, tt->alarm_names[0]);
    assert_string_equal(v[1]->alarm_name, tt->alarm_names[1]);
    sc_world_destroy(w);
}

static void test_world_target_tracking_scales_out(void **state)
{
    struct sc_world *w = new_world(7);
    struct sc_error err = { 0 };
    struct sc_asg_policy_req r = cpu50_policy("web", 50);

    (void)state;
    r.has_estimated_instance_warmup = 1;
    r.estimated_instance_warmup = 60;
    make_group(w, "web", 1, 10, 2);
    assert_int_equal(sc_asg_put_scaling_policy(sc_world_asg(w), &r, T0, NULL, &err), SC_OK);
    run(w, T0, T0 + 3 * MIN, 50, 20 * SEC);
    assert_int_equal(sc_asg_group_find(sc_world_asg(w), "web")->desired_capacity, 2);
    run(w, T0 + 3 * MIN + 10 * SEC, T0 + 8 * MIN, 90, 20 * SEC);
    /* ceil(2 * 90 / 50) = 4 */
    assert_int_equal(sc_asg_group_find(sc_world_asg(w), "web")->desired_capacity >= 4, 1);
    sc_world_destroy(w);
}

static void test_world_next_due_is_bounded(void **state)
{
    struct sc_world *w = new_world(8);
    int64_t due;

    (void)state;
    make_group(w, "web", 1, 2, 1);
    sc_world_step(w, T0);
    due = sc_world_next_due_ms(w, T0);
    assert_true(due >= T0);
    assert_true(due <= T0 + MIN);
    sc_world_destroy(w);
}

/* A settled group asks for no 10 s sweep instant; a change made at an odd time waits for
 * the next sweep instant, as it would if the world were stepped at every one. */
static void test_world_quiet_sweep_not_due(void **state)
{
    struct sc_world *w = new_world(9);
    char id[SC_EC2_ID_LEN];
    int64_t t = T0 + 10 * MIN, due;
    const struct sc_asg_group_info *g;

    (void)state;
    make_group(w, "web", 2, 2, 2);
    run(w, T0, t, -1, 20 * SEC);
    assert_int_equal(in_service(w, "web"), 2);
    due = sc_world_next_due_ms(w, t);
    assert_true(due > t + 10 * SEC);

    /* lost at +25 s: no sweep at that instant, the next one (+30 s) marks it */
    snprintf(id, sizeof(id), "%s", member_id(w, "web", 0));
    assert_int_equal(sc_ec2_instance_lost(sc_world_ec2(w), id, t + 25 * SEC), SC_OK);
    sc_world_step(w, t + 25 * SEC);
    assert_int_equal(in_service(w, "web"), 2);
    assert_int_equal(sc_world_next_due_ms(w, t + 25 * SEC), t + 30 * SEC);
    sc_world_step(w, t + 30 * SEC);
    g = sc_asg_group_find(sc_world_asg(w), "web");
    assert_int_equal(in_service(w, "web"), 1);
    assert_int_equal(sc_asg_group_instance_count(g), 2); /* the replacement is pending */
    sc_world_destroy(w);
}

/* An impaired instance: the first sweep instant records it, and the group is due again
 * at the first instant past the 3-minute allowance, which marks it. */
static void test_world_quiet_sweep_impaired_wakes(void **state)
{
    struct sc_world *w = new_world(10);
    char id[SC_EC2_ID_LEN];
    int64_t t = T0 + 10 * MIN, due;

    (void)state;
    make_group(w, "web", 2, 2, 2);
    run(w, T0, t, -1, 20 * SEC);
    snprintf(id, sizeof(id), "%s", member_id(w, "web", 0));
    assert_int_equal(sc_ec2_instance_set_impaired(sc_world_ec2(w), id, 1, t + 25 * SEC), SC_OK);
    sc_world_step(w, t + 25 * SEC);
    assert_int_equal(sc_world_next_due_ms(w, t + 25 * SEC), t + 30 * SEC);
    sc_world_step(w, t + 30 * SEC);
    /* the sweep that recorded it changed the group: one more instant confirms it quiet */
    assert_int_equal(sc_world_next_due_ms(w, t + 30 * SEC), t + 40 * SEC);
    sc_world_step(w, t + 40 * SEC);
    due = sc_world_next_due_ms(w, t + 40 * SEC);
    assert_true(due > t + 50 * SEC);
    assert_true(due <= t + 30 * SEC + 3 * MIN);
    while (due < t + 30 * SEC + 3 * MIN) {
        sc_world_step(w, due);
        assert_int_equal(in_service(w, "web"), 2);
        due = sc_world_next_due_ms(w, due);
    }
    assert_int_equal(due, t + 30 * SEC + 3 * MIN);
    sc_world_step(w, due);
    assert_int_equal(in_service(w, "web"), 1);
    sc_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world_create_defaults),
        cmocka_unit_test(test_world_host_room_fails_launch_activities),
        cmocka_unit_test(test_world_group_launches_through_ec2),
        cmocka_unit_test(test_world_warm_stopped_only_when_ec2_stopped),
        cmocka_unit_test(test_world_alarm_ten_minutes_cooldown_300),
        cmocka_unit_test(test_world_lost_instance_replaced),
        cmocka_unit_test(test_world_delete_refused_then_forced),
        cmocka_unit_test(test_world_same_seed_same_ids),
        cmocka_unit_test(test_world_report_cpu_group_excludes_warming),
        cmocka_unit_test(test_world_target_tracking_alarms_in_cloudwatch),
        cmocka_unit_test(test_world_policy_alarms_are_alarms_naming_it),
        cmocka_unit_test(test_world_target_tracking_scales_out),
        cmocka_unit_test(test_world_next_due_is_bounded),
        cmocka_unit_test(test_world_quiet_sweep_not_due),
        cmocka_unit_test(test_world_quiet_sweep_impaired_wakes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
