/* scaler/cloudwatch.c: see cloudwatch.h. */
#include "scaler/cloudwatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/anomaly.h"
#include "scaler/json_tags.h"
#include "scaler/math.h"

#define MINUTE_MS      60000LL
#define DAY_MS         (86400LL * 1000)
#define GMD_MAX        100800
#define LIST_ACTIVE_MS (14 * DAY_MS)

struct sc_cw {
    struct sc_metric_store *store;
    struct sc_alarms *alarms;
    struct sc_dashboards *dashboards;
    int own_dashboards; /* 0: the account's, shared (sc_cw_config.dashboards) */
    struct sc_anomaly_detectors *anomaly;
    struct sc_metric_streams *streams;
    struct sc_insights *insights;
    sc_alarm_action_fn fn;
    void *ud;
    int started;
    int64_t start_ms;
    int64_t next_tick_ms;
    int64_t *gmd_ts;
    double *gmd_val;
    char msg[512];
    sc_cw_put_fn put_fn;
    void *put_ud;
    char arn_prefix[96]; /* "arn:aws:cloudwatch:<region>:<account>:" */
};

static void notify_put(struct sc_cw *cw, const struct sc_put_metric_data_req *req, int64_t now_ms);

void sc_cw_config_defaults(struct sc_cw_config *c)
{
    c->region = "us-east-1";
    c->account = "123456789012";
    sc_metric_config_defaults(&c->metrics);
    c->history_bytes = 8u << 20;
    c->start_ms = 0;
    c->dashboards = NULL;
}

static int64_t ceil_to(int64_t t, int64_t step)
{
    int64_t q = t / step * step;
    if (q < t)
        q += step;
    return q;
}

static int64_t floor_to(int64_t t, int64_t step)
{
    int64_t q = t / step * step;
    if (q > t)
        q -= step;
    return q;
}

struct sc_cw *sc_cw_create(const struct sc_cw_config *cfg)
{
    struct sc_cw_config c;
    struct sc_alarms_config ac;
    struct sc_cw *cw = calloc(1, sizeof(*cw));

    if (!cw)
        return NULL;
    if (cfg)
        c = *cfg;
    else
        sc_cw_config_defaults(&c);
    sc_alarms_config_defaults(&ac);
    if (c.region)
        ac.region = c.region;
    if (c.account)
        ac.account = c.account;
    if (c.history_bytes)
        ac.history_bytes = c.history_bytes;
    cw->store = sc_metric_store_create(&c.metrics);
    cw->alarms = sc_alarms_create(&ac);
    cw->own_dashboards = !c.dashboards;
    cw->dashboards = c.dashboards ? c.dashboards
                                  : sc_dashboards_create(ac.account, sc_alarm_partition(ac.region));
    cw->anomaly = sc_anomaly_detectors_create(ac.account);
    cw->streams = sc_metric_streams_create(ac.account, ac.region);
    cw->insights = sc_insights_create();
    snprintf(cw->arn_prefix, sizeof(cw->arn_prefix), "arn:aws:cloudwatch:%s:%s:", ac.region,
             ac.account);
    cw->gmd_ts = calloc(GMD_MAX, sizeof(*cw->gmd_ts));
    cw->gmd_val = calloc(GMD_MAX, sizeof(*cw->gmd_val));
    cw->start_ms = c.start_ms;
    if (!cw->store || !cw->alarms || !cw->dashboards || !cw->anomaly || !cw->streams ||
        !cw->insights || !cw->gmd_ts || !cw->gmd_val) {
        sc_cw_destroy(cw);
        return NULL;
    }
    sc_alarms_set_anomaly(cw->alarms, cw->anomaly);
    if (c.start_ms) {
        cw->started = 1;
        cw->next_tick_ms = ceil_to(c.start_ms, MINUTE_MS);
    }
    return cw;
}

void sc_cw_destroy(struct sc_cw *cw)
{
    if (!cw)
        return;
    sc_metric_store_destroy(cw->store);
    sc_alarms_destroy(cw->alarms);
    if (cw->own_dashboards)
        sc_dashboards_destroy(cw->dashboards);
    sc_anomaly_detectors_destroy(cw->anomaly);
    sc_metric_streams_destroy(cw->streams);
    sc_insights_destroy(cw->insights);
    free(cw->gmd_ts);
    free(cw->gmd_val);
    free(cw);
}

void sc_cw_set_action_handler(struct sc_cw *cw, sc_alarm_action_fn fn, void *ud)
{
    cw->fn = fn;
    cw->ud = ud;
}

struct sc_metric_store *sc_cw_metrics(struct sc_cw *cw)
{
    return cw->store;
}

struct sc_alarms *sc_cw_alarms(struct sc_cw *cw)
{
    return cw->alarms;
}

/* --- driving --------------------------------------------------------------------------------- */

