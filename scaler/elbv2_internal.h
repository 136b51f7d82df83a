/* scaler/elbv2_internal.h: what elbv2.c (load balancers, listeners, rules, tags,
 * attributes, the catalogue), elbv2_rule.c (actions and conditions: checks, copies,
 * evaluation), elbv2_target.c (target groups, targets, health) and elbv2_save.c share;
 * not public. */
#ifndef SCALER_ELBV2_INTERNAL_H
#define SCALER_ELBV2_INTERNAL_H

#include <stdint.h>

#include "scaler/elbv2.h"
#include "scaler/elbv2_trust.h"
#include "scaler/rng.h"

#define V2_MAX_ZONES 16
#define V2_MAX_SGS   16
#define V2_MAX_CERTS SC_ELBV2_MAX_CERTS

/* Owned strings of one record part, freed together. */
struct sarena {
    char **v;
    int n, cap;
    int oom;
};
const char *sa_keep(struct sarena *a, const char *s); /* NULL in: NULL out; OOM sets a->oom */
void sa_free(struct sarena *a);

/* Owned key/value list (attributes, tags). */
struct kvlist {
    struct sc_elbv2_kv *v;
    int n, cap;
    struct sarena a;
};
/* Sets key (replacing its value) or appends; 0 or -1 (OOM). */
int kv_set(struct kvlist *l, const char *key, const char *value);
void kv_remove(struct kvlist *l, const char *key);
void kv_free(struct kvlist *l);

struct lbrec {
    struct sc_elbv2_lb v;
    struct sarena a;
    const char *zonev[V2_MAX_ZONES], *subnetv[V2_MAX_ZONES];
    const char *sgv[V2_MAX_SGS];
    char id[17];
    struct kvlist attrs, tags;
    /* capacity reservation and IPAM pool (elbv2_trust.c) */
    int cap_units;           /* 0: none */
    int64_t cap_modified_ms; /* 0: never */
    int cap_decreases;       /* in the UTC day of cap_decrease_day */
    int64_t cap_decrease_day;
    char *ipam_pool;
};

struct target {
    char id[64];
    int port;
    char zone[32];
    int64_t registered_ms;
    struct sc_elbv2_health h;
    int draining;
    int64_t drain_deadline_ms;
    int slow_start; /* entered slow start at slow_start_ms (docs/elbv2.md 10.2) */
    int64_t slow_start_ms;
};

struct tgrec {
    struct sc_elbv2_tg v;
    struct sarena a;  /* identity and health-check strings */
    struct sarena ha; /* health-check strings after a modify */
    char id[17];
    struct kvlist attrs, tags;
    struct target *targets; /* registration order */
    int ntargets, captargets;
    const char **lbv; /* v.load_balancer_arns */
    int caplbv;
};

struct rulerec {
    struct sc_elbv2_rule v;
    struct sarena a; /* arn, listener arn */
    struct sarena ca, aa;
    struct sc_elbv2_condition conds[SC_ELBV2_MAX_CONDITIONS];
    struct sc_elbv2_action acts[SC_ELBV2_MAX_ACTIONS];
    struct kvlist tags;
};

struct lisrec {
    struct sc_elbv2_listener v;
    struct sarena a;  /* arn, lb arn */
    struct sarena pa; /* protocol, policy, certificates */
    const char *certv[V2_MAX_CERTS];
    struct rulerec *def; /* its default rule (also in v2->rules) */
    const struct sc_elbv2_rule **order;
    int caporder;
    struct kvlist attrs, tags;
    /* MutualAuthentication (elbv2_trust.c); mtls.mode NULL when the listener takes none */
    struct sc_elbv2_mutual_auth mtls;
    char mtls_mode[16], mtls_adv[4], mtls_ts[SC_ELBV2_ARN_LEN];
};

/* A trust store (elbv2_trust.c; saved by elbv2_save.c) and its revocation lists. */
struct revrec {
    struct sc_elbv2_revocation v;
    char *location;
    unsigned long issuer;
};
struct tsrec {
    struct sc_elbv2_trust_store v;
    char *name, *arn, *location;
    char *pem;
    size_t pem_len;
    unsigned long *subjects; /* the CAs' subject hashes */
    int nsubjects;
    struct revrec *revs; /* SC_ELBV2_MAX_REVOCATIONS */
    int nrevs;
    long long next_revocation_id;
    struct kvlist tags;
};
/* Frees t (NULL is a no-op); refreshes its view (after a change or a load). */
void v2_ts_free(struct tsrec *t);
void v2_ts_view(struct tsrec *t);

