/* scaler/asg_step.c: the Auto Scaling step (lifecycle, health sweep, replacement,
 * reconciliation, rebalancing, group metrics) and the termination choice (see asg.h). */
#include "scaler/asg.h"

#include <string.h>

#include "scaler/asg_internal.h"
#include "scaler/hash.h"

/* --- termination choice (spec 3.5) ------------------------------------------------------------ */

static int64_t lc_created(const struct sc_asg *asg, const struct asg_inst *in)
{
    const struct sc_asg_lc_info *lc = in->info.launch_configuration_name
                                          ? sc_asg_lc_find(asg, in->info.launch_configuration_name)
                                          : NULL;

    return lc ? lc->created_ms : INT64_MIN; /* a deleted configuration is the oldest */
}

/* The key keep_max() keeps for the oldest configuration: -lc_created(), and the largest
 * key for a deleted one (it is the oldest; its negation would overflow). */
static int64_t lc_age_key(const struct sc_asg *asg, const struct asg_inst *in)
{
    int64_t created = lc_created(asg, in);

    return created == INT64_MIN ? INT64_MAX : -created;
}

static int is_current_source(const struct asg_group *g, const struct asg_inst *in)
{
    const struct sc_asg_group_info *gi = &g->info;

    if (gi->launch_configuration_name)
        return in->info.launch_configuration_name &&
               strcmp(in->info.launch_configuration_name, gi->launch_configuration_name) == 0;
    if (!in->info.launch_template_id && !in->info.launch_template_name)
        return 0;
    return (!gi->launch_template_version && !in->info.launch_template_version) ||
           (gi->launch_template_version && in->info.launch_template_version &&
            strcmp(gi->launch_template_version, in->info.launch_template_version) == 0);
}

/* Keeps in cand[] only the entries whose key is the maximum. */
static int keep_max(struct asg_inst **cand, int n, const int64_t *key)
{
    int64_t best = INT64_MIN;
    int m = 0;

    for (int i = 0; i < n; i++)
        if (key[i] > best)
            best = key[i];
    for (int i = 0; i < n; i++)
        if (key[i] == best)
            cand[m++] = cand[i];
    return m;
}

static int apply_policy(const struct sc_asg *asg, const struct asg_group *g, const char *policy,
                        struct asg_inst **cand, int n, int64_t now_ms)
{
    int64_t *key = g->scratch_key;

    if (strcmp(policy, "OldestLaunchConfiguration") == 0 ||
        strcmp(policy, "OldestLaunchTemplate") == 0) {
        int lt = strcmp(policy, "OldestLaunchTemplate") == 0;

        for (int i = 0; i < n; i++) {
            int uses = lt ? (cand[i]->info.launch_template_id || cand[i]->info.launch_template_name)
                          : cand[i]->info.launch_configuration_name != NULL;

            key[i] = uses ? !is_current_source(g, cand[i]) : -1;
        }
        n = keep_max(cand, n, key);
        if (!lt) {
            for (int i = 0; i < n; i++)
                key[i] = lc_age_key(asg, cand[i]);
            n = keep_max(cand, n, key);
        }
    } else if (strcmp(policy, "ClosestToNextInstanceHour") == 0) {
        for (int i = 0; i < n; i++)
            key[i] = (now_ms - cand[i]->info.launch_ms) % 3600000;
        n = keep_max(cand, n, key);
    } else if (strcmp(policy, "NewestInstance") == 0) {
        for (int i = 0; i < n; i++)
            key[i] = cand[i]->info.launch_ms;
        n = keep_max(cand, n, key);
    } else if (strcmp(policy, "OldestInstance") == 0) {
        for (int i = 0; i < n; i++)
            key[i] = -cand[i]->info.launch_ms;
        n = keep_max(cand, n, key);
    } else if (strcmp(policy, "Default") == 0) {
        /* Launch-configuration instances first, then the oldest configuration, then the
         * closest to the next billing hour. */
        for (int i = 0; i < n; i++)
            key[i] = cand[i]->info.launch_configuration_name != NULL;
        n = keep_max(cand, n, key);
        for (int i = 0; i < n; i++)
            key[i] = !is_current_source(g, cand[i]);
        n = keep_max(cand, n, key);
        for (int i = 0; i < n; i++)
            key[i] = lc_age_key(asg, cand[i]);
        n = keep_max(cand, n, key);
        for (int i = 0; i < n; i++)
            key[i] = (now_ms - cand[i]->info.launch_ms) % 3600000;
        n = keep_max(cand, n, key);
    }
    /* AllocationStrategy and custom (Lambda) policies narrow nothing here. */
    return n;
}

