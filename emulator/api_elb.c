/* emulator/api_elb.c: classic ELB handlers over scaler/elb.h (IR in -> one sc_elb call
 * -> IR out). Every rule and message is the library's. */
#include "emulator/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/elb.h"
#include "scaler/world.h"

static int fail(struct awserr *err, const struct sc_error *se)
{
    return awserr_from_sc(err, se);
}

static json_t *cstrs_json(const char *const *v, int n)
{
    json_t *a = json_array();

    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static void set_str(json_t *o, const char *k, const char *v)
{
    if (v)
        json_object_set_new(o, k, json_string(v));
}

/* Listeners of the request (borrowed strings); free() the array. */
static struct sc_elb_listener *listeners_get(json_t *in, int *n)
{
    json_t *a = json_object_get(in, "Listeners");
    struct sc_elb_listener *l;
    size_t i;
    json_t *e;

    *n = (int)json_array_size(a);
    l = cm_xcalloc((size_t)*n + 1, sizeof(*l));
    json_array_foreach(a, i, e)
    {
        l[i].protocol = api_str(e, "Protocol");
        api_int(e, "LoadBalancerPort", &l[i].load_balancer_port);
        l[i].instance_protocol = api_str(e, "InstanceProtocol");
        api_int(e, "InstancePort", &l[i].instance_port);
        l[i].ssl_certificate_id = api_str(e, "SSLCertificateId");
    }
    return l;
}

static struct sc_elb_tag *tags_get(json_t *in, int *n)
{
    json_t *a = json_object_get(in, "Tags");
    struct sc_elb_tag *t;
    size_t i;
    json_t *e;

    *n = (int)json_array_size(a);
    t = cm_xcalloc((size_t)*n + 1, sizeof(*t));
    json_array_foreach(a, i, e)
    {
        t[i].key = api_str(e, "Key");
        t[i].value = api_str(e, "Value") ? api_str(e, "Value") : "";
    }
    return t;
}

/* InstanceIds of a [{InstanceId}] member; free() the array. */
static const char **instance_ids(json_t *in, int *n)
{
    json_t *a = json_object_get(in, "Instances");
    const char **v;
    size_t i;
    json_t *e;

    *n = 0;
    v = cm_xcalloc(json_array_size(a) + 1, sizeof(*v));
    json_array_foreach(a, i, e)
    {
        if (api_str(e, "InstanceId"))
            v[(*n)++] = api_str(e, "InstanceId");
    }
    return v;
}

static json_t *instances_json(const char *const *ids, int n)
{
    json_t *a = json_array();

    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{s:s}", "InstanceId", ids[i]));
    return a;
}

static json_t *hc_json(const struct sc_elb_health_check *hc)
{
    return json_pack("{s:s,s:i,s:i,s:i,s:i}", "Target", hc->target ? hc->target : "", "Interval",
                     hc->interval_s, "Timeout", hc->timeout_s, "UnhealthyThreshold",
                     hc->unhealthy_threshold, "HealthyThreshold", hc->healthy_threshold);
}

static json_t *attrs_json(const struct sc_elb_attributes *a)
{
    json_t *al = json_pack("{s:b,s:i}", "Enabled", a->access_log_enabled, "EmitInterval",
                           a->access_log_emit_interval);

    set_str(al, "S3BucketName", a->access_log_s3_bucket_name);
    set_str(al, "S3BucketPrefix", a->access_log_s3_bucket_prefix);
    return json_pack("{s:{s:b},s:o,s:{s:b,s:i},s:{s:i},s:[]}", "CrossZoneLoadBalancing", "Enabled",
                     a->cross_zone_enabled, "AccessLog", al, "ConnectionDraining", "Enabled",
                     a->connection_draining_enabled, "Timeout", a->connection_draining_timeout_s,
                     "ConnectionSettings", "IdleTimeout", a->idle_timeout_s,
                     "AdditionalAttributes");
}

/* The value of attribute name of a policy, or NULL. */
static const char *policy_attr(const struct sc_elb_policy *p, const char *name)
{
    for (int i = 0; i < p->nattrs; i++) {
        if (strcmp(p->attrs[i].name, name) == 0)
            return p->attrs[i].value;
    }
    return NULL;
}

/* DescribeLoadBalancers' Policies: stickiness policies by kind, the others by name. */
static json_t *policies_json(const struct sc_elb *elb, const char *name)
{
    json_t *app = json_array(), *lbc = json_array(), *other = json_array();
    int n = sc_elb_policy_count(elb, name), nout = 0;
    const struct sc_elb_policy **rows = cm_xcalloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*rows));

    if (sc_elb_describe_policies(elb, name, NULL, 0, rows, &nout, NULL) != SC_OK)
        nout = 0;
    for (int i = 0; i < nout; i++) {
        const struct sc_elb_policy *p = rows[i];

        if (strcmp(p->policy_type_name, "AppCookieStickinessPolicyType") == 0) {
            json_array_append_new(app, json_pack("{s:s,s:s?}", "PolicyName", p->policy_name,
                                                 "CookieName", policy_attr(p, "CookieName")));
        } else if (strcmp(p->policy_type_name, "LBCookieStickinessPolicyType") == 0) {
            const char *exp = policy_attr(p, "CookieExpirationPeriod");
            json_t *o = json_pack("{s:s}", "PolicyName", p->policy_name);

            if (exp)
                json_object_set_new(o, "CookieExpirationPeriod",
                                    json_integer(strtoll(exp, NULL, 10)));
            json_array_append_new(lbc, o);
        } else {
            json_array_append_new(other, json_string(p->policy_name));
        }
    }
    free(rows);
    return json_pack("{s:o,s:o,s:o}", "AppCookieStickinessPolicies", app,
                     "LBCookieStickinessPolicies", lbc, "OtherPolicies", other);
}

