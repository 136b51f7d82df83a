/* emulator/accept_guard.h: what a listening socket's accept loop does when accept4() fails
 * for want of file descriptors (EMFILE, ENFILE) or kernel memory (ENOBUFS, ENOMEM): the
 * socket stays readable, so a level-triggered loop that simply returns is called again at
 * once, forever (issue 19 finding 3: 3.6 CPU-seconds in 5 s, 94 MB of log in 7 s). The guard
 * stops watching the socket for a back-off interval (ACCEPT_GUARD_MIN_MS, doubling up to
 * ACCEPT_GUARD_MAX_MS while it keeps failing, back to the minimum after an accept
 * succeeds), then watches it again; pending connections wait in the kernel's backlog. It
 * logs at most one line per ACCEPT_GUARD_LOG_MS with how many pauses came since the last.
 *
 * The emulator's API (emulator/server.c), the listener proxies (emulator/lb.c) and the
 * instance program (emulator/instance_main.c) use it. The guard lives in the caller's
 * storage; single-threaded, on the caller's common/ev loop. */
#ifndef EMULATOR_ACCEPT_GUARD_H
#define EMULATOR_ACCEPT_GUARD_H

#include <stdint.h>

#include "common/ev.h"

#define ACCEPT_GUARD_MIN_MS 50
#define ACCEPT_GUARD_MAX_MS 1000
#define ACCEPT_GUARD_LOG_MS 1000

struct accept_guard {
    struct cm_ev *ev;
    int fd;
    cm_ev_fd_fn fn; /* the accept callback watching fd for EPOLLIN */
    void *ud;
    const char *name; /* borrowed: the listener's name in the log line */
    long timer;       /* the back-off running; 0: none */
    int64_t pause_ms; /* the next pause */
    int64_t logged_ms;
    uint64_t pauses; /* since the last log line */
    uint64_t total;  /* every pause (tests, status) */
};

/* Sets g up for fd, which the caller watches with cm_ev_add_fd(ev, fd, EPOLLIN, fn, ud). */
void accept_guard_init(struct accept_guard *g, struct cm_ev *ev, int fd, cm_ev_fd_fn fn, void *ud,
                       const char *name);
/* Stops the back-off timer (the caller stops watching and closes fd itself). */
void accept_guard_cleanup(struct accept_guard *g);
/* accept4() on fd failed with err. Returns 1 when the guard paused the socket (the caller
 * ends its loop), 0 for anything else (EAGAIN, ECONNABORTED, ...: the caller decides). */
int accept_guard_failed(struct accept_guard *g, int err);
/* An accept succeeded: the next pause is the shortest again. */
void accept_guard_ok(struct accept_guard *g);

#endif
