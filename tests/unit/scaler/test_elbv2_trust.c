/* tests/unit/scaler/test_elbv2_trust.c: scaler/elbv2_trust.c (trust stores, revocations,
 * associations, MutualAuthentication, capacity reservations, IPAM pools), one test per rule
 * of docs/elbv2.md 14-15. Bundles and CRLs are given as the emulator's parser describes them. */
#include "scaler/elbv2_trust.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <jansson.h>

#include "scaler/ec2.h"

#define T0   1767225600000LL /* 2026-01-01T00:00:00Z */
#define CERT "arn:aws:acm:us-east-1:123456789012:certificate/abc"

struct fx {
    struct sc_ec2 *ec2;
    struct sc_elbv2 *v2;
    struct sc_error err;
    char lb[SC_ELBV2_ARN_LEN], tg[SC_ELBV2_ARN_LEN], ts[SC_ELBV2_ARN_LEN];
};

static const struct sc_elbv2_ca_cert ca = { 3, 1, 600, 0xca };
static const struct sc_elbv2_bundle good = { 1, 1, &ca, 1, "PEM", 3, "file:///s3/b/ca.pem" };

static int setup(void **state)
{
    static struct fx f;
    struct sc_ec2_config ec = { 0 };
    struct sc_elbv2_config vc = { 0 };
    const char *subnets[2];
    struct sc_elbv2_lb_req lr = { 0 };
    struct sc_elbv2_tg_req tr = { .name = "tg", .protocol = "HTTP", .has_port = 1, .port = 80 };
    const struct sc_elbv2_lb *b;
    const struct sc_elbv2_tg *g;
    const struct sc_elbv2_trust_store *t;

    memset(&f, 0, sizeof(f));
    ec.seed = 1;
    f.ec2 = sc_ec2_create(&ec);
    vc.ec2 = f.ec2;
    vc.seed = 2;
    f.v2 = sc_elbv2_create(&vc);
    if (!f.ec2 || !f.v2)
        return -1;
    subnets[0] = sc_ec2_default_subnet(f.ec2, "us-east-1a")->subnet_id;
    subnets[1] = sc_ec2_default_subnet(f.ec2, "us-east-1b")->subnet_id;
    lr.name = "web";
    lr.subnets = subnets;
    lr.nsubnets = 2;
    tr.vpc_id = sc_ec2_default_vpc(f.ec2)->vpc_id;
    if (sc_elbv2_create_load_balancer(f.v2, &lr, T0, &b, &f.err) != SC_OK ||
        sc_elbv2_create_target_group(f.v2, &tr, T0, &g, &f.err) != SC_OK ||
        sc_elbv2_create_trust_store(f.v2, "clients", &good, NULL, 0, T0, &t, &f.err) != SC_OK)
        return -1;
    snprintf(f.lb, sizeof(f.lb), "%s", b->arn);
    snprintf(f.tg, sizeof(f.tg), "%s", g->arn);
    snprintf(f.ts, sizeof(f.ts), "%s", t->arn);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;

    sc_elbv2_destroy(f->v2);
    sc_ec2_destroy(f->ec2);
    return 0;
}

static enum sc_status https(struct fx *f, int port, const struct sc_elbv2_mutual_auth *m,
                            char *arn_out)
{
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FORWARD, .target_group_arn = f->tg };
    const char *certs[] = { CERT };
    struct sc_elbv2_listener_req r = { .load_balancer_arn = f->lb,
                                       .protocol = "HTTPS",
                                       .has_port = 1,
                                       .port = port,
                                       .certificates = certs,
                                       .ncertificates = 1,
                                       .mutual_auth = m,
                                       .actions = &a,
                                       .nactions = 1 };
    const struct sc_elbv2_listener *l = NULL;
    enum sc_status st = sc_elbv2_create_listener(f->v2, &r, T0, &l, &f->err);

    if (arn_out && l)
        snprintf(arn_out, SC_ELBV2_ARN_LEN, "%s", l->arn);
    return st;
}