/* The instance scale-in terminates, among those whose weight fits in excess units (the
 * capacity stays at or above desired), or NULL when none may go (protected, or too heavy). */
static struct asg_inst *pick_victim(struct sc_asg *asg, struct asg_group *g, int excess,
                                    int64_t now_ms)
{
    struct asg_inst **cand = g->scratch;
    int64_t *key = g->scratch_key;
    int n = 0, has_default = 0;

    for (int i = 0; i < g->ninst; i++) {
        struct asg_inst *in = &g->inst[i];

        /* protection starts InService (docs/autoscaling.md 4) */
        int protected_ =
            in->info.protected_from_scale_in && in->info.lifecycle_state == SC_ASG_IN_SERVICE;

        if (asg_counts_capacity(in->info.lifecycle_state) && !protected_ &&
            in->info.weight <= excess)
            cand[n++] = in;
    }
    if (n == 0 || !cand || !key)
        return NULL;
    /* Balance beats policies: keep the zone(s) with the most instances. */
    for (int i = 0; i < n; i++)
        key[i] = asg_zone_listed(g, cand[i]->info.availability_zone)
                     ? asg_zone_count(g, cand[i]->info.availability_zone)
                     : INT32_MAX; /* a zone no longer enabled goes first */
    n = keep_max(cand, n, key);
    for (int p = 0; p < g->info.ntermination_policies && n > 1; p++) {
        has_default |= strcmp(g->info.termination_policies[p], "Default") == 0;
        n = apply_policy(asg, g, g->info.termination_policies[p], cand, n, now_ms);
    }
    if (n > 1 && !has_default)
        n = apply_policy(asg, g, "Default", cand, n, now_ms);
    return cand[n > 1 ? (int)sc_rng_below(asg->rng, (uint64_t)n) : 0];
}

/* --- the step: lifecycle, health, reconcile --------------------------------------------------- */

static int warmup_ms(const struct asg_group *g)
{
    return asg_group_warmup_s(g) * 1000;
}

static void advance_lifecycle(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    /* InService and Standby instances stay as they are: the pass below would touch none */
    if (asg_census_transitional(&g->census) == 0)
        return;
    for (int i = 0; i < g->ninst;) {
        struct asg_inst *in = &g->inst[i];
        enum sc_asg_ec2_state es;

        switch (in->info.lifecycle_state) {
        case SC_ASG_PENDING:
        case SC_ASG_PENDING_WAIT:
        case SC_ASG_PENDING_PROCEED:
            es = asg_ec2_state(asg, in);
            /* launch hooks first: Pending:Wait holds it out of its load balancers */
            if ((es == SC_ASG_EC2_RUNNING || es == SC_ASG_EC2_IMPAIRED) &&
                asg_hook_launch_step(asg, g, in, now_ms)) {
                asg->step_dirty = 1;
                asg->step_changes++;
                asg_lb_register_all(asg, g, in, now_ms);
                asg_inst_set_state(asg, g, in, SC_ASG_IN_SERVICE);
                in->inservice_ms = now_ms;
                asg_inputs_changed(asg);
                in->warm_until_ms = in->from_standby ? now_ms : now_ms + warmup_ms(g);
                if (in->warm_until_ms > g->warm_max_ms)
                    g->warm_max_ms = in->warm_until_ms;
                in->from_standby = 0;
                asg_act_end(g, in, "Successful", now_ms);
            }
            break;
        case SC_ASG_TERMINATING:
        case SC_ASG_TERMINATING_WAIT:
        case SC_ASG_TERMINATING_PROCEED:
            if (!in->terminate_sent) {
                if (asg_lb_draining(asg, g, in)) {
                    asg_act_set(g, in, "WaitingForELBConnectionDraining", 50);
                    break;
                }
                /* deregistered and drained: terminate hooks next (Terminating:Wait) */
                if (!asg_hook_terminate_step(asg, g, in, now_ms))
                    break;
                if (asg->env.terminate_instance)
                    asg->env.terminate_instance(asg->env.ud, in->info.instance_id, now_ms);
                in->terminate_sent = 1;
                asg->step_dirty = 1;
                asg->step_changes++;
                asg_act_set(g, in, "InProgress", 50);
            }
            es = asg_ec2_state(asg, in);
            if (es == SC_ASG_EC2_GONE) {
                asg_inst_set_state(asg, g, in, SC_ASG_TERMINATED);
                asg_act_end(g, in, "Successful", now_ms);
                asg_inst_remove(asg, g, in);
                continue;
            }
            break;
        case SC_ASG_DETACHING:
            if (asg_lb_draining(asg, g, in))
                break;
            asg_inst_set_state(asg, g, in, SC_ASG_DETACHED);
            asg->step_dirty = 1;
            asg->step_changes++;
            asg_act_end(g, in, "Successful", now_ms);
            asg_inst_remove(asg, g, in);
            continue;
        case SC_ASG_ENTERING_STANDBY:
            if (asg_lb_draining(asg, g, in))
                break;
            asg_inst_set_state(asg, g, in, SC_ASG_STANDBY);
            asg->step_dirty = 1;
            asg->step_changes++;
            asg_act_end(g, in, "Successful", now_ms);
            break;
        default:
            break;
        }
        i++;
    }
}