static json_t *backends_json(const struct sc_elb *elb, const char *name)
{
    json_t *a = json_array();
    int nb = sc_elb_backend_count(elb, name);

    for (int i = 0; i < nb; i++) {
        const char *const *names;
        int port, n;

        if (sc_elb_backend_at(elb, name, i, &port, &names, &n) == 0)
            json_array_append_new(a, json_pack("{s:i,s:o}", "InstancePort", port, "PolicyNames",
                                               cstrs_json(names, n)));
    }
    return a;
}

static json_t *lb_json(const struct sc_elb *elb, const struct sc_elb_lb *lb)
{
    json_t *o = json_object();
    json_t *ls = json_array();

    set_str(o, "LoadBalancerName", lb->load_balancer_name);
    set_str(o, "DNSName", lb->dns_name);
    set_str(o, "CanonicalHostedZoneName", lb->canonical_hosted_zone_name);
    set_str(o, "CanonicalHostedZoneNameID", lb->canonical_hosted_zone_name_id);
    for (int i = 0; i < lb->nlisteners; i++) {
        const struct sc_elb_listener *l = &lb->listeners[i];
        json_t *lo = json_pack("{s:s,s:i,s:s,s:i}", "Protocol", l->protocol, "LoadBalancerPort",
                               l->load_balancer_port, "InstanceProtocol",
                               l->instance_protocol ? l->instance_protocol : l->protocol,
                               "InstancePort", l->instance_port);

        const char *const *names;
        int np = sc_elb_listener_policy_names(elb, lb->load_balancer_name, l->load_balancer_port,
                                              &names);

        set_str(lo, "SSLCertificateId", l->ssl_certificate_id);
        json_array_append_new(ls, json_pack("{s:o,s:o}", "Listener", lo, "PolicyNames",
                                            cstrs_json(names, np > 0 ? np : 0)));
    }
    json_object_set_new(o, "ListenerDescriptions", ls);
    json_object_set_new(o, "Policies", policies_json(elb, lb->load_balancer_name));
    json_object_set_new(o, "BackendServerDescriptions", backends_json(elb, lb->load_balancer_name));
    json_object_set_new(o, "AvailabilityZones", cstrs_json(lb->availability_zones, lb->nzones));
    json_object_set_new(o, "Subnets", cstrs_json(lb->subnets, lb->nsubnets));
    set_str(o, "VPCId", lb->vpc_id);
    json_object_set_new(o, "Instances", instances_json(lb->instances, lb->ninstances));
    json_object_set_new(o, "HealthCheck", hc_json(&lb->health_check));
    json_object_set_new(o, "SourceSecurityGroup",
                        json_pack("{s:s?,s:s?}", "OwnerAlias",
                                  lb->source_security_group_owner_alias, "GroupName",
                                  lb->source_security_group_name));
    json_object_set_new(o, "SecurityGroups", cstrs_json(lb->security_groups, lb->nsecurity_groups));
    json_object_set_new(o, "CreatedTime", json_integer(lb->created_time_ms));
    set_str(o, "Scheme", lb->scheme);
    return o;
}

