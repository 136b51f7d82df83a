/* tests/unit/scaler/test_lb_sticky.c: scaler/lb_sticky.c, one test per stickiness rule of
 * docs/elbv2.md 10.1 and docs/elb-classic.md 4.1. */
#include "scaler/lb_sticky.h"

#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define SECRET 0x1234abcd5678ef00ULL
#define NOW_S  1796191200LL /* 2026-12-02T06:00:00Z, a Wednesday */

/* The cookie value is opaque: it does not show the target, and decodes back to it. */
static void test_lb_sticky_cookie_is_opaque_and_round_trips(void **state)
{
    char v[SC_STICKY_VALUE_LEN], hex[17];
    uint64_t key = sc_sticky_key("0/i-0123456789abcdef0:80"), k2 = 0;
    int64_t exp = 0;

    (void)state;
    assert_int_equal(sc_sticky_encode(SECRET, key, NOW_S + 60, v), 48);
    snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)key);
    assert_null(strstr(v, hex));
    assert_null(strstr(v, "i-0123"));
    assert_int_equal(sc_sticky_decode(SECRET, v, 48, &k2, &exp), 0);
    assert_true(k2 == key);
    assert_int_equal(exp, NOW_S + 60);
}

/* A cookie edited by the client, sealed under another load balancer's secret or malformed
 * is not ours: the request is routed afresh. */
static void test_lb_sticky_tampered_or_foreign_cookie_rejected(void **state)
{
    char v[SC_STICKY_VALUE_LEN];
    uint64_t k;
    int64_t e;

    (void)state;
    sc_sticky_encode(SECRET, 42, 0, v);
    assert_int_equal(sc_sticky_decode(SECRET ^ 1, v, 48, &k, &e), -1);
    v[5] = v[5] == '0' ? '1' : '0';
    assert_int_equal(sc_sticky_decode(SECRET, v, 48, &k, &e), -1);
    assert_int_equal(sc_sticky_decode(SECRET, "xyz", 3, &k, &e), -1);
    assert_int_equal(sc_sticky_decode(SECRET, v, 47, &k, &e), -1);
}

/* The target in the cookie serves while it is routable and the cookie unexpired; an
 * unhealthy, draining or deregistered target, or an expired cookie, means a new pick. */
static void test_lb_sticky_keep_only_routable_unexpired(void **state)
{
    (void)state;
    assert_int_equal(sc_sticky_keep(1, NOW_S + 10, NOW_S, 1), 1);
    assert_int_equal(sc_sticky_keep(1, 0, NOW_S, 1), 1); /* classic session cookie */
    assert_int_equal(sc_sticky_keep(1, NOW_S + 10, NOW_S, 0), 0);
    assert_int_equal(sc_sticky_keep(1, NOW_S, NOW_S, 1), 0);
    assert_int_equal(sc_sticky_keep(0, NOW_S + 10, NOW_S, 1), 0);
}

/* Cookie headers: "a=1; b=2", names exact. */
static void test_lb_sticky_cookie_header_parsed(void **state)
{
    const char *h = "SESS=abc; AWSALB=xyz ;AWSALBCORS=q";
    const char *v;
    size_t n;

    (void)state;
    assert_int_equal(sc_sticky_cookie_find(h, strlen(h), "AWSALB", &v, &n), 1);
    assert_int_equal(n, 3);
    assert_memory_equal(v, "xyz", 3);
    assert_int_equal(sc_sticky_cookie_find(h, strlen(h), "AWSALBCORS", &v, &n), 1);
    assert_memory_equal(v, "q", 1);
    assert_int_equal(sc_sticky_cookie_find(h, strlen(h), "AWSAL", &v, &n), 0);
    assert_int_equal(sc_sticky_cookie_find(h, strlen(h), "sess", &v, &n), 0);
    assert_int_equal(sc_sticky_sets_cookie(" SESS=1; Path=/", 15, "SESS"), 1);
    assert_int_equal(sc_sticky_sets_cookie("SESSION=1", 9, "SESS"), 0);
}

/* ALB duration-based stickiness: AWSALB and AWSALBCORS (SameSite=None; Secure), one value,
 * Expires now + stickiness.lb_cookie.duration_seconds. */
