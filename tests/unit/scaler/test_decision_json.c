/* tests/unit/scaler/test_decision_json.c: scaler/decision_json.c: a decision record and a
 * lifecycle-hook note written as the emulator's event members and read back into records
 * that format to the same line (the rule that both worlds print one record one way), and
 * the readers' refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <string.h>

#include "scaler/decision.h"
#include "scaler/decision_json.h"

/* d to JSON (with the event's group and time_ms as the emulator adds them), back, and
 * both formatted: the same line. Returns the record read. */
static struct sc_decision round_trip(const struct sc_decision *d)
{
    json_t *o = json_object();
    struct sc_decision back;
    char a[1024], b[1024];

    json_object_set_new(o, "group", json_string(d->group));
    json_object_set_new(o, "time_ms", json_integer(d->time_ms));
    sc_decision_to_json(o, d);
    assert_int_equal(sc_decision_from_json(o, &back), 0);
    json_decref(o);
    sc_decision_format(d, a, sizeof(a));
    sc_decision_format(&back, b, sizeof(b));
    assert_string_equal(a, b);
    return back;
}

static struct sc_decision simple(void)
{
    struct sc_decision d;

    memset(&d, 0, sizeof(d));
    d.time_ms = 1700000060000;
    strcpy(d.group, "web");
    strcpy(d.policy, "add-one");
    strcpy(d.alarm, "cpu-high");
    d.policy_type = "SimpleScaling";
    d.trigger = "alarm";
    d.has_metric = 1;
    d.metric = 76.9802;
    d.has_threshold = 1;
    d.threshold = 60;
    d.direction = 1;
    d.current = 1;
    d.counted = 1;
    d.computed = 2;
    d.desired = 2;
    d.min_size = 1;
    d.max_size = 3;
    strcpy(d.arithmetic, "1 + 1 = 2");
    return d;
}

static void test_decision_json_changed_round_trip(void **state)
{
    struct sc_decision d = simple(), back;

    (void)state;
    back = round_trip(&d);
    assert_int_equal(back.reason, SC_DECISION_CHANGED);
    assert_int_equal(back.time_ms, d.time_ms);
    assert_string_equal(back.policy_type, "SimpleScaling");
    assert_string_equal(back.trigger, "alarm");
    assert_true(back.has_metric && back.metric == d.metric);
    assert_false(back.has_target);
    assert_int_equal(back.direction, 1);
    assert_int_equal(back.desired, 2);
}

static void test_decision_json_unchanged_reasons_round_trip(void **state)
{
    struct sc_decision d = simple(), back;

    (void)state;
    /* cooldown with its seconds */
    d.reason = SC_DECISION_COOLDOWN;
    d.cooldown_left_s = 277;
    d.current = d.counted = d.desired = 2;
    d.computed = 3;
    strcpy(d.arithmetic, "2 + 1 = 3");
    back = round_trip(&d);
    assert_int_equal(back.reason, SC_DECISION_COOLDOWN);
    assert_int_equal(back.cooldown_left_s, 277);
    /* suspended names its process, libscaler's own string */
    d.reason = SC_DECISION_SUSPENDED;
    d.process = "Launch";
    back = round_trip(&d);
    assert_string_equal(back.process, "Launch");
    /* every reason reads back as itself */
    for (int r = 1; r < SC_DECISION_REASON_COUNT; r++) {
        d.reason = (enum sc_decision_reason)r;
        back = round_trip(&d);
        assert_int_equal(back.reason, r);
    }
}

static void test_decision_json_target_tracking_capped_round_trip(void **state)
{
    struct sc_decision d = simple(), back;

    (void)state;
    d.policy_type = "TargetTrackingScaling";
    d.has_threshold = 0;
    d.has_target = 1;
    d.target = 50;
    d.metric = 100;
    d.current = d.counted = 2;
    d.computed = 4;
    d.desired = 3;
    d.capped = 1;
    strcpy(d.arithmetic, "ceil(2 × 100 / 50) = 4");
    back = round_trip(&d);
    assert_int_equal(back.capped, 1);
    assert_true(back.has_target && back.target == 50);
    assert_string_equal(back.arithmetic, "ceil(2 × 100 / 50) = 4");
    /* ExecutePolicy: no alarm */
    d.trigger = "ExecutePolicy";
    d.alarm[0] = '\0';
    d.capped = -1;
    back = round_trip(&d);
    assert_string_equal(back.trigger, "ExecutePolicy");
    assert_int_equal(back.capped, -1);
}

