/* emulator/api_autoscaling.c: Auto Scaling handlers over scaler/asg.h (IR in -> one
 * sc_asg call -> IR out) of the catalogues, launch configurations and groups, and the
 * helpers the other api_autoscaling_*.c files share (api_autoscaling_internal.h). Every
 * rule and message is the library's. */
#include "emulator/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "emulator/api_autoscaling_hooks.h"
#include "emulator/api_autoscaling_internal.h"
#include "emulator/api_autoscaling_notify.h"
#include "emulator/api_autoscaling_predict.h"
#include "scaler/alarm.h"
#include "scaler/asg.h"
#include "scaler/asg_warm.h"
#include "scaler/civil.h"
#include "scaler/world.h"

#define UNUSED(x) (void)(x)

int api_asg_done(struct awserr *err, const struct sc_error *se, enum sc_status st)
{
    return st == SC_OK ? 0 : awserr_from_sc(err, se);
}

int api_asg_page_out(json_t *items, json_t *in, int def_limit, int max_limit, json_t **out,
                     const char *key, struct awserr *err)
{
    *out = json_object();
    return api_page(items, in, "NextToken", "MaxRecords", def_limit, max_limit, *out, key,
                    "NextToken", err);
}

static json_t *strs_json(char **v, int n)
{
    json_t *a = json_array();

    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

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

void api_asg_set_str(json_t *o, const char *k, const char *v)
{
    if (v)
        json_object_set_new(o, k, json_string(v));
}

int api_asg_in_list(const char *const *v, int n, const char *s)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(v[i], s) == 0)
            return 1;
    }
    return 0;
}

/* ---- lookups ------------------------------------------------------------------------- */

#define LOOKUP(fname, body)                                                                        \
    static int fname(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)            \
    {                                                                                              \
        UNUSED(ctx);                                                                               \
        UNUSED(in);                                                                                \
        UNUSED(err);                                                                               \
        *out = body;                                                                               \
        return 0;                                                                                  \
    }

LOOKUP(describe_adjustment_types,
       json_pack("{s:o}", "AdjustmentTypes", list_of(sc_asg_adjustment_types(), "AdjustmentType")))
LOOKUP(describe_scaling_process_types,
       json_pack("{s:o}", "Processes", list_of(sc_asg_scaling_process_types(), "ProcessName")))
LOOKUP(describe_termination_policy_types,
       json_pack("{s:o}", "TerminationPolicyTypes",
                 list_of(sc_asg_termination_policy_types(), NULL)))
LOOKUP(describe_metric_collection_types,
       json_pack("{s:o,s:o}", "Metrics", list_of(sc_asg_metric_collection_types(), "Metric"),
                 "Granularities", list_of(sc_asg_metric_granularity_types(), "Granularity")))
LOOKUP(describe_lifecycle_hook_types,
       json_pack("{s:o}", "LifecycleHookTypes", list_of(sc_asg_lifecycle_hook_types(), NULL)))
LOOKUP(describe_notification_types, json_pack("{s:o}", "AutoScalingNotificationTypes",
                                              list_of(sc_asg_notification_types(), NULL)))

static int describe_account_limits(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_asg_account_limits l;

    UNUSED(in);
    UNUSED(err);
    sc_asg_account_limits(asg, &l);
    *out = json_pack("{s:i,s:i,s:i,s:i}", "MaxNumberOfAutoScalingGroups",
                     l.max_number_of_auto_scaling_groups, "MaxNumberOfLaunchConfigurations",
                     l.max_number_of_launch_configurations, "NumberOfAutoScalingGroups",
                     l.number_of_auto_scaling_groups, "NumberOfLaunchConfigurations",
                     l.number_of_launch_configurations);
    return 0;
}

/* ---- launch configurations ---------------------------------------------------------------- */

/* The CreateLaunchConfiguration members the library reads one by one; every other one goes
 * to sc_asg_lc_req.other as sent. InstanceId (the instance the configuration derives
 * from) is not a stored member. */
static const char *const lc_typed[] = { "LaunchConfigurationName",
                                        "ImageId",
                                        "InstanceType",
                                        "KeyName",
                                        "UserData",
                                        "IamInstanceProfile",
                                        "SecurityGroups",
                                        "InstanceMonitoring",
                                        "AssociatePublicIpAddress",
                                        "InstanceId",
                                        NULL };