static int create_load_balancer(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    struct sc_elb_create_req rq;
    const struct sc_elb_lb *lb = NULL;
    int rc = 0;

    memset(&rq, 0, sizeof(rq));
    rq.load_balancer_name = api_str(in, "LoadBalancerName");
    rq.listeners = listeners_get(in, &rq.nlisteners);
    rq.availability_zones = api_strings(in, "AvailabilityZones", &rq.nzones);
    rq.subnets = api_strings(in, "Subnets", &rq.nsubnets);
    rq.security_groups = api_strings(in, "SecurityGroups", &rq.nsecurity_groups);
    rq.scheme = api_str(in, "Scheme");
    rq.tags = tags_get(in, &rq.ntags);
    if (sc_elb_create_load_balancer(elb, &rq, ctx->now_ms, &lb, &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = json_pack("{s:s}", "DNSName", lb->dns_name);
    free((void *)rq.listeners);
    free((void *)rq.availability_zones);
    free((void *)rq.subnets);
    free((void *)rq.security_groups);
    free((void *)rq.tags);
    return rc;
}

static int delete_load_balancer(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };

    *out = NULL;
    if (sc_elb_delete_load_balancer(elb, api_str(in, "LoadBalancerName"), ctx->now_ms, &se) !=
        SC_OK)
        return fail(err, &se);
    return 0;
}

static int describe_load_balancers(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    const struct sc_elb_lb **rows;
    const char **names;
    char next[256] = "";
    int nn, nout = 0, page = 400, rc = 0;

    names = api_strings(in, "LoadBalancerNames", &nn);
    api_int(in, "PageSize", &page);
    rows = cm_xcalloc((size_t)sc_elb_lb_count(elb) + (size_t)nn + 1, sizeof(*rows));
    if (sc_elb_describe_load_balancers(elb, names, nn, api_str(in, "Marker"), page, rows, &nout,
                                       next, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, lb_json(elb, rows[i]));
        *out = json_pack("{s:o}", "LoadBalancerDescriptions", a);
        if (next[0])
            json_object_set_new(*out, "NextMarker", json_string(next));
    }
    free(rows);
    free(names);
    return rc;
}

static int create_listeners(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    struct sc_elb_listener *l;
    int n, rc = 0;

    *out = NULL;
    l = listeners_get(in, &n);
    if (sc_elb_create_listeners(elb, api_str(in, "LoadBalancerName"), l, n, ctx->now_ms, &se) !=
        SC_OK)
        rc = fail(err, &se);
    free(l);
    return rc;
}

static int delete_listeners(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    json_t *a = json_object_get(in, "LoadBalancerPorts");
    int *ports, rc = 0;
    size_t i;
    json_t *e;

    *out = NULL;
    ports = cm_xcalloc(json_array_size(a) + 1, sizeof(*ports));
    json_array_foreach(a, i, e) ports[i] = (int)json_integer_value(e);
    if (sc_elb_delete_listeners(elb, api_str(in, "LoadBalancerName"), ports,
                                (int)json_array_size(a), ctx->now_ms, &se) != SC_OK)
        rc = fail(err, &se);
    free(ports);
    return rc;
}

static int configure_health_check(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    json_t *h = json_object_get(in, "HealthCheck");
    struct sc_elb_health_check hc;
    const struct sc_elb_health_check *res = NULL;

    memset(&hc, 0, sizeof(hc));
    hc.target = api_str(h, "Target");
    api_int(h, "Interval", &hc.interval_s);
    api_int(h, "Timeout", &hc.timeout_s);
    api_int(h, "UnhealthyThreshold", &hc.unhealthy_threshold);
    api_int(h, "HealthyThreshold", &hc.healthy_threshold);
    if (sc_elb_configure_health_check(elb, api_str(in, "LoadBalancerName"), &hc, ctx->now_ms, &res,
                                      &se) != SC_OK)
        return fail(err, &se);
    *out = json_pack("{s:o}", "HealthCheck", hc_json(res ? res : &hc));
    return 0;
}

static int register_op(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err, int reg)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    const char *name = api_str(in, "LoadBalancerName");
    const char **ids;
    int n, rc = 0;
    enum sc_status st;

    ids = instance_ids(in, &n);
    if (reg)
        st = sc_elb_register_instances(elb, name, ids, n, ctx->now_ms, &se);
    else
        st = sc_elb_deregister_instances(elb, name, ids, n, ctx->now_ms, &se);
    if (st != SC_OK) {
        rc = fail(err, &se);
    } else {
        const struct sc_elb_lb *lb = sc_elb_lb_find(elb, name);

        *out = json_pack("{s:o}", "Instances",
                         lb ? instances_json(lb->instances, lb->ninstances) : json_array());
    }
    free(ids);
    return rc;
}

