/* scaler/sim/run_plane.c: the simulator's data plane (EC2, the model and the route sets kept
 * in step, the load balancers' health checks), its faults, and the world's events (activities,
 * alarm changes) pushed to the timeline. */
#include "scaler/sim/run.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/asg.h"
#include "scaler/asg_hook.h"
#include "scaler/asg_notify.h"
#include "scaler/asg_predict.h"
#include "scaler/civil.h"
#include "scaler/cloudwatch.h"
#include "scaler/decision.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "scaler/hash.h"
#include "scaler/observe.h"
#include "scaler/sim/run_internal.h"

#define GROUP_TAG "aws:autoscaling:groupName"

/* ---- the data plane ---- */

static struct slot_state *slot_grow(struct eng *e, int slot);

static inline struct slot_state *slot_of(struct eng *e, int slot)
{
    return slot < e->nslots ? &e->slots[slot] : slot_grow(e, slot);
}

static struct slot_state *slot_grow(struct eng *e, int slot)
{
    if (slot >= e->nslots) {
        int n = slot + 16;
        e->slots = cm_xrealloc(e->slots, (size_t)n * sizeof(*e->slots));
        memset(e->slots + e->nslots, 0, (size_t)(n - e->nslots) * sizeof(*e->slots));
        e->nslots = n;
    }
    return &e->slots[slot];
}

static void push_fault_event(struct eng *e, const char *cause, const char *group, const char *desc)
{
    struct sim_event ev = { 0 };

    ev.kind = SIM_EVENT_FAULT;
    ev.t_ms = ev.end_ms = e->now_ms;
    ev.group = group;
    ev.cause = cause;
    ev.description = desc;
    ev.status = "";
    sim_timeline_push_event(e->tl, &ev);
}

static uint64_t world_signature(struct eng *e);

/* Makes the model match EC2. Returns 1 when it reported something to the world. Nothing
 * to do while EC2 is as the last call left it and the model did not change. */
int sync_instances(struct eng *e)
{
    int n = sc_ec2_instance_count(e->ec2), reported = 0;
    int64_t now_us = us(e->now_ms);

    if (!e->sync_force && world_signature(e) == e->sync_sig)
        return 0;
    e->sync_force = 0;

    for (int i = 0; i < n; i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(e->ec2, i);
        int slot;
        if (in->state == SC_EC2_TERMINATED || in->state == SC_EC2_STOPPED) {
            slot = sim_model_instance_find(e->model, in->instance_id);
            if (slot >= 0)
                sim_model_instance_stop(e->model, slot, now_us);
            continue;
        }
        slot = sim_model_instance_find(e->model, in->instance_id);
        if (in->state == SC_EC2_PENDING && slot < 0) {
            const char *gname = sc_ec2_instance_tag(in, GROUP_TAG);
            int g = gname ? sim_scenario_group_index(e->sc, gname) : -1;
            const struct sc_app *app = g >= 0 ? e->groups[g].app : &e->sc->lcs[0].app;

            /* a start of a stopped instance (a warm pool's warm start) skips the boot */
            double boot_s = g >= 0 && sc_ec2_instance_restarting(in) ? 0 : app->boot_s;
            struct slot_state *ss;
            slot = sim_model_instance_start_boot(e->model, in->instance_id, g, app,
                                                 in->availability_zone, now_us, boot_s);
            ss = slot_of(e, slot);
            memset(ss, 0, sizeof(*ss));
            snprintf(ss->id, sizeof(ss->id), "%s", in->instance_id);
            ss->group = g;
        }
        if (slot < 0 && in->state == SC_EC2_SHUTTING_DOWN) {
            /* terminated while stopped (a warm pool's instance): no process to stop */
            sc_ec2_instance_terminated(e->ec2, in->instance_id, e->now_ms);
            reported = 1;
            n = sc_ec2_instance_count(e->ec2);
            i = -1;
            continue;
        }
        if (slot < 0)
            continue;
        if ((in->state == SC_EC2_SHUTTING_DOWN || in->state == SC_EC2_STOPPING)) {
            sim_model_instance_stop(e->model, slot, now_us);
            if (in->state == SC_EC2_SHUTTING_DOWN)
                sc_ec2_instance_terminated(e->ec2, in->instance_id, e->now_ms);
            else
                sc_ec2_instance_stopped(e->ec2, in->instance_id, e->now_ms);
            reported = 1;
            /* the records may have moved: restart the scan */
            n = sc_ec2_instance_count(e->ec2);
            i = -1;
            continue;
        }
        if (in->state == SC_EC2_PENDING && sim_model_instance_up(e->model, slot) &&
            !sim_model_instance_dead(e->model, slot)) {
            struct slot_state *ss = slot_of(e, slot);
            if (!ss->running_reported) {
                ss->running_reported = 1;
                sc_ec2_instance_running(e->ec2, in->instance_id, e->now_ms);
                reported = 1;
            }
        }
    }
    if (reported)
        e->epoch++;
    e->sync_sig = world_signature(e);
    return reported;
}

