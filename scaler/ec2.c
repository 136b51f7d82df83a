/* scaler/ec2.c: see ec2.h. */
#include "scaler/ec2.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/civil.h"
#include "scaler/rec.h"
#include "scaler/rng.h"
#include "scaler/save.h"

#define DEFAULT_ACCOUNT       "123456789012"
#define DEFAULT_REGION        "us-east-1"
#define MAX_ZONES             16 /* the default VPC has room for 16 /20 subnets */
#define DEFAULT_RETENTION_MS  3600000
#define DEFAULT_MAX_INSTANCES 10000
#define LT_NAME_MAX           128

/* --- small helpers ---------------------------------------------------------------------------- */

/* Copies optional string src into *dst; 0, or -1 on OOM (then *dst is NULL). */
static int sdup_opt(char **dst, const char *src)
{
    *dst = NULL;
    if (!src)
        return 0;
    *dst = sdup(src);
    return *dst ? 0 : -1;
}

static int is_hex_lower(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    }
    return 1;
}

/* prefix + (8 or 17) lower-case hex. */
static int id_valid(const char *s, const char *prefix)
{
    size_t pl, n;

    if (!s)
        return 0;
    pl = strlen(prefix);
    if (strncmp(s, prefix, pl) != 0)
        return 0;
    n = strlen(s + pl);
    return (n == 8 || n == 17) && is_hex_lower(s + pl, n);
}

/* AWS's glob: '*' any run, '?' one character. */
static int glob_match(const char *p, const char *s)
{
    const char *star = NULL, *mark = NULL;

    while (*s) {
        if (*p == '?' || (*p && *p != '*' && *p == *s)) {
            p++;
            s++;
        } else if (*p == '*') {
            star = p++;
            mark = s;
        } else if (star) {
            p = star + 1;
            s = ++mark;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

/* Any of the filter's values matches v (NULL v never matches). */
static int values_match(const struct sc_ec2_filter *f, const char *v)
{
    if (!v)
        return 0;
    for (int i = 0; i < f->nvalues; i++) {
        if (f->values[i] && glob_match(f->values[i], v))
            return 1;
    }
    return 0;
}

static int name_in(const char *name, const char *const *list)
{
    for (int i = 0; list[i]; i++) {
        if (strcmp(name, list[i]) == 0)
            return 1;
    }
    return 0;
}

/* Checks every filter name is known (tag:K always is when tags is set). */
static enum sc_status check_filters(const struct sc_ec2_filter *f, int n, const char *const *known,
                                    int tags, struct sc_error *err)
{
    for (int i = 0; i < n; i++) {
        const char *name = f[i].name ? f[i].name : "";

        if (name_in(name, known))
            continue;
        if (tags && (strncmp(name, "tag:", 4) == 0 || strcmp(name, "tag-key") == 0 ||
                     strcmp(name, "tag-value") == 0))
            continue;
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "The filter '%s' is invalid", name);
    }
    return SC_OK;
}

/* "2026-01-01 00:05:00 GMT" */
static void format_gmt(char *out, size_t n, int64_t ms)
{
    struct sc_civil c;

    sc_civil_from_ms(ms, &c);
    snprintf(out, n, "%04d-%02d-%02d %02d:%02d:%02d GMT", c.year, c.month, c.day, c.hour, c.minute,
             c.second);
}

/* --- tags ------------------------------------------------------------------------------------- */

struct tagset {
    struct sc_ec2_tag *v; /* key/value strings owned (allocated) */
    int n, cap;
};

static void tagset_free(struct tagset *t)
{
    for (int i = 0; i < t->n; i++) {
        free((char *)t->v[i].key);
        free((char *)t->v[i].value);
    }
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
}

static int tagset_find(const struct tagset *t, const char *key)
{
    for (int i = 0; i < t->n; i++) {
        if (strcmp(t->v[i].key, key) == 0)
            return i;
    }
    return -1;
}

/* Sets key=value (value NULL -> ""); 0 or -1 on OOM (set unchanged). */
static int tagset_set(struct tagset *t, const char *key, const char *value)
{
    int i = tagset_find(t, key);
    char *v = sdup(value ? value : "");

    if (!v)
        return -1;
    if (i >= 0) {
        free((char *)t->v[i].value);
        t->v[i].value = v;
        return 0;
    }
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 4;
        struct sc_ec2_tag *nv = realloc(t->v, (size_t)cap * sizeof(*nv));

        if (!nv)
            goto fail;
        t->v = nv;
        t->cap = cap;
    }
    t->v[t->n].key = sdup(key);
    if (!t->v[t->n].key)
        goto fail;
    t->v[t->n].value = v;
    t->n++;
    return 0;

fail:
    free(v);
    return -1;
}

/* Deletes key when value is NULL or equal. */
static void tagset_del(struct tagset *t, const char *key, const char *value)
{
    int i = tagset_find(t, key);

    if (i < 0)
        return;
    if (value && strcmp(t->v[i].value, value) != 0)
        return;
    free((char *)t->v[i].key);
    free((char *)t->v[i].value);
    memmove(&t->v[i], &t->v[i + 1], (size_t)(t->n - i - 1) * sizeof(t->v[0]));
    t->n--;
}

static int tagset_copy(struct tagset *dst, const struct sc_ec2_tag *tags, int n)
{
    for (int i = 0; i < n; i++) {
        if (tagset_set(dst, tags[i].key, tags[i].value) < 0)
            return -1;
    }
    return 0;
}

/* tag:K, tag-key, tag-value filters; -1 when the filter is not a tag filter. */
static int tags_filter(const struct tagset *t, const struct sc_ec2_filter *f)
{
    if (strncmp(f->name, "tag:", 4) == 0) {
        int i = tagset_find(t, f->name + 4);

        return i >= 0 && values_match(f, t->v[i].value);
    }
    if (strcmp(f->name, "tag-key") == 0) {
        for (int i = 0; i < t->n; i++) {
            if (values_match(f, t->v[i].key))
                return 1;
        }
        return 0;
    }
    if (strcmp(f->name, "tag-value") == 0) {
        for (int i = 0; i < t->n; i++) {
            if (values_match(f, t->v[i].value))
                return 1;
        }
        return 0;
    }
    return -1;
}

static enum sc_status check_tags(const struct sc_ec2_tag *tags, int n, int allow_aws,
                                 struct sc_error *err)
{
    for (int i = 0; i < n; i++) {
        const char *k = tags[i].key;
        const char *v = tags[i].value ? tags[i].value : "";

        if (!k || !*k)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "Tag key cannot be null or empty");
        if (strlen(k) > 128)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "Tag key exceeds the maximum length of 128 characters");
        if (strlen(v) > 256)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "Tag value exceeds the maximum length of 256 characters");
        if (!allow_aws && strncmp(k, "aws:", 4) == 0)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "Tag keys starting with 'aws:' are reserved for internal use");
    }
    return SC_OK;
}

/* --- Describe calls: what they share ---------------------------------------------------------- */

/* A record with id s is asked for: the list is empty (all are) or names it. */
static int listed(const char *const *ids, int nids, const char *s)
{
    return nids == 0 || in_list(ids, nids, s);
}

/* Whether record rec meets filter f, f being one of its kind's known (non-tag) names. */
typedef int filter_fn(const void *rec, const struct sc_ec2_filter *f);

/* Filters are ANDed (values within one are ORed, see values_match). Tag filters go to the
 * record's tags (NULL: a kind without tags, whose calls reject tag filters up front). */
static int filters_pass(filter_fn *match, const void *rec, const struct tagset *tags,
                        const struct sc_ec2_filter *filters, int nfilters)
{
    for (int j = 0; j < nfilters; j++) {
        int t = tags ? tags_filter(tags, &filters[j]) : -1;

        if (!(t >= 0 ? t : match(rec, &filters[j])))
            return 0;
    }
    return 1;
}

/* A record kind as its Describe call checks a request: the filter names it knows, whether
 * tag filters apply, whether it holds an id, and its error for an id it does not hold. */
struct kind {
    const char *const *known; /* NULL-ended */
    int tags;
    int (*holds)(const struct sc_ec2 *ec2, const char *id);
    enum sc_status (*unknown)(const char *id, struct sc_error *err);
};

/* How every Describe call starts: no rows yet, every filter name known, then every id
 * asked for held (the first one that is not gives the kind's error, as AWS checks ids
 * before it lists anything). */
static enum sc_status describe_check(const struct sc_ec2 *ec2, const struct kind *k,
                                     const char *const *ids, int nids,
                                     const struct sc_ec2_filter *filters, int nfilters, int *nout,
                                     struct sc_error *err)
{
    enum sc_status st;

    *nout = 0;
    st = check_filters(filters, nfilters, k->known, k->tags, err);
    for (int i = 0; st == SC_OK && i < nids; i++) {
        if (!k->holds(ec2, ids[i]))
            st = k->unknown(ids[i] ? ids[i] : "", err);
    }
    return st;
}

/* --- records ---------------------------------------------------------------------------------- */

struct zone {
    struct sc_ec2_zone v;
    char name[64];
    char id[48];
    int available;
};

struct vpc {
    struct sc_ec2_vpc v;
    struct sc_ec2_security_group sg;
    char sg_id[SC_EC2_ID_LEN];
    char id[SC_EC2_ID_LEN];
    char cidr[20];
    char dhcp[SC_EC2_ID_LEN];
    uint32_t base;
    int prefix;
    struct tagset tags;
};

struct subnet {
    struct sc_ec2_subnet v;
    char id[SC_EC2_ID_LEN];
    char cidr[20];
    char *arn;
    uint32_t base;
    int prefix;
    const struct zone *zone;
    const struct vpc *vpc;
    struct tagset tags;
};

struct resv;

struct inst {
    struct sc_ec2_instance v;
    char id[SC_EC2_ID_LEN];
    char transition[64];
    char dns[64];
    char *instance_type, *image_id, *key_name, *user_data, *lc_name, *lt_id, *lt_name;
    struct tagset tags;
    struct resv *resv;
    struct subnet *subnet;
    int64_t checks_ok_at_ms; /* when initializing turns ok */
};

struct resv {
    struct sc_ec2_reservation v;
    char id[SC_EC2_ID_LEN];
    const struct sc_ec2_instance **members;
    int n;
};

struct ltver {
    struct sc_ec2_lt_version v;
    char *desc;
    char *image_id, *instance_type, *key_name, *user_data;
    char **sgs;
    int nsgs;
    struct tagset tags;
};

struct lt {
    struct sc_ec2_launch_template v;
    char id[SC_EC2_ID_LEN];
    char *name;
    char *created_by;
    struct tagset tags;
    struct ltver **vers; /* version k at vers[k - 1] */
    int nvers, capvers;
};

struct sc_ec2 {
    char account[32];
    char region[32];
    uint64_t (*rand64)(void *ud);
    void *rand_ud;
    struct sc_rng rng;
    int64_t retention_ms;
    int64_t status_init_ms;
    int max_instances;
    int strict_images;
    int placement_rr;

    struct zone zones[MAX_ZONES];
    const struct sc_ec2_zone *zone_views[MAX_ZONES];
    int nzones;

    struct vpc **vpcs;
    int nvpcs, capvpcs;
    struct subnet **subnets;
    int nsubnets, capsubnets;

    struct inst **insts;
    int ninsts, capinsts;
    /* id -> instance, open addressing with linear probing; power-of-two size, at most
     * half full (sized when instances are created, so lookups and removals never allocate) */
    struct inst **index;
    size_t index_cap;
    struct resv **resvs;
    int nresvs, capresvs;

    struct lt **lts;
    int nlts, caplts;
    uint64_t generation; /* sc_ec2_generation(): bumped by every change to an instance record */
};

static uint64_t next_rand(struct sc_ec2 *ec2)
{
    if (ec2->rand64)
        return ec2->rand64(ec2->rand_ud);
    return sc_rng_next(&ec2->rng);
}

/* Grows a pointer array to hold one more; 0 or -1. */
static int grow(void *arrp, int n, int *cap)
{
    void ***arr = arrp;
    void **nv;
    int nc;

    if (n < *cap)
        return 0;
    nc = *cap ? *cap * 2 : 8;
    nv = realloc(*arr, (size_t)nc * sizeof(void *));
    if (!nv)
        return -1;
    *arr = nv;
    *cap = nc;
    return 0;
}

static const struct inst *inst_get(const struct sc_ec2 *ec2, const char *id);
static const struct vpc *vpc_get(const struct sc_ec2 *ec2, const char *id);
static const struct subnet *subnet_get(const struct sc_ec2 *ec2, const char *id);
static const struct lt *lt_get_id(const struct sc_ec2 *ec2, const char *id);

/* prefix + "0" + 16 hex, unique among the ids this struct holds. */
static void make_id(struct sc_ec2 *ec2, const char *prefix, char out[SC_EC2_ID_LEN])
{
    for (;;) {
        uint64_t r = next_rand(ec2);

        snprintf(out, SC_EC2_ID_LEN, "%s0%016llx", prefix, (unsigned long long)r);
        if (!inst_get(ec2, out) && !vpc_get(ec2, out) && !subnet_get(ec2, out) &&
            !lt_get_id(ec2, out))
            return;
    }
}

const char *sc_ec2_state_name(enum sc_ec2_state s)
{
    switch (s) {
    case SC_EC2_PENDING:
        return "pending";
    case SC_EC2_RUNNING:
        return "running";
    case SC_EC2_SHUTTING_DOWN:
        return "shutting-down";
    case SC_EC2_TERMINATED:
        return "terminated";
    case SC_EC2_STOPPING:
        return "stopping";
    case SC_EC2_STOPPED:
        return "stopped";
    }
    return "";
}

int sc_ec2_state_parse(const char *name)
{
    static const enum sc_ec2_state all[] = { SC_EC2_PENDING,       SC_EC2_RUNNING,
                                             SC_EC2_SHUTTING_DOWN, SC_EC2_TERMINATED,
                                             SC_EC2_STOPPING,      SC_EC2_STOPPED };

    for (size_t i = 0; name && i < sizeof(all) / sizeof(all[0]); i++) {
        if (strcmp(name, sc_ec2_state_name(all[i])) == 0)
            return (int)all[i];
    }
    return -1;
}

const char *sc_ec2_check_name(enum sc_ec2_check c)
{
    switch (c) {
    case SC_EC2_CHECK_NOT_APPLICABLE:
        return "not-applicable";
    case SC_EC2_CHECK_INITIALIZING:
        return "initializing";
    case SC_EC2_CHECK_OK:
        return "ok";
    case SC_EC2_CHECK_IMPAIRED:
        return "impaired";
    }
    return "";
}

/* --- CIDR ------------------------------------------------------------------------------------- */

/* "a.b.c.d/n" with n in lo..hi and no host bits set; 0 or -1. */
static int cidr_parse(const char *s, int lo, int hi, uint32_t *base, int *prefix)
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

/* --- create / destroy --------------------------------------------------------------------------
 */

