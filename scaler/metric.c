/* scaler/metric.c: see metric.h. Units, statistics and the metric configuration; the
 * rings; metrics' identity, their series and the store's hash table (metric_internal.h). */
#include "scaler/metric.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/hash.h"
#include "scaler/metric_internal.h"

const char *const metric_unit_names[SC_UNIT_COUNT_] = {
    "Seconds",
    "Microseconds",
    "Milliseconds",
    "Bytes",
    "Kilobytes",
    "Megabytes",
    "Gigabytes",
    "Terabytes",
    "Bits",
    "Kilobits",
    "Megabits",
    "Gigabits",
    "Terabits",
    "Percent",
    "Count",
    "Bytes/Second",
    "Kilobytes/Second",
    "Megabytes/Second",
    "Gigabytes/Second",
    "Terabytes/Second",
    "Bits/Second",
    "Kilobits/Second",
    "Megabits/Second",
    "Gigabits/Second",
    "Terabits/Second",
    "Count/Second",
    "None",
};

/* --- small helpers --------------------------------------------------------------------- */

const char *sc_unit_name(enum sc_unit u)
{
    if (u < 0 || u >= SC_UNIT_COUNT_)
        return NULL;
    return metric_unit_names[u];
}

int sc_unit_parse(const char *s, enum sc_unit *out)
{
    if (!s)
        return -1;
    for (int i = 0; i < SC_UNIT_COUNT_; i++) {
        if (s[0] == metric_unit_names[i][0] && strcmp(s, metric_unit_names[i]) == 0) {
            *out = (enum sc_unit)i;
            return 0;
        }
    }
    return -1;
}

void sc_java_double(double v, char *out, size_t outlen)
{
    char buf[40], digits[24];
    int exp10 = 0, nd = 0, prec;
    size_t o = 0;

    if (isnan(v)) {
        snprintf(out, outlen, "NaN");
        return;
    }
    if (isinf(v)) {
        snprintf(out, outlen, "%s", v < 0 ? "-Infinity" : "Infinity");
        return;
    }
    if (v == 0) {
        snprintf(out, outlen, "%s", signbit(v) ? "-0.0" : "0.0");
        return;
    }
    /* Shortest digits that read back to v: 15 significant digits always give the shortest
     * form when they round-trip (trailing zeros are stripped below), else 16, else 17. */
    for (prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*e", prec - 1, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    {
        const char *p = buf;
        if (*p == '-')
            p++;
        for (; *p && *p != 'e'; p++)
            if (*p >= '0' && *p <= '9')
                digits[nd++] = *p;
        digits[nd] = 0;
        exp10 = atoi(p + 1);
    }
    while (nd > 1 && digits[nd - 1] == '0')
        digits[--nd] = 0;
    if (v < 0)
        buf[o++] = '-';
    if (fabs(v) >= 1e-3 && fabs(v) < 1e7) {
        if (exp10 >= 0) {
            for (int i = 0; i <= exp10; i++)
                buf[o++] = i < nd ? digits[i] : '0';
            buf[o++] = '.';
            if (nd > exp10 + 1) {
                for (int i = exp10 + 1; i < nd; i++)
                    buf[o++] = digits[i];
            } else {
                buf[o++] = '0';
            }
        } else {
            buf[o++] = '0';
            buf[o++] = '.';
            for (int i = 0; i < -exp10 - 1; i++)
                buf[o++] = '0';
            for (int i = 0; i < nd; i++)
                buf[o++] = digits[i];
        }
        buf[o] = 0;
    } else {
        buf[o++] = digits[0];
        buf[o++] = '.';
        if (nd > 1) {
            for (int i = 1; i < nd; i++)
                buf[o++] = digits[i];
        } else {
            buf[o++] = '0';
        }
        snprintf(buf + o, sizeof(buf) - o, "E%d", exp10);
    }
    snprintf(out, outlen, "%s", buf);
}

