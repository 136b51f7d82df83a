/* tests/unit/scaler/test_alarm_composite.c: scaler/alarm_composite.c (the AlarmRule
 * parser, composites following their children, suppression, deletion rules, describes,
 * the state file), driven through scaler/cloudwatch.h as the worlds drive it. */
#include "scaler/alarm_composite.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/cloudwatch.h"

#define T0      1767225600000LL /* 2026-01-01T00:00:00Z, a Thursday */
#define MIN     60000LL
#define SNS_ARN "arn:aws:sns:us-east-1:123456789012:topic"
#define AS_ARN                                                                                     \
    "arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:u:autoScalingGroupName/g:policyName/up"
#define ARN(n) "arn:aws:cloudwatch:us-east-1:123456789012:alarm:" n

struct calls {
    int n;
    char arn[16][200];
    char alarm[16][64];
    int64_t at[16];
};

static const char *on_action(const char *arn, const struct sc_alarm_view *a, int64_t now_ms,
                             void *ud)
{
    struct calls *c = ud;

    if (c->n < 16) {
        snprintf(c->arn[c->n], sizeof(c->arn[0]), "%s", arn);
        snprintf(c->alarm[c->n], sizeof(c->alarm[0]), "%s", a->alarm_name);
        c->at[c->n] = now_ms;
    }
    c->n++;
    return NULL;
}

static struct sc_cw *cw_new(struct calls *calls)
{
    struct sc_cw_config cfg;
    struct sc_cw *cw;

    sc_cw_config_defaults(&cfg);
    cfg.start_ms = T0;
    cw = sc_cw_create(&cfg);
    assert_non_null(cw);
    if (calls) {
        memset(calls, 0, sizeof(*calls));
        sc_cw_set_action_handler(cw, on_action, calls);
    }
    return cw;
}

/* A metric alarm on App/<name> > 10, one 60 s period; missing data as tmd says. */
static void metric_alarm_tmd(struct sc_cw *cw, const char *name, const char *tmd)
{
    struct sc_put_metric_alarm_req r;

    memset(&r, 0, sizeof(r));
    r.alarm_name = name;
    r.metric_name = name;
    r.namespace = "App";
    r.statistic = "Average";
    r.has_period = 1;
    r.period = 60;
    r.has_evaluation_periods = 1;
    r.evaluation_periods = 1;
    r.has_threshold = 1;
    r.threshold = 10;
    r.comparison_operator = "GreaterThanThreshold";
    r.treat_missing_data = tmd;
    assert_int_equal(sc_cw_put_metric_alarm(cw, &r, T0, NULL), SC_OK);
}

static void metric_alarm(struct sc_cw *cw, const char *name)
{
    metric_alarm_tmd(cw, name, "notBreaching");
}

static void put_value(struct sc_cw *cw, const char *metric, double v, int64_t ts)
{
    assert_int_equal(sc_cw_put_value(cw, "App", metric, NULL, 0, NULL, v, ts, ts), SC_OK);
}

static void set_state(struct sc_cw *cw, const char *name, const char *state, int64_t now)
{
    struct sc_set_alarm_state_req s = { name, state, "test", NULL };
    assert_int_equal(sc_cw_set_alarm_state(cw, &s, now, NULL), SC_OK);
}

static enum sc_status put_composite(struct sc_cw *cw, const char *name, const char *rule,
                                    int64_t now, struct sc_error *err)
{
    static const char *const acts[] = { SNS_ARN };
    struct sc_put_composite_alarm_req r;

    memset(&r, 0, sizeof(r));
    r.alarm_name = name;
    r.alarm_rule = rule;
    r.alarm_actions = acts;
    r.n_alarm_actions = 1;
    return sc_cw_put_composite_alarm(cw, &r, now, err);
}

static const struct sc_composite_view *comp(struct sc_cw *cw, const char *name)
{
    const struct sc_composite_view *v = sc_alarms_composite_find(sc_cw_alarms(cw), name);
    assert_non_null(v);
    return v;
}

/* --- the rule ------------------------------------------------------------------------------- */

static int eval3(const char *text, enum sc_alarm_state a, enum sc_alarm_state b,
                 enum sc_alarm_state c)
{
    struct sc_alarm_rule *r = NULL;
    enum sc_alarm_state st[8];
    int v;

    assert_int_equal(sc_alarm_rule_parse(text, &r, NULL), SC_OK);
    for (int i = 0; i < sc_alarm_rule_nrefs(r); i++) {
        const char *ref = sc_alarm_rule_ref(r, i);
        st[i] = strcmp(ref, "a") == 0 ? a : strcmp(ref, "b") == 0 ? b : c;
    }
    v = sc_alarm_rule_eval(r, st);
    sc_alarm_rule_destroy(r);
    return v;
}

