/* scaler/asg_warm.c: warm pools (see asg_warm.h; docs/autoscaling.md section 7). */
#include "scaler/asg_warm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scaler/asg_internal.h"
#include "scaler/save.h"

static const char *const pool_state_names[] = {
    [SC_ASG_POOL_STOPPED] = "Stopped",
    [SC_ASG_POOL_RUNNING] = "Running",
    [SC_ASG_POOL_HIBERNATED] = "Hibernated",
};

const char *sc_asg_pool_state_str(enum sc_asg_pool_state s)
{
    if ((unsigned)s > SC_ASG_POOL_HIBERNATED)
        return "";
    return pool_state_names[s];
}

static int pool_state_parse(const char *s)
{
    for (int k = SC_ASG_POOL_STOPPED; s && k <= SC_ASG_POOL_HIBERNATED; k++)
        if (strcmp(pool_state_names[k], s) == 0)
            return k;
    return -1;
}

int sc_asg_lifecycle_is_warmed(enum sc_asg_lifecycle s)
{
    return asg_is_warmed(s);
}

int sc_asg_warm_billed(enum sc_asg_lifecycle s, enum sc_asg_pool_state ps)
{
    switch (s) {
    case SC_ASG_WARMED_PENDING:
    case SC_ASG_WARMED_PENDING_WAIT:
    case SC_ASG_WARMED_PENDING_PROCEED:
    case SC_ASG_WARMED_RUNNING:
        return 1;
    case SC_ASG_WARMED_TERMINATING:
    case SC_ASG_WARMED_TERMINATING_WAIT:
    case SC_ASG_WARMED_TERMINATING_PROCEED:
        return ps == SC_ASG_POOL_RUNNING;
    default:
        return 0;
    }
}

int sc_asg_warm_billed_str(const char *lifecycle_state, const char *pool_state)
{
    int ps = pool_state_parse(pool_state);

    for (int s = SC_ASG_WARMED_PENDING; lifecycle_state && s <= SC_ASG_WARMED_HIBERNATED; s++)
        if (strcmp(sc_asg_lifecycle_str((enum sc_asg_lifecycle)s), lifecycle_state) == 0)
            return sc_asg_warm_billed((enum sc_asg_lifecycle)s,
                                      ps < 0 ? SC_ASG_POOL_STOPPED : (enum sc_asg_pool_state)ps);
    return 0;
}

static const struct asg_group *group_of(const struct sc_asg_group_info *gi);

int sc_asg_warm_pool_billed(const struct sc_asg_group_info *gi)
{
    const struct asg_group *g = group_of(gi);
    enum sc_asg_pool_state ps = g->warm ? g->warm->info.pool_state : SC_ASG_POOL_STOPPED;
    int n = 0;

    for (int s = SC_ASG_WARMED_PENDING; s <= SC_ASG_WARMED_HIBERNATED; s++)
        if (g->census.state[s] > 0)
            n += g->census.state[s] * sc_asg_warm_billed((enum sc_asg_lifecycle)s, ps);
    return n;
}

int sc_asg_warm_pool_size_rule(int max_group_prepared_capacity, int max_size, int desired,
                               int min_size)
{
    int prepared = max_group_prepared_capacity >= 0 ? max_group_prepared_capacity : max_size;
    int n = prepared - desired;

    if (n < min_size)
        n = min_size;
    return n > 0 ? n : 0;
}

static const struct asg_group *group_of(const struct sc_asg_group_info *gi)
{
    return (const struct asg_group *)gi; /* the view is the record's first member */
}

const struct sc_asg_warm_info *sc_asg_warm_pool(const struct sc_asg_group_info *gi)
{
    const struct asg_group *g = group_of(gi);

    return g->warm ? &g->warm->info : NULL;
}

/* In the pool: a Warmed:* state on its way in or there (not terminating, not gone). */
static int in_pool(enum sc_asg_lifecycle s)
{
    return s == SC_ASG_WARMED_PENDING || s == SC_ASG_WARMED_PENDING_WAIT ||
           s == SC_ASG_WARMED_PENDING_PROCEED || s == SC_ASG_WARMED_STOPPED ||
           s == SC_ASG_WARMED_RUNNING || s == SC_ASG_WARMED_HIBERNATED;
}

/* Ready to leave for the group (a warm start). */
static int ready(enum sc_asg_lifecycle s)
{
    return s == SC_ASG_WARMED_STOPPED || s == SC_ASG_WARMED_RUNNING ||
           s == SC_ASG_WARMED_HIBERNATED;
}

