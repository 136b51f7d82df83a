/* scaler/alarm_composite.c: composite alarms (see alarm_composite.h, docs/cloudwatch.md
 * "Composite alarms"): Put, the describes, the state changes when a child changes (the
 * rule itself is scaler/alarm_rule.c), actions and their suppression, and the composites'
 * part of the state file. */
#include "scaler/alarm_composite.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/alarm_internal.h"
#include "scaler/civil.h"
#include "scaler/save.h"

#define AS_PREFIX   "arn:aws:autoscaling:"
#define REASON_DATA SC_ALARM_REASON_DATA_MAX

/* --- the store ------------------------------------------------------------------------------ */

enum held_by { HELD_WAIT, HELD_EXTENSION, HELD_ALARM };
static const char *const held_names[3] = { "WaitPeriod", "ExtensionPeriod", "Alarm" };

static int comp_idx(const struct sc_alarms *a, const char *name)
{
    return comp_vec_find(a->comps, a->ncomp, name);
}

struct composite *composite_find(const struct sc_alarms *a, const char *name)
{
    int i = name ? comp_idx(a, name) : -1;
    return i >= 0 ? a->comps[i] : NULL;
}

void composite_free(struct composite *c)
{
    if (!c)
        return;
    alarm_base_cleanup(&c->b);
    free(c->rule_text);
    sc_alarm_rule_destroy(c->rule);
    for (int i = 0; i < c->nchild; i++)
        free(c->child[i]);
    free(c->child);
    free(c->child_state);
    free(c->suppressor);
    free(c->suppressor_name);
    free(c);
}

static void view_sync(struct composite *c)
{
    struct sc_composite_view *v = &c->view;
    struct sc_alarm_view *av = &c->aview;

    alarm_base_view(&c->b, &v->base);
    v->alarm_rule = c->rule_text;
    v->actions_suppressor = c->suppressor;
    v->actions_suppressor_wait_period = c->wait_s;
    v->actions_suppressor_extension_period = c->ext_s;
    v->actions_suppressed_by = NULL;
    v->actions_suppressed_reason = NULL;
    if (c->held) {
        v->actions_suppressed_by = held_names[c->held - 1];
        snprintf(c->sup_reason, sizeof(c->sup_reason), "Actions suppressed by %s",
                 held_names[c->held - 1]);
        v->actions_suppressed_reason = c->sup_reason;
    }
    memset(av, 0, sizeof(*av));
    av->alarm_name = c->b.name;
    av->alarm_arn = c->b.arn;
    av->alarm_description = c->b.description;
    av->actions_enabled = c->b.actions_enabled;
    av->state = c->b.state;
    av->state_value = v->state_value;
    av->state_reason = c->b.reason;
    av->state_reason_data = v->state_reason_data;
    av->state_updated_timestamp_ms = c->b.state_updated_ms;
    av->state_transitioned_timestamp_ms = c->b.state_transitioned_ms;
}

const struct sc_composite_view *sc_alarms_composite_find(const struct sc_alarms *a,
                                                         const char *name)
{
    struct composite *c = composite_find(a, name);
    return c ? &c->view : NULL;
}

int sc_alarms_composite_count(const struct sc_alarms *a)
{
    return a->ncomp;
}

/* An alarm of either kind by name: its state, ARN, last transition and generation. */
struct member {
    const char *name, *arn;
    enum sc_alarm_state state;
    int64_t transitioned_ms;
    uint64_t gen;
};

static int member_get(const struct sc_alarms *a, const char *name, struct member *m)
{
    const struct alarm *al = alarm_find(a, name);
    const struct composite *c;

    if (al) {
        *m = (struct member){ al->b.name, al->b.arn, al->b.state, al->b.state_transitioned_ms,
                              al->b.state_gen };
        return 0;
    }
    c = composite_find(a, name);
    if (c) {
        *m = (struct member){ c->b.name, c->b.arn, c->b.state, c->b.state_transitioned_ms,
                              c->b.state_gen };
        return 0;
    }
    return -1;
}

/* The name of the alarm ref (a name or an ARN) designates, or NULL. */
static const char *resolve(const struct sc_alarms *a, const char *ref)
{
    struct member m;

    if (member_get(a, ref, &m) == 0)
        return m.name;
    if (strncmp(ref, "arn:", 4) != 0)
        return NULL;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->list[i]->b.arn, ref) == 0)
            return a->list[i]->b.name;
    for (int i = 0; i < a->ncomp; i++)
        if (strcmp(a->comps[i]->b.arn, ref) == 0)
            return a->comps[i]->b.name;
    return NULL;
}

