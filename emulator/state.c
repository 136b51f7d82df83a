/* emulator/state.c: see state.h. */
#include "emulator/state.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "scaler/hash.h"

#define MAX_WRITERS 8
/* Refuse to read state files over this (a runaway file is not loaded into memory). */
#define MAX_STATE_BYTES (1024L * 1024 * 1024)

struct state {
    char *path;
    char *tmp;
    int dirfd;
    state_snapshot_fn snapshot;
    void *ud;
    struct state_writer writers[MAX_WRITERS];
    int nwriters;
    uint64_t issued;    /* last ticket handed out */
    uint64_t done;      /* tickets <= done are answered */
    uint64_t failed_lo; /* the last failed commit's tickets: failed_lo..failed_hi */
    uint64_t failed_hi;
    int need_snapshot; /* a waiting ticket needs the snapshot */
    int touched;       /* the clock changed the worlds */
    int64_t last_write_ms;
    uint64_t last_sig; /* fingerprint of the last snapshot written, clocks left out */
    int have_sig;
    struct state_stats stats;
    /* the writer thread: one job at a time (loop -> thread: doc; thread -> loop: result) */
    pthread_t thread;
    int thread_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int efd;
    json_t *job_doc; /* owned by the thread once handed over */
    int job_ready, quit;
    int res_ready, res_errno;
    size_t res_bytes;
    double res_ms;
    /* the loop's view of the write in flight */
    int in_flight;
    uint64_t flight_upto;
    double flight_loop_ms;
    int delay_ms; /* SCALELAB_STATE_DELAY_MS: tests widen the window before each write */
};

static int write_atomic(struct state *st, const char *data, size_t n);
static double mono_now_ms(void);

/* The writer thread: serializes the document it is handed and writes it atomically, then
 * wakes the loop through the eventfd. It touches nothing but the job and the files. */
static void *writer_main(void *arg)
{
    struct state *st = arg;

    for (;;) {
        json_t *doc;
        char *data;
        double t0;
        size_t n = 0;
        int e = 0;
        uint64_t one = 1;

        pthread_mutex_lock(&st->mu);
        while (!st->job_ready && !st->quit)
            pthread_cond_wait(&st->cv, &st->mu);
        if (!st->job_ready) {
            pthread_mutex_unlock(&st->mu);
            return NULL;
        }
        doc = st->job_doc;
        st->job_doc = NULL;
        st->job_ready = 0;
        pthread_mutex_unlock(&st->mu);

        if (st->delay_ms > 0) {
            struct timespec d = { st->delay_ms / 1000, (long)(st->delay_ms % 1000) * 1000000L };

            nanosleep(&d, NULL);
        }
        t0 = mono_now_ms();
        data = json_dumps(doc, JSON_COMPACT);
        json_decref(doc);
        if (!data) {
            e = ENOMEM;
        } else {
            n = strlen(data);
            if (write_atomic(st, data, n) < 0)
                e = errno ? errno : EIO;
        }
        free(data);

        pthread_mutex_lock(&st->mu);
        st->res_ready = 1;
        st->res_errno = e;
        st->res_bytes = n;
        st->res_ms = mono_now_ms() - t0;
        pthread_mutex_unlock(&st->mu);
        while (write(st->efd, &one, sizeof(one)) < 0 && errno == EINTR)
            ;
    }
}

/* Starts the writer thread with every signal blocked: the event loop takes SIGCHLD,
 * SIGTERM and SIGINT through signalfd, blocked only in its own thread, so a thread that
 * let them in would swallow an instance's exit (left a zombie) or end the process without
 * the last write. Returns pthread_create's result. */
static int start_writer(struct state *st)
{
    sigset_t all, old;
    int rc;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&st->thread, NULL, writer_main, st);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        errno = rc;
    return rc;
}