int sc_asg_warm_pool_size(const struct sc_asg_group_info *gi)
{
    const struct asg_group *g = group_of(gi);
    int n = 0;

    for (int s = SC_ASG_WARMED_PENDING; s <= SC_ASG_WARMED_HIBERNATED; s++)
        if (s != SC_ASG_WARMED_TERMINATED)
            n += g->census.state[s];
    return n;
}

static int pool_members(const struct asg_group *g)
{
    int n = 0;

    for (int s = SC_ASG_WARMED_PENDING; s <= SC_ASG_WARMED_HIBERNATED; s++)
        if (in_pool((enum sc_asg_lifecycle)s))
            n += g->census.state[s];
    return n;
}

int sc_asg_warm_pool_target(const struct sc_asg_group_info *gi)
{
    const struct asg_group *g = group_of(gi);
    const struct sc_asg_warm_info *w = g->warm ? &g->warm->info : NULL;

    if (!w || w->pending_delete || g->deleting)
        return 0;
    return sc_asg_warm_pool_size_rule(
        w->has_max_group_prepared_capacity ? w->max_group_prepared_capacity : -1, gi->max_size,
        gi->desired_capacity, w->min_size);
}

int asg_warm_metrics(const struct asg_group *g, double group_desired, double group_total,
                     double v[SC_ASG_METRIC_WARM_END - SC_ASG_METRIC_GROUP_COUNT])
{
    const struct asg_census *c = &g->census;
    double pending, terminating, warmed, total;

    if (!g->warm)
        return 0;
    pending = c->state[SC_ASG_WARMED_PENDING] + c->state[SC_ASG_WARMED_PENDING_WAIT] +
              c->state[SC_ASG_WARMED_PENDING_PROCEED];
    terminating = c->state[SC_ASG_WARMED_TERMINATING] + c->state[SC_ASG_WARMED_TERMINATING_WAIT] +
                  c->state[SC_ASG_WARMED_TERMINATING_PROCEED];
    warmed = c->state[SC_ASG_WARMED_STOPPED] + c->state[SC_ASG_WARMED_RUNNING] +
             c->state[SC_ASG_WARMED_HIBERNATED];
    total = sc_asg_warm_pool_size(&g->info);
    v[0] = g->warm->info.min_size;            /* WarmPoolMinSize */
    v[1] = sc_asg_warm_pool_target(&g->info); /* WarmPoolDesiredCapacity */
    v[2] = pending;                           /* WarmPoolPendingCapacity */
    v[3] = terminating;                       /* WarmPoolTerminatingCapacity */
    v[4] = warmed;                            /* WarmPoolWarmedCapacity */
    v[5] = total;                             /* WarmPoolTotalCapacity */
    v[6] = group_desired + v[1];              /* GroupAndWarmPoolDesiredCapacity */
    v[7] = group_total + total;               /* GroupAndWarmPoolTotalCapacity */
    return 1;
}

/* --- PutWarmPool / DeleteWarmPool ------------------------------------------------------------ */

static int requests_spot(const struct sc_asg *asg, const struct asg_group *g)
{
    const struct sc_asg_lc_info *lc = g->info.launch_configuration_name
                                          ? sc_asg_lc_find(asg, g->info.launch_configuration_name)
                                          : NULL;
    const json_t *sp = lc && lc->other ? json_object_get(lc->other, "SpotPrice") : NULL;

    return sp && !(json_is_string(sp) && json_string_length(sp) == 0);
}

