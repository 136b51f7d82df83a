/* common/tz.c: see tz.h. */
#include "common/tz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ZONEINFO "/usr/share/zoneinfo/"

static int name_ok(const char *z)
{
    size_t n = strlen(z);

    if (n == 0 || n > 200 || z[0] == '/' || strstr(z, ".."))
        return 0;
    for (const char *p = z; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
              *p == '/' || *p == '_' || *p == '-' || *p == '+'))
            return 0;
    return 1;
}

int cm_tz_offset(void *ud, const char *zone, int64_t utc_ms, int *offset_s)
{
    char path[256], *old = NULL;
    const char *cur;
    struct tm tm;
    time_t t = (time_t)(utc_ms / 1000 - (utc_ms % 1000 < 0));
    int ok;

    (void)ud;
    if (!zone || !name_ok(zone))
        return -1;
    snprintf(path, sizeof(path), ZONEINFO "%s", zone);
    /* glibc takes an unknown zone for UTC: the file must be there */
    if (access(path, R_OK) != 0)
        return -1;
    cur = getenv("TZ");
    if (cur) {
        old = strdup(cur);
        if (!old)
            return -1;
    }
    setenv("TZ", zone, 1);
    tzset();
    ok = localtime_r(&t, &tm) != NULL;
    if (old) {
        setenv("TZ", old, 1);
        free(old);
    } else {
        unsetenv("TZ");
    }
    tzset();
    if (!ok)
        return -1;
    *offset_s = (int)tm.tm_gmtoff;
    return 0;
}
