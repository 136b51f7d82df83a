/* scaler/asg_mixed.c: a group's launch source (launch configuration, launch template or
 * mixed instances policy) as Create/UpdateAutoScalingGroup check, resolve and set it, and
 * what a mixed instances policy decides: each instance's weight and the launch order of
 * the overrides (docs/autoscaling.md sections 1 and 2). */
#include "scaler/asg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/asg_internal.h"

static const char *const od_strategies[] = { "prioritized", "lowest-price", NULL };
static const char *const spot_strategies[] = { "lowest-price", "capacity-optimized",
                                               "capacity-optimized-prioritized",
                                               "price-capacity-optimized", NULL };

#define ASG_SPOT_POOLS_DEFAULT 2

static int in_set(const char *const *set, const char *s)
{
    for (; *set; set++)
        if (strcmp(*set, s) == 0)
            return 1;
    return 0;
}

/* WeightedCapacity "1".."999" (no sign, no leading zero, so it is described back as sent):
 * its value, else 0. */
static int parse_weight(const char *s)
{
    int v = 0;
    size_t n = strlen(s);

    if (n < 1 || n > 3 || s[0] == '0')
        return 0;
    for (size_t k = 0; k < n; k++) {
        if (s[k] < '0' || s[k] > '9')
            return 0;
        v = v * 10 + (s[k] - '0');
    }
    return v;
}

/* SpotMaxPrice: "" (no price) or a decimal number >= 0.001. */
static int valid_spot_price(const char *s)
{
    char *end = NULL;
    double v;

    if (!s[0])
        return 1;
    if (!(s[0] >= '0' && s[0] <= '9') && s[0] != '.')
        return 0;
    v = strtod(s, &end);
    return end && !*end && isfinite(v) && v >= 0.001;
}

/* Resolves a launch template through the env into *out (the given id and name when the
 * env has no EC2 to ask). */
static enum sc_status lt_resolve(struct sc_asg *asg, const char *id, const char *name,
                                 const char *version, struct sc_asg_lt_resolved *out,
                                 struct sc_error *err)
{
    memset(out, 0, sizeof(*out));
    if (asg->env.launch_template_resolve) {
        struct sc_error why = { 0 };
        enum sc_status st =
            asg->env.launch_template_resolve(asg->env.ud, id, name, version, out, &why);

        if (st != SC_OK)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "You must use a valid fully-formed launch template. %s",
                           why.message[0] ? why.message : "The launch template does not exist.");
    }
    if (!out->launch_template_id[0] && id)
        snprintf(out->launch_template_id, sizeof(out->launch_template_id), "%s", id);
    if (!out->launch_template_name[0] && name)
        snprintf(out->launch_template_name, sizeof(out->launch_template_name), "%s", name);
    return SC_OK;
}

static enum sc_status lt_id_or_name(const char *id, const char *name, struct sc_error *err)
{
    if ((id != NULL) + (name != NULL) != 1)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Valid requests must contain either launchTemplateId or LaunchTemplateName");
    return SC_OK;
}

static enum sc_status check_distribution(const struct sc_asg_mixed_req *m, struct sc_error *err)
{
    if (m->on_demand_allocation_strategy &&
        !in_set(od_strategies, m->on_demand_allocation_strategy))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Invalid value %s for OnDemandAllocationStrategy. Valid values are prioritized, lowest-price.",
            m->on_demand_allocation_strategy);
    if (m->spot_allocation_strategy && !in_set(spot_strategies, m->spot_allocation_strategy))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Invalid value %s for SpotAllocationStrategy. Valid values are lowest-price, capacity-optimized, capacity-optimized-prioritized, price-capacity-optimized.",
            m->spot_allocation_strategy);
    if (m->has_on_demand_base_capacity && m->on_demand_base_capacity < 0)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value %d at 'mixedInstancesPolicy.instancesDistribution.onDemandBaseCapacity' failed to satisfy constraint: Member must have value greater than or equal to 0",
            m->on_demand_base_capacity);
    if (m->has_on_demand_percentage_above_base_capacity &&
        (m->on_demand_percentage_above_base_capacity < 0 ||
         m->on_demand_percentage_above_base_capacity > 100))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value %d at 'mixedInstancesPolicy.instancesDistribution.onDemandPercentageAboveBaseCapacity' failed to satisfy constraint: Member must have value between 0 and 100",
            m->on_demand_percentage_above_base_capacity);
    if (m->has_spot_instance_pools && (m->spot_instance_pools < 1 || m->spot_instance_pools > 20))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value %d at 'mixedInstancesPolicy.instancesDistribution.spotInstancePools' failed to satisfy constraint: Member must have value between 1 and 20",
            m->spot_instance_pools);
    if (m->spot_max_price && !valid_spot_price(m->spot_max_price))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "The value %s for SpotMaxPrice is invalid. The maximum price must be at least 0.001.",
            m->spot_max_price);
    return SC_OK;
}

