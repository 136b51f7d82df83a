/* scaler/sim/run_sample.c: what the simulator reports: the per-minute metrics the alarms
 * read, put to CloudWatch, and the timeline's samples. */
#include "scaler/sim/run.h"

#include <math.h>
#include <string.h>

#include "common/hist.h"
#include "common/xalloc.h"
#include "scaler/app.h"
#include "scaler/asg.h"
#include "scaler/asg_warm.h"
#include "scaler/cloudwatch.h"
#include "scaler/elb.h"
#include "scaler/sim/elastic.h"
#include "scaler/sim/expect.h"
#include "scaler/sim/run_internal.h"

/* ---- metrics ---- */

static void put_stat(struct eng *e, const char *ns, const char *metric, const char *dim,
                     const char *value, const char *unit, double count, double sum, double mn,
                     double mx, int64_t ts_ms)
{
    struct sc_dimension d = { dim, value };
    struct sc_metric_datum datum = { 0 };
    struct sc_put_metric_data_req req = { 0 };
    struct sc_error err = { 0 };

    if (count <= 0)
        return;
    datum.metric_name = metric;
    datum.dimensions = dim ? &d : NULL;
    datum.n_dimensions = dim ? 1 : 0;
    datum.has_timestamp = 1;
    datum.timestamp_ms = ts_ms;
    datum.has_statistic_values = 1;
    datum.statistic_values.sample_count = count;
    datum.statistic_values.sum = sum;
    datum.statistic_values.minimum = mn;
    datum.statistic_values.maximum = mx;
    datum.statistic_values.has_sample_count = datum.statistic_values.has_sum = 1;
    datum.statistic_values.has_minimum = datum.statistic_values.has_maximum = 1;
    datum.unit = unit;
    req.namespace = ns;
    req.metric_data = &datum;
    req.n_metric_data = 1;
    req.internal = 1;
    sc_cw_put_metric_data(e->cw, &req, e->now_ms, &err);
}

static void put_value(struct eng *e, const char *ns, const char *metric, const char *dim,
                      const char *value, const char *unit, double v, int64_t ts_ms)
{
    put_stat(e, ns, metric, dim, value, unit, 1, v, v, v, ts_ms);
}

/* A statistic set of one minute's CPU figures. */
struct cpu_stat {
    double cnt, sum, mn, mx;
};

static inline void cpu_stat_add(struct cpu_stat *st, double pct)
{
    /* pct is finite: plain comparisons do what fmin/fmax would */
    st->mn = st->cnt && st->mn < pct ? st->mn : pct;
    st->mx = st->cnt && st->mx > pct ? st->mx : pct;
    st->cnt++;
    st->sum += pct;
}

/* The minute [now - 60 s, now) ended: put what alarms read. */
void metrics_minute(struct eng *e)
{
    int64_t ts = e->now_ms - 60000;
    int ng = e->sc->ngroups;
    struct cpu_stat gst[SIM_TIMELINE_MAX_GROUPS] = { 0 }, all = { 0 }, cur = { 0 };
    int any_cpu = e->cpu_all_metric || e->cpu_instance_metric, cur_g = -1;
    const struct sim_slot_cpu *tab = NULL;
    int nslots = 0;

    for (int g = 0; g < ng; g++)
        any_cpu |= e->groups[g].cpu_metric;
    if (any_cpu)
        nslots = cpu_table(e, &tab);
    for (int slot = 0; slot < nslots; slot++) {
        struct slot_state *ss = &e->slots[slot];
        double busy = tab[slot].busy_worker_us, up = tab[slot].up_us, pct;
        int g = ss->group;
        if (tab[slot].state != SIM_SLOT_LIVE)
            continue;
        if (up - ss->min_up <= 0) {
            ss->min_busy = busy;
            ss->min_up = up;
            continue;
        }
        pct = sc_app_cpu_pct(tab[slot].app, busy - ss->min_busy, up - ss->min_up);
        ss->min_busy = busy;
        ss->min_up = up;
        if (e->cpu_instance_metric)
            put_value(e, "AWS/EC2", "CPUUtilization", "InstanceId", ss->id, "Percent", pct, ts);
        if (e->cpu_all_metric)
            cpu_stat_add(&all, pct);
        if (g < 0 || !e->groups[g].cpu_metric)
            continue;
        /* the group figure counts instances InService past their warm-up */
        if (!ss->warmed)
            ss->warmed = sc_asg_instance_warmed(e->asg, ss->id, e->now_ms);
        if (!ss->warmed)
            continue;
        /* the group being summed stays in a local (slots of a group mostly come together) */
        if (g != cur_g) {
            if (cur_g >= 0)
                gst[cur_g] = cur;
            cur_g = g;
            cur = gst[g];
        }
        cpu_stat_add(&cur, pct);
    }
    if (cur_g >= 0)
        gst[cur_g] = cur;
    for (int g = 0; g < ng; g++)
        if (e->groups[g].cpu_metric)
            put_stat(e, "AWS/EC2", "CPUUtilization", "AutoScalingGroupName", e->sc->groups[g].name,
                     "Percent", gst[g].cnt, gst[g].sum, gst[g].mn, gst[g].mx, ts);
    if (e->cpu_all_metric)
        put_stat(e, "AWS/EC2", "CPUUtilization", NULL, NULL, "Percent", all.cnt, all.sum, all.mn,
                 all.mx, ts);

    for (int lb = 0; lb < e->sc->nlbs; lb++) {
        struct lb_state *ls = &e->lbs[lb];
        struct sim_lb_counters c;
        struct sc_elb_traffic t = { 0 };
        double done, fail;
        sim_model_lb_counters(e->model, lb, &c);
        done = c.completed - ls->min_snap.completed;
        fail = c.failed - ls->min_snap.failed;
        /* whole requests, as AWS counts them (the fluid model's are fractions) */
        t.requests = floor(done + fail + 0.5);
        t.latency_sum_us = c.latency_sum_us - ls->min_snap.latency_sum_us;
        t.latency_count = done;
        t.elb_5xx = floor(fail + 0.5);
        ls->min_snap = c;
        if (ls->metrics)
            sc_elb_report_minute(e->elb, e->cw, e->sc->lbs[lb].name, &t, ls->metrics, ts,
                                 e->now_ms);
    }
    if (e->sc->nalbs)
        alb_metrics_minute(e);
}

