/* emulator/api_autoscaling_internal.h: what the Auto Scaling handler files share. The
 * handlers are split by topic, each file with its own table that api_find searches after
 * api_autoscaling_handlers (api_autoscaling.c: catalogues, launch configurations, groups):
 * api_autoscaling_instances.c, api_autoscaling_attach.c, api_autoscaling_policy.c,
 * api_autoscaling_launch.c (and
 * api_autoscaling_hooks.c, _refresh.c, _notify.c, _predict.c with their own headers). The
 * helpers are defined in api_autoscaling.c. */
#ifndef EMULATOR_API_AUTOSCALING_INTERNAL_H
#define EMULATOR_API_AUTOSCALING_INTERNAL_H

#include <jansson.h>

#include "emulator/api.h"
#include "scaler/asg.h"

/* Each ended by { NULL, NULL, 0 }. */
extern const struct api_handler api_autoscaling_instance_handlers[];
extern const struct api_handler api_autoscaling_attach_handlers[];
extern const struct api_handler api_autoscaling_policy_handlers[];
extern const struct api_handler api_autoscaling_launch_handlers[]; /* LaunchInstances */

/* How a handler ends after its one library call (st, which filled se): 0, or the
 * library's error. */
int api_asg_done(struct awserr *err, const struct sc_error *se, enum sc_status st);
/* Every Auto Scaling list pages the same way (NextToken in and out, MaxRecords): the page
 * of items (stolen) under key in a new *out. */
int api_asg_page_out(json_t *items, json_t *in, int def_limit, int max_limit, json_t **out,
                     const char *key, struct awserr *err);
/* o[k] = v when v is not NULL. */
void api_asg_set_str(json_t *o, const char *k, const char *v);
/* 1 when s is one of v[0..n). */
int api_asg_in_list(const char *const *v, int n, const char *s);

/* The Tags member (CreateAutoScalingGroup, CreateOrUpdateTags, DeleteTags) into t, which
 * has room for all of them; the strings stay borrowed from tags. */
void api_asg_tag_reqs_get(json_t *tags, struct sc_asg_tag_req *t);
/* One tag as DescribeAutoScalingGroups and DescribeTags show it. New reference. */
json_t *api_asg_tag_json(const char *group, const struct sc_asg_tag *t);
/* An instance as DescribeAutoScalingGroups (group NULL, health "Healthy") and
 * DescribeAutoScalingInstances (its group named, health "HEALTHY") show it: the same
 * members in the same order. New reference. */
json_t *api_asg_instance_json(const struct sc_asg_instance_info *ii, const char *group,
                              int weighted, const char *(*health_str)(int healthy));

#endif