static int create_launch_configuration(struct api_ctx *ctx, json_t *in, json_t **out,
                                       struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_asg_lc_req rq;
    struct sc_error se = { 0 };
    json_t *mon = json_object_get(in, "InstanceMonitoring");
    json_t *other;
    int rc = 0;

    memset(&rq, 0, sizeof(rq));
    rq.launch_configuration_name = api_str(in, "LaunchConfigurationName");
    rq.image_id = api_str(in, "ImageId");
    rq.instance_type = api_str(in, "InstanceType");
    rq.instance_id = api_str(in, "InstanceId");
    rq.key_name = api_str(in, "KeyName");
    rq.user_data = api_str(in, "UserData");
    rq.iam_instance_profile = api_str(in, "IamInstanceProfile");
    rq.security_groups = api_strings(in, "SecurityGroups", &rq.nsecurity_groups);
    if (json_is_boolean(json_object_get(mon, "Enabled"))) {
        rq.has_instance_monitoring = 1;
        rq.instance_monitoring = api_bool(mon, "Enabled", 1);
    }
    if (json_is_boolean(json_object_get(in, "AssociatePublicIpAddress"))) {
        rq.has_associate_public_ip_address = 1;
        rq.associate_public_ip_address = api_bool(in, "AssociatePublicIpAddress", 0);
    }
    other = json_deep_copy(in);
    for (int i = 0; lc_typed[i]; i++)
        json_object_del(other, lc_typed[i]);
    rq.other = other;
    if (sc_asg_create_launch_configuration(asg, &rq, ctx->now_ms, &se) != SC_OK)
        rc = awserr_from_sc(err, &se);
    free((void *)rq.security_groups);
    json_decref(other);
    *out = NULL;
    return rc;
}

static json_t *lc_json(const struct sc_asg_lc_info *lc)
{
    json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:o,s:I,s:[],s:{s:b},s:[],s:s,s:s,s:b}",
                          "LaunchConfigurationName", lc->launch_configuration_name,
                          "LaunchConfigurationARN", lc->launch_configuration_arn, "ImageId",
                          lc->image_id, "InstanceType", lc->instance_type, "SecurityGroups",
                          strs_json(lc->security_groups, lc->nsecurity_groups), "CreatedTime",
                          (json_int_t)lc->created_ms, "BlockDeviceMappings", "InstanceMonitoring",
                          "Enabled", lc->instance_monitoring, "ClassicLinkVPCSecurityGroups",
                          "KernelId", "", "RamdiskId", "", "EbsOptimized", 0);

    if (lc->other) /* as sent, over the defaults above */
        json_object_update(o, lc->other);
    json_object_set_new(o, "UserData", json_string(lc->user_data ? lc->user_data : ""));
    /* "" when none, as KernelId and RamdiskId (community.aws's
     * autoscaling_launch_config_find reads the three unconditionally) */
    json_object_set_new(o, "KeyName", json_string(lc->key_name ? lc->key_name : ""));
    api_asg_set_str(o, "IamInstanceProfile", lc->iam_instance_profile);
    if (lc->has_associate_public_ip_address)
        json_object_set_new(o, "AssociatePublicIpAddress",
                            json_boolean(lc->associate_public_ip_address));
    return o;
}

static int describe_launch_configurations(struct api_ctx *ctx, json_t *in, json_t **out,
                                          struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    const char **names;
    int nn;
    json_t *items = json_array();

    names = api_strings(in, "LaunchConfigurationNames", &nn);
    for (int i = 0; i < sc_asg_lc_count(asg); i++) {
        const struct sc_asg_lc_info *lc = sc_asg_lc_at(asg, i);

        if (nn == 0 || api_asg_in_list(names, nn, lc->launch_configuration_name))
            json_array_append_new(items, lc_json(lc));
    }
    free(names);
    return api_asg_page_out(items, in, 50, 100, out, "LaunchConfigurations", err);
}

static int delete_launch_configuration(struct api_ctx *ctx, json_t *in, json_t **out,
                                       struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };

    *out = NULL;
    return api_asg_done(err, &se,
                        sc_asg_delete_launch_configuration(
                            asg, api_str(in, "LaunchConfigurationName"), ctx->now_ms, &se));
}

