/* common/ev.h: a small single-threaded event loop over epoll: fd watchers, timers that
 * are given the loop's time and return their next delay, signals through signalfd, and
 * a per-iteration hook (the emulator runs libmicrohttpd in external-epoll mode from it).
 *
 * Time is CLOCK_MONOTONIC milliseconds (cm_ev_now_ms). Callbacks run on the loop's
 * thread; they may add or delete watchers and timers. The loop owns no fds. */
#ifndef COMMON_EV_H
#define COMMON_EV_H

#include <stdint.h>

struct cm_ev;

/* An fd is ready; events are EPOLLIN/EPOLLOUT/... bits. */
typedef void (*cm_ev_fd_fn)(struct cm_ev *ev, int fd, uint32_t events, void *ud);
/* A timer is due at now_ms; returns its next delay in ms (>= 0), or -1 to end. */
typedef int64_t (*cm_ev_timer_fn)(struct cm_ev *ev, int64_t now_ms, void *ud);
/* A blocked signal arrived (read from the signalfd). */
typedef void (*cm_ev_signal_fn)(struct cm_ev *ev, int signo, void *ud);
/* Called before each wait: returns the longest the loop may sleep in ms, or -1 for no
 * limit. Called again after the wait (with after 1), so the owner can run its work. */
typedef int64_t (*cm_ev_hook_fn)(struct cm_ev *ev, int after, int64_t now_ms, void *ud);

int64_t cm_ev_now_ms(void);

/* Returns NULL on failure (errno set). */
struct cm_ev *cm_ev_create(void);
void cm_ev_destroy(struct cm_ev *ev); /* NULL is a no-op; closes the signalfd */

/* Watches fd for events (EPOLLIN etc.). Returns 0 or -1. One watcher per fd. */
int cm_ev_add_fd(struct cm_ev *ev, int fd, uint32_t events, cm_ev_fd_fn fn, void *ud);
int cm_ev_mod_fd(struct cm_ev *ev, int fd, uint32_t events);
int cm_ev_del_fd(struct cm_ev *ev, int fd);

/* Runs fn after delay_ms. Returns a timer id (> 0), or -1. */
long cm_ev_add_timer(struct cm_ev *ev, int64_t delay_ms, cm_ev_timer_fn fn, void *ud);
void cm_ev_del_timer(struct cm_ev *ev, long id);

/* Blocks the signals (sigprocmask) and delivers them through one signalfd. Returns 0/-1. */
int cm_ev_add_signals(struct cm_ev *ev, const int *signals, int n, cm_ev_signal_fn fn, void *ud);

/* One hook, run around each wait (see cm_ev_hook_fn). */
void cm_ev_set_hook(struct cm_ev *ev, cm_ev_hook_fn fn, void *ud);

/* Runs until cm_ev_stop(). Returns 0, or -1 if epoll_wait fails. */
int cm_ev_run(struct cm_ev *ev);
void cm_ev_stop(struct cm_ev *ev);

#endif
