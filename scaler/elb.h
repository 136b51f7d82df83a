/* scaler/elb.h: classic Elastic Load Balancing (2012-06-01) for one account and region
 * (spec/aws-behavior.md section 6).
 *
 * struct sc_elb keeps load balancers (listeners, health check, attributes, zones and
 * subnets, tags), their registered instances and each registration's health bookkeeping:
 * consecutive health-check results against Healthy/UnhealthyThreshold, connection
 * draining timers, and the InService set the data plane routes to. It reads instance
 * states and zones from the struct sc_ec2 given at create; the only changes it makes there
 * are the ones AWS's ELB makes in EC2: the default_elb_<id> security group and each load
 * balancer's network interfaces (docs/elb-classic.md sections 1-2).
 *
 * Pure: no clock, no I/O; entry points take now_ms. Load balancers are named by their
 * name (a string) in every call, so nothing holds pointers across deletes.
 *
 * Ownership: request strings are borrowed and copied when kept. Views (find/at/describe)
 * are borrowed and valid until the next mutating call on the same struct sc_elb (any call
 * taking a non-const struct sc_elb *, including sc_elb_step and sc_elb_health_result).
 *
 * Data plane (scaler/world.h): for every load balancer, every Interval, the caller checks
 * each instance listed by sc_elb_target_at() whose `checked` flag is set (TCP connect, or
 * HTTP GET expecting 200 within Timeout) and reports sc_elb_health_result(). It routes
 * new requests only to sc_elb_routable() instances. When a draining instance has no
 * request in flight any more it calls sc_elb_drain_done(); sc_elb_step() ends drains
 * whose timeout passed.
 */
#ifndef SCALER_ELB_H
#define SCALER_ELB_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/ec2.h"
#include "scaler/lb_sticky.h"
#include "scaler/status.h"

#define SC_ELB_MAX_LOAD_BALANCERS 20 /* per region (TooManyLoadBalancers) */
#define SC_ELB_MAX_TAGS           10 /* per load balancer (TooManyTags) */
#define SC_ELB_NAME_LEN           33 /* 32 characters + NUL */

struct sc_elb_config {
    const char *account_id; /* NULL -> "123456789012" */
    const char *region;     /* NULL -> "us-east-1" */
    struct sc_ec2 *ec2;     /* required: instances, zones, subnets, security groups */
    /* DNS-name numbers; NULL -> internal splitmix64 seeded with `seed`. */
    uint64_t (*rand64)(void *ud);
    void *rand_ud;
    uint64_t seed;
    int max_load_balancers; /* 0 -> SC_ELB_MAX_LOAD_BALANCERS */
};

struct sc_elb;

/* NULL on bad config (no ec2) or OOM. */
struct sc_elb *sc_elb_create(const struct sc_elb_config *cfg);
void sc_elb_destroy(struct sc_elb *elb); /* NULL is a no-op */

/* Advances time: drains whose timeout passed end (the instance is then deregistered);
 * registrations of instances EC2 no longer lists are dropped. Never allocates.
 * Called first in sc_world_step. */
void sc_elb_step(struct sc_elb *elb, int64_t now_ms);
/* Earliest drain deadline, or INT64_MAX. */
int64_t sc_elb_next_due_ms(const struct sc_elb *elb, int64_t now_ms);

/* --- plain data ------------------------------------------------------------------------------- */

struct sc_elb_listener {
    const char *protocol;           /* HTTP | HTTPS | TCP | SSL (any case in; upper kept) */
    int load_balancer_port;         /* 1..65535 */
    const char *instance_protocol;  /* NULL -> same family as protocol (HTTP/TCP) */
    int instance_port;              /* 1..65535 */
    const char *ssl_certificate_id; /* required for HTTPS/SSL fronts */
};

enum sc_elb_hc_protocol {
    SC_ELB_HC_TCP,
    SC_ELB_HC_SSL,
    SC_ELB_HC_HTTP,
    SC_ELB_HC_HTTPS,
};

struct sc_elb_health_check {
    const char *target; /* "TCP:80", "HTTP:80/index.html" */
    int interval_s;
    int timeout_s;
    int unhealthy_threshold;
    int healthy_threshold;
};

/* The parsed Target, for the data plane's checker. */
struct sc_elb_hc_target {
    enum sc_elb_hc_protocol protocol;
    int port;
    const char *path; /* "/index.html" for HTTP(S); NULL for TCP/SSL */
};

