/* tests/unit/scaler/test_asg_warm.c: scaler/asg_warm.c (and the step's draws and returns)
 * against a fake EC2 and load balancer: one test per rule of docs/autoscaling.md section 7. */
#include "scaler/asg_warm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <jansson.h>

#include "scaler/asg_hook.h"
#include "scaler/asg_internal.h"

#include "asg_fixture.h"

/* --- the fake EC2 and load balancer (asg_fixture.h) and a launch template "web" --------- */

static enum sc_status f_lt_resolve(void *ud, const char *id, const char *name, const char *version,
                                   struct sc_asg_lt_resolved *out, struct sc_error *err)
{
    (void)ud;
    (void)version;
    (void)err;
    if (out) {
        snprintf(out->launch_template_id, sizeof(out->launch_template_id), "%s",
                 id ? id : "lt-0aaa");
        snprintf(out->launch_template_name, sizeof(out->launch_template_name), "%s",
                 name ? name : "web");
        snprintf(out->instance_type, sizeof(out->instance_type), "t3.micro");
    }
    return SC_OK;
}

static struct sc_asg *warm_asg(struct fx *x)
{
    struct sc_asg_env env = fx_env(x);

    env.launch_template_resolve = f_lt_resolve;
    return fx_asg_with(x, env);
}

static const char *const zones[] = { "us-east-1a" };
static const char *const lbs[] = { "lb" };

static int setup(void **state)
{
    struct fx *x = fx_alloc();
    struct sc_asg_lc_req lc = { .launch_configuration_name = "lc",
                                .image_id = "ami-1",
                                .instance_type = "t3.micro" };
    struct sc_asg_group_req g = { .auto_scaling_group_name = "g",
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .min_size = 0,
                                  .has_max_size = 1,
                                  .max_size = 5,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = 1,
                                  .availability_zones = zones,
                                  .navailability_zones = 1,
                                  .load_balancer_names = lbs,
                                  .nload_balancer_names = 1 };

    if (!x)
        return -1;
    x->asg = warm_asg(x);
    if (!x->asg || sc_asg_create_launch_configuration(x->asg, &lc, T0, &x->err) != SC_OK ||
        sc_asg_create_group(x->asg, &g, T0, &x->err) != SC_OK)
        return -1;
    *state = x;
    return 0;
}

/* steps with the data plane between them (pending boots, shutting-down goes); then the
 * caches recounted */
static void settle_warm(struct fx *x, int64_t now)
{
    char why[256];

    for (int round = 0; round < 4; round++) {
        sc_asg_step(x->asg, now + round);
        for (int i = 0; i < x->f.ninst; i++) {
            if (x->f.inst[i].state == SC_ASG_EC2_PENDING)
                x->f.inst[i].state = SC_ASG_EC2_RUNNING;
            else if (x->f.inst[i].state == SC_ASG_EC2_SHUTTING_DOWN)
                x->f.inst[i].state = SC_ASG_EC2_GONE;
        }
    }
    if (asg_self_check(x->asg, why, sizeof(why)) != 0)
        fail_msg("self check: %s", why);
}

static const struct sc_asg_group_info *grp(struct fx *x)
{
    const struct sc_asg_group_info *g = sc_asg_group_find(x->asg, "g");

    assert_non_null(g);
    return g;
}

/* Members in state s. */
static int count_in(struct fx *x, enum sc_asg_lifecycle s)
{
    int n = 0;

    for (int i = 0; i < sc_asg_group_instance_count(grp(x)); i++)
        n += sc_asg_group_instance_at(grp(x), i)->lifecycle_state == s;
    return n;
}

/* The i-th member in state s (its id), or NULL. */
static const char *nth_in(struct fx *x, enum sc_asg_lifecycle s, int k)
{
    for (int i = 0; i < sc_asg_group_instance_count(grp(x)); i++) {
        const struct sc_asg_instance_info *in = sc_asg_group_instance_at(grp(x), i);

        if (in->lifecycle_state == s && k-- == 0)
            return in->instance_id;
    }
    return NULL;
}

static void put_pool(struct fx *x, int mgpc, int min_size, const char *state, int reuse)
{
    struct sc_asg_warm_req r = { .auto_scaling_group_name = "g",
                                 .has_max_group_prepared_capacity = mgpc != -2,
                                 .max_group_prepared_capacity = mgpc,
                                 .has_min_size = min_size >= 0,
                                 .min_size = min_size,
                                 .pool_state = state,
                                 .has_reuse_on_scale_in = reuse >= 0,
                                 .reuse_on_scale_in = reuse > 0 };

    assert_int_equal(sc_asg_put_warm_pool(x->asg, &r, T0, &x->err), SC_OK);
}

static void set_desired(struct fx *x, int d, int64_t now)
{
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", d, 0, now, &x->err), SC_OK);
}

/* --- the rules ------------------------------------------------------------------------------ */

/* max(P - desired, MinSize), P = MaxGroupPreparedCapacity or MaxSize (the user guide's
 * examples: desired 6 max 10 -> 4; prepared 8 -> 2). */
static void test_asg_warm_pool_size_rule(void **state)
{
    (void)state;
    assert_int_equal(sc_asg_warm_pool_size_rule(-1, 10, 6, 0), 4);
    assert_int_equal(sc_asg_warm_pool_size_rule(8, 10, 6, 0), 2);
    assert_int_equal(sc_asg_warm_pool_size_rule(4, 10, 6, 0), 0); /* desired above P */
    assert_int_equal(sc_asg_warm_pool_size_rule(4, 10, 6, 3), 3); /* unless MinSize */
    assert_int_equal(sc_asg_warm_pool_size_rule(5, 10, 0, 5), 5); /* absolute size */
    assert_int_equal(sc_asg_warm_pool_size_rule(5, 10, 4, 5), 5);
    assert_int_equal(sc_asg_warm_pool_size_rule(-1, 1, 3, 0), 0);
}

