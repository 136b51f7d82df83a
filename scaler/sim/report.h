/* scaler/sim/report.h: the self-contained HTML report of a scenario run.
 *
 * One page, no external resources and no JavaScript: inline CSS and inline SVG plots
 * (common/svg.h). For each group: capacity (desired, InService, pending, demand, and an
 * optional second capacity series such as "predicted") against the offered load, with
 * activity and fault markers whose tooltips carry AWS's cause text; CPU against the
 * alarms' thresholds with each alarm's ALARM spans as bands. Then latency p50/p99 with
 * the error rate; a table of the elasticity figures and cost (docs/elasticity.md); the
 * predicted-vs-observed difference figure when a second series is given; the scenario's
 * expectations with pass/fail; and the kept events.
 *
 * Used by `scaler simulate --report` and by `loadgen scenario --report` (which passes
 * the simulator's capacity as the second series). The plots are drawn from the
 * timeline's bounded, downsampled copy (each point is a bucket's mean), so the page's
 * size does not grow with the run's length; the elasticity figures come from the
 * full-resolution sink when one is given.
 *
 * Deterministic: the same input gives the same bytes (no wall clock in the page).
 * Ownership: everything in the input is borrowed for the duration of the call. */
#ifndef SCALER_SIM_REPORT_H
#define SCALER_SIM_REPORT_H

#include <stdint.h>

#include "common/buf.h"
#include "scaler/sim/elastic.h"
#include "scaler/sim/result.h"
#include "scaler/sim/timeline.h"
#include "scaler/stall.h"

/* One expectation of the scenario and its verdict. */
struct sim_report_expect {
    const char *text;   /* the expectation as a person reads it, e.g. "by 1h: InService >= 2" */
    int passed;         /* 1 held, 0 failed */
    const char *detail; /* when it failed and what was observed; may be NULL */
};

/* A second capacity series to draw beside the timeline's (predicted vs observed), sampled
 * as the timeline is: t_ms ascending, each a sample's time (the end of the interval it
 * covers, epoch ms on the timeline's clock), so the page steps each value over the
 * interval before it exactly as it steps the timeline's samples.
 *
 * The figure (the % of time the two differ by more than `tolerance`) is the caller's when
 * `diff` is set: the very value its terminal line and --json print, shown as is. Without
 * it the page computes it with sim_elastic_diff(observed, predicted) over the timeline's
 * samples (each at its time), the computation `loadgen scenario` makes. */
struct sim_report_capacity {
    const char *label; /* legend text, e.g. "predicted (scaler simulate)" */
    const int64_t *t_ms;
    const double *capacity;
    int n;
    int group;        /* index of the timeline group it is compared with */
    double tolerance; /* instances; the figure is the % of time |a - b| exceeds it (0: 1) */
    double bar_pct;   /* when > 0, the figure passes if at most this % (issue bar: 10) */
    /* the figure as the caller computed and printed it (a = observed, b = this series);
     * borrowed; NULL: computed as said above */
    const struct sim_elastic_diff *diff;
};

struct sim_report_input {
    const struct sim_timeline *tl; /* required */
    const char *title;             /* page title; NULL: "scalelab report: <scenario name>" */
    const char *scenario_name;     /* NULL: the timeline config's */
    const char *scenario_path;     /* shown when given */
    uint64_t seed;
    int has_seed;
    const char *mode;           /* e.g. "scaler simulate (fluid model)"; may be NULL */
    const char *observed_label; /* the timeline's capacity; NULL: "InService" */
    /* Elasticity per group at full resolution (the sink attached to the timeline); NULL
     * computes it from the kept buckets' means and says so on the page. */
    const struct sim_elastic_sink *elastic;
    int64_t end_ms; /* the run's end; 0: the last kept bucket's end */
    const struct sim_report_expect *expects;
    int nexpects;
    const struct sim_report_capacity *compare; /* NULL: none */
    /* The run's totals, as the terminal and --json print them (the summary's requests
     * row, sim_run_result_format_requests); NULL: no such row. Borrowed. */
    const struct sim_run_result *result;
    /* Host stalls a time-scaled run measured (scaler/stall.h): the summary's "host" row is
     * sc_stalls_line(), the terminal's line, and each window is a band on the capacity
     * and CPU charts. NULL: no such row. Borrowed. */
    const struct sc_stalls *stalls;
    const char *generated_by; /* footer text, e.g. "scaler simulate 0.1"; may be NULL */
};

/* The figures the page shows for a comparison: compare->diff when set, else computed as
 * said at struct sim_report_capacity (final_a observed, final_b predicted). */
int sim_report_compare(const struct sim_report_input *in, struct sim_elastic_diff *out);

/* Appends the page to out. Returns 0, or -1 when in is unusable (no timeline) or the
 * buffer's cap is hit. */
int sim_report_render(const struct sim_report_input *in, struct cm_buf *out);

/* Renders and writes the page to path (through path.tmp and rename, so a reader never
 * sees half a page). Returns 0, or -1 with errno set. */
int sim_report_write(const char *path, const struct sim_report_input *in);

#endif
