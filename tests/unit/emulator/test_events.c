/* tests/unit/emulator/test_events.c: emulator/events.c: the bounded ring, JSON lines after a
 * seq, subscribers in SSE form with bounded buffers (a stalled one is dropped, never
 * grows), the replay a new subscriber gets, and the end of every stream. */
#include "emulator/events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <jansson.h>

#include "common/log.h"
#include "scaler/observe.h"

#define T0 1767225600000LL /* 2026-01-01T00:00:00Z */

static int woken;

static void on_wake(void *ud)
{
    (void)ud;
    woken++;
}

static int lines(const struct cm_buf *b)
{
    int n = 0;

    for (size_t i = 0; i < b->len; i++)
        n += b->data[i] == '\n';
    return n;
}

/* The ring keeps the newest `ring` events; JSON lines start after a seq, in order, with
 * the common members first. */
static void test_events_ring_keeps_newest(void **state)
{
    struct events *ev = events_create(4, 0);
    struct cm_buf b;

    (void)state;
    for (int i = 0; i < 10; i++)
        events_add(ev, T0 + i, "fault", json_pack("{s:i}", "n", i), 0, "event %d", i);
    assert_int_equal(events_last_seq(ev), 10);
    cm_buf_init(&b, 0);
    events_format_jsonl(ev, 0, &b);
    assert_int_equal(lines(&b), 4);
    assert_non_null(strstr(b.data,
                           "{\"seq\":7,\"time\":\"2026-01-01T00:00:00.006Z\",\"time_ms\":"
                           "1767225600006,\"type\":\"fault\",\"n\":6,\"text\":\"event 6\"}"));
    assert_null(strstr(b.data, "\"seq\":6,"));
    cm_buf_reset(&b);
    events_format_jsonl(ev, 9, &b);
    assert_int_equal(lines(&b), 1);
    assert_non_null(strstr(b.data, "\"seq\":10,"));
    cm_buf_cleanup(&b);
    events_destroy(ev);
}

/* A subscriber reads SSE frames; with nothing left it gets 0 and is woken by the next
 * event. */
static void test_events_subscriber_reads_then_waits(void **state)
{
    struct events *ev = events_create(16, 0);
    struct events_sub *s;
    char buf[4096];
    ssize_t n;

    (void)state;
    events_add(ev, T0, "fault", NULL, 0, "first");
    woken = 0;
    s = events_subscribe(ev, 0, on_wake, NULL);
    n = events_sub_read(s, buf, sizeof(buf) - 1);
    assert_true(n > 0);
    buf[n] = '\0';
    assert_non_null(strstr(buf, "retry: 2000\n"));
    assert_non_null(strstr(buf, "id: 1\nevent: fault\ndata: {\"seq\":1,"));
    assert_int_equal(events_sub_read(s, buf, sizeof(buf)), 0);
    assert_int_equal(woken, 0);
    events_add(ev, T0 + 1, "exit", NULL, 1, "second");
    assert_int_equal(woken, 1);
    n = events_sub_read(s, buf, sizeof(buf) - 1);
    buf[n] = '\0';
    assert_non_null(strstr(buf, "id: 2\nevent: exit\n"));
    /* a second event while the reader has not come back: no second wake */
    events_add(ev, T0 + 2, "exit", NULL, 0, "third");
    events_add(ev, T0 + 3, "exit", NULL, 0, "fourth");
    assert_int_equal(woken, 1);
    events_keepalive(ev);
    n = events_sub_read(s, buf, sizeof(buf) - 1);
    buf[n] = '\0';
    assert_non_null(strstr(buf, ": keepalive\n\n"));
    assert_int_equal(events_sub_count(ev), 1);
    events_unsubscribe(s);
    assert_int_equal(events_sub_count(ev), 0);
    events_destroy(ev);
}

/* A subscriber that reads nothing is dropped once its buffer would pass the cap: its
 * buffer is freed, it is woken, its reader gets -1; others go on. */
