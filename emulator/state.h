/* emulator/state.h: durable state for `emulator --state FILE`.
 *
 * Two kinds of data, two writers, one group commit:
 *   - the control plane (every world: Auto Scaling, EC2, ELB, CloudWatch alarms, RNG,
 *     clocks) is small: it is saved whole as ONE JSON snapshot in FILE, written
 *     atomically (FILE.tmp, fsync, rename over FILE, fsync of the directory). The same
 *     document is what GET /_scalelab/state answers (persist.c builds it:
 *     persist_state_json).
 *   - metric datapoints are large and append-only: a second writer (the metric journal,
 *     emulator/ metrics code) appends them to its own file beside FILE and hooks into the
 *     same commit through struct state_writer below.
 *
 * The group commit (server.c drives it; single-threaded, on the ev loop):
 *   1. a request handler changes the worlds and succeeds (dispatch.c marks the reply with
 *      the operation's kind); server.c calls
 *      state_change(st, kind) and gets a ticket; the reply is held (MHD suspended) until
 *      state_ticket(st, ticket) is no longer STATE_PENDING. A read (any other reply but an
 *      event stream) served while changes wait is held until those changes are durable
 *      too (state_last_ticket): no reply shows a change a crash could still lose.
 *   2. once per loop iteration (before the loop sleeps) server.c calls state_commit():
 *      when a ticket waits and no write is in flight, it calls every writer's sync() (the
 *      journal's fdatasync, on the loop thread), then, when a waiting change needs the
 *      snapshot, builds it (the snapshot callback, on the loop thread) and hands it to
 *      the state's writer thread, which serializes it and writes it atomically while the
 *      loop goes on serving (reads are never held; new changes wait for the next
 *      commit). When the write ends, state_event_fd() becomes readable: server.c calls
 *      state_complete(), and every ticket taken before the commit becomes STATE_DURABLE
 *      (or STATE_FAILED when a write failed: those replies become 500 errors, the change
 *      stays in memory and is retried by the next commit). One commit covers every
 *      request served since the previous one began, however many.
 *   3. changes the clock makes on its own (activities, alarm transitions, instances
 *      coming up) call state_touch(): written by the first state_commit() at least
 *      STATE_IDLE_WRITE_MS after the previous write, so at most once a second while dirty.
 *
 * How a second writer (the metric journal) hooks in:
 *   - at start, after persist.c has loaded the snapshot (every saved world exists), it
 *     registers with state_add_writer(st, &w) and replays its file into the worlds
 *     (emu_world()); state_path() gives FILE, so its file is e.g. FILE + ".metrics".
 *   - in its request path (PutMetricData) it appends its records with write(2) (no fsync)
 *     before the handler returns; server.c then takes a ticket of kind STATE_JOURNAL for
 *     that request (no snapshot needed), so the reply waits for the next commit, which
 *     calls w.sync(). Appends made by the clock (internal puts) need no ticket: the next
 *     commit syncs them anyway.
 *   - w.reset() is called by POST /_scalelab/reset (every world dropped): truncate.
 *   - sync() must not call back into state_*(); it returns 0, or -1 with a message.
 *
 * Not thread-safe: everything runs on the emulator's loop thread (the writer thread is
 * internal). SCALELAB_STATE_DELAY_MS=N in the environment delays each snapshot write by
 * N ms (tests widen the window a crash must not be able to exploit). */
#ifndef EMULATOR_STATE_H
#define EMULATOR_STATE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* The snapshot's format version (the document's "version" member): 2 keeps each
 * account's dashboards in "accounts" (AWS keeps them per account); state_read also reads
 * version 1 (dashboards inside each world's cloudwatch: merged into the account's at load,
 * docs/state.md). */
#define STATE_VERSION     2
#define STATE_VERSION_MIN 1
/* A clock-driven change (state_touch) is written at most this often. */
#define STATE_IDLE_WRITE_MS 1000

struct state;

/* A second durable writer hooked into the group commit (see above). */
struct state_writer {
    const char *name; /* for log lines ("metric journal") */
    /* Makes everything appended so far durable (fdatasync). 0, or -1 with err. */
    int (*sync)(void *ud, char *err, size_t errlen);
    /* The emulator's state was reset (admin): drop everything. NULL: nothing to do. */
    void (*reset)(void *ud);
    void *ud;
};

