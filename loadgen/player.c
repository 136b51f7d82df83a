/* loadgen/player.c: see player.h.
 *
 * One host thread per phase plays it with the load engine (conn_run blocks until its run
 * ends): an open phase as one run per chunk of at most SCHED_MAX_PHASES schedule pieces
 * built from the phase rule (rates unscaled, piece lengths divided by the time scale, the
 * chunk's schedule anchored at its real start so that chunks keep the timeline); a closed
 * phase as one run whose sending connections follow the phase's clients; closed bursts
 * as one run per burst (max_requests N at min(clients, N) connections, as `ab -n N -c C`)
 * followed by the gap, or, on the emulated clock, by the persistent burst engine
 * (loadgen/burst.c: its connections open for the whole phase). A conductor thread wakes at the
 * phases' breaks (start, shape edges, grid cells, end) to set the clients of closed runs and to
 * stop the runs whose phase ended. Every run reports through its phase's conn_ctl, which
 * player_take drains.
 *
 * Gaps of closed bursts and think times are real time when service times are (ab's loop
 * sleeps real seconds, and the share of time the burst keeps the instances busy, their
 * CPU, is then the simulator's), emulated time when the instances serve on the emulated
 * clock (cfg.scaled; then each request stands for cfg.weight of the scenario's). Every
 * other scenario time (phase bounds, shape times, open bursts' on/off, trace rows) is
 * divided by the time scale. */
#include "loadgen/player.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "loadgen/burst.h"
#include "loadgen/conn.h"
#include "loadgen/mix.h"
#include "loadgen/sched.h"
#include "scaler/sim/load.h"

#define GRID_US            INT64_C(1000000) /* the simulator's DES grid for ramp and diurnal */
#define DIURNAL_PIECES     2000 /* at most this many schedule pieces per diurnal phase */
#define OPEN_CONNS_MIN     8
#define OPEN_GRACE_US      INT64_C(1000000) /* real time an open phase may lag past its end */
#define DEFAULT_TIMEOUT_US INT64_C(10000000)
#define DEFAULT_MAX_CONNS  4096
#define FD_RESERVE         128 /* descriptors left to the rest of the process */

enum run_kind {
    RUN_OPEN = 0,
    RUN_CLOSED,
    RUN_BURSTS,
};

struct run {
    struct player *p;
    const struct sim_phase *ph;
    const struct player_target *tg;
    enum run_kind kind;
    int64_t at_us, end_us; /* scenario µs */
    int64_t stop_us;       /* scenario µs at which the conductor stops its engine runs */
    int conns;             /* connections its engine runs may open */
    char *req;
    size_t req_len;
    struct req_mix mix; /* the phase's `requests` (an ALB), when has_mix */
    int has_mix;
    int keepalive;
    struct conn_ctl ctl;
    struct player_bursts bst; /* scaled bursts: how the gaps were kept (its thread only) */
    pthread_t tid;
    int started;
    _Atomic int done;
};

struct player {
    struct player_config cfg;
    int64_t timeout_us;
    struct run *runs;
    int nruns;
    int64_t t0_us; /* conn_now_us() at player_start */
    int started, stopped;
    _Atomic int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* CLOCK_MONOTONIC; broadcast on stop */
    pthread_t conductor;
    int conductor_started;
};

/* ---- clocks ---- */

/* The real (conn_now_us) time at which scenario time t_us comes. */
static int64_t real_at(const struct player *p, int64_t t_us)
{
    return p->t0_us + (int64_t)ceil((double)t_us / p->cfg.time_scale);
}

/* Scenario µs now. */
static int64_t scen_now(const struct player *p)
{
    return (int64_t)floor((double)(conn_now_us() - p->t0_us) * p->cfg.time_scale);
}

/* Sleeps until conn_now_us() >= until. Returns 0 then, or -1 as soon as the player
 * stops. */
