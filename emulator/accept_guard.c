/* emulator/accept_guard.c: see accept_guard.h. */
#include "emulator/accept_guard.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>

#include "common/log.h"

void accept_guard_init(struct accept_guard *g, struct cm_ev *ev, int fd, cm_ev_fd_fn fn, void *ud,
                       const char *name)
{
    memset(g, 0, sizeof(*g));
    g->ev = ev;
    g->fd = fd;
    g->fn = fn;
    g->ud = ud;
    g->name = name;
    g->pause_ms = ACCEPT_GUARD_MIN_MS;
}

void accept_guard_cleanup(struct accept_guard *g)
{
    if (g->timer)
        cm_ev_del_timer(g->ev, g->timer);
    g->timer = 0;
}

static int64_t on_resume(struct cm_ev *ev, int64_t now, void *ud)
{
    struct accept_guard *g = ud;

    (void)now;
    g->timer = 0;
    if (cm_ev_add_fd(ev, g->fd, EPOLLIN, g->fn, g->ud) < 0)
        log_error("accept: %s: cannot watch the listening socket again: %s", g->name,
                  strerror(errno));
    return -1;
}

int accept_guard_failed(struct accept_guard *g, int err)
{
    int64_t now = cm_ev_now_ms();

    if (err != EMFILE && err != ENFILE && err != ENOBUFS && err != ENOMEM)
        return 0;
    if (g->timer)
        return 1;
    cm_ev_del_fd(g->ev, g->fd);
    g->timer = cm_ev_add_timer(g->ev, g->pause_ms, on_resume, g);
    g->pauses++;
    g->total++;
    if (g->logged_ms == 0 || now - g->logged_ms >= ACCEPT_GUARD_LOG_MS) {
        log_warn("accept: %s: %s: not accepting for %lld ms (%llu pauses since the last line)",
                 g->name, strerror(err), (long long)g->pause_ms, (unsigned long long)g->pauses);
        g->logged_ms = now;
        g->pauses = 0;
    }
    g->pause_ms = g->pause_ms * 2 > ACCEPT_GUARD_MAX_MS ? ACCEPT_GUARD_MAX_MS : g->pause_ms * 2;
    return 1;
}

void accept_guard_ok(struct accept_guard *g)
{
    g->pause_ms = ACCEPT_GUARD_MIN_MS;
}
