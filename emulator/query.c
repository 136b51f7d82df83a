/* emulator/query.c: see query.h.
 *
 * Two steps: the flat pairs become a tree of JSON objects split on '.', each node
 * keeping its own value (if any) under the key ""; then the input shape is walked over
 * the tree, naming members as the protocol does, into loose JSON (scalars as strings)
 * that model_coerce() types and checks. */
#include "emulator/query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

#define MAX_SEGMENTS 24

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes s[0..n) into a new string; *outlen gets its length. */
static char *pct_decode(const char *s, size_t n, size_t *outlen)
{
    char *out = cm_xmalloc(n + 1);
    size_t j = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i] == '+') {
            out[j++] = ' ';
        } else if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            out[j++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
            i += 2;
        } else {
            out[j++] = s[i];
        }
    }
    out[j] = '\0';
    *outlen = j;
    return out;
}

int query_form_parse(struct query_form *f, const char *s, size_t len, struct awserr *err)
{
    size_t cap = 0;
    size_t i = 0;

    f->pairs = NULL;
    f->n = 0;
    while (i < len) {
        size_t start = i, eq = (size_t)-1, klen;
        struct query_pair *p;

        while (i < len && s[i] != '&') {
            if (s[i] == '=' && eq == (size_t)-1)
                eq = i;
            i++;
        }
        if (i > start) {
            if (f->n == QUERY_MAX_PAIRS) {
                query_form_cleanup(f);
                return awserr_set(err, 400, "ValidationError",
                                  "Request has more than %d parameters", QUERY_MAX_PAIRS);
            }
            if (f->n == cap) {
                cap = cap ? cap * 2 : 16;
                f->pairs = cm_xrealloc(f->pairs, cap * sizeof(*f->pairs));
            }
            p = &f->pairs[f->n++];
            if (eq == (size_t)-1) {
                p->key = pct_decode(s + start, i - start, &klen);
                p->key_len = klen;
                p->value = cm_xstrdup("");
                p->value_len = 0;
            } else {
                p->key = pct_decode(s + start, eq - start, &klen);
                p->key_len = klen;
                p->value = pct_decode(s + eq + 1, i - eq - 1, &p->value_len);
            }
        }
        i++;
    }
    return 0;
}

void query_form_cleanup(struct query_form *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->pairs[i].key);
        free(f->pairs[i].value);
    }
    free(f->pairs);
    f->pairs = NULL;
    f->n = 0;
}

const struct query_pair *query_form_pair(const struct query_form *f, const char *key)
{
    size_t n = strlen(key);

    for (size_t i = 0; i < f->n; i++) {
        if (f->pairs[i].key_len == n && memcmp(f->pairs[i].key, key, n) == 0)
            return &f->pairs[i];
    }
    return NULL;
}

const char *query_form_find(const struct query_form *f, const char *key)
{
    const struct query_pair *p = query_form_pair(f, key);

    return p ? p->value : NULL;
}

/* ---- tree ------------------------------------------------------------------------ */

static json_t *child(json_t *node, const char *seg, size_t n)
{
    json_t *c = json_object_getn(node, seg, n);

    if (!c) {
        c = json_object();
        json_object_setn_new_nocheck(node, seg, n, c);
    }
    return c;
}

static json_t *build_tree(const struct query_form *f, struct awserr *err)
{
    json_t *root = json_object();

    for (size_t i = 0; i < f->n; i++) {
        const char *k = f->pairs[i].key;
        json_t *node = root;
        int segs = 0;

        if (strcmp(k, "Action") == 0 || strcmp(k, "Version") == 0)
            continue;
        if (strlen(k) != f->pairs[i].key_len)
            continue; /* a NUL byte in the name: it names no member (as query_form_find) */
        while (1) {
            const char *dot = strchr(k, '.');
            size_t n = dot ? (size_t)(dot - k) : strlen(k);

            if (++segs > MAX_SEGMENTS) {
                json_decref(root);
                awserr_set(err, 400, "ValidationError", "Parameter name is nested too deeply");
                return NULL;
            }
            node = child(node, k, n);
            if (!dot)
                break;
            k = dot + 1;
        }
        if (!json_object_get(node, ""))
            json_object_set_new_nocheck(
                node, "", json_stringn_nocheck(f->pairs[i].value, f->pairs[i].value_len));
    }
    return root;
}

/* ---- model walk ------------------------------------------------------------------ */

struct walk {
    const struct model_service *svc;
    int ec2;
    char path[512];    /* wire name of the node being walked ("Tags.member.1") */
    char unknown[512]; /* the first parameter no member names, "" while none */
};

