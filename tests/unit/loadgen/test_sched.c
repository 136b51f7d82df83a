/* tests/unit/loadgen/test_sched.c: loadgen/sched.c */
#include "loadgen/sched.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static struct sched s; /* large: keep it off the stack */

static void test_sched_constant(void **state)
{
    (void)state;
    sched_init_const(&s, 100, 0);
    assert_int_equal(sched_total_us(&s), -1);
    assert_int_equal(sched_time_of(&s, 0), 0);
    assert_int_equal(sched_time_of(&s, 1), 10000);
    assert_int_equal(sched_time_of(&s, 250), 2500000);
    assert_true(fabs(sched_count_at(&s, 3000000) - 300) < 1e-9);
    assert_true(sched_total_count(&s) == UINT64_MAX);
}

static void test_sched_ramp_step_gap_burst(void **state)
{
    char err[128];

    (void)state;
    assert_int_equal(sched_parse("ramp:0:100:10s", &s, err, sizeof(err)), 0);
    /* integral of a ramp 0..100 over 10 s is 500 */
    assert_int_equal(sched_total_count(&s), 500);
    assert_true(fabs(sched_rate_at(&s, 5000000) - 50) < 1e-9);
    /* count(t) = 5 t^2: the 125th event at 5 s */
    assert_int_equal(sched_time_of(&s, 125), 5000000);
    assert_int_equal(sched_time_of(&s, 500), -1);

    assert_int_equal(sched_parse("step:10:30:10:1s", &s, err, sizeof(err)), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(sched_total_count(&s), 60);
    assert_int_equal(sched_time_of(&s, 10), 1000000); /* first of the 20/s step */

    assert_int_equal(sched_parse("gap:2s,const:10:1s", &s, err, sizeof(err)), 0);
    assert_int_equal(sched_time_of(&s, 0), 2000000);
    assert_int_equal(sched_time_of(&s, 9), 2900000);
    assert_int_equal(sched_time_of(&s, 10), -1);

    assert_int_equal(sched_parse("burst:100:1s:2s:3", &s, err, sizeof(err)), 0);
    assert_int_equal(s.n, 6);
    assert_int_equal(sched_total_us(&s), 9000000);
    assert_int_equal(sched_total_count(&s), 300);
    assert_int_equal(sched_time_of(&s, 100), 3000000); /* the second burst */
    assert_true(sched_rate_at(&s, 1500000) == 0);

    assert_int_equal(sched_parse("const:5:1s,20", &s, err, sizeof(err)), 0);
    assert_int_equal(sched_time_of(&s, 5), 1000000);
    assert_int_equal(sched_time_of(&s, 25), 2000000);
}

static void test_sched_times_never_decrease(void **state)
{
    char err[128];
    int64_t prev = -1;

    (void)state;
    assert_int_equal(
        sched_parse("ramp:1:50:3s,ramp:50:2:2s,gap:1s,const:7:1s", &s, err, sizeof(err)), 0);
    for (uint64_t k = 0; k < sched_total_count(&s); k++) {
        int64_t t = sched_time_of(&s, k);
        assert_true(t >= prev);
        assert_true(t >= 0);
        prev = t;
    }
}

static void test_sched_rejects_bad_text(void **state)
{
    static const char *bad[] = { "",
                                 "abc",
                                 "const:10",
                                 "ramp:1:2",
                                 "gap:0s",
                                 "gap:-1s",
                                 "10,const:5:1s",
                                 "burst:10:1s:1s:0",
                                 "step:1:5:0:1s",
                                 "const:-3:1s",
                                 "const:5:1s,,",
                                 "ramp:a:b:1s" };
    char err[128];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        if (sched_parse(bad[i], &s, err, sizeof(err)) == 0 && i != 10)
            fail_msg("'%s' accepted", bad[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sched_constant),
        cmocka_unit_test(test_sched_ramp_step_gap_burst),
        cmocka_unit_test(test_sched_times_never_decrease),
        cmocka_unit_test(test_sched_rejects_bad_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
