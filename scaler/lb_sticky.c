/* scaler/lb_sticky.c: see lb_sticky.h. */
#include "scaler/lb_sticky.h"

#include <stdio.h>
#include <string.h>

#include "scaler/civil.h"

#define WEEK_S (7 * 86400)

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t sc_sticky_key(const char *id)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (const char *p = id; p && *p; p++) {
        h ^= (unsigned char)*p;
        h *= 0x100000001b3ULL;
    }
    return h ? h : 1;
}

static uint64_t tag_of(uint64_t secret, uint64_t key, uint64_t exp)
{
    return mix64(secret ^ mix64(key) ^ mix64(exp ^ 0x5bd1e995ULL));
}

static void hex64(uint64_t v, char *out)
{
    static const char hx[] = "0123456789abcdef";

    for (int i = 15; i >= 0; i--) {
        out[i] = hx[v & 15];
        v >>= 4;
    }
}

static int unhex64(const char *s, uint64_t *v)
{
    *v = 0;
    for (int i = 0; i < 16; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

        if (d < 0)
            return -1;
        *v = (*v << 4) | (uint64_t)d;
    }
    return 0;
}

int sc_sticky_encode(uint64_t secret, uint64_t key, int64_t expires_s, char *out)
{
    uint64_t exp = (uint64_t)expires_s;
    uint64_t tag = tag_of(secret, key, exp);

    hex64(key ^ mix64(secret ^ tag ^ 1), out);
    hex64(exp ^ mix64(secret ^ tag ^ 2), out + 16);
    hex64(tag, out + 32);
    out[48] = '\0';
    return 48;
}

int sc_sticky_decode(uint64_t secret, const char *v, size_t len, uint64_t *key, int64_t *expires_s)
{
    uint64_t ek, ee, tag, k, e;

    if (len != 48 || unhex64(v, &ek) < 0 || unhex64(v + 16, &ee) < 0 || unhex64(v + 32, &tag) < 0)
        return -1;
    k = ek ^ mix64(secret ^ tag ^ 1);
    e = ee ^ mix64(secret ^ tag ^ 2);
    if (tag_of(secret, k, e) != tag)
        return -1;
    *key = k;
    *expires_s = (int64_t)e;
    return 0;
}

int sc_sticky_cookie_find(const char *hdr, size_t len, const char *name, const char **val,
                          size_t *vlen)
{
    size_t nl = strlen(name), i = 0;

    while (i < len) {
        size_t s, e, v;

        while (i < len && (hdr[i] == ' ' || hdr[i] == '\t' || hdr[i] == ';'))
            i++;
        s = i;
        while (i < len && hdr[i] != ';')
            i++;
        e = i;
        while (e > s && (hdr[e - 1] == ' ' || hdr[e - 1] == '\t'))
            e--;
        for (v = s; v < e && hdr[v] != '='; v++)
            ;
        if (v < e && v - s == nl && memcmp(hdr + s, name, nl) == 0) {
            *val = hdr + v + 1;
            *vlen = e - v - 1;
            return 1;
        }
    }
    return 0;
}

int sc_sticky_sets_cookie(const char *hdr, size_t len, const char *name)
{
    size_t nl = strlen(name), s = 0;

    while (s < len && (hdr[s] == ' ' || hdr[s] == '\t'))
        s++;
    return len - s > nl && memcmp(hdr + s, name, nl) == 0 && hdr[s + nl] == '=';
}

int sc_sticky_keep(int decoded, int64_t expires_s, int64_t now_s, int target_routable)
{
    if (!decoded || !target_routable)
        return 0;
    return expires_s == 0 || now_s < expires_s;
}

const char *sc_sticky_cookie_name(const struct sc_sticky *s)
{
    if (!s->alb)
        return "AWSELB";
    return s->type == SC_STICKY_APP_COOKIE ? "AWSALBAPP-0" : "AWSALB";
}

void sc_sticky_http_date(int64_t s, char out[30])
{
    static const char *const wd[] = { "Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed" };
    static const char *const mo[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
    struct sc_civil c;
    int64_t days = s >= 0 ? s / 86400 : (s - 86399) / 86400;

    sc_civil_from_ms(s * 1000, &c);
    snprintf(out, 30, "%s, %02d %s %04d %02d:%02d:%02d GMT", wd[((days % 7) + 7) % 7], c.day,
             mo[c.month - 1], c.year % 10000, c.hour, c.minute, c.second);
}

/* Appends "Set-Cookie: NAME=VALUE[; Expires=DATE]; Path=/[; SameSite=None; Secure]\r\n". */
static int line(char *out, size_t cap, size_t *o, const char *name, const char *value,
                int64_t expires_s, int cors)
{
    char date[30];
    int n;

    if (expires_s > 0)
        sc_sticky_http_date(expires_s, date);
    n = snprintf(out + *o, cap - *o, "Set-Cookie: %s=%s%s%s; Path=/%s\r\n", name, value,
                 expires_s > 0 ? "; Expires=" : "", expires_s > 0 ? date : "",
                 cors ? "; SameSite=None; Secure" : "");
    if (n < 0 || (size_t)n >= cap - *o)
        return -1;
    *o += (size_t)n;
    return 0;
}

long sc_sticky_set_cookie(const struct sc_sticky *s, uint64_t secret, uint64_t key, int64_t now_s,
                          char *out, size_t cap)
{
    char v[SC_STICKY_VALUE_LEN];
    int64_t valid = s->duration_s > 0 ? now_s + s->duration_s : 0;
    size_t o = 0;

    if (cap == 0 || s->type == SC_STICKY_NONE)
        return -1;
    out[0] = '\0';
    sc_sticky_encode(secret, key, valid, v);
    if (!s->alb) {
        /* classic: the app-cookie policy's AWSELB follows the application's cookie */
        if (line(out, cap, &o, "AWSELB", v, s->type == SC_STICKY_LB_COOKIE ? valid : 0, 0) < 0)
            return -1;
        return (long)o;
    }
    if (s->type == SC_STICKY_LB_COOKIE) {
        if (line(out, cap, &o, "AWSALB", v, valid, 0) < 0 ||
            line(out, cap, &o, "AWSALBCORS", v, valid, 1) < 0)
            return -1;
        return (long)o;
    }
    /* the generated application cookie: its own 7-day expiry; the stickiness duration is
     * inside the value */
    if (line(out, cap, &o, "AWSALBAPP-0", v, now_s + WEEK_S, 0) < 0)
        return -1;
    return (long)o;
}

long sc_sticky_set_group_cookie(uint64_t secret, uint64_t key, int64_t duration_s, int64_t now_s,
                                char *out, size_t cap)
{
    char v[SC_STICKY_VALUE_LEN];
    int64_t valid = now_s + duration_s;
    size_t o = 0;

    if (cap == 0)
        return -1;
    out[0] = '\0';
    sc_sticky_encode(secret, key, valid, v);
    if (line(out, cap, &o, "AWSALBTG", v, valid, 0) < 0 ||
        line(out, cap, &o, "AWSALBTGCORS", v, valid, 1) < 0)
        return -1;
    return (long)o;
}
