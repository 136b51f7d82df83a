/* scaler/asg_hook.c: lifecycle hooks, their actions and the wait states (see asg_hook.h,
 * docs/autoscaling.md section 3). */
#include "scaler/asg_hook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scaler/asg_internal.h"
#include "scaler/save.h"

/* --- the hooks ------------------------------------------------------------------------------- */

static void hook_free(struct asg_hook *h)
{
    struct sc_asg_hook_info *i;

    if (!h)
        return;
    i = &h->info;
    free(i->lifecycle_hook_name);
    free(i->auto_scaling_group_name);
    free(i->lifecycle_transition);
    free(i->notification_target_arn);
    free(i->role_arn);
    free(i->notification_metadata);
    free(i->default_result);
    free(h);
}

void asg_hooks_free(struct asg_group *g)
{
    for (int i = 0; i < g->nhooks; i++)
        hook_free(g->hooks[i]);
    free(g->hooks);
    g->hooks = NULL;
    g->nhooks = 0;
}

static int hook_index(const struct asg_group *g, const char *name)
{
    for (int i = 0; name && i < g->nhooks; i++)
        if (strcmp(g->hooks[i]->info.lifecycle_hook_name, name) == 0)
            return i;
    return -1;
}

static enum sc_status hook_not_found(const char *group, const char *hook, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VALIDATION, "No Lifecycle Hook found with name %s for group %s.",
                   hook ? hook : "null", group ? group : "null");
}

static int global_timeout_s(int heartbeat_s)
{
    int64_t g = 100LL * heartbeat_s;

    return g < SC_ASG_GLOBAL_TIMEOUT_MAX_S ? (int)g : SC_ASG_GLOBAL_TIMEOUT_MAX_S;
}

static int name_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;

    if (n < 1 || n >= SC_ASG_HOOK_NAME_LEN)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '/'))
            return 0;
    return 1;
}

/* The checks of one hook request, against its current hook (NULL for a new one). */
static enum sc_status hook_check(const struct sc_asg_hook_req *r, const struct asg_hook *cur,
                                 struct sc_error *err)
{
    if (!name_ok(r->lifecycle_hook_name))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%s' at 'lifecycleHookName' failed to satisfy constraint: Member must satisfy regular expression pattern: [A-Za-z0-9\\-_\\/]+",
            r->lifecycle_hook_name ? r->lifecycle_hook_name : "");
    if (!cur && !r->lifecycle_transition)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "LifecycleTransition is required for a new lifecycle hook.");
    if (r->lifecycle_transition && strcmp(r->lifecycle_transition, SC_ASG_LAUNCHING_TRANSITION) &&
        strcmp(r->lifecycle_transition, SC_ASG_TERMINATING_TRANSITION))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Invalid Lifecycle Transition: %s. Valid values are autoscaling:EC2_INSTANCE_LAUNCHING and autoscaling:EC2_INSTANCE_TERMINATING.",
            r->lifecycle_transition);
    if (r->has_heartbeat_timeout && (r->heartbeat_timeout < SC_ASG_HEARTBEAT_MIN_S ||
                                     r->heartbeat_timeout > SC_ASG_HEARTBEAT_MAX_S))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Heartbeat timeout must be between 30 and 7200 seconds, inclusive.");
    if (r->default_result && strcmp(r->default_result, "CONTINUE") &&
        strcmp(r->default_result, "ABANDON"))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Invalid DefaultResult: %s. Valid values are CONTINUE and ABANDON.",
                       r->default_result);
    return SC_OK;
}

/* The hook r describes, over cur's members (NULL: a new hook with the defaults); NULL on
 * OOM. */
