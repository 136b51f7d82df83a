/* scaler/sim/model.c: instances as multi-server queues, load balancers, load sources:
 * distributions, shapes, create, instances and reads. The two modes, request-level
 * discrete events and fluid per-tick flows, are in model_des.c and model_fluid.c. */
#include "scaler/sim/model.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/app.h"
#include "scaler/hash.h"
#include "scaler/rng.h"
#include "scaler/sim/load.h"
#include "scaler/sim/model_internal.h"
#include "scaler/sim/queue.h"

/* The quantile levels' edges (model_internal.h). */
const double level_edges[NLEVELS + 1] = { 0,   0.1,  0.2,  0.3,  0.4,   0.5,   0.6,   0.7, 0.8,
                                          0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999, 1.0 };

/* ---- distributions ---- */

/* One service time of the profile (scaler/app.h) in us, from the model's RNG. */
double draw_service_us(struct sim_model *m, const struct sc_app *app)
{
    return sc_app_service_time(app, &m->rng, 1000.0);
}

double draw_exp_us(struct sim_model *m, double mean_us)
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
double phase_value(const struct sim_model *m, const struct src *s, int64_t t_us)
{
    if (s->memo && t_us >= s->at_us && t_us < s->until_us) {
        /* sim_phase_value_at() holds a continuous shape still on each cell of the grid */
        int64_t cell = (t_us - s->at_us) / m->grid_us;
        struct phase_memo *pm = &s->memo[cell % PHASE_MEMO_CELLS];

        if (pm->cell != cell) {
            pm->cell = cell;
            pm->v = sim_phase_value_at(s->ph, m->sc->duration_ms, t_us - m->start_us, m->grid_us);
        }
        return pm->v * s->share;
    }
    return sim_phase_value_at(s->ph, m->sc->duration_ms, t_us - m->start_us, m->grid_us) * s->share;
}

/* The next time after t at which phase_value may change (piecewise-constant grid of
 * grid_us for continuous shapes). */
int64_t phase_next_break(const struct src *s, int64_t t_us, int64_t grid_us)
{
    /* the model's start, and a duration that clips the phase where the model did */
    int64_t start_us = s->at_us - s->ph->at_ms * 1000;
    int64_t dur_ms = (s->until_us - start_us) / 1000;
    int64_t nb = sim_phase_next_break_us(s->ph, dur_ms, t_us - start_us, grid_us);

    return nb == INT64_MAX ? INT64_MAX : nb + start_us;
}

/* ---- create / destroy ---- */