static void zone_id_make(const char *region, int index, char *out, size_t n)
{
    char abbrev[24];
    size_t k = 0;
    int part = 0;

    /* us-east-1 -> use1, ap-southeast-2 -> apse2, eu-north-1 -> eun1 */
    for (const char *p = region; *p && k < 16; part++) {
        const char *dash = strchr(p, '-');
        size_t len = dash ? (size_t)(dash - p) : strlen(p);

        if (part == 0 || !dash) {
            for (size_t i = 0; i < len && k < 16; i++)
                abbrev[k++] = p[i];
        } else {
            abbrev[k++] = p[0];
            if (len > 5 && (strncmp(p, "north", 5) == 0 || strncmp(p, "south", 5) == 0))
                abbrev[k++] = p[5];
        }
        if (!dash)
            break;
        p = dash + 1;
    }
    abbrev[k] = '\0';
    snprintf(out, n, "%s-az%d", abbrev, index + 1);
}

static struct vpc *vpc_new(struct sc_ec2 *ec2, uint32_t base, int prefix, int is_default);
static struct subnet *subnet_new(struct sc_ec2 *ec2, const struct vpc *vpc, uint32_t base,
                                 int prefix, const struct zone *z, int is_default);

struct sc_ec2 *sc_ec2_create(const struct sc_ec2_config *cfg)
{
    struct sc_ec2 *ec2;
    const char *account = cfg && cfg->account_id ? cfg->account_id : DEFAULT_ACCOUNT;
    const char *region = cfg && cfg->region ? cfg->region : DEFAULT_REGION;
    int nz = cfg && cfg->zones ? cfg->nzones : 0;
    struct vpc *dv;

    if (!*account || !*region || strlen(account) >= 32 || strlen(region) >= 32 || nz < 0 ||
        nz > MAX_ZONES)
        return NULL;
    ec2 = calloc(1, sizeof(*ec2));
    if (!ec2)
        return NULL;
    ec2->generation = 1;
    snprintf(ec2->account, sizeof(ec2->account), "%s", account);
    snprintf(ec2->region, sizeof(ec2->region), "%s", region);
    if (cfg) {
        ec2->rand64 = cfg->rand64;
        ec2->rand_ud = cfg->rand_ud;
        ec2->retention_ms = cfg->terminated_retention_ms;
        ec2->status_init_ms = cfg->status_init_ms;
        ec2->max_instances = cfg->max_instances;
        ec2->strict_images = cfg->strict_images;
    }
    sc_rng_init(&ec2->rng, cfg ? cfg->seed : 0);
    if (ec2->retention_ms <= 0)
        ec2->retention_ms = DEFAULT_RETENTION_MS;
    if (ec2->status_init_ms < 0)
        ec2->status_init_ms = 0;
    if (ec2->max_instances <= 0)
        ec2->max_instances = DEFAULT_MAX_INSTANCES;

    if (nz == 0)
        nz = 3;
    for (int i = 0; i < nz; i++) {
        struct zone *z = &ec2->zones[i];
        const char *name = cfg && cfg->zones && cfg->nzones ? cfg->zones[i] : NULL;

        if (cfg && cfg->zones && cfg->nzones) {
            if (!name || !*name || strlen(name) >= sizeof(z->name))
                goto fail;
            for (int j = 0; j < i; j++) {
                if (strcmp(ec2->zones[j].name, name) == 0)
                    goto fail;
            }
            snprintf(z->name, sizeof(z->name), "%s", name);
        } else {
            snprintf(z->name, sizeof(z->name), "%s%c", region, 'a' + i);
        }
        zone_id_make(region, i, z->id, sizeof(z->id));
        z->available = 1;
        z->v.zone_name = z->name;
        z->v.zone_id = z->id;
        z->v.region_name = ec2->region;
        z->v.state = "available";
        ec2->zone_views[i] = &z->v;
    }
    ec2->nzones = nz;

    dv = vpc_new(ec2, 0xac1f0000u, 16, 1); /* 172.31.0.0/16 */
    if (!dv)
        goto fail;
    for (int i = 0; i < nz; i++) {
        if (!subnet_new(ec2, dv, 0xac1f0000u | (uint32_t)(i * 16) << 8, 20, &ec2->zones[i], 1))
            goto fail;
    }
    return ec2;

fail:
    sc_ec2_destroy(ec2);
    return NULL;
}

static void inst_free(struct inst *in)
{
    if (!in)
        return;
    free(in->instance_type);
    free(in->image_id);
    free(in->key_name);
    free(in->user_data);
    free(in->lc_name);
    free(in->lt_id);
    free(in->lt_name);
    tagset_free(&in->tags);
    free(in);
}

static void ltver_free(struct ltver *v)
{
    if (!v)
        return;
    free(v->desc);
    free(v->image_id);
    free(v->instance_type);
    free(v->key_name);
    free(v->user_data);
    for (int i = 0; i < v->nsgs; i++)
        free(v->sgs[i]);
    free(v->sgs);
    tagset_free(&v->tags);
    free(v);
}

static void lt_free(struct lt *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nvers; i++)
        ltver_free(t->vers[i]);
    free(t->vers);
    free(t->name);
    free(t->created_by);
    tagset_free(&t->tags);
    free(t);
}

static void resv_free(struct resv *r)
{
    if (!r)
        return;
    free(r->members);
    free(r);
}

static void subnet_free(struct subnet *sn)
{
    if (!sn)
        return;
    tagset_free(&sn->tags);
    free(sn->arn);
    free(sn);
}

static void vpc_free(struct vpc *v)
{
    if (!v)
        return;
    tagset_free(&v->tags);
    free(v);
}

/* The record lists of an ec2, apart: what a load builds before it replaces the (fresh)
 * records, and what destroy frees. */
struct recs {
    struct vpc **vpcs;
    int nvpcs;
    struct subnet **subnets;
    int nsubnets;
    struct inst **insts;
    int ninsts;
    struct resv **resvs;
    int nresvs;
    struct lt **lts;
    int nlts;
};

static struct recs recs_of(const struct sc_ec2 *ec2)
{
    return (struct recs){ ec2->vpcs,   ec2->nvpcs, ec2->subnets, ec2->nsubnets, ec2->insts,
                          ec2->ninsts, ec2->resvs, ec2->nresvs,  ec2->lts,      ec2->nlts };
}

static void recs_free(struct recs *d)
{
    for (int i = 0; i < d->ninsts; i++)
        inst_free(d->insts[i]);
    free(d->insts);
    for (int i = 0; i < d->nresvs; i++)
        resv_free(d->resvs[i]);
    free(d->resvs);
    for (int i = 0; i < d->nlts; i++)
        lt_free(d->lts[i]);
    free(d->lts);
    for (int i = 0; i < d->nsubnets; i++)
        subnet_free(d->subnets[i]);
    free(d->subnets);
    for (int i = 0; i < d->nvpcs; i++)
        vpc_free(d->vpcs[i]);
    free(d->vpcs);
    memset(d, 0, sizeof(*d));
}

void sc_ec2_destroy(struct sc_ec2 *ec2)
{
    struct recs r;

    if (!ec2)
        return;
    r = recs_of(ec2);
    recs_free(&r);
    free(ec2->index);
    free(ec2);
}

const char *sc_ec2_account_id(const struct sc_ec2 *ec2)
{
    return ec2->account;
}

const char *sc_ec2_region(const struct sc_ec2 *ec2)
{
    return ec2->region;
}

/* --- zones ------------------------------------------------------------------------------------ */

int sc_ec2_zone_count(const struct sc_ec2 *ec2)
{
    return ec2->nzones;
}

const struct sc_ec2_zone *sc_ec2_zone_at(const struct sc_ec2 *ec2, int i)
{
    if (i < 0 || i >= ec2->nzones)
        return NULL;
    return &ec2->zones[i].v;
}

static const struct zone *zone_get(const struct sc_ec2 *ec2, const char *name)
{
    for (int i = 0; name && i < ec2->nzones; i++) {
        if (strcmp(ec2->zones[i].name, name) == 0)
            return &ec2->zones[i];
    }
    return NULL;
}

const struct sc_ec2_zone *sc_ec2_zone_find(const struct sc_ec2 *ec2, const char *zone_name)
{
    const struct zone *z = zone_get(ec2, zone_name);

    return z ? &z->v : NULL;
}

static int zone_holds(const struct sc_ec2 *ec2, const char *name)
{
    return zone_get(ec2, name) != NULL;
}

static enum sc_status zone_unknown(const char *name, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "Invalid availability zone: [%s]", name);
}

static int zone_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct sc_ec2_zone *z = rec;

    return values_match(f, strcmp(f->name, "zone-name") == 0 ? z->zone_name
                           : strcmp(f->name, "zone-id") == 0 ? z->zone_id
                           : strcmp(f->name, "state") == 0   ? z->state
                                                             : z->region_name);
}

enum sc_status sc_ec2_describe_zones(const struct sc_ec2 *ec2, const char *const *names, int nnames,
                                     const struct sc_ec2_filter *filters, int nfilters,
                                     const struct sc_ec2_zone **out, int *nout,
                                     struct sc_error *err)
{
    static const char *const known[] = { "zone-name", "zone-id", "state", "region-name", NULL };
    static const struct kind k = { known, 0, zone_holds, zone_unknown };
    enum sc_status st = describe_check(ec2, &k, names, nnames, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < ec2->nzones; i++) {
        const struct sc_ec2_zone *z = &ec2->zones[i].v;

        if (listed(names, nnames, z->zone_name) &&
            filters_pass(zone_match, z, NULL, filters, nfilters))
            out[(*nout)++] = z;
    }
    return st;
}

int sc_ec2_zone_set_available(struct sc_ec2 *ec2, const char *zone_name, int available)
{
    struct zone *z = (struct zone *)zone_get(ec2, zone_name);

    if (!z)
        return -1;
    z->available = available != 0;
    z->v.state = z->available ? "available" : "impaired";
    return 0;
}

int sc_ec2_zone_outage(struct sc_ec2 *ec2, const char *zone_name, int64_t now_ms, const char **ids,
                       int cap)
{
    int n = 0;

    if (sc_ec2_zone_set_available(ec2, zone_name, 0) < 0)
        return -1;
    for (int i = 0; i < ec2->ninsts; i++) {
        struct inst *in = ec2->insts[i];

        if ((in->v.state != SC_EC2_PENDING && in->v.state != SC_EC2_RUNNING) ||
            !in->v.availability_zone || strcmp(in->v.availability_zone, zone_name) != 0)
            continue;
        sc_ec2_instance_lost(ec2, in->v.instance_id, now_ms);
        if (n < cap)
            ids[n] = in->v.instance_id;
        n++;
    }
    return n;
}

/* --- catalogue -------------------------------------------------------------------------------- */

/* Sorted by name (strcmp). */
static const struct sc_ec2_instance_type types[] = {
    { "c5.2xlarge", 8, 16384, 4, "x86_64", 0, 1 }, { "c5.large", 2, 4096, 1, "x86_64", 0, 1 },
    { "c5.xlarge", 4, 8192, 2, "x86_64", 0, 1 },   { "m1.large", 2, 7680, 2, "x86_64", 0, 0 },
    { "m1.medium", 1, 3788, 1, "x86_64", 0, 0 },   { "m1.small", 1, 1740, 1, "x86_64", 0, 0 },
    { "m1.xlarge", 4, 15360, 4, "x86_64", 0, 0 },  { "m5.2xlarge", 8, 32768, 4, "x86_64", 0, 1 },
    { "m5.large", 2, 8192, 1, "x86_64", 0, 1 },    { "m5.xlarge", 4, 16384, 2, "x86_64", 0, 1 },
    { "t2.medium", 2, 4096, 2, "x86_64", 1, 1 },   { "t2.micro", 1, 1024, 1, "x86_64", 1, 1 },
    { "t2.nano", 1, 512, 1, "x86_64", 1, 1 },      { "t2.small", 1, 2048, 1, "x86_64", 1, 1 },
    { "t3.large", 2, 8192, 1, "x86_64", 1, 1 },    { "t3.medium", 2, 4096, 1, "x86_64", 1, 1 },
    { "t3.micro", 2, 1024, 1, "x86_64", 1, 1 },    { "t3.nano", 2, 512, 1, "x86_64", 1, 1 },
    { "t3.small", 2, 2048, 1, "x86_64", 1, 1 },
};
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))

int sc_ec2_instance_type_count(void)
{
    return NTYPES;
}

const struct sc_ec2_instance_type *sc_ec2_instance_type_at(int i)
{
    return i >= 0 && i < NTYPES ? &types[i] : NULL;
}

const struct sc_ec2_instance_type *sc_ec2_instance_type_find(const char *name)
{
    for (int i = 0; name && i < NTYPES; i++) {
        if (strcmp(types[i].instance_type, name) == 0)
            return &types[i];
    }
    return NULL;
}

static int type_holds(const struct sc_ec2 *ec2, const char *name)
{
    (void)ec2;
    return sc_ec2_instance_type_find(name) != NULL;
}

static enum sc_status type_unknown(const char *name, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_INVALID_INSTANCE_TYPE,
                   "The following supplied instance types do not exist: [%s]", name);
}

static int type_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct sc_ec2_instance_type *t = rec;
    char vcpus[16];

    snprintf(vcpus, sizeof(vcpus), "%d", t->vcpus);
    return values_match(f, strcmp(f->name, "instance-type") == 0 ? t->instance_type
                           : strcmp(f->name, "vcpu-info.default-vcpus") == 0
                               ? vcpus
                               : (t->current_generation ? "true" : "false"));
}

enum sc_status sc_ec2_describe_instance_types(const char *const *names, int nnames,
                                              const struct sc_ec2_filter *filters, int nfilters,
                                              const struct sc_ec2_instance_type **out, int *nout,
                                              struct sc_error *err)
{
    static const char *const known[] = { "instance-type", "vcpu-info.default-vcpus",
                                         "current-generation", NULL };
    static const struct kind k = { known, 0, type_holds, type_unknown };
    enum sc_status st = describe_check(NULL, &k, names, nnames, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < NTYPES; i++) {
        const struct sc_ec2_instance_type *t = &types[i];

        if (listed(names, nnames, t->instance_type) &&
            filters_pass(type_match, t, NULL, filters, nfilters))
            out[(*nout)++] = t;
    }
    return st;
}