static void start_once(struct sc_cw *cw, int64_t now_ms)
{
    if (cw->started)
        return;
    cw->started = 1;
    cw->next_tick_ms = ceil_to(now_ms, MINUTE_MS);
}

void sc_cw_step(struct sc_cw *cw, int64_t now_ms)
{
    start_once(cw, now_ms);
    if (now_ms - cw->next_tick_ms > DAY_MS)
        cw->next_tick_ms = ceil_to(now_ms - DAY_MS, MINUTE_MS);
    while (cw->next_tick_ms <= now_ms) {
        int64_t t = cw->next_tick_ms;
        sc_alarms_evaluate(cw->alarms, cw->store, t, cw->fn, cw->ud);
        if (t % MINUTE_MS == 0)
            sc_metric_store_expire(cw->store, t);
        if (sc_alarms_has_hires(cw->alarms))
            cw->next_tick_ms = t + 10000;
        else
            cw->next_tick_ms = floor_to(t, MINUTE_MS) + MINUTE_MS;
    }
    /* held composite actions whose wait or extension ends now */
    if (sc_alarms_composites_next_due_ms(cw->alarms) <= now_ms)
        sc_alarms_composites_step(cw->alarms, now_ms, cw->fn, cw->ud);
    if (sc_alarms_has_pending(cw->alarms))
        sc_alarms_run_pending(cw->alarms, now_ms, cw->fn, cw->ud);
}

int64_t sc_cw_next_due_ms(const struct sc_cw *cw, int64_t now_ms)
{
    int64_t held = sc_alarms_composites_next_due_ms(cw->alarms);

    if (sc_alarms_has_pending(cw->alarms))
        return now_ms;
    if (!cw->started)
        return ceil_to(cw->start_ms ? cw->start_ms : now_ms, MINUTE_MS);
    return held < cw->next_tick_ms ? (held > now_ms ? held : now_ms) : cw->next_tick_ms;
}

/* --- metrics --------------------------------------------------------------------------------- */

enum sc_status sc_cw_put_metric_data(struct sc_cw *cw, const struct sc_put_metric_data_req *req,
                                     int64_t now_ms, struct sc_error *err)
{
    enum sc_status s = sc_metric_store_put(cw->store, req, now_ms, err);

    if (s == SC_OK)
        notify_put(cw, req, now_ms);
    return s;
}

enum sc_status sc_cw_put_value(struct sc_cw *cw, const char *namespace, const char *metric_name,
                               const struct sc_dimension *dims, int n_dims, const char *unit,
                               double value, int64_t timestamp_ms, int64_t now_ms)
{
    struct sc_metric_datum d;
    struct sc_put_metric_data_req r;
    enum sc_status st;

    memset(&d, 0, sizeof(d));
    memset(&r, 0, sizeof(r));
    d.metric_name = metric_name;
    d.dimensions = dims;
    d.n_dimensions = n_dims;
    d.has_timestamp = 1;
    d.timestamp_ms = timestamp_ms;
    d.has_value = 1;
    d.value = value;
    d.unit = unit;
    r.namespace = namespace;
    r.metric_data = &d;
    r.n_metric_data = 1;
    r.internal = 1;
    st = sc_metric_store_put(cw->store, &r, now_ms, NULL);
    if (st == SC_OK)
        notify_put(cw, &r, now_ms);
    return st;
}

static int valid_query_period(int p)
{
    return p == 1 || p == 5 || p == 10 || p == 30 || (p > 0 && p % 60 == 0);
}

/* StartTime rounding by age (spec 5.2). */
static int64_t round_start(int64_t start_ms, int64_t now_ms)
{
    int64_t age = now_ms - start_ms;

    if (age < 15 * DAY_MS)
        return floor_to(start_ms, MINUTE_MS);
    if (age < 63 * DAY_MS)
        return floor_to(start_ms, 5 * MINUTE_MS);
    return floor_to(start_ms, 60 * MINUTE_MS);
}