static struct asg_hook *hook_make(const struct asg_group *g, const struct sc_asg_hook_req *r,
                                  const struct asg_hook *cur)
{
    struct asg_hook *h = calloc(1, sizeof(*h));
    struct sc_asg_hook_info *i;
    const struct sc_asg_hook_info *c = cur ? &cur->info : NULL;
    int bad = 0;

    if (!h)
        return NULL;
    i = &h->info;
    i->lifecycle_hook_name = sc_strdup(r->lifecycle_hook_name);
    i->auto_scaling_group_name = sc_strdup(g->info.auto_scaling_group_name);
    i->lifecycle_transition =
        sc_strdup(r->lifecycle_transition ? r->lifecycle_transition : c->lifecycle_transition);
    i->default_result = sc_strdup(r->default_result ? r->default_result
                                  : c               ? c->default_result
                                                    : "ABANDON");
    bad |= sc_strdup_opt(&i->notification_target_arn, r->notification_target_arn
                                                          ? r->notification_target_arn
                                                      : c ? c->notification_target_arn
                                                          : NULL);
    bad |= sc_strdup_opt(&i->role_arn, r->role_arn ? r->role_arn : c ? c->role_arn : NULL);
    bad |=
        sc_strdup_opt(&i->notification_metadata, r->notification_metadata ? r->notification_metadata
                                                 : c                      ? c->notification_metadata
                                                                          : NULL);
    i->heartbeat_timeout = r->has_heartbeat_timeout ? r->heartbeat_timeout
                           : c                      ? c->heartbeat_timeout
                                                    : SC_ASG_HEARTBEAT_DEFAULT_S;
    i->global_timeout = global_timeout_s(i->heartbeat_timeout);
    if (bad || !i->lifecycle_hook_name || !i->auto_scaling_group_name || !i->lifecycle_transition ||
        !i->default_result) {
        hook_free(h);
        return NULL;
    }
    h->launching = strcmp(i->lifecycle_transition, SC_ASG_LAUNCHING_TRANSITION) == 0;
    h->abandon = strcmp(i->default_result, "ABANDON") == 0;
    return h;
}

/* Puts a checked request into g: replaces the hook of that name in place, or appends. */
static enum sc_status hook_put(struct asg_group *g, const struct sc_asg_hook_req *r,
                               struct sc_error *err)
{
    int k = hook_index(g, r->lifecycle_hook_name);
    struct asg_hook *h = hook_make(g, r, k >= 0 ? g->hooks[k] : NULL);
    struct asg_hook **grown;

    if (!h)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    if (k >= 0) {
        hook_free(g->hooks[k]);
        g->hooks[k] = h;
        return SC_OK;
    }
    grown = realloc(g->hooks, (size_t)(g->nhooks + 1) * sizeof(*grown));
    if (!grown) {
        hook_free(h);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    g->hooks = grown;
    g->hooks[g->nhooks++] = h;
    return SC_OK;
}

static enum sc_status limit_exceeded(struct sc_error *err)
{
    return sc_fail(
        err, SC_ERR_LIMIT_EXCEEDED,
        "Unable to create the lifecycle hook. The maximum number of lifecycle hooks allowed per Auto Scaling group (%d) has been reached.",
        SC_ASG_MAX_HOOKS);
}

enum sc_status sc_asg_put_lifecycle_hook(struct sc_asg *asg, const struct sc_asg_hook_req *req,
                                         int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, req->auto_scaling_group_name);
    enum sc_status st;
    int k;

    (void)now_ms; /* a hook acts on the actions started after it is put */
    if (!g || g->deleting)
        return sc_asg_group_not_found(req->auto_scaling_group_name, err);
    k = hook_index(g, req->lifecycle_hook_name);
    st = hook_check(req, k >= 0 ? g->hooks[k] : NULL, err);
    if (st != SC_OK)
        return st;
    if (k < 0 && g->nhooks >= SC_ASG_MAX_HOOKS)
        return limit_exceeded(err);
    return hook_put(g, req, err);
}

