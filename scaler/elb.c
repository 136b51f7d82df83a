/* scaler/elb.c: see elb.h. */
#include "scaler/elb.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scaler/rec.h"
#include "scaler/rng.h"
#include "scaler/save.h"

#define DEFAULT_ACCOUNT "123456789012"
#define DEFAULT_REGION  "us-east-1"
#define PAGE_MAX        400

#define DESC_REGISTERING "Instance registration is still in progress."
#define DESC_FAILED                                                                                \
    "Instance has failed at least the UnhealthyThreshold number of health checks "                 \
    "consecutively."
#define DESC_RECOVERING                                                                            \
    "Instance has not passed the configured HealthyThreshold number of health checks "             \
    "consecutively."
#define DESC_DEREGISTERING  "Instance deregistration currently in progress."
#define DESC_NOT_REGISTERED "Instance is not currently registered with the LoadBalancer."
#define DESC_ZONE_OFF                                                                              \
    "Instance is in the EC2 Availability Zone for which LoadBalancer is not configured to "        \
    "route traffic to."
#define DESC_ZONE_DISABLING "Disable Availability Zone is currently in progress."

enum drain_kind {
    DRAIN_NONE = 0,
    DRAIN_DEREGISTER, /* the registration goes when the drain ends */
    DRAIN_ZONE,       /* its zone was disabled; it stays registered */
};

struct reg {
    char id[SC_EC2_ID_LEN];
    int64_t registered_ms;
    int in_service;      /* by health checks */
    int ever_in_service; /* passed its first check since (re)registration */
    int failed_out;      /* out after UnhealthyThreshold failures */
    int consec_ok, consec_fail;
    enum drain_kind drain;
    int64_t drain_deadline_ms;
};

struct lb {
    struct sc_elb_lb v;
    char name[SC_ELB_NAME_LEN];
    char *dns;
    char *scheme;
    char *hc_target;                   /* owned copy of the Target string */
    struct sc_elb_listener *listeners; /* strings owned */
    int nlisteners, caplisteners;
    char **zones;   /* sorted */
    char **subnets; /* parallel to zones */
    int nzones;
    char **sgs;
    int nsgs;
    struct reg **regs; /* registered (drain none/zone) and draining, registration order */
    int nregs, capregs;
    const char **inst_view; /* capacity capregs */
    char *bucket, *prefix;
    struct sc_elb_tag *tags; /* strings owned */
    int ntags;
    int ndrain; /* registrations with drain != DRAIN_NONE */
};

struct sc_elb {
    char account[32];
    char region[32];
    const struct sc_ec2 *ec2;
    uint64_t (*rand64)(void *ud);
    void *rand_ud;
    struct sc_rng rng;
    int max_lbs;
    struct lb **lbs; /* sorted by name */
    int nlbs, caplbs;
};

/* --- helpers ---------------------------------------------------------------------------------- */

static int grow(void *arrp, int n, int *cap, size_t elem)
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

static int streq_opt(const char *a, const char *b)
{
    if (!a || !b)
        return !a && !b;
    return strcmp(a, b) == 0;
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
    return elb;
}

static void listener_free(struct sc_elb_listener *l)
{
    free((char *)l->protocol);
    free((char *)l->instance_protocol);
    free((char *)l->ssl_certificate_id);
}

static void lb_free(struct lb *b)
{
    if (!b)
        return;
    free(b->dns);
    free(b->scheme);
    free(b->hc_target);
    for (int i = 0; i < b->nlisteners; i++)
        listener_free(&b->listeners[i]);
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
    free(b);
}

void sc_elb_destroy(struct sc_elb *elb)
{
    if (!elb)
        return;
    for (int i = 0; i < elb->nlbs; i++)
        lb_free(elb->lbs[i]);
    free(elb->lbs);
    free(elb);
}

/* --- lookup ----------------------------------------------------------------------------------- */

static struct lb *lb_get(const struct sc_elb *elb, const char *name)
{
    for (int i = 0; name && i < elb->nlbs; i++) {
        if (strcmp(elb->lbs[i]->name, name) == 0)
            return elb->lbs[i];
    }
    return NULL;
}

static enum sc_status lb_lookup(const struct sc_elb *elb, const char *name, struct lb **out,
                                struct sc_error *err)
{
    *out = lb_get(elb, name);
    if (!*out)
        return sc_fail(err, SC_ERR_LOAD_BALANCER_NOT_FOUND,
                       "There is no ACTIVE Load Balancer named '%s'", name ? name : "");
    return SC_OK;
}

static struct reg *reg_get(const struct lb *b, const char *id, int *index)
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
static struct reg *reg_find(const struct sc_elb *elb, const char *name, const char *id,
                            struct lb **b)
{
    *b = lb_get(elb, name);
    return *b ? reg_get(*b, id, NULL) : NULL;
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
    const struct lb *b = lb_get(elb, name);

    return b ? &b->v : NULL;
}

/* Refreshes the view's pointers and the registered-instance list (no allocation). */
static void lb_sync(struct lb *b)
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

/* --- validation ------------------------------------------------------------------------------- */

static int name_valid(const char *s)
{
    size_t n = s ? strlen(s) : 0;

    if (n < 1 || n > 32 || s[0] == '-' || s[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-'))
            return 0;
    }
    return 1;
}

/* Protocol family: 1 HTTP/HTTPS, 2 TCP/SSL, 0 unknown. Secure sets *tls. */
static int proto_family(const char *p, int *tls)
{
    *tls = 0;
    if (!p)
        return 0;
    if (strcasecmp(p, "HTTP") == 0)
        return 1;
    if (strcasecmp(p, "HTTPS") == 0) {
        *tls = 1;
        return 1;
    }
    if (strcasecmp(p, "TCP") == 0)
        return 2;
    if (strcasecmp(p, "SSL") == 0) {
        *tls = 1;
        return 2;
    }
    return 0;
}

static const char *proto_upper(const char *p)
{
    static const char *const all[] = { "HTTP", "HTTPS", "TCP", "SSL" };

    for (int i = 0; i < 4; i++) {
        if (p && strcasecmp(p, all[i]) == 0)
            return all[i];
    }
    return NULL;
}

/* Normalized copy of a listener (borrowed static strings except the certificate). */
struct norm_listener {
    const char *protocol;
    int lb_port;
    const char *instance_protocol;
    int instance_port;
    const char *cert;
};

static enum sc_status check_listener(const struct sc_elb_listener *l, struct norm_listener *n,
                                     struct sc_error *err)
{
    int tls, itls, fam, ifam;

    fam = proto_family(l->protocol, &tls);
    if (!fam)
        return sc_fail(err, SC_ERR_VALIDATION, "Invalid LoadBalancer protocol: %s",
                       l->protocol ? l->protocol : "null");
    if (l->load_balancer_port < 1 || l->load_balancer_port > 65535)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "LoadBalancerPort must be between 1 and 65535, inclusive: %d",
                       l->load_balancer_port);
    if (l->instance_port < 1 || l->instance_port > 65535)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "InstancePort must be between 1 and 65535, inclusive: %d", l->instance_port);
    if (l->instance_protocol) {
        ifam = proto_family(l->instance_protocol, &itls);
        if (!ifam)
            return sc_fail(err, SC_ERR_VALIDATION, "Invalid Instance protocol: %s",
                           l->instance_protocol);
        if (ifam != fam)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Listener protocol '%s' and instance protocol '%s' are not "
                           "compatible: HTTP/HTTPS front ends need HTTP/HTTPS back ends, "
                           "TCP/SSL front ends TCP/SSL back ends.",
                           proto_upper(l->protocol), proto_upper(l->instance_protocol));
        n->instance_protocol = proto_upper(l->instance_protocol);
    } else {
        n->instance_protocol = fam == 1 ? "HTTP" : "TCP";
    }
    /* missing: AWS's ValidationError (seen: `ValidationError: Secure Listeners need to specify
     * a SSLCertificateId`, status 400); an ARN that names no certificate would be
     * CertificateNotFound, but there is no IAM/ACM here: any id is accepted */
    if (tls && !l->ssl_certificate_id)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Secure Listeners need to specify a SSLCertificateId");
    if (tls && !*l->ssl_certificate_id)
        return sc_fail(err, SC_ERR_CERTIFICATE_NOT_FOUND,
                       "The specified ARN does not refer to a valid SSL certificate in AWS "
                       "Identity and Access Management (IAM) or AWS Certificate Manager (ACM). "
                       "Note that if you recently uploaded the certificate, it may take a few "
                       "minutes for the certificate to become available.");
    n->protocol = proto_upper(l->protocol);
    n->lb_port = l->load_balancer_port;
    n->instance_port = l->instance_port;
    n->cert = tls ? l->ssl_certificate_id : NULL;
    return SC_OK;
}

