/* scaler/metric.c: see metric.h. */
#include "scaler/metric.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIST_BINS         128
#define DIST_PER_OCTAVE   8
#define DIST_HALF_OCTAVES 8
#define FLAG_NO_PCT       1u
#define TWO_WEEKS_MS      (14LL * 86400 * 1000)
#define TWO_HOURS_MS      (2LL * 3600 * 1000)

static const char *const unit_names[SC_UNIT_COUNT_] = {
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

struct sum {
    double count, sum, min, max;
};

/* A ring of epoch-aligned summaries; slot i holds period index stamp[i]-1 (0 = empty). */
struct ring {
    int n;
    int res_s;
    struct sum *s;
    uint32_t *stamp;
    uint8_t *flags;
};

/* Minute histograms for minutes whose values differ. */
struct dist {
    int n;
    uint32_t *stamp;
    float (*bins)[DIST_BINS];
};

struct series {
    enum sc_unit unit;
    struct ring hires; /* n == 0 until the first StorageResolution=1 datum */
    struct ring minute;
    struct ring hour;
    struct dist *dist; /* NULL until a minute holds two different values */
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
    size_t bytes;
    uint64_t gen; /* sc_metric_store_generation(): changes when a metric comes or goes */
};

/* Generations of all stores are distinct: each store starts at its own multiple of 2^32. */
static _Atomic uint64_t store_gen_base;

/* --- small helpers --------------------------------------------------------------------- */

const char *sc_unit_name(enum sc_unit u)
{
    if (u < 0 || u >= SC_UNIT_COUNT_)
        return NULL;
    return unit_names[u];
}

int sc_unit_parse(const char *s, enum sc_unit *out)
{
    if (!s)
        return -1;
    for (int i = 0; i < SC_UNIT_COUNT_; i++) {
        if (s[0] == unit_names[i][0] && strcmp(s, unit_names[i]) == 0) {
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
}

void sc_metric_config_aws(struct sc_metric_config *c)
{
    sc_metric_config_defaults(c);
    c->minute_slots = 15 * 24 * 60;
    c->hour_slots = 455 * 24;
    c->expire_ms = 455LL * 86400 * 1000;
}

/* --- rings ------------------------------------------------------------------------------ */

static int ring_init(struct ring *r, int n, int res_s, size_t *bytes)
{
    r->n = n;
    r->res_s = res_s;
    r->s = calloc((size_t)n, sizeof(*r->s));
    r->stamp = calloc((size_t)n, sizeof(*r->stamp));
    r->flags = calloc((size_t)n, sizeof(*r->flags));
    if (!r->s || !r->stamp || !r->flags)
        return -1;
    *bytes += (size_t)n * (sizeof(*r->s) + sizeof(*r->stamp) + sizeof(*r->flags));
    return 0;
}

static void ring_cleanup(struct ring *r)
{
    free(r->s);
    free(r->stamp);
    free(r->flags);
    memset(r, 0, sizeof(*r));
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* The slot for period index idx after making it current (a slot holding an older period is
 * reset); -1 when the slot already holds a newer period (idx is past retention). */
static int ring_slot(struct ring *r, int64_t idx)
{
    int slot;
    uint32_t st;

    if (idx < 0 || idx >= (int64_t)UINT32_MAX - 1)
        return -1;
    slot = (int)(idx % r->n);
    st = (uint32_t)(idx + 1);
    if (r->stamp[slot] == st)
        return slot;
    if (r->stamp[slot] > st)
        return -1;
    r->stamp[slot] = st;
    r->s[slot].count = 0;
    r->s[slot].sum = 0;
    r->s[slot].min = 0;
    r->s[slot].max = 0;
    r->flags[slot] = 0;
    return slot;
}

static void sum_add(struct sum *s, double count, double sum, double min, double max)
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

static int dist_bin(const struct sc_metric *m, double v)
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

static double bin_low(const struct sc_metric *m, int b)
{
    return exp2(m->anchor + (double)(b - 1) / DIST_PER_OCTAVE);
}

/* --- metrics ---------------------------------------------------------------------------- */

struct sorted_dims {
    int n;
    const struct sc_dimension *d[SC_METRIC_MAX_DIMENSIONS];
};

static int dim_cmp(const struct sc_dimension *a, const struct sc_dimension *b)
{
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->value, b->value);
}

static void sort_dims(const struct sc_dimension *dims, int n, struct sorted_dims *out)
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

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    h ^= 0xff;
    h *= 1099511628211ULL;
    return h;
}

static uint64_t key_hash(const char *ns, const char *name, const struct sorted_dims *sd)
{
    uint64_t h = 14695981039346656037ULL;

    h = fnv(h, ns);
    h = fnv(h, name);
    for (int i = 0; i < sd->n; i++) {
        h = fnv(h, sd->d[i]->name);
        h = fnv(h, sd->d[i]->value);
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

static struct sc_metric *lookup(const struct sc_metric_store *s, uint64_t h, const char *ns,
                                const char *name, const struct sorted_dims *sd)
{
    struct sc_metric *m;

    for (m = s->table[h & (s->table_n - 1)]; m; m = m->next)
        if (key_equal(m, h, ns, name, sd))
            return m;
    return NULL;
}

static void series_free(struct series *se)
{
    if (!se)
        return;
    ring_cleanup(&se->hires);
    ring_cleanup(&se->minute);
    ring_cleanup(&se->hour);
    if (se->dist) {
        free(se->dist->stamp);
        free(se->dist->bins);
        free(se->dist);
    }
    free(se);
}

static size_t series_bytes(const struct series *se)
{
    size_t per = sizeof(struct sum) + sizeof(uint32_t) + 1;
    size_t b = sizeof(*se) + per * (size_t)(se->hires.n + se->minute.n + se->hour.n);

    if (se->dist)
        b += (size_t)se->dist->n * (sizeof(uint32_t) + sizeof(float) * DIST_BINS);
    return b;
}

static void metric_free(struct sc_metric *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->nseries; i++)
        series_free(m->series[i]);
    free(m);
}

static int table_grow(struct sc_metric_store *s)
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

static struct sc_metric *metric_new(struct sc_metric_store *s, uint64_t h, const char *ns,
                                    const char *name, const struct sorted_dims *sd)
{
    struct sc_metric *m = NULL;
    size_t len = strlen(ns) + strlen(name) + 2, off = 0;

    if ((size_t)s->nlist + 1 > s->table_n && table_grow(s) < 0)
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

static struct series *series_get(struct sc_metric_store *s, struct sc_metric *m, enum sc_unit u)
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
    if (ring_init(&se->minute, s->cfg.minute_slots, 60, &s->bytes) < 0 ||
        ring_init(&se->hour, s->cfg.hour_slots, 3600, &s->bytes) < 0) {
        series_free(se);
        return NULL;
    }
    s->bytes += sizeof(*se);
    memmove(&m->series[i + 1], &m->series[i], (size_t)(m->nseries - i) * sizeof(m->series[0]));
    m->series[i] = se;
    m->nseries++;
    m->late_ver++;
    return se;
}

/* --- store ------------------------------------------------------------------------------ */

struct sc_metric_store *sc_metric_store_create(const struct sc_metric_config *cfg)
{
    struct sc_metric_store *s = calloc(1, sizeof(*s));

    if (!s)
        return NULL;
    if (cfg)
        s->cfg = *cfg;
    else
        sc_metric_config_defaults(&s->cfg);
    if (s->cfg.hires_slots < 1 || s->cfg.minute_slots < 1 || s->cfg.hour_slots < 1 ||
        s->cfg.dist_slots < 1 || s->cfg.expire_ms <= 0 || table_grow(s) < 0) {
        sc_metric_store_destroy(s);
        return NULL;
    }
    s->bytes += sizeof(*s);
    s->gen = (++store_gen_base) << 32;
    return s;
}

uint64_t sc_metric_store_generation(const struct sc_metric_store *s)
{
    return s->gen;
}

void sc_metric_store_destroy(struct sc_metric_store *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nlist; i++)
        metric_free(s->list[i]);
    free(s->list);
    free(s->table);
    free(s);
}

size_t sc_metric_store_bytes(const struct sc_metric_store *s)
{
    return s->bytes;
}

/* Adds (v, weight) to a minute slot's distribution. was_uniform: the slot held only the
 * value prev (with prev_count samples) before. */
static void dist_add(struct sc_metric_store *s, struct sc_metric *m, struct series *se, int64_t idx,
                     int was_uniform, double prev, double prev_count, double v, double w)
{
    struct dist *d = se->dist;
    int slot;

    if (!d) {
        d = calloc(1, sizeof(*d));
        if (!d)
            return;
        d->n = s->cfg.dist_slots;
        d->stamp = calloc((size_t)d->n, sizeof(*d->stamp));
        d->bins = calloc((size_t)d->n, sizeof(*d->bins));
        if (!d->stamp || !d->bins) {
            free(d->stamp);
            free(d->bins);
            free(d);
            return;
        }
        se->dist = d;
        s->bytes += sizeof(*d) + (size_t)d->n * (sizeof(*d->stamp) + sizeof(*d->bins));
    }
    slot = (int)(idx % d->n);
    if (was_uniform) {
        if (d->stamp[slot] > (uint32_t)(idx + 1))
            return;
        d->stamp[slot] = (uint32_t)(idx + 1);
        memset(d->bins[slot], 0, sizeof(d->bins[slot]));
        d->bins[slot][dist_bin(m, prev)] += (float)prev_count;
    } else if (d->stamp[slot] != (uint32_t)(idx + 1)) {
        return; /* lost: the minute keeps no percentile (see aggregate) */
    }
    d->bins[slot][dist_bin(m, v)] += (float)w;
}

/* Records count samples of value v (or a statistic set when is_set). */
static void record(struct sc_metric_store *s, struct sc_metric *m, struct series *se, int64_t ts_ms,
                   int hires, double count, double sum, double min, double max, int is_set)
{
    int64_t ts_s = floor_div(ts_ms, 1000);
    int no_pct = min < 0 || (is_set && count != 1 && min != max);
    int slot;

    if (!m->has_anchor && max > 0) {
        double pos = min > 0 ? min : max;
        m->anchor = (int)floor(log2(pos)) - DIST_HALF_OCTAVES;
        m->has_anchor = 1;
    }
    if (hires && se->hires.n) {
        slot = ring_slot(&se->hires, ts_s);
        if (slot >= 0) {
            sum_add(&se->hires.s[slot], count, sum, min, max);
            if (no_pct)
                se->hires.flags[slot] |= FLAG_NO_PCT;
        }
    }
    slot = ring_slot(&se->hour, floor_div(ts_s, 3600));
    if (slot >= 0) {
        sum_add(&se->hour.s[slot], count, sum, min, max);
        if (no_pct)
            se->hour.flags[slot] |= FLAG_NO_PCT;
    }
    slot = ring_slot(&se->minute, floor_div(ts_s, 60));
    if (slot >= 0) {
        struct sum *sm = &se->minute.s[slot];
        double pc = sm->count, pmin = sm->min, pmax = sm->max;
        sum_add(sm, count, sum, min, max);
        if (no_pct) {
            se->minute.flags[slot] |= FLAG_NO_PCT;
        } else if (!(se->minute.flags[slot] & FLAG_NO_PCT) && pc > 0 &&
                   !(pmin == pmax && pmin == min && min == max)) {
            dist_add(s, m, se, floor_div(ts_s, 60), pmin == pmax, pmin, pc, min, count);
        }
    }
    if (floor_div(ts_s, 60) < floor_div(se->last_ts_ms, 60000))
        m->late_ver++;
    if (ts_ms > se->last_ts_ms)
        se->last_ts_ms = ts_ms;
    if (ts_ms > m->last_ts_ms)
        m->last_ts_ms = ts_ms;
}

static int finite_in_range(double v)
{
    return isfinite(v) && fabs(v) <= 0x1p360;
}

static enum sc_status bad_value(struct sc_error *err, double v, const char *param)
{
    char num[40];

    sc_java_double(v, num, sizeof(num));
    return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "The value %s for parameter %s is invalid.",
                   num, param);
}

static int printable_ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            return 0;
    return 1;
}

