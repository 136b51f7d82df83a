/* scaler/hash.h: FNV-1a, 64-bit (Fowler, Noll, Vo), the one hash of the tree: the bucket
 * indexes of the id tables, the change signatures that let a step skip work when nothing
 * moved (both only ever compared with values of the same hash within one process), the
 * seeds of ids derived from what a record is (ec2_sg.c, elb.c's default_elb group) and the
 * emulator's per-region RNG seeds (emu.c). Not for anything an adversary chooses.
 *
 * Header-only (static inline): the signatures are computed on every step. */
#ifndef SCALER_HASH_H
#define SCALER_HASH_H

#include <stddef.h>
#include <stdint.h>

#define SC_HASH_FNV1A_BASIS 14695981039346656037ULL /* the 64-bit offset basis */
#define SC_HASH_FNV1A_PRIME 1099511628211ULL        /* the 64-bit FNV prime */

/* FNV-1a of n bytes at p, continuing from h (start from SC_HASH_FNV1A_BASIS). */
static inline uint64_t sc_hash_fnv1a_add(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;

    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * SC_HASH_FNV1A_PRIME;
    return h;
}

/* FNV-1a of the bytes of s (its NUL left out), continuing from h. */
static inline uint64_t sc_hash_fnv1a_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * SC_HASH_FNV1A_PRIME;
    return h;
}

/* s (NULL as "") as one field of a key: FNV-1a of its bytes, then of a 0xff byte (no UTF-8
 * text holds one), so that the fields "ab", "c" and "a", "bc" hash apart. */
static inline uint64_t sc_hash_fnv1a_field(uint64_t h, const char *s)
{
    static const unsigned char end = 0xff;

    return sc_hash_fnv1a_add(sc_hash_fnv1a_str(h, s ? s : ""), &end, 1);
}

/* FNV-1a of n bytes at p: the published function ("" is 0xcbf29ce484222325). */
static inline uint64_t sc_hash_fnv1a(const void *p, size_t n)
{
    return sc_hash_fnv1a_add(SC_HASH_FNV1A_BASIS, p, n);
}

/* Folds the integer v into h as one FNV-1a round over the whole word, (h ^ v) * prime:
 * cheaper than hashing v's 8 bytes, and not FNV-1a of them. For signatures of counts,
 * states and pointers, compared only with themselves. */
static inline uint64_t sc_hash_mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * SC_HASH_FNV1A_PRIME;
}

#endif