static int sleep_until(struct player *p, int64_t until)
{
    int stopped;

    pthread_mutex_lock(&p->mu);
    while (!atomic_load(&p->stop)) {
        struct timespec ts;
        if (conn_now_us() >= until)
            break;
        ts.tv_sec = until / 1000000;
        ts.tv_nsec = (long)(until % 1000000) * 1000;
        pthread_cond_timedwait(&p->cv, &p->mu, &ts);
    }
    stopped = atomic_load(&p->stop);
    pthread_mutex_unlock(&p->mu);
    return stopped ? -1 : 0;
}

/* Real requests per request of the scenario's rates and bursts: 1, or 1 / weight. */
static double per_request(const struct player *p)
{
    return p->cfg.scaled ? 1.0 / p->cfg.weight : 1.0;
}

/* Real µs for scenario µs of think time or a burst's gap. */
static int64_t pause_us(const struct player *p, double us, int weighted)
{
    if (!p->cfg.scaled)
        return llround(us);
    return llround(us * (weighted ? p->cfg.weight : 1.0) / p->cfg.time_scale);
}

/* Requests one closed burst sends. */
static uint64_t burst_requests(const struct player *p, const struct sim_phase *ph)
{
    double n = (double)ph->burst_requests * per_request(p);

    return n < 1 ? 1 : (uint64_t)llround(n);
}

/* ---- the phase rule, as the player uses it ---- */

static int64_t duration_ms(const struct player *p)
{
    return p->cfg.sc->duration_ms;
}

/* The grid a phase's schedule pieces use: the simulator's, coarser for long diurnal
 * phases so that the schedule stays small. */
static int64_t piece_grid_us(const struct run *r)
{
    int64_t g = GRID_US, len = r->end_us - r->at_us;

    if (r->ph->shape == SIM_SHAPE_DIURNAL && len / DIURNAL_PIECES > g)
        g = (len / DIURNAL_PIECES + GRID_US - 1) / GRID_US * GRID_US;
    return g;
}

/* The open-model piece starting at t: until *nb, rate from *r0 to *r1 (linear). */
static void open_piece(const struct run *r, int64_t t, int64_t *nb, double *r0, double *r1)
{
    const struct sim_phase *ph = r->ph;
    int64_t g = piece_grid_us(r);

    if (ph->shape == SIM_SHAPE_RAMP && ph->ntrace == 0) {
        /* linear over the phase: the same count as the grid's mid-cell values */
        double len = (double)(r->end_us - r->at_us);
        *nb = r->end_us;
        *r0 = ph->value + (ph->to - ph->value) * (double)(t - r->at_us) / len;
        *r1 = ph->to;
        return;
    }
    *nb = sim_phase_next_break_us(ph, duration_ms(r->p), t, g);
    if (*nb > r->end_us)
        *nb = r->end_us;
    *r0 = *r1 = sim_phase_value_at(ph, duration_ms(r->p), t, g);
}

/* Highest rate (open) or clients (closed) the phase reaches. */
static double phase_peak(const struct run *r)
{
    double peak = 0;
    int64_t t = r->at_us;

    while (t < r->end_us) {
        int64_t nb;
        double r0, r1;
        if (r->kind == RUN_OPEN) {
            open_piece(r, t, &nb, &r0, &r1);
        } else {
            nb = sim_phase_next_break_us(r->ph, duration_ms(r->p), t, GRID_US);
            r0 = r1 = sim_phase_value_at(r->ph, duration_ms(r->p), t, GRID_US);
        }
        if (r0 > peak)
            peak = r0;
        if (r1 > peak)
            peak = r1;
        if (nb <= t)
            break;
        t = nb;
    }
    return peak;
}

/* ---- engine runs ---- */

