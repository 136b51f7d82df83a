/* tests/unit/scaler/test_asg_refresh.c: scaler/asg_refresh.c (and the step driving it) against a
 * fake EC2 and load balancer: one test per rule of docs/autoscaling.md section 8. */
#include "scaler/asg_refresh.h"

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
#include "scaler/asg_protect.h"

#define FX_MAXI 64
#include "asg_fixture.h"

/* --- the fake EC2 and load balancer (asg_fixture.h) and a launch template "web" (lt-0aaa,
 * versions 1 and 2) ---------------------------------------------------------------------- */

static enum sc_status f_lt_resolve(void *ud, const char *id, const char *name, const char *version,
                                   struct sc_asg_lt_resolved *out, struct sc_error *err)
{
    (void)ud;
    if ((id && strcmp(id, "lt-0aaa") != 0) || (!id && name && strcmp(name, "web") != 0))
        return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_NOT_FOUND,
                       "The specified launch template, with template name %s, does not exist.",
                       name ? name : id);
    if (version && strcmp(version, "1") != 0 && strcmp(version, "2") != 0 &&
        strcmp(version, "$Latest") != 0 && strcmp(version, "$Default") != 0)
        return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_VERSION_NOT_FOUND,
                       "Could not find launch template version %s", version);
    if (out) {
        snprintf(out->launch_template_id, sizeof(out->launch_template_id), "lt-0aaa");
        snprintf(out->launch_template_name, sizeof(out->launch_template_name), "web");
        snprintf(out->instance_type, sizeof(out->instance_type), "t3.micro");
    }
    return SC_OK;
}

static struct sc_asg *refresh_asg(struct fx *x)
{
    struct sc_asg_env env = fx_env(x);

    env.launch_template_resolve = f_lt_resolve;
    return fx_asg_with(x, env);
}

static const char *const zones[] = { "us-east-1a" };
static const char *const lbs[] = { "lb" };

/* A group "g" of desired instances on lt-0aaa version 1 behind "lb", all InService. */
static void make_group(struct fx *x, int desired, const char *hc)
{
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .launch_template_id = "lt-0aaa",
                                  .launch_template_version = "1",
                                  .has_min_size = 1,
                                  .min_size = 0,
                                  .has_max_size = 1,
                                  .max_size = 20,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = desired,
                                  .availability_zones = zones,
                                  .navailability_zones = 1,
                                  .load_balancer_names = lbs,
                                  .nload_balancer_names = 1,
                                  .health_check_type = hc };

    assert_int_equal(sc_asg_create_group(x->asg, &r, x->now, &x->err), SC_OK);
    settle(x, x->now);
    x->now += 10 * SEC;
}

static int setup(void **state)
{
    struct fx *x = fx_alloc();

    if (!x)
        return -1;
    x->now = T0;
    x->asg = refresh_asg(x);
    if (!x->asg)
        return -1;
    *state = x;
    return 0;
}

static const struct sc_asg_group_info *grp(struct fx *x)
{
    return sc_asg_group_find(x->asg, "g");
}

/* Members InService, healthy and registered healthy at the load balancer. */
static int healthy_in_service(struct fx *x)
{
    const struct sc_asg_group_info *g = grp(x);
    int n = 0;

    for (int i = 0; i < sc_asg_group_instance_count(g); i++) {
        const struct sc_asg_instance_info *in = sc_asg_group_instance_at(g, i);
        struct fake_inst *f = finst(&x->f, in->instance_id);

        n += in->lifecycle_state == SC_ASG_IN_SERVICE && in->healthy && f && f->registered &&
             !f->lb_out;
    }
    return n;
}

/* Members (counting toward capacity) launched with that version. */
static int on_version(struct fx *x, const char *v)
{
    const struct sc_asg_group_info *g = grp(x);
    int n = 0;

    for (int i = 0; i < sc_asg_group_instance_count(g); i++) {
        const struct sc_asg_instance_info *in = sc_asg_group_instance_at(g, i);

        n += in->lifecycle_state == SC_ASG_IN_SERVICE && in->launch_template_version &&
             strcmp(in->launch_template_version, v) == 0;
    }
    return n;
}

static const struct sc_asg_refresh_info *newest(struct fx *x)
{
    assert_true(sc_asg_instance_refresh_count(x->asg, "g") > 0);
    return sc_asg_instance_refresh_at(x->asg, "g", 0);
}

