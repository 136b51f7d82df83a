/* tests/unit/scaler/test_asg_hook.c: scaler/asg_hook.c (and the step's wait states) against a
 * fake EC2 and load balancer: one test per rule of docs/autoscaling.md section 3. */
#include "scaler/asg_hook.h"

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
#include "tests/unit/scaler/asg_fixture.h"

static int setup(void **state)
{
    struct fx *x = fx_alloc();

    if (!x || !(x->asg = fx_asg(x)) || fx_group(x, "g", 0, 1) != SC_OK)
        return -1;
    *state = x;
    return 0;
}

static void put_hook(struct fx *x, const char *name, const char *transition, int heartbeat,
                     const char *result)
{
    struct sc_asg_hook_req r = { .lifecycle_hook_name = name,
                                 .auto_scaling_group_name = "g",
                                 .lifecycle_transition = transition,
                                 .has_heartbeat_timeout = heartbeat > 0,
                                 .heartbeat_timeout = heartbeat,
                                 .default_result = result };

    assert_int_equal(sc_asg_put_lifecycle_hook(x->asg, &r, T0, &x->err), SC_OK);
}

static void set_desired(struct fx *x, int d, int64_t now)
{
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", d, 0, now, &x->err), SC_OK);
}

static const struct sc_asg_instance_info *member(struct fx *x, int i)
{
    const struct sc_asg_group_info *g = sc_asg_group_find(x->asg, "g");

    assert_non_null(g);
    assert_true(i < sc_asg_group_instance_count(g));
    return sc_asg_group_instance_at(g, i);
}

static int members(struct fx *x)
{
    return sc_asg_group_instance_count(sc_asg_group_find(x->asg, "g"));
}

/* The newest activity about the instance. */
static const struct sc_asg_activity_info *activity_of(struct fx *x, const char *id)
{
    for (int i = 0; i < sc_asg_activity_count(x->asg, "g"); i++) {
        const struct sc_asg_activity_info *a = sc_asg_activity_at(x->asg, "g", i);

        if (strstr(a->description, id))
            return a;
    }
    fail_msg("no activity for %s", id);
    return NULL;
}

/* --- the hook --------------------------------------------------------------------------------- */

static void test_asg_hook_put_defaults(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_hook_info *h;

    put_hook(x, "h1", SC_ASG_LAUNCHING_TRANSITION, 0, NULL);
    h = sc_asg_lifecycle_hook_find(x->asg, "g", "h1");
    assert_non_null(h);
    assert_int_equal(h->heartbeat_timeout, 3600);
    assert_int_equal(h->global_timeout, 172800); /* min(100 x 3600, 48 h) */
    assert_string_equal(h->default_result, "ABANDON");
    assert_string_equal(h->lifecycle_transition, "autoscaling:EC2_INSTANCE_LAUNCHING");
    assert_string_equal(h->auto_scaling_group_name, "g");
    assert_null(h->notification_target_arn);
}

static void test_asg_hook_global_timeout_is_100_heartbeats(void **state)
{
    struct fx *x = *state;

    put_hook(x, "h1", SC_ASG_LAUNCHING_TRANSITION, 60, "CONTINUE");
    assert_int_equal(sc_asg_lifecycle_hook_find(x->asg, "g", "h1")->global_timeout, 6000);
}

static void test_asg_hook_put_updates_members_sent(void **state)
{
    struct fx *x = *state;
    struct sc_asg_hook_req r = { .lifecycle_hook_name = "h1",
                                 .auto_scaling_group_name = "g",
                                 .has_heartbeat_timeout = 1,
                                 .heartbeat_timeout = 120 };
    const struct sc_asg_hook_info *h;

    put_hook(x, "h1", SC_ASG_TERMINATING_TRANSITION, 300, "CONTINUE");
    /* no transition: optional on an update, the rest kept */
    assert_int_equal(sc_asg_put_lifecycle_hook(x->asg, &r, T0, &x->err), SC_OK);
    h = sc_asg_lifecycle_hook_find(x->asg, "g", "h1");
    assert_string_equal(h->lifecycle_transition, SC_ASG_TERMINATING_TRANSITION);
    assert_int_equal(h->heartbeat_timeout, 120);
    assert_int_equal(h->global_timeout, 12000);
    assert_string_equal(h->default_result, "CONTINUE");
    assert_int_equal(sc_asg_lifecycle_hook_count(x->asg, "g"), 1);
}

