/* scaler/elbv2.h: Elastic Load Balancing v2 (2015-12-01): Application and Network Load
 * Balancers for one account and region (docs/elbv2.md).
 *
 * struct sc_elbv2 keeps load balancers, target groups (with their targets and each
 * target's health bookkeeping), listeners and rules, their attributes and tags. It reads
 * subnets, security groups and instances from the struct sc_ec2 given at create and
 * changes nothing there.
 *
 * Pure: no clock, no I/O; entry points take now_ms. Everything is named by its ARN (a
 * string) in calls, so nothing holds pointers across deletes.
 *
 * Ownership: request strings are borrowed and copied when kept. Views (the const
 * pointers find/at/describe return) are borrowed and valid until the next mutating call
 * on the same struct sc_elbv2 (any call taking a non-const struct sc_elbv2 *).
 *
 * Data plane (scaler/world.h): every HealthCheckIntervalSeconds, the caller checks each
 * target sc_elbv2_target_at() marks `checked` (TCP connect, or an HTTP GET on the path
 * whose status the matcher takes, within the timeout) and reports
 * sc_elbv2_health_result(). Requests go through sc_elbv2_listener_match() (the listener's
 * rules on the request, allocation-free) to an action; a forward picks among
 * sc_elbv2_route_set(). sc_elbv2_step() ends deregistration delays. */
#ifndef SCALER_ELBV2_H
#define SCALER_ELBV2_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/ec2.h"
#include "scaler/lb_sticky.h"
#include "scaler/status.h"

struct sc_cw;

#define SC_ELBV2_NAME_LEN           33 /* 32 characters + NUL */
#define SC_ELBV2_ARN_LEN            192
#define SC_ELBV2_MAX_LOAD_BALANCERS 50   /* per type (application-load-balancers) */
#define SC_ELBV2_MAX_TARGET_GROUPS  3000 /* target-groups */
#define SC_ELBV2_MAX_LISTENERS      50   /* listeners-per-*-load-balancer */
#define SC_ELBV2_MAX_RULES          100  /* rules-per-application-load-balancer */
#define SC_ELBV2_MAX_TARGETS        1000 /* targets-per-target-group */
#define SC_ELBV2_MAX_TAGS           50   /* per resource */
#define SC_ELBV2_MAX_VALUES         5    /* condition-values-per-alb-rule */
#define SC_ELBV2_MAX_FORWARD        5    /* target-groups-per-action-on-application-load-balancer */
#define SC_ELBV2_MAX_ACTIONS        5
#define SC_ELBV2_MAX_CONDITIONS     10
#define SC_ELBV2_MAX_CERTS          26 /* a listener's certificates, the default included */

struct sc_elbv2_config {
    const char *account_id;       /* NULL -> "123456789012" */
    const char *region;           /* NULL -> "us-east-1" */
    struct sc_ec2 *ec2;           /* required */
    uint64_t (*rand64)(void *ud); /* ids; NULL -> splitmix64 seeded with seed */
    void *rand_ud;
    uint64_t seed;
};

struct sc_elbv2;

struct sc_elbv2 *sc_elbv2_create(const struct sc_elbv2_config *cfg);
void sc_elbv2_destroy(struct sc_elbv2 *v2); /* NULL is a no-op */

/* Ends deregistration delays that ran out; drops targets whose instance EC2 no longer
 * lists. Never allocates. */
void sc_elbv2_step(struct sc_elbv2 *v2, int64_t now_ms);
/* Earliest delay end, or INT64_MAX. */
int64_t sc_elbv2_next_due_ms(const struct sc_elbv2 *v2, int64_t now_ms);

/* --- plain data ------------------------------------------------------------------------------- */

struct sc_elbv2_kv {
    const char *key;
    const char *value;
};

enum sc_elbv2_action_type {
    SC_ELBV2_ACTION_FORWARD = 0,
    SC_ELBV2_ACTION_REDIRECT,
    SC_ELBV2_ACTION_FIXED_RESPONSE,
};

struct sc_elbv2_forward_tg {
    const char *target_group_arn;
    int weight; /* 0..999 */
};

/* One action (docs/elbv2.md 5). In a request, strings are borrowed; the stored copy
 * fills the defaults (redirect's #{...} parts, weights). */
struct sc_elbv2_action {
    enum sc_elbv2_action_type type;
    int order;                                                /* 0: not given */
    const char *target_group_arn;                             /* forward: the single form */
    struct sc_elbv2_forward_tg forward[SC_ELBV2_MAX_FORWARD]; /* forward: ForwardConfig */
    int nforward;
    int has_forward_config;
    int stickiness_enabled;
    int stickiness_duration_s; /* 0: not given */
    const char *redirect_protocol, *redirect_port, *redirect_host, *redirect_path, *redirect_query,
        *redirect_status;           /* "HTTP_301" | "HTTP_302" */
    const char *fixed_status;       /* "503" */
    const char *fixed_content_type; /* NULL when not given */
    const char *fixed_body;         /* NULL when not given */
};

