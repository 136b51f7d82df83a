/* emulator/instance_main.c: the emulated instance's server; see instance_main.h. */
#include "emulator/instance_main.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "common/ev.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "emulator/accept_guard.h"
#include "emulator/app.h"
#include "emulator/lb_http.h"
#include "scaler/app.h"

#define IN_CAP  16384
#define OUT_CAP 4096

enum kind {
    KIND_ROOT,
    KIND_CPU,
    KIND_SOAP,
};

enum cstate {
    C_READING, /* waiting for a complete request */
    C_QUEUED,  /* waiting for a worker */
    C_WORKING, /* a worker serves it (timer) */
    C_WRITING, /* response partly written */
};

#define LIS_MAX 32

/* one listening socket: the instance's own port, or one handed over for an InstancePort */
struct lsock {
    struct app *app;
    int fd;
    int port;
    uint64_t requests;
    struct accept_guard guard; /* out of fds: accepting pauses */
    int ufd;                   /* the UDP echo on the same port number (-1: none) */
};

struct conn {
    struct app *app;
    struct lsock *ls; /* where it was accepted */
    int fd;           /* -1 once the client is gone (the conn lives until its work ends) */
    enum cstate state;
    uint32_t events;
    char in[IN_CAP];
    size_t in_len;
    char out[OUT_CAP];
    size_t out_len, out_off;
    struct lb_http_msg msg;
    struct lb_http_chunked ch;
    size_t body_seen; /* chunked body bytes scanned so far */
    size_t req_len;   /* head + body of the current request */
    enum kind kind;
    int keep_alive;
    int minor;
    int64_t started_ms;
    int64_t due_ms; /* when its service time ends (the timer may fire later) */
    struct conn *qnext;
    struct conn *prev, *next; /* every conn, for the exit sweep */
};

struct app {
    struct cm_ev *ev;
    struct sc_app prof;
    struct sc_rng rng;
    int lfd;
    int port;
    struct lsock lis[LIS_MAX]; /* lis[0] is lfd's */
    int nlis;
    int ctl_fd; /* the control socket once the port line is written (-1: none) */
    const char *port_file;
    int ready_fd;
    const char *id;
    const char *zone;
    char who[128]; /* "X-Scalelab-Instance: <id> <zone>\r\n" on every reply ("" without --id) */
    char name[96]; /* the default body: "<id> <zone>\n" ("ok\n" without --id) */
    int64_t start_ms;
    double time_scale; /* the emulator's clock: emulated ms per real ms (--time-scale) */
    double carry_ms;   /* service time not yet given to a timer (ms rounding) */
    struct sc_app_busy busy;
    struct conn *qhead, *qtail;
    struct conn *all;
    int queued;
    int in_flight; /* queued + working */
    int nconns;
    uint64_t requests, errors, rejected;
    int fail_health;
};

static int64_t now_ms(void)
{
    return cm_ev_now_ms();
}

static void conn_free(struct conn *c)
{
    if (c->fd >= 0) {
        cm_ev_del_fd(c->app->ev, c->fd);
        close(c->fd);
    }
    c->app->nconns--;
    if (c->prev)
        c->prev->next = c->next;
    else
        c->app->all = c->next;
    if (c->next)
        c->next->prev = c->prev;
    free(c);
}

/* The client is gone: close the socket now; the struct goes when no worker holds it. */
static void conn_drop(struct conn *c)
{
    if (c->state == C_QUEUED || c->state == C_WORKING) {
        if (c->fd >= 0) {
            cm_ev_del_fd(c->app->ev, c->fd);
            close(c->fd);
            c->fd = -1;
        }
        return;
    }
    conn_free(c);
}

static void set_events(struct conn *c, uint32_t events)
{
    if (c->fd >= 0 && events != c->events) {
        cm_ev_mod_fd(c->app->ev, c->fd, events);
        c->events = events;
    }
}

/* Read interest unless the buffer is full; write interest while output is pending. */
static void update_events(struct conn *c)
{
    uint32_t e = 0;

    if (c->in_len < IN_CAP)
        e |= EPOLLIN | EPOLLRDHUP;
    if (c->state == C_WRITING)
        e |= EPOLLOUT;
    set_events(c, e);
}

static void process(struct conn *c);

/* Writes what is pending; on completion the request's bytes leave the input buffer and
 * the next one (pipelined) is looked at. Returns -1 when the conn was freed. */
