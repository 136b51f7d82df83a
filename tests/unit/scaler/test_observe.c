/* tests/unit/scaler/test_observe.c: scaler/observe.c, one test per rule of what counts as
 * an event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/alarm_composite.h"
#include "scaler/asg.h"
#include "scaler/cloudwatch.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "scaler/observe.h"
#include "scaler/world.h"

#include "world_fixture.h"

#define MAX_SEEN 256

/* What the callback saw, one line per event: "kind|subject|from|to|text". */
struct seen {
    char line[MAX_SEEN][512];
    int n;
};

static void on_event(const struct sc_event *ev, void *ud)
{
    struct seen *s = ud;
    const char *subject = ev->alarm ? ev->alarm : ev->instance_id ? ev->instance_id : ev->group;

    if (s->n == MAX_SEEN)
        return;
    snprintf(s->line[s->n], sizeof(s->line[s->n]), "%s|%s|%s|%s|%s|%s",
             sc_event_kind_name(ev->kind), subject ? subject : "", ev->from ? ev->from : "",
             ev->to ? ev->to : "", ev->text ? ev->text : "", ev->status ? ev->status : "");
    if (getenv("OBSERVE_DUMP"))
        printf("%s\n", s->line[s->n]);
    s->n++;
}

/* How many lines start with prefix and contain needle (NULL: any). */
static int count(const struct seen *s, const char *prefix, const char *needle)
{
    int n = 0;

    for (int i = 0; i < s->n; i++)
        n += strncmp(s->line[i], prefix, strlen(prefix)) == 0 &&
             (!needle || strstr(s->line[i], needle));
    return n;
}

static void make_lc(struct sc_world *w)
{
    struct sc_error err = { 0 };
    struct sc_asg_lc_req lc = { .launch_configuration_name = "lc",
                                .image_id = sc_ec2_image_at(0)->image_id,
                                .instance_type = "t3.micro" };

    assert_int_equal(sc_asg_create_launch_configuration(sc_world_asg(w), &lc, T0, &err), SC_OK);
}

static void make_group(struct sc_world *w, int desired, const char *lb)
{
    struct sc_error err = { 0 };
    static const char *const zones[] = { "us-east-1a", "us-east-1b" };
    const char *lbs[1] = { lb };
    struct sc_asg_group_req g = { .auto_scaling_group_name = "web",
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = 4,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = desired,
                                  .availability_zones = zones,
                                  .navailability_zones = 2,
                                  .load_balancer_names = lb ? lbs : NULL,
                                  .nload_balancer_names = lb ? 1 : 0 };

    assert_int_equal(sc_asg_create_group(sc_world_asg(w), &g, T0, &err), SC_OK);
}

static void make_lb(struct sc_world *w)
{
    struct sc_error err = { 0 };
    static const char *const zones[] = { "us-east-1a", "us-east-1b" };
    struct sc_elb_listener l = { .protocol = "HTTP",
                                 .load_balancer_port = 80,
                                 .instance_port = 80 };
    struct sc_elb_create_req r = { .load_balancer_name = "front",
                                   .listeners = &l,
                                   .nlisteners = 1,
                                   .availability_zones = zones,
                                   .nzones = 2 };

    assert_int_equal(sc_elb_create_load_balancer(sc_world_elb(w), &r, T0, NULL, &err), SC_OK);
}

/* Steps the world and the fixture's data plane every 10 s from..to, observing each step. */
static void run_observed(struct sc_world *w, struct sc_observer *o, struct seen *s, int64_t from,
                         int64_t to, double cpu)
{
    for (int64_t t = from; t <= to; t += 10 * SEC) {
        data_plane(w, t, 20 * SEC);
        if (cpu >= 0)
            report_cpu(w, cpu, t);
        sc_world_step(w, t);
        sc_observer_step(o, w, t, on_event, s);
    }
}

/* A group's launch tells the whole story once: the activity's start with AWS's cause, the
 * EC2 launch, Pending then InService, the activity's end Successful. */
