/* tests/unit/scaler/test_decision.c: scaler/decision.c and the decisions asg_policy.c and
 * asg_hook.c record (docs/decisions.md), one test per rule, in a real world with time passed
 * in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/asg.h"
#include "scaler/asg_hook.h"
#include "scaler/decision.h"
#include "scaler/ec2.h"
#include "scaler/observe.h"
#include "scaler/world.h"

#include "world_fixture.h"

#define BOOT (20 * SEC)

static void make_group(struct sc_world *w, int min, int max, int desired, int warmup_s)
{
    struct sc_error err = { 0 };
    static const char *const zones[] = { "us-east-1a", "us-east-1b" };
    struct sc_asg_lc_req lc = { .launch_configuration_name = "lc",
                                .image_id = sc_ec2_image_at(0)->image_id,
                                .instance_type = "t3.micro" };
    struct sc_asg_group_req g = { .auto_scaling_group_name = "web",
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .min_size = min,
                                  .has_max_size = 1,
                                  .max_size = max,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = desired,
                                  .has_default_instance_warmup = 1,
                                  .default_instance_warmup = warmup_s,
                                  .availability_zones = zones,
                                  .navailability_zones = 2 };

    assert_int_equal(sc_asg_create_launch_configuration(sc_world_asg(w), &lc, T0, &err), SC_OK);
    assert_int_equal(sc_asg_create_group(sc_world_asg(w), &g, T0, &err), SC_OK);
}

static const struct sc_asg_policy_info *put(struct sc_world *w, const struct sc_asg_policy_req *r)
{
    const struct sc_asg_policy_info *p = NULL;
    struct sc_error err = { 0 };

    assert_int_equal(sc_asg_put_scaling_policy(sc_world_asg(w), r, T0, &p, &err), SC_OK);
    assert_non_null(p);
    return p;
}

/* A step policy: +adj for metric - threshold in [0, +inf). */
static const struct sc_asg_policy_info *put_step(struct sc_world *w, int adj)
{
    static struct sc_step_adjustment steps[1];
    struct sc_asg_policy_req r = { .auto_scaling_group_name = "web",
                                   .policy_name = "step-out",
                                   .policy_type = "StepScaling",
                                   .adjustment_type = "ChangeInCapacity",
                                   .step_adjustments = steps,
                                   .nstep_adjustments = 1 };

    steps[0] = (struct sc_step_adjustment){ .has_lower = 1, .lower = 0, .scaling_adjustment = adj };
    return put(w, &r);
}

/* Runs the policy's alarm action as CloudWatch does, with the alarm's latest metric. */
static enum sc_status fire(struct sc_world *w, const struct sc_asg_policy_info *p,
                           const char *alarm, double metric, double threshold, int64_t now)
{
    struct sc_asg_alarm_ctx ctx = {
        .alarm_name = alarm, .has_metric_value = 1, .metric_value = metric, .threshold = threshold
    };
    struct sc_error err = { 0 };

    return sc_asg_alarm_action(sc_world_asg(w), p->policy_arn, &ctx, now, &err);
}

static const struct sc_decision *last_decision(struct sc_world *w)
{
    const struct sc_decision_log *l = sc_asg_decisions(sc_world_asg(w));

    return sc_decision_log_get(l, sc_decision_log_last(l));
}

static int desired(struct sc_world *w)
{
    return sc_asg_group_find(sc_world_asg(w), "web")->desired_capacity;
}

/* Issue 12's measured case through the real alarms: 2 instances InService and warmed at
 * 100 % CPU against target 50. AWS's formula: ceil(2 x 100 / 50) = 4, desired 2 -> 4. */
