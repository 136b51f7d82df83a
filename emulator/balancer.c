/* emulator/balancer.c: see balancer.h. */
#include "emulator/balancer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/elbv2.h"
#include "scaler/lb_sticky.h"

void bal_init(struct bal_set *s)
{
    memset(s, 0, sizeof(*s));
}

void bal_cleanup(struct bal_set *s)
{
    while (s->n > 0)
        bal_remove(s, s->v[s->n - 1]);
    free(s->v);
    bal_init(s);
}

struct bal_backend *bal_find(const struct bal_set *s, const char *id)
{
    for (int i = 0; i < s->n; i++) {
        if (strcmp(s->v[i]->id, id) == 0)
            return s->v[i];
    }
    return NULL;
}

struct bal_backend *bal_add(struct bal_set *s, const char *id, const struct sockaddr_in *addr,
                            const char *zone)
{
    struct bal_backend *b = bal_find(s, id);

    if (!b) {
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 8;
            s->v = cm_xrealloc(s->v, (size_t)s->cap * sizeof(*s->v));
        }
        b = cm_xcalloc(1, sizeof(*b));
        snprintf(b->id, sizeof(b->id), "%s", id);
        b->refs = 1;
        b->group = -1;
        b->key = sc_sticky_key(id);
        b->weight = 1.0;
        for (int k = 0; k < BAL_BUCKETS; k++)
            b->traffic.sec[k] = -1;
        s->v[s->n++] = b;
    }
    b->addr = *addr;
    snprintf(b->zone, sizeof(b->zone), "%s", zone ? zone : "");
    return b;
}

void bal_remove(struct bal_set *s, struct bal_backend *b)
{
    for (int i = 0; i < s->n; i++) {
        if (s->v[i] != b)
            continue;
        memmove(&s->v[i], &s->v[i + 1], (size_t)(s->n - i - 1) * sizeof(*s->v));
        s->n--;
        b->removed = 1;
        b->routable = 0;
        bal_unref(b);
        return;
    }
}

void bal_ref(struct bal_backend *b)
{
    b->refs++;
}

void bal_unref(struct bal_backend *b)
{
    if (--b->refs == 0)
        free(b);
}

static int eligible(const struct bal_backend *b, const char *zone, int group)
{
    return b->routable && (!zone || strcmp(b->zone, zone) == 0) && (group < 0 || b->group == group);
}

struct bal_backend *bal_pick_least_outstanding(struct bal_set *s, const char *zone, int max_conns,
                                               int *at_cap)
{
    return bal_pick_least_outstanding_in(s, zone, -1, max_conns, at_cap);
}

struct bal_backend *bal_pick_least_outstanding_in(struct bal_set *s, const char *zone, int group,
                                                  int max_conns, int *at_cap)
{
    struct bal_backend *best = NULL;
    int seen = 0;

    if (at_cap)
        *at_cap = 0;
    if (s->n == 0)
        return NULL;
    for (int k = 0; k < s->n; k++) {
        struct bal_backend *b = s->v[(s->rr + (unsigned)k) % (unsigned)s->n];

        if (!eligible(b, zone, group))
            continue;
        seen = 1;
        if (max_conns > 0 && b->conns >= max_conns && b->nidle == 0)
            continue;
        if (!best || b->outstanding < best->outstanding)
            best = b;
    }
    if (best) {
        s->rr++;
        best->picks++;
    } else if (seen && at_cap) {
        *at_cap = 1;
    }
    return best;
}

struct bal_backend *bal_pick_round_robin(struct bal_set *s, const char *zone, int max_conns,
                                         int *at_cap)
{
    int seen = 0;

    if (at_cap)
        *at_cap = 0;
    for (int k = 0; k < s->n; k++) {
        unsigned i = (s->rr + (unsigned)k) % (unsigned)s->n;
        struct bal_backend *b = s->v[i];

        if (!eligible(b, zone, -1))
            continue;
        seen = 1;
        if (max_conns > 0 && b->conns >= max_conns)
            continue;
        s->rr = i + 1;
        b->picks++;
        return b;
    }
    if (seen && at_cap)
        *at_cap = 1;
    return NULL;
}

