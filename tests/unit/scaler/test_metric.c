/* tests/unit/scaler/test_metric.c: scaler/metric.c */
#include "scaler/metric.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* 2026-01-01T00:00:00Z */
#define T0  1767225600000LL
#define MIN 60000LL

static struct sc_metric_store *store_new(void)
{
    struct sc_metric_store *s = sc_metric_store_create(NULL);
    assert_non_null(s);
    return s;
}

static enum sc_status put1(struct sc_metric_store *s, const char *ns, const char *name,
                           const struct sc_dimension *dims, int nd, const char *unit, double v,
                           int64_t ts, int64_t now, struct sc_error *err)
{
    struct sc_metric_datum d = { 0 };
    struct sc_put_metric_data_req r = { 0 };

    d.metric_name = name;
    d.dimensions = dims;
    d.n_dimensions = nd;
    d.has_value = 1;
    d.value = v;
    d.has_timestamp = 1;
    d.timestamp_ms = ts;
    d.unit = unit;
    r.namespace = ns;
    r.metric_data = &d;
    r.n_metric_data = 1;
    return sc_metric_store_put(s, &r, now, err);
}

static const struct sc_metric *find(struct sc_metric_store *s, const char *ns, const char *name,
                                    const struct sc_dimension *dims, int nd)
{
    struct sc_metric_key k = { ns, name, dims, nd };
    return sc_metric_store_find(s, &k);
}

static void test_metric_identity_dimension_order_insensitive(void **state)
{
    struct sc_metric_store *s = store_new();
    struct sc_dimension ab[] = { { "A", "1" }, { "B", "2" } };
    struct sc_dimension ba[] = { { "B", "2" }, { "A", "1" } };
    struct sc_dimension a[] = { { "A", "1" } };

    (void)state;
    assert_int_equal(put1(s, "App", "Lat", ab, 2, NULL, 1, T0, T0, NULL), SC_OK);
    assert_int_equal(put1(s, "App", "Lat", ba, 2, NULL, 2, T0, T0, NULL), SC_OK);
    assert_int_equal(sc_metric_store_count(s), 1);
    assert_non_null(find(s, "App", "Lat", ba, 2));
    /* a subset of the dimensions is another metric */
    assert_null(find(s, "App", "Lat", a, 1));
    assert_int_equal(put1(s, "App", "Lat", a, 1, NULL, 2, T0, T0, NULL), SC_OK);
    assert_int_equal(sc_metric_store_count(s), 2);
    assert_string_equal(sc_metric_dimension_at(find(s, "App", "Lat", ba, 2), 0).name, "A");
    sc_metric_store_destroy(s);
}

static void test_metric_units_are_separate_series(void **state)
{
    struct sc_metric_store *s = store_new();
    const struct sc_metric *m;
    struct sc_agg ag;

    (void)state;
    put1(s, "App", "Lat", NULL, 0, "Seconds", 1, T0, T0, NULL);
    put1(s, "App", "Lat", NULL, 0, "Milliseconds", 1000, T0, T0, NULL);
    m = find(s, "App", "Lat", NULL, 0);
    assert_int_equal(sc_metric_unit_count(m), 2);
    assert_int_equal(sc_metric_unit_at(m, 0), SC_UNIT_SECONDS);
    assert_int_equal(sc_metric_unit_at(m, 1), SC_UNIT_MILLISECONDS);
    assert_int_equal(sc_metric_aggregate(m, SC_UNIT_SECONDS, T0, 60, NULL, 0, &ag), 1);
    assert_true(ag.sum == 1 && ag.sample_count == 1);
    assert_int_equal(sc_metric_aggregate(m, SC_UNIT_MILLISECONDS, T0, 60, NULL, 0, &ag), 1);
    assert_true(ag.sum == 1000);
    assert_int_equal(sc_metric_aggregate(m, SC_UNIT_COUNT, T0, 60, NULL, 0, &ag), 0);
    sc_metric_store_destroy(s);
}

static void test_metric_default_unit_none(void **state)
{
    struct sc_metric_store *s = store_new();

    (void)state;
    put1(s, "App", "X", NULL, 0, NULL, 1, T0, T0, NULL);
    assert_int_equal(sc_metric_unit_at(find(s, "App", "X", NULL, 0), 0), SC_UNIT_NONE);
    assert_string_equal(sc_unit_name(SC_UNIT_NONE), "None");
    assert_string_equal(sc_unit_name(SC_UNIT_BYTES_SECOND), "Bytes/Second");
    sc_metric_store_destroy(s);
}

