/* scaler/elb.c: see elb.h. Load balancers, listeners, attributes, zones, tags, their
 * security groups and network interfaces, and time (request checks: elb_validate.c; health
 * and registration: elb_health.c; policies: elb_policy.c; save / load: elb_save.c). */
#include "scaler/elb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/elb_internal.h"
#include "scaler/hash.h"
#include "scaler/rec.h"
#include "scaler/rng.h"

#define DEFAULT_ACCOUNT "123456789012"
#define DEFAULT_REGION  "us-east-1"
#define PAGE_MAX        400

/* --- helpers ---------------------------------------------------------------------------------- */

int elb_grow(void *arrp, int n, int *cap, size_t elem)
{
    void **arr = arrp;
    void *nv;
    int nc;

    if (n < *cap)
        return 0;
    nc = *cap ? *cap * 2 : 4;
    nv = realloc(*arr, (size_t)nc * elem);
    if (!nv)
        return -1;
    *arr = nv;
    *cap = nc;
    return 0;
}

static uint64_t next_rand(struct sc_elb *elb)
{
    if (elb->rand64)
        return elb->rand64(elb->rand_ud);
    return sc_rng_next(&elb->rng);
}

/* --- create / destroy ------------------------------------------------------------------------- */

struct sc_elb *sc_elb_create(const struct sc_elb_config *cfg)
{
    struct sc_elb *elb;
    const char *account, *region;

    if (!cfg || !cfg->ec2)
        return NULL;
    account = cfg->account_id ? cfg->account_id : DEFAULT_ACCOUNT;
    region = cfg->region ? cfg->region : DEFAULT_REGION;
    if (!*account || !*region || strlen(account) >= 32 || strlen(region) >= 32)
        return NULL;
    elb = calloc(1, sizeof(*elb));
    if (!elb)
        return NULL;
    snprintf(elb->account, sizeof(elb->account), "%s", account);
    snprintf(elb->region, sizeof(elb->region), "%s", region);
    elb->ec2 = cfg->ec2;
    elb->rand64 = cfg->rand64;
    elb->rand_ud = cfg->rand_ud;
    sc_rng_init(&elb->rng, cfg->seed);
    elb->max_lbs =
        cfg->max_load_balancers > 0 ? cfg->max_load_balancers : SC_ELB_MAX_LOAD_BALANCERS;
    elb_predefined_init(elb);
    return elb;
}

void elb_listener_free(struct sc_elb_listener *l)
{
    free((char *)l->protocol);
    free((char *)l->instance_protocol);
    free((char *)l->ssl_certificate_id);
}

void elb_lb_free(struct lb *b)
{
    if (!b)
        return;
    free(b->dns);
    free(b->scheme);
    free(b->hc_target);
    for (int i = 0; i < b->nlisteners; i++)
        elb_listener_free(&b->listeners[i]);
    free(b->listeners);
    for (int i = 0; i < b->nzones; i++) {
        free(b->zones[i]);
        free(b->subnets[i]);
    }
    free(b->zones);
    free(b->subnets);
    for (int i = 0; i < b->nsgs; i++)
        free(b->sgs[i]);
    free(b->sgs);
    for (int i = 0; i < b->nregs; i++)
        free(b->regs[i]);
    free(b->regs);
    free(b->inst_view);
    free(b->bucket);
    free(b->prefix);
    for (int i = 0; i < b->ntags; i++) {
        free((char *)b->tags[i].key);
        free((char *)b->tags[i].value);
    }
    free(b->tags);
    free(b->ssg_name);
    elb_policies_free(b);
    free(b);
}

void sc_elb_destroy(struct sc_elb *elb)
{
    if (!elb)
        return;
    for (int i = 0; i < elb->nlbs; i++)
        elb_lb_free(elb->lbs[i]);
    free(elb->lbs);
    free(elb);
}

/* --- lookup ----------------------------------------------------------------------------------- */

struct lb *elb_lb_find(const struct sc_elb *elb, const char *name)
{
    for (int i = 0; name && i < elb->nlbs; i++) {
        if (strcmp(elb->lbs[i]->name, name) == 0)
            return elb->lbs[i];
    }
    return NULL;
}

enum sc_status elb_lb_lookup(const struct sc_elb *elb, const char *name, struct lb **out,
                             struct sc_error *err)
{
    *out = elb_lb_find(elb, name);
    if (!*out)
        return sc_fail(err, SC_ERR_LOAD_BALANCER_NOT_FOUND,
                       "There is no ACTIVE Load Balancer named '%s'", name ? name : "");
    return SC_OK;
}