enum sc_status sc_asg_create_group_with_hooks(struct sc_asg *asg,
                                              const struct sc_asg_group_req *req,
                                              const struct sc_asg_hook_req *hooks, int nhooks,
                                              int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g;
    enum sc_status st;

    if (nhooks > SC_ASG_MAX_HOOKS)
        return limit_exceeded(err);
    for (int i = 0; i < nhooks; i++) {
        st = hook_check(&hooks[i], NULL, err);
        if (st != SC_OK)
            return st;
        for (int j = 0; j < i; j++)
            if (strcmp(hooks[i].lifecycle_hook_name, hooks[j].lifecycle_hook_name) == 0)
                return sc_fail(err, SC_ERR_VALIDATION,
                               "Lifecycle hook names must be unique: %s is given more than once.",
                               hooks[i].lifecycle_hook_name);
    }
    st = sc_asg_create_group(asg, req, now_ms, err);
    if (st != SC_OK)
        return st;
    g = asg_group_find(asg, req->auto_scaling_group_name);
    for (int i = 0; g && i < nhooks; i++) {
        st = hook_put(g, &hooks[i], err);
        if (st != SC_OK) { /* OOM: the group goes too, nothing made */
            sc_asg_delete_group(asg, req->auto_scaling_group_name, 1, now_ms, NULL);
            asg_reap_deleted(asg, now_ms);
            return st;
        }
    }
    return SC_OK;
}

/* --- actions --------------------------------------------------------------------------------- */

void asg_hook_actions_drop(struct asg_inst *in)
{
    free(in->actions);
    in->actions = NULL;
    in->nactions = 0;
}

static void action_remove(struct asg_inst *in, int k)
{
    memmove(&in->actions[k], &in->actions[k + 1],
            (size_t)(in->nactions - k - 1) * sizeof(*in->actions));
    in->nactions--;
}

/* Tells the decision log (scaler/decision.h) what an action did: the moments the records
 * do not keep (docs/decisions.md 4). */
static void hook_note(struct sc_asg *asg, const struct asg_group *g, const struct asg_inst *in,
                      const struct asg_action *a, enum sc_hook_note_kind kind, int launching,
                      int abandon, const char *why, int64_t now_ms)
{
    struct sc_hook_note h;

    memset(&h, 0, sizeof(h));
    h.time_ms = now_ms;
    h.kind = kind;
    snprintf(h.group, sizeof(h.group), "%s", g->info.auto_scaling_group_name);
    snprintf(h.hook, sizeof(h.hook), "%s", a->hook);
    snprintf(h.instance_id, sizeof(h.instance_id), "%s", in->info.instance_id);
    snprintf(h.token, sizeof(h.token), "%s", a->token);
    h.launching = launching;
    h.heartbeat_timeout_s =
        kind == SC_HOOK_HEARTBEAT ? (int)((a->timeout_ms - now_ms) / 1000) : a->heartbeat_s;
    h.deadline_ms = a->timeout_ms;
    snprintf(h.result, sizeof(h.result), "%s", abandon ? "ABANDON" : "CONTINUE");
    h.why = why;
    sc_decision_log_add_hook(asg->decisions, &h);
}

/* Opens one action per hook of that transition; returns their number (0: none, or OOM:
 * then the instance goes on as without hooks). */
static int actions_open(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in, int launching,
                        int64_t now_ms)
{
    int n = 0;

    asg_hook_actions_drop(in);
    for (int i = 0; i < g->nhooks; i++)
        n += g->hooks[i]->launching == launching;
    if (n == 0)
        return 0;
    in->actions = calloc((size_t)n, sizeof(*in->actions));
    if (!in->actions)
        return 0;
    for (int i = 0; i < g->nhooks; i++) {
        const struct asg_hook *h = g->hooks[i];
        struct asg_action *a;

        if (h->launching != launching)
            continue;
        a = &in->actions[in->nactions++];
        sc_rng_uuid(asg->rng, a->token);
        snprintf(a->hook, sizeof(a->hook), "%s", h->info.lifecycle_hook_name);
        a->start_ms = now_ms;
        a->heartbeat_s = h->info.heartbeat_timeout;
        a->timeout_ms = now_ms + (int64_t)h->info.heartbeat_timeout * 1000;
        a->global_ms = now_ms + (int64_t)h->info.global_timeout * 1000;
        if (a->timeout_ms > a->global_ms)
            a->timeout_ms = a->global_ms;
        a->abandon = h->abandon;
        hook_note(asg, g, in, a, SC_HOOK_WAITING, launching, a->abandon, NULL, now_ms);
    }
    return in->nactions;
}