static const char *prefix(char *buf, size_t n, int i)
{
    if (!buf[0])
        snprintf(buf, n, "MetricData.member.%d", i);
    return buf;
}

static enum sc_status validate_datum(const struct sc_metric_datum *d, int i, int64_t now_ms,
                                     enum sc_unit *unit_out, struct sc_error *err)
{
    char pbuf[64], q[128];
    enum sc_unit u;
    int nkind;

    pbuf[0] = 0; /* the "MetricData.member.N" prefix, formatted only for an error */
#define MEMBER prefix(pbuf, sizeof(pbuf), i)
    if (!d->metric_name || !*d->metric_name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter %s.MetricName is required.",
                       MEMBER);
    if (strlen(d->metric_name) > SC_METRIC_NAME_MAX)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%s' at 'metricData.%d.member.metricName' "
            "failed to satisfy constraint: Member must have length less than or equal "
            "to 255",
            d->metric_name, i);
    if (d->n_dimensions < 0 || d->n_dimensions > SC_METRIC_MAX_DIMENSIONS)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection %s.Dimensions must not have a size greater than 30.",
                       MEMBER);
    for (int j = 0; j < d->n_dimensions; j++) {
        const struct sc_dimension *dm = &d->dimensions[j];
        if (!dm->name || !*dm->name)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter %s.Dimensions.member.%d.Name is required.", MEMBER,
                           j + 1);
        if (!dm->value || !*dm->value)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter %s.Dimensions.member.%d.Value is required.", MEMBER,
                           j + 1);
        if (strlen(dm->name) > 255 || strlen(dm->value) > 1024)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "The parameter %s.Dimensions.member.%d is too long.", MEMBER, j + 1);
        for (int k = 0; k < j; k++)
            if (strcmp(d->dimensions[k].name, dm->name) == 0)
                return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                               "No Metric Dimension names may be repeated. %s.Dimensions.member.%d "
                               "repeats %s.",
                               MEMBER, j + 1, dm->name);
    }
    nkind = (d->has_value != 0) + (d->values != NULL || d->n_values > 0) +
            (d->has_statistic_values != 0);
    if (nkind == 0)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "At least one of the parameters %s.Value, %s.Values or %s.StatisticValues "
                       "must be specified.",
                       MEMBER, MEMBER, MEMBER);
    if (d->has_value && d->has_statistic_values)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "The parameters %s.Value and %s.StatisticValues are mutually exclusive and "
                       "you have specified both.",
                       MEMBER, MEMBER);
    if (nkind > 1 && d->has_value)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "The parameters %s.Value and %s.Values are mutually exclusive and you have "
                       "specified both.",
                       MEMBER, MEMBER);
    if (nkind > 1)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "The parameters %s.Values and %s.StatisticValues are mutually exclusive and "
                       "you have specified both.",
                       MEMBER, MEMBER);
    if (d->has_value && !finite_in_range(d->value)) {
        snprintf(q, sizeof(q), "%s.Value", MEMBER);
        return bad_value(err, d->value, q);
    }
    if (d->values || d->n_values > 0) {
        if (d->n_values < 1 || !d->values)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter %s.Values is required.",
                           MEMBER);
        if (d->n_values > SC_METRIC_MAX_VALUES)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "The collection %s.Values must not have a size greater than 150.",
                           MEMBER);
        if (d->counts && d->n_counts != d->n_values)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "The parameters %s.Values and %s.Counts must be of the same size.",
                           MEMBER, MEMBER);
        for (int j = 0; j < d->n_values; j++) {
            if (!finite_in_range(d->values[j])) {
                snprintf(q, sizeof(q), "%s.Values.member.%d", MEMBER, j + 1);
                return bad_value(err, d->values[j], q);
            }
            if (d->counts && (!finite_in_range(d->counts[j]) || d->counts[j] < 0)) {
                snprintf(q, sizeof(q), "%s.Counts.member.%d", MEMBER, j + 1);
                return bad_value(err, d->counts[j], q);
            }
        }
    }
    if (d->has_statistic_values) {
        const struct sc_statistic_set *ss = &d->statistic_values;
        static const char *const fields[] = { "Maximum", "Minimum", "SampleCount", "Sum" };
        const int has[] = { ss->has_maximum, ss->has_minimum, ss->has_sample_count, ss->has_sum };
        const double val[] = { ss->maximum, ss->minimum, ss->sample_count, ss->sum };
        for (int j = 0; j < 4; j++) {
            if (!has[j])
                return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                               "The parameter %s.StatisticValues.%s is required.", MEMBER,
                               fields[j]);
            if (!finite_in_range(val[j])) {
                snprintf(q, sizeof(q), "%s.StatisticValues.%s", MEMBER, fields[j]);
                return bad_value(err, val[j], q);
            }
        }
        if (ss->maximum < ss->minimum)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "The parameter %s.StatisticValues.Maximum must be greater than "
                           "%s.StatisticValues.Minimum.",
                           MEMBER, MEMBER);
        if (ss->sample_count <= 0)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "The parameter %s.StatisticValues.SampleCount must be greater than 0.",
                           MEMBER);
    }
    u = SC_UNIT_NONE;
    if (d->unit && sc_unit_parse(d->unit, &u) < 0) {
        char set[512];
        size_t o = 0;
        for (int j = 0; j < SC_UNIT_COUNT_ && o < sizeof(set); j++)
            o += (size_t)snprintf(set + o, sizeof(set) - o, "%s%s", j ? ", " : "", unit_names[j]);
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter %s.Unit must be a value in the set [%s].", MEMBER, set);
    }
    if (d->storage_resolution != 0 && d->storage_resolution != 1 && d->storage_resolution != 60)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter %s.StorageResolution must be either 1 or 60.", MEMBER);
    if (d->has_timestamp &&
        (d->timestamp_ms < now_ms - TWO_WEEKS_MS || d->timestamp_ms > now_ms + TWO_HOURS_MS))
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter %s.Timestamp must specify a time within the past two weeks.",
                       MEMBER);
    *unit_out = u;
    return SC_OK;
}
#undef MEMBER