/* --- state changes and actions -------------------------------------------------------------- */

/* "Friday 22 July, 2022 15:57:45 UTC": the composite reasons' dates. */
static void long_date(int64_t ms, char *out, size_t n)
{
    static const char *const wd[7] = { "Thursday", "Friday",  "Saturday", "Sunday",
                                       "Monday",   "Tuesday", "Wednesday" };
    static const char *const mon[12] = { "January",   "February", "March",    "April",
                                         "May",       "June",     "July",     "August",
                                         "September", "October",  "November", "December" };
    struct sc_civil c;
    int64_t days = ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000);

    sc_civil_from_ms(ms, &c);
    snprintf(out, n, "%s %d %s, %d %02d:%02d:%02d UTC", wd[((days % 7) + 7) % 7], c.day,
             mon[c.month - 1], c.year, c.hour, c.minute, c.second);
}

static void trigger_json(struct sb *b, const struct member *m)
{
    char ts[SC_CIVIL_TIME_LEN];

    sc_civil_format_iso_ms_offset(m->transitioned_ms, ts, sizeof(ts));
    sb_raw(b, "{\"arn\":");
    sb_jstr(b, m->arn);
    sb_raw(b, ",\"state\":{\"value\":");
    sb_jstr(b, alarm_state_names[m->state]);
    sb_raw(b, ",\"timestamp\":");
    sb_jstr(b, ts);
    sb_raw(b, "}}");
}

/* A composite's state change (alarm_base_change_state) with its view. */
static void set_state(struct sc_alarms *a, struct composite *c, enum sc_alarm_state ns,
                      const char *reason, const char *data, int64_t now_ms)
{
    alarm_base_change_state(a, &c->b, ns, reason, data, now_ms);
    view_sync(c);
}

/* Runs the actions of c's current state now. Names and ARNs are copied first: a handler may
 * change or delete alarms. Auto Scaling ARNs never run ("Composite alarms can't trigger Auto
 * Scaling actions"): a failed Action item says so. */
static void run_actions(struct sc_alarms *a, struct composite *c, int64_t now_ms,
                        sc_alarm_action_fn fn, void *ud)
{
    char name[256], arns[SC_ALARM_MAX_ACTIONS][1025], fail[1200];
    int n = 0;

    if (!c->b.actions_enabled || sc_alarms_is_muted(a, c->b.name, now_ms))
        return;
    snprintf(name, sizeof(name), "%s", c->b.name);
    for (int i = 0; i < c->b.nactions[c->b.state]; i++)
        snprintf(arns[n++], sizeof(arns[0]), "%s", c->b.actions[c->b.state][i]);
    for (int i = 0; i < n; i++) {
        struct composite *cur = composite_find(a, name);
        const char *f;
        int64_t updated;

        if (!cur)
            return;
        updated = cur->b.state_updated_ms;
        if (strncmp(arns[i], AS_PREFIX, strlen(AS_PREFIX)) == 0) {
            snprintf(fail, sizeof(fail),
                     "Failed to execute action %.1024s: composite alarms can't trigger Auto "
                     "Scaling actions",
                     arns[i]);
            f = fail;
        } else {
            f = fn ? fn(arns[i], &cur->aview, now_ms, ud) : "no action handler";
            if (f) {
                snprintf(fail, sizeof(fail), "%s", f);
                f = fail;
            }
        }
        alarm_log_action(a, 1, name, arns[i], updated, f, now_ms);
    }
}

/* After a transition: ALARM actions held when there is a suppressor, else run (or left
 * pending when fn is NULL). */
static void after_transition(struct sc_alarms *a, struct composite *c, int64_t now_ms,
                             sc_alarm_action_fn fn, void *ud, int defer)
{
    c->held = 0;
    if (c->b.state == SC_ALARM_ALARM && c->suppressor_name && c->b.actions_enabled &&
        c->b.nactions[SC_ALARM_ALARM] > 0) {
        struct member s;
        if (member_get(a, c->suppressor_name, &s) == 0 && s.state == SC_ALARM_ALARM) {
            c->held = HELD_ALARM + 1;
        } else if (c->wait_s > 0) {
            c->held = HELD_WAIT + 1;
            c->held_until_ms = now_ms + (int64_t)c->wait_s * 1000;
        }
        view_sync(c);
        if (c->held)
            return;
    }
    view_sync(c);
    if (defer)
        c->b.pending = 1;
    else
        run_actions(a, c, now_ms, fn, ud);
}