struct reg *elb_lb_reg_find(const struct lb *b, const char *id, int *index)
{
    for (int i = 0; id && i < b->nregs; i++) {
        if (strcmp(b->regs[i]->id, id) == 0) {
            if (index)
                *index = i;
            return b->regs[i];
        }
    }
    return NULL;
}

/* The registration of instance id with load balancer `name`, or NULL; *b is the load
 * balancer (NULL when there is none of that name). */
struct reg *elb_reg_find(const struct sc_elb *elb, const char *name, const char *id, struct lb **b)
{
    *b = elb_lb_find(elb, name);
    return *b ? elb_lb_reg_find(*b, id, NULL) : NULL;
}

int sc_elb_lb_count(const struct sc_elb *elb)
{
    return elb->nlbs;
}

const struct sc_elb_lb *sc_elb_lb_at(const struct sc_elb *elb, int i)
{
    return i >= 0 && i < elb->nlbs ? &elb->lbs[i]->v : NULL;
}

const struct sc_elb_lb *sc_elb_lb_find(const struct sc_elb *elb, const char *name)
{
    const struct lb *b = elb_lb_find(elb, name);

    return b ? &b->v : NULL;
}

/* Refreshes the view's pointers and the registered-instance list (no allocation). */
void elb_lb_sync(struct lb *b)
{
    int n = 0;

    b->v.listeners = b->listeners;
    b->v.nlisteners = b->nlisteners;
    b->v.availability_zones = (const char *const *)b->zones;
    b->v.nzones = b->nzones;
    b->v.subnets = (const char *const *)b->subnets;
    b->v.nsubnets = b->nzones;
    b->v.security_groups = (const char *const *)b->sgs;
    b->v.nsecurity_groups = b->nsgs;
    b->v.tags = b->tags;
    b->v.ntags = b->ntags;
    b->v.health_check.target = b->hc_target;
    sc_elb_hc_target_parse(b->hc_target, &b->v.hc_target);
    b->v.attributes.access_log_s3_bucket_name = b->bucket;
    b->v.attributes.access_log_s3_bucket_prefix = b->prefix;
    for (int i = 0; i < b->nregs; i++) {
        if (b->regs[i]->drain != DRAIN_DEREGISTER)
            b->inst_view[n++] = b->regs[i]->id;
    }
    b->v.instances = b->inst_view;
    b->v.ninstances = n;
}

/* --- security groups and network interfaces (docs/elb-classic.md 1-2) ------------------------- */

#define DEFAULT_ELB_DESC                                                                           \
    "ELB created security group used when no security group is specified during ELB creation - "   \
    "modifications could impact traffic to future ELBs"

/* default_elb_<uuid>: one per account, region and VPC, its UUID derived from them. */
static void default_elb_name(const struct sc_elb *elb, const char *vpc, char *out, size_t n)
{
    uint64_t h = SC_HASH_FNV1A_BASIS, a, b;
    const char *parts[3] = { elb->account, elb->region, vpc };

    for (int i = 0; i < 3; i++)
        h = sc_hash_fnv1a_field(h, parts[i]);
    a = sc_rng_splitmix64(&h);
    b = sc_rng_splitmix64(&h);
    snprintf(out, n, "default_elb_%08llx-%04llx-%04llx-%04llx-%012llx",
             (unsigned long long)(a >> 32), (unsigned long long)(a >> 16 & 0xffff),
             (unsigned long long)(a & 0xffff), (unsigned long long)(b >> 48),
             (unsigned long long)(b & 0xffffffffffffULL));
}

/* The security groups a new load balancer in VPC vpc gets (docs/elb-classic.md 1): given
 * ones checked; none: the default_elb group (default VPC; *need_elb_group set, made by the
 * caller once everything else is checked) or the VPC's default group. *ids borrows. */
static enum sc_status check_groups(const struct sc_elb *elb, const struct sc_elb_create_req *req,
                                   const char *vpc, const char **vpc_default, int *need_elb_group,
                                   struct sc_error *err)
{
    const struct sc_ec2_vpc *dv = sc_ec2_default_vpc(elb->ec2);

    *vpc_default = NULL;
    *need_elb_group = 0;
    for (int i = 0; i < req->nsecurity_groups; i++) {
        const struct sc_ec2_security_group *g =
            sc_ec2_security_group_find(elb->ec2, req->security_groups[i]);

        if (!g)
            return sc_fail(err, SC_ERR_ELB_INVALID_SECURITY_GROUP,
                           "One or more of the specified security groups do not exist.");
        if (!vpc || strcmp(g->vpc_id, vpc) != 0)
            return sc_fail(err, SC_ERR_INVALID_CONFIGURATION_REQUEST,
                           "Security group \"%s\" does not belong to VPC \"%s\"", g->group_id,
                           vpc ? vpc : "");
    }
    if (req->nsecurity_groups > 0 || !vpc)
        return SC_OK;
    if (dv && strcmp(dv->vpc_id, vpc) == 0) {
        *need_elb_group = 1;
    } else {
        const struct sc_ec2_security_group *g =
            sc_ec2_security_group_by_name(elb->ec2, vpc, "default");

        *vpc_default = g ? g->group_id : NULL;
    }
    return SC_OK;
}

