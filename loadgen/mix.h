/* loadgen/mix.h: the request mix of a load phase aimed at an Application Load Balancer
 * (the scenario's `requests`: docs/scenarios.md), as the player sends it.
 *
 * Each kind is one whole HTTP/1.1 request, built once (method, path and query, Host,
 * the kind's headers); the engines (loadgen/conn.c, loadgen/burst.c) take request k of
 * the run as kind order[k % norder], so the hot path costs one atomic add and no
 * allocation. The order is a smooth weighted round robin over the kinds' integer weights
 * (req_mix_order): over every whole cycle each kind is sent exactly its weight's share,
 * over any first n requests each kind's count is within one of n x its share, and the
 * kinds are interleaved (70/25/5 sends no run of 70 alike). Deterministic: the same
 * scenario sends the same sequence. */
#ifndef LOADGEN_MIX_H
#define LOADGEN_MIX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "scaler/sim/scenario.h"

/* Largest cycle: weights whose reduced integer sum is larger are rounded to shares of
 * this many (largest remainders), so a share is exact to 1/REQ_MIX_MAX_CYCLE. */
#define REQ_MIX_MAX_CYCLE 10000

struct req_kind {
    char *req; /* the whole request */
    size_t len;
    int head; /* HEAD: its response carries no body */
};

struct req_mix {
    struct req_kind *kinds;
    int nkinds;
    uint16_t *order; /* kind of request k: order[k % norder] */
    uint32_t norder;
    _Atomic uint64_t next; /* requests taken so far */
};

/* The integer weights of weights[0..n) (each >= 0, their sum > 0): the exact ones reduced
 * by their gcd when they are whole numbers adding to at most cap, else the largest-
 * remainder shares of cap (a kind of weight > 0 keeps at least 1). Fills out[0..n) and
 * returns their sum (the cycle), or 0 when the weights are unusable. */
uint32_t req_mix_weights(const double *weights, int n, uint32_t cap, uint32_t *out);
/* The smooth weighted round robin over integer weights w[0..n) (sum = cycle): order[0..
 * cycle) gets the kind of each request of one cycle. Pure. */
void req_mix_order(const uint32_t *w, int n, uint32_t cycle, uint16_t *order);

/* One request of a kind (NULL: GET /), its Host default_host when the kind names none;
 * keepalive 0 adds "Connection: close". A method that may carry a body (not GET, HEAD,
 * DELETE, OPTIONS) says Content-Length: 0. Returns the malloc'd request, its length in
 * *len. */
char *req_mix_request(const struct sim_request *q, const char *default_host, int keepalive,
                      size_t *len);

/* Builds the mix of a phase's requests[0..n) (n >= 1). Returns 0, or -1 with a reason. */
int req_mix_build(struct req_mix *m, const struct sim_request *reqs, int n,
                  const char *default_host, int keepalive, char *err, size_t errlen);
void req_mix_cleanup(struct req_mix *m);

/* The kind of the next request (any thread). */
static inline const struct req_kind *req_mix_next(struct req_mix *m)
{
    uint64_t k = atomic_fetch_add_explicit(&m->next, 1, memory_order_relaxed);

    return &m->kinds[m->order[k % m->norder]];
}

#endif
