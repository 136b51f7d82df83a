/* tests/unit/loadgen/test_player.c: loadgen/player.c against a small HTTP server this
 * test runs in a thread on 127.0.0.1:0. Counts, not timings: an open phase sends the
 * integral of its rate, a burst exactly its requests, takes add up to what the server
 * saw; the only clock checks are one-sided (nothing is sent before its time). */
#include "loadgen/player.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "loadgen/conn.h"
#include "loadgen/stats.h"

/* ---- the server: GET / -> 200, /fail -> 503, /hang -> nothing; keep-alive ---- */

#define SRV_MAX 1024

struct srv {
    int lfd;
    int port;
    pthread_t tid;
    _Atomic int stop;
    _Atomic uint64_t requests;
    _Atomic uint64_t accepts;        /* connections accepted */
    _Atomic int64_t first_us;        /* conn_now_us() of the first request, 0 before */
    _Atomic int64_t last_us;         /* of the latest request */
    _Atomic uint64_t path_a, head_b; /* GET /a..., HEAD /b... (a request mix) */
    _Atomic uint64_t tenant;         /* requests with the header X-Tenant: blue */
};

struct cl {
    int fd;
    char buf[4096];
    size_t len;
};

static void srv_answer(struct srv *s, struct cl *c)
{
    char *end;

    while ((end = memmem(c->buf, c->len, "\r\n\r\n", 4)) != NULL) {
        size_t used = (size_t)(end + 4 - c->buf);
        int close_after = memmem(c->buf, used, "Connection: close", 17) != NULL;
        const char *reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        int64_t zero = 0;

        atomic_fetch_add(&s->requests, 1);
        atomic_compare_exchange_strong(&s->first_us, &zero, conn_now_us());
        atomic_store(&s->last_us, conn_now_us());
        if (strncmp(c->buf, "GET /hang", 9) == 0) {
            c->len = 0; /* never answers */
            return;
        }
        if (strncmp(c->buf, "GET /fail", 9) == 0)
            reply = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nnope";
        if (strncmp(c->buf, "GET /a", 6) == 0)
            atomic_fetch_add(&s->path_a, 1);
        if (memmem(c->buf, used, "\r\nX-Tenant: blue\r\n", 18) != NULL)
            atomic_fetch_add(&s->tenant, 1);
        if (strncmp(c->buf, "HEAD /b", 7) == 0) {
            atomic_fetch_add(&s->head_b, 1);
            reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"; /* no body: HEAD */
        }
        if (write(c->fd, reply, strlen(reply)) < 0 || close_after) {
            close(c->fd);
            c->fd = -1;
            return;
        }
        memmove(c->buf, c->buf + used, c->len - used);
        c->len -= used;
    }
}

static void *srv_main(void *arg)
{
    struct srv *s = arg;
    struct cl *cls = calloc(SRV_MAX, sizeof(*cls));
    struct pollfd *pfd = calloc(SRV_MAX + 1, sizeof(*pfd));
    int n = 0;

    while (!atomic_load(&s->stop)) {
        int k = 0;
        pfd[k].fd = s->lfd;
        pfd[k++].events = POLLIN;
        for (int i = 0; i < n; i++) {
            pfd[k].fd = cls[i].fd;
            pfd[k++].events = POLLIN;
        }
        if (poll(pfd, (nfds_t)k, 20) <= 0)
            continue;
        if (pfd[0].revents & POLLIN) {
            int fd = accept(s->lfd, NULL, NULL);
            if (fd >= 0)
                atomic_fetch_add(&s->accepts, 1);
            if (fd >= 0 && n < SRV_MAX) {
                cls[n].fd = fd;
                cls[n].len = 0;
                n++;
            } else if (fd >= 0) {
                close(fd);
            }
        }
        for (int i = 0; i < n; i++) {
            struct cl *c = &cls[i];
            ssize_t r;
            if (!(pfd[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            r = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
            if (r <= 0) {
                close(c->fd);
                c->fd = -1;
                continue;
            }
            c->len += (size_t)r;
            srv_answer(s, c);
            if (c->fd >= 0 && c->len == sizeof(c->buf))
                c->len = 0;
        }
        /* compact closed ones (the pollfd indexes are rebuilt next turn) */
        for (int i = 0; i < n;) {
            if (cls[i].fd < 0)
                cls[i] = cls[--n];
            else
                i++;
        }
    }
    for (int i = 0; i < n; i++)
        close(cls[i].fd);
    free(cls);
    free(pfd);
    return NULL;
}

static void srv_start(struct srv *s)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int one = 1;

    memset(s, 0, sizeof(*s));
    s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(s->lfd >= 0);
    setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(s->lfd, SRV_MAX), 0);
    assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&a, &len), 0);
    s->port = ntohs(a.sin_port);
    assert_int_equal(pthread_create(&s->tid, NULL, srv_main, s), 0);
}

