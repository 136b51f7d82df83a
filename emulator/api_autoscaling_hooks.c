/* emulator/api_autoscaling_hooks.c: Auto Scaling handlers of lifecycle hooks, instance
 * protection and scheduled actions (see api_autoscaling_hooks.h). IR in -> one sc_asg call
 * -> IR out; every rule and message is the library's. */
#include "emulator/api_autoscaling_hooks.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/asg.h"
#include "scaler/asg_protect.h"
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

const struct api_handler api_autoscaling_hook_handlers[] = {
    { "CompleteLifecycleAction", complete_lifecycle_action, API_MUTATES },
    { "DeleteLifecycleHook", delete_lifecycle_hook, API_MUTATES },
    { "DescribeLifecycleHooks", describe_lifecycle_hooks, 0 },
    { "PutLifecycleHook", put_lifecycle_hook, API_MUTATES },
    { "RecordLifecycleActionHeartbeat", record_lifecycle_action_heartbeat, API_MUTATES },
    { "SetInstanceProtection", set_instance_protection, API_MUTATES },
    { NULL, NULL, 0 },
};