enum sc_status sc_asg_put_warm_pool(struct sc_asg *asg, const struct sc_asg_warm_req *req,
                                    int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, req ? req->auto_scaling_group_name : NULL);
    struct sc_asg_warm_info w = { 0 };
    int ps = SC_ASG_POOL_STOPPED;

    (void)now_ms; /* the next step fills the pool */
    if (!g || g->deleting)
        return sc_asg_group_not_found(req ? req->auto_scaling_group_name : NULL, err);
    if (g->info.mixed_instances_policy || requests_spot(asg, g))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "You can\xe2\x80\x99t add a warm pool to an Auto Scaling group that has a mixed instances policy or a launch template or launch configuration that requests Spot Instances.");
    if (req->has_min_size && req->min_size < 0)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%d' at 'minSize' failed to satisfy constraint: Member must have value greater than or equal to 0",
            req->min_size);
    if (req->has_max_group_prepared_capacity && req->max_group_prepared_capacity < -1)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%d' at 'maxGroupPreparedCapacity' failed to satisfy constraint: Member must have value greater than or equal to -1",
            req->max_group_prepared_capacity);
    if (req->pool_state) {
        ps = pool_state_parse(req->pool_state);
        if (ps < 0)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "1 validation error detected: Value '%s' at 'poolState' failed to satisfy constraint: Member must satisfy enum value set: [Stopped, Running, Hibernated]",
                req->pool_state);
    }
    if (g->warm && g->warm->info.pending_delete)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "The warm pool of Auto Scaling group %s is pending delete.",
                       g->info.auto_scaling_group_name);
    if (g->warm)
        w = g->warm->info; /* an update: what is not sent keeps its value */
    else
        w.pool_state = SC_ASG_POOL_STOPPED;
    if (req->has_max_group_prepared_capacity) {
        w.has_max_group_prepared_capacity = req->max_group_prepared_capacity >= 0;
        w.max_group_prepared_capacity =
            req->max_group_prepared_capacity >= 0 ? req->max_group_prepared_capacity : 0;
    }
    if (req->has_min_size)
        w.min_size = req->min_size;
    if (req->pool_state)
        w.pool_state = (enum sc_asg_pool_state)ps;
    if (req->has_reuse_on_scale_in) {
        w.has_reuse_on_scale_in = 1;
        w.reuse_on_scale_in = !!req->reuse_on_scale_in;
    }
    if (!g->warm) {
        g->warm = calloc(1, sizeof(*g->warm));
        if (!g->warm)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    g->warm->info = w;
    asg_inputs_changed(asg);
    asg->step_dirty = 1;
    asg->step_changes++;
    return SC_OK;
}

static void deregister(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in, int64_t now_ms)
{
    if (!asg->env.lb_deregister)
        return;
    for (int k = 0; k < asg_lb_count(&g->info); k++)
        asg->env.lb_deregister(asg->env.ud, asg_lb_at(&g->info, k), in->info.instance_id, now_ms);
}

/* A pool instance on its way out of the pool: Warmed:Terminating with its activity. */
static void begin_terminate(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                            const char *clause, int64_t now_ms)
{
    char desc[128], cause[ASG_CAUSE_LEN] = "";
    struct asg_activity *a;

    asg_act_end(g, in, "Cancelled", now_ms);
    asg_hook_actions_drop(in);
    asg_cause_add(cause, now_ms, "%s", clause);
    snprintf(desc, sizeof(desc), "Terminating EC2 instance: %s", in->info.instance_id);
    a = asg_act_new(asg, g, now_ms, desc, cause, "InProgress", 50, in->info.subnet_id,
                    in->info.availability_zone);
    if (a)
        memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
    in->warm_returning = 0;
    asg_inst_set_state(asg, g, in, SC_ASG_WARMED_TERMINATING);
    asg->step_dirty = 1;
    asg->step_changes++;
}

enum sc_status sc_asg_delete_warm_pool(struct sc_asg *asg, const char *group, int force_delete,
                                       int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    if (!g->warm)
        return sc_fail(err, SC_ERR_VALIDATION, "No warm pool found for Auto Scaling group %s.",
                       g->info.auto_scaling_group_name);
    if (!force_delete) {
        g->warm->info.pending_delete = 1;
        asg->step_dirty = 1;
        asg->step_changes++;
        return SC_OK; /* the step terminates the instances, then drops the pool */
    }
    /* "without waiting for all instances to be terminated": they leave at once */
    for (int i = 0; i < g->ninst;) {
        struct asg_inst *in = &g->inst[i];

        if (!asg_is_warmed(in->info.lifecycle_state)) {
            i++;
            continue;
        }
        asg_act_end(g, in, "Cancelled", now_ms);
        asg_hook_actions_drop(in);
        if (!in->terminate_sent && asg->env.terminate_instance)
            asg->env.terminate_instance(asg->env.ud, in->info.instance_id, now_ms);
        asg_inst_set_state(asg, g, in, SC_ASG_WARMED_TERMINATED);
        asg_inst_remove(asg, g, in);
    }
    asg_warm_free(g);
    asg_inputs_changed(asg);
    asg->step_dirty = 1;
    asg->step_changes++;
    return SC_OK;
}

void asg_warm_free(struct asg_group *g)
{
    free(g->warm);
    g->warm = NULL;
}

/* --- the step -------------------------------------------------------------------------------- */

