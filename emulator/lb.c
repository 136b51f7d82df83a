/* emulator/lb.c: see lb.h. The proxy's state machine: accept, the idle sweep, the HTTP
 * request and response phases and the API; its connections are in lb_conn.c, the TCP
 * pump in lb_tcp.c (lb_internal.h). */
#include "emulator/lb.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "emulator/balancer.h"
#include "emulator/lb_http.h"
#include "emulator/lb_internal.h"
#include "emulator/lb_tls.h"
#include "scaler/elbv2.h"
#include "scaler/elbv2_mtls.h"
#include "scaler/lb_sticky.h"

#define RETRIES 2

static void start_request(struct cconn *c);

/* --- own answers ---------------------------------------------------------------------------- */

/* Appends bytes to the client's pending output. Returns -1 when they do not fit. */
int lb_out_append(struct cconn *c, const char *p, size_t n)
{
    if (c->out_off > 0 && c->out_off == c->out_len)
        c->out_off = c->out_len = 0;
    if (c->out_len + n > COUT_CAP) {
        if (c->out_off == 0 || c->out_len - c->out_off + n > COUT_CAP)
            return -1;
        memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
        c->out_len -= c->out_off;
        c->out_off = 0;
    }
    memcpy(c->out + c->out_len, p, n);
    c->out_len += n;
    return 0;
}

/* Drops the current request's bytes from the input buffer: the head and whatever of its
 * body is there. When the body is not all there, the connection closes after the answer. */
static void consume_request(struct cconn *c)
{
    size_t n = c->msg.head_len;

    if (c->body_kind == LB_HTTP_BODY_LENGTH) {
        if (c->in_len - n >= (size_t)c->body_left) {
            n += (size_t)c->body_left;
        } else {
            n = c->in_len;
            c->close_after = 1;
        }
    } else if (c->body_kind == LB_HTTP_BODY_CHUNKED) {
        n = c->in_len;
        c->close_after = 1;
    }
    if (n > c->in_len)
        n = c->in_len;
    memmove(c->in, c->in + n, c->in_len - n);
    c->in_len -= n;
}

static void count_own(struct lb_listener *l, int status)
{
    l->m.requests++;
    if (status >= 500)
        l->m.elb_5xx++;
    else if (status >= 400)
        l->m.elb_4xx++;
    if (status == 502)
        l->m.elb_502++;
    else if (status == 503)
        l->m.elb_503++;
    else if (status == 504)
        l->m.elb_504++;
}

/* An Application Load Balancer's own page for status (awselb's). */
static const char *alb_page(int status)
{
    switch (status) {
    case 503:
        return "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n</body>\r\n</html>\r\n";
    case 504:
        return "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n</body>\r\n</html>\r\n";
    case 502:
        return "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n";
    default:
        return "<html>\r\n<head><title>400 Bad Request</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n</body>\r\n</html>\r\n";
    }
}

/* Sends a complete response of the proxy's own to the current request. */
static void send_own(struct cconn *c, int status, const char *ctype, const char *extra,
                     const char *body, size_t body_len)
{
    char buf[4096];
    ssize_t n;

    n = lb_http_format_response(buf, sizeof(buf), status, ctype, extra, body,
                                c->is_head ? 0 : body_len, c->close_after, c->minor);
    count_own(c->l, status);
    c->state = CS_HEAD;
    if (n < 0 || lb_out_append(c, buf, (size_t)n) < 0)
        c->close_after = 1;
    lb_client_flush(c);
}

/* The proxy answers the current request itself (request bytes already consumed or not:
 * `consume` 1 drops them first). */
static void own_response(struct cconn *c, int status, int consume, int close)
{
    const char *body;

    if (consume)
        consume_request(c);
    if (close || !c->keep_alive)
        c->close_after = 1;
    if (c->l->route) {
        /* a target was chosen and failed: the request counts for its group */
        if (c->group >= 0 && (status == 502 || status == 504)) {
            c->l->gm[c->group].requests++;
            if (c->node >= 0)
                c->l->gmz[c->group][c->node].requests++;
        }
        body = alb_page(status);
        send_own(c, status, "text/html", "Server: awselb/2.0\r\n", body, strlen(body));
        return;
    }
    switch (status) {
    case 503:
        body =
            "<html><body><h1>503 Service Unavailable</h1>No server is available to handle this request.</body></html>\n";
        break;
    case 504:
        body =
            "<html><body><h1>504 Gateway Time-out</h1>The server didn't respond in time.</body></html>\n";
        break;
    case 502:
        body =
            "<html><body><h1>502 Bad Gateway</h1>The server returned an invalid or incomplete response.</body></html>\n";
        break;
    default:
        body =
            "<html><body><h1>400 Bad Request</h1>Your browser sent an invalid request.</body></html>\n";
        break;
    }
    send_own(c, status, "text/html", NULL, body, strlen(body));
}

/* --- client side: requests ----------------------------------------------------------------- */

const char *lb_node_zone(const struct cconn *c)
{
    const struct lb_listener *l = c->l;

    if (l->nzones == 0 || l->cross_zone || c->node < 0)
        return NULL;
    return l->zones[c->node];
}

/* Assigns a node (zone) to a new client, in turn among zones with routable backends. */
uint64_t lb_client_key(const struct cconn *c)
{
    return sc_elbv2_source_ip_key(&c->peer.sin_addr, sizeof(c->peer.sin_addr));
}