struct sc_elb_attributes {
    int connection_draining_enabled;
    int connection_draining_timeout_s; /* 1..3600, default 300 */
    int idle_timeout_s;                /* 1..3600, default 60 */
    int cross_zone_enabled;            /* default 0 (API) */
    int access_log_enabled;
    const char *access_log_s3_bucket_name;   /* NULL when unset */
    const char *access_log_s3_bucket_prefix; /* NULL when unset */
    int access_log_emit_interval;            /* 5 or 60, default 60 */
};

struct sc_elb_tag {
    const char *key;
    const char *value; /* "" when none */
};

/* DescribeLoadBalancers' LoadBalancerDescription. */
struct sc_elb_lb {
    const char *load_balancer_name;
    const char *dns_name; /* "<name>-<n>.<region>.elb.amazonaws.com" (internal-<...> for
                             scheme internal) */
    const char *canonical_hosted_zone_name;    /* == dns_name (internet-facing), else NULL */
    const char *canonical_hosted_zone_name_id; /* region's ELB zone id */
    const char *scheme;                        /* "internet-facing" | "internal" */
    const char *vpc_id;
    int64_t created_time_ms;
    const struct sc_elb_listener *listeners; /* creation order */
    int nlisteners;
    struct sc_elb_health_check health_check;
    struct sc_elb_hc_target hc_target;
    const char *const *availability_zones; /* enabled zones, sorted */
    int nzones;
    const char *const *subnets; /* one per enabled zone, same order as zones */
    int nsubnets;
    const char *const *security_groups;
    int nsecurity_groups;
    const char *source_security_group_owner_alias; /* the account id */
    const char *source_security_group_name;        /* its first security group's name */
    const char *const *instances; /* registered (not draining), registration order */
    int ninstances;
    struct sc_elb_attributes attributes;
    const struct sc_elb_tag *tags;
    int ntags;
};

/* --- load balancers --------------------------------------------------------------------------- */

struct sc_elb_create_req {
    const char *load_balancer_name;          /* 1..32 of [A-Za-z0-9-], no leading/trailing '-' */
    const struct sc_elb_listener *listeners; /* at least one */
    int nlisteners;
    const char *const *availability_zones; /* zones (default VPC's default subnets) ... */
    int nzones;
    const char *const *subnets; /* ... or subnets (one per zone, one VPC), not both */
    int nsubnets;
    /* Each must exist and be in the load balancer's VPC. None: in the default VPC the
     * account's default_elb_<id> group (made on first need), in another VPC its default
     * group (docs/elb-classic.md 1). */
    const char *const *security_groups;
    int nsecurity_groups;
    const char *scheme; /* NULL -> "internet-facing"; or "internal" */
    const struct sc_elb_tag *tags;
    int ntags;
};

/* CreateLoadBalancer. Same name with identical listeners, zones/subnets and scheme
 * succeeds again (AWS is idempotent here); otherwise DuplicateLoadBalancerName
 * `Load Balancer named 'x' already exists and it is configured with different
 * parameters.`. Errors: ValidationError (name, listeners, neither or both of zones and
 * subnets), TooManyLoadBalancers, DuplicateListener (two listeners on one port),
 * CertificateNotFound (HTTPS/SSL without a certificate), InvalidConfigurationRequest
 * (`Classic Load Balancers do not support Availability Zone 'x'.`, two subnets in one
 * zone), SubnetNotFound, InvalidSubnet (subnets of two VPCs), InvalidScheme, TooManyTags,
 * DuplicateTagKeys. The new load balancer has the API's default
 * health check (TCP:80, 30/5/2/10, spec 6.2), default attributes (spec 6.4) and no
 * instances. *out optional. */
enum sc_status sc_elb_create_load_balancer(struct sc_elb *elb, const struct sc_elb_create_req *req,
                                           int64_t now_ms, const struct sc_elb_lb **out,
                                           struct sc_error *err);
/* DeleteLoadBalancer: a missing name is success. Registrations (draining too) and its
 * network interfaces go; its security groups stay. */
enum sc_status sc_elb_delete_load_balancer(struct sc_elb *elb, const char *name, int64_t now_ms,
                                           struct sc_error *err);

