/* loadgen/scn_asg.c: the scenario's Auto Scaling story played over time on the endpoint:
 * the plan's timed calls (an instance refresh at its time) and the lifecycle-hook
 * handlers (CompleteLifecycleAction after each handler's delay), as the simulator plays
 * them (scaler/sim/run.c, run_plane.c); see scn_internal.h. */
#include "loadgen/scn_run.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <libxml/tree.h>

#include "common/xalloc.h"
#include "loadgen/awsapi.h"
#include "loadgen/scenario.h"
#include "loadgen/scn_internal.h"
#include "loadgen/scn_reply.h"
#include "scaler/asg_launch.h"

static const char *param_get(const struct aws_params *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->v[i].name, name) == 0)
            return p->v[i].value;
    return "";
}

/* ---- timed calls ---- */

/* A launch_instances call: LaunchInstances, its reply or refusal on the timeline as the
 * simulator puts it (sim_event_from_launch), at the call's scenario time. */
static void launch_call(struct run *r, const struct scn_call *c)
{
    const struct sim_group *g = &r->sc->groups[c->launch_gi];
    struct sc_asg_launch_info rep;
    struct aws_error err;
    struct sim_event ev;
    xmlDoc *doc = NULL;
    char cause[256], line[SIM_EVENT_TEXT_MAX];
    int rc;

    memset(&err, 0, sizeof(err));
    rc = scn_aws_call(r, c->svc, c->action, &c->params, &doc, &err);
    scn_reply_launch(rc == 0 ? doc : NULL, &rep);
    sim_event_from_launch(&ev, r->sc->start_ms + c->at_ms, g->name, &g->launches[c->launch - 1],
                          param_get(&c->params, "ClientToken"), rc == 0 ? &rep : NULL,
                          err.code[0] ? err.code : "error", err.message, cause, sizeof(cause), line,
                          sizeof(line));
    sim_timeline_push_event(r->tl, &ev);
    scn_reply_launch_free(&rep);
    xmlFreeDoc(doc);
}

/* A refusal is reported and skips the rest of the group's calls at that time (no refresh
 * after a refused switch of launch configuration), as the simulator warns and goes on. A
 * LaunchInstances refusal is the timeline's, as the simulator's, and skips nothing. */
static void timed_calls(struct run *r, int64_t t)
{
    int64_t failed_at = -1;
    const char *failed_group = "";

    while (r->ntimed_done < r->plan.ntimed && r->plan.timed[r->ntimed_done].at_ms <= t) {
        const struct scn_call *c = &r->plan.timed[r->ntimed_done++];
        const char *group = param_get(&c->params, "AutoScalingGroupName");
        struct aws_error err;

        if (c->launch) {
            launch_call(r, c);
            continue;
        }
        if (c->at_ms == failed_at && strcmp(group, failed_group) == 0)
            continue;
        if (scn_aws_call(r, c->svc, c->action, &c->params, NULL, &err) != 0) {
            scn_fail_msg("%s %s at %llds refused: %s: %s", c->action, group,
                         (long long)(c->at_ms / 1000), err.code[0] ? err.code : "error",
                         err.message);
            failed_at = c->at_ms;
            failed_group = group;
        }
    }
}

/* ---- lifecycle-hook handlers ---- */

static int group_has_handlers(const struct sim_group *g)
{
    for (int k = 0; k < g->nhooks && k < 32; k++)
        if (g->hooks[k].has_handler)
            return 1;
    return 0;
}

static struct hook_wait *wait_find(struct run *r, int gi, const char *id, int launching)
{
    for (int i = 0; i < r->nwaits; i++)
        if (r->waits[i].gi == gi && r->waits[i].launching == launching &&
            strcmp(r->waits[i].id, id) == 0)
            return &r->waits[i];
    return NULL;
}

static int was_member(const struct run *r, int gi, const char *id)
{
    for (int i = 0; i < r->nmembers; i++)
        if (r->members[i].gi == gi && strcmp(r->members[i].id, id) == 0)
            return 1;
    return 0;
}

