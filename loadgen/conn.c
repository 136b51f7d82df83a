/* loadgen/conn.c: see conn.h.
 *
 * Hot path (keep-alive, closed model): one read() takes the whole response into the
 * thread's buffer, the parser walks it in place, the next request is written at once
 * from the shared request bytes; no epoll_ctl, no allocation. Sockets are registered
 * once, edge-triggered, for input and output; a short read means the socket is empty. */
#include "loadgen/conn.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "common/units.h"
#include "common/xalloc.h"
#include "loadgen/mix.h"
#include "loadgen/resp.h"
#include "loadgen/sock.h"

#define RBUF_SIZE   65536
#define TICK_US     100000 /* rps samples, timeout scan, live counters */
#define TIMER_DATA  UINT64_MAX
#define MAX_EVENTS  256
#define ABORT_FAILS 10

enum conn_state {
    CS_CLOSED = 0,
    CS_CONNECTING,
    CS_HANDSHAKE,
    CS_WRITING,
    CS_READING,
    CS_READY,   /* open model: connected, no request outstanding */
    CS_CLOSING, /* response done, the server said it closes: waiting for its FIN */
    CS_THINK,   /* closed model with think time: connected, the client is thinking */
};

enum fail_kind {
    F_CONNECT,
    F_READ,
    F_LENGTH,
    F_EXCEPT,
    F_WRITE,
    F_TIMEOUT,
};

struct conn {
    struct sock s;
    uint32_t gen;
    uint32_t idx;
    uint8_t state;
    uint8_t reused;     /* a response already came on this TCP connection */
    uint8_t retry;      /* the current request keeps its ticket (idle close, retried) */
    uint8_t in_ready;   /* listed in the worker's ready stack */
    uint8_t in_pending; /* listed in the worker's pending list */
    uint8_t has_request;
    uint8_t thinking;  /* in the worker's think heap (connected or not) */
    uint8_t keep_kind; /* a request retried on a new connection: the same bytes go again */
    uint8_t head;      /* the current request is a HEAD */
    const char *req;   /* the current request (cfg->req, or its kind of cfg->mix) */
    size_t req_len;
    uint32_t calls_left;
    size_t written;
    int64_t t_start;   /* closed: ab's request start; open: due time */
    int64_t t_sent;    /* write began */
    int64_t t_connect; /* connection up (== t_start on a reused connection) */
    int64_t t_endwrite;
    int64_t t_first;
    int64_t deadline;
    int64_t wake; /* thinking: when the client sends its next request */
    struct resp r;
    char *vlog; /* -v 2: the bytes of this response's header so far (ab's cbuff) */
    uint16_t vlog_len;
};

struct shared {
    const struct conn_cfg *cfg;
    _Atomic uint64_t tickets;
    _Atomic int64_t doclen;
    _Atomic uint64_t hb_done;
    _Atomic uint64_t live_done, live_err;
    _Atomic int64_t live_p99;
    _Atomic int connect_fails;
    _Atomic int any_ok;
    _Atomic int abort;
    _Atomic int finished;
    _Atomic int once_msgs; /* bit per message kind printed once */
    char why[256];
    int64_t t0;
    int64_t end;
    int64_t sched_t0; /* open model: the schedule's 0 (t0, or the ctl's origin) */
    int nthreads;
};

struct worker {
    struct shared *sh;
    const struct conn_cfg *cfg;
    struct conn_ctl *ctl; /* cfg->ctl */
    int allowed;          /* closed model: connections [0, allowed) may send */
    int ctl_stopped;      /* the ctl's stop was seen */
    int clients_seen;     /* the ctl's clients that gave `allowed` */
    pthread_t tid;
    int id;
    int epfd, tfd;
    struct conn *c;
    int nc;
    int *ready;
    int nready;
    int *freeslots;
    int nfree;
    int *pending; /* closed connections to (re)open at the next turn of the loop */
    int npending;
    int pool;     /* slots [0, pool) are the connections in use; open model: grows to nc */
    int grow_idx; /* the slot last added by grow(), -1 none */
    int stopping_all;
    int reopen_at_tick;
    uint64_t live_done_pub, live_err_pub;
    int64_t sample_us;
    int last_sample_tick;
    int64_t cpu_us;
    uint64_t cpu_mask;
    int active;   /* connections not closed */
    int busy;     /* requests outstanding (open model) */
    int stopping; /* no more tickets */
    int sched_over;
    int open_model, sessions;
    uint64_t k;  /* open model: this thread's next event index (global k = id + T*j) */
    int64_t due; /* its due time, absolute */
    int64_t armed;
    int *think; /* closed model with think time: heap of connections by wake */
    int nthink;
    uint64_t rng;
    int64_t now;
    int64_t last_done;
    int64_t next_tick, tick_t;
    uint64_t tick_done;
    int ended_by_time;
    int got_ok;
    const struct sock_ops *ops;
    struct sock_tls_cache tls;
    char server[256];
    char tls_info[128], tls_tmp_key[64];
    struct stats st;
    char rbuf[RBUF_SIZE];
};

static volatile sig_atomic_t stop_requested;

void conn_request_stop(void)
{
    stop_requested = 1;
}

int64_t conn_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void conn_ctl_init(struct conn_ctl *ctl)
{
    memset(ctl, 0, sizeof(*ctl));
    atomic_store(&ctl->stop, 0);
    atomic_store(&ctl->clients, -1);
    pthread_mutex_init(&ctl->mu, NULL);
    cm_hist_init(&ctl->lat, STATS_HIST_MAX_US, STATS_HIST_DIGITS);
}

void conn_ctl_cleanup(struct conn_ctl *ctl)
{
    cm_hist_cleanup(&ctl->lat);
    pthread_mutex_destroy(&ctl->mu);
}