/* The children's states into c->child_state; the child that changed last into *trig.
 * Returns the largest generation among the children. */
static uint64_t gather(const struct sc_alarms *a, struct composite *c, struct member *trig)
{
    uint64_t g = 0;

    memset(trig, 0, sizeof(*trig));
    for (int i = 0; i < c->nchild; i++) {
        struct member m;
        if (member_get(a, c->child[i], &m) < 0) {
            c->child_state[i] = SC_ALARM_INSUFFICIENT_DATA;
            continue;
        }
        c->child_state[i] = m.state;
        if (!trig->name || m.gen > trig->gen)
            *trig = m;
        if (m.gen > g)
            g = m.gen;
    }
    return g;
}

/* Evaluates c because a child changed (or it was just put: how = "created"/"updated").
 * Returns 1 when its state changed. */
static int evaluate(struct sc_alarms *a, struct composite *c, const char *how, int64_t now_ms,
                    sc_alarm_action_fn fn, void *ud, int defer)
{
    struct member trig;
    enum sc_alarm_state ns;
    char reason[SC_ALARM_REASON_MAX], date[64], data[REASON_DATA];
    struct sb b;
    uint64_t g = gather(a, c, &trig);

    if (!how && g <= c->seen_gen)
        return 0;
    c->seen_gen = g;
    ns = sc_alarm_rule_eval(c->rule, c->child_state) ? SC_ALARM_ALARM : SC_ALARM_OK;
    if (ns == c->b.state)
        return 0;
    sb_init(&b, data, sizeof(data));
    sb_raw(&b, "{\"triggeringAlarms\":[");
    if (how) {
        snprintf(reason, sizeof(reason), "%s was %s and its alarm rule evaluates to %s", c->b.arn,
                 how, alarm_state_names[ns]);
        for (int i = 0, first = 1; i < c->nchild; i++) {
            struct member m;
            int dup = 0;
            for (int j = 0; j < i && !dup; j++)
                dup = strcmp(c->child[i], c->child[j]) == 0;
            if (dup || member_get(a, c->child[i], &m) < 0)
                continue;
            if (!first)
                sb_raw(&b, ",");
            first = 0;
            trigger_json(&b, &m);
        }
    } else {
        long_date(trig.transitioned_ms, date, sizeof(date));
        snprintf(reason, sizeof(reason), "%s transitioned to %s at %s", trig.arn,
                 alarm_state_names[trig.state], date);
        trigger_json(&b, &trig);
    }
    sb_raw(&b, "]}");
    set_state(a, c, ns, reason, data, now_ms);
    after_transition(a, c, now_ms, fn, ud, defer);
    return 1;
}

/* Moves c's held ALARM actions on; runs them when the wait or the extension is over. */
static void suppression_step(struct sc_alarms *a, struct composite *c, int64_t now_ms,
                             sc_alarm_action_fn fn, void *ud, int defer)
{
    struct member s;
    int sup_alarm;

    if (!c->held)
        return;
    if (c->b.state != SC_ALARM_ALARM || !c->suppressor_name) {
        c->held = 0;
        view_sync(c);
        return;
    }
    sup_alarm = member_get(a, c->suppressor_name, &s) == 0 && s.state == SC_ALARM_ALARM;
    switch (c->held - 1) {
    case HELD_ALARM:
        if (!sup_alarm) {
            c->held = HELD_EXTENSION + 1;
            c->held_until_ms = now_ms + (int64_t)c->ext_s * 1000;
        }
        break;
    case HELD_WAIT:
    case HELD_EXTENSION:
        if (sup_alarm)
            c->held = HELD_ALARM + 1;
        break;
    }
    if (c->held - 1 != HELD_ALARM && now_ms >= c->held_until_ms) {
        c->held = 0;
        view_sync(c);
        if (defer)
            c->b.pending = 1;
        else
            run_actions(a, c, now_ms, fn, ud);
        return;
    }
    view_sync(c);
}

