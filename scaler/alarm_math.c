/* scaler/alarm_math.c: alarms on metric math (PutMetricAlarm Metrics, docs/metric-math.md
 * 6): the list's rules, the alarm's copy and program, the slots an evaluation reads from
 * the returned series, and the state file's form. The evaluation that decides the state is
 * alarm_eval.c's, the same for metric alarms and these. */
#include "scaler/alarm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/alarm_internal.h"
#include "scaler/str.h"

#define INVALID_LIST "Invalid metrics list"

static int valid_period(int p)
{
    return p == 10 || p == 30 || (p > 0 && p % 60 == 0);
}

static int valid_id(const char *id)
{
    if (!id || !(id[0] >= 'a' && id[0] <= 'z') || strlen(id) > 255)
        return 0;
    for (const char *p = id + 1; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            return 0;
    return 1;
}

static void to_math(const struct sc_alarm_query *a, int n, struct sc_math_query *m)
{
    for (int i = 0; i < n; i++) {
        memset(&m[i], 0, sizeof(m[i]));
        m[i].id = a[i].id;
        m[i].expression = a[i].expression;
        m[i].label = a[i].label;
        m[i].return_data = !a[i].has_return_data || a[i].return_data;
        m[i].period_s = a[i].expression ? a[i].period : a[i].stat_period;
        m[i].metric = a[i].metric;
        m[i].stat = a[i].stat;
        m[i].unit = a[i].unit;
    }
}

static enum sc_status invalid(struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VALIDATION, INVALID_LIST);
}

enum sc_status alarm_math_validate(const struct sc_put_metric_alarm_req *r, int *period,
                                   struct sc_error *err)
{
    static const char *const names[] = {
        "MetricName", "Namespace", "Statistic", "ExtendedStatistic", "Dimensions", "Period", "Unit"
    };
    const int set[] = { r->metric_name != NULL, r->namespace != NULL,
                        r->statistic != NULL,   r->extended_statistic != NULL,
                        r->n_dimensions > 0,    r->has_period,
                        r->unit != NULL };
    struct sc_math_query mq[SC_ALARM_MAX_QUERIES];
    struct sc_math_program *prog = NULL;
    struct sc_math_error me;
    int nstat = 0, nexpr = 0, nret = 0, ret = -1, p = 0, band = -1;
    enum sc_status st;

