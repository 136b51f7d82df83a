/* tests/unit/scaler/test_civil.c: epoch milliseconds as UTC dates, the rule behind every
 * date the APIs print and read: the same as libc's gmtime_r and strftime over centuries both
 * sides of 1970, the instants where rounding toward the past matters, every format the tree
 * prints, and the timestamp forms AWS accepts on input (tables of valid and malformed). */
#include "scaler/civil.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define T_2026_12_01 1796155899123LL /* 2026-12-01T20:11:39.123Z */

static void expect(int64_t ms, int y, int mo, int d, int h, int mi, int s, int msec)
{
    struct sc_civil c;

    sc_civil_from_ms(ms, &c);
    assert_int_equal(c.year, y);
    assert_int_equal(c.month, mo);
    assert_int_equal(c.day, d);
    assert_int_equal(c.hour, h);
    assert_int_equal(c.minute, mi);
    assert_int_equal(c.second, s);
    assert_int_equal(c.msec, msec);
}

static uint64_t next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void test_civil_epoch_and_the_instants_around_it(void **state)
{
    (void)state;
    expect(0, 1970, 1, 1, 0, 0, 0, 0);
    expect(-1, 1969, 12, 31, 23, 59, 59, 999);
    expect(-1000, 1969, 12, 31, 23, 59, 59, 0);
    expect(-1001, 1969, 12, 31, 23, 59, 58, 999);
    expect(951782400000LL, 2000, 2, 29, 0, 0, 0, 0);       /* a leap day of a 400-year */
    expect(4107542399999LL, 2100, 2, 28, 23, 59, 59, 999); /* 2100 is no leap year */
    expect(1767225600123LL, 2026, 1, 1, 0, 0, 0, 123);
}

static void test_civil_matches_gmtime(void **state)
{
    uint64_t x = 88172645463325252ULL;

    (void)state;
    for (int i = 0; i < 200000; i++) {
        int64_t ms;
        time_t t;
        struct tm tm;
        struct sc_civil c;

        /* within +-300 years of 1970 */
        ms = (int64_t)(next(&x) % 18934560000000ULL) - 9467280000000LL;
        t = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
        assert_non_null(gmtime_r(&t, &tm));
        sc_civil_from_ms(ms, &c);
        assert_int_equal(c.year, tm.tm_year + 1900);
        assert_int_equal(c.month, tm.tm_mon + 1);
        assert_int_equal(c.day, tm.tm_mday);
        assert_int_equal(c.hour, tm.tm_hour);
        assert_int_equal(c.minute, tm.tm_min);
        assert_int_equal(c.second, tm.tm_sec);
        assert_int_equal(c.msec, (int)(ms - (int64_t)t * 1000));
    }
}

static void test_civil_to_ms_inverts_from_ms(void **state)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL;

    (void)state;
    for (int i = 0; i < 200000; i++) {
        int64_t ms = (int64_t)(next(&x) % 18934560000000ULL) - 9467280000000LL;
        struct sc_civil c;

        sc_civil_from_ms(ms, &c);
        assert_true(sc_civil_to_ms(&c) == ms);
    }
}

static void test_civil_to_ms_carries_days_past_their_month(void **state)
{
    struct sc_civil feb30 = { 2026, 2, 30, 0, 0, 0, 0 };
    struct sc_civil leap = { 2024, 2, 30, 0, 0, 0, 0 };
    struct sc_civil sec60 = { 2026, 1, 1, 0, 0, 60, 0 };

    (void)state;
    assert_true(sc_civil_to_ms(&feb30) == 1772409600000LL); /* 2026-03-02 */
    assert_true(sc_civil_to_ms(&leap) == 1709251200000LL);  /* 2024-03-01 */
    assert_true(sc_civil_to_ms(&sec60) == 1767225660000LL); /* 00:01:00 */
}

/* --- formats ---------------------------------------------------------------------------------- */

static void test_civil_format_iso_is_seconds_and_z(void **state)
{
    char b[SC_CIVIL_TIME_LEN];

    (void)state;
    sc_civil_format_iso(T_2026_12_01, b, sizeof(b));
    assert_string_equal(b, "2026-12-01T20:11:39Z");
    sc_civil_format_iso(0, b, sizeof(b));
    assert_string_equal(b, "1970-01-01T00:00:00Z");
}

static void test_civil_format_iso_ms_has_three_digits(void **state)
{
    char b[SC_CIVIL_TIME_LEN];

    (void)state;
    sc_civil_format_iso_ms(T_2026_12_01, b, sizeof(b));
    assert_string_equal(b, "2026-12-01T20:11:39.123Z");
    sc_civil_format_iso_ms(1767225601005LL, b, sizeof(b));
    assert_string_equal(b, "2026-01-01T00:00:01.005Z");
}

