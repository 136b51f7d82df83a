/* scaler/decision.h: the moments a group's records do not keep, for both worlds to tell
 * (docs/decisions.md): each scaling-policy evaluation that could change capacity (its
 * inputs, its arithmetic, the capacity it computed, the result and the reason capacity did
 * not change), and each lifecycle action opening, heartbeat and end.
 *
 * The Auto Scaling service (asg_policy.c, asg_hook.c) writes them into a bounded log it
 * allocates once; scaler/observe.c reports the new ones as events after each step, so the
 * simulator and the emulator read them through one path. Pure: no clock, no stdio. The log
 * keeps the newest SC_DECISION_LOG_CAP records of each kind; an older one is overwritten
 * (a reader that fell behind gets NULL for it). */
#ifndef SCALER_DECISION_H
#define SCALER_DECISION_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/policy.h"

/* Why capacity did not change, in the order the rules are checked (docs/decisions.md 2). */
enum sc_decision_reason {
    SC_DECISION_CHANGED = 0,          /* capacity changed: no reason */
    SC_DECISION_DISABLED,             /* the policy's Enabled is false */
    SC_DECISION_SUSPENDED,            /* AlarmNotification, Launch or Terminate (process) */
    SC_DECISION_ACTIVITY_IN_PROGRESS, /* simple: its activity has not ended */
    SC_DECISION_COOLDOWN,             /* simple: the cooldown is running */
    SC_DECISION_NO_METRIC,            /* no datapoint to choose a step with */
    SC_DECISION_NO_STEP,              /* the metric falls in no step */
    SC_DECISION_SCALE_IN_DISABLED,    /* target tracking with DisableScaleIn */
    SC_DECISION_OTHER_POLICY,         /* another target-tracking policy is not ready to scale in */
    SC_DECISION_WARMUP,               /* scale-in while instances are warming */
    SC_DECISION_NOT_COUNTED,          /* scale-out the uncounted instances already stand for */
    SC_DECISION_AT_MAX,
    SC_DECISION_AT_MIN,
    SC_DECISION_NO_CHANGE, /* computed == desired */
    SC_DECISION_REASON_COUNT
};

/* "changed", "disabled", "suspended", "activity-in-progress", "cooldown", "no-metric",
 * "no-step", "scale-in-disabled", "other-policy", "warmup", "not-counted", "at-max",
 * "at-min", "no-change". */
const char *sc_decision_reason_name(enum sc_decision_reason r);

#define SC_DECISION_NAME_LEN  256
#define SC_DECISION_ARITH_LEN 320
#define SC_DECISION_LOG_CAP   128

struct sc_decision {
    uint64_t seq; /* from 1, per log */
    int64_t time_ms;
    char group[SC_DECISION_NAME_LEN];
    char policy[SC_DECISION_NAME_LEN];
    char alarm[SC_DECISION_NAME_LEN]; /* "" for ExecutePolicy */
    const char *policy_type;          /* "SimpleScaling", ... (static) */
    const char *trigger;              /* "alarm" or "ExecutePolicy" (static) */
    int has_metric;
    double metric;
    int has_threshold;
    double threshold; /* the alarm's threshold; step: the breach threshold */
    int has_target;
    double target;    /* target tracking's TargetValue */
    int direction;    /* 1 out, -1 in, 0 none */
    int64_t current;  /* desired capacity before */
    int64_t counted;  /* the capacity the arithmetic started from */
    int64_t warming;  /* in desired but not counted (Pending, warming) */
    int64_t computed; /* the arithmetic's result, before the bounds */
    int64_t desired;  /* desired capacity after (current when unchanged) */
    int64_t min_size, max_size;
    enum sc_decision_reason reason;
    const char *process; /* SC_DECISION_SUSPENDED: the process's name (static), else NULL */
    int cooldown_left_s; /* SC_DECISION_COOLDOWN */
    int capped;          /* changed, but clamped: 1 at MaxSize, -1 at MinSize, else 0 */
    char arithmetic[SC_DECISION_ARITH_LEN];
};