static void test_asg_hook_put_errors(void **state)
{
    struct fx *x = *state;
    static const struct {
        struct sc_asg_hook_req r;
        const char *msg;
    } bad[] = {
        { { .lifecycle_hook_name = "h",
            .auto_scaling_group_name = "nope",
            .lifecycle_transition = SC_ASG_LAUNCHING_TRANSITION },
          "AutoScalingGroup name not found - AutoScalingGroup: nope not found" },
        { { .lifecycle_hook_name = "h", .auto_scaling_group_name = "g" },
          "LifecycleTransition is required for a new lifecycle hook." },
        { { .lifecycle_hook_name = "h",
            .auto_scaling_group_name = "g",
            .lifecycle_transition = "autoscaling:EC2_INSTANCE_STOPPING" },
          "Invalid Lifecycle Transition: autoscaling:EC2_INSTANCE_STOPPING. Valid values are autoscaling:EC2_INSTANCE_LAUNCHING and autoscaling:EC2_INSTANCE_TERMINATING." },
        { { .lifecycle_hook_name = "h",
            .auto_scaling_group_name = "g",
            .lifecycle_transition = SC_ASG_LAUNCHING_TRANSITION,
            .has_heartbeat_timeout = 1,
            .heartbeat_timeout = 29 },
          "Heartbeat timeout must be between 30 and 7200 seconds, inclusive." },
        { { .lifecycle_hook_name = "h",
            .auto_scaling_group_name = "g",
            .lifecycle_transition = SC_ASG_LAUNCHING_TRANSITION,
            .has_heartbeat_timeout = 1,
            .heartbeat_timeout = 7201 },
          "Heartbeat timeout must be between 30 and 7200 seconds, inclusive." },
        { { .lifecycle_hook_name = "h",
            .auto_scaling_group_name = "g",
            .lifecycle_transition = SC_ASG_LAUNCHING_TRANSITION,
            .default_result = "RETRY" },
          "Invalid DefaultResult: RETRY. Valid values are CONTINUE and ABANDON." },
        { { .lifecycle_hook_name = "bad name",
            .auto_scaling_group_name = "g",
            .lifecycle_transition = SC_ASG_LAUNCHING_TRANSITION },
          "1 validation error detected: Value 'bad name' at 'lifecycleHookName' failed to satisfy constraint: Member must satisfy regular expression pattern: [A-Za-z0-9\\-_\\/]+" },
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct sc_error e = { 0 };

        assert_int_equal(sc_asg_put_lifecycle_hook(x->asg, &bad[i].r, T0, &e), SC_ERR_VALIDATION);
        assert_string_equal(e.message, bad[i].msg);
        assert_int_equal(sc_asg_lifecycle_hook_count(x->asg, "g"), 0); /* nothing stored */
    }
}

