/* common/ev.c: see ev.h. */
#include "common/ev.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"

struct fd_watch {
    cm_ev_fd_fn fn;
    void *ud;
};

struct timer {
    long id;
    int64_t due_ms;
    cm_ev_timer_fn fn;
    void *ud;
};

struct cm_ev {
    int epfd;
    int sigfd;
    int stop;
    struct fd_watch *fds;
    int nfds;
    struct timer *timers;
    int ntimers, cap_timers;
    long next_id;
    cm_ev_signal_fn sig_fn;
    void *sig_ud;
    cm_ev_hook_fn hook;
    void *hook_ud;
};

int64_t cm_ev_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct cm_ev *cm_ev_create(void)
{
    struct cm_ev *ev = cm_xcalloc(1, sizeof(*ev));

    ev->sigfd = -1;
    ev->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (ev->epfd < 0) {
        free(ev);
        return NULL;
    }
    return ev;
}

void cm_ev_destroy(struct cm_ev *ev)
{
    if (!ev)
        return;
    if (ev->sigfd >= 0)
        close(ev->sigfd);
    close(ev->epfd);
    free(ev->fds);
    free(ev->timers);
    free(ev);
}

int cm_ev_add_fd(struct cm_ev *ev, int fd, uint32_t events, cm_ev_fd_fn fn, void *ud)
{
    struct epoll_event e;

    if (fd < 0)
        return -1;
    if (fd >= ev->nfds) {
        int n = fd + 16;

        ev->fds = cm_xrealloc(ev->fds, (size_t)n * sizeof(*ev->fds));
        memset(ev->fds + ev->nfds, 0, (size_t)(n - ev->nfds) * sizeof(*ev->fds));
        ev->nfds = n;
    }
    memset(&e, 0, sizeof(e));
    e.events = events;
    e.data.fd = fd;
    if (epoll_ctl(ev->epfd, EPOLL_CTL_ADD, fd, &e) < 0)
        return -1;
    ev->fds[fd].fn = fn;
    ev->fds[fd].ud = ud;
    return 0;
}

int cm_ev_mod_fd(struct cm_ev *ev, int fd, uint32_t events)
{
    struct epoll_event e;

    memset(&e, 0, sizeof(e));
    e.events = events;
    e.data.fd = fd;
    return epoll_ctl(ev->epfd, EPOLL_CTL_MOD, fd, &e);
}

int cm_ev_del_fd(struct cm_ev *ev, int fd)
{
    if (fd < 0 || fd >= ev->nfds)
        return -1;
    ev->fds[fd].fn = NULL;
    return epoll_ctl(ev->epfd, EPOLL_CTL_DEL, fd, NULL);
}

long cm_ev_add_timer(struct cm_ev *ev, int64_t delay_ms, cm_ev_timer_fn fn, void *ud)
{
    struct timer *t;

    if (ev->ntimers == ev->cap_timers) {
        ev->cap_timers = ev->cap_timers ? ev->cap_timers * 2 : 8;
        ev->timers = cm_xrealloc(ev->timers, (size_t)ev->cap_timers * sizeof(*ev->timers));
    }
    t = &ev->timers[ev->ntimers++];
    t->id = ++ev->next_id;
    t->due_ms = cm_ev_now_ms() + (delay_ms > 0 ? delay_ms : 0);
    t->fn = fn;
    t->ud = ud;
    return t->id;
}

void cm_ev_del_timer(struct cm_ev *ev, long id)
{
    for (int i = 0; i < ev->ntimers; i++) {
        if (ev->timers[i].id == id) {
            ev->timers[i] = ev->timers[--ev->ntimers];
            return;
        }
    }
}

static void on_signalfd(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct signalfd_siginfo si;

    (void)events;
    (void)ud;
    while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (ev->sig_fn)
            ev->sig_fn(ev, (int)si.ssi_signo, ev->sig_ud);
    }
}

int cm_ev_add_signals(struct cm_ev *ev, const int *signals, int n, cm_ev_signal_fn fn, void *ud)
{
    sigset_t set;

    sigemptyset(&set);
    for (int i = 0; i < n; i++)
        sigaddset(&set, signals[i]);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
        return -1;
    ev->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (ev->sigfd < 0)
        return -1;
    ev->sig_fn = fn;
    ev->sig_ud = ud;
    return cm_ev_add_fd(ev, ev->sigfd, EPOLLIN, on_signalfd, NULL);
}

void cm_ev_set_hook(struct cm_ev *ev, cm_ev_hook_fn fn, void *ud)
{
    ev->hook = fn;
    ev->hook_ud = ud;
}

void cm_ev_stop(struct cm_ev *ev)
{
    ev->stop = 1;
}

static void run_timers(struct cm_ev *ev, int64_t now)
{
    /* Timers added by callbacks wait for the next round. */
    int n = ev->ntimers;

    for (int i = 0; i < n && i < ev->ntimers; i++) {
        struct timer *t = &ev->timers[i];

        if (t->due_ms <= now) {
            long id = t->id;
            int64_t next = t->fn(ev, now, t->ud);

            /* the array may have moved or shrunk: find the timer again */
            for (int j = 0; j < ev->ntimers; j++) {
                if (ev->timers[j].id != id)
                    continue;
                if (next < 0) {
                    ev->timers[j] = ev->timers[--ev->ntimers];
                    if (j < n)
                        n--;
                    if (j <= i)
                        i--;
                } else {
                    ev->timers[j].due_ms = now + next;
                }
                break;
            }
        }
    }
}

int cm_ev_run(struct cm_ev *ev)
{
    struct epoll_event evs[64];

    ev->stop = 0;
    while (!ev->stop) {
        int64_t now = cm_ev_now_ms();
        int64_t wait = -1;
        int n;

        for (int i = 0; i < ev->ntimers; i++) {
            int64_t d = ev->timers[i].due_ms - now;

            if (d < 0)
                d = 0;
            if (wait < 0 || d < wait)
                wait = d;
        }
        if (ev->hook) {
            int64_t h = ev->hook(ev, 0, now, ev->hook_ud);

            if (h >= 0 && (wait < 0 || h < wait))
                wait = h;
        }
        if (wait > 60000)
            wait = 60000;
        n = epoll_wait(ev->epfd, evs, 64, (int)wait);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;

            if (fd >= 0 && fd < ev->nfds && ev->fds[fd].fn)
                ev->fds[fd].fn(ev, fd, evs[i].events, ev->fds[fd].ud);
        }
        now = cm_ev_now_ms();
        run_timers(ev, now);
        if (ev->hook)
            ev->hook(ev, 1, now, ev->hook_ud);
    }
    return 0;
}