void conn_ctl_take(struct conn_ctl *ctl, struct conn_ctl_counts *add, struct cm_hist *lat_add)
{
    pthread_mutex_lock(&ctl->mu);
    add->sent += ctl->sent;
    add->completed += ctl->completed;
    add->failed += ctl->failed;
    add->status_5xx += ctl->status_5xx;
    ctl->sent = ctl->completed = ctl->failed = ctl->status_5xx = 0;
    if (lat_add)
        cm_hist_merge(lat_add, &ctl->lat);
    cm_hist_reset(&ctl->lat);
    pthread_mutex_unlock(&ctl->mu);
}

void conn_ctl_sent(struct conn_ctl *ctl)
{
    pthread_mutex_lock(&ctl->mu);
    ctl->sent++;
    pthread_mutex_unlock(&ctl->mu);
}

void conn_ctl_ended(struct conn_ctl *ctl, int status, int64_t lat_us)
{
    pthread_mutex_lock(&ctl->mu);
    if (status >= 500) {
        ctl->failed++;
        ctl->status_5xx++;
    } else if (status > 0) {
        ctl->completed++;
        cm_hist_record(&ctl->lat, ctl->lat_mult > 0 && ctl->lat_mult != 1
                                      ? llround((double)lat_us * ctl->lat_mult)
                                      : lat_us);
    } else {
        ctl->failed++;
    }
    pthread_mutex_unlock(&ctl->mu);
}

/* Prints "loadgen: <what>" once per run for each kind of trouble (bit). */
static void msg_once(struct worker *w, int bit, const char *what)
{
    int old;

    if (w->ctl)
        return; /* the controller reports failures its own way */
    old = atomic_fetch_or(&w->sh->once_msgs, 1 << bit);

    if (!(old & (1 << bit))) {
        fprintf(stderr, "loadgen: %s\n", what);
        fflush(stderr);
    }
}

static void set_abort(struct worker *w, const char *why)
{
    int expect = 0;

    if (atomic_compare_exchange_strong(&w->sh->abort, &expect, 1))
        snprintf(w->sh->why, sizeof(w->sh->why), "%s", why);
}

static int claim(struct worker *w)
{
    uint64_t max = w->cfg->max_requests;

    if (w->stopping)
        return 0;
    if (max && atomic_fetch_add_explicit(&w->sh->tickets, 1, memory_order_relaxed) >= max) {
        w->stopping = 1;
        return 0;
    }
    if (w->ctl)
        conn_ctl_sent(w->ctl);
    w->st.sent++;
    return 1;
}

static uint64_t ev_data(const struct conn *c)
{
    return (uint64_t)c->idx | ((uint64_t)c->gen << 32);
}

static void conn_close(struct worker *w, struct conn *c)
{
    if (c->state == CS_CLOSED)
        return;
    w->ops->close(&c->s);
    c->state = CS_CLOSED;
    c->gen++;
    c->reused = 0;
    w->active--;
}

static void open_conn(struct worker *w, struct conn *c);
static void send_request(struct worker *w, struct conn *c);
static void on_response(struct worker *w, struct conn *c, int eof, int leftover);

static void push_pending(struct worker *w, struct conn *c)
{
    if (c->in_pending)
        return;
    c->in_pending = 1;
    w->pending[w->npending++] = (int)c->idx;
}

/* The server closed an idle keep-alive connection before this request got a byte: the
 * request keeps its ticket and goes again on a new connection, uncounted (as ab). */
static void retry_on_new_conn(struct worker *w, struct conn *c)
{
    conn_close(w, c);
    c->retry = 1;
    c->keep_kind = 1;
    push_pending(w, c);
}

static void push_ready(struct worker *w, struct conn *c)
{
    c->state = CS_READY;
    if (!c->in_ready) {
        c->in_ready = 1;
        w->ready[w->nready++] = (int)c->idx;
    }
}

/* ---- think time (closed model): a heap of connections by wake time ---- */

static int think_less(const struct worker *w, int a, int b)
{
    return w->c[w->think[a]].wake < w->c[w->think[b]].wake;
}

static void think_swap(struct worker *w, int a, int b)
{
    int t = w->think[a];

    w->think[a] = w->think[b];
    w->think[b] = t;
}