    for (int i = 0; i < 7; i++)
        if (set[i])
            return sc_fail(err, SC_ERR_VALIDATION,
                           "%s should not be set if list of Metrics is set.", names[i]);
    if (r->threshold_metric_id && r->has_threshold)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Threshold and ThresholdMetricId cannot both be set");
    if (r->n_metrics < 1 || r->n_metrics > SC_ALARM_MAX_QUERIES)
        return invalid(err);
    for (int i = 0; i < r->n_metrics; i++) {
        const struct sc_alarm_query *q = &r->metrics[i];
        if (r->threshold_metric_id && q->id && strcmp(q->id, r->threshold_metric_id) == 0) {
            band = i; /* the band is the threshold, not the data the alarm watches */
            continue;
        }
        if (!q->has_return_data || q->return_data) {
            nret++;
            ret = i;
        }
    }
    if (r->threshold_metric_id && band < 0)
        return invalid(err);
    if (nret != 1)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Exactly one element of the metrics list should return data.");
    for (int i = 0; i < r->n_metrics; i++) {
        const struct sc_alarm_query *q = &r->metrics[i];
        struct sc_stat ss;
        enum sc_unit u;
        if (!valid_id(q->id) || (q->expression != NULL) == (q->has_metric_stat != 0))
            return invalid(err);
        for (int j = 0; j < i; j++)
            if (strcmp(r->metrics[j].id, q->id) == 0)
                return invalid(err);
        if (q->expression) {
            nexpr++;
            if (q->period && !valid_period(q->period))
                return invalid(err);
            continue;
        }
        nstat++;
        if (!q->metric.namespace || !*q->metric.namespace || !q->metric.metric_name ||
            !*q->metric.metric_name || q->metric.n_dimensions > SC_METRIC_MAX_DIMENSIONS ||
            !q->has_stat_period || !valid_period(q->stat_period) || !q->stat ||
            (sc_stat_parse(q->stat, 1, &ss) < 0 && sc_stat_parse(q->stat, 0, &ss) < 0) ||
            (q->unit && sc_unit_parse(q->unit, &u) < 0))
            return invalid(err);
        for (int k = 0; k < q->metric.n_dimensions; k++)
            if (!q->metric.dimensions[k].name || !*q->metric.dimensions[k].name ||
                !q->metric.dimensions[k].value || !*q->metric.dimensions[k].value)
                return invalid(err);
        if (p && q->stat_period != p)
            return invalid(err); /* one period for the alarm */
        p = q->stat_period;
    }
    if (nstat > 10 || nexpr > 10)
        return invalid(err);
    if (band >= 0 && (!r->metrics[band].expression ||
                      !strstr(r->metrics[band].expression, "ANOMALY_DETECTION_BAND")))
        return invalid(err);
    to_math(r->metrics, r->n_metrics, mq);
    st = sc_math_program_create(mq, r->n_metrics, 1, &prog, &me);
    if (st == SC_ERR_INTERNAL)
        return sc_fail(err, st, "out of memory");
    if (st != SC_OK)
        return invalid(err);
    *period = r->metrics[ret].expression ? sc_math_program_period(prog, ret) : p;
    sc_math_program_destroy(prog);
    return SC_OK;
}

void sc_alarm_queries_free(struct sc_alarm_query *q, int n)
{
    for (int i = 0; q && i < n; i++) {
        free((char *)q[i].id);
        free((char *)q[i].expression);
        free((char *)q[i].label);
        free((char *)q[i].metric.namespace);
        free((char *)q[i].metric.metric_name);
        for (int k = 0; k < q[i].metric.n_dimensions; k++) {
            free((char *)q[i].metric.dimensions[k].name);
            free((char *)q[i].metric.dimensions[k].value);
        }
        free((void *)q[i].metric.dimensions);
        free((char *)q[i].stat);
        free((char *)q[i].unit);
    }
    free(q);
}

void alarm_math_free(struct alarm *al)
{
    sc_alarm_queries_free(al->mq, al->nmq);
    al->mq = NULL;
    al->nmq = 0;
    sc_math_program_destroy(al->prog);
    al->prog = NULL;
}

static int copy_query(struct sc_alarm_query *d, const struct sc_alarm_query *s)
{
    struct sc_dimension *dims = NULL;
    char *id = NULL, *e = NULL, *l = NULL, *ns = NULL, *mn = NULL, *st = NULL, *u = NULL;

    *d = *s;
    d->metric.dimensions = NULL;
    d->metric.n_dimensions = 0;
    d->id = d->expression = d->label = d->stat = d->unit = NULL;
    d->metric.namespace = d->metric.metric_name = NULL;
    if (!(id = sc_strdup(s->id)) || sc_strdup_opt(&e, s->expression) ||
        sc_strdup_opt(&l, s->label) || sc_strdup_opt(&ns, s->metric.namespace) ||
        sc_strdup_opt(&mn, s->metric.metric_name) || sc_strdup_opt(&st, s->stat) ||
        sc_strdup_opt(&u, s->unit))
        goto oom;
    d->id = id;
    d->expression = e;
    d->label = l;
    d->metric.namespace = ns;
    d->metric.metric_name = mn;
    d->stat = st;
    d->unit = u;
    if (s->metric.n_dimensions > 0) {
        dims = calloc((size_t)s->metric.n_dimensions, sizeof(*dims));
        if (!dims)
            return -1;
        d->metric.dimensions = dims;
        for (int k = 0; k < s->metric.n_dimensions; k++) {
            dims[k].name = sc_strdup(s->metric.dimensions[k].name);
            dims[k].value = sc_strdup(s->metric.dimensions[k].value);
            d->metric.n_dimensions++;
            if (!dims[k].name || !dims[k].value)
                return -1;
        }
    }
    return 0;
oom:
    free(id);
    free(e);
    free(l);
    free(ns);
    free(mn);
    free(st);
    free(u);
    d->id = d->expression = d->label = d->stat = d->unit = NULL;
    d->metric.namespace = d->metric.metric_name = NULL;
    return -1;
}

