/* scaler/asg_launch.c: LaunchInstances (asg_launch.h; docs/autoscaling.md 11). */
#include "scaler/asg_launch.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/asg_internal.h"
#include "scaler/save.h"

/* A client token with the request it came with and the reply it made. */
struct asg_token {
    char token[SC_ASG_CLIENT_TOKEN_LEN];
    int64_t made_ms;
    /* the parameters a reuse must repeat */
    char *group;
    int requested;
    char *zone, *zone_id, *subnet, *retry; /* "" when not sent; retry "none" when not sent */
    struct sc_asg_launch_info reply;
};

static void items_free(struct sc_asg_launch_item *it, int n)
{
    for (int i = 0; i < n; i++) {
        free(it[i].instance_ids);
        free(it[i].error_code);
        free(it[i].error_message);
    }
    free(it);
}

static void token_free(struct asg_token *t)
{
    if (!t)
        return;
    free(t->group);
    free(t->zone);
    free(t->zone_id);
    free(t->subnet);
    free(t->retry);
    items_free(t->reply.instances, t->reply.ninstances);
    items_free(t->reply.errors, t->reply.nerrors);
    free(t);
}

void asg_tokens_free(struct sc_asg *asg)
{
    for (int i = 0; i < asg->ntokens; i++)
        token_free(asg->tokens[i]);
    free(asg->tokens);
    asg->tokens = NULL;
    asg->ntokens = 0;
}

/* Drops the tokens past their 8 hours (they are oldest first). */
static void tokens_expire(struct sc_asg *asg, int64_t now_ms)
{
    int k = 0;

    while (k < asg->ntokens && now_ms - asg->tokens[k]->made_ms >= SC_ASG_CLIENT_TOKEN_TTL_MS)
        token_free(asg->tokens[k++]);
    if (k > 0) {
        memmove(asg->tokens, asg->tokens + k, (size_t)(asg->ntokens - k) * sizeof(*asg->tokens));
        asg->ntokens -= k;
    }
}

static struct asg_token *token_find(const struct sc_asg *asg, const char *token)
{
    for (int i = 0; i < asg->ntokens; i++)
        if (strcmp(asg->tokens[i]->token, token) == 0)
            return asg->tokens[i];
    return NULL;
}

static const char *first(const char *const *v, int n)
{
    return n > 0 && v[0] ? v[0] : "";
}

static const char *retry_of(const struct sc_asg_launch_req *r)
{
    return r->retry_strategy ? r->retry_strategy : "none";
}

static int same_request(const struct asg_token *t, const struct sc_asg_launch_req *r)
{
    return strcmp(t->group, r->auto_scaling_group_name) == 0 &&
           t->requested == r->requested_capacity &&
           strcmp(t->zone, first(r->availability_zones, r->navailability_zones)) == 0 &&
           strcmp(t->zone_id, first(r->availability_zone_ids, r->navailability_zone_ids)) == 0 &&
           strcmp(t->subnet, first(r->subnet_ids, r->nsubnet_ids)) == 0 &&
           strcmp(t->retry, retry_of(r)) == 0;
}

/* --- the request's own constraints (the model's), as AWS words them ------------------------- */

static enum sc_status list_of_one(const char *member, const char *const *v, int n,
                                  struct sc_error *err)
{
    if (n > 1)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at '%s' failed to satisfy constraint: "
                       "Member must have length less than or equal to 1",
                       member);
    if (n == 1 && (!v[0] || !v[0][0] || strlen(v[0]) > 255))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at '%s' failed to satisfy constraint: "
                       "Member must satisfy constraint: [Member must have length less than or "
                       "equal to 255, Member must have length greater than or equal to 1]",
                       member);
    return SC_OK;
}

static enum sc_status check_request(const struct sc_asg_launch_req *r, struct sc_error *err)
{
    const char *t = r->client_token;
    enum sc_status st;

