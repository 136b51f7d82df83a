/* scaler/anomaly.c: the anomaly detection model and the detectors (scaler/anomaly.h,
 * docs/cloudwatch.md "Anomaly detection"). Each rule of the model is one function here,
 * unit-tested under its name in tests/unit/scaler/test_anomaly.c. */
#include "scaler/anomaly.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/math.h"
#include "scaler/str.h"

#define HOUR_MS 3600000LL
#define DAY_MS  (24 * HOUR_MS)
#define WEEK_MS (7 * DAY_MS)

/* --- the model ---------------------------------------------------------------------------- */

const char *sc_anomaly_state_name(enum sc_anomaly_state s)
{
    switch (s) {
    case SC_ANOMALY_PENDING_TRAINING:
        return "PENDING_TRAINING";
    case SC_ANOMALY_TRAINED_INSUFFICIENT_DATA:
        return "TRAINED_INSUFFICIENT_DATA";
    case SC_ANOMALY_TRAINED:
        return "TRAINED";
    }
    return "PENDING_TRAINING";
}

static int excluded(const struct sc_anomaly_train *tr, int64_t ts)
{
    for (int i = 0; tr && i < tr->n_excluded; i++)
        if (ts >= tr->excluded[i].start_ms && ts < tr->excluded[i].end_ms)
            return 1;
    return 0;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Hour of the day (0..23) and of the week (0..167, Monday 00:00 = 0) in the fixed offset. */
static int hour_of_day(int64_t ts, int off_s)
{
    int64_t h = floor_div(ts + (int64_t)off_s * 1000, HOUR_MS);
    return (int)(h - floor_div(h, 24) * 24);
}

static int hour_of_week(int64_t ts, int off_s)
{
    /* 1970-01-01 was a Thursday: day 0 is weekday 3 counted from Monday */
    int64_t h = floor_div(ts + (int64_t)off_s * 1000, HOUR_MS) + 3 * 24;
    return (int)(h - floor_div(h, 168) * 168);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* The median of v[0..n) (n > 0); sorts v. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The q-quantile (0..1) of sorted v[0..n), linearly interpolated. */
static double quantile(const double *v, int n, double q)
{
    double pos = q * (n - 1);
    int i = (int)pos;

    if (i >= n - 1)
        return v[n - 1];
    return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

/* The training window rule: the first index and count of the points in [t - 14 d, t). */
static int window(const int64_t *ts, int n, int64_t t_ms, int *first)
{
    int lo = 0, hi = n;

    while (lo < hi) { /* first point >= t - window */
        int mid = lo + (hi - lo) / 2;
        if (ts[mid] < t_ms - SC_ANOMALY_TRAIN_MS)
            lo = mid + 1;
        else
            hi = mid;
    }
    *first = lo;
    hi = lo;
    while (hi < n && ts[hi] < t_ms)
        hi++;
    return hi - lo;
}

/* The basis rule: weekly once the training covers a week and the hour of the week holds
 * SC_ANOMALY_MIN_BUCKET points; daily once it covers a day and the hour of the day does; else
 * trailing. Copies the chosen points into sel and returns how many. */
static int choose_basis(const int64_t *ts, const double *v, int first, int nw, int64_t t_ms,
                        const struct sc_anomaly_train *tr, double *sel,
                        enum sc_anomaly_basis *basis)
{
    int off = tr ? tr->tz_offset_s : 0, n = 0;
    int64_t oldest = -1;

    for (int i = first; i < first + nw; i++)
        if (!excluded(tr, ts[i])) {
            oldest = ts[i];
            break;
        }
    if (oldest >= 0 && t_ms - oldest >= WEEK_MS) {
        int how = hour_of_week(t_ms, off);
        n = 0;
        for (int i = first; i < first + nw; i++)
            if (!excluded(tr, ts[i]) && hour_of_week(ts[i], off) == how)
                sel[n++] = v[i];
        if (n >= SC_ANOMALY_MIN_BUCKET) {
            *basis = SC_ANOMALY_BASIS_WEEKLY;
            return n;
        }
    }
    if (oldest >= 0 && t_ms - oldest >= DAY_MS) {
        int hod = hour_of_day(t_ms, off);
        n = 0;
        for (int i = first; i < first + nw; i++)
            if (!excluded(tr, ts[i]) && hour_of_day(ts[i], off) == hod)
                sel[n++] = v[i];
        if (n >= SC_ANOMALY_MIN_BUCKET) {
            *basis = SC_ANOMALY_BASIS_DAILY;
            return n;
        }
    }
    n = 0;
    for (int i = first; i < first + nw; i++)
        if (!excluded(tr, ts[i]))
            sel[n++] = v[i];
    *basis = SC_ANOMALY_BASIS_TRAILING;
    return n;
}

int sc_anomaly_band_at(const int64_t *ts, const double *v, int n, int64_t t_ms, double k,
                       const struct sc_anomaly_train *tr, struct sc_anomaly_band *out)
{
    int first, nw = window(ts, n, t_ms, &first), ntrain = 0, nsel;
    double *sel, *dev, med, mad, top, iqr;

    memset(out, 0, sizeof(*out));
    for (int i = first; i < first + nw; i++)
        ntrain += !excluded(tr, ts[i]);
    out->n_train = ntrain;
    if (ntrain < SC_ANOMALY_MIN_POINTS)
        return 0;
    sel = malloc((size_t)nw * 2 * sizeof(*sel));
    if (!sel)
        return -1;
    dev = sel + nw;
    nsel = choose_basis(ts, v, first, nw, t_ms, tr, sel, &out->basis);
    med = median(sel, nsel);
    top = sel[nsel - 1]; /* sorted by median() */
    iqr = quantile(sel, nsel, 0.75) - quantile(sel, nsel, 0.25);
    for (int i = 0; i < nsel; i++)
        dev[i] = fabs(sel[i] - med);
    mad = median(dev, nsel);
    free(sel);
    out->n_used = nsel;
    out->baseline = med;
    /* the spread rule: the larger robust sigma of MAD and IQR (IQR keeps a two-level series
     * from collapsing MAD to 0), at least 1% of |median| */
    out->spread = 1.4826 * mad;
    if (out->spread < iqr / 1.349)
        out->spread = iqr / 1.349;
    if (out->spread < 0.01 * fabs(med))
        out->spread = 0.01 * fabs(med);
    out->lower = med - k * out->spread;
    out->upper = med + k * out->spread;
    if (tr && tr->periodic_spikes && top > out->upper)
        out->upper = top;
    return 1;
}

enum sc_anomaly_state sc_anomaly_state_of(const int64_t *ts, const double *v, int n, int64_t now_ms,
                                          const struct sc_anomaly_train *tr)
{
    int first, nw = window(ts, n, now_ms, &first), ntrain = 0;
    int64_t oldest = -1;

    (void)v;
    for (int i = first; i < first + nw; i++) {
        if (excluded(tr, ts[i]))
            continue;
        if (oldest < 0)
            oldest = ts[i];
        ntrain++;
    }
    if (ntrain < SC_ANOMALY_MIN_POINTS)
        return SC_ANOMALY_PENDING_TRAINING;
    return now_ms - oldest >= DAY_MS ? SC_ANOMALY_TRAINED : SC_ANOMALY_TRAINED_INSUFFICIENT_DATA;
}

/* --- detectors ------------------------------------------------------------------------------ */

struct detector {
    int math;
    char *ns, *name, *stat;
    struct sc_dimension *dims; /* sorted by name, then value */
    int ndims;
    struct sc_alarm_query *q;
    int nq;
    char *key; /* the identity: canonical text */
    int has_config;
    struct sc_anomaly_range excluded[SC_ANOMALY_MAX_EXCLUDED];
    int nexcluded;
    char *tz;
    int has_ps, ps;
};

struct sc_anomaly_detectors {
    char *account;
    struct detector **list; /* creation order */
    int n, cap;
    int (*tz_offset)(void *ud, const char *zone, int64_t utc_ms, int *offset_s);
    void *tz_ud;
};

struct sc_anomaly_detectors *sc_anomaly_detectors_create(const char *account)
{
    struct sc_anomaly_detectors *d = calloc(1, sizeof(*d));

    if (!d || !(d->account = sc_strdup(account ? account : "123456789012"))) {
        free(d);
        return NULL;
    }
    return d;
}

static void det_free(struct detector *x)
{
    if (!x)
        return;
    free(x->ns);
    free(x->name);
    free(x->stat);
    for (int i = 0; i < x->ndims; i++) {
        free((char *)x->dims[i].name);
        free((char *)x->dims[i].value);
    }
    free(x->dims);
    sc_alarm_queries_free(x->q, x->nq);
    free(x->key);
    free(x->tz);
    free(x);
}

void sc_anomaly_detectors_destroy(struct sc_anomaly_detectors *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->n; i++)
        det_free(d->list[i]);
    free(d->list);
    free(d->account);
    free(d);
}

void sc_anomaly_detectors_set_tz(struct sc_anomaly_detectors *d,
                                 int (*tz_offset)(void *ud, const char *zone, int64_t utc_ms,
                                                  int *offset_s),
                                 void *ud)
{
    d->tz_offset = tz_offset;
    d->tz_ud = ud;
}

int sc_anomaly_count(const struct sc_anomaly_detectors *d)
{
    return d->n;
}

static int cmp_dim(const void *a, const void *b)
{
    const struct sc_dimension *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->value, y->value);
}

/* The identity text of a single-metric detector: what Put updates and Delete finds. */
static char *single_key(const char *ns, const char *name, const struct sc_dimension *dims, int nd,
                        const char *stat)
{
    struct sc_dimension s[SC_METRIC_MAX_DIMENSIONS];
    json_t *j = json_array(), *ds = json_array();
    char *out;

    if (nd > 0) { /* memcpy and qsort take no NULL, even for 0 bytes */
        memcpy(s, dims, (size_t)nd * sizeof(*s));
        qsort(s, (size_t)nd, sizeof(*s), cmp_dim);
    }
    for (int i = 0; i < nd; i++)
        json_array_append_new(ds, json_pack("[ss]", s[i].name, s[i].value));
    json_array_append_new(j, json_string(ns));
    json_array_append_new(j, json_string(name));
    json_array_append_new(j, ds);
    json_array_append_new(j, json_string(stat));
    out = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return out;
}

static char *math_key(const struct sc_alarm_query *q, int n)
{
    json_t *j = sc_alarm_queries_save(q, n);
    char *out = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

    json_decref(j);
    return out;
}

static enum sc_status check_metric(const struct sc_anomaly_detectors *d,
                                   const struct sc_anomaly_metric *m, const char *where,
                                   struct sc_error *err)
{
    if (!m->namespace || !*m->namespace)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter %sNamespace is required.",
                       where);
    if (!m->metric_name || !*m->metric_name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter %sMetricName is required.",
                       where);
    if (!m->stat || !*m->stat)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter %sStat is required.", where);
    if (m->n_dimensions > SC_METRIC_MAX_DIMENSIONS)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection %sDimensions must not have a size greater than 30.", where);
    for (int i = 0; i < m->n_dimensions; i++) {
        if (!m->dimensions[i].name || !*m->dimensions[i].name)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter %sDimensions.member.%d.Name is required.", where, i + 1);
        if (!m->dimensions[i].value || !*m->dimensions[i].value)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter %sDimensions.member.%d.Value is required.", where, i + 1);
        for (int j = 0; j < i; j++)
            if (strcmp(m->dimensions[j].name, m->dimensions[i].name) == 0)
                return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                               "No Metric may specify the same dimension name twice.");
    }
    if (m->account_id && strcmp(m->account_id, d->account) != 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The account %s is not this account or a linked source account.",
                       m->account_id);
    return SC_OK;
}