static int flush_out(struct conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            c->state = C_WRITING;
            update_events(c);
            return 0;
        }
        if (n <= 0) {
            conn_free(c);
            return -1;
        }
        c->out_off += (size_t)n;
    }
    c->out_len = c->out_off = 0;
    if (c->req_len > c->in_len)
        c->req_len = c->in_len;
    memmove(c->in, c->in + c->req_len, c->in_len - c->req_len);
    c->in_len -= c->req_len;
    c->req_len = 0;
    c->state = C_READING;
    if (!c->keep_alive) {
        conn_free(c);
        return -1;
    }
    update_events(c);
    return 0;
}

/* The reply with extra header lines (each ending in CRLF; NULL: the instance's own). */
static void respond_extra(struct conn *c, int status, const char *ctype, const char *extra,
                          const char *body, size_t blen)
{
    ssize_t n;

    if (c->fd < 0) {
        conn_free(c);
        return;
    }
    n = lb_http_format_response(c->out, sizeof(c->out), status, ctype,
                                extra            ? extra
                                : c->app->who[0] ? c->app->who
                                                 : NULL,
                                body, blen, !c->keep_alive, c->minor);
    if (n < 0) {
        c->keep_alive = 0;
        n = lb_http_format_response(c->out, sizeof(c->out), 500, NULL, NULL, "", 0, 1, c->minor);
    }
    if (c->msg.is_head && n > 0)
        n -= (ssize_t)blen; /* HEAD: the head only */
    c->out_len = (size_t)n;
    c->out_off = 0;
    c->state = C_WRITING;
    if (flush_out(c) == 0 && c->state == C_READING)
        process(c);
}

static void respond(struct conn *c, int status, const char *ctype, const char *body, size_t blen)
{
    respond_extra(c, status, ctype, NULL, body, blen);
}

static void start_work(struct conn *c);

static void run_queue(struct app *a)
{
    while (a->qhead && a->busy.busy < a->prof.workers) {
        struct conn *c = a->qhead;

        a->qhead = c->qnext;
        if (!a->qhead)
            a->qtail = NULL;
        a->queued--;
        if (c->fd < 0) {
            a->in_flight--;
            conn_free(c);
            continue;
        }
        start_work(c);
    }
}

static void finish_work(struct conn *c)
{
    struct app *a = c->app;
    char body[APP_SOAP_REPLY_LEN + 1];
    int n;

    sc_app_busy_change(&a->busy, now_ms(), -1);
    a->in_flight--;
    a->requests++;
    if (c->fd < 0) {
        conn_free(c);
    } else if (a->prof.error_rate > 0 && sc_rng_double(&a->rng) < a->prof.error_rate) {
        a->errors++;
        respond(c, 500, NULL, "error\n", 6);
    } else if (c->kind == KIND_SOAP) {
        n = app_soap_add(c->in + c->msg.head_len, c->req_len - c->msg.head_len, body, sizeof(body));
        if (n < 0) {
            /* no two numbers (e.g. GET /soap): the reply for 0 + 0 */
            n = app_soap_add("<a>0</a><b>0</b>", 16, body, sizeof(body));
        }
        respond(c, 200, "application/soap+xml; charset=UTF-8", body, (size_t)n);
    } else if (c->kind == KIND_CPU) {
        respond(c, 200, NULL, "cpu\n", 4);
    } else {
        /* the default reply names the instance: curl through a load balancer shows who */
        respond(c, 200, NULL, a->name, strlen(a->name));
    }
    run_queue(a);
}

static int64_t on_work_done(struct cm_ev *ev, int64_t now, void *ud)
{
    struct conn *c = ud;

    (void)ev;
    (void)now;
    /* a timer that fired late (a loaded host) made the worker busy longer than its
     * service time: the next service is that much shorter, so that busy time and
     * throughput stay the profile's (what matters when service times are compressed to a
     * few real ms) */
    if (c->app->prof.time_scaled && now_ms() > c->due_ms)
        c->app->carry_ms -= (double)(now_ms() - c->due_ms);
    finish_work(c);
    return -1;
}

static void burn_cpu_ms(double ms)
{
    struct timespec t0, t;
    double el;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (volatile int i = 0; i < 1000; i++)
            ;
        clock_gettime(CLOCK_MONOTONIC, &t);
        el = (double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6;
    } while (el < ms);
}

/* Real ms for emulated ms of the profile: divided by the clock's scale when the profile
 * says its times pass on the emulated clock (time_scaled), else as they are. */
static double real_ms(const struct app *a, double ms)
{
    return a->prof.time_scaled ? ms / a->time_scale : ms;
}