static void test_alarm_composite_rule_parse_precedence(void **state)
{
    const enum sc_alarm_state A = SC_ALARM_ALARM, O = SC_ALARM_OK, I = SC_ALARM_INSUFFICIENT_DATA;
    (void)state;
    /* NOT binds tighter than AND, AND tighter than OR */
    assert_int_equal(eval3("ALARM(a) OR ALARM(b) AND NOT ALARM(c)", A, O, A), 1);
    assert_int_equal(eval3("ALARM(a) OR ALARM(b) AND NOT ALARM(c)", O, A, A), 0);
    assert_int_equal(eval3("ALARM(a) OR ALARM(b) AND NOT ALARM(c)", O, A, O), 1);
    assert_int_equal(eval3("(ALARM(a) OR ALARM(b)) AND NOT ALARM(c)", A, O, A), 0);
    assert_int_equal(eval3("NOT ALARM(a) AND ALARM(b)", O, A, O), 1);
    assert_int_equal(eval3("NOT (ALARM(a) AND ALARM(b))", A, A, O), 0);
    /* the three functions, quoted names, TRUE and FALSE */
    assert_int_equal(eval3("OK(\"a\") AND INSUFFICIENT_DATA( b )", O, I, O), 1);
    assert_int_equal(eval3("OK(a) AND INSUFFICIENT_DATA(b)", O, A, O), 0);
    assert_int_equal(eval3("TRUE OR ALARM(a)", O, O, O), 1);
    assert_int_equal(eval3("FALSE AND ALARM(a)", A, O, O), 0);
    assert_int_equal(eval3("ALARM(a)\nAND\tALARM(b)", A, A, O), 1);
}

static void test_alarm_composite_rule_refs_as_written(void **state)
{
    struct sc_alarm_rule *r = NULL;

    (void)state;
    assert_int_equal(
        sc_alarm_rule_parse("ALARM(\"my alarm (1)\") OR OK(" ARN("x") ") OR "
                                                                      "ALARM(my alarm)",
                            &r, NULL),
        SC_OK);
    assert_int_equal(sc_alarm_rule_nrefs(r), 3);
    assert_string_equal(sc_alarm_rule_ref(r, 0), "my alarm (1)");
    assert_string_equal(sc_alarm_rule_ref(r, 1), ARN("x"));
    assert_string_equal(sc_alarm_rule_ref(r, 2), "my alarm");
    sc_alarm_rule_destroy(r);
}

/* AT_LEAST(M, STATE, (list)) is true when at least M of the listed alarms are in STATE (the
 * user guide's "at least 2 out of the 4 web server CPU alarms"). */
static void test_alarm_rule_at_least_counts_alarms_in_state(void **state)
{
    const enum sc_alarm_state A = SC_ALARM_ALARM, O = SC_ALARM_OK, I = SC_ALARM_INSUFFICIENT_DATA;
    (void)state;
    assert_int_equal(eval3("AT_LEAST(2, ALARM, (a, b, c))", A, A, O), 1);
    assert_int_equal(eval3("AT_LEAST(2, ALARM, (a, b, c))", A, O, I), 0);
    assert_int_equal(eval3("AT_LEAST(1, OK, (\"a\", \"b\"))", A, O, O), 1);
    assert_int_equal(eval3("AT_LEAST(2, INSUFFICIENT_DATA, (a, b))", I, A, O), 0);
    /* combined with the operators, as the guide's AZ example */
    assert_int_equal(eval3("AT_LEAST(2, ALARM, (a, b)) AND NOT ALARM(c)", A, A, O), 1);
    assert_int_equal(eval3("AT_LEAST(2, ALARM, (a, b)) AND NOT ALARM(c)", A, A, A), 0);
}

/* M as a percentage: at least M% of the list (50% of 4 is 2; 60% of 3 needs 2). */
static void test_alarm_rule_at_least_percentage(void **state)
{
    const enum sc_alarm_state A = SC_ALARM_ALARM, O = SC_ALARM_OK;
    (void)state;
    assert_int_equal(eval3("AT_LEAST(50%, OK, (a, b))", O, A, A), 1);
    assert_int_equal(eval3("AT_LEAST(60%, ALARM, (a, b, c))", A, O, O), 0);
    assert_int_equal(eval3("AT_LEAST(60%, ALARM, (a, b, c))", A, A, O), 1);
    assert_int_equal(eval3("AT_LEAST(\"100%\", ALARM, (a, b))", A, A, O), 1);
}