/* The default_elb group of vpc, made when missing with ingress on the listeners' ports. */
static enum sc_status elb_group(struct sc_elb *elb, const char *vpc,
                                const struct norm_listener *norm, int n, int64_t now_ms,
                                const char **id, struct sc_error *err)
{
    struct sc_ec2_sg_rule_req *rules = calloc((size_t)(n > 0 ? n : 1), sizeof(*rules));
    const struct sc_ec2_security_group *g = NULL;
    char name[96];
    int nr = 0;
    enum sc_status st;

    if (!rules)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    for (int i = 0; i < n; i++) {
        int dup = 0;

        for (int j = 0; j < nr; j++)
            dup |= rules[j].from_port == norm[i].lb_port;
        if (dup)
            continue;
        rules[nr++] = (struct sc_ec2_sg_rule_req){
            "tcp", 1, norm[i].lb_port, 1, norm[i].lb_port, SC_EC2_PEER_CIDR, "0.0.0.0/0", NULL, NULL
        };
    }
    default_elb_name(elb, vpc, name, sizeof(name));
    st = sc_ec2_security_group_ensure(elb->ec2, vpc, name, DEFAULT_ELB_DESC, rules, nr, now_ms, &g,
                                      err);
    free(rules);
    *id = g ? g->group_id : NULL;
    return st;
}

int elb_source_group_set(const struct sc_elb *elb, struct lb *b)
{
    const struct sc_ec2_security_group *g =
        b->nsgs ? sc_ec2_security_group_find(elb->ec2, b->sgs[0]) : NULL;
    char *name = sc_strdup(g ? g->group_name : "default");

    if (!name)
        return -1;
    free(b->ssg_name);
    b->ssg_name = name;
    b->v.source_security_group_owner_alias = elb->account;
    b->v.source_security_group_name = b->ssg_name;
    return 0;
}

enum sc_status elb_interfaces_sync(struct sc_elb *elb, const struct lb *b, int remove,
                                   int64_t now_ms, struct sc_error *err)
{
    const char *groups[16];
    char desc[SC_ELB_NAME_LEN + 8];
    int ng = 0;

    for (int i = 0; i < b->nsgs && ng < 16; i++) {
        if (sc_ec2_security_group_find(elb->ec2, b->sgs[i]))
            groups[ng++] = b->sgs[i];
    }
    snprintf(desc, sizeof(desc), "ELB %s", b->name);
    return sc_ec2_set_managed_interfaces(elb->ec2, desc, "amazon-elb",
                                         (const char *const *)b->subnets, remove ? 0 : b->nzones,
                                         groups, ng, now_ms, err);
}

/* --- load balancers --------------------------------------------------------------------------- */

const char *elb_hosted_zone_id(const char *region)
{
    static const struct {
        const char *region, *id;
    } t[] = {
        { "us-east-1", "Z35SXDOTRQ7X7K" },      { "us-east-2", "Z3AADJGX6KTTL2" },
        { "us-west-1", "Z368ELLRRE2KJ0" },      { "us-west-2", "Z1H1FL5HABSF5" },
        { "eu-west-1", "Z32O12XQLNTSW2" },      { "eu-west-2", "ZHURV8PSTC4K8" },
        { "eu-central-1", "Z215JYRZR1TBD5" },   { "ap-southeast-1", "Z1LMS91P8CMLE5" },
        { "ap-southeast-2", "Z1GM3OXH4ZPM65" }, { "ap-northeast-1", "Z14GRHDCWA56QT" },
    };

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (strcmp(t[i].region, region) == 0)
            return t[i].id;
    }
    return "Z35SXDOTRQ7X7K";
}

/* Same listeners (as a set), zones/subnets and scheme as an existing load balancer. */
static int same_config(const struct lb *b, const struct norm_listener *norm, int n,
                       const struct placement *p, const char *scheme)
{
    if (strcmp(b->scheme, scheme) != 0 || b->nzones != p->n)
        return 0;
    for (int i = 0; i < p->n; i++) {
        if (strcmp(b->zones[i], p->zone[i]) != 0)
            return 0;
    }
    for (int i = 0; i < n; i++) {
        int have = 0;

        for (int j = 0; j < b->nlisteners; j++)
            have |= elb_listener_same(&b->listeners[j], &norm[i]);
        if (!have)
            return 0;
    }
    for (int j = 0; j < b->nlisteners; j++) {
        int have = 0;

        for (int i = 0; i < n; i++)
            have |= elb_listener_same(&b->listeners[j], &norm[i]);
        if (!have)
            return 0;
    }
    return 1;
}

