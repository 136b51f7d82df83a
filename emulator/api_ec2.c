/* emulator/api_ec2.c: EC2 handlers over scaler/ec2.h (IR in -> sc_ec2 call -> IR out).
 * Output member names are the model's (EC2's XML names come from the model). */
#include "emulator/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/ec2.h"
#include "scaler/world.h"

/* ---- request helpers ------------------------------------------------------------------- */

/* Borrowed strings of a string list member (NULL, 0 when absent). Free the array. */
static const char **strings(json_t *in, const char *member, int *n)
{
    json_t *a = json_object_get(in, member);
    const char **v;
    size_t i;
    json_t *e;

    *n = 0;
    if (!json_is_array(a) || json_array_size(a) == 0)
        return NULL;
    v = cm_xcalloc(json_array_size(a), sizeof(*v));
    json_array_foreach(a, i, e)
    {
        if (json_is_string(e))
            v[(*n)++] = json_string_value(e);
    }
    return v;
}

static const char *str(json_t *in, const char *member)
{
    return json_string_value(json_object_get(in, member));
}

struct filters {
    struct sc_ec2_filter *f;
    const char ***vals;
    int n;
};

static void filters_get(json_t *in, struct filters *fs)
{
    json_t *a = json_object_get(in, "Filters");
    size_t i;
    json_t *e;

    memset(fs, 0, sizeof(*fs));
    if (!json_is_array(a) || json_array_size(a) == 0)
        return;
    fs->f = cm_xcalloc(json_array_size(a), sizeof(*fs->f));
    fs->vals = cm_xcalloc(json_array_size(a), sizeof(*fs->vals));
    json_array_foreach(a, i, e)
    {
        int nv;

        if (!str(e, "Name"))
            continue;
        fs->vals[fs->n] = strings(e, "Values", &nv);
        fs->f[fs->n].name = str(e, "Name");
        fs->f[fs->n].values = fs->vals[fs->n];
        fs->f[fs->n].nvalues = nv;
        fs->n++;
    }
}

static void filters_free(struct filters *fs)
{
    for (int i = 0; i < fs->n; i++)
        free(fs->vals[i]);
    free(fs->vals);
    free(fs->f);
}

/* Tags of TagSpecifications whose ResourceType is rtype (borrowed strings). */
static struct sc_ec2_tag *tag_specs(json_t *in, const char *rtype, int *n)
{
    json_t *specs = json_object_get(in, "TagSpecifications");
    struct sc_ec2_tag *t = NULL;
    size_t i, j, cap = 0;
    json_t *sp, *tag;

    *n = 0;
    json_array_foreach(specs, i, sp)
    {
        const char *rt = str(sp, "ResourceType");

        if (rt && strcmp(rt, rtype) != 0)
            continue;
        json_array_foreach(json_object_get(sp, "Tags"), j, tag)
        {
            if (!str(tag, "Key"))
                continue;
            if ((size_t)*n == cap) {
                cap = cap ? cap * 2 : 8;
                t = cm_xrealloc(t, cap * sizeof(*t));
            }
            t[*n].key = str(tag, "Key");
            t[*n].value = str(tag, "Value") ? str(tag, "Value") : "";
            (*n)++;
        }
    }
    return t;
}

static struct sc_ec2_tag *tags_list(json_t *in, const char *member, int *n)
{
    json_t *a = json_object_get(in, member);
    struct sc_ec2_tag *t;
    size_t i;
    json_t *tag;

    *n = 0;
    if (!json_is_array(a) || json_array_size(a) == 0)
        return NULL;
    t = cm_xcalloc(json_array_size(a), sizeof(*t));
    json_array_foreach(a, i, tag)
    {
        if (!str(tag, "Key"))
            continue;
        t[*n].key = str(tag, "Key");
        t[*n].value = str(tag, "Value"); /* NULL: DeleteTags by key */
        (*n)++;
    }
    return t;
}

static int fail(struct awserr *err, const struct sc_error *se)
{
    return awserr_from_sc(err, se);
}

/* ---- reply helpers ----------------------------------------------------------------------- */

static json_t *tags_json(const struct sc_ec2_tag *t, int n)
{
    json_t *a = json_array();

    for (int i = 0; i < n; i++)
        json_array_append_new(
            a, json_pack("{s:s?,s:s?}", "Key", t[i].key, "Value", t[i].value ? t[i].value : ""));
    return a;
}

static void set_str(json_t *o, const char *k, const char *v)
{
    if (v)
        json_object_set_new(o, k, json_string(v));
}

static json_t *state_json(enum sc_ec2_state st)
{
    return json_pack("{s:i,s:s?}", "Code", (int)st, "Name", sc_ec2_state_name(st));
}