/* The model's CPU table, with e->slots covering every slot in it. */
int cpu_table(struct eng *e, const struct sim_slot_cpu **tab)
{
    int n = sim_model_cpu_table(e->model, tab);

    if (n > 0)
        slot_of(e, n - 1);
    return n;
}

/* A cheap summary of what changes routing: EC2 instances and their states, and each
 * load balancer's registrations. Equal signatures mean the route sets are unchanged
 * unless a health result moved an instance in or out of service (routes_dirty). */
static uint64_t world_signature(struct eng *e)
{
    uint64_t h = SC_HASH_FNV1A_BASIS;
    uint64_t gen = sc_ec2_generation(e->ec2);

    if (e->sig_epoch == e->epoch + 1)
        return e->sig_value;

    if (e->sig_ec2_gen == gen) {
        h = e->sig_ec2_value;
    } else {
        int n = sc_ec2_instance_count(e->ec2);

        h = sc_hash_mix(h, (uint64_t)n);
        for (int i = 0; i < n; i++) {
            const struct sc_ec2_instance *in = sc_ec2_instance_at(e->ec2, i);
            h = sc_hash_mix(h, (uint64_t)(uintptr_t)in);
            h = sc_hash_mix(h, (uint64_t)in->state);
            h = sc_hash_mix(h, (uint64_t)in->instance_status);
        }
        e->sig_ec2_gen = gen;
        e->sig_ec2_value = h;
    }
    for (int lb = 0; lb < e->sc->nlbs; lb++)
        h = sc_hash_mix(h, (uint64_t)(uint32_t)sc_elb_target_count(e->elb, e->sc->lbs[lb].name));
    e->sig_epoch = e->epoch + 1;
    e->sig_value = h;
    return h;
}