/* Marks instances unhealthy from EC2 state (even inside the grace period) and, with
 * HealthCheckType ELB and past the grace period, from their load balancers. Lowers *wake_ms
 * to the first time a later sweep on unchanged inputs could mark something (an impaired
 * allowance or a grace period running out). */
static void health_sweep(struct sc_asg *asg, struct asg_group *g, int64_t now_ms, int64_t *wake_ms,
                         int *changed)
{
    int elb = strcmp(g->info.health_check_type, "ELB") == 0;

    g->elb_budget = g->info.desired_capacity / 10 > 1 ? g->info.desired_capacity / 10 : 1;
    if (asg_proc_suspended(g, SC_ASG_PROC_HEALTH_CHECK))
        return;
    for (int i = 0; i < g->ninst; i++) {
        struct asg_inst *in = &g->inst[i];
        enum sc_asg_lifecycle s = in->info.lifecycle_state;
        enum sc_asg_ec2_state es;

        if (in->unhealthy || !asg_counts_capacity(s))
            continue;
        es = asg_ec2_state(asg, in);
        if (es == SC_ASG_EC2_STOPPED || es == SC_ASG_EC2_STOPPING ||
            es == SC_ASG_EC2_SHUTTING_DOWN || es == SC_ASG_EC2_GONE) {
            asg_inst_set_unhealthy(asg, g, in, ASG_UNHEALTHY_EC2);
            in->info.healthy = 0;
            *changed = 1;
            continue;
        }
        if (es == SC_ASG_EC2_IMPAIRED) {
            if (!in->impaired_since_ms) {
                in->impaired_since_ms = now_ms;
                asg_inputs_changed(asg);
                *changed = 1;
            }
            if (now_ms - in->impaired_since_ms >= ASG_IMPAIRED_GRACE_MS) {
                asg_inst_set_unhealthy(asg, g, in, ASG_UNHEALTHY_EC2);
                in->info.healthy = 0;
                *changed = 1;
                continue;
            }
            if (in->impaired_since_ms + ASG_IMPAIRED_GRACE_MS < *wake_ms)
                *wake_ms = in->impaired_since_ms + ASG_IMPAIRED_GRACE_MS;
        } else if (in->impaired_since_ms) {
            in->impaired_since_ms = 0;
            asg_inputs_changed(asg);
            *changed = 1;
        }
        if (elb && s == SC_ASG_IN_SERVICE && asg->env.lb_instance_state &&
            now_ms < in->inservice_ms + (int64_t)g->info.health_check_grace_period * 1000 &&
            in->inservice_ms + (int64_t)g->info.health_check_grace_period * 1000 < *wake_ms)
            *wake_ms = in->inservice_ms + (int64_t)g->info.health_check_grace_period * 1000;
        if (elb && s == SC_ASG_IN_SERVICE && asg->env.lb_instance_state &&
            now_ms >= in->inservice_ms + (int64_t)g->info.health_check_grace_period * 1000) {
            for (int k = 0; k < asg_lb_count(&g->info); k++) {
                if (asg->env.lb_instance_state(asg->env.ud, asg_lb_at(&g->info, k),
                                               in->info.instance_id) == SC_ASG_LB_OUT_OF_SERVICE) {
                    asg_inst_set_unhealthy(asg, g, in, ASG_UNHEALTHY_ELB);
                    in->info.healthy = 0;
                    *changed = 1;
                    break;
                }
            }
        }
    }
}

