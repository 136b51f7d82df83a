/* loadgen/report.h: what a run prints.
 *
 * ab's report (report_ab), laid out line for line as ApacheBench 2.3 prints it, with
 * the same figures computed the same way from per-request records (means in whole µs,
 * medians of the two middle values, sample standard deviation, percentiles by index);
 * ab's -e CSV and -g TSV files; and wrk's report (report_wrk), with the uncorrected
 * latency beside the corrected one under --rate. All write to the FILE given. */
#ifndef LOADGEN_REPORT_H
#define LOADGEN_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "loadgen/conn.h"
#include "loadgen/stats.h"

struct report_ab_info {
    const char *host; /* as in the URL */
    unsigned port;
    const char *path;
    int tls;
    int concurrency;
    int keepalive;   /* -k: print "Keep-Alive requests" */
    int send_body;   /* -p/-u: print body-sent lines */
    int nolength;    /* -l: "Document Length: Variable" */
    int percentiles; /* not -d */
    int confidence;  /* not -S */
    const char *sni; /* https: the server name sent (ab's "TLS Server Name"), or NULL */
};

/* The three banner lines and the blank line that ab prints first. */
void report_ab_banner(FILE *out);
/* The results block (starts with the two blank lines ab prints). Sorts res->st.rec. */
void report_ab(FILE *out, const struct report_ab_info *info, struct conn_result *res);
/* ab -e: "Percentage served,Time in ms" then 0..100. Records must be sorted by total
 * time (report_ab sorts them). Returns 0 or -1 (errno). */
int report_ab_csv(const char *path, const struct stats *st);
/* ab -g: one TSV line per request, in the order report_ab left them (by total time, as
 * ab writes them). wall_t0_us: the run's start on the wall clock. Returns 0 or -1. */
int report_ab_gnuplot(const char *path, const struct stats *st, int64_t wall_t0_us);

struct report_wrk_info {
    const char *url;
    int threads;
    int connections;
    int latency;           /* --latency: the distribution table */
    const char *rate_desc; /* NULL, or the --rate text for the header */
};

/* wrk's report; under the open model both the corrected and the uncorrected figures. */
void report_wrk(FILE *out, const struct report_wrk_info *info, const struct stats *st);

/* wrk's number formats, for tests: "1.23ms", "12.30k", "1.50MB" (binary). */
void report_fmt_time_us(double us, char *out, size_t n);
void report_fmt_metric(double v, char *out, size_t n);
void report_fmt_binary(double v, char *out, size_t n);

#endif