int sc_alarm_queries_dup(const struct sc_alarm_query *src, int n, struct sc_alarm_query **out)
{
    struct sc_alarm_query *q = calloc((size_t)(n > 0 ? n : 1), sizeof(*q));

    *out = NULL;
    if (!q)
        return -1;
    for (int i = 0; i < n; i++)
        if (copy_query(&q[i], &src[i])) {
            sc_alarm_queries_free(q, i + 1);
            return -1;
        }
    *out = q;
    return 0;
}

int alarm_math_build(struct alarm *al, const struct sc_put_metric_alarm_req *r)
{
    struct sc_math_query mq[SC_ALARM_MAX_QUERIES];
    struct sc_math_error me;

    if (sc_alarm_queries_dup(r->metrics, r->n_metrics, &al->mq))
        return -1;
    al->nmq = r->n_metrics;
    to_math(al->mq, al->nmq, mq);
    return sc_math_program_create(mq, al->nmq, 1, &al->prog, &me) == SC_OK ? 0 : -1;
}

void alarm_math_slots(struct sc_alarms *a, struct alarm *al, const struct sc_metric_store *store,
                      int64_t tick_ms, int r)
{
    int64_t pms = (int64_t)al->period * 1000, start = tick_ms - (int64_t)r * pms;
    struct sc_math_error me;
    const struct sc_math_series *s;

    for (int k = 1; k <= r; k++)
        a->slot_has[k] = 0;
    if (al->tmid) {
        alarm_band_slots(a, al, store, tick_ms, r);
        return;
    }
    if (sc_math_program_run(al->prog, store, start, tick_ms, tick_ms, &me) != SC_OK ||
        sc_math_program_result_count(al->prog) != 1)
        return; /* no series: every slot missing */
    s = sc_math_program_result(al->prog, 0)->series;
    for (int i = 0; i < s->n; i++) {
        int64_t off = tick_ms - s->ts[i];
        int k;
        if (off <= 0 || off % pms != 0)
            continue;
        k = (int)(off / pms);
        if (k < 1 || k > r)
            continue;
        a->slot_has[k] = 1;
        a->slot_val[k] = s->v[i];
        a->slot_cnt[k] = 1;
    }
}

/* --- the state file ------------------------------------------------------------------------- */

json_t *alarm_math_save(const struct alarm *al)
{
    return sc_alarm_queries_save(al->mq, al->nmq);
}

json_t *sc_alarm_queries_save(const struct sc_alarm_query *qs, int n)
{
    json_t *arr = json_array();

    for (int i = 0; arr && i < n; i++) {
        const struct sc_alarm_query *q = &qs[i];
        json_t *o = json_object(), *dims = json_array();
        if (!o || !dims) {
            json_decref(o);
            json_decref(dims);
            json_decref(arr);
            return NULL;
        }
        json_object_set_new(o, "Id", json_string(q->id));
        if (q->label)
            json_object_set_new(o, "Label", json_string(q->label));
        if (q->has_return_data)
            json_object_set_new(o, "ReturnData", json_boolean(q->return_data));
        if (q->period)
            json_object_set_new(o, "Period", json_integer(q->period));
        if (q->expression) {
            json_object_set_new(o, "Expression", json_string(q->expression));
            json_decref(dims);
        } else {
            for (int k = 0; k < q->metric.n_dimensions; k++)
                json_array_append_new(dims,
                                      json_pack("{ssss}", "Name", q->metric.dimensions[k].name,
                                                "Value", q->metric.dimensions[k].value));
            json_object_set_new(o, "MetricStat",
                                json_pack("{s{sssss o}sisssO*}", "Metric", "Namespace",
                                          q->metric.namespace, "MetricName", q->metric.metric_name,
                                          "Dimensions", dims, "Period", q->stat_period, "Stat",
                                          q->stat, "Unit",
                                          q->unit ? json_string(q->unit) : json_null()));
            if (!q->unit)
                json_object_del(json_object_get(o, "MetricStat"), "Unit");
        }
        json_array_append_new(arr, o);
    }
    return arr;
}

