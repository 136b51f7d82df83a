/* scaler/sim/result.h: the totals of one scenario run, simulated (sim_run, scaler/sim/run.h)
 * or observed (loadgen scenario), as scaler/sim/output.h prints them, and the simulator's
 * two modes by name. Plain data: the program that runs the scenario fills it. */
#ifndef SCALER_SIM_RESULT_H
#define SCALER_SIM_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/sim/timeline.h"

enum sim_mode {
    SIM_MODE_DES = 0,
    SIM_MODE_FLUID = 1,
};

/* "des", "fluid". */
const char *sim_mode_str(enum sim_mode m);

struct sim_run_result {
    enum sim_mode mode;
    int64_t start_ms, end_ms;
    double arrived, completed, failed; /* requests (fluid: may be fractional) */
    double p50_ms, p99_ms;             /* over the whole run */
    int ngroups;
    int final_desired[SIM_TIMELINE_MAX_GROUPS];
    int final_in_service[SIM_TIMELINE_MAX_GROUPS];
    double instance_hours[SIM_TIMELINE_MAX_GROUPS]; /* billed: pending + InService + Terminating +
                                                       running warm */
    /* What setup found the run cannot model (an alarm on a metric the simulator does not
     * produce, a health check on a port no listener serves), one line each without the
     * program's name or a newline, for the caller to print (`scaler: warning: <line>`).
     * sim_run fills them before it calls its config's on_timeline; owned by the result. */
    char **warnings;
    int nwarnings;
};

/* The run's request figures as one line, the text every output shows (the terminal's
 * "requests: " line, the report's summary row): "N completed, M failed (F%), latency p50
 * A ms, p99 B ms", F = failed / (completed + failed). Returns what snprintf does. */
int sim_run_result_format_requests(const struct sim_run_result *r, char *out, size_t n);
/* The failed share in % of the requests that ended (0 when none did): the one value the
 * terminal, --json ("failed_pct") and the report print. */
double sim_run_result_failed_pct(const struct sim_run_result *r);

/* Elapsed run time as every output writes it, seconds never dropped: "05:33:00" under a
 * day, "1d05:33:00" from a day on (ms since the run start, >= 0). */
void sim_elapsed_format(int64_t ms, char *out, size_t n);

/* Frees what a run allocated in *res (its warnings) and leaves none. */
void sim_run_result_cleanup(struct sim_run_result *res);

#endif
