/* scaler/rng.c: see rng.h. */
#include "scaler/rng.h"

#include <stddef.h>

uint64_t sc_rng_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void sc_rng_init(struct sc_rng *r, uint64_t seed)
{
    uint64_t sm = seed;

    for (int i = 0; i < 4; i++)
        r->s[i] = sc_rng_splitmix64(&sm);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t sc_rng_next(struct sc_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t sc_rng_below(struct sc_rng *r, uint64_t n)
{
    uint64_t limit, x;

    if (n == 0)
        return 0;
    /* Reject the top partial block so every residue is equally likely. */
    limit = UINT64_MAX - UINT64_MAX % n;
    do {
        x = sc_rng_next(r);
    } while (x >= limit);
    return x % n;
}

double sc_rng_double(struct sc_rng *r)
{
    return (double)(sc_rng_next(r) >> 11) * 0x1.0p-53;
}

void sc_rng_hex(struct sc_rng *r, char *out, int ndigits)
{
    static const char digits[] = "0123456789abcdef";
    uint64_t bits = 0;
    int left = 0;

    if (ndigits < 0)
        ndigits = 0;
    if (ndigits > 64)
        ndigits = 64;
    for (int i = 0; i < ndigits; i++) {
        if (left == 0) {
            bits = sc_rng_next(r);
            left = 16;
        }
        out[i] = digits[bits & 0xf];
        bits >>= 4;
        left--;
    }
    out[ndigits] = '\0';
}

void sc_rng_instance_id(struct sc_rng *r, char out[SC_RNG_INSTANCE_ID_LEN])
{
    out[0] = 'i';
    out[1] = '-';
    sc_rng_hex(r, out + 2, 17);
}

void sc_rng_uuid(struct sc_rng *r, char out[SC_RNG_UUID_LEN])
{
    char hex[33];
    size_t o = 0;

    sc_rng_hex(r, hex, 32);
    hex[12] = '4'; /* version 4 */
    /* variant 10xx: keep the low two bits of the random nibble */
    hex[16] = "89ab"[(hex[16] <= '9' ? hex[16] - '0' : hex[16] - 'a' + 10) & 3];
    for (int i = 0; i < 32; i++) {
        if (i == 8 || i == 12 || i == 16 || i == 20)
            out[o++] = '-';
        out[o++] = hex[i];
    }
    out[o] = '\0';
}
