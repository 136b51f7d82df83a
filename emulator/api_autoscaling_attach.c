/* emulator/api_autoscaling_attach.c: Auto Scaling handlers of what is attached to a group (classic
 * load balancers, target groups, traffic sources), its suspended processes, tags and metrics
 * collection (see
 * api_autoscaling_internal.h). IR in -> one sc_asg call -> IR out; every rule and message
 * is the library's. */
#include "emulator/api_autoscaling_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/asg.h"
#include "scaler/world.h"

/* ---- load balancers, processes, tags, metrics ------------------------------------------------ */

typedef enum sc_status (*names_fn)(struct sc_asg *, const char *, const char *const *, int, int64_t,
                                   struct sc_error *);

static int names_op(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err,
                    const char *member, names_fn fn)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    const char **names;
    int nn, rc = 0;

    *out = NULL;
    names = api_strings(in, member, &nn);
    if (fn(asg, api_str(in, "AutoScalingGroupName"), names, nn, ctx->now_ms, &se) != SC_OK)
        rc = awserr_from_sc(err, &se);
    free(names);
    return rc;
}

static int attach_load_balancers(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return names_op(ctx, in, out, err, "LoadBalancerNames", sc_asg_attach_load_balancers);
}

static int detach_load_balancers(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return names_op(ctx, in, out, err, "LoadBalancerNames", sc_asg_detach_load_balancers);
}

static int suspend_processes(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return names_op(ctx, in, out, err, "ScalingProcesses", sc_asg_suspend_processes);
}

static int resume_processes(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return names_op(ctx, in, out, err, "ScalingProcesses", sc_asg_resume_processes);
}

/* The detached sources still deregistering (Removing) or just done (Removed), of one type
 * (elbv2 0 or 1), or of both (elbv2 -1: DescribeTrafficSources' members). */
static void removing_json(struct sc_asg *asg, const struct sc_asg_group_info *g, json_t *items,
                          int elbv2, const char *key)
{
    for (int i = 0; i < sc_asg_removing_count(g); i++) {
        const char *state, *name;
        int v2;

        name = sc_asg_removing_at(asg, g, i, &v2, &state);
        if (!name || (elbv2 >= 0 && v2 != elbv2))
            continue;
        if (key)
            json_array_append_new(items, json_pack("{s:s,s:s}", key, name, "State", state));
        else
            json_array_append_new(items, json_pack("{s:s,s:s,s:s,s:s}", "TrafficSource", name,
                                                   "State", state, "Identifier", name, "Type",
                                                   v2 ? "elbv2" : "elb"));
    }
}

static int describe_load_balancers(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    const char *group = api_str(in, "AutoScalingGroupName");
    const struct sc_asg_group_info *g;
    json_t *items;

    g = sc_asg_group_find(asg, group);
    if (!g) {
        sc_asg_group_not_found(group, &se);
        return awserr_from_sc(err, &se);
    }
    items = json_array();
    for (int i = 0; i < g->nload_balancer_names; i++)
        json_array_append_new(items,
                              json_pack("{s:s,s:s}", "LoadBalancerName", g->load_balancer_names[i],
                                        "State", sc_asg_load_balancer_state(asg, g, i)));
    removing_json(asg, g, items, 0, "LoadBalancerName");
    return api_asg_page_out(items, in, 100, 100, out, "LoadBalancers", err);
}

/* --- target groups and traffic sources (scaler/asg_traffic.c) --- */

static int attach_target_groups(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return names_op(ctx, in, out, err, "TargetGroupARNs", sc_asg_attach_target_groups);
}

static int detach_target_groups(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return names_op(ctx, in, out, err, "TargetGroupARNs", sc_asg_detach_target_groups);
}