static enum sc_status validate_namespace(const char *ns, int internal, struct sc_error *err)
{
    if (!ns || !*ns)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter Namespace is required.");
    if (strlen(ns) > 255)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'namespace' failed to satisfy "
                       "constraint: Member must have length less than or equal to 255",
                       ns);
    if (ns[0] == ':' || !printable_ascii(ns))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'namespace' failed to satisfy "
                       "constraint: Member must satisfy regular expression pattern: [^:].*",
                       ns);
    if (!internal && strncmp(ns, "AWS/", 4) == 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The value AWS/ for parameter Namespace is invalid.");
    return SC_OK;
}

enum sc_status sc_metric_store_put(struct sc_metric_store *s,
                                   const struct sc_put_metric_data_req *req, int64_t now_ms,
                                   struct sc_error *err)
{
    enum sc_unit units[SC_METRIC_MAX_DATA];
    enum sc_status st;

    st = validate_namespace(req->namespace, req->internal, err);
    if (st != SC_OK)
        return st;
    if (req->n_metric_data < 1 || !req->metric_data)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter MetricData is required.");
    if (req->n_metric_data > SC_METRIC_MAX_DATA)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection MetricData must not have a size greater than 1000.");
    for (int i = 0; i < req->n_metric_data; i++) {
        st = validate_datum(&req->metric_data[i], i + 1, now_ms, &units[i], err);
        if (st != SC_OK)
            return st;
    }
    for (int i = 0; i < req->n_metric_data; i++) {
        const struct sc_metric_datum *d = &req->metric_data[i];
        struct sorted_dims sd;
        struct sc_metric *m;
        struct series *se;
        enum sc_unit u = units[i];
        int64_t ts = d->has_timestamp ? d->timestamp_ms : now_ms;
        int hires = d->storage_resolution == 1;
        uint64_t h;

        sort_dims(d->dimensions, d->n_dimensions, &sd);
        h = key_hash(req->namespace, d->metric_name, &sd);
        m = lookup(s, h, req->namespace, d->metric_name, &sd);
        if (!m)
            m = metric_new(s, h, req->namespace, d->metric_name, &sd);
        if (!m)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        se = series_get(s, m, u);
        if (!se)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        if (hires && se->hires.n == 0) {
            if (ring_init(&se->hires, s->cfg.hires_slots, 1, &s->bytes) < 0) {
                ring_cleanup(&se->hires);
                hires = 0;
            }
        }
        if (d->has_value) {
            record(s, m, se, ts, hires, 1, d->value, d->value, d->value, 0);
        } else if (d->has_statistic_values) {
            const struct sc_statistic_set *ss = &d->statistic_values;
            record(s, m, se, ts, hires, ss->sample_count, ss->sum, ss->minimum, ss->maximum, 1);
        } else {
            for (int j = 0; j < d->n_values; j++) {
                double c = d->counts ? d->counts[j] : 1;
                double v = d->values[j];
                if (c > 0)
                    record(s, m, se, ts, hires, c, v * c, v, v, 0);
            }
        }
    }
    return SC_OK;
}

