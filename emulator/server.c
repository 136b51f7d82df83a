/* emulator/server.c: the emulator's HTTP front: libmicrohttpd on the ev loop, the
 * replies held until their change is durable (--state), create/destroy (see server.h). */
#include "emulator/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "emulator/accept_guard.h"
#include "emulator/dispatch.h"
#include "emulator/emu.h"
#include "emulator/events.h"
#include "emulator/persist.h"
#include "emulator/state.h"

#define MAX_REQUEST_HEADERS 1024  /* more than MHD's 32 KiB connection pool can hold */
#define SSE_KEEPALIVE_MS    15000 /* an SSE comment to every stream client this often */
#define SSE_SNDBUF          32768 /* a stream client's socket send buffer */
/* slow and idle clients (docs/dataplane.md "The API under abuse") */
#define HEADER_DEADLINE_MS 10000 /* accept (or a later request line) to the end of headers */
#define BODY_DEADLINE_MS   30000 /* the end of headers to the end of the body */
#define IDLE_DEADLINE_MS   60000 /* a kept-alive connection between requests */
#define SWEEP_MS           500   /* how often deadlines are checked */
#define HELD_BODY_BUDGET   (32u * SRV_DEFAULT_MAX_BODY) /* every body being received */
#define SLOW_LOG_MS        1000 /* at most a log line a second about closed clients */

/* A connection's phase: what it owes the server and by when. */
enum conn_phase {
    PH_HEAD, /* waiting for a request's line and headers (or idle between requests) */
    PH_BODY, /* headers read, the body coming */
    PH_BUSY, /* the request is served, held (--state) or streaming: no deadline */
    PH_DEAD, /* shut down by us; MHD closes it on its next run */
};

/* Every connection MHD serves (MHD_OPTION_NOTIFY_CONNECTION), so the server can close
 * the slow ones and make room for a new client when the table is full. */
struct conn_track {
    int fd;
    enum conn_phase phase;
    int first;           /* no request completed yet */
    int64_t since_ms;    /* when the phase began */
    int64_t deadline_ms; /* PH_HEAD/PH_BODY: closed past this */
    struct conn_track *prev, *next;
};

struct srv {
    struct srv_config cfg;
    struct cm_ev *ev;
    struct MHD_Daemon *mhd;
    int lfd; /* our listening socket: we accept, MHD serves (MHD_add_connection) */
    struct accept_guard guard;
    int port;
    struct emu *emu;           /* the clock and the worlds */
    struct dispatch *dispatch; /* one request's work */
    struct persist *persist;   /* --state FILE; NULL: memory only */
    struct state *st;          /* its writer (persist_state), or NULL */
    struct conn_req *waiting;  /* replies held until the next commit (--state) */
    struct sse *streams;       /* GET /_scalelab/events clients */
    long keepalive_timer;
    struct conn_track *conns; /* every live connection, newest first */
    int nconns;               /* live ones, PH_DEAD not counted */
    size_t held_body;         /* bytes of request bodies being received (capacity) */
    long sweep_timer;
    int64_t slow_log_ms;
    long slow_closed, evicted, refused; /* totals, logged */
    int64_t mhd_log_ms;                 /* libmicrohttpd's messages: a line a second */
    long mhd_log_dropped;
};

void srv_config_defaults(struct srv_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->bind = "127.0.0.1";
    cfg->port = 4566;
    cfg->region = "us-east-1";
    cfg->account = "123456789012";
    cfg->time_scale = 1.0;
    cfg->max_body = SRV_DEFAULT_MAX_BODY;
    cfg->max_connections = SRV_DEFAULT_MAX_CONNECTIONS;
    cfg->client_rate = DISPATCH_DEFAULT_CLIENT_RATE;
    cfg->account_rate = DISPATCH_DEFAULT_ACCOUNT_RATE;
}

int srv_port(const struct srv *s)
{
    return s->port;
}

/* ---- libmicrohttpd glue ------------------------------------------------------------------ */

struct conn_req {
    char *uri;
    struct cm_buf body;
    int started;
    int too_large;
    int overloaded; /* the held-body budget was spent: dropped, 503 */
    /* --state: the reply, held (connection suspended) until its change is durable */
    struct MHD_Connection *conn;
    struct dispatch_response held;
    int holding;
    int read_barrier; /* a read held behind the changes it shows, not a change of its own */
    uint64_t ticket;
    enum state_ticket_status result;
    struct conn_req *next_waiting;
    int waiting;
};