/* The pool state an instance settles in. */
static enum sc_asg_lifecycle settled(const struct asg_group *g)
{
    enum sc_asg_pool_state ps = g->warm ? g->warm->info.pool_state : SC_ASG_POOL_STOPPED;

    return ps == SC_ASG_POOL_RUNNING      ? SC_ASG_WARMED_RUNNING
           : ps == SC_ASG_POOL_HIBERNATED ? SC_ASG_WARMED_HIBERNATED
                                          : SC_ASG_WARMED_STOPPED;
}

static void set_state(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                      enum sc_asg_lifecycle s)
{
    asg_inst_set_state(asg, g, in, s);
    asg->step_dirty = 1;
    asg->step_changes++;
}

/* Warmed:Pending:Proceed -> the pool state: Running at once, Stopped / Hibernated once EC2
 * has stopped it (1 when it settled). */
static int settle(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in, int64_t now_ms)
{
    enum sc_asg_lifecycle target = settled(g);
    enum sc_asg_ec2_state es = asg_ec2_state(asg, in);

    if (target != SC_ASG_WARMED_RUNNING && asg->env.stop_instance) {
        if (!in->warm_stop_sent) {
            if (target == SC_ASG_WARMED_HIBERNATED && asg->env.hibernate_instance)
                asg->env.hibernate_instance(asg->env.ud, in->info.instance_id, now_ms);
            else
                asg->env.stop_instance(asg->env.ud, in->info.instance_id, now_ms);
            in->warm_stop_sent = 1;
            asg->step_dirty = 1;
            asg->step_changes++;
            es = asg_ec2_state(asg, in);
        }
        if (es != SC_ASG_EC2_STOPPED)
            return 0;
    }
    in->warm_stop_sent = 0;
    in->warm_returning = 0;
    set_state(asg, g, in, target);
    asg_act_end(g, in, "Successful", now_ms);
    return 1;
}

/* One pool instance moved on; returns 1 when it was removed from g. */
static int warm_inst_step(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                          int64_t now_ms)
{
    enum sc_asg_ec2_state es = asg_ec2_state(asg, in);

    switch (in->info.lifecycle_state) {
    case SC_ASG_WARMED_PENDING:
    case SC_ASG_WARMED_PENDING_WAIT:
        if (in->warm_returning) {
            if (es == SC_ASG_EC2_GONE || es == SC_ASG_EC2_SHUTTING_DOWN)
                break; /* lost on its way back: below */
            if (asg_lb_draining(asg, g, in))
                return 0;
            if (!asg_hook_return_step(asg, g, in, now_ms))
                return 0; /* Warmed:Pending:Wait for the terminate hooks (7.2) */
        } else if (es == SC_ASG_EC2_GONE || es == SC_ASG_EC2_SHUTTING_DOWN) {
            break; /* lost on its way in: below */
        } else if (es != SC_ASG_EC2_RUNNING && es != SC_ASG_EC2_IMPAIRED) {
            return 0;
        } else if (!asg_hook_launch_step(asg, g, in, now_ms)) {
            return 0; /* Warmed:Pending:Wait (or abandoned: Warmed:Terminating) */
        }
        if (in->info.lifecycle_state != SC_ASG_WARMED_PENDING_PROCEED)
            set_state(asg, g, in, SC_ASG_WARMED_PENDING_PROCEED);
        settle(asg, g, in, now_ms);
        return 0;
    case SC_ASG_WARMED_PENDING_PROCEED:
        settle(asg, g, in, now_ms);
        return 0;
    case SC_ASG_WARMED_STOPPED:
    case SC_ASG_WARMED_HIBERNATED:
    case SC_ASG_WARMED_RUNNING:
        if (es != SC_ASG_EC2_GONE && es != SC_ASG_EC2_SHUTTING_DOWN)
            return 0;
        break;
    case SC_ASG_WARMED_TERMINATING:
    case SC_ASG_WARMED_TERMINATING_WAIT:
    case SC_ASG_WARMED_TERMINATING_PROCEED:
        if (!in->terminate_sent) {
            /* Warmed:Terminating:Wait while the terminate hooks run (7.2), then EC2 */
            if (!asg_hook_terminate_step(asg, g, in, now_ms))
                return 0;
            if (asg->env.terminate_instance)
                asg->env.terminate_instance(asg->env.ud, in->info.instance_id, now_ms);
            in->terminate_sent = 1;
            asg->step_dirty = 1;
            asg->step_changes++;
            es = asg_ec2_state(asg, in);
            asg_act_set(g, in, "InProgress", 50);
        }
        if (es != SC_ASG_EC2_GONE)
            return 0;
        asg_act_end(g, in, "Successful", now_ms);
        set_state(asg, g, in, SC_ASG_WARMED_TERMINATED);
        asg_inst_remove(asg, g, in);
        return 1;
    default:
        return 0;
    }
    /* its EC2 instance died in the pool: it leaves, the pool refills */
    asg_act_end(g, in, "Failed", now_ms);
    set_state(asg, g, in, SC_ASG_WARMED_TERMINATED);
    asg_inst_remove(asg, g, in);
    return 1;
}

