/* scaler/sim/expect.h: checks a scenario's expectations against the timeline, streaming.
 *
 * The checker is a timeline sink (sim_checker_on_sample) plus a latency hook the engine
 * calls with each sample's histogram before resetting it (sim_checker_on_hist). Each
 * expectation settles as soon as it can (a `throughout` bound fails at its first
 * violating sample; a `by` bound holds at its first satisfying sample) and the rest
 * settle at sim_checker_finish(). Memory: one record per expectation, plus for
 * direction_changes the change times inside its window, and for p99_ms one histogram.
 *
 * Times in a result are ms since the run start; observed values are text made here. */
#ifndef SCALER_SIM_EXPECT_H
#define SCALER_SIM_EXPECT_H

#include <stdint.h>

#include "common/hist.h"
#include "scaler/sim/scenario.h"
#include "scaler/sim/timeline.h"

struct sim_check_result {
    const struct sim_expect *e; /* borrowed from the scenario */
    char what[512];             /* "in_service of web within 2..10 by 1h" */
    int settled;
    int ok;
    int64_t when_ms;    /* since start: when it failed, or held */
    char observed[200]; /* "in_service was 1" */
    /* The observed figure as a number, what `observed` says (in_service or desired, the
     * failed %, the p99 in ms, the most direction changes in a window, the seconds a
     * scale-out took); NAN when there is none (a scale-out that never came, a bound that
     * held at every sample). The limits it is held to are e's min and max (scale_out:
     * within, in seconds): sim_check_limits(). */
    double value;
};

/* The limits of an expectation as numbers: *min and *max (NAN when not set); scale_out's
 * max is its `within` in seconds. */
void sim_check_limits(const struct sim_expect *e, double *min, double *max);

struct sim_checker;

/* sc borrowed (must outlive the checker); group order = scenario order = the samples'. */
struct sim_checker *sim_checker_create(const struct sim_scenario *sc, int64_t start_ms);
void sim_checker_destroy(struct sim_checker *ch);

void sim_checker_on_sample(const struct sim_sample *s, void *ud);
/* The latency histogram of the sample ending at t_ms (call before on_sample's push). */
void sim_checker_on_hist(struct sim_checker *ch, int64_t t_ms, const struct cm_hist *h);
/* Settles what is left at the end of the run (end_ms epoch). */
void sim_checker_finish(struct sim_checker *ch, int64_t end_ms);

int sim_checker_count(const struct sim_checker *ch);
const struct sim_check_result *sim_checker_result(const struct sim_checker *ch, int i);
/* Number of expectations that failed (after finish). */
int sim_checker_failed(const struct sim_checker *ch);

#endif
