/* loadgen/stats.h: what a run measured, per thread while it runs and merged after join;
 * the compact JSON result (--json) and its exact merge (loadgen merge).
 *
 * Latencies are in microseconds in histograms from common/hist.h (3 significant digits,
 * 1 µs to 1 h), so merging results from threads, processes or machines is exact. Under
 * the open model (--rate) `lat` holds latency from each request's intended send time
 * (coordinated-omission corrected, as wrk2) and `lat_uncorr` from its actual send. */
#ifndef LOADGEN_STATS_H
#define LOADGEN_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "common/hist.h"

#define STATS_HIST_MAX_US INT64_C(3600000000) /* 1 h */
#define STATS_HIST_DIGITS 3

/* One request's timings for ab's figures and -g (µs; start relative to the run). */
struct stats_rec {
    int64_t start_us;
    int32_t ctime_us; /* connect */
    int32_t time_us;  /* total */
    int32_t wait_us;  /* end of write to first byte */
};

struct stats {
    uint64_t done;       /* complete responses (ab's "Complete requests") */
    uint64_t doneka;     /* of which the server kept alive (ab -k's "Keep-Alive requests") */
    uint64_t non2xx;     /* status outside 2xx (ab) */
    uint64_t status_err; /* status >= 400 (wrk's "Non-2xx or 3xx") */
    uint64_t bytes_read; /* everything read, headers included */
    uint64_t body_read;  /* bytes after the header blocks */
    uint64_t bytes_sent;
    uint64_t body_sent; /* request bodies (-p/-u) */
    uint64_t connects;  /* connections opened */
    uint64_t sent;      /* requests begun (a ticket taken; a retry on a new connection is not
                           another); their rate is the achieved rate of --rate */
    /* failures, as ab breaks them down */
    uint64_t err_connect;
    uint64_t err_read;   /* receive errors (reset, closed before the reply, truncated) */
    uint64_t err_length; /* body length differs from the first response's (ab -l turns off) */
    uint64_t err_except; /* protocol errors (non-HTTP reply, malformed) */
    uint64_t err_write;
    uint64_t err_timeout; /* requests that passed -s */
    int64_t duration_us;
    double rate; /* requested rate (open model), 0 for closed */
    int has_uncorr;
    struct cm_hist lat;
    struct cm_hist lat_uncorr;
    struct cm_hist rps; /* per-thread requests/s samples (wrk's Req/Sec) */
    /* ab's per-request records (only when recording) */
    struct stats_rec *rec;
    size_t nrec, caprec;
};

void stats_init(struct stats *s);
void stats_cleanup(struct stats *s);
/* Adds src into dst (counters, histograms, records; duration: the longer). */
void stats_merge(struct stats *dst, const struct stats *src);
/* Failed requests, as ab counts them (connect + receive + length + exceptions). */
uint64_t stats_failed(const struct stats *s);
/* Requests per second over duration_us. */
double stats_rps(const struct stats *s);

/* Appends one record (grows the array). */
void stats_rec_add(struct stats *s, const struct stats_rec *r);

/* Serializes s (without records) as one compact JSON object; the caller frees it.
 * `extra` fields (url, threads, connections) come from the caller's object if non-NULL
 * (a json_t *, borrowed). */
char *stats_to_json(const struct stats *s, const void *extra);
/* Parses a result written by stats_to_json into s (stats_init'ed here). Returns 0, or
 * -1 with a reason in err. */
int stats_from_json(const char *text, struct stats *s, char *err, size_t errlen);

/* A histogram as JSON: {"highest":..,"digits":..,"min":..,"max":..,"total":..,
 * "clamped":..,"sum":..,"sum_sq":..,"counts":[[slot,count],...]} (json_t *, new). */
void *stats_hist_to_json(const struct cm_hist *h);
/* Reads it back into h (initialized here). Returns 0 or -1. */
int stats_hist_from_json(const void *json, struct cm_hist *h);

#endif