struct bal_backend *bal_pick_source_ip(struct bal_set *s, const char *zone, uint64_t client,
                                       int max_conns, int *at_cap)
{
    uint64_t keys[BAL_PICK_MAX];
    struct bal_backend *who[BAL_PICK_MAX];
    int n = 0, seen = 0, k;

    if (at_cap)
        *at_cap = 0;
    for (int i = 0; i < s->n && n < BAL_PICK_MAX; i++) {
        struct bal_backend *b = s->v[i];

        if (!eligible(b, zone, -1))
            continue;
        seen = 1;
        if (max_conns > 0 && b->conns >= max_conns)
            continue;
        keys[n] = b->key;
        who[n++] = b;
    }
    k = n > 0 ? sc_elbv2_source_ip_pick(client, keys, n) : -1;
    if (k < 0) {
        if (seen && at_cap)
            *at_cap = 1;
        return NULL;
    }
    who[k]->picks++;
    return who[k];
}

int bal_routable_count(const struct bal_set *s, const char *zone)
{
    int n = 0;

    for (int i = 0; i < s->n; i++)
        n += eligible(s->v[i], zone, -1);
    return n;
}

struct bal_backend *bal_pick_in(struct bal_set *s, const char *zone, int group, int algorithm,
                                int max_conns, uint64_t draw, int *at_cap)
{
    struct sc_elbv2_pick_cand cand[BAL_PICK_MAX];
    struct bal_backend *who[BAL_PICK_MAX];
    int n = 0, seen = 0, k;

    if (at_cap)
        *at_cap = 0;
    for (int i = 0; i < s->n && n < BAL_PICK_MAX; i++) {
        struct bal_backend *b = s->v[(s->rr + (unsigned)i) % (unsigned)s->n];

        if (!eligible(b, zone, group))
            continue;
        seen = 1;
        if (max_conns > 0 && b->conns >= max_conns && b->nidle == 0)
            continue;
        cand[n].outstanding = b->outstanding;
        cand[n].weight = b->weight;
        cand[n].credit = &b->credit;
        who[n++] = b;
    }
    if (n == 0) {
        if (seen && at_cap)
            *at_cap = 1;
        return NULL;
    }
    k = sc_elbv2_pick((enum sc_elbv2_algorithm)algorithm, cand, n, draw);
    if (algorithm == SC_ELBV2_LEAST_OUTSTANDING)
        s->rr++; /* ties in turn */
    who[k]->picks++;
    return who[k];
}

struct bal_backend *bal_find_key(const struct bal_set *s, int group, uint64_t key)
{
    for (int i = 0; i < s->n; i++) {
        if (s->v[i]->key == key && s->v[i]->group == group)
            return s->v[i];
    }
    return NULL;
}

/* Floor division of a real ms time into seconds (the monotonic clock is >= 0 but a test
 * may start anywhere). */
static int64_t second_of(int64_t ms)
{
    return ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
}

static int bucket_of(int64_t sec)
{
    int64_t i = sec % BAL_BUCKETS;

    return (int)(i < 0 ? i + BAL_BUCKETS : i);
}

void bal_traffic_count(struct bal_traffic *t, int64_t now_ms, int status, double latency_ms)
{
    int64_t sec = second_of(now_ms);
    int i = bucket_of(sec);

    if (t->sec[i] != sec) {
        t->sec[i] = sec;
        t->n[i] = 0;
        t->lat_ms[i] = 0;
    }
    t->n[i]++;
    t->lat_ms[i] += latency_ms;
    t->responses++;
    t->errors_5xx += status >= 500;
    t->latency_sum_ms += latency_ms;
}

void bal_traffic_rate(const struct bal_traffic *t, int64_t now_ms, struct bal_rate *out)
{
    int64_t sec = second_of(now_ms);
    double lat = 0;

    memset(out, 0, sizeof(*out));
    for (int i = 0; i < BAL_BUCKETS; i++) {
        if (t->sec[i] >= sec - BAL_WINDOW_S && t->sec[i] < sec) {
            out->window += t->n[i];
            lat += t->lat_ms[i];
        }
    }
    out->per_s = (double)out->window / BAL_WINDOW_S;
    out->latency_ms = out->window ? lat / (double)out->window : 0.0;
}