/* Terminates instances marked unhealthy (the launch follows in reconcile; cooldown is
 * ignored). ELB-marked ones at most 10% of desired (min 1) per sweep. */
static void replace_unhealthy(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    if (asg_proc_suspended(g, SC_ASG_PROC_REPLACE_UNHEALTHY) ||
        asg_proc_suspended(g, SC_ASG_PROC_TERMINATE) || g->census.unhealthy_cap == 0)
        return;
    for (int i = 0; i < g->ninst; i++) {
        struct asg_inst *in = &g->inst[i];
        char cause[ASG_CAUSE_LEN];

        if (!in->unhealthy || !asg_counts_capacity(in->info.lifecycle_state))
            continue;
        cause[0] = '\0';
        switch (in->unhealthy) {
        case ASG_UNHEALTHY_EC2:
            asg_cause_add(
                cause, now_ms,
                "an instance was taken out of service in response to a EC2 health check indicating it has been terminated or stopped");
            break;
        case ASG_UNHEALTHY_ELB:
            if (g->elb_budget <= 0)
                continue;
            g->elb_budget--;
            asg_cause_add(
                cause, now_ms,
                "an instance was taken out of service in response to an ELB system health check failure");
            break;
        default:
            asg_cause_add(
                cause, now_ms,
                "an instance was taken out of service in response to a user health-check");
            break;
        }
        asg_inst_begin_terminate(asg, g, in, cause, now_ms);
    }
}

/* Instances counting toward capacity per enabled zone (by the first listed zone of that
 * name, into count[], ASG_TRACKED_ZONES entries) and, returned, those in no enabled zone.
 * One pass over the instances, remembered until an instance comes, goes or changes state,
 * or the zones are replaced. */
int asg_zone_counts(struct asg_group *g, int count[ASG_TRACKED_ZONES])
{
    int nz = g->info.navailability_zones;

    if (!g->zc_valid || g->zc_members_ver != g->members_ver || g->zc_zones_gen != g->zones_gen) {
        memset(g->zc_count, 0, sizeof(g->zc_count));
        g->zc_stray = 0;
        for (int i = 0; i < g->ninst; i++) {
            struct asg_inst *in = &g->inst[i];
            int z = 0;

            if (!asg_counts_capacity(in->info.lifecycle_state))
                continue;
            if (in->zone_gen == g->zones_gen + 1) {
                z = in->zone_idx;
            } else {
                while (z < nz &&
                       strcmp(g->info.availability_zones[z], in->info.availability_zone) != 0)
                    z++;
                in->zone_gen = g->zones_gen + 1;
                in->zone_idx = z;
            }
            if (z == nz)
                g->zc_stray++;
            else if (z < ASG_TRACKED_ZONES)
                g->zc_count[z]++;
        }
        g->zc_valid = 1;
        g->zc_members_ver = g->members_ver;
        g->zc_zones_gen = g->zones_gen;
    }
    memcpy(count, g->zc_count, sizeof(g->zc_count));
    return g->zc_stray;
}

/* AZRebalance (spec 3.5): when the enabled zones differ by more than one instance, or an
 * instance sits in a zone no longer enabled, launch one into the emptiest zone first (the
 * group may pass MaxSize by max(10%, 1) meanwhile); the termination follows once it is
 * up, chosen from the fullest zone. */
