/* loadgen/scenario.h: `loadgen scenario FILE`: a scalelab scenario played through the AWS
 * API. This step holds the plan: the scenario's infrastructure as the ordered list of
 * AWS Query calls that create it (names prefixed per run) and the calls that tear it
 * down; `--dry-run` prints them. Playing the load, faults, polling and expectations are
 * not in this build (see the usage text).
 *
 * Ownership: a plan owns its calls and their parameters. */
#ifndef LOADGEN_SCENARIO_H
#define LOADGEN_SCENARIO_H

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
};

struct scn_plan {
    struct scn_call *setup;
    int nsetup;
    struct scn_call *teardown;
    int nteardown;
};

/* Builds the setup and teardown calls of sc, every name prefixed with prefix + "-".
 * Alarm actions naming policies carry "{arn:POLICY}" placeholders, replaced by the
 * PolicyARN of the PutScalingPolicy reply when run (printed as is by --dry-run). */
void scn_plan_build(struct scn_plan *plan, const struct sim_scenario *sc, const char *prefix);
void scn_plan_cleanup(struct scn_plan *plan);
/* Prints one call as `SERVICE ACTION Name=Value ...` (the arguments of `loadgen aws`,
 * values shell-quoted when needed). */
void scn_call_print(FILE *f, const struct scn_call *c);

/* `loadgen scenario FILE [options]`; returns the process exit code. */
int scenario_main(int argc, char **argv);

#endif
