/* scaler/sim/model.c: instances as multi-server queues, load balancers, load sources;
 * a request-level discrete-event mode and a fluid per-tick mode. */
#include "scaler/sim/model.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/rng.h"
#include "scaler/sim/load.h"
#include "scaler/sim/queue.h"

/* Quantile levels the fluid mode records latency at: bin [lo, hi) of probability. */
#define NLEVELS 16
static const double level_edges[NLEVELS + 1] = { 0,    0.1,   0.2,   0.3,   0.4,  0.5,
                                                 0.6,  0.7,   0.8,   0.9,   0.95, 0.98,
                                                 0.99, 0.995, 0.998, 0.999, 1.0 };

enum ev_kind {
    EV_OPEN = 1, /* a = src, b = 1: an arrival now; b = 0: (re)draw the next arrival */
    EV_CLIENT,   /* a = src: a closed-model client sends after thinking */
    EV_RESPAWN,  /* a = src: closed-model breakpoint (start, shape edge, burst) */
    EV_DONE,     /* a = slot, b = src, d = gen, c = arrival us: service ends */
    EV_FAIL,     /* a = src: a request ends failed */
    EV_HUNGFAIL, /* a = slot, b = src, d = gen: a request stuck on a hung instance */
};

struct qent {
    int64_t arr_us;
    int src;
};

struct inst {
    int live;
    int gen;
    char id[32];
    char zone[32];
    int group;
    const struct sim_app *app;
    int app_idx;
    int64_t boot_end_us;
    int up, dead, hung;
    int64_t hang_until_us;
    double slow;
    int64_t slow_until_us;
    /* DES */
    int busy;
    int stuck; /* requests waiting on a hung instance */
    struct qent *q;
    int qhead, qlen, qcap;
    /* fluid */
    double backlog;
    double mu;     /* service rate, requests/s: workers / (mean service x slow) */
    int u_lb;      /* the uniform route whose u_acc it shares, or -1 */
    double u_base; /* that route's u_acc when it joined */
    /* integrals */
    double busy_area_us; /* busy workers x cpu_per_request x us */
    double up_us;
    int64_t last_us;
};

/* Most zones a zoned route set tells apart. */
#define MAX_ROUTE_ZONES 16

struct route {
    int *slots;
    int n, cap;
    int rr;
    int round_robin;
    /* cross-zone off: zone[i] of slots[i]; nz zones (0 when not zoned); per zone the
     * next pick (DES) and, in fluid mode, each entry's share w[i] of the route's open
     * load and bad_w the share that meets dead or hung instances (with agg_valid) */
    int *zone;
    int nz;
    int zrr, zone_rr[MAX_ROUTE_ZONES];
    double *w;
    double agg_hung_w, agg_dead_w, agg_zone_max_load;
    /* fluid: from the last tick, while agg_valid (cleared by any change to the route set
     * or its instances): the route set's service rate and whether some backlog remains */
    int agg_valid;
    double agg_mu_nom, agg_mu_ok, agg_mu_hung, agg_mu_dead, agg_s_mean_us;
    int agg_backlog;
    /* uniform: every instance of the route set is up, serving, of one class and idle
     * between ticks (no backlog), so each tick adds the same busy area to each: it is
     * summed once in u_acc and each instance's share is u_acc - its u_base (route_settle
     * hands it out before anything changes) */
    int uniform;
    double u_acc;
};

#define STUCK_RING 64

/* A continuous shape's value in one grid cell (phase_value() is a function of the cell). */
struct phase_memo {
    int64_t cell; /* -1: empty */
    double v;
};

/* Cells remembered per phase: a sample's demand rereads the cells its ticks just used. */
#define PHASE_MEMO_CELLS 8

struct src {
    const struct sim_phase *ph;
    int lb;
    int64_t at_us, until_us;
    /* closed DES */
    int active;
    int64_t issued;
    /* fluid */
    double burst_left;
    int64_t gap_until_us;
    int burst_started;
    double stuck[STUCK_RING]; /* clients stuck on hung instances, by second of release */
    double stuck_total;
    int stuck_slots; /* entries of stuck[] above 0 */
    /* ramp and diurnal shapes: values by cell, or NULL (a cache, written by const reads) */
    struct phase_memo *memo;
};

struct app_cache {
    const struct sim_app *app;
    double q_us[NLEVELS]; /* service quantiles at level mid-points */
    double mean_us;
};

struct sim_model {
    enum sim_mode mode;
    const struct sim_scenario *sc;
    struct sc_rng rng;
    struct sim_queue q;
    int64_t now_us;
    int64_t start_us;
    int64_t tick_us;
    int64_t grid_us; /* continuous shapes are piecewise constant on this grid */

    struct inst *insts;
    int ninsts, capinsts;
    /* sim_model_cpu_table(), as read at cpu_at_us while slot_ver was cpu_ver (the
     * integrals at one instant change only when an instance comes, goes or dies) */
    struct sim_slot_cpu *cpu;
    int capcpu, ncpu;
    int64_t cpu_at_us;
    uint64_t slot_ver, cpu_ver;

    struct route *routes; /* per load balancer */
    struct sim_lb_counters *lbc;
    int nlbs;

    struct src *srcs;
    int nsrcs;

    struct app_cache *apps;
    int napps;

    struct cm_hist hist;
    /* fluid: latency recordings waiting to be added (same parameters tick after tick) */
    struct {
        const struct app_cache *ac;
        double slow, wait, erl_c, erl_rate;
        double n;
    } pend;
    /* id -> slot index (open addressing, rebuilt when instances come and go) */
    int *index;
    int index_cap;
    /* sim_model_next_control_us(), kept current by every change to boots, hangs, slowness */
    int64_t ctl_next_us;
    uint64_t health_ver; /* sim_model_health_version() */
    int backlog_seen;    /* fluid: the last tick left a backlog somewhere */
    /* fluid: recordings not yet in hist (sim_model_latency_entries) */
    struct sim_latency_entry *ents;
    int nents, capents;
    int ents_spilled; /* since the last reset, some went to hist */
};

/* Recordings kept as a list before they go to the histogram. */
#define MAX_LATENCY_ENTRIES 8192

const char *sim_mode_str(enum sim_mode m)
{
    return m == SIM_MODE_DES ? "des" : "fluid";
}

/* ---- distributions ---- */