static void with_commas(int64_t v, char *out, size_t n)
{
    char tmp[32];
    int len, o = 0;

    snprintf(tmp, sizeof(tmp), "%lld", (long long)v);
    len = (int)strlen(tmp);
    for (int i = 0; i < len && (size_t)o + 2 < n; i++) {
        if (i > 0 && tmp[i - 1] != '-' && (len - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = tmp[i];
    }
    out[o] = 0;
}

static enum sc_status check_key(const char *ns, const char *name, const struct sc_dimension *dims,
                                int n, struct sc_error *err)
{
    if (!ns || !*ns)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter Namespace is required.");
    if (!name || !*name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter MetricName is required.");
    if (n < 0 || n > SC_METRIC_MAX_DIMENSIONS)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection Dimensions must not have a size greater than 30.");
    for (int i = 0; i < n; i++) {
        if (!dims[i].name || !*dims[i].name)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter Dimensions.member.%d.Name is required.", i + 1);
        if (!dims[i].value || !*dims[i].value)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter Dimensions.member.%d.Value is required.", i + 1);
    }
    return SC_OK;
}

static enum sc_status unit_error(const char *u, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VALIDATION,
                   "1 validation error detected: Value '%s' at 'unit' failed to satisfy "
                   "constraint: Member must satisfy enum value set: [Seconds, Microseconds, "
                   "Milliseconds, Bytes, Kilobytes, Megabytes, Gigabytes, Terabytes, Bits, "
                   "Kilobits, Megabits, Gigabits, Terabits, Percent, Count, Bytes/Second, "
                   "Kilobytes/Second, Megabytes/Second, Gigabytes/Second, Terabytes/Second, "
                   "Bits/Second, Kilobits/Second, Megabits/Second, Gigabits/Second, "
                   "Terabits/Second, Count/Second, None]",
                   u);
}

enum sc_status sc_cw_get_metric_statistics(struct sc_cw *cw,
                                           const struct sc_get_metric_statistics_req *req,
                                           int64_t now_ms, sc_datapoint_visit_fn fn, void *ud,
                                           struct sc_error *err)
{
    struct sc_stat stats[5], ext[SC_METRIC_MAX_PERCENTILES];
    double pcts[SC_METRIC_MAX_PERCENTILES];
    struct sc_metric_key key;
    const struct sc_metric *m;
    enum sc_unit unit = SC_UNIT_ANY;
    enum sc_status s;
    int64_t start, end, nb;

    s = check_key(req->namespace, req->metric_name, req->dimensions, req->n_dimensions, err);
    if (s != SC_OK)
        return s;
    if (!req->has_start_time)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter StartTime is required.");
    if (!req->has_end_time)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter EndTime is required.");
    if (!req->has_period)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter Period is required.");
    if (req->period <= 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter Period must be greater than 0.");
    if (!valid_query_period(req->period))
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter Period must be a multiple of 60.");
    if (req->n_statistics <= 0 && req->n_extended_statistics <= 0)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "At least one of the parameters Statistics and ExtendedStatistics must be "
                       "specified.");
    if (req->n_statistics > 0 && req->n_extended_statistics > 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "The parameters Statistics and ExtendedStatistics are mutually exclusive "
                       "and you have specified both.");
    if (req->n_statistics > 5)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection Statistics must not have a size greater than 5.");
    if (req->n_extended_statistics > SC_METRIC_MAX_PERCENTILES)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection ExtendedStatistics must not have a size greater than 10.");
    for (int i = 0; i < req->n_statistics; i++)
        if (sc_stat_parse(req->statistics[i], 1, &stats[i]) < 0)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "The parameter Statistics.member.%d must be a value in the set "
                           "[Average, Sum, SampleCount, Maximum, Minimum].",
                           i + 1);
    for (int i = 0; i < req->n_extended_statistics; i++) {
        if (sc_stat_parse(req->extended_statistics[i], 0, &ext[i]) < 0)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "The value %s for parameter ExtendedStatistics.member.%d is invalid.",
                           req->extended_statistics[i] ? req->extended_statistics[i] : "", i + 1);
        pcts[i] = ext[i].pct;
    }
    if (req->unit && sc_unit_parse(req->unit, &unit) < 0)
        return unit_error(req->unit, err);
    start = round_start(req->start_time_ms, now_ms);
    end = req->end_time_ms;
    if (req->start_time_ms >= end)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter StartTime must be less than the parameter EndTime.");
    nb = (end - start + (int64_t)req->period * 1000 - 1) / ((int64_t)req->period * 1000);
    if (nb > 1440) {
        char n1[32];
        with_commas(nb, n1, sizeof(n1));
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "You have requested up to %s datapoints, which exceeds the limit of 1,440. "
                       "You may reduce the datapoints requested by increasing Period, or "
                       "decreasing the time range.",
                       n1);
    }
    key.namespace = req->namespace;
    key.metric_name = req->metric_name;
    key.dimensions = req->dimensions;
    key.n_dimensions = req->n_dimensions;
    m = sc_metric_store_find(cw->store, &key);
    if (!m)
        return SC_OK;
    for (int64_t b = 0; b < nb; b++) {
        int64_t t = start + b * (int64_t)req->period * 1000;
        for (int u = 0; u < sc_metric_unit_count(m); u++) {
            enum sc_unit su = sc_metric_unit_at(m, u);
            struct sc_datapoint dp;
            struct sc_agg ag;
            if (unit != SC_UNIT_ANY && su != unit)
                continue;
            if (!sc_metric_aggregate(m, su, t, req->period, pcts, req->n_extended_statistics, &ag))
                continue;
            memset(&dp, 0, sizeof(dp));
            dp.timestamp_ms = t;
            dp.unit = sc_unit_name(su);
            for (int i = 0; i < req->n_statistics; i++)
                dp.has[i] = sc_agg_value(&ag, &stats[i], 0, &dp.value[i]) == 0;
            for (int i = 0; i < req->n_extended_statistics; i++)
                dp.ext_has[i] = sc_agg_value(&ag, &ext[i], i, &dp.ext_value[i]) == 0;
            if (fn(&dp, ud))
                return SC_OK;
        }
    }
    return SC_OK;
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