static int register_instances(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return register_op(ctx, in, out, err, 1);
}

static int deregister_instances(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return register_op(ctx, in, out, err, 0);
}

static int describe_instance_health(struct api_ctx *ctx, json_t *in, json_t **out,
                                    struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    const char *name = api_str(in, "LoadBalancerName");
    struct sc_elb_instance_health *rows;
    const char **ids;
    int n, nt, nout = 0, rc = 0;

    ids = instance_ids(in, &n);
    nt = sc_elb_target_count(elb, name);
    rows = cm_xcalloc((size_t)(n > nt ? n : nt) + 1, sizeof(*rows));
    if (sc_elb_describe_instance_health(elb, name, ids, n, rows, &nout, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s}", "InstanceId",
                                               rows[i].instance_id, "State", rows[i].state_name,
                                               "ReasonCode", rows[i].reason_code, "Description",
                                               rows[i].description));
        *out = json_pack("{s:o}", "InstanceStates", a);
    }
    free(rows);
    free(ids);
    return rc;
}

static int describe_attributes(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    const struct sc_elb_attributes *a = NULL;

    if (sc_elb_describe_attributes(elb, api_str(in, "LoadBalancerName"), &a, &se) != SC_OK)
        return fail(err, &se);
    *out = json_pack("{s:o}", "LoadBalancerAttributes", attrs_json(a));
    return 0;
}

