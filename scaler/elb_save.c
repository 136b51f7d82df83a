/* scaler/elb_save.c: the load balancers' part of the emulator's state file (sc_elb_save,
 * sc_elb_load; see elb.h). */
#include "scaler/elb.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/elb_internal.h"
#include "scaler/rec.h"
#include "scaler/save.h"

/* --- save / load (the emulator's --state; see elb.h) ------------------------------------------ */

static json_t *port_sets_save(const struct port_policies *p, int n)
{
    json_t *a = json_array();

    for (int i = 0; a && i < n; i++) {
        json_t *o = json_object();
        int bad = !o || sc_save_int(o, "port", p[i].port) ||
                  sc_save_strv(o, "names", p[i].names, p[i].n) || json_array_append_new(a, o);

        if (bad) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *policies_save(const struct lb *b)
{
    json_t *a = json_array();

    for (int i = 0; a && i < b->npolicies; i++) {
        const struct policy *p = b->policies[i];
        json_t *attrs = json_array();
        int bad = !attrs;

        for (int k = 0; !bad && k < p->nattrs; k++)
            bad |= json_array_append_new(attrs, json_pack("{s:s,s:s}", "name", p->attrs[k].name,
                                                          "value", p->attrs[k].value));
        if (bad || json_array_append_new(a, json_pack("{s:s,s:s,s:o}", "name", p->name, "type",
                                                      p->type->name, "attributes", attrs))) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* The policies and port sets of a saved load balancer (absent in files written before
 * policies: none). */
static void policies_load(struct sc_load *l, const json_t *x, struct lb *b)
{
    const json_t *a = json_object_get(x, "policies");
    const char *keys[2] = { "listener_policies", "backend_policies" };
    size_t k, j;
    const json_t *v, *at;

    if (a)
        a = sc_load_array(l, x, "policies");
    json_array_foreach(a, k, v)
    {
        const char *name = sc_load_cstr(l, v, "name");
        const struct sc_elb_policy_type *t = elb_policy_type(sc_load_cstr(l, v, "type"));
        const json_t *attrs = sc_load_array(l, v, "attributes");
        struct sc_elb_policy_attr *pa;
        int n = 0;

        if (l->failed)
            return;
        if (!t) {
            sc_load_fail(l, "load balancer %s: policy %s of an unknown type", b->name, name);
            return;
        }
        pa = calloc(json_array_size(attrs) + 1, sizeof(*pa));
        if (!pa) {
            sc_load_fail(l, "out of memory");
            return;
        }
        json_array_foreach(attrs, j, at)
        {
            pa[n].name = sc_load_cstr(l, at, "name");
            pa[n].value = sc_load_cstr(l, at, "value");
            n++;
        }
        if (!l->failed && elb_policy_add(b, name, t, pa, n) < 0)
            sc_load_fail(l, "out of memory");
        free(pa);
    }
    for (int w = 0; w < 2 && !l->failed; w++) {
        a = json_object_get(x, keys[w]);
        if (a)
            a = sc_load_array(l, x, keys[w]);
        json_array_foreach(a, k, v)
        {
            int port = sc_load_int_range(l, v, "port", 1, 65535), n = 0;
            char **names = sc_load_strv(l, v, "names", &n);

            if (!l->failed && elb_port_set(w ? &b->bpols : &b->lpols, w ? &b->nbpols : &b->nlpols,
                                           port, (const char *const *)names, n, w) < 0)
                sc_load_fail(l, "out of memory");
            sc_strv_free(names, n);
            if (l->failed)
                return;
        }
    }
}

static json_t *lb_save(const void *ctx, int i)
{
    const struct lb *b = ((const struct sc_elb *)ctx)->lbs[i];
    const struct sc_elb_attributes *at = &b->v.attributes;
    const struct sc_elb_health_check *hc = &b->v.health_check;
    json_t *o = json_object();
    json_t *a;
    int bad = !o;

    if (bad)
        return NULL;
    bad |= sc_save_str(o, "name", b->name);
    bad |= sc_save_str(o, "dns", b->dns);
    bad |= sc_save_str(o, "scheme", b->scheme);
    bad |= sc_save_str(o, "vpc_id", b->v.vpc_id);
    bad |= sc_save_int(o, "created_ms", b->v.created_time_ms);
    bad |= sc_save_take(o, "health_check",
                        json_pack("{s:s,s:i,s:i,s:i,s:i}", "target", b->hc_target, "interval_s",
                                  hc->interval_s, "timeout_s", hc->timeout_s, "unhealthy_threshold",
                                  hc->unhealthy_threshold, "healthy_threshold",
                                  hc->healthy_threshold));
    bad |= sc_save_take(
        o, "attributes",
        json_pack("{s:b,s:i,s:i,s:b,s:b,s:s?,s:s?,s:i}", "connection_draining_enabled",
                  at->connection_draining_enabled, "connection_draining_timeout_s",
                  at->connection_draining_timeout_s, "idle_timeout_s", at->idle_timeout_s,
                  "cross_zone_enabled", at->cross_zone_enabled, "access_log_enabled",
                  at->access_log_enabled, "bucket", b->bucket, "prefix", b->prefix,
                  "access_log_emit_interval", at->access_log_emit_interval));
    a = json_array();
    for (int k = 0; a && k < b->nlisteners; k++) {
        const struct sc_elb_listener *li = &b->listeners[k];

        bad |= json_array_append_new(
            a, json_pack("{s:s,s:i,s:s?,s:i,s:s?}", "protocol", li->protocol, "load_balancer_port",
                         li->load_balancer_port, "instance_protocol", li->instance_protocol,
                         "instance_port", li->instance_port, "ssl_certificate_id",
                         li->ssl_certificate_id));
    }
    bad |= sc_save_take(o, "listeners", a);
    bad |= sc_save_strv(o, "zones", b->zones, b->nzones);
    bad |= sc_save_strv(o, "subnets", b->subnets, b->nzones);
    bad |= sc_save_strv(o, "security_groups", b->sgs, b->nsgs);
    a = json_array();
    for (int k = 0; a && k < b->ntags; k++)
        bad |= json_array_append_new(
            a, json_pack("{s:s,s:s}", "key", b->tags[k].key, "value", b->tags[k].value));
    bad |= sc_save_take(o, "tags", a);
    a = json_array();
    for (int k = 0; a && k < b->nregs; k++) {
        const struct reg *r = b->regs[k];

        bad |= json_array_append_new(
            a, json_pack("{s:s,s:I,s:b,s:b,s:b,s:i,s:i,s:i,s:I}", "id", r->id, "registered_ms",
                         (json_int_t)r->registered_ms, "in_service", r->health.in_service,
                         "ever_in_service", r->health.ever_in_service, "failed_out",
                         r->health.failed_out, "consec_ok", r->health.consec_ok, "consec_fail",
                         r->health.consec_fail, "drain", (int)r->drain, "drain_deadline_ms",
                         (json_int_t)r->drain_deadline_ms));
    }
    bad |= sc_save_take(o, "registrations", a);
    bad |= sc_save_take(o, "policies", policies_save(b));
    bad |= sc_save_take(o, "listener_policies", port_sets_save(b->lpols, b->nlpols));
    bad |= sc_save_take(o, "backend_policies", port_sets_save(b->bpols, b->nbpols));
    return rec_save_done(o, bad);
}

json_t *sc_elb_save(const struct sc_elb *elb)
{
    json_t *o = json_object();
    int bad = !o;

    if (bad)
        return NULL;
    bad |= rec_rng_save(o, &elb->rng);
    bad |= rec_save_list(o, "load_balancers", elb, elb->nlbs, lb_save);
    return rec_save_done(o, bad);
}

/* A string or null (present either way). */
static char *opt_dup(struct sc_load *l, const json_t *o, const char *key)
{
    return sc_load_str(l, o, key);
}

static struct lb *lb_load(struct sc_elb *elb, struct sc_load *l, const json_t *x)
{
    struct lb *b = rec_load_new(l, sizeof(*b));
    const json_t *hc, *at, *a, *v;
    const char *vpc;
    size_t k;
    int nsub = 0;

    if (!b)
        return NULL;
    sc_load_buf(l, x, "name", b->name, sizeof(b->name));
    b->dns = sc_load_str(l, x, "dns");
    b->scheme = sc_load_str(l, x, "scheme");
    vpc = json_string_value(json_object_get(x, "vpc_id"));
    b->v.created_time_ms = sc_load_int(l, x, "created_ms");
    hc = sc_load_object(l, x, "health_check");
    b->hc_target = sc_load_str(l, hc, "target");
    b->v.health_check.interval_s = sc_load_int_range(l, hc, "interval_s", 0, 1 << 30);
    b->v.health_check.timeout_s = sc_load_int_range(l, hc, "timeout_s", 0, 1 << 30);
    b->v.health_check.unhealthy_threshold =
        sc_load_int_range(l, hc, "unhealthy_threshold", 0, 1 << 30);
    b->v.health_check.healthy_threshold = sc_load_int_range(l, hc, "healthy_threshold", 0, 1 << 30);
    at = sc_load_object(l, x, "attributes");
    b->v.attributes.connection_draining_enabled =
        sc_load_bool(l, at, "connection_draining_enabled");
    b->v.attributes.connection_draining_timeout_s =
        sc_load_int_range(l, at, "connection_draining_timeout_s", 0, 1 << 30);
    b->v.attributes.idle_timeout_s = sc_load_int_range(l, at, "idle_timeout_s", 0, 1 << 30);
    b->v.attributes.cross_zone_enabled = sc_load_bool(l, at, "cross_zone_enabled");
    b->v.attributes.access_log_enabled = sc_load_bool(l, at, "access_log_enabled");
    b->bucket = opt_dup(l, at, "bucket");
    b->prefix = opt_dup(l, at, "prefix");
    b->v.attributes.access_log_emit_interval =
        sc_load_int_range(l, at, "access_log_emit_interval", 0, 1 << 30);
    a = sc_load_array(l, x, "listeners");
    if (a && !l->failed && json_array_size(a) > 0) {
        b->listeners = calloc(json_array_size(a), sizeof(*b->listeners));
        if (!b->listeners)
            sc_load_fail(l, "out of memory");
        else
            b->caplisteners = (int)json_array_size(a);
        json_array_foreach(a, k, v)
        {
            struct sc_elb_listener *li;

            if (l->failed)
                break;
            li = &b->listeners[b->nlisteners++];
            li->protocol = sc_load_str(l, v, "protocol");
            li->load_balancer_port = sc_load_int_range(l, v, "load_balancer_port", 1, 65535);
            li->instance_protocol = opt_dup(l, v, "instance_protocol");
            li->instance_port = sc_load_int_range(l, v, "instance_port", 1, 65535);
            li->ssl_certificate_id = opt_dup(l, v, "ssl_certificate_id");
            if (!l->failed && !li->protocol)
                sc_load_fail(l, "load balancer %s: a listener without protocol", b->name);
        }
    }
    b->zones = sc_load_strv(l, x, "zones", &b->nzones);
    b->subnets = sc_load_strv(l, x, "subnets", &nsub);
    if (nsub != b->nzones || (b->nzones && !b->subnets)) {
        /* elb_lb_free walks both with nzones: keep them parallel even when failing */
        sc_strv_free(b->subnets, nsub);
        sc_strv_free(b->zones, b->nzones);
        b->subnets = NULL;
        b->zones = NULL;
        b->nzones = 0;
        sc_load_fail(l, "load balancer %s: subnets not parallel to zones", b->name);
    }
    b->sgs = sc_load_strv(l, x, "security_groups", &b->nsgs);
    a = sc_load_array(l, x, "tags");
    if (a && !l->failed && json_array_size(a) > 0) {
        b->tags = calloc(json_array_size(a), sizeof(*b->tags));
        if (!b->tags)
            sc_load_fail(l, "out of memory");
        json_array_foreach(a, k, v)
        {
            if (l->failed)
                break;
            b->tags[b->ntags].key = sc_load_str(l, v, "key");
            b->tags[b->ntags].value = sc_load_str(l, v, "value");
            b->ntags++;
            if (!l->failed && (!b->tags[b->ntags - 1].key || !b->tags[b->ntags - 1].value))
                sc_load_fail(l, "load balancer %s: a tag without key or value", b->name);
        }
    }
    a = sc_load_array(l, x, "registrations");
    if (a && !l->failed) {
        size_t n = json_array_size(a);

        b->regs = rec_load_ptrs(l, n);
        b->inst_view = rec_load_ptrs(l, n);
        if (b->regs && b->inst_view)
            b->capregs = (int)(n ? n : 1);
        json_array_foreach(a, k, v)
        {
            struct reg *r = rec_load_new(l, sizeof(*r));

            if (!r)
                break;
            b->regs[b->nregs++] = r;
            sc_load_buf(l, v, "id", r->id, sizeof(r->id));
            r->registered_ms = sc_load_int(l, v, "registered_ms");
            r->health.in_service = sc_load_bool(l, v, "in_service");
            r->health.ever_in_service = sc_load_bool(l, v, "ever_in_service");
            r->health.failed_out = sc_load_bool(l, v, "failed_out");
            r->health.consec_ok = sc_load_int_range(l, v, "consec_ok", 0, INT_MAX);
            r->health.consec_fail = sc_load_int_range(l, v, "consec_fail", 0, INT_MAX);
            r->drain = (enum drain_kind)sc_load_int_range(l, v, "drain", DRAIN_NONE, DRAIN_ZONE);
            if (r->drain != DRAIN_NONE)
                b->ndrain++;
            r->drain_deadline_ms = sc_load_int(l, v, "drain_deadline_ms");
        }
    }
    if (!l->failed)
        policies_load(l, x, b);
    if (l->failed)
        return b;
    if (!b->dns || !b->scheme || !b->hc_target || !elb_name_valid(b->name) ||
        (strcmp(b->scheme, "internet-facing") != 0 && strcmp(b->scheme, "internal") != 0)) {
        sc_load_fail(l, "load balancer %s: bad name, dns, scheme or health check", b->name);
        return b;
    }
    b->v.vpc_id = NULL;
    if (vpc) {
        const struct sc_ec2_vpc *ev = sc_ec2_vpc_find(elb->ec2, vpc);

        if (!ev) {
            sc_load_fail(l, "load balancer %s: unknown vpc %s", b->name, vpc);
            return b;
        }
        b->v.vpc_id = ev->vpc_id;
    }
    b->v.load_balancer_name = b->name;
    b->v.dns_name = b->dns;
    b->v.canonical_hosted_zone_name = strcmp(b->scheme, "internal") == 0 ? NULL : b->dns;
    b->v.canonical_hosted_zone_name_id = elb_hosted_zone_id(elb->region);
    b->v.scheme = b->scheme;
    if (elb_source_group_set(elb, b) < 0)
        sc_load_fail(l, "out of memory");
    elb_lb_sync(b);
    return b;
}

enum sc_status sc_elb_load(struct sc_elb *elb, const json_t *obj, struct sc_error *err)
{
    struct sc_load l;
    struct lb **lbs = NULL;
    int nlbs = 0;
    const json_t *a, *x;
    uint64_t rng[4] = { 0, 0, 0, 0 };
    size_t k;

    sc_load_init(&l, "elb", err);
    if (elb->nlbs)
        return sc_fail(err, SC_ERR_VALIDATION, "state: elb: load into a non-empty elb");
    if (!json_is_object(obj))
        return sc_fail(err, SC_ERR_VALIDATION, "state: elb: expected an object");
    rec_rng_load(&l, obj, rng);
    a = sc_load_array(&l, obj, "load_balancers");
    if (a && !l.failed && json_array_size(a) > (size_t)elb->max_lbs)
        sc_load_fail(&l, "load_balancers: more than %d", elb->max_lbs);
    if (a && !l.failed) {
        lbs = rec_load_ptrs(&l, json_array_size(a));
        json_array_foreach(a, k, x)
        {
            if (l.failed)
                break;
            lbs[nlbs] = lb_load(elb, &l, x);
            if (lbs[nlbs])
                nlbs++;
            if (!l.failed && nlbs > 1 && strcmp(lbs[nlbs - 2]->name, lbs[nlbs - 1]->name) >= 0)
                sc_load_fail(&l, "load_balancers: not in name order");
        }
    }
    if (l.failed) {
        for (int i = 0; i < nlbs; i++)
            elb_lb_free(lbs[i]);
        free(lbs);
        return err ? err->status : SC_ERR_VALIDATION;
    }
    free(elb->lbs);
    elb->lbs = lbs;
    elb->nlbs = nlbs;
    elb->caplbs = a && json_array_size(a) ? (int)json_array_size(a) : 1;
    memcpy(elb->rng.s, rng, sizeof(rng));
    /* the network interfaces are not in the file: make them again (time: each load
     * balancer's creation) */
    for (int i = 0; i < elb->nlbs; i++) {
        enum sc_status st =
            elb_interfaces_sync(elb, elb->lbs[i], 0, elb->lbs[i]->v.created_time_ms, err);

        if (st != SC_OK)
            return st;
    }
    return SC_OK;
}
