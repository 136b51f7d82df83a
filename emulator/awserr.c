/* emulator/awserr.c: see awserr.h. */
#include "emulator/awserr.h"

#include <stdarg.h>
#include <stdio.h>

int awserr_set(struct awserr *e, int http, const char *code, const char *fmt, ...)
{
    va_list ap;

    e->http = http;
    e->sender = http < 500;
    snprintf(e->code, sizeof(e->code), "%s", code);
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof(e->message), fmt, ap);
    va_end(ap);
    return -1;
}

int awserr_from_sc(struct awserr *e, const struct sc_error *se)
{
    e->http = sc_status_http(se->status);
    e->sender = sc_status_is_sender(se->status);
    snprintf(e->code, sizeof(e->code), "%s", sc_status_code(se->status));
    snprintf(e->message, sizeof(e->message), "%s", se->message);
    return -1;
}

int awserr_is_set(const struct awserr *e)
{
    return e->http != 0;
}