static const struct sc_ec2_image images[] = {
    { "ami-0c02fb55956c7d316", "amzn2-ami-kernel-5.10-hvm-2.0.20220606.1-x86_64-gp2",
      "Amazon Linux 2 Kernel 5.10 AMI 2.0.20220606.1 x86_64 HVM gp2", "x86_64", "137112412989",
      "amazon", "Linux/UNIX", "/dev/xvda", "2022-06-09T00:00:00.000Z" },
    { "ami-0e2c8caa4b6378d8c", "ubuntu/images/hvm-ssd/ubuntu-noble-24.04-amd64-server-20241109",
      "Canonical, Ubuntu, 24.04, amd64 noble image", "x86_64", "099720109477", NULL, "Linux/UNIX",
      "/dev/sda1", "2024-11-09T00:00:00.000Z" },
    { "ami-0fff1b9a61dec8a5f", "al2023-ami-2023.6.20241121.0-kernel-6.1-x86_64",
      "Amazon Linux 2023 AMI 2023.6.20241121.0 x86_64 HVM kernel-6.1", "x86_64", "137112412989",
      "amazon", "Linux/UNIX", "/dev/xvda", "2024-11-21T00:00:00.000Z" },
    { "ami-12c6146b", "amzn-ami-hvm-2016.09.0.20160923-x86_64-gp2",
      "Amazon Linux AMI 2016.09.0.20160923 x86_64 HVM GP2", "x86_64", "137112412989", "amazon",
      "Linux/UNIX", "/dev/xvda", "2016-09-23T00:00:00.000Z" },
};
#define NIMAGES ((int)(sizeof(images) / sizeof(images[0])))

int sc_ec2_image_count(void)
{
    return NIMAGES;
}

const struct sc_ec2_image *sc_ec2_image_at(int i)
{
    return i >= 0 && i < NIMAGES ? &images[i] : NULL;
}

const struct sc_ec2_image *sc_ec2_image_find(const char *image_id)
{
    for (int i = 0; image_id && i < NIMAGES; i++) {
        if (strcmp(images[i].image_id, image_id) == 0)
            return &images[i];
    }
    return NULL;
}

static enum sc_status check_image(const char *id, struct sc_error *err)
{
    if (!id_valid(id, "ami-"))
        return sc_fail(err, SC_ERR_AMI_ID_MALFORMED, "Invalid id: \"%s\" (expecting \"ami-...\")",
                       id ? id : "");
    return SC_OK;
}

static int image_holds(const struct sc_ec2 *ec2, const char *id)
{
    (void)ec2;
    return sc_ec2_image_find(id) != NULL;
}

/* An id not in the catalogue: malformed, or well-formed and unknown. */
static enum sc_status image_unknown(const char *id, struct sc_error *err)
{
    enum sc_status st = check_image(id, err);

    if (st != SC_OK)
        return st;
    return sc_fail(err, SC_ERR_AMI_ID_NOT_FOUND, "The image id '[%s]' does not exist", id);
}

static int image_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct sc_ec2_image *im = rec;

    return values_match(f, strcmp(f->name, "image-id") == 0       ? im->image_id
                           : strcmp(f->name, "name") == 0         ? im->name
                           : strcmp(f->name, "architecture") == 0 ? im->architecture
                           : strcmp(f->name, "owner-id") == 0     ? im->owner_id
                                                                  : im->owner_alias);
}

enum sc_status sc_ec2_describe_images(const char *const *ids, int nids,
                                      const struct sc_ec2_filter *filters, int nfilters,
                                      const struct sc_ec2_image **out, int *nout,
                                      struct sc_error *err)
{
    static const char *const known[] = { "image-id",    "name",     "architecture",
                                         "owner-alias", "owner-id", NULL };
    static const struct kind k = { known, 0, image_holds, image_unknown };
    enum sc_status st = describe_check(NULL, &k, ids, nids, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < NIMAGES; i++) {
        const struct sc_ec2_image *im = &images[i];

        if (listed(ids, nids, im->image_id) &&
            filters_pass(image_match, im, NULL, filters, nfilters))
            out[(*nout)++] = im;
    }
    return st;
}

/* --- VPCs and subnets ------------------------------------------------------------------------- */

static void vpc_sync(struct vpc *v)
{
    v->v.tags = v->tags.v;
    v->v.ntags = v->tags.n;
}

static void subnet_sync(struct subnet *s)
{
    s->v.tags = s->tags.v;
    s->v.ntags = s->tags.n;
}

/* Points a VPC's views (its own and its default security group's) at its fields, for a
 * new VPC and a loaded one alike. */
static void vpc_link(const struct sc_ec2 *ec2, struct vpc *v)
{
    v->v.vpc_id = v->id;
    v->v.cidr_block = v->cidr;
    v->v.state = "available";
    v->v.owner_id = ec2->account;
    v->v.dhcp_options_id = v->dhcp;
    v->v.instance_tenancy = "default";
    v->sg.group_id = v->sg_id;
    v->sg.group_name = "default";
    v->sg.description = "default VPC security group";
    v->sg.vpc_id = v->id;
    v->sg.owner_id = ec2->account;
    vpc_sync(v);
}

/* The same for a subnet whose vpc and zone are set. */
static void subnet_link(const struct sc_ec2 *ec2, struct subnet *s)
{
    s->v.subnet_id = s->id;
    s->v.subnet_arn = s->arn;
    s->v.vpc_id = s->vpc->id;
    s->v.cidr_block = s->cidr;
    s->v.availability_zone = s->zone->name;
    s->v.availability_zone_id = s->zone->id;
    s->v.state = "available";
    s->v.owner_id = ec2->account;
    subnet_sync(s);
}

static struct vpc *vpc_new(struct sc_ec2 *ec2, uint32_t base, int prefix, int is_default)
{
    struct vpc *v;

    if (grow(&ec2->vpcs, ec2->nvpcs, &ec2->capvpcs) < 0)
        return NULL;
    v = calloc(1, sizeof(*v));
    if (!v)
        return NULL;
    make_id(ec2, "vpc-", v->id);
    make_id(ec2, "dopt-", v->dhcp);
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
    vpc_link(ec2, v);
    ec2->vpcs[ec2->nvpcs++] = v;
    return v;
}

static struct subnet *subnet_new(struct sc_ec2 *ec2, const struct vpc *vpc, uint32_t base,
                                 int prefix, const struct zone *z, int is_default)
{
    struct subnet *s;
    char arn[160];

    if (grow(&ec2->subnets, ec2->nsubnets, &ec2->capsubnets) < 0)
        return NULL;
    s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    make_id(ec2, "subnet-", s->id);
    snprintf(arn, sizeof(arn), "arn:aws:ec2:%s:%s:subnet/%s", ec2->region, ec2->account, s->id);
    s->arn = sdup(arn);
    if (!s->arn) {
        free(s);
        return NULL;
    }
    cidr_format(s->cidr, sizeof(s->cidr), base, prefix);
    s->base = base;
    s->prefix = prefix;
    s->zone = z;
    s->vpc = vpc;
    subnet_link(ec2, s);
    s->v.available_ip_address_count = (1 << (32 - prefix)) - 5;
    s->v.default_for_az = is_default;
    s->v.map_public_ip_on_launch = is_default;
    ec2->subnets[ec2->nsubnets++] = s;
    return s;
}

/* The VPC or subnet of a list (ec2's, or a load's) with this id, or NULL. */
static struct vpc *vpc_in(struct vpc *const *vpcs, int n, const char *id)
{
    for (int i = 0; id && i < n; i++) {
        if (strcmp(vpcs[i]->id, id) == 0)
            return vpcs[i];
    }
    return NULL;
}

static struct subnet *subnet_in(struct subnet *const *subnets, int n, const char *id)
{
    for (int i = 0; id && i < n; i++) {
        if (strcmp(subnets[i]->id, id) == 0)
            return subnets[i];
    }
    return NULL;
}

static const struct vpc *vpc_get(const struct sc_ec2 *ec2, const char *id)
{
    return vpc_in(ec2->vpcs, ec2->nvpcs, id);
}

static const struct subnet *subnet_get(const struct sc_ec2 *ec2, const char *id)
{
    return subnet_in(ec2->subnets, ec2->nsubnets, id);
}

static int vpc_holds(const struct sc_ec2 *ec2, const char *id)
{
    return vpc_get(ec2, id) != NULL;
}

static enum sc_status vpc_unknown(const char *id, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VPC_NOT_FOUND, "The vpc ID '%s' does not exist", id);
}

static int subnet_holds(const struct sc_ec2 *ec2, const char *id)
{
    return subnet_get(ec2, id) != NULL;
}

static enum sc_status subnet_unknown(const char *id, struct sc_error *err)
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
    const struct vpc *v = vpc_get(ec2, vpc_id);

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
    const struct subnet *s = subnet_get(ec2, subnet_id);

    return s ? &s->v : NULL;
}

static struct subnet *default_subnet(const struct sc_ec2 *ec2, const char *zone_name)
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
    const struct subnet *s = default_subnet(ec2, zone_name);

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
    if (cidr_parse(cidr_block, 16, 28, &base, &prefix) < 0)
        return sc_fail(err, SC_ERR_VPC_RANGE, "The CIDR '%s' is invalid.", cidr_block);
    st = check_tags(tags, ntags, 0, err);
    if (st != SC_OK)
        return st;
    v = vpc_new(ec2, base, prefix, 0);
    if (!v)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    if (tagset_copy(&v->tags, tags, ntags) < 0) {
        vpc_sync(v);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    vpc_sync(v);
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
    v = vpc_get(ec2, vpc_id);
    if (!v)
        return vpc_unknown(vpc_id, err);
    if (cidr_parse(cidr_block, 16, 28, &base, &prefix) < 0 ||
        !cidr_contains(v->base, v->prefix, base, prefix))
        return sc_fail(err, SC_ERR_SUBNET_RANGE, "The CIDR '%s' is invalid.", cidr_block);
    for (int i = 0; i < ec2->nsubnets; i++) {
        const struct subnet *o = ec2->subnets[i];

        if (o->vpc == v && cidr_overlap(o->base, o->prefix, base, prefix))
            return sc_fail(err, SC_ERR_SUBNET_CONFLICT,
                           "The CIDR '%s' conflicts with another subnet", cidr_block);
    }
    if (availability_zone) {
        z = zone_get(ec2, availability_zone);
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
    st = check_tags(tags, ntags, 0, err);
    if (st != SC_OK)
        return st;
    s = subnet_new(ec2, v, base, prefix, z, 0);
    if (!s)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    if (tagset_copy(&s->tags, tags, ntags) < 0) {
        subnet_sync(s);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    subnet_sync(s);
    if (out)
        *out = &s->v;
    return SC_OK;
}

static int vpc_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct vpc *v = rec;

    return values_match(f, strcmp(f->name, "vpc-id") == 0 ? v->id
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
    static const struct kind k = { known, 1, vpc_holds, vpc_unknown };
    enum sc_status st = describe_check(ec2, &k, ids, nids, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < ec2->nvpcs; i++) {
        const struct vpc *v = ec2->vpcs[i];

        if (listed(ids, nids, v->id) && filters_pass(vpc_match, v, &v->tags, filters, nfilters))
            out[(*nout)++] = &v->v;
    }
    return st;
}

static int subnet_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct subnet *s = rec;
    const char *name = f->name;

    return values_match(f, strcmp(name, "subnet-id") == 0              ? s->id
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
    static const char *const known[] = { "subnet-id",         "vpc-id",
                                         "availability-zone", "availability-zone-id",
                                         "cidr-block",        "cidr",
                                         "default-for-az",    "state",
                                         "owner-id",          NULL };
    static const struct kind k = { known, 1, subnet_holds, subnet_unknown };
    enum sc_status st = describe_check(ec2, &k, ids, nids, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < ec2->nsubnets; i++) {
        const struct subnet *s = ec2->subnets[i];

        if (listed(ids, nids, s->id) && filters_pass(subnet_match, s, &s->tags, filters, nfilters))
            out[(*nout)++] = &s->v;
    }
    return st;
}

/* --- security groups ------------------------------------------------------------------ */

int sc_ec2_security_group_count(const struct sc_ec2 *ec2)
{
    return ec2->nvpcs;
}

const struct sc_ec2_security_group *sc_ec2_security_group_at(const struct sc_ec2 *ec2, int i)
{
    return i >= 0 && i < ec2->nvpcs ? &ec2->vpcs[i]->sg : NULL;
}

const struct sc_ec2_security_group *sc_ec2_security_group_find(const struct sc_ec2 *ec2,
                                                               const char *group_id)
{
    for (int i = 0; group_id && i < ec2->nvpcs; i++) {
        if (strcmp(ec2->vpcs[i]->sg_id, group_id) == 0)
            return &ec2->vpcs[i]->sg;
    }
    return NULL;
}

static int sg_holds(const struct sc_ec2 *ec2, const char *id)
{
    return sc_ec2_security_group_find(ec2, id) != NULL;
}

static enum sc_status sg_unknown(const char *id, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_SECURITY_GROUP_NOT_FOUND, "The security group '%s' does not exist",
                   id);
}

static int sg_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct sc_ec2_security_group *g = rec;
    const char *name = f->name;

    return values_match(f, strcmp(name, "group-id") == 0     ? g->group_id
                           : strcmp(name, "group-name") == 0 ? g->group_name
                           : strcmp(name, "vpc-id") == 0     ? g->vpc_id
                           : strcmp(name, "owner-id") == 0   ? g->owner_id
                                                             : g->description);
}

enum sc_status sc_ec2_describe_security_groups(const struct sc_ec2 *ec2, const char *const *ids,
                                               int nids, const char *const *names, int nnames,
                                               const struct sc_ec2_filter *filters, int nfilters,
                                               const struct sc_ec2_security_group **out, int *nout,
                                               struct sc_error *err)
{
    static const char *const known[] = { "group-id",    "group-name", "vpc-id",
                                         "description", "owner-id",   NULL };
    static const struct kind k = { known, 0, sg_holds, sg_unknown };
    const struct sc_ec2_vpc *dv = sc_ec2_default_vpc(ec2);
    enum sc_status st = describe_check(ec2, &k, ids, nids, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < nnames; i++) {
        if (!streq(names[i], "default"))
            st = sc_fail(err, SC_ERR_SECURITY_GROUP_NOT_FOUND,
                         "The security group '%s' does not exist in default VPC '%s'",
                         names[i] ? names[i] : "", dv ? dv->vpc_id : "");
    }
    for (int i = 0; st == SC_OK && i < ec2->nvpcs; i++) {
        const struct sc_ec2_security_group *g = &ec2->vpcs[i]->sg;
        /* names address the default VPC's groups */
        int asked = (nids == 0 && nnames == 0) || in_list(ids, nids, g->group_id) ||
                    (ec2->vpcs[i]->v.is_default && in_list(names, nnames, g->group_name));

        if (asked && filters_pass(sg_match, g, NULL, filters, nfilters))
            out[(*nout)++] = g;
    }
    return st;
}

/* --- launch templates ------------------------------------------------------------------------- */

static const struct lt *lt_get_id(const struct sc_ec2 *ec2, const char *id)
{
    for (int i = 0; id && i < ec2->nlts; i++) {
        if (strcmp(ec2->lts[i]->id, id) == 0)
            return ec2->lts[i];
    }
    return NULL;
}

static const struct lt *lt_get_name(const struct sc_ec2 *ec2, const char *name)
{
    for (int i = 0; name && i < ec2->nlts; i++) {
        if (strcmp(ec2->lts[i]->name, name) == 0)
            return ec2->lts[i];
    }
    return NULL;
}

