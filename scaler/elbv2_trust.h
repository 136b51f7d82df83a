/* scaler/elbv2_trust.h: ELBv2 trust stores (CA bundles and revocation lists for mutual TLS),
 * their associations and resource policies, the listeners' MutualAuthentication, load
 * balancer capacity reservations and IPAM pools (docs/elbv2.md 14-15).
 *
 * AWS reads bundles and revocation lists from S3 and parses them itself; libscaler has
 * neither S3 nor a certificate parser, so the caller reads the object and describes what
 * it holds (struct sc_elbv2_bundle, struct sc_elbv2_crl: found or not, parsed or not, each
 * certificate's version, CA flag, size and subject), and libscaler applies AWS's rules to
 * that description. The bytes are kept (borrowed in, copied) for GetTrustStore*.
 *
 * Ownership and views as in elbv2.h: views are valid until the next mutating call. */
#ifndef SCALER_ELBV2_TRUST_H
#define SCALER_ELBV2_TRUST_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/elbv2.h"

#define SC_ELBV2_MAX_TRUST_STORES      20     /* per account and region (TooManyTrustStores) */
#define SC_ELBV2_MAX_CA_CERTS          25     /* CA certificates per trust store */
#define SC_ELBV2_MAX_CA_CERT_BYTES     16384  /* one CA certificate (DER) */
#define SC_ELBV2_MAX_REVOCATIONS       30     /* revocation lists per trust store */
#define SC_ELBV2_MAX_REVOKED_ENTRIES   500000 /* revoked entries per trust store */
#define SC_ELBV2_MAX_VERIFY_LISTENERS  2      /* verify-mode listeners per load balancer */
#define SC_ELBV2_MAX_CAPACITY_UNITS    15000  /* reserved LCUs per Application Load Balancer */
#define SC_ELBV2_CAPACITY_DECREASES    2      /* capacity decreases per UTC day */
#define SC_ELBV2_CAPACITY_PROVISION_MS 60000  /* pending -> provisioned (emulated) */

/* One certificate of a bundle as the caller's parser saw it. */
struct sc_elbv2_ca_cert {
    int version;           /* X.509 version: 1, 2 or 3 */
    int is_ca;             /* basicConstraints CA:TRUE */
    size_t der_len;        /* its DER size */
    unsigned long subject; /* a hash of its subject name (matched against CRL issuers) */
};

/* A CA certificates bundle read from (bucket, key). */
struct sc_elbv2_bundle {
    int found;  /* the object exists */
    int parsed; /* it is one or more PEM CERTIFICATE blocks and nothing else */
    const struct sc_elbv2_ca_cert *certs;
    int ncerts;
    const char *pem; /* the object's bytes (kept for GetTrustStoreCaCertificatesBundle) */
    size_t pem_len;
    const char *location; /* where the caller found it (a URL GetTrustStore* answers) */
};

/* A certificate revocation list read from a RevocationContent's (bucket, key). */
struct sc_elbv2_crl {
    int found;
    int parsed;           /* a PEM X509 CRL */
    unsigned long issuer; /* hash of its issuer name, as struct sc_elbv2_ca_cert.subject */
    long revoked;         /* its revoked entries */
    const char *location; /* where the caller found it */
};

struct sc_elbv2_trust_store {
    const char *name;
    const char *arn;
    const char *status; /* "ACTIVE" */
    int number_of_ca_certificates;
    long long total_revoked_entries;
    const char *bundle_location;
};

struct sc_elbv2_revocation {
    const char *trust_store_arn;
    long long revocation_id;     /* 1, 2, ... per trust store */
    const char *revocation_type; /* "CRL" */
    long long number_of_revoked_entries;
    const char *location;
};

/* CreateTrustStore: name 1..32 of ([a-zA-Z0-9]+-)*[a-zA-Z0-9]+ (ValidationError), unique
 * (DuplicateTrustStoreName), at most SC_ELBV2_MAX_TRUST_STORES (TooManyTrustStores); the
 * bundle: CaCertificatesBundleNotFound / InvalidCaCertificatesBundle (docs/elbv2.md 14);
 * tags as AddTags. *out optional. */
enum sc_status sc_elbv2_create_trust_store(struct sc_elbv2 *v2, const char *name,
                                           const struct sc_elbv2_bundle *bundle,
                                           const struct sc_elbv2_kv *tags, int ntags,
                                           int64_t now_ms, const struct sc_elbv2_trust_store **out,
                                           struct sc_error *err);
/* ModifyTrustStore: a new bundle, same checks; revocations stay. */
enum sc_status sc_elbv2_modify_trust_store(struct sc_elbv2 *v2, const char *arn,
                                           const struct sc_elbv2_bundle *bundle, int64_t now_ms,
                                           const struct sc_elbv2_trust_store **out,
                                           struct sc_error *err);
/* DeleteTrustStore: TrustStoreNotFound; TrustStoreInUse while a listener uses it. */
enum sc_status sc_elbv2_delete_trust_store(struct sc_elbv2 *v2, const char *arn, int64_t now_ms,
                                           struct sc_error *err);
/* DescribeTrustStores: the arns or names (TrustStoreNotFound for an unknown one), or all in
 * creation order. out has room for sc_elbv2_trust_store_count(). */
enum sc_status sc_elbv2_describe_trust_stores(const struct sc_elbv2 *v2, const char *const *arns,
                                              int narns, const char *const *names, int nnames,
                                              const struct sc_elbv2_trust_store **out, int *nout,
                                              struct sc_error *err);