static void engine_cfg(struct run *r, struct conn_cfg *cfg)
{
    const struct player *p = r->p;

    memset(cfg, 0, sizeof(*cfg));
    memcpy(&cfg->addr, &r->tg->addr, sizeof(cfg->addr));
    cfg->addrlen = r->tg->addrlen;
    cfg->req = r->req;
    cfg->req_len = r->req_len;
    cfg->keepalive = r->keepalive;
    cfg->mix = r->has_mix ? &r->mix : NULL;
    cfg->threads = p->cfg.threads > 0 ? p->cfg.threads : 1;
    cfg->connections = r->conns;
    if (cfg->threads > cfg->connections)
        cfg->threads = cfg->connections;
    cfg->timeout_us = p->timeout_us;
    if (r->ph->closed) /* real time as service times, or both emulated */
        cfg->think_us = pause_us(p, r->ph->think_ms * 1000, 1);
    cfg->recv_errors_ok = 1; /* a reset is a failed request, not the end of the run */
    cfg->nolength = 1;       /* the ELB's 503 and the instances' replies differ in length */
    cfg->ctl = &r->ctl;
}

static void engine_run(struct run *r, const struct conn_cfg *cfg)
{
    struct conn_result *res = cm_xcalloc(1, sizeof(*res));

    if (conn_run(cfg, res) < 0)
        log_warn("player: %s: the load engine did not start: %s", r->ph->path, res->why);
    stats_cleanup(&res->st);
    free(res);
}

/* Closed bursts with emulated service times: a burst lasts a few real ms, shorter than
 * an engine run's start (a thread, its connections: 10-470 real ms measured on a loaded
 * host, minutes of emulated time at x600) and teardown. The persistent engine
 * (loadgen/burst.c) keeps its connections open from the phase's start to its end and
 * releases each burst's requests to them, in this thread. */
static void play_bursts_scaled(struct run *r, int64_t end)
{
    struct player *p = r->p;
    struct burst_cfg bc;
    char err[256];

    memset(&bc, 0, sizeof(bc));
    memcpy(&bc.addr, &r->tg->addr, sizeof(bc.addr));
    bc.addrlen = r->tg->addrlen;
    bc.req = r->req;
    bc.req_len = r->req_len;
    bc.keepalive = r->keepalive;
    bc.mix = r->has_mix ? &r->mix : NULL;
    bc.connections = r->conns;
    bc.requests = burst_requests(p, r->ph);
    bc.gap_us = pause_us(p, (double)r->ph->gap_ms * 1000, 0);
    bc.think_us = pause_us(p, r->ph->think_ms * 1000, 1);
    bc.timeout_us = p->timeout_us;
    bc.start_us = real_at(p, r->at_us);
    bc.end_us = end;
    bc.ctl = &r->ctl;
    bc.on_late = p->cfg.on_late;
    bc.late_ud = p->cfg.late_ud;
    bc.late_min_us = p->cfg.late_min_us;
    if (burst_run(&bc, &r->bst, err, sizeof(err)) < 0)
        log_warn("player: %s: %s", r->ph->path, err);
}

static void play_open(struct run *r)
{
    struct player *p = r->p;
    struct sched *s = cm_xmalloc(sizeof(*s));
    struct conn_cfg cfg;
    int64_t t = r->at_us;

    engine_cfg(r, &cfg);
    cfg.sched = s;
    while (t < r->end_us && !atomic_load(&p->stop) && !atomic_load(&r->ctl.stop)) {
        int64_t chunk_t = t;
        s->n = 0;
        while (t < r->end_us && s->n < SCHED_MAX_PHASES) {
            int64_t nb, d;
            double r0, r1;
            open_piece(r, t, &nb, &r0, &r1);
            if (nb <= t)
                nb = r->end_us;
            d = real_at(p, nb) - real_at(p, t);
            if (d > 0) {
                /* scaled service: the emulated rate in real requests per real second */
                double f = p->cfg.scaled ? p->cfg.time_scale / p->cfg.weight : 1.0;
                s->phase[s->n].dur_us = d;
                s->phase[s->n].r0 = r0 * f;
                s->phase[s->n].r1 = r1 * f;
                s->n++;
            }
            t = nb;
        }
        if (s->n == 0 || sched_total_count(s) == 0)
            continue;
        r->ctl.origin_us = real_at(p, chunk_t);
        engine_run(r, &cfg);
    }
    free(s);
}