static void start_work(struct conn *c)
{
    struct app *a = c->app;
    double st = real_ms(a, sc_app_batch_service_time(&a->prof, &a->rng, 1.0) * a->prof.slow);
    int64_t delay;

    c->state = C_WORKING;
    c->started_ms = now_ms();
    sc_app_busy_change(&a->busy, c->started_ms, +1);
    if (c->kind == KIND_CPU) {
        burn_cpu_ms(st);
        finish_work(c);
        return;
    }
    if (a->prof.cpu_ms > 0)
        burn_cpu_ms(real_ms(a, a->prof.cpu_ms * a->prof.batch));
    if (a->prof.time_scaled) {
        /* compressed service times are a few real ms and the timer has ms steps: the
         * rounding (and any lateness, on_work_done) is carried over, so that the
         * instance's busy time is the sum of its service times, not of their roundings */
        st += a->carry_ms;
        delay = st > 0 ? (int64_t)(st + 0.5) : 0;
        a->carry_ms = st - (double)delay;
        if (a->carry_ms < -1000)
            a->carry_ms = -1000; /* a host stalled for seconds: not repaid beyond a second */
    } else {
        delay = (int64_t)(st + 0.5);
    }
    c->due_ms = c->started_ms + delay;
    if (delay <= 0) {
        finish_work(c);
        return;
    }
    cm_ev_add_timer(a->ev, delay, on_work_done, c);
}

static int path_is(const struct conn *c, const char *p)
{
    size_t n = strlen(p);
    const char *t = c->in + c->msg.target_off;
    size_t tl = c->msg.target_len;

    return tl >= n && memcmp(t, p, n) == 0 && (tl == n || t[n] == '?');
}

/* A string for JSON: Jansson takes only UTF-8, so other bytes become '?'. */
static json_t *jstr(const char *s)
{
    json_t *j = json_string(s);
    char *t;

    if (j)
        return j;
    t = cm_xstrdup(s);
    for (char *p = t; *p; p++) {
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    }
    j = json_string(t);
    free(t);
    return j;
}

/* A figure for JSON, to 3 decimals: JSON has no nan or inf, so those become null (the
 * parsers below never let one in; this is the last guard). */
static json_t *jnum(double d)
{
    return isfinite(d) ? json_real(round(d * 1000.0) / 1000.0) : json_null();
}

/* Answers code with body o (consumed) as one line of compact JSON. */
static void respond_json(struct conn *c, int code, json_t *o)
{
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(15)) : NULL;

    json_decref(o);
    if (!s) {
        static const char oom[] = "{\"error\":\"out of memory\"}\n";

        respond(c, 500, "application/json", oom, sizeof(oom) - 1);
        return;
    }
    s = cm_xrealloc(s, strlen(s) + 2);
    strcat(s, "\n");
    respond(c, code, "application/json", s, strlen(s));
    free(s);
}