static void test_asg_hook_limit_50(void **state)
{
    struct fx *x = *state;
    char name[16];
    struct sc_asg_hook_req r = { .lifecycle_hook_name = "h50",
                                 .auto_scaling_group_name = "g",
                                 .lifecycle_transition = SC_ASG_LAUNCHING_TRANSITION };

    for (int i = 0; i < SC_ASG_MAX_HOOKS; i++) {
        snprintf(name, sizeof(name), "h%d", i);
        put_hook(x, name, SC_ASG_LAUNCHING_TRANSITION, 0, NULL);
    }
    assert_int_equal(sc_asg_put_lifecycle_hook(x->asg, &r, T0, &x->err), SC_ERR_LIMIT_EXCEEDED);
    assert_string_equal(
        x->err.message,
        "Unable to create the lifecycle hook. The maximum number of lifecycle hooks allowed per Auto Scaling group (50) has been reached.");
    r.lifecycle_hook_name = "h7"; /* an update of one of them is no new hook */
    assert_int_equal(sc_asg_put_lifecycle_hook(x->asg, &r, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_lifecycle_hook_count(x->asg, "g"), SC_ASG_MAX_HOOKS);
}

static void test_asg_hook_initial_hooks_on_create(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req g = fx_group_req("g", 1, 1);
    struct sc_asg_hook_req hooks[2] = {
        { .lifecycle_hook_name = "boot", .lifecycle_transition = SC_ASG_LAUNCHING_TRANSITION },
        { .lifecycle_hook_name = "drain", .lifecycle_transition = "nope" },
    };

    g.auto_scaling_group_name = "g2";
    /* a bad hook: no group either */
    assert_int_equal(sc_asg_create_group_with_hooks(x->asg, &g, hooks, 2, T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_null(sc_asg_group_find(x->asg, "g2"));
    hooks[1].lifecycle_transition = SC_ASG_TERMINATING_TRANSITION;
    assert_int_equal(sc_asg_create_group_with_hooks(x->asg, &g, hooks, 2, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_lifecycle_hook_count(x->asg, "g2"), 2);
    assert_string_equal(sc_asg_lifecycle_hook_at(x->asg, "g2", 0)->lifecycle_hook_name, "boot");
    /* in place before the first launch: it waits */
    settle(x, T0 + SEC);
    assert_int_equal(sc_asg_group_instance_at(sc_asg_group_find(x->asg, "g2"), 0)->lifecycle_state,
                     SC_ASG_PENDING_WAIT);
}

/* --- the launch wait ---------------------------------------------------------------------- */

static void test_asg_hook_launch_waits_out_of_load_balancer(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_instance_info *in;
    char id[SC_ASG_ID_LEN];

    put_hook(x, "boot", SC_ASG_LAUNCHING_TRANSITION, 300, "ABANDON");
    set_desired(x, 1, T0 + SEC);
    settle(x, T0 + SEC);
    in = member(x, 0);
    snprintf(id, sizeof(id), "%s", in->instance_id);
    assert_int_equal(in->lifecycle_state, SC_ASG_PENDING_WAIT);
    assert_int_equal(sc_asg_group_capacity(sc_asg_group_find(x->asg, "g")), 1); /* counts */
    assert_false(finst(&x->f, id)->ever_registered);                            /* held out */
    assert_string_equal(activity_of(x, id)->status_code, "MidLifecycleAction");
    assert_int_equal(sc_asg_lifecycle_action_count(x->asg, "g"), 1);
    settle(x, T0 + 100 * SEC); /* still waiting before its timeout */
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_PENDING_WAIT);
    assert_false(finst(&x->f, id)->ever_registered);

    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "boot", NULL, id, "CONTINUE",
                                                      T0 + 120 * SEC, &x->err),
                     SC_OK);
    settle(x, T0 + 120 * SEC);
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_IN_SERVICE);
    assert_true(finst(&x->f, id)->registered);
    assert_string_equal(activity_of(x, id)->status_code, "Successful");
    assert_int_equal(sc_asg_lifecycle_action_count(x->asg, "g"), 0);
}

