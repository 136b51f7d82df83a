/* tests/unit/scaler/test_hash.c: scaler/hash.h, FNV-1a 64 against the published test
 * vectors (Landon Curt Noll's FNV test suite), and the pieces the tree folds hashes from. */
#include "scaler/hash.h"

#include <stdint.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void test_hash_fnv1a_known_vectors(void **state)
{
    static const struct {
        const char *s;
        size_t n;
        uint64_t h;
    } v[] = {
        { "", 0, 0xcbf29ce484222325ULL }, /* the offset basis itself */
        { "a", 1, 0xaf63dc4c8601ec8cULL },
        { "b", 1, 0xaf63df4c8601f1a5ULL },
        { "c", 1, 0xaf63de4c8601eff2ULL },
        { "foobar", 6, 0x85944171f73967e8ULL },
        { "chongo was here!\n", 17, 0x46810940eff5f915ULL },
    };

    (void)state;
    assert_true(SC_HASH_FNV1A_BASIS == 0xcbf29ce484222325ULL);
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        assert_true(sc_hash_fnv1a(v[i].s, v[i].n) == v[i].h);
        assert_true(sc_hash_fnv1a_str(SC_HASH_FNV1A_BASIS, v[i].s) == v[i].h);
    }
}

static void test_hash_fnv1a_continues_where_it_stopped(void **state)
{
    const char *s = "chongo was here!\n";

    (void)state;
    for (size_t cut = 0; cut <= strlen(s); cut++) {
        uint64_t h = sc_hash_fnv1a(s, cut);

        assert_true(sc_hash_fnv1a_add(h, s + cut, strlen(s) - cut) == 0x46810940eff5f915ULL);
        assert_true(sc_hash_fnv1a_str(h, s + cut) == 0x46810940eff5f915ULL);
    }
    /* bytes above 0x7f are unsigned: "\xff" is not hashed as -1 */
    assert_true(sc_hash_fnv1a("\xff", 1) == (SC_HASH_FNV1A_BASIS ^ 0xffULL) * SC_HASH_FNV1A_PRIME);
    assert_true(sc_hash_fnv1a_str(SC_HASH_FNV1A_BASIS, "\xff") == sc_hash_fnv1a("\xff", 1));
}

static void test_hash_fnv1a_field_ends_with_0xff(void **state)
{
    uint64_t ab_c = sc_hash_fnv1a_field(sc_hash_fnv1a_field(SC_HASH_FNV1A_BASIS, "ab"), "c");
    uint64_t a_bc = sc_hash_fnv1a_field(sc_hash_fnv1a_field(SC_HASH_FNV1A_BASIS, "a"), "bc");

    (void)state;
    assert_true(sc_hash_fnv1a_field(SC_HASH_FNV1A_BASIS, "foobar") ==
                sc_hash_fnv1a("foobar\xff", 7));
    assert_true(ab_c == sc_hash_fnv1a("ab\xff"
                                      "c\xff",
                                      5));
    assert_true(ab_c != a_bc);
    assert_true(sc_hash_fnv1a_field(SC_HASH_FNV1A_BASIS, NULL) == sc_hash_fnv1a("\xff", 1));
}

static void test_hash_mix_is_one_round_over_the_word(void **state)
{
    uint64_t h = SC_HASH_FNV1A_BASIS;

    (void)state;
    /* a byte-sized value mixes like its byte; a wider one as one word, not byte by byte */
    assert_true(sc_hash_mix(h, 'a') == 0xaf63dc4c8601ec8cULL);
    assert_true(sc_hash_mix(h, 0x0102030405060708ULL) ==
                (h ^ 0x0102030405060708ULL) * SC_HASH_FNV1A_PRIME);
    assert_true(sc_hash_mix(sc_hash_mix(h, 1), 2) != sc_hash_mix(sc_hash_mix(h, 2), 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_fnv1a_known_vectors),
        cmocka_unit_test(test_hash_fnv1a_continues_where_it_stopped),
        cmocka_unit_test(test_hash_fnv1a_field_ends_with_0xff),
        cmocka_unit_test(test_hash_mix_is_one_round_over_the_word),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