    if (!r->auto_scaling_group_name || !r->auto_scaling_group_name[0])
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value null at 'autoScalingGroupName' failed "
                       "to satisfy constraint: Member must not be null");
    if (r->requested_capacity < 1)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%d' at 'requestedCapacity' failed to "
                       "satisfy constraint: Member must have value greater than or equal to 1",
                       r->requested_capacity);
    if (!t || !t[0])
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value null at 'clientToken' failed to "
                       "satisfy constraint: Member must not be null");
    if (strlen(t) >= SC_ASG_CLIENT_TOKEN_LEN)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'clientToken' failed to "
                       "satisfy constraint: Member must have length less than or equal to 64",
                       t);
    if (strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_/") != strlen(t))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'clientToken' failed to "
                       "satisfy constraint: Member must satisfy regular expression pattern: "
                       "[A-Za-z0-9\\-_\\/]+",
                       t);
    if ((st = list_of_one("availabilityZones", r->availability_zones, r->navailability_zones,
                          err)) != SC_OK ||
        (st = list_of_one("availabilityZoneIds", r->availability_zone_ids,
                          r->navailability_zone_ids, err)) != SC_OK ||
        (st = list_of_one("subnetIds", r->subnet_ids, r->nsubnet_ids, err)) != SC_OK)
        return st;
    if (r->retry_strategy && strcmp(r->retry_strategy, "none") != 0 &&
        strcmp(r->retry_strategy, "retry-with-group-configuration") != 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'retryStrategy' failed to "
                       "satisfy constraint: Member must satisfy enum value set: "
                       "[retry-with-group-configuration, none]",
                       r->retry_strategy);
    return SC_OK;
}

/* --- the group's --------------------------------------------------------------------------- */

/* The zone index the call launches into, or an error (docs/autoscaling.md 11.3). */
static enum sc_status pick_zone(struct sc_asg *asg, const struct asg_group *g,
                                const struct sc_asg_launch_req *r, int *zout, struct sc_error *err)
{
    const struct sc_asg_group_info *gi = &g->info;
    const char *zone = first(r->availability_zones, r->navailability_zones);
    const char *zid = first(r->availability_zone_ids, r->navailability_zone_ids);
    const char *subnet = first(r->subnet_ids, r->nsubnet_ids);
    int z = -1;

    if (zone[0] && zid[0])
        return sc_fail(err, SC_ERR_VALIDATION,
                       "You cannot specify both AvailabilityZones and AvailabilityZoneIds.");
    if (!zone[0] && !zid[0] && !subnet[0]) {
        if (gi->navailability_zones != 1)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Either AvailabilityZones, AvailabilityZoneIds or SubnetIds must be "
                           "specified for an Auto Scaling group with multiple Availability "
                           "Zones.");
        *zout = 0;
        return SC_OK;
    }
    if (zone[0]) {
        for (int k = 0; k < gi->navailability_zones && z < 0; k++)
            if (strcmp(gi->availability_zones[k], zone) == 0)
                z = k;
        if (z < 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The Availability Zone %s is not one of the Auto Scaling group's "
                           "Availability Zones.",
                           zone);
    }
    if (zid[0]) {
        for (int k = 0; k < gi->navailability_zones && z < 0; k++) {
            char id[SC_ASG_ID_LEN];

            if (asg->env.zone_id &&
                asg->env.zone_id(asg->env.ud, gi->availability_zones[k], id) == 0 &&
                strcmp(id, zid) == 0)
                z = k;
        }
        if (z < 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The Availability Zone ID %s is not one of the Auto Scaling group's "
                           "Availability Zones.",
                           zid);
    }
    if (subnet[0]) {
        int s = -1;

        for (int k = 0; gi->subnets && k < gi->navailability_zones && s < 0; k++)
            if (gi->subnets[k] && strcmp(gi->subnets[k], subnet) == 0)
                s = k;
        if (s < 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The subnet ID %s is not one of the Auto Scaling group's subnets "
                           "(VPCZoneIdentifier).",
                           subnet);
        if (z >= 0 && z != s)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The subnet ID %s does not reside in the Availability Zone %s.", subnet,
                           gi->availability_zones[z]);
        z = s;
    }
    *zout = z;
    return SC_OK;
}

static enum sc_status check_group(const struct asg_group *g, struct sc_error *err)
{
    const struct sc_asg_group_info *gi = &g->info;
    const struct sc_asg_mixed_info *m = &gi->mixed;