static int app_index(struct sim_model *m, const struct sc_app *app)
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
    if (cfg->nextra_routes < 0 || cfg->nsplits < 0)
        return NULL;
    for (int i = 0; i < cfg->nsplits; i++)
        if (cfg->splits[i].phase < 0 || cfg->splits[i].phase >= sc->nphases ||
            cfg->splits[i].route < sc->nlbs ||
            cfg->splits[i].route >= sc->nlbs + cfg->nextra_routes)
            return NULL;
    m = cm_xcalloc(1, sizeof(*m));
    m->mode = cfg->mode;
    m->sc = sc;
    sc_rng_init(&m->rng, cfg->seed ^ 0x5ca1ab1e5eedULL);
    m->seed = cfg->seed;
    m->start_us = cfg->start_us;
    m->now_us = cfg->start_us;
    m->tick_us = cfg->tick_us > 0 ? cfg->tick_us : 1000000;
    m->grid_us = m->mode == SIM_MODE_DES ? 1000000 : 10000000;
    sim_queue_init(&m->q, cfg->start_us);
    m->nlbs = sc->nlbs + cfg->nextra_routes;
    m->routes = cm_xcalloc((size_t)m->nlbs + 1, sizeof(*m->routes));
    m->lbc = cm_xcalloc((size_t)m->nlbs + 1, sizeof(*m->lbc));
    for (int i = 0; i < cfg->nextra_routes; i++)
        m->routes[sc->nlbs + i].answer_status = cfg->answer_status ? cfg->answer_status[i] : 0;
    for (int i = 0; i < sc->nlbs; i++) {
        const char *proto = sc->lbs[i].nlisteners ? sc->lbs[i].listeners[0].protocol : "HTTP";
        m->routes[i].round_robin = strcmp(proto, "TCP") == 0 || strcmp(proto, "SSL") == 0;
    }
    for (int k = 0; k < NLEVELS; k++) {
        m->lv_mid[k] = (level_edges[k] + level_edges[k + 1]) / 2;
        m->lv_log1mp[k] = log(1 - m->lv_mid[k]);
        m->lv_weight[k] = (level_edges[k + 1] - level_edges[k]) * SIM_FLUID_WEIGHT;
    }
    m->apps = cm_xcalloc((size_t)sc->nlcs + 1, sizeof(*m->apps));
    for (int i = 0; i < sc->nlcs; i++) {
        struct app_cache *ac = &m->apps[m->napps++];
        ac->app = &sc->lcs[i].app;
        ac->mean_us = ac->app->service_mean_ms * 1000.0;
        for (int k = 0; k < NLEVELS; k++)
            ac->q_us[k] =
                sc_app_service_quantile(ac->app, (level_edges[k] + level_edges[k + 1]) / 2, 1000.0);
    }
    m->srcs = cm_xcalloc((size_t)sc->nphases + (size_t)cfg->nsplits + 1, sizeof(*m->srcs));
    for (int k = 0; k < sc->nphases + cfg->nsplits; k++) {
        /* a phase of a classic load balancer is one source; an ALB's, one per split */
        int i = k < sc->nphases ? k : cfg->splits[k - sc->nphases].phase;
        struct src *s;
        if (k < sc->nphases && sim_scenario_lb_index(sc, sc->phases[i].target) < 0)
            continue;
        s = &m->srcs[m->nsrcs++];
        s->ph = &sc->phases[i];
        s->share = k < sc->nphases ? 1.0 : cfg->splits[k - sc->nphases].share;
        s->lb = k < sc->nphases ? sim_scenario_lb_index(sc, s->ph->target)
                                : cfg->splits[k - sc->nphases].route;
        s->at_us = cfg->start_us + s->ph->at_ms * 1000;
        s->until_us = cfg->start_us + s->ph->until_ms * 1000;
        if (s->until_us > cfg->start_us + sc->duration_ms * 1000)
            s->until_us = cfg->start_us + sc->duration_ms * 1000;
        s->gap_until_us = s->at_us;
        if (s->ph->ntrace == 0 &&
            (s->ph->shape == SIM_SHAPE_RAMP || s->ph->shape == SIM_SHAPE_DIURNAL)) {
            s->memo = cm_xcalloc(PHASE_MEMO_CELLS, sizeof(*s->memo));
            for (int j = 0; j < PHASE_MEMO_CELLS; j++)
                s->memo[j].cell = -1;
        }
        if (m->mode == SIM_MODE_DES) {
            struct sim_event_rec ev = { 0 };
            ev.t_us = s->at_us;
            ev.kind = s->ph->closed ? EV_RESPAWN : EV_OPEN;
            ev.a = m->nsrcs - 1;
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
        free(m->routes[i].since_ms);
        free(m->routes[i].credit);
        free(m->routes[i].cand);
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

static void index_rebuild(struct sim_model *m);
static void control_update(struct sim_model *m);

int sim_model_instance_start(struct sim_model *m, const char *id, int group,
                             const struct sc_app *app, const char *zone, int64_t now_us)
{
    return sim_model_instance_start_boot(m, id, group, app, zone, now_us, app->boot_s);
}

int sim_model_instance_start_boot(struct sim_model *m, const char *id, int group,
                                  const struct sc_app *app, const char *zone, int64_t now_us,
                                  double boot_s)
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
    assert(in->app_idx >= 0); /* a copy of a scenario's app has no cache entry */
    in->boot_end_us = now_us + (int64_t)llround(boot_s * 1e6);
    in->up = in->boot_end_us <= now_us;
    in->slow = 1;
    in->mu = app->workers / (m->apps[in->app_idx].mean_us / 1e6);
    in->u_lb = -1;
    in->lb_last = -1;
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

/* Fluid mode: whether a probe at the model's clock finds the instance's queue full. A
 * fluid backlog at its limit stays there exactly, while a real (and DES) queue at its
 * limit is full only part of the time: the share of time it is full equals the share of
 * arrivals it refuses (PASTA, Poisson arrivals see time averages), which the fluid tick
 * computes as p_full. So a probe fails with that probability, drawn from a hash of the
 * seed, the instance and the instant (the same answer to every caller at one instant,
 * independent draws for probes an Interval apart, as a queue that mixes in seconds). */
static int fluid_probe_finds_full(const struct sim_model *m, const struct inst *in)
{
    uint64_t st;
    double u;

    if (in->backlog < in->app->queue_limit || in->p_full <= 0)
        return 0;
    st = sc_hash_fnv1a_str(SC_HASH_FNV1A_BASIS ^ m->seed, in->id) ^ (uint64_t)m->now_us;
    u = (double)(sc_rng_splitmix64(&st) >> 11) * 0x1.0p-53;
    return u < in->p_full;
}

int sim_model_instance_health(const struct sim_model *m, int slot, int http)
{
    const struct inst *in = &m->insts[slot];

    if (!in->live || !in->up || in->dead || in->hung)
        return 0;
    if (http && in->app->queue_limit > 0) {
        if (m->mode == SIM_MODE_DES && in->qlen >= in->app->queue_limit)
            return 0;
        if (m->mode == SIM_MODE_FLUID && fluid_probe_finds_full(m, in))
            return 0;
    }
    return 1;
}

void fail_at(struct sim_model *m, int si, int64_t t_us)
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
        c->app = in->app;
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
        r->since_ms = cm_xrealloc(r->since_ms, (size_t)r->cap * sizeof(*r->since_ms));
        r->credit = cm_xrealloc(r->credit, (size_t)r->cap * sizeof(*r->credit));
        r->cand = cm_xrealloc(r->cand, (size_t)r->cap * sizeof(*r->cand));
    }
    r->ss_ms = 0;
    if (n > 0)
        memcpy(r->slots, slots, (size_t)n * sizeof(int));
    r->nz = zones && nzones > 0 ? (nzones < MAX_ROUTE_ZONES ? nzones : MAX_ROUTE_ZONES) : 0;
    for (int i = 0; i < n && r->nz; i++)
        r->zone[i] = zones[i] >= 0 && zones[i] < r->nz ? zones[i] : 0;
    r->n = n;
    if (r->rr >= n)
        r->rr = 0;
}

