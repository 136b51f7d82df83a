/* tests/unit/scaler/test_math.c: metric math (docs/metric-math.md), one test per rule:
 * precedence, alignment with missing values as 0, the guide's comparison and IF tables,
 * division by zero, FILL / RATE / DIFF / DIFF_TIME / RUNNING_SUM, aggregates, arrays
 * (METRICS, SORT, SLICE, FIRST, LAST, REMOVE_EMPTY), TIME_SERIES and dates, SEARCH's
 * tokens, labels (defaults and dynamic), and the errors (positions, unknown Ids, cycles,
 * scalar results, depth). Data goes through a real metric store. */
#include "scaler/math.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define T0  1796155860000LL /* 2026-12-01T20:11:00Z, minute-aligned */
#define MIN 60000LL
#define NaV (-12345.0) /* "no value" in the expectation tables */

static struct sc_metric_store *store;

static void put(const char *name, int minute, double v)
{
    struct sc_dimension d = { "Host", "a" };
    struct sc_metric_datum md;
    struct sc_put_metric_data_req r;
    struct sc_error err;

    memset(&md, 0, sizeof(md));
    md.metric_name = name;
    md.dimensions = &d;
    md.n_dimensions = 1;
    md.has_timestamp = 1;
    md.timestamp_ms = T0 + minute * MIN;
    md.has_value = 1;
    md.value = v;
    memset(&r, 0, sizeof(r));
    r.namespace = "Test";
    r.metric_data = &md;
    r.n_metric_data = 1;
    assert_int_equal(sc_metric_store_put(store, &r, T0 + 30 * MIN, &err), SC_OK);
}

/* metric1 [30, 20, 0, 0], metric2 [20, -, 20, -], metric3 [0, 0, 20, -, 20] and the IF
 * table's [1, 1, 0, 0, -] / [30, -, 0, 0, 30] from the user guide, minutes 0..4. */
static int setup(void **state)
{
    (void)state;
    store = sc_metric_store_create(NULL);
    put("metric1", 0, 30);
    put("metric1", 1, 20);
    put("metric1", 2, 0);
    put("metric1", 3, 0);
    put("metric2", 0, 20);
    put("metric2", 2, 20);
    put("c", 0, 1);
    put("c", 1, 1);
    put("c", 2, 0);
    put("c", 3, 0);
    put("t", 0, 30);
    put("t", 2, 0);
    put("t", 3, 0);
    put("t", 4, 30);
    put("f", 0, 0);
    put("f", 1, 0);
    put("f", 2, 20);
    put("f", 4, 20);
    put("gap", 0, 10);
    put("gap", 3, 40);
    put("CustomCount1", 0, 5);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sc_metric_store_destroy(store);
    return 0;
}

static struct sc_math_query stat_q(const char *id, const char *name)
{
    static struct sc_dimension d = { "Host", "a" };
    struct sc_math_query q;

    memset(&q, 0, sizeof(q));
    q.id = id;
    q.return_data = 0;
    q.period_s = 60;
    q.metric.namespace = "Test";
    q.metric.metric_name = name;
    q.metric.dimensions = &d;
    q.metric.n_dimensions = 1;
    q.stat = "Average";
    return q;
}

static struct sc_math_query expr_q(const char *id, const char *e)
{
    struct sc_math_query q;

    memset(&q, 0, sizeof(q));
    q.id = id;
    q.expression = e;
    q.return_data = 1;
    return q;
}

/* Runs the standard queries m1..m3 (metric1, metric2, gap), c, t, f plus expression e over
 * minutes 0..4 (5 minutes when n_min is 0). Returns the program (results checked by the
 * caller), or NULL with err set. */
static struct sc_math_program *run_n(const char *e, const char *label, int n_min,
                                     struct sc_math_error *err, enum sc_status *st)
{
    struct sc_math_query q[8];
    struct sc_math_program *p = NULL;

    q[0] = stat_q("m1", "metric1");
    q[1] = stat_q("m2", "metric2");
    q[2] = stat_q("m3", "gap");
    q[3] = stat_q("c", "c");
    q[4] = stat_q("t", "t");
    q[5] = stat_q("f", "f");
    q[6] = stat_q("cc", "CustomCount1");
    q[7] = expr_q("e1", e);
    q[7].label = label;
    *st = sc_math_program_create(q, 8, 0, &p, err);
    if (*st != SC_OK)
        return NULL;
    *st = sc_math_program_run(p, store, T0, T0 + (n_min ? n_min : 5) * MIN, T0 + 30 * MIN, err);
    if (*st != SC_OK) {
        sc_math_program_destroy(p);
        return NULL;
    }
    return p;
}