static int lt_name_valid(const char *s)
{
    size_t n = s ? strlen(s) : 0;

    if (n < 3 || n > LT_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr("().-/_", c)))
            return 0;
    }
    return 1;
}

/* A well-formed id of a template this ec2 has. */
static int lt_holds(const struct sc_ec2 *ec2, const char *id)
{
    return id_valid(id, "lt-") && lt_get_id(ec2, id);
}

/* The error for a template id lt_holds() refuses: malformed, or no such template. */
static enum sc_status lt_unknown(const char *id, struct sc_error *err)
{
    if (!id_valid(id, "lt-"))
        return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_ID_MALFORMED,
                       "The specified ID for the launch template '%s' is not valid. The ID "
                       "must be in the form 'lt-' followed by 17 hexadecimal characters.",
                       id);
    return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_ID_NOT_FOUND,
                   "The specified launch template, with template ID %s, does not exist.", id);
}

/* Finds a template by id or name with AWS's errors. */
static enum sc_status lt_lookup(const struct sc_ec2 *ec2, const char *id, const char *name,
                                const struct lt **out, struct sc_error *err)
{
    if (id && name)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "Provide either the launch template ID or the launch template name, "
                       "but not both.");
    if (!id && !name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter launchTemplateName or "
                       "launchTemplateId");
    if (id) {
        *out = lt_holds(ec2, id) ? lt_get_id(ec2, id) : NULL;
        return *out ? SC_OK : lt_unknown(id, err);
    }
    *out = lt_get_name(ec2, name);
    if (!*out)
        return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_NOT_FOUND,
                       "The specified launch template, with template name %s, does not exist.",
                       name);
    return SC_OK;
}

/* "$Latest", "$Default", NULL (= $Default) or a positive number -> the version. */
static enum sc_status lt_version(const struct lt *t, const char *version, const struct ltver **out,
                                 struct sc_error *err)
{
    long n;

    if (!version || strcmp(version, "$Default") == 0) {
        n = t->v.default_version_number;
    } else if (strcmp(version, "$Latest") == 0) {
        n = t->v.latest_version_number;
    } else {
        char *end;

        n = strtol(version, &end, 10);
        if (!*version || *end || n <= 0)
            return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_VERSION_NOT_FOUND,
                           "Could not find the specified version %s for the launch template "
                           "with ID %s.",
                           version, t->id);
    }
    if (n < 1 || n > t->nvers)
        return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_VERSION_NOT_FOUND,
                       "Could not find the specified version %ld for the launch template with "
                       "ID %s.",
                       n, t->id);
    *out = t->vers[n - 1];
    return SC_OK;
}

/* What a new version (of CreateLaunchTemplate or CreateLaunchTemplateVersion) may hold. */
static enum sc_status check_version(const char *desc, const struct sc_ec2_lt_data *d,
                                    struct sc_error *err)
{
    enum sc_status st;

    if (desc && strlen(desc) > 255)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "Version description must be 255 characters or fewer.");
    if (d->image_id) {
        st = check_image(d->image_id, err);
        if (st != SC_OK)
            return st;
    }
    if (d->instance_type && !sc_ec2_instance_type_find(d->instance_type))
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "Invalid value '%s' for InstanceType.",
                       d->instance_type);
    return check_tags(d->tags, d->ntags, 0, err);
}

static void ltver_sync(struct ltver *v)
{
    v->v.version_description = v->desc;
    v->v.data.image_id = v->image_id;
    v->v.data.instance_type = v->instance_type;
    v->v.data.key_name = v->key_name;
    v->v.data.user_data = v->user_data;
    v->v.data.tags = v->tags.v;
    v->v.data.ntags = v->tags.n;
    v->v.data.security_group_ids = (const char *const *)v->sgs;
    v->v.data.nsecurity_group_ids = v->nsgs;
}

/* Version `number` of template t: its views, for a new version and a loaded one alike. */
static void ltver_link(struct ltver *v, const struct lt *t, long number)
{
    v->v.launch_template_id = t->id;
    v->v.launch_template_name = t->name;
    v->v.version_number = number;
    v->v.created_by = t->created_by;
    ltver_sync(v);
}

/* New version record: base (may be NULL) overridden by the set fields of d. */
static struct ltver *ltver_new(const struct lt *t, long number, const char *desc,
                               const struct ltver *base, const struct sc_ec2_lt_data *d,
                               int64_t now_ms)
{
    struct ltver *v = calloc(1, sizeof(*v));
    const struct sc_ec2_lt_data *b = base ? &base->v.data : NULL;
    const char *const *sgs;
    int nsgs;

    if (!v)
        return NULL;
    if (sdup_opt(&v->desc, desc) < 0 ||
        sdup_opt(&v->image_id, d->image_id ? d->image_id
                               : b         ? b->image_id
                                           : NULL) < 0 ||
        sdup_opt(&v->instance_type, d->instance_type ? d->instance_type
                                    : b              ? b->instance_type
                                                     : NULL) < 0 ||
        sdup_opt(&v->key_name, d->key_name ? d->key_name
                               : b         ? b->key_name
                                           : NULL) < 0 ||
        sdup_opt(&v->user_data, d->user_data ? d->user_data
                                : b          ? b->user_data
                                             : NULL) < 0)
        goto fail;
    if (b && tagset_copy(&v->tags, b->tags, b->ntags) < 0)
        goto fail;
    if (tagset_copy(&v->tags, d->tags, d->ntags) < 0)
        goto fail;
    sgs = d->nsecurity_group_ids ? d->security_group_ids : b ? b->security_group_ids : NULL;
    nsgs = d->nsecurity_group_ids ? d->nsecurity_group_ids : b ? b->nsecurity_group_ids : 0;
    if (nsgs > 0) {
        v->sgs = calloc((size_t)nsgs, sizeof(*v->sgs));
        if (!v->sgs)
            goto fail;
        for (int i = 0; i < nsgs; i++) {
            v->sgs[i] = sdup(sgs[i] ? sgs[i] : "");
            if (!v->sgs[i])
                goto fail;
            v->nsgs = i + 1;
        }
    }
    v->v.data.monitoring_enabled = d->monitoring_enabled || (b && b->monitoring_enabled);
    v->v.create_time_ms = now_ms;
    ltver_link(v, t, number);
    return v;

fail:
    ltver_free(v);
    return NULL;
}

static int lt_add_version(struct lt *t, struct ltver *v)
{
    if (grow(&t->vers, t->nvers, &t->capvers) < 0)
        return -1;
    t->vers[t->nvers++] = v;
    t->v.latest_version_number = t->nvers;
    return 0;
}

static void lt_sync(struct lt *t)
{
    t->v.tags = t->tags.v;
    t->v.ntags = t->tags.n;
    for (int i = 0; i < t->nvers; i++)
        t->vers[i]->v.default_version = (i + 1 == t->v.default_version_number);
}

enum sc_status sc_ec2_create_launch_template(struct sc_ec2 *ec2,
                                             const struct sc_ec2_lt_create_req *req, int64_t now_ms,
                                             const struct sc_ec2_launch_template **out,
                                             struct sc_error *err)
{
    struct lt *t = NULL;
    struct ltver *v;
    char created_by[96];
    enum sc_status st;

    if (!req->launch_template_name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter LaunchTemplateName");
    if (!lt_name_valid(req->launch_template_name))
        return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_NAME_MALFORMED,
                       "A launch template name must be between 3 and 128 characters, and may "
                       "contain letters, numbers, and the following characters: - ( ) . / _.");
    if (lt_get_name(ec2, req->launch_template_name))
        return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_EXISTS, "Launch template name already in use.");
    st = check_version(req->version_description, &req->data, err);
    if (st != SC_OK)
        return st;
    st = check_tags(req->tags, req->ntags, 0, err);
    if (st != SC_OK)
        return st;
    if (grow(&ec2->lts, ec2->nlts, &ec2->caplts) < 0)
        goto oom;
    t = calloc(1, sizeof(*t));
    if (!t)
        goto oom;
    snprintf(created_by, sizeof(created_by), "arn:aws:iam::%s:root", ec2->account);
    t->name = sdup(req->launch_template_name);
    t->created_by = sdup(created_by);
    if (!t->name || !t->created_by || tagset_copy(&t->tags, req->tags, req->ntags) < 0)
        goto oom;
    make_id(ec2, "lt-", t->id);
    t->v.launch_template_id = t->id;
    t->v.launch_template_name = t->name;
    t->v.create_time_ms = now_ms;
    t->v.created_by = t->created_by;
    t->v.default_version_number = 1;
    v = ltver_new(t, 1, req->version_description, NULL, &req->data, now_ms);
    if (!v)
        goto oom;
    if (lt_add_version(t, v) < 0) {
        ltver_free(v);
        goto oom;
    }
    lt_sync(t);
    ec2->lts[ec2->nlts++] = t;
    if (out)
        *out = &t->v;
    return SC_OK;

oom:
    lt_free(t);
    return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
}

enum sc_status sc_ec2_create_launch_template_version(struct sc_ec2 *ec2,
                                                     const struct sc_ec2_lt_version_req *req,
                                                     int64_t now_ms,
                                                     const struct sc_ec2_lt_version **out,
                                                     struct sc_error *err)
{
    const struct lt *ct;
    struct lt *t;
    const struct ltver *base = NULL;
    struct ltver *v;
    enum sc_status st;

    st = lt_lookup(ec2, req->launch_template_id, req->launch_template_name, &ct, err);
    if (st != SC_OK)
        return st;
    t = (struct lt *)ct;
    if (req->source_version) {
        st = lt_version(t, req->source_version, &base, err);
        if (st != SC_OK)
            return st;
    }
    st = check_version(req->version_description, &req->data, err);
    if (st != SC_OK)
        return st;
    v = ltver_new(t, t->nvers + 1, req->version_description, base, &req->data, now_ms);
    if (!v || lt_add_version(t, v) < 0) {
        ltver_free(v);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    lt_sync(t);
    if (out)
        *out = &v->v;
    return SC_OK;
}

enum sc_status sc_ec2_modify_launch_template(struct sc_ec2 *ec2, const char *id, const char *name,
                                             const char *default_version, int64_t now_ms,
                                             const struct sc_ec2_launch_template **out,
                                             struct sc_error *err)
{
    const struct lt *ct;
    const struct ltver *v;
    enum sc_status st;

    (void)now_ms;
    st = lt_lookup(ec2, id, name, &ct, err);
    if (st != SC_OK)
        return st;
    if (default_version) {
        st = lt_version(ct, default_version, &v, err);
        if (st != SC_OK)
            return st;
        ((struct lt *)ct)->v.default_version_number = v->v.version_number;
        lt_sync((struct lt *)ct);
    }
    if (out)
        *out = &ct->v;
    return SC_OK;
}

enum sc_status sc_ec2_delete_launch_template(struct sc_ec2 *ec2, const char *id, const char *name,
                                             int64_t now_ms, struct sc_ec2_lt_deleted *out,
                                             struct sc_error *err)
{
    const struct lt *t;
    enum sc_status st;
    int i;

    (void)now_ms;
    st = lt_lookup(ec2, id, name, &t, err);
    if (st != SC_OK)
        return st;
    if (out) {
        memset(out, 0, sizeof(*out));
        snprintf(out->launch_template_id, sizeof(out->launch_template_id), "%s", t->id);
        snprintf(out->launch_template_name, sizeof(out->launch_template_name), "%s", t->name);
        out->create_time_ms = t->v.create_time_ms;
        out->default_version_number = t->v.default_version_number;
        out->latest_version_number = t->v.latest_version_number;
    }
    for (i = 0; i < ec2->nlts && ec2->lts[i] != t; i++)
        ;
    lt_free(ec2->lts[i]);
    memmove(&ec2->lts[i], &ec2->lts[i + 1], (size_t)(ec2->nlts - i - 1) * sizeof(ec2->lts[0]));
    ec2->nlts--;
    return SC_OK;
}

int sc_ec2_launch_template_count(const struct sc_ec2 *ec2)
{
    return ec2->nlts;
}

const struct sc_ec2_launch_template *sc_ec2_launch_template_at(const struct sc_ec2 *ec2, int i)
{
    return i >= 0 && i < ec2->nlts ? &ec2->lts[i]->v : NULL;
}

const struct sc_ec2_launch_template *sc_ec2_launch_template_find(const struct sc_ec2 *ec2,
                                                                 const char *id, const char *name)
{
    const struct lt *t = id ? lt_get_id(ec2, id) : lt_get_name(ec2, name);

    return t ? &t->v : NULL;
}

/* create-time is a known name that every template passes (its values are not compared). */
static int lt_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct lt *t = rec;

    return strcmp(f->name, "launch-template-name") == 0 ? values_match(f, t->name) : 1;
}

enum sc_status sc_ec2_describe_launch_templates(const struct sc_ec2 *ec2, const char *const *ids,
                                                int nids, const char *const *names, int nnames,
                                                const struct sc_ec2_filter *filters, int nfilters,
                                                const struct sc_ec2_launch_template **out,
                                                int *nout, struct sc_error *err)
{
    static const char *const known[] = { "launch-template-name", "create-time", NULL };
    static const struct kind k = { known, 1, lt_holds, lt_unknown };
    enum sc_status st = describe_check(ec2, &k, ids, nids, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < nnames; i++) {
        if (!lt_get_name(ec2, names[i]))
            st = sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_NOT_FOUND,
                         "At least one of the launch templates specified in the request does "
                         "not exist.");
    }
    for (int i = 0; st == SC_OK && i < ec2->nlts; i++) {
        const struct lt *t = ec2->lts[i];
        int asked = (nids == 0 && nnames == 0) || in_list(ids, nids, t->id) ||
                    in_list(names, nnames, t->name);

        if (asked && filters_pass(lt_match, t, &t->tags, filters, nfilters))
            out[(*nout)++] = &t->v;
    }
    return st;
}

enum sc_status sc_ec2_resolve_launch_template(const struct sc_ec2 *ec2, const char *id,
                                              const char *name, const char *version,
                                              const struct sc_ec2_lt_version **out,
                                              struct sc_error *err)
{
    const struct lt *t;
    const struct ltver *v;
    enum sc_status st;

    st = lt_lookup(ec2, id, name, &t, err);
    if (st != SC_OK)
        return st;
    st = lt_version(t, version, &v, err);
    if (st != SC_OK)
        return st;
    *out = &v->v;
    return SC_OK;
}

