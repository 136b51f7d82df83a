/* scaler/elb_validate.c: the checks of ELB requests (names, listeners, tags, zones and
 * subnets) and the helpers that apply validated listeners and tags. */
#include "scaler/elb.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scaler/elb_internal.h"
#include "scaler/rec.h"

/* --- helpers ---------------------------------------------------------------------------------- */

static int streq_opt(const char *a, const char *b)
{
    if (!a || !b)
        return !a && !b;
    return strcmp(a, b) == 0;
}

/* --- validation ------------------------------------------------------------------------------- */

int elb_name_valid(const char *s)
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
     * a SSLCertificateId`, status 400); an id that names no certificate: CertificateNotFound
     * (docs/elb-classic.md 6: the shape of an IAM or ACM certificate ARN) */
    if (tls && !l->ssl_certificate_id)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Secure Listeners need to specify a SSLCertificateId");
    if (tls && !elb_certificate_valid(l->ssl_certificate_id))
        return elb_certificate_not_found(err);
    n->protocol = proto_upper(l->protocol);
    n->lb_port = l->load_balancer_port;
    n->instance_port = l->instance_port;
    n->cert = tls ? l->ssl_certificate_id : NULL;
    return SC_OK;
}

int elb_listener_same(const struct sc_elb_listener *a, const struct norm_listener *b)
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
enum sc_status elb_check_listeners(const char *lbname, const struct lb *b,
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
                !elb_listener_same(&b->listeners[j], &norm[i]))
                return dup_listener(lbname, norm[i].lb_port, err);
        }
    }
    return SC_OK;
}

/* Appends the listeners not already present; 0 or -1 on OOM (partial appends undone). */
int elb_add_listeners(struct lb *b, const struct norm_listener *norm, int n)
{
    int start = b->nlisteners;

    for (int i = 0; i < n; i++) {
        struct sc_elb_listener *l;
        int have = 0;

        for (int j = 0; j < b->nlisteners; j++)
            have |= elb_listener_same(&b->listeners[j], &norm[i]);
        if (have)
            continue;
        if (elb_grow(&b->listeners, b->nlisteners, &b->caplisteners, sizeof(*b->listeners)) < 0)
            goto fail;
        l = &b->listeners[b->nlisteners];
        memset(l, 0, sizeof(*l));
        l->protocol = sc_strdup(norm[i].protocol);
        l->instance_protocol = sc_strdup(norm[i].instance_protocol);
        l->ssl_certificate_id = norm[i].cert ? sc_strdup(norm[i].cert) : NULL;
        l->load_balancer_port = norm[i].lb_port;
        l->instance_port = norm[i].instance_port;
        if (!l->protocol || !l->instance_protocol || (norm[i].cert && !l->ssl_certificate_id)) {
            elb_listener_free(l);
            goto fail;
        }
        b->nlisteners++;
    }
    return 0;

fail:
    while (b->nlisteners > start)
        elb_listener_free(&b->listeners[--b->nlisteners]);
    return -1;
}

/* AWS's answer to a required member left out. */
/* digits only, n of them */
static int all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
    }
    return 1;
}

int elb_certificate_valid(const char *id)
{
    static const char iam[] = "arn:aws:iam::", acm[] = "arn:aws:acm:";
    const char *p;

    if (!id)
        return 0;
    if (strncmp(id, iam, sizeof(iam) - 1) == 0) {
        p = id + sizeof(iam) - 1;
        if (strlen(p) < 12 || !all_digits(p, 12) ||
            strncmp(p + 12, ":server-certificate/", 20) != 0)
            return 0;
        return p[32] != '\0' && p[strlen(p) - 1] != '/';
    }
    if (strncmp(id, acm, sizeof(acm) - 1) == 0) {
        const char *region = id + sizeof(acm) - 1, *colon = strchr(region, ':');

        if (!colon || colon == region)
            return 0;
        p = colon + 1;
        if (strlen(p) < 12 || !all_digits(p, 12) || strncmp(p + 12, ":certificate/", 13) != 0)
            return 0;
        return p[25] != '\0' && strchr(p + 25, '/') == NULL;
    }
    return 0;
}

enum sc_status elb_certificate_not_found(struct sc_error *err)
{
    return sc_fail(err, SC_ERR_CERTIFICATE_NOT_FOUND,
                   "The specified ARN does not refer to a valid SSL certificate in AWS Identity "
                   "and Access Management (IAM) or AWS Certificate Manager (ACM). Note that if "
                   "you recently uploaded the certificate, it may take a few minutes for the "
                   "certificate to become available.");
}

enum sc_status elb_null_member(const char *member, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VALIDATION,
                   "1 validation error detected: Value null at '%s' failed to satisfy "
                   "constraint: Member must not be null",
                   member);
}

enum sc_status elb_too_many_tags(struct sc_error *err)
{
    return sc_fail(err, SC_ERR_TOO_MANY_TAGS,
                   "Tag count exceeds limit of %d tags per load balancer.", SC_ELB_MAX_TAGS);
}

enum sc_status elb_check_tags(const struct sc_elb_tag *tags, int n, struct sc_error *err)
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
int elb_tags_after(const struct lb *b, const struct sc_elb_tag *tags, int n)
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

int elb_set_tag(struct lb *b, const char *key, const char *value)
{
    char *v = sc_strdup(value ? value : "");
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
    b->tags[b->ntags].key = sc_strdup(key);
    if (!b->tags[b->ntags].key)
        goto fail;
    b->tags[b->ntags].value = v;
    b->ntags++;
    return 0;

fail:
    free(v);
    return -1;
}

void elb_placement_add(struct placement *p, const char *zone, const char *subnet)
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

enum sc_status elb_zone_unsupported(const char *zone, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_INVALID_CONFIGURATION_REQUEST,
                   "Classic Load Balancers do not support Availability Zone '%s'.",
                   zone ? zone : "");
}

enum sc_status elb_resolve_placement(const struct sc_elb *elb, const struct sc_elb_create_req *req,
                                     struct placement *p, struct sc_error *err)
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
            return elb_zone_unsupported(z, err);
        if (in_list(p->zone, p->n, z))
            continue;
        s = sc_ec2_default_subnet(elb->ec2, z);
        if (!s || p->n >= 16)
            return elb_zone_unsupported(z, err);
        p->vpc = s->vpc_id;
        elb_placement_add(p, s->availability_zone, s->subnet_id);
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
            return elb_zone_unsupported(s->availability_zone, err);
        p->vpc = s->vpc_id;
        elb_placement_add(p, s->availability_zone, s->subnet_id);
    }
    return SC_OK;
}