static int modify_attributes(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    json_t *la = json_object_get(in, "LoadBalancerAttributes");
    json_t *cd = json_object_get(la, "ConnectionDraining");
    json_t *cs = json_object_get(la, "ConnectionSettings");
    json_t *cz = json_object_get(la, "CrossZoneLoadBalancing");
    json_t *al = json_object_get(la, "AccessLog");
    struct sc_elb_attributes_req rq;
    const struct sc_elb_attributes *res = NULL;
    const char *name = api_str(in, "LoadBalancerName");

    memset(&rq, 0, sizeof(rq));
    if (cd) {
        rq.has_connection_draining = json_is_boolean(json_object_get(cd, "Enabled"));
        rq.connection_draining_enabled = api_bool(cd, "Enabled", 0);
        rq.has_connection_draining_timeout =
            api_int(cd, "Timeout", &rq.connection_draining_timeout_s);
    }
    if (cs)
        rq.has_idle_timeout = api_int(cs, "IdleTimeout", &rq.idle_timeout_s);
    if (cz) {
        rq.has_cross_zone = 1;
        rq.cross_zone_enabled = api_bool(cz, "Enabled", 0);
    }
    if (al) {
        rq.has_access_log = 1;
        rq.access_log_enabled = api_bool(al, "Enabled", 0);
        rq.access_log_s3_bucket_name = api_str(al, "S3BucketName");
        rq.access_log_s3_bucket_prefix = api_str(al, "S3BucketPrefix");
        api_int(al, "EmitInterval", &rq.access_log_emit_interval);
    }
    if (sc_elb_modify_attributes(elb, name, &rq, ctx->now_ms, &res, &se) != SC_OK)
        return fail(err, &se);
    if (!res && sc_elb_describe_attributes(elb, name, &res, &se) != SC_OK)
        return fail(err, &se);
    *out =
        json_pack("{s:s,s:o}", "LoadBalancerName", name, "LoadBalancerAttributes", attrs_json(res));
    return 0;
}

static int zones_op(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err, int enable)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    const char *name = api_str(in, "LoadBalancerName");
    const char **zones;
    int n, rc = 0;
    enum sc_status st;

    zones = api_strings(in, "AvailabilityZones", &n);
    if (enable)
        st = sc_elb_enable_zones(elb, name, zones, n, ctx->now_ms, &se);
    else
        st = sc_elb_disable_zones(elb, name, zones, n, ctx->now_ms, &se);
    if (st != SC_OK) {
        rc = fail(err, &se);
    } else {
        const struct sc_elb_lb *lb = sc_elb_lb_find(elb, name);

        *out = json_pack("{s:o}", "AvailabilityZones",
                         lb ? cstrs_json(lb->availability_zones, lb->nzones) : json_array());
    }
    free(zones);
    return rc;
}

static int enable_zones(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return zones_op(ctx, in, out, err, 1);
}

static int disable_zones(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return zones_op(ctx, in, out, err, 0);
}

static int add_tags(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    const char **names;
    struct sc_elb_tag *tags;
    int nn, nt, rc = 0;

    *out = NULL;
    names = api_strings(in, "LoadBalancerNames", &nn);
    tags = tags_get(in, &nt);
    if (sc_elb_add_tags(elb, names, nn, tags, nt, ctx->now_ms, &se) != SC_OK)
        rc = fail(err, &se);
    free(names);
    free(tags);
    return rc;
}

static int remove_tags(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    json_t *a = json_object_get(in, "Tags");
    const char **names, **keys;
    int nn, nk = 0, rc = 0;
    size_t i;
    json_t *e;

    *out = NULL;
    names = api_strings(in, "LoadBalancerNames", &nn);
    keys = cm_xcalloc(json_array_size(a) + 1, sizeof(*keys));
    json_array_foreach(a, i, e)
    {
        if (api_str(e, "Key"))
            keys[nk++] = api_str(e, "Key");
    }
    if (sc_elb_remove_tags(elb, names, nn, keys, nk, ctx->now_ms, &se) != SC_OK)
        rc = fail(err, &se);
    free(names);
    free(keys);
    return rc;
}

static int describe_tags(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    const struct sc_elb_lb **rows;
    const char **names;
    int nn, rc = 0;

    names = api_strings(in, "LoadBalancerNames", &nn);
    rows = cm_xcalloc((size_t)nn + 1, sizeof(*rows));
    if (sc_elb_describe_tags(elb, names, nn, rows, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nn; i++) {
            json_t *t = json_array();

            for (int k = 0; rows[i] && k < rows[i]->ntags; k++)
                json_array_append_new(
                    t, json_pack("{s:s,s:s}", "Key", rows[i]->tags[k].key, "Value",
                                 rows[i]->tags[k].value ? rows[i]->tags[k].value : ""));
            json_array_append_new(a,
                                  json_pack("{s:s,s:o}", "LoadBalancerName", names[i], "Tags", t));
        }
        *out = json_pack("{s:o}", "TagDescriptions", a);
    }
    free(rows);
    free(names);
    return rc;
}

