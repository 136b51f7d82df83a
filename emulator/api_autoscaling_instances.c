/* emulator/api_autoscaling_instances.c: Auto Scaling handlers of a group's instances
 * (DescribeAutoScalingInstances, terminate, health, standby, attach and detach) and its scaling
 * activities (see api_autoscaling_internal.h). IR in -> one sc_asg call -> IR out; every rule and
 * message is the library's. */
#include "emulator/api_autoscaling_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/asg.h"
#include "scaler/world.h"

/* ---- instances and activities --------------------------------------------------------------- */

static json_t *activity_json(const struct sc_asg_activity_info *a)
{
    json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:I,s:s,s:i,s:s,s:s}", "ActivityId", a->activity_id,
                          "AutoScalingGroupName", a->auto_scaling_group_name, "Description",
                          a->description ? a->description : "", "Cause", a->cause ? a->cause : "",
                          "StartTime", (json_int_t)a->start_ms, "StatusCode", a->status_code,
                          "Progress", a->progress, "AutoScalingGroupState",
                          a->group_deleted ? "Deleted" : "InService", "AutoScalingGroupARN",
                          a->auto_scaling_group_arn ? a->auto_scaling_group_arn : "");

    if (a->end_ms)
        json_object_set_new(o, "EndTime", json_integer(a->end_ms));
    api_asg_set_str(o, "StatusMessage", a->status_message);
    api_asg_set_str(o, "Details", a->details);
    return o;
}

static int describe_auto_scaling_instances(struct api_ctx *ctx, json_t *in, json_t **out,
                                           struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    const char **ids;
    int ni;
    json_t *items;

    items = json_array();
    ids = api_strings(in, "InstanceIds", &ni);
    for (int i = 0; i < sc_asg_group_count(asg); i++) {
        const struct sc_asg_group_info *g = sc_asg_group_at(asg, i);

        for (int k = 0; k < sc_asg_group_instance_count(g); k++) {
            const struct sc_asg_instance_info *ii = sc_asg_group_instance_at(g, k);

            if (ni && !api_asg_in_list(ids, ni, ii->instance_id))
                continue;
            json_array_append_new(items, api_asg_instance_json(ii, g->auto_scaling_group_name,
                                                               g->mixed.weighted,
                                                               sc_asg_health_upper_str));
        }
    }
    free(ids);
    return api_asg_page_out(items, in, 50, 50, out, "AutoScalingInstances", err);
}

static int terminate_instance_in_asg(struct api_ctx *ctx, json_t *in, json_t **out,
                                     struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    const struct sc_asg_activity_info *a = NULL;

    if (sc_asg_terminate_instance(asg, api_str(in, "InstanceId"),
                                  api_bool(in, "ShouldDecrementDesiredCapacity", 0), ctx->now_ms,
                                  &a, &se) != SC_OK)
        return awserr_from_sc(err, &se);
    *out = a ? json_pack("{s:o}", "Activity", activity_json(a)) : NULL;
    return 0;
}

static int set_instance_health(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };

    *out = NULL;
    return api_asg_done(
        err, &se,
        sc_asg_set_instance_health(asg, api_str(in, "InstanceId"), api_str(in, "HealthStatus"),
                                   api_bool(in, "ShouldRespectGracePeriod", 1), ctx->now_ms, &se));
}

/* The group's activities started now that name one of ids (what AWS returns for
 * Detach/EnterStandby/ExitStandby). */
static json_t *activities_for(struct sc_asg *asg, const char *group, const char **ids, int nids,
                              int64_t now_ms)
{
    json_t *a = json_array();
    int n = sc_asg_activity_count(asg, group);

    for (int i = 0; i < n; i++) {
        const struct sc_asg_activity_info *ac = sc_asg_activity_at(asg, group, i);

        if (ac->start_ms != now_ms || !ac->description)
            continue;
        for (int k = 0; k < nids; k++) {
            if (strstr(ac->description, ids[k])) {
                json_array_append_new(a, activity_json(ac));
                break;
            }
        }
    }
    return a;
}

typedef enum sc_status (*ids_fn)(struct sc_asg *, const char *, const char *const *, int, int,
                                 int64_t, struct sc_error *);

static enum sc_status enter_standby_fn(struct sc_asg *asg, const char *g, const char *const *ids,
                                       int n, int dec, int64_t now, struct sc_error *se)
{
    return sc_asg_enter_standby(asg, g, ids, n, dec, now, se);
}

static enum sc_status exit_standby_fn(struct sc_asg *asg, const char *g, const char *const *ids,
                                      int n, int dec, int64_t now, struct sc_error *se)
{
    (void)dec;
    return sc_asg_exit_standby(asg, g, ids, n, now, se);
}

static enum sc_status detach_fn(struct sc_asg *asg, const char *g, const char *const *ids, int n,
                                int dec, int64_t now, struct sc_error *se)
{
    return sc_asg_detach_instances(asg, g, ids, n, dec, now, se);
}

static enum sc_status attach_fn(struct sc_asg *asg, const char *g, const char *const *ids, int n,
                                int dec, int64_t now, struct sc_error *se)
{
    (void)dec;
    return sc_asg_attach_instances(asg, g, ids, n, now, se);
}

static int ids_op(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err, ids_fn fn,
                  int with_activities)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    const char *group = api_str(in, "AutoScalingGroupName");
    const char **ids;
    int ni, rc = 0;

    *out = NULL;
    ids = api_strings(in, "InstanceIds", &ni);
    if (fn(asg, group, ids, ni, api_bool(in, "ShouldDecrementDesiredCapacity", 0), ctx->now_ms,
           &se) != SC_OK)
        rc = awserr_from_sc(err, &se);
    else if (with_activities)
        *out = json_pack("{s:o}", "Activities", activities_for(asg, group, ids, ni, ctx->now_ms));
    free(ids);
    return rc;
}

