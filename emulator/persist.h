/* emulator/persist.h: `emulator --state FILE`: the state document (every account+region
 * world and the clock), loading it at start, its writer (emulator/state.h) and the metric
 * journal beside it (FILE.metrics, emulator/metric_journal.h). Both writers are handed to
 * the registry (emu_set_durable) for its steps, resets and new worlds; the server drives
 * their group commit. Single-threaded: everything runs on the loop's thread. */
#ifndef EMULATOR_PERSIST_H
#define EMULATOR_PERSIST_H

#include <stddef.h>

#include <jansson.h>

struct emu;
struct state;

/* The whole state as JSON (GET /_scalelab/state; the --state snapshot): {"version":1,
 * "saved_at", "now_ms" (the emulated clock), "clock", "worlds": [sc_world_save of each
 * account+region]}. A new reference, NULL on OOM. */
json_t *persist_state_json(struct emu *e);

struct persist;

/* Loads path into e when it exists (a bad file is an error: it is never overwritten),
 * replays the metric journal, then opens both writers. Returns NULL with err filled on
 * failure. e is borrowed until persist_close(). */
struct persist *persist_open(struct emu *e, const char *path, char *err, size_t errlen);
/* Writes the last clock-driven changes, closes both writers and takes them back from
 * the registry. Before emu_destroy(); NULL is a no-op. */
void persist_close(struct persist *p);
/* The state file's writer (for the group commit), borrowed until persist_close(). */
struct state *persist_state(const struct persist *p);

#endif
