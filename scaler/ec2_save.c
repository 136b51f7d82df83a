/* scaler/ec2_save.c: sc_ec2_save / sc_ec2_load (ec2.h): the records as JSON (zones'
 * availability, VPCs, subnets, security groups with their rules, reservations, instances,
 * launch templates with their versions, tags, the RNG), and back. */
#include "scaler/ec2.h"

#include <stdlib.h>
#include <string.h>

#include "scaler/ec2_internal.h"
#include "scaler/rec.h"
#include "scaler/save.h"

/* --- save / load (the emulator's --state; see ec2.h) ------------------------------------------ */

static json_t *tagset_save(const struct tagset *t)
{
    json_t *a = json_array();

    for (int i = 0; a && i < t->n; i++) {
        json_t *o = json_pack("{s:s,s:s}", "key", t->v[i].key, "value", t->v[i].value);

        if (!o || json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static void tagset_load(struct sc_load *l, const json_t *o, const char *key, struct tagset *t)
{
    const json_t *a = sc_load_array(l, o, key);
    size_t k;
    const json_t *x;

    if (!a)
        return;
    json_array_foreach(a, k, x)
    {
        const char *tk = sc_load_cstr(l, x, "key");
        const char *tv = sc_load_cstr(l, x, "value");

        if (l->failed)
            return;
        if (ec2_tagset_set(t, tk, tv) < 0) {
            sc_load_fail(l, "%s: out of memory", key);
            return;
        }
    }
}

static const char *check_intern(int c)
{
    return sc_ec2_check_name((enum sc_ec2_check)c);
}

static int check_parse(const char *s)
{
    for (int c = SC_EC2_CHECK_NOT_APPLICABLE; s && c <= SC_EC2_CHECK_IMPAIRED; c++) {
        if (strcmp(check_intern(c), s) == 0)
            return c;
    }
    return -1;
}

/* The record savers (rec_save_fn): record i of the ec2 in ctx. */
static json_t *zone_save(const void *ctx, int i)
{
    const struct zone *z = &((const struct sc_ec2 *)ctx)->zones[i];

    return json_pack("{s:s,s:b}", "name", z->name, "available", z->available);
}

static json_t *vpc_save(const void *ctx, int i)
{
    const struct vpc *v = ((const struct sc_ec2 *)ctx)->vpcs[i];

    return json_pack("{s:s,s:s,s:s,s:s,s:b,s:o*}", "id", v->id, "dhcp", v->dhcp, "sg_id", v->sg_id,
                     "cidr", v->cidr, "is_default", v->v.is_default, "tags", tagset_save(&v->tags));
}

static json_t *subnet_save(const void *ctx, int i)
{
    const struct subnet *s = ((const struct sc_ec2 *)ctx)->subnets[i];

    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:b,s:b,s:o*}", "id", s->id, "arn", s->arn, "vpc_id",
                     s->vpc->id, "cidr", s->cidr, "availability_zone", s->zone->name,
                     "available_ip_address_count", s->v.available_ip_address_count,
                     "default_for_az", s->v.default_for_az, "map_public_ip_on_launch",
                     s->v.map_public_ip_on_launch, "tags", tagset_save(&s->tags));
}

static const char *const peer_names[] = { "cidr", "cidr6", "group", "prefix-list" };

static json_t *rules_save(const struct sc_ec2_sg_rule *r, int n)
{
    json_t *a = json_array();

    for (int i = 0; a && i < n; i++) {
        json_t *o =
            json_pack("{s:s,s:i,s:i,s:s,s:s,s:s?,s:s?}", "protocol", r[i].ip_protocol, "from",
                      r[i].from_port, "to", r[i].to_port, "peer_kind", peer_names[r[i].peer_kind],
                      "peer", r[i].peer, "user", r[i].peer_user, "description", r[i].description);

        if (!o || json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *sg_save(const void *ctx, int i)
{
    const struct sg *g = ((const struct sc_ec2 *)ctx)->sgs[i];

    return json_pack("{s:s,s:s,s:s,s:s,s:b,s:o*,s:o*,s:o*}", "id", g->id, "vpc_id", g->vpc_id,
                     "name", g->name, "description", g->desc, "default", g->is_default, "ingress",
                     rules_save(g->in, g->nin), "egress", rules_save(g->out, g->nout), "tags",
                     tagset_save(&g->tags));
}

static json_t *resv_save(const void *ctx, int i)
{
    const struct resv *r = ((const struct sc_ec2 *)ctx)->resvs[i];
    json_t *ids = json_array();
    int bad = 0;

    for (int k = 0; ids && k < r->n; k++)
        bad |= json_array_append_new(ids, json_string(r->members[k]->instance_id));
    if (bad) {
        json_decref(ids);
        return NULL;
    }
    return json_pack("{s:s,s:o*}", "id", r->id, "instances", ids);
}

static json_t *inst_save(const void *ctx, int i)
{
    const struct inst *in = ((const struct sc_ec2 *)ctx)->insts[i];
    json_t *o = json_object();
    int bad = !o;

    if (bad)
        return NULL;
    bad |= sc_save_str(o, "id", in->id);
    bad |= sc_save_str(o, "reservation_id", in->resv ? in->resv->id : NULL);
    bad |= sc_save_str(o, "state", sc_ec2_state_name(in->v.state));
    bad |= sc_save_str(o, "transition", in->v.state_transition_reason);
    bad |= sc_save_str(o, "reason_code", in->v.state_reason_code);
    bad |= sc_save_str(o, "subnet_id", in->subnet ? in->subnet->id : NULL);
    bad |= sc_save_str(o, "availability_zone", in->v.availability_zone);
    bad |= sc_save_str(o, "dns", in->dns);
    bad |= sc_save_str(o, "instance_type", in->instance_type);
    bad |= sc_save_str(o, "image_id", in->image_id);
    bad |= sc_save_str(o, "key_name", in->key_name);
    bad |= sc_save_str(o, "user_data", in->user_data);
    bad |= sc_save_str(o, "launch_configuration_name", in->lc_name);
    bad |= sc_save_str(o, "launch_template_id", in->lt_id);
    bad |= sc_save_str(o, "launch_template_name", in->lt_name);
    bad |= sc_save_int(o, "launch_template_version", in->v.launch_template_version);
    bad |= sc_save_int(o, "ami_launch_index", in->v.ami_launch_index);
    bad |= sc_save_int(o, "launch_time_ms", in->v.launch_time_ms);
    bad |= sc_save_int(o, "state_changed_ms", in->v.state_changed_ms);
    bad |= sc_save_str(o, "system_status", check_intern(in->v.system_status));
    bad |= sc_save_str(o, "instance_status", check_intern(in->v.instance_status));
    bad |= sc_save_int(o, "impaired_since_ms", in->v.impaired_since_ms);
    bad |= sc_save_bool(o, "monitoring_enabled", in->v.monitoring_enabled);
    bad |= sc_save_int(o, "checks_ok_at_ms", in->checks_ok_at_ms);
    bad |= sc_save_take(o, "tags", tagset_save(&in->tags));
    return rec_save_done(o, bad);
}

static json_t *lt_save(const void *ctx, int i)
{
    const struct lt *t = ((const struct sc_ec2 *)ctx)->lts[i];
    json_t *o = json_object();
    json_t *vers = json_array();
    int bad = !o || !vers;

    for (int k = 0; !bad && k < t->nvers; k++) {
        const struct ltver *v = t->vers[k];
        json_t *vo = json_object();

        bad |= !vo;
        if (!vo)
            break;
        bad |= sc_save_int(vo, "version_number", v->v.version_number);
        bad |= sc_save_str(vo, "description", v->desc);
        bad |= sc_save_int(vo, "create_time_ms", v->v.create_time_ms);
        bad |= sc_save_str(vo, "image_id", v->image_id);
        bad |= sc_save_str(vo, "instance_type", v->instance_type);
        bad |= sc_save_str(vo, "key_name", v->key_name);
        bad |= sc_save_str(vo, "user_data", v->user_data);
        bad |= sc_save_strv(vo, "security_group_ids", v->sgs, v->nsgs);
        bad |= sc_save_bool(vo, "monitoring_enabled", v->v.data.monitoring_enabled);
        bad |= sc_save_take(vo, "tags", tagset_save(&v->tags));
        if (v->other)
            bad |= sc_save_take(vo, "other", json_deep_copy(v->other));
        bad |= json_array_append_new(vers, vo);
    }
    if (!bad) {
        bad |= sc_save_str(o, "id", t->id);
        bad |= sc_save_str(o, "name", t->name);
        bad |= sc_save_str(o, "created_by", t->created_by);
        bad |= sc_save_int(o, "create_time_ms", t->v.create_time_ms);
        bad |= sc_save_int(o, "default_version_number", t->v.default_version_number);
        bad |= sc_save_take(o, "tags", tagset_save(&t->tags));
        bad |= sc_save_take(o, "versions", vers);
        vers = NULL;
    }
    json_decref(vers);
    return rec_save_done(o, bad);
}

json_t *sc_ec2_save(const struct sc_ec2 *ec2)
{
    json_t *o = json_object();
    int bad = !o;

    if (bad)
        return NULL;
    bad |= rec_rng_save(o, &ec2->rng);
    bad |= sc_save_int(o, "placement_rr", ec2->placement_rr);
    bad |= rec_save_list(o, "zones", ec2, ec2->nzones, zone_save);
    bad |= rec_save_list(o, "vpcs", ec2, ec2->nvpcs, vpc_save);
    bad |= rec_save_list(o, "subnets", ec2, ec2->nsubnets, subnet_save);
    bad |= rec_save_list(o, "security_groups", ec2, ec2->nsgs, sg_save);
    bad |= rec_save_list(o, "reservations", ec2, ec2->nresvs, resv_save);
    bad |= rec_save_list(o, "instances", ec2, ec2->ninsts, inst_save);
    bad |= rec_save_list(o, "launch_templates", ec2, ec2->nlts, lt_save);
    return rec_save_done(o, bad);
}

static void vpcs_load(struct sc_ec2 *ec2, struct sc_load *l, const json_t *a, struct recs *d)
{
    size_t k;
    const json_t *x;

    d->vpcs = rec_load_ptrs(l, json_array_size(a));
    json_array_foreach(a, k, x)
    {
        struct vpc *v = rec_load_new(l, sizeof(*v));

        if (!v)
            return;
        d->vpcs[d->nvpcs++] = v;
        sc_load_buf(l, x, "id", v->id, sizeof(v->id));
        sc_load_buf(l, x, "dhcp", v->dhcp, sizeof(v->dhcp));
        sc_load_buf(l, x, "sg_id", v->sg_id, sizeof(v->sg_id));
        sc_load_buf(l, x, "cidr", v->cidr, sizeof(v->cidr));
        v->v.is_default = sc_load_bool(l, x, "is_default");
        tagset_load(l, x, "tags", &v->tags);
        if (!l->failed && ec2_cidr_parse(v->cidr, 0, 32, &v->base, &v->prefix) < 0)
            sc_load_fail(l, "vpc %s: bad cidr %s", v->id, v->cidr);
        ec2_vpc_link(ec2, v);
    }
}

static void subnets_load(struct sc_ec2 *ec2, struct sc_load *l, const json_t *a, struct recs *d)
{
    size_t k;
    const json_t *x;

    d->subnets = rec_load_ptrs(l, json_array_size(a));
    json_array_foreach(a, k, x)
    {
        struct subnet *s = rec_load_new(l, sizeof(*s));

        if (!s)
            return;
        d->subnets[d->nsubnets++] = s;
        sc_load_buf(l, x, "id", s->id, sizeof(s->id));
        s->arn = sc_load_str(l, x, "arn");
        sc_load_buf(l, x, "cidr", s->cidr, sizeof(s->cidr));
        s->vpc = ec2_vpc_in(d->vpcs, d->nvpcs, sc_load_cstr(l, x, "vpc_id"));
        s->zone = ec2_zone_find(ec2, sc_load_cstr(l, x, "availability_zone"));
        s->v.available_ip_address_count =
            sc_load_int_range(l, x, "available_ip_address_count", -(1 << 30), 1 << 30);
        s->v.default_for_az = sc_load_bool(l, x, "default_for_az");
        s->v.map_public_ip_on_launch = sc_load_bool(l, x, "map_public_ip_on_launch");
        tagset_load(l, x, "tags", &s->tags);
        if (l->failed)
            return;
        if (!s->arn || !s->vpc || !s->zone ||
            ec2_cidr_parse(s->cidr, 0, 32, &s->base, &s->prefix) < 0) {
            sc_load_fail(l, "subnet %s: unknown vpc or zone, or bad cidr", s->id);
            return;
        }
        ec2_subnet_link(ec2, s);
    }
}

static void rules_load(struct sc_load *l, const json_t *o, const char *key, struct sg *g,
                       int egress)
{
    const json_t *a = sc_load_array(l, o, key);
    size_t k;
    const json_t *x;

    json_array_foreach(a, k, x)
    {
        struct sc_ec2_sg_rule r = { 0 };
        const char *kind;
        int found = 0;

        r.ip_protocol = sc_load_cstr(l, x, "protocol");
        r.from_port = sc_load_int_range(l, x, "from", -1, 65535);
        r.to_port = sc_load_int_range(l, x, "to", -1, 65535);
        kind = sc_load_cstr(l, x, "peer_kind");
        r.peer = sc_load_cstr(l, x, "peer");
        r.peer_user = sc_load_cstr_opt(l, x, "user");
        r.description = sc_load_cstr_opt(l, x, "description");
        if (l->failed)
            return;
        for (int p = 0; p < (int)(sizeof(peer_names) / sizeof(peer_names[0])); p++) {
            if (strcmp(kind, peer_names[p]) == 0) {
                r.peer_kind = (enum sc_ec2_peer)p;
                found = 1;
            }
        }
        if (!found) {
            sc_load_fail(l, "security group %s: unknown peer kind %s", g->id, kind);
            return;
        }
        if (ec2_sg_rule_add(g, egress, &r) < 0) {
            sc_load_fail(l, "out of memory");
            return;
        }
    }
}

static void sgs_load(struct sc_ec2 *ec2, struct sc_load *l, const json_t *a, struct recs *d)
{
    size_t k;
    const json_t *x;

    if (!a) {
        /* a file written before security groups were records: each VPC's default group */
        d->sgs = rec_load_ptrs(l, (size_t)d->nvpcs);
        for (int i = 0; d->sgs && i < d->nvpcs && !l->failed; i++) {
            d->sgs[d->nsgs] = ec2_sg_default_make(ec2, d->vpcs[i]);
            if (!d->sgs[d->nsgs])
                sc_load_fail(l, "out of memory");
            else
                d->nsgs++;
        }
        return;
    }
    d->sgs = rec_load_ptrs(l, json_array_size(a));
    json_array_foreach(a, k, x)
    {
        const char *id, *vpc, *name, *desc;
        struct sg *g;

        if (l->failed || !d->sgs)
            return;
        id = sc_load_cstr(l, x, "id");
        vpc = sc_load_cstr(l, x, "vpc_id");
        name = sc_load_cstr(l, x, "name");
        desc = sc_load_cstr(l, x, "description");
        if (l->failed)
            return;
        if (!ec2_id_valid(id, "sg-") || strlen(id) >= SC_EC2_ID_LEN ||
            !ec2_vpc_in(d->vpcs, d->nvpcs, vpc)) {
            sc_load_fail(l, "security group %s: malformed id or unknown vpc", id);
            return;
        }
        g = ec2_sg_make(ec2, id, vpc, name, desc);
        if (!g) {
            sc_load_fail(l, "out of memory");
            return;
        }
        d->sgs[d->nsgs++] = g;
        g->is_default = sc_load_bool(l, x, "default");
        rules_load(l, x, "ingress", g, 0);
        rules_load(l, x, "egress", g, 1);
        tagset_load(l, x, "tags", &g->tags);
        ec2_sg_sync(g);
    }
}

static struct resv *loaded_resv(const struct recs *d, const char *id)
{
    for (int i = 0; id && i < d->nresvs; i++) {
        if (strcmp(d->resvs[i]->id, id) == 0)
            return d->resvs[i];
    }
    return NULL;
}

static void insts_load(struct sc_ec2 *ec2, struct sc_load *l, const json_t *a, struct recs *d)
{
    size_t k;
    const json_t *x;

    d->insts = rec_load_ptrs(l, json_array_size(a));
    json_array_foreach(a, k, x)
    {
        struct inst *in = rec_load_new(l, sizeof(*in));
        const char *s, *code;
        int st, c1, c2;

        if (!in)
            return;
        d->insts[d->ninsts++] = in;
        sc_load_buf(l, x, "id", in->id, sizeof(in->id));
        in->resv = loaded_resv(d, sc_load_cstr(l, x, "reservation_id"));
        st = sc_ec2_state_parse(sc_load_cstr(l, x, "state"));
        sc_load_buf(l, x, "transition", in->transition, sizeof(in->transition));
        code = json_string_value(json_object_get(x, "reason_code"));
        s = json_string_value(json_object_get(x, "subnet_id"));
        in->subnet = s ? ec2_subnet_in(d->subnets, d->nsubnets, s) : NULL;
        sc_load_buf(l, x, "dns", in->dns, sizeof(in->dns));
        in->instance_type = sc_load_str(l, x, "instance_type");
        in->image_id = sc_load_str(l, x, "image_id");
        in->key_name = sc_load_str(l, x, "key_name");
        in->user_data = sc_load_str(l, x, "user_data");
        in->lc_name = sc_load_str(l, x, "launch_configuration_name");
        in->lt_id = sc_load_str(l, x, "launch_template_id");
        in->lt_name = sc_load_str(l, x, "launch_template_name");
        in->v.launch_template_version = (long)sc_load_int(l, x, "launch_template_version");
        in->v.ami_launch_index = (int)sc_load_int(l, x, "ami_launch_index");
        in->v.launch_time_ms = sc_load_int(l, x, "launch_time_ms");
        in->v.state_changed_ms = sc_load_int(l, x, "state_changed_ms");
        c1 = check_parse(sc_load_cstr(l, x, "system_status"));
        c2 = check_parse(sc_load_cstr(l, x, "instance_status"));
        in->v.impaired_since_ms = sc_load_int(l, x, "impaired_since_ms");
        in->v.monitoring_enabled = sc_load_bool(l, x, "monitoring_enabled");
        in->checks_ok_at_ms = sc_load_int(l, x, "checks_ok_at_ms");
        tagset_load(l, x, "tags", &in->tags);
        if (l->failed)
            return;
        if (!in->resv || !in->subnet || st < 0 || c1 < 0 || c2 < 0) {
            sc_load_fail(l, "instance %s: unknown reservation, subnet, state or status", in->id);
            return;
        }
        if (ec2_inst_find(ec2, in->id) || !ec2_id_valid(in->id, "i-")) {
            sc_load_fail(l, "instance %s: malformed or duplicate id", in->id);
            return;
        }
        in->v.state_reason_code = NULL;
        in->v.state_reason_message = NULL;
        for (size_t r = 0; code && r < sizeof(ec2_reason_pairs) / sizeof(ec2_reason_pairs[0]);
             r++) {
            if (strcmp(code, ec2_reason_pairs[r][0]) == 0) {
                in->v.state_reason_code = ec2_reason_pairs[r][0];
                in->v.state_reason_message = ec2_reason_pairs[r][1];
            }
        }
        if (code && !in->v.state_reason_code) {
            sc_load_fail(l, "instance %s: unknown state reason %s", in->id, code);
            return;
        }
        ec2_inst_link(ec2, in);
        in->v.state = (enum sc_ec2_state)st;
        in->v.state_transition_reason = in->transition;
        in->v.system_status = (enum sc_ec2_check)c1;
        in->v.instance_status = (enum sc_ec2_check)c2;
    }
}

static void resvs_load(struct sc_load *l, const json_t *a, struct recs *d)
{
    size_t k;
    const json_t *x;

    d->resvs = rec_load_ptrs(l, json_array_size(a));
    json_array_foreach(a, k, x)
    {
        struct resv *r = rec_load_new(l, sizeof(*r));
        const json_t *ids;

        if (!r)
            return;
        d->resvs[d->nresvs++] = r;
        sc_load_buf(l, x, "id", r->id, sizeof(r->id));
        ids = sc_load_array(l, x, "instances");
        if (!ids)
            return;
        r->members = rec_load_ptrs(l, json_array_size(ids));
        r->v.reservation_id = r->id;
        r->v.instances = r->members;
    }
}

/* Second pass: reservation members, by id, in their saved order. */
static void resvs_link(struct sc_load *l, const json_t *a, struct recs *d)
{
    for (int i = 0; i < d->nresvs && !l->failed; i++) {
        struct resv *r = d->resvs[i];
        const json_t *ids = json_object_get(json_array_get(a, (size_t)i), "instances");
        size_t k;
        const json_t *x;

        json_array_foreach(ids, k, x)
        {
            const struct inst *in = NULL;

            for (int j = 0; json_is_string(x) && j < d->ninsts; j++) {
                if (strcmp(d->insts[j]->id, json_string_value(x)) == 0)
                    in = d->insts[j];
            }
            if (!in || in->resv != r) {
                sc_load_fail(l, "reservation %s: unknown member", r->id);
                return;
            }
            r->members[r->n++] = &in->v;
        }
        r->v.ninstances = r->n;
    }
}

static void lts_load(struct sc_load *l, const json_t *a, struct recs *d)
{
    size_t k;
    const json_t *x;

    d->lts = rec_load_ptrs(l, json_array_size(a));
    json_array_foreach(a, k, x)
    {
        struct lt *t = rec_load_new(l, sizeof(*t));
        const json_t *vers, *vx;
        size_t j;

        if (!t)
            return;
        d->lts[d->nlts++] = t;
        sc_load_buf(l, x, "id", t->id, sizeof(t->id));
        t->name = sc_load_str(l, x, "name");
        t->created_by = sc_load_str(l, x, "created_by");
        t->v.create_time_ms = sc_load_int(l, x, "create_time_ms");
        t->v.default_version_number = (long)sc_load_int(l, x, "default_version_number");
        tagset_load(l, x, "tags", &t->tags);
        vers = sc_load_array(l, x, "versions");
        if (l->failed)
            return;
        if (!t->name || !t->created_by) {
            sc_load_fail(l, "launch template %s: no name", t->id);
            return;
        }
        t->v.launch_template_id = t->id;
        t->v.launch_template_name = t->name;
        t->v.created_by = t->created_by;
        json_array_foreach(vers, j, vx)
        {
            struct ltver *v = calloc(1, sizeof(*v));

            if (!v || ec2_grow(&t->vers, t->nvers, &t->capvers) < 0) {
                free(v);
                sc_load_fail(l, "out of memory");
                return;
            }
            t->vers[t->nvers++] = v;
            v->desc = sc_load_str(l, vx, "description");
            v->image_id = sc_load_str(l, vx, "image_id");
            v->instance_type = sc_load_str(l, vx, "instance_type");
            v->key_name = sc_load_str(l, vx, "key_name");
            v->user_data = sc_load_str(l, vx, "user_data");
            v->sgs = sc_load_strv(l, vx, "security_group_ids", &v->nsgs);
            v->v.data.monitoring_enabled = sc_load_bool(l, vx, "monitoring_enabled");
            v->v.create_time_ms = sc_load_int(l, vx, "create_time_ms");
            tagset_load(l, vx, "tags", &v->tags);
            if (json_object_get(vx, "other")) { /* absent: none, or written before it was kept */
                const json_t *other = sc_load_object(l, vx, "other");

                v->other = other ? json_deep_copy(other) : NULL;
            }
            if (!l->failed && sc_load_int(l, vx, "version_number") != t->nvers)
                sc_load_fail(l, "launch template %s: versions out of order", t->id);
            ec2_ltver_link(v, t, t->nvers);
        }
        t->v.latest_version_number = t->nvers;
        if (!l->failed && (t->nvers < 1 || t->v.default_version_number < 1 ||
                           t->v.default_version_number > t->nvers))
            sc_load_fail(l, "launch template %s: bad versions", t->id);
        ec2_lt_sync(t);
    }
}

enum sc_status sc_ec2_load(struct sc_ec2 *ec2, const json_t *obj, struct sc_error *err)
{
    struct sc_load l;
    struct recs d, fresh;
    const json_t *a, *resv_a = NULL;
    uint64_t rng[4] = { 0, 0, 0, 0 };
    int avail[MAX_ZONES];
    int rr;
    size_t k;
    const json_t *x;

    memset(&d, 0, sizeof(d));
    sc_load_init(&l, "ec2", err);
    if (ec2->ninsts || ec2->nlts || ec2->nresvs)
        return sc_fail(err, SC_ERR_VALIDATION, "state: ec2: load into a non-empty ec2");
    if (!json_is_object(obj))
        return sc_fail(err, SC_ERR_VALIDATION, "state: ec2: expected an object");
    rec_rng_load(&l, obj, rng);
    rr = sc_load_int_range(&l, obj, "placement_rr", 0, MAX_ZONES);
    a = sc_load_array(&l, obj, "zones");
    if (a && (int)json_array_size(a) != ec2->nzones)
        sc_load_fail(&l, "zones: the saved world has %zu zones, this one %d", json_array_size(a),
                     ec2->nzones);
    json_array_foreach(a, k, x)
    {
        const char *name;

        if (l.failed || k >= (size_t)ec2->nzones)
            break;
        name = sc_load_cstr(&l, x, "name");
        avail[k] = sc_load_bool(&l, x, "available");
        if (!l.failed && strcmp(name, ec2->zones[k].name) != 0)
            sc_load_fail(&l, "zones: saved zone %s is not this world's %s", name,
                         ec2->zones[k].name);
    }
    a = sc_load_array(&l, obj, "vpcs");
    if (a && !l.failed)
        vpcs_load(ec2, &l, a, &d);
    a = sc_load_array(&l, obj, "subnets");
    if (a && !l.failed)
        subnets_load(ec2, &l, a, &d);
    a = json_object_get(obj, "security_groups");
    if (!l.failed)
        sgs_load(ec2, &l, a ? sc_load_array(&l, obj, "security_groups") : NULL, &d);
    resv_a = sc_load_array(&l, obj, "reservations");
    if (resv_a && !l.failed)
        resvs_load(&l, resv_a, &d);
    a = sc_load_array(&l, obj, "instances");
    if (a && !l.failed && json_array_size(a) > (size_t)ec2->max_instances * 4)
        sc_load_fail(&l, "instances: too many");
    if (a && !l.failed)
        insts_load(ec2, &l, a, &d);
    if (!l.failed)
        resvs_link(&l, resv_a, &d);
    a = sc_load_array(&l, obj, "launch_templates");
    if (a && !l.failed)
        lts_load(&l, a, &d);
    if (!l.failed && d.nvpcs < 1)
        sc_load_fail(&l, "vpcs: the default VPC is missing");
    if (!l.failed && ec2_index_reserve(ec2, (size_t)d.ninsts) < 0)
        sc_load_fail(&l, "out of memory");
    if (l.failed) {
        ec2_recs_free(&d);
        return err ? err->status : SC_ERR_VALIDATION;
    }
    /* replace the fresh records (the default VPC and subnets made at create) */
    fresh = ec2_recs_of(ec2);
    ec2_recs_free(&fresh);
    ec2->vpcs = d.vpcs;
    ec2->nvpcs = ec2->capvpcs = d.nvpcs;
    ec2->subnets = d.subnets;
    ec2->nsubnets = ec2->capsubnets = d.nsubnets;
    ec2->insts = d.insts;
    ec2->ninsts = ec2->capinsts = d.ninsts;
    ec2->resvs = d.resvs;
    ec2->nresvs = ec2->capresvs = d.nresvs;
    ec2->lts = d.lts;
    ec2->nlts = ec2->caplts = d.nlts;
    ec2->sgs = d.sgs;
    ec2->nsgs = ec2->capsgs = d.nsgs;
    ec2->enis = NULL; /* their services make them again */
    ec2->nenis = ec2->capenis = 0;
    for (int i = 0; i < ec2->ninsts; i++)
        ec2_index_put(ec2, ec2->insts[i]);
    for (int i = 0; i < ec2->nzones; i++) {
        ec2->zones[i].available = avail[i];
        ec2->zones[i].v.state = avail[i] ? "available" : "impaired";
    }
    memcpy(ec2->rng.s, rng, sizeof(rng));
    ec2->placement_rr = rr;
    ec2->generation++;
    return SC_OK;
}
