/* scaler/ec2.c: see ec2.h. The core of struct sc_ec2: small helpers, what the Describe
 * calls share, the records (ids, state names), create / destroy, the data plane and time.
 * The resources live beside it in ec2_*.c, over ec2_internal.h. */
#include "scaler/ec2.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scaler/ec2_internal.h"
#include "scaler/rec.h"
#include "scaler/rng.h"

#define DEFAULT_ACCOUNT       "123456789012"
#define DEFAULT_REGION        "us-east-1"
#define DEFAULT_RETENTION_MS  3600000
#define DEFAULT_MAX_INSTANCES 10000

/* --- small helpers ---------------------------------------------------------------------------- */

static int is_hex_lower(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    }
    return 1;
}

/* prefix + (8 or 17) lower-case hex. */
int ec2_id_valid(const char *s, const char *prefix)
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
int ec2_values_match(const struct sc_ec2_filter *f, const char *v)
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
enum sc_status ec2_check_filters(const struct sc_ec2_filter *f, int n, const char *const *known,
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

/* --- Describe calls: what they share ---------------------------------------------------------- */

/* A record with id s is asked for: the list is empty (all are) or names it. */
int ec2_listed(const char *const *ids, int nids, const char *s)
{
    return nids == 0 || in_list(ids, nids, s);
}

/* Filters are ANDed (values within one are ORed, see ec2_values_match). Tag filters go to the
 * record's tags (NULL: a kind without tags, whose calls reject tag filters up front). */
int ec2_filters_pass(filter_fn *match, const void *rec, const struct tagset *tags,
                     const struct sc_ec2_filter *filters, int nfilters)
{
    for (int j = 0; j < nfilters; j++) {
        int t = tags ? ec2_tags_filter(tags, &filters[j]) : -1;

        if (!(t >= 0 ? t : match(rec, &filters[j])))
            return 0;
    }
    return 1;
}

/* How every Describe call starts: no rows yet, every filter name known, then every id
 * asked for held (the first one that is not gives the kind's error, as AWS checks ids
 * before it lists anything). */
enum sc_status ec2_describe_check(const struct sc_ec2 *ec2, const struct kind *k,
                                  const char *const *ids, int nids,
                                  const struct sc_ec2_filter *filters, int nfilters, int *nout,
                                  struct sc_error *err)
{
    enum sc_status st;

    *nout = 0;
    st = ec2_check_filters(filters, nfilters, k->known, k->tags, err);
    for (int i = 0; st == SC_OK && i < nids; i++) {
        if (!k->holds(ec2, ids[i]))
            st = k->unknown(ids[i] ? ids[i] : "", err);
    }
    return st;
}

/* --- records ---------------------------------------------------------------------------------- */

static uint64_t next_rand(struct sc_ec2 *ec2)
{
    if (ec2->rand64)
        return ec2->rand64(ec2->rand_ud);
    return sc_rng_next(&ec2->rng);
}

/* Grows a pointer array to hold one more; 0 or -1. */
int ec2_grow(void *arrp, int n, int *cap)
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

/* prefix + "0" + 16 hex, unique among the ids this struct holds. */
void ec2_make_id(struct sc_ec2 *ec2, const char *prefix, char out[SC_EC2_ID_LEN])
{
    for (;;) {
        uint64_t r = next_rand(ec2);

        snprintf(out, SC_EC2_ID_LEN, "%s0%016llx", prefix, (unsigned long long)r);
        if (!ec2_inst_find(ec2, out) && !ec2_vpc_find(ec2, out) && !ec2_subnet_find(ec2, out) &&
            !ec2_lt_find_id(ec2, out) && !ec2_sg_find(ec2, out))
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

/* --- create / destroy ------------------------------------------------------------------------- */

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
        ec2->max_vcpus = cfg->max_vcpus > 0 ? cfg->max_vcpus : 0;
        ec2->strict_images = cfg->strict_images;
        ec2->host_room = cfg->host_room;
        ec2->host_ud = cfg->host_ud;
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

    dv = ec2_vpc_new(ec2, 0xac1f0000u, 16, 1); /* 172.31.0.0/16 */
    if (!dv)
        goto fail;
    for (int i = 0; i < nz; i++) {
        if (!ec2_subnet_new(ec2, dv, 0xac1f0000u | (uint32_t)(i * 16) << 8, 20, &ec2->zones[i], 1))
            goto fail;
    }
    return ec2;

fail:
    sc_ec2_destroy(ec2);
    return NULL;
}

void ec2_inst_free(struct inst *in)
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
    ec2_tagset_free(&in->tags);
    free(in);
}

void ec2_ltver_free(struct ltver *v)
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
    ec2_tagset_free(&v->tags);
    json_decref(v->other);
    free(v);
}