static void test_observe_launch_story_once(void **state)
{
    struct sc_world *w = new_world(1);
    struct sc_observer *o = sc_observer_create();
    static struct seen s;

    (void)state;
    memset(&s, 0, sizeof(s));
    make_lc(w);
    make_group(w, 1, NULL);
    run_observed(w, o, &s, T0, T0 + 2 * MIN, -1);
    assert_int_equal(count(&s, "activity_start|web", "At 2026-01-01T00:00:00Z a user request"), 1);
    assert_int_equal(count(&s, "launch|i-", "|pending|"), 1);
    assert_int_equal(count(&s, "lifecycle|i-", "||Pending|"), 1);
    assert_int_equal(count(&s, "lifecycle|i-", "|Pending|InService|"), 1);
    assert_int_equal(count(&s, "instance|i-", "|pending|running|"), 1);
    assert_int_equal(count(&s, "activity_end|web", "Successful"), 1);
    /* nothing more while nothing changes */
    s.n = 0;
    run_observed(w, o, &s, T0 + 3 * MIN, T0 + 4 * MIN, -1);
    assert_int_equal(s.n, 0);
    sc_observer_destroy(o);
    sc_world_destroy(w);
}

/* An alarm's transition is one event with its StateReason; a new alarm is silent until it
 * moves. */
static void test_observe_alarm_transition_with_reason(void **state)
{
    struct sc_world *w = new_world(2);
    struct sc_observer *o = sc_observer_create();
    struct sc_error err = { 0 };
    struct sc_dimension dim = { "AutoScalingGroupName", "web" };
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
                                          .comparison_operator = "GreaterThanThreshold" };
    static struct seen s;

    (void)state;
    memset(&s, 0, sizeof(s));
    make_lc(w);
    make_group(w, 1, NULL);
    assert_int_equal(sc_cw_put_metric_alarm(sc_world_cw(w), &ar, T0, &err), SC_OK);
    run_observed(w, o, &s, T0, T0 + 10 * MIN, 95);
    assert_int_equal(count(&s, "alarm|high-cpu|INSUFFICIENT_DATA|ALARM|Threshold Crossed", NULL),
                     1);
    assert_int_equal(count(&s, "alarm|", NULL), 1);
    sc_observer_destroy(o);
    sc_world_destroy(w);
}

/* A composite alarm's transition is an alarm event too, with AWS's composite reason. */
static void test_observe_composite_alarm_transition(void **state)
{
    struct sc_world *w = new_world(2);
    struct sc_observer *o = sc_observer_create();
    struct sc_error err = { 0 };
    struct sc_dimension dim = { "AutoScalingGroupName", "web" };
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
                                          .comparison_operator = "GreaterThanThreshold" };
    struct sc_put_composite_alarm_req cr = { .alarm_name = "busy",
                                             .alarm_rule = "ALARM(high-cpu)" };
    static struct seen s;

    (void)state;
    memset(&s, 0, sizeof(s));
    make_lc(w);
    make_group(w, 1, NULL);
    assert_int_equal(sc_cw_put_metric_alarm(sc_world_cw(w), &ar, T0, &err), SC_OK);
    assert_int_equal(sc_cw_put_composite_alarm(sc_world_cw(w), &cr, T0, &err), SC_OK);
    run_observed(w, o, &s, T0, T0 + 10 * MIN, 95);
    assert_int_equal(count(&s,
                           "alarm|busy|OK|ALARM|arn:aws:cloudwatch:us-east-1:123456789012:"
                           "alarm:high-cpu transitioned to ALARM at ",
                           NULL),
                     1);
    assert_int_equal(count(&s, "alarm|", NULL), 2);
    sc_observer_destroy(o);
    sc_world_destroy(w);
}

/* A launch that fails (both of the group's zones are down) is a launch_failed event with
 * the activity's StatusCode, and no launch event. */
static void test_observe_failed_launch_is_its_own_kind(void **state)
{
    struct sc_world *w = new_world(3);
    struct sc_observer *o = sc_observer_create();
    static struct seen s;

    (void)state;
    memset(&s, 0, sizeof(s));
    make_lc(w);
    assert_int_equal(sc_ec2_zone_outage(sc_world_ec2(w), "us-east-1a", T0, NULL, 0), 0);
    assert_int_equal(sc_ec2_zone_outage(sc_world_ec2(w), "us-east-1b", T0, NULL, 0), 0);
    make_group(w, 1, NULL);
    run_observed(w, o, &s, T0, T0 + 30 * SEC, -1);
    assert_true(count(&s, "launch_failed|web", "Failed") >= 1);
    assert_int_equal(count(&s, "activity_end|", NULL), 0);
    assert_int_equal(count(&s, "launch|", NULL), 0);
    sc_observer_destroy(o);
    sc_world_destroy(w);
}