int sc_metric_store_expire(struct sc_metric_store *s, int64_t now_ms)
{
    int freed = 0, w = 0;

    for (int i = 0; i < s->nlist; i++) {
        struct sc_metric *m = s->list[i];
        int k = 0;
        for (int j = 0; j < m->nseries; j++) {
            if (now_ms - m->series[j]->last_ts_ms > s->cfg.expire_ms) {
                s->bytes -= series_bytes(m->series[j]);
                series_free(m->series[j]);
            } else {
                m->series[k++] = m->series[j];
            }
        }
        if (k != m->nseries)
            m->late_ver++;
        m->nseries = k;
        if (k == 0) {
            struct sc_metric **pp = &s->table[m->hash & (s->table_n - 1)];
            while (*pp != m)
                pp = &(*pp)->next;
            *pp = m->next;
            s->bytes -= m->own_bytes;
            metric_free(m);
            s->gen++;
            freed++;
        } else {
            s->list[w++] = m;
        }
    }
    s->nlist = w;
    return freed;
}

const struct sc_metric *sc_metric_store_find(const struct sc_metric_store *s,
                                             const struct sc_metric_key *key)
{
    struct sorted_dims sd;

    if (!key->namespace || !key->metric_name || key->n_dimensions < 0 ||
        key->n_dimensions > SC_METRIC_MAX_DIMENSIONS)
        return NULL;
    for (int i = 0; i < key->n_dimensions; i++)
        if (!key->dimensions[i].name || !key->dimensions[i].value)
            return NULL;
    sort_dims(key->dimensions, key->n_dimensions, &sd);
    return lookup(s, key_hash(key->namespace, key->metric_name, &sd), key->namespace,
                  key->metric_name, &sd);
}

