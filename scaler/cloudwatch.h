/* scaler/cloudwatch.h: the CloudWatch service of one account+region, one function per
 * operation the emulator serves (spec/aws-behavior.md 5). struct sc_cw owns the metric
 * store (scaler/metric.h) and the alarms (scaler/alarm.h).
 *
 * Conventions (scaler/world.h): every entry point takes now_ms (epoch ms, caller's clock);
 * request strings are borrowed; validation answers AWS's code and text in *err; reads
 * visit results in AWS order through a callback (return non-zero to stop), with views
 * borrowed for the duration of the callback; paging is the caller's. Never aborts; no
 * allocation after create except when a new metric identity or alarm appears.
 *
 * Driving it: the world calls sc_cw_step(cw, now) whenever now reaches
 * sc_cw_next_due_ms(cw, now); step evaluates alarms at each minute boundary (and each
 * 10 s for Period < 60 alarms), runs actions through the registered handler, runs
 * actions SetAlarmState left pending, and expires idle metrics. */
#ifndef SCALER_CLOUDWATCH_H
#define SCALER_CLOUDWATCH_H

#include <stdint.h>

#include <jansson.h>

#include "scaler/alarm.h"
#include "scaler/alarm_composite.h"
#include "scaler/alarm_mute.h"
#include "scaler/dashboard.h"
#include "scaler/insight.h"
#include "scaler/metric.h"
#include "scaler/metric_stream.h"
#include "scaler/status.h"

struct sc_cw_config {
    const char *region;  /* default "us-east-1" */
    const char *account; /* default "123456789012" */
    struct sc_metric_config metrics;
    size_t history_bytes; /* alarm history ring, default 8 MiB */
    int64_t start_ms;     /* first evaluation tick is the first minute boundary >= this */
    /* The account's dashboards, shared by its regions' worlds (borrowed: must outlive cw);
     * NULL: cw makes and owns its own. A shared set is neither saved nor loaded by
     * sc_cw_save/sc_cw_load: its owner saves it, and merges a "dashboards" member an
     * older state file has in a world's cloudwatch (sc_dashboards_merge). */
    struct sc_dashboards *dashboards;
};
void sc_cw_config_defaults(struct sc_cw_config *c);

struct sc_cw; /* opaque */

/* cfg NULL = defaults. Returns NULL on OOM. */
struct sc_cw *sc_cw_create(const struct sc_cw_config *cfg);
void sc_cw_destroy(struct sc_cw *cw); /* NULL is a no-op */

/* The action handler the world registers (alarm -> policy ARN). fn returns NULL for
 * success (history: "Successfully executed action <arn>") or a failure text (logged as
 * the Action item's summary). Not called when ActionsEnabled is false. The handler may call
 * back into sc_cw_* (create, delete or set alarms): the library copies what it needs first. */
void sc_cw_set_action_handler(struct sc_cw *cw, sc_alarm_action_fn fn, void *ud);

/* Evaluates alarms due at or before now_ms (each missed tick in order, at most one day of
 * them), runs pending actions, expires idle metrics. Never allocates. */
void sc_cw_step(struct sc_cw *cw, int64_t now_ms);
/* The next time sc_cw_step has work: now_ms when actions are pending, else the next tick. */
int64_t sc_cw_next_due_ms(const struct sc_cw *cw, int64_t now_ms);

/* --- metrics ------------------------------------------------------------------------ */
enum sc_status sc_cw_put_metric_data(struct sc_cw *cw, const struct sc_put_metric_data_req *req,
                                     int64_t now_ms, struct sc_error *err);
/* Convenience for the world's internal metrics (AWS/ namespaces allowed): one value. */
enum sc_status sc_cw_put_value(struct sc_cw *cw, const char *namespace, const char *metric_name,
                               const struct sc_dimension *dims, int n_dims, const char *unit,
                               double value, int64_t timestamp_ms, int64_t now_ms);

/* GetMetricStatistics. */
struct sc_get_metric_statistics_req {
    const char *namespace;
    const char *metric_name;
    const struct sc_dimension *dimensions;
    int n_dimensions;
    int has_start_time;
    int64_t start_time_ms;
    int has_end_time;
    int64_t end_time_ms;
    int has_period;
    int period;
    const char *const *statistics; /* 1..5 of SampleCount Average Sum Minimum Maximum */
    int n_statistics;
    const char *const *extended_statistics; /* 1..10 percentiles, xor statistics */
    int n_extended_statistics;
    const char *unit; /* NULL = every unit, one datapoint per unit per period */
};
/* One Datapoint. has[i] / value[i] follow req->statistics (i < n_statistics); ext_has[i] /
 * ext_value[i] follow req->extended_statistics. */
