/* scaler/decision.c: see decision.h. Two rings of fixed records, allocated at creation. */
#include "scaler/decision.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sc_decision_log {
    struct sc_decision d[SC_DECISION_LOG_CAP];
    uint64_t dseq;
    struct sc_hook_note h[SC_DECISION_LOG_CAP];
    uint64_t hseq;
};

static const char *const reason_names[SC_DECISION_REASON_COUNT] = {
    [SC_DECISION_CHANGED] = "changed",
    [SC_DECISION_DISABLED] = "disabled",
    [SC_DECISION_SUSPENDED] = "suspended",
    [SC_DECISION_ACTIVITY_IN_PROGRESS] = "activity-in-progress",
    [SC_DECISION_COOLDOWN] = "cooldown",
    [SC_DECISION_NO_METRIC] = "no-metric",
    [SC_DECISION_NO_STEP] = "no-step",
    [SC_DECISION_SCALE_IN_DISABLED] = "scale-in-disabled",
    [SC_DECISION_OTHER_POLICY] = "other-policy",
    [SC_DECISION_WARMUP] = "warmup",
    [SC_DECISION_NOT_COUNTED] = "not-counted",
    [SC_DECISION_AT_MAX] = "at-max",
    [SC_DECISION_AT_MIN] = "at-min",
    [SC_DECISION_NO_CHANGE] = "no-change",
};

static const char *const hook_kind_names[SC_HOOK_KIND_COUNT] = {
    [SC_HOOK_WAITING] = "waiting",
    [SC_HOOK_HEARTBEAT] = "heartbeat",
    [SC_HOOK_COMPLETED] = "completed",
    [SC_HOOK_TIMEOUT] = "timeout",
};

const char *sc_decision_reason_name(enum sc_decision_reason r)
{
    return r >= 0 && r < SC_DECISION_REASON_COUNT ? reason_names[r] : "unknown";
}

const char *sc_hook_note_kind_name(enum sc_hook_note_kind k)
{
    return k >= 0 && k < SC_HOOK_KIND_COUNT ? hook_kind_names[k] : "unknown";
}

const char *sc_decision_result(const struct sc_decision *d)
{
    return d->reason == SC_DECISION_CHANGED ? "changed" : "unchanged";
}

const char *sc_decision_direction_name(int direction)
{
    return direction > 0 ? "out" : direction < 0 ? "in" : "none";
}

/* Why, in words, for the human line. */
static void why(const struct sc_decision *d, char *buf, size_t n)
{
    switch (d->reason) {
    case SC_DECISION_CHANGED:
        snprintf(buf, n, "changed");
        break;
    case SC_DECISION_DISABLED:
        snprintf(buf, n, "the policy is disabled");
        break;
    case SC_DECISION_SUSPENDED:
        snprintf(buf, n, "process %s is suspended", d->process ? d->process : "?");
        break;
    case SC_DECISION_ACTIVITY_IN_PROGRESS:
        snprintf(buf, n, "a scaling activity is in progress; the cooldown starts when it ends");
        break;
    case SC_DECISION_COOLDOWN:
        snprintf(buf, n, "the group is in cooldown, %d s left", d->cooldown_left_s);
        break;
    case SC_DECISION_NO_METRIC:
        snprintf(buf, n, "no metric value");
        break;
    case SC_DECISION_NO_STEP:
        snprintf(buf, n, "the metric falls in no step adjustment");
        break;
    case SC_DECISION_SCALE_IN_DISABLED:
        snprintf(buf, n, "scale-in is disabled");
        break;
    case SC_DECISION_OTHER_POLICY:
        snprintf(buf, n, "another target-tracking policy is not ready to scale in");
        break;
    case SC_DECISION_WARMUP:
        snprintf(buf, n, "%lld instance(s) warming up: no scale-in until they finish",
                 (long long)d->warming);
        break;
    case SC_DECISION_NOT_COUNTED:
        snprintf(buf, n, "%lld instance(s) not yet counted already stand for it",
                 (long long)d->warming);
        break;
    case SC_DECISION_AT_MAX:
        snprintf(buf, n, "at MaxSize %lld", (long long)d->max_size);
        break;
    case SC_DECISION_AT_MIN:
        snprintf(buf, n, "at MinSize %lld", (long long)d->min_size);
        break;
    case SC_DECISION_NO_CHANGE:
        snprintf(buf, n, "already at the computed capacity");
        break;
    default:
        snprintf(buf, n, "?");
        break;
    }
}