static void serve_status(struct conn *c)
{
    struct app *a = c->app;
    int64_t now = now_ms();
    int64_t up = now - a->start_ms;
    double busy = sc_app_busy_total_ms(&a->busy, now);
    struct rusage ru;
    double cpu_time_ms;
    json_t *o = json_object(), *ports = json_array();

    getrusage(RUSAGE_SELF, &ru);
    cpu_time_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                  (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    json_object_set_new(o, "id", jstr(a->id ? a->id : ""));
    json_object_set_new(o, "pid", json_integer((json_int_t)getpid()));
    json_object_set_new(o, "port", json_integer(a->port));
    json_object_set_new(o, "uptime_ms", json_integer((json_int_t)up));
    json_object_set_new(o, "workers", json_integer(a->prof.workers));
    json_object_set_new(o, "busy", json_integer(a->busy.busy));
    json_object_set_new(o, "queued", json_integer(a->queued));
    json_object_set_new(o, "in_flight", json_integer(a->in_flight));
    json_object_set_new(o, "connections", json_integer(a->nconns));
    json_object_set_new(o, "requests", json_integer((json_int_t)a->requests));
    json_object_set_new(o, "errors", json_integer((json_int_t)a->errors));
    json_object_set_new(o, "rejected", json_integer((json_int_t)a->rejected));
    json_object_set_new(o, "busy_ms", jnum(busy));
    json_object_set_new(o, "cpu_pct", jnum(sc_app_cpu_pct(&a->prof, busy, (double)up)));
    json_object_set_new(o, "cpu_time_ms", jnum(cpu_time_ms));
    json_object_set_new(o, "slow", jnum(a->prof.slow));
    json_object_set_new(o, "error_rate", jnum(a->prof.error_rate));
    json_object_set_new(o, "fail_health", json_boolean(a->fail_health));
    json_object_set_new(o, "max_rss_kb", json_integer((json_int_t)ru.ru_maxrss));
    for (int i = 0; i < a->nlis; i++) {
        json_t *p = json_object();

        json_object_set_new(p, "port", json_integer(a->lis[i].port));
        json_object_set_new(p, "requests", json_integer((json_int_t)a->lis[i].requests));
        json_array_append_new(ports, p);
    }
    json_object_set_new(o, "ports", ports);
    respond_json(c, 200, o);
}

/* A plain decimal number within lo..hi: no nan, inf, hex or empty string. */
static int fault_number(const char *v, double lo, double hi, double *out)
{
    char *end;
    double d;

    if (!*v || strspn(v, "0123456789.eE+-") != strlen(v))
        return -1;
    d = strtod(v, &end);
    if (*end || !isfinite(d) || d < lo || d > hi)
        return -1;
    *out = d;
    return 0;
}

int instance_fault_parse(const char *q, size_t len, struct instance_fault *f, char *msg,
                         size_t msglen)
{
    const char *end = q + len;
    struct instance_fault t = *f;

    while (q < end) {
        const char *amp = memchr(q, '&', (size_t)(end - q));
        const char *e = amp ? amp : end;
        const char *eq = memchr(q, '=', (size_t)(e - q));
        char key[32], v[64];
        size_t kl, vl;

        if (e == q) {
            q = e + 1;
            continue;
        }
        kl = (size_t)((eq ? eq : e) - q);
        vl = eq ? (size_t)(e - eq - 1) : 0;
        if (kl >= sizeof(key))
            kl = sizeof(key) - 1; /* a long key is named cut short in the error */
        memcpy(key, q, kl);
        key[kl] = '\0';
        if (!eq || vl >= sizeof(v)) {
            snprintf(msg, msglen, "fault %s needs a value (at most 63 bytes)", key);
            return -1;
        }
        memcpy(v, eq + 1, vl);
        v[vl] = '\0';
        if (strcmp(key, "slow") == 0) {
            if (fault_number(v, 0, 1000, &t.slow) < 0) {
                snprintf(msg, msglen, "slow must be a number from 0 to 1000, not '%s'", v);
                return -1;
            }
        } else if (strcmp(key, "error_rate") == 0) {
            if (fault_number(v, 0, 1, &t.error_rate) < 0) {
                snprintf(msg, msglen, "error_rate must be a number from 0 to 1, not '%s'", v);
                return -1;
            }
        } else if (strcmp(key, "fail_health") == 0) {
            if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0) {
                t.fail_health = 1;
            } else if (strcmp(v, "0") == 0 || strcmp(v, "false") == 0) {
                t.fail_health = 0;
            } else {
                snprintf(msg, msglen, "fail_health must be 0, 1, true or false, not '%s'", v);
                return -1;
            }
        } else {
            snprintf(msg, msglen, "unknown fault '%s' (slow, error_rate, fail_health)", key);
            return -1;
        }
        q = e + 1;
    }
    *f = t;
    return 0;
}

/* /_instance/fault?slow=K&error_rate=P&fail_health=0|1: every pair is checked before any
 * applies; an unknown key or a value out of range answers 400 naming it. */
static void serve_fault(struct conn *c)
{
    struct app *a = c->app;
    const char *t = c->in + c->msg.target_off;
    const char *end = t + c->msg.target_len;
    const char *q = memchr(t, '?', c->msg.target_len);
    struct instance_fault f = { a->prof.slow, a->prof.error_rate, a->fail_health };
    char msg[256];

    q = q ? q + 1 : end;
    if (instance_fault_parse(q, (size_t)(end - q), &f, msg, sizeof(msg)) < 0)
        goto refused;
    a->prof.slow = f.slow;
    a->prof.error_rate = f.error_rate;
    a->fail_health = f.fail_health;
    log_info("instance: fault slow=%g error_rate=%g fail_health=%d", a->prof.slow,
             a->prof.error_rate, a->fail_health);
    serve_status(c);
    return;

refused:
    /* 400 {"error": msg}: refused as a whole, nothing changed */
    log_warn("instance: fault refused: %s", msg);
    respond_json(c, 400, json_pack("{s:o}", "error", jstr(msg)));
}

static int is_xml_post(const struct conn *c)
{
    int i;

    if (c->msg.method_len != 4 || memcmp(c->in + c->msg.method_off, "POST", 4) != 0)
        return 0;
    i = lb_http_header_find(c->in, &c->msg, "Content-Type");
    if (i < 0)
        return 0;
    for (uint32_t k = 0; k + 3 <= c->msg.headers[i].value_len; k++) {
        if (memcmp(c->in + c->msg.headers[i].value_off + k, "xml", 3) == 0)
            return 1;
    }
    return 0;
}

