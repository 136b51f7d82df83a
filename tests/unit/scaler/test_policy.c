/* tests/unit/scaler/test_policy.c: scaler/policy.c, one test per rule of spec 4.2, 4.4, 4.5 */
#include "scaler/policy.h"

#include <stdint.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_policy_change_in_capacity(void **state)
{
    (void)state;
    assert_int_equal(sc_policy_new_capacity(SC_ADJ_CHANGE_IN_CAPACITY, 3, 2, 0), 5);
    assert_int_equal(sc_policy_new_capacity(SC_ADJ_CHANGE_IN_CAPACITY, 3, -1, 0), 2);
}

static void test_policy_exact_capacity(void **state)
{
    (void)state;
    assert_int_equal(sc_policy_new_capacity(SC_ADJ_EXACT_CAPACITY, 3, 7, 0), 7);
    assert_int_equal(sc_policy_new_capacity(SC_ADJ_EXACT_CAPACITY, 3, 0, 0), 0);
}

/* Spec 4.2 worked values: 12.7 -> 12, 0.67 -> 1, -0.58 -> -1, -6.67 -> -6. */
static void test_policy_percent_rounding(void **state)
{
    (void)state;
    assert_int_equal(sc_policy_percent_delta(127, 10, 0), 12); /* 12.7 */
    assert_int_equal(sc_policy_percent_delta(67, 1, 0), 1);    /* 0.67 */
    assert_int_equal(sc_policy_percent_delta(58, -1, 0), -1);  /* -0.58 */
    assert_int_equal(sc_policy_percent_delta(667, -1, 0), -6); /* -6.67 */
    assert_int_equal(sc_policy_percent_delta(10, 10, 0), 1);   /* exactly 1 */
    assert_int_equal(sc_policy_percent_delta(10, -10, 0), -1); /* exactly -1 */
    assert_int_equal(sc_policy_percent_delta(0, 50, 0), 0);
    assert_int_equal(sc_policy_new_capacity(SC_ADJ_PERCENT_CHANGE_IN_CAPACITY, 127, 10, 0), 139);
}

/* 25% of 4 with MinAdjustmentMagnitude 2 -> +2. */
static void test_policy_min_adjustment_magnitude(void **state)
{
    (void)state;
    assert_int_equal(sc_policy_percent_delta(4, 25, 2), 2);
    assert_int_equal(sc_policy_percent_delta(4, -25, 2), -2);
    assert_int_equal(sc_policy_percent_delta(40, 25, 2), 10); /* already larger */
    assert_int_equal(sc_policy_percent_delta(0, 25, 2), 0);   /* no change stays none */
    assert_int_equal(sc_policy_new_capacity(SC_ADJ_PERCENT_CHANGE_IN_CAPACITY, 4, 25, 2), 6);
}

static void test_policy_clamp(void **state)
{
    (void)state;
    assert_int_equal(sc_policy_clamp(12, 1, 10), 10);
    assert_int_equal(sc_policy_clamp(0, 1, 10), 1);
    assert_int_equal(sc_policy_clamp(5, 1, 10), 5);
}

static void test_policy_adjustment_type_names(void **state)
{
    enum sc_adjustment_type t;

    (void)state;
    assert_int_equal(sc_adjustment_type_parse("PercentChangeInCapacity", &t), 0);
    assert_int_equal(t, SC_ADJ_PERCENT_CHANGE_IN_CAPACITY);
    assert_string_equal(sc_adjustment_type_str(SC_ADJ_EXACT_CAPACITY), "ExactCapacity");
    assert_int_equal(sc_adjustment_type_parse("changeincapacity", &t), -1);
}

#define LO(x) 1, (x)
#define NOLO  0, 0
#define UP(x) 1, (x)
#define NOUP  0, 0

/* The AWS user guide's example: threshold 50, scale-out steps 0..10 +0, 10..20 +10%,
 * 20.. +30%; scale-in steps -10..0 0, -20..-10 -10%, ..-20 -30%. */
static const struct sc_step_adjustment out_steps[] = { { LO(0), UP(10), 0 },
                                                       { LO(10), UP(20), 10 },
                                                       { LO(20), NOUP, 30 } };
static const struct sc_step_adjustment in_steps[] = { { LO(-10), UP(0), 0 },
                                                      { LO(-20), UP(-10), -10 },
                                                      { NOLO, UP(-20), -30 } };

