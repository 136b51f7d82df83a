/* scaler/sim/run.h: one simulation run: a scaler world (libscaler) driven in virtual time
 * by the modelled data plane (scaler/sim/model.h), producing a timeline.
 *
 * The run builds the scenario's infrastructure with the library's AWS operations, one
 * call per AWS API call (CreateLoadBalancer, ConfigureHealthCheck,
 * ModifyLoadBalancerAttributes, CreateLaunchConfiguration, CreateAutoScalingGroup,
 * PutScalingPolicy, PutMetricAlarm), so the same file maps onto AWS one to one. Then it
 * loops: advance the model to the next thing due (world step, boot end, health check,
 * metric minute, fault, sample), report what happened to the world (instance running,
 * health results, metrics), step the world, make the model match the EC2 records
 * (level-triggered, scaler/world.h), and emit a sample at each sample interval.
 *
 * Metrics: only those an alarm reads are put: AWS/EC2 CPUUtilization per group (one
 * statistic set per group per minute over the instances past warm-up, as the world's
 * group figure) or per instance or overall; per load balancer the AWS/ELB metrics the
 * model has figures for (SIM_ELB_METRICS: requests, latency, ELB 5XX, host counts), put by
 * libscaler's sc_elb_report_minute as the emulator's are.
 *
 * Health checks: every Interval each registered running instance is checked in the
 * model; a result is reported unless it is a pass for an instance already InService
 * whose previous result was a pass (a no-op for the library), which keeps long runs fast. */
#ifndef SCALER_SIM_RUN_H
#define SCALER_SIM_RUN_H

#include <stdint.h>

#include "scaler/sim/model.h"
#include "scaler/sim/result.h"
#include "scaler/sim/scenario.h"
#include "scaler/sim/timeline.h"

#define SIM_MODE_AUTO (-1)
/* auto picks DES when the run's estimated requests stay under this */
#define SIM_AUTO_DES_MAX_REQUESTS 2000000.0
/* ... and, for a scenario that judges a latency tail (fluid's p99 is outside its measured
 * validity: docs/scenarios.md, "Modes"), up to this (about 20 s of DES) */
#define SIM_AUTO_DES_TAIL_MAX_REQUESTS 50000000.0

struct sim_checker;

struct sim_run_config {
    const struct sim_scenario *sc; /* borrowed */
    int mode;                      /* SIM_MODE_DES, SIM_MODE_FLUID or SIM_MODE_AUTO */
    uint64_t seed;
    int64_t sample_ms; /* 0: the scenario's */
    int64_t tick_us;   /* fluid tick; 0: 1 s */
    /* Called once the timeline exists (after the infrastructure, so target-tracking
     * alarms are known), before the first sample: attach sinks here. */
    void (*on_timeline)(struct sim_timeline *tl, void *ud);
    void *ud;
    struct sim_checker *checker; /* optional: gets each sample's latency histogram */
    /* 1: each policy decision and lifecycle-hook note (docs/decisions.md) is a timeline
     * event (SIM_EVENT_DECISION, SIM_EVENT_HOOK), read through scaler/observe.h */
    int explain;
};

/* Picks the mode `auto` would: fluid only inside its measured validity (the matrix of
 * docs/scenarios.md) and where DES would be slow: DES up to SIM_AUTO_DES_MAX_REQUESTS
 * estimated requests, and up to SIM_AUTO_DES_TAIL_MAX_REQUESTS for a scenario that judges
 * a latency tail (sim_run_tail_reason()); fluid beyond. */
enum sim_mode sim_run_auto_mode(const struct sim_scenario *sc, double *est_requests);

/* Why fluid mode is outside its measured validity for this scenario, or NULL: the JSON
 * path of the first p99_ms expectation or percentile (extended_statistic) alarm (the
 * fluid p99 runs up to 2.5 x DES's near saturation, so such a verdict can flip). A fluid
 * run of such a scenario carries a warning naming it. Borrowed from sc. */
const char *sim_run_tail_reason(const struct sim_scenario *sc);

/* Runs to the end. Returns 0; 2 when the library rejected the infrastructure (err:
 * "$.infrastructure.groups[0]: ValidationError: <AWS message>"); 1 on a runtime failure
 * (err says what). *tl_out (optional) receives the timeline (caller destroys it). Prints
 * nothing: *res (scaler/sim/result.h) holds the warnings whatever it returns, so the
 * caller frees it with sim_run_result_cleanup() after every call. */
int sim_run(const struct sim_run_config *cfg, struct sim_run_result *res,
            struct sim_timeline **tl_out, char *err);

#endif
