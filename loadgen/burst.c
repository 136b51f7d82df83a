/* loadgen/burst.c: see burst.h.
 *
 * One epoll loop (edge-triggered, as the load engine's) in the caller's thread; a timerfd
 * armed at the next due time (a release, a think time's end, the 100 ms tick that checks
 * deadlines and retries failed connects). Each connection is closed, connecting, idle
 * (open, no request), writing, reading or thinking; `left` tickets of the current burst
 * are not yet claimed and `out` are claimed and not ended. A burst ends when both are 0. */
#include "loadgen/burst.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "loadgen/mix.h"
#include "loadgen/resp.h"

#define TICK_US    INT64_C(100000)
#define STOP_CUT   INT64_C(200000) /* requests in flight at a stop get the timeout less this */
#define TIMER_DATA UINT64_MAX
#define MAX_EVENTS 256
#define RBUF_SIZE  65536

/* ---- the gap clock (pure) ---- */

void burst_clock_init(struct burst_clock *k, int64_t gap_us)
{
    memset(k, 0, sizeof(*k));
    k->gap_us = gap_us < 0 ? 0 : gap_us;
}

int64_t burst_clock_next(const struct burst_clock *k, int64_t last_us)
{
    return last_us + k->gap_us - llround(k->start_est_us);
}

void burst_clock_record(struct burst_clock *k, struct player_bursts *b, int64_t go_us,
                        int64_t first_us, int64_t last_us)
{
    b->bursts++;
    if (first_us > 0) {
        double st = (double)(first_us - go_us), st_ms;

        if (st < 0)
            st = 0; /* written before its plan: a wake-up cannot be early */
        st_ms = st / 1000.0;
        k->start_est_us = b->bursts == 1 ? st : k->start_est_us + (st - k->start_est_us) / 4;
        b->start_sum_ms += st_ms;
        if (st_ms > b->start_max_ms)
            b->start_max_ms = st_ms;
        if (last_us > first_us)
            b->busy_sum_ms += (double)(last_us - first_us) / 1000.0;
        if (k->prev_last_us > 0) {
            double g = (double)(first_us - k->prev_last_us);

            b->gaps++;
            b->gap_sum_ms += g / 1000.0;
            if (g > (double)k->gap_us)
                b->excess_sum_ms += (g - (double)k->gap_us) / 1000.0;
        }
    }
    k->prev_last_us = last_us;
}

/* ---- the engine ---- */

enum bc_state {
    BC_CLOSED = 0,
    BC_CONNECTING,
    BC_IDLE,
    BC_WRITING,
    BC_READING,
    BC_THINK,
    BC_CLOSING, /* the reply said the server closes: waiting for its FIN */
};

struct bconn {
    int fd;
    uint32_t gen;
    uint8_t state;
    uint8_t reused;  /* a reply already came on this TCP connection */
    uint8_t ticket;  /* holds a claimed ticket */
    uint8_t retried; /* its ticket already went again once after a dropped reuse */
    size_t written;
    const char *req; /* the ticket's request (cfg->req, or its kind of cfg->mix) */
    size_t req_len;
    uint8_t head;     /* that request is a HEAD */
    int64_t t_start;  /* the ticket's claim: the request's latency counts from it */
    int64_t deadline; /* of the connect or the request */
    int64_t wake;     /* thinking: when it claims its next ticket; closed: when it reconnects */
    struct resp r;
};

struct engine {
    const struct burst_cfg *cfg;
    struct player_bursts *b;
    struct burst_clock clock;
    int epfd, tfd;
    struct bconn *c;
    int nc;
    int64_t now;
    uint64_t left, out;
    int in_burst, stopping;
    int64_t go, first, last; /* the current burst: planned release, first write, last end */
    int64_t next_go;
    int64_t next_tick;
    int64_t armed;
    uint64_t rng;
    char rbuf[RBUF_SIZE];
};

static void open_conn(struct engine *e, struct bconn *c);
static void send_request(struct engine *e, struct bconn *c);

static uint64_t ev_data(const struct engine *e, const struct bconn *c)
{
    return (uint64_t)(c - e->c) | ((uint64_t)c->gen << 32);
}

static int claim(struct engine *e)
{
    if (e->left == 0 || e->stopping)
        return 0;
    e->left--;
    e->out++;
    conn_ctl_sent(e->cfg->ctl);
    return 1;
}

/* The ticket c holds ended: status > 0 a reply, 0 a failure. */
static void end_ticket(struct engine *e, struct bconn *c, int status)
{
    int64_t lat = e->now - c->t_start;

    if (!c->ticket)
        return;
    c->ticket = 0;
    c->retried = 0;
    e->out--;
    e->last = e->now;
    conn_ctl_ended(e->cfg->ctl, status, status > 0 ? (lat < 0 ? 0 : lat) : 0);
}

