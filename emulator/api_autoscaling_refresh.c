/* emulator/api_autoscaling_refresh.c: Start/Cancel/Rollback/DescribeInstanceRefreshes (see
 * api_autoscaling_refresh.h). IR in -> one sc_asg call -> IR out; every rule and message is
 * the library's (docs/autoscaling.md section 8). */
#include "emulator/api_autoscaling_refresh.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/asg.h"
#include "scaler/asg_refresh.h"
#include "scaler/world.h"

static int done(struct awserr *err, const struct sc_error *se, enum sc_status st)
{
    return st == SC_OK ? 0 : awserr_from_sc(err, se);
}

static json_t *id_answer(const char *id)
{
    return json_pack("{s:s}", "InstanceRefreshId", id);
}

static int start_instance_refresh(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    struct sc_asg_refresh_req q;
    json_t *dc = json_object_get(in, "DesiredConfiguration");
    json_t *lt = json_object_get(dc, "LaunchTemplate");
    json_t *p = json_object_get(in, "Preferences");
    json_t *cps = json_object_get(p, "CheckpointPercentages");
    int *cp = NULL, ncp = (int)json_array_size(cps), rc;
    const char *id = NULL;
    enum sc_status st;

    *out = NULL;
    memset(&q, 0, sizeof(q));
    q.auto_scaling_group_name = api_str(in, "AutoScalingGroupName");
    q.strategy = api_str(in, "Strategy");
    q.has_desired_launch_template = json_is_object(lt);
    q.launch_template_id = api_str(lt, "LaunchTemplateId");
    q.launch_template_name = api_str(lt, "LaunchTemplateName");
    q.launch_template_version = api_str(lt, "Version");
    q.has_desired_mixed_instances_policy = json_object_get(dc, "MixedInstancesPolicy") != NULL;
    q.has_min_healthy_percentage = api_int(p, "MinHealthyPercentage", &q.min_healthy_percentage);
    q.has_max_healthy_percentage = api_int(p, "MaxHealthyPercentage", &q.max_healthy_percentage);
    q.has_instance_warmup = api_int(p, "InstanceWarmup", &q.instance_warmup);
    if (ncp > 0) {
        cp = cm_xcalloc((size_t)ncp, sizeof(*cp));
        for (int k = 0; k < ncp; k++)
            cp[k] = (int)json_integer_value(json_array_get(cps, (size_t)k));
    }
    q.checkpoint_percentages = cp;
    q.ncheckpoint_percentages = ncp;
    q.has_checkpoint_delay = api_int(p, "CheckpointDelay", &q.checkpoint_delay);
    q.has_skip_matching = json_object_get(p, "SkipMatching") != NULL;
    q.skip_matching = api_bool(p, "SkipMatching", 0);
    q.has_auto_rollback = json_object_get(p, "AutoRollback") != NULL;
    q.auto_rollback = api_bool(p, "AutoRollback", 0);
    q.scale_in_protected_instances = api_str(p, "ScaleInProtectedInstances");
    q.standby_instances = api_str(p, "StandbyInstances");
    q.has_alarm_specification = json_object_get(p, "AlarmSpecification") != NULL;
    q.has_bake_time = api_int(p, "BakeTime", &q.bake_time);
    st = sc_asg_start_instance_refresh(sc_world_asg(ctx->world), &q, ctx->now_ms, &id, &se);
    free(cp);
    rc = done(err, &se, st);
    if (rc == 0)
        *out = id_answer(id);
    return rc;
}

static int cancel_instance_refresh(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    struct sc_error se = { 0 };
    const char *id = NULL;
    int rc = done(err, &se,
                  sc_asg_cancel_instance_refresh(
                      sc_world_asg(ctx->world), api_str(in, "AutoScalingGroupName"),
                      api_bool(in, "WaitForTransitioningInstances", 1), ctx->now_ms, &id, &se));

    *out = rc == 0 ? id_answer(id) : NULL;
    return rc;
}

static int rollback_instance_refresh(struct api_ctx *ctx, json_t *in, json_t **out,
                                     struct awserr *err)
{
    struct sc_error se = { 0 };
    const char *id = NULL;
    int rc = done(err, &se,
                  sc_asg_rollback_instance_refresh(sc_world_asg(ctx->world),
                                                   api_str(in, "AutoScalingGroupName"), ctx->now_ms,
                                                   &id, &se));

    *out = rc == 0 ? id_answer(id) : NULL;
    return rc;
}

static json_t *progress_json(int pct, int itu)
{
    return json_pack("{s:{s:i,s:i}}", "LivePoolProgress", "PercentageComplete", pct,
                     "InstancesToUpdate", itu);
}