static int listener_same(const struct sc_elb_listener *a, const struct norm_listener *b)
{
    return strcmp(a->protocol, b->protocol) == 0 && a->load_balancer_port == b->lb_port &&
           strcmp(a->instance_protocol, b->instance_protocol) == 0 &&
           a->instance_port == b->instance_port && streq_opt(a->ssl_certificate_id, b->cert);
}

static enum sc_status dup_listener(const char *lb, int port, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_DUPLICATE_LISTENER,
                   "A listener already exists for %s with LoadBalancerPort %d, but with a "
                   "different InstancePort, Protocol, or SSLCertificateId",
                   lb, port);
}

/* Validates listeners (and against `b`'s when non-NULL); norm gets n entries. */
static enum sc_status check_listeners(const char *lbname, const struct lb *b,
                                      const struct sc_elb_listener *ls, int n,
                                      struct norm_listener *norm, struct sc_error *err)
{
    for (int i = 0; i < n; i++) {
        enum sc_status st = check_listener(&ls[i], &norm[i], err);

        if (st != SC_OK)
            return st;
        for (int j = 0; j < i; j++) {
            if (norm[j].lb_port != norm[i].lb_port)
                continue;
            if (!(strcmp(norm[j].protocol, norm[i].protocol) == 0 &&
                  strcmp(norm[j].instance_protocol, norm[i].instance_protocol) == 0 &&
                  norm[j].instance_port == norm[i].instance_port &&
                  streq_opt(norm[j].cert, norm[i].cert)))
                return dup_listener(lbname, norm[i].lb_port, err);
        }
        for (int j = 0; b && j < b->nlisteners; j++) {
            if (b->listeners[j].load_balancer_port == norm[i].lb_port &&
                !listener_same(&b->listeners[j], &norm[i]))
                return dup_listener(lbname, norm[i].lb_port, err);
        }
    }
    return SC_OK;
}

/* Appends the listeners not already present; 0 or -1 on OOM (partial appends undone). */
static int add_listeners(struct lb *b, const struct norm_listener *norm, int n)
{
    int start = b->nlisteners;

    for (int i = 0; i < n; i++) {
        struct sc_elb_listener *l;
        int have = 0;

        for (int j = 0; j < b->nlisteners; j++)
            have |= listener_same(&b->listeners[j], &norm[i]);
        if (have)
            continue;
        if (grow(&b->listeners, b->nlisteners, &b->caplisteners, sizeof(*b->listeners)) < 0)
            goto fail;
        l = &b->listeners[b->nlisteners];
        memset(l, 0, sizeof(*l));
        l->protocol = sdup(norm[i].protocol);
        l->instance_protocol = sdup(norm[i].instance_protocol);
        l->ssl_certificate_id = norm[i].cert ? sdup(norm[i].cert) : NULL;
        l->load_balancer_port = norm[i].lb_port;
        l->instance_port = norm[i].instance_port;
        if (!l->protocol || !l->instance_protocol || (norm[i].cert && !l->ssl_certificate_id)) {
            listener_free(l);
            goto fail;
        }
        b->nlisteners++;
    }
    return 0;

fail:
    while (b->nlisteners > start)
        listener_free(&b->listeners[--b->nlisteners]);
    return -1;
}

/* AWS's answer to a required member left out. */
static enum sc_status null_member(const char *member, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VALIDATION,
                   "1 validation error detected: Value null at '%s' failed to satisfy "
                   "constraint: Member must not be null",
                   member);
}

static enum sc_status too_many_tags(struct sc_error *err)
{
    return sc_fail(err, SC_ERR_TOO_MANY_TAGS,
                   "Tag count exceeds limit of %d tags per load balancer.", SC_ELB_MAX_TAGS);
}

static enum sc_status check_tags(const struct sc_elb_tag *tags, int n, struct sc_error *err)
{
    for (int i = 0; i < n; i++) {
        const char *k = tags[i].key;

        if (!k || !*k || strlen(k) > 128)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Tag key must be between 1 and 128 characters long.");
        if (tags[i].value && strlen(tags[i].value) > 256)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Tag value must be at most 256 characters long.");
        if (strncmp(k, "aws:", 4) == 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Tag keys starting with 'aws:' are reserved for internal use.");
        for (int j = 0; j < i; j++) {
            if (strcmp(tags[j].key, k) == 0)
                return sc_fail(err, SC_ERR_DUPLICATE_TAG_KEYS, "Duplicate tag key '%s' specified.",
                               k);
        }
    }
    return SC_OK;
}

/* Count of distinct keys after adding `tags` to b's. */
static int tags_after(const struct lb *b, const struct sc_elb_tag *tags, int n)
{
    int count = b ? b->ntags : 0;

    for (int i = 0; i < n; i++) {
        int have = 0;

        for (int j = 0; b && j < b->ntags; j++)
            have |= strcmp(b->tags[j].key, tags[i].key) == 0;
        count += !have;
    }
    return count;
}

static int set_tag(struct lb *b, const char *key, const char *value)
{
    char *v = sdup(value ? value : "");
    struct sc_elb_tag *nt;

    if (!v)
        return -1;
    for (int j = 0; j < b->ntags; j++) {
        if (strcmp(b->tags[j].key, key) == 0) {
            free((char *)b->tags[j].value);
            b->tags[j].value = v;
            return 0;
        }
    }
    nt = realloc(b->tags, (size_t)(b->ntags + 1) * sizeof(*nt));
    if (!nt)
        goto fail;
    b->tags = nt;
    b->tags[b->ntags].key = sdup(key);
    if (!b->tags[b->ntags].key)
        goto fail;
    b->tags[b->ntags].value = v;
    b->ntags++;
    return 0;

fail:
    free(v);
    return -1;
}

/* Resolves the request's zones or subnets to sorted (zone, subnet) pairs. */
struct placement {
    const char *zone[16];
    const char *subnet[16];
    const char *vpc;
    int n;
};

static void placement_add(struct placement *p, const char *zone, const char *subnet)
{
    int i = p->n;

    while (i > 0 && strcmp(p->zone[i - 1], zone) > 0) {
        p->zone[i] = p->zone[i - 1];
        p->subnet[i] = p->subnet[i - 1];
        i--;
    }
    p->zone[i] = zone;
    p->subnet[i] = subnet;
    p->n++;
}

static enum sc_status zone_unsupported(const char *zone, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_INVALID_CONFIGURATION_REQUEST,
                   "Classic Load Balancers do not support Availability Zone '%s'.",
                   zone ? zone : "");
}

