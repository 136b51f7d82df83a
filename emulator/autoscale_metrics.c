/* emulator/autoscale_metrics.c: each emulated minute's figures — every instance's CPU from
 * its /_instance/status (non-blocking, a few at a time) and each load balancer's traffic
 * from its proxies. */
#include "emulator/autoscale_internal.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <jansson.h>

#include "common/ev.h"
#include "emulator/lb_http.h"
#include "scaler/world.h"

/* --- metrics, every emulated minute ------------------------------------------------- */

/* --- CPU collection: non-blocking GET /_instance/status on the loop ------------------------- */

/* real ms; a hung instance gives no figure, as a real one gives no datapoint */
#define FETCH_TIMEOUT_MS 250
/* GETs in flight at once: waking every instance together would put hundreds of runnable
 * processes beside the emulator on two cores; a few at a time keep the loop responsive */
#define FETCH_PARALLEL 4

static void fetch_next(struct autoscale *a);

static const char status_req[] = "GET /_instance/status HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                 "Connection: close\r\n\r\n";

/* Ends p's GET (no report) and takes it off the queue; starts the next queued ones. */
void as_fetch_end(struct proc *p)
{
    struct autoscale *a = p->a;

    p->f.queued = 0;
    if (p->f.timer > 0) {
        cm_ev_del_timer(a->cfg.ev, p->f.timer);
        p->f.timer = 0;
    }
    if (p->f.fd >= 0) {
        cm_ev_del_fd(a->cfg.ev, p->f.fd);
        close(p->f.fd);
        p->f.fd = -1;
        a->fetching--;
        fetch_next(a);
    }
}

/* Reads busy_ms and uptime_ms from a status reply: a whole 200 whose body is a JSON object
 * with both numbers. Returns 0, or -1 (no figure this minute, as for a hung instance). */
static int status_parse(const char *buf, size_t len, double *busy, double *up)
{
    struct lb_http_msg m;
    size_t blen;
    json_t *o, *b, *u;
    int rc = -1;

    if (lb_http_parse_response(buf, len, &m) != LB_HTTP_OK || m.status != 200)
        return -1;
    blen = len - m.head_len;
    switch (lb_http_response_body(&m, 0)) {
    case LB_HTTP_BODY_LENGTH:
        if ((uint64_t)m.content_length > blen)
            return -1; /* cut short */
        blen = (size_t)m.content_length;
        break;
    case LB_HTTP_BODY_EOF:
        break;
    default:
        return -1; /* the instance sends neither chunks nor an empty status */
    }
    o = json_loadb(buf + m.head_len, blen, 0, NULL);
    b = json_object_get(o, "busy_ms");
    u = json_object_get(o, "uptime_ms");
    if (json_is_number(b) && json_is_number(u)) {
        *busy = json_number_value(b);
        *up = json_number_value(u);
        rc = 0;
    }
    json_decref(o);
    return rc;
}

/* The reply is in: modelled CPU over the interval since the last reading. */
static void fetch_done(struct proc *p)
{
    double busy, up;

    if (p->exited || status_parse(p->f.buf, p->f.len, &busy, &up) != 0)
        return;
    if (p->have_last && up > p->last_up_ms) {
        double pct = sc_app_cpu_pct(&p->app, busy - p->last_busy_ms, up - p->last_up_ms);

        /* oldest first: the minutes one manual advance passed, then the last */
        for (int m = p->f.minutes > 1 ? p->f.minutes - 1 : 0; m > 0; m--)
            sc_world_report_instance_cpu(p->w, p->id, pct, p->f.now - (int64_t)m * 60000);
        sc_world_report_instance_cpu(p->w, p->id, pct, p->f.now);
    }
    p->have_last = 1;
    p->last_busy_ms = busy;
    p->last_up_ms = up;
}

