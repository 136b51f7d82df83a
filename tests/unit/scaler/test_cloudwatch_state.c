/* tests/unit/scaler/test_cloudwatch_state.c: scaler/cloudwatch.c and alarm.c save/load (the
 * emulator's state file) and the put observer (its metric journal). */
#include "scaler/cloudwatch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define T0  1767225600000LL /* 2026-01-01T00:00:00Z */
#define MIN 60000LL
#define AS_ARN                                                                                     \
    "arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:u:autoScalingGroupName/g:policyName/up"

static struct sc_cw *cw_new(void)
{
    struct sc_cw_config c;
    struct sc_cw *cw;

    sc_cw_config_defaults(&c);
    c.start_ms = T0;
    cw = sc_cw_create(&c);
    assert_non_null(cw);
    return cw;
}

static void put(struct sc_cw *cw, const char *name, double v, int64_t ts)
{
    struct sc_dimension dim = { "Host", "a" };
    struct sc_metric_datum d = { .metric_name = name,
                                 .dimensions = &dim,
                                 .n_dimensions = 1,
                                 .has_value = 1,
                                 .value = v,
                                 .has_timestamp = 1,
                                 .timestamp_ms = ts };
    struct sc_put_metric_data_req r = { "App", &d, 1, 0 };
    assert_int_equal(sc_cw_put_metric_data(cw, &r, ts, NULL), SC_OK);
}

static void put_alarm(struct sc_cw *cw, const char *name, const char *metric, double threshold,
                      int with_extras)
{
    struct sc_dimension dim = { "Host", "a" };
    const char *acts[] = { AS_ARN };
    struct sc_tag tags[] = { { "team", "blue" }, { "env", "lab" } };
    struct sc_put_metric_alarm_req r;

    memset(&r, 0, sizeof(r));
    r.alarm_name = name;
    r.metric_name = metric;
    r.namespace = "App";
    r.dimensions = &dim;
    r.n_dimensions = 1;
    r.has_period = 1;
    r.period = 60;
    r.has_evaluation_periods = 1;
    r.evaluation_periods = 3;
    r.has_threshold = 1;
    r.threshold = threshold;
    r.comparison_operator = "GreaterThanThreshold";
    r.alarm_actions = acts;
    r.n_alarm_actions = 1;
    if (with_extras) {
        r.alarm_description = "high \"load\"\n";
        r.extended_statistic = "p99.5";
        r.has_datapoints_to_alarm = 1;
        r.datapoints_to_alarm = 2;
        r.treat_missing_data = "breaching";
        r.unit = "Percent";
        r.tags = tags;
        r.n_tags = 2;
        r.ok_actions = acts;
        r.n_ok_actions = 1;
    } else {
        r.statistic = "Average";
    }
    assert_int_equal(sc_cw_put_metric_alarm(cw, &r, T0, NULL), SC_OK);
}

static const char *handler(const char *arn, const struct sc_alarm_view *al, int64_t now, void *ud)
{
    (void)arn;
    (void)al;
    (void)now;
    (*(int *)ud)++;
    return NULL;
}

/* A service with alarms in every state, history of every type, tags, pending actions. */
static struct sc_cw *busy_cw(int *calls)
{
    struct sc_cw *cw = cw_new();
    const char *names[] = { "quiet" };
    struct sc_set_alarm_state_req ss = { "manual", "ALARM", "by hand", "{\"a\":1}" };

    sc_cw_set_action_handler(cw, handler, calls);
    put_alarm(cw, "high", "Load", 50, 0);
    put_alarm(cw, "tail", "Load", 10, 1);
    put_alarm(cw, "quiet", "Other", 1e300, 0);
    put_alarm(cw, "manual", "Other", -2.5, 0);
    for (int i = 0; i < 6; i++)
        put(cw, "Load", 70.25 + i, T0 + i * MIN);
    sc_cw_step(cw, T0 + 6 * MIN);
    assert_int_equal(sc_cw_disable_alarm_actions(cw, names, 1, T0 + 6 * MIN, NULL), SC_OK);
    assert_int_equal(sc_cw_set_alarm_state(cw, &ss, T0 + 6 * MIN + 500, NULL), SC_OK);
    return cw;
}

