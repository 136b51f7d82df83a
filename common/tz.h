/* common/tz.h: IANA time zones from the system's zoneinfo (Debian's tzdata), through the C
 * library: the UTC offset a zone has at an instant. The emulator and the simulator hand it
 * to libscaler (sc_world_config.tz_offset) for scheduled actions' TimeZone.
 *
 * Not thread-safe: it sets TZ for the call and puts it back (the programs' loops are one
 * thread; loadgen's load threads never read local time). */
#ifndef COMMON_TZ_H
#define COMMON_TZ_H

#include <stdint.h>

/* The offset east of UTC, in seconds, of zone at utc_ms into *offset_s: 0, or -1 when zone
 * is no zone of the system's database (the name checked first: letters, digits, '/', '_',
 * '-', '+'; no "..", no leading '/'). ud is unused (the callback's shape). */
int cm_tz_offset(void *ud, const char *zone, int64_t utc_ms, int *offset_s);

#endif
