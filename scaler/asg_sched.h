/* scaler/asg_sched.h: Auto Scaling scheduled actions (docs/autoscaling.md section 5).
 *
 * A group's scheduled actions set its MinSize, MaxSize and DesiredCapacity at a time
 * (StartTime), on a recurrence (a 5-field cron expression read in TimeZone, UTC unless
 * given) until EndTime; sc_asg_step runs them when due. Time zones come from
 * sc_asg_env.tz_offset (the caller's zoneinfo; without it only UTC is known).
 *
 * Same contract as asg.h: pure, every call takes now_ms, request strings are borrowed,
 * *_info views are borrowed until the next mutating call on the asg. */
#ifndef SCALER_ASG_SCHED_H
#define SCALER_ASG_SCHED_H

#include <stdint.h>

#include "scaler/asg.h"
#include "scaler/status.h"

#define SC_ASG_MAX_SCHEDULED_ACTIONS 125 /* per group */
#define SC_ASG_MAX_BATCH_SCHEDULED   50  /* per Batch* call */

/* PutScheduledUpdateGroupAction, or one BatchPut member (group name then the call's). */
struct sc_asg_sched_req {
    const char *auto_scaling_group_name;
    const char *scheduled_action_name;
    int has_start_time; /* StartTime (or the deprecated Time) */
    int64_t start_ms;
    int has_end_time;
    int64_t end_ms;
    const char *recurrence; /* "0 9 * * 1-5" */
    const char *time_zone;  /* IANA name; NULL: UTC */
    int has_min_size, min_size;
    int has_max_size, max_size;
    int has_desired_capacity, desired_capacity;
};

struct sc_asg_sched_info {
    char *auto_scaling_group_name;
    char *scheduled_action_name;
    char *scheduled_action_arn;
    int64_t start_ms; /* the next run (StartTime and Time as described) */
    int has_end_time;
    int64_t end_ms;
    char *recurrence; /* NULL when none */
    char *time_zone;  /* NULL when none */
    int has_min_size, min_size;
    int has_max_size, max_size;
    int has_desired_capacity, desired_capacity;
};

/* Creates or replaces (same name, same ARN) the group's action; texts in
 * docs/autoscaling.md 5. */
enum sc_status sc_asg_put_scheduled_action(struct sc_asg *asg, const struct sc_asg_sched_req *req,
                                           int64_t now_ms, struct sc_error *err);
/* DeleteScheduledAction: ValidationError `Scheduled action name not found` when none. */
enum sc_status sc_asg_delete_scheduled_action(struct sc_asg *asg, const char *group,
                                              const char *name, int64_t now_ms,
                                              struct sc_error *err);
/* Every action of the asg (group NULL) or of one group, by group name then creation;
 * count -1 for an unknown group. */
int sc_asg_scheduled_action_count(const struct sc_asg *asg, const char *group);
const struct sc_asg_sched_info *sc_asg_scheduled_action_at(const struct sc_asg *asg,
                                                           const char *group, int i);

/* A 5-field cron expression as Auto Scaling reads it: 0 when it parses. */
int sc_asg_recurrence_valid(const char *recurrence);
/* The first run of recurrence strictly after after_ms, in zone (offset_s fixed when
 * tz_offset is NULL), or -1 when none within 8 years. Exposed for the tests. */
int64_t sc_asg_recurrence_next(const char *recurrence, int64_t after_ms,
                               int (*tz_offset)(void *ud, const char *zone, int64_t utc_ms,
                                                int *offset_s),
                               void *ud, const char *zone);

#endif
