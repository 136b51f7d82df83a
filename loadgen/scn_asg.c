/* loadgen/scn_asg.c: what the scenario's groups do during the run, played through the
 * Auto Scaling API as a user would (docs/loadgen.md, docs/scenarios.md): each lifecycle
 * hook's handler completes the hook's actions (CompleteLifecycleAction) `after` its action
 * opened, and each `instance_refresh` starts at its time (UpdateAutoScalingGroup to its
 * launch configuration, then StartInstanceRefresh). The simulator does the same in
 * process (scaler/sim/run_plane.c hook_handlers, scaler/sim/run.c start_refresh).
 *
 * How the runner learns that an action opened: on an emulator from its event log (the
 * `hook` event `to: waiting`, with the action's token and its emulated time: what an
 * EventBridge or SQS lifecycle notification carries on AWS), so the handler completes it
 * at the same emulated instant as the simulator's; elsewhere by polling
 * DescribeAutoScalingGroups for instances in Pending:Wait / Terminating:Wait, completing
 * by InstanceId `after` the poll that first saw it. */
#include "loadgen/scn_run.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libxml/tree.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "loadgen/awsapi.h"
#include "loadgen/scn_emu.h"
#include "loadgen/scn_internal.h"
#include "loadgen/scn_reply.h"

/* ---- names ---- */

/* The scenario's group whose AWS name (prefix-NAME) is aws_name, or -1. */
static int group_of(const struct run *r, const char *aws_name)
{
    size_t pl = strlen(r->prefix);

    if (!aws_name || strncmp(aws_name, r->prefix, pl) != 0 || aws_name[pl] != '-')
        return -1;
    for (int g = 0; g < r->sc->ngroups; g++)
        if (strcmp(r->sc->groups[g].name, aws_name + pl + 1) == 0)
            return g;
    return -1;
}

static const struct sim_hook *hook_of(const struct sim_group *g, const char *name)
{
    for (int k = 0; name && k < g->nhooks; k++)
        if (strcmp(g->hooks[k].name, name) == 0)
            return &g->hooks[k];
    return NULL;
}

int scn_asg_has_handlers(const struct sim_scenario *sc)
{
    for (int g = 0; g < sc->ngroups; g++)
        for (int k = 0; k < sc->groups[g].nhooks; k++)
            if (sc->groups[g].hooks[k].has_handler)
                return 1;
    return 0;
}

int scn_asg_has_recurrence(const struct sim_scenario *sc)
{
    for (int g = 0; g < sc->ngroups; g++)
        for (int k = 0; k < sc->groups[g].nscheds; k++)
            if (sc->groups[g].scheds[k].recurrence)
                return 1;
    return 0;
}

/* ---- the handlers' completions ---- */

static void pending_add(struct run *r, int g, const struct sim_hook *h, const char *token,
                        const char *instance, int64_t due)
{
    struct scn_completion *c;

    for (int i = 0; i < r->npend; i++) /* once per action */
        if (r->pend[i].group == g && strcmp(r->pend[i].hook, h->name) == 0 &&
            strcmp(r->pend[i].token, token) == 0 && strcmp(r->pend[i].instance, instance) == 0)
            return;
    if (r->npend == r->cappend) {
        r->cappend = r->cappend ? r->cappend * 2 : 16;
        r->pend = cm_xrealloc(r->pend, (size_t)r->cappend * sizeof(*r->pend));
    }
    c = &r->pend[r->npend++];
    memset(c, 0, sizeof(*c));
    c->group = g;
    c->due = due;
    snprintf(c->hook, sizeof(c->hook), "%s", h->name);
    snprintf(c->token, sizeof(c->token), "%s", token);
    snprintf(c->instance, sizeof(c->instance), "%s", instance);
    snprintf(c->result, sizeof(c->result), "%s",
             h->handler_result ? h->handler_result : "CONTINUE");
}

/* CompleteLifecycleAction by token (or InstanceId). An action that is no longer active
 * (timed out, or ended by another hook's ABANDON) is refused: nothing to do then, as for
 * the simulator's handler. */
