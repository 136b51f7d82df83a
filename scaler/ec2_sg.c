/* scaler/ec2_sg.c: security groups (each VPC's default group, CreateSecurityGroup,
 * DeleteSecurityGroup, Authorize/Revoke Ingress/Egress, DescribeSecurityGroups, the groups
 * services make for themselves) and the requester-managed network interfaces services keep
 * (DescribeNetworkInterfaces). docs/elb-classic.md sections 2 and 3. */
#include "scaler/ec2.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/ec2_internal.h"
#include "scaler/hash.h"
#include "scaler/rec.h"
#include "scaler/rng.h"

/* --- derived ids ------------------------------------------------------------------------------ */

/* FNV-1a over the strings (each followed by a 0 byte), so ids of records that services make
 * (the default_elb group, network interfaces) come from what they are, not from the RNG. */
static uint64_t hash_strs(const char *const *v, int n)
{
    uint64_t h = SC_HASH_FNV1A_BASIS;

    for (int i = 0; i < n; i++)
        h = sc_hash_fnv1a_field(h, v[i]);
    return h;
}

static void derived_id(const struct sc_ec2 *ec2, const char *prefix, uint64_t seed,
                       char out[SC_EC2_ID_LEN])
{
    for (;;) {
        uint64_t r = sc_rng_splitmix64(&seed);

        snprintf(out, SC_EC2_ID_LEN, "%s0%016llx", prefix, (unsigned long long)r);
        if (!ec2_sg_find(ec2, out) && !ec2_vpc_find(ec2, out) && !ec2_subnet_find(ec2, out) &&
            !sc_ec2_network_interface_find(ec2, out))
            return;
    }
}

/* --- rules ------------------------------------------------------------------------------------ */

int ec2_sg_rule_set(struct sc_ec2_sg_rule *r, const char *proto, int from, int to,
                    enum sc_ec2_peer kind, const char *peer, const char *user, const char *desc)
{
    memset(r, 0, sizeof(*r));
    r->from_port = from;
    r->to_port = to;
    r->peer_kind = kind;
    r->ip_protocol = sc_strdup(proto);
    r->peer = sc_strdup(peer);
    r->peer_user = sc_strdup(user);
    r->description = sc_strdup(desc);
    if (!r->ip_protocol || !r->peer || (user && !r->peer_user) || (desc && !r->description)) {
        ec2_sg_rule_free(r);
        return -1;
    }
    return 0;
}

void ec2_sg_rule_free(struct sc_ec2_sg_rule *r)
{
    free((char *)r->ip_protocol);
    free((char *)r->peer);
    free((char *)r->peer_user);
    free((char *)r->description);
    memset(r, 0, sizeof(*r));
}

/* Same rule: protocol, ports and peer (the description and owner do not make it another). */
static int rule_same(const struct sc_ec2_sg_rule *a, const struct sc_ec2_sg_rule *b)
{
    return strcmp(a->ip_protocol, b->ip_protocol) == 0 && a->from_port == b->from_port &&
           a->to_port == b->to_port && a->peer_kind == b->peer_kind &&
           strcmp(a->peer, b->peer) == 0;
}

/* Appends a copy of r to the group's ingress or egress rules; 0 or -1 (OOM). */
int ec2_sg_rule_add(struct sg *g, int egress, const struct sc_ec2_sg_rule *r)
{
    struct sc_ec2_sg_rule **arr = egress ? &g->out : &g->in;
    int *n = egress ? &g->nout : &g->nin;
    int *cap = egress ? &g->capout : &g->capin;

    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 4;
        struct sc_ec2_sg_rule *nv = realloc(*arr, (size_t)nc * sizeof(**arr));

        if (!nv)
            return -1;
        *arr = nv;
        *cap = nc;
    }
    if (ec2_sg_rule_set(&(*arr)[*n], r->ip_protocol, r->from_port, r->to_port, r->peer_kind,
                        r->peer, r->peer_user, r->description) < 0)
        return -1;
    (*n)++;
    ec2_sg_sync(g);
    return 0;
}

static void rule_del(struct sg *g, int egress, int i)
{
    struct sc_ec2_sg_rule *arr = egress ? g->out : g->in;
    int *n = egress ? &g->nout : &g->nin;

    ec2_sg_rule_free(&arr[i]);
    memmove(&arr[i], &arr[i + 1], (size_t)(*n - i - 1) * sizeof(*arr));
    (*n)--;
    ec2_sg_sync(g);
}

/* --- records ---------------------------------------------------------------------------------- */

