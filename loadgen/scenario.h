/* loadgen/scenario.h: `loadgen scenario FILE`: a scalelab scenario played through the AWS
 * API. This step holds the plan: the scenario's infrastructure as the ordered list of
 * AWS Query calls that create it (names prefixed per run) and the calls that tear it
 * down; `--dry-run` prints them. Playing the load, faults, polling and expectations are
 * not in this build (see the usage text).
 *
 * Ownership: a plan owns its calls and their parameters. */
#ifndef LOADGEN_SCENARIO_H
#define LOADGEN_SCENARIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "loadgen/awsapi.h"
#include "scaler/sim/scenario.h"

struct scn_call {
    enum aws_service svc;
    char *action;
    struct aws_params params;
    /* PutScalingPolicy: the scenario's policy name, whose PolicyARN later alarm actions
     * name; "" otherwise */
    char *policy;
    int64_t at_ms; /* a timed call: its scenario time (0 for setup and teardown calls) */
    /* an ELBv2 create call: the key its reply's ARN (element ref_elem, e.g.
     * "TargetGroupArn") is kept under for later calls' placeholders ("tg:NAME", "alb:NAME",
     * "listener:ALB:PORT", "rule:ALB:PORT:PRIORITY"); "" otherwise */
    char *ref;
    const char *ref_elem;
    /* a LaunchInstances of launch_instances: its group's index and launch + 1 (0 otherwise),
     * so the reply is shown as the simulator shows it */
    int launch_gi, launch;
};

struct scn_plan {
    struct scn_call *setup;
    int nsetup;
    /* calls made during the run at their scenario times, in time order (an instance
     * refresh: UpdateAutoScalingGroup to its launch configuration, StartInstanceRefresh;
     * launch_instances: LaunchInstances) */
    struct scn_call *timed;
    int ntimed;
    struct scn_call *teardown;
    int nteardown;
};

/* How the instances' service times pass (docs/dataplane.md, Time). */
enum scn_service_mode {
    SCN_SERVICE_AUTO = 0, /* emulated when the time scale is above 1 and a phase is closed */
    SCN_SERVICE_EMULATED, /* --service-time emulated */
    SCN_SERVICE_REAL,     /* --service-time real */
};
struct scn_service {
    int scaled;    /* the profiles get "time_scaled": true and "batch": weight */
    double weight; /* requests of the scenario one real request stands for (1 unscaled) */
};
/* Real ms a compressed request's service should take at least (the instance's timers have
 * ms steps and a loaded host wakes them late): the automatic weight is the least that
 * gives every launch configuration's mean service time this long. */
#define SCN_MIN_REAL_SERVICE_MS 5.0
/* A closed burst keeps at least this many rounds of one instance's workers (its requests
 * after the weight), so that its last, partly busy round stays a small share of it. */
#define SCN_MIN_BURST_ROUNDS 16
/* Chooses for sc at time scale `scale`: mode, and batch (> 0: that weight; 0: automatic,
 * max(1, SCN_MIN_REAL_SERVICE_MS x scale / the least mean service time), at most
 * requests / (SCN_MIN_BURST_ROUNDS x workers) for every closed burst). */
void scn_service_choose(const struct sim_scenario *sc, double scale, enum scn_service_mode mode,
                        double batch, struct scn_service *out);

/* Health checks real service times cannot meet: with real service times (svc unscaled) at
 * time scale `scale` above 1, an HTTP(S) check of a classic load balancer or a target group
 * on a path the app queues (not /health nor a launch configuration's health_path) waits for
 * a request's real service time, while its timeout is the control plane's, timeout / scale
 * real ms. Writes a warning to f (NULL: none) for each such check whose scaled timeout is
 * under SCN_PROBE_SERVICE_FACTOR x the slowest mean service time; returns how many. */
#define SCN_PROBE_SERVICE_FACTOR 3.0
int scn_probe_warnings(const struct sim_scenario *sc, double scale, const struct scn_service *svc,
                       FILE *f);

/* Builds the setup, timed and teardown calls of sc, every name prefixed with prefix + "-".
 * Alarm actions naming policies carry "{arn:POLICY}" placeholders, replaced by the
 * PolicyARN of the PutScalingPolicy reply when run; scheduled actions' times carry
 * "{at:MS}", the emulated time MS ms after the scenario's start as ISO 8601 (both printed
 * as is by --dry-run). ELBv2 calls carry "{tg:NAME}", "{alb:NAME}", "{listener:ALB:PORT}",
 * "{rule:ALB:PORT:PRIORITY}" (the ARNs the create calls return), "{subnet:ZONE}" (the
 * zone's default subnet), "{vpc:default}", "{lbdim:ALB}" (app/NAME/ID) and "{tgdim:TG}"
 * (targetgroup/NAME/ID), printed as is by --dry-run (scn_ref_substitute() when run). A
 * recurrence becomes its runs within the scenario (docs/loadgen.md,
 * Auto Scaling). svc (NULL: real-time service) sets the profiles' time_scaled and batch in
 * the UserData. Returns 0, or -1 with err (n bytes) naming the problem. */
int scn_plan_build(struct scn_plan *plan, const struct sim_scenario *sc, const char *prefix,
                   const struct scn_service *svc, char *err, size_t n);
void scn_plan_cleanup(struct scn_plan *plan);
/* Prints one call as `SERVICE ACTION Name=Value ...` (the arguments of `loadgen aws`,
 * values shell-quoted when needed). */
void scn_call_print(FILE *f, const struct scn_call *c);

/* `loadgen scenario FILE [options]`; returns the process exit code. */
int scenario_main(int argc, char **argv);

#endif
