/* emulator/api_elbv2_trust.h: the ELBv2 handlers of trust stores, capacity reservations,
 * IPAM pools and resource policies (api_elbv2_trust.c), in api_elbv2.c's table, and the
 * listeners' MutualAuthentication in and out (docs/elbv2.md 14-15). */
#ifndef EMULATOR_API_ELBV2_TRUST_H
#define EMULATOR_API_ELBV2_TRUST_H

#include <jansson.h>

#include "emulator/api.h"
#include "scaler/elbv2.h"

/* Pages rows already turned into items (Marker / NextMarker, PageSize 1..400; api_elbv2.c),
 * for every ELBv2 Describe. Returns 0 or -1. */
int api_elbv2_page_out(json_t *items, json_t *in, const char *list_key, json_t **out,
                       struct awserr *err);

/* The request's MutualAuthentication into *m (strings borrowed from in), or NULL when the
 * request has none. */
const struct sc_elbv2_mutual_auth *api_elbv2_mutual_auth_get(json_t *in,
                                                             struct sc_elbv2_mutual_auth *m);
/* A listener's MutualAuthentication as AWS shows it (a new reference). */
json_t *api_elbv2_mutual_auth_json(const struct sc_elbv2_mutual_auth *m);

int api_elbv2_add_trust_store_revocations(struct api_ctx *ctx, json_t *in, json_t **out,
                                          struct awserr *err);
int api_elbv2_create_trust_store(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err);
int api_elbv2_delete_shared_trust_store_association(struct api_ctx *ctx, json_t *in, json_t **out,
                                                    struct awserr *err);
int api_elbv2_delete_trust_store(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err);
int api_elbv2_describe_trust_store_associations(struct api_ctx *ctx, json_t *in, json_t **out,
                                                struct awserr *err);
int api_elbv2_describe_trust_store_revocations(struct api_ctx *ctx, json_t *in, json_t **out,
                                               struct awserr *err);
int api_elbv2_describe_trust_stores(struct api_ctx *ctx, json_t *in, json_t **out,
                                    struct awserr *err);
int api_elbv2_get_resource_policy(struct api_ctx *ctx, json_t *in, json_t **out,
                                  struct awserr *err);
int api_elbv2_get_trust_store_ca_certificates_bundle(struct api_ctx *ctx, json_t *in, json_t **out,
                                                     struct awserr *err);
int api_elbv2_get_trust_store_revocation_content(struct api_ctx *ctx, json_t *in, json_t **out,
                                                 struct awserr *err);
int api_elbv2_modify_capacity_reservation(struct api_ctx *ctx, json_t *in, json_t **out,
                                          struct awserr *err);
int api_elbv2_modify_ip_pools(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err);
int api_elbv2_modify_trust_store(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err);
int api_elbv2_remove_trust_store_revocations(struct api_ctx *ctx, json_t *in, json_t **out,
                                             struct awserr *err);
int api_elbv2_describe_capacity_reservation(struct api_ctx *ctx, json_t *in, json_t **out,
                                            struct awserr *err);

#endif
