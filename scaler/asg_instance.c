/* scaler/asg_instance.c: a group's instances (census, lifecycle setters, load-balancer
 * registration), launching, and the operations on instances (see asg.h). */
#include "scaler/asg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/asg_internal.h"

/* --- instances -------------------------------------------------------------------------------- */

void asg_inst_cleanup(struct asg_inst *in)
{
    free(in->info.launch_configuration_name);
    free(in->info.launch_template_id);
    free(in->info.launch_template_name);
    free(in->info.launch_template_version);
    free(in->info.instance_type);
    asg_hook_actions_drop(in);
}

/* One instance in or out of g's census (sign +1 or -1), as it stands. */
void asg_census_count(struct asg_census *c, const struct asg_inst *in, int sign)
{
    c->state[in->info.lifecycle_state] += sign;
    c->units[in->info.lifecycle_state] += sign * in->info.weight;
    if (asg_counts_capacity(in->info.lifecycle_state))
        c->cap_units += sign * in->info.weight;
    if (in->unhealthy && asg_counts_capacity(in->info.lifecycle_state)) {
        c->unhealthy_cap += sign;
        if (in->unhealthy == ASG_UNHEALTHY_ELB)
            c->unhealthy_elb_cap += sign;
    }
}

void asg_census_rebuild(struct asg_group *g)
{
    memset(&g->census, 0, sizeof(g->census));
    for (int i = 0; i < g->ninst; i++)
        asg_census_count(&g->census, &g->inst[i], 1);
    g->members_ver++;
}

/* The only writer of lifecycle_state once an instance is in g (inst_add starts it
 * Pending): the census follows. */
void asg_inst_set_state(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                        enum sc_asg_lifecycle s)
{
    if (in->info.lifecycle_state == s)
        return;
    asg_census_count(&g->census, in, -1);
    in->info.lifecycle_state = s;
    asg_census_count(&g->census, in, 1);
    g->members_ver++;
    asg_inputs_changed(asg);
}

/* The only writer of unhealthy: the census follows. */
void asg_inst_set_unhealthy(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                            enum asg_unhealthy u)
{
    if (in->unhealthy == u)
        return;
    asg_census_count(&g->census, in, -1);
    in->unhealthy = u;
    asg_census_count(&g->census, in, 1);
    asg_inputs_changed(asg);
}

/* The only writer of weight once an instance is in g (inst_add starts it at 1): the census
 * follows. */
void asg_inst_set_weight(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in, int w)
{
    (void)asg; /* nothing the health sweep reads */
    if (in->info.weight == w || w < 1)
        return;
    asg_census_count(&g->census, in, -1);
    in->info.weight = w;
    asg_census_count(&g->census, in, 1);
}

/* A new instance at the end of g, zeroed: Pending, healthy, weight 1, counted in the
 * census. */
static struct asg_inst *inst_add(struct sc_asg *asg, struct asg_group *g)
{
    struct asg_inst *in;

    if (g->ninst == g->cap_inst) {
        int cap = g->cap_inst ? g->cap_inst * 2 : 8;
        struct asg_inst *grown = realloc(g->inst, (size_t)cap * sizeof(*grown));
        struct asg_inst **sc;
        int64_t *sk;

        if (!grown)
            return NULL;
        g->inst = grown;
        sc = realloc(g->scratch, (size_t)cap * sizeof(*sc));
        if (!sc)
            return NULL;
        g->scratch = sc;
        sk = realloc(g->scratch_key, (size_t)cap * sizeof(*sk));
        if (!sk)
            return NULL;
        g->scratch_key = sk;
        g->cap_inst = cap;
    }
    in = &g->inst[g->ninst++];
    memset(in, 0, sizeof(*in));
    in->info.healthy = 1;
    in->info.weight = 1;
    asg_census_count(&g->census, in, 1);
    g->members_ver++;
    asg_inputs_changed(asg);
    return in;
}

/* Undoes the inst_add() just made, when the instance could not be indexed. */
static void inst_unadd(struct sc_asg *asg, struct asg_group *g)
{
    asg_census_count(&g->census, &g->inst[g->ninst - 1], -1);
    g->ninst--;
    g->members_ver++;
    asg_inputs_changed(asg);
}