/* ---- policies (docs/elb-classic.md 4) ---------------------------------------------------- */

static json_t *policy_json(const struct sc_elb_policy *p)
{
    json_t *a = json_array();

    for (int i = 0; i < p->nattrs; i++)
        json_array_append_new(a, json_pack("{s:s,s:s}", "AttributeName", p->attrs[i].name,
                                           "AttributeValue", p->attrs[i].value));
    return json_pack("{s:s,s:s,s:o}", "PolicyName", p->policy_name, "PolicyTypeName",
                     p->policy_type_name, "PolicyAttributeDescriptions", a);
}

static int describe_policies(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    const char *name = api_str(in, "LoadBalancerName");
    const struct sc_elb_policy **rows;
    const char **names;
    int nn, n, nout = 0, rc = 0;

    names = api_strings(in, "PolicyNames", &nn);
    n = sc_elb_policy_count(elb, name && *name ? name : NULL);
    rows = cm_xcalloc((size_t)(n > nn ? n : nn) + 1, sizeof(*rows));
    if (sc_elb_describe_policies(elb, name, names, nn, rows, &nout, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++)
            json_array_append_new(a, policy_json(rows[i]));
        *out = json_pack("{s:o}", "PolicyDescriptions", a);
    }
    free(rows);
    free(names);
    return rc;
}

static int describe_policy_types(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    const struct sc_elb_policy_type **rows;
    const char **names;
    int nn, nout = 0, rc = 0;

    (void)ctx;
    names = api_strings(in, "PolicyTypeNames", &nn);
    rows =
        cm_xcalloc((size_t)(nn > sc_elb_policy_type_count() ? nn : sc_elb_policy_type_count()) + 1,
                   sizeof(*rows));
    if (sc_elb_describe_policy_types(names, nn, rows, &nout, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        json_t *a = json_array();

        for (int i = 0; i < nout; i++) {
            json_t *at = json_array();

            for (int k = 0; k < rows[i]->nattrs; k++)
                json_array_append_new(at, json_pack("{s:s,s:s,s:s}", "AttributeName",
                                                    rows[i]->attrs[k].name, "AttributeType",
                                                    rows[i]->attrs[k].type, "Cardinality",
                                                    rows[i]->attrs[k].cardinality));
            json_array_append_new(a, json_pack("{s:s,s:s,s:o}", "PolicyTypeName", rows[i]->name,
                                               "Description", rows[i]->description,
                                               "PolicyAttributeTypeDescriptions", at));
        }
        *out = json_pack("{s:o}", "PolicyTypeDescriptions", a);
    }
    free(rows);
    free(names);
    return rc;
}

static int create_policy(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    json_t *a = json_object_get(in, "PolicyAttributes");
    struct sc_elb_policy_attr *attrs;
    size_t i;
    json_t *e;
    int n = 0, rc = 0;

    *out = NULL;
    attrs = cm_xcalloc(json_array_size(a) + 1, sizeof(*attrs));
    json_array_foreach(a, i, e)
    {
        attrs[n].name = api_str(e, "AttributeName");
        attrs[n].value = api_str(e, "AttributeValue") ? api_str(e, "AttributeValue") : "";
        n++;
    }
    if (sc_elb_create_policy(elb, api_str(in, "LoadBalancerName"), api_str(in, "PolicyName"),
                             api_str(in, "PolicyTypeName"), attrs, n, ctx->now_ms, &se) != SC_OK)
        rc = fail(err, &se);
    free(attrs);
    return rc;
}

static int create_lb_cookie_policy(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    json_t *exp = json_object_get(in, "CookieExpirationPeriod");

    *out = NULL;
    if (sc_elb_create_lb_cookie_policy(
            elb, api_str(in, "LoadBalancerName"), api_str(in, "PolicyName"),
            json_is_integer(exp) ? json_integer_value(exp) : -1, ctx->now_ms, &se) != SC_OK)
        return fail(err, &se);
    return 0;
}

static int create_app_cookie_policy(struct api_ctx *ctx, json_t *in, json_t **out,
                                    struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };

    *out = NULL;
    if (sc_elb_create_app_cookie_policy(elb, api_str(in, "LoadBalancerName"),
                                        api_str(in, "PolicyName"), api_str(in, "CookieName"),
                                        ctx->now_ms, &se) != SC_OK)
        return fail(err, &se);
    return 0;
}

