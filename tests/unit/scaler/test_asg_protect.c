/* tests/unit/scaler/test_asg_protect.c: scaler/asg_protect.c and the termination choice's
 * protection rule against a fake EC2: one test per rule of docs/autoscaling.md section 4. */
#include "scaler/asg_protect.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/asg_internal.h"
#include "tests/unit/scaler/asg_fixture.h"

static int setup(void **state)
{
    struct fx *x = fx_alloc();

    if (!x || !(x->asg = fx_asg(x)) || fx_group(x, "g", 3, 0) != SC_OK)
        return -1;
    *state = x;
    return 0;
}

static const struct sc_asg_group_info *grp(struct fx *x)
{
    return sc_asg_group_find(x->asg, "g");
}

static const struct sc_asg_instance_info *inst_of(struct fx *x, const char *id)
{
    const struct sc_asg_instance_info *out = NULL;

    sc_asg_instance_group(x->asg, id, &out);
    return out;
}

static int members(struct fx *x)
{
    return sc_asg_group_instance_count(grp(x));
}

static void test_asg_protect_sets_the_flag(void **state)
{
    struct fx *x = *state;
    char id[SC_ASG_ID_LEN];
    const char *ids[1] = { id };

    settle(x, T0);
    snprintf(id, sizeof(id), "%s", sc_asg_group_instance_at(grp(x), 0)->instance_id);
    assert_int_equal(sc_asg_set_instance_protection(x->asg, "g", ids, 1, 1, T0, &x->err), SC_OK);
    assert_true(inst_of(x, id)->protected_from_scale_in);
    assert_int_equal(sc_asg_set_instance_protection(x->asg, "g", ids, 1, 0, T0, &x->err), SC_OK);
    assert_false(inst_of(x, id)->protected_from_scale_in);
}

static void test_asg_protect_errors_change_nothing(void **state)
{
    struct fx *x = *state;
    const char *ids[SC_ASG_MAX_PROTECT_IDS + 1];
    char id[SC_ASG_ID_LEN];

    settle(x, T0);
    snprintf(id, sizeof(id), "%s", sc_asg_group_instance_at(grp(x), 0)->instance_id);
    ids[0] = id;
    ids[1] = "i-0123456789abcdef0";
    assert_int_equal(sc_asg_set_instance_protection(x->asg, "g", ids, 2, 1, T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(x->err.message,
                        "The instance i-0123456789abcdef0 is not part of Auto Scaling group g.");
    assert_false(inst_of(x, id)->protected_from_scale_in); /* all or nothing */
    assert_int_equal(sc_asg_set_instance_protection(x->asg, "nope", ids, 1, 1, T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(x->err.message,
                        "AutoScalingGroup name not found - AutoScalingGroup: nope not found");
    for (int i = 0; i <= SC_ASG_MAX_PROTECT_IDS; i++)
        ids[i] = id;
    assert_int_equal(sc_asg_set_instance_protection(x->asg, "g", ids, SC_ASG_MAX_PROTECT_IDS + 1, 1,
                                                    T0, &x->err),
                     SC_ERR_LIMIT_EXCEEDED);
    assert_string_equal(x->err.message,
                        "The maximum number of instance IDs (50) per call has been exceeded.");
    assert_false(inst_of(x, id)->protected_from_scale_in);
}

static void test_asg_protect_scale_in_skips_protected(void **state)
{
    struct fx *x = *state;
    char keep[2][SC_ASG_ID_LEN];
    const char *ids[2] = { keep[0], keep[1] };

    settle(x, T0);
    assert_int_equal(members(x), 3);
    for (int i = 0; i < 2; i++)
        snprintf(keep[i], sizeof(keep[i]), "%s", sc_asg_group_instance_at(grp(x), i)->instance_id);
    assert_int_equal(sc_asg_set_instance_protection(x->asg, "g", ids, 2, 1, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 1, 0, T0 + SEC, &x->err), SC_OK);
    settle(x, T0 + SEC);
    settle(x, T0 + 2 * SEC);
    /* desired 1, but only the unprotected one goes: both protected ones stay */
    assert_int_equal(grp(x)->desired_capacity, 1);
    assert_int_equal(members(x), 2);
    assert_non_null(inst_of(x, keep[0]));
    assert_non_null(inst_of(x, keep[1]));
    /* unprotected, one of them goes at once */
    assert_int_equal(sc_asg_set_instance_protection(x->asg, "g", ids, 1, 0, T0 + 3 * SEC, &x->err),
                     SC_OK);
    settle(x, T0 + 3 * SEC);
    settle(x, T0 + 4 * SEC);
    assert_int_equal(members(x), 1);
    assert_null(inst_of(x, keep[0]));
    assert_non_null(inst_of(x, keep[1]));
}

static void test_asg_protect_new_instances_inherit_group_setting(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req u = { .auto_scaling_group_name = "g",
                                  .has_new_instances_protected_from_scale_in = 1,
                                  .new_instances_protected_from_scale_in = 1,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = 4 };

    settle(x, T0);
    assert_int_equal(sc_asg_update_group(x->asg, &u, T0 + SEC, &x->err), SC_OK);
    settle(x, T0 + SEC);
    assert_int_equal(members(x), 4);
    /* the three launched before the update keep theirs; the new one is protected */
    for (int i = 0; i < 3; i++)
        assert_false(sc_asg_group_instance_at(grp(x), i)->protected_from_scale_in);
    assert_true(sc_asg_group_instance_at(grp(x), 3)->protected_from_scale_in);
}

static void test_asg_protect_starts_in_service(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req u = { .auto_scaling_group_name = "g",
                                  .has_new_instances_protected_from_scale_in = 1,
                                  .new_instances_protected_from_scale_in = 1,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = 0 };

    assert_int_equal(sc_asg_update_group(x->asg, &u, T0, &x->err), SC_OK);
    u.desired_capacity = 2;
    assert_int_equal(sc_asg_update_group(x->asg, &u, T0, &x->err), SC_OK);
    sc_asg_step(x->asg, T0); /* launched: Pending, flagged, not yet protected */
    assert_int_equal(members(x), 2);
    assert_true(sc_asg_group_instance_at(grp(x), 0)->protected_from_scale_in);
    u.desired_capacity = 0;
    assert_int_equal(sc_asg_update_group(x->asg, &u, T0 + 1, &x->err), SC_OK);
    sc_asg_step(x->asg, T0 + 1);
    assert_int_equal(sc_asg_group_capacity(grp(x)), 0); /* both chosen while Pending */
}

static void test_asg_protect_not_from_user_terminate(void **state)
{
    struct fx *x = *state;
    char id[SC_ASG_ID_LEN];
    const char *ids[1] = { id };

    settle(x, T0);
    snprintf(id, sizeof(id), "%s", sc_asg_group_instance_at(grp(x), 0)->instance_id);
    assert_int_equal(sc_asg_set_instance_protection(x->asg, "g", ids, 1, 1, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_terminate_instance(x->asg, id, 1, T0 + SEC, NULL, &x->err), SC_OK);
    settle(x, T0 + SEC);
    assert_null(inst_of(x, id));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_asg_protect_sets_the_flag, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_protect_errors_change_nothing, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_protect_scale_in_skips_protected, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_protect_new_instances_inherit_group_setting, setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_protect_starts_in_service, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_asg_protect_not_from_user_terminate, setup,
                                        fx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