static enum sc_status resolve_placement(const struct sc_elb *elb,
                                        const struct sc_elb_create_req *req, struct placement *p,
                                        struct sc_error *err)
{
    memset(p, 0, sizeof(*p));
    if (req->nzones > 0 && req->nsubnets > 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Only one of SubnetIds or AvailabilityZones may be specified");
    if (req->nzones <= 0 && req->nsubnets <= 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Either AvailabilityZones or SubnetIds must be specified");
    for (int i = 0; i < req->nzones; i++) {
        const char *z = req->availability_zones[i];
        const struct sc_ec2_subnet *s;

        if (!z || !sc_ec2_zone_find(elb->ec2, z))
            return zone_unsupported(z, err);
        if (in_list(p->zone, p->n, z))
            continue;
        s = sc_ec2_default_subnet(elb->ec2, z);
        if (!s || p->n >= 16)
            return zone_unsupported(z, err);
        p->vpc = s->vpc_id;
        placement_add(p, s->availability_zone, s->subnet_id);
    }
    for (int i = 0; i < req->nsubnets; i++) {
        const struct sc_ec2_subnet *s = sc_ec2_subnet_find(elb->ec2, req->subnets[i]);
        int dup = 0;

        if (!s)
            return sc_fail(err, SC_ERR_ELB_SUBNET_NOT_FOUND,
                           "The requested subnet '%s' does not exist.",
                           req->subnets[i] ? req->subnets[i] : "");
        if (p->vpc && strcmp(p->vpc, s->vpc_id) != 0)
            return sc_fail(err, SC_ERR_ELB_INVALID_SUBNET,
                           "All subnets must belong to the same VPC.");
        for (int j = 0; j < p->n; j++) {
            if (strcmp(p->zone[j], s->availability_zone) != 0)
                continue;
            if (strcmp(p->subnet[j], s->subnet_id) != 0)
                return sc_fail(err, SC_ERR_INVALID_CONFIGURATION_REQUEST,
                               "A load balancer cannot be attached to multiple subnets in the "
                               "same Availability Zone.");
            dup = 1;
        }
        if (dup)
            continue;
        if (p->n >= 16)
            return zone_unsupported(s->availability_zone, err);
        p->vpc = s->vpc_id;
        placement_add(p, s->availability_zone, s->subnet_id);
    }
    return SC_OK;
}

/* --- load balancers --------------------------------------------------------------------------- */

static const char *hosted_zone_id(const char *region)
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
            have |= listener_same(&b->listeners[j], &norm[i]);
        if (!have)
            return 0;
    }
    for (int j = 0; j < b->nlisteners; j++) {
        int have = 0;

        for (int i = 0; i < n; i++)
            have |= listener_same(&b->listeners[j], &norm[i]);
        if (!have)
            return 0;
    }
    return 1;
}

static int set_zones(struct lb *b, const struct placement *p)
{
    char **z = calloc((size_t)(p->n ? p->n : 1), sizeof(*z));
    char **s = calloc((size_t)(p->n ? p->n : 1), sizeof(*s));

    if (!z || !s)
        goto fail;
    for (int i = 0; i < p->n; i++) {
        z[i] = sdup(p->zone[i]);
        s[i] = sdup(p->subnet[i]);
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
    int pos;

    if (!req->load_balancer_name || !*req->load_balancer_name)
        return null_member("loadBalancerName", err);
    if (strlen(req->load_balancer_name) > 32)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "LoadBalancer name cannot be longer than 32 characters");
    if (!name_valid(req->load_balancer_name))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "LoadBalancer name cannot contain characters that are not letters, or "
                       "digits or the dash, and cannot begin or end with a dash");
    if (req->nlisteners <= 0)
        return null_member("listeners", err);
    if (strcmp(scheme, "internet-facing") != 0 && strcmp(scheme, "internal") != 0)
        return sc_fail(err, SC_ERR_INVALID_SCHEME, "Invalid scheme: %s", scheme);
    norm = calloc((size_t)req->nlisteners, sizeof(*norm));
    if (!norm)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    st = check_listeners(req->load_balancer_name, NULL, req->listeners, req->nlisteners, norm, err);
    if (st != SC_OK)
        goto out;
    st = resolve_placement(elb, req, &p, err);
    if (st != SC_OK)
        goto out;
    st = check_tags(req->tags, req->ntags, err);
    if (st != SC_OK)
        goto out;
    if (tags_after(NULL, req->tags, req->ntags) > SC_ELB_MAX_TAGS) {
        st = too_many_tags(err);
        goto out;
    }
    old = lb_get(elb, req->load_balancer_name);
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

    if (grow(&elb->lbs, elb->nlbs, &elb->caplbs, sizeof(*elb->lbs)) < 0)
        goto oom;
    b = calloc(1, sizeof(*b));
    if (!b)
        goto oom;
    snprintf(b->name, sizeof(b->name), "%s", req->load_balancer_name);
    snprintf(buf, sizeof(buf), "%s%s-%llu.%s.elb.amazonaws.com",
             strcmp(scheme, "internal") == 0 ? "internal-" : "", b->name,
             (unsigned long long)(1000000000ULL + next_rand(elb) % 1000000000ULL), elb->region);
    b->dns = sdup(buf);
    b->scheme = sdup(scheme);
    b->hc_target = sdup("TCP:80");
    if (!b->dns || !b->scheme || !b->hc_target || add_listeners(b, norm, req->nlisteners) < 0 ||
        set_zones(b, &p) < 0)
        goto oom;
    if (req->nsecurity_groups <= 0) {
        /* none given: the VPC's default security group, as AWS does */
        const struct sc_ec2_security_group *g = NULL;

        for (int i = 0; i < sc_ec2_security_group_count(elb->ec2); i++) {
            const struct sc_ec2_security_group *c = sc_ec2_security_group_at(elb->ec2, i);

            if (p.vpc && strcmp(c->vpc_id, p.vpc) == 0 && strcmp(c->group_name, "default") == 0)
                g = c;
        }
        if (g) {
            b->sgs = calloc(1, sizeof(*b->sgs));
            if (!b->sgs || !(b->sgs[0] = sdup(g->group_id)))
                goto oom;
            b->nsgs = 1;
        }
    } else {
        b->sgs = calloc((size_t)req->nsecurity_groups, sizeof(*b->sgs));
        if (!b->sgs)
            goto oom;
        for (int i = 0; i < req->nsecurity_groups; i++) {
            b->sgs[i] = sdup(req->security_groups[i] ? req->security_groups[i] : "");
            if (!b->sgs[i])
                goto oom;
            b->nsgs = i + 1;
        }
    }
    for (int i = 0; i < req->ntags; i++) {
        if (set_tag(b, req->tags[i].key, req->tags[i].value) < 0)
            goto oom;
    }
    b->v.load_balancer_name = b->name;
    b->v.dns_name = b->dns;
    b->v.canonical_hosted_zone_name = strcmp(scheme, "internal") == 0 ? NULL : b->dns;
    b->v.canonical_hosted_zone_name_id = hosted_zone_id(elb->region);
    b->v.scheme = b->scheme;
    b->v.vpc_id = p.vpc;
    b->v.created_time_ms = now_ms;
    b->v.health_check.interval_s = 30;
    b->v.health_check.timeout_s = 5;
    b->v.health_check.unhealthy_threshold = 2;
    b->v.health_check.healthy_threshold = 10;
    b->v.source_security_group_owner_alias = "amazon-elb";
    b->v.source_security_group_name = "amazon-elb-sg";
    b->v.attributes.connection_draining_enabled = 0;
    b->v.attributes.connection_draining_timeout_s = 300;
    b->v.attributes.idle_timeout_s = 60;
    b->v.attributes.cross_zone_enabled = 0;
    b->v.attributes.access_log_enabled = 0;
    b->v.attributes.access_log_emit_interval = 60;
    lb_sync(b);
    for (pos = elb->nlbs; pos > 0 && strcmp(elb->lbs[pos - 1]->name, b->name) > 0; pos--)
        elb->lbs[pos] = elb->lbs[pos - 1];
    elb->lbs[pos] = b;
    elb->nlbs++;
    if (out)
        *out = &b->v;
    st = SC_OK;
    goto out;

oom:
    lb_free(b);
    st = sc_fail(err, SC_ERR_INTERNAL, "out of memory");
out:
    free(norm);
    return st;
}