static void test_asg_hook_every_hook_completes_before_in_service(void **state)
{
    struct fx *x = *state;
    struct sc_asg_action_info a;
    char id[SC_ASG_ID_LEN];

    put_hook(x, "one", SC_ASG_LAUNCHING_TRANSITION, 300, NULL);
    put_hook(x, "two", SC_ASG_LAUNCHING_TRANSITION, 300, NULL);
    put_hook(x, "bye", SC_ASG_TERMINATING_TRANSITION, 300, NULL);
    set_desired(x, 1, T0 + SEC);
    settle(x, T0 + SEC);
    assert_int_equal(sc_asg_lifecycle_action_count(x->asg, "g"), 2); /* launch hooks only */
    assert_int_equal(sc_asg_lifecycle_action_at(x->asg, "g", 1, &a), 0);
    assert_string_equal(a.lifecycle_hook_name, "two");
    assert_true(a.launching);
    snprintf(id, sizeof(id), "%s", a.instance_id);
    /* by token */
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "two", a.token, NULL, "CONTINUE",
                                                      T0 + 2 * SEC, &x->err),
                     SC_OK);
    settle(x, T0 + 2 * SEC);
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_PENDING_WAIT);
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "one", NULL, id, "CONTINUE",
                                                      T0 + 3 * SEC, &x->err),
                     SC_OK);
    settle(x, T0 + 3 * SEC);
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_IN_SERVICE);
}

static void test_asg_hook_abandon_launch_replaces(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_activity_info *act;
    struct sc_asg_action_info a;
    char id[SC_ASG_ID_LEN], want[512];

    put_hook(x, "boot", SC_ASG_LAUNCHING_TRANSITION, 300, "CONTINUE");
    put_hook(x, "bye", SC_ASG_TERMINATING_TRANSITION, 300, NULL);
    set_desired(x, 1, T0 + SEC);
    settle(x, T0 + SEC);
    assert_int_equal(sc_asg_lifecycle_action_at(x->asg, "g", 0, &a), 0);
    snprintf(id, sizeof(id), "%s", a.instance_id);
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "boot", NULL, id, "ABANDON",
                                                      T0 + 10 * SEC, &x->err),
                     SC_OK);
    act = activity_of(x, id);
    assert_string_equal(act->status_code, "Cancelled");
    assert_int_equal(act->progress, 100);
    snprintf(
        want, sizeof(want),
        "Instance failed to complete user's Lifecycle Action: Lifecycle Action with token %s was abandoned: Lifecycle Action Completed with ABANDON Result",
        a.token);
    assert_string_equal(act->status_message, want);
    snprintf(
        want, sizeof(want),
        "Launching a new EC2 instance: %s.  Status Reason: Instance failed to complete user's Lifecycle Action: Lifecycle Action with token %s was abandoned: Lifecycle Action Completed with ABANDON Result",
        id, a.token);
    assert_string_equal(act->description, want);
    settle(x, T0 + 10 * SEC);
    settle(x, T0 + 11 * SEC);
    /* terminated without its terminate hook, never in a load balancer; a replacement waits */
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_GONE);
    assert_false(finst(&x->f, id)->ever_registered);
    assert_int_equal(members(x), 1);
    assert_string_not_equal(member(x, 0)->instance_id, id);
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_PENDING_WAIT);
}

static void test_asg_hook_heartbeat_timeout_applies_default_result(void **state)
{
    struct fx *x = *state;
    char id[SC_ASG_ID_LEN];

    put_hook(x, "boot", SC_ASG_LAUNCHING_TRANSITION, 60, "CONTINUE");
    set_desired(x, 1, T0);
    settle(x, T0);
    snprintf(id, sizeof(id), "%s", member(x, 0)->instance_id);
    /* the next due time is the timeout, 60 s after the action opened */
    assert_int_equal(sc_asg_next_due_ms(x->asg, T0 + 50 * SEC) <= T0 + 61 * SEC, 1);
    settle(x, T0 + 59 * SEC);
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_PENDING_WAIT);
    settle(x, T0 + 61 * SEC);
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_IN_SERVICE); /* CONTINUE */
    assert_true(finst(&x->f, id)->registered);
}