static struct sc_asg_refresh_req to_v2(int min, int warmup)
{
    struct sc_asg_refresh_req q = { .auto_scaling_group_name = "g",
                                    .has_desired_launch_template = 1,
                                    .launch_template_id = "lt-0aaa",
                                    .launch_template_version = "2",
                                    .has_min_healthy_percentage = 1,
                                    .min_healthy_percentage = min,
                                    .has_instance_warmup = 1,
                                    .instance_warmup = warmup };

    return q;
}

static void start(struct fx *x, const struct sc_asg_refresh_req *q)
{
    const char *id = NULL;

    assert_int_equal(sc_asg_start_instance_refresh(x->asg, q, x->now, &id, &x->err), SC_OK);
    assert_non_null(id);
    assert_int_equal(strlen(id), 36);
}

/* Runs the world in 10 s ticks until the refresh is no longer active (at most max ticks);
 * the lowest healthy count seen through *low_out. */
static int run_until_done(struct fx *x, int max, int *low_out)
{
    int low = 1 << 30, ticks = 0;

    for (; ticks < max && sc_asg_refresh_status_active(newest(x)->status); ticks++) {
        x->now += 10 * SEC;
        settle(x, x->now);
        if (healthy_in_service(x) < low)
            low = healthy_in_service(x);
    }
    if (low_out)
        *low_out = low;
    return ticks;
}

/* --- the rules -------------------------------------------------------------------------------- */

static void test_asg_refresh_min_healthy_batches(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(50, 0);
    int low;

    make_group(x, 4, "ELB");
    start(x, &q);
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_PENDING);
    assert_int_equal(newest(x)->instances_to_update, 4);
    x->now += 1;
    sc_asg_step(x->asg, x->now);
    /* the first batch: 4 healthy, floor ceil(4 x 50%) = 2, so two go */
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_IN_PROGRESS);
    assert_int_equal(grp(x)->desired_capacity, 4);
    {
        int terminating = 0, pending = 0, in_service = 0;

        sc_asg_group_lifecycle_counts(grp(x), &pending, &in_service, &terminating);
        assert_int_equal(terminating, 2);
        assert_int_equal(pending, 2);
    }
    assert_true(run_until_done(x, 100, &low) < 100);
    assert_true(low >= 2);
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_SUCCESSFUL);
    assert_int_equal(newest(x)->percentage_complete, 100);
    assert_int_equal(newest(x)->instances_to_update, 0);
    assert_true(newest(x)->end_ms > 0);
    assert_int_equal(on_version(x, "2"), 4);
    assert_int_equal(sc_asg_group_instance_count(grp(x)), 4);
    assert_string_equal(grp(x)->launch_template_version, "2");
}

static void test_asg_refresh_min_100_one_at_a_time(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(100, 0);
    int low;

    make_group(x, 3, "EC2");
    start(x, &q);
    x->now += 1;
    sc_asg_step(x->asg, x->now);
    {
        int terminating = 0, pending = 0, in_service = 0;

        sc_asg_group_lifecycle_counts(grp(x), &pending, &in_service, &terminating);
        assert_int_equal(terminating, 1);
    }
    assert_true(run_until_done(x, 100, &low) < 100);
    assert_true(low >= 2);
    assert_int_equal(on_version(x, "2"), 3);
}

static void test_asg_refresh_max_healthy_launches_first(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(100, 0);
    int low;

    q.has_max_healthy_percentage = 1;
    q.max_healthy_percentage = 150;
    make_group(x, 4, "EC2");
    start(x, &q);
    x->now += 1;
    sc_asg_step(x->asg, x->now);
    {
        int terminating = 0, pending = 0, in_service = 0;

        /* floor(4 x 150%) = 6: two replacements launch before anything terminates */
        sc_asg_group_lifecycle_counts(grp(x), &pending, &in_service, &terminating);
        assert_int_equal(terminating, 0);
        assert_int_equal(pending, 2);
        assert_int_equal(in_service, 4);
    }
    settle(x, x->now); /* the extra two stay (scale-in leaves them), then two old ones go */
    assert_true(sc_asg_group_capacity(grp(x)) <= 6);
    assert_true(run_until_done(x, 100, &low) < 100);
    assert_true(low >= 4);
    settle(x, x->now);
    assert_int_equal(on_version(x, "2"), 4);
    assert_int_equal(sc_asg_group_capacity(grp(x)), 4);
}