static void play_closed(struct run *r)
{
    struct conn_cfg cfg;
    double v = sim_phase_value_at(r->ph, duration_ms(r->p), r->at_us, GRID_US);

    engine_cfg(r, &cfg);
    if (!atomic_load(&r->ctl.stop))
        atomic_store(&r->ctl.clients, v < r->conns ? (int)v : r->conns);
    engine_run(r, &cfg); /* until the conductor stops it at the phase's end */
}

static void play_bursts(struct run *r)
{
    struct player *p = r->p;
    struct conn_cfg cfg;
    int64_t end = real_at(p, r->end_us);

    if (r->ph->value < 1)
        return; /* no clients: nothing to send */
    if (p->cfg.scaled) {
        play_bursts_scaled(r, end);
        return;
    }
    engine_cfg(r, &cfg);
    cfg.max_requests = burst_requests(p, r->ph);
    while (!atomic_load(&p->stop) && !atomic_load(&r->ctl.stop) && conn_now_us() < end) {
        int64_t gap_end;
        engine_run(r, &cfg);
        gap_end = conn_now_us() + r->ph->gap_ms * 1000; /* real time: ab's loop sleeps */
        if (gap_end > end)
            gap_end = end;
        if (sleep_until(p, gap_end) < 0)
            break;
    }
}

static void *host_main(void *arg)
{
    struct run *r = arg;
    struct player *p = r->p;

    if (sleep_until(p, real_at(p, r->at_us)) == 0) {
        switch (r->kind) {
        case RUN_OPEN:
            play_open(r);
            break;
        case RUN_CLOSED:
            play_closed(r);
            break;
        case RUN_BURSTS:
            play_bursts(r);
            break;
        }
    }
    atomic_store(&r->done, 1);
    return NULL;
}

/* Sets the clients of closed runs at the phases' breaks and stops runs at their ends. */
static void *conductor_main(void *arg)
{
    struct player *p = arg;
    int64_t due = 0;

    for (;;) {
        int64_t now = scen_now(p), next = INT64_MAX;

        if (now < due)
            now = due; /* woken at the real time of `due`: it has come */
        for (int i = 0; i < p->nruns; i++) {
            struct run *r = &p->runs[i];
            if (now >= r->stop_us) {
                atomic_store(&r->ctl.stop, 1);
                continue;
            }
            if (r->stop_us < next)
                next = r->stop_us;
            if (r->kind == RUN_CLOSED) {
                double v = sim_phase_value_at(r->ph, duration_ms(p), now, GRID_US);
                int64_t nb = sim_phase_next_break_us(r->ph, duration_ms(p), now, GRID_US);
                if (now >= r->at_us)
                    atomic_store(&r->ctl.clients, v < r->conns ? (int)v : r->conns);
                if (nb < next)
                    next = nb;
            }
        }
        if (next == INT64_MAX)
            break;
        due = next;
        if (sleep_until(p, real_at(p, next)) < 0)
            break;
    }
    return NULL;
}

/* ---- create / start / take / stop ---- */

/* The phase's load balancer; of an ALB, the listener on its listener_port (0: the first
 * listed). */
static const struct player_target *find_target(const struct player_config *cfg,
                                               const struct sim_phase *ph)
{
    for (int i = 0; i < cfg->ntargets; i++)
        if (cfg->targets[i].lb && ph->target && strcmp(cfg->targets[i].lb, ph->target) == 0 &&
            (ph->listener_port == 0 || cfg->targets[i].listener_port == ph->listener_port))
            return &cfg->targets[i];
    return NULL;
}

