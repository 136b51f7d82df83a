/* scaler/alarm_eval.c: alarm state changes (SetAlarmState, Enable/DisableAlarmActions),
 * running actions, and the evaluation of spec 5.3 (see alarm.h). */
#include "scaler/alarm.h"

#include <stdio.h>
#include <string.h>

#include "scaler/alarm_internal.h"
#include "scaler/civil.h"

#define AS_PREFIX "arn:aws:autoscaling:"

static const char *const op_words[] = { "greater than or equal to", "greater than", "less than",
                                        "less than or equal to" };

/* --- small helpers ----------------------------------------------------------------------- */

/* A light structural check, enough to embed text as a JSON value safely. */
static int json_object_like(const char *s)
{
    int depth = 0, in_str = 0;
    const char *p = s;

    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    if (*p != '{')
        return 0;
    for (; *p; p++) {
        if (in_str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_str = 0;
            else if ((unsigned char)*p < 0x20)
                return 0;
            continue;
        }
        if (*p == '"')
            in_str = 1;
        else if (*p == '{' || *p == '[')
            depth++;
        else if (*p == '}' || *p == ']') {
            if (--depth < 0)
                return 0;
            if (depth == 0) {
                p++;
                while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
                    p++;
                return *p == 0;
            }
        }
    }
    return 0;
}

/* --- state changes ---------------------------------------------------------------------------- */

/* stateReasonData in a StateUpdate item: a composite's as is, a metric alarm's quoted
 * unless it is a JSON object. */
static void reason_data_json(struct sb *b, const char *data, int composite)
{
    sb_raw(b, ",\"stateReasonData\":");
    if (composite || json_object_like(data))
        sb_raw(b, data);
    else
        sb_jstr(b, data);
}

void alarm_base_change_state(struct sc_alarms *a, struct alarm_base *b, enum sc_alarm_state ns,
                             const char *reason, const char *reason_data, int64_t now_ms)
{
    struct sb sb;
    char summary[128];

    sb_init(&sb, a->scratch2, SCRATCH_LEN);
    sb_raw(&sb, "{\"version\":\"1.0\",\"oldState\":{\"stateValue\":");
    sb_jstr(&sb, alarm_state_names[b->state]);
    sb_raw(&sb, ",\"stateReason\":");
    sb_jstr(&sb, b->reason);
    if (b->reason_data[0])
        reason_data_json(&sb, b->reason_data, b->composite);
    sb_raw(&sb, "},\"newState\":{\"stateValue\":");
    sb_jstr(&sb, alarm_state_names[ns]);
    sb_raw(&sb, ",\"stateReason\":");
    sb_jstr(&sb, reason);
    if (reason_data && reason_data[0])
        reason_data_json(&sb, reason_data, b->composite);
    sb_raw(&sb, "}}");
    snprintf(summary, sizeof(summary), "Alarm updated from %s to %s", alarm_state_names[b->state],
             alarm_state_names[ns]);
    b->state = ns;
    alarm_base_set_reason(b, reason, reason_data, now_ms);
    b->state_transitioned_ms = now_ms;
    b->state_gen = ++a->gen;
    b->change_seq = ++a->change_seq;
    alarm_hist_add_kind(a, now_ms, H_STATE, b->composite, b->name, summary, a->scratch2);
}

void alarm_base_set_reason(struct alarm_base *b, const char *reason, const char *reason_data,
                           int64_t now_ms)
{
    snprintf(b->reason, sizeof(b->reason), "%s", reason);
    snprintf(b->reason_data, sizeof(b->reason_data), "%s", reason_data ? reason_data : "");
    b->state_updated_ms = now_ms;
}

/* A metric alarm's state change (alarm_base_change_state) with its view. */
static void change_state(struct sc_alarms *a, struct alarm *al, enum sc_alarm_state ns,
                         const char *reason, const char *reason_data, int64_t now_ms)
{
    alarm_base_change_state(a, &al->b, ns, reason, reason_data, now_ms);
    alarm_view_sync(al);
}

