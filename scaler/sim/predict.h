/* scaler/sim/predict.h: the simulator behind one call, for a program that runs a scenario
 * elsewhere and compares (loadgen scenario, against the emulator or AWS): the scenario
 * simulated in auto mode (scaler simulate's default), reduced to one group's InService
 * capacity at each sample of the scenario's interval (a minute unless it says otherwise).
 * The engine (run.h, model.h, queue.h) stays behind this header.
 *
 * Ownership: the scenario is borrowed for the call; the prediction owns its arrays and
 * strings until sim_prediction_cleanup(). Single-threaded per call; prints nothing. */
#ifndef SCALER_SIM_PREDICT_H
#define SCALER_SIM_PREDICT_H

#include <stdint.h>

#include "scaler/sim/scenario.h"

struct sim_predict_options {
    uint64_t seed; /* the simulation's seed (scaler simulate's --seed) */
    int group;     /* whose capacity: an index into the scenario's groups */
};

struct sim_prediction {
    const char *mode;     /* "des" or "fluid": what auto chose (a static string) */
    int64_t *t_ms;        /* each sample's end (epoch ms on the scenario's clock) */
    double *capacity;     /* the group's InService instances at t_ms[i] */
    int n;                /* samples */
    int final_in_service; /* the group's at the end */
    /* What the simulator cannot model in this scenario, one line each (no program name,
     * no newline), for the caller to print: `scaler simulate` says `scaler: warning:
     * <line>`. Set whatever sim_predict() returns. */
    char **warnings;
    int nwarnings;
};

/* Simulates sc. Returns 0, or -1 when the simulation failed (err, SIM_ERR_MAX bytes: why,
 * as `scaler simulate` would say it). *out is set either way; free it with
 * sim_prediction_cleanup(). */
int sim_predict(const struct sim_scenario *sc, const struct sim_predict_options *opt,
                struct sim_prediction *out, char *err);

/* Frees what sim_predict() put in *p and leaves it empty. */
void sim_prediction_cleanup(struct sim_prediction *p);

#endif