/* Overrides of a request: the rules of docs/autoscaling.md 2.2; their templates resolved
 * into ov[]. *weighted tells whether they carry weights. */
static enum sc_status check_overrides(struct sc_asg *asg, const struct sc_asg_mixed_req *m,
                                      struct sc_asg_lt_resolved *ov, int *weighted,
                                      struct sc_error *err)
{
    int nweights = 0;
    enum sc_status st;

    *weighted = 0;
    if (m->noverrides > SC_ASG_MAX_OVERRIDES)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value at 'mixedInstancesPolicy.launchTemplate.overrides' failed to satisfy constraint: Member must have length less than or equal to %d",
            SC_ASG_MAX_OVERRIDES);
    for (int k = 0; k < m->noverrides; k++) {
        const struct sc_asg_override_req *o = &m->overrides[k];

        if (o->has_instance_requirements)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "InstanceRequirements in a mixed instances policy is not supported by scalelab; list the instance types in Overrides.");
        if (!o->instance_type || !o->instance_type[0])
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "The instance type must be specified for each launch template override.");
        for (int j = 0; j < k; j++)
            if (strcmp(m->overrides[j].instance_type, o->instance_type) == 0)
                return sc_fail(err, SC_ERR_VALIDATION,
                               "Duplicate instance type %s in the launch template overrides.",
                               o->instance_type);
        if (o->weighted_capacity) {
            if (!parse_weight(o->weighted_capacity))
                return sc_fail(
                    err, SC_ERR_VALIDATION,
                    "The value %s for WeightedCapacity is invalid. Weighted capacity must be an integer between 1 and 999.",
                    o->weighted_capacity);
            nweights++;
        }
        memset(&ov[k], 0, sizeof(ov[k]));
        if (o->launch_template_id || o->launch_template_name || o->launch_template_version) {
            st = lt_id_or_name(o->launch_template_id, o->launch_template_name, err);
            if (st == SC_OK)
                st = lt_resolve(asg, o->launch_template_id, o->launch_template_name,
                                o->launch_template_version, &ov[k], err);
            if (st != SC_OK)
                return st;
        }
    }
    if (nweights > 0 && nweights != m->noverrides)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "If you specify WeightedCapacity for one instance type, you must specify it for all of them.");
    *weighted = nweights > 0;
    return SC_OK;
}

/* Weights configured while an instance of a type without one is in g. */
static enum sc_status check_running_types(const struct asg_group *g,
                                          const struct sc_asg_mixed_req *m, struct sc_error *err)
{
    for (int i = 0; g && i < g->ninst; i++) {
        const char *t = g->inst[i].info.instance_type;
        int found = 0;

        if (!t || g->inst[i].info.lifecycle_state == SC_ASG_TERMINATED ||
            g->inst[i].info.lifecycle_state == SC_ASG_DETACHED)
            continue;
        for (int k = 0; k < m->noverrides && !found; k++)
            found = strcmp(m->overrides[k].instance_type, t) == 0;
        if (!found)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Cannot configure weights because instance type [%s] is not in the overrides but is currently running in the group. Add [%s] to the overrides, specify a weight, and try again.",
                t, t);
    }
    return SC_OK;
}