int sc_elb_lb_count(const struct sc_elb *elb);
const struct sc_elb_lb *sc_elb_lb_at(const struct sc_elb *elb, int i); /* name order */
const struct sc_elb_lb *sc_elb_lb_find(const struct sc_elb *elb, const char *name);

/* DescribeLoadBalancers. With names: those, in request order; one unknown ->
 * LoadBalancerNotFound `There is no ACTIVE Load Balancer named 'x'`. Without names: all
 * in name order, paged: marker NULL/"" = from the start, else the NextMarker of the
 * previous page (the last name returned; the page goes on after it even if that load
 * balancer was deleted meanwhile); page_size 0 -> 400, else 1..400 (ValidationError).
 * Paging applies to the names case too. out holds min(page_size, count) entries;
 * next_marker (SC_ELB_NAME_LEN bytes) gets the next page's marker, or "" on the last. */
enum sc_status sc_elb_describe_load_balancers(const struct sc_elb *elb, const char *const *names,
                                              int nnames, const char *marker, int page_size,
                                              const struct sc_elb_lb **out, int *nout,
                                              char *next_marker, struct sc_error *err);

/* --- listeners -------------------------------------------------------------------------------- */

/* CreateLoadBalancerListeners: a listener identical to an existing one is a no-op; same
 * LoadBalancerPort with other settings -> DuplicateListener `A listener already exists for
 * <lb> with LoadBalancerPort <p>, but with a different InstancePort, Protocol, or
 * SSLCertificateId`. All-or-nothing. */
enum sc_status sc_elb_create_listeners(struct sc_elb *elb, const char *name,
                                       const struct sc_elb_listener *listeners, int n,
                                       int64_t now_ms, struct sc_error *err);
/* DeleteLoadBalancerListeners by LoadBalancerPorts; ports without a listener are
 * ignored (as AWS). */
enum sc_status sc_elb_delete_listeners(struct sc_elb *elb, const char *name, const int *ports,
                                       int nports, int64_t now_ms, struct sc_error *err);

/* --- health check ----------------------------------------------------------------------------- */

/* ConfigureHealthCheck with spec 6.2's ranges; ValidationError texts in elb_health.c; Timeout
 * must be < Interval (`Health check interval must be greater than the timeout.`).
 * Counters of registrations are kept. *out optional (the stored copy). */
enum sc_status sc_elb_configure_health_check(struct sc_elb *elb, const char *name,
                                             const struct sc_elb_health_check *hc, int64_t now_ms,
                                             const struct sc_elb_health_check **out,
                                             struct sc_error *err);
/* Parses a Target: 0 and *out filled (path points into `target`), or -1. */
int sc_elb_hc_target_parse(const char *target, struct sc_elb_hc_target *out);

/* --- attributes ------------------------------------------------------------------------------- */

struct sc_elb_attributes_req {
    int has_connection_draining;
    int connection_draining_enabled;
    int has_connection_draining_timeout;
    int connection_draining_timeout_s;
    int has_idle_timeout;
    int idle_timeout_s;
    int has_cross_zone;
    int cross_zone_enabled;
    int has_access_log;
    int access_log_enabled;
    const char *access_log_s3_bucket_name; /* required when enabling */
    const char *access_log_s3_bucket_prefix;
    int access_log_emit_interval; /* 0 = unchanged; else 5 or 60 */
};
/* ModifyLoadBalancerAttributes: only the has_ parts change; ranges -> ValidationError.
 * Turning draining off ends the drains in progress. *out optional. */
enum sc_status sc_elb_modify_attributes(struct sc_elb *elb, const char *name,
                                        const struct sc_elb_attributes_req *req, int64_t now_ms,
                                        const struct sc_elb_attributes **out, struct sc_error *err);
/* DescribeLoadBalancerAttributes. */
enum sc_status sc_elb_describe_attributes(const struct sc_elb *elb, const char *name,
                                          const struct sc_elb_attributes **out,
                                          struct sc_error *err);

/* --- zones ------------------------------------------------------------------------------------ */

/* EnableAvailabilityZonesForLoadBalancer (unknown zone -> InvalidConfigurationRequest);
 * the zone's default subnet joins. */
enum sc_status sc_elb_enable_zones(struct sc_elb *elb, const char *name, const char *const *zones,
                                   int nzones, int64_t now_ms, struct sc_error *err);
