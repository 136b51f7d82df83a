/* scaler/civil.h: epoch milliseconds as a UTC calendar date and time, and the one place
 * where the tree prints and reads AWS timestamps, without libc's time zone code. Pure
 * (no clock, no locale, no allocation), so all three programs use it.
 *
 * Every formatter rounds toward the past (-1 ms is 1969-12-31T23:59:59.999Z) and writes at
 * most n bytes, truncating as snprintf does; SC_CIVIL_TIME_LEN bytes always suffice. */
#ifndef SCALER_CIVIL_H
#define SCALER_CIVIL_H

#include <stddef.h>
#include <stdint.h>

#define SC_CIVIL_TIME_LEN 40 /* any format below with its NUL, up to 9-digit negative years */

struct sc_civil {
    int year, month, day; /* month 1..12, day 1..31 */
    int hour, minute, second, msec;
};

/* Any ms, before 1970 too (rounded toward the past). */
void sc_civil_from_ms(int64_t ms, struct sc_civil *out);
/* The inverse: epoch ms of c. Fields past their range carry over as timegm's do (February
 * 30 is March 1 or 2, second 60 the next minute). */
int64_t sc_civil_to_ms(const struct sc_civil *c);

/* "2026-12-01T20:11:39Z": Auto Scaling's causes, the simulator's output. */
void sc_civil_format_iso(int64_t ms, char *out, size_t n);
/* "2026-12-01T20:11:39.123Z": timestamps in query/XML replies, the admin API, loadgen's
 * GetMetricStatistics windows. */
void sc_civil_format_iso_ms(int64_t ms, char *out, size_t n);
/* "2026-12-01T20:11:39.123+0000": CloudWatch's dates inside alarm history and reason data. */
void sc_civil_format_iso_ms_offset(int64_t ms, char *out, size_t n);
/* "20261201T201139Z": ISO-8601 basic format, SigV4's X-Amz-Date. */
void sc_civil_format_basic(int64_t ms, char *out, size_t n);
/* "2026-12-01 20:11:39 GMT": EC2's state transition reasons. */
void sc_civil_format_gmt(int64_t ms, char *out, size_t n);
/* "01/12/26 20:11:39" (dd/MM/yy HH:mm:ss): CloudWatch's alarm state reasons. */
void sc_civil_format_dmy(int64_t ms, char *out, size_t n);

/* Reads a timestamp in the forms AWS accepts on input (a Smithy timestamp member given as
 * text, a reply's date) into epoch ms: "YYYY-MM-DD", then 'T', 't' or ' ', "hh:mm:ss";
 * then optionally '.' and one or more digits (past milliseconds they are cut, not
 * rounded); then 'Z', 'z', "+hh:mm", "+hhmm" (or '-'), or nothing for UTC. Month 1..12,
 * day 1..31, hour 0..23, minute 0..59, second 0..60 (a day past its month carries over, as
 * in sc_civil_to_ms). Returns 0, or -1 (*ms untouched) when s is NULL or malformed; never
 * reads past s's NUL. */
int sc_civil_parse_iso(const char *s, int64_t *ms);
/* Reads exactly "YYYYMMDDThhmmssZ" (SigV4's X-Amz-Date), the same ranges. 0 or -1. */
int sc_civil_parse_basic(const char *s, int64_t *ms);

#endif