static void conn_close(struct bconn *c)
{
    if (c->state == BC_CLOSED)
        return;
    close(c->fd);
    c->fd = -1;
    c->state = BC_CLOSED;
    c->gen++;
    c->reused = 0;
}

/* Closed: opened again at `at` (now: at once, before the next burst needs it). */
static void reopen_at(struct bconn *c, int64_t at)
{
    conn_close(c);
    c->wake = at;
}

static double draw_exp(struct engine *e, double mean)
{
    double u;

    e->rng ^= e->rng << 13;
    e->rng ^= e->rng >> 7;
    e->rng ^= e->rng << 17;
    u = ((double)(e->rng >> 11) + 1.0) / 9007199254740993.0; /* (0, 1] */
    return -mean * log(u);
}

/* A connection with no request: it claims the next ticket (after the think time when it
 * just replied), else waits idle for the next burst. */
static void next_request(struct engine *e, struct bconn *c, int replied)
{
    if (replied && e->cfg->think_us > 0 && e->left > 0 && !e->stopping) {
        c->state = BC_THINK;
        c->wake = e->now + llround(draw_exp(e, (double)e->cfg->think_us));
        return;
    }
    c->state = BC_IDLE;
    if (claim(e)) {
        c->ticket = 1;
        c->t_start = e->now;
        send_request(e, c);
    }
}

/* A connect failed or timed out: the ticket it holds fails, or one it would have taken
 * (so that a burst against a dead listener ends); it tries again after a pause. */
static void connect_failed(struct engine *e, struct bconn *c)
{
    if (!c->ticket && claim(e)) {
        c->ticket = 1;
        c->t_start = e->now;
    }
    end_ticket(e, c, 0);
    reopen_at(c, e->now + BURST_RECONNECT_US);
}

/* The request failed (a reset, a timeout, a broken reply): it counts as failed, unless
 * the server dropped a reused connection before a byte of the reply came (an idle close
 * racing the request): then it goes again on a new connection, once, uncounted. */
static void request_failed(struct engine *e, struct bconn *c, int dropped)
{
    if (dropped && c->reused && !c->retried && !resp_started(&c->r)) {
        c->retried = 1;
        reopen_at(c, e->now);
        open_conn(e, c);
        return;
    }
    end_ticket(e, c, 0);
    reopen_at(c, e->now);
}

static void open_conn(struct engine *e, struct bconn *c)
{
    const struct burst_cfg *cfg = e->cfg;
    struct epoll_event ev;
    int fd, one = 1;

    fd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        c->state = BC_CLOSED;
        connect_failed(e, c);
        return;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->fd = fd;
    c->state = BC_CONNECTING;
    c->reused = 0;
    c->deadline = (c->ticket ? c->t_start : e->now) + cfg->timeout_us;
    e->b->connects++;
    ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    ev.data.u64 = ev_data(e, c);
    if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        connect_failed(e, c);
        return;
    }
    if (connect(fd, (const struct sockaddr *)&cfg->addr, cfg->addrlen) == 0) {
        c->state = BC_IDLE;
        if (c->ticket)
            send_request(e, c);
        else
            next_request(e, c, 0);
        return;
    }
    if (errno != EINPROGRESS)
        connect_failed(e, c);
}

static void do_write(struct engine *e, struct bconn *c)
{
    while (c->written < c->req_len) {
        ssize_t n = write(c->fd, c->req + c->written, c->req_len - c->written);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            request_failed(e, c, c->written == 0);
            return;
        }
        c->written += (size_t)n;
    }
    c->state = BC_READING;
    if (e->in_burst && e->first == 0)
        e->first = e->now;
}

static void send_request(struct engine *e, struct bconn *c)
{
    /* a ticket going again after a dropped reuse keeps its kind: the mix stays exact */
    if (!e->cfg->mix) {
        c->req = e->cfg->req;
        c->req_len = e->cfg->req_len;
        c->head = 0;
    } else if (!c->retried || !c->req) {
        const struct req_kind *k = req_mix_next(e->cfg->mix);
        c->req = k->req;
        c->req_len = k->len;
        c->head = (uint8_t)k->head;
    }
    c->written = 0;
    resp_begin(&c->r, c->head);
    c->r.server_cap = 0;
    c->state = BC_WRITING;
    c->deadline = c->t_start + e->cfg->timeout_us;
    do_write(e, c);
}

