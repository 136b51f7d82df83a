/* scaler/ec2_vpc.c: CIDR blocks, VPCs and subnets (the default ones made at create,
 * CreateVpc, CreateSubnet and their Describe calls); each new VPC gets its default
 * security group from ec2_sg.c. */
#include "scaler/ec2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/ec2_internal.h"
#include "scaler/rec.h"
#include "scaler/rng.h"

/* --- CIDR ------------------------------------------------------------------------------------- */

/* "a.b.c.d/n" with n in lo..hi and no host bits set; 0 or -1. */
int ec2_cidr_parse(const char *s, int lo, int hi, uint32_t *base, int *prefix)
{
    unsigned v[5];
    int k = 0;
    uint32_t b = 0, mask;

    if (!s)
        return -1;
    for (int part = 0; part < 5; part++) {
        unsigned x = 0;
        int digits = 0;

        while (*s >= '0' && *s <= '9') {
            x = x * 10 + (unsigned)(*s - '0');
            if (++digits > 3)
                return -1;
            s++;
        }
        if (!digits)
            return -1;
        v[k++] = x;
        if (part < 3 && *s++ != '.')
            return -1;
        if (part == 3 && *s++ != '/')
            return -1;
    }
    if (*s)
        return -1;
    for (int i = 0; i < 4; i++) {
        if (v[i] > 255)
            return -1;
        b = b << 8 | v[i];
    }
    if ((int)v[4] < lo || (int)v[4] > hi)
        return -1;
    mask = v[4] == 0 ? 0 : 0xffffffffu << (32 - v[4]);
    if (b & ~mask)
        return -1;
    *base = b;
    *prefix = (int)v[4];
    return 0;
}

static void cidr_format(char *out, size_t n, uint32_t base, int prefix)
{
    snprintf(out, n, "%u.%u.%u.%u/%d", base >> 24, base >> 16 & 255, base >> 8 & 255, base & 255,
             prefix);
}

static int cidr_contains(uint32_t b1, int p1, uint32_t b2, int p2)
{
    uint32_t mask = p1 == 0 ? 0 : 0xffffffffu << (32 - p1);

    return p2 >= p1 && (b2 & mask) == b1;
}

static int cidr_overlap(uint32_t b1, int p1, uint32_t b2, int p2)
{
    return cidr_contains(b1, p1, b2, p2) || cidr_contains(b2, p2, b1, p1);
}

/* --- VPCs and subnets ------------------------------------------------------------------------- */

void ec2_vpc_sync(struct vpc *v)
{
    v->v.tags = v->tags.v;
    v->v.ntags = v->tags.n;
}

void ec2_subnet_sync(struct subnet *s)
{
    s->v.tags = s->tags.v;
    s->v.ntags = s->tags.n;
}

/* Points a VPC's view at its fields, for a new VPC and a loaded one alike. */
void ec2_vpc_link(const struct sc_ec2 *ec2, struct vpc *v)
{
    v->v.vpc_id = v->id;
    v->v.cidr_block = v->cidr;
    v->v.state = "available";
    v->v.owner_id = ec2->account;
    v->v.dhcp_options_id = v->dhcp;
    v->v.instance_tenancy = "default";
    ec2_vpc_sync(v);
}

/* The same for a subnet whose vpc and zone are set. */
void ec2_subnet_link(const struct sc_ec2 *ec2, struct subnet *s)
{
    s->v.subnet_id = s->id;
    s->v.subnet_arn = s->arn;
    s->v.vpc_id = s->vpc->id;
    s->v.cidr_block = s->cidr;
    s->v.availability_zone = s->zone->name;
    s->v.availability_zone_id = s->zone->id;
    s->v.state = "available";
    s->v.owner_id = ec2->account;
    ec2_subnet_sync(s);
}

struct vpc *ec2_vpc_new(struct sc_ec2 *ec2, uint32_t base, int prefix, int is_default)
{
    struct vpc *v;

