/* scaler/ec2_instance.c: instances: the id index, states and their reasons, placement,
 * RunInstances, Terminate/Stop/StartInstances, DescribeInstances and DescribeInstanceStatus. */
#include "scaler/ec2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/civil.h"
#include "scaler/ec2_internal.h"
#include "scaler/hash.h"

/* --- instances -------------------------------------------------------------------------------- */

static size_t id_hash(const char *s)
{
    uint64_t h = sc_hash_fnv1a_str(SC_HASH_FNV1A_BASIS, s);

    return (size_t)(h ^ (h >> 32));
}

const struct inst *ec2_inst_find(const struct sc_ec2 *ec2, const char *id)
{
    size_t mask, i;

    if (!id || !ec2->index_cap)
        return NULL;
    mask = ec2->index_cap - 1;
    for (i = id_hash(id) & mask; ec2->index[i]; i = (i + 1) & mask) {
        if (strcmp(ec2->index[i]->id, id) == 0)
            return ec2->index[i];
    }
    return NULL;
}

void ec2_index_put(struct sc_ec2 *ec2, struct inst *in)
{
    size_t mask = ec2->index_cap - 1, i;

    for (i = id_hash(in->id) & mask; ec2->index[i]; i = (i + 1) & mask)
        ;
    ec2->index[i] = in;
}

/* Room for n instances at most half full; 0 or -1 on OOM (index unchanged). */
int ec2_index_reserve(struct sc_ec2 *ec2, size_t n)
{
    size_t cap = ec2->index_cap ? ec2->index_cap : 64;
    struct inst **old = ec2->index;
    size_t old_cap = ec2->index_cap;

    while (cap < 2 * n)
        cap *= 2;
    if (cap == ec2->index_cap)
        return 0;
    ec2->index = calloc(cap, sizeof(*ec2->index));
    if (!ec2->index) {
        ec2->index = old;
        return -1;
    }
    ec2->index_cap = cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i])
            ec2_index_put(ec2, old[i]);
    }
    free(old);
    return 0;
}

/* Backward-shift deletion keeps every probe chain intact without tombstones. */
void ec2_index_del(struct sc_ec2 *ec2, const struct inst *in)
{
    size_t mask = ec2->index_cap - 1, i, j;

    for (i = id_hash(in->id) & mask; ec2->index[i] != in; i = (i + 1) & mask)
        if (!ec2->index[i])
            return;
    j = i;
    for (;;) {
        size_t k;

        j = (j + 1) & mask;
        if (!ec2->index[j])
            break;
        k = id_hash(ec2->index[j]->id) & mask;
        /* move j back into the hole at i unless its home k lies cyclically in (i, j] */
        if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
            ec2->index[i] = ec2->index[j];
            i = j;
        }
    }
    ec2->index[i] = NULL;
}

struct inst *ec2_inst_mut(struct sc_ec2 *ec2, const char *id)
{
    return (struct inst *)ec2_inst_find(ec2, id);
}

int sc_ec2_instance_id_valid(const char *s)
{
    return ec2_id_valid(s, "i-");
}

uint64_t sc_ec2_generation(const struct sc_ec2 *ec2)
{
    return ec2->generation;
}

int sc_ec2_instance_count(const struct sc_ec2 *ec2)
{
    return ec2->ninsts;
}

const struct sc_ec2_instance *sc_ec2_instance_at(const struct sc_ec2 *ec2, int i)
{
    return i >= 0 && i < ec2->ninsts ? &ec2->insts[i]->v : NULL;
}

const struct sc_ec2_instance *sc_ec2_instance_find(const struct sc_ec2 *ec2, const char *id)
{
    const struct inst *in = ec2_inst_find(ec2, id);

    return in ? &in->v : NULL;
}

const char *sc_ec2_instance_tag(const struct sc_ec2_instance *inst, const char *key)
{
    for (int i = 0; inst && key && i < inst->ntags; i++) {
        if (strcmp(inst->tags[i].key, key) == 0)
            return inst->tags[i].value;
    }
    return NULL;
}