static json_t *instance_json(const struct sc_ec2_instance *in)
{
    json_t *o = json_object();

    set_str(o, "InstanceId", in->instance_id);
    set_str(o, "ImageId", in->image_id);
    json_object_set_new(o, "State", state_json(in->state));
    set_str(o, "PrivateDnsName", in->private_dns_name);
    set_str(o, "PublicDnsName", "");
    set_str(o, "StateTransitionReason", in->state_transition_reason);
    set_str(o, "KeyName", in->key_name);
    json_object_set_new(o, "AmiLaunchIndex", json_integer(in->ami_launch_index));
    set_str(o, "InstanceType", in->instance_type);
    json_object_set_new(o, "LaunchTime", json_integer(in->launch_time_ms));
    json_object_set_new(
        o, "Placement",
        json_pack("{s:s?,s:s?}", "AvailabilityZone", in->availability_zone, "Tenancy", "default"));
    json_object_set_new(
        o, "Monitoring",
        json_pack("{s:s?}", "State", in->monitoring_enabled ? "enabled" : "disabled"));
    set_str(o, "SubnetId", in->subnet_id);
    set_str(o, "VpcId", in->vpc_id);
    set_str(o, "PrivateIpAddress", in->private_ip_address);
    set_str(o, "Architecture", "x86_64");
    set_str(o, "RootDeviceType", "ebs");
    set_str(o, "RootDeviceName", "/dev/xvda");
    set_str(o, "VirtualizationType", "hvm");
    set_str(o, "Hypervisor", "xen");
    json_object_set_new(o, "SecurityGroups", json_array());
    if (in->state_reason_code)
        json_object_set_new(o, "StateReason",
                            json_pack("{s:s?,s:s?}", "Code", in->state_reason_code, "Message",
                                      in->state_reason_message ? in->state_reason_message : ""));
    if (in->ntags)
        json_object_set_new(o, "Tags", tags_json(in->tags, in->ntags));
    return o;
}

/* Consecutive rows with one reservation id form one Reservation. */
static json_t *reservations_json(const struct sc_ec2_instance **rows, int n)
{
    json_t *res = json_array();
    json_t *cur = NULL;
    const char *cur_id = NULL;

    for (int i = 0; i < n; i++) {
        if (!cur_id || strcmp(cur_id, rows[i]->reservation_id) != 0) {
            cur = json_pack("{s:s?,s:s?,s:[],s:[]}", "ReservationId", rows[i]->reservation_id,
                            "OwnerId", rows[i]->owner_id, "Groups", "Instances");
            json_array_append_new(res, cur);
            cur_id = rows[i]->reservation_id;
        }
        json_array_append_new(json_object_get(cur, "Instances"), instance_json(rows[i]));
    }
    return res;
}

/* ---- handlers ------------------------------------------------------------------------------ */

static int describe_availability_zones(struct api_ctx *ctx, json_t *in, json_t **out,
                                       struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    const struct sc_ec2_zone **rows;
    const char **names;
    struct filters fs;
    int nn, nout = 0, rc = 0;

    names = strings(in, "ZoneNames", &nn);
    filters_get(in, &fs);
    rows = cm_xcalloc((size_t)sc_ec2_zone_count(ec2) + 1, sizeof(*rows));
    if (sc_ec2_describe_zones(ec2, names, nn, fs.f, fs.n, rows, &nout, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(
                a, json_pack("{s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:[]}", "ZoneName",
                             rows[i]->zone_name, "ZoneId", rows[i]->zone_id, "RegionName",
                             rows[i]->region_name, "State", rows[i]->state, "OptInStatus",
                             "opt-in-not-required", "ZoneType", "availability-zone", "GroupName",
                             rows[i]->region_name, "Messages"));
        *out = json_pack("{s:o}", "AvailabilityZones", a);
    }
    free(rows);
    free(names);
    filters_free(&fs);
    return rc;
}

static int describe_instance_types(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    struct sc_error se = { 0 };
    const struct sc_ec2_instance_type **rows;
    const char **types;
    struct filters fs;
    int nt, nout = 0, rc = 0;

    (void)ctx;
    types = strings(in, "InstanceTypes", &nt);
    filters_get(in, &fs);
    rows = cm_xcalloc((size_t)sc_ec2_instance_type_count() + 1, sizeof(*rows));
    if (sc_ec2_describe_instance_types(types, nt, fs.f, fs.n, rows, &nout, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++) {
            const struct sc_ec2_instance_type *t = rows[i];

            json_array_append_new(
                a, json_pack("{s:s?,s:b,s:b,s:{s:i,s:i,s:i},s:{s:I},s:{s:[s]},s:b,s:s?,s:[s]}",
                             "InstanceType", t->instance_type, "CurrentGeneration",
                             t->current_generation, "BurstablePerformanceSupported", t->burstable,
                             "VCpuInfo", "DefaultVCpus", t->vcpus, "DefaultCores", t->default_cores,
                             "DefaultThreadsPerCore",
                             t->default_cores ? t->vcpus / t->default_cores : 1, "MemoryInfo",
                             "SizeInMiB", (json_int_t)t->memory_mib, "ProcessorInfo",
                             "SupportedArchitectures", t->architecture, "BareMetal", 0,
                             "Hypervisor", "nitro", "SupportedUsageClasses", "on-demand"));
        }
        *out = json_pack("{s:o}", "InstanceTypes", a);
    }
    free(rows);
    free(types);
    filters_free(&fs);
    return rc;
}

static int describe_images(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    const struct sc_ec2_image **rows;
    const char **ids;
    struct filters fs;
    int ni, nout = 0, rc = 0;

    (void)ctx;
    ids = strings(in, "ImageIds", &ni);
    filters_get(in, &fs);
    rows = cm_xcalloc((size_t)sc_ec2_image_count() + 1, sizeof(*rows));
    if (sc_ec2_describe_images(ids, ni, fs.f, fs.n, rows, &nout, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++) {
            const struct sc_ec2_image *im = rows[i];
            json_t *o =
                json_pack("{s:s?,s:s?,s:s?,s:s?,s:s?,s:b,s:s?,s:s?,s:s?}", "ImageId", im->image_id,
                          "State", "available", "OwnerId", im->owner_id, "Architecture",
                          im->architecture, "ImageType", "machine", "Public", 1, "RootDeviceType",
                          "ebs", "VirtualizationType", "hvm", "Hypervisor", "xen");

            set_str(o, "Name", im->name);
            set_str(o, "Description", im->description);
            set_str(o, "ImageOwnerAlias", im->owner_alias);
            set_str(o, "PlatformDetails", im->platform_details);
            set_str(o, "RootDeviceName", im->root_device_name);
            set_str(o, "CreationDate", im->creation_date);
            json_array_append_new(a, o);
        }
        *out = json_pack("{s:o}", "Images", a);
    }
    free(rows);
    free(ids);
    filters_free(&fs);
    return rc;
}

static int describe_common(struct api_ctx *ctx, json_t *in, int status, json_t **out,
                           struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    struct sc_ec2_describe_req rq;
    const struct sc_ec2_instance **rows;
    const char **ids;
    struct filters fs;
    int ni, nout = 0, rc = 0;
    enum sc_status st;

    ids = strings(in, "InstanceIds", &ni);
    filters_get(in, &fs);
    rq.instance_ids = ids;
    rq.ninstance_ids = ni;
    rq.filters = fs.f;
    rq.nfilters = fs.n;
    rows = cm_xcalloc((size_t)sc_ec2_instance_count(ec2) + 1, sizeof(*rows));
    if (status)
        st = sc_ec2_describe_instance_status(
            ec2, &rq, json_is_true(json_object_get(in, "IncludeAllInstances")), rows, &nout, &se);
    else
        st = sc_ec2_describe_instances(ec2, &rq, rows, &nout, &se);
    if (st != SC_OK) {
        rc = fail(err, &se);
    } else if (!status) {
        *out = json_pack("{s:o}", "Reservations", reservations_json(rows, nout));
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++) {
            const struct sc_ec2_instance *r = rows[i];
            const char *ss = sc_ec2_check_name(r->system_status);
            const char *is = sc_ec2_check_name(r->instance_status);

            json_array_append_new(
                a,
                json_pack("{s:s?,s:s?,s:o,s:{s:s?,s:[{s:s?,s:s?}]},s:{s:s?,s:[{s:s?,s:s?}]},s:[]}",
                          "InstanceId", r->instance_id, "AvailabilityZone", r->availability_zone,
                          "InstanceState", state_json(r->state), "SystemStatus", "Status", ss,
                          "Details", "Name", "reachability", "Status",
                          strcmp(ss, "ok") == 0 ? "passed" : ss, "InstanceStatus", "Status", is,
                          "Details", "Name", "reachability", "Status",
                          strcmp(is, "ok") == 0 ? "passed" : is, "Events"));
        }
        *out = json_pack("{s:o}", "InstanceStatuses", a);
    }
    free(rows);
    free(ids);
    filters_free(&fs);
    return rc;
}