/* Parameters every request may carry besides its input members: the SigV4 query-string
 * authentication (presigned requests) and the legacy SigV2 ones. Action and Version never
 * reach the tree. */
static const char *const common_params[] = {
    "X-Amz-Algorithm",
    "X-Amz-Credential",
    "X-Amz-Date",
    "X-Amz-Expires",
    "X-Amz-Signature",
    "X-Amz-SignedHeaders",
    "X-Amz-Security-Token",
    "AWSAccessKeyId",
    "Signature",
    "SignatureMethod",
    "SignatureVersion",
    "Timestamp",
    "Expires",
    "SecurityToken",
    NULL,
};

static int is_common_param(const char *k)
{
    for (int i = 0; common_params[i]; i++)
        if (strcmp(k, common_params[i]) == 0)
            return 1;
    return 0;
}

/* Records key (a child of the node at w->path) as the first unknown parameter. */
static void unknown(struct walk *w, const char *key)
{
    if (w->unknown[0])
        return;
    snprintf(w->unknown, sizeof(w->unknown), "%.200s%s%.200s", w->path, w->path[0] ? "." : "", key);
}

static size_t path_push(struct walk *w, const char *seg)
{
    size_t n = strlen(w->path), l = strlen(seg);

    if (n + l + 2 > sizeof(w->path))
        return n; /* deeper than any real name: keep the prefix */
    if (n)
        w->path[n++] = '.';
    memcpy(w->path + n, seg, l + 1);
    return n ? n - 1 : 0;
}

static void path_pop(struct walk *w, size_t n)
{
    w->path[n] = '\0';
}

/* 1 when key is a positive decimal index ("1", "12"). */
static int is_index(const char *key)
{
    char *end;
    long v;

    if (key[0] < '1' || key[0] > '9')
        return 0;
    v = strtol(key, &end, 10);
    return *end == '\0' && v > 0;
}

static json_t *conv(struct walk *w, uint32_t si, json_t *node, int depth);

struct numbered_child {
    long index;
    json_t *node;
};

static int cmp_index(const void *a, const void *b)
{
    const struct numbered_child *x = a, *y = b;

    return (x->index > y->index) - (x->index < y->index);
}

/* The children of node named by positive integers, in numeric order, as an array. */
static json_t *numbered(struct walk *w, uint32_t elem_shape, json_t *node, int depth)
{
    const char *key;
    json_t *val;
    struct numbered_child *kids;
    size_t n = 0, cap = json_object_size(node);
    json_t *out = json_array();

    if (cap == 0)
        return out;
    kids = cm_xmalloc(cap * sizeof(*kids));
    json_object_foreach(node, key, val)
    {
        if (!is_index(key)) {
            if (key[0])
                unknown(w, key);
            continue;
        }
        kids[n].index = strtol(key, NULL, 10);
        kids[n].node = val;
        n++;
    }
    qsort(kids, n, sizeof(*kids), cmp_index);
    for (size_t i = 0; i < n; i++) {
        char idx[24];
        size_t pl;
        json_t *c;

        snprintf(idx, sizeof(idx), "%ld", kids[i].index);
        pl = path_push(w, idx);
        c = conv(w, elem_shape, kids[i].node, depth + 1);
        path_pop(w, pl);
        json_array_append_new(out, c ? c : json_null());
    }
    free(kids);
    return out;
}

/* 1 when key names one of structure sh's members on the wire. */
static int is_member_key(const struct walk *w, const struct model_shape *sh, const char *key)
{
    for (int i = 0; i < sh->nmembers; i++) {
        const struct model_member *m = model_member_get(w->svc, sh, i);

        if (w->ec2 ? strcmp(key, m->ec2_name) == 0 || strcmp(key, m->name) == 0
                   : strcmp(key, m->xml_name) == 0)
            return 1;
    }
    return 0;
}

