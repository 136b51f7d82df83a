/* scaler/math.h: CloudWatch metric math (docs/metric-math.md).
 *
 * Three layers, no global state:
 *   - sc_math_parse: an expression's text to a tree (bounded depth and length, errors with
 *     a 1-based character position);
 *   - sc_math_eval: a tree over series (ascending timestamps + values) through an
 *     environment of callbacks (the values of Ids, METRICS(), SEARCH);
 *   - sc_math_program (math_query.c): a whole MetricDataQuery list as GetMetricData and
 *     alarms use it: Ids, dependencies and cycles checked once, then run over a time range
 *     against a metric store, giving each returned query's series with its label.
 *
 * Evaluation allocates (series are built per run); callers own what create/run return.
 * Strings passed in are borrowed for the call. */
#ifndef SCALER_MATH_H
#define SCALER_MATH_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/metric.h"
#include "scaler/status.h"

#define SC_MATH_MAX_LEN        2048 /* model MetricExpression: at most 2,048 characters */
#define SC_MATH_MAX_DEPTH      64
#define SC_MATH_ERR_LEN        256
#define SC_MATH_BAND_DEFAULT_K 2.0 /* ANOMALY_DETECTION_BAND's default number of spreads */

/* --- series and values -------------------------------------------------------------- */

/* One time series. ts ascending (epoch ms), v[i] at ts[i]; strings owned. */
struct sc_math_series {
    int64_t *ts;
    double *v;
    int n, cap;
    int period_s; /* 0 when unknown */
    char *label;  /* the series' default label, NULL when none */
    /* the metric it came from (MetricStat, SEARCH), for PERIOD and ${PROP(...)} */
    char *namespace, *metric_name, *stat;
    struct sc_dimension *dims; /* owned name/value strings */
    int ndims;
};
void sc_math_series_cleanup(struct sc_math_series *s); /* frees what s holds */
/* Appends one point (ts must be after the last). Returns 0 or -1 on OOM. */
int sc_math_series_push(struct sc_math_series *s, int64_t ts, double v);
/* A deep copy into *dst. Returns 0 or -1 on OOM (dst then empty). */
int sc_math_series_copy(struct sc_math_series *dst, const struct sc_math_series *src);

enum sc_math_type { SC_MATH_SCALAR, SC_MATH_TS, SC_MATH_ARRAY };
struct sc_math_value {
    enum sc_math_type type;
    double scalar;
    int has_scalar;              /* 0: a scalar with no value (AVG of an empty series) */
    struct sc_math_series *list; /* TS: one; ARRAY: n (owned) */
    int n;
};
void sc_math_value_cleanup(struct sc_math_value *v);

/* --- parsing ------------------------------------------------------------------------ */

struct sc_math_expr; /* opaque tree */

/* Parses text. Returns the tree, or NULL with *pos (1-based) and msg set ("Syntax error",
 * "Unknown function FOO", "Expression too deep", ...; "out of memory" on OOM). */
struct sc_math_expr *sc_math_parse(const char *text, int *pos, char *msg, size_t msglen);
void sc_math_expr_destroy(struct sc_math_expr *e); /* NULL is a no-op */

/* Calls fn for every Id the expression names (with its 1-based position), in text order;
 * stops at fn's first non-zero return and returns it. */
typedef int (*sc_math_id_fn)(const char *id, int pos, void *ud);
int sc_math_expr_ids(const struct sc_math_expr *e, sc_math_id_fn fn, void *ud);
/* 1 when the expression calls the function NAME (upper case) anywhere, else 0. */
int sc_math_expr_calls(const struct sc_math_expr *e, const char *name);
/* 1 when the expression calls METRICS() anywhere (it then depends on every MetricStat). */
int sc_math_expr_uses_metrics(const struct sc_math_expr *e);

/* --- evaluation --------------------------------------------------------------------- */

struct sc_math_env {
    int64_t start_ms, end_ms; /* the grid: start + k * period_s < end */
    int period_s;
    /* The value of an Id (a copy into *out). Returns 0, or -1 with msg set. */
    int (*lookup)(void *ud, const char *id, struct sc_math_value *out, char *msg, size_t len);
    /* METRICS(filter): the MetricStat queries whose Id contains filter (NULL = all). */
    int (*metrics)(void *ud, const char *filter, struct sc_math_value *out, char *msg, size_t len);
    /* SEARCH(query, stat, period_s): an ARRAY. Returns 0, or -1 with msg set. */
    int (*search)(void *ud, const char *query, const char *stat, int period_s,
                  struct sc_math_value *out, char *msg, size_t len);
    /* ANOMALY_DETECTION_BAND(s, k): an ARRAY of two series, the band's lower and upper edges
     * (scaler/anomaly.h) over the grid; arg_id is the Id the argument names (NULL when it is
     * an expression). NULL = the function is not available here. */
    int (*band)(void *ud, const struct sc_math_series *s, const char *arg_id, double k,
                struct sc_math_value *out, char *msg, size_t len);
    void *ud;
    int dropped; /* set by eval: points dropped for a non-finite result */
};

