/* loadgen/conn.h: the load engine. One loop per thread (epoll, edge-triggered) owns its
 * connections; threads share only the request tickets, the first response's length and
 * the live counters (atomics). Statistics are per thread and merged after join.
 *
 * Three ways to drive load:
 *  - closed model (no schedule): each connection sends its next request as soon as the
 *    previous response ends (ab, wrk);
 *  - open model (sched, calls_per_conn == 0): request k is due at sched_time_of(k)
 *    whatever the server does, on any idle connection; latency counts from that due
 *    time (coordinated omission corrected) and, separately, from the actual send;
 *  - sessions (sched, calls_per_conn > 0): connection k opens at sched_time_of(k), sends
 *    calls_per_conn requests one after another and closes (httperf --rate, autobench).
 * Every request has a deadline (timeout_us); the run ends at max_requests, at
 * duration_us, when the schedule ends, on SIGINT (conn_request_stop) or after more than
 * ten failed connects with no response (ab: "Test aborted after 10 failures").
 *
 * A run may also be steered while it runs through a struct conn_ctl (the load player:
 * loadgen/player.h); without one, nothing here changes what the CLI does. */
#ifndef LOADGEN_CONN_H
#define LOADGEN_CONN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "loadgen/sched.h"
#include "loadgen/stats.h"

/* Live control of a run by another thread, and its live figures. With a ctl:
 *  - stop: set by the controller; the run claims no new request, lets the requests in
 *    flight end (a response, a failure or their timeout, cut to the timeout less two
 *    ticks from the stop) and returns, within the timeout of the stop;
 *  - clients: closed model, how many of the connections may send (>= 0; the others close
 *    after their current response and wait); < 0: all. Raised, they start within one
 *    engine tick (0.1 s);
 *  - origin_us: open model, the conn_now_us() time the schedule's 0 stands for (0: the
 *    run's start), so that a schedule split over several runs keeps its timeline;
 *  - the run never aborts on connect failures: a closed-model connection whose connect
 *    failed retries at the next tick, and no "loadgen: ..." message is printed;
 *  - the figures below count every request of the run as it ends, under mu; a
 *    controller drains them with conn_ctl_take(). A ctl may serve runs one after another
 *    (not at once). */
struct req_mix;

struct conn_ctl {
    _Atomic int stop;
    _Atomic int clients;
    int64_t origin_us;
    pthread_mutex_t mu;
    uint64_t sent;       /* requests begun (a ticket taken) */
    uint64_t completed;  /* responses with status < 500 */
    uint64_t failed;     /* connect, send, receive, protocol errors, timeouts, status >= 500 */
    uint64_t status_5xx; /* of which responses with status >= 500 */
    struct cm_hist lat;  /* latency of the completed ones (µs; from the due time, open model) */
    double lat_mult;     /* each latency is recorded times this (set before a run; 0: 1): the
                            player's emulated-time latencies (docs/dataplane.md, Time) */
};

struct conn_ctl_counts {
    uint64_t sent, completed, failed, status_5xx;
};

/* clients -1, stop 0, origin 0, figures empty (lat: STATS_HIST_MAX_US, 3 digits). */
void conn_ctl_init(struct conn_ctl *ctl);
void conn_ctl_cleanup(struct conn_ctl *ctl);
/* Adds the figures since the previous take into *add and lat_add (same layout as
 * ctl->lat; may be NULL), and empties them. Safe while a run is going. */
void conn_ctl_take(struct conn_ctl *ctl, struct conn_ctl_counts *add, struct cm_hist *lat_add);
/* Counts a request begun, and one ended (status > 0: a response with that status; 0: a
 * failure; lat_us: its latency, recorded x lat_mult when it completed): for an engine
 * of another shape that reports through a ctl (loadgen/burst.c). */
void conn_ctl_sent(struct conn_ctl *ctl);
void conn_ctl_ended(struct conn_ctl *ctl, int status, int64_t lat_us);

struct conn_cfg {
    struct sockaddr_storage addr;
    socklen_t addrlen;
    void *tls_ctx;   /* SSL_CTX * for https, else NULL */
    const char *sni; /* TLS server name, or NULL */
    const char *req; /* the whole request, body included (borrowed) */
    size_t req_len;
    size_t body_len;           /* of which body (ab's "Total body sent") */
    int head;                  /* HEAD: responses carry no body */
    int keepalive;             /* reuse connections when the server allows */
    int threads;               /* >= 1 */
    int connections;           /* >= threads; split over threads */
    int max_connections;       /* open model (not sessions): when > connections, a thread
                                  whose due request finds no free connection opens one more,
                                  up to this many in all (split over threads) */
    uint64_t max_requests;     /* 0: no limit */
    int64_t duration_us;       /* 0: no limit */
    int64_t timeout_us;        /* per request, > 0 */
    const struct sched *sched; /* NULL: closed model */
    uint32_t calls_per_conn;   /* sessions when > 0 (with sched) */
    int max_open;              /* sessions: cap on open connections (0: 10000) */
    int record;                /* keep per-request records (ab's tables, -g) */
    uint64_t heartbeat;        /* print "Completed N requests" every N (0: never) */
    int recv_errors_ok;        /* ab -r: count receive errors and go on */
    int nolength;              /* ab -l: no length check */
    int live;                  /* live progress line on stderr (a TTY) */
    int verbosity;             /* ab -v: 2 prints each header read and non-2xx codes, 3 every
                                  code, on stdout as ab */
    int timeout_aborts;        /* ab: a request past timeout_us stops the run (as ab's poll
                                  timeout does); else it counts as failed and the run goes on */
    int64_t sample_us;         /* requests/s sampling period (0: 100 ms, as wrk) */
    int64_t think_us;          /* closed model: mean of an exponential think time between a
                                  response and the client's next request (0: none) */
    struct conn_ctl *ctl;      /* NULL: none (the CLI); see struct conn_ctl */
    struct req_mix *mix;       /* NULL: every request is req; else each request is the
                                  mix's next kind (loadgen/mix.h; req, head unused) */
};

struct conn_result {
    struct stats st;      /* merged over threads; duration_us set */
    int64_t doclen;       /* body length of the first response, -1 if none */
    char server[256];     /* Server header of the first response */
    char tls_info[128];   /* https: ab's "SSL/TLS Protocol" value (sock_tls_describe) */
    char tls_tmp_key[64]; /* https: ab's "Server Temp Key" value, or "" */
    uint64_t tls_handshakes, tls_resumed;
    int nthreads;               /* threads that ran */
    int pool;                   /* connections in use at the end (grown: > connections) */
    int64_t thread_cpu_us[256]; /* CPU time each thread used */
    uint64_t cpu_mask;          /* CPUs (0..63) the threads were seen running on */
    int aborted;                /* stopped early by an error (reason in why) */
    int interrupted;            /* stopped by SIGINT */
    char why[256];
};

/* Runs the load as cfg says, in cfg->threads threads, and fills res (stats_init'ed
 * here; the caller calls stats_cleanup(&res->st)). Returns 0, or -1 if it could not
 * start (threads, epoll), with a reason in res->why. */
int conn_run(const struct conn_cfg *cfg, struct conn_result *res);

/* Asks a running conn_run to stop (async-signal-safe). */
void conn_request_stop(void);

/* Monotonic clock in microseconds. */
int64_t conn_now_us(void);

#endif