static void test_asg_hook_heartbeat_timeout_abandons(void **state)
{
    struct fx *x = *state;
    struct sc_asg_action_info a;
    char id[SC_ASG_ID_LEN], want[512];

    put_hook(x, "boot", SC_ASG_LAUNCHING_TRANSITION, 60, NULL); /* ABANDON by default */
    set_desired(x, 1, T0);
    settle(x, T0);
    assert_int_equal(sc_asg_lifecycle_action_at(x->asg, "g", 0, &a), 0);
    snprintf(id, sizeof(id), "%s", a.instance_id);
    settle(x, T0 + 61 * SEC);
    snprintf(
        want, sizeof(want),
        "Instance failed to complete user's Lifecycle Action: Lifecycle Action with token %s was abandoned: Heartbeat Timeout",
        a.token);
    assert_string_equal(activity_of(x, id)->status_message, want);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_GONE);
}

static void test_asg_hook_heartbeat_extends(void **state)
{
    struct fx *x = *state;
    char id[SC_ASG_ID_LEN];

    put_hook(x, "boot", SC_ASG_LAUNCHING_TRANSITION, 60, "CONTINUE");
    set_desired(x, 1, T0);
    settle(x, T0);
    snprintf(id, sizeof(id), "%s", member(x, 0)->instance_id);
    assert_int_equal(sc_asg_record_lifecycle_action_heartbeat(x->asg, "g", "boot", NULL, id,
                                                              T0 + 50 * SEC, &x->err),
                     SC_OK);
    settle(x, T0 + 100 * SEC); /* 60 s after the heartbeat, not after the start */
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_PENDING_WAIT);
    settle(x, T0 + 111 * SEC);
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_IN_SERVICE);
}

static void test_asg_hook_global_timeout_caps_heartbeats(void **state)
{
    struct fx *x = *state;
    struct sc_asg_action_info a;
    char id[SC_ASG_ID_LEN];
    int64_t t = T0;

    put_hook(x, "boot", SC_ASG_LAUNCHING_TRANSITION, 30, "ABANDON"); /* global 3000 s */
    set_desired(x, 1, T0);
    settle(x, T0);
    assert_int_equal(sc_asg_lifecycle_action_at(x->asg, "g", 0, &a), 0);
    snprintf(id, sizeof(id), "%s", a.instance_id);
    assert_int_equal(a.global_ms, a.start_ms + 3000 * SEC);
    for (t = T0 + 20 * SEC; t < a.global_ms - 10 * SEC; t += 20 * SEC) {
        assert_int_equal(
            sc_asg_record_lifecycle_action_heartbeat(x->asg, "g", "boot", NULL, id, t, &x->err),
            SC_OK);
        sc_asg_step(x->asg, t);
    }
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_PENDING_WAIT); /* heartbeats held it */
    settle(x, a.global_ms);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_GONE);
    assert_non_null(strstr(activity_of(x, id)->status_message, "was abandoned: Global Timeout"));
}