/* The MultipleUnits message of a MetricStat query on m without Unit, into cw->msg; NULL
 * when none. */
static const char *multiple_units(struct sc_cw *cw, const struct sc_metric *m, const char *unit)
{
    size_t o = 0;

    if (!m || unit || sc_metric_unit_count(m) <= 1)
        return NULL;
    o += (size_t)snprintf(cw->msg, sizeof(cw->msg), "Multiple units returned: '[");
    for (int k = 0; k < sc_metric_unit_count(m) && o < sizeof(cw->msg); k++)
        o += (size_t)snprintf(cw->msg + o, sizeof(cw->msg) - o, "%s%s", k ? ", " : "",
                              sc_unit_name(sc_metric_unit_at(m, k)));
    if (o < sizeof(cw->msg))
        snprintf(cw->msg + o, sizeof(cw->msg) - o, "]'");
    return cw->msg;
}

/* GetMetricData with expressions: the whole list as one math program (scaler/math.h). */
static enum sc_status get_metric_data_math(struct sc_cw *cw,
                                           const struct sc_get_metric_data_req *req, int64_t start,
                                           int64_t end, int desc, int budget, int64_t now_ms,
                                           sc_metric_data_visit_fn fn, void *ud,
                                           struct sc_error *err)
{
    struct sc_math_query *mq = calloc((size_t)req->n_queries, sizeof(*mq));
    struct sc_math_program *prog = NULL;
    struct sc_math_error me;
    enum sc_status st;

    if (!mq)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    for (int i = 0; i < req->n_queries; i++) {
        const struct sc_metric_data_query *q = &req->queries[i];
        mq[i].id = q->id;
        mq[i].expression = q->expression;
        mq[i].label = q->label;
        mq[i].return_data = !q->has_return_data || q->return_data;
        mq[i].period_s = q->expression ? q->expression_period : q->period;
        mq[i].metric = q->metric;
        mq[i].stat = q->stat;
        mq[i].unit = q->unit;
    }
    st = sc_math_program_create(mq, req->n_queries, 0, &prog, &me);
    if (st == SC_OK) {
        sc_math_program_set_anomaly(prog, cw->anomaly);
        st = sc_math_program_run(prog, cw->store, start, end, now_ms, &me);
    }
    if (st != SC_OK) {
        free(mq);
        sc_math_program_destroy(prog);
        return sc_fail(err, st, "%s", me.msg);
    }
    for (int i = 0; i < sc_math_program_result_count(prog); i++) {
        const struct sc_math_result *res = sc_math_program_result(prog, i);
        const struct sc_metric_data_query *q = &req->queries[res->query];
        const struct sc_math_series *s = res->series;
        struct sc_metric_data_result r;
        int n = s->n < budget ? s->n : budget;

        memset(&r, 0, sizeof(r));
        for (int k = 0; k < n; k++) {
            int from = desc ? s->n - 1 - k : k;
            cw->gmd_ts[k] = s->ts[from];
            cw->gmd_val[k] = s->v[from];
        }
        budget -= n;
        r.id = q->id;
        r.label = res->label;
        r.timestamps_ms = cw->gmd_ts;
        r.values = cw->gmd_val;
        r.n_values = n;
        r.status_code = n < s->n ? "PartialData" : "Complete";
        if (!q->expression) {
            r.message_value =
                multiple_units(cw, sc_metric_store_find(cw->store, &q->metric), q->unit);
            r.message_code = r.message_value ? "MultipleUnits" : NULL;
        } else if (res->dropped) {
            r.message_code = "ArithmeticError";
            r.message_value = "One or more data-points have been dropped due to non-numeric "
                              "values (NaN, -Infinite, +Infinite)";
        }
        if (fn(&r, ud))
            break;
    }
    free(mq);
    sc_math_program_destroy(prog);
    return SC_OK;
}

enum sc_status sc_cw_get_metric_data(struct sc_cw *cw, const struct sc_get_metric_data_req *req,
                                     int64_t now_ms, sc_metric_data_visit_fn fn, void *ud,
                                     struct sc_error *err)
{
    int desc = 1, budget = GMD_MAX, has_expr = 0;
    int64_t start, end;

