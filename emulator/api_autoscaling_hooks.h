/* emulator/api_autoscaling_hooks.h: the Auto Scaling handlers of lifecycle hooks, instance
 * protection and scheduled actions (over scaler/asg_hook.h and scaler/asg_sched.h), a
 * table beside api_autoscaling_handlers that api_find searches second. */
#ifndef EMULATOR_API_AUTOSCALING_HOOKS_H
#define EMULATOR_API_AUTOSCALING_HOOKS_H

#include <jansson.h>

#include "emulator/api.h"
#include "scaler/asg_hook.h"

/* Ended by { NULL, NULL, 0 }. */
extern const struct api_handler api_autoscaling_hook_handlers[];

/* One PutLifecycleHook request or LifecycleHookSpecification (o, borrowed) into *r; the
 * strings stay borrowed from o. */
void api_asg_hook_req_get(json_t *o, struct sc_asg_hook_req *r);
/* DescribeAutoScalingGroups' WarmPoolConfiguration and WarmPoolSize of g into o (nothing
 * without a pool). */
void api_asg_warm_json(const struct sc_asg_group_info *g, json_t *o);

#endif