static void note_member(struct run *r, int gi, const char *id)
{
    if (was_member(r, gi, id))
        return;
    if (r->nmembers == r->capmembers) {
        r->capmembers = r->capmembers ? 2 * r->capmembers : 16;
        r->members = cm_xrealloc(r->members, (size_t)r->capmembers * sizeof(*r->members));
    }
    r->members[r->nmembers].gi = gi;
    snprintf(r->members[r->nmembers].id, sizeof(r->members[r->nmembers].id), "%s", id);
    r->nmembers++;
}

/* Marks instance id of group gi waiting (launching or not) as seen at t. */
static void wait_seen(struct run *r, int gi, const char *id, int launching, int64_t t)
{
    struct hook_wait *w = wait_find(r, gi, id, launching);

    if (!w) {
        if (r->nwaits == r->capwaits) {
            r->capwaits = r->capwaits ? 2 * r->capwaits : 16;
            r->waits = cm_xrealloc(r->waits, (size_t)r->capwaits * sizeof(*r->waits));
        }
        w = &r->waits[r->nwaits++];
        memset(w, 0, sizeof(*w));
        w->gi = gi;
        w->launching = launching;
        snprintf(w->id, sizeof(w->id), "%s", id);
        w->seen_ms = t;
    }
    w->present = 1;
}

/* The warm pool's waiting instances (DescribeWarmPool, every page of at most 50; bounded
 * by SCN_MAX_INSTANCES pages' worth). -1 when a call failed (reported). */
static int warm_poll_group(struct run *r, int gi, const char *name, int64_t t)
{
    static struct scn_group_state st; /* large; the controlling thread only */
    char next[1024] = "";

    for (int page = 0; page < SCN_MAX_INSTANCES; page++) {
        struct aws_params p;
        struct aws_error err;
        xmlDoc *doc = NULL;

        aws_params_init(&p);
        aws_params_add(&p, "AutoScalingGroupName", name);
        aws_params_add(&p, "MaxRecords", "50");
        if (next[0])
            aws_params_add(&p, "NextToken", next);
        if (scn_aws_call(r, AWS_AUTOSCALING, "DescribeWarmPool", &p, &doc, &err) != 0) {
            scn_fail_msg("lifecycle hooks: DescribeWarmPool %s: %s: %s", name, err.code,
                         err.message);
            aws_params_cleanup(&p);
            return -1;
        }
        aws_params_cleanup(&p);
        scn_reply_warm_pool(doc, &st, next, sizeof(next));
        xmlFreeDoc(doc);
        for (int k = 0; k < st.ninstances; k++) {
            const char *lc = st.inst[k].lifecycle;

            if (strcmp(lc, "Warmed:Pending:Wait") == 0)
                wait_seen(r, gi, st.inst[k].id, !was_member(r, gi, st.inst[k].id), t);
            else if (strcmp(lc, "Warmed:Terminating:Wait") == 0)
                wait_seen(r, gi, st.inst[k].id, 0, t);
        }
        if (!next[0])
            break;
    }
    return 0;
}

/* The group's instances waiting now: new ones seen at t, the ones no longer waiting
 * dropped. The group's Instances first (members noted), then its warm pool's. -1 when a
 * poll failed (reported; the waits stay as they were). */
static int hooks_poll_group(struct run *r, int gi, int64_t t)
{
    static struct scn_group_state st; /* large; the controlling thread only (scn_internal.h) */
    struct aws_params p;
    struct aws_error err;
    xmlDoc *doc = NULL;
    char name[256];

    snprintf(name, sizeof(name), "%s-%s", r->prefix, r->sc->groups[gi].name);
    aws_params_init(&p);
    aws_params_add(&p, "AutoScalingGroupNames.member.1", name);
    if (scn_aws_call(r, AWS_AUTOSCALING, "DescribeAutoScalingGroups", &p, &doc, &err) != 0) {
        scn_fail_msg("lifecycle hooks: DescribeAutoScalingGroups %s: %s: %s", name, err.code,
                     err.message);
        aws_params_cleanup(&p);
        return -1;
    }
    aws_params_cleanup(&p);
    scn_reply_group(doc, name, &st);
    xmlFreeDoc(doc);
    for (int i = 0; i < r->nwaits; i++)
        if (r->waits[i].gi == gi)
            r->waits[i].present = 0;
    for (int k = 0; k < st.ninstances && k < SCN_MAX_INSTANCES; k++) {
        const char *lc = st.inst[k].lifecycle;
        int launching = strcmp(lc, "Pending:Wait") == 0;

        note_member(r, gi, st.inst[k].id);
        if (launching || strcmp(lc, "Terminating:Wait") == 0)
            wait_seen(r, gi, st.inst[k].id, launching, t);
    }
    if (r->sc->groups[gi].warm && warm_poll_group(r, gi, name, t) != 0) {
        for (int i = 0; i < r->nwaits; i++) /* keep the waits as they were */
            if (r->waits[i].gi == gi)
                r->waits[i].present = 1;
        return -1;
    }
    for (int i = 0; i < r->nwaits;) {
        if (r->waits[i].gi == gi && !r->waits[i].present)
            r->waits[i] = r->waits[--r->nwaits];
        else
            i++;
    }
    return 0;
}

