/* loadgen/scn_run.h: one scenario played for real (`loadgen scenario FILE`): against an
 * emulator of its own, an endpoint, or AWS. Builds the infrastructure through the API
 * (the plan of loadgen/scenario.h), plays the load (loadgen/player.h) and the faults,
 * polls the group, alarms, instance health and activities once per sample period into a
 * timeline (scaler/sim/timeline.h) with the same sinks as `scaler simulate` (terminal
 * lines, --json, the expectation checker, elasticity), tears everything down, runs the
 * same scenario in the simulator for the prediction and writes the report with both.
 *
 * Time: the scenario's clock starts at the emulator's clock when the run starts (an
 * emulated minute boundary on an emulator), mapped to the scenario's start_ms, so the
 * observed and the predicted timelines share one axis.
 *
 * Single controlling thread; the player's load threads are its own. SIGINT and SIGTERM
 * stop the run and tear down (the handlers are installed here). */
#ifndef LOADGEN_SCN_RUN_H
#define LOADGEN_SCN_RUN_H

#include "scaler/sim/scenario.h"

struct scn_opts {
    const char *file;
    const char *endpoint; /* NULL: start an emulator */
    int aws;              /* real AWS from the environment / profile */
    double time_scale;    /* 0: default (own emulator 60, endpoint its clock, AWS 1) */
    const char *report;   /* --report FILE.html */
    const char *json;     /* --json FILE */
    const char *junit;    /* --junit FILE.xml */
    int keep;             /* leave the infrastructure (and the emulator) */
    const char *prefix;   /* name prefix; NULL: sl-<pid>-<time> */
    int quiet;            /* no live lines */
    int service_mode;     /* enum scn_service_mode (loadgen/scenario.h) */
    double batch;         /* --batch; 0: automatic */
    int explain;          /* --explain: the emulator's policy decisions on the timeline */
};

/* Runs the scenario; returns the exit status: 0 every expectation holds, 3 one failed,
 * 2 the scenario cannot run this way (usage), 1 a runtime failure (endpoint unreachable,
 * emulator would not start, a setup call refused, interrupted). */
int scn_run(const struct scn_opts *o, const struct sim_scenario *sc);

#endif
