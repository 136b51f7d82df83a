/* tests/unit/scaler/test_asg_lifetime.c: scaler/asg_lifetime.c (MaxInstanceLifetime) and the
 * step driving it, against the fake EC2 of asg_fixture.h: one test per rule of
 * docs/autoscaling.md section 13. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <jansson.h>

#include "scaler/asg.h"
#include "scaler/asg_internal.h"
#include "scaler/asg_protect.h"

#define FX_MAXI 64
#include "asg_fixture.h"

#define DAY (86400LL * SEC)

static int setup(void **state)
{
    struct fx *x = fx_alloc();

    if (!x || !(x->asg = fx_asg(x)))
        return -1;
    x->now = T0;
    *state = x;
    return 0;
}

static const struct sc_asg_group_info *grp(struct fx *x)
{
    return sc_asg_group_find(x->asg, "g");
}

/* Group "g" on "lc" of desired instances (max 30) with MaxInstanceLifetime life (0: not
 * sent), all InService at T0. */
static void make_group(struct fx *x, int desired, int life)
{
    struct sc_asg_group_req r = fx_group_req("g", desired, 0);
    struct sc_asg_lc_req lc = { .launch_configuration_name = "lc",
                                .image_id = "ami-1",
                                .instance_type = "t3.micro" };

    r.max_size = 30;
    r.has_max_instance_lifetime = life != 0;
    r.max_instance_lifetime = life;
    assert_int_equal(sc_asg_create_launch_configuration(x->asg, &lc, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
}

static int count_state(struct fx *x, enum sc_asg_lifecycle s)
{
    int n = 0;

    for (int i = 0; i < sc_asg_group_instance_count(grp(x)); i++)
        n += sc_asg_group_instance_at(grp(x), i)->lifecycle_state == s;
    return n;
}

/* Members launched before t. */
static int launched_before(struct fx *x, int64_t t)
{
    int n = 0;

    for (int i = 0; i < sc_asg_group_instance_count(grp(x)); i++)
        n += sc_asg_group_instance_at(grp(x), i)->launch_ms < t;
    return n;
}

static void test_asg_lifetime_check_zero_or_a_day(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = fx_group_req("g", 1, 0);
    struct sc_asg_lc_req lc = { .launch_configuration_name = "lc",
                                .image_id = "ami-1",
                                .instance_type = "t3.micro" };

    assert_int_equal(sc_asg_lifetime_check(0, &x->err), SC_OK);
    assert_int_equal(sc_asg_lifetime_check(86400, &x->err), SC_OK);
    assert_int_equal(sc_asg_lifetime_check(86399, &x->err), SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, "MaxInstanceLifetime must be 0 or at least 86400 seconds.");
    assert_int_equal(sc_asg_lifetime_check(-1, &x->err), SC_ERR_VALIDATION);
    /* a create with it stores no group */
    assert_int_equal(sc_asg_create_launch_configuration(x->asg, &lc, T0, &x->err), SC_OK);
    r.has_max_instance_lifetime = 1;
    r.max_instance_lifetime = 60;
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
    assert_null(grp(x));
}

static void test_asg_lifetime_kept_cleared_and_saved(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req up = { .auto_scaling_group_name = "g",
                                   .has_max_size = 1,
                                   .max_size = 9 };
    struct sc_asg *n;
    json_t *saved;

    make_group(x, 1, 0);
    assert_false(grp(x)->has_max_instance_lifetime); /* never set: absent */
    up.has_max_instance_lifetime = 1;
    up.max_instance_lifetime = 2 * 86400;
    assert_int_equal(sc_asg_update_group(x->asg, &up, T0, &x->err), SC_OK);
    up.has_max_instance_lifetime = 0; /* an update without it keeps it */
    assert_int_equal(sc_asg_update_group(x->asg, &up, T0, &x->err), SC_OK);
    assert_true(grp(x)->has_max_instance_lifetime);
    assert_int_equal(grp(x)->max_instance_lifetime, 2 * 86400);
    saved = sc_asg_save(x->asg);
    n = fx_asg(x);
    assert_int_equal(sc_asg_load(n, saved, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(n, "g")->max_instance_lifetime, 2 * 86400);
    sc_asg_destroy(n);
    json_decref(saved);
    up.has_max_instance_lifetime = 1; /* 0 clears it, described as 0 */
    up.max_instance_lifetime = 0;
    assert_int_equal(sc_asg_update_group(x->asg, &up, T0, &x->err), SC_OK);
    assert_true(grp(x)->has_max_instance_lifetime);
    assert_int_equal(grp(x)->max_instance_lifetime, 0);
    /* a bad update changes nothing */
    up.max_instance_lifetime = 100;
    up.max_size = 3;
    assert_int_equal(sc_asg_update_group(x->asg, &up, T0, &x->err), SC_ERR_VALIDATION);
    assert_int_equal(grp(x)->max_size, 9);
    assert_int_equal(grp(x)->max_instance_lifetime, 0);
}

static void test_asg_lifetime_replaces_a_due_instance_terminate_then_launch(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_activity_info *a;
    char want[256];

    make_group(x, 3, 86400);
    settle(x, T0 + DAY - SEC); /* not due yet */
    assert_int_equal(count_state(x, SC_ASG_IN_SERVICE), 3);
    assert_int_equal(launched_before(x, T0 + SEC), 3);
    sc_asg_step(x->asg, T0 + DAY);
    assert_int_equal(count_state(x, SC_ASG_TERMINATING), 1);
    assert_int_equal(grp(x)->desired_capacity, 3);
    a = NULL;
    for (int i = 0; i < sc_asg_activity_count(x->asg, "g"); i++)
        if (strncmp(sc_asg_activity_at(x->asg, "g", i)->description, "Terminating", 11) == 0)
            a = sc_asg_activity_at(x->asg, "g", i);
    assert_non_null(a);
    snprintf(
        want, sizeof(want),
        "At 2026-01-02T00:00:00Z an instance was taken out of service in response to a maximum instance lifetime.  At 2026-01-02T00:00:00Z instance %s was selected for termination.",
        a->description + strlen("Terminating EC2 instance: "));
    assert_string_equal(a->cause, want);
    settle(x, T0 + DAY + SEC);
    /* its replacement launched with the group's configuration; capacity within bounds */
    assert_int_equal(launched_before(x, T0 + SEC), 2);
    assert_int_equal(count_state(x, SC_ASG_IN_SERVICE) + count_state(x, SC_ASG_PENDING), 3);
    assert_string_equal(sc_asg_group_instance_at(grp(x), 2)->launch_configuration_name, "lc");
}

static void test_asg_lifetime_one_at_a_time_when_the_group_is_settled(void **state)
{
    struct fx *x = *state;
    int64_t t = T0 + DAY;

    make_group(x, 3, 86400);
    sc_asg_step(x->asg, t);
    assert_int_equal(count_state(x, SC_ASG_TERMINATING), 1);
    sc_asg_step(x->asg, t + 1); /* the others wait for the replacement */
    assert_int_equal(count_state(x, SC_ASG_TERMINATING), 1);
    /* each settle replaces one more (the previous replacement now InService) */
    for (int k = 1; k <= 6 && launched_before(x, T0 + SEC) > 0; k++)
        settle(x, t + k * 10 * SEC);
    assert_int_equal(launched_before(x, T0 + SEC), 0);
    assert_int_equal(count_state(x, SC_ASG_IN_SERVICE), 3);
    assert_int_equal(grp(x)->desired_capacity, 3);
}

static void test_asg_lifetime_batch_is_a_tenth_of_capacity(void **state)
{
    struct fx *x = *state;

    make_group(x, 20, 86400);
    assert_int_equal(count_state(x, SC_ASG_IN_SERVICE), 20);
    sc_asg_step(x->asg, T0 + DAY);
    assert_int_equal(count_state(x, SC_ASG_TERMINATING), 2);
}

static void test_asg_lifetime_leaves_protected_instances(void **state)
{
    struct fx *x = *state;
    const char *ids[2];

    make_group(x, 2, 86400);
    ids[0] = sc_asg_group_instance_at(grp(x), 0)->instance_id;
    ids[1] = sc_asg_group_instance_at(grp(x), 1)->instance_id;
    assert_int_equal(sc_asg_set_instance_protection(x->asg, "g", ids, 2, 1, T0, &x->err), SC_OK);
    settle(x, T0 + 3 * DAY);
    assert_int_equal(count_state(x, SC_ASG_TERMINATING), 0);
    assert_int_equal(launched_before(x, T0 + SEC), 2);
    /* and nothing to wake for */
    assert_true(asg_lifetime_next_due(x->asg, asg_group_find(x->asg, "g"), T0 + 3 * DAY) ==
                INT64_MAX);
}

static void test_asg_lifetime_held_while_terminate_is_suspended(void **state)
{
    struct fx *x = *state;
    const char *names[] = { "Terminate" };

    make_group(x, 2, 86400);
    assert_int_equal(sc_asg_suspend_processes(x->asg, "g", names, 1, T0, &x->err), SC_OK);
    settle(x, T0 + 2 * DAY);
    assert_int_equal(launched_before(x, T0 + SEC), 2);
    assert_int_equal(sc_asg_resume_processes(x->asg, "g", names, 1, T0 + 2 * DAY, &x->err), SC_OK);
    sc_asg_step(x->asg, T0 + 2 * DAY + SEC);
    assert_int_equal(count_state(x, SC_ASG_TERMINATING), 1);
}

static void test_asg_lifetime_cleared_replaces_nothing(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req up = { .auto_scaling_group_name = "g",
                                   .has_max_instance_lifetime = 1,
                                   .max_instance_lifetime = 0 };

    make_group(x, 2, 86400);
    assert_int_equal(sc_asg_update_group(x->asg, &up, T0, &x->err), SC_OK);
    settle(x, T0 + 5 * DAY);
    assert_int_equal(launched_before(x, T0 + SEC), 2);
}

static void test_asg_lifetime_next_due_is_the_first_expiry(void **state)
{
    struct fx *x = *state;
    int64_t due;

    make_group(x, 2, 86400);
    due = sc_asg_next_due_ms(x->asg, T0 + 10 * SEC);
    assert_true(due <= T0 + DAY);
    /* the emulator steps at each due time: stepping only there replaces the instance */
    while (due < T0 + DAY)
        due = sc_asg_next_due_ms(x->asg, due);
    sc_asg_step(x->asg, due);
    assert_int_equal(count_state(x, SC_ASG_TERMINATING), 1);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, fx_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_asg_lifetime_check_zero_or_a_day),
        T(test_asg_lifetime_kept_cleared_and_saved),
        T(test_asg_lifetime_replaces_a_due_instance_terminate_then_launch),
        T(test_asg_lifetime_one_at_a_time_when_the_group_is_settled),
        T(test_asg_lifetime_batch_is_a_tenth_of_capacity),
        T(test_asg_lifetime_leaves_protected_instances),
        T(test_asg_lifetime_held_while_terminate_is_suspended),
        T(test_asg_lifetime_cleared_replaces_nothing),
        T(test_asg_lifetime_next_due_is_the_first_expiry),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