/* Builds the whole snapshot document (a new reference), or NULL on OOM. */
typedef json_t *(*state_snapshot_fn)(void *ud);

/* What a change needs to be durable. */
enum state_kind {
    STATE_SNAPSHOT = 1, /* the control plane changed: the snapshot must be rewritten */
    STATE_JOURNAL = 2,  /* only a writer's appends (PutMetricData): writers' sync() */
};

enum state_ticket_status {
    STATE_PENDING = 0, /* the reply waits */
    STATE_DURABLE,     /* on disk: answer */
    STATE_FAILED,      /* the commit failed: answer 500 (the change is retried) */
};

/* Opens the state file's writer and starts its thread (nothing is read or written yet).
 * path is copied. Returns NULL with err filled (the directory of path must exist). */
struct state *state_create(const char *path, state_snapshot_fn snapshot, void *ud, char *err,
                           size_t errlen);
/* Waits for a write in flight, stops the thread; does not start a write (call
 * state_commit and state_drain first to flush). NULL is a no-op. */
void state_destroy(struct state *st);
/* The state file's path (borrowed). */
const char *state_path(const struct state *st);

/* Reads and parses path. Returns 1 with *doc (a new reference) when the file exists and
 * is a JSON object of a known "version" (STATE_VERSION_MIN..STATE_VERSION); 0 when it does not
 * exist; -1 with err ("<path>: line 3: unexpected end of input", "<path>: unknown version 7")
 * otherwise. The file is never changed. */
int state_read(const char *path, json_t **doc, char *err, size_t errlen);

/* Registers w (copied). Returns 0, or -1 when 8 writers exist. */
int state_add_writer(struct state *st, const struct state_writer *w);
/* Calls every writer's reset(). */
void state_reset_writers(struct state *st);

/* A request changed something (kind: enum state_kind bits). Returns the ticket its
 * reply waits for. */
uint64_t state_change(struct state *st, unsigned kind);
/* The worlds changed on their own (clock); written within STATE_IDLE_WRITE_MS. */
void state_touch(struct state *st);
/* The last ticket issued (0: none): a read served now shows the changes of every ticket up
 * to it, so server.c holds the read's reply until this ticket is no longer STATE_PENDING
 * (docs/state.md "Reads and durability"). */
uint64_t state_last_ticket(const struct state *st);
/* Where ticket stands. */
enum state_ticket_status state_ticket(const struct state *st, uint64_t ticket);
/* 1 when a ticket waits (the loop must not sleep before state_commit). */
int state_has_waiters(const struct state *st);

/* Starts a commit when none is in flight and a ticket waits, or when touched and
 * STATE_IDLE_WRITE_MS passed since the last write (mono_ms: the loop's monotonic ms).
 * Returns 1 when it started one (a journal-only commit, or a clock-driven one that found
 * nothing changed, is complete at once), 0 when nothing was due or a write is in flight,
 * -1 when a writer's sync failed (logged; waiting tickets become STATE_FAILED). */
int state_commit(struct state *st, int64_t mono_ms);
/* Readable (eventfd) when the writer thread finished a snapshot: call state_complete. */
int state_event_fd(const struct state *st);
/* Collects a finished write: its tickets become STATE_DURABLE (or STATE_FAILED, logged).
 * Returns 1 when one finished, 0 when none had. */
int state_complete(struct state *st);
/* Blocks until no write is in flight (tests, shutdown). */
void state_drain(struct state *st);
/* 1 while the writer thread is writing a snapshot. */
int state_in_flight(const struct state *st);
/* Milliseconds until state_commit has work: 0 now, -1 none (or a write in flight: the
 * event fd wakes the loop). */
int64_t state_next_due_ms(const struct state *st, int64_t mono_ms);

/* Figures since start: commits (snapshot writes), last snapshot bytes and ms. */
struct state_stats {
    uint64_t commits;
    uint64_t snapshots;
    uint64_t tickets;
    size_t last_bytes;
    double last_ms;  /* the last snapshot: build on the loop, then serialize, write, fsync,
                        rename, fsync of the directory on the writer thread */
    double total_ms; /* every snapshot's */
    double loop_ms;  /* of total_ms, what the loop spent (building the document) */
};
void state_get_stats(const struct state *st, struct state_stats *out);

#endif