static const char *str_of(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

int alarm_math_load(const json_t *arr, struct sc_alarm_query *q,
                    struct sc_dimension (*dims)[SC_METRIC_MAX_DIMENSIONS], int *n, char *msg,
                    size_t msglen)
{
    size_t i;
    const json_t *o;

    *n = 0;
    if (!json_is_array(arr) || json_array_size(arr) > SC_ALARM_MAX_QUERIES) {
        snprintf(msg, msglen, "metrics: expected an array of at most %d queries",
                 SC_ALARM_MAX_QUERIES);
        return -1;
    }
    json_array_foreach(arr, i, o)
    {
        const json_t *ms = json_object_get(o, "MetricStat"), *m = json_object_get(ms, "Metric");
        const json_t *d = json_object_get(m, "Dimensions"), *e;
        size_t k;
        memset(&q[i], 0, sizeof(q[i]));
        if (!json_is_object(o) || !str_of(o, "Id")) {
            snprintf(msg, msglen, "metrics[%zu]: expected an object with an Id", i);
            return -1;
        }
        q[i].id = str_of(o, "Id");
        q[i].expression = str_of(o, "Expression");
        q[i].label = str_of(o, "Label");
        q[i].has_return_data = json_is_boolean(json_object_get(o, "ReturnData"));
        q[i].return_data = json_is_true(json_object_get(o, "ReturnData"));
        q[i].period = (int)json_integer_value(json_object_get(o, "Period"));
        if (ms) {
            q[i].has_metric_stat = 1;
            q[i].metric.namespace = str_of(m, "Namespace");
            q[i].metric.metric_name = str_of(m, "MetricName");
            q[i].has_stat_period = json_is_integer(json_object_get(ms, "Period"));
            q[i].stat_period = (int)json_integer_value(json_object_get(ms, "Period"));
            q[i].stat = str_of(ms, "Stat");
            q[i].unit = str_of(ms, "Unit");
            if (json_array_size(d) > SC_METRIC_MAX_DIMENSIONS) {
                snprintf(msg, msglen, "metrics[%zu]: too many dimensions", i);
                return -1;
            }
            json_array_foreach(d, k, e)
            {
                dims[i][k].name = str_of(e, "Name");
                dims[i][k].value = str_of(e, "Value");
            }
            q[i].metric.dimensions = dims[i];
            q[i].metric.n_dimensions = (int)json_array_size(d);
        }
        (*n)++;
    }
    return 0;
}

int sc_alarm_queries_load(const json_t *arr, struct sc_alarm_query **out, int *n, char *msg,
                          size_t msglen)
{
    struct sc_alarm_query q[SC_ALARM_MAX_QUERIES];
    struct sc_dimension dims[SC_ALARM_MAX_QUERIES][SC_METRIC_MAX_DIMENSIONS];

    *out = NULL;
    *n = 0;
    if (alarm_math_load(arr, q, dims, n, msg, msglen) < 0)
        return -1;
    if (sc_alarm_queries_dup(q, *n, out)) {
        snprintf(msg, msglen, "out of memory");
        *n = 0;
        return -1;
    }
    return 0;
}