void sync_routes(struct eng *e)
{
    uint64_t sig = world_signature(e);

    /* target groups: registrations, draining and health change the route sets without
     * a mark here, so they are read every time (unchanged ones cost no model change) */
    if (e->sc->ntgs)
        alb_sync_routes(e);

    if (!e->routes_dirty && sig == e->world_sig)
        return;
    e->world_sig = sig;
    e->routes_dirty = 0;
    for (int lb = 0; lb < e->sc->nlbs; lb++) {
        struct lb_state *ls = &e->lbs[lb];
        const char *name = e->sc->lbs[lb].name;
        const struct sc_elb_lb *v = sc_elb_lb_find(e->elb, name);
        int all = sc_elb_route_set(e->elb, name, NULL, NULL, 0), k = 0;

        if (all > ls->cap) {
            ls->cap = all * 2;
            ls->ids = cm_xrealloc(ls->ids, (size_t)ls->cap * sizeof(*ls->ids));
            ls->slots = cm_xrealloc(ls->slots, (size_t)ls->cap * sizeof(*ls->slots));
            ls->zones = cm_xrealloc(ls->zones, (size_t)ls->cap * sizeof(*ls->zones));
        }
        if (!v || v->attributes.cross_zone_enabled || v->nzones <= 1) {
            int n = sc_elb_route_set(e->elb, name, NULL, ls->ids, ls->cap);
            for (int i = 0; i < n && i < ls->cap; i++) {
                int slot = sim_model_instance_find(e->model, ls->ids[i]);
                if (slot >= 0)
                    ls->slots[k++] = slot;
            }
            sim_model_set_routes(e->model, lb, ls->slots, k);
            continue;
        }
        /* cross-zone off: each enabled zone's node routes to its zone's instances */
        for (int z = 0; z < v->nzones; z++) {
            int base = k;
            int n = sc_elb_route_set(e->elb, name, v->availability_zones[z], ls->ids + base,
                                     ls->cap - base);
            for (int i = 0; i < n && base + i < ls->cap; i++) {
                int slot = sim_model_instance_find(e->model, ls->ids[base + i]);
                if (slot >= 0) {
                    ls->slots[k] = slot;
                    ls->zones[k++] = z;
                }
            }
        }
        sim_model_set_zone_routes(e->model, lb, ls->slots, ls->zones, k, v->nzones);
    }
}

/* 1 when every live, running instance would pass lb's check as it did last time. */
static int health_unchanged(struct eng *e, int lb)
{
    struct lb_state *ls = &e->lbs[lb];

    for (int slot = 0; slot < sim_model_slot_count(e->model); slot++) {
        struct slot_state *ss;
        if (!sim_model_slot_live(e->model, slot) || !sim_model_instance_up(e->model, slot))
            continue;
        ss = slot_of(e, slot);
        if (!ss->hc_ok_streak ||
            !(ls->port_ok && sim_model_instance_health(e->model, slot, ls->http)))
            return 0;
    }
    return 1;
}

/* One round of lb's health checks. Returns 1 when it reported a result to the library. */
int health_checks(struct eng *e, int lb)
{
    struct lb_state *ls = &e->lbs[lb];
    const char *name = e->sc->lbs[lb].name;
    uint64_t sig = world_signature(e);
    int n, all_good = 1, reported = 0;

    /* nothing changed since a round where every target was InService and passing: each
     * result would be a skipped pass again */
    if (ls->hc_all_good && sig == ls->hc_sig) {
        uint64_t mv = sim_model_health_version(e->model) + 1;
        if (ls->hu_model == mv && ls->hu_streak == e->streak_ver)
            return 0;
        if (health_unchanged(e, lb)) {
            ls->hu_model = mv;
            ls->hu_streak = e->streak_ver;
            return 0;
        }
    }
    n = sc_elb_target_count(e->elb, name);
    for (int i = 0; i < n; i++) {
        struct sc_elb_target t;
        struct slot_state *ss;
        int slot, ok, now_in;
        if (sc_elb_target_at(e->elb, name, i, &t) != 0) {
            all_good = 0;
            continue;
        }
        if (!t.checked) {
            all_good = 0;
            continue;
        }
        slot = sim_model_instance_find(e->model, t.instance_id);
        ok = slot >= 0 && ls->port_ok && sim_model_instance_health(e->model, slot, ls->http);
        ss = slot >= 0 ? slot_of(e, slot) : NULL;
        /* a pass for an instance InService after a pass changes nothing: skip the call */
        if (ok && ss && ss->hc_ok_streak && t.state == SC_ELB_IN_SERVICE)
            continue;
        now_in = sc_elb_health_result(e->elb, name, t.instance_id, ok, e->now_ms);
        reported = 1;
        e->epoch++;
        if ((now_in == 1) != (t.state == SC_ELB_IN_SERVICE))
            e->routes_dirty = 1;
        all_good = 0;
        if (ss && ss->hc_ok_streak != ok) {
            ss->hc_ok_streak = ok;
            e->streak_ver++;
        }
    }
    ls->hc_all_good = all_good;
    ls->hc_sig = world_signature(e);
    return reported;
}