static void test_metric_aggregation_basic_statistics(void **state)
{
    struct sc_metric_store *s = store_new();
    struct sc_agg ag;
    struct sc_stat st;
    double v;
    const struct sc_metric *m;

    (void)state;
    /* minutes 0..4 get 10, 20, 30, 40, 50; a 300 s period sees them all */
    for (int i = 0; i < 5; i++)
        put1(s, "App", "X", NULL, 0, NULL, 10.0 * (i + 1), T0 + i * MIN + 5000, T0 + 5 * MIN, NULL);
    m = find(s, "App", "X", NULL, 0);
    assert_int_equal(sc_metric_aggregate(m, SC_UNIT_ANY, T0, 300, NULL, 0, &ag), 1);
    assert_true(ag.sample_count == 5 && ag.sum == 150 && ag.minimum == 10 && ag.maximum == 50);
    assert_int_equal(sc_stat_parse("Average", 1, &st), 0);
    assert_int_equal(sc_agg_value(&ag, &st, 0, &v), 0);
    assert_true(v == 30);
    /* epoch-aligned: the 60 s bucket at T0+60 s holds only the second value */
    assert_int_equal(sc_metric_aggregate(m, SC_UNIT_ANY, T0 + MIN, 60, NULL, 0, &ag), 1);
    assert_true(ag.sum == 20 && ag.sample_count == 1);
    /* an empty period reports no data */
    assert_int_equal(sc_metric_aggregate(m, SC_UNIT_ANY, T0 + 10 * MIN, 60, NULL, 0, &ag), 0);
    sc_metric_store_destroy(s);
}

static void test_metric_values_and_counts(void **state)
{
    struct sc_metric_store *s = store_new();
    double vals[] = { 1, 2, 3 }, counts[] = { 2, 0, 3 };
    struct sc_metric_datum d = { 0 };
    struct sc_put_metric_data_req r = { 0 };
    struct sc_agg ag;

    (void)state;
    d.metric_name = "X";
    d.values = vals;
    d.n_values = 3;
    d.counts = counts;
    d.n_counts = 3;
    r.namespace = "App";
    r.metric_data = &d;
    r.n_metric_data = 1;
    assert_int_equal(sc_metric_store_put(s, &r, T0, NULL), SC_OK);
    assert_int_equal(
        sc_metric_aggregate(find(s, "App", "X", NULL, 0), SC_UNIT_ANY, T0, 60, NULL, 0, &ag), 1);
    /* a value with count 0 is not a sample */
    assert_true(ag.sample_count == 5 && ag.sum == 11 && ag.minimum == 1 && ag.maximum == 3);
    sc_metric_store_destroy(s);
}

static void test_metric_statistic_set(void **state)
{
    struct sc_metric_store *s = store_new();
    struct sc_metric_datum d = { 0 };
    struct sc_put_metric_data_req r = { 0 };
    struct sc_agg ag;
    double p50 = 50;

    (void)state;
    d.metric_name = "X";
    d.has_statistic_values = 1;
    d.statistic_values = (struct sc_statistic_set){ 4, 20, 2, 8, 1, 1, 1, 1 };
    r.namespace = "App";
    r.metric_data = &d;
    r.n_metric_data = 1;
    assert_int_equal(sc_metric_store_put(s, &r, T0, NULL), SC_OK);
    assert_int_equal(
        sc_metric_aggregate(find(s, "App", "X", NULL, 0), SC_UNIT_ANY, T0, 60, &p50, 1, &ag), 1);
    assert_true(ag.sample_count == 4 && ag.sum == 20 && ag.minimum == 2 && ag.maximum == 8);
    /* a statistic set with SampleCount != 1 and Min != Max has no percentiles */
    assert_int_equal(ag.pct_ok, 0);
    sc_metric_store_destroy(s);
}

static void test_metric_statistic_set_percentile_when_min_equals_max(void **state)
{
    struct sc_metric_store *s = store_new();
    struct sc_metric_datum d = { 0 };
    struct sc_put_metric_data_req r = { 0 };
    struct sc_agg ag;
    double p = 90;

    (void)state;
    d.metric_name = "X";
    d.has_statistic_values = 1;
    d.statistic_values = (struct sc_statistic_set){ 10, 70, 7, 7, 1, 1, 1, 1 };
    r.namespace = "App";
    r.metric_data = &d;
    r.n_metric_data = 1;
    assert_int_equal(sc_metric_store_put(s, &r, T0, NULL), SC_OK);
    sc_metric_aggregate(find(s, "App", "X", NULL, 0), SC_UNIT_ANY, T0, 60, &p, 1, &ag);
    assert_int_equal(ag.pct_ok, 1);
    assert_true(ag.pct[0] == 7);
    sc_metric_store_destroy(s);
}

static void test_metric_percentile_nearest_rank_exact_per_minute(void **state)
{
    struct sc_metric_store *s = store_new();
    struct sc_agg ag;
    double p[] = { 0, 50, 90, 100 };

    (void)state;
    /* one value per minute: minutes keep exact values, percentiles are exact */
    for (int i = 0; i < 10; i++)
        put1(s, "App", "X", NULL, 0, NULL, (double)(i + 1) * 1.01, T0 + i * MIN, T0 + 10 * MIN,
             NULL);
    sc_metric_aggregate(find(s, "App", "X", NULL, 0), SC_UNIT_ANY, T0, 600, p, 4, &ag);
    assert_int_equal(ag.pct_ok, 1);
    assert_true(ag.pct[0] == 1.01);
    assert_true(ag.pct[1] == 5 * 1.01);  /* rank ceil(0.5*10) = 5 */
    assert_true(ag.pct[2] == 9 * 1.01);  /* rank 9 */
    assert_true(ag.pct[3] == 10 * 1.01); /* max */
    sc_metric_store_destroy(s);
}