static int describe_target_groups(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    const char *group = api_str(in, "AutoScalingGroupName");
    const struct sc_asg_group_info *g = sc_asg_group_find(asg, group);
    json_t *items;

    if (!g) {
        sc_asg_group_not_found(group, &se);
        return awserr_from_sc(err, &se);
    }
    items = json_array();
    for (int i = 0; i < g->ntarget_group_arns; i++)
        json_array_append_new(items, json_pack("{s:s,s:s}", "LoadBalancerTargetGroupARN",
                                               g->target_group_arns[i], "State",
                                               sc_asg_target_group_state(asg, g, i)));
    removing_json(asg, g, items, 1, "LoadBalancerTargetGroupARN");
    return api_asg_page_out(items, in, 100, 100, out, "LoadBalancerTargetGroups", err);
}

static int traffic_op(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err, int attach)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    json_t *a = json_object_get(in, "TrafficSources"), *e;
    struct sc_asg_traffic_source *t = cm_xcalloc(json_array_size(a) + 1, sizeof(*t));
    struct sc_error se = { 0 };
    enum sc_status st;
    size_t i;

    *out = NULL;
    json_array_foreach(a, i, e)
    {
        t[i].identifier = api_str(e, "Identifier");
        t[i].type = api_str(e, "Type");
    }
    st = attach ? sc_asg_attach_traffic_sources(asg, api_str(in, "AutoScalingGroupName"), t,
                                                (int)json_array_size(a), ctx->now_ms, &se)
                : sc_asg_detach_traffic_sources(asg, api_str(in, "AutoScalingGroupName"), t,
                                                (int)json_array_size(a), ctx->now_ms, &se);
    free(t);
    return st == SC_OK ? 0 : awserr_from_sc(err, &se);
}

static int attach_traffic_sources(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return traffic_op(ctx, in, out, err, 1);
}

static int detach_traffic_sources(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return traffic_op(ctx, in, out, err, 0);
}

static int describe_traffic_sources(struct api_ctx *ctx, json_t *in, json_t **out,
                                    struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    const char *group = api_str(in, "AutoScalingGroupName");
    const char *type = api_str(in, "TrafficSourceType");
    const struct sc_asg_group_info *g = sc_asg_group_find(asg, group);
    json_t *items;

    if (!g) {
        sc_asg_group_not_found(group, &se);
        return awserr_from_sc(err, &se);
    }
    items = json_array();
    for (int i = 0; (!type || strcmp(type, "elb") == 0) && i < g->nload_balancer_names; i++)
        json_array_append_new(items, json_pack("{s:s,s:s,s:s,s:s}", "TrafficSource",
                                               g->load_balancer_names[i], "State",
                                               sc_asg_load_balancer_state(asg, g, i), "Identifier",
                                               g->load_balancer_names[i], "Type", "elb"));
    for (int i = 0; (!type || strcmp(type, "elbv2") == 0) && i < g->ntarget_group_arns; i++)
        json_array_append_new(items, json_pack("{s:s,s:s,s:s,s:s}", "TrafficSource",
                                               g->target_group_arns[i], "State",
                                               sc_asg_target_group_state(asg, g, i), "Identifier",
                                               g->target_group_arns[i], "Type", "elbv2"));
    if (!type || strcmp(type, "elb") == 0 || strcmp(type, "elbv2") == 0)
        removing_json(asg, g, items, !type ? -1 : strcmp(type, "elbv2") == 0, NULL);
    return api_asg_page_out(items, in, 50, 50, out, "TrafficSources", err);
}

static int tags_op(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err, int del)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    json_t *tags = json_object_get(in, "Tags");
    struct sc_asg_tag_req *t;
    enum sc_status st;

    *out = NULL;
    t = cm_xcalloc(json_array_size(tags) + 1, sizeof(*t));
    api_asg_tag_reqs_get(tags, t);
    if (del)
        st = sc_asg_delete_tags(asg, t, (int)json_array_size(tags), ctx->now_ms, &se);
    else
        st = sc_asg_create_or_update_tags(asg, t, (int)json_array_size(tags), ctx->now_ms, &se);
    free(t);
    return api_asg_done(err, &se, st);
}

static int create_or_update_tags(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return tags_op(ctx, in, out, err, 0);
}

static int delete_tags(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return tags_op(ctx, in, out, err, 1);
}