void ec2_inst_sync(struct inst *in)
{
    in->v.tags = in->tags.v;
    in->v.ntags = in->tags.n;
}

/* Points an instance's views at its fields, reservation and subnet (set before), for a
 * launched instance and a loaded one alike. */
void ec2_inst_link(const struct sc_ec2 *ec2, struct inst *in)
{
    in->v.instance_id = in->id;
    in->v.reservation_id = in->resv->id;
    in->v.owner_id = ec2->account;
    in->v.availability_zone = in->subnet->zone->name;
    in->v.subnet_id = in->subnet->id;
    in->v.vpc_id = in->subnet->vpc->id;
    in->v.private_ip_address = "127.0.0.1";
    in->v.private_dns_name = in->dns;
    in->v.instance_type = in->instance_type;
    in->v.image_id = in->image_id;
    in->v.key_name = in->key_name;
    in->v.user_data = in->user_data;
    in->v.launch_configuration_name = in->lc_name;
    in->v.launch_template_id = in->lt_id;
    in->v.launch_template_name = in->lt_name;
    ec2_inst_sync(in);
}

void ec2_set_state(struct inst *in, enum sc_ec2_state st, int64_t now_ms)
{
    if (st == SC_EC2_TERMINATED && in->v.state != SC_EC2_TERMINATED && in->subnet)
        in->subnet->v.available_ip_address_count++;
    in->v.state = st;
    in->v.state_changed_ms = now_ms;
    if (st != SC_EC2_RUNNING) {
        in->v.system_status = SC_EC2_CHECK_NOT_APPLICABLE;
        in->v.instance_status = SC_EC2_CHECK_NOT_APPLICABLE;
        in->v.impaired_since_ms = 0;
    }
}

/* The reasons an instance can carry, StateReason Code and Message: the views point at
 * these literals, and a load maps a saved code back to its row. */
const char *const ec2_reason_pairs[][2] = {
    [REASON_USER] = { "Client.UserInitiatedShutdown",
                      "Client.UserInitiatedShutdown: User initiated shutdown" },
    [REASON_LOST] = { "Server.InternalError", "Server.InternalError: Internal error on instance" },
};

/* StateTransitionReason "<what> (<now as GMT>)" and the StateReason of row r. */
void ec2_set_reason(struct inst *in, const char *what, enum reason r, int64_t now_ms)
{
    char when[40];

    sc_civil_format_gmt(now_ms, when, sizeof(when));
    snprintf(in->transition, sizeof(in->transition), "%s (%s)", what, when);
    in->v.state_transition_reason = in->transition;
    in->v.state_reason_code = ec2_reason_pairs[r][0];
    in->v.state_reason_message = ec2_reason_pairs[r][1];
}

/* No reason: what a (re)started instance shows. */
void ec2_clear_reason(struct inst *in)
{
    in->v.state_transition_reason = "";
    in->v.state_reason_code = NULL;
    in->v.state_reason_message = NULL;
}

int sc_ec2_live_count(const struct sc_ec2 *ec2)
{
    int n = 0;

    for (int i = 0; i < ec2->ninsts; i++) {
        enum sc_ec2_state s = ec2->insts[i]->v.state;

        n += s != SC_EC2_TERMINATED && s != SC_EC2_SHUTTING_DOWN;
    }
    return n;
}

int sc_ec2_running_vcpus(const struct sc_ec2 *ec2)
{
    int n = 0;

    for (int i = 0; i < ec2->ninsts; i++) {
        const struct inst *in = ec2->insts[i];
        const struct sc_ec2_instance_type *t;

        if (in->v.state != SC_EC2_PENDING && in->v.state != SC_EC2_RUNNING)
            continue;
        t = sc_ec2_instance_type_find(in->instance_type);
        n += t ? t->vcpus : 1;
    }
    return n;
}

