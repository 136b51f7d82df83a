/* tests/unit/sim/test_timeline.c: sinks see every push; the kept copy stays within its
 * bucket budget, covers the whole run and merges min/mean/max exactly; events thin
 * evenly. */
#include "scaler/sim/timeline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/decision.h"

static int seen_samples, seen_events;

static void count_sample(const struct sim_sample *s, void *ud)
{
    (void)s;
    (void)ud;
    seen_samples++;
}

static void count_event(const struct sim_event *e, void *ud)
{
    (void)e;
    (void)ud;
    seen_events++;
}

static struct sim_timeline *make(int max_buckets, int max_events)
{
    static const char *const groups[] = { "g" };
    static const struct sim_alarm_info alarms[] = { { "high", "CPUUtilization",
                                                      "GreaterThanThreshold", 80, NULL } };
    struct sim_timeline_config c = { 0 };

    c.start_ms = 0;
    c.end_ms = 1000 * 60000;
    c.interval_ms = 60000;
    c.scenario_name = "t";
    c.ngroups = 1;
    c.group_names = groups;
    c.nalarms = 1;
    c.alarms = alarms;
    c.max_buckets = max_buckets;
    c.max_events = max_events;
    return sim_timeline_create(&c);
}

static void push(struct sim_timeline *tl, int i)
{
    struct sim_group_sample g = { 0 };
    enum sim_alarm_state a = i % 4 == 0 ? SIM_ALARM_ALARM : SIM_ALARM_OK;
    struct sim_sample s = { 0 };

    g.desired = i;
    g.in_service = i;
    g.cpu_pct = i % 2 ? NAN : (double)i;
    s.t_ms = (int64_t)(i + 1) * 60000;
    s.interval_ms = 60000;
    s.load = i;
    s.completed = 1;
    s.ngroups = 1;
    s.groups = &g;
    s.nalarms = 1;
    s.alarms = &a;
    sim_timeline_push_sample(tl, &s);
}

static void test_timeline_downsamples_within_budget(void **state)
{
    struct sim_timeline *tl = make(10, 0);
    uint64_t completed = 0;
    int nsamp = 0;

    (void)state;
    seen_samples = 0;
    assert_int_equal(sim_timeline_add_sink(tl, count_sample, NULL, NULL), 0);
    for (int i = 0; i < 1000; i++)
        push(tl, i);
    assert_int_equal(seen_samples, 1000);
    assert_true(sim_timeline_bucket_count(tl) <= 10);
    assert_int_equal(sim_timeline_bucket_span_ms(tl), 128 * 60000); /* 1000/10 -> 2^7 */
    for (int i = 0; i < sim_timeline_bucket_count(tl); i++) {
        const struct sim_bucket *b = sim_timeline_bucket(tl, i);
        completed += b->completed;
        nsamp += b->nsamples;
        if (i > 0)
            assert_int_equal(b->t0_ms, sim_timeline_bucket(tl, i - 1)->t1_ms);
    }
    assert_int_equal(completed, 1000);
    assert_int_equal(nsamp, 1000);
    {
        const struct sim_bucket *b = sim_timeline_bucket(tl, 0);
        assert_int_equal(b->t0_ms, 0);
        assert_int_equal(b->nsamples, 128);
        assert_true(b->load.min == 0 && b->load.max == 127);
        assert_true(fabs(b->load.mean - 63.5) < 1e-9);
        /* cpu is NAN on odd samples: only the 64 even ones count */
        assert_int_equal(b->groups[0].cpu_pct.n, 64);
        assert_true(fabs(b->groups[0].cpu_pct.mean - 63.0) < 1e-9);
        assert_true(fabs(b->alarm_in_alarm[0] - 0.25) < 1e-9);
    }
    assert_int_equal(sim_timeline_bucket(tl, sim_timeline_bucket_count(tl) - 1)->t1_ms,
                     1000 * 60000);
    assert_int_equal(sim_timeline_last_sample(tl)->groups[0].desired, 999);
    sim_timeline_destroy(tl);
}

