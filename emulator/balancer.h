/* emulator/balancer.h: the backend set of one proxy listener and its choice rules.
 *
 * A backend is an instance's address with its zone, whether new requests may go to it
 * (routable: InService, not draining, zone enabled; the caller decides from libscaler)
 * and its load (outstanding requests, open connections). Pure bookkeeping: no I/O, no
 * clock, so the rules are unit-tested directly.
 *
 * Choice rules (spec 6.5): HTTP listeners pick the routable backend with the fewest
 * outstanding requests, ties taken in turn; TCP listeners take routable backends in turn
 * (round robin). A node in a zone uses only that zone's backends unless cross-zone is on
 * (zone NULL = any). A backend at its connection cap is skipped (the request waits in the
 * proxy's surge queue).
 *
 * Ownership: the set owns its backends. bal_remove() takes a backend out of the set; the
 * struct stays alive while refs > 0 (connections holding it) and is freed by the last
 * bal_unref(). */
#ifndef EMULATOR_BALANCER_H
#define EMULATOR_BALANCER_H

#include <netinet/in.h>
#include <stdint.h>

#define BAL_ID_LEN   64
#define BAL_ZONE_LEN 32

/* The console's per-target traffic (docs/admin-api.md, overview): the responses a backend
 * gave, as totals and in one-second buckets of the real clock, so a rate and a mean
 * latency over the last BAL_WINDOW_S whole seconds cost BAL_WINDOW_S additions and
 * counting one response costs a few stores (the proxy's hot path). */
#define BAL_WINDOW_S 10
#define BAL_BUCKETS  (BAL_WINDOW_S + 1) /* the window and the current second */
struct bal_traffic {
    uint64_t responses;  /* since the backend was added */
    uint64_t errors_5xx; /* of those, 5xx from the backend */
    double latency_sum_ms;
    int64_t sec[BAL_BUCKETS]; /* the real second bucket i counts (ms / 1000), -1: none */
    uint32_t n[BAL_BUCKETS];
    double lat_ms[BAL_BUCKETS];
};

/* What bal_traffic_rate reads over the window. */
struct bal_rate {
    double per_s;      /* responses a second over the last BAL_WINDOW_S whole seconds */
    double latency_ms; /* their mean latency; 0 without one */
    uint64_t window;   /* responses in the window */
};

struct bal_backend {
    char id[BAL_ID_LEN];
    char zone[BAL_ZONE_LEN]; /* "" when unknown */
    struct sockaddr_in addr;
    int routable;
    int group;       /* ELBv2: the target group (listener's index) it serves; -1 classic */
    int outstanding; /* requests in flight (HTTP) or connections (TCP) */
    int conns;       /* open connections to it, idle ones included */
    int removed;     /* no longer in the set */
    int refs;        /* 1 for the set + one per connection holding it */
    void *idle;      /* the proxy's idle keep-alive connections (lb_conn.c) */
    int nidle;
    uint64_t picks;
    uint64_t key;  /* sc_sticky_key(id): what a stickiness cookie names */
    double weight; /* its share (slow start, docs/elbv2.md 10.2): 0..1, 1 when new */
    double credit; /* round robin's state (sc_elbv2_pick) */
    struct bal_traffic traffic;
};

struct bal_set {
    struct bal_backend **v;
    int n, cap;
    unsigned rr; /* rotation for ties and round robin */
};

void bal_init(struct bal_set *s);
/* Removes (unrefs) every backend. */
void bal_cleanup(struct bal_set *s);

/* Adds a backend, or updates the one with this id (address, zone). New ones start not
 * routable. Returns it (borrowed). */
struct bal_backend *bal_add(struct bal_set *s, const char *id, const struct sockaddr_in *addr,
                            const char *zone);
struct bal_backend *bal_find(const struct bal_set *s, const char *id);
/* Takes it out of the set (not routable any more); freed when its refs end. */
void bal_remove(struct bal_set *s, struct bal_backend *b);
void bal_ref(struct bal_backend *b);
void bal_unref(struct bal_backend *b);

/* Least outstanding requests among routable backends in zone (NULL: any zone) with
 * conns < max_conns (0: no cap). Returns NULL when none. *at_cap (optional) is set to 1
 * when routable backends exist but all are at the cap. */
struct bal_backend *bal_pick_least_outstanding(struct bal_set *s, const char *zone, int max_conns,
                                               int *at_cap);
/* The same among the backends of group (>= 0; -1: every backend). */
struct bal_backend *bal_pick_least_outstanding_in(struct bal_set *s, const char *zone, int group,
                                                  int max_conns, int *at_cap);
/* NLB source_ip stickiness: the routable backend (same filters) that
 * sc_elbv2_source_ip_pick gives client among those below max_conns (at most BAL_PICK_MAX
 * considered); NULL and *at_cap as bal_pick_round_robin. */
struct bal_backend *bal_pick_source_ip(struct bal_set *s, const char *zone, uint64_t client,
                                       int max_conns, int *at_cap);
/* Next routable backend in turn, same filters. */
struct bal_backend *bal_pick_round_robin(struct bal_set *s, const char *zone, int max_conns,
                                         int *at_cap);
/* ELBv2 target groups: a routable backend of group (>= 0) in zone (NULL: any) with conns <
 * max_conns, chosen by algorithm (enum sc_elbv2_algorithm) with libscaler's
 * sc_elbv2_pick over their weights and loads (draw: a uniform 64-bit value). The first
 * BAL_PICK_MAX eligible backends in rotation order are considered. NULL and *at_cap as
 * above. */
#define BAL_PICK_MAX 256
struct bal_backend *bal_pick_in(struct bal_set *s, const char *zone, int group, int algorithm,
                                int max_conns, uint64_t draw, int *at_cap);
/* The backend of group whose key is key, or NULL. */
struct bal_backend *bal_find_key(const struct bal_set *s, int group, uint64_t key);
/* Counts one response of the backend at real time now_ms: its status and latency (request
 * sent -> response head). */
void bal_traffic_count(struct bal_traffic *t, int64_t now_ms, int status, double latency_ms);
/* The rate and mean latency over the BAL_WINDOW_S whole seconds before now_ms's second
 * (the current, partial second is not counted: a steady load reads steady). */
void bal_traffic_rate(const struct bal_traffic *t, int64_t now_ms, struct bal_rate *out);

/* Number of routable backends in zone (NULL: any). */
int bal_routable_count(const struct bal_set *s, const char *zone);

#endif
