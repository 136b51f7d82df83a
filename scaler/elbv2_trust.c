/* scaler/elbv2_trust.c: see elbv2_trust.h. Trust stores, revocations, associations and
 * resource policies; the listeners' MutualAuthentication; capacity reservations and IPAM
 * pools (docs/elbv2.md 14-15). */
#include "scaler/elbv2_trust.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/elbv2_internal.h"
#include "scaler/str.h"

void v2_ts_free(struct tsrec *t)
{
    if (!t)
        return;
    free(t->name);
    free(t->arn);
    free(t->location);
    free(t->pem);
    free(t->subjects);
    for (int i = 0; i < t->nrevs; i++)
        free(t->revs[i].location);
    free(t->revs);
    kv_free(&t->tags);
    free(t);
}

void v2_trust_free_all(struct sc_elbv2 *v2)
{
    for (int i = 0; i < v2->ntss; i++)
        v2_ts_free(v2->tss[i]);
    free(v2->tss);
    v2->tss = NULL;
    v2->ntss = v2->captss = 0;
}

static struct tsrec *ts_find(const struct sc_elbv2 *v2, const char *arn)
{
    for (int i = 0; arn && i < v2->ntss; i++) {
        if (strcmp(v2->tss[i]->arn, arn) == 0)
            return v2->tss[i];
    }
    return NULL;
}

struct kvlist *v2_trust_tags(const struct sc_elbv2 *v2, const char *arn)
{
    struct tsrec *t = ts_find(v2, arn);

    return t ? &t->tags : NULL;
}

static enum sc_status ts_not_found(struct sc_error *err)
{
    return sc_fail(err, SC_ERR_TRUST_STORE_NOT_FOUND, "The specified trust store does not exist.");
}

/* 1..32 of ([a-zA-Z0-9]+-)*[a-zA-Z0-9]+ (model TrustStoreName) */
static int ts_name_valid(const char *s)
{
    size_t n = s ? strlen(s) : 0;

    if (n < 1 || n > 32 || s[0] == '-' || s[n - 1] == '-')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');

        if (!alnum && !(c == '-' && s[i + 1] != '-'))
            return 0;
    }
    return 1;
}

static enum sc_status check_bundle(const struct sc_elbv2_bundle *b, struct sc_error *err)
{
    if (!b || !b->found)
        return sc_fail(err, SC_ERR_CA_CERTIFICATES_BUNDLE_NOT_FOUND,
                       "The specified ca certificate bundle does not exist.");
    if (!b->parsed || b->ncerts < 1 || b->ncerts > SC_ELBV2_MAX_CA_CERTS)
        return sc_fail(err, SC_ERR_INVALID_CA_CERTIFICATES_BUNDLE,
                       "The specified ca certificate bundle is in an invalid format, or corrupt.");
    for (int i = 0; i < b->ncerts; i++) {
        const struct sc_elbv2_ca_cert *c = &b->certs[i];

        if (c->version != 3 || !c->is_ca || c->der_len > SC_ELBV2_MAX_CA_CERT_BYTES)
            return sc_fail(err, SC_ERR_INVALID_CA_CERTIFICATES_BUNDLE,
                           "The specified ca certificate bundle is in an invalid format, or "
                           "corrupt.");
    }
    return SC_OK;
}

/* Replaces t's bundle by b (checked). 0 or -1 (OOM, t unchanged). */
static int set_bundle(struct tsrec *t, const struct sc_elbv2_bundle *b)
{
    char *pem = malloc(b->pem_len + 1);
    char *loc = sc_strdup(b->location ? b->location : "");
    unsigned long *subj = calloc((size_t)b->ncerts, sizeof(*subj));

    if (!pem || !loc || !subj) {
        free(pem);
        free(loc);
        free(subj);
        return -1;
    }
    if (b->pem_len)
        memcpy(pem, b->pem, b->pem_len);
    pem[b->pem_len] = '\0';
    for (int i = 0; i < b->ncerts; i++)
        subj[i] = b->certs[i].subject;
    free(t->pem);
    free(t->location);
    free(t->subjects);
    t->pem = pem;
    t->pem_len = b->pem_len;
    t->location = loc;
    t->subjects = subj;
    t->nsubjects = b->ncerts;
    return 0;
}

