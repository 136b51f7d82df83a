/* emulator/api_cloudwatch.c: CloudWatch handlers over scaler/cloudwatch.h (IR in -> one
 * sc_cw call -> IR out), the same for query, JSON 1.0 and RPC v2 CBOR. Every rule and
 * message is the library's. */
#include "emulator/api.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/cloudwatch.h"
#include "scaler/world.h"

static int fail(struct awserr *err, const struct sc_error *se)
{
    return awserr_from_sc(err, se);
}

static void set_str(json_t *o, const char *k, const char *v)
{
    if (v)
        json_object_set_new(o, k, json_string(v));
}

static json_t *cstrs_json(const char *const *v, int n)
{
    json_t *a = json_array();

    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

/* [{Key, Value}] of Tags (PutMetricAlarm, TagResource) as tags (borrowed strings); free()
 * the array. */
static struct sc_tag *tags_get(json_t *in, int *n)
{
    json_t *a = json_object_get(in, "Tags");
    struct sc_tag *t;
    size_t i;
    json_t *e;

    *n = (int)json_array_size(a);
    t = cm_xcalloc((size_t)*n + 1, sizeof(*t));
    json_array_foreach(a, i, e)
    {
        t[i].key = api_str(e, "Key");
        t[i].value = api_str(e, "Value");
    }
    return t;
}

static int64_t ts_get(json_t *in, const char *member, int *has)
{
    json_t *v = json_object_get(in, member);

    *has = json_is_integer(v);
    return *has ? json_integer_value(v) : 0;
}

/* ---- metrics --------------------------------------------------------------------------- */

/* A datapoint value: a JSON number, or the text CBOR's non-finite values arrive as
 * (model_check passes "NaN", "Infinity" and "-Infinity" through for DatapointValue). */
static double num_value(json_t *v)
{
    const char *s = json_string_value(v);

    if (!s)
        return json_number_value(v);
    if (strcmp(s, "NaN") == 0)
        return NAN;
    return s[0] == '-' ? -INFINITY : INFINITY;
}

static int num_present(json_t *v)
{
    return json_is_number(v) || json_is_string(v);
}

static double *doubles_get(json_t *a, int *n)
{
    double *v;
    size_t i;
    json_t *e;

    *n = (int)json_array_size(a);
    if (*n == 0)
        return NULL;
    v = cm_xcalloc((size_t)*n, sizeof(*v));
    json_array_foreach(a, i, e) v[i] = num_value(e);
    return v;
}

static int put_metric_data(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_error se = { 0 };
    struct sc_put_metric_data_req rq;
    json_t *md = json_object_get(in, "MetricData");
    struct sc_metric_datum *d;
    size_t i, n = json_array_size(md);
    json_t *e;
    int rc = 0;

    *out = NULL;
    d = cm_xcalloc(n + 1, sizeof(*d));
    json_array_foreach(md, i, e)
    {
        json_t *sv = json_object_get(e, "StatisticValues");

        d[i].metric_name = api_str(e, "MetricName");
        d[i].dimensions = api_dims(e, "Dimensions", &d[i].n_dimensions);
        d[i].timestamp_ms = ts_get(e, "Timestamp", &d[i].has_timestamp);
        d[i].has_value = num_present(json_object_get(e, "Value"));
        d[i].value = num_value(json_object_get(e, "Value"));
        d[i].values = doubles_get(json_object_get(e, "Values"), &d[i].n_values);
        d[i].counts = doubles_get(json_object_get(e, "Counts"), &d[i].n_counts);
        if (sv) {
            d[i].has_statistic_values = 1;
#define SV(field, key)                                                                             \
    d[i].statistic_values.has_##field = num_present(json_object_get(sv, key));                     \
    d[i].statistic_values.field = num_value(json_object_get(sv, key))
            SV(sample_count, "SampleCount");
            SV(sum, "Sum");
            SV(minimum, "Minimum");
            SV(maximum, "Maximum");
#undef SV
        }
        d[i].unit = api_str(e, "Unit");
        api_int(e, "StorageResolution", &d[i].storage_resolution);
    }
    memset(&rq, 0, sizeof(rq));
    rq.namespace = api_str(in, "Namespace");
    rq.metric_data = d;
    rq.n_metric_data = (int)n;
    if (sc_cw_put_metric_data(cw, &rq, ctx->now_ms, &se) != SC_OK)
        rc = fail(err, &se);
    for (i = 0; i < n; i++) {
        free((void *)d[i].dimensions);
        free((void *)d[i].values);
        free((void *)d[i].counts);
    }
    free(d);
    return rc;
}

struct gms {
    const struct sc_get_metric_statistics_req *rq;
    json_t *points;
};

static int gms_visit(const struct sc_datapoint *dp, void *ud)
{
    struct gms *g = ud;
    json_t *o = json_pack("{s:I}", "Timestamp", (json_int_t)dp->timestamp_ms);

    for (int i = 0; i < g->rq->n_statistics && i < 5; i++) {
        if (dp->has[i])
            json_object_set_new(o, g->rq->statistics[i], json_real(dp->value[i]));
    }
    if (g->rq->n_extended_statistics) {
        json_t *ext = json_object();

        for (int i = 0; i < g->rq->n_extended_statistics && i < SC_METRIC_MAX_PERCENTILES; i++) {
            if (dp->ext_has[i])
                json_object_set_new(ext, g->rq->extended_statistics[i],
                                    json_real(dp->ext_value[i]));
        }
        json_object_set_new(o, "ExtendedStatistics", ext);
    }
    set_str(o, "Unit", dp->unit);
    json_array_append_new(g->points, o);
    return 0;
}

static int get_metric_statistics(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_error se = { 0 };
    struct sc_get_metric_statistics_req rq;
    struct gms g;
    int rc = 0;

    memset(&rq, 0, sizeof(rq));
    rq.namespace = api_str(in, "Namespace");
    rq.metric_name = api_str(in, "MetricName");
    rq.dimensions = api_dims(in, "Dimensions", &rq.n_dimensions);
    rq.start_time_ms = ts_get(in, "StartTime", &rq.has_start_time);
    rq.end_time_ms = ts_get(in, "EndTime", &rq.has_end_time);
    rq.has_period = api_int(in, "Period", &rq.period);
    rq.statistics = api_strings(in, "Statistics", &rq.n_statistics);
    rq.extended_statistics = api_strings(in, "ExtendedStatistics", &rq.n_extended_statistics);
    rq.unit = api_str(in, "Unit");
    g.rq = &rq;
    g.points = json_array();
    if (sc_cw_get_metric_statistics(cw, &rq, ctx->now_ms, gms_visit, &g, &se) != SC_OK) {
        rc = fail(err, &se);
        json_decref(g.points);
    } else {
        *out = json_pack("{s:s,s:o}", "Label", rq.metric_name ? rq.metric_name : "", "Datapoints",
                         g.points);
    }
    free((void *)rq.dimensions);
    free((void *)rq.statistics);
    free((void *)rq.extended_statistics);
    return rc;
}

static int gmd_visit(const struct sc_metric_data_result *r, void *ud)
{
    json_t *a = ud;
    json_t *ts = json_array(), *vs = json_array();
    json_t *o;

    for (int i = 0; i < r->n_values; i++) {
        json_array_append_new(ts, json_integer(r->timestamps_ms[i]));
        json_array_append_new(vs, json_real(r->values[i]));
    }
    o = json_pack("{s:s,s:o,s:o,s:s}", "Id", r->id, "Timestamps", ts, "Values", vs, "StatusCode",
                  r->status_code ? r->status_code : "Complete");
    set_str(o, "Label", r->label);
    if (r->message_code)
        json_object_set_new(o, "Messages",
                            json_pack("[{s:s,s:s}]", "Code", r->message_code, "Value",
                                      r->message_value ? r->message_value : ""));
    json_array_append_new(a, o);
    return 0;
}

static int get_metric_data(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_error se = { 0 };
    struct sc_get_metric_data_req rq;
    json_t *qs = json_object_get(in, "MetricDataQueries");
    struct sc_metric_data_query *q;
    size_t i, n = json_array_size(qs);
    json_t *e, *results;
    int rc = 0;

    q = cm_xcalloc(n + 1, sizeof(*q));
    json_array_foreach(qs, i, e)
    {
        json_t *ms = json_object_get(e, "MetricStat");
        json_t *m = json_object_get(ms, "Metric");

        q[i].id = api_str(e, "Id");
        q[i].label = api_str(e, "Label");
        q[i].expression = api_str(e, "Expression");
        api_int(e, "Period", &q[i].expression_period);
        q[i].has_return_data = json_is_boolean(json_object_get(e, "ReturnData"));
        q[i].return_data = api_bool(e, "ReturnData", 1);
        if (ms) {
            q[i].has_metric_stat = 1;
            q[i].metric.namespace = api_str(m, "Namespace");
            q[i].metric.metric_name = api_str(m, "MetricName");
            q[i].metric.dimensions = api_dims(m, "Dimensions", &q[i].metric.n_dimensions);
            api_int(ms, "Period", &q[i].period);
            q[i].stat = api_str(ms, "Stat");
            q[i].unit = api_str(ms, "Unit");
        }
    }
    memset(&rq, 0, sizeof(rq));
    rq.queries = q;
    rq.n_queries = (int)n;
    rq.start_time_ms = ts_get(in, "StartTime", &rq.has_start_time);
    rq.end_time_ms = ts_get(in, "EndTime", &rq.has_end_time);
    rq.scan_by = api_str(in, "ScanBy");
    rq.has_max_datapoints = api_int(in, "MaxDatapoints", &rq.max_datapoints);
    results = json_array();
    if (sc_cw_get_metric_data(cw, &rq, ctx->now_ms, gmd_visit, results, &se) != SC_OK) {
        rc = fail(err, &se);
        json_decref(results);
    } else {
        *out = json_pack("{s:o,s:[]}", "MetricDataResults", results, "Messages");
    }
    for (i = 0; i < n; i++)
        free((void *)q[i].metric.dimensions);
    free(q);
    return rc;
}

static int lm_visit(const struct sc_metric_view *m, void *ud)
{
    json_array_append_new(ud, json_pack("{s:s,s:s,s:o}", "Namespace", m->namespace, "MetricName",
                                        m->metric_name, "Dimensions",
                                        api_dims_json(m->dimensions, m->n_dimensions)));
    return 0;
}

static int list_metrics(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_error se = { 0 };
    struct sc_list_metrics_req rq;
    json_t *items;
    int rc;

    memset(&rq, 0, sizeof(rq));
    rq.namespace = api_str(in, "Namespace");
    rq.metric_name = api_str(in, "MetricName");
    rq.dimensions = api_dims(in, "Dimensions", &rq.n_dimensions);
    rq.recently_active = api_str(in, "RecentlyActive");
    items = json_array();
    if (sc_cw_list_metrics(cw, &rq, ctx->now_ms, lm_visit, items, &se) != SC_OK) {
        json_decref(items);
        rc = fail(err, &se);
    } else {
        *out = json_object();
        rc = api_page(items, in, "NextToken", NULL, 500, 500, *out, "Metrics", "NextToken", err);
    }
    free((void *)rq.dimensions);
    return rc;
}

/* ---- alarms ------------------------------------------------------------------------------ */

static int put_metric_alarm(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_error se = { 0 };
    struct sc_put_metric_alarm_req rq;
    int rc = 0;

    *out = NULL;
    memset(&rq, 0, sizeof(rq));
    rq.alarm_name = api_str(in, "AlarmName");
    rq.alarm_description = api_str(in, "AlarmDescription");
    rq.has_actions_enabled = json_is_boolean(json_object_get(in, "ActionsEnabled"));
    rq.actions_enabled = api_bool(in, "ActionsEnabled", 1);
    rq.ok_actions = api_strings(in, "OKActions", &rq.n_ok_actions);
    rq.alarm_actions = api_strings(in, "AlarmActions", &rq.n_alarm_actions);
    rq.insufficient_data_actions =
        api_strings(in, "InsufficientDataActions", &rq.n_insufficient_data_actions);
    rq.metric_name = api_str(in, "MetricName");
    rq.namespace = api_str(in, "Namespace");
    rq.statistic = api_str(in, "Statistic");
    rq.extended_statistic = api_str(in, "ExtendedStatistic");
    rq.dimensions = api_dims(in, "Dimensions", &rq.n_dimensions);
    rq.has_period = api_int(in, "Period", &rq.period);
    rq.unit = api_str(in, "Unit");
    rq.has_evaluation_periods = api_int(in, "EvaluationPeriods", &rq.evaluation_periods);
    rq.has_datapoints_to_alarm = api_int(in, "DatapointsToAlarm", &rq.datapoints_to_alarm);
    rq.has_threshold = json_is_number(json_object_get(in, "Threshold"));
    rq.threshold = json_number_value(json_object_get(in, "Threshold"));
    rq.comparison_operator = api_str(in, "ComparisonOperator");
    rq.treat_missing_data = api_str(in, "TreatMissingData");
    rq.evaluate_low_sample_count_percentile = api_str(in, "EvaluateLowSampleCountPercentile");
    rq.has_metrics = json_object_get(in, "Metrics") != NULL;
    rq.metrics = api_alarm_queries(json_object_get(in, "Metrics"), &rq.n_metrics);
    rq.threshold_metric_id = api_str(in, "ThresholdMetricId");
    rq.tags = tags_get(in, &rq.n_tags);
    if (sc_cw_put_metric_alarm(cw, &rq, ctx->now_ms, &se) != SC_OK)
        rc = fail(err, &se);
    free((void *)rq.ok_actions);
    free((void *)rq.alarm_actions);
    free((void *)rq.insufficient_data_actions);
    free((void *)rq.dimensions);
    free((void *)rq.tags);
    api_alarm_queries_free((struct sc_alarm_query *)rq.metrics, rq.n_metrics);
    return rc;
}

static int alarm_visit(const struct sc_alarm_view *a, void *ud)
{
    json_t *o = json_object();

    set_str(o, "AlarmName", a->alarm_name);
    set_str(o, "AlarmArn", a->alarm_arn);
    set_str(o, "AlarmDescription", a->alarm_description);
    json_object_set_new(o, "AlarmConfigurationUpdatedTimestamp",
                        json_integer(a->alarm_configuration_updated_timestamp_ms));
    json_object_set_new(o, "ActionsEnabled", json_boolean(a->actions_enabled));
    json_object_set_new(o, "OKActions", cstrs_json(a->ok_actions, a->n_ok_actions));
    json_object_set_new(o, "AlarmActions", cstrs_json(a->alarm_actions, a->n_alarm_actions));
    json_object_set_new(o, "InsufficientDataActions",
                        cstrs_json(a->insufficient_data_actions, a->n_insufficient_data_actions));
    set_str(o, "StateValue", a->state_value);
    set_str(o, "StateReason", a->state_reason);
    set_str(o, "StateReasonData", a->state_reason_data);
    json_object_set_new(o, "StateUpdatedTimestamp", json_integer(a->state_updated_timestamp_ms));
    if (a->state_transitioned_timestamp_ms)
        json_object_set_new(o, "StateTransitionedTimestamp",
                            json_integer(a->state_transitioned_timestamp_ms));
    set_str(o, "MetricName", a->metric_name);
    set_str(o, "Namespace", a->namespace);
    set_str(o, "Statistic", a->statistic);
    set_str(o, "ExtendedStatistic", a->extended_statistic);
    if (a->n_metrics) {
        json_object_set_new(o, "Metrics", api_alarm_queries_json(a->metrics, a->n_metrics));
    } else {
        json_object_set_new(o, "Dimensions", api_dims_json(a->dimensions, a->n_dimensions));
        json_object_set_new(o, "Period", json_integer(a->period));
    }
    set_str(o, "Unit", a->unit);
    json_object_set_new(o, "EvaluationPeriods", json_integer(a->evaluation_periods));
    if (a->has_datapoints_to_alarm)
        json_object_set_new(o, "DatapointsToAlarm", json_integer(a->datapoints_to_alarm));
    if (a->threshold_metric_id)
        set_str(o, "ThresholdMetricId", a->threshold_metric_id);
    else
        json_object_set_new(o, "Threshold", json_real(a->threshold));
    set_str(o, "ComparisonOperator", a->comparison_operator);
    set_str(o, "TreatMissingData", a->treat_missing_data);
    set_str(o, "EvaluateLowSampleCountPercentile", a->evaluate_low_sample_count_percentile);
    json_array_append_new(ud, o);
    return 0;
}

static int composite_visit(const struct sc_composite_view *c, void *ud)
{
    json_t *o = json_object();

    set_str(o, "AlarmName", c->alarm_name);
    set_str(o, "AlarmArn", c->alarm_arn);
    set_str(o, "AlarmDescription", c->alarm_description);
    set_str(o, "AlarmRule", c->alarm_rule);
    json_object_set_new(o, "AlarmConfigurationUpdatedTimestamp",
                        json_integer(c->alarm_configuration_updated_timestamp_ms));
    json_object_set_new(o, "ActionsEnabled", json_boolean(c->actions_enabled));
    json_object_set_new(o, "OKActions", cstrs_json(c->ok_actions, c->n_ok_actions));
    json_object_set_new(o, "AlarmActions", cstrs_json(c->alarm_actions, c->n_alarm_actions));
    json_object_set_new(o, "InsufficientDataActions",
                        cstrs_json(c->insufficient_data_actions, c->n_insufficient_data_actions));
    set_str(o, "StateValue", c->state_value);
    set_str(o, "StateReason", c->state_reason);
    set_str(o, "StateReasonData", c->state_reason_data);
    json_object_set_new(o, "StateUpdatedTimestamp", json_integer(c->state_updated_timestamp_ms));
    json_object_set_new(o, "StateTransitionedTimestamp",
                        json_integer(c->state_transitioned_timestamp_ms));
    set_str(o, "ActionsSuppressedBy", c->actions_suppressed_by);
    set_str(o, "ActionsSuppressedReason", c->actions_suppressed_reason);
    if (c->actions_suppressor) {
        set_str(o, "ActionsSuppressor", c->actions_suppressor);
        json_object_set_new(o, "ActionsSuppressorWaitPeriod",
                            json_integer(c->actions_suppressor_wait_period));
        json_object_set_new(o, "ActionsSuppressorExtensionPeriod",
                            json_integer(c->actions_suppressor_extension_period));
    }
    json_object_set_new(o, "__kind", json_string("c"));
    json_array_append_new(ud, o);
    return 0;
}

/* ChildrenOfAlarmName / ParentsOfAlarmName rows carry only what AWS documents. */
static int family_metric_visit(const struct sc_alarm_view *a, void *ud)
{
    json_array_append_new(ud, json_pack("{s:s,s:s,s:s,s:I,s:s}", "AlarmName", a->alarm_name,
                                        "AlarmArn", a->alarm_arn, "StateValue", a->state_value,
                                        "StateUpdatedTimestamp",
                                        (json_int_t)a->state_updated_timestamp_ms, "__kind", "m"));
    return 0;
}

static int children_visit(const struct sc_composite_view *c, void *ud)
{
    json_array_append_new(ud, json_pack("{s:s,s:s,s:s,s:I,s:s}", "AlarmName", c->alarm_name,
                                        "AlarmArn", c->alarm_arn, "StateValue", c->state_value,
                                        "StateUpdatedTimestamp",
                                        (json_int_t)c->state_updated_timestamp_ms, "__kind", "c"));
    return 0;
}

static int parents_visit(const struct sc_composite_view *c, void *ud)
{
    json_array_append_new(ud, json_pack("{s:s,s:s,s:s}", "AlarmName", c->alarm_name, "AlarmArn",
                                        c->alarm_arn, "__kind", "c"));
    return 0;
}

static int tag_metric(const struct sc_alarm_view *a, void *ud)
{
    json_t *items = ud;

    alarm_visit(a, items);
    json_object_set_new(json_array_get(items, json_array_size(items) - 1), "__kind",
                        json_string("m"));
    return 0;
}

/* Splits the page (out.__all, tagged by __kind) into MetricAlarms and CompositeAlarms. */
static void split_page(json_t *out)
{
    json_t *all = json_object_get(out, "__all"), *m = json_array(), *c = json_array(), *e;
    size_t i;

    json_array_foreach(all, i, e)
    {
        int comp = strcmp(json_string_value(json_object_get(e, "__kind")), "c") == 0;
        json_object_del(e, "__kind");
        json_array_append(comp ? c : m, e);
    }
    json_object_del(out, "__all");
    json_object_set_new(out, "MetricAlarms", m);
    json_object_set_new(out, "CompositeAlarms", c);
}

/* DescribeAlarms' page: only the alarms of the page are built (issue 19 finding 9: with
 * 10,000 alarms every page built all 10,000 objects, 140-290 ms of the loop); the others
 * are json_null() placeholders, so api_page's indexes and tokens stay the same. Metric
 * alarms come first, then composites, as one list. */
struct alarm_page {
    json_t *items;
    size_t idx, start, end;
};

/* 1 when the next alarm is on the page; else its placeholder is appended. */
static int on_page(struct alarm_page *pg)
{
    size_t i = pg->idx++;

    if (i >= pg->start && i < pg->end)
        return 1;
    json_array_append_new(pg->items, json_null());
    return 0;
}

static int metric_page_visit(const struct sc_alarm_view *a, void *ud)
{
    struct alarm_page *pg = ud;

    return on_page(pg) ? tag_metric(a, pg->items) : 0;
}

static int composite_page_visit(const struct sc_composite_view *c, void *ud)
{
    struct alarm_page *pg = ud;

    return on_page(pg) ? composite_visit(c, pg->items) : 0;
}

static int describe_alarms(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_alarms *al = sc_cw_alarms(cw);
    struct sc_error se = { 0 };
    struct sc_describe_alarms_req rq;
    const char *children = api_str(in, "ChildrenOfAlarmName");
    const char *parents = api_str(in, "ParentsOfAlarmName");
    const char **types;
    json_t *items;
    struct alarm_page pg = { 0 };
    size_t limit;
    int nt, metric = 1, composite = 0, rc = 0;

    memset(&rq, 0, sizeof(rq));
    rq.alarm_names = api_strings(in, "AlarmNames", &rq.n_alarm_names);
    rq.alarm_name_prefix = api_str(in, "AlarmNamePrefix");
    rq.state_value = api_str(in, "StateValue");
    rq.action_prefix = api_str(in, "ActionPrefix");
    types = api_strings(in, "AlarmTypes", &nt);
    if (nt) {
        metric = 0;
        for (int i = 0; i < nt; i++) {
            metric |= strcmp(types[i], "MetricAlarm") == 0;
            composite |= strcmp(types[i], "CompositeAlarm") == 0;
        }
    }
    items = json_array();
    pg.items = items;
    api_page_window(in, "NextToken", "MaxRecords", 50, 100, &pg.start, &limit);
    pg.end = pg.start + limit;
    if (children && parents) {
        rc = awserr_set(err, 400, "ValidationError",
                        "ChildrenOfAlarmName and ParentsOfAlarmName cannot be used together");
    } else if ((children || parents) && (rq.n_alarm_names || rq.alarm_name_prefix ||
                                         rq.state_value || rq.action_prefix || nt)) {
        rc = awserr_set(err, 400, "ValidationError",
                        "ChildrenOfAlarmName and ParentsOfAlarmName cannot be used with other "
                        "filters");
    } else if (children) {
        sc_alarms_children_of(al, children, family_metric_visit, children_visit, items);
    } else if (parents) {
        sc_alarms_parents_of(al, parents, parents_visit, items);
    } else if (metric && sc_cw_describe_alarms(cw, &rq, metric_page_visit, &pg, &se) != SC_OK) {
        rc = fail(err, &se);
    } else if (composite &&
               sc_cw_describe_composite_alarms(cw, &rq, composite_page_visit, &pg, &se) != SC_OK) {
        rc = fail(err, &se);
    }
    if (rc == 0) {
        *out = json_object();
        rc = api_page(items, in, "NextToken", "MaxRecords", 50, 100, *out, "__all", "NextToken",
                      err);
        if (rc == 0)
            split_page(*out);
    } else {
        json_decref(items);
    }
    free((void *)rq.alarm_names);
    free(types);
    return rc;
}

static int put_composite_alarm(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_error se = { 0 };
    struct sc_put_composite_alarm_req rq;
    int rc = 0;

    *out = NULL;
    memset(&rq, 0, sizeof(rq));
    rq.alarm_name = api_str(in, "AlarmName");
    rq.alarm_rule = api_str(in, "AlarmRule");
    rq.alarm_description = api_str(in, "AlarmDescription");
    rq.has_actions_enabled = json_is_boolean(json_object_get(in, "ActionsEnabled"));
    rq.actions_enabled = api_bool(in, "ActionsEnabled", 1);
    rq.ok_actions = api_strings(in, "OKActions", &rq.n_ok_actions);
    rq.alarm_actions = api_strings(in, "AlarmActions", &rq.n_alarm_actions);
    rq.insufficient_data_actions =
        api_strings(in, "InsufficientDataActions", &rq.n_insufficient_data_actions);
    rq.tags = tags_get(in, &rq.n_tags);
    rq.actions_suppressor = api_str(in, "ActionsSuppressor");
    rq.has_wait_period = api_int(in, "ActionsSuppressorWaitPeriod", &rq.wait_period_s);
    rq.has_extension_period =
        api_int(in, "ActionsSuppressorExtensionPeriod", &rq.extension_period_s);
    if (sc_cw_put_composite_alarm(cw, &rq, ctx->now_ms, &se) != SC_OK)
        rc = fail(err, &se);
    free((void *)rq.ok_actions);
    free((void *)rq.alarm_actions);
    free((void *)rq.insufficient_data_actions);
    free((void *)rq.tags);
    return rc;
}

/* ---- dashboards --------------------------------------------------------------------------- */

static int put_dashboard(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_dashboards *d = sc_cw_dashboards(sc_world_cw(ctx->world));
    struct sc_dashboard_check check;
    struct sc_error se = { 0 };

    if (sc_dashboards_put(d, api_str(in, "DashboardName"), api_str(in, "DashboardBody"),
                          ctx->now_ms, &check, &se) != SC_OK)
        return fail(err, &se);
    *out = json_pack("{s:[]}", "DashboardValidationMessages");
    return 0;
}

static int get_dashboard(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_dashboards *d = sc_cw_dashboards(sc_world_cw(ctx->world));
    const struct sc_dashboard_view *v;
    struct sc_error se = { 0 };

    if (sc_dashboards_get(d, api_str(in, "DashboardName"), &v, &se) != SC_OK)
        return fail(err, &se);
    *out = json_pack("{s:s,s:s,s:s}", "DashboardArn", v->arn, "DashboardBody", v->body,
                     "DashboardName", v->name);
    return 0;
}

static int dashboard_visit(const struct sc_dashboard_view *v, void *ud)
{
    json_array_append_new(ud,
                          json_pack("{s:s,s:s,s:I,s:I}", "DashboardName", v->name, "DashboardArn",
                                    v->arn, "LastModified", (json_int_t)v->last_modified_ms, "Size",
                                    (json_int_t)v->size));
    return 0;
}

static int list_dashboards(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_dashboards *d = sc_cw_dashboards(sc_world_cw(ctx->world));
    struct sc_error se = { 0 };
    json_t *items = json_array();

    if (sc_dashboards_list(d, api_str(in, "DashboardNamePrefix"), dashboard_visit, items, &se) !=
        SC_OK) {
        json_decref(items);
        return fail(err, &se);
    }
    *out = json_object();
    return api_page(items, in, "NextToken", NULL, 1000, 1000, *out, "DashboardEntries", "NextToken",
                    err);
}

static int delete_dashboards(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_dashboards *d = sc_cw_dashboards(sc_world_cw(ctx->world));
    struct sc_error se = { 0 };
    const char **names;
    int n, rc = 0;

    names = api_strings(in, "DashboardNames", &n);
    if (sc_dashboards_delete(d, names, n, &se) != SC_OK)
        rc = fail(err, &se);
    else
        *out = json_object();
    free(names);
    return rc;
}

static int describe_alarms_for_metric(struct api_ctx *ctx, json_t *in, json_t **out,
                                      struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_error se = { 0 };
    struct sc_describe_alarms_for_metric_req rq;
    json_t *items;
    int rc = 0;

    memset(&rq, 0, sizeof(rq));
    rq.metric_name = api_str(in, "MetricName");
    rq.namespace = api_str(in, "Namespace");
    rq.statistic = api_str(in, "Statistic");
    rq.extended_statistic = api_str(in, "ExtendedStatistic");
    rq.dimensions = api_dims(in, "Dimensions", &rq.n_dimensions);
    rq.has_period = api_int(in, "Period", &rq.period);
    rq.unit = api_str(in, "Unit");
    items = json_array();
    if (sc_cw_describe_alarms_for_metric(cw, &rq, alarm_visit, items, &se) != SC_OK) {
        json_decref(items);
        rc = fail(err, &se);
    } else {
        *out = json_pack("{s:o}", "MetricAlarms", items);
    }
    free((void *)rq.dimensions);
    return rc;
}

struct history_items {
    json_t *items;
    int metric, composite; /* AlarmTypes: which kinds to list */
};

static int history_visit(const struct sc_alarm_history_view *h, void *ud)
{
    struct history_items *x = ud;
    int comp = h->alarm_type && strcmp(h->alarm_type, "CompositeAlarm") == 0;

    if (comp ? !x->composite : !x->metric)
        return 0;
    json_array_append_new(
        x->items, json_pack("{s:s,s:s,s:I,s:s,s:s,s:s}", "AlarmName", h->alarm_name, "AlarmType",
                            h->alarm_type ? h->alarm_type : "MetricAlarm", "Timestamp",
                            (json_int_t)h->timestamp_ms, "HistoryItemType", h->history_item_type,
                            "HistorySummary", h->history_summary ? h->history_summary : "",
                            "HistoryData", h->history_data ? h->history_data : ""));
    return 0;
}

static int describe_alarm_history(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_error se = { 0 };
    struct sc_describe_alarm_history_req rq;
    struct history_items x = { NULL, 1, 1 };
    const char **types;
    json_t *items;
    int nt;

    memset(&rq, 0, sizeof(rq));
    types = api_strings(in, "AlarmTypes", &nt);
    if (nt) {
        x.metric = x.composite = 0;
        for (int i = 0; i < nt; i++) {
            x.metric |= strcmp(types[i], "MetricAlarm") == 0;
            x.composite |= strcmp(types[i], "CompositeAlarm") == 0;
        }
    }
    free(types);
    rq.alarm_name = api_str(in, "AlarmName");
    rq.history_item_type = api_str(in, "HistoryItemType");
    rq.start_date_ms = ts_get(in, "StartDate", &rq.has_start_date);
    rq.end_date_ms = ts_get(in, "EndDate", &rq.has_end_date);
    rq.scan_by = api_str(in, "ScanBy");
    items = json_array();
    x.items = items;
    if (sc_cw_describe_alarm_history(cw, &rq, ctx->now_ms, history_visit, &x, &se) != SC_OK) {
        json_decref(items);
        return fail(err, &se);
    }
    *out = json_object();
    return api_page(items, in, "NextToken", "MaxRecords", 100, 100, *out, "AlarmHistoryItems",
                    "NextToken", err);
}

typedef enum sc_status (*names_fn)(struct sc_cw *, const char *const *, int, int64_t,
                                   struct sc_error *);

static int names_op(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err, names_fn fn)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_error se = { 0 };
    const char **names;
    int n, rc = 0;

    *out = NULL;
    names = api_strings(in, "AlarmNames", &n);
    if (fn(cw, names, n, ctx->now_ms, &se) != SC_OK)
        rc = fail(err, &se);
    free(names);
    return rc;
}

