/* scaler/rec.h: what the EC2 and ELB records (ec2.c, elb.c) share; libscaler-internal.
 * Equality and membership of optional strings (copies are str.h's sc_strdup), and the
 * save/load pieces beside save.h: a list of records saved one by one, a record made for
 * each saved element, and a service's own RNG state. One rule each, so both services
 * write and read these parts of a state file alike.
 *
 * Header-only (static inline), so nothing outside the two services changes. */
#ifndef SCALER_REC_H
#define SCALER_REC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scaler/rng.h"
#include "scaler/save.h"
#include "scaler/str.h"

/* Both set and equal. */
static inline int streq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* list[0..n) holds s (NULL entries and a NULL s match nothing). */
static inline int in_list(const char *const *list, int n, const char *s)
{
    for (int i = 0; i < n; i++) {
        if (streq(list[i], s))
            return 1;
    }
    return 0;
}

/* How a saver ends: o when nothing failed (bad 0), else NULL with o freed. */
static inline json_t *rec_save_done(json_t *o, int bad)
{
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Saves record i of the caller's service (ctx); NULL on OOM. */
typedef json_t *rec_save_fn(const void *ctx, int i);

/* o[key] = [save(ctx, 0), ..., save(ctx, n - 1)]. Returns 0, or -1 when anything failed. */
static inline int rec_save_list(json_t *o, const char *key, const void *ctx, int n,
                                rec_save_fn *save)
{
    json_t *a = json_array();
    int bad = 0;

    for (int i = 0; a && i < n; i++)
        bad |= json_array_append_new(a, save(ctx, i));
    bad |= sc_save_take(o, key, a);
    return bad;
}

/* calloc of n pointers (n may be 0: a 1-entry block, so NULL means OOM only, and then the
 * load has failed). */
static inline void *rec_load_ptrs(struct sc_load *l, size_t n)
{
    void *p = calloc(n ? n : 1, sizeof(void *));

    if (!p)
        sc_load_fail(l, "out of memory");
    return p;
}

/* A zeroed record of size bytes for the next saved element; NULL once the load has
 * failed (loaders stop at the first error) or on OOM (then it fails). */
static inline void *rec_load_new(struct sc_load *l, size_t size)
{
    void *p;

    if (l->failed)
        return NULL;
    p = calloc(1, size);
    if (!p)
        sc_load_fail(l, "out of memory");
    return p;
}

/* o["rng"] = the RNG's four state words, 16 lower-case hex digits each. 0, or -1. */
static inline int rec_rng_save(json_t *o, const struct sc_rng *r)
{
    json_t *a = json_array();
    int bad = 0;

    for (int i = 0; a && i < 4; i++) {
        char hex[17];

        snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)r->s[i]);
        bad |= json_array_append_new(a, json_string(hex));
    }
    bad |= sc_save_take(o, "rng", a);
    return bad;
}

/* Reads what rec_rng_save wrote into s (left as it was on error). */
static inline void rec_rng_load(struct sc_load *l, const json_t *o, uint64_t s[4])
{
    const json_t *a = sc_load_array(l, o, "rng");

    if (a && json_array_size(a) != 4)
        sc_load_fail(l, "rng: expected 4 words");
    for (int i = 0; a && !l->failed && i < 4; i++) {
        const char *w = json_string_value(json_array_get(a, (size_t)i));

        if (!w || strlen(w) != 16 || strspn(w, "0123456789abcdef") != 16)
            sc_load_fail(l, "rng: expected 16 hex digits");
        else
            s[i] = strtoull(w, NULL, 16);
    }
}

#endif
