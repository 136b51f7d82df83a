/* tests/unit/loadgen/test_stats.c: loadgen/stats.c, the JSON result's round trip and the
 * exact merge. */
#include "loadgen/stats.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void fill(struct stats *s, uint64_t seed, int uncorr)
{
    stats_init(s);
    s->has_uncorr = uncorr;
    for (uint64_t i = 0; i < 5000; i++) {
        uint64_t x = (i * 2654435761u + seed) % 1000003;
        cm_hist_record(&s->lat, (int64_t)(50 + x * 37 % 250000));
        if (uncorr)
            cm_hist_record(&s->lat_uncorr, (int64_t)(40 + x % 9000));
    }
    cm_hist_record(&s->rps, 1000 + (int64_t)seed);
    s->done = 5000;
    s->bytes_read = 530000 + seed;
    s->err_timeout = seed % 3;
    s->err_connect = 1;
    s->duration_us = 2000000 + (int64_t)seed;
    s->rate = 2500;
}

static void assert_hist_equal(const struct cm_hist *a, const struct cm_hist *b)
{
    assert_int_equal(a->total, b->total);
    assert_int_equal(a->min, b->min);
    assert_int_equal(a->max, b->max);
    assert_int_equal(a->lo_idx, b->lo_idx);
    assert_int_equal(a->hi_idx, b->hi_idx);
    assert_memory_equal(a->counts, b->counts, sizeof(uint64_t) * (size_t)a->counts_len);
    assert_true(a->sum == b->sum);
    assert_true(a->sum_sq == b->sum_sq);
    for (double p = 0; p <= 100; p += 0.5)
        assert_int_equal(cm_hist_percentile(a, p), cm_hist_percentile(b, p));
}

static void test_stats_json_round_trip(void **state)
{
    struct stats a, b;
    char *text, *again, err[128];

    (void)state;
    fill(&a, 7, 1);
    text = stats_to_json(&a, NULL);
    assert_non_null(text);
    assert_int_equal(stats_from_json(text, &b, err, sizeof(err)), 0);
    assert_int_equal(b.done, a.done);
    assert_int_equal(b.bytes_read, a.bytes_read);
    assert_int_equal(b.err_timeout, a.err_timeout);
    assert_int_equal(b.duration_us, a.duration_us);
    assert_int_equal(b.has_uncorr, 1);
    assert_hist_equal(&a.lat, &b.lat);
    assert_hist_equal(&a.lat_uncorr, &b.lat_uncorr);
    again = stats_to_json(&b, NULL);
    assert_string_equal(text, again); /* byte-identical on the second trip */
    free(text);
    free(again);
    stats_cleanup(&a);
    stats_cleanup(&b);
}

static void test_stats_merge_equals_one_big_run(void **state)
{
    struct stats a, b, whole, ra, rb, merged;
    char *ta, *tb, err[128];

    (void)state;
    fill(&a, 1, 1);
    fill(&b, 2, 1);
    /* whole = what one process recording both would hold */
    fill(&whole, 1, 1);
    stats_merge(&whole, &b);
    /* merged = through JSON, as `loadgen merge` does */
    ta = stats_to_json(&a, NULL);
    tb = stats_to_json(&b, NULL);
    assert_int_equal(stats_from_json(ta, &ra, err, sizeof(err)), 0);
    assert_int_equal(stats_from_json(tb, &rb, err, sizeof(err)), 0);
    stats_init(&merged);
    stats_merge(&merged, &ra);
    stats_merge(&merged, &rb);
    assert_hist_equal(&merged.lat, &whole.lat);
    assert_hist_equal(&merged.lat_uncorr, &whole.lat_uncorr);
    assert_int_equal(merged.done, 10000);
    assert_int_equal(merged.err_connect, 2);
    assert_int_equal(merged.duration_us, 2000002); /* the longest */
    assert_int_equal(stats_failed(&merged), 2 + 1 + 2);
    free(ta);
    free(tb);
    stats_cleanup(&a);
    stats_cleanup(&b);
    stats_cleanup(&whole);
    stats_cleanup(&ra);
    stats_cleanup(&rb);
    stats_cleanup(&merged);
}

static void test_stats_json_rejects_bad_input(void **state)
{
    static const char *bad[] = {
        "",
        "{",
        "[]",
        "{\"format\":\"other\"}",
        "{\"format\":\"loadgen-result/1\",\"latency\":{\"highest\":3600000000,\"digits\":3,"
        "\"total\":2,\"counts\":[[5,1]]}}",
        "{\"format\":\"loadgen-result/1\",\"latency\":{\"highest\":3600000000,\"digits\":3,"
        "\"total\":1,\"counts\":[[99999999,1]]}}",
        "{\"format\":\"loadgen-result/1\",\"latency\":{\"highest\":1,\"digits\":9,\"total\":0,"
        "\"counts\":[]}}",
    };
    char err[128];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct stats s;
        err[0] = '\0';
        if (stats_from_json(bad[i], &s, err, sizeof(err)) == 0)
            fail_msg("accepted: %s", bad[i]);
        assert_true(err[0] != '\0');
        stats_cleanup(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_json_round_trip),
        cmocka_unit_test(test_stats_merge_equals_one_big_run),
        cmocka_unit_test(test_stats_json_rejects_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