/* Launches one instance into the pool: asg_launch_one, then Warmed:Pending. */
static int launch_into_pool(struct sc_asg *asg, struct asg_group *g, const char *cause,
                            int64_t now_ms)
{
    struct asg_inst *in;
    struct asg_activity *a;
    char *desc;

    if (asg_launch_one(asg, g, cause, now_ms) < 0)
        return -1;
    in = &g->inst[g->ninst - 1];
    set_state(asg, g, in, SC_ASG_WARMED_PENDING);
    a = asg_act_of(g, in);
    desc = a ? asg_asprintf("Launching a new EC2 instance into warm pool: %s", in->info.instance_id)
             : NULL;
    if (desc) {
        free(a->info.description);
        a->info.description = desc;
    }
    return 0;
}

void asg_warm_step(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    int members, target;
    char cause[ASG_CAUSE_LEN];

    if (!g->warm && pool_members(g) + g->census.state[SC_ASG_WARMED_TERMINATING] +
                            g->census.state[SC_ASG_WARMED_TERMINATING_WAIT] +
                            g->census.state[SC_ASG_WARMED_TERMINATING_PROCEED] ==
                        0)
        return;
    for (int i = 0; i < g->ninst;) {
        struct asg_inst *in = &g->inst[i];

        if (!asg_is_warmed(in->info.lifecycle_state)) {
            i++;
            continue;
        }
        if ((g->deleting || !g->warm || g->warm->info.pending_delete) &&
            in_pool(in->info.lifecycle_state))
            begin_terminate(
                asg, g, in,
                "an instance was taken out of the warm pool in response to a user request to delete it",
                now_ms);
        if (!warm_inst_step(asg, g, in, now_ms))
            i++;
    }
    if (!g->warm)
        return;
    if (g->warm->info.pending_delete) {
        if (sc_asg_warm_pool_size(&g->info) == 0) {
            asg_warm_free(g);
            asg_inputs_changed(asg);
        }
        return;
    }
    members = pool_members(g);
    target = sc_asg_warm_pool_target(&g->info);
    if (members < target && !asg_proc_suspended(g, SC_ASG_PROC_LAUNCH) &&
        now_ms >= g->next_launch_ms && g->info.navailability_zones > 0) {
        cause[0] = '\0';
        asg_cause_add(
            cause, now_ms,
            "an instance was launched into the warm pool in response to a difference between its size and its target size, increasing its size from %d to %d",
            members, target);
        while (members < target && launch_into_pool(asg, g, cause, now_ms) == 0)
            members++;
    } else if (members > target && !asg_proc_suspended(g, SC_ASG_PROC_TERMINATE)) {
        /* the surplus goes, newest first */
        for (int i = g->ninst - 1; i >= 0 && members > target; i--) {
            struct asg_inst *in = &g->inst[i];

            if (!in_pool(in->info.lifecycle_state))
                continue;
            begin_terminate(
                asg, g, in,
                "an instance was taken out of the warm pool in response to a change of its size",
                now_ms);
            members--;
        }
    }
}

int asg_warm_draw(struct sc_asg *asg, struct asg_group *g, int units, const char *cause,
                  int64_t now_ms)
{
    int n = 0;

    if (!g->warm || g->warm->info.pending_delete)
        return 0;
    for (int i = 0; i < g->ninst && n < units; i++) {
        struct asg_inst *in = &g->inst[i];
        struct asg_activity *a;
        char desc[128];

        if (!ready(in->info.lifecycle_state))
            continue;
        if (in->info.lifecycle_state != SC_ASG_WARMED_RUNNING && asg->env.start_instance)
            asg->env.start_instance(asg->env.ud, in->info.instance_id, now_ms);
        asg_act_end(g, in, "Successful", now_ms);
        snprintf(desc, sizeof(desc), "Launching a new EC2 instance from warm pool: %s",
                 in->info.instance_id);
        a = asg_act_new(asg, g, now_ms, desc, cause, "PreInService", 30, in->info.subnet_id,
                        in->info.availability_zone);
        if (a)
            memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
        in->info.protected_from_scale_in = g->info.new_instances_protected_from_scale_in;
        /* Pending: the launch hooks and the registration follow as for a launch */
        set_state(asg, g, in, SC_ASG_PENDING);
        asg_inputs_changed(asg);
        n += in->info.weight;
    }
    return n;
}