int sc_metric_store_count(const struct sc_metric_store *s)
{
    return s->nlist;
}

const struct sc_metric *sc_metric_store_at(const struct sc_metric_store *s, int i)
{
    if (i < 0 || i >= s->nlist)
        return NULL;
    return s->list[i];
}

const char *sc_metric_namespace(const struct sc_metric *m)
{
    return m->ns;
}

const char *sc_metric_name(const struct sc_metric *m)
{
    return m->name;
}

int sc_metric_dimension_count(const struct sc_metric *m)
{
    return m->ndims;
}

struct sc_dimension sc_metric_dimension_at(const struct sc_metric *m, int i)
{
    return m->dims[i];
}

int64_t sc_metric_last_timestamp_ms(const struct sc_metric *m)
{
    return m->last_ts_ms;
}

int sc_metric_unit_count(const struct sc_metric *m)
{
    return m->nseries;
}

enum sc_unit sc_metric_unit_at(const struct sc_metric *m, int i)
{
    return m->series[i]->unit;
}

int sc_metric_matches(const struct sc_metric *m, const char *namespace, const char *metric_name,
                      const struct sc_dimension *filters, int n_filters)
{
    if (namespace && strcmp(namespace, m->ns) != 0)
        return 0;
    if (metric_name && strcmp(metric_name, m->name) != 0)
        return 0;
    for (int i = 0; i < n_filters; i++) {
        int found = 0;
        for (int j = 0; j < m->ndims && !found; j++)
            found = filters[i].name && strcmp(filters[i].name, m->dims[j].name) == 0 &&
                    (!filters[i].value || strcmp(filters[i].value, m->dims[j].value) == 0);
        if (!found)
            return 0;
    }
    return 1;
}

