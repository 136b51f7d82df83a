/* scaler/elbv2.c: see elbv2.h. Load balancers, tags, attributes and the
 * catalogue (listeners and rules: elbv2_listener.c; actions and conditions: elbv2_rule.c; target
 * groups and health: elbv2_target.c; save / load: elbv2_save.c). */
#include "scaler/elbv2.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/elbv2_internal.h"
#include "scaler/rec.h"

#define DEFAULT_ACCOUNT "123456789012"
#define DEFAULT_REGION  "us-east-1"

/* --- helpers ---------------------------------------------------------------------------------- */

const char *sa_keep(struct sarena *a, const char *s)
{
    char *c;

    if (!s)
        return NULL;
    if (v2_grow(&a->v, a->n, &a->cap, sizeof(*a->v)) != 0) {
        a->oom = 1;
        return NULL;
    }
    c = sc_strdup(s);
    if (!c) {
        a->oom = 1;
        return NULL;
    }
    a->v[a->n++] = c;
    return c;
}

void sa_free(struct sarena *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    memset(a, 0, sizeof(*a));
}

int kv_set(struct kvlist *l, const char *key, const char *value)
{
    const char *v = sa_keep(&l->a, value ? value : "");

    if (!v)
        return -1;
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->v[i].key, key) == 0) {
            l->v[i].value = v;
            return 0;
        }
    }
    if (v2_grow(&l->v, l->n, &l->cap, sizeof(*l->v)) != 0)
        return -1;
    l->v[l->n].key = sa_keep(&l->a, key);
    if (!l->v[l->n].key)
        return -1;
    l->v[l->n++].value = v;
    return 0;
}

void kv_remove(struct kvlist *l, const char *key)
{
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->v[i].key, key) == 0) {
            memmove(&l->v[i], &l->v[i + 1], (size_t)(l->n - i - 1) * sizeof(*l->v));
            l->n--;
            return;
        }
    }
}

void kv_free(struct kvlist *l)
{
    free(l->v);
    sa_free(&l->a);
    memset(l, 0, sizeof(*l));
}

int v2_grow(void *arrp, int n, int *cap, size_t elem)
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

uint64_t v2_rand(struct sc_elbv2 *v2)
{
    return v2->rand64 ? v2->rand64(v2->rand_ud) : sc_rng_next(&v2->rng);
}

void v2_hex_id(struct sc_elbv2 *v2, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)v2_rand(v2));
}

/* 1..32 of [A-Za-z0-9-], no leading or trailing '-' (docs/elbv2.md 2). */
int v2_name_valid(const char *s)
{
    size_t n = s ? strlen(s) : 0;

    if (n < 1 || n > 32 || s[0] == '-' || s[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!isalnum((unsigned char)s[i]) && s[i] != '-')
            return 0;
    }
    return 1;
}

enum sc_status v2_not_found_lb(struct sc_error *err)
{
    return sc_fail(err, SC_ERR_LOAD_BALANCER_NOT_FOUND, "One or more load balancers not found");
}

enum sc_status v2_not_found_tg(struct sc_error *err)
{
    return sc_fail(err, SC_ERR_TARGET_GROUP_NOT_FOUND, "One or more target groups not found");
}

enum sc_status v2_not_found_listener(struct sc_error *err)
{
    return sc_fail(err, SC_ERR_LISTENER_NOT_FOUND, "One or more listeners not found");
}

enum sc_status v2_not_found_rule(struct sc_error *err)
{
    return sc_fail(err, SC_ERR_RULE_NOT_FOUND, "One or more rules not found");
}

struct lbrec *v2_lb(const struct sc_elbv2 *v2, const char *arn)
{
    for (int i = 0; arn && i < v2->nlbs; i++) {
        if (strcmp(v2->lbs[i]->v.arn, arn) == 0)
            return v2->lbs[i];
    }
    return NULL;
}

struct tgrec *v2_tg(const struct sc_elbv2 *v2, const char *arn)
{
    for (int i = 0; arn && i < v2->ntgs; i++) {
        if (strcmp(v2->tgs[i]->v.arn, arn) == 0)
            return v2->tgs[i];
    }
    return NULL;
}

struct lisrec *v2_lis(const struct sc_elbv2 *v2, const char *arn)
{
    for (int i = 0; arn && i < v2->nlis; i++) {
        if (strcmp(v2->lis[i]->v.arn, arn) == 0)
            return v2->lis[i];
    }
    return NULL;
}

struct rulerec *v2_rule(const struct sc_elbv2 *v2, const char *arn)
{
    for (int i = 0; arn && i < v2->nrules; i++) {
        if (strcmp(v2->rules[i]->v.arn, arn) == 0)
            return v2->rules[i];
    }
    return NULL;
}

int v2_is_alb(const struct lbrec *b)
{
    return strcmp(b->v.type, "application") == 0;
}

static int prio_cmp(const void *a, const void *b)
{
    const struct sc_elbv2_rule *x = *(const struct sc_elbv2_rule *const *)a;
    const struct sc_elbv2_rule *y = *(const struct sc_elbv2_rule *const *)b;

    if (x->is_default != y->is_default)
        return x->is_default - y->is_default;
    return x->priority - y->priority;
}

void v2_sync(struct sc_elbv2 *v2)
{
    for (int l = 0; l < v2->nlis; l++) {
        struct lisrec *ls = v2->lis[l];
        int n = 0;

        for (int r = 0; r < v2->nrules; r++) {
            if (strcmp(v2->rules[r]->v.listener_arn, ls->v.arn) != 0)
                continue;
            if (v2_grow(&ls->order, n, &ls->caporder, sizeof(*ls->order)) != 0)
                break; /* OOM: the order is short; routing falls to what is there */
            ls->order[n++] = &v2->rules[r]->v;
        }
        qsort(ls->order, (size_t)n, sizeof(*ls->order), prio_cmp);
        ls->v.rules = ls->order;
        ls->v.nrules = n;
        ls->v.default_actions = ls->def->v.actions;
        ls->v.ndefault_actions = ls->def->v.nactions;
    }
    for (int t = 0; t < v2->ntgs; t++) {
        struct tgrec *g = v2->tgs[t];
        int n = 0;

        for (int b = 0; b < v2->nlbs; b++) {
            int uses = 0;

            for (int r = 0; r < v2->nrules && !uses; r++) {
                const struct rulerec *rr = v2->rules[r];
                const struct lisrec *ls = v2_lis(v2, rr->v.listener_arn);

                uses = ls && strcmp(ls->v.load_balancer_arn, v2->lbs[b]->v.arn) == 0 &&
                       v2_actions_forward_to(rr->v.actions, rr->v.nactions, g->v.arn);
            }
            if (!uses || v2_grow(&g->lbv, n, &g->caplbv, sizeof(*g->lbv)) != 0)
                continue;
            g->lbv[n++] = v2->lbs[b]->v.arn;
        }
        g->v.load_balancer_arns = g->lbv;
        g->v.nload_balancer_arns = n;
    }
}

