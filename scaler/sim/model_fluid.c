/* scaler/sim/model_fluid.c: the fluid mode: each tick moves request flows from the sources
 * to the instances by capacity share, with fluid backlogs, an Erlang C wait below saturation
 * and latency recorded at quantile levels of the service time plus the wait. */
#include "scaler/sim/model.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/hist.h"
#include "common/xalloc.h"
#include "scaler/sim/model_internal.h"

/* ---- fluid ---- */

/* Recordings kept as a list before they go to the histogram. */
#define MAX_LATENCY_ENTRIES 8192

/* One class of identical instances' results in a tick. */
struct fl_key {
    int app_idx;
    double slow;
    double backlog;
    int hung;
};

void ents_spill(struct sim_model *m)
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
    double log_c = 0;
    int tail = erl_c > 0 && erl_rate_us > 0;

    if (tail)
        log_c = log(erl_c);
    for (int k = 0; k < NLEVELS; k++) {
        double w = wait_fixed_us, v, c;
        if (tail && m->lv_mid[k] > 1 - erl_c)
            w += (log_c - m->lv_log1mp[k]) / erl_rate_us; /* log(erl_c / (1 - p)) */
        v = w + ac->q_us[k] * slow;
        c = n * m->lv_weight[k];
        /* round half up: both are >= 0 */
        if (c >= 0.5)
            ent_add(m, (int64_t)(v + 0.5), (uint64_t)(c + 0.5), k);
    }
}

void pend_flush(struct sim_model *m)
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

/* A target group with a target in slow start: each entry's share of the route's load is
 * its capacity x its slow start share (at t), of the sum of those; all 0 (every target at
 * the very start): by capacity. The shares that meet hung or dead instances. */
static void ramp_shares(struct sim_model *m, struct route *r, int64_t t_us)
{
    double sum = 0, mu_sum = 0;

    for (int i = 0; i < r->n; i++) {
        const struct inst *in = &m->insts[r->slots[i]];
        r->w[i] = in->mu * route_share(r, i, t_us);
        sum += r->w[i];
        mu_sum += in->mu;
    }
    r->agg_hung_w = r->agg_dead_w = 0;
    for (int i = 0; i < r->n; i++) {
        const struct inst *in = &m->insts[r->slots[i]];
        r->w[i] = sum > 0 ? r->w[i] / sum : mu_sum > 0 ? in->mu / mu_sum : 0;
        if (in->dead)
            r->agg_dead_w += r->w[i];
        else if (in->hung)
            r->agg_hung_w += r->w[i];
    }
}

/* Least outstanding requests over a route whose serving instances' backlogs differ: the
 * ELB gives each request to the instance with the fewest outstanding, so arrivals fill
 * the shortest backlogs first, as water fills a vessel: the instances with spare workers
 * take all of them while total arrivals fit there (shared by that spare capacity), else
 * every instance that gets any ends the tick at one common backlog level L (a = L + c - q,
 * c its capacity this tick, q its backlog), and the level's excess over queue_limit is
 * what the full queues refuse. Writes each serving entry's arrivals (requests this tick)
 * into r->w and returns 1; returns 0 (arrivals split by capacity, what the fill gives
 * for equal backlogs) when every serving instance holds the same backlog. */
static int lor_fill(struct sim_model *m, struct route *r, double total, double dt)
{
    double q_first = -1, spare = 0, lo = 0, hi = 0, sum = 0;
    int differ = 0;

    for (int i = 0; i < r->n; i++) {
        const struct inst *in = &m->insts[r->slots[i]];
        if (in->dead || in->hung)
            continue;
        if (q_first < 0)
            q_first = in->backlog;
        else if (in->backlog != q_first)
            differ = 1;
    }
    if (!differ)
        return 0;
    for (int i = 0; i < r->n; i++) {
        const struct inst *in = &m->insts[r->slots[i]];
        double c = in->mu * dt;
        r->w[i] = 0;
        if (in->dead || in->hung)
            continue;
        spare += c > in->backlog ? c - in->backlog : 0;
        if (in->backlog - c + total > hi)
            hi = in->backlog - c + total;
    }
    if (total <= spare) {
        for (int i = 0; i < r->n; i++) {
            const struct inst *in = &m->insts[r->slots[i]];
            double c = in->mu * dt;
            if (!in->dead && !in->hung && c > in->backlog)
                r->w[i] = total * (c - in->backlog) / spare;
        }
        return 1;
    }
    /* f(L) = sum of max(0, L + c - q) grows with L; f(0) = spare < total <= f(hi) */
    for (int it = 0; it < 64; it++) {
        double mid = (lo + hi) / 2, f = 0;
        for (int i = 0; i < r->n; i++) {
            const struct inst *in = &m->insts[r->slots[i]];
            double a = mid + in->mu * dt - in->backlog;
            if (!in->dead && !in->hung && a > 0)
                f += a;
        }
        if (f < total)
            lo = mid;
        else
            hi = mid;
    }
    for (int i = 0; i < r->n; i++) {
        const struct inst *in = &m->insts[r->slots[i]];
        double a = hi + in->mu * dt - in->backlog;
        if (!in->dead && !in->hung && a > 0) {
            r->w[i] = a;
            sum += a;
        }
    }
    for (int i = 0; i < r->n && sum > 0; i++)
        r->w[i] *= total / sum;
    return 1;
}