/* ---- faults ---- */

static int fault_targets(struct eng *e, const struct sim_fault *f, int *slots, int max)
{
    int n = 0, count = sc_ec2_instance_count(e->ec2);

    for (int i = 0; i < count && n < max; i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(e->ec2, i);
        const char *g;
        int slot;
        if (in->state != SC_EC2_RUNNING)
            continue;
        if (f->kind == SIM_FAULT_AZ_OUTAGE) {
            if (strcmp(in->availability_zone, f->zone) != 0)
                continue;
        } else {
            g = sc_ec2_instance_tag(in, GROUP_TAG);
            if (!g || strcmp(g, f->group) != 0)
                continue;
        }
        slot = sim_model_instance_find(e->model, in->instance_id);
        if (slot < 0 || sim_model_instance_dead(e->model, slot) ||
            (f->kind != SIM_FAULT_KILL && f->kind != SIM_FAULT_AZ_OUTAGE &&
             sim_model_instance_hung(e->model, slot)))
            continue;
        slots[n++] = slot;
    }
    return n;
}

void fault_start(struct eng *e, struct fault_track *ft)
{
    const struct sim_fault *f = ft->f;
    int slots[64], n, max = f->kind == SIM_FAULT_AZ_OUTAGE ? 64 : (f->count < 64 ? f->count : 64);
    int64_t until_us = f->for_ms > 0 ? us(e->now_ms + f->for_ms) : 0;
    char desc[SIM_EVENT_TEXT_MAX];
    size_t len = 0;
    static const char *const causes[] = { "kill", "hang", "slow", "az-outage" };

    ft->started = 1;
    e->routes_dirty = 1;
    e->epoch++;
    e->sync_force = 1;
    if (f->kind == SIM_FAULT_AZ_OUTAGE) {
        /* libscaler's rule (the emulator's too): pending and running instances die */
        const char *dead[64];
        int nd = sc_ec2_zone_outage(e->ec2, f->zone, e->now_ms, dead, max);

        n = 0;
        for (int i = 0; i < nd && i < max; i++) {
            int slot = sim_model_instance_find(e->model, dead[i]);
            if (slot >= 0 && !sim_model_instance_dead(e->model, slot))
                slots[n++] = slot;
        }
    } else {
        n = fault_targets(e, f, slots, max);
    }
    desc[0] = '\0';
    for (int i = 0; i < n; i++) {
        const char *id = sim_model_instance_id(e->model, slots[i]);
        switch (f->kind) {
        case SIM_FAULT_KILL:
        case SIM_FAULT_AZ_OUTAGE:
            sim_model_instance_kill(e->model, slots[i], us(e->now_ms));
            sc_ec2_instance_lost(e->ec2, id, e->now_ms); /* a no-op after the outage */
            break;
        case SIM_FAULT_HANG:
            sim_model_instance_hang(e->model, slots[i], us(e->now_ms), until_us);
            sc_ec2_instance_set_impaired(e->ec2, id, 1, e->now_ms);
            break;
        case SIM_FAULT_SLOW:
            sim_model_instance_slow(e->model, slots[i], f->factor, us(e->now_ms), until_us);
            break;
        }
        if (ft->nids < 64)
            snprintf(ft->ids[ft->nids++], sizeof(ft->ids[0]), "%s", id);
        len += (size_t)snprintf(desc + len, len < sizeof(desc) ? sizeof(desc) - len : 0, "%s%s",
                                i ? " " : "", id);
        if (len >= sizeof(desc))
            len = sizeof(desc) - 1;
    }
    if (n == 0)
        snprintf(desc, sizeof(desc), "no running instance to act on");
    push_fault_event(e, causes[f->kind], f->group, desc);
}

