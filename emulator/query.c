/* emulator/query.c: see query.h.
 *
 * Two steps: the flat pairs become a tree split on '.' (each node its segment, the value
 * of the first parameter that names it, and its children sorted by segment), built in one
 * pass over the pairs sorted level by level, with no allocation per node; then the input
 * shape is walked over the tree, naming members as the protocol does, into loose JSON
 * (scalars as strings) that model_coerce() types and checks.
 *
 * The tree keeps the rules of the Jansson tree it replaced: a parameter's children are
 * seen in the order their first parameter came (the first unknown one is the one
 * reported), the first of repeated parameters wins, and an empty segment (`Name.` or
 * `Name..x`) names no member: it only makes the node's value an object (a scalar's "{}")
 * when it comes before the node's own value. */
#include "emulator/query.h"

#include <stdint.h>
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

/* Decodes s[0..n) into out (room for n bytes and a NUL); returns the decoded length. */
static size_t pct_decode(const char *s, size_t n, char *out)
{
    size_t j = 0;

    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int h, l;

        if (c == '+') {
            out[j++] = ' ';
        } else if (c == '%' && i + 2 < n && (h = hexval(s[i + 1])) >= 0 &&
                   (l = hexval(s[i + 2])) >= 0) {
            out[j++] = (char)(h * 16 + l);
            i += 2;
        } else {
            out[j++] = c;
        }
    }
    out[j] = '\0';
    return j;
}

int query_form_parse(struct query_form *f, const char *s, size_t len, struct awserr *err)
{
    size_t pieces = 1, used = 0, i = 0;
    const char *amp = s;

    f->pairs = NULL;
    f->n = 0;
    f->text = NULL;
    /* one block for every decoded key and value: a piece decodes to at most its own
     * length plus two NULs */
    while ((amp = memchr(amp, '&', (size_t)(s + len - amp))) != NULL) {
        pieces++;
        amp++;
    }
    while (i < len) {
        size_t start = i, eq = (size_t)-1;
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
            if (!f->pairs) {
                size_t cap = pieces < QUERY_MAX_PAIRS ? pieces : QUERY_MAX_PAIRS;

                f->pairs = cm_xmalloc(cap * sizeof(*f->pairs));
                f->text = cm_xmalloc(len + 2 * cap);
            }
            p = &f->pairs[f->n++];
            p->key = f->text + used;
            if (eq == (size_t)-1) {
                p->key_len = pct_decode(s + start, i - start, p->key);
                used += p->key_len + 1;
                p->value = f->text + used;
                p->value[0] = '\0';
                p->value_len = 0;
                used++;
            } else {
                p->key_len = pct_decode(s + start, eq - start, p->key);
                used += p->key_len + 1;
                p->value = f->text + used;
                p->value_len = pct_decode(s + eq + 1, i - eq - 1, p->value);
                used += p->value_len + 1;
            }
        }
        i++;
    }
    return 0;
}

