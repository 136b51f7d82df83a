/* scaler/stall.h: host stalls on a time-scaled run (docs/dataplane.md, Time; docs/loadgen.md,
 * "Host stalls").
 *
 * At --time-scale X an emulated minute is 60,000 / X real ms (100 ms at x600), so a process
 * of the chain (an instance, the emulator's loop, loadgen) kept off the CPU for a fraction
 * of a second empties emulated minutes of their load or of their CPU datapoint. What a run
 * can see cheaply is how late its own timers fire: a timer due at T that runs at T + L was
 * off the CPU (or queued behind other work) for L. The rules, one place each:
 *
 * - threshold (sc_stall_threshold_ms): a lateness is a stall when it is at least 10 % of an
 *   emulated minute in real ms (6,000 / X: 10 ms at x600, 100 ms at x60), and never under
 *   SC_STALL_FLOOR_MS real ms, the scheduler's ordinary wake-up jitter on a busy machine;
 * - conversion (sc_stall_emulated_ms): L real ms are L x X emulated ms, and a stall that
 *   ended at emulated time E covers [E - L x X, E];
 * - merging (sc_stalls_add): intervals that overlap are one (the same host stall seen by
 *   loadgen and by the emulator is counted once in the time lost, twice in the count);
 *   the windows shown group intervals less than SC_STALL_JOIN_MS (one emulated minute)
 *   apart, since they hit the same or the next metrics minute;
 * - blame (sc_stalls_suspect): a failed expectation may be the host's when the stalls lost
 *   at least SC_STALL_BLAME_LOST_MS emulated in all (one metrics minute's load or
 *   datapoint), or a window reaches into the SC_STALL_BLAME_LEAD_MS (15 emulated minutes:
 *   a 1-minute alarm's longest usual evaluation span) before the failure.
 *
 * Used by loadgen scenario (which measures, sums and prints them), by the emulator (which
 * measures its loop's lateness, GET /_scalelab/health "loop") and by the HTML report
 * (scaler/sim/report.h), which prints the line sc_stalls_line() makes: one figure, one
 * source. Not thread-safe: the caller serializes sc_stalls_add. */
#ifndef SCALER_STALL_H
#define SCALER_STALL_H

#include <stddef.h>
#include <stdint.h>

#define SC_STALL_SHARE         0.10 /* of an emulated minute */
#define SC_STALL_FLOOR_MS      5.0  /* real ms */
#define SC_STALL_JOIN_MS       INT64_C(60000)
#define SC_STALL_BLAME_LOST_MS INT64_C(60000)
#define SC_STALL_BLAME_LEAD_MS INT64_C(900000)
#define SC_STALL_MAX_INTERVALS 256
#define SC_STALL_RING          64 /* the emulator's recent stalls (health "loop") */

/* Where a lateness was measured. */
enum sc_stall_source {
    SC_STALL_RUNNER = 0, /* loadgen's controlling loop (samples, faults, hooks) */
    SC_STALL_LOAD,       /* loadgen's load threads (the burst engine's timer) */
    SC_STALL_EMULATOR,   /* the emulator's loop (its step timer) */
    SC_STALL_NSOURCES
};

/* The real ms a lateness must reach to be a stall at time scale `scale` (> 0). */
double sc_stall_threshold_ms(double scale);
/* Emulated ms for real ms at `scale`. */
double sc_stall_emulated_ms(double real_ms, double scale);

/* One emulated interval a process was off the CPU; ms since the run's start. */
struct sc_stall_interval {
    int64_t from_ms, to_ms;
};

/* A window as shown: intervals grouped by SC_STALL_JOIN_MS. */
struct sc_stall_window {
    int64_t from_ms, to_ms; /* the first interval's start, the last one's end */
    int64_t lost_ms;        /* emulated: the union of its intervals */
};

struct sc_stalls {
    double scale, threshold_ms;
    int64_t origin_ms;                /* the endpoint's epoch ms at the run's time 0 (0: unknown) */
    int count;                        /* latenesses at or over the threshold */
    int by_source[SC_STALL_NSOURCES]; /* of which, per source */
    int measured[SC_STALL_NSOURCES];  /* 1: the source was watched on this run */
    double longest_ms;                /* real */
    uint64_t unplaced;                /* counted, but not placed in time (a ring overflow) */
    int n;                            /* intervals, disjoint, ascending */
    struct sc_stall_interval iv[SC_STALL_MAX_INTERVALS];
};

void sc_stalls_init(struct sc_stalls *s, double scale);
/* A lateness of late_ms real, measured by `src`, whose timer ran at emulated time end_ms
 * (ms since the run's start). Returns 1 when it is a stall (counted and placed), else 0.
 * When the intervals are full the new one joins its nearest neighbour (time lost is then
 * overstated by the gap between them). */
int sc_stalls_add(struct sc_stalls *s, enum sc_stall_source src, int64_t end_ms, double late_ms);
/* n stalls of `src` that were counted where they happened but cannot be placed in time
 * (they fell out of the emulator's ring between two reads): count and unplaced grow. */
void sc_stalls_add_unplaced(struct sc_stalls *s, enum sc_stall_source src, uint64_t n);
/* Emulated ms lost: the union of the intervals. */
int64_t sc_stalls_lost_ms(const struct sc_stalls *s);
/* The windows as shown, at most max into out; returns how many there are (may be > max). */
int sc_stalls_windows(const struct sc_stalls *s, struct sc_stall_window *out, int max);
/* 1 when a failure at when_ms (since the start) may be the host's (the blame rule). */
int sc_stalls_suspect(const struct sc_stalls *s, int64_t when_ms);

/* The terminal's line, the report's too (no newline): "host: 3 stalls ...". Returns the
 * length snprintf would write. */
int sc_stalls_line(const struct sc_stalls *s, char *out, size_t n);
/* The note beside a verdict the blame rule marks (no newline). */
int sc_stalls_note(const struct sc_stalls *s, char *out, size_t n);
/* The --json member `"host_stalls":{...}` (no leading comma), with "failures_marked": how
 * many failed expectations the blame rule marks (the caller's count; < 0 left out); -1
 * when it does not fit. */
int sc_stalls_json(const struct sc_stalls *s, int marked, char *out, size_t n);

/* The emulator's recent stalls, a ring read by GET /_scalelab/health: seq counts every
 * stall ever recorded, the last SC_STALL_RING are kept. */
struct sc_stall_ring {
    uint64_t seq;
    double longest_ms;
    struct {
        int64_t at_ms; /* the emulated epoch ms the late timer ran at */
        double late_ms;
    } r[SC_STALL_RING];
};
/* Records a lateness when it is a stall at `scale`; returns 1 when recorded. */
int sc_stall_ring_note(struct sc_stall_ring *g, double scale, int64_t at_ms, double late_ms);

#endif
