/* tests/unit/scaler/test_alarm.c: scaler/alarm.c (evaluation, reasons, history, describes) */
#include "scaler/alarm.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define T0  1767225600000LL /* 2026-01-01T00:00:00Z */
#define MIN 60000LL
#define AS_ARN                                                                                     \
    "arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:u:autoScalingGroupName/g:policyName/up"
#define SNS_ARN "arn:aws:sns:us-east-1:123456789012:topic"

struct fx {
    struct sc_metric_store *store;
    struct sc_alarms *alarms;
};

static void fx_init(struct fx *f)
{
    f->store = sc_metric_store_create(NULL);
    f->alarms = sc_alarms_create(NULL);
    assert_non_null(f->store);
    assert_non_null(f->alarms);
}

static void fx_cleanup(struct fx *f)
{
    sc_metric_store_destroy(f->store);
    sc_alarms_destroy(f->alarms);
}

static void put(struct fx *f, double v, int64_t ts, int64_t now)
{
    struct sc_metric_datum d = { 0 };
    struct sc_put_metric_data_req r = { 0 };

    d.metric_name = "M";
    d.has_value = 1;
    d.value = v;
    d.has_timestamp = 1;
    d.timestamp_ms = ts;
    r.namespace = "App";
    r.metric_data = &d;
    r.n_metric_data = 1;
    assert_int_equal(sc_metric_store_put(f->store, &r, now, NULL), SC_OK);
}

static struct sc_put_metric_alarm_req base_req(const char *name, int period, int n, int m,
                                               const char *op, double threshold, const char *tmd)
{
    struct sc_put_metric_alarm_req r;

    memset(&r, 0, sizeof(r));
    r.alarm_name = name;
    r.metric_name = "M";
    r.namespace = "App";
    r.statistic = "Average";
    r.has_period = 1;
    r.period = period;
    r.has_evaluation_periods = 1;
    r.evaluation_periods = n;
    if (m > 0) {
        r.has_datapoints_to_alarm = 1;
        r.datapoints_to_alarm = m;
    }
    r.has_threshold = 1;
    r.threshold = threshold;
    r.comparison_operator = op;
    r.treat_missing_data = tmd;
    return r;
}

static void set_state(struct fx *f, const char *name, const char *state, int64_t now)
{
    struct sc_set_alarm_state_req s = { name, state, "test", NULL };
    assert_int_equal(sc_alarms_set_state(f->alarms, &s, now, NULL), SC_OK);
}

static enum sc_alarm_state state_of(struct fx *f, const char *name)
{
    return sc_alarms_find(f->alarms, name)->state;
}

/* --- the two tables of AlarmThatSendsEmail.html ------------------------------------------------
 */

/* Each row: 5 datapoints oldest -> newest ('0' non-breaching, 'X' breaching, '-' missing)
 * and the expected state per TreatMissingData (missing, ignore, breaching, notBreaching):
 * 'O' OK, 'A' ALARM, 'I' INSUFFICIENT_DATA, 'R' retain current state. */
struct row {
    const char *points;
    const char *expect;
};

static void run_table(int m, const struct row *rows, int nrows)
{
    static const char *const tmds[] = { "missing", "ignore", "breaching", "notBreaching" };
    static const char *const pre[] = { "OK", "ALARM" };
    const int64_t tick = T0 + 60 * MIN;

    for (int r = 0; r < nrows; r++) {
        for (int t = 0; t < 4; t++) {
            for (int p = 0; p < 2; p++) {
                struct fx f;
                struct sc_put_metric_alarm_req req =
                    base_req("a", 300, 3, m, "GreaterThanThreshold", 1.0, tmds[t]);
                enum sc_alarm_state want, got;
                fx_init(&f);
                assert_int_equal(sc_alarms_put(f.alarms, &req, T0, NULL), SC_OK);
                set_state(&f, "a", pre[p], T0);
                for (int i = 0; i < 5; i++) {
                    char c = rows[r].points[i * 2];
                    int k = 5 - i; /* slot: oldest is 5 */
                    if (c != '-')
                        put(&f, c == 'X' ? 2.0 : 0.0, tick - k * 300000LL, tick);
                }
                sc_alarms_evaluate(f.alarms, f.store, tick, NULL, NULL);
                switch (rows[r].expect[t]) {
                case 'O':
                    want = SC_ALARM_OK;
                    break;
                case 'A':
                    want = SC_ALARM_ALARM;
                    break;
                case 'I':
                    want = SC_ALARM_INSUFFICIENT_DATA;
                    break;
                default:
                    want = p ? SC_ALARM_ALARM : SC_ALARM_OK;
                    break;
                }
                got = state_of(&f, "a");
                if (got != want)
                    fail_msg("M=%d row '%s' %s from %s: got %s want %s", m, rows[r].points, tmds[t],
                             pre[p], sc_alarm_state_name(got), sc_alarm_state_name(want));
                fx_cleanup(&f);
            }
        }
    }
}

static void test_alarm_table_3_of_3(void **state)
{
    static const struct row rows[] = {
        { "0 - X - X", "OOOO" }, { "0 - - - -", "OOOO" }, { "- - - - -", "IRAO" },
        { "0 X X - X", "AAAA" }, { "- - - - X", "IRAO" }, { "X - - - -", "ARAO" },
    };
    (void)state;
    run_table(3, rows, 6);
}

