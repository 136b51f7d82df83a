/* emulator/health.h: active health checks as classic ELB runs them (spec 6.2): every
 * Interval, a TCP connect (pass on connect) or an HTTP GET <path> (pass only on 200), each
 * within Timeout, against 127.0.0.1:<port>. Results go to a callback with what the probe
 * saw (timeout, connection error, status code); the thresholds and ELBv2's matcher are the
 * caller's rule (libscaler's sc_elb_health_result, sc_elbv2_hc_judge in the emulator).
 *
 * Runs on the caller's common/ev loop, non-blocking. A target is named by a key (copied),
 * e.g. "<lb>/<instance-id>". */
#ifndef EMULATOR_HEALTH_H
#define EMULATOR_HEALTH_H

#include <stdint.h>

#include "common/ev.h"

enum hc_proto {
    HC_TCP,
    HC_HTTP,
};

struct hc_check {
    enum hc_proto proto;
    int port;
    const char *path; /* HTTP: "/health" (copied) */
    int64_t timeout_ms;
};

/* What a probe saw, for callers whose rule tells failures apart (ELBv2's reason codes,
 * libscaler's sc_elbv2_hc_judge). */
enum hc_probe {
    HC_PROBE_ANSWERED = 0, /* TCP: connected; HTTP: a status line (status) */
    HC_PROBE_TIMEOUT,      /* not connected, or no status line, within the timeout */
    HC_PROBE_CONN_ERROR,   /* refused or reset while connecting (or no socket) */
    HC_PROBE_MALFORMED,    /* closed or failed before a status line, or an unreadable one */
};

/* One result. ok: classic ELB's rule (TCP: connected; HTTP: status 200); connect_failed 1
 * when the TCP connection itself failed (refused, reset or timed out before connecting;
 * counts in BackendConnectionErrors); probe and status (the HTTP status, 0 when none) say
 * what was seen. */
struct hc_result {
    int ok;
    int connect_failed;
    enum hc_probe probe;
    int status;
};
typedef void (*hc_report_fn)(void *ud, const char *key, const struct hc_result *r);

struct hc_set;

struct hc_set *hc_set_create(struct cm_ev *ev, hc_report_fn fn, void *ud);
/* Cancels checks in flight (no report) and frees. NULL is a no-op. */
void hc_set_destroy(struct hc_set *s);
/* Adds or updates a target. A new one is first checked after first_delay_ms, then every
 * interval_ms; an update keeps the schedule's phase unless the interval changes. */
void hc_target_set(struct hc_set *s, const char *key, const struct hc_check *chk,
                   int64_t interval_ms, int64_t first_delay_ms);
/* Removes a target; a check in flight is cancelled without a report. */
void hc_target_remove(struct hc_set *s, const char *key);
int hc_target_count(const struct hc_set *s);
/* The i-th target's key (borrowed) or NULL: for sweeps that remove stale targets. */
const char *hc_target_key_at(const struct hc_set *s, int i);
/* The emulated clock (the emulator's --clock manual, issue 17 part 5): from now on checks
 * run only when hc_set_advance moves the set's clock past their due time, never on the wall
 * clock; each target's first check is due first_delay_ms after the clock at hc_target_set,
 * then every interval_ms of that clock. A check's timeout stays real (the probe is a real
 * connection). One advance over n intervals runs one probe whose result counts for each of
 * them, at most HC_CATCH_UP_MAX (the largest health-check threshold AWS takes is 10): an
 * instance is taken to be as it is now through the time the clock jumped. */
#define HC_CATCH_UP_MAX 10
void hc_set_manual(struct hc_set *s, int64_t now_ms);
/* Moves the emulated clock to now_ms (never back) and starts the checks due; returns how
 * many started. A no-op on the real clock. */
int hc_set_advance(struct hc_set *s, int64_t now_ms);
/* Checks run and results by outcome, since creation (status pages, tests). */
void hc_set_counts(const struct hc_set *s, uint64_t *checks, uint64_t *passed);

#endif