static void test_asg_refresh_instance_warmup(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(50, 120);

    make_group(x, 2, "EC2");
    start(x, &q);
    x->now += 1;
    settle(x, x->now); /* one terminated, its replacement InService */
    assert_int_equal(on_version(x, "2"), 1);
    /* inside the warm-up: the second old one waits, progress not counted */
    x->now += 60 * SEC;
    settle(x, x->now);
    assert_int_equal(on_version(x, "1"), 1);
    assert_int_equal(newest(x)->percentage_complete, 0);
    assert_int_equal(newest(x)->instances_to_update, 2);
    assert_non_null(strstr(newest(x)->status_reason, "warm up"));
    x->now += 61 * SEC;
    settle(x, x->now);
    assert_int_equal(on_version(x, "1"), 0);
    assert_int_equal(newest(x)->percentage_complete, 50);
}

static void test_asg_refresh_elb_health_counts(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(50, 0);
    struct sc_asg_group_req up = { .auto_scaling_group_name = "g",
                                   .has_health_check_grace_period = 1,
                                   .health_check_grace_period = 600 };

    make_group(x, 2, "ELB");
    assert_int_equal(sc_asg_update_group(x->asg, &up, x->now, &x->err), SC_OK);
    start(x, &q);
    x->now += 1;
    sc_asg_step(x->asg, x->now);
    /* the replacement boots but its health check fails: it does not count */
    for (int i = 0; i < x->f.ninst; i++)
        if (strcmp(x->f.inst[i].version, "2") == 0)
            x->f.inst[i].lb_out = 1;
    settle(x, x->now);
    x->now += 10 * SEC;
    settle(x, x->now);
    assert_int_equal(on_version(x, "1"), 1);
    for (int i = 0; i < x->f.ninst; i++)
        x->f.inst[i].lb_out = 0;
    x->now += 10 * SEC;
    settle(x, x->now);
    assert_int_equal(on_version(x, "1"), 0);
}

static void test_asg_refresh_skip_matching(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(50, 0);
    struct sc_asg_group_req up = { .auto_scaling_group_name = "g",
                                   .launch_template_id = "lt-0aaa",
                                   .launch_template_version = "2",
                                   .has_desired_capacity = 1,
                                   .desired_capacity = 4 };
    char keep[2][SC_ASG_ID_LEN];
    const struct sc_asg_group_info *g;

    make_group(x, 2, "EC2");
    for (int i = 0; i < 2; i++)
        memcpy(keep[i], sc_asg_group_instance_at(grp(x), i)->instance_id, SC_ASG_ID_LEN);
    /* two more on version 2 */
    assert_int_equal(sc_asg_update_group(x->asg, &up, x->now, &x->err), SC_OK);
    settle(x, x->now);
    assert_int_equal(on_version(x, "2"), 2);
    /* a refresh to version 1 skipping matching ones replaces only the version-2 pair */
    q.launch_template_version = "1";
    q.has_skip_matching = 1;
    q.skip_matching = 1;
    start(x, &q);
    assert_int_equal(newest(x)->instances_to_update, 2);
    assert_true(run_until_done(x, 100, NULL) < 100);
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_SUCCESSFUL);
    assert_int_equal(on_version(x, "1"), 4);
    g = grp(x);
    for (int k = 0; k < 2; k++) {
        int found = 0;

        for (int i = 0; i < sc_asg_group_instance_count(g); i++)
            found |= strcmp(sc_asg_group_instance_at(g, i)->instance_id, keep[k]) == 0;
        assert_true(found);
    }
}

static void test_asg_refresh_skip_matching_nothing_to_do(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = { .auto_scaling_group_name = "g",
                                    .has_skip_matching = 1,
                                    .skip_matching = 1 };

    make_group(x, 2, "EC2");
    start(x, &q);
    assert_int_equal(newest(x)->instances_to_update, 0);
    x->now += 1;
    sc_asg_step(x->asg, x->now);
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_SUCCESSFUL);
    assert_int_equal(newest(x)->percentage_complete, 100);
    assert_int_equal(x->f.ninst, 2); /* nothing replaced */
}

