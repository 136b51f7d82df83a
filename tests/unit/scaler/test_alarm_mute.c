/* tests/unit/scaler/test_alarm_mute.c: scaler/alarm_mute.c (what a mute rule mutes, its
 * status over time, bad input, the state file), through scaler/cloudwatch.h */
#include "scaler/alarm_mute.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/cloudwatch.h"

#define T0      1767225600000LL /* 2026-01-01T00:00:00Z */
#define MIN     60000LL
#define HOUR    (60 * MIN)
#define SNS_ARN "arn:aws:sns:us-east-1:123456789012:topic"

static int calls;

static const char *on_action(const char *arn, const struct sc_alarm_view *a, int64_t now_ms,
                             void *ud)
{
    (void)arn;
    (void)a;
    (void)now_ms;
    (void)ud;
    calls++;
    return NULL;
}

static struct sc_cw *cw_new(void)
{
    static const char *const acts[] = { SNS_ARN };
    struct sc_cw_config cfg;
    struct sc_put_metric_alarm_req r;
    struct sc_cw *cw;

    sc_cw_config_defaults(&cfg);
    cfg.start_ms = T0;
    cw = sc_cw_create(&cfg);
    assert_non_null(cw);
    sc_cw_set_action_handler(cw, on_action, NULL);
    memset(&r, 0, sizeof(r));
    r.alarm_name = "a";
    r.metric_name = "M";
    r.namespace = "App";
    r.statistic = "Maximum";
    r.has_period = r.has_evaluation_periods = r.has_threshold = 1;
    r.period = 60;
    r.evaluation_periods = 1;
    r.threshold = 10;
    r.comparison_operator = "GreaterThanThreshold";
    r.treat_missing_data = "ignore";
    r.alarm_actions = acts;
    r.n_alarm_actions = 1;
    r.ok_actions = acts;
    r.n_ok_actions = 1;
    assert_int_equal(sc_cw_put_metric_alarm(cw, &r, T0, NULL), SC_OK);
    calls = 0;
    return cw;
}

static enum sc_status put_rule(struct sc_cw *cw, const char *expr, const char *dur, int64_t now,
                               struct sc_error *err)
{
    static const char *const targets[] = { "a" };
    struct sc_put_alarm_mute_rule_req r = { 0 };

    r.name = "quiet";
    r.expression = expr;
    r.duration = dur;
    r.alarm_names = targets;
    r.n_alarm_names = 1;
    return sc_alarms_put_mute_rule(sc_cw_alarms(cw), &r, now, err);
}

static void set_state(struct sc_cw *cw, const char *state, int64_t now)
{
    struct sc_set_alarm_state_req s = { "a", state, "test", NULL };
    sc_cw_step(cw, now); /* the evaluation ticks up to now first */
    assert_int_equal(sc_cw_set_alarm_state(cw, &s, now, NULL), SC_OK);
    sc_cw_step(cw, now);
}

static const char *status(struct sc_cw *cw, int64_t now)
{
    const struct sc_alarm_mute_rule_view *v;
    assert_int_equal(sc_alarms_get_mute_rule(sc_cw_alarms(cw), "quiet", now, &v, NULL), SC_OK);
    return v->status;
}

/* TagResource / UntagResource / ListTagsForResource reach a mute rule by its ARN. */
static int count_tag(const char *k, const char *v, void *ud)
{
    (void)v;
    *(int *)ud += strcmp(k, "team") == 0 ? 10 : 1;
    return 0;
}

static void test_alarm_mute_rule_tags_by_arn(void **state)
{
    struct sc_cw *cw = cw_new();
    const struct sc_alarm_mute_rule_view *v;
    struct sc_tag t[] = { { "team", "a" }, { "env", "lab" } };
    const char *keys[] = { "env" };
    int n = 0;

    (void)state;
    assert_int_equal(put_rule(cw, "at(2026-01-01T00:05)", "PT10M", T0, NULL), SC_OK);
    assert_int_equal(sc_alarms_get_mute_rule(sc_cw_alarms(cw), "quiet", T0, &v, NULL), SC_OK);
    assert_int_equal(sc_cw_tag_resource(cw, v->arn, t, 2, NULL), SC_OK);
    assert_int_equal(sc_cw_untag_resource(cw, v->arn, keys, 1, NULL), SC_OK);
    assert_int_equal(sc_cw_list_tags_for_resource(cw, v->arn, count_tag, &n, NULL), SC_OK);
    assert_int_equal(n, 10);
    sc_cw_destroy(cw);
}