/* An abandoned launch: the launch activity ends Cancelled with AWS's reason, the other
 * actions end, and the instance terminates without terminate hooks (the group replaces
 * it). */
static void abandon_launch(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                           const char *token, const char *why, int64_t now_ms)
{
    struct asg_activity *a = asg_act_of(g, in);
    char msg[256];

    snprintf(
        msg, sizeof(msg),
        "Instance failed to complete user's Lifecycle Action: Lifecycle Action with token %s was abandoned: %s",
        token, why);
    if (a) {
        char *desc = asg_asprintf("Launching a new EC2 instance: %s.  Status Reason: %s",
                                  in->info.instance_id, msg);
        char *sm = sc_strdup(msg);

        if (desc && sm) {
            free(a->info.description);
            a->info.description = desc;
            free(a->info.status_message);
            a->info.status_message = sm;
        } else {
            free(desc);
            free(sm);
        }
    }
    asg_act_end(g, in, "Cancelled", now_ms);
    asg_hook_actions_drop(in);
    in->skip_terminate_hooks = 1;
    /* a launch into the warm pool leaves it (docs/autoscaling.md 7.2) */
    asg_inst_set_state(asg, g, in,
                       in->info.lifecycle_state == SC_ASG_WARMED_PENDING_WAIT
                           ? SC_ASG_WARMED_TERMINATING
                           : SC_ASG_TERMINATING);
    asg->step_dirty = 1;
    asg->step_changes++;
}

/* 1 when in's wait is a launch's (Pending:Wait, or Warmed:Pending:Wait of a launch into the
 * warm pool); an instance returning to the pool waits in Warmed:Pending:Wait for the
 * terminate hooks (docs/autoscaling.md 7.2), a terminating one in (Warmed:)Terminating:Wait. */
static int waits_launching(const struct asg_inst *in)
{
    return in->info.lifecycle_state == SC_ASG_PENDING_WAIT ||
           (in->info.lifecycle_state == SC_ASG_WARMED_PENDING_WAIT && !in->warm_returning);
}

/* Ends action k with abandon (1) or continue (0), why being the abandon reason. */
static void action_end(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in, int k,
                       int abandon, const char *why, int64_t now_ms)
{
    char token[SC_RNG_UUID_LEN];

    memcpy(token, in->actions[k].token, sizeof(token));
    action_remove(in, k);
    asg->step_dirty = 1;
    asg->step_changes++;
    if (!abandon)
        return;
    if (waits_launching(in))
        abandon_launch(asg, g, in, token, why, now_ms);
    else /* terminating or returning to the warm pool: ABANDON ends the other actions */
        asg_hook_actions_drop(in);
}

/* Applies the default result of every action past a deadline. */
static void actions_time_out(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                             int64_t now_ms)
{
    for (int k = 0; k < in->nactions;) {
        const struct asg_action *a = &in->actions[k];

        if (now_ms >= a->global_ms || now_ms >= a->timeout_ms) {
            enum sc_asg_lifecycle was = in->info.lifecycle_state;
            int launching = waits_launching(in);
            const char *why = now_ms >= a->global_ms && a->global_ms <= a->timeout_ms
                                  ? "Global Timeout"
                                  : "Heartbeat Timeout";

            hook_note(asg, g, in, a, SC_HOOK_TIMEOUT, launching, a->abandon, why, now_ms);
            action_end(asg, g, in, k, a->abandon, why, now_ms);
            if (launching && in->info.lifecycle_state != was)
                return; /* abandoned */
            continue;
        }
        k++;
    }
}

