/* loadgen/burst.h: the persistent closed-burst engine of `loadgen scenario`'s player, for
 * closed bursts on the emulated clock (docs/dataplane.md, Time).
 *
 * One engine per closed-bursts phase, run in the phase's own thread from the phase's
 * start to its end. It opens its connections once (to the load balancer's listener,
 * keep-alive) and keeps them open across bursts; each burst releases `requests` tickets
 * to them (as `ab -n N -c C`: each connection sends its next request when its previous
 * reply ends, after the think time, while tickets last); the burst ends at its last reply
 * or failure, and the next one is released `gap_us` after that. So a burst costs no
 * thread and no connect. A connection the server closed (between bursts, or after a reply
 * that said `Connection: close`) is opened again at once, before the next burst needs it;
 * one whose connect failed is tried again after BURST_RECONNECT_US, and a ticket that
 * finds no connection then fails (so a burst against a dead listener ends, as ab's
 * does); a request the server dropped on a reused connection before a byte of its reply
 * came goes again on a new connection, uncounted (as ab and the load engine do).
 *
 * Gap keeping: the instances should see `gap_us` from a burst's last reply to the next
 * burst's first request written. Waking the engine at the release takes real time (timer
 * slack, a loaded host's scheduling): that is the burst's `start`, and each release comes
 * that much early by a running estimate (struct burst_clock, pure, unit-tested).
 *
 * Plain HTTP/1.1 only (the player's listeners are plain: TLS is the load balancer's). */
#ifndef LOADGEN_BURST_H
#define LOADGEN_BURST_H

#include <stdint.h>
#include <sys/socket.h>

#include "loadgen/conn.h"
#include "loadgen/player.h"

#define BURST_RECONNECT_US INT64_C(100000) /* after a failed connect */

struct burst_cfg {
    struct sockaddr_storage addr;
    socklen_t addrlen;
    const char *req; /* the whole request (borrowed) */
    size_t req_len;
    int keepalive;      /* 0: the request says Connection: close (a TCP listener) */
    int connections;    /* >= 1 */
    uint64_t requests;  /* per burst, >= 1 */
    int64_t gap_us;     /* real µs from a burst's last reply to the next's first request */
    int64_t think_us;   /* mean of an exponential think time after each reply (0: none) */
    int64_t timeout_us; /* per request (its connect included), > 0 */
    int64_t start_us;   /* conn_now_us() of the first release */
    int64_t end_us;     /* conn_now_us() at and after which no burst is released */
    /* figures (sent, completed, failed, latencies x lat_mult) as the load engine counts
     * them, and stop: no ticket is released after it, requests in flight end (a reply, a
     * failure, or the timeout less 0.2 s from the stop) and burst_run returns */
    struct conn_ctl *ctl;
    struct req_mix *mix; /* NULL: every request is req; else the mix's next kind each */
    /* Called (in the engine's thread) when its timer ran late_us >= late_min_us after it
     * was due, at now_us (conn_now_us()): the host kept the thread off the CPU (host
     * stalls, scaler/stall.h). NULL: not watched. */
    void (*on_late)(void *ud, int64_t now_us, int64_t late_us);
    void *late_ud;
    int64_t late_min_us;
};

/* The gap clock: when to release the next burst so that its first request is written
 * gap_us after the previous burst's last reply, given how late the releases have been
 * (start = first request written - planned release; an EWMA of weight 1/4). */
struct burst_clock {
    int64_t gap_us;
    double start_est_us;  /* the running estimate of a release's start */
    int64_t prev_last_us; /* the previous burst's last reply, 0: none */
};

void burst_clock_init(struct burst_clock *k, int64_t gap_us);
/* The planned release of the burst after one whose last reply came at last_us. */
int64_t burst_clock_next(const struct burst_clock *k, int64_t last_us);
/* A burst planned at go_us wrote its first request at first_us (0: none: every ticket
 * failed before a write) and ended at last_us: adds it to *b (bursts, gaps from the
 * previous burst's last reply, excess over gap_us, start, busy) and updates the
 * estimate. */
void burst_clock_record(struct burst_clock *k, struct player_bursts *b, int64_t go_us,
                        int64_t first_us, int64_t last_us);

/* Plays bursts from cfg->start_us until cfg->end_us or the ctl's stop; adds what it did to
 * *b (bursts, gaps, connects; b->gap_ms and b->connections set). Returns 0, or -1 with a
 * reason in err when it could not start (epoll, timerfd, sockets). */
int burst_run(const struct burst_cfg *cfg, struct player_bursts *b, char *err, size_t errlen);

#endif