int lb_pick_node(struct lb_listener *l, uint64_t client)
{
    if (l->nzones == 0)
        return -1;
    if (!l->cross_zone && l->sticky[1].type == SC_STICKY_SOURCE_IP) {
        /* an NLB's client keeps its node as it keeps its target: the same rule over the
         * zones that have a routable target (docs/elbv2.md 10.4) */
        uint64_t keys[LB_ZONES_MAX];
        int idx[LB_ZONES_MAX], n = 0, k;

        for (int z = 0; z < l->nzones && n < LB_ZONES_MAX; z++) {
            if (bal_routable_count(&l->set, l->zones[z]) > 0) {
                keys[n] = sc_sticky_key(l->zones[z]);
                idx[n++] = z;
            }
        }
        k = n > 0 ? sc_elbv2_source_ip_pick(client, keys, n) : -1;
        return k >= 0 ? idx[k] : -1;
    }
    if (l->cross_zone) {
        /* any node routes anywhere; the node's zone still names the request's
         * AvailabilityZone in the metrics */
        return (int)(l->node_rr++ % (unsigned)l->nzones);
    }
    for (int k = 0; k < l->nzones; k++) {
        int z = (int)((l->node_rr + (unsigned)k) % (unsigned)l->nzones);

        if (bal_routable_count(&l->set, l->zones[z]) > 0) {
            l->node_rr = (unsigned)z + 1;
            return z;
        }
    }
    return -1;
}

void lb_assign_node(struct cconn *c)
{
    c->node = lb_pick_node(c->l, lb_client_key(c));
}

/* Copies body bytes from the client's buffer to the backend's request buffer (as many as
 * fit and belong to this request). */
static void move_body(struct cconn *c, struct bconn *b)
{
    size_t avail = c->in_len, n = 0;

    if (c->body_done || avail == 0)
        return;
    if (b->req_off == b->req_len)
        b->req_off = b->req_len = 0;
    if (BREQ_CAP - b->req_len < avail)
        avail = BREQ_CAP - b->req_len;
    if (c->body_kind == LB_HTTP_BODY_LENGTH) {
        n = avail < (size_t)c->body_left ? avail : (size_t)c->body_left;
        c->body_left -= (int64_t)n;
        c->body_done = c->body_left == 0;
    } else if (c->body_kind == LB_HTTP_BODY_CHUNKED) {
        int done = 0;
        ssize_t r = lb_http_chunked_scan(&c->ch, c->in, avail, &done);

        if (r < 0) {
            c->close_after = 1;
            c->body_done = 1;
            return;
        }
        n = (size_t)r;
        c->body_done = done;
    }
    memcpy(b->req + b->req_len, c->in, n);
    b->req_len += n;
    memmove(c->in, c->in + n, c->in_len - n);
    c->in_len -= n;
}

static void backend_send(struct bconn *b);

/* The client certificate headers of c's TLS session (docs/elbv2.md 14.1): made once per
 * connection, after the handshake; NULL when there are none. */
static const char *mtls_headers(struct cconn *c)
{
    if (!c->mtls_done) {
        char *h = cm_xmalloc(MTLS_HDR_MAX);
        long n = lb_tls_client_headers(c->ssl, h, MTLS_HDR_MAX);

        c->mtls_done = 1;
        if (n > 0) {
            c->mtls_hdr = h;
        } else {
            if (n < 0)
                log_warn("%s: the client certificate headers exceed %d bytes: left out", c->l->name,
                         MTLS_HDR_MAX);
            free(h);
        }
    }
    return c->mtls_hdr;
}

/* Gives the request to backend be: a pooled or new connection, the head rewritten. */
static int attach(struct cconn *c, struct bal_backend *be, const char *reqcopy, size_t reqlen)
{
    struct lb_listener *l = c->l;
    struct bconn *b = lb_bconn_get_or_connect(l, be);
    char ip[] = "127.0.0.1";

    if (!b) {
        l->m.backend_conn_errors++;
        if (be->group >= 0)
            l->gm[be->group].conn_errors++;
        return -1;
    }
    b->c = c;
    c->b = b;
    be->outstanding++;
    if (reqcopy) {
        memcpy(b->req, reqcopy, reqlen);
        b->req_len = reqlen;
    } else {
        struct lb_http_forward fwd = { ip,          c->ssl ? "https" : "http",
                                       l->fwd_port, c->msg.expect_continue,
                                       NULL,        NULL };
        ssize_t n;

        if (c->ssl && lb_tls_mtls_mode(c->ssl)) {
            fwd.drop_prefix = SC_ELBV2_MTLS_HEADER_PREFIX;
            fwd.extra = mtls_headers(c);
        }
        n = lb_http_forward_request(c->in, &c->msg, &fwd, b->req, BREQ_CAP);

        if (n < 0)
            return -1; /* cannot happen: BREQ_CAP covers the largest head */
        b->req_len = (size_t)n;
        memmove(c->in, c->in + c->msg.head_len, c->in_len - c->msg.head_len);
        c->in_len -= c->msg.head_len;
        move_body(c, b);
        c->retryable = c->body_done;
    }
    c->state = CS_PROXY;
    if (b->state == BS_SEND)
        backend_send(b);
    else
        lb_backend_events(b);
    return 0;
}

