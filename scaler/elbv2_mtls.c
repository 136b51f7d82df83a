/* scaler/elbv2_mtls.c: see elbv2_mtls.h (docs/elbv2.md 14.1). */
#include "scaler/elbv2_mtls.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum sc_mtls_mode sc_elbv2_mtls_mode(const struct sc_elbv2_listener *li)
{
    const char *m = li && li->mutual_auth ? li->mutual_auth->mode : NULL;

    if (m && strcmp(m, "verify") == 0)
        return SC_MTLS_VERIFY;
    if (m && strcmp(m, "passthrough") == 0)
        return SC_MTLS_PASSTHROUGH;
    return SC_MTLS_OFF;
}

int sc_elbv2_mtls_admit(enum sc_mtls_mode mode, enum sc_mtls_check check, int ignore_expiry,
                        const char **reason)
{
    static const char *const why[] = {
        [SC_MTLS_OK] = "Success",
        [SC_MTLS_NO_CERT] = "Failed:ClientCertMissing",
        [SC_MTLS_UNTRUSTED] = "Failed:ClientCertUntrusted",
        [SC_MTLS_EXPIRED] = "Failed:ClientCertExpired",
        [SC_MTLS_NOT_YET_VALID] = "Failed:ClientCertNotYetValid",
        [SC_MTLS_REVOKED] = "Failed:ClientCertRevoked",
        [SC_MTLS_TYPE_UNSUPPORTED] = "Failed:ClientCertTypeUnsupported",
    };
    int ok;

    if (mode != SC_MTLS_VERIFY) {
        if (reason)
            *reason = mode == SC_MTLS_OFF ? "-" : "Success";
        return 1;
    }
    ok = check == SC_MTLS_OK || (check == SC_MTLS_EXPIRED && ignore_expiry);
    if (reason)
        *reason = ok                                               ? "Success"
                  : (unsigned)check < sizeof(why) / sizeof(why[0]) ? why[check]
                                                                   : why[SC_MTLS_UNTRUSTED];
    return ok;
}

long sc_elbv2_mtls_urlencode(const char *s, size_t n, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;

    if (cap == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        int keep = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                   (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.' || ch == '~' ||
                   ch == '+' || ch == '=' || ch == '/';

        if (o + (keep ? 1 : 3) >= cap) {
            out[0] = '\0';
            return -1;
        }
        if (keep) {
            out[o++] = (char)ch;
        } else {
            out[o++] = '%';
            out[o++] = hex[ch >> 4];
            out[o++] = hex[ch & 15];
        }
    }
    out[o] = '\0';
    return (long)o;
}

/* Appends "Name: " + value + CRLF; -1 when it does not fit. */
static int put_line(char *out, size_t cap, size_t *o, const char *name, const char *v)
{
    int n = snprintf(out + *o, cap - *o, "%s: %s\r\n", name, v ? v : "");

    if (n < 0 || (size_t)n >= cap - *o)
        return -1;
    *o += (size_t)n;
    return 0;
}

/* Appends "Name: " + the URL-encoded pem + CRLF. */
static int put_pem(char *out, size_t cap, size_t *o, const char *name, const char *pem, size_t n)
{
    int h = snprintf(out + *o, cap - *o, "%s: ", name);
    long e;

    if (h < 0 || (size_t)h >= cap - *o)
        return -1;
    *o += (size_t)h;
    e = sc_elbv2_mtls_urlencode(pem ? pem : "", pem ? n : 0, out + *o, cap - *o);
    if (e < 0 || *o + (size_t)e + 2 >= cap)
        return -1;
    *o += (size_t)e;
    memcpy(out + *o, "\r\n", 3);
    *o += 2;
    return 0;
}

static void iso8601(int64_t t, char *buf, size_t cap)
{
    time_t tt = (time_t)t;
    struct tm tm;

    gmtime_r(&tt, &tm);
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

long sc_elbv2_mtls_headers(enum sc_mtls_mode mode, const struct sc_mtls_client *c, char *out,
                           size_t cap)
{
    size_t o = 0;
    int bad = 0;

    if (cap == 0)
        return -1;
    out[0] = '\0';
    if (!c || mode == SC_MTLS_OFF)
        return 0;
    if (mode == SC_MTLS_PASSTHROUGH) {
        if (c->chain_pem && c->chain_len > 0)
            bad = put_pem(out, cap, &o, "X-Amzn-Mtls-Clientcert", c->chain_pem, c->chain_len);
    } else {
        char nb[32], na[32], validity[96];

        iso8601(c->not_before_s, nb, sizeof(nb));
        iso8601(c->not_after_s, na, sizeof(na));
        snprintf(validity, sizeof(validity), "NotBefore=%s;NotAfter=%s", nb, na);
        bad = put_line(out, cap, &o, "X-Amzn-Mtls-Clientcert-Serial-Number", c->serial_hex) ||
              put_line(out, cap, &o, "X-Amzn-Mtls-Clientcert-Issuer", c->issuer) ||
              put_line(out, cap, &o, "X-Amzn-Mtls-Clientcert-Subject", c->subject) ||
              put_line(out, cap, &o, "X-Amzn-Mtls-Clientcert-Validity", validity) ||
              put_pem(out, cap, &o, "X-Amzn-Mtls-Clientcert-Leaf", c->leaf_pem, c->leaf_len);
    }
    if (bad) {
        out[0] = '\0';
        return -1;
    }
    return (long)o;
}

int sc_elbv2_mtls_reserved_header(const char *name, size_t n)
{
    size_t k = sizeof(SC_ELBV2_MTLS_HEADER_PREFIX) - 1;

    return n >= k && strncasecmp(name, SC_ELBV2_MTLS_HEADER_PREFIX, k) == 0;
}