static void test_alarm_table_2_of_3(void **state)
{
    static const struct row rows[] = {
        { "0 - X - X", "AAAA" }, { "0 0 X 0 X", "AAAA" }, { "0 - X - -", "OOAO" },
        { "- - - - 0", "OOAO" }, { "- - - - X", "IRAO" },
    };
    (void)state;
    run_table(2, rows, 5);
}

/* --- evaluation rules ------------------------------------------------------------------------- */

static void test_alarm_windows_slide_by_minute(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", 300, 1, 0, "GreaterThanThreshold", 1, NULL);

    (void)state;
    fx_init(&f);
    sc_alarms_put(f.alarms, &r, T0, NULL);
    put(&f, 5, T0 + 30000, T0 + MIN); /* minute 0 */
    /* at minute 5 the slot is [0, 5 min): breaching */
    sc_alarms_evaluate(f.alarms, f.store, T0 + 5 * MIN, NULL, NULL);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_ALARM);
    /* at minute 6 the slot is [1, 6 min): the point is in slot 2, outside N=1 but in R=3;
     * fewer than N real in slot 1 -> missing -> only breaching point, oldest slot 2 >= M=1 */
    put(&f, 0, T0 + 5 * MIN, T0 + 6 * MIN);
    sc_alarms_evaluate(f.alarms, f.store, T0 + 6 * MIN, NULL, NULL);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_OK);
    fx_cleanup(&f);
}

/* The alarm reads whichever metric the store holds at each evaluation: one created after
 * the alarm's first evaluation, none once retention freed it, a new one put again. */
static void test_alarm_metric_followed_across_create_and_expiry(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r =
        base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, "missing");
    int64_t t = T0 + 10 * MIN;

    (void)state;
    fx_init(&f);
    sc_alarms_put(f.alarms, &r, T0, NULL);
    sc_alarms_evaluate(f.alarms, f.store, t, NULL, NULL);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_INSUFFICIENT_DATA);
    put(&f, 5, t, t);
    sc_alarms_evaluate(f.alarms, f.store, t + MIN, NULL, NULL);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_ALARM);
    /* retention frees the metric: nothing to read */
    assert_int_equal(sc_metric_store_expire(f.store, t + 30LL * 24 * 60 * MIN), 1);
    sc_alarms_evaluate(f.alarms, f.store, t + 2 * MIN, NULL, NULL);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_INSUFFICIENT_DATA);
    put(&f, 0, t + 2 * MIN, t + 3 * MIN);
    sc_alarms_evaluate(f.alarms, f.store, t + 3 * MIN, NULL, NULL);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_OK);
    fx_cleanup(&f);
}

/* StateReason and StateReasonData are those of the last transition: evaluations that keep
 * the state (with other datapoints) leave them as they were. */
static void test_alarm_reason_is_last_transitions(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL);
    char reason[1024], data[4096];
    int64_t t = T0 + 10 * MIN;

    (void)state;
    fx_init(&f);
    sc_alarms_put(f.alarms, &r, T0, NULL);
    put(&f, 5, t - MIN, t);
    sc_alarms_evaluate(f.alarms, f.store, t, NULL, NULL);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_ALARM);
    snprintf(reason, sizeof(reason), "%s", sc_alarms_find(f.alarms, "a")->state_reason);
    snprintf(data, sizeof(data), "%s", sc_alarms_find(f.alarms, "a")->state_reason_data);
    assert_non_null(strstr(reason, "[5.0 ("));
    for (int i = 1; i <= 3; i++) {
        put(&f, 7 + i, t + (i - 1) * MIN, t + i * MIN);
        sc_alarms_evaluate(f.alarms, f.store, t + i * MIN, NULL, NULL);
        assert_int_equal(state_of(&f, "a"), SC_ALARM_ALARM);
        assert_string_equal(sc_alarms_find(f.alarms, "a")->state_reason, reason);
        assert_string_equal(sc_alarms_find(f.alarms, "a")->state_reason_data, data);
    }
    /* the next transition brings its own */
    put(&f, 0, t + 3 * MIN, t + 4 * MIN);
    sc_alarms_evaluate(f.alarms, f.store, t + 4 * MIN, NULL, NULL);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_OK);
    assert_non_null(strstr(sc_alarms_find(f.alarms, "a")->state_reason, "[0.0 ("));
    fx_cleanup(&f);
}

/* A datapoint put late, into a minute older than the newest, counts at the next
 * evaluation of every window that holds it. */
static void test_alarm_late_datapoint_counts(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", 60, 3, 0, "GreaterThanThreshold", 1, NULL);
    int64_t t = T0 + 10 * MIN;

    (void)state;
    fx_init(&f);
    sc_alarms_put(f.alarms, &r, T0, NULL);
    for (int k = 3; k >= 1; k--)
        put(&f, 2, t - k * MIN, t);
    sc_alarms_evaluate(f.alarms, f.store, t, NULL, NULL);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_ALARM);
    put(&f, 2, t, t + MIN);
    sc_alarms_evaluate(f.alarms, f.store, t + MIN, NULL, NULL);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_ALARM);
    /* late: minute t - 1 min now averages (2 - 100) / 2 < 1 */
    put(&f, -100, t - MIN + 5000, t + MIN + 1000);
    put(&f, 2, t + MIN, t + 2 * MIN);
    sc_alarms_evaluate(f.alarms, f.store, t + 2 * MIN, NULL, NULL);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_OK);
    fx_cleanup(&f);
}