static void test_asg_refresh_checkpoint_pause(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(75, 0);
    static const int cps[] = { 25, 100 };
    int64_t t_reached;

    q.checkpoint_percentages = cps;
    q.ncheckpoint_percentages = 2;
    q.has_checkpoint_delay = 1;
    q.checkpoint_delay = 600;
    make_group(x, 4, "EC2");
    start(x, &q);
    /* one at a time (floor 3 of 4): after the first, 25% is reached */
    for (int i = 0; i < 10 && newest(x)->percentage_complete < 25; i++) {
        x->now += 10 * SEC;
        settle(x, x->now);
    }
    assert_int_equal(newest(x)->percentage_complete, 25);
    x->now += 10 * SEC;
    settle(x, x->now);
    t_reached = x->now;
    assert_string_equal(newest(x)->status_reason, "Waiting for checkpoint delay: 25% reached.");
    while (x->now < t_reached + 590 * SEC) {
        x->now += 10 * SEC;
        settle(x, x->now);
        assert_int_equal(on_version(x, "2"), 1);
    }
    assert_true(sc_asg_next_due_ms(x->asg, x->now) <= t_reached + 600 * SEC + 2);
    assert_true(run_until_done(x, 100, NULL) < 100);
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_SUCCESSFUL);
    assert_int_equal(on_version(x, "2"), 4);
}

static void test_asg_refresh_partial_checkpoint_ends(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(50, 0);
    static const int cps[] = { 50 };

    q.checkpoint_percentages = cps;
    q.ncheckpoint_percentages = 1;
    make_group(x, 4, "EC2");
    start(x, &q);
    assert_true(run_until_done(x, 100, NULL) < 100);
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_SUCCESSFUL);
    assert_int_equal(newest(x)->percentage_complete, 50);
    assert_int_equal(on_version(x, "2"), 2);
    assert_int_equal(on_version(x, "1"), 2);
}

static void test_asg_refresh_already_in_progress(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(50, 0);

    make_group(x, 2, "EC2");
    start(x, &q);
    assert_int_equal(sc_asg_start_instance_refresh(x->asg, &q, x->now, NULL, &x->err),
                     SC_ERR_INSTANCE_REFRESH_IN_PROGRESS);
    assert_string_equal(
        x->err.message,
        "An Instance Refresh is already in progress and blocks the execution of this Instance Refresh.");
    assert_string_equal(sc_status_code(x->err.status), "InstanceRefreshInProgress");
    assert_int_equal(sc_asg_instance_refresh_count(x->asg, "g"), 1);
}

static void test_asg_refresh_cancel(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(50, 300);
    const char *id = NULL;

    make_group(x, 4, "EC2");
    start(x, &q);
    x->now += 1;
    settle(x, x->now); /* two replaced, warming */
    assert_int_equal(on_version(x, "2"), 2);
    assert_int_equal(sc_asg_cancel_instance_refresh(x->asg, "g", 1, x->now, &id, &x->err), SC_OK);
    assert_string_equal(id, newest(x)->instance_refresh_id);
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_CANCELLING);
    /* the group keeps its configuration: new launches are version 1 again */
    assert_string_equal(grp(x)->launch_template_version, "1");
    assert_int_equal(sc_asg_cancel_instance_refresh(x->asg, "g", 1, x->now, NULL, &x->err),
                     SC_ERR_ACTIVE_INSTANCE_REFRESH_NOT_FOUND);
    x->now += 301 * SEC;
    settle(x, x->now);
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_CANCELLED);
    /* replaced ones stay replaced, the rest stays */
    assert_int_equal(on_version(x, "2"), 2);
    assert_int_equal(on_version(x, "1"), 2);
    assert_int_equal(sc_asg_cancel_instance_refresh(x->asg, "g", 1, x->now, NULL, &x->err),
                     SC_ERR_ACTIVE_INSTANCE_REFRESH_NOT_FOUND);
    assert_string_equal(
        x->err.message,
        "No in progress or pending Instance Refresh found for Auto Scaling group g");
    /* a new one may start */
    start(x, &q);
    assert_int_equal(sc_asg_instance_refresh_count(x->asg, "g"), 2);
}

