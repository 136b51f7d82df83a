/* emulator/api_cloudwatch_anomaly.c: Put/Describe/DeleteAnomalyDetector(s) over
 * scaler/anomaly.h (IR in -> one library call -> IR out). Every rule and message is the
 * library's (docs/cloudwatch.md "Anomaly detection"). */
#include "emulator/api_cloudwatch_anomaly.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/anomaly.h"
#include "scaler/cloudwatch.h"
#include "scaler/world.h"

static void metric_get(json_t *in, struct sc_anomaly_metric *m)
{
    m->account_id = api_str(in, "AccountId");
    m->namespace = api_str(in, "Namespace");
    m->metric_name = api_str(in, "MetricName");
    m->stat = api_str(in, "Stat");
    m->dimensions = api_dims(in, "Dimensions", &m->n_dimensions);
}

/* The request's detector (both operations) and, for Put, its configuration. */
static void req_get(json_t *in, struct sc_anomaly_req *r, struct sc_anomaly_range **ex)
{
    json_t *single = json_object_get(in, "SingleMetricAnomalyDetector");
    json_t *math = json_object_get(in, "MetricMathAnomalyDetector");
    json_t *conf = json_object_get(in, "Configuration");
    json_t *ranges = json_object_get(conf, "ExcludedTimeRanges");
    json_t *mc = json_object_get(in, "MetricCharacteristics"), *e;
    size_t i;

    memset(r, 0, sizeof(*r));
    r->has_legacy = json_object_get(in, "Namespace") || json_object_get(in, "MetricName") ||
                    json_object_get(in, "Dimensions") || json_object_get(in, "Stat");
    metric_get(in, &r->legacy);
    r->has_single = single != NULL;
    metric_get(single, &r->single);
    r->has_math = math != NULL;
    r->queries = api_alarm_queries(json_object_get(math, "MetricDataQueries"), &r->n_queries);
    r->has_configuration = conf != NULL;
    r->n_excluded = (int)json_array_size(ranges);
    *ex = cm_xcalloc((size_t)r->n_excluded + 1, sizeof(**ex));
    json_array_foreach(ranges, i, e)
    {
        (*ex)[i].start_ms = json_integer_value(json_object_get(e, "StartTime"));
        (*ex)[i].end_ms = json_integer_value(json_object_get(e, "EndTime"));
    }
    r->excluded = *ex;
    r->metric_timezone = api_str(conf, "MetricTimezone");
    r->has_periodic_spikes = json_is_boolean(json_object_get(mc, "PeriodicSpikes"));
    r->periodic_spikes = api_bool(mc, "PeriodicSpikes", 0);
}

static void req_free(struct sc_anomaly_req *r, struct sc_anomaly_range *ex)
{
    free((void *)r->legacy.dimensions);
    free((void *)r->single.dimensions);
    api_alarm_queries_free((struct sc_alarm_query *)r->queries, r->n_queries);
    free(ex);
}

static int put_or_delete(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err, int del)
{
    struct sc_anomaly_detectors *d = sc_cw_anomaly(sc_world_cw(ctx->world));
    struct sc_anomaly_range *ex;
    struct sc_anomaly_req r;
    struct sc_error se = { 0 };
    enum sc_status s;

    *out = NULL;
    req_get(in, &r, &ex);
    s = del ? sc_anomaly_delete(d, &r, &se) : sc_anomaly_put(d, &r, &se);
    req_free(&r, ex);
    return s == SC_OK ? 0 : awserr_from_sc(err, &se);
}

static int put_anomaly_detector(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return put_or_delete(ctx, in, out, err, 0);
}

static int delete_anomaly_detector(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    return put_or_delete(ctx, in, out, err, 1);
}

static int detector_visit(const struct sc_anomaly_view *v, void *ud)
{
    json_t *o = json_object(), *conf = json_object(), *ex = json_array();

    if (v->math) {
        json_object_set_new(o, "MetricMathAnomalyDetector",
                            json_pack("{s:o}", "MetricDataQueries",
                                      api_alarm_queries_json(v->queries, v->n_queries)));
    } else {
        const struct sc_anomaly_metric *m = &v->metric;
        json_object_set_new(o, "Namespace", json_string(m->namespace));
        json_object_set_new(o, "MetricName", json_string(m->metric_name));
        json_object_set_new(o, "Dimensions", api_dims_json(m->dimensions, m->n_dimensions));
        json_object_set_new(o, "Stat", json_string(m->stat));
        json_object_set_new(o, "SingleMetricAnomalyDetector",
                            json_pack("{s:s,s:s,s:o,s:s}", "Namespace", m->namespace, "MetricName",
                                      m->metric_name, "Dimensions",
                                      api_dims_json(m->dimensions, m->n_dimensions), "Stat",
                                      m->stat));
    }
    for (int i = 0; i < v->n_excluded; i++)
        json_array_append_new(ex, json_pack("{s:I,s:I}", "StartTime",
                                            (json_int_t)v->excluded[i].start_ms, "EndTime",
                                            (json_int_t)v->excluded[i].end_ms));
    json_object_set_new(conf, "ExcludedTimeRanges", ex);
    if (v->metric_timezone)
        json_object_set_new(conf, "MetricTimezone", json_string(v->metric_timezone));
    json_object_set_new(o, "Configuration", conf);
    if (v->has_periodic_spikes)
        json_object_set_new(o, "MetricCharacteristics",
                            json_pack("{s:b}", "PeriodicSpikes", v->periodic_spikes));
    json_object_set_new(o, "StateValue", json_string(v->state_value));
    json_array_append_new(ud, o);
    return 0;
}

static int describe_anomaly_detectors(struct api_ctx *ctx, json_t *in, json_t **out,
                                      struct awserr *err)
{
    struct sc_cw *cw = sc_world_cw(ctx->world);
    struct sc_anomaly_describe_req r;
    struct sc_error se = { 0 };
    json_t *items;
    int rc;

    *out = NULL;
    memset(&r, 0, sizeof(r));
    r.namespace = api_str(in, "Namespace");
    r.metric_name = api_str(in, "MetricName");
    r.dimensions = api_dims(in, "Dimensions", &r.n_dimensions);
    r.types = api_strings(in, "AnomalyDetectorTypes", &r.n_types);
    items = json_array();
    if (sc_anomaly_describe(sc_cw_anomaly(cw), &r, sc_cw_metrics(cw), ctx->now_ms, detector_visit,
                            items, &se) != SC_OK) {
        json_decref(items);
        rc = awserr_from_sc(err, &se);
    } else {
        *out = json_object();
        rc = api_page(items, in, "NextToken", "MaxResults", 100, 100, *out, "AnomalyDetectors",
                      "NextToken", err);
    }
    free((void *)r.dimensions);
    free((void *)r.types);
    return rc;
}

const struct api_handler api_cloudwatch_anomaly_handlers[] = {
    { "DeleteAnomalyDetector", delete_anomaly_detector, API_MUTATES },
    { "DescribeAnomalyDetectors", describe_anomaly_detectors, 0 },
    { "PutAnomalyDetector", put_anomaly_detector, API_MUTATES },
    { NULL, NULL, 0 },
};