static int build_request(struct run *r, const struct sim_scenario *sc, char *err, size_t errlen)
{
    const char *path = r->tg->path ? r->tg->path : "/";
    int lb = sim_scenario_lb_index(sc, r->ph->target);
    const char *proto = "HTTP";

    if (lb >= 0 && sc->lbs[lb].nlisteners > 0 && sc->lbs[lb].listeners[0].protocol)
        proto = sc->lbs[lb].listeners[0].protocol;
    /* a TCP listener pipes a connection to one instance: a connection per request, so
     * that requests spread as the simulator spreads them */
    r->keepalive = strcmp(proto, "TCP") != 0 && strcmp(proto, "SSL") != 0;
    if (r->ph->nrequests > 0) {
        char why[200];
        /* an ALB phase's mix: its kinds in their weights' proportions, the Host the load
         * balancer's name unless a kind names its own */
        if (req_mix_build(&r->mix, r->ph->requests, r->ph->nrequests,
                          r->tg->host ? r->tg->host : "localhost", r->keepalive, why,
                          sizeof(why)) != 0) {
            snprintf(err, errlen, "%s.requests: %s", r->ph->path, why);
            return -1;
        }
        r->has_mix = 1;
        return 0;
    }
    r->req = cm_xasprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: loadgen-player\r\n"
                          "Accept: */*\r\n%s\r\n",
                          path, r->tg->host ? r->tg->host : "localhost",
                          r->keepalive ? "" : "Connection: close\r\n");
    r->req_len = strlen(r->req);
    return 0;
}

/* Splits max_connections between phases that overlap in time: at any time the phases
 * running together hold at most the cap. */
static void share_connections(struct player *p, const double *want)
{
    int cap = p->cfg.max_connections > 0 ? p->cfg.max_connections : DEFAULT_MAX_CONNS;
    struct rlimit rl;

    /* a connection is a descriptor: never more than the process may open */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (rlim_t)cap + FD_RESERVE > rl.rlim_cur)
        cap = rl.rlim_cur > 2 * FD_RESERVE ? (int)(rl.rlim_cur - FD_RESERVE) : FD_RESERVE;

    for (int i = 0; i < p->nruns; i++) {
        struct run *r = &p->runs[i];
        double sum = 0, c;
        for (int j = 0; j < p->nruns; j++) {
            const struct run *o = &p->runs[j];
            if (o->at_us < r->end_us && r->at_us < o->end_us)
                sum += want[j];
        }
        c = want[i];
        if (sum > cap)
            c = floor(want[i] * cap / sum);
        r->conns = c < 1 ? 1 : (int)c;
    }
}

struct player *player_create(const struct player_config *cfg, char *err, size_t errlen)
{
    struct player *p = NULL;
    double *want = NULL;

