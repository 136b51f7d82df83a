/* scaler/asg_internal.h: what asg.c, asg_activity.c, asg_instance.c, asg_step.c,
 * asg_attach.c, asg_check.c, asg_mixed.c, asg_policy.c and asg_save.c share; not public.
 *
 * The public views (sc_asg_*_info) are the first member of each private record, so a
 * view pointer converts back to its record. */
#ifndef SCALER_ASG_INTERNAL_H
#define SCALER_ASG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/asg.h"
#include "scaler/asg_hook.h"
#include "scaler/asg_notify.h"
#include "scaler/asg_sched.h"
#include "scaler/asg_warm.h"
#include "scaler/decision.h"
#include "scaler/str.h"
#include "scaler/vec.h"

#define ASG_TIME_LEN  64
#define ASG_CAUSE_LEN 1024
/* Impaired status checks are tolerated this long before the instance is unhealthy. */
#define ASG_IMPAIRED_GRACE_MS (3 * 60 * 1000)
/* After a failed launch, wait this long before trying again. */
#define ASG_LAUNCH_RETRY_MS (60 * 1000)
/* A zone where a launch failed is avoided this long (other zones first). */
#define ASG_ZONE_AVOID_MS (5 * 60 * 1000)
#define ASG_TRACKED_ZONES 16
/* Finished activities older than six weeks are dropped. */
#define ASG_ACTIVITY_KEEP_MS (42LL * 86400 * 1000)
/* One census slot per enum sc_asg_lifecycle value. */
#define ASG_LIFECYCLE_COUNT (SC_ASG_WARMED_HIBERNATED + 1)

enum asg_unhealthy {
    ASG_HEALTHY = 0,
    ASG_UNHEALTHY_EC2,
    ASG_UNHEALTHY_ELB,
    ASG_UNHEALTHY_USER,
};

struct asg_lc {
    struct sc_asg_lc_info info;
};
SC_SORTED_DEFINE(lc_vec, struct asg_lc, info.launch_configuration_name)

struct asg_activity {
    struct sc_asg_activity_info info;
    uint64_t seq;
    int notified; /* its end was looked at for notifications (asg_notify.c) */
};

/* A lifecycle hook (asg_hook.c). */
struct asg_hook {
    struct sc_asg_hook_info info;
    int launching; /* EC2_INSTANCE_LAUNCHING (else TERMINATING) */
    int abandon;   /* DefaultResult ABANDON */
};

/* An instance's open lifecycle action, one per hook of its transition (asg_hook.c). */
struct asg_action {
    char token[SC_RNG_UUID_LEN];
    char hook[SC_ASG_HOOK_NAME_LEN];
    int64_t start_ms;
    int64_t timeout_ms; /* heartbeat deadline */
    int64_t global_ms;  /* global deadline */
    int heartbeat_s;
    int abandon; /* the hook's DefaultResult at the start */
};

/* A scheduled action (asg_sched.c); info.start_ms is its next run. */
struct asg_sched {
    struct sc_asg_sched_info info;
};

struct asg_inst {
    struct sc_asg_instance_info info;
    enum asg_unhealthy unhealthy; /* marked, awaiting replacement */
    int64_t inservice_ms;         /* grace period start */
    int64_t warm_until_ms;
    int64_t impaired_since_ms;         /* 0 when not impaired */
    char activity_id[SC_RNG_UUID_LEN]; /* its current activity, "" when none */
    int terminate_sent;                /* EC2 terminate requested */
    int from_standby;                  /* Pending after ExitStandby */
    /* lifecycle hooks (asg_hook.c): the open actions of its wait state (malloc'd), and
     * the transitions whose hooks it skips (attached: launch; abandoned launch: terminate) */
    struct asg_action *actions;
    int nactions;
    int skip_launch_hooks;
    int skip_terminate_hooks;
    /* speed: the index of its zone in the group's zone list, valid while zone_gen equals
     * the group's zones_gen (+1; 0 = not known) */
    unsigned zone_gen;
    int zone_idx;
    /* warm pools (asg_warm.c): EC2 was asked to stop it; it is on its way back into the
     * pool (ReuseOnScaleIn: deregistered, draining) */
    int warm_stop_sent;
    int warm_returning;
};