/* Placement: the subnet and zone a request lands in. */
static enum sc_status place(struct sc_ec2 *ec2, const struct sc_ec2_run_req *req, const char *type,
                            struct subnet **out, struct sc_error *err)
{
    const struct zone *z = NULL;

    if (req->subnet_id) {
        struct subnet *s = (struct subnet *)ec2_subnet_find(ec2, req->subnet_id);

        if (!s)
            return ec2_subnet_unknown(req->subnet_id, err);
        if (req->availability_zone && strcmp(req->availability_zone, s->zone->name) != 0)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "Value (%s) for parameter availabilityZone is invalid. Subnet %s is "
                           "in availability zone %s",
                           req->availability_zone, s->id, s->zone->name);
        z = s->zone;
        *out = s;
    } else if (req->availability_zone) {
        z = ec2_zone_find(ec2, req->availability_zone);
        if (!z)
            return ec2_zone_unknown(req->availability_zone, err);
        *out = ec2_default_subnet(ec2, z->name);
    } else {
        for (int k = 0; k < ec2->nzones; k++) {
            const struct zone *c = &ec2->zones[(ec2->placement_rr + k) % ec2->nzones];

            if (c->available) {
                z = c;
                ec2->placement_rr = (int)(c - ec2->zones + 1) % ec2->nzones;
                break;
            }
        }
        if (!z)
            z = &ec2->zones[0];
        *out = ec2_default_subnet(ec2, z->name);
    }
    if (!z->available) {
        char others[512] = "";
        size_t k = 0;

        for (int i = 0; i < ec2->nzones && k < sizeof(others); i++) {
            if (ec2->zones[i].available)
                k += (size_t)snprintf(others + k, sizeof(others) - k, "%s%s", k ? ", " : "",
                                      ec2->zones[i].name);
        }
        return sc_fail(err, SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY,
                       "We currently do not have sufficient %s capacity in the Availability "
                       "Zone you requested (%s). Our system will be working on provisioning "
                       "additional capacity. You can currently get %s capacity by not "
                       "specifying an Availability Zone in your request or choosing %s.",
                       type, z->name, type, others);
    }
    if (!*out)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "No default subnet for availability zone: '%s'.", z->name);
    return SC_OK;
}

enum sc_status sc_ec2_run_instances(struct sc_ec2 *ec2, const struct sc_ec2_run_req *req,
                                    int64_t now_ms, const struct sc_ec2_reservation **out,
                                    struct sc_error *err)
{
    const struct ltver *ltv = NULL;
    const struct lt *t = NULL;
    const char *image, *type, *key, *user_data;
    struct subnet *subnet = NULL;
    struct resv *r = NULL;
    int count, avail, first;
    enum sc_status st;

