/* scaler/asg_warm.h: warm pools of Auto Scaling groups (docs/autoscaling.md section 7).
 *
 * A group's warm pool keeps pre-initialized instances beside it: they count toward neither
 * desired nor capacity, are not registered with the group's load balancers, and live in
 * their own Warmed:* lifecycle states (enum sc_asg_lifecycle). sc_asg_step fills the pool to
 * its size rule, draws from it first when the group scales out, returns scaled-in instances
 * to it with ReuseOnScaleIn, and stops / starts EC2 instances through env.stop_instance /
 * env.start_instance as PoolState says. Same conventions as asg.h: pure, now_ms passed in,
 * request strings borrowed, views valid until the next mutating call. */
#ifndef SCALER_ASG_WARM_H
#define SCALER_ASG_WARM_H

#include <stdint.h>

#include "scaler/asg.h"
#include "scaler/status.h"

#define SC_ASG_WARM_MAX_RECORDS 50 /* DescribeWarmPool MaxRecords */

enum sc_asg_pool_state {
    SC_ASG_POOL_STOPPED = 0, /* the default */
    SC_ASG_POOL_RUNNING,
    SC_ASG_POOL_HIBERNATED,
};
/* "Stopped", "Running", "Hibernated". */
const char *sc_asg_pool_state_str(enum sc_asg_pool_state s);

/* PutWarmPool; absent members are has_* 0 / NULL (an update keeps their values). */
struct sc_asg_warm_req {
    const char *auto_scaling_group_name;
    int has_max_group_prepared_capacity;
    int max_group_prepared_capacity; /* -1 removes a value set before */
    int has_min_size;
    int min_size;
    const char *pool_state; /* NULL: Stopped on create */
    int has_reuse_on_scale_in;
    int reuse_on_scale_in;
};

/* WarmPoolConfiguration as described. */
struct sc_asg_warm_info {
    int has_max_group_prepared_capacity; /* set (described), else the group's MaxSize acts */
    int max_group_prepared_capacity;
    int min_size;
    enum sc_asg_pool_state pool_state;
    int has_reuse_on_scale_in; /* InstanceReusePolicy was sent */
    int reuse_on_scale_in;
    int pending_delete; /* Status PendingDelete */
};

/* The size rule: max(P - desired, min_size, 0) with P = max_group_prepared_capacity when
 * >= 0, else max_size. */
int sc_asg_warm_pool_size_rule(int max_group_prepared_capacity, int max_size, int desired,
                               int min_size);

/* PutWarmPool. ValidationError: unknown group (sc_asg_group_not_found), a mixed instances
 * policy or a Spot launch configuration (AWS's text), MinSize < 0, MaxGroupPreparedCapacity <
 * -1, a PoolState not in the enum, a pool pending delete. Nothing changes on an error. */
enum sc_status sc_asg_put_warm_pool(struct sc_asg *asg, const struct sc_asg_warm_req *req,
                                    int64_t now_ms, struct sc_error *err);
/* DeleteWarmPool: without force the pool is PendingDelete while its instances terminate;
 * with force it goes at once with its instances (EC2 terminates them, their lifecycle
 * actions are dropped). ValidationError for an unknown group or a group without a pool. */
enum sc_status sc_asg_delete_warm_pool(struct sc_asg *asg, const char *group, int force_delete,
                                       int64_t now_ms, struct sc_error *err);

/* The group's pool (borrowed), or NULL when it has none. */
const struct sc_asg_warm_info *sc_asg_warm_pool(const struct sc_asg_group_info *g);
/* WarmPoolSize: the group's instances in a Warmed:* state but Warmed:Terminated. */
int sc_asg_warm_pool_size(const struct sc_asg_group_info *g);
/* The size the pool is kept at now (the rule on the group's current sizes); 0 without a
 * pool or while it is pending delete. */
int sc_asg_warm_pool_target(const struct sc_asg_group_info *g);
/* Instance-hours of a warm pool's instance, as EC2 bills them (docs/autoscaling.md 7.4): 1
 * when EC2 charges instance usage for an instance in lifecycle state s of a pool whose
 * PoolState is ps: Warmed:Pending, Warmed:Pending:Wait and Warmed:Pending:Proceed (it runs:
 * launching into the pool, or returning to it, before it is stopped) and Warmed:Running;
 * Warmed:Terminating* only in a Running pool (a Stopped or Hibernated pool's instance is
 * terminated from stopped); 0 for Warmed:Stopped and Warmed:Hibernated (storage only, not
 * counted here), Warmed:Terminated and every state that is not Warmed:*. */
int sc_asg_warm_billed(enum sc_asg_lifecycle s, enum sc_asg_pool_state ps);
/* The same with the states named as AWS does ("Warmed:Running", "Stopped"; loadgen reads
 * them from DescribeWarmPool); 0 for unknown names. */
int sc_asg_warm_billed_str(const char *lifecycle_state, const char *pool_state);
/* The group's warm-pool instances billed now (sc_asg_warm_billed over its instances). */
int sc_asg_warm_pool_billed(const struct sc_asg_group_info *g);
/* 1 for the Warmed:* lifecycle states. */
int sc_asg_lifecycle_is_warmed(enum sc_asg_lifecycle s);

#endif
