/* emulator/app.c: the SOAP adder (see app.h). */
#include "emulator/app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Next standalone number between tags: ">  -12.5 <". Returns 0 and advances *pos. */
static int next_number(const char *b, size_t len, size_t *pos, double *out)
{
    for (size_t i = *pos; i < len; i++) {
        size_t s, e;
        char tmp[64];
        char *end;

        if (b[i] != '>')
            continue;
        s = i + 1;
        e = s;
        while (e < len && b[e] != '<')
            e++;
        if (e >= len)
            return -1;
        while (s < e && (b[s] == ' ' || b[s] == '\n' || b[s] == '\r' || b[s] == '\t'))
            s++;
        while (e > s &&
               (b[e - 1] == ' ' || b[e - 1] == '\n' || b[e - 1] == '\r' || b[e - 1] == '\t'))
            e--;
        if (e > s && e - s < sizeof(tmp)) {
            memcpy(tmp, b + s, e - s);
            tmp[e - s] = '\0';
            *out = strtod(tmp, &end);
            if (end == tmp + (e - s) && isfinite(*out)) {
                *pos = e;
                return 0;
            }
        }
        i = e - 1;
    }
    return -1;
}

int app_soap_add(const char *body, size_t len, char *out, size_t cap)
{
    static const char head[] =
        "<?xml version='1.0' encoding='UTF-8'?><soapenv:Envelope xmlns:soapenv=\""
        "http://www.w3.org/2003/05/soap-envelope\"><soapenv:Body><ns:addResponse "
        "xmlns:ns=\"http://service.wso2\"><ns:return>";
    static const char tail[] = "</ns:return></ns:addResponse></soapenv:Body></soapenv:Envelope>";
    size_t pos = 0;
    double a, b;
    int n;

    if (cap < APP_SOAP_REPLY_LEN + 1)
        return -1;
    if (next_number(body, len, &pos, &a) < 0 || next_number(body, len, &pos, &b) < 0)
        return -1;
    n = snprintf(out, cap, "%s%.15g%s", head, a + b, tail);
    if (n < 0 || n > APP_SOAP_REPLY_LEN)
        return -1;
    /* whitespace after the root element is allowed: pad to the seed's 260 bytes */
    memset(out + n, ' ', (size_t)(APP_SOAP_REPLY_LEN - n));
    out[APP_SOAP_REPLY_LEN - 1] = '\n';
    out[APP_SOAP_REPLY_LEN] = '\0';
    return APP_SOAP_REPLY_LEN;
}