static int describe_instances(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return describe_common(ctx, in, 0, out, err);
}

static int describe_instance_status(struct api_ctx *ctx, json_t *in, json_t **out,
                                    struct awserr *err)
{
    return describe_common(ctx, in, 1, out, err);
}

static int run_instances(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    struct sc_ec2_run_req rq;
    const struct sc_ec2_reservation *res = NULL;
    json_t *lt = json_object_get(in, "LaunchTemplate");
    int rc = 0;

    memset(&rq, 0, sizeof(rq));
    rq.image_id = str(in, "ImageId");
    rq.instance_type = str(in, "InstanceType");
    rq.min_count = (int)json_integer_value(json_object_get(in, "MinCount"));
    rq.max_count = (int)json_integer_value(json_object_get(in, "MaxCount"));
    rq.key_name = str(in, "KeyName");
    rq.subnet_id = str(in, "SubnetId");
    rq.availability_zone = str(json_object_get(in, "Placement"), "AvailabilityZone");
    rq.user_data = str(in, "UserData");
    rq.monitoring_enabled =
        json_is_true(json_object_get(json_object_get(in, "Monitoring"), "Enabled"));
    rq.launch_template_id = str(lt, "LaunchTemplateId");
    rq.launch_template_name = str(lt, "LaunchTemplateName");
    rq.launch_template_version = str(lt, "Version");
    rq.tags = tag_specs(in, "instance", &rq.ntags);
    if (sc_ec2_run_instances(ec2, &rq, ctx->now_ms, &res, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *insts = json_array();

        for (int i = 0; i < res->ninstances; i++)
            json_array_append_new(insts, instance_json(res->instances[i]));
        *out = json_pack("{s:s?,s:s?,s:[],s:o}", "ReservationId", res->reservation_id, "OwnerId",
                         res->owner_id, "Groups", "Instances", insts);
    }
    free((void *)rq.tags);
    return rc;
}

typedef enum sc_status (*change_fn)(struct sc_ec2 *, const char *const *, int, int64_t,
                                    struct sc_ec2_state_change *, struct sc_error *);

static int state_change(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err,
                        change_fn fn, const char *key)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    struct sc_ec2_state_change *rows;
    const char **ids;
    int ni, rc = 0;

    ids = strings(in, "InstanceIds", &ni);
    rows = cm_xcalloc((size_t)ni + 1, sizeof(*rows));
    if (fn(ec2, ids, ni, ctx->now_ms, rows, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < ni; i++)
            json_array_append_new(a, json_pack("{s:s?,s:o,s:o}", "InstanceId", rows[i].instance_id,
                                               "CurrentState", state_json(rows[i].current),
                                               "PreviousState", state_json(rows[i].previous)));
        *out = json_pack("{s:o}", key, a);
    }
    free(rows);
    free(ids);
    return rc;
}

static int terminate_instances(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return state_change(ctx, in, out, err, sc_ec2_terminate_instances, "TerminatingInstances");
}

static int stop_instances(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return state_change(ctx, in, out, err, sc_ec2_stop_instances, "StoppingInstances");
}

