/* emulator/api_autoscaling_hooks.c: Auto Scaling handlers of lifecycle hooks, instance
 * protection and scheduled actions (see api_autoscaling_hooks.h). IR in -> one sc_asg call
 * -> IR out; every rule and message is the library's. */
#include "emulator/api_autoscaling_hooks.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/asg.h"
#include "scaler/asg_protect.h"
#include "scaler/asg_sched.h"
#include "scaler/asg_warm.h"
#include "scaler/world.h"

static int done(struct awserr *err, const struct sc_error *se, enum sc_status st)
{
    return st == SC_OK ? 0 : awserr_from_sc(err, se);
}

static void set_str(json_t *o, const char *k, const char *v)
{
    if (v)
        json_object_set_new(o, k, json_string(v));
}

/* ---- lifecycle hooks ------------------------------------------------------------------- */

void api_asg_hook_req_get(json_t *o, struct sc_asg_hook_req *r)
{
    memset(r, 0, sizeof(*r));
    r->lifecycle_hook_name = api_str(o, "LifecycleHookName");
    r->auto_scaling_group_name = api_str(o, "AutoScalingGroupName");
    r->lifecycle_transition = api_str(o, "LifecycleTransition");
    r->role_arn = api_str(o, "RoleARN");
    r->notification_target_arn = api_str(o, "NotificationTargetARN");
    r->notification_metadata = api_str(o, "NotificationMetadata");
    r->has_heartbeat_timeout = api_int(o, "HeartbeatTimeout", &r->heartbeat_timeout);
    r->default_result = api_str(o, "DefaultResult");
}

static int put_lifecycle_hook(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    struct sc_asg_hook_req r;

    *out = NULL;
    api_asg_hook_req_get(in, &r);
    return done(err, &se,
                sc_asg_put_lifecycle_hook(sc_world_asg(ctx->world), &r, ctx->now_ms, &se));
}

static int delete_lifecycle_hook(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };

    *out = NULL;
    return done(err, &se,
                sc_asg_delete_lifecycle_hook(sc_world_asg(ctx->world),
                                             api_str(in, "AutoScalingGroupName"),
                                             api_str(in, "LifecycleHookName"), ctx->now_ms, &se));
}

static json_t *hook_json(const struct sc_asg_hook_info *h)
{
    json_t *o = json_pack("{s:s,s:s,s:s,s:i,s:i,s:s}", "LifecycleHookName", h->lifecycle_hook_name,
                          "AutoScalingGroupName", h->auto_scaling_group_name, "LifecycleTransition",
                          h->lifecycle_transition, "HeartbeatTimeout", h->heartbeat_timeout,
                          "GlobalTimeout", h->global_timeout, "DefaultResult", h->default_result);

    set_str(o, "NotificationTargetARN", h->notification_target_arn);
    set_str(o, "RoleARN", h->role_arn);
    set_str(o, "NotificationMetadata", h->notification_metadata);
    return o;
}

static int describe_lifecycle_hooks(struct api_ctx *ctx, json_t *in, json_t **out,
                                    struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    const char *group = api_str(in, "AutoScalingGroupName");
    int n = sc_asg_lifecycle_hook_count(asg, group), nn;
    const char **names = api_strings(in, "LifecycleHookNames", &nn);
    json_t *items;
    struct sc_error se = { 0 };

    *out = NULL;
    if (n < 0) {
        free(names);
        return done(err, &se, sc_asg_group_not_found(group, &se));
    }
    items = json_array();
    for (int i = 0; i < n; i++) {
        const struct sc_asg_hook_info *h = sc_asg_lifecycle_hook_at(asg, group, i);
        int want = nn == 0;

        for (int k = 0; k < nn && !want; k++)
            want = strcmp(names[k], h->lifecycle_hook_name) == 0;
        if (want)
            json_array_append_new(items, hook_json(h));
    }
    free(names);
    *out = json_pack("{s:o}", "LifecycleHooks", items);
    return 0;
}

static int complete_lifecycle_action(struct api_ctx *ctx, json_t *in, json_t **out,
                                     struct awserr *err)
{
    struct sc_error se = { 0 };

    *out = NULL;
    return done(err, &se,
                sc_asg_complete_lifecycle_action(
                    sc_world_asg(ctx->world), api_str(in, "AutoScalingGroupName"),
                    api_str(in, "LifecycleHookName"), api_str(in, "LifecycleActionToken"),
                    api_str(in, "InstanceId"), api_str(in, "LifecycleActionResult"), ctx->now_ms,
                    &se));
}

static int record_lifecycle_action_heartbeat(struct api_ctx *ctx, json_t *in, json_t **out,
                                             struct awserr *err)
{
    struct sc_error se = { 0 };

