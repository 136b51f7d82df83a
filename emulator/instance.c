/* emulator/instance.c: see instance.h. */
#include "emulator/instance.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"

extern char **environ;

struct inst {
    struct inst_mgr *m;
    char id[INST_ID_LEN];
    pid_t pid;
    int port;
    int ready_fd; /* our end of the control socket: the port line, then listening sockets */
    int watching; /* ready_fd is on the loop (the port line is not in yet) */
    char line[16];
    size_t line_len;
    int hung;
    int64_t boot_ms;
    long kill_timer; /* SIGKILL due (inst_terminate's bound); 0: none */
};

struct inst_mgr {
    struct cm_ev *ev;
    char *exe;
    inst_event_fn fn;
    void *ud;
    int sigfd;
    struct inst **v;
    int n, cap;
    uint64_t reaped;
    int64_t term_grace_ms;
    double time_scale; /* passed to every child (--time-scale) when not 1 */
};

static int find(const struct inst_mgr *m, const char *id)
{
    for (int i = 0; i < m->n; i++) {
        if (strcmp(m->v[i]->id, id) == 0)
            return i;
    }
    return -1;
}

static int find_pid(const struct inst_mgr *m, pid_t pid)
{
    for (int i = 0; i < m->n; i++) {
        if (m->v[i]->pid == pid)
            return i;
    }
    return -1;
}

/* The port line is in (or the child died booting): stop watching; the socket stays open
 * for inst_add_port. */
static void unwatch_ready(struct inst *in)
{
    if (in->watching) {
        cm_ev_del_fd(in->m->ev, in->ready_fd);
        in->watching = 0;
    }
}

static void close_ready(struct inst *in)
{
    unwatch_ready(in);
    if (in->ready_fd >= 0) {
        close(in->ready_fd);
        in->ready_fd = -1;
    }
}

static void drop(struct inst_mgr *m, int i)
{
    struct inst *in = m->v[i];

    close_ready(in);
    if (in->kill_timer > 0)
        cm_ev_del_timer(m->ev, in->kill_timer);
    free(in);
    m->v[i] = m->v[--m->n];
}

static void on_ready(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct inst *in = ud;
    ssize_t n;

    (void)ev;
    (void)events;
    n = read(fd, in->line + in->line_len, sizeof(in->line) - 1 - in->line_len);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n > 0) {
        in->line_len += (size_t)n;
        in->line[in->line_len] = '\0';
        if (!strchr(in->line, '\n') && in->line_len < sizeof(in->line) - 1)
            return;
        in->port = atoi(in->line);
    }
    /* the line is in, or EOF (the child died booting: SIGCHLD reports it) */
    if (in->port > 0)
        unwatch_ready(in);
    else
        close_ready(in);
    if (in->port > 0) {
        struct inst_mgr *m = in->m;
        char id[INST_ID_LEN];

        memcpy(id, in->id, sizeof(id));
        m->fn(m->ud, id, INST_READY, in->port, 0);
    }
}

/* Reaps every exited child; reports the ones we know. */
static void reap(struct inst_mgr *m, int report)
{
    for (;;) {
        int st = 0;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        int i;

        if (pid <= 0)
            return;
        i = find_pid(m, pid);
        if (i < 0)
            continue;
        m->reaped++;
        if (report) {
            char id[INST_ID_LEN];
            int port = m->v[i]->port;

            memcpy(id, m->v[i]->id, sizeof(id));
            drop(m, i);
            log_debug("inst: exited id=%s pid=%d status=%d", id, (int)pid, st);
            m->fn(m->ud, id, INST_EXITED, port, st);
        } else {
            drop(m, i);
        }
    }
}

static void on_sigchld(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct signalfd_siginfo si;

    (void)ev;
    (void)events;
    while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
        ;
    reap(ud, 1);
}

/* emulator-instance beside our own binary when it is there (small children), else our
 * own binary's `instance` sub-mode. */