void asg_inst_remove(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in)
{
    int idx = (int)(in - g->inst);

    asg->step_dirty = 1;
    asg->step_changes++;
    asg_census_count(&g->census, in, -1);
    g->members_ver++;
    asg_inputs_changed(asg);
    asg_idx_del(asg, in->info.instance_id);
    asg_inst_cleanup(in);
    memmove(&g->inst[idx], &g->inst[idx + 1], (size_t)(g->ninst - idx - 1) * sizeof(*in));
    g->ninst--;
    for (int k = idx; k < g->ninst; k++)
        asg_idx_put(asg, g->inst[k].info.instance_id, g, k); /* existing keys: no allocation */
}

int asg_proc_suspended(const struct asg_group *g, enum sc_asg_process p)
{
    return (g->info.suspended >> p) & 1u;
}

int asg_group_warmed(const struct asg_group *g, int64_t now_ms)
{
    int n = 0;

    for (int i = 0; i < g->ninst; i++) {
        const struct asg_inst *in = &g->inst[i];

        n += in->info.lifecycle_state == SC_ASG_IN_SERVICE && !in->unhealthy &&
             now_ms >= in->warm_until_ms;
    }
    return n;
}

int asg_group_warming(const struct asg_group *g, int64_t now_ms)
{
    int n = 0;

    for (int i = 0; i < g->ninst; i++) {
        const struct asg_inst *in = &g->inst[i];

        if (in->unhealthy || !asg_counts_capacity(in->info.lifecycle_state))
            continue;
        n += in->info.lifecycle_state != SC_ASG_IN_SERVICE || now_ms < in->warm_until_ms;
    }
    return n;
}

int asg_in_cooldown(const struct asg_group *g, int64_t now_ms)
{
    return g->cooldown_pending_s >= 0 || now_ms < g->cooldown_until_ms;
}

void asg_start_cooldown(struct asg_group *g, int cooldown_s)
{
    g->cooldown_pending_s = cooldown_s < 0 ? 0 : cooldown_s;
}

void asg_lb_register_all(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                         int64_t now_ms)
{
    if (!asg->env.lb_register || asg_proc_suspended(g, SC_ASG_PROC_ADD_TO_LOAD_BALANCER))
        return;
    for (int k = 0; k < asg_lb_count(&g->info); k++)
        asg->env.lb_register(asg->env.ud, asg_lb_at(&g->info, k), in->info.instance_id, now_ms);
}

static void lb_deregister_all(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                              int64_t now_ms)
{
    if (!asg->env.lb_deregister)
        return;
    for (int k = 0; k < asg_lb_count(&g->info); k++)
        asg->env.lb_deregister(asg->env.ud, asg_lb_at(&g->info, k), in->info.instance_id, now_ms);
}

int asg_lb_draining(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in)
{
    if (!asg->env.lb_instance_state)
        return 0;
    for (int k = 0; k < asg_lb_count(&g->info); k++)
        if (asg->env.lb_instance_state(asg->env.ud, asg_lb_at(&g->info, k), in->info.instance_id) ==
            SC_ASG_LB_DRAINING)
            return 1;
    return 0;
}

enum sc_asg_ec2_state asg_ec2_state(struct sc_asg *asg, const struct asg_inst *in)
{
    if (!asg->env.instance_state)
        return SC_ASG_EC2_GONE;
    return asg->env.instance_state(asg->env.ud, in->info.instance_id);
}

void asg_inst_begin_terminate(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                              const char *cause, int64_t now_ms)
{
    char desc[128];
    struct asg_activity *a;

    /* A still-open activity of the instance (its launch, standby move) ends here, and the
     * open lifecycle actions of a launch with it. */
    asg_act_end(g, in, "Cancelled", now_ms);
    asg_hook_actions_drop(in);
    snprintf(desc, sizeof(desc), "Terminating EC2 instance: %s", in->info.instance_id);
    a = asg_act_new(asg, g, now_ms, desc, cause, "InProgress", 50, in->info.subnet_id,
                    in->info.availability_zone);
    if (a)
        memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
    asg_inst_set_state(asg, g, in, SC_ASG_TERMINATING);
    asg->step_dirty = 1;
    asg->step_changes++;
    lb_deregister_all(asg, g, in, now_ms);
}

/* --- launching -------------------------------------------------------------------------------- */

int asg_zone_count(const struct asg_group *g, const char *zone)
{
    int n = 0;

    for (int i = 0; i < g->ninst; i++)
        n += asg_counts_capacity(g->inst[i].info.lifecycle_state) &&
             strcmp(g->inst[i].info.availability_zone, zone) == 0;
    return n;
}

