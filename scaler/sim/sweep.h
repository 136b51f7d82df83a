/* scaler/sim/sweep.h: the outputs of `scaler simulate --sweep P=FROM:TO:STEP`: one row per
 * value and group, as a table with plain column names and a legend, as CSV, as JSON, and
 * as an SVG plot (common/svg). main.c runs the scenario once per value and fills the rows.
 *
 * Deterministic: the same rows give the same bytes. Plain data; the writers allocate only
 * inside the SVG writer. */
#ifndef SCALER_SIM_SWEEP_H
#define SCALER_SIM_SWEEP_H

#include <stdio.h>

/* One run's figures for one group. */
struct sim_sweep_row {
    double value;      /* the parameter's value for this run */
    const char *group; /* borrowed: lives as long as the rows */
    double instance_hours;
    double theta_u_pct, theta_o_pct, tau_u_pct, tau_o_pct, instability_pct;
    double failed_pct; /* of every request of the run (all groups) */
    double p99_ms;
    int expect_failed; /* some expectation of the run failed */
};

struct sim_sweep {
    const char *param; /* "alarms.high-cpu.threshold" */
    const char *scenario;
    int defaulted; /* the key was absent from the file: its default was swept over */
    struct sim_sweep_row *rows;
    int nrows;
};

/* The column names, in order, and what each means (the table's legend, the CSV header and
 * the JSON keys; "value" is the parameter). NULL-terminated. */
extern const char *const sim_sweep_columns[];
extern const char *const sim_sweep_legend[];

/* The table: a header of plain names, a row per value and group, then the legend. */
void sim_sweep_print_table(FILE *f, const struct sim_sweep *s);
/* CSV: the header (the parameter's column named "value"), one line per row. */
void sim_sweep_print_csv(FILE *f, const struct sim_sweep *s);
/* One JSON object: {"param", "scenario", "defaulted", "columns" {name: meaning}, "rows"
 * [{...}]}, then a newline. */
void sim_sweep_print_json(FILE *f, const struct sim_sweep *s);
/* A standalone SVG: the elasticity figures and failed % (left axis, %) and instance-hours
 * (right axis) over the parameter, one line per group and figure. Returns 0, or -1 with
 * errno set when the file cannot be written. */
int sim_sweep_write_svg(const char *path, const struct sim_sweep *s);

#endif