static void test_alarm_initial_state_insufficient_data(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL);
    const struct sc_alarm_view *v;

    (void)state;
    fx_init(&f);
    sc_alarms_put(f.alarms, &r, T0, NULL);
    v = sc_alarms_find(f.alarms, "a");
    assert_string_equal(v->state_value, "INSUFFICIENT_DATA");
    assert_string_equal(v->state_reason, "Unchecked: Initial alarm creation");
    assert_string_equal(v->alarm_arn, "arn:aws:cloudwatch:us-east-1:123456789012:alarm:a");
    assert_null(v->treat_missing_data);
    assert_int_equal(v->has_datapoints_to_alarm, 0);
    assert_int_equal(v->datapoints_to_alarm, 1);
    assert_null(v->unit);
    assert_int_equal(v->actions_enabled, 1);
    fx_cleanup(&f);
}

static void eval_reason(int64_t tick, int period, int n, int m, const char *op, double thr,
                        const char *tmd, const char *pre, const double *vals, const int *slots,
                        int nv, const char *want)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", period, n, m, op, thr, tmd);

    fx_init(&f);
    assert_int_equal(sc_alarms_put(f.alarms, &r, tick - 3600000, NULL), SC_OK);
    if (pre)
        set_state(&f, "a", pre, tick - 3600000);
    for (int i = 0; i < nv; i++)
        put(&f, vals[i], tick - (int64_t)slots[i] * period * 1000, tick);
    sc_alarms_evaluate(f.alarms, f.store, tick, NULL, NULL);
    assert_string_equal(sc_alarms_find(f.alarms, "a")->state_reason, want);
    fx_cleanup(&f);
}

static void test_alarm_reason_single_datapoint(void **state)
{
    double v[] = { 21.5 };
    int s[] = { 1 };
    (void)state;
    eval_reason(1698338580000LL, 60, 1, 0, "GreaterThanThreshold", 2, NULL, NULL, v, s, 1,
                "Threshold Crossed: 1 datapoint [21.5 (26/10/23 16:42:00)] was greater than the "
                "threshold (2.0).");
}

static void test_alarm_reason_m_of_n_to_alarm(void **state)
{
    double v[] = { 10.25, 10.0 };
    int s[] = { 1, 2 };
    (void)state;
    eval_reason(1601879400000LL, 300, 2, 2, "GreaterThanOrEqualToThreshold", 10, NULL, "OK", v, s,
                2,
                "Threshold Crossed: 2 out of the last 2 datapoints [10.25 (05/10/20 06:25:00), "
                "10.0 (05/10/20 06:20:00)] were greater than or equal to the threshold (10.0) "
                "(minimum 2 datapoints for OK -> ALARM transition).");
}

static void test_alarm_reason_alarm_to_ok_minimum(void **state)
{
    double v[] = { 0.0, 1.0, 0.0, 2.0, 0.0 };
    int s[] = { 1, 2, 3, 4, 5 };
    (void)state;
    eval_reason(1640069400000LL, 300, 5, 3, "GreaterThanThreshold", 0, NULL, "ALARM", v, s, 5,
                "Threshold Crossed: 3 out of the last 5 datapoints [0.0 (21/12/21 06:45:00), 1.0 "
                "(21/12/21 06:40:00), 0.0 (21/12/21 06:35:00), 2.0 (21/12/21 06:30:00), 0.0 "
                "(21/12/21 06:25:00)] were not greater than the threshold (0.0) (minimum 3 "
                "datapoints for ALARM -> OK transition).");
}

static void test_alarm_reason_missing_treated_as_breaching(void **state)
{
    (void)state;
    eval_reason(T0 + 60 * MIN, 60, 2, 0, "GreaterThanThreshold", 1, "breaching", NULL, NULL, NULL,
                0,
                "Threshold Crossed: no datapoints were received for 2 periods and 2 missing "
                "datapoints were treated as [Breaching].");
}

static void test_alarm_reason_missing_treated_as_non_breaching(void **state)
{
    (void)state;
    eval_reason(T0 + 60 * MIN, 60, 1, 0, "GreaterThanThreshold", 1, "notBreaching", "ALARM", NULL,
                NULL, 0,
                "Threshold Crossed: no datapoints were received for 1 period and 1 missing "
                "datapoint was treated as [NonBreaching].");
}

static void test_alarm_reason_some_received_rest_non_breaching(void **state)
{
    double v[] = { 0.5 };
    int s[] = { 2 };
    (void)state;
    eval_reason(T0 + 60 * MIN, 60, 4, 0, "GreaterThanThreshold", 1, "notBreaching", "ALARM", v, s,
                1,
                "Threshold Crossed: 1 datapoint was received for 4 periods and 3 missing "
                "datapoints were treated as [NonBreaching].");
}

static void test_alarm_reason_insufficient_data(void **state)
{
    (void)state;
    eval_reason(T0 + 60 * MIN, 60, 1, 0, "GreaterThanThreshold", 1, NULL, "OK", NULL, NULL, 0,
                "Insufficient Data: 1 datapoint was unknown.");
}