static void on_fetch(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct proc *p = ud;

    if (!p->f.sent) {
        int soerr = 0;
        socklen_t sl = sizeof(soerr);

        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
            return;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr != 0 ||
            send(fd, status_req, sizeof(status_req) - 1, MSG_NOSIGNAL) !=
                (ssize_t)(sizeof(status_req) - 1)) {
            as_fetch_end(p);
            return;
        }
        p->f.sent = 1;
        cm_ev_mod_fd(ev, fd, EPOLLIN);
        return;
    }
    for (;;) {
        ssize_t n = recv(fd, p->f.buf + p->f.len, sizeof(p->f.buf) - 1 - p->f.len, 0);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n > 0) {
            p->f.len += (size_t)n;
            if (p->f.len < sizeof(p->f.buf) - 1)
                continue;
        }
        /* EOF (Connection: close), an error, or the buffer is full */
        if (n >= 0)
            fetch_done(p);
        as_fetch_end(p);
        return;
    }
}

static int64_t on_fetch_timeout(struct cm_ev *ev, int64_t now, void *ud)
{
    struct proc *p = ud;

    (void)ev;
    (void)now;
    p->f.timer = 0;
    as_fetch_end(p);
    return -1;
}

/* Opens the connection of a queued GET. Returns 0, or -1 (nothing in flight). */
static int fetch_open(struct autoscale *a, struct proc *p)
{
    struct sockaddr_in sa;
    int fd;

    p->f.queued = 0;
    if (p->exited || p->port <= 0 || p->hung || p->hibernated)
        return -1;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)p->port);
    if ((connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) ||
        cm_ev_add_fd(a->cfg.ev, fd, EPOLLOUT, on_fetch, p) < 0) {
        close(fd);
        return -1;
    }
    p->f.fd = fd;
    p->f.sent = 0;
    p->f.len = 0;
    p->f.timer = cm_ev_add_timer(a->cfg.ev, FETCH_TIMEOUT_MS, on_fetch_timeout, p);
    a->fetching++;
    return 0;
}

/* Starts queued GETs while fewer than FETCH_PARALLEL are in flight. */
static void fetch_next(struct autoscale *a)
{
    for (int k = 0; k < a->nprocs && a->fetching < FETCH_PARALLEL; k++) {
        int i = (a->fetch_rr + k) % a->nprocs;
        struct proc *p = a->procs[i];

        if (!p->f.queued)
            continue;
        a->fetch_rr = i + 1;
        fetch_open(a, p);
        k = -1; /* rescan from the new position (the list may have changed) */
        if (a->fetch_rr >= a->nprocs)
            a->fetch_rr = 0;
    }
}

/* Queues the GET for the emulated minute `now`; one still queued or in flight is left. */
static void fetch_start(struct proc *p, int64_t now, int minutes)
{
    if (p->f.fd >= 0 || p->f.queued)
        return;
    p->f.queued = 1;
    p->f.now = now;
    p->f.minutes = minutes;
}

/* The old way, kept only so bench/bench_instances.sh can compare both in one run
 * (SCALELAB_BLOCKING_CPU_FETCH=1): one blocking GET per instance, 50 ms socket timeouts. */
static void fetch_blocking(struct proc *p, int64_t now)
{
    struct sockaddr_in sa;
    struct timeval tv = { 0, 50000 };
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return;
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)p->port);
    p->f.len = 0;
    p->f.now = now;
    p->f.minutes = 1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
        send(fd, status_req, sizeof(status_req) - 1, MSG_NOSIGNAL) ==
            (ssize_t)(sizeof(status_req) - 1)) {
        for (;;) {
            ssize_t n = recv(fd, p->f.buf + p->f.len, sizeof(p->f.buf) - 1 - p->f.len, 0);

            if (n <= 0)
                break;
            p->f.len += (size_t)n;
            if (p->f.len == sizeof(p->f.buf) - 1)
                break;
        }
        fetch_done(p);
    }
    close(fd);
}

