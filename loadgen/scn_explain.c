/* loadgen/scn_explain.c: `loadgen scenario --explain`: the emulator's `decision` and `hook`
 * events for the scenario's groups on the observed timeline, as `scaler simulate --explain`
 * puts its own (docs/decisions.md, docs/loadgen.md). The records are read back with
 * libscaler's sc_decision_from_json / sc_hook_note_from_json and turned into timeline
 * events by libsim's sim_event_from_decision / sim_event_from_hook, so the terminal lines,
 * --json members and report rows come from the simulator's own code. */
#include <stdio.h>
#include <string.h>

#include "loadgen/scn_events.h"
#include "loadgen/scn_internal.h"
#include "scaler/decision.h"
#include "scaler/decision_json.h"
#include "scaler/sim/timeline.h"

/* Removes the run's "PREFIX-" from s in place (at the start, or inside an AWS-made name
 * such as TargetTracking-PREFIX-web-AlarmHigh-...), as the timeline shows the scenario's
 * names. */
static void unprefix(const struct run *r, char *s)
{
    char pre[128];
    char *at;
    size_t k;

    snprintf(pre, sizeof(pre), "%s-", r->prefix);
    at = strstr(s, pre);
    if (!at)
        return;
    k = strlen(pre);
    memmove(at, at + k, strlen(at + k) + 1);
}

/* The scenario time of an event at emulated ms t, or -1 when it falls outside the run
 * (an earlier run's group of the same --prefix, or past the end, where the simulator
 * stops). */
static int64_t run_time(const struct run *r, int64_t t)
{
    if (t < r->emu_t0 || t > r->emu_t0 + r->sc->duration_ms)
        return -1;
    return scn_at(r, t);
}

static void on_stream_event(const json_t *o, void *ud)
{
    struct run *r = ud;
    const char *type = json_string_value(json_object_get(o, "type"));
    char line[SIM_EVENT_TEXT_MAX];
    struct sim_event se;

    if (type && strcmp(type, "decision") == 0) {
        struct sc_decision d;

        if (sc_decision_from_json(o, &d) != 0) {
            r->explain_bad++;
            return;
        }
        d.time_ms = run_time(r, d.time_ms);
        if (d.time_ms < 0)
            return;
        unprefix(r, d.group);
        unprefix(r, d.alarm);
        unprefix(r, d.policy);
        sim_event_from_decision(&se, &d, line, sizeof(line));
        r->explain_decisions++;
        sim_timeline_push_event(r->tl, &se);
    } else if (type && strcmp(type, "hook") == 0) {
        struct sc_hook_note h;

        if (sc_hook_note_from_json(o, &h) != 0) {
            r->explain_bad++;
            return;
        }
        h.time_ms = run_time(r, h.time_ms);
        if (h.time_ms < 0)
            return;
        unprefix(r, h.group);
        sim_event_from_hook(&se, &h, line, sizeof(line));
        r->explain_hooks++;
        sim_timeline_push_event(r->tl, &se);
    }
}

int scn_explain_start(struct run *r, FILE *out)
{
    const char *names[SIM_TIMELINE_MAX_GROUPS];
    char buf[SIM_TIMELINE_MAX_GROUPS][200];
    char err[256];
    int n = 0;

    if (!r->o->explain)
        return 0;
    if (!r->is_emulator) {
        /* said once, in the output: the timeline below has no decision lines */
        fprintf(out,
                "--explain: %s has no stream of policy decisions (a scalelab emulator's "
                "/_scalelab/events); this run shows activities and alarms only\n",
                r->o->aws ? "AWS" : r->base);
        return 0;
    }
    for (int g = 0; g < r->sc->ngroups && n < SIM_TIMELINE_MAX_GROUPS; g++) {
        snprintf(buf[n], sizeof(buf[n]), "%s-%s", r->prefix, r->sc->groups[g].name);
        names[n] = buf[n];
        n++;
    }
    r->events = scn_events_start(r->base, names, n, err, sizeof(err));
    if (!r->events) {
        scn_fail_msg("--explain: %s", err);
        return -1;
    }
    return 0;
}

void scn_explain_drain(struct run *r)
{
    if (r->events && r->tl)
        scn_events_drain(r->events, on_stream_event, r);
}

void scn_explain_finish(struct run *r, FILE *out)
{
    struct scn_events_stats st;

    if (!r->events)
        return;
    scn_explain_drain(r);
    scn_events_stats(r->events, &st);
    scn_events_stop(r->events);
    r->events = NULL;
    r->explain_missed = st.missed + st.dropped;
    fprintf(out,
            "explain: %d decision(s) and %d lifecycle-hook note(s) from the emulator's event "
            "stream (%llu events read, %d reconnect(s))\n",
            r->explain_decisions, r->explain_hooks, (unsigned long long)st.received, st.reconnects);
    if (st.missed || st.dropped)
        scn_fail_msg("--explain: %llu event(s) missed (the emulator's log moved on before the "
                     "stream was read again) and %llu dropped (queue of %d full, or too large): "
                     "the timeline lacks them",
                     (unsigned long long)st.missed, (unsigned long long)st.dropped,
                     SCN_EVENTS_QUEUE_MAX);
    if (st.error[0] && st.received == 0)
        scn_fail_msg("--explain: the emulator's event stream (%s/_scalelab/events) failed: %s%s",
                     r->base, st.error,
                     strstr(st.error, "403") ? " (an emulator under --auth sigv4 wants the "
                                               "admin API signed: set AWS_ACCESS_KEY_ID and "
                                               "AWS_SECRET_ACCESS_KEY, docs/auth.md)"
                                             : "");
    else if (st.error[0])
        scn_fail_msg("--explain: the event stream broke off (%s) and was reopened", st.error);
    if (r->explain_bad)
        scn_fail_msg("--explain: %d event(s) not read as decisions or hook notes", r->explain_bad);
}

void scn_explain_stop(struct run *r)
{
    scn_events_stop(r->events);
    r->events = NULL;
}
