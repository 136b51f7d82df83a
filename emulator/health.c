/* emulator/health.c: see health.h. */
#include "emulator/health.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "emulator/lb_http.h"

#define HC_BUF 2048

struct target {
    struct hc_set *set;
    char *key;
    struct hc_check chk;
    char *path;
    int64_t interval_ms;
    long timer;     /* real clock: the interval timer (0 on the emulated clock) */
    int64_t due_ms; /* emulated clock: when the next check is due */
    int repeat;     /* emulated clock: the intervals the check in flight stands for */
    /* the check in flight */
    int fd;
    long timeout_timer;
    int connected;
    size_t sent, req_len, in_len;
    char req[512];
    char in[HC_BUF];
};

struct hc_set {
    struct cm_ev *ev;
    hc_report_fn fn;
    void *ud;
    struct target **v;
    int n, cap;
    uint64_t checks, passed;
    int manual;     /* on the emulated clock (hc_set_manual) */
    int64_t now_ms; /* its time at the last hc_set_advance */
};

static void probe_fail_now(struct target *t);

static void probe_end(struct target *t, enum hc_probe probe, int status, int connect_failed)
{
    struct hc_set *s = t->set;
    struct hc_result res;

    if (t->fd >= 0) {
        cm_ev_del_fd(s->ev, t->fd);
        close(t->fd);
        t->fd = -1;
    }
    if (t->timeout_timer > 0) {
        cm_ev_del_timer(s->ev, t->timeout_timer);
        t->timeout_timer = 0;
    }
    res.probe = probe;
    res.status = status;
    res.connect_failed = connect_failed;
    res.ok = probe == HC_PROBE_ANSWERED && (t->chk.proto == HC_TCP || status == 200);
    s->checks++;
    s->passed += res.ok != 0;
    if (s->manual && t->repeat > 1) {
        /* one probe for each interval the clock passed: the report may remove the target */
        char key[128];
        int n = t->repeat;

        snprintf(key, sizeof(key), "%s", t->key);
        for (int k = 0; k < n; k++)
            s->fn(s->ud, key, &res);
        return;
    }
    s->fn(s->ud, t->key, &res);
}

static void on_probe(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct target *t = ud;
    struct lb_http_msg m;
    ssize_t n;

    (void)ev;
    if (!t->connected) {
        int err = 0;
        socklen_t len = sizeof(err);

        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) {
            probe_end(t, err == ETIMEDOUT ? HC_PROBE_TIMEOUT : HC_PROBE_CONN_ERROR, 0, 1);
            return;
        }
        t->connected = 1;
        if (t->chk.proto == HC_TCP) {
            probe_end(t, HC_PROBE_ANSWERED, 0, 0);
            return;
        }
    }
    if (t->sent < t->req_len) {
        n = send(fd, t->req + t->sent, t->req_len - t->sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            probe_end(t, HC_PROBE_MALFORMED, 0, 0);
            return;
        }
        t->sent += (size_t)n;
        if (t->sent == t->req_len)
            cm_ev_mod_fd(t->set->ev, fd, EPOLLIN);
        return;
    }
    if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
        return;
    n = recv(fd, t->in + t->in_len, sizeof(t->in) - 1 - t->in_len, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        probe_end(t, HC_PROBE_MALFORMED, 0, 0);
        return;
    }
    t->in_len += (size_t)n;
    /* the status line decides; a long head is fine once the first line is in */
    switch (lb_http_parse_response(t->in, t->in_len, &m)) {
    case LB_HTTP_OK:
        probe_end(t, HC_PROBE_ANSWERED, m.status, 0);
        return;
    case LB_HTTP_PARTIAL:
        if (t->in_len < sizeof(t->in) - 1)
            return;
        break; /* a head this long is judged on its status line */
    default:
        break;
    }
    /* judged on the status line alone: "HTTP/1.x NNN" */
    if (t->in_len >= 12 && memcmp(t->in, "HTTP/1.", 7) == 0 && t->in[8] == ' ' && t->in[9] >= '1' &&
        t->in[9] <= '5' && t->in[10] >= '0' && t->in[10] <= '9' && t->in[11] >= '0' &&
        t->in[11] <= '9') {
        probe_end(t, HC_PROBE_ANSWERED,
                  (t->in[9] - '0') * 100 + (t->in[10] - '0') * 10 + (t->in[11] - '0'), 0);
        return;
    }
    probe_end(t, HC_PROBE_MALFORMED, 0, 0);
}

static int64_t on_timeout(struct cm_ev *ev, int64_t now, void *ud)
{
    struct target *t = ud;

    (void)ev;
    (void)now;
    t->timeout_timer = 0;
    probe_end(t, HC_PROBE_TIMEOUT, 0, !t->connected);
    return -1;
}

static void probe_start(struct target *t)
{
    struct hc_set *s = t->set;
    struct sockaddr_in sa;
    int fd;

    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        probe_fail_now(t);
        return;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)t->chk.port);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
        close(fd);
        probe_fail_now(t);
        return;
    }
    t->fd = fd;
    t->connected = 0;
    t->sent = 0;
    t->in_len = 0;
    if (t->chk.proto == HC_HTTP) {
        int n = snprintf(t->req, sizeof(t->req),
                         "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUser-Agent: "
                         "ELB-HealthChecker/1.0\r\nAccept: */*\r\nConnection: close\r\n\r\n",
                         t->path, t->chk.port);

        t->req_len = n > 0 && (size_t)n < sizeof(t->req) ? (size_t)n : 0;
    } else {
        t->req_len = 0;
    }
    if (cm_ev_add_fd(s->ev, fd, EPOLLOUT, on_probe, t) < 0) {
        close(fd);
        probe_fail_now(t);
        return;
    }
    t->timeout_timer = cm_ev_add_timer(s->ev, t->chk.timeout_ms, on_timeout, t);
}