/* --- create / destroy ------------------------------------------------------------------------- */

struct sc_elbv2 *sc_elbv2_create(const struct sc_elbv2_config *cfg)
{
    struct sc_elbv2 *v2;
    const char *account, *region;

    if (!cfg || !cfg->ec2)
        return NULL;
    account = cfg->account_id ? cfg->account_id : DEFAULT_ACCOUNT;
    region = cfg->region ? cfg->region : DEFAULT_REGION;
    if (!*account || !*region || strlen(account) >= 32 || strlen(region) >= 32)
        return NULL;
    v2 = calloc(1, sizeof(*v2));
    if (!v2)
        return NULL;
    snprintf(v2->account, sizeof(v2->account), "%s", account);
    snprintf(v2->region, sizeof(v2->region), "%s", region);
    v2->ec2 = cfg->ec2;
    v2->rand64 = cfg->rand64;
    v2->rand_ud = cfg->rand_ud;
    sc_rng_init(&v2->rng, cfg->seed);
    return v2;
}

void v2_lb_free(struct lbrec *b)
{
    if (!b)
        return;
    sa_free(&b->a);
    kv_free(&b->attrs);
    kv_free(&b->tags);
    free(b->ipam_pool);
    free(b);
}

void v2_lis_free(struct lisrec *l)
{
    if (!l)
        return;
    sa_free(&l->a);
    sa_free(&l->pa);
    free(l->order);
    kv_free(&l->attrs);
    kv_free(&l->tags);
    free(l);
}

void v2_rule_free(struct rulerec *r)
{
    if (!r)
        return;
    sa_free(&r->a);
    sa_free(&r->ca);
    sa_free(&r->aa);
    kv_free(&r->tags);
    free(r);
}

void sc_elbv2_destroy(struct sc_elbv2 *v2)
{
    if (!v2)
        return;
    for (int i = 0; i < v2->nlbs; i++)
        v2_lb_free(v2->lbs[i]);
    for (int i = 0; i < v2->ntgs; i++)
        v2_tg_free(v2->tgs[i]);
    for (int i = 0; i < v2->nlis; i++)
        v2_lis_free(v2->lis[i]);
    for (int i = 0; i < v2->nrules; i++)
        v2_rule_free(v2->rules[i]);
    free(v2->lbs);
    free(v2->tgs);
    free(v2->lis);
    free(v2->rules);
    v2_trust_free_all(v2);
    free(v2);
}

void sc_elbv2_step(struct sc_elbv2 *v2, int64_t now_ms)
{
    v2_targets_step(v2, now_ms);
}

int64_t sc_elbv2_next_due_ms(const struct sc_elbv2 *v2, int64_t now_ms)
{
    (void)now_ms;
    return v2_targets_next_due(v2);
}

/* --- tags ------------------------------------------------------------------------------------- */

enum sc_status v2_check_tags(const struct sc_elbv2_kv *tags, int n, struct sc_error *err)
{
    for (int i = 0; i < n; i++) {
        const char *k = tags[i].key;

        if (!k || !*k || strlen(k) > 128 || (tags[i].value && strlen(tags[i].value) > 256))
            return sc_fail(err, SC_ERR_VALIDATION, "Tag key '%s' or its value is not valid",
                           k ? k : "");
        if (strncmp(k, "aws:", 4) == 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Tag keys starting with 'aws:' are reserved for internal use");
        for (int j = 0; j < i; j++) {
            if (strcmp(tags[j].key, k) == 0)
                return sc_fail(err, SC_ERR_DUPLICATE_TAG_KEYS,
                               "Tag key '%s' was specified more than once", k);
        }
    }
    return SC_OK;
}

static int tags_after(const struct kvlist *l, const struct sc_elbv2_kv *tags, int n)
{
    int count = l->n;

    for (int i = 0; i < n; i++) {
        int have = 0;

        for (int j = 0; j < l->n && !have; j++)
            have = strcmp(l->v[j].key, tags[i].key) == 0;
        count += !have;
    }
    return count;
}

enum sc_status v2_tags_add(struct kvlist *l, const struct sc_elbv2_kv *tags, int n,
                           struct sc_error *err)
{
    enum sc_status st = v2_check_tags(tags, n, err);

    if (st != SC_OK)
        return st;
    if (tags_after(l, tags, n) > SC_ELBV2_MAX_TAGS)
        return sc_fail(err, SC_ERR_TOO_MANY_TAGS,
                       "The quota for the number of tags that can be assigned to a resource "
                       "has been reached");
    for (int i = 0; i < n; i++) {
        if (kv_set(l, tags[i].key, tags[i].value) != 0)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    return SC_OK;
}

/* The tag list of any ELBv2 ARN, or NULL with its kind's not-found error. */
static struct kvlist *tag_list(const struct sc_elbv2 *v2, const char *arn, struct sc_error *err)
{
    struct lbrec *b = v2_lb(v2, arn);
    struct tgrec *g;
    struct lisrec *l;
    struct rulerec *r;

