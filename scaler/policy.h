/* scaler/policy.h: the pure arithmetic of scaling policies (spec 4.2, 4.4, 4.5).
 *
 * No state, no allocation: each function maps its inputs to a capacity, a step index or
 * a status. The group code (asg.c) decides when to call them (cooldowns, warm-up). */
#ifndef SCALER_POLICY_H
#define SCALER_POLICY_H

#include <stdint.h>

#include "scaler/status.h"

enum sc_adjustment_type {
    SC_ADJ_CHANGE_IN_CAPACITY = 0,
    SC_ADJ_EXACT_CAPACITY,
    SC_ADJ_PERCENT_CHANGE_IN_CAPACITY,
};

/* "ChangeInCapacity" ... ; parse returns 0, or -1 for an unknown name. */
const char *sc_adjustment_type_str(enum sc_adjustment_type t);
int sc_adjustment_type_parse(const char *s, enum sc_adjustment_type *out);

/* The change PercentChangeInCapacity makes to capacity `current` with adjustment `pct`:
 * d = current * pct / 100 rounded as AWS does: d > 1 floor, 0 < d < 1 -> 1,
 * -1 < d < 0 -> -1, d < -1 toward zero (12.7 -> 12, 0.67 -> 1, -0.58 -> -1,
 * -6.67 -> -6); then, when min_adjustment_magnitude > 0 and 0 < |d| < it,
 * sign(d) * min_adjustment_magnitude (25% of 4 with 2 -> +2). */
int64_t sc_policy_percent_delta(int64_t current, int64_t pct, int64_t min_adjustment_magnitude);

/* New desired capacity before clamping: ChangeInCapacity current + adjustment;
 * ExactCapacity adjustment; PercentChangeInCapacity current + percent_delta. */
int64_t sc_policy_new_capacity(enum sc_adjustment_type t, int64_t current, int64_t adjustment,
                               int64_t min_adjustment_magnitude);

/* v clamped to [min, max]. */
int64_t sc_policy_clamp(int64_t v, int64_t min, int64_t max);

/* One step of a StepScaling policy; bounds are relative to the alarm threshold
 * (metric - threshold). A missing lower bound is -infinity, a missing upper +infinity. */
struct sc_step_adjustment {
    int has_lower;
    double lower;
    int has_upper;
    double upper;
    int64_t scaling_adjustment;
};

#define SC_POLICY_MAX_STEPS 20

/* Checks AWS's step rules (spec 4.4), each with its own ValidationError text:
 * 1..20 steps; not both bounds null in one step; upper > lower; at most one null lower
 * and at most one null upper; a negative lower bound requires a null-lower step; a
 * positive upper bound requires a null-upper step; no overlap; no gap.
 * Returns SC_OK or SC_ERR_VALIDATION with err->message set. */
enum sc_status sc_policy_steps_validate(const struct sc_step_adjustment *steps, int n,
                                        struct sc_error *err);

/* The index of the step that applies when the metric is `diff` above the threshold
 * (diff = metric - threshold), or -1 when none does. Above the threshold (diff >= 0)
 * the lower bound is inclusive and the upper exclusive; below (diff <= 0) the lower is
 * exclusive and the upper inclusive (so at diff 0 both [0,10) and (-10,0] match; the
 * first listed wins). */
int sc_policy_step_select(const struct sc_step_adjustment *steps, int n, double diff);

/* Target tracking: the capacity that brings `metric` to `target` for a group whose
 * `current` instances produce it: ceil(current * metric / target) (adding rounds up,
 * removing rounds down: 1.5 -> add 2 / remove 1). With current 0: 1 when metric >
 * target, else 0. target must be > 0 (callers validate; 0 answers current). */
int64_t sc_policy_target_tracking_capacity(int64_t current, double metric, double target);

/* 1 when a target-tracking policy may scale in: the metric is below the Low alarm's
 * threshold, scale_in_ratio * target (0.9: "clearly below target, typically >10%"). */
int sc_policy_target_tracking_may_scale_in(double metric, double target, double scale_in_ratio);

#endif