/* The client of c thinks (an exponential time of mean think_us) before its next request. */
static void think_push(struct worker *w, struct conn *c)
{
    double u;
    int i;

    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    u = ((double)(w->rng >> 11) + 1.0) / 9007199254740993.0; /* (0, 1] */
    c->wake = w->now + (int64_t)(-(double)w->cfg->think_us * log(u));
    c->thinking = 1;
    c->deadline = INT64_MAX;
    i = w->nthink++;
    w->think[i] = (int)c->idx;
    while (i > 0 && think_less(w, i, (i - 1) / 2)) {
        think_swap(w, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static struct conn *think_pop(struct worker *w)
{
    struct conn *c = &w->c[w->think[0]];
    int i = 0;

    w->think[0] = w->think[--w->nthink];
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < w->nthink && think_less(w, l, m))
            m = l;
        if (r < w->nthink && think_less(w, r, m))
            m = r;
        if (m == i)
            break;
        think_swap(w, i, m);
        i = m;
    }
    c->thinking = 0;
    return c;
}

/* What a connection does once its request ended (response or failure). keep: the TCP
 * connection is still usable; failed_connect: the connect itself failed. */
static void next_step(struct worker *w, struct conn *c, int keep, int failed_connect)
{
    if (!keep)
        conn_close(w, c);
    if (w->sessions) {
        if (keep && c->calls_left > 0 && !w->stopping_all) {
            c->t_start = w->now;
            c->t_connect = w->now;
            send_request(w, c);
            return;
        }
        conn_close(w, c);
        w->busy--;
        w->freeslots[w->nfree++] = (int)c->idx;
        return;
    }
    if (w->open_model) {
        if (keep) {
            push_ready(w, c);
        } else if (!w->stopping && !w->sched_over) {
            if (failed_connect)
                w->reopen_at_tick = 1; /* no reconnect storm against a dead server */
            else
                push_pending(w, c);
        }
        return;
    }
    /* closed model */
    if (w->cfg->think_us > 0 && !failed_connect) {
        /* the next request (a ticket) is claimed when the thinking ends */
        if ((int)c->idx >= w->allowed || w->stopping) {
            conn_close(w, c);
            return;
        }
        if (keep)
            c->state = CS_THINK;
        else
            conn_close(w, c);
        c->retry = 0;
        think_push(w, c);
        return;
    }
    if (keep) {
        if ((int)c->idx < w->allowed && claim(w)) {
            c->t_start = w->now;
            c->t_connect = w->now;
            send_request(w, c);
        } else {
            conn_close(w, c);
        }
        return;
    }
    c->retry = 0;
    if (failed_connect && w->ctl) {
        w->reopen_at_tick = 1; /* no reconnect storm: the run goes on whatever happens */
        return;
    }
    push_pending(w, c);
}

static void fail(struct worker *w, struct conn *c, enum fail_kind kind, int err)
{
    struct shared *sh = w->sh;
    char why[200];
    int was_connect = kind == F_CONNECT;

    /* a closed-model connection always holds a request's ticket; an open-model one only
     * while a request is out */
    if (w->ctl && (!w->open_model || c->has_request))
        conn_ctl_ended(w->ctl, 0, 0);
    c->keep_kind = 0; /* its request ended: the next one takes the mix's next kind */
    switch (kind) {
    case F_CONNECT:
        w->st.err_connect++;
        snprintf(why, sizeof(why), "connect: %s (%d)", strerror(err), err);
        msg_once(w, 0, why);
        if (atomic_fetch_add(&sh->connect_fails, 1) + 1 > ABORT_FAILS &&
            !atomic_load(&sh->any_ok) && !w->ctl)
            set_abort(w, "Test aborted after 10 failures");
        break;
    case F_READ:
        w->st.err_read++;
        if (err) {
            snprintf(why, sizeof(why), "apr_socket_recv: %s (%d)", strerror(err), err);
            if (!w->cfg->recv_errors_ok)
                set_abort(w, why); /* ab exits with this line */
            else if (w->cfg->verbosity >= 1)
                fprintf(stderr, "%s\n", why); /* ab -r -v 1: each one */
            else
                msg_once(w, 1, why);
        } else {
            msg_once(w, 2, "the server closed a connection before replying");
        }
        break;
    case F_LENGTH:
        w->st.err_length++;
        msg_once(w, 3, "the server closed a connection in the middle of a response");
        break;
    case F_EXCEPT:
        w->st.err_except++;
        snprintf(why, sizeof(why), "invalid response: %s", resp_error_str(c->r.error));
        msg_once(w, 4, why);
        break;
    case F_WRITE:
        w->st.err_write++;
        snprintf(why, sizeof(why), "send: %s (%d)", strerror(err), err);
        msg_once(w, 5, why);
        break;
    case F_TIMEOUT:
        w->st.err_timeout++;
        if (w->cfg->timeout_aborts)
            set_abort(w, "apr_pollset_poll: The timeout specified has expired (70007)");
        else
            msg_once(w, 6, "a request timed out (see -s / --timeout)");
        break;
    }
    if (w->open_model && !w->sessions && c->state != CS_READY && c->state != CS_CLOSED &&
        c->state != CS_CLOSING && c->has_request)
        w->busy--;
    c->has_request = 0;
    next_step(w, c, 0, was_connect);
}

static void after_connect(struct worker *w, struct conn *c)
{
    if (w->open_model && !w->sessions) {
        push_ready(w, c);
        return;
    }
    send_request(w, c);
}

static void do_handshake(struct worker *w, struct conn *c)
{
    enum sock_status st = w->ops->handshake(&c->s);

    if (st == SOCK_RETRY)
        return;
    if (st == SOCK_ERROR) {
        fail(w, c, F_CONNECT, errno ? errno : EPROTO);
        return;
    }
    if (!w->tls_info[0])
        sock_tls_describe(&c->s, w->tls_info, sizeof(w->tls_info), w->tls_tmp_key,
                          sizeof(w->tls_tmp_key));
    c->t_connect = w->now;
    after_connect(w, c);
}

static void on_connected(struct worker *w, struct conn *c)
{
    c->t_connect = w->now;
    if (w->cfg->tls_ctx) {
        if (sock_tls_attach(&c->s, &w->tls) < 0) {
            fail(w, c, F_CONNECT, EPROTO);
            return;
        }
        c->state = CS_HANDSHAKE;
        do_handshake(w, c);
        return;
    }
    after_connect(w, c);
}

static void open_conn(struct worker *w, struct conn *c)
{
    const struct conn_cfg *cfg = w->cfg;
    struct epoll_event ev;
    int fd, one = 1;

    fd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        char why[160];
        snprintf(why, sizeof(why), "socket: %s (%d)", strerror(errno), errno);
        set_abort(w, why);
        return;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->s.fd = fd;
    c->s.ssl = NULL;
    c->state = CS_CONNECTING;
    c->reused = 0;
    c->has_request = 0;
    c->deadline = w->now + cfg->timeout_us;
    w->active++;
    w->st.connects++;
    ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    ev.data.u64 = ev_data(c);
    if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        fail(w, c, F_CONNECT, errno);
        return;
    }
    if (connect(fd, (const struct sockaddr *)&cfg->addr, cfg->addrlen) == 0) {
        on_connected(w, c);
        return;
    }
    if (errno != EINPROGRESS)
        fail(w, c, F_CONNECT, errno);
}

