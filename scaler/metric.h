/* scaler/metric.h: the CloudWatch metric store (spec/aws-behavior.md 5.1, 5.2).
 *
 * A metric is Namespace + MetricName + dimension set (order-insensitive: dimensions are
 * compared sorted by name, then value). Under one metric each unit is a separate series
 * (units are aggregated separately), so a query without Unit sees one stream per unit.
 *
 * Storage: every series keeps rings of per-period summaries (SampleCount, Sum, Minimum,
 * Maximum), epoch-aligned, each sized in periods (its retention):
 *   - 1-second slots for the last 3 h, only for series that received StorageResolution=1
 *     data (allocated the first time such a datapoint arrives);
 *   - 1-minute slots for the last 26 h (every alarm with Period <= 3600 sees its whole
 *     evaluation range, (N+2)*Period <= 86400+7200 s);
 *   - 1-hour slots for the last 15 days.
 * Percentiles come from a minute-level distribution ring (last 3 h by default): a minute
 * whose values are all equal is stored exactly in its summary (Minimum == Maximum); a
 * minute with different values gets a log-linear histogram of 128 bins, 8 per octave,
 * anchored per series on its first positive value (16 octaves around it; values outside
 * are clamped to the edge bins). Reported percentile = nearest rank (the smallest value v
 * such that at least p% of the samples are <= v), estimated as the geometric middle of its
 * bin clamped to the exact min/max of the values that fell there, so the error is at most
 * 2^(1/16)-1 = 4.4% relative, and 0 when the bin holds a single distinct value (always so
 * for minutes with one distinct value). No percentile is given for a bucket with a negative
 * value, or with a statistic set whose SampleCount != 1 and Minimum != Maximum, or for
 * periods that are not multiples of 60 or older than the distribution ring.
 * Memory follows the data: a ring holds (and allocates) only the span of periods that got
 * data, growing by doubling toward the nearer side when a period outside it gets some, up to
 * its full size; a series with one datapoint costs well under 1 KB, one fed every minute
 * holds the full minute ring (58 KB) after 26 h and the full hour ring too (~71 KB in all)
 * after 15 days (docs/cloudwatch.md). So the store allocates when
 * a metric identity or series appears and when a ring grows (at most log2(slots) times per
 * ring); never for a datapoint that lands in periods already held. Series with no data for
 * 15 days are freed by sc_metric_store_expire(), so memory stays flat; the series cap
 * (sc_metric_config.max_series) bounds how many there are.
 *
 * Pure: no clock, no I/O; callers pass now_ms (epoch ms on the caller's clock). */
#ifndef SCALER_METRIC_H
#define SCALER_METRIC_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/status.h"

#define SC_METRIC_MAX_DIMENSIONS  30
#define SC_METRIC_MAX_VALUES      150
#define SC_METRIC_MAX_DATA        1000
#define SC_METRIC_NAME_MAX        255
#define SC_METRIC_MAX_PERCENTILES 10

/* AWS StandardUnit, in the model's order; SC_UNIT_ANY means "no Unit given". */
enum sc_unit {
    SC_UNIT_ANY = -1,
    SC_UNIT_SECONDS = 0,
    SC_UNIT_MICROSECONDS,
    SC_UNIT_MILLISECONDS,
    SC_UNIT_BYTES,
    SC_UNIT_KILOBYTES,
    SC_UNIT_MEGABYTES,
    SC_UNIT_GIGABYTES,
    SC_UNIT_TERABYTES,
    SC_UNIT_BITS,
    SC_UNIT_KILOBITS,
    SC_UNIT_MEGABITS,
    SC_UNIT_GIGABITS,
    SC_UNIT_TERABITS,
    SC_UNIT_PERCENT,
    SC_UNIT_COUNT,
    SC_UNIT_BYTES_SECOND,
    SC_UNIT_KILOBYTES_SECOND,
    SC_UNIT_MEGABYTES_SECOND,
    SC_UNIT_GIGABYTES_SECOND,
    SC_UNIT_TERABYTES_SECOND,
    SC_UNIT_BITS_SECOND,
    SC_UNIT_KILOBITS_SECOND,
    SC_UNIT_MEGABITS_SECOND,
    SC_UNIT_GIGABITS_SECOND,
    SC_UNIT_TERABITS_SECOND,
    SC_UNIT_COUNT_SECOND,
    SC_UNIT_NONE,
    SC_UNIT_COUNT_
};

/* "Seconds", "Bytes/Second", ...; NULL for SC_UNIT_ANY or out of range. */
const char *sc_unit_name(enum sc_unit u);
/* Parses an AWS unit name (case-sensitive). Returns 0, or -1 when unknown. */
int sc_unit_parse(const char *s, enum sc_unit *out);

/* A dimension as the caller passes it (borrowed strings). */
struct sc_dimension {
    const char *name;
    const char *value;
};

/* StatisticValues; each field has its presence flag so the library can name the missing
 * one in AWS's MissingParameter text. */