void ec2_sg_sync(struct sg *g)
{
    g->v.group_id = g->id;
    g->v.group_name = g->name;
    g->v.description = g->desc;
    g->v.vpc_id = g->vpc_id;
    g->v.ingress = g->in;
    g->v.ningress = g->nin;
    g->v.egress = g->out;
    g->v.negress = g->nout;
    g->v.tags = g->tags.v;
    g->v.ntags = g->tags.n;
}

void ec2_sg_free(struct sg *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->nin; i++)
        ec2_sg_rule_free(&g->in[i]);
    for (int i = 0; i < g->nout; i++)
        ec2_sg_rule_free(&g->out[i]);
    free(g->in);
    free(g->out);
    free(g->name);
    free(g->desc);
    ec2_tagset_free(&g->tags);
    free(g);
}

/* A new group record (no rules), not yet listed; NULL on OOM. */
struct sg *ec2_sg_make(const struct sc_ec2 *ec2, const char *id, const char *vpc_id,
                       const char *name, const char *desc)
{
    struct sg *g = calloc(1, sizeof(*g));

    if (!g)
        return NULL;
    snprintf(g->id, sizeof(g->id), "%s", id);
    snprintf(g->vpc_id, sizeof(g->vpc_id), "%s", vpc_id);
    g->name = sc_strdup(name);
    g->desc = sc_strdup(desc);
    g->v.owner_id = ec2->account;
    if (!g->name || !g->desc) {
        ec2_sg_free(g);
        return NULL;
    }
    ec2_sg_sync(g);
    return g;
}

/* The same, appended to the list; NULL on OOM. */
static struct sg *sg_new(struct sc_ec2 *ec2, const char *id, const char *vpc_id, const char *name,
                         const char *desc)
{
    struct sg *g;

    if (ec2_grow(&ec2->sgs, ec2->nsgs, &ec2->capsgs) < 0)
        return NULL;
    g = ec2_sg_make(ec2, id, vpc_id, name, desc);
    if (g)
        ec2->sgs[ec2->nsgs++] = g;
    return g;
}

/* Removes the last group (a half-made one). */
static void sg_drop_last(struct sc_ec2 *ec2)
{
    ec2_sg_free(ec2->sgs[--ec2->nsgs]);
}

/* The outbound all-traffic rule every new group has. */
static int add_egress_all(struct sg *g)
{
    struct sc_ec2_sg_rule r = { "-1", -1, -1, SC_EC2_PEER_CIDR, "0.0.0.0/0", NULL, NULL };

    return ec2_sg_rule_add(g, 1, &r);
}

/* The default group of VPC v (id v->sg_id): inbound all from itself, outbound all IPv4;
 * not listed. NULL on OOM. */
struct sg *ec2_sg_default_make(const struct sc_ec2 *ec2, const struct vpc *v)
{
    struct sg *g = ec2_sg_make(ec2, v->sg_id, v->id, "default", "default VPC security group");
    struct sc_ec2_sg_rule self = { "-1", -1, -1, SC_EC2_PEER_GROUP, v->sg_id, ec2->account, NULL };

    if (!g)
        return NULL;
    g->is_default = 1;
    if (ec2_sg_rule_add(g, 0, &self) < 0 || add_egress_all(g) < 0) {
        ec2_sg_free(g);
        return NULL;
    }
    return g;
}

/* The same, listed (a new VPC's). */
struct sg *ec2_sg_default_new(struct sc_ec2 *ec2, const struct vpc *v)
{
    struct sg *g;

    if (ec2_grow(&ec2->sgs, ec2->nsgs, &ec2->capsgs) < 0)
        return NULL;
    g = ec2_sg_default_make(ec2, v);
    if (g)
        ec2->sgs[ec2->nsgs++] = g;
    return g;
}

struct sg *ec2_sg_find(const struct sc_ec2 *ec2, const char *id)
{
    for (int i = 0; id && i < ec2->nsgs; i++) {
        if (strcmp(ec2->sgs[i]->id, id) == 0)
            return ec2->sgs[i];
    }
    return NULL;
}

static struct sg *sg_by_name(const struct sc_ec2 *ec2, const char *vpc_id, const char *name)
{
    const struct sc_ec2_vpc *dv = sc_ec2_default_vpc(ec2);

    if (!vpc_id)
        vpc_id = dv ? dv->vpc_id : "";
    for (int i = 0; name && i < ec2->nsgs; i++) {
        if (strcmp(ec2->sgs[i]->vpc_id, vpc_id) == 0 && strcmp(ec2->sgs[i]->name, name) == 0)
            return ec2->sgs[i];
    }
    return NULL;
}

int sc_ec2_security_group_count(const struct sc_ec2 *ec2)
{
    return ec2->nsgs;
}

const struct sc_ec2_security_group *sc_ec2_security_group_at(const struct sc_ec2 *ec2, int i)
{
    return i >= 0 && i < ec2->nsgs ? &ec2->sgs[i]->v : NULL;
}

