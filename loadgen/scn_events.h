/* loadgen/scn_events.h: `loadgen scenario --explain` following a scalelab emulator's event
 * stream (GET /_scalelab/events, SSE; docs/admin-api.md) for the scenario's own groups'
 * `decision` and `hook` events, which the runner puts on its timeline as the simulator
 * puts its own (docs/decisions.md).
 *
 * A thread of its own reads the stream with libcurl (signed as scn_http signs, for an
 * emulator under --auth sigv4) and parses it (loadgen/sse.h); the controlling thread takes
 * what it kept with scn_events_drain() at each sample period, so the load player and the
 * runner's loop never wait on the stream. Bounded: at most SCN_EVENTS_QUEUE_MAX events wait
 * (more are dropped and counted), each at most SSE_DATA_MAX bytes. A closed connection is
 * reopened after the last event seen (since=N), at most SCN_EVENTS_RECONNECTS times; events
 * the emulator's log no longer kept by then are counted as missed (a gap in its seq).
 *
 * Ownership: the follower owns its thread, queue and strings; the JSON objects handed to
 * the drain callback are borrowed for the call. */
#ifndef LOADGEN_SCN_EVENTS_H
#define LOADGEN_SCN_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define SCN_EVENTS_QUEUE_MAX  4096
#define SCN_EVENTS_RECONNECTS 20

struct scn_events;

/* What the follower saw, for the run's closing lines. */
struct scn_events_stats {
    uint64_t received; /* events of the stream read (every type and group) */
    uint64_t kept;     /* decision and hook events of the groups, queued */
    uint64_t dropped;  /* kept ones the full queue refused, or too large to read */
    uint64_t missed;   /* events the stream skipped (seq gaps after a reconnect) */
    int reconnects;
    char error[256]; /* the last failure ("" when none): HTTP status, transport error */
};

/* Starts following base (http://host:port) from the first event it still keeps, keeping
 * the `decision` and `hook` events whose "group" is one of groups (ngroups names, copied).
 * Returns NULL with err on failure to start (no thread, OOM); the stream's own failures
 * are in the stats. */
struct scn_events *scn_events_start(const char *base, const char *const *groups, int ngroups,
                                    char *err, size_t n);
/* Hands each queued event (oldest first) to fn, then forgets it; returns how many. From
 * the controlling thread only. */
int scn_events_drain(struct scn_events *s, void (*fn)(const json_t *ev, void *ud), void *ud);
void scn_events_stats(struct scn_events *s, struct scn_events_stats *out);
/* Stops the thread (within a poll slice, 200 ms), joins it and frees everything; the
 * events not drained are lost. NULL is a no-op. */
void scn_events_stop(struct scn_events *s);

#endif