/* STATE_CONDITION NOT ALARM / NOT OK / NOT INSUFFICIENT_DATA counts the others. */
static void test_alarm_rule_at_least_not_state(void **state)
{
    const enum sc_alarm_state A = SC_ALARM_ALARM, O = SC_ALARM_OK, I = SC_ALARM_INSUFFICIENT_DATA;
    (void)state;
    assert_int_equal(eval3("AT_LEAST(2, NOT OK, (a, b, c))", A, I, O), 1);
    assert_int_equal(eval3("AT_LEAST(2, NOT OK, (a, b, c))", A, O, O), 0);
    assert_int_equal(eval3("AT_LEAST(100%, NOT INSUFFICIENT_DATA, (a, b))", A, O, I), 1);
}

/* Malformed AT_LEAST: each a ValidationError naming the problem, nothing returned. */
static void test_alarm_rule_at_least_errors(void **state)
{
    static const char *const bad[] = {
        "AT_LEAST(0, ALARM, (a))",      "AT_LEAST(101%, ALARM, (a))", "AT_LEAST(2, ALARM, (a))",
        "AT_LEAST(x, ALARM, (a))",      "AT_LEAST(1, ALARMS, (a))",   "AT_LEAST(1 ALARM, (a))",
        "AT_LEAST(1, ALARM, a)",        "AT_LEAST(1, ALARM, (a, ))",  "AT_LEAST(1, ALARM, (a)",
        "AT_LEAST(1, NOT NOT OK, (a))", "AT_LEAST(\"1, OK, (a))",
    };
    struct sc_alarm_rule *r = NULL;
    struct sc_error err;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(&err, 0, sizeof(err));
        assert_int_equal(sc_alarm_rule_parse(bad[i], &r, &err), SC_ERR_VALIDATION);
        assert_null(r);
        assert_non_null(strstr(err.message, "Invalid alarm rule: "));
    }
    memset(&err, 0, sizeof(err));
    sc_alarm_rule_parse("AT_LEAST(3, ALARM, (a, b))", &r, &err);
    assert_string_equal(err.message,
                        "Invalid alarm rule: AT_LEAST count is more than the alarms listed at "
                        "position 26");
}

static void test_alarm_composite_rule_parse_errors(void **state)
{
    static const char *const bad[] = {
        "ALARM(a) AND", "ALARM a",    "ALARM()", "alarm(a)",  "ALARM(a) XOR ALARM(b)",
        "(ALARM(a)",    "ALARM(\"a)", "NOT",     "ALARMS(a)", "AT_LEAST(3, ALARM, (a, b))",
        "ALARM(a))",    "TRUEX",
    };
    struct sc_alarm_rule *r = NULL;
    struct sc_error err;
    char *big;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(&err, 0, sizeof(err));
        assert_int_equal(sc_alarm_rule_parse(bad[i], &r, &err), SC_ERR_VALIDATION);
        assert_null(r);
        assert_non_null(strstr(err.message, "Invalid alarm rule: "));
    }
    assert_int_equal(sc_alarm_rule_parse(" ALARM(a)", &r, &err), SC_ERR_VALIDATION);
    assert_string_equal(err.message,
                        "AlarmRule must not contain leading or trailing whitespace or be null");
    assert_int_equal(sc_alarm_rule_parse("", &r, &err), SC_ERR_MISSING_PARAMETER);
    big = malloc(10242);
    memset(big, 'A', 10241);
    big[10241] = 0;
    assert_int_equal(sc_alarm_rule_parse(big, &r, &err), SC_ERR_VALIDATION);
    assert_non_null(strstr(err.message, "less than or equal to 10240"));
    free(big);
}

/* --- composites over metric alarms ------------------------------------------------------------ */

struct hist {
    int n, composite;
    char last_summary[200];
};

static int hist_visit(const struct sc_alarm_history_view *h, void *ud)
{
    struct hist *x = ud;

    if (x->n == 0)
        snprintf(x->last_summary, sizeof(x->last_summary), "%s", h->history_summary);
    x->n++;
    x->composite += strcmp(h->alarm_type, "CompositeAlarm") == 0;
    return 0;
}

