/* common/log.c: see log.h. */
#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static const char *log_program = "scalelab";
static enum cm_log_level log_level = CM_LOG_INFO;

void cm_log_init(const char *program, enum cm_log_level level)
{
    if (program)
        log_program = program;
    log_level = level;
}

void cm_log_set_level(enum cm_log_level level)
{
    log_level = level;
}

enum cm_log_level cm_log_get_level(void)
{
    return log_level;
}

int cm_log_level_parse(const char *s, enum cm_log_level *out)
{
    static const char *const names[] = { "error", "warn", "info", "debug" };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcasecmp(s, names[i]) == 0) {
            *out = (enum cm_log_level)i;
            return 0;
        }
    }
    return -1;
}

size_t cm_log_escape(char *out, size_t cap, const char *in)
{
    static const char hex[] = "0123456789abcdef";
    size_t k = 0;

    if (cap == 0)
        return 0;
    for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
        int esc = *p < 0x20 || *p == 0x7f || *p == '\\';

        if (k + (esc ? 4 : 1) >= cap)
            break;
        if (!esc) {
            out[k++] = (char)*p;
        } else {
            out[k++] = '\\';
            out[k++] = 'x';
            out[k++] = hex[*p >> 4];
            out[k++] = hex[*p & 15];
        }
    }
    out[k] = '\0';
    return k;
}

void cm_log(enum cm_log_level level, const char *fmt, ...)
{
    static const char letters[] = "EWID";
    char line[2048], msg[2048];
    struct timespec ts;
    struct tm tm;
    va_list ap;
    int n;

    if (level > log_level)
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    n = snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s[%ld] %c ",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                 ts.tv_nsec / 1000000, log_program, (long)getpid(), letters[level]);
    if (n < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* what a message quotes (a request's action, a name) cannot forge a line or reach
     * the terminal: control bytes, DEL and backslashes are written \xNN */
    n += (int)cm_log_escape(line + n, sizeof(line) - 1 - (size_t)n, msg);
    line[n++] = '\n';
    /* One write per line so concurrent writers (instances, emulator) never interleave. */
    if (write(STDERR_FILENO, line, (size_t)n) < 0)
        return;
}
