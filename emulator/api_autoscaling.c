/* emulator/api_autoscaling.c: Auto Scaling handlers over scaler/asg.h (IR in -> one
 * sc_asg call -> IR out). Every rule and message is the library's. */
#include "emulator/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "emulator/api_autoscaling_hooks.h"
#include "emulator/api_autoscaling_notify.h"
#include "emulator/api_autoscaling_predict.h"
#include "scaler/alarm.h"
#include "scaler/asg.h"
#include "scaler/asg_warm.h"
#include "scaler/civil.h"
#include "scaler/world.h"

#define UNUSED(x) (void)(x)

static int fail(struct awserr *err, const struct sc_error *se)
{
    return awserr_from_sc(err, se);
}

/* How a handler ends after its one library call (st, which filled se): 0, or the
 * library's error. */
static int done(struct awserr *err, const struct sc_error *se, enum sc_status st)
{
    return st == SC_OK ? 0 : fail(err, se);
}

/* Every Auto Scaling list pages the same way (NextToken in and out, MaxRecords): the page
 * of items (stolen) under key in a new *out. */
static int page_out(json_t *items, json_t *in, int def_limit, int max_limit, json_t **out,
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

static void set_str(json_t *o, const char *k, const char *v)
{
    if (v)
        json_object_set_new(o, k, json_string(v));
}

static int in_list(const char *const *v, int n, const char *s)
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
 * to sc_asg_lc_req.other as sent. InstanceId (a configuration derived from an instance)
 * is not a stored member. */
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
        rc = fail(err, &se);
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
    set_str(o, "IamInstanceProfile", lc->iam_instance_profile);
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

        if (nn == 0 || in_list(names, nn, lc->launch_configuration_name))
            json_array_append_new(items, lc_json(lc));
    }
    free(names);
    return page_out(items, in, 50, 100, out, "LaunchConfigurations", err);
}

static int delete_launch_configuration(struct api_ctx *ctx, json_t *in, json_t **out,
                                       struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };

    *out = NULL;
    return done(err, &se,
                sc_asg_delete_launch_configuration(asg, api_str(in, "LaunchConfigurationName"),
                                                   ctx->now_ms, &se));
}

/* ---- groups ------------------------------------------------------------------------------------
 */

struct group_req {
    struct sc_asg_group_req rq;
    struct sc_asg_tag_req *tags;
    struct sc_asg_mixed_req mixed;
    struct sc_asg_override_req *overrides;
};

/* The Tags member (CreateAutoScalingGroup, CreateOrUpdateTags, DeleteTags) into t, which
 * has room for all of them; the strings stay borrowed from tags. */
static void tag_reqs_get(json_t *tags, struct sc_asg_tag_req *t)
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
    rq->has_max_instance_lifetime = json_object_get(in, "MaxInstanceLifetime") != NULL;
    if (json_is_boolean(json_object_get(in, "CapacityRebalance"))) {
        rq->has_capacity_rebalance = 1;
        rq->capacity_rebalance = api_bool(in, "CapacityRebalance", 0);
    }
    if (json_array_size(tags)) {
        g->tags = cm_xcalloc(json_array_size(tags), sizeof(*g->tags));
        tag_reqs_get(tags, g->tags);
        rq->tags = g->tags;
        rq->ntags = (int)json_array_size(tags);
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
    return done(err, &se, st);
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

    set_str(o, "LaunchTemplateId", id);
    set_str(o, "LaunchTemplateName", name);
    set_str(o, "Version", version);
    return o;
}