/* MetricMathAnomalyDetector.MetricDataQueries: ids, one returned expression, the program. */
static enum sc_status check_math(const struct sc_alarm_query *q, int n, struct sc_error *err)
{
    struct sc_math_query mq[SC_ALARM_MAX_QUERIES];
    struct sc_math_program *prog = NULL;
    struct sc_math_error me;
    int nret = 0, ret = -1;
    enum sc_status st;

    if (n < 1)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The parameter MetricMathAnomalyDetector.MetricDataQueries is required.");
    if (n > SC_ALARM_MAX_QUERIES)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection MetricDataQueries must not have a size greater than %d.",
                       SC_ALARM_MAX_QUERIES);
    for (int i = 0; i < n; i++) {
        memset(&mq[i], 0, sizeof(mq[i]));
        if (!q[i].id || !*q[i].id)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter MetricDataQueries.member.%d.Id is required.", i + 1);
        if ((q[i].expression != NULL) == (q[i].has_metric_stat != 0))
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "The parameter MetricDataQueries.member.%d must specify either an "
                           "Expression or a MetricStat but not both.",
                           i + 1);
        if (q[i].has_metric_stat && (!q[i].metric.namespace || !q[i].metric.metric_name ||
                                     !q[i].stat || !q[i].has_stat_period || q[i].stat_period <= 0))
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "The parameter MetricDataQueries.member.%d.MetricStat is invalid.",
                           i + 1);
        if (!q[i].has_return_data || q[i].return_data) {
            nret++;
            ret = i;
        }
        mq[i].id = q[i].id;
        mq[i].expression = q[i].expression;
        mq[i].label = q[i].label;
        mq[i].return_data = !q[i].has_return_data || q[i].return_data;
        mq[i].period_s = q[i].expression ? q[i].period : q[i].stat_period;
        mq[i].metric = q[i].metric;
        mq[i].stat = q[i].stat;
        mq[i].unit = q[i].unit;
    }
    if (nret != 1)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "Exactly one element of the metrics list should return data.");
    if (!q[ret].expression)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The returned element of MetricDataQueries must be an expression.");
    st = sc_math_program_create(mq, n, 1, &prog, &me);
    if (st == SC_ERR_INTERNAL)
        return sc_fail(err, st, "out of memory");
    if (st != SC_OK)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "%s", me.msg);
    sc_math_program_destroy(prog);
    return SC_OK;
}

