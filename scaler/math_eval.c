/* scaler/math_eval.c: evaluation of metric math trees over series (docs/metric-math.md 2,
 * 3). Each rule is one function here: alignment (union of timestamps, a missing value
 * counting as 0), non-finite results dropped, the functions' tables. */
#include "scaler/math.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scaler/math_internal.h"
#include "scaler/str.h"

struct ev {
    struct sc_math_env *env;
    char *msg;
    size_t len;
};

static int efail(struct ev *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int efail(struct ev *x, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(x->msg, x->len, fmt, ap);
    va_end(ap);
    return -1;
}

static int oom(struct ev *x)
{
    return efail(x, "out of memory%s", "");
}

static void set_scalar(struct sc_math_value *v, double s, int has)
{
    memset(v, 0, sizeof(*v));
    v->type = SC_MATH_SCALAR;
    v->scalar = s;
    v->has_scalar = has;
}

/* An empty TS or ARRAY of n (zeroed) series. */
static int set_list(struct ev *x, struct sc_math_value *v, enum sc_math_type t, int n)
{
    memset(v, 0, sizeof(*v));
    v->type = t;
    v->list = calloc((size_t)(n > 0 ? n : 1), sizeof(*v->list));
    if (!v->list)
        return oom(x);
    v->n = n;
    return 0;
}

/* A new empty series with src's label, metric and period. */
static int series_like(struct sc_math_series *dst, const struct sc_math_series *src)
{
    struct sc_math_series tmp = *src;

    tmp.n = tmp.cap = 0;
    tmp.ts = NULL;
    tmp.v = NULL;
    return sc_math_series_copy(dst, &tmp);
}

static int push(struct ev *x, struct sc_math_series *s, int64_t ts, double v)
{
    if (!isfinite(v)) {
        x->env->dropped++;
        return 0;
    }
    return sc_math_series_push(s, ts, v) ? oom(x) : 0;
}

/* --- the grid --------------------------------------------------------------------------- */

static int grid_period(const struct ev *x, const struct sc_math_series *s)
{
    if (s && s->period_s > 0)
        return s->period_s;
    return x->env->period_s > 0 ? x->env->period_s : 60;
}

static int64_t grid_count(const struct ev *x, int period_s)
{
    int64_t pms = (int64_t)period_s * 1000;

    if (x->env->end_ms <= x->env->start_ms)
        return 0;
    return (x->env->end_ms - x->env->start_ms + pms - 1) / pms;
}

/* --- operators -------------------------------------------------------------------------- */

static double apply(enum math_op op, double a, double b)
{
    switch (op) {
    case MO_ADD:
        return a + b;
    case MO_SUB:
        return a - b;
    case MO_MUL:
        return a * b;
    case MO_DIV:
        return b == 0 ? NAN : a / b; /* a division by zero drops the point */
    case MO_POW:
        return pow(a, b);
    case MO_EQ:
        return a == b;
    case MO_NE:
        return a != b;
    case MO_LT:
        return a < b;
    case MO_LE:
        return a <= b;
    case MO_GT:
        return a > b;
    case MO_GE:
        return a >= b;
    case MO_AND:
        return a != 0 && b != 0;
    case MO_OR:
        return a != 0 || b != 0;
    }
    return NAN;
}

/* TS op TS over the union of timestamps; a side without a point there counts as 0. */
static int op_ts_ts(struct ev *x, enum math_op op, const struct sc_math_series *a,
                    const struct sc_math_series *b, struct sc_math_series *out)
{
    int i = 0, j = 0;

    if (series_like(out, a))
        return oom(x);
    if (b->period_s > out->period_s)
        out->period_s = b->period_s;
    while (i < a->n || j < b->n) {
        int64_t t;
        double va = 0, vb = 0;
        if (j >= b->n || (i < a->n && a->ts[i] < b->ts[j])) {
            t = a->ts[i];
            va = a->v[i++];
        } else if (i >= a->n || b->ts[j] < a->ts[i]) {
            t = b->ts[j];
            vb = b->v[j++];
        } else {
            t = a->ts[i];
            va = a->v[i++];
            vb = b->v[j++];
        }
        if (push(x, out, t, apply(op, va, vb)))
            return -1;
    }
    return 0;
}

/* TS op S (scalar_left: S op TS). A scalar without a value drops every point. */
static int op_ts_s(struct ev *x, enum math_op op, const struct sc_math_series *a, double s, int has,
                   int scalar_left, struct sc_math_series *out)
{
    if (series_like(out, a))
        return oom(x);
    if (!has)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (push(x, out, a->ts[i], scalar_left ? apply(op, s, a->v[i]) : apply(op, a->v[i], s)))
            return -1;
    return 0;
}

static int op_values(struct ev *x, enum math_op op, const struct sc_math_value *a,
                     const struct sc_math_value *b, struct sc_math_value *out)
{
    if (a->type == SC_MATH_SCALAR && b->type == SC_MATH_SCALAR) {
        double r = apply(op, a->scalar, b->scalar);
        int has = a->has_scalar && b->has_scalar && isfinite(r);
        set_scalar(out, has ? r : 0, has);
        return 0;
    }
    if (a->type == SC_MATH_ARRAY && b->type == SC_MATH_ARRAY)
        return efail(x, "Invalid arguments for operator: two arrays of time series%s", "");
    if (a->type == SC_MATH_ARRAY || b->type == SC_MATH_ARRAY) {
        const struct sc_math_value *arr = a->type == SC_MATH_ARRAY ? a : b;
        const struct sc_math_value *o = arr == a ? b : a;
        if (set_list(x, out, SC_MATH_ARRAY, arr->n))
            return -1;
        for (int i = 0; i < arr->n; i++) {
            int r;
            if (o->type == SC_MATH_SCALAR)
                r = op_ts_s(x, op, &arr->list[i], o->scalar, o->has_scalar, arr == b,
                            &out->list[i]);
            else if (arr == a)
                r = op_ts_ts(x, op, &arr->list[i], &o->list[0], &out->list[i]);
            else
                r = op_ts_ts(x, op, &o->list[0], &arr->list[i], &out->list[i]);
            if (r)
                return -1;
        }
        return 0;
    }
    if (set_list(x, out, SC_MATH_TS, 1))
        return -1;
    if (a->type == SC_MATH_TS && b->type == SC_MATH_TS)
        return op_ts_ts(x, op, &a->list[0], &b->list[0], &out->list[0]);
    if (a->type == SC_MATH_TS)
        return op_ts_s(x, op, &a->list[0], b->scalar, b->has_scalar, 0, &out->list[0]);
    return op_ts_s(x, op, &b->list[0], a->scalar, a->has_scalar, 1, &out->list[0]);
}

/* --- per-series functions --------------------------------------------------------------- */

enum pointwise { PW_ABS, PW_CEIL, PW_FLOOR, PW_LOG, PW_LOG10, PW_SQRT, PW_NEG };

static double pointwise(enum pointwise f, double v)
{
    switch (f) {
    case PW_ABS:
        return fabs(v);
    case PW_CEIL:
        return ceil(v);
    case PW_FLOOR:
        return floor(v);
    case PW_LOG:
        return v > 0 ? log(v) : NAN;
    case PW_LOG10:
        return v > 0 ? log10(v) : NAN;
    case PW_SQRT:
        return v >= 0 ? sqrt(v) : NAN;
    case PW_NEG:
        return -v;
    }
    return NAN;
}

enum seqfn { SQ_DIFF, SQ_DIFF_TIME, SQ_RATE, SQ_RUNNING_SUM };

/* One series to one series: a pointwise function or a sequence function. */
static int map_series(struct ev *x, int seq, int f, const struct sc_math_series *a,
                      struct sc_math_series *out)
{
    double run = 0;

    if (series_like(out, a))
        return oom(x);
    for (int i = 0; i < a->n; i++) {
        double v;
        if (!seq) {
            v = pointwise((enum pointwise)f, a->v[i]);
        } else if (f == SQ_RUNNING_SUM) {
            run += a->v[i];
            v = run;
        } else {
            double dt = (double)(a->ts[i] - (i ? a->ts[i - 1] : 0)) / 1000.0;
            if (i == 0)
                continue; /* no predecessor */
            v = f == SQ_DIFF        ? a->v[i] - a->v[i - 1]
                : f == SQ_DIFF_TIME ? dt
                                    : (a->v[i] - a->v[i - 1]) / dt;
        }
        if (push(x, out, a->ts[i], v))
            return -1;
    }
    return 0;
}

static int map_value(struct ev *x, int seq, int f, const struct sc_math_value *a,
                     struct sc_math_value *out)
{
    if (a->type == SC_MATH_SCALAR) {
        double r = seq ? NAN : pointwise((enum pointwise)f, a->scalar);
        if (seq)
            return -1;
        set_scalar(out, isfinite(r) ? r : 0, a->has_scalar && isfinite(r));
        return 0;
    }
    if (set_list(x, out, a->type, a->n))
        return -1;
    for (int i = 0; i < a->n; i++)
        if (map_series(x, seq, f, &a->list[i], &out->list[i]))
            return -1;
    return 0;
}

/* --- aggregates ------------------------------------------------------------------------- */

enum agg { AG_AVG, AG_MAX, AG_MIN, AG_SUM, AG_STDDEV, AG_COUNT };

static int agg_parse(const char *s, enum agg *out)
{
    static const char *const names[] = { "AVG", "MAX", "MIN", "SUM", "STDDEV", "DATAPOINT_COUNT" };

    for (int i = 0; i < 6; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (enum agg)i;
            return 0;
        }
    return -1;
}

/* The aggregate of n values (AVG over `count` values, missing ones counted as 0). */
static int agg_of(enum agg f, const double *v, int n, int count, double *out)
{
    double sum = 0, mn = INFINITY, mx = -INFINITY, ss = 0, mean;

    if (f == AG_COUNT) {
        *out = n;
        return 1;
    }
    if (n == 0)
        return 0;
    for (int i = 0; i < n; i++) {
        sum += v[i];
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    switch (f) {
    case AG_AVG:
        *out = sum / (count > n ? count : n);
        return 1;
    case AG_MAX:
        *out = mx;
        return 1;
    case AG_MIN:
        *out = mn;
        return 1;
    case AG_SUM:
        *out = sum;
        return 1;
    case AG_STDDEV:
        mean = sum / n;
        for (int i = 0; i < n; i++)
            ss += (v[i] - mean) * (v[i] - mean);
        *out = sqrt(ss / n); /* population deviation */
        return 1;
    case AG_COUNT:
        break;
    }
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* The sorted distinct timestamps of every series of the array. free() *ts. */
static int union_ts(struct ev *x, const struct sc_math_value *a, int64_t **ts, int *n)
{
    int total = 0, k = 0;

    for (int i = 0; i < a->n; i++)
        total += a->list[i].n;
    *ts = malloc((size_t)(total > 0 ? total : 1) * sizeof(**ts));
    if (!*ts)
        return oom(x);
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < a->list[i].n; j++)
            (*ts)[k++] = a->list[i].ts[j];
    qsort(*ts, (size_t)k, sizeof(**ts), cmp_i64);
    *n = 0;
    for (int i = 0; i < k; i++)
        if (*n == 0 || (*ts)[*n - 1] != (*ts)[i])
            (*ts)[(*n)++] = (*ts)[i];
    return 0;
}

/* The value of s at t, or 0 when it has none (binary search). */
static int series_at(const struct sc_math_series *s, int64_t t, double *out)
{
    int lo = 0, hi = s->n - 1;

    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (s->ts[mid] == t) {
            *out = s->v[mid];
            return 1;
        }
        if (s->ts[mid] < t)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;
}

static int aggregate(struct ev *x, enum agg f, const struct sc_math_value *a,
                     struct sc_math_value *out)
{
    int64_t *ts = NULL;
    double *vals = NULL;
    int nts = 0, rc = -1;

    if (a->type == SC_MATH_SCALAR)
        return efail(x, "Invalid arguments: a time series or an array was expected%s", "");
    if (a->type == SC_MATH_TS) {
        double r = 0;
        int has = agg_of(f, a->list[0].v, a->list[0].n, 0, &r);
        set_scalar(out, r, has);
        return 0;
    }
    if (union_ts(x, a, &ts, &nts) || set_list(x, out, SC_MATH_TS, 1))
        goto out;
    vals = malloc((size_t)(a->n > 0 ? a->n : 1) * sizeof(*vals));
    if (!vals) {
        oom(x);
        goto out;
    }
    out->list[0].period_s = a->n ? a->list[0].period_s : 0;
    for (int i = 0; i < nts; i++) {
        int k = 0;
        double r;
        for (int j = 0; j < a->n; j++)
            if (series_at(&a->list[j], ts[i], &vals[k]))
                k++;
        if (agg_of(f, vals, k, a->n, &r) && push(x, &out->list[0], ts[i], r))
            goto out;
    }
    rc = 0;
out:
    free(ts);
    free(vals);
    return rc;
}

/* --- FILL, IF, TIME_SERIES, date functions ---------------------------------------------- */

static int fill_series(struct ev *x, const struct sc_math_series *a, const struct math_node *how,
                       const struct sc_math_value *with, struct sc_math_series *out)
{
    int period = grid_period(x, a);
    int64_t nb = grid_count(x, period), pms = (int64_t)period * 1000;
    int repeat = how && strcmp(how->str, "REPEAT") == 0, linear = how && !repeat;
    int j = 0;

    if (series_like(out, a))
        return oom(x);
    for (int64_t k = 0; k < nb; k++) {
        int64_t t = x->env->start_ms + k * pms;
        double v;
        while (j < a->n && a->ts[j] < t) {
            if (push(x, out, a->ts[j], a->v[j])) /* points off the grid are kept */
                return -1;
            j++;
        }
        if (j < a->n && a->ts[j] == t) {
            if (push(x, out, t, a->v[j++]))
                return -1;
            continue;
        }
        if (repeat) {
            if (j == 0)
                continue; /* no real value before the gap */
            v = a->v[j - 1];
        } else if (linear) {
            if (j == 0 || j >= a->n)
                continue;
            v = a->v[j - 1] + (a->v[j] - a->v[j - 1]) * (double)(t - a->ts[j - 1]) /
                                  (double)(a->ts[j] - a->ts[j - 1]);
        } else if (with->type == SC_MATH_SCALAR) {
            if (!with->has_scalar)
                continue;
            v = with->scalar;
        } else if (!series_at(&with->list[0], t, &v)) {
            continue;
        }
        if (push(x, out, t, v))
            return -1;
    }
    for (; j < a->n; j++)
        if (push(x, out, a->ts[j], a->v[j]))
            return -1;
    return 0;
}

static int fn_fill(struct ev *x, const struct sc_math_value *a, const struct math_node *arg2,
                   const struct sc_math_value *with, struct sc_math_value *out)
{
    const struct math_node *how = NULL;

    if (a->type == SC_MATH_SCALAR)
        return efail(x, "Invalid arguments for %s", "FILL");
    if (arg2->kind == MN_KW) {
        if (strcmp(arg2->str, "REPEAT") != 0 && strcmp(arg2->str, "LINEAR") != 0)
            return efail(x, "Invalid arguments for %s", "FILL");
        how = arg2;
    } else if (with->type == SC_MATH_ARRAY) {
        return efail(x, "Invalid arguments for %s", "FILL");
    }
    if (set_list(x, out, a->type, a->n))
        return -1;
    for (int i = 0; i < a->n; i++)
        if (fill_series(x, &a->list[i], how, with, &out->list[i]))
            return -1;
    return 0;
}

/* IF(cond, t [, f]) per the guide's tables (docs/metric-math.md 3). */
static int if_series(struct ev *x, const struct sc_math_series *c, const struct sc_math_value *t,
                     const struct sc_math_value *f, struct sc_math_series *out)
{
    if (series_like(out, c))
        return oom(x);
    if (t->type == SC_MATH_TS && t->list[0].label) {
        free(out->label);
        out->label = sc_strdup(t->list[0].label);
    }
    for (int i = 0; i < c->n; i++) {
        const struct sc_math_value *pick = c->v[i] != 0 ? t : f;
        double v;
        if (!pick)
            continue;
        if (pick->type == SC_MATH_SCALAR) {
            if (!pick->has_scalar)
                continue;
            v = pick->scalar;
        } else if (!series_at(&pick->list[0], c->ts[i], &v)) {
            if (pick == f)
                continue; /* false side missing: dropped */
            v = 0;        /* true side missing: 0 */
        }
        if (push(x, out, c->ts[i], v))
            return -1;
    }
    return 0;
}

static int fn_if(struct ev *x, const struct sc_math_value *c, const struct sc_math_value *t,
                 const struct sc_math_value *f, struct sc_math_value *out)
{
    if (t->type == SC_MATH_ARRAY || (f && f->type == SC_MATH_ARRAY))
        return efail(x, "Invalid arguments for %s", "IF");
    if (c->type == SC_MATH_SCALAR) {
        const struct sc_math_value *pick = c->scalar != 0 && c->has_scalar ? t : f;
        if (set_list(x, out, SC_MATH_TS, 1))
            return -1;
        if (!pick)
            return 0;
        if (pick->type == SC_MATH_SCALAR) {
            int period = grid_period(x, NULL);
            int64_t nb = grid_count(x, period);
            out->list[0].period_s = period;
            for (int64_t k = 0; pick->has_scalar && k < nb; k++)
                if (push(x, &out->list[0], x->env->start_ms + k * period * 1000LL, pick->scalar))
                    return -1;
            return 0;
        }
        sc_math_series_cleanup(&out->list[0]);
        return sc_math_series_copy(&out->list[0], &pick->list[0]) ? oom(x) : 0;
    }
    if (set_list(x, out, c->type, c->n))
        return -1;
    for (int i = 0; i < c->n; i++)
        if (if_series(x, &c->list[i], t, f, &out->list[i]))
            return -1;
    return 0;
}

enum datefn { DF_MINUTE, DF_HOUR, DF_DAY, DF_DATE, DF_MONTH, DF_YEAR, DF_EPOCH };

static double date_part(enum datefn f, int64_t ts_ms)
{
    time_t t = (time_t)(ts_ms / 1000);
    struct tm tm;

    gmtime_r(&t, &tm);
    switch (f) {
    case DF_MINUTE:
        return tm.tm_min;
    case DF_HOUR:
        return tm.tm_hour;
    case DF_DAY:
        return tm.tm_wday == 0 ? 7 : tm.tm_wday; /* Monday 1 .. Sunday 7 */
    case DF_DATE:
        return tm.tm_mday;
    case DF_MONTH:
        return tm.tm_mon + 1;
    case DF_YEAR:
        return tm.tm_year + 1900;
    case DF_EPOCH:
        return (double)(ts_ms / 1000);
    }
    return NAN;
}

/* TIME_SERIES(S) (a NULL) or a date function of a (grid of a's period). */
static int grid_series(struct ev *x, int date, enum datefn f, const struct sc_math_series *a,
                       double s, struct sc_math_value *out)
{
    int period = grid_period(x, a);
    int64_t nb = grid_count(x, period);

    if (set_list(x, out, SC_MATH_TS, 1))
        return -1;
    if (a && series_like(&out->list[0], a))
        return oom(x);
    out->list[0].period_s = period;
    for (int64_t k = 0; k < nb; k++) {
        int64_t t = x->env->start_ms + k * period * 1000LL;
        if (push(x, &out->list[0], t, date ? date_part(f, t) : s))
            return -1;
    }
    return 0;
}

/* --- arrays ------------------------------------------------------------------------------ */

/* out takes ownership of a's series in the order of idx (n of them). */
static int take_series(struct ev *x, struct sc_math_value *a, const int *idx, int n,
                       struct sc_math_value *out)
{
    if (set_list(x, out, SC_MATH_ARRAY, n))
        return -1;
    for (int i = 0; i < n; i++) {
        out->list[i] = a->list[idx[i]];
        memset(&a->list[idx[i]], 0, sizeof(a->list[idx[i]]));
    }
    return 0;
}

struct sortkey {
    int idx, has;
    double key;
};

static int sort_asc(const void *pa, const void *pb)
{
    const struct sortkey *a = pa, *b = pb;

    if (a->has != b->has)
        return a->has ? -1 : 1; /* series without a value last */
    if (a->has && a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->idx - b->idx;
}

static int sort_desc(const void *pa, const void *pb)
{
    const struct sortkey *a = pa, *b = pb;

    if (a->has != b->has)
        return a->has ? -1 : 1;
    if (a->has && a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return a->idx - b->idx;
}

static int fn_sort(struct ev *x, struct sc_math_value *a, const struct math_node *fnode,
                   const struct math_node *onode, const struct sc_math_value *limit,
                   struct sc_math_value *out)
{
    struct sortkey *k;
    int *idx, n, rc;
    enum agg f;

    if (a->type != SC_MATH_ARRAY || fnode->kind != MN_KW || onode->kind != MN_KW ||
        agg_parse(fnode->str, &f) || f == AG_STDDEV || f == AG_COUNT ||
        (strcmp(onode->str, "ASC") != 0 && strcmp(onode->str, "DESC") != 0) ||
        (limit && (limit->type != SC_MATH_SCALAR || !limit->has_scalar)))
        return efail(x, "Invalid arguments for %s", "SORT");
    k = calloc((size_t)(a->n > 0 ? a->n : 1), sizeof(*k));
    idx = calloc((size_t)(a->n > 0 ? a->n : 1), sizeof(*idx));
    if (!k || !idx) {
        free(k);
        free(idx);
        return oom(x);
    }
    for (int i = 0; i < a->n; i++) {
        k[i].idx = i;
        k[i].has = agg_of(f, a->list[i].v, a->list[i].n, 0, &k[i].key);
    }
    qsort(k, (size_t)a->n, sizeof(*k), onode->str[0] == 'A' ? sort_asc : sort_desc);
    n = a->n;
    if (limit && limit->scalar >= 0 && limit->scalar < n)
        n = (int)limit->scalar;
    for (int i = 0; i < n; i++)
        idx[i] = k[i].idx;
    rc = take_series(x, a, idx, n, out);
    free(k);
    free(idx);
    return rc;
}

/* --- the walk ---------------------------------------------------------------------------- */

static int eval(struct ev *x, const struct math_node *n, struct sc_math_value *out);

static int need(struct ev *x, const struct math_node *n, int lo, int hi)
{
    if (n->nargs < lo || n->nargs > hi)
        return efail(x, "Invalid number of arguments for %s", n->str);
    return 0;
}

static int want_series(struct ev *x, const struct math_node *n, const struct sc_math_value *v)
{
    if (v->type == SC_MATH_SCALAR)
        return efail(x, "Invalid arguments for %s", n->str);
    return 0;
}

static int call(struct ev *x, const struct math_node *n, struct sc_math_value *out)
{
    const char *f = n->str;
    struct sc_math_value a[4];
    int na = 0, rc = -1;
    enum agg ag;

    memset(a, 0, sizeof(a));
    if (strcmp(f, "METRICS") == 0) {
        if (need(x, n, 0, 1))
            return -1;
        if (n->nargs == 1 && n->args[0]->kind != MN_STR)
            return efail(x, "Invalid arguments for %s", f);
        return x->env->metrics(x->env->ud, n->nargs ? n->args[0]->str : NULL, out, x->msg, x->len);
    }
    if (strcmp(f, "SEARCH") == 0) {
        int period = 0;
        if (need(x, n, 2, 3) || n->args[0]->kind != MN_STR || n->args[1]->kind != MN_STR)
            return efail(x, "Invalid arguments for %s", f);
        if (n->nargs == 3) {
            if (n->args[2]->kind != MN_NUM || n->args[2]->num <= 0)
                return efail(x, "Invalid arguments for %s", f);
            period = (int)n->args[2]->num;
        }
        return x->env->search(x->env->ud, n->args[0]->str, n->args[1]->str,
                              period ? period : grid_period(x, NULL), out, x->msg, x->len);
    }
    if (strcmp(f, "ANOMALY_DETECTION_BAND") == 0) {
        double k = SC_MATH_BAND_DEFAULT_K;
        if (need(x, n, 1, 2) || eval(x, n->args[0], &a[0]))
            goto out;
        if (n->nargs == 2 && eval(x, n->args[1], &a[1]))
            goto out;
        if (a[0].type != SC_MATH_TS) {
            efail(x, "Unsupported operand type(s) for ANOMALY_DETECTION_BAND: '[%s%s]'",
                  a[0].type == SC_MATH_ARRAY ? "Array[TimeSeries]" : "Scalar",
                  n->nargs == 2 ? ", Scalar" : "");
            goto out;
        }
        if (n->nargs == 2) {
            if (a[1].type != SC_MATH_SCALAR || !a[1].has_scalar || !(a[1].scalar > 0)) {
                efail(x, "Invalid arguments for %s", f);
                goto out;
            }
            k = a[1].scalar;
        }
        if (!x->env->band) {
            efail(x, "The function %s is not supported here", f);
            goto out;
        }
        na = 2;
        rc = x->env->band(x->env->ud, &a[0].list[0],
                          n->args[0]->kind == MN_ID ? n->args[0]->str : NULL, k, out, x->msg,
                          x->len);
        goto out;
    }
    if (strcmp(f, "SORT") == 0) {
        if (need(x, n, 3, 4) || eval(x, n->args[0], &a[0]) ||
            (n->nargs == 4 && eval(x, n->args[3], &a[1])))
            goto out;
        na = 2;
        rc = fn_sort(x, &a[0], n->args[1], n->args[2], n->nargs == 4 ? &a[1] : NULL, out);
        goto out;
    }
    /* every other function: evaluate the arguments (FILL's keyword stays a node) */
    if (n->nargs > 4)
        return efail(x, "Invalid number of arguments for %s", f);
    for (na = 0; na < n->nargs; na++) {
        if (strcmp(f, "FILL") == 0 && na == 1 && n->args[1]->kind == MN_KW)
            continue;
        if (n->args[na]->kind == MN_KW)
            return efail(x, "Invalid arguments for %s", f);
        if (eval(x, n->args[na], &a[na]))
            goto out;
    }
    if (strcmp(f, "ABS") == 0 || strcmp(f, "CEIL") == 0 || strcmp(f, "FLOOR") == 0 ||
        strcmp(f, "LOG") == 0 || strcmp(f, "LOG10") == 0 || strcmp(f, "SQRT") == 0) {
        enum pointwise pw = f[0] == 'A'   ? PW_ABS
                            : f[0] == 'C' ? PW_CEIL
                            : f[0] == 'F' ? PW_FLOOR
                            : f[0] == 'S' ? PW_SQRT
                            : f[3]        ? PW_LOG10
                                          : PW_LOG;
        if (need(x, n, 1, 1) || want_series(x, n, &a[0]))
            goto out;
        rc = map_value(x, 0, pw, &a[0], out);
    } else if (strcmp(f, "DIFF") == 0 || strcmp(f, "DIFF_TIME") == 0 || strcmp(f, "RATE") == 0 ||
               strcmp(f, "RUNNING_SUM") == 0) {
        enum seqfn sq = f[0] == 'R' ? (f[1] == 'A' ? SQ_RATE : SQ_RUNNING_SUM)
                                    : (f[4] ? SQ_DIFF_TIME : SQ_DIFF);
        if (need(x, n, 1, 1) || want_series(x, n, &a[0]))
            goto out;
        rc = map_value(x, 1, sq, &a[0], out);
    } else if (agg_parse(f, &ag) == 0) {
        if (need(x, n, 1, 1))
            goto out;
        rc = aggregate(x, ag, &a[0], out);
    } else if (strcmp(f, "FILL") == 0) {
        if (need(x, n, 2, 2))
            goto out;
        rc = fn_fill(x, &a[0], n->args[1], &a[1], out);
    } else if (strcmp(f, "IF") == 0) {
        if (need(x, n, 2, 3))
            goto out;
        rc = fn_if(x, &a[0], &a[1], n->nargs == 3 ? &a[2] : NULL, out);
    } else if (strcmp(f, "FIRST") == 0 || strcmp(f, "LAST") == 0) {
        if (need(x, n, 1, 1) || a[0].type != SC_MATH_ARRAY) {
            efail(x, "Invalid arguments for %s", f);
            goto out;
        }
        if (set_list(x, out, SC_MATH_TS, 1))
            goto out;
        rc = 0;
        if (a[0].n > 0) {
            int i = f[0] == 'F' ? 0 : a[0].n - 1;
            out->list[0] = a[0].list[i];
            memset(&a[0].list[i], 0, sizeof(a[0].list[i]));
        }
    } else if (strcmp(f, "METRIC_COUNT") == 0) {
        if (need(x, n, 1, 1) || a[0].type != SC_MATH_ARRAY) {
            efail(x, "Invalid arguments for %s", f);
            goto out;
        }
        set_scalar(out, a[0].n, 1);
        rc = 0;
    } else if (strcmp(f, "REMOVE_EMPTY") == 0 || strcmp(f, "SLICE") == 0) {
        int idx_n = 0, *idx, lo = 0, hi;
        if (strcmp(f, "SLICE") == 0 ? need(x, n, 2, 3) : need(x, n, 1, 1))
            goto out;
        if (a[0].type != SC_MATH_ARRAY || (n->nargs > 1 && (a[1].type != SC_MATH_SCALAR)) ||
            (n->nargs > 2 && a[2].type != SC_MATH_SCALAR)) {
            efail(x, "Invalid arguments for %s", f);
            goto out;
        }
        hi = a[0].n;
        if (n->nargs > 1)
            lo = a[1].scalar < 0 ? 0 : (int)a[1].scalar;
        if (n->nargs > 2 && a[2].scalar < hi)
            hi = a[2].scalar < 0 ? 0 : (int)a[2].scalar;
        idx = calloc((size_t)(a[0].n + 1), sizeof(*idx));
        if (!idx) {
            oom(x);
            goto out;
        }
        for (int i = lo; i < hi; i++)
            if (f[0] == 'S' || a[0].list[i].n > 0)
                idx[idx_n++] = i;
        rc = take_series(x, &a[0], idx, idx_n, out);
        free(idx);
        if (rc == 0 && f[0] == 'S' && out->n == 1)
            out->type = SC_MATH_TS;
    } else if (strcmp(f, "PERIOD") == 0) {
        if (need(x, n, 1, 1) || a[0].type != SC_MATH_TS) {
            efail(x, "Invalid arguments for %s", f);
            goto out;
        }
        set_scalar(out, a[0].list[0].period_s, a[0].list[0].period_s > 0);
        rc = 0;
    } else if (strcmp(f, "TIME_SERIES") == 0) {
        if (need(x, n, 1, 1) || a[0].type != SC_MATH_SCALAR) {
            efail(x, "Invalid arguments for %s", f);
            goto out;
        }
        rc = grid_series(x, 0, DF_EPOCH, NULL, a[0].has_scalar ? a[0].scalar : NAN, out);
    } else {
        static const char *const dates[] = { "MINUTE", "HOUR", "DAY",  "DATE",
                                             "MONTH",  "YEAR", "EPOCH" };
        int d = -1;
        for (int i = 0; i < 7; i++)
            if (strcmp(f, dates[i]) == 0)
                d = i;
        if (d < 0 || need(x, n, 1, 1) || a[0].type != SC_MATH_TS) {
            efail(x, "Invalid arguments for %s", f);
            goto out;
        }
        rc = grid_series(x, 1, (enum datefn)d, &a[0].list[0], 0, out);
    }
out:
    for (int i = 0; i < 4; i++)
        sc_math_value_cleanup(&a[i]);
    return rc;
}

static int eval(struct ev *x, const struct math_node *n, struct sc_math_value *out)
{
    struct sc_math_value a, b;
    int rc;

    memset(out, 0, sizeof(*out));
    switch (n->kind) {
    case MN_NUM:
        set_scalar(out, n->num, 1);
        return 0;
    case MN_STR:
    case MN_KW:
        return efail(x, "Syntax error: unexpected %s", n->str);
    case MN_ID:
        return x->env->lookup(x->env->ud, n->str, out, x->msg, x->len);
    case MN_NEG:
        if (eval(x, n->args[0], &a))
            return -1;
        rc = map_value(x, 0, PW_NEG, &a, out);
        sc_math_value_cleanup(&a);
        return rc;
    case MN_BIN:
        if (eval(x, n->args[0], &a))
            return -1;
        if (eval(x, n->args[1], &b)) {
            sc_math_value_cleanup(&a);
            return -1;
        }
        rc = op_values(x, n->op, &a, &b, out);
        sc_math_value_cleanup(&a);
        sc_math_value_cleanup(&b);
        return rc;
    case MN_CALL:
        return call(x, n, out);
    case MN_ARRAY: {
        int total = 0, k = 0;
        struct sc_math_value *el = calloc((size_t)(n->nargs + 1), sizeof(*el));
        if (!el)
            return oom(x);
        rc = 0;
        for (int i = 0; i < n->nargs && rc == 0; i++) {
            rc = eval(x, n->args[i], &el[i]);
            if (rc == 0 && el[i].type == SC_MATH_SCALAR)
                rc = efail(x, "Invalid arguments: an array holds time series%s", "");
            total += el[i].n;
        }
        if (rc == 0)
            rc = set_list(x, out, SC_MATH_ARRAY, total);
        for (int i = 0; i < n->nargs; i++) {
            for (int j = 0; rc == 0 && j < el[i].n; j++) {
                out->list[k++] = el[i].list[j];
                memset(&el[i].list[j], 0, sizeof(el[i].list[j]));
            }
            sc_math_value_cleanup(&el[i]);
        }
        free(el);
        return rc;
    }
    }
    return efail(x, "Syntax error%s", "");
}

int sc_math_eval(const struct sc_math_expr *e, struct sc_math_env *env, struct sc_math_value *out,
                 char *msg, size_t msglen)
{
    struct ev x = { env, msg, msglen };
    int rc;

    env->dropped = 0;
    rc = eval(&x, e->root, out);
    if (rc)
        sc_math_value_cleanup(out);
    return rc;
}