static void test_asg_refresh_rollback(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(50, 300);
    const struct sc_asg_refresh_info *r;

    make_group(x, 4, "EC2");
    start(x, &q);
    x->now += 1;
    settle(x, x->now);
    assert_int_equal(on_version(x, "2"), 2);
    assert_int_equal(sc_asg_rollback_instance_refresh(x->asg, "g", x->now, NULL, &x->err), SC_OK);
    r = newest(x);
    assert_int_equal(r->status, SC_ASG_REFRESH_ROLLBACK_IN_PROGRESS);
    assert_true(r->has_rollback);
    assert_int_equal(r->instances_to_update_on_rollback, 2);
    assert_string_equal(grp(x)->launch_template_version, "1");
    assert_true(run_until_done(x, 100, NULL) < 100);
    r = newest(x);
    assert_int_equal(r->status, SC_ASG_REFRESH_ROLLBACK_SUCCESSFUL);
    assert_int_equal(r->percentage_complete_on_rollback, 100);
    assert_int_equal(on_version(x, "1"), 4);
}

static void test_asg_refresh_auto_rollback_on_failure(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(50, 0);

    q.has_auto_rollback = 1;
    q.auto_rollback = 1;
    make_group(x, 2, "EC2");
    x->f.fail_launches = 1;
    start(x, &q);
    x->now += 1;
    settle(x, x->now); /* the replacement's launch fails */
    x->now += 10 * SEC;
    settle(x, x->now);
    /* nothing was launched with version 2: the rollback has nothing to replace */
    assert_true(newest(x)->status == SC_ASG_REFRESH_ROLLBACK_IN_PROGRESS ||
                newest(x)->status == SC_ASG_REFRESH_ROLLBACK_SUCCESSFUL);
    assert_true(newest(x)->has_rollback);
    assert_string_equal(grp(x)->launch_template_version, "1");
    assert_string_equal(newest(x)->rollback_reason,
                        "Instance refresh failed: an instance launch failed.");
    x->f.fail_launches = 0;
    x->now += 70 * SEC;
    assert_true(run_until_done(x, 100, NULL) < 100);
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_ROLLBACK_SUCCESSFUL);
    x->now += 70 * SEC;
    settle(x, x->now);
    assert_int_equal(on_version(x, "1"), 2);
}

static void test_asg_refresh_failure_without_rollback(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(50, 0);

    make_group(x, 2, "EC2");
    x->f.fail_launches = 1;
    start(x, &q);
    x->now += 1;
    settle(x, x->now);
    x->now += 10 * SEC;
    settle(x, x->now);
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_FAILED);
    assert_string_equal(newest(x)->status_reason,
                        "Instance refresh failed: an instance launch failed.");
    assert_string_equal(grp(x)->launch_template_version, "1");
}

static void test_asg_refresh_protected_wait_fails(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(0, 0);
    const char *ids[2];

    make_group(x, 2, "EC2");
    ids[0] = sc_asg_group_instance_at(grp(x), 0)->instance_id;
    ids[1] = sc_asg_group_instance_at(grp(x), 1)->instance_id;
    assert_int_equal(sc_asg_set_instance_protection(x->asg, "g", ids, 2, 1, x->now, &x->err),
                     SC_OK);
    start(x, &q);
    x->now += 1;
    settle(x, x->now);
    assert_string_equal(newest(x)->status_reason,
                        "Waiting for instances protected from scale in to be unprotected.");
    assert_int_equal(on_version(x, "1"), 2);
    x->now += 3600 * SEC;
    settle(x, x->now);
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_FAILED);
}

static void test_asg_refresh_protected_refresh_and_ignore(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(50, 0);
    const char *id;

    make_group(x, 2, "EC2");
    id = sc_asg_group_instance_at(grp(x), 0)->instance_id;
    assert_int_equal(sc_asg_set_instance_protection(x->asg, "g", &id, 1, 1, x->now, &x->err),
                     SC_OK);
    q.scale_in_protected_instances = "Ignore";
    start(x, &q);
    assert_int_equal(newest(x)->instances_to_update, 1);
    assert_true(run_until_done(x, 100, NULL) < 100);
    assert_int_equal(on_version(x, "1"), 1); /* the protected one stays */
    q.scale_in_protected_instances = "Refresh";
    start(x, &q);
    assert_true(run_until_done(x, 100, NULL) < 100);
    assert_int_equal(on_version(x, "2"), 2);
}