static char *default_exe(void)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 32);
    char *slash;

    if (n > 0) {
        self[n] = '\0';
        slash = strrchr(self, '/');
        if (slash) {
            snprintf(slash + 1, sizeof(self) - (size_t)(slash + 1 - self), "emulator-instance");
            if (access(self, X_OK) == 0)
                return cm_xstrdup(self);
        }
    }
    return cm_xstrdup("/proc/self/exe");
}

struct inst_mgr *inst_mgr_create(struct cm_ev *ev, const char *exe, inst_event_fn fn, void *ud)
{
    struct inst_mgr *m;
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
        return NULL;
    m = cm_xcalloc(1, sizeof(*m));
    m->ev = ev;
    m->fn = fn;
    m->ud = ud;
    m->term_grace_ms = INST_TERM_GRACE_MS;
    m->time_scale = 1;
    m->exe = exe ? cm_xstrdup(exe) : default_exe();
    m->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (m->sigfd < 0 || cm_ev_add_fd(ev, m->sigfd, EPOLLIN, on_sigchld, m) < 0) {
        if (m->sigfd >= 0)
            close(m->sigfd);
        free(m->exe);
        free(m);
        return NULL;
    }
    return m;
}

static int alive(const struct inst_mgr *m)
{
    return m->n;
}

void inst_mgr_destroy(struct inst_mgr *m, int64_t grace_ms)
{
    struct timespec ts = { 0, 10 * 1000 * 1000 };

    if (!m)
        return;
    for (int i = 0; i < m->n; i++) {
        kill(-m->v[i]->pid, SIGTERM);
        kill(-m->v[i]->pid, SIGCONT); /* a hung one must run to die of TERM */
    }
    for (int64_t waited = 0; alive(m) && waited < grace_ms; waited += 10) {
        reap(m, 0);
        if (alive(m))
            nanosleep(&ts, NULL);
    }
    for (int i = 0; i < m->n; i++)
        kill(-m->v[i]->pid, SIGKILL);
    while (m->n > 0) {
        int st;
        pid_t pid = m->v[0]->pid;

        if (waitpid(pid, &st, 0) == pid || errno == ECHILD)
            m->reaped += 1;
        drop(m, 0);
    }
    cm_ev_del_fd(m->ev, m->sigfd);
    close(m->sigfd);
    free(m->v);
    free(m->exe);
    free(m);
}