    if (ec2_grow(&ec2->vpcs, ec2->nvpcs, &ec2->capvpcs) < 0)
        return NULL;
    v = calloc(1, sizeof(*v));
    if (!v)
        return NULL;
    ec2_make_id(ec2, "vpc-", v->id);
    ec2_make_id(ec2, "dopt-", v->dhcp);
    cidr_format(v->cidr, sizeof(v->cidr), base, prefix);
    v->base = base;
    v->prefix = prefix;
    v->v.is_default = is_default;
    {
        /* the default security group's id derives from the VPC's: no RNG draw */
        uint64_t seed = strtoull(v->id + 4, NULL, 16);

        snprintf(v->sg_id, sizeof(v->sg_id), "sg-0%016llx",
                 (unsigned long long)sc_rng_splitmix64(&seed));
    }
    ec2_vpc_link(ec2, v);
    if (!ec2_sg_default_new(ec2, v)) {
        free(v);
        return NULL;
    }
    ec2->vpcs[ec2->nvpcs++] = v;
    return v;
}

struct subnet *ec2_subnet_new(struct sc_ec2 *ec2, const struct vpc *vpc, uint32_t base, int prefix,
                              const struct zone *z, int is_default)
{
    struct subnet *s;
    char arn[160];

    if (ec2_grow(&ec2->subnets, ec2->nsubnets, &ec2->capsubnets) < 0)
        return NULL;
    s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    ec2_make_id(ec2, "subnet-", s->id);
    snprintf(arn, sizeof(arn), "arn:aws:ec2:%s:%s:subnet/%s", ec2->region, ec2->account, s->id);
    s->arn = sc_strdup(arn);
    if (!s->arn) {
        free(s);
        return NULL;
    }
    cidr_format(s->cidr, sizeof(s->cidr), base, prefix);
    s->base = base;
    s->prefix = prefix;
    s->zone = z;
    s->vpc = vpc;
    ec2_subnet_link(ec2, s);
    s->v.available_ip_address_count = (1 << (32 - prefix)) - 5;
    s->v.default_for_az = is_default;
    s->v.map_public_ip_on_launch = is_default;
    ec2->subnets[ec2->nsubnets++] = s;
    return s;
}

/* The VPC or subnet of a list (ec2's, or a load's) with this id, or NULL. */
struct vpc *ec2_vpc_in(struct vpc *const *vpcs, int n, const char *id)
{
    for (int i = 0; id && i < n; i++) {
        if (strcmp(vpcs[i]->id, id) == 0)
            return vpcs[i];
    }
    return NULL;
}

struct subnet *ec2_subnet_in(struct subnet *const *subnets, int n, const char *id)
{
    for (int i = 0; id && i < n; i++) {
        if (strcmp(subnets[i]->id, id) == 0)
            return subnets[i];
    }
    return NULL;
}

const struct vpc *ec2_vpc_find(const struct sc_ec2 *ec2, const char *id)
{
    return ec2_vpc_in(ec2->vpcs, ec2->nvpcs, id);
}

const struct subnet *ec2_subnet_find(const struct sc_ec2 *ec2, const char *id)
{
    return ec2_subnet_in(ec2->subnets, ec2->nsubnets, id);
}

static int vpc_holds(const struct sc_ec2 *ec2, const char *id)
{
    return ec2_vpc_find(ec2, id) != NULL;
}

enum sc_status ec2_vpc_unknown(const char *id, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VPC_NOT_FOUND, "The vpc ID '%s' does not exist", id);
}

static int subnet_holds(const struct sc_ec2 *ec2, const char *id)
{
    return ec2_subnet_find(ec2, id) != NULL;
}

enum sc_status ec2_subnet_unknown(const char *id, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_SUBNET_NOT_FOUND, "The subnet ID '%s' does not exist", id);
}

int sc_ec2_vpc_count(const struct sc_ec2 *ec2)
{
    return ec2->nvpcs;
}

const struct sc_ec2_vpc *sc_ec2_vpc_at(const struct sc_ec2 *ec2, int i)
{
    return i >= 0 && i < ec2->nvpcs ? &ec2->vpcs[i]->v : NULL;
}

const struct sc_ec2_vpc *sc_ec2_vpc_find(const struct sc_ec2 *ec2, const char *vpc_id)
{
    const struct vpc *v = ec2_vpc_find(ec2, vpc_id);

    return v ? &v->v : NULL;
}

const struct sc_ec2_vpc *sc_ec2_default_vpc(const struct sc_ec2 *ec2)
{
    return ec2->nvpcs ? &ec2->vpcs[0]->v : NULL;
}