static int start_instances(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return state_change(ctx, in, out, err, sc_ec2_start_instances, "StartingInstances");
}

static json_t *vpc_json(const struct sc_ec2_vpc *v)
{
    json_t *o = json_pack("{s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:b}", "VpcId", v->vpc_id, "CidrBlock",
                          v->cidr_block, "State", v->state, "OwnerId", v->owner_id, "DhcpOptionsId",
                          v->dhcp_options_id, "InstanceTenancy", v->instance_tenancy, "IsDefault",
                          v->is_default);

    if (v->ntags)
        json_object_set_new(o, "Tags", tags_json(v->tags, v->ntags));
    return o;
}

static json_t *subnet_json(const struct sc_ec2_subnet *s)
{
    json_t *o =
        json_pack("{s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:i,s:b,s:b}", "SubnetId", s->subnet_id,
                  "SubnetArn", s->subnet_arn, "VpcId", s->vpc_id, "CidrBlock", s->cidr_block,
                  "AvailabilityZone", s->availability_zone, "AvailabilityZoneId",
                  s->availability_zone_id, "State", s->state, "OwnerId", s->owner_id,
                  "AvailableIpAddressCount", s->available_ip_address_count, "DefaultForAz",
                  s->default_for_az, "MapPublicIpOnLaunch", s->map_public_ip_on_launch);

    if (s->ntags)
        json_object_set_new(o, "Tags", tags_json(s->tags, s->ntags));
    return o;
}