    if (gi->launch_configuration_name)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "LaunchInstances does not support Auto Scaling groups that use launch "
                       "configurations. Migrate the group %s to a launch template and try again.",
                       gi->auto_scaling_group_name);
    /* fully On-Demand (every unit above the base On-Demand) or fully Spot (no On-Demand) */
    if (gi->mixed_instances_policy && m->on_demand_percentage_above_base_capacity != 100 &&
        !(m->on_demand_percentage_above_base_capacity == 0 && m->on_demand_base_capacity == 0))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "LaunchInstances supports mixed instances policies with fully On-Demand "
                       "or fully Spot purchasing options only. The group %s combines On-Demand "
                       "and Spot Instances.",
                       gi->auto_scaling_group_name);
    return SC_OK;
}

/* scalelab's choice (docs/autoscaling.md 11.3): refused, as SetDesiredCapacity refuses it */
static enum sc_status check_max(const struct asg_group *g, const struct sc_asg_launch_req *r,
                                struct sc_error *err)
{
    const struct sc_asg_group_info *gi = &g->info;

    if ((int64_t)gi->desired_capacity + r->requested_capacity > gi->max_size)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "New SetDesiredCapacity value %lld is above max value %d for the AutoScalingGroup.",
            (long long)gi->desired_capacity + r->requested_capacity, gi->max_size);
    return SC_OK;
}

/* --- the reply ----------------------------------------------------------------------------- */

static struct sc_asg_launch_item *item_add(struct sc_asg_launch_item **v, int *n)
{
    struct sc_asg_launch_item *nv = realloc(*v, (size_t)(*n + 1) * sizeof(**v));

    if (!nv)
        return NULL;
    *v = nv;
    memset(&nv[*n], 0, sizeof(nv[*n]));
    return &nv[(*n)++];
}

static void item_place(struct sc_asg *asg, const struct asg_group *g, int z, const char *type,
                       struct sc_asg_launch_item *it)
{
    const struct sc_asg_group_info *gi = &g->info;

    snprintf(it->instance_type, sizeof(it->instance_type), "%s", type ? type : "");
    snprintf(it->market_type, sizeof(it->market_type), "OnDemand");
    snprintf(it->availability_zone, sizeof(it->availability_zone), "%s", gi->availability_zones[z]);
    snprintf(it->subnet_id, sizeof(it->subnet_id), "%s",
             gi->subnets && gi->subnets[z] ? gi->subnets[z] : "");
    if (!asg->env.zone_id ||
        asg->env.zone_id(asg->env.ud, gi->availability_zones[z], it->availability_zone_id) != 0)
        it->availability_zone_id[0] = '\0';
}

/* Adds an instance id to the Instances item of its type (one item per type: the zone and
 * subnet are the call's). */
static int reply_instance(struct sc_asg *asg, const struct asg_group *g, int z,
                          struct sc_asg_launch_info *rep, const char *type, const char *id)
{
    struct sc_asg_launch_item *it = NULL;
    char(*ids)[SC_ASG_ID_LEN];

    for (int i = 0; i < rep->ninstances && !it; i++)
        if (strcmp(rep->instances[i].instance_type, type) == 0)
            it = &rep->instances[i];
    if (!it) {
        it = item_add(&rep->instances, &rep->ninstances);
        if (!it)
            return -1;
        item_place(asg, g, z, type, it);
    }
    ids = realloc(it->instance_ids, (size_t)(it->ninstance_ids + 1) * sizeof(*ids));
    if (!ids)
        return -1;
    it->instance_ids = ids;
    snprintf(ids[it->ninstance_ids++], SC_ASG_ID_LEN, "%s", id);
    return 0;
}

static int reply_error(struct sc_asg *asg, const struct asg_group *g, int z,
                       struct sc_asg_launch_info *rep, const char *type, const char *code,
                       const char *message)
{
    struct sc_asg_launch_item *it = item_add(&rep->errors, &rep->nerrors);

    if (!it)
        return -1;
    item_place(asg, g, z, type, it);
    it->error_code = sc_strdup(code);
    it->error_message = sc_strdup(message);
    return it->error_code && it->error_message ? 0 : -1;
}