const struct sc_ec2_security_group *sc_ec2_security_group_find(const struct sc_ec2 *ec2,
                                                               const char *group_id)
{
    const struct sg *g = ec2_sg_find(ec2, group_id);

    return g ? &g->v : NULL;
}

const struct sc_ec2_security_group *
sc_ec2_security_group_by_name(const struct sc_ec2 *ec2, const char *vpc_id, const char *name)
{
    const struct sg *g = sg_by_name(ec2, vpc_id, name);

    return g ? &g->v : NULL;
}

/* --- errors ----------------------------------------------------------------------------------- */

static int sg_holds(const struct sc_ec2 *ec2, const char *id)
{
    return ec2_sg_find(ec2, id) != NULL;
}

static enum sc_status sg_unknown(const char *id, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_SECURITY_GROUP_NOT_FOUND, "The security group '%s' does not exist",
                   id);
}

static enum sc_status sg_name_unknown(const struct sc_ec2 *ec2, const char *name,
                                      struct sc_error *err)
{
    const struct sc_ec2_vpc *dv = sc_ec2_default_vpc(ec2);

    return sc_fail(err, SC_ERR_SECURITY_GROUP_NOT_FOUND,
                   "The security group '%s' does not exist in default VPC '%s'", name ? name : "",
                   dv ? dv->vpc_id : "");
}

/* The group a request names by id (checked for form), else by name in the default VPC. */
static enum sc_status sg_lookup(const struct sc_ec2 *ec2, const char *id, const char *name,
                                struct sg **out, struct sc_error *err)
{
    *out = NULL;
    if (id && *id) {
        if (!ec2_id_valid(id, "sg-"))
            return sc_fail(err, SC_ERR_SECURITY_GROUP_ID_MALFORMED,
                           "Invalid id: \"%s\" (expecting \"sg-...\")", id);
        *out = ec2_sg_find(ec2, id);
        return *out ? SC_OK : sg_unknown(id, err);
    }
    if (name && *name) {
        *out = sg_by_name(ec2, NULL, name);
        return *out ? SC_OK : sg_name_unknown(ec2, name, err);
    }
    return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                   "The request must contain the parameter groupName or groupId");
}

/* --- DescribeSecurityGroups ------------------------------------------------------------------- */

static int sg_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct sg *g = rec;
    const char *name = f->name;

    return ec2_values_match(f, strcmp(name, "group-id") == 0     ? g->id
                               : strcmp(name, "group-name") == 0 ? g->name
                               : strcmp(name, "vpc-id") == 0     ? g->vpc_id
                               : strcmp(name, "owner-id") == 0   ? g->v.owner_id
                                                                 : g->desc);
}

enum sc_status sc_ec2_describe_security_groups(const struct sc_ec2 *ec2, const char *const *ids,
                                               int nids, const char *const *names, int nnames,
                                               const struct sc_ec2_filter *filters, int nfilters,
                                               const struct sc_ec2_security_group **out, int *nout,
                                               struct sc_error *err)
{
    static const char *const known[] = { "group-id",    "group-name", "vpc-id",
                                         "description", "owner-id",   NULL };
    static const struct kind k = { known, 1, sg_holds, sg_unknown };
    const struct sc_ec2_vpc *dv = sc_ec2_default_vpc(ec2);
    enum sc_status st = ec2_describe_check(ec2, &k, ids, nids, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < nnames; i++) {
        if (!sg_by_name(ec2, NULL, names[i]))
            st = sg_name_unknown(ec2, names[i], err);
    }
    for (int i = 0; st == SC_OK && i < ec2->nsgs; i++) {
        const struct sg *g = ec2->sgs[i];
        /* names address the default VPC's groups */
        int asked = (nids == 0 && nnames == 0) || in_list(ids, nids, g->id) ||
                    (dv && strcmp(g->vpc_id, dv->vpc_id) == 0 && in_list(names, nnames, g->name));

        if (asked && ec2_filters_pass(sg_match, g, &g->tags, filters, nfilters))
            out[(*nout)++] = &g->v;
    }
    return st;
}

/* --- CreateSecurityGroup / DeleteSecurityGroup ------------------------------------------------ */

enum sc_status sc_ec2_create_security_group(struct sc_ec2 *ec2, const char *name,
                                            const char *description, const char *vpc_id,
                                            const struct sc_ec2_tag *tags, int ntags,
                                            int64_t now_ms,
                                            const struct sc_ec2_security_group **out,
                                            struct sc_error *err)
{
    const struct vpc *v;
    char id[SC_EC2_ID_LEN];
    struct sg *g;
    enum sc_status st;

