/* scaler/elb_vpc.c: see elb.h. A classic load balancer's place in its VPC after creation:
 * ApplySecurityGroupsToLoadBalancer, Attach/DetachLoadBalancerToSubnets, and its listeners'
 * certificates (SetLoadBalancerListenerSSLCertificate); DescribeAccountLimits
 * (docs/elb-classic.md 6). */
#include "scaler/elb.h"

#include <stdlib.h>
#include <string.h>

#include "scaler/elb_internal.h"
#include "scaler/rec.h"
#include "scaler/str.h"

enum sc_status sc_elb_apply_security_groups(struct sc_elb *elb, const char *name,
                                            const char *const *groups, int ngroups, int64_t now_ms,
                                            struct sc_error *err)
{
    const char *keep[16];
    char **sgs;
    struct lb *b;
    int n = 0;
    enum sc_status st;

    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (ngroups <= 0)
        return elb_null_member("securityGroups", err);
    if (!b->v.vpc_id)
        return sc_fail(err, SC_ERR_INVALID_CONFIGURATION_REQUEST,
                       "Security groups can only be applied to a load balancer in a VPC.");
    for (int i = 0; i < ngroups; i++) {
        const struct sc_ec2_security_group *g =
            groups[i] ? sc_ec2_security_group_find(elb->ec2, groups[i]) : NULL;

        if (!g)
            return sc_fail(err, SC_ERR_ELB_INVALID_SECURITY_GROUP,
                           "One or more of the specified security groups do not exist.");
        if (strcmp(g->vpc_id, b->v.vpc_id) != 0)
            return sc_fail(err, SC_ERR_INVALID_CONFIGURATION_REQUEST,
                           "Security group \"%s\" does not belong to VPC \"%s\"", g->group_id,
                           b->v.vpc_id);
        if (in_list(keep, n, g->group_id))
            continue;
        if (n >= 16)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "A load balancer can have at most 5 security groups.");
        keep[n++] = g->group_id;
    }
    if (n > 5)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "A load balancer can have at most 5 security groups.");
    sgs = calloc((size_t)n, sizeof(*sgs));
    if (!sgs)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    for (int i = 0; i < n; i++) {
        sgs[i] = sc_strdup(keep[i]);
        if (!sgs[i]) {
            for (int k = 0; k < i; k++)
                free(sgs[k]);
            free(sgs);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
    }
    for (int i = 0; i < b->nsgs; i++)
        free(b->sgs[i]);
    free(b->sgs);
    b->sgs = sgs;
    b->nsgs = n;
    if (elb_source_group_set(elb, b) < 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    elb_lb_sync(b);
    return elb_interfaces_sync(elb, b, 0, now_ms, err);
}

enum sc_status sc_elb_attach_subnets(struct sc_elb *elb, const char *name,
                                     const char *const *subnets, int nsubnets, int64_t now_ms,
                                     struct sc_error *err)
{
    struct placement p;
    struct lb *b;
    enum sc_status st;

    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (nsubnets <= 0)
        return elb_null_member("subnets", err);
    memset(&p, 0, sizeof(p));
    p.vpc = b->v.vpc_id;
    for (int i = 0; i < b->nzones; i++)
        elb_placement_add(&p, b->zones[i], b->subnets[i]);
    for (int i = 0; i < nsubnets; i++) {
        const struct sc_ec2_subnet *s =
            subnets[i] ? sc_ec2_subnet_find(elb->ec2, subnets[i]) : NULL;
        int dup = 0;

        if (!s)
            return sc_fail(err, SC_ERR_ELB_SUBNET_NOT_FOUND,
                           "The requested subnet '%s' does not exist.",
                           subnets[i] ? subnets[i] : "");
        if (p.vpc && strcmp(p.vpc, s->vpc_id) != 0)
            return sc_fail(err, SC_ERR_ELB_INVALID_SUBNET,
                           "All subnets must belong to the same VPC.");
        for (int j = 0; j < p.n; j++) {
            if (strcmp(p.zone[j], s->availability_zone) != 0)
                continue;
            if (strcmp(p.subnet[j], s->subnet_id) != 0)
                return sc_fail(err, SC_ERR_INVALID_CONFIGURATION_REQUEST,
                               "A load balancer cannot be attached to multiple subnets in the "
                               "same Availability Zone.");
            dup = 1;
        }
        if (dup)
            continue;
        if (p.n >= 16)
            return elb_zone_unsupported(s->availability_zone, err);
        elb_placement_add(&p, s->availability_zone, s->subnet_id);
    }
    if (p.n == b->nzones)
        return SC_OK;
    if (elb_set_zones(b, &p) < 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    /* a zone that comes back ends the drains its disabling started */
    for (int i = 0; i < b->nregs; i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_find(elb->ec2, b->regs[i]->id);

        if (b->regs[i]->drain == DRAIN_ZONE && in && elb_zone_enabled(b, in->availability_zone))
            elb_drain_end(b, i);
    }
    elb_lb_sync(b);
    return elb_interfaces_sync(elb, b, 0, now_ms, err);
}

enum sc_status sc_elb_detach_subnets(struct sc_elb *elb, const char *name,
                                     const char *const *subnets, int nsubnets, int64_t now_ms,
                                     struct sc_error *err)
{
    const char *zones[16];
    struct lb *b;
    int nz = 0, left = 0;
    enum sc_status st;

    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (nsubnets <= 0)
        return elb_null_member("subnets", err);
    for (int i = 0; i < b->nzones; i++) {
        if (in_list(subnets, nsubnets, b->subnets[i]))
            zones[nz++] = b->zones[i];
        else
            left++;
    }
    if (nz == 0)
        return SC_OK; /* subnets it is not attached to are ignored */
    if (left == 0)
        return sc_fail(err, SC_ERR_INVALID_CONFIGURATION_REQUEST,
                       "Load balancer must be attached to at least one subnet.");
    /* the instances of the removed subnets' zones go OutOfService: the zone rule */
    return sc_elb_disable_zones(elb, name, zones, nz, now_ms, err);
}

enum sc_status sc_elb_set_listener_certificate(struct sc_elb *elb, const char *name, int port,
                                               const char *certificate_id, int64_t now_ms,
                                               struct sc_error *err)
{
    struct sc_elb_listener *l = NULL;
    struct lb *b;
    char *copy;
    enum sc_status st;

    (void)now_ms;
    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (!certificate_id)
        return elb_null_member("sSLCertificateId", err);
    for (int i = 0; i < b->nlisteners; i++) {
        if (b->listeners[i].load_balancer_port == port)
            l = &b->listeners[i];
    }
    if (!l)
        return sc_fail(err, SC_ERR_LISTENER_NOT_FOUND, "There is no listener on port %d", port);
    if (strcmp(l->protocol, "HTTPS") != 0 && strcmp(l->protocol, "SSL") != 0)
        return sc_fail(err, SC_ERR_INVALID_CONFIGURATION_REQUEST,
                       "The listener on port %d is not an HTTPS or SSL listener.", port);
    if (!elb_certificate_valid(certificate_id))
        return elb_certificate_not_found(err);
    copy = sc_strdup(certificate_id);
    if (!copy)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    free((char *)l->ssl_certificate_id);
    l->ssl_certificate_id = copy;
    elb_lb_sync(b);
    return SC_OK;
}

static const struct sc_elb_limit limits[] = {
    { "classic-load-balancers", "20" },
    { "classic-listeners", "100" },
    { "classic-registered-instances", "1000" },
};

int sc_elb_limit_count(void)
{
    return (int)(sizeof(limits) / sizeof(limits[0]));
}

const struct sc_elb_limit *sc_elb_limit_at(int i)
{
    return i >= 0 && i < sc_elb_limit_count() ? &limits[i] : NULL;
}