void sc_decision_format(const struct sc_decision *d, char *buf, size_t n)
{
    char inputs[600], reason[160];
    int k;

    k = snprintf(inputs, sizeof(inputs), "%s", d->policy_type ? d->policy_type : "");
    if (d->trigger && strcmp(d->trigger, "alarm") == 0 && d->alarm[0])
        k += snprintf(inputs + k, sizeof(inputs) - (size_t)k, ", alarm %s", d->alarm);
    else
        k += snprintf(inputs + k, sizeof(inputs) - (size_t)k, ", %s", d->trigger ? d->trigger : "");
    if (d->has_metric && k < (int)sizeof(inputs))
        k += snprintf(inputs + k, sizeof(inputs) - (size_t)k, ", metric %g", d->metric);
    if (d->has_target && k < (int)sizeof(inputs))
        k += snprintf(inputs + k, sizeof(inputs) - (size_t)k, ", target %g", d->target);
    else if (d->has_threshold && k < (int)sizeof(inputs))
        snprintf(inputs + k, sizeof(inputs) - (size_t)k, ", threshold %g", d->threshold);
    why(d, reason, sizeof(reason));
    if (d->reason == SC_DECISION_CHANGED)
        snprintf(buf, n, "group %s policy %s (%s): %s; desired %lld -> %lld%s", d->group, d->policy,
                 inputs, d->arithmetic[0] ? d->arithmetic : "-", (long long)d->current,
                 (long long)d->desired,
                 d->capped > 0   ? " (capped at MaxSize)"
                 : d->capped < 0 ? " (capped at MinSize)"
                                 : "");
    else
        snprintf(buf, n, "group %s policy %s (%s): %s; desired stays %lld: %s (%s)", d->group,
                 d->policy, inputs, d->arithmetic[0] ? d->arithmetic : "-", (long long)d->current,
                 sc_decision_reason_name(d->reason), reason);
}

void sc_hook_note_format(const struct sc_hook_note *h, char *buf, size_t n)
{
    const char *tr = h->launching ? "launching" : "terminating";

    switch (h->kind) {
    case SC_HOOK_WAITING:
        snprintf(
            buf, n,
            "group %s instance %s waits for lifecycle hook %s (%s): heartbeat timeout %d s, default result %s",
            h->group, h->instance_id, h->hook, tr, h->heartbeat_timeout_s, h->result);
        break;
    case SC_HOOK_HEARTBEAT:
        snprintf(buf, n, "group %s instance %s lifecycle hook %s heartbeat: times out in %d s",
                 h->group, h->instance_id, h->hook, h->heartbeat_timeout_s);
        break;
    case SC_HOOK_COMPLETED:
        snprintf(buf, n, "group %s instance %s lifecycle hook %s (%s) completed: %s", h->group,
                 h->instance_id, h->hook, tr, h->result);
        break;
    case SC_HOOK_TIMEOUT:
        snprintf(buf, n,
                 "group %s instance %s lifecycle hook %s (%s) timed out (%s): default result %s",
                 h->group, h->instance_id, h->hook, tr, h->why ? h->why : "Heartbeat Timeout",
                 h->result);
        break;
    default:
        snprintf(buf, n, "group %s lifecycle hook %s", h->group, h->hook);
        break;
    }
}

struct sc_decision_log *sc_decision_log_create(void)
{
    return calloc(1, sizeof(struct sc_decision_log));
}

void sc_decision_log_destroy(struct sc_decision_log *l)
{
    free(l);
}

void sc_decision_log_add(struct sc_decision_log *l, struct sc_decision *d)
{
    d->seq = ++l->dseq;
    l->d[(d->seq - 1) % SC_DECISION_LOG_CAP] = *d;
}

void sc_decision_log_add_hook(struct sc_decision_log *l, struct sc_hook_note *h)
{
    h->seq = ++l->hseq;
    l->h[(h->seq - 1) % SC_DECISION_LOG_CAP] = *h;
}

uint64_t sc_decision_log_last(const struct sc_decision_log *l)
{
    return l ? l->dseq : 0;
}

uint64_t sc_decision_log_last_hook(const struct sc_decision_log *l)
{
    return l ? l->hseq : 0;
}

