/* loadgen/sse.h: a Server-Sent Events reader (the WHATWG HTML "event stream" format, as the
 * emulator's GET /_scalelab/events speaks it, docs/admin-api.md): bytes in, in any pieces;
 * one callback per dispatched event with its id, event type and data.
 *
 * Lines end with LF, CRLF or CR; "field: value" (one space after the colon dropped);
 * `data` lines are joined with LF; `id` and `event` are kept; a line starting with ':' is
 * a comment (the keepalive); an empty line dispatches (an event without data is not
 * dispatched, as the standard says). Bounded: a line longer than SSE_LINE_MAX or data
 * longer than SSE_DATA_MAX drops that event (counted in `dropped`). Pure: no I/O, no
 * allocation after sse_create.
 *
 * Ownership: the strings passed to the callback are the reader's, valid during the call. */
#ifndef LOADGEN_SSE_H
#define LOADGEN_SSE_H

#include <stddef.h>
#include <stdint.h>

#define SSE_LINE_MAX 65536
#define SSE_DATA_MAX 65536

/* id: the last `id` field seen ("" when none; the standard keeps it across events);
 * event: the type ("message" when the event named none); data without its final LF. */
typedef void (*sse_event_fn)(const char *id, const char *event, const char *data, size_t len,
                             void *ud);

struct sse;

/* NULL on OOM. */
struct sse *sse_create(sse_event_fn fn, void *ud);
void sse_destroy(struct sse *p); /* NULL is a no-op */
/* Feeds n bytes. */
void sse_feed(struct sse *p, const char *buf, size_t n);
/* Forgets a partial line and event (a new connection), keeps the last id. */
void sse_reset(struct sse *p);
/* Events dropped for their size. */
uint64_t sse_dropped(const struct sse *p);

#endif
