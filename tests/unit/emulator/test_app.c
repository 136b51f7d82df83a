/* tests/unit/emulator/test_app.c: emulator/app.c, the instance's application profile:
 * JSON parsing (valid and malformed), service-time distributions (seeded), the SOAP
 * adder's 260-byte reply, and modelled CPU from busy workers. */
#include "emulator/app.h"

#include <math.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void test_app_profile_parse(void **state)
{
    struct app_profile p;
    char err[256];
    char out[512];
    struct app_profile q;

    (void)state;
    app_profile_defaults(&p);
    assert_int_equal(app_profile_parse("{}", &p, err, sizeof(err)), 0);
    assert_int_equal(p.workers, 8);
    assert_string_equal(p.health_path, "/health");
    assert_int_equal(app_profile_parse("{\"boot_s\": 60, \"workers\": 200, \"service_ms\": "
                                       "{\"dist\": \"lognormal\", \"median\": 900, \"sigma\": 0.3},"
                                       " \"cpu_ms\": 1.5, \"error_rate\": 0.01, \"slow\": 2, "
                                       "\"health_path\": \"/ping\", \"seed\": 7, \"queue\": 10}",
                                       &p, err, sizeof(err)),
                     0);
    assert_true(p.boot_s == 60);
    assert_int_equal(p.workers, 200);
    assert_int_equal(p.queue, 10);
    assert_int_equal(p.dist, APP_DIST_LOGNORMAL);
    assert_true(p.service_ms == 900);
    assert_true(p.sigma == 0.3);
    assert_true(p.cpu_ms == 1.5);
    assert_true(p.error_rate == 0.01);
    assert_true(p.slow == 2);
    assert_string_equal(p.health_path, "/ping");
    assert_int_equal(p.seed, 7);
    /* the formatted profile parses back to the same */
    assert_true(app_profile_format(&p, out, sizeof(out)) > 0);
    app_profile_defaults(&q);
    assert_int_equal(app_profile_parse(out, &q, err, sizeof(err)), 0);
    assert_memory_equal(&p, &q, sizeof(p));
    assert_int_equal(app_profile_parse("{\"service_ms\": 5}", &p, err, sizeof(err)), 0);
    assert_int_equal(p.dist, APP_DIST_FIXED);
    assert_int_equal(app_profile_parse("{\"service_ms\": {\"dist\": \"exponential\", "
                                       "\"mean\": 3}}",
                                       &p, err, sizeof(err)),
                     0);
    assert_int_equal(p.dist, APP_DIST_EXPONENTIAL);
}

static void test_app_profile_malformed(void **state)
{
    static const char *const bad[] = {
        "",
        "[]",
        "{\"workers\": 0}",
        "{\"workers\": 1.5}",
        "{\"workers\": \"8\"}",
        "{\"boot_s\": -1}",
        "{\"error_rate\": 1.5}",
        "{\"slow\": -2}",
        "{\"service_ms\": {\"dist\": \"weibull\"}}",
        "{\"service_ms\": {\"sigma\": 99}}",
        "{\"service_ms\": -1}",
        "{\"health_path\": \"health\"}",
        "{\"unknown\": 1}",
        "{\"seed\": -1}",
    };
    struct app_profile p;
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        app_profile_defaults(&p);
        err[0] = '\0';
        if (app_profile_parse(bad[i], &p, err, sizeof(err)) != -1)
            fail_msg("accepted: %s", bad[i]);
        assert_true(err[0] != '\0');
    }
}

static void test_app_service_distributions(void **state)
{
    struct app_profile p;
    struct sc_rng r1, r2;
    double sum = 0, v[2001];
    int below = 0;

    (void)state;
    app_profile_defaults(&p);
    p.dist = APP_DIST_FIXED;
    p.service_ms = 7;
    sc_rng_init(&r1, 1);
    assert_true(app_service_ms(&p, &r1) == 7);
    /* exponential: mean close to the mean over many samples; seeded = repeatable */
    p.dist = APP_DIST_EXPONENTIAL;
    p.service_ms = 10;
    sc_rng_init(&r1, 42);
    sc_rng_init(&r2, 42);
    for (int i = 0; i < 20000; i++) {
        double a = app_service_ms(&p, &r1);

        assert_true(a == app_service_ms(&p, &r2));
        assert_true(a >= 0);
        sum += a;
    }
    assert_true(fabs(sum / 20000 - 10) < 0.5);
    /* lognormal: the median is the median */
    p.dist = APP_DIST_LOGNORMAL;
    p.service_ms = 900;
    p.sigma = 0.5;
    sc_rng_init(&r1, 3);
    for (int i = 0; i < 2001; i++) {
        v[i] = app_service_ms(&p, &r1);
        below += v[i] < 900;
    }
    assert_true(below > 900 && below < 1100);
}

static void test_app_soap_add(void **state)
{
    static const char req[] =
        "<soapenv:Envelope xmlns:soapenv=\"http://www.w3.org/2003/05/soap-envelope\">"
        "<soapenv:Body><p:add xmlns:p=\"http://service.wso2\"><a> 12 </a><b>30</b></p:add>"
        "</soapenv:Body></soapenv:Envelope>";
    char out[APP_SOAP_REPLY_LEN + 1];

    (void)state;
    assert_int_equal(app_soap_add(req, strlen(req), out, sizeof(out)), APP_SOAP_REPLY_LEN);
    assert_int_equal(strlen(out), APP_SOAP_REPLY_LEN);
    assert_non_null(strstr(out, "<ns:return>42</ns:return>"));
    assert_true(strncmp(out, "<?xml", 5) == 0);
    assert_int_equal(app_soap_add("<a>1.5</a><b>-0.25</b>", 22, out, sizeof(out)), 260);
    assert_non_null(strstr(out, "<ns:return>1.25</ns:return>"));
    assert_int_equal(app_soap_add("<a>1</a>", 8, out, sizeof(out)), -1);
    assert_int_equal(app_soap_add("<a>x</a><b>2</b>", 16, out, sizeof(out)), -1);
    assert_int_equal(app_soap_add("<a>1</a><b>2</b>", 16, out, 100), -1);
}

static void test_app_cpu_model(void **state)
{
    struct app_busy b = { 0, 1000, 0 };

    (void)state;
    /* 2 of 4 workers busy for 1 s, then idle for 1 s: 25 % over 2 s */
    app_busy_change(&b, 1000, +1);
    app_busy_change(&b, 1000, +1);
    app_busy_change(&b, 2000, -1);
    app_busy_change(&b, 2000, -1);
    assert_true(app_busy_total_ms(&b, 3000) == 2000);
    assert_true(app_cpu_pct(app_busy_total_ms(&b, 3000), 4, 2000) == 25);
    /* a worker busy now counts up to now */
    app_busy_change(&b, 3000, +1);
    assert_true(app_busy_total_ms(&b, 3500) == 2500);
    assert_true(app_cpu_pct(10000, 1, 1000) == 100); /* clamped */
    assert_true(app_cpu_pct(10, 0, 1000) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_app_profile_parse),
        cmocka_unit_test(test_app_profile_malformed),
        cmocka_unit_test(test_app_service_distributions),
        cmocka_unit_test(test_app_soap_add),
        cmocka_unit_test(test_app_cpu_model),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