const struct sc_decision *sc_decision_log_get(const struct sc_decision_log *l, uint64_t seq)
{
    const struct sc_decision *d;

    if (!l || seq == 0 || seq > l->dseq || l->dseq - seq >= SC_DECISION_LOG_CAP)
        return NULL;
    d = &l->d[(seq - 1) % SC_DECISION_LOG_CAP];
    return d->seq == seq ? d : NULL;
}

const struct sc_hook_note *sc_decision_log_get_hook(const struct sc_decision_log *l, uint64_t seq)
{
    const struct sc_hook_note *h;

    if (!l || seq == 0 || seq > l->hseq || l->hseq - seq >= SC_DECISION_LOG_CAP)
        return NULL;
    h = &l->h[(seq - 1) % SC_DECISION_LOG_CAP];
    return h->seq == seq ? h : NULL;
}

/* --- the arithmetic as text, for the policy code --- */

int64_t sc_decision_bounds(struct sc_decision *d, int64_t cur, int64_t min, int64_t max,
                           int64_t computed)
{
    int64_t c = sc_policy_clamp(computed, min, max);

    d->computed = computed;
    d->direction = computed > cur ? 1 : computed < cur ? -1 : 0;
    d->capped = 0;
    if (c != cur) {
        d->reason = SC_DECISION_CHANGED;
        d->capped = computed > c ? 1 : computed < c ? -1 : 0;
    } else {
        d->reason = computed > cur   ? SC_DECISION_AT_MAX
                    : computed < cur ? SC_DECISION_AT_MIN
                                     : SC_DECISION_NO_CHANGE;
    }
    return c;
}

void sc_decision_unchanged(struct sc_decision *d, enum sc_decision_reason r)
{
    d->reason = r;
    d->capped = 0;
}

void sc_decision_arith_adjust(struct sc_decision *d, const char *prefix, enum sc_adjustment_type t,
                              int64_t base, int64_t a, int64_t mam, int64_t result)
{
    char *buf = d->arithmetic;
    size_t n = sizeof(d->arithmetic);
    int64_t raw;

    switch (t) {
    case SC_ADJ_CHANGE_IN_CAPACITY:
        snprintf(buf, n, "%s%lld %s %lld = %lld", prefix, (long long)base, a < 0 ? "-" : "+",
                 (long long)(a < 0 ? -a : a), (long long)result);
        break;
    case SC_ADJ_EXACT_CAPACITY:
        snprintf(buf, n, "%sexact %lld", prefix, (long long)a);
        break;
    case SC_ADJ_PERCENT_CHANGE_IN_CAPACITY:
        raw = sc_policy_percent_delta(base, a, 0);
        if (raw != result - base)
            snprintf(buf, n, "%s%lld %+lld%% (%+lld, MinAdjustmentMagnitude %lld: %+lld) = %lld",
                     prefix, (long long)base, (long long)a, (long long)raw, (long long)mam,
                     (long long)(result - base), (long long)result);
        else
            snprintf(buf, n, "%s%lld %+lld%% (%+lld) = %lld", prefix, (long long)base, (long long)a,
                     (long long)raw, (long long)result);
        break;
    }
}

void sc_decision_step_bounds(const struct sc_step_adjustment *s, double diff, char *buf, size_t n)
{
    char lo[32], hi[32];

    if (s->has_lower)
        snprintf(lo, sizeof(lo), "%g", s->lower);
    else
        snprintf(lo, sizeof(lo), "-inf");
    if (s->has_upper)
        snprintf(hi, sizeof(hi), "%g", s->upper);
    else
        snprintf(hi, sizeof(hi), "+inf");
    snprintf(buf, n, diff < 0 ? "(%s, %s]" : "[%s, %s)", lo, hi);
}

void sc_decision_arith_tt(struct sc_decision *d, int64_t counted, double metric, double target,
                          int64_t want)
{
    if (counted <= 0)
        snprintf(d->arithmetic, sizeof(d->arithmetic),
                 "no counted instance, metric %g %s target %g: %lld", metric,
                 metric > target ? ">" : "<=", target, (long long)want);
    else
        snprintf(d->arithmetic, sizeof(d->arithmetic), "ceil(%lld \xc3\x97 %g / %g) = %lld",
                 (long long)counted, metric, target, (long long)want);
}