static void test_civil_format_iso_ms_offset_is_cloudwatch_json_date(void **state)
{
    char b[SC_CIVIL_TIME_LEN];

    (void)state;
    sc_civil_format_iso_ms_offset(T_2026_12_01, b, sizeof(b));
    assert_string_equal(b, "2026-12-01T20:11:39.123+0000");
}

static void test_civil_format_basic_is_sigv4_x_amz_date(void **state)
{
    char b[SC_CIVIL_TIME_LEN];

    (void)state;
    sc_civil_format_basic(T_2026_12_01, b, sizeof(b));
    assert_string_equal(b, "20261201T201139Z");
}

static void test_civil_format_gmt_is_ec2_reason(void **state)
{
    char b[SC_CIVIL_TIME_LEN];

    (void)state;
    sc_civil_format_gmt(T_2026_12_01, b, sizeof(b));
    assert_string_equal(b, "2026-12-01 20:11:39 GMT");
}

static void test_civil_format_dmy_is_alarm_reason(void **state)
{
    char b[SC_CIVIL_TIME_LEN];

    (void)state;
    sc_civil_format_dmy(T_2026_12_01, b, sizeof(b));
    assert_string_equal(b, "01/12/26 20:11:39");
    sc_civil_format_dmy(946684800000LL, b, sizeof(b)); /* 2000: two digits, "00" */
    assert_string_equal(b, "01/01/00 00:00:00");
}

static void test_civil_format_rounds_toward_the_past(void **state)
{
    char b[SC_CIVIL_TIME_LEN];

    (void)state;
    sc_civil_format_iso_ms(-1, b, sizeof(b));
    assert_string_equal(b, "1969-12-31T23:59:59.999Z");
    sc_civil_format_iso(-1, b, sizeof(b));
    assert_string_equal(b, "1969-12-31T23:59:59Z");
    sc_civil_format_basic(-1001, b, sizeof(b));
    assert_string_equal(b, "19691231T235958Z");
}

static void test_civil_format_truncates_as_snprintf(void **state)
{
    char b[8];

    (void)state;
    memset(b, 'x', sizeof(b));
    sc_civil_format_iso_ms(T_2026_12_01, b, 5);
    assert_string_equal(b, "2026");
    assert_int_equal(b[5], 'x');
    sc_civil_format_iso_ms(T_2026_12_01, b, 0); /* writes nothing */
    assert_string_equal(b, "2026");
}

/* The copies these formats replaced were gmtime_r + strftime (or printf of struct tm):
 * byte for byte the same for every ms from 1970 to 9999. */
static void test_civil_format_matches_strftime(void **state)
{
    uint64_t x = 0x2545f4914f6cdd1dULL;

    (void)state;
    for (int i = 0; i < 100000; i++) {
        int64_t ms = (int64_t)(next(&x) % 253402300800000ULL); /* to 9999-12-31T23:59:59.999Z */
        time_t t = (time_t)(ms / 1000);
        struct tm tm;
        char want[64], got[SC_CIVIL_TIME_LEN];

        assert_non_null(gmtime_r(&t, &tm));
        strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%SZ", &tm);
        sc_civil_format_iso(ms, got, sizeof(got));
        assert_string_equal(got, want);
        strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(want + strlen(want), sizeof(want) - strlen(want), ".%03dZ", (int)(ms % 1000));
        sc_civil_format_iso_ms(ms, got, sizeof(got));
        assert_string_equal(got, want);
        strftime(want, sizeof(want), "%Y%m%dT%H%M%SZ", &tm);
        sc_civil_format_basic(ms, got, sizeof(got));
        assert_string_equal(got, want);
        strftime(want, sizeof(want), "%Y-%m-%d %H:%M:%S GMT", &tm);
        sc_civil_format_gmt(ms, got, sizeof(got));
        assert_string_equal(got, want);
        strftime(want, sizeof(want), "%d/%m/", &tm); /* %y trips -Wformat-y2k */
        snprintf(want + 6, sizeof(want) - 6, "%02d", (tm.tm_year + 1900) % 100);
        strftime(want + 8, sizeof(want) - 8, " %H:%M:%S", &tm);
        sc_civil_format_dmy(ms, got, sizeof(got));
        assert_string_equal(got, want);
    }
}

/* --- parsing ---------------------------------------------------------------------------------- */

struct parse_case {
    const char *s;
    int ok; /* 0: rejected */
    long long ms;
};