/* Which detector the request names: the checked metric (single) or query list (math). */
static enum sc_status resolve(const struct sc_anomaly_detectors *d, const struct sc_anomaly_req *r,
                              const struct sc_anomaly_metric **m, struct sc_error *err)
{
    enum sc_status s;

    *m = NULL;
    if (r->has_math && (r->has_legacy || r->has_single))
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "When using MetricMathAnomalyDetector, you cannot include Namespace, "
                       "MetricName, Dimensions, Stat or SingleMetricAnomalyDetector in the same "
                       "operation.");
    if (r->has_single && r->has_legacy)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "When using SingleMetricAnomalyDetector, you cannot include Namespace, "
                       "MetricName, Dimensions or Stat in the same operation.");
    if (r->has_math)
        return check_math(r->queries, r->n_queries, err);
    if (!r->has_single && !r->has_legacy)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "One of SingleMetricAnomalyDetector or MetricMathAnomalyDetector must be "
                       "specified.");
    *m = r->has_single ? &r->single : &r->legacy;
    s = check_metric(d, *m, r->has_single ? "SingleMetricAnomalyDetector." : "", err);
    return s;
}

static char *req_key(const struct sc_anomaly_req *r, const struct sc_anomaly_metric *m)
{
    if (m)
        return single_key(m->namespace, m->metric_name, m->dimensions, m->n_dimensions, m->stat);
    return math_key(r->queries, r->n_queries);
}

