/* tests/unit/scaler/test_civil.c: epoch milliseconds as UTC dates, the rule behind every
 * date the APIs print: the same as libc's gmtime_r over centuries both sides of 1970, and
 * the instants where rounding toward the past matters. */
#include "scaler/civil.h"

#include <stdint.h>
#include <time.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

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

        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* within +-300 years of 1970 */
        ms = (int64_t)(x % 18934560000000ULL) - 9467280000000LL;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_civil_epoch_and_the_instants_around_it),
        cmocka_unit_test(test_civil_matches_gmtime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