enum sc_elbv2_field {
    SC_ELBV2_PATH_PATTERN = 0,
    SC_ELBV2_HOST_HEADER,
    SC_ELBV2_HTTP_HEADER,
    SC_ELBV2_HTTP_REQUEST_METHOD,
    SC_ELBV2_QUERY_STRING,
    SC_ELBV2_SOURCE_IP,
};
/* "path-pattern", ...; NULL out of range. And back: -1 when unknown. */
const char *sc_elbv2_field_name(enum sc_elbv2_field f);
int sc_elbv2_field_parse(const char *name);

struct sc_elbv2_cidr {
    int family; /* 4 or 6 */
    uint8_t addr[16];
    int prefix;
};

/* One condition (docs/elbv2.md 6): nvalues values, or (query-string) key/value pairs whose
 * key may be NULL. */
struct sc_elbv2_condition {
    enum sc_elbv2_field field;
    const char *header_name; /* http-header */
    const char *values[SC_ELBV2_MAX_VALUES];
    const char *query_keys[SC_ELBV2_MAX_VALUES];
    int nvalues;
    int legacy_values;                               /* path/host given as Values */
    struct sc_elbv2_cidr cidrs[SC_ELBV2_MAX_VALUES]; /* source-ip, parsed when stored */
};

struct sc_elbv2_lb {
    const char *arn;
    const char *name;
    const char *type; /* "application" | "network" */
    const char *scheme;
    const char *dns_name;
    const char *canonical_hosted_zone_id;
    const char *vpc_id;
    const char *ip_address_type;
    const char *state; /* "active" */
    int64_t created_ms;
    const char *const *zones;   /* sorted */
    const char *const *subnets; /* parallel to zones */
    int nzones;
    const char *const *security_groups;
    int nsecurity_groups;
    const struct sc_elbv2_kv *attrs;
    int nattrs;
    const char *ipv4_ipam_pool_id; /* ModifyIpPools (scaler/elbv2_trust.h); NULL: none */
};

struct sc_elbv2_health_check {
    const char *protocol; /* "HTTP" | "HTTPS" | "TCP" */
    const char *port;     /* "traffic-port" or a number */
    int enabled;
    const char *path;    /* NULL for TCP */
    const char *matcher; /* HTTP codes; NULL for TCP */
    int interval_s, timeout_s, healthy_threshold, unhealthy_threshold;
};

struct sc_elbv2_tg {
    const char *arn;
    const char *name;
    const char *protocol;
    const char *protocol_version; /* "HTTP1" for HTTP/HTTPS, NULL otherwise */
    int port;
    const char *vpc_id;
    const char *target_type; /* "instance" | "ip" */
    const char *ip_address_type;
    struct sc_elbv2_health_check hc;
    const struct sc_elbv2_kv *attrs;
    int nattrs;
    const char *const *load_balancer_arns; /* those forwarding to it */
    int nload_balancer_arns;
};

struct sc_elbv2_rule {
    const char *arn;
    const char *listener_arn;
    int priority; /* 1..50000; 0 for the default rule */
    int is_default;
    const struct sc_elbv2_condition *conditions;
    int nconditions;
    const struct sc_elbv2_action *actions;
    int nactions;
};

/* A listener's MutualAuthentication (docs/elbv2.md 14; scaler/elbv2_trust.h). */
struct sc_elbv2_mutual_auth {
    const char *mode;            /* "off" | "passthrough" | "verify" */
    const char *trust_store_arn; /* verify only */
    int ignore_client_certificate_expiry;
    const char *advertise_trust_store_ca_names; /* "on" | "off"; NULL: not given */
    const char *trust_store_association_status; /* view only: "active" with a trust store */
};

struct sc_elbv2_listener {
    const char *arn;
    const char *load_balancer_arn;
    const char *protocol;
    int port;
    const char *ssl_policy;          /* HTTPS/TLS */
    const char *const *certificates; /* the first is the default */
    int ncertificates;
    const char *alpn_policy;
    const struct sc_elbv2_action *default_actions;
    int ndefault_actions;
    /* its rules by priority, the default rule last (the data plane's routing order) */
    const struct sc_elbv2_rule *const *rules;
    int nrules;
    const struct sc_elbv2_kv *attrs;
    int nattrs;
    /* HTTPS listeners of an Application Load Balancer: always set (mode "off" unless
     * given); NULL otherwise */
    const struct sc_elbv2_mutual_auth *mutual_auth;
};

/* --- load balancers --------------------------------------------------------------------------- */

