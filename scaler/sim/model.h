/* scaler/sim/model.h: the modelled world behind the simulator's load balancers.
 *
 * Instances are queues with `workers` servers: a request holds a worker for its service
 * time (fixed, exponential or lognormal, times the instance's slow factor); beyond the
 * busy workers up to queue_limit requests wait (FIFO); more fail. Latency = queueing +
 * service. CPUUtilization is the profile's busy-worker CPU model (sc_app_cpu_pct): the
 * busy fraction of the workers times cpu_per_request.
 * A load balancer routes each request to one instance of its route set (the engine sets
 * it from sc_elb_route_set): the one with the fewest outstanding requests, as a classic
 * ELB does for HTTP listeners (round robin among equals, and for TCP listeners).
 * A request fails when the route set is empty (ELB 503, after 1 ms), when the chosen
 * instance's queue is full (after 1 ms), when the instance dies or stops while holding it,
 * and when the instance is hung (after the ELB idle timeout, 60 s).
 *
 * Load comes from the scenario's phases: open-model phases send at a rate (Poisson
 * arrivals, the rate following the shape); closed-model phases keep `clients` clients
 * each sending its next request when the previous one ended (after an exponential think
 * time of the given mean), with bursts of N requests separated by gaps as ab in a loop.
 *
 * Two modes:
 *  - SIM_MODE_DES: every request is an event (accurate; cost grows with requests);
 *  - SIM_MODE_FLUID: every tick (default 1 s) moves request flows between sources and
 *    instances: per instance, arrivals split by capacity, a fluid backlog, an M/M/c
 *    (Erlang C) waiting-time estimate below saturation; latency percentiles come from
 *    quantiles of the service-time distribution plus the wait. Cost grows with ticks and
 *    instances, not requests.
 *
 * Pure (no clock, no I/O) and deterministic (its own RNG from the seed). Times are int64
 * microseconds on the virtual clock. The model knows instances by the engine's id
 * strings; it keeps slots for live ones only, so memory follows the peak instance count.
 * Latency histograms count requests (DES) or thousandths of a request (fluid). */
#ifndef SCALER_SIM_MODEL_H
#define SCALER_SIM_MODEL_H

#include <stdint.h>

#include "common/hist.h"
#include "scaler/app.h"
#include "scaler/elbv2.h"
#include "scaler/sim/result.h"
#include "scaler/sim/scenario.h"

/* The ELB idle timeout a hung instance's requests wait before failing, and the time a
 * fast failure (503) takes. */
#define SIM_HANG_TIMEOUT_US 60000000LL
#define SIM_FAIL_FAST_US    1000LL
/* Latency histograms: microseconds up to one hour, 3 significant digits. */
#define SIM_HIST_HIGHEST_US 3600000000LL
#define SIM_HIST_DIGITS     3
/* Fluid-mode weight of one request in the histograms. */
#define SIM_FLUID_WEIGHT 1000

struct sim_model;

/* An Application Load Balancer's routing of a phase (the engine's plan, scaler/sim/run_alb.c):
 * share (0..1] of phase's requests go to route `route`. The routes after the classic load
 * balancers' (index >= sc->nlbs) are the target groups' (set with sim_model_set_routes) and
 * the load balancer's own answers (answer_status: fixed responses and redirects, ended at
 * once without an instance: failed when the status is 5xx, else completed, in neither case
 * in the latency histogram). A phase with splits is not routed by its target's name. */
struct sim_model_split {
    int phase;
    int route;
    double share;
};

struct sim_model_config {
    enum sim_mode mode;
    const struct sim_scenario *sc; /* borrowed; phases, load balancers, apps */
    int64_t start_us;              /* virtual epoch us of the run start */
    uint64_t seed;
    int64_t tick_us;                      /* fluid step; 0: 1 s */
    int nextra_routes;                    /* routes after the classic load balancers' */
    const int *answer_status;             /* per extra route: 0 a target group's, else the answer */
    const struct sim_model_split *splits; /* borrowed during sim_model_create */
    int nsplits;
};

/* Returns NULL on bad config. Aborts on OOM. */
struct sim_model *sim_model_create(const struct sim_model_config *cfg);
void sim_model_destroy(struct sim_model *m); /* NULL is a no-op */
enum sim_mode sim_model_mode(const struct sim_model *m);

/* --- instances --------------------------------------------------------------------- */