struct sc_datapoint {
    int64_t timestamp_ms;
    const char *unit;
    int has[5];
    double value[5];
    int ext_has[SC_METRIC_MAX_PERCENTILES];
    double ext_value[SC_METRIC_MAX_PERCENTILES];
};
typedef int (*sc_datapoint_visit_fn)(const struct sc_datapoint *dp, void *ud);
/* Label = metric name. Datapoints in time order (AWS leaves them unordered); empty
 * buckets omitted. */
enum sc_status sc_cw_get_metric_statistics(struct sc_cw *cw,
                                           const struct sc_get_metric_statistics_req *req,
                                           int64_t now_ms, sc_datapoint_visit_fn fn, void *ud,
                                           struct sc_error *err);

/* GetMetricData: MetricStat queries and metric math expressions (docs/metric-math.md). */
struct sc_metric_data_query {
    const char *id;
    const char *label;      /* NULL = metric name (MetricStat) or Id (expression) */
    const char *expression; /* metric math, NULL for a MetricStat query */
    int expression_period;  /* the query's Period member (expressions), 0 = none */
    int has_return_data;
    int return_data; /* default 1 */
    /* MetricStat */
    int has_metric_stat;
    struct sc_metric_key metric;
    int period;
    const char *stat;
    const char *unit;
};
struct sc_get_metric_data_req {
    const struct sc_metric_data_query *queries;
    int n_queries; /* 1..500 */
    int has_start_time;
    int64_t start_time_ms;
    int has_end_time;
    int64_t end_time_ms;
    const char *scan_by; /* NULL = TimestampDescending, or TimestampAscending */
    int has_max_datapoints;
    int max_datapoints; /* default 100,800 */
};
struct sc_metric_data_result {
    const char *id;
    const char *label;
    const int64_t *timestamps_ms;
    const double *values;
    int n_values;
    const char *status_code; /* "Complete" or "PartialData" */
    /* A MessageData entry, NULL when none: "MultipleUnits" when the query named no Unit
     * and the metric has several (values then merge all units); "ArithmeticError" when an
     * expression dropped non-finite points. */
    const char *message_code;
    const char *message_value;
};
typedef int (*sc_metric_data_visit_fn)(const struct sc_metric_data_result *r, void *ud);
/* One result per query with return_data, in query order (an expression giving an array of
 * time series: one result per series, each with the expression's Id). */
enum sc_status sc_cw_get_metric_data(struct sc_cw *cw, const struct sc_get_metric_data_req *req,
                                     int64_t now_ms, sc_metric_data_visit_fn fn, void *ud,
                                     struct sc_error *err);

/* ListMetrics. */
struct sc_list_metrics_req {
    const char *namespace;                 /* NULL = any */
    const char *metric_name;               /* NULL = any */
    const struct sc_dimension *dimensions; /* filters; value NULL = any value */
    int n_dimensions;                      /* <= 10 */
    const char *recently_active;           /* NULL or "PT3H" */
};
struct sc_metric_view {
    const char *namespace;
    const char *metric_name;
    const struct sc_dimension *dimensions; /* sorted by name */
    int n_dimensions;
};
typedef int (*sc_metric_visit_fn)(const struct sc_metric_view *m, void *ud);
/* Metrics with data in the last 14 days, in stable (creation) order. */
enum sc_status sc_cw_list_metrics(struct sc_cw *cw, const struct sc_list_metrics_req *req,
                                  int64_t now_ms, sc_metric_visit_fn fn, void *ud,
                                  struct sc_error *err);

/* --- alarms (see scaler/alarm.h for the structs) ------------------------------------ */
enum sc_status sc_cw_put_metric_alarm(struct sc_cw *cw, const struct sc_put_metric_alarm_req *req,
                                      int64_t now_ms, struct sc_error *err);
enum sc_status sc_cw_describe_alarms(struct sc_cw *cw, const struct sc_describe_alarms_req *req,
                                     sc_alarm_visit_fn fn, void *ud, struct sc_error *err);
enum sc_status sc_cw_describe_alarms_for_metric(struct sc_cw *cw,
                                                const struct sc_describe_alarms_for_metric_req *req,
                                                sc_alarm_visit_fn fn, void *ud,
                                                struct sc_error *err);
