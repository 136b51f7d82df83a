/* emulator/api_elbv2_trust.c: see api_elbv2_trust.h. IR in -> the S3 object read
 * (s3_object.h) -> one sc_elbv2 call (scaler/elbv2_trust.h) -> IR out; every rule and
 * message is the library's. */
#include "emulator/api_elbv2_trust.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "emulator/s3_object.h"
#include "scaler/elbv2_trust.h"
#include "scaler/world.h"

static struct sc_elbv2 *v2_of(struct api_ctx *ctx)
{
    return sc_world_elbv2(ctx->world);
}

static const char *opt_str(json_t *in, const char *member)
{
    const char *v = api_str(in, member);

    return v && *v ? v : NULL;
}

const struct sc_elbv2_mutual_auth *api_elbv2_mutual_auth_get(json_t *in,
                                                             struct sc_elbv2_mutual_auth *m)
{
    json_t *ma = json_object_get(in, "MutualAuthentication");

    if (!json_is_object(ma))
        return NULL;
    memset(m, 0, sizeof(*m));
    m->mode = opt_str(ma, "Mode");
    m->trust_store_arn = opt_str(ma, "TrustStoreArn");
    m->ignore_client_certificate_expiry = api_bool(ma, "IgnoreClientCertificateExpiry", 0);
    m->advertise_trust_store_ca_names = opt_str(ma, "AdvertiseTrustStoreCaNames");
    return m;
}

json_t *api_elbv2_mutual_auth_json(const struct sc_elbv2_mutual_auth *m)
{
    json_t *o = json_pack("{s:s}", "Mode", m->mode);

    if (m->trust_store_arn) {
        json_object_set_new(o, "TrustStoreArn", json_string(m->trust_store_arn));
        json_object_set_new(o, "IgnoreClientCertificateExpiry",
                            json_boolean(m->ignore_client_certificate_expiry));
        json_object_set_new(o, "TrustStoreAssociationStatus",
                            json_string(m->trust_store_association_status));
    }
    if (m->advertise_trust_store_ca_names)
        json_object_set_new(o, "AdvertiseTrustStoreCaNames",
                            json_string(m->advertise_trust_store_ca_names));
    return o;
}

static json_t *ts_json(const struct sc_elbv2_trust_store *t)
{
    return json_pack("{s:s,s:s,s:s,s:i,s:I}", "Name", t->name, "TrustStoreArn", t->arn, "Status",
                     t->status, "NumberOfCaCertificates", t->number_of_ca_certificates,
                     "TotalRevokedEntries", (json_int_t)t->total_revoked_entries);
}

static json_t *rev_json(const struct sc_elbv2_revocation *r)
{
    return json_pack("{s:s,s:I,s:s,s:I}", "TrustStoreArn", r->trust_store_arn, "RevocationId",
                     (json_int_t)r->revocation_id, "RevocationType", r->revocation_type,
                     "NumberOfRevokedEntries", (json_int_t)r->number_of_revoked_entries);
}

static int fail(struct awserr *err, const struct sc_error *se)
{
    return awserr_from_sc(err, se);
}

/* --- trust stores ----------------------------------------------------------------------------- */

