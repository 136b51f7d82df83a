/* scaler/alarm.h: CloudWatch metric alarms (spec/aws-behavior.md 4.7, 5.3).
 *
 * struct sc_alarms holds every metric alarm of one account+region, their bounded history
 * and tags. Most callers use it through scaler/cloudwatch.h (sc_cw_*), which owns one;
 * the request and view structs here are that API's.
 *
 * Evaluation (sc_alarms_evaluate) follows spec 5.3 exactly: at tick T (a minute boundary;
 * every 10 s for Period < 60) slot k (1 = newest) covers [T-k*P, T-(k-1)*P); R = N+2 slots
 * are read; with >= N real points the N newest decide (ALARM iff >= M breach); with fewer,
 * breaching/notBreaching fill the N-k missing points; missing/ignore: no point ->
 * INSUFFICIENT_DATA / keep; >= M real breaching -> ALARM; a real non-breaching point -> OK;
 * otherwise (only breaching points, fewer than M) ALARM when the oldest sits in slot >= M
 * (premature-alarm rule), else INSUFFICIENT_DATA for missing / keep for ignore. The last
 * branch differs from the spec's text ("else OK"), which contradicts row 5 of the first
 * table of AlarmThatSendsEmail.html ("- - - - X" is Insufficient data); the tables win.
 *
 * StateReason texts are AWS's (numbers as Java prints doubles: 70.0; dates dd/MM/yy
 * HH:mm:ss of each slot's start); StateReasonData is JSON built here. History items are
 * kept in a bounded byte ring (oldest dropped first), survive alarm deletion and are
 * listed newest first. Strings in views are borrowed until the next mutating call. */
#ifndef SCALER_ALARM_H
#define SCALER_ALARM_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "scaler/metric.h"
#include "scaler/status.h"

#define SC_ALARM_MAX_ACTIONS     5
#define SC_ALARM_REASON_MAX      1024 /* StateReason <= 1023 chars */
#define SC_ALARM_REASON_DATA_MAX 4001 /* StateReasonData <= 4000 chars */
#define SC_ALARM_MAX_RECENT      64   /* evaluated datapoints kept per alarm */
#define SC_ALARM_MAX_NAMES       100

enum sc_alarm_state { SC_ALARM_OK = 0, SC_ALARM_ALARM, SC_ALARM_INSUFFICIENT_DATA };
/* "OK", "ALARM", "INSUFFICIENT_DATA". */
const char *sc_alarm_state_name(enum sc_alarm_state s);
/* Returns 0, or -1 when s is not one of the three names. */
int sc_alarm_state_parse(const char *s, enum sc_alarm_state *out);

/* The ARN partition of a region: "aws-cn" for cn-*, "aws-us-gov" for us-gov-*, else "aws". */
const char *sc_alarm_partition(const char *region);

struct sc_tag {
    const char *key;
    const char *value;
};

/* One member of PutMetricAlarm's Metrics: a MetricDataQuery (docs/metric-math.md 6).
 * Borrowed strings. */
struct sc_alarm_query {
    const char *id;
    const char *expression; /* metric math, NULL for a MetricStat */
    const char *label;
    int has_return_data;
    int return_data; /* default 1 */
    int period;      /* the query's own Period (expressions), 0 = none */
    int has_metric_stat;
    struct sc_metric_key metric;
    int has_stat_period;
    int stat_period; /* MetricStat.Period */
    const char *stat;
    const char *unit;
};
#define SC_ALARM_MAX_QUERIES 20 /* 10 MetricStat + 10 Expression */

/* Owned copies of n queries (*out, free with sc_alarm_queries_free). Returns 0 or -1 (OOM). */
int sc_alarm_queries_dup(const struct sc_alarm_query *src, int n, struct sc_alarm_query **out);
void sc_alarm_queries_free(struct sc_alarm_query *q, int n); /* NULL is a no-op */
/* The queries in AWS's member names (Id, MetricStat {Metric, Period, Stat, Unit}, ...), as
 * the state files keep them. Returns a new reference, NULL on OOM. */