int elb_set_zones(struct lb *b, const struct placement *p)
{
    char **z = calloc((size_t)(p->n ? p->n : 1), sizeof(*z));
    char **s = calloc((size_t)(p->n ? p->n : 1), sizeof(*s));

    if (!z || !s)
        goto fail;
    for (int i = 0; i < p->n; i++) {
        z[i] = sc_strdup(p->zone[i]);
        s[i] = sc_strdup(p->subnet[i]);
        if (!z[i] || !s[i])
            goto fail;
    }
    for (int i = 0; i < b->nzones; i++) {
        free(b->zones[i]);
        free(b->subnets[i]);
    }
    free(b->zones);
    free(b->subnets);
    b->zones = z;
    b->subnets = s;
    b->nzones = p->n;
    return 0;

fail:
    for (int i = 0; z && s && i < p->n; i++) {
        free(z[i]);
        free(s[i]);
    }
    free(z);
    free(s);
    return -1;
}

enum sc_status sc_elb_create_load_balancer(struct sc_elb *elb, const struct sc_elb_create_req *req,
                                           int64_t now_ms, const struct sc_elb_lb **out,
                                           struct sc_error *err)
{
    struct norm_listener *norm = NULL;
    struct placement p;
    const char *scheme = req->scheme ? req->scheme : "internet-facing";
    struct lb *b = NULL, *old;
    enum sc_status st;
    char buf[256];
    const char *group = NULL;
    int pos, need_elb_group = 0;