/* ---- connection tracking: deadlines and room for new clients --------------------------- */

static struct conn_track *track_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    return ci ? ci->socket_context : NULL;
}

static void track_phase(struct conn_track *t, enum conn_phase ph, int64_t deadline_ms)
{
    if (!t || t->phase == PH_DEAD)
        return;
    t->phase = ph;
    t->since_ms = cm_ev_now_ms();
    t->deadline_ms = deadline_ms ? t->since_ms + deadline_ms : 0;
}

/* Shuts t's socket: MHD sees the end of the stream on its next run and closes it (and
 * calls on_completed for a request in progress). */
static void track_kill(struct srv *s, struct conn_track *t)
{
    if (t->phase == PH_DEAD)
        return;
    shutdown(t->fd, SHUT_RDWR);
    t->phase = PH_DEAD;
    s->nconns--;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    struct srv *s = cls;
    struct conn_track *t = *socket_context;

    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

        t = cm_xcalloc(1, sizeof(*t));
        t->fd = ci ? ci->connect_fd : -1;
        t->first = 1;
        track_phase(t, PH_HEAD, HEADER_DEADLINE_MS);
        t->next = s->conns;
        if (s->conns)
            s->conns->prev = t;
        s->conns = t;
        s->nconns++;
        *socket_context = t;
        return;
    }
    if (!t)
        return;
    if (t->phase != PH_DEAD)
        s->nconns--;
    if (t->prev)
        t->prev->next = t->next;
    else
        s->conns = t->next;
    if (t->next)
        t->next->prev = t->prev;
    free(t);
    *socket_context = NULL;
}

/* libmicrohttpd's own messages (a closed or broken client each): through our logger,
 * escaped, at most a line a second with the count of those left out, so 1,000 slow
 * clients closed at once do not write 1,000 lines. */
__attribute__((format(printf, 2, 0))) static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    struct srv *s = cls;
    int64_t now = cm_ev_now_ms();
    char msg[256];
    size_t n;

    if (s->mhd_log_ms && now - s->mhd_log_ms < SLOW_LOG_MS) {
        s->mhd_log_dropped++;
        return;
    }
    vsnprintf(msg, sizeof(msg), fmt, ap);
    n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    log_info("api: libmicrohttpd: %s (%ld more since the last line)", msg, s->mhd_log_dropped);
    s->mhd_log_ms = now;
    s->mhd_log_dropped = 0;
}

static void slow_log(struct srv *s, int64_t now)
{
    if (now - s->slow_log_ms < SLOW_LOG_MS)
        return;
    s->slow_log_ms = now;
    log_info("api: clients closed: %ld past their deadline, %ld for a new client, %ld new "
             "refused 503 (%d connections)",
             s->slow_closed, s->evicted, s->refused, s->nconns);
}

/* Closes the connections past their deadline. */
static int64_t on_sweep(struct cm_ev *ev, int64_t now_ms, void *ud)
{
    struct srv *s = ud;
    int64_t now = cm_ev_now_ms();
    long before = s->slow_closed;

    (void)ev;
    (void)now_ms;
    for (struct conn_track *t = s->conns; t; t = t->next) {
        if ((t->phase == PH_HEAD || t->phase == PH_BODY) && t->deadline_ms &&
            now > t->deadline_ms) {
            track_kill(s, t);
            s->slow_closed++;
        }
    }
    if (s->slow_closed != before) {
        slow_log(s, now);
        MHD_run(s->mhd);
    }
    return SWEEP_MS;
}

/* Room for one more connection: under the limit, or the connection that has waited
 * longest for its request's headers (idle, or slow) is closed for it. 0, or -1 when every
 * connection is busy (the new one is refused). */
static int make_room(struct srv *s)
{
    struct conn_track *victim = NULL;

    if (s->nconns < s->cfg.max_connections)
        return 0;
    for (struct conn_track *t = s->conns; t; t = t->next) {
        if (t->phase == PH_HEAD && (!victim || t->since_ms <= victim->since_ms))
            victim = t;
    }
    if (!victim)
        return -1;
    track_kill(s, victim);
    s->evicted++;
    return 0;
}