static void do_write(struct worker *w, struct conn *c)
{
    const struct conn_cfg *cfg = w->cfg;

    while (c->written < c->req_len) {
        size_t n = 0;
        enum sock_status st =
            w->ops->write(&c->s, c->req + c->written, c->req_len - c->written, &n);
        if (st == SOCK_RETRY)
            return;
        if (st == SOCK_ERROR) {
            int err = errno;
            if (c->reused && c->written == 0 && !w->open_model) {
                retry_on_new_conn(w, c);
                return;
            }
            fail(w, c, F_WRITE, err);
            return;
        }
        c->written += n;
    }
    c->t_endwrite = w->now;
    c->state = CS_READING;
    w->st.bytes_sent += c->req_len;
    w->st.body_sent += cfg->body_len;
}

/* The bytes of c's next request: the run's one request, or the mix's next kind (a
 * request retried on a new connection keeps its kind, so the mix's counts stay exact). */
static void pick_request(const struct worker *w, struct conn *c)
{
    const struct conn_cfg *cfg = w->cfg;
    const struct req_kind *k;

    if (!cfg->mix) {
        c->req = cfg->req;
        c->req_len = cfg->req_len;
        c->head = (uint8_t)cfg->head;
        return;
    }
    if (c->keep_kind && c->req) {
        c->keep_kind = 0;
        return;
    }
    c->keep_kind = 0;
    k = req_mix_next(cfg->mix);
    c->req = k->req;
    c->req_len = k->len;
    c->head = (uint8_t)k->head;
}

static void send_request(struct worker *w, struct conn *c)
{
    c->t_sent = w->now;
    c->written = 0;
    c->has_request = 1;
    c->vlog_len = 0;
    pick_request(w, c);
    resp_begin(&c->r, c->head);
    if (!w->server[0]) {
        c->r.server = w->server;
        c->r.server_cap = sizeof(w->server);
    } else {
        c->r.server_cap = 0;
    }
    c->state = CS_WRITING;
    c->deadline = w->now + w->cfg->timeout_us;
    do_write(w, c);
}

static void on_eof(struct worker *w, struct conn *c)
{
    enum resp_result res = resp_eof(&c->r);

    if (res == RESP_DONE) {
        on_response(w, c, 1, 0);
        return;
    }
    if (res == RESP_MORE) { /* not a byte of this response came */
        if (c->reused && !w->open_model) {
            retry_on_new_conn(w, c);
            return;
        }
        fail(w, c, F_READ, 0);
        return;
    }
    fail(w, c, c->r.got_header ? F_LENGTH : F_READ, 0);
}

/* ab -v 2: each read while the header is incomplete prints all of this response read so
 * far (up to ab's 8 KiB header buffer, as a C string); -v 2 the code when not 2xx, -v 3
 * every code, once the header is complete. */
static void log_read(struct worker *w, struct conn *c, size_t n)
{
    size_t room;

    if (!c->vlog)
        c->vlog = cm_xmalloc(8192);
    room = 8191 - c->vlog_len;
    if (n > room)
        n = room;
    memcpy(c->vlog + c->vlog_len, w->rbuf, n);
    c->vlog_len = (uint16_t)(c->vlog_len + n);
    c->vlog[c->vlog_len] = '\0';
    printf("LOG: header received:\n%s\n", c->vlog);
}

static void log_status(const struct resp *r, int verbosity)
{
    if (r->status < 200 || r->status > 299)
        printf("WARNING: Response code not 2xx (%d)\n", r->status);
    else if (verbosity >= 3)
        printf("LOG: Response code = %d\n", r->status);
}

static void do_read(struct worker *w, struct conn *c, int peer_closed)
{
    for (;;) {
        size_t n = 0, used = 0;
        enum sock_status st = w->ops->read(&c->s, w->rbuf, RBUF_SIZE, &n);
        enum resp_result res;

        if (st == SOCK_RETRY)
            return;
        if (st == SOCK_ERROR) {
            int err = errno;
            if (c->reused && !resp_started(&c->r) && !w->open_model && err == ECONNRESET) {
                retry_on_new_conn(w, c);
                return;
            }
            fail(w, c, F_READ, err);
            return;
        }
        if (n == 0) {
            on_eof(w, c);
            return;
        }
        if (!resp_started(&c->r))
            c->t_first = w->now;
        w->st.bytes_read += n;
        if (w->cfg->verbosity >= 2 && !c->r.got_header) {
            log_read(w, c, n);
            res = resp_feed(&c->r, w->rbuf, n, &used);
            if (c->r.got_header)
                log_status(&c->r, w->cfg->verbosity);
        } else {
            res = resp_feed(&c->r, w->rbuf, n, &used);
        }
        if (res == RESP_DONE) {
            on_response(w, c, 0, used < n);
            return;
        }
        if (res == RESP_ERROR) {
            if (w->cfg->verbosity >= 2)
                fprintf(stderr, "loadgen: %s\n", resp_error_str(c->r.error));
            fail(w, c, F_EXCEPT, 0);
            return;
        }
        if (n < RBUF_SIZE && !c->s.ssl && !peer_closed)
            return; /* a short read: the socket is empty (no FIN pending either) */
    }
}

/* The server said it will close: wait for its FIN so that the TIME_WAIT stays on its
 * side (as ab does), unless it is already here. */
static void await_close(struct worker *w, struct conn *c)
{
    size_t n = 0;
    enum sock_status st = w->ops->read(&c->s, w->rbuf, RBUF_SIZE, &n);

    if (st == SOCK_RETRY) {
        c->state = CS_CLOSING;
        c->deadline = w->now + w->cfg->timeout_us;
        return;
    }
    next_step(w, c, 0, 0);
}