/* ---- groups ------------------------------------------------------------------------------------
 */

struct group_req {
    struct sc_asg_group_req rq;
    struct sc_asg_tag_req *tags;
    struct sc_asg_mixed_req mixed;
    struct sc_asg_override_req *overrides;
    struct sc_asg_traffic_source *sources;
};

void api_asg_tag_reqs_get(json_t *tags, struct sc_asg_tag_req *t)
{
    size_t i;
    json_t *e;

    json_array_foreach(tags, i, e)
    {
        t[i].resource_id = api_str(e, "ResourceId");
        t[i].resource_type = api_str(e, "ResourceType");
        t[i].key = api_str(e, "Key");
        t[i].value = api_str(e, "Value");
        t[i].propagate_at_launch = api_bool(e, "PropagateAtLaunch", 0);
    }
}

/* MixedInstancesPolicy (mip, an object) into g->mixed; the strings stay borrowed. */
static void mixed_req_get(json_t *mip, struct group_req *g)
{
    struct sc_asg_mixed_req *m = &g->mixed;
    json_t *lt = json_object_get(mip, "LaunchTemplate");
    json_t *spec = json_object_get(lt, "LaunchTemplateSpecification");
    json_t *ovs = json_object_get(lt, "Overrides");
    json_t *dist = json_object_get(mip, "InstancesDistribution");
    size_t i;
    json_t *e;

    m->has_launch_template_spec = json_is_object(spec);
    m->launch_template_id = api_str(spec, "LaunchTemplateId");
    m->launch_template_name = api_str(spec, "LaunchTemplateName");
    m->launch_template_version = api_str(spec, "Version");
    if (json_is_array(ovs)) {
        m->has_overrides = 1;
        g->overrides = cm_xcalloc(json_array_size(ovs) + 1, sizeof(*g->overrides));
        json_array_foreach(ovs, i, e)
        {
            struct sc_asg_override_req *o = &g->overrides[i];
            json_t *ospec = json_object_get(e, "LaunchTemplateSpecification");

            o->instance_type = api_str(e, "InstanceType");
            o->weighted_capacity = api_str(e, "WeightedCapacity");
            o->launch_template_id = api_str(ospec, "LaunchTemplateId");
            o->launch_template_name = api_str(ospec, "LaunchTemplateName");
            o->launch_template_version = api_str(ospec, "Version");
            o->has_instance_requirements = json_object_get(e, "InstanceRequirements") != NULL;
        }
        m->overrides = g->overrides;
        m->noverrides = (int)json_array_size(ovs);
    }
    m->on_demand_allocation_strategy = api_str(dist, "OnDemandAllocationStrategy");
    m->has_on_demand_base_capacity =
        api_int(dist, "OnDemandBaseCapacity", &m->on_demand_base_capacity);
    m->has_on_demand_percentage_above_base_capacity = api_int(
        dist, "OnDemandPercentageAboveBaseCapacity", &m->on_demand_percentage_above_base_capacity);
    m->spot_allocation_strategy = api_str(dist, "SpotAllocationStrategy");
    m->has_spot_instance_pools = api_int(dist, "SpotInstancePools", &m->spot_instance_pools);
    m->spot_max_price = api_str(dist, "SpotMaxPrice");
    g->rq.mixed_instances_policy = m;
}