    if (b)
        return &b->tags;
    g = v2_tg(v2, arn);
    if (g)
        return &g->tags;
    l = v2_lis(v2, arn);
    if (l)
        return &l->tags;
    r = v2_rule(v2, arn);
    if (r)
        return &r->tags;
    if (v2_trust_tags(v2, arn))
        return v2_trust_tags(v2, arn);
    if (arn && strstr(arn, ":truststore/"))
        sc_fail(err, SC_ERR_TRUST_STORE_NOT_FOUND, "The specified trust store does not exist.");
    else if (arn && strstr(arn, ":targetgroup/"))
        v2_not_found_tg(err);
    else if (arn && strstr(arn, ":listener-rule/"))
        v2_not_found_rule(err);
    else if (arn && strstr(arn, ":listener/"))
        v2_not_found_listener(err);
    else
        v2_not_found_lb(err);
    return NULL;
}

enum sc_status sc_elbv2_add_tags(struct sc_elbv2 *v2, const char *const *arns, int narns,
                                 const struct sc_elbv2_kv *tags, int ntags, int64_t now_ms,
                                 struct sc_error *err)
{
    enum sc_status st = v2_check_tags(tags, ntags, err);

    (void)now_ms;
    if (st != SC_OK)
        return st;
    for (int i = 0; i < narns; i++) {
        struct kvlist *l = tag_list(v2, arns[i], err);

        if (!l)
            return err ? err->status : SC_ERR_LOAD_BALANCER_NOT_FOUND;
        if (tags_after(l, tags, ntags) > SC_ELBV2_MAX_TAGS)
            return v2_tags_add(l, tags, ntags, err);
    }
    for (int i = 0; i < narns; i++) {
        st = v2_tags_add(tag_list(v2, arns[i], NULL), tags, ntags, err);
        if (st != SC_OK)
            return st;
    }
    return SC_OK;
}

enum sc_status sc_elbv2_remove_tags(struct sc_elbv2 *v2, const char *const *arns, int narns,
                                    const char *const *keys, int nkeys, int64_t now_ms,
                                    struct sc_error *err)
{
    (void)now_ms;
    for (int i = 0; i < narns; i++) {
        if (!tag_list(v2, arns[i], err))
            return err ? err->status : SC_ERR_LOAD_BALANCER_NOT_FOUND;
    }
    for (int i = 0; i < narns; i++) {
        struct kvlist *l = tag_list(v2, arns[i], NULL);

        for (int k = 0; k < nkeys; k++)
            kv_remove(l, keys[k]);
    }
    return SC_OK;
}

enum sc_status sc_elbv2_tags(const struct sc_elbv2 *v2, const char *arn,
                             const struct sc_elbv2_kv **out, int *n, struct sc_error *err)
{
    struct kvlist *l = tag_list(v2, arn, err);

    if (!l)
        return err ? err->status : SC_ERR_LOAD_BALANCER_NOT_FOUND;
    *out = l->v;
    *n = l->n;
    return SC_OK;
}

/* --- attributes ------------------------------------------------------------------------------- */

enum attr_kind { A_BOOL, A_INT, A_ENUM, A_STR };

/* One attribute key of a kind: its default for each family (NULL: the family does not
 * take it). For load balancers the families are application / network; for target groups
 * HTTP(S) / the others; for listeners HTTP(S) / TCP. */
struct attr_def {
    const char *key;
    const char *def_a, *def_b;
    enum attr_kind kind;
    long lo, hi;
    const char *enums; /* A_ENUM: "|a|b|c|" */
};

static const struct attr_def lb_attrs[] = {
    { "deletion_protection.enabled", "false", "false", A_BOOL, 0, 0, NULL },
    { "access_logs.s3.enabled", "false", "false", A_BOOL, 0, 0, NULL },
    { "access_logs.s3.bucket", "", "", A_STR, 0, 0, NULL },
    { "access_logs.s3.prefix", "", "", A_STR, 0, 0, NULL },
    { "load_balancing.cross_zone.enabled", "true", "false", A_BOOL, 0, 0, NULL },
    { "idle_timeout.timeout_seconds", "60", NULL, A_INT, 1, 4000, NULL },
    { "routing.http2.enabled", "true", NULL, A_BOOL, 0, 0, NULL },
    { "routing.http.drop_invalid_header_fields.enabled", "false", NULL, A_BOOL, 0, 0, NULL },
    { "routing.http.desync_mitigation_mode", "defensive", NULL, A_ENUM, 0, 0,
      "|monitor|defensive|strictest|" },
    { "routing.http.preserve_host_header.enabled", "false", NULL, A_BOOL, 0, 0, NULL },
    { "routing.http.x_amzn_tls_version_and_cipher_suite.enabled", "false", NULL, A_BOOL, 0, 0,
      NULL },
    { "routing.http.xff_client_port.enabled", "false", NULL, A_BOOL, 0, 0, NULL },
    { "routing.http.xff_header_processing.mode", "append", NULL, A_ENUM, 0, 0,
      "|append|preserve|remove|" },
    { "waf.fail_open.enabled", "false", NULL, A_BOOL, 0, 0, NULL },
    { "client_keep_alive.seconds", "3600", NULL, A_INT, 60, 604800, NULL },
    { "connection_logs.s3.enabled", "false", NULL, A_BOOL, 0, 0, NULL },
    { "connection_logs.s3.bucket", "", NULL, A_STR, 0, 0, NULL },
    { "connection_logs.s3.prefix", "", NULL, A_STR, 0, 0, NULL },
    { "zonal_shift.config.enabled", "false", "false", A_BOOL, 0, 0, NULL },
    { "dns_record.client_routing_policy", NULL, "any_availability_zone", A_ENUM, 0, 0,
      "|availability_zone_affinity|partial_availability_zone_affinity|any_availability_zone|" },
    { NULL, NULL, NULL, A_STR, 0, 0, NULL },
};

static const struct attr_def tg_attrs[] = {
    { "deregistration_delay.timeout_seconds", "300", "300", A_INT, 0, 3600, NULL },
    { "stickiness.enabled", "false", "false", A_BOOL, 0, 0, NULL },
    { "stickiness.type", "lb_cookie", "source_ip", A_ENUM, 0, 0,
      "|lb_cookie|app_cookie|source_ip|" },
    { "stickiness.lb_cookie.duration_seconds", "86400", NULL, A_INT, 1, 604800, NULL },
    { "stickiness.app_cookie.cookie_name", "", NULL, A_STR, 0, 0, NULL },
    { "stickiness.app_cookie.duration_seconds", "86400", NULL, A_INT, 1, 604800, NULL },
    { "slow_start.duration_seconds", "0", NULL, A_INT, 0, 900, NULL },
    { "load_balancing.algorithm.type", "round_robin", NULL, A_ENUM, 0, 0,
      "|round_robin|least_outstanding_requests|weighted_random|" },
    { "load_balancing.algorithm.anomaly_mitigation", "off", NULL, A_ENUM, 0, 0, "|on|off|" },
    { "load_balancing.cross_zone.enabled", "use_load_balancer_configuration",
      "use_load_balancer_configuration", A_ENUM, 0, 0,
      "|true|false|use_load_balancer_configuration|" },
    { "target_group_health.dns_failover.minimum_healthy_targets.count", "1", "1", A_STR, 0, 0,
      NULL },
    { "target_group_health.dns_failover.minimum_healthy_targets.percentage", "off", "off", A_STR, 0,
      0, NULL },
    { "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count", "1", "1", A_INT,
      1, 5000, NULL },
    { "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", "off",
      "off", A_STR, 0, 0, NULL },
    { "deregistration_delay.connection_termination.enabled", NULL, "false", A_BOOL, 0, 0, NULL },
    { "preserve_client_ip.enabled", NULL, "true", A_BOOL, 0, 0, NULL },
    { "proxy_protocol_v2.enabled", NULL, "false", A_BOOL, 0, 0, NULL },
    { NULL, NULL, NULL, A_STR, 0, 0, NULL },
};

static const struct attr_def lis_attrs[] = {
    { "routing.http.response.server.enabled", "true", NULL, A_BOOL, 0, 0, NULL },
    { "tcp.idle_timeout.seconds", NULL, "350", A_INT, 60, 6000, NULL },
    { NULL, NULL, NULL, A_STR, 0, 0, NULL },
};

static int attr_defaults(struct kvlist *l, const struct attr_def *t, int family_b)
{
    for (; t->key; t++) {
        const char *d = family_b ? t->def_b : t->def_a;

        if (d && kv_set(l, t->key, d) != 0)
            return -1;
    }
    return 0;
}

int v2_lb_attr_defaults(struct lbrec *b)
{
    return attr_defaults(&b->attrs, lb_attrs, !v2_is_alb(b));
}

static int tg_is_http(const struct tgrec *g)
{
    return strcmp(g->v.protocol, "HTTP") == 0 || strcmp(g->v.protocol, "HTTPS") == 0;
}

int v2_tg_attr_defaults(struct tgrec *g)
{
    if (attr_defaults(&g->attrs, tg_attrs, !tg_is_http(g)) != 0)
        return -1;
    /* UDP and TCP_UDP groups and ip targets do not preserve the client IP by default */
    if (!tg_is_http(g) && strcmp(g->v.target_type, "ip") == 0)
        return kv_set(&g->attrs, "preserve_client_ip.enabled", "false");
    return 0;
}

int v2_lis_attr_defaults(struct lisrec *l, const struct lbrec *b)
{
    if (v2_is_alb(b))
        return attr_defaults(&l->attrs, lis_attrs, 0);
    if (strcmp(l->v.protocol, "TCP") == 0)
        return attr_defaults(&l->attrs, lis_attrs, 1);
    return 0;
}

static int int_in(const char *v, long lo, long hi)
{
    char *end;
    long n;

    if (!v || !*v)
        return 0;
    n = strtol(v, &end, 10);
    return *end == '\0' && n >= lo && n <= hi;
}

static int enum_in(const char *enums, const char *v)
{
    char buf[128];

    if (!v || !*v || strchr(v, '|') || strlen(v) > 100)
        return 0;
    snprintf(buf, sizeof(buf), "|%s|", v);
    return strstr(enums, buf) != NULL;
}

static enum sc_status check_attrs(const struct kvlist *cur, const struct attr_def *t,
                                  const char *what, const struct sc_elbv2_kv *a, int n,
                                  struct sc_error *err)
{
    for (int i = 0; i < n; i++) {
        const struct attr_def *d = NULL;
        const char *v = a[i].value ? a[i].value : "";
        int have = 0;

        for (int k = 0; t[k].key; k++) {
            if (a[i].key && strcmp(t[k].key, a[i].key) == 0)
                d = &t[k];
        }
        for (int k = 0; d && k < cur->n; k++)
            have |= strcmp(cur->v[k].key, d->key) == 0;
        if (!d || !have)
            return sc_fail(err, SC_ERR_VALIDATION, "%s attribute key '%s' is not recognized", what,
                           a[i].key ? a[i].key : "");
        if ((d->kind == A_BOOL && strcmp(v, "true") != 0 && strcmp(v, "false") != 0) ||
            (d->kind == A_INT && !int_in(v, d->lo, d->hi)) ||
            (d->kind == A_ENUM && !enum_in(d->enums, v)))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "%s attribute value '%s' is not valid for key '%s'", what, v, d->key);
    }
    return SC_OK;
}

/* The value attrs would have after a (a's last setting of key, else cur's). */
static const char *value_after(const struct kvlist *cur, const struct sc_elbv2_kv *a, int n,
                               const char *key)
{
    for (int i = n - 1; i >= 0; i--) {
        if (a[i].key && strcmp(a[i].key, key) == 0)
            return a[i].value ? a[i].value : "";
    }
    return sc_elbv2_attr(cur->v, cur->n, key);
}

const char *sc_elbv2_attr(const struct sc_elbv2_kv *attrs, int n, const char *key)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(attrs[i].key, key) == 0)
            return attrs[i].value;
    }
    return NULL;
}