/* The pool fills to its size in Warmed:Stopped: EC2 stopped, not registered, not capacity. */
static void test_asg_warm_pool_fills_stopped(void **state)
{
    struct fx *x = *state;

    settle_warm(x, T0);
    put_pool(x, -2, -1, NULL, -1); /* defaults: MaxSize 5 - desired 1 = 4 */
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_IN_SERVICE), 1);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 4);
    assert_int_equal(sc_asg_warm_pool_size(grp(x)), 4);
    assert_int_equal(sc_asg_group_capacity(grp(x)), 1);
    assert_int_equal(grp(x)->desired_capacity, 1);
    assert_int_equal(sc_asg_warm_pool(grp(x))->pool_state, SC_ASG_POOL_STOPPED);
    for (int k = 0; k < 4; k++) {
        struct fake_inst *fi = finst(&x->f, nth_in(x, SC_ASG_WARMED_STOPPED, k));

        assert_int_equal(fi->state, SC_ASG_EC2_STOPPED);
        assert_false(fi->ever_registered);
    }
    /* its activity says where it went */
    assert_non_null(strstr(sc_asg_activity_at(x->asg, "g", 0)->description,
                           "Launching a new EC2 instance into warm pool: "));
    assert_string_equal(sc_asg_activity_at(x->asg, "g", 0)->status_code, "Successful");
}

/* An instance is Warmed:Stopped only once EC2 has stopped it: while EC2 says stopping it is
 * still on its way (Warmed:Pending:Proceed), not counted in the pool's settled states. */
static void test_asg_warm_stopped_waits_for_ec2_stopped(void **state)
{
    struct fx *x = *state;

    settle_warm(x, T0);
    x->f.slow_stop = 1;
    put_pool(x, 3, -1, NULL, -1); /* MaxGroupPreparedCapacity 3 - desired 1 */
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 0);
    assert_int_equal(count_in(x, SC_ASG_WARMED_PENDING_PROCEED), 2);
    for (int i = 0; i < x->f.ninst; i++)
        if (x->f.inst[i].state == SC_ASG_EC2_STOPPING)
            x->f.inst[i].state = SC_ASG_EC2_STOPPED;
    settle_warm(x, T0 + 2 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 2);
    assert_int_equal(count_in(x, SC_ASG_IN_SERVICE), 1);
}

/* PoolState Running keeps them running, still out of the load balancer. */
static void test_asg_warm_pool_running_not_registered(void **state)
{
    struct fx *x = *state;

    settle_warm(x, T0);
    put_pool(x, 3, -1, "Running", -1);
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_RUNNING), 2);
    for (int k = 0; k < 2; k++) {
        struct fake_inst *fi = finst(&x->f, nth_in(x, SC_ASG_WARMED_RUNNING, k));

        assert_int_equal(fi->state, SC_ASG_EC2_RUNNING);
        assert_false(fi->ever_registered);
        assert_int_equal(fi->stops, 0);
    }
}

/* Scale-out draws from the pool first: the new InService instance is a pool instance, EC2
 * starts it, no cold launch; then the pool refills to its MinSize. */
static void test_asg_warm_scale_out_draws_from_pool(void **state)
{
    struct fx *x = *state;
    char pooled[2][SC_ASG_ID_LEN];
    int runs;

    settle_warm(x, T0);
    put_pool(x, 2, 2, NULL, -1); /* absolute: 2 */
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 2);
    snprintf(pooled[0], sizeof(pooled[0]), "%s", nth_in(x, SC_ASG_WARMED_STOPPED, 0));
    snprintf(pooled[1], sizeof(pooled[1]), "%s", nth_in(x, SC_ASG_WARMED_STOPPED, 1));
    runs = x->f.runs;
    set_desired(x, 2, T0 + 10 * SEC);
    sc_asg_step(x->asg, T0 + 10 * SEC);
    /* drawn at once: Pending (EC2 started it), no cold launch for the group */
    assert_int_equal(count_in(x, SC_ASG_PENDING), 1);
    assert_string_equal(nth_in(x, SC_ASG_PENDING, 0), pooled[0]);
    assert_int_equal(finst(&x->f, pooled[0])->starts, 1);
    settle_warm(x, T0 + 11 * SEC);
    assert_int_equal(count_in(x, SC_ASG_IN_SERVICE), 2);
    assert_true(finst(&x->f, pooled[0])->registered);
    assert_int_equal(sc_asg_group_capacity(grp(x)), 2);
    /* the refill: one launch into the pool, nothing else */
    assert_int_equal(x->f.runs, runs + 1);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 2);
    assert_string_equal(nth_in(x, SC_ASG_WARMED_STOPPED, 0), pooled[1]);
    {
        int found = 0;

        for (int i = 0; i < sc_asg_activity_count(x->asg, "g"); i++)
            found |= strstr(sc_asg_activity_at(x->asg, "g", i)->description,
                            "Launching a new EC2 instance from warm pool: ") != NULL;
        assert_true(found);
    }
}

/* A depleted pool: what it cannot give launches cold. */
static void test_asg_warm_cold_start_when_depleted(void **state)
{
    struct fx *x = *state;
    int runs;

    settle_warm(x, T0);
    put_pool(x, 1, 1, NULL, -1);
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 1);
    runs = x->f.runs;
    set_desired(x, 4, T0 + 10 * SEC);
    sc_asg_step(x->asg, T0 + 10 * SEC);
    /* one from the pool, two cold, one into the pool (MinSize 1) */
    assert_int_equal(x->f.runs, runs + 3);
    settle_warm(x, T0 + 11 * SEC);
    assert_int_equal(count_in(x, SC_ASG_IN_SERVICE), 4);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 1);
}

/* ReuseOnScaleIn: the scale-in victim goes back to the pool (deregistered, stopped), not
 * terminated. */
static void test_asg_warm_reuse_on_scale_in(void **state)
{
    struct fx *x = *state;
    char victim[SC_ASG_ID_LEN];

    set_desired(x, 2, T0);
    settle_warm(x, T0);
    put_pool(x, -2, 0, NULL, 1); /* MaxSize 5 - 2 = 3 */
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 3);
    set_desired(x, 1, T0 + 10 * SEC);
    settle_warm(x, T0 + 10 * SEC);
    assert_int_equal(count_in(x, SC_ASG_IN_SERVICE), 1);
    /* the pool's target became 4: the victim filled it */
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 4);
    victim[0] = '\0';
    for (int k = 0; k < 4; k++) /* the one that served before */
        if (finst(&x->f, nth_in(x, SC_ASG_WARMED_STOPPED, k))->ever_registered) {
            assert_string_equal(victim, "");
            snprintf(victim, sizeof(victim), "%s", nth_in(x, SC_ASG_WARMED_STOPPED, k));
        }
    assert_string_not_equal(victim, "");
    assert_false(finst(&x->f, victim)->registered);
    assert_int_equal(finst(&x->f, victim)->state, SC_ASG_EC2_STOPPED);
    assert_int_equal(x->f.ninst, 5); /* nothing terminated, nothing launched */
    assert_non_null(strstr(sc_asg_activity_at(x->asg, "g", 0)->description,
                           "Moving EC2 instance to warm pool: "));
}