static void test_alarm_reason_data_json(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", 300, 1, 0, "GreaterThanThreshold", 70, NULL);
    const char *rd;

    (void)state;
    fx_init(&f);
    r.unit = "Percent";
    sc_alarms_put(f.alarms, &r, T0, NULL);
    {
        struct sc_metric_datum d = { .metric_name = "M",
                                     .has_value = 1,
                                     .value = 80,
                                     .has_timestamp = 1,
                                     .timestamp_ms = T0 + 5 * MIN,
                                     .unit = "Percent" };
        struct sc_put_metric_data_req pr = { "App", &d, 1, 0 };
        assert_int_equal(sc_metric_store_put(f.store, &pr, T0 + 10 * MIN, NULL), SC_OK);
        d.value = 90;
        d.timestamp_ms = T0 + 6 * MIN;
        assert_int_equal(sc_metric_store_put(f.store, &pr, T0 + 10 * MIN, NULL), SC_OK);
    }
    sc_alarms_evaluate(f.alarms, f.store, T0 + 10 * MIN, NULL, NULL);
    rd = sc_alarms_find(f.alarms, "a")->state_reason_data;
    assert_non_null(rd);
    assert_string_equal(rd,
                        "{\"version\":\"1.0\",\"queryDate\":\"2026-01-01T00:10:00.000+0000\","
                        "\"startDate\":\"2025-12-31T23:55:00.000+0000\",\"unit\":\"Percent\","
                        "\"statistic\":\"Average\",\"period\":300,\"recentDatapoints\":[85.0],"
                        "\"threshold\":70.0,\"evaluatedDatapoints\":[{\"timestamp\":"
                        "\"2026-01-01T00:05:00.000+0000\",\"sampleCount\":2.0,\"value\":85.0}]}");
    fx_cleanup(&f);
}

/* --- actions ------------------------------------------------------------------------------------
 */

struct calls {
    int n;
    char arns[32][200];
    const char *fail;
};

static const char *record_action(const char *arn, const struct sc_alarm_view *al, int64_t now,
                                 void *ud)
{
    struct calls *c = ud;
    (void)al;
    (void)now;
    if (c->n < 32)
        snprintf(c->arns[c->n], sizeof(c->arns[0]), "%s", arn);
    c->n++;
    return c->fail;
}

static void test_alarm_autoscaling_actions_repeat_each_minute(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL);
    const char *acts[] = { AS_ARN, SNS_ARN };
    struct calls c = { 0 };

    (void)state;
    fx_init(&f);
    r.alarm_actions = acts;
    r.n_alarm_actions = 2;
    sc_alarms_put(f.alarms, &r, T0, NULL);
    for (int i = 0; i < 4; i++) {
        put(&f, 5, T0 + i * MIN, T0 + (i + 1) * MIN);
        sc_alarms_evaluate(f.alarms, f.store, T0 + (i + 1) * MIN, record_action, &c);
    }
    /* transition: both; then the AS action alone at each of the 3 following minutes */
    assert_int_equal(c.n, 5);
    assert_string_equal(c.arns[0], AS_ARN);
    assert_string_equal(c.arns[1], SNS_ARN);
    assert_string_equal(c.arns[2], AS_ARN);
    assert_string_equal(c.arns[4], AS_ARN);
    fx_cleanup(&f);
}

static void test_alarm_actions_disabled_run_nothing(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL);
    const char *acts[] = { AS_ARN };
    const char *names[] = { "a" };
    struct calls c = { 0 };

    (void)state;
    fx_init(&f);
    r.alarm_actions = acts;
    r.n_alarm_actions = 1;
    r.has_actions_enabled = 1;
    r.actions_enabled = 0;
    sc_alarms_put(f.alarms, &r, T0, NULL);
    put(&f, 5, T0, T0 + MIN);
    sc_alarms_evaluate(f.alarms, f.store, T0 + MIN, record_action, &c);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_ALARM);
    assert_int_equal(c.n, 0);
    /* EnableAlarmActions: the next minute runs the AS action */
    assert_int_equal(sc_alarms_enable_actions(f.alarms, names, 1, 1, T0 + MIN, NULL), SC_OK);
    put(&f, 5, T0 + MIN, T0 + 2 * MIN);
    sc_alarms_evaluate(f.alarms, f.store, T0 + 2 * MIN, record_action, &c);
    assert_int_equal(c.n, 1);
    fx_cleanup(&f);
}

static int collect_history(const struct sc_alarm_history_view *h, void *ud)
{
    char(*out)[600] = ud;
    int i = 0;
    while (out[i][0])
        i++;
    if (i < 31)
        snprintf(out[i], 600, "%s|%s|%s", h->alarm_name, h->history_item_type, h->history_summary);
    return 0;
}