struct sc_elbv2_lb_req {
    const char *name;
    const char *type;            /* NULL -> "application" */
    const char *scheme;          /* NULL -> "internet-facing" */
    const char *ip_address_type; /* NULL -> "ipv4" */
    const char *const *subnets;
    int nsubnets;
    const char *const *security_groups;
    int nsecurity_groups;
    const struct sc_elbv2_kv *tags;
    int ntags;
};
enum sc_status sc_elbv2_create_load_balancer(struct sc_elbv2 *v2, const struct sc_elbv2_lb_req *r,
                                             int64_t now_ms, const struct sc_elbv2_lb **out,
                                             struct sc_error *err);
enum sc_status sc_elbv2_delete_load_balancer(struct sc_elbv2 *v2, const char *arn, int64_t now_ms,
                                             struct sc_error *err);
int sc_elbv2_lb_count(const struct sc_elbv2 *v2);
const struct sc_elbv2_lb *sc_elbv2_lb_at(const struct sc_elbv2 *v2, int i); /* creation order */
const struct sc_elbv2_lb *sc_elbv2_lb_find(const struct sc_elbv2 *v2, const char *arn);
const struct sc_elbv2_lb *sc_elbv2_lb_find_name(const struct sc_elbv2 *v2, const char *name);
/* DescribeLoadBalancers' selection: by arns or names (not both), else all; out holds
 * max(n, count) entries. */
enum sc_status sc_elbv2_describe_load_balancers(const struct sc_elbv2 *v2, const char *const *arns,
                                                int narns, const char *const *names, int nnames,
                                                const struct sc_elbv2_lb **out, int *nout,
                                                struct sc_error *err);
/* SetSecurityGroups / SetSubnets / SetIpAddressType. */
enum sc_status sc_elbv2_set_security_groups(struct sc_elbv2 *v2, const char *arn,
                                            const char *const *groups, int n, int64_t now_ms,
                                            struct sc_error *err);
enum sc_status sc_elbv2_set_subnets(struct sc_elbv2 *v2, const char *arn,
                                    const char *const *subnets, int n, int64_t now_ms,
                                    struct sc_error *err);
enum sc_status sc_elbv2_set_ip_address_type(struct sc_elbv2 *v2, const char *arn, const char *type,
                                            int64_t now_ms, struct sc_error *err);

/* --- attributes (load balancers, target groups, listeners) ------------------------------------ */

/* ModifyLoadBalancerAttributes / ModifyTargetGroupAttributes / ModifyListenerAttributes:
 * every key checked against the kind's table (docs/elbv2.md 3, 4, 5), all or nothing. */
enum sc_status sc_elbv2_modify_attributes(struct sc_elbv2 *v2, const char *arn,
                                          const struct sc_elbv2_kv *attrs, int n, int64_t now_ms,
                                          struct sc_error *err);
/* The attributes of a load balancer, target group or listener (its not-found error
 * otherwise). */
enum sc_status sc_elbv2_describe_attributes(const struct sc_elbv2 *v2, const char *arn,
                                            const struct sc_elbv2_kv **out, int *n,
                                            struct sc_error *err);
/* An attribute's value, or NULL. */
const char *sc_elbv2_attr(const struct sc_elbv2_kv *attrs, int n, const char *key);

/* --- tags ------------------------------------------------------------------------------------- */

/* AddTags / RemoveTags over load balancer, target group, listener and rule ARNs. */
enum sc_status sc_elbv2_add_tags(struct sc_elbv2 *v2, const char *const *arns, int narns,
                                 const struct sc_elbv2_kv *tags, int ntags, int64_t now_ms,
                                 struct sc_error *err);
enum sc_status sc_elbv2_remove_tags(struct sc_elbv2 *v2, const char *const *arns, int narns,
                                    const char *const *keys, int nkeys, int64_t now_ms,
                                    struct sc_error *err);
enum sc_status sc_elbv2_tags(const struct sc_elbv2 *v2, const char *arn,
                             const struct sc_elbv2_kv **out, int *n, struct sc_error *err);

/* --- target groups ---------------------------------------------------------------------------- */

struct sc_elbv2_hc_req {
    const char *protocol, *port, *path, *matcher;
    int has_enabled, enabled;
    int has_interval, interval_s;
    int has_timeout, timeout_s;
    int has_healthy, healthy_threshold;
    int has_unhealthy, unhealthy_threshold;
};

struct sc_elbv2_tg_req {
    const char *name;
    const char *protocol;
    const char *protocol_version;
    int has_port, port;
    const char *vpc_id;
    const char *target_type; /* NULL -> "instance" */
    const char *ip_address_type;
    struct sc_elbv2_hc_req hc;
    const struct sc_elbv2_kv *tags;
    int ntags;
};
enum sc_status sc_elbv2_create_target_group(struct sc_elbv2 *v2, const struct sc_elbv2_tg_req *r,
                                            int64_t now_ms, const struct sc_elbv2_tg **out,
                                            struct sc_error *err);
enum sc_status sc_elbv2_modify_target_group(struct sc_elbv2 *v2, const char *arn,
                                            const struct sc_elbv2_hc_req *hc, int64_t now_ms,
                                            const struct sc_elbv2_tg **out, struct sc_error *err);