/* Without ReuseOnScaleIn scale-in terminates as before. */
static void test_asg_warm_no_reuse_terminates(void **state)
{
    struct fx *x = *state;

    set_desired(x, 2, T0);
    settle_warm(x, T0);
    put_pool(x, 2, 0, NULL, -1);
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 0); /* 2 - 2 */
    set_desired(x, 1, T0 + 10 * SEC);
    settle_warm(x, T0 + 10 * SEC);
    assert_int_equal(count_in(x, SC_ASG_IN_SERVICE), 1);
    /* the pool's target is 1 now: a fresh launch, the victim is gone */
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 1);
    assert_int_equal(x->f.runs, 3);
}

/* A group with a mixed instances policy (or a Spot launch configuration) is refused with
 * AWS's text; nothing is stored. */
static void test_asg_warm_refused_with_mixed_policy(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = { .has_launch_template_spec = 1, .launch_template_name = "web" };
    struct sc_asg_group_req g = { .auto_scaling_group_name = "mixed",
                                  .mixed_instances_policy = &m,
                                  .has_min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = 2,
                                  .availability_zones = zones,
                                  .navailability_zones = 1 };
    struct sc_asg_lc_req spot = { .launch_configuration_name = "spot",
                                  .image_id = "ami-1",
                                  .instance_type = "t3.micro" };
    struct sc_asg_warm_req r = { .auto_scaling_group_name = "mixed" };
    json_t *other = json_pack("{s:s}", "SpotPrice", "0.05");
    const char *text =
        "You can\xe2\x80\x99t add a warm pool to an Auto Scaling group that has a mixed instances policy or a launch template or launch configuration that requests Spot Instances.";

    assert_int_equal(sc_asg_create_group(x->asg, &g, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_put_warm_pool(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, text);
    assert_null(sc_asg_warm_pool(sc_asg_group_find(x->asg, "mixed")));
    spot.other = other;
    assert_int_equal(sc_asg_create_launch_configuration(x->asg, &spot, T0, &x->err), SC_OK);
    g.auto_scaling_group_name = "spot";
    g.mixed_instances_policy = NULL;
    g.launch_configuration_name = "spot";
    assert_int_equal(sc_asg_create_group(x->asg, &g, T0, &x->err), SC_OK);
    r.auto_scaling_group_name = "spot";
    assert_int_equal(sc_asg_put_warm_pool(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, text);
    assert_null(sc_asg_warm_pool(sc_asg_group_find(x->asg, "spot")));
    json_decref(other);
}

/* Values out of range, an unknown group, an unknown pool state: AWS's constraint texts, and
 * the pool keeps what it had. */
static void test_asg_warm_bad_input_changes_nothing(void **state)
{
    struct fx *x = *state;
    struct sc_asg_warm_req r = { .auto_scaling_group_name = "g" };

    put_pool(x, 3, 1, "Running", 1);
    r.has_min_size = 1;
    r.min_size = -1;
    assert_int_equal(sc_asg_put_warm_pool(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
    assert_string_equal(
        x->err.message,
        "1 validation error detected: Value '-1' at 'minSize' failed to satisfy constraint: Member must have value greater than or equal to 0");
    r.has_min_size = 0;
    r.has_max_group_prepared_capacity = 1;
    r.max_group_prepared_capacity = -2;
    assert_int_equal(sc_asg_put_warm_pool(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
    assert_non_null(strstr(x->err.message, "at 'maxGroupPreparedCapacity'"));
    r.has_max_group_prepared_capacity = 0;
    r.pool_state = "Frozen";
    assert_int_equal(sc_asg_put_warm_pool(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
    assert_string_equal(
        x->err.message,
        "1 validation error detected: Value 'Frozen' at 'poolState' failed to satisfy constraint: Member must satisfy enum value set: [Stopped, Running, Hibernated]");
    r.pool_state = NULL;
    r.auto_scaling_group_name = "nope";
    assert_int_equal(sc_asg_put_warm_pool(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
    assert_string_equal(x->err.message,
                        "AutoScalingGroup name not found - AutoScalingGroup: nope not found");
    assert_int_equal(sc_asg_delete_warm_pool(x->asg, "nope", 0, T0, &x->err), SC_ERR_VALIDATION);
    {
        const struct sc_asg_warm_info *w = sc_asg_warm_pool(grp(x));

        assert_true(w->has_max_group_prepared_capacity);
        assert_int_equal(w->max_group_prepared_capacity, 3);
        assert_int_equal(w->min_size, 1);
        assert_int_equal(w->pool_state, SC_ASG_POOL_RUNNING);
        assert_true(w->reuse_on_scale_in);
    }
    /* an update changes what it sends; -1 removes the prepared capacity */
    r.auto_scaling_group_name = "g";
    r.has_max_group_prepared_capacity = 1;
    r.max_group_prepared_capacity = -1;
    assert_int_equal(sc_asg_put_warm_pool(x->asg, &r, T0, &x->err), SC_OK);
    assert_false(sc_asg_warm_pool(grp(x))->has_max_group_prepared_capacity);
    assert_int_equal(sc_asg_warm_pool(grp(x))->min_size, 1);
    assert_int_equal(sc_asg_warm_pool_target(grp(x)), 4); /* MaxSize 5 - desired 1 */
}

/* Launch hooks fire on entering the pool (Warmed:Pending:Wait) and again on leaving it
 * (Pending:Wait). */
static void test_asg_warm_hooks_on_entering_and_leaving(void **state)
{
    struct fx *x = *state;
    struct sc_asg_hook_req h = { .lifecycle_hook_name = "boot",
                                 .auto_scaling_group_name = "g",
                                 .lifecycle_transition = "autoscaling:EC2_INSTANCE_LAUNCHING",
                                 .default_result = "CONTINUE" };
    const char *id;

    settle_warm(x, T0);
    assert_int_equal(sc_asg_put_lifecycle_hook(x->asg, &h, T0, &x->err), SC_OK);
    put_pool(x, 2, 1, NULL, -1);
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_PENDING_WAIT), 1);
    id = nth_in(x, SC_ASG_WARMED_PENDING_WAIT, 0);
    assert_int_equal(finst(&x->f, id)->stops, 0); /* not stopped before the hook completes */
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "boot", NULL, id, "CONTINUE",
                                                      T0 + 5 * SEC, &x->err),
                     SC_OK);
    settle_warm(x, T0 + 5 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 1);
    set_desired(x, 2, T0 + 10 * SEC);
    settle_warm(x, T0 + 10 * SEC);
    assert_int_equal(count_in(x, SC_ASG_PENDING_WAIT), 1);
    assert_string_equal(nth_in(x, SC_ASG_PENDING_WAIT, 0), id);
    assert_false(finst(&x->f, id)->registered);
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "boot", NULL, id, "CONTINUE",
                                                      T0 + 12 * SEC, &x->err),
                     SC_OK);
    settle_warm(x, T0 + 12 * SEC);
    assert_int_equal(count_in(x, SC_ASG_IN_SERVICE), 2);
    assert_true(finst(&x->f, id)->registered);
}

/* An ABANDON on entering terminates the instance; the pool launches another. */
static void test_asg_warm_abandon_on_entering(void **state)
{
    struct fx *x = *state;
    struct sc_asg_hook_req h = { .lifecycle_hook_name = "boot",
                                 .auto_scaling_group_name = "g",
                                 .lifecycle_transition = "autoscaling:EC2_INSTANCE_LAUNCHING" };
    char id[SC_ASG_ID_LEN];

    settle_warm(x, T0);
    assert_int_equal(sc_asg_put_lifecycle_hook(x->asg, &h, T0, &x->err), SC_OK);
    put_pool(x, 2, 1, NULL, -1);
    settle_warm(x, T0 + SEC);
    snprintf(id, sizeof(id), "%s", nth_in(x, SC_ASG_WARMED_PENDING_WAIT, 0));
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "boot", NULL, id, "ABANDON",
                                                      T0 + 5 * SEC, &x->err),
                     SC_OK);
    settle_warm(x, T0 + 5 * SEC);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_GONE);
    assert_int_equal(count_in(x, SC_ASG_WARMED_PENDING_WAIT), 1); /* the replacement */
    assert_string_not_equal(nth_in(x, SC_ASG_WARMED_PENDING_WAIT, 0), id);
}

/* DeleteWarmPool: PendingDelete while the instances terminate, then no pool; ForceDelete: at
 * once. */
static void test_asg_warm_delete_pending_then_gone(void **state)
{
    struct fx *x = *state;

    settle_warm(x, T0);
    put_pool(x, 3, -1, NULL, -1);
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 2);
    assert_int_equal(sc_asg_delete_warm_pool(x->asg, "g", 0, T0 + 2 * SEC, &x->err), SC_OK);
    assert_true(sc_asg_warm_pool(grp(x))->pending_delete);
    sc_asg_step(x->asg, T0 + 2 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_TERMINATING), 2);
    {
        struct sc_asg_warm_req r = { .auto_scaling_group_name = "g" };

        assert_int_equal(sc_asg_put_warm_pool(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
        assert_string_equal(x->err.message,
                            "The warm pool of Auto Scaling group g is pending delete.");
    }
    settle_warm(x, T0 + 3 * SEC);
    assert_null(sc_asg_warm_pool(grp(x)));
    assert_int_equal(sc_asg_warm_pool_size(grp(x)), 0);
    assert_int_equal(sc_asg_group_instance_count(grp(x)), 1);
    assert_int_equal(sc_asg_delete_warm_pool(x->asg, "g", 0, T0 + 4 * SEC, &x->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, "No warm pool found for Auto Scaling group g.");
    /* force */
    put_pool(x, 3, -1, NULL, -1);
    settle_warm(x, T0 + 5 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 2);
    assert_int_equal(sc_asg_delete_warm_pool(x->asg, "g", 1, T0 + 6 * SEC, &x->err), SC_OK);
    assert_null(sc_asg_warm_pool(grp(x)));
    assert_int_equal(sc_asg_group_instance_count(grp(x)), 1);
    for (int i = 0; i < x->f.ninst; i++)
        if (x->f.inst[i].state != SC_ASG_EC2_RUNNING)
            assert_true(x->f.inst[i].state == SC_ASG_EC2_SHUTTING_DOWN ||
                        x->f.inst[i].state == SC_ASG_EC2_GONE);
    settle_warm(x, T0 + 7 * SEC);
    assert_int_equal(sc_asg_group_instance_count(grp(x)), 1);
}

/* TerminateInstanceInAutoScalingGroup of a pool instance terminates it; the pool refills
 * (desired unchanged, with or without decrement). */
static void test_asg_warm_terminate_pool_instance_refills(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_activity_info *a = NULL;
    char id[SC_ASG_ID_LEN];

    settle_warm(x, T0);
    put_pool(x, 2, 1, NULL, -1);
    settle_warm(x, T0 + SEC);
    snprintf(id, sizeof(id), "%s", nth_in(x, SC_ASG_WARMED_STOPPED, 0));
    assert_int_equal(sc_asg_terminate_instance(x->asg, id, 1, T0 + 2 * SEC, &a, &x->err), SC_OK);
    assert_non_null(a);
    assert_non_null(strstr(a->description, id));
    settle_warm(x, T0 + 2 * SEC);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_GONE);
    assert_int_equal(grp(x)->desired_capacity, 1);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 1);
    assert_string_not_equal(nth_in(x, SC_ASG_WARMED_STOPPED, 0), id);
}

/* Warm instances are in none of the group's metrics and not in desired or capacity. */
static void test_asg_warm_not_in_group_metrics(void **state)
{
    struct fx *x = *state;

    assert_int_equal(sc_asg_enable_metrics_collection(x->asg, "g", NULL, 0, "1Minute", T0, &x->err),
                     SC_OK);
    settle_warm(x, T0);
    put_pool(x, -2, -1, "Running", -1);
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_RUNNING), 4);
    sc_asg_step(x->asg, T0 + 61 * SEC);
    assert_int_equal((int)x->f.metric[2], 1); /* GroupDesiredCapacity */
    assert_int_equal((int)x->f.metric[3], 1); /* GroupInServiceInstances */
    assert_int_equal((int)x->f.metric[4], 0); /* GroupPendingInstances */
    assert_int_equal((int)x->f.metric[7], 1); /* GroupTotalInstances */
    assert_false(
        sc_asg_instance_warmed(x->asg, nth_in(x, SC_ASG_WARMED_RUNNING, 0), T0 + 61 * SEC));
}