static void test_alarm_action_history_items(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL);
    const char *acts[] = { AS_ARN };
    struct calls c = { 0 };
    struct sc_describe_alarm_history_req hr = { 0 };
    char items[32][600];

    (void)state;
    fx_init(&f);
    r.alarm_actions = acts;
    r.n_alarm_actions = 1;
    sc_alarms_put(f.alarms, &r, T0, NULL);
    put(&f, 5, T0, T0 + MIN);
    sc_alarms_evaluate(f.alarms, f.store, T0 + MIN, record_action, &c);
    c.fail = "Failed to execute Auto Scaling action: Auto Scaling Policy not executed because its "
             "effect does not override in-progress scaling actions";
    put(&f, 5, T0 + MIN, T0 + 2 * MIN);
    sc_alarms_evaluate(f.alarms, f.store, T0 + 2 * MIN, record_action, &c);
    memset(items, 0, sizeof(items));
    sc_alarms_describe_history(f.alarms, &hr, T0 + 2 * MIN, collect_history, items, NULL);
    /* newest first */
    assert_string_equal(items[0], "a|Action|Failed to execute Auto Scaling action: Auto Scaling "
                                  "Policy not executed because its effect does not override "
                                  "in-progress scaling actions");
    assert_string_equal(items[1], "a|Action|Successfully executed action " AS_ARN);
    assert_string_equal(items[2], "a|StateUpdate|Alarm updated from INSUFFICIENT_DATA to ALARM");
    assert_string_equal(items[3], "a|ConfigurationUpdate|Alarm \"a\" created");
    assert_string_equal(items[4], "");
    fx_cleanup(&f);
}

/* --- SetAlarmState -------------------------------------------------------------------------------
 */

static void test_alarm_set_state_missing_alarm_is_404(void **state)
{
    struct fx f;
    struct sc_set_alarm_state_req s = { "nope", "ALARM", "x", NULL };
    struct sc_error err;

    (void)state;
    fx_init(&f);
    assert_int_equal(sc_alarms_set_state(f.alarms, &s, T0, &err), SC_ERR_RESOURCE_NOT_FOUND);
    assert_int_equal(sc_status_http(err.status), 404);
    assert_string_equal(sc_status_code(err.status), "ResourceNotFound");
    assert_string_equal(err.message, "");
    fx_cleanup(&f);
}

static void test_alarm_set_state_fires_actions_then_overwritten(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL);
    const char *acts[] = { SNS_ARN };
    struct calls c = { 0 };
    struct sc_set_alarm_state_req s = { "a", "ALARM", "testing", "{\"a\":1}" };

    (void)state;
    fx_init(&f);
    r.alarm_actions = acts;
    r.n_alarm_actions = 1;
    sc_alarms_put(f.alarms, &r, T0, NULL);
    assert_int_equal(sc_alarms_set_state(f.alarms, &s, T0 + 1000, NULL), SC_OK);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_ALARM);
    assert_string_equal(sc_alarms_find(f.alarms, "a")->state_reason, "testing");
    assert_int_equal(sc_alarms_has_pending(f.alarms), 1);
    assert_int_equal(sc_alarms_run_pending(f.alarms, T0 + 2000, record_action, &c), 1);
    assert_int_equal(c.n, 1);
    /* the next evaluation overwrites it: a non-breaching point -> OK */
    put(&f, 0, T0, T0 + MIN);
    sc_alarms_evaluate(f.alarms, f.store, T0 + MIN, record_action, &c);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_OK);
    fx_cleanup(&f);
}

/* --- PutMetricAlarm ------------------------------------------------------------------------------
 */

static int count_tags(const char *k, const char *v, void *ud)
{
    (void)k;
    (void)v;
    (*(int *)ud)++;
    return 0;
}

static void test_alarm_put_overwrites_keeping_state_and_tags(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL);
    struct sc_tag tags[] = { { "k", "v" } };
    const struct sc_alarm_view *v;
    int ntags = 0;

    (void)state;
    fx_init(&f);
    r.tags = tags;
    r.n_tags = 1;
    sc_alarms_put(f.alarms, &r, T0, NULL);
    set_state(&f, "a", "ALARM", T0);
    r = base_req("a", 120, 2, 1, "LessThanThreshold", 5, "breaching");
    assert_int_equal(sc_alarms_put(f.alarms, &r, T0 + MIN, NULL), SC_OK);
    v = sc_alarms_find(f.alarms, "a");
    assert_int_equal(v->state, SC_ALARM_ALARM);
    assert_int_equal(v->period, 120);
    assert_string_equal(v->comparison_operator, "LessThanThreshold");
    assert_string_equal(v->treat_missing_data, "breaching");
    assert_int_equal(v->datapoints_to_alarm, 1);
    sc_alarms_list_tags(f.alarms, v->alarm_arn, count_tags, &ntags, NULL);
    assert_int_equal(ntags, 1);
    assert_int_equal(sc_alarms_count(f.alarms), 1);
    fx_cleanup(&f);
}