    if (req->n_queries < 1 || !req->queries)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The parameter MetricDataQueries is required.");
    if (req->n_queries > 500)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection MetricDataQueries must not have a size greater than 500.");
    if (!req->has_start_time)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter StartTime is required.");
    if (!req->has_end_time)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter EndTime is required.");
    /* AWS compares whole seconds (moto test_get_metric_data_starttime_endtime_within_1_second) */
    if (floor_to(req->start_time_ms, 1000) == floor_to(req->end_time_ms, 1000))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "The parameter StartTime must not equal parameter EndTime.");
    if (req->start_time_ms >= req->end_time_ms)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "The parameter StartTime must be less than the parameter EndTime.");
    if (req->scan_by) {
        if (strcmp(req->scan_by, "TimestampAscending") == 0)
            desc = 0;
        else if (strcmp(req->scan_by, "TimestampDescending") != 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "1 validation error detected: Value '%s' at 'scanBy' failed to satisfy "
                           "constraint: Member must satisfy enum value set: [TimestampDescending, "
                           "TimestampAscending]",
                           req->scan_by);
    }
    if (req->has_max_datapoints) {
        if (req->max_datapoints < 1)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "The parameter MaxDatapoints must be greater than 0.");
        if (req->max_datapoints < budget)
            budget = req->max_datapoints;
    }
    for (int i = 0; i < req->n_queries; i++) {
        const struct sc_metric_data_query *q = &req->queries[i];
        struct sc_stat st;
        enum sc_unit u;
        enum sc_status s;
        if (!valid_id(q->id))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The value %s for parameter MetricDataQueries.member.%d.Id is invalid: "
                           "it must match ^[a-z][a-zA-Z0-9_]*$.",
                           q->id ? q->id : "", i + 1);
        for (int j = 0; j < i; j++)
            if (strcmp(req->queries[j].id, q->id) == 0)
                return sc_fail(err, SC_ERR_VALIDATION,
                               "The value %s for parameter MetricDataQueries.member.%d.Id is "
                               "not unique.",
                               q->id, i + 1);
        if (q->expression && q->has_metric_stat)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The parameters MetricDataQueries.member.%d.MetricStat and "
                           "MetricDataQueries.member.%d.Expression are mutually exclusive and "
                           "you have specified both.",
                           i + 1, i + 1);
        if (q->expression) {
            has_expr = 1;
            if (q->expression_period < 0 ||
                (q->expression_period && !valid_query_period(q->expression_period)))
                return sc_fail(err, SC_ERR_VALIDATION,
                               "The parameter MetricDataQueries.member.%d.Period must be 1, 5, "
                               "10, 30 or a multiple of 60.",
                               i + 1);
            continue;
        }
        /* AWS's text ends with a newline (moto test_get_metric_data__no_metric_data_or_expression)
         */
        if (!q->has_metric_stat)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The parameter MetricDataQueries.member.%d.MetricStat is required.\n",
                           i + 1);
        s = check_key(q->metric.namespace, q->metric.metric_name, q->metric.dimensions,
                      q->metric.n_dimensions, err);
        if (s != SC_OK)
            return s;
        if (!valid_query_period(q->period))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The parameter MetricDataQueries.member.%d.MetricStat.Period must be "
                           "1, 5, 10, 30 or a multiple of 60.",
                           i + 1);
        if (!q->stat || (sc_stat_parse(q->stat, 1, &st) < 0 && sc_stat_parse(q->stat, 0, &st) < 0))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The value %s for parameter MetricDataQueries.member.%d.MetricStat.Stat "
                           "is invalid.",
                           q->stat ? q->stat : "", i + 1);
        if (q->unit && sc_unit_parse(q->unit, &u) < 0)
            return unit_error(q->unit, err);
    }
    start = round_start(req->start_time_ms, now_ms);
    end = req->end_time_ms;
    if (has_expr)
        return get_metric_data_math(cw, req, start, end, desc, budget, now_ms, fn, ud, err);
    for (int i = 0; i < req->n_queries; i++) {
        const struct sc_metric_data_query *q = &req->queries[i];
        const struct sc_metric *m = sc_metric_store_find(cw->store, &q->metric);
        struct sc_metric_data_result r;
        struct sc_stat st;
        enum sc_unit u = SC_UNIT_ANY;
        int64_t pms = (int64_t)q->period * 1000;
        int64_t nb = (end - start + pms - 1) / pms;
        int n = 0, partial = 0;
        double pct;

        if (q->has_return_data && !q->return_data)
            continue;
        if (sc_stat_parse(q->stat, 1, &st) < 0)
            sc_stat_parse(q->stat, 0, &st);
        pct = st.pct;
        if (q->unit)
            sc_unit_parse(q->unit, &u);
        memset(&r, 0, sizeof(r));
        if (m && u == SC_UNIT_ANY && sc_metric_unit_count(m) > 1) {
            size_t o = 0;
            o += (size_t)snprintf(cw->msg, sizeof(cw->msg), "Multiple units returned: '[");
            for (int k = 0; k < sc_metric_unit_count(m) && o < sizeof(cw->msg); k++)
                o += (size_t)snprintf(cw->msg + o, sizeof(cw->msg) - o, "%s%s", k ? ", " : "",
                                      sc_unit_name(sc_metric_unit_at(m, k)));
            if (o < sizeof(cw->msg))
                snprintf(cw->msg + o, sizeof(cw->msg) - o, "]'");
            r.message_code = "MultipleUnits";
            r.message_value = cw->msg;
        }
        for (int64_t k = 0; m && k < nb; k++) {
            int64_t b = desc ? nb - 1 - k : k;
            int64_t t = start + b * pms;
            struct sc_agg ag;
            double v;
            if (!sc_metric_aggregate(m, u, t, q->period, &pct, st.kind == SC_STAT_PERCENTILE, &ag))
                continue;
            if (sc_agg_value(&ag, &st, 0, &v) < 0)
                continue;
            if (n >= budget) {
                partial = 1;
                break;
            }
            cw->gmd_ts[n] = t;
            cw->gmd_val[n] = v;
            n++;
        }
        budget -= n;
        r.id = q->id;
        r.label = q->label ? q->label : q->metric.metric_name;
        r.timestamps_ms = cw->gmd_ts;
        r.values = cw->gmd_val;
        r.n_values = n;
        r.status_code = partial ? "PartialData" : "Complete";
        if (fn(&r, ud))
            break;
    }
    return SC_OK;
}