struct state *state_create(const char *path, state_snapshot_fn snapshot, void *ud, char *err,
                           size_t errlen)
{
    struct state *st;
    char *dcopy;
    size_t n;

    if (!path || !*path || !snapshot) {
        snprintf(err, errlen, "state: a path and a snapshot function are required");
        return NULL;
    }
    st = cm_xcalloc(1, sizeof(*st));
    st->efd = -1;
    st->path = cm_xstrdup(path);
    n = strlen(path) + 8;
    st->tmp = cm_xmalloc(n);
    snprintf(st->tmp, n, "%s.tmp", path);
    st->snapshot = snapshot;
    st->ud = ud;
    st->last_write_ms = INT64_MIN / 2;
    dcopy = cm_xstrdup(path);
    st->dirfd = open(dirname(dcopy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (st->dirfd < 0) {
        snprintf(err, errlen, "%s: cannot open its directory: %s", path, strerror(errno));
        free(dcopy);
        state_destroy(st);
        return NULL;
    }
    free(dcopy);
    if (getenv("SCALELAB_STATE_DELAY_MS"))
        st->delay_ms = atoi(getenv("SCALELAB_STATE_DELAY_MS"));
    st->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (st->efd < 0 || pthread_mutex_init(&st->mu, NULL) != 0 ||
        pthread_cond_init(&st->cv, NULL) != 0 || start_writer(st) != 0) {
        snprintf(err, errlen, "%s: cannot start the state writer: %s", path, strerror(errno));
        state_destroy(st);
        return NULL;
    }
    st->thread_started = 1;
    return st;
}

void state_destroy(struct state *st)
{
    if (!st)
        return;
    if (st->thread_started) {
        state_drain(st);
        pthread_mutex_lock(&st->mu);
        st->quit = 1;
        pthread_cond_signal(&st->cv);
        pthread_mutex_unlock(&st->mu);
        pthread_join(st->thread, NULL);
        pthread_cond_destroy(&st->cv);
        pthread_mutex_destroy(&st->mu);
    }
    if (st->efd >= 0)
        close(st->efd);
    if (st->dirfd >= 0)
        close(st->dirfd);
    free(st->path);
    free(st->tmp);
    free(st);
}

const char *state_path(const struct state *st)
{
    return st->path;
}

int state_read(const char *path, json_t **doc, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *root = NULL, *v;
    struct stat sb;
    char *data = NULL;
    size_t got = 0;
    int fd, rc = -1;

    *doc = NULL;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        goto out;
    }
    if (sb.st_size > MAX_STATE_BYTES) {
        snprintf(err, errlen, "%s: too large (%lld bytes)", path, (long long)sb.st_size);
        goto out;
    }
    data = cm_xmalloc((size_t)sb.st_size + 1);
    while (got < (size_t)sb.st_size) {
        ssize_t r = read(fd, data + got, (size_t)sb.st_size - got);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            snprintf(err, errlen, "%s: read failed: %s", path, r < 0 ? strerror(errno) : "short");
            goto out;
        }
        got += (size_t)r;
    }
    root = json_loadb(data, got, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        snprintf(err, errlen, "%s: not JSON: line %d column %d: %s", path, jerr.line, jerr.column,
                 jerr.text);
        goto out;
    }
    if (!json_is_object(root)) {
        snprintf(err, errlen, "%s: the state must be a JSON object", path);
        goto out;
    }
    v = json_object_get(root, "version");
    if (!json_is_integer(v)) {
        snprintf(err, errlen, "%s: no \"version\" (not a scalelab state file?)", path);
        goto out;
    }
    if (json_integer_value(v) < STATE_VERSION_MIN || json_integer_value(v) > STATE_VERSION) {
        snprintf(err, errlen, "%s: unknown version %lld (this emulator reads versions %d to %d)",
                 path, (long long)json_integer_value(v), STATE_VERSION_MIN, STATE_VERSION);
        goto out;
    }
    *doc = root;
    root = NULL;
    rc = 1;
out:
    json_decref(root);
    free(data);
    close(fd);
    return rc;
}

int state_add_writer(struct state *st, const struct state_writer *w)
{
    if (st->nwriters == MAX_WRITERS)
        return -1;
    st->writers[st->nwriters++] = *w;
    return 0;
}

void state_reset_writers(struct state *st)
{
    for (int i = 0; i < st->nwriters; i++) {
        if (st->writers[i].reset)
            st->writers[i].reset(st->writers[i].ud);
    }
}