static void group_req_get(json_t *in, struct group_req *g)
{
    struct sc_asg_group_req *rq = &g->rq;
    json_t *lt = json_object_get(in, "LaunchTemplate");
    json_t *mip = json_object_get(in, "MixedInstancesPolicy");
    json_t *tags = json_object_get(in, "Tags");
    json_t *srcs = json_object_get(in, "TrafficSources");

    memset(g, 0, sizeof(*g));
    rq->auto_scaling_group_name = api_str(in, "AutoScalingGroupName");
    rq->launch_configuration_name = api_str(in, "LaunchConfigurationName");
    if (json_is_object(mip))
        mixed_req_get(mip, g);
    rq->desired_capacity_type = api_str(in, "DesiredCapacityType");
    rq->launch_template_id = api_str(lt, "LaunchTemplateId");
    rq->launch_template_name = api_str(lt, "LaunchTemplateName");
    rq->launch_template_version = api_str(lt, "Version");
    rq->has_min_size = api_int(in, "MinSize", &rq->min_size);
    rq->has_max_size = api_int(in, "MaxSize", &rq->max_size);
    rq->has_desired_capacity = api_int(in, "DesiredCapacity", &rq->desired_capacity);
    rq->has_default_cooldown = api_int(in, "DefaultCooldown", &rq->default_cooldown);
    rq->has_default_instance_warmup =
        api_int(in, "DefaultInstanceWarmup", &rq->default_instance_warmup);
    rq->availability_zones = api_strings(in, "AvailabilityZones", &rq->navailability_zones);
    rq->vpc_zone_identifier = api_str(in, "VPCZoneIdentifier");
    rq->health_check_type = api_str(in, "HealthCheckType");
    rq->has_health_check_grace_period =
        api_int(in, "HealthCheckGracePeriod", &rq->health_check_grace_period);
    rq->load_balancer_names = api_strings(in, "LoadBalancerNames", &rq->nload_balancer_names);
    rq->target_group_arns = api_strings(in, "TargetGroupARNs", &rq->ntarget_group_arns);
    rq->termination_policies = api_strings(in, "TerminationPolicies", &rq->ntermination_policies);
    if (json_is_boolean(json_object_get(in, "NewInstancesProtectedFromScaleIn"))) {
        rq->has_new_instances_protected_from_scale_in = 1;
        rq->new_instances_protected_from_scale_in =
            api_bool(in, "NewInstancesProtectedFromScaleIn", 0);
    }
    rq->placement_group = api_str(in, "PlacementGroup");
    rq->context = api_str(in, "Context");
    rq->service_linked_role_arn = api_str(in, "ServiceLinkedRoleARN");
    rq->has_max_instance_lifetime = api_int(in, "MaxInstanceLifetime", &rq->max_instance_lifetime);
    if (json_is_boolean(json_object_get(in, "CapacityRebalance"))) {
        rq->has_capacity_rebalance = 1;
        rq->capacity_rebalance = api_bool(in, "CapacityRebalance", 0);
    }
    if (json_array_size(tags)) {
        g->tags = cm_xcalloc(json_array_size(tags), sizeof(*g->tags));
        api_asg_tag_reqs_get(tags, g->tags);
        rq->tags = g->tags;
        rq->ntags = (int)json_array_size(tags);
    }
    if (json_array_size(srcs)) {
        size_t k;
        json_t *e;

        g->sources = cm_xcalloc(json_array_size(srcs), sizeof(*g->sources));
        json_array_foreach(srcs, k, e)
        {
            g->sources[k].identifier = api_str(e, "Identifier");
            g->sources[k].type = api_str(e, "Type");
        }
        rq->traffic_sources = g->sources;
        rq->ntraffic_sources = (int)json_array_size(srcs);
    }
}

static void group_req_free(struct group_req *g)
{
    free((void *)g->rq.availability_zones);
    free((void *)g->rq.load_balancer_names);
    free((void *)g->rq.target_group_arns);
    free((void *)g->rq.termination_policies);
    free(g->tags);
    free(g->overrides);
    free(g->sources);
}

static int create_or_update_group(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err,
                                  int create)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    struct group_req g;
    enum sc_status st;

    *out = NULL;
    group_req_get(in, &g);
    if (create) {
        g.rq.instance_id = api_str(in, "InstanceId");
        json_t *ih = json_object_get(in, "LifecycleHookSpecificationList");
        size_t nh = json_array_size(ih), i;
        struct sc_asg_hook_req *hr = cm_xcalloc(nh + 1, sizeof(*hr));
        json_t *e;

        json_array_foreach(ih, i, e)
        {
            api_asg_hook_req_get(e, &hr[i]);
        }
        st = sc_asg_create_group_with_hooks(asg, &g.rq, hr, (int)nh, ctx->now_ms, &se);
        free(hr);
    } else
        st = sc_asg_update_group(asg, &g.rq, ctx->now_ms, &se);
    group_req_free(&g);
    return api_asg_done(err, &se, st);
}

static int create_auto_scaling_group(struct api_ctx *ctx, json_t *in, json_t **out,
                                     struct awserr *err)
{
    return create_or_update_group(ctx, in, out, err, 1);
}