/* The warm pool group metrics (docs/autoscaling.md 7.3): published each minute with the
 * Group* ones for a group with a pool, from the pool's states and its size rule; accepted
 * by name; none for a group without a pool. */
static void test_asg_warm_pool_group_metrics(void **state)
{
    struct fx *x = *state;
    static const char *const one[] = { "WarmPoolWarmedCapacity" };
    static const char *const bad[] = { "WarmPoolSize" };
    int puts;

    assert_int_equal(sc_asg_enable_metrics_collection(x->asg, "g", bad, 1, "1Minute", T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, "Invalid metric name: WarmPoolSize");
    assert_int_equal(sc_asg_enable_metrics_collection(x->asg, "g", NULL, 0, "1Minute", T0, &x->err),
                     SC_OK);
    settle_warm(x, T0);
    /* no pool yet: the Group* metrics only (the eight and the five Group*Capacity) */
    assert_int_equal(x->f.metric_puts, SC_ASG_METRIC_NO_POOL_COUNT);
    assert_string_equal(sc_asg_metric_str(SC_ASG_METRIC_GROUP_COUNT), "WarmPoolMinSize");
    assert_string_equal(sc_asg_metric_str(SC_ASG_METRIC_WARM_END - 1),
                        "GroupAndWarmPoolTotalCapacity");
    /* max 5, desired 1, MinSize 3: the pool keeps max(5 - 1, 3) = 4, stopped */
    put_pool(x, -2, 3, NULL, -1);
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 4);
    puts = x->f.metric_puts;
    sc_asg_step(x->asg, T0 + 61 * SEC);
    assert_int_equal(x->f.metric_puts, puts + SC_ASG_METRIC_COUNT);
    assert_int_equal((int)x->f.metric[8], 3);  /* WarmPoolMinSize */
    assert_int_equal((int)x->f.metric[9], 4);  /* WarmPoolDesiredCapacity */
    assert_int_equal((int)x->f.metric[10], 0); /* WarmPoolPendingCapacity */
    assert_int_equal((int)x->f.metric[11], 0); /* WarmPoolTerminatingCapacity */
    assert_int_equal((int)x->f.metric[12], 4); /* WarmPoolWarmedCapacity */
    assert_int_equal((int)x->f.metric[13], 4); /* WarmPoolTotalCapacity */
    assert_int_equal((int)x->f.metric[14], 5); /* GroupAndWarmPoolDesiredCapacity */
    assert_int_equal((int)x->f.metric[15], 5); /* GroupAndWarmPoolTotalCapacity */
    /* desired 3 draws two (Pending in the group); the pool keeps max(5 - 3, 3) = 3: one
     * refill launches, Warmed:Pending until EC2 runs it */
    set_desired(x, 3, T0 + 62 * SEC);
    sc_asg_step(x->asg, T0 + 62 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_PENDING), 1);
    sc_asg_step(x->asg, T0 + 121 * SEC);
    assert_int_equal((int)x->f.metric[4], 2);  /* GroupPendingInstances */
    assert_int_equal((int)x->f.metric[9], 3);  /* WarmPoolDesiredCapacity */
    assert_int_equal((int)x->f.metric[10], 1); /* WarmPoolPendingCapacity */
    assert_int_equal((int)x->f.metric[12], 2); /* WarmPoolWarmedCapacity */
    assert_int_equal((int)x->f.metric[13], 3); /* WarmPoolTotalCapacity */
    assert_int_equal((int)x->f.metric[14], 6); /* GroupAndWarmPoolDesiredCapacity */
    assert_int_equal((int)x->f.metric[15], 6); /* GroupAndWarmPoolTotalCapacity: 3 + 3 */
    /* a smaller pool: the surplus is Warmed:Terminating until EC2 ends it */
    settle_warm(x, T0 + 122 * SEC);
    put_pool(x, 3, 0, NULL, -1);
    sc_asg_step(x->asg, T0 + 123 * SEC);
    assert_true(count_in(x, SC_ASG_WARMED_TERMINATING) > 0);
    sc_asg_step(x->asg, T0 + 181 * SEC);
    assert_int_equal((int)x->f.metric[9], 0); /* max(3 - 3, 0) */
    assert_int_equal((int)x->f.metric[11], count_in(x, SC_ASG_WARMED_TERMINATING));
    /* one metric by name: only it */
    assert_int_equal(sc_asg_disable_metrics_collection(x->asg, "g", NULL, 0, T0, &x->err), SC_OK);
    assert_int_equal(
        sc_asg_enable_metrics_collection(x->asg, "g", one, 1, "1Minute", T0 + 181 * SEC, &x->err),
        SC_OK);
    puts = x->f.metric_puts;
    sc_asg_step(x->asg, T0 + 241 * SEC);
    assert_int_equal(x->f.metric_puts, puts + 1);
}