uint64_t state_change(struct state *st, unsigned kind)
{
    if (kind & STATE_SNAPSHOT)
        st->need_snapshot = 1;
    st->stats.tickets++;
    return ++st->issued;
}

void state_touch(struct state *st)
{
    st->touched = 1;
}

uint64_t state_last_ticket(const struct state *st)
{
    return st->issued;
}

enum state_ticket_status state_ticket(const struct state *st, uint64_t ticket)
{
    if (ticket == 0)
        return STATE_DURABLE; /* state_last_ticket before any change: nothing to wait for */
    if (ticket > st->done)
        return STATE_PENDING;
    if (ticket >= st->failed_lo && ticket <= st->failed_hi)
        return STATE_FAILED;
    return STATE_DURABLE;
}

int state_has_waiters(const struct state *st)
{
    return st->issued > st->done;
}

static double mono_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* FILE.tmp, fsync, rename, fsync of the directory. 0 or -1 (errno). */
static int write_atomic(struct state *st, const char *data, size_t n)
{
    int fd = open(st->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int e;

    if (fd < 0)
        return -1;
    if (write_all(fd, data, n) < 0 || fsync(fd) < 0) {
        e = errno;
        close(fd);
        unlink(st->tmp);
        errno = e;
        return -1;
    }
    if (close(fd) < 0 || rename(st->tmp, st->path) < 0) {
        e = errno;
        unlink(st->tmp);
        errno = e;
        return -1;
    }
    return fsync(st->dirfd);
}

/* The clocks every step moves (a world's last step time, the health sweep's next time):
 * left out of the fingerprint that decides whether a clock-driven write is needed. */
static int is_clock_key(const char *k)
{
    return strcmp(k, "last_ms") == 0 || strcmp(k, "last_now_ms") == 0 ||
           strcmp(k, "next_sweep_ms") == 0 || strcmp(k, "now_ms") == 0 ||
           strcmp(k, "saved_at") == 0;
}

/* Order-preserving walk (jansson keeps insertion order): a fingerprint without clocks. */
static uint64_t sig(uint64_t h, const json_t *v)
{
    const char *k;
    json_t *x;
    size_t i;
    char num[40];

    switch (json_typeof(v)) {
    case JSON_OBJECT:
        h = sc_hash_fnv1a_add(h, "{", 1);
        json_object_foreach((json_t *)v, k, x)
        {
            if (is_clock_key(k))
                continue;
            h = sc_hash_fnv1a_add(h, k, strlen(k) + 1);
            h = sig(h, x);
        }
        return sc_hash_fnv1a_add(h, "}", 1);
    case JSON_ARRAY:
        h = sc_hash_fnv1a_add(h, "[", 1);
        json_array_foreach(v, i, x) h = sig(h, x);
        return sc_hash_fnv1a_add(h, "]", 1);
    case JSON_STRING:
        return sc_hash_fnv1a_add(h, json_string_value(v), json_string_length(v) + 1);
    case JSON_INTEGER:
        snprintf(num, sizeof(num), "i%lld", (long long)json_integer_value(v));
        return sc_hash_fnv1a_add(h, num, strlen(num));
    case JSON_REAL:
        snprintf(num, sizeof(num), "r%.17g", json_real_value(v));
        return sc_hash_fnv1a_add(h, num, strlen(num));
    case JSON_TRUE:
        return sc_hash_fnv1a_add(h, "t", 1);
    case JSON_FALSE:
        return sc_hash_fnv1a_add(h, "f", 1);
    case JSON_NULL:
        return sc_hash_fnv1a_add(h, "n", 1);
    }
    return h;
}

/* Marks tickets up to upto done; a failure makes them STATE_FAILED and the change due
 * again (not before a second: a full disk is not retried in a busy loop). */
static void finish(struct state *st, uint64_t upto, int ok, int64_t mono_ms)
{
    if (!ok && upto > st->done) {
        st->failed_lo = st->done + 1;
        st->failed_hi = upto;
        st->touched = 1;
        st->need_snapshot = 1;
        st->have_sig = 0;
        st->last_write_ms = mono_ms;
    }
    if (upto > st->done)
        st->done = upto;
}

int state_commit(struct state *st, int64_t mono_ms)
{
    int waiters = st->issued > st->done;
    int idle_due = st->touched && mono_ms - st->last_write_ms >= STATE_IDLE_WRITE_MS;
    uint64_t upto = st->issued;
    char err[256] = "";
    json_t *doc;
    double t0;

    if (st->in_flight || (!waiters && !idle_due))
        return 0;
    t0 = mono_now_ms();
    for (int i = 0; waiters && i < st->nwriters; i++) {
        if (st->writers[i].sync(st->writers[i].ud, err, sizeof(err)) < 0) {
            log_error("state: %s: sync failed: %s", st->writers[i].name, err);
            finish(st, upto, 0, mono_ms);
            return -1;
        }
    }
    st->stats.commits++;
    if (!st->need_snapshot && !idle_due) {
        finish(st, upto, 1, mono_ms); /* journal only: synced above */
        return 1;
    }
    doc = st->snapshot(st->ud);
    if (!doc) {
        log_error("state: cannot build the snapshot (out of memory)");
        finish(st, upto, 0, mono_ms);
        return -1;
    }
    if (!st->need_snapshot) {
        /* clock-driven: write only when more than clocks moved */
        uint64_t g = sig(SC_HASH_FNV1A_BASIS, doc);

        st->touched = 0;
        if (st->have_sig && g == st->last_sig) {
            json_decref(doc);
            st->last_write_ms = mono_ms; /* looked: the next look is a second away */
            finish(st, upto, 1, mono_ms);
            return 1;
        }
        st->last_sig = g;
        st->have_sig = 1;
    } else {
        st->have_sig = 0; /* not fingerprinted: the next clock-driven commit writes */
    }
    st->need_snapshot = 0;
    st->touched = 0;
    st->last_write_ms = mono_ms;
    st->in_flight = 1;
    st->flight_upto = upto;
    st->flight_loop_ms = mono_now_ms() - t0;
    pthread_mutex_lock(&st->mu);
    st->job_doc = doc;
    st->job_ready = 1;
    pthread_cond_signal(&st->cv);
    pthread_mutex_unlock(&st->mu);
    return 1;
}

int state_event_fd(const struct state *st)
{
    return st->efd;
}

int state_in_flight(const struct state *st)
{
    return st->in_flight;
}

int state_complete(struct state *st)
{
    uint64_t v;
    int ready, e;

    while (read(st->efd, &v, sizeof(v)) < 0 && errno == EINTR)
        ;
    pthread_mutex_lock(&st->mu);
    ready = st->res_ready;
    e = st->res_errno;
    st->res_ready = 0;
    if (ready) {
        st->stats.last_bytes = st->res_bytes;
        st->stats.last_ms = st->res_ms + st->flight_loop_ms;
    }
    pthread_mutex_unlock(&st->mu);
    if (!ready || !st->in_flight)
        return 0;
    st->in_flight = 0;
    if (e) {
        log_error("state: cannot write %s: %s", st->path, strerror(e));
        finish(st, st->flight_upto, 0, st->last_write_ms);
        return 1;
    }
    st->stats.snapshots++;
    st->stats.total_ms += st->stats.last_ms;
    st->stats.loop_ms += st->flight_loop_ms;
    finish(st, st->flight_upto, 1, st->last_write_ms);
    return 1;
}

void state_drain(struct state *st)
{
    while (st->in_flight) {
        struct pollfd p = { st->efd, POLLIN, 0 };

        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            break;
        state_complete(st);
    }
}

int64_t state_next_due_ms(const struct state *st, int64_t mono_ms)
{
    int64_t d;

    if (st->in_flight)
        return -1;
    if (st->issued > st->done)
        return 0;
    if (!st->touched)
        return -1;
    d = st->last_write_ms + STATE_IDLE_WRITE_MS - mono_ms;
    return d < 0 ? 0 : d;
}

void state_get_stats(const struct state *st, struct state_stats *out)
{
    *out = st->stats;
}
