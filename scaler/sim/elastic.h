/* scaler/sim/elastic.h: the SPEC Research Group elasticity metrics, computed streaming.
 *
 * From a stream of (time, demand, supply) samples, in instances, this computes the
 * under- and over-provisioning accuracy theta_U / theta_O (% of demand), timeshare
 * tau_U / tau_O (% of time), instability upsilon (% of time) and jitter (adaptations per
 * hour), after Herbst, Kounev, Reussner, "Elasticity in Cloud Computing: What It Is, and
 * What It Is Not" (ICAC 2013) and Herbst et al., "Quantifying Cloud Performance and
 * Dependability: Taxonomy, Metric Design, and Emerging Challenges" (ACM TOMPECS 2018),
 * the metrics the BUNGEE benchmark reports; plus cost in instance-hours. The formulas,
 * and the choices made where the papers leave room, are in docs/elasticity.md.
 *
 * Samples are piecewise constant: a sample added at t holds until the next sample's t
 * (the last one until the end passed to sim_elastic_result()). Times must not decrease;
 * a sample at the same time as the previous one replaces it. Equidistant samples give the
 * papers' discrete formulas exactly; irregular ones weigh each sample by its duration.
 *
 * Plain data, no allocation, O(1) per sample: a struct sim_elastic can live in any
 * storage (init it first). Deterministic. */
#ifndef SCALER_SIM_ELASTIC_H
#define SCALER_SIM_ELASTIC_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/sim/scenario.h"
#include "scaler/sim/timeline.h"

/* The accumulator. Fields are private; read results with sim_elastic_result(). */
struct sim_elastic {
    int nsamples;
    int64_t t0_ms;         /* the first sample's time */
    int64_t last_ms;       /* the open (last) sample's time */
    double d, s, b;        /* the open sample: demand, supply, billed */
    double w;              /* ... of billed, the warm pool's instances */
    double prev_d, prev_s; /* the closed sample before it, when have_prev */
    int have_prev;
    /* Integrals over the closed samples, weighted by their durations in ms. */
    double under_ms;       /* max(d - s, 0) / max(d, 1) */
    double over_ms;        /* max(s - d, 0) / max(d, 1) */
    double under_time_ms;  /* d > s */
    double over_time_ms;   /* s > d */
    double mismatch_ms;    /* sgn(change of s) != sgn(change of d), after the first sample */
    double after_first_ms; /* time after the first sample's interval */
    double demand_ms, supply_ms, billed_ms, warm_ms;
    int supply_changes, demand_changes;
};

/* The figures for [first sample, end]. */
struct sim_elastic_result {
    double duration_s;      /* T */
    double theta_u_pct;     /* under-provisioning accuracy, % of demand, averaged over T */
    double theta_o_pct;     /* over-provisioning accuracy, % of demand, averaged over T */
    double tau_u_pct;       /* under-provisioning timeshare, % of T */
    double tau_o_pct;       /* over-provisioning timeshare, % of T */
    double instability_pct; /* upsilon, % of the time after the first sample */
    double jitter_per_h;    /* (supply adaptations - demand changes) per hour */
    int supply_changes;     /* E_S */
    int demand_changes;     /* E_D */
    double mean_demand;     /* time-weighted means, instances */
    double mean_supply;
    double supply_instance_hours; /* integral of supply */
    double cost_instance_hours;   /* integral of billed instances (what EC2 charges for) */
    double warm_instance_hours;   /* ... of them the warm pool's (running in the pool) */
};

void sim_elastic_init(struct sim_elastic *e);

/* Adds a sample: at t_ms, demand and supply (instances, >= 0) and billed, the instances
 * being paid for (running in any state: pending, InService, terminating); pass supply
 * when the caller knows no better. Negative or non-finite values count as 0. A t_ms
 * before the previous sample is ignored (returns -1); otherwise returns 0. */
int sim_elastic_add(struct sim_elastic *e, int64_t t_ms, double demand, double supply,
                    double billed);

/* Of the last added sample's billed instances, warm are the warm pool's (call after
 * sim_elastic_add for the same sample; 0 when not called). */
void sim_elastic_set_warm(struct sim_elastic *e, double warm);

/* Computes the figures as if the last sample held until end_ms (end_ms before the last
 * sample counts as the last sample's time). With no sample, or zero duration, every
 * figure is 0. Does not change the accumulator, so it can be read mid-run. */
void sim_elastic_result(const struct sim_elastic *e, int64_t end_ms,
                        struct sim_elastic_result *out);