json_t *sc_alarm_queries_save(const struct sc_alarm_query *q, int n);
/* Reads what sc_alarm_queries_save wrote into owned copies. Returns 0, or -1 with msg. */
int sc_alarm_queries_load(const json_t *arr, struct sc_alarm_query **out, int *n, char *msg,
                          size_t msglen);

/* PutMetricAlarm. Optional numbers carry has_x; optional strings are NULL. */
struct sc_put_metric_alarm_req {
    const char *alarm_name;
    const char *alarm_description;
    int has_actions_enabled;
    int actions_enabled;
    const char *const *ok_actions;
    int n_ok_actions;
    const char *const *alarm_actions;
    int n_alarm_actions;
    const char *const *insufficient_data_actions;
    int n_insufficient_data_actions;
    const char *metric_name;
    const char *namespace;
    const char *statistic; /* xor extended_statistic */
    const char *extended_statistic;
    const struct sc_dimension *dimensions;
    int n_dimensions;
    int has_period;
    int period;
    const char *unit;
    int has_evaluation_periods;
    int evaluation_periods;
    int has_datapoints_to_alarm;
    int datapoints_to_alarm;
    int has_threshold;
    double threshold;
    const char *comparison_operator;
    const char *treat_missing_data;
    const char *evaluate_low_sample_count_percentile;
    const struct sc_tag *tags; /* applied on create only (AWS ignores them on update) */
    int n_tags;
    int has_metrics; /* Metrics given (then MetricName ... Unit must be absent) */
    const struct sc_alarm_query *metrics;
    int n_metrics;
    const char *threshold_metric_id; /* the Id of the ANOMALY_DETECTION_BAND query (Metrics) */
};

/* The members a metric alarm's view and a composite alarm's view (alarm_composite.h) share:
 * both views begin with them, readable by name (v->alarm_name) or as v->base. */
#define SC_ALARM_VIEW_BASE_MEMBERS                                                                 \
    const char *alarm_name;                                                                        \
    const char *alarm_arn;                                                                         \
    const char *alarm_description; /* NULL when unset */                                           \
    int64_t alarm_configuration_updated_timestamp_ms;                                              \
    int actions_enabled;                                                                           \
    const char *const *ok_actions;                                                                 \
    int n_ok_actions;                                                                              \
    const char *const *alarm_actions;                                                              \
    int n_alarm_actions;                                                                           \
    const char *const *insufficient_data_actions;                                                  \
    int n_insufficient_data_actions;                                                               \
    enum sc_alarm_state state;                                                                     \
    const char *state_value; /* sc_alarm_state_name(state) */                                      \
    const char *state_reason;                                                                      \
    const char *state_reason_data; /* NULL when none */                                            \
    int64_t state_updated_timestamp_ms;                                                            \
    int64_t state_transitioned_timestamp_ms;

struct sc_alarm_view_base {
    SC_ALARM_VIEW_BASE_MEMBERS
};

/* An alarm as DescribeAlarms shows it. Unset optional members are NULL / has_x = 0
 * (Describe omits unset TreatMissingData, DatapointsToAlarm, Unit). */
struct sc_alarm_view {
    union {
        struct sc_alarm_view_base base;
        struct {
            SC_ALARM_VIEW_BASE_MEMBERS
        };
    };
    const char *metric_name; /* NULL for an alarm on Metrics */
    const char *namespace;
    const char *statistic;                 /* NULL when extended_statistic is set */
    const char *extended_statistic;        /* NULL when statistic is set */
    const struct sc_dimension *dimensions; /* in the order given at put */
    int n_dimensions;
    int period;
    const char *unit; /* NULL when unset */
    int evaluation_periods;
    int has_datapoints_to_alarm;
    int datapoints_to_alarm;         /* effective M (= N when unset) */
    double threshold;                /* 0 for an anomaly detection alarm */
    const char *threshold_metric_id; /* NULL unless an anomaly detection alarm */
    const char *comparison_operator;
    const char *treat_missing_data;                   /* NULL when unset ("missing" applies) */
    const char *evaluate_low_sample_count_percentile; /* NULL when unset */
    /* Metrics (an alarm on metric math): the queries as put, n_metrics 0 for a metric
     * alarm (metric_name, namespace, statistic, dimensions and unit are then NULL / 0) */
    const struct sc_alarm_query *metrics;
    int n_metrics;
    /* The latest evaluation, for target tracking and step selection: the real datapoints
     * among the N evaluated, newest first (at most SC_ALARM_MAX_RECENT), and its time. */
    const double *recent_values;
    int n_recent_values;
    int64_t last_evaluated_ms; /* 0 before the first evaluation */
};