static void dispatch(struct conn *c)
{
    struct app *a = c->app;

    if (c->ls)
        c->ls->requests++;

    if (path_is(c, "/_instance/status")) {
        serve_status(c);
        return;
    }
    if (path_is(c, "/_instance/fault")) {
        serve_fault(c);
        return;
    }
    if (c->msg.target_len > 18 &&
        memcmp(c->in + c->msg.target_off, "/_instance/cookie/", 18) == 0) {
        /* sets the application cookie NAME (tests of app-cookie stickiness) */
        const char *nm = c->in + c->msg.target_off + 18;
        size_t nl = 0;
        char extra[512];

        while (18 + nl < c->msg.target_len && nl < 64 && nm[nl] != '?' && nm[nl] != '/')
            nl++;
        snprintf(extra, sizeof(extra), "%sSet-Cookie: %.*s=%s; Path=/\r\n", a->who, (int)nl, nm,
                 a->id ? a->id : "x");
        respond_extra(c, 200, NULL, extra, a->name, strlen(a->name));
        return;
    }
    if (path_is(c, "/_instance/echo")) {
        /* the request head as received (proxies' header rewriting is visible) */
        size_t n = c->msg.head_len < OUT_CAP - 256 ? c->msg.head_len : OUT_CAP - 256;
        char head[OUT_CAP];

        memcpy(head, c->in, n);
        respond(c, 200, NULL, head, n);
        return;
    }
    if (path_is(c, "/health") || path_is(c, a->prof.health_path)) {
        if (a->fail_health)
            respond(c, 500, NULL, "unhealthy\n", 10);
        else
            respond(c, 200, NULL, "ok\n", 3);
        return;
    }
    if (path_is(c, "/cpu"))
        c->kind = KIND_CPU;
    else if (is_xml_post(c) || path_is(c, "/soap") ||
             (c->msg.target_len > 10 && memcmp(c->in + c->msg.target_off, "/services/", 10) == 0))
        c->kind = KIND_SOAP;
    else
        c->kind = KIND_ROOT;
    if (a->busy.busy < a->prof.workers && !a->qhead) {
        a->in_flight++;
        start_work(c);
        return;
    }
    if (a->queued >= a->prof.queue_limit) {
        a->rejected++;
        respond(c, 503, NULL, "busy\n", 5);
        return;
    }
    c->state = C_QUEUED;
    c->qnext = NULL;
    if (a->qtail)
        a->qtail->qnext = c;
    else
        a->qhead = c;
    a->qtail = c;
    a->queued++;
    a->in_flight++;
    update_events(c);
}

/* Looks for a complete request in the input buffer and handles it. */
static void process(struct conn *c)
{
    enum lb_http_result r;
    enum lb_http_body body;

    if (c->state != C_READING || c->in_len == 0)
        return;
    r = lb_http_parse_request(c->in, c->in_len, &c->msg);
    if (r == LB_HTTP_PARTIAL) {
        update_events(c);
        return;
    }
    c->minor = r == LB_HTTP_OK ? c->msg.minor : 1;
    if (r != LB_HTTP_OK) {
        c->keep_alive = 0;
        c->req_len = c->in_len;
        c->msg.is_head = 0;
        respond(c, r == LB_HTTP_TOO_LARGE ? 431 : 400, NULL, "bad request\n", 12);
        return;
    }
    c->keep_alive = c->msg.keep_alive;
    body = lb_http_request_body(&c->msg);
    if (body == LB_HTTP_BODY_LENGTH) {
        if ((uint64_t)c->msg.content_length > IN_CAP - c->msg.head_len) {
            c->keep_alive = 0;
            c->req_len = c->in_len;
            respond(c, 413, NULL, "too large\n", 10);
            return;
        }
        if (c->in_len < c->msg.head_len + (size_t)c->msg.content_length) {
            update_events(c);
            return;
        }
        c->req_len = c->msg.head_len + (size_t)c->msg.content_length;
    } else if (body == LB_HTTP_BODY_CHUNKED) {
        int done = 0;
        ssize_t n;

        if (c->body_seen == 0)
            lb_http_chunked_init(&c->ch);
        n = lb_http_chunked_scan(&c->ch, c->in + c->msg.head_len + c->body_seen,
                                 c->in_len - c->msg.head_len - c->body_seen, &done);
        if (n < 0) {
            c->keep_alive = 0;
            c->req_len = c->in_len;
            respond(c, 400, NULL, "bad chunked body\n", 17);
            return;
        }
        c->body_seen += (size_t)n;
        if (!done) {
            if (c->in_len == IN_CAP) {
                c->keep_alive = 0;
                c->req_len = c->in_len;
                respond(c, 413, NULL, "too large\n", 10);
                return;
            }
            update_events(c);
            return;
        }
        c->req_len = c->msg.head_len + c->body_seen;
        c->body_seen = 0;
    } else {
        c->req_len = c->msg.head_len;
    }
    dispatch(c);
}