static int complete(struct run *r, const struct hook_wait *w, const struct sim_hook *h)
{
    struct aws_params p;
    struct aws_error err;
    int rc;

    aws_params_init(&p);
    aws_params_addf(&p, "AutoScalingGroupName", "%s-%s", r->prefix, r->sc->groups[w->gi].name);
    aws_params_add(&p, "LifecycleHookName", h->name);
    aws_params_add(&p, "InstanceId", w->id);
    aws_params_add(&p, "LifecycleActionResult", h->handler_result);
    rc = scn_aws_call(r, AWS_AUTOSCALING, "CompleteLifecycleAction", &p, NULL, &err);
    if (rc != 0) /* e.g. the timeout answered it first, or the instance is gone */
        scn_fail_msg("lifecycle hook %s: CompleteLifecycleAction %s %s refused: %s: %s", h->name,
                     w->id, h->handler_result, err.code[0] ? err.code : "error", err.message);
    aws_params_cleanup(&p);
    return rc;
}

/* Answers the handlers due by t; returns the earliest one still to come (or INT64_MAX). */
static int64_t hooks_answer(struct run *r, int64_t t)
{
    int64_t next = INT64_MAX;

    for (int i = 0; i < r->nwaits; i++) {
        struct hook_wait *w = &r->waits[i];
        const struct sim_group *g = &r->sc->groups[w->gi];

        for (int k = 0; k < g->nhooks && k < 32; k++) {
            const struct sim_hook *h = &g->hooks[k];
            int64_t due = w->seen_ms + h->handler_after_ms;

            if (!h->has_handler || h->launching != w->launching || (w->done & (1u << k)))
                continue;
            if (due > t) {
                if (due < next)
                    next = due;
                continue;
            }
            w->done |= 1u << k;
            complete(r, w, h);
        }
    }
    return next;
}

int64_t scn_asg_step(struct run *r, int64_t t)
{
    int64_t next = INT64_MAX, answer, every;
    int any = 0;

    timed_calls(r, t);
    if (r->ntimed_done < r->plan.ntimed)
        next = r->plan.timed[r->ntimed_done].at_ms;
    for (int gi = 0; gi < r->sc->ngroups; gi++)
        any |= group_has_handlers(&r->sc->groups[gi]);
    if (!any)
        return next;
    if (t >= r->hooks_next_poll) {
        int64_t now = (int64_t)((double)(scn_mono_ms() - r->mono_t0) * r->scale);

        every = (int64_t)(SCN_HOOK_POLL_REAL_MS * r->scale);
        if (every < SCN_HOOK_POLL_MIN_MS)
            every = SCN_HOOK_POLL_MIN_MS;
        /* seen when the poll is made (a loaded host wakes the loop late) */
        if (now < t)
            now = t;
        for (int gi = 0; gi < r->sc->ngroups; gi++)
            if (group_has_handlers(&r->sc->groups[gi]))
                hooks_poll_group(r, gi, now);
        r->hooks_next_poll = t + every;
    }
    answer = hooks_answer(r, t);
    if (answer < next)
        next = answer;
    if (r->hooks_next_poll < next)
        next = r->hooks_next_poll;
    return next;
}
