/* scaler/asg_check.c: asg_self_check(), the tests' recount of what the library caches. */
#include "scaler/asg.h"

#include <stdio.h>
#include <string.h>

#include "scaler/asg_internal.h"

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
            asg_census_count(&c, &g->inst[i], 1);
        for (int s = 0; s < ASG_LIFECYCLE_COUNT; s++) {
            if (c.state[s] != g->census.state[s] || c.units[s] != g->census.units[s]) {
                snprintf(why, len, "group %s: census has %d %s (%d units), the instances %d (%d)",
                         name, g->census.state[s], sc_asg_lifecycle_str((enum sc_asg_lifecycle)s),
                         g->census.units[s], c.state[s], c.units[s]);
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
        if (c.cap_units != g->census.cap_units) {
            snprintf(why, len, "group %s: census has %d capacity units, the instances %d", name,
                     g->census.cap_units, c.cap_units);
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
        (void)asg_zone_counts(g, count);
    }
    if (asg->sig_gen == asg->inputs_gen) {
        int with_lb, must;
        uint64_t h = asg_sig_own_compute(asg, &with_lb, &must);

        if (must != asg->sig_must_sweep ||
            (!must && (h != asg->sig_own || with_lb != asg->sig_with_lb))) {
            snprintf(why, len,
                     "the cached sweep signature differs from the state (a change without "
                     "asg_inputs_changed)");
            return -1;
        }
    }
    asg_sig_own_update(asg);
    return 0;
}