/* DisableAvailabilityZonesForLoadBalancer: removing every zone -> ValidationError. With
 * draining enabled, InService instances of a removed zone show `Disable Availability
 * Zone is currently in progress.` until the draining timeout (or drain_done). */
enum sc_status sc_elb_disable_zones(struct sc_elb *elb, const char *name, const char *const *zones,
                                    int nzones, int64_t now_ms, struct sc_error *err);

/* --- the load balancer in its VPC (elb_vpc.c, docs/elb-classic.md 6) -------------------------- */

/* ApplySecurityGroupsToLoadBalancer: the groups replace the load balancer's (duplicates
 * once); each must exist (InvalidSecurityGroup) and be in its VPC
 * (InvalidConfigurationRequest); at most 5. SourceSecurityGroup becomes the first group's
 * name; the network interfaces take the new groups. */
enum sc_status sc_elb_apply_security_groups(struct sc_elb *elb, const char *name,
                                            const char *const *groups, int ngroups, int64_t now_ms,
                                            struct sc_error *err);
/* AttachLoadBalancerToSubnets: every subnet must exist (SubnetNotFound), be in the load
 * balancer's VPC (InvalidSubnet) and not share a zone with another attached subnet
 * (InvalidConfigurationRequest); its zone becomes enabled (routes, health, interfaces). */
enum sc_status sc_elb_attach_subnets(struct sc_elb *elb, const char *name,
                                     const char *const *subnets, int nsubnets, int64_t now_ms,
                                     struct sc_error *err);
/* DetachLoadBalancerFromSubnets: the subnets' zones are disabled as by
 * sc_elb_disable_zones (their instances go OutOfService); subnets not attached are
 * ignored; detaching every subnet: InvalidConfigurationRequest. */
enum sc_status sc_elb_detach_subnets(struct sc_elb *elb, const char *name,
                                     const char *const *subnets, int nsubnets, int64_t now_ms,
                                     struct sc_error *err);
/* SetLoadBalancerListenerSSLCertificate: the HTTPS/SSL listener on port takes the
 * certificate (ListenerNotFound, InvalidConfigurationRequest for an HTTP/TCP listener,
 * CertificateNotFound for an id that is not an IAM/ACM certificate ARN). */
enum sc_status sc_elb_set_listener_certificate(struct sc_elb *elb, const char *name, int port,
                                               const char *certificate_id, int64_t now_ms,
                                               struct sc_error *err);

/* DescribeAccountLimits (AWS's order and defaults). */
struct sc_elb_limit {
    const char *name;
    const char *max;
};
int sc_elb_limit_count(void);
const struct sc_elb_limit *sc_elb_limit_at(int i); /* NULL out of range */

/* --- tags ------------------------------------------------------------------------------------- */

/* AddTags to several load balancers (overwrites same keys): TooManyTags beyond 10,
 * DuplicateTagKeys, ValidationError (key 1..128, value <= 256, no "aws:" prefix). */
enum sc_status sc_elb_add_tags(struct sc_elb *elb, const char *const *names, int nnames,
                               const struct sc_elb_tag *tags, int ntags, int64_t now_ms,
                               struct sc_error *err);
/* RemoveTags by key (value ignored). */
enum sc_status sc_elb_remove_tags(struct sc_elb *elb, const char *const *names, int nnames,
                                  const char *const *keys, int nkeys, int64_t now_ms,
                                  struct sc_error *err);
/* DescribeTags: 1..20 names (LoadBalancerNotFound for an unknown one); read the tags from
 * each returned view. out holds nnames entries. */
enum sc_status sc_elb_describe_tags(const struct sc_elb *elb, const char *const *names, int nnames,
                                    const struct sc_elb_lb **out, struct sc_error *err);

/* --- instances -------------------------------------------------------------------------------- */

/* RegisterInstancesWithLoadBalancer: every id must be an EC2 instance that is not
 * shutting-down or terminated (else InvalidInstance `Could not find EC2 instance i-x.`;
 * nothing changes) and in the load balancer's VPC (else InvalidInstance
 * `EC2 instance i-x is not in the same VPC as ELB.`).
 * Registering an already registered instance is a no-op; one that is draining stops
 * draining and stays registered. A new registration starts `registration in progress`. */
