/* tests/unit/emulator/test_balancer.c: emulator/balancer.c, the proxy's choice rules:
 * least outstanding requests with ties in turn, round robin, zones, connection caps,
 * routability, and backends outliving their removal while connections hold them. */
#include "emulator/balancer.h"

#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/elbv2.h"

static struct bal_backend *add(struct bal_set *s, const char *id, int port, const char *zone)
{
    struct sockaddr_in sa;
    struct bal_backend *b;

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    b = bal_add(s, id, &sa, zone);
    b->routable = 1;
    return b;
}

static void test_balancer_least_outstanding(void **state)
{
    struct bal_set s;
    struct bal_backend *a, *b, *c, *p;

    (void)state;
    bal_init(&s);
    a = add(&s, "a", 1, "z1");
    b = add(&s, "b", 2, "z1");
    c = add(&s, "c", 3, "z1");
    a->outstanding = 3;
    b->outstanding = 1;
    c->outstanding = 2;
    for (int i = 0; i < 5; i++)
        assert_ptr_equal(bal_pick_least_outstanding(&s, NULL, 0, NULL), b);
    b->outstanding = 5;
    assert_ptr_equal(bal_pick_least_outstanding(&s, NULL, 0, NULL), c);
    /* ties are taken in turn: over 30 picks with equal load each gets 10 */
    a->outstanding = b->outstanding = c->outstanding = 0;
    a->picks = b->picks = c->picks = 0;
    for (int i = 0; i < 30; i++) {
        p = bal_pick_least_outstanding(&s, NULL, 0, NULL);
        assert_non_null(p);
    }
    assert_int_equal(a->picks, 10);
    assert_int_equal(b->picks, 10);
    assert_int_equal(c->picks, 10);
    /* picking and counting outstanding as the proxy does spreads load evenly */
    for (int i = 0; i < 9; i++)
        bal_pick_least_outstanding(&s, NULL, 0, NULL)->outstanding++;
    assert_int_equal(a->outstanding, 3);
    assert_int_equal(b->outstanding, 3);
    assert_int_equal(c->outstanding, 3);
    bal_cleanup(&s);
}

static void test_balancer_routable_only(void **state)
{
    struct bal_set s;
    struct bal_backend *a, *b;
    int at_cap = -1;

    (void)state;
    bal_init(&s);
    assert_null(bal_pick_least_outstanding(&s, NULL, 0, &at_cap));
    assert_int_equal(at_cap, 0);
    a = add(&s, "a", 1, "z1");
    b = add(&s, "b", 2, "z1");
    a->routable = 0;
    b->outstanding = 100;
    assert_ptr_equal(bal_pick_least_outstanding(&s, NULL, 0, NULL), b);
    assert_ptr_equal(bal_pick_round_robin(&s, NULL, 0, NULL), b);
    b->routable = 0;
    assert_null(bal_pick_least_outstanding(&s, NULL, 0, &at_cap));
    assert_int_equal(at_cap, 0);
    assert_null(bal_pick_round_robin(&s, NULL, 0, NULL));
    assert_int_equal(bal_routable_count(&s, NULL), 0);
    /* a re-added id updates the same backend, keeping its state */
    assert_ptr_equal(add(&s, "a", 9, "z2"), a);
    assert_int_equal(ntohs(a->addr.sin_port), 9);
    assert_string_equal(a->zone, "z2");
    bal_cleanup(&s);
}

static void test_balancer_round_robin(void **state)
{
    struct bal_set s;
    struct bal_backend *v[3];
    const char *ids[] = { "a", "b", "c" };

    (void)state;
    bal_init(&s);
    for (int i = 0; i < 3; i++)
        v[i] = add(&s, ids[i], i + 1, "z");
    v[0]->outstanding = 50; /* round robin ignores load */
    for (int i = 0; i < 9; i++)
        assert_ptr_equal(bal_pick_round_robin(&s, NULL, 0, NULL), v[i % 3]);
    v[1]->routable = 0;
    assert_ptr_equal(bal_pick_round_robin(&s, NULL, 0, NULL), v[0]);
    assert_ptr_equal(bal_pick_round_robin(&s, NULL, 0, NULL), v[2]);
    assert_ptr_equal(bal_pick_round_robin(&s, NULL, 0, NULL), v[0]);
    bal_cleanup(&s);
}