void fault_end(struct eng *e, struct fault_track *ft)
{
    const struct sim_fault *f = ft->f;

    ft->ended = 1;
    e->routes_dirty = 1;
    e->epoch++;
    e->sync_force = 1;
    if (f->kind == SIM_FAULT_AZ_OUTAGE) {
        sc_ec2_zone_set_available(e->ec2, f->zone, 1);
        push_fault_event(e, "az-outage-end", NULL, f->zone);
        return;
    }
    for (int i = 0; i < ft->nids; i++) {
        int slot = sim_model_instance_find(e->model, ft->ids[i]);
        if (slot >= 0 && f->kind == SIM_FAULT_HANG) {
            /* the model lifts the hang itself at until; EC2 status recovers with it */
            sc_ec2_instance_set_impaired(e->ec2, ft->ids[i], 0, e->now_ms);
        }
    }
    push_fault_event(e, f->kind == SIM_FAULT_HANG ? "hang-end" : "slow-end", f->group, "");
}

/* ---- lifecycle-hook handlers ---- */

static const struct sim_hook *hook_of(const struct sim_group *g, const char *name)
{
    for (int k = 0; k < g->nhooks; k++)
        if (strcmp(g->hooks[k].name, name) == 0)
            return &g->hooks[k];
    return NULL;
}

int hook_handlers(struct eng *e)
{
    int done = 0;

    e->hook_next_ms = INT64_MAX;
    for (int gi = 0; gi < e->sc->ngroups; gi++) {
        const struct sim_group *g = &e->sc->groups[gi];

        for (int i = 0; g->nhooks > 0 && i < sc_asg_lifecycle_action_count(e->asg, g->name);) {
            struct sc_asg_action_info a;
            const struct sim_hook *h;
            struct sc_error err = { 0 };
            int64_t due;

            if (sc_asg_lifecycle_action_at(e->asg, g->name, i, &a) != 0)
                break;
            h = hook_of(g, a.lifecycle_hook_name);
            if (!h || !h->has_handler) {
                i++;
                continue;
            }
            due = a.start_ms + h->handler_after_ms;
            if (due > e->now_ms) {
                if (due < e->hook_next_ms)
                    e->hook_next_ms = due;
                i++;
                continue;
            }
            /* the action leaves the list (or, abandoned, every action of its instance) */
            if (sc_asg_complete_lifecycle_action(e->asg, g->name, h->name, a.token, NULL,
                                                 h->handler_result, e->now_ms, &err) != SC_OK)
                i++;
            else
                done++;
        }
    }
    return done;
}

/* ---- events from the world ---- */

void push_activities(struct eng *e)
{
    uint64_t v = sc_asg_activity_version(e->asg) + 1;

    if (v == e->acts_seen)
        return; /* no activity was created, finished or dropped since the last call */
    e->acts_seen = v;
    for (int g = 0; g < e->sc->ngroups; g++) {
        const char *name = e->sc->groups[g].name;
        int n = sc_asg_activity_count(e->asg, name), first_done = -1, stop = -1;
        if (n <= 0)
            continue;
        for (int i = 0; i < n; i++) {
            const struct sc_asg_activity_info *a = sc_asg_activity_at(e->asg, name, i);
            if (a->end_ms == 0)
                continue;
            if (first_done < 0)
                first_done = i;
            if (strcmp(a->activity_id, e->groups[g].newest_done) == 0) {
                stop = i;
                break;
            }
        }
        if (first_done < 0)
            continue;
        if (stop < 0)
            stop = n;
        /* oldest first */
        for (int i = stop - 1; i >= first_done; i--) {
            const struct sc_asg_activity_info *a = sc_asg_activity_at(e->asg, name, i);
            struct sim_event ev = { 0 };
            if (a->end_ms == 0)
                continue;
            ev.kind = SIM_EVENT_ACTIVITY;
            ev.t_ms = a->start_ms;
            ev.end_ms = a->end_ms;
            ev.group = name;
            ev.cause = a->cause ? a->cause : "";
            ev.description = a->description ? a->description : "";
            ev.status = a->status_code ? a->status_code : "";
            sim_timeline_push_event(e->tl, &ev);
        }
        snprintf(e->groups[g].newest_done, sizeof(e->groups[g].newest_done), "%s",
                 sc_asg_activity_at(e->asg, name, first_done)->activity_id);
    }
}