static void srv_stop(struct srv *s)
{
    atomic_store(&s->stop, 1);
    pthread_join(s->tid, NULL);
    close(s->lfd);
}

/* ---- helpers ---- */

struct fixture {
    struct srv srv;
    struct sim_scenario *sc;
    struct player_target tg;
    char host[64];
    struct player_config cfg;
};

/* A scenario with one load balancer "lb" (its listener's protocol proto) and the given load
 * array (JSON). */
static void setup_proto(struct fixture *f, const char *duration, const char *load, const char *path,
                        double time_scale, const char *proto)
{
    char text[4096], err[SIM_ERR_MAX];
    struct sockaddr_in *a = (struct sockaddr_in *)&f->tg.addr;

    memset(f, 0, sizeof(*f));
    srv_start(&f->srv);
    snprintf(text, sizeof(text),
             "{\"name\":\"t\",\"duration\":\"%s\",\"infrastructure\":{"
             "\"load_balancers\":[{\"name\":\"lb\",\"listeners\":[{\"lb_port\":80,"
             "\"instance_port\":8080,\"protocol\":\"%s\"}]}],"
             "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{\"service_ms\":"
             "{\"dist\":\"fixed\",\"mean\":10}}}],"
             "\"groups\":[{\"name\":\"g\",\"launch_configuration\":\"lc\",\"min\":1,\"max\":2,"
             "\"load_balancers\":[\"lb\"]}]},\"load\":%s}",
             duration, proto, load);
    f->sc = sim_scenario_parse(text, "t.json", err);
    if (!f->sc)
        fail_msg("scenario: %s", err);
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)f->srv.port);
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    f->tg.addrlen = sizeof(*a);
    f->tg.lb = "lb";
    snprintf(f->host, sizeof(f->host), "127.0.0.1:%d", f->srv.port);
    f->tg.host = f->host;
    f->tg.path = path;
    f->cfg.sc = f->sc;
    f->cfg.targets = &f->tg;
    f->cfg.ntargets = 1;
    f->cfg.time_scale = time_scale;
    f->cfg.timeout_us = 5000000;
}

static void setup(struct fixture *f, const char *duration, const char *load, const char *path,
                  double time_scale)
{
    setup_proto(f, duration, load, path, time_scale, "HTTP");
}

static void teardown(struct fixture *f)
{
    srv_stop(&f->srv);
    sim_scenario_destroy(f->sc);
}

