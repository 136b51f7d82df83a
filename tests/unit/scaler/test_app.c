/* tests/unit/scaler/test_app.c: scaler/app.c, the one application profile of both worlds:
 * its defaults, parsing (valid and malformed, errors as JSON paths), formatting, service
 * times (seeded) and the busy-worker CPU model. */
#include "scaler/app.h"

#include <math.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void parse_ok(const char *text, struct sc_app *a)
{
    char err[256];

    if (sc_app_parse_text(a, text, err, sizeof(err)) != SC_OK)
        fail_msg("%s: %s", text, err);
}

/* The scenario's defaults are the one set: saved scenarios keep their meaning. */
static void test_app_defaults_are_the_scenarios(void **state)
{
    struct sc_app a;

    (void)state;
    sc_app_defaults(&a);
    assert_true(a.boot_s == 60);
    assert_int_equal(a.workers, 1);
    assert_int_equal(a.queue_limit, 1000);
    assert_int_equal(a.dist, SC_APP_DIST_EXPONENTIAL);
    assert_true(a.service_mean_ms == 10);
    assert_true(a.service_median_ms == 10 * log(2.0));
    assert_true(a.service_sigma == 0);
    assert_true(a.cpu_per_request == 1);
    assert_true(a.cpu_ms == 0);
    assert_true(a.error_rate == 0);
    assert_true(a.slow == 1);
    assert_string_equal(a.health_path, "/health");
    assert_true(a.seed == 1);
}

/* No key given, or every key null: the defaults, byte for byte. */
static void test_app_defaults_fill_absent_and_null_keys(void **state)
{
    struct sc_app d, a;

    (void)state;
    sc_app_defaults(&d);
    parse_ok("{}", &a);
    assert_memory_equal(&a, &d, sizeof(a));
    parse_ok("{\"boot_s\": null, \"workers\": null, \"service_ms\": null, \"seed\": null}", &a);
    assert_memory_equal(&a, &d, sizeof(a));
    /* a parse starts from the defaults, not from what *a held */
    a.workers = 99;
    parse_ok("{\"boot_s\": 5}", &a);
    assert_int_equal(a.workers, 1);
}

static void test_app_parse_reads_every_key(void **state)
{
    struct sc_app a;

    (void)state;
    parse_ok("{\"boot_s\": 30, \"workers\": 200, \"queue_limit\": 10, \"service_ms\": "
             "{\"dist\": \"lognormal\", \"median\": 900, \"sigma\": 0.3}, \"cpu_per_request\": "
             "0.25, \"cpu_ms\": 1.5, \"error_rate\": 0.01, \"slow\": 2, \"health_path\": "
             "\"/ping\", \"seed\": 7}",
             &a);
    assert_true(a.boot_s == 30);
    assert_int_equal(a.workers, 200);
    assert_int_equal(a.queue_limit, 10);
    assert_int_equal(a.dist, SC_APP_DIST_LOGNORMAL);
    assert_true(a.service_median_ms == 900);
    assert_true(a.service_sigma == 0.3);
    assert_true(a.cpu_per_request == 0.25);
    assert_true(a.cpu_ms == 1.5);
    assert_true(a.error_rate == 0.01);
    assert_true(a.slow == 2);
    assert_string_equal(a.health_path, "/ping");
    assert_true(a.seed == 7);
}

/* The documented alias: a plain number is a fixed service time. */
static void test_app_parse_service_number_is_fixed(void **state)
{
    struct sc_app a;

    (void)state;
    parse_ok("{\"service_ms\": 5}", &a);
    assert_int_equal(a.dist, SC_APP_DIST_FIXED);
    assert_true(a.service_mean_ms == 5 && a.service_median_ms == 5 && a.service_sigma == 0);
    parse_ok("{\"service_ms\": 0}", &a); /* the emulator answers at once */
    assert_true(a.service_mean_ms == 0);
}

static void test_app_parse_service_dist_defaults_to_exponential(void **state)
{
    struct sc_app a;

    (void)state;
    parse_ok("{\"service_ms\": {\"mean\": 40}}", &a);
    assert_int_equal(a.dist, SC_APP_DIST_EXPONENTIAL);
    assert_true(a.service_mean_ms == 40);
    assert_true(a.service_median_ms == 40 * log(2.0));
    parse_ok("{\"service_ms\": {\"dist\": \"fixed\", \"mean\": 3}}", &a);
    assert_int_equal(a.dist, SC_APP_DIST_FIXED);
    assert_true(a.service_median_ms == 3);
}