struct sc_elbv2 {
    char account[32];
    char region[32];
    struct sc_ec2 *ec2;
    uint64_t (*rand64)(void *ud);
    void *rand_ud;
    struct sc_rng rng;
    struct lbrec **lbs;
    int nlbs, caplbs;
    struct tgrec **tgs;
    int ntgs, captgs;
    struct lisrec **lis;
    int nlis, caplis;
    struct rulerec **rules;
    int nrules, caprules;
    struct tsrec **tss; /* trust stores, creation order */
    int ntss, captss;
};

/* --- elbv2.c ---------------------------------------------------------------------------------- */

int v2_grow(void *arrp, int n, int *cap, size_t elem);
void v2_hex_id(struct sc_elbv2 *v2, char out[17]);
uint64_t v2_rand(struct sc_elbv2 *v2);
int v2_name_valid(const char *s);
struct lbrec *v2_lb(const struct sc_elbv2 *v2, const char *arn);
struct tgrec *v2_tg(const struct sc_elbv2 *v2, const char *arn);
struct lisrec *v2_lis(const struct sc_elbv2 *v2, const char *arn);
struct rulerec *v2_rule(const struct sc_elbv2 *v2, const char *arn);
/* Recomputes every target group's load balancers and every listener's rule order. */
void v2_sync(struct sc_elbv2 *v2);
int v2_is_alb(const struct lbrec *b);
/* Fills a fresh record's attributes with its kind's defaults. 0 or -1 (OOM). */
int v2_lb_attr_defaults(struct lbrec *b);
int v2_tg_attr_defaults(struct tgrec *g);
int v2_lis_attr_defaults(struct lisrec *l, const struct lbrec *b);
void v2_lb_free(struct lbrec *b);
void v2_tg_free(struct tgrec *g);
void v2_lis_free(struct lisrec *l);
void v2_rule_free(struct rulerec *r);
/* Removes listener li and its rules (no sync). */
void v2_remove_listener(struct sc_elbv2 *v2, int li);
/* Checks tags and adds them to l (all or nothing). */
enum sc_status v2_tags_add(struct kvlist *l, const struct sc_elbv2_kv *tags, int n,
                           struct sc_error *err);
enum sc_status v2_check_tags(const struct sc_elbv2_kv *tags, int n, struct sc_error *err);
enum sc_status v2_not_found_lb(struct sc_error *err);
enum sc_status v2_not_found_tg(struct sc_error *err);
enum sc_status v2_not_found_listener(struct sc_error *err);
enum sc_status v2_not_found_rule(struct sc_error *err);

/* --- elbv2_trust.c ---------------------------------------------------------------------------- */

void v2_trust_free_all(struct sc_elbv2 *v2);
/* The tags of trust store arn, or NULL (AddTags, RemoveTags, DescribeTags). */
struct kvlist *v2_trust_tags(const struct sc_elbv2 *v2, const char *arn);
/* Sets listener l's MutualAuthentication after sc_elbv2_check_mutual_auth passed: r NULL
 * keeps it (or makes "off" for a new HTTPS listener); a listener that is not HTTPS on an
 * ALB takes none. */
void v2_set_mutual_auth(struct lisrec *l, const struct lbrec *b, const char *protocol,
                        const struct sc_elbv2_mutual_auth *r);

/* --- elbv2_rule.c ----------------------------------------------------------------------------- */

/* Checks actions for a listener of load balancer b (protocol: the listener's). */
enum sc_status v2_check_actions(const struct sc_elbv2 *v2, const struct lbrec *b,
                                const char *protocol, const struct sc_elbv2_action *a, int n,
                                struct sc_error *err);
/* Copies checked actions into dst (strings in arena, defaults filled). 0 or -1 (OOM). */
int v2_copy_actions(struct sc_elbv2_action *dst, struct sarena *arena,
                    const struct sc_elbv2_action *src, int n);
enum sc_status v2_check_conditions(const struct sc_elbv2_condition *c, int n, struct sc_error *err);
int v2_copy_conditions(struct sc_elbv2_condition *dst, struct sarena *arena,
                       const struct sc_elbv2_condition *src, int n);
/* 1 when the actions forward to target group arn. */
int v2_actions_forward_to(const struct sc_elbv2_action *a, int n, const char *arn);
/* Parses "10.0.0.0/8" / "2001:db8::/32"; 0 or -1. */
int v2_cidr_parse(const char *s, struct sc_elbv2_cidr *out);

/* --- elbv2_target.c --------------------------------------------------------------------------- */

/* Drops every registration of instances EC2 no longer lists and ends due drains. */
void v2_targets_step(struct sc_elbv2 *v2, int64_t now_ms);
int64_t v2_targets_next_due(const struct sc_elbv2 *v2);
/* Sets the view's pointers after a load. */
void v2_tg_view(struct tgrec *g);

#endif