/* Starts an instance (EC2 pending): it boots for app->boot_s, then serves. id and zone
 * are copied; app borrowed (the scenario's). Returns its slot (>= 0). */
int sim_model_instance_start(struct sim_model *m, const char *id, int group,
                             const struct sc_app *app, const char *zone, int64_t now_us);
/* The same with its own boot time: a warm pool's warm start boots for 0 s
 * (docs/dataplane.md). app must be one of the scenario's, whose service the model caches. */
int sim_model_instance_start_boot(struct sim_model *m, const char *id, int group,
                                  const struct sc_app *app, const char *zone, int64_t now_us,
                                  double boot_s);
/* The slot of a live instance, or -1. */
int sim_model_instance_find(const struct sim_model *m, const char *id);
/* 1 when booted and serving (EC2 running), 0 while booting. */
int sim_model_instance_up(const struct sim_model *m, int slot);
/* The time the instance finishes booting (INT64_MAX when already up). */
int64_t sim_model_instance_boot_end_us(const struct sim_model *m, int slot);
/* Health-check outcome now: 0 while booting, dead or hung; for HTTP targets also 0 when
 * its queue is full (the check would time out); 1 otherwise (TCP connects while the
 * process lives). Whether the target's port is one the app listens on is the engine's. */
int sim_model_instance_health(const struct sim_model *m, int slot, int http);
/* Stops it (EC2 shutting-down -> terminated): requests it holds fail; the slot is freed. */
void sim_model_instance_stop(struct sim_model *m, int slot, int64_t now_us);
/* Faults. kill: the process dies (requests fail; the slot stays until stop). hang:
 * stops answering until until_us (0: for good). slow: service times x factor until
 * until_us (0: for good). */
void sim_model_instance_kill(struct sim_model *m, int slot, int64_t now_us);
void sim_model_instance_hang(struct sim_model *m, int slot, int64_t now_us, int64_t until_us);
void sim_model_instance_slow(struct sim_model *m, int slot, double factor, int64_t now_us,
                             int64_t until_us);
int sim_model_instance_dead(const struct sim_model *m, int slot);
int sim_model_instance_hung(const struct sim_model *m, int slot);
const char *sim_model_instance_id(const struct sim_model *m, int slot);
const char *sim_model_instance_zone(const struct sim_model *m, int slot);
int sim_model_instance_group(const struct sim_model *m, int slot);
/* Integrals since the instance started, up to the model's clock: busy worker-time in
 * worker-microseconds, and the time it was up (serving) in us; sc_app_cpu_pct() turns
 * them into CPUUtilization. */
void sim_model_instance_integrals(struct sim_model *m, int slot, double *busy_worker_us,
                                  double *up_us);
int sim_model_instance_workers(const struct sim_model *m, int slot);
/* Slots in use: 0 <= slot < sim_model_slot_count(); sim_model_slot_live() says which. */
int sim_model_slot_count(const struct sim_model *m);
int sim_model_slot_live(const struct sim_model *m, int slot);
/* The per-minute CPU passes read every slot at once: state is 0 when the slot holds no
 * live instance, else SIM_SLOT_LIVE, with SIM_SLOT_DEAD when the instance died; for a
 * live one, its workers, its profile and sim_model_instance_integrals() at the model's
 * clock. */
#define SIM_SLOT_LIVE 1
#define SIM_SLOT_DEAD 2
struct sim_slot_cpu {
    int state;
    int workers;
    const struct sc_app *app; /* the scenario's, borrowed */
    double busy_worker_us;
    double up_us;
};
/* Returns the slot count; *out gets one entry per slot, in the model's storage (valid
 * until the next call or the next change to the model). */
int sim_model_cpu_table(struct sim_model *m, const struct sim_slot_cpu **out);

/* --- routing --------------------------------------------------------------------------- */

/* Replaces load balancer lb's route set with these slots (copied). A load balancer whose
 * first listener is TCP or SSL routes round robin, else to the least outstanding. */