/* The pool and its instances' states survive save and load (the emulator's --state). */
static void test_asg_warm_save_load(void **state)
{
    struct fx *x = *state;
    struct fx *y = fx_alloc();
    json_t *doc;

    assert_non_null(y);
    settle_warm(x, T0);
    put_pool(x, 3, 1, "Hibernated", 1);
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_HIBERNATED), 2);
    doc = sc_asg_save(x->asg);
    assert_non_null(doc);
    y->asg = warm_asg(y);
    assert_int_equal(sc_asg_load(y->asg, doc, &y->err), SC_OK);
    {
        const struct sc_asg_group_info *g = sc_asg_group_find(y->asg, "g");
        const struct sc_asg_warm_info *w = sc_asg_warm_pool(g);

        assert_non_null(w);
        assert_int_equal(w->max_group_prepared_capacity, 3);
        assert_int_equal(w->min_size, 1);
        assert_int_equal(w->pool_state, SC_ASG_POOL_HIBERNATED);
        assert_true(w->has_reuse_on_scale_in && w->reuse_on_scale_in);
        assert_int_equal(sc_asg_warm_pool_size(g), 2);
        assert_string_equal(sc_asg_lifecycle_str(sc_asg_group_instance_at(g, 1)->lifecycle_state),
                            "Warmed:Hibernated");
    }
    json_decref(doc);
    sc_asg_destroy(y->asg);
    free(y);
}