    ec2->generation++;
    if (req->launch_template_id || req->launch_template_name) {
        st = ec2_lt_lookup(ec2, req->launch_template_id, req->launch_template_name, &t, err);
        if (st != SC_OK)
            return st;
        st = ec2_lt_version(t, req->launch_template_version, &ltv, err);
        if (st != SC_OK)
            return st;
    }
    image = req->image_id ? req->image_id : ltv ? ltv->image_id : NULL;
    type = req->instance_type          ? req->instance_type
           : ltv && ltv->instance_type ? ltv->instance_type
                                       : "m1.small";
    key = req->key_name ? req->key_name : ltv ? ltv->key_name : NULL;
    user_data = req->user_data ? req->user_data : ltv ? ltv->user_data : NULL;
    if (!image)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter ImageId");
    st = ec2_check_image(image, err);
    if (st != SC_OK)
        return st;
    if (ec2->strict_images && !sc_ec2_image_find(image))
        return sc_fail(err, SC_ERR_AMI_ID_NOT_FOUND, "The image id '[%s]' does not exist", image);
    if (!sc_ec2_instance_type_find(type))
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "Invalid value '%s' for InstanceType.",
                       type);
    if (req->min_count < 1)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "Value (%d) for parameter minCount is invalid. Expected a value greater "
                       "than 0.",
                       req->min_count);
    if (req->max_count < req->min_count)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "Value (%d) for parameter maxCount is invalid. Expected a value greater "
                       "than or equal to minCount (%d).",
                       req->max_count, req->min_count);
    st = ec2_check_tags(req->tags, req->ntags, 1, err);
    if (st != SC_OK)
        return st;
    st = place(ec2, req, type, &subnet, err);
    if (st != SC_OK)
        return st;
    avail = ec2->max_instances - sc_ec2_live_count(ec2);
    if (avail < req->min_count)
        return sc_fail(err, SC_ERR_INSTANCE_LIMIT_EXCEEDED,
                       "You have requested more instances (%d) than your current instance limit "
                       "of %d allows for the specified instance type. Please visit "
                       "http://aws.amazon.com/contact-us/ec2-request to request an adjustment "
                       "to this limit.",
                       req->min_count, ec2->max_instances);
    if (ec2->max_vcpus) {
        int per = sc_ec2_instance_type_find(type)->vcpus;
        int fit = (ec2->max_vcpus - sc_ec2_running_vcpus(ec2)) / (per > 0 ? per : 1);

        if (fit < req->min_count)
            return sc_fail(err, SC_ERR_VCPU_LIMIT_EXCEEDED,
                           "You have requested more vCPU capacity than your current vCPU limit "
                           "of %d allows for the instance bucket that the specified instance "
                           "type belongs to. Please visit "
                           "http://aws.amazon.com/contact-us/ec2-request to request an "
                           "adjustment to this limit.",
                           ec2->max_vcpus);
        if (fit < avail)
            avail = fit;
    }
    if (ec2->host_room) {
        int room = ec2->host_room(ec2->host_ud);

        if (room < req->min_count)
            return sc_fail(err, SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY, "Insufficient capacity.");
        if (room < avail)
            avail = room;
    }
    count = req->max_count < avail ? req->max_count : avail;
    if (ec2_index_reserve(ec2, (size_t)ec2->ninsts + (size_t)count) < 0)
        goto oom;

    r = calloc(1, sizeof(*r));
    if (!r)
        goto oom;
    r->members = calloc((size_t)count, sizeof(*r->members));
    if (!r->members || ec2_grow(&ec2->resvs, ec2->nresvs, &ec2->capresvs) < 0)
        goto oom;
    ec2_make_id(ec2, "r-", r->id);
    r->v.reservation_id = r->id;
    r->v.owner_id = ec2->account;
    r->v.instances = r->members;
    first = ec2->ninsts;
    for (int k = 0; k < count; k++) {
        struct inst *in;

        if (ec2_grow(&ec2->insts, ec2->ninsts, &ec2->capinsts) < 0)
            goto oom_insts;
        in = calloc(1, sizeof(*in));
        if (!in)
            goto oom_insts;
        if (sc_strdup_opt(&in->instance_type, type) < 0 ||
            sc_strdup_opt(&in->image_id, image) < 0 || sc_strdup_opt(&in->key_name, key) < 0 ||
            sc_strdup_opt(&in->user_data, user_data) < 0 ||
            sc_strdup_opt(&in->lc_name, req->launch_configuration_name) < 0 ||
            (t &&
             (sc_strdup_opt(&in->lt_id, t->id) < 0 || sc_strdup_opt(&in->lt_name, t->name) < 0)) ||
            (ltv && ec2_tagset_copy(&in->tags, ltv->v.data.tags, ltv->v.data.ntags) < 0) ||
            ec2_tagset_copy(&in->tags, req->tags, req->ntags) < 0) {
            ec2_inst_free(in);
            goto oom_insts;
        }
        ec2_make_id(ec2, "i-", in->id);
        snprintf(in->dns, sizeof(in->dns), "ip-127-0-0-1.%s",
                 strcmp(ec2->region, "us-east-1") == 0 ? "ec2.internal" : ec2->region);
        if (strcmp(ec2->region, "us-east-1") != 0) {
            size_t l = strlen(in->dns);

            snprintf(in->dns + l, sizeof(in->dns) - l, ".compute.internal");
        }
        in->resv = r;
        in->subnet = subnet;
        ec2_inst_link(ec2, in);
        in->v.state = SC_EC2_PENDING;
        in->v.state_transition_reason = "";
        in->v.ami_launch_index = k;
        in->v.launch_time_ms = now_ms;
        in->v.state_changed_ms = now_ms;
        in->v.launch_template_version = ltv ? ltv->v.version_number : 0;
        in->v.system_status = SC_EC2_CHECK_NOT_APPLICABLE;
        in->v.instance_status = SC_EC2_CHECK_NOT_APPLICABLE;
        in->v.monitoring_enabled =
            req->monitoring_enabled || (ltv && ltv->v.data.monitoring_enabled);
        subnet->v.available_ip_address_count--;
        ec2->insts[ec2->ninsts++] = in;
        ec2_index_put(ec2, in);
        r->members[r->n++] = &in->v;
    }
    r->v.ninstances = r->n;
    ec2->resvs[ec2->nresvs++] = r;
    if (out)
        *out = &r->v;
    return SC_OK;