/* AWS's 503 ServiceUnavailable (Query XML: the protocol is not known before the request
 * is read), written once without blocking, then the socket closed. */
static void refuse(struct srv *s, int fd)
{
    static const char body[] =
        "<ErrorResponse><Error><Type>Receiver</Type><Code>ServiceUnavailable</Code><Message>"
        "The request has failed due to a temporary failure of the server.</Message></Error>"
        "<RequestId>00000000-0000-0000-0000-000000000000</RequestId></ErrorResponse>";
    char msg[512];
    int n = snprintf(msg, sizeof(msg),
                     "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/xml\r\n"
                     "Content-Length: %zu\r\nRetry-After: 1\r\nConnection: close\r\n\r\n%s",
                     sizeof(body) - 1, body);

    if (n > 0 && send(fd, msg, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
        log_debug("api: 503 not sent: %s", strerror(errno));
    shutdown(fd, SHUT_WR);
    close(fd);
    s->refused++;
}

static void body_release(struct srv *s, struct conn_req *r)
{
    s->held_body -= r->body.cap;
    cm_buf_cleanup(&r->body);
    cm_buf_init(&r->body, s->cfg.max_body);
}

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    struct srv *s = cls;
    struct conn_req *r = cm_xcalloc(1, sizeof(*r));
    struct conn_track *t = track_of(c);

    /* a request line on a kept-alive connection: its headers within the header deadline */
    if (t && !t->first)
        track_phase(t, PH_HEAD, HEADER_DEADLINE_MS);
    r->uri = cm_xstrdup(uri ? uri : "/");
    cm_buf_init(&r->body, s->cfg.max_body);
    return r;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct conn_req *r = *req_cls;

    (void)toe;
    if (!r)
        return;
    if (r->waiting) {
        struct conn_req **pp = &((struct srv *)cls)->waiting;

        while (*pp && *pp != r)
            pp = &(*pp)->next_waiting;
        if (*pp)
            *pp = r->next_waiting;
    }
    if (r->holding)
        dispatch_response_cleanup(&r->held);
    body_release(cls, r);
    cm_buf_cleanup(&r->body);
    {
        struct conn_track *t = track_of(c);

        if (t) {
            t->first = 0;
            track_phase(t, PH_HEAD, IDLE_DEADLINE_MS);
        }
    }
    free(r->uri);
    free(r);
    *req_cls = NULL;
}

struct hdr_collect {
    struct cm_sigv4_header h[MAX_REQUEST_HEADERS];
    int n;
};

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
    struct hdr_collect *hc = cls;

    (void)kind;
    if (hc->n < MAX_REQUEST_HEADERS) {
        hc->h[hc->n].name = key;
        hc->h[hc->n].value = value ? value : "";
        hc->n++;
    }
    return MHD_YES;
}

static enum MHD_Result queue_reply(struct srv *s, struct MHD_Connection *c,
                                   struct dispatch_response *rsp);

