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
}

void sc_metric_config_aws(struct sc_metric_config *c)
{
    sc_metric_config_defaults(c);
    c->minute_slots = 15 * 24 * 60;
    c->hour_slots = 455 * 24;
    c->expire_ms = 455LL * 86400 * 1000;
}

/* --- rings ------------------------------------------------------------------------------ */

int metric_ring_init(struct ring *r, int n, int res_s, size_t *bytes)
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

void metric_ring_cleanup(struct ring *r)
{
    free(r->s);
    free(r->stamp);
    free(r->flags);
    memset(r, 0, sizeof(*r));
}

int64_t metric_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* The slot for period index idx after making it current (a slot holding an older period is
 * reset); -1 when the slot already holds a newer period (idx is past retention). */
int metric_ring_slot(struct ring *r, int64_t idx)
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
    if (se->dist) {
        free(se->dist->stamp);
        free(se->dist->bins);
        free(se->dist);
    }
    free(se);
}

size_t metric_series_bytes(const struct series *se)
{
    size_t per = sizeof(struct sum) + sizeof(uint32_t) + 1;
    size_t b = sizeof(*se) + per * (size_t)(se->hires.n + se->minute.n + se->hour.n);

    if (se->dist)
        b += (size_t)se->dist->n * (sizeof(uint32_t) + sizeof(float) * DIST_BINS);
    return b;
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
    if (metric_ring_init(&se->minute, s->cfg.minute_slots, 60, &s->bytes) < 0 ||
        metric_ring_init(&se->hour, s->cfg.hour_slots, 3600, &s->bytes) < 0) {
        metric_series_free(se);
        return NULL;
    }
    s->bytes += sizeof(*se);
    memmove(&m->series[i + 1], &m->series[i], (size_t)(m->nseries - i) * sizeof(m->series[0]));
    m->series[i] = se;
    m->nseries++;
    m->late_ver++;
    return se;
}