/* The expression's single series against five expected values (NaV = no point). */
static void expect5(const char *e, const double want[5])
{
    struct sc_math_error err;
    enum sc_status st;
    struct sc_math_program *p = run_n(e, NULL, 5, &err, &st);
    const struct sc_math_series *s;
    int k = 0;

    if (!p)
        fail_msg("%s: %s", e, err.msg);
    assert_int_equal(sc_math_program_result_count(p), 1);
    s = sc_math_program_result(p, 0)->series;
    for (int i = 0; i < 5; i++) {
        if (want[i] == NaV) {
            if (k < s->n && s->ts[k] == T0 + i * MIN)
                fail_msg("%s: minute %d has %g, expected no point", e, i, s->v[k]);
            continue;
        }
        if (k >= s->n || s->ts[k] != T0 + i * MIN)
            fail_msg("%s: minute %d has no point, expected %g", e, i, want[i]);
        if (fabs(s->v[k] - want[i]) > 1e-9)
            fail_msg("%s: minute %d is %g, expected %g", e, i, s->v[k], want[i]);
        k++;
    }
    assert_int_equal(k, s->n);
    sc_math_program_destroy(p);
}

static void expect_error(const char *e, const char *msg)
{
    struct sc_math_error err;
    enum sc_status st;
    struct sc_math_program *p = run_n(e, NULL, 5, &err, &st);

    assert_null(p);
    assert_int_equal(st, SC_ERR_VALIDATION);
    assert_int_equal(err.query, 7);
    assert_string_equal(err.msg, msg);
}

/* --- precedence ------------------------------------------------------------------------- */

static void test_math_precedence_pow_binds_tighter_than_unary_minus(void **state)
{
    const double w[5] = { -4, -4, -4, -4, -4 };
    const double w2[5] = { 512, 512, 512, 512, 512 };

    (void)state;
    expect5("TIME_SERIES(-2^2)", w);
    expect5("TIME_SERIES(2^3^2)", w2); /* right-associative */
}

static void test_math_precedence_mul_before_add_before_comparison_before_logic(void **state)
{
    const double w[5] = { 7, 7, 7, 7, 7 }, w1[5] = { 1, 1, 1, 1, 1 }, w0[5] = { 0, 0, 0, 0, 0 };

    (void)state;
    expect5("TIME_SERIES(1 + 2 * 3)", w);
    expect5("TIME_SERIES((1 + 2) * 3 - 2)", w);
    expect5("TIME_SERIES(1 + 1 == 2 AND 3 > 2)", w1);
    expect5("TIME_SERIES(0 OR 1 && 0)", w0); /* AND before OR */
    expect5("TIME_SERIES(8 / 4 / 2 - 1)", w0);
}

/* --- alignment ---------------------------------------------------------------------------- */

static void test_math_align_union_of_timestamps_missing_counts_as_zero(void **state)
{
    const double add[5] = { 50, 20, 20, 0, NaV }, lt[5] = { 0, 0, 1, 0, NaV };

    (void)state;
    expect5("m1 + m2", add);
    expect5("(m1 < m2)", lt); /* the guide's table */
}

static void test_math_comparison_and_logic_guide_table(void **state)
{
    const double ge[5] = { 1, 0, 0, 0, NaV }, both[5] = { 1, 0, 0, 0, NaV };

    (void)state;
    expect5("(m1 >= 30)", ge);
    expect5("(m1 > 15 AND m2 > 15)", both);
}

static void test_math_series_scalar_arithmetic_per_point(void **state)
{
    const double w[5] = { 150, 100, 0, 0, NaV }, neg[5] = { -30, -20, 0, 0, NaV };

    (void)state;
    expect5("5 * m1", w);
    expect5("-m1", neg);
}

static void test_math_division_by_zero_drops_the_point(void **state)
{
    const double w[5] = { 1.5, NaV, 0, NaV, NaV };
    struct sc_math_error err;
    enum sc_status st;
    struct sc_math_program *p;

    (void)state;
    expect5("m1 / m2", w);
    p = run_n("m1 / m2", NULL, 5, &err, &st);
    assert_non_null(p);
    assert_int_equal(sc_math_program_result(p, 0)->dropped, 2);
    sc_math_program_destroy(p);
}

/* --- IF ----------------------------------------------------------------------------------- */