static void on_reply(struct engine *e, struct bconn *c, int eof, int leftover)
{
    int keep = e->cfg->keepalive && c->r.keep_alive && !eof && !leftover;

    end_ticket(e, c, c->r.status > 0 ? c->r.status : 1);
    if (!keep && !eof && !leftover && !c->r.keep_alive) {
        /* the server closes: its FIN first, so that the TIME_WAIT stays on its side (as ab
         * and the load engine do; a TCP listener's connection per request would otherwise
         * leave one here per request) */
        ssize_t n = read(c->fd, e->rbuf, sizeof(e->rbuf));

        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            c->state = BC_CLOSING;
            c->deadline = e->now + e->cfg->timeout_us;
            return;
        }
        reopen_at(c, e->now); /* its FIN (or anything else) is already here */
        return;
    }
    if (!keep) {
        reopen_at(c, e->now);
        return;
    }
    c->reused = 1;
    next_request(e, c, 1);
}

static void do_read(struct engine *e, struct bconn *c)
{
    for (;;) {
        ssize_t n = read(c->fd, e->rbuf, sizeof(e->rbuf));
        size_t used = 0;
        enum resp_result res;

        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            request_failed(e, c, errno == ECONNRESET);
            return;
        }
        if (n == 0) {
            res = resp_eof(&c->r);
            if (res == RESP_DONE)
                on_reply(e, c, 1, 0);
            else
                request_failed(e, c, res == RESP_MORE);
            return;
        }
        res = resp_feed(&c->r, e->rbuf, (size_t)n, &used);
        if (res == RESP_DONE) {
            on_reply(e, c, 0, used < (size_t)n);
            return;
        }
        if (res == RESP_ERROR) {
            request_failed(e, c, 0);
            return;
        }
    }
}

static void on_event(struct engine *e, struct bconn *c, uint32_t ev)
{
    switch (c->state) {
    case BC_CONNECTING:
        if (ev & (EPOLLERR | EPOLLHUP)) {
            connect_failed(e, c);
        } else if (ev & EPOLLOUT) {
            c->state = BC_IDLE;
            if (c->ticket)
                send_request(e, c);
            else
                next_request(e, c, 0);
        }
        return;
    case BC_WRITING:
        if (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))
            do_write(e, c);
        return;
    case BC_READING:
        if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
            do_read(e, c);
        return;
    case BC_CLOSING:
        if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
            reopen_at(c, e->now);
        return;
    case BC_IDLE:
    case BC_THINK:
        /* the server closed an idle connection (or wrote to it unasked): open another at
         * once if it had carried a reply, else after a pause (no storm against a listener
         * that closes every connection) */
        if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
            reopen_at(c, c->reused ? e->now : e->now + BURST_RECONNECT_US);
        return;
    default:
        return;
    }
}

/* Releases the next burst's tickets to the connections. */
static void release(struct engine *e)
{
    e->in_burst = 1;
    e->go = e->next_go;
    e->first = 0;
    e->last = 0;
    e->left = e->cfg->requests;
    e->out = 0;
    for (int i = 0; i < e->nc && e->left > 0; i++) {
        struct bconn *c = &e->c[i];
        if (c->state == BC_IDLE)
            next_request(e, c, 0);
    }
    /* connections not open yet (closed, or still connecting) take theirs when they are */
    for (int i = 0; i < e->nc && e->left > 0; i++) {
        struct bconn *c = &e->c[i];
        if (c->state == BC_CLOSED && c->wake <= e->now)
            open_conn(e, c);
    }
}

/* The current burst ended (every ticket claimed and ended). */
static void burst_done(struct engine *e)
{
    if (e->last == 0)
        e->last = e->now;
    burst_clock_record(&e->clock, e->b, e->go, e->first, e->last);
    e->in_burst = 0;
    e->next_go = burst_clock_next(&e->clock, e->last);
}

static void on_stop(struct engine *e)
{
    int64_t cut = e->now + e->cfg->timeout_us - STOP_CUT;

    e->stopping = 1;
    e->left = 0;
    if (cut < e->now)
        cut = e->now;
    for (int i = 0; i < e->nc; i++) {
        struct bconn *c = &e->c[i];
        if (c->state == BC_THINK)
            c->state = BC_IDLE;
        else if (c->ticket && c->deadline > cut)
            c->deadline = cut;
    }
}

static void tick(struct engine *e)
{
    e->next_tick = e->now + TICK_US;
    for (int i = 0; i < e->nc; i++) {
        struct bconn *c = &e->c[i];

        if (c->state == BC_CONNECTING && c->deadline <= e->now)
            connect_failed(e, c);
        else if ((c->state == BC_WRITING || c->state == BC_READING) && c->deadline <= e->now)
            request_failed(e, c, 0);
        else if (c->state == BC_CLOSING && c->deadline <= e->now)
            reopen_at(c, e->now);
    }
}

/* Due work that is not an event: reconnects, think times' ends. Returns the earliest
 * time something is due next (INT64_MAX: nothing). */