static void test_decision_target_tracking_two_at_100_target_50(void **state)
{
    struct sc_world *w = new_world(1);
    struct sc_asg_policy_req tt = cpu50_policy("web", 50);
    const struct sc_decision_log *l;
    const struct sc_decision *first = NULL;
    char line[1024];

    (void)state;
    make_group(w, 2, 20, 2, 0);
    put(w, &tt);
    run(w, T0, T0 + 10 * MIN, 100, BOOT);
    l = sc_asg_decisions(sc_world_asg(w));
    for (uint64_t q = 1; q <= sc_decision_log_last(l) && !first; q++)
        first = sc_decision_log_get(l, q);
    assert_non_null(first);
    assert_string_equal(first->policy, "cpu50");
    assert_string_equal(first->policy_type, "TargetTrackingScaling");
    assert_string_equal(first->trigger, "alarm");
    assert_true(strstr(first->alarm, "AlarmHigh") != NULL);
    assert_true(first->has_metric && first->metric == 100);
    assert_true(first->has_target && first->target == 50);
    assert_int_equal(first->current, 2);
    assert_int_equal(first->counted, 2);
    assert_int_equal(first->computed, 4);
    assert_int_equal(first->desired, 4);
    assert_int_equal(first->reason, SC_DECISION_CHANGED);
    assert_string_equal(first->arithmetic, "ceil(2 \xc3\x97 100 / 50) = 4");
    assert_int_equal(first->direction, 1);
    sc_decision_format(first, line, sizeof(line));
    assert_true(strstr(line, "desired 2 -> 4") != NULL);
    assert_true(desired(w) >= 4);
    sc_world_destroy(w);
}

/* Simple scaling waits for its activity to end (activity-in-progress), then for the
 * cooldown (cooldown, with the seconds left); after it, the policy runs again. */
static void test_decision_cooldown_blocks(void **state)
{
    struct sc_world *w = new_world(1);
    struct sc_asg_policy_req up = up_policy("web");
    const struct sc_asg_policy_info *p;
    const struct sc_decision *d;
    int64_t t = T0 + 2 * MIN;

    (void)state;
    make_group(w, 1, 10, 2, 0);
    p = put(w, &up);
    run(w, T0, t, -1, BOOT);
    assert_int_equal(fire(w, p, "high", 90, 70, t), SC_OK);
    d = last_decision(w);
    assert_int_equal(d->reason, SC_DECISION_CHANGED);
    assert_string_equal(d->arithmetic, "2 + 1 = 3");
    assert_int_equal(d->desired, 3);
    /* the launch has not ended: its cooldown has not started */
    assert_int_not_equal(fire(w, p, "high", 90, 70, t + 1 * SEC), SC_OK);
    d = last_decision(w);
    assert_int_equal(d->reason, SC_DECISION_ACTIVITY_IN_PROGRESS);
    assert_int_equal(d->desired, 3);
    /* the instance is InService at about +20 s: 300 s of cooldown from then */
    run(w, t + 10 * SEC, t + 60 * SEC, -1, BOOT);
    assert_int_not_equal(fire(w, p, "high", 90, 70, t + 60 * SEC), SC_OK);
    d = last_decision(w);
    assert_int_equal(d->reason, SC_DECISION_COOLDOWN);
    assert_string_equal(sc_decision_reason_name(d->reason), "cooldown");
    assert_true(d->cooldown_left_s > 200 && d->cooldown_left_s <= 300);
    assert_int_equal(d->current, 3);
    assert_int_equal(d->desired, 3);
    assert_int_equal(desired(w), 3);
    /* after the cooldown the policy scales again */
    run(w, t + 70 * SEC, t + 7 * MIN, -1, BOOT);
    assert_int_equal(fire(w, p, "high", 90, 70, t + 7 * MIN), SC_OK);
    assert_int_equal(last_decision(w)->reason, SC_DECISION_CHANGED);
    assert_int_equal(desired(w), 4);
    sc_world_destroy(w);
}

/* A step scale-out at MaxSize: computed 3, max 2, desired stays 2 (at-max). */
static void test_decision_at_max(void **state)
{
    struct sc_world *w = new_world(1);
    const struct sc_asg_policy_info *p;
    const struct sc_decision *d;
    int64_t t = T0 + 2 * MIN;
    char line[1024];

    (void)state;
    make_group(w, 1, 2, 2, 0);
    p = put_step(w, 1);
    run(w, T0, t, -1, BOOT);
    assert_int_equal(fire(w, p, "high", 90, 70, t), SC_OK);
    d = last_decision(w);
    assert_int_equal(d->reason, SC_DECISION_AT_MAX);
    assert_int_equal(d->counted, 2);
    assert_int_equal(d->computed, 3);
    assert_int_equal(d->desired, 2);
    assert_int_equal(d->max_size, 2);
    assert_string_equal(d->arithmetic,
                        "metric 90 - threshold 70 = 20 in step [0, +inf): 2 + 1 = 3");
    sc_decision_format(d, line, sizeof(line));
    assert_true(strstr(line, "desired stays 2: at-max (at MaxSize 2)") != NULL);
    assert_int_equal(desired(w), 2);
    sc_world_destroy(w);
}

