/* emulator/api_autoscaling.c: Auto Scaling handlers.
 *
 * Served now: the Describe*Types lookups, whose answers are AWS's fixed catalogues
 * (API reference: DescribeAdjustmentTypes, DescribeScalingProcessTypes,
 * DescribeTerminationPolicyTypes, DescribeMetricCollectionTypes,
 * DescribeLifecycleHookTypes, DescribeAutoScalingNotificationTypes), not rules.
 * Every other operation waits for scaler/asg.h + world.h. */
#include "emulator/api.h"

#include <stddef.h>

static json_t *list_of(const char *const *v, const char *key)
{
    json_t *a = json_array();

    for (; *v; v++) {
        if (key)
            json_array_append_new(a, json_pack("{s:s}", key, *v));
        else
            json_array_append_new(a, json_string(*v));
    }
    return a;
}

static int describe_adjustment_types(struct api_ctx *ctx, json_t *in, json_t **out,
                                     struct awserr *err)
{
    static const char *const v[] = { "ChangeInCapacity", "ExactCapacity",
                                     "PercentChangeInCapacity", NULL };

    (void)ctx;
    (void)in;
    (void)err;
    *out = json_pack("{s:o}", "AdjustmentTypes", list_of(v, "AdjustmentType"));
    return 0;
}

static int describe_scaling_process_types(struct api_ctx *ctx, json_t *in, json_t **out,
                                          struct awserr *err)
{
    static const char *const v[] = { "AZRebalance",       "AddToLoadBalancer", "AlarmNotification",
                                     "HealthCheck",       "InstanceRefresh",   "Launch",
                                     "ReplaceUnhealthy",  "ScheduledActions",  "Terminate",
                                     NULL };

    (void)ctx;
    (void)in;
    (void)err;
    *out = json_pack("{s:o}", "Processes", list_of(v, "ProcessName"));
    return 0;
}

static int describe_termination_policy_types(struct api_ctx *ctx, json_t *in, json_t **out,
                                             struct awserr *err)
{
    static const char *const v[] = { "AllocationStrategy",        "ClosestToNextInstanceHour",
                                     "Default",                   "NewestInstance",
                                     "OldestInstance",            "OldestLaunchConfiguration",
                                     "OldestLaunchTemplate",      NULL };

    (void)ctx;
    (void)in;
    (void)err;
    *out = json_pack("{s:o}", "TerminationPolicyTypes", list_of(v, NULL));
    return 0;
}

static int describe_metric_collection_types(struct api_ctx *ctx, json_t *in, json_t **out,
                                            struct awserr *err)
{
    static const char *const v[] = {
        "GroupMinSize",          "GroupMaxSize",
        "GroupDesiredCapacity",  "GroupInServiceInstances",
        "GroupPendingInstances", "GroupTerminatingInstances",
        "GroupStandbyInstances", "GroupTotalInstances",
        "GroupInServiceCapacity", "GroupPendingCapacity",
        "GroupStandbyCapacity",  "GroupTerminatingCapacity",
        "GroupTotalCapacity",    NULL,
    };
    static const char *const g[] = { "1Minute", NULL };

    (void)ctx;
    (void)in;
    (void)err;
    *out = json_pack("{s:o,s:o}", "Metrics", list_of(v, "Metric"), "Granularities",
                     list_of(g, "Granularity"));
    return 0;
}

static int describe_lifecycle_hook_types(struct api_ctx *ctx, json_t *in, json_t **out,
                                         struct awserr *err)
{
    static const char *const v[] = { "autoscaling:EC2_INSTANCE_LAUNCHING",
                                     "autoscaling:EC2_INSTANCE_TERMINATING", NULL };

    (void)ctx;
    (void)in;
    (void)err;
    *out = json_pack("{s:o}", "LifecycleHookTypes", list_of(v, NULL));
    return 0;
}

static int describe_notification_types(struct api_ctx *ctx, json_t *in, json_t **out,
                                       struct awserr *err)
{
    static const char *const v[] = { "autoscaling:EC2_INSTANCE_LAUNCH",
                                     "autoscaling:EC2_INSTANCE_LAUNCH_ERROR",
                                     "autoscaling:EC2_INSTANCE_TERMINATE",
                                     "autoscaling:EC2_INSTANCE_TERMINATE_ERROR",
                                     "autoscaling:TEST_NOTIFICATION", NULL };

    (void)ctx;
    (void)in;
    (void)err;
    *out = json_pack("{s:o}", "AutoScalingNotificationTypes", list_of(v, NULL));
    return 0;
}

const struct api_handler api_autoscaling_handlers[] = {
    { "DescribeAdjustmentTypes", describe_adjustment_types },
    { "DescribeAutoScalingNotificationTypes", describe_notification_types },
    { "DescribeLifecycleHookTypes", describe_lifecycle_hook_types },
    { "DescribeMetricCollectionTypes", describe_metric_collection_types },
    { "DescribeScalingProcessTypes", describe_scaling_process_types },
    { "DescribeTerminationPolicyTypes", describe_termination_policy_types },
    { NULL, NULL },
};