static void test_policy_steps_worked_example(void **state)
{
    int64_t cap = 10;
    int i;
    struct sc_error err;

    (void)state;
    assert_int_equal(sc_policy_steps_validate(out_steps, N(out_steps), &err), SC_OK);
    assert_int_equal(sc_policy_steps_validate(in_steps, N(in_steps), &err), SC_OK);
    i = sc_policy_step_select(out_steps, N(out_steps), 60 - 50);
    assert_int_equal(i, 1);
    cap = sc_policy_new_capacity(SC_ADJ_PERCENT_CHANGE_IN_CAPACITY, cap,
                                 out_steps[i].scaling_adjustment, 0);
    assert_int_equal(cap, 11);
    i = sc_policy_step_select(out_steps, N(out_steps), 70 - 50);
    assert_int_equal(i, 2);
    cap = sc_policy_new_capacity(SC_ADJ_PERCENT_CHANGE_IN_CAPACITY, cap,
                                 out_steps[i].scaling_adjustment, 0);
    assert_int_equal(cap, 14);
    i = sc_policy_step_select(in_steps, N(in_steps), 40 - 50);
    assert_int_equal(i, 1);
    cap = sc_policy_new_capacity(SC_ADJ_PERCENT_CHANGE_IN_CAPACITY, cap,
                                 in_steps[i].scaling_adjustment, 0);
    assert_int_equal(cap, 13);
    i = sc_policy_step_select(in_steps, N(in_steps), 30 - 50);
    assert_int_equal(i, 2);
    cap = sc_policy_new_capacity(SC_ADJ_PERCENT_CHANGE_IN_CAPACITY, cap,
                                 in_steps[i].scaling_adjustment, 0);
    assert_int_equal(cap, 10);
}

/* Above the threshold lower inclusive / upper exclusive; below lower exclusive / upper
 * inclusive (the CloudFormation examples: [50,60) is 0..10, (40,50] is -10..0). */
static void test_policy_step_bounds_inclusive_exclusive(void **state)
{
    (void)state;
    assert_int_equal(sc_policy_step_select(out_steps, N(out_steps), 0), 0);
    assert_int_equal(sc_policy_step_select(out_steps, N(out_steps), 9.999), 0);
    assert_int_equal(sc_policy_step_select(out_steps, N(out_steps), 10), 1);
    assert_int_equal(sc_policy_step_select(out_steps, N(out_steps), 20), 2);
    assert_int_equal(sc_policy_step_select(out_steps, N(out_steps), 1e9), 2);
    assert_int_equal(sc_policy_step_select(out_steps, N(out_steps), -0.5), -1);
    assert_int_equal(sc_policy_step_select(in_steps, N(in_steps), 0), 0);
    assert_int_equal(sc_policy_step_select(in_steps, N(in_steps), -9.999), 0);
    assert_int_equal(sc_policy_step_select(in_steps, N(in_steps), -10), 1);
    assert_int_equal(sc_policy_step_select(in_steps, N(in_steps), -19.999), 1);
    assert_int_equal(sc_policy_step_select(in_steps, N(in_steps), -20), 2);
    assert_int_equal(sc_policy_step_select(in_steps, N(in_steps), -20.5), 2);
    assert_int_equal(sc_policy_step_select(in_steps, N(in_steps), 0.5), -1);
}

static void expect_invalid(const struct sc_step_adjustment *s, int n, const char *needle)
{
    struct sc_error err = { 0 };

    assert_int_equal(sc_policy_steps_validate(s, n, &err), SC_ERR_VALIDATION);
    assert_int_equal(err.status, SC_ERR_VALIDATION);
    assert_non_null(strstr(err.message, needle));
}

static void test_policy_steps_at_least_one(void **state)
{
    (void)state;
    expect_invalid(out_steps, 0, "at least one");
}

static void test_policy_steps_at_most_twenty(void **state)
{
    struct sc_step_adjustment s[21];

    (void)state;
    for (int i = 0; i < 21; i++)
        s[i] = (struct sc_step_adjustment){ LO(i), UP(i + 1), 1 };
    s[20].has_upper = 0;
    expect_invalid(s, 21, "Maximum number of step adjustments");
}

static void test_policy_steps_not_both_bounds_null(void **state)
{
    const struct sc_step_adjustment s[] = { { NOLO, NOUP, 1 } };

    (void)state;
    expect_invalid(s, N(s), "cannot both be null");
}

static void test_policy_steps_upper_above_lower(void **state)
{
    const struct sc_step_adjustment s[] = { { LO(10), UP(10), 1 }, { LO(10), NOUP, 2 } };

    (void)state;
    expect_invalid(s, N(s), "must be greater than its lower bound");
}

