/* tests/unit/sim/test_queue.c: the event heap pops in (time, push order) and the clock
 * never goes back. */
#include "scaler/sim/queue.h"

#include <stdint.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void push(struct sim_queue *q, int64_t t, int a)
{
    struct sim_event_rec ev = { 0 };

    ev.t_us = t;
    ev.a = a;
    sim_queue_push(q, &ev);
}

static void test_queue_pops_in_time_order(void **state)
{
    struct sim_queue q;
    struct sim_event_rec ev;
    int64_t last = -1;
    uint32_t x = 12345;

    (void)state;
    sim_queue_init(&q, 0);
    for (int i = 0; i < 5000; i++) {
        x = x * 1103515245u + 12345u;
        push(&q, (int64_t)(x % 100000), i);
    }
    assert_int_equal(sim_queue_len(&q), 5000);
    while (sim_queue_pop_until(&q, INT64_MAX, &ev)) {
        assert_true(ev.t_us >= last);
        last = ev.t_us;
        assert_int_equal(sim_queue_now_us(&q), ev.t_us);
    }
    assert_int_equal(sim_queue_len(&q), 0);
    assert_true(sim_queue_peek_us(&q) == INT64_MAX);
    sim_queue_cleanup(&q);
}

static void test_queue_ties_pop_in_push_order(void **state)
{
    struct sim_queue q;
    struct sim_event_rec ev;

    (void)state;
    sim_queue_init(&q, 0);
    for (int i = 0; i < 100; i++)
        push(&q, 42, i);
    for (int i = 0; i < 100; i++) {
        assert_true(sim_queue_pop_until(&q, 100, &ev));
        assert_int_equal(ev.a, i);
    }
    sim_queue_cleanup(&q);
}

static void test_queue_pop_until_leaves_later_events(void **state)
{
    struct sim_queue q;
    struct sim_event_rec ev;

    (void)state;
    sim_queue_init(&q, 10);
    push(&q, 50, 1);
    push(&q, 5, 2); /* in the past: clamped to now (10) */
    assert_true(sim_queue_pop_until(&q, 20, &ev));
    assert_int_equal(ev.a, 2);
    assert_int_equal(ev.t_us, 10);
    assert_false(sim_queue_pop_until(&q, 20, &ev));
    assert_int_equal(sim_queue_now_us(&q), 10);
    sim_queue_advance(&q, 30);
    assert_int_equal(sim_queue_now_us(&q), 30);
    sim_queue_advance(&q, 20); /* never back */
    assert_int_equal(sim_queue_now_us(&q), 30);
    assert_true(sim_queue_pop_until(&q, 60, &ev));
    assert_int_equal(ev.a, 1);
    sim_queue_cleanup(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue_pops_in_time_order),
        cmocka_unit_test(test_queue_ties_pop_in_push_order),
        cmocka_unit_test(test_queue_pop_until_leaves_later_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