static void test_alarm_put_validation_errors(void **state)
{
    struct fx f;
    const char *six[] = { SNS_ARN, SNS_ARN, SNS_ARN, SNS_ARN, SNS_ARN, SNS_ARN };
    const char *bad_arn[] = { "not-an-arn" };
    struct {
        const char *what;
        struct sc_put_metric_alarm_req r;
        enum sc_status code;
        const char *msg;
    } cases[] = {
        { "no name", base_req(NULL, 60, 1, 0, "GreaterThanThreshold", 1, NULL),
          SC_ERR_MISSING_PARAMETER, "The parameter AlarmName is required." },
        { "period 45", base_req("a", 45, 1, 0, "GreaterThanThreshold", 1, NULL),
          SC_ERR_INVALID_PARAMETER_VALUE, "The parameter Period must be a multiple of 60." },
        { "period 0", base_req("a", 0, 1, 0, "GreaterThanThreshold", 1, NULL),
          SC_ERR_INVALID_PARAMETER_VALUE, "The parameter Period must be greater than 0." },
        { "N 0", base_req("a", 60, 0, 0, "GreaterThanThreshold", 1, NULL),
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The parameter EvaluationPeriods must be greater than or equal to 1." },
        { "M > N", base_req("a", 60, 2, 3, "GreaterThanThreshold", 1, NULL),
          SC_ERR_INVALID_PARAMETER_COMBINATION,
          "DatapointsToAlarm must be less than or equal to EvaluationPeriods." },
        { "over a day", base_req("a", 3600, 25, 0, "GreaterThanThreshold", 1, NULL),
          SC_ERR_INVALID_PARAMETER_COMBINATION,
          "Metrics cannot be checked across more than a day (EvaluationPeriods * Period must be "
          "<= 86400)." },
        { "anomaly op",
          base_req("a", 60, 1, 0, "LessThanLowerOrGreaterThanUpperThreshold", 1, NULL),
          SC_ERR_VALIDATION, "ComparisonOperators for ranges require ThresholdMetricId to be set" },
        { "bad op", base_req("a", 60, 1, 0, "Bigger", 1, NULL), SC_ERR_VALIDATION, NULL },
        { "bad tmd", base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, "sometimes"),
          SC_ERR_VALIDATION, NULL },
        { "six actions", base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL),
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The collection AlarmActions must not have a size greater than 5." },
        { "bad arn", base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL), SC_ERR_VALIDATION,
          "Invalid arn syntax: not-an-arn" },
        { "both statistics", base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL),
          SC_ERR_INVALID_PARAMETER_COMBINATION,
          "The parameters Statistic and ExtendedStatistic are mutually exclusive and you have "
          "specified both." },
        { "no statistic", base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL),
          SC_ERR_MISSING_PARAMETER,
          "One of the parameters Statistic or ExtendedStatistic is required." },
        { "bad percentile", base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL),
          SC_ERR_INVALID_PARAMETER_VALUE,
          "The value p101 for parameter ExtendedStatistic is invalid." },
        { "math", base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL), SC_ERR_VALIDATION,
          "MetricName should not be set if list of Metrics is set." },
        { "no threshold", base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL),
          SC_ERR_MISSING_PARAMETER, "The parameter Threshold is required." },
        { "bad unit", base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL), SC_ERR_VALIDATION,
          NULL },
    };

    (void)state;
    cases[9].r.alarm_actions = six;
    cases[9].r.n_alarm_actions = 6;
    cases[10].r.ok_actions = bad_arn;
    cases[10].r.n_ok_actions = 1;
    cases[11].r.extended_statistic = "p99";
    cases[12].r.statistic = NULL;
    cases[13].r.statistic = NULL;
    cases[13].r.extended_statistic = "p101";
    cases[14].r.has_metrics = 1;
    cases[15].r.has_threshold = 0;
    cases[16].r.unit = "Furlongs";
    fx_init(&f);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sc_error err = { 0 };
        enum sc_status st = sc_alarms_put(f.alarms, &cases[i].r, T0, &err);
        if (st != cases[i].code || (cases[i].msg && strcmp(err.message, cases[i].msg) != 0))
            fail_msg("%s: got %d '%s'", cases[i].what, st, err.message);
    }
    assert_int_equal(sc_alarms_count(f.alarms), 0);
    fx_cleanup(&f);
}

/* --- describes -----------------------------------------------------------------------------------
 */

static int collect_names(const struct sc_alarm_view *v, void *ud)
{
    char *out = ud;
    strcat(out, v->alarm_name);
    strcat(out, ",");
    return 0;
}

static void test_alarm_describe_filters_sorted(void **state)
{
    struct fx f;
    const char *names[] = { "zeta", "alpha", "beta-1", "beta-2" };
    const char *acts[] = { AS_ARN };
    const char *want[] = { "beta-2", "alpha" };
    char out[256];
    struct sc_error err;

    (void)state;
    fx_init(&f);
    for (int i = 0; i < 4; i++) {
        struct sc_put_metric_alarm_req r =
            base_req(names[i], 60, 1, 0, "GreaterThanThreshold", 1, NULL);
        if (i == 1) {
            r.alarm_actions = acts;
            r.n_alarm_actions = 1;
        }
        sc_alarms_put(f.alarms, &r, T0, NULL);
    }
    set_state(&f, "zeta", "OK", T0);
    {
        struct sc_describe_alarms_req d = { 0 };
        out[0] = 0;
        sc_alarms_describe(f.alarms, &d, collect_names, out, NULL);
        assert_string_equal(out, "alpha,beta-1,beta-2,zeta,");
    }
    {
        struct sc_describe_alarms_req d = { .alarm_name_prefix = "beta" };
        out[0] = 0;
        sc_alarms_describe(f.alarms, &d, collect_names, out, NULL);
        assert_string_equal(out, "beta-1,beta-2,");
    }
    {
        struct sc_describe_alarms_req d = { .alarm_names = want, .n_alarm_names = 2 };
        out[0] = 0;
        sc_alarms_describe(f.alarms, &d, collect_names, out, NULL);
        assert_string_equal(out, "alpha,beta-2,");
    }
    {
        struct sc_describe_alarms_req d = { .state_value = "OK" };
        out[0] = 0;
        sc_alarms_describe(f.alarms, &d, collect_names, out, NULL);
        assert_string_equal(out, "zeta,");
    }
    {
        struct sc_describe_alarms_req d = { .action_prefix = "arn:aws:autoscaling:" };
        out[0] = 0;
        sc_alarms_describe(f.alarms, &d, collect_names, out, NULL);
        assert_string_equal(out, "alpha,");
    }
    {
        struct sc_describe_alarms_req d = { .alarm_names = want,
                                            .n_alarm_names = 2,
                                            .alarm_name_prefix = "b" };
        assert_int_equal(sc_alarms_describe(f.alarms, &d, collect_names, out, &err),
                         SC_ERR_INVALID_PARAMETER_COMBINATION);
    }
    {
        struct sc_describe_alarms_req d = { .state_value = "INVALID" };
        assert_int_equal(sc_alarms_describe(f.alarms, &d, collect_names, out, &err),
                         SC_ERR_VALIDATION);
        assert_string_equal(err.message,
                            "1 validation error detected: Value 'INVALID' at 'stateValue' failed "
                            "to satisfy constraint: Member must satisfy enum value set: "
                            "[INSUFFICIENT_DATA, ALARM, OK]");
    }
    fx_cleanup(&f);
}

