/* tests/unit/scaler/test_elbv2_sni.c: scaler/elbv2_sni.c, one test per rule of
 * docs/elbv2.md 10.6 (name matching, the default, one match, the smart selection's
 * criteria in order, the client's support, the list's order). */
#include "scaler/elbv2_sni.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define NOW 1800000000LL
#define DAY 86400LL

static const char *const n_default[] = { "default.example.test" };
static const char *const n_a[] = { "a.example.test" };
static const char *const n_wild_b[] = { "*.b.example.test" };
static const char *const n_both[] = { "x.example.test", "a.example.test" };

static struct sc_sni_cert cert(const char *const *names, int n)
{
    struct sc_sni_cert c = { names, n,         SC_SNI_KEY_ECDSA, SC_SNI_HASH_SHA,
                             256,   NOW - DAY, NOW + 365 * DAY };

    return c;
}

static void test_sni_exact_name_ignores_case_and_trailing_dot(void **state)
{
    (void)state;
    assert_true(sc_sni_name_matches("a.example.test", "a.example.test"));
    assert_true(sc_sni_name_matches("a.example.test", "A.Example.TEST"));
    assert_true(sc_sni_name_matches("a.example.test", "a.example.test."));
    assert_false(sc_sni_name_matches("a.example.test", "b.example.test"));
    assert_false(sc_sni_name_matches("a.example.test", "a.example.tes"));
    assert_false(sc_sni_name_matches("a.example.test", "xa.example.test"));
    assert_false(sc_sni_name_matches("a.example.test", ""));
    assert_false(sc_sni_name_matches("", "a.example.test"));
}

static void test_sni_wildcard_covers_exactly_one_label(void **state)
{
    (void)state;
    assert_true(sc_sni_name_matches("*.b.example.test", "x.b.example.test"));
    assert_true(sc_sni_name_matches("*.b.example.test", "WWW.B.example.test"));
    assert_false(sc_sni_name_matches("*.b.example.test", "b.example.test"));
    assert_false(sc_sni_name_matches("*.b.example.test", "y.x.b.example.test"));
    assert_false(sc_sni_name_matches("*.b.example.test", ".b.example.test"));
    assert_false(sc_sni_name_matches("*.b.example.test", "x.c.example.test"));
    /* the star is literal anywhere but as the whole left-most label */
    assert_false(sc_sni_name_matches("w*.b.example.test", "ww.b.example.test"));
    assert_false(sc_sni_name_matches("*", "x"));
}

static void test_sni_any_name_of_a_certificate_matches(void **state)
{
    struct sc_sni_cert c = cert(n_both, 2);

    (void)state;
    assert_true(sc_sni_cert_matches(&c, "x.example.test"));
    assert_true(sc_sni_cert_matches(&c, "a.example.test"));
    assert_false(sc_sni_cert_matches(&c, "y.example.test"));
}

static void test_sni_no_server_name_is_the_default(void **state)
{
    struct sc_sni_cert cs[] = { cert(n_default, 1), cert(n_a, 1) };

    (void)state;
    assert_int_equal(sc_sni_choose(NULL, cs, 2, 0, NOW), 0);
    assert_int_equal(sc_sni_choose("", cs, 2, 0, NOW), 0);
}

static void test_sni_no_match_in_the_list_is_the_default(void **state)
{
    struct sc_sni_cert cs[] = { cert(n_default, 1), cert(n_a, 1), cert(n_wild_b, 1) };

    (void)state;
    assert_int_equal(sc_sni_choose("unknown.example.test", cs, 3, 0, NOW), 0);
    assert_int_equal(sc_sni_choose("b.example.test", cs, 3, 0, NOW), 0);
    /* the default's own name: nothing in the list, so the default */
    assert_int_equal(sc_sni_choose("default.example.test", cs, 3, 0, NOW), 0);
    /* a listener without a list */
    assert_int_equal(sc_sni_choose("a.example.test", cs, 1, 0, NOW), 0);
}