static void test_math_if_guide_tables(void **state)
{
    const double tsts[5] = { 30, 0, 20, NaV, NaV }, stst[5] = { 5, 5, 20, NaV, NaV },
                 tss[5] = { 30, 0, 5, 5, NaV }, lows[5] = { NaV, 20, 0, 0, NaV };

    (void)state;
    expect5("IF(c, t, f)", tsts);
    expect5("IF(c, 5, f)", stst);
    expect5("IF(c, t, 5)", tss);
    expect5("IF(m1 < 25, m1)", lows);
}

/* --- FILL, RATE, DIFF ---------------------------------------------------------------------- */

static void test_math_fill_constant_series_repeat_linear(void **state)
{
    const double c[5] = { 10, 0, 0, 40, 0 }, rep[5] = { 10, 10, 10, 40, 40 },
                 lin[5] = { 10, 20, 30, 40, NaV }, ser[5] = { 10, 20, 0, 40, NaV };

    (void)state;
    expect5("FILL(m3, 0)", c);
    expect5("FILL(m3, REPEAT)", rep);
    expect5("FILL(m3, LINEAR)", lin);
    expect5("FILL(m3, m1)", ser); /* minute 4: m1 has no point there either */
}

static void test_math_rate_diff_difftime_first_point_dropped(void **state)
{
    const double diff[5] = { NaV, NaV, NaV, 30, NaV }, dt[5] = { NaV, NaV, NaV, 180, NaV },
                 rate[5] = { NaV, NaV, NaV, 30.0 / 180, NaV }, d1[5] = { NaV, -10, -20, 0, NaV };

    (void)state;
    expect5("DIFF(m3)", diff);
    expect5("DIFF_TIME(m3)", dt);
    expect5("RATE(m3)", rate);
    expect5("DIFF(m1)", d1);
}

static void test_math_running_sum(void **state)
{
    const double w[5] = { 30, 50, 50, 50, NaV };

    (void)state;
    expect5("RUNNING_SUM(m1)", w);
}

/* --- aggregates ----------------------------------------------------------------------------- */

static void test_math_aggregate_of_series_is_scalar(void **state)
{
    const double w[5] = { 17.5, 7.5, -12.5, -12.5, NaV }, mx[5] = { 1, 20.0 / 30, 0, 0, NaV },
                 cnt[5] = { 12.5, 12.5, 12.5, 12.5, 12.5 };

    (void)state;
    expect5("m1 - AVG(m1)", w);
    expect5("m1 / MAX(m1)", mx);
    expect5("TIME_SERIES(SUM(m1) / DATAPOINT_COUNT(m1))", cnt);
}

static void test_math_aggregate_of_array_avg_counts_missing_as_zero(void **state)
{
    const double avg[5] = { 25, 10, 10, 0, NaV }, mx[5] = { 30, 20, 20, 0, NaV },
                 cnt[5] = { 2, 1, 2, 1, NaV };

    (void)state;
    expect5("AVG([m1, m2])", avg);
    expect5("MAX([m1, m2])", mx);
    expect5("DATAPOINT_COUNT([m1, m2])", cnt);
}

static void test_math_stddev_is_population(void **state)
{
    const double v = sqrt(675.0 / 4), w[5] = { v, v, v, v, v };

    (void)state;
    expect5("TIME_SERIES(STDDEV(m1))", w); /* mean 12.5, deviations 17.5 7.5 12.5 12.5 */
}

/* --- arrays ------------------------------------------------------------------------------- */

static void test_math_metrics_filter_sort_slice_first_last(void **state)
{
    const double first[5] = { 30, 20, 0, 0, NaV }, sum[5] = { 50, 20, 20, 0, NaV },
                 last[5] = { 10, NaV, NaV, 40, NaV };

    (void)state;
    expect5("FIRST(SORT(METRICS(\"m\"), MAX, DESC))", last); /* gap: max 40 */
    expect5("LAST(SORT(METRICS(\"m\"), MAX, DESC, 2))", first);
    expect5("SUM(SLICE(METRICS(\"m\"), 0, 2))", sum);
    expect5("SLICE(METRICS(\"m\"), 2)", last);
}

static void test_math_metrics_returns_one_result_per_series(void **state)
{
    struct sc_math_error err;
    enum sc_status st;
    struct sc_math_program *p = run_n("METRICS(\"m\") * 2", "x2", 5, &err, &st);

    (void)state;
    assert_non_null(p);
    assert_int_equal(sc_math_program_result_count(p), 3);
    assert_string_equal(sc_math_program_result(p, 0)->label, "x2 metric1");
    assert_string_equal(sc_math_program_result(p, 2)->label, "x2 gap");
    assert_int_equal(sc_math_program_result(p, 1)->series->n, 2);
    sc_math_program_destroy(p);
    p = run_n("REMOVE_EMPTY([m1, FILL(m2, m2)]) ", NULL, 5, &err, &st);
    assert_non_null(p);
    assert_int_equal(sc_math_program_result_count(p), 2);
    sc_math_program_destroy(p);
}