/* The peer's address as text (the rate limit's key), or NULL when it has none. */
static const char *client_address(struct MHD_Connection *c, char *out, size_t n)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;

    if (sa && sa->sa_family == AF_INET &&
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)n))
        return out;
    if (sa && sa->sa_family == AF_INET6 &&
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)n))
        return out;
    return NULL;
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version, const char *upload_data,
                                 size_t *upload_size, void **req_cls)
{
    struct srv *s = cls;
    struct conn_req *r = *req_cls;
    struct hdr_collect hc;
    struct dispatch_request rq;
    struct dispatch_response rs;
    char *path, *q, client[INET6_ADDRSTRLEN];

    (void)url;
    (void)version;
    if (!r)
        return MHD_NO;
    if (!r->started) {
        r->started = 1;
        track_phase(track_of(c), PH_BODY, BODY_DEADLINE_MS);
        return MHD_YES;
    }
    if (r->holding) {
        /* resumed after the commit that covered this request */
        r->holding = 0;
        /* the commit covering the change failed: the change is in memory (and written by
         * a later commit) but is not acknowledged; 500 in the request's own protocol */
        if (r->result != STATE_DURABLE)
            dispatch_response_fail(
                &r->held, r->read_barrier ? "scalelab could not save its state file (see the "
                                            "emulator's log); this reply would show a change "
                                            "that is not durable"
                                          : "scalelab could not save its state file (see the "
                                            "emulator's log); the change is not acknowledged");
        return queue_reply(s, c, &r->held);
    }
    if (*upload_size) {
        size_t cap = r->body.cap;

        if (r->too_large || r->overloaded) {
            /* dropped: the rest is read and discarded */
        } else if (s->held_body + r->body.len + *upload_size > HELD_BODY_BUDGET + cap) {
            /* every body being received holds at most HELD_BODY_BUDGET together */
            r->overloaded = 1;
            body_release(s, r);
        } else if (cm_buf_append(&r->body, upload_data, *upload_size) < 0) {
            r->too_large = 1;
            body_release(s, r);
        } else {
            s->held_body += r->body.cap - cap;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    track_phase(track_of(c), PH_BUSY, 0);
    hc.n = 0;
    MHD_get_connection_values(c, MHD_HEADER_KIND, collect_header, &hc);
    path = cm_xstrdup(r->uri);
    q = strchr(path, '?');
    if (q)
        *q++ = '\0';
    memset(&rq, 0, sizeof(rq));
    rq.method = method;
    rq.path = path;
    rq.query = q ? q : "";
    rq.hdrs = hc.h;
    rq.nhdrs = hc.n;
    rq.body = r->body.data ? r->body.data : "";
    rq.body_len = r->body.len;
    rq.too_large = r->too_large;
    rq.overloaded = r->overloaded;
    rq.client = client_address(c, client, sizeof(client));
    dispatch_handle(s->dispatch, &rq, &rs);
    free(path);
    if (s->st && ((rs.state_kind && rs.status < 300) ||
                  (!rs.stream && state_ticket(s->st, state_last_ticket(s->st)) == STATE_PENDING))) {
        /* the change is acknowledged only once it is on disk: hold the reply; any other
         * reply may show changes still waiting for their commit: held behind them */
        r->read_barrier = !(rs.state_kind && rs.status < 300);
        r->ticket = r->read_barrier ? state_last_ticket(s->st) : state_change(s->st, rs.state_kind);
        r->held = rs;
        r->holding = 1;
        r->conn = c;
        r->waiting = 1;
        r->next_waiting = s->waiting;
        s->waiting = r;
        MHD_suspend_connection(c);
        return MHD_YES;
    }
    return queue_reply(s, c, &rs);
}

/* ---- event streams (GET /_scalelab/events) ------------------------------------------------ */

/* One stream client: its subscription (emulator/events.h, the bounded buffer) and its
 * connection, suspended while there is nothing to send so the loop never spins on it. */
struct sse {
    struct srv *s;
    struct MHD_Connection *conn;
    struct events_sub *sub;
    int suspended;
    struct sse *prev, *next;
};

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct sse *x = cls;
    ssize_t n = events_sub_read(x->sub, buf, max);

    (void)pos;
    if (n > 0)
        return n;
    if (n < 0)
        return events_sub_dropped(x->sub) ? MHD_CONTENT_READER_END_WITH_ERROR
                                          : MHD_CONTENT_READER_END_OF_STREAM;
    /* nothing now: wait without polling; sse_wake resumes */
    x->suspended = 1;
    MHD_suspend_connection(x->conn);
    return 0;
}

/* Something to send (or the client was dropped: its socket is shut so that even a client
 * that reads nothing, whose connection MHD cannot write, is closed now). */
static void sse_wake(void *ud)
{
    struct sse *x = ud;

    if (events_sub_dropped(x->sub)) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(x->conn, MHD_CONNECTION_INFO_CONNECTION_FD);

        if (ci)
            shutdown(ci->connect_fd, SHUT_RDWR);
    }
    if (x->suspended) {
        x->suspended = 0;
        MHD_resume_connection(x->conn);
    }
}

static void sse_free(void *cls)
{
    struct sse *x = cls;

    if (x->prev)
        x->prev->next = x->next;
    else
        x->s->streams = x->next;
    if (x->next)
        x->next->prev = x->prev;
    events_unsubscribe(x->sub);
    free(x);
}