static void test_alarm_composite_follows_children(void **state)
{
    struct calls calls;
    struct sc_cw *cw = cw_new(&calls);
    const struct sc_composite_view *v;
    struct sc_describe_alarm_history_req hr = { 0 };
    struct hist h = { 0 };

    (void)state;
    metric_alarm(cw, "a");
    metric_alarm(cw, "b");
    assert_int_equal(put_composite(cw, "both", "ALARM(a) AND ALARM(b)", T0, NULL), SC_OK);
    v = comp(cw, "both");
    assert_string_equal(v->state_value, "OK");
    assert_string_equal(v->state_reason,
                        ARN("both") " was created and its alarm rule evaluates to OK");
    assert_non_null(strstr(v->state_reason_data, "{\"triggeringAlarms\":[{\"arn\":\"" ARN("a")));
    /* a breaches: a goes to ALARM, the composite stays OK */
    put_value(cw, "a", 50, T0 + 10000);
    put_value(cw, "b", 1, T0 + 10000);
    sc_cw_step(cw, T0 + MIN);
    assert_string_equal(sc_cw_alarm_find(cw, "a")->state_value, "ALARM");
    assert_string_equal(sc_cw_alarm_find(cw, "b")->state_value, "OK");
    assert_string_equal(comp(cw, "both")->state_value, "OK");
    assert_int_equal(calls.n, 0);
    /* b breaches too: the composite goes to ALARM at the same tick, its action runs */
    put_value(cw, "a", 50, T0 + MIN + 10000);
    put_value(cw, "b", 50, T0 + MIN + 10000);
    sc_cw_step(cw, T0 + 2 * MIN);
    v = comp(cw, "both");
    assert_string_equal(v->state_value, "ALARM");
    assert_string_equal(v->state_reason,
                        ARN("b") " transitioned to ALARM at Thursday 1 January, 2026 00:02:00 UTC");
    assert_string_equal(v->state_reason_data,
                        "{\"triggeringAlarms\":[{\"arn\":\"" ARN(
                            "b") "\",\"state\":{\"value\":"
                                 "\"ALARM\",\"timestamp\":\"2026-01-01T00:02:00.000+0000\"}}]}");
    assert_int_equal(v->state_transitioned_timestamp_ms, T0 + 2 * MIN);
    assert_int_equal(calls.n, 1);
    assert_string_equal(calls.arn[0], SNS_ARN);
    assert_string_equal(calls.alarm[0], "both");
    /* a recovers: back to OK */
    put_value(cw, "a", 1, T0 + 2 * MIN + 10000);
    put_value(cw, "b", 50, T0 + 2 * MIN + 10000);
    sc_cw_step(cw, T0 + 3 * MIN);
    assert_string_equal(comp(cw, "both")->state_value, "OK");
    /* history: created, OK, ALARM, action, OK; AlarmType CompositeAlarm */
    hr.alarm_name = "both";
    assert_int_equal(sc_cw_describe_alarm_history(cw, &hr, T0 + 3 * MIN, hist_visit, &h, NULL),
                     SC_OK);
    assert_int_equal(h.n, 5);
    assert_int_equal(h.composite, 5);
    assert_string_equal(h.last_summary, "Alarm updated from ALARM to OK");
    sc_cw_destroy(cw);
}

static void test_alarm_composite_of_composites(void **state)
{
    struct calls calls;
    struct sc_cw *cw = cw_new(&calls);

    (void)state;
    metric_alarm(cw, "a");
    metric_alarm(cw, "b");
    assert_int_equal(put_composite(cw, "mid", "ALARM(a)", T0, NULL), SC_OK);
    assert_int_equal(put_composite(cw, "top", "ALARM(mid) OR ALARM(" ARN("b") ")", T0, NULL),
                     SC_OK);
    set_state(cw, "a", "ALARM", T0 + 1000);
    assert_string_equal(comp(cw, "mid")->state_value, "ALARM");
    assert_string_equal(comp(cw, "top")->state_value, "ALARM");
    assert_string_equal(
        comp(cw, "top")->state_reason,
        ARN("mid") " transitioned to ALARM at Thursday 1 January, 2026 00:00:01 UTC");
    /* SetAlarmState's actions (and the composites') run at the next step */
    assert_int_equal(calls.n, 0);
    sc_cw_step(cw, T0 + 1000);
    assert_int_equal(calls.n, 2);
    sc_cw_destroy(cw);
}

