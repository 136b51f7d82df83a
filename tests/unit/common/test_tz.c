/* tests/unit/common/test_tz.c: common/tz.c against Debian's tzdata. */
#include "common/tz.h"

#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void test_tz_new_york_follows_dst(void **state)
{
    int off = 0;

    (void)state;
    /* 2026-01-15T12:00Z and 2026-07-15T12:00Z */
    assert_int_equal(cm_tz_offset(NULL, "America/New_York", 1768478400000LL, &off), 0);
    assert_int_equal(off, -5 * 3600);
    assert_int_equal(cm_tz_offset(NULL, "America/New_York", 1784116800000LL, &off), 0);
    assert_int_equal(off, -4 * 3600);
    assert_int_equal(cm_tz_offset(NULL, "Asia/Kolkata", 1768478400000LL, &off), 0);
    assert_int_equal(off, 19800);
    assert_int_equal(cm_tz_offset(NULL, "Etc/UTC", 1768478400000LL, &off), 0);
    assert_int_equal(off, 0);
}

static void test_tz_unknown_zone_refused(void **state)
{
    int off = 0;

    (void)state;
    assert_int_equal(cm_tz_offset(NULL, "Mars/Olympus", 0, &off), -1);
    assert_int_equal(cm_tz_offset(NULL, "../../etc/passwd", 0, &off), -1);
    assert_int_equal(cm_tz_offset(NULL, "/etc/localtime", 0, &off), -1);
    assert_int_equal(cm_tz_offset(NULL, "", 0, &off), -1);
}

static void test_tz_leaves_tz_as_it_was(void **state)
{
    int off = 0;

    (void)state;
    setenv("TZ", "Europe/Paris", 1);
    assert_int_equal(cm_tz_offset(NULL, "America/New_York", 0, &off), 0);
    assert_string_equal(getenv("TZ"), "Europe/Paris");
    unsetenv("TZ");
    assert_int_equal(cm_tz_offset(NULL, "America/New_York", 0, &off), 0);
    assert_null(getenv("TZ"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tz_new_york_follows_dst),
        cmocka_unit_test(test_tz_unknown_zone_refused),
        cmocka_unit_test(test_tz_leaves_tz_as_it_was),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