/* A timeline sink computing the figures of each group from every sample, at full
 * resolution: demand = the group's demand, supply = in_service, billed = in_service +
 * pending + terminating + warm_billed (the warm pool's running instances). A sample covers (t_ms -
 * interval_ms, t_ms], so it is added at t_ms - interval_ms. Attach with sim_timeline_add_sink(tl,
 * sim_elastic_sink_on_sample, NULL, &sink); after sim_elastic_sink_init(&sink, ngroups); read each
 * group's figures with sim_elastic_result(&sink.groups[g], end_ms, &r). */
struct sim_elastic_sink {
    int ngroups;
    struct sim_elastic groups[SIM_TIMELINE_MAX_GROUPS];
};

void sim_elastic_sink_init(struct sim_elastic_sink *sink, int ngroups);
void sim_elastic_sink_on_sample(const struct sim_sample *s, void *ud);

/* The demand basis of a group: what its demand in instances is counted against, and where
 * that comes from. In order: the scenario's demand_target_pct when the file sets it (CPU);
 * else the group's first target-tracking policy on ASGAverageCPUUtilization (CPU at its
 * target) or on ALBRequestCountPerTarget whose resource_label names a target group of the
 * scenario (requests at its target: the policy holds each target there, so that is what
 * it demands); else CPU at 70 %. Target tracking on other metrics (network, metric math)
 * gives no basis (nothing in either world counts their demand in instances) and is
 * passed over. Every output prints it beside the figures (docs/elasticity.md). */
enum sim_demand_kind {
    SIM_DEMAND_CPU = 0,  /* the fewest instances keeping the group's CPU <= cpu_pct */
    SIM_DEMAND_REQUESTS, /* ALBRequestCountPerTarget: sim_elastic_request_demand() */
};

struct sim_demand_basis {
    enum sim_demand_kind kind;
    double cpu_pct;                  /* SIM_DEMAND_CPU */
    double requests_per_target;      /* SIM_DEMAND_REQUESTS: per target per minute (> 0) */
    int tg;                          /* SIM_DEMAND_REQUESTS: the scenario's target group index */
    int alb;                         /* SIM_DEMAND_REQUESTS: the resource_label's ALB index */
    int groups_sharing;              /* SIM_DEMAND_REQUESTS: the scenario's groups in that target
                                        group (>= 1); they split its requests evenly */
    char target_group[SIM_PATH_MAX]; /* SIM_DEMAND_REQUESTS: its name */
    char source[SIM_PATH_MAX + 64];  /* "target-tracking policy \"cpu50\"", "demand_target_pct",
                                        "default" */
};

void sim_elastic_demand_basis(const struct sim_scenario *sc, int g, struct sim_demand_basis *out);

/* The basis as the outputs print it: "instances to keep CPU at or below 50 % (target-tracking
 * policy \"cpu50\")", "ALBRequestCountPerTarget 600 requests/target/min on target group
 * api-tg (target-tracking policy \"rcpt600\")". */
void sim_elastic_basis_format(const struct sim_demand_basis *b, char *buf, size_t cap);

/* The ALBRequestCountPerTarget demand rule, one place for both worlds: the instances a
 * group needs for an interval of interval_ms in which the load balancer routed `requests`
 * to its target group (that target group's RequestCount, AWS/ApplicationELB, summed over
 * the interval) is ceil(requests / groups_sharing / (requests_per_target x minutes)): the
 * policy's metric is RequestCount / targets per minute, so T requests per target per
 * minute wants RequestCount / T targets. 0 when no request came (or the basis is not a
 * request basis, or interval_ms <= 0). */
int sim_elastic_request_demand(const struct sim_demand_basis *b, double requests,
                               int64_t interval_ms);

/* How far apart two capacity timelines are (predicted vs observed): both are step
 * functions given as n points (t_ms ascending, value), each value holding until the next
 * point and the last until end_ms. Over the common span [max of the first times, end_ms]:
 * the % of time where |a - b| > tolerance, the % of time where they differ at all
 * (|a - b| >= 0.5), the largest |a - b|, and the values at the end. */
struct sim_elastic_diff {
    double duration_s;
    double over_tolerance_pct;
    double differ_pct;
    double max_abs;
    double final_a, final_b;
};

/* Returns 0, or -1 when either series is empty or the span is empty (out zeroed). */
int sim_elastic_diff(const int64_t *ta, const double *va, int na, const int64_t *tb,
                     const double *vb, int nb, int64_t end_ms, double tolerance,
                     struct sim_elastic_diff *out);

#endif