static int delete_policy(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };

    *out = NULL;
    if (sc_elb_delete_policy(elb, api_str(in, "LoadBalancerName"), api_str(in, "PolicyName"),
                             ctx->now_ms, &se) != SC_OK)
        return fail(err, &se);
    return 0;
}

static int set_policies(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err,
                        int backend)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    const char *name = api_str(in, "LoadBalancerName");
    const char **names;
    int n, port = 0, rc = 0;
    enum sc_status st;

    *out = NULL;
    names = api_strings(in, "PolicyNames", &n);
    api_int(in, backend ? "InstancePort" : "LoadBalancerPort", &port);
    if (backend)
        st = sc_elb_set_backend_policies(elb, name, port, names, n, ctx->now_ms, &se);
    else
        st = sc_elb_set_listener_policies(elb, name, port, names, n, ctx->now_ms, &se);
    if (st != SC_OK)
        rc = fail(err, &se);
    free(names);
    return rc;
}

static int set_listener_policies(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return set_policies(ctx, in, out, err, 0);
}

static int set_backend_policies(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return set_policies(ctx, in, out, err, 1);
}

/* --- the load balancer in its VPC (docs/elb-classic.md 6) --------------------------------------
 */

static int apply_security_groups(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    const char *name = api_str(in, "LoadBalancerName");
    const char **groups;
    int n, rc = 0;

    groups = api_strings(in, "SecurityGroups", &n);
    if (sc_elb_apply_security_groups(elb, name, groups, n, ctx->now_ms, &se) != SC_OK) {
        rc = fail(err, &se);
    } else {
        const struct sc_elb_lb *lb = sc_elb_lb_find(elb, name);

        *out = json_pack("{s:o}", "SecurityGroups",
                         lb ? cstrs_json(lb->security_groups, lb->nsecurity_groups) : json_array());
    }
    free(groups);
    return rc;
}

static int subnets_op(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err, int attach)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    const char *name = api_str(in, "LoadBalancerName");
    const char **subnets;
    int n, rc = 0;
    enum sc_status st;

    subnets = api_strings(in, "Subnets", &n);
    if (attach)
        st = sc_elb_attach_subnets(elb, name, subnets, n, ctx->now_ms, &se);
    else
        st = sc_elb_detach_subnets(elb, name, subnets, n, ctx->now_ms, &se);
    if (st != SC_OK) {
        rc = fail(err, &se);
    } else {
        const struct sc_elb_lb *lb = sc_elb_lb_find(elb, name);

        *out = json_pack("{s:o}", "Subnets",
                         lb ? cstrs_json(lb->subnets, lb->nsubnets) : json_array());
    }
    free(subnets);
    return rc;
}

static int attach_subnets(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return subnets_op(ctx, in, out, err, 1);
}

static int detach_subnets(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return subnets_op(ctx, in, out, err, 0);
}

static int set_listener_certificate(struct api_ctx *ctx, json_t *in, json_t **out,
                                    struct awserr *err)
{
    struct sc_elb *elb = sc_world_elb(ctx->world);
    struct sc_error se = { 0 };
    int port = 0;