    *out = NULL;
    return done(err, &se,
                sc_asg_record_lifecycle_action_heartbeat(
                    sc_world_asg(ctx->world), api_str(in, "AutoScalingGroupName"),
                    api_str(in, "LifecycleHookName"), api_str(in, "LifecycleActionToken"),
                    api_str(in, "InstanceId"), ctx->now_ms, &se));
}

/* ---- instance protection ------------------------------------------------------------- */

static int set_instance_protection(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    struct sc_error se = { 0 };
    int n;
    const char **ids = api_strings(in, "InstanceIds", &n);
    enum sc_status st = sc_asg_set_instance_protection(
        sc_world_asg(ctx->world), api_str(in, "AutoScalingGroupName"), ids, n,
        api_bool(in, "ProtectedFromScaleIn", 0), ctx->now_ms, &se);

    free(ids);
    *out = NULL;
    return done(err, &se, st);
}

/* ---- scheduled actions --------------------------------------------------------------- */

static int ts_get(json_t *o, const char *member, int64_t *ms)
{
    json_t *v = json_object_get(o, member);

    if (!json_is_integer(v))
        return 0;
    *ms = json_integer_value(v);
    return 1;
}

/* One scheduled action request (o, borrowed) into *r; the strings stay borrowed. */
static void sched_req_get(json_t *o, const char *group, struct sc_asg_sched_req *r)
{
    memset(r, 0, sizeof(*r));
    r->auto_scaling_group_name = group;
    r->scheduled_action_name = api_str(o, "ScheduledActionName");
    r->has_start_time = ts_get(o, "StartTime", &r->start_ms) || ts_get(o, "Time", &r->start_ms);
    r->has_end_time = ts_get(o, "EndTime", &r->end_ms);
    r->recurrence = api_str(o, "Recurrence");
    r->time_zone = api_str(o, "TimeZone");
    r->has_min_size = api_int(o, "MinSize", &r->min_size);
    r->has_max_size = api_int(o, "MaxSize", &r->max_size);
    r->has_desired_capacity = api_int(o, "DesiredCapacity", &r->desired_capacity);
}

static int put_scheduled_update_group_action(struct api_ctx *ctx, json_t *in, json_t **out,
                                             struct awserr *err)
{
    struct sc_error se = { 0 };
    struct sc_asg_sched_req r;

    *out = NULL;
    sched_req_get(in, api_str(in, "AutoScalingGroupName"), &r);
    return done(err, &se,
                sc_asg_put_scheduled_action(sc_world_asg(ctx->world), &r, ctx->now_ms, &se));
}

static int delete_scheduled_action(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    struct sc_error se = { 0 };

    *out = NULL;
    return done(err, &se,
                sc_asg_delete_scheduled_action(
                    sc_world_asg(ctx->world), api_str(in, "AutoScalingGroupName"),
                    api_str(in, "ScheduledActionName"), ctx->now_ms, &se));
}

static json_t *failed_json(const char *name, const struct sc_error *se)
{
    return json_pack("{s:s,s:s,s:s}", "ScheduledActionName", name ? name : "", "ErrorCode",
                     sc_status_code(se->status), "ErrorMessage", se->message);
}

/* The group of a Batch* call must exist (the whole call fails otherwise), and the batch
 * holds at most 50 entries. */
static int batch_check(struct sc_asg *asg, const char *group, size_t n, struct awserr *err)
{
    struct sc_error se = { 0 };

    if (sc_asg_scheduled_action_count(asg, group) < 0)
        return done(err, &se, sc_asg_group_not_found(group, &se));
    if (n > SC_ASG_MAX_BATCH_SCHEDULED)
        return done(
            err, &se,
            sc_fail(
                &se, SC_ERR_VALIDATION,
                "1 validation error detected: Value at 'scheduledUpdateGroupActions' failed to satisfy constraint: Member must have length less than or equal to %d",
                SC_ASG_MAX_BATCH_SCHEDULED));
    return 0;
}

static int batch_put_scheduled_update_group_action(struct api_ctx *ctx, json_t *in, json_t **out,
                                                   struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    const char *group = api_str(in, "AutoScalingGroupName");
    json_t *reqs = json_object_get(in, "ScheduledUpdateGroupActions"), *e, *failed;
    size_t i;

    *out = NULL;
    if (batch_check(asg, group, json_array_size(reqs), err) != 0)
        return -1;
    failed = json_array();
    json_array_foreach(reqs, i, e)
    {
        struct sc_asg_sched_req r;
        struct sc_error se = { 0 };

        sched_req_get(e, group, &r);
        if (sc_asg_put_scheduled_action(asg, &r, ctx->now_ms, &se) != SC_OK)
            json_array_append_new(failed, failed_json(r.scheduled_action_name, &se));
    }
    *out = json_pack("{s:o}", "FailedScheduledUpdateGroupActions", failed);
    return 0;
}