enum sc_status sc_cw_describe_alarm_history(struct sc_cw *cw,
                                            const struct sc_describe_alarm_history_req *req,
                                            int64_t now_ms, sc_alarm_history_visit_fn fn, void *ud,
                                            struct sc_error *err);
/* Unknown names are skipped (open question 7: treated as success). */
enum sc_status sc_cw_delete_alarms(struct sc_cw *cw, const char *const *names, int n,
                                   int64_t now_ms, struct sc_error *err);
/* ResourceNotFound (HTTP 404, empty message) for a missing alarm. */
enum sc_status sc_cw_set_alarm_state(struct sc_cw *cw, const struct sc_set_alarm_state_req *req,
                                     int64_t now_ms, struct sc_error *err);
enum sc_status sc_cw_enable_alarm_actions(struct sc_cw *cw, const char *const *names, int n,
                                          int64_t now_ms, struct sc_error *err);
enum sc_status sc_cw_disable_alarm_actions(struct sc_cw *cw, const char *const *names, int n,
                                           int64_t now_ms, struct sc_error *err);
enum sc_status sc_cw_tag_resource(struct sc_cw *cw, const char *resource_arn,
                                  const struct sc_tag *tags, int n, struct sc_error *err);
enum sc_status sc_cw_untag_resource(struct sc_cw *cw, const char *resource_arn,
                                    const char *const *keys, int n, struct sc_error *err);
enum sc_status sc_cw_list_tags_for_resource(struct sc_cw *cw, const char *resource_arn,
                                            sc_tag_visit_fn fn, void *ud, struct sc_error *err);

/* --- composite alarms (scaler/alarm_composite.h) and dashboards (scaler/dashboard.h) ---- */
enum sc_status sc_cw_put_composite_alarm(struct sc_cw *cw,
                                         const struct sc_put_composite_alarm_req *req,
                                         int64_t now_ms, struct sc_error *err);
enum sc_status sc_cw_describe_composite_alarms(struct sc_cw *cw,
                                               const struct sc_describe_alarms_req *req,
                                               sc_composite_visit_fn fn, void *ud,
                                               struct sc_error *err);
/* The anomaly detectors (scaler/anomaly.h) of this account+region: GetMetricData's and the
 * alarms' ANOMALY_DETECTION_BAND train as they say (borrowed, lives as long as cw). */
struct sc_anomaly_detectors *sc_cw_anomaly(struct sc_cw *cw);
/* The dashboards of this account (borrowed, lives as long as cw; the shared set when
 * sc_cw_config.dashboards gave one). */
struct sc_dashboards *sc_cw_dashboards(struct sc_cw *cw);
/* The metric streams and OTel status (scaler/metric_stream.h) and the Contributor Insights
 * rules (scaler/insight.h) of this account+region; borrowed, live as long as cw. */
struct sc_metric_streams *sc_cw_metric_streams(struct sc_cw *cw);
struct sc_insights *sc_cw_insights(struct sc_cw *cw);

/* Reads for the world and target tracking. */
const struct sc_alarm_view *sc_cw_alarm_find(const struct sc_cw *cw, const char *name);
/* The latest evaluated real datapoints of an alarm, newest first; returns how many were
 * written (<= max), or -1 when the alarm does not exist. */
int sc_cw_alarm_recent_values(const struct sc_cw *cw, const char *name, double *out, int max);
struct sc_metric_store *sc_cw_metrics(struct sc_cw *cw);
struct sc_alarms *sc_cw_alarms(struct sc_cw *cw);

/* --- durability (emulator --state) --------------------------------------------------- */

/* Everything the service keeps except metric datapoints: the alarms (configuration,
 * state, reasons, recent values, pending actions, tags), the alarm history ring and the
 * evaluation clock. Datapoints go to a journal through the put observer instead. Returns
 * a new reference, NULL on OOM. */
json_t *sc_cw_save(const struct sc_cw *cw);
/* Restores what sc_cw_save wrote (j borrowed) into cw, whose metric store is left alone.
 * Every value is checked; on error cw is unchanged and err says where. */
enum sc_status sc_cw_load(struct sc_cw *cw, const json_t *j, struct sc_error *err);

/* Called after every put that stored data (sc_cw_put_metric_data, sc_cw_put_value: the
 * API's puts and the world's own), with the request as stored (datums without a timestamp
 * took now_ms). req is borrowed for the call. The observer must not call back into cw. */
typedef void (*sc_cw_put_fn)(const struct sc_put_metric_data_req *req, int64_t now_ms, void *ud);
void sc_cw_set_put_observer(struct sc_cw *cw, sc_cw_put_fn fn, void *ud);

#endif