enum sc_status sc_elb_register_instances(struct sc_elb *elb, const char *name,
                                         const char *const *ids, int nids, int64_t now_ms,
                                         struct sc_error *err);
/* DeregisterInstancesFromLoadBalancer: unknown to EC2 and not registered ->
 * InvalidInstance; known but not registered -> ignored. With draining enabled an InService instance
 * drains (until sc_elb_drain_done or the draining timeout); otherwise, or when it is not InService,
 * it goes at once. */
enum sc_status sc_elb_deregister_instances(struct sc_elb *elb, const char *name,
                                           const char *const *ids, int nids, int64_t now_ms,
                                           struct sc_error *err);

enum sc_elb_state {
    SC_ELB_IN_SERVICE,
    SC_ELB_OUT_OF_SERVICE,
    SC_ELB_UNKNOWN,
};
const char *sc_elb_state_name(enum sc_elb_state s); /* "InService" ... */

/* One row of DescribeInstanceHealth (spec 6.3, strings verbatim). */
struct sc_elb_instance_health {
    const char *instance_id; /* borrowed (registration or the request's string) */
    enum sc_elb_state state;
    const char *state_name;  /* "InService" | "OutOfService" | "Unknown" */
    const char *reason_code; /* "ELB" | "Instance" | "N/A" */
    const char *description; /* AWS's sentence, or "N/A" */
};

/* DescribeInstanceHealth. No ids: every registered (and draining) instance, registration
 * order. With ids: those, in request order, registered or not; an id EC2 does not list ->
 * InvalidInstance `Could not find EC2 instance i-x.`. out holds nids rows (or
 * sc_elb_target_count() when nids is 0). */
enum sc_status sc_elb_describe_instance_health(const struct sc_elb *elb, const char *name,
                                               const char *const *ids, int nids,
                                               struct sc_elb_instance_health *out, int *nout,
                                               struct sc_error *err);

/* --- health bookkeeping and routing (data plane) ---------------------------------------------- */

/* The health-check threshold rule on one registration's counters: what struct sc_elb
 * keeps per registration, and what a data plane without an sc_elb (`emulator proxy`)
 * keeps per backend. Zeroed = a new registration. */
struct sc_elb_health {
    int in_service;      /* by health checks */
    int ever_in_service; /* passed a check since (re)registration */
    int failed_out;      /* out after UnhealthyThreshold consecutive failures */
    int consec_ok, consec_fail;
};
/* One health-check result (ok: passed). A new registration goes InService on its first
 * pass (unless UnhealthyThreshold failures came first); an InService one goes out after
 * unhealthy_threshold consecutive failures; one that is out comes back after
 * healthy_threshold consecutive passes. Returns h->in_service after it. */
int sc_elb_health_step(struct sc_elb_health *h, int ok, int healthy_threshold,
                       int unhealthy_threshold);

/* One health-check result for a registered (or draining) instance, by sc_elb_health_step
 * with the load balancer's thresholds; a draining instance that is out of service stops
 * draining (its deregistration completes). The data-plane reports (this one and
 * sc_elb_drain_done) see the registration as it stands at now_ms: a drain whose timeout
 * has passed has ended, as sc_elb_step(now_ms) would end it. Returns 1 when the instance
 * is now InService by health checks, 0 when not, -1 for an unknown load balancer or
 * registration (also one whose drain timed out by now_ms). */
int sc_elb_health_result(struct sc_elb *elb, const char *name, const char *instance_id, int ok,
                         int64_t now_ms);

/* Every registration of a load balancer (registered, then draining), for the checker. */
struct sc_elb_target {
    const char *instance_id;
    const char *availability_zone; /* from EC2; NULL if EC2 lost it */
    enum sc_elb_state state;       /* as DescribeInstanceHealth shows it */
    int routable;                  /* receives new requests (sc_elb_routable) */
    int draining;                  /* deregistration (or zone removal) in progress */
    int checked;                   /* the caller should health-check it: registered, EC2 running */
    int64_t registered_ms;
    int64_t drain_deadline_ms; /* when draining */
};
/* -1 for an unknown load balancer. */
int sc_elb_target_count(const struct sc_elb *elb, const char *name);
/* Fills *out; -1 when out of range. Strings borrowed. */
int sc_elb_target_at(const struct sc_elb *elb, const char *name, int i, struct sc_elb_target *out);

