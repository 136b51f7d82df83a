/* scaler/math_query.c: a MetricDataQuery list as one program (docs/metric-math.md 1, 4):
 * Ids, unknown references and cycles checked at create; each run fetches the MetricStat
 * series from the store, evaluates expressions once each (memoized, in dependency order),
 * and gives the returned series with their labels. */
#include "scaler/math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scaler/anomaly.h"
#include "scaler/str.h"

#define SEARCH_MAX_SERIES 500
#define SEARCH_WINDOW_MS  (14LL * 86400 * 1000)

struct qstate {
    char *id, *expression, *label, *ns, *name, *stat, *unit;
    struct sc_dimension *dims;
    int ndims, return_data, own_period, period_s;
    struct sc_math_expr *expr;
    int *deps, ndeps;
    int mark; /* cycle check: 0 new, 1 on the stack, 2 done */
    /* per run */
    int done;
    struct sc_math_value val;
    int dropped;
};

struct sc_math_program {
    struct qstate *q;
    int n;
    struct sc_math_result *res;
    char **labels;
    int nres, cap;
    /* the run */
    const struct sc_metric_store *store;
    int64_t start_ms, end_ms, now_ms;
    int run_failed;
    /* ANOMALY_DETECTION_BAND: the detectors, and the history every run fetches before its
     * start (band_ext_ms, a multiple of every query's period; 0 without a band) */
    const struct sc_anomaly_detectors *det;
    int64_t band_ext_ms, real_start_ms;
};

static int find_id(const struct sc_math_program *p, const char *id)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->q[i].id, id) == 0)
            return i;
    return -1;
}

static void clear_run(struct sc_math_program *p)
{
    for (int i = 0; i < p->n; i++) {
        sc_math_value_cleanup(&p->q[i].val);
        p->q[i].done = 0;
        p->q[i].dropped = 0;
    }
    for (int i = 0; i < p->nres; i++)
        free(p->labels[i]);
    p->nres = 0;
}

void sc_math_program_destroy(struct sc_math_program *p)
{
    if (!p)
        return;
    clear_run(p);
    for (int i = 0; i < p->n; i++) {
        struct qstate *s = &p->q[i];
        free(s->id);
        free(s->expression);
        free(s->label);
        free(s->ns);
        free(s->name);
        free(s->stat);
        free(s->unit);
        for (int k = 0; k < s->ndims; k++) {
            free((char *)s->dims[k].name);
            free((char *)s->dims[k].value);
        }
        free(s->dims);
        free(s->deps);
        sc_math_expr_destroy(s->expr);
    }
    free(p->q);
    free(p->res);
    free(p->labels);
    free(p);
}

/* --- create ------------------------------------------------------------------------------ */

struct depctx {
    struct sc_math_program *p;
    int self;
    struct sc_math_error *err;
};

static int add_dep(const char *id, int pos, void *ud)
{
    struct depctx *c = ud;
    struct qstate *s = &c->p->q[c->self];
    int k = find_id(c->p, id);
    int *g;

    if (k < 0) {
        c->err->query = c->self;
        snprintf(c->err->msg, sizeof(c->err->msg),
                 "Error in expression %s: Unrecognized identifier %s at position %d", s->id, id,
                 pos);
        return 1;
    }
    g = realloc(s->deps, (size_t)(s->ndeps + 1) * sizeof(*g));
    if (!g)
        return 2;
    s->deps = g;
    s->deps[s->ndeps++] = k;
    return 0;
}

static int cycle_visit(struct sc_math_program *p, int i)
{
    struct qstate *s = &p->q[i];

    if (s->mark == 1)
        return 1;
    if (s->mark == 2)
        return 0;
    s->mark = 1;
    for (int k = 0; k < s->ndeps; k++)
        if (cycle_visit(p, s->deps[k]))
            return 1;
    s->mark = 2;
    return 0;
}