/* --- aggregation ------------------------------------------------------------------------ */

struct acc_bin {
    double w, lo, hi;
};

struct pct_acc {
    int ok;
    double total;
    struct acc_bin bins[DIST_BINS];
};

static void acc_point(struct pct_acc *a, const struct sc_metric *m, double v, double w)
{
    struct acc_bin *b = &a->bins[dist_bin(m, v)];

    if (b->w == 0) {
        b->lo = v;
        b->hi = v;
    } else {
        if (v < b->lo)
            b->lo = v;
        if (v > b->hi)
            b->hi = v;
    }
    b->w += w;
    a->total += w;
}

static void acc_hist(struct pct_acc *a, const struct sc_metric *m, const float *bins,
                     const struct sum *sm)
{
    for (int i = 0; i < DIST_BINS; i++) {
        double lo, hi;
        struct acc_bin *b = &a->bins[i];
        if (bins[i] <= 0)
            continue;
        if (i == 0) {
            lo = hi = 0;
        } else {
            lo = i == 1 ? sm->min : bin_low(m, i);
            hi = i == DIST_BINS - 1 ? sm->max : bin_low(m, i + 1);
            if (lo < sm->min)
                lo = sm->min;
            if (hi > sm->max)
                hi = sm->max;
            if (hi < lo)
                hi = lo;
        }
        if (b->w == 0) {
            b->lo = lo;
            b->hi = hi;
        } else {
            if (lo < b->lo)
                b->lo = lo;
            if (hi > b->hi)
                b->hi = hi;
        }
        b->w += bins[i];
        a->total += bins[i];
    }
}