static uint64_t next_draw(struct lb_listener *l)
{
    uint64_t z = (l->rng += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

struct bal_backend *lb_pick(struct cconn *c, int *at_cap)
{
    struct lb_listener *l = c->l;

    if (c->group < 0)
        return bal_pick_least_outstanding_in(&l->set, lb_node_zone(c), -1, l->max_conns, at_cap);
    return bal_pick_in(&l->set, lb_node_zone(c), c->group, l->alg[c->group], l->max_conns,
                       next_draw(l), at_cap);
}

static const struct sc_sticky *sticky_of(const struct cconn *c)
{
    return &c->l->sticky[c->group + 1];
}

/* 1 when the request carries cookie name (any Cookie header); *v / *vn its value. */
static int request_cookie(const struct cconn *c, const char *name, const char **v, size_t *vn)
{
    for (int i = 0; i < c->msg.nheaders; i++) {
        const struct lb_http_header *h = &c->msg.headers[i];

        if (h->name_len == 6 && strncasecmp(c->in + h->name_off, "cookie", 6) == 0 &&
            sc_sticky_cookie_find(c->in + h->value_off, h->value_len, name, v, vn))
            return 1;
    }
    return 0;
}

/* The backend the request's stickiness cookie names when it may still serve it (the
 * target is routable in the client's zone, the cookie unexpired; app-cookie stickiness
 * also needs the application's cookie), else NULL: the algorithm picks, and the response
 * binds the client anew (docs/elbv2.md 10.1). */
static struct bal_backend *sticky_backend(struct cconn *c)
{
    const struct sc_sticky *st = sticky_of(c);
    struct lb_listener *l = c->l;
    struct bal_backend *be;
    const char *v, *av;
    size_t vn, an;
    uint64_t key;
    int64_t exp = 0;
    int ok;
    const char *zone = lb_node_zone(c);

    if (st->type == SC_STICKY_NONE || !request_cookie(c, sc_sticky_cookie_name(st), &v, &vn))
        return NULL;
    if (st->type == SC_STICKY_APP_COOKIE && !request_cookie(c, st->app_cookie, &av, &an))
        return NULL;
    ok = sc_sticky_decode(l->secret, v, vn, &key, &exp) == 0;
    be = ok ? bal_find_key(&l->set, c->group, key) : NULL;
    if (!sc_sticky_keep(ok, exp, (int64_t)time(NULL),
                        be && be->routable && (!zone || strcmp(be->zone, zone) == 0)))
        return NULL;
    if (l->max_conns > 0 && be->conns >= l->max_conns && be->nidle == 0)
        return NULL;
    be->picks++;
    return be;
}

/* 1 when the response head sets cookie name. */
static int response_sets(const struct bconn *b, const char *name)
{
    for (int i = 0; i < b->msg.nheaders; i++) {
        const struct lb_http_header *h = &b->msg.headers[i];

        if (h->name_len == 10 && strncasecmp(b->in + h->name_off, "set-cookie", 10) == 0 &&
            sc_sticky_sets_cookie(b->in + h->value_off, h->value_len, name))
            return 1;
    }
    return 0;
}

/* The stickiness Set-Cookie lines of this response into out; their length (0: none). */
static size_t sticky_lines(const struct cconn *c, const struct bconn *b, char *out, size_t cap)
{
    const struct sc_sticky *st = sticky_of(c);
    size_t o = 0;
    long n;

    if (c->tgck_len > 0 && c->tgck_len < cap) {
        memcpy(out, c->tgck, c->tgck_len);
        o = c->tgck_len;
    }
    if (st->type == SC_STICKY_NONE ||
        (st->type == SC_STICKY_APP_COOKIE && !response_sets(b, st->app_cookie)))
        return o;
    n = sc_sticky_set_cookie(st, c->l->secret, b->be->key, (int64_t)time(NULL), out + o, cap - o);
    return n > 0 ? o + (size_t)n : o;
}

/* Picks a backend for the parsed request in c->msg and hands it over; 503 or the surge
 * queue when none can take it. */
static void start_request(struct cconn *c)
{
    struct lb_listener *l = c->l;
    struct bal_backend *be;
    int at_cap = 0;

    c->group = -1;
    c->tgck_len = 0;
    if (l->route) {
        struct lb_route r = { -1, 503, NULL, NULL, NULL, 0, NULL };

        l->route(l->route_ud, c->in, &c->msg, &c->peer, &r);
        if ((r.group < 0 || r.group >= LB_GROUPS_MAX) && !r.body && !r.extra) {
            own_response(c, r.status, 1, 0); /* the load balancer's own page */
            return;
        }
        if (r.group < 0 || r.group >= LB_GROUPS_MAX) {
            consume_request(c);
            if (!c->keep_alive)
                c->close_after = 1;
            send_own(c, r.status, r.ctype, r.extra, r.body, r.body_len);
            return;
        }
        c->group = r.group;
        if (r.set_cookie) {
            size_t n = strlen(r.set_cookie);

            if (n < sizeof(c->tgck)) {
                memcpy(c->tgck, r.set_cookie, n);
                c->tgck_len = n;
            }
        }
    }
    if (c->node < 0 ||
        (l->nzones && !l->cross_zone && bal_routable_count(&l->set, l->zones[c->node]) == 0))
        lb_assign_node(c);
    be = sticky_backend(c);
    if (!be)
        be = lb_pick(c, &at_cap);
    if (!be) {
        if (at_cap) {
            if (lb_surge_push(c) < 0)
                own_response(c, 503, 1, 0); /* SpilloverCount */
            return;
        }
        own_response(c, 503, 1, 0);
        return;
    }
    if (attach(c, be, NULL, 0) < 0) {
        c->b = NULL;
        c->state = CS_HEAD;
        be->outstanding -= be->outstanding > 0;
        own_response(c, 503, 1, 0);
    }
}

void lb_run_surge_queue(struct lb_listener *l)
{
    if (l->mode == LB_MODE_TCP) {
        lb_tcp_run_surge_queue(l);
        return;
    }
    while (l->qhead) {
        struct cconn *c = l->qhead;
        struct bal_backend *be;
        int at_cap = 0;

        be = lb_pick(c, &at_cap);
        if (!be && at_cap)
            return;
        l->qhead = c->qnext;
        if (!l->qhead)
            l->qtail = NULL;
        l->qlen--;
        c->state = CS_HEAD;
        if (!be) {
            own_response(c, 503, 1, 0);
            continue;
        }
        if (attach(c, be, NULL, 0) < 0) {
            c->b = NULL;
            c->state = CS_HEAD;
            own_response(c, 503, 1, 0);
        }
    }
}

/* A parse of the input buffer when no request is in progress. */
void lb_client_process(struct cconn *c)
{
    enum lb_http_result r;

    if (c->state != CS_HEAD || c->in_len == 0 || c->close_after)
        return;
    c->group = -1;
    r = lb_http_parse_request(c->in, c->in_len, &c->msg);
    if (r == LB_HTTP_PARTIAL) {
        lb_client_events(c);
        return;
    }
    c->req_us = lb_now_us();
    c->resp_started = 0;
    c->retries = 0;
    if (r != LB_HTTP_OK) {
        c->minor = 1;
        c->is_head = 0;
        c->body_kind = LB_HTTP_BODY_NONE;
        c->in_len = 0;
        own_response(c, 400, 0, 1);
        return;
    }
    c->minor = c->msg.minor;
    c->keep_alive = c->msg.keep_alive;
    c->is_head = c->msg.is_head;
    c->body_kind = lb_http_request_body(&c->msg);
    c->body_left = c->body_kind == LB_HTTP_BODY_LENGTH ? c->msg.content_length : 0;
    c->body_done = c->body_kind == LB_HTTP_BODY_NONE;
    if (c->body_kind == LB_HTTP_BODY_CHUNKED)
        lb_http_chunked_init(&c->ch);
    if (c->msg.expect_continue && !c->body_done) {
        static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
        size_t have = c->in_len - c->msg.head_len;

        if (c->body_kind != LB_HTTP_BODY_LENGTH || have < (size_t)c->body_left) {
            if (lb_out_append(c, cont, sizeof(cont) - 1) == 0)
                lb_client_send(c, NULL, 0);
        }
    }
    start_request(c);
}

/* --- backend side ---------------------------------------------------------------------------- */

static void count_response(struct lb_listener *l, int status)
{
    l->m.requests++;
    if (status >= 500)
        l->m.backend_5xx++;
    else if (status >= 400)
        l->m.backend_4xx++;
    else if (status >= 300)
        l->m.backend_3xx++;
    else
        l->m.backend_2xx++;
}

/* The response is complete: the backend connection goes back to the pool (or closes),
 * the client reads its next request. */
static void finish_response(struct bconn *b, int reusable)
{
    struct cconn *c = b->c;
    struct bal_backend *be = b->be;
    struct lb_listener *l = b->l;

    if (be->outstanding > 0)
        be->outstanding--;
    if (c) {
        c->b = NULL;
        c->state = CS_HEAD;
        if (!c->keep_alive || !c->body_done)
            c->close_after = 1;
        c->last_ms = lb_now_ms();
    }
    if (reusable && b->keep_alive && be->routable && !be->removed && b->in_len == 0)
        lb_bconn_to_idle(b);
    else
        lb_bconn_free(b);
    if (c)
        lb_client_flush(c);
    lb_run_surge_queue(l);
}

/* The backend failed before the response completed. */
static void backend_failed(struct bconn *b, int connect_error)
{
    struct cconn *c = b->c;
    struct lb_listener *l = b->l;
    struct bal_backend *be = b->be;

    if (connect_error) {
        l->m.backend_conn_errors++;
        if (be->group >= 0)
            l->gm[be->group].conn_errors++;
    }
    if (!c) {
        lb_bconn_free(b);
        return;
    }
    if (!c->resp_started && c->out_len == c->out_off && b->state != BS_BODY && c->retryable &&
        c->retries < RETRIES && (b->reused || connect_error || b->in_len == 0)) {
        /* the request never reached a live backend (or a pooled connection was stale):
         * send it again, elsewhere when possible */
        char *copy = cm_xmalloc(b->req_len);
        size_t len = b->req_len;
        int reused = b->reused;
        int was_routable = be->routable;
        struct bal_backend *alt;

        memcpy(copy, b->req, len);
        c->retries++;
        bal_ref(be);
        lb_abort_backend(c); /* frees b */
        if (!reused)
            be->routable = 0; /* not this one again right now */
        alt = lb_pick(c, NULL);
        be->routable = was_routable;
        if (!alt && reused && be->routable)
            alt = be;
        bal_unref(be);
        if (alt && attach(c, alt, copy, len) == 0) {
            free(copy);
            return;
        }
        free(copy);
        if (c->b)
            lb_abort_backend(c);
        own_response(c, 502, 0, !c->body_done);
        return;
    }
    lb_abort_backend(c);
    if (!c->resp_started && c->out_len == c->out_off) {
        c->in_len = c->body_done ? c->in_len : 0;
        own_response(c, 502, 0, !c->body_done);
    } else {
        c->state = CS_HEAD;
        c->close_after = 1;
        lb_client_flush(c);
    }
}

static void backend_send(struct bconn *b)
{
    struct cconn *c = b->c;

    while (b->req_off < b->req_len) {
        ssize_t n = send(b->fd, b->req + b->req_off, b->req_len - b->req_off, MSG_NOSIGNAL);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) {
            backend_failed(b, 0);
            return;
        }
        b->req_off += (size_t)n;
    }
    if (b->req_off == b->req_len && c && !c->body_done && c->in_len > 0) {
        move_body(c, b);
        if (b->req_len > b->req_off) {
            backend_send(b);
            return;
        }
    }
    if (b->req_off == b->req_len && c && c->body_done) {
        b->state = BS_HEAD;
        b->msg.head_len = 0;
    }
    lb_backend_events(b);
    if (c)
        lb_client_events(c);
}

/* Forwards body bytes p[0..n) of the response; finishes when the body ends. */
static void response_body(struct bconn *b, const char *p, size_t n)
{
    struct cconn *c = b->c;
    size_t take = n;
    int done = 0;

    switch (b->body_kind) {
    case LB_HTTP_BODY_NONE:
        take = 0;
        done = 1;
        break;
    case LB_HTTP_BODY_LENGTH:
        if ((int64_t)take > b->body_left)
            take = (size_t)b->body_left;
        b->body_left -= (int64_t)take;
        done = b->body_left == 0;
        break;
    case LB_HTTP_BODY_CHUNKED: {
        ssize_t r = lb_http_chunked_scan(&b->ch, p, n, &done);

        if (r < 0) {
            backend_failed(b, 0);
            return;
        }
        take = (size_t)r;
        break;
    }
    case LB_HTTP_BODY_EOF:
        break;
    }
    if (take < n)
        b->keep_alive = 0; /* bytes beyond the response: do not reuse */
    if (lb_client_send(c, p, take) < 0) {
        lb_abort_backend(c);
        lb_client_close(c);
        return;
    }
    if (done) {
        b->in_len = 0;
        finish_response(b, 1);
        return;
    }
    lb_backend_events(b);
    lb_client_events(c);
}

static void response_head(struct bconn *b)
{
    struct cconn *c = b->c;
    struct lb_listener *l = b->l;
    enum lb_http_result r;
    ssize_t n;
    size_t rest;

    for (;;) {
        r = lb_http_parse_response(b->in, b->in_len, &b->msg);
        if (r == LB_HTTP_PARTIAL) {
            if (b->in_len == BIN_CAP)
                break;
            lb_backend_events(b);
            return;
        }
        if (r != LB_HTTP_OK)
            break;
        if (b->msg.status >= 100 && b->msg.status < 200) {
            /* interim (100 Continue from the backend): the proxy already answered */
            memmove(b->in, b->in + b->msg.head_len, b->in_len - b->msg.head_len);
            b->in_len -= b->msg.head_len;
            continue;
        }
        goto ok;
    }
    /* unparsable or too large: 502 */
    lb_abort_backend(c);
    own_response(c, 502, 0, 1);
    return;

ok : {
    double lat = (double)(lb_now_us() - c->req_us) / 1000.0;

    l->m.latency_sum_ms += lat;
    l->m.latency_count++;
    if (lat > l->m.latency_max_ms)
        l->m.latency_max_ms = lat;
    bal_traffic_count(&b->be->traffic, lb_now_ms(), b->msg.status, lat);
    for (int k = 0; c->group >= 0 && k < 2; k++) {
        struct lb_group_metrics *g = k == 0 ? &l->gm[c->group] : &l->gmz[c->group][c->node];
        int st = b->msg.status;

        if (k == 1 && c->node < 0)
            break;
        g->requests++;
        g->resp_sum_ms += lat;
        g->resp_count++;
        g->target_5xx += st >= 500;
        g->target_4xx += st >= 400 && st < 500;
        g->target_3xx += st >= 300 && st < 400;
        g->target_2xx += st < 300;
    }
}
    b->status = b->msg.status;
    count_response(l, b->status);
    b->body_kind = lb_http_response_body(&b->msg, c->is_head);
    b->body_left = b->body_kind == LB_HTTP_BODY_LENGTH ? b->msg.content_length : 0;
    if (b->body_kind == LB_HTTP_BODY_CHUNKED)
        lb_http_chunked_init(&b->ch);
    b->keep_alive = b->msg.keep_alive && b->body_kind != LB_HTTP_BODY_EOF;
    if (b->body_kind == LB_HTTP_BODY_EOF || !c->keep_alive || !c->body_done)
        c->close_after = 1;
    if (c->out_off == c->out_len)
        c->out_off = c->out_len = 0;
    n = lb_http_forward_response(b->in, &b->msg, c->close_after, c->minor, c->out + c->out_len,
                                 COUT_CAP - c->out_len);
    if (n < 0) {
        lb_abort_backend(c);
        lb_client_close(c);
        return;
    }
    c->out_len += (size_t)n;
    if (c->tgck_len > 0 || sticky_of(c)->type != SC_STICKY_NONE) {
        char ck[768];
        size_t k = sticky_lines(c, b, ck, sizeof(ck));

        /* the lines go before the head's final CRLF */
        if (k > 0 && c->out_len + k <= COUT_CAP && c->out_len >= 2) {
            memcpy(c->out + c->out_len - 2, ck, k);
            memcpy(c->out + c->out_len - 2 + k, "\r\n", 2);
            c->out_len += k;
        }
    }
    b->state = BS_BODY;
    rest = b->in_len - b->msg.head_len;
    response_body(b, b->in + b->msg.head_len, rest);
}

static void backend_read(struct bconn *b)
{
    ssize_t n;

    if (b->state == BS_HEAD || b->state == BS_SEND) {
        n = recv(b->fd, b->in + b->in_len, BIN_CAP - b->in_len, 0);
    } else {
        b->in_len = 0;
        n = recv(b->fd, b->in, BIN_CAP, 0);
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (b->state == BS_IDLE) {
        lb_bconn_free(b); /* the backend closed (or talked out of turn) */
        return;
    }
    if (n == 0 && b->state == BS_BODY && b->body_kind == LB_HTTP_BODY_EOF) {
        b->keep_alive = 0;
        finish_response(b, 0);
        return;
    }
    if (n <= 0) {
        backend_failed(b, n < 0 && b->in_len == 0 && !b->reused && errno == ECONNREFUSED);
        return;
    }
    b->c->last_ms = lb_now_ms();
    if (b->state == BS_BODY) {
        response_body(b, b->in, (size_t)n);
        return;
    }
    b->in_len += (size_t)n;
    if (b->state == BS_SEND) {
        /* an early answer (e.g. 413 before the body): take it as the response */
        b->c->body_done = 1;
        b->c->close_after = 1;
        b->state = BS_HEAD;
    }
    response_head(b);
}

void lb_on_backend(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct bconn *b = ud;

    (void)ev;
    (void)fd;
    if (b->state == BS_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof(err);

        if (getsockopt(b->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) {
            if (b->l->mode == LB_MODE_TCP) {
                struct cconn *c = b->c;

                b->l->m.backend_conn_errors++;
                if (c) {
                    c->b = NULL;
                    b->be->outstanding -= b->be->outstanding > 0;
                    lb_bconn_free(b);
                    lb_client_close(c);
                } else {
                    lb_bconn_free(b);
                }
                return;
            }
            backend_failed(b, 1);
            return;
        }
        if (b->l->mode == LB_MODE_TCP) {
            b->state = BS_TCP;
            lb_tcp_pump(b->c);
            return;
        }
        b->state = BS_SEND;
        backend_send(b);
        return;
    }
    if (b->state == BS_TCP) {
        lb_tcp_backend(b, events);
        return;
    }
    if ((events & EPOLLOUT) && b->state == BS_SEND) {
        backend_send(b);
        return;
    }
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
        backend_read(b);
}

/* --- client events ------------------------------------------------------------------------- */

static void http_client(struct cconn *c, uint32_t events)
{
    ssize_t n;

    if (events & EPOLLOUT) {
        lb_client_flush(c);
        return;
    }
    if (c->in_len == CIN_CAP) {
        lb_client_events(c);
        return;
    }
    n = lb_c_recv(c, c->in + c->in_len, CIN_CAP - c->in_len);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        if (c->ssl)
            lb_client_events(c); /* the handshake may want the socket writable */
        return;
    }
    if (n <= 0) {
        lb_client_close(c);
        return;
    }
    c->in_len += (size_t)n;
    c->last_ms = lb_now_ms();
    if (c->state == CS_HEAD) {
        lb_client_process(c);
    } else if (c->state == CS_PROXY && c->b && !c->body_done) {
        struct bconn *b = c->b;

        move_body(c, b);
        c->retryable = 0;
        if (b->state == BS_SEND)
            backend_send(b);
        else
            lb_client_events(c);
    } else {
        lb_client_events(c);
    }
}

void lb_on_client(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct cconn *c = ud;

    (void)ev;
    (void)fd;
    if (c->ssl) {
        /* a TLS read or write that waited for the other direction goes on now; the HTTP
         * path takes EPOLLOUT as "flush", so with nothing to flush it must read instead */
        if ((events & EPOLLOUT) && c->ssl_rd_want == EPOLLOUT) {
            events |= EPOLLIN;
            if (c->l->mode != LB_MODE_TCP && c->out_len == c->out_off)
                events &= ~(uint32_t)EPOLLOUT;
        }
        if ((events & EPOLLIN) && c->ssl_wr_want == EPOLLIN && c->l->mode != LB_MODE_TCP)
            events |= EPOLLOUT;
    }
    if (c->l->mode == LB_MODE_TCP) /* piping, or queued (its bytes wait in c->in) */
        lb_tcp_client(c, events);
    else
        http_client(c, events);
}

/* --- listener --------------------------------------------------------------------------------- */

static void on_accept(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct lb_listener *l = ud;

    (void)events;
    for (int k = 0; k < 32; k++) {
        int one = 1;
        struct sockaddr_in peer;
        socklen_t plen = sizeof(peer);
        int cfd = accept4(fd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
        struct cconn *c;

        if (cfd < 0) {
            accept_guard_failed(&l->guard, errno); /* out of fds: paused, logged */
            return;
        }
        accept_guard_ok(&l->guard);
        setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        c = lb_cconn_new(l, cfd);
        c->peer = peer;
        c->events = EPOLLIN | EPOLLRDHUP;
        if (l->tls) {
            c->ssl = SSL_new(l->tls);
            if (!c->ssl || SSL_set_fd(c->ssl, cfd) != 1) {
                ERR_clear_error();
                lb_client_close(c);
                continue;
            }
            SSL_set_accept_state(c->ssl);
        }
        if (cm_ev_add_fd(ev, cfd, c->events, lb_on_client, c) < 0) {
            c->fd = -1;
            l->m.conns_open--;
            close(cfd);
            lb_client_close(c);
            continue;
        }
        l->m.client_conns++;
        if (l->mode == LB_MODE_TCP)
            lb_tcp_start(c);
        else
            lb_assign_node(c);
    }
}

/* Idle timeout: requests without progress get 504; idle connections close, pooled
 * back-end connections too (AWS: the idle timeout "applies to its connections", front-end
 * and back-end). */
static int64_t on_sweep(struct cm_ev *ev, int64_t now, void *ud)
{
    struct lb_listener *l = ud;
    struct cconn *c;

    (void)ev;
    lb_udp_sweep(l, now);
    for (int i = 0; i < l->set.n; i++)
        lb_close_idle_since(l->set.v[i], now, l->idle_ms);
again:
    for (c = l->all; c; c = c->next) {
        if (now - c->last_ms < l->idle_ms)
            continue;
        if ((c->state == CS_PROXY || c->state == CS_QUEUED) && l->mode != LB_MODE_TCP &&
            !c->resp_started && c->out_len == c->out_off) {
            if (c->state == CS_QUEUED)
                lb_surge_remove(c);
            lb_abort_backend(c);
            c->state = CS_HEAD;
            c->last_ms = now;
            own_response(c, 504, 0, 1);
        } else {
            lb_client_close(c);
        }
        goto again;
    }
    return l->idle_ms < 4000 ? (l->idle_ms / 4 > 10 ? l->idle_ms / 4 : 10) : 1000;
}

struct lb_listener *lb_listener_create(struct cm_ev *ev, const struct lb_config *cfg, char *err,
                                       size_t errlen)
{
    struct lb_listener *l;
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);
    int one = 1;

    l = cm_xcalloc(1, sizeof(*l));
    l->ev = ev;
    l->tls = cfg->tls;
    l->mtls = cfg->mtls;
    l->name = cm_xstrdup(cfg->name ? cfg->name : "proxy");
    l->mode = cfg->mode;
    l->idle_ms = cfg->idle_timeout_ms > 0 ? cfg->idle_timeout_ms : 60000;
    l->max_conns = cfg->backend_max_conns > 0 ? cfg->backend_max_conns : 512;
    l->surge_max = cfg->surge_max > 0 ? cfg->surge_max : 1024;
    l->route = cfg->route;
    l->route_ud = cfg->route_ud;
    if (getrandom(&l->secret, sizeof(l->secret), 0) != (ssize_t)sizeof(l->secret))
        l->secret = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    l->rng = l->secret ^ 0x2545f4914f6cdd1dULL;
    bal_init(&l->set);
    l->udp_fd = -1;
    if (cfg->udp == 2) {
        /* UDP only: no TCP socket takes connections on the port */
        l->fd = -1;
        l->port = lb_udp_open(l, cfg->port, err, errlen);
        if (l->port < 0) {
            free(l->name);
            free(l);
            return NULL;
        }
        l->fwd_port = l->port;
        l->sweep_timer = cm_ev_add_timer(ev, 250, on_sweep, l);
        return l;
    }
    l->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->fd < 0)
        goto fail;
    setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)cfg->port);
    if (bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l->fd, 4096) < 0 ||
        getsockname(l->fd, (struct sockaddr *)&sa, &sl) < 0)
        goto fail;
    l->port = ntohs(sa.sin_port);
    l->fwd_port = cfg->forwarded_port > 0 ? cfg->forwarded_port : l->port;
    if (cm_ev_add_fd(ev, l->fd, EPOLLIN, on_accept, l) < 0)
        goto fail;
    accept_guard_init(&l->guard, ev, l->fd, on_accept, l, l->name);
    /* TCP_UDP: the UDP forwarder on the same port number */
    if (cfg->udp == 1 && lb_udp_open(l, l->port, err, errlen) < 0) {
        accept_guard_cleanup(&l->guard);
        cm_ev_del_fd(ev, l->fd);
        close(l->fd);
        free(l->name);
        free(l);
        return NULL;
    }
    l->sweep_timer = cm_ev_add_timer(ev, 250, on_sweep, l);
    return l;