static void test_asg_refresh_suspended_process_holds(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(50, 0);
    const char *proc = "InstanceRefresh";

    make_group(x, 2, "EC2");
    assert_int_equal(sc_asg_suspend_processes(x->asg, "g", &proc, 1, x->now, &x->err), SC_OK);
    start(x, &q);
    for (int i = 0; i < 5; i++) {
        x->now += 10 * SEC;
        settle(x, x->now);
    }
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_PENDING);
    assert_int_equal(on_version(x, "1"), 2);
    assert_int_equal(sc_asg_resume_processes(x->asg, "g", &proc, 1, x->now, &x->err), SC_OK);
    assert_true(run_until_done(x, 100, NULL) < 100);
    assert_int_equal(on_version(x, "2"), 2);
}

static void test_asg_refresh_bake_time(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(0, 0);

    q.has_bake_time = 1;
    q.bake_time = 300;
    make_group(x, 2, "EC2");
    start(x, &q);
    for (int i = 0; i < 10 && newest(x)->status != SC_ASG_REFRESH_BAKING; i++) {
        x->now += 10 * SEC;
        settle(x, x->now);
    }
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_BAKING);
    x->now += 300 * SEC;
    settle(x, x->now);
    assert_int_equal(newest(x)->status, SC_ASG_REFRESH_SUCCESSFUL);
}

static void test_asg_refresh_defaults(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = { .auto_scaling_group_name = "g" };
    const struct sc_asg_refresh_prefs *p;
    struct sc_asg_group_req up = { .auto_scaling_group_name = "g",
                                   .has_health_check_grace_period = 1,
                                   .health_check_grace_period = 45 };

    make_group(x, 2, "EC2");
    assert_int_equal(sc_asg_update_group(x->asg, &up, x->now, &x->err), SC_OK);
    start(x, &q);
    p = &newest(x)->prefs;
    assert_int_equal(p->min_healthy_percentage, 90);
    assert_int_equal(p->max_healthy_percentage, 100);
    assert_int_equal(p->instance_warmup, 45); /* the grace period without DefaultInstanceWarmup */
    assert_int_equal(p->checkpoint_delay, 3600);
    assert_string_equal(p->scale_in_protected_instances, "Wait");
    assert_string_equal(p->standby_instances, "Wait");
    assert_false(p->skip_matching);
    assert_false(newest(x)->has_desired);
    assert_string_equal(newest(x)->strategy, "Rolling");
}