static int64_t due_work(struct engine *e)
{
    int64_t next = INT64_MAX;

    for (int i = 0; i < e->nc; i++) {
        struct bconn *c = &e->c[i];

        if (c->state == BC_CLOSED && !e->stopping) {
            if (c->wake <= e->now)
                open_conn(e, c);
            else if (c->wake < next)
                next = c->wake;
        }
        if (c->state == BC_THINK) {
            if (c->wake <= e->now)
                next_request(e, c, 0);
            else if (c->wake < next)
                next = c->wake;
        }
    }
    return next;
}

static void arm(struct engine *e, int64_t at)
{
    struct itimerspec its;

    if (at <= e->now || at == e->armed)
        return;
    memset(&its, 0, sizeof(its));
    its.it_value.tv_sec = at / 1000000;
    its.it_value.tv_nsec = (at % 1000000) * 1000;
    if (timerfd_settime(e->tfd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
        e->armed = at;
}

static void engine_loop(struct engine *e)
{
    struct epoll_event evs[MAX_EVENTS];
    const struct burst_cfg *cfg = e->cfg;

    for (;;) {
        int64_t due;
        int n;

        e->now = conn_now_us();
        if (!e->stopping && atomic_load_explicit(&cfg->ctl->stop, memory_order_relaxed))
            on_stop(e);
        if (e->now >= e->next_tick)
            tick(e);
        if (!e->in_burst && !e->stopping && e->now >= e->next_go) {
            if (e->next_go >= cfg->end_us)
                on_stop(e); /* no burst starts at or after the phase's end */
            else
                release(e);
        }
        due = due_work(e);
        if (e->in_burst && e->left == 0 && e->out == 0)
            burst_done(e);
        if (e->stopping && e->out == 0)
            break;
        if (!e->in_burst && !e->stopping && e->next_go < due)
            due = e->next_go;
        if (e->next_tick < due)
            due = e->next_tick;
        arm(e, due);
        /* the timer wakes the loop at `due`; one already past turns the loop at once */
        n = epoll_wait(e->epfd, evs, MAX_EVENTS, due <= e->now ? 0 : (int)(TICK_US / 1000));
        e->now = conn_now_us();
        for (int i = 0; i < n; i++) {
            uint64_t d = evs[i].data.u64;
            struct bconn *c;

            if (d == TIMER_DATA) {
                uint64_t x;
                if (read(e->tfd, &x, sizeof(x)) < 0)
                    x = 0;
                if (cfg->on_late && e->armed > 0 && e->now - e->armed >= cfg->late_min_us)
                    cfg->on_late(cfg->late_ud, e->now, e->now - e->armed);
                e->armed = 0;
                continue;
            }
            c = &e->c[(uint32_t)d];
            if ((uint32_t)(d >> 32) != c->gen || c->state == BC_CLOSED)
                continue; /* an event for an earlier connection in this slot */
            on_event(e, c, evs[i].events);
        }
    }
}

int burst_run(const struct burst_cfg *cfg, struct player_bursts *b, char *err, size_t errlen)
{
    struct engine *e = cm_xcalloc(1, sizeof(*e));
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TIMER_DATA };
    int rc = 0;

    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    e->cfg = cfg;
    e->b = b;
    e->nc = cfg->connections > 0 ? cfg->connections : 1;
    e->rng = 0x9e3779b97f4a7c15ULL;
    b->gap_ms = (double)cfg->gap_us / 1000.0;
    b->connections += e->nc;
    burst_clock_init(&e->clock, cfg->gap_us);
    e->c = cm_xcalloc((size_t)e->nc, sizeof(*e->c));
    for (int i = 0; i < e->nc; i++) {
        e->c[i].fd = -1;
        resp_init(&e->c[i].r);
    }
    e->epfd = epoll_create1(EPOLL_CLOEXEC);
    e->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (e->epfd < 0 || e->tfd < 0 || epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->tfd, &ev) < 0) {
        snprintf(err, errlen, "the burst engine did not start: %s", strerror(errno));
        rc = -1;
        goto out;
    }
    e->now = conn_now_us();
    e->next_tick = e->now + TICK_US;
    e->next_go = cfg->start_us;
    /* every connection opens now, ready for the first burst */
    for (int i = 0; i < e->nc; i++)
        open_conn(e, &e->c[i]);
    engine_loop(e);
    if (e->in_burst) /* cut by the stop */
        burst_clock_record(&e->clock, b, e->go, e->first, e->last ? e->last : e->now);
out:
    for (int i = 0; i < e->nc; i++) {
        conn_close(&e->c[i]);
        resp_cleanup(&e->c[i].r);
    }
    free(e->c);
    if (e->epfd >= 0)
        close(e->epfd);
    if (e->tfd >= 0)
        close(e->tfd);
    free(e);
    return rc;
}
