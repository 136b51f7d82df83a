/* emulator/metric_journal.h: CloudWatch datapoints made durable as an append-only journal
 * beside the state file (FILE.metrics), the second writer of emulator/state.h.
 *
 * Every put that stores data in a world's CloudWatch (PutMetricData over any protocol and
 * the world's own puts: CPU, ELB, Auto Scaling group metrics) reaches the journal through
 * the put observer (sc_cw_set_put_observer) and is appended at once with write(2), one
 * compact binary record per datum: u32 length, u32 CRC-32 of the payload, payload. The
 * record holds the account, region, namespace, metric name, dimensions, unit, storage
 * resolution, the effective timestamp and the values exactly as stored (Value, or
 * Values+Counts, or a StatisticSet). metric_journal_sync() (fdatasync) is the state
 * writer's sync(): server.c holds a PutMetricData reply until the group commit called it.
 *
 * At start metric_journal_replay() feeds the file into the worlds: datum records go through
 * the store's own put (so retention applies: what is older than the store keeps is
 * dropped), image records (below) restore a series whole. A torn tail (the last append cut
 * short by a crash: an incomplete record, or a damaged one with no intact record anywhere
 * after it) is dropped with a warning: the file is truncated there, so later appends follow
 * good data. A damaged record with an intact record after it, or a record whose CRC matches
 * but whose content does not parse, is corruption: the replay fails naming the file and the
 * record's offset, and leaves the file as it is (the emulator does not start).
 *
 * Compaction: when the file has grown to twice what the last rewrite wrote (and at least
 * 16 MiB), metric_journal_maybe_compact() rewrites it from the stores' current contents
 * (sc_metric_store_export: one image record per series) into FILE.metrics.tmp, fsyncs,
 * renames it over the journal and fsyncs the directory. The journal therefore stays
 * within about twice the live data, however long the emulator runs.
 *
 * Single-threaded (the emulator's loop). Prefix metric_journal_. */
#ifndef EMULATOR_METRIC_JOURNAL_H
#define EMULATOR_METRIC_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

struct sc_cw;
struct metric_journal;

#define METRIC_JOURNAL_MAX_WORLDS 64

/* Opens (creating if needed, mode 0644) the journal at path (copied). Nothing is read.
 * Returns NULL with err filled. */
struct metric_journal *metric_journal_open(const char *path, char *err, size_t errlen);
/* Detaches from every world it observes and closes the file (no sync). NULL is a no-op. */
void metric_journal_close(struct metric_journal *j);

/* The world's CloudWatch for (account, region), created when missing; NULL to skip the
 * record. Used by replay. */
typedef struct sc_cw *(*metric_journal_cw_fn)(const char *account, const char *region, void *ud);

struct metric_journal_replay_stats {
    uint64_t records;   /* applied */
    uint64_t expired;   /* datum records older than the store keeps */
    uint64_t skipped;   /* refused by the store or no world */
    uint64_t images;    /* series restored from image records */
    uint64_t bytes;     /* good bytes read */
    uint64_t truncated; /* bytes of a torn tail dropped (0 when clean) */
};

/* Replays the whole file (see top) into the worlds fn returns; now_ms is the emulated
 * clock (datums older than 15 days are not applied). Must run before any world is
 * attached. Returns 0 (a torn tail is not an error: it is truncated and logged), or -1
 * with err when the file cannot be read or truncated, or is corrupt (err names the file,
 * the damaged record's byte offset and the first intact record after it; the file is not
 * touched). Records before the damage have been applied by then. */
int metric_journal_replay(struct metric_journal *j, metric_journal_cw_fn fn, void *ud,
                          int64_t now_ms, struct metric_journal_replay_stats *stats, char *err,
                          size_t errlen);

/* Observes cw (the world of account, region): each stored put is appended. Attaching a cw
 * twice is a no-op. Returns 0, or -1 when METRIC_JOURNAL_MAX_WORLDS are attached. */
int metric_journal_attach(struct metric_journal *j, struct sc_cw *cw, const char *account,
                          const char *region);
/* Stops observing every attached world (before they are destroyed). */
void metric_journal_detach_all(struct metric_journal *j);

/* struct state_writer callbacks (ud = the journal). sync: fdatasync when something was
 * appended since the last sync; 0, or -1 with err (a failed append is reported here).
 * reset: truncates the file and forgets every world (called after the worlds were
 * destroyed: their CloudWatch is not touched). */
int metric_journal_sync(void *ud, char *err, size_t errlen);
void metric_journal_reset(void *ud);

/* Rewrites the journal from the attached worlds' stores when it has grown past twice the
 * last rewrite (force: now). Returns 1 when it rewrote, 0 when not due, -1 with err. */
int metric_journal_maybe_compact(struct metric_journal *j, int force, char *err, size_t errlen);

/* Figures for the admin API and benchmarks. */
struct metric_journal_stats {
    uint64_t appended; /* datum records appended since open */
    uint64_t syncs;    /* fdatasync calls */
    uint64_t compactions;
    uint64_t file_bytes;
    uint64_t last_compact_bytes;
};
void metric_journal_get_stats(const struct metric_journal *j, struct metric_journal_stats *out);

#endif