/* The enabled zone with the fewest instances (first listed on a tie). */
int asg_zone_avoided(const struct asg_group *g, int z, int64_t now_ms)
{
    return z < ASG_TRACKED_ZONES && now_ms < g->zone_fail_until[z];
}

/* The enabled zone with the fewest instances (first listed on a tie), avoiding zones
 * where a launch just failed while another zone is available. */
static int pick_zone(const struct asg_group *g, int64_t now_ms)
{
    int best = 0, best_n = INT32_MAX, best_avoided = 1;

    for (int z = 0; z < g->info.navailability_zones; z++) {
        int n = asg_zone_count(g, g->info.availability_zones[z]);
        int av = asg_zone_avoided(g, z, now_ms);

        if (av > best_avoided || (av == best_avoided && n >= best_n))
            continue;
        {
            best_avoided = av;
            best = z;
            best_n = n;
        }
    }
    return best;
}

static int any_zone_usable(const struct asg_group *g, int64_t now_ms)
{
    for (int z = 0; z < g->info.navailability_zones; z++)
        if (!asg_zone_avoided(g, z, now_ms))
            return 1;
    return 0;
}

/* What one launch sends and records: from the launch configuration, the launch template,
 * or one override of the mixed instances policy (ov NULL: the policy's template). */
struct launch_pick {
    const char *instance_type; /* NULL: the configuration's or the template's */
    const char *lt_id, *lt_name, *lt_version;
};

static void pick_source(const struct sc_asg_group_info *gi, const struct sc_asg_override_info *ov,
                        struct launch_pick *p)
{
    memset(p, 0, sizeof(*p));
    p->lt_id = gi->launch_template_id;
    p->lt_name = gi->launch_template_name;
    p->lt_version = gi->launch_template_version;
    if (!ov)
        return;
    p->instance_type = ov->instance_type;
    if (ov->launch_template_id || ov->launch_template_name) {
        p->lt_id = ov->launch_template_id;
        p->lt_name = ov->launch_template_name;
        p->lt_version = ov->launch_template_version;
    }
}

/* The instance type a template launches (for the instance's record), or NULL. */
static char *template_type(struct sc_asg *asg, const struct launch_pick *p)
{
    struct sc_asg_lt_resolved r;
    struct sc_error err = { 0 };

    memset(&r, 0, sizeof(r));
    if (!asg->env.launch_template_resolve ||
        asg->env.launch_template_resolve(asg->env.ud, p->lt_id, p->lt_id ? NULL : p->lt_name,
                                         p->lt_version, &r, &err) != SC_OK ||
        !r.instance_type[0])
        return NULL;
    return sc_strdup(r.instance_type);
}

int asg_launch_one(struct sc_asg *asg, struct asg_group *g, const char *cause, int64_t now_ms)
{
    return asg_launch_in(asg, g, pick_zone(g, now_ms), cause, now_ms, NULL, NULL);
}

int asg_launch_in(struct sc_asg *asg, struct asg_group *g, int z, const char *cause, int64_t now_ms,
                  struct sc_error *why, char type_out[SC_ASG_ID_LEN])
{
    struct sc_asg_group_info *gi = &g->info;
    const struct sc_asg_lc_info *lc = NULL;
    struct sc_asg_launch_spec spec;
    struct sc_asg_kv tags[SC_ASG_MAX_TAGS + 1];
    char id[SC_ASG_ID_LEN] = "";
    struct sc_error err = { 0 };
    enum sc_status st;
    struct asg_inst *in;
    struct asg_activity *a;
    struct launch_pick pick;
    int order[SC_ASG_MAX_OVERRIDES];
    char desc[128];
    int nt = 0, nord = 0;

    asg->step_dirty = 1;
    asg->step_changes++;

    memset(&spec, 0, sizeof(spec));
    memset(&pick, 0, sizeof(pick));
    spec.group_name = gi->auto_scaling_group_name;
    spec.zone = gi->availability_zones[z];
    spec.subnet_id = gi->subnets ? gi->subnets[z] : NULL;
    if (gi->launch_configuration_name) {
        lc = sc_asg_lc_find(asg, gi->launch_configuration_name);
        spec.launch_configuration_name = gi->launch_configuration_name;
        if (lc) {
            spec.image_id = lc->image_id;
            spec.instance_type = lc->instance_type;
            spec.key_name = lc->key_name;
            spec.user_data = lc->user_data;
            spec.monitoring_enabled = lc->instance_monitoring;
        }
    } else {
        nord = asg_mixed_order(asg, g, order);
        pick_source(gi, NULL, &pick);
    }
    tags[nt].key = "aws:autoscaling:groupName";
    tags[nt++].value = gi->auto_scaling_group_name;
    for (int k = 0; k < gi->ntags && nt < SC_ASG_MAX_TAGS + 1; k++) {
        if (!gi->tags[k].propagate_at_launch)
            continue;
        tags[nt].key = gi->tags[k].key;
        tags[nt++].value = gi->tags[k].value;
    }
    spec.tags = tags;
    spec.ntags = nt;

