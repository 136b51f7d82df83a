/* scaler/elbv2_save.c: the ELBv2 part of the emulator's state file (sc_elbv2_save,
 * sc_elbv2_load; see elbv2.h): load balancers (with their capacity reservation and IPAM
 * pool), target groups with their targets and health bookkeeping, listeners (with their
 * MutualAuthentication) and their rules, trust stores with their CA bundles and revocation
 * lists, attributes and tags. */
#include "scaler/elbv2.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scaler/elbv2_internal.h"
#include "scaler/rec.h"
#include "scaler/save.h"

/* --- save ------------------------------------------------------------------------------------- */

static json_t *kv_save(const struct kvlist *l)
{
    json_t *a = json_array();

    for (int i = 0; a && i < l->n; i++) {
        if (json_array_append_new(a, json_pack("[s,s]", l->v[i].key, l->v[i].value)) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *cstrv(const char *const *v, int n)
{
    json_t *a = json_array();

    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *actions_save(const struct sc_elbv2_action *a, int n)
{
    json_t *arr = json_array();

    for (int i = 0; arr && i < n; i++) {
        json_t *fw = json_array();
        json_t *o;

        for (int k = 0; k < a[i].nforward; k++)
            json_array_append_new(
                fw, json_pack("[s,i]", a[i].forward[k].target_group_arn, a[i].forward[k].weight));
        o = json_pack("{s:i,s:i,s:o,s:b,s:i,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?}", "type",
                      (int)a[i].type, "order", a[i].order, "forward", fw, "stickiness",
                      a[i].stickiness_enabled, "stickiness_s", a[i].stickiness_duration_s,
                      "r_protocol", a[i].redirect_protocol, "r_port", a[i].redirect_port, "r_host",
                      a[i].redirect_host, "r_path", a[i].redirect_path, "r_query",
                      a[i].redirect_query, "r_status", a[i].redirect_status, "f_status",
                      a[i].fixed_status, "f_type", a[i].fixed_content_type, "f_body",
                      a[i].fixed_body);
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *conditions_save(const struct sc_elbv2_condition *c, int n)
{
    json_t *arr = json_array();

    for (int i = 0; arr && i < n; i++) {
        json_t *keys = json_array();

        for (int k = 0; k < c[i].nvalues; k++)
            json_array_append_new(keys, c[i].query_keys[k] ? json_string(c[i].query_keys[k])
                                                           : json_null());
        json_array_append_new(arr, json_pack("{s:i,s:s?,s:o,s:o,s:b}", "field", (int)c[i].field,
                                             "header", c[i].header_name, "values",
                                             cstrv(c[i].values, c[i].nvalues), "keys", keys,
                                             "legacy", c[i].legacy_values));
    }
    return arr;
}

static json_t *rule_save(const struct rulerec *r)
{
    return json_pack("{s:s,s:s,s:i,s:b,s:o,s:o,s:o}", "arn", r->v.arn, "listener",
                     r->v.listener_arn, "priority", r->v.priority, "default", r->v.is_default,
                     "conditions", conditions_save(r->v.conditions, r->v.nconditions), "actions",
                     actions_save(r->v.actions, r->v.nactions), "tags", kv_save(&r->tags));
}

static json_t *lb_save_base(const struct lbrec *b);

static json_t *lb_save(const struct lbrec *b)
{
    json_t *o = lb_save_base(b);

    if (o && (b->cap_units || b->cap_modified_ms || b->cap_decreases))
        json_object_set_new(o, "capacity",
                            json_pack("[i,I,i,I]", b->cap_units, (json_int_t)b->cap_modified_ms,
                                      b->cap_decreases, (json_int_t)b->cap_decrease_day));
    if (o && b->ipam_pool)
        json_object_set_new(o, "ipam_pool", json_string(b->ipam_pool));
    return o;
}

static json_t *lb_save_base(const struct lbrec *b)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:o,s:o,s:o,s:o,s:o}", "arn",
                     b->v.arn, "id", b->id, "name", b->v.name, "type", b->v.type, "scheme",
                     b->v.scheme, "dns", b->v.dns_name, "zone_id", b->v.canonical_hosted_zone_id,
                     "vpc", b->v.vpc_id, "ip_type", b->v.ip_address_type, "created_ms",
                     (json_int_t)b->v.created_ms, "zones", cstrv(b->v.zones, b->v.nzones),
                     "subnets", cstrv(b->v.subnets, b->v.nzones), "groups",
                     cstrv(b->v.security_groups, b->v.nsecurity_groups), "attrs",
                     kv_save(&b->attrs), "tags", kv_save(&b->tags));
}

static json_t *tg_save(const struct tgrec *g)
{
    json_t *ts = json_array();
    const struct sc_elbv2_health_check *h = &g->v.hc;

    for (int i = 0; ts && i < g->ntargets; i++) {
        const struct target *x = &g->targets[i];

        json_array_append_new(
            ts, json_pack("{s:s,s:i,s:s,s:I,s:b,s:I,s:[i,i,i,i,i,i,i,i,i]}", "id", x->id, "port",
                          x->port, "zone", x->zone, "registered_ms", (json_int_t)x->registered_ms,
                          "draining", x->draining, "drain_deadline_ms",
                          (json_int_t)x->drain_deadline_ms, "health", x->h.decided, x->h.checks,
                          x->h.in_service, x->h.fails_out, x->h.consec_ok, x->h.consec_fail,
                          x->h.ever_in_service, (int)x->h.last_fail, x->h.last_code));
    }
    return json_pack("{s:s,s:s,s:s,s:s,s:s?,s:i,s:s,s:s,s:s,s:{s:s,s:s,s:s?,s:s?,s:i,s:i,s:i,s:i},"
                     "s:o,s:o,s:o}",
                     "arn", g->v.arn, "id", g->id, "name", g->v.name, "protocol", g->v.protocol,
                     "protocol_version", g->v.protocol_version, "port", g->v.port, "vpc",
                     g->v.vpc_id, "target_type", g->v.target_type, "ip_type", g->v.ip_address_type,
                     "hc", "protocol", h->protocol, "port", h->port, "path", h->path, "matcher",
                     h->matcher, "interval", h->interval_s, "timeout", h->timeout_s, "healthy",
                     h->healthy_threshold, "unhealthy", h->unhealthy_threshold, "attrs",
                     kv_save(&g->attrs), "tags", kv_save(&g->tags), "targets", ts);
}

static json_t *lis_save_base(const struct lisrec *l);

static json_t *lis_save(const struct lisrec *l)
{
    json_t *o = lis_save_base(l);
    const struct sc_elbv2_mutual_auth *m = l->v.mutual_auth;

    if (o && m)
        json_object_set_new(o, "mtls",
                            json_pack("{s:s,s:s?,s:s?,s:b}", "mode", m->mode, "trust_store",
                                      m->trust_store_arn, "advertise",
                                      m->advertise_trust_store_ca_names, "ignore_expiry",
                                      m->ignore_client_certificate_expiry));
    return o;
}

static json_t *ts_save(const struct tsrec *t)
{
    json_t *subj = json_array(), *revs = json_array();

    for (int i = 0; subj && i < t->nsubjects; i++)
        json_array_append_new(subj, json_integer((json_int_t)t->subjects[i]));
    for (int i = 0; revs && i < t->nrevs; i++)
        json_array_append_new(revs, json_pack("{s:I,s:I,s:s,s:I}", "id",
                                              (json_int_t)t->revs[i].v.revocation_id, "entries",
                                              (json_int_t)t->revs[i].v.number_of_revoked_entries,
                                              "location", t->revs[i].location, "issuer",
                                              (json_int_t)t->revs[i].issuer));
    return json_pack("{s:s,s:s,s:s,s:s%,s:o,s:o,s:I,s:o}", "name", t->name, "arn", t->arn,
                     "location", t->location ? t->location : "", "pem", t->pem ? t->pem : "",
                     t->pem ? t->pem_len : (size_t)0, "subjects", subj, "revocations", revs,
                     "next_revocation_id", (json_int_t)t->next_revocation_id, "tags",
                     kv_save(&t->tags));
}

static json_t *lis_save_base(const struct lisrec *l)
{
    return json_pack("{s:s,s:s,s:s,s:i,s:s?,s:s?,s:o,s:o,s:o}", "arn", l->v.arn, "lb",
                     l->v.load_balancer_arn, "protocol", l->v.protocol, "port", l->v.port,
                     "ssl_policy", l->v.ssl_policy, "alpn", l->v.alpn_policy, "certificates",
                     cstrv(l->v.certificates, l->v.ncertificates), "attrs", kv_save(&l->attrs),
                     "tags", kv_save(&l->tags));
}

json_t *sc_elbv2_save(const struct sc_elbv2 *v2)
{
    json_t *o =
        json_pack("{s:[],s:[],s:[],s:[]}", "load_balancers", "target_groups", "listeners", "rules");
    int bad = !o;

    for (int i = 0; !bad && i < v2->nlbs; i++)
        bad |= json_array_append_new(json_object_get(o, "load_balancers"), lb_save(v2->lbs[i]));
    for (int i = 0; !bad && i < v2->ntgs; i++)
        bad |= json_array_append_new(json_object_get(o, "target_groups"), tg_save(v2->tgs[i]));
    for (int i = 0; !bad && i < v2->nlis; i++)
        bad |= json_array_append_new(json_object_get(o, "listeners"), lis_save(v2->lis[i]));
    for (int i = 0; !bad && i < v2->nrules; i++)
        bad |= json_array_append_new(json_object_get(o, "rules"), rule_save(v2->rules[i]));
    if (!bad && v2->ntss > 0) {
        json_t *a = json_array();

        bad |= json_object_set_new(o, "trust_stores", a);
        for (int i = 0; !bad && i < v2->ntss; i++)
            bad |= json_array_append_new(a, ts_save(v2->tss[i]));
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* --- load ------------------------------------------------------------------------------------- */

static const char *str_of(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static int int_of(const json_t *o, const char *k)
{
    return (int)json_integer_value(json_object_get(o, k));
}

static int kv_load(struct kvlist *l, const json_t *a)
{
    size_t i;
    const json_t *e;

    if (!json_is_array(a))
        return -1;
    json_array_foreach(a, i, e)
    {
        const char *k = json_string_value(json_array_get(e, 0));
        const char *v = json_string_value(json_array_get(e, 1));

        if (!k || !v || kv_set(l, k, v) != 0)
            return -1;
    }
    return 0;
}

/* Up to cap strings of a into v (kept in arena); -1 when not an array of strings. */
static int strs_load(struct sarena *arena, const json_t *a, const char **v, int cap)
{
    size_t i;
    const json_t *e;

    if (!json_is_array(a) || (int)json_array_size(a) > cap)
        return -1;
    json_array_foreach(a, i, e)
    {
        v[i] = sa_keep(arena, json_string_value(e));
        if (!v[i])
            return -1;
    }
    return (int)json_array_size(a);
}

static int lb_load(struct sc_elbv2 *v2, const json_t *x)
{
    struct lbrec *b = calloc(1, sizeof(*b));
    int nz, ns, ng;

    if (!b || v2_grow(&v2->lbs, v2->nlbs, &v2->caplbs, sizeof(*v2->lbs)) != 0)
        goto fail;
    snprintf(b->id, sizeof(b->id), "%s", str_of(x, "id") ? str_of(x, "id") : "");
    b->v.arn = sa_keep(&b->a, str_of(x, "arn"));
    b->v.name = sa_keep(&b->a, str_of(x, "name"));
    b->v.type = sa_keep(&b->a, str_of(x, "type"));
    b->v.scheme = sa_keep(&b->a, str_of(x, "scheme"));
    b->v.dns_name = sa_keep(&b->a, str_of(x, "dns"));
    b->v.canonical_hosted_zone_id = sa_keep(&b->a, str_of(x, "zone_id"));
    b->v.vpc_id = sa_keep(&b->a, str_of(x, "vpc"));
    b->v.ip_address_type = sa_keep(&b->a, str_of(x, "ip_type"));
    b->v.state = "active";
    b->v.created_ms = json_integer_value(json_object_get(x, "created_ms"));
    if (json_array_size(json_object_get(x, "capacity")) == 4) {
        const json_t *c = json_object_get(x, "capacity");

        b->cap_units = (int)json_integer_value(json_array_get(c, 0));
        b->cap_modified_ms = json_integer_value(json_array_get(c, 1));
        b->cap_decreases = (int)json_integer_value(json_array_get(c, 2));
        b->cap_decrease_day = json_integer_value(json_array_get(c, 3));
    }
    if (str_of(x, "ipam_pool")) {
        b->ipam_pool = sc_strdup(str_of(x, "ipam_pool"));
        if (!b->ipam_pool)
            goto fail;
        b->v.ipv4_ipam_pool_id = b->ipam_pool;
    }
    nz = strs_load(&b->a, json_object_get(x, "zones"), b->zonev, V2_MAX_ZONES);
    ns = strs_load(&b->a, json_object_get(x, "subnets"), b->subnetv, V2_MAX_ZONES);
    ng = strs_load(&b->a, json_object_get(x, "groups"), b->sgv, V2_MAX_SGS);
    if (!b->v.arn || !b->v.name || !b->v.type || !b->v.scheme || !b->v.vpc_id || nz < 0 ||
        ns != nz || ng < 0 || kv_load(&b->attrs, json_object_get(x, "attrs")) != 0 ||
        kv_load(&b->tags, json_object_get(x, "tags")) != 0)
        goto fail;
    b->v.nzones = nz;
    b->v.nsecurity_groups = ng;
    b->v.zones = b->zonev;
    b->v.subnets = b->subnetv;
    b->v.security_groups = b->sgv;
    b->v.attrs = b->attrs.v;
    b->v.nattrs = b->attrs.n;
    v2->lbs[v2->nlbs++] = b;
    return 0;

fail:
    v2_lb_free(b);
    return -1;
}

static int tg_load(struct sc_elbv2 *v2, const json_t *x)
{
    struct tgrec *g = calloc(1, sizeof(*g));
    const json_t *hc = json_object_get(x, "hc"), *ts = json_object_get(x, "targets"), *e;
    size_t i;

    if (!g || !json_is_object(hc) || !json_is_array(ts) ||
        v2_grow(&v2->tgs, v2->ntgs, &v2->captgs, sizeof(*v2->tgs)) != 0)
        goto fail;
    snprintf(g->id, sizeof(g->id), "%s", str_of(x, "id") ? str_of(x, "id") : "");
    g->v.arn = sa_keep(&g->a, str_of(x, "arn"));
    g->v.name = sa_keep(&g->a, str_of(x, "name"));
    g->v.protocol = sa_keep(&g->a, str_of(x, "protocol"));
    g->v.protocol_version = sa_keep(&g->a, str_of(x, "protocol_version"));
    g->v.port = int_of(x, "port");
    g->v.vpc_id = sa_keep(&g->a, str_of(x, "vpc"));
    g->v.target_type = sa_keep(&g->a, str_of(x, "target_type"));
    g->v.ip_address_type = sa_keep(&g->a, str_of(x, "ip_type"));
    g->v.hc.enabled = 1;
    g->v.hc.protocol = sa_keep(&g->ha, str_of(hc, "protocol"));
    g->v.hc.port = sa_keep(&g->ha, str_of(hc, "port"));
    g->v.hc.path = sa_keep(&g->ha, str_of(hc, "path"));
    g->v.hc.matcher = sa_keep(&g->ha, str_of(hc, "matcher"));
    g->v.hc.interval_s = int_of(hc, "interval");
    g->v.hc.timeout_s = int_of(hc, "timeout");
    g->v.hc.healthy_threshold = int_of(hc, "healthy");
    g->v.hc.unhealthy_threshold = int_of(hc, "unhealthy");
    if (!g->v.arn || !g->v.name || !g->v.protocol || !g->v.vpc_id || !g->v.target_type ||
        !g->v.hc.protocol || !g->v.hc.port || kv_load(&g->attrs, json_object_get(x, "attrs")) ||
        kv_load(&g->tags, json_object_get(x, "tags")))
        goto fail;
    json_array_foreach(ts, i, e)
    {
        const json_t *h = json_object_get(e, "health");
        struct target *t;

        if (!str_of(e, "id") || json_array_size(h) != 9 ||
            v2_grow(&g->targets, g->ntargets, &g->captargets, sizeof(*g->targets)) != 0)
            goto fail;
        t = &g->targets[g->ntargets++];
        memset(t, 0, sizeof(*t));
        snprintf(t->id, sizeof(t->id), "%s", str_of(e, "id"));
        snprintf(t->zone, sizeof(t->zone), "%s", str_of(e, "zone") ? str_of(e, "zone") : "");
        t->port = int_of(e, "port");
        t->registered_ms = json_integer_value(json_object_get(e, "registered_ms"));
        t->draining = json_is_true(json_object_get(e, "draining"));
        t->drain_deadline_ms = json_integer_value(json_object_get(e, "drain_deadline_ms"));
        t->h.decided = (int)json_integer_value(json_array_get(h, 0));
        t->h.checks = (int)json_integer_value(json_array_get(h, 1));
        t->h.in_service = (int)json_integer_value(json_array_get(h, 2));
        t->h.fails_out = (int)json_integer_value(json_array_get(h, 3));
        t->h.consec_ok = (int)json_integer_value(json_array_get(h, 4));
        t->h.consec_fail = (int)json_integer_value(json_array_get(h, 5));
        t->h.ever_in_service = (int)json_integer_value(json_array_get(h, 6));
        t->h.last_fail = (enum sc_elbv2_hc_result)json_integer_value(json_array_get(h, 7));
        t->h.last_code = (int)json_integer_value(json_array_get(h, 8));
    }
    v2_tg_view(g);
    v2->tgs[v2->ntgs++] = g;
    return 0;

fail:
    v2_tg_free(g);
    return -1;
}

static int lis_load(struct sc_elbv2 *v2, const json_t *x)
{
    struct lisrec *l = calloc(1, sizeof(*l));
    const json_t *m = json_object_get(x, "mtls");
    const struct lbrec *b;
    int nc;

    if (!l || v2_grow(&v2->lis, v2->nlis, &v2->caplis, sizeof(*v2->lis)) != 0)
        goto fail;
    l->v.arn = sa_keep(&l->a, str_of(x, "arn"));
    l->v.load_balancer_arn = sa_keep(&l->a, str_of(x, "lb"));
    l->v.protocol = sa_keep(&l->pa, str_of(x, "protocol"));
    l->v.port = int_of(x, "port");
    l->v.ssl_policy = sa_keep(&l->pa, str_of(x, "ssl_policy"));
    l->v.alpn_policy = sa_keep(&l->pa, str_of(x, "alpn"));
    nc = strs_load(&l->pa, json_object_get(x, "certificates"), l->certv, V2_MAX_CERTS);
    if (!l->v.arn || !l->v.load_balancer_arn || !l->v.protocol || nc < 0 ||
        kv_load(&l->attrs, json_object_get(x, "attrs")) ||
        kv_load(&l->tags, json_object_get(x, "tags")))
        goto fail;
    l->v.certificates = l->certv;
    l->v.ncertificates = nc;
    l->v.attrs = l->attrs.v;
    l->v.nattrs = l->attrs.n;
    b = v2_lb(v2, l->v.load_balancer_arn);
    if (!b)
        goto fail;
    if (json_is_object(m)) {
        struct sc_elbv2_mutual_auth r = { 0 };

        r.mode = str_of(m, "mode");
        r.trust_store_arn = str_of(m, "trust_store");
        r.advertise_trust_store_ca_names = str_of(m, "advertise");
        r.ignore_client_certificate_expiry = json_is_true(json_object_get(m, "ignore_expiry"));
        if (!r.mode || (strcmp(r.mode, "verify") == 0 && !r.trust_store_arn))
            goto fail;
        v2_set_mutual_auth(l, b, l->v.protocol, &r);
    } else {
        v2_set_mutual_auth(l, b, l->v.protocol, NULL);
    }
    v2->lis[v2->nlis++] = l;
    return 0;

fail:
    v2_lis_free(l);
    return -1;
}

static int action_load(const json_t *e, struct sc_elbv2_action *a)
{
    const json_t *fw = json_object_get(e, "forward"), *f;
    size_t i;

    memset(a, 0, sizeof(*a));
    a->type = (enum sc_elbv2_action_type)int_of(e, "type");
    a->order = int_of(e, "order");
    if (!json_is_array(fw) || json_array_size(fw) > SC_ELBV2_MAX_FORWARD || (unsigned)a->type > 2)
        return -1;
    json_array_foreach(fw, i, f)
    {
        a->forward[i].target_group_arn = json_string_value(json_array_get(f, 0));
        a->forward[i].weight = (int)json_integer_value(json_array_get(f, 1));
        if (!a->forward[i].target_group_arn)
            return -1;
    }
    a->nforward = (int)json_array_size(fw);
    a->has_forward_config = a->type == SC_ELBV2_ACTION_FORWARD && a->nforward > 0;
    a->target_group_arn = a->nforward == 1 ? a->forward[0].target_group_arn : NULL;
    a->stickiness_enabled = json_is_true(json_object_get(e, "stickiness"));
    a->stickiness_duration_s = int_of(e, "stickiness_s");
    a->redirect_protocol = str_of(e, "r_protocol");
    a->redirect_port = str_of(e, "r_port");
    a->redirect_host = str_of(e, "r_host");
    a->redirect_path = str_of(e, "r_path");
    a->redirect_query = str_of(e, "r_query");
    a->redirect_status = str_of(e, "r_status");
    a->fixed_status = str_of(e, "f_status");
    a->fixed_content_type = str_of(e, "f_type");
    a->fixed_body = str_of(e, "f_body");
    return 0;
}

static int rule_load(struct sc_elbv2 *v2, const json_t *x)
{
    struct rulerec *r = calloc(1, sizeof(*r));
    const json_t *cs = json_object_get(x, "conditions"), *as = json_object_get(x, "actions"), *e;
    struct sc_elbv2_condition conds[SC_ELBV2_MAX_CONDITIONS];
    struct sc_elbv2_action acts[SC_ELBV2_MAX_ACTIONS];
    struct lisrec *l;
    size_t i;

    if (!r || !json_is_array(cs) || !json_is_array(as) ||
        json_array_size(cs) > SC_ELBV2_MAX_CONDITIONS ||
        json_array_size(as) > SC_ELBV2_MAX_ACTIONS ||
        v2_grow(&v2->rules, v2->nrules, &v2->caprules, sizeof(*v2->rules)) != 0)
        goto fail;
    r->v.arn = sa_keep(&r->a, str_of(x, "arn"));
    r->v.listener_arn = sa_keep(&r->a, str_of(x, "listener"));
    r->v.priority = int_of(x, "priority");
    r->v.is_default = json_is_true(json_object_get(x, "default"));
    json_array_foreach(cs, i, e)
    {
        const json_t *vals = json_object_get(e, "values"), *keys = json_object_get(e, "keys");

        memset(&conds[i], 0, sizeof(conds[i]));
        conds[i].field = (enum sc_elbv2_field)int_of(e, "field");
        conds[i].header_name = str_of(e, "header");
        conds[i].legacy_values = json_is_true(json_object_get(e, "legacy"));
        if (!json_is_array(vals) || json_array_size(vals) > SC_ELBV2_MAX_VALUES ||
            json_array_size(keys) != json_array_size(vals))
            goto fail;
        conds[i].nvalues = (int)json_array_size(vals);
        for (int k = 0; k < conds[i].nvalues; k++) {
            conds[i].values[k] = json_string_value(json_array_get(vals, (size_t)k));
            conds[i].query_keys[k] = json_string_value(json_array_get(keys, (size_t)k));
            if (!conds[i].values[k])
                goto fail;
        }
    }
    json_array_foreach(as, i, e)
    {
        if (action_load(e, &acts[i]) != 0)
            goto fail;
    }
    if (v2_copy_conditions(r->conds, &r->ca, conds, (int)json_array_size(cs)) != 0 ||
        v2_copy_actions(r->acts, &r->aa, acts, (int)json_array_size(as)) != 0 ||
        kv_load(&r->tags, json_object_get(x, "tags")) != 0 || !r->v.arn || !r->v.listener_arn)
        goto fail;
    r->v.conditions = r->conds;
    r->v.nconditions = (int)json_array_size(cs);
    r->v.actions = r->acts;
    r->v.nactions = (int)json_array_size(as);
    l = v2_lis(v2, r->v.listener_arn);
    if (!l)
        goto fail;
    if (r->v.is_default)
        l->def = r;
    v2->rules[v2->nrules++] = r;
    return 0;

fail:
    v2_rule_free(r);
    return -1;
}

static int ts_load(struct sc_elbv2 *v2, const json_t *x)
{
    struct tsrec *t = calloc(1, sizeof(*t));
    const json_t *subj = json_object_get(x, "subjects"), *revs = json_object_get(x, "revocations");
    const json_t *pem = json_object_get(x, "pem"), *e;
    size_t i;

    if (!t || !json_is_array(subj) || !json_is_array(revs) || !json_is_string(pem) ||
        json_array_size(revs) > SC_ELBV2_MAX_REVOCATIONS ||
        json_array_size(subj) > SC_ELBV2_MAX_CA_CERTS ||
        v2_grow(&v2->tss, v2->ntss, &v2->captss, sizeof(*v2->tss)) != 0)
        goto fail;
    t->name = str_of(x, "name") ? sc_strdup(str_of(x, "name")) : NULL;
    t->arn = str_of(x, "arn") ? sc_strdup(str_of(x, "arn")) : NULL;
    t->location = sc_strdup(str_of(x, "location") ? str_of(x, "location") : "");
    t->pem_len = json_string_length(pem);
    t->pem = malloc(t->pem_len + 1);
    t->subjects = calloc(json_array_size(subj) + 1, sizeof(*t->subjects));
    t->revs = calloc(SC_ELBV2_MAX_REVOCATIONS, sizeof(*t->revs));
    if (!t->name || !t->arn || !t->location || !t->pem || !t->subjects || !t->revs ||
        kv_load(&t->tags, json_object_get(x, "tags")) != 0)
        goto fail;
    memcpy(t->pem, json_string_value(pem), t->pem_len + 1);
    json_array_foreach(subj, i, e) t->subjects[t->nsubjects++] =
        (unsigned long)json_integer_value(e);
    json_array_foreach(revs, i, e)
    {
        struct revrec *r = &t->revs[t->nrevs];

        if (!str_of(e, "location"))
            goto fail;
        r->location = sc_strdup(str_of(e, "location"));
        if (!r->location)
            goto fail;
        t->nrevs++;
        r->v.revocation_id = json_integer_value(json_object_get(e, "id"));
        r->v.number_of_revoked_entries = json_integer_value(json_object_get(e, "entries"));
        r->issuer = (unsigned long)json_integer_value(json_object_get(e, "issuer"));
    }
    t->next_revocation_id = json_integer_value(json_object_get(x, "next_revocation_id"));
    if (t->next_revocation_id < 1)
        goto fail;
    v2_ts_view(t);
    v2->tss[v2->ntss++] = t;
    return 0;

fail:
    v2_ts_free(t);
    return -1;
}

enum sc_status sc_elbv2_load(struct sc_elbv2 *v2, const json_t *obj, struct sc_error *err)
{
    const char *parts[] = { "load_balancers", "target_groups", "listeners", "rules" };
    int (*fns[])(struct sc_elbv2 *, const json_t *) = { lb_load, tg_load, lis_load, rule_load };

    if (!json_is_object(obj))
        return sc_fail(err, SC_ERR_VALIDATION, "state: elbv2: expected an object");
    for (int p = 0; p < 4; p++) {
        const json_t *a = json_object_get(obj, parts[p]), *e;
        size_t i;

        if (!json_is_array(a))
            return sc_fail(err, SC_ERR_VALIDATION, "state: elbv2: %s: expected an array", parts[p]);
        json_array_foreach(a, i, e)
        {
            if (fns[p](v2, e) != 0)
                return sc_fail(err, SC_ERR_VALIDATION, "state: elbv2: %s[%zu]: malformed", parts[p],
                               i);
        }
    }
    if (json_object_get(obj, "trust_stores")) {
        const json_t *a = json_object_get(obj, "trust_stores"), *e;
        size_t i;

        if (!json_is_array(a) || json_array_size(a) > SC_ELBV2_MAX_TRUST_STORES)
            return sc_fail(err, SC_ERR_VALIDATION, "state: elbv2: trust_stores: expected an array");
        json_array_foreach(a, i, e)
        {
            if (ts_load(v2, e) != 0)
                return sc_fail(err, SC_ERR_VALIDATION, "state: elbv2: trust_stores[%zu]: malformed",
                               i);
        }
    }
    for (int i = 0; i < v2->nlis; i++) {
        if (!v2->lis[i]->def)
            return sc_fail(err, SC_ERR_VALIDATION, "state: elbv2: listeners[%d]: no default rule",
                           i);
    }
    v2_sync(v2);
    return SC_OK;
}
