/* scaler/asg_launch.h: LaunchInstances, synchronous launches into one zone of a group
 * (docs/autoscaling.md 11). What AWS documents is followed; what it leaves open is marked
 * "scalelab's choice" there. The launches go through asg_launch_in like every other launch
 * (activities, lifecycle hooks and load balancer registration in the step). */
#ifndef SCALER_ASG_LAUNCH_H
#define SCALER_ASG_LAUNCH_H

#include <stdint.h>

#include "scaler/asg.h"

#define SC_ASG_LAUNCH_MAX_INSTANCES 100 /* instances per call, whatever the weights */
#define SC_ASG_CLIENT_TOKEN_LEN     65  /* 1..64 characters and the NUL */
/* A client token answers with its first reply this long (8 hours). */
#define SC_ASG_CLIENT_TOKEN_TTL_MS (8LL * 3600 * 1000)
/* Client tokens kept (the oldest go first beyond it; expired ones always go). */
#define SC_ASG_MAX_CLIENT_TOKENS 1000

struct sc_asg_launch_req {
    const char *auto_scaling_group_name;
    int requested_capacity; /* units (the overrides' weights), >= 1 */
    const char *client_token;
    const char *const *availability_zones; /* at most 1 */
    int navailability_zones;
    const char *const *availability_zone_ids; /* at most 1 */
    int navailability_zone_ids;
    const char *const *subnet_ids; /* at most 1 */
    int nsubnet_ids;
    const char *retry_strategy; /* "none" (NULL) or "retry-with-group-configuration" */
};

/* One item of the reply's Instances (instance_ids) or Errors (error_code, error_message). */
struct sc_asg_launch_item {
    char instance_type[SC_ASG_ID_LEN]; /* "" when not known */
    char market_type[16];              /* "OnDemand": scalelab has no Spot market */
    char subnet_id[SC_ASG_ID_LEN];     /* "" when the group has none */
    char availability_zone[SC_ASG_ID_LEN];
    char availability_zone_id[SC_ASG_ID_LEN]; /* "" when not known */
    char (*instance_ids)[SC_ASG_ID_LEN];
    int ninstance_ids;
    char *error_code;
    char *error_message;
};

struct sc_asg_launch_info {
    char auto_scaling_group_name[256];
    char client_token[SC_ASG_CLIENT_TOKEN_LEN];
    struct sc_asg_launch_item *instances;
    int ninstances;
    struct sc_asg_launch_item *errors;
    int nerrors;
};

/* LaunchInstances. *out is the reply (borrowed, valid until the next mutating call): a new
 * one, or the one a call with the same client token made within 8 hours (then nothing is
 * launched again). Errors (nothing changes): ValidationError for a request or group it
 * cannot serve, IdempotentParameterMismatch for a client token reused with other
 * parameters. Launch failures are Errors items of a successful reply. */
enum sc_status sc_asg_launch_instances(struct sc_asg *asg, const struct sc_asg_launch_req *req,
                                       int64_t now_ms, const struct sc_asg_launch_info **out,
                                       struct sc_error *err);

#endif
