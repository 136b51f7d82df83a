/* scaler/asg_hook.h: Auto Scaling lifecycle hooks (docs/autoscaling.md section 3).
 *
 * A group's hooks put its launching instances in Pending:Wait (out of its load balancers)
 * and its terminating ones in Terminating:Wait (after deregistration and draining), one
 * lifecycle action per hook, until each action is completed (CompleteLifecycleAction) or
 * times out (HeartbeatTimeout, restarted by RecordLifecycleActionHeartbeat; GlobalTimeout)
 * and the hook's DefaultResult applies. ABANDON on launch terminates the instance and the
 * group replaces it. sc_asg_step (asg_step.c) moves the instances; this file holds the
 * hooks, the actions and their rules.
 *
 * Same contract as asg.h: pure, every call takes now_ms, request strings are borrowed,
 * *_info views are borrowed until the next mutating call on the asg. */
#ifndef SCALER_ASG_HOOK_H
#define SCALER_ASG_HOOK_H

#include <stdint.h>

#include "scaler/asg.h"
#include "scaler/rng.h"
#include "scaler/status.h"

#define SC_ASG_MAX_HOOKS              50 /* per group */
#define SC_ASG_HOOK_NAME_LEN          256
#define SC_ASG_HEARTBEAT_DEFAULT_S    3600
#define SC_ASG_HEARTBEAT_MIN_S        30
#define SC_ASG_HEARTBEAT_MAX_S        7200
#define SC_ASG_GLOBAL_TIMEOUT_MAX_S   172800 /* 48 h */
#define SC_ASG_LAUNCHING_TRANSITION   "autoscaling:EC2_INSTANCE_LAUNCHING"
#define SC_ASG_TERMINATING_TRANSITION "autoscaling:EC2_INSTANCE_TERMINATING"

/* PutLifecycleHook, or one LifecycleHookSpecificationList member (group name then ignored). Absent
 * members are NULL / has_* 0. */
struct sc_asg_hook_req {
    const char *lifecycle_hook_name;
    const char *auto_scaling_group_name;
    const char *lifecycle_transition; /* required for a new hook */
    const char *role_arn;
    const char *notification_target_arn;
    const char *notification_metadata;
    int has_heartbeat_timeout;
    int heartbeat_timeout;      /* seconds */
    const char *default_result; /* "CONTINUE" / "ABANDON" */
};

struct sc_asg_hook_info {
    char *lifecycle_hook_name;
    char *auto_scaling_group_name;
    char *lifecycle_transition;
    char *notification_target_arn; /* NULL when none */
    char *role_arn;
    char *notification_metadata;
    int heartbeat_timeout; /* seconds */
    int global_timeout;    /* min(100 x heartbeat, 172800) */
    char *default_result;  /* "ABANDON" unless sent */
};

/* One open lifecycle action (an instance in Pending:Wait or Terminating:Wait). */
struct sc_asg_action_info {
    char token[SC_RNG_UUID_LEN];
    char lifecycle_hook_name[SC_ASG_HOOK_NAME_LEN];
    char instance_id[SC_ASG_ID_LEN];
    int launching; /* 1: Pending:Wait, 0: Terminating:Wait */
    int64_t start_ms;
    int64_t timeout_ms; /* heartbeat deadline */
    int64_t global_ms;  /* global deadline */
};

/* PutLifecycleHook: creates or updates (docs/autoscaling.md 3.1 for the texts). */
enum sc_status sc_asg_put_lifecycle_hook(struct sc_asg *asg, const struct sc_asg_hook_req *req,
                                         int64_t now_ms, struct sc_error *err);
/* DeleteLifecycleHook: open actions of the hook complete first (ABANDON when launching,
 * CONTINUE when terminating). */
enum sc_status sc_asg_delete_lifecycle_hook(struct sc_asg *asg, const char *group, const char *hook,
                                            int64_t now_ms, struct sc_error *err);
/* The group's hooks in creation order; count -1 for an unknown group. */
int sc_asg_lifecycle_hook_count(const struct sc_asg *asg, const char *group);
const struct sc_asg_hook_info *sc_asg_lifecycle_hook_at(const struct sc_asg *asg, const char *group,
                                                        int i);
const struct sc_asg_hook_info *sc_asg_lifecycle_hook_find(const struct sc_asg *asg,
                                                          const char *group, const char *hook);

/* CreateAutoScalingGroup with LifecycleHookSpecificationList: every hook is checked as
 * PutLifecycleHook checks one (a transition required), then the group is made with them
 * (sc_asg_create_group's rules and texts). Nothing is made on an error. */
enum sc_status sc_asg_create_group_with_hooks(struct sc_asg *asg,
                                              const struct sc_asg_group_req *req,
                                              const struct sc_asg_hook_req *hooks, int nhooks,
                                              int64_t now_ms, struct sc_error *err);

/* CompleteLifecycleAction: the hook's open action by token or, without one, by instance
 * id; result "CONTINUE" or "ABANDON". */
enum sc_status sc_asg_complete_lifecycle_action(struct sc_asg *asg, const char *group,
                                                const char *hook, const char *token,
                                                const char *instance_id, const char *result,
                                                int64_t now_ms, struct sc_error *err);
/* RecordLifecycleActionHeartbeat: the action's timeout restarts (never past its global
 * deadline). */
enum sc_status sc_asg_record_lifecycle_action_heartbeat(struct sc_asg *asg, const char *group,
                                                        const char *hook, const char *token,
                                                        const char *instance_id, int64_t now_ms,
                                                        struct sc_error *err);

/* The group's open actions (instances in launch order, then hooks in creation order);
 * count 0 for an unknown group. *out is filled. */
int sc_asg_lifecycle_action_count(const struct sc_asg *asg, const char *group);
int sc_asg_lifecycle_action_at(const struct sc_asg *asg, const char *group, int i,
                               struct sc_asg_action_info *out);

#endif