static int find_key(const struct sc_anomaly_detectors *d, const char *key)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->list[i]->key, key) == 0)
            return i;
    return -1;
}

static enum sc_status check_config(const struct sc_anomaly_detectors *d,
                                   const struct sc_anomaly_req *r, struct sc_error *err)
{
    int off;

    if (r->n_excluded > SC_ANOMALY_MAX_EXCLUDED)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection Configuration.ExcludedTimeRanges must not have a size "
                       "greater than %d.",
                       SC_ANOMALY_MAX_EXCLUDED);
    for (int i = 0; i < r->n_excluded; i++)
        if (r->excluded[i].start_ms >= r->excluded[i].end_ms)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "The parameter Configuration.ExcludedTimeRanges.member.%d.StartTime "
                           "must be before EndTime.",
                           i + 1);
    if (r->metric_timezone && strlen(r->metric_timezone) > 50)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter Configuration.MetricTimezone must be at most 50 "
                       "characters.");
    if (r->metric_timezone && d->tz_offset &&
        d->tz_offset(d->tz_ud, r->metric_timezone, 0, &off) != 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter Configuration.MetricTimezone has an invalid value %s.",
                       r->metric_timezone);
    return SC_OK;
}

static struct detector *build(const struct sc_anomaly_req *r, const struct sc_anomaly_metric *m,
                              char *key_take)
{
    struct detector *x = calloc(1, sizeof(*x));

    if (!x) {
        free(key_take);
        return NULL;
    }
    x->key = key_take;
    x->math = m == NULL;
    if (m) {
        if (!(x->ns = sc_strdup(m->namespace)) || !(x->name = sc_strdup(m->metric_name)) ||
            !(x->stat = sc_strdup(m->stat)))
            goto oom;
        if (m->n_dimensions > 0) {
            x->dims = calloc((size_t)m->n_dimensions, sizeof(*x->dims));
            if (!x->dims)
                goto oom;
            for (int i = 0; i < m->n_dimensions; i++) {
                x->dims[i].name = sc_strdup(m->dimensions[i].name);
                x->dims[i].value = sc_strdup(m->dimensions[i].value);
                x->ndims++;
                if (!x->dims[i].name || !x->dims[i].value)
                    goto oom;
            }
            qsort(x->dims, (size_t)x->ndims, sizeof(*x->dims), cmp_dim);
        }
    } else {
        if (sc_alarm_queries_dup(r->queries, r->n_queries, &x->q))
            goto oom;
        x->nq = r->n_queries;
    }
    x->has_config = r->has_configuration;
    x->nexcluded = r->n_excluded;
    if (r->n_excluded > 0)
        memcpy(x->excluded, r->excluded, (size_t)r->n_excluded * sizeof(*x->excluded));
    if (sc_strdup_opt(&x->tz, r->metric_timezone))
        goto oom;
    x->has_ps = r->has_periodic_spikes;
    x->ps = r->periodic_spikes;
    return x;
oom:
    det_free(x);
    return NULL;
}