static void report_minute(struct autoscale *a, struct sc_world *w, int64_t now, int minutes)
{
    struct sc_elb *elb = sc_world_elb(w);
    double ts = a->cfg.time_scale;

    for (int i = 0; i < a->nprocs; i++) {
        struct proc *p = a->procs[i];

        if (p->w != w || p->exited || p->port <= 0 || p->hung || p->hibernated)
            continue;
        if (a->blocking_fetch)
            fetch_blocking(p, now);
        else
            fetch_start(p, now, minutes);
    }
    fetch_next(a);
    for (int i = 0; i < sc_elb_lb_count(elb); i++) {
        char name[SC_ELB_NAME_LEN];
        struct lb_metrics sum, m;
        struct sc_elb_traffic t;
        struct lbstat *st;

        snprintf(name, sizeof(name), "%s", sc_elb_lb_at(elb, i)->load_balancer_name);
        memset(&sum, 0, sizeof(sum));
        for (int k = 0; k < a->nls; k++) {
            if (a->ls[k]->w != w || strcmp(a->ls[k]->lb, name) != 0)
                continue;
            lb_listener_metrics_take(a->ls[k]->l, &m);
            sum.requests += m.requests;
            sum.latency_sum_ms += m.latency_sum_ms;
            sum.latency_count += m.latency_count;
            sum.backend_2xx += m.backend_2xx;
            sum.backend_3xx += m.backend_3xx;
            sum.backend_4xx += m.backend_4xx;
            sum.backend_5xx += m.backend_5xx;
            sum.elb_4xx += m.elb_4xx;
            sum.elb_5xx += m.elb_5xx;
            if (m.surge_queue_max > sum.surge_queue_max)
                sum.surge_queue_max = m.surge_queue_max;
            sum.spillover += m.spillover;
            sum.backend_conn_errors += m.backend_conn_errors;
        }
        st = as_lbstat_ensure(a, w, name);
        sum.backend_conn_errors += st->hc_conn_errors;
        st->hc_conn_errors = 0;
        /* counts as the emulated minute would have seen them; latency and the queue's
         * peak are real figures */
        t.requests = (double)sum.requests * ts;
        t.latency_sum_us = sum.latency_sum_ms * 1000.0;
        t.latency_count = (double)sum.latency_count;
        t.backend_2xx = (double)sum.backend_2xx * ts;
        t.backend_3xx = (double)sum.backend_3xx * ts;
        t.backend_4xx = (double)sum.backend_4xx * ts;
        t.backend_5xx = (double)sum.backend_5xx * ts;
        t.elb_4xx = (double)sum.elb_4xx * ts;
        t.elb_5xx = (double)sum.elb_5xx * ts;
        t.surge_queue_max = sum.surge_queue_max;
        t.spillover = (double)sum.spillover * ts;
        t.backend_conn_errors = (double)sum.backend_conn_errors * ts;
        sc_elb_report_minute(elb, sc_world_cw(w), name, &t, SC_ELB_METRICS_ALL, now, now);
    }
    as_alb_report_minute(a, w, now);
}

int64_t as_on_minute(struct cm_ev *ev, int64_t now_real, void *ud)
{
    struct autoscale *a = ud;
    int64_t now = a->cfg.now_ms(a->cfg.ud);

    (void)ev;
    (void)now_real;
    for (int i = 0; i < a->nworlds; i++)
        report_minute(a, a->worlds[i], now, 1);
    as_kick(a);
    return as_scaled_ms(a, 60000.0, 50);
}

void as_manual_minutes(struct autoscale *a, int64_t now)
{
    int64_t last = 0;
    int k = 0;

    if (a->minute_next_ms == 0) {
        a->minute_next_ms = now + 60000;
        return;
    }
    while (now >= a->minute_next_ms) {
        last = a->minute_next_ms;
        a->minute_next_ms += 60000;
        k++;
    }
    if (k == 0)
        return;
    for (int i = 0; i < a->nworlds; i++)
        report_minute(a, a->worlds[i], last, k > AS_CATCH_UP_MINUTES ? AS_CATCH_UP_MINUTES : k);
    as_kick(a);
}
