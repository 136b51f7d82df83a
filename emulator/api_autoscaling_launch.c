/* emulator/api_autoscaling_launch.c: LaunchInstances (docs/autoscaling.md 11). IR in -> one
 * sc_asg_launch_instances call -> IR out; every rule and message is the library's
 * (scaler/asg_launch.h). The instances it launches are real instance processes like every
 * launch: the world's EC2 runs them, and the step takes them through lifecycle hooks and
 * load balancer registration. */
#include <stdlib.h>

#include "emulator/api_autoscaling_internal.h"
#include "scaler/asg_launch.h"
#include "scaler/world.h"

/* An InstanceCollection or LaunchInstancesError, members in the model's order; the
 * optional ones only when known. New reference. */
static json_t *item_json(const struct sc_asg_launch_item *it, int error)
{
    json_t *o = json_object();

    api_asg_set_str(o, "InstanceType", it->instance_type[0] ? it->instance_type : NULL);
    api_asg_set_str(o, "MarketType", it->market_type);
    api_asg_set_str(o, "SubnetId", it->subnet_id[0] ? it->subnet_id : NULL);
    api_asg_set_str(o, "AvailabilityZone", it->availability_zone);
    api_asg_set_str(o, "AvailabilityZoneId",
                    it->availability_zone_id[0] ? it->availability_zone_id : NULL);
    if (error) {
        api_asg_set_str(o, "ErrorCode", it->error_code);
        api_asg_set_str(o, "ErrorMessage", it->error_message);
    } else {
        json_t *ids = json_array();

        for (int k = 0; k < it->ninstance_ids; k++)
            json_array_append_new(ids, json_string(it->instance_ids[k]));
        json_object_set_new(o, "InstanceIds", ids);
    }
    return o;
}

static int launch_instances(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_asg_launch_req r = { 0 };
    const struct sc_asg_launch_info *rep = NULL;
    struct sc_error se = { 0 };
    enum sc_status st;
    json_t *inst, *errs;

    *out = NULL;
    r.auto_scaling_group_name = api_str(in, "AutoScalingGroupName");
    if (!api_int(in, "RequestedCapacity", &r.requested_capacity))
        r.requested_capacity = 0;
    r.client_token = api_str(in, "ClientToken");
    r.availability_zones = api_strings(in, "AvailabilityZones", &r.navailability_zones);
    r.availability_zone_ids = api_strings(in, "AvailabilityZoneIds", &r.navailability_zone_ids);
    r.subnet_ids = api_strings(in, "SubnetIds", &r.nsubnet_ids);
    r.retry_strategy = api_str(in, "RetryStrategy");
    st = sc_asg_launch_instances(sc_world_asg(ctx->world), &r, ctx->now_ms, &rep, &se);
    free((void *)r.availability_zones);
    free((void *)r.availability_zone_ids);
    free((void *)r.subnet_ids);
    if (st != SC_OK)
        return api_asg_done(err, &se, st);
    inst = json_array();
    errs = json_array();
    for (int i = 0; i < rep->ninstances; i++)
        json_array_append_new(inst, item_json(&rep->instances[i], 0));
    for (int i = 0; i < rep->nerrors; i++)
        json_array_append_new(errs, item_json(&rep->errors[i], 1));
    *out = json_pack("{s:s,s:s,s:o,s:o}", "AutoScalingGroupName", rep->auto_scaling_group_name,
                     "ClientToken", rep->client_token, "Instances", inst, "Errors", errs);
    return 0;
}

const struct api_handler api_autoscaling_launch_handlers[] = {
    { "LaunchInstances", launch_instances, API_MUTATES },
    { NULL, NULL, 0 },
};