    (void)now_ms;
    if (!name || !*name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter groupName");
    if (!description || !*description)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter groupDescription");
    if (strncmp(name, "sg-", 3) == 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "Value (%s) for parameter GroupName is invalid. Group names may not be in "
                       "the format sg-*.",
                       name);
    if (strlen(name) > 255)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "Value (%.64s...) for parameter GroupName is invalid. Group name cannot "
                       "exceed 255 characters.",
                       name);
    if (strlen(description) > 255)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "Value for parameter GroupDescription is invalid. Group description "
                       "cannot exceed 255 characters.");
    if (vpc_id) {
        v = ec2_vpc_find(ec2, vpc_id);
        if (!v)
            return ec2_vpc_unknown(vpc_id, err);
    } else {
        v = ec2->nvpcs ? ec2->vpcs[0] : NULL;
        if (!v)
            return sc_fail(err, SC_ERR_VPC_NOT_FOUND, "No default VPC for this user");
    }
    if (strcmp(name, "default") == 0)
        return sc_fail(err, SC_ERR_SECURITY_GROUP_RESERVED,
                       "The security group 'default' is reserved");
    if (sg_by_name(ec2, v->id, name))
        return sc_fail(err, SC_ERR_SECURITY_GROUP_DUPLICATE,
                       "The security group '%s' already exists for VPC '%s'", name, v->id);
    st = ec2_check_tags(tags, ntags, 0, err);
    if (st != SC_OK)
        return st;
    ec2_make_id(ec2, "sg-", id);
    g = sg_new(ec2, id, v->id, name, description);
    if (!g || add_egress_all(g) < 0 || ec2_tagset_copy(&g->tags, tags, ntags) < 0) {
        if (g)
            sg_drop_last(ec2);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    ec2_sg_sync(g);
    if (out)
        *out = &g->v;
    return SC_OK;
}

/* 1 when a network interface uses group id. */
static int used_by_interface(const struct sc_ec2 *ec2, const char *id)
{
    for (int i = 0; i < ec2->nenis; i++) {
        if (in_list((const char *const *)ec2->enis[i]->groups, ec2->enis[i]->ngroups, id))
            return 1;
    }
    return 0;
}

/* 1 when a rule of another group of g's VPC names g. */
static int referenced(const struct sc_ec2 *ec2, const struct sg *g)
{
    for (int i = 0; i < ec2->nsgs; i++) {
        const struct sg *o = ec2->sgs[i];

        if (o == g || strcmp(o->vpc_id, g->vpc_id) != 0)
            continue;
        for (int k = 0; k < o->nin + o->nout; k++) {
            const struct sc_ec2_sg_rule *r = k < o->nin ? &o->in[k] : &o->out[k - o->nin];

            if (r->peer_kind == SC_EC2_PEER_GROUP && strcmp(r->peer, g->id) == 0)
                return 1;
        }
    }
    return 0;
}

enum sc_status sc_ec2_delete_security_group(struct sc_ec2 *ec2, const char *group_id,
                                            const char *group_name, int64_t now_ms,
                                            char *deleted_id, struct sc_error *err)
{
    struct sg *g;
    enum sc_status st;

    (void)now_ms;
    st = sg_lookup(ec2, group_id, group_name, &g, err);
    if (st != SC_OK)
        return st;
    if (g->is_default)
        return sc_fail(err, SC_ERR_CANNOT_DELETE,
                       "the specified group: \"%s\" name: \"default\" cannot be deleted by a user",
                       g->id);
    if (used_by_interface(ec2, g->id) || referenced(ec2, g))
        return sc_fail(err, SC_ERR_DEPENDENCY_VIOLATION, "resource %s has a dependent object",
                       g->id);
    if (deleted_id)
        snprintf(deleted_id, SC_EC2_ID_LEN, "%s", g->id);
    for (int i = 0; i < ec2->nsgs; i++) {
        if (ec2->sgs[i] == g) {
            memmove(&ec2->sgs[i], &ec2->sgs[i + 1], (size_t)(ec2->nsgs - i - 1) * sizeof(g));
            ec2->nsgs--;
            break;
        }
    }
    ec2_sg_free(g);
    return SC_OK;
}

/* --- Authorize / Revoke ----------------------------------------------------------------------- */