/* The grid period: its own, else the smallest of what it uses, else 0 (none known). */
static int period_of(struct sc_math_program *p, int i, int depth)
{
    struct qstate *s = &p->q[i];
    int best = 0;

    if (s->own_period > 0 || depth > p->n)
        return s->own_period;
    for (int k = 0; k < s->ndeps; k++) {
        int d = period_of(p, s->deps[k], depth + 1);
        if (d > 0 && (best == 0 || d < best))
            best = d;
    }
    if (s->expr && sc_math_expr_uses_metrics(s->expr))
        for (int k = 0; k < p->n; k++)
            if (!p->q[k].expr && p->q[k].own_period > 0 && (best == 0 || p->q[k].own_period < best))
                best = p->q[k].own_period;
    return best;
}

static int copy_query(struct qstate *s, const struct sc_math_query *q)
{
    s->return_data = q->return_data;
    s->own_period = q->period_s;
    if (!(s->id = sc_strdup(q->id ? q->id : "")) || sc_strdup_opt(&s->expression, q->expression) ||
        sc_strdup_opt(&s->label, q->label) || sc_strdup_opt(&s->ns, q->metric.namespace) ||
        sc_strdup_opt(&s->name, q->metric.metric_name) || sc_strdup_opt(&s->stat, q->stat) ||
        sc_strdup_opt(&s->unit, q->unit))
        return -1;
    if (!q->expression && q->metric.n_dimensions > 0) {
        s->dims = calloc((size_t)q->metric.n_dimensions, sizeof(*s->dims));
        if (!s->dims)
            return -1;
        s->ndims = q->metric.n_dimensions;
        for (int k = 0; k < s->ndims; k++) {
            s->dims[k].name = sc_strdup(q->metric.dimensions[k].name);
            s->dims[k].value = sc_strdup(q->metric.dimensions[k].value);
            if (!s->dims[k].name || !s->dims[k].value)
                return -1;
        }
    }
    return 0;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* A program with ANOMALY_DETECTION_BAND fetches the training window before each run's start:
 * 14 days rounded up to a multiple of every period, so the grids stay aligned. */
static void band_history(struct sc_math_program *p)
{
    int64_t l = 1;
    int uses = 0;

    for (int i = 0; i < p->n; i++)
        if (p->q[i].expr && sc_math_expr_calls(p->q[i].expr, "ANOMALY_DETECTION_BAND"))
            uses = 1;
    if (!uses)
        return;
    for (int i = 0; i < p->n; i++) {
        int64_t ps = p->q[i].period_s > 0 ? p->q[i].period_s : 60;
        if (l <= SC_ANOMALY_TRAIN_MS / 1000)
            l = l / gcd64(l, ps) * ps;
    }
    l *= 1000;
    p->band_ext_ms = (SC_ANOMALY_TRAIN_MS + l - 1) / l * l;
}

void sc_math_program_set_anomaly(struct sc_math_program *p, const struct sc_anomaly_detectors *d)
{
    p->det = d;
}

enum sc_status sc_math_program_create(const struct sc_math_query *q, int n, int no_search,
                                      struct sc_math_program **out, struct sc_math_error *err)
{
    struct sc_math_program *p = calloc(1, sizeof(*p));
    int minp = 0;

    *out = NULL;
    err->query = 0;
    err->msg[0] = 0;
    if (!p || !(p->q = calloc((size_t)(n > 0 ? n : 1), sizeof(*p->q))))
        goto oom;
    p->n = n;
    for (int i = 0; i < n; i++)
        if (copy_query(&p->q[i], &q[i]))
            goto oom;
    for (int i = 0; i < n; i++) {
        struct qstate *s = &p->q[i];
        struct depctx c = { p, i, err };
        char msg[SC_MATH_ERR_LEN - 64];
        int pos, r;
        if (!s->expression) {
            if (s->own_period > 0 && (minp == 0 || s->own_period < minp))
                minp = s->own_period;
            continue;
        }
        s->expr = sc_math_parse(s->expression, &pos, msg, sizeof(msg));
        if (!s->expr) {
            if (strcmp(msg, "out of memory") == 0)
                goto oom;
            err->query = i;
            snprintf(err->msg, sizeof(err->msg), "Error in expression %s: %s at position %d", s->id,
                     msg, pos);
            goto invalid;
        }
        if (no_search && sc_math_expr_calls(s->expr, "SEARCH")) {
            err->query = i;
            snprintf(err->msg, sizeof(err->msg),
                     "Error in expression %s: SEARCH cannot be used in an alarm", s->id);
            goto invalid;
        }
        r = sc_math_expr_ids(s->expr, add_dep, &c);
        if (r == 2)
            goto oom;
        if (r)
            goto invalid;
    }
    for (int i = 0; i < n; i++)
        if (cycle_visit(p, i)) {
            err->query = i;
            snprintf(err->msg, sizeof(err->msg),
                     "Error in expression %s: Circular dependency between expressions", p->q[i].id);
            goto invalid;
        }
    for (int i = 0; i < n; i++) {
        int d = period_of(p, i, 0);
        p->q[i].period_s = d > 0 ? d : minp > 0 ? minp : 60;
    }
    band_history(p);
    *out = p;
    return SC_OK;
invalid:
    sc_math_program_destroy(p);
    return SC_ERR_VALIDATION;
oom:
    sc_math_program_destroy(p);
    snprintf(err->msg, sizeof(err->msg), "out of memory");
    return SC_ERR_INTERNAL;
}

int sc_math_program_period(const struct sc_math_program *p, int i)
{
    return i >= 0 && i < p->n ? p->q[i].period_s : 60;
}

/* --- run ---------------------------------------------------------------------------------- */

static int set_meta(struct sc_math_series *s, const char *ns, const char *name, const char *stat,
                    const struct sc_dimension *dims, int nd)
{
    if (sc_strdup_opt(&s->namespace, ns) || sc_strdup_opt(&s->metric_name, name) ||
        sc_strdup_opt(&s->stat, stat))
        return -1;
    if (nd > 0) {
        s->dims = calloc((size_t)nd, sizeof(*s->dims));
        if (!s->dims)
            return -1;
        s->ndims = nd;
        for (int k = 0; k < nd; k++) {
            s->dims[k].name = sc_strdup(dims[k].name);
            s->dims[k].value = sc_strdup(dims[k].value);
            if (!s->dims[k].name || !s->dims[k].value)
                return -1;
        }
    }
    return 0;
}

/* The series of one metric with one statistic over the run's grid. */
static int fetch(const struct sc_math_program *p, const struct sc_metric *m, const char *stat,
                 enum sc_unit u, int period_s, struct sc_math_series *s)
{
    struct sc_stat st;
    int64_t pms = (int64_t)period_s * 1000;
    int64_t nb = p->end_ms > p->start_ms ? (p->end_ms - p->start_ms + pms - 1) / pms : 0;

    s->period_s = period_s;
    if (!stat || (sc_stat_parse(stat, 1, &st) < 0 && sc_stat_parse(stat, 0, &st) < 0))
        return 0; /* checked by the caller: no data */
    for (int64_t k = 0; m && k < nb; k++) {
        int64_t t = p->start_ms + k * pms;
        struct sc_agg ag;
        double v;
        if (!sc_metric_aggregate(m, u, t, period_s, &st.pct, st.kind == SC_STAT_PERCENTILE, &ag) ||
            sc_agg_value(&ag, &st, 0, &v) < 0)
            continue;
        if (sc_math_series_push(s, t, v))
            return -1;
    }
    return 0;
}

static int eval_query(struct sc_math_program *p, int i, char *msg, size_t len);

static int copy_value(struct sc_math_value *dst, const struct sc_math_value *src)
{
    *dst = *src;
    dst->list = NULL;
    dst->n = 0;
    if (src->n == 0)
        return 0;
    dst->list = calloc((size_t)src->n, sizeof(*dst->list));
    if (!dst->list)
        return -1;
    for (int k = 0; k < src->n; k++) {
        if (sc_math_series_copy(&dst->list[k], &src->list[k])) {
            sc_math_value_cleanup(dst);
            return -1;
        }
        dst->n++;
    }
    return 0;
}

static int env_lookup(void *ud, const char *id, struct sc_math_value *out, char *msg, size_t len)
{
    struct sc_math_program *p = ud;
    int k = find_id(p, id);

    if (k < 0) {
        snprintf(msg, len, "Unrecognized identifier %s", id);
        return -1;
    }
    if (eval_query(p, k, msg, len))
        return -1;
    if (copy_value(out, &p->q[k].val)) {
        snprintf(msg, len, "out of memory");
        return -1;
    }
    return 0;
}

static int env_metrics(void *ud, const char *filter, struct sc_math_value *out, char *msg,
                       size_t len)
{
    struct sc_math_program *p = ud;
    int n = 0;

    memset(out, 0, sizeof(*out));
    out->type = SC_MATH_ARRAY;
    out->list = calloc((size_t)(p->n > 0 ? p->n : 1), sizeof(*out->list));
    if (!out->list)
        goto oom;
    for (int k = 0; k < p->n; k++) {
        if (p->q[k].expr || (filter && !strstr(p->q[k].id, filter)))
            continue;
        if (eval_query(p, k, msg, len))
            return -1;
        if (sc_math_series_copy(&out->list[n], &p->q[k].val.list[0]))
            goto oom;
        out->n = ++n;
    }
    return 0;
oom:
    snprintf(msg, len, "out of memory");
    return -1;
}

static int env_search(void *ud, const char *query, const char *stat, int period_s,
                      struct sc_math_value *out, char *msg, size_t len)
{
    struct sc_math_program *p = ud;
    struct sc_math_search *q;
    struct sc_stat st;
    int count = p->store ? sc_metric_store_count(p->store) : 0, rc = -1;

    memset(out, 0, sizeof(*out));
    out->type = SC_MATH_ARRAY;
    if (sc_stat_parse(stat, 1, &st) < 0 && sc_stat_parse(stat, 0, &st) < 0) {
        snprintf(msg, len, "Invalid statistic %s in SEARCH", stat);
        return -1;
    }
    q = sc_math_search_create(query, msg, len);
    if (!q)
        return -1;
    for (int i = 0; i < count && out->n < SEARCH_MAX_SERIES; i++) {
        const struct sc_metric *m = sc_metric_store_at(p->store, i);
        struct sc_math_series *s, *g;
        char label[1024];
        size_t o;
        int nd = sc_metric_dimension_count(m);
        struct sc_dimension dims[SC_METRIC_MAX_DIMENSIONS];
        if (sc_metric_last_timestamp_ms(m) < p->now_ms - SEARCH_WINDOW_MS ||
            !sc_math_search_matches(q, m))
            continue;
        g = realloc(out->list, (size_t)(out->n + 1) * sizeof(*g));
        if (!g)
            goto oom;
        out->list = g;
        s = &out->list[out->n++];
        memset(s, 0, sizeof(*s));
        o = (size_t)snprintf(label, sizeof(label), "%s", sc_metric_name(m));
        for (int k = 0; k < nd && k < SC_METRIC_MAX_DIMENSIONS; k++) {
            dims[k] = sc_metric_dimension_at(m, k);
            if (o < sizeof(label))
                o += (size_t)snprintf(label + o, sizeof(label) - o, " %s", dims[k].value);
        }
        if (!(s->label = sc_strdup(label)) ||
            set_meta(s, sc_metric_namespace(m), sc_metric_name(m), stat, dims, nd) ||
            fetch(p, m, stat, SC_UNIT_ANY, period_s, s))
            goto oom;
    }
    rc = 0;
    goto out;
oom:
    snprintf(msg, len, "out of memory");
out:
    sc_math_search_destroy(q);
    return rc;
}

static int env_band(void *ud, const struct sc_math_series *s, const char *arg_id, double k,
                    struct sc_math_value *out, char *msg, size_t len)
{
    struct sc_math_program *p = ud;
    struct sc_anomaly_train tr;
    struct sc_metric_key key = { s->namespace, s->metric_name, s->dims, s->ndims };
    int64_t pms = (int64_t)(s->period_s > 0 ? s->period_s : 60) * 1000;
    int64_t from = p->band_ext_ms ? p->real_start_ms : p->start_ms;
    int a = arg_id ? find_id(p, arg_id) : -1;
    struct sc_math_series tmp = *s;

    sc_anomaly_train_for(p->det, s->metric_name ? &key : NULL, s->stat,
                         a >= 0 ? p->q[a].expression : NULL, from, &tr);
    memset(out, 0, sizeof(*out));
    out->type = SC_MATH_ARRAY;
    out->list = calloc(2, sizeof(*out->list));
    if (!out->list)
        goto oom;
    out->n = 2;
    tmp.n = tmp.cap = 0;
    tmp.ts = NULL;
    tmp.v = NULL;
    tmp.label = NULL;
    for (int e = 0; e < 2; e++)
        if (sc_math_series_copy(&out->list[e], &tmp) ||
            !(out->list[e].label = sc_strdup(e ? "Upper" : "Lower")))
            goto oom;
    /* the grid of the run from its real start (from - start is a multiple of the period) */
    for (int64_t t = p->start_ms + (from - p->start_ms + pms - 1) / pms * pms; t < p->end_ms;
         t += pms) {
        struct sc_anomaly_band b;
        int r = sc_anomaly_band_at(s->ts, s->v, s->n, t, k, &tr, &b);
        if (r < 0)
            goto oom;
        if (r == 0 || !isfinite(b.lower) || !isfinite(b.upper))
            continue;
        if (sc_math_series_push(&out->list[0], t, b.lower) ||
            sc_math_series_push(&out->list[1], t, b.upper))
            goto oom;
    }
    return 0;
oom:
    snprintf(msg, len, "out of memory");
    return -1;
}

/* Drops the points a band program fetched before the run's start. */
static void trim_history(struct sc_math_program *p)
{
    for (int i = 0; i < p->n; i++) {
        for (int k = 0; p->q[i].done && k < p->q[i].val.n; k++) {
            struct sc_math_series *s = &p->q[i].val.list[k];
            int j = 0;
            while (j < s->n && s->ts[j] < p->real_start_ms)
                j++;
            if (j == 0)
                continue;
            memmove(s->ts, s->ts + j, (size_t)(s->n - j) * sizeof(*s->ts));
            memmove(s->v, s->v + j, (size_t)(s->n - j) * sizeof(*s->v));
            s->n -= j;
        }
    }
}

static int eval_query(struct sc_math_program *p, int i, char *msg, size_t len)
{
    struct qstate *s = &p->q[i];
    struct sc_math_env env;

    if (s->done)
        return 0;
    memset(&s->val, 0, sizeof(s->val));
    if (!s->expr) {
        struct sc_metric_key key = { s->ns, s->name, s->dims, s->ndims };
        const struct sc_metric *m = p->store ? sc_metric_store_find(p->store, &key) : NULL;
        enum sc_unit u = SC_UNIT_ANY;
        struct sc_math_series *ser;
        if (s->unit)
            sc_unit_parse(s->unit, &u);
        s->val.type = SC_MATH_TS;
        s->val.list = calloc(1, sizeof(*s->val.list));
        if (!s->val.list)
            goto oom;
        s->val.n = 1;
        ser = &s->val.list[0];
        if (!(ser->label = sc_strdup(s->name ? s->name : "")) ||
            set_meta(ser, s->ns, s->name, s->stat, s->dims, s->ndims) ||
            fetch(p, m, s->stat, u, s->own_period > 0 ? s->own_period : 60, ser))
            goto oom;
        s->done = 1;
        return 0;
    }
    memset(&env, 0, sizeof(env));
    env.start_ms = p->start_ms;
    env.end_ms = p->end_ms;
    env.period_s = s->period_s;
    env.lookup = env_lookup;
    env.metrics = env_metrics;
    env.search = env_search;
    env.band = env_band;
    env.ud = p;
    if (sc_math_eval(s->expr, &env, &s->val, msg, len))
        return -1;
    s->dropped = env.dropped;
    s->done = 1;
    return 0;
oom:
    snprintf(msg, len, "out of memory");
    return -1;
}

static int add_result(struct sc_math_program *p, int qi, const struct sc_math_series *s,
                      const char *label)
{
    if (p->nres == p->cap) {
        int cap = p->cap ? p->cap * 2 : 8;
        struct sc_math_result *r = realloc(p->res, (size_t)cap * sizeof(*r));
        char **l;
        if (!r)
            return -1;
        p->res = r;
        l = realloc(p->labels, (size_t)cap * sizeof(*l));
        if (!l)
            return -1;
        p->labels = l;
        p->cap = cap;
    }
    p->labels[p->nres] = sc_strdup(label);
    if (!p->labels[p->nres])
        return -1;
    p->res[p->nres].query = qi;
    p->res[p->nres].series = s;
    p->res[p->nres].label = p->labels[p->nres];
    p->res[p->nres].dropped = p->q[qi].dropped;
    p->nres++;
    return 0;
}

enum sc_status sc_math_program_run(struct sc_math_program *p, const struct sc_metric_store *store,
                                   int64_t start_ms, int64_t end_ms, int64_t now_ms,
                                   struct sc_math_error *err)
{
    char label[1024], def[1024];

    clear_run(p);
    p->store = store;
    p->real_start_ms = start_ms;
    p->start_ms = start_ms - p->band_ext_ms;
    p->end_ms = end_ms;
    p->now_ms = now_ms;
    /* every returned query first: a band reads its input's history, trimmed only after */
    for (int i = 0; p->band_ext_ms && i < p->n; i++) {
        char msg[SC_MATH_ERR_LEN - 64];
        if (!p->q[i].return_data)
            continue;
        if (eval_query(p, i, msg, sizeof(msg))) {
            err->query = i;
            snprintf(err->msg, sizeof(err->msg), "Error in expression %s: %s", p->q[i].id, msg);
            return strcmp(msg, "out of memory") == 0 ? SC_ERR_INTERNAL : SC_ERR_VALIDATION;
        }
    }
    if (p->band_ext_ms)
        trim_history(p);
    for (int i = 0; i < p->n; i++) {
        struct qstate *s = &p->q[i];
        char msg[SC_MATH_ERR_LEN - 64];
        if (!s->return_data)
            continue;
        if (eval_query(p, i, msg, sizeof(msg))) {
            err->query = i;
            snprintf(err->msg, sizeof(err->msg), "Error in expression %s: %s", s->id, msg);
            return strcmp(msg, "out of memory") == 0 ? SC_ERR_INTERNAL : SC_ERR_VALIDATION;
        }
        if (s->val.type == SC_MATH_SCALAR) {
            err->query = i;
            snprintf(err->msg, sizeof(err->msg),
                     "Error in expression %s: The expression must return a time series or an "
                     "array of time series",
                     s->id);
            return SC_ERR_VALIDATION;
        }
        for (int k = 0; k < s->val.n; k++) {
            const struct sc_math_series *ser = &s->val.list[k];
            if (s->val.type == SC_MATH_TS) {
                snprintf(def, sizeof(def), "%s", s->expr ? s->id : (s->name ? s->name : ""));
                if (s->label)
                    sc_math_label_format(s->label, def, ser, label, sizeof(label));
                else
                    snprintf(label, sizeof(label), "%s", def);
            } else if (!s->label && ser->label && s->expr &&
                       (strcmp(ser->label, "Lower") == 0 || strcmp(ser->label, "Upper") == 0) &&
                       sc_math_expr_calls(s->expr, "ANOMALY_DETECTION_BAND")) {
                /* a band without a Label: "<Id> Lower", "<Id> Upper" */
                snprintf(label, sizeof(label), "%s %s", s->id, ser->label);
            } else {
                snprintf(def, sizeof(def), "%s", ser->label ? ser->label : s->id);
                if (s->label && *s->label) {
                    char head[512];
                    sc_math_label_format(s->label, def, ser, head, sizeof(head));
                    if (strstr(s->label, "${LABEL}"))
                        snprintf(label, sizeof(label), "%s", head);
                    else
                        snprintf(label, sizeof(label), "%s %.500s", head, def);
                } else {
                    snprintf(label, sizeof(label), "%s", def);
                }
            }
            if (add_result(p, i, ser, label)) {
                snprintf(err->msg, sizeof(err->msg), "out of memory");
                return SC_ERR_INTERNAL;
            }
        }
    }
    return SC_OK;
}

int sc_math_program_result_count(const struct sc_math_program *p)
{
    return p->nres;
}

const struct sc_math_result *sc_math_program_result(const struct sc_math_program *p, int i)
{
    return i >= 0 && i < p->nres ? &p->res[i] : NULL;
}

/* --- dynamic labels ------------------------------------------------------------------------- */

static void fmt_num(double v, char *out, size_t len)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(out, len, "%.0f", v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, len, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

static void fmt_time(int64_t ms, char *out, size_t len)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The text of one placeholder name (inside ${...}); 0 when unknown (left as written). */
static int placeholder(const char *name, const char *def, const struct sc_math_series *s, char *out,
                       size_t len)
{
    int n = s ? s->n : 0, imax = 0, imin = 0;
    double sum = 0;

    out[0] = 0;
    for (int i = 0; i < n; i++) {
        sum += s->v[i];
        if (s->v[i] > s->v[imax])
            imax = i;
        if (s->v[i] < s->v[imin])
            imin = i;
    }
    if (strcmp(name, "LABEL") == 0) {
        snprintf(out, len, "%s", def ? def : "");
        return 1;
    }
    if (strcmp(name, "DATAPOINT_COUNT") == 0) {
        snprintf(out, len, "%d", n);
        return 1;
    }
    if (strncmp(name, "PROP('", 6) == 0) {
        char prop[256];
        const char *v = NULL;
        size_t l = strlen(name);
        if (l < 8 || name[l - 1] != ')' || name[l - 2] != '\'')
            return 0;
        snprintf(prop, sizeof(prop), "%.*s", (int)(l - 8), name + 6);
        if (!s)
            return 1;
        if (strcmp(prop, "MetricName") == 0)
            v = s->metric_name;
        else if (strcmp(prop, "Namespace") == 0)
            v = s->namespace;
        else if (strcmp(prop, "Stat") == 0)
            v = s->stat;
        else if (strcmp(prop, "Period") == 0 && s->period_s > 0) {
            snprintf(out, len, "%d", s->period_s);
            return 1;
        } else if (strncmp(prop, "Dim.", 4) == 0)
            for (int k = 0; k < s->ndims; k++)
                if (strcmp(s->dims[k].name, prop + 4) == 0)
                    v = s->dims[k].value;
        snprintf(out, len, "%s", v ? v : "");
        return 1;
    }
    {
        static const char *const names[] = { "AVG",
                                             "MAX",
                                             "MIN",
                                             "SUM",
                                             "FIRST",
                                             "LAST",
                                             "FIRST_LAST_RANGE",
                                             "MIN_MAX_RANGE",
                                             "FIRST_TIME",
                                             "LAST_TIME",
                                             "MIN_TIME",
                                             "MAX_TIME",
                                             NULL };
        int which = -1;
        double v = 0;
        for (int i = 0; names[i]; i++)
            if (strcmp(name, names[i]) == 0)
                which = i;
        if (which < 0)
            return 0;
        if (n == 0)
            return 1;
        switch (which) {
        case 0:
            v = sum / n;
            break;
        case 1:
            v = s->v[imax];
            break;
        case 2:
            v = s->v[imin];
            break;
        case 3:
            v = sum;
            break;
        case 4:
            v = s->v[0];
            break;
        case 5:
            v = s->v[n - 1];
            break;
        case 6:
            v = s->v[n - 1] - s->v[0];
            break;
        case 7:
            v = s->v[imax] - s->v[imin];
            break;
        default: {
            int64_t t = which == 8    ? s->ts[0]
                        : which == 9  ? s->ts[n - 1]
                        : which == 10 ? s->ts[imin]
                                      : s->ts[imax];
            fmt_time(t, out, len);
            return 1;
        }
        }
        fmt_num(v, out, len);
        return 1;
    }
}

void sc_math_label_format(const char *label, const char *def_label, const struct sc_math_series *s,
                          char *out, size_t outlen)
{
    size_t o = 0;
    int dynamic = 0, labels = 0;

    if (outlen == 0)
        return;
    for (const char *c = label; *c && o + 1 < outlen;) {
        const char *end = c[0] == '$' && c[1] == '{' ? strchr(c, '}') : NULL;
        char name[300], val[1024];
        if (end && (size_t)(end - c - 2) < sizeof(name)) {
            int is_label;
            snprintf(name, sizeof(name), "%.*s", (int)(end - c - 2), c + 2);
            is_label = strcmp(name, "LABEL") == 0;
            if (dynamic < 5 && (!is_label || labels == 0) &&
                placeholder(name, def_label, s, val, sizeof(val))) {
                dynamic++;
                labels += is_label;
                for (const char *v = val; *v && o + 1 < outlen; v++)
                    out[o++] = *v;
                c = end + 1;
                continue;
            }
        }
        out[o++] = *c++;
    }
    out[o] = 0;
}
