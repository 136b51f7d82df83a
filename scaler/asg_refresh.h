/* scaler/asg_refresh.h: Auto Scaling instance refresh (docs/autoscaling.md section 8).
 *
 * StartInstanceRefresh replaces a group's instances in batches (Strategy Rolling): each
 * batch terminates as many old instances as keep the healthy ones at or above
 * MinHealthyPercentage of desired (with MaxHealthyPercentage above 100 it first launches
 * replacements beyond desired), the group launches their replacements with the desired
 * configuration, and the next batch waits until those are healthy and past InstanceWarmup.
 * Checkpoints pause it, SkipMatching leaves matching instances alone, a failure can roll it
 * back (AutoRollback, RollbackInstanceRefresh), CancelInstanceRefresh stops it.
 * sc_asg_step (asg_step.c) moves it on; this file holds the records and the rules.
 *
 * Same contract as asg.h: pure, every call takes now_ms, request strings are borrowed,
 * *_info views are borrowed until the next mutating call on the asg. */
#ifndef SCALER_ASG_REFRESH_H
#define SCALER_ASG_REFRESH_H

#include <stdint.h>

#include "scaler/asg.h"
#include "scaler/rng.h"
#include "scaler/status.h"

#define SC_ASG_REFRESH_MAX_CHECKPOINTS 100
#define SC_ASG_REFRESH_KEEP            50 /* refreshes kept per group (newest) */
#define SC_ASG_REFRESH_REASON_LEN      256
/* Wait for protected / Standby instances this long before failing (docs 8.2). */
#define SC_ASG_REFRESH_WAIT_MS (3600LL * 1000)

enum sc_asg_refresh_status {
    SC_ASG_REFRESH_PENDING = 0,
    SC_ASG_REFRESH_IN_PROGRESS,
    SC_ASG_REFRESH_SUCCESSFUL,
    SC_ASG_REFRESH_FAILED,
    SC_ASG_REFRESH_CANCELLING,
    SC_ASG_REFRESH_CANCELLED,
    SC_ASG_REFRESH_ROLLBACK_IN_PROGRESS,
    SC_ASG_REFRESH_ROLLBACK_FAILED,
    SC_ASG_REFRESH_ROLLBACK_SUCCESSFUL,
    SC_ASG_REFRESH_BAKING,
};
/* "Pending", "InProgress", ..., "Baking". */
const char *sc_asg_refresh_status_str(enum sc_asg_refresh_status s);
/* 1 for the statuses that block another refresh (Pending, InProgress, Cancelling,
 * RollbackInProgress, Baking). */
int sc_asg_refresh_status_active(enum sc_asg_refresh_status s);

/* StartInstanceRefresh; absent members are NULL / has_* 0. */
struct sc_asg_refresh_req {
    const char *auto_scaling_group_name;
    const char *strategy; /* NULL: Rolling */
    /* DesiredConfiguration.LaunchTemplate */
    int has_desired_launch_template;
    const char *launch_template_id;
    const char *launch_template_name;
    const char *launch_template_version;
    int has_desired_mixed_instances_policy; /* refused (docs 8.1) */
    /* Preferences */
    int has_min_healthy_percentage;
    int min_healthy_percentage;
    int has_max_healthy_percentage;
    int max_healthy_percentage;
    int has_instance_warmup;
    int instance_warmup;
    const int *checkpoint_percentages;
    int ncheckpoint_percentages;
    int has_checkpoint_delay;
    int checkpoint_delay;
    int has_skip_matching;
    int skip_matching;
    int has_auto_rollback;
    int auto_rollback;
    const char *scale_in_protected_instances; /* Refresh | Ignore | Wait */
    const char *standby_instances;            /* Terminate | Ignore | Wait */
    int has_alarm_specification;              /* refused (docs 8.1) */
    int has_bake_time;
    int bake_time;
};

/* Preferences with AWS's defaults filled in (docs 8.2). */
struct sc_asg_refresh_prefs {
    int min_healthy_percentage;
    int max_healthy_percentage;
    int instance_warmup; /* seconds */
    int checkpoint_percentages[SC_ASG_REFRESH_MAX_CHECKPOINTS];
    int ncheckpoint_percentages;
    int checkpoint_delay; /* seconds; described only with checkpoints */
    int skip_matching;
    int auto_rollback;
    const char *scale_in_protected_instances; /* static strings */
    const char *standby_instances;
    int bake_time;
};

/* One refresh as DescribeInstanceRefreshes shows it. */
struct sc_asg_refresh_info {
    char instance_refresh_id[SC_RNG_UUID_LEN];
    char *auto_scaling_group_name;
    const char *strategy; /* "Rolling" */
    enum sc_asg_refresh_status status;
    char status_reason[SC_ASG_REFRESH_REASON_LEN]; /* "" when none */
    int64_t start_ms;
    int64_t end_ms; /* 0 while active */
    int percentage_complete;
    int instances_to_update;
    struct sc_asg_refresh_prefs prefs;
    /* DesiredConfiguration.LaunchTemplate as sent (id and name resolved, version as sent);
     * has_desired 0 when none */
    int has_desired;
    char *desired_launch_template_id;
    char *desired_launch_template_name;
    char *desired_launch_template_version;
    /* RollbackDetails (has_rollback 0: none) */
    int has_rollback;
    char rollback_reason[SC_ASG_REFRESH_REASON_LEN];
    int64_t rollback_start_ms;
    int percentage_complete_on_rollback;
    int instances_to_update_on_rollback;
};

/* StartInstanceRefresh (docs 8.1 for the errors): *id_out (optional) is the new id,
 * borrowed. The refresh is Pending until the next sc_asg_step. */
enum sc_status sc_asg_start_instance_refresh(struct sc_asg *asg,
                                             const struct sc_asg_refresh_req *req, int64_t now_ms,
                                             const char **id_out, struct sc_error *err);
/* CancelInstanceRefresh: Cancelling until the replacements in flight are done (wait 1),
 * else Cancelled at once. ActiveInstanceRefreshNotFound without one to cancel. */
enum sc_status sc_asg_cancel_instance_refresh(struct sc_asg *asg, const char *group, int wait,
                                              int64_t now_ms, const char **id_out,
                                              struct sc_error *err);
/* RollbackInstanceRefresh: RollbackInProgress, the previous configuration back.
 * ActiveInstanceRefreshNotFound, IrreversibleInstanceRefresh. */
enum sc_status sc_asg_rollback_instance_refresh(struct sc_asg *asg, const char *group,
                                                int64_t now_ms, const char **id_out,
                                                struct sc_error *err);
/* The group's refreshes, newest first; count -1 for an unknown group. */
int sc_asg_instance_refresh_count(const struct sc_asg *asg, const char *group);
const struct sc_asg_refresh_info *sc_asg_instance_refresh_at(const struct sc_asg *asg,
                                                             const char *group, int i);

#endif
