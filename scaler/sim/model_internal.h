/* scaler/sim/model_internal.h: what model.c, model_des.c and model_fluid.c share; not public.
 *
 * The model's records (instances, route sets, load sources, the model itself) and the
 * helpers that one mode's file calls in another. model.c holds the distributions, shapes,
 * instances and reads; model_des.c the discrete-event mode; model_fluid.c the fluid mode. */
#ifndef SCALER_SIM_MODEL_INTERNAL_H
#define SCALER_SIM_MODEL_INTERNAL_H

#include <stdint.h>

#include "common/hist.h"
#include "scaler/elbv2.h"
#include "scaler/rng.h"
#include "scaler/sim/model.h"
#include "scaler/sim/queue.h"

/* Quantile levels the fluid mode records latency at: bin [lo, hi) of probability. */
#define NLEVELS 16
extern const double level_edges[NLEVELS + 1];

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
    const struct sc_app *app;
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
    double p_full;      /* the share of the last tick's arrivals the full queue refused: by
                         * PASTA the share of time a probe finds it full (DES's qlen test) */
    double mu;          /* service rate, requests/s: workers / (mean service x slow) */
    uint64_t tick_seen; /* the last tick a route set gave it arrivals (fluid_drain()) */
    int lb_last;        /* that route's load balancer, or -1 */
    int u_lb;           /* the uniform route whose u_acc it shares, or -1 */
    double u_base;      /* that route's u_acc when it joined */
    /* integrals */
    double busy_area_us; /* busy workers x us (the CPU model applies cpu_per_request) */
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
    int answer_status; /* an ALB's own answer (sim_model_split): no instances */
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
    /* a target group's route (tg; sim_model_set_target_group_routes): alg its algorithm,
     * since_ms[i] when slots[i] entered slow start (-1: not), ss_ms the group's duration
     * (0: off), credit[i] round robin's per-entry state, cand the pick's scratch */
    int64_t *since_ms;
    int64_t ss_ms, ramp_end_ms; /* the latest entry's slow start ends then */
    int tg;
    enum sc_elbv2_algorithm alg;
    double *credit;
    struct sc_elbv2_pick_cand *cand;
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
    double share; /* of the phase's value (1: all of it; an ALB's split otherwise) */
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
    const struct sc_app *app;
    double q_us[NLEVELS]; /* service quantiles at level mid-points */
    double mean_us;
};

struct sim_model {
    enum sim_mode mode;
    const struct sim_scenario *sc;
    struct sc_rng rng;
    uint64_t seed; /* the run's, for the fluid health probe's draws */
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
    /* fluid: per quantile level its mid probability p, log(1 - p) and its width x
     * SIM_FLUID_WEIGHT (what a recording adds at each level), set by sim_model_create */
    double lv_mid[NLEVELS], lv_log1mp[NLEVELS], lv_weight[NLEVELS];

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
    uint64_t tick_no;    /* fluid: ticks so far */
    /* fluid: recordings not yet in hist (sim_model_latency_entries) */
    struct sim_latency_entry *ents;
    int nents, capents;
    int ents_spilled; /* since the last reset, some went to hist */
};

/* model.c: draws from the model's RNG. */
double draw_service_us(struct sim_model *m, const struct sc_app *app);
double draw_exp_us(struct sim_model *m, double mean_us);

/* model.c: a load source's value at t and its next break (see phase_value()). */
double phase_value(const struct sim_model *m, const struct src *s, int64_t t_us);
int64_t phase_next_break(const struct src *s, int64_t t_us, int64_t grid_us);

/* Brings an instance's up time and busy area to t (both modes call it on each change). */
static inline void touch(struct inst *in, int64_t t_us)
{
    int64_t dt = t_us - in->last_us;

    if (dt <= 0)
        return;
    if (in->up && !in->dead) {
        in->up_us += (double)dt;
        if (!in->hung && in->busy > 0)
            in->busy_area_us += (double)in->busy * (double)dt;
    }
    in->last_us = t_us;
}

/* model.c: a request of source si that ends failed at t (an EV_FAIL event). */
void fail_at(struct sim_model *m, int si, int64_t t_us);
/* model.c: hands a uniform route's summed busy area out (see route_settle()). */
void route_settle(struct sim_model *m, int lb);
/* model.c: 1 when some entry of route r is within its slow start at t (its share below
 * 1), and that entry's share then (sc_elbv2_slow_start_share). */
int route_ramping(const struct route *r, int64_t t_us);
double route_share(const struct route *r, int i, int64_t t_us);
/* model.c: boots that end, hangs and slowness that expire, at t. */
void control_at(struct sim_model *m, int64_t t_us);

/* model_des.c: runs the events up to until_us. */
void des_advance(struct sim_model *m, int64_t until_us);

/* model_fluid.c: pend_flush() lists the batched latency recordings (m->pend);
 * ents_spill() moves the list (m->ents) into m->hist. */
void pend_flush(struct sim_model *m);
void ents_spill(struct sim_model *m);
/* model_fluid.c: runs the ticks up to until_us. */
void fluid_advance(struct sim_model *m, int64_t until_us);

#endif