int sc_stat_parse(const char *s, int basic, struct sc_stat *out)
{
    static const struct {
        const char *name;
        enum sc_stat_kind kind;
    } names[] = {
        { "SampleCount", SC_STAT_SAMPLE_COUNT }, { "Sum", SC_STAT_SUM },
        { "Minimum", SC_STAT_MINIMUM },          { "Maximum", SC_STAT_MAXIMUM },
        { "Average", SC_STAT_AVERAGE },
    };
    const char *p;
    int ndig = 0, nfrac = 0;
    double v = 0, scale = 1;

    if (!s || strlen(s) >= sizeof(out->name))
        return -1;
    memset(out, 0, sizeof(*out));
    if (basic) {
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            if (strcmp(s, names[i].name) == 0) {
                out->kind = names[i].kind;
                snprintf(out->name, sizeof(out->name), "%s", s);
                return 0;
            }
        }
        return -1;
    }
    if (s[0] != 'p')
        return -1;
    p = s + 1;
    for (; *p >= '0' && *p <= '9'; p++, ndig++)
        v = v * 10 + (*p - '0');
    if (ndig == 0 || ndig > 3)
        return -1;
    if (*p == '.') {
        p++;
        for (; *p >= '0' && *p <= '9'; p++, nfrac++) {
            scale /= 10;
            v += (*p - '0') * scale;
        }
        if (nfrac == 0 || nfrac > 2)
            return -1;
    }
    if (*p || v > 100)
        return -1;
    out->kind = SC_STAT_PERCENTILE;
    out->pct = v;
    snprintf(out->name, sizeof(out->name), "%s", s);
    return 0;
}

int sc_agg_value(const struct sc_agg *a, const struct sc_stat *st, int pct_index, double *out)
{
    switch (st->kind) {
    case SC_STAT_SAMPLE_COUNT:
        *out = a->sample_count;
        return 0;
    case SC_STAT_SUM:
        *out = a->sum;
        return 0;
    case SC_STAT_MINIMUM:
        *out = a->minimum;
        return 0;
    case SC_STAT_MAXIMUM:
        *out = a->maximum;
        return 0;
    case SC_STAT_AVERAGE:
        *out = a->sample_count > 0 ? a->sum / a->sample_count : 0;
        return 0;
    case SC_STAT_PERCENTILE:
        if (pct_index < 0 || pct_index >= SC_METRIC_MAX_PERCENTILES || !a->pct_ok ||
            !a->pct_valid[pct_index])
            return -1;
        *out = a->pct[pct_index];
        return 0;
    }
    return -1;
}

void sc_metric_config_defaults(struct sc_metric_config *c)
{
    c->hires_slots = 3 * 3600;
    c->minute_slots = 26 * 60;
    c->hour_slots = 15 * 24;
    c->dist_slots = 3 * 60;
    c->expire_ms = 15LL * 86400 * 1000;
    c->max_series = SC_METRIC_DEFAULT_MAX_SERIES;
}

void sc_metric_config_aws(struct sc_metric_config *c)
{
    sc_metric_config_defaults(c);
    c->minute_slots = 15 * 24 * 60;
    c->hour_slots = 455 * 24;
    c->expire_ms = 455LL * 86400 * 1000;
}

/* --- rings ------------------------------------------------------------------------------ */

/* The arrays of a ring's block (summaries first: they need 8-byte alignment) and of a
 * distribution's. */
static const size_t ring_sizes[] = { sizeof(struct sum), sizeof(uint32_t), sizeof(uint8_t) };
static const size_t dist_sizes[] = { sizeof(uint32_t), sizeof(float) * DIST_BINS };
#define NSIZES(a) ((int)(sizeof(a) / sizeof((a)[0])))

static size_t per_slot(const size_t *sz, int nsz)
{
    size_t per = 0;

    for (int i = 0; i < nsz; i++)
        per += sz[i];
    return per;
}

/* Array i of a block with room for cap slots. */
static unsigned char *win_array(unsigned char *block, int cap, const size_t *sz, int i)
{
    size_t off = 0;

    for (int j = 0; j < i; j++)
        off += sz[j];
    return block + (size_t)cap * off;
}

/* Gives w's block room for cap entries (cap > w->cap), in place when realloc can: each
 * array moves to its new offset (the last first: they only move up), and a window that
 * wrapped past the old end gets its first part moved to the new end. The new room is not
 * touched (win_cover marks entries empty as the window takes them). Returns 0, or -1 on OOM (w
 * unchanged). */