oom_insts:
    while (ec2->ninsts > first) {
        struct inst *in = ec2->insts[--ec2->ninsts];

        ec2_index_del(ec2, in);

        subnet->v.available_ip_address_count++;
        ec2_inst_free(in);
    }
oom:
    ec2_resv_free(r);
    return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
}

/* Validates ids: first malformed -> Malformed; then all unknown -> NotFound. */
enum sc_status ec2_check_ids(const struct sc_ec2 *ec2, const char *const *ids, int nids,
                             struct sc_error *err)
{
    char list[SC_ERR_MESSAGE_LEN - 64];
    size_t k = 0;
    int missing = 0;

    for (int i = 0; i < nids; i++) {
        if (!sc_ec2_instance_id_valid(ids[i]))
            return sc_fail(err, SC_ERR_INSTANCE_ID_MALFORMED, "Invalid id: \"%s\"",
                           ids[i] ? ids[i] : "");
    }
    list[0] = '\0';
    for (int i = 0; i < nids; i++) {
        if (ec2_inst_find(ec2, ids[i]))
            continue;
        missing++;
        if (k < sizeof(list))
            k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s", missing > 1 ? ", " : "",
                                  ids[i]);
    }
    if (missing == 1)
        return sc_fail(err, SC_ERR_INSTANCE_ID_NOT_FOUND, "The instance ID '%s' does not exist",
                       list);
    if (missing > 1)
        return sc_fail(err, SC_ERR_INSTANCE_ID_NOT_FOUND, "The instance IDs '%s' do not exist",
                       list);
    return SC_OK;
}

/* A set of instance states, one bit each (AWS's state codes are multiples of 16). */
#define STATE_SET(s) (1u << ((unsigned)(s) / 16))

/* What Terminate, Stop or StartInstances does: instances in a state of `from` go to `to`
 * (the others stay as they are), unless refuse() (when set) turns the call down first. */
struct change {
    enum sc_ec2_state to;
    unsigned from;
    enum sc_status (*refuse)(const struct inst *in, struct sc_error *err);
};

/* The three calls alike: ids present and known (ec2_check_ids), no instance refused, then
 * every one changed; out (optional) gets a row per id in request order. */
static enum sc_status change_states(struct sc_ec2 *ec2, const struct change *c,
                                    const char *const *ids, int nids, int64_t now_ms,
                                    struct sc_ec2_state_change *out, struct sc_error *err)
{
    enum sc_status st;