int sc_elbv2_trust_store_count(const struct sc_elbv2 *v2);
const struct sc_elbv2_trust_store *sc_elbv2_trust_store_find(const struct sc_elbv2 *v2,
                                                             const char *arn);
/* The stored bundle's bytes (GetTrustStoreCaCertificatesBundle); NULL when unknown. */
const char *sc_elbv2_trust_store_bundle(const struct sc_elbv2 *v2, const char *arn, size_t *len);

/* AddTrustStoreRevocations: every list checked first (RevocationContentNotFound,
 * InvalidRevocationContent: not a CRL, or its issuer is none of the store's CAs;
 * TooManyTrustStoreRevocationEntries past the quotas), then all added. out (optional)
 * gets the new revocations, room for n. */
enum sc_status sc_elbv2_add_revocations(struct sc_elbv2 *v2, const char *arn,
                                        const struct sc_elbv2_crl *crls, int n, int64_t now_ms,
                                        const struct sc_elbv2_revocation **out,
                                        struct sc_error *err);
/* RemoveTrustStoreRevocations: every id must exist (RevocationIdNotFound), then all go. */
enum sc_status sc_elbv2_remove_revocations(struct sc_elbv2 *v2, const char *arn,
                                           const long long *ids, int n, int64_t now_ms,
                                           struct sc_error *err);
/* DescribeTrustStoreRevocations: the ids (RevocationIdNotFound) or all; out has room for
 * SC_ELBV2_MAX_REVOCATIONS. GetTrustStoreRevocationContent is one id's location. */
enum sc_status sc_elbv2_describe_revocations(const struct sc_elbv2 *v2, const char *arn,
                                             const long long *ids, int n,
                                             const struct sc_elbv2_revocation **out, int *nout,
                                             struct sc_error *err);

/* DescribeTrustStoreAssociations: the load balancers whose listeners use it; out has room
 * for sc_elbv2_lb_count() entries (borrowed ARNs). */
enum sc_status sc_elbv2_trust_store_associations(const struct sc_elbv2 *v2, const char *arn,
                                                 const char **out, int *nout, struct sc_error *err);
/* DeleteSharedTrustStoreAssociation: every trust store here is the account's own, so an
 * association to delete is refused (DeleteAssociationSameAccount); TrustStoreNotFound,
 * AssociationNotFound first. */
enum sc_status sc_elbv2_delete_shared_association(struct sc_elbv2 *v2, const char *arn,
                                                  const char *resource_arn, int64_t now_ms,
                                                  struct sc_error *err);
/* GetResourcePolicy: a trust store has none (not shared: *policy NULL); another ARN:
 * ResourceNotFound. */
enum sc_status sc_elbv2_resource_policy(const struct sc_elbv2 *v2, const char *arn,
                                        const char **policy, struct sc_error *err);

/* The listeners' MutualAuthentication (create and modify), checked against the trust
 * stores: see docs/elbv2.md 14. NULL r = unchanged (modify) / off (create). */
enum sc_status sc_elbv2_check_mutual_auth(const struct sc_elbv2 *v2, const char *lb_arn,
                                          const char *listener_arn, const char *protocol,
                                          const struct sc_elbv2_mutual_auth *r,
                                          struct sc_error *err);

/* --- capacity reservations and IPAM pools (docs/elbv2.md 15) ---------------------------------- */

struct sc_elbv2_zone_capacity {
    const char *zone;
    const char *state; /* "pending" | "provisioned" */
    double effective_capacity_units;
};

struct sc_elbv2_capacity {
    int has_reservation;
    int capacity_units;
    int64_t last_modified_ms; /* 0: never */
    int decrease_requests_remaining;
    struct sc_elbv2_zone_capacity zones[16];
    int nzones;
};

/* ModifyCapacityReservation: exactly one of units (has_units) and reset (ValidationError);
 * units 1..SC_ELBV2_MAX_CAPACITY_UNITS (CapacityUnitsLimitExceeded past it); a request
 * still pending: CapacityReservationPending; a third decrease in a UTC day:
 * CapacityDecreaseRequestLimitExceeded; a Network Load Balancer with a TLS listener:
 * OperationNotPermitted. Each zone is pending for SC_ELBV2_CAPACITY_PROVISION_MS, then
 * provisioned with units / zones. out (optional) as DescribeCapacityReservation. */
enum sc_status sc_elbv2_modify_capacity(struct sc_elbv2 *v2, const char *lb_arn, int has_units,
                                        int units, int reset, int64_t now_ms,
                                        struct sc_elbv2_capacity *out, struct sc_error *err);
/* DescribeCapacityReservation at now_ms (LoadBalancerNotFound). */
enum sc_status sc_elbv2_describe_capacity(const struct sc_elbv2 *v2, const char *lb_arn,
                                          int64_t now_ms, struct sc_elbv2_capacity *out,
                                          struct sc_error *err);
/* ModifyIpPools: sets (pool) and/or removes (remove_ipv4) the IPv4 IPAM pool; pool ids
 * match ^ipam-pool-[a-zA-Z0-9]+$ (ValidationError). *pool_out: the pool after, or NULL. */
enum sc_status sc_elbv2_modify_ip_pools(struct sc_elbv2 *v2, const char *lb_arn, const char *pool,
                                        int remove_ipv4, int64_t now_ms, const char **pool_out,
                                        struct sc_error *err);
/* The IPv4 IPAM pool of a load balancer (DescribeLoadBalancers' IpamPools), or NULL. */
const char *sc_elbv2_lb_ipam_pool(const struct sc_elbv2 *v2, const char *lb_arn);

#endif
