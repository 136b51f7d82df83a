/* scaler/metric_internal.h: what metric.c, metric_store.c and metric_export.c share; not
 * public. */
#ifndef SCALER_METRIC_INTERNAL_H
#define SCALER_METRIC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/metric.h"

#define DIST_BINS       128
#define DIST_PER_OCTAVE 8

struct sum {
    double count, sum, min, max;
};

/* A window onto a ring of n slots, where period index idx lives in slot idx % n: the slots
 * lo, lo+1, ... (mod n), len of them, are held in one block with room for cap entries (the
 * window's k-th slot in entry (head + k) % cap); every slot outside the window is empty.
 * The block grows on demand (metric_win_cover), toward the nearer side, doubling up to n,
 * so a series pays for the span of periods it has data for, not for its whole retention.
 * Entries outside the window are undefined; an entry the window takes is marked empty
 * (stamp 0), and the rest of it is set when its slot is made current. */
struct win {
    int n;
    int lo, len, cap, head;
    unsigned char *block; /* NULL while len == 0 */
};

/* A ring of epoch-aligned summaries; a held slot with stamp s holds period index s-1 (0 =
 * empty). n == 0 (hires only) until the tier is enabled. */
struct ring {
    struct win w;
    int res_s;
    struct sum *s; /* the block's arrays, [w.cap] each */
    uint32_t *stamp;
    uint8_t *flags;
};

/* Minute histograms for minutes whose values differ. */
struct dist {
    struct win w;
    uint32_t *stamp;
    float (*bins)[DIST_BINS];
};

struct series {
    enum sc_unit unit;
    struct ring hires; /* w.n == 0 until the first StorageResolution=1 datum */
    struct ring minute;
    struct ring hour;
    struct dist dist; /* empty until a minute holds two different values */
    int64_t last_ts_ms;
};

struct sc_metric {
    struct sc_metric *next; /* hash chain */
    uint64_t hash;
    char *ns;
    char *name;
    int ndims;
    struct sc_dimension *dims; /* sorted; strings in blob */
    char *blob;
    int nseries;
    struct series *series[SC_UNIT_COUNT_]; /* sorted by unit */
    int has_anchor;
    int anchor; /* log2 of the lowest histogram bound */
    int64_t last_ts_ms;
    size_t own_bytes; /* struct, strings and dimensions */
    /* sc_metric_late_version(): bumped by a put before its series' newest minute, and
     * when a series comes or goes */
    uint64_t late_ver;
};

struct sc_metric_store {
    struct sc_metric_config cfg;
    struct sc_metric **table;
    size_t table_n; /* power of two */
    struct sc_metric **list;
    int nlist, caplist;
    int nseries; /* series of all metrics (the cap counts these) */
    size_t bytes;
    uint64_t gen; /* sc_metric_store_generation(): changes when a metric comes or goes */
};

struct sorted_dims {
    int n;
    const struct sc_dimension *d[SC_METRIC_MAX_DIMENSIONS];
};

/* metric.c */
/* The AWS unit names, by enum sc_unit. */
extern const char *const metric_unit_names[SC_UNIT_COUNT_];

/* The entry holding the window's k-th slot (0 <= k < w->len). */
static inline int metric_win_at(const struct win *w, int k)
{
    int e = w->head + k;

    return e < w->cap ? e : e - w->cap;
}

/* The entry holding slot (0 <= slot < w->n), or -1 when the slot is empty. */
static inline int metric_win_find(const struct win *w, int slot)
{
    int k = slot - w->lo;

    if (k < 0)
        k += w->n;
    return k < w->len ? metric_win_at(w, k) : -1;
}
/* Rings: set up empty (nothing allocated) and freed; a period's slot, made current (-1
 * past retention, -2 on OOM; a new slot is allocated here, counted into *bytes); a
 * summary added; floor division. */
void metric_ring_init(struct ring *r, int n, int res_s);
void metric_ring_cleanup(struct ring *r);
int64_t metric_floor_div(int64_t a, int64_t b);
int metric_ring_slot(struct ring *r, int64_t idx, size_t *bytes);
void metric_sum_add(struct sum *s, double count, double sum, double min, double max);
/* Distributions: set up empty and freed; the entry for minute index idx, made current as
 * metric_ring_slot does (-1 past retention, -2 on OOM), with its bins cleared when new. */
void metric_dist_init(struct dist *d, int n);
void metric_dist_cleanup(struct dist *d);
int metric_dist_slot(struct dist *d, int64_t idx, size_t *bytes);
/* The entry holding period index idx (a ring's or a distribution's), or -1. Inline: the
 * aggregation's inner loop. */
static inline int metric_ring_find(const struct ring *r, int64_t idx)
{
    int k;

    if (idx < 0 || idx >= (int64_t)UINT32_MAX - 1 || r->w.n == 0)
        return -1;
    k = metric_win_find(&r->w, (int)(idx % r->w.n));
    return k >= 0 && r->stamp[k] == (uint32_t)(idx + 1) ? k : -1;
}

static inline int metric_dist_find(const struct dist *d, int64_t idx)
{
    int k;

    if (idx < 0 || idx >= (int64_t)UINT32_MAX - 1 || d->w.n == 0)
        return -1;
    k = metric_win_find(&d->w, (int)(idx % d->w.n));
    return k >= 0 && d->stamp[k] == (uint32_t)(idx + 1) ? k : -1;
}
/* The histogram bin of v for m, and the low edge of bin b. */
int metric_dist_bin(const struct sc_metric *m, double v);
double metric_bin_low(const struct sc_metric *m, int b);
/* A metric's identity: dimensions sorted, hashed, looked up in the store (NULL when new). */
void metric_sort_dims(const struct sc_dimension *dims, int n, struct sorted_dims *out);
uint64_t metric_key_hash(const char *ns, const char *name, const struct sorted_dims *sd);
struct sc_metric *metric_lookup(const struct sc_metric_store *s, uint64_t h, const char *ns,
                                const char *name, const struct sorted_dims *sd);
void metric_series_free(struct series *se);          /* NULL is a no-op */
size_t metric_series_bytes(const struct series *se); /* as counted into the store's bytes */
void metric_free(struct sc_metric *m);               /* and its series; NULL is a no-op */
/* Doubles the store's hash table (first 1024 buckets): 0, or -1 on OOM. */
int metric_table_grow(struct sc_metric_store *s);
/* A new metric in the store (NULL on OOM), and a metric's series for unit u, made when
 * missing (NULL on OOM). */
struct sc_metric *metric_new(struct sc_metric_store *s, uint64_t h, const char *ns,
                             const char *name, const struct sorted_dims *sd);
struct series *metric_series_ensure(struct sc_metric_store *s, struct sc_metric *m, enum sc_unit u);

#endif