void v2_ts_view(struct tsrec *t)
{
    long long total = 0;

    for (int i = 0; i < t->nrevs; i++) {
        t->revs[i].v.trust_store_arn = t->arn;
        t->revs[i].v.location = t->revs[i].location;
        t->revs[i].v.revocation_type = "CRL";
        total += t->revs[i].v.number_of_revoked_entries;
    }
    t->v.name = t->name;
    t->v.arn = t->arn;
    t->v.status = "ACTIVE";
    t->v.number_of_ca_certificates = t->nsubjects;
    t->v.total_revoked_entries = total;
    t->v.bundle_location = t->location;
}

enum sc_status sc_elbv2_create_trust_store(struct sc_elbv2 *v2, const char *name,
                                           const struct sc_elbv2_bundle *bundle,
                                           const struct sc_elbv2_kv *tags, int ntags,
                                           int64_t now_ms, const struct sc_elbv2_trust_store **out,
                                           struct sc_error *err)
{
    static const char b36[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    struct tsrec *t;
    char arn[SC_ELBV2_ARN_LEN], id[12];
    uint64_t r;
    enum sc_status st;

    (void)now_ms;
    if (!ts_name_valid(name))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'name' failed to satisfy "
                       "constraint: Member must satisfy regular expression pattern: "
                       "^([a-zA-Z0-9]+-)*[a-zA-Z0-9]+$",
                       name ? name : "");
    for (int i = 0; i < v2->ntss; i++) {
        if (strcmp(v2->tss[i]->name, name) == 0)
            return sc_fail(err, SC_ERR_DUPLICATE_TRUST_STORE_NAME,
                           "A trust store with the specified name already exists.");
    }
    if (v2->ntss >= SC_ELBV2_MAX_TRUST_STORES)
        return sc_fail(err, SC_ERR_TOO_MANY_TRUST_STORES,
                       "You've reached the limit on the number of trust stores for your AWS "
                       "account.");
    st = v2_check_tags(tags, ntags, err);
    if (st != SC_OK)
        return st;
    st = check_bundle(bundle, err);
    if (st != SC_OK)
        return st;
    if (v2_grow(&v2->tss, v2->ntss, &v2->captss, sizeof(*v2->tss)) != 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    t = calloc(1, sizeof(*t));
    if (!t)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    r = v2_rand(v2);
    for (int i = 0; i < 11; i++) {
        id[i] = b36[r % 36];
        r /= 36;
    }
    id[11] = '\0';
    snprintf(arn, sizeof(arn), "arn:aws:elasticloadbalancing:%s:%s:truststore/%s/%s", v2->region,
             v2->account, name, id);
    t->name = sc_strdup(name);
    t->arn = sc_strdup(arn);
    t->revs = calloc(SC_ELBV2_MAX_REVOCATIONS, sizeof(*t->revs));
    t->next_revocation_id = 1;
    if (!t->name || !t->arn || !t->revs || set_bundle(t, bundle) != 0 ||
        v2_tags_add(&t->tags, tags, ntags, err) != SC_OK) {
        v2_ts_free(t);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    v2_ts_view(t);
    v2->tss[v2->ntss++] = t;
    if (out)
        *out = &t->v;
    return SC_OK;
}

enum sc_status sc_elbv2_modify_trust_store(struct sc_elbv2 *v2, const char *arn,
                                           const struct sc_elbv2_bundle *bundle, int64_t now_ms,
                                           const struct sc_elbv2_trust_store **out,
                                           struct sc_error *err)
{
    struct tsrec *t = ts_find(v2, arn);
    enum sc_status st;

    (void)now_ms;
    if (!t)
        return ts_not_found(err);
    st = check_bundle(bundle, err);
    if (st != SC_OK)
        return st;
    if (set_bundle(t, bundle) != 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    v2_ts_view(t);
    if (out)
        *out = &t->v;
    return SC_OK;
}

/* 1 when a listener of load balancer lb_arn (NULL: any) uses trust store arn. */
static int ts_in_use(const struct sc_elbv2 *v2, const char *arn, const char *lb_arn)
{
    for (int i = 0; i < v2->nlis; i++) {
        const struct lisrec *l = v2->lis[i];

        if (l->mtls.trust_store_arn && strcmp(l->mtls.trust_store_arn, arn) == 0 &&
            (!lb_arn || strcmp(l->v.load_balancer_arn, lb_arn) == 0))
            return 1;
    }
    return 0;
}

enum sc_status sc_elbv2_delete_trust_store(struct sc_elbv2 *v2, const char *arn, int64_t now_ms,
                                           struct sc_error *err)
{
    (void)now_ms;
    for (int i = 0; i < v2->ntss; i++) {
        if (!arn || strcmp(v2->tss[i]->arn, arn) != 0)
            continue;
        if (ts_in_use(v2, arn, NULL))
            return sc_fail(err, SC_ERR_TRUST_STORE_IN_USE,
                           "Trust store '%s' is in use by one or more listeners", arn);
        v2_ts_free(v2->tss[i]);
        memmove(&v2->tss[i], &v2->tss[i + 1], sizeof(*v2->tss) * (size_t)(v2->ntss - i - 1));
        v2->ntss--;
        return SC_OK;
    }
    return ts_not_found(err);
}

enum sc_status sc_elbv2_describe_trust_stores(const struct sc_elbv2 *v2, const char *const *arns,
                                              int narns, const char *const *names, int nnames,
                                              const struct sc_elbv2_trust_store **out, int *nout,
                                              struct sc_error *err)
{
    *nout = 0;
    for (int i = 0; i < narns; i++) {
        if (!ts_find(v2, arns[i]))
            return ts_not_found(err);
    }
    for (int i = 0; i < nnames; i++) {
        int have = 0;

        for (int k = 0; k < v2->ntss; k++)
            have |= names[i] && strcmp(v2->tss[k]->name, names[i]) == 0;
        if (!have)
            return ts_not_found(err);
    }
    for (int k = 0; k < v2->ntss; k++) {
        const struct tsrec *t = v2->tss[k];
        int want = narns == 0 && nnames == 0;

        for (int i = 0; i < narns; i++)
            want |= strcmp(t->arn, arns[i]) == 0;
        for (int i = 0; i < nnames; i++)
            want |= strcmp(t->name, names[i]) == 0;
        if (want)
            out[(*nout)++] = &t->v;
    }
    return SC_OK;
}

int sc_elbv2_trust_store_count(const struct sc_elbv2 *v2)
{
    return v2->ntss;
}

const struct sc_elbv2_trust_store *sc_elbv2_trust_store_find(const struct sc_elbv2 *v2,
                                                             const char *arn)
{
    struct tsrec *t = ts_find(v2, arn);

    return t ? &t->v : NULL;
}

const char *sc_elbv2_trust_store_bundle(const struct sc_elbv2 *v2, const char *arn, size_t *len)
{
    struct tsrec *t = ts_find(v2, arn);

    if (len)
        *len = t ? t->pem_len : 0;
    return t ? t->pem : NULL;
}

/* --- revocations ------------------------------------------------------------------------------ */

enum sc_status sc_elbv2_add_revocations(struct sc_elbv2 *v2, const char *arn,
                                        const struct sc_elbv2_crl *crls, int n, int64_t now_ms,
                                        const struct sc_elbv2_revocation **out,
                                        struct sc_error *err)
{
    struct tsrec *t = ts_find(v2, arn);
    long long total;
    char *locs[SC_ELBV2_MAX_REVOCATIONS] = { 0 };

    (void)now_ms;
    if (!t)
        return ts_not_found(err);
    total = t->v.total_revoked_entries;
    for (int i = 0; i < n; i++) {
        const struct sc_elbv2_crl *c = &crls[i];
        int known = 0;

        if (!c->found)
            return sc_fail(err, SC_ERR_REVOCATION_CONTENT_NOT_FOUND,
                           "The specified revocation file does not exist.");
        for (int k = 0; k < t->nsubjects; k++)
            known |= t->subjects[k] == c->issuer;
        if (!c->parsed || !known || c->revoked < 0)
            return sc_fail(err, SC_ERR_INVALID_REVOCATION_CONTENT,
                           "The provided revocation file is an invalid format, or uses an "
                           "incorrect algorithm.");
        total += c->revoked;
    }
    if (t->nrevs + n > SC_ELBV2_MAX_REVOCATIONS || total > SC_ELBV2_MAX_REVOKED_ENTRIES)
        return sc_fail(err, SC_ERR_TOO_MANY_TRUST_STORE_REVOCATION_ENTRIES,
                       "The specified trust store has too many revocation entries.");
    for (int i = 0; i < n; i++) {
        locs[i] = sc_strdup(crls[i].location ? crls[i].location : "");
        if (!locs[i]) {
            for (int k = 0; k < i; k++)
                free(locs[k]);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
    }
    for (int i = 0; i < n; i++) {
        struct revrec *r = &t->revs[t->nrevs++];

        memset(r, 0, sizeof(*r));
        r->location = locs[i];
        r->issuer = crls[i].issuer;
        r->v.revocation_id = t->next_revocation_id++;
        r->v.number_of_revoked_entries = crls[i].revoked;
    }
    v2_ts_view(t);
    for (int i = 0; out && i < n; i++)
        out[i] = &t->revs[t->nrevs - n + i].v;
    return SC_OK;
}

static int rev_index(const struct tsrec *t, long long id)
{
    for (int i = 0; i < t->nrevs; i++) {
        if (t->revs[i].v.revocation_id == id)
            return i;
    }
    return -1;
}

static enum sc_status rev_not_found(struct sc_error *err)
{
    return sc_fail(err, SC_ERR_REVOCATION_ID_NOT_FOUND,
                   "The specified revocation ID does not exist.");
}

enum sc_status sc_elbv2_remove_revocations(struct sc_elbv2 *v2, const char *arn,
                                           const long long *ids, int n, int64_t now_ms,
                                           struct sc_error *err)
{
    struct tsrec *t = ts_find(v2, arn);

    (void)now_ms;
    if (!t)
        return ts_not_found(err);
    for (int i = 0; i < n; i++) {
        if (rev_index(t, ids[i]) < 0)
            return rev_not_found(err);
    }
    for (int i = 0; i < n; i++) {
        int k = rev_index(t, ids[i]);

        if (k < 0)
            continue; /* the same id twice */
        free(t->revs[k].location);
        memmove(&t->revs[k], &t->revs[k + 1], sizeof(*t->revs) * (size_t)(t->nrevs - k - 1));
        t->nrevs--;
    }
    v2_ts_view(t);
    return SC_OK;
}

enum sc_status sc_elbv2_describe_revocations(const struct sc_elbv2 *v2, const char *arn,
                                             const long long *ids, int n,
                                             const struct sc_elbv2_revocation **out, int *nout,
                                             struct sc_error *err)
{
    struct tsrec *t = ts_find(v2, arn);

    *nout = 0;
    if (!t)
        return ts_not_found(err);
    for (int i = 0; i < n; i++) {
        if (rev_index(t, ids[i]) < 0)
            return rev_not_found(err);
    }
    for (int k = 0; k < t->nrevs; k++) {
        int want = n == 0;

        for (int i = 0; i < n; i++)
            want |= ids[i] == t->revs[k].v.revocation_id;
        if (want)
            out[(*nout)++] = &t->revs[k].v;
    }
    return SC_OK;
}

/* --- associations, resource policies ---------------------------------------------------------- */

enum sc_status sc_elbv2_trust_store_associations(const struct sc_elbv2 *v2, const char *arn,
                                                 const char **out, int *nout, struct sc_error *err)
{
    *nout = 0;
    if (!ts_find(v2, arn))
        return ts_not_found(err);
    for (int i = 0; i < v2->nlbs; i++) {
        if (ts_in_use(v2, arn, v2->lbs[i]->v.arn))
            out[(*nout)++] = v2->lbs[i]->v.arn;
    }
    return SC_OK;
}

enum sc_status sc_elbv2_delete_shared_association(struct sc_elbv2 *v2, const char *arn,
                                                  const char *resource_arn, int64_t now_ms,
                                                  struct sc_error *err)
{
    (void)now_ms;
    if (!ts_find(v2, arn))
        return ts_not_found(err);
    if (!resource_arn || !ts_in_use(v2, arn, resource_arn))
        return sc_fail(err, SC_ERR_TRUST_STORE_ASSOCIATION_NOT_FOUND,
                       "The specified association does not exist.");
    return sc_fail(err, SC_ERR_DELETE_ASSOCIATION_SAME_ACCOUNT,
                   "The specified association can't be within the same account.");
}

enum sc_status sc_elbv2_resource_policy(const struct sc_elbv2 *v2, const char *arn,
                                        const char **policy, struct sc_error *err)
{
    *policy = NULL;
    if (ts_find(v2, arn))
        return SC_OK;
    return sc_fail(err, SC_ERR_V2_RESOURCE_NOT_FOUND, "The specified resource does not exist.");
}

/* --- MutualAuthentication --------------------------------------------------------------------- */

static int mtls_applies(const struct lbrec *b, const char *protocol)
{
    return b && v2_is_alb(b) && protocol && strcmp(protocol, "HTTPS") == 0;
}

enum sc_status sc_elbv2_check_mutual_auth(const struct sc_elbv2 *v2, const char *lb_arn,
                                          const char *listener_arn, const char *protocol,
                                          const struct sc_elbv2_mutual_auth *r,
                                          struct sc_error *err)
{
    const struct lbrec *b = v2_lb(v2, lb_arn);
    const struct tsrec *t;
    int verify = 0;

    if (!r)
        return SC_OK;
    if (!mtls_applies(b, protocol))
        return sc_fail(err, SC_ERR_V2_INVALID_CONFIGURATION_REQUEST,
                       "Mutual authentication is supported only for HTTPS listeners of "
                       "Application Load Balancers");
    if (!r->mode || (strcmp(r->mode, "off") != 0 && strcmp(r->mode, "passthrough") != 0 &&
                     strcmp(r->mode, "verify") != 0))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Mutual authentication mode '%s' is not valid; valid modes are off, "
                       "passthrough and verify",
                       r->mode ? r->mode : "");
    if (r->advertise_trust_store_ca_names && strcmp(r->advertise_trust_store_ca_names, "on") != 0 &&
        strcmp(r->advertise_trust_store_ca_names, "off") != 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at "
                       "'mutualAuthentication.advertiseTrustStoreCaNames' failed to satisfy "
                       "constraint: Member must satisfy enum value set: [on, off]",
                       r->advertise_trust_store_ca_names);
    if (strcmp(r->mode, "verify") != 0) {
        if (r->trust_store_arn)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "A trust store can be specified only in mutual authentication mode "
                           "'verify'");
        return SC_OK;
    }
    if (!r->trust_store_arn)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "A trust store must be specified in mutual authentication mode 'verify'");
    t = ts_find(v2, r->trust_store_arn);
    if (!t)
        return ts_not_found(err);
    if (strcmp(t->v.status, "ACTIVE") != 0)
        return sc_fail(err, SC_ERR_TRUST_STORE_NOT_READY,
                       "The specified trust store is not active.");
    for (int i = 0; i < v2->nlis; i++) {
        const struct lisrec *l = v2->lis[i];

        if (strcmp(l->v.load_balancer_arn, lb_arn) == 0 && l->mtls.mode &&
            strcmp(l->mtls.mode, "verify") == 0 &&
            !(listener_arn && strcmp(l->v.arn, listener_arn) == 0))
            verify++;
    }
    if (verify >= SC_ELBV2_MAX_VERIFY_LISTENERS)
        return sc_fail(err, SC_ERR_V2_INVALID_CONFIGURATION_REQUEST,
                       "A load balancer can have at most %d listeners in mutual authentication "
                       "mode 'verify'",
                       SC_ELBV2_MAX_VERIFY_LISTENERS);
    return SC_OK;
}

void v2_set_mutual_auth(struct lisrec *l, const struct lbrec *b, const char *protocol,
                        const struct sc_elbv2_mutual_auth *r)
{
    struct sc_elbv2_mutual_auth *m = &l->mtls;

    if (!mtls_applies(b, protocol)) {
        memset(m, 0, sizeof(*m));
        l->v.mutual_auth = NULL;
        return;
    }
    if (r) {
        int verify = strcmp(r->mode, "verify") == 0;

        snprintf(l->mtls_mode, sizeof(l->mtls_mode), "%s", r->mode);
        snprintf(l->mtls_ts, sizeof(l->mtls_ts), "%s", verify ? r->trust_store_arn : "");
        snprintf(l->mtls_adv, sizeof(l->mtls_adv), "%s",
                 verify && r->advertise_trust_store_ca_names ? r->advertise_trust_store_ca_names
                 : verify                                    ? "off"
                                                             : "");
        m->ignore_client_certificate_expiry = verify && r->ignore_client_certificate_expiry;
    } else if (!m->mode) {
        snprintf(l->mtls_mode, sizeof(l->mtls_mode), "off");
        l->mtls_ts[0] = l->mtls_adv[0] = '\0';
        m->ignore_client_certificate_expiry = 0;
    }
    m->mode = l->mtls_mode;
    m->trust_store_arn = l->mtls_ts[0] ? l->mtls_ts : NULL;
    m->advertise_trust_store_ca_names = l->mtls_adv[0] ? l->mtls_adv : NULL;
    m->trust_store_association_status = m->trust_store_arn ? "active" : NULL;
    l->v.mutual_auth = m;
}

/* --- capacity reservations -------------------------------------------------------------------- */

#define DAY_MS 86400000LL

static void capacity_view(const struct lbrec *b, int64_t now_ms, struct sc_elbv2_capacity *out)
{
    int pending =
        b->cap_modified_ms && now_ms < b->cap_modified_ms + SC_ELBV2_CAPACITY_PROVISION_MS;

    memset(out, 0, sizeof(*out));
    out->has_reservation = b->cap_units > 0;
    out->capacity_units = b->cap_units;
    out->last_modified_ms = b->cap_modified_ms;
    out->decrease_requests_remaining =
        SC_ELBV2_CAPACITY_DECREASES -
        (b->cap_decrease_day == now_ms / DAY_MS ? b->cap_decreases : 0);
    if (b->cap_units <= 0)
        return;
    for (int i = 0; i < b->v.nzones && i < 16; i++) {
        out->zones[i].zone = b->v.zones[i];
        out->zones[i].state = pending ? "pending" : "provisioned";
        out->zones[i].effective_capacity_units =
            pending ? 0.0 : (double)b->cap_units / (double)b->v.nzones;
    }
    out->nzones = b->v.nzones < 16 ? b->v.nzones : 16;
}

enum sc_status sc_elbv2_describe_capacity(const struct sc_elbv2 *v2, const char *lb_arn,
                                          int64_t now_ms, struct sc_elbv2_capacity *out,
                                          struct sc_error *err)
{
    const struct lbrec *b = v2_lb(v2, lb_arn);