static double acc_percentile(const struct pct_acc *a, const struct sc_metric *m, double p)
{
    double target = p / 100.0 * a->total, cum = 0;
    int last = 0;

    for (int i = 0; i < DIST_BINS; i++) {
        const struct acc_bin *b = &a->bins[i];
        if (b->w <= 0)
            continue;
        last = i;
        cum += b->w;
        if (cum >= target * (1 - 1e-12) && (p > 0 || cum > 0)) {
            double mid;
            if (b->lo == b->hi || i == 0)
                return b->lo;
            mid = exp2(m->anchor + (i - 0.5) / DIST_PER_OCTAVE);
            if (mid < b->lo)
                mid = b->lo;
            if (mid > b->hi)
                mid = b->hi;
            return mid;
        }
    }
    return a->bins[last].hi;
}

/* Aggregates slots [from, to) of one ring into out/acc. Returns 1 when some slot had data. */
static int ring_agg(const struct sc_metric *m, const struct series *se, const struct ring *r,
                    int64_t from, int64_t to, struct sc_agg *out, struct pct_acc *acc)
{
    int any = 0;

    for (int64_t idx = from; idx < to; idx++) {
        int slot;
        const struct sum *sm;
        if (idx < 0 || idx >= (int64_t)UINT32_MAX - 1)
            continue;
        slot = (int)(idx % r->n);
        if (r->stamp[slot] != (uint32_t)(idx + 1))
            continue;
        sm = &r->s[slot];
        if (sm->count <= 0)
            continue;
        if (out->sample_count == 0) {
            out->minimum = sm->min;
            out->maximum = sm->max;
        } else {
            if (sm->min < out->minimum)
                out->minimum = sm->min;
            if (sm->max > out->maximum)
                out->maximum = sm->max;
        }
        out->sample_count += sm->count;
        out->sum += sm->sum;
        any = 1;
        if (!acc->ok)
            continue;
        if (r->flags[slot] & FLAG_NO_PCT) {
            acc->ok = 0;
        } else if (sm->min == sm->max) {
            acc_point(acc, m, sm->min, sm->count);
        } else if (r->res_s == 60 && se->dist &&
                   se->dist->stamp[idx % se->dist->n] == (uint32_t)(idx + 1)) {
            acc_hist(acc, m, se->dist->bins[idx % se->dist->n], sm);
        } else {
            acc->ok = 0;
        }
    }
    return any;
}

uint64_t sc_metric_late_version(const struct sc_metric *m)
{
    return m->late_ver;
}

int sc_metric_settled_window(const struct sc_metric *m, int64_t *from_ms, int64_t *to_ms)
{
    const struct series *se;
    int64_t newest;

    if (m->nseries != 1)
        return 0;
    se = m->series[0];
    newest = floor_div(se->last_ts_ms, 60000);
    /* periods that end by the newest minute's start, their oldest minute still in the ring */
    *from_ms = (newest - se->minute.n + 1) * 60000;
    *to_ms = newest * 60000;
    return 1;
}

int sc_metric_aggregate(const struct sc_metric *m, enum sc_unit unit, int64_t start_ms,
                        int period_s, const double *pcts, int n_pcts, struct sc_agg *out)
{
    struct pct_acc acc;
    int64_t start_s = floor_div(start_ms, 1000);
    int any = 0;

    memset(out, 0, sizeof(*out));
    if (period_s <= 0 || n_pcts < 0 || n_pcts > SC_METRIC_MAX_PERCENTILES)
        return 0;
    /* the percentile bins are only read when percentiles are asked for */
    acc.ok = n_pcts > 0;
    acc.total = 0;
    if (acc.ok)
        memset(acc.bins, 0, sizeof(acc.bins));
    for (int i = 0; i < m->nseries; i++) {
        const struct series *se = m->series[i];
        if (unit != SC_UNIT_ANY && se->unit != unit)
            continue;
        if (period_s % 60 != 0 || start_s % 60 != 0) {
            if (se->hires.n)
                any |= ring_agg(m, se, &se->hires, start_s, start_s + period_s, out, &acc);
        } else {
            int64_t from = start_s / 60, to = from + period_s / 60;
            int64_t newest = (int64_t)0;
            /* The minute ring holds the last minute_slots minutes before the newest put. */
            newest = floor_div(se->last_ts_ms, 60000);
            if (from > newest - se->minute.n || period_s % 3600 != 0 || start_s % 3600 != 0)
                any |= ring_agg(m, se, &se->minute, from, to, out, &acc);
            else
                any |= ring_agg(m, se, &se->hour, start_s / 3600, start_s / 3600 + period_s / 3600,
                                out, &acc);
        }
    }
    if (!any)
        return 0;
    out->pct_ok = acc.ok && acc.total > 0;
    for (int i = 0; i < n_pcts && out->pct_ok; i++) {
        double p = pcts[i];
        if (p < 0 || p > 100)
            continue;
        out->pct[i] = acc_percentile(&acc, m, p);
        if (out->pct[i] < out->minimum)
            out->pct[i] = out->minimum;
        if (out->pct[i] > out->maximum)
            out->pct[i] = out->maximum;
        out->pct_valid[i] = 1;
    }
    return 1;
}

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