static int enter_standby(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return ids_op(ctx, in, out, err, enter_standby_fn, 1);
}

static int exit_standby(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return ids_op(ctx, in, out, err, exit_standby_fn, 1);
}

static int detach_instances(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return ids_op(ctx, in, out, err, detach_fn, 1);
}

static int attach_instances(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return ids_op(ctx, in, out, err, attach_fn, 0);
}

/* An activity and where it came in the collected list (ties keep that order). */
struct act_ref {
    const struct sc_asg_activity_info *a;
    int pos;
};

/* AWS order across groups: in progress first, then newest start first. */
static int act_ref_cmp(const void *pa, const void *pb)
{
    const struct act_ref *x = pa, *y = pb;
    int xf = x->a->end_ms != 0, yf = y->a->end_ms != 0;

    if (xf != yf)
        return xf - yf;
    if (x->a->start_ms != y->a->start_ms)
        return x->a->start_ms > y->a->start_ms ? -1 : 1;
    return x->pos - y->pos;
}

/* IncludeDeletedGroups=true without ActivityIds: the live groups' activities (group NULL:
 * every group's) and the deleted groups' of that name, in AWS order. */
static json_t *activities_with_deleted(const struct sc_asg *asg, const char *group)
{
    json_t *items = json_array();
    struct act_ref *refs;
    int n = sc_asg_deleted_activity_count(asg, group), k = 0;

    for (int gi = 0; gi < sc_asg_group_count(asg); gi++) {
        const char *gname = sc_asg_group_at(asg, gi)->auto_scaling_group_name;

        if (!group || strcmp(group, gname) == 0)
            n += sc_asg_activity_count(asg, gname);
    }
    refs = cm_xmalloc((size_t)(n > 0 ? n : 1) * sizeof(*refs));
    for (int gi = 0; gi < sc_asg_group_count(asg); gi++) {
        const char *gname = sc_asg_group_at(asg, gi)->auto_scaling_group_name;

        if (group && strcmp(group, gname) != 0)
            continue;
        for (int i = 0; i < sc_asg_activity_count(asg, gname) && k < n; i++, k++)
            refs[k] = (struct act_ref){ sc_asg_activity_at(asg, gname, i), k };
    }
    for (int i = 0; i < sc_asg_deleted_activity_count(asg, group) && k < n; i++, k++)
        refs[k] = (struct act_ref){ sc_asg_deleted_activity_at(asg, group, i), k };
    qsort(refs, (size_t)k, sizeof(*refs), act_ref_cmp);
    for (int i = 0; i < k; i++)
        json_array_append_new(items, activity_json(refs[i].a));
    free(refs);
    return items;
}

/* Deleted groups' activities appear only with IncludeDeletedGroups=true, ActivityIds
 * included (AWS documents no exception for ids; without the flag they are unknown ids,
 * ignored). Without it the live groups' activities come group by group (name order),
 * each group's in AWS order; with it, everything in AWS order. */
static int describe_scaling_activities(struct api_ctx *ctx, json_t *in, json_t **out,
                                       struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    const char *group = api_str(in, "AutoScalingGroupName");
    int with_deleted;
    const char **ids;
    int ni;
    json_t *items;

    with_deleted = api_bool(in, "IncludeDeletedGroups", 0);
    if (group && !sc_asg_group_find(asg, group) && !with_deleted) {
        *out = json_pack("{s:[]}", "Activities");
        return 0;
    }
    ids = api_strings(in, "ActivityIds", &ni);
    if (ni) {
        items = json_array();
        for (int i = 0; i < ni; i++) {
            const struct sc_asg_activity_info *a = sc_asg_activity_find(asg, ids[i]);

            if (a && (!a->group_deleted || with_deleted) &&
                (!group || strcmp(a->auto_scaling_group_name, group) == 0))
                json_array_append_new(items, activity_json(a));
        }
    } else if (with_deleted) {
        items = activities_with_deleted(asg, group);
    } else {
        items = json_array();
        for (int gi = 0; gi < sc_asg_group_count(asg); gi++) {
            const char *gname = sc_asg_group_at(asg, gi)->auto_scaling_group_name;
            int n;

            if (group && strcmp(group, gname) != 0)
                continue;
            n = sc_asg_activity_count(asg, gname);
            for (int i = 0; i < n; i++)
                json_array_append_new(items, activity_json(sc_asg_activity_at(asg, gname, i)));
        }
    }
    free(ids);
    *out = json_object();
    return api_page(items, in, "NextToken", "MaxRecords", 100, 100, *out, "Activities", "NextToken",
                    err);
}

const struct api_handler api_autoscaling_instance_handlers[] = {
    { "AttachInstances", attach_instances, API_MUTATES },
    { "DescribeAutoScalingInstances", describe_auto_scaling_instances, 0 },
    { "DescribeScalingActivities", describe_scaling_activities, 0 },
    { "DetachInstances", detach_instances, API_MUTATES },
    { "EnterStandby", enter_standby, API_MUTATES },
    { "ExitStandby", exit_standby, API_MUTATES },
    { "SetInstanceHealth", set_instance_health, API_MUTATES },
    { "TerminateInstanceInAutoScalingGroup", terminate_instance_in_asg, API_MUTATES },
    { NULL, NULL, 0 },
};