    if (!req->load_balancer_name || !*req->load_balancer_name)
        return elb_null_member("loadBalancerName", err);
    if (strlen(req->load_balancer_name) > 32)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "LoadBalancer name cannot be longer than 32 characters");
    if (!elb_name_valid(req->load_balancer_name))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "LoadBalancer name cannot contain characters that are not letters, or "
                       "digits or the dash, and cannot begin or end with a dash");
    if (req->nlisteners <= 0)
        return elb_null_member("listeners", err);
    if (strcmp(scheme, "internet-facing") != 0 && strcmp(scheme, "internal") != 0)
        return sc_fail(err, SC_ERR_INVALID_SCHEME, "Invalid scheme: %s", scheme);
    norm = calloc((size_t)req->nlisteners, sizeof(*norm));
    if (!norm)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    st = elb_check_listeners(req->load_balancer_name, NULL, req->listeners, req->nlisteners, norm,
                             err);
    if (st != SC_OK)
        goto out;
    st = elb_resolve_placement(elb, req, &p, err);
    if (st != SC_OK)
        goto out;
    st = elb_check_tags(req->tags, req->ntags, err);
    if (st != SC_OK)
        goto out;
    if (elb_tags_after(NULL, req->tags, req->ntags) > SC_ELB_MAX_TAGS) {
        st = elb_too_many_tags(err);
        goto out;
    }
    old = elb_lb_find(elb, req->load_balancer_name);
    if (old) {
        if (!same_config(old, norm, req->nlisteners, &p, scheme)) {
            st = sc_fail(err, SC_ERR_DUPLICATE_LOAD_BALANCER_NAME,
                         "Load Balancer named '%s' already exists and it is configured with "
                         "different parameters.",
                         req->load_balancer_name);
            goto out;
        }
        if (out)
            *out = &old->v;
        st = SC_OK;
        goto out;
    }
    if (elb->nlbs >= elb->max_lbs) {
        st = sc_fail(err, SC_ERR_TOO_MANY_LOAD_BALANCERS, "Exceeded quota of account %s",
                     elb->account);
        goto out;
    }
    st = check_groups(elb, req, p.vpc, &group, &need_elb_group, err);
    if (st != SC_OK)
        goto out;
    if (need_elb_group) {
        st = elb_group(elb, p.vpc, norm, req->nlisteners, now_ms, &group, err);
        if (st != SC_OK)
            goto out;
    }

    if (elb_grow(&elb->lbs, elb->nlbs, &elb->caplbs, sizeof(*elb->lbs)) < 0)
        goto oom;
    b = calloc(1, sizeof(*b));
    if (!b)
        goto oom;
    snprintf(b->name, sizeof(b->name), "%s", req->load_balancer_name);
    snprintf(buf, sizeof(buf), "%s%s-%llu.%s.elb.amazonaws.com",
             strcmp(scheme, "internal") == 0 ? "internal-" : "", b->name,
             (unsigned long long)(1000000000ULL + next_rand(elb) % 1000000000ULL), elb->region);
    b->dns = sc_strdup(buf);
    b->scheme = sc_strdup(scheme);
    b->hc_target = sc_strdup("TCP:80");
    if (!b->dns || !b->scheme || !b->hc_target || elb_add_listeners(b, norm, req->nlisteners) < 0 ||
        elb_set_zones(b, &p) < 0)
        goto oom;
    if (req->nsecurity_groups <= 0) {
        /* none given: the default_elb group or the VPC's default group (check_groups) */
        if (group) {
            b->sgs = calloc(1, sizeof(*b->sgs));
            if (!b->sgs)
                goto oom;
            b->sgs[0] = sc_strdup(group);
            if (!b->sgs[0])
                goto oom;
            b->nsgs = 1;
        }
    } else {
        b->sgs = calloc((size_t)req->nsecurity_groups, sizeof(*b->sgs));
        if (!b->sgs)
            goto oom;
        for (int i = 0; i < req->nsecurity_groups; i++) {
            b->sgs[i] = sc_strdup(req->security_groups[i] ? req->security_groups[i] : "");
            if (!b->sgs[i])
                goto oom;
            b->nsgs = i + 1;
        }
    }
    for (int i = 0; i < req->ntags; i++) {
        if (elb_set_tag(b, req->tags[i].key, req->tags[i].value) < 0)
            goto oom;
    }
    b->v.load_balancer_name = b->name;
    b->v.dns_name = b->dns;
    b->v.canonical_hosted_zone_name = strcmp(scheme, "internal") == 0 ? NULL : b->dns;
    b->v.canonical_hosted_zone_name_id = elb_hosted_zone_id(elb->region);
    b->v.scheme = b->scheme;
    b->v.vpc_id = p.vpc;
    b->v.created_time_ms = now_ms;
    b->v.health_check.interval_s = 30;
    b->v.health_check.timeout_s = 5;
    b->v.health_check.unhealthy_threshold = 2;
    b->v.health_check.healthy_threshold = 10;
    if (elb_source_group_set(elb, b) < 0)
        goto oom;
    for (int i = 0; i < b->nlisteners; i++) {
        if (strcmp(b->listeners[i].protocol, "HTTPS") == 0 ||
            strcmp(b->listeners[i].protocol, "SSL") == 0) {
            if (elb_listener_policy_default(b, elb, b->listeners[i].load_balancer_port) < 0)
                goto oom;
        }
    }
    b->v.attributes.connection_draining_enabled = 0;
    b->v.attributes.connection_draining_timeout_s = 300;
    b->v.attributes.idle_timeout_s = 60;
    b->v.attributes.cross_zone_enabled = 0;
    b->v.attributes.access_log_enabled = 0;
    b->v.attributes.access_log_emit_interval = 60;
    elb_lb_sync(b);
    st = elb_interfaces_sync(elb, b, 0, now_ms, err);
    if (st != SC_OK) {
        elb_lb_free(b);
        goto out;
    }
    for (pos = elb->nlbs; pos > 0 && strcmp(elb->lbs[pos - 1]->name, b->name) > 0; pos--)
        elb->lbs[pos] = elb->lbs[pos - 1];
    elb->lbs[pos] = b;
    elb->nlbs++;
    if (out)
        *out = &b->v;
    st = SC_OK;
    goto out;

oom:
    elb_lb_free(b);
    st = sc_fail(err, SC_ERR_INTERNAL, "out of memory");
out:
    free(norm);
    return st;
}

enum sc_status sc_elb_delete_load_balancer(struct sc_elb *elb, const char *name, int64_t now_ms,
                                           struct sc_error *err)
{
    for (int i = 0; name && i < elb->nlbs; i++) {
        if (strcmp(elb->lbs[i]->name, name) == 0) {
            enum sc_status st = elb_interfaces_sync(elb, elb->lbs[i], 1, now_ms, err);

            if (st != SC_OK)
                return st;
            elb_lb_free(elb->lbs[i]);
            memmove(&elb->lbs[i], &elb->lbs[i + 1],
                    (size_t)(elb->nlbs - i - 1) * sizeof(elb->lbs[0]));
            elb->nlbs--;
            break;
        }
    }
    return SC_OK;
}

