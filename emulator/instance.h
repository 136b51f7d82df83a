/* emulator/instance.h: the one owner of the emulator's child processes, the emulated EC2
 * instances (each `emulator instance ...`, see instance_main.h).
 *
 * inst_spawn() starts a child with posix_spawn of `emulator-instance` when it sits beside
 * the running binary (small: linked with only what it uses), else of /proc/self/exe's
 * `instance` sub-mode, in its own process group, an empty signal mask, and the
 * child's end of a control socket pair as fd 3; every other fd of ours is O_CLOEXEC. The
 * child writes its port there once booted (INST_READY), and receives further listening
 * sockets on it (inst_add_port). Deaths arrive through a signalfd for
 * SIGCHLD on the caller's loop; every child is reaped (waitpid until none) and reported
 * once (INST_EXITED, with the wait status). The child follows the emulator's death
 * (PR_SET_PDEATHSIG). inst_terminate() escalates: SIGTERM and SIGCONT to the child's
 * process group at once (a stopped child, by the hang fault or by a SIGSTOP from outside,
 * runs again to die of it), then SIGKILL when it is still there INST_TERM_GRACE_MS later.
 * inst_mgr_destroy() ends them all the same way, waiting for them (a grace, then SIGKILL),
 * and reaps them, so no zombie and no orphan is left.
 *
 * Ids are copied. Single-threaded, on the caller's common/ev loop. */
#ifndef EMULATOR_INSTANCE_H
#define EMULATOR_INSTANCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/ev.h"

#define INST_ID_LEN 40
/* real ms from inst_terminate's SIGTERM to its SIGKILL (the emulated instance exits at
 * once on SIGTERM, so only a hung, stopped or TERM-ignoring one waits this long) */
#define INST_TERM_GRACE_MS 2000

enum inst_event {
    INST_READY,  /* listening; port set */
    INST_EXITED, /* gone (status = waitpid status); the record is dropped after the call */
};

typedef void (*inst_event_fn)(void *ud, const char *id, enum inst_event event, int port,
                              int status);

struct inst_mgr;

/* exe NULL: /proc/self/exe. Returns NULL (errno set) when the SIGCHLD signalfd fails. */
struct inst_mgr *inst_mgr_create(struct cm_ev *ev, const char *exe, inst_event_fn fn, void *ud);
/* Stops every child (TERM, KILL after grace_ms) and reaps them; no callbacks. */
void inst_mgr_destroy(struct inst_mgr *m, int64_t grace_ms); /* NULL is a no-op */

/* Starts instance id (unique) in zone (NULL: none; the instance names both in its
 * replies) with the profile JSON (NULL: defaults) booting boot_ms (real ms; -1: the
 * profile's boot_s). Returns 0, or -1 with err filled. */
int inst_spawn(struct inst_mgr *m, const char *id, const char *zone, const char *profile_json,
               int64_t boot_ms, char *err, size_t errlen);
/* The clock's time scale (emulated ms per real ms; <= 0: 1), given to every child started
 * from now on as --time-scale: a profile with "time_scaled" divides its service times by
 * it (scaler/app.h). */
void inst_mgr_set_time_scale(struct inst_mgr *m, double time_scale);
/* Another bound for inst_terminate (tests); <= 0 restores INST_TERM_GRACE_MS. */
void inst_mgr_set_term_grace(struct inst_mgr *m, int64_t grace_ms);

/* Signals: SIGKILL (kill -9 fault); SIGTERM + SIGCONT, then SIGKILL after the bound
 * (orderly terminate, see above); SIGSTOP/SIGCONT (hang 1/0).
 * Each returns 0, or -1 for an unknown id. The death is reported through the callback. */
int inst_kill(struct inst_mgr *m, const char *id);
int inst_terminate(struct inst_mgr *m, const char *id);
int inst_hang(struct inst_mgr *m, const char *id, int hang);
/* Sends GET /_instance/fault?<query> to a ready instance without waiting for the answer
 * (bounded by 100 ms socket timeouts): "slow=3", "fail_health=1", "error_rate=0.1". */
int inst_fault(struct inst_mgr *m, const char *id, const char *query);

/* Gives a ready instance one more listening port: binds 127.0.0.1:0 here and hands the
 * socket to the child over its control socket (SCM_RIGHTS); it serves it like its own
 * port from then on. For one port per listener InstancePort. Returns the port, or -1
 * with err when the instance is unknown, not listening yet, or the hand-over fails. */
int inst_add_port(struct inst_mgr *m, const char *id, char *err, size_t errlen);
/* Waits (blocking, at most timeout_ms) until every child started with boot_ms 0 has
 * reported its port or died, delivering INST_READY callbacks as they come. For instances without a
 * boot time, so that the API call that launched them sees them up (they listen within a few ms).
 * Returns how many are still booting. */
int inst_wait_ready(struct inst_mgr *m, int64_t timeout_ms);
/* -1 unknown, 0 still booting, else the port. */
int inst_port(const struct inst_mgr *m, const char *id);
pid_t inst_pid(const struct inst_mgr *m, const char *id); /* -1 unknown */
int inst_is_hung(const struct inst_mgr *m, const char *id);
int inst_count(const struct inst_mgr *m);
const char *inst_id_at(const struct inst_mgr *m, int i); /* borrowed, or NULL */
/* Children reaped so far (tests: every start is matched by a reap). */
uint64_t inst_reaped(const struct inst_mgr *m);

#endif