fail:
    if (err && errlen)
        snprintf(err, errlen, "cannot listen on 127.0.0.1:%d: %s", cfg->port, strerror(errno));
    if (l->fd >= 0)
        close(l->fd);
    free(l->name);
    free(l);
    return NULL;
}

void lb_listener_destroy(struct lb_listener *l)
{
    if (!l)
        return;
    cm_ev_del_timer(l->ev, l->sweep_timer);
    if (l->tls_kick_timer)
        cm_ev_del_timer(l->ev, l->tls_kick_timer);
    lb_udp_close(l);
    if (l->fd >= 0) {
        accept_guard_cleanup(&l->guard);
        cm_ev_del_fd(l->ev, l->fd);
        close(l->fd);
    }
    l->qhead = l->qtail = NULL;
    while (l->all) {
        struct cconn *c = l->all;

        c->state = CS_HEAD; /* the surge queue is dropped above */
        lb_client_close(c);
    }
    for (int i = 0; i < l->set.n; i++)
        lb_close_idle(l->set.v[i]);
    bal_cleanup(&l->set);
    while (l->cfree) {
        struct cconn *c = l->cfree;

        l->cfree = c->next;
        free(c);
    }
    while (l->bfree) {
        struct bconn *b = l->bfree;

        l->bfree = b->inext;
        free(b);
    }
    free(l->name);
    free(l);
}