static void maybe_rebalance(struct sc_asg *asg, struct asg_group *g, int cap, int64_t now_ms)
{
    int lo = INT32_MAX, hi = 0, stray = 0;
    int slack = g->info.max_size / 10 > 1 ? g->info.max_size / 10 : 1;
    int count[ASG_TRACKED_ZONES] = { 0 }, nz = g->info.navailability_zones;
    char cause[ASG_CAUSE_LEN];

    if (asg_proc_suspended(g, SC_ASG_PROC_AZ_REBALANCE) ||
        asg_proc_suspended(g, SC_ASG_PROC_LAUNCH) || asg_proc_suspended(g, SC_ASG_PROC_TERMINATE) ||
        asg_group_busy(g) || cap == 0 || now_ms < g->next_launch_ms)
        return;
    stray = asg_zone_counts(g, count);
    for (int z = 1; z < nz && z < ASG_TRACKED_ZONES; z++) /* a zone listed twice */
        for (int k = 0; k < z; k++)
            if (strcmp(g->info.availability_zones[k], g->info.availability_zones[z]) == 0) {
                count[z] = count[k];
                break;
            }
    for (int z = 0; z < nz; z++) {
        int n = z < ASG_TRACKED_ZONES ? count[z] : asg_zone_count(g, g->info.availability_zones[z]);

        if (asg_zone_avoided(g, z, now_ms))
            continue;
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
    }
    if (lo == INT32_MAX || (hi - lo <= 1 && stray == 0) || cap + 1 > g->info.max_size + slack)
        return;
    {
        /* Only when the instance to remove afterwards may go (not protected), else the
         * launch and the termination would repeat forever. */
        int movable = 0;

        for (int i = 0; i < g->ninst; i++) {
            const struct asg_inst *in = &g->inst[i];
            int n = asg_zone_count(g, in->info.availability_zone);

            movable |= asg_counts_capacity(in->info.lifecycle_state) &&
                       !in->info.protected_from_scale_in &&
                       (!asg_zone_listed(g, in->info.availability_zone) || n == hi);
        }
        if (!movable)
            return;
    }
    cause[0] = '\0';
    asg_cause_add(
        cause, now_ms,
        "an instance was started in response to an Availability Zone rebalancing, increasing the capacity from %d to %d",
        cap, cap + 1);
    if (asg_launch_one(asg, g, cause, now_ms) > 0)
        g->rebalancing = 1;
}

static void reconcile(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    int cap = sc_asg_group_capacity(&g->info);
    int desired = g->info.desired_capacity;
    char cause[ASG_CAUSE_LEN];

    if (cap < desired && !asg_proc_suspended(g, SC_ASG_PROC_LAUNCH) &&
        now_ms >= g->next_launch_ms && g->info.navailability_zones > 0) {
        memcpy(cause, g->pending_cause, sizeof(cause));
        asg_cause_add(
            cause, now_ms,
            "an instance was started in response to a difference between desired and actual capacity, increasing the capacity from %d to %d",
            cap, desired);
        /* the warm pool first (docs/autoscaling.md 7.2), then in units: the last launch
         * may pass desired (2.3) */
        for (int units = cap + asg_warm_draw(asg, g, desired - cap, cause, now_ms);
             units < desired;) {
            int w = asg_launch_one(asg, g, cause, now_ms);

            if (w < 0)
                break;
            units += w;
        }
    } else if (cap > desired + asg_refresh_extra(g) &&
               !asg_proc_suspended(g, SC_ASG_PROC_TERMINATE)) {
        int keep = asg_refresh_extra(g); /* an instance refresh's launches first */

        if (g->rebalancing && asg_group_busy(g))
            return; /* launch before terminate: wait for the new instance */
        for (int units = cap; units > desired + keep;) {
            struct asg_inst *v = pick_victim(asg, g, units - desired - keep, now_ms);

            if (!v)
                break;
            units -= v->info.weight;
            memcpy(cause, g->pending_cause, sizeof(cause));
            if (g->rebalancing)
                asg_cause_add(
                    cause, now_ms,
                    "an instance was taken out of service in response to an Availability Zone rebalancing, shrinking the capacity from %d to %d",
                    cap, desired);
            else
                asg_cause_add(
                    cause, now_ms,
                    "an instance was taken out of service in response to a difference between desired and actual capacity, shrinking the capacity from %d to %d",
                    cap, desired);
            asg_cause_add(cause, now_ms, "instance %s was selected for termination",
                          v->info.instance_id);
            if (!asg_warm_return(asg, g, v, cause, now_ms)) /* ReuseOnScaleIn (7.2) */
                asg_inst_begin_terminate(asg, g, v, cause, now_ms);
        }
        g->rebalancing = 0;
    } else if (cap == desired) {
        g->pending_cause[0] = '\0';
        g->rebalancing = 0;
        maybe_rebalance(asg, g, cap, now_ms); /* cap == desired: nothing changed it */
        return;
    } else {
        return; /* suspended: keep the cause for when the process resumes */
    }
    g->pending_cause[0] = '\0';
}

static void cooldown_bookkeeping(struct asg_group *g, int64_t now_ms)
{
    if (g->cooldown_pending_s >= 0 && !asg_group_busy(g)) {
        g->cooldown_until_ms = now_ms + (int64_t)g->cooldown_pending_s * 1000;
        g->cooldown_pending_s = -1;
    }
}