enum sc_status sc_ec2_describe_launch_template_versions(const struct sc_ec2 *ec2,
                                                        const struct sc_ec2_lt_versions_req *req,
                                                        const struct sc_ec2_lt_version **out,
                                                        int cap, int *nout, struct sc_error *err)
{
    const struct lt *t;
    enum sc_status st;
    int n = 0;

    *nout = 0;
    st = lt_lookup(ec2, req->launch_template_id, req->launch_template_name, &t, err);
    if (st != SC_OK)
        return st;
    if (req->nversions) {
        /* Each named version once, ascending. */
        for (int i = 0; i < req->nversions; i++) {
            const struct ltver *v;

            st = lt_version(t, req->versions[i] ? req->versions[i] : "", &v, err);
            if (st != SC_OK)
                return st;
        }
        for (int k = 1; k <= t->nvers && n < cap; k++) {
            int want = 0;

            for (int i = 0; !want && i < req->nversions; i++) {
                const struct ltver *v;

                lt_version(t, req->versions[i], &v, NULL);
                want = v->v.version_number == k;
            }
            if (want)
                out[n++] = &t->vers[k - 1]->v;
        }
        *nout = n;
        return SC_OK;
    }
    for (int k = 1; k <= t->nvers && n < cap; k++) {
        if (req->min_version > 0 && k < req->min_version)
            continue;
        if (req->max_version > 0 && k > req->max_version)
            continue;
        out[n++] = &t->vers[k - 1]->v;
    }
    *nout = n;
    return SC_OK;
}

/* --- instances -----------------------------------------------------------------------------------
 */

static size_t id_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */

    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 1099511628211ULL;
    }
    return (size_t)(h ^ (h >> 32));
}

static const struct inst *inst_get(const struct sc_ec2 *ec2, const char *id)
{
    size_t mask, i;

    if (!id || !ec2->index_cap)
        return NULL;
    mask = ec2->index_cap - 1;
    for (i = id_hash(id) & mask; ec2->index[i]; i = (i + 1) & mask) {
        if (strcmp(ec2->index[i]->id, id) == 0)
            return ec2->index[i];
    }
    return NULL;
}

static void index_put(struct sc_ec2 *ec2, struct inst *in)
{
    size_t mask = ec2->index_cap - 1, i;

    for (i = id_hash(in->id) & mask; ec2->index[i]; i = (i + 1) & mask)
        ;
    ec2->index[i] = in;
}

/* Room for n instances at most half full; 0 or -1 on OOM (index unchanged). */
static int index_reserve(struct sc_ec2 *ec2, size_t n)
{
    size_t cap = ec2->index_cap ? ec2->index_cap : 64;
    struct inst **old = ec2->index;
    size_t old_cap = ec2->index_cap;

    while (cap < 2 * n)
        cap *= 2;
    if (cap == ec2->index_cap)
        return 0;
    ec2->index = calloc(cap, sizeof(*ec2->index));
    if (!ec2->index) {
        ec2->index = old;
        return -1;
    }
    ec2->index_cap = cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i])
            index_put(ec2, old[i]);
    }
    free(old);
    return 0;
}

/* Backward-shift deletion keeps every probe chain intact without tombstones. */
static void index_del(struct sc_ec2 *ec2, const struct inst *in)
{
    size_t mask = ec2->index_cap - 1, i, j;

    for (i = id_hash(in->id) & mask; ec2->index[i] != in; i = (i + 1) & mask)
        if (!ec2->index[i])
            return;
    j = i;
    for (;;) {
        size_t k;

        j = (j + 1) & mask;
        if (!ec2->index[j])
            break;
        k = id_hash(ec2->index[j]->id) & mask;
        /* move j back into the hole at i unless its home k lies cyclically in (i, j] */
        if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
            ec2->index[i] = ec2->index[j];
            i = j;
        }
    }
    ec2->index[i] = NULL;
}

static struct inst *inst_mut(struct sc_ec2 *ec2, const char *id)
{
    return (struct inst *)inst_get(ec2, id);
}

int sc_ec2_instance_id_valid(const char *s)
{
    return id_valid(s, "i-");
}

uint64_t sc_ec2_generation(const struct sc_ec2 *ec2)
{
    return ec2->generation;
}

int sc_ec2_instance_count(const struct sc_ec2 *ec2)
{
    return ec2->ninsts;
}

const struct sc_ec2_instance *sc_ec2_instance_at(const struct sc_ec2 *ec2, int i)
{
    return i >= 0 && i < ec2->ninsts ? &ec2->insts[i]->v : NULL;
}

const struct sc_ec2_instance *sc_ec2_instance_find(const struct sc_ec2 *ec2, const char *id)
{
    const struct inst *in = inst_get(ec2, id);

    return in ? &in->v : NULL;
}

const char *sc_ec2_instance_tag(const struct sc_ec2_instance *inst, const char *key)
{
    for (int i = 0; inst && key && i < inst->ntags; i++) {
        if (strcmp(inst->tags[i].key, key) == 0)
            return inst->tags[i].value;
    }
    return NULL;
}

static void inst_sync(struct inst *in)
{
    in->v.tags = in->tags.v;
    in->v.ntags = in->tags.n;
}

/* Points an instance's views at its fields, reservation and subnet (set before), for a
 * launched instance and a loaded one alike. */
static void inst_link(const struct sc_ec2 *ec2, struct inst *in)
{
    in->v.instance_id = in->id;
    in->v.reservation_id = in->resv->id;
    in->v.owner_id = ec2->account;
    in->v.availability_zone = in->subnet->zone->name;
    in->v.subnet_id = in->subnet->id;
    in->v.vpc_id = in->subnet->vpc->id;
    in->v.private_ip_address = "127.0.0.1";
    in->v.private_dns_name = in->dns;
    in->v.instance_type = in->instance_type;
    in->v.image_id = in->image_id;
    in->v.key_name = in->key_name;
    in->v.user_data = in->user_data;
    in->v.launch_configuration_name = in->lc_name;
    in->v.launch_template_id = in->lt_id;
    in->v.launch_template_name = in->lt_name;
    inst_sync(in);
}

static void set_state(struct inst *in, enum sc_ec2_state st, int64_t now_ms)
{
    if (st == SC_EC2_TERMINATED && in->v.state != SC_EC2_TERMINATED && in->subnet)
        in->subnet->v.available_ip_address_count++;
    in->v.state = st;
    in->v.state_changed_ms = now_ms;
    if (st != SC_EC2_RUNNING) {
        in->v.system_status = SC_EC2_CHECK_NOT_APPLICABLE;
        in->v.instance_status = SC_EC2_CHECK_NOT_APPLICABLE;
        in->v.impaired_since_ms = 0;
    }
}

/* The reasons an instance can carry, StateReason Code and Message: the views point at
 * these literals, and a load maps a saved code back to its row. */
enum reason { REASON_USER, REASON_LOST };
static const char *const reason_pairs[][2] = {
    [REASON_USER] = { "Client.UserInitiatedShutdown",
                      "Client.UserInitiatedShutdown: User initiated shutdown" },
    [REASON_LOST] = { "Server.InternalError", "Server.InternalError: Internal error on instance" },
};

/* StateTransitionReason "<what> (<now as GMT>)" and the StateReason of row r. */
static void set_reason(struct inst *in, const char *what, enum reason r, int64_t now_ms)
{
    char when[40];

    format_gmt(when, sizeof(when), now_ms);
    snprintf(in->transition, sizeof(in->transition), "%s (%s)", what, when);
    in->v.state_transition_reason = in->transition;
    in->v.state_reason_code = reason_pairs[r][0];
    in->v.state_reason_message = reason_pairs[r][1];
}

/* No reason: what a (re)started instance shows. */
static void clear_reason(struct inst *in)
{
    in->v.state_transition_reason = "";
    in->v.state_reason_code = NULL;
    in->v.state_reason_message = NULL;
}

static int live_count(const struct sc_ec2 *ec2)
{
    int n = 0;

    for (int i = 0; i < ec2->ninsts; i++) {
        enum sc_ec2_state s = ec2->insts[i]->v.state;

        n += s != SC_EC2_TERMINATED && s != SC_EC2_SHUTTING_DOWN;
    }
    return n;
}

/* Placement: the subnet and zone a request lands in. */
static enum sc_status place(struct sc_ec2 *ec2, const struct sc_ec2_run_req *req, const char *type,
                            struct subnet **out, struct sc_error *err)
{
    const struct zone *z = NULL;

    if (req->subnet_id) {
        struct subnet *s = (struct subnet *)subnet_get(ec2, req->subnet_id);

        if (!s)
            return subnet_unknown(req->subnet_id, err);
        if (req->availability_zone && strcmp(req->availability_zone, s->zone->name) != 0)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "Value (%s) for parameter availabilityZone is invalid. Subnet %s is "
                           "in availability zone %s",
                           req->availability_zone, s->id, s->zone->name);
        z = s->zone;
        *out = s;
    } else if (req->availability_zone) {
        z = zone_get(ec2, req->availability_zone);
        if (!z)
            return zone_unknown(req->availability_zone, err);
        *out = default_subnet(ec2, z->name);
    } else {
        for (int k = 0; k < ec2->nzones; k++) {
            const struct zone *c = &ec2->zones[(ec2->placement_rr + k) % ec2->nzones];

            if (c->available) {
                z = c;
                ec2->placement_rr = (int)(c - ec2->zones + 1) % ec2->nzones;
                break;
            }
        }
        if (!z)
            z = &ec2->zones[0];
        *out = default_subnet(ec2, z->name);
    }
    if (!z->available) {
        char others[512] = "";
        size_t k = 0;

        for (int i = 0; i < ec2->nzones && k < sizeof(others); i++) {
            if (ec2->zones[i].available)
                k += (size_t)snprintf(others + k, sizeof(others) - k, "%s%s", k ? ", " : "",
                                      ec2->zones[i].name);
        }
        return sc_fail(err, SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY,
                       "We currently do not have sufficient %s capacity in the Availability "
                       "Zone you requested (%s). Our system will be working on provisioning "
                       "additional capacity. You can currently get %s capacity by not "
                       "specifying an Availability Zone in your request or choosing %s.",
                       type, z->name, type, others);
    }
    if (!*out)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "No default subnet for availability zone: '%s'.", z->name);
    return SC_OK;
}

enum sc_status sc_ec2_run_instances(struct sc_ec2 *ec2, const struct sc_ec2_run_req *req,
                                    int64_t now_ms, const struct sc_ec2_reservation **out,
                                    struct sc_error *err)
{
    const struct ltver *ltv = NULL;
    const struct lt *t = NULL;
    const char *image, *type, *key, *user_data;
    struct subnet *subnet = NULL;
    struct resv *r = NULL;
    int count, avail, first;
    enum sc_status st;

    ec2->generation++;
    if (req->launch_template_id || req->launch_template_name) {
        st = lt_lookup(ec2, req->launch_template_id, req->launch_template_name, &t, err);
        if (st != SC_OK)
            return st;
        st = lt_version(t, req->launch_template_version, &ltv, err);
        if (st != SC_OK)
            return st;
    }
    image = req->image_id ? req->image_id : ltv ? ltv->image_id : NULL;
    type = req->instance_type          ? req->instance_type
           : ltv && ltv->instance_type ? ltv->instance_type
                                       : "m1.small";
    key = req->key_name ? req->key_name : ltv ? ltv->key_name : NULL;
    user_data = req->user_data ? req->user_data : ltv ? ltv->user_data : NULL;
    if (!image)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter ImageId");
    st = check_image(image, err);
    if (st != SC_OK)
        return st;
    if (ec2->strict_images && !sc_ec2_image_find(image))
        return sc_fail(err, SC_ERR_AMI_ID_NOT_FOUND, "The image id '[%s]' does not exist", image);
    if (!sc_ec2_instance_type_find(type))
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "Invalid value '%s' for InstanceType.",
                       type);
    if (req->min_count < 1)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "Value (%d) for parameter minCount is invalid. Expected a value greater "
                       "than 0.",
                       req->min_count);
    if (req->max_count < req->min_count)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "Value (%d) for parameter maxCount is invalid. Expected a value greater "
                       "than or equal to minCount (%d).",
                       req->max_count, req->min_count);
    st = check_tags(req->tags, req->ntags, 1, err);
    if (st != SC_OK)
        return st;
    st = place(ec2, req, type, &subnet, err);
    if (st != SC_OK)
        return st;
    avail = ec2->max_instances - live_count(ec2);
    if (avail < req->min_count)
        return sc_fail(err, SC_ERR_INSTANCE_LIMIT_EXCEEDED,
                       "You have requested more instances (%d) than your current instance limit "
                       "of %d allows for the specified instance type. Please visit "
                       "http://aws.amazon.com/contact-us/ec2-request to request an adjustment "
                       "to this limit.",
                       req->min_count, ec2->max_instances);
    count = req->max_count < avail ? req->max_count : avail;
    if (index_reserve(ec2, (size_t)ec2->ninsts + (size_t)count) < 0)
        goto oom;

    r = calloc(1, sizeof(*r));
    if (!r)
        goto oom;
    r->members = calloc((size_t)count, sizeof(*r->members));
    if (!r->members || grow(&ec2->resvs, ec2->nresvs, &ec2->capresvs) < 0)
        goto oom;
    make_id(ec2, "r-", r->id);
    r->v.reservation_id = r->id;
    r->v.owner_id = ec2->account;
    r->v.instances = r->members;
    first = ec2->ninsts;
    for (int k = 0; k < count; k++) {
        struct inst *in;

        if (grow(&ec2->insts, ec2->ninsts, &ec2->capinsts) < 0)
            goto oom_insts;
        in = calloc(1, sizeof(*in));
        if (!in)
            goto oom_insts;
        if (sdup_opt(&in->instance_type, type) < 0 || sdup_opt(&in->image_id, image) < 0 ||
            sdup_opt(&in->key_name, key) < 0 || sdup_opt(&in->user_data, user_data) < 0 ||
            sdup_opt(&in->lc_name, req->launch_configuration_name) < 0 ||
            (t && (sdup_opt(&in->lt_id, t->id) < 0 || sdup_opt(&in->lt_name, t->name) < 0)) ||
            (ltv && tagset_copy(&in->tags, ltv->v.data.tags, ltv->v.data.ntags) < 0) ||
            tagset_copy(&in->tags, req->tags, req->ntags) < 0) {
            inst_free(in);
            goto oom_insts;
        }
        make_id(ec2, "i-", in->id);
        snprintf(in->dns, sizeof(in->dns), "ip-127-0-0-1.%s",
                 strcmp(ec2->region, "us-east-1") == 0 ? "ec2.internal" : ec2->region);
        if (strcmp(ec2->region, "us-east-1") != 0) {
            size_t l = strlen(in->dns);

            snprintf(in->dns + l, sizeof(in->dns) - l, ".compute.internal");
        }
        in->resv = r;
        in->subnet = subnet;
        inst_link(ec2, in);
        in->v.state = SC_EC2_PENDING;
        in->v.state_transition_reason = "";
        in->v.ami_launch_index = k;
        in->v.launch_time_ms = now_ms;
        in->v.state_changed_ms = now_ms;
        in->v.launch_template_version = ltv ? ltv->v.version_number : 0;
        in->v.system_status = SC_EC2_CHECK_NOT_APPLICABLE;
        in->v.instance_status = SC_EC2_CHECK_NOT_APPLICABLE;
        in->v.monitoring_enabled =
            req->monitoring_enabled || (ltv && ltv->v.data.monitoring_enabled);
        subnet->v.available_ip_address_count--;
        ec2->insts[ec2->ninsts++] = in;
        index_put(ec2, in);
        r->members[r->n++] = &in->v;
    }
    r->v.ninstances = r->n;
    ec2->resvs[ec2->nresvs++] = r;
    if (out)
        *out = &r->v;
    return SC_OK;

