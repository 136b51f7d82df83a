/* tests/unit/scaler/test_anomaly.c: scaler/anomaly.c (the model's rules, each a test named
 * after it, on synthetic series with known bands; the detectors' API, errors and state file)
 * and the band through scaler/cloudwatch.h (GetMetricData, an alarm on the band). */
#include "scaler/anomaly.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/cloudwatch.h"

#define T0   1767225600000LL /* 2026-01-01T00:00:00Z, a Thursday */
#define MIN  60000LL
#define HOUR (60 * MIN)
#define DAY  (24 * HOUR)

static void test_anomaly_band_is_median_plus_minus_k_mad_spreads(void **state)
{
    const int64_t ts[5] = { T0, T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN, T0 + 4 * MIN };
    const double v[5] = { 18, 10, 14, 12, 16 };
    struct sc_anomaly_band b;

    (void)state;
    assert_int_equal(sc_anomaly_band_at(ts, v, 5, T0 + 5 * MIN, 2, NULL, &b), 1);
    /* median 14, |deviations| 4 4 0 2 2 -> MAD 2, spread 1.4826 * 2 */
    assert_true(fabs(b.baseline - 14) < 1e-9);
    assert_true(fabs(b.spread - 2.9652) < 1e-9);
    assert_true(fabs(b.lower - (14 - 2 * 2.9652)) < 1e-9);
    assert_true(fabs(b.upper - (14 + 2 * 2.9652)) < 1e-9);
    assert_int_equal(b.basis, SC_ANOMALY_BASIS_TRAILING);
    assert_int_equal(b.n_train, 5);
    /* k scales the width */
    assert_int_equal(sc_anomaly_band_at(ts, v, 5, T0 + 5 * MIN, 3, NULL, &b), 1);
    assert_true(fabs(b.upper - (14 + 3 * 2.9652)) < 1e-9);
}

static void test_anomaly_spread_of_a_two_level_series_is_its_iqr(void **state)
{
    int64_t ts[9];
    double v[9];
    struct sc_anomaly_band b;

    (void)state;
    for (int i = 0; i < 9; i++) { /* 10 20 10 20 10 20 10 20 10: MAD 0, IQR 10 */
        ts[i] = T0 + i * MIN;
        v[i] = i % 2 ? 20 : 10;
    }
    assert_int_equal(sc_anomaly_band_at(ts, v, 9, T0 + 9 * MIN, 2, NULL, &b), 1);
    assert_true(fabs(b.baseline - 10) < 1e-9);
    assert_true(fabs(b.spread - 10 / 1.349) < 1e-9);
}

static void test_anomaly_spread_is_at_least_one_percent_of_the_median(void **state)
{
    int64_t ts[10];
    double v[10];
    struct sc_anomaly_band b;

    (void)state;
    for (int i = 0; i < 10; i++) {
        ts[i] = T0 + i * MIN;
        v[i] = 100;
    }
    assert_int_equal(sc_anomaly_band_at(ts, v, 10, T0 + 10 * MIN, 2, NULL, &b), 1);
    assert_true(fabs(b.lower - 98) < 1e-9);
    assert_true(fabs(b.upper - 102) < 1e-9);
}

static void test_anomaly_window_is_the_14_days_before_t(void **state)
{
    /* 5 points 15 days back, 5 points just before t, one point at t and one after */
    int64_t t = T0 + 20 * DAY, ts[12];
    double v[12];
    struct sc_anomaly_band b;

    (void)state;
    for (int i = 0; i < 5; i++) {
        ts[i] = t - 15 * DAY + i * MIN;
        v[i] = 1000;
        ts[5 + i] = t - (5 - i) * MIN;
        v[5 + i] = 10;
    }
    ts[10] = t;
    v[10] = 5000;
    ts[11] = t + MIN;
    v[11] = 5000;
    assert_int_equal(sc_anomaly_band_at(ts, v, 12, t, 2, NULL, &b), 1);
    assert_int_equal(b.n_train, 5);
    assert_true(fabs(b.baseline - 10) < 1e-9);
}

