/* tests/unit/common/test_log.c: common/log.c: a message's control bytes, DEL and
 * backslashes are written \xNN, so what a line quotes (a request's action, a name) cannot
 * forge another line or reach the terminal (issue 19 finding 13). */
#include "common/log.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void test_log_escape_quotes_control_bytes(void **state)
{
    char out[64];

    (void)state;
    assert_int_equal(cm_log_escape(out, sizeof(out), "plain text é"), strlen("plain text é"));
    assert_string_equal(out, "plain text é");
    cm_log_escape(out, sizeof(out), "a\nb\r\x1b[31mc\x7f\\d\te");
    assert_string_equal(out, "a\\x0ab\\x0d\\x1b[31mc\\x7f\\x5cd\\x09e");
    /* cut at a whole character */
    assert_int_equal(cm_log_escape(out, 6, "ab\ncd"), 2);
    assert_string_equal(out, "ab");
    assert_int_equal(cm_log_escape(out, 0, "x"), 0);
}

/* one line per message, whatever it quotes */
static void test_log_line_cannot_be_forged(void **state)
{
    int fds[2], saved;
    char buf[4096];
    ssize_t n;
    int lines = 0;

    (void)state;
    assert_int_equal(pipe(fds), 0);
    saved = dup(STDERR_FILENO);
    dup2(fds[1], STDERR_FILENO);
    cm_log_init("t", CM_LOG_INFO);
    log_info("req action=%s", "DescribeAlarms\n2026-01-01T00:00:00.000Z emulator[1] E forged");
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(fds[1]);
    n = read(fds[0], buf, sizeof(buf) - 1);
    close(fds[0]);
    assert_true(n > 0);
    buf[n] = '\0';
    for (ssize_t i = 0; i < n; i++)
        lines += buf[i] == '\n';
    assert_int_equal(lines, 1);
    assert_non_null(
        strstr(buf, "action=DescribeAlarms\\x0a2026-01-01T00:00:00.000Z emulator[1] E forged\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_escape_quotes_control_bytes),
        cmocka_unit_test(test_log_line_cannot_be_forged),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