static int update_auto_scaling_group(struct api_ctx *ctx, json_t *in, json_t **out,
                                     struct awserr *err)
{
    return create_or_update_group(ctx, in, out, err, 0);
}

/* A LaunchTemplateSpecification: id and name as the library resolved them, Version only
 * when it was given (docs/autoscaling.md 1). */
static json_t *lt_spec_json(const char *id, const char *name, const char *version)
{
    json_t *o = json_object();

    api_asg_set_str(o, "LaunchTemplateId", id);
    api_asg_set_str(o, "LaunchTemplateName", name);
    api_asg_set_str(o, "Version", version);
    return o;
}

static json_t *mixed_json(const struct sc_asg_group_info *g)
{
    const struct sc_asg_mixed_info *m = &g->mixed;
    json_t *ovs = json_array(), *dist = json_object();

    for (int k = 0; k < m->noverrides; k++) {
        const struct sc_asg_override_info *ov = &m->overrides[k];
        json_t *o = json_object();

        api_asg_set_str(o, "InstanceType", ov->instance_type);
        api_asg_set_str(o, "WeightedCapacity", ov->weighted_capacity);
        if (ov->launch_template_id || ov->launch_template_name)
            json_object_set_new(o, "LaunchTemplateSpecification",
                                lt_spec_json(ov->launch_template_id, ov->launch_template_name,
                                             ov->launch_template_version));
        json_array_append_new(ovs, o);
    }
    api_asg_set_str(dist, "OnDemandAllocationStrategy", m->on_demand_allocation_strategy);
    json_object_set_new(dist, "OnDemandBaseCapacity", json_integer(m->on_demand_base_capacity));
    json_object_set_new(dist, "OnDemandPercentageAboveBaseCapacity",
                        json_integer(m->on_demand_percentage_above_base_capacity));
    api_asg_set_str(dist, "SpotAllocationStrategy", m->spot_allocation_strategy);
    if (m->has_spot_instance_pools)
        json_object_set_new(dist, "SpotInstancePools", json_integer(m->spot_instance_pools));
    api_asg_set_str(dist, "SpotMaxPrice", m->spot_max_price);
    return json_pack(
        "{s:{s:o,s:o},s:o}", "LaunchTemplate", "LaunchTemplateSpecification",
        lt_spec_json(g->launch_template_id, g->launch_template_name, g->launch_template_version),
        "Overrides", ovs, "InstancesDistribution", dist);
}

json_t *api_asg_tag_json(const char *group, const struct sc_asg_tag *t)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:b}", "ResourceId", group, "ResourceType",
                     "auto-scaling-group", "Key", t->key, "Value", t->value ? t->value : "",
                     "PropagateAtLaunch", t->propagate_at_launch);
}

json_t *api_asg_instance_json(const struct sc_asg_instance_info *ii, const char *group,
                              int weighted, const char *(*health_str)(int healthy))
{
    json_t *io = json_pack("{s:s}", "InstanceId", ii->instance_id);

    api_asg_set_str(io, "AutoScalingGroupName", group);
    json_object_set_new(io, "AvailabilityZone", json_string(ii->availability_zone));
    json_object_set_new(io, "LifecycleState",
                        json_string(sc_asg_lifecycle_str(ii->lifecycle_state)));
    json_object_set_new(io, "HealthStatus", json_string(health_str(ii->healthy)));
    json_object_set_new(io, "ProtectedFromScaleIn", json_boolean(ii->protected_from_scale_in));
    api_asg_set_str(io, "InstanceType", ii->instance_type);
    api_asg_set_str(io, "LaunchConfigurationName", ii->launch_configuration_name);
    if (ii->launch_template_id || ii->launch_template_name)
        json_object_set_new(io, "LaunchTemplate",
                            lt_spec_json(ii->launch_template_id, ii->launch_template_name,
                                         ii->launch_template_version));
    if (weighted) {
        char w[16];

        snprintf(w, sizeof(w), "%d", ii->weight);
        json_object_set_new(io, "WeightedCapacity", json_string(w));
    }
    return io;
}