enum sc_status sc_alarms_set_state(struct sc_alarms *a, const struct sc_set_alarm_state_req *req,
                                   int64_t now_ms, struct sc_error *err)
{
    enum sc_alarm_state st;
    struct alarm *al;

    if (!req->alarm_name || !*req->alarm_name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter AlarmName is required.");
    if (!req->state_value)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter StateValue is required.");
    if (sc_alarm_state_parse(req->state_value, &st) < 0)
        return alarm_state_value_error(req->state_value, err);
    if (!req->state_reason)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter StateReason is required.");
    if (strlen(req->state_reason) > 1023)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at 'stateReason' failed to satisfy "
                       "constraint: Member must have length less than or equal to 1023");
    if (req->state_reason_data && strlen(req->state_reason_data) > 4000)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at 'stateReasonData' failed to satisfy "
                       "constraint: Member must have length less than or equal to 4000");
    if (req->state_reason_data && !json_object_like(req->state_reason_data))
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter StateReasonData must be valid JSON.");
    al = alarm_find(a, req->alarm_name);
    if (!al) {
        enum sc_status s = composite_set_state(a, req->alarm_name, st, req->state_reason,
                                               req->state_reason_data, now_ms, err);
        if (s == SC_OK)
            sc_alarms_composites_step(a, now_ms, NULL, NULL);
        return s;
    }
    if (al->b.state == st) {
        alarm_base_set_reason(&al->b, req->state_reason, req->state_reason_data, now_ms);
        alarm_view_sync(al);
        return SC_OK;
    }
    change_state(a, al, st, req->state_reason, req->state_reason_data, now_ms);
    al->b.pending = 1;
    sc_alarms_composites_step(a, now_ms, NULL, NULL); /* its parents' actions wait too */
    return SC_OK;
}

enum sc_status sc_alarms_enable_actions(struct sc_alarms *a, const char *const *names, int n,
                                        int enable, int64_t now_ms, struct sc_error *err)
{
    enum sc_status s = alarm_check_names(names, n, err);

    (void)now_ms;
    if (s != SC_OK)
        return s;
    for (int i = 0; i < n; i++) {
        struct alarm *al = alarm_find(a, names[i]);
        if (al) {
            al->b.actions_enabled = enable != 0;
            alarm_view_sync(al);
        } else {
            composite_set_actions_enabled(a, names[i], enable);
        }
    }
    return SC_OK;
}

/* --- actions ---------------------------------------------------------------------------------- */

/* Runs one action and logs its Action item. The handler may create or delete alarms (even
 * this one), so the alarm is looked up again by name afterwards. */
static void run_action(struct sc_alarms *a, const char *name, const char *arn, int64_t now_ms,
                       sc_alarm_action_fn fn, void *ud)
{
    struct alarm *al = alarm_find(a, name);
    const char *fail;
    int64_t updated;

    if (!al)
        return;
    updated = al->b.state_updated_ms;
    fail = fn ? fn(arn, &al->view, now_ms, ud) : "no action handler";
    alarm_log_action(a, 0, name, arn, updated, fail, now_ms);
}

void alarm_log_action(struct sc_alarms *a, int composite, const char *name, const char *arn,
                      int64_t updated_ms, const char *fail, int64_t now_ms)
{
    char summary[1400];
    struct sb b;

    sb_init(&b, a->scratch2, SCRATCH_LEN);
    sb_printf(&b, "{\"actionState\":\"%s\",\"stateUpdateTimestamp\":%lld,\"notificationResource\":",
              fail ? "Failed" : "Succeeded", (long long)updated_ms);
    sb_jstr(&b, arn);
    if (fail) {
        sb_raw(&b, ",\"error\":");
        sb_jstr(&b, fail);
        snprintf(summary, sizeof(summary), "%.1300s", fail);
    } else {
        snprintf(summary, sizeof(summary), "Successfully executed action %.1024s", arn);
    }
    sb_raw(&b, "}");
    alarm_hist_add_kind(a, now_ms, H_ACTION, composite, name, summary, a->scratch2);
}