int lb_listener_port(const struct lb_listener *l)
{
    return l->port;
}

enum lb_mode lb_listener_mode(const struct lb_listener *l)
{
    return l->mode;
}

void lb_listener_set_tls(struct lb_listener *l, struct ssl_ctx_st *tls, int mtls)
{
    l->tls = tls;
    l->mtls = mtls;
}

void lb_listener_set_idle_timeout(struct lb_listener *l, int64_t idle_timeout_ms)
{
    if (idle_timeout_ms > 0)
        l->idle_ms = idle_timeout_ms;
}

void lb_listener_set_zones(struct lb_listener *l, const char *const *zones, int n, int cross_zone)
{
    if (n > LB_ZONES_MAX)
        n = LB_ZONES_MAX;
    for (int i = 0; i < n; i++)
        snprintf(l->zones[i], sizeof(l->zones[i]), "%s", zones[i]);
    l->nzones = n;
    l->cross_zone = cross_zone;
    for (struct cconn *c = l->all; c; c = c->next)
        c->node = -1; /* reassigned at the next request */
}

void lb_listener_set_group(struct lb_listener *l, int group, int algorithm,
                           const struct sc_sticky *sticky)
{
    if (group < -1 || group >= LB_GROUPS_MAX)
        return;
    if (group >= 0)
        l->alg[group] = algorithm;
    if (sticky)
        l->sticky[group + 1] = *sticky;
    else
        memset(&l->sticky[group + 1], 0, sizeof(l->sticky[group + 1]));
}

