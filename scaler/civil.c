/* scaler/civil.c: see civil.h. Days to a civil date by Howard Hinnant's algorithm. */
#include "scaler/civil.h"

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