int asg_hook_launch_step(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                         int64_t now_ms)
{
    switch (in->info.lifecycle_state) {
    case SC_ASG_PENDING:
        if (in->from_standby || in->skip_launch_hooks || g->deleting ||
            actions_open(asg, g, in, 1, now_ms) == 0)
            return 1;
        asg_inst_set_state(asg, g, in, SC_ASG_PENDING_WAIT);
        asg_act_set(g, in, "MidLifecycleAction", 40);
        asg->step_dirty = 1;
        asg->step_changes++;
        return 0;
    case SC_ASG_PENDING_WAIT:
        actions_time_out(asg, g, in, now_ms);
        if (in->info.lifecycle_state != SC_ASG_PENDING_WAIT || in->nactions > 0)
            return 0;
        asg_inst_set_state(asg, g, in, SC_ASG_PENDING_PROCEED);
        return 1;
    /* a launch into the warm pool: Warmed:Pending:Wait (docs/autoscaling.md 7.2) */
    case SC_ASG_WARMED_PENDING:
        if (in->skip_launch_hooks || g->deleting || actions_open(asg, g, in, 1, now_ms) == 0)
            return 1;
        asg_inst_set_state(asg, g, in, SC_ASG_WARMED_PENDING_WAIT);
        asg_act_set(g, in, "MidLifecycleAction", 40);
        asg->step_dirty = 1;
        asg->step_changes++;
        return 0;
    case SC_ASG_WARMED_PENDING_WAIT:
        actions_time_out(asg, g, in, now_ms);
        if (in->info.lifecycle_state != SC_ASG_WARMED_PENDING_WAIT || in->nactions > 0)
            return 0;
        asg_inst_set_state(asg, g, in, SC_ASG_WARMED_PENDING_PROCEED);
        return 1;
    default:
        return 1;
    }
}

int asg_hook_return_step(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                         int64_t now_ms)
{
    switch (in->info.lifecycle_state) {
    case SC_ASG_WARMED_PENDING:
        if (in->skip_terminate_hooks || g->deleting || actions_open(asg, g, in, 0, now_ms) == 0)
            return 1;
        asg_inst_set_state(asg, g, in, SC_ASG_WARMED_PENDING_WAIT);
        asg_act_set(g, in, "MidLifecycleAction", 50);
        asg->step_dirty = 1;
        asg->step_changes++;
        return 0;
    case SC_ASG_WARMED_PENDING_WAIT:
        if (g->deleting)
            asg_hook_actions_drop(in);
        actions_time_out(asg, g, in, now_ms);
        if (in->nactions > 0)
            return 0;
        asg_inst_set_state(asg, g, in, SC_ASG_WARMED_PENDING_PROCEED);
        return 1;
    default:
        return 1;
    }
}

int asg_hook_terminate_step(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                            int64_t now_ms)
{
    switch (in->info.lifecycle_state) {
    /* a warm pool's instance: Warmed:Terminating:Wait (docs/autoscaling.md 7.2) */
    case SC_ASG_WARMED_TERMINATING:
        if (in->skip_terminate_hooks || g->deleting || actions_open(asg, g, in, 0, now_ms) == 0)
            return 1;
        asg_inst_set_state(asg, g, in, SC_ASG_WARMED_TERMINATING_WAIT);
        asg_act_set(g, in, "MidLifecycleAction", 50);
        asg->step_dirty = 1;
        asg->step_changes++;
        return 0;
    case SC_ASG_WARMED_TERMINATING_WAIT:
        if (g->deleting)
            asg_hook_actions_drop(in);
        actions_time_out(asg, g, in, now_ms);
        if (in->nactions > 0)
            return 0;
        asg_inst_set_state(asg, g, in, SC_ASG_WARMED_TERMINATING_PROCEED);
        return 1;
    case SC_ASG_TERMINATING:
        if (in->skip_terminate_hooks || g->deleting || actions_open(asg, g, in, 0, now_ms) == 0)
            return 1;
        asg_inst_set_state(asg, g, in, SC_ASG_TERMINATING_WAIT);
        asg_act_set(g, in, "MidLifecycleAction", 50);
        asg->step_dirty = 1;
        asg->step_changes++;
        return 0;
    case SC_ASG_TERMINATING_WAIT:
        if (g->deleting) /* a force delete drops the actions */
            asg_hook_actions_drop(in);
        actions_time_out(asg, g, in, now_ms);
        if (in->nactions > 0)
            return 0;
        asg_inst_set_state(asg, g, in, SC_ASG_TERMINATING_PROCEED);
        return 1;
    default:
        return 1;
    }
}