static void step(struct sc_alarms *a, int64_t now_ms, sc_alarm_action_fn fn, void *ud, int defer)
{
    /* a change can reach a composite of composites: one pass per composite at most, so a
     * cycle of composites cannot loop */
    for (int pass = 0; pass <= a->ncomp; pass++) {
        int changed = 0;
        for (int i = 0; i < a->ncomp; i++)
            changed |= evaluate(a, a->comps[i], NULL, now_ms, fn, ud, defer);
        if (!changed)
            break;
    }
    for (int i = 0; i < a->ncomp; i++)
        suppression_step(a, a->comps[i], now_ms, fn, ud, defer);
}

void sc_alarms_composites_step(struct sc_alarms *a, int64_t now_ms, sc_alarm_action_fn fn, void *ud)
{
    step(a, now_ms, fn, ud, fn == NULL);
}

int64_t sc_alarms_composites_next_due_ms(const struct sc_alarms *a)
{
    int64_t due = INT64_MAX;

    for (int i = 0; i < a->ncomp; i++) {
        const struct composite *c = a->comps[i];
        if (c->held && c->held - 1 != HELD_ALARM && c->held_until_ms < due)
            due = c->held_until_ms;
    }
    return due;
}

int composite_run_pending(struct sc_alarms *a, int64_t now_ms, sc_alarm_action_fn fn, void *ud)
{
    int ran = 0;

    for (int i = 0; i < a->ncomp; i++) {
        struct composite *c = a->comps[i];
        if (!c->b.pending)
            continue;
        c->b.pending = 0;
        run_actions(a, c, now_ms, fn, ud);
        ran++;
    }
    return ran;
}

int composite_has_pending(const struct sc_alarms *a)
{
    for (int i = 0; i < a->ncomp; i++)
        if (a->comps[i]->b.pending)
            return 1;
    return 0;
}

enum sc_status composite_set_state(struct sc_alarms *a, const char *name, enum sc_alarm_state st,
                                   const char *reason, const char *reason_data, int64_t now_ms,
                                   struct sc_error *err)
{
    struct composite *c = composite_find(a, name);

    if (!c)
        return sc_fail(err, SC_ERR_RESOURCE_NOT_FOUND, "%s", "");
    if (c->b.state == st) {
        alarm_base_set_reason(&c->b, reason, reason_data, now_ms);
        view_sync(c);
        return SC_OK;
    }
    set_state(a, c, st, reason, reason_data, now_ms);
    after_transition(a, c, now_ms, NULL, NULL, 1);
    return SC_OK;
}

int composite_set_actions_enabled(struct sc_alarms *a, const char *name, int enable)
{
    struct composite *c = composite_find(a, name);

    if (!c)
        return 0;
    c->b.actions_enabled = enable != 0;
    view_sync(c);
    return 1;
}

/* --- PutCompositeAlarm ------------------------------------------------------------------------ */

static void config_json(struct sb *b, const struct composite *c)
{
    static const char *const keys[3] = { "okactions", "alarmActions", "insufficientDataActions" };
    char date[SC_CIVIL_TIME_LEN];

    sb_raw(b, "{\"alarmName\":");
    sb_jstr(b, c->b.name);
    sb_raw(b, ",\"alarmArn\":");
    sb_jstr(b, c->b.arn);
    sb_raw(b, ",\"alarmRule\":");
    sb_jstr(b, c->rule_text);
    if (c->b.description) {
        sb_raw(b, ",\"alarmDescription\":");
        sb_jstr(b, c->b.description);
    }
    sc_civil_format_iso_ms_offset(c->b.config_updated_ms, date, sizeof(date));
    sb_printf(b, ",\"alarmConfigurationUpdatedTimestamp\":\"%s\",\"actionsEnabled\":%s", date,
              c->b.actions_enabled ? "true" : "false");
    for (int s = 0; s < 3; s++) {
        sb_printf(b, ",\"%s\":[", keys[s]);
        for (int i = 0; i < c->b.nactions[s]; i++) {
            if (i)
                sb_raw(b, ",");
            sb_jstr(b, c->b.actions[s][i]);
        }
        sb_raw(b, "]");
    }
    if (c->suppressor) {
        sb_raw(b, ",\"actionsSuppressor\":");
        sb_jstr(b, c->suppressor);
        sb_printf(b, ",\"actionsSuppressorWaitPeriod\":%d,\"actionsSuppressorExtensionPeriod\":%d",
                  c->wait_s, c->ext_s);
    }
    sb_raw(b, "}");
}