    if (!cfg || !cfg->sc) {
        snprintf(err, errlen, "no scenario");
        return NULL;
    }
    if (!(cfg->time_scale > 0) || !isfinite(cfg->time_scale)) {
        snprintf(err, errlen, "time scale must be > 0");
        return NULL;
    }
    if (cfg->scaled && !(cfg->weight >= 1 && isfinite(cfg->weight))) {
        snprintf(err, errlen, "request weight must be >= 1");
        return NULL;
    }
    if (cfg->timeout_us < 0 || cfg->max_connections < 0 || cfg->threads < 0) {
        snprintf(err, errlen, "timeout, connections and threads must be >= 0");
        return NULL;
    }
    p = cm_xcalloc(1, sizeof(*p));
    p->cfg = *cfg;
    p->timeout_us = cfg->timeout_us > 0 ? cfg->timeout_us : DEFAULT_TIMEOUT_US;
    pthread_mutex_init(&p->mu, NULL);
    {
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&p->cv, &ca);
        pthread_condattr_destroy(&ca);
    }
    p->runs = cm_xcalloc((size_t)cfg->sc->nphases + 1, sizeof(*p->runs));
    want = cm_xcalloc((size_t)cfg->sc->nphases + 1, sizeof(*want));
    for (int i = 0; i < cfg->sc->nphases; i++) {
        const struct sim_phase *ph = &cfg->sc->phases[i];
        struct run *r = &p->runs[p->nruns];

        r->p = p;
        r->ph = ph;
        r->tg = find_target(cfg, ph);
        if (!r->tg && ph->listener_port) {
            snprintf(err, errlen, "%s.listener_port: no address for listener %d of \"%s\"",
                     ph->path, ph->listener_port, ph->target ? ph->target : "");
            goto fail;
        }
        if (!r->tg) {
            snprintf(err, errlen, "%s.target: no address for load balancer \"%s\"", ph->path,
                     ph->target ? ph->target : "");
            goto fail;
        }
        if (r->tg->addrlen == 0) {
            snprintf(err, errlen, "%s.target: load balancer \"%s\" has no address", ph->path,
                     ph->target);
            goto fail;
        }
        if (ph->closed && ph->shape == SIM_SHAPE_BURSTS && ph->burst_requests <= 0) {
            snprintf(err, errlen,
                     "%s.shape: closed bursts are played as \"requests\" per burst, not \"on\"",
                     ph->path);
            goto fail;
        }
        r->kind = !ph->closed ? RUN_OPEN : ph->shape == SIM_SHAPE_BURSTS ? RUN_BURSTS : RUN_CLOSED;
        r->at_us = ph->at_ms * 1000;
        r->end_us = sim_phase_end_us(ph, cfg->sc->duration_ms);
        /* a closed phase stops at its end; an open one's schedule ends there too, and
         * requests it could not send by then (every connection busy) may go late for
         * OPEN_GRACE_US, no longer: a backlog never spills into later phases */
        r->stop_us = r->end_us;
        if (r->kind == RUN_OPEN)
            r->stop_us += (int64_t)ceil((double)OPEN_GRACE_US * cfg->time_scale);
        conn_ctl_init(&r->ctl);
        /* scaled service: latencies on the emulated clock, per request of the scenario */
        r->ctl.lat_mult = cfg->scaled ? cfg->time_scale / cfg->weight : 1.0;
        p->nruns++;
        if (build_request(r, cfg->sc, err, errlen) != 0)
            goto fail;
        if (r->kind == RUN_OPEN) {
            /* enough connections for the peak rate with every request taking its whole
             * timeout (Little's law), so that the server, not the connection count,
             * limits an overload (as the simulator's open model, the ELB's surge queue
             * and 503s show it);
             * beyond, requests wait for a connection and their latency says so */
            double f = cfg->scaled ? cfg->time_scale / cfg->weight : 1.0;
            want[i] = ceil(phase_peak(r) * f * (double)p->timeout_us / 1e6) + OPEN_CONNS_MIN;
        } else {
            double c = phase_peak(r);
            if (r->kind == RUN_BURSTS && c > (double)burst_requests(p, ph))
                c = (double)burst_requests(p, ph);
            want[i] = c;
        }
    }
    share_connections(p, want);
    free(want);
    return p;

fail:
    free(want);
    player_destroy(p);
    return NULL;
}

int player_start(struct player *p, char *err, size_t errlen)
{
    if (p->started) {
        snprintf(err, errlen, "already started");
        return -1;
    }
    p->started = 1;
    p->t0_us = conn_now_us();
    for (int i = 0; i < p->nruns; i++) {
        struct run *r = &p->runs[i];
        if (r->at_us >= r->end_us) {
            atomic_store(&r->done, 1);
            continue;
        }
        if (pthread_create(&r->tid, NULL, host_main, r) != 0) {
            snprintf(err, errlen, "cannot start a load thread: %s", strerror(errno));
            player_stop(p);
            return -1;
        }
        r->started = 1;
    }
    if (pthread_create(&p->conductor, NULL, conductor_main, p) != 0) {
        snprintf(err, errlen, "cannot start the conductor thread: %s", strerror(errno));
        player_stop(p);
        return -1;
    }
    p->conductor_started = 1;
    return 0;
}