enum sc_status sc_elbv2_modify_attributes(struct sc_elbv2 *v2, const char *arn,
                                          const struct sc_elbv2_kv *attrs, int n, int64_t now_ms,
                                          struct sc_error *err)
{
    struct lbrec *b = v2_lb(v2, arn);
    struct tgrec *g = b ? NULL : v2_tg(v2, arn);
    struct lisrec *l = b || g ? NULL : v2_lis(v2, arn);
    struct kvlist *cur;
    enum sc_status st;

    (void)now_ms;
    if (b) {
        cur = &b->attrs;
        st = check_attrs(cur, lb_attrs, "Load balancer", attrs, n, err);
        if (st == SC_OK && v2_is_alb(b) &&
            strcmp(value_after(cur, attrs, n, "load_balancing.cross_zone.enabled"), "true") != 0)
            st = sc_fail(err, SC_ERR_V2_INVALID_CONFIGURATION_REQUEST,
                         "Cross-zone load balancing cannot be disabled for Application Load "
                         "Balancers");
        if (st == SC_OK &&
            strcmp(value_after(cur, attrs, n, "access_logs.s3.enabled"), "true") == 0 &&
            !*value_after(cur, attrs, n, "access_logs.s3.bucket"))
            st = sc_fail(err, SC_ERR_V2_INVALID_CONFIGURATION_REQUEST,
                         "The value of 'access_logs.s3.bucket' cannot be empty");
    } else if (g) {
        cur = &g->attrs;
        st = check_attrs(cur, tg_attrs, "Target group", attrs, n, err);
        if (st == SC_OK) {
            const char *ss = value_after(cur, attrs, n, "slow_start.duration_seconds");

            if (ss && strcmp(ss, "0") != 0 && !int_in(ss, 30, 900))
                st = sc_fail(err, SC_ERR_VALIDATION,
                             "Target group attribute value '%s' is not valid for key "
                             "'slow_start.duration_seconds'",
                             ss);
        }
        if (st == SC_OK && tg_is_http(g) &&
            strcmp(value_after(cur, attrs, n, "stickiness.type"), "source_ip") == 0)
            st = sc_fail(err, SC_ERR_VALIDATION,
                         "Target group attribute value 'source_ip' is not valid for key "
                         "'stickiness.type'");
        if (st == SC_OK && !tg_is_http(g) &&
            strcmp(value_after(cur, attrs, n, "stickiness.type"), "source_ip") != 0)
            st = sc_fail(err, SC_ERR_VALIDATION,
                         "Target group attribute value '%s' is not valid for key "
                         "'stickiness.type'",
                         value_after(cur, attrs, n, "stickiness.type"));
    } else if (l) {
        cur = &l->attrs;
        st = check_attrs(cur, lis_attrs, "Listener", attrs, n, err);
    } else {
        if (arn && strstr(arn, ":targetgroup/"))
            return v2_not_found_tg(err);
        if (arn && strstr(arn, ":listener/"))
            return v2_not_found_listener(err);
        return v2_not_found_lb(err);
    }
    if (st != SC_OK)
        return st;
    for (int i = 0; i < n; i++) {
        if (kv_set(cur, attrs[i].key, attrs[i].value) != 0)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    return SC_OK;
}

enum sc_status sc_elbv2_describe_attributes(const struct sc_elbv2 *v2, const char *arn,
                                            const struct sc_elbv2_kv **out, int *n,
                                            struct sc_error *err)
{
    struct lbrec *b = v2_lb(v2, arn);
    struct tgrec *g = b ? NULL : v2_tg(v2, arn);
    struct lisrec *l = b || g ? NULL : v2_lis(v2, arn);
    const struct kvlist *k = b ? &b->attrs : g ? &g->attrs : l ? &l->attrs : NULL;