static enum sc_status validate(const struct sc_alarms *a,
                               const struct sc_put_composite_alarm_req *r,
                               const struct sc_alarm_rule *rule, struct sc_error *err)
{
    char missing[1024];
    struct sb mb;
    int nmissing = 0, ndistinct = 0;
    const char *const *const acts[3] = { r->ok_actions, r->alarm_actions,
                                         r->insufficient_data_actions };
    const int nacts[3] = { r->n_ok_actions, r->n_alarm_actions, r->n_insufficient_data_actions };
    enum sc_status s;

    s = alarm_validate_actions(acts, nacts, err);
    if (s != SC_OK)
        return s;
    sb_init(&mb, missing, sizeof(missing));
    for (int i = 0; i < sc_alarm_rule_nrefs(rule); i++) {
        const char *name = resolve(a, sc_alarm_rule_ref(rule, i));
        int dup = 0;
        for (int j = 0; j < i && !dup; j++)
            dup = strcmp(sc_alarm_rule_ref(rule, i), sc_alarm_rule_ref(rule, j)) == 0;
        if (dup)
            continue;
        ndistinct++;
        if (!name) {
            sb_printf(&mb, "%s%s", nmissing++ ? ", " : "", sc_alarm_rule_ref(rule, i));
            continue;
        }
        if (strcmp(name, r->alarm_name) == 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Could not save the composite alarm as the alarm rule references the "
                           "alarm itself");
    }
    if (nmissing)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Could not save the composite alarm as alarms [%s] in the alarm rule do "
                       "not exist",
                       missing);
    if (ndistinct > SC_ALARM_RULE_MAX_REF)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "The alarm rule cannot reference more than 100 alarms.");
    if (r->actions_suppressor) {
        if (!r->has_wait_period || !r->has_extension_period)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "ActionsSuppressorWaitPeriod and ActionsSuppressorExtensionPeriod are "
                           "required when ActionsSuppressor is specified.");
        if (strlen(r->actions_suppressor) > 1600 || !resolve(a, r->actions_suppressor))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Could not save the composite alarm as the actions suppressor %s does "
                           "not exist",
                           r->actions_suppressor);
    }
    if ((!r->actions_suppressor && (r->has_wait_period || r->has_extension_period)) ||
        (r->has_wait_period && r->wait_period_s < 0) ||
        (r->has_extension_period && r->extension_period_s < 0))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "ActionsSuppressorWaitPeriod and ActionsSuppressorExtensionPeriod are only "
                       "valid with ActionsSuppressor, and must be >= 0.");
    return SC_OK;
}

/* The new composite (configuration only) from a validated request, or NULL on OOM. */
static struct composite *build(const struct sc_alarms *a,
                               const struct sc_put_composite_alarm_req *r,
                               struct sc_alarm_rule *rule)
{
    struct composite *c = calloc(1, sizeof(*c));
    const char *const *const acts[3] = { r->ok_actions, r->alarm_actions,
                                         r->insufficient_data_actions };
    const int nacts[3] = { r->n_ok_actions, r->n_alarm_actions, r->n_insufficient_data_actions };
    int bad = 0;

    if (!c)
        return NULL;
    c->rule = rule;
    c->b.composite = 1;
    bad |= alarm_base_init(&c->b, a, r->alarm_name, r->alarm_description,
                           r->has_actions_enabled ? r->actions_enabled != 0 : 1, acts, nacts) < 0;
    c->rule_text = sc_strdup(r->alarm_rule);
    if (r->actions_suppressor) {
        c->suppressor = sc_strdup(r->actions_suppressor);
        c->suppressor_name = sc_strdup(resolve(a, r->actions_suppressor));
        bad |= !c->suppressor || !c->suppressor_name;
        c->wait_s = r->wait_period_s;
        c->ext_s = r->extension_period_s;
    }
    c->nchild = sc_alarm_rule_nrefs(rule);
    c->child = calloc((size_t)sc_alarm_rule_nrefs(rule) + 1, sizeof(*c->child));
    c->child_state = calloc((size_t)sc_alarm_rule_nrefs(rule) + 1, sizeof(*c->child_state));
    bad |= !c->child || !c->child_state;
    for (int i = 0; !bad && i < sc_alarm_rule_nrefs(rule); i++) {
        c->child[i] = sc_strdup(resolve(a, sc_alarm_rule_ref(rule, i)));
        bad |= !c->child[i];
    }
    if (bad || !c->rule_text) {
        composite_free(c);
        return NULL;
    }
    return c;
}