enum sc_status sc_anomaly_put(struct sc_anomaly_detectors *d, const struct sc_anomaly_req *r,
                              struct sc_error *err)
{
    const struct sc_anomaly_metric *m;
    enum sc_status s = resolve(d, r, &m, err);
    struct detector *x;
    char *key;
    int i;

    if (s == SC_OK)
        s = check_config(d, r, err);
    if (s != SC_OK)
        return s;
    key = req_key(r, m);
    if (!key)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    i = find_key(d, key);
    if (i < 0 && d->n >= SC_ANOMALY_MAX_DETECTORS) {
        free(key);
        return sc_fail(err, SC_ERR_LIMIT_EXCEEDED_EXCEPTION,
                       "The maximum number of anomaly detectors (%d) has been reached.",
                       SC_ANOMALY_MAX_DETECTORS);
    }
    x = build(r, m, key);
    if (!x)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    if (i >= 0) {
        det_free(d->list[i]);
        d->list[i] = x;
        return SC_OK;
    }
    if (d->n == d->cap) {
        int cap = d->cap ? d->cap * 2 : 8;
        struct detector **l = realloc(d->list, (size_t)cap * sizeof(*l));
        if (!l) {
            det_free(x);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        d->list = l;
        d->cap = cap;
    }
    d->list[d->n++] = x;
    return SC_OK;
}

enum sc_status sc_anomaly_delete(struct sc_anomaly_detectors *d, const struct sc_anomaly_req *r,
                                 struct sc_error *err)
{
    const struct sc_anomaly_metric *m;
    enum sc_status s = resolve(d, r, &m, err);
    char *key;
    int i;

    if (s != SC_OK)
        return s;
    key = req_key(r, m);
    if (!key)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    i = find_key(d, key);
    free(key);
    if (i < 0)
        return sc_fail(err, SC_ERR_RESOURCE_NOT_FOUND_EXCEPTION,
                       "This anomaly detection model does not exist.");
    det_free(d->list[i]);
    memmove(&d->list[i], &d->list[i + 1], (size_t)(d->n - i - 1) * sizeof(*d->list));
    d->n--;
    return SC_OK;
}

static void train_of(const struct sc_anomaly_detectors *d, const struct detector *x, int64_t t_ms,
                     struct sc_anomaly_train *tr)
{
    int off = 0;

    memset(tr, 0, sizeof(*tr));
    if (!x)
        return;
    tr->excluded = x->excluded;
    tr->n_excluded = x->nexcluded;
    tr->periodic_spikes = x->has_ps && x->ps;
    if (x->tz && d->tz_offset && d->tz_offset(d->tz_ud, x->tz, t_ms, &off) == 0)
        tr->tz_offset_s = off;
}

void sc_anomaly_train_for(const struct sc_anomaly_detectors *d, const struct sc_metric_key *key,
                          const char *stat, const char *expression, int64_t t_ms,
                          struct sc_anomaly_train *out)
{
    const struct detector *hit = NULL;
    char *k = NULL;

