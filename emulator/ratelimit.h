/* emulator/ratelimit.h: the API's request rate limit (docs/dataplane.md "Request rate:
 * Throttling"): token buckets keyed by a string (a client address, an account and
 * Region), AWS's algorithm for its own API throttling. A bucket starts full (burst
 * tokens), refills at rate tokens a second up to burst, and a request takes one token or
 * is refused.
 *
 * Bounded: at most RL_MAX_KEYS keys; past that a full bucket's slot is reused (a full
 * bucket is the same as a new one), and when none is full the new key is not limited.
 * Pure: the caller passes the time (monotonic ms). No allocation after create. */
#ifndef EMULATOR_RATELIMIT_H
#define EMULATOR_RATELIMIT_H

#include <stdint.h>

#define RL_MAX_KEYS 4096
#define RL_KEY_LEN  96

struct ratelimit;

/* A limiter of rate tokens a second with bursts of burst (burst <= 0: 2 x rate, at least
 * 1); rate <= 0 makes one that never refuses. */
struct ratelimit *ratelimit_create(double rate, double burst);
void ratelimit_destroy(struct ratelimit *rl); /* NULL is a no-op */

/* 1 when key's bucket has a token at now_ms (it is taken), 0 when the request is refused.
 * A key longer than RL_KEY_LEN - 1 is cut. NULL rl or NULL key: 1. */
int ratelimit_take(struct ratelimit *rl, const char *key, int64_t now_ms);
/* The token ratelimit_take would have taken back (a request refused by another bucket
 * takes none from this one). */
void ratelimit_give_back(struct ratelimit *rl, const char *key);

/* Keys admitted unlimited because the table was full of non-full buckets, since create. */
uint64_t ratelimit_untracked(const struct ratelimit *rl);

/* Parses "RATE" or "RATE:BURST" (RATE 0 = off; 0 <= RATE <= 1e6, BURST >= 1). 0, or -1
 * when text is not that. */
int ratelimit_parse(const char *text, double *rate, double *burst);

#endif