void query_form_cleanup(struct query_form *f)
{
    free(f->pairs);
    free(f->text);
    f->pairs = NULL;
    f->text = NULL;
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

/* One parameter on its way down the tree. */
struct qent {
    const char *seg; /* its segment at the level being built (NUL-terminated copy) */
    uint32_t len;    /* strlen(seg) */
    uint32_t idx;    /* its place in the form: the order parameters came in */
    uint32_t left;   /* segments from seg to the key's end; 0: the key ends at this node */
};

struct qnode {
    const char *seg;
    uint32_t len; /* strlen(seg) */
    /* the first parameter naming this node, NULL when none or when an empty segment under
     * it came first (obj_slot) */
    const struct query_pair *value;
    int obj_slot;   /* the node's own value is an object (`Name.=x` came first) */
    int mark;       /* a member's wire name matched it (conv, per walk of its parent) */
    uint32_t first; /* the first parameter through this node: children's order */
    uint32_t nkids;
    struct qnode *kids; /* sorted by seg (seg_cmp), distinct, none empty */
};

struct qtree {
    struct qnode root;
    struct qnode *pool;
    size_t npool;
    char *keys;
    struct qent *ents;
    const struct query_form *f;
};

/* The order of a node's children: shorter segments first, then bytes. Any total order
 * serves the lookups; this one keeps the forms clients send (`member.1` .. `member.1000`)
 * already in order, so most levels need no sort. */
static int seg_cmp(const char *a, uint32_t alen, const char *b, uint32_t blen)
{
    if (alen != blen)
        return alen < blen ? -1 : 1;
    return memcmp(a, b, alen);
}

/* Keys ending at the node first, then by segment, then in form order. */
static int cmp_ent(const struct qent *x, const struct qent *y)
{
    if ((x->left == 0) != (y->left == 0))
        return x->left == 0 ? -1 : 1;
    if (x->left) {
        int c = seg_cmp(x->seg, x->len, y->seg, y->len);

        if (c)
            return c;
    }
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_ent_q(const void *a, const void *b)
{
    return cmp_ent(a, b);
}

static void sort_ents(struct qent *e, size_t n)
{
    if (n > 16) {
        qsort(e, n, sizeof(*e), cmp_ent_q);
        return;
    }
    for (size_t i = 1; i < n; i++) { /* a structure's few members */
        struct qent x = e[i];
        size_t j = i;

        for (; j > 0 && cmp_ent(&e[j - 1], &x) > 0; j--)
            e[j] = e[j - 1];
        e[j] = x;
    }
}

static int same_seg(const struct qent *a, const struct qent *b)
{
    return a->len == b->len && memcmp(a->seg, b->seg, a->len) == 0;
}

/* Fills node from ents[0..n), every one of which passes through node with seg at the
 * segment after it. */
static void build(struct qtree *t, struct qnode *node, struct qent *e, size_t n)
{
    size_t i = 0, g = 0;
    uint32_t value_idx = UINT32_MAX, empty_idx = UINT32_MAX;

    for (size_t k = 1; k < n; k++) {
        if (cmp_ent(&e[k - 1], &e[k]) > 0) {
            sort_ents(e, n);
            break;
        }
    }
    if (i < n && e[i].left == 0) {
        value_idx = e[i].idx;
        node->value = &t->f->pairs[value_idx];
    }
    while (i < n && e[i].left == 0)
        i++;
    if (i < n && e[i].len == 0)
        empty_idx = e[i].idx;
    while (i < n && e[i].len == 0)
        i++;
    if (empty_idx < value_idx) {
        node->obj_slot = 1;
        node->value = NULL;
    }
    for (size_t k = i; k < n; k++)
        if (k == i || !same_seg(&e[k], &e[k - 1]))
            g++;
    if (g == 0)
        return;
    node->kids = t->pool + t->npool;
    node->nkids = (uint32_t)g;
    t->npool += g;
    g = 0;
    while (i < n) {
        size_t j = i;
        struct qnode *kid = &node->kids[g++];

        kid->seg = e[i].seg;
        kid->len = e[i].len;
        kid->first = e[i].idx; /* a group is in form order */
        while (j < n && (j == i || same_seg(&e[j], &e[i]))) {
            j++;
        }
        for (size_t k = i; k < j; k++) {
            e[k].left--;
            e[k].seg = e[k].left ? e[k].seg + e[k].len + 1 : NULL;
            e[k].len = e[k].left ? (uint32_t)strlen(e[k].seg) : 0;
        }
        build(t, kid, e + i, j - i);
        i = j;
    }
}

static void tree_free(struct qtree *t)
{
    free(t->pool);
    free(t->keys);
    free(t->ents);
}

static int tree_build(struct qtree *t, const struct query_form *f, struct awserr *err)
{
    size_t nent = 0, nseg = 0, bytes = 0, at = 0;

    memset(t, 0, sizeof(*t));
    t->f = f;
    for (size_t i = 0; i < f->n; i++)
        bytes += f->pairs[i].key_len + 1;
    t->keys = cm_xmalloc(bytes ? bytes : 1);
    t->ents = cm_xmalloc((f->n ? f->n : 1) * sizeof(*t->ents));
    for (size_t i = 0; i < f->n; i++) {
        const struct query_pair *p = &f->pairs[i];
        char *k = t->keys + at;
        uint32_t segs = 1;

        if (strcmp(p->key, "Action") == 0 || strcmp(p->key, "Version") == 0)
            continue;
        if (strlen(p->key) != p->key_len)
            continue; /* a NUL byte in the name: it names no member (as query_form_find) */
        memcpy(k, p->key, p->key_len + 1);
        for (size_t j = 0; j < p->key_len; j++) {
            if (k[j] == '.') {
                k[j] = '\0';
                segs++;
            }
        }
        if (segs > MAX_SEGMENTS) {
            tree_free(t);
            return awserr_set(err, 400, "ValidationError", "Parameter name is nested too deeply");
        }
        at += p->key_len + 1;
        nseg += segs;
        t->ents[nent].seg = k;
        t->ents[nent].len = (uint32_t)strlen(k);
        t->ents[nent].idx = (uint32_t)i;
        t->ents[nent].left = segs;
        nent++;
    }
    t->pool = cm_xcalloc(nseg ? nseg : 1, sizeof(*t->pool));
    build(t, &t->root, t->ents, nent);
    return 0;
}

static struct qnode *kid_find(const struct qnode *node, const char *name)
{
    size_t lo = 0, hi = node->nkids;
    uint32_t len = (uint32_t)strlen(name);

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = seg_cmp(node->kids[mid].seg, node->kids[mid].len, name, len);

        if (c == 0)
            return &node->kids[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
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

/* Records the first (in form order) of node's children that is not marked and, when
 * `common` is set, not a common parameter; clears the marks. */
static void unknown_unmarked(struct walk *w, struct qnode *node, int common)
{
    const struct qnode *worst = NULL;

    for (uint32_t i = 0; i < node->nkids; i++) {
        struct qnode *k = &node->kids[i];

        if (!k->mark && !(common && is_common_param(k->seg)) && (!worst || k->first < worst->first))
            worst = k;
        k->mark = 0;
    }
    if (worst)
        unknown(w, worst->seg);
}

/* Marks node's child `name` (when there is one) and returns it. */
static struct qnode *kid_mark(struct qnode *node, const char *name)
{
    struct qnode *k = kid_find(node, name);

    if (k)
        k->mark = 1;
    return k;
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

static json_t *conv(struct walk *w, uint32_t si, struct qnode *node, int depth);

struct numbered_child {
    long index;
    struct qnode *node;
};

static int cmp_index(const void *a, const void *b)
{
    const struct numbered_child *x = a, *y = b;

    if (x->index != y->index)
        return (x->index > y->index) - (x->index < y->index);
    return (x->node->first > y->node->first) - (x->node->first < y->node->first);
}

static int cmp_first(const void *a, const void *b)
{
    const struct qnode *x = *(const struct qnode *const *)a, *y = *(const struct qnode *const *)b;

    return (x->first > y->first) - (x->first < y->first);
}

/* The children of node named by positive integers, in numeric order, as an array. */
static json_t *numbered(struct walk *w, uint32_t elem_shape, struct qnode *node, int depth)
{
    struct numbered_child *kids;
    size_t n = 0;
    int sorted = 1;
    json_t *out = json_array();

    if (node->nkids == 0)
        return out;
    kids = cm_xmalloc(node->nkids * sizeof(*kids));
    for (uint32_t i = 0; i < node->nkids; i++) {
        struct qnode *k = &node->kids[i];

        if (!is_index(k->seg))
            continue;
        k->mark = 1;
        kids[n].index = strtol(k->seg, NULL, 10);
        kids[n].node = k;
        if (n && cmp_index(&kids[n - 1], &kids[n]) > 0)
            sorted = 0;
        n++;
    }
    unknown_unmarked(w, node, 0);
    if (!sorted)
        qsort(kids, n, sizeof(*kids), cmp_index);
    for (size_t i = 0; i < n; i++) {
        char idx[24];
        size_t pl;
        json_t *c;

        if (kids[i].node->len < 19) {
            pl = path_push(w, kids[i].node->seg); /* canonical digits: "%ld" of the index */
        } else {
            snprintf(idx, sizeof(idx), "%ld", kids[i].index);
            pl = path_push(w, idx);
        }
        c = conv(w, elem_shape, kids[i].node, depth + 1);
        path_pop(w, pl);
        json_array_append_new(out, c ? c : json_null());
    }
    free(kids);
    return out;
}

static json_t *conv_struct(struct walk *w, const struct model_shape *sh, struct qnode *node,
                           int depth)
{
    json_t *out;

    if (node->nkids) {
        for (int i = 0; i < sh->nmembers; i++) {
            const struct model_member *m = model_member_get(w->svc, sh, i);

            kid_mark(node, w->ec2 ? m->ec2_name : m->xml_name);
            if (w->ec2)
                kid_mark(node, m->name);
        }
        unknown_unmarked(w, node, depth == 0);
    }
    out = json_object();
    for (int i = 0; i < sh->nmembers && node->nkids; i++) {
        const struct model_member *m = model_member_get(w->svc, sh, i);
        const char *wire = w->ec2 ? m->ec2_name : m->xml_name;
        struct qnode *c = kid_find(node, wire);

        if (!c && w->ec2) {
            wire = m->name;
            c = kid_find(node, wire);
        }
        if (c) {
            size_t pl = path_push(w, wire);
            json_t *v = conv(w, m->shape, c, depth + 1);

            path_pop(w, pl);
            if (v)
                json_object_set_new_nocheck(out, m->name, v); /* a model name: ASCII */
        }
    }
    return out;
}

static json_t *conv_map(struct walk *w, const struct model_shape *sh, struct qnode *node, int depth)
{
    const struct model_member *km = model_member_get(w->svc, sh, 0);
    const struct model_member *vm = model_member_get(w->svc, sh, 1);
    int flat = (sh->flags & MODEL_F_FLATTENED) != 0;
    struct qnode *entries = node, **order;
    json_t *out;
    size_t pl = 0;

    if (!flat) {
        entries = kid_mark(node, "entry");
        unknown_unmarked(w, node, 0);
    }
    out = json_object();
    if (!entries || entries->nkids == 0)
        return out;
    if (!flat)
        pl = path_push(w, "entry");
    /* entries in form order: a repeated key keeps its first place and its last value */
    order = cm_xmalloc(entries->nkids * sizeof(*order));
    for (uint32_t i = 0; i < entries->nkids; i++)
        order[i] = &entries->kids[i];
    qsort(order, entries->nkids, sizeof(*order), cmp_first);
    for (uint32_t i = 0; i < entries->nkids; i++) {
        struct qnode *e = order[i], *k, *v;
        size_t pl2;

        if (!is_index(e->seg)) {
            unknown(w, e->seg);
            continue;
        }
        pl2 = path_push(w, e->seg);
        k = kid_mark(e, km->xml_name);
        v = kid_mark(e, vm->xml_name);
        unknown_unmarked(w, e, 0);
        if (k && k->value && v) {
            json_t *cv;
            size_t pl3 = path_push(w, vm->xml_name);

            cv = conv(w, vm->shape, v, depth + 1);
            path_pop(w, pl3);
            if (cv)
                json_object_setn_new_nocheck(out, k->value->value, k->value->value_len, cv);
        }
        path_pop(w, pl2);
    }
    free(order);
    if (!flat)
        path_pop(w, pl);
    return out;
}

static json_t *conv(struct walk *w, uint32_t si, struct qnode *node, int depth)
{
    const struct model_shape *sh = model_shape_get(w->svc, si);

    if (depth > 32)
        return NULL;
    switch ((enum model_type)sh->type) {
    case MODEL_STRUCTURE:
        return conv_struct(w, sh, node, depth);
    case MODEL_LIST: {
        const struct model_member *m = model_member_get(w->svc, sh, 0);
        struct qnode *c = node;
        size_t pl = 0;
        json_t *arr;

        if (!w->ec2 && !(sh->flags & MODEL_F_FLATTENED)) {
            c = kid_mark(node, m->xml_name);
            unknown_unmarked(w, node, 0);
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
    case MODEL_MAP:
        return conv_map(w, sh, node, depth);
    default:
        unknown_unmarked(w, node, 0);
        if (node->value)
            return json_stringn_nocheck(node->value->value, node->value->value_len);
        return json_object(); /* a scalar given only sub-keys: model_coerce reports it */
    }
}

int query_parse(const struct model_service *svc, const struct model_op *op,
                const struct query_form *f, int ec2, json_t **out, struct awserr *err)
{
    struct walk w;
    struct qtree t;
    json_t *loose;
    int rc;

    *out = NULL;
    memset(&w, 0, sizeof(w));
    w.svc = svc;
    w.ec2 = ec2;
    if (tree_build(&t, f, err) < 0)
        return -1;
    if (op->input < 0) {
        /* nothing is expected: any parameter but the common ones is unknown */
        unknown_unmarked(&w, &t.root, 1);
        tree_free(&t);
        if (w.unknown[0])
            return awserr_set(err, 400, "UnknownParameter", "The parameter %s is not recognized",
                              w.unknown);
        *out = json_object();
        return 0;
    }
    loose = conv(&w, (uint32_t)op->input, &t.root, 0);
    tree_free(&t);
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
