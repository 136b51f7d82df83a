/* scaler/asg_traffic.c: a group's ELBv2 target groups and traffic sources (see asg.h;
 * docs/elbv2.md 9). The group's classic load balancers and target groups register, drain
 * and health-check through the same env callbacks (asg_lb_at names both). */
#include "scaler/asg.h"

#include <stdlib.h>
#include <string.h>

#include "scaler/asg_internal.h"

int asg_lb_count(const struct sc_asg_group_info *gi)
{
    return gi->nload_balancer_names + gi->ntarget_group_arns;
}

const char *asg_lb_at(const struct sc_asg_group_info *gi, int k)
{
    if (k < gi->nload_balancer_names)
        return gi->load_balancer_names[k];
    return gi->target_group_arns[k - gi->nload_balancer_names];
}

enum sc_status asg_check_target_groups(struct sc_asg *asg, const char *const *arns, int n,
                                       struct sc_error *err)
{
    for (int i = 0; i < n; i++) {
        if (!arns[i] || !strstr(arns[i], ":targetgroup/") || !asg->env.lb_exists ||
            !asg->env.lb_exists(asg->env.ud, arns[i]))
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Provided Target Groups may not be valid. Please ensure they exist and try again.");
    }
    if (n > SC_ASG_MAX_LOAD_BALANCERS)
        return sc_fail(err, SC_ERR_LIMIT_EXCEEDED,
                       "You have reached your quota of %d target groups per Auto Scaling group.",
                       SC_ASG_MAX_LOAD_BALANCERS);
    return SC_OK;
}

enum sc_status sc_asg_attach_target_groups(struct sc_asg *asg, const char *group,
                                           const char *const *arns, int n, int64_t now_ms,
                                           struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    struct sc_asg_group_info *gi;
    enum sc_status st;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    gi = &g->info;
    if (n > 10)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at 'targetGroupARNs' failed to "
                       "satisfy constraint: Member must have length less than or equal to 10");
    st = asg_check_target_groups(asg, arns, n, err);
    if (st != SC_OK)
        return st;
    if (gi->ntarget_group_arns +
            asg_attach_fresh(gi->target_group_arns, gi->ntarget_group_arns, arns, n) >
        SC_ASG_MAX_LOAD_BALANCERS)
        return sc_fail(err, SC_ERR_LIMIT_EXCEEDED,
                       "You have reached your quota of %d target groups per Auto Scaling group.",
                       SC_ASG_MAX_LOAD_BALANCERS);
    return asg_attach_names(asg, g, &gi->target_group_arns, &gi->ntarget_group_arns, arns, n,
                            now_ms, err);
}

enum sc_status sc_asg_detach_target_groups(struct sc_asg *asg, const char *group,
                                           const char *const *arns, int n, int64_t now_ms,
                                           struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    struct sc_asg_group_info *gi;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    gi = &g->info;
    if (n > 10)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at 'targetGroupARNs' failed to "
                       "satisfy constraint: Member must have length less than or equal to 10");
    asg_detach_names(asg, g, gi->target_group_arns, &gi->ntarget_group_arns, arns, n, 1, now_ms);
    return SC_OK;
}

const char *sc_asg_target_group_state(const struct sc_asg *asg, const struct sc_asg_group_info *gi,
                                      int i)
{
    if (i < 0 || i >= gi->ntarget_group_arns)
        return "";
    return asg_attached_state(asg, (const struct asg_group *)gi, gi->target_group_arns[i]);
}

/* Splits traffic sources into classic names and target group ARNs (borrowed). */
static enum sc_status split_sources(const struct sc_asg_traffic_source *t, int n,
                                    const char **names, int *nn, const char **arns, int *na,
                                    struct sc_error *err)
{
    *nn = *na = 0;
    for (int i = 0; i < n; i++) {
        const char *type = t[i].type;

        if (!t[i].identifier)
            return sc_fail(err, SC_ERR_VALIDATION, "A traffic source identifier is required.");
        /* clients whose model predates Type send the identifier alone: an ARN of a target
         * group is elbv2, a name a classic load balancer */
        if (!type)
            type = strstr(t[i].identifier, ":targetgroup/") ? "elbv2" : "elb";
        if (strcmp(type, "elbv2") == 0)
            arns[(*na)++] = t[i].identifier;
        else if (strcmp(type, "elb") == 0)
            names[(*nn)++] = t[i].identifier;
        else
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Traffic source type '%s' is not supported. Valid values are elb, "
                           "elbv2.",
                           type);
    }
    return SC_OK;
}

static enum sc_status too_many_sources(struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VALIDATION,
                   "1 validation error detected: Value at 'trafficSources' failed to "
                   "satisfy constraint: Member must have length less than or equal to 10");
}

enum sc_status asg_traffic_check_create(struct sc_asg *asg, const struct sc_asg_group_req *r,
                                        struct sc_error *err)
{
    const char *names[10], *arns[10];
    enum sc_status st;
    int nn, na;

