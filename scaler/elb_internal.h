/* scaler/elb_internal.h: what elb.c, elb_validate.c, elb_health.c, elb_policy.c and
 * elb_save.c share; not public.
 *
 * elb.c holds the load balancers, listeners, attributes, zones, tags, security groups and
 * network interfaces, and time, elb_validate.c the request checks, elb_health.c the health
 * check, effective health, registration, health bookkeeping, routing and draining,
 * elb_policy.c the policy types, predefined policies and load balancer policies,
 * elb_save.c the state file. */
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
    struct sc_elb_health health; /* the thresholds' bookkeeping (sc_elb_health_step) */
    enum drain_kind drain;
    int64_t drain_deadline_ms;
};

/* A load balancer's policy (strings owned; v points at them). */
struct policy {
    struct sc_elb_policy v;
    char *name;
    const struct sc_elb_policy_type *type; /* static data */
    struct sc_elb_policy_attr *attrs;
    int nattrs;
};

/* The policy names set on one port (a listener's LoadBalancerPort or an InstancePort). */
struct port_policies {
    int port;
    char **names;
    int n;
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
    int ndrain;               /* registrations with drain != DRAIN_NONE */
    char *ssg_name;           /* SourceSecurityGroup's GroupName */
    struct policy **policies; /* creation order */
    int npolicies, cappolicies;
    struct port_policies *lpols; /* listeners' sets, by LoadBalancerPort */
    int nlpols;
    struct port_policies *bpols; /* back-end sets, by InstancePort ascending */
    int nbpols;
};

#define ELB_PREDEFINED       6  /* predefined policies carried (elb_policy.c) */
#define ELB_PREDEFINED_ATTRS 96 /* room for one's attributes */

struct sc_elb {
    char account[32];
    char region[32];
    struct sc_ec2 *ec2;
    uint64_t (*rand64)(void *ud);
    void *rand_ud;
    struct sc_rng rng;
    int max_lbs;
    struct lb **lbs; /* sorted by name */
    int nlbs, caplbs;
    /* the predefined policies' views (static strings), made at create */
    struct sc_elb_policy predefined[ELB_PREDEFINED];
    struct sc_elb_policy_attr predefined_attrs[ELB_PREDEFINED][ELB_PREDEFINED_ATTRS];
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
/* Replaces b's zones and subnets by p's (sorted pairs). 0 or -1 (OOM, b unchanged). */
int elb_set_zones(struct lb *b, const struct placement *p);
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
/* 1 when id has the shape of an IAM server certificate or ACM certificate ARN
 * (docs/elb-classic.md 6); the emulator has no IAM or ACM to ask. */
int elb_certificate_valid(const char *id);
enum sc_status elb_certificate_not_found(struct sc_error *err);
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

/* --- elb.c: security groups and interfaces -----------------------------------------------------
 */

/* Makes the load balancer's network interfaces in EC2 match its subnets and groups (none
 * when remove). */
enum sc_status elb_interfaces_sync(struct sc_elb *elb, const struct lb *b, int remove,
                                   int64_t now_ms, struct sc_error *err);
/* Sets b's SourceSecurityGroup from its first group (EC2's name for it). 0 or -1 (OOM). */
int elb_source_group_set(const struct sc_elb *elb, struct lb *b);

/* --- elb_policy.c ----------------------------------------------------------------------------- */

void elb_predefined_init(struct sc_elb *elb);
void elb_policies_free(struct lb *b);
void elb_port_policies_free(struct port_policies *p, int n);
/* A new HTTPS/SSL listener on port: the load balancer gains ELBSecurityPolicy-2016-08 (if
 * it has no policy of that name) and the port's set is that policy. 0 or -1 (OOM). */
int elb_listener_policy_default(struct lb *b, const struct sc_elb *elb, int port);
/* The listener on port is gone: its set goes. */
void elb_listener_policies_drop(struct lb *b, int port);
/* Loads one policy / port set (elb_save.c); 0 or -1 with the load failed. */
const struct sc_elb_policy_type *elb_policy_type(const char *name);
int elb_policy_add(struct lb *b, const char *name, const struct sc_elb_policy_type *type,
                   const struct sc_elb_policy_attr *attrs, int nattrs);
int elb_port_set(struct port_policies **arr, int *n, int port, const char *const *names, int nnames,
                 int sorted);

#endif
