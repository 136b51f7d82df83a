/* scaler/observe.c: see observe.h. What the observer remembers is one sorted table of
 * (key, value): a key per thing (an activity, an instance's EC2 state, its lifecycle in a
 * group, a load balancer's view of it) and its last state. Each step builds the table
 * anew, looks every key up in the previous one, reports the differences, then keeps the
 * new table.
 *
 * Alarms are remembered apart and incrementally, since a world may hold 10,000 of them and
 * a step follows every request: a sorted array of (name, state) that a step updates only
 * for the alarms the registry's change numbers say were created, overwritten or changed
 * state since the last step (sc_alarms_visit_changed), and sweeps of deleted names only
 * when the registry's deletion count moved. A registry seen for the first time, one whose
 * numbers went back (a load), and a step after an allocation failure look at every alarm,
 * as the whole-table rebuild did. */
#include "scaler/observe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/alarm.h"
#include "scaler/asg.h"
#include "scaler/asg_notify.h"
#include "scaler/cloudwatch.h"
#include "scaler/decision.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "scaler/world.h"

#define KEY_LEN 320 /* a kind letter, an alarm name (255) or a load balancer and an id */

struct entry {
    char key[KEY_LEN];
    int value;
};

struct table {
    struct entry *e;
    int n, cap;
};

/* an alarm or composite alarm (one name space) and the state it was last seen in */
struct seen_alarm {
    char *name;
    int state;
};

struct sc_observer {
    struct table prev, cur;
    struct seen_alarm *al; /* sorted by name */
    int nal, cap_al;
    const struct sc_alarms *alarms; /* the registry al describes; NULL: look at every alarm */
    uint64_t aseq, adel;            /* its change number and deletion count then */
    int alarm_oom;                  /* an alarm could not be remembered: look at every one */
    struct sc_elb_instance_health *health; /* scratch for DescribeInstanceHealth */
    int cap_health;
    int nevents;
    unsigned kinds;        /* 0: all */
    uint64_t dseen, hseen; /* the decision log's seqs reported */
    uint64_t nseen;        /* the asg's notifications reported */
    sc_event_fn fn;        /* NULL: remember only (sync) */
    void *ud;
};

static const char *const kind_names[SC_EVENT_KIND_COUNT] = {
    "alarm",     "activity_start", "activity_end", "launch_failed", "launch",       "instance",
    "lifecycle", "health",         "decision",     "hook",          "notification",
};

const char *sc_event_kind_name(enum sc_event_kind k)
{
    return k >= 0 && k < SC_EVENT_KIND_COUNT ? kind_names[k] : "unknown";
}

struct sc_observer *sc_observer_create(void)
{
    return calloc(1, sizeof(struct sc_observer));
}

void sc_observer_destroy(struct sc_observer *o)
{
    if (!o)
        return;
    free(o->prev.e);
    free(o->cur.e);
    for (int i = 0; i < o->nal; i++)
        free(o->al[i].name);
    free(o->al);
    free(o->health);
    free(o);
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->key, ((const struct entry *)b)->key);
}

/* The previous value of key, or -1 when the thing is new. */
static int prev_value(const struct sc_observer *o, const char *key)
{
    struct entry probe;
    const struct entry *hit;

    if (!o->prev.n)
        return -1;
    snprintf(probe.key, sizeof(probe.key), "%s", key);
    hit = bsearch(&probe, o->prev.e, (size_t)o->prev.n, sizeof(*o->prev.e), entry_cmp);
    return hit ? hit->value : -1;
}

/* Remembers key = value for the next step. 0, or -1 on OOM (the thing is not remembered:
 * it is reported again as new next time, never lost). */
static int remember(struct sc_observer *o, const char *key, int value)
{
    struct table *t = &o->cur;

    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 64;
        struct entry *e = realloc(t->e, (size_t)cap * sizeof(*e));

        if (!e)
            return -1;
        t->e = e;
        t->cap = cap;
    }
    snprintf(t->e[t->n].key, sizeof(t->e[t->n].key), "%s", key);
    t->e[t->n].value = value;
    t->n++;
    return 0;
}