static void parse_table(const struct parse_case *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int64_t ms = 42;
        int rc = sc_civil_parse_iso(t[i].s, &ms);

        if (!t[i].ok) {
            if (rc != -1)
                fail_msg("accepted \"%s\"", t[i].s);
            assert_true(ms == 42); /* untouched */
        } else {
            if (rc != 0)
                fail_msg("rejected \"%s\"", t[i].s);
            assert_true(ms == t[i].ms);
        }
    }
}

static void test_civil_parse_iso_aws_input_forms(void **state)
{
    static const struct parse_case t[] = {
        { "1970-01-01T00:00:00Z", 1, 0 },
        { "2026-01-01T00:00:00Z", 1, 1767225600000LL },
        { "2026-01-01t00:00:00z", 1, 1767225600000LL },
        { "2026-01-01 00:00:00Z", 1, 1767225600000LL },
        { "2026-01-01T00:00:00", 1, 1767225600000LL }, /* no zone: UTC */
        { "2026-12-01T20:11:39.123Z", 1, T_2026_12_01 },
        { "2024-02-29T00:00:00Z", 1, 1709164800000LL },
        { "2026-01-01T00:00:60Z", 1, 1767225660000LL }, /* a leap second carries over */
        { "2026-02-30T00:00:00Z", 1, 1772409600000LL }, /* so does a day past its month */
        { "1969-12-31T23:59:59.999Z", 1, -1 },
        { "0001-01-01T00:00:00Z", 1, -62135596800000LL },
    };

    (void)state;
    parse_table(t, sizeof(t) / sizeof(t[0]));
}

static void test_civil_parse_iso_fraction_is_cut_at_ms(void **state)
{
    static const struct parse_case t[] = {
        { "2026-01-01T00:00:01.5Z", 1, 1767225601500LL },
        { "2026-01-01T00:00:01.05Z", 1, 1767225601050LL },
        { "2026-01-01T00:00:01.123456Z", 1, 1767225601123LL },
        { "2026-01-01T00:00:01.999999999", 1, 1767225601999LL }, /* cut, not rounded */
    };

    (void)state;
    parse_table(t, sizeof(t) / sizeof(t[0]));
}

static void test_civil_parse_iso_offset_moves_to_utc(void **state)
{
    static const struct parse_case t[] = {
        { "2026-01-01T01:00:00+01:00", 1, 1767225600000LL },
        { "2026-01-01T01:00:00+0100", 1, 1767225600000LL },
        { "2025-12-31T19:00:00-05:00", 1, 1767225600000LL },
        { "2026-12-01T20:11:39.123+05:30", 1, 1796136099123LL },
        { "2026-12-01T20:11:39.123+0000", 1, T_2026_12_01 }, /* CloudWatch's own dates */
    };

    (void)state;
    parse_table(t, sizeof(t) / sizeof(t[0]));
}

static void test_civil_parse_iso_rejects_malformed(void **state)
{
    static const struct parse_case t[] = {
        { "", 0, 0 },
        { "2026-01-01", 0, 0 },
        { "2026-01-01T00:00", 0, 0 },
        { "2026-13-01T00:00:00Z", 0, 0 },
        { "2026-00-01T00:00:00Z", 0, 0 },
        { "2026-01-00T00:00:00Z", 0, 0 },
        { "2026-01-32T00:00:00Z", 0, 0 },
        { "2026-01-01T24:00:00Z", 0, 0 },
        { "2026-01-01T00:60:00Z", 0, 0 },
        { "2026-01-01T00:00:61Z", 0, 0 },
        { "2026-01-01T00:00:00.Z", 0, 0 }, /* a fraction has a digit */
        { "2026-01-01T00:00:00Zjunk", 0, 0 },
        { "2026-01-01T00:00:00Z ", 0, 0 },
        { "2026-01-01T00:00:00+01", 0, 0 },
        { "2026-01-01T00:00:00+1:00", 0, 0 },
        { "2026-01-01T00:00:00+01:0", 0, 0 },
        { "2026-01-01T00:00:00GMT", 0, 0 },
        { "2026-1-01T00:00:00Z", 0, 0 }, /* fixed widths */
        { "226-01-01T00:00:00Z", 0, 0 },
        { "2026-01-01T0:00:00Z", 0, 0 },
        { " 2026-01-01T00:00:00Z", 0, 0 },
        { "2026/01/01T00:00:00Z", 0, 0 },
        { "2026-01-01X00:00:00Z", 0, 0 },
        { "20260101T000000Z", 0, 0 }, /* the basic format is sc_civil_parse_basic's */
        { "1767225600", 0, 0 },       /* epoch seconds are the caller's rule */
    };
    int64_t ms = 42;

    (void)state;
    parse_table(t, sizeof(t) / sizeof(t[0]));
    assert_int_equal(sc_civil_parse_iso(NULL, &ms), -1);
    assert_true(ms == 42);
}