void push_forecasts(struct eng *e)
{
    for (int i = 0; i < e->sc->npolicies && i < 256; i++) {
        const struct sim_policy *pl = &e->sc->policies[i];
        const struct sc_asg_policy_info *pi;
        const struct sc_asg_predictive_info *p;
        char cause[96], made[32], from[32], desc[SIM_EVENT_TEXT_MAX];
        struct sim_event ev = { 0 };
        size_t k = 0;

        if (pl->type != SIM_POLICY_PREDICTIVE)
            continue;
        pi = sc_asg_policy_find(e->asg, pl->group, pl->name);
        p = pi ? pi->predictive : NULL;
        if (!p || !p->has_forecast || p->update_ms == e->forecast_seen[i])
            continue;
        e->forecast_seen[i] = p->update_ms;
        sc_civil_format_iso(p->update_ms, made, sizeof(made));
        sc_civil_format_iso(p->start_ms, from, sizeof(from));
        snprintf(cause, sizeof(cause), "made at %s for the 48 hours from %s", made, from);
        k = (size_t)snprintf(desc, sizeof(desc), "capacity by hour:");
        for (int h = 0; h < SC_PREDICT_FORECAST_HOURS && k < sizeof(desc); h++)
            k += (size_t)snprintf(desc + k, sizeof(desc) - k, " %g", p->capacity[h]);
        ev.kind = SIM_EVENT_FORECAST;
        ev.t_ms = ev.end_ms = p->update_ms;
        ev.group = pl->group;
        ev.name = pl->name;
        ev.cause = cause;
        ev.description = desc;
        ev.status = sc_predict_mode_str(p->forecast_and_scale);
        sim_timeline_push_event(e->tl, &ev);
    }
}

/* Activities still in progress when the run ends. */
void push_unfinished(struct eng *e)
{
    for (int g = 0; g < e->sc->ngroups; g++) {
        const char *name = e->sc->groups[g].name;
        int n = sc_asg_activity_count(e->asg, name);
        for (int i = n - 1; i >= 0; i--) {
            const struct sc_asg_activity_info *a = sc_asg_activity_at(e->asg, name, i);
            struct sim_event ev = { 0 };
            if (a->end_ms != 0)
                continue;
            ev.kind = SIM_EVENT_ACTIVITY;
            ev.t_ms = a->start_ms;
            ev.group = name;
            ev.cause = a->cause ? a->cause : "";
            ev.description = a->description ? a->description : "";
            ev.status = a->status_code ? a->status_code : "";
            sim_timeline_push_event(e->tl, &ev);
        }
    }
}

enum sim_alarm_state to_sim_state(enum sc_alarm_state s)
{
    return s == SC_ALARM_OK      ? SIM_ALARM_OK
           : s == SC_ALARM_ALARM ? SIM_ALARM_ALARM
                                 : SIM_ALARM_INSUFFICIENT_DATA;
}

/* A composite's Action history items not yet pushed, oldest first. */
struct action_scan {
    struct eng *e;
    struct alarm_track *t;
    int at_last; /* items seen so far at t->action_ms */
};