static void test_metric_percentile_histogram_error_bound(void **state)
{
    struct sc_metric_store *s = store_new();
    double vals[150];
    struct sc_metric_datum d = { 0 };
    struct sc_put_metric_data_req r = { 0 };
    struct sc_agg ag;
    double p[] = { 50, 90, 99 }, want[] = { 75, 135, 149 };

    (void)state;
    for (int i = 0; i < 150; i++)
        vals[i] = i + 1;
    d.metric_name = "X";
    d.values = vals;
    d.n_values = 150;
    r.namespace = "App";
    r.metric_data = &d;
    r.n_metric_data = 1;
    assert_int_equal(sc_metric_store_put(s, &r, T0, NULL), SC_OK);
    sc_metric_aggregate(find(s, "App", "X", NULL, 0), SC_UNIT_ANY, T0, 60, p, 3, &ag);
    assert_int_equal(ag.pct_ok, 1);
    for (int i = 0; i < 3; i++)
        assert_true(fabs(ag.pct[i] - want[i]) / want[i] <= 0.0443);
    sc_metric_store_destroy(s);
}

static void test_metric_percentile_none_with_negative_value(void **state)
{
    struct sc_metric_store *s = store_new();
    struct sc_agg ag;
    double p = 50;

    (void)state;
    put1(s, "App", "X", NULL, 0, NULL, 5, T0, T0, NULL);
    put1(s, "App", "X", NULL, 0, NULL, -1, T0 + MIN, T0 + MIN, NULL);
    sc_metric_aggregate(find(s, "App", "X", NULL, 0), SC_UNIT_ANY, T0, 60, &p, 1, &ag);
    assert_int_equal(ag.pct_ok, 1);
    sc_metric_aggregate(find(s, "App", "X", NULL, 0), SC_UNIT_ANY, T0, 120, &p, 1, &ag);
    assert_int_equal(ag.pct_ok, 0);
    sc_metric_store_destroy(s);
}

static void test_metric_stat_parse(void **state)
{
    struct sc_stat st;
    static const char *const good[] = { "p0", "p50", "p99.9", "p99.99", "p100" };
    static const char *const bad[] = { "p",    "p100.1", "p99.999", "P50", "p-1",
                                       "tm90", "Avg",    "p50.",    "" };

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_int_equal(sc_stat_parse(good[i], 0, &st), 0);
    assert_true(sc_stat_parse("p99.9", 0, &st) == 0 && fabs(st.pct - 99.9) < 1e-9);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(sc_stat_parse(bad[i], 0, &st), -1);
    assert_int_equal(sc_stat_parse("SampleCount", 1, &st), 0);
    assert_int_equal(st.kind, SC_STAT_SAMPLE_COUNT);
    assert_int_equal(sc_stat_parse("p50", 1, &st), -1);
}

static void test_metric_high_resolution_periods(void **state)
{
    struct sc_metric_store *s = store_new();
    struct sc_metric_datum d = { 0 };
    struct sc_put_metric_data_req r = { 0 };
    struct sc_agg ag;
    const struct sc_metric *m;

    (void)state;
    d.metric_name = "X";
    d.has_value = 1;
    d.has_timestamp = 1;
    d.storage_resolution = 1;
    r.namespace = "App";
    r.metric_data = &d;
    r.n_metric_data = 1;
    for (int i = 0; i < 30; i++) {
        d.value = i;
        d.timestamp_ms = T0 + i * 1000;
        assert_int_equal(sc_metric_store_put(s, &r, T0 + 30000, NULL), SC_OK);
    }
    m = find(s, "App", "X", NULL, 0);
    assert_int_equal(sc_metric_aggregate(m, SC_UNIT_ANY, T0 + 10000, 10, NULL, 0, &ag), 1);
    assert_true(ag.sample_count == 10 && ag.minimum == 10 && ag.maximum == 19);
    assert_int_equal(sc_metric_aggregate(m, SC_UNIT_ANY, T0 + 5000, 1, NULL, 0, &ag), 1);
    assert_true(ag.sum == 5);
    /* the same data also feeds the minute tier */
    assert_int_equal(sc_metric_aggregate(m, SC_UNIT_ANY, T0, 60, NULL, 0, &ag), 1);
    assert_true(ag.sample_count == 30);
    sc_metric_store_destroy(s);
}