    if (!b)
        return v2_not_found_lb(err);
    capacity_view(b, now_ms, out);
    return SC_OK;
}

enum sc_status sc_elbv2_modify_capacity(struct sc_elbv2 *v2, const char *lb_arn, int has_units,
                                        int units, int reset, int64_t now_ms,
                                        struct sc_elbv2_capacity *out, struct sc_error *err)
{
    struct lbrec *b = v2_lb(v2, lb_arn);
    int64_t day = now_ms / DAY_MS;
    int used, decrease;

    if (!b)
        return v2_not_found_lb(err);
    if (has_units == reset)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "You must specify either MinimumLoadBalancerCapacity or "
                       "ResetCapacityReservation, but not both");
    if (!v2_is_alb(b)) {
        for (int i = 0; i < v2->nlis; i++) {
            if (strcmp(v2->lis[i]->v.load_balancer_arn, b->v.arn) == 0 &&
                strcmp(v2->lis[i]->v.protocol, "TLS") == 0)
                return sc_fail(err, SC_ERR_OPERATION_NOT_PERMITTED,
                               "LCU reservation is not supported on Network Load Balancers "
                               "using TLS listeners");
        }
    }
    if (has_units && units < 1)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%d' at "
                       "'minimumLoadBalancerCapacity.capacityUnits' failed to satisfy "
                       "constraint: Member must have value greater than or equal to 1",
                       units);
    if (has_units && units > SC_ELBV2_MAX_CAPACITY_UNITS)
        return sc_fail(err, SC_ERR_CAPACITY_UNITS_LIMIT_EXCEEDED,
                       "You've exceeded the capacity units limit: the maximum is %d",
                       SC_ELBV2_MAX_CAPACITY_UNITS);
    if (b->cap_units > 0 && b->cap_modified_ms &&
        now_ms < b->cap_modified_ms + SC_ELBV2_CAPACITY_PROVISION_MS)
        return sc_fail(err, SC_ERR_CAPACITY_RESERVATION_PENDING,
                       "There is a pending capacity reservation.");
    decrease = has_units ? units < b->cap_units : b->cap_units > 0;
    used = b->cap_decrease_day == day ? b->cap_decreases : 0;
    if (decrease && used >= SC_ELBV2_CAPACITY_DECREASES)
        return sc_fail(err, SC_ERR_CAPACITY_DECREASE_LIMIT_EXCEEDED,
                       "You've exceeded the daily capacity decrease limit for this reservation.");
    if (decrease) {
        b->cap_decrease_day = day;
        b->cap_decreases = used + 1;
    }
    b->cap_units = has_units ? units : 0;
    b->cap_modified_ms = now_ms;
    if (out)
        capacity_view(b, now_ms, out);
    return SC_OK;
}