static void test_balancer_zones(void **state)
{
    struct bal_set s;
    struct bal_backend *a, *b, *c;

    (void)state;
    bal_init(&s);
    a = add(&s, "a", 1, "us-east-1a");
    b = add(&s, "b", 2, "us-east-1b");
    c = add(&s, "c", 3, "us-east-1b");
    a->outstanding = 10;
    /* a node in zone a uses only zone a's backends, however loaded */
    assert_ptr_equal(bal_pick_least_outstanding(&s, "us-east-1a", 0, NULL), a);
    assert_ptr_equal(bal_pick_round_robin(&s, "us-east-1a", 0, NULL), a);
    /* zone b's node spreads over b and c */
    b->outstanding = 1;
    assert_ptr_equal(bal_pick_least_outstanding(&s, "us-east-1b", 0, NULL), c);
    /* cross-zone (NULL): the least loaded anywhere */
    c->outstanding = 2;
    assert_ptr_equal(bal_pick_least_outstanding(&s, NULL, 0, NULL), b);
    assert_int_equal(bal_routable_count(&s, "us-east-1b"), 2);
    assert_int_equal(bal_routable_count(&s, "us-east-1c"), 0);
    assert_null(bal_pick_least_outstanding(&s, "us-east-1c", 0, NULL));
    bal_cleanup(&s);
}

static void test_balancer_connection_cap(void **state)
{
    struct bal_set s;
    struct bal_backend *a, *b;
    int at_cap = 0;

    (void)state;
    bal_init(&s);
    a = add(&s, "a", 1, "z");
    b = add(&s, "b", 2, "z");
    a->conns = 2;
    b->conns = 1;
    a->outstanding = 0;
    b->outstanding = 1;
    /* a is at its cap of 2: b is taken although busier */
    assert_ptr_equal(bal_pick_least_outstanding(&s, NULL, 2, &at_cap), b);
    b->conns = 2;
    assert_null(bal_pick_least_outstanding(&s, NULL, 2, &at_cap));
    assert_int_equal(at_cap, 1);
    assert_null(bal_pick_round_robin(&s, NULL, 2, &at_cap));
    assert_int_equal(at_cap, 1);
    /* an idle pooled connection means a request fits without a new one */
    a->nidle = 1;
    assert_ptr_equal(bal_pick_least_outstanding(&s, NULL, 2, &at_cap), a);
    a->nidle = 0;
    bal_cleanup(&s);
}

static void test_balancer_remove_keeps_referenced(void **state)
{
    struct bal_set s;
    struct bal_backend *a, *b;

    (void)state;
    bal_init(&s);
    a = add(&s, "a", 1, "z");
    b = add(&s, "b", 2, "z");
    bal_ref(a); /* a connection holds it */
    bal_remove(&s, a);
    assert_null(bal_find(&s, "a"));
    assert_true(a->removed);
    assert_false(a->routable);
    assert_int_equal(a->refs, 1);
    assert_ptr_equal(bal_pick_least_outstanding(&s, NULL, 0, NULL), b);
    bal_unref(a); /* freed here (ASan checks) */
    assert_ptr_equal(bal_find(&s, "b"), b);
    bal_cleanup(&s);
    assert_int_equal(s.n, 0);
}

/* The console's per-target rate: responses a second over the 10 whole seconds before the
 * current one, their mean latency; older buckets are reused, the partial second waits. */