    if (!asg->env.run_instance) {
        st = sc_fail(&err, SC_ERR_INTERNAL, "No EC2 service is attached");
    } else if (gi->launch_configuration_name && !lc) {
        st = sc_fail(&err, SC_ERR_VALIDATION, "The launch configuration %s does not exist",
                     gi->launch_configuration_name);
    } else if (gi->launch_configuration_name || nord == 0) {
        spec.launch_template_id = pick.lt_id;
        spec.launch_template_name = pick.lt_id ? NULL : pick.lt_name; /* EC2 takes one */
        spec.launch_template_version = pick.lt_version;
        st = asg->env.run_instance(asg->env.ud, &spec, now_ms, id, &err);
    } else {
        /* the overrides in the allocation strategy's order: the next type when one fails */
        st = SC_ERR_INTERNAL;
        for (int k = 0; k < nord && st != SC_OK; k++) {
            pick_source(gi, &gi->mixed.overrides[order[k]], &pick);
            spec.instance_type = pick.instance_type;
            spec.launch_template_id = pick.lt_id;
            spec.launch_template_name = pick.lt_id ? NULL : pick.lt_name;
            spec.launch_template_version = pick.lt_version;
            memset(&err, 0, sizeof(err));
            st = asg->env.run_instance(asg->env.ud, &spec, now_ms, id, &err);
        }
    }
    if (type_out) {
        const char *t = spec.instance_type ? spec.instance_type : NULL;
        char *tt = t ? NULL : template_type(asg, &pick);

        snprintf(type_out, SC_ASG_ID_LEN, "%s", t ? t : tt ? tt : "");
        free(tt);
    }
    if (st != SC_OK) {
        char fdesc[SC_ERR_MESSAGE_LEN + 128];
        size_t ml = strlen(err.message);

        if (why)
            *why = err;

        /* one period between the reason and the rest, whether or not the reason ends in one
         * (InsufficientInstanceCapacity's text does) */
        if (ml > 0 && err.message[ml - 1] == '.')
            ml--;
        snprintf(
            fdesc, sizeof(fdesc),
            "Launching a new EC2 instance.  Status Reason: %.*s. Launching EC2 instance failed.",
            (int)ml, err.message);
        a = asg_act_new(asg, g, now_ms, fdesc, cause, "Failed", 100, spec.subnet_id, spec.zone);
        if (a) {
            a->info.status_message = sc_strdup(err.message);
            a->info.end_ms = now_ms > 0 ? now_ms : 1;
            g->acts_ver++;
        }
        if (z < ASG_TRACKED_ZONES)
            g->zone_fail_until[z] = now_ms + ASG_ZONE_AVOID_MS;
        /* Another zone may take it at the next step; else wait before retrying. */
        g->next_launch_ms = any_zone_usable(g, now_ms) ? now_ms + 1 : now_ms + ASG_LAUNCH_RETRY_MS;
        return -1;
    }
    in = inst_add(asg, g);
    if (!in) {
        if (asg->env.terminate_instance)
            asg->env.terminate_instance(asg->env.ud, id, now_ms);
        return -1;
    }
    snprintf(in->info.instance_id, sizeof(in->info.instance_id), "%s", id);
    if (asg_idx_put(asg, id, g, g->ninst - 1) != 0) {
        inst_unadd(asg, g);
        if (asg->env.terminate_instance)
            asg->env.terminate_instance(asg->env.ud, id, now_ms);
        return -1;
    }
    snprintf(in->info.availability_zone, sizeof(in->info.availability_zone), "%s", spec.zone);
    snprintf(in->info.subnet_id, sizeof(in->info.subnet_id), "%s",
             spec.subnet_id ? spec.subnet_id : "");
    asg_inst_set_state(asg, g, in, SC_ASG_PENDING);
    in->info.launch_configuration_name = sc_strdup(gi->launch_configuration_name);
    if (!gi->launch_configuration_name) {
        in->info.launch_template_id = sc_strdup(pick.lt_id);
        in->info.launch_template_name = sc_strdup(pick.lt_name);
        in->info.launch_template_version = sc_strdup(pick.lt_version);
    }
    in->info.instance_type = lc                   ? sc_strdup(lc->instance_type)
                             : pick.instance_type ? sc_strdup(pick.instance_type)
                                                  : template_type(asg, &pick);
    asg_inst_set_weight(asg, g, in, asg_mixed_weight(g, in->info.instance_type));
    in->info.protected_from_scale_in = gi->new_instances_protected_from_scale_in;
    in->info.launch_ms = now_ms;
    snprintf(desc, sizeof(desc), "Launching a new EC2 instance: %s", id);
    a = asg_act_new(asg, g, now_ms, desc, cause, "PreInService", 30, in->info.subnet_id,
                    in->info.availability_zone);
    if (a)
        memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
    return in->info.weight;
}