static void test_anomaly_fewer_than_min_points_give_no_band(void **state)
{
    const int64_t ts[4] = { T0, T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN };
    const double v[4] = { 1, 2, 3, 4 };
    struct sc_anomaly_band b;

    (void)state;
    assert_int_equal(sc_anomaly_band_at(ts, v, 4, T0 + 4 * MIN, 2, NULL, &b), 0);
    assert_int_equal(b.n_train, 4);
    assert_int_equal(sc_anomaly_band_at(NULL, NULL, 0, T0, 2, NULL, &b), 0);
}

/* hourly points over `days` days, value = 10 * hour of day (UTC) */
static int hourly(int days, int64_t *ts, double *v)
{
    int n = 0;
    for (int64_t t = T0; t < T0 + days * DAY; t += HOUR) {
        ts[n] = t;
        v[n++] = (double)(10 * ((t / HOUR) % 24));
    }
    return n;
}

static void test_anomaly_daily_basis_once_a_day_of_history(void **state)
{
    int64_t ts[24 * 3];
    double v[24 * 3];
    int n = hourly(3, ts, v);
    struct sc_anomaly_band b;

    (void)state;
    /* at 05:00 on day 4: the 05:00 points of days 1-3 are 50, 50, 50 */
    assert_int_equal(sc_anomaly_band_at(ts, v, n, T0 + 3 * DAY + 5 * HOUR, 2, NULL, &b), 1);
    assert_int_equal(b.basis, SC_ANOMALY_BASIS_DAILY);
    assert_int_equal(b.n_used, 3);
    assert_true(fabs(b.baseline - 50) < 1e-9);
    assert_true(fabs(b.lower - 49) < 1e-9 && fabs(b.upper - 51) < 1e-9);
    /* with less than a day of history: every point (trailing) */
    assert_int_equal(sc_anomaly_band_at(ts, v, 20, T0 + 20 * HOUR, 2, NULL, &b), 1);
    assert_int_equal(b.basis, SC_ANOMALY_BASIS_TRAILING);
    assert_int_equal(b.n_used, 20);
}

static void test_anomaly_metric_timezone_shifts_the_buckets(void **state)
{
    /* half-hourly points for 3 days, value = 10 * the UTC hour */
    int64_t ts[48 * 3];
    double v[48 * 3];
    int n = 0;
    struct sc_anomaly_train tr = { NULL, 0, 1800, 0 }; /* +00:30 */
    struct sc_anomaly_band b;

    (void)state;
    for (int64_t t = T0; t < T0 + 3 * DAY; t += 30 * MIN) {
        ts[n] = t;
        v[n++] = (double)(10 * ((t / HOUR) % 24));
    }
    /* UTC: the 05:00 bucket holds 05:00 and 05:30 (50, 50) */
    assert_int_equal(sc_anomaly_band_at(ts, v, n, T0 + 3 * DAY + 5 * HOUR, 2, NULL, &b), 1);
    assert_true(fabs(b.baseline - 50) < 1e-9);
    /* at +00:30, 05:00 UTC is local 05:30: local 05:00-06:00 is UTC 04:30 and 05:00 (40, 50) */
    assert_int_equal(sc_anomaly_band_at(ts, v, n, T0 + 3 * DAY + 5 * HOUR, 2, &tr, &b), 1);
    assert_int_equal(b.basis, SC_ANOMALY_BASIS_DAILY);
    assert_true(fabs(b.baseline - 45) < 1e-9);
}

static void test_anomaly_weekly_basis_once_a_week_of_history(void **state)
{
    /* 10-minute points for 8 days from Thursday 00:00: Mondays at 100, other days at 10 */
    static int64_t ts[8 * 144];
    static double v[8 * 144];
    int n = 0;
    struct sc_anomaly_band b;
    int64_t monday2 = T0 + 11 * DAY; /* 2026-01-12, the second Monday */

    (void)state;
    for (int64_t t = T0; t < T0 + 8 * DAY; t += 10 * MIN) {
        int64_t day = (t - T0) / DAY; /* 0 = Thursday; 4 = Monday */
        ts[n] = t;
        v[n++] = day == 4 ? 100 : 10;
    }
    /* the 10:00 hour of the first Monday holds 6 points at 100; the daily bucket is mostly 10 */
    assert_int_equal(sc_anomaly_band_at(ts, v, n, monday2 + 10 * HOUR, 2, NULL, &b), 1);
    assert_int_equal(b.basis, SC_ANOMALY_BASIS_WEEKLY);
    assert_int_equal(b.n_used, 6);
    assert_true(fabs(b.baseline - 100) < 1e-9);
}