/* A load balancer's view of an instance: registered OutOfService with AWS's description,
 * then InService once its checks pass; a lost instance's termination carries its cause. */
static void test_observe_health_and_termination_cause(void **state)
{
    struct sc_world *w = new_world(4);
    struct sc_observer *o = sc_observer_create();
    static struct seen s;
    char id[SC_ASG_ID_LEN];

    (void)state;
    memset(&s, 0, sizeof(s));
    make_lb(w);
    make_lc(w);
    make_group(w, 1, "front");
    run_observed(w, o, &s, T0, T0 + MIN, -1);
    assert_int_equal(count(&s, "health|i-", "||OutOfService|"), 1);
    assert_int_equal(count(&s, "health|i-", "|OutOfService|InService|"), 1);
    snprintf(id, sizeof(id), "%s", member_id(w, "web", 0));
    s.n = 0;
    assert_int_equal(sc_ec2_instance_lost(sc_world_ec2(w), id, T0 + MIN + 5 * SEC), SC_OK);
    run_observed(w, o, &s, T0 + MIN + 10 * SEC, T0 + 3 * MIN, -1);
    assert_int_equal(count(&s, "instance|", "|running|terminated|"), 1);
    assert_int_equal(
        count(&s, "activity_start|web", "taken out of service in response to a EC2 health check"),
        1);
    sc_observer_destroy(o);
    sc_world_destroy(w);
}

/* A world loaded from a state file starts silent: sync remembers, the next step reports
 * only what changed after it. */
static void test_observe_sync_is_silent(void **state)
{
    struct sc_world *w = new_world(5);
    struct sc_observer *o = sc_observer_create();
    static struct seen s;

    (void)state;
    memset(&s, 0, sizeof(s));
    make_lc(w);
    make_group(w, 1, NULL);
    run(w, T0, T0 + MIN, -1, 20 * SEC);
    sc_observer_sync(o, w, T0 + MIN);
    assert_int_equal(sc_observer_step(o, w, T0 + MIN, on_event, &s), 0);
    assert_int_equal(s.n, 0);
    assert_string_equal(sc_event_kind_name(SC_EVENT_HEALTH), "health");
    assert_string_equal(sc_event_kind_name(SC_EVENT_KIND_COUNT), "unknown");
    (void)up_policy;
    (void)cpu50_policy;
    sc_observer_destroy(o);
    sc_observer_destroy(NULL);
    sc_world_destroy(w);
}

static void put_alarm(struct sc_world *w, const char *name)
{
    struct sc_error err = { 0 };
    struct sc_put_metric_alarm_req ar = { .alarm_name = name,
                                          .metric_name = "CPUUtilization",
                                          .namespace = "AWS/EC2",
                                          .statistic = "Average",
                                          .has_period = 1,
                                          .period = 60,
                                          .has_evaluation_periods = 1,
                                          .evaluation_periods = 1,
                                          .has_threshold = 1,
                                          .threshold = 80,
                                          .comparison_operator = "GreaterThanThreshold" };

    assert_int_equal(sc_cw_put_metric_alarm(sc_world_cw(w), &ar, T0, &err), SC_OK);
}

static void set_state(struct sc_world *w, const char *name, const char *state)
{
    struct sc_error err = { 0 };
    struct sc_set_alarm_state_req r = { .alarm_name = name,
                                        .state_value = state,
                                        .state_reason = "test" };

    assert_int_equal(sc_cw_set_alarm_state(sc_world_cw(w), &r, T0, &err), SC_OK);
}

static int count_visit(const struct sc_alarm_view *a, void *ud)
{
    (void)a;
    ++*(int *)ud;
    return 0;
}

/* The registry numbers each creation and state change: visiting what changed since a
 * number visits only those alarms, and nothing when nothing changed. */
