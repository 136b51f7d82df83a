/* scaler/asg_instance.c: instances' Auto Scaling lifecycle, activities, health,
 * reconciliation, termination choice, and the operations on instances (see asg.h). */
#include "scaler/asg.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/asg_internal.h"

/* --- activities ---------------------------------------------------------------------------- */

void asg_activity_free(struct asg_activity *a)
{
    if (!a)
        return;
    free(a->info.auto_scaling_group_name);
    free(a->info.auto_scaling_group_arn);
    free(a->info.description);
    free(a->info.cause);
    free(a->info.status_message);
    free(a->info.details);
    free(a);
}

static int act_finished(const struct asg_activity *a)
{
    return a->info.end_ms != 0;
}

int asg_group_busy(const struct asg_group *g)
{
    /* remembered until an activity is made, finishes or is dropped */
    struct asg_group *memo = (struct asg_group *)g;

    if (!memo->busy_valid || memo->busy_made != g->acts_made || memo->busy_ver != g->acts_ver ||
        memo->busy_dropped != g->acts_dropped || memo->busy_nacts != g->nacts) {
        memo->busy = 0;
        for (int i = 0; i < g->nacts && !memo->busy; i++)
            memo->busy = !act_finished(g->acts[i]);
        memo->busy_made = g->acts_made;
        memo->busy_ver = g->acts_ver;
        memo->busy_dropped = g->acts_dropped;
        memo->busy_nacts = g->nacts;
        memo->busy_valid = 1;
    }
    return memo->busy;
}

/* The six-week rule: a finished activity is kept until ASG_ACTIVITY_KEEP_MS after its end. */
static int act_expired(const struct asg_activity *a, int64_t now_ms)
{
    return act_finished(a) && now_ms - a->info.end_ms > ASG_ACTIVITY_KEEP_MS;
}

/* The first instant act_expired() holds for a finished activity. */
static int64_t act_expiry_ms(const struct asg_activity *a)
{
    return a->info.end_ms + ASG_ACTIVITY_KEEP_MS + 1;
}

/* Drops the oldest finished activities beyond the bound (and those past six weeks). */
static void acts_trim(struct asg_group *g, int64_t now_ms)
{
    int finished = 0;
    int64_t next = INT64_MAX;

    if (g->nacts == g->trim_nacts && g->acts_ver == g->trim_ver && now_ms < g->trim_next_ms)
        return;
    for (int i = 0; i < g->nacts; i++)
        finished += act_finished(g->acts[i]);
    for (int i = 0; i < g->nacts;) {
        struct asg_activity *a = g->acts[i];

        if (act_finished(a) && (finished > SC_ASG_MAX_ACTIVITIES || act_expired(a, now_ms))) {
            asg_activity_free(a);
            memmove(&g->acts[i], &g->acts[i + 1], (size_t)(g->nacts - i - 1) * sizeof(g->acts[0]));
            g->nacts--;
            finished--;
            g->acts_dropped++;
        } else {
            if (act_finished(a) && act_expiry_ms(a) < next)
                next = act_expiry_ms(a);
            i++;
        }
    }
    g->trim_nacts = g->nacts;
    g->trim_ver = g->acts_ver;
    g->trim_next_ms = next;
}

static char *details_json(const char *subnet, const char *zone)
{
    if (subnet && subnet[0])
        return asg_asprintf("{\"Subnet ID\":\"%s\",\"Availability Zone\":\"%s\"}", subnet, zone);
    return asg_asprintf("{\"Availability Zone\":\"%s\"}", zone);
}

/* A new activity (NULL on OOM: the operation proceeds without its record). */
static struct asg_activity *act_new(struct sc_asg *asg, struct asg_group *g, int64_t now_ms,
                                    const char *description, const char *cause,
                                    const char *status_code, int progress, const char *subnet,
                                    const char *zone)
{
    struct asg_activity *a, **grown;

    acts_trim(g, now_ms);
    a = calloc(1, sizeof(*a));
    if (!a)
        return NULL;
    sc_rng_uuid(asg->rng, a->info.activity_id);
    a->info.auto_scaling_group_name = asg_strdup(g->info.auto_scaling_group_name);
    a->info.auto_scaling_group_arn = asg_strdup(g->info.auto_scaling_group_arn);
    a->info.description = asg_strdup(description);
    a->info.cause = asg_strdup(cause);
    a->info.details = details_json(subnet, zone ? zone : "");
    a->info.start_ms = now_ms;
    a->info.status_code = status_code;
    a->info.progress = progress;
    a->seq = ++asg->seq;
    asg->acts_version++;
    if (!a->info.auto_scaling_group_name || !a->info.auto_scaling_group_arn ||
        !a->info.description || !a->info.cause || !a->info.details)
        goto fail;
    grown = realloc(g->acts, (size_t)(g->nacts + 1) * sizeof(*grown));
    if (!grown)
        goto fail;
    g->acts = grown;
    g->acts[g->nacts++] = a;
    g->acts_made++;
    return a;

fail:
    asg_activity_free(a);
    return NULL;
}

static struct asg_activity *act_of(const struct asg_group *g, const struct asg_inst *in)
{
    if (!in->activity_id[0])
        return NULL;
    for (int i = g->nacts - 1; i >= 0; i--)
        if (strcmp(g->acts[i]->info.activity_id, in->activity_id) == 0)
            return g->acts[i];
    return NULL;
}

static void act_set(struct asg_group *g, struct asg_inst *in, const char *status_code, int progress)
{
    struct asg_activity *a = act_of(g, in);

    if (a && !act_finished(a)) {
        g->acts_ver++;
        a->info.status_code = status_code;
        a->info.progress = progress;
    }
}

static void act_end(struct asg_group *g, struct asg_inst *in, const char *status_code,
                    int64_t now_ms)
{
    struct asg_activity *a = act_of(g, in);

    if (a && !act_finished(a)) {
        g->acts_ver++;
        a->info.status_code = status_code;
        a->info.progress = 100;
        a->info.end_ms = now_ms > a->info.start_ms ? now_ms : a->info.start_ms + 1;
        if (a->info.end_ms == 0)
            a->info.end_ms = 1;
    }
    in->activity_id[0] = '\0';
}

uint64_t sc_asg_activity_version(const struct sc_asg *asg)
{
    return asg->acts_version;
}

int sc_asg_activity_count(const struct sc_asg *asg, const char *group)
{
    struct asg_group *g = asg_group_get(asg, group);

    return g ? g->nacts : -1;
}

const struct sc_asg_activity_info *sc_asg_activity_at(const struct sc_asg *asg, const char *group,
                                                      int i)
{
    struct asg_group *g = asg_group_get(asg, group);
    int k = 0;

    if (!g || i < 0 || i >= g->nacts)
        return NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (int j = g->nacts - 1; j >= 0; j--) {
            if (act_finished(g->acts[j]) != pass)
                continue;
            if (k++ == i)
                return &g->acts[j]->info;
        }
    }
    return NULL;
}