static void test_anomaly_excluded_ranges_are_dropped_from_training(void **state)
{
    int64_t ts[10];
    double v[10];
    struct sc_anomaly_range ex = { T0 + 5 * MIN, T0 + 10 * MIN };
    struct sc_anomaly_train tr = { &ex, 1, 0, 0 };
    struct sc_anomaly_band b;

    (void)state;
    for (int i = 0; i < 10; i++) {
        ts[i] = T0 + i * MIN;
        v[i] = i < 5 ? 10 : 1000; /* a deployment spike in [5, 10) minutes */
    }
    assert_int_equal(sc_anomaly_band_at(ts, v, 10, T0 + 10 * MIN, 2, &tr, &b), 1);
    assert_int_equal(b.n_train, 5);
    assert_true(fabs(b.baseline - 10) < 1e-9);
    assert_int_equal(sc_anomaly_band_at(ts, v, 10, T0 + 10 * MIN, 2, NULL, &b), 1);
    assert_true(b.baseline > 10);
    ex.start_ms = T0 + 1 * MIN; /* now only 1 training point is left */
    assert_int_equal(sc_anomaly_band_at(ts, v, 10, T0 + 10 * MIN, 2, &tr, &b), 0);
}

static void test_anomaly_periodic_spikes_lift_the_upper_edge_to_the_bucket_max(void **state)
{
    int64_t ts[10];
    double v[10];
    struct sc_anomaly_train tr = { NULL, 0, 0, 1 };
    struct sc_anomaly_band b;

    (void)state;
    for (int i = 0; i < 10; i++) {
        ts[i] = T0 + i * MIN;
        v[i] = i == 4 ? 60 : 10;
    }
    assert_int_equal(sc_anomaly_band_at(ts, v, 10, T0 + 10 * MIN, 2, NULL, &b), 1);
    assert_true(b.upper < 60);
    assert_int_equal(sc_anomaly_band_at(ts, v, 10, T0 + 10 * MIN, 2, &tr, &b), 1);
    assert_true(fabs(b.upper - 60) < 1e-9);
}

static void test_anomaly_state_follows_the_training_history(void **state)
{
    int64_t ts[30];
    double v[30];

    (void)state;
    for (int i = 0; i < 30; i++) {
        ts[i] = T0 + i * HOUR;
        v[i] = 1;
    }
    assert_int_equal(sc_anomaly_state_of(ts, v, 4, T0 + 4 * HOUR, NULL),
                     SC_ANOMALY_PENDING_TRAINING);
    assert_int_equal(sc_anomaly_state_of(ts, v, 5, T0 + 5 * HOUR, NULL),
                     SC_ANOMALY_TRAINED_INSUFFICIENT_DATA);
    assert_int_equal(sc_anomaly_state_of(ts, v, 30, T0 + 30 * HOUR, NULL), SC_ANOMALY_TRAINED);
    /* older than 14 days: out of the window again */
    assert_int_equal(sc_anomaly_state_of(ts, v, 30, T0 + 30 * DAY, NULL),
                     SC_ANOMALY_PENDING_TRAINING);
    assert_string_equal(sc_anomaly_state_name(SC_ANOMALY_TRAINED_INSUFFICIENT_DATA),
                        "TRAINED_INSUFFICIENT_DATA");
}

/* --- detectors ---------------------------------------------------------------------------- */

static int count_visit(const struct sc_anomaly_view *d, void *ud)
{
    (void)d;
    (*(int *)ud)++;
    return 0;
}

static int state_visit(const struct sc_anomaly_view *d, void *ud)
{
    snprintf(ud, 64, "%s", d->state_value);
    return 0;
}

static int count(struct sc_anomaly_detectors *d, const struct sc_anomaly_describe_req *r)
{
    struct sc_error e;
    int n = 0;
    assert_int_equal(sc_anomaly_describe(d, r, NULL, T0, count_visit, &n, &e), SC_OK);
    return n;
}