/* Step scale-out while the last scale-out's instances warm: they count toward desired but
 * not yet in the arithmetic, so a breach in the same step changes nothing (not-counted). */
static void test_decision_warmup_not_counted(void **state)
{
    struct sc_world *w = new_world(1);
    const struct sc_asg_policy_info *p;
    const struct sc_decision *d;
    int64_t t = T0 + 6 * MIN;

    (void)state;
    make_group(w, 1, 10, 2, 300);
    p = put_step(w, 2);
    run(w, T0, t, -1, BOOT); /* both InService and warmed (20 s + 300 s) */
    assert_int_equal(fire(w, p, "high", 90, 70, t), SC_OK);
    d = last_decision(w);
    assert_int_equal(d->reason, SC_DECISION_CHANGED);
    assert_int_equal(d->desired, 4);
    run(w, t + 10 * SEC, t + 1 * MIN, -1, BOOT); /* the new two InService, warming */
    assert_int_not_equal(fire(w, p, "high", 90, 70, t + 1 * MIN), SC_OK);
    d = last_decision(w);
    assert_int_equal(d->reason, SC_DECISION_NOT_COUNTED);
    assert_int_equal(d->counted, 2);
    assert_int_equal(d->warming, 2);
    assert_int_equal(d->computed, 4);
    assert_int_equal(d->desired, 4);
    assert_int_equal(desired(w), 4);
    sc_world_destroy(w);
}

/* AlarmNotification suspended: the policy is not run; Launch suspended: the alarm cannot
 * start a scale-out. Both leave desired where it was and name the process. */
static void test_decision_suspended_process(void **state)
{
    struct sc_world *w = new_world(1);
    const struct sc_asg_policy_info *p;
    const struct sc_decision *d;
    static const char *const notif[] = { "AlarmNotification" };
    static const char *const launch[] = { "Launch" };
    struct sc_error err = { 0 };
    int64_t t = T0 + 2 * MIN;

    (void)state;
    make_group(w, 1, 10, 2, 0);
    p = put_step(w, 1);
    run(w, T0, t, -1, BOOT);
    assert_int_equal(sc_asg_suspend_processes(sc_world_asg(w), "web", notif, 1, t, &err), SC_OK);
    assert_int_equal(fire(w, p, "high", 90, 70, t), SC_OK);
    d = last_decision(w);
    assert_int_equal(d->reason, SC_DECISION_SUSPENDED);
    assert_string_equal(d->process, "AlarmNotification");
    assert_int_equal(desired(w), 2);
    assert_int_equal(sc_asg_resume_processes(sc_world_asg(w), "web", notif, 1, t, &err), SC_OK);
    assert_int_equal(sc_asg_suspend_processes(sc_world_asg(w), "web", launch, 1, t, &err), SC_OK);
    assert_int_equal(fire(w, p, "high", 90, 70, t + SEC), SC_OK);
    d = last_decision(w);
    assert_int_equal(d->reason, SC_DECISION_SUSPENDED);
    assert_string_equal(d->process, "Launch");
    assert_int_equal(d->computed, 3);
    assert_int_equal(d->desired, 2);
    assert_int_equal(desired(w), 2);
    /* resumed, the same breach scales out */
    assert_int_equal(sc_asg_resume_processes(sc_world_asg(w), "web", launch, 1, t, &err), SC_OK);
    assert_int_equal(fire(w, p, "high", 90, 70, t + 2 * SEC), SC_OK);
    assert_int_equal(last_decision(w)->reason, SC_DECISION_CHANGED);
    assert_int_equal(desired(w), 3);
    sc_world_destroy(w);
}

/* Target tracking removes conservatively: the Low alarm at 30 % on 4 instances against 50
 * gives ceil(4 x 30 / 50) = ceil(2.4) = 3 (removing rounds down: 1 instance, not 2); and
 * no scale-in while an instance warms (warmup). */