static void test_elbv2_trust_create_store_active_with_its_certificates(void **state)
{
    struct fx *f = *state;
    const struct sc_elbv2_trust_store *t = sc_elbv2_trust_store_find(f->v2, f->ts);
    size_t len;

    assert_non_null(t);
    assert_string_equal(t->status, "ACTIVE");
    assert_int_equal(t->number_of_ca_certificates, 1);
    assert_int_equal(t->total_revoked_entries, 0);
    assert_int_equal(strncmp(t->arn,
                             "arn:aws:elasticloadbalancing:us-east-1:123456789012:"
                             "truststore/clients/",
                             70),
                     0);
    assert_int_equal(strlen(strrchr(t->arn, '/') + 1), 11);
    assert_string_equal(sc_elbv2_trust_store_bundle(f->v2, f->ts, &len), "PEM");
    assert_int_equal(len, 3);
}

static void test_elbv2_trust_bundle_rules(void **state)
{
    struct fx *f = *state;
    const struct sc_elbv2_ca_cert leaf = { 3, 0, 600, 1 }, v1 = { 1, 1, 600, 1 },
                                  big = { 3, 1, SC_ELBV2_MAX_CA_CERT_BYTES + 1, 1 };
    struct sc_elbv2_bundle b = good;

    b.found = 0;
    assert_int_equal(sc_elbv2_create_trust_store(f->v2, "x", &b, NULL, 0, T0, NULL, &f->err),
                     SC_ERR_CA_CERTIFICATES_BUNDLE_NOT_FOUND);
    b = good;
    b.parsed = 0;
    assert_int_equal(sc_elbv2_create_trust_store(f->v2, "x", &b, NULL, 0, T0, NULL, &f->err),
                     SC_ERR_INVALID_CA_CERTIFICATES_BUNDLE);
    assert_string_equal(f->err.message,
                        "The specified ca certificate bundle is in an invalid format, or corrupt.");
    b = good;
    b.certs = &leaf;
    assert_int_equal(sc_elbv2_create_trust_store(f->v2, "x", &b, NULL, 0, T0, NULL, &f->err),
                     SC_ERR_INVALID_CA_CERTIFICATES_BUNDLE);
    b.certs = &v1;
    assert_int_equal(sc_elbv2_create_trust_store(f->v2, "x", &b, NULL, 0, T0, NULL, &f->err),
                     SC_ERR_INVALID_CA_CERTIFICATES_BUNDLE);
    b.certs = &big;
    assert_int_equal(sc_elbv2_create_trust_store(f->v2, "x", &b, NULL, 0, T0, NULL, &f->err),
                     SC_ERR_INVALID_CA_CERTIFICATES_BUNDLE);
    b = good;
    b.ncerts = SC_ELBV2_MAX_CA_CERTS + 1; /* only the count matters before the certs */
    assert_int_equal(sc_elbv2_create_trust_store(f->v2, "x", &b, NULL, 0, T0, NULL, &f->err),
                     SC_ERR_INVALID_CA_CERTIFICATES_BUNDLE);
    assert_int_equal(sc_elbv2_trust_store_count(f->v2), 1);
}

static void test_elbv2_trust_names_unique_valid_and_at_most_20(void **state)
{
    struct fx *f = *state;
    char name[16];

    assert_int_equal(
        sc_elbv2_create_trust_store(f->v2, "clients", &good, NULL, 0, T0, NULL, &f->err),
        SC_ERR_DUPLICATE_TRUST_STORE_NAME);
    assert_int_equal(sc_elbv2_create_trust_store(f->v2, "a--b", &good, NULL, 0, T0, NULL, &f->err),
                     SC_ERR_VALIDATION);
    assert_int_equal(sc_elbv2_create_trust_store(f->v2, "-a", &good, NULL, 0, T0, NULL, &f->err),
                     SC_ERR_VALIDATION);
    for (int i = 1; i < SC_ELBV2_MAX_TRUST_STORES; i++) {
        snprintf(name, sizeof(name), "ts-%d", i);
        assert_int_equal(
            sc_elbv2_create_trust_store(f->v2, name, &good, NULL, 0, T0, NULL, &f->err), SC_OK);
    }
    assert_int_equal(
        sc_elbv2_create_trust_store(f->v2, "one-more", &good, NULL, 0, T0, NULL, &f->err),
        SC_ERR_TOO_MANY_TRUST_STORES);
}