static void test_balancer_traffic_window(void **state)
{
    struct bal_set s;
    struct bal_backend *a;
    struct bal_rate r;

    (void)state;
    bal_init(&s);
    a = add(&s, "a", 1, "z1");
    bal_traffic_rate(&a->traffic, 50000, &r);
    assert_int_equal(r.window, 0);
    assert_true(r.per_s == 0.0 && r.latency_ms == 0.0);
    /* 5 a second for seconds 40..49, latency 10 ms, then 3 in the current second 50 */
    for (int sec = 40; sec < 50; sec++) {
        for (int k = 0; k < 5; k++)
            bal_traffic_count(&a->traffic, sec * 1000 + k * 100, 200, 10.0);
    }
    for (int k = 0; k < 3; k++)
        bal_traffic_count(&a->traffic, 50000 + k, 503, 40.0);
    bal_traffic_rate(&a->traffic, 50500, &r);
    assert_int_equal(r.window, 50);
    assert_true(r.per_s == 5.0);
    assert_true(r.latency_ms == 10.0);
    assert_int_equal(a->traffic.responses, 53);
    assert_int_equal(a->traffic.errors_5xx, 3);
    /* a second later the current second (50) is in and second 40 is out */
    bal_traffic_rate(&a->traffic, 51000, &r);
    assert_int_equal(r.window, 48);
    assert_true(r.latency_ms > 11.87 && r.latency_ms < 11.88); /* (45 x 10 + 3 x 40) / 48 */
    /* idle for longer than the window: nothing left in it, the totals stay */
    bal_traffic_rate(&a->traffic, 70000, &r);
    assert_int_equal(r.window, 0);
    /* a bucket 10 s later is reused for its new second */
    bal_traffic_count(&a->traffic, 60000, 200, 1.0);
    bal_traffic_rate(&a->traffic, 61000, &r);
    assert_int_equal(r.window, 1);
    assert_true(r.latency_ms == 1.0);
    assert_int_equal(a->traffic.responses, 54);
    bal_cleanup(&s);
}

/* NLB source_ip: one client address keeps its backend while it is routable, moves when it
 * is not, comes back after; a backend at the connection cap is skipped (*at_cap when all
 * are). */
static void test_balancer_source_ip_sticks_and_falls_back(void **state)
{
    struct bal_set s;
    struct bal_backend *v[3], *p, *q;
    const char *ids[] = { "0/i-a:80", "0/i-b:80", "0/i-c:80" };
    unsigned char ip[4] = { 127, 0, 0, 1 };
    uint64_t client = sc_elbv2_source_ip_key(ip, sizeof(ip));
    int at_cap = 0;

    (void)state;
    bal_init(&s);
    for (int i = 0; i < 3; i++)
        v[i] = add(&s, ids[i], i + 1, "z");
    p = bal_pick_source_ip(&s, NULL, client, 0, NULL);
    assert_non_null(p);
    for (int i = 0; i < 5; i++)
        assert_ptr_equal(bal_pick_source_ip(&s, NULL, client, 0, NULL), p);
    p->routable = 0;
    q = bal_pick_source_ip(&s, NULL, client, 0, NULL);
    assert_non_null(q);
    assert_ptr_not_equal(q, p);
    p->routable = 1;
    assert_ptr_equal(bal_pick_source_ip(&s, NULL, client, 0, NULL), p);
    p->conns = 1;
    assert_ptr_equal(bal_pick_source_ip(&s, NULL, client, 1, NULL), q);
    for (int i = 0; i < 3; i++)
        v[i]->conns = 1;
    assert_null(bal_pick_source_ip(&s, NULL, client, 1, &at_cap));
    assert_int_equal(at_cap, 1);
    for (int i = 0; i < 3; i++)
        v[i]->routable = 0;
    assert_null(bal_pick_source_ip(&s, NULL, client, 0, &at_cap));
    assert_int_equal(at_cap, 0);
    bal_cleanup(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_balancer_least_outstanding),
        cmocka_unit_test(test_balancer_routable_only),
        cmocka_unit_test(test_balancer_round_robin),
        cmocka_unit_test(test_balancer_zones),
        cmocka_unit_test(test_balancer_connection_cap),
        cmocka_unit_test(test_balancer_remove_keeps_referenced),
        cmocka_unit_test(test_balancer_traffic_window),
        cmocka_unit_test(test_balancer_source_ip_sticks_and_falls_back),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