static void test_cloudwatch_state_round_trip(void **state)
{
    int calls = 0, calls2 = 0;
    struct sc_cw *cw = busy_cw(&calls), *cw2 = cw_new();
    json_t *j1, *j2;
    char *s1, *s2;
    const struct sc_alarm_view *v;
    struct sc_error err;

    (void)state;
    assert_true(calls > 0);
    assert_string_equal(sc_cw_alarm_find(cw, "high")->state_value, "ALARM");
    j1 = sc_cw_save(cw);
    assert_non_null(j1);
    /* through text, as the state file does */
    s1 = json_dumps(j1, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(j1);
    j1 = json_loads(s1, 0, NULL);
    assert_non_null(j1);
    assert_int_equal(sc_cw_load(cw2, j1, &err), SC_OK);
    j2 = sc_cw_save(cw2);
    s2 = json_dumps(j2, JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(s1, s2);
    /* what the API shows is the same */
    v = sc_cw_alarm_find(cw2, "tail");
    assert_non_null(v);
    assert_string_equal(v->alarm_description, "high \"load\"\n");
    assert_string_equal(v->extended_statistic, "p99.5");
    assert_int_equal(v->datapoints_to_alarm, 2);
    assert_string_equal(v->treat_missing_data, "breaching");
    assert_string_equal(v->state_reason, sc_cw_alarm_find(cw, "tail")->state_reason);
    assert_int_equal(v->n_recent_values, sc_cw_alarm_find(cw, "tail")->n_recent_values);
    assert_false(sc_cw_alarm_find(cw2, "quiet")->actions_enabled);
    assert_string_equal(sc_cw_alarm_find(cw2, "manual")->state_reason_data, "{\"a\":1}");
    /* the pending SetAlarmState actions survive and run once in the loaded service */
    sc_cw_set_action_handler(cw2, handler, &calls2);
    assert_int_equal(sc_cw_next_due_ms(cw2, T0 + 6 * MIN + 600), T0 + 6 * MIN + 600);
    sc_cw_step(cw2, T0 + 6 * MIN + 600);
    assert_int_equal(calls2, 1);
    /* the evaluation clock continues where it was */
    sc_cw_step(cw, T0 + 6 * MIN + 600);
    assert_int_equal(sc_cw_next_due_ms(cw2, T0 + 6 * MIN + 700),
                     sc_cw_next_due_ms(cw, T0 + 6 * MIN + 700));
    free(s1);
    free(s2);
    json_decref(j1);
    json_decref(j2);
    sc_cw_destroy(cw);
    sc_cw_destroy(cw2);
}

static int count_hist(const struct sc_alarm_history_view *h, void *ud)
{
    (void)h;
    (*(int *)ud)++;
    return 0;
}

static void test_cloudwatch_state_history_and_tags_survive(void **state)
{
    int calls = 0, n1 = 0, n2 = 0;
    struct sc_cw *cw = busy_cw(&calls), *cw2 = cw_new();
    struct sc_describe_alarm_history_req hr;
    json_t *j = sc_cw_save(cw);
    char arn[256];
    struct sc_tag tag = { "k", "v" };

    (void)state;
    memset(&hr, 0, sizeof(hr));
    assert_int_equal(sc_cw_load(cw2, j, NULL), SC_OK);
    sc_cw_describe_alarm_history(cw, &hr, T0 + 7 * MIN, count_hist, &n1, NULL);
    sc_cw_describe_alarm_history(cw2, &hr, T0 + 7 * MIN, count_hist, &n2, NULL);
    assert_true(n1 >= 6);
    assert_int_equal(n1, n2);
    snprintf(arn, sizeof(arn), "%s", sc_cw_alarm_find(cw2, "tail")->alarm_arn);
    assert_string_equal(arn, "arn:aws:cloudwatch:us-east-1:123456789012:alarm:tail");
    assert_int_equal(sc_cw_tag_resource(cw2, arn, &tag, 1, NULL), SC_OK);
    json_decref(j);
    sc_cw_destroy(cw);
    sc_cw_destroy(cw2);
}

/* The base both alarm kinds share (alarm_base in alarm_internal.h) keeps each kind's state
 * file form: a metric alarm's state by name and tags as [key, value] pairs, a composite's
 * state by number and tags as {"key", "value"} objects; either form loads back, and a
 * reloaded store saves the same document. */
static void test_cloudwatch_state_alarm_base_keeps_each_form(void **state)
{
    struct sc_cw *cw = busy_cw(&(int){ 0 }), *back = cw_new();
    struct sc_tag tags[] = { { "team", "red" } };
    struct sc_put_composite_alarm_req c;
    const json_t *al = NULL, *co;
    json_t *j, *j2, *arr;
    size_t i;

    (void)state;
    memset(&c, 0, sizeof(c));
    c.alarm_name = "both";
    c.alarm_rule = "ALARM(high) AND ALARM(tail)";
    c.tags = tags;
    c.n_tags = 1;
    assert_int_equal(sc_cw_put_composite_alarm(cw, &c, T0 + 7 * MIN, NULL), SC_OK);
    j = sc_cw_save(cw);
    assert_non_null(j);
    arr = json_object_get(json_object_get(j, "alarms"), "alarms");
    for (i = 0; i < json_array_size(arr); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(arr, i), "name")), "tail") == 0)
            al = json_array_get(arr, i);
    assert_non_null(al);
    assert_true(json_is_string(json_object_get(al, "state")));
    assert_true(json_is_array(json_array_get(json_object_get(al, "tags"), 0)));
    assert_null(json_object_get(al, "arn"));
    co = json_array_get(json_object_get(json_object_get(j, "alarms"), "composites"), 0);
    assert_non_null(co);
    assert_true(json_is_integer(json_object_get(co, "state")));
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(co, "tags"), 0), "key")),
        "team");
    assert_string_equal(json_string_value(json_object_get(co, "arn")),
                        "arn:aws:cloudwatch:us-east-1:123456789012:alarm:both");
    assert_int_equal(sc_cw_load(back, j, NULL), SC_OK);
    j2 = sc_cw_save(back);
    assert_true(json_equal(j, j2));
    json_decref(j);
    json_decref(j2);
    sc_cw_destroy(cw);
    sc_cw_destroy(back);
}