struct asg_policy {
    struct sc_asg_policy_info info;
    struct asg_group *group;
};

/* A group's instances counted by what the step asks of them, so those questions cost
 * O(1) rather than a pass over the instances. Kept by inst_add/asg_inst_remove and the two
 * setters in asg_instance.c (the only writers of lifecycle_state and unhealthy), rebuilt
 * by asg_census_rebuild() after a load. */
struct asg_census {
    int state[ASG_LIFECYCLE_COUNT]; /* instances per lifecycle state */
    int unhealthy_cap;              /* marked unhealthy and counting toward capacity */
    int unhealthy_elb_cap;          /* of those, marked from a load balancer */
    int cap_units; /* the weights of those counting toward capacity (sc_asg_group_capacity) */
    int units[ASG_LIFECYCLE_COUNT]; /* the weights of the instances per lifecycle state */
};

struct asg_group {
    struct sc_asg_group_info info; /* first: views convert back */
    struct asg_inst *inst;
    int ninst, cap_inst;
    struct asg_census census;
    /* bumped whenever an instance comes, goes or changes lifecycle state (what the zone
     * counts below depend on, with zones_gen) */
    unsigned members_ver;
    /* maybe_rebalance()'s per-zone pass (instances counting toward capacity per enabled
     * zone, by first listed index, and those in no enabled zone), valid while zc_valid and
     * members_ver and zones_gen are as they were */
    int zc_valid;
    unsigned zc_members_ver, zc_zones_gen;
    int zc_count[ASG_TRACKED_ZONES];
    int zc_stray;
    /* Scratch for the termination choice, cap_inst entries (grown with inst). */
    struct asg_inst **scratch;
    int64_t *scratch_key;
    struct asg_activity **acts; /* creation order */
    int nacts;
    struct asg_policy **pol; /* creation order */
    int npol;
    struct asg_hook **hooks; /* lifecycle hooks, creation order */
    int nhooks;
    struct asg_sched **scheds; /* scheduled actions, creation order */
    int nscheds;
    struct asg_refresh **refreshes; /* instance refreshes, newest first (asg_refresh.c) */
    int nrefreshes;
    char pending_cause[ASG_CAUSE_LEN]; /* desired-change sentence(s) awaiting the launches */
    int64_t cooldown_until_ms;
    int cooldown_pending_s; /* >= 0: start this cooldown when the activities finish */
    int64_t next_launch_ms; /* launch retry after a failure */
    int64_t warm_max_ms;    /* no instance's warm_until_ms is later */
    int64_t next_metrics_ms;
    int elb_budget;                             /* ELB-unhealthy replacements left this sweep */
    int64_t zone_fail_until[ASG_TRACKED_ZONES]; /* by index in availability_zones */
    int rebalancing;    /* an AZRebalance launch is out; its termination follows */
    unsigned zones_gen; /* bumped whenever availability_zones is replaced */
    /* asg_acts_trim() memo: nothing to trim while nacts and acts_ver are as it left them and
     * before trim_next_ms (the oldest finished activity's expiry) */
    unsigned acts_ver;     /* bumped when an activity finishes */
    unsigned acts_dropped; /* bumped when asg_acts_trim drops one */
    unsigned acts_made;    /* bumped when an activity is made */
    /* asg_group_busy() memo, keyed by the counters above and nacts */
    int busy_valid, busy, busy_nacts;
    unsigned busy_made, busy_ver, busy_dropped;
    unsigned trim_ver;
    int trim_nacts;
    int64_t trim_next_ms;
    int deleting;
    struct asg_warm *warm; /* the warm pool (asg_warm.c), NULL when none */
    /* notification configurations (asg_notify.c), by topic ARN */
    struct sc_asg_notify_info *notify;
    int nnotify;
    unsigned notify_ver; /* acts_ver + acts_made when the activities were last looked at */
    /* detached load balancers and target groups still deregistering the instances they had
     * (asg_attach.c): Removing, then Removed until the next sc_asg_step drops them */
    struct asg_removing *removing;
    int nremoving;
};