int inst_spawn(struct inst_mgr *m, const char *id, const char *zone, const char *profile_json,
               int64_t boot_ms, char *err, size_t errlen)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, defs;
    int p[2] = { -1, -1 }, wfd = -1, rc;
    char ppid[24], boot[24], scale[32];
    char *argv[24];
    int k = 0;
    pid_t pid;
    struct inst *in;

    if (strlen(id) >= INST_ID_LEN || find(m, id) >= 0) {
        snprintf(err, errlen, "instance id %s is taken or too long", id);
        return -1;
    }
    /* a socket pair rather than a pipe: the child writes its port line, and later gets
     * listening sockets for further instance ports (SCM_RIGHTS, inst_add_port) */
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0)
        goto fail_errno;
    /* keep the write end off fd 3 so the dup2 below really clears its CLOEXEC */
    wfd = fcntl(p[1], F_DUPFD_CLOEXEC, 10);
    close(p[1]);
    p[1] = -1;
    if (wfd < 0)
        goto fail_errno;
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    snprintf(ppid, sizeof(ppid), "%ld", (long)getpid());
    snprintf(boot, sizeof(boot), "%lld", (long long)boot_ms);
    argv[k++] = "emulator";
    argv[k++] = "instance";
    argv[k++] = "--ready-fd";
    argv[k++] = "3";
    argv[k++] = "--parent-pid";
    argv[k++] = ppid;
    argv[k++] = "--id";
    argv[k++] = (char *)id;
    if (zone && *zone) {
        argv[k++] = "--zone";
        argv[k++] = (char *)zone;
    }
    if (boot_ms >= 0) {
        argv[k++] = "--boot-ms";
        argv[k++] = boot;
    }
    if (m->time_scale != 1) {
        snprintf(scale, sizeof(scale), "%.17g", m->time_scale);
        argv[k++] = "--time-scale";
        argv[k++] = scale;
    }
    if (profile_json) {
        argv[k++] = "--profile";
        argv[k++] = (char *)profile_json;
    }
    argv[k] = NULL;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, wfd, 3);
    posix_spawnattr_init(&at);
    sigemptyset(&none);
    sigemptyset(&defs);
    sigaddset(&defs, SIGTERM);
    sigaddset(&defs, SIGINT);
    sigaddset(&defs, SIGCHLD);
    sigaddset(&defs, SIGPIPE);
    sigaddset(&defs, SIGUSR1);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &defs);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETPGROUP);
    rc = posix_spawn(&pid, m->exe, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(wfd);
    if (rc != 0) {
        errno = rc;
        goto fail_errno;
    }
    in = cm_xcalloc(1, sizeof(*in));
    in->m = m;
    snprintf(in->id, sizeof(in->id), "%s", id);
    in->pid = pid;
    in->boot_ms = boot_ms;
    in->ready_fd = p[0];
    in->watching = 1;
    if (cm_ev_add_fd(m->ev, p[0], EPOLLIN, on_ready, in) < 0) {
        close(p[0]);
        in->ready_fd = -1;
        in->watching = 0;
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 16;
        m->v = cm_xrealloc(m->v, (size_t)m->cap * sizeof(*m->v));
    }
    m->v[m->n++] = in;
    log_debug("inst: spawned id=%s pid=%d", id, (int)pid);
    return 0;

fail_errno:
    snprintf(err, errlen, "cannot start instance %s: %s", id, strerror(errno));
    if (p[0] >= 0)
        close(p[0]);
    return -1;
}

static int sig(struct inst_mgr *m, const char *id, int signo)
{
    int i = find(m, id);

    if (i < 0)
        return -1;
    kill(-m->v[i]->pid, signo);
    return 0;
}

int inst_kill(struct inst_mgr *m, const char *id)
{
    return sig(m, id, SIGKILL);
}

void inst_mgr_set_term_grace(struct inst_mgr *m, int64_t grace_ms)
{
    m->term_grace_ms = grace_ms > 0 ? grace_ms : INST_TERM_GRACE_MS;
}

void inst_mgr_set_time_scale(struct inst_mgr *m, double time_scale)
{
    m->time_scale = time_scale > 0 ? time_scale : 1;
}

/* inst_terminate's bound passed and the child is still there: hung in a loop, stopped
 * again, or ignoring SIGTERM. */
static int64_t on_term_grace(struct cm_ev *ev, int64_t now, void *ud)
{
    struct inst *in = ud;

    (void)ev;
    (void)now;
    in->kill_timer = 0;
    log_warn("inst: still running %lld ms after SIGTERM, killing id=%s pid=%d",
             (long long)in->m->term_grace_ms, in->id, (int)in->pid);
    kill(-in->pid, SIGKILL);
    return -1;
}

int inst_terminate(struct inst_mgr *m, const char *id)
{
    int i = find(m, id);
    struct inst *in;

    if (i < 0)
        return -1;
    in = m->v[i];
    kill(-in->pid, SIGTERM);
    /* a stopped child (the hang fault, or SIGSTOP from outside: we cannot tell) keeps
     * SIGTERM pending until it runs again; SIGCONT is harmless to a running one */
    kill(-in->pid, SIGCONT);
    if (in->kill_timer <= 0) {
        in->kill_timer = cm_ev_add_timer(m->ev, m->term_grace_ms, on_term_grace, in);
        if (in->kill_timer <= 0) {
            log_warn("inst: no timer for the SIGKILL bound, killing id=%s now", in->id);
            in->kill_timer = 0;
            kill(-in->pid, SIGKILL);
        }
    }
    return 0;
}

