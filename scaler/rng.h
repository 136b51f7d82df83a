/* scaler/rng.h: the world's deterministic random numbers and AWS-shaped ids.
 *
 * xoshiro256** (Blackman & Vigna) whose 256-bit state is filled from the seed by
 * splitmix64, so seed 0 is valid and nearby seeds give unrelated streams. Every id and
 * every random choice in libscaler (instance ids, activity ids, policy uuids, the
 * termination tie-break) comes from one struct sc_rng owned by the world: the same
 * seed and the same calls give the same ids, byte for byte.
 *
 * Plain data in the caller's storage: no allocation, no destroy. Not thread-safe. */
#ifndef SCALER_RNG_H
#define SCALER_RNG_H

#include <stdint.h>

struct sc_rng {
    uint64_t s[4];
};

/* "i-" + 17 lower-case hex digits + NUL. */
#define SC_RNG_INSTANCE_ID_LEN 20
/* 8-4-4-4-12 lower-case hex + NUL. */
#define SC_RNG_UUID_LEN 37

/* Seeds r from seed through splitmix64. */
void sc_rng_init(struct sc_rng *r, uint64_t seed);
/* The next 64 random bits (xoshiro256**). */
uint64_t sc_rng_next(struct sc_rng *r);
/* Uniform in [0, n) without modulo bias; 0 when n is 0. */
uint64_t sc_rng_below(struct sc_rng *r, uint64_t n);
/* Uniform in [0, 1), 53 bits. */
double sc_rng_double(struct sc_rng *r);

/* Writes ndigits (1..64) lower-case hex digits and a NUL into out (ndigits + 1 bytes). */
void sc_rng_hex(struct sc_rng *r, char *out, int ndigits);
/* An EC2 instance id: "i-" and 17 hex digits ("i-0a1b2c3d4e5f60718"). */
void sc_rng_instance_id(struct sc_rng *r, char out[SC_RNG_INSTANCE_ID_LEN]);
/* A version-4 UUID ("xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx"), as AWS uses for
 * activity ids, policy ARNs and request ids. */
void sc_rng_uuid(struct sc_rng *r, char out[SC_RNG_UUID_LEN]);

/* splitmix64 itself: advances *state and returns the next output. Exposed for tests and
 * for callers that derive sub-seeds. */
uint64_t sc_rng_splitmix64(uint64_t *state);

#endif