int asg_zone_listed(const struct asg_group *g, const char *zone)
{
    for (int z = 0; z < g->info.navailability_zones; z++)
        if (strcmp(g->info.availability_zones[z], zone) == 0)
            return 1;
    return 0;
}

/* --- operations on instances ------------------------------------------------------------------ */

enum sc_status sc_asg_set_desired_capacity(struct sc_asg *asg, const char *group, int desired,
                                           int honor_cooldown, int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    if (desired > g->info.max_size)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "New SetDesiredCapacity value %d is above max value %d for the AutoScalingGroup.",
            desired, g->info.max_size);
    if (desired < g->info.min_size)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "New SetDesiredCapacity value %d is below min value %d for the AutoScalingGroup.",
            desired, g->info.min_size);
    if (honor_cooldown && asg_in_cooldown(g, now_ms))
        return sc_fail(
            err, SC_ERR_SCALING_ACTIVITY_IN_PROGRESS,
            "Scaling activity is in progress or the group is in cooldown; the request was not honored because HonorCooldown is true.");
    if (desired != g->info.desired_capacity) {
        asg_set_desired(g, desired, now_ms, "a user request explicitly set group desired capacity");
        asg_start_cooldown(g, g->info.default_cooldown);
    }
    return SC_OK;
}

static enum sc_status instance_not_found(const char *id, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VALIDATION,
                   "Instance Id not found - No managed instance found for instance ID: %s",
                   id ? id : "null");
}

enum sc_status sc_asg_terminate_instance(struct sc_asg *asg, const char *instance_id,
                                         int should_decrement, int64_t now_ms,
                                         const struct sc_asg_activity_info **out,
                                         struct sc_error *err)
{
    struct asg_group *g = NULL;
    struct asg_inst *in = asg_inst_find(asg, instance_id, &g);
    char cause[ASG_CAUSE_LEN] = "";
    struct asg_activity *a;

    if (!in)
        return instance_not_found(instance_id, err);
    if (asg_is_warmed(in->info.lifecycle_state)) { /* a warm pool's (asg_warm.c) */
        a = asg_warm_terminate(asg, g, in, now_ms);
        if (out)
            *out = a ? &a->info : NULL;
        return SC_OK;
    }
    if (!asg_counts_capacity(in->info.lifecycle_state) &&
        in->info.lifecycle_state != SC_ASG_STANDBY) {
        /* Already leaving: AWS answers with the activity in progress. */
        a = asg_act_of(g, in);
        if (out)
            *out = a ? &a->info : NULL;
        return SC_OK;
    }
    if (should_decrement) {
        int cap = sc_asg_group_capacity(&g->info);
        int counts = in->info.lifecycle_state != SC_ASG_STANDBY;

        if (counts && g->info.desired_capacity <= g->info.min_size)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Currently, desiredSize equals minSize (%d). Terminating instance without replacement will violate group's min size constraint. Either set shouldDecrementDesiredCapacity flag to false or lower group's min size.",
                g->info.min_size);
        if (counts) {
            int w = in->info.weight;

            asg_cause_add(
                cause, now_ms,
                "instance %s was taken out of service in response to a user request, shrinking the capacity from %d to %d",
                in->info.instance_id, cap, cap - w);
            g->info.desired_capacity = g->info.desired_capacity - w > g->info.min_size
                                           ? g->info.desired_capacity - w
                                           : g->info.min_size;
        } else {
            asg_cause_add(cause, now_ms,
                          "instance %s was taken out of service in response to a user request",
                          in->info.instance_id);
        }
    } else {
        asg_cause_add(cause, now_ms,
                      "instance %s was taken out of service in response to a user request",
                      in->info.instance_id);
    }
    asg_inst_begin_terminate(asg, g, in, cause, now_ms);
    a = asg_act_of(g, in);
    if (out)
        *out = a ? &a->info : NULL;
    return SC_OK;
}