static void test_sni_one_match_is_chosen(void **state)
{
    struct sc_sni_cert cs[] = { cert(n_default, 1), cert(n_a, 1), cert(n_wild_b, 1) };

    (void)state;
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, 0, NOW), 1);
    assert_int_equal(sc_sni_choose("q.b.example.test", cs, 3, 0, NOW), 2);
    /* even a worse certificate, and one the client cannot verify: it is the only one */
    cs[1].key = SC_SNI_KEY_RSA;
    cs[1].hash = SC_SNI_HASH_MD5;
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, SC_SNI_KEY_ECDSA, NOW), 1);
}

static void test_sni_several_prefer_ecdsa_over_rsa(void **state)
{
    struct sc_sni_cert cs[] = { cert(n_default, 1), cert(n_a, 1), cert(n_both, 2) };

    (void)state;
    cs[1].key = SC_SNI_KEY_RSA;
    cs[1].key_bits = 4096; /* the key algorithm comes before the length */
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, 0, NOW), 2);
    cs[1].key = SC_SNI_KEY_ECDSA;
    cs[2].key = SC_SNI_KEY_RSA;
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, 0, NOW), 1);
}

static void test_sni_several_prefer_sha_over_md5(void **state)
{
    struct sc_sni_cert cs[] = { cert(n_default, 1), cert(n_a, 1), cert(n_both, 2) };

    (void)state;
    cs[1].hash = SC_SNI_HASH_MD5;
    cs[1].key_bits = 384; /* the hash comes before the length */
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, 0, NOW), 2);
}

static void test_sni_several_prefer_the_larger_key(void **state)
{
    struct sc_sni_cert cs[] = { cert(n_default, 1), cert(n_a, 1), cert(n_both, 2) };

    (void)state;
    cs[2].key_bits = 384;
    cs[2].not_after_s = NOW + DAY; /* the length comes before the validity */
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, 0, NOW), 2);
}

static void test_sni_several_prefer_valid_then_later_expiry(void **state)
{
    struct sc_sni_cert cs[] = { cert(n_default, 1), cert(n_a, 1), cert(n_both, 2) };

    (void)state;
    cs[1].not_after_s = NOW + 2 * 365 * DAY;
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, 0, NOW), 1);
    /* an expired certificate loses to a valid one, whatever its end */
    cs[1].not_after_s = NOW - 1;
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, 0, NOW), 2);
    /* and so does one not yet valid */
    cs[1].not_after_s = NOW + 2 * 365 * DAY;
    cs[1].not_before_s = NOW + 1;
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, 0, NOW), 2);
}

static void test_sni_several_only_those_the_client_supports(void **state)
{
    struct sc_sni_cert cs[] = { cert(n_default, 1), cert(n_a, 1), cert(n_both, 2) };

    (void)state;
    cs[2].key = SC_SNI_KEY_RSA;
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, SC_SNI_KEY_RSA, NOW), 2);
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, SC_SNI_KEY_ECDSA, NOW), 1);
    /* supporting neither: the best of them all */
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, SC_SNI_KEY_OTHER, NOW), 1);
}

static void test_sni_several_equal_keep_the_list_order(void **state)
{
    struct sc_sni_cert cs[] = { cert(n_default, 1), cert(n_a, 1), cert(n_both, 2) };

    (void)state;
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, 0, NOW), 1);
    cs[1] = cert(n_both, 2);
    cs[2] = cert(n_a, 1);
    assert_int_equal(sc_sni_choose("a.example.test", cs, 3, 0, NOW), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sni_exact_name_ignores_case_and_trailing_dot),
        cmocka_unit_test(test_sni_wildcard_covers_exactly_one_label),
        cmocka_unit_test(test_sni_any_name_of_a_certificate_matches),
        cmocka_unit_test(test_sni_no_server_name_is_the_default),
        cmocka_unit_test(test_sni_no_match_in_the_list_is_the_default),
        cmocka_unit_test(test_sni_one_match_is_chosen),
        cmocka_unit_test(test_sni_several_prefer_ecdsa_over_rsa),
        cmocka_unit_test(test_sni_several_prefer_sha_over_md5),
        cmocka_unit_test(test_sni_several_prefer_the_larger_key),
        cmocka_unit_test(test_sni_several_prefer_valid_then_later_expiry),
        cmocka_unit_test(test_sni_several_only_those_the_client_supports),
        cmocka_unit_test(test_sni_several_equal_keep_the_list_order),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