static enum sc_status check_mixed(struct sc_asg *asg, const struct asg_group *g,
                                  const struct sc_asg_mixed_req *m, struct asg_lt_ids *ids,
                                  struct sc_error *err)
{
    int weighted = 0;
    enum sc_status st;

    if (m->has_launch_template_spec || !g || !g->info.mixed_instances_policy) {
        st = lt_id_or_name(m->launch_template_id, m->launch_template_name, err);
        if (st == SC_OK)
            st = lt_resolve(asg, m->launch_template_id, m->launch_template_name,
                            m->launch_template_version, &ids->lt, err);
        if (st != SC_OK)
            return st;
    }
    if (m->has_overrides) {
        st = check_overrides(asg, m, ids->ov, &weighted, err);
        if (st != SC_OK)
            return st;
        st = weighted ? check_running_types(g, m, err) : SC_OK;
        if (st != SC_OK)
            return st;
    }
    return check_distribution(m, err);
}

enum sc_status asg_launch_source_check(struct sc_asg *asg, const struct asg_group *g,
                                       const struct sc_asg_group_req *r, struct asg_lt_ids *ids,
                                       struct sc_error *err)
{
    int has_lc = r->launch_configuration_name != NULL;
    int has_lt = r->launch_template_id != NULL || r->launch_template_name != NULL;
    int has_mixed = r->mixed_instances_policy != NULL;

    memset(&ids->lt, 0, sizeof(ids->lt));
    if (g && has_lc + has_lt + has_mixed == 0)
        return SC_OK; /* an update that leaves the source as it is */
    if (has_lc + has_lt + has_mixed != 1)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Valid requests must contain either LaunchTemplate, LaunchConfigurationName, InstanceId or MixedInstancesPolicy parameter.");
    if (has_lc) {
        if (!sc_asg_lc_find(asg, r->launch_configuration_name))
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Launch configuration name not found - Launch configuration %s not found",
                r->launch_configuration_name);
        return SC_OK;
    }
    if (has_lt) {
        if (r->launch_template_id && r->launch_template_name)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "You must specify either a launch template ID or a launch template name in the request, but not both.");
        return lt_resolve(asg, r->launch_template_id, r->launch_template_name,
                          r->launch_template_version, &ids->lt, err);
    }
    return check_mixed(asg, g, r->mixed_instances_policy, ids, err);
}

/* --- setting it ---------------------------------------------------------------------------- */

static void override_cleanup(struct sc_asg_override_info *o)
{
    free(o->instance_type);
    free(o->weighted_capacity);
    free(o->launch_template_id);
    free(o->launch_template_name);
    free(o->launch_template_version);
}

void asg_mixed_free(struct sc_asg_mixed_info *m)
{
    for (int k = 0; k < m->noverrides; k++)
        override_cleanup(&m->overrides[k]);
    free(m->overrides);
    free(m->on_demand_allocation_strategy);
    free(m->spot_allocation_strategy);
    free(m->spot_max_price);
    memset(m, 0, sizeof(*m));
}

/* A copy of s, or of "" resolved to NULL; *bad set on OOM. */
static char *dup_opt(const char *s, int *bad)
{
    char *d;

    if (!s || !s[0])
        return NULL;
    d = sc_strdup(s);
    *bad |= !d;
    return d;
}

/* The overrides of the request (templates from ids->ov) into nm. */
static int overrides_from_req(struct sc_asg_mixed_info *nm, const struct sc_asg_mixed_req *m,
                              const struct asg_lt_ids *ids)
{
    int bad = 0;

    if (m->noverrides == 0)
        return 0;
    nm->overrides = calloc((size_t)m->noverrides, sizeof(*nm->overrides));
    if (!nm->overrides)
        return -1;
    nm->noverrides = m->noverrides;
    for (int k = 0; k < m->noverrides; k++) {
        const struct sc_asg_override_req *o = &m->overrides[k];
        struct sc_asg_override_info *d = &nm->overrides[k];

        d->instance_type = dup_opt(o->instance_type, &bad);
        d->weighted_capacity = dup_opt(o->weighted_capacity, &bad);
        d->weight = o->weighted_capacity ? parse_weight(o->weighted_capacity) : 1;
        nm->weighted |= o->weighted_capacity != NULL;
        if (o->launch_template_id || o->launch_template_name) {
            d->launch_template_id = dup_opt(ids->ov[k].launch_template_id, &bad);
            d->launch_template_name = dup_opt(ids->ov[k].launch_template_name, &bad);
            d->launch_template_version = dup_opt(o->launch_template_version, &bad);
        }
    }
    return bad ? -1 : 0;
}