int64_t player_elapsed_ms(const struct player *p)
{
    if (!p->started)
        return 0;
    return scen_now(p) / 1000;
}

int player_running(const struct player *p)
{
    if (!p->started || p->stopped)
        return 0;
    for (int i = 0; i < p->nruns; i++)
        if (p->runs[i].started && !atomic_load(&p->runs[i].done))
            return 1;
    return 0;
}

void player_take(struct player *p, struct player_period *out)
{
    struct conn_ctl_counts n;
    double open = 0, closed = 0;
    int nopen = 0, nclosed = 0;
    int64_t t;

    memset(&n, 0, sizeof(n));
    cm_hist_reset(&out->lat);
    for (int i = 0; i < p->nruns; i++)
        conn_ctl_take(&p->runs[i].ctl, &n, &out->lat);
    if (p->cfg.scaled && p->cfg.weight != 1) {
        /* each request stands for weight of the scenario's */
        out->sent = (uint64_t)llround((double)n.sent * p->cfg.weight);
        out->completed = (uint64_t)llround((double)n.completed * p->cfg.weight);
        out->failed = (uint64_t)llround((double)n.failed * p->cfg.weight);
        out->status_5xx = (uint64_t)llround((double)n.status_5xx * p->cfg.weight);
    } else {
        out->sent = n.sent;
        out->completed = n.completed;
        out->failed = n.failed;
        out->status_5xx = n.status_5xx;
    }
    /* the offered load as the simulator's samples state it: at the period's last µs */
    t = p->started ? scen_now(p) - 1 : -1;
    for (int i = 0; i < p->nruns && t >= 0; i++) {
        const struct run *r = &p->runs[i];
        if (t < r->at_us || t >= r->end_us)
            continue;
        if (r->ph->closed) {
            closed += sim_phase_value_at(r->ph, duration_ms(p), t, GRID_US);
            nclosed++;
        } else {
            open += sim_phase_value_at(r->ph, duration_ms(p), t, GRID_US);
            nopen++;
        }
    }
    out->load_is_clients = nopen == 0 && nclosed > 0;
    out->load = nopen ? open : closed;
}

void player_bursts(const struct player *p, struct player_bursts *out)
{
    memset(out, 0, sizeof(*out));
    for (int i = 0; p && i < p->nruns; i++) {
        const struct player_bursts *b = &p->runs[i].bst;

        if (!b->bursts)
            continue;
        out->bursts += b->bursts;
        out->gaps += b->gaps;
        out->gap_ms = b->gap_ms;
        out->gap_sum_ms += b->gap_sum_ms;
        out->start_sum_ms += b->start_sum_ms;
        if (b->start_max_ms > out->start_max_ms)
            out->start_max_ms = b->start_max_ms;
        out->excess_sum_ms += b->excess_sum_ms;
        out->busy_sum_ms += b->busy_sum_ms;
        out->connects += b->connects;
        out->connections += b->connections;
    }
}

void player_stop(struct player *p)
{
    if (!p || !p->started || p->stopped)
        return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, 1);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nruns; i++)
        atomic_store(&p->runs[i].ctl.stop, 1);
    if (p->conductor_started)
        pthread_join(p->conductor, NULL);
    for (int i = 0; i < p->nruns; i++)
        if (p->runs[i].started)
            pthread_join(p->runs[i].tid, NULL);
    p->stopped = 1;
}

void player_destroy(struct player *p)
{
    if (!p)
        return;
    player_stop(p);
    for (int i = 0; i < p->nruns; i++) {
        conn_ctl_cleanup(&p->runs[i].ctl);
        free(p->runs[i].req);
        req_mix_cleanup(&p->runs[i].mix);
    }
    free(p->runs);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
