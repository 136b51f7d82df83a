/* tests/unit/loadgen/test_sse.c: loadgen/sse.c, the event-stream reader `loadgen scenario
 * --explain` follows the emulator's /_scalelab/events with: fields, line ends, pieces,
 * comments, dispatch rules and its bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "loadgen/sse.h"

struct seen {
    int n;
    char id[8][32], type[8][32], data[8][256];
    size_t len[8];
};

static void on_event(const char *id, const char *type, const char *data, size_t len, void *ud)
{
    struct seen *s = ud;

    assert_true(s->n < 8);
    snprintf(s->id[s->n], sizeof(s->id[0]), "%s", id);
    snprintf(s->type[s->n], sizeof(s->type[0]), "%s", type);
    snprintf(s->data[s->n], sizeof(s->data[0]), "%s", data);
    s->len[s->n] = len;
    s->n++;
}

static void feed(struct sse *p, const char *s)
{
    sse_feed(p, s, strlen(s));
}

static void test_sse_fields_and_dispatch(void **state)
{
    struct seen s = { 0 };
    struct sse *p = sse_create(on_event, &s);

    (void)state;
    feed(p, "id: 7\nevent: decision\ndata: {\"a\":1}\n\n: keepalive\n\n");
    assert_int_equal(s.n, 1);
    assert_string_equal(s.id[0], "7");
    assert_string_equal(s.type[0], "decision");
    assert_string_equal(s.data[0], "{\"a\":1}");
    assert_int_equal(s.len[0], 7);
    /* no event field: "message"; the id stays; two data lines joined by LF; no space after
     * the colon is fine */
    feed(p, "data:one\ndata: two\n\n");
    assert_int_equal(s.n, 2);
    assert_string_equal(s.type[1], "message");
    assert_string_equal(s.id[1], "7");
    assert_string_equal(s.data[1], "one\ntwo");
    /* an event without data is not dispatched; its type does not leak into the next */
    feed(p, "event: hook\n\ndata: x\n\n");
    assert_int_equal(s.n, 3);
    assert_string_equal(s.type[2], "message");
    sse_destroy(p);
}

static void test_sse_line_ends_and_pieces(void **state)
{
    struct seen s = { 0 };
    struct sse *p = sse_create(on_event, &s);
    const char *text = "id: 1\r\nevent: decision\r\ndata: a\r\n\r\nid: 2\rdata: b\r\r";

    (void)state;
    /* byte by byte: CRLF split across pieces is one line end */
    for (size_t i = 0; i < strlen(text); i++)
        sse_feed(p, text + i, 1);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.data[0], "a");
    assert_string_equal(s.type[0], "decision");
    assert_string_equal(s.id[1], "2");
    assert_string_equal(s.data[1], "b");
    sse_destroy(p);
}

static void test_sse_bounds_drop_and_count(void **state)
{
    struct seen s = { 0 };
    struct sse *p = sse_create(on_event, &s);
    static char big[SSE_DATA_MAX + 64];

    (void)state;
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    feed(p, "event: decision\ndata: ");
    feed(p, big);
    feed(p, "\n\n");
    assert_int_equal(s.n, 0);
    assert_int_equal(sse_dropped(p), 1);
    /* the next event reads normally */
    feed(p, "data: ok\n\n");
    assert_int_equal(s.n, 1);
    assert_string_equal(s.data[0], "ok");
    /* a reset forgets a partial event (a new connection) */
    feed(p, "event: decision\ndata: half");
    sse_reset(p);
    feed(p, "data: whole\n\n");
    assert_int_equal(s.n, 2);
    assert_string_equal(s.data[1], "whole");
    assert_string_equal(s.type[1], "message");
    sse_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sse_fields_and_dispatch),
        cmocka_unit_test(test_sse_line_ends_and_pieces),
        cmocka_unit_test(test_sse_bounds_drop_and_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