/* Lognormal takes its median or its mean (the other derived) and sigma, default 0.5. */
static void test_app_parse_lognormal_median_or_mean(void **state)
{
    struct sc_app a;

    (void)state;
    parse_ok("{\"service_ms\": {\"dist\": \"lognormal\", \"median\": 50}}", &a);
    assert_true(a.service_sigma == 0.5);
    assert_true(a.service_median_ms == 50);
    assert_true(a.service_mean_ms == 50 * exp(0.125));
    parse_ok("{\"service_ms\": {\"dist\": \"lognormal\", \"mean\": 50, \"sigma\": 1}}", &a);
    assert_true(a.service_mean_ms == 50);
    assert_true(a.service_median_ms == 50 / exp(0.5));
}

struct bad {
    const char *json;
    const char *want; /* the error must start with this */
};

static const struct bad bad_cases[] = {
    /* not a profile */
    { "[]", "must be an object, not an array" },
    { "{\"workers\": ", "not JSON" },
    { "{\"workers\": 2, \"workers\": 3}", "not JSON" },
    /* unknown keys, the old instance spellings included */
    { "{\"unknown\": 1}", "unknown: unknown key" },
    { "{\"queue\": 10}", "queue: unknown key" },
    { "{\"service_ms\": {\"dist\": \"fixed\", \"value\": 5}}", "service_ms.value: unknown key" },
    /* types */
    { "{\"workers\": 1.5}", "workers: must be an integer, not a fraction" },
    { "{\"workers\": \"8\"}", "workers: must be an integer, not a string" },
    { "{\"boot_s\": true}", "boot_s: must be a number, not a boolean" },
    { "{\"service_ms\": \"10\"}", "service_ms: must be an object (or a number of ms, fixed)" },
    { "{\"service_ms\": {\"dist\": 1, \"mean\": 1}}", "service_ms.dist: must be a string" },
    { "{\"health_path\": 5}", "health_path: must be a string, not a number" },
    { "{\"seed\": 1.5}", "seed: must be an integer, not a fraction" },
    /* ranges */
    { "{\"workers\": 0}", "workers: must be >= 1" },
    { "{\"workers\": 100001}", "workers: must be <= 100000" },
    { "{\"boot_s\": -1}", "boot_s: must be >= 0" },
    { "{\"boot_s\": 86401}", "boot_s: must be <= 86400" },
    { "{\"queue_limit\": -1}", "queue_limit: must be >= 0" },
    { "{\"cpu_per_request\": 0}", "cpu_per_request: must be > 0" },
    { "{\"cpu_per_request\": 1.5}", "cpu_per_request: must be <= 1" },
    { "{\"cpu_ms\": -1}", "cpu_ms: must be >= 0" },
    { "{\"error_rate\": 1.5}", "error_rate: must be <= 1" },
    { "{\"slow\": -2}", "slow: must be >= 0" },
    { "{\"seed\": -1}", "seed: must be >= 0" },
    { "{\"service_ms\": -1}", "service_ms: must be >= 0" },
    { "{\"service_ms\": {\"mean\": -1}}", "service_ms.mean: must be >= 0" },
    { "{\"service_ms\": {\"dist\": \"lognormal\", \"median\": 9, \"sigma\": 99}}",
      "service_ms.sigma: must be <= 5" },
    /* the service-time forms */
    { "{\"service_ms\": {\"dist\": \"weibull\", \"mean\": 1}}",
      "service_ms.dist: must be one of fixed, exponential, lognormal, not \"weibull\"" },
    { "{\"service_ms\": {\"dist\": \"exp\", \"mean\": 1}}", "service_ms.dist: must be one of" },
    { "{\"service_ms\": {\"dist\": \"exponential\"}}",
      "service_ms: missing required key \"mean\"" },
    { "{\"service_ms\": {\"dist\": \"fixed\", \"median\": 5}}",
      "service_ms: missing required key \"mean\"" },
    { "{\"service_ms\": {\"mean\": 5, \"median\": 5}}",
      "service_ms.median: only for dist \"lognormal\"" },
    { "{\"service_ms\": {\"mean\": 5, \"sigma\": 1}}",
      "service_ms.sigma: only for dist \"lognormal\"" },
    { "{\"service_ms\": {\"dist\": \"lognormal\"}}",
      "service_ms: missing required key \"median\" (or \"mean\")" },
    { "{\"service_ms\": {\"dist\": \"lognormal\", \"mean\": 5, \"median\": 5}}",
      "service_ms: give \"mean\" or \"median\", not both" },
    /* health_path */
    { "{\"health_path\": \"health\"}", "health_path: must be a path starting with /" },
    { "{\"health_path\": \"/a b\"}", "health_path: must be printable ASCII without spaces" },
};