static void test_decision_scale_in_conservative(void **state)
{
    struct sc_world *w = new_world(1);
    struct sc_asg_policy_req tt = cpu50_policy("web", 50);
    const struct sc_asg_policy_info *p;
    const struct sc_decision *d;
    struct sc_error err = { 0 };
    int64_t t = T0 + 4 * MIN;

    (void)state;
    make_group(w, 1, 10, 4, 120);
    p = put(w, &tt);
    assert_non_null(p->alarm_names[1]);
    run(w, T0, t, -1, BOOT); /* InService at 20 s, warmed at 140 s */
    assert_int_equal(fire(w, p, p->alarm_names[1], 30, 45, t), SC_OK);
    d = last_decision(w);
    assert_int_equal(d->direction, -1);
    assert_string_equal(d->arithmetic, "ceil(4 \xc3\x97 30 / 50) = 3");
    assert_int_equal(d->reason, SC_DECISION_CHANGED);
    assert_int_equal(d->desired, 3);
    run(w, t + 10 * SEC, t + 2 * MIN, -1, BOOT);
    assert_int_equal(sc_asg_set_desired_capacity(sc_world_asg(w), "web", 4, 0, t + 2 * MIN, &err),
                     SC_OK);
    run(w, t + 2 * MIN, t + 3 * MIN, -1, BOOT); /* the new instance InService, warming */
    assert_int_not_equal(fire(w, p, p->alarm_names[1], 30, 45, t + 3 * MIN), SC_OK);
    d = last_decision(w);
    assert_int_equal(d->reason, SC_DECISION_WARMUP);
    assert_int_equal(d->warming, 1);
    assert_int_equal(desired(w), 4);
    sc_world_destroy(w);
}

/* ExecutePolicy of a step policy, PercentChangeInCapacity 25 % of 4 with
 * MinAdjustmentMagnitude 2: AWS's example, +1 raised to +2, desired 4 -> 6. */
static void test_decision_min_adjustment_magnitude(void **state)
{
    struct sc_world *w = new_world(1);
    static struct sc_step_adjustment steps[1] = {
        { .has_lower = 1, .lower = 0, .scaling_adjustment = 25 }
    };
    struct sc_asg_policy_req r = { .auto_scaling_group_name = "web",
                                   .policy_name = "pct",
                                   .policy_type = "StepScaling",
                                   .adjustment_type = "PercentChangeInCapacity",
                                   .has_min_adjustment_magnitude = 1,
                                   .min_adjustment_magnitude = 2,
                                   .step_adjustments = steps,
                                   .nstep_adjustments = 1 };
    struct sc_asg_exec_req x = { .auto_scaling_group_name = "web",
                                 .policy_name = "pct",
                                 .has_metric_value = 1,
                                 .metric_value = 59,
                                 .has_breach_threshold = 1,
                                 .breach_threshold = 50 };
    struct sc_error err = { 0 };
    const struct sc_decision *d;
    int64_t t = T0 + 2 * MIN;

    (void)state;
    make_group(w, 1, 10, 4, 0);
    put(w, &r);
    run(w, T0, t, -1, BOOT);
    assert_int_equal(sc_asg_execute_policy(sc_world_asg(w), &x, t, &err), SC_OK);
    d = last_decision(w);
    assert_string_equal(d->trigger, "ExecutePolicy");
    assert_string_equal(d->arithmetic,
                        "metric 59 - threshold 50 = 9 in step [0, +inf): 4 +25% (+1, "
                        "MinAdjustmentMagnitude 2: +2) = 6");
    assert_int_equal(d->reason, SC_DECISION_CHANGED);
    assert_int_equal(d->desired, 6);
    assert_int_equal(desired(w), 6);
    sc_world_destroy(w);
}

struct seen {
    int n;
    char line[16][256];
};

static void on_event(const struct sc_event *ev, void *ud)
{
    struct seen *s = ud;

    if (s->n < 16)
        snprintf(s->line[s->n++], sizeof(s->line[0]), "%s|%s|%s|%s", sc_event_kind_name(ev->kind),
                 ev->group ? ev->group : "", ev->to ? ev->to : "", ev->status ? ev->status : "");
}

/* The observer reports each decision once, as "decision" with the result and the reason,
 * and only the kinds asked for. */
