/* emulator/events.h: the emulator's event log: what happened, one event each, kept in a
 * bounded ring, written to stderr as one human-readable line, and streamed to
 * subscribers (GET /_scalelab/events: Server-Sent Events, or JSON lines).
 *
 * Two sources: the worlds' stories (scaler/observe.h: alarm transitions, scaling
 * activities, launches, lifecycle and health changes, failed launches), added by emu.c
 * after each step through events_add_world(); and the data plane's own (a fault injected,
 * a process that exited or was killed), added by autoscale.c through events_add().
 * Policy decisions (inputs, arithmetic, why unchanged: docs/decisions.md) and
 * lifecycle-hook notes come the same way, as the "decision" and "hook" kinds.
 *
 * Each event is a JSON object: {"seq": N (from 1, in order), "time": ISO-8601 (emulated),
 * "time_ms", "type", "account", "region", the type's members (docs/admin-api.md), "text":
 * the log line}.
 *
 * Subscribers never block the loop and never grow without bound: each has a buffer of at
 * most EVENTS_SUB_MAX_BYTES; an event that does not fit drops the subscriber (its reader
 * then gets -1 and the server closes the connection). Single-threaded: the loop's thread. */
#ifndef EMULATOR_EVENTS_H
#define EMULATOR_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/buf.h"

struct json_t;
struct sc_event;

#define EVENTS_RING          4096         /* events kept for late readers */
#define EVENTS_SUB_MAX_BYTES (256 * 1024) /* a subscriber's unsent bytes */

struct events;
struct events_sub;

/* Called when a subscriber that found nothing to read has something (data, or its drop). */
typedef void (*events_wake_fn)(void *ud);

/* ring: events kept (<= 0: EVENTS_RING); sub_max: each subscriber's buffer (0: the
 * default). */
struct events *events_create(int ring, size_t sub_max);
void events_destroy(struct events *ev); /* NULL is a no-op; subscribers must be gone */

/* Records an event at now_ms (emulated) of type with fields (a JSON object, stolen; NULL:
 * none) and the human line printed from fmt, logged at INFO (WARN when warn). Returns its
 * seq. */
uint64_t events_add(struct events *ev, int64_t now_ms, const char *type, struct json_t *fields,
                    int warn, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Records one of a world's events (scaler/observe.h) with its account and region. */
void events_add_world(struct events *ev, const char *account, const char *region,
                      const struct sc_event *se);

/* The seq of the newest event (0: none yet). */
uint64_t events_last_seq(const struct events *ev);
/* Appends the kept events with seq > after, one JSON object per line. */
void events_format_jsonl(const struct events *ev, uint64_t after, struct cm_buf *out);

/* A subscriber that first gets the kept events with seq > after, then each new one, as
 * Server-Sent Events ("id: N", "event: TYPE", "data: JSON"). wake (may be NULL) is
 * called as events_wake_fn says. Free with events_unsubscribe(). */
struct events_sub *events_subscribe(struct events *ev, uint64_t after, events_wake_fn wake,
                                    void *ud);
void events_unsubscribe(struct events_sub *s); /* NULL is a no-op */
/* Copies up to max unsent bytes to buf. Returns how many (> 0), 0 when there is nothing
 * now (wake is called when there is), -1 when the subscriber was dropped or ended. */
ssize_t events_sub_read(struct events_sub *s, char *buf, size_t max);
/* 1 when the subscriber was dropped for a full buffer. */
int events_sub_dropped(const struct events_sub *s);
/* Every subscriber gets an SSE comment (keeps proxies and the client's idle timers quiet,
 * and lets the server notice a client that went away). */
void events_keepalive(struct events *ev);
/* Ends every subscriber (shutdown): each reader gets -1 once its buffer is sent. */
void events_end_all(struct events *ev);
int events_sub_count(const struct events *ev);

#endif