oom_insts:
    while (ec2->ninsts > first) {
        struct inst *in = ec2->insts[--ec2->ninsts];

        index_del(ec2, in);

        subnet->v.available_ip_address_count++;
        inst_free(in);
    }
oom:
    resv_free(r);
    return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
}

/* Validates ids: first malformed -> Malformed; then all unknown -> NotFound. */
static enum sc_status check_ids(const struct sc_ec2 *ec2, const char *const *ids, int nids,
                                struct sc_error *err)
{
    char list[SC_ERR_MESSAGE_LEN - 64];
    size_t k = 0;
    int missing = 0;

    for (int i = 0; i < nids; i++) {
        if (!sc_ec2_instance_id_valid(ids[i]))
            return sc_fail(err, SC_ERR_INSTANCE_ID_MALFORMED, "Invalid id: \"%s\"",
                           ids[i] ? ids[i] : "");
    }
    list[0] = '\0';
    for (int i = 0; i < nids; i++) {
        if (inst_get(ec2, ids[i]))
            continue;
        missing++;
        if (k < sizeof(list))
            k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s", missing > 1 ? ", " : "",
                                  ids[i]);
    }
    if (missing == 1)
        return sc_fail(err, SC_ERR_INSTANCE_ID_NOT_FOUND, "The instance ID '%s' does not exist",
                       list);
    if (missing > 1)
        return sc_fail(err, SC_ERR_INSTANCE_ID_NOT_FOUND, "The instance IDs '%s' do not exist",
                       list);
    return SC_OK;
}

/* A set of instance states, one bit each (AWS's state codes are multiples of 16). */
#define STATE_SET(s) (1u << ((unsigned)(s) / 16))

/* What Terminate, Stop or StartInstances does: instances in a state of `from` go to `to`
 * (the others stay as they are), unless refuse() (when set) turns the call down first. */
struct change {
    enum sc_ec2_state to;
    unsigned from;
    enum sc_status (*refuse)(const struct inst *in, struct sc_error *err);
};

/* The three calls alike: ids present and known (check_ids), no instance refused, then
 * every one changed; out (optional) gets a row per id in request order. */
static enum sc_status change_states(struct sc_ec2 *ec2, const struct change *c,
                                    const char *const *ids, int nids, int64_t now_ms,
                                    struct sc_ec2_state_change *out, struct sc_error *err)
{
    enum sc_status st;

    ec2->generation++;
    if (nids < 1)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter InstanceId");
    st = check_ids(ec2, ids, nids, err);
    for (int i = 0; st == SC_OK && c->refuse && i < nids; i++)
        st = c->refuse(inst_get(ec2, ids[i]), err);
    for (int i = 0; st == SC_OK && i < nids; i++) {
        struct inst *in = inst_mut(ec2, ids[i]);
        enum sc_ec2_state prev = in->v.state;

        if (c->from & STATE_SET(prev)) {
            set_state(in, c->to, now_ms);
            if (c->to == SC_EC2_PENDING)
                clear_reason(in);
            else
                set_reason(in, "User initiated", REASON_USER, now_ms);
        }
        if (out)
            out[i] = (struct sc_ec2_state_change){ in->id, prev, in->v.state };
    }
    return st;
}

enum sc_status sc_ec2_terminate_instances(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                          int64_t now_ms, struct sc_ec2_state_change *out,
                                          struct sc_error *err)
{
    static const struct change c = {
        SC_EC2_SHUTTING_DOWN, ~(STATE_SET(SC_EC2_SHUTTING_DOWN) | STATE_SET(SC_EC2_TERMINATED)),
        NULL
    };

    return change_states(ec2, &c, ids, nids, now_ms, out, err);
}

static enum sc_status stop_refused(const struct inst *in, struct sc_error *err)
{
    if (in->v.state != SC_EC2_SHUTTING_DOWN && in->v.state != SC_EC2_TERMINATED)
        return SC_OK;
    return sc_fail(err, SC_ERR_INCORRECT_INSTANCE_STATE,
                   "This instance '%s' is not in a state from which it can be stopped.", in->id);
}

enum sc_status sc_ec2_stop_instances(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                     int64_t now_ms, struct sc_ec2_state_change *out,
                                     struct sc_error *err)
{
    static const struct change c = { SC_EC2_STOPPING,
                                     STATE_SET(SC_EC2_RUNNING) | STATE_SET(SC_EC2_PENDING),
                                     stop_refused };

    return change_states(ec2, &c, ids, nids, now_ms, out, err);
}

static enum sc_status start_refused(const struct inst *in, struct sc_error *err)
{
    enum sc_ec2_state s = in->v.state;

    if (s == SC_EC2_STOPPED || s == SC_EC2_PENDING || s == SC_EC2_RUNNING)
        return SC_OK;
    return sc_fail(err, SC_ERR_INCORRECT_INSTANCE_STATE,
                   "The instance '%s' is not in a state from which it can be started.", in->id);
}

enum sc_status sc_ec2_start_instances(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                      int64_t now_ms, struct sc_ec2_state_change *out,
                                      struct sc_error *err)
{
    static const struct change c = { SC_EC2_PENDING, STATE_SET(SC_EC2_STOPPED), start_refused };

    return change_states(ec2, &c, ids, nids, now_ms, out, err);
}

static const char *const inst_filters[] = { "instance-state-name", "instance-state-code",
                                            "instance-id",         "instance-type",
                                            "availability-zone",   "image-id",
                                            "subnet-id",           "vpc-id",
                                            "reservation-id",      "key-name",
                                            "private-ip-address",  NULL };
static const char *const status_filters[] = {
    "instance-state-name",    "instance-state-code",  "instance-id", "availability-zone",
    "instance-status.status", "system-status.status", NULL
};

static int inst_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct inst *in = rec;
    const char *n = f->name;
    char code[8];

    snprintf(code, sizeof(code), "%d", (int)in->v.state);
    return values_match(
        f, strcmp(n, "instance-state-name") == 0      ? sc_ec2_state_name(in->v.state)
           : strcmp(n, "instance-state-code") == 0    ? code
           : strcmp(n, "instance-id") == 0            ? in->id
           : strcmp(n, "instance-type") == 0          ? in->v.instance_type
           : strcmp(n, "availability-zone") == 0      ? in->v.availability_zone
           : strcmp(n, "image-id") == 0               ? in->v.image_id
           : strcmp(n, "subnet-id") == 0              ? in->v.subnet_id
           : strcmp(n, "vpc-id") == 0                 ? in->v.vpc_id
           : strcmp(n, "reservation-id") == 0         ? in->v.reservation_id
           : strcmp(n, "key-name") == 0               ? in->v.key_name
           : strcmp(n, "private-ip-address") == 0     ? in->v.private_ip_address
           : strcmp(n, "instance-status.status") == 0 ? sc_ec2_check_name(in->v.instance_status)
           : strcmp(n, "system-status.status") == 0   ? sc_ec2_check_name(in->v.system_status)
                                                      : NULL);
}

static enum sc_status describe(const struct sc_ec2 *ec2, const struct sc_ec2_describe_req *req,
                               const char *const *known, int running_only,
                               const struct sc_ec2_instance **out, int *nout, struct sc_error *err)
{
    enum sc_status st;

    *nout = 0;
    st = check_filters(req->filters, req->nfilters, known, 1, err);
    if (st == SC_OK)
        st = check_ids(ec2, req->instance_ids, req->ninstance_ids, err);
    for (int i = 0; st == SC_OK && i < ec2->ninsts; i++) {
        const struct inst *in = ec2->insts[i];

        if ((!running_only || in->v.state == SC_EC2_RUNNING) &&
            listed(req->instance_ids, req->ninstance_ids, in->id) &&
            filters_pass(inst_match, in, &in->tags, req->filters, req->nfilters))
            out[(*nout)++] = &in->v;
    }
    return st;
}

enum sc_status sc_ec2_describe_instances(const struct sc_ec2 *ec2,
                                         const struct sc_ec2_describe_req *req,
                                         const struct sc_ec2_instance **out, int *nout,
                                         struct sc_error *err)
{
    return describe(ec2, req, inst_filters, 0, out, nout, err);
}

enum sc_status sc_ec2_describe_instance_status(const struct sc_ec2 *ec2,
                                               const struct sc_ec2_describe_req *req,
                                               int include_all_instances,
                                               const struct sc_ec2_instance **out, int *nout,
                                               struct sc_error *err)
{
    return describe(ec2, req, status_filters, !include_all_instances, out, nout, err);
}

/* --- tags on resources --------------------------------------------------------------------------
 */

enum res_kind { RES_INSTANCE, RES_VPC, RES_SUBNET, RES_LT };

struct res {
    enum res_kind kind;
    void *obj;
    struct tagset *tags;
};

static void res_sync(const struct res *r)
{
    switch (r->kind) {
    case RES_INSTANCE:
        inst_sync(r->obj);
        break;
    case RES_VPC:
        vpc_sync(r->obj);
        break;
    case RES_SUBNET:
        subnet_sync(r->obj);
        break;
    case RES_LT:
        lt_sync(r->obj);
        break;
    }
}

/* The tag set of a resource id, or an error. */
static enum sc_status resource_get(struct sc_ec2 *ec2, const char *id, struct res *out,
                                   struct sc_error *err)
{
    if (!id)
        id = "";
    if (strncmp(id, "i-", 2) == 0) {
        struct inst *in;
        enum sc_status st = check_ids(ec2, &id, 1, err);

        if (st != SC_OK)
            return st;
        in = inst_mut(ec2, id);
        *out = (struct res){ RES_INSTANCE, in, &in->tags };
        return SC_OK;
    }
    if (strncmp(id, "vpc-", 4) == 0) {
        struct vpc *v = (struct vpc *)vpc_get(ec2, id);

        if (!v)
            return vpc_unknown(id, err);
        *out = (struct res){ RES_VPC, v, &v->tags };
        return SC_OK;
    }
    if (strncmp(id, "subnet-", 7) == 0) {
        struct subnet *sn = (struct subnet *)subnet_get(ec2, id);

        if (!sn)
            return subnet_unknown(id, err);
        *out = (struct res){ RES_SUBNET, sn, &sn->tags };
        return SC_OK;
    }
    if (strncmp(id, "lt-", 3) == 0) {
        const struct lt *t;
        enum sc_status st = lt_lookup(ec2, id, NULL, &t, err);

        if (st != SC_OK)
            return st;
        *out = (struct res){ RES_LT, (void *)t, &((struct lt *)t)->tags };
        return SC_OK;
    }
    return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "The ID '%s' is not valid", id);
}

static enum sc_status tags_apply(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                 const struct sc_ec2_tag *tags, int ntags, int del,
                                 struct sc_error *err)
{
    struct res r;
    enum sc_status st;

    ec2->generation++;
    if (nids < 1)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter resourceIdSet");
    for (int i = 0; i < nids; i++) {
        st = resource_get(ec2, ids[i], &r, err);
        if (st != SC_OK)
            return st;
    }
    if (!del) {
        st = check_tags(tags, ntags, 0, err);
        if (st != SC_OK)
            return st;
    }
    for (int i = 0; i < nids; i++) {
        resource_get(ec2, ids[i], &r, NULL);
        for (int j = 0; j < ntags; j++) {
            if (!tags[j].key)
                continue;
            if (del) {
                tagset_del(r.tags, tags[j].key, tags[j].value);
            } else if (tagset_set(r.tags, tags[j].key, tags[j].value) < 0) {
                res_sync(&r);
                return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
            }
        }
        res_sync(&r);
    }
    return SC_OK;
}

enum sc_status sc_ec2_create_tags(struct sc_ec2 *ec2, const char *const *resource_ids,
                                  int nresources, const struct sc_ec2_tag *tags, int ntags,
                                  int64_t now_ms, struct sc_error *err)
{
    (void)now_ms;
    return tags_apply(ec2, resource_ids, nresources, tags, ntags, 0, err);
}

enum sc_status sc_ec2_delete_tags(struct sc_ec2 *ec2, const char *const *resource_ids,
                                  int nresources, const struct sc_ec2_tag *tags, int ntags,
                                  int64_t now_ms, struct sc_error *err)
{
    (void)now_ms;
    return tags_apply(ec2, resource_ids, nresources, tags, ntags, 1, err);
}

static int tag_rows(const char *id, const char *type, const struct tagset *t,
                    const struct sc_ec2_filter *filters, int nfilters, struct sc_ec2_tag_row *out,
                    int cap, int n)
{
    for (int k = 0; k < t->n; k++) {
        int ok = 1;

        for (int j = 0; ok && j < nfilters; j++) {
            const char *name = filters[j].name;

            ok = values_match(&filters[j], strcmp(name, "resource-id") == 0     ? id
                                           : strcmp(name, "resource-type") == 0 ? type
                                           : strcmp(name, "key") == 0           ? t->v[k].key
                                                                                : t->v[k].value);
        }
        if (!ok)
            continue;
        if (n < cap)
            out[n] = (struct sc_ec2_tag_row){ id, type, t->v[k].key, t->v[k].value };
        n++;
    }
    return n;
}

enum sc_status sc_ec2_describe_tags(const struct sc_ec2 *ec2, const struct sc_ec2_filter *filters,
                                    int nfilters, struct sc_ec2_tag_row *out, int cap, int *nout,
                                    struct sc_error *err)
{
    static const char *const known[] = { "resource-id", "resource-type", "key", "value", NULL };
    enum sc_status st;
    int n = 0;

    *nout = 0;
    st = check_filters(filters, nfilters, known, 0, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < ec2->ninsts; i++)
        n = tag_rows(ec2->insts[i]->id, "instance", &ec2->insts[i]->tags, filters, nfilters, out,
                     cap, n);
    for (int i = 0; i < ec2->nvpcs; i++)
        n = tag_rows(ec2->vpcs[i]->id, "vpc", &ec2->vpcs[i]->tags, filters, nfilters, out, cap, n);
    for (int i = 0; i < ec2->nsubnets; i++)
        n = tag_rows(ec2->subnets[i]->id, "subnet", &ec2->subnets[i]->tags, filters, nfilters, out,
                     cap, n);
    for (int i = 0; i < ec2->nlts; i++)
        n = tag_rows(ec2->lts[i]->id, "launch-template", &ec2->lts[i]->tags, filters, nfilters, out,
                     cap, n);
    *nout = n;
    return SC_OK;
}

/* --- data plane ------------------------------------------------------------------------------- */