void sim_model_set_routes(struct sim_model *m, int lb, const int *slots, int n);
/* The same for an Application Load Balancer's target group, balanced by alg, its algorithm
 * (docs/elbv2.md 10.3; sc_elbv2_tg_balancing): DES picks round robin in turn, weighted
 * random by a draw (sc_elbv2_pick), least outstanding the fewest in flight; fluid mode splits
 * by capacity (least outstanding: shortest backlogs first). Its targets may be in slow start
 * (10.2): since_ms[i] is when slots[i] entered it, as libscaler's target record says
 * (sc_elbv2_target_health's slow_start_since_ms; -1: not), slow_start_ms the group's
 * duration. While some entry is within its slow start, each entry gets
 * sc_elbv2_slow_start_share of a full one's requests: DES picks by sc_elbv2_pick with the
 * shares as weights (round robin in turn by weight, weighted random a weighted draw), fluid
 * mode splits by capacity x share. since_ms NULL or slow_start_ms 0: no slow start. */
void sim_model_set_target_group_routes(struct sim_model *m, int lb, const int *slots,
                                       const int64_t *since_ms, int n, enum sc_elbv2_algorithm alg,
                                       int64_t slow_start_ms);
/* The same for a classic ELB with cross-zone load balancing off: one load-balancer node
 * per enabled zone, and the clients spread evenly over the nodes, so each zone that has
 * routable instances (zones[i] = 0..nzones-1 for slots[i]) takes an equal share of the
 * requests, split among that zone's instances as above (least outstanding or round
 * robin in DES; by capacity in fluid mode). A zone without routable instances gets no
 * share (DNS stops naming a node with no healthy instance). */
void sim_model_set_zone_routes(struct sim_model *m, int lb, const int *slots, const int *zones,
                               int n, int nzones);

/* --- time --------------------------------------------------------------------------- */

/* Runs the model up to until_us (events or ticks), leaving the clock there. */
void sim_model_advance(struct sim_model *m, int64_t until_us);
int64_t sim_model_now_us(const struct sim_model *m);
/* A number that changes whenever sim_model_instance_health() may answer differently for
 * some instance: instances started, stopped, booted, killed, hung or recovered; in fluid
 * mode a tick with a backlog somewhere; in DES mode any advance. */
uint64_t sim_model_health_version(const struct sim_model *m);
/* The next time a boot ends or a hang/slow fault ends (the engine must act then). */
int64_t sim_model_next_control_us(const struct sim_model *m);

/* --- what happened ------------------------------------------------------------------ */

/* Cumulative per load balancer since the start (requests ending in success or failure,
 * and the sum of successful latencies in us). Fluid mode counts fractions of requests. */
struct sim_lb_counters {
    double arrived;
    double completed;
    double failed;
    double latency_sum_us;
};
void sim_model_lb_counters(const struct sim_model *m, int lb, struct sim_lb_counters *out);
/* Latency of successful requests since the last call to sim_model_hist_reset (units:
 * us; counts as said at the top). Borrowed, valid until the model advances. */
const struct cm_hist *sim_model_hist(struct sim_model *m);
void sim_model_hist_reset(struct sim_model *m);

/* Fluid mode keeps its recordings since the last reset as a short list (a few values per
 * tick class) and adds them to the histogram only when sim_model_hist() is called, so a
 * caller that needs only percentiles avoids walking the histogram's slots. Sets *out to
 * the list (borrowed, valid until the model advances or resets) and returns its length;
 * -1 in DES mode or once the recordings went to the histogram (use sim_model_hist()). */
struct sim_latency_entry {
    int64_t value_us;
    uint64_t count; /* requests x SIM_FLUID_WEIGHT */
    int level;      /* the quantile level it stands for, 0..15 (values grow with it) */
};
int sim_model_latency_entries(struct sim_model *m, const struct sim_latency_entry **out);

/* The offered load the phases state at t (for the sample's `load` figure): sum over
 * active phases; *is_clients 1 when only closed-model phases are active. */
double sim_model_offered_load(const struct sim_model *m, int64_t t_us, int *is_clients);

/* Demand: the smallest number of instances of `app` that keeps its CPU at or below
 * target_pct under the phases aimed at load balancer lb, averaged over [t0, t1) (open
 * phases: their mean rate; closed phases: clients/(think + service), bursts counted by
 * their duty cycle at that instance count). share: the fraction of lb's load this group
 * takes (1 / groups behind lb). 0 when no load. */
int sim_model_demand(const struct sim_model *m, int lb, const struct sc_app *app, double target_pct,
                     double share, int64_t t0_us, int64_t t1_us);

/* Erlang C: the probability an arrival waits in an M/M/c queue with offered load a
 * (erlangs) and c servers; 1 when a >= c. */
double sim_erlang_c(double a, int c);

#endif