/* A detached traffic source and the instances it deregistered (their ids). */
struct asg_removing {
    char *name;
    int elbv2;
    char **inst;
    int ninst;
};
SC_SORTED_DEFINE(group_vec, struct asg_group, info.auto_scaling_group_name)

/* Instance id -> (group, position) index, open addressing. */
struct asg_idx_slot {
    char id[SC_ASG_ID_LEN];
    struct asg_group *g;
    int pos;
    int used; /* 0 empty, 1 used, 2 deleted */
};

struct sc_asg {
    char account[32];
    char region[32];
    struct sc_rng *rng;
    struct sc_asg_env env;
    int64_t health_sweep_ms;
    int64_t next_sweep_ms;
    /* Skipping no-op sweeps (env.health_inputs_sig): sweep_quiet says a sweep on the state
     * summarized by sweep_sig changes nothing before sweep_wake_ms (a grace period or an
     * impaired-status allowance running out). */
    int sweep_quiet;
    uint64_t sweep_sig;
    int64_t sweep_wake_ms;
    /* Bumped (asg_inputs_changed) by every change to what health_sweep reads of the asg's
     * own state: the groups, their suspended processes, health check type, grace period
     * and load balancer names; their instances and those instances' lifecycle_state,
     * unhealthy, inservice_ms and impaired_since_ms. */
    uint64_t inputs_gen;
    /* sweep_inputs_sig()'s part from that state (hash, any group with health check type
     * ELB, or an ELB-unhealthy instance that forces the sweep), as of inputs_gen == sig_gen */
    uint64_t sig_gen;
    uint64_t sig_own;
    int sig_with_lb;
    int sig_must_sweep;
    int step_dirty;        /* this step changed what the sweep reads (lifecycle, members, EC2) */
    unsigned step_changes; /* counts those changes */
    uint64_t acts_version; /* sc_asg_activity_version() */
    int64_t last_now_ms;
    uint64_t seq;
    struct asg_group **groups; /* by name (vec.h) */
    int ngroups, groups_cap;
    /* Deleted groups' activities (sc_asg_deleted_activity_*), AWS order, each marked
     * group_deleted; none expires before del_trim_next_ms (asg_deleted_acts_trim). */
    struct asg_activity **del_acts;
    int ndel_acts;
    int64_t del_trim_next_ms;
    struct asg_lc **lcs; /* by name (vec.h) */
    int nlcs, lcs_cap;
    struct asg_idx_slot *idx;
    size_t idx_cap;                    /* power of two */
    size_t idx_fill;                   /* used + deleted */
    struct sc_decision_log *decisions; /* policy decisions and hook notes (decision.h) */
    struct asg_notify_log *notices;    /* notifications made (asg_notify.c), NULL before one */
    struct asg_token **tokens;         /* LaunchInstances client tokens, oldest first */
    int ntokens;
};

/* asg.c */
char *asg_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char **asg_dup_strv(const char *const *v, int n);
/* Frees a launch configuration and everything it owns; NULL is a no-op. */
void asg_lc_free(struct asg_lc *lc);
/* env.instance_attrs of instance_id, or ValidationError `The instance ID '<id>' does not
 * exist` (docs/autoscaling.md 15). */
enum sc_status asg_instance_attrs(struct sc_asg *asg, const char *instance_id,
                                  struct sc_asg_instance_attrs *out, struct sc_error *err);
