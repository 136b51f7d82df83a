/* scaler/elbv2_sni.c: see elbv2_sni.h (docs/elbv2.md 10.6). */
#include "scaler/elbv2_sni.h"

#include <stddef.h>
#include <string.h>

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* a[0..n) equals b[0..n) ignoring ASCII case */
static int same(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
            return 0;
    }
    return 1;
}

int sc_sni_name_matches(const char *name, const char *host)
{
    size_t hn, nn;
    const char *dot;

    if (!name || !host || !*name || !*host)
        return 0;
    hn = strlen(host);
    if (host[hn - 1] == '.')
        hn--; /* "a.example.com." is the same name */
    nn = strlen(name);
    if (nn > 2 && name[0] == '*' && name[1] == '.') {
        /* the wildcard is the whole left-most label and stands for exactly one label */
        dot = memchr(host, '.', hn);
        if (!dot || dot == host)
            return 0;
        return (size_t)(host + hn - dot) == nn - 1 && same(dot, name + 1, nn - 1);
    }
    return hn == nn && same(host, name, hn);
}

int sc_sni_cert_matches(const struct sc_sni_cert *c, const char *host)
{
    for (int i = 0; c && i < c->nnames; i++) {
        if (sc_sni_name_matches(c->names[i], host))
            return 1;
    }
    return 0;
}

/* >0 when a is better than b by the smart selection's criteria, in their order. */
static int better(const struct sc_sni_cert *a, const struct sc_sni_cert *b, int64_t now_s)
{
    int av, bv;

    if ((a->key == SC_SNI_KEY_ECDSA) != (b->key == SC_SNI_KEY_ECDSA))
        return a->key == SC_SNI_KEY_ECDSA;
    if ((a->key == SC_SNI_KEY_RSA) != (b->key == SC_SNI_KEY_RSA))
        return a->key == SC_SNI_KEY_RSA;
    if ((a->hash == SC_SNI_HASH_SHA) != (b->hash == SC_SNI_HASH_SHA))
        return a->hash == SC_SNI_HASH_SHA;
    if ((a->hash == SC_SNI_HASH_MD5) != (b->hash == SC_SNI_HASH_MD5))
        return a->hash == SC_SNI_HASH_MD5;
    if (a->key_bits != b->key_bits)
        return a->key_bits > b->key_bits;
    av = now_s >= a->not_before_s && now_s <= a->not_after_s;
    bv = now_s >= b->not_before_s && now_s <= b->not_after_s;
    if (av != bv)
        return av;
    return a->not_after_s > b->not_after_s;
}

int sc_sni_choose(const char *host, const struct sc_sni_cert *certs, int n, unsigned client_keys,
                  int64_t now_s)
{
    int best = -1, nmatch = 0, supported = 0;

    if (!host || !*host || n < 2)
        return 0;
    if (client_keys == 0)
        client_keys = SC_SNI_KEY_OTHER | SC_SNI_KEY_RSA | SC_SNI_KEY_ECDSA;
    for (int i = 1; i < n; i++) {
        nmatch += sc_sni_cert_matches(&certs[i], host);
        supported += sc_sni_cert_matches(&certs[i], host) && (certs[i].key & client_keys);
    }
    if (nmatch == 0)
        return 0;
    for (int i = 1; i < n; i++) {
        if (!sc_sni_cert_matches(&certs[i], host) ||
            (supported > 0 && !(certs[i].key & client_keys)))
            continue;
        /* ties keep the earlier one: the list's order */
        if (best < 0 || better(&certs[i], &certs[best], now_s))
            best = i;
    }
    return best;
}