enum sc_status sc_elbv2_delete_target_group(struct sc_elbv2 *v2, const char *arn, int64_t now_ms,
                                            struct sc_error *err);
int sc_elbv2_tg_count(const struct sc_elbv2 *v2);
const struct sc_elbv2_tg *sc_elbv2_tg_at(const struct sc_elbv2 *v2, int i);
const struct sc_elbv2_tg *sc_elbv2_tg_find(const struct sc_elbv2 *v2, const char *arn);
/* DescribeTargetGroups: by lb_arn, arns or names (one of them), else all. */
enum sc_status sc_elbv2_describe_target_groups(const struct sc_elbv2 *v2, const char *lb_arn,
                                               const char *const *arns, int narns,
                                               const char *const *names, int nnames,
                                               const struct sc_elbv2_tg **out, int *nout,
                                               struct sc_error *err);
/* 1 when a listener or rule forwards to it. */
int sc_elbv2_tg_in_use(const struct sc_elbv2 *v2, const char *arn);

/* --- listeners and rules ---------------------------------------------------------------------- */

struct sc_elbv2_listener_req {
    const char *load_balancer_arn; /* create only */
    const char *protocol;          /* modify: NULL = unchanged */
    int has_port, port;
    const char *ssl_policy;
    const char *const *certificates;
    int ncertificates;
    const char *alpn_policy;
    const struct sc_elbv2_mutual_auth *mutual_auth; /* NULL: unchanged (modify) / off */
    const struct sc_elbv2_action *actions;          /* modify: NULL = unchanged */
    int nactions;
    const struct sc_elbv2_kv *tags;
    int ntags;
};
enum sc_status sc_elbv2_create_listener(struct sc_elbv2 *v2, const struct sc_elbv2_listener_req *r,
                                        int64_t now_ms, const struct sc_elbv2_listener **out,
                                        struct sc_error *err);
enum sc_status sc_elbv2_modify_listener(struct sc_elbv2 *v2, const char *arn,
                                        const struct sc_elbv2_listener_req *r, int64_t now_ms,
                                        const struct sc_elbv2_listener **out, struct sc_error *err);
enum sc_status sc_elbv2_delete_listener(struct sc_elbv2 *v2, const char *arn, int64_t now_ms,
                                        struct sc_error *err);
int sc_elbv2_listener_count(const struct sc_elbv2 *v2);
const struct sc_elbv2_listener *sc_elbv2_listener_at(const struct sc_elbv2 *v2, int i);
const struct sc_elbv2_listener *sc_elbv2_listener_find(const struct sc_elbv2 *v2, const char *arn);
/* DescribeListeners: of lb_arn, or the arns. */
enum sc_status sc_elbv2_describe_listeners(const struct sc_elbv2 *v2, const char *lb_arn,
                                           const char *const *arns, int narns,
                                           const struct sc_elbv2_listener **out, int *nout,
                                           struct sc_error *err);
/* Listener certificates: add (no duplicates) / remove (not the default one). */
enum sc_status sc_elbv2_listener_certificates(struct sc_elbv2 *v2, const char *arn,
                                              const char *const *certs, int n, int remove,
                                              int64_t now_ms, struct sc_error *err);

struct sc_elbv2_rule_req {
    const char *listener_arn; /* create only */
    int has_priority, priority;
    const struct sc_elbv2_condition *conditions; /* modify: NULL = unchanged */
    int nconditions;
    const struct sc_elbv2_action *actions; /* modify: NULL = unchanged */
    int nactions;
    const struct sc_elbv2_kv *tags;
    int ntags;
};
enum sc_status sc_elbv2_create_rule(struct sc_elbv2 *v2, const struct sc_elbv2_rule_req *r,
                                    int64_t now_ms, const struct sc_elbv2_rule **out,
                                    struct sc_error *err);
enum sc_status sc_elbv2_modify_rule(struct sc_elbv2 *v2, const char *arn,
                                    const struct sc_elbv2_rule_req *r, int64_t now_ms,
                                    const struct sc_elbv2_rule **out, struct sc_error *err);
enum sc_status sc_elbv2_delete_rule(struct sc_elbv2 *v2, const char *arn, int64_t now_ms,
                                    struct sc_error *err);
/* SetRulePriorities: all or nothing. */
enum sc_status sc_elbv2_set_rule_priorities(struct sc_elbv2 *v2, const char *const *arns,
                                            const int *priorities, int n, int64_t now_ms,
                                            struct sc_error *err);
const struct sc_elbv2_rule *sc_elbv2_rule_find(const struct sc_elbv2 *v2, const char *arn);
/* DescribeRules: of listener_arn (priority order, default last), or the arns. out holds
 * max(narns, the listener's rule count). */
enum sc_status sc_elbv2_describe_rules(const struct sc_elbv2 *v2, const char *listener_arn,
                                       const char *const *arns, int narns,
                                       const struct sc_elbv2_rule **out, int *nout,
                                       struct sc_error *err);
