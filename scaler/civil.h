/* scaler/civil.h: epoch milliseconds as a UTC calendar date and time, for the dates the
 * AWS APIs print, without libc's time zone code. */
#ifndef SCALER_CIVIL_H
#define SCALER_CIVIL_H

#include <stdint.h>

struct sc_civil {
    int year, month, day; /* month 1..12, day 1..31 */
    int hour, minute, second, msec;
};

/* Any ms, before 1970 too (rounded toward the past). */
void sc_civil_from_ms(int64_t ms, struct sc_civil *out);

#endif