/* Every malformed profile is refused with the key named; nothing is silently dropped. */
static void test_app_parse_rejects_bad_input_naming_the_key(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        struct sc_app a;
        char err[256];

        if (sc_app_parse_text(&a, bad_cases[i].json, err, sizeof(err)) != SC_ERR_VALIDATION)
            fail_msg("case %zu accepted: %s", i, bad_cases[i].json);
        if (strncmp(err, bad_cases[i].want, strlen(bad_cases[i].want)) != 0)
            fail_msg("case %zu: got '%s', want '%s...'", i, err, bad_cases[i].want);
    }
}

/* With a path prefix (a scenario's), errors are JSON paths under it. */
static void test_app_parse_rejects_with_the_callers_json_path(void **state)
{
    static const char *const base = "$.infrastructure.launch_configurations[0].app";
    json_t *o = json_pack("{s:i, s:{s:s}}", "workers", 4, "service_ms", "dist", "fixed");
    json_t *arr = json_pack("[i]", 1);
    struct sc_app a;
    char err[256];

    (void)state;
    assert_int_equal(sc_app_parse(&a, o, base, err, sizeof(err)), SC_ERR_VALIDATION);
    assert_string_equal(err, "$.infrastructure.launch_configurations[0].app.service_ms: "
                             "missing required key \"mean\"");
    assert_int_equal(sc_app_parse(&a, arr, base, err, sizeof(err)), SC_ERR_VALIDATION);
    assert_string_equal(err, "$.infrastructure.launch_configurations[0].app: must be an "
                             "object, not an array");
    /* no room for a message: still refused */
    assert_int_equal(sc_app_parse(&a, arr, base, NULL, 0), SC_ERR_VALIDATION);
    json_decref(o);
    json_decref(arr);
}

static void round_trip(const char *text)
{
    struct sc_app a, b;
    char out[SC_APP_FORMAT_LEN];
    int n;

    parse_ok(text, &a);
    n = sc_app_format(&a, out, sizeof(out));
    assert_true(n > 0 && (size_t)n == strlen(out));
    parse_ok(out, &b);
    if (memcmp(&a, &b, sizeof(a)) != 0)
        fail_msg("%s -> %s does not parse back to the same", text, out);
}

/* sc_app_format() writes what the emulator's instance reads back: every key, exactly. */
static void test_app_format_parses_back_to_the_same(void **state)
{
    struct sc_app a;
    char out[SC_APP_FORMAT_LEN];
    int n;

    (void)state;
    round_trip("{}");
    round_trip("{\"service_ms\": 0.1}");
    round_trip("{\"service_ms\": {\"mean\": 33.3333333333}, \"cpu_per_request\": 0.3}");
    round_trip("{\"boot_s\": 0.5, \"workers\": 8, \"queue_limit\": 0, \"service_ms\": {\"dist\": "
               "\"lognormal\", \"median\": 79.1, \"sigma\": 0.45}, \"cpu_ms\": 1, \"error_rate\": "
               "0.125, \"slow\": 3, \"health_path\": \"/q?\\\"a\\\\b\\\"\", \"seed\": "
               "9223372036854775807}");
    sc_app_defaults(&a);
    n = sc_app_format(&a, out, sizeof(out));
    assert_int_equal(n, strlen(out));
    assert_string_equal(out, "{\"boot_s\":60,\"workers\":1,\"queue_limit\":1000,\"service_ms\":"
                             "{\"dist\":\"exponential\",\"mean\":10},\"cpu_per_request\":1,"
                             "\"cpu_ms\":0,\"error_rate\":0,\"slow\":1,\"health_path\":"
                             "\"/health\",\"seed\":1}");
}