    if (!k) {
        if (arn && strstr(arn, ":targetgroup/"))
            return v2_not_found_tg(err);
        if (arn && strstr(arn, ":listener/"))
            return v2_not_found_listener(err);
        return v2_not_found_lb(err);
    }
    *out = k->v;
    *n = k->n;
    return SC_OK;
}

/* --- load balancers --------------------------------------------------------------------------- */

/* The region's hosted zone for ALBs (the same as classic ELB's) and NLBs. */
static const char *hosted_zone(const char *region, int nlb)
{
    static const struct {
        const char *region, *alb, *nlb;
    } t[] = {
        { "us-east-1", "Z35SXDOTRQ7X7K", "Z26RNL4JYFTOTI" },
        { "us-east-2", "Z3AADJGX6KTTL2", "ZLMOA37VPKANP" },
        { "us-west-1", "Z368ELLRRE2KJ0", "Z24FKFUX50B4VW" },
        { "us-west-2", "Z1H1FL5HABSF5", "Z18D5FSROUN65G" },
        { "eu-west-1", "Z32O12XQLNTSW2", "Z2IFOLAFXWLO4F" },
        { "eu-central-1", "Z215JYRZR1TBD5", "Z3F0SRJ5LGBH90" },
    };

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (strcmp(t[i].region, region) == 0)
            return nlb ? t[i].nlb : t[i].alb;
    }
    return "Z35SXDOTRQ7X7K";
}

/* Resolves subnets to sorted (zone, subnet) pairs in one VPC. */
struct place {
    const char *zone[V2_MAX_ZONES], *subnet[V2_MAX_ZONES], *vpc;
    int n;
};

static enum sc_status resolve_subnets(const struct sc_elbv2 *v2, int alb,
                                      const char *const *subnets, int n, struct place *p,
                                      struct sc_error *err)
{
    memset(p, 0, sizeof(*p));
    if (n < 1)
        return sc_fail(err, SC_ERR_VALIDATION, "At least one subnet must be specified");
    if (n > V2_MAX_ZONES)
        return sc_fail(err, SC_ERR_VALIDATION, "Too many subnets");
    for (int i = 0; i < n; i++) {
        const struct sc_ec2_subnet *s = sc_ec2_subnet_find(v2->ec2, subnets[i]);
        int at;

        if (!s)
            return sc_fail(err, SC_ERR_ELB_SUBNET_NOT_FOUND,
                           "The specified subnet does not exist.");
        if (p->vpc && strcmp(p->vpc, s->vpc_id) != 0)
            return sc_fail(err, SC_ERR_ELB_INVALID_SUBNET, "Subnets must be in the same VPC");
        p->vpc = s->vpc_id;
        for (int k = 0; k < p->n; k++) {
            if (strcmp(p->zone[k], s->availability_zone) == 0)
                return sc_fail(err, SC_ERR_V2_INVALID_CONFIGURATION_REQUEST,
                               "Only one subnet per Availability Zone is allowed");
        }
        at = p->n;
        while (at > 0 && strcmp(p->zone[at - 1], s->availability_zone) > 0) {
            p->zone[at] = p->zone[at - 1];
            p->subnet[at] = p->subnet[at - 1];
            at--;
        }
        p->zone[at] = s->availability_zone;
        p->subnet[at] = s->subnet_id;
        p->n++;
    }
    if (alb && p->n < 2)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "At least two subnets in two different Availability Zones must be "
                       "specified");
    return SC_OK;
}