static enum sc_status data_plane_get(struct sc_ec2 *ec2, const char *id, struct inst **out)
{
    *out = inst_mut(ec2, id);
    return *out ? SC_OK : SC_ERR_INSTANCE_ID_NOT_FOUND;
}

/* The data plane saw instance id reach state `to`, which only `from` leads to; a repeated
 * report is a no-op. *moved is the instance when its state changed now, else NULL. */
static enum sc_status data_plane_move(struct sc_ec2 *ec2, const char *id, enum sc_ec2_state from,
                                      enum sc_ec2_state to, int64_t now_ms, struct inst **moved)
{
    struct inst *in;

    *moved = NULL;
    ec2->generation++;
    if (data_plane_get(ec2, id, &in) != SC_OK)
        return SC_ERR_INSTANCE_ID_NOT_FOUND;
    if (in->v.state == to)
        return SC_OK;
    if (in->v.state != from)
        return SC_ERR_INCORRECT_INSTANCE_STATE;
    set_state(in, to, now_ms);
    *moved = in;
    return SC_OK;
}

enum sc_status sc_ec2_instance_running(struct sc_ec2 *ec2, const char *id, int64_t now_ms)
{
    struct inst *in;
    enum sc_status st = data_plane_move(ec2, id, SC_EC2_PENDING, SC_EC2_RUNNING, now_ms, &in);

    if (!in)
        return st;
    clear_reason(in);
    in->v.impaired_since_ms = 0;
    if (ec2->status_init_ms > 0) {
        in->v.system_status = SC_EC2_CHECK_INITIALIZING;
        in->v.instance_status = SC_EC2_CHECK_INITIALIZING;
        in->checks_ok_at_ms = now_ms + ec2->status_init_ms;
    } else {
        in->v.system_status = SC_EC2_CHECK_OK;
        in->v.instance_status = SC_EC2_CHECK_OK;
    }
    return SC_OK;
}

enum sc_status sc_ec2_instance_terminated(struct sc_ec2 *ec2, const char *id, int64_t now_ms)
{
    struct inst *in;

    return data_plane_move(ec2, id, SC_EC2_SHUTTING_DOWN, SC_EC2_TERMINATED, now_ms, &in);
}

enum sc_status sc_ec2_instance_stopped(struct sc_ec2 *ec2, const char *id, int64_t now_ms)
{
    struct inst *in;

    return data_plane_move(ec2, id, SC_EC2_STOPPING, SC_EC2_STOPPED, now_ms, &in);
}

enum sc_status sc_ec2_instance_lost(struct sc_ec2 *ec2, const char *id, int64_t now_ms)
{
    struct inst *in;
    int64_t since;

    ec2->generation++;
    if (data_plane_get(ec2, id, &in) != SC_OK)
        return SC_ERR_INSTANCE_ID_NOT_FOUND;
    if (in->v.state == SC_EC2_TERMINATED)
        return SC_OK;
    since = in->v.instance_status == SC_EC2_CHECK_IMPAIRED ? in->v.impaired_since_ms : now_ms;
    set_state(in, SC_EC2_TERMINATED, now_ms);
    in->v.instance_status = SC_EC2_CHECK_IMPAIRED;
    in->v.system_status = SC_EC2_CHECK_IMPAIRED;
    in->v.impaired_since_ms = since;
    set_reason(in, "Server.InternalError", REASON_LOST, now_ms);
    return SC_OK;
}

enum sc_status sc_ec2_instance_set_impaired(struct sc_ec2 *ec2, const char *id, int impaired,
                                            int64_t now_ms)
{
    struct inst *in;

    ec2->generation++;
    if (data_plane_get(ec2, id, &in) != SC_OK)
        return SC_ERR_INSTANCE_ID_NOT_FOUND;
    if (in->v.state != SC_EC2_RUNNING)
        return SC_ERR_INCORRECT_INSTANCE_STATE;
    if (impaired) {
        if (in->v.instance_status != SC_EC2_CHECK_IMPAIRED)
            in->v.impaired_since_ms = now_ms;
        in->v.instance_status = SC_EC2_CHECK_IMPAIRED;
    } else {
        in->v.impaired_since_ms = 0;
        in->v.instance_status =
            in->checks_ok_at_ms > now_ms ? SC_EC2_CHECK_INITIALIZING : SC_EC2_CHECK_OK;
    }
    return SC_OK;
}

/* --- time ------------------------------------------------------------------------------------- */

static void purge(struct sc_ec2 *ec2, int i)
{
    struct inst *in = ec2->insts[i];
    struct resv *r = in->resv;
    int k;

    ec2->generation++;
    for (k = 0; k < r->n && r->members[k] != &in->v; k++)
        ;
    if (k < r->n) {
        memmove(&r->members[k], &r->members[k + 1], (size_t)(r->n - k - 1) * sizeof(r->members[0]));
        r->n--;
        r->v.ninstances = r->n;
    }
    if (r->n == 0) {
        for (k = 0; k < ec2->nresvs && ec2->resvs[k] != r; k++)
            ;
        if (k < ec2->nresvs) {
            memmove(&ec2->resvs[k], &ec2->resvs[k + 1],
                    (size_t)(ec2->nresvs - k - 1) * sizeof(ec2->resvs[0]));
            ec2->nresvs--;
        }
        resv_free(r);
    }
    index_del(ec2, in);
    inst_free(in);
    memmove(&ec2->insts[i], &ec2->insts[i + 1],
            (size_t)(ec2->ninsts - i - 1) * sizeof(ec2->insts[0]));
    ec2->ninsts--;
}

void sc_ec2_step(struct sc_ec2 *ec2, int64_t now_ms)
{
    for (int i = 0; i < ec2->ninsts;) {
        struct inst *in = ec2->insts[i];

        if (in->v.state == SC_EC2_TERMINATED &&
            now_ms - in->v.state_changed_ms >= ec2->retention_ms) {
            purge(ec2, i);
            continue;
        }
        if (in->v.state == SC_EC2_RUNNING && now_ms >= in->checks_ok_at_ms &&
            (in->v.system_status == SC_EC2_CHECK_INITIALIZING ||
             in->v.instance_status == SC_EC2_CHECK_INITIALIZING)) {
            ec2->generation++;
            if (in->v.system_status == SC_EC2_CHECK_INITIALIZING)
                in->v.system_status = SC_EC2_CHECK_OK;
            if (in->v.instance_status == SC_EC2_CHECK_INITIALIZING)
                in->v.instance_status = SC_EC2_CHECK_OK;
        }
        i++;
    }
}

int64_t sc_ec2_next_due_ms(const struct sc_ec2 *ec2, int64_t now_ms)
{
    int64_t due = INT64_MAX;

    (void)now_ms;
    for (int i = 0; i < ec2->ninsts; i++) {
        const struct inst *in = ec2->insts[i];
        int64_t t = INT64_MAX;

        if (in->v.state == SC_EC2_TERMINATED)
            t = in->v.state_changed_ms + ec2->retention_ms;
        else if (in->v.state == SC_EC2_RUNNING &&
                 (in->v.system_status == SC_EC2_CHECK_INITIALIZING ||
                  in->v.instance_status == SC_EC2_CHECK_INITIALIZING))
            t = in->checks_ok_at_ms;
        if (t < due)
            due = t;
    }
    return due;
}

/* --- save / load (the emulator's --state; see ec2.h) ------------------------------------------ */