enum sc_status sc_elb_delete_load_balancer(struct sc_elb *elb, const char *name, int64_t now_ms,
                                           struct sc_error *err)
{
    (void)now_ms;
    (void)err;
    for (int i = 0; name && i < elb->nlbs; i++) {
        if (strcmp(elb->lbs[i]->name, name) == 0) {
            lb_free(elb->lbs[i]);
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
        if (!lb_get(elb, names[i]))
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
        out[n++] = nnames ? &lb_get(elb, names[i])->v : &elb->lbs[i]->v;
    if (start + n < total && n > 0 && next_marker)
        snprintf(next_marker, SC_ELB_NAME_LEN, "%s", out[n - 1]->load_balancer_name);
    *nout = n;
    return SC_OK;
}

/* --- listeners ---------------------------------------------------------------------------------
 */

enum sc_status sc_elb_create_listeners(struct sc_elb *elb, const char *name,
                                       const struct sc_elb_listener *listeners, int n,
                                       int64_t now_ms, struct sc_error *err)
{
    struct lb *b;
    struct norm_listener *norm;
    enum sc_status st;

    (void)now_ms;
    st = lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (n <= 0)
        return null_member("listeners", err);
    norm = calloc((size_t)n, sizeof(*norm));
    if (!norm)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    st = check_listeners(b->name, b, listeners, n, norm, err);
    if (st == SC_OK && add_listeners(b, norm, n) < 0)
        st = sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    lb_sync(b);
    free(norm);
    return st;
}

enum sc_status sc_elb_delete_listeners(struct sc_elb *elb, const char *name, const int *ports,
                                       int nports, int64_t now_ms, struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;

    (void)now_ms;
    st = lb_lookup(elb, name, &b, err);
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
        listener_free(&b->listeners[i]);
        memmove(&b->listeners[i], &b->listeners[i + 1],
                (size_t)(b->nlisteners - i - 1) * sizeof(b->listeners[0]));
        b->nlisteners--;
    }
    lb_sync(b);
    return SC_OK;
}

/* --- health check ------------------------------------------------------------------------------
 */

int sc_elb_hc_target_parse(const char *target, struct sc_elb_hc_target *out)
{
    const char *colon, *p;
    long port = 0;
    int digits = 0;
    struct sc_elb_hc_target t = { 0 };

    if (!target || strlen(target) > 1024)
        return -1;
    colon = strchr(target, ':');
    if (!colon)
        return -1;
    if ((size_t)(colon - target) == 3 && strncmp(target, "TCP", 3) == 0)
        t.protocol = SC_ELB_HC_TCP;
    else if ((size_t)(colon - target) == 3 && strncmp(target, "SSL", 3) == 0)
        t.protocol = SC_ELB_HC_SSL;
    else if ((size_t)(colon - target) == 4 && strncmp(target, "HTTP", 4) == 0)
        t.protocol = SC_ELB_HC_HTTP;
    else if ((size_t)(colon - target) == 5 && strncmp(target, "HTTPS", 5) == 0)
        t.protocol = SC_ELB_HC_HTTPS;
    else
        return -1;
    for (p = colon + 1; *p >= '0' && *p <= '9'; p++) {
        port = port * 10 + (*p - '0');
        if (++digits > 5)
            return -1;
    }
    if (!digits || port < 1 || port > 65535)
        return -1;
    t.port = (int)port;
    if (t.protocol == SC_ELB_HC_TCP || t.protocol == SC_ELB_HC_SSL) {
        if (*p)
            return -1;
    } else {
        if (*p != '/')
            return -1;
        t.path = p;
    }
    if (out)
        *out = t;
    return 0;
}

static enum sc_status range_error(const char *field, int v, int lo, int hi, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VALIDATION,
                   "1 validation error detected: Value '%d' at 'healthCheck.%s' failed to satisfy "
                   "constraint: Member must have value %s than or equal to %d",
                   v, field, v < lo ? "greater" : "less", v < lo ? lo : hi);
}

enum sc_status sc_elb_configure_health_check(struct sc_elb *elb, const char *name,
                                             const struct sc_elb_health_check *hc, int64_t now_ms,
                                             const struct sc_elb_health_check **out,
                                             struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;
    char *target;

    (void)now_ms;
    st = lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (!hc->target || !*hc->target)
        return null_member("healthCheck.target", err);
    if (strlen(hc->target) > 1024)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at 'healthCheck.target' failed to "
                       "satisfy constraint: Member must have length less than or equal to 1024");
    if (sc_elb_hc_target_parse(hc->target, NULL) < 0) {
        if ((strncmp(hc->target, "HTTP:", 5) == 0 || strncmp(hc->target, "HTTPS:", 6) == 0) &&
            !strchr(strchr(hc->target, ':'), '/'))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Ping path is required for HTTP and HTTPS health checks: %s",
                           hc->target);
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Invalid health check target: %s. The target must be TCP:port, SSL:port, "
                       "HTTP:port/path or HTTPS:port/path with a port from 1 to 65535.",
                       hc->target);
    }
    if (hc->interval_s < 5 || hc->interval_s > 300)
        return range_error("interval", hc->interval_s, 5, 300, err);
    if (hc->timeout_s < 2 || hc->timeout_s > 60)
        return range_error("timeout", hc->timeout_s, 2, 60, err);
    if (hc->unhealthy_threshold < 2 || hc->unhealthy_threshold > 10)
        return range_error("unhealthyThreshold", hc->unhealthy_threshold, 2, 10, err);
    if (hc->healthy_threshold < 2 || hc->healthy_threshold > 10)
        return range_error("healthyThreshold", hc->healthy_threshold, 2, 10, err);
    if (hc->timeout_s >= hc->interval_s)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Health check interval must be greater than the timeout.");
    target = sdup(hc->target);
    if (!target)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    free(b->hc_target);
    b->hc_target = target;
    b->v.health_check.interval_s = hc->interval_s;
    b->v.health_check.timeout_s = hc->timeout_s;
    b->v.health_check.unhealthy_threshold = hc->unhealthy_threshold;
    b->v.health_check.healthy_threshold = hc->healthy_threshold;
    lb_sync(b);
    if (out)
        *out = &b->v.health_check;
    return SC_OK;
}

/* --- draining helpers ----------------------------------------------------------------------------
 */

static void reg_remove(struct lb *b, int i)
{
    if (b->regs[i]->drain != DRAIN_NONE)
        b->ndrain--;
    free(b->regs[i]);
    memmove(&b->regs[i], &b->regs[i + 1], (size_t)(b->nregs - i - 1) * sizeof(b->regs[0]));
    b->nregs--;
}

/* Registration r (of an InService instance) starts draining for the LB's draining timeout. */
static void drain_start(struct lb *b, struct reg *r, enum drain_kind kind, int64_t now_ms)
{
    r->drain = kind;
    b->ndrain++;
    r->drain_deadline_ms = now_ms + (int64_t)b->v.attributes.connection_draining_timeout_s * 1000;
}

/* Registration r stays, no longer draining. */
static void drain_stop(struct lb *b, struct reg *r)
{
    if (r->drain != DRAIN_NONE)
        b->ndrain--;
    r->drain = DRAIN_NONE;
    r->drain_deadline_ms = 0;
}

/* Ends the drain of registration i; returns 1 when the registration was removed. */
static int drain_end(struct lb *b, int i)
{
    if (b->regs[i]->drain == DRAIN_DEREGISTER) {
        reg_remove(b, i);
        return 1;
    }
    drain_stop(b, b->regs[i]);
    return 0;
}

static void reset_health(struct reg *r)
{
    r->in_service = 0;
    r->ever_in_service = 0;
    r->failed_out = 0;
    r->consec_ok = 0;
    r->consec_fail = 0;
}

static int zone_enabled(const struct lb *b, const char *zone)
{
    for (int i = 0; zone && i < b->nzones; i++) {
        if (strcmp(b->zones[i], zone) == 0)
            return 1;
    }
    return 0;
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
    st = lb_lookup(elb, name, &b, err);
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
        if ((req->access_log_s3_bucket_name && !(bucket = sdup(req->access_log_s3_bucket_name))) ||
            (req->access_log_s3_bucket_prefix &&
             !(prefix = sdup(req->access_log_s3_bucket_prefix)))) {
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
            if (b->regs[i]->drain != DRAIN_NONE && drain_end(b, i))
                continue;
            i++;
        }
    }
    lb_sync(b);
    if (out)
        *out = &b->v.attributes;
    return SC_OK;
}