static void test_anomaly_detectors_put_update_describe_delete(void **state)
{
    struct sc_anomaly_detectors *d = sc_anomaly_detectors_create("123456789012");
    struct sc_dimension dims[2] = { { "B", "2" }, { "A", "1" } },
                        rev[2] = { { "A", "1" }, { "B", "2" } };
    struct sc_anomaly_range ex = { T0, T0 + HOUR };
    struct sc_anomaly_req r;
    struct sc_anomaly_describe_req q;
    const char *math_t[1] = { "METRIC_MATH" };
    struct sc_alarm_query mq[2];
    struct sc_error e;

    (void)state;
    memset(&r, 0, sizeof(r));
    r.has_single = 1;
    r.single = (struct sc_anomaly_metric){ "App", "Latency", dims, 2, "Average", NULL };
    assert_int_equal(sc_anomaly_put(d, &r, &e), SC_OK);
    /* the same metric (dimensions in another order) and stat: an update */
    r.single.dimensions = rev;
    r.has_configuration = 1;
    r.excluded = &ex;
    r.n_excluded = 1;
    assert_int_equal(sc_anomaly_put(d, &r, &e), SC_OK);
    assert_int_equal(sc_anomaly_count(d), 1);
    r.single.stat = "p99";
    assert_int_equal(sc_anomaly_put(d, &r, &e), SC_OK);
    assert_int_equal(sc_anomaly_count(d), 2);
    /* a metric math detector */
    memset(mq, 0, sizeof(mq));
    mq[0].id = "m1";
    mq[0].has_metric_stat = 1;
    mq[0].metric = (struct sc_metric_key){ "App", "Latency", NULL, 0 };
    mq[0].has_stat_period = 1;
    mq[0].stat_period = 60;
    mq[0].stat = "Sum";
    mq[0].has_return_data = 1;
    mq[0].return_data = 0;
    mq[1].id = "e1";
    mq[1].expression = "m1 * 2";
    memset(&r, 0, sizeof(r));
    r.has_math = 1;
    r.queries = mq;
    r.n_queries = 2;
    assert_int_equal(sc_anomaly_put(d, &r, &e), SC_OK);
    assert_int_equal(sc_anomaly_count(d), 3);
    memset(&q, 0, sizeof(q));
    assert_int_equal(count(d, &q), 2); /* default: SINGLE_METRIC */
    q.types = math_t;
    q.n_types = 1;
    assert_int_equal(count(d, &q), 1);
    memset(&q, 0, sizeof(q));
    q.metric_name = "Latency";
    q.dimensions = &dims[1];
    q.n_dimensions = 1;
    assert_int_equal(count(d, &q), 2);
    q.metric_name = "Other";
    assert_int_equal(count(d, &q), 0);
    /* delete the math one, then it is gone */
    assert_int_equal(sc_anomaly_delete(d, &r, &e), SC_OK);
    assert_int_equal(sc_anomaly_delete(d, &r, &e), SC_ERR_RESOURCE_NOT_FOUND_EXCEPTION);
    assert_string_equal(e.message, "This anomaly detection model does not exist.");
    assert_int_equal(sc_anomaly_count(d), 2);
    sc_anomaly_detectors_destroy(d);
}