static void test_alarm_describe_for_metric(void **state)
{
    struct fx f;
    struct sc_dimension d1[] = { { "A", "1" }, { "B", "2" } },
                        d2[] = { { "B", "2" }, { "A", "1" } };
    struct sc_put_metric_alarm_req r = base_req("x", 60, 1, 0, "GreaterThanThreshold", 1, NULL);
    struct sc_describe_alarms_for_metric_req q = { "M", "App", NULL, NULL, d2, 2, 0, 0, NULL };
    char out[128] = "";

    (void)state;
    fx_init(&f);
    r.dimensions = d1;
    r.n_dimensions = 2;
    sc_alarms_put(f.alarms, &r, T0, NULL);
    r = base_req("y", 60, 1, 0, "GreaterThanThreshold", 1, NULL);
    sc_alarms_put(f.alarms, &r, T0, NULL);
    sc_alarms_describe_for_metric(f.alarms, &q, collect_names, out, NULL);
    assert_string_equal(out, "x,");
    q.n_dimensions = 0;
    out[0] = 0;
    sc_alarms_describe_for_metric(f.alarms, &q, collect_names, out, NULL);
    assert_string_equal(out, "y,");
    fx_cleanup(&f);
}

/* --- history -------------------------------------------------------------------------------------
 */

static void test_alarm_history_survives_deletion(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", 60, 1, 0, "GreaterThanThreshold", 1, NULL);
    const char *names[] = { "a", "unknown" };
    struct sc_describe_alarm_history_req hr = { .alarm_name = "a" };
    char items[32][600];

    (void)state;
    fx_init(&f);
    sc_alarms_put(f.alarms, &r, T0, NULL);
    assert_int_equal(sc_alarms_delete(f.alarms, names, 2, T0 + 1000, NULL), SC_OK);
    assert_null(sc_alarms_find(f.alarms, "a"));
    memset(items, 0, sizeof(items));
    sc_alarms_describe_history(f.alarms, &hr, T0 + 2000, collect_history, items, NULL);
    assert_string_equal(items[0], "a|ConfigurationUpdate|Alarm \"a\" deleted");
    assert_string_equal(items[1], "a|ConfigurationUpdate|Alarm \"a\" created");
    fx_cleanup(&f);
}

static int count_items(const struct sc_alarm_history_view *h, void *ud)
{
    (void)h;
    (*(int *)ud)++;
    return 0;
}

static void test_alarm_history_bounded_ring(void **state)
{
    struct sc_alarms_config c;
    struct sc_alarms *a;
    struct sc_describe_alarm_history_req hr = { .scan_by = "TimestampAscending" };
    char items[32][600];
    int n = 0;

    (void)state;
    sc_alarms_config_defaults(&c);
    c.history_bytes = 8192;
    a = sc_alarms_create(&c);
    for (int i = 0; i < 200; i++) {
        char name[16];
        struct sc_put_metric_alarm_req r;
        snprintf(name, sizeof(name), "a%03d", i);
        r = base_req(name, 60, 1, 0, "GreaterThanThreshold", 1, NULL);
        assert_int_equal(sc_alarms_put(a, &r, T0 + i, NULL), SC_OK);
    }
    sc_alarms_describe_history(a, &hr, T0 + 1000, count_items, &n, NULL);
    assert_true(n > 0 && n < 200);
    memset(items, 0, sizeof(items));
    hr.scan_by = NULL;
    sc_alarms_describe_history(a, &hr, T0 + 1000, collect_history, items, NULL);
    /* the newest survives, the oldest were dropped */
    assert_string_equal(items[0], "a199|ConfigurationUpdate|Alarm \"a199\" created");
    sc_alarms_destroy(a);
}

