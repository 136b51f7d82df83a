/* scaler/ec2_template.c: launch templates and their versions (create, modify, delete,
 * describe, and resolving a template and version for a launch). */
#include "scaler/ec2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scaler/ec2_internal.h"
#include "scaler/rec.h"

#define LT_NAME_MAX 128

/* --- launch templates ------------------------------------------------------------------------- */

const struct lt *ec2_lt_find_id(const struct sc_ec2 *ec2, const char *id)
{
    for (int i = 0; id && i < ec2->nlts; i++) {
        if (strcmp(ec2->lts[i]->id, id) == 0)
            return ec2->lts[i];
    }
    return NULL;
}

static const struct lt *lt_find_name(const struct sc_ec2 *ec2, const char *name)
{
    for (int i = 0; name && i < ec2->nlts; i++) {
        if (strcmp(ec2->lts[i]->name, name) == 0)
            return ec2->lts[i];
    }
    return NULL;
}

static int lt_name_valid(const char *s)
{
    size_t n = s ? strlen(s) : 0;

    if (n < 3 || n > LT_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr("().-/_", c)))
            return 0;
    }
    return 1;
}

/* A well-formed id of a template this ec2 has. */
static int lt_holds(const struct sc_ec2 *ec2, const char *id)
{
    return ec2_id_valid(id, "lt-") && ec2_lt_find_id(ec2, id);
}

/* The error for a template id lt_holds() refuses: malformed, or no such template. */
static enum sc_status lt_unknown(const char *id, struct sc_error *err)
{
    if (!ec2_id_valid(id, "lt-"))
        return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_ID_MALFORMED,
                       "The specified ID for the launch template '%s' is not valid. The ID "
                       "must be in the form 'lt-' followed by 17 hexadecimal characters.",
                       id);
    return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_ID_NOT_FOUND,
                   "The specified launch template, with template ID %s, does not exist.", id);
}

/* Finds a template by id or name with AWS's errors. */
enum sc_status ec2_lt_lookup(const struct sc_ec2 *ec2, const char *id, const char *name,
                             const struct lt **out, struct sc_error *err)
{
    if (id && name)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "Provide either the launch template ID or the launch template name, "
                       "but not both.");
    if (!id && !name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter launchTemplateName or "
                       "launchTemplateId");
    if (id) {
        *out = lt_holds(ec2, id) ? ec2_lt_find_id(ec2, id) : NULL;
        return *out ? SC_OK : lt_unknown(id, err);
    }
    *out = lt_find_name(ec2, name);
    if (!*out)
        return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_NOT_FOUND,
                       "The specified launch template, with template name %s, does not exist.",
                       name);
    return SC_OK;
}

/* "$Latest", "$Default", NULL (= $Default) or a positive number -> the version. */
enum sc_status ec2_lt_version(const struct lt *t, const char *version, const struct ltver **out,
                              struct sc_error *err)
{
    long n;

    if (!version || strcmp(version, "$Default") == 0) {
        n = t->v.default_version_number;
    } else if (strcmp(version, "$Latest") == 0) {
        n = t->v.latest_version_number;
    } else {
        char *end;

        n = strtol(version, &end, 10);
        if (!*version || *end || n <= 0)
            return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_VERSION_NOT_FOUND,
                           "Could not find the specified version %s for the launch template "
                           "with ID %s.",
                           version, t->id);
    }
    if (n < 1 || n > t->nvers)
        return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_VERSION_NOT_FOUND,
                       "Could not find the specified version %ld for the launch template with "
                       "ID %s.",
                       n, t->id);
    *out = t->vers[n - 1];
    return SC_OK;
}

/* What a new version (of CreateLaunchTemplate or CreateLaunchTemplateVersion) may hold. */
static enum sc_status check_version(const char *desc, const struct sc_ec2_lt_data *d,
                                    struct sc_error *err)
{
    enum sc_status st;

    if (desc && strlen(desc) > 255)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "Version description must be 255 characters or fewer.");
    if (d->image_id) {
        st = ec2_check_image(d->image_id, err);
        if (st != SC_OK)
            return st;
    }
    if (d->instance_type && !sc_ec2_instance_type_find(d->instance_type))
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "Invalid value '%s' for InstanceType.",
                       d->instance_type);
    return ec2_check_tags(d->tags, d->ntags, 0, err);
}

static void ltver_sync(struct ltver *v)
{
    v->v.version_description = v->desc;
    v->v.data.image_id = v->image_id;
    v->v.data.instance_type = v->instance_type;
    v->v.data.key_name = v->key_name;
    v->v.data.user_data = v->user_data;
    v->v.data.tags = v->tags.v;
    v->v.data.ntags = v->tags.n;
    v->v.data.security_group_ids = (const char *const *)v->sgs;
    v->v.data.nsecurity_group_ids = v->nsgs;
    v->v.data.other = v->other;
}

