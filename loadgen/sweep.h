/* loadgen/sweep.h: `loadgen sweep`, autobench's rate sweep without httperf or gnuplot.
 *
 * For each demanded rate from --low-rate to --high-rate by --rate-step (connections per
 * second, as autobench's), opens --num-conns connections at that rate, each sending
 * --num-calls requests in turn (keep-alive), with --timeout per request; writes one TSV
 * line per rate with autobench's columns (dem_req_rate req_rate con_rate min_rep_rate
 * avg_rep_rate max_rep_rate stddev_rep_rate resp_time net_io errors) and, with --svg,
 * draws bench2graph's plot of the same columns. */
#ifndef LOADGEN_SWEEP_H
#define LOADGEN_SWEEP_H

/* argv[0] is "sweep". Returns the process exit status. */
int sweep_main(int argc, char **argv);

#endif