/* Least outstanding requests keeps the queues of a route's full instances within one
 * request of each other, so they fill and drain as one queue: with p the share of
 * arrivals refused (the chance all are full, PASTA) and n instances at the limit, the
 * joint queue stands j requests below its top with probability p (1 - p)^j, and then
 * n - j of the n are full: a probe of one finds it full with sum over j < n of
 * p (1 - p)^j (n - j) / n, more often than a request is refused. */
static double lor_probe_full(double p, int n)
{
    double sum = 0, pj = p;

    for (int j = 0; j < n; j++) {
        sum += pj * (double)(n - j) / n;
        pj *= 1 - p;
    }
    return sum;
}

/* After a tick of a least-outstanding route: the instances whose queues are at their limit
 * share the chance a probe finds one full (lor_probe_full). */
static void lor_couple_full(struct sim_model *m, struct route *r)
{
    double p = 0;
    int n = 0;

    for (int i = 0; i < r->n; i++) {
        const struct inst *in = &m->insts[r->slots[i]];
        if (!in->dead && !in->hung && in->p_full > 0 && in->backlog >= in->app->queue_limit) {
            p += in->p_full;
            n++;
        }
    }
    if (n < 2)
        return;
    p = lor_probe_full(p / n, n);
    for (int i = 0; i < r->n; i++) {
        struct inst *in = &m->insts[r->slots[i]];
        if (!in->dead && !in->hung && in->p_full > 0 && in->backlog >= in->app->queue_limit)
            in->p_full = p;
    }
}

/* An instance that left every route set (the ELB took it out of service, or it is
 * draining) gets no new requests but still works through its backlog, as the DES queue
 * does: served at its full rate, each request having waited about half the backlog's
 * drain time; its health checks see the queue empty out. Returns 1 when some backlog
 * remains. */
static int fluid_drain(struct sim_model *m, int64_t dt_us)
{
    double dt = (double)dt_us / 1e6;
    int left = 0;

    for (int i = 0; i < m->ninsts; i++) {
        struct inst *in = &m->insts[i];
        double cap, served;

        if (!in->live || !in->up || in->dead || in->hung || in->backlog <= 0 ||
            in->tick_seen == m->tick_no)
            continue;
        cap = in->mu * dt;
        served = in->backlog < cap ? in->backlog : cap;
        record_latency(m, &m->apps[in->app_idx], in->slow, served, in->backlog / 2 / in->mu * 1e6,
                       0, 0);
        if (in->lb_last >= 0) {
            m->lbc[in->lb_last].completed += served;
            m->lbc[in->lb_last].latency_sum_us +=
                served * (in->backlog / 2 / in->mu * 1e6 + m->apps[in->app_idx].mean_us * in->slow);
        }
        in->busy_area_us += served / cap * in->app->workers * (double)dt_us;
        in->backlog -= served;
        if (in->backlog < 1e-9)
            in->backlog = 0;
        in->p_full = 0;
        left |= in->backlog > 0;
    }
    return left;
}

