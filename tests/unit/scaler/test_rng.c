/* tests/unit/scaler/test_rng.c: scaler/rng.c */
#include "scaler/rng.h"

#include <stdint.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* Reference values from an independent implementation (Python, the published
 * splitmix64 and xoshiro256** algorithms). */
static void test_rng_splitmix64_reference(void **state)
{
    uint64_t s = 0;

    (void)state;
    assert_true(sc_rng_splitmix64(&s) == 0xe220a8397b1dcdafULL);
}

static void test_rng_xoshiro_reference(void **state)
{
    struct sc_rng r;

    (void)state;
    sc_rng_init(&r, 0);
    assert_true(sc_rng_next(&r) == 0x99ec5f36cb75f2b4ULL);
    assert_true(sc_rng_next(&r) == 0xbf6e1f784956452aULL);
    assert_true(sc_rng_next(&r) == 0x1a5f849d4933e6e0ULL);
    sc_rng_init(&r, 42);
    assert_true(sc_rng_next(&r) == 0x15780b2e0c2ec716ULL);
    assert_true(sc_rng_next(&r) == 0x6104d9866d113a7eULL);
    assert_true(sc_rng_next(&r) == 0xae17533239e499a1ULL);
}

static void test_rng_same_seed_same_ids(void **state)
{
    struct sc_rng a, b;
    char ia[SC_RNG_INSTANCE_ID_LEN], ib[SC_RNG_INSTANCE_ID_LEN];
    char ua[SC_RNG_UUID_LEN], ub[SC_RNG_UUID_LEN];

    (void)state;
    sc_rng_init(&a, 7);
    sc_rng_init(&b, 7);
    for (int i = 0; i < 100; i++) {
        sc_rng_instance_id(&a, ia);
        sc_rng_instance_id(&b, ib);
        assert_string_equal(ia, ib);
        sc_rng_uuid(&a, ua);
        sc_rng_uuid(&b, ub);
        assert_string_equal(ua, ub);
    }
    sc_rng_init(&b, 8);
    sc_rng_instance_id(&b, ib);
    sc_rng_init(&a, 7);
    sc_rng_instance_id(&a, ia);
    assert_string_not_equal(ia, ib);
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static void test_rng_instance_id_shape(void **state)
{
    struct sc_rng r;
    char id[SC_RNG_INSTANCE_ID_LEN];

    (void)state;
    sc_rng_init(&r, 1);
    for (int n = 0; n < 1000; n++) {
        sc_rng_instance_id(&r, id);
        assert_int_equal(strlen(id), 19);
        assert_memory_equal(id, "i-", 2);
        for (int i = 2; i < 19; i++)
            assert_true(is_hex(id[i]));
    }
}

static void test_rng_uuid_v4_layout(void **state)
{
    struct sc_rng r;
    char u[SC_RNG_UUID_LEN];
    int seen_variant[4] = { 0 };

    (void)state;
    sc_rng_init(&r, 2);
    for (int n = 0; n < 1000; n++) {
        sc_rng_uuid(&r, u);
        assert_int_equal(strlen(u), 36);
        for (int i = 0; i < 36; i++) {
            if (i == 8 || i == 13 || i == 18 || i == 23)
                assert_int_equal(u[i], '-');
            else
                assert_true(is_hex(u[i]));
        }
        assert_int_equal(u[14], '4');
        assert_non_null(strchr("89ab", u[19]));
        seen_variant[strchr("89ab", u[19]) - "89ab"] = 1;
    }
    for (int i = 0; i < 4; i++)
        assert_true(seen_variant[i]);
}

static void test_rng_below_in_range_and_covers(void **state)
{
    struct sc_rng r;
    int seen[7] = { 0 };

    (void)state;
    sc_rng_init(&r, 3);
    assert_true(sc_rng_below(&r, 0) == 0);
    assert_true(sc_rng_below(&r, 1) == 0);
    for (int i = 0; i < 1000; i++) {
        uint64_t v = sc_rng_below(&r, 7);
        assert_true(v < 7);
        seen[v]++;
    }
    for (int i = 0; i < 7; i++)
        assert_true(seen[i] > 0);
}

static void test_rng_double_in_unit_interval(void **state)
{
    struct sc_rng r;
    double sum = 0;

    (void)state;
    sc_rng_init(&r, 4);
    for (int i = 0; i < 10000; i++) {
        double d = sc_rng_double(&r);
        assert_true(d >= 0.0 && d < 1.0);
        sum += d;
    }
    /* A mean far from 0.5 would mean broken bits, not bad luck (sd of mean ~0.003). */
    assert_true(sum / 10000 > 0.45 && sum / 10000 < 0.55);
}

static void test_rng_hex_lengths(void **state)
{
    struct sc_rng r;
    char buf[70];

    (void)state;
    sc_rng_init(&r, 5);
    sc_rng_hex(&r, buf, 0);
    assert_string_equal(buf, "");
    sc_rng_hex(&r, buf, 8);
    assert_int_equal(strlen(buf), 8);
    sc_rng_hex(&r, buf, 64);
    assert_int_equal(strlen(buf), 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng_splitmix64_reference),
        cmocka_unit_test(test_rng_xoshiro_reference),
        cmocka_unit_test(test_rng_same_seed_same_ids),
        cmocka_unit_test(test_rng_instance_id_shape),
        cmocka_unit_test(test_rng_uuid_v4_layout),
        cmocka_unit_test(test_rng_below_in_range_and_covers),
        cmocka_unit_test(test_rng_double_in_unit_interval),
        cmocka_unit_test(test_rng_hex_lengths),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