    memset(out, 0, sizeof(*out));
    if (!d)
        return;
    if (key && key->namespace && key->metric_name && stat &&
        key->n_dimensions <= SC_METRIC_MAX_DIMENSIONS) {
        k = single_key(key->namespace, key->metric_name, key->dimensions, key->n_dimensions, stat);
        if (k) {
            int i = find_key(d, k);
            hit = i >= 0 ? d->list[i] : NULL;
        }
        free(k);
    } else if (expression) {
        for (int i = 0; i < d->n && !hit; i++) {
            const struct detector *x = d->list[i];
            for (int j = 0; x->math && j < x->nq; j++)
                if ((!x->q[j].has_return_data || x->q[j].return_data) && x->q[j].expression &&
                    strcmp(x->q[j].expression, expression) == 0)
                    hit = x;
        }
    }
    train_of(d, hit, t_ms, out);
}

/* The series a detector trains on over the last 14 days: the metric's 1-minute aggregates,
 * or the returned series of its queries. *ts / *v are malloc'd; returns the count or -1. */
static int history(const struct detector *x, const struct sc_metric_store *store, int64_t now_ms,
                   int64_t **ts, double **v)
{
    int n = 0, cap = 0;

    *ts = NULL;
    *v = NULL;
    if (!store)
        return 0;
    if (!x->math) {
        struct sc_metric_key key = { x->ns, x->name, x->dims, x->ndims };
        const struct sc_metric *m = sc_metric_store_find(store, &key);
        struct sc_stat st;
        int64_t end = now_ms / 60000 * 60000;
        if (!m || (sc_stat_parse(x->stat, 1, &st) < 0 && sc_stat_parse(x->stat, 0, &st) < 0))
            return 0;
        for (int64_t t = end - SC_ANOMALY_TRAIN_MS; t < end; t += 60000) {
            struct sc_agg ag;
            double val;
            if (!sc_metric_aggregate(m, SC_UNIT_ANY, t, 60, &st.pct, st.kind == SC_STAT_PERCENTILE,
                                     &ag) ||
                sc_agg_value(&ag, &st, 0, &val) < 0)
                continue;
            if (n == cap) {
                int c = cap ? cap * 2 : 256;
                int64_t *nt = realloc(*ts, (size_t)c * sizeof(*nt));
                double *nv;
                if (!nt)
                    return -1;
                *ts = nt;
                nv = realloc(*v, (size_t)c * sizeof(*nv));
                if (!nv)
                    return -1;
                *v = nv;
                cap = c;
            }
            (*ts)[n] = t;
            (*v)[n] = val;
            n++;
        }
        return n;
    } else {
        struct sc_math_query mq[SC_ALARM_MAX_QUERIES];
        struct sc_math_program *prog = NULL;
        struct sc_math_error me;
        const struct sc_math_result *res;
        int64_t end = now_ms / 60000 * 60000;
        for (int i = 0; i < x->nq; i++) {
            memset(&mq[i], 0, sizeof(mq[i]));
            mq[i].id = x->q[i].id;
            mq[i].expression = x->q[i].expression;
            mq[i].return_data = !x->q[i].has_return_data || x->q[i].return_data;
            mq[i].period_s = x->q[i].expression ? x->q[i].period : x->q[i].stat_period;
            mq[i].metric = x->q[i].metric;
            mq[i].stat = x->q[i].stat;
            mq[i].unit = x->q[i].unit;
        }
        if (sc_math_program_create(mq, x->nq, 1, &prog, &me) != SC_OK)
            return 0;
        if (sc_math_program_run(prog, store, end - SC_ANOMALY_TRAIN_MS, end, now_ms, &me) ==
                SC_OK &&
            (res = sc_math_program_result(prog, 0)) != NULL && res->series->n > 0) {
            n = res->series->n;
            *ts = malloc((size_t)n * sizeof(**ts));
            *v = malloc((size_t)n * sizeof(**v));
            if (!*ts || !*v)
                n = -1;
            else {
                memcpy(*ts, res->series->ts, (size_t)n * sizeof(**ts));
                memcpy(*v, res->series->v, (size_t)n * sizeof(**v));
            }
        }
        sc_math_program_destroy(prog);
        return n;
    }
}

static int dims_match(const struct detector *x, const struct sc_dimension *f, int nf)
{
    for (int i = 0; i < nf; i++) {
        int hit = 0;
        for (int j = 0; j < x->ndims && !hit; j++)
            hit = strcmp(x->dims[j].name, f[i].name ? f[i].name : "") == 0 &&
                  (!f[i].value || strcmp(x->dims[j].value, f[i].value) == 0);
        if (!hit)
            return 0;
    }
    return 1;
}

enum sc_status sc_anomaly_describe(const struct sc_anomaly_detectors *d,
                                   const struct sc_anomaly_describe_req *r,
                                   const struct sc_metric_store *store, int64_t now_ms,
                                   sc_anomaly_visit_fn fn, void *ud, struct sc_error *err)
{
    int want_single = r->n_types == 0, want_math = 0;

    for (int i = 0; i < r->n_types; i++) {
        if (r->types[i] && strcmp(r->types[i], "SINGLE_METRIC") == 0)
            want_single = 1;
        else if (r->types[i] && strcmp(r->types[i], "METRIC_MATH") == 0)
            want_math = 1;
        else
            return sc_fail(err, SC_ERR_VALIDATION,
                           "1 validation error detected: Value '[%s]' at 'anomalyDetectorTypes' "
                           "failed to satisfy constraint: Member must satisfy constraint: "
                           "[Member must satisfy enum value set: [METRIC_MATH, SINGLE_METRIC]]",
                           r->types[i] ? r->types[i] : "");
    }
    for (int i = 0; i < d->n; i++) {
        const struct detector *x = d->list[i];
        struct sc_anomaly_view vw;
        struct sc_anomaly_train tr;
        int64_t *ts;
        double *v;
        int n;
        if (x->math ? !want_math : !want_single)
            continue;
        if (!x->math && ((r->namespace && strcmp(r->namespace, x->ns) != 0) ||
                         (r->metric_name && strcmp(r->metric_name, x->name) != 0) ||
                         !dims_match(x, r->dimensions, r->n_dimensions)))
            continue;
        if (x->math && (r->namespace || r->metric_name || r->n_dimensions))
            continue;
        memset(&vw, 0, sizeof(vw));
        vw.math = x->math;
        vw.metric.namespace = x->ns;
        vw.metric.metric_name = x->name;
        vw.metric.dimensions = x->dims;
        vw.metric.n_dimensions = x->ndims;
        vw.metric.stat = x->stat;
        vw.queries = x->q;
        vw.n_queries = x->nq;
        vw.has_configuration = x->has_config;
        vw.excluded = x->excluded;
        vw.n_excluded = x->nexcluded;
        vw.metric_timezone = x->tz;
        vw.has_periodic_spikes = x->has_ps;
        vw.periodic_spikes = x->ps;
        train_of(d, x, now_ms, &tr);
        n = history(x, store, now_ms, &ts, &v);
        if (n < 0) {
            free(ts);
            free(v);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        vw.state_value = sc_anomaly_state_name(sc_anomaly_state_of(ts, v, n, now_ms, &tr));
        free(ts);
        free(v);
        if (fn(&vw, ud))
            break;
    }
    return SC_OK;
}

/* --- the state file ------------------------------------------------------------------------- */

json_t *sc_anomaly_save(const struct sc_anomaly_detectors *d)
{
    json_t *arr = json_array();

    for (int i = 0; arr && i < d->n; i++) {
        const struct detector *x = d->list[i];
        json_t *o = json_object(), *ex = json_array();
        if (!o || !ex) {
            json_decref(o);
            json_decref(ex);
            json_decref(arr);
            return NULL;
        }
        if (x->math) {
            json_object_set_new(o, "MetricDataQueries", sc_alarm_queries_save(x->q, x->nq));
        } else {
            json_t *ds = json_array();
            for (int k = 0; k < x->ndims; k++)
                json_array_append_new(
                    ds, json_pack("{ssss}", "Name", x->dims[k].name, "Value", x->dims[k].value));
            json_object_set_new(o, "Namespace", json_string(x->ns));
            json_object_set_new(o, "MetricName", json_string(x->name));
            json_object_set_new(o, "Dimensions", ds);
            json_object_set_new(o, "Stat", json_string(x->stat));
        }
        for (int k = 0; k < x->nexcluded; k++)
            json_array_append_new(ex, json_pack("{sIsI}", "StartTime", x->excluded[k].start_ms,
                                                "EndTime", x->excluded[k].end_ms));
        json_object_set_new(o, "HasConfiguration", json_boolean(x->has_config));
        json_object_set_new(o, "ExcludedTimeRanges", ex);
        if (x->tz)
            json_object_set_new(o, "MetricTimezone", json_string(x->tz));
        if (x->has_ps)
            json_object_set_new(o, "PeriodicSpikes", json_boolean(x->ps));
        json_array_append_new(arr, o);
    }
    return arr;
}

enum sc_status sc_anomaly_load(struct sc_anomaly_detectors *d, const json_t *j,
                               struct sc_error *err)
{
    struct sc_anomaly_detectors *t = sc_anomaly_detectors_create(d->account);
    size_t i;
    const json_t *o;
    enum sc_status s = SC_OK;

    if (!t)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    t->tz_offset = d->tz_offset;
    t->tz_ud = d->tz_ud;
    if (!json_is_array(j)) {
        s = sc_fail(err, SC_ERR_VALIDATION, "state: anomaly_detectors: expected an array");
        goto out;
    }
    json_array_foreach(j, i, o)
    {
        struct sc_anomaly_req r;
        struct sc_dimension dims[SC_METRIC_MAX_DIMENSIONS];
        struct sc_anomaly_range ex[SC_ANOMALY_MAX_EXCLUDED];
        struct sc_alarm_query *q = NULL;
        const json_t *ds = json_object_get(o, "Dimensions"), *e,
                     *exl = json_object_get(o, "ExcludedTimeRanges");
        struct sc_error le;
        char msg[256];
        size_t k;
        memset(&r, 0, sizeof(r));
        if (json_object_get(o, "MetricDataQueries")) {
            if (sc_alarm_queries_load(json_object_get(o, "MetricDataQueries"), &q, &r.n_queries,
                                      msg, sizeof(msg)) < 0) {
                s = sc_fail(err, SC_ERR_VALIDATION, "state: anomaly_detectors[%zu]: %s", i, msg);
                goto out;
            }
            r.has_math = 1;
            r.queries = q;
        } else {
            r.has_single = 1;
            r.single.namespace = json_string_value(json_object_get(o, "Namespace"));
            r.single.metric_name = json_string_value(json_object_get(o, "MetricName"));
            r.single.stat = json_string_value(json_object_get(o, "Stat"));
            if (json_array_size(ds) > SC_METRIC_MAX_DIMENSIONS) {
                s = sc_fail(err, SC_ERR_VALIDATION, "state: anomaly_detectors[%zu]: dimensions", i);
                goto out;
            }
            json_array_foreach(ds, k, e)
            {
                dims[k].name = json_string_value(json_object_get(e, "Name"));
                dims[k].value = json_string_value(json_object_get(e, "Value"));
            }
            r.single.dimensions = dims;
            r.single.n_dimensions = (int)json_array_size(ds);
        }
        r.has_configuration = json_is_true(json_object_get(o, "HasConfiguration"));
        if (json_array_size(exl) > SC_ANOMALY_MAX_EXCLUDED) {
            sc_alarm_queries_free(q, r.n_queries);
            s = sc_fail(err, SC_ERR_VALIDATION, "state: anomaly_detectors[%zu]: ranges", i);
            goto out;
        }
        json_array_foreach(exl, k, e)
        {
            ex[k].start_ms = json_integer_value(json_object_get(e, "StartTime"));
            ex[k].end_ms = json_integer_value(json_object_get(e, "EndTime"));
        }
        r.excluded = ex;
        r.n_excluded = (int)json_array_size(exl);
        r.metric_timezone = json_string_value(json_object_get(o, "MetricTimezone"));
        r.has_periodic_spikes = json_is_boolean(json_object_get(o, "PeriodicSpikes"));
        r.periodic_spikes = json_is_true(json_object_get(o, "PeriodicSpikes"));
        s = sc_anomaly_put(t, &r, &le);
        sc_alarm_queries_free(q, r.n_queries);
        if (s != SC_OK) {
            s = sc_fail(err, s == SC_ERR_INTERNAL ? s : SC_ERR_VALIDATION,
                        "state: anomaly_detectors[%zu]: %s", i, le.message);
            goto out;
        }
    }
    /* swap the lists: t takes d's old ones and is destroyed */
    {
        struct sc_anomaly_detectors tmp = *d;
        d->list = t->list;
        d->n = t->n;
        d->cap = t->cap;
        t->list = tmp.list;
        t->n = tmp.n;
        t->cap = tmp.cap;
    }
out:
    sc_anomaly_detectors_destroy(t);
    return s;
}