static void test_alarm_composite_refuses_self_reference(void **state)
{
    struct sc_cw *cw = cw_new(NULL);
    struct sc_error err = { 0 };

    (void)state;
    metric_alarm(cw, "a");
    /* on create the name does not exist yet */
    assert_int_equal(put_composite(cw, "self", "ALARM(self)", T0, &err), SC_ERR_VALIDATION);
    assert_string_equal(err.message, "Could not save the composite alarm as alarms [self] in the "
                                     "alarm rule do not exist");
    assert_null(sc_alarms_composite_find(sc_cw_alarms(cw), "self"));
    /* on update it refers to itself: refused, the rule stays */
    assert_int_equal(put_composite(cw, "c", "ALARM(a)", T0, NULL), SC_OK);
    assert_int_equal(put_composite(cw, "c", "ALARM(a) OR ALARM(" ARN("c") ")", T0, &err),
                     SC_ERR_VALIDATION);
    assert_string_equal(err.message, "Could not save the composite alarm as the alarm rule "
                                     "references the alarm itself");
    assert_string_equal(comp(cw, "c")->alarm_rule, "ALARM(a)");
    sc_cw_destroy(cw);
}

static void test_alarm_composite_refuses_missing_alarms(void **state)
{
    struct sc_cw *cw = cw_new(NULL);
    struct sc_error err = { 0 };
    struct sc_put_composite_alarm_req r;

    (void)state;
    metric_alarm(cw, "a");
    assert_int_equal(put_composite(cw, "x",
                                   "ALARM(a) OR ALARM(gone) OR OK(\"nope\") OR "
                                   "ALARM(gone)",
                                   T0, &err),
                     SC_ERR_VALIDATION);
    assert_string_equal(err.message, "Could not save the composite alarm as alarms [gone, nope] in "
                                     "the alarm rule do not exist");
    assert_int_equal(sc_alarms_composite_count(sc_cw_alarms(cw)), 0);
    /* a metric alarm's name is taken */
    assert_int_equal(put_composite(cw, "a", "ALARM(a)", T0, &err), SC_ERR_VALIDATION);
    assert_string_equal(err.message, "An alarm with the name a already exists as a metric alarm.");
    /* suppressor checks */
    memset(&r, 0, sizeof(r));
    r.alarm_name = "y";
    r.alarm_rule = "ALARM(a)";
    r.actions_suppressor = "a";
    assert_int_equal(sc_cw_put_composite_alarm(cw, &r, T0, &err), SC_ERR_VALIDATION);
    assert_non_null(strstr(err.message, "are required when ActionsSuppressor is specified."));
    r.has_wait_period = r.has_extension_period = 1;
    r.actions_suppressor = "ghost";
    assert_int_equal(sc_cw_put_composite_alarm(cw, &r, T0, &err), SC_ERR_VALIDATION);
    assert_string_equal(err.message, "Could not save the composite alarm as the actions "
                                     "suppressor ghost does not exist");
    assert_int_equal(sc_alarms_composite_count(sc_cw_alarms(cw)), 0);
    sc_cw_destroy(cw);
}

static struct sc_cw *suppressed(struct calls *calls)
{
    static const char *const acts[] = { SNS_ARN };
    struct sc_cw *cw = cw_new(calls);
    struct sc_put_composite_alarm_req r;

    /* missing data "ignore": SetAlarmState's states stay through the evaluations */
    metric_alarm_tmd(cw, "cpu", "ignore");
    metric_alarm_tmd(cw, "maint", "ignore");
    set_state(cw, "cpu", "OK", T0);
    set_state(cw, "maint", "OK", T0);
    sc_cw_step(cw, T0);
    memset(&r, 0, sizeof(r));
    r.alarm_name = "svc";
    r.alarm_rule = "ALARM(cpu)";
    r.alarm_actions = acts;
    r.n_alarm_actions = 1;
    r.actions_suppressor = "maint";
    r.has_wait_period = r.has_extension_period = 1;
    r.wait_period_s = 120;
    r.extension_period_s = 60;
    assert_int_equal(sc_cw_put_composite_alarm(cw, &r, T0, NULL), SC_OK);
    sc_cw_step(cw, T0);
    calls->n = 0;
    return cw;
}

static void test_alarm_composite_actions_suppressor_wait(void **state)
{
    struct calls calls;
    struct sc_cw *cw = suppressed(&calls);
    const struct sc_composite_view *v;

    (void)state;
    set_state(cw, "cpu", "ALARM", T0 + 1000);
    sc_cw_step(cw, T0 + 1000);
    v = comp(cw, "svc");
    assert_string_equal(v->state_value, "ALARM");
    assert_string_equal(v->actions_suppressed_by, "WaitPeriod");
    assert_string_equal(v->actions_suppressed_reason, "Actions suppressed by WaitPeriod");
    assert_int_equal(calls.n, 0);
    sc_cw_step(cw, T0 + 120000);
    assert_int_equal(calls.n, 0);
    assert_int_equal(sc_cw_next_due_ms(cw, T0 + 120000), T0 + 121000);
    /* the wait is over and the suppressor never went to ALARM: the actions run */
    sc_cw_step(cw, T0 + 121000);
    assert_int_equal(calls.n, 1);
    assert_int_equal(calls.at[0], T0 + 121000);
    assert_null(comp(cw, "svc")->actions_suppressed_by);
    sc_cw_destroy(cw);
}