void asg_capacity_metrics(const struct asg_census *c, double v[SC_ASG_METRIC_CAPACITY_COUNT])
{
    v[0] = c->units[SC_ASG_IN_SERVICE]; /* GroupInServiceCapacity */
    v[1] = c->units[SC_ASG_PENDING] + c->units[SC_ASG_PENDING_WAIT] +
           c->units[SC_ASG_PENDING_PROCEED];                             /* GroupPendingCapacity */
    v[2] = c->units[SC_ASG_STANDBY] + c->units[SC_ASG_ENTERING_STANDBY]; /* GroupStandbyCapacity */
    v[3] = c->units[SC_ASG_TERMINATING] + c->units[SC_ASG_TERMINATING_WAIT] +
           c->units[SC_ASG_TERMINATING_PROCEED]; /* GroupTerminatingCapacity */
    v[4] = v[0] + v[1] + v[3];                   /* GroupTotalCapacity */
}

static void put_group_metrics(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    double v[SC_ASG_METRIC_COUNT] = { 0 };
    int64_t minute = now_ms - (now_ms % 60000 + 60000) % 60000;
    int pool = 0;

    if (!g->info.metrics_enabled || !asg->env.put_metric) {
        g->next_metrics_ms = INT64_MAX;
        return;
    }
    if (g->next_metrics_ms != INT64_MAX && now_ms < g->next_metrics_ms)
        return;
    v[0] = g->info.min_size;
    v[1] = g->info.max_size;
    v[2] = g->info.desired_capacity;
    v[3] = g->census.state[SC_ASG_IN_SERVICE];
    v[4] = asg_census_pending(&g->census);
    v[5] = g->census.state[SC_ASG_STANDBY] + g->census.state[SC_ASG_ENTERING_STANDBY];
    v[6] = asg_census_terminating(&g->census);
    v[7] = v[3] + v[4] + v[6];
    if (asg_warm_metrics(g, v[2], v[7], v + SC_ASG_METRIC_GROUP_COUNT))
        pool = 1; /* a group without a warm pool publishes no WarmPool* one */
    asg_capacity_metrics(&g->census, v + SC_ASG_METRIC_WARM_END);
    for (int m = 0; m < SC_ASG_METRIC_COUNT; m++)
        if ((g->info.metrics_enabled >> m) & 1u &&
            (pool || m < SC_ASG_METRIC_GROUP_COUNT || m >= SC_ASG_METRIC_WARM_END))
            asg->env.put_metric(asg->env.ud, "AWS/AutoScaling", sc_asg_metric_str(m),
                                "AutoScalingGroupName", g->info.auto_scaling_group_name, v[m],
                                "None", minute);
    g->next_metrics_ms = minute + 60000;
}

/* The asg's own part of sweep_inputs_sig(), from scratch: a hash of the groups' settings
 * and the instances' lifecycle and health bookkeeping; *with_lb when a group checks ELB
 * health; *must_sweep when an ELB-unhealthy instance waits for the next sweep's
 * replacement budget (the hash is then left unfinished). */
uint64_t asg_sig_own_compute(const struct sc_asg *asg, int *with_lb, int *must_sweep)
{
    uint64_t h = SC_HASH_FNV1A_BASIS;

    *with_lb = 0;
    *must_sweep = 0;
    h = sc_hash_mix(h, (uint64_t)asg->ngroups);
    for (int i = 0; i < asg->ngroups; i++) {
        const struct asg_group *g = asg->groups[i];
        int elb = strcmp(g->info.health_check_type, "ELB") == 0;

        *with_lb |= elb;
        h = sc_hash_mix(h, (uint64_t)(uintptr_t)g);
        h = sc_hash_mix(h, (uint64_t)g->ninst);
        h = sc_hash_mix(h, (uint64_t)g->info.suspended);
        h = sc_hash_mix(h, (uint64_t)g->info.health_check_grace_period);
        h = sc_hash_mix(h, (uint64_t)elb);
        h = sc_hash_mix(h, (uint64_t)asg_lb_count(&g->info));
        for (int k = 0; k < asg_lb_count(&g->info); k++)
            h = sc_hash_mix(h, (uint64_t)(uintptr_t)asg_lb_at(&g->info, k));
        for (int k = 0; k < g->ninst; k++) {
            const struct asg_inst *in = &g->inst[k];
            uint64_t id0, id1;

            if (in->unhealthy == ASG_UNHEALTHY_ELB &&
                asg_counts_capacity(in->info.lifecycle_state)) {
                *must_sweep = 1;
                return h;
            }
            memcpy(&id0, in->info.instance_id + 2, sizeof(id0));
            memcpy(&id1, in->info.instance_id + 10, sizeof(id1));
            h = sc_hash_mix(h, id0);
            h = sc_hash_mix(h, id1 ^ (uint64_t)(unsigned char)in->info.instance_id[18] << 56);
            h = sc_hash_mix(h, (uint64_t)in->inservice_ms << 16 ^
                                   (uint64_t)in->info.lifecycle_state << 8 ^
                                   (uint64_t)in->unhealthy);
            h = sc_hash_mix(h, (uint64_t)in->impaired_since_ms);
        }
    }
    return h;
}