static int delete_alarms(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return names_op(ctx, in, out, err, sc_cw_delete_alarms);
}

static int enable_alarm_actions(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return names_op(ctx, in, out, err, sc_cw_enable_alarm_actions);
}

static int disable_alarm_actions(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return names_op(ctx, in, out, err, sc_cw_disable_alarm_actions);
}

static int set_alarm_state(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_error se = { 0 };
    struct sc_set_alarm_state_req rq;

    *out = NULL;
    rq.alarm_name = api_str(in, "AlarmName");
    rq.state_value = api_str(in, "StateValue");
    rq.state_reason = api_str(in, "StateReason");
    rq.state_reason_data = api_str(in, "StateReasonData");
    if (sc_cw_set_alarm_state(cw, &rq, ctx->now_ms, &se) != SC_OK)
        return fail(err, &se);
    return 0;
}

static int tag_resource(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_error se = { 0 };
    struct sc_tag *t;
    int n, rc = 0;

    *out = NULL;
    t = tags_get(in, &n);
    if (sc_cw_tag_resource(cw, api_str(in, "ResourceARN"), t, n, &se) != SC_OK)
        rc = fail(err, &se);
    free(t);
    return rc;
}

static int untag_resource(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_error se = { 0 };
    const char **keys;
    int n, rc = 0;

    *out = NULL;
    keys = api_strings(in, "TagKeys", &n);
    if (sc_cw_untag_resource(cw, api_str(in, "ResourceARN"), keys, n, &se) != SC_OK)
        rc = fail(err, &se);
    free(keys);
    return rc;
}