static void test_metric_retention_minute_ring_bounded(void **state)
{
    struct sc_metric_config c;
    struct sc_metric_store *s;
    struct sc_agg ag;
    const struct sc_metric *m;
    size_t bytes_after_day, bytes_full, bytes_after_week_more;

    (void)state;
    sc_metric_config_defaults(&c);
    s = sc_metric_store_create(&c);
    for (int64_t i = 0; i < 1440; i++)
        put1(s, "App", "X", NULL, 0, NULL, 1, T0 + i * MIN, T0 + i * MIN, NULL);
    bytes_after_day = sc_metric_store_bytes(s);
    /* the rings grow with the data until every tier is full (the hour tier: 15 days) ... */
    for (int64_t i = 1440; i < 16 * 1440; i++)
        put1(s, "App", "X", NULL, 0, NULL, 1, T0 + i * MIN, T0 + i * MIN, NULL);
    bytes_full = sc_metric_store_bytes(s);
    assert_true(bytes_full > bytes_after_day);
    /* ... and not after */
    for (int64_t i = 16 * 1440; i < 23 * 1440; i++)
        put1(s, "App", "X", NULL, 0, NULL, 1, T0 + i * MIN, T0 + i * MIN, NULL);
    bytes_after_week_more = sc_metric_store_bytes(s);
    assert_true(bytes_after_week_more == bytes_full);
    m = find(s, "App", "X", NULL, 0);
    /* 26 h of minutes are kept; older minute periods are gone ... */
    assert_int_equal(
        sc_metric_aggregate(m, SC_UNIT_ANY, T0 + (23 * 1440 - 25 * 60) * MIN, 60, NULL, 0, &ag), 1);
    assert_int_equal(
        sc_metric_aggregate(m, SC_UNIT_ANY, T0 + (23 * 1440 - 27 * 60) * MIN, 60, NULL, 0, &ag), 0);
    /* ... while hour periods come from the hour tier (15 days) */
    assert_int_equal(
        sc_metric_aggregate(m, SC_UNIT_ANY, T0 + (23 * 1440 - 14 * 1440) * MIN, 3600, NULL, 0, &ag),
        1);
    assert_true(ag.sample_count == 60);
    assert_int_equal(sc_metric_aggregate(m, SC_UNIT_ANY, T0 + 3600000LL, 3600, NULL, 0, &ag), 0);
    sc_metric_store_destroy(s);
}

/* Memory follows the data: a series with one datapoint holds one slot per tier, not its
 * whole retention (issue 19: 68 KB per series up front took 60,000 series to 4 GB). */
static void test_metric_memory_follows_data(void **state)
{
    struct sc_metric_store *s = store_new();
    size_t empty = sc_metric_store_bytes(s), one_each, full;
    char host[32];
    struct sc_dimension dim = { "Host", host };

    (void)state;
    for (int i = 0; i < 1000; i++) {
        snprintf(host, sizeof(host), "h-%d", i);
        assert_int_equal(put1(s, "App", "Load", &dim, 1, NULL, i, T0, T0, NULL), SC_OK);
    }
    one_each = sc_metric_store_bytes(s) - empty;
    assert_true(one_each / 1000 < 1024);
    /* one series fed each minute for 26 h holds the full minute ring (1,560 slots of 37
     * bytes) and 26 hours of the hour ring */
    snprintf(host, sizeof(host), "busy");
    for (int64_t i = 0; i < 26 * 60; i++)
        put1(s, "App", "Load", &dim, 1, NULL, 1, T0 + i * MIN, T0 + i * MIN, NULL);
    full = sc_metric_store_bytes(s) - empty - one_each;
    assert_true(full > 1560 * 37 && full < 1560 * 37 + 4096);
    sc_metric_store_destroy(s);
}

/* A small minute ring (50 slots) fed periods in a scrambled order: backward, sparse over
 * three times its span, then sliding forward with late and far-back ones, wrapping, with
 * gaps. Every
 * minute's aggregate equals that of a dense ring of 50 slots (what the store kept before
 * its rings grew on demand), after every put. */
static void test_metric_rings_grow_as_dense_rings(void **state)
{
    enum { N = 50 }; /* not a power of two: the last doubling is cut to N */
    struct {
        uint32_t stamp;
        double count, sum, min, max;
    } ref[N];
    struct sc_metric_config c;
    struct sc_metric_store *s;
    uint64_t x = 88172645463325252ULL;
    const int64_t base = (T0 / MIN) + 5; /* a minute index not a multiple of N */

    (void)state;
    sc_metric_config_defaults(&c);
    c.minute_slots = N;
    c.hour_slots = 4;
    memset(ref, 0, sizeof(ref));
    s = sc_metric_store_create(&c);
    for (int op = 0; op < 2000; op++) {
        const struct sc_metric *m;
        int64_t idx;
        double v;
        int slot;

        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (op < 40) /* backfill: one minute earlier each time */
            idx = base + 100 - op;
        else if (op < 300) /* sparse: anywhere in 3 ring spans */
            idx = base + (int64_t)(x % (3 * N));
        else /* sliding forward, a span of 40, sometimes far back */
            idx =
                base + 3 * N + (op - 300) / 10 + (int64_t)(x % 40) - ((x >> 20) % 7 == 0 ? 50 : 0);
        v = (double)((x >> 8) % 1000);
        put1(s, "App", "X", NULL, 0, NULL, v, idx * MIN, idx * MIN, NULL);
        slot = (int)(idx % N);
        if (ref[slot].stamp < (uint32_t)(idx + 1)) {
            memset(&ref[slot], 0, sizeof(ref[slot]));
            ref[slot].stamp = (uint32_t)(idx + 1);
        }
        if (ref[slot].stamp == (uint32_t)(idx + 1)) {
            if (ref[slot].count == 0 || v < ref[slot].min)
                ref[slot].min = v;
            if (ref[slot].count == 0 || v > ref[slot].max)
                ref[slot].max = v;
            ref[slot].count += 1;
            ref[slot].sum += v;
        }
        m = find(s, "App", "X", NULL, 0);
        for (int64_t q = base - 60; q < base + 3 * N + (op - 300) / 10 + 50; q++) {
            struct sc_agg ag;
            int r = (int)(q % N), have = ref[r].stamp == (uint32_t)(q + 1) && ref[r].count > 0;

            assert_int_equal(sc_metric_aggregate(m, SC_UNIT_ANY, q * MIN, 60, NULL, 0, &ag), have);
            if (have) {
                assert_true(ag.sample_count == ref[r].count && ag.sum == ref[r].sum);
                assert_true(ag.minimum == ref[r].min && ag.maximum == ref[r].max);
            }
        }
    }
    sc_metric_store_destroy(s);
}