static void on_response(struct worker *w, struct conn *c, int eof, int leftover)
{
    const struct conn_cfg *cfg = w->cfg;
    struct shared *sh = w->sh;
    struct resp *r = &c->r;
    int64_t now = w->now, lat = now - c->t_start;
    int keep;

    w->st.done++;
    w->last_done = now;
    if (!w->got_ok) {
        w->got_ok = 1;
        atomic_store(&sh->any_ok, 1);
    }
    cm_hist_record(&w->st.lat, lat < 0 ? 0 : lat);
    if (w->ctl)
        conn_ctl_ended(w->ctl, r->status > 0 ? r->status : 1, lat < 0 ? 0 : lat);
    if (w->open_model)
        cm_hist_record(&w->st.lat_uncorr, now - c->t_sent);
    w->st.body_read += r->body_bytes;
    if (r->status < 200 || r->status > 299)
        w->st.non2xx++;
    if (r->status >= 400)
        w->st.status_err++;
    {
        int64_t want = atomic_load_explicit(&sh->doclen, memory_order_relaxed);
        int64_t got = (int64_t)r->body_bytes;
        if (want < 0) {
            int64_t expect = -1;
            if (!atomic_compare_exchange_strong(&sh->doclen, &expect, got))
                want = expect;
            else
                want = got;
        }
        if (want != got && !cfg->nolength)
            w->st.err_length++;
    }
    if (cfg->keepalive && r->keep_alive)
        w->st.doneka++;
    if (cfg->record) {
        struct stats_rec rec;
        rec.start_us = c->t_start - sh->t0;
        rec.ctime_us = (int32_t)(c->t_connect - c->t_start);
        rec.time_us = (int32_t)lat;
        rec.wait_us = (int32_t)(c->t_first - c->t_endwrite);
        if (rec.ctime_us < 0)
            rec.ctime_us = 0;
        if (rec.wait_us < 0)
            rec.wait_us = 0;
        stats_rec_add(&w->st, &rec);
    }
    if (cfg->heartbeat) {
        uint64_t d = atomic_fetch_add(&sh->hb_done, 1) + 1;
        if (d % cfg->heartbeat == 0) {
            fprintf(stderr, "Completed %llu requests\n", (unsigned long long)d);
            fflush(stderr);
        }
    }
    c->has_request = 0;
    if (w->open_model && !w->sessions)
        w->busy--;
    if (w->sessions && c->calls_left > 0)
        c->calls_left--;
    keep = cfg->keepalive && r->keep_alive && !eof && !leftover;
    if (keep) {
        c->reused = 1;
        next_step(w, c, 1, 0);
    } else if (!eof && !leftover && !r->keep_alive && !c->s.ssl) {
        await_close(w, c);
    } else {
        next_step(w, c, 0, 0);
    }
}

static void on_event(struct worker *w, struct conn *c, uint32_t ev)
{
    switch (c->state) {
    case CS_CONNECTING:
        if (ev & (EPOLLERR | EPOLLHUP)) {
            int err = 0;
            socklen_t len = sizeof(err);
            getsockopt(c->s.fd, SOL_SOCKET, SO_ERROR, &err, &len);
            fail(w, c, F_CONNECT, err ? err : ECONNREFUSED);
        } else if (ev & EPOLLOUT) {
            on_connected(w, c);
        }
        return;
    case CS_HANDSHAKE:
        do_handshake(w, c);
        return;
    case CS_WRITING:
        if (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))
            do_write(w, c);
        return;
    case CS_READING:
        if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
            do_read(w, c, (ev & (EPOLLRDHUP | EPOLLHUP)) != 0);
        return;
    case CS_THINK:
        if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
            conn_close(w, c); /* still thinking: it connects again when it wakes */
        return;
    case CS_READY:
    case CS_CLOSING:
        if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
            /* an idle connection the server closed (or wrote to unasked) */
            int was_closing = c->state == CS_CLOSING;
            conn_close(w, c);
            if (was_closing)
                next_step(w, c, 0, 0);
            else if (!w->stopping && !w->sched_over)
                push_pending(w, c);
        }
        return;
    default:
        return;
    }
}

static void advance(struct worker *w)
{
    int64_t t;

    w->k += (uint64_t)w->cfg->threads;
    t = sched_time_of(w->cfg->sched, w->k);
    if (t < 0)
        w->sched_over = 1;
    else
        w->due = w->sh->sched_t0 + t;
}

/* Open model: a request is due and no connection is free. The pool takes one more
 * connection, up to its cap (cfg->max_connections), once the server has answered (no
 * pool grows against a dead server) and while no connection it added is still connecting
 * (one at a time per thread, each in a connect's time). */
static void grow(struct worker *w)
{
    if (w->pool >= w->nc || w->stopping || w->sched_over || !w->got_ok)
        return;
    if (w->grow_idx >= 0) {
        uint8_t st = w->c[w->grow_idx].state;
        if (st == CS_CONNECTING || st == CS_HANDSHAKE)
            return;
    }
    w->grow_idx = w->pool;
    open_conn(w, &w->c[w->pool++]);
}

static void dispatch(struct worker *w)
{
    while (!w->sched_over && !w->stopping && w->due <= w->now) {
        struct conn *c;

        if (w->sessions) {
            if (!w->nfree || !claim(w))
                break;
            c = &w->c[w->freeslots[--w->nfree]];
            c->calls_left = w->cfg->calls_per_conn;
            c->t_start = w->due;
            c->retry = 0;
            w->busy++;
            advance(w);
            open_conn(w, c);
            continue;
        }
        while (w->nready) {
            c = &w->c[w->ready[w->nready - 1]];
            if (c->state == CS_READY)
                break;
            c->in_ready = 0; /* stale: it was closed or is busy */
            w->nready--;
        }
        if (!w->nready) {
            grow(w);
            break;
        }
        if (!claim(w))
            break;
        w->nready--;
        c->in_ready = 0;
        c->t_start = w->due;
        w->busy++;
        advance(w);
        send_request(w, c);
    }
}