static json_t *mixed_json(const struct sc_asg_group_info *g)
{
    const struct sc_asg_mixed_info *m = &g->mixed;
    json_t *ovs = json_array(), *dist = json_object();

    for (int k = 0; k < m->noverrides; k++) {
        const struct sc_asg_override_info *ov = &m->overrides[k];
        json_t *o = json_object();

        set_str(o, "InstanceType", ov->instance_type);
        set_str(o, "WeightedCapacity", ov->weighted_capacity);
        if (ov->launch_template_id || ov->launch_template_name)
            json_object_set_new(o, "LaunchTemplateSpecification",
                                lt_spec_json(ov->launch_template_id, ov->launch_template_name,
                                             ov->launch_template_version));
        json_array_append_new(ovs, o);
    }
    set_str(dist, "OnDemandAllocationStrategy", m->on_demand_allocation_strategy);
    json_object_set_new(dist, "OnDemandBaseCapacity", json_integer(m->on_demand_base_capacity));
    json_object_set_new(dist, "OnDemandPercentageAboveBaseCapacity",
                        json_integer(m->on_demand_percentage_above_base_capacity));
    set_str(dist, "SpotAllocationStrategy", m->spot_allocation_strategy);
    if (m->has_spot_instance_pools)
        json_object_set_new(dist, "SpotInstancePools", json_integer(m->spot_instance_pools));
    set_str(dist, "SpotMaxPrice", m->spot_max_price);
    return json_pack(
        "{s:{s:o,s:o},s:o}", "LaunchTemplate", "LaunchTemplateSpecification",
        lt_spec_json(g->launch_template_id, g->launch_template_name, g->launch_template_version),
        "Overrides", ovs, "InstancesDistribution", dist);
}

static json_t *tag_json(const char *group, const struct sc_asg_tag *t)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:b}", "ResourceId", group, "ResourceType",
                     "auto-scaling-group", "Key", t->key, "Value", t->value ? t->value : "",
                     "PropagateAtLaunch", t->propagate_at_launch);
}

/* An instance as DescribeAutoScalingGroups (group NULL, health "Healthy") and
 * DescribeAutoScalingInstances (its group named, health "HEALTHY") show it: the same
 * members in the same order. */