/* 1 when the instance is InService on that load balancer (DescribeInstanceHealth), 0
 * otherwise (also unknown names). */
int sc_elb_instance_in_service(const struct sc_elb *elb, const char *name, const char *instance_id);
/* 1 when a new request may be routed to it: InService, not draining, EC2 running, its zone
 * enabled. */
int sc_elb_routable(const struct sc_elb *elb, const char *name, const char *instance_id);

/* The instances a load-balancer node in `zone` routes to: routable ones of that zone, or of
 * every enabled zone when cross-zone is on or zone is NULL. Writes up to cap borrowed ids
 * (registration order), returns how many there are in all (may exceed cap), -1 for an
 * unknown load balancer. The emulator's proxy and the simulator both route from this. */
int sc_elb_route_set(const struct sc_elb *elb, const char *name, const char *zone, const char **ids,
                     int cap);

/* In-flight requests to a draining instance have ended: the drain finishes now (or had
 * finished by its timeout, if that passed by now_ms). Returns 1 if a drain ended, 0 if it
 * was not draining there, -1 unknown load balancer. */
int sc_elb_drain_done(struct sc_elb *elb, const char *name, const char *instance_id,
                      int64_t now_ms);
/* 1 when the instance is draining on that load balancer. */
int sc_elb_instance_draining(const struct sc_elb *elb, const char *name, const char *instance_id);
/* For the asg side: 1 when a deregistration of the instance is still draining on any load
 * balancer, so its termination waits (zone-disable drains do not count). */
int sc_elb_draining_anywhere(const struct sc_elb *elb, const char *instance_id);
/* 1 when the instance is registered (or draining) on any load balancer. */
int sc_elb_registered_anywhere(const struct sc_elb *elb, const char *instance_id);
/* 1 when the instance is registered (or draining) on that load balancer. */
int sc_elb_instance_registered(const struct sc_elb *elb, const char *name, const char *instance_id);

/* An instance's standing on one load balancer, for the asg side's ELB health check
 * (spec 3.3: only OUT_OF_SERVICE makes it Unhealthy; REGISTERING is not a failure). */
enum sc_elb_membership {
    SC_ELB_MEMBER_NONE = 0,       /* not registered (or unknown load balancer) */
    SC_ELB_MEMBER_REGISTERING,    /* `Instance registration is still in progress.` */
    SC_ELB_MEMBER_IN_SERVICE,     /* InService */
    SC_ELB_MEMBER_OUT_OF_SERVICE, /* failed checks, EC2 not running, zone not enabled or
                                     being disabled */
    SC_ELB_MEMBER_DRAINING,       /* deregistration in progress */
};
enum sc_elb_membership sc_elb_instance_membership(const struct sc_elb *elb, const char *name,
                                                  const char *instance_id);

/* --- AWS/ELB metrics (docs/elb-metrics.md) ---------------------------------------------------- */

/* HealthyHostCount / UnHealthyHostCount for AWS/ELB: registered instances whose
 * DescribeInstanceHealth state is InService / not InService, of `zone` (NULL: all zones).
 * An instance being deregistered (draining) is not counted: it takes no new requests and
 * is no longer a registered instance (DescribeLoadBalancers does not list it). -1 for an
 * unknown load balancer, else 0. */
int sc_elb_host_counts(const struct sc_elb *elb, const char *name, const char *zone, int *healthy,
                       int *unhealthy);

/* The AWS/ELB metric set of a classic load balancer, in the order sc_elb_report_minute puts
 * them. */
enum sc_elb_metric {
    SC_ELB_METRIC_HEALTHY_HOST_COUNT = 0,
    SC_ELB_METRIC_UNHEALTHY_HOST_COUNT,
    SC_ELB_METRIC_REQUEST_COUNT,
    SC_ELB_METRIC_LATENCY,
    SC_ELB_METRIC_BACKEND_2XX,
    SC_ELB_METRIC_BACKEND_3XX,
    SC_ELB_METRIC_BACKEND_4XX,
    SC_ELB_METRIC_BACKEND_5XX,
    SC_ELB_METRIC_ELB_4XX,
    SC_ELB_METRIC_ELB_5XX,
    SC_ELB_METRIC_SURGE_QUEUE_LENGTH,
    SC_ELB_METRIC_SPILLOVER_COUNT,
    SC_ELB_METRIC_BACKEND_CONNECTION_ERRORS,
    SC_ELB_NMETRICS
};
#define SC_ELB_METRIC_BIT(m) (1u << (unsigned)(m))
#define SC_ELB_METRICS_ALL   ((1u << SC_ELB_NMETRICS) - 1u)