static void test_math_period_time_series_and_dates(void **state)
{
    const double per[5] = { 0.5, 1.0 / 3, 0, 0, NaV }, dow[5] = { 2, 2, 2, 2, 2 },
                 hr[5] = { 20, 20, 20, 20, 20 }, mi[5] = { 11, 12, 13, 14, 15 };

    (void)state;
    expect5("m1 / PERIOD(m1)", per);
    expect5("DAY(m1)", dow); /* 2026-12-01 is a Tuesday */
    expect5("HOUR(m1)", hr);
    expect5("MINUTE(m1)", mi);
}

/* --- SEARCH -------------------------------------------------------------------------------- */

static void search_count(const char *expr, int want)
{
    struct sc_math_error err;
    enum sc_status st;
    struct sc_math_program *p = run_n(expr, NULL, 5, &err, &st);

    if (!p)
        fail_msg("%s: %s", expr, err.msg);
    if (sc_math_program_result_count(p) != want)
        fail_msg("%s: %d series, expected %d", expr, sc_math_program_result_count(p), want);
    sc_math_program_destroy(p);
}

static void test_math_search_tokens_exact_schema_and_designators(void **state)
{
    (void)state;
    search_count("SEARCH('{Test,Host} metric1', 'Average')", 1);
    search_count("SEARCH('{Test,Host}', 'Average')", 7);
    search_count("SEARCH('{Test}', 'Average')", 0); /* schema names every dimension */
    search_count("SEARCH('count', 'Sum')", 1);      /* a token, any case */
    search_count("SEARCH('COUNT', 'Sum')", 1);
    search_count("SEARCH('couNT', 'Sum')", 0);       /* cou + NT */
    search_count("SEARCH('CustomCount', 'Sum')", 1); /* composite, case-sensitive */
    search_count("SEARCH('customcount', 'Sum')", 0);
    search_count("SEARCH('\"CustomCount1\"', 'Sum')", 1);
    search_count("SEARCH('\"Custom\"', 'Sum')", 0);
    search_count("SEARCH('MetricName=\"metric2\" OR MetricName=gap', 'Sum')", 2);
    search_count("SEARCH('Host=a NOT metric1', 'Sum')", 6);
    search_count("SEARCH('Host=b', 'Sum')", 0);
}

static void test_math_search_series_labels(void **state)
{
    struct sc_math_error err;
    enum sc_status st;
    struct sc_math_program *p = run_n("SEARCH('MetricName=gap', 'Maximum')", NULL, 5, &err, &st);

    (void)state;
    assert_non_null(p);
    assert_string_equal(sc_math_program_result(p, 0)->label, "gap a");
    assert_int_equal(sc_math_program_result(p, 0)->series->n, 2);
    sc_math_program_destroy(p);
}

/* --- labels -------------------------------------------------------------------------------- */

static void test_math_labels_default_id_and_dynamic(void **state)
{
    struct sc_math_error err;
    enum sc_status st;
    struct sc_math_program *p = run_n("m1 * 1", NULL, 5, &err, &st);

    (void)state;
    assert_string_equal(sc_math_program_result(p, 0)->label, "e1");
    sc_math_program_destroy(p);
    p = run_n("m1 * 1", "${LABEL} max ${MAX} avg ${AVG} n ${DATAPOINT_COUNT} ${PROP('Dim.Host')}",
              5, &err, &st);
    assert_string_equal(sc_math_program_result(p, 0)->label, "e1 max 30 avg 12.5 n 4 a");
    sc_math_program_destroy(p);
    p = run_n("m1 * 1", "${FIRST_TIME} ${LAST} ${UNKNOWN}", 5, &err, &st);
    assert_string_equal(sc_math_program_result(p, 0)->label, "2026-12-01T20:11:00Z 0 ${UNKNOWN}");
    sc_math_program_destroy(p);
}

/* --- errors -------------------------------------------------------------------------------- */