int sc_elbv2_rule_count(const struct sc_elbv2 *v2);

/* --- rule evaluation (the data plane's hot path: no allocation) ------------------------------ */

struct sc_elbv2_http_header {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
};

/* A request as the listener sees it. Lengths are bytes; strings need not be terminated. */
struct sc_elbv2_http_request {
    const char *method;
    size_t method_len;
    const char *path; /* without the query string */
    size_t path_len;
    const char *query; /* after '?', "" when none */
    size_t query_len;
    const char *host; /* the Host header, port included or not */
    size_t host_len;
    const struct sc_elbv2_http_header *headers;
    int nheaders;
    struct sc_elbv2_cidr source; /* prefix ignored */
};

/* Glob match of AWS's condition values: '*' any run, '?' one character; icase folds ASCII
 * case. Pure. */
int sc_elbv2_glob(const char *pattern, const char *s, size_t len, int icase);
/* 1 when every condition of the list matches (an empty list matches). */
int sc_elbv2_conditions_match(const struct sc_elbv2_condition *c, int n,
                              const struct sc_elbv2_http_request *q);
/* The first rule of the listener (priority order) whose conditions match, else its default
 * rule; NULL for an unknown listener index. */
const struct sc_elbv2_rule *sc_elbv2_listener_match(const struct sc_elbv2_listener *l,
                                                    const struct sc_elbv2_http_request *q);
/* The action a matched rule performs (its routing action: the last by Order). */
const struct sc_elbv2_action *sc_elbv2_rule_action(const struct sc_elbv2_rule *r);
/* Picks one of a forward's target groups by weight: draw in [0, total weight). Returns the
 * index, or -1 when every weight is 0. */
int sc_elbv2_forward_pick(const struct sc_elbv2_action *a, uint64_t draw);

/* The data plane's routing decision (docs/elbv2.md 10): the rule that matches q (priority
 * order, the default rule last) and its action; a forward's target group picked by weight
 * with draw (any uniform 64-bit value). Allocation-free. */
struct sc_elbv2_route {
    enum sc_elbv2_action_type type;
    const struct sc_elbv2_rule *rule;     /* NULL only for a listener without rules */
    const struct sc_elbv2_action *action; /* NULL likewise */
    const char *target_group_arn; /* forward: the group picked; NULL when every weight is 0 */
    int status;                   /* redirect 301/302; fixed-response its code */
};
/* Fills *out and returns its type; a listener without rules gives a fixed 503. Views
 * borrowed from l. */
enum sc_elbv2_action_type sc_elbv2_route(const struct sc_elbv2_listener *l,
                                         const struct sc_elbv2_http_request *q, uint64_t draw,
                                         struct sc_elbv2_route *out);
/* A redirect action's Location for q on a listener of protocol ("HTTP"/"HTTPS") and port:
 * protocol://host[:port]/path[?query], #{protocol} #{host} #{port} #{path} #{query}
 * replaced, a default port (80 http, 443 https) and an empty query left out. Writes a NUL-
 * terminated string into out[0..cap); returns its length, -1 when it does not fit or a is
 * not a redirect. */
long sc_elbv2_redirect_format(const struct sc_elbv2_action *a,
                              const struct sc_elbv2_http_request *q, const char *protocol, int port,
                              char *out, size_t cap);

/* --- targets and their health ----------------------------------------------------------------- */

struct sc_elbv2_target_req {
    const char *id;
    int port; /* 0: the group's */
    const char *availability_zone;
};
enum sc_status sc_elbv2_register_targets(struct sc_elbv2 *v2, const char *tg_arn,
                                         const struct sc_elbv2_target_req *t, int n, int64_t now_ms,
                                         struct sc_error *err);
enum sc_status sc_elbv2_deregister_targets(struct sc_elbv2 *v2, const char *tg_arn,
                                           const struct sc_elbv2_target_req *t, int n,
                                           int64_t now_ms, struct sc_error *err);

enum sc_elbv2_target_state {
    SC_ELBV2_INITIAL = 0,
    SC_ELBV2_HEALTHY,
    SC_ELBV2_UNHEALTHY,
    SC_ELBV2_UNUSED,
    SC_ELBV2_DRAINING,
    SC_ELBV2_UNAVAILABLE,
};
/* "initial", ...; NULL out of range. */
const char *sc_elbv2_target_state_name(enum sc_elbv2_target_state s);

/* A health-check result as the checker saw it. */
enum sc_elbv2_hc_result {
    SC_ELBV2_HC_OK = 0,
    SC_ELBV2_HC_TIMEOUT,       /* no answer within the timeout */
    SC_ELBV2_HC_FAILED,        /* connection refused or reset, malformed reply */
    SC_ELBV2_HC_CODE_MISMATCH, /* an HTTP status the matcher does not take */
};