void lb_backend_set_weight(struct lb_listener *l, const char *id, double weight)
{
    struct bal_backend *be = bal_find(&l->set, id);

    if (be)
        be->weight = weight < 0 ? 0 : weight > 1 ? 1 : weight;
}

void lb_listener_set_secret(struct lb_listener *l, uint64_t secret)
{
    l->secret = secret;
}

void lb_backend_set(struct lb_listener *l, const char *id, int port, const char *zone, int routable)
{
    lb_backend_set_in(l, -1, id, port, zone, routable);
}

void lb_backend_set_in(struct lb_listener *l, int group, const char *id, int port, const char *zone,
                       int routable)
{
    struct sockaddr_in sa;
    struct bal_backend *be = bal_find(&l->set, id);

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    if (be && be->addr.sin_port != sa.sin_port)
        lb_close_idle(be);
    be = bal_add(&l->set, id, &sa, zone);
    be->group = group < LB_GROUPS_MAX ? group : -1;
    if (be->routable && !routable)
        lb_close_idle(be);
    be->routable = routable != 0;
    if (routable)
        lb_run_surge_queue(l);
}

void lb_backend_remove(struct lb_listener *l, const char *id)
{
    struct bal_backend *be = bal_find(&l->set, id);

    if (!be)
        return;
    lb_close_idle(be);
    bal_remove(&l->set, be);
}