/* DescribeAlarms: alarm_names (<= 100) xor alarm_name_prefix; state_value and
 * action_prefix optional (NULL). Alarms come sorted by name. */
struct sc_describe_alarms_req {
    const char *const *alarm_names;
    int n_alarm_names;
    const char *alarm_name_prefix;
    const char *state_value;
    const char *action_prefix;
};

/* DescribeAlarmsForMetric: namespace and metric_name required; the rest filter when set. */
struct sc_describe_alarms_for_metric_req {
    const char *metric_name;
    const char *namespace;
    const char *statistic;
    const char *extended_statistic;
    const struct sc_dimension *dimensions;
    int n_dimensions;
    int has_period;
    int period;
    const char *unit;
};

struct sc_describe_alarm_history_req {
    const char *alarm_name;        /* NULL = all */
    const char *history_item_type; /* NULL, "ConfigurationUpdate", "StateUpdate", "Action" */
    int has_start_date;
    int64_t start_date_ms;
    int has_end_date;
    int64_t end_date_ms;
    const char *scan_by; /* NULL = "TimestampDescending", or "TimestampAscending" */
};

struct sc_alarm_history_view {
    const char *alarm_name;
    const char *alarm_type; /* "MetricAlarm" */
    int64_t timestamp_ms;
    const char *history_item_type;
    const char *history_summary;
    const char *history_data;
};

struct sc_set_alarm_state_req {
    const char *alarm_name;
    const char *state_value;
    const char *state_reason;
    const char *state_reason_data; /* NULL when absent; must be JSON-ish text <= 4000 */
};

/* An action the alarm invokes. Return NULL on success, or a failure text (borrowed; the
 * library copies it into the Action history item). */
typedef const char *(*sc_alarm_action_fn)(const char *action_arn, const struct sc_alarm_view *alarm,
                                          int64_t now_ms, void *ud);
/* Visitors return 0 to go on, non-zero to stop. */
typedef int (*sc_alarm_visit_fn)(const struct sc_alarm_view *alarm, void *ud);
typedef int (*sc_alarm_history_visit_fn)(const struct sc_alarm_history_view *item, void *ud);
typedef int (*sc_tag_visit_fn)(const char *key, const char *value, void *ud);
/* Every tag has a key and a value: else MissingParameter naming the first that lacks one
 * (Tags.member.N.Key / .Value), as CloudWatch answers PutMetricAlarm and TagResource. */
enum sc_status sc_tags_check(const struct sc_tag *tags, int n, struct sc_error *err);

struct sc_alarms_config {
    const char *region;      /* for ARNs, default "us-east-1" */
    const char *account;     /* default "123456789012" */
    size_t history_bytes;    /* history ring, default 8 MiB */
    int history_items;       /* at most this many items, default 65536 */
    int64_t history_keep_ms; /* items older than this are not listed, default 14 days */
};
void sc_alarms_config_defaults(struct sc_alarms_config *c);

struct sc_alarms; /* opaque */

/* cfg NULL = defaults. Returns NULL on OOM. */
struct sc_alarms *sc_alarms_create(const struct sc_alarms_config *cfg);
void sc_alarms_destroy(struct sc_alarms *a); /* NULL is a no-op */

/* The operations (the sc_cw_* functions in cloudwatch.h call these). */
enum sc_status sc_alarms_put(struct sc_alarms *a, const struct sc_put_metric_alarm_req *req,
                             int64_t now_ms, struct sc_error *err);
enum sc_status sc_alarms_delete(struct sc_alarms *a, const char *const *names, int n,
                                int64_t now_ms, struct sc_error *err);
enum sc_status sc_alarms_describe(const struct sc_alarms *a,
                                  const struct sc_describe_alarms_req *req, sc_alarm_visit_fn fn,
                                  void *ud, struct sc_error *err);