/* What one health-check probe saw: the checker's facts, judged by sc_elbv2_hc_judge. */
enum sc_elbv2_probe {
    SC_ELBV2_PROBE_ANSWERED = 0, /* TCP check: connected; HTTP check: a status line */
    SC_ELBV2_PROBE_TIMEOUT,      /* no connection or no status line within the timeout */
    SC_ELBV2_PROBE_CONN_ERROR,   /* refused or reset while connecting */
    SC_ELBV2_PROBE_MALFORMED,    /* closed before a status line, or an unreadable one */
};
/* 1 when the health check's matcher ("200", "200,202", "200-299"; NULL: "200") takes HTTP
 * status code. */
int sc_elbv2_matcher_takes(const char *matcher, int code);
/* The result one probe of a target of group tg counts as (docs/elbv2.md 7): a pass when the
 * TCP check connected or the HTTP check's status is taken by the matcher; for a group of an
 * Application Load Balancer (HTTP/HTTPS) a timeout is SC_ELBV2_HC_TIMEOUT and a status not
 * taken SC_ELBV2_HC_CODE_MISMATCH, for a Network Load Balancer's groups both are
 * SC_ELBV2_HC_FAILED, as connection errors and malformed replies are for every group. */
enum sc_elbv2_hc_result sc_elbv2_hc_judge(const struct sc_elbv2_tg *tg, enum sc_elbv2_probe p,
                                          int status);

/* One target as DescribeTargetHealth shows it and the checker needs it. */
struct sc_elbv2_target_health {
    const char *id;
    int port;
    const char *availability_zone; /* the instance's, NULL when unknown */
    enum sc_elbv2_target_state state;
    const char *reason;   /* NULL when healthy */
    char description[96]; /* "" when healthy */
    char health_check_port[8];
    int checked;  /* the caller should health-check it */
    int routable; /* new requests may go to it (healthy, or fail-open) */
    int64_t drain_deadline_ms;
    int64_t slow_start_since_ms; /* in slow start since then (docs/elbv2.md 10.2); -1: not */
};

/* DescribeTargetHealth: every registration (registration order), or the targets asked
 * (unregistered ones as unused / Target.NotRegistered). out holds max(n, count). */
enum sc_status sc_elbv2_describe_target_health(const struct sc_elbv2 *v2, const char *tg_arn,
                                               const struct sc_elbv2_target_req *t, int n,
                                               struct sc_elbv2_target_health *out, int *nout,
                                               struct sc_error *err);
/* Registrations of a group (-1 unknown) and one of them (0, or -1 out of range). */
int sc_elbv2_target_count(const struct sc_elbv2 *v2, const char *tg_arn);
int sc_elbv2_target_at(const struct sc_elbv2 *v2, const char *tg_arn, int i,
                       struct sc_elbv2_target_health *out);

/* The health-check threshold rule of a target (scaler/elb.h's sc_elb_health_step, after
 * an initial phase needing healthy_threshold passes). Zeroed = a new registration. */
struct sc_elbv2_health {
    int decided;    /* left initial */
    int checks;     /* results seen */
    int in_service; /* healthy */
    int fails_out;
    int consec_ok, consec_fail, ever_in_service;
    enum sc_elbv2_hc_result last_fail;
    int last_code;
};
/* One result; returns 1 when healthy after it. */
int sc_elbv2_health_step(struct sc_elbv2_health *h, enum sc_elbv2_hc_result r, int code,
                         int healthy_threshold, int unhealthy_threshold);

/* One health-check result for a registered target (id, port). Returns 1 healthy, 0 not,
 * -1 unknown group or target. */
int sc_elbv2_health_result(struct sc_elbv2 *v2, const char *tg_arn, const char *id, int port,
                           enum sc_elbv2_hc_result r, int code, int64_t now_ms);
/* The data plane saw no request in flight and no connection open to target (id, port) of
 * group tg_arn on any proxy forwarding to the group: a draining target's deregistration
 * completes now (docs/elbv2.md 7, "immediately completes the deregistration process").
 * Returns 1 when a draining target went, 0 when the target is not draining, -1 for an
 * unknown group or target. */
int sc_elbv2_drain_idle(struct sc_elbv2 *v2, const char *tg_arn, const char *id, int port);
/* The targets a forward to this group may pick: healthy ones, or (none healthy) every
 * registered one not draining (fail open). Writes up to cap (ids borrowed, ports), returns
 * how many there are, -1 for an unknown group. */
int sc_elbv2_route_set(const struct sc_elbv2 *v2, const char *tg_arn, const char **ids, int *ports,
                       int cap);
/* For the asg: where instance id stands in the group (any port). */
enum sc_elbv2_membership {
    SC_ELBV2_MEMBER_NONE = 0,
    SC_ELBV2_MEMBER_INITIAL, /* initial or unused: not a failure */
    SC_ELBV2_MEMBER_HEALTHY,
    SC_ELBV2_MEMBER_UNHEALTHY,
    SC_ELBV2_MEMBER_DRAINING,
};
enum sc_elbv2_membership sc_elbv2_instance_membership(const struct sc_elbv2 *v2, const char *tg_arn,
                                                      const char *id);