static void test_policy_steps_one_null_lower(void **state)
{
    const struct sc_step_adjustment s[] = { { NOLO, UP(-10), 1 }, { NOLO, UP(-5), 2 } };

    (void)state;
    expect_invalid(s, N(s), "can have a null lower bound");
}

static void test_policy_steps_one_null_upper(void **state)
{
    const struct sc_step_adjustment s[] = { { LO(0), NOUP, 1 }, { LO(5), NOUP, 2 } };

    (void)state;
    expect_invalid(s, N(s), "can have a null upper bound");
}

static void test_policy_steps_negative_lower_needs_null_lower(void **state)
{
    const struct sc_step_adjustment s[] = { { LO(-10), UP(0), -1 } };

    (void)state;
    expect_invalid(s, N(s), "negative lower bound");
}

static void test_policy_steps_positive_upper_needs_null_upper(void **state)
{
    const struct sc_step_adjustment s[] = { { LO(0), UP(10), 1 } };

    (void)state;
    expect_invalid(s, N(s), "positive upper bound");
}

static void test_policy_steps_no_overlap(void **state)
{
    const struct sc_step_adjustment s[] = { { LO(0), UP(10), 1 }, { LO(5), NOUP, 2 } };

    (void)state;
    expect_invalid(s, N(s), "cannot overlap");
}

static void test_policy_steps_no_gap(void **state)
{
    const struct sc_step_adjustment s[] = { { LO(0), UP(10), 1 }, { LO(15), NOUP, 2 } };

    (void)state;
    expect_invalid(s, N(s), "cannot have a gap");
}

static void test_policy_steps_unordered_input_valid(void **state)
{
    const struct sc_step_adjustment s[] = { { LO(20), NOUP, 3 }, { LO(0), UP(20), 1 } };
    struct sc_error err;

    (void)state;
    assert_int_equal(sc_policy_steps_validate(s, N(s), &err), SC_OK);
    assert_int_equal(sc_policy_step_select(s, N(s), 25), 0);
}

/* 4.5: new = ceil(C * metric / target); 1.5 over -> add 2, 1.5 under -> remove 1. */
static void test_policy_target_tracking_formula(void **state)
{
    (void)state;
    assert_int_equal(sc_policy_target_tracking_capacity(10, 50, 50), 10);
    assert_int_equal(sc_policy_target_tracking_capacity(10, 57.5, 50), 12); /* 11.5: +2 */
    assert_int_equal(sc_policy_target_tracking_capacity(10, 42.5, 50), 9);  /* 8.5: -1 */
    assert_int_equal(sc_policy_target_tracking_capacity(2, 90, 50), 4);     /* 3.6 */
    assert_int_equal(sc_policy_target_tracking_capacity(0, 90, 50), 1);
    assert_int_equal(sc_policy_target_tracking_capacity(0, 10, 50), 0);
}

static void test_policy_target_tracking_scale_in_needs_clear_drop(void **state)
{
    (void)state;
    assert_false(sc_policy_target_tracking_may_scale_in(46, 50, 0.9));
    assert_false(sc_policy_target_tracking_may_scale_in(45, 50, 0.9));
    assert_true(sc_policy_target_tracking_may_scale_in(44.9, 50, 0.9));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_change_in_capacity),
        cmocka_unit_test(test_policy_exact_capacity),
        cmocka_unit_test(test_policy_percent_rounding),
        cmocka_unit_test(test_policy_min_adjustment_magnitude),
        cmocka_unit_test(test_policy_clamp),
        cmocka_unit_test(test_policy_adjustment_type_names),
        cmocka_unit_test(test_policy_steps_worked_example),
        cmocka_unit_test(test_policy_step_bounds_inclusive_exclusive),
        cmocka_unit_test(test_policy_steps_at_least_one),
        cmocka_unit_test(test_policy_steps_at_most_twenty),
        cmocka_unit_test(test_policy_steps_not_both_bounds_null),
        cmocka_unit_test(test_policy_steps_upper_above_lower),
        cmocka_unit_test(test_policy_steps_one_null_lower),
        cmocka_unit_test(test_policy_steps_one_null_upper),
        cmocka_unit_test(test_policy_steps_negative_lower_needs_null_lower),
        cmocka_unit_test(test_policy_steps_positive_upper_needs_null_upper),
        cmocka_unit_test(test_policy_steps_no_overlap),
        cmocka_unit_test(test_policy_steps_no_gap),
        cmocka_unit_test(test_policy_steps_unordered_input_valid),
        cmocka_unit_test(test_policy_target_tracking_formula),
        cmocka_unit_test(test_policy_target_tracking_scale_in_needs_clear_drop),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