static struct asg_token *token_new(const struct sc_asg_launch_req *r, int64_t now_ms)
{
    struct asg_token *t = calloc(1, sizeof(*t));

    if (!t)
        return NULL;
    snprintf(t->token, sizeof(t->token), "%s", r->client_token);
    t->made_ms = now_ms;
    t->group = sc_strdup(r->auto_scaling_group_name);
    t->requested = r->requested_capacity;
    t->zone = sc_strdup(first(r->availability_zones, r->navailability_zones));
    t->zone_id = sc_strdup(first(r->availability_zone_ids, r->navailability_zone_ids));
    t->subnet = sc_strdup(first(r->subnet_ids, r->nsubnet_ids));
    t->retry = sc_strdup(retry_of(r));
    snprintf(t->reply.auto_scaling_group_name, sizeof(t->reply.auto_scaling_group_name), "%s",
             r->auto_scaling_group_name);
    snprintf(t->reply.client_token, sizeof(t->reply.client_token), "%s", r->client_token);
    if (!t->group || !t->zone || !t->zone_id || !t->subnet || !t->retry) {
        token_free(t);
        return NULL;
    }
    return t;
}

/* Keeps t (the newest), dropping the oldest beyond the bound; -1 on OOM. */
static int token_keep(struct sc_asg *asg, struct asg_token *t)
{
    struct asg_token **v;

    if (asg->ntokens >= SC_ASG_MAX_CLIENT_TOKENS) {
        token_free(asg->tokens[0]);
        memmove(asg->tokens, asg->tokens + 1, (size_t)(asg->ntokens - 1) * sizeof(*asg->tokens));
        asg->ntokens--;
    }
    v = realloc(asg->tokens, (size_t)(asg->ntokens + 1) * sizeof(*v));
    if (!v)
        return -1;
    asg->tokens = v;
    v[asg->ntokens++] = t;
    return 0;
}

enum sc_status sc_asg_launch_instances(struct sc_asg *asg, const struct sc_asg_launch_req *req,
                                       int64_t now_ms, const struct sc_asg_launch_info **out,
                                       struct sc_error *err)
{
    struct asg_group *g;
    struct asg_token *t;
    enum sc_status st;
    char cause[ASG_CAUSE_LEN] = "";
    int z = 0, units = 0, count = 0, failed = 0, cap, from;
    int retry;