const struct sc_asg_activity_info *sc_asg_activity_find(const struct sc_asg *asg,
                                                        const char *activity_id)
{
    if (!activity_id)
        return NULL;
    for (int gi = 0; gi < asg->ngroups; gi++) {
        struct asg_group *g = asg->groups[gi];

        for (int j = 0; j < g->nacts; j++)
            if (strcmp(g->acts[j]->info.activity_id, activity_id) == 0)
                return &g->acts[j]->info;
    }
    for (int j = 0; j < asg->ndel_acts; j++)
        if (strcmp(asg->del_acts[j]->info.activity_id, activity_id) == 0)
            return &asg->del_acts[j]->info;
    return NULL;
}

/* --- deleted groups' activities --------------------------------------------------------- */

/* AWS order: in progress before finished, then newest (latest made) first. */
static int act_aws_cmp(const void *pa, const void *pb)
{
    const struct asg_activity *a = *(const struct asg_activity *const *)pa;
    const struct asg_activity *b = *(const struct asg_activity *const *)pb;

    if (act_finished(a) != act_finished(b))
        return act_finished(a) - act_finished(b);
    if (a->seq != b->seq)
        return a->seq > b->seq ? -1 : 1;
    return 0;
}

void asg_deleted_acts_sort(struct sc_asg *asg)
{
    if (asg->ndel_acts > 1)
        qsort(asg->del_acts, (size_t)asg->ndel_acts, sizeof(asg->del_acts[0]), act_aws_cmp);
    asg->del_trim_next_ms = INT64_MIN; /* look again at the next trim */
}

void asg_deleted_acts_trim(struct sc_asg *asg, int64_t now_ms)
{
    int64_t next = INT64_MAX;
    int kept = 0;

    if (now_ms < asg->del_trim_next_ms && asg->ndel_acts <= SC_ASG_MAX_DELETED_ACTIVITIES)
        return;
    for (int i = 0; i < asg->ndel_acts; i++) {
        struct asg_activity *a = asg->del_acts[i];

        /* the list is in AWS order: past the bound are the oldest */
        if (act_expired(a, now_ms) || kept >= SC_ASG_MAX_DELETED_ACTIVITIES) {
            asg_activity_free(a);
            continue;
        }
        if (act_finished(a) && act_expiry_ms(a) < next)
            next = act_expiry_ms(a);
        asg->del_acts[kept++] = a;
    }
    asg->ndel_acts = kept;
    asg->del_trim_next_ms = next;
}

void asg_deleted_acts_take(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    struct asg_activity **grown = NULL;

    if (g->nacts == 0)
        return;
    grown = realloc(asg->del_acts, (size_t)(asg->ndel_acts + g->nacts) * sizeof(*grown));
    if (!grown) {
        for (int k = 0; k < g->nacts; k++)
            asg_activity_free(g->acts[k]);
    } else {
        asg->del_acts = grown;
        for (int k = 0; k < g->nacts; k++) {
            g->acts[k]->info.group_deleted = 1;
            asg->del_acts[asg->ndel_acts++] = g->acts[k];
        }
        asg_deleted_acts_sort(asg);
    }
    g->nacts = 0;
    asg_deleted_acts_trim(asg, now_ms);
}

static int deleted_match(const struct asg_activity *a, const char *group)
{
    return !group || strcmp(a->info.auto_scaling_group_name, group) == 0;
}

int sc_asg_deleted_activity_count(const struct sc_asg *asg, const char *group)
{
    int n = 0;

    if (!group)
        return asg->ndel_acts;
    for (int j = 0; j < asg->ndel_acts; j++)
        n += deleted_match(asg->del_acts[j], group);
    return n;
}

const struct sc_asg_activity_info *sc_asg_deleted_activity_at(const struct sc_asg *asg,
                                                              const char *group, int i)
{
    if (i < 0)
        return NULL;
    if (!group)
        return i < asg->ndel_acts ? &asg->del_acts[i]->info : NULL;
    for (int j = 0; j < asg->ndel_acts; j++) {
        if (deleted_match(asg->del_acts[j], group) && i-- == 0)
            return &asg->del_acts[j]->info;
    }
    return NULL;
}

int sc_asg_group_busy(const struct sc_asg *asg, const char *group)
{
    struct asg_group *g = asg_group_get(asg, group);

    return g ? asg_group_busy(g) : 0;
}

/* --- instances ----------------------------------------------------------------------------------
 */

void asg_inst_cleanup(struct asg_inst *in)
{
    free(in->info.launch_configuration_name);
    free(in->info.launch_template_id);
    free(in->info.launch_template_name);
    free(in->info.launch_template_version);
    free(in->info.instance_type);
}

/* One instance in or out of g's census (sign +1 or -1), as it stands. */
static void census_count(struct asg_census *c, const struct asg_inst *in, int sign)
{
    c->state[in->info.lifecycle_state] += sign;
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
        census_count(&g->census, &g->inst[i], 1);
    g->members_ver++;
}

/* The only writer of lifecycle_state once an instance is in g (inst_add starts it
 * Pending): the census follows. */
static void inst_set_state(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                           enum sc_asg_lifecycle s)
{
    if (in->info.lifecycle_state == s)
        return;
    census_count(&g->census, in, -1);
    in->info.lifecycle_state = s;
    census_count(&g->census, in, 1);
    g->members_ver++;
    asg_inputs_changed(asg);
}

/* The only writer of unhealthy: the census follows. */
static void inst_set_unhealthy(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                               enum asg_unhealthy u)
{
    if (in->unhealthy == u)
        return;
    census_count(&g->census, in, -1);
    in->unhealthy = u;
    census_count(&g->census, in, 1);
    asg_inputs_changed(asg);
}

/* A new instance at the end of g, zeroed: Pending, healthy, counted in the census. */
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
    census_count(&g->census, in, 1);
    g->members_ver++;
    asg_inputs_changed(asg);
    return in;
}

/* Undoes the inst_add() just made, when the instance could not be indexed. */
static void inst_unadd(struct sc_asg *asg, struct asg_group *g)
{
    census_count(&g->census, &g->inst[g->ninst - 1], -1);
    g->ninst--;
    g->members_ver++;
    asg_inputs_changed(asg);
}

static void inst_remove(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in)
{
    int idx = (int)(in - g->inst);

    asg->step_dirty = 1;
    asg->step_changes++;
    census_count(&g->census, in, -1);
    g->members_ver++;
    asg_inputs_changed(asg);
    asg_idx_del(asg, in->info.instance_id);
    asg_inst_cleanup(in);
    memmove(&g->inst[idx], &g->inst[idx + 1], (size_t)(g->ninst - idx - 1) * sizeof(*in));
    g->ninst--;
    for (int k = idx; k < g->ninst; k++)
        asg_idx_put(asg, g->inst[k].info.instance_id, g, k); /* existing keys: no allocation */
}