static json_t *instance_json(const struct sc_asg_instance_info *ii, const char *group, int weighted,
                             const char *(*health_str)(int healthy))
{
    json_t *io = json_pack("{s:s}", "InstanceId", ii->instance_id);

    set_str(io, "AutoScalingGroupName", group);
    json_object_set_new(io, "AvailabilityZone", json_string(ii->availability_zone));
    json_object_set_new(io, "LifecycleState",
                        json_string(sc_asg_lifecycle_str(ii->lifecycle_state)));
    json_object_set_new(io, "HealthStatus", json_string(health_str(ii->healthy)));
    json_object_set_new(io, "ProtectedFromScaleIn", json_boolean(ii->protected_from_scale_in));
    set_str(io, "InstanceType", ii->instance_type);
    set_str(io, "LaunchConfigurationName", ii->launch_configuration_name);
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

    set_str(o, "AutoScalingGroupName", g->auto_scaling_group_name);
    set_str(o, "AutoScalingGroupARN", g->auto_scaling_group_arn);
    set_str(o, "LaunchConfigurationName", g->launch_configuration_name);
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
    set_str(o, "HealthCheckType", g->health_check_type);
    json_object_set_new(o, "HealthCheckGracePeriod", json_integer(g->health_check_grace_period));
    for (int i = 0; i < sc_asg_group_instance_count(g); i++) /* the warm pool's: not here */
        if (!sc_asg_lifecycle_is_warmed(sc_asg_group_instance_at(g, i)->lifecycle_state))
            json_array_append_new(inst, instance_json(sc_asg_group_instance_at(g, i), NULL,
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
    set_str(o, "VPCZoneIdentifier",
            g->vpc_zone_identifier && *g->vpc_zone_identifier ? g->vpc_zone_identifier : NULL);
    for (int m = 0; m < SC_ASG_METRIC_COUNT; m++) {
        if (g->metrics_enabled & (1u << m))
            json_array_append_new(met, json_pack("{s:s,s:s}", "Metric", sc_asg_metric_str(m),
                                                 "Granularity", "1Minute"));
    }
    json_object_set_new(o, "EnabledMetrics", met);
    set_str(o, "Status", g->status);
    for (int t = 0; t < g->ntags; t++)
        json_array_append_new(tags, tag_json(g->auto_scaling_group_name, &g->tags[t]));
    json_object_set_new(o, "Tags", tags);
    json_object_set_new(o, "TerminationPolicies",
                        strs_json(g->termination_policies, g->ntermination_policies));
    json_object_set_new(o, "NewInstancesProtectedFromScaleIn",
                        json_boolean(g->new_instances_protected_from_scale_in));
    json_object_set_new(o, "CapacityRebalance", json_boolean(g->capacity_rebalance));
    if (g->has_default_instance_warmup)
        json_object_set_new(o, "DefaultInstanceWarmup", json_integer(g->default_instance_warmup));
    set_str(o, "DesiredCapacityType", g->desired_capacity_type);
    json_object_set_new(o, "TrafficSources", json_array());
    set_str(o, "PlacementGroup", g->placement_group);
    set_str(o, "Context", g->context);
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
        return fail(err, &se);
    }
    items = json_array();
    names = api_strings(in, "AutoScalingGroupNames", &nn);
    /* only the page is serialized: the rest keeps its place as null (bench: 100 groups,
     * 50 a page, half the CPU per request) */
    api_page_window(in, "NextToken", "MaxRecords", 50, 100, &first, &limit);
    for (int i = 0; i < sc_asg_group_count(asg); i++) {
        const struct sc_asg_group_info *g = sc_asg_group_at(asg, i);
        size_t k = json_array_size(items);

        if ((nn == 0 || in_list(names, nn, g->auto_scaling_group_name)) &&
            sc_asg_group_matches_filters(g, f, nf))
            json_array_append_new(
                items, k >= first && k - first < limit ? group_json(g, ctx->account) : json_null());
    }
    free(names);
    api_asg_filters_free(f, nf);
    return page_out(items, in, 50, 100, out, "AutoScalingGroups", err);
}

static int delete_auto_scaling_group(struct api_ctx *ctx, json_t *in, json_t **out,
                                     struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };

    *out = NULL;
    return done(err, &se,
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
    return done(err, &se,
                sc_asg_set_desired_capacity(asg, api_str(in, "AutoScalingGroupName"), desired,
                                            api_bool(in, "HonorCooldown", 0), ctx->now_ms, &se));
}

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
    set_str(o, "StatusMessage", a->status_message);
    set_str(o, "Details", a->details);
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

            if (ni && !in_list(ids, ni, ii->instance_id))
                continue;
            json_array_append_new(items, instance_json(ii, g->auto_scaling_group_name,
                                                       g->mixed.weighted, sc_asg_health_upper_str));
        }
    }
    free(ids);
    return page_out(items, in, 50, 50, out, "AutoScalingInstances", err);
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
        return fail(err, &se);
    *out = a ? json_pack("{s:o}", "Activity", activity_json(a)) : NULL;
    return 0;
}

static int set_instance_health(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };

    *out = NULL;
    return done(
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
        rc = fail(err, &se);
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
        rc = fail(err, &se);
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
        return fail(err, &se);
    }
    items = json_array();
    for (int i = 0; i < g->nload_balancer_names; i++)
        json_array_append_new(items,
                              json_pack("{s:s,s:s}", "LoadBalancerName", g->load_balancer_names[i],
                                        "State", sc_asg_load_balancer_state(asg, g, i)));
    return page_out(items, in, 100, 100, out, "LoadBalancers", err);
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
        return fail(err, &se);
    }
    items = json_array();
    for (int i = 0; i < g->ntarget_group_arns; i++)
        json_array_append_new(items, json_pack("{s:s,s:s}", "LoadBalancerTargetGroupARN",
                                               g->target_group_arns[i], "State",
                                               sc_asg_target_group_state(asg, g, i)));
    return page_out(items, in, 100, 100, out, "LoadBalancerTargetGroups", err);
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
    return st == SC_OK ? 0 : fail(err, &se);
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
        return fail(err, &se);
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
    return page_out(items, in, 50, 50, out, "TrafficSources", err);
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
    tag_reqs_get(tags, t);
    if (del)
        st = sc_asg_delete_tags(asg, t, (int)json_array_size(tags), ctx->now_ms, &se);
    else
        st = sc_asg_create_or_update_tags(asg, t, (int)json_array_size(tags), ctx->now_ms, &se);
    free(t);
    return done(err, &se, st);
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
                json_array_append_new(items, tag_json(g->auto_scaling_group_name, &g->tags[t]));
        }
    }
    return page_out(items, in, 50, 100, out, "Tags", err);
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
    return done(err, &se, st);
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

