/* scaler/metric_store.c: the metric store (create, put with its validation, expire, find,
 * the metric accessors) and aggregation with percentiles (see metric.h). */
#include "scaler/metric.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/metric_internal.h"

#define DIST_HALF_OCTAVES 8
#define FLAG_NO_PCT       1u
#define TWO_WEEKS_MS      (14LL * 86400 * 1000)
#define TWO_HOURS_MS      (2LL * 3600 * 1000)

/* Generations of all stores are distinct: each store starts at its own multiple of 2^32. */
static _Atomic uint64_t store_gen_base;

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
        s->cfg.dist_slots < 1 || s->cfg.expire_ms <= 0 || s->cfg.max_series < 0 ||
        metric_table_grow(s) < 0) {
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
 * value prev (with prev_count samples) before. Returns 0, or -1 on OOM. */
static int dist_add(struct sc_metric_store *s, struct sc_metric *m, struct series *se, int64_t idx,
                    int was_uniform, double prev, double prev_count, double v, double w)
{
    struct dist *d = &se->dist;
    int k;

    if (was_uniform) {
        k = metric_dist_slot(d, idx, &s->bytes);
        if (k == -2)
            return -1;
        if (k < 0)
            return 0;
        memset(d->bins[k], 0, sizeof(d->bins[k]));
        d->bins[k][metric_dist_bin(m, prev)] += (float)prev_count;
    } else {
        k = metric_dist_find(d, idx);
        if (k < 0)
            return 0; /* lost: the minute keeps no percentile (see aggregate) */
    }
    d->bins[k][metric_dist_bin(m, v)] += (float)w;
    return 0;
}

/* Records count samples of value v (or a statistic set when is_set). Returns 0, or -1 on
 * OOM (a tier could not grow: what was recorded stays). */
static int record(struct sc_metric_store *s, struct sc_metric *m, struct series *se, int64_t ts_ms,
                  int hires, double count, double sum, double min, double max, int is_set)
{
    int64_t ts_s = metric_floor_div(ts_ms, 1000);
    int no_pct = min < 0 || (is_set && count != 1 && min != max);
    int slot;

    if (!m->has_anchor && max > 0) {
        double pos = min > 0 ? min : max;
        m->anchor = (int)floor(log2(pos)) - DIST_HALF_OCTAVES;
        m->has_anchor = 1;
    }
    if (hires && se->hires.w.n) {
        slot = metric_ring_slot(&se->hires, ts_s, &s->bytes);
        if (slot == -2)
            return -1;
        if (slot >= 0) {
            metric_sum_add(&se->hires.s[slot], count, sum, min, max);
            if (no_pct)
                se->hires.flags[slot] |= FLAG_NO_PCT;
        }
    }
    slot = metric_ring_slot(&se->hour, metric_floor_div(ts_s, 3600), &s->bytes);
    if (slot == -2)
        return -1;
    if (slot >= 0) {
        metric_sum_add(&se->hour.s[slot], count, sum, min, max);
        if (no_pct)
            se->hour.flags[slot] |= FLAG_NO_PCT;
    }
    slot = metric_ring_slot(&se->minute, metric_floor_div(ts_s, 60), &s->bytes);
    if (slot == -2)
        return -1;
    if (slot >= 0) {
        struct sum *sm = &se->minute.s[slot];
        double pc = sm->count, pmin = sm->min, pmax = sm->max;
        metric_sum_add(sm, count, sum, min, max);
        if (no_pct) {
            se->minute.flags[slot] |= FLAG_NO_PCT;
        } else if (!(se->minute.flags[slot] & FLAG_NO_PCT) && pc > 0 &&
                   !(pmin == pmax && pmin == min && min == max)) {
            if (dist_add(s, m, se, metric_floor_div(ts_s, 60), pmin == pmax, pmin, pc, min, count) <
                0)
                return -1;
        }
    }
    if (metric_floor_div(ts_s, 60) < metric_floor_div(se->last_ts_ms, 60000))
        m->late_ver++;
    if (ts_ms > se->last_ts_ms)
        se->last_ts_ms = ts_ms;
    if (ts_ms > m->last_ts_ms)
        m->last_ts_ms = ts_ms;
    return 0;
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
            o += (size_t)snprintf(set + o, sizeof(set) - o, "%s%s", j ? ", " : "",
                                  metric_unit_names[j]);
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

/* Whether data j of req names the same series (identity and unit) as data i. */
static int same_series(const struct sc_put_metric_data_req *req, const enum sc_unit *units, int i,
                       int j)
{
    const struct sc_metric_datum *a = &req->metric_data[i], *b = &req->metric_data[j];
    struct sorted_dims sa, sb;

    if (units[i] != units[j] || a->n_dimensions != b->n_dimensions ||
        strcmp(a->metric_name, b->metric_name) != 0)
        return 0;
    metric_sort_dims(a->dimensions, a->n_dimensions, &sa);
    metric_sort_dims(b->dimensions, b->n_dimensions, &sb);
    for (int k = 0; k < sa.n; k++)
        if (strcmp(sa.d[k]->name, sb.d[k]->name) != 0 ||
            strcmp(sa.d[k]->value, sb.d[k]->value) != 0)
            return 0;
    return 1;
}

/* How many series (identity and unit) a validated request would add to the store. */
static int new_series_count(const struct sc_metric_store *s,
                            const struct sc_put_metric_data_req *req, const enum sc_unit *units)
{
    uint64_t hashes[SC_METRIC_MAX_DATA];
    int fresh[SC_METRIC_MAX_DATA], nfresh = 0;

    for (int i = 0; i < req->n_metric_data; i++) {
        const struct sc_metric_datum *d = &req->metric_data[i];
        struct sorted_dims sd;
        const struct sc_metric *m;
        uint64_t h;
        int known = 0;

        metric_sort_dims(d->dimensions, d->n_dimensions, &sd);
        h = metric_key_hash(req->namespace, d->metric_name, &sd);
        m = metric_lookup(s, h, req->namespace, d->metric_name, &sd);
        for (int k = 0; m && k < m->nseries && !known; k++)
            known = m->series[k]->unit == units[i];
        for (int k = 0; k < nfresh && !known; k++)
            known = hashes[k] == h && same_series(req, units, fresh[k], i);
        if (!known) {
            hashes[nfresh] = h;
            fresh[nfresh++] = i;
        }
    }
    return nfresh;
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
    if (!req->internal && s->cfg.max_series > 0 &&
        s->nseries + req->n_metric_data > s->cfg.max_series) {
        int fresh = new_series_count(s, req, units);
        if (fresh > 0 && s->nseries + fresh > s->cfg.max_series)
            return sc_fail(err, SC_ERR_LIMIT_EXCEEDED_CW,
                           "Too many metric series: this request adds %d new series to the %d "
                           "stored, and scalelab keeps at most %d metric series per account and "
                           "region (its own cap, not an AWS quota: the emulator's option "
                           "--max-metric-series sets it).",
                           fresh, s->nseries, s->cfg.max_series);
    }
    for (int i = 0; i < req->n_metric_data; i++) {
        const struct sc_metric_datum *d = &req->metric_data[i];
        struct sorted_dims sd;
        struct sc_metric *m;
        struct series *se;
        enum sc_unit u = units[i];
        int64_t ts = d->has_timestamp ? d->timestamp_ms : now_ms;
        int hires = d->storage_resolution == 1, rc = 0;
        uint64_t h;

        metric_sort_dims(d->dimensions, d->n_dimensions, &sd);
        h = metric_key_hash(req->namespace, d->metric_name, &sd);
        m = metric_lookup(s, h, req->namespace, d->metric_name, &sd);
        if (!m)
            m = metric_new(s, h, req->namespace, d->metric_name, &sd);
        if (!m)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        se = metric_series_ensure(s, m, u);
        if (!se)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        if (hires && se->hires.w.n == 0)
            metric_ring_init(&se->hires, s->cfg.hires_slots, 1);
        if (d->has_value) {
            rc = record(s, m, se, ts, hires, 1, d->value, d->value, d->value, 0);
        } else if (d->has_statistic_values) {
            const struct sc_statistic_set *ss = &d->statistic_values;
            rc =
                record(s, m, se, ts, hires, ss->sample_count, ss->sum, ss->minimum, ss->maximum, 1);
        } else {
            for (int j = 0; j < d->n_values && rc == 0; j++) {
                double c = d->counts ? d->counts[j] : 1;
                double v = d->values[j];
                if (c > 0)
                    rc = record(s, m, se, ts, hires, c, v * c, v, v, 0);
            }
        }
        if (rc < 0)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
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
                s->bytes -= metric_series_bytes(m->series[j]);
                s->nseries--;
                metric_series_free(m->series[j]);
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
    metric_sort_dims(key->dimensions, key->n_dimensions, &sd);
    return metric_lookup(s, metric_key_hash(key->namespace, key->metric_name, &sd), key->namespace,
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
    struct acc_bin *b = &a->bins[metric_dist_bin(m, v)];

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
            lo = i == 1 ? sm->min : metric_bin_low(m, i);
            hi = i == DIST_BINS - 1 ? sm->max : metric_bin_low(m, i + 1);
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
        int k = metric_ring_find(r, idx), dk;
        const struct sum *sm;
        if (k < 0)
            continue;
        sm = &r->s[k];
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
        if (r->flags[k] & FLAG_NO_PCT) {
            acc->ok = 0;
        } else if (sm->min == sm->max) {
            acc_point(acc, m, sm->min, sm->count);
        } else if (r->res_s == 60 && (dk = metric_dist_find(&se->dist, idx)) >= 0) {
            acc_hist(acc, m, se->dist.bins[dk], sm);
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
    newest = metric_floor_div(se->last_ts_ms, 60000);
    /* periods that end by the newest minute's start, their oldest minute still in the ring */
    *from_ms = (newest - se->minute.w.n + 1) * 60000;
    *to_ms = newest * 60000;
    return 1;
}

int sc_metric_aggregate(const struct sc_metric *m, enum sc_unit unit, int64_t start_ms,
                        int period_s, const double *pcts, int n_pcts, struct sc_agg *out)
{
    struct pct_acc acc;
    int64_t start_s = metric_floor_div(start_ms, 1000);
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
            if (se->hires.w.n)
                any |= ring_agg(m, se, &se->hires, start_s, start_s + period_s, out, &acc);
        } else {
            int64_t from = start_s / 60, to = from + period_s / 60;
            int64_t newest = (int64_t)0;
            /* The minute ring holds the last minute_slots minutes before the newest put. */
            newest = metric_floor_div(se->last_ts_ms, 60000);
            if (from > newest - se->minute.w.n || period_s % 3600 != 0 || start_s % 3600 != 0)
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