/* Evaluates e. Returns 0 with *out set (the caller cleans it up), or -1 with msg set
 * ("Invalid arguments for FILL", ...). */
int sc_math_eval(const struct sc_math_expr *e, struct sc_math_env *env, struct sc_math_value *out,
                 char *msg, size_t msglen);

/* --- SEARCH over a store (math_search.c) ----------------------------------------------- */

/* Matches the search text of SEARCH's first argument ("{AWS/EC2,InstanceId} CPU"). Returns
 * a matcher, or NULL with msg set ("Invalid search expression"). */
struct sc_math_search;
struct sc_math_search *sc_math_search_create(const char *query, char *msg, size_t msglen);
void sc_math_search_destroy(struct sc_math_search *s);
int sc_math_search_matches(const struct sc_math_search *s, const struct sc_metric *m);

/* --- query lists (math_query.c) ----------------------------------------------------- */

/* One MetricDataQuery (borrowed strings). */
struct sc_math_query {
    const char *id;
    const char *expression; /* NULL for a MetricStat */
    const char *label;      /* NULL = default */
    int return_data;
    int period_s; /* MetricStat.Period, or the expression's Period (0 = none) */
    /* MetricStat */
    struct sc_metric_key metric;
    const char *stat;
    const char *unit; /* NULL = every unit */
};

/* Where the first error lies, for the caller's texts (GetMetricData prints them, alarms
 * answer "Invalid metrics list"). */
struct sc_math_error {
    int query; /* 0-based query index */
    char msg[SC_MATH_ERR_LEN];
};

struct sc_math_program; /* opaque */

/* Parses every expression and checks Ids (unknown, cycles, SEARCH when no_search). The
 * MetricStat fields are assumed checked by the caller. Returns SC_OK with *out, or
 * SC_ERR_VALIDATION with err ("Error in expression e1: Unrecognized identifier m3 at
 * position 6"), SC_ERR_INTERNAL on OOM. */
enum sc_status sc_math_program_create(const struct sc_math_query *q, int n, int no_search,
                                      struct sc_math_program **out, struct sc_math_error *err);
void sc_math_program_destroy(struct sc_math_program *p); /* NULL is a no-op */

/* One returned series. */
struct sc_math_result {
    int query; /* index of its query */
    const struct sc_math_series *series;
    const char *label; /* with dynamic labels applied */
    int dropped;       /* points dropped for non-finite values (an ArithmeticError message) */
};

/* Runs every query over [start_ms, end_ms) against store (MetricStat aggregates, SEARCH),
 * now_ms for SEARCH's 14-day window. Results (queries with return_data, in query order,
 * several for a TS[]) stay valid until the next run or destroy. Returns SC_OK, or
 * SC_ERR_VALIDATION with err (a run-time error: a scalar result, a bad argument). */
enum sc_status sc_math_program_run(struct sc_math_program *p, const struct sc_metric_store *store,
                                   int64_t start_ms, int64_t end_ms, int64_t now_ms,
                                   struct sc_math_error *err);
int sc_math_program_result_count(const struct sc_math_program *p);
/* The detectors ANOMALY_DETECTION_BAND takes its training from (excluded ranges, zone,
 * periodic spikes); NULL (the default) = untrained defaults. Borrowed while p lives. */
struct sc_anomaly_detectors;
void sc_math_program_set_anomaly(struct sc_math_program *p, const struct sc_anomaly_detectors *d);
const struct sc_math_result *sc_math_program_result(const struct sc_math_program *p, int i);
/* The grid period of query i (its own, or that of the MetricStat queries it uses, or 60). */
int sc_math_program_period(const struct sc_math_program *p, int i);

/* Applies dynamic labels (${MAX}, ${LABEL}, ${PROP('Dim.X')}, ...) of label to s into out
 * (docs/metric-math.md 4). def_label is ${LABEL}'s text. */
void sc_math_label_format(const char *label, const char *def_label, const struct sc_math_series *s,
                          char *out, size_t outlen);

#endif