/* The series cap (sc_metric_config.max_series): scalelab's own bound, AWS has none. */
static void test_metric_series_cap(void **state)
{
    struct sc_metric_config c;
    struct sc_metric_store *s;
    struct sc_error err;
    char host[32];
    struct sc_dimension dim = { "Host", host };
    struct sc_metric_datum d[3] = { { .metric_name = "Load",
                                      .dimensions = &dim,
                                      .n_dimensions = 1,
                                      .has_value = 1,
                                      .value = 1 },
                                    { .metric_name = "New1", .has_value = 1, .value = 2 },
                                    { .metric_name = "New2", .has_value = 1, .value = 3 } };
    struct sc_put_metric_data_req r = { "App", d, 3, 0 };
    struct sc_agg ag;

    (void)state;
    sc_metric_config_defaults(&c);
    assert_int_equal(c.max_series, 100000);
    c.max_series = 4;
    s = sc_metric_store_create(&c);
    for (int i = 0; i < 3; i++) {
        snprintf(host, sizeof(host), "h-%d", i);
        assert_int_equal(put1(s, "App", "Load", &dim, 1, NULL, i, T0, T0, NULL), SC_OK);
    }
    /* 3 stored + 2 new (h-2 exists) > 4: refused whole, the existing series untouched */
    assert_int_equal(sc_metric_store_put(s, &r, T0, &err), SC_ERR_LIMIT_EXCEEDED_CW);
    assert_string_equal(sc_status_code(err.status), "LimitExceeded");
    assert_int_equal(sc_status_http(err.status), 400);
    assert_non_null(strstr(err.message, "this request adds 2 new series to the 3 stored"));
    assert_non_null(strstr(err.message, "at most 4 metric series"));
    assert_non_null(strstr(err.message, "--max-metric-series"));
    assert_int_equal(sc_metric_store_count(s), 3);
    assert_int_equal(
        sc_metric_aggregate(find(s, "App", "Load", &dim, 1), SC_UNIT_ANY, T0, 60, NULL, 0, &ag), 1);
    assert_true(ag.sample_count == 1);
    /* the same new series twice in one request is one series: 3 + 1 fits */
    d[2].metric_name = "New1";
    assert_int_equal(sc_metric_store_put(s, &r, T0, &err), SC_OK);
    assert_int_equal(sc_metric_store_count(s), 4);
    /* full: data for stored series is still taken, a new unit is a new series */
    assert_int_equal(put1(s, "App", "Load", &dim, 1, NULL, 5, T0 + MIN, T0 + MIN, NULL), SC_OK);
    assert_int_equal(put1(s, "App", "Load", &dim, 1, "Percent", 5, T0 + MIN, T0 + MIN, &err),
                     SC_ERR_LIMIT_EXCEEDED_CW);
    assert_int_equal(put1(s, "App", "Other", NULL, 0, NULL, 5, T0 + MIN, T0 + MIN, &err),
                     SC_ERR_LIMIT_EXCEEDED_CW);
    /* the world's own metrics (internal) are always stored, and count */
    d[0].metric_name = "CPUUtilization";
    r.namespace = "AWS/EC2";
    r.n_metric_data = 1;
    r.internal = 1;
    assert_int_equal(sc_metric_store_put(s, &r, T0 + MIN, NULL), SC_OK);
    assert_int_equal(sc_metric_store_count(s), 5);
    /* past the cap (5 of 4), stored series still take data */
    assert_int_equal(put1(s, "App", "Load", &dim, 1, NULL, 6, T0 + MIN, T0 + MIN, NULL), SC_OK);
    assert_int_equal(put1(s, "App", "Other", NULL, 0, NULL, 5, T0 + MIN, T0 + MIN, &err),
                     SC_ERR_LIMIT_EXCEEDED_CW);
    /* series freed by expiry make room again */
    assert_int_equal(sc_metric_store_expire(s, T0 + 16 * 86400000LL), 5);
    assert_int_equal(
        put1(s, "App", "Other", NULL, 0, NULL, 5, T0 + 16 * 86400000LL, T0 + 16 * 86400000LL, NULL),
        SC_OK);
    sc_metric_store_destroy(s);
    /* 0: no cap */
    c.max_series = 0;
    s = sc_metric_store_create(&c);
    for (int i = 0; i < 10; i++) {
        snprintf(host, sizeof(host), "h-%d", i);
        assert_int_equal(put1(s, "App", "Load", &dim, 1, NULL, i, T0, T0, NULL), SC_OK);
    }
    sc_metric_store_destroy(s);
}