    st = check_request(req, err);
    if (st != SC_OK)
        return st;
    tokens_expire(asg, now_ms);
    t = token_find(asg, req->client_token);
    if (t) {
        if (!same_request(t, req))
            return sc_fail(err, SC_ERR_IDEMPOTENT_PARAMETER_MISMATCH,
                           "The parameters of this request do not match those of the earlier "
                           "request with client token %s.",
                           req->client_token);
        if (out)
            *out = &t->reply;
        return SC_OK;
    }
    g = asg_group_find(asg, req->auto_scaling_group_name);
    if (!g || g->deleting)
        return sc_asg_group_not_found(req->auto_scaling_group_name, err);
    st = check_group(g, err);
    if (st == SC_OK)
        st = pick_zone(asg, g, req, &z, err);
    if (st == SC_OK)
        st = check_max(g, req, err);
    if (st != SC_OK)
        return st;
    t = token_new(req, now_ms);
    if (!t)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    retry = strcmp(t->retry, "retry-with-group-configuration") == 0;
    cap = sc_asg_group_capacity(&g->info);
    from = g->info.desired_capacity;
    asg_cause_add(cause, now_ms,
                  "an instance was started in response to a LaunchInstances request (client "
                  "token %s), increasing the capacity from %d to %d",
                  req->client_token, cap, cap + req->requested_capacity);
    /* launched cold, never drawn from the warm pool (docs/autoscaling.md 11.3) */
    if (g->warm && !g->warm->info.pending_delete &&
        reply_error(asg, g, z, &t->reply, "", "UnsupportedOperation",
                    "LaunchInstances does not use the warm pool: the instances were launched "
                    "with a cold start.") != 0)
        failed = -1;
    while (failed == 0 && units < req->requested_capacity && count < SC_ASG_LAUNCH_MAX_INSTANCES) {
        struct sc_error why = { 0 };
        char type[SC_ASG_ID_LEN] = "";
        int w = asg_launch_in(asg, g, z, cause, now_ms, &why, type);

        if (w < 0) {
            /* EC2's code and message for the rest; the next launches would meet it too */
            if (reply_error(asg, g, z, &t->reply, type,
                            why.status ? sc_status_code(why.status) : "InternalFailure",
                            why.message[0] ? why.message : "The launch failed.") != 0)
                failed = -1;
            failed = failed ? failed : 1;
            break;
        }
        units += w;
        count++;
        if (reply_instance(asg, g, z, &t->reply, type, g->inst[g->ninst - 1].info.instance_id) != 0)
            failed = -1;
    }
    /* scalelab's choice (11.3): the desired capacity takes what launched (at most what was
     * asked: a weighted overage stays overage), or with retry-with-group-configuration all
     * that was asked (the group launches the rest its usual way) */
    if (retry) {
        asg_set_desired(g, from + req->requested_capacity, now_ms,
                        "a user request launched instances with LaunchInstances,");
    } else if (units > 0) {
        g->info.desired_capacity =
            from + (units < req->requested_capacity ? units : req->requested_capacity);
    }
    if (g->info.desired_capacity <= sc_asg_group_capacity(&g->info))
        g->pending_cause[0] = '\0'; /* nothing left for reconcile to launch */
    asg_inputs_changed(asg);
    if (failed < 0 || token_keep(asg, t) != 0) {
        /* the instances are in the group; only the reply could not be kept */
        token_free(t);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    if (out)
        *out = &t->reply;
    return SC_OK;
}

/* --- save / load --------------------------------------------------------------------------- */

static json_t *items_save(const struct sc_asg_launch_item *it, int n)
{
    json_t *a = json_array();

    for (int i = 0; a && i < n; i++) {
        json_t *o =
            json_pack("{s:s,s:s,s:s,s:s,s:s}", "instance_type", it[i].instance_type, "market_type",
                      it[i].market_type, "subnet_id", it[i].subnet_id, "availability_zone",
                      it[i].availability_zone, "availability_zone_id", it[i].availability_zone_id);
        json_t *ids = json_array();

        for (int k = 0; o && ids && k < it[i].ninstance_ids; k++)
            json_array_append_new(ids, json_string(it[i].instance_ids[k]));
        if (!o || !ids || json_object_set_new(o, "instance_ids", ids) != 0 ||
            (it[i].error_code &&
             json_object_set_new(o, "error_code", json_string(it[i].error_code)) != 0) ||
            (it[i].error_message &&
             json_object_set_new(o, "error_message", json_string(it[i].error_message)) != 0) ||
            json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

json_t *asg_tokens_save(const struct sc_asg *asg)
{
    json_t *a = json_array();

    for (int i = 0; a && i < asg->ntokens; i++) {
        const struct asg_token *t = asg->tokens[i];
        json_t *o =
            json_pack("{s:s,s:I,s:s,s:i,s:s,s:s,s:s,s:s,s:o*,s:o*}", "token", t->token, "made_ms",
                      (json_int_t)t->made_ms, "group", t->group, "requested", t->requested, "zone",
                      t->zone, "zone_id", t->zone_id, "subnet", t->subnet, "retry", t->retry,
                      "instances", items_save(t->reply.instances, t->reply.ninstances), "errors",
                      items_save(t->reply.errors, t->reply.nerrors));

        if (!o || !json_object_get(o, "instances") || !json_object_get(o, "errors") ||
            json_array_append_new(a, o) != 0) {
            json_decref(o);
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static struct sc_asg_launch_item *items_load(struct sc_load *l, const json_t *o, const char *key,
                                             int *n)
{
    const json_t *a = sc_load_array(l, o, key);
    struct sc_asg_launch_item *it;

    *n = 0;
    if (!a || json_array_size(a) == 0)
        return NULL;
    it = calloc(json_array_size(a), sizeof(*it));
    if (!it) {
        sc_load_fail(l, "%s: out of memory", key);
        return NULL;
    }
    for (size_t k = 0; k < json_array_size(a) && !l->failed; k++) {
        const json_t *x = json_array_get(a, k);
        const json_t *ids = sc_load_array(l, x, "instance_ids");
        struct sc_asg_launch_item *i = &it[(*n)++];

        sc_load_buf(l, x, "instance_type", i->instance_type, sizeof(i->instance_type));
        sc_load_buf(l, x, "market_type", i->market_type, sizeof(i->market_type));
        sc_load_buf(l, x, "subnet_id", i->subnet_id, sizeof(i->subnet_id));
        sc_load_buf(l, x, "availability_zone", i->availability_zone, sizeof(i->availability_zone));
        sc_load_buf(l, x, "availability_zone_id", i->availability_zone_id,
                    sizeof(i->availability_zone_id));
        if (ids && json_array_size(ids) > SC_ASG_LAUNCH_MAX_INSTANCES)
            sc_load_fail(l, "%s: more than %d instance ids", key, SC_ASG_LAUNCH_MAX_INSTANCES);
        if (ids && !l->failed && json_array_size(ids) > 0) {
            i->instance_ids = calloc(json_array_size(ids), sizeof(*i->instance_ids));
            if (!i->instance_ids)
                sc_load_fail(l, "%s: out of memory", key);
            for (size_t m = 0; i->instance_ids && m < json_array_size(ids); m++) {
                const char *s = json_string_value(json_array_get(ids, m));

                if (!s || strlen(s) >= SC_ASG_ID_LEN) {
                    sc_load_fail(l, "%s: instance_ids: not an instance id", key);
                    break;
                }
                snprintf(i->instance_ids[i->ninstance_ids++], SC_ASG_ID_LEN, "%s", s);
            }
        }
        if (json_object_get(x, "error_code")) {
            i->error_code = sc_load_str(l, x, "error_code");
            i->error_message = sc_load_str(l, x, "error_message");
        }
    }
    return it;
}

void asg_tokens_load(struct sc_load *l, const json_t *obj, struct sc_asg *asg)
{
    const json_t *a = json_object_get(obj, "launch_client_tokens");

    if (!a)
        return;
    if (!json_is_array(a) || json_array_size(a) > SC_ASG_MAX_CLIENT_TOKENS) {
        sc_load_fail(l, "launch_client_tokens: not an array of at most %d",
                     SC_ASG_MAX_CLIENT_TOKENS);
        return;
    }
    for (size_t k = 0; k < json_array_size(a) && !l->failed; k++) {
        const json_t *x = json_array_get(a, k);
        struct asg_token *t = calloc(1, sizeof(*t));

        if (!t) {
            sc_load_fail(l, "launch_client_tokens: out of memory");
            break;
        }
        sc_load_buf(l, x, "token", t->token, sizeof(t->token));
        t->made_ms = sc_load_int(l, x, "made_ms");
        t->group = sc_load_str(l, x, "group");
        t->requested = sc_load_int_range(l, x, "requested", 1, INT32_MAX);
        t->zone = sc_load_str(l, x, "zone");
        t->zone_id = sc_load_str(l, x, "zone_id");
        t->subnet = sc_load_str(l, x, "subnet");
        t->retry = sc_load_str(l, x, "retry");
        if (!l->failed) {
            snprintf(t->reply.auto_scaling_group_name, sizeof(t->reply.auto_scaling_group_name),
                     "%s", t->group);
            snprintf(t->reply.client_token, sizeof(t->reply.client_token), "%s", t->token);
            t->reply.instances = items_load(l, x, "instances", &t->reply.ninstances);
            t->reply.errors = items_load(l, x, "errors", &t->reply.nerrors);
        }
        if (!t->token[0] && !l->failed)
            sc_load_fail(l, "launch_client_tokens: empty token");
        if (l->failed || token_keep(asg, t) != 0) {
            token_free(t);
            if (!l->failed)
                sc_load_fail(l, "launch_client_tokens: out of memory");
        }
    }
}