int inst_hang(struct inst_mgr *m, const char *id, int hang)
{
    int i = find(m, id);

    if (i < 0)
        return -1;
    kill(-m->v[i]->pid, hang ? SIGSTOP : SIGCONT);
    m->v[i]->hung = hang != 0;
    return 0;
}

int inst_fault(struct inst_mgr *m, const char *id, const char *query)
{
    int i = find(m, id);
    struct sockaddr_in sa;
    struct timeval tv = { 0, 100000 };
    char req[512];
    int fd, n, rc = -1;

    if (i < 0 || m->v[i]->port <= 0)
        return -1;
    n = snprintf(req, sizeof(req),
                 "GET /_instance/fault?%s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close"
                 "\r\n\r\n",
                 query);
    if (n < 0 || (size_t)n >= sizeof(req))
        return -1;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)m->v[i]->port);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
        send(fd, req, (size_t)n, MSG_NOSIGNAL) == n)
        rc = 0;
    close(fd);
    return rc;
}

int inst_add_port(struct inst_mgr *m, const char *id, char *err, size_t errlen)
{
    int i = find(m, id), fd = -1, port = -1, one = 1;
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);
    struct msghdr mh;
    struct iovec iov;
    char byte = 'L';
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } cm;
    struct cmsghdr *ch;

    if (i < 0 || m->v[i]->port <= 0 || m->v[i]->ready_fd < 0) {
        snprintf(err, errlen, "instance %s is not listening", id);
        return -1;
    }
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        goto fail;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1024) < 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) < 0)
        goto fail;
    memset(&mh, 0, sizeof(mh));
    memset(&cm, 0, sizeof(cm));
    iov.iov_base = &byte;
    iov.iov_len = 1;
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = cm.buf;
    mh.msg_controllen = sizeof(cm.buf);
    ch = CMSG_FIRSTHDR(&mh);
    ch->cmsg_level = SOL_SOCKET;
    ch->cmsg_type = SCM_RIGHTS;
    ch->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(ch), &fd, sizeof(int));
    if (sendmsg(m->v[i]->ready_fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
        goto fail;
    port = ntohs(sa.sin_port);
    close(fd); /* the child holds it now */
    return port;

fail:
    snprintf(err, errlen, "cannot give instance %s another port: %s", id, strerror(errno));
    if (fd >= 0)
        close(fd);
    return -1;
}

int inst_wait_ready(struct inst_mgr *m, int64_t timeout_ms)
{
    int64_t end = cm_ev_now_ms() + timeout_ms;

    for (;;) {
        struct pollfd pf[64];
        struct inst *who[64];
        int n = 0, left = 0;
        int64_t now = cm_ev_now_ms();

        for (int i = 0; i < m->n; i++) {
            if (!m->v[i]->watching || m->v[i]->boot_ms != 0)
                continue;
            left++;
            if (n < 64) {
                pf[n].fd = m->v[i]->ready_fd;
                pf[n].events = POLLIN;
                who[n++] = m->v[i];
            }
        }
        if (left == 0 || now >= end)
            return left;
        if (poll(pf, (nfds_t)n, (int)(end - now)) <= 0)
            continue;
        for (int k = 0; k < n; k++) {
            if (pf[k].revents)
                on_ready(m->ev, pf[k].fd, EPOLLIN, who[k]); /* may call back */
        }
    }
}

int inst_port(const struct inst_mgr *m, const char *id)
{
    int i = find(m, id);

    return i < 0 ? -1 : m->v[i]->port;
}

pid_t inst_pid(const struct inst_mgr *m, const char *id)
{
    int i = find(m, id);

    return i < 0 ? -1 : m->v[i]->pid;
}

int inst_is_hung(const struct inst_mgr *m, const char *id)
{
    int i = find(m, id);

    return i >= 0 && m->v[i]->hung;
}

int inst_count(const struct inst_mgr *m)
{
    return m->n;
}

const char *inst_id_at(const struct inst_mgr *m, int i)
{
    return i >= 0 && i < m->n ? m->v[i]->id : NULL;
}

uint64_t inst_reaped(const struct inst_mgr *m)
{
    return m->reaped;
}
