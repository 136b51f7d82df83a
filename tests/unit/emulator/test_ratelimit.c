/* tests/unit/emulator/test_ratelimit.c: the API's request rate limit (emulator/ratelimit.c,
 * docs/dataplane.md "Request rate: Throttling"), one test per rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "emulator/ratelimit.h"

/* A bucket starts full: burst requests pass at once, the next is refused. */
static void test_ratelimit_bucket_starts_full_then_refuses(void **state)
{
    struct ratelimit *rl = ratelimit_create(10, 5);

    (void)state;
    for (int i = 0; i < 5; i++)
        assert_int_equal(ratelimit_take(rl, "127.0.0.1", 1000), 1);
    assert_int_equal(ratelimit_take(rl, "127.0.0.1", 1000), 0);
    ratelimit_destroy(rl);
}

/* It refills at rate tokens a second, never above burst. */
static void test_ratelimit_refills_at_rate_up_to_burst(void **state)
{
    struct ratelimit *rl = ratelimit_create(10, 5);
    int n = 0;

    (void)state;
    for (int i = 0; i < 5; i++)
        ratelimit_take(rl, "a", 0);
    assert_int_equal(ratelimit_take(rl, "a", 99), 0);  /* 0.99 of a token */
    assert_int_equal(ratelimit_take(rl, "a", 100), 1); /* one after 100 ms */
    assert_int_equal(ratelimit_take(rl, "a", 100), 0);
    while (ratelimit_take(rl, "a", 60000)) /* a minute later: burst, not 600 */
        n++;
    assert_int_equal(n, 5);
    ratelimit_destroy(rl);
}

/* Each key has its own bucket. */
static void test_ratelimit_per_key(void **state)
{
    struct ratelimit *rl = ratelimit_create(1, 1);

    (void)state;
    assert_int_equal(ratelimit_take(rl, "10.0.0.1", 0), 1);
    assert_int_equal(ratelimit_take(rl, "10.0.0.1", 0), 0);
    assert_int_equal(ratelimit_take(rl, "10.0.0.2", 0), 1);
    ratelimit_destroy(rl);
}

/* A token given back (the request was refused by another bucket) can be taken again, but
 * never raises a bucket past burst. */
static void test_ratelimit_give_back(void **state)
{
    struct ratelimit *rl = ratelimit_create(1, 2);

    (void)state;
    assert_int_equal(ratelimit_take(rl, "k", 0), 1);
    assert_int_equal(ratelimit_take(rl, "k", 0), 1);
    assert_int_equal(ratelimit_take(rl, "k", 0), 0);
    ratelimit_give_back(rl, "k");
    assert_int_equal(ratelimit_take(rl, "k", 0), 1);
    ratelimit_give_back(rl, "k");
    ratelimit_give_back(rl, "k");
    ratelimit_give_back(rl, "k");
    assert_int_equal(ratelimit_take(rl, "k", 0), 1);
    assert_int_equal(ratelimit_take(rl, "k", 0), 1);
    assert_int_equal(ratelimit_take(rl, "k", 0), 0);
    ratelimit_destroy(rl);
}

/* Rate 0 is off: nothing is refused; burst 0 is twice the rate. */
static void test_ratelimit_off_and_default_burst(void **state)
{
    struct ratelimit *off = ratelimit_create(0, 0), *rl = ratelimit_create(3, 0);
    int n = 0;

    (void)state;
    for (int i = 0; i < 100000; i++)
        assert_int_equal(ratelimit_take(off, "x", 0), 1);
    assert_int_equal(ratelimit_take(NULL, "x", 0), 1);
    while (ratelimit_take(rl, "x", 0))
        n++;
    assert_int_equal(n, 6);
    ratelimit_destroy(off);
    ratelimit_destroy(rl);
}

/* The table is bounded: past RL_MAX_KEYS keys a full (refilled) bucket's slot is reused;
 * with none full a new key is not limited and counted. */
static void test_ratelimit_bounded_table(void **state)
{
    struct ratelimit *rl = ratelimit_create(1, 1);
    char k[32];

    (void)state;
    for (int i = 0; i < RL_MAX_KEYS; i++) {
        snprintf(k, sizeof(k), "10.%d.%d.1", i / 256, i % 256);
        assert_int_equal(ratelimit_take(rl, k, 0), 1);
    }
    /* every bucket empty: the new key passes unlimited */
    assert_int_equal(ratelimit_take(rl, "new", 0), 1);
    assert_int_equal(ratelimit_take(rl, "new", 0), 1);
    assert_int_equal((int)ratelimit_untracked(rl), 2);
    /* a second later every bucket is full again: "new" gets a slot and its limit */
    assert_int_equal(ratelimit_take(rl, "new", 1000), 1);
    assert_int_equal(ratelimit_take(rl, "new", 1000), 0);
    assert_int_equal((int)ratelimit_untracked(rl), 2);
    ratelimit_destroy(rl);
}

/* The flag's grammar: RATE or RATE:BURST. */
static void test_ratelimit_parse(void **state)
{
    double r, b;

    (void)state;
    assert_int_equal(ratelimit_parse("50", &r, &b), 0);
    assert_true(r == 50 && b == 0);
    assert_int_equal(ratelimit_parse("2.5:10", &r, &b), 0);
    assert_true(r == 2.5 && b == 10);
    assert_int_equal(ratelimit_parse("0", &r, &b), 0);
    assert_true(r == 0);
    assert_int_equal(ratelimit_parse("", &r, &b), -1);
    assert_int_equal(ratelimit_parse("-1", &r, &b), -1);
    assert_int_equal(ratelimit_parse("5:0", &r, &b), -1);
    assert_int_equal(ratelimit_parse("5:", &r, &b), -1);
    assert_int_equal(ratelimit_parse("nan", &r, &b), -1);
    assert_int_equal(ratelimit_parse("5x", &r, &b), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ratelimit_bucket_starts_full_then_refuses),
        cmocka_unit_test(test_ratelimit_refills_at_rate_up_to_burst),
        cmocka_unit_test(test_ratelimit_per_key),
        cmocka_unit_test(test_ratelimit_give_back),
        cmocka_unit_test(test_ratelimit_off_and_default_burst),
        cmocka_unit_test(test_ratelimit_bounded_table),
        cmocka_unit_test(test_ratelimit_parse),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