/* AWS's name ("HealthyHostCount") and unit ("Count", "Seconds" for Latency); NULL out of
 * range. */
const char *sc_elb_metric_name(enum sc_elb_metric m);
const char *sc_elb_metric_unit(enum sc_elb_metric m);
/* The metric an AWS/ELB name (exact case) names, or -1. */
int sc_elb_metric_find(const char *metric_name);

/* What a load balancer's data plane counted over one metric period (a minute): the raw
 * material of the AWS/ELB set. Counts are of the period as the caller's world has them
 * (the emulator's already multiplied by its time scale: what the emulated minute would
 * have seen; the simulator's rounded from its fluid model); 0 = none. */
struct sc_elb_traffic {
    double requests;       /* routed requests (responses with backend errors included) */
    double latency_sum_us; /* Latency: sum over the latency_count requests timed */
    double latency_count;
    double backend_2xx, backend_3xx, backend_4xx, backend_5xx; /* codes from the instances */
    double elb_4xx, elb_5xx;    /* answers of the load balancer itself */
    double surge_queue_max;     /* the surge queue's peak over the period */
    double spillover;           /* requests refused with the surge queue full */
    double backend_conn_errors; /* failed connections to instances, health checks' included */
};

struct sc_cw;
/* Puts one period of load balancer `name`'s AWS/ELB metrics into cw (dimension
 * LoadBalancerName, Timestamp timestamp_ms, received at now_ms) by AWS's reporting
 * criteria: HealthyHostCount and UnHealthyHostCount (sc_elb_host_counts, all zones) while
 * the load balancer has a registration (draining ones included), zeros too; every other
 * metric only when it is non-zero (Latency: the mean, in seconds, when a request was
 * timed). `metrics` is the set that may be put: SC_ELB_METRICS_ALL, or an or of
 * SC_ELB_METRIC_BIT()s (the simulator puts only what some alarm reads). Called by both
 * worlds at the end of each metric minute; allocates only through cw (a new metric
 * identity). Returns the number of values put, -1 for an unknown load balancer. */
int sc_elb_report_minute(const struct sc_elb *elb, struct sc_cw *cw, const char *name,
                         const struct sc_elb_traffic *t, unsigned metrics, int64_t timestamp_ms,
                         int64_t now_ms);

/* --- save / load (the emulator's --state FILE) ------------------------------------------ */

struct json_t;
/* Every load balancer (listeners, health check, attributes, zones, tags, registrations
 * with their health and draining bookkeeping) as a new JSON object, or NULL. */
struct json_t *sc_elb_save(const struct sc_elb *elb);
/* Loads what sc_elb_save wrote into a freshly created, empty elb whose ec2 already holds
 * the saved VPCs (load EC2 first). All or nothing (ValidationError "state: elb: ..."). */
enum sc_status sc_elb_load(struct sc_elb *elb, const struct json_t *obj, struct sc_error *err);

/* --- policies (elb_policy.c; docs/elb-classic.md section 4) ----------------------------
 * Policy types and the predefined SSL policies are AWS's data; each load balancer keeps its
 * own policies, the policy set of each listener (by LoadBalancerPort) and of each back-end
 * port (by InstancePort). */

struct sc_elb_policy_attr {
    const char *name;
    const char *value;
};

struct sc_elb_policy {
    const char *policy_name;
    const char *policy_type_name;
    const struct sc_elb_policy_attr *attrs; /* in the order given (or the type's) */
    int nattrs;
};

struct sc_elb_policy_attr_type {
    const char *name;
    const char *type;        /* "Boolean", "String", "Long", "PolicyName" */
    const char *cardinality; /* "ONE", "ZERO_OR_ONE", "ONE_OR_MORE" */
};

struct sc_elb_policy_type {
    const char *name;
    const char *description;
    const struct sc_elb_policy_attr_type *attrs;
    int nattrs;
};