/* "changed" or "unchanged". */
const char *sc_decision_result(const struct sc_decision *d);
/* "out", "in", "none". */
const char *sc_decision_direction_name(int direction);
/* The record as one human line (docs/decisions.md 3) into buf (always terminated). */
void sc_decision_format(const struct sc_decision *d, char *buf, size_t n);

/* For the policy code (asg_policy.c), which fills a record as it decides: */
/* Sets d's computed capacity and what the bounds make of it against the desired capacity
 * cur: changed (capped when clamped), at-max, at-min or no-change; d->direction follows
 * the sign of computed - cur. Returns computed clamped to [min, max]. */
int64_t sc_decision_bounds(struct sc_decision *d, int64_t cur, int64_t min, int64_t max,
                           int64_t computed);
/* Capacity stays, for reason r (capped cleared). */
void sc_decision_unchanged(struct sc_decision *d, enum sc_decision_reason r);
/* d->arithmetic = prefix + "2 + 1 = 3", "exact 5" or "4 +25% (+1, MinAdjustmentMagnitude
 * 2: +2) = 6" (base, adjustment a, MinAdjustmentMagnitude mam, the result). */
void sc_decision_arith_adjust(struct sc_decision *d, const char *prefix, enum sc_adjustment_type t,
                              int64_t base, int64_t a, int64_t mam, int64_t result);
/* A step's bounds as they read at diff = metric - threshold: "[10, +inf)" above the
 * threshold, "(-inf, 0]" below. */
void sc_decision_step_bounds(const struct sc_step_adjustment *s, double diff, char *buf, size_t n);
/* d->arithmetic = "ceil(2 × 100 / 50) = 4" (counted instances, metric, target, result). */
void sc_decision_arith_tt(struct sc_decision *d, int64_t counted, double metric, double target,
                          int64_t want);

enum sc_hook_note_kind {
    SC_HOOK_WAITING = 0, /* an action opened: the instance waits in Pending:Wait or
                            Terminating:Wait */
    SC_HOOK_HEARTBEAT,   /* RecordLifecycleActionHeartbeat: a new deadline */
    SC_HOOK_COMPLETED,   /* CompleteLifecycleAction: result */
    SC_HOOK_TIMEOUT,     /* a deadline passed: result = the hook's DefaultResult, why */
    SC_HOOK_KIND_COUNT
};

/* "waiting", "heartbeat", "completed", "timeout". */
const char *sc_hook_note_kind_name(enum sc_hook_note_kind k);

struct sc_hook_note {
    uint64_t seq;
    int64_t time_ms;
    enum sc_hook_note_kind kind;
    char group[SC_DECISION_NAME_LEN];
    char hook[SC_DECISION_NAME_LEN];
    char instance_id[32];
    char token[40];
    int launching; /* 1: a launch hook (Pending:Wait), 0: a terminate hook */
    int heartbeat_timeout_s;
    int64_t deadline_ms; /* waiting, heartbeat: when the action times out */
    char result[16];     /* completed, timeout: CONTINUE or ABANDON; waiting: DefaultResult */
    const char *why;     /* timeout: "Heartbeat Timeout" or "Global Timeout" (static) */
};

/* The human line of a hook note into buf. */
void sc_hook_note_format(const struct sc_hook_note *h, char *buf, size_t n);

struct sc_decision_log;

/* A log with room for SC_DECISION_LOG_CAP records of each kind. NULL on OOM. */
struct sc_decision_log *sc_decision_log_create(void);
void sc_decision_log_destroy(struct sc_decision_log *l); /* NULL is a no-op */

/* Copies d into the log with the next seq (d->seq is set). Never allocates. */
void sc_decision_log_add(struct sc_decision_log *l, struct sc_decision *d);
void sc_decision_log_add_hook(struct sc_decision_log *l, struct sc_hook_note *h);

/* The newest seq (0: none yet), and the record of that seq, or NULL when it is not kept
 * (overwritten, or not written yet). Borrowed until the next add. */
uint64_t sc_decision_log_last(const struct sc_decision_log *l);
const struct sc_decision *sc_decision_log_get(const struct sc_decision_log *l, uint64_t seq);
uint64_t sc_decision_log_last_hook(const struct sc_decision_log *l);
const struct sc_hook_note *sc_decision_log_get_hook(const struct sc_decision_log *l, uint64_t seq);

#endif
