/* scaler/anomaly.h: CloudWatch anomaly detection (docs/cloudwatch.md "Anomaly detection").
 *
 * Two parts, no global state:
 *   - the model: the band (lower, upper) of a series at a time t from the points before t,
 *     as docs/cloudwatch.md documents it (AWS's own model is proprietary; this one is ours
 *     and says so): training window [t - 14 days, t) without the excluded ranges; a
 *     seasonal baseline (the same hour of the week once the history covers a week, the same
 *     hour of the day once it covers a day, else every training point) taken as the median;
 *     the spread max(1.4826 * MAD, IQR / 1.349, 1% of |median|); band = median -+ k * spread, the
 *     upper edge at least the bucket's maximum when PeriodicSpikes is true;
 *   - the detectors of one account+region (Put/Describe/DeleteAnomalyDetector): single
 *     metric (Namespace, MetricName, Dimensions, Stat) or metric math (MetricDataQueries),
 *     with Configuration (ExcludedTimeRanges, MetricTimezone) and MetricCharacteristics,
 *     their StateValue derived from the history the store holds, and the state file.
 *
 * The band functions allocate only their scratch (freed before return). Strings passed in
 * are borrowed for the call; views are borrowed for the visit. */
#ifndef SCALER_ANOMALY_H
#define SCALER_ANOMALY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "scaler/alarm.h"
#include "scaler/metric.h"
#include "scaler/status.h"

#define SC_ANOMALY_TRAIN_MS      (14LL * 86400 * 1000) /* the training window */
#define SC_ANOMALY_MIN_POINTS    5  /* fewer training points: no band (PENDING_TRAINING) */
#define SC_ANOMALY_MIN_BUCKET    3  /* fewer in the seasonal bucket: the next coarser basis */
#define SC_ANOMALY_MAX_EXCLUDED  10 /* ExcludedTimeRanges */
#define SC_ANOMALY_DEFAULT_K     2.0
#define SC_ANOMALY_MAX_DETECTORS 5000 /* scalelab's bound on stored detectors */

/* --- the model ------------------------------------------------------------------------ */

struct sc_anomaly_range {
    int64_t start_ms, end_ms; /* [start, end) */
};

/* How a band is trained (borrowed). */
struct sc_anomaly_train {
    const struct sc_anomaly_range *excluded;
    int n_excluded;
    int tz_offset_s;     /* seasonal buckets in this fixed offset from UTC (MetricTimezone) */
    int periodic_spikes; /* MetricCharacteristics.PeriodicSpikes */
};

enum sc_anomaly_basis {
    SC_ANOMALY_BASIS_TRAILING, /* every training point */
    SC_ANOMALY_BASIS_DAILY,    /* the points of the same hour of the day */
    SC_ANOMALY_BASIS_WEEKLY    /* the points of the same hour of the week */
};

struct sc_anomaly_band {
    double lower, upper, baseline, spread;
    enum sc_anomaly_basis basis;
    int n_train; /* training points in the window */
    int n_used;  /* of which the baseline used */
};

/* The band at t_ms of k spreads from the points (ts ascending, n of them) before t_ms.
 * train NULL = no exclusions, UTC, no spikes. Returns 1 with *out set, 0 when there are
 * fewer than SC_ANOMALY_MIN_POINTS training points (no band), -1 on OOM. */
int sc_anomaly_band_at(const int64_t *ts, const double *v, int n, int64_t t_ms, double k,
                       const struct sc_anomaly_train *train, struct sc_anomaly_band *out);

enum sc_anomaly_state {
    SC_ANOMALY_PENDING_TRAINING,          /* fewer than SC_ANOMALY_MIN_POINTS points */
    SC_ANOMALY_TRAINED_INSUFFICIENT_DATA, /* enough points, covering less than a day */
    SC_ANOMALY_TRAINED                    /* a day or more of training history */
};
/* "PENDING_TRAINING", "TRAINED_INSUFFICIENT_DATA", "TRAINED". */
const char *sc_anomaly_state_name(enum sc_anomaly_state s);
/* The state of a model trained at now_ms on these points (the training window's rules). */
enum sc_anomaly_state sc_anomaly_state_of(const int64_t *ts, const double *v, int n, int64_t now_ms,
                                          const struct sc_anomaly_train *train);

/* --- detectors -------------------------------------------------------------------------- */