/* The version's other members into *out: the base's, with the ones sent replacing theirs;
 * NULL when neither has any. Returns 0, or -1 on OOM. */
static int other_merge(json_t **out, const json_t *base, const json_t *sent)
{
    json_t *copy;

    *out = NULL;
    if (json_object_size(base) == 0 && json_object_size(sent) == 0)
        return 0;
    *out = base ? json_deep_copy(base) : json_object();
    if (!*out || !sent)
        return *out ? 0 : -1;
    copy = json_deep_copy(sent);
    if (!copy || json_object_update(*out, copy) < 0) {
        json_decref(copy);
        return -1;
    }
    json_decref(copy);
    return 0;
}

/* Version `number` of template t: its views, for a new version and a loaded one alike. */
void ec2_ltver_link(struct ltver *v, const struct lt *t, long number)
{
    v->v.launch_template_id = t->id;
    v->v.launch_template_name = t->name;
    v->v.version_number = number;
    v->v.created_by = t->created_by;
    ltver_sync(v);
}

/* New version record: base (may be NULL) overridden by the set fields of d. */
static struct ltver *ltver_new(const struct lt *t, long number, const char *desc,
                               const struct ltver *base, const struct sc_ec2_lt_data *d,
                               int64_t now_ms)
{
    struct ltver *v = calloc(1, sizeof(*v));
    const struct sc_ec2_lt_data *b = base ? &base->v.data : NULL;
    const char *const *sgs;
    int nsgs;

    if (!v)
        return NULL;
    if (sc_strdup_opt(&v->desc, desc) < 0 ||
        sc_strdup_opt(&v->image_id, d->image_id ? d->image_id
                                    : b         ? b->image_id
                                                : NULL) < 0 ||
        sc_strdup_opt(&v->instance_type, d->instance_type ? d->instance_type
                                         : b              ? b->instance_type
                                                          : NULL) < 0 ||
        sc_strdup_opt(&v->key_name, d->key_name ? d->key_name
                                    : b         ? b->key_name
                                                : NULL) < 0 ||
        sc_strdup_opt(&v->user_data, d->user_data ? d->user_data
                                     : b          ? b->user_data
                                                  : NULL) < 0)
        goto fail;
    if (b && ec2_tagset_copy(&v->tags, b->tags, b->ntags) < 0)
        goto fail;
    if (ec2_tagset_copy(&v->tags, d->tags, d->ntags) < 0)
        goto fail;
    sgs = d->nsecurity_group_ids ? d->security_group_ids : b ? b->security_group_ids : NULL;
    nsgs = d->nsecurity_group_ids ? d->nsecurity_group_ids : b ? b->nsecurity_group_ids : 0;
    if (nsgs > 0) {
        v->sgs = calloc((size_t)nsgs, sizeof(*v->sgs));
        if (!v->sgs)
            goto fail;
        for (int i = 0; i < nsgs; i++) {
            v->sgs[i] = sc_strdup(sgs[i] ? sgs[i] : "");
            if (!v->sgs[i])
                goto fail;
            v->nsgs = i + 1;
        }
    }
    v->v.data.monitoring_enabled = d->monitoring_enabled || (b && b->monitoring_enabled);
    if (other_merge(&v->other, b ? b->other : NULL, d->other) < 0)
        goto fail;
    v->v.create_time_ms = now_ms;
    ec2_ltver_link(v, t, number);
    return v;

fail:
    ec2_ltver_free(v);
    return NULL;
}

static int lt_add_version(struct lt *t, struct ltver *v)
{
    if (ec2_grow(&t->vers, t->nvers, &t->capvers) < 0)
        return -1;
    t->vers[t->nvers++] = v;
    t->v.latest_version_number = t->nvers;
    return 0;
}

void ec2_lt_sync(struct lt *t)
{
    t->v.tags = t->tags.v;
    t->v.ntags = t->tags.n;
    for (int i = 0; i < t->nvers; i++)
        t->vers[i]->v.default_version = (i + 1 == t->v.default_version_number);
}

enum sc_status sc_ec2_create_launch_template(struct sc_ec2 *ec2,
                                             const struct sc_ec2_lt_create_req *req, int64_t now_ms,
                                             const struct sc_ec2_launch_template **out,
                                             struct sc_error *err)
{
    struct lt *t = NULL;
    struct ltver *v;
    char created_by[96];
    enum sc_status st;