/* --- the terminate hooks on returning to and leaving the pool (7.2) ------------------------ */

static void put_hook(struct fx *x, const char *name, const char *transition, const char *result,
                     int heartbeat_s)
{
    struct sc_asg_hook_req h = { .lifecycle_hook_name = name,
                                 .auto_scaling_group_name = "g",
                                 .lifecycle_transition = transition,
                                 .default_result = result,
                                 .has_heartbeat_timeout = heartbeat_s > 0,
                                 .heartbeat_timeout = heartbeat_s };

    assert_int_equal(sc_asg_put_lifecycle_hook(x->asg, &h, T0, &x->err), SC_OK);
}

#define TERMINATING "autoscaling:EC2_INSTANCE_TERMINATING"
#define LAUNCHING   "autoscaling:EC2_INSTANCE_LAUNCHING"

/* The activity of the instance (its latest), or NULL. */
static const struct sc_asg_activity_info *act_of(struct fx *x, const char *id)
{
    for (int i = 0; i < sc_asg_activity_count(x->asg, "g"); i++) {
        const struct sc_asg_activity_info *a = sc_asg_activity_at(x->asg, "g", i);

        if (strstr(a->description, id))
            return a;
    }
    return NULL;
}

/* Two InService, a pool with ReuseOnScaleIn and a terminate hook; scale in to one: the id of
 * the instance returning to the pool. */
static void return_one(struct fx *x, const char *result, int heartbeat_s, char *id)
{
    set_desired(x, 2, T0);
    settle_warm(x, T0);
    put_hook(x, "drain", TERMINATING, result, heartbeat_s);
    put_pool(x, -2, 0, NULL, 1);
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 3);
    set_desired(x, 1, T0 + 10 * SEC);
    settle_warm(x, T0 + 10 * SEC);
    assert_int_equal(count_in(x, SC_ASG_IN_SERVICE), 1);
    assert_int_equal(count_in(x, SC_ASG_WARMED_PENDING_WAIT), 1);
    snprintf(id, SC_ASG_ID_LEN, "%s", nth_in(x, SC_ASG_WARMED_PENDING_WAIT, 0));
}

/* ReuseOnScaleIn with an EC2_INSTANCE_TERMINATING hook: the returning instance is
 * deregistered, then waits in Warmed:Pending:Wait (not Terminating:Wait) with one action of
 * the terminate hook, running, its activity MidLifecycleAction; CONTINUE: Warmed:Pending:Proceed
 * and the pool state (stopped), the activity Successful; EC2 never terminates it. */
static void test_asg_warm_return_waits_for_terminate_hooks(void **state)
{
    struct fx *x = *state;
    struct sc_asg_action_info ai;
    char id[SC_ASG_ID_LEN];

    return_one(x, "ABANDON", 0, id);
    assert_false(finst(&x->f, id)->registered);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_RUNNING);
    assert_int_equal(finst(&x->f, id)->stops, 0); /* not stopped while the hook runs */
    assert_int_equal(count_in(x, SC_ASG_TERMINATING_WAIT), 0);
    assert_int_equal(sc_asg_lifecycle_action_count(x->asg, "g"), 1);
    assert_int_equal(sc_asg_lifecycle_action_at(x->asg, "g", 0, &ai), 0);
    assert_string_equal(ai.instance_id, id);
    assert_string_equal(ai.lifecycle_hook_name, "drain");
    assert_false(ai.launching);
    assert_string_equal(act_of(x, id)->status_code, "MidLifecycleAction");
    assert_non_null(strstr(act_of(x, id)->description, "Moving EC2 instance to warm pool: "));
    /* the group's metric: pending in the pool */
    assert_int_equal(sc_asg_warm_pool_size(grp(x)), 4);
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "drain", NULL, id, "CONTINUE",
                                                      T0 + 20 * SEC, &x->err),
                     SC_OK);
    x->f.slow_stop = 1;
    sc_asg_step(x->asg, T0 + 20 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_PENDING_PROCEED), 1);
    assert_int_equal(finst(&x->f, id)->stops, 1);
    x->f.slow_stop = 0;
    finst(&x->f, id)->state = SC_ASG_EC2_STOPPED;
    settle_warm(x, T0 + 21 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 4);
    assert_string_equal(act_of(x, id)->status_code, "Successful");
    assert_int_equal(x->f.ninst, 5); /* nothing terminated, nothing launched */
    /* the action is no longer active */
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "drain", NULL, id, "CONTINUE",
                                                      T0 + 22 * SEC, &x->err),
                     SC_ERR_VALIDATION);
}

/* ABANDON (sent or by timeout) on a returning instance ends the other actions and lets it go
 * into the pool as CONTINUE does: a terminate hook's results both let the instance go on
 * (scalelab's reading, docs/autoscaling.md 7.2). */
static void test_asg_warm_return_abandon_still_returns(void **state)
{
    struct fx *x = *state;
    char id[SC_ASG_ID_LEN];

    return_one(x, "CONTINUE", 0, id);
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "drain", NULL, id, "ABANDON",
                                                      T0 + 20 * SEC, &x->err),
                     SC_OK);
    settle_warm(x, T0 + 20 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 4);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_STOPPED);
    assert_int_equal(x->f.ninst, 5);
}

/* The returning instance's action times out after HeartbeatTimeout (a heartbeat restarts
 * it); the default result applies and it enters the pool. */