static int win_grow(struct win *w, int cap, const size_t *sz, int nsz, size_t *bytes)
{
    int old = w->cap, wraps = w->head + w->len > old, part = old - w->head;
    unsigned char *nb = realloc(w->block, (size_t)cap * per_slot(sz, nsz));

    if (!nb)
        return -1;
    for (int i = nsz - 1; i >= 0; i--) {
        unsigned char *to = win_array(nb, cap, sz, i);
        memmove(to, win_array(nb, old, sz, i), (size_t)old * sz[i]);
        if (wraps)
            memmove(to + (size_t)(cap - part) * sz[i], to + (size_t)w->head * sz[i],
                    (size_t)part * sz[i]);
    }
    if (wraps)
        w->head = cap - part;
    *bytes += (size_t)(cap - old) * per_slot(sz, nsz);
    w->block = nb;
    w->cap = cap;
    return 0;
}

/* Marks the window's slots k0 .. k0+count-1 empty: their stamps (array stamp_i, uint32_t)
 * zero. The rest of an entry is set when its slot is made current. */
static void win_clear(struct win *w, int k0, int count, const size_t *sz, int stamp_i)
{
    uint32_t *stamp = (uint32_t *)win_array(w->block, w->cap, sz, stamp_i);

    for (int k = k0; k < k0 + count; k++)
        stamp[metric_win_at(w, k)] = 0;
}

/* Extends w to hold slot (empty, outside the window), toward the nearer side, doubling its
 * room (up to n) when the window outgrows it; the slots it takes are marked empty. Returns
 * the slot's entry, or -1 on OOM (w unchanged). */
static int win_cover(struct win *w, int slot, const size_t *sz, int nsz, int stamp_i, size_t *bytes)
{
    int front = 0, len = w->len + 1, old = w->len;

    if (w->len > 0) {
        int back = slot - (w->lo + w->len - 1), before = w->lo - slot;
        if (back < 0)
            back += w->n;
        if (before < 0)
            before += w->n;
        if (back <= before) {
            len = w->len + back;
        } else {
            front = before;
            len = w->len + before;
        }
    }
    if (len > w->cap) {
        int cap = w->cap * 2 > len ? w->cap * 2 : len;
        if (win_grow(w, cap < w->n ? cap : w->n, sz, nsz, bytes) < 0)
            return -1;
    }
    w->head = (w->head - front + w->cap) % w->cap;
    w->lo = w->len > 0 ? (w->lo - front + w->n) % w->n : slot;
    w->len = len;
    if (front > 0)
        win_clear(w, 0, front, sz, stamp_i);
    else
        win_clear(w, old, len - old, sz, stamp_i);
    return metric_win_find(w, slot);
}

static void win_cleanup(struct win *w)
{
    free(w->block);
    memset(w, 0, sizeof(*w));
}

static void ring_arrays(struct ring *r)
{
    r->s = (struct sum *)win_array(r->w.block, r->w.cap, ring_sizes, 0);
    r->stamp = (uint32_t *)win_array(r->w.block, r->w.cap, ring_sizes, 1);
    r->flags = win_array(r->w.block, r->w.cap, ring_sizes, 2);
}

void metric_ring_init(struct ring *r, int n, int res_s)
{
    memset(r, 0, sizeof(*r));
    r->w.n = n;
    r->res_s = res_s;
}

void metric_ring_cleanup(struct ring *r)
{
    win_cleanup(&r->w);
    memset(r, 0, sizeof(*r));
}

int64_t metric_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* The entry for period index idx after making it current (a slot holding an older period is
 * reset); -1 when the slot already holds a newer period (idx is past retention). */
int metric_ring_slot(struct ring *r, int64_t idx, size_t *bytes)
{
    int slot, k;
    uint32_t st;

    if (idx < 0 || idx >= (int64_t)UINT32_MAX - 1)
        return -1;
    slot = (int)(idx % r->w.n);
    st = (uint32_t)(idx + 1);
    k = metric_win_find(&r->w, slot);
    if (k < 0) {
        k = win_cover(&r->w, slot, ring_sizes, NSIZES(ring_sizes), 1, bytes);
        if (k < 0)
            return -2;
        ring_arrays(r);
    }
    if (r->stamp[k] == st)
        return k;
    if (r->stamp[k] > st)
        return -1;
    r->stamp[k] = st;
    r->s[k].count = 0;
    r->s[k].sum = 0;
    r->s[k].min = 0;
    r->s[k].max = 0;
    r->flags[k] = 0;
    return k;
}