static void test_alarm_high_resolution_period_10(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", 10, 1, 0, "GreaterThanThreshold", 1, NULL);
    struct sc_metric_datum d = { .metric_name = "M",
                                 .has_value = 1,
                                 .value = 5,
                                 .has_timestamp = 1,
                                 .timestamp_ms = T0 + 15000,
                                 .storage_resolution = 1 };
    struct sc_put_metric_data_req pr = { "App", &d, 1, 0 };

    (void)state;
    fx_init(&f);
    sc_alarms_put(f.alarms, &r, T0, NULL);
    assert_int_equal(sc_metric_store_put(f.store, &pr, T0 + 20000, NULL), SC_OK);
    sc_alarms_evaluate(f.alarms, f.store, T0 + 20000, NULL, NULL);
    assert_int_equal(state_of(&f, "a"), SC_ALARM_ALARM);
    assert_int_equal(sc_alarms_has_hires(f.alarms), 1);
    fx_cleanup(&f);
}

static void test_alarm_recent_values_for_step_selection(void **state)
{
    struct fx f;
    struct sc_put_metric_alarm_req r = base_req("a", 60, 3, 0, "GreaterThanThreshold", 1, NULL);
    const struct sc_alarm_view *v;

    (void)state;
    fx_init(&f);
    sc_alarms_put(f.alarms, &r, T0, NULL);
    put(&f, 10, T0, T0 + 3 * MIN);
    put(&f, 20, T0 + MIN, T0 + 3 * MIN);
    put(&f, 30, T0 + 2 * MIN, T0 + 3 * MIN);
    sc_alarms_evaluate(f.alarms, f.store, T0 + 3 * MIN, NULL, NULL);
    v = sc_alarms_find(f.alarms, "a");
    assert_int_equal(v->n_recent_values, 3);
    assert_true(v->recent_values[0] == 30 && v->recent_values[2] == 10);
    assert_true(v->last_evaluated_ms == T0 + 3 * MIN);
    fx_cleanup(&f);
}

static void run_scripted(struct fx *f, char (*items)[600])
{
    const char *acts[] = { AS_ARN };
    struct sc_put_metric_alarm_req r = base_req("a", 120, 3, 2, "GreaterThanThreshold", 50, NULL);
    struct sc_describe_alarm_history_req hr = { 0 };
    struct calls c = { 0 };

    r.alarm_actions = acts;
    r.n_alarm_actions = 1;
    sc_alarms_put(f->alarms, &r, T0, NULL);
    for (int i = 0; i < 60; i++) {
        put(f, (double)((i * 37) % 100), T0 + i * MIN + 1000, T0 + (i + 1) * MIN);
        sc_alarms_evaluate(f->alarms, f->store, T0 + (i + 1) * MIN, record_action, &c);
    }
    sc_alarms_describe_history(f->alarms, &hr, T0 + 61 * MIN, collect_history, items, NULL);
}

static void test_alarm_deterministic(void **state)
{
    static char a[32][600], b[32][600];
    struct fx f, g;

    (void)state;
    memset(a, 0, sizeof(a));
    memset(b, 0, sizeof(b));
    fx_init(&f);
    fx_init(&g);
    run_scripted(&f, a);
    run_scripted(&g, b);
    assert_memory_equal(a, b, sizeof(a));
    assert_true(a[0][0] != 0);
    fx_cleanup(&f);
    fx_cleanup(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alarm_table_3_of_3),
        cmocka_unit_test(test_alarm_table_2_of_3),
        cmocka_unit_test(test_alarm_windows_slide_by_minute),
        cmocka_unit_test(test_alarm_initial_state_insufficient_data),
        cmocka_unit_test(test_alarm_metric_followed_across_create_and_expiry),
        cmocka_unit_test(test_alarm_reason_is_last_transitions),
        cmocka_unit_test(test_alarm_late_datapoint_counts),
        cmocka_unit_test(test_alarm_reason_single_datapoint),
        cmocka_unit_test(test_alarm_reason_m_of_n_to_alarm),
        cmocka_unit_test(test_alarm_reason_alarm_to_ok_minimum),
        cmocka_unit_test(test_alarm_reason_missing_treated_as_breaching),
        cmocka_unit_test(test_alarm_reason_missing_treated_as_non_breaching),
        cmocka_unit_test(test_alarm_reason_some_received_rest_non_breaching),
        cmocka_unit_test(test_alarm_reason_insufficient_data),
        cmocka_unit_test(test_alarm_reason_data_json),
        cmocka_unit_test(test_alarm_autoscaling_actions_repeat_each_minute),
        cmocka_unit_test(test_alarm_actions_disabled_run_nothing),
        cmocka_unit_test(test_alarm_action_history_items),
        cmocka_unit_test(test_alarm_set_state_missing_alarm_is_404),
        cmocka_unit_test(test_alarm_set_state_fires_actions_then_overwritten),
        cmocka_unit_test(test_alarm_put_overwrites_keeping_state_and_tags),
        cmocka_unit_test(test_alarm_put_validation_errors),
        cmocka_unit_test(test_alarm_describe_filters_sorted),
        cmocka_unit_test(test_alarm_describe_for_metric),
        cmocka_unit_test(test_alarm_history_survives_deletion),
        cmocka_unit_test(test_alarm_history_bounded_ring),
        cmocka_unit_test(test_alarm_high_resolution_period_10),
        cmocka_unit_test(test_alarm_recent_values_for_step_selection),
        cmocka_unit_test(test_alarm_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