/* DescribeTags filters: auto-scaling-group, key, value, propagate-at-launch; values OR,
 * filters AND. */
static int tag_matches(json_t *filters, const char *group, const struct sc_asg_tag *t)
{
    size_t i, j;
    json_t *f, *v;

    json_array_foreach(filters, i, f)
    {
        const char *name = api_str(f, "Name");
        const char *have = NULL;
        int any = 0;

        if (!name)
            continue;
        if (strcmp(name, "auto-scaling-group") == 0)
            have = group;
        else if (strcmp(name, "key") == 0)
            have = t->key;
        else if (strcmp(name, "value") == 0)
            have = t->value ? t->value : "";
        else if (strcmp(name, "propagate-at-launch") == 0)
            have = t->propagate_at_launch ? "true" : "false";
        else
            return 0;
        json_array_foreach(json_object_get(f, "Values"), j, v)
        {
            if (json_is_string(v) && strcmp(json_string_value(v), have) == 0)
                any = 1;
        }
        if (!any)
            return 0;
    }
    return 1;
}

static int describe_tags(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    json_t *filters = json_object_get(in, "Filters");
    json_t *items;

    items = json_array();
    for (int i = 0; i < sc_asg_group_count(asg); i++) {
        const struct sc_asg_group_info *g = sc_asg_group_at(asg, i);

        for (int t = 0; t < g->ntags; t++) {
            if (tag_matches(filters, g->auto_scaling_group_name, &g->tags[t]))
                json_array_append_new(items,
                                      api_asg_tag_json(g->auto_scaling_group_name, &g->tags[t]));
        }
    }
    return api_asg_page_out(items, in, 50, 100, out, "Tags", err);
}

static int metrics_op(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err, int enable)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    const char **m;
    int nm;
    enum sc_status st;

    *out = NULL;
    m = api_strings(in, "Metrics", &nm);
    if (enable)
        st = sc_asg_enable_metrics_collection(asg, api_str(in, "AutoScalingGroupName"), m, nm,
                                              api_str(in, "Granularity"), ctx->now_ms, &se);
    else
        st = sc_asg_disable_metrics_collection(asg, api_str(in, "AutoScalingGroupName"), m, nm,
                                               ctx->now_ms, &se);
    free(m);
    return api_asg_done(err, &se, st);
}

static int enable_metrics_collection(struct api_ctx *ctx, json_t *in, json_t **out,
                                     struct awserr *err)
{
    return metrics_op(ctx, in, out, err, 1);
}

static int disable_metrics_collection(struct api_ctx *ctx, json_t *in, json_t **out,
                                      struct awserr *err)
{
    return metrics_op(ctx, in, out, err, 0);
}

const struct api_handler api_autoscaling_attach_handlers[] = {
    { "AttachLoadBalancerTargetGroups", attach_target_groups, API_MUTATES },
    { "AttachLoadBalancers", attach_load_balancers, API_MUTATES },
    { "AttachTrafficSources", attach_traffic_sources, API_MUTATES },
    { "CreateOrUpdateTags", create_or_update_tags, API_MUTATES },
    { "DeleteTags", delete_tags, API_MUTATES },
    { "DescribeLoadBalancerTargetGroups", describe_target_groups, 0 },
    { "DescribeLoadBalancers", describe_load_balancers, 0 },
    { "DescribeTags", describe_tags, 0 },
    { "DescribeTrafficSources", describe_traffic_sources, 0 },
    { "DetachLoadBalancerTargetGroups", detach_target_groups, API_MUTATES },
    { "DetachLoadBalancers", detach_load_balancers, API_MUTATES },
    { "DetachTrafficSources", detach_traffic_sources, API_MUTATES },
    { "DisableMetricsCollection", disable_metrics_collection, API_MUTATES },
    { "EnableMetricsCollection", enable_metrics_collection, API_MUTATES },
    { "ResumeProcesses", resume_processes, API_MUTATES },
    { "SuspendProcesses", suspend_processes, API_MUTATES },
    { NULL, NULL, 0 },
};