static void wb_ring(struct wbuf *b, const struct ring *r)
{
    uint32_t n = 0;
    size_t at = b->len;

    wb_put(b, &n, sizeof(n));
    for (int i = 0; i < r->n; i++) {
        uint32_t idx;
        if (r->stamp[i] == 0 || r->s[i].count == 0)
            continue;
        idx = r->stamp[i] - 1;
        wb_put(b, &idx, sizeof(idx));
        wb_put(b, &r->s[i], sizeof(r->s[i]));
        wb_put(b, &r->flags[i], 1);
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
            for (int k = 0; se->dist && k < se->dist->n; k++) {
                uint32_t idx;
                if (se->dist->stamp[k] == 0)
                    continue;
                idx = se->dist->stamp[k] - 1;
                wb_put(&b, &idx, sizeof(idx));
                wb_put(&b, se->dist->bins[k], sizeof(se->dist->bins[k]));
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

static void ring_import(struct ring *r, const unsigned char *p, uint32_t n)
{
    size_t per = sizeof(uint32_t) + sizeof(struct sum) + 1;

    for (uint32_t i = 0; i < n; i++) {
        struct ring_entry e;
        int slot;
        memcpy(&e.idx, p + i * per, sizeof(e.idx));
        memcpy(&e.s, p + i * per + sizeof(e.idx), sizeof(e.s));
        memcpy(&e.flags, p + i * per + sizeof(e.idx) + sizeof(e.s), 1);
        if (r->n == 0)
            continue;
        slot = ring_slot(r, e.idx);
        if (slot < 0)
            continue;
        r->s[slot] = e.s;
        r->flags[slot] = e.flags;
    }
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
    sort_dims(dims, nd8, &sd);
    h = key_hash(ns, name, &sd);
    m = lookup(s, h, ns, name, &sd);
    if (!m)
        m = metric_new(s, h, ns, name, &sd);
    if (!m)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    se = series_get(s, m, (enum sc_unit)unit);
    if (!se)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    if (n_tiers[0] > 0 && se->hires.n == 0 &&
        ring_init(&se->hires, s->cfg.hires_slots, 1, &s->bytes) < 0)
        ring_cleanup(&se->hires);
    if (has_anchor && !m->has_anchor) {
        m->has_anchor = 1;
        m->anchor = anchor;
    }
    m->late_ver++;
    ring_import(&se->hires, b.p + off_tiers[0], n_tiers[0]);
    ring_import(&se->minute, b.p + off_tiers[1], n_tiers[1]);
    ring_import(&se->hour, b.p + off_tiers[2], n_tiers[2]);
    if (ndist > 0 && !se->dist) {
        struct dist *d = calloc(1, sizeof(*d));
        if (d) {
            d->n = s->cfg.dist_slots;
            d->stamp = calloc((size_t)d->n, sizeof(*d->stamp));
            d->bins = calloc((size_t)d->n, sizeof(*d->bins));
            if (!d->stamp || !d->bins) {
                free(d->stamp);
                free(d->bins);
                free(d);
                d = NULL;
            } else {
                se->dist = d;
                s->bytes += sizeof(*d) + (size_t)d->n * (sizeof(*d->stamp) + sizeof(*d->bins));
            }
        }
    }
    for (uint32_t i = 0; se->dist && i < ndist; i++) {
        uint32_t idx;
        int slot;
        memcpy(&idx, b.p + off_dist + i * dper, sizeof(idx));
        slot = (int)(idx % (uint32_t)se->dist->n);
        if (se->dist->stamp[slot] > idx + 1)
            continue;
        se->dist->stamp[slot] = idx + 1;
        memcpy(se->dist->bins[slot], b.p + off_dist + i * dper + sizeof(idx),
               sizeof(se->dist->bins[slot]));
    }
    if (last > se->last_ts_ms)
        se->last_ts_ms = last;
    if (last > m->last_ts_ms)
        m->last_ts_ms = last;
    return SC_OK;
}