enum sc_status sc_elb_describe_load_balancers(const struct sc_elb *elb, const char *const *names,
                                              int nnames, const char *marker, int page_size,
                                              const struct sc_elb_lb **out, int *nout,
                                              char *next_marker, struct sc_error *err)
{
    int n = 0, total, start = 0;

    *nout = 0;
    if (next_marker)
        next_marker[0] = '\0';
    if (page_size == 0)
        page_size = PAGE_MAX;
    if (page_size < 1 || page_size > PAGE_MAX)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%d' at 'pageSize' failed to satisfy "
                       "constraint: Member must have value %s than or equal to %d",
                       page_size, page_size < 1 ? "greater" : "less", page_size < 1 ? 1 : PAGE_MAX);
    for (int i = 0; i < nnames; i++) {
        if (!elb_lb_find(elb, names[i]))
            return sc_fail(err, SC_ERR_LOAD_BALANCER_NOT_FOUND,
                           "There is no ACTIVE Load Balancer named '%s'", names[i] ? names[i] : "");
    }
    total = nnames ? nnames : elb->nlbs;
    if (marker && *marker) {
        if (nnames) {
            /* the marker is the last name returned: resume after its position */
            for (start = 0; start < nnames && strcmp(names[start], marker) != 0; start++)
                ;
            start = start < nnames ? start + 1 : nnames;
        } else {
            while (start < elb->nlbs && strcmp(elb->lbs[start]->name, marker) <= 0)
                start++;
        }
    }
    for (int i = start; i < total && n < page_size; i++)
        out[n++] = nnames ? &elb_lb_find(elb, names[i])->v : &elb->lbs[i]->v;
    if (start + n < total && n > 0 && next_marker)
        snprintf(next_marker, SC_ELB_NAME_LEN, "%s", out[n - 1]->load_balancer_name);
    *nout = n;
    return SC_OK;
}

/* --- listeners -------------------------------------------------------------------------------- */

enum sc_status sc_elb_create_listeners(struct sc_elb *elb, const char *name,
                                       const struct sc_elb_listener *listeners, int n,
                                       int64_t now_ms, struct sc_error *err)
{
    struct lb *b;
    struct norm_listener *norm;
    enum sc_status st;
    int first;

    (void)now_ms;
    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (n <= 0)
        return elb_null_member("listeners", err);
    norm = calloc((size_t)n, sizeof(*norm));
    if (!norm)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    st = elb_check_listeners(b->name, b, listeners, n, norm, err);
    first = b->nlisteners;
    if (st == SC_OK && elb_add_listeners(b, norm, n) < 0)
        st = sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    for (int i = first; st == SC_OK && i < b->nlisteners; i++) {
        /* a new HTTPS/SSL listener gets the default security policy */
        if ((strcmp(b->listeners[i].protocol, "HTTPS") == 0 ||
             strcmp(b->listeners[i].protocol, "SSL") == 0) &&
            elb_listener_policy_default(b, elb, b->listeners[i].load_balancer_port) < 0)
            st = sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    elb_lb_sync(b);
    free(norm);
    return st;
}

enum sc_status sc_elb_delete_listeners(struct sc_elb *elb, const char *name, const int *ports,
                                       int nports, int64_t now_ms, struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;

    (void)now_ms;
    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < b->nlisteners;) {
        int del = 0;

        for (int j = 0; j < nports; j++)
            del |= b->listeners[i].load_balancer_port == ports[j];
        if (!del) {
            i++;
            continue;
        }
        elb_listener_policies_drop(b, b->listeners[i].load_balancer_port);
        elb_listener_free(&b->listeners[i]);
        memmove(&b->listeners[i], &b->listeners[i + 1],
                (size_t)(b->nlisteners - i - 1) * sizeof(b->listeners[0]));
        b->nlisteners--;
    }
    elb_lb_sync(b);
    return SC_OK;
}

/* --- attributes ------------------------------------------------------------------------------- */