/* Every prefix of a valid timestamp, in a buffer of exactly its size: only the complete
 * forms parse, and none is read past its NUL (make asan checks the reads). */
static void test_civil_parse_iso_reads_no_further_than_the_nul(void **state)
{
    const char *full = "2026-12-01T20:11:39.123+05:30";
    size_t n = strlen(full);

    (void)state;
    for (size_t k = 0; k <= n; k++) {
        char *s = malloc(k + 1);
        int64_t ms;
        int want_ok = k == 19 || k == 21 || k == 22 || k == 23 || k == n;

        assert_non_null(s);
        memcpy(s, full, k);
        s[k] = '\0';
        assert_int_equal(sc_civil_parse_iso(s, &ms), want_ok ? 0 : -1);
        free(s);
    }
}

static void test_civil_parse_iso_inverts_every_iso_format(void **state)
{
    uint64_t x = 0x853c49e6748fea9bULL;

    (void)state;
    for (int i = 0; i < 100000; i++) {
        int64_t ms = (int64_t)(next(&x) % 253402300800000ULL), got;
        char b[SC_CIVIL_TIME_LEN];

        sc_civil_format_iso_ms(ms, b, sizeof(b));
        assert_int_equal(sc_civil_parse_iso(b, &got), 0);
        assert_true(got == ms);
        sc_civil_format_iso_ms_offset(ms, b, sizeof(b));
        assert_int_equal(sc_civil_parse_iso(b, &got), 0);
        assert_true(got == ms);
        sc_civil_format_iso(ms, b, sizeof(b));
        assert_int_equal(sc_civil_parse_iso(b, &got), 0);
        assert_true(got == ms - ms % 1000);
        sc_civil_format_basic(ms, b, sizeof(b));
        assert_int_equal(sc_civil_parse_basic(b, &got), 0);
        assert_true(got == ms - ms % 1000);
    }
}

static void test_civil_parse_basic_is_x_amz_date_only(void **state)
{
    static const char *const bad[] = {
        "",
        "20261201T201139",
        "20261201T201139Zx",
        "20261201t201139Z",
        "20261201T201139z",
        "2026-12-01T20:11:39Z",
        "20261301T201139Z",
        "20261201T241139Z",
        "2026120 T201139Z",
        "20261201T2011390",
    };
    int64_t ms = 0;

    (void)state;
    assert_int_equal(sc_civil_parse_basic("20261201T201139Z", &ms), 0);
    assert_true(ms == T_2026_12_01 - 123);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ms = 42;
        if (sc_civil_parse_basic(bad[i], &ms) != -1)
            fail_msg("accepted \"%s\"", bad[i]);
        assert_true(ms == 42);
    }
    assert_int_equal(sc_civil_parse_basic(NULL, &ms), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_civil_epoch_and_the_instants_around_it),
        cmocka_unit_test(test_civil_matches_gmtime),
        cmocka_unit_test(test_civil_to_ms_inverts_from_ms),
        cmocka_unit_test(test_civil_to_ms_carries_days_past_their_month),
        cmocka_unit_test(test_civil_format_iso_is_seconds_and_z),
        cmocka_unit_test(test_civil_format_iso_ms_has_three_digits),
        cmocka_unit_test(test_civil_format_iso_ms_offset_is_cloudwatch_json_date),
        cmocka_unit_test(test_civil_format_basic_is_sigv4_x_amz_date),
        cmocka_unit_test(test_civil_format_gmt_is_ec2_reason),
        cmocka_unit_test(test_civil_format_dmy_is_alarm_reason),
        cmocka_unit_test(test_civil_format_rounds_toward_the_past),
        cmocka_unit_test(test_civil_format_truncates_as_snprintf),
        cmocka_unit_test(test_civil_format_matches_strftime),
        cmocka_unit_test(test_civil_parse_iso_aws_input_forms),
        cmocka_unit_test(test_civil_parse_iso_fraction_is_cut_at_ms),
        cmocka_unit_test(test_civil_parse_iso_offset_moves_to_utc),
        cmocka_unit_test(test_civil_parse_iso_rejects_malformed),
        cmocka_unit_test(test_civil_parse_iso_reads_no_further_than_the_nul),
        cmocka_unit_test(test_civil_parse_iso_inverts_every_iso_format),
        cmocka_unit_test(test_civil_parse_basic_is_x_amz_date_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
