/* emulator/ratelimit.c: see ratelimit.h. An open-addressing table (FNV-1a, linear probing)
 * of RL_MAX_KEYS slots; a key's tokens are brought up to date only when it is looked at. */
#include "emulator/ratelimit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bucket {
    char key[RL_KEY_LEN]; /* "" = a free slot */
    double tokens;
    int64_t at_ms; /* when tokens was right */
};

struct ratelimit {
    double rate, burst; /* tokens a second; rate 0: never refuses */
    int used;
    uint64_t untracked;
    struct bucket b[RL_MAX_KEYS];
};

struct ratelimit *ratelimit_create(double rate, double burst)
{
    struct ratelimit *rl = calloc(1, sizeof(*rl));

    if (!rl)
        return NULL;
    rl->rate = rate > 0 && isfinite(rate) ? rate : 0;
    rl->burst = burst > 0 && isfinite(burst) ? burst : 2 * rl->rate;
    if (rl->burst < 1)
        rl->burst = 1;
    return rl;
}

void ratelimit_destroy(struct ratelimit *rl)
{
    free(rl);
}

static uint32_t fnv(const char *s)
{
    uint32_t h = 2166136261u;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void refill(const struct ratelimit *rl, struct bucket *b, int64_t now_ms)
{
    if (now_ms > b->at_ms) {
        b->tokens += (double)(now_ms - b->at_ms) * rl->rate / 1000.0;
        if (b->tokens > rl->burst)
            b->tokens = rl->burst;
        b->at_ms = now_ms;
    }
}

/* The slot of key (made, full, when new), or NULL when the table has no room. */
static struct bucket *slot(struct ratelimit *rl, const char *key, int64_t now_ms)
{
    char k[RL_KEY_LEN];
    uint32_t i;

    snprintf(k, sizeof(k), "%s", key);
    i = fnv(k) % RL_MAX_KEYS;
    for (int n = 0; n < RL_MAX_KEYS; n++, i = (i + 1) % RL_MAX_KEYS) {
        struct bucket *b = &rl->b[i];

        if (!b->key[0])
            break;
        if (strcmp(b->key, k) == 0)
            return b;
    }
    if (rl->used == RL_MAX_KEYS) {
        /* full: a bucket that refilled is the same as a new one; its key moves here */
        for (int n = 0; n < RL_MAX_KEYS; n++) {
            struct bucket *b = &rl->b[n];

            refill(rl, b, now_ms);
            if (b->tokens >= rl->burst) {
                snprintf(b->key, sizeof(b->key), "%s", k);
                return b;
            }
        }
        return NULL;
    }
    snprintf(rl->b[i].key, sizeof(rl->b[i].key), "%s", k);
    rl->b[i].tokens = rl->burst;
    rl->b[i].at_ms = now_ms;
    rl->used++;
    return &rl->b[i];
}

int ratelimit_take(struct ratelimit *rl, const char *key, int64_t now_ms)
{
    struct bucket *b;

    if (!rl || !key || rl->rate <= 0)
        return 1;
    b = slot(rl, key, now_ms);
    if (!b) {
        rl->untracked++;
        return 1;
    }
    refill(rl, b, now_ms);
    if (b->tokens < 1)
        return 0;
    b->tokens -= 1;
    return 1;
}

void ratelimit_give_back(struct ratelimit *rl, const char *key)
{
    char k[RL_KEY_LEN];
    uint32_t i;

    if (!rl || !key || rl->rate <= 0)
        return;
    snprintf(k, sizeof(k), "%s", key);
    i = fnv(k) % RL_MAX_KEYS;
    for (int n = 0; n < RL_MAX_KEYS && rl->b[i].key[0]; n++, i = (i + 1) % RL_MAX_KEYS) {
        if (strcmp(rl->b[i].key, k) == 0) {
            if (rl->b[i].tokens + 1 <= rl->burst)
                rl->b[i].tokens += 1;
            return;
        }
    }
}

uint64_t ratelimit_untracked(const struct ratelimit *rl)
{
    return rl ? rl->untracked : 0;
}

int ratelimit_parse(const char *text, double *rate, double *burst)
{
    char *end;
    double r, b = 0;

    if (!text || !*text)
        return -1;
    r = strtod(text, &end);
    if (end == text || !isfinite(r) || r < 0 || r > 1e6)
        return -1;
    if (*end == ':') {
        const char *p = end + 1;

        b = strtod(p, &end);
        if (end == p || !isfinite(b) || b < 1 || b > 1e9)
            return -1;
    }
    if (*end)
        return -1;
    *rate = r;
    *burst = b;
    return 0;
}