/* The protocol as AWS shows it ("tcp", "-1", "47"); NULL when it is not one. */
static const char *proto_norm(const char *in, char *buf, size_t n)
{
    static const struct {
        const char *num, *name;
    } named[] = { { "6", "tcp" }, { "17", "udp" }, { "1", "icmp" }, { "58", "icmpv6" } };
    size_t i, len;
    char *end;
    long v;

    if (!in || !*in)
        return NULL;
    len = strlen(in);
    if (len >= n)
        return NULL;
    for (i = 0; i <= len; i++)
        buf[i] = (char)tolower((unsigned char)in[i]);
    if (strcmp(buf, "all") == 0 || strcmp(buf, "-1") == 0)
        return "-1";
    for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
        if (strcmp(buf, named[i].name) == 0 || strcmp(buf, named[i].num) == 0)
            return named[i].name;
    }
    v = strtol(buf, &end, 10);
    if (*end || end == buf || v < 0 || v > 255)
        return NULL;
    snprintf(buf, n, "%ld", v);
    return buf;
}

/* A rule of the request, checked and made ready to store (strings borrowed from req and
 * buf). */
static enum sc_status rule_from_req(const struct sc_ec2 *ec2, const struct sc_ec2_sg_rule_req *q,
                                    struct sc_ec2_sg_rule *r, char *buf, size_t n,
                                    struct sc_error *err)
{
    const char *proto = proto_norm(q->ip_protocol, buf, n);
    uint32_t base;
    int prefix;

    if (!q->ip_protocol || !*q->ip_protocol)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter ipProtocol");
    if (!proto)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "Invalid value '%s' for IP protocol. Unknown protocol.", q->ip_protocol);
    memset(r, 0, sizeof(*r));
    r->ip_protocol = proto;
    r->from_port = r->to_port = -1;
    if (strcmp(proto, "tcp") == 0 || strcmp(proto, "udp") == 0) {
        if (!q->has_from_port || !q->has_to_port)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "Invalid value 'Must specify both from and to ports with TCP/UDP.' for "
                           "portRange.");
        if (q->from_port < 0 || q->to_port > 65535 || q->from_port > q->to_port)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "Invalid TCP/UDP port range");
        r->from_port = q->from_port;
        r->to_port = q->to_port;
    } else if (strcmp(proto, "icmp") == 0 || strcmp(proto, "icmpv6") == 0) {
        r->from_port = q->has_from_port ? q->from_port : -1;
        r->to_port = q->has_to_port ? q->to_port : -1;
        if (r->from_port < -1 || r->from_port > 255 || r->to_port < -1 || r->to_port > 255)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "Invalid value '%d' for ICMP type or code", r->from_port);
    }
    r->peer_kind = q->peer_kind;
    r->peer = q->peer;
    r->peer_user =
        q->peer_kind == SC_EC2_PEER_GROUP ? (q->peer_user ? q->peer_user : ec2->account) : NULL;
    r->description = q->description;
    if (!q->peer || !*q->peer)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter ipPermissions");
    switch (q->peer_kind) {
    case SC_EC2_PEER_CIDR:
        if (ec2_cidr_parse(q->peer, 0, 32, &base, &prefix) < 0)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "CIDR block %s is malformed",
                           q->peer);
        break;
    case SC_EC2_PEER_CIDR6: {
        const char *slash = strchr(q->peer, '/');

        if (!slash || !strchr(q->peer, ':') || atoi(slash + 1) > 128 ||
            strspn(q->peer, "0123456789abcdefABCDEF:") != (size_t)(slash - q->peer))
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "CIDR block %s is malformed",
                           q->peer);
        break;
    }
    case SC_EC2_PEER_GROUP:
        if (!ec2_sg_find(ec2, q->peer))
            return sg_unknown(q->peer, err);
        break;
    case SC_EC2_PEER_PREFIX_LIST:
        break;
    }
    return SC_OK;
}

/* AWS's words for a rule in InvalidPermission.Duplicate. */
static void rule_words(const struct sc_ec2_sg_rule *r, char *out, size_t n)
{
    char up[16];
    size_t i;

    for (i = 0; r->ip_protocol[i] && i < sizeof(up) - 1; i++)
        up[i] = (char)toupper((unsigned char)r->ip_protocol[i]);
    up[i] = '\0';
    if (strcmp(r->ip_protocol, "-1") == 0)
        snprintf(out, n, "peer: %s, ALL, ALLOW", r->peer);
    else
        snprintf(out, n, "peer: %s, %s, from port: %d, to port: %d, ALLOW", r->peer, up,
                 r->from_port, r->to_port);
}

static int rule_index(const struct sg *g, int egress, const struct sc_ec2_sg_rule *r)
{
    const struct sc_ec2_sg_rule *arr = egress ? g->out : g->in;
    int n = egress ? g->nout : g->nin;

    for (int i = 0; i < n; i++) {
        if (rule_same(&arr[i], r))
            return i;
    }
    return -1;
}