static void run_pending(struct worker *w)
{
    int n = w->npending;

    w->npending = 0;
    for (int i = 0; i < n; i++) {
        struct conn *c = &w->c[w->pending[i]];

        c->in_pending = 0;
        if (c->state != CS_CLOSED || c->thinking || w->stopping_all)
            continue;
        if (w->open_model) {
            if (!w->stopping && !w->sched_over)
                open_conn(w, c);
            continue;
        }
        if (!c->retry && ((int)c->idx >= w->allowed || !claim(w)))
            continue;
        c->retry = 0;
        c->t_start = w->now;
        open_conn(w, c);
    }
}

static void tick(struct worker *w)
{
    struct shared *sh = w->sh;
    int64_t dt = w->now - w->tick_t;

    if (dt >= w->sample_us && w->now <= sh->end) {
        uint64_t d = w->st.done - w->tick_done;
        cm_hist_record(&w->st.rps, (int64_t)((double)d * 1e6 / (double)dt));
    }
    w->next_tick = w->now + TICK_US;
    {
        int cpu = sched_getcpu();
        if (cpu >= 0)
            w->cpu_mask |= UINT64_C(1) << (cpu & 63);
    }
    if (dt >= w->sample_us || !w->last_sample_tick) {
        w->tick_t = w->now;
        w->tick_done = w->st.done;
    }
    w->last_sample_tick = 1;
    for (int i = 0; i < w->nc; i++) {
        struct conn *c = &w->c[i];

        if (c->state == CS_CLOSED || c->state == CS_READY || c->state == CS_THINK ||
            c->deadline > w->now)
            continue;
        if (c->state == CS_CLOSING) {
            conn_close(w, c);
            next_step(w, c, 0, 0);
        } else {
            fail(w, c, F_TIMEOUT, 0);
        }
    }
    if (w->reopen_at_tick) {
        w->reopen_at_tick = 0;
        for (int i = 0; i < w->pool && !w->sessions; i++)
            if (w->c[i].state == CS_CLOSED && !w->c[i].thinking)
                push_pending(w, &w->c[i]);
    }
    if (w->id == 0 || w->cfg->live) {
        atomic_fetch_add(&sh->live_done, w->st.done - w->live_done_pub);
        atomic_fetch_add(&sh->live_err, stats_failed(&w->st) - w->live_err_pub);
        w->live_done_pub = w->st.done;
        w->live_err_pub = stats_failed(&w->st);
        if (w->cfg->live) {
            int64_t p99 = cm_hist_percentile(&w->st.lat, 99.0);
            if (p99 > atomic_load(&sh->live_p99))
                atomic_store(&sh->live_p99, p99);
        }
    }
}