int sc_ec2_subnet_count(const struct sc_ec2 *ec2)
{
    return ec2->nsubnets;
}

const struct sc_ec2_subnet *sc_ec2_subnet_at(const struct sc_ec2 *ec2, int i)
{
    return i >= 0 && i < ec2->nsubnets ? &ec2->subnets[i]->v : NULL;
}

const struct sc_ec2_subnet *sc_ec2_subnet_find(const struct sc_ec2 *ec2, const char *subnet_id)
{
    const struct subnet *s = ec2_subnet_find(ec2, subnet_id);

    return s ? &s->v : NULL;
}

struct subnet *ec2_default_subnet(const struct sc_ec2 *ec2, const char *zone_name)
{
    for (int i = 0; zone_name && i < ec2->nsubnets; i++) {
        struct subnet *s = ec2->subnets[i];

        if (s->v.default_for_az && strcmp(s->zone->name, zone_name) == 0)
            return s;
    }
    return NULL;
}

const struct sc_ec2_subnet *sc_ec2_default_subnet(const struct sc_ec2 *ec2, const char *zone_name)
{
    const struct subnet *s = ec2_default_subnet(ec2, zone_name);

    return s ? &s->v : NULL;
}

enum sc_status sc_ec2_create_vpc(struct sc_ec2 *ec2, const char *cidr_block,
                                 const struct sc_ec2_tag *tags, int ntags, int64_t now_ms,
                                 const struct sc_ec2_vpc **out, struct sc_error *err)
{
    uint32_t base;
    int prefix;
    struct vpc *v;
    enum sc_status st;

    (void)now_ms;
    if (!cidr_block || !*cidr_block)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter cidrBlock");
    if (ec2_cidr_parse(cidr_block, 16, 28, &base, &prefix) < 0)
        return sc_fail(err, SC_ERR_VPC_RANGE, "The CIDR '%s' is invalid.", cidr_block);
    st = ec2_check_tags(tags, ntags, 0, err);
    if (st != SC_OK)
        return st;
    v = ec2_vpc_new(ec2, base, prefix, 0);
    if (!v)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    if (ec2_tagset_copy(&v->tags, tags, ntags) < 0) {
        ec2_vpc_sync(v);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    ec2_vpc_sync(v);
    if (out)
        *out = &v->v;
    return SC_OK;
}

enum sc_status sc_ec2_create_subnet(struct sc_ec2 *ec2, const char *vpc_id, const char *cidr_block,
                                    const char *availability_zone, const struct sc_ec2_tag *tags,
                                    int ntags, int64_t now_ms, const struct sc_ec2_subnet **out,
                                    struct sc_error *err)
{
    const struct vpc *v;
    const struct zone *z;
    uint32_t base;
    int prefix;
    struct subnet *s;
    enum sc_status st;

    (void)now_ms;
    if (!vpc_id || !*vpc_id)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter vpcId");
    if (!cidr_block || !*cidr_block)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter cidrBlock");
    v = ec2_vpc_find(ec2, vpc_id);
    if (!v)
        return ec2_vpc_unknown(vpc_id, err);
    if (ec2_cidr_parse(cidr_block, 16, 28, &base, &prefix) < 0 ||
        !cidr_contains(v->base, v->prefix, base, prefix))
        return sc_fail(err, SC_ERR_SUBNET_RANGE, "The CIDR '%s' is invalid.", cidr_block);
    for (int i = 0; i < ec2->nsubnets; i++) {
        const struct subnet *o = ec2->subnets[i];

        if (o->vpc == v && cidr_overlap(o->base, o->prefix, base, prefix))
            return sc_fail(err, SC_ERR_SUBNET_CONFLICT,
                           "The CIDR '%s' conflicts with another subnet", cidr_block);
    }
    if (availability_zone) {
        z = ec2_zone_find(ec2, availability_zone);
        if (!z) {
            char list[512] = "";
            size_t k = 0;

            for (int i = 0; i < ec2->nzones && k < sizeof(list); i++)
                k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s", i ? ", " : "",
                                      ec2->zones[i].name);
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "Value (%s) for parameter availabilityZone is invalid. Subnets can "
                           "currently only be created in the following availability zones: %s.",
                           availability_zone, list);
        }
    } else {
        z = &ec2->zones[0];
    }
    st = ec2_check_tags(tags, ntags, 0, err);
    if (st != SC_OK)
        return st;
    s = ec2_subnet_new(ec2, v, base, prefix, z, 0);
    if (!s)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    if (ec2_tagset_copy(&s->tags, tags, ntags) < 0) {
        ec2_subnet_sync(s);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    ec2_subnet_sync(s);
    if (out)
        *out = &s->v;
    return SC_OK;
}