/* Corrupt input: each mutation fails with a message and leaves the target untouched. */
static void test_cloudwatch_state_corrupt_input_changes_nothing(void **state)
{
    static const char *const mutations[] = {
        "version=2",
        "started=\"yes\"",
        "alarms.version=7",
        "alarms.alarms=3",
        "a0.name=null",
        "a0.name=\"\"",
        "a0.period=\"60\"",
        "a0.period=7",
        "a0.evaluation_periods=99999999999",
        "a0.comparison_operator=\"Sideways\"",
        "a0.state=\"MAYBE\"",
        "a0.threshold=\"x\"",
        "a0.recent=[1,\"x\"]",
        "a0.dimensions=[[\"a\"]]",
        "a0.tags=[[\"k\",1]]",
        "a0.ok_actions=[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\"]",
        "a0.pending=1",
        "a0=5",
        "dup",
        "h0.type=\"Gossip\"",
        "h0.ts=\"now\"",
    };
    int calls = 0;
    struct sc_cw *src = busy_cw(&calls);
    json_t *good = sc_cw_save(src);

    (void)state;
    for (size_t i = 0; i < sizeof(mutations) / sizeof(mutations[0]); i++) {
        const char *m = mutations[i];
        json_t *j = json_deep_copy(good), *obj = j, *alarms = json_object_get(j, "alarms");
        const char *eq = strchr(m, '=');
        struct sc_cw *dst = cw_new();
        json_t *before, *after;
        struct sc_error err;
        char key[64];

        put_alarm(dst, "keep", "Load", 1, 0);
        before = sc_cw_save(dst);
        if (strcmp(m, "dup") == 0) {
            json_t *list = json_object_get(alarms, "alarms");
            json_array_append(list, json_array_get(list, 0));
        } else {
            const char *k = m;
            if (strncmp(m, "alarms.", 7) == 0) {
                obj = alarms;
                k = m + 7;
            } else if (strncmp(m, "a0", 2) == 0) {
                obj = json_array_get(json_object_get(alarms, "alarms"), 0);
                k = m + 3;
            } else if (strncmp(m, "h0", 2) == 0) {
                obj = json_array_get(json_object_get(alarms, "history"), 0);
                k = m + 3;
            }
            if (k == m + 3 && m[2] == '=') { /* replace the whole alarm */
                json_array_set_new(json_object_get(alarms, "alarms"), 0,
                                   json_loads(eq + 1, JSON_DECODE_ANY, NULL));
            } else {
                snprintf(key, sizeof(key), "%.*s", (int)(eq - k), k);
                json_object_set_new(obj, key, json_loads(eq + 1, JSON_DECODE_ANY, NULL));
            }
        }
        memset(&err, 0, sizeof(err));
        if (sc_cw_load(dst, j, &err) == SC_OK)
            fail_msg("mutation %s loaded", m);
        assert_true(strlen(err.message) > 0);
        after = sc_cw_save(dst);
        if (!json_equal(before, after))
            fail_msg("mutation %s changed the target", m);
        json_decref(before);
        json_decref(after);
        json_decref(j);
        sc_cw_destroy(dst);
    }
    json_decref(good);
    sc_cw_destroy(src);
}