    if (r->ntraffic_sources > 10)
        return too_many_sources(err);
    st = split_sources(r->traffic_sources, r->ntraffic_sources, names, &nn, arns, &na, err);
    if (st != SC_OK)
        return st;
    st = asg_check_target_groups(asg, arns, na, err);
    for (int i = 0; st == SC_OK && i < nn; i++) {
        if (!asg->env.lb_exists || !asg->env.lb_exists(asg->env.ud, names[i]))
            st = sc_fail(err, SC_ERR_VALIDATION,
                         "Provided Load Balancers may not be valid. Please ensure they exist "
                         "and try again.");
    }
    if (st != SC_OK)
        return st;
    /* the quotas count the request's LoadBalancerNames / TargetGroupARNs with the sources */
    if (r->nload_balancer_names + asg_attach_fresh((char *const *)r->load_balancer_names,
                                                   r->nload_balancer_names, names, nn) >
        SC_ASG_MAX_LOAD_BALANCERS)
        return sc_fail(
            err, SC_ERR_LIMIT_EXCEEDED,
            "You have reached your quota of %d Classic Load Balancers per Auto Scaling group.",
            SC_ASG_MAX_LOAD_BALANCERS);
    if (r->ntarget_group_arns +
            asg_attach_fresh((char *const *)r->target_group_arns, r->ntarget_group_arns, arns, na) >
        SC_ASG_MAX_LOAD_BALANCERS)
        return sc_fail(err, SC_ERR_LIMIT_EXCEEDED,
                       "You have reached your quota of %d target groups per Auto Scaling group.",
                       SC_ASG_MAX_LOAD_BALANCERS);
    return SC_OK;
}

enum sc_status asg_traffic_add_create(struct sc_asg *asg, struct asg_group *g,
                                      const struct sc_asg_group_req *r, struct sc_error *err)
{
    const char *names[10], *arns[10];
    struct sc_asg_group_info *gi = &g->info;
    enum sc_status st;
    int nn, na;

    if (r->ntraffic_sources > 10)
        return too_many_sources(err);
    st = split_sources(r->traffic_sources, r->ntraffic_sources, names, &nn, arns, &na, err);
    if (st == SC_OK)
        st = asg_attach_names(asg, g, &gi->load_balancer_names, &gi->nload_balancer_names, names,
                              nn, 0, err);
    if (st == SC_OK)
        st = asg_attach_names(asg, g, &gi->target_group_arns, &gi->ntarget_group_arns, arns, na, 0,
                              err);
    return st;
}

static enum sc_status traffic(struct sc_asg *asg, const char *group,
                              const struct sc_asg_traffic_source *t, int n, int64_t now_ms,
                              int attach, struct sc_error *err)
{
    const char *names[10], *arns[10];
    enum sc_status st;
    int nn, na;

    if (n > 10)
        return too_many_sources(err);
    st = split_sources(t, n, names, &nn, arns, &na, err);
    if (st != SC_OK)
        return st;
    if (attach) {
        /* both checked before either changes */
        if (!asg_group_find(asg, group))
            return sc_asg_group_not_found(group, err);
        st = asg_check_target_groups(asg, arns, na, err);
        for (int i = 0; st == SC_OK && i < nn; i++) {
            if (!asg->env.lb_exists || !asg->env.lb_exists(asg->env.ud, names[i]))
                st = sc_fail(err, SC_ERR_VALIDATION,
                             "Provided Load Balancers may not be valid. Please ensure they "
                             "exist and try again.");
        }
        if (st == SC_OK && nn > 0)
            st = sc_asg_attach_load_balancers(asg, group, names, nn, now_ms, err);
        if (st == SC_OK && na > 0)
            st = sc_asg_attach_target_groups(asg, group, arns, na, now_ms, err);
        return st;
    }
    st = nn > 0 ? sc_asg_detach_load_balancers(asg, group, names, nn, now_ms, err) : SC_OK;
    if (st == SC_OK && na > 0)
        st = sc_asg_detach_target_groups(asg, group, arns, na, now_ms, err);
    if (st == SC_OK && nn == 0 && na == 0 && !asg_group_find(asg, group))
        st = sc_asg_group_not_found(group, err);
    return st;
}

enum sc_status sc_asg_attach_traffic_sources(struct sc_asg *asg, const char *group,
                                             const struct sc_asg_traffic_source *t, int n,
                                             int64_t now_ms, struct sc_error *err)
{
    return traffic(asg, group, t, n, now_ms, 1, err);
}

enum sc_status sc_asg_detach_traffic_sources(struct sc_asg *asg, const char *group,
                                             const struct sc_asg_traffic_source *t, int n,
                                             int64_t now_ms, struct sc_error *err)
{
    return traffic(asg, group, t, n, now_ms, 0, err);
}