static void test_elbv2_trust_revocations_checked_then_added(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_crl crls[2] = { { 1, 1, 0xca, 3, "file:///a.crl" },
                                    { 1, 1, 0xbad, 1, "file:///b.crl" } };
    const struct sc_elbv2_revocation *out[2], *all[SC_ELBV2_MAX_REVOCATIONS];
    long long id = 1, missing = 9;
    int n;

    /* the second's issuer is no CA of the store: nothing is added */
    assert_int_equal(sc_elbv2_add_revocations(f->v2, f->ts, crls, 2, T0, out, &f->err),
                     SC_ERR_INVALID_REVOCATION_CONTENT);
    assert_int_equal(sc_elbv2_describe_revocations(f->v2, f->ts, NULL, 0, all, &n, &f->err), SC_OK);
    assert_int_equal(n, 0);
    crls[1].found = 0;
    assert_int_equal(sc_elbv2_add_revocations(f->v2, f->ts, &crls[1], 1, T0, out, &f->err),
                     SC_ERR_REVOCATION_CONTENT_NOT_FOUND);
    assert_int_equal(sc_elbv2_add_revocations(f->v2, f->ts, crls, 1, T0, out, &f->err), SC_OK);
    assert_int_equal(out[0]->revocation_id, 1);
    assert_int_equal(out[0]->number_of_revoked_entries, 3);
    assert_int_equal(sc_elbv2_trust_store_find(f->v2, f->ts)->total_revoked_entries, 3);
    assert_int_equal(sc_elbv2_remove_revocations(f->v2, f->ts, &missing, 1, T0, &f->err),
                     SC_ERR_REVOCATION_ID_NOT_FOUND);
    assert_int_equal(sc_elbv2_remove_revocations(f->v2, f->ts, &id, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_trust_store_find(f->v2, f->ts)->total_revoked_entries, 0);
    /* ids are not reused */
    assert_int_equal(sc_elbv2_add_revocations(f->v2, f->ts, crls, 1, T0, out, &f->err), SC_OK);
    assert_int_equal(out[0]->revocation_id, 2);
}

static void test_elbv2_trust_revocation_quotas(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_crl c = { 1, 1, 0xca, SC_ELBV2_MAX_REVOKED_ENTRIES + 1, "file:///a.crl" };

    assert_int_equal(sc_elbv2_add_revocations(f->v2, f->ts, &c, 1, T0, NULL, &f->err),
                     SC_ERR_TOO_MANY_TRUST_STORE_REVOCATION_ENTRIES);
    c.revoked = 1;
    for (int i = 0; i < SC_ELBV2_MAX_REVOCATIONS; i++)
        assert_int_equal(sc_elbv2_add_revocations(f->v2, f->ts, &c, 1, T0, NULL, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_add_revocations(f->v2, f->ts, &c, 1, T0, NULL, &f->err),
                     SC_ERR_TOO_MANY_TRUST_STORE_REVOCATION_ENTRIES);
}

static void test_elbv2_trust_mutual_auth_verify_needs_an_active_store(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_mutual_auth m = { .mode = "verify" };
    char arn[SC_ELBV2_ARN_LEN];
    const struct sc_elbv2_listener *l;

    assert_int_equal(https(f, 443, &m, NULL), SC_ERR_VALIDATION);
    m.trust_store_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:truststore/x/y";
    assert_int_equal(https(f, 443, &m, NULL), SC_ERR_TRUST_STORE_NOT_FOUND);
    m.trust_store_arn = f->ts;
    m.advertise_trust_store_ca_names = "maybe";
    assert_int_equal(https(f, 443, &m, NULL), SC_ERR_VALIDATION);
    m.advertise_trust_store_ca_names = NULL;
    assert_int_equal(https(f, 443, &m, arn), SC_OK);
    l = sc_elbv2_listener_find(f->v2, arn);
    assert_string_equal(l->mutual_auth->mode, "verify");
    assert_string_equal(l->mutual_auth->trust_store_arn, f->ts);
    assert_string_equal(l->mutual_auth->trust_store_association_status, "active");
    assert_string_equal(l->mutual_auth->advertise_trust_store_ca_names, "off");
}

static void test_elbv2_trust_mutual_auth_modes_and_protocols(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_mutual_auth m = { .mode = "strict" };
    char arn[SC_ELBV2_ARN_LEN];

    assert_int_equal(https(f, 443, &m, NULL), SC_ERR_VALIDATION);
    m.mode = "passthrough";
    m.trust_store_arn = f->ts;
    assert_int_equal(https(f, 443, &m, NULL), SC_ERR_VALIDATION);
    m.trust_store_arn = NULL;
    assert_int_equal(https(f, 443, &m, arn), SC_OK);
    assert_string_equal(sc_elbv2_listener_find(f->v2, arn)->mutual_auth->mode, "passthrough");
    assert_null(sc_elbv2_listener_find(f->v2, arn)->mutual_auth->trust_store_arn);
    /* an HTTPS listener without it: off */
    assert_int_equal(https(f, 8443, NULL, arn), SC_OK);
    assert_string_equal(sc_elbv2_listener_find(f->v2, arn)->mutual_auth->mode, "off");
    /* not on HTTP */
    assert_int_equal(sc_elbv2_check_mutual_auth(f->v2, f->lb, NULL, "HTTP", &m, &f->err),
                     SC_ERR_V2_INVALID_CONFIGURATION_REQUEST);
}

static void test_elbv2_trust_mutual_auth_two_verify_listeners_per_lb(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_mutual_auth m = { .mode = "verify", .trust_store_arn = f->ts };

    assert_int_equal(https(f, 443, &m, NULL), SC_OK);
    assert_int_equal(https(f, 444, &m, NULL), SC_OK);
    assert_int_equal(https(f, 445, &m, NULL), SC_ERR_V2_INVALID_CONFIGURATION_REQUEST);
}

static void test_elbv2_trust_store_in_use_and_associations(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_mutual_auth m = { .mode = "verify", .trust_store_arn = f->ts };
    struct sc_elbv2_mutual_auth off = { .mode = "off" };
    struct sc_elbv2_listener_req mod = { .mutual_auth = &off };
    char arn[SC_ELBV2_ARN_LEN];
    const char *assoc[4];
    const char *policy = "x";
    int n;

    assert_int_equal(https(f, 443, &m, arn), SC_OK);
    assert_int_equal(sc_elbv2_trust_store_associations(f->v2, f->ts, assoc, &n, &f->err), SC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(assoc[0], f->lb);
    assert_int_equal(sc_elbv2_delete_trust_store(f->v2, f->ts, T0, &f->err),
                     SC_ERR_TRUST_STORE_IN_USE);
    assert_int_equal(sc_elbv2_delete_shared_association(f->v2, f->ts, f->lb, T0, &f->err),
                     SC_ERR_DELETE_ASSOCIATION_SAME_ACCOUNT);
    assert_int_equal(sc_elbv2_delete_shared_association(f->v2, f->ts, f->tg, T0, &f->err),
                     SC_ERR_TRUST_STORE_ASSOCIATION_NOT_FOUND);
    assert_int_equal(sc_elbv2_resource_policy(f->v2, f->ts, &policy, &f->err), SC_OK);
    assert_null(policy);
    assert_int_equal(sc_elbv2_resource_policy(f->v2, f->lb, &policy, &f->err),
                     SC_ERR_V2_RESOURCE_NOT_FOUND);
    assert_int_equal(sc_elbv2_modify_listener(f->v2, arn, &mod, T0, NULL, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_trust_store_associations(f->v2, f->ts, assoc, &n, &f->err), SC_OK);
    assert_int_equal(n, 0);
    assert_int_equal(sc_elbv2_delete_trust_store(f->v2, f->ts, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_delete_trust_store(f->v2, f->ts, T0, &f->err),
                     SC_ERR_TRUST_STORE_NOT_FOUND);
}

static void test_elbv2_trust_capacity_pending_then_provisioned(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_capacity c;

    assert_int_equal(sc_elbv2_describe_capacity(f->v2, f->lb, T0, &c, &f->err), SC_OK);
    assert_int_equal(c.has_reservation, 0);
    assert_int_equal(c.nzones, 0);
    assert_int_equal(c.decrease_requests_remaining, 2);
    assert_int_equal(sc_elbv2_modify_capacity(f->v2, f->lb, 1, 100, 0, T0, &c, &f->err), SC_OK);
    assert_int_equal(c.nzones, 2);
    assert_string_equal(c.zones[0].state, "pending");
    assert_int_equal(sc_elbv2_modify_capacity(f->v2, f->lb, 1, 200, 0, T0 + 1000, NULL, &f->err),
                     SC_ERR_CAPACITY_RESERVATION_PENDING);
    assert_int_equal(
        sc_elbv2_describe_capacity(f->v2, f->lb, T0 + SC_ELBV2_CAPACITY_PROVISION_MS, &c, &f->err),
        SC_OK);
    assert_string_equal(c.zones[1].state, "provisioned");
    assert_true(c.zones[1].effective_capacity_units == 50.0);
    assert_int_equal(c.last_modified_ms, T0);
}

static void test_elbv2_trust_capacity_limits_and_decreases(void **state)
{
    struct fx *f = *state;
    const int64_t step = SC_ELBV2_CAPACITY_PROVISION_MS;
    struct sc_elbv2_capacity c;

    assert_int_equal(sc_elbv2_modify_capacity(f->v2, f->lb, 0, 0, 0, T0, NULL, &f->err),
                     SC_ERR_VALIDATION);
    assert_int_equal(sc_elbv2_modify_capacity(f->v2, f->lb, 1, 5, 1, T0, NULL, &f->err),
                     SC_ERR_VALIDATION);
    assert_int_equal(sc_elbv2_modify_capacity(f->v2, f->lb, 1, SC_ELBV2_MAX_CAPACITY_UNITS + 1, 0,
                                              T0, NULL, &f->err),
                     SC_ERR_CAPACITY_UNITS_LIMIT_EXCEEDED);
    assert_int_equal(sc_elbv2_modify_capacity(f->v2, f->lb, 1, 300, 0, T0, NULL, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_modify_capacity(f->v2, f->lb, 1, 200, 0, T0 + step, NULL, &f->err),
                     SC_OK);
    assert_int_equal(sc_elbv2_modify_capacity(f->v2, f->lb, 0, 0, 1, T0 + 2 * step, &c, &f->err),
                     SC_OK);
    assert_int_equal(c.decrease_requests_remaining, 0);
    assert_int_equal(c.has_reservation, 0);
    assert_int_equal(
        sc_elbv2_modify_capacity(f->v2, f->lb, 1, 100, 0, T0 + 3 * step, NULL, &f->err),
        SC_OK); /* an increase is always allowed */
    assert_int_equal(sc_elbv2_modify_capacity(f->v2, f->lb, 1, 50, 0, T0 + 4 * step, NULL, &f->err),
                     SC_ERR_CAPACITY_DECREASE_LIMIT_EXCEEDED);
    /* the next UTC day */
    assert_int_equal(
        sc_elbv2_modify_capacity(f->v2, f->lb, 1, 50, 0, T0 + 86400000LL, NULL, &f->err), SC_OK);
}

static void test_elbv2_trust_ip_pools(void **state)
{
    struct fx *f = *state;
    const char *after = NULL;

    assert_int_equal(sc_elbv2_modify_ip_pools(f->v2, f->lb, "pool-1", 0, T0, &after, &f->err),
                     SC_ERR_VALIDATION);
    assert_int_equal(
        sc_elbv2_modify_ip_pools(f->v2, f->lb, "ipam-pool-0a1b", 0, T0, &after, &f->err), SC_OK);
    assert_string_equal(after, "ipam-pool-0a1b");
    assert_string_equal(sc_elbv2_lb_find(f->v2, f->lb)->ipv4_ipam_pool_id, "ipam-pool-0a1b");
    assert_int_equal(sc_elbv2_modify_ip_pools(f->v2, f->lb, NULL, 1, T0, &after, &f->err), SC_OK);
    assert_null(after);
    assert_null(sc_elbv2_lb_find(f->v2, f->lb)->ipv4_ipam_pool_id);
    assert_int_equal(sc_elbv2_modify_ip_pools(f->v2, "arn:nope", NULL, 1, T0, &after, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
}

static void test_elbv2_trust_save_load_round_trip(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_crl crl = { 1, 1, 0xca, 3, "file:///a.crl" };
    struct sc_elbv2_mutual_auth m = { .mode = "verify",
                                      .advertise_trust_store_ca_names = "on",
                                      .ignore_client_certificate_expiry = 1 };
    struct sc_elbv2_config vc = { 0 };
    struct sc_elbv2 *v2b;
    struct sc_elbv2_capacity c1, c2;
    const struct sc_elbv2_revocation *revs[SC_ELBV2_MAX_REVOCATIONS], *out[1];
    const struct sc_elbv2_trust_store *t;
    const struct sc_elbv2_mutual_auth *mb;
    char verify[SC_ELBV2_ARN_LEN], pass[SC_ELBV2_ARN_LEN];
    long long first = 1;
    size_t len;
    int n;
    json_t *j, *j2;
    char *s1, *s2;

    m.trust_store_arn = f->ts;
    assert_int_equal(sc_elbv2_add_revocations(f->v2, f->ts, &crl, 1, T0, out, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_add_revocations(f->v2, f->ts, &crl, 1, T0, out, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_remove_revocations(f->v2, f->ts, &first, 1, T0, &f->err), SC_OK);
    assert_int_equal(https(f, 443, &m, verify), SC_OK);
    m = (struct sc_elbv2_mutual_auth){ .mode = "passthrough" };
    assert_int_equal(https(f, 8443, &m, pass), SC_OK);
    assert_int_equal(sc_elbv2_modify_capacity(f->v2, f->lb, 1, 100, 0, T0, NULL, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_modify_ip_pools(f->v2, f->lb, "ipam-pool-0a1b", 0, T0, NULL, &f->err),
                     SC_OK);
    j = sc_elbv2_save(f->v2);
    assert_non_null(j);
    vc.ec2 = f->ec2;
    vc.seed = 3;
    v2b = sc_elbv2_create(&vc);
    assert_int_equal(sc_elbv2_load(v2b, j, &f->err), SC_OK);
    /* the trust store: its bundle, certificates, revocations and the next revocation id */
    t = sc_elbv2_trust_store_find(v2b, f->ts);
    assert_non_null(t);
    assert_string_equal(t->name, "clients");
    assert_int_equal(t->number_of_ca_certificates, 1);
    assert_int_equal(t->total_revoked_entries, 3);
    assert_string_equal(t->bundle_location, "file:///s3/b/ca.pem");
    assert_memory_equal(sc_elbv2_trust_store_bundle(v2b, f->ts, &len), "PEM", 3);
    assert_int_equal(len, 3);
    assert_int_equal(sc_elbv2_describe_revocations(v2b, f->ts, NULL, 0, revs, &n, &f->err), SC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(revs[0]->revocation_id, 2);
    assert_string_equal(revs[0]->location, "file:///a.crl");
    assert_int_equal(sc_elbv2_add_revocations(v2b, f->ts, &crl, 1, T0, out, &f->err), SC_OK);
    assert_int_equal(out[0]->revocation_id, 3);
    /* an issuer that is no CA of the store is still refused: the subjects came back */
    crl.issuer = 0xbad;
    assert_int_equal(sc_elbv2_add_revocations(v2b, f->ts, &crl, 1, T0, out, &f->err),
                     SC_ERR_INVALID_REVOCATION_CONTENT);
    /* the listeners' MutualAuthentication */
    mb = sc_elbv2_listener_find(v2b, verify)->mutual_auth;
    assert_string_equal(mb->mode, "verify");
    assert_string_equal(mb->trust_store_arn, f->ts);
    assert_string_equal(mb->advertise_trust_store_ca_names, "on");
    assert_true(mb->ignore_client_certificate_expiry);
    assert_string_equal(mb->trust_store_association_status, "active");
    assert_string_equal(sc_elbv2_listener_find(v2b, pass)->mutual_auth->mode, "passthrough");
    /* the capacity reservation (still pending, then provisioned) and the IPAM pool */
    assert_int_equal(sc_elbv2_describe_capacity(f->v2, f->lb, T0 + 1000, &c1, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_describe_capacity(v2b, f->lb, T0 + 1000, &c2, &f->err), SC_OK);
    assert_int_equal(c2.nzones, 2);
    assert_string_equal(c2.zones[0].state, "pending");
    assert_int_equal(c2.last_modified_ms, c1.last_modified_ms);
    assert_int_equal(c2.decrease_requests_remaining, c1.decrease_requests_remaining);
    assert_int_equal(
        sc_elbv2_describe_capacity(v2b, f->lb, T0 + SC_ELBV2_CAPACITY_PROVISION_MS, &c2, &f->err),
        SC_OK);
    assert_string_equal(c2.zones[1].state, "provisioned");
    assert_string_equal(sc_elbv2_lb_find(v2b, f->lb)->ipv4_ipam_pool_id, "ipam-pool-0a1b");
    /* the second save is the first (after undoing the revocation added above) */
    assert_int_equal(sc_elbv2_remove_revocations(v2b, f->ts, (long long[]){ 3 }, 1, T0, &f->err),
                     SC_OK);
    j2 = sc_elbv2_save(v2b);
    s1 = json_dumps(j, JSON_SORT_KEYS);
    s2 = json_dumps(j2, JSON_SORT_KEYS);
    assert_non_null(strstr(s2, "\"next_revocation_id\": 4"));
    assert_non_null(strstr(s1, "\"next_revocation_id\": 3"));
    free(s1);
    free(s2);
    json_decref(j);
    json_decref(j2);
    sc_elbv2_destroy(v2b);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_elbv2_trust_create_store_active_with_its_certificates),
        T(test_elbv2_trust_bundle_rules),
        T(test_elbv2_trust_names_unique_valid_and_at_most_20),
        T(test_elbv2_trust_revocations_checked_then_added),
        T(test_elbv2_trust_revocation_quotas),
        T(test_elbv2_trust_mutual_auth_verify_needs_an_active_store),
        T(test_elbv2_trust_mutual_auth_modes_and_protocols),
        T(test_elbv2_trust_mutual_auth_two_verify_listeners_per_lb),
        T(test_elbv2_trust_store_in_use_and_associations),
        T(test_elbv2_trust_capacity_pending_then_provisioned),
        T(test_elbv2_trust_capacity_limits_and_decreases),
        T(test_elbv2_trust_ip_pools),
        T(test_elbv2_trust_save_load_round_trip),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