enum sc_status sc_elb_describe_attributes(const struct sc_elb *elb, const char *name,
                                          const struct sc_elb_attributes **out,
                                          struct sc_error *err)
{
    struct lb *b;
    enum sc_status st = lb_lookup(elb, name, &b, err);

    if (st != SC_OK)
        return st;
    *out = &b->v.attributes;
    return SC_OK;
}

/* --- effective health ------------------------------------------------------------------------- */

struct row {
    enum sc_elb_state state;
    const char *reason;
    const char *desc;
};

static const char *ec2_state_desc(enum sc_ec2_state s)
{
    switch (s) {
    case SC_EC2_PENDING:
        return "Instance is in pending state.";
    case SC_EC2_SHUTTING_DOWN:
        return "Instance is in shutting-down state.";
    case SC_EC2_STOPPING:
        return "Instance is in stopping state.";
    case SC_EC2_STOPPED:
        return "Instance is in stopped state.";
    case SC_EC2_RUNNING:
        break;
    case SC_EC2_TERMINATED:
        return "Instance is in terminated state.";
    }
    return "Instance is in terminated state.";
}

/* DescribeInstanceHealth's row for registration r (NULL: not registered). */
static struct row health_row(const struct sc_elb *elb, const struct lb *b, const struct reg *r,
                             const char *id)
{
    const struct sc_ec2_instance *in = sc_ec2_instance_find(elb->ec2, id);

    if (!r)
        return (struct row){ SC_ELB_OUT_OF_SERVICE, "N/A", DESC_NOT_REGISTERED };
    if (r->drain == DRAIN_DEREGISTER)
        return (struct row){ SC_ELB_IN_SERVICE, "N/A", DESC_DEREGISTERING };
    if (r->drain == DRAIN_ZONE)
        return (struct row){ SC_ELB_OUT_OF_SERVICE, "ELB", DESC_ZONE_DISABLING };
    if (!in || in->state != SC_EC2_RUNNING)
        return (struct row){ SC_ELB_OUT_OF_SERVICE, "Instance",
                             ec2_state_desc(in ? in->state : SC_EC2_TERMINATED) };
    if (!zone_enabled(b, in->availability_zone))
        return (struct row){ SC_ELB_OUT_OF_SERVICE, "ELB", DESC_ZONE_OFF };
    if (r->in_service)
        return (struct row){ SC_ELB_IN_SERVICE, "N/A", "N/A" };
    if (!r->ever_in_service && !r->failed_out)
        return (struct row){ SC_ELB_OUT_OF_SERVICE, "ELB", DESC_REGISTERING };
    if (r->consec_ok > 0)
        return (struct row){ SC_ELB_OUT_OF_SERVICE, "Instance", DESC_RECOVERING };
    return (struct row){ SC_ELB_OUT_OF_SERVICE, "Instance", DESC_FAILED };
}

static int reg_routable(const struct sc_elb *elb, const struct lb *b, const struct reg *r)
{
    return r->drain == DRAIN_NONE && health_row(elb, b, r, r->id).state == SC_ELB_IN_SERVICE;
}

const char *sc_elb_state_name(enum sc_elb_state s)
{
    switch (s) {
    case SC_ELB_IN_SERVICE:
        return "InService";
    case SC_ELB_OUT_OF_SERVICE:
        return "OutOfService";
    case SC_ELB_UNKNOWN:
        return "Unknown";
    }
    return "Unknown";
}

/* --- zones ------------------------------------------------------------------------------------ */

enum sc_status sc_elb_enable_zones(struct sc_elb *elb, const char *name, const char *const *zones,
                                   int nzones, int64_t now_ms, struct sc_error *err)
{
    struct lb *b;
    struct placement p;
    enum sc_status st;

    (void)now_ms;
    st = lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (nzones <= 0)
        return null_member("availabilityZones", err);
    memset(&p, 0, sizeof(p));
    for (int i = 0; i < b->nzones; i++) {
        placement_add(&p, b->zones[i], b->subnets[i]);
        p.vpc = b->v.vpc_id;
    }
    for (int i = 0; i < nzones; i++) {
        const struct sc_ec2_subnet *s;

        if (!zones[i] || !sc_ec2_zone_find(elb->ec2, zones[i]))
            return zone_unsupported(zones[i], err);
        if (zone_enabled(b, zones[i]))
            continue;
        s = sc_ec2_default_subnet(elb->ec2, zones[i]);
        if (!s || p.n >= 16)
            return zone_unsupported(zones[i], err);
        if (!in_list(p.zone, p.n, zones[i]))
            placement_add(&p, s->availability_zone, s->subnet_id);
    }
    if (set_zones(b, &p) < 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    /* re-enabled zones cancel their disable drains */
    for (int i = 0; i < b->nregs; i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_find(elb->ec2, b->regs[i]->id);

        if (b->regs[i]->drain == DRAIN_ZONE && in && zone_enabled(b, in->availability_zone))
            drain_end(b, i);
    }
    lb_sync(b);
    return SC_OK;
}

enum sc_status sc_elb_disable_zones(struct sc_elb *elb, const char *name, const char *const *zones,
                                    int nzones, int64_t now_ms, struct sc_error *err)
{
    struct lb *b;
    struct placement p;
    enum sc_status st;
    int draining;

    st = lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (nzones <= 0)
        return null_member("availabilityZones", err);
    memset(&p, 0, sizeof(p));
    for (int i = 0; i < b->nzones; i++) {
        if (!in_list(zones, nzones, b->zones[i]))
            placement_add(&p, b->zones[i], b->subnets[i]);
    }
    if (p.n == 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Cannot remove all Availability Zones from a load balancer.");
    if (p.n == b->nzones) {
        lb_sync(b);
        return SC_OK;
    }
    /* Which registrations are InService in a zone going away (before the change). */
    draining = b->v.attributes.connection_draining_enabled;
    for (int i = 0; draining && i < b->nregs; i++) {
        struct reg *r = b->regs[i];
        const struct sc_ec2_instance *in = sc_ec2_instance_find(elb->ec2, r->id);

        if (in && r->drain == DRAIN_NONE && reg_routable(elb, b, r) &&
            in_list(zones, nzones, in->availability_zone))
            drain_start(b, r, DRAIN_ZONE, now_ms);
    }
    if (set_zones(b, &p) < 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    lb_sync(b);
    return SC_OK;
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
        return null_member(nnames <= 0 ? "loadBalancerNames" : "tags", err);
    st = check_tags(tags, ntags, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < nnames; i++) {
        st = lb_lookup(elb, names[i], &b, err);
        if (st != SC_OK)
            return st;
        if (tags_after(b, tags, ntags) > SC_ELB_MAX_TAGS)
            return too_many_tags(err);
    }
    for (int i = 0; i < nnames; i++) {
        b = lb_get(elb, names[i]);
        for (int j = 0; j < ntags; j++) {
            if (set_tag(b, tags[j].key, tags[j].value) < 0) {
                lb_sync(b);
                return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
            }
        }
        lb_sync(b);
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
        st = lb_lookup(elb, names[i], &b, err);
        if (st != SC_OK)
            return st;
    }
    for (int i = 0; i < nnames; i++) {
        b = lb_get(elb, names[i]);
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
        lb_sync(b);
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
        st = lb_lookup(elb, names[i], &b, err);
        if (st != SC_OK)
            return st;
        out[i] = &b->v;
    }
    return SC_OK;
}

/* --- registration ----------------------------------------------------------------------------- */

static enum sc_status invalid_instance(const char *id, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_INVALID_INSTANCE, "Could not find EC2 instance %s.", id ? id : "");
}

enum sc_status sc_elb_register_instances(struct sc_elb *elb, const char *name,
                                         const char *const *ids, int nids, int64_t now_ms,
                                         struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;
    int add = 0;

    st = lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < nids; i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_find(elb->ec2, ids[i]);

        if (!in || in->state == SC_EC2_TERMINATED || in->state == SC_EC2_SHUTTING_DOWN)
            return invalid_instance(ids[i], err);
        if (b->v.vpc_id && in->vpc_id && strcmp(b->v.vpc_id, in->vpc_id) != 0)
            return sc_fail(err, SC_ERR_INVALID_INSTANCE,
                           "EC2 instance %s is not in the same VPC as ELB.", ids[i]);
        if (!reg_get(b, ids[i], NULL))
            add++;
    }
    /* room first, so the additions cannot fail half-way */
    while (b->nregs + add > b->capregs) {
        int nc = b->capregs ? b->capregs * 2 : 8;
        struct reg **nr = realloc(b->regs, (size_t)nc * sizeof(*nr));
        const char **nv;

        if (!nr)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        b->regs = nr;
        nv = realloc(b->inst_view, (size_t)nc * sizeof(*nv));
        if (!nv)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        b->inst_view = nv;
        b->capregs = nc;
    }
    for (int i = 0; i < nids; i++) {
        struct reg *r = reg_get(b, ids[i], NULL);

        if (r) {
            if (r->drain == DRAIN_DEREGISTER)
                drain_stop(b, r);
            continue;
        }
        r = calloc(1, sizeof(*r));
        if (!r) {
            lb_sync(b);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        snprintf(r->id, sizeof(r->id), "%s", ids[i]);
        r->registered_ms = now_ms;
        b->regs[b->nregs++] = r;
    }
    lb_sync(b);
    return SC_OK;
}

enum sc_status sc_elb_deregister_instances(struct sc_elb *elb, const char *name,
                                           const char *const *ids, int nids, int64_t now_ms,
                                           struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;

    st = lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < nids; i++) {
        if (!sc_ec2_instance_find(elb->ec2, ids[i]) && !reg_get(b, ids[i], NULL))
            return invalid_instance(ids[i], err);
    }
    for (int i = 0; i < nids; i++) {
        int k;
        struct reg *r = reg_get(b, ids[i], &k);

        if (!r || r->drain == DRAIN_DEREGISTER)
            continue;
        if (b->v.attributes.connection_draining_enabled && r->drain == DRAIN_NONE &&
            reg_routable(elb, b, r)) {
            drain_start(b, r, DRAIN_DEREGISTER, now_ms);
            continue;
        }
        reg_remove(b, k);
    }
    lb_sync(b);
    return SC_OK;
}

enum sc_status sc_elb_describe_instance_health(const struct sc_elb *elb, const char *name,
                                               const char *const *ids, int nids,
                                               struct sc_elb_instance_health *out, int *nout,
                                               struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;
    int n = 0;

    *nout = 0;
    st = lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < nids; i++) {
        if (!sc_ec2_instance_find(elb->ec2, ids[i]))
            return invalid_instance(ids[i], err);
    }
    for (int i = 0; i < (nids ? nids : b->nregs); i++) {
        const struct reg *r = nids ? reg_get(b, ids[i], NULL) : b->regs[i];
        const char *id = nids ? ids[i] : r->id;
        struct row row = health_row(elb, b, r, id);

        out[n].instance_id = r ? r->id : id;
        out[n].state = row.state;
        out[n].state_name = sc_elb_state_name(row.state);
        out[n].reason_code = row.reason;
        out[n].description = row.desc;
        n++;
    }
    *nout = n;
    return SC_OK;
}

