/* emulator/api_autoscaling_predict.c: PredictiveScalingConfiguration in and out, and
 * GetPredictiveScalingForecast (see api_autoscaling_predict.h). IR in -> one sc_asg call ->
 * IR out; every rule and message is the library's (docs/autoscaling.md section 12). */
#include "emulator/api_autoscaling_predict.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/asg.h"
#include "scaler/world.h"

void api_predictive_read(json_t *in, struct api_predictive *p)
{
    json_t *specs = json_object_get(in, "MetricSpecifications");
    size_t i;
    json_t *e;

    memset(p, 0, sizeof(*p));
    p->nspecs = (int)json_array_size(specs);
    p->specs = cm_xcalloc((size_t)p->nspecs + 1, sizeof(*p->specs));
    json_array_foreach(specs, i, e)
    {
        struct sc_predict_spec_req *s = &p->specs[i];
        json_t *tv = json_object_get(e, "TargetValue");

        s->has_target_value = json_is_number(tv);
        s->target_value = json_number_value(tv);
        for (int k = 0; k < SC_PREDICT_NSLOTS; k++) {
            json_t *m = json_object_get(e, sc_predict_slot_name(k));
            struct sc_predict_metric_req *r = &s->slot[k];

            if (!json_is_object(m))
                continue;
            r->set = 1;
            if (sc_predict_slot_customized(k)) {
                r->queries =
                    api_alarm_queries(json_object_get(m, "MetricDataQueries"), &r->nqueries);
            } else {
                r->predefined_metric_type = api_str(m, "PredefinedMetricType");
                r->resource_label = api_str(m, "ResourceLabel");
            }
        }
    }
    p->cfg.specs = p->specs;
    p->cfg.nspecs = p->nspecs;
    p->cfg.mode = api_str(in, "Mode");
    p->cfg.has_scheduling_buffer_time =
        api_int(in, "SchedulingBufferTime", &p->cfg.scheduling_buffer_time);
    p->cfg.max_capacity_breach_behavior = api_str(in, "MaxCapacityBreachBehavior");
    p->cfg.has_max_capacity_buffer = api_int(in, "MaxCapacityBuffer", &p->cfg.max_capacity_buffer);
}

void api_predictive_cleanup(struct api_predictive *p)
{
    for (int i = 0; i < p->nspecs; i++)
        for (int k = 0; k < SC_PREDICT_NSLOTS; k++)
            if (p->specs[i].slot[k].queries)
                api_alarm_queries_free((struct sc_alarm_query *)p->specs[i].slot[k].queries,
                                       p->specs[i].slot[k].nqueries);
    free(p->specs);
    memset(p, 0, sizeof(*p));
}

static void set_opt(json_t *o, const char *k, const char *v)
{
    if (v)
        json_object_set_new(o, k, json_string(v));
}

/* MetricDataQueries as the model has them (MetricStat: Metric, Stat, Unit; no Period). */
static json_t *queries_json(const struct sc_alarm_query *q, int n)
{
    json_t *a = json_array();

    for (int i = 0; i < n; i++) {
        json_t *o = json_pack("{s:s}", "Id", q[i].id);

        if (q[i].has_metric_stat) {
            json_t *dims = json_array();
            json_t *ms;

            for (int d = 0; d < q[i].metric.n_dimensions; d++)
                json_array_append_new(dims,
                                      json_pack("{s:s,s:s}", "Name", q[i].metric.dimensions[d].name,
                                                "Value", q[i].metric.dimensions[d].value));
            ms = json_pack("{s:{s:s,s:s,s:o},s:s}", "Metric", "Namespace", q[i].metric.namespace,
                           "MetricName", q[i].metric.metric_name, "Dimensions", dims, "Stat",
                           q[i].stat ? q[i].stat : "");
            set_opt(ms, "Unit", q[i].unit);
            json_object_set_new(o, "MetricStat", ms);
        }
        set_opt(o, "Expression", q[i].expression);
        set_opt(o, "Label", q[i].label);
        json_object_set_new(o, "ReturnData",
                            json_boolean(!q[i].has_return_data || q[i].return_data));
        json_array_append_new(a, o);
    }
    return a;
}

/* The one PredictiveScalingMetricSpecification, as sent. */
static json_t *spec_json(const struct sc_asg_predictive_info *p)
{
    json_t *s = json_pack("{s:f}", "TargetValue", p->target_value);

    for (int k = 0; k < SC_PREDICT_NSLOTS; k++) {
        const struct sc_predict_metric *m = &p->slot[k];
        json_t *o;

        if (!m->set)
            continue;
        if (sc_predict_slot_customized(k)) {
            o = json_pack("{s:o}", "MetricDataQueries", queries_json(m->queries, m->nqueries));
        } else {
            o = json_pack("{s:s}", "PredefinedMetricType",
                          m->predefined_metric_type ? m->predefined_metric_type : "");
            set_opt(o, "ResourceLabel", m->resource_label);
        }
        json_object_set_new(s, sc_predict_slot_name(k), o);
    }
    return s;
}

json_t *api_predictive_json(const struct sc_asg_predictive_info *p)
{
    json_t *o = json_pack("{s:[o],s:s,s:s}", "MetricSpecifications", spec_json(p), "Mode",
                          sc_predict_mode_str(p->forecast_and_scale), "MaxCapacityBreachBehavior",
                          sc_predict_breach_str(p->increase_max_capacity));

    if (p->has_scheduling_buffer_time)
        json_object_set_new(o, "SchedulingBufferTime", json_integer(p->scheduling_buffer_time));
    if (p->has_max_capacity_buffer)
        json_object_set_new(o, "MaxCapacityBuffer", json_integer(p->max_capacity_buffer));
    return o;
}

static int ts_get(json_t *o, const char *member, int64_t *ms)
{
    json_t *v = json_object_get(o, member);

    if (!json_is_integer(v))
        return 0;
    *ms = json_integer_value(v);
    return 1;
}

static int get_forecast(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se = { 0 };
    struct sc_predict_forecast_view v;
    int64_t start = 0, end = 0;
    json_t *ts, *lv, *cv, *cts;
    enum sc_status st;

    *out = NULL;
    ts_get(in, "StartTime", &start);
    ts_get(in, "EndTime", &end);
    st = sc_asg_get_predictive_forecast(sc_world_asg(ctx->world),
                                        api_str(in, "AutoScalingGroupName"),
                                        api_str(in, "PolicyName"), start, end, &v, &se);
    if (st != SC_OK)
        return awserr_from_sc(err, &se);
    ts = json_array();
    cts = json_array();
    lv = json_array();
    cv = json_array();
    for (int i = 0; i < v.n; i++) {
        int64_t t = v.first_ms + (int64_t)i * SC_PREDICT_HOUR_MS;

        json_array_append_new(ts, json_integer(t));
        json_array_append_new(cts, json_integer(t));
        json_array_append_new(lv, json_real(v.load[i]));
        json_array_append_new(cv, json_real(v.capacity[i]));
    }
    *out = json_pack("{s:[{s:o,s:o,s:o}],s:{s:o,s:o},s:I}", "LoadForecast", "Timestamps", ts,
                     "Values", lv, "MetricSpecification", spec_json(v.policy), "CapacityForecast",
                     "Timestamps", cts, "Values", cv, "UpdateTime", (json_int_t)v.update_ms);
    return 0;
}

const struct api_handler api_autoscaling_predict_handlers[] = {
    { "GetPredictiveScalingForecast", get_forecast, 0 },
    { NULL, NULL, 0 },
};