static void test_alarm_composite_actions_suppressor_extension(void **state)
{
    struct calls calls;
    struct sc_cw *cw = suppressed(&calls);

    (void)state;
    set_state(cw, "cpu", "ALARM", T0 + 1000);
    sc_cw_step(cw, T0 + 1000);
    /* the suppressor goes to ALARM within the wait: held by Alarm, no deadline */
    set_state(cw, "maint", "ALARM", T0 + 30000);
    sc_cw_step(cw, T0 + 30000);
    assert_string_equal(comp(cw, "svc")->actions_suppressed_by, "Alarm");
    sc_cw_step(cw, T0 + 200000);
    assert_int_equal(calls.n, 0); /* held as long as maint is in ALARM */
    /* it leaves ALARM: the extension starts */
    set_state(cw, "maint", "OK", T0 + 300000);
    sc_cw_step(cw, T0 + 300000);
    assert_string_equal(comp(cw, "svc")->actions_suppressed_by, "ExtensionPeriod");
    sc_cw_step(cw, T0 + 359000);
    assert_int_equal(calls.n, 0);
    sc_cw_step(cw, T0 + 360000);
    assert_int_equal(calls.n, 1);
    assert_string_equal(calls.alarm[0], "svc");
    sc_cw_destroy(cw);
}

static void test_alarm_composite_actions_suppressor_drops_when_ok(void **state)
{
    struct calls calls;
    struct sc_cw *cw = suppressed(&calls);

    (void)state;
    set_state(cw, "cpu", "ALARM", T0 + 1000);
    sc_cw_step(cw, T0 + 1000);
    set_state(cw, "cpu", "OK", T0 + 20000);
    sc_cw_step(cw, T0 + 20000);
    assert_string_equal(comp(cw, "svc")->state_value, "OK");
    assert_null(comp(cw, "svc")->actions_suppressed_by);
    sc_cw_step(cw, T0 + 200000);
    assert_int_equal(calls.n, 0);
    sc_cw_destroy(cw);
}

static void test_alarm_composite_autoscaling_action_never_runs(void **state)
{
    static const char *const acts[] = { AS_ARN, SNS_ARN };
    struct calls calls;
    struct sc_cw *cw = cw_new(&calls);
    struct sc_put_composite_alarm_req r;
    struct sc_describe_alarm_history_req hr = { 0 };
    struct hist h = { 0 };

    (void)state;
    metric_alarm(cw, "a");
    memset(&r, 0, sizeof(r));
    r.alarm_name = "c";
    r.alarm_rule = "ALARM(a)";
    r.alarm_actions = acts;
    r.n_alarm_actions = 2;
    assert_int_equal(sc_cw_put_composite_alarm(cw, &r, T0, NULL), SC_OK);
    set_state(cw, "a", "ALARM", T0 + 1000);
    sc_cw_step(cw, T0 + 1000);
    assert_int_equal(calls.n, 1);
    assert_string_equal(calls.arn[0], SNS_ARN);
    hr.alarm_name = "c";
    hr.history_item_type = "Action";
    hr.scan_by = "TimestampAscending";
    assert_int_equal(sc_cw_describe_alarm_history(cw, &hr, T0 + 1000, hist_visit, &h, NULL), SC_OK);
    assert_int_equal(h.n, 2);
    assert_string_equal(h.last_summary, "Failed to execute action " AS_ARN
                                        ": composite alarms can't trigger Auto Scaling actions");
    sc_cw_destroy(cw);
}