/* The longest profile fits SC_APP_FORMAT_LEN; a short buffer is refused, not cut. */
static void test_app_format_fits_the_longest_profile(void **state)
{
    struct sc_app a;
    char out[SC_APP_FORMAT_LEN], small[64];

    (void)state;
    sc_app_defaults(&a);
    a.boot_s = -1.2345678901234567e-300;
    a.cpu_per_request = a.cpu_ms = a.error_rate = a.slow = a.boot_s;
    a.workers = a.queue_limit = -2147483647 - 1;
    a.dist = SC_APP_DIST_LOGNORMAL;
    a.service_median_ms = a.service_sigma = a.boot_s;
    a.seed = UINT64_MAX;
    a.time_scaled = 1;
    a.batch = a.boot_s;
    a.health_path[0] = '/';
    memset(a.health_path + 1, '"', SC_APP_PATH_LEN - 2);
    a.health_path[SC_APP_PATH_LEN - 1] = '\0';
    assert_true(sc_app_format(&a, out, sizeof(out)) > 0);
    assert_int_equal(sc_app_format(&a, small, sizeof(small)), -1);
    sc_app_defaults(&a);
    assert_int_equal(sc_app_format(&a, small, sizeof(small)), -1);
}

/* time_scaled and batch (what loadgen writes for service on the emulated clock) parse,
 * format back only when set, are emulator-only, and a batch's service time is the sum of
 * its draws: the integer part's draws plus the fraction of one more. */
static void test_app_time_scaled_batch_sums_draws(void **state)
{
    struct sc_app a, b;
    struct sc_rng r1, r2;
    char out[SC_APP_FORMAT_LEN], err[256], names[128];
    double sum = 0, t;

    (void)state;
    sc_app_defaults(&a);
    assert_int_equal(a.time_scaled, 0);
    assert_true(a.batch == 1);
    assert_true(sc_app_format(&a, out, sizeof(out)) > 0);
    assert_null(strstr(out, "batch"));
    parse_ok("{\"time_scaled\": true, \"batch\": 2.5, \"service_ms\": {\"dist\": \"exponential\", "
             "\"mean\": 10}}",
             &a);
    assert_int_equal(a.time_scaled, 1);
    assert_true(a.batch == 2.5);
    assert_true(sc_app_format(&a, out, sizeof(out)) > 0);
    assert_non_null(strstr(out, "\"time_scaled\":true,\"batch\":2.5}"));
    parse_ok(out, &b);
    assert_int_equal(b.time_scaled, 1);
    assert_true(b.batch == 2.5);
    assert_int_equal(sc_app_sim_ignored(&a, names, sizeof(names)), 2);
    assert_string_equal(names, "time_scaled, batch");
    sc_rng_init(&r1, 9);
    sc_rng_init(&r2, 9);
    t = sc_app_batch_service_time(&a, &r1, 1.0);
    sum += sc_app_service_time(&a, &r2, 1.0);
    sum += sc_app_service_time(&a, &r2, 1.0);
    sum += 0.5 * sc_app_service_time(&a, &r2, 1.0);
    assert_true(fabs(t - sum) < 1e-9);
    assert_int_equal(sc_app_parse_text(&a, "{\"batch\": 0.5}", err, sizeof(err)),
                     SC_ERR_VALIDATION);
    assert_string_equal(err, "batch: must be >= 1");
    assert_int_equal(sc_app_parse_text(&a, "{\"time_scaled\": 1}", err, sizeof(err)),
                     SC_ERR_VALIDATION);
    assert_string_equal(err, "time_scaled: must be true or false, not a number");
}

/* The simulator is told which emulator-only keys a profile sets. */
static void test_app_sim_ignored_names_the_emulator_only_keys_set(void **state)
{
    struct sc_app a;
    char keys[128];

    (void)state;
    parse_ok("{\"boot_s\": 1, \"workers\": 3, \"cpu_per_request\": 0.5}", &a);
    assert_int_equal(sc_app_sim_ignored(&a, keys, sizeof(keys)), 0);
    assert_string_equal(keys, "");
    parse_ok("{\"slow\": 1, \"error_rate\": 0.1, \"health_path\": \"/ping\"}", &a);
    assert_int_equal(sc_app_sim_ignored(&a, keys, sizeof(keys)), 2);
    assert_string_equal(keys, "error_rate, health_path");
    parse_ok("{\"cpu_ms\": 1, \"error_rate\": 0.1, \"slow\": 2, \"health_path\": \"/p\", "
             "\"seed\": 3}",
             &a);
    assert_int_equal(sc_app_sim_ignored(&a, keys, sizeof(keys)), 5);
    assert_string_equal(keys, "cpu_ms, error_rate, slow, health_path, seed");
}