static json_t *conv(struct walk *w, uint32_t si, json_t *node, int depth)
{
    const struct model_shape *sh = model_shape_get(w->svc, si);
    const char *key;
    json_t *out, *c, *e;

    if (depth > 32)
        return NULL;
    switch ((enum model_type)sh->type) {
    case MODEL_STRUCTURE:
        json_object_foreach(node, key, e)
        {
            if (key[0] && !is_member_key(w, sh, key) && !(depth == 0 && is_common_param(key)))
                unknown(w, key);
        }
        out = json_object();
        for (int i = 0; i < sh->nmembers; i++) {
            const struct model_member *m = model_member_get(w->svc, sh, i);
            const char *wire = w->ec2 ? m->ec2_name : m->xml_name;

            c = json_object_get(node, wire);
            if (!c && w->ec2) {
                wire = m->name;
                c = json_object_get(node, wire);
            }
            if (c) {
                size_t pl = path_push(w, wire);
                json_t *v = conv(w, m->shape, c, depth + 1);

                path_pop(w, pl);
                if (v)
                    json_object_set_new(out, m->name, v);
            }
        }
        return out;
    case MODEL_LIST: {
        const struct model_member *m = model_member_get(w->svc, sh, 0);
        size_t pl = 0;
        json_t *arr;

        if (w->ec2 || (sh->flags & MODEL_F_FLATTENED)) {
            c = node;
        } else {
            json_object_foreach(node, key, e)
            {
                if (key[0] && strcmp(key, m->xml_name) != 0)
                    unknown(w, key);
            }
            c = json_object_get(node, m->xml_name);
            if (c)
                pl = path_push(w, m->xml_name);
        }
        if (!c)
            return json_array(); /* `Name=` or nothing under it: the empty list */
        arr = numbered(w, m->shape, c, depth);
        if (c != node)
            path_pop(w, pl);
        return arr;
    }
    case MODEL_MAP: {
        const struct model_member *km = model_member_get(w->svc, sh, 0);
        const struct model_member *vm = model_member_get(w->svc, sh, 1);
        int flat = (sh->flags & MODEL_F_FLATTENED) != 0;
        json_t *entries = flat ? node : json_object_get(node, "entry");
        size_t pl = 0;

        if (!flat) {
            json_object_foreach(node, key, e)
            {
                if (key[0] && strcmp(key, "entry") != 0)
                    unknown(w, key);
            }
        }
        out = json_object();
        if (!entries)
            return out;
        if (!flat)
            pl = path_push(w, "entry");
        json_object_foreach(entries, key, e)
        {
            json_t *k = json_object_get(json_object_get(e, km->xml_name), "");
            json_t *v = json_object_get(e, vm->xml_name);
            const char *ek;
            json_t *ev;
            size_t pl2;

            if (!is_index(key)) {
                if (key[0])
                    unknown(w, key);
                continue;
            }
            pl2 = path_push(w, key);
            json_object_foreach(e, ek, ev)
            {
                if (ek[0] && strcmp(ek, km->xml_name) != 0 && strcmp(ek, vm->xml_name) != 0)
                    unknown(w, ek);
            }
            if (json_is_string(k) && v) {
                json_t *cv;
                size_t pl3 = path_push(w, vm->xml_name);

                cv = conv(w, vm->shape, v, depth + 1);
                path_pop(w, pl3);
                if (cv)
                    json_object_setn_new_nocheck(out, json_string_value(k), json_string_length(k),
                                                 cv);
            }
            path_pop(w, pl2);
        }
        if (!flat)
            path_pop(w, pl);
        return out;
    }
    default:
        json_object_foreach(node, key, e)
        {
            if (key[0])
                unknown(w, key);
        }
        c = json_object_get(node, "");
        if (c)
            return json_incref(c);
        return json_object(); /* a scalar given only sub-keys: model_coerce reports it */
    }
}

int query_parse(const struct model_service *svc, const struct model_op *op,
                const struct query_form *f, int ec2, json_t **out, struct awserr *err)
{
    struct walk w;
    json_t *tree, *loose;
    int rc;

    *out = NULL;
    memset(&w, 0, sizeof(w));
    w.svc = svc;
    w.ec2 = ec2;
    tree = build_tree(f, err);
    if (!tree)
        return -1;
    if (op->input < 0) {
        /* nothing is expected: any parameter but the common ones is unknown */
        const char *key;
        json_t *e;

        json_object_foreach(tree, key, e)
        {
            if (key[0] && !is_common_param(key))
                unknown(&w, key);
        }
        json_decref(tree);
        if (w.unknown[0])
            return awserr_set(err, 400, "UnknownParameter", "The parameter %s is not recognized",
                              w.unknown);
        *out = json_object();
        return 0;
    }
    loose = conv(&w, (uint32_t)op->input, tree, 0);
    json_decref(tree);
    if (!loose)
        return awserr_set(err, 400, "ValidationError", "Request is nested too deeply");
    if (w.unknown[0]) {
        json_decref(loose);
        return awserr_set(err, 400, "UnknownParameter", "The parameter %s is not recognized",
                          w.unknown);
    }
    rc = model_coerce(svc, (uint32_t)op->input, loose, 1, out, err);
    json_decref(loose);
    return rc;
}