static enum sc_status check_groups(const struct sc_elbv2 *v2, const char *vpc,
                                   const char *const *groups, int n, struct sc_error *err)
{
    if (n > V2_MAX_SGS)
        return sc_fail(err, SC_ERR_VALIDATION, "Too many security groups");
    for (int i = 0; i < n; i++) {
        const struct sc_ec2_security_group *g = sc_ec2_security_group_find(v2->ec2, groups[i]);

        if (!g || (vpc && g->vpc_id && strcmp(g->vpc_id, vpc) != 0))
            return sc_fail(err, SC_ERR_ELB_INVALID_SECURITY_GROUP,
                           "One or more security groups are invalid");
    }
    return SC_OK;
}

static void lb_sync(struct lbrec *b)
{
    b->v.zones = b->zonev;
    b->v.subnets = b->subnetv;
    b->v.security_groups = b->sgv;
    b->v.attrs = b->attrs.v;
    b->v.nattrs = b->attrs.n;
}

static int set_place(struct lbrec *b, const struct place *p)
{
    for (int i = 0; i < p->n; i++) {
        b->zonev[i] = sa_keep(&b->a, p->zone[i]);
        b->subnetv[i] = sa_keep(&b->a, p->subnet[i]);
    }
    b->v.nzones = p->n;
    return b->a.oom ? -1 : 0;
}

static int set_groups(struct lbrec *b, const char *const *groups, int n)
{
    for (int i = 0; i < n; i++)
        b->sgv[i] = sa_keep(&b->a, groups[i]);
    b->v.nsecurity_groups = n;
    return b->a.oom ? -1 : 0;
}

static int same_strs(const char *const *a, int na, const char *const *b, int nb)
{
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++) {
        if (!in_list(b, nb, a[i]))
            return 0;
    }
    return 1;
}

enum sc_status sc_elbv2_create_load_balancer(struct sc_elbv2 *v2, const struct sc_elbv2_lb_req *r,
                                             int64_t now_ms, const struct sc_elbv2_lb **out,
                                             struct sc_error *err)
{
    const char *type = r->type ? r->type : "application";
    const char *scheme = r->scheme ? r->scheme : "internet-facing";
    const char *ipt = r->ip_address_type ? r->ip_address_type : "ipv4";
    const struct sc_ec2_security_group *defsg = NULL;
    struct lbrec *b, *old;
    struct place p;
    enum sc_status st;
    char arn[SC_ELBV2_ARN_LEN], dns[256];
    int alb, count = 0;