static void test_alarm_composite_delete_rules(void **state)
{
    struct sc_cw *cw = cw_new(NULL);
    struct sc_error err = { 0 };
    const char *child[] = { "a" }, *two[] = { "p1", "p2" }, *both[] = { "a", "p1", "p2" };
    const char *one_and_child[] = { "p1", "b" };

    (void)state;
    metric_alarm(cw, "a");
    metric_alarm(cw, "b");
    assert_int_equal(put_composite(cw, "p1", "ALARM(a) OR ALARM(b)", T0, NULL), SC_OK);
    assert_int_equal(put_composite(cw, "p2", "ALARM(a)", T0, NULL), SC_OK);
    assert_int_equal(sc_cw_delete_alarms(cw, child, 1, T0, &err), SC_ERR_VALIDATION);
    assert_string_equal(err.message, "Cannot delete a as there are composite alarm(s) depending "
                                     "on it.");
    assert_int_equal(sc_cw_delete_alarms(cw, two, 2, T0, &err), SC_ERR_VALIDATION);
    assert_string_equal(err.message, "You can delete at most one composite alarm at a time.");
    assert_int_equal(sc_cw_delete_alarms(cw, both, 3, T0, &err), SC_ERR_VALIDATION);
    assert_non_null(sc_cw_alarm_find(cw, "a"));
    assert_int_equal(sc_alarms_composite_count(sc_cw_alarms(cw)), 2);
    /* a composite and a child only it uses go together */
    assert_int_equal(sc_cw_delete_alarms(cw, one_and_child, 2, T0, NULL), SC_OK);
    assert_null(sc_cw_alarm_find(cw, "b"));
    assert_null(sc_alarms_composite_find(sc_cw_alarms(cw), "p1"));
    assert_int_equal(sc_cw_delete_alarms(cw, two + 1, 1, T0, NULL), SC_OK);
    assert_int_equal(sc_cw_delete_alarms(cw, child, 1, T0, NULL), SC_OK);
    sc_cw_destroy(cw);
}

struct names {
    int n;
    char s[8][32];
};

static int mvisit(const struct sc_alarm_view *a, void *ud)
{
    struct names *x = ud;
    snprintf(x->s[x->n++], sizeof(x->s[0]), "m:%s", a->alarm_name);
    return 0;
}

static int cvisit(const struct sc_composite_view *c, void *ud)
{
    struct names *x = ud;
    snprintf(x->s[x->n++], sizeof(x->s[0]), "c:%s", c->alarm_name);
    return 0;
}

static void test_alarm_composite_children_and_parents(void **state)
{
    struct sc_cw *cw = cw_new(NULL);
    struct sc_describe_alarms_req dr = { 0 };
    struct names n = { 0 };

    (void)state;
    metric_alarm(cw, "a");
    metric_alarm(cw, "b");
    assert_int_equal(put_composite(cw, "mid", "ALARM(a)", T0, NULL), SC_OK);
    assert_int_equal(put_composite(cw, "top", "ALARM(mid) OR ALARM(b) OR OK(b)", T0, NULL), SC_OK);
    sc_alarms_children_of(sc_cw_alarms(cw), "top", mvisit, cvisit, &n);
    assert_int_equal(n.n, 2);
    assert_string_equal(n.s[0], "m:b");
    assert_string_equal(n.s[1], "c:mid");
    n.n = 0;
    sc_alarms_parents_of(sc_cw_alarms(cw), "a", cvisit, &n);
    assert_int_equal(n.n, 1);
    assert_string_equal(n.s[0], "c:mid");
    n.n = 0;
    dr.state_value = "OK";
    assert_int_equal(sc_cw_describe_composite_alarms(cw, &dr, cvisit, &n, NULL), SC_OK);
    assert_int_equal(n.n, 2); /* a and b are INSUFFICIENT_DATA: both rules are false */
    sc_cw_destroy(cw);
}

static void test_alarm_composite_state_file_round_trip(void **state)
{
    struct sc_cw *cw = suppressed(&(struct calls){ 0 }), *back = cw_new(NULL);
    json_t *j, *j2;
    char *s1, *s2;

    (void)state;
    set_state(cw, "cpu", "ALARM", T0 + 1000);
    sc_cw_step(cw, T0 + 1000);
    j = sc_cw_save(cw);
    assert_non_null(json_object_get(json_object_get(j, "alarms"), "composites"));
    {
        struct sc_error err = { 0 };
        if (sc_cw_load(back, j, &err) != SC_OK)
            fail_msg("load: %s", err.message);
    }
    j2 = sc_cw_save(back);
    s1 = json_dumps(j, JSON_SORT_KEYS);
    s2 = json_dumps(j2, JSON_SORT_KEYS);
    assert_string_equal(s1, s2);
    assert_string_equal(comp(back, "svc")->actions_suppressed_by, "WaitPeriod");
    assert_int_equal(sc_cw_next_due_ms(back, T0 + 2000), T0 + MIN);
    assert_int_equal(sc_alarms_composites_next_due_ms(sc_cw_alarms(back)), T0 + 121000);
    /* a damaged composite is refused and changes nothing */
    json_object_set_new(
        json_array_get(json_object_get(json_object_get(j, "alarms"), "composites"), 0), "rule",
        json_string("ALARM("));
    assert_int_not_equal(sc_cw_load(back, j, NULL), SC_OK);
    assert_string_equal(comp(back, "svc")->alarm_rule, "ALARM(cpu)");
    free(s1);
    free(s2);
    json_decref(j);
    json_decref(j2);
    sc_cw_destroy(cw);
    sc_cw_destroy(back);
}