/* ---- samples ---- */

/* Sorts entries by value (stable): bucketed by quantile level first, which leaves them
 * almost in order (a level's values come from ticks with similar load), then an
 * insertion sort fixes what is left. tmp holds n entries. */
static void sort_ents(struct sim_latency_entry *v, struct sim_latency_entry *tmp, int n)
{
    int start[17] = { 0 };

    for (int i = 0; i < n; i++)
        start[(v[i].level & 15) + 1]++;
    for (int k = 0; k < 16; k++)
        start[k + 1] += start[k];
    for (int i = 0; i < n; i++)
        tmp[start[v[i].level & 15]++] = v[i];
    memcpy(v, tmp, (size_t)n * sizeof(*v));
    for (int i = 1; i < n; i++) {
        struct sim_latency_entry x = v[i];
        int j = i;
        while (j > 0 && v[j - 1].value_us > x.value_us) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* p50 and p99 of the sample's latencies; adds them to the run's histogram. Reads the
 * model's short list when it has one (no walk over the histogram's slots). */
static void sample_latency(struct eng *e, struct sim_sample *s, struct sim_checker *checker)
{
    const struct sim_latency_entry *ents;
    int n = e->need_hist ? -1 : sim_model_latency_entries(e->model, &ents);
    uint64_t total = 0;

    if (n < 0) {
        const struct cm_hist *h = sim_model_hist(e->model);
        if (h->total > 0) {
            s->p50_ms = (double)cm_hist_percentile(h, 50) / 1000.0;
            s->p99_ms = (double)cm_hist_percentile(h, 99) / 1000.0;
        }
        if (checker)
            sim_checker_on_hist(checker, e->now_ms, h);
        cm_hist_merge(&e->run_hist, h);
        sim_model_hist_reset(e->model);
        return;
    }
    if (2 * n > e->cap_ents) {
        e->cap_ents = n * 4;
        e->ents = cm_xrealloc(e->ents, (size_t)e->cap_ents * sizeof(*e->ents));
    }
    for (int i = 0; i < n; i++) {
        e->ents[i] = ents[i];
        total += ents[i].count;
    }
    if (total > 0) {
        /* cm_hist_percentile() over the histogram these entries make (same slots, same
         * answers), walking the sorted entries slot by slot; each slot goes to the run's
         * histogram in at most two recordings (its first and last value keep the exact
         * minimum and maximum) */
        const struct cm_hist *lay = &e->run_hist;
        uint64_t want50 = (uint64_t)ceil(0.5 * (double)total), seen = 0;
        uint64_t want99 = (uint64_t)ceil(0.99 * (double)total);
        int64_t vmin, vmax;
        int got50 = 0, got99 = 0;

        sort_ents(e->ents, e->ents + n, n);
        vmin = e->ents[0].value_us;
        vmax = e->ents[n - 1].value_us;
        want50 = want50 ? want50 : 1;
        want99 = want99 ? want99 : 1;
        for (int i = 0; i < n;) {
            int idx = cm_hist_index_of(lay, e->ents[i].value_us), j = i + 1;
            uint64_t rest = 0;
            /* the slot's highest value: the sorted entries up to it share the slot */
            int64_t top = cm_hist_value_at(lay, idx), v;
            while (j < n && e->ents[j].value_us <= top)
                rest += e->ents[j++].count;
            cm_hist_record_n(&e->run_hist, e->ents[i].value_us, e->ents[i].count);
            if (j - i > 1)
                cm_hist_record_n(&e->run_hist, e->ents[j - 1].value_us, rest);
            seen += e->ents[i].count + rest;
            v = top;
            v = v > vmax ? vmax : v < vmin ? vmin : v;
            if (!got50 && seen >= want50) {
                s->p50_ms = (double)v / 1000.0;
                got50 = 1;
            }
            if (!got99 && seen >= want99) {
                s->p99_ms = (double)v / 1000.0;
                got99 = 1;
            }
            i = j;
        }
    }
    sim_model_hist_reset(e->model);
}

void emit_sample(struct eng *e, int64_t interval_ms, struct sim_checker *checker)
{
    struct sim_group_sample gs[SIM_TIMELINE_MAX_GROUPS];
    enum sim_alarm_state as[SIM_TIMELINE_MAX_ALARMS];
    double gbusy[SIM_TIMELINE_MAX_GROUPS] = { 0 }, gcap[SIM_TIMELINE_MAX_GROUPS] = { 0 };
    struct sim_sample s = { 0 };
    double done = 0, fail = 0, arrived = 0;
    int64_t t0 = us(e->now_ms - interval_ms), t1 = us(e->now_ms);

    for (int lb = 0; lb < e->sc->nlbs; lb++) {
        struct lb_state *ls = &e->lbs[lb];
        struct sim_lb_counters c;
        sim_model_lb_counters(e->model, lb, &c);
        done += c.completed - ls->smp_snap.completed;
        fail += c.failed - ls->smp_snap.failed;
        arrived += c.arrived - ls->smp_snap.arrived;
        ls->smp_snap = c;
    }
    if (e->sc->ntgs + e->nanswers)
        alb_sample_counters(e, &done, &fail, &arrived);
    const struct sim_slot_cpu *tab;
    int nslots = cpu_table(e, &tab), cur_g = -1;
    double cur_busy = 0, cur_cap = 0;

    for (int slot = 0; slot < nslots; slot++) {
        struct slot_state *ss = &e->slots[slot];
        double busy = tab[slot].busy_worker_us, up = tab[slot].up_us;
        int g = ss->group;
        if (!tab[slot].state)
            continue;
        if (g >= 0 && up > ss->smp_up) {
            /* the group being summed stays in locals, as in metrics_minute() */
            if (g != cur_g) {
                if (cur_g >= 0) {
                    gbusy[cur_g] = cur_busy;
                    gcap[cur_g] = cur_cap;
                }
                cur_g = g;
                cur_busy = gbusy[g];
                cur_cap = gcap[g];
            }
            cur_busy += sc_app_cpu_time(tab[slot].app, busy - ss->smp_busy);
            cur_cap += (up - ss->smp_up) * tab[slot].workers;
        }
        ss->smp_busy = busy;
        ss->smp_up = up;
    }
    if (cur_g >= 0) {
        gbusy[cur_g] = cur_busy;
        gcap[cur_g] = cur_cap;
    }
    for (int g = 0; g < e->sc->ngroups; g++) {
        const struct sc_asg_group_info *gi = sc_asg_group_find(e->asg, e->sc->groups[g].name);
        struct sim_group_sample *o = &gs[g];
        struct sim_demand_basis basis;
        memset(o, 0, sizeof(*o));
        sim_elastic_demand_basis(e->sc, g, &basis);
        if (gi) {
            o->desired = gi->desired_capacity;
            sc_asg_group_lifecycle_counts(gi, &o->pending, &o->in_service, &o->terminating);
            o->warm_billed = sc_asg_warm_pool_billed(gi);
        }
        o->cpu_pct = gcap[g] > 0 ? 100.0 * gbusy[g] / gcap[g] : NAN;
        if (basis.kind == SIM_DEMAND_REQUESTS)
            o->demand =
                sim_elastic_request_demand(&basis, e->tgs[basis.tg].smp_requests, interval_ms);
        else
            o->demand =
                e->groups[g].lb >= 0
                    ? sim_model_demand(e->model, e->groups[g].lb, e->groups[g].app, basis.cpu_pct,
                                       route_group_share(e, e->groups[g].lb), t0, t1)
                    : 0;
    }
    for (int i = 0; i < e->nalarms; i++)
        as[i] = to_sim_state(e->alarms[i].last);

    s.t_ms = e->now_ms;
    s.interval_ms = interval_ms;
    s.load = sim_model_offered_load(e->model, t1 - 1, &s.load_is_clients);
    s.offered_rps = arrived / ((double)interval_ms / 1000.0);
    if (e->mode == SIM_MODE_FLUID) {
        s.completed = (uint64_t)llround(done);
        s.failed = (uint64_t)llround(fail);
    } else {
        s.completed = (uint64_t)llround(done);
        s.failed = (uint64_t)llround(fail);
    }
    sample_latency(e, &s, checker);
    s.error_pct = done + fail > 0 ? 100.0 * fail / (done + fail) : 0;
    s.ngroups = e->sc->ngroups;
    s.groups = gs;
    s.nalarms = e->nalarms;
    s.alarms = as;
    sim_timeline_push_sample(e->tl, &s);
}