enum sc_status sc_asg_set_instance_health(struct sc_asg *asg, const char *instance_id,
                                          const char *health_status,
                                          int should_respect_grace_period, int64_t now_ms,
                                          struct sc_error *err)
{
    struct asg_group *g = NULL;
    struct asg_inst *in = asg_inst_find(asg, instance_id, &g);
    int healthy;

    if (!health_status ||
        (strcmp(health_status, "Healthy") != 0 && strcmp(health_status, "Unhealthy") != 0))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Invalid health status: %s. Valid values are Healthy and Unhealthy.",
                       health_status ? health_status : "null");
    if (!in)
        return instance_not_found(instance_id, err);
    healthy = strcmp(health_status, "Healthy") == 0;
    if (should_respect_grace_period && in->info.lifecycle_state == SC_ASG_IN_SERVICE &&
        now_ms < in->inservice_ms + (int64_t)g->info.health_check_grace_period * 1000)
        return SC_OK; /* inside the grace period the report is ignored */
    if (in->info.lifecycle_state == SC_ASG_STANDBY)
        return SC_OK; /* standby: status frozen */
    if (healthy) {
        if (asg_counts_capacity(in->info.lifecycle_state)) {
            asg_inst_set_unhealthy(asg, g, in, ASG_HEALTHY);
            in->info.healthy = 1;
        }
    } else if (asg_counts_capacity(in->info.lifecycle_state)) {
        asg_inst_set_unhealthy(asg, g, in, ASG_UNHEALTHY_USER);
        in->info.healthy = 0;
    }
    return SC_OK;
}

static enum sc_status check_ids(const char *const *ids, int nids, struct sc_error *err)
{
    if (nids > SC_ASG_MAX_IDS_PER_CALL)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value at 'instanceIds' failed to satisfy constraint: Member must have length less than or equal to %d",
            SC_ASG_MAX_IDS_PER_CALL);
    for (int i = 0; i < nids; i++)
        if (!ids[i] || !ids[i][0])
            return sc_fail(err, SC_ERR_VALIDATION, "Instance ID must not be empty.");
    return SC_OK;
}

/* The member of g with this id, or NULL with err set. */
static struct asg_inst *member(struct sc_asg *asg, struct asg_group *g, const char *id,
                               struct sc_error *err)
{
    struct asg_group *owner = NULL;
    struct asg_inst *in = asg_inst_find(asg, id, &owner);

    if (!in || owner != g) {
        sc_fail(err, SC_ERR_VALIDATION, "The instance %s is not part of Auto Scaling group %s.", id,
                g->info.auto_scaling_group_name);
        return NULL;
    }
    return in;
}

