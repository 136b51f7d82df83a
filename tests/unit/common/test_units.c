/* tests/unit/common/test_units.c: common/units.c and common/buf.c */
#include "common/units.h"

#include <stdint.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "common/buf.h"

static void test_units_durations(void **state)
{
    static const struct {
        const char *in;
        int64_t us;
    } ok[] = {
        { "250ms", 250000 },
        { "30s", 30000000 },
        { "1.5h", 5400000000LL },
        { "30h", 108000000000LL },
        { "2m", 120000000 },
        { "7", 7000000 },
        { "10us", 10 },
        { "1d", 86400000000LL },
        { "0", 0 },
    };
    static const char *const bad[] = { "", "s", "-1s", "10x", "1.5hh", "nan", "inf", "1e400" };
    int64_t us;

    (void)state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        assert_int_equal(cm_duration_parse_us(ok[i].in, CM_UNIT_S, &us), 0);
        assert_int_equal(us, ok[i].us);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(cm_duration_parse_us(bad[i], CM_UNIT_S, &us), -1);
}

static void test_units_counts_and_sizes(void **state)
{
    uint64_t v;

    (void)state;
    assert_int_equal(cm_count_parse("10k", &v), 0);
    assert_int_equal(v, 10000);
    assert_int_equal(cm_count_parse("2M", &v), 0);
    assert_int_equal(v, 2000000);
    assert_int_equal(cm_size_parse("8k", &v), 0);
    assert_int_equal(v, 8192);
    assert_int_equal(cm_count_parse("1.5", &v), -1);
    assert_int_equal(cm_count_parse("-3", &v), -1);
    assert_int_equal(cm_count_parse("3q", &v), -1);
}

static void test_buf_cap_leaves_contents_intact(void **state)
{
    struct cm_buf b;

    (void)state;
    cm_buf_init(&b, 8);
    assert_int_equal(cm_buf_puts(&b, "abcd"), 0);
    assert_int_equal(cm_buf_printf(&b, "%d", 1234), 0);
    assert_int_equal(cm_buf_putc(&b, 'x'), -1);
    assert_int_equal(b.len, 8);
    assert_string_equal(b.data, "abcd1234");
    cm_buf_cleanup(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_durations),
        cmocka_unit_test(test_units_counts_and_sizes),
        cmocka_unit_test(test_buf_cap_leaves_contents_intact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