static void test_decision_observed_once(void **state)
{
    struct sc_world *w = new_world(1);
    struct sc_observer *o = sc_observer_create();
    const struct sc_asg_policy_info *p;
    struct seen s = { 0 };
    int64_t t = T0 + 2 * MIN;

    (void)state;
    make_group(w, 1, 2, 2, 0);
    p = put_step(w, 1);
    run(w, T0, t, -1, BOOT);
    sc_observer_set_kinds(o, 1u << SC_EVENT_DECISION);
    sc_observer_sync(o, w, t);
    assert_int_equal(fire(w, p, "high", 90, 70, t), SC_OK);
    sc_world_step(w, t);
    sc_observer_step(o, w, t, on_event, &s);
    sc_observer_step(o, w, t + SEC, on_event, &s);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.line[0], "decision|web|unchanged|at-max");
    sc_observer_destroy(o);
    sc_world_destroy(w);
}

/* A launch hook: the wait (with its heartbeat timeout and default result), then the
 * heartbeat timeout applying the default result. */
static void test_decision_hook_wait_and_timeout(void **state)
{
    struct sc_world *w = new_world(1);
    struct sc_observer *o = sc_observer_create();
    struct sc_error err = { 0 };
    struct sc_asg_hook_req h = { .lifecycle_hook_name = "boot",
                                 .auto_scaling_group_name = "web",
                                 .lifecycle_transition = "autoscaling:EC2_INSTANCE_LAUNCHING",
                                 .has_heartbeat_timeout = 1,
                                 .heartbeat_timeout = 30,
                                 .default_result = "CONTINUE" };
    struct seen s = { 0 };

    (void)state;
    make_group(w, 0, 2, 0, 0);
    assert_int_equal(sc_asg_put_lifecycle_hook(sc_world_asg(w), &h, T0, &err), SC_OK);
    assert_int_equal(sc_asg_set_desired_capacity(sc_world_asg(w), "web", 1, 0, T0, &err), SC_OK);
    sc_observer_set_kinds(o, 1u << SC_EVENT_HOOK);
    for (int64_t t = T0; t <= T0 + 2 * MIN; t += 10 * SEC) {
        data_plane(w, t, BOOT);
        sc_world_step(w, t);
        sc_observer_step(o, w, t, on_event, &s);
    }
    assert_int_equal(s.n, 2);
    assert_string_equal(s.line[0], "hook|web|waiting|CONTINUE");
    assert_string_equal(s.line[1], "hook|web|timeout|CONTINUE");
    {
        const struct sc_decision_log *l = sc_asg_decisions(sc_world_asg(w));
        const struct sc_hook_note *n = sc_decision_log_get_hook(l, 2);
        char line[1024];

        assert_non_null(n);
        assert_string_equal(n->instance_id, member_id(w, "web", 0));
        assert_string_equal(n->why, "Heartbeat Timeout");
        assert_int_equal(n->launching, 1);
        sc_hook_note_format(sc_decision_log_get_hook(l, 1), line, sizeof(line));
        assert_true(strstr(line, "heartbeat timeout 30 s, default result CONTINUE") != NULL);
    }
    sc_observer_destroy(o);
    sc_world_destroy(w);
}

/* The log keeps the newest SC_DECISION_LOG_CAP records; older seqs answer NULL. */
static void test_decision_log_bounded(void **state)
{
    struct sc_decision_log *l = sc_decision_log_create();
    struct sc_decision d;

    (void)state;
    memset(&d, 0, sizeof(d));
    for (int i = 0; i < SC_DECISION_LOG_CAP + 5; i++) {
        d.current = i;
        sc_decision_log_add(l, &d);
    }
    assert_int_equal(sc_decision_log_last(l), SC_DECISION_LOG_CAP + 5);
    assert_null(sc_decision_log_get(l, 5));
    assert_non_null(sc_decision_log_get(l, 6));
    assert_int_equal(sc_decision_log_get(l, 6)->current, 5);
    assert_null(sc_decision_log_get(l, SC_DECISION_LOG_CAP + 6));
    sc_decision_log_destroy(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decision_target_tracking_two_at_100_target_50),
        cmocka_unit_test(test_decision_cooldown_blocks),
        cmocka_unit_test(test_decision_at_max),
        cmocka_unit_test(test_decision_warmup_not_counted),
        cmocka_unit_test(test_decision_suspended_process),
        cmocka_unit_test(test_decision_scale_in_conservative),
        cmocka_unit_test(test_decision_min_adjustment_magnitude),
        cmocka_unit_test(test_decision_observed_once),
        cmocka_unit_test(test_decision_hook_wait_and_timeout),
        cmocka_unit_test(test_decision_log_bounded),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