struct seen {
    int calls, data;
    int64_t ts[8];
};

static void observer(const struct sc_put_metric_data_req *req, int64_t now_ms, void *ud)
{
    struct seen *s = ud;

    s->calls++;
    for (int i = 0; i < req->n_metric_data; i++) {
        const struct sc_metric_datum *d = &req->metric_data[i];
        if (s->data < 8)
            s->ts[s->data] = d->has_timestamp ? d->timestamp_ms : now_ms;
        s->data++;
    }
}

static void test_cloudwatch_state_put_observer_sees_stored_puts(void **state)
{
    struct sc_cw *cw = cw_new();
    struct seen s = { 0 };
    struct sc_metric_datum bad = { .metric_name = "M" }; /* no value: refused */
    struct sc_metric_datum ok = { .metric_name = "M", .has_value = 1, .value = 1 };
    struct sc_put_metric_data_req rb = { "App", &bad, 1, 0 }, ro = { "App", &ok, 1, 0 };

    (void)state;
    sc_cw_set_put_observer(cw, observer, &s);
    assert_int_not_equal(sc_cw_put_metric_data(cw, &rb, T0, NULL), SC_OK);
    assert_int_equal(s.calls, 0);
    assert_int_equal(sc_cw_put_metric_data(cw, &ro, T0 + 5, NULL), SC_OK);
    assert_int_equal(sc_cw_put_value(cw, "AWS/EC2", "CPUUtilization", NULL, 0, "Percent", 3,
                                     T0 + 1000, T0 + 2000),
                     SC_OK);
    assert_int_equal(s.calls, 2);
    assert_int_equal(s.data, 2);
    assert_int_equal(s.ts[0], T0 + 5);
    assert_int_equal(s.ts[1], T0 + 1000);
    sc_cw_destroy(cw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cloudwatch_state_round_trip),
        cmocka_unit_test(test_cloudwatch_state_history_and_tags_survive),
        cmocka_unit_test(test_cloudwatch_state_alarm_base_keeps_each_form),
        cmocka_unit_test(test_cloudwatch_state_corrupt_input_changes_nothing),
        cmocka_unit_test(test_cloudwatch_state_put_observer_sees_stored_puts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
