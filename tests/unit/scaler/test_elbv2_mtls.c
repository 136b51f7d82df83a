/* tests/unit/scaler/test_elbv2_mtls.c: scaler/elbv2_mtls.c, one test per rule of
 * docs/elbv2.md 14.1 (the modes' admission, the connection log's status, the headers and
 * their URL encoding, the reserved header names). */
#include "scaler/elbv2_mtls.h"

#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void test_mtls_mode_from_listener(void **state)
{
    struct sc_elbv2_mutual_auth v = { .mode = "verify" }, p = { .mode = "passthrough" },
                                o = { .mode = "off" };
    struct sc_elbv2_listener li = { 0 };

    (void)state;
    assert_int_equal(sc_elbv2_mtls_mode(NULL), SC_MTLS_OFF);
    assert_int_equal(sc_elbv2_mtls_mode(&li), SC_MTLS_OFF);
    li.mutual_auth = &v;
    assert_int_equal(sc_elbv2_mtls_mode(&li), SC_MTLS_VERIFY);
    li.mutual_auth = &p;
    assert_int_equal(sc_elbv2_mtls_mode(&li), SC_MTLS_PASSTHROUGH);
    li.mutual_auth = &o;
    assert_int_equal(sc_elbv2_mtls_mode(&li), SC_MTLS_OFF);
}

static void test_mtls_passthrough_admits_without_verifying(void **state)
{
    const char *why = NULL;

    (void)state;
    for (int c = SC_MTLS_OK; c <= SC_MTLS_TYPE_UNSUPPORTED; c++) {
        assert_int_equal(sc_elbv2_mtls_admit(SC_MTLS_PASSTHROUGH, c, 0, &why), 1);
        assert_string_equal(why, "Success");
        assert_int_equal(sc_elbv2_mtls_admit(SC_MTLS_OFF, c, 0, &why), 1);
        assert_string_equal(why, "-");
    }
}

static void test_mtls_verify_refusals_and_their_status(void **state)
{
    static const struct {
        enum sc_mtls_check c;
        const char *why;
    } t[] = {
        { SC_MTLS_NO_CERT, "Failed:ClientCertMissing" },
        { SC_MTLS_UNTRUSTED, "Failed:ClientCertUntrusted" },
        { SC_MTLS_EXPIRED, "Failed:ClientCertExpired" },
        { SC_MTLS_NOT_YET_VALID, "Failed:ClientCertNotYetValid" },
        { SC_MTLS_REVOKED, "Failed:ClientCertRevoked" },
        { SC_MTLS_TYPE_UNSUPPORTED, "Failed:ClientCertTypeUnsupported" },
    };
    const char *why = NULL;

    (void)state;
    assert_int_equal(sc_elbv2_mtls_admit(SC_MTLS_VERIFY, SC_MTLS_OK, 0, &why), 1);
    assert_string_equal(why, "Success");
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        assert_int_equal(sc_elbv2_mtls_admit(SC_MTLS_VERIFY, t[i].c, 0, &why), 0);
        assert_string_equal(why, t[i].why);
    }
}

static void test_mtls_ignore_expiry_admits_only_expired(void **state)
{
    const char *why = NULL;

    (void)state;
    assert_int_equal(sc_elbv2_mtls_admit(SC_MTLS_VERIFY, SC_MTLS_EXPIRED, 1, &why), 1);
    assert_string_equal(why, "Success");
    assert_int_equal(sc_elbv2_mtls_admit(SC_MTLS_VERIFY, SC_MTLS_NOT_YET_VALID, 1, NULL), 0);
    assert_int_equal(sc_elbv2_mtls_admit(SC_MTLS_VERIFY, SC_MTLS_UNTRUSTED, 1, NULL), 0);
    assert_int_equal(sc_elbv2_mtls_admit(SC_MTLS_VERIFY, SC_MTLS_REVOKED, 1, NULL), 0);
}