static void dist_arrays(struct dist *d)
{
    d->stamp = (uint32_t *)win_array(d->w.block, d->w.cap, dist_sizes, 0);
    d->bins = (float(*)[DIST_BINS])win_array(d->w.block, d->w.cap, dist_sizes, 1);
}

void metric_dist_init(struct dist *d, int n)
{
    memset(d, 0, sizeof(*d));
    d->w.n = n;
}

void metric_dist_cleanup(struct dist *d)
{
    win_cleanup(&d->w);
    memset(d, 0, sizeof(*d));
}

int metric_dist_slot(struct dist *d, int64_t idx, size_t *bytes)
{
    int slot, k;
    uint32_t st;

    if (idx < 0 || idx >= (int64_t)UINT32_MAX - 1)
        return -1;
    slot = (int)(idx % d->w.n);
    st = (uint32_t)(idx + 1);
    k = metric_win_find(&d->w, slot);
    if (k < 0) {
        k = win_cover(&d->w, slot, dist_sizes, NSIZES(dist_sizes), 0, bytes);
        if (k < 0)
            return -2;
        dist_arrays(d);
    }
    if (d->stamp[k] == st)
        return k;
    if (d->stamp[k] > st)
        return -1;
    d->stamp[k] = st;
    memset(d->bins[k], 0, sizeof(d->bins[k]));
    return k;
}

void metric_sum_add(struct sum *s, double count, double sum, double min, double max)
{
    if (s->count == 0) {
        s->min = min;
        s->max = max;
    } else {
        if (min < s->min)
            s->min = min;
        if (max > s->max)
            s->max = max;
    }
    s->count += count;
    s->sum += sum;
}

int metric_dist_bin(const struct sc_metric *m, double v)
{
    double b;

    if (v <= 0)
        return 0;
    b = (log2(v) - m->anchor) * DIST_PER_OCTAVE;
    if (b < 0)
        return 1;
    if (b >= DIST_BINS - 2)
        return DIST_BINS - 1;
    return 1 + (int)b;
}

double metric_bin_low(const struct sc_metric *m, int b)
{
    return exp2(m->anchor + (double)(b - 1) / DIST_PER_OCTAVE);
}

/* --- metrics ---------------------------------------------------------------------------- */

static int dim_cmp(const struct sc_dimension *a, const struct sc_dimension *b)
{
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->value, b->value);
}

void metric_sort_dims(const struct sc_dimension *dims, int n, struct sorted_dims *out)
{
    out->n = n;
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j > 0 && dim_cmp(out->d[j - 1], &dims[i]) > 0) {
            out->d[j] = out->d[j - 1];
            j--;
        }
        out->d[j] = &dims[i];
    }
}

uint64_t metric_key_hash(const char *ns, const char *name, const struct sorted_dims *sd)
{
    uint64_t h = SC_HASH_FNV1A_BASIS;

    h = sc_hash_fnv1a_field(h, ns);
    h = sc_hash_fnv1a_field(h, name);
    for (int i = 0; i < sd->n; i++) {
        h = sc_hash_fnv1a_field(h, sd->d[i]->name);
        h = sc_hash_fnv1a_field(h, sd->d[i]->value);
    }
    return h;
}

static int key_equal(const struct sc_metric *m, uint64_t h, const char *ns, const char *name,
                     const struct sorted_dims *sd)
{
    if (m->hash != h || m->ndims != sd->n || strcmp(m->name, name) != 0 || strcmp(m->ns, ns) != 0)
        return 0;
    for (int i = 0; i < sd->n; i++) {
        if (strcmp(m->dims[i].name, sd->d[i]->name) != 0 ||
            strcmp(m->dims[i].value, sd->d[i]->value) != 0)
            return 0;
    }
    return 1;
}

struct sc_metric *metric_lookup(const struct sc_metric_store *s, uint64_t h, const char *ns,
                                const char *name, const struct sorted_dims *sd)
{
    struct sc_metric *m;

    for (m = s->table[h & (s->table_n - 1)]; m; m = m->next)
        if (key_equal(m, h, ns, name, sd))
            return m;
    return NULL;
}

void metric_series_free(struct series *se)
{
    if (!se)
        return;
    metric_ring_cleanup(&se->hires);
    metric_ring_cleanup(&se->minute);
    metric_ring_cleanup(&se->hour);
    metric_dist_cleanup(&se->dist);
    free(se);
}