static int batch_delete_scheduled_action(struct api_ctx *ctx, json_t *in, json_t **out,
                                         struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    const char *group = api_str(in, "AutoScalingGroupName");
    int n;
    const char **names = api_strings(in, "ScheduledActionNames", &n);
    json_t *failed;

    *out = NULL;
    if (batch_check(asg, group, (size_t)n, err) != 0) {
        free(names);
        return -1;
    }
    failed = json_array();
    for (int k = 0; k < n; k++) {
        struct sc_error se = { 0 };

        if (sc_asg_delete_scheduled_action(asg, group, names[k], ctx->now_ms, &se) != SC_OK)
            json_array_append_new(failed, failed_json(names[k], &se));
    }
    free(names);
    *out = json_pack("{s:o}", "FailedScheduledActions", failed);
    return 0;
}

static json_t *sched_json(const struct sc_asg_sched_info *s)
{
    json_t *o = json_pack("{s:s,s:s,s:s,s:I,s:I}", "AutoScalingGroupName",
                          s->auto_scaling_group_name, "ScheduledActionName",
                          s->scheduled_action_name, "ScheduledActionARN", s->scheduled_action_arn,
                          "Time", (json_int_t)s->start_ms, "StartTime", (json_int_t)s->start_ms);

    if (s->has_end_time)
        json_object_set_new(o, "EndTime", json_integer(s->end_ms));
    set_str(o, "Recurrence", s->recurrence);
    set_str(o, "TimeZone", s->time_zone);
    if (s->has_min_size)
        json_object_set_new(o, "MinSize", json_integer(s->min_size));
    if (s->has_max_size)
        json_object_set_new(o, "MaxSize", json_integer(s->max_size));
    if (s->has_desired_capacity)
        json_object_set_new(o, "DesiredCapacity", json_integer(s->desired_capacity));
    return o;
}

static int describe_scheduled_actions(struct api_ctx *ctx, json_t *in, json_t **out,
                                      struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    const char *group = api_str(in, "AutoScalingGroupName");
    int n = sc_asg_scheduled_action_count(asg, group), nn, has_from, has_to;
    const char **names = api_strings(in, "ScheduledActionNames", &nn);
    int64_t from = 0, to = 0;
    json_t *items;
    struct sc_error se = { 0 };

    *out = NULL;
    if (n < 0) {
        free(names);
        return done(err, &se, sc_asg_group_not_found(group, &se));
    }
    has_from = ts_get(in, "StartTime", &from);
    has_to = ts_get(in, "EndTime", &to);
    items = json_array();
    for (int i = 0; i < n; i++) {
        const struct sc_asg_sched_info *s = sc_asg_scheduled_action_at(asg, group, i);
        int want = nn == 0;

        for (int k = 0; k < nn && !want; k++)
            want = strcmp(names[k], s->scheduled_action_name) == 0;
        /* StartTime/EndTime: the actions whose next run is in that window */
        if (want && ((has_from && s->start_ms < from) || (has_to && s->start_ms > to)))
            want = 0;
        if (want)
            json_array_append_new(items, sched_json(s));
    }
    free(names);
    *out = json_object();
    return api_page(items, in, "NextToken", "MaxRecords", 50, 100, *out,
                    "ScheduledUpdateGroupActions", "NextToken", err);
}

/* ---- warm pools (docs/autoscaling.md 7) ------------------------------------------------ */

static int put_warm_pool(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    struct sc_asg_warm_req r = { 0 };
    json_t *reuse = json_object_get(in, "InstanceReusePolicy");

    *out = NULL;
    r.auto_scaling_group_name = api_str(in, "AutoScalingGroupName");
    r.has_max_group_prepared_capacity =
        api_int(in, "MaxGroupPreparedCapacity", &r.max_group_prepared_capacity);
    r.has_min_size = api_int(in, "MinSize", &r.min_size);
    r.pool_state = api_str(in, "PoolState");
    if (reuse && json_object_get(reuse, "ReuseOnScaleIn")) {
        r.has_reuse_on_scale_in = 1;
        r.reuse_on_scale_in = api_bool(reuse, "ReuseOnScaleIn", 0);
    } else if (reuse) {
        r.has_reuse_on_scale_in = 1; /* an empty policy: the default, terminate */
    }
    return done(err, &se, sc_asg_put_warm_pool(sc_world_asg(ctx->world), &r, ctx->now_ms, &se));
}

static int delete_warm_pool(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };

    *out = NULL;
    return done(err, &se,
                sc_asg_delete_warm_pool(sc_world_asg(ctx->world),
                                        api_str(in, "AutoScalingGroupName"),
                                        api_bool(in, "ForceDelete", 0), ctx->now_ms, &se));
}