static void test_mtls_urlencode_keeps_plus_equals_slash(void **state)
{
    char out[64];

    (void)state;
    assert_int_equal(sc_elbv2_mtls_urlencode("-----BEGIN CERT\nab+/=%~_.", 25, out, sizeof(out)),
                     strlen("-----BEGIN%20CERT%0Aab+/=%25~_."));
    assert_string_equal(out, "-----BEGIN%20CERT%0Aab+/=%25~_.");
    assert_int_equal(sc_elbv2_mtls_urlencode("a b", 3, out, 5), -1);
    assert_string_equal(out, "");
    assert_int_equal(sc_elbv2_mtls_urlencode("a b", 3, out, 6), 5);
}

static void test_mtls_verify_headers(void **state)
{
    struct sc_mtls_client c = { .leaf_pem = "PEM A\n",
                                .leaf_len = 6,
                                .serial_hex = "0A1B",
                                .issuer = "CN=ca,O=Lab",
                                .subject = "CN=client",
                                .not_before_s = 1704222000,  /* 2024-01-02T19:00:00Z */
                                .not_after_s = 1712084400 }; /* 2024-04-02T19:00:00Z */
    char out[512];
    const char *want = "X-Amzn-Mtls-Clientcert-Serial-Number: 0A1B\r\n"
                       "X-Amzn-Mtls-Clientcert-Issuer: CN=ca,O=Lab\r\n"
                       "X-Amzn-Mtls-Clientcert-Subject: CN=client\r\n"
                       "X-Amzn-Mtls-Clientcert-Validity: "
                       "NotBefore=2024-01-02T19:00:00Z;NotAfter=2024-04-02T19:00:00Z\r\n"
                       "X-Amzn-Mtls-Clientcert-Leaf: PEM%20A%0A\r\n";

    (void)state;
    assert_int_equal(sc_elbv2_mtls_headers(SC_MTLS_VERIFY, &c, out, sizeof(out)), strlen(want));
    assert_string_equal(out, want);
    assert_int_equal(sc_elbv2_mtls_headers(SC_MTLS_VERIFY, &c, out, 40), -1);
    assert_string_equal(out, "");
}

static void test_mtls_passthrough_header_is_the_chain(void **state)
{
    struct sc_mtls_client c = { .chain_pem = "A\nB\n", .chain_len = 4 };
    struct sc_mtls_client none = { 0 };
    char out[256];

    (void)state;
    assert_int_equal(sc_elbv2_mtls_headers(SC_MTLS_PASSTHROUGH, &c, out, sizeof(out)),
                     strlen("X-Amzn-Mtls-Clientcert: A%0AB%0A\r\n"));
    assert_string_equal(out, "X-Amzn-Mtls-Clientcert: A%0AB%0A\r\n");
    assert_int_equal(sc_elbv2_mtls_headers(SC_MTLS_PASSTHROUGH, &none, out, sizeof(out)), 0);
    assert_int_equal(sc_elbv2_mtls_headers(SC_MTLS_PASSTHROUGH, NULL, out, sizeof(out)), 0);
    assert_int_equal(sc_elbv2_mtls_headers(SC_MTLS_OFF, &c, out, sizeof(out)), 0);
    assert_string_equal(out, "");
}

static void test_mtls_reserved_header_names(void **state)
{
    (void)state;
    assert_true(sc_elbv2_mtls_reserved_header("x-amzn-mtls-clientcert", 22));
    assert_true(sc_elbv2_mtls_reserved_header("X-Amzn-Mtls-Clientcert-Leaf", 27));
    assert_false(sc_elbv2_mtls_reserved_header("X-Amzn-Trace-Id", 15));
    assert_false(sc_elbv2_mtls_reserved_header("X-Amzn-Mtls", 11));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mtls_mode_from_listener),
        cmocka_unit_test(test_mtls_passthrough_admits_without_verifying),
        cmocka_unit_test(test_mtls_verify_refusals_and_their_status),
        cmocka_unit_test(test_mtls_ignore_expiry_admits_only_expired),
        cmocka_unit_test(test_mtls_urlencode_keeps_plus_equals_slash),
        cmocka_unit_test(test_mtls_verify_headers),
        cmocka_unit_test(test_mtls_passthrough_header_is_the_chain),
        cmocka_unit_test(test_mtls_reserved_header_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