    if (!v2_name_valid(r->name) || strncmp(r->name, "internal-", 9) == 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Load balancer name '%s' is not valid",
                       r->name ? r->name : "");
    if (strcmp(type, "application") != 0 && strcmp(type, "network") != 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Load balancer type '%s' is not supported", type);
    if (strcmp(scheme, "internet-facing") != 0 && strcmp(scheme, "internal") != 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Scheme '%s' is not valid", scheme);
    if (strcmp(ipt, "ipv4") != 0 && strcmp(ipt, "dualstack") != 0 &&
        strcmp(ipt, "dualstack-without-public-ipv4") != 0)
        return sc_fail(err, SC_ERR_VALIDATION, "IP address type '%s' is not valid", ipt);
    alb = strcmp(type, "application") == 0;
    st = resolve_subnets(v2, alb, r->subnets, r->nsubnets, &p, err);
    if (st != SC_OK)
        return st;
    st = check_groups(v2, p.vpc, r->security_groups, r->nsecurity_groups, err);
    if (st != SC_OK)
        return st;
    st = v2_check_tags(r->tags, r->ntags, err);
    if (st != SC_OK)
        return st;
    if (r->ntags > SC_ELBV2_MAX_TAGS)
        return sc_fail(err, SC_ERR_TOO_MANY_TAGS,
                       "The quota for the number of tags that can be assigned to a resource "
                       "has been reached");
    old = (struct lbrec *)sc_elbv2_lb_find_name(v2, r->name);
    if (old) {
        int same =
            strcmp(old->v.type, type) == 0 && strcmp(old->v.scheme, scheme) == 0 &&
            same_strs(old->v.subnets, old->v.nzones, p.subnet, p.n) &&
            (r->nsecurity_groups == 0 || same_strs(old->v.security_groups, old->v.nsecurity_groups,
                                                   r->security_groups, r->nsecurity_groups));

        if (!same)
            return sc_fail(err, SC_ERR_DUPLICATE_LOAD_BALANCER_NAME,
                           "A load balancer with the same name '%s' exists, but with different "
                           "settings",
                           r->name);
        if (out)
            *out = &old->v;
        return SC_OK;
    }
    for (int i = 0; i < v2->nlbs; i++)
        count += strcmp(v2->lbs[i]->v.type, type) == 0;
    if (count >= SC_ELBV2_MAX_LOAD_BALANCERS)
        return sc_fail(err, SC_ERR_TOO_MANY_LOAD_BALANCERS,
                       "The maximum number of load balancers has been reached");
    if (alb && r->nsecurity_groups == 0) {
        defsg = sc_ec2_security_group_by_name(v2->ec2, p.vpc, "default");
        if (!defsg)
            return sc_fail(err, SC_ERR_ELB_INVALID_SECURITY_GROUP,
                           "One or more security groups are invalid");
    }
    if (v2_grow(&v2->lbs, v2->nlbs, &v2->caplbs, sizeof(*v2->lbs)) != 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    b = calloc(1, sizeof(*b));
    if (!b)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    v2_hex_id(v2, b->id);
    snprintf(arn, sizeof(arn), "arn:aws:elasticloadbalancing:%s:%s:loadbalancer/%s/%s/%s",
             v2->region, v2->account, alb ? "app" : "net", r->name, b->id);
    if (alb)
        snprintf(dns, sizeof(dns), "%s%s-%llu.%s.elb.amazonaws.com",
                 strcmp(scheme, "internal") == 0 ? "internal-" : "", r->name,
                 (unsigned long long)(v2_rand(v2) % 9000000000ULL + 100000000ULL), v2->region);
    else
        snprintf(dns, sizeof(dns), "%s%s-%s.elb.%s.amazonaws.com",
                 strcmp(scheme, "internal") == 0 ? "internal-" : "", r->name, b->id, v2->region);
    b->v.arn = sa_keep(&b->a, arn);
    b->v.name = sa_keep(&b->a, r->name);
    b->v.type = sa_keep(&b->a, type);
    b->v.scheme = sa_keep(&b->a, scheme);
    b->v.dns_name = sa_keep(&b->a, dns);
    b->v.canonical_hosted_zone_id = sa_keep(&b->a, hosted_zone(v2->region, !alb));
    b->v.vpc_id = sa_keep(&b->a, p.vpc);
    b->v.ip_address_type = sa_keep(&b->a, ipt);
    b->v.state = "active";
    b->v.created_ms = now_ms;
    if (set_place(b, &p) != 0 ||
        (defsg ? set_groups(b, &defsg->group_id, 1)
               : set_groups(b, r->security_groups, r->nsecurity_groups)) != 0 ||
        v2_lb_attr_defaults(b) != 0 || v2_tags_add(&b->tags, r->tags, r->ntags, err) != SC_OK) {
        v2_lb_free(b);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    lb_sync(b);
    v2->lbs[v2->nlbs++] = b;
    if (out)
        *out = &b->v;
    return SC_OK;
}

void v2_remove_listener(struct sc_elbv2 *v2, int li)
{
    struct lisrec *l = v2->lis[li];

    for (int r = v2->nrules - 1; r >= 0; r--) {
        if (strcmp(v2->rules[r]->v.listener_arn, l->v.arn) == 0) {
            v2_rule_free(v2->rules[r]);
            memmove(&v2->rules[r], &v2->rules[r + 1],
                    (size_t)(v2->nrules - r - 1) * sizeof(*v2->rules));
            v2->nrules--;
        }
    }
    v2_lis_free(l);
    memmove(&v2->lis[li], &v2->lis[li + 1], (size_t)(v2->nlis - li - 1) * sizeof(*v2->lis));
    v2->nlis--;
}

enum sc_status sc_elbv2_delete_load_balancer(struct sc_elbv2 *v2, const char *arn, int64_t now_ms,
                                             struct sc_error *err)
{
    int at = -1;

    (void)now_ms;
    for (int i = 0; i < v2->nlbs; i++) {
        if (arn && strcmp(v2->lbs[i]->v.arn, arn) == 0)
            at = i;
    }
    if (at < 0)
        return SC_OK;
    if (strcmp(sc_elbv2_attr(v2->lbs[at]->attrs.v, v2->lbs[at]->attrs.n,
                             "deletion_protection.enabled"),
               "true") == 0)
        return sc_fail(err, SC_ERR_OPERATION_NOT_PERMITTED,
                       "Load balancer '%s' cannot be deleted because deletion protection is "
                       "enabled",
                       arn);
    for (int l = v2->nlis - 1; l >= 0; l--) {
        if (strcmp(v2->lis[l]->v.load_balancer_arn, arn) == 0)
            v2_remove_listener(v2, l);
    }
    v2_lb_free(v2->lbs[at]);
    memmove(&v2->lbs[at], &v2->lbs[at + 1], (size_t)(v2->nlbs - at - 1) * sizeof(*v2->lbs));
    v2->nlbs--;
    v2_sync(v2);
    return SC_OK;
}

int sc_elbv2_lb_count(const struct sc_elbv2 *v2)
{
    return v2->nlbs;
}

const struct sc_elbv2_lb *sc_elbv2_lb_at(const struct sc_elbv2 *v2, int i)
{
    return i >= 0 && i < v2->nlbs ? &v2->lbs[i]->v : NULL;
}

const struct sc_elbv2_lb *sc_elbv2_lb_find(const struct sc_elbv2 *v2, const char *arn)
{
    struct lbrec *b = v2_lb(v2, arn);

    return b ? &b->v : NULL;
}

const struct sc_elbv2_lb *sc_elbv2_lb_find_name(const struct sc_elbv2 *v2, const char *name)
{
    for (int i = 0; name && i < v2->nlbs; i++) {
        if (strcmp(v2->lbs[i]->v.name, name) == 0)
            return &v2->lbs[i]->v;
    }
    return NULL;
}

enum sc_status sc_elbv2_describe_load_balancers(const struct sc_elbv2 *v2, const char *const *arns,
                                                int narns, const char *const *names, int nnames,
                                                const struct sc_elbv2_lb **out, int *nout,
                                                struct sc_error *err)
{
    *nout = 0;
    if (narns > 0 && nnames > 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Load balancer names and load balancer ARNs cannot be specified at the "
                       "same time");
    for (int i = 0; i < narns; i++) {
        const struct sc_elbv2_lb *b = sc_elbv2_lb_find(v2, arns[i]);

        if (!b)
            return v2_not_found_lb(err);
        out[(*nout)++] = b;
    }
    for (int i = 0; i < nnames; i++) {
        const struct sc_elbv2_lb *b = sc_elbv2_lb_find_name(v2, names[i]);

        if (!b)
            return sc_fail(err, SC_ERR_LOAD_BALANCER_NOT_FOUND, "Load balancers '[%s]' not found",
                           names[i]);
        out[(*nout)++] = b;
    }
    if (narns == 0 && nnames == 0) {
        for (int i = 0; i < v2->nlbs; i++)
            out[(*nout)++] = &v2->lbs[i]->v;
    }
    return SC_OK;
}

enum sc_status sc_elbv2_set_security_groups(struct sc_elbv2 *v2, const char *arn,
                                            const char *const *groups, int n, int64_t now_ms,
                                            struct sc_error *err)
{
    struct lbrec *b = v2_lb(v2, arn);
    enum sc_status st;

    (void)now_ms;
    if (!b)
        return v2_not_found_lb(err);
    if (!v2_is_alb(b) && b->v.nsecurity_groups == 0)
        return sc_fail(err, SC_ERR_V2_INVALID_CONFIGURATION_REQUEST,
                       "You cannot set security groups on a Network Load Balancer which was "
                       "created without any security groups.");
    if (v2_is_alb(b) && n == 0)
        return sc_fail(err, SC_ERR_VALIDATION, "At least one security group must be specified");
    st = check_groups(v2, b->v.vpc_id, groups, n, err);
    if (st != SC_OK)
        return st;
    if (set_groups(b, groups, n) != 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    return SC_OK;
}

enum sc_status sc_elbv2_set_subnets(struct sc_elbv2 *v2, const char *arn,
                                    const char *const *subnets, int n, int64_t now_ms,
                                    struct sc_error *err)
{
    struct lbrec *b = v2_lb(v2, arn);
    struct place p;
    enum sc_status st;

    (void)now_ms;
    if (!b)
        return v2_not_found_lb(err);
    st = resolve_subnets(v2, v2_is_alb(b), subnets, n, &p, err);
    if (st != SC_OK)
        return st;
    if (strcmp(p.vpc, b->v.vpc_id) != 0)
        return sc_fail(err, SC_ERR_ELB_INVALID_SUBNET, "Subnets must be in the same VPC");
    if (set_place(b, &p) != 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    return SC_OK;
}

enum sc_status sc_elbv2_set_ip_address_type(struct sc_elbv2 *v2, const char *arn, const char *type,
                                            int64_t now_ms, struct sc_error *err)
{
    struct lbrec *b = v2_lb(v2, arn);

    (void)now_ms;
    if (!b)
        return v2_not_found_lb(err);
    if (!type || (strcmp(type, "ipv4") != 0 && strcmp(type, "dualstack") != 0 &&
                  strcmp(type, "dualstack-without-public-ipv4") != 0))
        return sc_fail(err, SC_ERR_VALIDATION, "IP address type '%s' is not valid",
                       type ? type : "");
    if (strcmp(b->v.scheme, "internal") == 0 && strcmp(type, "ipv4") != 0)
        return sc_fail(err, SC_ERR_V2_INVALID_CONFIGURATION_REQUEST,
                       "Internal load balancers must use the 'ipv4' IP address type");
    b->v.ip_address_type = sa_keep(&b->a, type);
    return b->a.oom ? sc_fail(err, SC_ERR_INTERNAL, "out of memory") : SC_OK;
}

/* --- catalogue -------------------------------------------------------------------------------- */

static const char *const tls12[] = { "TLSv1.2" };
static const char *const tls10_12[] = { "TLSv1", "TLSv1.1", "TLSv1.2" };
static const char *const tls13[] = { "TLSv1.2", "TLSv1.3" };
static const char *const c2016[] = {
    "ECDHE-ECDSA-AES128-GCM-SHA256",
    "ECDHE-RSA-AES128-GCM-SHA256",
    "ECDHE-ECDSA-AES128-SHA256",
    "ECDHE-RSA-AES128-SHA256",
    "ECDHE-ECDSA-AES128-SHA",
    "ECDHE-RSA-AES128-SHA",
    "ECDHE-ECDSA-AES256-GCM-SHA384",
    "ECDHE-RSA-AES256-GCM-SHA384",
    "ECDHE-ECDSA-AES256-SHA384",
    "ECDHE-RSA-AES256-SHA384",
    "ECDHE-RSA-AES256-SHA",
    "ECDHE-ECDSA-AES256-SHA",
    "AES128-GCM-SHA256",
    "AES128-SHA256",
    "AES128-SHA",
    "AES256-GCM-SHA384",
    "AES256-SHA256",
    "AES256-SHA",
};
static const char *const c13[] = {
    "TLS_AES_128_GCM_SHA256",        "TLS_AES_256_GCM_SHA384",      "TLS_CHACHA20_POLY1305_SHA256",
    "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
    "ECDHE-RSA-AES256-GCM-SHA384",
};
static const char *const both[] = { "application", "network" };

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
static const struct sc_elbv2_ssl_policy ssl_policies[] = {
    { "ELBSecurityPolicy-2016-08", tls10_12, N(tls10_12), c2016, N(c2016), both, N(both) },
    { "ELBSecurityPolicy-TLS-1-2-2017-01", tls12, N(tls12), c2016, 12, both, N(both) },
    { "ELBSecurityPolicy-TLS13-1-2-2021-06", tls13, N(tls13), c13, N(c13), both, N(both) },
    { "ELBSecurityPolicy-TLS13-1-3-2021-06", tls13 + 1, 1, c13, 3, both, N(both) },
};

static const struct sc_elbv2_kv limits[] = {
    { "application-load-balancers", "50" },
    { "target-groups", "3000" },
    { "targets-per-application-load-balancer", "1000" },
    { "listeners-per-application-load-balancer", "50" },
    { "rules-per-application-load-balancer", "100" },
    { "network-load-balancers", "50" },
    { "targets-per-network-load-balancer", "3000" },
    { "targets-per-availability-zone-per-network-load-balancer", "500" },
    { "listeners-per-network-load-balancer", "50" },
    { "condition-values-per-alb-rule", "5" },
    { "condition-wildcards-per-alb-rule", "5" },
    { "target-groups-per-application-load-balancer", "100" },
    { "target-groups-per-action-on-application-load-balancer", "5" },
    { "target-groups-per-action-on-network-load-balancer", "1" },
    { "certificates-per-application-load-balancer", "25" },
    { "certificates-per-network-load-balancer", "25" },
    { "targets-per-target-group", "1000" },
    { "target-id-registrations-per-application-load-balancer", "1000" },
    { "network-load-balancer-enis-per-vpc", "1200" },
};

int sc_elbv2_ssl_policy_count(void)
{
    return N(ssl_policies);
}

const struct sc_elbv2_ssl_policy *sc_elbv2_ssl_policy_at(int i)
{
    return i >= 0 && i < N(ssl_policies) ? &ssl_policies[i] : NULL;
}

const struct sc_elbv2_ssl_policy *sc_elbv2_ssl_policy_find(const char *name)
{
    for (int i = 0; name && i < N(ssl_policies); i++) {
        if (strcmp(ssl_policies[i].name, name) == 0)
            return &ssl_policies[i];
    }
    return NULL;
}

int sc_elbv2_limit_count(void)
{
    return N(limits);
}

const struct sc_elbv2_kv *sc_elbv2_limit_at(int i)
{
    return i >= 0 && i < N(limits) ? &limits[i] : NULL;
}