static void test_app_service_fixed_takes_no_draw(void **state)
{
    struct sc_app a;
    struct sc_rng r1, r2;

    (void)state;
    parse_ok("{\"service_ms\": 7}", &a);
    sc_rng_init(&r1, 1);
    sc_rng_init(&r2, 1);
    assert_true(sc_app_service_time(&a, &r1, 1) == 7);
    assert_true(sc_rng_next(&r1) == sc_rng_next(&r2));
}

/* Exponential: the sample mean is the mean; the same seed gives the same times. */
static void test_app_service_exponential_mean_repeatable(void **state)
{
    struct sc_app a;
    struct sc_rng r1, r2;
    double sum = 0;

    (void)state;
    parse_ok("{\"service_ms\": {\"mean\": 10}}", &a);
    sc_rng_init(&r1, 42);
    sc_rng_init(&r2, 42);
    for (int i = 0; i < 20000; i++) {
        double v = sc_app_service_time(&a, &r1, 1);

        assert_true(v == sc_app_service_time(&a, &r2, 1));
        assert_true(v >= 0 && isfinite(v));
        sum += v;
    }
    assert_true(fabs(sum / 20000 - 10) < 0.5);
}

/* Lognormal: half the draws fall below the median. */
static void test_app_service_lognormal_median(void **state)
{
    struct sc_app a;
    struct sc_rng r;
    int below = 0;

    (void)state;
    parse_ok("{\"service_ms\": {\"dist\": \"lognormal\", \"median\": 900}}", &a);
    sc_rng_init(&r, 3);
    for (int i = 0; i < 2001; i++) {
        double v = sc_app_service_time(&a, &r, 1);

        assert_true(v > 0 && isfinite(v));
        below += v < 900;
    }
    assert_true(below > 900 && below < 1100);
}

/* The unit is the caller's: us draws are the ms draws x 1000, from the same RNG steps. */
static void test_app_service_time_in_the_callers_unit(void **state)
{
    static const char *const profiles[] = {
        "{\"service_ms\": 7}",
        "{\"service_ms\": {\"mean\": 40}}",
        "{\"service_ms\": {\"dist\": \"lognormal\", \"median\": 70, \"sigma\": 0.5}}",
    };

    (void)state;
    for (size_t k = 0; k < sizeof(profiles) / sizeof(profiles[0]); k++) {
        struct sc_app a;
        struct sc_rng r1, r2;

        parse_ok(profiles[k], &a);
        sc_rng_init(&r1, 9);
        sc_rng_init(&r2, 9);
        for (int i = 0; i < 1000; i++) {
            double ms = sc_app_service_time(&a, &r1, 1), us = sc_app_service_time(&a, &r2, 1000);

            assert_true(fabs(us - ms * 1000) <= 1e-12 * us);
        }
        assert_true(sc_rng_next(&r1) == sc_rng_next(&r2));
        assert_true(fabs(sc_app_service_quantile(&a, 0.9, 1000) -
                         sc_app_service_quantile(&a, 0.9, 1) * 1000) <=
                    1e-12 * sc_app_service_quantile(&a, 0.9, 1000));
    }
}

/* The quantiles are the distributions': fixed everywhere, exponential's median mean ln 2,
 * lognormal's median the median and its 0.8413 quantile a sigma up. */
static void test_app_service_quantile_is_the_distributions(void **state)
{
    struct sc_app a;

    (void)state;
    parse_ok("{\"service_ms\": 7}", &a);
    assert_true(sc_app_service_quantile(&a, 0.99, 1) == 7);
    parse_ok("{\"service_ms\": {\"mean\": 10}}", &a);
    assert_true(fabs(sc_app_service_quantile(&a, 0.5, 1) - 10 * log(2.0)) < 1e-12);
    parse_ok("{\"service_ms\": {\"dist\": \"lognormal\", \"median\": 50, \"sigma\": 0.5}}", &a);
    assert_true(fabs(sc_app_service_quantile(&a, 0.5, 1) - 50) < 1e-6);
    assert_true(fabs(sc_app_service_quantile(&a, 0.841344746, 1) - 50 * exp(0.5)) < 1e-3);
}