static int64_t on_keepalive(struct cm_ev *ev, int64_t now_ms, void *ud)
{
    struct srv *s = ud;

    (void)ev;
    (void)now_ms;
    if (s->streams)
        events_keepalive(emu_events(s->emu));
    return SSE_KEEPALIVE_MS;
}

static struct MHD_Response *sse_response(struct srv *s, struct MHD_Connection *c,
                                         const struct dispatch_response *rs)
{
    struct sse *x = cm_xcalloc(1, sizeof(*x));
    struct MHD_Response *resp;

    x->s = s;
    x->conn = c;
    x->sub = events_subscribe(rs->stream, rs->stream_after, sse_wake, x);
    resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, sse_read, x, sse_free);
    if (!resp) {
        events_unsubscribe(x->sub);
        free(x);
        return NULL;
    }
    x->next = s->streams;
    if (s->streams)
        s->streams->prev = x;
    s->streams = x;
    {
        /* the kernel's share of what a slow client holds is bounded too (no autotuning
         * to megabytes): past it, the subscriber's buffer fills and the client is dropped */
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        int sndbuf = SSE_SNDBUF;

        if (ci)
            setsockopt(ci->connect_fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
    }
    MHD_add_response_header(resp, "X-Accel-Buffering", "no");
    return resp;
}

/* Queues rs (consumed) on c. */
static enum MHD_Result queue_reply(struct srv *s, struct MHD_Connection *c,
                                   struct dispatch_response *rsp)
{
    struct dispatch_response rs = *rsp;
    struct MHD_Response *resp;
    enum MHD_Result ret;
    size_t len;
    char *body;

    if (rs.stream && s->mhd) {
        resp = sse_response(s, c, &rs);
        if (!resp) {
            dispatch_response_cleanup(&rs);
            return MHD_NO;
        }
        goto headers;
    }
    body = cm_buf_take(&rs.body, &len);
    resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(body);
        return MHD_NO;
    }
headers:
    if (rs.content_type)
        MHD_add_response_header(resp, "Content-Type", rs.content_type);
    for (int i = 0; i < rs.nheaders; i++)
        MHD_add_response_header(resp, rs.headers[i].name, rs.headers[i].value);
    ret = MHD_queue_response(c, (unsigned)rs.status, resp);
    MHD_destroy_response(resp);
    dispatch_response_cleanup(&rs);
    return ret;
}

/* Resumes the held replies whose change is durable (or failed). Returns how many. */
static int resume_answered(struct srv *s)
{
    struct conn_req **pp = &s->waiting;
    int n = 0;

    while (*pp) {
        struct conn_req *r = *pp;
        enum state_ticket_status t = state_ticket(s->st, r->ticket);

        if (t == STATE_PENDING) {
            pp = &r->next_waiting;
            continue;
        }
        *pp = r->next_waiting;
        r->next_waiting = NULL;
        r->waiting = 0;
        r->result = t;
        MHD_resume_connection(r->conn);
        n++;
    }
    return n;
}

/* Starts a commit (--state) when a reply waits or the clock changed the worlds and no
 * write is in flight; resumes what is answered. Returns 1 when replies were resumed. */
static int state_flush(struct srv *s)
{
    int64_t now = cm_ev_now_ms();

    if (!s->st)
        return 0;
    if (!state_in_flight(s->st) && (state_has_waiters(s->st) || state_next_due_ms(s->st, now) == 0))
        state_commit(s->st, now);
    return resume_answered(s) > 0;
}

/* The writer thread finished a snapshot: answer its replies, start the next batch. */
static void on_state_written(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct srv *s = ud;

    (void)ev;
    (void)fd;
    (void)events;
    state_complete(s->st);
    resume_answered(s);
    state_flush(s);
    MHD_run(s->mhd); /* the resumed replies go out now */
}

static void on_mhd_fd(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct srv *s = ud;

    (void)ev;
    (void)fd;
    (void)events;
    MHD_run(s->mhd);
}

/* Our accept loop, so that running out of fds pauses accepting (emulator/accept_guard.h)
 * where MHD's own would retry at once, forever; MHD serves each connection. */