static json_t *tagset_save(const struct tagset *t)
{
    json_t *a = json_array();

    for (int i = 0; a && i < t->n; i++) {
        json_t *o = json_pack("{s:s,s:s}", "key", t->v[i].key, "value", t->v[i].value);

        if (!o || json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static void tagset_load(struct sc_load *l, const json_t *o, const char *key, struct tagset *t)
{
    const json_t *a = sc_load_array(l, o, key);
    size_t k;
    const json_t *x;

    if (!a)
        return;
    json_array_foreach(a, k, x)
    {
        const char *tk = sc_load_cstr(l, x, "key");
        const char *tv = sc_load_cstr(l, x, "value");

        if (l->failed)
            return;
        if (tagset_set(t, tk, tv) < 0) {
            sc_load_fail(l, "%s: out of memory", key);
            return;
        }
    }
}

static const char *check_intern(int c)
{
    return sc_ec2_check_name((enum sc_ec2_check)c);
}

static int check_parse(const char *s)
{
    for (int c = SC_EC2_CHECK_NOT_APPLICABLE; s && c <= SC_EC2_CHECK_IMPAIRED; c++) {
        if (strcmp(check_intern(c), s) == 0)
            return c;
    }
    return -1;
}

/* The record savers (rec_save_fn): record i of the ec2 in ctx. */
static json_t *zone_save(const void *ctx, int i)
{
    const struct zone *z = &((const struct sc_ec2 *)ctx)->zones[i];

    return json_pack("{s:s,s:b}", "name", z->name, "available", z->available);
}

static json_t *vpc_save(const void *ctx, int i)
{
    const struct vpc *v = ((const struct sc_ec2 *)ctx)->vpcs[i];

    return json_pack("{s:s,s:s,s:s,s:s,s:b,s:o*}", "id", v->id, "dhcp", v->dhcp, "sg_id", v->sg_id,
                     "cidr", v->cidr, "is_default", v->v.is_default, "tags", tagset_save(&v->tags));
}

static json_t *subnet_save(const void *ctx, int i)
{
    const struct subnet *s = ((const struct sc_ec2 *)ctx)->subnets[i];

    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:b,s:b,s:o*}", "id", s->id, "arn", s->arn, "vpc_id",
                     s->vpc->id, "cidr", s->cidr, "availability_zone", s->zone->name,
                     "available_ip_address_count", s->v.available_ip_address_count,
                     "default_for_az", s->v.default_for_az, "map_public_ip_on_launch",
                     s->v.map_public_ip_on_launch, "tags", tagset_save(&s->tags));
}

static json_t *resv_save(const void *ctx, int i)
{
    const struct resv *r = ((const struct sc_ec2 *)ctx)->resvs[i];
    json_t *ids = json_array();
    int bad = 0;

    for (int k = 0; ids && k < r->n; k++)
        bad |= json_array_append_new(ids, json_string(r->members[k]->instance_id));
    if (bad) {
        json_decref(ids);
        return NULL;
    }
    return json_pack("{s:s,s:o*}", "id", r->id, "instances", ids);
}

static json_t *inst_save(const void *ctx, int i)
{
    const struct inst *in = ((const struct sc_ec2 *)ctx)->insts[i];
    json_t *o = json_object();
    int bad = !o;

    if (bad)
        return NULL;
    bad |= sc_save_str(o, "id", in->id);
    bad |= sc_save_str(o, "reservation_id", in->resv ? in->resv->id : NULL);
    bad |= sc_save_str(o, "state", sc_ec2_state_name(in->v.state));
    bad |= sc_save_str(o, "transition", in->v.state_transition_reason);
    bad |= sc_save_str(o, "reason_code", in->v.state_reason_code);
    bad |= sc_save_str(o, "subnet_id", in->subnet ? in->subnet->id : NULL);
    bad |= sc_save_str(o, "availability_zone", in->v.availability_zone);
    bad |= sc_save_str(o, "dns", in->dns);
    bad |= sc_save_str(o, "instance_type", in->instance_type);
    bad |= sc_save_str(o, "image_id", in->image_id);
    bad |= sc_save_str(o, "key_name", in->key_name);
    bad |= sc_save_str(o, "user_data", in->user_data);
    bad |= sc_save_str(o, "launch_configuration_name", in->lc_name);
    bad |= sc_save_str(o, "launch_template_id", in->lt_id);
    bad |= sc_save_str(o, "launch_template_name", in->lt_name);
    bad |= sc_save_int(o, "launch_template_version", in->v.launch_template_version);
    bad |= sc_save_int(o, "ami_launch_index", in->v.ami_launch_index);
    bad |= sc_save_int(o, "launch_time_ms", in->v.launch_time_ms);
    bad |= sc_save_int(o, "state_changed_ms", in->v.state_changed_ms);
    bad |= sc_save_str(o, "system_status", check_intern(in->v.system_status));
    bad |= sc_save_str(o, "instance_status", check_intern(in->v.instance_status));
    bad |= sc_save_int(o, "impaired_since_ms", in->v.impaired_since_ms);
    bad |= sc_save_bool(o, "monitoring_enabled", in->v.monitoring_enabled);
    bad |= sc_save_int(o, "checks_ok_at_ms", in->checks_ok_at_ms);
    bad |= sc_save_take(o, "tags", tagset_save(&in->tags));
    return rec_save_done(o, bad);
}

static json_t *lt_save(const void *ctx, int i)
{
    const struct lt *t = ((const struct sc_ec2 *)ctx)->lts[i];
    json_t *o = json_object();
    json_t *vers = json_array();
    int bad = !o || !vers;

    for (int k = 0; !bad && k < t->nvers; k++) {
        const struct ltver *v = t->vers[k];
        json_t *vo = json_object();

        bad |= !vo;
        if (!vo)
            break;
        bad |= sc_save_int(vo, "version_number", v->v.version_number);
        bad |= sc_save_str(vo, "description", v->desc);
        bad |= sc_save_int(vo, "create_time_ms", v->v.create_time_ms);
        bad |= sc_save_str(vo, "image_id", v->image_id);
        bad |= sc_save_str(vo, "instance_type", v->instance_type);
        bad |= sc_save_str(vo, "key_name", v->key_name);
        bad |= sc_save_str(vo, "user_data", v->user_data);
        bad |= sc_save_strv(vo, "security_group_ids", v->sgs, v->nsgs);
        bad |= sc_save_bool(vo, "monitoring_enabled", v->v.data.monitoring_enabled);
        bad |= sc_save_take(vo, "tags", tagset_save(&v->tags));
        bad |= json_array_append_new(vers, vo);
    }
    if (!bad) {
        bad |= sc_save_str(o, "id", t->id);
        bad |= sc_save_str(o, "name", t->name);
        bad |= sc_save_str(o, "created_by", t->created_by);
        bad |= sc_save_int(o, "create_time_ms", t->v.create_time_ms);
        bad |= sc_save_int(o, "default_version_number", t->v.default_version_number);
        bad |= sc_save_take(o, "tags", tagset_save(&t->tags));
        bad |= sc_save_take(o, "versions", vers);
        vers = NULL;
    }
    json_decref(vers);
    return rec_save_done(o, bad);
}

json_t *sc_ec2_save(const struct sc_ec2 *ec2)
{
    json_t *o = json_object();
    int bad = !o;

    if (bad)
        return NULL;
    bad |= rec_rng_save(o, &ec2->rng);
    bad |= sc_save_int(o, "placement_rr", ec2->placement_rr);
    bad |= rec_save_list(o, "zones", ec2, ec2->nzones, zone_save);
    bad |= rec_save_list(o, "vpcs", ec2, ec2->nvpcs, vpc_save);
    bad |= rec_save_list(o, "subnets", ec2, ec2->nsubnets, subnet_save);
    bad |= rec_save_list(o, "reservations", ec2, ec2->nresvs, resv_save);
    bad |= rec_save_list(o, "instances", ec2, ec2->ninsts, inst_save);
    bad |= rec_save_list(o, "launch_templates", ec2, ec2->nlts, lt_save);
    return rec_save_done(o, bad);
}

static void vpcs_load(struct sc_ec2 *ec2, struct sc_load *l, const json_t *a, struct recs *d)
{
    size_t k;
    const json_t *x;

    d->vpcs = rec_load_ptrs(l, json_array_size(a));
    json_array_foreach(a, k, x)
    {
        struct vpc *v = rec_load_new(l, sizeof(*v));

        if (!v)
            return;
        d->vpcs[d->nvpcs++] = v;
        sc_load_buf(l, x, "id", v->id, sizeof(v->id));
        sc_load_buf(l, x, "dhcp", v->dhcp, sizeof(v->dhcp));
        sc_load_buf(l, x, "sg_id", v->sg_id, sizeof(v->sg_id));
        sc_load_buf(l, x, "cidr", v->cidr, sizeof(v->cidr));
        v->v.is_default = sc_load_bool(l, x, "is_default");
        tagset_load(l, x, "tags", &v->tags);
        if (!l->failed && cidr_parse(v->cidr, 0, 32, &v->base, &v->prefix) < 0)
            sc_load_fail(l, "vpc %s: bad cidr %s", v->id, v->cidr);
        vpc_link(ec2, v);
    }
}

static void subnets_load(struct sc_ec2 *ec2, struct sc_load *l, const json_t *a, struct recs *d)
{
    size_t k;
    const json_t *x;

    d->subnets = rec_load_ptrs(l, json_array_size(a));
    json_array_foreach(a, k, x)
    {
        struct subnet *s = rec_load_new(l, sizeof(*s));

        if (!s)
            return;
        d->subnets[d->nsubnets++] = s;
        sc_load_buf(l, x, "id", s->id, sizeof(s->id));
        s->arn = sc_load_str(l, x, "arn");
        sc_load_buf(l, x, "cidr", s->cidr, sizeof(s->cidr));
        s->vpc = vpc_in(d->vpcs, d->nvpcs, sc_load_cstr(l, x, "vpc_id"));
        s->zone = zone_get(ec2, sc_load_cstr(l, x, "availability_zone"));
        s->v.available_ip_address_count =
            sc_load_int_range(l, x, "available_ip_address_count", -(1 << 30), 1 << 30);
        s->v.default_for_az = sc_load_bool(l, x, "default_for_az");
        s->v.map_public_ip_on_launch = sc_load_bool(l, x, "map_public_ip_on_launch");
        tagset_load(l, x, "tags", &s->tags);
        if (l->failed)
            return;
        if (!s->arn || !s->vpc || !s->zone ||
            cidr_parse(s->cidr, 0, 32, &s->base, &s->prefix) < 0) {
            sc_load_fail(l, "subnet %s: unknown vpc or zone, or bad cidr", s->id);
            return;
        }
        subnet_link(ec2, s);
    }
}

static struct resv *loaded_resv(const struct recs *d, const char *id)
{
    for (int i = 0; id && i < d->nresvs; i++) {
        if (strcmp(d->resvs[i]->id, id) == 0)
            return d->resvs[i];
    }
    return NULL;
}

static void insts_load(struct sc_ec2 *ec2, struct sc_load *l, const json_t *a, struct recs *d)
{
    size_t k;
    const json_t *x;

    d->insts = rec_load_ptrs(l, json_array_size(a));
    json_array_foreach(a, k, x)
    {
        struct inst *in = rec_load_new(l, sizeof(*in));
        const char *s, *code;
        int st, c1, c2;

        if (!in)
            return;
        d->insts[d->ninsts++] = in;
        sc_load_buf(l, x, "id", in->id, sizeof(in->id));
        in->resv = loaded_resv(d, sc_load_cstr(l, x, "reservation_id"));
        st = sc_ec2_state_parse(sc_load_cstr(l, x, "state"));
        sc_load_buf(l, x, "transition", in->transition, sizeof(in->transition));
        code = json_string_value(json_object_get(x, "reason_code"));
        s = json_string_value(json_object_get(x, "subnet_id"));
        in->subnet = s ? subnet_in(d->subnets, d->nsubnets, s) : NULL;
        sc_load_buf(l, x, "dns", in->dns, sizeof(in->dns));
        in->instance_type = sc_load_str(l, x, "instance_type");
        in->image_id = sc_load_str(l, x, "image_id");
        in->key_name = sc_load_str(l, x, "key_name");
        in->user_data = sc_load_str(l, x, "user_data");
        in->lc_name = sc_load_str(l, x, "launch_configuration_name");
        in->lt_id = sc_load_str(l, x, "launch_template_id");
        in->lt_name = sc_load_str(l, x, "launch_template_name");
        in->v.launch_template_version = (long)sc_load_int(l, x, "launch_template_version");
        in->v.ami_launch_index = (int)sc_load_int(l, x, "ami_launch_index");
        in->v.launch_time_ms = sc_load_int(l, x, "launch_time_ms");
        in->v.state_changed_ms = sc_load_int(l, x, "state_changed_ms");
        c1 = check_parse(sc_load_cstr(l, x, "system_status"));
        c2 = check_parse(sc_load_cstr(l, x, "instance_status"));
        in->v.impaired_since_ms = sc_load_int(l, x, "impaired_since_ms");
        in->v.monitoring_enabled = sc_load_bool(l, x, "monitoring_enabled");
        in->checks_ok_at_ms = sc_load_int(l, x, "checks_ok_at_ms");
        tagset_load(l, x, "tags", &in->tags);
        if (l->failed)
            return;
        if (!in->resv || !in->subnet || st < 0 || c1 < 0 || c2 < 0) {
            sc_load_fail(l, "instance %s: unknown reservation, subnet, state or status", in->id);
            return;
        }
        if (inst_get(ec2, in->id) || !id_valid(in->id, "i-")) {
            sc_load_fail(l, "instance %s: malformed or duplicate id", in->id);
            return;
        }
        in->v.state_reason_code = NULL;
        in->v.state_reason_message = NULL;
        for (size_t r = 0; code && r < sizeof(reason_pairs) / sizeof(reason_pairs[0]); r++) {
            if (strcmp(code, reason_pairs[r][0]) == 0) {
                in->v.state_reason_code = reason_pairs[r][0];
                in->v.state_reason_message = reason_pairs[r][1];
            }
        }
        if (code && !in->v.state_reason_code) {
            sc_load_fail(l, "instance %s: unknown state reason %s", in->id, code);
            return;
        }
        inst_link(ec2, in);
        in->v.state = (enum sc_ec2_state)st;
        in->v.state_transition_reason = in->transition;
        in->v.system_status = (enum sc_ec2_check)c1;
        in->v.instance_status = (enum sc_ec2_check)c2;
    }
}

static void resvs_load(struct sc_load *l, const json_t *a, struct recs *d)
{
    size_t k;
    const json_t *x;

    d->resvs = rec_load_ptrs(l, json_array_size(a));
    json_array_foreach(a, k, x)
    {
        struct resv *r = rec_load_new(l, sizeof(*r));
        const json_t *ids;

        if (!r)
            return;
        d->resvs[d->nresvs++] = r;
        sc_load_buf(l, x, "id", r->id, sizeof(r->id));
        ids = sc_load_array(l, x, "instances");
        if (!ids)
            return;
        r->members = rec_load_ptrs(l, json_array_size(ids));
        r->v.reservation_id = r->id;
        r->v.instances = r->members;
    }
}

/* Second pass: reservation members, by id, in their saved order. */
static void resvs_link(struct sc_load *l, const json_t *a, struct recs *d)
{
    for (int i = 0; i < d->nresvs && !l->failed; i++) {
        struct resv *r = d->resvs[i];
        const json_t *ids = json_object_get(json_array_get(a, (size_t)i), "instances");
        size_t k;
        const json_t *x;

        json_array_foreach(ids, k, x)
        {
            const struct inst *in = NULL;

            for (int j = 0; json_is_string(x) && j < d->ninsts; j++) {
                if (strcmp(d->insts[j]->id, json_string_value(x)) == 0)
                    in = d->insts[j];
            }
            if (!in || in->resv != r) {
                sc_load_fail(l, "reservation %s: unknown member", r->id);
                return;
            }
            r->members[r->n++] = &in->v;
        }
        r->v.ninstances = r->n;
    }
}

static void lts_load(struct sc_load *l, const json_t *a, struct recs *d)
{
    size_t k;
    const json_t *x;

    d->lts = rec_load_ptrs(l, json_array_size(a));
    json_array_foreach(a, k, x)
    {
        struct lt *t = rec_load_new(l, sizeof(*t));
        const json_t *vers, *vx;
        size_t j;

        if (!t)
            return;
        d->lts[d->nlts++] = t;
        sc_load_buf(l, x, "id", t->id, sizeof(t->id));
        t->name = sc_load_str(l, x, "name");
        t->created_by = sc_load_str(l, x, "created_by");
        t->v.create_time_ms = sc_load_int(l, x, "create_time_ms");
        t->v.default_version_number = (long)sc_load_int(l, x, "default_version_number");
        tagset_load(l, x, "tags", &t->tags);
        vers = sc_load_array(l, x, "versions");
        if (l->failed)
            return;
        if (!t->name || !t->created_by) {
            sc_load_fail(l, "launch template %s: no name", t->id);
            return;
        }
        t->v.launch_template_id = t->id;
        t->v.launch_template_name = t->name;
        t->v.created_by = t->created_by;
        json_array_foreach(vers, j, vx)
        {
            struct ltver *v = calloc(1, sizeof(*v));

            if (!v || grow(&t->vers, t->nvers, &t->capvers) < 0) {
                free(v);
                sc_load_fail(l, "out of memory");
                return;
            }
            t->vers[t->nvers++] = v;
            v->desc = sc_load_str(l, vx, "description");
            v->image_id = sc_load_str(l, vx, "image_id");
            v->instance_type = sc_load_str(l, vx, "instance_type");
            v->key_name = sc_load_str(l, vx, "key_name");
            v->user_data = sc_load_str(l, vx, "user_data");
            v->sgs = sc_load_strv(l, vx, "security_group_ids", &v->nsgs);
            v->v.data.monitoring_enabled = sc_load_bool(l, vx, "monitoring_enabled");
            v->v.create_time_ms = sc_load_int(l, vx, "create_time_ms");
            tagset_load(l, vx, "tags", &v->tags);
            if (!l->failed && sc_load_int(l, vx, "version_number") != t->nvers)
                sc_load_fail(l, "launch template %s: versions out of order", t->id);
            ltver_link(v, t, t->nvers);
        }
        t->v.latest_version_number = t->nvers;
        if (!l->failed && (t->nvers < 1 || t->v.default_version_number < 1 ||
                           t->v.default_version_number > t->nvers))
            sc_load_fail(l, "launch template %s: bad versions", t->id);
        lt_sync(t);
    }
}

enum sc_status sc_ec2_load(struct sc_ec2 *ec2, const json_t *obj, struct sc_error *err)
{
    struct sc_load l;
    struct recs d, fresh;
    const json_t *a, *resv_a = NULL;
    uint64_t rng[4] = { 0, 0, 0, 0 };
    int avail[MAX_ZONES];
    int rr;
    size_t k;
    const json_t *x;

    memset(&d, 0, sizeof(d));
    sc_load_init(&l, "ec2", err);
    if (ec2->ninsts || ec2->nlts || ec2->nresvs)
        return sc_fail(err, SC_ERR_VALIDATION, "state: ec2: load into a non-empty ec2");
    if (!json_is_object(obj))
        return sc_fail(err, SC_ERR_VALIDATION, "state: ec2: expected an object");
    rec_rng_load(&l, obj, rng);
    rr = sc_load_int_range(&l, obj, "placement_rr", 0, MAX_ZONES);
    a = sc_load_array(&l, obj, "zones");
    if (a && (int)json_array_size(a) != ec2->nzones)
        sc_load_fail(&l, "zones: the saved world has %zu zones, this one %d", json_array_size(a),
                     ec2->nzones);
    json_array_foreach(a, k, x)
    {
        const char *name;

        if (l.failed || k >= (size_t)ec2->nzones)
            break;
        name = sc_load_cstr(&l, x, "name");
        avail[k] = sc_load_bool(&l, x, "available");
        if (!l.failed && strcmp(name, ec2->zones[k].name) != 0)
            sc_load_fail(&l, "zones: saved zone %s is not this world's %s", name,
                         ec2->zones[k].name);
    }
    a = sc_load_array(&l, obj, "vpcs");
    if (a && !l.failed)
        vpcs_load(ec2, &l, a, &d);
    a = sc_load_array(&l, obj, "subnets");
    if (a && !l.failed)
        subnets_load(ec2, &l, a, &d);
    resv_a = sc_load_array(&l, obj, "reservations");
    if (resv_a && !l.failed)
        resvs_load(&l, resv_a, &d);
    a = sc_load_array(&l, obj, "instances");
    if (a && !l.failed && json_array_size(a) > (size_t)ec2->max_instances * 4)
        sc_load_fail(&l, "instances: too many");
    if (a && !l.failed)
        insts_load(ec2, &l, a, &d);
    if (!l.failed)
        resvs_link(&l, resv_a, &d);
    a = sc_load_array(&l, obj, "launch_templates");
    if (a && !l.failed)
        lts_load(&l, a, &d);
    if (!l.failed && d.nvpcs < 1)
        sc_load_fail(&l, "vpcs: the default VPC is missing");
    if (!l.failed && index_reserve(ec2, (size_t)d.ninsts) < 0)
        sc_load_fail(&l, "out of memory");
    if (l.failed) {
        recs_free(&d);
        return err ? err->status : SC_ERR_VALIDATION;
    }
    /* replace the fresh records (the default VPC and subnets made at create) */
    fresh = recs_of(ec2);
    recs_free(&fresh);
    ec2->vpcs = d.vpcs;
    ec2->nvpcs = ec2->capvpcs = d.nvpcs;
    ec2->subnets = d.subnets;
    ec2->nsubnets = ec2->capsubnets = d.nsubnets;
    ec2->insts = d.insts;
    ec2->ninsts = ec2->capinsts = d.ninsts;
    ec2->resvs = d.resvs;
    ec2->nresvs = ec2->capresvs = d.nresvs;
    ec2->lts = d.lts;
    ec2->nlts = ec2->caplts = d.nlts;
    for (int i = 0; i < ec2->ninsts; i++)
        index_put(ec2, ec2->insts[i]);
    for (int i = 0; i < ec2->nzones; i++) {
        ec2->zones[i].available = avail[i];
        ec2->zones[i].v.state = avail[i] ? "available" : "impaired";
    }
    memcpy(ec2->rng.s, rng, sizeof(rng));
    ec2->placement_rr = rr;
    ec2->generation++;
    return SC_OK;
}