static void test_anomaly_detectors_errors_change_nothing(void **state)
{
    struct sc_anomaly_detectors *d = sc_anomaly_detectors_create(NULL);
    struct sc_anomaly_range ex[11], bad = { T0 + HOUR, T0 };
    struct sc_anomaly_req r;
    struct sc_error e;
    const char *bogus[1] = { "BOTH" };
    struct sc_anomaly_describe_req q;

    (void)state;
    memset(&r, 0, sizeof(r));
    assert_int_equal(sc_anomaly_put(d, &r, &e), SC_ERR_MISSING_PARAMETER);
    assert_string_equal(e.message, "One of SingleMetricAnomalyDetector or "
                                   "MetricMathAnomalyDetector must be specified.");
    r.has_single = 1;
    r.single = (struct sc_anomaly_metric){ "App", NULL, NULL, 0, "Average", NULL };
    assert_int_equal(sc_anomaly_put(d, &r, &e), SC_ERR_MISSING_PARAMETER);
    assert_string_equal(e.message,
                        "The parameter SingleMetricAnomalyDetector.MetricName is required.");
    r.single.metric_name = "Latency";
    r.has_legacy = 1;
    assert_int_equal(sc_anomaly_put(d, &r, &e), SC_ERR_INVALID_PARAMETER_COMBINATION);
    r.has_legacy = 0;
    r.has_math = 1;
    assert_int_equal(sc_anomaly_put(d, &r, &e), SC_ERR_INVALID_PARAMETER_COMBINATION);
    r.has_math = 0;
    memset(ex, 0, sizeof(ex));
    for (int i = 0; i < 11; i++)
        ex[i] = (struct sc_anomaly_range){ T0, T0 + 1 };
    r.excluded = ex;
    r.n_excluded = 11;
    assert_int_equal(sc_anomaly_put(d, &r, &e), SC_ERR_INVALID_PARAMETER_VALUE);
    r.excluded = &bad;
    r.n_excluded = 1;
    assert_int_equal(sc_anomaly_put(d, &r, &e), SC_ERR_INVALID_PARAMETER_VALUE);
    assert_string_equal(e.message, "The parameter Configuration.ExcludedTimeRanges.member.1."
                                   "StartTime must be before EndTime.");
    r.single.account_id = "999999999999";
    r.n_excluded = 0;
    assert_int_equal(sc_anomaly_put(d, &r, &e), SC_ERR_INVALID_PARAMETER_VALUE);
    assert_int_equal(sc_anomaly_count(d), 0);
    memset(&q, 0, sizeof(q));
    q.types = bogus;
    q.n_types = 1;
    assert_int_equal(sc_anomaly_describe(d, &q, NULL, T0, count_visit, NULL, &e),
                     SC_ERR_VALIDATION);
    sc_anomaly_detectors_destroy(d);
}

static void test_anomaly_detectors_state_file_round_trip(void **state)
{
    struct sc_anomaly_detectors *d = sc_anomaly_detectors_create(NULL), *d2;
    struct sc_anomaly_range ex = { T0, T0 + HOUR };
    struct sc_anomaly_req r;
    struct sc_error e;
    json_t *j, *j2, *bad;
    char *a, *b;

    (void)state;
    memset(&r, 0, sizeof(r));
    r.has_single = 1;
    r.single = (struct sc_anomaly_metric){ "App", "Latency", NULL, 0, "Average", NULL };
    r.has_configuration = 1;
    r.excluded = &ex;
    r.n_excluded = 1;
    r.metric_timezone = "UTC";
    r.has_periodic_spikes = 1;
    r.periodic_spikes = 1;
    assert_int_equal(sc_anomaly_put(d, &r, &e), SC_OK);
    j = sc_anomaly_save(d);
    d2 = sc_anomaly_detectors_create(NULL);
    assert_int_equal(sc_anomaly_load(d2, j, &e), SC_OK);
    j2 = sc_anomaly_save(d2);
    a = json_dumps(j, JSON_SORT_KEYS);
    b = json_dumps(j2, JSON_SORT_KEYS);
    assert_string_equal(a, b);
    /* a bad detector: the load fails and d2 keeps what it had */
    bad = json_pack("[{ssss}]", "Namespace", "App", "Stat", "Average");
    assert_int_equal(sc_anomaly_load(d2, bad, &e), SC_ERR_VALIDATION);
    assert_non_null(strstr(e.message, "anomaly_detectors[0]"));
    assert_int_equal(sc_anomaly_count(d2), 1);
    free(a);
    free(b);
    json_decref(j);
    json_decref(j2);
    json_decref(bad);
    sc_anomaly_detectors_destroy(d);
    sc_anomaly_detectors_destroy(d2);
}

/* --- through sc_cw: GetMetricData and an alarm on the band ---------------------------------- */

static void put(struct sc_cw *cw, double v, int64_t ts)
{
    assert_int_equal(sc_cw_put_value(cw, "App", "Latency", NULL, 0, NULL, v, ts, ts), SC_OK);
}