static void arm_timer(struct worker *w)
{
    struct itimerspec its;
    int64_t at = w->due;

    if (w->nthink) {
        at = w->c[w->think[0]].wake;
    } else if (w->sched_over) {
        return;
    }
    if (w->tfd < 0 || at <= w->now || at == w->armed)
        return;
    memset(&its, 0, sizeof(its));
    its.it_value.tv_sec = at / 1000000;
    its.it_value.tv_nsec = (at % 1000000) * 1000;
    if (timerfd_settime(w->tfd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
        w->armed = at;
}

/* Clients whose thinking ended send (on their connection, or on a new one). */
static void think_wake(struct worker *w)
{
    while (w->nthink && w->c[w->think[0]].wake <= w->now) {
        struct conn *c = think_pop(w);
        int go = (int)c->idx < w->allowed && claim(w);

        if (c->state == CS_THINK) {
            if (!go) {
                conn_close(w, c);
                continue;
            }
            c->t_start = w->now;
            c->t_connect = w->now;
            send_request(w, c);
        } else if (c->state == CS_CLOSED && go) {
            c->t_start = w->now;
            open_conn(w, c);
        }
    }
}

static int finished(struct worker *w)
{
    if (w->npending)
        return 0;
    if (w->open_model)
        return (w->sched_over || w->stopping) && w->busy == 0;
    if (w->ctl)
        return w->active == 0 && w->stopping; /* waiting connections are not the end */
    return w->active == 0 && w->nthink == 0;
}

/* The share of a closed run's sending connections this worker holds. */
static int share_of(const struct worker *w, int clients)
{
    int T = w->sh->nthreads, a;

    if (clients < 0)
        return w->nc;
    a = clients / T + (w->id < clients % T);
    return a < w->nc ? a : w->nc;
}

/* Follows the ctl: stop, and the closed model's clients. */
static void ctl_poll(struct worker *w)
{
    struct conn_ctl *ctl = w->ctl;
    int cl;

    if (!w->ctl_stopped && atomic_load_explicit(&ctl->stop, memory_order_relaxed)) {
        /* the run ends within the timeout of the stop: deadlines are checked each tick,
         * so requests in flight get at most the timeout less two ticks from now */
        int64_t cut = w->now + w->cfg->timeout_us - 2 * TICK_US;

        w->ctl_stopped = 1;
        w->stopping = 1;
        if (cut < w->now)
            cut = w->now;
        for (int i = 0; i < w->nc; i++) {
            struct conn *c = &w->c[i];
            if (c->state == CS_THINK)
                conn_close(w, c); /* its next request will not be sent */
            else if (c->state != CS_CLOSED && c->state != CS_READY && c->deadline > cut)
                c->deadline = cut;
        }
    }
    if (w->open_model)
        return;
    cl = atomic_load_explicit(&ctl->clients, memory_order_relaxed);
    if (cl != w->clients_seen) {
        int old = w->allowed;
        w->clients_seen = cl;
        w->allowed = share_of(w, cl);
        for (int i = old; i < w->allowed; i++)
            if (w->c[i].state == CS_CLOSED && !w->c[i].thinking)
                push_pending(w, &w->c[i]);
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct shared *sh = w->sh;
    struct epoll_event evs[MAX_EVENTS];

    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    w->now = conn_now_us();
    w->tick_t = w->now;
    w->next_tick = w->now + TICK_US;
    w->allowed = w->nc;
    if (w->ctl) {
        w->clients_seen = atomic_load(&w->ctl->clients);
        w->allowed = share_of(w, w->clients_seen);
        w->stopping = atomic_load(&w->ctl->stop);
    }
    if (w->open_model) {
        w->k = (uint64_t)w->id;
        w->due = sh->sched_t0 + sched_time_of(w->cfg->sched, w->k);
        if (sched_time_of(w->cfg->sched, w->k) < 0)
            w->sched_over = 1;
        if (!w->sessions)
            for (int i = 0; i < w->pool; i++)
                open_conn(w, &w->c[i]);
    } else {
        for (int i = 0; i < w->allowed; i++) {
            if (!claim(w))
                break;
            w->c[i].t_start = w->now;
            open_conn(w, &w->c[i]);
        }
    }
    for (;;) {
        int n, ms;
        int64_t until;

        if (stop_requested || atomic_load_explicit(&sh->abort, memory_order_relaxed))
            break;
        if (w->now >= sh->end) {
            w->ended_by_time = 1;
            break;
        }
        if (w->ctl)
            ctl_poll(w);
        if (w->npending)
            run_pending(w);
        if (w->open_model)
            dispatch(w);
        else if (w->nthink)
            think_wake(w);
        if (finished(w))
            break;
        arm_timer(w);
        until = w->next_tick < sh->end ? w->next_tick : sh->end;
        ms = w->npending ? 0 : (int)((until - w->now + 999) / 1000);
        if (ms < 0)
            ms = 0;
        n = epoll_wait(w->epfd, evs, MAX_EVENTS, ms);
        w->now = conn_now_us();
        for (int i = 0; i < n; i++) {
            uint64_t d = evs[i].data.u64;
            struct conn *c;

            if (d == TIMER_DATA) {
                uint64_t x;
                if (read(w->tfd, &x, sizeof(x)) < 0)
                    x = 0;
                w->armed = 0;
                continue;
            }
            c = &w->c[(uint32_t)d];
            if ((uint32_t)(d >> 32) != c->gen || c->state == CS_CLOSED)
                continue; /* an event for an earlier connection in this slot */
            if (i)
                w->now = conn_now_us();
            on_event(w, c, evs[i].events);
            if (w->open_model && w->nready)
                dispatch(w);
        }
        if (w->now >= w->next_tick)
            tick(w);
    }
    w->now = conn_now_us();
    if (w->ended_by_time || stop_requested || atomic_load(&sh->abort) || !w->last_done)
        w->st.duration_us = (w->now < sh->end ? w->now : sh->end) - sh->t0;
    else
        w->st.duration_us = w->last_done - sh->t0;
    w->stopping_all = 1;
    for (int i = 0; i < w->nc; i++)
        conn_close(w, &w->c[i]);
    {
        int64_t dt = w->now - w->tick_t;
        if (dt >= w->sample_us / 2 && w->st.rps.total == 0)
            cm_hist_record(&w->st.rps,
                           (int64_t)((double)(w->st.done - w->tick_done) * 1e6 / (double)dt));
    }
    atomic_fetch_add(&sh->live_done, w->st.done - w->live_done_pub);
    w->live_done_pub = w->st.done;
    {
        struct timespec ts;
        int cpu = sched_getcpu();
        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
            w->cpu_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
        if (cpu >= 0)
            w->cpu_mask |= UINT64_C(1) << (cpu & 63);
    }
    atomic_fetch_add(&sh->finished, 1);
    return NULL;
}

static void live_line(const struct conn_cfg *cfg, struct shared *sh, int64_t now, uint64_t *prev,
                      int64_t *prev_t)
{
    uint64_t d = atomic_load(&sh->live_done);
    double secs = (double)(now - sh->t0) / 1e6, rate = 0;
    char p99[32];

    if (now > *prev_t)
        rate = (double)(d - *prev) * 1e6 / (double)(now - *prev_t);
    *prev = d;
    *prev_t = now;
    cm_duration_format(atomic_load(&sh->live_p99), p99, sizeof(p99));
    fprintf(stderr, "\r\033[K  %6.1fs  %10.0f req/s  p99 %-9s  errors %llu", secs, rate, p99,
            (unsigned long long)atomic_load(&sh->live_err));
    fflush(stderr);
    (void)cfg;
}

static void worker_cleanup(struct worker *w)
{
    if (!w->c)
        return;
    for (int i = 0; i < w->nc; i++) {
        resp_cleanup(&w->c[i].r);
        free(w->c[i].vlog);
    }
    free(w->c);
    free(w->ready);
    free(w->freeslots);
    free(w->pending);
    free(w->think);
    if (w->epfd >= 0)
        close(w->epfd);
    if (w->tfd >= 0)
        close(w->tfd);
    sock_tls_cache_cleanup(&w->tls);
    stats_cleanup(&w->st);
}

int conn_run(const struct conn_cfg *cfg, struct conn_result *res)
{
    struct shared sh;
    struct worker **ws;
    int T = cfg->threads > 0 ? cfg->threads : 1, started = 0, rc = 0;
    int open_model = cfg->sched != NULL, sessions = open_model && cfg->calls_per_conn > 0;
    int total_slots = sessions ? (cfg->max_open > 0 ? cfg->max_open : 10000) : cfg->connections;
    /* the open model's pool may grow from cfg->connections to max_connections */
    int growing = open_model && !sessions && cfg->max_connections > cfg->connections;
    int pool_slots = total_slots;
    uint64_t prev = 0;
    int64_t prev_t, next_live;

    memset(res, 0, sizeof(*res));
    stats_init(&res->st);
    res->doclen = -1;
    memset(&sh, 0, sizeof(sh));
    sh.cfg = cfg;
    atomic_store(&sh.doclen, -1);
    if (growing)
        total_slots = cfg->max_connections;
    if (pool_slots < T)
        T = pool_slots > 0 ? pool_slots : 1;
    ws = cm_xcalloc((size_t)T, sizeof(*ws));
    sh.t0 = conn_now_us();
    sh.end = cfg->duration_us > 0 ? sh.t0 + cfg->duration_us : INT64_MAX;
    for (int i = 0; i < T; i++) {
        struct worker *w = cm_xcalloc(1, sizeof(*w));
        int nc = total_slots / T + (i < total_slots % T);

        ws[i] = w;
        w->sh = &sh;
        w->cfg = cfg;
        w->ctl = cfg->ctl;
        w->id = i;
        w->tfd = -1;
        w->open_model = open_model;
        w->sessions = sessions;
        w->ops = cfg->tls_ctx ? &sock_tls_ops : &sock_plain_ops;
        w->tls.ctx = cfg->tls_ctx;
        w->tls.sni = cfg->sni;
        w->sample_us = cfg->sample_us > 0 ? cfg->sample_us : TICK_US;
        stats_init(&w->st);
        w->st.has_uncorr = open_model;
        w->nc = nc;
        w->pool = growing ? pool_slots / T + (i < pool_slots % T) : nc;
        w->grow_idx = -1;
        w->c = cm_xcalloc((size_t)nc, sizeof(*w->c));
        w->ready = cm_xcalloc((size_t)nc + 1, sizeof(int));
        w->freeslots = cm_xcalloc((size_t)nc + 1, sizeof(int));
        w->pending = cm_xcalloc((size_t)nc + 1, sizeof(int));
        for (int j = 0; j < nc; j++) {
            w->c[j].idx = (uint32_t)j;
            w->c[j].s.fd = -1;
            resp_init(&w->c[j].r);
            w->freeslots[w->nfree++] = nc - 1 - j;
        }
        w->epfd = epoll_create1(EPOLL_CLOEXEC);
        if (w->epfd < 0) {
            snprintf(res->why, sizeof(res->why), "epoll_create1: %s", strerror(errno));
            rc = -1;
            goto out;
        }
        if (!open_model && cfg->think_us > 0) {
            w->think = cm_xcalloc((size_t)nc + 1, sizeof(int));
            w->rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
        }
        if (open_model || w->think) {
            struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TIMER_DATA };
            w->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
            if (w->tfd < 0 || epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->tfd, &ev) < 0) {
                snprintf(res->why, sizeof(res->why), "timerfd: %s", strerror(errno));
                rc = -1;
                goto out;
            }
        }
    }
    sh.t0 = conn_now_us();
    sh.end = cfg->duration_us > 0 ? sh.t0 + cfg->duration_us : INT64_MAX;
    sh.sched_t0 = cfg->ctl && cfg->ctl->origin_us > 0 ? cfg->ctl->origin_us : sh.t0;
    sh.nthreads = T;
    for (int i = 0; i < T; i++) {
        if (pthread_create(&ws[i]->tid, NULL, worker_main, ws[i]) != 0) {
            snprintf(res->why, sizeof(res->why), "pthread_create failed");
            set_abort(ws[i], "pthread_create failed");
            rc = -1;
            break;
        }
        started++;
    }
    prev_t = sh.t0;
    next_live = sh.t0 + 1000000;
    while (atomic_load(&sh.finished) < started) {
        /* a run of a closed burst (the player's, real-time service) is waited for in
         * 1 ms steps: its end starts the burst's gap */
        long step_ms = cfg->ctl && cfg->max_requests > 0 ? 1 : 20;
        struct timespec ts = { 0, step_ms * 1000 * 1000 };
        int64_t now;

        nanosleep(&ts, NULL);
        now = conn_now_us();
        if (cfg->live && now >= next_live) {
            live_line(cfg, &sh, now, &prev, &prev_t);
            next_live += 1000000;
        }
    }
    if (cfg->live && next_live > sh.t0 + 1000000)
        fprintf(stderr, "\r\033[K");
    for (int i = 0; i < started; i++)
        pthread_join(ws[i]->tid, NULL);
    for (int i = 0; i < started; i++) {
        struct worker *w = ws[i];

        stats_merge(&res->st, &w->st);
        if (!res->server[0] && w->server[0])
            snprintf(res->server, sizeof(res->server), "%s", w->server);
        if (!res->tls_info[0] && w->tls_info[0]) {
            snprintf(res->tls_info, sizeof(res->tls_info), "%s", w->tls_info);
            snprintf(res->tls_tmp_key, sizeof(res->tls_tmp_key), "%s", w->tls_tmp_key);
        }
        res->tls_handshakes += w->tls.handshakes;
        res->tls_resumed += w->tls.resumed;
        if (i < 256)
            res->thread_cpu_us[i] = w->cpu_us;
        res->cpu_mask |= w->cpu_mask;
        res->pool += w->pool;
    }
    res->nthreads = started;
    res->st.has_uncorr = open_model;
    res->doclen = atomic_load(&sh.doclen);
    if (atomic_load(&sh.abort)) {
        res->aborted = 1;
        if (rc == 0)
            snprintf(res->why, sizeof(res->why), "%s", sh.why);
    }
    res->interrupted = stop_requested != 0;
out:
    for (int i = 0; i < T; i++) {
        if (ws[i]) {
            worker_cleanup(ws[i]);
            free(ws[i]);
        }
    }
    free(ws);
    return rc;
}