struct sc_statistic_set {
    double sample_count, sum, minimum, maximum;
    int has_sample_count, has_sum, has_minimum, has_maximum;
};

/* One MetricData member. Exactly one of value / values / statistic_values. */
struct sc_metric_datum {
    const char *metric_name;
    const struct sc_dimension *dimensions;
    int n_dimensions;
    int has_timestamp;
    int64_t timestamp_ms; /* default: now */
    int has_value;
    double value;
    const double *values; /* Values (n_values <= 150), NULL when absent */
    int n_values;
    const double *counts; /* Counts, NULL = each 1; n_counts must equal n_values */
    int n_counts;
    int has_statistic_values;
    struct sc_statistic_set statistic_values;
    const char *unit;       /* NULL = "None" */
    int storage_resolution; /* 0 = absent (60); 1 or 60 */
};

/* PutMetricData. `internal` is set by the world (not by the emulator's API) to allow the
 * reserved AWS/ namespaces. */
struct sc_put_metric_data_req {
    const char *namespace;
    const struct sc_metric_datum *metric_data;
    int n_metric_data;
    int internal;
};

/* The identity a query names (borrowed strings). */
struct sc_metric_key {
    const char *namespace;
    const char *metric_name;
    const struct sc_dimension *dimensions;
    int n_dimensions;
};

/* A statistic as named on the wire: "SampleCount", "Sum", "Minimum", "Maximum",
 * "Average", or a percentile "pNN" / "pNN.NN" (0..100, up to 2 decimals). */
enum sc_stat_kind {
    SC_STAT_SAMPLE_COUNT,
    SC_STAT_SUM,
    SC_STAT_MINIMUM,
    SC_STAT_MAXIMUM,
    SC_STAT_AVERAGE,
    SC_STAT_PERCENTILE
};
struct sc_stat {
    enum sc_stat_kind kind;
    double pct;    /* for SC_STAT_PERCENTILE */
    char name[16]; /* canonical text as given ("p99.9") */
};
/* Parses a Statistic (basic 1) or ExtendedStatistic (percentile 0). Returns 0 or -1. */
int sc_stat_parse(const char *s, int basic, struct sc_stat *out);

/* The aggregate of one series (or all series of a metric) over one period. */
struct sc_agg {
    double sample_count, sum, minimum, maximum;
    int pct_ok;                               /* percentiles available (see top) */
    double pct[SC_METRIC_MAX_PERCENTILES];    /* for the requested percentiles */
    int pct_valid[SC_METRIC_MAX_PERCENTILES]; /* 1 when pct[i] is set */
};
/* The statistic's value from an aggregate. Returns 0, or -1 when unavailable (a
 * percentile not computed or not allowed). For a percentile, `pct_index` says which
 * requested percentile it is. */
int sc_agg_value(const struct sc_agg *a, const struct sc_stat *st, int pct_index, double *out);

/* The default series cap (sc_metric_config.max_series). */
#define SC_METRIC_DEFAULT_MAX_SERIES 100000

struct sc_metric_config {
    int hires_slots;   /* 1-second slots (default 10800 = 3 h) */
    int minute_slots;  /* 1-minute slots (default 1560 = 26 h) */
    int hour_slots;    /* 1-hour slots (default 360 = 15 days) */
    int dist_slots;    /* minute distributions for percentiles (default 180 = 3 h) */
    int64_t expire_ms; /* free series idle this long (default 15 days) */
    /* Series (metric x unit) the store holds at most: a put that would pass it fails whole
     * (sc_metric_store_put); 0 = no cap. Default SC_METRIC_DEFAULT_MAX_SERIES. scalelab's
     * own bound (AWS has no such quota): it bounds the store's memory. */
    int max_series;
};
void sc_metric_config_defaults(struct sc_metric_config *c);
/* AWS's retention for the minute and hour tiers: 1-minute data 15 days (21,600 slots),
 * 1-hour data 455 days (10,920 slots), idle series kept 455 days. Up to ~1.2 MB per series
 * and unit once full, against ~71 KB with the defaults (docs/cloudwatch.md). AWS's 5-minute
 * tier (15 to 63 days) is not kept: such periods are answered from the hour tier when
 * they are whole hours, else not at all. */
void sc_metric_config_aws(struct sc_metric_config *c);

struct sc_metric_store; /* opaque */
struct sc_metric;       /* opaque: one identity (namespace, name, dimensions) */

/* cfg NULL = defaults. Returns NULL on bad config or OOM. */
struct sc_metric_store *sc_metric_store_create(const struct sc_metric_config *cfg);
void sc_metric_store_destroy(struct sc_metric_store *s); /* NULL is a no-op */

/* PutMetricData: validates the whole request first (AWS codes and texts: MissingParameter,
 * InvalidParameterValue, InvalidParameterCombination), then stores every datum, so a
 * failing request stores nothing. The series cap (test_metric_series_cap): a request that
 * would bring the store past cfg.max_series series fails with SC_ERR_LIMIT_EXCEEDED_CW (a
 * message naming the cap and the emulator's --max-metric-series), storing nothing; data for
 * series already stored is always accepted, and so are internal puts (req->internal: the
 * world's own AWS/ metrics, the journal's replay), which count toward the cap. Retention
 * and imports never drop stored series for the cap. SC_ERR_INTERNAL on OOM. */
