/* common/units.h: the units people type on command lines and in scenario files.
 *
 * Durations: a number with an optional suffix us, ms, s, m, h, d ("250ms", "1.5h",
 * "30h"); a bare number takes the caller's default unit. Counts: an optional k, M, G
 * suffix (powers of 1000, as wrk reads them). Sizes: k, M, G are powers of 1024. */
#ifndef COMMON_UNITS_H
#define COMMON_UNITS_H

#include <stdint.h>

enum cm_unit {
    CM_UNIT_US = 1,
    CM_UNIT_MS = 1000,
    CM_UNIT_S = 1000000,
};

/* Parses a duration into microseconds; a bare number is in bare_unit.
 * Returns 0, or -1 for malformed, negative or overflowing input. */
int cm_duration_parse_us(const char *s, enum cm_unit bare_unit, int64_t *out_us);
/* Parses a count ("10k" = 10000). Returns 0 or -1. */
int cm_count_parse(const char *s, uint64_t *out);
/* Parses a size in bytes ("8k" = 8192). Returns 0 or -1. */
int cm_size_parse(const char *s, uint64_t *out);
/* Formats a duration in microseconds the way wrk prints it ("1.23ms", "2.00s"). */
void cm_duration_format(int64_t us, char *out, int outlen);

#endif