static void test_asg_hook_no_active_action_texts(void **state)
{
    struct fx *x = *state;
    char id[SC_ASG_ID_LEN];
    static const char tok[] = "e85eb647-4fe0-4909-b341-a6c42d8aba1f";

    put_hook(x, "boot", SC_ASG_LAUNCHING_TRANSITION, 300, "CONTINUE");
    set_desired(x, 1, T0);
    settle(x, T0);
    snprintf(id, sizeof(id), "%s", member(x, 0)->instance_id);
    assert_int_equal(sc_asg_complete_lifecycle_action(
                         x->asg, "g", "boot", NULL, "i-0123456789abcdef0", "CONTINUE", T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(x->err.message,
                        "No active Lifecycle Action found with instance ID i-0123456789abcdef0");
    assert_int_equal(
        sc_asg_complete_lifecycle_action(x->asg, "g", "boot", tok, NULL, "CONTINUE", T0, &x->err),
        SC_ERR_VALIDATION);
    assert_string_equal(
        x->err.message,
        "No active Lifecycle Action found with token e85eb647-4fe0-4909-b341-a6c42d8aba1f");
    assert_int_equal(
        sc_asg_complete_lifecycle_action(x->asg, "g", "boot", NULL, NULL, "CONTINUE", T0, &x->err),
        SC_ERR_VALIDATION);
    assert_string_equal(x->err.message,
                        "Either LifecycleActionToken or InstanceId must be specified.");
    assert_int_equal(
        sc_asg_complete_lifecycle_action(x->asg, "g", "boot", NULL, id, "MAYBE", T0, &x->err),
        SC_ERR_VALIDATION);
    assert_string_equal(
        x->err.message,
        "Invalid LifecycleActionResult: MAYBE. Valid values are CONTINUE and ABANDON.");
    assert_int_equal(
        sc_asg_complete_lifecycle_action(x->asg, "g", "nope", NULL, id, "CONTINUE", T0, &x->err),
        SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, "No Lifecycle Hook found with name nope for group g.");
    assert_int_equal(
        sc_asg_record_lifecycle_action_heartbeat(x->asg, "zz", "boot", NULL, id, T0, &x->err),
        SC_ERR_VALIDATION);
    assert_string_equal(x->err.message,
                        "AutoScalingGroup name not found - AutoScalingGroup: zz not found");
    /* nothing changed by the errors; a second complete of the same action fails */
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_PENDING_WAIT);
    assert_int_equal(
        sc_asg_complete_lifecycle_action(x->asg, "g", "boot", NULL, id, "CONTINUE", T0, &x->err),
        SC_OK);
    assert_int_equal(
        sc_asg_complete_lifecycle_action(x->asg, "g", "boot", NULL, id, "CONTINUE", T0, &x->err),
        SC_ERR_VALIDATION);
    assert_non_null(strstr(x->err.message, id));
}

/* --- the terminate wait ------------------------------------------------------------------ */

static void test_asg_hook_terminate_waits_after_deregistration(void **state)
{
    struct fx *x = *state;
    char id[SC_ASG_ID_LEN];

    put_hook(x, "bye", SC_ASG_TERMINATING_TRANSITION, 300, "ABANDON");
    set_desired(x, 1, T0);
    settle(x, T0);
    snprintf(id, sizeof(id), "%s", member(x, 0)->instance_id);
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_IN_SERVICE);
    x->f.drain = 1;
    set_desired(x, 0, T0 + 10 * SEC);
    settle(x, T0 + 10 * SEC);
    /* deregistered first, draining: no wait state yet */
    assert_false(finst(&x->f, id)->registered);
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_TERMINATING);
    assert_int_equal(sc_asg_lifecycle_action_count(x->asg, "g"), 0);
    x->f.drain = 0;
    settle(x, T0 + 20 * SEC);
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_TERMINATING_WAIT);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_RUNNING); /* not terminated yet */
    assert_string_equal(activity_of(x, id)->status_code, "MidLifecycleAction");
    /* ABANDON lets it terminate too */
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "bye", NULL, id, "ABANDON",
                                                      T0 + 30 * SEC, &x->err),
                     SC_OK);
    settle(x, T0 + 30 * SEC);
    settle(x, T0 + 31 * SEC);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_GONE);
    assert_int_equal(members(x), 0);
    assert_string_equal(activity_of(x, id)->status_code, "Successful");
}

static void test_asg_hook_terminate_proceeds_after_timeout(void **state)
{
    struct fx *x = *state;
    char id[SC_ASG_ID_LEN];

    put_hook(x, "bye", SC_ASG_TERMINATING_TRANSITION, 30, NULL);
    set_desired(x, 1, T0);
    settle(x, T0);
    snprintf(id, sizeof(id), "%s", member(x, 0)->instance_id);
    set_desired(x, 0, T0 + 10 * SEC);
    settle(x, T0 + 10 * SEC);
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_TERMINATING_WAIT);
    settle(x, T0 + 41 * SEC);
    settle(x, T0 + 42 * SEC);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_GONE);
}