static void test_alarm_mute_rule_mutes_actions_while_active(void **state)
{
    struct sc_cw *cw = cw_new();

    (void)state;
    assert_int_equal(put_rule(cw, "at(2026-01-01T00:05)", "PT10M", T0, NULL), SC_OK);
    set_state(cw, "ALARM", T0 + 1000);
    assert_int_equal(calls, 1); /* before the window */
    set_state(cw, "OK", T0 + 6 * MIN);
    assert_string_equal(sc_cw_alarm_find(cw, "a")->state_value, "OK"); /* still transitions */
    assert_int_equal(calls, 1);                                        /* muted */
    set_state(cw, "ALARM", T0 + 14 * MIN + 59000);
    assert_int_equal(calls, 1);
    set_state(cw, "OK", T0 + 15 * MIN); /* the window is [00:05, 00:15) */
    assert_int_equal(calls, 2);
    assert_string_equal(status(cw, T0 + 15 * MIN), "EXPIRED");
    sc_cw_destroy(cw);
}

static void test_alarm_mute_rule_recurring_status(void **state)
{
    struct sc_cw *cw = cw_new();
    const struct sc_alarm_mute_rule_view *v;
    static const char *const targets[] = { "a" };
    struct sc_put_alarm_mute_rule_req r = { 0 };

    (void)state;
    assert_int_equal(put_rule(cw, "cron(0 2 * * *)", "PT1H", T0, NULL), SC_OK);
    assert_string_equal(status(cw, T0 + 2 * HOUR - 1), "SCHEDULED");
    assert_string_equal(status(cw, T0 + 2 * HOUR), "ACTIVE");
    assert_string_equal(status(cw, T0 + 3 * HOUR - 1), "ACTIVE");
    assert_string_equal(status(cw, T0 + 3 * HOUR), "SCHEDULED");
    assert_string_equal(status(cw, T0 + 26 * HOUR + 30 * MIN), "ACTIVE"); /* the next day */
    assert_int_equal(sc_alarms_is_muted(sc_cw_alarms(cw), "a", T0 + 2 * HOUR + 1), 1);
    assert_int_equal(sc_alarms_is_muted(sc_cw_alarms(cw), "b", T0 + 2 * HOUR + 1), 0);
    assert_int_equal(sc_alarms_get_mute_rule(sc_cw_alarms(cw), "quiet", T0, &v, NULL), SC_OK);
    assert_string_equal(v->mute_type, "RECURRING");
    assert_string_equal(v->arn, "arn:aws:cloudwatch:us-east-1:123456789012:alarm-mute-rule:quiet");
    /* StartDate and ExpireDate bound it */
    r.name = "quiet";
    r.expression = "cron(0 2 * * *)";
    r.duration = "PT1H";
    r.alarm_names = targets;
    r.n_alarm_names = 1;
    r.has_start_date = 1;
    r.start_date_ms = T0 + 24 * HOUR;
    r.has_expire_date = 1;
    r.expire_date_ms = T0 + 48 * HOUR;
    assert_int_equal(sc_alarms_put_mute_rule(sc_cw_alarms(cw), &r, T0, NULL), SC_OK);
    assert_string_equal(status(cw, T0 + 2 * HOUR + 1), "SCHEDULED");
    assert_string_equal(status(cw, T0 + 26 * HOUR + 1), "ACTIVE");
    assert_string_equal(status(cw, T0 + 48 * HOUR), "EXPIRED");
    sc_cw_destroy(cw);
}