/* Inserts c in name order. Returns 0 or -1 (OOM). */
static int insert(struct sc_alarms *a, struct composite *c)
{
    return comp_vec_insert(&a->comps, &a->ncomp, &a->ccap, -comp_idx(a, c->b.name) - 1, c);
}

enum sc_status sc_alarms_put_composite(struct sc_alarms *a,
                                       const struct sc_put_composite_alarm_req *req, int64_t now_ms,
                                       struct sc_error *err)
{
    struct sc_alarm_rule *rule = NULL;
    struct composite *c, *old;
    enum sc_status s;
    char summary[400];
    struct sb b;
    int idx;

    s = alarm_validate_name(req->alarm_name, req->alarm_description, err);
    if (s != SC_OK)
        return s;
    if (alarm_find(a, req->alarm_name))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "An alarm with the name %s already exists as a metric alarm.",
                       req->alarm_name);
    s = sc_alarm_rule_parse(req->alarm_rule, &rule, err);
    if (s != SC_OK)
        return s;
    s = validate(a, req, rule, err);
    if (s != SC_OK) {
        sc_alarm_rule_destroy(rule);
        return s;
    }
    c = build(a, req, rule);
    if (!c) {
        sc_alarm_rule_destroy(rule);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    c->b.config_updated_ms = now_ms;
    idx = comp_idx(a, req->alarm_name);
    sb_init(&b, a->scratch, SCRATCH_LEN);
    if (idx >= 0) {
        old = a->comps[idx];
        alarm_base_keep_state(&c->b, &old->b);
        c->b.state_gen = old->b.state_gen;
        sb_raw(&b, "{\"type\":\"Update\",\"version\":\"1.0\",\"originalUpdatedAlarm\":");
        config_json(&b, old);
        sb_raw(&b, ",\"updatedAlarm\":");
        config_json(&b, c);
        sb_raw(&b, "}");
        snprintf(summary, sizeof(summary), "Alarm \"%s\" updated", c->b.name);
        a->comps[idx] = c;
        c->b.change_seq = ++a->change_seq;
        composite_free(old);
    } else {
        if (tags_copy(&c->b.tags, &c->b.ntags, req->tags, req->n_tags) < 0 || insert(a, c) < 0) {
            composite_free(c);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        alarm_base_initial_state(&c->b, now_ms);
        c->b.state_gen = ++a->gen;
        c->b.change_seq = ++a->change_seq;
        sb_raw(&b, "{\"type\":\"Create\",\"version\":\"1.0\",\"createdAlarm\":");
        config_json(&b, c);
        sb_raw(&b, "}");
        snprintf(summary, sizeof(summary), "Alarm \"%s\" created", c->b.name);
    }
    view_sync(c);
    alarm_hist_add_kind(a, now_ms, H_CONFIG, 1, c->b.name, summary, a->scratch);
    evaluate(a, c, idx >= 0 ? "updated" : "created", now_ms, NULL, NULL, 1);
    step(a, now_ms, NULL, NULL, 1); /* its parents, and suppressions that name it */
    return SC_OK;
}

/* --- DeleteAlarms ---------------------------------------------------------------------------- */

static int named(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

enum sc_status composite_check_delete(const struct sc_alarms *a, const char *const *names, int n,
                                      struct sc_error *err)
{
    int ncomp = 0;

    for (int i = 0; i < n; i++)
        if (composite_find(a, names[i]) && !named(names, i, names[i]))
            ncomp++;
    if (ncomp > 1)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "You can delete at most one composite alarm at a "
                       "time.");
    for (int i = 0; i < n; i++) {
        if (!alarm_find(a, names[i]) && !composite_find(a, names[i]))
            continue;
        for (int k = 0; k < a->ncomp; k++) {
            const struct composite *c = a->comps[k];
            int uses = c->suppressor_name && strcmp(c->suppressor_name, names[i]) == 0;
            if (named(names, n, c->b.name))
                continue; /* deleted in the same call */
            for (int j = 0; j < c->nchild && !uses; j++)
                uses = strcmp(c->child[j], names[i]) == 0;
            if (uses)
                return sc_fail(err, SC_ERR_VALIDATION,
                               "Cannot delete %s as there are composite alarm(s) depending on it.",
                               names[i]);
        }
    }
    return SC_OK;
}

int composite_delete(struct sc_alarms *a, const char *name, int64_t now_ms)
{
    int idx = comp_idx(a, name);
    struct composite *c;
    char summary[400];
    struct sb b;

    if (idx < 0)
        return 0;
    c = a->comps[idx];
    sb_init(&b, a->scratch, SCRATCH_LEN);
    sb_raw(&b, "{\"type\":\"Delete\",\"version\":\"1.0\",\"deletedAlarm\":");
    config_json(&b, c);
    sb_raw(&b, "}");
    snprintf(summary, sizeof(summary), "Alarm \"%s\" deleted", c->b.name);
    alarm_hist_add_kind(a, now_ms, H_CONFIG, 1, c->b.name, summary, a->scratch);
    composite_free(comp_vec_remove(a->comps, &a->ncomp, idx));
    a->delete_count++;
    return 1;
}

/* --- describes ------------------------------------------------------------------------------- */

enum sc_status sc_alarms_describe_composites(const struct sc_alarms *a,
                                             const struct sc_describe_alarms_req *req,
                                             sc_composite_visit_fn fn, void *ud,
                                             struct sc_error *err)
{
    enum sc_alarm_state sv;
    enum sc_status s = alarm_describe_check(req, &sv, err);

    for (int i = 0; s == SC_OK && i < a->ncomp; i++)
        if (alarm_describe_match(&a->comps[i]->b, req, sv) && fn(&a->comps[i]->view, ud))
            break;
    return s;
}

void sc_alarms_children_of(const struct sc_alarms *a, const char *name, sc_alarm_visit_fn mfn,
                           sc_composite_visit_fn cfn, void *ud)
{
    const struct composite *c = composite_find(a, name);

    if (!c)
        return;
    for (int i = 0; i < a->n; i++)
        if (named((const char *const *)c->child, c->nchild, a->list[i]->b.name) &&
            mfn(&a->list[i]->view, ud))
            return;
    for (int i = 0; i < a->ncomp; i++)
        if (named((const char *const *)c->child, c->nchild, a->comps[i]->b.name) &&
            cfn(&a->comps[i]->view, ud))
            return;
}

void sc_alarms_parents_of(const struct sc_alarms *a, const char *name, sc_composite_visit_fn cfn,
                          void *ud)
{
    for (int i = 0; name && i < a->ncomp; i++) {
        const struct composite *c = a->comps[i];
        if (named((const char *const *)c->child, c->nchild, name) && cfn(&c->view, ud))
            return;
    }
}

/* --- the state file --------------------------------------------------------------------------- */

json_t *composites_save(const struct sc_alarms *a)
{
    json_t *list = json_array();

    for (int i = 0; list && i < a->ncomp; i++) {
        const struct composite *c = a->comps[i];
        json_t *o = json_object();
        /* name and rule lead, as they always did (setting name again keeps its place) */
        int r = !o || sc_save_str(o, "name", c->b.name) < 0 ||
                sc_save_str(o, "rule", c->rule_text) < 0 || alarm_base_save_identity(o, &c->b) < 0;

        r = r || alarm_base_save_state(o, &c->b) < 0 ||
            json_object_set_new(o, "held", json_integer(c->held)) < 0 ||
            json_object_set_new(o, "held_until_ms", json_integer(c->held_until_ms)) < 0 ||
            alarm_base_save_tags(o, &c->b) < 0 ||
            sc_save_strv(o, "children", c->child, c->nchild) < 0;
        if (!r && c->suppressor)
            r = sc_save_str(o, "suppressor", c->suppressor) < 0 ||
                sc_save_str(o, "suppressor_name", c->suppressor_name) < 0 ||
                sc_save_int(o, "wait_s", c->wait_s) < 0 || sc_save_int(o, "ext_s", c->ext_s) < 0;
        if (r || json_array_append_new(list, o) < 0) {
            if (r)
                json_decref(o);
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

static int load_actions(struct sc_load *l, const json_t *o, const char *key, struct composite *c,
                        int s)
{
    int n = 0;
    char **v = sc_load_strv(l, o, key, &n);

    if (l->failed)
        return -1;
    if (n > SC_ALARM_MAX_ACTIONS) {
        sc_strv_free(v, n);
        return sc_load_fail(l, "%s: more than 5 actions", key);
    }
    for (int i = 0; i < n; i++)
        c->b.actions[s][i] = v[i];
    c->b.nactions[s] = n;
    free(v);
    return 0;
}

static int load_one(struct sc_alarms *t, const json_t *o, struct sc_load *l)
{
    struct composite *c = calloc(1, sizeof(*c));
    struct sc_error perr_ = { 0 };

    if (!c)
        return sc_load_fail(l, "out of memory");
    c->b.composite = 1;
    c->b.name = sc_load_str(l, o, "name");
    c->rule_text = sc_load_str(l, o, "rule");
    c->b.arn = sc_load_str(l, o, "arn");
    if (json_is_string(json_object_get(o, "description")))
        c->b.description = sc_load_str(l, o, "description");
    c->b.actions_enabled = sc_load_bool(l, o, "actions_enabled");
    load_actions(l, o, "ok_actions", c, SC_ALARM_OK);
    load_actions(l, o, "alarm_actions", c, SC_ALARM_ALARM);
    load_actions(l, o, "insufficient_data_actions", c, SC_ALARM_INSUFFICIENT_DATA);
    alarm_base_load_state(l, o, &c->b);
    c->held = sc_load_int_range(l, o, "held", 0, 3);
    c->held_until_ms = sc_load_int(l, o, "held_until_ms");
    c->child = sc_load_strv(l, o, "children", &c->nchild);
    if (json_object_get(o, "suppressor")) {
        c->suppressor = sc_load_str(l, o, "suppressor");
        c->suppressor_name = sc_load_str(l, o, "suppressor_name");
        c->wait_s = sc_load_int_range(l, o, "wait_s", 0, INT32_MAX);
        c->ext_s = sc_load_int_range(l, o, "ext_s", 0, INT32_MAX);
    }
    if (!l->failed && sc_alarm_rule_parse(c->rule_text, &c->rule, &perr_) != SC_OK)
        sc_load_fail(l, "rule: %s", perr_.message);
    if (!l->failed && sc_alarm_rule_nrefs(c->rule) != c->nchild)
        sc_load_fail(l, "children: %d names for a rule of %d references", c->nchild,
                     sc_alarm_rule_nrefs(c->rule));
    if (!l->failed) {
        c->child_state = calloc((size_t)c->nchild + 1, sizeof(*c->child_state));
        if (!c->child_state)
            sc_load_fail(l, "out of memory");
    }
    if (!l->failed && (composite_find(t, c->b.name) || alarm_find(t, c->b.name)))
        sc_load_fail(l, "name: %s is there twice", c->b.name);
    if (!l->failed && insert(t, c) < 0)
        sc_load_fail(l, "out of memory");
    if (l->failed) {
        composite_free(c);
        return -1;
    }
    view_sync(c);
    return 0;
}

int composites_load(struct sc_alarms *t, const json_t *arr, struct sc_error *err)
{
    char where[64] = "";
    struct sc_load l;
    const json_t *e;
    size_t i;

    sc_load_init(&l, where, err);
    l.sep = ".";
    if (!arr)
        return 0;
    if (!json_is_array(arr))
        return sc_fail(err, SC_ERR_VALIDATION, "state: composites: expected a list"), -1;
    json_array_foreach(arr, i, e)
    {
        snprintf(where, sizeof(where), "composites[%zu]", i);
        if (!json_is_object(e))
            return sc_fail(err, SC_ERR_VALIDATION, "state: %s: expected an object", where), -1;
        if (load_one(t, e, &l) < 0)
            return -1;
    }
    for (i = 0; i < (size_t)t->ncomp; i++) {
        const struct composite *c = t->comps[i];
        for (int k = 0; k < c->nchild; k++) {
            struct member m;
            if (member_get(t, c->child[k], &m) < 0)
                return sc_fail(err, SC_ERR_VALIDATION,
                               "state: composites[%zu].children: %s is no alarm", i, c->child[k]),
                       -1;
        }
    }
    return 0;
}