int64_t asg_hook_next_due(const struct asg_group *g, int64_t now_ms)
{
    int64_t due = INT64_MAX;

    if (g->census.state[SC_ASG_PENDING_WAIT] + g->census.state[SC_ASG_TERMINATING_WAIT] +
            g->census.state[SC_ASG_WARMED_PENDING_WAIT] +
            g->census.state[SC_ASG_WARMED_TERMINATING_WAIT] ==
        0)
        return due;
    for (int i = 0; i < g->ninst; i++)
        for (int k = 0; k < g->inst[i].nactions; k++) {
            const struct asg_action *a = &g->inst[i].actions[k];
            int64_t t = a->timeout_ms < a->global_ms ? a->timeout_ms : a->global_ms;

            if (t > now_ms && t < due)
                due = t;
            if (t <= now_ms && now_ms + 1 < due)
                due = now_ms + 1;
        }
    return due;
}

/* The open action of hook in g by token, or by instance id; NULL with err set. */
static struct asg_action *action_lookup(struct sc_asg *asg, const char *group, const char *hook,
                                        const char *token, const char *instance_id,
                                        struct asg_group **gout, struct asg_inst **iout, int *kout,
                                        struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);

    if (!g || g->deleting) {
        sc_asg_group_not_found(group, err);
        return NULL;
    }
    if (hook_index(g, hook) < 0) {
        hook_not_found(group, hook, err);
        return NULL;
    }
    if (!token && !instance_id) {
        sc_fail(err, SC_ERR_VALIDATION,
                "Either LifecycleActionToken or InstanceId must be specified.");
        return NULL;
    }
    for (int i = 0; i < g->ninst; i++) {
        struct asg_inst *in = &g->inst[i];

        if (!token && strcmp(in->info.instance_id, instance_id) != 0)
            continue;
        for (int k = 0; k < in->nactions; k++) {
            struct asg_action *a = &in->actions[k];

            if (strcmp(a->hook, hook) != 0 || (token && strcmp(a->token, token) != 0) ||
                (token && instance_id && strcmp(in->info.instance_id, instance_id) != 0))
                continue;
            *gout = g;
            *iout = in;
            *kout = k;
            return a;
        }
    }
    if (token)
        sc_fail(err, SC_ERR_VALIDATION, "No active Lifecycle Action found with token %s", token);
    else
        sc_fail(err, SC_ERR_VALIDATION, "No active Lifecycle Action found with instance ID %s",
                instance_id);
    return NULL;
}

enum sc_status sc_asg_complete_lifecycle_action(struct sc_asg *asg, const char *group,
                                                const char *hook, const char *token,
                                                const char *instance_id, const char *result,
                                                int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = NULL;
    struct asg_inst *in = NULL;
    int k = 0;

    if (!result || (strcmp(result, "CONTINUE") != 0 && strcmp(result, "ABANDON") != 0))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Invalid LifecycleActionResult: %s. Valid values are CONTINUE and ABANDON.",
                       result ? result : "null");
    if (!action_lookup(asg, group, hook, token, instance_id, &g, &in, &k, err))
        return err ? err->status : SC_ERR_VALIDATION;
    hook_note(asg, g, in, &in->actions[k], SC_HOOK_COMPLETED, waits_launching(in),
              strcmp(result, "ABANDON") == 0, NULL, now_ms);
    action_end(asg, g, in, k, strcmp(result, "ABANDON") == 0,
               "Lifecycle Action Completed with ABANDON Result", now_ms);
    asg_inputs_changed(asg);
    return SC_OK;
}

enum sc_status sc_asg_record_lifecycle_action_heartbeat(struct sc_asg *asg, const char *group,
                                                        const char *hook, const char *token,
                                                        const char *instance_id, int64_t now_ms,
                                                        struct sc_error *err)
{
    struct asg_group *g = NULL;
    struct asg_inst *in = NULL;
    int k = 0;
    struct asg_action *a = action_lookup(asg, group, hook, token, instance_id, &g, &in, &k, err);