/* sc_alarm_rule_rename's fn: "cpu" and "mem" (bare, or the name of an alarm ARN) get the
 * prefix "run7-"; anything else is kept. */
static const char *prefix_known(const char *ref, void *ud)
{
    char *buf = ud;
    const char *name = ref, *colon = strstr(ref, ":alarm:");

    if (strncmp(ref, "arn:", 4) == 0 && colon)
        name = colon + 7;
    if (strcmp(name, "cpu") != 0 && strcmp(name, "mem") != 0)
        return NULL;
    snprintf(buf, 256, "%.*srun7-%s", (int)(name - ref), ref, name);
    return buf;
}

/* The rule is renamed through the parser: quoted and bare references and ARNs get the new
 * name, everything else stays as written (a function name, an alarm whose name only
 * contains a known one, the blanks), and a rule that does not parse is the parser's error. */
static void test_alarm_rule_rename_replaces_each_reference(void **state)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "ALARM(\"cpu\") OR ALARM(mem)", "ALARM(\"run7-cpu\") OR ALARM(run7-mem)" },
        { "ALARM( cpu ) AND NOT OK(\"cpu-high\")", "ALARM( run7-cpu ) AND NOT OK(\"cpu-high\")" },
        { "ALARM(\"arn:aws:cloudwatch:us-east-1:123456789012:alarm:cpu\")",
          "ALARM(\"arn:aws:cloudwatch:us-east-1:123456789012:alarm:run7-cpu\")" },
        { "AT_LEAST(1, ALARM, (cpu, \"mem\", disk)) OR TRUE",
          "AT_LEAST(1, ALARM, (run7-cpu, \"run7-mem\", disk)) OR TRUE" },
        { "(ALARM(mem) AND INSUFFICIENT_DATA(cpu))",
          "(ALARM(run7-mem) AND INSUFFICIENT_DATA(run7-cpu))" },
    };
    char buf[256], out[512], small[12];
    struct sc_error err = { 0 };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(
            sc_alarm_rule_rename(cases[i].in, prefix_known, buf, out, sizeof(out), &err), SC_OK);
        assert_string_equal(out, cases[i].want);
    }
    assert_int_equal(
        sc_alarm_rule_rename("ALARM(cpu) OR", prefix_known, buf, out, sizeof(out), &err),
        SC_ERR_VALIDATION);
    assert_non_null(strstr(err.message, "Invalid alarm rule"));
    assert_int_equal(
        sc_alarm_rule_rename("ALARM(cpu)", prefix_known, buf, small, sizeof(small), &err),
        SC_ERR_VALIDATION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alarm_composite_rule_parse_precedence),
        cmocka_unit_test(test_alarm_rule_rename_replaces_each_reference),
        cmocka_unit_test(test_alarm_composite_rule_refs_as_written),
        cmocka_unit_test(test_alarm_composite_rule_parse_errors),
        cmocka_unit_test(test_alarm_rule_at_least_counts_alarms_in_state),
        cmocka_unit_test(test_alarm_rule_at_least_percentage),
        cmocka_unit_test(test_alarm_rule_at_least_not_state),
        cmocka_unit_test(test_alarm_rule_at_least_errors),
        cmocka_unit_test(test_alarm_composite_follows_children),
        cmocka_unit_test(test_alarm_composite_of_composites),
        cmocka_unit_test(test_alarm_composite_refuses_self_reference),
        cmocka_unit_test(test_alarm_composite_refuses_missing_alarms),
        cmocka_unit_test(test_alarm_composite_actions_suppressor_wait),
        cmocka_unit_test(test_alarm_composite_actions_suppressor_extension),
        cmocka_unit_test(test_alarm_composite_actions_suppressor_drops_when_ok),
        cmocka_unit_test(test_alarm_composite_autoscaling_action_never_runs),
        cmocka_unit_test(test_alarm_composite_delete_rules),
        cmocka_unit_test(test_alarm_composite_children_and_parents),
        cmocka_unit_test(test_alarm_composite_state_file_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