enum sc_status sc_elb_modify_attributes(struct sc_elb *elb, const char *name,
                                        const struct sc_elb_attributes_req *req, int64_t now_ms,
                                        const struct sc_elb_attributes **out, struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;
    char *bucket = NULL, *prefix = NULL;

    (void)now_ms;
    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (req->has_connection_draining_timeout &&
        (req->connection_draining_timeout_s < 1 || req->connection_draining_timeout_s > 3600))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Connection draining timeout must be between 1 and 3600 seconds: %d",
                       req->connection_draining_timeout_s);
    if (req->has_idle_timeout && (req->idle_timeout_s < 1 || req->idle_timeout_s > 3600))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Idle timeout must be between 1 and 3600 seconds: %d", req->idle_timeout_s);
    if (req->has_access_log) {
        if (req->access_log_emit_interval && req->access_log_emit_interval != 5 &&
            req->access_log_emit_interval != 60)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Access log emit interval must be 5 or 60 minutes: %d",
                           req->access_log_emit_interval);
        if (req->access_log_enabled &&
            (!req->access_log_s3_bucket_name || !*req->access_log_s3_bucket_name))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "S3BucketName is required when access logs are enabled.");
        if (sc_strdup_opt(&bucket, req->access_log_s3_bucket_name) < 0 ||
            sc_strdup_opt(&prefix, req->access_log_s3_bucket_prefix) < 0) {
            free(bucket);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        b->v.attributes.access_log_enabled = req->access_log_enabled != 0;
        if (req->access_log_emit_interval)
            b->v.attributes.access_log_emit_interval = req->access_log_emit_interval;
        if (bucket) {
            free(b->bucket);
            b->bucket = bucket;
        }
        if (prefix) {
            free(b->prefix);
            b->prefix = prefix;
        }
    }
    if (req->has_connection_draining)
        b->v.attributes.connection_draining_enabled = req->connection_draining_enabled != 0;
    if (req->has_connection_draining_timeout)
        b->v.attributes.connection_draining_timeout_s = req->connection_draining_timeout_s;
    if (req->has_idle_timeout)
        b->v.attributes.idle_timeout_s = req->idle_timeout_s;
    if (req->has_cross_zone)
        b->v.attributes.cross_zone_enabled = req->cross_zone_enabled != 0;
    if (!b->v.attributes.connection_draining_enabled) {
        for (int i = 0; i < b->nregs;) {
            if (b->regs[i]->drain != DRAIN_NONE && elb_drain_end(b, i))
                continue;
            i++;
        }
    }
    elb_lb_sync(b);
    if (out)
        *out = &b->v.attributes;
    return SC_OK;
}

enum sc_status sc_elb_describe_attributes(const struct sc_elb *elb, const char *name,
                                          const struct sc_elb_attributes **out,
                                          struct sc_error *err)
{
    struct lb *b;
    enum sc_status st = elb_lb_lookup(elb, name, &b, err);

    if (st != SC_OK)
        return st;
    *out = &b->v.attributes;
    return SC_OK;
}

/* --- zones ------------------------------------------------------------------------------------ */