void sim_model_set_target_group_routes(struct sim_model *m, int lb, const int *slots,
                                       const int64_t *since_ms, int n, enum sc_elbv2_algorithm alg,
                                       int64_t slow_start_ms)
{
    struct route *r = &m->routes[lb];

    sim_model_set_zone_routes(m, lb, slots, NULL, n, 0);
    r->tg = 1;
    r->alg = alg;
    r->round_robin = alg != SC_ELBV2_LEAST_OUTSTANDING;
    if (!since_ms || slow_start_ms <= 0 || n <= 0)
        return;
    memcpy(r->since_ms, since_ms, (size_t)n * sizeof(*since_ms));
    r->ramp_end_ms = 0;
    for (int i = 0; i < n; i++) {
        r->credit[i] = 0;
        if (since_ms[i] >= 0 && since_ms[i] + slow_start_ms > r->ramp_end_ms)
            r->ramp_end_ms = since_ms[i] + slow_start_ms;
    }
    r->ss_ms = slow_start_ms;
    r->alg = alg;
}

int route_ramping(const struct route *r, int64_t t_us)
{
    /* before the last slow start's end that entry's share is below 1 */
    return r->ss_ms > 0 && !r->nz && t_us / 1000 < r->ramp_end_ms;
}

double route_share(const struct route *r, int i, int64_t t_us)
{
    return r->ss_ms > 0 ? sc_elbv2_slow_start_share(t_us / 1000, r->since_ms[i], r->ss_ms) : 1.0;
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
void route_settle(struct sim_model *m, int lb)
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
void control_at(struct sim_model *m, int64_t t_us)
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

int sim_model_demand(const struct sim_model *m, int lb, const struct sc_app *app, double target_pct,
                     double share, int64_t t0_us, int64_t t1_us)
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
        double num = sc_app_cpu_time(app, open * s), est = num / (c * tgt);
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
        if (sc_app_cpu_time(app, work) / (n * c) <= tgt)
            hi = n;
        else
            lo = n + 1;
    }
    return lo;
}