static void on_conn(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct conn *c = ud;

    (void)ev;
    (void)fd;
    if (events & EPOLLOUT && c->state == C_WRITING) {
        if (flush_out(c) < 0)
            return;
        if (c->state == C_READING)
            process(c);
        return;
    }
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
        ssize_t n;

        if (c->in_len == IN_CAP) {
            update_events(c);
            return;
        }
        n = recv(c->fd, c->in + c->in_len, IN_CAP - c->in_len, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (n <= 0) {
            conn_drop(c);
            return;
        }
        c->in_len += (size_t)n;
        if (c->state == C_READING)
            process(c);
        else
            update_events(c);
    }
}

static void on_accept(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct lsock *ls = ud;
    struct app *a = ls->app;

    (void)events;
    for (int k = 0; k < 64; k++) {
        int one = 1;
        int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        struct conn *c;

        if (cfd < 0) {
            accept_guard_failed(&ls->guard, errno); /* out of fds: paused, logged */
            return;
        }
        accept_guard_ok(&ls->guard);
        setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        c = cm_xmalloc(sizeof(*c));
        c->app = a;
        c->ls = ls;
        c->fd = cfd;
        c->state = C_READING;
        c->events = EPOLLIN | EPOLLRDHUP;
        c->in_len = c->out_len = c->out_off = c->req_len = c->body_seen = 0;
        c->qnext = NULL;
        if (cm_ev_add_fd(ev, cfd, c->events, on_conn, c) < 0) {
            close(cfd);
            free(c);
            continue;
        }
        a->nconns++;
        c->prev = NULL;
        c->next = a->all;
        if (a->all)
            a->all->prev = c;
        a->all = c;
    }
}

static void ctl_close(struct app *a)
{
    if (a->ctl_fd >= 0) {
        cm_ev_del_fd(a->ev, a->ctl_fd);
        close(a->ctl_fd);
        a->ctl_fd = -1;
    }
}

/* The UDP echo (NLB UDP and TCP_UDP listeners, docs/elbv2.md 10.5): each datagram comes
 * back to its sender as "<id> <zone> " and the payload (cut at 2 KiB), so a client tells
 * the instance that answered. Bounded per readiness event. */
static void on_udp(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct lsock *ls = ud;
    struct app *a = ls->app;
    char in[2048], out[2048 + sizeof(a->name)];

    (void)ev;
    (void)events;
    for (int k = 0; k < 64; k++) {
        struct sockaddr_in from;
        socklen_t fl = sizeof(from);
        ssize_t n = recvfrom(fd, in, sizeof(in), 0, (struct sockaddr *)&from, &fl);
        size_t h = strlen(a->name);

        if (n < 0)
            return;
        ls->requests++;
        /* the name ends in a newline: the payload follows a space instead */
        memcpy(out, a->name, h);
        if (h > 0 && out[h - 1] == '\n')
            out[h - 1] = ' ';
        memcpy(out + h, in, (size_t)n);
        sendto(fd, out, h + (size_t)n, 0, (struct sockaddr *)&from, fl);
    }
}

/* Binds the UDP echo on ls's port number; a port taken in UDP leaves the instance TCP only
 * (logged). */
static void udp_echo_open(struct app *a, struct lsock *ls)
{
    struct sockaddr_in sa;

    ls->ufd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (ls->ufd < 0)
        return;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)ls->port);
    if (bind(ls->ufd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        cm_ev_add_fd(a->ev, ls->ufd, EPOLLIN, on_udp, ls) < 0) {
        log_warn("instance: no UDP echo on port %d: %s", ls->port, strerror(errno));
        close(ls->ufd);
        ls->ufd = -1;
    }
}

/* A listening socket from the emulator (SCM_RIGHTS): one more port served like ours. A
 * pipe (older parents) or EOF ends the control channel. */