/* --- health bookkeeping and routing ----------------------------------------------------------- */

int sc_elb_health_result(struct sc_elb *elb, const char *name, const char *instance_id, int ok,
                         int64_t now_ms)
{
    struct lb *b = lb_get(elb, name);
    struct reg *r;
    int k;

    if (!b)
        return -1;
    r = reg_get(b, instance_id, &k);
    if (!r)
        return -1;
    if (ok) {
        r->consec_ok++;
        r->consec_fail = 0;
        if (!r->in_service && ((!r->ever_in_service && !r->failed_out) ||
                               r->consec_ok >= b->v.health_check.healthy_threshold)) {
            r->in_service = 1;
            r->ever_in_service = 1;
            r->failed_out = 0;
        }
    } else {
        r->consec_fail++;
        r->consec_ok = 0;
        if (r->consec_fail >= b->v.health_check.unhealthy_threshold) {
            if (r->in_service || !r->ever_in_service)
                r->failed_out = 1;
            r->in_service = 0;
        }
        /* draining does not hold an unhealthy instance */
        if (!r->in_service && r->drain != DRAIN_NONE) {
            int removed = drain_end(b, k);

            (void)now_ms;
            lb_sync(b);
            if (removed)
                return 0;
        }
    }
    return r->in_service;
}

int sc_elb_target_count(const struct sc_elb *elb, const char *name)
{
    const struct lb *b = lb_get(elb, name);

    return b ? b->nregs : -1;
}

int sc_elb_target_at(const struct sc_elb *elb, const char *name, int i, struct sc_elb_target *out)
{
    const struct lb *b = lb_get(elb, name);
    const struct reg *r;
    const struct sc_ec2_instance *in;

    if (!b || i < 0 || i >= b->nregs)
        return -1;
    r = b->regs[i];
    in = sc_ec2_instance_find(elb->ec2, r->id);
    memset(out, 0, sizeof(*out));
    out->instance_id = r->id;
    out->availability_zone = in ? in->availability_zone : NULL;
    out->state = health_row(elb, b, r, r->id).state;
    out->routable = reg_routable(elb, b, r);
    out->draining = r->drain != DRAIN_NONE;
    out->checked = in && in->state == SC_EC2_RUNNING;
    out->registered_ms = r->registered_ms;
    out->drain_deadline_ms = r->drain_deadline_ms;
    return 0;
}

int sc_elb_instance_in_service(const struct sc_elb *elb, const char *name, const char *instance_id)
{
    struct lb *b;
    const struct reg *r = reg_find(elb, name, instance_id, &b);

    return r && health_row(elb, b, r, r->id).state == SC_ELB_IN_SERVICE;
}

int sc_elb_routable(const struct sc_elb *elb, const char *name, const char *instance_id)
{
    struct lb *b;
    const struct reg *r = reg_find(elb, name, instance_id, &b);

    return r && reg_routable(elb, b, r);
}

/* Instance of registration r is in zone (any zone when NULL). */
static int reg_in_zone(const struct sc_elb *elb, const struct reg *r, const char *zone)
{
    const struct sc_ec2_instance *in = zone ? sc_ec2_instance_find(elb->ec2, r->id) : NULL;

    return !zone || (in && strcmp(in->availability_zone, zone) == 0);
}

int sc_elb_route_set(const struct sc_elb *elb, const char *name, const char *zone, const char **ids,
                     int cap)
{
    const struct lb *b = lb_get(elb, name);
    int n = 0;
    int all;

    if (!b)
        return -1;
    all = !zone || b->v.attributes.cross_zone_enabled;
    for (int i = 0; i < b->nregs; i++) {
        const struct reg *r = b->regs[i];

        if (!reg_routable(elb, b, r) || (!all && !reg_in_zone(elb, r, zone)))
            continue;
        if (n < cap && ids)
            ids[n] = r->id;
        n++;
    }
    return n;
}

int sc_elb_drain_done(struct sc_elb *elb, const char *name, const char *instance_id, int64_t now_ms)
{
    struct lb *b = lb_get(elb, name);
    struct reg *r;
    int k;

    (void)now_ms;
    if (!b)
        return -1;
    r = reg_get(b, instance_id, &k);
    if (!r || r->drain == DRAIN_NONE)
        return 0;
    drain_end(b, k);
    lb_sync(b);
    return 1;
}

int sc_elb_instance_draining(const struct sc_elb *elb, const char *name, const char *instance_id)
{
    struct lb *b;
    const struct reg *r = reg_find(elb, name, instance_id, &b);

    return r && r->drain != DRAIN_NONE;
}