static json_t *group_json(const struct sc_asg_group_info *g, const char *account)
{
    json_t *o = json_object();
    json_t *inst = json_array(), *susp = json_array(), *met = json_array(), *tags = json_array();

    api_asg_set_str(o, "AutoScalingGroupName", g->auto_scaling_group_name);
    api_asg_set_str(o, "AutoScalingGroupARN", g->auto_scaling_group_arn);
    api_asg_set_str(o, "LaunchConfigurationName", g->launch_configuration_name);
    if (g->mixed_instances_policy)
        json_object_set_new(o, "MixedInstancesPolicy", mixed_json(g));
    else if (g->launch_template_id || g->launch_template_name)
        json_object_set_new(o, "LaunchTemplate",
                            lt_spec_json(g->launch_template_id, g->launch_template_name,
                                         g->launch_template_version));
    json_object_set_new(o, "MinSize", json_integer(g->min_size));
    json_object_set_new(o, "MaxSize", json_integer(g->max_size));
    json_object_set_new(o, "DesiredCapacity", json_integer(g->desired_capacity));
    json_object_set_new(o, "DefaultCooldown", json_integer(g->default_cooldown));
    json_object_set_new(o, "AvailabilityZones",
                        strs_json(g->availability_zones, g->navailability_zones));
    json_object_set_new(o, "LoadBalancerNames",
                        strs_json(g->load_balancer_names, g->nload_balancer_names));
    json_object_set_new(o, "TargetGroupARNs",
                        strs_json(g->target_group_arns, g->ntarget_group_arns));
    api_asg_set_str(o, "HealthCheckType", g->health_check_type);
    json_object_set_new(o, "HealthCheckGracePeriod", json_integer(g->health_check_grace_period));
    for (int i = 0; i < sc_asg_group_instance_count(g); i++) /* the warm pool's: not here */
        if (!sc_asg_lifecycle_is_warmed(sc_asg_group_instance_at(g, i)->lifecycle_state))
            json_array_append_new(inst,
                                  api_asg_instance_json(sc_asg_group_instance_at(g, i), NULL,
                                                        g->mixed.weighted, sc_asg_health_str));
    json_object_set_new(o, "Instances", inst);
    api_asg_warm_json(g, o); /* WarmPoolConfiguration, WarmPoolSize */
    json_object_set_new(o, "CreatedTime", json_integer(g->created_ms));
    for (int p = 0; p < SC_ASG_PROC_COUNT; p++) {
        char reason[96], iso[40];

        if (!(g->suspended & (1u << p)))
            continue;
        sc_civil_format_iso_ms(g->suspended_ms[p], iso, sizeof(iso));
        snprintf(reason, sizeof(reason), "User suspended at %.19sZ", iso);
        json_array_append_new(susp, json_pack("{s:s,s:s}", "ProcessName",
                                              sc_asg_process_str((enum sc_asg_process)p),
                                              "SuspensionReason", reason));
    }
    json_object_set_new(o, "SuspendedProcesses", susp);
    api_asg_set_str(o, "VPCZoneIdentifier",
                    g->vpc_zone_identifier && *g->vpc_zone_identifier ? g->vpc_zone_identifier
                                                                      : NULL);
    for (int m = 0; m < SC_ASG_METRIC_COUNT; m++) {
        if (g->metrics_enabled & (1u << m))
            json_array_append_new(met, json_pack("{s:s,s:s}", "Metric", sc_asg_metric_str(m),
                                                 "Granularity", "1Minute"));
    }
    json_object_set_new(o, "EnabledMetrics", met);
    api_asg_set_str(o, "Status", g->status);
    for (int t = 0; t < g->ntags; t++)
        json_array_append_new(tags, api_asg_tag_json(g->auto_scaling_group_name, &g->tags[t]));
    json_object_set_new(o, "Tags", tags);
    json_object_set_new(o, "TerminationPolicies",
                        strs_json(g->termination_policies, g->ntermination_policies));
    json_object_set_new(o, "NewInstancesProtectedFromScaleIn",
                        json_boolean(g->new_instances_protected_from_scale_in));
    json_object_set_new(o, "CapacityRebalance", json_boolean(g->capacity_rebalance));
    if (g->has_max_instance_lifetime)
        json_object_set_new(o, "MaxInstanceLifetime", json_integer(g->max_instance_lifetime));
    if (g->has_default_instance_warmup)
        json_object_set_new(o, "DefaultInstanceWarmup", json_integer(g->default_instance_warmup));
    api_asg_set_str(o, "DesiredCapacityType", g->desired_capacity_type);
    json_object_set_new(o, "TrafficSources", json_array());
    api_asg_set_str(o, "PlacementGroup", g->placement_group);
    api_asg_set_str(o, "Context", g->context);
    if (g->service_linked_role_arn)
        json_object_set_new(o, "ServiceLinkedRoleARN", json_string(g->service_linked_role_arn));
    else
        json_object_set_new(o, "ServiceLinkedRoleARN",
                            json_sprintf("arn:aws:iam::%s:role/aws-service-role/"
                                         "autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling",
                                         account));
    return o;
}