enum sc_status sc_cw_list_metrics(struct sc_cw *cw, const struct sc_list_metrics_req *req,
                                  int64_t now_ms, sc_metric_visit_fn fn, void *ud,
                                  struct sc_error *err)
{
    int64_t active = LIST_ACTIVE_MS;
    struct sc_dimension dims[SC_METRIC_MAX_DIMENSIONS];

    if (req->n_dimensions > 10)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection Dimensions must not have a size greater than 10.");
    for (int i = 0; i < req->n_dimensions; i++)
        if (!req->dimensions[i].name || !*req->dimensions[i].name)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter Dimensions.member.%d.Name is required.", i + 1);
    if (req->recently_active) {
        if (strcmp(req->recently_active, "PT3H") != 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "1 validation error detected: Value '%s' at 'recentlyActive' failed to "
                           "satisfy constraint: Member must satisfy enum value set: [PT3H]",
                           req->recently_active);
        active = 3 * 3600 * 1000LL;
    }
    for (int i = 0; i < sc_metric_store_count(cw->store); i++) {
        const struct sc_metric *m = sc_metric_store_at(cw->store, i);
        struct sc_metric_view v;
        if (now_ms - sc_metric_last_timestamp_ms(m) > active)
            continue;
        if (!sc_metric_matches(m, req->namespace, req->metric_name, req->dimensions,
                               req->n_dimensions))
            continue;
        v.namespace = sc_metric_namespace(m);
        v.metric_name = sc_metric_name(m);
        v.n_dimensions = sc_metric_dimension_count(m);
        for (int j = 0; j < v.n_dimensions; j++)
            dims[j] = sc_metric_dimension_at(m, j);
        v.dimensions = dims;
        if (fn(&v, ud))
            break;
    }
    return SC_OK;
}

/* --- alarms ----------------------------------------------------------------------------------- */

enum sc_status sc_cw_put_metric_alarm(struct sc_cw *cw, const struct sc_put_metric_alarm_req *req,
                                      int64_t now_ms, struct sc_error *err)
{
    start_once(cw, now_ms);
    return sc_alarms_put(cw->alarms, req, now_ms, err);
}

enum sc_status sc_cw_describe_alarms(struct sc_cw *cw, const struct sc_describe_alarms_req *req,
                                     sc_alarm_visit_fn fn, void *ud, struct sc_error *err)
{
    return sc_alarms_describe(cw->alarms, req, fn, ud, err);
}

enum sc_status sc_cw_put_composite_alarm(struct sc_cw *cw,
                                         const struct sc_put_composite_alarm_req *req,
                                         int64_t now_ms, struct sc_error *err)
{
    start_once(cw, now_ms);
    return sc_alarms_put_composite(cw->alarms, req, now_ms, err);
}

enum sc_status sc_cw_describe_composite_alarms(struct sc_cw *cw,
                                               const struct sc_describe_alarms_req *req,
                                               sc_composite_visit_fn fn, void *ud,
                                               struct sc_error *err)
{
    return sc_alarms_describe_composites(cw->alarms, req, fn, ud, err);
}

struct sc_anomaly_detectors *sc_cw_anomaly(struct sc_cw *cw)
{
    return cw->anomaly;
}

struct sc_dashboards *sc_cw_dashboards(struct sc_cw *cw)
{
    return cw->dashboards;
}

struct sc_metric_streams *sc_cw_metric_streams(struct sc_cw *cw)
{
    return cw->streams;
}