    ec2->generation++;
    if (nids < 1)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter InstanceId");
    st = ec2_check_ids(ec2, ids, nids, err);
    for (int i = 0; st == SC_OK && c->refuse && i < nids; i++)
        st = c->refuse(ec2_inst_find(ec2, ids[i]), err);
    for (int i = 0; st == SC_OK && i < nids; i++) {
        struct inst *in = ec2_inst_mut(ec2, ids[i]);
        enum sc_ec2_state prev = in->v.state;

        if (c->from & STATE_SET(prev)) {
            ec2_set_state(in, c->to, now_ms);
            if (c->to == SC_EC2_PENDING)
                ec2_clear_reason(in);
            else
                ec2_set_reason(in, "User initiated", REASON_USER, now_ms);
        }
        if (out)
            out[i] = (struct sc_ec2_state_change){ in->id, prev, in->v.state };
    }
    return st;
}

enum sc_status sc_ec2_terminate_instances(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                          int64_t now_ms, struct sc_ec2_state_change *out,
                                          struct sc_error *err)
{
    static const struct change c = {
        SC_EC2_SHUTTING_DOWN, ~(STATE_SET(SC_EC2_SHUTTING_DOWN) | STATE_SET(SC_EC2_TERMINATED)),
        NULL
    };

    return change_states(ec2, &c, ids, nids, now_ms, out, err);
}

static enum sc_status stop_refused(const struct inst *in, struct sc_error *err)
{
    if (in->v.state != SC_EC2_SHUTTING_DOWN && in->v.state != SC_EC2_TERMINATED)
        return SC_OK;
    return sc_fail(err, SC_ERR_INCORRECT_INSTANCE_STATE,
                   "This instance '%s' is not in a state from which it can be stopped.", in->id);
}

static enum sc_status stop_or_hibernate(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                        int hibernate, int64_t now_ms,
                                        struct sc_ec2_state_change *out, struct sc_error *err)
{
    static const struct change c = { SC_EC2_STOPPING,
                                     STATE_SET(SC_EC2_RUNNING) | STATE_SET(SC_EC2_PENDING),
                                     stop_refused };
    enum sc_ec2_state prev[64];
    enum sc_status st;

    for (int i = 0; i < nids && i < 64; i++) {
        const struct inst *in = ec2_inst_find(ec2, ids[i]);

        prev[i] = in ? in->v.state : SC_EC2_TERMINATED;
    }
    st = change_states(ec2, &c, ids, nids, now_ms, out, err);
    for (int i = 0; st == SC_OK && i < nids; i++) {
        struct inst *in = ec2_inst_mut(ec2, ids[i]);

        /* the ones this call stopped (beyond 64 ids: those now stopping) */
        if (in->v.state == SC_EC2_STOPPING && (i >= 64 || prev[i] != SC_EC2_STOPPING))
            in->v.hibernated = hibernate;
    }
    return st;
}

enum sc_status sc_ec2_stop_instances(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                     int64_t now_ms, struct sc_ec2_state_change *out,
                                     struct sc_error *err)
{
    return stop_or_hibernate(ec2, ids, nids, 0, now_ms, out, err);
}

enum sc_status sc_ec2_hibernate_instances(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                          int64_t now_ms, struct sc_ec2_state_change *out,
                                          struct sc_error *err)
{
    return stop_or_hibernate(ec2, ids, nids, 1, now_ms, out, err);
}

static enum sc_status start_refused(const struct inst *in, struct sc_error *err)
{
    enum sc_ec2_state s = in->v.state;

    if (s == SC_EC2_STOPPED || s == SC_EC2_PENDING || s == SC_EC2_RUNNING)
        return SC_OK;
    return sc_fail(err, SC_ERR_INCORRECT_INSTANCE_STATE,
                   "The instance '%s' is not in a state from which it can be started.", in->id);
}