static void on_ctl(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct app *a = ud;
    char byte;
    struct iovec iov = { &byte, 1 };
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(4 * sizeof(int))];
    } cm;
    struct msghdr mh;
    struct cmsghdr *ch;
    ssize_t n;

    (void)events;
    memset(&mh, 0, sizeof(mh));
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = cm.buf;
    mh.msg_controllen = sizeof(cm.buf);
    n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        ctl_close(a);
        return;
    }
    for (ch = CMSG_FIRSTHDR(&mh); ch; ch = CMSG_NXTHDR(&mh, ch)) {
        size_t nfd;

        if (ch->cmsg_level != SOL_SOCKET || ch->cmsg_type != SCM_RIGHTS)
            continue;
        nfd = (ch->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t k = 0; k < nfd; k++) {
            struct sockaddr_in sa;
            socklen_t sl = sizeof(sa);
            struct lsock *ls;
            int lfd;

            memcpy(&lfd, CMSG_DATA(ch) + k * sizeof(int), sizeof(int));
            if (a->nlis == LIS_MAX || getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0) {
                close(lfd);
                continue;
            }
            fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
            ls = &a->lis[a->nlis];
            ls->app = a;
            ls->fd = lfd;
            ls->port = ntohs(sa.sin_port);
            ls->requests = 0;
            if (cm_ev_add_fd(ev, lfd, EPOLLIN, on_accept, ls) < 0) {
                close(lfd);
                continue;
            }
            accept_guard_init(&ls->guard, ev, lfd, on_accept, ls, "instance port");
            udp_echo_open(a, ls);
            a->nlis++;
            log_debug("instance: listening id=%s port=%d (handed over)", a->id ? a->id : "-",
                      ls->port);
        }
    }
}

static int write_port_file(const char *path, int port)
{
    char tmp[4096];
    FILE *f;

    if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
        return -1;
    f = fopen(tmp, "we");
    if (!f)
        return -1;
    fprintf(f, "%d\n", port);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int start_listening(struct app *a)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);
    int one = 1;

    a->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (a->lfd < 0)
        return -1;
    setsockopt(a->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)a->port);
    if (bind(a->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(a->lfd, 1024) < 0 ||
        getsockname(a->lfd, (struct sockaddr *)&sa, &sl) < 0)
        return -1;
    a->port = ntohs(sa.sin_port);
    a->lis[0].app = a;
    a->lis[0].fd = a->lfd;
    a->lis[0].port = a->port;
    a->nlis = 1;
    if (cm_ev_add_fd(a->ev, a->lfd, EPOLLIN, on_accept, &a->lis[0]) < 0)
        return -1;
    accept_guard_init(&a->lis[0].guard, a->ev, a->lfd, on_accept, &a->lis[0], "instance");
    udp_echo_open(a, &a->lis[0]);
    if (a->port_file && write_port_file(a->port_file, a->port) < 0) {
        log_error("instance: cannot write port file %s: %s", a->port_file, strerror(errno));
        return -1;
    }
    if (a->ready_fd >= 0) {
        char line[16];
        int n = snprintf(line, sizeof(line), "%d\n", a->port);

        if (write(a->ready_fd, line, (size_t)n) != n)
            log_warn("instance: ready fd write failed");
        /* a socket: the emulator may hand over more listening sockets on it */
        if (cm_ev_add_fd(a->ev, a->ready_fd, EPOLLIN, on_ctl, a) == 0)
            a->ctl_fd = a->ready_fd;
        else
            close(a->ready_fd);
        a->ready_fd = -1;
    }
    log_debug("instance: listening id=%s port=%d", a->id ? a->id : "-", a->port);
    return 0;
}

static int64_t on_booted(struct cm_ev *ev, int64_t now, void *ud)
{
    struct app *a = ud;

    (void)now;
    if (start_listening(a) < 0) {
        log_error("instance: cannot listen on 127.0.0.1:%d: %s", a->port, strerror(errno));
        cm_ev_stop(ev);
        a->port = -1;
    }
    return -1;
}

static void on_signal(struct cm_ev *ev, int signo, void *ud)
{
    (void)signo;
    (void)ud;
    cm_ev_stop(ev);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: emulator instance [--port N] [--port-file F] [--ready-fd N]\n"
               "         [--profile JSON] [--boot-ms MS] [--parent-pid PID] [--id ID]\n"
               "         [--zone ZONE] [--time-scale N]\n"
               "         [--log-level error|warn|info|debug]\n");
}

