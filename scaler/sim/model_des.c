/* scaler/sim/model_des.c: the discrete-event mode: every request is an event (arrival,
 * client think, service end, failure) on the model's queue, routed to an instance by the
 * listener's rule. */
#include "scaler/sim/model.h"

#include <math.h>
#include <stdlib.h>

#include "common/hist.h"
#include "common/xalloc.h"
#include "scaler/sim/model_internal.h"
#include "scaler/sim/queue.h"

/* ---- DES ---- */

/* A request that ends (success or failure) for closed-model sources. */
static void client_next(struct sim_model *m, int si, int64_t t_us);
static void send_request(struct sim_model *m, int si, int64_t t_us);

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

/* A target group with a target in slow start: libscaler's pick (the emulator's data
 * plane's) with each target's slow start share as its weight. */
static int pick_ramped(struct sim_model *m, struct route *r, int64_t t_us)
{
    for (int i = 0; i < r->n; i++) {
        const struct inst *in = &m->insts[r->slots[i]];

        r->cand[i].outstanding = in->busy + in->qlen + in->stuck;
        r->cand[i].weight = route_share(r, i, t_us);
        r->cand[i].credit = &r->credit[i];
    }
    return r->slots[sc_elbv2_pick(r->alg, r->cand, r->n,
                                  r->alg == SC_ELBV2_WEIGHTED_RANDOM ? sc_rng_next(&m->rng) : 0)];
}

static int pick_instance(struct sim_model *m, int lb, int64_t t_us)
{
    struct route *r = &m->routes[lb];
    int best = -1, best_out = 0;

    if (r->n == 0)
        return -1;
    if ((r->tg && r->alg == SC_ELBV2_WEIGHTED_RANDOM) || route_ramping(r, t_us))
        return pick_ramped(m, r, t_us);
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
    if (m->routes[s->lb].answer_status) {
        /* the ALB answers itself (fixed response, redirect): no instance, no latency */
        if (m->routes[s->lb].answer_status >= 500)
            m->lbc[s->lb].failed += 1;
        else
            m->lbc[s->lb].completed += 1;
        return;
    }
    slot = pick_instance(m, s->lb, t_us);
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

void des_advance(struct sim_model *m, int64_t until_us)
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