/* The policy types (AWS's order) and the one of a name (NULL when none). */
int sc_elb_policy_type_count(void);
const struct sc_elb_policy_type *sc_elb_policy_type_at(int i);
const struct sc_elb_policy_type *sc_elb_policy_type_find(const char *name);
/* DescribeLoadBalancerPolicyTypes: names (none: all) -> out (room for the count, or n);
 * an unknown name -> PolicyTypeNotFound. */
enum sc_status sc_elb_describe_policy_types(const char *const *names, int n,
                                            const struct sc_elb_policy_type **out, int *nout,
                                            struct sc_error *err);

/* How many policies DescribeLoadBalancerPolicies can return: the load balancer's (name
 * non-NULL; -1 for an unknown one) or the predefined ones (name NULL). */
int sc_elb_policy_count(const struct sc_elb *elb, const char *name);
/* DescribeLoadBalancerPolicies. With a load balancer: its policies (creation order), or
 * the named ones (PolicyNotFound for one it lacks); without: the predefined policies, or
 * the named ones. out holds max(n, sc_elb_policy_count()). */
enum sc_status sc_elb_describe_policies(const struct sc_elb *elb, const char *name,
                                        const char *const *policy_names, int n,
                                        const struct sc_elb_policy **out, int *nout,
                                        struct sc_error *err);
/* CreateLoadBalancerPolicy with AWS's checks (type, duplicate name, attributes,
 * Reference-Security-Policy, PublicKeyPolicyName). All or nothing. */
enum sc_status sc_elb_create_policy(struct sc_elb *elb, const char *name, const char *policy_name,
                                    const char *type_name, const struct sc_elb_policy_attr *attrs,
                                    int nattrs, int64_t now_ms, struct sc_error *err);
/* CreateLBCookieStickinessPolicy: expiration_s < 0 = none (browser session). */
enum sc_status sc_elb_create_lb_cookie_policy(struct sc_elb *elb, const char *name,
                                              const char *policy_name, int64_t expiration_s,
                                              int64_t now_ms, struct sc_error *err);
/* CreateAppCookieStickinessPolicy. */
enum sc_status sc_elb_create_app_cookie_policy(struct sc_elb *elb, const char *name,
                                               const char *policy_name, const char *cookie_name,
                                               int64_t now_ms, struct sc_error *err);
/* DeleteLoadBalancerPolicy: one set on a listener or back-end port, or one the load
 * balancer lacks -> InvalidConfigurationRequest. */
enum sc_status sc_elb_delete_policy(struct sc_elb *elb, const char *name, const char *policy_name,
                                    int64_t now_ms, struct sc_error *err);
/* SetLoadBalancerPoliciesOfListener: the set of the listener on port (ListenerNotFound
 * without one) becomes names[] (n 0: empty); PolicyNotFound, InvalidConfigurationRequest
 * `<policy> cannot be enabled` for a type the listener's protocol does not take. */
enum sc_status sc_elb_set_listener_policies(struct sc_elb *elb, const char *name, int port,
                                            const char *const *names, int n, int64_t now_ms,
                                            struct sc_error *err);
/* SetLoadBalancerPoliciesForBackendServer: the set of instance_port becomes names[]
 * (ProxyProtocol and BackendServerAuthentication types only). */
enum sc_status sc_elb_set_backend_policies(struct sc_elb *elb, const char *name, int instance_port,
                                           const char *const *names, int n, int64_t now_ms,
                                           struct sc_error *err);
/* DescribeLoadBalancers' parts: the policy names set on the listener of port (borrowed,
 * *names NULL and 0 when none), the back-end ports with policies (ascending) and theirs.
 * -1 for an unknown load balancer or index. */
int sc_elb_listener_policy_names(const struct sc_elb *elb, const char *name, int port,
                                 const char *const **names);
/* The stickiness the listener of port honours (docs/elb-classic.md 4.1): an
 * LBCookieStickinessPolicyType policy set on it (AWSELB, CookieExpirationPeriod; none or 0:
 * a browser-session cookie) or an AppCookieStickinessPolicyType one (AWSELB following the
 * application's CookieName); type NONE otherwise. -1 for an unknown load balancer. */
int sc_elb_listener_stickiness(const struct sc_elb *elb, const char *name, int port,
                               struct sc_sticky *out);
int sc_elb_backend_count(const struct sc_elb *elb, const char *name);
int sc_elb_backend_at(const struct sc_elb *elb, const char *name, int i, int *instance_port,
                      const char *const **names, int *n);

#endif