struct sc_insights *sc_cw_insights(struct sc_cw *cw)
{
    return cw->insights;
}

enum sc_status sc_cw_describe_alarms_for_metric(struct sc_cw *cw,
                                                const struct sc_describe_alarms_for_metric_req *req,
                                                sc_alarm_visit_fn fn, void *ud,
                                                struct sc_error *err)
{
    return sc_alarms_describe_for_metric(cw->alarms, req, fn, ud, err);
}

enum sc_status sc_cw_describe_alarm_history(struct sc_cw *cw,
                                            const struct sc_describe_alarm_history_req *req,
                                            int64_t now_ms, sc_alarm_history_visit_fn fn, void *ud,
                                            struct sc_error *err)
{
    return sc_alarms_describe_history(cw->alarms, req, now_ms, fn, ud, err);
}

enum sc_status sc_cw_delete_alarms(struct sc_cw *cw, const char *const *names, int n,
                                   int64_t now_ms, struct sc_error *err)
{
    return sc_alarms_delete(cw->alarms, names, n, now_ms, err);
}

enum sc_status sc_cw_set_alarm_state(struct sc_cw *cw, const struct sc_set_alarm_state_req *req,
                                     int64_t now_ms, struct sc_error *err)
{
    return sc_alarms_set_state(cw->alarms, req, now_ms, err);
}

enum sc_status sc_cw_enable_alarm_actions(struct sc_cw *cw, const char *const *names, int n,
                                          int64_t now_ms, struct sc_error *err)
{
    return sc_alarms_enable_actions(cw->alarms, names, n, 1, now_ms, err);
}

enum sc_status sc_cw_disable_alarm_actions(struct sc_cw *cw, const char *const *names, int n,
                                           int64_t now_ms, struct sc_error *err)
{
    return sc_alarms_enable_actions(cw->alarms, names, n, 0, now_ms, err);
}

/* The JSON-kept record a metric stream's or a Contributor Insights rule's ARN names
 * (arn:aws:cloudwatch:<region>:<account>:metric-stream/<name>, ...:insight-rule/<name>), or
 * NULL: then the ARN is an alarm's (or names nothing), which scaler/alarm.c answers. */
static json_t *tagged_record(struct sc_cw *cw, const char *arn)
{
    size_t n = strlen(cw->arn_prefix);

    if (!arn || strncmp(arn, cw->arn_prefix, n) != 0)
        return NULL;
    if (strncmp(arn + n, "metric-stream/", 14) == 0)
        return sc_metric_streams_by_arn(cw->streams, arn);
    if (strncmp(arn + n, "insight-rule/", 13) == 0)
        return sc_insights_rule(cw->insights, arn + n + 13);
    return NULL;
}

enum sc_status sc_cw_tag_resource(struct sc_cw *cw, const char *resource_arn,
                                  const struct sc_tag *tags, int n, struct sc_error *err)
{
    json_t *rec = tagged_record(cw, resource_arn);

    return rec ? sc_json_tags_add(rec, tags, n, err)
               : sc_alarms_tag(cw->alarms, resource_arn, tags, n, err);
}

enum sc_status sc_cw_untag_resource(struct sc_cw *cw, const char *resource_arn,
                                    const char *const *keys, int n, struct sc_error *err)
{
    json_t *rec = tagged_record(cw, resource_arn);

    if (!rec)
        return sc_alarms_untag(cw->alarms, resource_arn, keys, n, err);
    sc_json_tags_remove(rec, keys, n);
    return SC_OK;
}

enum sc_status sc_cw_list_tags_for_resource(struct sc_cw *cw, const char *resource_arn,
                                            sc_tag_visit_fn fn, void *ud, struct sc_error *err)
{
    json_t *rec = tagged_record(cw, resource_arn);

    if (!rec)
        return sc_alarms_list_tags(cw->alarms, resource_arn, fn, ud, err);
    sc_json_tags_visit(rec, fn, ud);
    return SC_OK;
}

const struct sc_alarm_view *sc_cw_alarm_find(const struct sc_cw *cw, const char *name)
{
    return sc_alarms_find(cw->alarms, name);
}

int sc_cw_alarm_recent_values(const struct sc_cw *cw, const char *name, double *out, int max)
{
    const struct sc_alarm_view *v = sc_alarms_find(cw->alarms, name);
    int n;

    if (!v)
        return -1;
    n = v->n_recent_values < max ? v->n_recent_values : max;
    for (int i = 0; i < n; i++)
        out[i] = v->recent_values[i];
    return n;
}

/* --- state file and put observer ------------------------------------------------------------ */

void sc_cw_set_put_observer(struct sc_cw *cw, sc_cw_put_fn fn, void *ud)
{
    cw->put_fn = fn;
    cw->put_ud = ud;
}

