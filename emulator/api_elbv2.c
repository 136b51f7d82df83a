/* emulator/api_elbv2.c: ELBv2 (2015-12-01) handlers over scaler/elbv2.h (IR in -> one
 * sc_elbv2 call -> IR out). Every rule and message is the library's (docs/elbv2.md). */
#include "emulator/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "emulator/api_elbv2_trust.h"
#include "scaler/elbv2.h"
#include "scaler/world.h"

#define PAGE_MAX 400

static int fail(struct awserr *err, const struct sc_error *se)
{
    return awserr_from_sc(err, se);
}

static struct sc_elbv2 *v2_of(struct api_ctx *ctx)
{
    return sc_world_elbv2(ctx->world);
}

/* A string member, NULL when absent or empty (the Query serializers of some SDKs send
 * optional members as empty strings). */
static const char *opt_str(json_t *in, const char *member)
{
    const char *v = api_str(in, member);

    return v && *v ? v : NULL;
}

static void set_str(json_t *o, const char *k, const char *v)
{
    if (v)
        json_object_set_new(o, k, json_string(v));
}

static json_t *strs_json(const char *const *v, int n)
{
    json_t *a = json_array();

    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *kv_json(const struct sc_elbv2_kv *kv, int n)
{
    json_t *a = json_array();

    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{s:s,s:s}", "Key", kv[i].key, "Value", kv[i].value));
    return a;
}

/* Key/Value pairs of a member ([{Key, Value}]); free() the array. */
static struct sc_elbv2_kv *kv_get(json_t *in, const char *member, int *n)
{
    json_t *a = json_object_get(in, member);
    struct sc_elbv2_kv *kv;
    size_t i;
    json_t *e;

    *n = (int)json_array_size(a);
    kv = cm_xcalloc((size_t)*n + 1, sizeof(*kv));
    json_array_foreach(a, i, e)
    {
        kv[i].key = api_str(e, "Key");
        kv[i].value = api_str(e, "Value") ? api_str(e, "Value") : "";
    }
    return kv;
}

int api_elbv2_page_out(json_t *items, json_t *in, const char *list_key, json_t **out,
                       struct awserr *err)
{
    int size = 0;

    if (api_int(in, "PageSize", &size) && (size < 1 || size > PAGE_MAX)) {
        json_decref(items);
        return awserr_set(err, 400, "ValidationError",
                          "1 validation error detected: Value '%d' at 'pageSize' failed to "
                          "satisfy constraint: Member must have value between 1 and 400",
                          size);
    }
    *out = json_object();
    if (api_page(items, in, "Marker", "PageSize", PAGE_MAX, PAGE_MAX, *out, list_key, "NextMarker",
                 err) != 0) {
        json_decref(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

/* --- load balancers --------------------------------------------------------------------------- */

static json_t *lb_json(const struct sc_elbv2_lb *b)
{
    json_t *o = json_object(), *zones = json_array();

    for (int i = 0; i < b->nzones; i++)
        json_array_append_new(zones, json_pack("{s:s,s:s,s:[]}", "ZoneName", b->zones[i],
                                               "SubnetId", b->subnets[i], "LoadBalancerAddresses"));
    set_str(o, "LoadBalancerArn", b->arn);
    set_str(o, "DNSName", b->dns_name);
    set_str(o, "CanonicalHostedZoneId", b->canonical_hosted_zone_id);
    json_object_set_new(o, "CreatedTime", json_integer(b->created_ms));
    set_str(o, "LoadBalancerName", b->name);
    set_str(o, "Scheme", b->scheme);
    set_str(o, "VpcId", b->vpc_id);
    json_object_set_new(o, "State", json_pack("{s:s}", "Code", b->state));
    set_str(o, "Type", b->type);
    json_object_set_new(o, "AvailabilityZones", zones);
    if (b->ipv4_ipam_pool_id)
        json_object_set_new(o, "IpamPools",
                            json_pack("{s:s}", "Ipv4IpamPoolId", b->ipv4_ipam_pool_id));
    if (strcmp(b->type, "application") == 0 || b->nsecurity_groups > 0)
        json_object_set_new(o, "SecurityGroups",
                            strs_json(b->security_groups, b->nsecurity_groups));
    set_str(o, "IpAddressType", b->ip_address_type);
    return o;
}

static int create_load_balancer(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elbv2_lb_req r = { 0 };
    const struct sc_elbv2_lb *b;
    struct sc_error se = { 0 };
    json_t *maps = json_object_get(in, "SubnetMappings");
    int rc = 0;

    r.name = api_str(in, "Name");
    r.type = api_str(in, "Type");
    r.scheme = api_str(in, "Scheme");
    r.ip_address_type = opt_str(in, "IpAddressType");
    r.subnets = api_strings(in, "Subnets", &r.nsubnets);
    if (json_array_size(maps) > 0) {
        const char **v = cm_xcalloc(json_array_size(maps), sizeof(*v));
        size_t i;
        json_t *e;

        if (r.nsubnets > 0) {
            free(v);
            free((void *)r.subnets);
            return awserr_set(err, 400, "ValidationError",
                              "You must specify either subnets or subnet mappings, not both");
        }
        json_array_foreach(maps, i, e) v[i] = api_str(e, "SubnetId");
        free((void *)r.subnets);
        r.subnets = v;
        r.nsubnets = (int)json_array_size(maps);
    }
    r.security_groups = api_strings(in, "SecurityGroups", &r.nsecurity_groups);
    r.tags = kv_get(in, "Tags", &r.ntags);
    if (sc_elbv2_create_load_balancer(v2_of(ctx), &r, ctx->now_ms, &b, &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = json_pack("{s:[o]}", "LoadBalancers", lb_json(b));
    free((void *)r.subnets);
    free((void *)r.security_groups);
    free((void *)r.tags);
    return rc;
}

static int delete_load_balancer(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };

    *out = NULL;
    if (sc_elbv2_delete_load_balancer(v2_of(ctx), api_str(in, "LoadBalancerArn"), ctx->now_ms,
                                      &se) != SC_OK)
        return fail(err, &se);
    return 0;
}

static int describe_load_balancers(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    struct sc_elbv2 *v2 = v2_of(ctx);
    struct sc_error se = { 0 };
    const char **arns, **names;
    const struct sc_elbv2_lb **rows;
    int na, nn, nout = 0, rc;

    arns = api_strings(in, "LoadBalancerArns", &na);
    names = api_strings(in, "Names", &nn);
    rows = cm_xcalloc((size_t)(sc_elbv2_lb_count(v2) + na + nn + 1), sizeof(*rows));
    if (sc_elbv2_describe_load_balancers(v2, arns, na, names, nn, rows, &nout, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, lb_json(rows[i]));
        rc = api_elbv2_page_out(a, in, "LoadBalancers", out, err);
    }
    free(rows);
    free(arns);
    free(names);
    return rc;
}

static int describe_attributes(struct api_ctx *ctx, json_t *in, const char *arn_member,
                               json_t **out, struct awserr *err)
{
    const struct sc_elbv2_kv *kv;
    struct sc_error se = { 0 };
    int n;

    if (sc_elbv2_describe_attributes(v2_of(ctx), api_str(in, arn_member), &kv, &n, &se) != SC_OK)
        return fail(err, &se);
    *out = json_pack("{s:o}", "Attributes", kv_json(kv, n));
    return 0;
}

static int modify_attributes(struct api_ctx *ctx, json_t *in, const char *arn_member, json_t **out,
                             struct awserr *err)
{
    struct sc_error se = { 0 };
    struct sc_elbv2_kv *kv;
    int n, rc;

    kv = kv_get(in, "Attributes", &n);
    if (sc_elbv2_modify_attributes(v2_of(ctx), api_str(in, arn_member), kv, n, ctx->now_ms, &se) !=
        SC_OK)
        rc = fail(err, &se);
    else
        rc = describe_attributes(ctx, in, arn_member, out, err);
    free(kv);
    return rc;
}

static int describe_lb_attributes(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return describe_attributes(ctx, in, "LoadBalancerArn", out, err);
}

static int modify_lb_attributes(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return modify_attributes(ctx, in, "LoadBalancerArn", out, err);
}

static int describe_tg_attributes(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return describe_attributes(ctx, in, "TargetGroupArn", out, err);
}

static int modify_tg_attributes(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return modify_attributes(ctx, in, "TargetGroupArn", out, err);
}

static int describe_listener_attributes(struct api_ctx *ctx, json_t *in, json_t **out,
                                        struct awserr *err)
{
    return describe_attributes(ctx, in, "ListenerArn", out, err);
}

static int modify_listener_attributes(struct api_ctx *ctx, json_t *in, json_t **out,
                                      struct awserr *err)
{
    return modify_attributes(ctx, in, "ListenerArn", out, err);
}

static int set_security_groups(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    const char *arn = api_str(in, "LoadBalancerArn");
    const char **g;
    int n, rc = 0;

    g = api_strings(in, "SecurityGroups", &n);
    if (sc_elbv2_set_security_groups(v2_of(ctx), arn, g, n, ctx->now_ms, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        const struct sc_elbv2_lb *b = sc_elbv2_lb_find(v2_of(ctx), arn);

        *out = json_pack("{s:o}", "SecurityGroupIds",
                         strs_json(b->security_groups, b->nsecurity_groups));
    }
    free(g);
    return rc;
}

static int set_subnets(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    const char *arn = api_str(in, "LoadBalancerArn");
    json_t *maps = json_object_get(in, "SubnetMappings");
    const char **s;
    int n, rc = 0;

    s = api_strings(in, "Subnets", &n);
    if (!s && json_array_size(maps) > 0) {
        size_t i;
        json_t *e;

        s = cm_xcalloc(json_array_size(maps), sizeof(*s));
        json_array_foreach(maps, i, e) s[i] = api_str(e, "SubnetId");
        n = (int)json_array_size(maps);
    }
    if (sc_elbv2_set_subnets(v2_of(ctx), arn, s, n, ctx->now_ms, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *lb = lb_json(sc_elbv2_lb_find(v2_of(ctx), arn));

        *out = json_pack("{s:O,s:O}", "AvailabilityZones", json_object_get(lb, "AvailabilityZones"),
                         "IpAddressType", json_object_get(lb, "IpAddressType"));
        json_decref(lb);
    }
    free(s);
    return rc;
}

static int set_ip_address_type(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };

    if (sc_elbv2_set_ip_address_type(v2_of(ctx), api_str(in, "LoadBalancerArn"),
                                     api_str(in, "IpAddressType"), ctx->now_ms, &se) != SC_OK)
        return fail(err, &se);
    *out = json_pack("{s:s}", "IpAddressType", api_str(in, "IpAddressType"));
    return 0;
}

/* --- target groups ---------------------------------------------------------------------------- */

static json_t *tg_json(const struct sc_elbv2_tg *g)
{
    json_t *o = json_object();

    set_str(o, "TargetGroupArn", g->arn);
    set_str(o, "TargetGroupName", g->name);
    set_str(o, "Protocol", g->protocol);
    json_object_set_new(o, "Port", json_integer(g->port));
    set_str(o, "VpcId", g->vpc_id);
    set_str(o, "HealthCheckProtocol", g->hc.protocol);
    set_str(o, "HealthCheckPort", g->hc.port);
    json_object_set_new(o, "HealthCheckEnabled", json_boolean(g->hc.enabled));
    json_object_set_new(o, "HealthCheckIntervalSeconds", json_integer(g->hc.interval_s));
    json_object_set_new(o, "HealthCheckTimeoutSeconds", json_integer(g->hc.timeout_s));
    json_object_set_new(o, "HealthyThresholdCount", json_integer(g->hc.healthy_threshold));
    json_object_set_new(o, "UnhealthyThresholdCount", json_integer(g->hc.unhealthy_threshold));
    set_str(o, "HealthCheckPath", g->hc.path);
    if (g->hc.matcher)
        json_object_set_new(o, "Matcher", json_pack("{s:s}", "HttpCode", g->hc.matcher));
    json_object_set_new(o, "LoadBalancerArns",
                        strs_json(g->load_balancer_arns, g->nload_balancer_arns));
    set_str(o, "TargetType", g->target_type);
    set_str(o, "ProtocolVersion", g->protocol_version);
    set_str(o, "IpAddressType", g->ip_address_type);
    return o;
}

static void hc_get(json_t *in, struct sc_elbv2_hc_req *h)
{
    json_t *m = json_object_get(in, "Matcher");

    h->protocol = api_str(in, "HealthCheckProtocol");
    h->port = api_str(in, "HealthCheckPort");
    h->path = api_str(in, "HealthCheckPath");
    h->matcher = api_str(m, "HttpCode");
    h->has_enabled = json_object_get(in, "HealthCheckEnabled") != NULL;
    h->enabled = api_bool(in, "HealthCheckEnabled", 1);
    h->has_interval = api_int(in, "HealthCheckIntervalSeconds", &h->interval_s);
    h->has_timeout = api_int(in, "HealthCheckTimeoutSeconds", &h->timeout_s);
    h->has_healthy = api_int(in, "HealthyThresholdCount", &h->healthy_threshold);
    h->has_unhealthy = api_int(in, "UnhealthyThresholdCount", &h->unhealthy_threshold);
}

static int create_target_group(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elbv2_tg_req r = { 0 };
    const struct sc_elbv2_tg *g;
    struct sc_error se = { 0 };
    int rc = 0;

    r.name = api_str(in, "Name");
    r.protocol = api_str(in, "Protocol");
    r.protocol_version = opt_str(in, "ProtocolVersion");
    r.has_port = api_int(in, "Port", &r.port);
    r.vpc_id = api_str(in, "VpcId");
    r.target_type = opt_str(in, "TargetType");
    r.ip_address_type = opt_str(in, "IpAddressType");
    hc_get(in, &r.hc);
    if (api_str(json_object_get(in, "Matcher"), "GrpcCode"))
        return awserr_set(err, 400, "ValidationError",
                          "A gRPC matcher can only be used with the GRPC protocol version");
    r.tags = kv_get(in, "Tags", &r.ntags);
    if (sc_elbv2_create_target_group(v2_of(ctx), &r, ctx->now_ms, &g, &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = json_pack("{s:[o]}", "TargetGroups", tg_json(g));
    free((void *)r.tags);
    return rc;
}

static int modify_target_group(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elbv2_hc_req h = { 0 };
    const struct sc_elbv2_tg *g;
    struct sc_error se = { 0 };

    hc_get(in, &h);
    if (sc_elbv2_modify_target_group(v2_of(ctx), api_str(in, "TargetGroupArn"), &h, ctx->now_ms, &g,
                                     &se) != SC_OK)
        return fail(err, &se);
    *out = json_pack("{s:[o]}", "TargetGroups", tg_json(g));
    return 0;
}

static int delete_target_group(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };

    *out = NULL;
    if (sc_elbv2_delete_target_group(v2_of(ctx), api_str(in, "TargetGroupArn"), ctx->now_ms, &se) !=
        SC_OK)
        return fail(err, &se);
    return 0;
}

static int describe_target_groups(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elbv2 *v2 = v2_of(ctx);
    struct sc_error se = { 0 };
    const char **arns, **names;
    const struct sc_elbv2_tg **rows;
    int na, nn, nout = 0, rc;

    arns = api_strings(in, "TargetGroupArns", &na);
    names = api_strings(in, "Names", &nn);
    rows = cm_xcalloc((size_t)(sc_elbv2_tg_count(v2) + na + nn + 1), sizeof(*rows));
    if (sc_elbv2_describe_target_groups(v2, api_str(in, "LoadBalancerArn"), arns, na, names, nn,
                                        rows, &nout, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, tg_json(rows[i]));
        rc = api_elbv2_page_out(a, in, "TargetGroups", out, err);
    }
    free(rows);
    free(arns);
    free(names);
    return rc;
}

static struct sc_elbv2_target_req *targets_get(json_t *in, int *n)
{
    json_t *a = json_object_get(in, "Targets");
    struct sc_elbv2_target_req *t;
    size_t i;
    json_t *e;

    *n = (int)json_array_size(a);
    t = cm_xcalloc((size_t)*n + 1, sizeof(*t));
    json_array_foreach(a, i, e)
    {
        t[i].id = api_str(e, "Id");
        api_int(e, "Port", &t[i].port);
        t[i].availability_zone = api_str(e, "AvailabilityZone");
    }
    return t;
}

static int register_targets(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    struct sc_elbv2_target_req *t;
    int n, rc = 0;

    *out = NULL;
    t = targets_get(in, &n);
    if (sc_elbv2_register_targets(v2_of(ctx), api_str(in, "TargetGroupArn"), t, n, ctx->now_ms,
                                  &se) != SC_OK)
        rc = fail(err, &se);
    free(t);
    return rc;
}

static int deregister_targets(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    struct sc_elbv2_target_req *t;
    int n, rc = 0;

    *out = NULL;
    t = targets_get(in, &n);
    if (sc_elbv2_deregister_targets(v2_of(ctx), api_str(in, "TargetGroupArn"), t, n, ctx->now_ms,
                                    &se) != SC_OK)
        rc = fail(err, &se);
    free(t);
    return rc;
}

static int describe_target_health(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elbv2 *v2 = v2_of(ctx);
    const char *arn = api_str(in, "TargetGroupArn");
    struct sc_error se = { 0 };
    struct sc_elbv2_target_req *t;
    struct sc_elbv2_target_health *h;
    int n, nt = sc_elbv2_target_count(v2, arn), nout = 0, rc = 0;

    t = targets_get(in, &n);
    h = cm_xcalloc((size_t)(n > nt ? n : nt) + 1, sizeof(*h));
    if (sc_elbv2_describe_target_health(v2, arn, t, n, h, &nout, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++) {
            json_t *target = json_pack("{s:s,s:i}", "Id", h[i].id, "Port", h[i].port);
            json_t *th = json_pack("{s:s}", "State", sc_elbv2_target_state_name(h[i].state));

            set_str(target, "AvailabilityZone", h[i].availability_zone);
            set_str(th, "Reason", h[i].reason);
            if (h[i].description[0])
                set_str(th, "Description", h[i].description);
            json_array_append_new(a, json_pack("{s:o,s:s,s:o}", "Target", target, "HealthCheckPort",
                                               h[i].health_check_port, "TargetHealth", th));
        }
        *out = json_pack("{s:o}", "TargetHealthDescriptions", a);
    }
    free(h);
    free(t);
    return rc;
}

/* --- actions and conditions ------------------------------------------------------------------- */

static json_t *action_json(const struct sc_elbv2_action *a)
{
    json_t *o = json_object();

    json_object_set_new(o, "Order", json_integer(a->order));
    if (a->type == SC_ELBV2_ACTION_FORWARD) {
        json_t *tgs = json_array();

        json_object_set_new(o, "Type", json_string("forward"));
        set_str(o, "TargetGroupArn", a->target_group_arn);
        for (int i = 0; i < a->nforward; i++)
            json_array_append_new(tgs, json_pack("{s:s,s:i}", "TargetGroupArn",
                                                 a->forward[i].target_group_arn, "Weight",
                                                 a->forward[i].weight));
        json_object_set_new(o, "ForwardConfig",
                            json_pack("{s:o,s:{s:b}}", "TargetGroups", tgs,
                                      "TargetGroupStickinessConfig", "Enabled",
                                      a->stickiness_enabled));
        if (a->stickiness_duration_s > 0)
            json_object_set_new(
                json_object_get(json_object_get(o, "ForwardConfig"), "TargetGroupStickinessConfig"),
                "DurationSeconds", json_integer(a->stickiness_duration_s));
    } else if (a->type == SC_ELBV2_ACTION_REDIRECT) {
        json_object_set_new(o, "Type", json_string("redirect"));
        json_object_set_new(o, "RedirectConfig",
                            json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "Protocol", a->redirect_protocol,
                                      "Port", a->redirect_port, "Host", a->redirect_host, "Path",
                                      a->redirect_path, "Query", a->redirect_query, "StatusCode",
                                      a->redirect_status));
    } else {
        json_t *f = json_pack("{s:s}", "StatusCode", a->fixed_status);

        json_object_set_new(o, "Type", json_string("fixed-response"));
        set_str(f, "MessageBody", a->fixed_body);
        set_str(f, "ContentType", a->fixed_content_type);
        json_object_set_new(o, "FixedResponseConfig", f);
    }
    return o;
}

static json_t *actions_json(const struct sc_elbv2_action *a, int n)
{
    json_t *arr = json_array();

    for (int i = 0; i < n; i++)
        json_array_append_new(arr, action_json(&a[i]));
    return arr;
}

/* Actions of a member into a (cap SC_ELBV2_MAX_ACTIONS); -1 with err on a bad one. */
static int actions_get(json_t *in, const char *member, struct sc_elbv2_action *a, int *n,
                       struct awserr *err)
{
    json_t *arr = json_object_get(in, member), *e;
    size_t i;

    *n = (int)json_array_size(arr);
    if (*n > SC_ELBV2_MAX_ACTIONS)
        return awserr_set(err, 400, "TooManyActions",
                          "You've reached the limit on the number of "
                          "actions per rule");
    json_array_foreach(arr, i, e)
    {
        const char *type = api_str(e, "Type");
        json_t *fc = json_object_get(e, "ForwardConfig");
        json_t *rc = json_object_get(e, "RedirectConfig");
        json_t *xc = json_object_get(e, "FixedResponseConfig");

        memset(&a[i], 0, sizeof(a[i]));
        api_int(e, "Order", &a[i].order);
        if (type && strcmp(type, "forward") == 0) {
            json_t *tgs = json_object_get(fc, "TargetGroups"), *s, *t;
            size_t k;

            a[i].type = SC_ELBV2_ACTION_FORWARD;
            a[i].target_group_arn = api_str(e, "TargetGroupArn");
            if (fc) {
                a[i].has_forward_config = 1;
                if (json_array_size(tgs) > SC_ELBV2_MAX_FORWARD)
                    return awserr_set(err, 400, "ValidationError",
                                      "You cannot specify more than %d target groups in a "
                                      "forward action",
                                      SC_ELBV2_MAX_FORWARD);
                json_array_foreach(tgs, k, t)
                {
                    a[i].forward[k].target_group_arn = api_str(t, "TargetGroupArn");
                    if (!api_int(t, "Weight", &a[i].forward[k].weight))
                        a[i].forward[k].weight = 1;
                }
                a[i].nforward = (int)json_array_size(tgs);
                s = json_object_get(fc, "TargetGroupStickinessConfig");
                a[i].stickiness_enabled = api_bool(s, "Enabled", 0);
                api_int(s, "DurationSeconds", &a[i].stickiness_duration_s);
            }
        } else if (type && strcmp(type, "redirect") == 0) {
            a[i].type = SC_ELBV2_ACTION_REDIRECT;
            if (!rc)
                return awserr_set(err, 400, "ValidationError",
                                  "A redirect configuration must be specified for redirect "
                                  "actions");
            a[i].redirect_protocol = api_str(rc, "Protocol");
            a[i].redirect_port = api_str(rc, "Port");
            a[i].redirect_host = api_str(rc, "Host");
            a[i].redirect_path = api_str(rc, "Path");
            a[i].redirect_query = api_str(rc, "Query");
            a[i].redirect_status = api_str(rc, "StatusCode");
        } else if (type && strcmp(type, "fixed-response") == 0) {
            a[i].type = SC_ELBV2_ACTION_FIXED_RESPONSE;
            if (!xc)
                return awserr_set(err, 400, "ValidationError",
                                  "A fixed response configuration must be specified for "
                                  "fixed-response actions");
            a[i].fixed_status = api_str(xc, "StatusCode");
            a[i].fixed_content_type = api_str(xc, "ContentType");
            a[i].fixed_body = api_str(xc, "MessageBody");
        } else {
            return awserr_set(err, 400, "InvalidLoadBalancerAction",
                              "The action type '%s' is not supported", type ? type : "");
        }
    }
    return 0;
}

static const char *const config_names[] = {
    "PathPatternConfig",       "HostHeaderConfig",  "HttpHeaderConfig",
    "HttpRequestMethodConfig", "QueryStringConfig", "SourceIpConfig",
};

static json_t *condition_json(const struct sc_elbv2_condition *c)
{
    json_t *o = json_pack("{s:s}", "Field", sc_elbv2_field_name(c->field));
    json_t *cfg = json_object();

    if (c->field == SC_ELBV2_QUERY_STRING) {
        json_t *a = json_array();

        for (int i = 0; i < c->nvalues; i++) {
            json_t *kv = json_pack("{s:s}", "Value", c->values[i]);

            set_str(kv, "Key", c->query_keys[i]);
            json_array_append_new(a, kv);
        }
        json_object_set_new(cfg, "Values", a);
    } else {
        json_object_set_new(cfg, "Values", strs_json(c->values, c->nvalues));
    }
    if (c->field == SC_ELBV2_HTTP_HEADER)
        set_str(cfg, "HttpHeaderName", c->header_name);
    if (c->legacy_values || c->field == SC_ELBV2_PATH_PATTERN || c->field == SC_ELBV2_HOST_HEADER)
        json_object_set_new(o, "Values", strs_json(c->values, c->nvalues));
    json_object_set_new(o, config_names[c->field], cfg);
    return o;
}

static int conditions_get(json_t *in, struct sc_elbv2_condition *c, int *n, struct awserr *err)
{
    json_t *arr = json_object_get(in, "Conditions"), *e;
    size_t i;

    *n = (int)json_array_size(arr);
    if (*n > SC_ELBV2_MAX_CONDITIONS)
        return awserr_set(err, 400, "ValidationError", "Too many conditions");
    json_array_foreach(arr, i, e)
    {
        int f = sc_elbv2_field_parse(api_str(e, "Field"));
        json_t *cfg, *vals, *v;
        size_t k;

        memset(&c[i], 0, sizeof(c[i]));
        if (f < 0)
            return awserr_set(err, 400, "ValidationError", "Condition field '%s' is not valid",
                              api_str(e, "Field") ? api_str(e, "Field") : "");
        if (json_object_get(e, "RegexValues"))
            return awserr_set(err, 400, "ValidationError",
                              "Regular expression conditions are not supported");
        c[i].field = (enum sc_elbv2_field)f;
        cfg = json_object_get(e, config_names[f]);
        vals = cfg ? json_object_get(cfg, "Values") : json_object_get(e, "Values");
        if (!cfg && (f == SC_ELBV2_PATH_PATTERN || f == SC_ELBV2_HOST_HEADER))
            c[i].legacy_values = 1;
        if (json_array_size(vals) > SC_ELBV2_MAX_VALUES)
            return awserr_set(err, 400, "ValidationError",
                              "A rule can only have '%d' condition values", SC_ELBV2_MAX_VALUES);
        c[i].header_name = api_str(cfg, "HttpHeaderName");
        json_array_foreach(vals, k, v)
        {
            if (f == SC_ELBV2_QUERY_STRING) {
                c[i].query_keys[k] = api_str(v, "Key");
                c[i].values[k] = api_str(v, "Value");
            } else {
                c[i].values[k] = json_string_value(v);
            }
        }
        c[i].nvalues = (int)json_array_size(vals);
    }
    return 0;
}

/* --- listeners -------------------------------------------------------------------------------- */

static json_t *listener_json(const struct sc_elbv2_listener *l)
{
    json_t *o = json_object(), *certs = json_array();

    for (int i = 0; i < l->ncertificates; i++)
        json_array_append_new(certs, json_pack("{s:s}", "CertificateArn", l->certificates[i]));
    set_str(o, "ListenerArn", l->arn);
    set_str(o, "LoadBalancerArn", l->load_balancer_arn);
    json_object_set_new(o, "Port", json_integer(l->port));
    set_str(o, "Protocol", l->protocol);
    if (l->ncertificates > 0)
        json_object_set_new(o, "Certificates", certs);
    else
        json_decref(certs);
    set_str(o, "SslPolicy", l->ssl_policy);
    json_object_set_new(o, "DefaultActions", actions_json(l->default_actions, l->ndefault_actions));
    if (l->alpn_policy)
        json_object_set_new(o, "AlpnPolicy", json_pack("[s]", l->alpn_policy));
    if (l->mutual_auth)
        json_object_set_new(o, "MutualAuthentication", api_elbv2_mutual_auth_json(l->mutual_auth));
    return o;
}

static int listener_req(json_t *in, struct sc_elbv2_listener_req *r, struct sc_elbv2_action *a,
                        struct awserr *err)
{
    json_t *certs = json_object_get(in, "Certificates"), *e;
    size_t i;

    r->protocol = api_str(in, "Protocol");
    r->has_port = api_int(in, "Port", &r->port);
    r->ssl_policy = api_str(in, "SslPolicy");
    r->alpn_policy = json_string_value(json_array_get(json_object_get(in, "AlpnPolicy"), 0));
    if (json_array_size(certs) > 0) {
        const char **v = cm_xcalloc(json_array_size(certs), sizeof(*v));

        json_array_foreach(certs, i, e) v[i] = api_str(e, "CertificateArn");
        r->certificates = v;
        r->ncertificates = (int)json_array_size(certs);
    }
    if (json_object_get(in, "DefaultActions")) {
        if (actions_get(in, "DefaultActions", a, &r->nactions, err) != 0)
            return -1;
        r->actions = a;
    }
    return 0;
}

static int create_listener(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elbv2_mutual_auth mt;
    struct sc_elbv2_listener_req r = { 0 };
    struct sc_elbv2_action a[SC_ELBV2_MAX_ACTIONS];
    const struct sc_elbv2_listener *l;
    struct sc_error se = { 0 };
    int rc = 0;

    r.load_balancer_arn = api_str(in, "LoadBalancerArn");
    r.mutual_auth = api_elbv2_mutual_auth_get(in, &mt);
    if (listener_req(in, &r, a, err) != 0) {
        rc = -1;
    } else {
        r.tags = kv_get(in, "Tags", &r.ntags);
        if (sc_elbv2_create_listener(v2_of(ctx), &r, ctx->now_ms, &l, &se) != SC_OK)
            rc = fail(err, &se);
        else
            *out = json_pack("{s:[o]}", "Listeners", listener_json(l));
    }
    free((void *)r.certificates);
    free((void *)r.tags);
    return rc;
}

static int modify_listener(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elbv2_mutual_auth mt;
    struct sc_elbv2_listener_req r = { 0 };
    struct sc_elbv2_action a[SC_ELBV2_MAX_ACTIONS];
    const struct sc_elbv2_listener *l;
    struct sc_error se = { 0 };
    int rc = 0;

    r.mutual_auth = api_elbv2_mutual_auth_get(in, &mt);
    if (listener_req(in, &r, a, err) != 0)
        rc = -1;
    else if (sc_elbv2_modify_listener(v2_of(ctx), api_str(in, "ListenerArn"), &r, ctx->now_ms, &l,
                                      &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = json_pack("{s:[o]}", "Listeners", listener_json(l));
    free((void *)r.certificates);
    return rc;
}

static int delete_listener(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };

    *out = NULL;
    if (sc_elbv2_delete_listener(v2_of(ctx), api_str(in, "ListenerArn"), ctx->now_ms, &se) != SC_OK)
        return fail(err, &se);
    return 0;
}

static int describe_listeners(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elbv2 *v2 = v2_of(ctx);
    struct sc_error se = { 0 };
    const struct sc_elbv2_listener **rows;
    const char **arns;
    int na, nout = 0, rc;

    arns = api_strings(in, "ListenerArns", &na);
    rows = cm_xcalloc((size_t)(sc_elbv2_listener_count(v2) + na + 1), sizeof(*rows));
    if (sc_elbv2_describe_listeners(v2, api_str(in, "LoadBalancerArn"), arns, na, rows, &nout,
                                    &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, listener_json(rows[i]));
        rc = api_elbv2_page_out(a, in, "Listeners", out, err);
    }
    free(rows);
    free(arns);
    return rc;
}

static int listener_certificates(struct api_ctx *ctx, json_t *in, json_t **out, int remove,
                                 struct awserr *err)
{
    json_t *certs = json_object_get(in, "Certificates"), *e;
    const char **v = cm_xcalloc(json_array_size(certs) + 1, sizeof(*v));
    struct sc_error se = { 0 };
    size_t i;
    int rc = 0;

    json_array_foreach(certs, i, e) v[i] = api_str(e, "CertificateArn");
    if (sc_elbv2_listener_certificates(v2_of(ctx), api_str(in, "ListenerArn"), v,
                                       (int)json_array_size(certs), remove, ctx->now_ms,
                                       &se) != SC_OK)
        rc = fail(err, &se);
    else if (remove)
        *out = NULL;
    else
        *out = json_pack("{s:O}", "Certificates", certs);
    free(v);
    return rc;
}

static int add_listener_certificates(struct api_ctx *ctx, json_t *in, json_t **out,
                                     struct awserr *err)
{
    return listener_certificates(ctx, in, out, 0, err);
}

static int remove_listener_certificates(struct api_ctx *ctx, json_t *in, json_t **out,
                                        struct awserr *err)
{
    return listener_certificates(ctx, in, out, 1, err);
}

static int describe_listener_certificates(struct api_ctx *ctx, json_t *in, json_t **out,
                                          struct awserr *err)
{
    const struct sc_elbv2_listener *l =
        sc_elbv2_listener_find(v2_of(ctx), api_str(in, "ListenerArn"));
    json_t *a;

    if (!l)
        return awserr_set(err, 400, "ListenerNotFound", "One or more listeners not found");
    a = json_array();
    for (int i = 0; i < l->ncertificates; i++)
        json_array_append_new(
            a, json_pack("{s:s,s:b}", "CertificateArn", l->certificates[i], "IsDefault", i == 0));
    return api_elbv2_page_out(a, in, "Certificates", out, err);
}

/* --- rules ------------------------------------------------------------------------------------ */

static json_t *rule_json(const struct sc_elbv2_rule *r)
{
    json_t *conds = json_array();
    char prio[16];

    for (int i = 0; i < r->nconditions; i++)
        json_array_append_new(conds, condition_json(&r->conditions[i]));
    if (r->is_default)
        snprintf(prio, sizeof(prio), "default");
    else
        snprintf(prio, sizeof(prio), "%d", r->priority);
    return json_pack("{s:s,s:s,s:o,s:o,s:b}", "RuleArn", r->arn, "Priority", prio, "Conditions",
                     conds, "Actions", actions_json(r->actions, r->nactions), "IsDefault",
                     r->is_default);
}

static int create_rule(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elbv2_rule_req r = { 0 };
    struct sc_elbv2_condition c[SC_ELBV2_MAX_CONDITIONS];
    struct sc_elbv2_action a[SC_ELBV2_MAX_ACTIONS];
    const struct sc_elbv2_rule *rule;
    struct sc_error se = { 0 };
    int rc;

    r.listener_arn = api_str(in, "ListenerArn");
    r.has_priority = api_int(in, "Priority", &r.priority);
    if (json_object_get(in, "Transforms"))
        return awserr_set(err, 400, "ValidationError", "Rule transforms are not supported");
    if (conditions_get(in, c, &r.nconditions, err) != 0 ||
        actions_get(in, "Actions", a, &r.nactions, err) != 0)
        return -1;
    r.conditions = c;
    r.actions = a;
    r.tags = kv_get(in, "Tags", &r.ntags);
    if (sc_elbv2_create_rule(v2_of(ctx), &r, ctx->now_ms, &rule, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        *out = json_pack("{s:[o]}", "Rules", rule_json(rule));
        rc = 0;
    }
    free((void *)r.tags);
    return rc;
}

static int modify_rule(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elbv2_rule_req r = { 0 };
    struct sc_elbv2_condition c[SC_ELBV2_MAX_CONDITIONS];
    struct sc_elbv2_action a[SC_ELBV2_MAX_ACTIONS];
    const struct sc_elbv2_rule *rule;
    struct sc_error se = { 0 };

    if (json_object_get(in, "Conditions")) {
        if (conditions_get(in, c, &r.nconditions, err) != 0)
            return -1;
        r.conditions = c;
    }
    if (json_object_get(in, "Actions")) {
        if (actions_get(in, "Actions", a, &r.nactions, err) != 0)
            return -1;
        r.actions = a;
    }
    if (sc_elbv2_modify_rule(v2_of(ctx), api_str(in, "RuleArn"), &r, ctx->now_ms, &rule, &se) !=
        SC_OK)
        return fail(err, &se);
    *out = json_pack("{s:[o]}", "Rules", rule_json(rule));
    return 0;
}

static int delete_rule(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };

    *out = NULL;
    if (sc_elbv2_delete_rule(v2_of(ctx), api_str(in, "RuleArn"), ctx->now_ms, &se) != SC_OK)
        return fail(err, &se);
    return 0;
}

static int describe_rules(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elbv2 *v2 = v2_of(ctx);
    struct sc_error se = { 0 };
    const struct sc_elbv2_rule **rows;
    const char **arns;
    int na, nout = 0, rc;

    arns = api_strings(in, "RuleArns", &na);
    rows = cm_xcalloc((size_t)(sc_elbv2_rule_count(v2) + na + 1), sizeof(*rows));
    if (sc_elbv2_describe_rules(v2, api_str(in, "ListenerArn"), arns, na, rows, &nout, &se) !=
        SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, rule_json(rows[i]));
        rc = api_elbv2_page_out(a, in, "Rules", out, err);
    }
    free(rows);
    free(arns);
    return rc;
}

static int set_rule_priorities(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    json_t *pairs = json_object_get(in, "RulePriorities"), *e;
    size_t n = json_array_size(pairs), i;
    const char **arns = cm_xcalloc(n + 1, sizeof(*arns));
    int *prio = cm_xcalloc(n + 1, sizeof(*prio));
    struct sc_error se = { 0 };
    int rc = 0;

    json_array_foreach(pairs, i, e)
    {
        arns[i] = api_str(e, "RuleArn");
        api_int(e, "Priority", &prio[i]);
    }
    if (sc_elbv2_set_rule_priorities(v2_of(ctx), arns, prio, (int)n, ctx->now_ms, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (i = 0; i < n; i++)
            json_array_append_new(a, rule_json(sc_elbv2_rule_find(v2_of(ctx), arns[i])));
        *out = json_pack("{s:o}", "Rules", a);
    }
    free(arns);
    free(prio);
    return rc;
}

/* --- tags ------------------------------------------------------------------------------------- */

static int add_tags(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    struct sc_elbv2_kv *kv;
    const char **arns;
    int na, n, rc = 0;

    *out = NULL;
    arns = api_strings(in, "ResourceArns", &na);
    kv = kv_get(in, "Tags", &n);
    if (sc_elbv2_add_tags(v2_of(ctx), arns, na, kv, n, ctx->now_ms, &se) != SC_OK)
        rc = fail(err, &se);
    free(arns);
    free(kv);
    return rc;
}

static int remove_tags(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    const char **arns, **keys;
    int na, nk, rc = 0;

    *out = NULL;
    arns = api_strings(in, "ResourceArns", &na);
    keys = api_strings(in, "TagKeys", &nk);
    if (sc_elbv2_remove_tags(v2_of(ctx), arns, na, keys, nk, ctx->now_ms, &se) != SC_OK)
        rc = fail(err, &se);
    free(arns);
    free(keys);
    return rc;
}

static int describe_tags(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    const char **arns;
    json_t *a = json_array();
    int na;

    arns = api_strings(in, "ResourceArns", &na);
    for (int i = 0; i < na; i++) {
        const struct sc_elbv2_kv *kv;
        int n;

        if (sc_elbv2_tags(v2_of(ctx), arns[i], &kv, &n, &se) != SC_OK) {
            json_decref(a);
            free(arns);
            return fail(err, &se);
        }
        json_array_append_new(
            a, json_pack("{s:s,s:o}", "ResourceArn", arns[i], "Tags", kv_json(kv, n)));
    }
    free(arns);
    *out = json_pack("{s:o}", "TagDescriptions", a);
    return 0;
}

/* --- catalogue -------------------------------------------------------------------------------- */

static int describe_ssl_policies(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    const char **names;
    const char *type = api_str(in, "LoadBalancerType");
    json_t *a = json_array();
    int nn;

    (void)ctx;
    names = api_strings(in, "Names", &nn);
    for (int i = 0; i < nn; i++) {
        if (!sc_elbv2_ssl_policy_find(names[i])) {
            awserr_set(err, 400, "SSLPolicyNotFound", "SSL policy '%s' not found", names[i]);
            json_decref(a);
            free(names);
            return -1;
        }
    }
    for (int i = 0; i < sc_elbv2_ssl_policy_count(); i++) {
        const struct sc_elbv2_ssl_policy *p = sc_elbv2_ssl_policy_at(i);
        json_t *ciphers = json_array();
        int want = nn == 0;

        for (int k = 0; k < nn; k++)
            want |= strcmp(names[k], p->name) == 0;
        if (type) {
            int takes = 0;

            for (int k = 0; k < p->nload_balancer_types; k++)
                takes |= strcmp(p->load_balancer_types[k], type) == 0;
            want &= takes;
        }
        if (!want) {
            json_decref(ciphers);
            continue;
        }
        for (int k = 0; k < p->nciphers; k++)
            json_array_append_new(ciphers,
                                  json_pack("{s:s,s:i}", "Name", p->ciphers[k], "Priority", k + 1));
        json_array_append_new(
            a,
            json_pack("{s:o,s:o,s:s,s:o}", "SslProtocols", strs_json(p->protocols, p->nprotocols),
                      "Ciphers", ciphers, "Name", p->name, "SupportedLoadBalancerTypes",
                      strs_json(p->load_balancer_types, p->nload_balancer_types)));
    }
    free(names);
    return api_elbv2_page_out(a, in, "SslPolicies", out, err);
}

static int describe_account_limits(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    json_t *a = json_array();

    (void)ctx;
    for (int i = 0; i < sc_elbv2_limit_count(); i++) {
        const struct sc_elbv2_kv *l = sc_elbv2_limit_at(i);

        json_array_append_new(a, json_pack("{s:s,s:s}", "Name", l->key, "Max", l->value));
    }
    return api_elbv2_page_out(a, in, "Limits", out, err);
}

const struct api_handler api_elbv2_handlers[] = {
    { "AddListenerCertificates", add_listener_certificates, API_MUTATES },
    { "AddTags", add_tags, API_MUTATES },
    { "AddTrustStoreRevocations", api_elbv2_add_trust_store_revocations, API_MUTATES },
    { "CreateListener", create_listener, API_MUTATES },
    { "CreateLoadBalancer", create_load_balancer, API_MUTATES },
    { "CreateRule", create_rule, API_MUTATES },
    { "CreateTargetGroup", create_target_group, API_MUTATES },
    { "CreateTrustStore", api_elbv2_create_trust_store, API_MUTATES },
    { "DeleteListener", delete_listener, API_MUTATES },
    { "DeleteLoadBalancer", delete_load_balancer, API_MUTATES },
    { "DeleteRule", delete_rule, API_MUTATES },
    { "DeleteSharedTrustStoreAssociation", api_elbv2_delete_shared_trust_store_association,
      API_MUTATES },
    { "DeleteTargetGroup", delete_target_group, API_MUTATES },
    { "DeleteTrustStore", api_elbv2_delete_trust_store, API_MUTATES },
    { "DeregisterTargets", deregister_targets, API_MUTATES },
    { "DescribeAccountLimits", describe_account_limits, API_WORLDLESS },
    { "DescribeCapacityReservation", api_elbv2_describe_capacity_reservation, 0 },
    { "DescribeListenerAttributes", describe_listener_attributes, 0 },
    { "DescribeListenerCertificates", describe_listener_certificates, 0 },
    { "DescribeListeners", describe_listeners, 0 },
    { "DescribeLoadBalancerAttributes", describe_lb_attributes, 0 },
    { "DescribeLoadBalancers", describe_load_balancers, 0 },
    { "DescribeRules", describe_rules, 0 },
    { "DescribeSSLPolicies", describe_ssl_policies, API_WORLDLESS },
    { "DescribeTags", describe_tags, 0 },
    { "DescribeTargetGroupAttributes", describe_tg_attributes, 0 },
    { "DescribeTargetGroups", describe_target_groups, 0 },
    { "DescribeTargetHealth", describe_target_health, 0 },
    { "DescribeTrustStoreAssociations", api_elbv2_describe_trust_store_associations, 0 },
    { "DescribeTrustStoreRevocations", api_elbv2_describe_trust_store_revocations, 0 },
    { "DescribeTrustStores", api_elbv2_describe_trust_stores, 0 },
    { "GetResourcePolicy", api_elbv2_get_resource_policy, 0 },
    { "GetTrustStoreCaCertificatesBundle", api_elbv2_get_trust_store_ca_certificates_bundle, 0 },
    { "GetTrustStoreRevocationContent", api_elbv2_get_trust_store_revocation_content, 0 },
    { "ModifyCapacityReservation", api_elbv2_modify_capacity_reservation, API_MUTATES },
    { "ModifyIpPools", api_elbv2_modify_ip_pools, API_MUTATES },
    { "ModifyListener", modify_listener, API_MUTATES },
    { "ModifyListenerAttributes", modify_listener_attributes, API_MUTATES },
    { "ModifyLoadBalancerAttributes", modify_lb_attributes, API_MUTATES },
    { "ModifyRule", modify_rule, API_MUTATES },
    { "ModifyTargetGroup", modify_target_group, API_MUTATES },
    { "ModifyTargetGroupAttributes", modify_tg_attributes, API_MUTATES },
    { "ModifyTrustStore", api_elbv2_modify_trust_store, API_MUTATES },
    { "RegisterTargets", register_targets, API_MUTATES },
    { "RemoveListenerCertificates", remove_listener_certificates, API_MUTATES },
    { "RemoveTags", remove_tags, API_MUTATES },
    { "RemoveTrustStoreRevocations", api_elbv2_remove_trust_store_revocations, API_MUTATES },
    { "SetIpAddressType", set_ip_address_type, API_MUTATES },
    { "SetRulePriorities", set_rule_priorities, API_MUTATES },
    { "SetSecurityGroups", set_security_groups, API_MUTATES },
    { "SetSubnets", set_subnets, API_MUTATES },
    { NULL, NULL, 0 },
};