void asg_cause_add(char *buf, int64_t now_ms, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int asg_group_index(const struct sc_asg *asg, const char *name, int *pos);
/* The group named name (one being deleted too), or NULL; NULL name finds nothing. */
struct asg_group *asg_group_find(const struct sc_asg *asg, const char *name);
/* The member instance_id of any group, or NULL; *gout (optional) is its group. */
struct asg_inst *asg_inst_find(const struct sc_asg *asg, const char *instance_id,
                               struct asg_group **gout);
/* Every writer of what asg->inputs_gen covers calls this (a missed call would let a
 * health sweep that has work be skipped; asg_self_check() catches it). */
static inline void asg_inputs_changed(struct sc_asg *asg)
{
    asg->inputs_gen++;
}
/* Pending and InService instances count toward the group's capacity. */
static inline int asg_counts_capacity(enum sc_asg_lifecycle s)
{
    return s == SC_ASG_PENDING || s == SC_ASG_PENDING_WAIT || s == SC_ASG_PENDING_PROCEED ||
           s == SC_ASG_IN_SERVICE;
}
/* Instances in a state the step moves on by itself (Pending*, Terminating*, Detaching,
 * EnteringStandby): advance_lifecycle has nothing to do without them. */
static inline int asg_census_transitional(const struct asg_census *c)
{
    return c->state[SC_ASG_PENDING] + c->state[SC_ASG_PENDING_WAIT] +
           c->state[SC_ASG_PENDING_PROCEED] + c->state[SC_ASG_TERMINATING] +
           c->state[SC_ASG_TERMINATING_WAIT] + c->state[SC_ASG_TERMINATING_PROCEED] +
           c->state[SC_ASG_DETACHING] + c->state[SC_ASG_ENTERING_STANDBY];
}
static inline int asg_census_pending(const struct asg_census *c)
{
    return c->state[SC_ASG_PENDING] + c->state[SC_ASG_PENDING_WAIT] +
           c->state[SC_ASG_PENDING_PROCEED];
}
static inline int asg_census_terminating(const struct asg_census *c)
{
    return c->state[SC_ASG_TERMINATING] + c->state[SC_ASG_TERMINATING_WAIT] +
           c->state[SC_ASG_TERMINATING_PROCEED];
}
/* The instance index: put returns 0 or -1 (OOM); del is a no-op for unknown ids. */
int asg_idx_put(struct sc_asg *asg, const char *id, struct asg_group *g, int pos);
void asg_idx_del(struct sc_asg *asg, const char *id);
void asg_group_free(struct asg_group *g);
void asg_set_desired(struct asg_group *g, int desired, int64_t now_ms, const char *clause_fmt, ...)
    __attribute__((format(printf, 4, 5)));
void asg_reap_deleted(struct sc_asg *asg, int64_t now_ms);

/* asg_activity.c */
void asg_activity_free(struct asg_activity *a);
int asg_group_busy(const struct asg_group *g);
/* Drops g's oldest finished activities beyond the bound (and those past six weeks). */
void asg_acts_trim(struct asg_group *g, int64_t now_ms);
/* A new activity of g (NULL on OOM: the operation proceeds without its record). */
struct asg_activity *asg_act_new(struct sc_asg *asg, struct asg_group *g, int64_t now_ms,
                                 const char *description, const char *cause,
                                 const char *status_code, int progress, const char *subnet,
                                 const char *zone);
/* The instance's current activity in g, or NULL. */
struct asg_activity *asg_act_of(const struct asg_group *g, const struct asg_inst *in);
/* Updates, or ends (and forgets), the instance's current activity if still open. */
void asg_act_set(struct asg_group *g, struct asg_inst *in, const char *status_code, int progress);
void asg_act_end(struct asg_group *g, struct asg_inst *in, const char *status_code, int64_t now_ms);
/* Moves g's activities (g keeps none) to the deleted groups' list, then trims it. On OOM
 * they are dropped. */
void asg_deleted_acts_take(struct sc_asg *asg, struct asg_group *g, int64_t now_ms);
/* Drops deleted groups' activities past six weeks or beyond the bound (the step calls it). */
void asg_deleted_acts_trim(struct sc_asg *asg, int64_t now_ms);
/* Puts the deleted groups' list in AWS order (after a load). */
void asg_deleted_acts_sort(struct sc_asg *asg);

/* asg_instance.c */
void asg_inst_cleanup(struct asg_inst *in);
/* One instance in or out of census c (sign +1 or -1), as it stands. */
void asg_census_count(struct asg_census *c, const struct asg_inst *in, int sign);
/* Recounts g's census from its instances (after a load filled them directly). */
void asg_census_rebuild(struct asg_group *g);
/* The only writers of an instance's lifecycle_state and unhealthy: the census follows. */
void asg_inst_set_state(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                        enum sc_asg_lifecycle s);
void asg_inst_set_unhealthy(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                            enum asg_unhealthy u);
/* Takes the instance out of g and the index, and frees what it owns. */
void asg_inst_remove(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in);
int asg_proc_suspended(const struct asg_group *g, enum sc_asg_process p);
/* Instances InService and past warm-up; and those still warming (Pending or warming). */
int asg_group_warmed(const struct asg_group *g, int64_t now_ms);
int asg_group_warming(const struct asg_group *g, int64_t now_ms);
int asg_in_cooldown(const struct asg_group *g, int64_t now_ms);
void asg_start_cooldown(struct asg_group *g, int cooldown_s);
/* Registers the instance with g's load balancers (unless AddToLoadBalancer is suspended). */
/* A group's load balancers and target groups as one list (asg_traffic.c): the classic
 * names, then the target group ARNs; the env callbacks tell them apart. */
int asg_lb_count(const struct sc_asg_group_info *gi);
/* Each ARN names an existing target group; ValidationError otherwise. */
enum sc_status asg_check_target_groups(struct sc_asg *asg, const char *const *arns, int n,
                                       struct sc_error *err);
const char *asg_lb_at(const struct sc_asg_group_info *gi, int k);
/* Attaching load balancer names or target group ARNs (asg_attach.c, for both): how many of
 * names are not yet in list (each counted once), for the quota checked before anything
 * changes; adding them, each registering g's InService instances (unless
 * AddToLoadBalancer is suspended); removing them, each deregistering every instance; and
 * an attached one's state as Describe*'s report it (InService once an instance is). */
int asg_attach_fresh(char *const *list, int n, const char *const *names, int nnames);
/* CreateAutoScalingGroup's TrafficSources: checked with the request's LoadBalancerNames and
 * TargetGroupARNs before the group exists (asg_traffic_check_create), then added to the new
 * group's lists (asg_traffic_add_create; nothing to register yet). */
enum sc_status asg_traffic_check_create(struct sc_asg *asg, const struct sc_asg_group_req *r,
                                        struct sc_error *err);
enum sc_status asg_traffic_add_create(struct sc_asg *asg, struct asg_group *g,
                                      const struct sc_asg_group_req *r, struct sc_error *err);
/* The detached sources of g: freed with the group; those whose instances are all deregistered
 * dropped by sc_asg_step (asg_removing_sweep). */
void asg_removing_free(struct asg_group *g);
void asg_removing_sweep(const struct sc_asg *asg, struct asg_group *g);
enum sc_status asg_attach_names(struct sc_asg *asg, struct asg_group *g, char ***list, int *n,
                                const char *const *names, int nnames, int64_t now_ms,
                                struct sc_error *err);
void asg_detach_names(struct sc_asg *asg, struct asg_group *g, char **list, int *n,
                      const char *const *names, int nnames, int elbv2, int64_t now_ms);
const char *asg_attached_state(const struct sc_asg *asg, const struct asg_group *g,
                               const char *name);
void asg_lb_register_all(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                         int64_t now_ms);
/* 1 while one of g's load balancers drains the instance. */
int asg_lb_draining(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in);
enum sc_asg_ec2_state asg_ec2_state(struct sc_asg *asg, const struct asg_inst *in);
void asg_inst_begin_terminate(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                              const char *cause, int64_t now_ms);
/* Instances counting toward capacity in that zone. */
int asg_zone_count(const struct asg_group *g, const char *zone);
/* 1 while zone index z is avoided after a failed launch. */
int asg_zone_avoided(const struct asg_group *g, int z, int64_t now_ms);
/* Launches one instance into the best zone (of the type the mixed instances policy picks):
 * its weight (>= 1), or -1 (the failure recorded as an activity). */
int asg_launch_one(struct sc_asg *asg, struct asg_group *g, const char *cause, int64_t now_ms);
/* The same into g's zone index z (LaunchInstances), with the failure's error into *why and
 * the instance type launched (or last tried; "" when not known) into type_out (both
 * optional). The new instance is g's last. */
int asg_launch_in(struct sc_asg *asg, struct asg_group *g, int z, const char *cause, int64_t now_ms,
                  struct sc_error *why, char type_out[SC_ASG_ID_LEN]);
/* The only writer of an instance's weight once it is in g: the census follows. */
void asg_inst_set_weight(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in, int w);
/* 1 when zone is one of g's enabled zones. */
int asg_zone_listed(const struct asg_group *g, const char *zone);

/* asg_step.c */
/* Instances counting toward capacity per enabled zone into count[] and, returned, those in
 * no enabled zone (remembered in g). */
int asg_zone_counts(struct asg_group *g, int count[ASG_TRACKED_ZONES]);
/* The asg's own part of the sweep signature, from scratch; and its memo, brought up to
 * date with inputs_gen. */
/* The Group*Capacity metrics (docs/autoscaling.md 14) from a census, v[k] for
 * sc_asg_metric_str(SC_ASG_METRIC_WARM_END + k): the weights of the instances in each state,
 * counted as the Group*Instances metrics count instances. */
void asg_capacity_metrics(const struct asg_census *c, double v[SC_ASG_METRIC_CAPACITY_COUNT]);
uint64_t asg_sig_own_compute(const struct sc_asg *asg, int *with_lb, int *must_sweep);
void asg_sig_own_update(struct sc_asg *asg);

/* asg_check.c */
/* Debug check for tests: recounts every group's census and recomputes the cached
 * per-zone counts and the cached part of the sweep signature from the instances, and
 * compares them with what the library keeps. Returns 0, or -1 with the first mismatch
 * described in why. It then brings those caches up to date (as a step would, with the
 * same values), so that the next check catches a change made since without its bump. */
int asg_self_check(struct sc_asg *asg, char *why, size_t len);

/* asg_mixed.c */
/* Checks r's launch source (exactly one of launch configuration, launch template, mixed
 * instances policy) and, with a policy, the policy (docs/autoscaling.md 2.2), against g's
 * current policy and instances on an update (g NULL on create). Resolves the templates
 * into *ids (the policy's, then each override's), which asg_mixed_set takes. */
struct asg_lt_ids {
    struct sc_asg_lt_resolved lt;
    struct sc_asg_lt_resolved ov[SC_ASG_MAX_OVERRIDES];
};
enum sc_status asg_launch_source_check(struct sc_asg *asg, const struct asg_group *g,
                                       const struct sc_asg_group_req *r, struct asg_lt_ids *ids,
                                       struct sc_error *err);
/* Sets g's launch source from a request asg_launch_source_check accepted (a policy is
 * merged over g's current one on an update), then brings every instance's weight up to
 * date. Returns 0, or -1 on OOM (g keeps its old source). */
int asg_launch_source_set(struct sc_asg *asg, struct asg_group *g, const struct sc_asg_group_req *r,
                          const struct asg_lt_ids *ids);
void asg_mixed_free(struct sc_asg_mixed_info *m);
/* The weight an instance of that type counts in g (1 without weights, or for a type not
 * in the overrides or not known). */
int asg_mixed_weight(const struct asg_group *g, const char *instance_type);
/* The overrides in launch order by the On-Demand allocation strategy into order[]
 * (SC_ASG_MAX_OVERRIDES entries); returns their number (0 without overrides). */
int asg_mixed_order(const struct sc_asg *asg, const struct asg_group *g, int *order);
/* The largest weight of g's overrides (1 without weights). */
int asg_mixed_max_weight(const struct asg_group *g);

/* asg_hook.c */
/* Moves a Pending* instance on through its launch hooks (EC2 runs it): 1 when it may go
 * InService now (no launch hooks, or Pending:Proceed), 0 while it waits (or was just
 * abandoned: it is then Terminating). Applies timed-out actions' default results. */
int asg_hook_launch_step(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                         int64_t now_ms);
/* The same for a Terminating* instance, deregistered and drained: 1 when EC2 may
 * terminate it now, 0 while it waits in Terminating:Wait; and for a warm pool's
 * Warmed:Terminating* instance (Warmed:Terminating:Wait, docs/autoscaling.md 7.2). */
int asg_hook_terminate_step(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                            int64_t now_ms);
/* An instance returning to the warm pool (ReuseOnScaleIn), deregistered and drained, in
 * Warmed:Pending*: the terminate hooks hold it in Warmed:Pending:Wait (docs/autoscaling.md
 * 7.2); 1 when it may settle in the pool now (Warmed:Pending:Proceed, or no hooks). */
int asg_hook_return_step(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in,
                         int64_t now_ms);
/* Forgets the instance's open actions (it leaves its wait state another way). */
void asg_hook_actions_drop(struct asg_inst *in);
/* The earliest action deadline in g after now_ms, or INT64_MAX. */
int64_t asg_hook_next_due(const struct asg_group *g, int64_t now_ms);
void asg_hooks_free(struct asg_group *g);
/* Save/load of g's hooks and of an instance's actions (asg_save.c calls them). */
struct json_t *asg_hooks_save(const struct asg_group *g);
struct sc_load;
void asg_hooks_load(struct sc_load *l, const struct json_t *a, struct asg_group *g);
struct json_t *asg_actions_save(const struct asg_inst *in);
void asg_actions_load(struct sc_load *l, const struct json_t *a, struct asg_inst *in);

/* asg_predict.c */
struct sc_asg_predictive_req;
struct sc_asg_predictive_info;
/* An owned copy of a checked configuration (no forecast yet), NULL on OOM. */
struct sc_asg_predictive_info *asg_predictive_dup(const struct sc_asg_predictive_req *r);
void asg_predictive_free(struct sc_asg_predictive_info *p); /* NULL is a no-op */
/* A new policy's first forecast and scaling instant. */
void asg_predict_init(struct sc_asg *asg, const struct asg_group *g,
                      struct sc_asg_predictive_info *p, int64_t now_ms);
/* Makes p's forecast from the history before now (env.load_history). */
void asg_predict_update(struct sc_asg *asg, const struct asg_group *g,
                        struct sc_asg_predictive_info *p, int64_t now_ms);
/* g's predictive policies at now: forecasts due, ForecastAndScale instants passed. */
void asg_predict_step(struct sc_asg *asg, struct asg_group *g, int64_t now_ms);
/* The least a dynamic policy may lower g to at now (want: what it asks): MinSize, or the
 * capacity a ForecastAndScale policy scaled to for the hour now is in when that is more
 * (docs/autoscaling.md 12.4); want itself when it is no scale-in. */
int asg_predict_min(const struct asg_group *g, int64_t now_ms, int64_t want);
/* g's next forecast or scaling instant, INT64_MAX when none. */
int64_t asg_predict_next_due(const struct asg_group *g);
/* The configuration and forecast as the state file keeps them (NULL on OOM), and back. */
struct json_t *asg_predictive_save(const struct sc_asg_predictive_info *p);
struct sc_asg_predictive_info *asg_predictive_load(struct sc_load *l, const struct json_t *o);

/* asg_sched.c */
/* Runs g's scheduled actions due at now_ms (the step calls it before reconciling). */
void asg_sched_step(struct sc_asg *asg, struct asg_group *g, int64_t now_ms);
/* g's next scheduled run, or INT64_MAX. */
int64_t asg_sched_next_due(const struct asg_group *g);
void asg_scheds_free(struct asg_group *g);
struct json_t *asg_scheds_save(const struct asg_group *g);
void asg_scheds_load(struct sc_load *l, const struct json_t *a, struct asg_group *g);

/* asg_refresh.c */
struct asg_refresh;
/* Moves g's active instance refresh on (the step calls it before reconciling). */
void asg_refresh_step(struct sc_asg *asg, struct asg_group *g, int64_t now_ms);
/* Units above desired that scale-in leaves alone: the replacements a refresh with
 * MaxHealthyPercentage above 100 launched first (0 without one). */
int asg_refresh_extra(const struct asg_group *g);
/* The next time g's refresh has timed work (a warm-up, a checkpoint, a wait), or INT64_MAX. */
int64_t asg_refresh_next_due(const struct asg_group *g, int64_t now_ms);
void asg_refreshes_free(struct asg_group *g);
struct json_t *asg_refreshes_save(const struct asg_group *g);
void asg_refreshes_load(struct sc_load *l, const struct json_t *a, struct asg_group *g);
/* asg_lifetime.c */
/* Replaces g's instances past MaxInstanceLifetime (docs/autoscaling.md 13.2): terminates up
 * to a batch of them once g is settled; the launches follow in reconcile. */
void asg_lifetime_step(struct sc_asg *asg, struct asg_group *g, int64_t now_ms);
/* When the next of g's instances comes due, or INT64_MAX. */
int64_t asg_lifetime_next_due(const struct sc_asg *asg, const struct asg_group *g, int64_t now_ms);

/* asg_warm.c */
struct asg_warm {
    struct sc_asg_warm_info info;
};
static inline int asg_is_warmed(enum sc_asg_lifecycle s)
{
    return s >= SC_ASG_WARMED_PENDING && s <= SC_ASG_WARMED_HIBERNATED;
}
/* Moves g's Warmed:* instances on (EC2 runs them, hooks, the pool state, terminations),
 * then keeps the pool at its size rule (fills it, terminates the surplus); removes a pool
 * pending delete once empty. The step calls it after reconciling. */
void asg_warm_step(struct sc_asg *asg, struct asg_group *g, int64_t now_ms);
/* The warm pool metrics' values (docs/autoscaling.md 7.3), v[k] for sc_asg_metric_str(
 * SC_ASG_METRIC_GROUP_COUNT + k), given GroupDesiredCapacity and GroupTotalInstances; 0 and
 * v untouched when g has no warm pool (it publishes none of them). */
int asg_warm_metrics(const struct asg_group *g, double group_desired, double group_total,
                     double v[SC_ASG_METRIC_WARM_END - SC_ASG_METRIC_GROUP_COUNT]);
/* Scale-out draws from the pool first: moves up to `units` ready pool instances into the
 * group (Pending; a stopped one is started) with cause; returns how many. */
int asg_warm_draw(struct sc_asg *asg, struct asg_group *g, int units, const char *cause,
                  int64_t now_ms);
/* Scale-in with ReuseOnScaleIn and room in the pool: returns in to the pool (1), else 0 (the
 * caller terminates it). */
int asg_warm_return(struct sc_asg *asg, struct asg_group *g, struct asg_inst *in, const char *cause,
                    int64_t now_ms);
/* TerminateInstanceInAutoScalingGroup of a pool instance: Warmed:Terminating (the pool
 * refills); its activity (the one in progress when it is already leaving), or NULL. */
struct asg_activity *asg_warm_terminate(struct sc_asg *asg, struct asg_group *g,
                                        struct asg_inst *in, int64_t now_ms);
void asg_warm_free(struct asg_group *g);
struct json_t *asg_warm_save(const struct asg_group *g);
void asg_warm_load(struct sc_load *l, const struct json_t *o, struct asg_group *g);

/* asg_launch.c */
struct asg_token;
void asg_tokens_free(struct sc_asg *asg);
/* The client tokens as the state file keeps them (NULL on OOM), and back (a missing
 * member loads as none: a file written before LaunchInstances was served). */
struct json_t *asg_tokens_save(const struct sc_asg *asg);
void asg_tokens_load(struct sc_load *l, const struct json_t *obj, struct sc_asg *asg);

/* asg_notify.c */
struct asg_notify_log;
/* Makes the notifications of g's activities that ended since the last call (the step calls
 * it for every group, after its activities moved). */
void asg_notify_step(struct sc_asg *asg, struct asg_group *g);
/* Marks every finished activity of g as looked at (a group loaded from a state file). */
void asg_notify_mark_all(struct asg_group *g);
void asg_notify_free(struct asg_group *g);
void asg_notify_log_free(struct sc_asg *asg);
struct json_t *asg_notify_save(const struct asg_group *g);
void asg_notify_load(struct sc_load *l, const struct json_t *a, struct asg_group *g);

/* asg_policy.c */
void asg_policy_free(struct asg_policy *p);
void asg_group_drop_policies(struct sc_asg *asg, struct asg_group *g, int64_t now_ms);
/* Warm-up seconds for instances launched now: policy EstimatedInstanceWarmup (the largest
 * among step/target-tracking policies), else DefaultInstanceWarmup, else DefaultCooldown. */
int asg_group_warmup_s(const struct asg_group *g);

#endif