static void notify_put(struct sc_cw *cw, const struct sc_put_metric_data_req *req, int64_t now_ms)
{
    if (cw->put_fn)
        cw->put_fn(req, now_ms, cw->put_ud);
}

json_t *sc_cw_save(const struct sc_cw *cw)
{
    json_t *root = json_object(), *alarms = sc_alarms_save(cw->alarms);
    /* shared dashboards are the account's: its owner saves them (once, not per region) */
    json_t *dash = cw->own_dashboards ? sc_dashboards_save(cw->dashboards) : json_array();
    json_t *ad = sc_anomaly_save(cw->anomaly);

    if (!root || !alarms || !dash || !ad) {
        json_decref(root);
        json_decref(alarms);
        json_decref(dash);
        json_decref(ad);
        return NULL;
    }
    if (json_array_size(ad) > 0)
        json_object_set_new(root, "anomaly_detectors", ad);
    else
        json_decref(ad);
    if (json_array_size(dash) > 0)
        json_object_set_new(root, "dashboards", dash);
    else
        json_decref(dash);
    if (sc_metric_streams_count(cw->streams) > 0 || sc_metric_streams_otel(cw->streams))
        json_object_set_new(root, "metric_streams", sc_metric_streams_save(cw->streams));
    if (sc_insights_count(cw->insights) > 0)
        json_object_set_new(root, "insight_rules", sc_insights_save(cw->insights));
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "started", json_boolean(cw->started));
    json_object_set_new(root, "start_ms", json_integer(cw->start_ms));
    json_object_set_new(root, "next_tick_ms", json_integer(cw->next_tick_ms));
    json_object_set_new(root, "alarms", alarms);
    return root;
}

enum sc_status sc_cw_load(struct sc_cw *cw, const json_t *j, struct sc_error *err)
{
    const json_t *started = json_object_get(j, "started");
    const json_t *start = json_object_get(j, "start_ms");
    const json_t *tick = json_object_get(j, "next_tick_ms");
    const json_t *ad = json_object_get(j, "anomaly_detectors");
    json_t *empty = NULL;
    enum sc_status s;

    if (!json_is_object(j) || json_integer_value(json_object_get(j, "version")) != 1)
        return sc_fail(err, SC_ERR_VALIDATION, "state: cloudwatch: not a version 1 object");
    if (!json_is_boolean(started) || !json_is_integer(start) || !json_is_integer(tick))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "state: cloudwatch: started, start_ms and next_tick_ms are required");
    /* dashboards first: their load leaves them unchanged on error, and the alarms' load
     * (which may still fail) comes last so that nothing changes on any error */
    {
        struct sc_dashboards *t = sc_dashboards_create(NULL, NULL);
        if (!t)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        s = sc_dashboards_load(t, json_object_get(j, "dashboards"), err);
        sc_dashboards_destroy(t);
        if (s != SC_OK)
            return s;
    }
    if (!ad)
        ad = empty = json_array();
    {
        struct sc_anomaly_detectors *t = sc_anomaly_detectors_create(NULL);
        if (!t || !ad) {
            sc_anomaly_detectors_destroy(t);
            json_decref(empty);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        s = sc_anomaly_load(t, ad, err);
        sc_anomaly_detectors_destroy(t);
        if (s != SC_OK) {
            json_decref(empty);
            return s;
        }
    }
    {
        struct sc_metric_streams *ms = sc_metric_streams_create(NULL, NULL);
        struct sc_insights *ins = sc_insights_create();
        if (!ms || !ins) {
            sc_metric_streams_destroy(ms);
            sc_insights_destroy(ins);
            json_decref(empty);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        s = sc_metric_streams_load(ms, json_object_get(j, "metric_streams"), err);
        if (s == SC_OK)
            s = sc_insights_load(ins, json_object_get(j, "insight_rules"), err);
        sc_metric_streams_destroy(ms);
        sc_insights_destroy(ins);
        if (s != SC_OK) {
            json_decref(empty);
            return s;
        }
    }
    s = sc_alarms_load(cw->alarms, json_object_get(j, "alarms"), err);
    if (s != SC_OK) {
        json_decref(empty);
        return s;
    }
    if (sc_metric_streams_load(cw->streams, json_object_get(j, "metric_streams"), err) != SC_OK ||
        sc_insights_load(cw->insights, json_object_get(j, "insight_rules"), err) != SC_OK) {
        json_decref(empty);
        return SC_ERR_INTERNAL; /* checked above: only OOM */
    }
    if (cw->own_dashboards)
        s = sc_dashboards_load(cw->dashboards, json_object_get(j, "dashboards"), err);
    if (s == SC_OK)
        s = sc_anomaly_load(cw->anomaly, ad, err);
    json_decref(empty);
    if (s != SC_OK)
        return s;
    cw->started = json_is_true(started);
    cw->start_ms = json_integer_value(start);
    cw->next_tick_ms = json_integer_value(tick);
    return SC_OK;
}
