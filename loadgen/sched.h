/* loadgen/sched.h: request-rate schedules for open-model load (and scenario phases).
 *
 * A schedule is a list of phases; in each the rate (requests or connections per second)
 * goes linearly from r0 to r1 over dur_us (r0 == r1: constant; both 0: a gap). The last
 * phase may be endless (dur_us < 0, constant rate). The k-th event (0-based) is due at
 * the first instant the integral of the rate passes k, so a schedule fixes every send
 * time in advance: latency measured from that time is free of coordinated omission.
 * Pure: no clock, no allocation after parse.
 *
 * Text form (sched_parse), phases joined by ',':
 *   R                  constant R/s, endless (only as the last phase)
 *   const:R:DUR        constant R/s for DUR ("30s", "500ms")
 *   ramp:A:B:DUR       linear from A/s to B/s over DUR
 *   step:A:B:S:DUR     A, A+S, ... up to B, each held DUR
 *   gap:DUR            nothing for DUR
 *   burst:R:ON:OFF:N   N times: R/s for ON, then nothing for OFF
 * Example: "ramp:10:100:30s,const:100:1m,burst:500:2s:3s:4,gap:5s,50". */
#ifndef LOADGEN_SCHED_H
#define LOADGEN_SCHED_H

#include <stddef.h>
#include <stdint.h>

#define SCHED_MAX_PHASES 4096

struct sched_phase {
    int64_t dur_us; /* < 0: endless (last phase only) */
    double r0, r1;  /* rate at the start and at the end, per second */
};

struct sched {
    int n;
    struct sched_phase phase[SCHED_MAX_PHASES];
};

/* A single constant phase; dur_us <= 0 means endless. */
void sched_init_const(struct sched *s, double rate, int64_t dur_us);
/* Parses the text form into s. Returns 0, or -1 with a reason in err. */
int sched_parse(const char *spec, struct sched *s, char *err, size_t errlen);
/* Total length in microseconds, or -1 when the last phase is endless. */
int64_t sched_total_us(const struct sched *s);
/* The rate at t (µs since the start); 0 after the end. */
double sched_rate_at(const struct sched *s, int64_t t_us);
/* Events due in [0, t]: the integral of the rate. */
double sched_count_at(const struct sched *s, int64_t t_us);
/* When the k-th event (0-based) is due, in µs since the start, or -1 if the schedule
 * ends first. Non-decreasing in k. */
int64_t sched_time_of(const struct sched *s, uint64_t k);
/* Number of events the whole schedule sends (floor of the integral); UINT64_MAX if endless. */
uint64_t sched_total_count(const struct sched *s);

#endif