/* 1 when id is registered or draining anywhere. */
int sc_elbv2_registered_anywhere(const struct sc_elbv2 *v2, const char *id);

/* --- balancing within a target group (elbv2_balance.c; docs/elbv2.md 10.1-10.3) -------------- */

enum sc_elbv2_algorithm {
    SC_ELBV2_ROUND_ROBIN = 0,
    SC_ELBV2_LEAST_OUTSTANDING, /* least_outstanding_requests */
    SC_ELBV2_WEIGHTED_RANDOM,
};

/* What a target group's attributes ask of the data plane. */
struct sc_elbv2_balancing {
    enum sc_elbv2_algorithm algorithm;
    int anomaly_mitigation;  /* weighted_random's: stored, not modelled (docs/elbv2.md 10.3) */
    int64_t slow_start_ms;   /* 0: off; never with least_outstanding_requests */
    struct sc_sticky sticky; /* stickiness.*: cookies (HTTP/HTTPS groups), source_ip (NLB) */
};
/* The balancing of group tg_arn from its attributes; 0, or -1 for an unknown group. */
int sc_elbv2_tg_balancing(const struct sc_elbv2 *v2, const char *tg_arn,
                          struct sc_elbv2_balancing *out);

/* Slow start: a target in slow start since since_ms gets this share of a full target's
 * requests, rising linearly from 0 to 1 over duration_ms; 1 when since_ms < 0 (not in slow
 * start) or duration_ms <= 0. */
double sc_elbv2_slow_start_share(int64_t now_ms, int64_t since_ms, int64_t duration_ms);

/* One routable target as the pick sees it. credit is the caller's per-target state for
 * round robin (starts 0, kept between picks). */
struct sc_elbv2_pick_cand {
    int outstanding; /* requests in flight */
    double weight;   /* its slow start share (1: full) */
    double *credit;
};
/* The target for one request among n candidates (n >= 1) by the group's algorithm:
 * round_robin in turn, each target as often as its weight (smooth weighted round robin:
 * a target in slow start gets its share); least_outstanding_requests the fewest in flight
 * (ties: the first; the caller rotates the order); weighted_random a draw weighted by the
 * weights (draw: any uniform 64-bit value). Returns the index. Allocation-free. */
int sc_elbv2_pick(enum sc_elbv2_algorithm alg, const struct sc_elbv2_pick_cand *c, int n,
                  uint64_t draw);

/* NLB source_ip stickiness (docs/elbv2.md 10.4): the target of a client is a pure function
 * of its address and the candidates, highest score wins (rendezvous hashing), so the same
 * address keeps its target while that target stays a candidate (healthy), and when it is
 * not only its clients move, each to its own next best. client: sc_elbv2_source_ip_key of
 * the address bytes (4 for IPv4, 16 for IPv6); keys: the candidates' stable keys
 * (sc_sticky_key of their ids). Returns the index of the chosen one, -1 when n < 1. The
 * same rule picks a load balancer node (zone) for the client when cross-zone is off.
 * Allocation-free. */
uint64_t sc_elbv2_source_ip_key(const void *addr, size_t len);
uint64_t sc_elbv2_source_ip_score(uint64_t client, uint64_t key);
int sc_elbv2_source_ip_pick(uint64_t client, const uint64_t *keys, int n);

/* --- AWS/ApplicationELB metrics (elbv2_metrics.c; docs/elbv2.md 11) -------------------------- */

/* The metric dimension value of a load balancer ARN ("app/NAME/ID", "net/NAME/ID") or a
 * target group ARN ("targetgroup/NAME/ID"): a pointer into arn, NULL for another string. */
const char *sc_elbv2_arn_dimension(const char *arn);
/* 1 when label is app/NAME/ID/targetgroup/NAME/ID (names 1..32 of [A-Za-z0-9-], ids 16 hex
 * digits): ALBRequestCountPerTarget's ResourceLabel (docs/elbv2.md 12). */
int sc_elbv2_resource_label_valid(const char *label);
/* A group's targets by state (zone NULL: all zones; else those in zone): healthy,
 * unhealthy and routable (new requests may go to them). Returns the registrations, -1 for
 * an unknown group. */
int sc_elbv2_group_counts(const struct sc_elbv2 *v2, const char *tg_arn, const char *zone,
                          int *healthy, int *unhealthy, int *routable);
/* RequestCountPerTarget: requests / healthy targets; with none healthy, / the routable ones
 * (fail open); with none, the requests themselves. */
double sc_elbv2_request_count_per_target(double requests, int healthy, int routable);

/* 1 when name is one of the AWS/ApplicationELB metrics sc_elbv2_report_minute puts
 * (docs/elbv2.md 11; case-sensitive, as CloudWatch's names), else 0 (NULL too). */
