/* scaler/elb_internal.h: what elb.c, elb_validate.c, elb_health.c and elb_save.c share; not
 * public.
 *
 * elb.c holds the load balancers, listeners, attributes, zones, tags and time, elb_validate.c
 * the request checks, elb_health.c the health check, effective health, registration, health
 * bookkeeping, routing and draining, elb_save.c the state file. */
#ifndef SCALER_ELB_INTERNAL_H
#define SCALER_ELB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/elb.h"
#include "scaler/rng.h"
#include "scaler/status.h"

enum drain_kind {
    DRAIN_NONE = 0,
    DRAIN_DEREGISTER, /* the registration goes when the drain ends */
    DRAIN_ZONE,       /* its zone was disabled; it stays registered */
};

struct reg {
    char id[SC_EC2_ID_LEN];
    int64_t registered_ms;
    int in_service;      /* by health checks */
    int ever_in_service; /* passed its first check since (re)registration */
    int failed_out;      /* out after UnhealthyThreshold failures */
    int consec_ok, consec_fail;
    enum drain_kind drain;
    int64_t drain_deadline_ms;
};

struct lb {
    struct sc_elb_lb v;
    char name[SC_ELB_NAME_LEN];
    char *dns;
    char *scheme;
    char *hc_target;                   /* owned copy of the Target string */
    struct sc_elb_listener *listeners; /* strings owned */
    int nlisteners, caplisteners;
    char **zones;   /* sorted */
    char **subnets; /* parallel to zones */
    int nzones;
    char **sgs;
    int nsgs;
    struct reg **regs; /* registered (drain none/zone) and draining, registration order */
    int nregs, capregs;
    const char **inst_view; /* capacity capregs */
    char *bucket, *prefix;
    struct sc_elb_tag *tags; /* strings owned */
    int ntags;
    int ndrain; /* registrations with drain != DRAIN_NONE */
};

struct sc_elb {
    char account[32];
    char region[32];
    const struct sc_ec2 *ec2;
    uint64_t (*rand64)(void *ud);
    void *rand_ud;
    struct sc_rng rng;
    int max_lbs;
    struct lb **lbs; /* sorted by name */
    int nlbs, caplbs;
};

/* Normalized copy of a listener (borrowed static strings except the certificate). */
struct norm_listener {
    const char *protocol;
    int lb_port;
    const char *instance_protocol;
    int instance_port;
    const char *cert;
};

/* Resolves the request's zones or subnets to sorted (zone, subnet) pairs. */
struct placement {
    const char *zone[16];
    const char *subnet[16];
    const char *vpc;
    int n;
};

/* --- elb.c ------------------------------------------------------------------------------------ */

int elb_grow(void *arrp, int n, int *cap, size_t elem);
void elb_listener_free(struct sc_elb_listener *l);
void elb_lb_free(struct lb *b);
struct lb *elb_lb_find(const struct sc_elb *elb, const char *name); /* or NULL */
enum sc_status elb_lb_lookup(const struct sc_elb *elb, const char *name, struct lb **out,
                             struct sc_error *err);
/* The registration of instance id with b, or NULL; *index (optional) is its position. */
struct reg *elb_lb_reg_find(const struct lb *b, const char *id, int *index);
/* The registration of instance id with load balancer `name`, or NULL; *b is the load
 * balancer (NULL when there is none of that name). */
struct reg *elb_reg_find(const struct sc_elb *elb, const char *name, const char *id, struct lb **b);
/* Refreshes the view's pointers and the registered-instance list (no allocation). */
void elb_lb_sync(struct lb *b);
const char *elb_hosted_zone_id(const char *region);

/* --- elb_validate.c --------------------------------------------------------------------------- */

int elb_name_valid(const char *s);
int elb_listener_same(const struct sc_elb_listener *a, const struct norm_listener *b);
/* Validates listeners (and against `b`'s when non-NULL); norm gets n entries. */
enum sc_status elb_check_listeners(const char *lbname, const struct lb *b,
                                   const struct sc_elb_listener *ls, int n,
                                   struct norm_listener *norm, struct sc_error *err);
/* Appends the listeners not already present; 0 or -1 on OOM (partial appends undone). */
int elb_add_listeners(struct lb *b, const struct norm_listener *norm, int n);
/* AWS's answer to a required member left out. */
enum sc_status elb_null_member(const char *member, struct sc_error *err);
enum sc_status elb_too_many_tags(struct sc_error *err);
enum sc_status elb_check_tags(const struct sc_elb_tag *tags, int n, struct sc_error *err);
/* Count of distinct keys after adding `tags` to b's. */
int elb_tags_after(const struct lb *b, const struct sc_elb_tag *tags, int n);
int elb_set_tag(struct lb *b, const char *key, const char *value);
void elb_placement_add(struct placement *p, const char *zone, const char *subnet);
enum sc_status elb_zone_unsupported(const char *zone, struct sc_error *err);
enum sc_status elb_resolve_placement(const struct sc_elb *elb, const struct sc_elb_create_req *req,
                                     struct placement *p, struct sc_error *err);

/* --- elb_health.c ----------------------------------------------------------------------------- */

void elb_reg_remove(struct lb *b, int i);
/* Registration r (of an InService instance) starts draining for the LB's draining timeout. */
void elb_drain_start(struct lb *b, struct reg *r, enum drain_kind kind, int64_t now_ms);
/* Ends the drain of registration i; returns 1 when the registration was removed. */
int elb_drain_end(struct lb *b, int i);
void elb_reset_health(struct reg *r);
int elb_zone_enabled(const struct lb *b, const char *zone);
int elb_reg_routable(const struct sc_elb *elb, const struct lb *b, const struct reg *r);

#endif