static void test_asg_hook_force_delete_drops_actions(void **state)
{
    struct fx *x = *state;

    put_hook(x, "bye", SC_ASG_TERMINATING_TRANSITION, 300, NULL);
    set_desired(x, 2, T0);
    settle(x, T0);
    assert_int_equal(sc_asg_delete_group(x->asg, "g", 1, T0 + SEC, &x->err), SC_OK);
    settle(x, T0 + SEC);
    settle(x, T0 + 2 * SEC);
    assert_null(sc_asg_group_find(x->asg, "g"));
}

static void test_asg_hook_delete_completes_open_actions(void **state)
{
    struct fx *x = *state;
    char id[SC_ASG_ID_LEN];

    put_hook(x, "boot", SC_ASG_LAUNCHING_TRANSITION, 300, "CONTINUE");
    set_desired(x, 1, T0);
    settle(x, T0);
    snprintf(id, sizeof(id), "%s", member(x, 0)->instance_id);
    assert_int_equal(sc_asg_delete_lifecycle_hook(x->asg, "g", "nope", T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, "No Lifecycle Hook found with name nope for group g.");
    /* a launching instance's action completes with ABANDON, whatever the default result */
    assert_int_equal(sc_asg_delete_lifecycle_hook(x->asg, "g", "boot", T0 + SEC, &x->err), SC_OK);
    assert_int_equal(sc_asg_lifecycle_hook_count(x->asg, "g"), 0);
    assert_string_equal(activity_of(x, id)->status_code, "Cancelled");
    settle(x, T0 + SEC);
    settle(x, T0 + 2 * SEC);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_GONE);
    assert_int_equal(member(x, 0)->lifecycle_state, SC_ASG_IN_SERVICE); /* no hook now */
}

/* --- state --------------------------------------------------------------------------------- */

static void test_asg_hook_save_load_keeps_hooks_and_actions(void **state)
{
    struct fx *x = *state;
    struct fx y;
    json_t *a, *b;
    char *sa, *sb, id[SC_ASG_ID_LEN];

    put_hook(x, "boot", SC_ASG_LAUNCHING_TRANSITION, 120, "CONTINUE");
    put_hook(x, "bye", SC_ASG_TERMINATING_TRANSITION, 300, NULL);
    set_desired(x, 1, T0);
    settle(x, T0);
    snprintf(id, sizeof(id), "%s", member(x, 0)->instance_id);
    a = sc_asg_save(x->asg);
    assert_non_null(a);
    memset(&y, 0, sizeof(y));
    y.f = x->f;
    sc_rng_init(&y.rng, 1);
    y.asg = fx_asg(&y);
    assert_int_equal(sc_asg_load(y.asg, a, &y.err), SC_OK);
    b = sc_asg_save(y.asg);
    sa = json_dumps(a, JSON_SORT_KEYS);
    sb = json_dumps(b, JSON_SORT_KEYS);
    assert_string_equal(sa, sb);
    assert_int_equal(sc_asg_lifecycle_hook_count(y.asg, "g"), 2);
    assert_int_equal(sc_asg_lifecycle_action_count(y.asg, "g"), 1);
    /* the loaded action completes */
    assert_int_equal(sc_asg_complete_lifecycle_action(y.asg, "g", "boot", NULL, id, "CONTINUE",
                                                      T0 + SEC, &y.err),
                     SC_OK);
    free(sa);
    free(sb);
    json_decref(a);
    json_decref(b);
    sc_asg_destroy(y.asg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_asg_hook_put_defaults, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_global_timeout_is_100_heartbeats, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_put_updates_members_sent, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_put_errors, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_limit_50, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_initial_hooks_on_create, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_launch_waits_out_of_load_balancer, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_every_hook_completes_before_in_service, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_abandon_launch_replaces, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_heartbeat_timeout_applies_default_result,
                                        setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_heartbeat_timeout_abandons, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_heartbeat_extends, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_global_timeout_caps_heartbeats, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_no_active_action_texts, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_terminate_waits_after_deregistration, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_terminate_proceeds_after_timeout, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_force_delete_drops_actions, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_delete_completes_open_actions, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_hook_save_load_keeps_hooks_and_actions, setup,
                                        fx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