static int proc_suspended(const struct asg_group *g, enum sc_asg_process p)
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

static void lb_register_all(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                            int64_t now_ms)
{
    if (!asg->env.lb_register || proc_suspended(g, SC_ASG_PROC_ADD_TO_LOAD_BALANCER))
        return;
    for (int k = 0; k < g->info.nload_balancer_names; k++)
        asg->env.lb_register(asg->env.ud, g->info.load_balancer_names[k], in->info.instance_id,
                             now_ms);
}

static void lb_deregister_all(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                              int64_t now_ms)
{
    if (!asg->env.lb_deregister)
        return;
    for (int k = 0; k < g->info.nload_balancer_names; k++)
        asg->env.lb_deregister(asg->env.ud, g->info.load_balancer_names[k], in->info.instance_id,
                               now_ms);
}

static int lb_draining(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in)
{
    if (!asg->env.lb_instance_state)
        return 0;
    for (int k = 0; k < g->info.nload_balancer_names; k++)
        if (asg->env.lb_instance_state(asg->env.ud, g->info.load_balancer_names[k],
                                       in->info.instance_id) == SC_ASG_LB_DRAINING)
            return 1;
    return 0;
}

static enum sc_asg_ec2_state ec2_state(struct sc_asg *asg, const struct asg_inst *in)
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

    /* A still-open activity of the instance (its launch, standby move) ends here. */
    act_end(g, in, "Cancelled", now_ms);
    snprintf(desc, sizeof(desc), "Terminating EC2 instance: %s", in->info.instance_id);
    a = act_new(asg, g, now_ms, desc, cause, "InProgress", 50, in->info.subnet_id,
                in->info.availability_zone);
    if (a)
        memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
    inst_set_state(asg, g, in, SC_ASG_TERMINATING);
    asg->step_dirty = 1;
    asg->step_changes++;
    lb_deregister_all(asg, g, in, now_ms);
}

/* --- launching
 * ------------------------------------------------------------------------------------ */

static int zone_count(const struct asg_group *g, const char *zone)
{
    int n = 0;

    for (int i = 0; i < g->ninst; i++)
        n += asg_counts_capacity(g->inst[i].info.lifecycle_state) &&
             strcmp(g->inst[i].info.availability_zone, zone) == 0;
    return n;
}

/* The enabled zone with the fewest instances (first listed on a tie). */
static int zone_avoided(const struct asg_group *g, int z, int64_t now_ms)
{
    return z < ASG_TRACKED_ZONES && now_ms < g->zone_fail_until[z];
}

/* The enabled zone with the fewest instances (first listed on a tie), avoiding zones
 * where a launch just failed while another zone is available. */