static int overrides_copy(struct sc_asg_mixed_info *nm, const struct sc_asg_mixed_info *cur)
{
    int bad = 0;

    if (cur->noverrides == 0)
        return 0;
    nm->overrides = calloc((size_t)cur->noverrides, sizeof(*nm->overrides));
    if (!nm->overrides)
        return -1;
    nm->noverrides = cur->noverrides;
    nm->weighted = cur->weighted;
    for (int k = 0; k < cur->noverrides; k++) {
        const struct sc_asg_override_info *o = &cur->overrides[k];
        struct sc_asg_override_info *d = &nm->overrides[k];

        d->instance_type = dup_opt(o->instance_type, &bad);
        d->weighted_capacity = dup_opt(o->weighted_capacity, &bad);
        d->weight = o->weight;
        d->launch_template_id = dup_opt(o->launch_template_id, &bad);
        d->launch_template_name = dup_opt(o->launch_template_name, &bad);
        d->launch_template_version = dup_opt(o->launch_template_version, &bad);
    }
    return bad ? -1 : 0;
}

/* The policy m merged over cur (NULL: AWS's defaults) into nm. Returns 0 or -1 (OOM). */
static int mixed_build(struct sc_asg_mixed_info *nm, const struct sc_asg_mixed_info *cur,
                       const struct sc_asg_mixed_req *m, const struct asg_lt_ids *ids)
{
    int bad = 0;

    memset(nm, 0, sizeof(*nm));
    if (m->has_overrides)
        bad |= overrides_from_req(nm, m, ids);
    else if (cur)
        bad |= overrides_copy(nm, cur);
    nm->on_demand_allocation_strategy =
        dup_opt(m->on_demand_allocation_strategy ? m->on_demand_allocation_strategy
                : cur                            ? cur->on_demand_allocation_strategy
                                                 : "prioritized",
                &bad);
    nm->on_demand_base_capacity = m->has_on_demand_base_capacity ? m->on_demand_base_capacity
                                  : cur                          ? cur->on_demand_base_capacity
                                                                 : 0;
    nm->on_demand_percentage_above_base_capacity =
        m->has_on_demand_percentage_above_base_capacity
            ? m->on_demand_percentage_above_base_capacity
        : cur ? cur->on_demand_percentage_above_base_capacity
              : 100;
    nm->spot_allocation_strategy = dup_opt(m->spot_allocation_strategy ? m->spot_allocation_strategy
                                           : cur ? cur->spot_allocation_strategy
                                                 : "lowest-price",
                                           &bad);
    nm->spot_instance_pools_sent =
        m->has_spot_instance_pools || (cur && cur->spot_instance_pools_sent);
    nm->spot_instance_pools = m->has_spot_instance_pools ? m->spot_instance_pools
                              : cur                      ? cur->spot_instance_pools
                                                         : ASG_SPOT_POOLS_DEFAULT;
    nm->has_spot_instance_pools =
        nm->spot_instance_pools_sent ||
        (nm->spot_allocation_strategy && strcmp(nm->spot_allocation_strategy, "lowest-price") == 0);
    if (m->spot_max_price)
        nm->spot_max_price = dup_opt(m->spot_max_price, &bad);
    else if (cur)
        nm->spot_max_price = dup_opt(cur->spot_max_price, &bad);
    if (bad) {
        asg_mixed_free(nm);
        return -1;
    }
    return 0;
}

/* Every instance's weight from g's policy as it now stands. */
static void reweigh(struct sc_asg *asg, struct asg_group *g)
{
    for (int i = 0; i < g->ninst; i++)
        asg_inst_set_weight(asg, g, &g->inst[i],
                            asg_mixed_weight(g, g->inst[i].info.instance_type));
}