/* 1 when any kind of mask's bits is wanted. */
static int wants_any(const struct sc_observer *o, unsigned mask)
{
    return !o->kinds || (o->kinds & mask);
}

static void report(struct sc_observer *o, const struct sc_event *ev)
{
    if (!wants_any(o, 1u << ev->kind))
        return;
    o->nevents++;
    if (o->fn)
        o->fn(ev, o->ud);
}

/* ---- alarms --------------------------------------------------------------------------- */

/* The index of name in o->al, or -(insertion point) - 1. */
static int seen_find(const struct sc_observer *o, const char *name)
{
    int lo = 0, hi = o->nal - 1;

    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(o->al[mid].name, name);

        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

/* Reports name's transition from what was seen to state, then remembers state. */
static void seen_alarm(struct sc_observer *o, const char *name, int state, int64_t time_ms,
                       const char *to, const char *reason)
{
    int at = seen_find(o, name);

    /* a new alarm starts INSUFFICIENT_DATA: its first transition is the story */
    if (at >= 0) {
        int was = o->al[at].state;

        if (was != state) {
            struct sc_event ev = { .kind = SC_EVENT_ALARM,
                                   .time_ms = time_ms,
                                   .alarm = name,
                                   .from = sc_alarm_state_name((enum sc_alarm_state)was),
                                   .to = to,
                                   .text = reason };

            report(o, &ev);
        }
        o->al[at].state = state;
        return;
    }
    at = -at - 1;
    if (o->nal == o->cap_al) {
        int cap = o->cap_al ? o->cap_al * 2 : 64;
        struct seen_alarm *v = realloc(o->al, (size_t)cap * sizeof(*v));

        if (!v) {
            o->alarm_oom = 1;
            return;
        }
        o->al = v;
        o->cap_al = cap;
    }
    char *copy = malloc(strlen(name) + 1);

    if (!copy) {
        o->alarm_oom = 1;
        return;
    }
    strcpy(copy, name);
    memmove(&o->al[at + 1], &o->al[at], (size_t)(o->nal - at) * sizeof(*o->al));
    o->al[at] = (struct seen_alarm){ copy, state };
    o->nal++;
}

static int visit_alarm(const struct sc_alarm_view *a, void *ud)
{
    seen_alarm(ud, a->alarm_name, (int)a->state, a->state_updated_timestamp_ms, a->state_value,
               a->state_reason);
    return 0;
}

/* Composite alarms share the alarms' name space, so they share the table too. */
static int visit_composite(const struct sc_composite_view *c, void *ud)
{
    seen_alarm(ud, c->alarm_name, (int)c->state, c->state_updated_timestamp_ms, c->state_value,
               c->state_reason);
    return 0;
}

/* Forgets the names neither of a's sorted lists holds any more (one merge walk). */
static void sweep_alarms(struct sc_observer *o, const struct sc_alarms *a)
{
    int i = 0, j = 0, keep = 0;
    const char *an = sc_alarms_name_at(a, 0), *cn = sc_alarms_composite_name_at(a, 0);

    for (int k = 0; k < o->nal; k++) {
        const char *name = o->al[k].name;

        while (an && strcmp(an, name) < 0)
            an = sc_alarms_name_at(a, ++i);
        while (cn && strcmp(cn, name) < 0)
            cn = sc_alarms_composite_name_at(a, ++j);
        if ((an && strcmp(an, name) == 0) || (cn && strcmp(cn, name) == 0))
            o->al[keep++] = o->al[k];
        else
            free(o->al[k].name);
    }
    o->nal = keep;
}

static void observe_alarms(struct sc_observer *o, struct sc_world *w)
{
    const struct sc_alarms *a = sc_cw_alarms(sc_world_cw(w));
    uint64_t seq = sc_alarms_change_seq(a), del = sc_alarms_delete_count(a);
    int all = a != o->alarms || seq < o->aseq || del < o->adel || o->alarm_oom;

    o->alarm_oom = 0;
    sc_alarms_visit_changed(a, all ? 0 : o->aseq, visit_alarm, visit_composite, o);
    if (all || del != o->adel)
        sweep_alarms(o, a);
    o->alarms = a;
    o->aseq = seq;
    o->adel = del;
}

/* ---- activities ----------------------------------------------------------------------- */

static void activity_event(struct sc_observer *o, const struct sc_asg_activity_info *a,
                           enum sc_event_kind kind)
{
    struct sc_event ev = { .kind = kind,
                           .time_ms = kind == SC_EVENT_ACTIVITY_START ? a->start_ms : a->end_ms,
                           .group = a->auto_scaling_group_name,
                           .activity_id = a->activity_id,
                           .description = a->description,
                           .text = a->cause,
                           .status = a->status_code,
                           .status_message = a->status_message };

    if (kind != SC_EVENT_ACTIVITY_START && strcmp(a->status_code, "Failed") == 0 &&
        a->description && strncmp(a->description, "Launching", 9) == 0)
        ev.kind = SC_EVENT_LAUNCH_FAILED;
    report(o, &ev);
}

/* ends 0: the starts (remembering each activity); 1: the ends */
static void observe_activities(struct sc_observer *o, struct sc_world *w, int ends)
{
    struct sc_asg *asg = sc_world_asg(w);

    for (int g = 0; g < sc_asg_group_count(asg); g++) {
        const char *name = sc_asg_group_at(asg, g)->auto_scaling_group_name;
        int n = sc_asg_activity_count(asg, name);

        /* oldest first: the story in the order it happened */
        for (int i = n - 1; i >= 0; i--) {
            const struct sc_asg_activity_info *a = sc_asg_activity_at(asg, name, i);
            char key[KEY_LEN];
            int done = a->end_ms != 0, was;

            snprintf(key, sizeof(key), "C%s", a->activity_id);
            was = prev_value(o, key);
            if (!ends) {
                if (was < 0)
                    activity_event(o, a, SC_EVENT_ACTIVITY_START);
                remember(o, key, done);
            } else if (done && was != 1) {
                activity_event(o, a, SC_EVENT_ACTIVITY_END);
            }
        }
    }
}

/* ---- instances ------------------------------------------------------------------------ */

static void observe_ec2(struct sc_observer *o, struct sc_world *w, int64_t now_ms)
{
    struct sc_ec2 *ec2 = sc_world_ec2(w);

    for (int i = 0; i < sc_ec2_instance_count(ec2); i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(ec2, i);
        char key[KEY_LEN];
        int was;

        snprintf(key, sizeof(key), "E%s", in->instance_id);
        was = prev_value(o, key);
        if (was < 0) {
            struct sc_event ev = { .kind = SC_EVENT_LAUNCH,
                                   .time_ms = in->launch_time_ms ? in->launch_time_ms : now_ms,
                                   .instance_id = in->instance_id,
                                   .zone = in->availability_zone,
                                   .group = sc_ec2_instance_tag(in, "aws:autoscaling:groupName"),
                                   .to = sc_ec2_state_name(in->state) };

            report(o, &ev);
        } else if (was != (int)in->state) {
            const char *why = in->state_reason_message;

            if (!why || !*why)
                why = in->state_transition_reason && *in->state_transition_reason
                          ? in->state_transition_reason
                          : NULL;
            struct sc_event ev = { .kind = SC_EVENT_INSTANCE,
                                   .time_ms = in->state_changed_ms ? in->state_changed_ms : now_ms,
                                   .instance_id = in->instance_id,
                                   .zone = in->availability_zone,
                                   .group = sc_ec2_instance_tag(in, "aws:autoscaling:groupName"),
                                   .from = sc_ec2_state_name((enum sc_ec2_state)was),
                                   .to = sc_ec2_state_name(in->state),
                                   .text = why };

            report(o, &ev);
        }
        remember(o, key, (int)in->state);
    }
}

static void observe_lifecycle(struct sc_observer *o, struct sc_world *w, int64_t now_ms)
{
    struct sc_asg *asg = sc_world_asg(w);

    for (int g = 0; g < sc_asg_group_count(asg); g++) {
        const struct sc_asg_group_info *gi = sc_asg_group_at(asg, g);

        for (int i = 0; i < sc_asg_group_instance_count(gi); i++) {
            const struct sc_asg_instance_info *in = sc_asg_group_instance_at(gi, i);
            char key[KEY_LEN];
            int was;

            snprintf(key, sizeof(key), "L%s", in->instance_id);
            was = prev_value(o, key);
            if (was != (int)in->lifecycle_state) {
                struct sc_event ev = {
                    .kind = SC_EVENT_LIFECYCLE,
                    .time_ms = now_ms,
                    .group = gi->auto_scaling_group_name,
                    .instance_id = in->instance_id,
                    .zone = in->availability_zone,
                    .from = was < 0 ? NULL : sc_asg_lifecycle_str((enum sc_asg_lifecycle)was),
                    .to = sc_asg_lifecycle_str(in->lifecycle_state)
                };

                report(o, &ev);
            }
            remember(o, key, (int)in->lifecycle_state);
        }
    }
}

/* ---- load balancer health -------------------------------------------------------------- */

static void observe_health(struct sc_observer *o, struct sc_world *w, int64_t now_ms)
{
    struct sc_elb *elb = sc_world_elb(w);

    for (int l = 0; l < sc_elb_lb_count(elb); l++) {
        const char *name = sc_elb_lb_at(elb, l)->load_balancer_name;
        int nt = sc_elb_target_count(elb, name), nout = 0;

        if (nt <= 0)
            continue;
        if (nt > o->cap_health) {
            struct sc_elb_instance_health *h = realloc(o->health, (size_t)nt * sizeof(*h));

            if (!h)
                continue;
            o->health = h;
            o->cap_health = nt;
        }
        if (sc_elb_describe_instance_health(elb, name, NULL, 0, o->health, &nout, NULL) != SC_OK)
            continue;
        for (int i = 0; i < nout; i++) {
            const struct sc_elb_instance_health *h = &o->health[i];
            char key[KEY_LEN];
            int was;

            snprintf(key, sizeof(key), "H%s/%s", name, h->instance_id);
            was = prev_value(o, key);
            if (was != (int)h->state) {
                struct sc_event ev = { .kind = SC_EVENT_HEALTH,
                                       .time_ms = now_ms,
                                       .load_balancer = name,
                                       .instance_id = h->instance_id,
                                       .from = was < 0 ? NULL
                                                       : sc_elb_state_name((enum sc_elb_state)was),
                                       .to = h->state_name,
                                       .text = h->description,
                                       .status = h->reason_code };

                report(o, &ev);
            }
            remember(o, key, (int)h->state);
        }
    }
}

/* ---- the decision log ----------------------------------------------------------------- */

static void observe_decisions(struct sc_observer *o, struct sc_world *w)
{
    const struct sc_decision_log *l = sc_asg_decisions(sc_world_asg(w));
    uint64_t last = sc_decision_log_last(l);

    for (uint64_t q = o->dseen + 1; q <= last; q++) {
        const struct sc_decision *d = sc_decision_log_get(l, q);

        if (!d)
            continue; /* overwritten before this call */
        struct sc_event ev = { .kind = SC_EVENT_DECISION,
                               .time_ms = d->time_ms,
                               .group = d->group,
                               .alarm = d->alarm[0] ? d->alarm : NULL,
                               .to = sc_decision_result(d),
                               .text = d->arithmetic,
                               .status = sc_decision_reason_name(d->reason),
                               .decision = d };

        report(o, &ev);
    }
    o->dseen = last;
}

static void observe_hooks(struct sc_observer *o, struct sc_world *w)
{
    const struct sc_decision_log *l = sc_asg_decisions(sc_world_asg(w));
    uint64_t last = sc_decision_log_last_hook(l);

    for (uint64_t q = o->hseen + 1; q <= last; q++) {
        const struct sc_hook_note *h = sc_decision_log_get_hook(l, q);

        if (!h)
            continue;
        struct sc_event ev = { .kind = SC_EVENT_HOOK,
                               .time_ms = h->time_ms,
                               .group = h->group,
                               .instance_id = h->instance_id,
                               .to = sc_hook_note_kind_name(h->kind),
                               .text = h->why,
                               .status = h->result,
                               .hook = h };

        report(o, &ev);
    }
    o->hseen = last;
}

static void observe_notifications(struct sc_observer *o, struct sc_world *w)
{
    const struct sc_asg *asg = sc_world_asg(w);
    uint64_t last = sc_asg_notification_last(asg);

    for (uint64_t q = o->nseen + 1; q <= last; q++) {
        const struct sc_asg_notification *n = sc_asg_notification_get(asg, q);

        if (!n)
            continue;
        struct sc_event ev = { .kind = SC_EVENT_NOTIFICATION,
                               .time_ms = n->time_ms,
                               .group = n->group,
                               .instance_id = n->instance_id,
                               .to = sc_asg_notify_type_str(n->type),
                               .text = n->message,
                               .notification = n };

        report(o, &ev);
    }
    o->nseen = last;
}

void sc_observer_set_kinds(struct sc_observer *o, unsigned mask)
{
    o->kinds = mask;
    o->alarms = NULL; /* alarms not looked at meanwhile: look at every one next time */
}

#define BIT(k) (1u << (k))

/* ---- the step ------------------------------------------------------------------------- */

static int observe(struct sc_observer *o, struct sc_world *w, int64_t now_ms, sc_event_fn fn,
                   void *ud)
{
    struct table t;

    o->fn = fn;
    o->ud = ud;
    o->nevents = 0;
    o->cur.n = 0;
    unsigned acts =
        BIT(SC_EVENT_ACTIVITY_START) | BIT(SC_EVENT_ACTIVITY_END) | BIT(SC_EVENT_LAUNCH_FAILED);

    if (wants_any(o, BIT(SC_EVENT_ALARM)))
        observe_alarms(o, w);
    if (wants_any(o, BIT(SC_EVENT_DECISION)))
        observe_decisions(o, w);
    if (wants_any(o, acts))
        observe_activities(o, w, 0);
    if (wants_any(o, BIT(SC_EVENT_LAUNCH) | BIT(SC_EVENT_INSTANCE)))
        observe_ec2(o, w, now_ms);
    if (wants_any(o, BIT(SC_EVENT_LIFECYCLE)))
        observe_lifecycle(o, w, now_ms);
    if (wants_any(o, BIT(SC_EVENT_HOOK)))
        observe_hooks(o, w);
    if (wants_any(o, BIT(SC_EVENT_HEALTH)))
        observe_health(o, w, now_ms);
    if (wants_any(o, acts))
        observe_activities(o, w, 1);
    if (wants_any(o, BIT(SC_EVENT_NOTIFICATION)))
        observe_notifications(o, w);
    if (o->cur.n > 1)
        qsort(o->cur.e, (size_t)o->cur.n, sizeof(*o->cur.e), entry_cmp);
    t = o->prev;
    o->prev = o->cur;
    o->cur = t;
    o->fn = NULL;
    o->ud = NULL;
    return o->nevents;
}

void sc_observer_sync(struct sc_observer *o, struct sc_world *w, int64_t now_ms)
{
    o->alarms = NULL; /* a loaded or reset world: look at every alarm */
    observe(o, w, now_ms, NULL, NULL);
}

int sc_observer_step(struct sc_observer *o, struct sc_world *w, int64_t now_ms, sc_event_fn fn,
                     void *ud)
{
    return observe(o, w, now_ms, fn, ud);
}
