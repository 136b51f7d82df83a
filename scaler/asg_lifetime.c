/* scaler/asg_lifetime.c: MaxInstanceLifetime (docs/autoscaling.md section 13): the member's
 * rule and the replacement of instances that have run for it, one step at a time. */
#include "scaler/asg.h"

#include <string.h>

#include "scaler/asg_internal.h"
#include "scaler/asg_refresh.h"

enum sc_status sc_asg_lifetime_check(int seconds, struct sc_error *err)
{
    if (seconds != 0 && seconds < SC_ASG_MIN_INSTANCE_LIFETIME)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "MaxInstanceLifetime must be 0 or at least %d seconds.",
                       SC_ASG_MIN_INSTANCE_LIFETIME);
    return SC_OK;
}

static int64_t lifetime_ms(const struct asg_group *g)
{
    return (int64_t)g->info.max_instance_lifetime * 1000;
}

/* A member the lifetime may replace: InService and not protected from scale in. */
static int replaceable(const struct asg_inst *in)
{
    return in->info.lifecycle_state == SC_ASG_IN_SERVICE && !in->info.protected_from_scale_in;
}

/* The group replaces nothing now: no lifetime, being deleted, Terminate suspended, an
 * instance refresh active. */
static int lifetime_idle(const struct sc_asg *asg, const struct asg_group *g)
{
    const struct sc_asg_refresh_info *r;

    if (g->info.max_instance_lifetime <= 0 || g->deleting ||
        asg_proc_suspended(g, SC_ASG_PROC_TERMINATE))
        return 1;
    r = g->nrefreshes ? sc_asg_instance_refresh_at(asg, g->info.auto_scaling_group_name, 0) : NULL;
    return r && sc_asg_refresh_status_active(r->status);
}

void asg_lifetime_step(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    int due = 0, batch;

    if (lifetime_idle(asg, g))
        return;
    /* one replacement at a time: the group settled, at its desired capacity */
    if (asg_census_transitional(&g->census) || g->census.cap_units < g->info.desired_capacity)
        return;
    for (int i = 0; i < g->ninst; i++)
        due += replaceable(&g->inst[i]) && now_ms - g->inst[i].info.launch_ms >= lifetime_ms(g);
    if (due == 0)
        return;
    batch =
        g->census.state[SC_ASG_IN_SERVICE] / 10 > 1 ? g->census.state[SC_ASG_IN_SERVICE] / 10 : 1;
    while (batch-- > 0 && due-- > 0) {
        struct asg_inst *oldest = NULL;
        char cause[ASG_CAUSE_LEN];

        for (int i = 0; i < g->ninst; i++) {
            struct asg_inst *in = &g->inst[i];

            if (replaceable(in) && now_ms - in->info.launch_ms >= lifetime_ms(g) &&
                (!oldest || in->info.launch_ms < oldest->info.launch_ms))
                oldest = in;
        }
        if (!oldest)
            return;
        cause[0] = '\0';
        asg_cause_add(
            cause, now_ms,
            "an instance was taken out of service in response to a maximum instance lifetime");
        asg_cause_add(cause, now_ms, "instance %s was selected for termination",
                      oldest->info.instance_id);
        asg_inst_begin_terminate(asg, g, oldest, cause, now_ms);
    }
}

int64_t asg_lifetime_next_due(const struct sc_asg *asg, const struct asg_group *g, int64_t now_ms)
{
    int64_t due = INT64_MAX;

    if (lifetime_idle(asg, g))
        return INT64_MAX;
    for (int i = 0; i < g->ninst; i++) {
        const struct asg_inst *in = &g->inst[i];
        int64_t t = in->info.launch_ms + lifetime_ms(g);

        if (replaceable(in) && t < due)
            due = t;
    }
    if (due > now_ms)
        return due;
    /* due already: the step replaces it once the group settles, and a member settling is
     * itself a step; nothing to wake for before that */
    if (asg_census_transitional(&g->census) || g->census.cap_units < g->info.desired_capacity)
        return INT64_MAX;
    return now_ms + 1;
}