/* --- IPAM pools ------------------------------------------------------------------------------- */

static int pool_valid(const char *s)
{
    size_t n = s ? strlen(s) : 0;

    if (n <= 10 || n > 1000 || strncmp(s, "ipam-pool-", 10) != 0)
        return 0;
    for (size_t i = 10; i < n; i++) {
        char c = s[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return 0;
    }
    return 1;
}

enum sc_status sc_elbv2_modify_ip_pools(struct sc_elbv2 *v2, const char *lb_arn, const char *pool,
                                        int remove_ipv4, int64_t now_ms, const char **pool_out,
                                        struct sc_error *err)
{
    struct lbrec *b = v2_lb(v2, lb_arn);
    char *copy = NULL;

    (void)now_ms;
    if (!b)
        return v2_not_found_lb(err);
    if (pool && !pool_valid(pool))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'ipamPools.ipv4IpamPoolId' "
                       "failed to satisfy constraint: Member must satisfy regular expression "
                       "pattern: ^(ipam-pool-)[a-zA-Z0-9]+$",
                       pool);
    if (pool && remove_ipv4)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "An IPv4 IPAM pool cannot be both set and removed in one request");
    if (pool) {
        copy = sc_strdup(pool);
        if (!copy)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    if (pool || remove_ipv4) {
        free(b->ipam_pool);
        b->ipam_pool = copy;
        b->v.ipv4_ipam_pool_id = b->ipam_pool;
    }
    if (pool_out)
        *pool_out = b->ipam_pool;
    return SC_OK;
}

const char *sc_elbv2_lb_ipam_pool(const struct sc_elbv2 *v2, const char *lb_arn)
{
    const struct lbrec *b = v2_lb(v2, lb_arn);

    return b ? b->ipam_pool : NULL;
}