static void on_listen(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct srv *s = ud;
    int added = 0;

    (void)ev;
    (void)events;
    for (int k = 0; k < 64; k++) {
        struct sockaddr_storage sa;
        socklen_t sl = sizeof(sa);
        int cfd = accept4(fd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (cfd < 0) {
            accept_guard_failed(&s->guard, errno);
            break;
        }
        accept_guard_ok(&s->guard);
        if (make_room(s) < 0) {
            refuse(s, cfd);
            slow_log(s, cm_ev_now_ms());
            continue;
        }
        /* MHD's own limit is above ours (closed connections linger until its next run);
         * past it MHD refuses and closes the socket itself */
        if (MHD_add_connection(s->mhd, cfd, (struct sockaddr *)&sa, sl) == MHD_YES)
            added++;
    }
    if (added)
        MHD_run(s->mhd);
}

static int64_t on_hook(struct cm_ev *ev, int after, int64_t now_ms, void *ud)
{
    struct srv *s = ud;
    MHD_UNSIGNED_LONG_LONG to;

    int64_t wait = -1;

    (void)ev;
    (void)now_ms;
    if (after) {
        MHD_run(s->mhd);
        return -1;
    }
    /* group commit: every change served in the last iteration is written once, here */
    if (state_flush(s))
        MHD_run(s->mhd); /* the resumed replies go out now */
    if (MHD_get_timeout(s->mhd, &to) == MHD_YES)
        wait = (int64_t)to;
    if (s->st) {
        /* -1 while a write is in flight: its event fd wakes the loop */
        int64_t d = state_next_due_ms(s->st, cm_ev_now_ms());

        if (d >= 0 && (wait < 0 || d < wait))
            wait = d;
    }
    return wait;
}

struct srv *srv_create(const struct srv_config *cfg, struct cm_ev *ev, char *err, size_t errlen)
{
    struct srv *s = cm_xcalloc(1, sizeof(*s));
    struct emu_config ec;
    socklen_t sl = sizeof(struct sockaddr_in);
    int one = 1;
    struct dispatch_config dc;
    struct sockaddr_in sa;
    const union MHD_DaemonInfo *info;

    s->cfg = *cfg;
    s->lfd = -1;
    if (s->cfg.max_body == 0)
        s->cfg.max_body = SRV_DEFAULT_MAX_BODY;
    if (s->cfg.max_connections <= 0)
        s->cfg.max_connections = SRV_DEFAULT_MAX_CONNECTIONS;
    emu_config_defaults(&ec);
    ec.time_scale = cfg->time_scale;
    ec.clock_manual = cfg->clock_manual;
    ec.start_ms = cfg->start_ms;
    ec.tls_cert = cfg->tls_cert;
    ec.tls_key = cfg->tls_key;
    ec.cert_map = cfg->cert_map;
    ec.ncert_map = cfg->ncert_map;
    ec.event_buffer = cfg->event_buffer;
    ec.max_metric_series = cfg->max_metric_series;
    ec.max_vcpus = cfg->max_vcpus;
    ec.max_instances = cfg->max_instances;
    ec.region = cfg->region;
    ec.launch_rate = cfg->launch_rate;
    ec.notify_webhook = cfg->notify_webhook;
    s->emu = emu_create(&ec);
    dispatch_config_defaults(&dc);
    dc.region = cfg->region;
    dc.account = cfg->account;
    dc.auth_sigv4 = cfg->auth_sigv4;
    dc.credentials = cfg->credentials;
    dc.console_token = cfg->console_token;
    dc.s3_dir = cfg->s3_dir;
    dc.max_body = s->cfg.max_body;
    dc.quiet = cfg->quiet;
    dc.client_rate = cfg->client_rate;
    dc.client_burst = cfg->client_burst;
    dc.account_rate = cfg->account_rate;
    dc.account_burst = cfg->account_burst;
    s->dispatch = dispatch_create(&dc, s->emu, err, errlen);
    if (!s->dispatch)
        goto fail;
    if (cfg->state_file) {
        s->persist = persist_open(s->emu, cfg->state_file, err, errlen);
        if (!s->persist)
            goto fail;
        s->st = persist_state(s->persist);
    }
    if (!ev)
        return s;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)cfg->port);
    if (inet_pton(AF_INET, cfg->bind, &sa.sin_addr) != 1) {
        snprintf(err, errlen, "bad bind address %s (IPv4 expected)", cfg->bind);
        goto fail;
    }
    s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->lfd < 0 || setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
        bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s->lfd, 1024) < 0 ||
        getsockname(s->lfd, (struct sockaddr *)&sa, &sl) < 0) {
        snprintf(err, errlen, "cannot listen on %s:%d: %s", cfg->bind, cfg->port, strerror(errno));
        goto fail;
    }
    s->port = ntohs(sa.sin_port);
    s->mhd = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_NO_LISTEN_SOCKET, 0,
        NULL, NULL, on_access, s, MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_NOTIFY_CONNECTION, on_connection,
        s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned int)(IDLE_DEADLINE_MS / 1000 + 5), MHD_OPTION_CONNECTION_LIMIT,
        (unsigned int)(s->cfg.max_connections + 1024), MHD_OPTION_END);
    if (!s->mhd) {
        snprintf(err, errlen, "cannot start libmicrohttpd on %s:%d", cfg->bind, cfg->port);
        goto fail;
    }
    if (cm_ev_add_fd(ev, s->lfd, EPOLLIN, on_listen, s) < 0) {
        snprintf(err, errlen, "cannot watch the listening socket");
        goto fail;
    }
    accept_guard_init(&s->guard, ev, s->lfd, on_listen, s, "api");
    info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_EPOLL_FD);
    if (!info || cm_ev_add_fd(ev, info->epoll_fd, EPOLLIN, on_mhd_fd, s) < 0) {
        snprintf(err, errlen, "cannot watch libmicrohttpd's epoll fd");
        goto fail;
    }
    s->ev = ev;
    if (s->st && cm_ev_add_fd(ev, state_event_fd(s->st), EPOLLIN, on_state_written, s) < 0) {
        snprintf(err, errlen, "cannot watch the state writer's event fd");
        goto fail;
    }
    cm_ev_set_hook(ev, on_hook, s);
    s->keepalive_timer = cm_ev_add_timer(ev, SSE_KEEPALIVE_MS, on_keepalive, s);
    s->sweep_timer = cm_ev_add_timer(ev, SWEEP_MS, on_sweep, s);
    emu_start(s->emu, ev);
    return s;