int lb_backend_outstanding(const struct lb_listener *l, const char *id)
{
    const struct bal_backend *be = bal_find(&l->set, id);

    return be ? be->outstanding : -1;
}

int lb_backend_count(const struct lb_listener *l)
{
    return l->set.n;
}

const char *lb_backend_id_at(const struct lb_listener *l, int i)
{
    return i >= 0 && i < l->set.n ? l->set.v[i]->id : NULL;
}

int lb_backend_traffic_at(const struct lb_listener *l, int i, struct lb_backend_traffic *out)
{
    const struct bal_backend *be;
    struct bal_rate r;

    if (i < 0 || i >= l->set.n)
        return -1;
    be = l->set.v[i];
    bal_traffic_rate(&be->traffic, lb_now_ms(), &r);
    out->id = be->id;
    out->group = be->group;
    out->routable = be->routable;
    out->outstanding = be->outstanding;
    out->responses = be->traffic.responses;
    out->errors_5xx = be->traffic.errors_5xx;
    out->latency_mean_ms =
        be->traffic.responses ? be->traffic.latency_sum_ms / (double)be->traffic.responses : 0;
    out->rate_per_s = r.per_s;
    out->rate_latency_ms = r.latency_ms;
    return 0;
}

void lb_listener_metrics_take(struct lb_listener *l, struct lb_metrics *out)
{
    int open = l->m.conns_open;

    *out = l->m;
    memset(&l->m, 0, sizeof(l->m));
    l->m.surge_queue_max = l->qlen;
    l->m.conns_open = open;
}

void lb_listener_group_metrics_take(struct lb_listener *l, int group, struct lb_group_metrics *out)
{
    memset(out, 0, sizeof(*out));
    if (group < 0 || group >= LB_GROUPS_MAX)
        return;
    *out = l->gm[group];
    memset(&l->gm[group], 0, sizeof(l->gm[group]));
}

void lb_listener_group_zone_metrics_take(struct lb_listener *l, int group, int zone,
                                         struct lb_group_metrics *out)
{
    memset(out, 0, sizeof(*out));
    if (group < 0 || group >= LB_GROUPS_MAX || zone < 0 || zone >= LB_ZONES_MAX)
        return;
    *out = l->gmz[group][zone];
    memset(&l->gmz[group][zone], 0, sizeof(l->gmz[group][zone]));
}

int lb_listener_surge_len(const struct lb_listener *l)
{
    return l->qlen;
}

int lb_listener_udp_flows(const struct lb_listener *l)
{
    return l->nflows;
}

int lb_listener_client_conns(const struct lb_listener *l)
{
    return l->nclients;
}

int lb_listener_idle_backend_conns(const struct lb_listener *l)
{
    int n = 0;

    for (int i = 0; i < l->set.n; i++)
        n += l->set.v[i]->nidle;
    return n;
}