int sc_elb_draining_anywhere(const struct sc_elb *elb, const char *instance_id)
{
    for (int i = 0; i < elb->nlbs; i++) {
        const struct reg *r = reg_get(elb->lbs[i], instance_id, NULL);

        if (r && r->drain == DRAIN_DEREGISTER)
            return 1;
    }
    return 0;
}

int sc_elb_registered_anywhere(const struct sc_elb *elb, const char *instance_id)
{
    for (int i = 0; i < elb->nlbs; i++) {
        if (reg_get(elb->lbs[i], instance_id, NULL))
            return 1;
    }
    return 0;
}

int sc_elb_instance_registered(const struct sc_elb *elb, const char *name, const char *instance_id)
{
    struct lb *b;

    return reg_find(elb, name, instance_id, &b) != NULL;
}

enum sc_elb_membership sc_elb_instance_membership(const struct sc_elb *elb, const char *name,
                                                  const char *instance_id)
{
    struct lb *b;
    const struct reg *r = reg_find(elb, name, instance_id, &b);
    struct row row;

    if (!r)
        return SC_ELB_MEMBER_NONE;
    if (r->drain == DRAIN_DEREGISTER)
        return SC_ELB_MEMBER_DRAINING;
    row = health_row(elb, b, r, r->id);
    if (row.state == SC_ELB_IN_SERVICE)
        return SC_ELB_MEMBER_IN_SERVICE;
    if (strcmp(row.desc, DESC_REGISTERING) == 0)
        return SC_ELB_MEMBER_REGISTERING;
    return SC_ELB_MEMBER_OUT_OF_SERVICE;
}

int sc_elb_host_counts(const struct sc_elb *elb, const char *name, const char *zone, int *healthy,
                       int *unhealthy)
{
    const struct lb *b = lb_get(elb, name);
    int h = 0, u = 0;

    if (!b)
        return -1;
    for (int i = 0; i < b->nregs; i++) {
        const struct reg *r = b->regs[i];

        if (r->drain == DRAIN_DEREGISTER || !reg_in_zone(elb, r, zone))
            continue;
        if (health_row(elb, b, r, r->id).state == SC_ELB_IN_SERVICE)
            h++;
        else
            u++;
    }
    if (healthy)
        *healthy = h;
    if (unhealthy)
        *unhealthy = u;
    return 0;
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
                reg_remove(b, i);
                changed = 1;
                continue;
            }
            if (in->state != SC_EC2_RUNNING) {
                /* health starts over when it runs again; a drain has nothing left */
                reset_health(r);
                if (r->drain != DRAIN_NONE) {
                    changed = 1;
                    if (drain_end(b, i))
                        continue;
                }
            }
            if (r->drain != DRAIN_NONE && now_ms >= r->drain_deadline_ms) {
                changed = 1;
                if (drain_end(b, i))
                    continue;
            }
            i++;
        }
        if (changed)
            lb_sync(b);
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

/* --- save / load (the emulator's --state; see elb.h) ------------------------------------------ */

static json_t *lb_save(const void *ctx, int i)
{
    const struct lb *b = ((const struct sc_elb *)ctx)->lbs[i];
    const struct sc_elb_attributes *at = &b->v.attributes;
    const struct sc_elb_health_check *hc = &b->v.health_check;
    json_t *o = json_object();
    json_t *a;
    int bad = !o;

    if (bad)
        return NULL;
    bad |= sc_save_str(o, "name", b->name);
    bad |= sc_save_str(o, "dns", b->dns);
    bad |= sc_save_str(o, "scheme", b->scheme);
    bad |= sc_save_str(o, "vpc_id", b->v.vpc_id);
    bad |= sc_save_int(o, "created_ms", b->v.created_time_ms);
    bad |= sc_save_take(o, "health_check",
                        json_pack("{s:s,s:i,s:i,s:i,s:i}", "target", b->hc_target, "interval_s",
                                  hc->interval_s, "timeout_s", hc->timeout_s, "unhealthy_threshold",
                                  hc->unhealthy_threshold, "healthy_threshold",
                                  hc->healthy_threshold));
    bad |= sc_save_take(
        o, "attributes",
        json_pack("{s:b,s:i,s:i,s:b,s:b,s:s?,s:s?,s:i}", "connection_draining_enabled",
                  at->connection_draining_enabled, "connection_draining_timeout_s",
                  at->connection_draining_timeout_s, "idle_timeout_s", at->idle_timeout_s,
                  "cross_zone_enabled", at->cross_zone_enabled, "access_log_enabled",
                  at->access_log_enabled, "bucket", b->bucket, "prefix", b->prefix,
                  "access_log_emit_interval", at->access_log_emit_interval));
    a = json_array();
    for (int k = 0; a && k < b->nlisteners; k++) {
        const struct sc_elb_listener *li = &b->listeners[k];

        bad |= json_array_append_new(
            a, json_pack("{s:s,s:i,s:s?,s:i,s:s?}", "protocol", li->protocol, "load_balancer_port",
                         li->load_balancer_port, "instance_protocol", li->instance_protocol,
                         "instance_port", li->instance_port, "ssl_certificate_id",
                         li->ssl_certificate_id));
    }
    bad |= sc_save_take(o, "listeners", a);
    bad |= sc_save_strv(o, "zones", b->zones, b->nzones);
    bad |= sc_save_strv(o, "subnets", b->subnets, b->nzones);
    bad |= sc_save_strv(o, "security_groups", b->sgs, b->nsgs);
    a = json_array();
    for (int k = 0; a && k < b->ntags; k++)
        bad |= json_array_append_new(
            a, json_pack("{s:s,s:s}", "key", b->tags[k].key, "value", b->tags[k].value));
    bad |= sc_save_take(o, "tags", a);
    a = json_array();
    for (int k = 0; a && k < b->nregs; k++) {
        const struct reg *r = b->regs[k];

        bad |= json_array_append_new(
            a, json_pack("{s:s,s:I,s:b,s:b,s:b,s:i,s:i,s:i,s:I}", "id", r->id, "registered_ms",
                         (json_int_t)r->registered_ms, "in_service", r->in_service,
                         "ever_in_service", r->ever_in_service, "failed_out", r->failed_out,
                         "consec_ok", r->consec_ok, "consec_fail", r->consec_fail, "drain",
                         (int)r->drain, "drain_deadline_ms", (json_int_t)r->drain_deadline_ms));
    }
    bad |= sc_save_take(o, "registrations", a);
    return rec_save_done(o, bad);
}

json_t *sc_elb_save(const struct sc_elb *elb)
{
    json_t *o = json_object();
    int bad = !o;

    if (bad)
        return NULL;
    bad |= rec_rng_save(o, &elb->rng);
    bad |= rec_save_list(o, "load_balancers", elb, elb->nlbs, lb_save);
    return rec_save_done(o, bad);
}

/* A string or null (present either way). */
static char *opt_dup(struct sc_load *l, const json_t *o, const char *key)
{
    return sc_load_str(l, o, key);
}

static struct lb *lb_load(struct sc_elb *elb, struct sc_load *l, const json_t *x)
{
    struct lb *b = rec_load_new(l, sizeof(*b));
    const json_t *hc, *at, *a, *v;
    const char *vpc;
    size_t k;
    int nsub = 0;