fail:
    srv_destroy(s);
    return NULL;
}

void srv_destroy(struct srv *s)
{
    if (!s)
        return;
    /* held replies: write what they wait for, then let MHD answer or close them */
    for (int i = 0; s->st && s->mhd && s->waiting && i < 8; i++) {
        state_drain(s->st);
        state_flush(s);
        state_drain(s->st);
        if (resume_answered(s) >= 0)
            MHD_run(s->mhd);
    }
    if (s->st && s->ev)
        cm_ev_del_fd(s->ev, state_event_fd(s->st));
    if (s->ev && s->keepalive_timer > 0)
        cm_ev_del_timer(s->ev, s->keepalive_timer);
    if (s->ev && s->sweep_timer > 0)
        cm_ev_del_timer(s->ev, s->sweep_timer);
    if (s->mhd && s->streams) {
        /* MHD must not stop with suspended connections: end every stream, let each send
         * what it has and close */
        events_end_all(emu_events(s->emu));
        for (int i = 0; i < 8 && s->streams; i++)
            MHD_run(s->mhd);
    }
    if (s->lfd >= 0) {
        if (s->guard.ev) {
            accept_guard_cleanup(&s->guard);
            cm_ev_del_fd(s->guard.ev, s->lfd);
        }
        close(s->lfd);
    }
    if (s->mhd) {
        const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_EPOLL_FD);

        if (s->ev && info)
            cm_ev_del_fd(s->ev, info->epoll_fd);
        if (s->ev)
            cm_ev_set_hook(s->ev, NULL, NULL);
        MHD_stop_daemon(s->mhd);
    }
    if (s->emu)
        emu_stop(s->emu); /* the step timer and the data plane's processes */
    dispatch_destroy(s->dispatch);
    s->st = NULL;
    persist_close(s->persist); /* the last clock-driven changes, then the writers */
    emu_destroy(s->emu);
    free(s);
}
