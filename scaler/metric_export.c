/* scaler/metric_export.c: sc_metric_store_export / sc_metric_store_import, one series' image
 * at a time (the emulator's metric journal compaction; see metric.h). */
#include "scaler/metric.h"

#include <stdlib.h>
#include <string.h>

#include "scaler/metric_internal.h"

/* --- export / import (the emulator's metric journal compaction) ----------------------------
 *
 * One image per series, native byte order (the journal lives on one machine):
 *   u8 version (1), u8 unit, u8 has_anchor, i32 anchor, i64 series last_ts_ms,
 *   str ns, str name, u8 ndims, ndims x (str name, str value), then for the tiers
 *   hires, minute, hour: u32 n, n x (u32 period index, f64 count, sum, min, max, u8 flags);
 *   then distributions: u32 n, n x (u32 minute index, f32 x 128).
 * str = u16 length + bytes. */

struct wbuf {
    unsigned char *p;
    size_t len, cap;
    int oom;
};

static void wb_put(struct wbuf *b, const void *src, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 4096;
        unsigned char *np;
        while (nc < b->len + n)
            nc *= 2;
        np = realloc(b->p, nc);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void wb_str(struct wbuf *b, const char *s)
{
    size_t n = strlen(s);
    uint16_t l = (uint16_t)(n > 65535 ? 65535 : n);

    wb_put(b, &l, sizeof(l));
    wb_put(b, s, l);
}

/* The entry of window w holding its i-th slot in increasing slot order (i = 0 ..
 * w->len-1): the slots 0 .. past the wrap first, then lo .. n-1. */
static int win_entry_in_slot_order(const struct win *w, int i)
{
    int wrapped = w->lo + w->len - w->n; /* the window's slots 0 .. wrapped-1 */

    if (wrapped <= 0)
        return metric_win_at(w, i);
    return metric_win_at(w, i < wrapped ? w->len - wrapped + i : i - wrapped);
}

static void wb_ring(struct wbuf *b, const struct ring *r)
{
    uint32_t n = 0;
    size_t at = b->len;

    wb_put(b, &n, sizeof(n));
    for (int i = 0; i < r->w.len; i++) {
        int k = win_entry_in_slot_order(&r->w, i);
        uint32_t idx;
        if (r->stamp[k] == 0 || r->s[k].count == 0)
            continue;
        idx = r->stamp[k] - 1;
        wb_put(b, &idx, sizeof(idx));
        wb_put(b, &r->s[k], sizeof(r->s[k]));
        wb_put(b, &r->flags[k], 1);
        n++;
    }
    if (!b->oom)
        memcpy(b->p + at, &n, sizeof(n));
}

int sc_metric_store_export(const struct sc_metric_store *s, sc_metric_image_fn fn, void *ud)
{
    struct wbuf b = { 0 };
    int rc = 0;

    for (int i = 0; i < s->nlist && rc == 0; i++) {
        const struct sc_metric *m = s->list[i];
        for (int j = 0; j < m->nseries && rc == 0; j++) {
            const struct series *se = m->series[j];
            uint8_t u8;
            int32_t anchor = m->anchor;
            uint32_t nd = 0;
            size_t at;

            b.len = 0;
            u8 = 1;
            wb_put(&b, &u8, 1);
            u8 = (uint8_t)se->unit;
            wb_put(&b, &u8, 1);
            u8 = (uint8_t)m->has_anchor;
            wb_put(&b, &u8, 1);
            wb_put(&b, &anchor, sizeof(anchor));
            wb_put(&b, &se->last_ts_ms, sizeof(se->last_ts_ms));
            wb_str(&b, m->ns);
            wb_str(&b, m->name);
            u8 = (uint8_t)m->ndims;
            wb_put(&b, &u8, 1);
            for (int k = 0; k < m->ndims; k++) {
                wb_str(&b, m->dims[k].name);
                wb_str(&b, m->dims[k].value);
            }
            wb_ring(&b, &se->hires);
            wb_ring(&b, &se->minute);
            wb_ring(&b, &se->hour);
            at = b.len;
            wb_put(&b, &nd, sizeof(nd));
            for (int e = 0; e < se->dist.w.len; e++) {
                int k = win_entry_in_slot_order(&se->dist.w, e);
                uint32_t idx;
                if (se->dist.stamp[k] == 0)
                    continue;
                idx = se->dist.stamp[k] - 1;
                wb_put(&b, &idx, sizeof(idx));
                wb_put(&b, se->dist.bins[k], sizeof(se->dist.bins[k]));
                nd++;
            }
            if (b.oom) {
                rc = -1;
                break;
            }
            memcpy(b.p + at, &nd, sizeof(nd));
            rc = fn(b.p, b.len, ud);
        }
    }
    free(b.p);
    return rc;
}

struct rbuf {
    const unsigned char *p;
    size_t len, off;
    int bad;
};

static void rb_get(struct rbuf *b, void *dst, size_t n)
{
    if (b->bad || b->len - b->off < n) {
        b->bad = 1;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, b->p + b->off, n);
    b->off += n;
}

/* A string into out (NUL-terminated, cap bytes). */
static void rb_str(struct rbuf *b, char *out, size_t cap)
{
    uint16_t l = 0;

    rb_get(b, &l, sizeof(l));
    if (b->bad || (size_t)l + 1 > cap || b->len - b->off < l) {
        b->bad = 1;
        out[0] = 0;
        return;
    }
    memcpy(out, b->p + b->off, l);
    out[l] = 0;
    if (memchr(out, 0, l))
        b->bad = 1;
    b->off += l;
}

struct ring_entry {
    uint32_t idx;
    struct sum s;
    uint8_t flags;
};

/* Checks one tier's entries (count, then each) and leaves b after them; returns the count. */
static uint32_t rb_ring_skip(struct rbuf *b)
{
    uint32_t n = 0;
    size_t per = sizeof(uint32_t) + sizeof(struct sum) + 1;

    rb_get(b, &n, sizeof(n));
    if (b->bad || (b->len - b->off) / per < n) {
        b->bad = 1;
        return 0;
    }
    b->off += (size_t)n * per;
    return n;
}

/* Returns 0, or -1 on OOM. */
static int ring_import(struct ring *r, const unsigned char *p, uint32_t n, size_t *bytes)
{
    size_t per = sizeof(uint32_t) + sizeof(struct sum) + 1;

    for (uint32_t i = 0; i < n; i++) {
        struct ring_entry e;
        int slot;
        memcpy(&e.idx, p + i * per, sizeof(e.idx));
        memcpy(&e.s, p + i * per + sizeof(e.idx), sizeof(e.s));
        memcpy(&e.flags, p + i * per + sizeof(e.idx) + sizeof(e.s), 1);
        if (r->w.n == 0)
            continue;
        slot = metric_ring_slot(r, e.idx, bytes);
        if (slot == -2)
            return -1;
        if (slot < 0)
            continue;
        r->s[slot] = e.s;
        r->flags[slot] = e.flags;
    }
    return 0;
}

enum sc_status sc_metric_store_import(struct sc_metric_store *s, const void *img, size_t len,
                                      struct sc_error *err)
{
    struct rbuf b = { img, len, 0, 0 };
    uint8_t version = 0, unit = 0, has_anchor = 0, nd8 = 0;
    int32_t anchor = 0;
    int64_t last = 0;
    char ns[SC_METRIC_NAME_MAX + 2], name[SC_METRIC_NAME_MAX + 2];
    char dn[SC_METRIC_MAX_DIMENSIONS][SC_METRIC_NAME_MAX + 2];
    char dv[SC_METRIC_MAX_DIMENSIONS][1026];
    struct sc_dimension dims[SC_METRIC_MAX_DIMENSIONS];
    size_t off_tiers[3];
    uint32_t n_tiers[3], ndist = 0;
    size_t off_dist;
    struct sorted_dims sd;
    struct sc_metric *m;
    struct series *se;
    uint64_t h;
    size_t dper = sizeof(uint32_t) + sizeof(float) * DIST_BINS;

    rb_get(&b, &version, 1);
    rb_get(&b, &unit, 1);
    rb_get(&b, &has_anchor, 1);
    rb_get(&b, &anchor, sizeof(anchor));
    rb_get(&b, &last, sizeof(last));
    rb_str(&b, ns, sizeof(ns));
    rb_str(&b, name, sizeof(name));
    rb_get(&b, &nd8, 1);
    if (b.bad || version != 1 || unit >= SC_UNIT_COUNT_ || nd8 > SC_METRIC_MAX_DIMENSIONS ||
        !ns[0] || !name[0])
        return sc_fail(err, SC_ERR_VALIDATION, "metric image: bad header");
    for (int i = 0; i < nd8; i++) {
        rb_str(&b, dn[i], sizeof(dn[i]));
        rb_str(&b, dv[i], sizeof(dv[i]));
        dims[i].name = dn[i];
        dims[i].value = dv[i];
    }
    for (int t = 0; t < 3; t++) {
        n_tiers[t] = rb_ring_skip(&b);
        off_tiers[t] = b.off - (size_t)n_tiers[t] * (sizeof(uint32_t) + sizeof(struct sum) + 1);
    }
    rb_get(&b, &ndist, sizeof(ndist));
    off_dist = b.off;
    if (b.bad || (b.len - b.off) / dper < ndist || b.off + (size_t)ndist * dper != b.len)
        return sc_fail(err, SC_ERR_VALIDATION, "metric image: truncated or malformed");
    /* checked: now apply */
    metric_sort_dims(dims, nd8, &sd);
    h = metric_key_hash(ns, name, &sd);
    m = metric_lookup(s, h, ns, name, &sd);
    if (!m)
        m = metric_new(s, h, ns, name, &sd);
    if (!m)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    se = metric_series_ensure(s, m, (enum sc_unit)unit);
    if (!se)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    if (n_tiers[0] > 0 && se->hires.w.n == 0)
        metric_ring_init(&se->hires, s->cfg.hires_slots, 1);
    if (has_anchor && !m->has_anchor) {
        m->has_anchor = 1;
        m->anchor = anchor;
    }
    m->late_ver++;
    if (ring_import(&se->hires, b.p + off_tiers[0], n_tiers[0], &s->bytes) < 0 ||
        ring_import(&se->minute, b.p + off_tiers[1], n_tiers[1], &s->bytes) < 0 ||
        ring_import(&se->hour, b.p + off_tiers[2], n_tiers[2], &s->bytes) < 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    for (uint32_t i = 0; i < ndist; i++) {
        uint32_t idx;
        int k;
        memcpy(&idx, b.p + off_dist + i * dper, sizeof(idx));
        k = metric_dist_slot(&se->dist, idx, &s->bytes);
        if (k == -2)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        if (k < 0)
            continue;
        memcpy(se->dist.bins[k], b.p + off_dist + i * dper + sizeof(idx), sizeof(se->dist.bins[k]));
    }
    if (last > se->last_ts_ms)
        se->last_ts_ms = last;
    if (last > m->last_ts_ms)
        m->last_ts_ms = last;
    return SC_OK;
}