/* CPUUtilization = busy-worker time x cpu_per_request / (workers x elapsed). */
static void test_app_cpu_model_busy_share_times_cpu_per_request(void **state)
{
    struct sc_app a;

    (void)state;
    parse_ok("{\"workers\": 4}", &a);
    assert_true(sc_app_cpu_pct(&a, 2000, 2000) == 25); /* 1 of 4 workers busy */
    parse_ok("{\"workers\": 4, \"cpu_per_request\": 0.5}", &a);
    assert_true(sc_app_cpu_pct(&a, 2000, 2000) == 12.5);
    assert_true(sc_app_cpu_time(&a, 2000) == 1000);
    /* the unit is the caller's: us in the simulator, ms in the emulator */
    assert_true(sc_app_cpu_pct(&a, 2e6, 2e6) == 12.5);
}

static void test_app_cpu_model_clamps_to_0_100(void **state)
{
    struct sc_app a;

    (void)state;
    sc_app_defaults(&a);
    assert_true(sc_app_cpu_pct(&a, 10000, 1000) == 100);
    assert_true(sc_app_cpu_pct(&a, -5, 1000) == 0);
    assert_true(sc_app_cpu_pct(&a, 10, 0) == 0);
    assert_true(sc_app_cpu_pct(&a, 10, -1) == 0);
    a.workers = 0;
    assert_true(sc_app_cpu_pct(&a, 10, 1000) == 0);
}

/* The instance program's integral of busy workers over time. */
static void test_app_cpu_model_busy_integral(void **state)
{
    struct sc_app_busy b = { 0, 1000, 0 };
    struct sc_app a;

    (void)state;
    parse_ok("{\"workers\": 4}", &a);
    /* 2 of 4 workers busy for 1 s, then idle for 1 s: 25 % over 2 s */
    sc_app_busy_change(&b, 1000, +1);
    sc_app_busy_change(&b, 1000, +1);
    sc_app_busy_change(&b, 2000, -1);
    sc_app_busy_change(&b, 2000, -1);
    assert_true(sc_app_busy_total_ms(&b, 3000) == 2000);
    assert_true(sc_app_cpu_pct(&a, sc_app_busy_total_ms(&b, 3000), 2000) == 25);
    /* a worker busy now counts up to now; busy never goes below 0 */
    sc_app_busy_change(&b, 3000, +1);
    assert_true(sc_app_busy_total_ms(&b, 3500) == 2500);
    sc_app_busy_change(&b, 3500, -1);
    sc_app_busy_change(&b, 3500, -1);
    assert_int_equal(b.busy, 0);
    assert_true(sc_app_busy_total_ms(&b, 9000) == 2500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_app_defaults_are_the_scenarios),
        cmocka_unit_test(test_app_defaults_fill_absent_and_null_keys),
        cmocka_unit_test(test_app_parse_reads_every_key),
        cmocka_unit_test(test_app_parse_service_number_is_fixed),
        cmocka_unit_test(test_app_parse_service_dist_defaults_to_exponential),
        cmocka_unit_test(test_app_parse_lognormal_median_or_mean),
        cmocka_unit_test(test_app_parse_rejects_bad_input_naming_the_key),
        cmocka_unit_test(test_app_parse_rejects_with_the_callers_json_path),
        cmocka_unit_test(test_app_format_parses_back_to_the_same),
        cmocka_unit_test(test_app_format_fits_the_longest_profile),
        cmocka_unit_test(test_app_sim_ignored_names_the_emulator_only_keys_set),
        cmocka_unit_test(test_app_time_scaled_batch_sums_draws),
        cmocka_unit_test(test_app_service_fixed_takes_no_draw),
        cmocka_unit_test(test_app_service_exponential_mean_repeatable),
        cmocka_unit_test(test_app_service_lognormal_median),
        cmocka_unit_test(test_app_service_time_in_the_callers_unit),
        cmocka_unit_test(test_app_service_quantile_is_the_distributions),
        cmocka_unit_test(test_app_cpu_model_busy_share_times_cpu_per_request),
        cmocka_unit_test(test_app_cpu_model_clamps_to_0_100),
        cmocka_unit_test(test_app_cpu_model_busy_integral),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