static void test_math_error_parse_positions(void **state)
{
    (void)state;
    expect_error("m1 +", "Error in expression e1: Syntax error at position 5");
    expect_error("m1 + * m2", "Error in expression e1: Syntax error at position 6");
    expect_error("(m1", "Error in expression e1: Syntax error at position 4");
    expect_error("FOO(m1)", "Error in expression e1: Unknown function FOO at position 1");
    expect_error("INSIGHT_RULE_METRIC(m1)",
                 "Error in expression e1: The function INSIGHT_RULE_METRIC is not supported "
                 "by scalelab at position 1");
    expect_error("METRICS('x", "Error in expression e1: Unterminated string at position 9");
    expect_error("", "Error in expression e1: Empty expression at position 1");
}

static void test_math_error_unknown_id_and_cycle(void **state)
{
    struct sc_math_query q[3];
    struct sc_math_program *p = NULL;
    struct sc_math_error err;

    (void)state;
    expect_error("m1 + zz", "Error in expression e1: Unrecognized identifier zz at position 6");
    q[0] = expr_q("e1", "e2 + 1");
    q[1] = expr_q("e2", "e3 * 2");
    q[2] = expr_q("e3", "e1");
    assert_int_equal(sc_math_program_create(q, 3, 0, &p, &err), SC_ERR_VALIDATION);
    assert_null(p);
    assert_string_equal(err.msg, "Error in expression e1: Circular dependency between expressions");
    q[0] = expr_q("e1", "e1");
    assert_int_equal(sc_math_program_create(q, 1, 0, &p, &err), SC_ERR_VALIDATION);
}

static void test_math_error_scalar_result_and_bad_arguments(void **state)
{
    (void)state;
    expect_error("AVG(m1)", "Error in expression e1: The expression must return a time series or "
                            "an array of time series");
    expect_error("FILL(m1, UP)", "Error in expression e1: Invalid arguments for FILL");
    expect_error("METRICS() + METRICS()",
                 "Error in expression e1: Invalid arguments for operator: two arrays of time "
                 "series");
    expect_error("SORT(METRICS(), AVG, UP)", "Error in expression e1: Invalid arguments for SORT");
}

static void test_math_error_depth_bounded(void **state)
{
    char e[400];
    size_t o = 0;

    (void)state;
    for (int i = 0; i < 100; i++)
        e[o++] = '(';
    e[o++] = 'm';
    e[o++] = '1';
    for (int i = 0; i < 100; i++)
        e[o++] = ')';
    e[o] = 0;
    expect_error(e, "Error in expression e1: Expression too deep at position 33");
}

static void test_math_search_not_allowed_in_alarms(void **state)
{
    struct sc_math_query q = expr_q("e1", "SUM(SEARCH('{Test,Host}', 'Sum'))");
    struct sc_math_program *p = NULL;
    struct sc_math_error err;

    (void)state;
    assert_int_equal(sc_math_program_create(&q, 1, 1, &p, &err), SC_ERR_VALIDATION);
    assert_int_equal(sc_math_program_create(&q, 1, 0, &p, &err), SC_OK);
    sc_math_program_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_math_precedence_pow_binds_tighter_than_unary_minus),
        cmocka_unit_test(test_math_precedence_mul_before_add_before_comparison_before_logic),
        cmocka_unit_test(test_math_align_union_of_timestamps_missing_counts_as_zero),
        cmocka_unit_test(test_math_comparison_and_logic_guide_table),
        cmocka_unit_test(test_math_series_scalar_arithmetic_per_point),
        cmocka_unit_test(test_math_division_by_zero_drops_the_point),
        cmocka_unit_test(test_math_if_guide_tables),
        cmocka_unit_test(test_math_fill_constant_series_repeat_linear),
        cmocka_unit_test(test_math_rate_diff_difftime_first_point_dropped),
        cmocka_unit_test(test_math_running_sum),
        cmocka_unit_test(test_math_aggregate_of_series_is_scalar),
        cmocka_unit_test(test_math_aggregate_of_array_avg_counts_missing_as_zero),
        cmocka_unit_test(test_math_stddev_is_population),
        cmocka_unit_test(test_math_metrics_filter_sort_slice_first_last),
        cmocka_unit_test(test_math_metrics_returns_one_result_per_series),
        cmocka_unit_test(test_math_period_time_series_and_dates),
        cmocka_unit_test(test_math_search_tokens_exact_schema_and_designators),
        cmocka_unit_test(test_math_search_series_labels),
        cmocka_unit_test(test_math_labels_default_id_and_dynamic),
        cmocka_unit_test(test_math_error_parse_positions),
        cmocka_unit_test(test_math_error_unknown_id_and_cycle),
        cmocka_unit_test(test_math_error_scalar_result_and_bad_arguments),
        cmocka_unit_test(test_math_error_depth_bounded),
        cmocka_unit_test(test_math_search_not_allowed_in_alarms),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
