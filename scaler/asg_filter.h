/* scaler/asg_filter.h: DescribeAutoScalingGroups Filters (docs/autoscaling.md section 10):
 * tag-key, tag-value and tag:<key>; a filter's values are OR'd, the filters AND'd, values
 * compared exactly (case-sensitive, no wildcards). Pure. */
#ifndef SCALER_ASG_FILTER_H
#define SCALER_ASG_FILTER_H

#include "scaler/asg.h"
#include "scaler/status.h"

struct sc_asg_filter {
    const char *name;
    const char *const *values;
    int nvalues;
};

/* ValidationError for a filter without a name or with a name not listed above (nothing is
 * described then). */
enum sc_status sc_asg_filters_check(const struct sc_asg_filter *f, int n, struct sc_error *err);
/* 1 when g passes every filter (n 0: every group passes). The filters must have passed
 * sc_asg_filters_check. */
int sc_asg_group_matches_filters(const struct sc_asg_group_info *g, const struct sc_asg_filter *f,
                                 int n);

#endif