enum sc_status sc_alarms_describe_for_metric(const struct sc_alarms *a,
                                             const struct sc_describe_alarms_for_metric_req *req,
                                             sc_alarm_visit_fn fn, void *ud, struct sc_error *err);
enum sc_status sc_alarms_describe_history(const struct sc_alarms *a,
                                          const struct sc_describe_alarm_history_req *req,
                                          int64_t now_ms, sc_alarm_history_visit_fn fn, void *ud,
                                          struct sc_error *err);
/* Sets the state now (history StateUpdate); the new state's actions run at the next
 * sc_alarms_evaluate / sc_cw_step call (see sc_alarms_run_pending). */
enum sc_status sc_alarms_set_state(struct sc_alarms *a, const struct sc_set_alarm_state_req *req,
                                   int64_t now_ms, struct sc_error *err);
enum sc_status sc_alarms_enable_actions(struct sc_alarms *a, const char *const *names, int n,
                                        int enable, int64_t now_ms, struct sc_error *err);
/* Tags by alarm ARN (ResourceNotFound 404 for an unknown ARN). */
enum sc_status sc_alarms_tag(struct sc_alarms *a, const char *arn, const struct sc_tag *tags, int n,
                             struct sc_error *err);
enum sc_status sc_alarms_untag(struct sc_alarms *a, const char *arn, const char *const *keys, int n,
                               struct sc_error *err);
enum sc_status sc_alarms_list_tags(const struct sc_alarms *a, const char *arn, sc_tag_visit_fn fn,
                                   void *ud, struct sc_error *err);

/* The alarm named so, or NULL. Borrowed until the next mutating call. */
const struct sc_alarm_view *sc_alarms_find(const struct sc_alarms *a, const char *name);
int sc_alarms_count(const struct sc_alarms *a);
/* The alarms whose actions (AlarmActions, OKActions or InsufficientDataActions) name arn,
 * in name order: the first max into out (borrowed until the next mutating call). Returns
 * how many there are (may exceed max). DescribePolicies' Alarms of a scaling policy. */
int sc_alarms_with_action(const struct sc_alarms *a, const char *arn,
                          const struct sc_alarm_view **out, int max);

/* Evaluates, at tick tick_ms, every alarm due then: all alarms when tick_ms is a minute
 * boundary, only Period < 60 alarms at other 10-second boundaries. Runs actions through
 * fn (NULL = none): all of the new state's actions on a change; Auto Scaling actions
 * (arn:aws:autoscaling:) again at each minute tick while the state stays; nothing when
 * ActionsEnabled is false. Each call logs an Action history item. Never allocates. */
void sc_alarms_evaluate(struct sc_alarms *a, const struct sc_metric_store *store, int64_t tick_ms,
                        sc_alarm_action_fn fn, void *ud);
/* Runs the actions SetAlarmState left pending. Returns how many ran. */
int sc_alarms_run_pending(struct sc_alarms *a, int64_t now_ms, sc_alarm_action_fn fn, void *ud);
/* The anomaly detectors whose training the alarms' bands use (borrowed; NULL = none). */
struct sc_anomaly_detectors;
void sc_alarms_set_anomaly(struct sc_alarms *a, const struct sc_anomaly_detectors *d);
/* 1 when some alarm has Period < 60 (ticks every 10 s), else 0. */
int sc_alarms_has_hires(const struct sc_alarms *a);
/* 1 when SetAlarmState left actions to run. */
int sc_alarms_has_pending(const struct sc_alarms *a);

/* The state file (emulator --state): everything the alarms keep (configuration, state,
 * reasons, recent values, pending actions, tags, the history ring) as JSON. Returns a new
 * reference, NULL on OOM. */
json_t *sc_alarms_save(const struct sc_alarms *a);
/* Replaces a's alarms and history with those saved in j (borrowed). Every value is checked
 * (alarm configurations through PutMetricAlarm's validation); on any error a is left
 * exactly as it was and err says where ("state: alarms[3].period: ..."). The config
 * (region, account, history sizes) stays a's. */
enum sc_status sc_alarms_load(struct sc_alarms *a, const json_t *j, struct sc_error *err);

#endif