static int tag_visit(const char *key, const char *value, void *ud)
{
    json_array_append_new(ud, json_pack("{s:s,s:s}", "Key", key, "Value", value ? value : ""));
    return 0;
}

static int list_tags_for_resource(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_error se = { 0 };
    json_t *tags;

    tags = json_array();
    if (sc_cw_list_tags_for_resource(cw, api_str(in, "ResourceARN"), tag_visit, tags, &se) !=
        SC_OK) {
        json_decref(tags);
        return fail(err, &se);
    }
    *out = json_pack("{s:o}", "Tags", tags);
    return 0;
}

/* ---- alarm mute rules ---------------------------------------------------------------------- */

static int put_alarm_mute_rule(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_alarms *al = sc_cw_alarms(sc_world_cw(ctx->world));
    json_t *sched = json_object_get(json_object_get(in, "Rule"), "Schedule");
    struct sc_put_alarm_mute_rule_req rq;
    struct sc_error se = { 0 };
    int rc = 0;

    *out = NULL;
    memset(&rq, 0, sizeof(rq));
    rq.name = api_str(in, "Name");
    rq.description = api_str(in, "Description");
    rq.expression = api_str(sched, "Expression");
    rq.duration = api_str(sched, "Duration");
    rq.timezone = api_str(sched, "Timezone");
    rq.alarm_names =
        api_strings(json_object_get(in, "MuteTargets"), "AlarmNames", &rq.n_alarm_names);
    rq.tags = tags_get(in, &rq.n_tags);
    rq.start_date_ms = ts_get(in, "StartDate", &rq.has_start_date);
    rq.expire_date_ms = ts_get(in, "ExpireDate", &rq.has_expire_date);
    if (sc_alarms_put_mute_rule(al, &rq, ctx->now_ms, &se) != SC_OK)
        rc = fail(err, &se);
    free((void *)rq.alarm_names);
    free((void *)rq.tags);
    return rc;
}