int instance_main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "port", required_argument, NULL, 'p' },
        { "port-file", required_argument, NULL, 'f' },
        { "ready-fd", required_argument, NULL, 'r' },
        { "profile", required_argument, NULL, 'P' },
        { "boot-ms", required_argument, NULL, 'b' },
        { "parent-pid", required_argument, NULL, 'q' },
        { "id", required_argument, NULL, 'i' },
        { "zone", required_argument, NULL, 'z' },
        { "time-scale", required_argument, NULL, 't' },
        { "log-level", required_argument, NULL, 'l' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct app a;
    char err[256];
    long boot_ms = -1, parent = 0;
    enum cm_log_level lvl = CM_LOG_WARN;
    int sigs[] = { SIGTERM, SIGINT };
    int c, rc = 1;

    memset(&a, 0, sizeof(a));
    a.lfd = -1;
    a.ready_fd = -1;
    a.ctl_fd = -1;
    a.time_scale = 1;
    sc_app_defaults(&a.prof);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        char *end = NULL;

        switch (c) {
        case 'p':
            a.port = (int)strtol(optarg, &end, 10);
            if (*end || a.port < 0 || a.port > 65535)
                goto bad;
            break;
        case 'f':
            a.port_file = optarg;
            break;
        case 'r':
            a.ready_fd = (int)strtol(optarg, &end, 10);
            if (*end || a.ready_fd < 0)
                goto bad;
            break;
        case 'P':
            if (sc_app_parse_text(&a.prof, optarg, err, sizeof(err)) != SC_OK) {
                fprintf(stderr, "emulator instance: bad --profile: %s\n", err);
                return 2;
            }
            break;
        case 'b':
            boot_ms = strtol(optarg, &end, 10);
            if (*end || boot_ms < 0)
                goto bad;
            break;
        case 'q':
            parent = strtol(optarg, &end, 10);
            if (*end || parent <= 0)
                goto bad;
            break;
        case 'i':
            a.id = optarg;
            break;
        case 'z':
            a.zone = optarg;
            break;
        case 't':
            a.time_scale = strtod(optarg, &end);
            if (end == optarg || *end || !(a.time_scale > 0) || a.time_scale > 1e6)
                goto bad;
            break;
        case 'l':
            if (cm_log_level_parse(optarg, &lvl) < 0)
                goto bad;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            goto bad;
        }
    }
    if (optind != argc)
        goto bad;
    if (a.id &&
        strspn(a.id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") ==
            strlen(a.id) &&
        strlen(a.id) < 48 &&
        (!a.zone || (strlen(a.zone) < 40 &&
                     strspn(a.zone, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(a.zone)))) {
        snprintf(a.who, sizeof(a.who), "X-Scalelab-Instance: %s %s\r\n", a.id,
                 a.zone ? a.zone : "-");
        snprintf(a.name, sizeof(a.name), "%s %s\n", a.id, a.zone ? a.zone : "-");
    } else {
        snprintf(a.name, sizeof(a.name), "ok\n");
    }
    cm_log_init("instance", lvl);
    if (parent > 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != (pid_t)parent)
            return 1; /* the parent died before we could ask to follow it */
    }
    signal(SIGPIPE, SIG_IGN);
    sc_rng_init(&a.rng, a.prof.seed ^ (uint64_t)getpid());
    a.ev = cm_ev_create();
    if (!a.ev || cm_ev_add_signals(a.ev, sigs, 2, on_signal, &a) < 0) {
        log_error("instance: event loop: %s", strerror(errno));
        goto out;
    }
    a.start_ms = now_ms();
    a.busy.last_ms = a.start_ms;
    if (boot_ms < 0)
        boot_ms = (long)(a.prof.boot_s * 1000.0 + 0.5);
    if (boot_ms == 0) {
        if (start_listening(&a) < 0) {
            log_error("instance: cannot listen on 127.0.0.1:%d: %s", a.port, strerror(errno));
            goto out;
        }
    } else {
        cm_ev_add_timer(a.ev, boot_ms, on_booted, &a);
    }
    cm_ev_run(a.ev);
    rc = a.port < 0 ? 1 : 0;
out:
    while (a.all)
        conn_free(a.all);
    for (int i = 0; i < a.nlis; i++) {
        accept_guard_cleanup(&a.lis[i].guard);
        if (a.lis[i].ufd >= 0)
            close(a.lis[i].ufd);
    }
    if (a.lfd >= 0)
        close(a.lfd);
    for (int i = 1; i < a.nlis; i++)
        close(a.lis[i].fd);
    if (a.ctl_fd >= 0)
        close(a.ctl_fd);
    cm_ev_destroy(a.ev);
    return rc;

bad:
    fprintf(stderr, "emulator instance: bad arguments; try --help\n");
    return 2;
}
