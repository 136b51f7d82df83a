/* scaler/asg_notify.h: Auto Scaling notification configurations and the notifications they
 * make (docs/autoscaling.md section 9).
 *
 * A group's configurations name an SNS topic ARN and the notification types sent to it.
 * There is no SNS here: every notification AWS would publish is made into a bounded log,
 * with AWS's subject and message body, for the worlds to deliver (the emulator's event
 * stream and webhook, the simulator's timeline): the test notification when a
 * configuration is put, and a launch, failed launch, termination or failed termination
 * when the group's activity of that kind ends. sc_asg_step makes the activity ones; the
 * observer (scaler/observe.h) reports each new one once.
 *
 * Same contract as asg.h: pure, every call takes now_ms, request strings are borrowed,
 * *_info views are borrowed until the next mutating call on the asg. */
#ifndef SCALER_ASG_NOTIFY_H
#define SCALER_ASG_NOTIFY_H

#include <stdint.h>

#include "scaler/asg.h"
#include "scaler/status.h"

#define SC_ASG_MAX_NOTIFY_TOPICS 10  /* SNS topics per group (AWS's quota) */
#define SC_ASG_NOTIFY_LOG_CAP    256 /* notifications kept for readers */
#define SC_ASG_TOPIC_ARN_LEN     256 /* a topic ARN (<= 255) and its NUL */

enum sc_asg_notify_type {
    SC_ASG_NOTIFY_LAUNCH = 0,
    SC_ASG_NOTIFY_LAUNCH_ERROR,
    SC_ASG_NOTIFY_TERMINATE,
    SC_ASG_NOTIFY_TERMINATE_ERROR,
    SC_ASG_NOTIFY_TEST,
    SC_ASG_NOTIFY_TYPE_COUNT
};

/* "autoscaling:EC2_INSTANCE_LAUNCH", ..., "autoscaling:TEST_NOTIFICATION". */
const char *sc_asg_notify_type_str(enum sc_asg_notify_type t);
/* The type of that name, or -1. */
int sc_asg_notify_type_parse(const char *name);

/* One configuration: a topic and its types (bit 1u << enum sc_asg_notify_type). */
struct sc_asg_notify_info {
    char topic_arn[SC_ASG_TOPIC_ARN_LEN];
    unsigned types;
};

/* PutNotificationConfiguration: the group's configuration for topic becomes exactly these
 * types (it "overwrites any existing configuration" of the topic), then the test
 * notification is made for the topic. Errors (nothing changes): ValidationError for an
 * unknown group (`AutoScalingGroup name not found - null`), a topic ARN that is not an SNS
 * topic ARN, no types or a type not listed by DescribeAutoScalingNotificationTypes;
 * LimitExceeded for an eleventh topic. */
enum sc_status sc_asg_put_notification_configuration(struct sc_asg *asg, const char *group,
                                                     const char *topic_arn,
                                                     const char *const *types, int ntypes,
                                                     int64_t now_ms, struct sc_error *err);
/* DeleteNotificationConfiguration: the group's configuration of topic goes; an unknown
 * group or a topic the group has no configuration for is a ValidationError. */
enum sc_status sc_asg_delete_notification_configuration(struct sc_asg *asg, const char *group,
                                                        const char *topic_arn, int64_t now_ms,
                                                        struct sc_error *err);
/* The group's configurations in topic order; count -1 for an unknown group. */
int sc_asg_notification_config_count(const struct sc_asg *asg, const char *group);
const struct sc_asg_notify_info *sc_asg_notification_config_at(const struct sc_asg *asg,
                                                               const char *group, int i);

/* One notification as SNS would carry it. */
struct sc_asg_notification {
    uint64_t seq; /* from 1, per asg */
    int64_t time_ms;
    enum sc_asg_notify_type type;
    const char *group;
    const char *topic_arn;
    const char *instance_id; /* "" when none (test, failed launch) */
    const char *subject;     /* `Auto Scaling: launch for group "g"`, ... */
    const char *message;     /* the message body: AWS's JSON object, compact */
};

/* The newest notification's seq (0: none yet), and the notification of a seq, or NULL
 * when it is no longer kept (the log keeps the newest SC_ASG_NOTIFY_LOG_CAP). Borrowed
 * until the next mutating call on the asg. */
uint64_t sc_asg_notification_last(const struct sc_asg *asg);
const struct sc_asg_notification *sc_asg_notification_get(const struct sc_asg *asg, uint64_t seq);

#endif
