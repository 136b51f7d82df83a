/* loadgen/player.h: plays a scenario's load phases against real listeners, on a scaled
 * clock, with the load engine; the runner (`loadgen scenario`) reads what happened one
 * period at a time.
 *
 * Time: the scenario's times are emulated; time_scale emulated seconds pass per real
 * second (the emulator's --time-scale), so a phase [at, until) runs from real
 * at/time_scale to until/time_scale after player_start(). Rates and service times are
 * not scaled: a phase of 100 req/s sends 100 requests per real second, so an instance's
 * busy fraction (its CPUUtilization) is what the simulator predicts for the same load.
 *
 * The load a phase offers at a time is the rule the simulator uses (one function for
 * both: sim_phase_value_at in scaler/sim/load.h): open-model phases (`rate`) send at
 * that rate whatever the server does, latency counted from the intended send time
 * (coordinated omission corrected); closed-model phases (`clients`) keep that many
 * clients, each sending its next request when the previous reply ends (plus think time);
 * bursts of N requests with gaps play as ab does (N requests at c clients, then the gap).
 * Without cfg.scaled, the gap of closed bursts and the think time are real time, as ab's
 * loop sleeps and as service times are, so that the share of time clients keep instances
 * busy is the simulator's; with it (the instances' service times on the emulated clock)
 * they are emulated time like every other scenario time (phase bounds, shape times, open
 * bursts' on/off, trace rows), which is always scaled.
 * A closed phase stops at its end (requests in flight finish); an open phase's schedule
 * ends there too. Connections: closed phases hold their clients; open phases enough for
 * their peak rate with every request taking its whole timeout (opened at the phase's
 * start). When max_connections (shared by the phases that overlap in time) is less,
 * requests wait for a connection (their latency counts the wait; `sent` counts them
 * when they go), up to 1 s (real) past the phase's end, after which those still waiting
 * are dropped (never sent, not counted).
 * A phase whose target names a load balancer with no address in the config is an error
 * at player_create(), and so (in this build) are closed bursts given by "on" rather
 * than "requests".
 *
 * Threads: player_start() runs the load in threads of its own; every other call is made
 * from one controlling thread. player_take() never blocks on the load threads for longer
 * than a counter merge.
 *
 * Ownership: the scenario and the targets are borrowed and must outlive the player. */
#ifndef LOADGEN_PLAYER_H
#define LOADGEN_PLAYER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "common/hist.h"
#include "scaler/sim/scenario.h"

/* Where one load balancer of the scenario listens: a classic one's first HTTP or TCP
 * listener; each listener of an ALB (a phase goes to the one on its listener_port, else to
 * the ALB's first target listed). */
struct player_target {
    const char *lb;    /* the scenario's load balancer name (sim_phase.target) */
    int listener_port; /* ALB: the listener's Port; 0: a classic load balancer */
    struct sockaddr_storage addr;
    socklen_t addrlen;
    const char *host; /* Host header value, e.g. "127.0.0.1:40123"; an ALB's DNSName (and
                         ":PORT" unless 80), which a phase's `requests` mix takes for the
                         kinds that name no host (loadgen/mix.h) */
    const char *path; /* request path, NULL: "/" (no mix) */
};

struct player_config {
    const struct sim_scenario *sc;
    const struct player_target *targets;
    int ntargets;
    double time_scale;   /* emulated seconds per real second, > 0 */
    int64_t timeout_us;  /* per request, real time; 0: 10 s */
    int max_connections; /* cap on open connections over all phases; 0: 4096 (both at
                            most RLIMIT_NOFILE less 128) */
    int threads;         /* load threads, >= 1; 0: 1 */
    /* Emulated-time service (docs/dataplane.md, Time): the instances serve on the emulated
     * clock (their profile's "time_scaled") and each request stands for `weight` requests
     * of the scenario (the profile's "batch"). Then think times and closed bursts' gaps
     * are emulated time too (divided by time_scale; think times times weight), a closed
     * burst of N requests sends max(1, round(N / weight)) at min(clients, that)
     * connections, open rates are sent at rate x time_scale / weight real requests per
     * second, latencies are recorded x time_scale / weight (emulated time, per request of
     * the scenario) and the counts player_take() returns are x weight. 0: real-time
     * service, as described above. */
    int scaled;
    double weight; /* >= 1 when scaled */
    /* Host stalls: the burst engines' timer lateness of at least late_min_us goes to
     * on_late (from the load threads; loadgen/burst.h). NULL: not watched. */
    void (*on_late)(void *ud, int64_t now_us, int64_t late_us);
    void *late_ud;
    int64_t late_min_us;
};

/* What the load did since the previous player_take() (or player_start()). */
struct player_period {
    uint64_t sent;       /* requests sent */
    uint64_t completed;  /* complete responses with status < 500 */
    uint64_t failed;     /* connect/receive errors, timeouts, and status >= 500 */
    uint64_t status_5xx; /* of which HTTP 5xx (the ELB's 503 when nothing is InService) */
    /* Offered load at the end of the period, as the simulator's samples state it:
     * requests per second of open phases, else clients of closed phases. */
    double load;
    int load_is_clients;
    /* Latency of the completed requests (µs, STATS_HIST_MAX_US, 3 digits); the caller
     * owns it: player_take() resets it and fills it. */
    struct cm_hist lat;
};

struct player;

/* Checks the config against the scenario (every phase's target has an address). Returns
 * the player, or NULL with a reason in err. */
struct player *player_create(const struct player_config *cfg, char *err, size_t errlen);
/* Starts the load; the scenario's time 0 is now. Returns 0, or -1 with a reason. */
int player_start(struct player *p, char *err, size_t errlen);
/* Scenario time (emulated ms since player_start) on the player's clock. */
int64_t player_elapsed_ms(const struct player *p);
/* 1 while a phase has load left to send or requests in flight. */
int player_running(const struct player *p);
/* Fills out (whose `lat` the caller initialized with cm_hist_init(STATS_HIST_MAX_US, 3))
 * with what happened since the previous take. */
void player_take(struct player *p, struct player_period *out);

/* Closed bursts on the emulated clock (scaled): how the gaps were kept. They are played by
 * the persistent burst engine (loadgen/burst.h): its connections stay open across bursts,
 * so a burst's start is only the engine's wake-up at its release (at x600 each real ms is
 * 0.6 emulated s); each release comes that much early (a running estimate), so the
 * instances see the scenario's gap from a burst's last reply to the next burst's first
 * request; what it could not take back (a late wake-up) is `excess`. Real ms. */
struct player_bursts {
    uint64_t bursts;     /* bursts played (scaled closed phases only) */
    uint64_t gaps;       /* gaps measured (between two bursts of one phase) */
    double gap_ms;       /* the gap the scenario asks for, in real ms (the last phase's) */
    double gap_sum_ms;   /* measured: last reply of a burst to the first request of the next */
    double start_sum_ms; /* planned release to the burst's first request written */
    double start_max_ms;
    double excess_sum_ms; /* sum over gaps of max(0, measured - asked) */
    double busy_sum_ms;   /* sum of bursts' first request to last reply */
    uint64_t connects;    /* connections opened (each phase's first ones included) */
    int connections;      /* the engines' connections (their sum over phases) */
};
void player_bursts(const struct player *p, struct player_bursts *out);
/* Stops sending at once, waits for in-flight requests (those still out when the
 * timeout less 0.2 s has passed fail as timeouts), joins the threads: returns within
 * timeout_us. Idempotent. */
void player_stop(struct player *p);
void player_destroy(struct player *p); /* stops first; NULL is a no-op */

#endif