/* sc_metric_config_aws: minutes for 15 days, hours for 455 days, as AWS keeps them. */
static void test_metric_retention_aws_tiers(void **state)
{
    struct sc_metric_config c;
    struct sc_metric_store *s;
    struct sc_agg ag;
    const struct sc_metric *m;
    const int64_t day = 1440;

    (void)state;
    sc_metric_config_aws(&c);
    assert_int_equal(c.minute_slots, 21600);
    assert_int_equal(c.hour_slots, 10920);
    s = sc_metric_store_create(&c);
    assert_non_null(s);
    /* a value each minute for the first day, then one an hour for 450 days */
    for (int64_t i = 0; i < day; i++)
        put1(s, "App", "X", NULL, 0, NULL, 1, T0 + i * MIN, T0 + i * MIN, NULL);
    for (int64_t i = day; i < 450 * day; i += 60)
        put1(s, "App", "X", NULL, 0, NULL, 2, T0 + i * MIN, T0 + i * MIN, NULL);
    m = find(s, "App", "X", NULL, 0);
    /* 14 days ago at minute resolution */
    assert_int_equal(
        sc_metric_aggregate(m, SC_UNIT_ANY, T0 + (450 - 14) * day * MIN, 60, NULL, 0, &ag), 1);
    assert_true(ag.sum == 2);
    /* 450 days ago (the first day) at hour resolution: the hour's 60 values */
    assert_int_equal(sc_metric_aggregate(m, SC_UNIT_ANY, T0, 3600, NULL, 0, &ag), 1);
    assert_true(ag.sample_count == 60);
    sc_metric_store_destroy(s);

    /* the defaults keep neither */
    sc_metric_config_defaults(&c);
    s = sc_metric_store_create(&c);
    for (int64_t i = 0; i < day; i++)
        put1(s, "App", "X", NULL, 0, NULL, 1, T0 + i * MIN, T0 + i * MIN, NULL);
    for (int64_t i = day; i < 450 * day; i += 60)
        put1(s, "App", "X", NULL, 0, NULL, 2, T0 + i * MIN, T0 + i * MIN, NULL);
    m = find(s, "App", "X", NULL, 0);
    assert_int_equal(
        sc_metric_aggregate(m, SC_UNIT_ANY, T0 + (450 - 14) * day * MIN, 60, NULL, 0, &ag), 0);
    assert_int_equal(sc_metric_aggregate(m, SC_UNIT_ANY, T0, 3600, NULL, 0, &ag), 0);
    sc_metric_store_destroy(s);
}

static void test_metric_retention_idle_series_expire(void **state)
{
    struct sc_metric_store *s = store_new();
    struct sc_dimension a[] = { { "InstanceId", "i-1" } }, b[] = { { "InstanceId", "i-2" } };
    size_t one;

    (void)state;
    put1(s, "App", "CPU", a, 1, NULL, 1, T0, T0, NULL);
    one = sc_metric_store_bytes(s);
    put1(s, "App", "CPU", b, 1, NULL, 1, T0 + 10 * 86400000LL, T0 + 10 * 86400000LL, NULL);
    assert_int_equal(sc_metric_store_expire(s, T0 + 16 * 86400000LL), 1);
    assert_int_equal(sc_metric_store_count(s), 1);
    assert_string_equal(sc_metric_dimension_at(sc_metric_store_at(s, 0), 0).value, "i-2");
    assert_null(find(s, "App", "CPU", a, 1));
    assert_true(sc_metric_store_bytes(s) <= one);
    sc_metric_store_destroy(s);
}

static void test_metric_list_filters_and_stable_order(void **state)
{
    struct sc_metric_store *s = store_new();
    struct sc_dimension a[] = { { "G", "g1" }, { "I", "i1" } }, b[] = { { "G", "g2" } };
    struct sc_dimension f_any[] = { { "G", NULL } }, f_g2[] = { { "G", "g2" } },
                        f_i[] = { { "I", NULL } };

    (void)state;
    put1(s, "N1", "M", a, 2, NULL, 1, T0, T0, NULL);
    put1(s, "N1", "M", b, 1, NULL, 1, T0, T0, NULL);
    put1(s, "N2", "M", NULL, 0, NULL, 1, T0, T0, NULL);
    assert_string_equal(sc_metric_namespace(sc_metric_store_at(s, 2)), "N2");
    assert_true(sc_metric_matches(sc_metric_store_at(s, 0), "N1", "M", f_any, 1));
    assert_true(sc_metric_matches(sc_metric_store_at(s, 1), "N1", NULL, f_any, 1));
    assert_false(sc_metric_matches(sc_metric_store_at(s, 2), NULL, NULL, f_any, 1));
    assert_false(sc_metric_matches(sc_metric_store_at(s, 0), NULL, NULL, f_g2, 1));
    assert_true(sc_metric_matches(sc_metric_store_at(s, 1), NULL, NULL, f_g2, 1));
    assert_true(sc_metric_matches(sc_metric_store_at(s, 0), NULL, "M", f_i, 1));
    assert_false(sc_metric_matches(sc_metric_store_at(s, 0), "N2", NULL, NULL, 0));
    sc_metric_store_destroy(s);
}