/* The probe fails at once (no socket): reported like probe_end. */
static void probe_fail_now(struct target *t)
{
    t->fd = -1;
    t->timeout_timer = 0;
    probe_end(t, HC_PROBE_CONN_ERROR, 0, 1);
}

static int64_t on_interval(struct cm_ev *ev, int64_t now, void *ud)
{
    struct target *t = ud;
    int64_t next = t->interval_ms; /* the report may remove the target */

    (void)ev;
    (void)now;
    if (t->fd < 0)
        probe_start(t); /* (still in flight only if Timeout >= Interval: skip this one) */
    return next;
}

struct hc_set *hc_set_create(struct cm_ev *ev, hc_report_fn fn, void *ud)
{
    struct hc_set *s = cm_xcalloc(1, sizeof(*s));

    s->ev = ev;
    s->fn = fn;
    s->ud = ud;
    return s;
}

static void target_free(struct target *t)
{
    struct hc_set *s = t->set;

    if (t->fd >= 0) {
        cm_ev_del_fd(s->ev, t->fd);
        close(t->fd);
    }
    if (t->timeout_timer > 0)
        cm_ev_del_timer(s->ev, t->timeout_timer);
    if (t->timer > 0)
        cm_ev_del_timer(s->ev, t->timer);
    free(t->key);
    free(t->path);
    free(t);
}

void hc_set_destroy(struct hc_set *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++)
        target_free(s->v[i]);
    free(s->v);
    free(s);
}

static int find(const struct hc_set *s, const char *key)
{
    for (int i = 0; i < s->n; i++) {
        if (strcmp(s->v[i]->key, key) == 0)
            return i;
    }
    return -1;
}

void hc_target_set(struct hc_set *s, const char *key, const struct hc_check *chk,
                   int64_t interval_ms, int64_t first_delay_ms)
{
    int i = find(s, key);
    struct target *t;

    if (interval_ms < 1)
        interval_ms = 1;
    if (i >= 0) {
        t = s->v[i];
        free(t->path);
        t->chk = *chk;
        t->path = cm_xstrdup(chk->path ? chk->path : "/");
        t->chk.path = t->path;
        if (t->interval_ms != interval_ms) {
            t->interval_ms = interval_ms;
            if (s->manual) {
                t->due_ms = s->now_ms + first_delay_ms;
            } else {
                cm_ev_del_timer(s->ev, t->timer);
                t->timer = cm_ev_add_timer(s->ev, first_delay_ms, on_interval, t);
            }
        }
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->v = cm_xrealloc(s->v, (size_t)s->cap * sizeof(*s->v));
    }
    t = cm_xcalloc(1, sizeof(*t));
    t->set = s;
    t->key = cm_xstrdup(key);
    t->chk = *chk;
    t->path = cm_xstrdup(chk->path ? chk->path : "/");
    t->chk.path = t->path;
    t->interval_ms = interval_ms;
    t->fd = -1;
    if (s->manual)
        t->due_ms = s->now_ms + first_delay_ms;
    else
        t->timer = cm_ev_add_timer(s->ev, first_delay_ms, on_interval, t);
    s->v[s->n++] = t;
}

void hc_target_remove(struct hc_set *s, const char *key)
{
    int i = find(s, key);

    if (i < 0)
        return;
    target_free(s->v[i]);
    s->v[i] = s->v[--s->n];
}

int hc_target_count(const struct hc_set *s)
{
    return s->n;
}

const char *hc_target_key_at(const struct hc_set *s, int i)
{
    return i >= 0 && i < s->n ? s->v[i]->key : NULL;
}

void hc_set_counts(const struct hc_set *s, uint64_t *checks, uint64_t *passed)
{
    if (checks)
        *checks = s->checks;
    if (passed)
        *passed = s->passed;
}

void hc_set_manual(struct hc_set *s, int64_t now_ms)
{
    if (s->manual)
        return;
    s->manual = 1;
    s->now_ms = now_ms;
    for (int i = 0; i < s->n; i++) {
        struct target *t = s->v[i];

        cm_ev_del_timer(s->ev, t->timer);
        t->timer = 0;
        t->due_ms = now_ms;
    }
}

int hc_set_advance(struct hc_set *s, int64_t now_ms)
{
    int started = 0;

    if (!s->manual)
        return 0;
    if (now_ms > s->now_ms)
        s->now_ms = now_ms;
    /* a report may remove targets or add them: walk by key-stable index, and recheck */
    for (int i = 0; i < s->n; i++) {
        struct target *t = s->v[i];
        int64_t behind;

        if (t->due_ms > s->now_ms)
            continue;
        behind = (s->now_ms - t->due_ms) / t->interval_ms + 1;
        t->due_ms += behind * t->interval_ms;
        if (t->fd >= 0)
            continue; /* still in flight (Timeout >= Interval): skip, as the real clock does */
        t->repeat = behind > HC_CATCH_UP_MAX ? HC_CATCH_UP_MAX : (int)behind;
        started++;
        probe_start(t); /* may report at once (and change the set) */
        if (i < s->n && s->v[i] != t)
            i--; /* the target went: another took its slot */
    }
    return started;
}