static void test_asg_warm_return_hook_timeout(void **state)
{
    struct fx *x = *state;
    char id[SC_ASG_ID_LEN];

    return_one(x, "ABANDON", 30, id);
    assert_int_equal(sc_asg_record_lifecycle_action_heartbeat(x->asg, "g", "drain", NULL, id,
                                                              T0 + 30 * SEC, &x->err),
                     SC_OK);
    settle_warm(x, T0 + 50 * SEC); /* 40 s after the start, 20 after the heartbeat */
    assert_int_equal(count_in(x, SC_ASG_WARMED_PENDING_WAIT), 1);
    settle_warm(x, T0 + 61 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_PENDING_WAIT), 0);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 4);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_STOPPED);
}

/* A returning instance waits for the terminate hooks only: a launch hook opens no action
 * for it (it runs again when the instance leaves the pool). */
static void test_asg_warm_return_runs_terminate_hooks_only(void **state)
{
    struct fx *x = *state;
    struct sc_asg_action_info ai;
    char id[SC_ASG_ID_LEN];

    settle_warm(x, T0);
    put_hook(x, "boot", LAUNCHING, "CONTINUE", 0);
    set_desired(x, 2, T0);
    sc_asg_step(x->asg, T0);
    for (int i = 0; i < x->f.ninst; i++)
        x->f.inst[i].state = SC_ASG_EC2_RUNNING;
    settle_warm(x, T0 + 1);
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "boot", NULL,
                                                      nth_in(x, SC_ASG_PENDING_WAIT, 0), "CONTINUE",
                                                      T0 + 2 * SEC, &x->err),
                     SC_OK);
    settle_warm(x, T0 + 2 * SEC);
    assert_int_equal(count_in(x, SC_ASG_IN_SERVICE), 2);
    put_hook(x, "drain", TERMINATING, "CONTINUE", 0);
    put_pool(x, 2, 0, NULL, 1); /* 2 - 2: empty, 1 at desired 1 */
    settle_warm(x, T0 + 3 * SEC);
    set_desired(x, 1, T0 + 10 * SEC);
    settle_warm(x, T0 + 10 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_PENDING_WAIT), 1);
    snprintf(id, sizeof(id), "%s", nth_in(x, SC_ASG_WARMED_PENDING_WAIT, 0));
    assert_int_equal(sc_asg_lifecycle_action_count(x->asg, "g"), 1);
    assert_int_equal(sc_asg_lifecycle_action_at(x->asg, "g", 0, &ai), 0);
    assert_string_equal(ai.lifecycle_hook_name, "drain");
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "boot", NULL, id, "CONTINUE",
                                                      T0 + 11 * SEC, &x->err),
                     SC_ERR_VALIDATION);
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "drain", NULL, id, "CONTINUE",
                                                      T0 + 11 * SEC, &x->err),
                     SC_OK);
    settle_warm(x, T0 + 11 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 1);
}

/* A warm instance terminated (TerminateInstanceInAutoScalingGroup, the pool's surplus, a
 * delete without force) with a terminate hook: Warmed:Terminating -> Warmed:Terminating:Wait
 * (EC2 not told yet) -> CONTINUE -> Warmed:Terminating:Proceed (EC2 terminates it) ->
 * Warmed:Terminated; a timeout ends the wait too. */
static void test_asg_warm_terminate_waits_for_terminate_hooks(void **state)
{
    struct fx *x = *state;
    char id[SC_ASG_ID_LEN], id2[SC_ASG_ID_LEN];
    struct sc_asg_action_info ai;

    settle_warm(x, T0);
    put_hook(x, "drain", TERMINATING, "ABANDON", 30);
    put_pool(x, 3, 0, NULL, -1);
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 2);
    snprintf(id, sizeof(id), "%s", nth_in(x, SC_ASG_WARMED_STOPPED, 0));
    snprintf(id2, sizeof(id2), "%s", nth_in(x, SC_ASG_WARMED_STOPPED, 1));
    assert_int_equal(sc_asg_terminate_instance(x->asg, id, 0, T0 + 2 * SEC, NULL, &x->err), SC_OK);
    assert_int_equal(count_in(x, SC_ASG_WARMED_TERMINATING), 1);
    sc_asg_step(x->asg, T0 + 2 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_TERMINATING_WAIT), 1);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_STOPPED); /* not terminated yet */
    assert_int_equal(sc_asg_lifecycle_action_at(x->asg, "g", 0, &ai), 0);
    assert_string_equal(ai.instance_id, id);
    assert_false(ai.launching);
    assert_string_equal(act_of(x, id)->status_code, "MidLifecycleAction");
    assert_int_equal(sc_asg_complete_lifecycle_action(x->asg, "g", "drain", NULL, id, "CONTINUE",
                                                      T0 + 5 * SEC, &x->err),
                     SC_OK);
    sc_asg_step(x->asg, T0 + 5 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_TERMINATING_PROCEED), 1);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_SHUTTING_DOWN);
    settle_warm(x, T0 + 6 * SEC);
    assert_int_equal(finst(&x->f, id)->state, SC_ASG_EC2_GONE);
    assert_string_equal(act_of(x, id)->status_code, "Successful");
    /* the pool refilled; now its surplus (MaxGroupPreparedCapacity 2: room for one) waits
     * too, and its action times out after 30 s */
    put_pool(x, 2, -1, NULL, -1);
    settle_warm(x, T0 + 10 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_TERMINATING_WAIT), 1);
    settle_warm(x, T0 + 39 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_TERMINATING_WAIT), 1);
    settle_warm(x, T0 + 41 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_TERMINATING_WAIT), 0);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 1);
    (void)id2;
}

/* A force delete of the pool drops the terminate actions: its instances go at once. */
static void test_asg_warm_force_delete_skips_terminate_hooks(void **state)
{
    struct fx *x = *state;

    settle_warm(x, T0);
    put_hook(x, "drain", TERMINATING, "CONTINUE", 0);
    put_pool(x, 3, 0, NULL, -1);
    settle_warm(x, T0 + SEC);
    assert_int_equal(sc_asg_delete_warm_pool(x->asg, "g", 0, T0 + 2 * SEC, &x->err), SC_OK);
    settle_warm(x, T0 + 2 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_TERMINATING_WAIT), 2); /* without force: wait */
    assert_int_equal(sc_asg_lifecycle_action_count(x->asg, "g"), 2);
    assert_int_equal(sc_asg_delete_warm_pool(x->asg, "g", 1, T0 + 3 * SEC, &x->err), SC_OK);
    assert_int_equal(sc_asg_lifecycle_action_count(x->asg, "g"), 0);
    assert_int_equal(sc_asg_group_instance_count(grp(x)), 1);
}

