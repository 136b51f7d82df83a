/* scaler/decision_json.h: a decision record and a lifecycle-hook note as the JSON members
 * the emulator's `decision` and `hook` events carry (docs/admin-api.md), and back: the
 * emulator writes them, `loadgen scenario --explain` reads them off the event stream into
 * the same records the simulator's timeline shows (docs/decisions.md 3-4), so both worlds
 * format one record with one formatter (sc_decision_format, sc_hook_note_format).
 *
 * Ownership: the setters add new references to the caller's object; the readers copy into
 * the caller's record (its static strings, policy_type, trigger, process and why, point at
 * libscaler's own names, never into the JSON). */
#ifndef SCALER_DECISION_JSON_H
#define SCALER_DECISION_JSON_H

#include <jansson.h>

#include "scaler/decision.h"

/* Adds d's members to object o: policy, policy_type, trigger, alarm (when any), metric,
 * threshold, target (when known), direction, current, counted, warming, computed, desired,
 * min, max, arithmetic, result, reason (unchanged), process, cooldown_left_s (cooldown),
 * capped. The group is the caller's (the event's). */
void sc_decision_to_json(json_t *o, const struct sc_decision *d);
/* Adds h's members: hook, instance_id, transition, to, token, heartbeat_timeout_s (waiting,
 * heartbeat), default_result (waiting) or result, why. */
void sc_hook_note_to_json(json_t *o, const struct sc_hook_note *h);

/* Fills d from an object written by sc_decision_to_json plus its "group" and "time_ms"
 * (time_ms, seq left 0 when absent). Returns 0, or -1 when o is not one (no policy, an
 * unknown result, reason or direction, a count that is not an integer): d is then zeroed.
 * Unknown policy types and processes read as NULL. */
int sc_decision_from_json(const json_t *o, struct sc_decision *d);
/* The same for a hook note ("to" must name a kind, "transition" launching or
 * terminating). */
int sc_hook_note_from_json(const json_t *o, struct sc_hook_note *h);

#endif
