/* tests/unit/loadgen/test_mix.c: the request mix of a phase aimed at an ALB
 * (loadgen/mix.c): integer weights, the smooth weighted round robin's proportions (exact
 * over whole cycles, within one request over any prefix), and the requests' text. */
#include "loadgen/mix.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Sends n requests of the mix, counting each kind; checks every prefix is within one
 * request of its exact share. */
static void count_kinds(struct req_mix *m, const double *w, int nk, uint64_t n, uint64_t *cnt)
{
    double total = 0;

    for (int i = 0; i < nk; i++)
        total += w[i];
    memset(cnt, 0, (size_t)nk * sizeof(*cnt));
    for (uint64_t k = 1; k <= n; k++) {
        const struct req_kind *q = req_mix_next(m);
        int kind = (int)(q - m->kinds);
        assert_true(kind >= 0 && kind < nk);
        cnt[kind]++;
        for (int i = 0; i < nk; i++)
            assert_true(fabs((double)cnt[i] - (double)k * w[i] / total) < 1.0 + 1e-9);
    }
}

static void build(struct req_mix *m, struct sim_request *rq, const double *w, int n)
{
    char err[200];

    for (int i = 0; i < n; i++) {
        memset(&rq[i], 0, sizeof(rq[i]));
        rq[i].weight = w[i];
    }
    assert_int_equal(req_mix_build(m, rq, n, "front.example", 1, err, sizeof(err)), 0);
}

static void test_mix_proportions_exact_over_whole_cycles(void **state)
{
    static const double w[] = { 70, 25, 5 };
    struct sim_request rq[3];
    struct req_mix m;
    uint64_t cnt[3];

    (void)state;
    build(&m, rq, w, 3);
    assert_int_equal(m.norder, 20); /* 70/25/5 reduced by their gcd: 14/5/1 */
    count_kinds(&m, w, 3, 100, cnt);
    assert_int_equal(cnt[0], 70);
    assert_int_equal(cnt[1], 25);
    assert_int_equal(cnt[2], 5);
    count_kinds(&m, w, 3, 10000, cnt); /* it goes on from request 100: still exact */
    assert_int_equal(cnt[0], 7000);
    assert_int_equal(cnt[1], 2500);
    assert_int_equal(cnt[2], 500);
    req_mix_cleanup(&m);
}

static void test_mix_interleaves_the_kinds(void **state)
{
    static const double w[] = { 70, 25, 5 };
    struct sim_request rq[3];
    struct req_mix m;
    int run = 0, longest = 0, prev = -1;

    (void)state;
    build(&m, rq, w, 3);
    for (int k = 0; k < 100; k++) {
        int kind = (int)(req_mix_next(&m) - m.kinds);
        run = kind == prev ? run + 1 : 1;
        prev = kind;
        if (run > longest)
            longest = run;
    }
    /* 70 % of one kind: at most 3 alike in a row (14 in a cycle of 20, spread) */
    assert_true(longest <= 3);
    req_mix_cleanup(&m);
}

static void test_mix_fractional_weights_round_to_shares_of_the_cap(void **state)
{
    static const double w[] = { 1.0 / 3, 1.0 / 3, 1.0 / 3, 0 };
    uint32_t out[4];
    struct sim_request rq[4];
    struct req_mix m;
    uint64_t cnt[4];

    (void)state;
    assert_int_equal(req_mix_weights(w, 4, REQ_MIX_MAX_CYCLE, out), REQ_MIX_MAX_CYCLE);
    assert_int_equal(out[0], 3334); /* the largest remainder (a tie: the first kind) */
    assert_int_equal(out[1], 3333);
    assert_int_equal(out[2], 3333);
    assert_int_equal(out[3], 0); /* weight 0: never sent */
    build(&m, rq, w, 4);
    {
        /* within one request of the cycle's shares (a third differs from 3334 / 10000 by
         * 2 requests in 30000) */
        const double iw[] = { 3334, 3333, 3333, 0 };
        count_kinds(&m, iw, 4, 3 * REQ_MIX_MAX_CYCLE, cnt);
    }
    assert_int_equal(cnt[0], 3 * 3334);
    assert_int_equal(cnt[1], 3 * 3333);
    assert_int_equal(cnt[3], 0);
    req_mix_cleanup(&m);
}