static void test_events_stalled_subscriber_dropped(void **state)
{
    struct events *ev = events_create(64, 2048);
    struct events_sub *stalled, *reader;
    char buf[4096];
    int i;

    (void)state;
    woken = 0;
    stalled = events_subscribe(ev, 0, on_wake, NULL);
    reader = events_subscribe(ev, 0, NULL, NULL);
    assert_int_equal(events_sub_read(stalled, buf, 16), 16); /* some, then it stalls */
    for (i = 0; i < 40 && !events_sub_dropped(stalled); i++) {
        events_add(ev, T0 + i, "fault", NULL, 0, "an event of some length, number %d", i);
        assert_true(events_sub_read(reader, buf, sizeof(buf)) > 0);
    }
    assert_true(events_sub_dropped(stalled));
    assert_true(i < 40);
    assert_int_equal(woken, 1);
    assert_int_equal(events_sub_read(stalled, buf, sizeof(buf)), -1);
    assert_false(events_sub_dropped(reader));
    events_unsubscribe(stalled);
    events_unsubscribe(reader);
    events_destroy(ev);
}

/* A new subscriber's replay fits half its buffer (the newest events), so a long log never
 * drops a client at once. */
static void test_events_replay_bounded(void **state)
{
    struct events *ev = events_create(1000, 4096);
    struct events_sub *s;
    char buf[8192];
    ssize_t n;

    (void)state;
    for (int i = 0; i < 1000; i++)
        events_add(ev, T0 + i, "fault", NULL, 0, "event %d", i);
    s = events_subscribe(ev, 0, NULL, NULL);
    assert_false(events_sub_dropped(s));
    n = events_sub_read(s, buf, sizeof(buf) - 1);
    assert_true(n > 0 && n <= 2048 + 64);
    buf[n] = '\0';
    assert_non_null(strstr(buf, "id: 1000\n"));
    assert_null(strstr(buf, "id: 1\n"));
    events_unsubscribe(s);
    events_destroy(ev);
}

/* A world's event: the type's members and a human line; a failed launch is a warning. */
static void test_events_world_event_text(void **state)
{
    struct events *ev = events_create(8, 0);
    struct sc_event se = { .kind = SC_EVENT_ALARM,
                           .time_ms = T0,
                           .alarm = "high-cpu",
                           .from = "OK",
                           .to = "ALARM",
                           .text = "Threshold Crossed: 1 datapoint" };
    struct cm_buf b;

    (void)state;
    events_add_world(ev, "123456789012", "us-east-1", &se);
    cm_buf_init(&b, 0);
    events_format_jsonl(ev, 0, &b);
    assert_non_null(strstr(b.data, "\"type\":\"alarm\",\"account\":\"123456789012\","
                                   "\"region\":\"us-east-1\",\"alarm\":\"high-cpu\",\"from\":"
                                   "\"OK\",\"to\":\"ALARM\",\"reason\":\"Threshold Crossed: 1 "
                                   "datapoint\",\"text\":\"alarm high-cpu OK -> ALARM: Threshold "
                                   "Crossed: 1 datapoint\"}"));
    cm_buf_cleanup(&b);
    events_destroy(ev);
}

/* Shutdown: every stream ends once its buffer is sent. */
static void test_events_end_all(void **state)
{
    struct events *ev = events_create(8, 0);
    struct events_sub *s;
    char buf[4096];

    (void)state;
    s = events_subscribe(ev, 0, on_wake, NULL);
    assert_true(events_sub_read(s, buf, sizeof(buf)) > 0);
    assert_int_equal(events_sub_read(s, buf, sizeof(buf)), 0);
    woken = 0;
    events_end_all(ev);
    assert_int_equal(woken, 1);
    assert_int_equal(events_sub_read(s, buf, sizeof(buf)), -1);
    assert_false(events_sub_dropped(s));
    events_destroy(ev); /* unsubscribes what is left */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_ring_keeps_newest),
        cmocka_unit_test(test_events_subscriber_reads_then_waits),
        cmocka_unit_test(test_events_stalled_subscriber_dropped),
        cmocka_unit_test(test_events_replay_bounded),
        cmocka_unit_test(test_events_world_event_text),
        cmocka_unit_test(test_events_end_all),
    };

    cm_log_set_level(CM_LOG_ERROR);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