struct gmd {
    int n;
    char label[3][64];
    int nv[3];
    double last[3];
};

static int gmd_visit(const struct sc_metric_data_result *r, void *ud)
{
    struct gmd *g = ud;
    if (g->n < 3) {
        snprintf(g->label[g->n], 64, "%s", r->label);
        g->nv[g->n] = r->n_values;
        g->last[g->n] = r->n_values ? r->values[0] : NAN;
    }
    g->n++;
    return 0;
}

static void test_anomaly_band_in_get_metric_data_and_an_alarm(void **state)
{
    struct sc_cw_config c;
    struct sc_cw *cw;
    struct sc_metric_data_query q[2];
    struct sc_get_metric_data_req rq;
    struct sc_put_metric_alarm_req ar;
    struct sc_alarm_query aq[2];
    struct sc_anomaly_req dr;
    struct sc_anomaly_describe_req dq;
    struct gmd g;
    struct sc_error e;
    char st[64];
    int64_t t0 = T0, now;

    (void)state;
    sc_cw_config_defaults(&c);
    c.start_ms = t0;
    cw = sc_cw_create(&c);
    /* a detector, PENDING_TRAINING before any data */
    memset(&dr, 0, sizeof(dr));
    dr.has_single = 1;
    dr.single = (struct sc_anomaly_metric){ "App", "Latency", NULL, 0, "Average", NULL };
    assert_int_equal(sc_anomaly_put(sc_cw_anomaly(cw), &dr, &e), SC_OK);
    memset(&dq, 0, sizeof(dq));
    assert_int_equal(
        sc_anomaly_describe(sc_cw_anomaly(cw), &dq, sc_cw_metrics(cw), t0, state_visit, st, &e),
        SC_OK);
    assert_string_equal(st, "PENDING_TRAINING");
    /* an hour of 10, 20, 10, 20, ...: median 15, MAD 5 */
    for (int i = 0; i < 60; i++)
        put(cw, i % 2 ? 20 : 10, t0 + i * MIN);
    now = t0 + 60 * MIN;
    sc_cw_step(cw, now);
    assert_int_equal(
        sc_anomaly_describe(sc_cw_anomaly(cw), &dq, sc_cw_metrics(cw), now, state_visit, st, &e),
        SC_OK);
    assert_string_equal(st, "TRAINED_INSUFFICIENT_DATA");
    memset(q, 0, sizeof(q));
    q[0].id = "m1";
    q[0].has_metric_stat = 1;
    q[0].metric = (struct sc_metric_key){ "App", "Latency", NULL, 0 };
    q[0].period = 60;
    q[0].stat = "Average";
    q[1].id = "ad1";
    q[1].expression = "ANOMALY_DETECTION_BAND(m1, 2)";
    memset(&rq, 0, sizeof(rq));
    rq.queries = q;
    rq.n_queries = 2;
    rq.has_start_time = 1;
    rq.start_time_ms = now - 10 * MIN;
    rq.has_end_time = 1;
    rq.end_time_ms = now;
    memset(&g, 0, sizeof(g));
    assert_int_equal(sc_cw_get_metric_data(cw, &rq, now, gmd_visit, &g, &e), SC_OK);
    assert_int_equal(g.n, 3);
    assert_string_equal(g.label[1], "ad1 Lower");
    assert_string_equal(g.label[2], "ad1 Upper");
    assert_int_equal(g.nv[0], 10); /* the history before StartTime is not returned */
    assert_int_equal(g.nv[1], 10);
    /* the newest band point trains on the 59 points before it: median 10, IQR 10 */
    assert_true(fabs(g.last[1] - (10 - 2 * 10 / 1.349)) < 1e-9);
    assert_true(fabs(g.last[2] - (10 + 2 * 10 / 1.349)) < 1e-9);
    /* an alarm on the band */
    memset(aq, 0, sizeof(aq));
    aq[0].id = "m1";
    aq[0].has_metric_stat = 1;
    aq[0].metric = q[0].metric;
    aq[0].has_stat_period = 1;
    aq[0].stat_period = 60;
    aq[0].stat = "Average";
    aq[1].id = "ad1";
    aq[1].expression = "ANOMALY_DETECTION_BAND(m1, 2)";
    memset(&ar, 0, sizeof(ar));
    ar.alarm_name = "band";
    ar.has_evaluation_periods = 1;
    ar.evaluation_periods = 1;
    ar.comparison_operator = "LessThanLowerOrGreaterThanUpperThreshold";
    ar.has_metrics = 1;
    ar.metrics = aq;
    ar.n_metrics = 2;
    ar.threshold_metric_id = "ad1";
    assert_int_equal(sc_cw_put_metric_alarm(cw, &ar, now, &e), SC_OK);
    assert_string_equal(sc_cw_alarm_find(cw, "band")->threshold_metric_id, "ad1");
    for (int i = 60; i < 62; i++)
        put(cw, i % 2 ? 20 : 10, t0 + i * MIN);
    sc_cw_step(cw, t0 + 62 * MIN);
    assert_int_equal(sc_cw_alarm_find(cw, "band")->state, SC_ALARM_OK);
    put(cw, 500, t0 + 62 * MIN); /* the outlier */
    sc_cw_step(cw, t0 + 63 * MIN);
    assert_int_equal(sc_cw_alarm_find(cw, "band")->state, SC_ALARM_ALARM);
    assert_non_null(
        strstr(sc_cw_alarm_find(cw, "band")->state_reason, "was less than the lower thresholds ["));
    put(cw, 20, t0 + 63 * MIN);
    sc_cw_step(cw, t0 + 64 * MIN);
    assert_int_equal(sc_cw_alarm_find(cw, "band")->state, SC_ALARM_OK);
    /* the rules of PutMetricAlarm for bands */
    ar.threshold_metric_id = NULL;
    assert_int_equal(sc_cw_put_metric_alarm(cw, &ar, now, &e), SC_ERR_VALIDATION);
    assert_string_equal(e.message,
                        "ComparisonOperators for ranges require ThresholdMetricId to be set");
    ar.threshold_metric_id = "zz";
    assert_int_equal(sc_cw_put_metric_alarm(cw, &ar, now, &e), SC_ERR_VALIDATION);
    assert_string_equal(e.message, "Invalid metrics list");
    ar.threshold_metric_id = "ad1";
    ar.comparison_operator = "GreaterThanThreshold";
    assert_int_equal(sc_cw_put_metric_alarm(cw, &ar, now, &e), SC_ERR_VALIDATION);
    ar.comparison_operator = "GreaterThanUpperThreshold";
    ar.has_threshold = 1;
    assert_int_equal(sc_cw_put_metric_alarm(cw, &ar, now, &e), SC_ERR_VALIDATION);
    assert_string_equal(e.message, "Threshold and ThresholdMetricId cannot both be set");
    sc_cw_destroy(cw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_anomaly_band_is_median_plus_minus_k_mad_spreads),
        cmocka_unit_test(test_anomaly_spread_of_a_two_level_series_is_its_iqr),
        cmocka_unit_test(test_anomaly_spread_is_at_least_one_percent_of_the_median),
        cmocka_unit_test(test_anomaly_window_is_the_14_days_before_t),
        cmocka_unit_test(test_anomaly_fewer_than_min_points_give_no_band),
        cmocka_unit_test(test_anomaly_daily_basis_once_a_day_of_history),
        cmocka_unit_test(test_anomaly_metric_timezone_shifts_the_buckets),
        cmocka_unit_test(test_anomaly_weekly_basis_once_a_week_of_history),
        cmocka_unit_test(test_anomaly_excluded_ranges_are_dropped_from_training),
        cmocka_unit_test(test_anomaly_periodic_spikes_lift_the_upper_edge_to_the_bucket_max),
        cmocka_unit_test(test_anomaly_state_follows_the_training_history),
        cmocka_unit_test(test_anomaly_detectors_put_update_describe_delete),
        cmocka_unit_test(test_anomaly_detectors_errors_change_nothing),
        cmocka_unit_test(test_anomaly_detectors_state_file_round_trip),
        cmocka_unit_test(test_anomaly_band_in_get_metric_data_and_an_alarm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