static void test_mix_weights_whole_but_too_many_for_the_cap(void **state)
{
    static const double w[] = { 999999, 1 };
    static const double z[] = { 0, 0 };
    static const double neg[] = { 1, -1 };
    uint32_t out[2];

    (void)state;
    assert_int_equal(req_mix_weights(w, 2, 100, out), 100);
    assert_int_equal(out[0], 99);
    assert_int_equal(out[1], 1); /* a kind given weight keeps one per cycle */
    assert_int_equal(req_mix_weights(z, 2, 100, out), 0);
    assert_int_equal(req_mix_weights(neg, 2, 100, out), 0);
}

static void test_mix_one_kind_is_every_request(void **state)
{
    static const double w[] = { 5 };
    struct sim_request rq[1];
    struct req_mix m;

    (void)state;
    build(&m, rq, w, 1);
    assert_int_equal(m.norder, 1);
    for (int k = 0; k < 10; k++)
        assert_ptr_equal(req_mix_next(&m), &m.kinds[0]);
    req_mix_cleanup(&m);
}

static void test_mix_request_text(void **state)
{
    char *hv[] = { "X-Tenant", "blue", "User-Agent", "probe/1" };
    struct sim_request q = { .weight = 1,
                             .method = "POST",
                             .path = "/api/orders",
                             .query = "v=2",
                             .header_kv = hv,
                             .nheaders = 2 };
    size_t len;
    char *s;

    (void)state;
    s = req_mix_request(&q, "front-1.elb.example:8080", 1, &len);
    assert_int_equal(len, strlen(s));
    assert_string_equal(s, "POST /api/orders?v=2 HTTP/1.1\r\n"
                           "Host: front-1.elb.example:8080\r\n"
                           "Accept: */*\r\n"
                           "X-Tenant: blue\r\n"
                           "User-Agent: probe/1\r\n"
                           "Content-Length: 0\r\n\r\n");
    free(s);
    q.method = "HEAD";
    q.host = "shop.example";
    q.query = "";
    q.nheaders = 0;
    s = req_mix_request(&q, "ignored", 0, &len);
    assert_string_equal(s, "HEAD /api/orders HTTP/1.1\r\n"
                           "Host: shop.example\r\n"
                           "User-Agent: loadgen-player\r\n"
                           "Accept: */*\r\n"
                           "Connection: close\r\n\r\n");
    free(s);
    s = req_mix_request(NULL, "h", 1, &len);
    assert_string_equal(s, "GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: loadgen-player\r\n"
                           "Accept: */*\r\n\r\n");
    free(s);
}

static void test_mix_head_kind_is_marked(void **state)
{
    struct sim_request rq[2];
    struct req_mix m;
    char err[100];

    (void)state;
    memset(rq, 0, sizeof(rq));
    rq[0].weight = 1;
    rq[0].method = "HEAD";
    rq[1].weight = 1;
    assert_int_equal(req_mix_build(&m, rq, 2, "h", 1, err, sizeof(err)), 0);
    assert_int_equal(m.kinds[0].head, 1);
    assert_int_equal(m.kinds[1].head, 0);
    req_mix_cleanup(&m);
    rq[0].weight = rq[1].weight = 0;
    assert_int_equal(req_mix_build(&m, rq, 2, "h", 1, err, sizeof(err)), -1);
    assert_string_equal(err, "the request weights add up to 0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mix_proportions_exact_over_whole_cycles),
        cmocka_unit_test(test_mix_interleaves_the_kinds),
        cmocka_unit_test(test_mix_fractional_weights_round_to_shares_of_the_cap),
        cmocka_unit_test(test_mix_weights_whole_but_too_many_for_the_cap),
        cmocka_unit_test(test_mix_one_kind_is_every_request),
        cmocka_unit_test(test_mix_request_text),
        cmocka_unit_test(test_mix_head_kind_is_marked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