static int create_vpc(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    const struct sc_ec2_vpc *v = NULL;
    struct sc_ec2_tag *tags;
    int nt, rc = 0;

    tags = tag_specs(in, "vpc", &nt);
    if (sc_ec2_create_vpc(ec2, str(in, "CidrBlock"), tags, nt, ctx->now_ms, &v, &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = json_pack("{s:o}", "Vpc", vpc_json(v));
    free(tags);
    return rc;
}

static int create_subnet(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    const struct sc_ec2_subnet *sn = NULL;
    struct sc_ec2_tag *tags;
    int nt, rc = 0;

    tags = tag_specs(in, "subnet", &nt);
    if (sc_ec2_create_subnet(ec2, str(in, "VpcId"), str(in, "CidrBlock"),
                             str(in, "AvailabilityZone"), tags, nt, ctx->now_ms, &sn, &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = json_pack("{s:o}", "Subnet", subnet_json(sn));
    free(tags);
    return rc;
}

static int describe_vpcs(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    const struct sc_ec2_vpc **rows;
    const char **ids;
    struct filters fs;
    int ni, nout = 0, rc = 0;

    ids = strings(in, "VpcIds", &ni);
    filters_get(in, &fs);
    rows = cm_xcalloc((size_t)sc_ec2_vpc_count(ec2) + 1, sizeof(*rows));
    if (sc_ec2_describe_vpcs(ec2, ids, ni, fs.f, fs.n, rows, &nout, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, vpc_json(rows[i]));
        *out = json_pack("{s:o}", "Vpcs", a);
    }
    free(rows);
    free(ids);
    filters_free(&fs);
    return rc;
}

static int describe_subnets(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    const struct sc_ec2_subnet **rows;
    const char **ids;
    struct filters fs;
    int ni, nout = 0, rc = 0;

    ids = strings(in, "SubnetIds", &ni);
    filters_get(in, &fs);
    rows = cm_xcalloc((size_t)sc_ec2_subnet_count(ec2) + 1, sizeof(*rows));
    if (sc_ec2_describe_subnets(ec2, ids, ni, fs.f, fs.n, rows, &nout, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, subnet_json(rows[i]));
        *out = json_pack("{s:o}", "Subnets", a);
    }
    free(rows);
    free(ids);
    filters_free(&fs);
    return rc;
}

static int tags_op(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err, int del)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    const char **ids;
    struct sc_ec2_tag *tags;
    int ni, nt, rc = 0;
    enum sc_status st;

    ids = strings(in, "Resources", &ni);
    tags = tags_list(in, "Tags", &nt);
    if (del)
        st = sc_ec2_delete_tags(ec2, ids, ni, tags, nt, ctx->now_ms, &se);
    else
        st = sc_ec2_create_tags(ec2, ids, ni, tags, nt, ctx->now_ms, &se);
    if (st != SC_OK)
        rc = fail(err, &se);
    else
        *out = NULL;
    free(ids);
    free(tags);
    return rc;
}

static int create_tags(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return tags_op(ctx, in, out, err, 0);
}

static int delete_tags(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return tags_op(ctx, in, out, err, 1);
}

/* ---- launch templates ---------------------------------------------------------------------- */

/* The LaunchTemplateData members the library reads one by one; every other member goes to
 * sc_ec2_lt_data.other as sent (Monitoring and TagSpecifications go both ways: read for
 * the launch, kept as sent for the echo). */
static const char *const lt_typed[] = { "ImageId",  "InstanceType",     "KeyName",
                                        "UserData", "SecurityGroupIds", NULL };

static void lt_data_get(json_t *d, struct sc_ec2_lt_data *o)
{
    int n;
    json_t *other = json_is_object(d) ? json_deep_copy(d) : NULL;

    memset(o, 0, sizeof(*o));
    o->image_id = str(d, "ImageId");
    o->instance_type = str(d, "InstanceType");
    o->key_name = str(d, "KeyName");
    o->user_data = str(d, "UserData");
    o->tags = tag_specs(d, "instance", &o->ntags);
    o->security_group_ids = strings(d, "SecurityGroupIds", &n);
    o->nsecurity_group_ids = n;
    o->monitoring_enabled =
        json_is_true(json_object_get(json_object_get(d, "Monitoring"), "Enabled"));
    for (int i = 0; other && lt_typed[i]; i++)
        json_object_del(other, lt_typed[i]);
    if (json_object_size(other) == 0) {
        json_decref(other);
        other = NULL;
    }
    o->other = other;
}

static void lt_data_free(struct sc_ec2_lt_data *o)
{
    free((void *)o->tags);
    free((void *)o->security_group_ids);
    json_decref((json_t *)o->other);
}

static json_t *lt_json(const struct sc_ec2_launch_template *t)
{
    json_t *o = json_pack("{s:s?,s:s?,s:I,s:s?,s:I,s:I}", "LaunchTemplateId", t->launch_template_id,
                          "LaunchTemplateName", t->launch_template_name, "CreateTime",
                          (json_int_t)t->create_time_ms, "CreatedBy", t->created_by,
                          "DefaultVersionNumber", (json_int_t)t->default_version_number,
                          "LatestVersionNumber", (json_int_t)t->latest_version_number);

    if (t->ntags)
        json_object_set_new(o, "Tags", tags_json(t->tags, t->ntags));
    return o;
}

static json_t *lt_version_json(const struct sc_ec2_lt_version *v)
{
    json_t *d = v->data.other ? json_deep_copy(v->data.other) : json_object();
    json_t *o =
        json_pack("{s:s?,s:s?,s:I,s:I,s:s?,s:b}", "LaunchTemplateId", v->launch_template_id,
                  "LaunchTemplateName", v->launch_template_name, "VersionNumber",
                  (json_int_t)v->version_number, "CreateTime", (json_int_t)v->create_time_ms,
                  "CreatedBy", v->created_by, "DefaultVersion", v->default_version);

    set_str(o, "VersionDescription", v->version_description);
    set_str(d, "ImageId", v->data.image_id);
    set_str(d, "InstanceType", v->data.instance_type);
    set_str(d, "KeyName", v->data.key_name);
    set_str(d, "UserData", v->data.user_data);
    if (v->data.monitoring_enabled && !json_object_get(d, "Monitoring"))
        json_object_set_new(d, "Monitoring", json_pack("{s:b}", "Enabled", 1));
    if (v->data.nsecurity_group_ids) {
        json_t *a = json_array();

        for (int i = 0; i < v->data.nsecurity_group_ids; i++)
            json_array_append_new(a, json_string(v->data.security_group_ids[i]));
        json_object_set_new(d, "SecurityGroupIds", a);
    }
    if (v->data.ntags && !json_object_get(d, "TagSpecifications"))
        json_object_set_new(d, "TagSpecifications",
                            json_pack("[{s:s?,s:o}]", "ResourceType", "instance", "Tags",
                                      tags_json(v->data.tags, v->data.ntags)));
    json_object_set_new(o, "LaunchTemplateData", d);
    return o;
}

static int create_launch_template(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    struct sc_ec2_lt_create_req rq;
    const struct sc_ec2_launch_template *t = NULL;
    int rc = 0;

    memset(&rq, 0, sizeof(rq));
    rq.launch_template_name = str(in, "LaunchTemplateName");
    rq.version_description = str(in, "VersionDescription");
    lt_data_get(json_object_get(in, "LaunchTemplateData"), &rq.data);
    rq.tags = tag_specs(in, "launch-template", &rq.ntags);
    if (sc_ec2_create_launch_template(ec2, &rq, ctx->now_ms, &t, &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = json_pack("{s:o}", "LaunchTemplate", lt_json(t));
    lt_data_free(&rq.data);
    free((void *)rq.tags);
    return rc;
}

static int create_launch_template_version(struct api_ctx *ctx, json_t *in, json_t **out,
                                          struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    struct sc_ec2_lt_version_req rq;
    const struct sc_ec2_lt_version *v = NULL;
    int rc = 0;

    memset(&rq, 0, sizeof(rq));
    rq.launch_template_id = str(in, "LaunchTemplateId");
    rq.launch_template_name = str(in, "LaunchTemplateName");
    rq.source_version = str(in, "SourceVersion");
    rq.version_description = str(in, "VersionDescription");
    lt_data_get(json_object_get(in, "LaunchTemplateData"), &rq.data);
    if (sc_ec2_create_launch_template_version(ec2, &rq, ctx->now_ms, &v, &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = json_pack("{s:o}", "LaunchTemplateVersion", lt_version_json(v));
    lt_data_free(&rq.data);
    return rc;
}

static int delete_launch_template(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    struct sc_ec2_lt_deleted d;

    if (sc_ec2_delete_launch_template(ec2, str(in, "LaunchTemplateId"),
                                      str(in, "LaunchTemplateName"), ctx->now_ms, &d, &se) != SC_OK)
        return fail(err, &se);
    *out = json_pack("{s:{s:s?,s:s?,s:I,s:I,s:I}}", "LaunchTemplate", "LaunchTemplateId",
                     d.launch_template_id, "LaunchTemplateName", d.launch_template_name,
                     "CreateTime", (json_int_t)d.create_time_ms, "DefaultVersionNumber",
                     (json_int_t)d.default_version_number, "LatestVersionNumber",
                     (json_int_t)d.latest_version_number);
    return 0;
}

static int describe_launch_templates(struct api_ctx *ctx, json_t *in, json_t **out,
                                     struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    const struct sc_ec2_launch_template **rows;
    const char **ids, **names;
    struct filters fs;
    int ni, nn, nout = 0, rc = 0;

    ids = strings(in, "LaunchTemplateIds", &ni);
    names = strings(in, "LaunchTemplateNames", &nn);
    filters_get(in, &fs);
    rows = cm_xcalloc((size_t)sc_ec2_launch_template_count(ec2) + 1, sizeof(*rows));
    if (sc_ec2_describe_launch_templates(ec2, ids, ni, names, nn, fs.f, fs.n, rows, &nout, &se) !=
        SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, lt_json(rows[i]));
        *out = json_pack("{s:o}", "LaunchTemplates", a);
    }
    free(rows);
    free(ids);
    free(names);
    filters_free(&fs);
    return rc;
}

static int describe_launch_template_versions(struct api_ctx *ctx, json_t *in, json_t **out,
                                             struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    struct sc_ec2_lt_versions_req rq;
    const struct sc_ec2_launch_template *t;
    const struct sc_ec2_lt_version **rows;
    const char **vers;
    int nv, nout = 0, cap, rc = 0;
    char *end;

    memset(&rq, 0, sizeof(rq));
    rq.launch_template_id = str(in, "LaunchTemplateId");
    rq.launch_template_name = str(in, "LaunchTemplateName");
    vers = strings(in, "Versions", &nv);
    rq.versions = vers;
    rq.nversions = nv;
    if (str(in, "MinVersion"))
        rq.min_version = strtol(str(in, "MinVersion"), &end, 10);
    if (str(in, "MaxVersion"))
        rq.max_version = strtol(str(in, "MaxVersion"), &end, 10);
    t = sc_ec2_launch_template_find(ec2, rq.launch_template_id, rq.launch_template_name);
    cap = (t ? (int)t->latest_version_number : 0) + nv + 1;
    rows = cm_xcalloc((size_t)cap, sizeof(*rows));
    if (sc_ec2_describe_launch_template_versions(ec2, &rq, rows, cap, &nout, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, lt_version_json(rows[i]));
        *out = json_pack("{s:o}", "LaunchTemplateVersions", a);
    }
    free(rows);
    free(vers);
    return rc;
}

/* ---- security groups and network interfaces ---------------------------------------------- */

/* Rules as IpPermissions: those of one protocol and ports together, in the order of their
 * first rule (docs/elb-classic.md 3). */
static json_t *perms_json(const struct sc_ec2_sg_rule *r, int n)
{
    json_t *a = json_array();

    for (int i = 0; i < n; i++) {
        json_t *p = NULL, *list;
        size_t k;
        json_t *e;
        const char *key;

        json_array_foreach(a, k, e)
        {
            const char *proto = str(e, "IpProtocol");
            int from = -1, to = -1;

            api_int(e, "FromPort", &from);
            api_int(e, "ToPort", &to);
            if (strcmp(proto, r[i].ip_protocol) == 0 && from == r[i].from_port &&
                to == r[i].to_port)
                p = e;
        }
        if (!p) {
            p = json_pack("{s:s,s:[],s:[],s:[],s:[]}", "IpProtocol", r[i].ip_protocol, "IpRanges",
                          "Ipv6Ranges", "UserIdGroupPairs", "PrefixListIds");
            if (strcmp(r[i].ip_protocol, "-1") != 0) {
                json_object_set_new(p, "FromPort", json_integer(r[i].from_port));
                json_object_set_new(p, "ToPort", json_integer(r[i].to_port));
            }
            json_array_append_new(a, p);
        }
        switch (r[i].peer_kind) {
        case SC_EC2_PEER_CIDR:
            key = "IpRanges";
            e = json_pack("{s:s}", "CidrIp", r[i].peer);
            break;
        case SC_EC2_PEER_CIDR6:
            key = "Ipv6Ranges";
            e = json_pack("{s:s}", "CidrIpv6", r[i].peer);
            break;
        case SC_EC2_PEER_GROUP:
            key = "UserIdGroupPairs";
            e = json_pack("{s:s,s:s?}", "GroupId", r[i].peer, "UserId", r[i].peer_user);
            break;
        default:
            key = "PrefixListIds";
            e = json_pack("{s:s}", "PrefixListId", r[i].peer);
            break;
        }
        set_str(e, "Description", r[i].description);
        list = json_object_get(p, key);
        json_array_append_new(list, e);
    }
    return a;
}

static json_t *sg_json(struct api_ctx *ctx, const struct sc_ec2_security_group *g)
{
    char arn[160];
    json_t *o;

    snprintf(arn, sizeof(arn), "arn:aws:ec2:%s:%s:security-group/%s", ctx->region, g->owner_id,
             g->group_id);
    o = json_pack("{s:s?,s:s?,s:s?,s:s?,s:s?,s:s,s:o,s:o}", "GroupId", g->group_id, "GroupName",
                  g->group_name, "Description", g->description, "VpcId", g->vpc_id, "OwnerId",
                  g->owner_id, "SecurityGroupArn", arn, "IpPermissions",
                  perms_json(g->ingress, g->ningress), "IpPermissionsEgress",
                  perms_json(g->egress, g->negress));
    if (g->ntags)
        json_object_set_new(o, "Tags", tags_json(g->tags, g->ntags));
    return o;
}

static int describe_security_groups(struct api_ctx *ctx, json_t *in, json_t **out,
                                    struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    const struct sc_ec2_security_group **rows;
    const char **ids, **names;
    struct filters fs;
    int ni, nn, nout = 0, rc = 0;

    ids = strings(in, "GroupIds", &ni);
    names = strings(in, "GroupNames", &nn);
    filters_get(in, &fs);
    rows = cm_xcalloc((size_t)sc_ec2_security_group_count(ec2) + 1, sizeof(*rows));
    if (sc_ec2_describe_security_groups(ec2, ids, ni, names, nn, fs.f, fs.n, rows, &nout, &se) !=
        SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, sg_json(ctx, rows[i]));
        *out = json_pack("{s:o}", "SecurityGroups", a);
    }
    free(rows);
    free(ids);
    free(names);
    filters_free(&fs);
    return rc;
}

static int create_security_group(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    const struct sc_ec2_security_group *g = NULL;
    struct sc_ec2_tag *tags;
    int nt, rc = 0;

    tags = tag_specs(in, "security-group", &nt);
    if (sc_ec2_create_security_group(ec2, str(in, "GroupName"), str(in, "Description"),
                                     str(in, "VpcId"), tags, nt, ctx->now_ms, &g, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *o = sg_json(ctx, g);

        *out = json_pack("{s:O,s:O}", "GroupId", json_object_get(o, "GroupId"), "SecurityGroupArn",
                         json_object_get(o, "SecurityGroupArn"));
        if (g->ntags)
            json_object_set(*out, "Tags", json_object_get(o, "Tags"));
        json_decref(o);
    }
    free(tags);
    return rc;
}

static int delete_security_group(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    char id[SC_EC2_ID_LEN] = "";

    if (sc_ec2_delete_security_group(ec2, str(in, "GroupId"), str(in, "GroupName"), ctx->now_ms, id,
                                     &se) != SC_OK)
        return fail(err, &se);
    *out = json_pack("{s:b,s:s}", "Return", 1, "GroupId", id);
    return 0;
}

/* The rules of IpPermissions (one per peer) and of the old top-level members (IpProtocol,
 * FromPort, ToPort, CidrIp); borrowed strings. */
static struct sc_ec2_sg_rule_req *rules_get(json_t *in, int *n)
{
    json_t *perms = json_object_get(in, "IpPermissions");
    struct sc_ec2_sg_rule_req *v = NULL;
    size_t i, cap = 0;
    json_t *p;

    *n = 0;
    if (str(in, "IpProtocol") || str(in, "CidrIp")) {
        v = cm_xcalloc(1, sizeof(*v));
        cap = 1;
        v[0].ip_protocol = str(in, "IpProtocol");
        v[0].has_from_port = api_int(in, "FromPort", &v[0].from_port);
        v[0].has_to_port = api_int(in, "ToPort", &v[0].to_port);
        v[0].peer_kind = SC_EC2_PEER_CIDR;
        v[0].peer = str(in, "CidrIp");
        *n = 1;
    }
    json_array_foreach(perms, i, p)
    {
        static const struct {
            const char *list, *member;
            enum sc_ec2_peer kind;
        } peers[] = {
            { "IpRanges", "CidrIp", SC_EC2_PEER_CIDR },
            { "Ipv6Ranges", "CidrIpv6", SC_EC2_PEER_CIDR6 },
            { "UserIdGroupPairs", "GroupId", SC_EC2_PEER_GROUP },
            { "PrefixListIds", "PrefixListId", SC_EC2_PEER_PREFIX_LIST },
        };
        struct sc_ec2_sg_rule_req base = { 0 };
        int added = 0;

        base.ip_protocol = str(p, "IpProtocol");
        base.has_from_port = api_int(p, "FromPort", &base.from_port);
        base.has_to_port = api_int(p, "ToPort", &base.to_port);
        for (size_t k = 0; k < sizeof(peers) / sizeof(peers[0]); k++) {
            size_t j;
            json_t *e;

            json_array_foreach(json_object_get(p, peers[k].list), j, e)
            {
                if ((size_t)*n == cap) {
                    cap = cap ? cap * 2 : 8;
                    v = cm_xrealloc(v, cap * sizeof(*v));
                }
                v[*n] = base;
                v[*n].peer_kind = peers[k].kind;
                v[*n].peer = str(e, peers[k].member);
                v[*n].peer_user = peers[k].kind == SC_EC2_PEER_GROUP ? str(e, "UserId") : NULL;
                v[*n].description = str(e, "Description");
                (*n)++;
                added = 1;
            }
        }
        if (!added) { /* a permission without a peer: the library refuses it */
            if ((size_t)*n == cap) {
                cap = cap ? cap * 2 : 8;
                v = cm_xrealloc(v, cap * sizeof(*v));
            }
            v[(*n)++] = base;
        }
    }
    return v;
}

static int sg_rules(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err, int egress,
                    int revoke)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    struct sc_ec2_sg_rule_req *rules;
    int n, rc = 0;

    rules = rules_get(in, &n);
    if (sc_ec2_security_group_rules(ec2, str(in, "GroupId"), str(in, "GroupName"), egress, revoke,
                                    rules, n, ctx->now_ms, &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = json_pack("{s:b}", "Return", 1);
    free(rules);
    return rc;
}

static int authorize_ingress(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return sg_rules(ctx, in, out, err, 0, 0);
}

static int authorize_egress(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return sg_rules(ctx, in, out, err, 1, 0);
}

static int revoke_ingress(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return sg_rules(ctx, in, out, err, 0, 1);
}

static int revoke_egress(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return sg_rules(ctx, in, out, err, 1, 1);
}

static json_t *eni_json(const struct sc_ec2 *ec2, const struct sc_ec2_network_interface *e)
{
    json_t *groups = json_array();
    json_t *o = json_object();

    for (int i = 0; i < e->ngroups; i++) {
        const struct sc_ec2_security_group *g = sc_ec2_security_group_find(ec2, e->group_ids[i]);

        json_array_append_new(groups, json_pack("{s:s,s:s?}", "GroupId", e->group_ids[i],
                                                "GroupName", g ? g->group_name : NULL));
    }
    json_object_set_new(o, "Attachment",
                        json_pack("{s:I,s:s,s:b,s:i,s:s,s:s}", "AttachTime",
                                  (json_int_t)e->attach_time_ms, "AttachmentId", e->attachment_id,
                                  "DeleteOnTermination", 0, "DeviceIndex", 1, "InstanceOwnerId",
                                  e->instance_owner_id, "Status", "attached"));
    set_str(o, "AvailabilityZone", e->availability_zone);
    set_str(o, "Description", e->description);
    json_object_set_new(o, "Groups", groups);
    set_str(o, "InterfaceType", "interface");
    json_object_set_new(o, "Ipv6Addresses", json_array());
    set_str(o, "MacAddress", e->mac_address);
    set_str(o, "NetworkInterfaceId", e->network_interface_id);
    set_str(o, "OwnerId", e->owner_id);
    set_str(o, "PrivateDnsName", e->private_dns_name);
    set_str(o, "PrivateIpAddress", e->private_ip_address);
    json_object_set_new(o, "PrivateIpAddresses",
                        json_pack("[{s:b,s:s,s:s}]", "Primary", 1, "PrivateDnsName",
                                  e->private_dns_name, "PrivateIpAddress", e->private_ip_address));
    set_str(o, "RequesterId", e->requester_id);
    json_object_set_new(o, "RequesterManaged", json_true());
    json_object_set_new(o, "SourceDestCheck", json_true());
    set_str(o, "Status", e->status);
    set_str(o, "SubnetId", e->subnet_id);
    json_object_set_new(o, "TagSet", json_array());
    set_str(o, "VpcId", e->vpc_id);
    return o;
}

static int describe_network_interfaces(struct api_ctx *ctx, json_t *in, json_t **out,
                                       struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    const struct sc_ec2_network_interface **rows;
    const char **ids;
    struct filters fs;
    int ni, nout = 0, rc = 0;

    ids = strings(in, "NetworkInterfaceIds", &ni);
    filters_get(in, &fs);
    rows = cm_xcalloc((size_t)sc_ec2_network_interface_count(ec2) + 1, sizeof(*rows));
    if (sc_ec2_describe_network_interfaces(ec2, ids, ni, fs.f, fs.n, rows, &nout, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, eni_json(ec2, rows[i]));
        *out = json_pack("{s:o}", "NetworkInterfaces", a);
    }
    free(rows);
    free(ids);
    filters_free(&fs);
    return rc;
}

static int describe_tags(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_ec2 *ec2 = sc_world_ec2(ctx->world);
    struct sc_error se = { 0 };
    struct sc_ec2_tag_row *rows = NULL;
    struct filters fs;
    int cap = 64, nout = 0, rc = 0;

    filters_get(in, &fs);
    for (;;) {
        rows = cm_xrealloc(rows, (size_t)cap * sizeof(*rows));
        if (sc_ec2_describe_tags(ec2, fs.f, fs.n, rows, cap, &nout, &se) != SC_OK) {
            rc = fail(err, &se);
            goto out;
        }
        if (nout <= cap)
            break;
        cap = nout;
    }
    {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, json_pack("{s:s?,s:s?,s:s?,s:s}", "ResourceId",
                                               rows[i].resource_id, "ResourceType",
                                               rows[i].resource_type, "Key", rows[i].key, "Value",
                                               rows[i].value ? rows[i].value : ""));
        *out = json_pack("{s:o}", "Tags", a);
    }
out:
    free(rows);
    filters_free(&fs);
    return rc;
}

const struct api_handler api_ec2_handlers[] = {
    { "AuthorizeSecurityGroupEgress", authorize_egress, API_MUTATES },
    { "AuthorizeSecurityGroupIngress", authorize_ingress, API_MUTATES },
    { "CreateLaunchTemplate", create_launch_template, API_MUTATES },
    { "CreateLaunchTemplateVersion", create_launch_template_version, API_MUTATES },
    { "CreateSecurityGroup", create_security_group, API_MUTATES },
    { "CreateSubnet", create_subnet, API_MUTATES },
    { "CreateTags", create_tags, API_MUTATES },
    { "CreateVpc", create_vpc, API_MUTATES },
    { "DeleteLaunchTemplate", delete_launch_template, API_MUTATES },
    { "DeleteSecurityGroup", delete_security_group, API_MUTATES },
    { "DeleteTags", delete_tags, API_MUTATES },
    { "DescribeAvailabilityZones", describe_availability_zones, 0 },
    { "DescribeImages", describe_images, API_WORLDLESS },
    { "DescribeInstanceStatus", describe_instance_status, 0 },
    { "DescribeInstanceTypes", describe_instance_types, API_WORLDLESS },
    { "DescribeInstances", describe_instances, 0 },
    { "DescribeLaunchTemplateVersions", describe_launch_template_versions, 0 },
    { "DescribeLaunchTemplates", describe_launch_templates, 0 },
    { "DescribeNetworkInterfaces", describe_network_interfaces, 0 },
    { "DescribeSecurityGroups", describe_security_groups, 0 },
    { "DescribeSubnets", describe_subnets, 0 },
    { "DescribeTags", describe_tags, 0 },
    { "DescribeVpcs", describe_vpcs, 0 },
    { "RevokeSecurityGroupEgress", revoke_egress, API_MUTATES },
    { "RevokeSecurityGroupIngress", revoke_ingress, API_MUTATES },
    { "RunInstances", run_instances, API_MUTATES },
    { "StartInstances", start_instances, API_MUTATES },
    { "StopInstances", stop_instances, API_MUTATES },
    { "TerminateInstances", terminate_instances, API_MUTATES },
    { NULL, NULL, 0 },
};