static int describe_auto_scaling_groups(struct api_ctx *ctx, json_t *in, json_t **out,
                                        struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    const char **names;
    int nn, nf;
    json_t *items;
    size_t first, limit;
    struct sc_asg_filter *f = api_asg_filters(in, &nf);
    struct sc_error se = { 0 };

    if (sc_asg_filters_check(f, nf, &se) != SC_OK) {
        api_asg_filters_free(f, nf);
        return awserr_from_sc(err, &se);
    }
    items = json_array();
    names = api_strings(in, "AutoScalingGroupNames", &nn);
    /* only the page is serialized: the rest keeps its place as null (bench: 100 groups,
     * 50 a page, half the CPU per request) */
    api_page_window(in, "NextToken", "MaxRecords", 50, 100, &first, &limit);
    for (int i = 0; i < sc_asg_group_count(asg); i++) {
        const struct sc_asg_group_info *g = sc_asg_group_at(asg, i);
        size_t k = json_array_size(items);

        if ((nn == 0 || api_asg_in_list(names, nn, g->auto_scaling_group_name)) &&
            sc_asg_group_matches_filters(g, f, nf))
            json_array_append_new(
                items, k >= first && k - first < limit ? group_json(g, ctx->account) : json_null());
    }
    free(names);
    api_asg_filters_free(f, nf);
    return api_asg_page_out(items, in, 50, 100, out, "AutoScalingGroups", err);
}

static int delete_auto_scaling_group(struct api_ctx *ctx, json_t *in, json_t **out,
                                     struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };

    *out = NULL;
    return api_asg_done(err, &se,
                        sc_asg_delete_group(asg, api_str(in, "AutoScalingGroupName"),
                                            api_bool(in, "ForceDelete", 0), ctx->now_ms, &se));
}

static int set_desired_capacity(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    int desired = 0;

    *out = NULL;
    api_int(in, "DesiredCapacity", &desired);
    return api_asg_done(err, &se,
                        sc_asg_set_desired_capacity(asg, api_str(in, "AutoScalingGroupName"),
                                                    desired, api_bool(in, "HonorCooldown", 0),
                                                    ctx->now_ms, &se));
}

const struct api_handler api_autoscaling_handlers[] = {
    { "CreateAutoScalingGroup", create_auto_scaling_group, API_MUTATES },
    { "CreateLaunchConfiguration", create_launch_configuration, API_MUTATES },
    { "DeleteAutoScalingGroup", delete_auto_scaling_group, API_MUTATES },
    { "DeleteLaunchConfiguration", delete_launch_configuration, API_MUTATES },
    { "DescribeAccountLimits", describe_account_limits, 0 },
    { "DescribeAdjustmentTypes", describe_adjustment_types, API_WORLDLESS },
    { "DescribeAutoScalingGroups", describe_auto_scaling_groups, 0 },
    { "DescribeAutoScalingNotificationTypes", describe_notification_types, API_WORLDLESS },
    { "DescribeLaunchConfigurations", describe_launch_configurations, 0 },
    { "DescribeLifecycleHookTypes", describe_lifecycle_hook_types, API_WORLDLESS },
    { "DescribeMetricCollectionTypes", describe_metric_collection_types, API_WORLDLESS },
    { "DescribeScalingProcessTypes", describe_scaling_process_types, API_WORLDLESS },
    { "DescribeTerminationPolicyTypes", describe_termination_policy_types, API_WORLDLESS },
    { "SetDesiredCapacity", set_desired_capacity, API_MUTATES },
    { "UpdateAutoScalingGroup", update_auto_scaling_group, API_MUTATES },
    { NULL, NULL, 0 },
};