/* Runs the actions of the alarm's current state: all of them, or only Auto Scaling ones.
 * Names and ARNs are copied first: a handler may change or delete the alarm. */
static int run_actions(struct sc_alarms *a, struct alarm *al, int only_as, int64_t now_ms,
                       sc_alarm_action_fn fn, void *ud)
{
    char name[256], arns[SC_ALARM_MAX_ACTIONS][1025];
    int n = 0, ran = 0;

    if (!al->b.actions_enabled || al->b.nactions[al->b.state] == 0)
        return 0;
    if (sc_alarms_is_muted(a, al->b.name, now_ms))
        return 0; /* an ACTIVE mute rule names it: the actions are muted */
    snprintf(name, sizeof(name), "%s", al->b.name);
    for (int i = 0; i < al->b.nactions[al->b.state]; i++) {
        const char *arn = al->b.actions[al->b.state][i];
        if (only_as && strncmp(arn, AS_PREFIX, strlen(AS_PREFIX)) != 0)
            continue;
        snprintf(arns[n++], sizeof(arns[0]), "%s", arn);
    }
    for (int i = 0; i < n; i++) {
        run_action(a, name, arns[i], now_ms, fn, ud);
        ran++;
    }
    return ran;
}

int sc_alarms_run_pending(struct sc_alarms *a, int64_t now_ms, sc_alarm_action_fn fn, void *ud)
{
    int ran = 0;

    for (int i = 0; i < a->n; i++) {
        struct alarm *al = a->list[i];
        if (!al->b.pending)
            continue;
        al->b.pending = 0;
        ran += run_actions(a, al, 0, now_ms, fn, ud);
    }
    return ran + composite_run_pending(a, now_ms, fn, ud);
}

/* --- evaluation ------------------------------------------------------------------------------- */

static int breaches(const struct alarm *al, double v)
{
    switch (al->op) {
    case OP_GE:
        return v >= al->threshold;
    case OP_GT:
        return v > al->threshold;
    case OP_LT:
        return v < al->threshold;
    case OP_LE:
        return v <= al->threshold;
    default: /* the band operators: alarm_band_breaches */
        return 0;
    }
}

