/* common/units.c: see units.h. */
#include "common/units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits "12.5ms" into 12.5 and "ms"; rejects empty numbers, NaN and infinities. */
static int split_number(const char *s, double *num, const char **suffix)
{
    char *end = NULL;

    if (!s || !*s)
        return -1;
    /* strtod accepts "inf", "nan" and hex; a unit string is decimal only. */
    if (!((*s >= '0' && *s <= '9') || *s == '.' || *s == '-' || *s == '+'))
        return -1;
    errno = 0;
    *num = strtod(s, &end);
    if (errno || end == s || !isfinite(*num))
        return -1;
    *suffix = end;
    return 0;
}

int cm_duration_parse_us(const char *s, enum cm_unit bare_unit, int64_t *out_us)
{
    static const struct {
        const char *name;
        double us;
    } suffixes[] = {
        { "us", 1.0 }, { "ms", 1e3 },   { "s", 1e6 },
        { "m", 60e6 }, { "h", 3600e6 }, { "d", 86400e6 },
    };
    const char *suffix;
    double num, us;

    if (split_number(s, &num, &suffix) < 0 || num < 0)
        return -1;
    if (*suffix == '\0') {
        us = num * (double)bare_unit;
    } else {
        size_t i;

        for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
            if (strcmp(suffix, suffixes[i].name) == 0)
                break;
        if (i == sizeof(suffixes) / sizeof(suffixes[0]))
            return -1;
        us = num * suffixes[i].us;
    }
    if (us > 9.2e18)
        return -1;
    *out_us = (int64_t)llround(us);
    return 0;
}

static int parse_scaled(const char *s, double k, uint64_t *out)
{
    const char *suffix;
    double num, mul = 1;

    if (split_number(s, &num, &suffix) < 0 || num < 0)
        return -1;
    if (*suffix) {
        if (suffix[1] != '\0')
            return -1;
        switch (*suffix) {
        case 'k':
        case 'K':
            mul = k;
            break;
        case 'M':
            mul = k * k;
            break;
        case 'G':
            mul = k * k * k;
            break;
        default:
            return -1;
        }
    }
    num *= mul;
    if (num > 1.8e19 || num != floor(num))
        return -1;
    *out = (uint64_t)num;
    return 0;
}

int cm_count_parse(const char *s, uint64_t *out)
{
    return parse_scaled(s, 1000.0, out);
}

int cm_size_parse(const char *s, uint64_t *out)
{
    return parse_scaled(s, 1024.0, out);
}

void cm_duration_format(int64_t us, char *out, int outlen)
{
    double v = (double)us;

    if (us < 1000)
        snprintf(out, (size_t)outlen, "%.2fus", v);
    else if (us < 1000000)
        snprintf(out, (size_t)outlen, "%.2fms", v / 1e3);
    else if (us < 60000000)
        snprintf(out, (size_t)outlen, "%.2fs", v / 1e6);
    else if (us < 3600000000LL)
        snprintf(out, (size_t)outlen, "%.2fm", v / 60e6);
    else
        snprintf(out, (size_t)outlen, "%.2fh", v / 3600e6);
}