/* asg_sig_own_compute(), remembered until inputs_gen moves: most steps change none of it. */
void asg_sig_own_update(struct sc_asg *asg)
{
    if (asg->sig_gen == asg->inputs_gen)
        return;
    asg->sig_own = asg_sig_own_compute(asg, &asg->sig_with_lb, &asg->sig_must_sweep);
    asg->sig_gen = asg->inputs_gen;
}

/* A hash of what health_sweep reads (the asg's own part above; EC2 and load-balancer
 * answers through env.health_inputs_sig), or 0 when a sweep must run: no env summary, or
 * an ELB-unhealthy instance waits for the next sweep's replacement budget. */
static uint64_t sweep_inputs_sig(struct sc_asg *asg)
{
    uint64_t h;

    if (!asg->env.health_inputs_sig)
        return 0;
    asg_sig_own_update(asg);
    if (asg->sig_must_sweep)
        return 0;
    h = sc_hash_mix(asg->sig_own, asg->env.health_inputs_sig(asg->env.ud, asg->sig_with_lb));
    return h ? h : 1;
}

void sc_asg_step(struct sc_asg *asg, int64_t now_ms)
{
    int sweep, changed = 0, ngroups;
    unsigned changes;
    uint64_t sig = 0;
    int64_t wake = INT64_MAX;

    if (now_ms < asg->last_now_ms)
        now_ms = asg->last_now_ms;
    /* Sweep instants the caller did not step at, because the last step left the sweep a
     * no-op, passed as no-ops: the sweep clock moves past the last of them before now (a
     * change seen now was made now, so it waits for the next instant as it would have). */
    if (asg->sweep_quiet && now_ms > asg->last_now_ms) {
        int64_t last = now_ms - 1 < asg->sweep_wake_ms - 1 ? now_ms - 1 : asg->sweep_wake_ms - 1;

        if (last >= asg->next_sweep_ms)
            asg->next_sweep_ms = last - last % asg->health_sweep_ms + asg->health_sweep_ms;
    }
    asg->last_now_ms = now_ms;
    sweep = now_ms >= asg->next_sweep_ms;
    sig = sweep_inputs_sig(asg);
    asg->step_dirty = 0;
    if (sweep) {
        asg->next_sweep_ms = now_ms - now_ms % asg->health_sweep_ms + asg->health_sweep_ms;
        /* the same inputs as a sweep that found nothing, no timer run out: a no-op */
        if (asg->sweep_quiet && now_ms < asg->sweep_wake_ms && sig && sig == asg->sweep_sig)
            sweep = 0;
    }
    ngroups = asg->ngroups;
    for (int i = 0; i < asg->ngroups; i++) {
        struct asg_group *g = asg->groups[i];
        unsigned acts0 = g->acts_ver + g->acts_dropped;

        if (g->nremoving > 0)
            asg_removing_sweep(asg, g);
        advance_lifecycle(asg, g, now_ms);
        if (sweep)
            health_sweep(asg, g, now_ms, &wake, &changed);
        changes = asg->step_changes;
        replace_unhealthy(asg, g, now_ms);
        if (g->nscheds)
            asg_sched_step(asg, g, now_ms);
        if (g->npol)
            asg_predict_step(asg, g, now_ms);
        if (g->nrefreshes)
            asg_refresh_step(asg, g, now_ms);
        if (g->info.max_instance_lifetime > 0)
            asg_lifetime_step(asg, g, now_ms);
        if (!g->deleting)
            reconcile(asg, g, now_ms);
        asg_warm_step(asg, g, now_ms); /* the warm pool's instances and size */
        /* again only when replacement or reconciliation changed something */
        if (asg->step_changes != changes)
            advance_lifecycle(asg, g, now_ms);
        cooldown_bookkeeping(g, now_ms);
        put_group_metrics(asg, g, now_ms);
        asg_notify_step(asg, g); /* before the trim drops an ended activity */
        asg_acts_trim(g, now_ms);
        if (g->acts_ver + g->acts_dropped != acts0)
            asg->acts_version++; /* an activity finished or was dropped */
    }
    asg_reap_deleted(asg, now_ms);
    asg_deleted_acts_trim(asg, now_ms);
    if (asg->ngroups != ngroups)
        asg->acts_version++;
    /* Quiet when nothing the sweep reads moved during this step and either a sweep just
     * found nothing on these inputs or the last quiet state still holds. */
    if (asg->ngroups != ngroups)
        asg->step_dirty = 1;
    /* (the inputs are read again only when this step changed some of them) */
    if (sweep) {
        asg->sweep_quiet = !changed && sig && (!asg->step_dirty || sweep_inputs_sig(asg) == sig);
        asg->sweep_sig = sig;
        asg->sweep_wake_ms = wake;
    } else if (asg->sweep_quiet && (sig != asg->sweep_sig ||
                                    (asg->step_dirty && sweep_inputs_sig(asg) != asg->sweep_sig))) {
        asg->sweep_quiet = 0;
    }
}

