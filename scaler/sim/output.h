/* scaler/sim/output.h: the text outputs of a scenario run, shared by `scaler simulate`
 * (a predicted run) and `loadgen scenario` (an observed run) so both print and write the
 * same formats: the terminal table (a row per sample, `^` lines for events), the --json
 * document (header, timeline, summary, expectations, exit), the summary and expectation
 * lines, and the HTML report's expectation rows.
 *
 * A struct sim_out is a timeline sink (sim_out_on_sample / sim_out_on_event) writing
 * either the table or the JSON timeline to its FILE. The JSON document is written in
 * three parts: sim_out_json_head() before the first push, the timeline by the sink, then
 * sim_out_json_tail().
 *
 * Ownership: everything passed is borrowed for the call (the config and names for the
 * life of the sink). Single-threaded. */
#ifndef SCALER_SIM_OUTPUT_H
#define SCALER_SIM_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scaler/sim/elastic.h"
#include "scaler/sim/expect.h"
#include "scaler/sim/report.h"
#include "scaler/sim/result.h"
#include "scaler/sim/timeline.h"

/* One sink: the table (table = 1) or the JSON timeline (json = 1) on f. */
struct sim_out {
    FILE *f;
    int json;
    int table;
    int64_t start_ms; /* the timeline's start: times print as elapsed from it */
    const struct sim_timeline_config *tc;
    int rows;        /* table rows written (a header every 40) */
    int first_entry; /* JSON: no comma before the next entry */
};

/* Binds the sink to a timeline's config (start time, group and alarm names). */
void sim_out_bind(struct sim_out *o, const struct sim_timeline_config *tc);
/* The sink functions (ud = struct sim_out *). */
void sim_out_on_sample(const struct sim_sample *s, void *ud);
void sim_out_on_event(const struct sim_event *e, void *ud);

/* The table row of one sample, without the newline, into out (n bytes); the header line
 * likewise. Used by the sink; exposed for tests and live displays. */
void sim_out_format_row(const struct sim_timeline_config *tc, int64_t start_ms,
                        const struct sim_sample *s, char *out, size_t n);
void sim_out_format_header(const struct sim_timeline_config *tc, char *out, size_t n);

/* "HH:MM:SS" (or "Nd HH:MM") for ms since the start. */
void sim_out_elapsed(int64_t ms, char *out, size_t n);
/* JSON helpers: a quoted, escaped string (NULL as ""); a number with at most 4
 * decimals, trailing zeros trimmed, non-finite as null. */
void sim_out_json_str(FILE *f, const char *s);
void sim_out_json_num(FILE *f, double v);

/* The document's head up to and including `"timeline":[` (o must be bound). mode is the
 * "mode" field: "des", "fluid", "emulator", "aws". */
void sim_out_json_head(struct sim_out *o, const char *scenario, uint64_t seed, const char *mode);
/* The rest: the summary (requests, per group final capacity and the elasticity figures),
 * the expectations and the exit code. extra, when not NULL, is inserted as more members
 * of the top-level object before "exit" (text starting with a comma). */
void sim_out_json_tail(FILE *f, const struct sim_elastic_sink *elastic,
                       const struct sim_checker *checker, const struct sim_run_result *r,
                       const struct sim_timeline_config *tc, const char *extra, int exit_code);

/* The summary lines of `scaler simulate` (requests, latency, per group final capacity,
 * cost, elasticity). how is e.g. "des mode, seed 1" and what e.g. "simulated". */
void sim_out_print_summary(FILE *f, const char *scenario, const char *how, const char *what,
                           const struct sim_elastic_sink *elastic, const struct sim_run_result *r,
                           const struct sim_timeline_config *tc);
/* "expectations:" and a line per expectation (nothing when there are none). */
void sim_out_print_expectations(FILE *f, const struct sim_checker *ch);
/* One failed expectation's line, as stderr prints it (no newline): "PROG: FILE:
 * expectation PATH failed: WHAT; OBSERVED at HH:MM:SS". */
void sim_out_format_failure(const char *prog, const char *file, const struct sim_check_result *c,
                            char *out, size_t n);
/* Writes a JUnit XML report to path (through path.tmp and rename): one <testsuite> named
 * suite (the scenario's name), one <testcase> per expectation (named by its JSON path and
 * what it checks), a failed one carrying the stderr line above as its <failure>'s message
 * and text. time_s: the run's wall time. Returns 0, or -1 with errno set. */
int sim_out_write_junit(const char *path, const char *suite, const char *prog, const char *file,
                        const struct sim_checker *ch, double time_s);
/* One stderr-style line per failed expectation: "PROG: FILE: expectation PATH failed:
 * WHAT; OBSERVED at HH:MM:SS". */
void sim_out_print_failures(FILE *f, const char *prog, const char *file,
                            const struct sim_checker *ch);

/* The report's expectation rows from a checker: fills ex[i] (text, passed, detail) for
 * at most max expectations, detail pointing into details[i] (max strings of 256 bytes).
 * Returns the count filled. */
int sim_out_report_expects(const struct sim_checker *ch, struct sim_report_expect *ex,
                           char (*details)[256], int max);

#endif