int asg_launch_source_set(struct sc_asg *asg, struct asg_group *g, const struct sc_asg_group_req *r,
                          const struct asg_lt_ids *ids)
{
    struct sc_asg_group_info *i = &g->info;
    const struct sc_asg_mixed_req *m = r->mixed_instances_policy;
    struct sc_asg_mixed_info nm;
    char *lc = NULL, *id = NULL, *name = NULL, *version = NULL;
    int bad = 0;

    memset(&nm, 0, sizeof(nm));
    if (!m && !r->launch_configuration_name && !r->launch_template_id && !r->launch_template_name)
        return 0;
    if (r->launch_configuration_name) {
        lc = dup_opt(r->launch_configuration_name, &bad);
    } else if (!m || m->has_launch_template_spec || !i->mixed_instances_policy) {
        id = dup_opt(ids->lt.launch_template_id, &bad);
        name = dup_opt(ids->lt.launch_template_name, &bad);
        version = dup_opt(m ? m->launch_template_version : r->launch_template_version, &bad);
    } else { /* a policy update keeping the policy's template */
        id = dup_opt(i->launch_template_id, &bad);
        name = dup_opt(i->launch_template_name, &bad);
        version = dup_opt(i->launch_template_version, &bad);
    }
    if (m && mixed_build(&nm, i->mixed_instances_policy ? &i->mixed : NULL, m, ids) != 0)
        bad = 1;
    if (bad) {
        free(lc);
        free(id);
        free(name);
        free(version);
        asg_mixed_free(&nm);
        return -1;
    }
    free(i->launch_configuration_name);
    free(i->launch_template_id);
    free(i->launch_template_name);
    free(i->launch_template_version);
    asg_mixed_free(&i->mixed);
    i->launch_configuration_name = lc;
    i->launch_template_id = id;
    i->launch_template_name = name;
    i->launch_template_version = version;
    i->mixed_instances_policy = m != NULL;
    i->mixed = nm;
    reweigh(asg, g);
    return 0;
}

/* --- what the policy decides ------------------------------------------------------------- */

int asg_mixed_weight(const struct asg_group *g, const char *instance_type)
{
    const struct sc_asg_mixed_info *m = &g->info.mixed;

    if (!g->info.mixed_instances_policy || !m->weighted || !instance_type)
        return 1;
    for (int k = 0; k < m->noverrides; k++)
        if (strcmp(m->overrides[k].instance_type, instance_type) == 0)
            return m->overrides[k].weight;
    return 1;
}

int asg_mixed_max_weight(const struct asg_group *g)
{
    const struct sc_asg_mixed_info *m = &g->info.mixed;
    int w = 1;

    for (int k = 0; g->info.mixed_instances_policy && m->weighted && k < m->noverrides; k++)
        if (m->overrides[k].weight > w)
            w = m->overrides[k].weight;
    return w;
}

int asg_mixed_order(const struct sc_asg *asg, const struct asg_group *g, int *order)
{
    const struct sc_asg_mixed_info *m = &g->info.mixed;
    double key[SC_ASG_MAX_OVERRIDES];
    int n = g->info.mixed_instances_policy ? m->noverrides : 0;

    if (n > SC_ASG_MAX_OVERRIDES)
        n = SC_ASG_MAX_OVERRIDES;
    for (int k = 0; k < n; k++)
        order[k] = k;
    if (n < 2 || !m->on_demand_allocation_strategy ||
        strcmp(m->on_demand_allocation_strategy, "lowest-price") != 0)
        return n; /* prioritized: the order sent */
    /* lowest-price: by price per unit, unknown prices last, ties in the order sent */
    for (int k = 0; k < n; k++) {
        double p = asg->env.on_demand_price
                       ? asg->env.on_demand_price(asg->env.ud, m->overrides[k].instance_type)
                       : -1;

        key[k] = p < 0 ? INFINITY : p / m->overrides[k].weight;
    }
    for (int k = 1; k < n; k++) { /* insertion sort: stable */
        int o = order[k], j = k;

        while (j > 0 && key[order[j - 1]] > key[o]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = o;
    }
    return n;
}