enum sc_status sc_metric_store_put(struct sc_metric_store *s,
                                   const struct sc_put_metric_data_req *req, int64_t now_ms,
                                   struct sc_error *err);

/* Frees series (and metrics left without series) whose newest datapoint is older than
 * expire_ms before now_ms. Metric pointers obtained before are then invalid. Returns
 * how many metrics were freed. Called by sc_cw_step once a minute. */
int sc_metric_store_expire(struct sc_metric_store *s, int64_t now_ms);

/* A number that changes whenever a metric is created or freed, and differs between stores:
 * a metric pointer found while it had a value is still the answer while it has it. */
uint64_t sc_metric_store_generation(const struct sc_metric_store *s);

/* The metric with exactly this identity, or NULL. Borrowed until the next put/expire. */
const struct sc_metric *sc_metric_store_find(const struct sc_metric_store *s,
                                             const struct sc_metric_key *key);
/* Metrics in stable order (creation order; expiry keeps the order of the rest). */
int sc_metric_store_count(const struct sc_metric_store *s);
const struct sc_metric *sc_metric_store_at(const struct sc_metric_store *s, int i);
/* Bytes held by the store (for the benchmarks and the admin API). */
size_t sc_metric_store_bytes(const struct sc_metric_store *s);

const char *sc_metric_namespace(const struct sc_metric *m);
const char *sc_metric_name(const struct sc_metric *m);
/* Dimensions sorted by name (then value), as stored. */
int sc_metric_dimension_count(const struct sc_metric *m);
struct sc_dimension sc_metric_dimension_at(const struct sc_metric *m, int i);
/* Newest timestamp put into any series of m (ms). */
int64_t sc_metric_last_timestamp_ms(const struct sc_metric *m);
/* Units present, in enum order. */
int sc_metric_unit_count(const struct sc_metric *m);
enum sc_unit sc_metric_unit_at(const struct sc_metric *m, int i);

/* ListMetrics filters: namespace/name NULL = any; a filter with value NULL matches the
 * dimension name with any value. Every filter must match. */
int sc_metric_matches(const struct sc_metric *m, const char *namespace, const char *metric_name,
                      const struct sc_dimension *filters, int n_filters);

/* For callers that keep aggregates between calls (alarm evaluation). The late version
 * changes when a put lands before the newest minute of its series, or a series comes or
 * goes. The settled window [*from_ms, *to_ms) (0 when the metric has several series): the
 * series' minute ring up to the start of its newest minute. A period of whole minutes, not
 * a multiple of an hour, minute-aligned and inside the window is settled; while the late
 * version stays, a period that was settled and still is keeps its sc_metric_aggregate()
 * result (percentiles aside). */
uint64_t sc_metric_late_version(const struct sc_metric *m);
int sc_metric_settled_window(const struct sc_metric *m, int64_t *from_ms, int64_t *to_ms);

/* Aggregates [start_ms, start_ms + period_s*1000) of the series with `unit` (SC_UNIT_ANY =
 * all units merged). start_ms must be aligned to the tier used: multiples of 1 s for
 * period_s < 60, of 60 s otherwise. pcts: the percentiles wanted (0..100), n_pcts <= 10.
 * Returns 1 with *out filled when the period holds data, 0 when it is empty or no longer
 * retained. Never allocates. */
int sc_metric_aggregate(const struct sc_metric *m, enum sc_unit unit, int64_t start_ms,
                        int period_s, const double *pcts, int n_pcts, struct sc_agg *out);

/* Export and import of the store's contents (the emulator's metric journal rewrites itself
 * from them). sc_metric_store_export calls fn once per series with an opaque binary image
 * (borrowed for the call; native byte order) of everything the series holds: identity,
 * unit, every retained slot of each tier and the percentile distributions. fn returns 0
 * to go on. Returns 0, -1 on OOM, or fn's non-zero value. */
typedef int (*sc_metric_image_fn)(const void *img, size_t len, void *ud);
int sc_metric_store_export(const struct sc_metric_store *s, sc_metric_image_fn fn, void *ud);
/* Applies one image: its slots replace those of the same periods (slots of newer periods
 * already present win; periods past retention are dropped). The image is checked whole
 * before anything changes: SC_ERR_VALIDATION for a malformed one, SC_ERR_INTERNAL on
 * OOM. */
enum sc_status sc_metric_store_import(struct sc_metric_store *s, const void *img, size_t len,
                                      struct sc_error *err);

/* Formats a double as Java's Double.toString does (70.0, 0.001, 1.0E7, NaN, Infinity):
 * AWS's StateReason texts and messages print numbers so. outlen >= 32. */
void sc_java_double(double v, char *out, size_t outlen);

#endif