enum sc_status sc_ec2_security_group_rules(struct sc_ec2 *ec2, const char *group_id,
                                           const char *group_name, int egress, int revoke,
                                           const struct sc_ec2_sg_rule_req *rules, int nrules,
                                           int64_t now_ms, struct sc_error *err)
{
    struct sc_ec2_sg_rule *rs = NULL;
    char(*bufs)[8] = NULL;
    struct sg *g;
    enum sc_status st;

    (void)now_ms;
    st = sg_lookup(ec2, group_id, egress ? NULL : group_name, &g, err);
    if (st != SC_OK)
        return st;
    if (nrules < 1)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter ipPermissions");
    rs = calloc((size_t)nrules, sizeof(*rs));
    bufs = calloc((size_t)nrules, sizeof(*bufs));
    if (!rs || !bufs) {
        st = sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        goto out;
    }
    for (int i = 0; i < nrules; i++) {
        int at;

        st = rule_from_req(ec2, &rules[i], &rs[i], bufs[i], sizeof(bufs[i]), err);
        if (st != SC_OK)
            goto out;
        at = rule_index(g, egress, &rs[i]);
        for (int j = 0; at < 0 && !revoke && j < i; j++) {
            if (rule_same(&rs[j], &rs[i]))
                at = j; /* twice in one request */
        }
        if (!revoke && at >= 0) {
            char words[256];

            rule_words(&rs[i], words, sizeof(words));
            st = sc_fail(err, SC_ERR_PERMISSION_DUPLICATE,
                         "the specified rule \"%s\" already exists", words);
            goto out;
        }
        if (revoke && at < 0) {
            st = sc_fail(err, SC_ERR_PERMISSION_NOT_FOUND,
                         "The specified rule does not exist in this security group.");
            goto out;
        }
    }
    for (int i = 0; i < nrules; i++) {
        if (revoke) {
            int at = rule_index(g, egress, &rs[i]);

            if (at >= 0)
                rule_del(g, egress, at);
        } else if (ec2_sg_rule_add(g, egress, &rs[i]) < 0) {
            st = sc_fail(err, SC_ERR_INTERNAL, "out of memory");
            goto out;
        }
    }
    st = SC_OK;
out:
    free(rs);
    free(bufs);
    return st;
}

enum sc_status sc_ec2_security_group_ensure(struct sc_ec2 *ec2, const char *vpc_id,
                                            const char *name, const char *description,
                                            const struct sc_ec2_sg_rule_req *ingress, int n,
                                            int64_t now_ms,
                                            const struct sc_ec2_security_group **out,
                                            struct sc_error *err)
{
    const char *parts[3] = { ec2->account, vpc_id, name };
    char id[SC_EC2_ID_LEN];
    struct sg *g;

    *out = NULL;
    if (!ec2_vpc_find(ec2, vpc_id))
        return ec2_vpc_unknown(vpc_id ? vpc_id : "", err);
    g = sg_by_name(ec2, vpc_id, name);
    if (!g) {
        enum sc_status st;

        derived_id(ec2, "sg-", hash_strs(parts, 3), id);
        g = sg_new(ec2, id, vpc_id, name, description);
        if (!g || add_egress_all(g) < 0) {
            if (g)
                sg_drop_last(ec2);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        st = n > 0 ? sc_ec2_security_group_rules(ec2, g->id, NULL, 0, 0, ingress, n, now_ms, err)
                   : SC_OK;
        if (st != SC_OK) {
            sg_drop_last(ec2);
            return st;
        }
    }
    *out = &g->v;
    return SC_OK;
}

/* --- network interfaces ----------------------------------------------------------------------- */

void ec2_eni_free(struct eni *e)
{
    if (!e)
        return;
    sc_strv_free(e->groups, e->ngroups);
    free(e->desc);
    free(e->requester);
    free(e);
}

int sc_ec2_network_interface_count(const struct sc_ec2 *ec2)
{
    return ec2->nenis;
}

const struct sc_ec2_network_interface *sc_ec2_network_interface_at(const struct sc_ec2 *ec2, int i)
{
    return i >= 0 && i < ec2->nenis ? &ec2->enis[i]->v : NULL;
}

const struct sc_ec2_network_interface *sc_ec2_network_interface_find(const struct sc_ec2 *ec2,
                                                                     const char *id)
{
    for (int i = 0; id && i < ec2->nenis; i++) {
        if (strcmp(ec2->enis[i]->id, id) == 0)
            return &ec2->enis[i]->v;
    }
    return NULL;
}

static int eni_holds(const struct sc_ec2 *ec2, const char *id)
{
    return sc_ec2_network_interface_find(ec2, id) != NULL;
}

static enum sc_status eni_unknown(const char *id, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_NETWORK_INTERFACE_NOT_FOUND,
                   "The networkInterface ID '%s' does not exist", id);
}