static void complete(struct run *r, const struct scn_completion *c)
{
    struct aws_params p;
    struct aws_error err;
    char gname[256];

    snprintf(gname, sizeof(gname), "%s-%s", r->prefix, r->sc->groups[c->group].name);
    aws_params_init(&p);
    aws_params_add(&p, "AutoScalingGroupName", gname);
    aws_params_add(&p, "LifecycleHookName", c->hook);
    aws_params_add(&p, "LifecycleActionResult", c->result);
    if (c->token[0])
        aws_params_add(&p, "LifecycleActionToken", c->token);
    else
        aws_params_add(&p, "InstanceId", c->instance);
    if (scn_aws_call(r, AWS_AUTOSCALING, "CompleteLifecycleAction", &p, NULL, &err) != 0 &&
        strncmp(err.message, "No active Lifecycle Action", 26) != 0)
        fprintf(stderr, "loadgen scenario: warning: CompleteLifecycleAction %s %s %s: %s: %s\n",
                gname, c->hook, c->token[0] ? c->token : c->instance, err.code, err.message);
    aws_params_cleanup(&p);
}

/* The emulator's `hook` events after r->ev_since: each action that opened on a hook with
 * a handler is due `after` its emulated time. -1 when the log cannot be read. */
static int poll_events(struct run *r)
{
    char url[400], herr[256];
    struct cm_buf b;
    const char *line, *end;
    int st;

    snprintf(url, sizeof(url), "%s/_scalelab/events?format=jsonl&since=%llu", r->base,
             (unsigned long long)r->ev_since);
    cm_buf_init(&b, 1 << 24);
    st = scn_http(url, NULL, &b, 5000, herr, sizeof(herr));
    if (st != 200) {
        cm_buf_cleanup(&b);
        return -1;
    }
    for (line = b.data ? b.data : ""; line < b.data + b.len; line = end + 1) {
        json_t *o;
        const char *type, *to;
        int g;
        const struct sim_hook *h;

        end = memchr(line, '\n', (size_t)(b.data + b.len - line));
        if (!end)
            end = b.data + b.len;
        o = json_loadb(line, (size_t)(end - line), 0, NULL);
        if (!o)
            continue;
        if (json_integer_value(json_object_get(o, "seq")) > (json_int_t)r->ev_since)
            r->ev_since = (uint64_t)json_integer_value(json_object_get(o, "seq"));
        type = json_string_value(json_object_get(o, "type"));
        to = json_string_value(json_object_get(o, "to"));
        g = group_of(r, json_string_value(json_object_get(o, "group")));
        h = g >= 0 ? hook_of(&r->sc->groups[g], json_string_value(json_object_get(o, "hook")))
                   : NULL;
        if (type && to && strcmp(type, "hook") == 0 && strcmp(to, "waiting") == 0 && h &&
            h->has_handler) {
            const char *token = json_string_value(json_object_get(o, "token"));
            const char *inst = json_string_value(json_object_get(o, "instance_id"));
            int64_t at = (int64_t)json_integer_value(json_object_get(o, "time_ms")) - r->emu_t0;

            if (token)
                pending_add(r, g, h, token, inst ? inst : "", at + h->handler_after_ms);
        }
        json_decref(o);
    }
    cm_buf_cleanup(&b);
    return 0;
}

/* Elsewhere: instances seen in a wait state for the first time at scenario time t. */
static void poll_groups(struct run *r, int64_t t)
{
    for (int g = 0; g < r->sc->ngroups; g++) {
        const struct sim_group *sg = &r->sc->groups[g];
        struct scn_group_state *st;
        struct aws_params p;
        struct aws_error err;
        xmlDoc *doc = NULL;
        char gname[256];

        if (!scn_asg_group_has_handlers(sg))
            continue;
        snprintf(gname, sizeof(gname), "%s-%s", r->prefix, sg->name);
        aws_params_init(&p);
        aws_params_add(&p, "AutoScalingGroupNames.member.1", gname);
        if (scn_aws_call(r, AWS_AUTOSCALING, "DescribeAutoScalingGroups", &p, &doc, &err) != 0) {
            aws_params_cleanup(&p);
            continue;
        }
        aws_params_cleanup(&p);
        st = cm_xcalloc(1, sizeof(*st));
        scn_reply_group(doc, gname, st);
        xmlFreeDoc(doc);
        for (int i = 0; i < st->ninstances; i++) {
            int launching = strcmp(st->inst[i].lifecycle, "Pending:Wait") == 0;

            if (!launching && strcmp(st->inst[i].lifecycle, "Terminating:Wait") != 0)
                continue;
            for (int k = 0; k < sg->nhooks; k++)
                if (sg->hooks[k].has_handler && sg->hooks[k].launching == launching)
                    pending_add(r, g, &sg->hooks[k], "", st->inst[i].id,
                                t + sg->hooks[k].handler_after_ms);
        }
        free(st);
    }
}