enum sc_status sc_ec2_start_instances(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                      int64_t now_ms, struct sc_ec2_state_change *out,
                                      struct sc_error *err)
{
    static const struct change c = { SC_EC2_PENDING, STATE_SET(SC_EC2_STOPPED), start_refused };

    return change_states(ec2, &c, ids, nids, now_ms, out, err);
}

static const char *const inst_filters[] = { "instance-state-name", "instance-state-code",
                                            "instance-id",         "instance-type",
                                            "availability-zone",   "image-id",
                                            "subnet-id",           "vpc-id",
                                            "reservation-id",      "key-name",
                                            "private-ip-address",  NULL };
static const char *const status_filters[] = {
    "instance-state-name",    "instance-state-code",  "instance-id", "availability-zone",
    "instance-status.status", "system-status.status", NULL
};

static int inst_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct inst *in = rec;
    const char *n = f->name;
    char code[8];

    snprintf(code, sizeof(code), "%d", (int)in->v.state);
    return ec2_values_match(
        f, strcmp(n, "instance-state-name") == 0      ? sc_ec2_state_name(in->v.state)
           : strcmp(n, "instance-state-code") == 0    ? code
           : strcmp(n, "instance-id") == 0            ? in->id
           : strcmp(n, "instance-type") == 0          ? in->v.instance_type
           : strcmp(n, "availability-zone") == 0      ? in->v.availability_zone
           : strcmp(n, "image-id") == 0               ? in->v.image_id
           : strcmp(n, "subnet-id") == 0              ? in->v.subnet_id
           : strcmp(n, "vpc-id") == 0                 ? in->v.vpc_id
           : strcmp(n, "reservation-id") == 0         ? in->v.reservation_id
           : strcmp(n, "key-name") == 0               ? in->v.key_name
           : strcmp(n, "private-ip-address") == 0     ? in->v.private_ip_address
           : strcmp(n, "instance-status.status") == 0 ? sc_ec2_check_name(in->v.instance_status)
           : strcmp(n, "system-status.status") == 0   ? sc_ec2_check_name(in->v.system_status)
                                                      : NULL);
}

static enum sc_status describe(const struct sc_ec2 *ec2, const struct sc_ec2_describe_req *req,
                               const char *const *known, int running_only,
                               const struct sc_ec2_instance **out, int *nout, struct sc_error *err)
{
    enum sc_status st;

    *nout = 0;
    st = ec2_check_filters(req->filters, req->nfilters, known, 1, err);
    if (st == SC_OK)
        st = ec2_check_ids(ec2, req->instance_ids, req->ninstance_ids, err);
    for (int i = 0; st == SC_OK && i < ec2->ninsts; i++) {
        const struct inst *in = ec2->insts[i];

        if ((!running_only || in->v.state == SC_EC2_RUNNING) &&
            ec2_listed(req->instance_ids, req->ninstance_ids, in->id) &&
            ec2_filters_pass(inst_match, in, &in->tags, req->filters, req->nfilters))
            out[(*nout)++] = &in->v;
    }
    return st;
}

enum sc_status sc_ec2_describe_instances(const struct sc_ec2 *ec2,
                                         const struct sc_ec2_describe_req *req,
                                         const struct sc_ec2_instance **out, int *nout,
                                         struct sc_error *err)
{
    return describe(ec2, req, inst_filters, 0, out, nout, err);
}

enum sc_status sc_ec2_describe_instance_status(const struct sc_ec2 *ec2,
                                               const struct sc_ec2_describe_req *req,
                                               int include_all_instances,
                                               const struct sc_ec2_instance **out, int *nout,
                                               struct sc_error *err)
{
    return describe(ec2, req, status_filters, !include_all_instances, out, nout, err);
}

int sc_ec2_instance_restarting(const struct sc_ec2_instance *inst)
{
    /* a launch is pending from its launch time; a start comes after a stop, later */
    return inst && inst->state == SC_EC2_PENDING && inst->state_changed_ms > inst->launch_time_ms;
}