static int get_alarm_mute_rule(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_alarms *al = sc_cw_alarms(sc_world_cw(ctx->world));
    const struct sc_alarm_mute_rule_view *v;
    struct sc_error se = { 0 };
    json_t *sched;

    if (sc_alarms_get_mute_rule(al, api_str(in, "AlarmMuteRuleName"), ctx->now_ms, &v, &se) !=
        SC_OK)
        return fail(err, &se);
    sched = json_pack("{s:s,s:s}", "Expression", v->expression, "Duration", v->duration);
    set_str(sched, "Timezone", v->timezone);
    *out =
        json_pack("{s:s,s:s,s:{s:o},s:{s:o},s:s,s:I,s:s}", "Name", v->name, "AlarmMuteRuleArn",
                  v->arn, "Rule", "Schedule", sched, "MuteTargets", "AlarmNames",
                  cstrs_json(v->alarm_names, v->n_alarm_names), "Status", v->status,
                  "LastUpdatedTimestamp", (json_int_t)v->last_updated_ms, "MuteType", v->mute_type);
    set_str(*out, "Description", v->description);
    if (v->has_start_date)
        json_object_set_new(*out, "StartDate", json_integer(v->start_date_ms));
    if (v->has_expire_date)
        json_object_set_new(*out, "ExpireDate", json_integer(v->expire_date_ms));
    return 0;
}