static int vpc_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct vpc *v = rec;

    return ec2_values_match(f, strcmp(f->name, "vpc-id") == 0 ? v->id
                               : strcmp(f->name, "is-default") == 0
                                   ? (v->v.is_default ? "true" : "false")
                               : strcmp(f->name, "state") == 0    ? v->v.state
                               : strcmp(f->name, "owner-id") == 0 ? v->v.owner_id
                                                                  : v->cidr);
}

enum sc_status sc_ec2_describe_vpcs(const struct sc_ec2 *ec2, const char *const *ids, int nids,
                                    const struct sc_ec2_filter *filters, int nfilters,
                                    const struct sc_ec2_vpc **out, int *nout, struct sc_error *err)
{
    static const char *const known[] = { "vpc-id", "cidr",     "cidr-block", "is-default",
                                         "state",  "owner-id", NULL };
    static const struct kind k = { known, 1, vpc_holds, ec2_vpc_unknown };
    enum sc_status st = ec2_describe_check(ec2, &k, ids, nids, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < ec2->nvpcs; i++) {
        const struct vpc *v = ec2->vpcs[i];

        if (ec2_listed(ids, nids, v->id) &&
            ec2_filters_pass(vpc_match, v, &v->tags, filters, nfilters))
            out[(*nout)++] = &v->v;
    }
    return st;
}

/* DescribeSubnets' filter names AWS also takes in camel case ("You can also use
 * availabilityZone as the filter name", API reference DescribeSubnets): the dashed name of
 * an alias, else name itself. */
static const char *subnet_filter_name(const char *name)
{
    static const char *const alias[][2] = { { "availabilityZone", "availability-zone" },
                                            { "availabilityZoneId", "availability-zone-id" },
                                            { "cidrBlock", "cidr-block" },
                                            { "defaultForAz", "default-for-az" } };

    for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
        if (strcmp(name, alias[i][0]) == 0)
            return alias[i][1];
    return name;
}

static int subnet_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct subnet *s = rec;
    const char *name = subnet_filter_name(f->name);

    return ec2_values_match(f, strcmp(name, "subnet-id") == 0              ? s->id
                               : strcmp(name, "vpc-id") == 0               ? s->v.vpc_id
                               : strcmp(name, "availability-zone") == 0    ? s->zone->name
                               : strcmp(name, "availability-zone-id") == 0 ? s->zone->id
                               : strcmp(name, "default-for-az") == 0
                                   ? (s->v.default_for_az ? "true" : "false")
                               : strcmp(name, "state") == 0    ? s->v.state
                               : strcmp(name, "owner-id") == 0 ? s->v.owner_id
                                                               : s->cidr);
}

enum sc_status sc_ec2_describe_subnets(const struct sc_ec2 *ec2, const char *const *ids, int nids,
                                       const struct sc_ec2_filter *filters, int nfilters,
                                       const struct sc_ec2_subnet **out, int *nout,
                                       struct sc_error *err)
{
    static const char *const known[] = { "subnet-id",          "vpc-id",
                                         "availability-zone",  "availability-zone-id",
                                         "cidr-block",         "cidr",
                                         "default-for-az",     "state",
                                         "owner-id",           "availabilityZone",
                                         "availabilityZoneId", "cidrBlock",
                                         "defaultForAz",       NULL };
    static const struct kind k = { known, 1, subnet_holds, ec2_subnet_unknown };
    enum sc_status st = ec2_describe_check(ec2, &k, ids, nids, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < ec2->nsubnets; i++) {
        const struct subnet *s = ec2->subnets[i];

        if (ec2_listed(ids, nids, s->id) &&
            ec2_filters_pass(subnet_match, s, &s->tags, filters, nfilters))
            out[(*nout)++] = &s->v;
    }
    return st;
}
