/* tests/unit/sim/test_output.c: scaler/sim/output.c (the table row both `scaler simulate`
 * and `loadgen scenario`'s live lines print, the JSON number format) */
#include "scaler/sim/output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static const char *const gnames[] = { "web" };
static const struct sim_alarm_info alarms[] = {
    { "high-cpu", "CPUUtilization", "GreaterThanThreshold", 80, NULL },
    { "low", "CPUUtilization", "LessThanThreshold", 40, NULL },
};

static void cfg(struct sim_timeline_config *tc)
{
    memset(tc, 0, sizeof(*tc));
    tc->start_ms = 1000000;
    tc->end_ms = tc->start_ms + 7200000;
    tc->interval_ms = 60000;
    tc->ngroups = 1;
    tc->group_names = gnames;
    tc->nalarms = 2;
    tc->alarms = alarms;
}

static void test_output_row(void **state)
{
    struct sim_timeline_config tc;
    struct sim_group_sample g = { 3, 2, 1, 0, 85.25, 3, 0 };
    enum sim_alarm_state as[2] = { SIM_ALARM_ALARM, SIM_ALARM_INSUFFICIENT_DATA };
    struct sim_sample s = { 0 };
    char line[512];

    (void)state;
    cfg(&tc);
    s.t_ms = tc.start_ms + 3723000;
    s.interval_ms = 60000;
    s.load = 120;
    s.completed = 7000;
    s.failed = 1;
    s.p50_ms = 70.04;
    s.p99_ms = 180.5;
    s.error_pct = 0.0143;
    s.ngroups = 1;
    s.groups = &g;
    s.nalarms = 2;
    s.alarms = as;
    sim_out_format_row(&tc, tc.start_ms, &s, line, sizeof(line));
    assert_string_equal(line, "01:02:03       120   3/2/1        85.2     70.0    180.5   0.01     "
                              "ALARM   --");
    g.cpu_pct = NAN;
    s.completed = 0;
    s.load_is_clients = 1;
    as[0] = SIM_ALARM_OK;
    sim_out_format_row(&tc, tc.start_ms, &s, line, sizeof(line));
    assert_string_equal(line, "01:02:03       120c  3/2/1           -        -        -   0.01"
                              "        ok   --");
    /* a small buffer truncates, never overflows */
    sim_out_format_row(&tc, tc.start_ms, &s, line, 12);
    assert_int_equal(strlen(line), 11);
    sim_out_format_header(&tc, line, sizeof(line));
    assert_string_equal(line, "time           load  des/ins/pen  cpu%    p50ms    p99ms   err%  "
                              "high-cpu  low");
}

static void test_output_elapsed_and_num(void **state)
{
    char b[64], *mem = NULL;
    size_t n = 0;
    FILE *f;

    (void)state;
    sim_out_elapsed(0, b, sizeof(b));
    assert_string_equal(b, "00:00:00");
    /* one time format everywhere, seconds never dropped (issue 12) */
    sim_out_elapsed(90061000, b, sizeof(b));
    assert_string_equal(b, "1d01:01:01");
    sim_out_elapsed(365 * 86400000LL + 59000, b, sizeof(b));
    assert_string_equal(b, "365d00:00:59");
    sim_elapsed_format(5 * 3600000 + 33 * 60000, b, sizeof(b));
    assert_string_equal(b, "05:33:00");
    f = open_memstream(&mem, &n);
    sim_out_json_num(f, 1.5);
    fputc(' ', f);
    sim_out_json_num(f, 2.0);
    fputc(' ', f);
    sim_out_json_num(f, NAN);
    fputc(' ', f);
    sim_out_json_num(f, 0.00001);
    fputc(' ', f);
    sim_out_json_str(f, "a\"b\n");
    fclose(f);
    assert_string_equal(mem, "1.5 2 null 0 \"a\\\"b\\n\"");
    free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_row),
        cmocka_unit_test(test_output_elapsed_and_num),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