enum sc_status sc_asg_attach_instances(struct sc_asg *asg, const char *group,
                                       const char *const *ids, int nids, int64_t now_ms,
                                       struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    char zones[SC_ASG_MAX_IDS_PER_CALL][SC_ASG_ID_LEN];
    enum sc_status st;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    st = check_ids(ids, nids, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < nids; i++) {
        enum sc_asg_ec2_state es;
        int zone_ok = 0;

        if (asg_inst_find(asg, ids[i], NULL))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The instance %s is already part of an Auto Scaling group.", ids[i]);
        if (!asg->env.instance_zone || asg->env.instance_zone(asg->env.ud, ids[i], zones[i]) != 0)
            return sc_fail(err, SC_ERR_VALIDATION, "Instance %s is not valid.", ids[i]);
        es = asg->env.instance_state ? asg->env.instance_state(asg->env.ud, ids[i])
                                     : SC_ASG_EC2_GONE;
        if (es != SC_ASG_EC2_RUNNING && es != SC_ASG_EC2_IMPAIRED)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Instance %s is not in correct state. Instances must be running to attach.",
                ids[i]);
        for (int z = 0; z < g->info.navailability_zones; z++)
            zone_ok |= strcmp(g->info.availability_zones[z], zones[i]) == 0;
        if (!zone_ok)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Instance %s is in Availability Zone %s, which is not enabled for Auto Scaling group %s.",
                ids[i], zones[i], g->info.auto_scaling_group_name);
    }
    if (g->info.desired_capacity + nids > g->info.max_size)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "AutoScalingGroup: %s has max-size: %d and desired-capacity: %d. Attaching %d instance(s) would exceed the group's max-size.",
            g->info.auto_scaling_group_name, g->info.max_size, g->info.desired_capacity, nids);
    for (int i = 0; i < nids; i++) {
        int cap = sc_asg_group_capacity(&g->info);
        char cause[ASG_CAUSE_LEN] = "", desc[128];
        struct asg_inst *in = inst_add(asg, g);
        struct asg_activity *a;
        int sub = -1;

        if (!in)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        snprintf(in->info.instance_id, sizeof(in->info.instance_id), "%s", ids[i]);
        if (asg_idx_put(asg, ids[i], g, g->ninst - 1) != 0) {
            inst_unadd(asg, g);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        snprintf(in->info.availability_zone, sizeof(in->info.availability_zone), "%s", zones[i]);
        for (int z = 0; g->info.subnets && z < g->info.navailability_zones; z++)
            if (strcmp(g->info.availability_zones[z], zones[i]) == 0)
                sub = z;
        snprintf(in->info.subnet_id, sizeof(in->info.subnet_id), "%s",
                 sub >= 0 ? g->info.subnets[sub] : "");
        asg_inst_set_state(asg, g, in, SC_ASG_PENDING);
        in->skip_launch_hooks = 1; /* attached: no launch hooks (docs/autoscaling.md 3.2) */
        in->info.launch_ms = now_ms;
        in->info.protected_from_scale_in = g->info.new_instances_protected_from_scale_in;
        g->info.desired_capacity++;
        asg_cause_add(
            cause, now_ms,
            "an instance was added in response to a user request. Instance %s was attached, increasing the capacity from %d to %d",
            ids[i], cap, cap + 1);
        snprintf(desc, sizeof(desc), "Attaching an existing EC2 instance: %s", ids[i]);
        a = asg_act_new(asg, g, now_ms, desc, cause, "PreInService", 30, in->info.subnet_id,
                        in->info.availability_zone);
        if (a)
            memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
    }
    return SC_OK;
}

enum sc_status sc_asg_detach_instances(struct sc_asg *asg, const char *group,
                                       const char *const *ids, int nids, int should_decrement,
                                       int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    enum sc_status st;
    int counted = 0;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    st = check_ids(ids, nids, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < nids; i++) {
        struct asg_inst *in = member(asg, g, ids[i], err);

        if (!in)
            return err ? err->status : SC_ERR_VALIDATION;
        if (!asg_counts_capacity(in->info.lifecycle_state) &&
            in->info.lifecycle_state != SC_ASG_STANDBY)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The instance %s is not in InService or Standby.", ids[i]);
        counted += asg_counts_capacity(in->info.lifecycle_state) ? in->info.weight : 0;
    }
    if (should_decrement && g->info.desired_capacity - counted < g->info.min_size)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Detaching %d instance(s) with decrement would put the desired capacity of AutoScalingGroup %s below its min size %d.",
            nids, g->info.auto_scaling_group_name, g->info.min_size);
    for (int i = 0; i < nids; i++) {
        struct asg_inst *in = asg_inst_find(asg, ids[i], NULL);
        int cap = sc_asg_group_capacity(&g->info);
        int counts = asg_counts_capacity(in->info.lifecycle_state);
        char cause[ASG_CAUSE_LEN] = "", desc[128];
        struct asg_activity *a;

        if (should_decrement && counts) {
            g->info.desired_capacity -= in->info.weight;
            asg_cause_add(
                cause, now_ms,
                "instance %s was detached in response to a user request, shrinking the capacity from %d to %d",
                ids[i], cap, cap - in->info.weight);
        } else {
            asg_cause_add(cause, now_ms, "instance %s was detached in response to a user request",
                          ids[i]);
        }
        asg_act_end(g, in, "Cancelled", now_ms);
        snprintf(desc, sizeof(desc), "Detaching EC2 instance: %s", ids[i]);
        a = asg_act_new(asg, g, now_ms, desc, cause, "InProgress", 50, in->info.subnet_id,
                        in->info.availability_zone);
        if (a)
            memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
        asg_inst_set_state(asg, g, in, SC_ASG_DETACHING);
        lb_deregister_all(asg, g, in, now_ms);
    }
    return SC_OK;
}