static void test_lb_sticky_alb_lb_cookie_sets_awsalb_and_cors(void **state)
{
    struct sc_sticky s = { SC_STICKY_LB_COOKIE, 1, 86400, "" };
    char out[512];
    long n = sc_sticky_set_cookie(&s, SECRET, 7, NOW_S, out, sizeof(out));

    (void)state;
    assert_true(n > 0);
    assert_non_null(strstr(out, "Set-Cookie: AWSALB="));
    assert_non_null(strstr(out, "; Expires=Thu, 03 Dec 2026 06:00:00 GMT; Path=/\r\n"));
    assert_non_null(strstr(out, "Set-Cookie: AWSALBCORS="));
    assert_non_null(strstr(out, "; Path=/; SameSite=None; Secure\r\n"));
    assert_string_equal(sc_sticky_cookie_name(&s), "AWSALB");
    assert_int_equal(sc_sticky_set_cookie(&s, SECRET, 7, NOW_S, out, 40), -1);
}

/* ALB application-based stickiness: AWSALBAPP-0 with its own 7-day expiry. */
static void test_lb_sticky_alb_app_cookie_sets_awsalbapp(void **state)
{
    struct sc_sticky s = { SC_STICKY_APP_COOKIE, 1, 60, "SESS" };
    char out[512];

    (void)state;
    assert_true(sc_sticky_set_cookie(&s, SECRET, 7, NOW_S, out, sizeof(out)) > 0);
    assert_non_null(strstr(out, "Set-Cookie: AWSALBAPP-0="));
    assert_non_null(strstr(out, "Expires=Wed, 09 Dec 2026 06:00:00 GMT"));
    assert_string_equal(sc_sticky_cookie_name(&s), "AWSALBAPP-0");
}

/* Classic: AWSELB; LB-cookie policy with CookieExpirationPeriod, a session cookie without
 * one and for the app-cookie policy. */
static void test_lb_sticky_classic_awselb(void **state)
{
    struct sc_sticky lbc = { SC_STICKY_LB_COOKIE, 0, 300, "" };
    struct sc_sticky ses = { SC_STICKY_LB_COOKIE, 0, 0, "" };
    struct sc_sticky app = { SC_STICKY_APP_COOKIE, 0, 0, "JSESSIONID" };
    char out[512];

    (void)state;
    assert_true(sc_sticky_set_cookie(&lbc, SECRET, 7, NOW_S, out, sizeof(out)) > 0);
    assert_non_null(strstr(out, "Set-Cookie: AWSELB="));
    assert_non_null(strstr(out, "Expires=Wed, 02 Dec 2026 06:05:00 GMT"));
    assert_true(sc_sticky_set_cookie(&ses, SECRET, 7, NOW_S, out, sizeof(out)) > 0);
    assert_null(strstr(out, "Expires"));
    assert_true(sc_sticky_set_cookie(&app, SECRET, 7, NOW_S, out, sizeof(out)) > 0);
    assert_non_null(strstr(out, "AWSELB="));
    assert_null(strstr(out, "Expires"));
    assert_string_equal(sc_sticky_cookie_name(&app), "AWSELB");
}

/* Target group stickiness of a weighted forward: AWSALBTG and AWSALBTGCORS. */
static void test_lb_sticky_group_cookie_sets_awsalbtg(void **state)
{
    char out[512];

    (void)state;
    assert_true(sc_sticky_set_group_cookie(SECRET, 9, 300, NOW_S, out, sizeof(out)) > 0);
    assert_non_null(strstr(out, "Set-Cookie: AWSALBTG="));
    assert_non_null(strstr(out, "Set-Cookie: AWSALBTGCORS="));
    assert_non_null(strstr(out, "Expires=Wed, 02 Dec 2026 06:05:00 GMT"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lb_sticky_cookie_is_opaque_and_round_trips),
        cmocka_unit_test(test_lb_sticky_tampered_or_foreign_cookie_rejected),
        cmocka_unit_test(test_lb_sticky_keep_only_routable_unexpired),
        cmocka_unit_test(test_lb_sticky_cookie_header_parsed),
        cmocka_unit_test(test_lb_sticky_alb_lb_cookie_sets_awsalb_and_cors),
        cmocka_unit_test(test_lb_sticky_alb_app_cookie_sets_awsalbapp),
        cmocka_unit_test(test_lb_sticky_classic_awselb),
        cmocka_unit_test(test_lb_sticky_group_cookie_sets_awsalbtg),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
