/* common/base64.c: see base64.h. */
#include "common/base64.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *cm_base64_encode(const void *data, size_t len)
{
    const unsigned char *p = data;
    char *out = cm_xmalloc((len + 2) / 3 * 4 + 1);
    size_t o = 0;

    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)p[i] << 16;

        if (i + 1 < len)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < len)
            v |= p[i + 2];
        out[o++] = alphabet[(v >> 18) & 63];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < len ? alphabet[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

/* The 6-bit value of c in either alphabet, or -1. */
static int sextet(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

char *cm_base64_decode(const char *text, size_t *outlen)
{
    size_t n = strlen(text), o = 0;
    char *out = cm_xmalloc(n + 1);
    unsigned acc = 0;
    int bits = 0;

    for (size_t i = 0; i < n; i++) {
        int v;

        if (text[i] == '=' || text[i] == '\n' || text[i] == '\r' || text[i] == ' ')
            continue;
        v = sextet((unsigned char)text[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (char)((acc >> bits) & 0xff);
        }
    }
    out[o] = '\0';
    if (outlen)
        *outlen = o;
    return out;
}