static json_t *refresh_json(const struct sc_asg_refresh_info *r)
{
    const struct sc_asg_refresh_prefs *p = &r->prefs;
    json_t *o = json_object(), *pr = json_object();

    json_object_set_new(o, "InstanceRefreshId", json_string(r->instance_refresh_id));
    json_object_set_new(o, "AutoScalingGroupName", json_string(r->auto_scaling_group_name));
    json_object_set_new(o, "Status", json_string(sc_asg_refresh_status_str(r->status)));
    if (r->status_reason[0])
        json_object_set_new(o, "StatusReason", json_string(r->status_reason));
    json_object_set_new(o, "StartTime", json_integer(r->start_ms));
    if (r->end_ms)
        json_object_set_new(o, "EndTime", json_integer(r->end_ms));
    json_object_set_new(o, "PercentageComplete", json_integer(r->percentage_complete));
    json_object_set_new(o, "InstancesToUpdate", json_integer(r->instances_to_update));
    json_object_set_new(o, "ProgressDetails",
                        progress_json(r->percentage_complete, r->instances_to_update));
    json_object_set_new(pr, "MinHealthyPercentage", json_integer(p->min_healthy_percentage));
    json_object_set_new(pr, "MaxHealthyPercentage", json_integer(p->max_healthy_percentage));
    json_object_set_new(pr, "InstanceWarmup", json_integer(p->instance_warmup));
    if (p->ncheckpoint_percentages > 0) {
        json_t *a = json_array();

        for (int k = 0; k < p->ncheckpoint_percentages; k++)
            json_array_append_new(a, json_integer(p->checkpoint_percentages[k]));
        json_object_set_new(pr, "CheckpointPercentages", a);
        json_object_set_new(pr, "CheckpointDelay", json_integer(p->checkpoint_delay));
    }
    json_object_set_new(pr, "SkipMatching", json_boolean(p->skip_matching));
    json_object_set_new(pr, "AutoRollback", json_boolean(p->auto_rollback));
    json_object_set_new(pr, "ScaleInProtectedInstances",
                        json_string(p->scale_in_protected_instances));
    json_object_set_new(pr, "StandbyInstances", json_string(p->standby_instances));
    json_object_set_new(pr, "BakeTime", json_integer(p->bake_time));
    json_object_set_new(o, "Preferences", pr);
    if (r->has_desired) {
        json_t *lt = json_object();

        if (r->desired_launch_template_id)
            json_object_set_new(lt, "LaunchTemplateId", json_string(r->desired_launch_template_id));
        if (r->desired_launch_template_name)
            json_object_set_new(lt, "LaunchTemplateName",
                                json_string(r->desired_launch_template_name));
        if (r->desired_launch_template_version)
            json_object_set_new(lt, "Version", json_string(r->desired_launch_template_version));
        json_object_set_new(o, "DesiredConfiguration", json_pack("{s:o}", "LaunchTemplate", lt));
    }
    if (r->has_rollback) {
        json_t *rb = json_object();

        json_object_set_new(rb, "RollbackReason", json_string(r->rollback_reason));
        json_object_set_new(rb, "RollbackStartTime", json_integer(r->rollback_start_ms));
        json_object_set_new(rb, "PercentageCompleteOnRollback",
                            json_integer(r->percentage_complete_on_rollback));
        json_object_set_new(rb, "InstancesToUpdateOnRollback",
                            json_integer(r->instances_to_update_on_rollback));
        json_object_set_new(
            rb, "ProgressDetailsOnRollback",
            progress_json(r->percentage_complete_on_rollback, r->instances_to_update_on_rollback));
        json_object_set_new(o, "RollbackDetails", rb);
    }
    json_object_set_new(o, "Strategy", json_string(r->strategy));
    return o;
}

static int describe_instance_refreshes(struct api_ctx *ctx, json_t *in, json_t **out,
                                       struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    const char *group = api_str(in, "AutoScalingGroupName");
    int n = sc_asg_instance_refresh_count(asg, group), nids;
    const char **ids = api_strings(in, "InstanceRefreshIds", &nids);
    struct sc_error se = { 0 };
    json_t *items;

    *out = NULL;
    if (n < 0) {
        free(ids);
        return done(err, &se, sc_asg_group_not_found(group, &se));
    }
    items = json_array();
    for (int i = 0; i < n; i++) {
        const struct sc_asg_refresh_info *r = sc_asg_instance_refresh_at(asg, group, i);
        int want = nids == 0;

        for (int k = 0; k < nids && !want; k++)
            want = strcmp(ids[k], r->instance_refresh_id) == 0;
        if (want)
            json_array_append_new(items, refresh_json(r));
    }
    free(ids);
    *out = json_object();
    return api_page(items, in, "NextToken", "MaxRecords", 50, 100, *out, "InstanceRefreshes",
                    "NextToken", err);
}

const struct api_handler api_autoscaling_refresh_handlers[] = {
    { "CancelInstanceRefresh", cancel_instance_refresh, API_MUTATES },
    { "DescribeInstanceRefreshes", describe_instance_refreshes, 0 },
    { "RollbackInstanceRefresh", rollback_instance_refresh, API_MUTATES },
    { "StartInstanceRefresh", start_instance_refresh, API_MUTATES },
    { NULL, NULL, 0 },
};