int asg_warm_return(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in, const char *cause,
                    int64_t now_ms)
{
    char desc[128];
    struct asg_activity *a;

    /* room: the pool's size rule at the new desired (the caller has set it) */
    if (!g->warm || g->warm->info.pending_delete || !g->warm->info.reuse_on_scale_in ||
        pool_members(g) >= sc_asg_warm_pool_target(&g->info))
        return 0;
    asg_act_end(g, in, "Cancelled", now_ms);
    asg_hook_actions_drop(in);
    snprintf(desc, sizeof(desc), "Moving EC2 instance to warm pool: %s", in->info.instance_id);
    a = asg_act_new(asg, g, now_ms, desc, cause, "InProgress", 50, in->info.subnet_id,
                    in->info.availability_zone);
    if (a)
        memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
    in->warm_returning = 1;
    deregister(asg, g, in, now_ms);
    set_state(asg, g, in, SC_ASG_WARMED_PENDING);
    asg_inputs_changed(asg);
    return 1;
}

struct asg_activity *asg_warm_terminate(struct sc_asg *asg, struct asg_group *g,
                                        struct asg_inst *in, int64_t now_ms)
{
    if (in_pool(in->info.lifecycle_state))
        begin_terminate(asg, g, in,
                        "an instance was taken out of the warm pool in response to a user request",
                        now_ms);
    return asg_act_of(g, in);
}

/* --- save / load ----------------------------------------------------------------------------- */

json_t *asg_warm_save(const struct asg_group *g)
{
    const struct sc_asg_warm_info *w;
    json_t *o;
    int bad = 0;

    if (!g->warm)
        return json_null();
    w = &g->warm->info;
    o = json_object();
    if (!o)
        return NULL;
    if (w->has_max_group_prepared_capacity)
        bad |= sc_save_int(o, "max_group_prepared_capacity", w->max_group_prepared_capacity);
    bad |= sc_save_int(o, "min_size", w->min_size);
    bad |= sc_save_str(o, "pool_state", sc_asg_pool_state_str(w->pool_state));
    if (w->has_reuse_on_scale_in)
        bad |= sc_save_bool(o, "reuse_on_scale_in", w->reuse_on_scale_in);
    bad |= sc_save_bool(o, "pending_delete", w->pending_delete);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

void asg_warm_load(struct sc_load *l, const json_t *o, struct asg_group *g)
{
    struct sc_asg_warm_info w = { 0 };
    int ps;

    if (!o || json_is_null(o))
        return;
    if (!json_is_object(o)) {
        sc_load_fail(l, "warm_pool: not an object");
        return;
    }
    if (json_object_get(o, "max_group_prepared_capacity")) {
        w.has_max_group_prepared_capacity = 1;
        w.max_group_prepared_capacity =
            sc_load_int_range(l, o, "max_group_prepared_capacity", 0, INT32_MAX);
    }
    w.min_size = sc_load_int_range(l, o, "min_size", 0, INT32_MAX);
    ps = pool_state_parse(sc_load_cstr(l, o, "pool_state"));
    if (ps < 0 && !l->failed)
        sc_load_fail(l, "warm_pool: pool_state: unknown state");
    w.pool_state = ps < 0 ? SC_ASG_POOL_STOPPED : (enum sc_asg_pool_state)ps;
    if (json_object_get(o, "reuse_on_scale_in")) {
        w.has_reuse_on_scale_in = 1;
        w.reuse_on_scale_in = sc_load_bool(l, o, "reuse_on_scale_in");
    }
    w.pending_delete = sc_load_bool(l, o, "pending_delete");
    if (l->failed)
        return;
    g->warm = calloc(1, sizeof(*g->warm));
    if (!g->warm) {
        sc_load_fail(l, "warm_pool: out of memory");
        return;
    }
    g->warm->info = w;
}