/* Instance-hours as EC2 bills them (7.4): a warm instance counts while it runs (entering,
 * returning, Warmed:Running; terminating only from a Running pool), not while stopped or
 * hibernated; the same by name (loadgen's DescribeWarmPool) and over a group. */
static void test_asg_warm_billed(void **state)
{
    struct fx *x = *state;

    assert_int_equal(sc_asg_warm_billed(SC_ASG_WARMED_PENDING_WAIT, SC_ASG_POOL_STOPPED), 1);
    assert_int_equal(sc_asg_warm_billed(SC_ASG_WARMED_PENDING_PROCEED, SC_ASG_POOL_HIBERNATED), 1);
    assert_int_equal(sc_asg_warm_billed(SC_ASG_WARMED_RUNNING, SC_ASG_POOL_RUNNING), 1);
    assert_int_equal(sc_asg_warm_billed(SC_ASG_WARMED_STOPPED, SC_ASG_POOL_STOPPED), 0);
    assert_int_equal(sc_asg_warm_billed(SC_ASG_WARMED_HIBERNATED, SC_ASG_POOL_HIBERNATED), 0);
    assert_int_equal(sc_asg_warm_billed(SC_ASG_WARMED_TERMINATING_WAIT, SC_ASG_POOL_STOPPED), 0);
    assert_int_equal(sc_asg_warm_billed(SC_ASG_WARMED_TERMINATING_WAIT, SC_ASG_POOL_RUNNING), 1);
    assert_int_equal(sc_asg_warm_billed(SC_ASG_WARMED_TERMINATED, SC_ASG_POOL_RUNNING), 0);
    assert_int_equal(sc_asg_warm_billed(SC_ASG_IN_SERVICE, SC_ASG_POOL_RUNNING), 0);
    assert_int_equal(sc_asg_warm_billed_str("Warmed:Running", "Running"), 1);
    assert_int_equal(sc_asg_warm_billed_str("Warmed:Stopped", "Stopped"), 0);
    assert_int_equal(sc_asg_warm_billed_str("Warmed:Terminating", "Running"), 1);
    assert_int_equal(sc_asg_warm_billed_str("InService", "Running"), 0);
    assert_int_equal(sc_asg_warm_billed_str(NULL, NULL), 0);
    settle_warm(x, T0);
    put_pool(x, 3, 0, NULL, -1);
    sc_asg_step(x->asg, T0 + SEC); /* two launched into the pool: running until stopped */
    assert_int_equal(sc_asg_warm_pool_billed(grp(x)), 2);
    settle_warm(x, T0 + 2 * SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 2);
    assert_int_equal(sc_asg_warm_pool_billed(grp(x)), 0);
    put_pool(x, 3, 0, "Running", -1);
    settle_warm(x, T0 + 3 * SEC); /* the pool state applies to instances entering later */
    assert_int_equal(sc_asg_warm_pool_billed(grp(x)), 0);
}

static int hibernations;

static void f_hibernate(void *ud, const char *id, int64_t now)
{
    hibernations++;
    f_stop(ud, id, now);
}

/* PoolState Hibernated asks EC2 to hibernate (StopInstances Hibernate), not to stop; a
 * Stopped pool stops; both leave the pool stopped in EC2 (Warmed:Hibernated, Warmed:Stopped). */
static void test_asg_warm_hibernated_pool_hibernates(void **state)
{
    struct fx *x = *state;
    struct sc_asg_env env = fx_env(x);
    struct sc_asg_lc_req lc = { .launch_configuration_name = "lc",
                                .image_id = "ami-1",
                                .instance_type = "t3.micro" };
    struct sc_asg_group_req g = { .auto_scaling_group_name = "g",
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = 3,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = 1,
                                  .availability_zones = zones,
                                  .navailability_zones = 1 };

    sc_asg_destroy(x->asg);
    env.launch_template_resolve = f_lt_resolve;
    env.hibernate_instance = f_hibernate;
    x->asg = fx_asg_with(x, env);
    assert_int_equal(sc_asg_create_launch_configuration(x->asg, &lc, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_create_group(x->asg, &g, T0, &x->err), SC_OK);
    settle_warm(x, T0);
    hibernations = 0;
    put_pool(x, -2, 0, "Hibernated", -1);
    settle_warm(x, T0 + SEC);
    assert_int_equal(count_in(x, SC_ASG_WARMED_HIBERNATED), 2);
    assert_int_equal(hibernations, 2);
    put_pool(x, -2, 0, "Stopped", -1);
    set_desired(x, 3, T0 + 2 * SEC); /* both drawn, then desired 1: two new ones stop */
    settle_warm(x, T0 + 2 * SEC);
    set_desired(x, 1, T0 + 3 * SEC);
    settle_warm(x, T0 + 3 * SEC);
    assert_int_equal(hibernations, 2);
    assert_int_equal(count_in(x, SC_ASG_WARMED_STOPPED), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_asg_warm_pool_size_rule),
        cmocka_unit_test_setup_teardown(test_asg_warm_pool_fills_stopped, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_stopped_waits_for_ec2_stopped, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_pool_running_not_registered, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_scale_out_draws_from_pool, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_cold_start_when_depleted, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_reuse_on_scale_in, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_no_reuse_terminates, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_refused_with_mixed_policy, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_bad_input_changes_nothing, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_hooks_on_entering_and_leaving, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_abandon_on_entering, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_delete_pending_then_gone, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_terminate_pool_instance_refills, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_not_in_group_metrics, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_pool_group_metrics, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_save_load, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_return_waits_for_terminate_hooks, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_return_abandon_still_returns, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_return_hook_timeout, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_return_runs_terminate_hooks_only, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_terminate_waits_for_terminate_hooks, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_force_delete_skips_terminate_hooks, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_billed, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_warm_hibernated_pool_hibernates, setup,
                                        fx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