    if (!req->launch_template_name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter LaunchTemplateName");
    if (!lt_name_valid(req->launch_template_name))
        return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_NAME_MALFORMED,
                       "A launch template name must be between 3 and 128 characters, and may "
                       "contain letters, numbers, and the following characters: - ( ) . / _.");
    if (lt_find_name(ec2, req->launch_template_name))
        return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_EXISTS, "Launch template name already in use.");
    st = check_version(req->version_description, &req->data, err);
    if (st != SC_OK)
        return st;
    st = ec2_check_tags(req->tags, req->ntags, 0, err);
    if (st != SC_OK)
        return st;
    if (ec2_grow(&ec2->lts, ec2->nlts, &ec2->caplts) < 0)
        goto oom;
    t = calloc(1, sizeof(*t));
    if (!t)
        goto oom;
    snprintf(created_by, sizeof(created_by), "arn:aws:iam::%s:root", ec2->account);
    t->name = sc_strdup(req->launch_template_name);
    t->created_by = sc_strdup(created_by);
    if (!t->name || !t->created_by || ec2_tagset_copy(&t->tags, req->tags, req->ntags) < 0)
        goto oom;
    ec2_make_id(ec2, "lt-", t->id);
    t->v.launch_template_id = t->id;
    t->v.launch_template_name = t->name;
    t->v.create_time_ms = now_ms;
    t->v.created_by = t->created_by;
    t->v.default_version_number = 1;
    v = ltver_new(t, 1, req->version_description, NULL, &req->data, now_ms);
    if (!v)
        goto oom;
    if (lt_add_version(t, v) < 0) {
        ec2_ltver_free(v);
        goto oom;
    }
    ec2_lt_sync(t);
    ec2->lts[ec2->nlts++] = t;
    if (out)
        *out = &t->v;
    return SC_OK;

oom:
    ec2_lt_free(t);
    return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
}

enum sc_status sc_ec2_create_launch_template_version(struct sc_ec2 *ec2,
                                                     const struct sc_ec2_lt_version_req *req,
                                                     int64_t now_ms,
                                                     const struct sc_ec2_lt_version **out,
                                                     struct sc_error *err)
{
    const struct lt *ct;
    struct lt *t;
    const struct ltver *base = NULL;
    struct ltver *v;
    enum sc_status st;

    st = ec2_lt_lookup(ec2, req->launch_template_id, req->launch_template_name, &ct, err);
    if (st != SC_OK)
        return st;
    t = (struct lt *)ct;
    if (req->source_version) {
        st = ec2_lt_version(t, req->source_version, &base, err);
        if (st != SC_OK)
            return st;
    }
    st = check_version(req->version_description, &req->data, err);
    if (st != SC_OK)
        return st;
    v = ltver_new(t, t->nvers + 1, req->version_description, base, &req->data, now_ms);
    if (!v || lt_add_version(t, v) < 0) {
        ec2_ltver_free(v);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    ec2_lt_sync(t);
    if (out)
        *out = &v->v;
    return SC_OK;
}

enum sc_status sc_ec2_modify_launch_template(struct sc_ec2 *ec2, const char *id, const char *name,
                                             const char *default_version, int64_t now_ms,
                                             const struct sc_ec2_launch_template **out,
                                             struct sc_error *err)
{
    const struct lt *ct;
    const struct ltver *v;
    enum sc_status st;

    (void)now_ms;
    st = ec2_lt_lookup(ec2, id, name, &ct, err);
    if (st != SC_OK)
        return st;
    if (default_version) {
        st = ec2_lt_version(ct, default_version, &v, err);
        if (st != SC_OK)
            return st;
        ((struct lt *)ct)->v.default_version_number = v->v.version_number;
        ec2_lt_sync((struct lt *)ct);
    }
    if (out)
        *out = &ct->v;
    return SC_OK;
}

enum sc_status sc_ec2_delete_launch_template(struct sc_ec2 *ec2, const char *id, const char *name,
                                             int64_t now_ms, struct sc_ec2_lt_deleted *out,
                                             struct sc_error *err)
{
    const struct lt *t;
    enum sc_status st;
    int i;