int scn_asg_group_has_handlers(const struct sim_group *g)
{
    for (int k = 0; k < g->nhooks; k++)
        if (g->hooks[k].has_handler)
            return 1;
    return 0;
}

/* ---- instance refresh ---- */

static void start_refresh(struct run *r, int gi)
{
    const struct sim_group *g = &r->sc->groups[gi];
    const struct sim_refresh *rf = &g->refresh;
    struct aws_params p;
    struct aws_error err;
    char gname[256], v[300];

    snprintf(gname, sizeof(gname), "%s-%s", r->prefix, g->name);
    if (rf->launch_configuration) {
        aws_params_init(&p);
        aws_params_add(&p, "AutoScalingGroupName", gname);
        snprintf(v, sizeof(v), "%s-%s", r->prefix, rf->launch_configuration);
        aws_params_add(&p, "LaunchConfigurationName", v);
        if (scn_aws_call(r, AWS_AUTOSCALING, "UpdateAutoScalingGroup", &p, NULL, &err) != 0) {
            fprintf(stderr, "loadgen scenario: warning: %s.instance_refresh: %s: %s\n", g->path,
                    err.code, err.message);
            aws_params_cleanup(&p);
            return;
        }
        aws_params_cleanup(&p);
    }
    aws_params_init(&p);
    aws_params_add(&p, "AutoScalingGroupName", gname);
    aws_params_add(&p, "Strategy", "Rolling");
    if (rf->has_min)
        aws_params_addf(&p, "Preferences.MinHealthyPercentage", "%d", rf->min_healthy_percentage);
    if (rf->has_max)
        aws_params_addf(&p, "Preferences.MaxHealthyPercentage", "%d", rf->max_healthy_percentage);
    if (rf->has_warmup)
        aws_params_addf(&p, "Preferences.InstanceWarmup", "%d", rf->instance_warmup_s);
    for (int k = 0; k < rf->ncheckpoints; k++) {
        snprintf(v, sizeof(v), "Preferences.CheckpointPercentages.member.%d", k + 1);
        aws_params_addf(&p, v, "%d", rf->checkpoints[k]);
    }
    if (rf->has_delay)
        aws_params_addf(&p, "Preferences.CheckpointDelay", "%d", rf->checkpoint_delay_s);
    /* a refusal is a warning and the run goes on, as in the simulator */
    if (scn_aws_call(r, AWS_AUTOSCALING, "StartInstanceRefresh", &p, NULL, &err) != 0)
        fprintf(stderr, "loadgen scenario: warning: %s.instance_refresh: %s: %s\n", g->path,
                err.code, err.message);
    aws_params_cleanup(&p);
}

/* ---- the step ---- */

int64_t scn_asg_step(struct run *r, int64_t t)
{
    int64_t next = INT64_MAX, every;

    for (int g = 0; g < r->sc->ngroups; g++) {
        const struct sim_refresh *rf = &r->sc->groups[g].refresh;

        if (!rf->has || r->refresh_started[g])
            continue;
        if (rf->at_ms <= t) {
            r->refresh_started[g] = 1;
            start_refresh(r, g);
        } else if (rf->at_ms < next) {
            next = rf->at_ms;
        }
    }
    if (!scn_asg_has_handlers(r->sc))
        return next;
    if (t >= r->hook_poll_next) {
        /* an emulator whose log cannot be read is polled as AWS is */
        if (!r->is_emulator || poll_events(r) != 0)
            poll_groups(r, t);
        /* every 2 emulated seconds, at most every 50 real ms */
        every = (int64_t)(50.0 * r->scale);
        r->hook_poll_next = t + (every > 2000 ? every : 2000);
    }
    /* completed entries stay (done), so that an action seen again is not completed twice */
    for (int i = 0; i < r->npend; i++) {
        if (r->pend[i].done)
            continue;
        if (r->pend[i].due <= t) {
            r->pend[i].done = 1;
            complete(r, &r->pend[i]);
        } else if (r->pend[i].due < next) {
            next = r->pend[i].due;
        }
    }
    return r->hook_poll_next < next ? r->hook_poll_next : next;
}