static int mute_visit(const struct sc_alarm_mute_rule_view *v, void *ud)
{
    json_t *o =
        json_pack("{s:s,s:s,s:s,s:I}", "AlarmMuteRuleArn", v->arn, "Status", v->status, "MuteType",
                  v->mute_type, "LastUpdatedTimestamp", (json_int_t)v->last_updated_ms);

    if (v->has_expire_date)
        json_object_set_new(o, "ExpireDate", json_integer(v->expire_date_ms));
    json_array_append_new(ud, o);
    return 0;
}

static int list_alarm_mute_rules(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_alarms *al = sc_cw_alarms(sc_world_cw(ctx->world));
    struct sc_error se = { 0 };
    const char **st;
    json_t *items = json_array();
    int n, rc;

    st = api_strings(in, "Statuses", &n);
    if (sc_alarms_list_mute_rules(al, api_str(in, "AlarmName"), st, n, ctx->now_ms, mute_visit,
                                  items, &se) != SC_OK) {
        json_decref(items);
        free(st);
        return fail(err, &se);
    }
    free(st);
    *out = json_object();
    rc = api_page(items, in, "NextToken", "MaxRecords", 100, 100, *out, "AlarmMuteRuleSummaries",
                  "NextToken", err);
    return rc;
}

static int delete_alarm_mute_rule(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };

    *out = NULL;
    if (sc_alarms_delete_mute_rule(sc_cw_alarms(sc_world_cw(ctx->world)),
                                   api_str(in, "AlarmMuteRuleName"), &se) != SC_OK)
        return fail(err, &se);
    return 0;
}

