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
 * ten failed connects with no response (ab: "Test aborted after 10 failures"). */
#ifndef LOADGEN_CONN_H
#define LOADGEN_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "loadgen/sched.h"
#include "loadgen/stats.h"

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
};

struct conn_result {
    struct stats st;      /* merged over threads; duration_us set */
    int64_t doclen;       /* body length of the first response, -1 if none */
    char server[256];     /* Server header of the first response */
    char tls_info[128];   /* https: ab's "SSL/TLS Protocol" value (sock_tls_describe) */
    char tls_tmp_key[64]; /* https: ab's "Server Temp Key" value, or "" */
    uint64_t tls_handshakes, tls_resumed;
    int nthreads;               /* threads that ran */
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