/* A table of malformed PutMetricData inputs: code and message. */
static void test_metric_put_validation_errors(void **state)
{
    struct sc_metric_store *s = store_new();
    struct sc_dimension dup[] = { { "A", "1" }, { "A", "2" } };
    struct sc_dimension noval[] = { { "A", "" } };
    struct sc_dimension many[31];
    double vals[151], counts[2] = { 1, 1 };
    char longname[300];
    struct {
        const char *what;
        const char *ns;
        struct sc_metric_datum d;
        enum sc_status code;
        const char *msg;
    } cases[] = {
        { "no namespace",
          NULL,
          { .metric_name = "M", .has_value = 1 },
          SC_ERR_MISSING_PARAMETER,
          "The parameter Namespace is required." },
        { "reserved namespace",
          "AWS/EC2",
          { .metric_name = "M", .has_value = 1 },
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The value AWS/ for parameter Namespace is invalid." },
        { "colon namespace",
          ":x",
          { .metric_name = "M", .has_value = 1 },
          SC_ERR_VALIDATION,
          "1 validation error detected: Value ':x' at 'namespace' failed to satisfy constraint: "
          "Member must satisfy regular expression pattern: [^:].*" },
        { "no metric name",
          "App",
          { .has_value = 1 },
          SC_ERR_MISSING_PARAMETER,
          "The parameter MetricData.member.1.MetricName is required." },
        { "no value",
          "App",
          { .metric_name = "M" },
          SC_ERR_MISSING_PARAMETER,
          "At least one of the parameters MetricData.member.1.Value, MetricData.member.1.Values "
          "or MetricData.member.1.StatisticValues must be specified." },
        { "value and set",
          "App",
          { .metric_name = "M", .has_value = 1, .has_statistic_values = 1 },
          SC_ERR_INVALID_PARAMETER_COMBINATION,
          "The parameters MetricData.member.1.Value and MetricData.member.1.StatisticValues are "
          "mutually exclusive and you have specified both." },
        { "NaN",
          "App",
          { .metric_name = "M", .has_value = 1, .value = NAN },
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The value NaN for parameter MetricData.member.1.Value is invalid." },
        { "Infinity",
          "App",
          { .metric_name = "M", .has_value = 1, .value = INFINITY },
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The value Infinity for parameter MetricData.member.1.Value is invalid." },
        { "above 2^360",
          "App",
          { .metric_name = "M", .has_value = 1, .value = 0x1p361 },
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The value 4.6970851655476665E108 for parameter MetricData.member.1.Value is invalid." },
        { "31 dimensions",
          "App",
          { .metric_name = "M", .has_value = 1, .dimensions = many, .n_dimensions = 31 },
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The collection MetricData.member.1.Dimensions must not have a size greater than 30." },
        { "empty dimension value",
          "App",
          { .metric_name = "M", .has_value = 1, .dimensions = noval, .n_dimensions = 1 },
          SC_ERR_MISSING_PARAMETER,
          "The parameter MetricData.member.1.Dimensions.member.1.Value is required." },
        { "repeated dimension",
          "App",
          { .metric_name = "M", .has_value = 1, .dimensions = dup, .n_dimensions = 2 },
          SC_ERR_INVALID_PARAMETER_VALUE,
          "No Metric Dimension names may be repeated. MetricData.member.1.Dimensions.member.2 "
          "repeats A." },
        { "151 values",
          "App",
          { .metric_name = "M", .values = vals, .n_values = 151 },
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The collection MetricData.member.1.Values must not have a size greater than 150." },
        { "counts length",
          "App",
          { .metric_name = "M", .values = vals, .n_values = 3, .counts = counts, .n_counts = 2 },
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The parameters MetricData.member.1.Values and MetricData.member.1.Counts must be of "
          "the same size." },
        { "set missing sum",
          "App",
          { .metric_name = "M",
            .has_statistic_values = 1,
            .statistic_values = { 1, 0, 1, 1, 1, 0, 1, 1 } },
          SC_ERR_MISSING_PARAMETER,
          "The parameter MetricData.member.1.StatisticValues.Sum is required." },
        { "set max below min",
          "App",
          { .metric_name = "M",
            .has_statistic_values = 1,
            .statistic_values = { 1, 1, 5, 1, 1, 1, 1, 1 } },
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The parameter MetricData.member.1.StatisticValues.Maximum must be greater than "
          "MetricData.member.1.StatisticValues.Minimum." },
        { "bad unit",
          "App",
          { .metric_name = "M", .has_value = 1, .unit = "Furlongs" },
          SC_ERR_INVALID_PARAMETER_VALUE,
          NULL },
        { "resolution 5",
          "App",
          { .metric_name = "M", .has_value = 1, .storage_resolution = 5 },
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The parameter MetricData.member.1.StorageResolution must be either 1 or 60." },
        { "two weeks old",
          "App",
          { .metric_name = "M",
            .has_value = 1,
            .has_timestamp = 1,
            .timestamp_ms = T0 - 15 * 86400000LL },
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The parameter MetricData.member.1.Timestamp must specify a time within the past two "
          "weeks." },
        { "three hours ahead",
          "App",
          { .metric_name = "M",
            .has_value = 1,
            .has_timestamp = 1,
            .timestamp_ms = T0 + 3 * 3600000LL },
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The parameter MetricData.member.1.Timestamp must specify a time within the past two "
          "weeks." },
        { "long name",
          "App",
          { .metric_name = longname, .has_value = 1 },
          SC_ERR_VALIDATION,
          NULL },
    };

    (void)state;
    for (int i = 0; i < 31; i++)
        many[i] = (struct sc_dimension){ "D", "v" };
    for (int i = 0; i < 151; i++)
        vals[i] = i;
    memset(longname, 'x', 256);
    longname[256] = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sc_put_metric_data_req r = { cases[i].ns, &cases[i].d, 1, 0 };
        struct sc_error err = { 0 };
        enum sc_status st = sc_metric_store_put(s, &r, T0, &err);
        if (st != cases[i].code || (cases[i].msg && strcmp(err.message, cases[i].msg) != 0))
            fail_msg("%s: got %d '%s'", cases[i].what, st, err.message);
    }
    /* nothing was stored by failing requests */
    assert_int_equal(sc_metric_store_count(s), 0);
    sc_metric_store_destroy(s);
}

static void test_metric_put_internal_allows_aws_namespace(void **state)
{
    struct sc_metric_store *s = store_new();
    struct sc_metric_datum d = { .metric_name = "CPUUtilization", .has_value = 1, .value = 3 };
    struct sc_put_metric_data_req r = { "AWS/EC2", &d, 1, 1 };

    (void)state;
    assert_int_equal(sc_metric_store_put(s, &r, T0, NULL), SC_OK);
    sc_metric_store_destroy(s);
}

static void test_metric_failing_request_stores_nothing(void **state)
{
    struct sc_metric_store *s = store_new();
    struct sc_metric_datum d[2] = { { .metric_name = "ok", .has_value = 1 },
                                    { .metric_name = "bad", .has_value = 1, .value = NAN } };
    struct sc_put_metric_data_req r = { "App", d, 2, 0 };
    struct sc_error err;

    (void)state;
    assert_int_equal(sc_metric_store_put(s, &r, T0, &err), SC_ERR_INVALID_PARAMETER_VALUE);
    assert_string_equal(err.message,
                        "The value NaN for parameter MetricData.member.2.Value is invalid.");
    assert_int_equal(sc_metric_store_count(s), 0);
    sc_metric_store_destroy(s);
}

static void test_metric_java_double_format(void **state)
{
    struct {
        double v;
        const char *s;
    } cases[] = { { 70, "70.0" },
                  { 0, "0.0" },
                  { 21.5, "21.5" },
                  { 0.001, "0.001" },
                  { 1e-4, "1.0E-4" },
                  { 1e7, "1.0E7" },
                  { 1234567, "1234567.0" },
                  { -2.5, "-2.5" },
                  { 0.1 + 0.2, "0.30000000000000004" },
                  { 38.958, "38.958" },
                  { 12345678.9, "1.23456789E7" } };
    char buf[40];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sc_java_double(cases[i].v, buf, sizeof(buf));
        assert_string_equal(buf, cases[i].s);
    }
}

static void test_metric_deterministic_aggregates(void **state)
{
    struct sc_metric_store *a = store_new(), *b = store_new();
    struct sc_agg x, y;
    double p[] = { 50, 99 };

    (void)state;
    for (int i = 0; i < 500; i++) {
        double v = (double)((i * 7919) % 1000) / 7.0;
        put1(a, "App", "X", NULL, 0, NULL, v, T0 + (i % 10) * MIN, T0 + 10 * MIN, NULL);
        put1(b, "App", "X", NULL, 0, NULL, v, T0 + (i % 10) * MIN, T0 + 10 * MIN, NULL);
    }
    sc_metric_aggregate(find(a, "App", "X", NULL, 0), SC_UNIT_ANY, T0, 600, p, 2, &x);
    sc_metric_aggregate(find(b, "App", "X", NULL, 0), SC_UNIT_ANY, T0, 600, p, 2, &y);
    assert_memory_equal(&x, &y, sizeof(x));
    sc_metric_store_destroy(a);
    sc_metric_store_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metric_identity_dimension_order_insensitive),
        cmocka_unit_test(test_metric_units_are_separate_series),
        cmocka_unit_test(test_metric_default_unit_none),
        cmocka_unit_test(test_metric_aggregation_basic_statistics),
        cmocka_unit_test(test_metric_values_and_counts),
        cmocka_unit_test(test_metric_statistic_set),
        cmocka_unit_test(test_metric_statistic_set_percentile_when_min_equals_max),
        cmocka_unit_test(test_metric_percentile_nearest_rank_exact_per_minute),
        cmocka_unit_test(test_metric_percentile_histogram_error_bound),
        cmocka_unit_test(test_metric_percentile_none_with_negative_value),
        cmocka_unit_test(test_metric_stat_parse),
        cmocka_unit_test(test_metric_high_resolution_periods),
        cmocka_unit_test(test_metric_retention_minute_ring_bounded),
        cmocka_unit_test(test_metric_memory_follows_data),
        cmocka_unit_test(test_metric_rings_grow_as_dense_rings),
        cmocka_unit_test(test_metric_series_cap),
        cmocka_unit_test(test_metric_retention_aws_tiers),
        cmocka_unit_test(test_metric_retention_idle_series_expire),
        cmocka_unit_test(test_metric_list_filters_and_stable_order),
        cmocka_unit_test(test_metric_put_validation_errors),
        cmocka_unit_test(test_metric_put_internal_allows_aws_namespace),
        cmocka_unit_test(test_metric_failing_request_stores_nothing),
        cmocka_unit_test(test_metric_java_double_format),
        cmocka_unit_test(test_metric_deterministic_aggregates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