const struct api_handler api_cloudwatch_handlers[] = {
    { "DeleteAlarmMuteRule", delete_alarm_mute_rule, API_MUTATES },
    { "DeleteAlarms", delete_alarms, API_MUTATES },
    { "DeleteDashboards", delete_dashboards, API_MUTATES },
    { "DescribeAlarmHistory", describe_alarm_history, 0 },
    { "DescribeAlarms", describe_alarms, 0 },
    { "DescribeAlarmsForMetric", describe_alarms_for_metric, 0 },
    { "DisableAlarmActions", disable_alarm_actions, API_MUTATES },
    { "EnableAlarmActions", enable_alarm_actions, API_MUTATES },
    { "GetAlarmMuteRule", get_alarm_mute_rule, 0 },
    { "GetDashboard", get_dashboard, 0 },
    { "GetMetricData", get_metric_data, 0 },
    { "GetMetricStatistics", get_metric_statistics, 0 },
    { "ListAlarmMuteRules", list_alarm_mute_rules, 0 },
    { "ListDashboards", list_dashboards, 0 },
    { "ListMetrics", list_metrics, 0 },
    { "ListTagsForResource", list_tags_for_resource, 0 },
    { "PutAlarmMuteRule", put_alarm_mute_rule, API_MUTATES },
    { "PutCompositeAlarm", put_composite_alarm, API_MUTATES },
    { "PutDashboard", put_dashboard, API_MUTATES },
    { "PutMetricAlarm", put_metric_alarm, API_MUTATES },
    { "PutMetricData", put_metric_data, API_MUTATES | API_JOURNAL },
    { "SetAlarmState", set_alarm_state, API_MUTATES },
    { "TagResource", tag_resource, API_MUTATES },
    { "UntagResource", untag_resource, API_MUTATES },
    { NULL, NULL, 0 },
};