int64_t sc_asg_next_due_ms(const struct sc_asg *asg, int64_t now_ms)
{
    int64_t due = INT64_MAX;

    for (int gi = 0; gi < asg->ngroups; gi++) {
        const struct asg_group *g = asg->groups[gi];

        if (g->ninst > 0 || g->info.desired_capacity > 0) {
            int64_t s = asg->next_sweep_ms > now_ms
                            ? asg->next_sweep_ms
                            : now_ms - now_ms % asg->health_sweep_ms + asg->health_sweep_ms;

            /* a quiet sweep is due again only at the first instant past its wake time */
            if (asg->sweep_quiet && asg->sweep_wake_ms > now_ms) {
                int64_t w = asg->sweep_wake_ms;

                s = w == INT64_MAX ? INT64_MAX
                                   : w - 1 - (w - 1) % asg->health_sweep_ms + asg->health_sweep_ms;
            }
            if (s < due)
                due = s;
        }
        if (g->next_launch_ms > now_ms && g->next_launch_ms < due)
            due = g->next_launch_ms;
        if (g->cooldown_until_ms > now_ms && g->cooldown_until_ms < due)
            due = g->cooldown_until_ms;
        {
            int64_t h = asg_hook_next_due(g, now_ms); /* a lifecycle action times out */
            int64_t s = asg_sched_next_due(g);        /* a scheduled action runs */
            int64_t r = g->nrefreshes ? asg_refresh_next_due(g, now_ms) : INT64_MAX;
            int64_t p = g->npol ? asg_predict_next_due(g) : INT64_MAX;
            int64_t m = g->info.max_instance_lifetime > 0 ? asg_lifetime_next_due(asg, g, now_ms)
                                                          : INT64_MAX;

            if (p < due)
                due = p > now_ms ? p : now_ms + 1;
            if (h < due)
                due = h;
            if (r < due)
                due = r;
            if (m < due)
                due = m; /* an instance reaches MaxInstanceLifetime */
            if (s < due)
                due = s > now_ms ? s : now_ms + 1;
        }
        /* a zone avoided after a failed launch comes back (rebalancing may launch) */
        for (int z = 0; z < ASG_TRACKED_ZONES; z++)
            if (g->zone_fail_until[z] > now_ms && g->zone_fail_until[z] < due)
                due = g->zone_fail_until[z];
        if (g->info.metrics_enabled) {
            int64_t m = g->next_metrics_ms == INT64_MAX ? now_ms + 1 : g->next_metrics_ms;

            if (m <= now_ms)
                m = now_ms + 1;
            if (m < due)
                due = m;
        }
        for (int i = 0; g->warm_max_ms > now_ms && i < g->ninst; i++) {
            const struct asg_inst *in = &g->inst[i];

            if (in->info.lifecycle_state == SC_ASG_IN_SERVICE && in->warm_until_ms > now_ms &&
                in->warm_until_ms < due)
                due = in->warm_until_ms;
        }
    }
    return due;
}