struct sc_anomaly_metric {
    const char *namespace;
    const char *metric_name;
    const struct sc_dimension *dimensions;
    int n_dimensions;
    const char *stat;
    const char *account_id; /* NULL, or this account's */
};

/* PutAnomalyDetector / DeleteAnomalyDetector (Delete ignores the configuration members). */
struct sc_anomaly_req {
    int has_legacy; /* any of the deprecated top-level Namespace, MetricName, Dimensions, Stat */
    struct sc_anomaly_metric legacy;
    int has_single; /* SingleMetricAnomalyDetector given */
    struct sc_anomaly_metric single;
    int has_math; /* MetricMathAnomalyDetector given */
    const struct sc_alarm_query *queries;
    int n_queries;
    int has_configuration;
    const struct sc_anomaly_range *excluded;
    int n_excluded;
    const char *metric_timezone; /* NULL = none */
    int has_periodic_spikes;
    int periodic_spikes;
};

/* A detector as DescribeAnomalyDetectors shows it. */
struct sc_anomaly_view {
    int math; /* 0: single metric (metric set), 1: metric math (queries set) */
    struct sc_anomaly_metric metric;
    const struct sc_alarm_query *queries;
    int n_queries;
    int has_configuration;
    const struct sc_anomaly_range *excluded;
    int n_excluded;
    const char *metric_timezone;
    int has_periodic_spikes;
    int periodic_spikes;
    const char *state_value;
};

/* DescribeAnomalyDetectors' filters: types (SINGLE_METRIC, METRIC_MATH; none = SINGLE_METRIC);
 * namespace, metric_name and dimensions narrow the single-metric detectors. */
struct sc_anomaly_describe_req {
    const char *namespace;
    const char *metric_name;
    const struct sc_dimension *dimensions;
    int n_dimensions;
    const char *const *types;
    int n_types;
};

typedef int (*sc_anomaly_visit_fn)(const struct sc_anomaly_view *d, void *ud);

struct sc_anomaly_detectors; /* opaque */

/* account: ARN account for AccountId checks (copied). Returns NULL on OOM. */
struct sc_anomaly_detectors *sc_anomaly_detectors_create(const char *account);
void sc_anomaly_detectors_destroy(struct sc_anomaly_detectors *d); /* NULL is a no-op */
/* MetricTimezone to a UTC offset at a time (the caller's zoneinfo). Without it only UTC (and
 * no zone) is known. */
void sc_anomaly_detectors_set_tz(struct sc_anomaly_detectors *d,
                                 int (*tz_offset)(void *ud, const char *zone, int64_t utc_ms,
                                                  int *offset_s),
                                 void *ud);

/* Creates or updates (same metric and stat, or same query list) a detector. Validates the
 * whole request first; on error nothing changes. */
enum sc_status sc_anomaly_put(struct sc_anomaly_detectors *d, const struct sc_anomaly_req *req,
                              struct sc_error *err);
/* ResourceNotFoundException when no detector matches. */
enum sc_status sc_anomaly_delete(struct sc_anomaly_detectors *d, const struct sc_anomaly_req *req,
                                 struct sc_error *err);
/* Visits matching detectors in creation order, each with its StateValue from store at now_ms. */
enum sc_status sc_anomaly_describe(const struct sc_anomaly_detectors *d,
                                   const struct sc_anomaly_describe_req *req,
                                   const struct sc_metric_store *store, int64_t now_ms,
                                   sc_anomaly_visit_fn fn, void *ud, struct sc_error *err);
int sc_anomaly_count(const struct sc_anomaly_detectors *d);

/* The training of the band of a series: the single-metric detector for this metric and
 * stat (math 0), or the metric math detector whose returned expression is expression
 * (math 1); defaults (no exclusions, UTC) when there is none. t_ms resolves the zone. */
void sc_anomaly_train_for(const struct sc_anomaly_detectors *d, const struct sc_metric_key *key,
                          const char *stat, const char *expression, int64_t t_ms,
                          struct sc_anomaly_train *out);

/* The state file: every detector as JSON (new reference, NULL on OOM), and back (j
 * borrowed; every detector checked by PutAnomalyDetector's rules; on error d unchanged). */
json_t *sc_anomaly_save(const struct sc_anomaly_detectors *d);
enum sc_status sc_anomaly_load(struct sc_anomaly_detectors *d, const json_t *j,
                               struct sc_error *err);

#endif
