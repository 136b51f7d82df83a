/* scaler/elbv2_balance.c: see elbv2.h. How a target group spreads requests over its
 * routable targets (docs/elbv2.md 10.1-10.3): its attributes read into one struct (the
 * data plane reads it when it syncs, never per request), the slow start share, and the
 * three algorithms' pick. Pure and allocation-free. */
#include "scaler/elbv2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *attr(const struct sc_elbv2_tg *g, const char *key, const char *dflt)
{
    const char *v = sc_elbv2_attr(g->attrs, g->nattrs, key);

    return v ? v : dflt;
}

int sc_elbv2_tg_balancing(const struct sc_elbv2 *v2, const char *tg_arn,
                          struct sc_elbv2_balancing *out)
{
    const struct sc_elbv2_tg *g = sc_elbv2_tg_find(v2, tg_arn);
    const char *alg, *type;
    int http;

    memset(out, 0, sizeof(*out));
    if (!g)
        return -1;
    alg = attr(g, "load_balancing.algorithm.type", "round_robin");
    if (strcmp(alg, "least_outstanding_requests") == 0)
        out->algorithm = SC_ELBV2_LEAST_OUTSTANDING;
    else if (strcmp(alg, "weighted_random") == 0)
        out->algorithm = SC_ELBV2_WEIGHTED_RANDOM;
    out->anomaly_mitigation =
        strcmp(attr(g, "load_balancing.algorithm.anomaly_mitigation", "off"), "on") == 0;
    /* slow start does not apply with least outstanding requests */
    if (out->algorithm != SC_ELBV2_LEAST_OUTSTANDING)
        out->slow_start_ms = (int64_t)atoi(attr(g, "slow_start.duration_seconds", "0")) * 1000;
    out->sticky.alb = 1;
    if (strcmp(attr(g, "stickiness.enabled", "false"), "true") != 0)
        return 0;
    /* the default type is the protocol's: lb_cookie for HTTP/HTTPS, source_ip else */
    http = !g->protocol || strcmp(g->protocol, "HTTP") == 0 || strcmp(g->protocol, "HTTPS") == 0;
    type = attr(g, "stickiness.type", http ? "lb_cookie" : "source_ip");
    if (!http) {
        out->sticky.alb = 0;
        if (strcmp(type, "source_ip") == 0)
            out->sticky.type = SC_STICKY_SOURCE_IP;
    } else if (strcmp(type, "lb_cookie") == 0) {
        out->sticky.type = SC_STICKY_LB_COOKIE;
        out->sticky.duration_s = atoi(attr(g, "stickiness.lb_cookie.duration_seconds", "86400"));
    } else if (strcmp(type, "app_cookie") == 0 &&
               *attr(g, "stickiness.app_cookie.cookie_name", "")) {
        out->sticky.type = SC_STICKY_APP_COOKIE;
        out->sticky.duration_s = atoi(attr(g, "stickiness.app_cookie.duration_seconds", "86400"));
        snprintf(out->sticky.app_cookie, sizeof(out->sticky.app_cookie), "%s",
                 attr(g, "stickiness.app_cookie.cookie_name", ""));
    }
    return 0;
}

double sc_elbv2_slow_start_share(int64_t now_ms, int64_t since_ms, int64_t duration_ms)
{
    double f;

    if (since_ms < 0 || duration_ms <= 0 || now_ms >= since_ms + duration_ms)
        return 1.0;
    if (now_ms <= since_ms)
        return 0.0;
    f = (double)(now_ms - since_ms) / (double)duration_ms;
    return f < 1.0 ? f : 1.0;
}

/* Smooth weighted round robin: every candidate earns its weight, the richest is picked and
 * pays the total. Over any run of picks each gets its weight's share, spread out. */
static int round_robin(const struct sc_elbv2_pick_cand *c, int n)
{
    double total = 0;
    int best = -1;

    for (int i = 0; i < n; i++) {
        if (c[i].weight <= 0)
            continue;
        total += c[i].weight;
        *c[i].credit += c[i].weight;
        if (best < 0 || *c[i].credit > *c[best].credit)
            best = i;
    }
    if (best < 0)
        return 0; /* every weight 0 (all at the very start of slow start): the first */
    *c[best].credit -= total;
    return best;
}

static int least_outstanding(const struct sc_elbv2_pick_cand *c, int n)
{
    int best = 0;

    for (int i = 1; i < n; i++) {
        if (c[i].outstanding < c[best].outstanding)
            best = i;
    }
    return best;
}

static int weighted_random(const struct sc_elbv2_pick_cand *c, int n, uint64_t draw)
{
    double total = 0, r;

    for (int i = 0; i < n; i++)
        total += c[i].weight > 0 ? c[i].weight : 0;
    if (total <= 0)
        return (int)(draw % (uint64_t)n);
    r = (double)(draw >> 11) * (1.0 / 9007199254740992.0) * total;
    for (int i = 0; i < n; i++) {
        double w = c[i].weight > 0 ? c[i].weight : 0;

        if (r < w)
            return i;
        r -= w;
    }
    for (int i = n - 1; i > 0; i--) {
        if (c[i].weight > 0)
            return i;
    }
    return 0;
}

int sc_elbv2_pick(enum sc_elbv2_algorithm alg, const struct sc_elbv2_pick_cand *c, int n,
                  uint64_t draw)
{
    if (n <= 1)
        return 0;
    switch (alg) {
    case SC_ELBV2_LEAST_OUTSTANDING:
        return least_outstanding(c, n);
    case SC_ELBV2_WEIGHTED_RANDOM:
        return weighted_random(c, n, draw);
    case SC_ELBV2_ROUND_ROBIN:
        break;
    }
    return round_robin(c, n);
}

/* FNV-1a 64 of the address bytes, then a finalizer: nearby addresses spread. */
uint64_t sc_elbv2_source_ip_key(const void *addr, size_t len)
{
    const unsigned char *p = addr;
    uint64_t h = 0xcbf29ce484222325ULL;

    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* splitmix64's mix of the pair: every (client, target) pair an independent-looking draw. */
uint64_t sc_elbv2_source_ip_score(uint64_t client, uint64_t key)
{
    uint64_t z = client ^ (key * 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int sc_elbv2_source_ip_pick(uint64_t client, const uint64_t *keys, int n)
{
    uint64_t best_score = 0;
    int best = -1;

    for (int i = 0; i < n; i++) {
        uint64_t sc = sc_elbv2_source_ip_score(client, keys[i]);

        /* ties (equal keys or scores): the lower key, so the order of keys never matters */
        if (best < 0 || sc > best_score || (sc == best_score && keys[i] < keys[best])) {
            best = i;
            best_score = sc;
        }
    }
    return best;
}