static int pick_zone(const struct asg_group *g, int64_t now_ms)
{
    int best = 0, best_n = INT32_MAX, best_avoided = 1;

    for (int z = 0; z < g->info.navailability_zones; z++) {
        int n = zone_count(g, g->info.availability_zones[z]);
        int av = zone_avoided(g, z, now_ms);

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
        if (!zone_avoided(g, z, now_ms))
            return 1;
    return 0;
}

static int launch_one(struct sc_asg *asg, struct asg_group *g, const char *cause, int64_t now_ms)
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
    char desc[128];
    int z = pick_zone(g, now_ms), nt = 0;

    asg->step_dirty = 1;
    asg->step_changes++;

    memset(&spec, 0, sizeof(spec));
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
        spec.launch_template_id = gi->launch_template_id;
        spec.launch_template_name = gi->launch_template_name;
        spec.launch_template_version = gi->launch_template_version;
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

    if (!asg->env.run_instance)
        st = sc_fail(&err, SC_ERR_INTERNAL, "No EC2 service is attached");
    else if (gi->launch_configuration_name && !lc)
        st = sc_fail(&err, SC_ERR_VALIDATION, "The launch configuration %s does not exist",
                     gi->launch_configuration_name);
    else
        st = asg->env.run_instance(asg->env.ud, &spec, now_ms, id, &err);
    if (st != SC_OK) {
        char fdesc[SC_ERR_MESSAGE_LEN + 128];
        size_t ml = strlen(err.message);

        /* one period between the reason and the rest, whether or not the reason ends in one
         * (InsufficientInstanceCapacity's text does) */
        if (ml > 0 && err.message[ml - 1] == '.')
            ml--;
        snprintf(
            fdesc, sizeof(fdesc),
            "Launching a new EC2 instance.  Status Reason: %.*s. Launching EC2 instance failed.",
            (int)ml, err.message);
        a = act_new(asg, g, now_ms, fdesc, cause, "Failed", 100, spec.subnet_id, spec.zone);
        if (a) {
            a->info.status_message = asg_strdup(err.message);
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
    inst_set_state(asg, g, in, SC_ASG_PENDING);
    in->info.launch_configuration_name = asg_strdup(gi->launch_configuration_name);
    in->info.launch_template_id = asg_strdup(gi->launch_template_id);
    in->info.launch_template_name = asg_strdup(gi->launch_template_name);
    in->info.launch_template_version = asg_strdup(gi->launch_template_version);
    in->info.instance_type = asg_strdup(lc ? lc->instance_type : NULL);
    in->info.protected_from_scale_in = gi->new_instances_protected_from_scale_in;
    in->info.launch_ms = now_ms;
    snprintf(desc, sizeof(desc), "Launching a new EC2 instance: %s", id);
    a = act_new(asg, g, now_ms, desc, cause, "PreInService", 30, in->info.subnet_id,
                in->info.availability_zone);
    if (a)
        memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
    return 0;
}

static int zone_listed(const struct asg_group *g, const char *zone)
{
    for (int z = 0; z < g->info.navailability_zones; z++)
        if (strcmp(g->info.availability_zones[z], zone) == 0)
            return 1;
    return 0;
}

/* --- termination choice (spec 3.5)
 * ----------------------------------------------------------------- */

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

/* The instance scale-in terminates, or NULL when every candidate is protected. */
static struct asg_inst *pick_victim(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    struct asg_inst **cand = g->scratch;
    int64_t *key = g->scratch_key;
    int n = 0, has_default = 0;

    for (int i = 0; i < g->ninst; i++) {
        struct asg_inst *in = &g->inst[i];

        if (asg_counts_capacity(in->info.lifecycle_state) && !in->info.protected_from_scale_in)
            cand[n++] = in;
    }
    if (n == 0 || !cand || !key)
        return NULL;
    /* Balance beats policies: keep the zone(s) with the most instances. */
    for (int i = 0; i < n; i++)
        key[i] = zone_listed(g, cand[i]->info.availability_zone)
                     ? zone_count(g, cand[i]->info.availability_zone)
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

/* --- the step: lifecycle, health, reconcile
 * ------------------------------------------------------- */

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
            es = ec2_state(asg, in);
            if (es == SC_ASG_EC2_RUNNING || es == SC_ASG_EC2_IMPAIRED) {
                asg->step_dirty = 1;
                asg->step_changes++;
                lb_register_all(asg, g, in, now_ms);
                inst_set_state(asg, g, in, SC_ASG_IN_SERVICE);
                in->inservice_ms = now_ms;
                asg_inputs_changed(asg);
                in->warm_until_ms = in->from_standby ? now_ms : now_ms + warmup_ms(g);
                if (in->warm_until_ms > g->warm_max_ms)
                    g->warm_max_ms = in->warm_until_ms;
                in->from_standby = 0;
                act_end(g, in, "Successful", now_ms);
            }
            break;
        case SC_ASG_TERMINATING:
        case SC_ASG_TERMINATING_WAIT:
        case SC_ASG_TERMINATING_PROCEED:
            if (!in->terminate_sent) {
                if (lb_draining(asg, g, in)) {
                    act_set(g, in, "WaitingForELBConnectionDraining", 50);
                    break;
                }
                if (asg->env.terminate_instance)
                    asg->env.terminate_instance(asg->env.ud, in->info.instance_id, now_ms);
                in->terminate_sent = 1;
                asg->step_dirty = 1;
                asg->step_changes++;
                act_set(g, in, "InProgress", 50);
            }
            es = ec2_state(asg, in);
            if (es == SC_ASG_EC2_GONE) {
                inst_set_state(asg, g, in, SC_ASG_TERMINATED);
                act_end(g, in, "Successful", now_ms);
                inst_remove(asg, g, in);
                continue;
            }
            break;
        case SC_ASG_DETACHING:
            if (lb_draining(asg, g, in))
                break;
            inst_set_state(asg, g, in, SC_ASG_DETACHED);
            asg->step_dirty = 1;
            asg->step_changes++;
            act_end(g, in, "Successful", now_ms);
            inst_remove(asg, g, in);
            continue;
        case SC_ASG_ENTERING_STANDBY:
            if (lb_draining(asg, g, in))
                break;
            inst_set_state(asg, g, in, SC_ASG_STANDBY);
            asg->step_dirty = 1;
            asg->step_changes++;
            act_end(g, in, "Successful", now_ms);
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
    if (proc_suspended(g, SC_ASG_PROC_HEALTH_CHECK))
        return;
    for (int i = 0; i < g->ninst; i++) {
        struct asg_inst *in = &g->inst[i];
        enum sc_asg_lifecycle s = in->info.lifecycle_state;
        enum sc_asg_ec2_state es;

        if (in->unhealthy || !asg_counts_capacity(s))
            continue;
        es = ec2_state(asg, in);
        if (es == SC_ASG_EC2_STOPPED || es == SC_ASG_EC2_SHUTTING_DOWN || es == SC_ASG_EC2_GONE) {
            inst_set_unhealthy(asg, g, in, ASG_UNHEALTHY_EC2);
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
                inst_set_unhealthy(asg, g, in, ASG_UNHEALTHY_EC2);
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
            for (int k = 0; k < g->info.nload_balancer_names; k++) {
                if (asg->env.lb_instance_state(asg->env.ud, g->info.load_balancer_names[k],
                                               in->info.instance_id) == SC_ASG_LB_OUT_OF_SERVICE) {
                    inst_set_unhealthy(asg, g, in, ASG_UNHEALTHY_ELB);
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
    if (proc_suspended(g, SC_ASG_PROC_REPLACE_UNHEALTHY) ||
        proc_suspended(g, SC_ASG_PROC_TERMINATE) || g->census.unhealthy_cap == 0)
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
static int zone_counts(struct asg_group *g, int count[ASG_TRACKED_ZONES])
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

    if (proc_suspended(g, SC_ASG_PROC_AZ_REBALANCE) || proc_suspended(g, SC_ASG_PROC_LAUNCH) ||
        proc_suspended(g, SC_ASG_PROC_TERMINATE) || asg_group_busy(g) || cap == 0 ||
        now_ms < g->next_launch_ms)
        return;
    stray = zone_counts(g, count);
    for (int z = 1; z < nz && z < ASG_TRACKED_ZONES; z++) /* a zone listed twice */
        for (int k = 0; k < z; k++)
            if (strcmp(g->info.availability_zones[k], g->info.availability_zones[z]) == 0) {
                count[z] = count[k];
                break;
            }
    for (int z = 0; z < nz; z++) {
        int n = z < ASG_TRACKED_ZONES ? count[z] : zone_count(g, g->info.availability_zones[z]);

        if (zone_avoided(g, z, now_ms))
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
            int n = zone_count(g, in->info.availability_zone);

            movable |= asg_counts_capacity(in->info.lifecycle_state) &&
                       !in->info.protected_from_scale_in &&
                       (!zone_listed(g, in->info.availability_zone) || n == hi);
        }
        if (!movable)
            return;
    }
    cause[0] = '\0';
    asg_cause_add(
        cause, now_ms,
        "an instance was started in response to an Availability Zone rebalancing, increasing the capacity from %d to %d",
        cap, cap + 1);
    if (launch_one(asg, g, cause, now_ms) == 0)
        g->rebalancing = 1;
}

static void reconcile(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    int cap = sc_asg_group_capacity(&g->info);
    int desired = g->info.desired_capacity;
    char cause[ASG_CAUSE_LEN];

    if (cap < desired && !proc_suspended(g, SC_ASG_PROC_LAUNCH) && now_ms >= g->next_launch_ms &&
        g->info.navailability_zones > 0) {
        memcpy(cause, g->pending_cause, sizeof(cause));
        asg_cause_add(
            cause, now_ms,
            "an instance was started in response to a difference between desired and actual capacity, increasing the capacity from %d to %d",
            cap, desired);
        for (int k = cap; k < desired; k++)
            if (launch_one(asg, g, cause, now_ms) != 0)
                break;
    } else if (cap > desired && !proc_suspended(g, SC_ASG_PROC_TERMINATE)) {
        if (g->rebalancing && asg_group_busy(g))
            return; /* launch before terminate: wait for the new instance */
        for (int k = cap; k > desired; k--) {
            struct asg_inst *v = pick_victim(asg, g, now_ms);

            if (!v)
                break;
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

static void put_group_metrics(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    double v[SC_ASG_METRIC_COUNT] = { 0 };
    int64_t minute = now_ms - (now_ms % 60000 + 60000) % 60000;

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
    for (int m = 0; m < SC_ASG_METRIC_COUNT; m++)
        if ((g->info.metrics_enabled >> m) & 1u)
            asg->env.put_metric(asg->env.ud, "AWS/AutoScaling", sc_asg_metric_str(m),
                                "AutoScalingGroupName", g->info.auto_scaling_group_name, v[m],
                                "None", minute);
    g->next_metrics_ms = minute + 60000;
}

static uint64_t sig_mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 1099511628211ULL;
}

/* The asg's own part of sweep_inputs_sig(), from scratch: a hash of the groups' settings
 * and the instances' lifecycle and health bookkeeping; *with_lb when a group checks ELB
 * health; *must_sweep when an ELB-unhealthy instance waits for the next sweep's
 * replacement budget (the hash is then left unfinished). */
static uint64_t sig_own_compute(const struct sc_asg *asg, int *with_lb, int *must_sweep)
{
    uint64_t h = 1469598103934665603ULL;

    *with_lb = 0;
    *must_sweep = 0;
    h = sig_mix(h, (uint64_t)asg->ngroups);
    for (int i = 0; i < asg->ngroups; i++) {
        const struct asg_group *g = asg->groups[i];
        int elb = strcmp(g->info.health_check_type, "ELB") == 0;

        *with_lb |= elb;
        h = sig_mix(h, (uint64_t)(uintptr_t)g);
        h = sig_mix(h, (uint64_t)g->ninst);
        h = sig_mix(h, (uint64_t)g->info.suspended);
        h = sig_mix(h, (uint64_t)g->info.health_check_grace_period);
        h = sig_mix(h, (uint64_t)elb);
        h = sig_mix(h, (uint64_t)g->info.nload_balancer_names);
        for (int k = 0; k < g->info.nload_balancer_names; k++)
            h = sig_mix(h, (uint64_t)(uintptr_t)g->info.load_balancer_names[k]);
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
            h = sig_mix(h, id0);
            h = sig_mix(h, id1 ^ (uint64_t)(unsigned char)in->info.instance_id[18] << 56);
            h = sig_mix(h, (uint64_t)in->inservice_ms << 16 ^
                               (uint64_t)in->info.lifecycle_state << 8 ^ (uint64_t)in->unhealthy);
            h = sig_mix(h, (uint64_t)in->impaired_since_ms);
        }
    }
    return h;
}

/* sig_own_compute(), remembered until inputs_gen moves: most steps change none of it. */
static void sig_own_update(struct sc_asg *asg)
{
    if (asg->sig_gen == asg->inputs_gen)
        return;
    asg->sig_own = sig_own_compute(asg, &asg->sig_with_lb, &asg->sig_must_sweep);
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
    sig_own_update(asg);
    if (asg->sig_must_sweep)
        return 0;
    h = sig_mix(asg->sig_own, asg->env.health_inputs_sig(asg->env.ud, asg->sig_with_lb));
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

        advance_lifecycle(asg, g, now_ms);
        if (sweep)
            health_sweep(asg, g, now_ms, &wake, &changed);
        changes = asg->step_changes;
        replace_unhealthy(asg, g, now_ms);
        if (!g->deleting)
            reconcile(asg, g, now_ms);
        /* again only when replacement or reconciliation changed something */
        if (asg->step_changes != changes)
            advance_lifecycle(asg, g, now_ms);
        cooldown_bookkeeping(g, now_ms);
        put_group_metrics(asg, g, now_ms);
        acts_trim(g, now_ms);
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

/* --- operations on instances ------------------------------------------------------------------ */

enum sc_status sc_asg_set_desired_capacity(struct sc_asg *asg, const char *group, int desired,
                                           int honor_cooldown, int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_get(asg, group);

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
    struct asg_inst *in = asg_inst_get(asg, instance_id, &g);
    char cause[ASG_CAUSE_LEN] = "";
    struct asg_activity *a;

    if (!in)
        return instance_not_found(instance_id, err);
    if (!asg_counts_capacity(in->info.lifecycle_state) &&
        in->info.lifecycle_state != SC_ASG_STANDBY) {
        /* Already leaving: AWS answers with the activity in progress. */
        a = act_of(g, in);
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
            asg_cause_add(
                cause, now_ms,
                "instance %s was taken out of service in response to a user request, shrinking the capacity from %d to %d",
                in->info.instance_id, cap, cap - 1);
            g->info.desired_capacity--;
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
    a = act_of(g, in);
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
    struct asg_inst *in = asg_inst_get(asg, instance_id, &g);
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
            inst_set_unhealthy(asg, g, in, ASG_HEALTHY);
            in->info.healthy = 1;
        }
    } else if (asg_counts_capacity(in->info.lifecycle_state)) {
        inst_set_unhealthy(asg, g, in, ASG_UNHEALTHY_USER);
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
    struct asg_inst *in = asg_inst_get(asg, id, &owner);

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
    struct asg_group *g = asg_group_get(asg, group);
    char zones[SC_ASG_MAX_IDS_PER_CALL][SC_ASG_ID_LEN];
    enum sc_status st;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    if ((st = check_ids(ids, nids, err)) != SC_OK)
        return st;
    for (int i = 0; i < nids; i++) {
        enum sc_asg_ec2_state es;
        int zone_ok = 0;

        if (asg_inst_get(asg, ids[i], NULL))
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
        inst_set_state(asg, g, in, SC_ASG_PENDING);
        in->info.launch_ms = now_ms;
        in->info.protected_from_scale_in = g->info.new_instances_protected_from_scale_in;
        g->info.desired_capacity++;
        asg_cause_add(
            cause, now_ms,
            "an instance was added in response to a user request. Instance %s was attached, increasing the capacity from %d to %d",
            ids[i], cap, cap + 1);
        snprintf(desc, sizeof(desc), "Attaching an existing EC2 instance: %s", ids[i]);
        a = act_new(asg, g, now_ms, desc, cause, "PreInService", 30, in->info.subnet_id,
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
    struct asg_group *g = asg_group_get(asg, group);
    enum sc_status st;
    int counted = 0;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    if ((st = check_ids(ids, nids, err)) != SC_OK)
        return st;
    for (int i = 0; i < nids; i++) {
        struct asg_inst *in = member(asg, g, ids[i], err);

        if (!in)
            return err ? err->status : SC_ERR_VALIDATION;
        if (!asg_counts_capacity(in->info.lifecycle_state) &&
            in->info.lifecycle_state != SC_ASG_STANDBY)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The instance %s is not in InService or Standby.", ids[i]);
        counted += asg_counts_capacity(in->info.lifecycle_state);
    }
    if (should_decrement && g->info.desired_capacity - counted < g->info.min_size)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Detaching %d instance(s) with decrement would put the desired capacity of AutoScalingGroup %s below its min size %d.",
            nids, g->info.auto_scaling_group_name, g->info.min_size);
    for (int i = 0; i < nids; i++) {
        struct asg_inst *in = asg_inst_get(asg, ids[i], NULL);
        int cap = sc_asg_group_capacity(&g->info);
        int counts = asg_counts_capacity(in->info.lifecycle_state);
        char cause[ASG_CAUSE_LEN] = "", desc[128];
        struct asg_activity *a;

        if (should_decrement && counts) {
            g->info.desired_capacity--;
            asg_cause_add(
                cause, now_ms,
                "instance %s was detached in response to a user request, shrinking the capacity from %d to %d",
                ids[i], cap, cap - 1);
        } else {
            asg_cause_add(cause, now_ms, "instance %s was detached in response to a user request",
                          ids[i]);
        }
        act_end(g, in, "Cancelled", now_ms);
        snprintf(desc, sizeof(desc), "Detaching EC2 instance: %s", ids[i]);
        a = act_new(asg, g, now_ms, desc, cause, "InProgress", 50, in->info.subnet_id,
                    in->info.availability_zone);
        if (a)
            memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
        inst_set_state(asg, g, in, SC_ASG_DETACHING);
        lb_deregister_all(asg, g, in, now_ms);
    }
    return SC_OK;
}

enum sc_status sc_asg_enter_standby(struct sc_asg *asg, const char *group, const char *const *ids,
                                    int nids, int should_decrement, int64_t now_ms,
                                    struct sc_error *err)
{
    struct asg_group *g = asg_group_get(asg, group);
    enum sc_status st;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    if ((st = check_ids(ids, nids, err)) != SC_OK)
        return st;
    for (int i = 0; i < nids; i++) {
        struct asg_inst *in = member(asg, g, ids[i], err);

        if (!in)
            return err ? err->status : SC_ERR_VALIDATION;
        if (in->info.lifecycle_state != SC_ASG_IN_SERVICE)
            return sc_fail(err, SC_ERR_VALIDATION, "The instance %s is not in InService.", ids[i]);
    }
    if (should_decrement && g->info.desired_capacity - nids < g->info.min_size)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "AutoScalingGroup %s has min-size=%d, max-size=%d, and desired-size=%d. To place into standby %d instances, please update the AutoScalingGroup sizes appropriately.",
            g->info.auto_scaling_group_name, g->info.min_size, g->info.max_size,
            g->info.desired_capacity, nids);
    for (int i = 0; i < nids; i++) {
        struct asg_inst *in = asg_inst_get(asg, ids[i], NULL);
        int cap = sc_asg_group_capacity(&g->info);
        char cause[ASG_CAUSE_LEN] = "", desc[128];
        struct asg_activity *a;

        if (should_decrement) {
            g->info.desired_capacity--;
            asg_cause_add(
                cause, now_ms,
                "instance %s was moved to standby in response to a user request, shrinking the capacity from %d to %d",
                ids[i], cap, cap - 1);
        } else {
            asg_cause_add(cause, now_ms,
                          "instance %s was moved to standby in response to a user request", ids[i]);
        }
        snprintf(desc, sizeof(desc), "Moving EC2 instance to Standby: %s", ids[i]);
        a = act_new(asg, g, now_ms, desc, cause, "InProgress", 50, in->info.subnet_id,
                    in->info.availability_zone);
        if (a)
            memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
        inst_set_state(asg, g, in, SC_ASG_ENTERING_STANDBY);
        lb_deregister_all(asg, g, in, now_ms);
    }
    return SC_OK;
}

enum sc_status sc_asg_exit_standby(struct sc_asg *asg, const char *group, const char *const *ids,
                                   int nids, int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_get(asg, group);
    enum sc_status st;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    if ((st = check_ids(ids, nids, err)) != SC_OK)
        return st;
    for (int i = 0; i < nids; i++) {
        struct asg_inst *in = member(asg, g, ids[i], err);

        if (!in)
            return err ? err->status : SC_ERR_VALIDATION;
        if (in->info.lifecycle_state != SC_ASG_STANDBY)
            return sc_fail(err, SC_ERR_VALIDATION, "The instance %s is not in Standby.", ids[i]);
    }
    if (g->info.desired_capacity + nids > g->info.max_size)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "AutoScalingGroup %s has min-size=%d, max-size=%d, and desired-size=%d. To exit from standby %d instances, please update the AutoScalingGroup sizes appropriately.",
            g->info.auto_scaling_group_name, g->info.min_size, g->info.max_size,
            g->info.desired_capacity, nids);
    for (int i = 0; i < nids; i++) {
        struct asg_inst *in = asg_inst_get(asg, ids[i], NULL);
        int cap = sc_asg_group_capacity(&g->info);
        char cause[ASG_CAUSE_LEN] = "", desc[128];
        struct asg_activity *a;

        g->info.desired_capacity++;
        asg_cause_add(
            cause, now_ms,
            "instance %s was moved out of standby in response to a user request, increasing the capacity from %d to %d",
            ids[i], cap, cap + 1);
        snprintf(desc, sizeof(desc), "Moving EC2 instance out of Standby: %s", ids[i]);
        a = act_new(asg, g, now_ms, desc, cause, "PreInService", 30, in->info.subnet_id,
                    in->info.availability_zone);
        if (a)
            memcpy(in->activity_id, a->info.activity_id, sizeof(in->activity_id));
        inst_set_state(asg, g, in, SC_ASG_PENDING);
        in->from_standby = 1;
    }
    return SC_OK;
}

/* --- load balancers --------------------------------------------------------------------------- */

enum sc_status sc_asg_attach_load_balancers(struct sc_asg *asg, const char *group,
                                            const char *const *names, int nnames, int64_t now_ms,
                                            struct sc_error *err)
{
    struct asg_group *g = asg_group_get(asg, group);
    struct sc_asg_group_info *gi;
    enum sc_status st;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    gi = &g->info;
    if (nnames > 10)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value at 'loadBalancerNames' failed to satisfy constraint: Member must have length less than or equal to 10");
    for (int i = 0; i < nnames; i++) {
        if (!names[i] || !asg->env.lb_exists || !asg->env.lb_exists(asg->env.ud, names[i]))
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Provided Load Balancers may not be valid. Please ensure they exist and try again.");
    }
    (void)st;
    for (int i = 0; i < nnames; i++) {
        int dup = 0;
        char **grown, *n;

        for (int k = 0; k < gi->nload_balancer_names; k++)
            dup |= strcmp(gi->load_balancer_names[k], names[i]) == 0;
        if (dup)
            continue;
        if (gi->nload_balancer_names >= SC_ASG_MAX_LOAD_BALANCERS)
            return sc_fail(
                err, SC_ERR_LIMIT_EXCEEDED,
                "You have reached your quota of %d Classic Load Balancers per Auto Scaling group.",
                SC_ASG_MAX_LOAD_BALANCERS);
        n = asg_strdup(names[i]);
        grown = n ? realloc(gi->load_balancer_names,
                            (size_t)(gi->nload_balancer_names + 1) * sizeof(*grown))
                  : NULL;
        if (!grown) {
            free(n);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        gi->load_balancer_names = grown;
        grown[gi->nload_balancer_names++] = n;
        asg_inputs_changed(asg);
        if (asg->env.lb_register && !proc_suspended(g, SC_ASG_PROC_ADD_TO_LOAD_BALANCER))
            for (int k = 0; k < g->ninst; k++)
                if (g->inst[k].info.lifecycle_state == SC_ASG_IN_SERVICE)
                    asg->env.lb_register(asg->env.ud, n, g->inst[k].info.instance_id, now_ms);
    }
    return SC_OK;
}

enum sc_status sc_asg_detach_load_balancers(struct sc_asg *asg, const char *group,
                                            const char *const *names, int nnames, int64_t now_ms,
                                            struct sc_error *err)
{
    struct asg_group *g = asg_group_get(asg, group);
    struct sc_asg_group_info *gi;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    gi = &g->info;
    if (nnames > 10)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value at 'loadBalancerNames' failed to satisfy constraint: Member must have length less than or equal to 10");
    for (int i = 0; i < nnames; i++) {
        for (int k = 0; k < gi->nload_balancer_names; k++) {
            if (!names[i] || strcmp(gi->load_balancer_names[k], names[i]) != 0)
                continue;
            if (asg->env.lb_deregister)
                for (int m = 0; m < g->ninst; m++)
                    asg->env.lb_deregister(asg->env.ud, gi->load_balancer_names[k],
                                           g->inst[m].info.instance_id, now_ms);
            free(gi->load_balancer_names[k]);
            memmove(&gi->load_balancer_names[k], &gi->load_balancer_names[k + 1],
                    (size_t)(gi->nload_balancer_names - k - 1) * sizeof(char *));
            gi->nload_balancer_names--;
            asg_inputs_changed(asg);
            break;
        }
    }
    return SC_OK;
}

const char *sc_asg_load_balancer_state(const struct sc_asg *asg, const struct sc_asg_group_info *gi,
                                       int i)
{
    const struct asg_group *g = (const struct asg_group *)gi;

    if (i < 0 || i >= gi->nload_balancer_names)
        return "";
    if (!asg->env.lb_instance_state)
        return "Added";
    for (int k = 0; k < g->ninst; k++)
        if (asg->env.lb_instance_state(asg->env.ud, gi->load_balancer_names[i],
                                       g->inst[k].info.instance_id) == SC_ASG_LB_IN_SERVICE)
            return "InService";
    return "Added";
}

/* --- processes, tags, metrics ------------------------------------------------------------------
 */

static enum sc_status process_mask(const char *const *names, int n, unsigned *mask,
                                   struct sc_error *err)
{
    *mask = 0;
    if (n == 0) {
        *mask = (1u << SC_ASG_PROC_COUNT) - 1;
        return SC_OK;
    }
    for (int i = 0; i < n; i++) {
        int found = -1;

        for (int p = 0; p < SC_ASG_PROC_COUNT; p++)
            if (names[i] && strcmp(names[i], sc_asg_process_str((enum sc_asg_process)p)) == 0)
                found = p;
        if (found < 0)
            return sc_fail(err, SC_ERR_VALIDATION, "Process %s is not a valid process name.",
                           names[i] ? names[i] : "null");
        *mask |= 1u << found;
    }
    return SC_OK;
}

enum sc_status sc_asg_suspend_processes(struct sc_asg *asg, const char *group,
                                        const char *const *names, int nnames, int64_t now_ms,
                                        struct sc_error *err)
{
    struct asg_group *g = asg_group_get(asg, group);
    unsigned mask;
    enum sc_status st;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    if ((st = process_mask(names, nnames, &mask, err)) != SC_OK)
        return st;
    for (int p = 0; p < SC_ASG_PROC_COUNT; p++)
        if (((mask >> p) & 1u) && !((g->info.suspended >> p) & 1u))
            g->info.suspended_ms[p] = now_ms;
    g->info.suspended |= mask;
    asg_inputs_changed(asg);
    return SC_OK;
}

enum sc_status sc_asg_resume_processes(struct sc_asg *asg, const char *group,
                                       const char *const *names, int nnames, int64_t now_ms,
                                       struct sc_error *err)
{
    struct asg_group *g = asg_group_get(asg, group);
    unsigned mask;
    enum sc_status st;

    (void)now_ms;
    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    if ((st = process_mask(names, nnames, &mask, err)) != SC_OK)
        return st;
    g->info.suspended &= ~mask;
    asg_inputs_changed(asg);
    return SC_OK;
}

static enum sc_status tag_target(struct sc_asg *asg, const struct sc_asg_tag_req *t,
                                 struct asg_group **out, struct sc_error *err)
{
    if (t->resource_type && strcmp(t->resource_type, "auto-scaling-group") != 0)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Invalid resource type: %s. The only valid resource type is auto-scaling-group.",
            t->resource_type);
    *out = asg_group_get(asg, t->resource_id);
    if (!*out)
        return sc_asg_group_not_found(t->resource_id, err);
    if (!t->key || !t->key[0] || strlen(t->key) > 128)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value at 'tags.member.key' failed to satisfy constraint: Member must have length between 1 and 128");
    return SC_OK;
}

enum sc_status sc_asg_create_or_update_tags(struct sc_asg *asg, const struct sc_asg_tag_req *tags,
                                            int ntags, int64_t now_ms, struct sc_error *err)
{
    (void)now_ms;
    for (int i = 0; i < ntags; i++) {
        struct asg_group *g;
        enum sc_status st = tag_target(asg, &tags[i], &g, err);
        int exists = 0, added = 0;

        if (st != SC_OK)
            return st;
        if (strncmp(tags[i].key, "aws:", 4) == 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Tag keys starting with 'aws:' are reserved for internal use");
        if (tags[i].value && strlen(tags[i].value) > 256)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "1 validation error detected: Value at 'tags.member.value' failed to satisfy constraint: Member must have length less than or equal to 256");
        for (int k = 0; k < g->info.ntags; k++)
            exists |= strcmp(g->info.tags[k].key, tags[i].key) == 0;
        for (int j = 0; j < i; j++)
            added += !exists && tags[j].resource_id &&
                     strcmp(tags[j].resource_id, tags[i].resource_id) == 0;
        if (!exists && g->info.ntags + 1 > SC_ASG_MAX_TAGS)
            return sc_fail(err, SC_ERR_LIMIT_EXCEEDED,
                           "Tag limit exceeded: an Auto Scaling group can have at most %d tags.",
                           SC_ASG_MAX_TAGS);
        (void)added;
    }
    for (int i = 0; i < ntags; i++) {
        struct asg_group *g = asg_group_get(asg, tags[i].resource_id);
        struct sc_asg_group_info *gi = &g->info;
        struct sc_asg_tag *grown;
        char *v = asg_strdup(tags[i].value ? tags[i].value : "");
        int done = 0;

        if (!v)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        for (int k = 0; k < gi->ntags && !done; k++) {
            if (strcmp(gi->tags[k].key, tags[i].key) == 0) {
                free(gi->tags[k].value);
                gi->tags[k].value = v;
                gi->tags[k].propagate_at_launch = !!tags[i].propagate_at_launch;
                done = 1;
            }
        }
        if (done)
            continue;
        if (gi->ntags >= SC_ASG_MAX_TAGS) {
            free(v);
            return sc_fail(err, SC_ERR_LIMIT_EXCEEDED,
                           "Tag limit exceeded: an Auto Scaling group can have at most %d tags.",
                           SC_ASG_MAX_TAGS);
        }
        grown = realloc(gi->tags, (size_t)(gi->ntags + 1) * sizeof(*grown));
        if (!grown) {
            free(v);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        gi->tags = grown;
        grown[gi->ntags].key = asg_strdup(tags[i].key);
        if (!grown[gi->ntags].key) {
            free(v);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        grown[gi->ntags].value = v;
        grown[gi->ntags].propagate_at_launch = !!tags[i].propagate_at_launch;
        gi->ntags++;
    }
    return SC_OK;
}

enum sc_status sc_asg_delete_tags(struct sc_asg *asg, const struct sc_asg_tag_req *tags, int ntags,
                                  int64_t now_ms, struct sc_error *err)
{
    (void)now_ms;
    for (int i = 0; i < ntags; i++) {
        struct asg_group *g;
        enum sc_status st = tag_target(asg, &tags[i], &g, err);

        if (st != SC_OK)
            return st;
    }
    for (int i = 0; i < ntags; i++) {
        struct sc_asg_group_info *gi = &asg_group_get(asg, tags[i].resource_id)->info;

        for (int k = 0; k < gi->ntags; k++) {
            if (strcmp(gi->tags[k].key, tags[i].key) != 0)
                continue;
            if (tags[i].value && strcmp(gi->tags[k].value, tags[i].value) != 0)
                continue;
            free(gi->tags[k].key);
            free(gi->tags[k].value);
            memmove(&gi->tags[k], &gi->tags[k + 1],
                    (size_t)(gi->ntags - k - 1) * sizeof(gi->tags[0]));
            gi->ntags--;
            break;
        }
    }
    return SC_OK;
}

static enum sc_status metric_mask(const char *const *names, int n, unsigned *mask,
                                  struct sc_error *err)
{
    *mask = 0;
    if (n == 0) {
        *mask = (1u << SC_ASG_METRIC_COUNT) - 1;
        return SC_OK;
    }
    for (int i = 0; i < n; i++) {
        int found = -1;

        for (int m = 0; m < SC_ASG_METRIC_COUNT; m++)
            if (names[i] && strcmp(names[i], sc_asg_metric_str(m)) == 0)
                found = m;
        if (found < 0)
            return sc_fail(err, SC_ERR_VALIDATION, "Invalid metric name: %s",
                           names[i] ? names[i] : "null");
        *mask |= 1u << found;
    }
    return SC_OK;
}

enum sc_status sc_asg_enable_metrics_collection(struct sc_asg *asg, const char *group,
                                                const char *const *metrics, int nmetrics,
                                                const char *granularity, int64_t now_ms,
                                                struct sc_error *err)
{
    struct asg_group *g = asg_group_get(asg, group);
    unsigned mask;
    enum sc_status st;

    (void)now_ms;
    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    if (!granularity || strcmp(granularity, "1Minute") != 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Invalid granularity: %s. The only valid granularity is 1Minute.",
                       granularity ? granularity : "null");
    if ((st = metric_mask(metrics, nmetrics, &mask, err)) != SC_OK)
        return st;
    g->info.metrics_enabled |= mask;
    g->next_metrics_ms = INT64_MAX; /* put at the next step */
    return SC_OK;
}

enum sc_status sc_asg_disable_metrics_collection(struct sc_asg *asg, const char *group,
                                                 const char *const *metrics, int nmetrics,
                                                 int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_get(asg, group);
    unsigned mask;
    enum sc_status st;

    (void)now_ms;
    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    if ((st = metric_mask(metrics, nmetrics, &mask, err)) != SC_OK)
        return st;
    g->info.metrics_enabled &= ~mask;
    return SC_OK;
}

/* --- self check (tests) ------------------------------------------------------------------- */

int asg_self_check(struct sc_asg *asg, char *why, size_t len)
{
    for (int gi = 0; gi < asg->ngroups; gi++) {
        struct asg_group *g = asg->groups[gi];
        const char *name = g->info.auto_scaling_group_name;
        struct asg_census c;
        int nz = g->info.navailability_zones, count[ASG_TRACKED_ZONES] = { 0 }, stray = 0;

        memset(&c, 0, sizeof(c));
        for (int i = 0; i < g->ninst; i++)
            census_count(&c, &g->inst[i], 1);
        for (int s = 0; s < ASG_LIFECYCLE_COUNT; s++) {
            if (c.state[s] != g->census.state[s]) {
                snprintf(why, len, "group %s: census has %d %s, the instances %d", name,
                         g->census.state[s], sc_asg_lifecycle_str((enum sc_asg_lifecycle)s),
                         c.state[s]);
                return -1;
            }
        }
        if (c.unhealthy_cap != g->census.unhealthy_cap ||
            c.unhealthy_elb_cap != g->census.unhealthy_elb_cap) {
            snprintf(why, len, "group %s: census has %d unhealthy (%d ELB), the instances %d (%d)",
                     name, g->census.unhealthy_cap, g->census.unhealthy_elb_cap, c.unhealthy_cap,
                     c.unhealthy_elb_cap);
            return -1;
        }
        /* the zone counts, recounted by name without the per-instance zone memo */
        for (int i = 0; i < g->ninst; i++) {
            const struct asg_inst *in = &g->inst[i];
            int z = 0;

            if (!asg_counts_capacity(in->info.lifecycle_state))
                continue;
            while (z < nz && strcmp(g->info.availability_zones[z], in->info.availability_zone) != 0)
                z++;
            if (z == nz)
                stray++;
            else if (z < ASG_TRACKED_ZONES)
                count[z]++;
        }
        if (g->zc_valid && g->zc_members_ver == g->members_ver && g->zc_zones_gen == g->zones_gen) {
            if (stray != g->zc_stray || memcmp(count, g->zc_count, sizeof(count)) != 0) {
                snprintf(why, len, "group %s: cached zone counts differ from the instances", name);
                return -1;
            }
        }
        (void)zone_counts(g, count);
    }
    if (asg->sig_gen == asg->inputs_gen) {
        int with_lb, must;
        uint64_t h = sig_own_compute(asg, &with_lb, &must);

        if (must != asg->sig_must_sweep ||
            (!must && (h != asg->sig_own || with_lb != asg->sig_with_lb))) {
            snprintf(why, len,
                     "the cached sweep signature differs from the state (a change without "
                     "asg_inputs_changed)");
            return -1;
        }
    }
    sig_own_update(asg);
    return 0;
}