/* Replaces e's groups with copies of groups[]; 0 or -1 (OOM, e unchanged). */
static int eni_set_groups(struct eni *e, const char *const *groups, int n)
{
    char **v = calloc((size_t)(n > 0 ? n : 1), sizeof(*v));

    if (!v)
        return -1;
    for (int i = 0; i < n; i++) {
        v[i] = sc_strdup(groups[i]);
        if (!v[i]) {
            sc_strv_free(v, i);
            return -1;
        }
    }
    sc_strv_free(e->groups, e->ngroups);
    e->groups = v;
    e->ngroups = n;
    e->v.group_ids = (const char *const *)e->groups;
    e->v.ngroups = n;
    return 0;
}

static struct eni *eni_new(struct sc_ec2 *ec2, const char *desc, const char *requester,
                           const struct subnet *sn, int64_t now_ms)
{
    const char *parts[3] = { ec2->account, desc, sn->id };
    uint64_t h = hash_strs(parts, 3), r;
    uint32_t size = sn->prefix >= 30 ? 4u : 1u << (32 - sn->prefix), ip;
    struct eni *e;

    if (ec2_grow(&ec2->enis, ec2->nenis, &ec2->capenis) < 0)
        return NULL;
    e = calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    e->desc = sc_strdup(desc);
    e->requester = sc_strdup(requester);
    if (!e->desc || !e->requester) {
        ec2_eni_free(e);
        return NULL;
    }
    derived_id(ec2, "eni-", h, e->id);
    r = sc_rng_splitmix64(&h);
    snprintf(e->attach_id, sizeof(e->attach_id), "eni-attach-0%016llx", (unsigned long long)r);
    r = sc_rng_splitmix64(&h);
    ip = sn->base + (size > 5 ? 4 + (uint32_t)(r % (size - 5)) : 1);
    snprintf(e->ip, sizeof(e->ip), "%u.%u.%u.%u", ip >> 24, ip >> 16 & 255, ip >> 8 & 255,
             ip & 255);
    snprintf(e->dns, sizeof(e->dns), "ip-%u-%u-%u-%u.%s%s", ip >> 24, ip >> 16 & 255, ip >> 8 & 255,
             ip & 255, strcmp(ec2->region, "us-east-1") == 0 ? "ec2.internal" : ec2->region,
             strcmp(ec2->region, "us-east-1") == 0 ? "" : ".compute.internal");
    r = sc_rng_splitmix64(&h);
    snprintf(e->mac, sizeof(e->mac), "02:%02x:%02x:%02x:%02x:%02x", (unsigned)(r >> 32 & 255),
             (unsigned)(r >> 24 & 255), (unsigned)(r >> 16 & 255), (unsigned)(r >> 8 & 255),
             (unsigned)(r & 255));
    e->subnet = sn;
    e->v.network_interface_id = e->id;
    e->v.subnet_id = sn->id;
    e->v.vpc_id = sn->vpc->id;
    e->v.availability_zone = sn->zone->name;
    e->v.description = e->desc;
    e->v.owner_id = ec2->account;
    e->v.requester_id = e->requester;
    e->v.status = "in-use";
    e->v.private_ip_address = e->ip;
    e->v.private_dns_name = e->dns;
    e->v.mac_address = e->mac;
    e->v.attachment_id = e->attach_id;
    e->v.instance_owner_id = e->requester;
    e->v.attach_time_ms = now_ms;
    ec2->enis[ec2->nenis++] = e;
    return e;
}

static void eni_del(struct sc_ec2 *ec2, int i)
{
    ec2_eni_free(ec2->enis[i]);
    memmove(&ec2->enis[i], &ec2->enis[i + 1], (size_t)(ec2->nenis - i - 1) * sizeof(ec2->enis[0]));
    ec2->nenis--;
}