static void test_asg_refresh_errors(void **state)
{
    struct fx *x = *state;
    static const int bad_order[] = { 50, 20 };
    struct {
        struct sc_asg_refresh_req q;
        enum sc_status st;
        const char *msg;
    } bad[] = {
        { { .auto_scaling_group_name = "nope" },
          SC_ERR_VALIDATION,
          "AutoScalingGroup name not found - AutoScalingGroup: nope not found" },
        { { .auto_scaling_group_name = "g",
            .has_min_healthy_percentage = 1,
            .min_healthy_percentage = 101 },
          SC_ERR_VALIDATION,
          NULL },
        { { .auto_scaling_group_name = "g",
            .has_max_healthy_percentage = 1,
            .max_healthy_percentage = 99 },
          SC_ERR_VALIDATION,
          NULL },
        { { .auto_scaling_group_name = "g",
            .has_min_healthy_percentage = 1,
            .min_healthy_percentage = 10,
            .has_max_healthy_percentage = 1,
            .max_healthy_percentage = 200 },
          SC_ERR_VALIDATION,
          "The difference between MaxHealthyPercentage and MinHealthyPercentage cannot be greater than 100." },
        { { .auto_scaling_group_name = "g",
            .checkpoint_percentages = bad_order,
            .ncheckpoint_percentages = 2 },
          SC_ERR_VALIDATION,
          "CheckpointPercentages must be unique and in ascending order." },
        { { .auto_scaling_group_name = "g", .has_checkpoint_delay = 1, .checkpoint_delay = 60 },
          SC_ERR_VALIDATION,
          "CheckpointDelay requires CheckpointPercentages." },
        { { .auto_scaling_group_name = "g", .scale_in_protected_instances = "Maybe" },
          SC_ERR_VALIDATION,
          NULL },
        { { .auto_scaling_group_name = "g", .strategy = "ReplaceRootVolume" },
          SC_ERR_VALIDATION,
          NULL },
        { { .auto_scaling_group_name = "g",
            .has_desired_launch_template = 1,
            .launch_template_id = "lt-0zzz" },
          SC_ERR_VALIDATION,
          NULL },
        { { .auto_scaling_group_name = "g", .has_auto_rollback = 1, .auto_rollback = 1 },
          SC_ERR_VALIDATION,
          NULL },
    };
    struct sc_asg_group_req zero = { .auto_scaling_group_name = "g",
                                     .has_desired_capacity = 1,
                                     .desired_capacity = 0 };

    make_group(x, 2, "EC2");
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        memset(&x->err, 0, sizeof(x->err));
        assert_int_equal(sc_asg_start_instance_refresh(x->asg, &bad[k].q, x->now, NULL, &x->err),
                         bad[k].st);
        if (bad[k].msg)
            assert_string_equal(x->err.message, bad[k].msg);
        assert_int_equal(sc_asg_instance_refresh_count(x->asg, "g"), 0);
        assert_string_equal(grp(x)->launch_template_version, "1");
    }
    assert_int_equal(sc_asg_rollback_instance_refresh(x->asg, "g", x->now, NULL, &x->err),
                     SC_ERR_ACTIVE_INSTANCE_REFRESH_NOT_FOUND);
    /* no desired configuration: not reversible */
    {
        struct sc_asg_refresh_req q = { .auto_scaling_group_name = "g" };

        start(x, &q);
        assert_int_equal(sc_asg_rollback_instance_refresh(x->asg, "g", x->now, NULL, &x->err),
                         SC_ERR_IRREVERSIBLE_INSTANCE_REFRESH);
        assert_string_equal(sc_status_code(x->err.status), "IrreversibleInstanceRefresh");
        assert_int_equal(sc_asg_cancel_instance_refresh(x->asg, "g", 0, x->now, NULL, &x->err),
                         SC_OK);
        assert_int_equal(newest(x)->status, SC_ASG_REFRESH_CANCELLED);
    }
    assert_int_equal(sc_asg_update_group(x->asg, &zero, x->now, &x->err), SC_OK);
    {
        struct sc_asg_refresh_req q = { .auto_scaling_group_name = "g" };

        assert_int_equal(sc_asg_start_instance_refresh(x->asg, &q, x->now, NULL, &x->err),
                         SC_ERR_VALIDATION);
        assert_string_equal(
            x->err.message,
            "The Auto Scaling group g has no instances to refresh: its desired capacity is 0.");
    }
}

static void test_asg_refresh_save_load(void **state)
{
    struct fx *x = *state;
    struct sc_asg_refresh_req q = to_v2(50, 300);
    struct fx *y = fx_alloc();
    json_t *saved, *again;
    char *a, *b;

    make_group(x, 4, "EC2");
    start(x, &q);
    x->now += 1;
    settle(x, x->now);
    saved = sc_asg_save(x->asg);
    assert_non_null(saved);
    assert_non_null(y);
    y->f = x->f;
    y->asg = refresh_asg(y);
    assert_int_equal(sc_asg_load(y->asg, saved, &y->err), SC_OK);
    again = sc_asg_save(y->asg);
    a = json_dumps(saved, JSON_SORT_KEYS);
    b = json_dumps(again, JSON_SORT_KEYS);
    assert_string_equal(a, b);
    assert_int_equal(sc_asg_instance_refresh_count(y->asg, "g"), 1);
    assert_int_equal(sc_asg_instance_refresh_at(y->asg, "g", 0)->status,
                     SC_ASG_REFRESH_IN_PROGRESS);
    /* it carries on after the load */
    y->now = x->now;
    assert_true(run_until_done(y, 200, NULL) < 200);
    assert_int_equal(sc_asg_instance_refresh_at(y->asg, "g", 0)->status, SC_ASG_REFRESH_SUCCESSFUL);
    free(a);
    free(b);
    json_decref(saved);
    json_decref(again);
    sc_asg_destroy(y->asg);
    free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_asg_refresh_min_healthy_batches, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_min_100_one_at_a_time, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_max_healthy_launches_first, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_instance_warmup, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_elb_health_counts, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_skip_matching, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_skip_matching_nothing_to_do, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_checkpoint_pause, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_partial_checkpoint_ends, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_already_in_progress, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_cancel, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_rollback, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_auto_rollback_on_failure, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_failure_without_rollback, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_protected_wait_fails, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_protected_refresh_and_ignore, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_suspended_process_holds, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_bake_time, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_defaults, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_errors, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_refresh_save_load, setup, fx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