/* ---- policies
 * ------------------------------------------------------------------------------------ */

/* A policy's alarms (target tracking makes two) as PutScalingPolicy and DescribePolicies
 * return them. */
static json_t *alarms_json(const struct sc_asg_policy_info *p)
{
    json_t *alarms = json_array();

    for (int k = 0; k < 2; k++) {
        if (p->alarm_names[k])
            json_array_append_new(alarms,
                                  json_pack("{s:s,s:s}", "AlarmName", p->alarm_names[k], "AlarmARN",
                                            p->alarm_arns[k] ? p->alarm_arns[k] : ""));
    }
    return alarms;
}

static int put_scaling_policy(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    struct sc_asg_policy_req rq;
    const struct sc_asg_policy_info *p = NULL;
    json_t *steps = json_object_get(in, "StepAdjustments");
    json_t *tt = json_object_get(in, "TargetTrackingConfiguration");
    json_t *pc = json_object_get(in, "PredictiveScalingConfiguration");
    struct api_predictive pred = { 0 };
    struct sc_step_adjustment *sa = NULL;
    struct sc_asg_kv *dims = NULL;
    size_t i;
    json_t *e;
    int v, rc = 0;

    memset(&rq, 0, sizeof(rq));
    rq.auto_scaling_group_name = api_str(in, "AutoScalingGroupName");
    rq.policy_name = api_str(in, "PolicyName");
    rq.policy_type = api_str(in, "PolicyType");
    rq.adjustment_type = api_str(in, "AdjustmentType");
    if (api_int(in, "ScalingAdjustment", &v)) {
        rq.has_scaling_adjustment = 1;
        rq.scaling_adjustment = v;
    }
    if (api_int(in, "MinAdjustmentMagnitude", &v) || api_int(in, "MinAdjustmentStep", &v)) {
        rq.has_min_adjustment_magnitude = 1;
        rq.min_adjustment_magnitude = v;
        rq.min_adjustment_step = !json_object_get(in, "MinAdjustmentMagnitude");
    }
    rq.has_cooldown = api_int(in, "Cooldown", &rq.cooldown);
    rq.metric_aggregation_type = api_str(in, "MetricAggregationType");
    rq.has_estimated_instance_warmup =
        api_int(in, "EstimatedInstanceWarmup", &rq.estimated_instance_warmup);
    if (json_array_size(steps)) {
        sa = cm_xcalloc(json_array_size(steps), sizeof(*sa));
        json_array_foreach(steps, i, e)
        {
            json_t *lo = json_object_get(e, "MetricIntervalLowerBound");
            json_t *hi = json_object_get(e, "MetricIntervalUpperBound");

            sa[i].has_lower = json_is_number(lo);
            sa[i].lower = json_number_value(lo);
            sa[i].has_upper = json_is_number(hi);
            sa[i].upper = json_number_value(hi);
            sa[i].scaling_adjustment = json_integer_value(json_object_get(e, "ScalingAdjustment"));
        }
        rq.step_adjustments = sa;
        rq.nstep_adjustments = (int)json_array_size(steps);
    }
    if (tt) {
        json_t *pre = json_object_get(tt, "PredefinedMetricSpecification");
        json_t *cus = json_object_get(tt, "CustomizedMetricSpecification");
        json_t *dl = json_object_get(cus, "Dimensions");

        rq.has_target_tracking = 1;
        rq.target_tracking.predefined_metric_type = api_str(pre, "PredefinedMetricType");
        rq.target_tracking.resource_label = api_str(pre, "ResourceLabel");
        rq.target_tracking.metric_name = api_str(cus, "MetricName");
        rq.target_tracking.namespace_ = api_str(cus, "Namespace");
        rq.target_tracking.statistic = api_str(cus, "Statistic");
        rq.target_tracking.unit = api_str(cus, "Unit");
        if (json_object_get(cus, "Metrics")) {
            rq.target_tracking.has_metrics = 1;
            rq.target_tracking.metrics =
                api_alarm_queries(json_object_get(cus, "Metrics"), &rq.target_tracking.nmetrics);
        }
        if (json_array_size(dl)) {
            dims = cm_xcalloc(json_array_size(dl), sizeof(*dims));
            json_array_foreach(dl, i, e)
            {
                dims[i].key = api_str(e, "Name");
                dims[i].value = api_str(e, "Value");
            }
            rq.target_tracking.dimensions = dims;
            rq.target_tracking.ndimensions = (int)json_array_size(dl);
        }
        rq.target_tracking.target_value = json_number_value(json_object_get(tt, "TargetValue"));
        rq.target_tracking.disable_scale_in = api_bool(tt, "DisableScaleIn", 0);
    }
    if (json_is_boolean(json_object_get(in, "Enabled"))) {
        rq.has_enabled = 1;
        rq.enabled = api_bool(in, "Enabled", 1);
    }
    if (pc) {
        api_predictive_read(pc, &pred);
        rq.predictive = &pred.cfg;
    }
    if (sc_asg_put_scaling_policy(asg, &rq, ctx->now_ms, &p, &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = json_pack("{s:s,s:o}", "PolicyARN", p->policy_arn, "Alarms", alarms_json(p));
    free(sa);
    free(dims);
    api_predictive_cleanup(&pred);
    api_alarm_queries_free((struct sc_alarm_query *)rq.target_tracking.metrics,
                           rq.target_tracking.nmetrics);
    return rc;
}

/* DescribePolicies' Alarms: every alarm whose actions name the policy (the world's rule). */
static json_t *related_alarms_json(struct sc_world *w, const struct sc_asg_policy_info *p)
{
    json_t *alarms = json_array();
    int n = sc_world_policy_alarms(w, p->policy_arn, NULL, 0);
    const struct sc_alarm_view **v;

    if (n == 0)
        return alarms;
    v = cm_xcalloc((size_t)n, sizeof(*v));
    n = sc_world_policy_alarms(w, p->policy_arn, v, n);
    for (int i = 0; i < n; i++)
        json_array_append_new(alarms, json_pack("{s:s,s:s}", "AlarmName", v[i]->alarm_name,
                                                "AlarmARN", v[i]->alarm_arn));
    free(v);
    return alarms;
}

static json_t *policy_json(struct sc_world *w, const struct sc_asg_policy_info *p)
{
    json_t *o =
        json_pack("{s:s,s:s,s:s,s:s,s:b}", "AutoScalingGroupName", p->auto_scaling_group_name,
                  "PolicyName", p->policy_name, "PolicyARN", p->policy_arn, "PolicyType",
                  sc_asg_policy_type_str(p->policy_type), "Enabled", p->enabled);

    if (p->has_adjustment_type)
        json_object_set_new(o, "AdjustmentType",
                            json_string(sc_adjustment_type_str(p->adjustment_type)));
    if (p->has_scaling_adjustment)
        json_object_set_new(o, "ScalingAdjustment", json_integer(p->scaling_adjustment));
    if (p->has_min_adjustment_magnitude)
        json_object_set_new(o, "MinAdjustmentMagnitude", json_integer(p->min_adjustment_magnitude));
    if (p->has_min_adjustment_magnitude && p->min_adjustment_step)
        json_object_set_new(o, "MinAdjustmentStep", json_integer(p->min_adjustment_magnitude));
    if (p->has_cooldown)
        json_object_set_new(o, "Cooldown", json_integer(p->cooldown));
    set_str(o, "MetricAggregationType", p->metric_aggregation_type);
    if (p->has_estimated_instance_warmup)
        json_object_set_new(o, "EstimatedInstanceWarmup",
                            json_integer(p->estimated_instance_warmup));
    if (p->policy_type == SC_ASG_STEP_SCALING) {
        json_t *sa = json_array();

        for (int i = 0; i < p->nstep_adjustments; i++) {
            const struct sc_step_adjustment *s = &p->step_adjustments[i];
            json_t *so = json_pack("{s:I}", "ScalingAdjustment", (json_int_t)s->scaling_adjustment);

            if (s->has_lower)
                json_object_set_new(so, "MetricIntervalLowerBound", json_real(s->lower));
            if (s->has_upper)
                json_object_set_new(so, "MetricIntervalUpperBound", json_real(s->upper));
            json_array_append_new(sa, so);
        }
        json_object_set_new(o, "StepAdjustments", sa);
    } else {
        json_object_set_new(o, "StepAdjustments", json_array());
    }
    if (p->policy_type == SC_ASG_TARGET_TRACKING_SCALING) {
        json_t *tt = json_pack("{s:f,s:b}", "TargetValue", p->target_value, "DisableScaleIn",
                               p->disable_scale_in);

        if (p->predefined_metric_type) {
            json_t *pre = json_pack("{s:s}", "PredefinedMetricType", p->predefined_metric_type);

            set_str(pre, "ResourceLabel", p->resource_label);
            json_object_set_new(tt, "PredefinedMetricSpecification", pre);
        } else {
            json_t *cus = json_object();
            json_t *dl = json_array();

            set_str(cus, "MetricName", p->metric_name);
            set_str(cus, "Namespace", p->namespace_);
            set_str(cus, "Statistic", p->statistic);
            set_str(cus, "Unit", p->unit);
            for (int i = 0; i < p->ndimensions; i++)
                json_array_append_new(dl, json_pack("{s:s,s:s}", "Name", p->dimensions[i].key,
                                                    "Value", p->dimensions[i].value));
            if (p->nmetrics) {
                json_decref(dl);
                json_object_set_new(cus, "Metrics",
                                    api_alarm_queries_json(p->metrics, p->nmetrics));
            } else {
                json_object_set_new(cus, "Dimensions", dl);
            }
            json_object_set_new(tt, "CustomizedMetricSpecification", cus);
        }
        json_object_set_new(o, "TargetTrackingConfiguration", tt);
    }
    if (p->predictive)
        json_object_set_new(o, "PredictiveScalingConfiguration",
                            api_predictive_json(p->predictive));
    json_object_set_new(o, "Alarms", related_alarms_json(w, p));
    return o;
}

static int describe_policies(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    const char *group = api_str(in, "AutoScalingGroupName");
    const char **names, **types;
    int nn, nt;
    json_t *items;

    items = json_array();
    names = api_strings(in, "PolicyNames", &nn);
    types = api_strings(in, "PolicyTypes", &nt);
    for (int i = 0; i < sc_asg_policy_count(asg); i++) {
        const struct sc_asg_policy_info *p = sc_asg_policy_at(asg, i);

        if (group && strcmp(group, p->auto_scaling_group_name) != 0)
            continue;
        if (nn && !in_list(names, nn, p->policy_name) && !in_list(names, nn, p->policy_arn))
            continue;
        if (nt && !in_list(types, nt, sc_asg_policy_type_str(p->policy_type)))
            continue;
        json_array_append_new(items, policy_json(ctx->world, p));
    }
    free(names);
    free(types);
    return page_out(items, in, 50, 100, out, "ScalingPolicies", err);
}

static int delete_policy(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };

    *out = NULL;
    return done(err, &se,
                sc_asg_delete_policy(asg, api_str(in, "AutoScalingGroupName"),
                                     api_str(in, "PolicyName"), ctx->now_ms, &se));
}

static int execute_policy(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    struct sc_error se = { 0 };
    struct sc_asg_exec_req rq;
    json_t *mv = json_object_get(in, "MetricValue"), *bt = json_object_get(in, "BreachThreshold");

    *out = NULL;
    memset(&rq, 0, sizeof(rq));
    rq.auto_scaling_group_name = api_str(in, "AutoScalingGroupName");
    rq.policy_name = api_str(in, "PolicyName");
    rq.honor_cooldown = api_bool(in, "HonorCooldown", 0);
    rq.has_metric_value = json_is_number(mv);
    rq.metric_value = json_number_value(mv);
    rq.has_breach_threshold = json_is_number(bt);
    rq.breach_threshold = json_number_value(bt);
    return done(err, &se, sc_asg_execute_policy(asg, &rq, ctx->now_ms, &se));
}

const struct api_handler api_autoscaling_handlers[] = {
    { "AttachInstances", attach_instances, API_MUTATES },
    { "AttachLoadBalancerTargetGroups", attach_target_groups, API_MUTATES },
    { "AttachLoadBalancers", attach_load_balancers, API_MUTATES },
    { "AttachTrafficSources", attach_traffic_sources, API_MUTATES },
    { "CreateAutoScalingGroup", create_auto_scaling_group, API_MUTATES },
    { "CreateLaunchConfiguration", create_launch_configuration, API_MUTATES },
    { "CreateOrUpdateTags", create_or_update_tags, API_MUTATES },
    { "DeleteAutoScalingGroup", delete_auto_scaling_group, API_MUTATES },
    { "DeleteLaunchConfiguration", delete_launch_configuration, API_MUTATES },
    { "DeletePolicy", delete_policy, API_MUTATES },
    { "DeleteTags", delete_tags, API_MUTATES },
    { "DescribeAccountLimits", describe_account_limits, 0 },
    { "DescribeAdjustmentTypes", describe_adjustment_types, API_WORLDLESS },
    { "DescribeAutoScalingGroups", describe_auto_scaling_groups, 0 },
    { "DescribeAutoScalingInstances", describe_auto_scaling_instances, 0 },
    { "DescribeAutoScalingNotificationTypes", describe_notification_types, API_WORLDLESS },
    { "DescribeLaunchConfigurations", describe_launch_configurations, 0 },
    { "DescribeLifecycleHookTypes", describe_lifecycle_hook_types, API_WORLDLESS },
    { "DescribeLoadBalancerTargetGroups", describe_target_groups, 0 },
    { "DescribeLoadBalancers", describe_load_balancers, 0 },
    { "DescribeMetricCollectionTypes", describe_metric_collection_types, API_WORLDLESS },
    { "DescribePolicies", describe_policies, 0 },
    { "DescribeScalingActivities", describe_scaling_activities, 0 },
    { "DescribeScalingProcessTypes", describe_scaling_process_types, API_WORLDLESS },
    { "DescribeTags", describe_tags, 0 },
    { "DescribeTerminationPolicyTypes", describe_termination_policy_types, API_WORLDLESS },
    { "DescribeTrafficSources", describe_traffic_sources, 0 },
    { "DetachInstances", detach_instances, API_MUTATES },
    { "DetachLoadBalancerTargetGroups", detach_target_groups, API_MUTATES },
    { "DetachLoadBalancers", detach_load_balancers, API_MUTATES },
    { "DetachTrafficSources", detach_traffic_sources, API_MUTATES },
    { "DisableMetricsCollection", disable_metrics_collection, API_MUTATES },
    { "EnableMetricsCollection", enable_metrics_collection, API_MUTATES },
    { "EnterStandby", enter_standby, API_MUTATES },
    { "ExecutePolicy", execute_policy, API_MUTATES },
    { "ExitStandby", exit_standby, API_MUTATES },
    { "PutScalingPolicy", put_scaling_policy, API_MUTATES },
    { "ResumeProcesses", resume_processes, API_MUTATES },
    { "SetDesiredCapacity", set_desired_capacity, API_MUTATES },
    { "SetInstanceHealth", set_instance_health, API_MUTATES },
    { "SuspendProcesses", suspend_processes, API_MUTATES },
    { "TerminateInstanceInAutoScalingGroup", terminate_instance_in_asg, API_MUTATES },
    { "UpdateAutoScalingGroup", update_auto_scaling_group, API_MUTATES },
    { NULL, NULL, 0 },
};