static void period_init(struct player_period *pp)
{
    memset(pp, 0, sizeof(*pp));
    cm_hist_init(&pp->lat, STATS_HIST_MAX_US, STATS_HIST_DIGITS);
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

struct totals {
    uint64_t sent, completed, failed, status_5xx, lat_total, takes;
};

static void add(struct totals *t, const struct player_period *pp)
{
    t->sent += pp->sent;
    t->completed += pp->completed;
    t->failed += pp->failed;
    t->status_5xx += pp->status_5xx;
    t->lat_total += pp->lat.total;
    t->takes++;
}

/* Takes every `every_ms` until the player is done (at most max_s seconds), then once
 * more after the stop. */
static void run_to_end(struct player *p, struct totals *t, int every_ms, int max_s)
{
    struct player_period pp;
    int64_t deadline = conn_now_us() + (int64_t)max_s * 1000000;

    period_init(&pp);
    memset(t, 0, sizeof(*t));
    while (player_running(p) && conn_now_us() < deadline) {
        sleep_ms(every_ms);
        player_take(p, &pp);
        add(t, &pp);
    }
    assert_false(player_running(p));
    player_stop(p);
    player_take(p, &pp);
    add(t, &pp);
    cm_hist_cleanup(&pp.lat);
}

static int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

/* ---- tests ---- */

static void test_player_open_constant_sends_the_integral(void **state)
{
    struct fixture f;
    struct player *p;
    struct totals t;
    char err[256];

    (void)state;
    /* 100 req/s for 20 emulated seconds at scale 10: 2 real seconds, 200 requests */
    setup(&f, "1m", "[{\"at\":\"0s\",\"until\":\"20s\",\"target\":\"lb\",\"rate\":100}]", NULL, 10);
    p = player_create(&f.cfg, err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(player_start(p, err, sizeof(err)), 0);
    run_to_end(p, &t, 50, 30);
    assert_int_equal(t.sent, 200);
    assert_int_equal(t.completed, 200);
    assert_int_equal(t.failed, 0);
    assert_int_equal(t.lat_total, 200);
    assert_int_equal(atomic_load(&f.srv.requests), 200);
    assert_true(t.takes >= 2);
    player_destroy(p);
    teardown(&f);
}

static void test_player_time_scale_compresses_phase_times(void **state)
{
    struct fixture f;
    struct player *p;
    struct totals t;
    char err[256];
    int64_t t0;

    (void)state;
    /* [30 s, 40 s) emulated at scale 20: real [1.5 s, 2 s), 50 req/s: 25 requests */
    setup(&f, "1m", "[{\"at\":\"30s\",\"until\":\"40s\",\"target\":\"lb\",\"rate\":50}]", NULL, 20);
    p = player_create(&f.cfg, err, sizeof(err));
    assert_non_null(p);
    t0 = conn_now_us();
    assert_int_equal(player_start(p, err, sizeof(err)), 0);
    run_to_end(p, &t, 50, 30);
    assert_int_equal(t.sent, 25);
    assert_int_equal(t.completed, 25);
    /* nothing comes before its time: the first at 1.5 s, the 25th at 1.5 + 24/50 s */
    assert_true(atomic_load(&f.srv.first_us) >= t0 + 1500000);
    assert_true(atomic_load(&f.srv.last_us) >= t0 + 1980000);
    assert_true(player_elapsed_ms(p) >= 40000);
    player_destroy(p);
    teardown(&f);
}

static void test_player_closed_bursts_send_n_per_burst(void **state)
{
    struct fixture f;
    struct player *p;
    struct totals t;
    char err[256];

    (void)state;
    /* bursts of 40 requests at 8 clients, 2 s (real) gaps; the phase ends at 3 s, in the
     * second gap: two bursts */
    setup(&f, "1m",
          "[{\"at\":\"0s\",\"until\":\"3s\",\"target\":\"lb\",\"clients\":8,"
          "\"shape\":{\"type\":\"bursts\",\"requests\":40,\"gap\":\"2s\"}}]",
          NULL, 1);
    p = player_create(&f.cfg, err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(player_start(p, err, sizeof(err)), 0);
    run_to_end(p, &t, 100, 30);
    assert_int_equal(t.sent, 80);
    assert_int_equal(t.completed, 80);
    assert_int_equal(atomic_load(&f.srv.requests), 80);
    player_destroy(p);
    teardown(&f);
}

/* Closed bursts on the emulated clock (the persistent burst engine, loadgen/burst.c): the
 * connections open once for the phase and carry every burst; each burst sends its
 * requests; the gaps are counted. Before the engine, each burst was a run of its own that
 * connected again (accepts = bursts x connections). */
static void test_player_scaled_bursts_keep_their_connections(void **state)
{
    struct fixture f;
    struct player *p;
    struct player_bursts b;
    struct totals t;
    char err[256];

    (void)state;
    /* x100: 60 emulated s are 0.6 real s; bursts of 20 at 4 clients, 1 s (10 real ms)
     * gaps: dozens of bursts on 4 connections */
    setup(&f, "2m",
          "[{\"at\":\"0s\",\"until\":\"60s\",\"target\":\"lb\",\"clients\":4,"
          "\"shape\":{\"type\":\"bursts\",\"requests\":20,\"gap\":\"1s\"}}]",
          NULL, 100);
    f.cfg.scaled = 1;
    f.cfg.weight = 1;
    p = player_create(&f.cfg, err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(player_start(p, err, sizeof(err)), 0);
    run_to_end(p, &t, 50, 30);
    player_bursts(p, &b);
    assert_true(b.bursts >= 5);
    assert_int_equal(b.connections, 4);
    assert_int_equal(b.connects, 4);
    assert_int_equal(atomic_load(&f.srv.accepts), 4);
    /* every burst but one the phase's end may cut sends its 20 */
    assert_true(t.sent >= (b.bursts - 1) * 20 + 1);
    assert_true(t.sent <= b.bursts * 20);
    assert_int_equal(t.completed, t.sent);
    assert_int_equal(t.failed, 0);
    assert_int_equal(atomic_load(&f.srv.requests), t.sent);
    assert_int_equal(b.gaps, b.bursts - 1);
    assert_float_equal(b.gap_ms, 10.0, 1e-9);
    player_destroy(p);
    teardown(&f);
}

/* Through a TCP listener a request says Connection: close and the server closes after its
 * reply: the engine waits for the FIN, opens the connection again and goes on; every
 * request counts once. */
static void test_player_scaled_bursts_through_a_tcp_listener(void **state)
{
    struct fixture f;
    struct player *p;
    struct player_bursts b;
    struct totals t;
    char err[256];

    (void)state;
    setup_proto(&f, "2m",
                "[{\"at\":\"0s\",\"until\":\"30s\",\"target\":\"lb\",\"clients\":4,"
                "\"shape\":{\"type\":\"bursts\",\"requests\":20,\"gap\":\"1s\"}}]",
                NULL, 100, "TCP");
    f.cfg.scaled = 1;
    f.cfg.weight = 1;
    p = player_create(&f.cfg, err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(player_start(p, err, sizeof(err)), 0);
    run_to_end(p, &t, 50, 30);
    player_bursts(p, &b);
    assert_true(b.bursts >= 2);
    assert_true(t.sent >= (b.bursts - 1) * 20 + 1);
    assert_int_equal(t.completed, t.sent);
    assert_int_equal(t.failed, 0);
    assert_int_equal(atomic_load(&f.srv.requests), t.sent);
    /* a connection per request, plus the ones open for the next burst */
    assert_true(b.connects >= t.sent);
    assert_true(b.connects <= t.sent + 4);
    /* the server saw every connection a request went on (the last ones, opened for a
     * burst that never came, perhaps not yet) */
    assert_true(atomic_load(&f.srv.accepts) >= t.sent);
    assert_true(atomic_load(&f.srv.accepts) <= b.connects);
    player_destroy(p);
    teardown(&f);
}

static void test_player_closed_takes_add_up_and_report_clients(void **state)
{
    struct fixture f;
    struct player *p;
    struct player_period pp;
    struct totals t;
    char err[256];

    (void)state;
    /* 4 clients for an emulated hour; stopped early */
    setup(&f, "2h", "[{\"at\":\"0s\",\"until\":\"1h\",\"target\":\"lb\",\"clients\":4}]", NULL, 1);
    p = player_create(&f.cfg, err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(player_start(p, err, sizeof(err)), 0);
    period_init(&pp);
    memset(&t, 0, sizeof(t));
    for (int i = 0; i < 10; i++) {
        sleep_ms(30);
        player_take(p, &pp);
        add(&t, &pp);
        assert_int_equal(pp.load_is_clients, 1);
        assert_true(pp.load == 4);
    }
    assert_true(player_running(p));
    player_stop(p);
    player_take(p, &pp);
    add(&t, &pp);
    assert_true(t.sent > 0);
    /* after the stop nothing is in flight: every request ended, and the server saw each */
    assert_int_equal(t.sent, t.completed + t.failed);
    assert_int_equal(t.failed, 0);
    assert_int_equal(t.lat_total, t.completed);
    assert_int_equal(atomic_load(&f.srv.requests), t.sent);
    assert_false(player_running(p));
    cm_hist_cleanup(&pp.lat);
    player_destroy(p);
    teardown(&f);
}

static void test_player_think_time_paces_closed_clients(void **state)
{
    struct fixture f;
    struct player *p;
    struct totals t;
    char err[256];

    (void)state;
    /* 2 clients thinking 200 ms on average for 1 s: about 10 requests against a server
     * that answers at once (thousands without the think time) */
    setup(&f, "1m",
          "[{\"at\":\"0s\",\"until\":\"1s\",\"target\":\"lb\",\"clients\":2,"
          "\"think\":\"200ms\"}]",
          NULL, 1);
    p = player_create(&f.cfg, err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(player_start(p, err, sizeof(err)), 0);
    run_to_end(p, &t, 50, 30);
    assert_true(t.sent >= 2); /* the first request of each client goes at once */
    assert_true(t.sent < 200);
    assert_int_equal(t.sent, t.completed);
    assert_int_equal(atomic_load(&f.srv.requests), t.sent);
    player_destroy(p);
    teardown(&f);
}

static void test_player_5xx_are_failures(void **state)
{
    struct fixture f;
    struct player *p;
    struct totals t;
    char err[256];

    (void)state;
    setup(&f, "1m", "[{\"at\":\"0s\",\"until\":\"10s\",\"target\":\"lb\",\"rate\":30}]", "/fail",
          10);
    p = player_create(&f.cfg, err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(player_start(p, err, sizeof(err)), 0);
    run_to_end(p, &t, 50, 30);
    assert_int_equal(t.sent, 30);
    assert_int_equal(t.completed, 0);
    assert_int_equal(t.failed, 30);
    assert_int_equal(t.status_5xx, 30);
    assert_int_equal(t.lat_total, 0);
    player_destroy(p);
    teardown(&f);
}

static void test_player_missing_target_is_refused(void **state)
{
    struct fixture f;
    struct player *p;
    char err[256] = "";

    (void)state;
    setup(&f, "1m", "[{\"at\":\"0s\",\"until\":\"10s\",\"target\":\"lb\",\"rate\":30}]", NULL, 1);
    f.tg.lb = "other";
    p = player_create(&f.cfg, err, sizeof(err));
    assert_null(p);
    assert_non_null(strstr(err, "\"lb\""));
    f.tg.lb = "lb";
    f.tg.addrlen = 0;
    p = player_create(&f.cfg, err, sizeof(err));
    assert_null(p);
    assert_non_null(strstr(err, "no address"));
    f.tg.addrlen = sizeof(struct sockaddr_in);
    f.cfg.time_scale = 0;
    assert_null(player_create(&f.cfg, err, sizeof(err)));
    teardown(&f);
}

/* A scenario with an ALB "front" (listener 80 forwarding to "tg") and the given load; the
 * fixture's target is that listener. */
static void setup_alb(struct fixture *f, const char *load, double time_scale)
{
    char text[4096], err[SIM_ERR_MAX];
    struct sockaddr_in *a = (struct sockaddr_in *)&f->tg.addr;

    memset(f, 0, sizeof(*f));
    srv_start(&f->srv);
    snprintf(text, sizeof(text),
             "{\"name\":\"t\",\"duration\":\"1m\",\"zones\":[\"us-east-1a\",\"us-east-1b\"],"
             "\"infrastructure\":{\"target_groups\":[{\"name\":\"tg\"}],"
             "\"albs\":[{\"name\":\"front\",\"listeners\":[{\"port\":80,"
             "\"default_action\":{\"forward\":\"tg\"}}]}],"
             "\"launch_configurations\":[{\"name\":\"lc\",\"app\":{\"service_ms\":10}}],"
             "\"groups\":[{\"name\":\"g\",\"launch_configuration\":\"lc\",\"min\":1,"
             "\"max\":2,\"target_groups\":[\"tg\"]}]},\"load\":%s}",
             load);
    f->sc = sim_scenario_parse(text, "t.json", err);
    if (!f->sc)
        fail_msg("scenario: %s", err);
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)f->srv.port);
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    f->tg.addrlen = sizeof(*a);
    f->tg.lb = "front";
    f->tg.listener_port = 80;
    snprintf(f->host, sizeof(f->host), "front-1.us-east-1.elb.example");
    f->tg.host = f->host;
    f->cfg.sc = f->sc;
    f->cfg.targets = &f->tg;
    f->cfg.ntargets = 1;
    f->cfg.time_scale = time_scale;
    f->cfg.timeout_us = 5000000;
}

#define MIX_3_1                                                                                    \
    "\"requests\":[{\"path\":\"/a/x\",\"weight\":3,\"headers\":{\"X-Tenant\":\"blue\"}},"          \
    "{\"method\":\"HEAD\",\"path\":\"/b\",\"weight\":1}]"

/* An open phase aimed at an ALB sends its requests mix, each kind exactly its share of the
 * requests (a multiple of the cycle here), HEAD replies read without a body. */
static void test_player_alb_mix_open_sends_each_kind_its_share(void **state)
{
    struct fixture f;
    struct player *p;
    struct totals t;
    char err[256];

    (void)state;
    /* 100 req/s for 20 emulated seconds at scale 10: 200 requests, 150 /a, 50 HEAD /b */
    setup_alb(&f,
              "[{\"at\":\"0s\",\"until\":\"20s\",\"target\":\"front\",\"rate\":100," MIX_3_1 "}]",
              10);
    p = player_create(&f.cfg, err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(player_start(p, err, sizeof(err)), 0);
    run_to_end(p, &t, 50, 30);
    assert_int_equal(t.sent, 200);
    assert_int_equal(t.completed, 200);
    assert_int_equal(atomic_load(&f.srv.path_a), 150);
    assert_int_equal(atomic_load(&f.srv.head_b), 50);
    assert_int_equal(atomic_load(&f.srv.tenant), 150); /* the kind's header, on its kind */
    player_destroy(p);
    teardown(&f);
}

/* Closed bursts on the emulated clock (the persistent burst engine) send the mix too. */
static void test_player_alb_mix_scaled_bursts(void **state)
{
    struct fixture f;
    struct player *p;
    struct totals t;
    char err[256];

    (void)state;
    /* bursts of 40 at 4 clients, 10 emulated s gaps (1 real s at x10), from 0 to 15 s:
     * two bursts, 80 requests: 60 /a, 20 HEAD /b */
    setup_alb(&f,
              "[{\"at\":\"0s\",\"until\":\"15s\",\"target\":\"front\",\"clients\":4,"
              "\"shape\":{\"type\":\"bursts\",\"requests\":40,\"gap\":\"10s\"}," MIX_3_1 "}]",
              10);
    f.cfg.scaled = 1;
    f.cfg.weight = 1;
    p = player_create(&f.cfg, err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(player_start(p, err, sizeof(err)), 0);
    run_to_end(p, &t, 50, 30);
    assert_int_equal(t.sent, 80);
    assert_int_equal(t.completed, 80);
    assert_int_equal(atomic_load(&f.srv.path_a), 60);
    assert_int_equal(atomic_load(&f.srv.head_b), 20);
    player_destroy(p);
    teardown(&f);
}

/* A phase on a listener the config has no address for is refused, naming the key. */
static void test_player_alb_unknown_listener_is_refused(void **state)
{
    struct fixture f;
    char err[256];

    (void)state;
    setup_alb(&f,
              "[{\"at\":\"0s\",\"until\":\"20s\",\"target\":\"front\",\"rate\":1,"
              "\"listener_port\":80}]",
              10);
    f.tg.listener_port = 8080; /* the config's only address is another listener's */
    assert_null(player_create(&f.cfg, err, sizeof(err)));
    assert_string_equal(err, "$.load[0].listener_port: no address for listener 80 of \"front\"");
    teardown(&f);
}

static void test_player_stop_ends_hung_requests_and_threads(void **state)
{
    struct fixture f;
    struct player *p;
    struct player_period pp;
    char err[256];
    int before;
    int64_t t0;

    (void)state;
    /* a server that never answers: stop waits for the requests' timeout (0.3 s), no more */
    setup(&f, "2h",
          "[{\"at\":\"0s\",\"until\":\"1h\",\"target\":\"lb\",\"clients\":5},"
          "{\"at\":\"0s\",\"until\":\"1h\",\"target\":\"lb\",\"rate\":20}]",
          "/hang", 1);
    f.cfg.timeout_us = 300000;
    before = thread_count();
    p = player_create(&f.cfg, err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(player_start(p, err, sizeof(err)), 0);
    while (atomic_load(&f.srv.requests) < 5)
        sleep_ms(10);
    assert_true(thread_count() > before);
    t0 = conn_now_us();
    player_stop(p);
    /* a hang would never return; the bound is loose on purpose (noisy machines) */
    assert_true(conn_now_us() - t0 < 10000000);
    assert_int_equal(thread_count(), before);
    period_init(&pp);
    player_take(p, &pp);
    assert_true(pp.sent >= 5);
    assert_int_equal(pp.completed, 0);
    assert_int_equal(pp.failed, pp.sent);
    assert_int_equal(pp.status_5xx, 0);
    player_stop(p); /* idempotent */
    cm_hist_cleanup(&pp.lat);
    player_destroy(p);
    teardown(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_player_open_constant_sends_the_integral),
        cmocka_unit_test(test_player_time_scale_compresses_phase_times),
        cmocka_unit_test(test_player_closed_bursts_send_n_per_burst),
        cmocka_unit_test(test_player_scaled_bursts_keep_their_connections),
        cmocka_unit_test(test_player_scaled_bursts_through_a_tcp_listener),
        cmocka_unit_test(test_player_closed_takes_add_up_and_report_clients),
        cmocka_unit_test(test_player_think_time_paces_closed_clients),
        cmocka_unit_test(test_player_5xx_are_failures),
        cmocka_unit_test(test_player_missing_target_is_refused),
        cmocka_unit_test(test_player_stop_ends_hung_requests_and_threads),
        cmocka_unit_test(test_player_alb_mix_open_sends_each_kind_its_share),
        cmocka_unit_test(test_player_alb_mix_scaled_bursts),
        cmocka_unit_test(test_player_alb_unknown_listener_is_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