enum sc_status sc_elb_enable_zones(struct sc_elb *elb, const char *name, const char *const *zones,
                                   int nzones, int64_t now_ms, struct sc_error *err)
{
    struct lb *b;
    struct placement p;
    enum sc_status st;

    (void)now_ms;
    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (nzones <= 0)
        return elb_null_member("availabilityZones", err);
    memset(&p, 0, sizeof(p));
    for (int i = 0; i < b->nzones; i++) {
        elb_placement_add(&p, b->zones[i], b->subnets[i]);
        p.vpc = b->v.vpc_id;
    }
    for (int i = 0; i < nzones; i++) {
        const struct sc_ec2_subnet *s;

        if (!zones[i] || !sc_ec2_zone_find(elb->ec2, zones[i]))
            return elb_zone_unsupported(zones[i], err);
        if (elb_zone_enabled(b, zones[i]))
            continue;
        s = sc_ec2_default_subnet(elb->ec2, zones[i]);
        if (!s || p.n >= 16)
            return elb_zone_unsupported(zones[i], err);
        if (!in_list(p.zone, p.n, zones[i]))
            elb_placement_add(&p, s->availability_zone, s->subnet_id);
    }
    if (elb_set_zones(b, &p) < 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    st = elb_interfaces_sync(elb, b, 0, now_ms, err);
    if (st != SC_OK) {
        elb_lb_sync(b);
        return st;
    }
    /* re-enabled zones cancel their disable drains */
    for (int i = 0; i < b->nregs; i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_find(elb->ec2, b->regs[i]->id);

        if (b->regs[i]->drain == DRAIN_ZONE && in && elb_zone_enabled(b, in->availability_zone))
            elb_drain_end(b, i);
    }
    elb_lb_sync(b);
    return SC_OK;
}

enum sc_status sc_elb_disable_zones(struct sc_elb *elb, const char *name, const char *const *zones,
                                    int nzones, int64_t now_ms, struct sc_error *err)
{
    struct lb *b;
    struct placement p;
    enum sc_status st;
    int draining;

    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (nzones <= 0)
        return elb_null_member("availabilityZones", err);
    memset(&p, 0, sizeof(p));
    for (int i = 0; i < b->nzones; i++) {
        if (!in_list(zones, nzones, b->zones[i]))
            elb_placement_add(&p, b->zones[i], b->subnets[i]);
    }
    if (p.n == 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Cannot remove all Availability Zones from a load balancer.");
    if (p.n == b->nzones) {
        elb_lb_sync(b);
        return SC_OK;
    }
    /* Which registrations are InService in a zone going away (before the change). */
    draining = b->v.attributes.connection_draining_enabled;
    for (int i = 0; draining && i < b->nregs; i++) {
        struct reg *r = b->regs[i];
        const struct sc_ec2_instance *in = sc_ec2_instance_find(elb->ec2, r->id);

        if (in && r->drain == DRAIN_NONE && elb_reg_routable(elb, b, r) &&
            in_list(zones, nzones, in->availability_zone))
            elb_drain_start(b, r, DRAIN_ZONE, now_ms);
    }
    if (elb_set_zones(b, &p) < 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    elb_lb_sync(b);
    return elb_interfaces_sync(elb, b, 0, now_ms, err);
}

/* --- tags ------------------------------------------------------------------------------------- */

enum sc_status sc_elb_add_tags(struct sc_elb *elb, const char *const *names, int nnames,
                               const struct sc_elb_tag *tags, int ntags, int64_t now_ms,
                               struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;

    (void)now_ms;
    if (nnames <= 0 || ntags <= 0)
        return elb_null_member(nnames <= 0 ? "loadBalancerNames" : "tags", err);
    st = elb_check_tags(tags, ntags, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < nnames; i++) {
        st = elb_lb_lookup(elb, names[i], &b, err);
        if (st != SC_OK)
            return st;
        if (elb_tags_after(b, tags, ntags) > SC_ELB_MAX_TAGS)
            return elb_too_many_tags(err);
    }
    for (int i = 0; i < nnames; i++) {
        b = elb_lb_find(elb, names[i]);
        for (int j = 0; j < ntags; j++) {
            if (elb_set_tag(b, tags[j].key, tags[j].value) < 0) {
                elb_lb_sync(b);
                return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
            }
        }
        elb_lb_sync(b);
    }
    return SC_OK;
}

enum sc_status sc_elb_remove_tags(struct sc_elb *elb, const char *const *names, int nnames,
                                  const char *const *keys, int nkeys, int64_t now_ms,
                                  struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;

    (void)now_ms;
    for (int i = 0; i < nnames; i++) {
        st = elb_lb_lookup(elb, names[i], &b, err);
        if (st != SC_OK)
            return st;
    }
    for (int i = 0; i < nnames; i++) {
        b = elb_lb_find(elb, names[i]);
        for (int k = 0; k < nkeys; k++) {
            for (int j = 0; keys[k] && j < b->ntags; j++) {
                if (strcmp(b->tags[j].key, keys[k]) != 0)
                    continue;
                free((char *)b->tags[j].key);
                free((char *)b->tags[j].value);
                memmove(&b->tags[j], &b->tags[j + 1],
                        (size_t)(b->ntags - j - 1) * sizeof(b->tags[0]));
                b->ntags--;
                break;
            }
        }
        elb_lb_sync(b);
    }
    return SC_OK;
}

enum sc_status sc_elb_describe_tags(const struct sc_elb *elb, const char *const *names, int nnames,
                                    const struct sc_elb_lb **out, struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;

    if (nnames < 1 || nnames > 20)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at 'loadBalancerNames' failed to "
                       "satisfy constraint: Member must have length between 1 and 20");
    for (int i = 0; i < nnames; i++) {
        st = elb_lb_lookup(elb, names[i], &b, err);
        if (st != SC_OK)
            return st;
        out[i] = &b->v;
    }
    return SC_OK;
}

/* --- time ------------------------------------------------------------------------------------- */

void sc_elb_step(struct sc_elb *elb, int64_t now_ms)
{
    for (int l = 0; l < elb->nlbs; l++) {
        struct lb *b = elb->lbs[l];
        int changed = 0;

        for (int i = 0; i < b->nregs;) {
            struct reg *r = b->regs[i];
            const struct sc_ec2_instance *in = sc_ec2_instance_find(elb->ec2, r->id);

            if (!in) { /* EC2 no longer lists it */
                elb_reg_remove(b, i);
                changed = 1;
                continue;
            }
            if (in->state != SC_EC2_RUNNING) {
                /* health starts over when it runs again; a drain has nothing left */
                elb_reset_health(r);
                if (r->drain != DRAIN_NONE) {
                    changed = 1;
                    if (elb_drain_end(b, i))
                        continue;
                }
            }
            if (r->drain != DRAIN_NONE && now_ms >= r->drain_deadline_ms) {
                changed = 1;
                if (elb_drain_end(b, i))
                    continue;
            }
            i++;
        }
        if (changed)
            elb_lb_sync(b);
    }
}

int64_t sc_elb_next_due_ms(const struct sc_elb *elb, int64_t now_ms)
{
    int64_t due = INT64_MAX;

    (void)now_ms;
    for (int l = 0; l < elb->nlbs; l++) {
        const struct lb *b = elb->lbs[l];

        for (int i = 0; b->ndrain > 0 && i < b->nregs; i++) {
            if (b->regs[i]->drain != DRAIN_NONE && b->regs[i]->drain_deadline_ms < due)
                due = b->regs[i]->drain_deadline_ms;
        }
    }
    return due;
}