static int push_action_item(const struct sc_alarm_history_view *h, void *ud)
{
    struct action_scan *s = ud;
    struct alarm_track *t = s->t;
    struct sim_event ev = { 0 };

    if (h->timestamp_ms < t->action_ms)
        return 0;
    if (h->timestamp_ms == t->action_ms && s->at_last++ < t->action_seen)
        return 0;
    if (h->timestamp_ms > t->action_ms) {
        t->action_ms = h->timestamp_ms;
        t->action_seen = 0;
        s->at_last = 1;
    }
    t->action_seen++;
    /* an Auto Scaling action of a composite never runs the policy (AWS): the failed item
     * libscaler logs is the timeline's note, so nothing scales silently */
    ev.kind = SIM_EVENT_ALARM;
    ev.t_ms = ev.end_ms = h->timestamp_ms;
    ev.name = t->name;
    ev.cause = h->history_summary ? h->history_summary : "";
    ev.description = h->history_summary ? h->history_summary : "";
    ev.status = "Action";
    sim_timeline_push_event(s->e->tl, &ev);
    return 0;
}

static void push_composite_actions(struct eng *e, struct alarm_track *t)
{
    struct sc_describe_alarm_history_req req = { 0 };
    struct action_scan s = { e, t, 0 };
    struct sc_error err = { 0 };

    req.alarm_name = t->name;
    req.history_item_type = "Action";
    req.scan_by = "TimestampAscending";
    if (t->action_ms != INT64_MIN) {
        req.has_start_date = 1;
        req.start_date_ms = t->action_ms;
    }
    sc_cw_describe_alarm_history(e->cw, &req, e->now_ms, push_action_item, &s, &err);
}

void push_alarm_changes(struct eng *e)
{
    for (int i = 0; i < e->nalarms; i++) {
        struct alarm_track *t = &e->alarms[i];
        const struct sc_alarm_view *v = NULL;
        const struct sc_composite_view *cv = NULL;
        enum sc_alarm_state state;
        const char *reason;
        char cause[64];
        struct sim_event ev = { 0 };

        if (t->composite) {
            cv = sc_alarms_composite_find(sc_cw_alarms(e->cw), t->name);
            state = cv ? cv->state : t->last;
            reason = cv ? cv->state_reason : NULL;
        } else {
            v = sc_cw_alarm_find(e->cw, t->name);
            state = v ? v->state : t->last;
            reason = v ? v->state_reason : NULL;
        }
        if (state != t->last) {
            snprintf(cause, sizeof(cause), "%s -> %s", sc_alarm_state_name(t->last),
                     sc_alarm_state_name(state));
            t->last = state;
            ev.kind = SIM_EVENT_ALARM;
            ev.t_ms = ev.end_ms = e->now_ms;
            ev.name = t->name;
            ev.cause = cause;
            ev.description = reason ? reason : "";
            ev.status = sc_alarm_state_name(state);
            sim_timeline_push_event(e->tl, &ev);
            t->action_watch = 3;
        }
        if (cv && cv->actions_suppressed_by)
            t->action_watch = 3;
        if (cv && t->action_watch > 0) {
            push_composite_actions(e, t);
            t->action_watch--;
        }
    }
}

static void on_world_event(const struct sc_event *ev, void *ud)
{
    struct eng *e = ud;
    char line[SIM_EVENT_TEXT_MAX];
    struct sim_event se = { 0 };

    if (ev->kind == SC_EVENT_DECISION && ev->decision) {
        sim_event_from_decision(&se, ev->decision, line, sizeof(line));
    } else if (ev->kind == SC_EVENT_HOOK && ev->hook) {
        sim_event_from_hook(&se, ev->hook, line, sizeof(line));
    } else if (ev->kind == SC_EVENT_NOTIFICATION && ev->notification) {
        const struct sc_asg_notification *n = ev->notification;

        se.t_ms = se.end_ms = ev->time_ms;
        se.group = ev->group;
        se.kind = SIM_EVENT_NOTIFICATION;
        se.name = sc_asg_notify_type_str(n->type);
        se.cause = n->subject;
        se.status = n->topic_arn;
        se.description = n->message;
    } else {
        return;
    }
    sim_timeline_push_event(e->tl, &se);
}

void push_decisions(struct eng *e)
{
    if (e->obs)
        sc_observer_step(e->obs, e->w, e->now_ms, on_world_event, e);
}