int sc_elbv2_metric_known(const char *name);

/* One minute's raw counters of a target group behind the load balancer (counts as the
 * emulated minute saw them). */
struct sc_elbv2_tg_traffic {
    const char *target_group_arn;
    const char *zone; /* NULL: every zone's requests; else those the node of this zone took */
    double requests;  /* a target was chosen: its answer, or the load balancer's 502/504 */
    double target_2xx, target_3xx, target_4xx, target_5xx;
    double resp_time_sum_s; /* request sent -> response head, summed over resp_count */
    double resp_count;
    double conn_errors; /* connections to its targets that failed (zone NULL only) */
};
/* ... and of the load balancer itself. */
struct sc_elbv2_traffic {
    double elb_3xx, elb_4xx, elb_5xx; /* its own answers (redirects, fixed responses, errors) */
    double elb_502, elb_503, elb_504;
    double fixed_responses, redirects;
    double active_conns;    /* client and target connections open at some time in the minute */
    double new_conns;       /* client and target connections opened */
    double processed_bytes; /* bytes from and to clients */
    const struct sc_elbv2_tg_traffic *tgs; /* groups without traffic may be left out; a
                                            * group's per-zone entries beside its NULL one */
    int ntgs;
};
/* Puts one minute's AWS/ApplicationELB metrics of Application Load Balancer lb_arn into cw
 * at timestamp_ms (docs/elbv2.md 11): RequestCount (LoadBalancer; TargetGroup+LoadBalancer,
 * zeros too), RequestCountPerTarget (TargetGroup; TargetGroup+LoadBalancer, always, every
 * group the load balancer forwards to), TargetResponseTime when timed, the HTTPCode_* and
 * action counts when non-zero, HealthyHostCount / UnHealthyHostCount (TargetGroup+
 * LoadBalancer; TargetGroup+AvailabilityZone+LoadBalancer). Called by a world's data
 * plane each metric minute. Returns the values put, -1 for an unknown or network load
 * balancer. */
int sc_elbv2_report_minute(const struct sc_elbv2 *v2, struct sc_cw *cw, const char *lb_arn,
                           const struct sc_elbv2_traffic *t, int64_t timestamp_ms, int64_t now_ms);

/* One minute of a Network Load Balancer's TCP and TLS listeners. */
struct sc_elbv2_nlb_traffic {
    double active_flows_tcp, active_flows_tls; /* flows open at some time in the minute */
    double new_flows_tcp, new_flows_tls;
    double bytes_tcp, bytes_tls; /* payload both ways (TLS: after decryption) */
    double active_flows_udp, new_flows_udp, bytes_udp; /* UDP: a client address and port */
    double client_resets, elb_resets, target_resets;
};
/* Puts one minute's AWS/NetworkELB metrics of Network Load Balancer lb_arn (docs/elbv2.md
 * 11.1): ActiveFlowCount, NewFlowCount, ProcessedBytes (LoadBalancer; always), their _TCP,
 * _TLS and _UDP parts and TCP_Client/ELB/Target_Reset_Count when non-zero, HealthyHostCount
 * and UnHealthyHostCount (TargetGroup+LoadBalancer; TargetGroup+AvailabilityZone+
 * LoadBalancer) of each group it forwards to. Returns the values put, -1 for an unknown or
 * application load balancer. */
int sc_elbv2_report_nlb_minute(const struct sc_elbv2 *v2, struct sc_cw *cw, const char *lb_arn,
                               const struct sc_elbv2_nlb_traffic *t, int64_t timestamp_ms,
                               int64_t now_ms);

/* --- catalogue ------------------------------------------------------------------------------ */

struct sc_elbv2_ssl_policy {
    const char *name;
    const char *const *protocols;
    int nprotocols;
    const char *const *ciphers; /* priority order (1..) */
    int nciphers;
    const char *const *load_balancer_types;
    int nload_balancer_types;
};
int sc_elbv2_ssl_policy_count(void);
const struct sc_elbv2_ssl_policy *sc_elbv2_ssl_policy_at(int i);
const struct sc_elbv2_ssl_policy *sc_elbv2_ssl_policy_find(const char *name);
/* DescribeAccountLimits (AWS's order). */
int sc_elbv2_limit_count(void);
const struct sc_elbv2_kv *sc_elbv2_limit_at(int i);

/* --- save / load (the emulator's --state FILE) ------------------------------------------ */

struct json_t;
/* Every record (load balancers, target groups with targets and health bookkeeping,
 * listeners, rules, attributes, tags) as a new JSON object, or NULL on OOM. */
struct json_t *sc_elbv2_save(const struct sc_elbv2 *v2);
/* Loads what sc_elbv2_save wrote into a fresh sc_elbv2 (ValidationError "state: elbv2:
 * ..."); on error destroy it. */
enum sc_status sc_elbv2_load(struct sc_elbv2 *v2, const struct json_t *obj, struct sc_error *err);

#endif