enum sc_status sc_ec2_set_managed_interfaces(struct sc_ec2 *ec2, const char *description,
                                             const char *requester_id, const char *const *subnets,
                                             int nsubnets, const char *const *groups, int ngroups,
                                             int64_t now_ms, struct sc_error *err)
{
    if (!description || !requester_id)
        return sc_fail(err, SC_ERR_VALIDATION, "managed interfaces need a description");
    for (int i = 0; i < nsubnets; i++) {
        if (!ec2_subnet_find(ec2, subnets[i]))
            return ec2_subnet_unknown(subnets[i] ? subnets[i] : "", err);
    }
    for (int i = 0; i < ngroups; i++) {
        if (!ec2_sg_find(ec2, groups[i]))
            return sg_unknown(groups[i] ? groups[i] : "", err);
    }
    for (int i = 0; i < ec2->nenis;) {
        struct eni *e = ec2->enis[i];

        if (strcmp(e->desc, description) == 0 && !in_list(subnets, nsubnets, e->subnet->id)) {
            eni_del(ec2, i);
            continue;
        }
        i++;
    }
    for (int i = 0; i < nsubnets; i++) {
        struct eni *e = NULL;

        for (int k = 0; !e && k < ec2->nenis; k++) {
            if (strcmp(ec2->enis[k]->desc, description) == 0 &&
                strcmp(ec2->enis[k]->subnet->id, subnets[i]) == 0)
                e = ec2->enis[k];
        }
        if (!e) {
            e = eni_new(ec2, description, requester_id, ec2_subnet_find(ec2, subnets[i]), now_ms);
            if (!e)
                return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        if (eni_set_groups(e, groups, ngroups) < 0)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    return SC_OK;
}

static int eni_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct eni *e = rec;
    const char *n = f->name;

    if (strcmp(n, "group-id") == 0) {
        for (int i = 0; i < e->ngroups; i++) {
            if (ec2_values_match(f, e->groups[i]))
                return 1;
        }
        return 0;
    }
    if (strcmp(n, "group-name") == 0)
        return 1; /* needs the groups: sc_ec2_describe_network_interfaces checks it */
    return ec2_values_match(f, strcmp(n, "network-interface-id") == 0 ? e->id
                               : strcmp(n, "description") == 0        ? e->desc
                               : strcmp(n, "vpc-id") == 0             ? e->v.vpc_id
                               : strcmp(n, "subnet-id") == 0          ? e->v.subnet_id
                               : strcmp(n, "availability-zone") == 0  ? e->v.availability_zone
                               : strcmp(n, "status") == 0             ? e->v.status
                               : strcmp(n, "requester-id") == 0       ? e->requester
                               : strcmp(n, "requester-managed") == 0  ? "true"
                               : strcmp(n, "owner-id") == 0           ? e->v.owner_id
                               : strcmp(n, "interface-type") == 0     ? "interface"
                               : strcmp(n, "private-ip-address") == 0 ? e->ip
                               : strcmp(n, "mac-address") == 0        ? e->mac
                               : strcmp(n, "attachment.instance-owner-id") == 0 ? e->requester
                               : strcmp(n, "attachment.status") == 0            ? "attached"
                                                                                : e->attach_id);
}

/* The group-name filters: each must match the name of one of e's groups. */
static int group_names_pass(const struct sc_ec2 *ec2, const struct eni *e,
                            const struct sc_ec2_filter *filters, int nfilters)
{
    for (int f = 0; f < nfilters; f++) {
        int hit = 0;

        if (strcmp(filters[f].name, "group-name") != 0)
            continue;
        for (int g = 0; g < e->ngroups; g++) {
            const struct sg *sg = ec2_sg_find(ec2, e->groups[g]);

            hit |= sg && ec2_values_match(&filters[f], sg->name);
        }
        if (!hit)
            return 0;
    }
    return 1;
}

enum sc_status sc_ec2_describe_network_interfaces(const struct sc_ec2 *ec2, const char *const *ids,
                                                  int nids, const struct sc_ec2_filter *filters,
                                                  int nfilters,
                                                  const struct sc_ec2_network_interface **out,
                                                  int *nout, struct sc_error *err)
{
    static const char *const known[] = { "network-interface-id",
                                         "description",
                                         "vpc-id",
                                         "subnet-id",
                                         "availability-zone",
                                         "group-id",
                                         "group-name",
                                         "status",
                                         "requester-id",
                                         "requester-managed",
                                         "owner-id",
                                         "interface-type",
                                         "private-ip-address",
                                         "mac-address",
                                         "attachment.instance-owner-id",
                                         "attachment.status",
                                         "attachment.attachment-id",
                                         NULL };
    static const struct kind k = { known, 0, eni_holds, eni_unknown };
    enum sc_status st;

    *nout = 0;
    for (int i = 0; i < nids; i++) {
        if (!ec2_id_valid(ids[i], "eni-"))
            return sc_fail(err, SC_ERR_NETWORK_INTERFACE_MALFORMED,
                           "Invalid id: \"%s\" (expecting \"eni-...\")", ids[i] ? ids[i] : "");
    }
    st = ec2_describe_check(ec2, &k, ids, nids, filters, nfilters, nout, err);
    for (int i = 0; st == SC_OK && i < ec2->nenis; i++) {
        const struct eni *e = ec2->enis[i];

        if (ec2_listed(ids, nids, e->id) &&
            ec2_filters_pass(eni_match, e, NULL, filters, nfilters) &&
            group_names_pass(ec2, e, filters, nfilters))
            out[(*nout)++] = &e->v;
    }
    return st;
}