static void test_alarm_mute_rule_refuses_bad_input(void **state)
{
    static const struct {
        const char *expr, *dur, *text;
    } bad[] = {
        { "cron(0 2 * *)", "PT1H", "Invalid schedule expression: cron(0 2 * *)" },
        { "rate(5 minutes)", "PT1H", "Invalid schedule expression: rate(5 minutes)" },
        { "at(2026-13-01T00:00)", "PT1H", "Invalid schedule expression: at(2026-13-01T00:00)" },
        { "cron(0 2 * * *)", "PT30S", "Invalid duration: PT30S (ISO 8601, PT1M to P15D)" },
        { "cron(0 2 * * *)", "P16D", "Invalid duration: P16D (ISO 8601, PT1M to P15D)" },
        { "cron(0 2 * * *)", "1H", "Invalid duration: 1H (ISO 8601, PT1M to P15D)" },
    };
    struct sc_cw *cw = cw_new();
    struct sc_error err = { 0 };
    static const char *const targets[] = { "a", "ghost" };
    struct sc_put_alarm_mute_rule_req r = { 0 };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(put_rule(cw, bad[i].expr, bad[i].dur, T0, &err), SC_ERR_VALIDATION);
        assert_string_equal(err.message, bad[i].text);
    }
    r.name = "x";
    r.expression = "cron(0 2 * * *)";
    r.duration = "P2DT12H";
    r.alarm_names = targets;
    r.n_alarm_names = 2;
    assert_int_equal(sc_alarms_put_mute_rule(sc_cw_alarms(cw), &r, T0, &err), SC_ERR_VALIDATION);
    assert_string_equal(err.message, "The alarms [ghost] in MuteTargets do not exist");
    r.n_alarm_names = 1;
    r.timezone = "Asia/Tokyo"; /* no zone database in this world */
    assert_int_equal(sc_alarms_put_mute_rule(sc_cw_alarms(cw), &r, T0, &err), SC_ERR_VALIDATION);
    assert_string_equal(err.message, "Unknown time zone: Asia/Tokyo");
    r.timezone = NULL;
    r.expression = "at(2026-02-01T00:00)";
    r.has_start_date = 1;
    assert_int_equal(sc_alarms_put_mute_rule(sc_cw_alarms(cw), &r, T0, &err), SC_ERR_VALIDATION);
    assert_int_equal(sc_alarms_mute_rule_count(sc_cw_alarms(cw)), 0);
    assert_int_equal(sc_alarms_get_mute_rule(sc_cw_alarms(cw), "x", T0,
                                             &(const struct sc_alarm_mute_rule_view *){ 0 }, &err),
                     SC_ERR_RESOURCE_NOT_FOUND_EXCEPTION);
    assert_string_equal(err.message, "The alarm mute rule x does not exist.");
    sc_cw_destroy(cw);
}

static void test_alarm_mute_rule_state_file_round_trip(void **state)
{
    struct sc_cw *cw = cw_new(), *back = cw_new();
    json_t *j, *j2;
    char *s1, *s2;

    (void)state;
    assert_int_equal(put_rule(cw, "cron(30 1 * * MON)", "PT2H", T0, NULL), SC_OK);
    j = sc_cw_save(cw);
    assert_int_equal(sc_cw_load(back, j, NULL), SC_OK);
    j2 = sc_cw_save(back);
    s1 = json_dumps(j, JSON_SORT_KEYS);
    s2 = json_dumps(j2, JSON_SORT_KEYS);
    assert_string_equal(s1, s2);
    assert_int_equal(sc_alarms_mute_rule_count(sc_cw_alarms(back)), 1);
    free(s1);
    free(s2);
    json_decref(j);
    json_decref(j2);
    sc_cw_destroy(cw);
    sc_cw_destroy(back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alarm_mute_rule_mutes_actions_while_active),
        cmocka_unit_test(test_alarm_mute_rule_tags_by_arn),
        cmocka_unit_test(test_alarm_mute_rule_recurring_status),
        cmocka_unit_test(test_alarm_mute_rule_refuses_bad_input),
        cmocka_unit_test(test_alarm_mute_rule_state_file_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