static void test_decision_json_refuses_what_is_not_a_decision(void **state)
{
    static const char *const bad[] = {
        "[]",
        "{}",
        /* no counts */
        "{\"policy\":\"p\",\"result\":\"changed\",\"direction\":\"out\"}",
        /* an unknown reason */
        "{\"policy\":\"p\",\"result\":\"unchanged\",\"reason\":\"bored\",\"direction\":\"out\","
        "\"current\":1,\"counted\":1,\"warming\":0,\"computed\":2,\"desired\":1,\"min\":1,"
        "\"max\":1}",
        /* changed with a reason */
        "{\"policy\":\"p\",\"result\":\"changed\",\"reason\":\"at-max\",\"direction\":\"out\","
        "\"current\":1,\"counted\":1,\"warming\":0,\"computed\":2,\"desired\":2,\"min\":1,"
        "\"max\":2}",
        /* a count that is not an integer */
        "{\"policy\":\"p\",\"result\":\"changed\",\"direction\":\"out\",\"current\":\"1\","
        "\"counted\":1,\"warming\":0,\"computed\":2,\"desired\":2,\"min\":1,\"max\":2}",
        /* an unknown direction */
        "{\"policy\":\"p\",\"result\":\"changed\",\"direction\":\"up\",\"current\":1,"
        "\"counted\":1,\"warming\":0,\"computed\":2,\"desired\":2,\"min\":1,\"max\":2}",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *o = json_loads(bad[i], 0, NULL);
        struct sc_decision d;

        assert_non_null(o);
        memset(&d, 0x55, sizeof(d));
        assert_int_equal(sc_decision_from_json(o, &d), -1);
        assert_int_equal(d.current, 0); /* zeroed */
        assert_string_equal(d.policy, "");
        json_decref(o);
    }
}

static void test_hook_note_json_round_trip(void **state)
{
    (void)state;
    for (int k = 0; k < SC_HOOK_KIND_COUNT; k++) {
        struct sc_hook_note h, back;
        json_t *o = json_object();
        char a[1024], b[1024];

        memset(&h, 0, sizeof(h));
        h.time_ms = 1700000000000 + k;
        h.kind = (enum sc_hook_note_kind)k;
        strcpy(h.group, "web");
        strcpy(h.hook, "warm-cache");
        strcpy(h.instance_id, "i-0123456789abcdef0");
        strcpy(h.token, "tok");
        h.launching = k % 2 == 0;
        h.heartbeat_timeout_s = 300;
        strcpy(h.result, k == SC_HOOK_COMPLETED ? "CONTINUE" : "ABANDON");
        h.why = k == SC_HOOK_TIMEOUT ? "Global Timeout" : NULL;
        json_object_set_new(o, "group", json_string(h.group));
        json_object_set_new(o, "time_ms", json_integer(h.time_ms));
        sc_hook_note_to_json(o, &h);
        assert_int_equal(sc_hook_note_from_json(o, &back), 0);
        sc_hook_note_format(&h, a, sizeof(a));
        sc_hook_note_format(&back, b, sizeof(b));
        assert_string_equal(a, b);
        assert_int_equal(back.kind, k);
        assert_int_equal(back.launching, h.launching);
        assert_int_equal(back.time_ms, h.time_ms);
        assert_string_equal(back.result, h.result);
        json_decref(o);
    }
}

static void test_hook_note_json_refuses_unknown_kind(void **state)
{
    json_t *o =
        json_loads("{\"hook\":\"h\",\"to\":\"sleeping\",\"transition\":\"launching\"}", 0, NULL);
    json_t *o2 =
        json_loads("{\"hook\":\"h\",\"to\":\"waiting\",\"transition\":\"rebooting\"}", 0, NULL);
    struct sc_hook_note h;

    (void)state;
    assert_int_equal(sc_hook_note_from_json(o, &h), -1);
    assert_int_equal(sc_hook_note_from_json(o2, &h), -1);
    json_decref(o);
    json_decref(o2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decision_json_changed_round_trip),
        cmocka_unit_test(test_decision_json_unchanged_reasons_round_trip),
        cmocka_unit_test(test_decision_json_target_tracking_capped_round_trip),
        cmocka_unit_test(test_decision_json_refuses_what_is_not_a_decision),
        cmocka_unit_test(test_hook_note_json_round_trip),
        cmocka_unit_test(test_hook_note_json_refuses_unknown_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