static void test_observe_alarm_registry_visits_only_changed(void **state)
{
    struct sc_world *w = new_world(2);
    struct sc_alarms *a = sc_cw_alarms(sc_world_cw(w));
    char name[32];
    uint64_t seq;
    int n = 0;

    (void)state;
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "a-%04d", i);
        put_alarm(w, name);
    }
    seq = sc_alarms_change_seq(a);
    sc_alarms_visit_changed(a, seq, count_visit, NULL, &n);
    assert_int_equal(n, 0);
    set_state(w, "a-0500", "ALARM");
    put_alarm(w, "b-new");
    sc_alarms_visit_changed(a, seq, count_visit, NULL, &n);
    assert_int_equal(n, 2);
    n = 0;
    sc_alarms_visit_changed(a, 0, count_visit, NULL, &n);
    assert_int_equal(n, 1001);
    sc_world_destroy(w);
}

/* The observer's alarm memory is incremental: among 1,000 alarms a step after one
 * SetAlarmState reports exactly that transition, and the next step nothing. */
static void test_observe_alarms_incremental(void **state)
{
    struct sc_world *w = new_world(2);
    struct sc_observer *o = sc_observer_create();
    static struct seen s;
    char name[32];

    (void)state;
    memset(&s, 0, sizeof(s));
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "a-%04d", i);
        put_alarm(w, name);
    }
    assert_int_equal(sc_observer_step(o, w, T0, on_event, &s), 0);
    set_state(w, "a-0500", "ALARM");
    assert_int_equal(sc_observer_step(o, w, T0, on_event, &s), 1);
    assert_int_equal(count(&s, "alarm|a-0500|INSUFFICIENT_DATA|ALARM|test", NULL), 1);
    assert_int_equal(sc_observer_step(o, w, T0, on_event, &s), 0);
    set_state(w, "a-0500", "OK");
    set_state(w, "a-0001", "OK");
    assert_int_equal(sc_observer_step(o, w, T0, on_event, &s), 2);
    assert_string_equal(s.line[1], "alarm|a-0001|INSUFFICIENT_DATA|OK|test|");
    assert_string_equal(s.line[2], "alarm|a-0500|ALARM|OK|test|");
    sc_observer_destroy(o);
    sc_world_destroy(w);
}

/* A deleted alarm is forgotten: created again under its name it starts anew
 * (INSUFFICIENT_DATA, silent) and its next transition is from there. Deleted and created
 * again between two steps, it is the one alarm whose state went back, as before. */
static void test_observe_deleted_alarm_forgotten(void **state)
{
    struct sc_world *w = new_world(2);
    struct sc_observer *o = sc_observer_create();
    struct sc_error err = { 0 };
    const char *names[] = { "x" };
    static struct seen s;

    (void)state;
    memset(&s, 0, sizeof(s));
    put_alarm(w, "w");
    put_alarm(w, "x");
    set_state(w, "x", "ALARM");
    sc_observer_step(o, w, T0, NULL, NULL);
    assert_int_equal(sc_cw_delete_alarms(sc_world_cw(w), names, 1, T0, &err), SC_OK);
    assert_int_equal(sc_observer_step(o, w, T0, on_event, &s), 0);
    put_alarm(w, "x");
    assert_int_equal(sc_observer_step(o, w, T0, on_event, &s), 0);
    set_state(w, "x", "ALARM");
    assert_int_equal(sc_observer_step(o, w, T0, on_event, &s), 1);
    assert_string_equal(s.line[0], "alarm|x|INSUFFICIENT_DATA|ALARM|test|");
    assert_int_equal(sc_cw_delete_alarms(sc_world_cw(w), names, 1, T0, &err), SC_OK);
    put_alarm(w, "x");
    assert_int_equal(sc_observer_step(o, w, T0, on_event, &s), 1);
    assert_string_equal(s.line[1], "alarm|x|ALARM|INSUFFICIENT_DATA|Unchecked: Initial alarm "
                                   "creation|");
    sc_observer_destroy(o);
    sc_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_observe_launch_story_once),
        cmocka_unit_test(test_observe_alarm_transition_with_reason),
        cmocka_unit_test(test_observe_composite_alarm_transition),
        cmocka_unit_test(test_observe_failed_launch_is_its_own_kind),
        cmocka_unit_test(test_observe_health_and_termination_cause),
        cmocka_unit_test(test_observe_sync_is_silent),
        cmocka_unit_test(test_observe_alarm_registry_visits_only_changed),
        cmocka_unit_test(test_observe_alarms_incremental),
        cmocka_unit_test(test_observe_deleted_alarm_forgotten),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
