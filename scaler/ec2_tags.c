/* scaler/ec2_tags.c: tag sets (the records' tags, their checks and the tag filters of the
 * Describe calls) and tags on resources (CreateTags, DeleteTags, DescribeTags). */
#include "scaler/ec2.h"

#include <stdlib.h>
#include <string.h>

#include "scaler/ec2_internal.h"
#include "scaler/rec.h"

/* --- tags ------------------------------------------------------------------------------------- */

void ec2_tagset_free(struct tagset *t)
{
    for (int i = 0; i < t->n; i++) {
        free((char *)t->v[i].key);
        free((char *)t->v[i].value);
    }
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
}

static int tagset_find(const struct tagset *t, const char *key)
{
    for (int i = 0; i < t->n; i++) {
        if (strcmp(t->v[i].key, key) == 0)
            return i;
    }
    return -1;
}

/* Sets key=value (value NULL -> ""); 0 or -1 on OOM (set unchanged). */
int ec2_tagset_set(struct tagset *t, const char *key, const char *value)
{
    int i = tagset_find(t, key);
    char *v = sc_strdup(value ? value : "");

    if (!v)
        return -1;
    if (i >= 0) {
        free((char *)t->v[i].value);
        t->v[i].value = v;
        return 0;
    }
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 4;
        struct sc_ec2_tag *nv = realloc(t->v, (size_t)cap * sizeof(*nv));

        if (!nv)
            goto fail;
        t->v = nv;
        t->cap = cap;
    }
    t->v[t->n].key = sc_strdup(key);
    if (!t->v[t->n].key)
        goto fail;
    t->v[t->n].value = v;
    t->n++;
    return 0;

fail:
    free(v);
    return -1;
}

/* Deletes key when value is NULL or equal. */
static void tagset_del(struct tagset *t, const char *key, const char *value)
{
    int i = tagset_find(t, key);

    if (i < 0)
        return;
    if (value && strcmp(t->v[i].value, value) != 0)
        return;
    free((char *)t->v[i].key);
    free((char *)t->v[i].value);
    memmove(&t->v[i], &t->v[i + 1], (size_t)(t->n - i - 1) * sizeof(t->v[0]));
    t->n--;
}

int ec2_tagset_copy(struct tagset *dst, const struct sc_ec2_tag *tags, int n)
{
    for (int i = 0; i < n; i++) {
        if (ec2_tagset_set(dst, tags[i].key, tags[i].value) < 0)
            return -1;
    }
    return 0;
}

/* tag:K, tag-key, tag-value filters; -1 when the filter is not a tag filter. */
int ec2_tags_filter(const struct tagset *t, const struct sc_ec2_filter *f)
{
    if (strncmp(f->name, "tag:", 4) == 0) {
        int i = tagset_find(t, f->name + 4);

        return i >= 0 && ec2_values_match(f, t->v[i].value);
    }
    if (strcmp(f->name, "tag-key") == 0) {
        for (int i = 0; i < t->n; i++) {
            if (ec2_values_match(f, t->v[i].key))
                return 1;
        }
        return 0;
    }
    if (strcmp(f->name, "tag-value") == 0) {
        for (int i = 0; i < t->n; i++) {
            if (ec2_values_match(f, t->v[i].value))
                return 1;
        }
        return 0;
    }
    return -1;
}

enum sc_status ec2_check_tags(const struct sc_ec2_tag *tags, int n, int allow_aws,
                              struct sc_error *err)
{
    for (int i = 0; i < n; i++) {
        const char *k = tags[i].key;
        const char *v = tags[i].value ? tags[i].value : "";

        if (!k || !*k)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "Tag key cannot be null or empty");
        if (strlen(k) > 128)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "Tag key exceeds the maximum length of 128 characters");
        if (strlen(v) > 256)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "Tag value exceeds the maximum length of 256 characters");
        if (!allow_aws && strncmp(k, "aws:", 4) == 0)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "Tag keys starting with 'aws:' are reserved for internal use");
    }
    return SC_OK;
}

/* --- tags on resources ------------------------------------------------------------------------ */

enum res_kind { RES_INSTANCE, RES_VPC, RES_SUBNET, RES_LT, RES_SG };

struct res {
    enum res_kind kind;
    void *obj;
    struct tagset *tags;
};

static void res_sync(const struct res *r)
{
    switch (r->kind) {
    case RES_INSTANCE:
        ec2_inst_sync(r->obj);
        break;
    case RES_VPC:
        ec2_vpc_sync(r->obj);
        break;
    case RES_SUBNET:
        ec2_subnet_sync(r->obj);
        break;
    case RES_LT:
        ec2_lt_sync(r->obj);
        break;
    case RES_SG:
        ec2_sg_sync(r->obj);
        break;
    }
}