static const char *plural(int n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* "[v (date), v (date)]" of the listed real slots (1-based slot numbers, newest first). */
static void list_points(struct sb *b, const struct sc_alarms *a, const struct alarm *al,
                        int64_t tick_ms, const int *slots, int n)
{
    char date[32];

    sb_raw(b, "[");
    for (int i = 0; i < n; i++) {
        int k = slots[i];
        if (i)
            sb_raw(b, ", ");
        sb_num(b, a->slot_val[k]);
        sc_civil_format_dmy(tick_ms - (int64_t)k * al->period * 1000, date, sizeof(date));
        sb_printf(b, " (%s)", date);
    }
    sb_raw(b, "]");
}

static void reason_data(struct sb *b, const struct sc_alarms *a, const struct alarm *al,
                        int64_t tick_ms, int r, const int *eval_slots, int n_eval)
{
    char date[40];
    int first = 1;

    sb_raw(b, "{\"version\":\"1.0\",\"queryDate\":");
    sc_civil_format_iso_ms_offset(tick_ms, date, sizeof(date));
    sb_jstr(b, date);
    sb_raw(b, ",\"startDate\":");
    sc_civil_format_iso_ms_offset(tick_ms - (int64_t)r * al->period * 1000, date, sizeof(date));
    sb_jstr(b, date);
    if (al->unit) {
        sb_raw(b, ",\"unit\":");
        sb_jstr(b, al->unit);
    }
    if (al->statistic) {
        sb_raw(b, ",\"statistic\":");
        sb_jstr(b, al->statistic);
    } else if (al->extended_statistic) {
        sb_raw(b, ",\"extendedStatistic\":");
        sb_jstr(b, al->extended_statistic);
    }
    sb_printf(b, ",\"period\":%d,\"recentDatapoints\":[", al->period);
    for (int k = r; k >= 1; k--) {
        if (!a->slot_has[k])
            continue;
        if (!first)
            sb_raw(b, ",");
        first = 0;
        sb_num(b, a->slot_val[k]);
    }
    sb_raw(b, "]");
    if (!OP_IS_BAND(al->op)) {
        sb_raw(b, ",\"threshold\":");
        sb_num(b, al->threshold);
    }
    sb_raw(b, ",\"evaluatedDatapoints\":[");
    for (int i = 0; i < n_eval; i++) {
        int k = eval_slots[i];
        if (i)
            sb_raw(b, ",");
        sc_civil_format_iso_ms_offset(tick_ms - (int64_t)k * al->period * 1000, date, sizeof(date));
        sb_raw(b, "{\"timestamp\":");
        sb_jstr(b, date);
        if (a->slot_has[k]) {
            sb_raw(b, ",\"sampleCount\":");
            sb_num(b, a->slot_cnt[k]);
            sb_raw(b, ",\"value\":");
            sb_num(b, a->slot_val[k]);
        }
        sb_raw(b, "}");
    }
    sb_raw(b, "]}");
}

static void evaluate_one(struct sc_alarms *a, struct alarm *al, const struct sc_metric_store *store,
                         int64_t tick_ms, int minute_tick, sc_alarm_action_fn fn, void *ud)
{
    uint64_t gen = sc_metric_store_generation(store);
    const struct sc_metric *m = al->m_cache;
    int r = al->n + 2, kreal = 0, breach_real = 0, nonbreach_real = 0, oldest_breach = 0;
    int *eval_slots = a->eval_slots;
    int n_eval = 0, breach = 0, filled = 0;
    enum sc_alarm_state ns = al->b.state;
    double pct = al->stat.pct;
    char reason[SC_ALARM_REASON_MAX], rdata[SC_ALARM_REASON_DATA_MAX];
    struct sb b;
    int decided = 1;

    int64_t period_ms = (int64_t)al->period * 1000, shift = -1, win_from = 0, win_to = 0;
    uint64_t late = 0;
    int keep;

    if (r > MAX_SLOTS - 1)
        r = MAX_SLOTS - 1;
    if (al->prog) {
        /* an alarm on Metrics: the program's returned series gives the slots */
        alarm_math_slots(a, al, store, tick_ms, r);
    } else {
        if (gen != al->m_gen) {
            struct sc_metric_key key = { al->ns, al->metric_name, al->dims, al->ndims };
            m = sc_metric_store_find(store, &key);
            al->m_cache = m;
            al->m_gen = gen;
            al->w_metric = NULL; /* a freed metric's address may come back */
        }
        /* slots settled at the last evaluation are still what they were while no put landed
         * late: slot k now is slot k - shift then (newest last, so that entry is still the
         * old one when read) */
        keep = m && al->w_cap >= r && tick_ms % 60000 == 0 &&
               sc_metric_settled_window(m, &win_from, &win_to);
        if (keep) {
            late = sc_metric_late_version(m);
            if (al->w_metric == m && al->w_late == late && tick_ms > al->w_tick &&
                (tick_ms - al->w_tick) % period_ms == 0)
                shift = (tick_ms - al->w_tick) / period_ms;
        }
        for (int k = r; k >= 1; k--) {
            struct sc_agg ag;
            int64_t start = tick_ms - (int64_t)k * period_ms;
            int settled = keep && start >= win_from && start + period_ms <= win_to;
            double v;
            a->slot_has[k] = 0;
            if (keep)
                al->w[k - 1].settled = 0;
            if (!m)
                continue;
            if (settled && shift > 0 && k - shift >= 1 && k - shift <= al->w_n &&
                al->w[k - shift - 1].settled) {
                const struct wslot *o = &al->w[k - shift - 1];
                a->slot_has[k] = o->has;
                a->slot_val[k] = o->val;
                a->slot_cnt[k] = o->cnt;
            } else if (sc_metric_aggregate(m, al->unit_e, start, al->period,
                                           al->stat.kind == SC_STAT_PERCENTILE ? &pct : NULL,
                                           al->stat.kind == SC_STAT_PERCENTILE, &ag) &&
                       sc_agg_value(&ag, &al->stat, 0, &v) >= 0) {
                a->slot_has[k] = 1;
                a->slot_val[k] = v;
                a->slot_cnt[k] = ag.sample_count;
            }
            if (keep) {
                al->w[k - 1].has = a->slot_has[k];
                al->w[k - 1].val = a->slot_val[k];
                al->w[k - 1].cnt = a->slot_cnt[k];
                al->w[k - 1].settled = (char)settled;
            }
        }
        if (keep) {
            al->w_metric = m;
            al->w_late = late;
            al->w_tick = tick_ms;
            al->w_n = r;
        } else {
            al->w_metric = NULL;
        }
    }
    /* the real points, newest first */
    for (int k = 1; k <= r; k++) {
        if (!a->slot_has[k])
            continue;
        if (kreal < al->n) {
            eval_slots[n_eval++] = k;
            if (OP_IS_BAND(al->op) ? alarm_band_breaches(a, al, k) : breaches(al, a->slot_val[k])) {
                breach_real++;
                oldest_breach = k;
            } else {
                nonbreach_real++;
            }
        }
        kreal++;
    }
    al->nrecent = 0;
    for (int i = 0; i < n_eval && al->nrecent < SC_ALARM_MAX_RECENT; i++)
        al->recent[al->nrecent++] = a->slot_val[eval_slots[i]];
    al->last_eval_ms = tick_ms;
    if (kreal >= al->n) {
        breach = breach_real;
        ns = breach >= al->m ? SC_ALARM_ALARM : SC_ALARM_OK;
    } else if (al->tmd == TMD_BREACHING || al->tmd == TMD_NOT_BREACHING) {
        filled = 1;
        breach = breach_real + (al->tmd == TMD_BREACHING ? al->n - kreal : 0);
        ns = breach >= al->m ? SC_ALARM_ALARM : SC_ALARM_OK;
    } else if (kreal == 0) {
        if (al->tmd == TMD_MISSING)
            ns = SC_ALARM_INSUFFICIENT_DATA;
        else
            decided = 0;
    } else if (breach_real >= al->m) {
        ns = SC_ALARM_ALARM;
    } else if (nonbreach_real > 0) {
        ns = SC_ALARM_OK;
    } else if (oldest_breach >= al->m) {
        /* premature-alarm rule: only breaching points, the oldest far enough back */
        if (al->tmd == TMD_MISSING)
            ns = SC_ALARM_ALARM;
        else
            decided = 0;
    } else {
        if (al->tmd == TMD_MISSING)
            ns = SC_ALARM_INSUFFICIENT_DATA;
        else
            decided = 0;
    }
    if (!decided || ns == al->b.state) {
        alarm_view_sync(al);
        if (minute_tick)
            run_actions(a, al, 1, tick_ms, fn, ud);
        return;
    }
    /* StateReason */
    sb_init(&b, reason, sizeof(reason));
    if (ns == SC_ALARM_INSUFFICIENT_DATA) {
        sb_printf(&b, "Insufficient Data: %d %s unknown.", al->n,
                  plural(al->n, "datapoint was", "datapoints were"));
    } else if (filled) {
        int miss = al->n - kreal;
        const char *as = al->tmd == TMD_BREACHING ? "Breaching" : "NonBreaching";
        if (kreal == 0)
            sb_printf(&b,
                      "Threshold Crossed: no datapoints were received for %d %s and %d missing "
                      "%s treated as [%s].",
                      al->n, plural(al->n, "period", "periods"), miss,
                      plural(miss, "datapoint was", "datapoints were"), as);
        else
            sb_printf(&b,
                      "Threshold Crossed: %d %s received for %d %s and %d missing %s treated "
                      "as [%s].",
                      kreal, plural(kreal, "datapoint was", "datapoints were"), al->n,
                      plural(al->n, "period", "periods"), miss,
                      plural(miss, "datapoint was", "datapoints were"), as);
    } else {
        int to_alarm = ns == SC_ALARM_ALARM;
        int x = to_alarm ? breach_real : nonbreach_real;
        if (OP_IS_BAND(al->op)) {
            int need = to_alarm ? al->m : al->n - al->m + 1;
            sb_printf(&b, "Thresholds Crossed: %d out of the last %d datapoints ", x, n_eval);
            list_points(&b, a, al, tick_ms, eval_slots, n_eval);
            alarm_band_reason(&b, a, al, eval_slots, n_eval, to_alarm, x);
            sb_printf(&b, " (minimum %d %s for %s transition).", need,
                      plural(need, "datapoint", "datapoints"),
                      to_alarm ? "OK -> ALARM" : "ALARM -> OK");
        } else if (al->n == 1 && n_eval == 1) {
            sb_raw(&b, "Threshold Crossed: 1 datapoint ");
            list_points(&b, a, al, tick_ms, eval_slots, n_eval);
            sb_printf(&b, " was %s%s the threshold (", to_alarm ? "" : "not ", op_words[al->op]);
            sb_num(&b, al->threshold);
            sb_raw(&b, ").");
        } else {
            int need = to_alarm ? al->m : al->n - al->m + 1;
            sb_printf(&b, "Threshold Crossed: %d out of the last %d datapoints ", x, n_eval);
            list_points(&b, a, al, tick_ms, eval_slots, n_eval);
            sb_printf(&b, " %s %s%s the threshold (", x == 1 ? "was" : "were",
                      to_alarm ? "" : "not ", op_words[al->op]);
            sb_num(&b, al->threshold);
            sb_printf(&b, ") (minimum %d %s for %s transition).", need,
                      plural(need, "datapoint", "datapoints"),
                      to_alarm ? "OK -> ALARM" : "ALARM -> OK");
        }
    }
    /* StateReasonData: for filled/insufficient cases the N newest slots, real or not */
    if (filled || ns == SC_ALARM_INSUFFICIENT_DATA || kreal < al->n) {
        n_eval = 0;
        for (int k = 1; k <= al->n && k <= r; k++)
            eval_slots[n_eval++] = k;
    }
    sb_init(&b, rdata, sizeof(rdata));
    reason_data(&b, a, al, tick_ms, r, eval_slots, n_eval);
    change_state(a, al, ns, reason, rdata, tick_ms);
    run_actions(a, al, 0, tick_ms, fn, ud);
}

void sc_alarms_evaluate(struct sc_alarms *a, const struct sc_metric_store *store, int64_t tick_ms,
                        sc_alarm_action_fn fn, void *ud)
{
    int minute_tick = tick_ms % 60000 == 0;

    sc_alarms_run_pending(a, tick_ms, fn, ud);
    /* A handler may create or delete alarms, shifting the list: a second pass catches any
     * alarm skipped by a shift, and the tick stamp keeps each alarm to one evaluation. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < a->n; i++) {
            struct alarm *al = a->list[i];
            if (!minute_tick && al->period >= 60)
                continue;
            if (al->last_eval_ms == tick_ms)
                continue;
            evaluate_one(a, al, store, tick_ms, minute_tick, fn, ud);
        }
    }
    sc_alarms_composites_step(a, tick_ms, fn, ud);
}