    (void)now_ms;
    st = ec2_lt_lookup(ec2, id, name, &t, err);
    if (st != SC_OK)
        return st;
    if (out) {
        memset(out, 0, sizeof(*out));
        snprintf(out->launch_template_id, sizeof(out->launch_template_id), "%s", t->id);
        snprintf(out->launch_template_name, sizeof(out->launch_template_name), "%s", t->name);
        out->create_time_ms = t->v.create_time_ms;
        out->default_version_number = t->v.default_version_number;
        out->latest_version_number = t->v.latest_version_number;
    }
    for (i = 0; i < ec2->nlts && ec2->lts[i] != t; i++)
        ;
    ec2_lt_free(ec2->lts[i]);
    memmove(&ec2->lts[i], &ec2->lts[i + 1], (size_t)(ec2->nlts - i - 1) * sizeof(ec2->lts[0]));
    ec2->nlts--;
    return SC_OK;
}

int sc_ec2_launch_template_count(const struct sc_ec2 *ec2)
{
    return ec2->nlts;
}

const struct sc_ec2_launch_template *sc_ec2_launch_template_at(const struct sc_ec2 *ec2, int i)
{
    return i >= 0 && i < ec2->nlts ? &ec2->lts[i]->v : NULL;
}

const struct sc_ec2_launch_template *sc_ec2_launch_template_find(const struct sc_ec2 *ec2,
                                                                 const char *id, const char *name)
{
    const struct lt *t = id ? ec2_lt_find_id(ec2, id) : lt_find_name(ec2, name);

    return t ? &t->v : NULL;
}

/* create-time is a known name that every template passes (its values are not compared). */
static int lt_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct lt *t = rec;

    return strcmp(f->name, "launch-template-name") == 0 ? ec2_values_match(f, t->name) : 1;
}

enum sc_status sc_ec2_describe_launch_templates(const struct sc_ec2 *ec2, const char *const *ids,
                                                int nids, const char *const *names, int nnames,
                                                const struct sc_ec2_filter *filters, int nfilters,
                                                const struct sc_ec2_launch_template **out,
                                                int *nout, struct sc_error *err)
{
    static const char *const known[] = { "launch-template-name", "create-time", NULL };
    static const struct kind k = { known, 1, lt_holds, lt_unknown };
    enum sc_status st = ec2_describe_check(ec2, &k, ids, nids, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < nnames; i++) {
        if (!lt_find_name(ec2, names[i]))
            st = sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_NOT_FOUND,
                         "At least one of the launch templates specified in the request does "
                         "not exist.");
    }
    for (int i = 0; st == SC_OK && i < ec2->nlts; i++) {
        const struct lt *t = ec2->lts[i];
        int asked = (nids == 0 && nnames == 0) || in_list(ids, nids, t->id) ||
                    in_list(names, nnames, t->name);

        if (asked && ec2_filters_pass(lt_match, t, &t->tags, filters, nfilters))
            out[(*nout)++] = &t->v;
    }
    return st;
}

enum sc_status sc_ec2_resolve_launch_template(const struct sc_ec2 *ec2, const char *id,
                                              const char *name, const char *version,
                                              const struct sc_ec2_lt_version **out,
                                              struct sc_error *err)
{
    const struct lt *t;
    const struct ltver *v;
    enum sc_status st;

    st = ec2_lt_lookup(ec2, id, name, &t, err);
    if (st != SC_OK)
        return st;
    st = ec2_lt_version(t, version, &v, err);
    if (st != SC_OK)
        return st;
    *out = &v->v;
    return SC_OK;
}

enum sc_status sc_ec2_describe_launch_template_versions(const struct sc_ec2 *ec2,
                                                        const struct sc_ec2_lt_versions_req *req,
                                                        const struct sc_ec2_lt_version **out,
                                                        int cap, int *nout, struct sc_error *err)
{
    const struct lt *t;
    enum sc_status st;
    int n = 0;

    *nout = 0;
    st = ec2_lt_lookup(ec2, req->launch_template_id, req->launch_template_name, &t, err);
    if (st != SC_OK)
        return st;
    if (req->nversions) {
        /* Each named version once, ascending. */
        for (int i = 0; i < req->nversions; i++) {
            const struct ltver *v;

            st = ec2_lt_version(t, req->versions[i] ? req->versions[i] : "", &v, err);
            if (st != SC_OK)
                return st;
        }
        for (int k = 1; k <= t->nvers && n < cap; k++) {
            int want = 0;

            for (int i = 0; !want && i < req->nversions; i++) {
                const struct ltver *v;

                ec2_lt_version(t, req->versions[i], &v, NULL);
                want = v->v.version_number == k;
            }
            if (want)
                out[n++] = &t->vers[k - 1]->v;
        }
        *nout = n;
        return SC_OK;
    }
    for (int k = 1; k <= t->nvers && n < cap; k++) {
        if (req->min_version > 0 && k < req->min_version)
            continue;
        if (req->max_version > 0 && k > req->max_version)
            continue;
        out[n++] = &t->vers[k - 1]->v;
    }
    *nout = n;
    return SC_OK;
}