    if (!a)
        return err ? err->status : SC_ERR_VALIDATION;
    a->timeout_ms = now_ms + (int64_t)a->heartbeat_s * 1000;
    if (a->timeout_ms > a->global_ms)
        a->timeout_ms = a->global_ms;
    hook_note(asg, g, in, a, SC_HOOK_HEARTBEAT, waits_launching(in), a->abandon, NULL, now_ms);
    return SC_OK;
}

enum sc_status sc_asg_delete_lifecycle_hook(struct sc_asg *asg, const char *group, const char *hook,
                                            int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    int h;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    h = hook_index(g, hook);
    if (h < 0)
        return hook_not_found(group, hook, err);
    for (int i = 0; i < g->ninst; i++) {
        struct asg_inst *in = &g->inst[i];

        for (int k = 0; k < in->nactions; k++)
            if (strcmp(in->actions[k].hook, hook) == 0) {
                action_end(asg, g, in, k, waits_launching(in),
                           "Lifecycle Action Completed with ABANDON Result", now_ms);
                break;
            }
    }
    hook_free(g->hooks[h]);
    memmove(&g->hooks[h], &g->hooks[h + 1], (size_t)(g->nhooks - h - 1) * sizeof(*g->hooks));
    g->nhooks--;
    asg_inputs_changed(asg);
    return SC_OK;
}

int sc_asg_lifecycle_hook_count(const struct sc_asg *asg, const char *group)
{
    const struct asg_group *g = asg_group_find(asg, group);

    return g && !g->deleting ? g->nhooks : -1;
}

const struct sc_asg_hook_info *sc_asg_lifecycle_hook_at(const struct sc_asg *asg, const char *group,
                                                        int i)
{
    const struct asg_group *g = asg_group_find(asg, group);

    return g && i >= 0 && i < g->nhooks ? &g->hooks[i]->info : NULL;
}

const struct sc_asg_hook_info *sc_asg_lifecycle_hook_find(const struct sc_asg *asg,
                                                          const char *group, const char *hook)
{
    const struct asg_group *g = asg_group_find(asg, group);
    int k = g ? hook_index(g, hook) : -1;

    return k >= 0 ? &g->hooks[k]->info : NULL;
}

int sc_asg_lifecycle_action_count(const struct sc_asg *asg, const char *group)
{
    const struct asg_group *g = asg_group_find(asg, group);
    int n = 0;

    for (int i = 0; g && i < g->ninst; i++)
        n += g->inst[i].nactions;
    return n;
}

int sc_asg_lifecycle_action_at(const struct sc_asg *asg, const char *group, int i,
                               struct sc_asg_action_info *out)
{
    const struct asg_group *g = asg_group_find(asg, group);

    for (int k = 0; g && k < g->ninst; k++) {
        const struct asg_inst *in = &g->inst[k];

        if (i >= in->nactions) {
            i -= in->nactions;
            continue;
        }
        memset(out, 0, sizeof(*out));
        memcpy(out->token, in->actions[i].token, sizeof(out->token));
        memcpy(out->lifecycle_hook_name, in->actions[i].hook, sizeof(out->lifecycle_hook_name));
        memcpy(out->instance_id, in->info.instance_id, sizeof(out->instance_id));
        out->launching = waits_launching(in);
        out->start_ms = in->actions[i].start_ms;
        out->timeout_ms = in->actions[i].timeout_ms;
        out->global_ms = in->actions[i].global_ms;
        return 0;
    }
    return -1;
}

/* --- save / load ----------------------------------------------------------------------------- */

json_t *asg_hooks_save(const struct asg_group *g)
{
    json_t *a = json_array();
    int bad = !a;

    for (int k = 0; !bad && k < g->nhooks; k++) {
        const struct sc_asg_hook_info *i = &g->hooks[k]->info;
        json_t *o = json_object();

        bad |= !o;
        bad |= sc_save_str(o, "name", i->lifecycle_hook_name);
        bad |= sc_save_str(o, "transition", i->lifecycle_transition);
        bad |= sc_save_str(o, "notification_target_arn", i->notification_target_arn);
        bad |= sc_save_str(o, "role_arn", i->role_arn);
        bad |= sc_save_str(o, "notification_metadata", i->notification_metadata);
        bad |= sc_save_int(o, "heartbeat_timeout", i->heartbeat_timeout);
        bad |= sc_save_str(o, "default_result", i->default_result);
        bad |= json_array_append_new(a, o);
    }
    if (bad) {
        json_decref(a);
        return NULL;
    }
    return a;
}