/* Inverse of the standard normal CDF (Acklam's rational approximation, |rel err| < 1.2e-9). */
static double norm_inv(double p)
{
    static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
                                -2.759285104469687e+02, 1.383577518672690e+02,
                                -3.066479806614716e+01, 2.506628277459239e+00 };
    static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
                                -1.556989798598866e+02, 6.680131188771972e+01,
                                -1.328068155288572e+01 };
    static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
                                -2.400758277161838e+00, -2.549732539343734e+00,
                                4.374664141464968e+00,  2.938163982698783e+00 };
    static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                3.754408661907416e+00 };
    double q, r;

    if (p <= 0)
        return -INFINITY;
    if (p >= 1)
        return INFINITY;
    if (p < 0.02425) {
        q = sqrt(-2 * log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    if (p > 1 - 0.02425) {
        q = sqrt(-2 * log(1 - p));
        return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    q = p - 0.5;
    r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double sim_app_service_quantile_us(const struct sim_app *app, double p)
{
    switch (app->dist) {
    case SIM_DIST_FIXED:
        return app->service_mean_ms * 1000.0;
    case SIM_DIST_EXPONENTIAL:
        return -app->service_mean_ms * 1000.0 * log(1 - p);
    case SIM_DIST_LOGNORMAL:
        return app->service_median_ms * 1000.0 * exp(app->service_sigma * norm_inv(p));
    }
    return 0;
}

static double draw_service_us(struct sim_model *m, const struct sim_app *app)
{
    double u;

    switch (app->dist) {
    case SIM_DIST_FIXED:
        return app->service_mean_ms * 1000.0;
    case SIM_DIST_EXPONENTIAL:
        u = sc_rng_double(&m->rng);
        return -app->service_mean_ms * 1000.0 * log(1 - u);
    case SIM_DIST_LOGNORMAL: {
        /* Box-Muller, one of the pair */
        double u1 = sc_rng_double(&m->rng), u2 = sc_rng_double(&m->rng);
        double z = sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);
        return app->service_median_ms * 1000.0 * exp(app->service_sigma * z);
    }
    }
    return 0;
}

static double draw_exp_us(struct sim_model *m, double mean_us)
{
    return -mean_us * log(1 - sc_rng_double(&m->rng));
}

double sim_erlang_c(double a, int c)
{
    double b = 1;

    if (c <= 0 || a >= c)
        return 1;
    if (a <= 0)
        return 0;
    for (int k = 1; k <= c; k++)
        b = a * b / (k + a * b);
    return c * b / (c - a * (1 - b));
}

/* ---- shapes ---- */

/* The phase's value (rate or clients) at t, ignoring bursts' duty cycle for closed ones:
 * the rule of scaler/sim/load.h on the model's clock and grid. */
static double phase_value(const struct sim_model *m, const struct src *s, int64_t t_us)
{
    if (s->memo && t_us >= s->at_us && t_us < s->until_us) {
        /* sim_phase_value_at() holds a continuous shape still on each cell of the grid */
        int64_t cell = (t_us - s->at_us) / m->grid_us;
        struct phase_memo *pm = &s->memo[cell % PHASE_MEMO_CELLS];

        if (pm->cell != cell) {
            pm->cell = cell;
            pm->v = sim_phase_value_at(s->ph, m->sc->duration_ms, t_us - m->start_us, m->grid_us);
        }
        return pm->v;
    }
    return sim_phase_value_at(s->ph, m->sc->duration_ms, t_us - m->start_us, m->grid_us);
}

/* The next time after t at which phase_value may change (piecewise-constant grid of
 * grid_us for continuous shapes). */
static int64_t phase_next_break(const struct src *s, int64_t t_us, int64_t grid_us)
{
    /* the model's start, and a duration that clips the phase where the model did */
    int64_t start_us = s->at_us - s->ph->at_ms * 1000;
    int64_t dur_ms = (s->until_us - start_us) / 1000;
    int64_t nb = sim_phase_next_break_us(s->ph, dur_ms, t_us - start_us, grid_us);

    return nb == INT64_MAX ? INT64_MAX : nb + start_us;
}

/* ---- create / destroy ---- */

static int app_index(struct sim_model *m, const struct sim_app *app)
{
    for (int i = 0; i < m->napps; i++)
        if (m->apps[i].app == app)
            return i;
    return -1;
}

struct sim_model *sim_model_create(const struct sim_model_config *cfg)
{
    struct sim_model *m;
    const struct sim_scenario *sc = cfg->sc;

    if (!sc || (cfg->mode != SIM_MODE_DES && cfg->mode != SIM_MODE_FLUID))
        return NULL;
    m = cm_xcalloc(1, sizeof(*m));
    m->mode = cfg->mode;
    m->sc = sc;
    sc_rng_init(&m->rng, cfg->seed ^ 0x5ca1ab1e5eedULL);
    m->start_us = cfg->start_us;
    m->now_us = cfg->start_us;
    m->tick_us = cfg->tick_us > 0 ? cfg->tick_us : 1000000;
    m->grid_us = m->mode == SIM_MODE_DES ? 1000000 : 10000000;
    sim_queue_init(&m->q, cfg->start_us);
    m->nlbs = sc->nlbs;
    m->routes = cm_xcalloc((size_t)sc->nlbs + 1, sizeof(*m->routes));
    m->lbc = cm_xcalloc((size_t)sc->nlbs + 1, sizeof(*m->lbc));
    for (int i = 0; i < sc->nlbs; i++) {
        const char *proto = sc->lbs[i].nlisteners ? sc->lbs[i].listeners[0].protocol : "HTTP";
        m->routes[i].round_robin = strcmp(proto, "TCP") == 0 || strcmp(proto, "SSL") == 0;
    }
    m->apps = cm_xcalloc((size_t)sc->nlcs + 1, sizeof(*m->apps));
    for (int i = 0; i < sc->nlcs; i++) {
        struct app_cache *ac = &m->apps[m->napps++];
        ac->app = &sc->lcs[i].app;
        ac->mean_us = ac->app->service_mean_ms * 1000.0;
        for (int k = 0; k < NLEVELS; k++)
            ac->q_us[k] =
                sim_app_service_quantile_us(ac->app, (level_edges[k] + level_edges[k + 1]) / 2);
    }
    m->srcs = cm_xcalloc((size_t)sc->nphases + 1, sizeof(*m->srcs));
    for (int i = 0; i < sc->nphases; i++) {
        struct src *s = &m->srcs[m->nsrcs++];
        s->ph = &sc->phases[i];
        s->lb = sim_scenario_lb_index(sc, s->ph->target);
        s->at_us = cfg->start_us + s->ph->at_ms * 1000;
        s->until_us = cfg->start_us + s->ph->until_ms * 1000;
        if (s->until_us > cfg->start_us + sc->duration_ms * 1000)
            s->until_us = cfg->start_us + sc->duration_ms * 1000;
        s->gap_until_us = s->at_us;
        if (s->ph->ntrace == 0 &&
            (s->ph->shape == SIM_SHAPE_RAMP || s->ph->shape == SIM_SHAPE_DIURNAL)) {
            s->memo = cm_xcalloc(PHASE_MEMO_CELLS, sizeof(*s->memo));
            for (int k = 0; k < PHASE_MEMO_CELLS; k++)
                s->memo[k].cell = -1;
        }
        if (m->mode == SIM_MODE_DES) {
            struct sim_event_rec ev = { 0 };
            ev.t_us = s->at_us;
            ev.kind = s->ph->closed ? EV_RESPAWN : EV_OPEN;
            ev.a = i;
            ev.b = 0;
            if (s->at_us < s->until_us)
                sim_queue_push(&m->q, &ev);
        }
    }
    cm_hist_init(&m->hist, SIM_HIST_HIGHEST_US, SIM_HIST_DIGITS);
    m->ctl_next_us = INT64_MAX;
    return m;
}

void sim_model_destroy(struct sim_model *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->ninsts; i++)
        free(m->insts[i].q);
    free(m->insts);
    free(m->cpu);
    for (int i = 0; i < m->nlbs; i++) {
        free(m->routes[i].slots);
        free(m->routes[i].zone);
        free(m->routes[i].w);
    }
    free(m->routes);
    free(m->lbc);
    for (int i = 0; i < m->nsrcs; i++)
        free(m->srcs[i].memo);
    free(m->srcs);
    free(m->apps);
    sim_queue_cleanup(&m->q);
    cm_hist_cleanup(&m->hist);
    free(m->index);
    free(m->ents);
    free(m);
}

enum sim_mode sim_model_mode(const struct sim_model *m)
{
    return m->mode;
}

/* ---- instances ---- */

static inline void touch(struct inst *in, int64_t t_us)
{
    int64_t dt = t_us - in->last_us;

    if (dt <= 0)
        return;
    if (in->up && !in->dead) {
        in->up_us += (double)dt;
        if (!in->hung && in->busy > 0)
            in->busy_area_us += (double)in->busy * in->app->cpu_per_request * (double)dt;
    }
    in->last_us = t_us;
}

static void index_rebuild(struct sim_model *m);
static void control_update(struct sim_model *m);
static void route_settle(struct sim_model *m, int lb);

int sim_model_instance_start(struct sim_model *m, const char *id, int group,
                             const struct sim_app *app, const char *zone, int64_t now_us)
{
    int slot = -1;
    struct inst *in;
    int gen = 0;

    for (int i = 0; i < m->ninsts; i++) {
        if (!m->insts[i].live) {
            slot = i;
            break;
        }
    }
    if (slot < 0) {
        if (m->ninsts == m->capinsts) {
            m->capinsts = m->capinsts ? m->capinsts * 2 : 16;
            m->insts = cm_xrealloc(m->insts, (size_t)m->capinsts * sizeof(*m->insts));
        }
        slot = m->ninsts++;
        memset(&m->insts[slot], 0, sizeof(m->insts[slot]));
    }
    in = &m->insts[slot];
    gen = in->gen + 1;
    free(in->q);
    memset(in, 0, sizeof(*in));
    in->gen = gen;
    in->live = 1;
    m->slot_ver++;
    snprintf(in->id, sizeof(in->id), "%s", id);
    snprintf(in->zone, sizeof(in->zone), "%s", zone ? zone : "");
    in->group = group;
    in->app = app;
    in->app_idx = app_index(m, app);
    in->boot_end_us = now_us + (int64_t)llround(app->boot_s * 1e6);
    in->up = in->boot_end_us <= now_us;
    in->slow = 1;
    in->mu = app->workers / (m->apps[in->app_idx].mean_us / 1e6);
    in->u_lb = -1;
    in->last_us = now_us;
    index_rebuild(m);
    control_update(m);
    return slot;
}

static uint32_t id_hash(const char *s)
{
    uint32_t h = 2166136261u;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

/* Rebuilds the id index over the live slots (instances come and go rarely). */
static void index_rebuild(struct sim_model *m)
{
    int cap = 16;

    while (cap < m->ninsts * 2 + 2)
        cap *= 2;
    if (cap != m->index_cap) {
        free(m->index);
        m->index = cm_xmalloc((size_t)cap * sizeof(int));
        m->index_cap = cap;
    }
    for (int i = 0; i < cap; i++)
        m->index[i] = -1;
    for (int i = 0; i < m->ninsts; i++) {
        uint32_t h;
        if (!m->insts[i].live)
            continue;
        h = id_hash(m->insts[i].id) & (uint32_t)(cap - 1);
        while (m->index[h] >= 0)
            h = (h + 1) & (uint32_t)(cap - 1);
        m->index[h] = i;
    }
}

int sim_model_instance_find(const struct sim_model *m, const char *id)
{
    uint32_t h;

    if (!m->index)
        return -1;
    h = id_hash(id) & (uint32_t)(m->index_cap - 1);
    while (m->index[h] >= 0) {
        if (strcmp(m->insts[m->index[h]].id, id) == 0)
            return m->index[h];
        h = (h + 1) & (uint32_t)(m->index_cap - 1);
    }
    return -1;
}

int sim_model_instance_up(const struct sim_model *m, int slot)
{
    return m->insts[slot].up;
}

int64_t sim_model_instance_boot_end_us(const struct sim_model *m, int slot)
{
    return m->insts[slot].up ? INT64_MAX : m->insts[slot].boot_end_us;
}

int sim_model_instance_health(const struct sim_model *m, int slot, int http)
{
    const struct inst *in = &m->insts[slot];

    if (!in->live || !in->up || in->dead || in->hung)
        return 0;
    if (http && in->app->queue_limit > 0) {
        if (m->mode == SIM_MODE_DES && in->qlen >= in->app->queue_limit)
            return 0;
        if (m->mode == SIM_MODE_FLUID && in->backlog >= in->app->queue_limit)
            return 0;
    }
    return 1;
}

/* A request that ends (success or failure) for closed-model sources. */
static void client_next(struct sim_model *m, int si, int64_t t_us);
static void send_request(struct sim_model *m, int si, int64_t t_us);

static void fail_at(struct sim_model *m, int si, int64_t t_us)
{
    struct sim_event_rec ev = { 0 };

    ev.t_us = t_us;
    ev.kind = EV_FAIL;
    ev.a = si;
    sim_queue_push(&m->q, &ev);
}

/* Fails the queued requests of an instance (DES). */
static void drop_queue(struct sim_model *m, struct inst *in, int64_t t_us)
{
    while (in->qlen > 0) {
        struct qent e = in->q[in->qhead];
        in->qhead = (in->qhead + 1) % in->qcap;
        in->qlen--;
        fail_at(m, e.src, t_us);
    }
}

void sim_model_instance_stop(struct sim_model *m, int slot, int64_t now_us)
{
    struct inst *in = &m->insts[slot];

    if (!in->live)
        return;
    touch(in, now_us);
    drop_queue(m, in, now_us);
    in->gen++; /* requests in service fail when their completion pops */
    in->busy = 0;
    in->live = 0;
    m->slot_ver++;
    free(in->q);
    in->q = NULL;
    in->qcap = in->qlen = in->qhead = 0;
    index_rebuild(m);
    control_update(m);
    for (int lb = 0; lb < m->nlbs; lb++) {
        struct route *r = &m->routes[lb];
        for (int i = 0; i < r->n; i++) {
            if (r->slots[i] == slot) {
                memmove(&r->slots[i], &r->slots[i + 1], (size_t)(r->n - i - 1) * sizeof(int));
                if (r->nz)
                    memmove(&r->zone[i], &r->zone[i + 1], (size_t)(r->n - i - 1) * sizeof(int));
                r->n--;
                i--;
            }
        }
    }
}

void sim_model_instance_kill(struct sim_model *m, int slot, int64_t now_us)
{
    struct inst *in = &m->insts[slot];

    touch(in, now_us);
    drop_queue(m, in, now_us);
    in->gen++;
    in->busy = 0;
    in->dead = 1;
    m->slot_ver++;
    in->backlog = 0;
    control_update(m);
}

void sim_model_instance_hang(struct sim_model *m, int slot, int64_t now_us, int64_t until_us)
{
    struct inst *in = &m->insts[slot];

    touch(in, now_us);
    /* queued requests wait out the idle timeout */
    while (in->qlen > 0) {
        struct qent e = in->q[in->qhead];
        struct sim_event_rec ev = { 0 };
        in->qhead = (in->qhead + 1) % in->qcap;
        in->qlen--;
        ev.t_us = e.arr_us + SIM_HANG_TIMEOUT_US;
        ev.kind = EV_HUNGFAIL;
        ev.a = slot;
        ev.b = e.src;
        ev.d = in->gen + 1;
        in->stuck++;
        sim_queue_push(&m->q, &ev);
    }
    in->gen++;
    in->busy = 0;
    in->hung = 1;
    in->hang_until_us = until_us > 0 ? until_us : INT64_MAX;
    in->backlog = 0;
    control_update(m);
}

void sim_model_instance_slow(struct sim_model *m, int slot, double factor, int64_t now_us,
                             int64_t until_us)
{
    struct inst *in = &m->insts[slot];

    touch(in, now_us);
    in->slow = factor;
    in->mu = in->app->workers / (m->apps[in->app_idx].mean_us * in->slow / 1e6);
    in->slow_until_us = until_us > 0 ? until_us : INT64_MAX;
    control_update(m);
}

int sim_model_instance_dead(const struct sim_model *m, int slot)
{
    return m->insts[slot].dead;
}

int sim_model_instance_hung(const struct sim_model *m, int slot)
{
    return m->insts[slot].hung;
}

const char *sim_model_instance_id(const struct sim_model *m, int slot)
{
    return m->insts[slot].id;
}

const char *sim_model_instance_zone(const struct sim_model *m, int slot)
{
    return m->insts[slot].zone;
}

int sim_model_instance_group(const struct sim_model *m, int slot)
{
    return m->insts[slot].group;
}

void sim_model_instance_integrals(struct sim_model *m, int slot, double *busy_worker_us,
                                  double *up_us)
{
    struct inst *in = &m->insts[slot];

    touch(in, m->now_us);
    *busy_worker_us = in->busy_area_us;
    if (in->u_lb >= 0)
        *busy_worker_us += m->routes[in->u_lb].u_acc - in->u_base;
    *up_us = in->up_us;
}

int sim_model_instance_workers(const struct sim_model *m, int slot)
{
    return m->insts[slot].app->workers;
}

int sim_model_slot_count(const struct sim_model *m)
{
    return m->ninsts;
}

int sim_model_slot_live(const struct sim_model *m, int slot)
{
    return m->insts[slot].live;
}

int sim_model_cpu_table(struct sim_model *m, const struct sim_slot_cpu **out)
{
    *out = m->cpu;
    if (m->cpu && m->cpu_at_us == m->now_us && m->cpu_ver == m->slot_ver && m->ncpu == m->ninsts)
        return m->ncpu;
    m->cpu_at_us = m->now_us;
    m->cpu_ver = m->slot_ver;
    m->ncpu = m->ninsts;
    if (m->ninsts > m->capcpu) {
        m->capcpu = m->capinsts;
        m->cpu = cm_xrealloc(m->cpu, (size_t)m->capcpu * sizeof(*m->cpu));
    }
    for (int i = 0; i < m->ninsts; i++) {
        struct inst *in = &m->insts[i];
        struct sim_slot_cpu *c = &m->cpu[i];

        if (!in->live) {
            c->state = 0;
            continue;
        }
        touch(in, m->now_us);
        c->state = SIM_SLOT_LIVE | (in->dead ? SIM_SLOT_DEAD : 0);
        c->workers = in->app->workers;
        /* as sim_model_instance_integrals() adds them */
        c->busy_worker_us = in->busy_area_us;
        if (in->u_lb >= 0)
            c->busy_worker_us += m->routes[in->u_lb].u_acc - in->u_base;
        c->up_us = in->up_us;
    }
    *out = m->cpu;
    return m->ninsts;
}

void sim_model_set_routes(struct sim_model *m, int lb, const int *slots, int n)
{
    sim_model_set_zone_routes(m, lb, slots, NULL, n, 0);
}

void sim_model_set_zone_routes(struct sim_model *m, int lb, const int *slots, const int *zones,
                               int n, int nzones)
{
    struct route *r = &m->routes[lb];

    route_settle(m, lb);
    if (n > r->cap) {
        r->cap = n * 2;
        r->slots = cm_xrealloc(r->slots, (size_t)r->cap * sizeof(int));
        r->zone = cm_xrealloc(r->zone, (size_t)r->cap * sizeof(int));
        r->w = cm_xrealloc(r->w, (size_t)r->cap * sizeof(double));
    }
    if (n > 0)
        memcpy(r->slots, slots, (size_t)n * sizeof(int));
    r->nz = zones && nzones > 0 ? (nzones < MAX_ROUTE_ZONES ? nzones : MAX_ROUTE_ZONES) : 0;
    for (int i = 0; i < n && r->nz; i++)
        r->zone[i] = zones[i] >= 0 && zones[i] < r->nz ? zones[i] : 0;
    r->n = n;
    if (r->rr >= n)
        r->rr = 0;
}

int64_t sim_model_now_us(const struct sim_model *m)
{
    return m->now_us;
}

static int64_t control_scan(const struct sim_model *m)
{
    int64_t best = INT64_MAX;

    for (int i = 0; i < m->ninsts; i++) {
        const struct inst *in = &m->insts[i];
        if (!in->live || in->dead)
            continue;
        if (!in->up && in->boot_end_us < best)
            best = in->boot_end_us;
        if (in->hung && in->hang_until_us < best)
            best = in->hang_until_us;
        if (in->slow != 1 && in->slow_until_us < best)
            best = in->slow_until_us;
    }
    return best;
}

int64_t sim_model_next_control_us(const struct sim_model *m)
{
    return m->ctl_next_us;
}

/* Hands a uniform route's summed busy area out to its instances; the route leaves the
 * uniform mode (a tick finds it again when it still holds). */
static void route_settle(struct sim_model *m, int lb)
{
    struct route *r = &m->routes[lb];

    r->agg_valid = 0;
    if (!r->uniform)
        return;
    for (int i = 0; i < r->n; i++) {
        struct inst *in = &m->insts[r->slots[i]];
        if (in->u_lb == lb) {
            in->busy_area_us += r->u_acc - in->u_base;
            in->u_lb = -1;
        }
    }
    r->uniform = 0;
    r->u_acc = 0;
}

uint64_t sim_model_health_version(const struct sim_model *m)
{
    return m->health_ver;
}

static void control_update(struct sim_model *m)
{
    m->ctl_next_us = control_scan(m);
    m->health_ver++;
    for (int lb = 0; lb < m->nlbs; lb++)
        route_settle(m, lb);
}

/* Boots that end, hangs and slowness that expire, at t. */
static void control_at(struct sim_model *m, int64_t t_us)
{
    if (t_us < m->ctl_next_us)
        return;
    for (int i = 0; i < m->ninsts; i++) {
        struct inst *in = &m->insts[i];
        if (!in->live || in->dead)
            continue;
        if (!in->up && in->boot_end_us <= t_us) {
            touch(in, t_us);
            in->up = 1;
            in->last_us = t_us;
        }
        if (in->hung && in->hang_until_us <= t_us) {
            touch(in, t_us);
            in->hung = 0;
        }
        if (in->slow != 1 && in->slow_until_us <= t_us) {
            touch(in, t_us);
            in->slow = 1;
            in->mu = in->app->workers / (m->apps[in->app_idx].mean_us / 1e6);
        }
    }
    control_update(m);
}

/* ---- DES ---- */

/* Cross-zone off: the next zone with instances (the clients' turn among the nodes), then
 * that zone's instance by the listener's rule. */
static int pick_zoned(struct sim_model *m, struct route *r)
{
    int count[MAX_ROUTE_ZONES] = { 0 }, z = -1, best = -1, best_out = 0, k = 0;

    for (int i = 0; i < r->n; i++)
        count[r->zone[i]]++;
    for (int j = 0; j < r->nz && z < 0; j++) {
        int c = (r->zrr + j) % r->nz;
        if (count[c] > 0)
            z = c;
    }
    r->zrr = (z + 1) % r->nz;
    for (int i = 0; i < r->n; i++) {
        const struct inst *in;
        int out;
        if (r->zone[i] != z)
            continue;
        in = &m->insts[r->slots[i]];
        out = in->busy + in->qlen + in->stuck;
        /* round robin: the zone_rr-th of the zone's instances; least outstanding: the
         * first with the fewest from there */
        if (r->round_robin) {
            if (k++ == r->zone_rr[z] % count[z])
                best = i;
            continue;
        }
        if (best < 0 || out < best_out || (out == best_out && k == r->zone_rr[z] % count[z])) {
            best = i;
            best_out = out;
        }
        k++;
    }
    r->zone_rr[z] = (r->zone_rr[z] + 1) % count[z];
    return r->slots[best];
}

static int pick_instance(struct sim_model *m, int lb)
{
    struct route *r = &m->routes[lb];
    int best = -1, best_out = 0;

    if (r->n == 0)
        return -1;
    if (r->nz)
        return pick_zoned(m, r);
    if (r->round_robin) {
        int i = r->rr;
        r->rr = (r->rr + 1) % r->n;
        return r->slots[i];
    }
    for (int k = 0; k < r->n; k++) {
        int i = (r->rr + k) % r->n;
        const struct inst *in = &m->insts[r->slots[i]];
        int out = in->busy + in->qlen + in->stuck;
        if (best < 0 || out < best_out) {
            best = i;
            best_out = out;
        }
    }
    r->rr = (best + 1) % r->n;
    return r->slots[best];
}

static void start_service(struct sim_model *m, int slot, int si, int64_t arr_us, int64_t t_us)
{
    struct inst *in = &m->insts[slot];
    struct sim_event_rec ev = { 0 };
    double s = draw_service_us(m, in->app) * in->slow;

    touch(in, t_us);
    in->busy++;
    ev.t_us = t_us + (int64_t)llround(s < 1 ? 1 : s);
    ev.kind = EV_DONE;
    ev.a = slot;
    ev.b = si;
    ev.d = in->gen;
    ev.c = arr_us;
    sim_queue_push(&m->q, &ev);
}

static void send_request(struct sim_model *m, int si, int64_t t_us)
{
    struct src *s = &m->srcs[si];
    int slot;
    struct inst *in;

    m->lbc[s->lb].arrived += 1;
    slot = pick_instance(m, s->lb);
    if (slot < 0) {
        fail_at(m, si, t_us + SIM_FAIL_FAST_US);
        return;
    }
    in = &m->insts[slot];
    if (in->dead) {
        fail_at(m, si, t_us + SIM_FAIL_FAST_US);
        return;
    }
    if (in->hung) {
        struct sim_event_rec ev = { 0 };
        ev.t_us = t_us + SIM_HANG_TIMEOUT_US;
        ev.kind = EV_HUNGFAIL;
        ev.a = slot;
        ev.b = si;
        ev.d = in->gen;
        in->stuck++;
        sim_queue_push(&m->q, &ev);
        return;
    }
    if (in->busy < in->app->workers) {
        start_service(m, slot, si, t_us, t_us);
        return;
    }
    if (in->qlen < in->app->queue_limit) {
        if (in->qlen == in->qcap) {
            int ncap = in->qcap ? in->qcap * 2 : 16;
            struct qent *nq;
            if (ncap > in->app->queue_limit)
                ncap = in->app->queue_limit;
            nq = cm_xmalloc((size_t)ncap * sizeof(*nq));
            for (int i = 0; i < in->qlen; i++)
                nq[i] = in->q[(in->qhead + i) % in->qcap];
            free(in->q);
            in->q = nq;
            in->qcap = ncap;
            in->qhead = 0;
        }
        in->q[(in->qhead + in->qlen) % in->qcap].arr_us = t_us;
        in->q[(in->qhead + in->qlen) % in->qcap].src = si;
        in->qlen++;
        return;
    }
    fail_at(m, si, t_us + SIM_FAIL_FAST_US);
}

static void issue_after_think(struct sim_model *m, int si, int64_t t_us)
{
    struct src *s = &m->srcs[si];

    s->issued++;
    if (s->ph->think_ms > 0) {
        struct sim_event_rec ev = { 0 };
        ev.t_us = t_us + (int64_t)llround(draw_exp_us(m, s->ph->think_ms * 1000.0));
        ev.kind = EV_CLIENT;
        ev.a = si;
        sim_queue_push(&m->q, &ev);
    } else {
        send_request(m, si, t_us);
    }
}

static void client_next(struct sim_model *m, int si, int64_t t_us)
{
    struct src *s = &m->srcs[si];
    const struct sim_phase *ph = s->ph;

    if (!ph->closed)
        return;
    if (t_us >= s->until_us) {
        s->active--;
        return;
    }
    if (ph->shape == SIM_SHAPE_BURSTS) {
        if (s->issued < ph->burst_requests) {
            issue_after_think(m, si, t_us);
            return;
        }
        s->active--;
        if (s->active == 0) {
            struct sim_event_rec ev = { 0 };
            ev.t_us = t_us + ph->gap_ms * 1000;
            ev.kind = EV_RESPAWN;
            ev.a = si;
            ev.b = 1;
            if (ev.t_us < s->until_us)
                sim_queue_push(&m->q, &ev);
        }
        return;
    }
    if (s->active > (int)phase_value(m, s, t_us)) {
        s->active--;
        return;
    }
    issue_after_think(m, si, t_us);
}

static void respawn(struct sim_model *m, int si, int64_t t_us)
{
    struct src *s = &m->srcs[si];
    const struct sim_phase *ph = s->ph;
    int target;

    if (t_us >= s->until_us)
        return;
    if (ph->shape == SIM_SHAPE_BURSTS) {
        int n = (int)ph->value;
        if (s->active > 0)
            return;
        s->issued = 0;
        if ((int64_t)n > ph->burst_requests)
            n = (int)ph->burst_requests;
        for (int i = 0; i < n; i++) {
            s->active++;
            s->issued++;
            send_request(m, si, t_us);
        }
        if (n == 0) {
            struct sim_event_rec ev = { 0 };
            ev.t_us = t_us + ph->gap_ms * 1000;
            ev.kind = EV_RESPAWN;
            ev.a = si;
            if (ev.t_us < s->until_us)
                sim_queue_push(&m->q, &ev);
        }
        return;
    }
    target = (int)phase_value(m, s, t_us);
    while (s->active < target) {
        s->active++;
        send_request(m, si, t_us);
    }
    {
        int64_t nb = phase_next_break(s, t_us, m->grid_us);
        if (nb < s->until_us) {
            struct sim_event_rec ev = { 0 };
            ev.t_us = nb;
            ev.kind = EV_RESPAWN;
            ev.a = si;
            sim_queue_push(&m->q, &ev);
        }
    }
}

static void open_event(struct sim_model *m, int si, int issue, int64_t t_us)
{
    struct src *s = &m->srcs[si];
    struct sim_event_rec ev = { 0 };
    double rate;
    int64_t nb, nt;

    if (t_us >= s->until_us)
        return;
    if (issue)
        send_request(m, si, t_us);
    rate = phase_value(m, s, t_us);
    nb = phase_next_break(s, t_us, m->grid_us);
    ev.kind = EV_OPEN;
    ev.a = si;
    if (rate > 0) {
        double gap = draw_exp_us(m, 1e6 / rate);
        nt = t_us + (int64_t)llround(gap);
        if (nt < nb) {
            ev.t_us = nt;
            ev.b = 1;
            sim_queue_push(&m->q, &ev);
            return;
        }
    }
    if (nb < s->until_us) {
        ev.t_us = nb;
        ev.b = 0;
        sim_queue_push(&m->q, &ev);
    }
}

static void des_event(struct sim_model *m, const struct sim_event_rec *ev)
{
    int64_t t = ev->t_us;

    switch (ev->kind) {
    case EV_OPEN:
        open_event(m, ev->a, ev->b, t);
        break;
    case EV_CLIENT:
        if (t < m->srcs[ev->a].until_us)
            send_request(m, ev->a, t);
        else
            m->srcs[ev->a].active--;
        break;
    case EV_RESPAWN:
        respawn(m, ev->a, t);
        break;
    case EV_DONE: {
        struct inst *in = &m->insts[ev->a];
        struct src *s = &m->srcs[ev->b];
        if (in->gen != ev->d || !in->live || in->dead) {
            m->lbc[s->lb].failed += 1;
            client_next(m, ev->b, t);
            break;
        }
        m->lbc[s->lb].completed += 1;
        m->lbc[s->lb].latency_sum_us += (double)(t - ev->c);
        cm_hist_record(&m->hist, t - ev->c);
        touch(in, t);
        in->busy--;
        if (in->qlen > 0) {
            struct qent e = in->q[in->qhead];
            in->qhead = (in->qhead + 1) % in->qcap;
            in->qlen--;
            start_service(m, ev->a, e.src, e.arr_us, t);
        }
        client_next(m, ev->b, t);
        break;
    }
    case EV_FAIL:
        m->lbc[m->srcs[ev->a].lb].failed += 1;
        client_next(m, ev->a, t);
        break;
    case EV_HUNGFAIL: {
        struct inst *in = &m->insts[ev->a];
        if (in->live && in->stuck > 0)
            in->stuck--;
        m->lbc[m->srcs[ev->b].lb].failed += 1;
        client_next(m, ev->b, t);
        break;
    }
    }
}

static void des_advance(struct sim_model *m, int64_t until_us)
{
    struct sim_event_rec ev;

    m->health_ver++;
    for (;;) {
        int64_t ctl = sim_model_next_control_us(m);
        int64_t next = sim_queue_peek_us(&m->q);
        if (ctl <= until_us && ctl <= next) {
            control_at(m, ctl);
            if (ctl > m->now_us)
                m->now_us = ctl;
            continue;
        }
        if (!sim_queue_pop_until(&m->q, until_us, &ev))
            break;
        m->now_us = ev.t_us;
        des_event(m, &ev);
    }
    m->now_us = until_us;
    sim_queue_advance(&m->q, until_us);
}

/* ---- fluid ---- */

/* One class of identical instances' results in a tick. */
struct fl_key {
    int app_idx;
    double slow;
    double backlog;
    int hung;
};

static void ents_spill(struct sim_model *m)
{
    for (int i = 0; i < m->nents; i++)
        cm_hist_record_n(&m->hist, m->ents[i].value_us, m->ents[i].count);
    if (m->nents > 0)
        m->ents_spilled = 1;
    m->nents = 0;
}

static void ent_add(struct sim_model *m, int64_t v, uint64_t cnt, int level)
{
    if (m->nents == MAX_LATENCY_ENTRIES)
        ents_spill(m);
    if (m->nents == m->capents) {
        m->capents = m->capents ? m->capents * 2 : 256;
        m->ents = cm_xrealloc(m->ents, (size_t)m->capents * sizeof(*m->ents));
    }
    m->ents[m->nents].value_us = v;
    m->ents[m->nents].count = cnt;
    m->ents[m->nents].level = level;
    m->nents++;
}

/* Records n requests served at the quantile levels of (wait + service). */
static void record_now(struct sim_model *m, const struct app_cache *ac, double slow, double n,
                       double wait_fixed_us, double erl_c, double erl_rate_us)
{
    /* per level: its mid probability p, log(1 - p) and its width x the fluid weight */
    static double mid[NLEVELS], log1mp[NLEVELS], weight[NLEVELS];
    static int ready;
    double log_c = 0;
    int tail = erl_c > 0 && erl_rate_us > 0;

    if (!ready) {
        for (int k = 0; k < NLEVELS; k++) {
            mid[k] = (level_edges[k] + level_edges[k + 1]) / 2;
            log1mp[k] = log(1 - mid[k]);
            weight[k] = (level_edges[k + 1] - level_edges[k]) * SIM_FLUID_WEIGHT;
        }
        ready = 1;
    }
    if (tail)
        log_c = log(erl_c);
    for (int k = 0; k < NLEVELS; k++) {
        double w = wait_fixed_us, v, c;
        if (tail && mid[k] > 1 - erl_c)
            w += (log_c - log1mp[k]) / erl_rate_us; /* log(erl_c / (1 - p)) */
        v = w + ac->q_us[k] * slow;
        c = n * weight[k];
        /* round half up: both are >= 0 */
        if (c >= 0.5)
            ent_add(m, (int64_t)(v + 0.5), (uint64_t)(c + 0.5), k);
    }
}

static void pend_flush(struct sim_model *m)
{
    if (m->pend.n > 0)
        record_now(m, m->pend.ac, m->pend.slow, m->pend.n, m->pend.wait, m->pend.erl_c,
                   m->pend.erl_rate);
    m->pend.n = 0;
}

/* Batches identical recordings: ticks in a steady state add to one. */
static void record_latency(struct sim_model *m, const struct app_cache *ac, double slow, double n,
                           double wait_fixed_us, double erl_c, double erl_rate_us)
{
    if (m->pend.n > 0 &&
        (m->pend.ac != ac || m->pend.slow != slow || m->pend.wait != wait_fixed_us ||
         m->pend.erl_c != erl_c || m->pend.erl_rate != erl_rate_us))
        pend_flush(m);
    m->pend.ac = ac;
    m->pend.slow = slow;
    m->pend.wait = wait_fixed_us;
    m->pend.erl_c = erl_c;
    m->pend.erl_rate = erl_rate_us;
    m->pend.n += n;
}

static void stuck_add(struct src *s, int idx, double h)
{
    s->stuck_slots += s->stuck[idx] <= 0 && s->stuck[idx] + h > 0;
    s->stuck[idx] += h;
    s->stuck_total += h;
}

static double clients_stuck(const struct src *s)
{
    return s->stuck_total;
}

/* Cross-zone off: each entry's share of the route's load, 1/zones-with-instances x its
 * capacity's share of its zone's; the shares that meet hung or dead instances. */
static void zone_shares(struct sim_model *m, struct route *r)
{
    double mu_z[MAX_ROUTE_ZONES] = { 0 };
    int zones = 0;

    for (int i = 0; i < r->n; i++)
        mu_z[r->zone[i]] += m->insts[r->slots[i]].mu;
    for (int z = 0; z < r->nz; z++)
        zones += mu_z[z] > 0;
    r->agg_hung_w = r->agg_dead_w = 0;
    for (int i = 0; i < r->n; i++) {
        const struct inst *in = &m->insts[r->slots[i]];
        r->w[i] = mu_z[r->zone[i]] > 0 ? in->mu / mu_z[r->zone[i]] / zones : 0;
        if (in->dead)
            r->agg_dead_w += r->w[i];
        else if (in->hung)
            r->agg_hung_w += r->w[i];
    }
}

static void fluid_tick(struct sim_model *m, int64_t t_us, int64_t dt_us)
{
    double dt = (double)dt_us / 1e6;
    int64_t sec = t_us / 1000000;

    /* release clients stuck on hung instances whose timeout passed (1 s resolution) */
    for (int si = 0; si < m->nsrcs; si++) {
        struct src *s = &m->srcs[si];
        for (int64_t k = 0; s->stuck_slots > 0 && k < (dt_us + 999999) / 1000000 && k < STUCK_RING;
             k++) {
            int idx = (int)((sec + k) % STUCK_RING);
            if (s->stuck[idx] > 0) {
                m->lbc[s->lb].failed += s->stuck[idx];
                s->stuck_total -= s->stuck[idx];
                s->stuck[idx] = 0;
                s->stuck_slots--;
            }
        }
        if (s->stuck_total < 1e-9)
            s->stuck_total = 0;
    }

    for (int lb = 0; lb < m->nlbs; lb++) {
        struct route *r = &m->routes[lb];
        double open_rate = 0, mu_nom = 0, mu_ok = 0, mu_hung = 0, mu_dead = 0, closed_x = 0;
        double closed_wait_us = 0, s_mean_us = 0;
        int nclosed = 0;

        if (r->agg_valid) {
            mu_nom = r->agg_mu_nom;
            mu_ok = r->agg_mu_ok;
            mu_hung = r->agg_mu_hung;
            mu_dead = r->agg_mu_dead;
            s_mean_us = r->agg_s_mean_us;
        } else {
            for (int i = 0; i < r->n; i++) {
                const struct inst *in = &m->insts[r->slots[i]];
                double mu = in->mu;
                mu_nom += mu;
                if (in->dead)
                    mu_dead += mu; /* refuses connections: its share fails fast */
                else if (in->hung)
                    mu_hung += mu;
                else
                    mu_ok += mu;
                s_mean_us += m->apps[in->app_idx].mean_us * in->slow * mu;
            }
            s_mean_us = mu_nom > 0 ? s_mean_us / mu_nom : 0;
            if (r->nz)
                zone_shares(m, r);
            r->agg_valid = 1;
            r->agg_mu_nom = mu_nom;
            r->agg_mu_ok = mu_ok;
            r->agg_mu_hung = mu_hung;
            r->agg_mu_dead = mu_dead;
            r->agg_s_mean_us = s_mean_us;
        }
        r->agg_backlog = 0;

        for (int si = 0; si < m->nsrcs; si++) {
            struct src *s = &m->srcs[si];
            if (s->lb != lb || t_us < s->at_us || t_us >= s->until_us)
                continue;
            if (!s->ph->closed)
                open_rate += phase_value(m, s, t_us + dt_us / 2);
        }
        /* closed sources: throughput from clients, think time and the capacity left */
        for (int si = 0; si < m->nsrcs; si++) {
            struct src *s = &m->srcs[si];
            const struct sim_phase *ph = s->ph;
            double n, x, z = ph->think_ms / 1000.0, cap, amount, s_use;
            if (s->lb != lb || !ph->closed || t_us < s->at_us || t_us >= s->until_us)
                continue;
            if (ph->shape == SIM_SHAPE_BURSTS) {
                if (t_us < s->gap_until_us)
                    continue;
                if (!s->burst_started) {
                    s->burst_left = (double)ph->burst_requests;
                    s->burst_started = 1;
                }
            }
            n = phase_value(m, s, t_us + dt_us / 2) - clients_stuck(s);
            if (n <= 0)
                continue;
            nclosed++;
            s_use = s_mean_us > 0 ? s_mean_us / 1e6 : 0;
            if (mu_nom <= 0) {
                x = n / (z + SIM_FAIL_FAST_US / 1e6); /* every request fails fast */
            } else {
                cap = mu_nom - open_rate;
                if (cap < mu_nom * 0.01)
                    cap = mu_nom * 0.01;
                x = n / (z + s_use);
                if (x > cap) {
                    x = cap;
                    closed_wait_us = (n / x - z - s_use) * 1e6;
                    if (closed_wait_us < 0)
                        closed_wait_us = 0;
                }
            }
            amount = x * dt;
            if (ph->shape == SIM_SHAPE_BURSTS) {
                if (amount >= s->burst_left) {
                    /* the burst ends inside this tick: the gap starts when it does */
                    double used = x > 0 ? s->burst_left / x : dt;
                    amount = s->burst_left;
                    s->burst_left = 0;
                    s->burst_started = 0;
                    s->gap_until_us = t_us + (int64_t)llround(used * 1e6) + ph->gap_ms * 1000;
                } else {
                    s->burst_left -= amount;
                }
            }
            m->lbc[lb].arrived += amount;
            if (mu_nom <= 0) {
                m->lbc[lb].failed += amount;
                continue;
            }
            /* the share sent to hung instances: clients stuck for the idle timeout */
            if (r->nz) {
                if (r->agg_hung_w > 0) {
                    double h = amount * r->agg_hung_w;
                    int idx = (int)((sec + SIM_HANG_TIMEOUT_US / 1000000) % STUCK_RING);
                    stuck_add(s, idx, h);
                }
                m->lbc[lb].failed += amount * r->agg_dead_w;
                closed_x += amount * (1 - r->agg_hung_w - r->agg_dead_w);
                continue;
            }
            if (mu_hung > 0) {
                double h = amount * mu_hung / mu_nom;
                int idx = (int)((sec + SIM_HANG_TIMEOUT_US / 1000000) % STUCK_RING);
                stuck_add(s, idx, h);
            }
            if (mu_dead > 0)
                m->lbc[lb].failed += amount * mu_dead / mu_nom;
            closed_x += amount * (mu_ok / mu_nom);
        }

        m->lbc[lb].arrived += open_rate * dt;
        if (mu_nom <= 0) {
            m->lbc[lb].failed += open_rate * dt;
            continue;
        }
        if (r->nz)
            m->lbc[lb].failed += open_rate * dt * (r->agg_hung_w + r->agg_dead_w);
        else if (mu_hung + mu_dead > 0)
            m->lbc[lb].failed += open_rate * dt * (mu_hung + mu_dead) / mu_nom;

        /* per instance: arrivals by capacity share; a run of identical neighbours is
         * computed once and its totals added once (x the run's length) */
        {
            struct fl_key prev = { -1, 0, 0, 0 };
            double prev_served = 0, prev_backlog = 0, prev_busy = 0, prev_failed = 0;
            double pend_n = 0, pend_wait = 0, pend_c = 0, pend_rate = 0, pend_mean_wait = 0;
            double run_n = 0, run_lat_us = 0, busy_inc = 0;
            const struct app_cache *pend_ac = NULL;
            double pend_slow = 1;
            int lazy = r->uniform, classes = 0, joinable = !r->uniform && mu_ok == mu_nom && !r->nz;
            double ok_w = 1 - r->agg_hung_w - r->agg_dead_w, prev_w = -1;

            for (int i = 0; i < r->n; i++) {
                struct inst *in = &m->insts[r->slots[i]];
                const struct app_cache *ac;
                double mu, a_open, a_closed, work, served, busy, failed = 0, wait = 0;
                double erl_c = 0, erl_rate = 0;

                if (in->dead || in->hung)
                    continue;
                if (in->app_idx == prev.app_idx && in->slow == prev.slow &&
                    in->backlog == prev.backlog && (!r->nz || r->w[i] == prev_w)) {
                    in->backlog = prev_backlog;
                    r->agg_backlog |= prev_backlog != 0;
                    if (in->up)
                        in->busy_area_us += busy_inc;
                    joinable &= in->up && in->u_lb < 0;
                    run_n += 1;
                    continue;
                }
                if (run_n > 0) {
                    pend_n += prev_served * run_n;
                    m->lbc[lb].completed += prev_served * run_n;
                    m->lbc[lb].failed += prev_failed * run_n;
                    m->lbc[lb].latency_sum_us += prev_served * run_n * run_lat_us;
                }
                ac = &m->apps[in->app_idx];
                mu = in->mu;
                {
                    double q0 = in->backlog, ql = in->app->queue_limit;
                    if (r->nz) {
                        a_open = open_rate * dt * r->w[i];
                        a_closed = ok_w > 0 ? closed_x * r->w[i] / ok_w : 0;
                        prev_w = r->w[i];
                    } else {
                        a_open = open_rate * dt * mu / mu_nom;
                        a_closed = closed_x * mu / mu_ok;
                    }
                    work = q0 + a_open + a_closed;
                    served = work < mu * dt ? work : mu * dt;
                    in->backlog = work - served;
                    if (in->backlog > ql) {
                        failed = in->backlog - ql;
                        in->backlog = ql;
                    }
                    if (in->backlog < 1e-9)
                        in->backlog = 0;
                    r->agg_backlog |= in->backlog != 0;
                    busy = served / (mu * dt);
                    if (q0 > 0 || in->backlog > 0) {
                        wait = (q0 + in->backlog) / 2 / mu * 1e6;
                    } else {
                        double lam = (a_open + a_closed) / dt; /* req/s */
                        double s_us = ac->mean_us * in->slow;
                        double erl_a = lam * s_us / 1e6;
                        erl_c = sim_erlang_c(erl_a, in->app->workers);
                        erl_rate = (in->app->workers / s_us) - lam / 1e6; /* per us */
                        if (erl_rate <= 0)
                            erl_c = 0;
                    }
                    wait += closed_wait_us;
                    if (pend_n > 0)
                        record_latency(m, pend_ac, pend_slow, pend_n, pend_wait, pend_c, pend_rate);
                    pend_n = 0;
                    pend_ac = ac;
                    pend_slow = in->slow;
                    pend_wait = wait;
                    pend_c = erl_c;
                    pend_rate = erl_rate;
                    pend_mean_wait = wait + (erl_c > 0 && erl_rate > 0 ? erl_c / erl_rate : 0);
                    prev.app_idx = in->app_idx;
                    prev.slow = in->slow;
                    prev.backlog = q0;
                    prev_served = served;
                    prev_backlog = in->backlog;
                    prev_busy = busy;
                    prev_failed = failed;
                }
                run_n = 1;
                run_lat_us = pend_mean_wait + ac->mean_us * in->slow;
                busy_inc = prev_busy * in->app->workers * in->app->cpu_per_request * (double)dt_us;
                classes++;
                if (lazy) {
                    /* still idle between ticks: every instance is like this one */
                    if (prev_backlog == 0 && prev_failed == 0) {
                        r->u_acc += busy_inc;
                        run_n = r->n;
                        break;
                    }
                    route_settle(m, lb);
                    r->agg_valid = 1; /* the aggregates still hold */
                    lazy = 0;
                }
                joinable &= in->up && in->u_lb < 0;
                if (in->up)
                    in->busy_area_us += busy_inc;
            }
            if (joinable && classes == 1 && r->n > 0 && prev_backlog == 0 && prev_failed == 0) {
                r->uniform = 1;
                r->u_acc = 0;
                for (int i = 0; i < r->n; i++) {
                    m->insts[r->slots[i]].u_lb = lb;
                    m->insts[r->slots[i]].u_base = 0;
                }
            }
            if (run_n > 0) {
                pend_n += prev_served * run_n;
                m->lbc[lb].completed += prev_served * run_n;
                m->lbc[lb].failed += prev_failed * run_n;
                m->lbc[lb].latency_sum_us += prev_served * run_n * run_lat_us;
            }
            if (pend_n > 0)
                record_latency(m, pend_ac, pend_slow, pend_n, pend_wait, pend_c, pend_rate);
        }
        (void)nclosed;
    }
    /* time up: integrated lazily by touch() (whole microseconds: exact in a double) */
    {
        int backlog = 0;
        for (int lb = 0; lb < m->nlbs; lb++)
            backlog |= m->routes[lb].agg_backlog;
        if (backlog || m->backlog_seen)
            m->health_ver++;
        m->backlog_seen = backlog;
    }
}

/* Fluid ticks realign on this epoch grid (the instants of the Auto Scaling health sweep,
 * where the engine used to stop anyway), so a tick shortened by an event at an odd time
 * does not shift the ticks after it for longer than one cell: the results do not depend
 * on where the engine stops in between. */
#define FLUID_ALIGN_US 10000000LL

/* The fluid step: one tick, shortened to the next boundary where something changes. */
static int64_t fluid_step_end(struct sim_model *m, int64_t t_us, int64_t until_us)
{
    int64_t end = t_us + m->tick_us, c;
    int64_t cell_end =
        t_us - (t_us % FLUID_ALIGN_US + FLUID_ALIGN_US) % FLUID_ALIGN_US + FLUID_ALIGN_US;

    if (cell_end < end)
        end = cell_end;
    if (end > until_us)
        end = until_us;
    c = sim_model_next_control_us(m);
    if (c > t_us && c < end)
        end = c;
    return end;
}

/* The end of a steady span from t: while no closed-model phase runs, no client is stuck,
 * every serving instance's backlog is empty and each load balancer's open rate is within
 * the capacity of its route set, a tick's results are linear in its length (nothing
 * queues, the rates hold until the next phase break), so the ticks up to the next break,
 * control instant or until_us are one tick. Returns t when the span is not steady. */
static int64_t fluid_steady_end(struct sim_model *m, int64_t t_us, int64_t until_us)
{
    int64_t end = until_us;

    if (m->ctl_next_us < end)
        end = m->ctl_next_us;
    for (int si = 0; si < m->nsrcs; si++) {
        const struct src *s = &m->srcs[si];
        int64_t nb;

        if (s->stuck_total > 0)
            return t_us;
        if (t_us >= s->until_us)
            continue;
        if (s->ph->closed && t_us >= s->at_us)
            return t_us;
        nb = phase_next_break(s, t_us, m->grid_us);
        if (nb < end)
            end = nb;
    }
    for (int lb = 0; lb < m->nlbs; lb++) {
        const struct route *r = &m->routes[lb];
        double rate = 0, mu_nom = 0;

        for (int si = 0; si < m->nsrcs; si++) {
            const struct src *s = &m->srcs[si];
            if (s->lb == lb && t_us >= s->at_us && t_us < s->until_us)
                rate += phase_value(m, s, t_us);
        }
        if (r->nz) /* cross-zone off: shares differ by zone; tick by tick */
            return t_us;
        if (r->agg_valid) {
            if (r->agg_backlog)
                return t_us;
            mu_nom = r->agg_mu_nom;
        } else {
            for (int i = 0; i < r->n; i++) {
                const struct inst *in = &m->insts[r->slots[i]];
                mu_nom += in->mu;
                if (!in->dead && !in->hung && in->backlog != 0)
                    return t_us;
            }
        }
        if (mu_nom > 0 && rate >= mu_nom)
            return t_us;
    }
    return end > t_us ? end : t_us;
}

static void fluid_advance(struct sim_model *m, int64_t until_us)
{
    while (m->now_us < until_us) {
        int64_t t = m->now_us, end, steady;
        control_at(m, t);
        end = fluid_step_end(m, t, until_us);
        if (end <= t)
            end = until_us;
        steady = fluid_steady_end(m, t, until_us);
        if (steady > end)
            end = steady;
        fluid_tick(m, t, end - t);
        m->now_us = end;
    }
    control_at(m, m->now_us);
}

void sim_model_advance(struct sim_model *m, int64_t until_us)
{
    if (until_us <= m->now_us) {
        control_at(m, m->now_us);
        return;
    }
    if (m->mode == SIM_MODE_DES)
        des_advance(m, until_us);
    else
        fluid_advance(m, until_us);
}

/* ---- reads ---- */

void sim_model_lb_counters(const struct sim_model *m, int lb, struct sim_lb_counters *out)
{
    *out = m->lbc[lb];
}

const struct cm_hist *sim_model_hist(struct sim_model *m)
{
    pend_flush(m);
    ents_spill(m);
    return &m->hist;
}

void sim_model_hist_reset(struct sim_model *m)
{
    pend_flush(m);
    m->nents = 0;
    m->ents_spilled = 0;
    cm_hist_reset(&m->hist);
}

int sim_model_latency_entries(struct sim_model *m, const struct sim_latency_entry **out)
{
    pend_flush(m);
    *out = m->ents;
    if (m->mode != SIM_MODE_FLUID || m->ents_spilled)
        return -1;
    return m->nents;
}

double sim_model_offered_load(const struct sim_model *m, int64_t t_us, int *is_clients)
{
    double open = 0, closed = 0;
    int nopen = 0, nclosed = 0;

    for (int i = 0; i < m->nsrcs; i++) {
        const struct src *s = &m->srcs[i];
        if (t_us < s->at_us || t_us >= s->until_us)
            continue;
        if (s->ph->closed) {
            closed += phase_value(m, s, t_us);
            nclosed++;
        } else {
            open += phase_value(m, s, t_us);
            nopen++;
        }
    }
    *is_clients = nopen == 0 && nclosed > 0;
    return nopen ? open : closed;
}

/* Mean of an open phase's rate over [t0, t1), on a 1 s grid. */
static double open_mean_rate(const struct sim_model *m, const struct src *s, int64_t t0, int64_t t1)
{
    double sum = 0;
    int64_t t = t0;

    while (t < t1) {
        int64_t nb = phase_next_break(s, t, m->grid_us);
        if (nb > t1)
            nb = t1;
        if (nb <= t)
            nb = t1;
        sum += phase_value(m, s, t) * (double)(nb - t);
        t = nb;
    }
    return sum / (double)(t1 - t0);
}

int sim_model_demand(const struct sim_model *m, int lb, const struct sim_app *app,
                     double target_pct, double share, int64_t t0_us, int64_t t1_us)
{
    double s = app->service_mean_ms / 1000.0, c = app->workers, tgt = target_pct / 100.0;
    double open = 0;
    int any = 0, closed_any = 0, lo, hi;

    if (t1_us <= t0_us)
        return 0;
    for (int i = 0; i < m->nsrcs; i++) {
        const struct src *src = &m->srcs[i];
        if (src->lb != lb || src->until_us <= t0_us || src->at_us >= t1_us)
            continue;
        any = 1;
        closed_any |= src->ph->closed;
        if (!src->ph->closed)
            open += open_mean_rate(m, src, t0_us, t1_us);
    }
    if (!any)
        return 0;
    open *= share;
    if (open <= 0) {
        int clients = 0;
        for (int i = 0; i < m->nsrcs; i++) {
            const struct src *src = &m->srcs[i];
            int64_t mid = t0_us + (t1_us - t0_us) / 2;
            if (src->lb == lb && src->ph->closed && src->until_us > t0_us && src->at_us < t1_us &&
                phase_value(m, src, mid < src->at_us ? src->at_us : mid) > 0)
                clients = 1;
        }
        if (!clients)
            return 0;
    }
    if (!closed_any) {
        /* open load alone: the smallest n with open x s x cpu / (n x c) <= target, from the
         * quotient, then stepped to exactly what the search below would find (the test
         * is monotone in n: a correctly rounded division by a larger n is not larger) */
        double num = open * s * app->cpu_per_request, est = num / (c * tgt);
        if (tgt > 0 && est < (double)(1 << 20)) {
            int n = est < 1 ? 1 : (int)ceil(est), steps = 0;
            while (n > 1 && num / ((n - 1) * c) <= tgt && steps++ < 4)
                n--;
            while (n < (1 << 20) && !(num / (n * c) <= tgt) && steps++ < 4)
                n++;
            if (steps < 4)
                return n;
        }
    }
    /* CPU(n) is decreasing in n: binary search the smallest n with CPU(n) <= target */
    lo = 1;
    hi = 1 << 20;
    while (lo < hi) {
        int n = lo + (hi - lo) / 2;
        double work = open * s; /* busy workers */
        for (int i = 0; i < m->nsrcs; i++) {
            const struct src *src = &m->srcs[i];
            const struct sim_phase *ph = src->ph;
            double clients, x, z = ph->think_ms / 1000.0;
            int64_t mid = t0_us + (t1_us - t0_us) / 2;
            if (src->lb != lb || !ph->closed || src->until_us <= t0_us || src->at_us >= t1_us)
                continue;
            clients = phase_value(m, src, mid < src->at_us ? src->at_us : mid) * share;
            x = clients / (z + s);
            if (x > n * c / s)
                x = n * c / s;
            if (ph->shape == SIM_SHAPE_BURSTS && x > 0) {
                double r = (double)ph->burst_requests * share;
                double burst = r / x, gap = ph->gap_ms / 1000.0;
                x = r / (burst + gap);
            }
            work += x * s;
        }
        if (work * app->cpu_per_request / (n * c) <= tgt)
            hi = n;
        else
            lo = n + 1;
    }
    return lo;
}