static void test_timeline_thins_events_evenly(void **state)
{
    struct sim_timeline *tl = make(0, 8);
    char desc[32];

    (void)state;
    seen_events = 0;
    sim_timeline_add_sink(tl, NULL, count_event, NULL);
    for (int i = 0; i < 100; i++) {
        struct sim_event e = { 0 };
        snprintf(desc, sizeof(desc), "event %d", i);
        e.kind = SIM_EVENT_ACTIVITY;
        e.t_ms = i;
        e.group = "g";
        e.cause = "c";
        e.description = desc;
        e.status = "Successful";
        sim_timeline_push_event(tl, &e);
    }
    assert_int_equal(seen_events, 100);
    assert_int_equal(sim_timeline_events_pushed(tl), 100);
    assert_true(sim_timeline_event_count(tl) <= 8);
    assert_true(sim_timeline_event_count(tl) >= 4);
    /* kept events are evenly strided from the first */
    assert_int_equal(sim_timeline_event(tl, 0)->t_ms, 0);
    {
        int64_t stride = sim_timeline_event(tl, 1)->t_ms;
        for (int i = 1; i < sim_timeline_event_count(tl); i++)
            assert_int_equal(sim_timeline_event(tl, i)->t_ms, i * stride);
        assert_string_equal(sim_timeline_event(tl, 1)->group, "g");
    }
    sim_timeline_destroy(tl);
}

static void test_timeline_rejects_bad_config(void **state)
{
    struct sim_timeline_config c = { 0 };

    (void)state;
    assert_null(sim_timeline_create(&c)); /* interval 0 */
    c.interval_ms = 1000;
    c.max_buckets = 1;
    assert_null(sim_timeline_create(&c));
    c.max_buckets = 0;
    c.ngroups = SIM_TIMELINE_MAX_GROUPS + 1;
    assert_null(sim_timeline_create(&c));
}

/* One mapping of a decision record to the timeline's event, for both worlds (the
 * simulator's run and loadgen scenario --explain reading the emulator's events). */
static void test_timeline_event_from_decision_and_hook(void **state)
{
    struct sc_decision d;
    struct sc_hook_note h;
    struct sim_event se;
    char line[SIM_EVENT_TEXT_MAX], want[SIM_EVENT_TEXT_MAX];

    (void)state;
    memset(&d, 0, sizeof(d));
    d.time_ms = 120000;
    strcpy(d.group, "web");
    strcpy(d.policy, "add-one");
    d.policy_type = "SimpleScaling";
    d.trigger = "ExecutePolicy";
    d.current = d.counted = d.desired = 3;
    d.computed = 4;
    d.min_size = 1;
    d.max_size = 3;
    d.direction = 1;
    d.reason = SC_DECISION_AT_MAX;
    strcpy(d.arithmetic, "3 + 1 = 4");
    sim_event_from_decision(&se, &d, line, sizeof(line));
    sc_decision_format(&d, want, sizeof(want));
    assert_int_equal(se.kind, SIM_EVENT_DECISION);
    assert_int_equal(se.t_ms, 120000);
    assert_int_equal(se.end_ms, 120000);
    assert_string_equal(se.group, "web");
    assert_string_equal(se.name, "add-one");
    assert_string_equal(se.cause, "3 + 1 = 4");
    assert_string_equal(se.status, "at-max");
    assert_string_equal(se.description, want);
    assert_ptr_equal(se.decision, &d);
    d.reason = SC_DECISION_CHANGED;
    sim_event_from_decision(&se, &d, line, sizeof(line));
    assert_string_equal(se.status, "changed");

    memset(&h, 0, sizeof(h));
    h.time_ms = 60000;
    h.kind = SC_HOOK_TIMEOUT;
    strcpy(h.group, "web");
    strcpy(h.hook, "drain");
    strcpy(h.result, "ABANDON");
    sim_event_from_hook(&se, &h, line, sizeof(line));
    sc_hook_note_format(&h, want, sizeof(want));
    assert_int_equal(se.kind, SIM_EVENT_HOOK);
    assert_int_equal(se.t_ms, 60000);
    assert_string_equal(se.name, "drain");
    assert_string_equal(se.cause, "timeout");
    assert_string_equal(se.status, "ABANDON");
    assert_string_equal(se.description, want);
    assert_ptr_equal(se.hook, &h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeline_downsamples_within_budget),
        cmocka_unit_test(test_timeline_thins_events_evenly),
        cmocka_unit_test(test_timeline_rejects_bad_config),
        cmocka_unit_test(test_timeline_event_from_decision_and_hook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