void asg_hooks_load(struct sc_load *l, const json_t *a, struct asg_group *g)
{
    size_t n = json_array_size(a);

    for (size_t k = 0; k < n && !l->failed; k++) {
        const json_t *o = json_array_get(a, k);
        struct sc_asg_hook_req r = { 0 };
        struct sc_error e = { 0 };

        r.lifecycle_hook_name = sc_load_cstr(l, o, "name");
        r.lifecycle_transition = sc_load_cstr(l, o, "transition");
        r.notification_target_arn = sc_load_cstr_opt(l, o, "notification_target_arn");
        r.role_arn = sc_load_cstr_opt(l, o, "role_arn");
        r.notification_metadata = sc_load_cstr_opt(l, o, "notification_metadata");
        r.has_heartbeat_timeout = 1;
        r.heartbeat_timeout = sc_load_int_range(l, o, "heartbeat_timeout", SC_ASG_HEARTBEAT_MIN_S,
                                                SC_ASG_HEARTBEAT_MAX_S);
        r.default_result = sc_load_cstr(l, o, "default_result");
        if (l->failed)
            return;
        if (hook_check(&r, NULL, &e) != SC_OK || hook_index(g, r.lifecycle_hook_name) >= 0 ||
            g->nhooks >= SC_ASG_MAX_HOOKS) {
            sc_load_fail(l, "lifecycle_hooks[%zu]: not a valid hook", k);
            return;
        }
        if (hook_put(g, &r, &e) != SC_OK)
            sc_load_fail(l, "out of memory");
    }
}

json_t *asg_actions_save(const struct asg_inst *in)
{
    json_t *a = json_array();
    int bad = !a;

    for (int k = 0; !bad && k < in->nactions; k++) {
        const struct asg_action *x = &in->actions[k];
        json_t *o = json_object();

        bad |= !o;
        bad |= sc_save_str(o, "token", x->token);
        bad |= sc_save_str(o, "hook", x->hook);
        bad |= sc_save_int(o, "start_ms", x->start_ms);
        bad |= sc_save_int(o, "timeout_ms", x->timeout_ms);
        bad |= sc_save_int(o, "global_ms", x->global_ms);
        bad |= sc_save_int(o, "heartbeat_s", x->heartbeat_s);
        bad |= sc_save_bool(o, "abandon", x->abandon);
        bad |= json_array_append_new(a, o);
    }
    if (bad) {
        json_decref(a);
        return NULL;
    }
    return a;
}

void asg_actions_load(struct sc_load *l, const json_t *a, struct asg_inst *in)
{
    size_t n = json_array_size(a);

    if (n == 0)
        return;
    in->actions = calloc(n, sizeof(*in->actions));
    if (!in->actions) {
        sc_load_fail(l, "out of memory");
        return;
    }
    for (size_t k = 0; k < n && !l->failed; k++) {
        const json_t *o = json_array_get(a, k);
        struct asg_action *x = &in->actions[k];

        sc_load_buf(l, o, "token", x->token, sizeof(x->token));
        sc_load_buf(l, o, "hook", x->hook, sizeof(x->hook));
        x->start_ms = sc_load_int(l, o, "start_ms");
        x->timeout_ms = sc_load_int(l, o, "timeout_ms");
        x->global_ms = sc_load_int(l, o, "global_ms");
        x->heartbeat_s =
            sc_load_int_range(l, o, "heartbeat_s", SC_ASG_HEARTBEAT_MIN_S, SC_ASG_HEARTBEAT_MAX_S);
        x->abandon = sc_load_bool(l, o, "abandon");
        in->nactions++;
    }
}