    if (!b)
        return NULL;
    sc_load_buf(l, x, "name", b->name, sizeof(b->name));
    b->dns = sc_load_str(l, x, "dns");
    b->scheme = sc_load_str(l, x, "scheme");
    vpc = json_string_value(json_object_get(x, "vpc_id"));
    b->v.created_time_ms = sc_load_int(l, x, "created_ms");
    hc = sc_load_object(l, x, "health_check");
    b->hc_target = sc_load_str(l, hc, "target");
    b->v.health_check.interval_s = sc_load_int_range(l, hc, "interval_s", 0, 1 << 30);
    b->v.health_check.timeout_s = sc_load_int_range(l, hc, "timeout_s", 0, 1 << 30);
    b->v.health_check.unhealthy_threshold =
        sc_load_int_range(l, hc, "unhealthy_threshold", 0, 1 << 30);
    b->v.health_check.healthy_threshold = sc_load_int_range(l, hc, "healthy_threshold", 0, 1 << 30);
    at = sc_load_object(l, x, "attributes");
    b->v.attributes.connection_draining_enabled =
        sc_load_bool(l, at, "connection_draining_enabled");
    b->v.attributes.connection_draining_timeout_s =
        sc_load_int_range(l, at, "connection_draining_timeout_s", 0, 1 << 30);
    b->v.attributes.idle_timeout_s = sc_load_int_range(l, at, "idle_timeout_s", 0, 1 << 30);
    b->v.attributes.cross_zone_enabled = sc_load_bool(l, at, "cross_zone_enabled");
    b->v.attributes.access_log_enabled = sc_load_bool(l, at, "access_log_enabled");
    b->bucket = opt_dup(l, at, "bucket");
    b->prefix = opt_dup(l, at, "prefix");
    b->v.attributes.access_log_emit_interval =
        sc_load_int_range(l, at, "access_log_emit_interval", 0, 1 << 30);
    a = sc_load_array(l, x, "listeners");
    if (a && !l->failed && json_array_size(a) > 0) {
        b->listeners = calloc(json_array_size(a), sizeof(*b->listeners));
        if (!b->listeners)
            sc_load_fail(l, "out of memory");
        else
            b->caplisteners = (int)json_array_size(a);
        json_array_foreach(a, k, v)
        {
            struct sc_elb_listener *li;

            if (l->failed)
                break;
            li = &b->listeners[b->nlisteners++];
            li->protocol = sc_load_str(l, v, "protocol");
            li->load_balancer_port = sc_load_int_range(l, v, "load_balancer_port", 1, 65535);
            li->instance_protocol = opt_dup(l, v, "instance_protocol");
            li->instance_port = sc_load_int_range(l, v, "instance_port", 1, 65535);
            li->ssl_certificate_id = opt_dup(l, v, "ssl_certificate_id");
            if (!l->failed && !li->protocol)
                sc_load_fail(l, "load balancer %s: a listener without protocol", b->name);
        }
    }
    b->zones = sc_load_strv(l, x, "zones", &b->nzones);
    b->subnets = sc_load_strv(l, x, "subnets", &nsub);
    if (nsub != b->nzones || (b->nzones && !b->subnets)) {
        /* lb_free walks both with nzones: keep them parallel even when failing */
        sc_strv_free(b->subnets, nsub);
        sc_strv_free(b->zones, b->nzones);
        b->subnets = NULL;
        b->zones = NULL;
        b->nzones = 0;
        sc_load_fail(l, "load balancer %s: subnets not parallel to zones", b->name);
    }
    b->sgs = sc_load_strv(l, x, "security_groups", &b->nsgs);
    a = sc_load_array(l, x, "tags");
    if (a && !l->failed && json_array_size(a) > 0) {
        b->tags = calloc(json_array_size(a), sizeof(*b->tags));
        if (!b->tags)
            sc_load_fail(l, "out of memory");
        json_array_foreach(a, k, v)
        {
            if (l->failed)
                break;
            b->tags[b->ntags].key = sc_load_str(l, v, "key");
            b->tags[b->ntags].value = sc_load_str(l, v, "value");
            b->ntags++;
            if (!l->failed && (!b->tags[b->ntags - 1].key || !b->tags[b->ntags - 1].value))
                sc_load_fail(l, "load balancer %s: a tag without key or value", b->name);
        }
    }
    a = sc_load_array(l, x, "registrations");
    if (a && !l->failed) {
        size_t n = json_array_size(a);

        b->regs = rec_load_ptrs(l, n);
        b->inst_view = rec_load_ptrs(l, n);
        if (b->regs && b->inst_view)
            b->capregs = (int)(n ? n : 1);
        json_array_foreach(a, k, v)
        {
            struct reg *r = rec_load_new(l, sizeof(*r));

            if (!r)
                break;
            b->regs[b->nregs++] = r;
            sc_load_buf(l, v, "id", r->id, sizeof(r->id));
            r->registered_ms = sc_load_int(l, v, "registered_ms");
            r->in_service = sc_load_bool(l, v, "in_service");
            r->ever_in_service = sc_load_bool(l, v, "ever_in_service");
            r->failed_out = sc_load_bool(l, v, "failed_out");
            r->consec_ok = sc_load_int_range(l, v, "consec_ok", 0, INT_MAX);
            r->consec_fail = sc_load_int_range(l, v, "consec_fail", 0, INT_MAX);
            r->drain = (enum drain_kind)sc_load_int_range(l, v, "drain", DRAIN_NONE, DRAIN_ZONE);
            if (r->drain != DRAIN_NONE)
                b->ndrain++;
            r->drain_deadline_ms = sc_load_int(l, v, "drain_deadline_ms");
        }
    }
    if (l->failed)
        return b;
    if (!b->dns || !b->scheme || !b->hc_target || !name_valid(b->name) ||
        (strcmp(b->scheme, "internet-facing") != 0 && strcmp(b->scheme, "internal") != 0)) {
        sc_load_fail(l, "load balancer %s: bad name, dns, scheme or health check", b->name);
        return b;
    }
    b->v.vpc_id = NULL;
    if (vpc) {
        const struct sc_ec2_vpc *ev = sc_ec2_vpc_find(elb->ec2, vpc);

        if (!ev) {
            sc_load_fail(l, "load balancer %s: unknown vpc %s", b->name, vpc);
            return b;
        }
        b->v.vpc_id = ev->vpc_id;
    }
    b->v.load_balancer_name = b->name;
    b->v.dns_name = b->dns;
    b->v.canonical_hosted_zone_name = strcmp(b->scheme, "internal") == 0 ? NULL : b->dns;
    b->v.canonical_hosted_zone_name_id = hosted_zone_id(elb->region);
    b->v.scheme = b->scheme;
    b->v.source_security_group_owner_alias = "amazon-elb";
    b->v.source_security_group_name = "amazon-elb-sg";
    lb_sync(b);
    return b;
}

enum sc_status sc_elb_load(struct sc_elb *elb, const json_t *obj, struct sc_error *err)
{
    struct sc_load l;
    struct lb **lbs = NULL;
    int nlbs = 0;
    const json_t *a, *x;
    uint64_t rng[4] = { 0, 0, 0, 0 };
    size_t k;

    sc_load_init(&l, "elb", err);
    if (elb->nlbs)
        return sc_fail(err, SC_ERR_VALIDATION, "state: elb: load into a non-empty elb");
    if (!json_is_object(obj))
        return sc_fail(err, SC_ERR_VALIDATION, "state: elb: expected an object");
    rec_rng_load(&l, obj, rng);
    a = sc_load_array(&l, obj, "load_balancers");
    if (a && !l.failed && json_array_size(a) > (size_t)elb->max_lbs)
        sc_load_fail(&l, "load_balancers: more than %d", elb->max_lbs);
    if (a && !l.failed) {
        lbs = rec_load_ptrs(&l, json_array_size(a));
        json_array_foreach(a, k, x)
        {
            if (l.failed)
                break;
            lbs[nlbs] = lb_load(elb, &l, x);
            if (lbs[nlbs])
                nlbs++;
            if (!l.failed && nlbs > 1 && strcmp(lbs[nlbs - 2]->name, lbs[nlbs - 1]->name) >= 0)
                sc_load_fail(&l, "load_balancers: not in name order");
        }
    }
    if (l.failed) {
        for (int i = 0; i < nlbs; i++)
            lb_free(lbs[i]);
        free(lbs);
        return err ? err->status : SC_ERR_VALIDATION;
    }
    free(elb->lbs);
    elb->lbs = lbs;
    elb->nlbs = nlbs;
    elb->caplbs = a && json_array_size(a) ? (int)json_array_size(a) : 1;
    memcpy(elb->rng.s, rng, sizeof(rng));
    return SC_OK;
}