int api_elbv2_create_trust_store(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    json_t *a = json_object_get(in, "Tags"), *e;
    struct sc_elbv2_kv *tags;
    const struct sc_elbv2_trust_store *t;
    struct sc_error se = { 0 };
    struct s3_bundle b;
    size_t i;
    int nt = (int)json_array_size(a), rc = 0;

    tags = cm_xcalloc((size_t)nt + 1, sizeof(*tags));
    json_array_foreach(a, i, e)
    {
        tags[i].key = api_str(e, "Key");
        tags[i].value = api_str(e, "Value") ? api_str(e, "Value") : "";
    }
    s3_bundle_read(ctx->s3_dir, api_str(in, "CaCertificatesBundleS3Bucket"),
                   api_str(in, "CaCertificatesBundleS3Key"), &b);
    if (sc_elbv2_create_trust_store(v2_of(ctx), api_str(in, "Name"), &b.v, tags, nt, ctx->now_ms,
                                    &t, &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = json_pack("{s:[o]}", "TrustStores", ts_json(t));
    s3_bundle_free(&b);
    free(tags);
    return rc;
}

int api_elbv2_modify_trust_store(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    const struct sc_elbv2_trust_store *t;
    struct sc_error se = { 0 };
    struct s3_bundle b;
    int rc = 0;

    s3_bundle_read(ctx->s3_dir, api_str(in, "CaCertificatesBundleS3Bucket"),
                   api_str(in, "CaCertificatesBundleS3Key"), &b);
    if (sc_elbv2_modify_trust_store(v2_of(ctx), api_str(in, "TrustStoreArn"), &b.v, ctx->now_ms, &t,
                                    &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = json_pack("{s:[o]}", "TrustStores", ts_json(t));
    s3_bundle_free(&b);
    return rc;
}

int api_elbv2_delete_trust_store(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };

    *out = NULL;
    if (sc_elbv2_delete_trust_store(v2_of(ctx), api_str(in, "TrustStoreArn"), ctx->now_ms, &se) !=
        SC_OK)
        return fail(err, &se);
    return 0;
}

int api_elbv2_describe_trust_stores(struct api_ctx *ctx, json_t *in, json_t **out,
                                    struct awserr *err)
{
    struct sc_elbv2 *v2 = v2_of(ctx);
    const struct sc_elbv2_trust_store **ts;
    const char **arns, **names;
    struct sc_error se = { 0 };
    json_t *a = json_array();
    int na, nn, n = 0, rc;

    arns = api_strings(in, "TrustStoreArns", &na);
    names = api_strings(in, "Names", &nn);
    ts = cm_xcalloc((size_t)sc_elbv2_trust_store_count(v2) + 1, sizeof(*ts));
    if (sc_elbv2_describe_trust_stores(v2, arns, na, names, nn, ts, &n, &se) != SC_OK) {
        json_decref(a);
        rc = fail(err, &se);
    } else {
        for (int i = 0; i < n; i++)
            json_array_append_new(a, ts_json(ts[i]));
        rc = api_elbv2_page_out(a, in, "TrustStores", out, err);
    }
    free(ts);
    free(arns);
    free(names);
    return rc;
}

int api_elbv2_get_trust_store_ca_certificates_bundle(struct api_ctx *ctx, json_t *in, json_t **out,
                                                     struct awserr *err)
{
    const struct sc_elbv2_trust_store *t =
        sc_elbv2_trust_store_find(v2_of(ctx), api_str(in, "TrustStoreArn"));

    if (!t)
        return awserr_set(err, 400, "TrustStoreNotFound",
                          "The specified trust store does not exist.");
    *out = json_pack("{s:s}", "Location", t->bundle_location);
    return 0;
}

/* --- revocations ------------------------------------------------------------------------------ */

/* The request's RevocationIds; free() them. */
static long long *ids_get(json_t *in, int *n)
{
    json_t *a = json_object_get(in, "RevocationIds"), *e;
    long long *v = cm_xcalloc(json_array_size(a) + 1, sizeof(*v));
    size_t i;

    *n = 0;
    json_array_foreach(a, i, e)
    {
        if (json_is_integer(e))
            v[(*n)++] = (long long)json_integer_value(e);
        else if (json_is_string(e))
            v[(*n)++] = strtoll(json_string_value(e), NULL, 10);
    }
    return v;
}

int api_elbv2_add_trust_store_revocations(struct api_ctx *ctx, json_t *in, json_t **out,
                                          struct awserr *err)
{
    json_t *a = json_object_get(in, "RevocationContents"), *e, *res;
    size_t n = json_array_size(a), i;
    struct s3_crl *crls = cm_xcalloc(n + 1, sizeof(*crls));
    struct sc_elbv2_crl *v = cm_xcalloc(n + 1, sizeof(*v));
    const struct sc_elbv2_revocation **revs = cm_xcalloc(n + 1, sizeof(*revs));
    struct sc_error se = { 0 };
    int rc = 0;

    json_array_foreach(a, i, e)
    {
        const char *type = opt_str(e, "RevocationType");

        s3_crl_read(ctx->s3_dir, api_str(e, "S3Bucket"), api_str(e, "S3Key"), &crls[i]);
        v[i] = crls[i].v;
        if (type && strcmp(type, "CRL") != 0)
            v[i].parsed = 0;
    }
    if (sc_elbv2_add_revocations(v2_of(ctx), api_str(in, "TrustStoreArn"), v, (int)n, ctx->now_ms,
                                 revs, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        res = json_array();
        for (i = 0; i < n; i++)
            json_array_append_new(res, rev_json(revs[i]));
        *out = json_pack("{s:o}", "TrustStoreRevocations", res);
    }
    for (i = 0; i < n; i++)
        s3_crl_free(&crls[i]);
    free(crls);
    free(v);
    free(revs);
    return rc;
}

int api_elbv2_remove_trust_store_revocations(struct api_ctx *ctx, json_t *in, json_t **out,
                                             struct awserr *err)
{
    struct sc_error se = { 0 };
    int n, rc = 0;
    long long *ids = ids_get(in, &n);

    *out = NULL;
    if (sc_elbv2_remove_revocations(v2_of(ctx), api_str(in, "TrustStoreArn"), ids, n, ctx->now_ms,
                                    &se) != SC_OK)
        rc = fail(err, &se);
    free(ids);
    return rc;
}

int api_elbv2_describe_trust_store_revocations(struct api_ctx *ctx, json_t *in, json_t **out,
                                               struct awserr *err)
{
    const struct sc_elbv2_revocation *revs[SC_ELBV2_MAX_REVOCATIONS];
    struct sc_error se = { 0 };
    int n, nout = 0, rc;
    long long *ids = ids_get(in, &n);

    if (sc_elbv2_describe_revocations(v2_of(ctx), api_str(in, "TrustStoreArn"), ids, n, revs, &nout,
                                      &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, rev_json(revs[i]));
        rc = api_elbv2_page_out(a, in, "TrustStoreRevocations", out, err);
    }
    free(ids);
    return rc;
}

int api_elbv2_get_trust_store_revocation_content(struct api_ctx *ctx, json_t *in, json_t **out,
                                                 struct awserr *err)
{
    const struct sc_elbv2_revocation *revs[1];
    struct sc_error se = { 0 };
    long long id;
    int n = 0;
    json_t *j = json_object_get(in, "RevocationId");

    id = json_is_integer(j)  ? (long long)json_integer_value(j)
         : json_is_string(j) ? strtoll(json_string_value(j), NULL, 10)
                             : -1;
    if (sc_elbv2_describe_revocations(v2_of(ctx), api_str(in, "TrustStoreArn"), &id, 1, revs, &n,
                                      &se) != SC_OK)
        return fail(err, &se);
    *out = json_pack("{s:s}", "Location", revs[0]->location);
    return 0;
}

/* --- associations and resource policies ------------------------------------------------------- */

int api_elbv2_describe_trust_store_associations(struct api_ctx *ctx, json_t *in, json_t **out,
                                                struct awserr *err)
{
    struct sc_elbv2 *v2 = v2_of(ctx);
    const char **arns = cm_xcalloc((size_t)sc_elbv2_lb_count(v2) + 1, sizeof(*arns));
    struct sc_error se = { 0 };
    int n = 0, rc;

    if (sc_elbv2_trust_store_associations(v2, api_str(in, "TrustStoreArn"), arns, &n, &se) !=
        SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < n; i++)
            json_array_append_new(a, json_pack("{s:s}", "ResourceArn", arns[i]));
        rc = api_elbv2_page_out(a, in, "TrustStoreAssociations", out, err);
    }
    free(arns);
    return rc;
}

int api_elbv2_delete_shared_trust_store_association(struct api_ctx *ctx, json_t *in, json_t **out,
                                                    struct awserr *err)
{
    struct sc_error se = { 0 };

    *out = NULL;
    if (sc_elbv2_delete_shared_association(v2_of(ctx), api_str(in, "TrustStoreArn"),
                                           api_str(in, "ResourceArn"), ctx->now_ms, &se) != SC_OK)
        return fail(err, &se);
    return 0;
}

int api_elbv2_get_resource_policy(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    const char *policy;

    if (sc_elbv2_resource_policy(v2_of(ctx), api_str(in, "ResourceArn"), &policy, &se) != SC_OK)
        return fail(err, &se);
    *out = policy ? json_pack("{s:s}", "Policy", policy) : json_object();
    return 0;
}

/* --- capacity reservations and IPAM pools ----------------------------------------------------- */

static json_t *capacity_json(const struct sc_elbv2_capacity *c)
{
    json_t *o = json_object(), *zones = json_array();

    if (c->last_modified_ms)
        json_object_set_new(o, "LastModifiedTime", json_integer(c->last_modified_ms));
    json_object_set_new(o, "DecreaseRequestsRemaining",
                        json_integer(c->decrease_requests_remaining));
    if (c->has_reservation)
        json_object_set_new(o, "MinimumLoadBalancerCapacity",
                            json_pack("{s:i}", "CapacityUnits", c->capacity_units));
    for (int i = 0; i < c->nzones; i++)
        json_array_append_new(zones, json_pack("{s:{s:s},s:s,s:f}", "State", "Code",
                                               c->zones[i].state, "AvailabilityZone",
                                               c->zones[i].zone, "EffectiveCapacityUnits",
                                               c->zones[i].effective_capacity_units));
    json_object_set_new(o, "CapacityReservationState", zones);
    return o;
}

int api_elbv2_describe_capacity_reservation(struct api_ctx *ctx, json_t *in, json_t **out,
                                            struct awserr *err)
{
    struct sc_elbv2_capacity c;
    struct sc_error se = { 0 };

    if (sc_elbv2_describe_capacity(v2_of(ctx), api_str(in, "LoadBalancerArn"), ctx->now_ms, &c,
                                   &se) != SC_OK)
        return fail(err, &se);
    *out = capacity_json(&c);
    return 0;
}

int api_elbv2_modify_capacity_reservation(struct api_ctx *ctx, json_t *in, json_t **out,
                                          struct awserr *err)
{
    json_t *min = json_object_get(in, "MinimumLoadBalancerCapacity");
    json_t *reset = json_object_get(in, "ResetCapacityReservation");
    struct sc_elbv2_capacity c;
    struct sc_error se = { 0 };
    int units = 0, has_units = json_is_object(min);

    if (has_units && !api_int(min, "CapacityUnits", &units))
        units = 0;
    if (sc_elbv2_modify_capacity(v2_of(ctx), api_str(in, "LoadBalancerArn"), has_units, units,
                                 json_is_true(reset), ctx->now_ms, &c, &se) != SC_OK)
        return fail(err, &se);
    *out = capacity_json(&c);
    return 0;
}

int api_elbv2_modify_ip_pools(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    json_t *pools = json_object_get(in, "IpamPools");
    const char **remove;
    const char *after = NULL;
    struct sc_error se = { 0 };
    int nr, remove_v4 = 0, rc = 0;

    remove = api_strings(in, "RemoveIpamPools", &nr);
    for (int i = 0; i < nr; i++)
        remove_v4 |= strcmp(remove[i], "ipv4") == 0;
    free(remove);
    if (sc_elbv2_modify_ip_pools(v2_of(ctx), api_str(in, "LoadBalancerArn"),
                                 json_is_object(pools) ? opt_str(pools, "Ipv4IpamPoolId") : NULL,
                                 remove_v4, ctx->now_ms, &after, &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = after ? json_pack("{s:{s:s}}", "IpamPools", "Ipv4IpamPoolId", after) : json_object();
    return rc;
}
