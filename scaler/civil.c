/* scaler/civil.c: see civil.h. Days to a civil date and back by Howard Hinnant's
 * algorithms (days_from_civil, civil_from_days). */
#include "scaler/civil.h"

#include <stdio.h>

void sc_civil_from_ms(int64_t ms, struct sc_civil *out)
{
    int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
    int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
    int64_t rem = secs - days * 86400;
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;

    out->day = (int)(doy - (153 * mp + 2) / 5 + 1);
    out->month = (int)(mp < 10 ? mp + 3 : mp - 9);
    out->year = (int)(yoe + era * 400 + (out->month <= 2));
    out->hour = (int)(rem / 3600);
    out->minute = (int)(rem % 3600 / 60);
    out->second = (int)(rem % 60);
    out->msec = (int)(ms - secs * 1000);
}

int64_t sc_civil_to_ms(const struct sc_civil *c)
{
    int64_t y = (int64_t)c->year - (c->month <= 2);
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (c->month + (c->month > 2 ? -3 : 9)) + 2) / 5 + c->day - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;

    return ((days * 86400 + c->hour * 3600 + c->minute * 60 + c->second) * 1000) + c->msec;
}

/* --- formats ---------------------------------------------------------------------------------- */

void sc_civil_format_iso(int64_t ms, char *out, size_t n)
{
    struct sc_civil c;

    sc_civil_from_ms(ms, &c);
    snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02dZ", c.year, c.month, c.day, c.hour, c.minute,
             c.second);
}

void sc_civil_format_iso_ms(int64_t ms, char *out, size_t n)
{
    struct sc_civil c;

    sc_civil_from_ms(ms, &c);
    snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", c.year, c.month, c.day, c.hour,
             c.minute, c.second, c.msec);
}

void sc_civil_format_iso_ms_offset(int64_t ms, char *out, size_t n)
{
    struct sc_civil c;

    sc_civil_from_ms(ms, &c);
    snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03d+0000", c.year, c.month, c.day, c.hour,
             c.minute, c.second, c.msec);
}

void sc_civil_format_basic(int64_t ms, char *out, size_t n)
{
    struct sc_civil c;

    sc_civil_from_ms(ms, &c);
    snprintf(out, n, "%04d%02d%02dT%02d%02d%02dZ", c.year, c.month, c.day, c.hour, c.minute,
             c.second);
}

void sc_civil_format_gmt(int64_t ms, char *out, size_t n)
{
    struct sc_civil c;

    sc_civil_from_ms(ms, &c);
    snprintf(out, n, "%04d-%02d-%02d %02d:%02d:%02d GMT", c.year, c.month, c.day, c.hour, c.minute,
             c.second);
}

void sc_civil_format_dmy(int64_t ms, char *out, size_t n)
{
    struct sc_civil c;

    sc_civil_from_ms(ms, &c);
    snprintf(out, n, "%02d/%02d/%02d %02d:%02d:%02d", c.day, c.month, c.year % 100, c.hour,
             c.minute, c.second);
}

/* --- parsing ---------------------------------------------------------------------------------- */

/* The n decimal digits at s into *v; -1 at the first other byte (so a NUL stops it). */
static int digits(const char *s, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        *v = *v * 10 + (s[i] - '0');
    }
    return 0;
}

static int in_range(const struct sc_civil *c)
{
    return c->month >= 1 && c->month <= 12 && c->day >= 1 && c->day <= 31 && c->hour <= 23 &&
           c->minute <= 59 && c->second <= 60;
}

int sc_civil_parse_iso(const char *s, int64_t *ms)
{
    struct sc_civil c = { 0 };
    int64_t off_s = 0;
    const char *p;

    /* each byte is read only when those before it matched, so never past the NUL */
    if (!s || digits(s, 4, &c.year) || s[4] != '-' || digits(s + 5, 2, &c.month) || s[7] != '-' ||
        digits(s + 8, 2, &c.day) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        digits(s + 11, 2, &c.hour) || s[13] != ':' || digits(s + 14, 2, &c.minute) ||
        s[16] != ':' || digits(s + 17, 2, &c.second) || !in_range(&c))
        return -1;
    p = s + 19;
    if (*p == '.') {
        int scale = 100;

        p++;
        if (*p < '0' || *p > '9')
            return -1;
        for (; *p >= '0' && *p <= '9'; p++) {
            c.msec += (*p - '0') * scale;
            scale /= 10;
        }
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p == '-' ? -1 : 1, oh, om;

        p++;
        if (digits(p, 2, &oh))
            return -1;
        p += 2;
        if (*p == ':')
            p++;
        if (digits(p, 2, &om))
            return -1;
        p += 2;
        off_s = sign * (oh * 3600 + om * 60);
    }
    if (*p != '\0')
        return -1;
    *ms = sc_civil_to_ms(&c) - off_s * 1000;
    return 0;
}

int sc_civil_parse_basic(const char *s, int64_t *ms)
{
    struct sc_civil c = { 0 };

    if (!s || digits(s, 4, &c.year) || digits(s + 4, 2, &c.month) || digits(s + 6, 2, &c.day) ||
        s[8] != 'T' || digits(s + 9, 2, &c.hour) || digits(s + 11, 2, &c.minute) ||
        digits(s + 13, 2, &c.second) || s[15] != 'Z' || s[16] != '\0' || !in_range(&c))
        return -1;
    *ms = sc_civil_to_ms(&c);
    return 0;
}
