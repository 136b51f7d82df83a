/* emulator/api_autoscaling_notify.h: the Auto Scaling handlers of notification
 * configurations (over scaler/asg_notify.h), a fourth table beside
 * api_autoscaling_handlers that api_find searches last; and the Filters of
 * DescribeAutoScalingGroups as scaler/asg_filter.h takes them. */
#ifndef EMULATOR_API_AUTOSCALING_NOTIFY_H
#define EMULATOR_API_AUTOSCALING_NOTIFY_H

#include <jansson.h>

#include "emulator/api.h"
#include "scaler/asg_filter.h"

/* Ended by { NULL, NULL, 0 }. */
extern const struct api_handler api_autoscaling_notify_handlers[];

/* The request's Filters as filters with strings borrowed from in (*n 0 and NULL when none);
 * free with api_asg_filters_free. */
struct sc_asg_filter *api_asg_filters(json_t *in, int *n);
void api_asg_filters_free(struct sc_asg_filter *f, int n);

#endif