    *out = NULL;
    if (!api_int(in, "LoadBalancerPort", &port))
        return awserr_set(err, 400, "ValidationError",
                          "1 validation error detected: Value null at 'loadBalancerPort' failed "
                          "to satisfy constraint: Member must not be null");
    if (sc_elb_set_listener_certificate(elb, api_str(in, "LoadBalancerName"), port,
                                        api_str(in, "SSLCertificateId"), ctx->now_ms, &se) != SC_OK)
        return fail(err, &se);
    return 0;
}

static int describe_account_limits(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    json_t *a = json_array();
    int size = 0;

    (void)ctx;
    if (api_int(in, "PageSize", &size) && (size < 1 || size > 400)) {
        json_decref(a);
        return awserr_set(err, 400, "ValidationError",
                          "1 validation error detected: Value '%d' at 'pageSize' failed to "
                          "satisfy constraint: Member must have value between 1 and 400",
                          size);
    }
    for (int i = 0; i < sc_elb_limit_count(); i++) {
        const struct sc_elb_limit *l = sc_elb_limit_at(i);

        json_array_append_new(a, json_pack("{s:s,s:s}", "Name", l->name, "Max", l->max));
    }
    *out = json_object();
    if (api_page(a, in, "Marker", "PageSize", 400, 400, *out, "Limits", "NextMarker", err) != 0) {
        json_decref(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

const struct api_handler api_elb_handlers[] = {
    { "AddTags", add_tags, API_MUTATES },
    { "ApplySecurityGroupsToLoadBalancer", apply_security_groups, API_MUTATES },
    { "AttachLoadBalancerToSubnets", attach_subnets, API_MUTATES },
    { "ConfigureHealthCheck", configure_health_check, API_MUTATES },
    { "CreateAppCookieStickinessPolicy", create_app_cookie_policy, API_MUTATES },
    { "CreateLBCookieStickinessPolicy", create_lb_cookie_policy, API_MUTATES },
    { "CreateLoadBalancer", create_load_balancer, API_MUTATES },
    { "CreateLoadBalancerListeners", create_listeners, API_MUTATES },
    { "CreateLoadBalancerPolicy", create_policy, API_MUTATES },
    { "DeleteLoadBalancer", delete_load_balancer, API_MUTATES },
    { "DeleteLoadBalancerListeners", delete_listeners, API_MUTATES },
    { "DeleteLoadBalancerPolicy", delete_policy, API_MUTATES },
    { "DeregisterInstancesFromLoadBalancer", deregister_instances, API_MUTATES },
    { "DescribeAccountLimits", describe_account_limits, API_WORLDLESS },
    { "DescribeInstanceHealth", describe_instance_health, 0 },
    { "DescribeLoadBalancerAttributes", describe_attributes, 0 },
    { "DescribeLoadBalancerPolicies", describe_policies, 0 },
    { "DescribeLoadBalancerPolicyTypes", describe_policy_types, API_WORLDLESS },
    { "DescribeLoadBalancers", describe_load_balancers, 0 },
    { "DescribeTags", describe_tags, 0 },
    { "DetachLoadBalancerFromSubnets", detach_subnets, API_MUTATES },
    { "DisableAvailabilityZonesForLoadBalancer", disable_zones, API_MUTATES },
    { "EnableAvailabilityZonesForLoadBalancer", enable_zones, API_MUTATES },
    { "ModifyLoadBalancerAttributes", modify_attributes, API_MUTATES },
    { "RegisterInstancesWithLoadBalancer", register_instances, API_MUTATES },
    { "RemoveTags", remove_tags, API_MUTATES },
    { "SetLoadBalancerListenerSSLCertificate", set_listener_certificate, API_MUTATES },
    { "SetLoadBalancerPoliciesForBackendServer", set_backend_policies, API_MUTATES },
    { "SetLoadBalancerPoliciesOfListener", set_listener_policies, API_MUTATES },
    { NULL, NULL, 0 },
};