/* The checks both standby moves make: g (group's) exists, ids are well formed, each is a
 * member of g in lifecycle state want (named want_name in the error); *units their weight. */
static enum sc_status standby_members(struct sc_asg *asg, struct asg_group *g, const char *group,
                                      const char *const *ids, int nids, enum sc_asg_lifecycle want,
                                      const char *want_name, int *units, struct sc_error *err)
{
    enum sc_status st;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    st = check_ids(ids, nids, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < nids; i++) {
        struct asg_inst *in = member(asg, g, ids[i], err);

        if (!in)
            return err ? err->status : SC_ERR_VALIDATION;
        if (in->info.lifecycle_state != want)
            return sc_fail(err, SC_ERR_VALIDATION, "The instance %s is not in %s.", ids[i],
                           want_name);
        *units += in->info.weight;
    }
    return SC_OK;
}

enum sc_status sc_asg_enter_standby(struct sc_asg *asg, const char *group, const char *const *ids,
                                    int nids, int should_decrement, int64_t now_ms,
                                    struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    int units = 0;
    enum sc_status st =
        standby_members(asg, g, group, ids, nids, SC_ASG_IN_SERVICE, "InService", &units, err);

    if (st != SC_OK)
        return st;
    if (should_decrement && g->info.desired_capacity - units < g->info.min_size)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "AutoScalingGroup %s has min-size=%d, max-size=%d, and desired-size=%d. To place into standby %d instances, please update the AutoScalingGroup sizes appropriately.",
            g->info.auto_scaling_group_name, g->info.min_size, g->info.max_size,
            g->info.desired_capacity, nids);
    for (int i = 0; i < nids; i++) {
        struct asg_inst *in = asg_inst_find(asg, ids[i], NULL);
        int cap = sc_asg_group_capacity(&g->info);
        char cause[ASG_CAUSE_LEN] = "", desc[128];
        struct asg_activity *a;

        if (should_decrement) {
            g->info.desired_capacity -= in->info.weight;
            asg_cause_add(
                cause, now_ms,
                "instance %s was moved to standby in response to a user request, shrinking the capacity from %d to %d",
                ids[i], cap, cap - in->info.weight);
        } else {
            asg_cause_add(cause, now_ms,
                          "instance %s was moved to standby in response to a user request", ids[i]);
        }
        snprintf(desc, sizeof(desc), "Moving EC2 instance to Standby: %s", ids[i]);
        a = asg_act_new(asg, g, now_ms, desc, cause, "InProgress", 50, in->info.subnet_id,
                        in->info.availability_zone);
        if (a)
            memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
        asg_inst_set_state(asg, g, in, SC_ASG_ENTERING_STANDBY);
        lb_deregister_all(asg, g, in, now_ms);
    }
    return SC_OK;
}

enum sc_status sc_asg_exit_standby(struct sc_asg *asg, const char *group, const char *const *ids,
                                   int nids, int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    int units = 0;
    enum sc_status st =
        standby_members(asg, g, group, ids, nids, SC_ASG_STANDBY, "Standby", &units, err);

    if (st != SC_OK)
        return st;
    if (g->info.desired_capacity + units > g->info.max_size)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "AutoScalingGroup %s has min-size=%d, max-size=%d, and desired-size=%d. To exit from standby %d instances, please update the AutoScalingGroup sizes appropriately.",
            g->info.auto_scaling_group_name, g->info.min_size, g->info.max_size,
            g->info.desired_capacity, nids);
    for (int i = 0; i < nids; i++) {
        struct asg_inst *in = asg_inst_find(asg, ids[i], NULL);
        int cap = sc_asg_group_capacity(&g->info);
        char cause[ASG_CAUSE_LEN] = "", desc[128];
        struct asg_activity *a;

        g->info.desired_capacity += in->info.weight;
        asg_cause_add(
            cause, now_ms,
            "instance %s was moved out of standby in response to a user request, increasing the capacity from %d to %d",
            ids[i], cap, cap + in->info.weight);
        snprintf(desc, sizeof(desc), "Moving EC2 instance out of Standby: %s", ids[i]);
        a = asg_act_new(asg, g, now_ms, desc, cause, "PreInService", 30, in->info.subnet_id,
                        in->info.availability_zone);
        if (a)
            memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
        asg_inst_set_state(asg, g, in, SC_ASG_PENDING);
        in->from_standby = 1;
    }
    return SC_OK;
}
