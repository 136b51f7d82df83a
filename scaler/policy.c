/* scaler/policy.c: see policy.h. */
#include "scaler/policy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const adj_names[] = {
    [SC_ADJ_CHANGE_IN_CAPACITY] = "ChangeInCapacity",
    [SC_ADJ_EXACT_CAPACITY] = "ExactCapacity",
    [SC_ADJ_PERCENT_CHANGE_IN_CAPACITY] = "PercentChangeInCapacity",
};

const char *sc_adjustment_type_str(enum sc_adjustment_type t)
{
    if ((unsigned)t >= sizeof(adj_names) / sizeof(adj_names[0]))
        return "";
    return adj_names[t];
}

int sc_adjustment_type_parse(const char *s, enum sc_adjustment_type *out)
{
    if (!s)
        return -1;
    for (size_t i = 0; i < sizeof(adj_names) / sizeof(adj_names[0]); i++) {
        if (strcmp(s, adj_names[i]) == 0) {
            *out = (enum sc_adjustment_type)i;
            return 0;
        }
    }
    return -1;
}

int64_t sc_policy_percent_delta(int64_t current, int64_t pct, int64_t min_adjustment_magnitude)
{
    /* Exact rational arithmetic: d = current * pct / 100. */
    int64_t num = current * pct;
    int64_t d;

    if (num == 0)
        return 0;
    if (num > 0)
        d = num < 100 ? 1 : num / 100; /* floor; 0 < d < 1 -> 1 */
    else
        d = num > -100 ? -1 : num / 100; /* C division truncates toward zero */
    if (min_adjustment_magnitude > 0 && llabs(d) < min_adjustment_magnitude)
        d = d > 0 ? min_adjustment_magnitude : -min_adjustment_magnitude;
    return d;
}

int64_t sc_policy_new_capacity(enum sc_adjustment_type t, int64_t current, int64_t adjustment,
                               int64_t min_adjustment_magnitude)
{
    switch (t) {
    case SC_ADJ_CHANGE_IN_CAPACITY:
        return current + adjustment;
    case SC_ADJ_EXACT_CAPACITY:
        return adjustment;
    case SC_ADJ_PERCENT_CHANGE_IN_CAPACITY:
        return current + sc_policy_percent_delta(current, adjustment, min_adjustment_magnitude);
    }
    return current;
}

int64_t sc_policy_clamp(int64_t v, int64_t min, int64_t max)
{
    if (v < min)
        return min;
    if (v > max)
        return max;
    return v;
}

static int cmp_step_lower(const void *a, const void *b)
{
    const struct sc_step_adjustment *x = *(const struct sc_step_adjustment *const *)a;
    const struct sc_step_adjustment *y = *(const struct sc_step_adjustment *const *)b;

    if (!x->has_lower || !y->has_lower)
        return x->has_lower - y->has_lower; /* null lower (-inf) first */
    return (x->lower > y->lower) - (x->lower < y->lower);
}

enum sc_status sc_policy_steps_validate(const struct sc_step_adjustment *steps, int n,
                                        struct sc_error *err)
{
    const struct sc_step_adjustment *sorted[SC_POLICY_MAX_STEPS];
    int null_lower = 0, null_upper = 0, neg_lower = 0, pos_upper = 0;

    if (n <= 0)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "StepAdjustments must contain at least one step adjustment for a StepScaling policy.");
    if (n > SC_POLICY_MAX_STEPS)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Maximum number of step adjustments exceeded (%d); the limit is %d.", n,
                       SC_POLICY_MAX_STEPS);
    for (int i = 0; i < n; i++) {
        const struct sc_step_adjustment *s = &steps[i];

        if ((s->has_lower && !isfinite(s->lower)) || (s->has_upper && !isfinite(s->upper)))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Step adjustment bounds must be finite numbers.");
        if (!s->has_lower && !s->has_upper)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The upper and lower bound of a step adjustment cannot both be null.");
        if (s->has_lower && s->has_upper && !(s->upper > s->lower))
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "The upper bound of a step adjustment must be greater than its lower bound.");
        null_lower += !s->has_lower;
        null_upper += !s->has_upper;
        neg_lower |= s->has_lower && s->lower < 0;
        pos_upper |= s->has_upper && s->upper > 0;
        sorted[i] = s;
    }
    if (null_lower > 1)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "At most one step adjustment can have a null lower bound.");
    if (null_upper > 1)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "At most one step adjustment can have a null upper bound.");
    if (neg_lower && !null_lower)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "A step adjustment has a negative lower bound, so there must be a step adjustment with a null lower bound.");
    if (pos_upper && !null_upper)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "A step adjustment has a positive upper bound, so there must be a step adjustment with a null upper bound.");
    qsort(sorted, (size_t)n, sizeof(sorted[0]), cmp_step_lower);
    for (int i = 0; i + 1 < n; i++) {
        const struct sc_step_adjustment *a = sorted[i], *b = sorted[i + 1];

        /* b has a lower bound here (only the first can lack one). */
        if (!a->has_upper || a->upper > b->lower)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The ranges of step adjustments cannot overlap.");
        if (a->upper < b->lower)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The ranges of step adjustments cannot have a gap.");
    }
    return SC_OK;
}

int sc_policy_step_select(const struct sc_step_adjustment *steps, int n, double diff)
{
    for (int i = 0; i < n; i++) {
        const struct sc_step_adjustment *s = &steps[i];
        int lower_ok = !s->has_lower || diff > s->lower || (diff == s->lower && diff >= 0);
        int upper_ok = !s->has_upper || diff < s->upper || (diff == s->upper && diff <= 0);

        if (lower_ok && upper_ok)
            return i;
    }
    return -1;
}

int64_t sc_policy_target_tracking_capacity(int64_t current, double metric, double target)
{
    double raw;

    if (!(target > 0) || !isfinite(metric))
        return current;
    if (current <= 0)
        return metric > target ? 1 : 0;
    raw = (double)current * metric / target;
    /* Tolerate representation error: 10 * 50 / 50 must give 10, not 11. */
    return (int64_t)ceil(raw - 1e-9);
}

int sc_policy_target_tracking_may_scale_in(double metric, double target, double scale_in_ratio)
{
    return metric < target * scale_in_ratio;
}