/* The tag set of a resource id, or an error. */
static enum sc_status resource_lookup(struct sc_ec2 *ec2, const char *id, struct res *out,
                                      struct sc_error *err)
{
    if (!id)
        id = "";
    if (strncmp(id, "i-", 2) == 0) {
        struct inst *in;
        enum sc_status st = ec2_check_ids(ec2, &id, 1, err);

        if (st != SC_OK)
            return st;
        in = ec2_inst_mut(ec2, id);
        *out = (struct res){ RES_INSTANCE, in, &in->tags };
        return SC_OK;
    }
    if (strncmp(id, "vpc-", 4) == 0) {
        struct vpc *v = (struct vpc *)ec2_vpc_find(ec2, id);

        if (!v)
            return ec2_vpc_unknown(id, err);
        *out = (struct res){ RES_VPC, v, &v->tags };
        return SC_OK;
    }
    if (strncmp(id, "subnet-", 7) == 0) {
        struct subnet *sn = (struct subnet *)ec2_subnet_find(ec2, id);

        if (!sn)
            return ec2_subnet_unknown(id, err);
        *out = (struct res){ RES_SUBNET, sn, &sn->tags };
        return SC_OK;
    }
    if (strncmp(id, "lt-", 3) == 0) {
        const struct lt *t;
        enum sc_status st = ec2_lt_lookup(ec2, id, NULL, &t, err);

        if (st != SC_OK)
            return st;
        *out = (struct res){ RES_LT, (void *)t, &((struct lt *)t)->tags };
        return SC_OK;
    }
    if (strncmp(id, "sg-", 3) == 0) {
        struct sg *g = ec2_sg_find(ec2, id);

        if (!g)
            return sc_fail(err, SC_ERR_SECURITY_GROUP_NOT_FOUND,
                           "The security group '%s' does not exist", id);
        *out = (struct res){ RES_SG, g, &g->tags };
        return SC_OK;
    }
    return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "The ID '%s' is not valid", id);
}

static enum sc_status tags_apply(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                 const struct sc_ec2_tag *tags, int ntags, int del,
                                 struct sc_error *err)
{
    struct res r;
    enum sc_status st;

    ec2->generation++;
    if (nids < 1)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The request must contain the parameter resourceIdSet");
    for (int i = 0; i < nids; i++) {
        st = resource_lookup(ec2, ids[i], &r, err);
        if (st != SC_OK)
            return st;
    }
    if (!del) {
        st = ec2_check_tags(tags, ntags, 0, err);
        if (st != SC_OK)
            return st;
    }
    for (int i = 0; i < nids; i++) {
        resource_lookup(ec2, ids[i], &r, NULL);
        for (int j = 0; j < ntags; j++) {
            if (!tags[j].key)
                continue;
            if (del) {
                tagset_del(r.tags, tags[j].key, tags[j].value);
            } else if (ec2_tagset_set(r.tags, tags[j].key, tags[j].value) < 0) {
                res_sync(&r);
                return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
            }
        }
        res_sync(&r);
    }
    return SC_OK;
}

enum sc_status sc_ec2_create_tags(struct sc_ec2 *ec2, const char *const *resource_ids,
                                  int nresources, const struct sc_ec2_tag *tags, int ntags,
                                  int64_t now_ms, struct sc_error *err)
{
    (void)now_ms;
    return tags_apply(ec2, resource_ids, nresources, tags, ntags, 0, err);
}

enum sc_status sc_ec2_delete_tags(struct sc_ec2 *ec2, const char *const *resource_ids,
                                  int nresources, const struct sc_ec2_tag *tags, int ntags,
                                  int64_t now_ms, struct sc_error *err)
{
    (void)now_ms;
    return tags_apply(ec2, resource_ids, nresources, tags, ntags, 1, err);
}

static int tag_rows(const char *id, const char *type, const struct tagset *t,
                    const struct sc_ec2_filter *filters, int nfilters, struct sc_ec2_tag_row *out,
                    int cap, int n)
{
    for (int k = 0; k < t->n; k++) {
        int ok = 1;

        for (int j = 0; ok && j < nfilters; j++) {
            const char *name = filters[j].name;

            ok = ec2_values_match(&filters[j], strcmp(name, "resource-id") == 0     ? id
                                               : strcmp(name, "resource-type") == 0 ? type
                                               : strcmp(name, "key") == 0           ? t->v[k].key
                                                                          : t->v[k].value);
        }
        if (!ok)
            continue;
        if (n < cap)
            out[n] = (struct sc_ec2_tag_row){ id, type, t->v[k].key, t->v[k].value };
        n++;
    }
    return n;
}

enum sc_status sc_ec2_describe_tags(const struct sc_ec2 *ec2, const struct sc_ec2_filter *filters,
                                    int nfilters, struct sc_ec2_tag_row *out, int cap, int *nout,
                                    struct sc_error *err)
{
    static const char *const known[] = { "resource-id", "resource-type", "key", "value", NULL };
    enum sc_status st;
    int n = 0;

    *nout = 0;
    st = ec2_check_filters(filters, nfilters, known, 0, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < ec2->ninsts; i++)
        n = tag_rows(ec2->insts[i]->id, "instance", &ec2->insts[i]->tags, filters, nfilters, out,
                     cap, n);
    for (int i = 0; i < ec2->nvpcs; i++)
        n = tag_rows(ec2->vpcs[i]->id, "vpc", &ec2->vpcs[i]->tags, filters, nfilters, out, cap, n);
    for (int i = 0; i < ec2->nsubnets; i++)
        n = tag_rows(ec2->subnets[i]->id, "subnet", &ec2->subnets[i]->tags, filters, nfilters, out,
                     cap, n);
    for (int i = 0; i < ec2->nlts; i++)
        n = tag_rows(ec2->lts[i]->id, "launch-template", &ec2->lts[i]->tags, filters, nfilters, out,
                     cap, n);
    for (int i = 0; i < ec2->nsgs; i++)
        n = tag_rows(ec2->sgs[i]->id, "security-group", &ec2->sgs[i]->tags, filters, nfilters, out,
                     cap, n);
    *nout = n;
    return SC_OK;
}