static json_t *warm_config_json(const struct sc_asg_warm_info *w)
{
    json_t *o = json_object();

    if (w->has_max_group_prepared_capacity)
        json_object_set_new(o, "MaxGroupPreparedCapacity",
                            json_integer(w->max_group_prepared_capacity));
    json_object_set_new(o, "MinSize", json_integer(w->min_size));
    json_object_set_new(o, "PoolState", json_string(sc_asg_pool_state_str(w->pool_state)));
    if (w->pending_delete)
        json_object_set_new(o, "Status", json_string("PendingDelete"));
    if (w->has_reuse_on_scale_in)
        json_object_set_new(o, "InstanceReusePolicy",
                            json_pack("{s:b}", "ReuseOnScaleIn", w->reuse_on_scale_in));
    return o;
}

void api_asg_warm_json(const struct sc_asg_group_info *g, json_t *o)
{
    const struct sc_asg_warm_info *w = sc_asg_warm_pool(g);

    if (!w)
        return;
    json_object_set_new(o, "WarmPoolConfiguration", warm_config_json(w));
    json_object_set_new(o, "WarmPoolSize", json_integer(sc_asg_warm_pool_size(g)));
}

/* One pool instance as the model's Instance shape. */
static json_t *warm_instance_json(const struct sc_asg_instance_info *ii)
{
    json_t *io = json_pack("{s:s,s:s,s:s,s:s,s:b}", "InstanceId", ii->instance_id,
                           "AvailabilityZone", ii->availability_zone, "LifecycleState",
                           sc_asg_lifecycle_str(ii->lifecycle_state), "HealthStatus",
                           sc_asg_health_str(ii->healthy), "ProtectedFromScaleIn",
                           ii->protected_from_scale_in);

    set_str(io, "InstanceType", ii->instance_type);
    set_str(io, "LaunchConfigurationName", ii->launch_configuration_name);
    if (ii->launch_template_id || ii->launch_template_name) {
        json_t *lt = json_object();

        set_str(lt, "LaunchTemplateId", ii->launch_template_id);
        set_str(lt, "LaunchTemplateName", ii->launch_template_name);
        set_str(lt, "Version", ii->launch_template_version);
        json_object_set_new(io, "LaunchTemplate", lt);
    }
    return io;
}

static int describe_warm_pool(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    const char *group = api_str(in, "AutoScalingGroupName");
    const struct sc_asg_group_info *g = sc_asg_group_find(asg, group);
    const struct sc_asg_warm_info *w;
    struct sc_error se = { 0 };
    json_t *items;

    *out = NULL;
    if (!g || g->status)
        return done(err, &se, sc_asg_group_not_found(group, &se));
    w = sc_asg_warm_pool(g);
    items = json_array();
    for (int i = 0; i < sc_asg_group_instance_count(g); i++) {
        const struct sc_asg_instance_info *ii = sc_asg_group_instance_at(g, i);

        if (sc_asg_lifecycle_is_warmed(ii->lifecycle_state) &&
            ii->lifecycle_state != SC_ASG_WARMED_TERMINATED)
            json_array_append_new(items, warm_instance_json(ii));
    }
    *out = json_object();
    if (w)
        json_object_set_new(*out, "WarmPoolConfiguration", warm_config_json(w));
    return api_page(items, in, "NextToken", "MaxRecords", SC_ASG_WARM_MAX_RECORDS,
                    SC_ASG_WARM_MAX_RECORDS, *out, "Instances", "NextToken", err);
}

const struct api_handler api_autoscaling_hook_handlers[] = {
    { "BatchDeleteScheduledAction", batch_delete_scheduled_action, API_MUTATES },
    { "BatchPutScheduledUpdateGroupAction", batch_put_scheduled_update_group_action, API_MUTATES },
    { "CompleteLifecycleAction", complete_lifecycle_action, API_MUTATES },
    { "DeleteLifecycleHook", delete_lifecycle_hook, API_MUTATES },
    { "DeleteScheduledAction", delete_scheduled_action, API_MUTATES },
    { "DeleteWarmPool", delete_warm_pool, API_MUTATES },
    { "DescribeLifecycleHooks", describe_lifecycle_hooks, 0 },
    { "DescribeScheduledActions", describe_scheduled_actions, 0 },
    { "DescribeWarmPool", describe_warm_pool, 0 },
    { "PutLifecycleHook", put_lifecycle_hook, API_MUTATES },
    { "PutScheduledUpdateGroupAction", put_scheduled_update_group_action, API_MUTATES },
    { "PutWarmPool", put_warm_pool, API_MUTATES },
    { "RecordLifecycleActionHeartbeat", record_lifecycle_action_heartbeat, API_MUTATES },
    { "SetInstanceProtection", set_instance_protection, API_MUTATES },
    { NULL, NULL, 0 },
};