static void fluid_tick(struct sim_model *m, int64_t t_us, int64_t dt_us)
{
    double dt = (double)dt_us / 1e6;
    int64_t sec = t_us / 1000000;

    m->tick_no++;

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
        int fill, ramp, weighted;

        if (r->answer_status) { /* the ALB's own answers (sim_model_split) */
            for (int si = 0; si < m->nsrcs; si++) {
                struct src *s = &m->srcs[si];
                if (s->lb == lb && !s->ph->closed && t_us >= s->at_us && t_us < s->until_us)
                    open_rate += phase_value(m, s, t_us + dt_us / 2);
            }
            m->lbc[lb].arrived += open_rate * dt;
            if (r->answer_status >= 500)
                m->lbc[lb].failed += open_rate * dt;
            else
                m->lbc[lb].completed += open_rate * dt;
            continue;
        }
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
        /* slow start: shares by capacity x share at the tick's middle, like a cross-zone
         * off route's per-entry shares */
        ramp = route_ramping(r, t_us + dt_us / 2);
        if (ramp)
            ramp_shares(m, r, t_us + dt_us / 2);
        weighted = r->nz || ramp;

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
            if (weighted) {
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
        if (weighted)
            m->lbc[lb].failed += open_rate * dt * (r->agg_hung_w + r->agg_dead_w);
        else if (mu_hung + mu_dead > 0)
            m->lbc[lb].failed += open_rate * dt * (mu_hung + mu_dead) / mu_nom;

        /* per instance: arrivals by capacity share (least outstanding: see lor_fill());
         * a run of identical neighbours is computed once and its totals added once (x
         * the run's length) */
        fill = !weighted && !r->round_robin && mu_ok > 0 &&
               lor_fill(m, r, open_rate * dt * mu_ok / mu_nom + closed_x, dt);
        {
            struct fl_key prev = { -1, 0, 0, 0 };
            double prev_served = 0, prev_backlog = 0, prev_busy = 0, prev_failed = 0;
            double prev_p_full = 0;
            double pend_n = 0, pend_wait = 0, pend_c = 0, pend_rate = 0, pend_mean_wait = 0;
            double run_n = 0, run_lat_us = 0, busy_inc = 0;
            const struct app_cache *pend_ac = NULL;
            double pend_slow = 1;
            int lazy = r->uniform && !weighted, classes = 0;
            int joinable = !r->uniform && mu_ok == mu_nom && !weighted;
            double ok_w = 1 - r->agg_hung_w - r->agg_dead_w, prev_w = -1;

            for (int i = 0; i < r->n; i++) {
                struct inst *in = &m->insts[r->slots[i]];
                const struct app_cache *ac;
                double mu, a_open, a_closed, work, served, busy, failed = 0, wait = 0;
                double erl_c = 0, erl_rate = 0;

                if (in->dead || in->hung)
                    continue;
                if (in->app_idx == prev.app_idx && in->slow == prev.slow &&
                    in->backlog == prev.backlog && (!weighted || r->w[i] == prev_w)) {
                    in->backlog = prev_backlog;
                    in->p_full = prev_p_full;
                    in->tick_seen = m->tick_no;
                    in->lb_last = lb;
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
                    in->tick_seen = m->tick_no;
                    in->lb_last = lb;
                    if (weighted) {
                        a_open = open_rate * dt * r->w[i];
                        a_closed = ok_w > 0 ? closed_x * r->w[i] / ok_w : 0;
                        prev_w = r->w[i];
                    } else if (fill) {
                        a_open = r->w[i];
                        a_closed = 0;
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
                    in->p_full = a_open + a_closed > 0 ? failed / (a_open + a_closed) : 0;
                    if (in->p_full > 1)
                        in->p_full = 1;
                    prev_p_full = in->p_full;
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
                    if (closed_wait_us > 0) {
                        /* the clients outnumber the workers: their wait is the closed
                         * queue's (n / X - Z - S), not an open queue's tail at load 1 */
                        wait += closed_wait_us;
                        erl_c = 0;
                    }
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
                busy_inc = prev_busy * in->app->workers * (double)dt_us;
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
        if (!weighted && !r->round_robin)
            lor_couple_full(m, r);
    }
    /* time up: integrated lazily by touch() (whole microseconds: exact in a double) */
    {
        int backlog = fluid_drain(m, dt_us);
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

    if (m->backlog_seen) /* some queue, maybe of an instance out of service, still drains */
        return t_us;
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
        if (r->nz || route_ramping(r, t_us)) /* shares differ by zone or slow start */
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

void fluid_advance(struct sim_model *m, int64_t until_us)
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