size_t metric_series_bytes(const struct series *se)
{
    size_t per = per_slot(ring_sizes, NSIZES(ring_sizes));

    return sizeof(*se) + per * (size_t)(se->hires.w.cap + se->minute.w.cap + se->hour.w.cap) +
           per_slot(dist_sizes, NSIZES(dist_sizes)) * (size_t)se->dist.w.cap;
}

void metric_free(struct sc_metric *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->nseries; i++)
        metric_series_free(m->series[i]);
    free(m);
}

int metric_table_grow(struct sc_metric_store *s)
{
    size_t nn = s->table_n ? s->table_n * 2 : 1024;
    struct sc_metric **t = calloc(nn, sizeof(*t));

    if (!t)
        return -1;
    for (size_t i = 0; i < s->table_n; i++) {
        struct sc_metric *m = s->table[i], *next;
        for (; m; m = next) {
            next = m->next;
            m->next = t[m->hash & (nn - 1)];
            t[m->hash & (nn - 1)] = m;
        }
    }
    s->bytes += (nn - s->table_n) * sizeof(*t);
    free(s->table);
    s->table = t;
    s->table_n = nn;
    return 0;
}

struct sc_metric *metric_new(struct sc_metric_store *s, uint64_t h, const char *ns,
                             const char *name, const struct sorted_dims *sd)
{
    struct sc_metric *m = NULL;
    size_t len = strlen(ns) + strlen(name) + 2, off = 0;

    if ((size_t)s->nlist + 1 > s->table_n && metric_table_grow(s) < 0)
        return NULL;
    if (s->nlist == s->caplist) {
        int nc = s->caplist ? s->caplist * 2 : 256;
        struct sc_metric **l = realloc(s->list, (size_t)nc * sizeof(*l));
        if (!l)
            return NULL;
        s->bytes += (size_t)(nc - s->caplist) * sizeof(*l);
        s->list = l;
        s->caplist = nc;
    }
    for (int i = 0; i < sd->n; i++)
        len += strlen(sd->d[i]->name) + strlen(sd->d[i]->value) + 2;
    /* one allocation: the struct, then the dimensions, then the strings */
    m = calloc(1, sizeof(*m) + (size_t)sd->n * sizeof(*m->dims) + len);
    if (!m)
        goto fail;
    m->dims = (struct sc_dimension *)(m + 1);
    m->blob = (char *)(m->dims + sd->n);
#define COPY(dst, src)                                                                             \
    do {                                                                                           \
        size_t l_ = strlen(src) + 1;                                                               \
        memcpy(m->blob + off, src, l_);                                                            \
        dst = m->blob + off;                                                                       \
        off += l_;                                                                                 \
    } while (0)
    COPY(m->ns, ns);
    COPY(m->name, name);
    for (int i = 0; i < sd->n; i++) {
        COPY(m->dims[i].name, sd->d[i]->name);
        COPY(m->dims[i].value, sd->d[i]->value);
    }
#undef COPY
    m->ndims = sd->n;
    m->hash = h;
    m->next = s->table[h & (s->table_n - 1)];
    s->table[h & (s->table_n - 1)] = m;
    s->list[s->nlist++] = m;
    s->gen++;
    m->own_bytes = sizeof(*m) + len + (size_t)sd->n * sizeof(*m->dims);
    s->bytes += m->own_bytes;
    return m;

fail:
    metric_free(m);
    return NULL;
}

struct series *metric_series_ensure(struct sc_metric_store *s, struct sc_metric *m, enum sc_unit u)
{
    struct series *se;
    int i;

    for (i = 0; i < m->nseries; i++) {
        if (m->series[i]->unit == u)
            return m->series[i];
        if (m->series[i]->unit > u)
            break;
    }
    se = calloc(1, sizeof(*se));
    if (!se)
        return NULL;
    se->unit = u;
    se->last_ts_ms = INT64_MIN;
    /* nothing held yet: each tier grows as periods get data */
    metric_ring_init(&se->minute, s->cfg.minute_slots, 60);
    metric_ring_init(&se->hour, s->cfg.hour_slots, 3600);
    metric_dist_init(&se->dist, s->cfg.dist_slots);
    s->bytes += sizeof(*se);
    s->nseries++;
    memmove(&m->series[i + 1], &m->series[i], (size_t)(m->nseries - i) * sizeof(m->series[0]));
    m->series[i] = se;
    m->nseries++;
    m->late_ver++;
    return se;
}