void ec2_lt_free(struct lt *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nvers; i++)
        ec2_ltver_free(t->vers[i]);
    free(t->vers);
    free(t->name);
    free(t->created_by);
    ec2_tagset_free(&t->tags);
    free(t);
}

void ec2_resv_free(struct resv *r)
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
    ec2_tagset_free(&sn->tags);
    free(sn->arn);
    free(sn);
}

static void vpc_free(struct vpc *v)
{
    if (!v)
        return;
    ec2_tagset_free(&v->tags);
    free(v);
}

struct recs ec2_recs_of(const struct sc_ec2 *ec2)
{
    return (struct recs){ ec2->vpcs,   ec2->nvpcs, ec2->subnets, ec2->nsubnets, ec2->insts,
                          ec2->ninsts, ec2->resvs, ec2->nresvs,  ec2->lts,      ec2->nlts,
                          ec2->sgs,    ec2->nsgs,  ec2->enis,    ec2->nenis };
}

void ec2_recs_free(struct recs *d)
{
    for (int i = 0; i < d->nenis; i++)
        ec2_eni_free(d->enis[i]);
    free(d->enis);
    for (int i = 0; i < d->nsgs; i++)
        ec2_sg_free(d->sgs[i]);
    free(d->sgs);
    for (int i = 0; i < d->ninsts; i++)
        ec2_inst_free(d->insts[i]);
    free(d->insts);
    for (int i = 0; i < d->nresvs; i++)
        ec2_resv_free(d->resvs[i]);
    free(d->resvs);
    for (int i = 0; i < d->nlts; i++)
        ec2_lt_free(d->lts[i]);
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
    r = ec2_recs_of(ec2);
    ec2_recs_free(&r);
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

/* --- data plane ------------------------------------------------------------------------------- */

static enum sc_status data_plane_lookup(struct sc_ec2 *ec2, const char *id, struct inst **out)
{
    *out = ec2_inst_mut(ec2, id);
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
    if (data_plane_lookup(ec2, id, &in) != SC_OK)
        return SC_ERR_INSTANCE_ID_NOT_FOUND;
    if (in->v.state == to)
        return SC_OK;
    if (in->v.state != from)
        return SC_ERR_INCORRECT_INSTANCE_STATE;
    ec2_set_state(in, to, now_ms);
    *moved = in;
    return SC_OK;
}

enum sc_status sc_ec2_instance_running(struct sc_ec2 *ec2, const char *id, int64_t now_ms)
{
    struct inst *in;
    enum sc_status st = data_plane_move(ec2, id, SC_EC2_PENDING, SC_EC2_RUNNING, now_ms, &in);

    if (!in)
        return st;
    ec2_clear_reason(in);
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
    if (data_plane_lookup(ec2, id, &in) != SC_OK)
        return SC_ERR_INSTANCE_ID_NOT_FOUND;
    if (in->v.state == SC_EC2_TERMINATED)
        return SC_OK;
    since = in->v.instance_status == SC_EC2_CHECK_IMPAIRED ? in->v.impaired_since_ms : now_ms;
    ec2_set_state(in, SC_EC2_TERMINATED, now_ms);
    in->v.instance_status = SC_EC2_CHECK_IMPAIRED;
    in->v.system_status = SC_EC2_CHECK_IMPAIRED;
    in->v.impaired_since_ms = since;
    ec2_set_reason(in, "Server.InternalError", REASON_LOST, now_ms);
    return SC_OK;
}

enum sc_status sc_ec2_instance_set_impaired(struct sc_ec2 *ec2, const char *id, int impaired,
                                            int64_t now_ms)
{
    struct inst *in;

    ec2->generation++;
    if (data_plane_lookup(ec2, id, &in) != SC_OK)
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
        ec2_resv_free(r);
    }
    ec2_index_del(ec2, in);
    ec2_inst_free(in);
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
