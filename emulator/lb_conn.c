/* emulator/lb_conn.c: the proxy's connections (see lb.h, lb_internal.h): epoll interest,
 * client I/O plain or TLS, the backend connection pool, and client connections made,
 * flushed and closed. */
#include "emulator/lb.h"

#include <errno.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <arpa/inet.h>

#include "common/ev.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "emulator/balancer.h"
#include "emulator/lb_internal.h"
#include "emulator/lb_tls.h"
#include "scaler/elbv2_mtls.h"

/* --- small helpers --------------------------------------------------------------------- */

static void set_events(struct cm_ev *ev, int fd, uint32_t *cur, uint32_t want)
{
    if (fd >= 0 && *cur != want) {
        cm_ev_mod_fd(ev, fd, want);
        *cur = want;
    }
}

static void tls_kick(struct cconn *c);

void lb_client_events(struct cconn *c)
{
    uint32_t e = 0;

    if (c->l->mode == LB_MODE_TCP) { /* piping, or waiting in the surge queue */
        if (c->in_len == 0 && !c->eof)
            e |= EPOLLIN;
        if (c->b && c->b->in_len > c->b->in_off)
            e |= EPOLLOUT;
    } else {
        if (c->in_len < CIN_CAP && !c->close_after)
            e |= EPOLLIN | EPOLLRDHUP;
        if (c->out_len > c->out_off)
            e |= EPOLLOUT;
    }
    if (c->ssl) {
        /* a read may wait for the socket to take a handshake write, and the reverse */
        if (e & EPOLLIN)
            e |= c->ssl_rd_want;
        if (e & EPOLLOUT)
            e |= c->ssl_wr_want;
        if ((e & EPOLLIN) && SSL_pending(c->ssl) > 0)
            tls_kick(c);
    }
    set_events(c->l->ev, c->fd, &c->events, e);
}

void lb_backend_events(struct bconn *b)
{
    uint32_t e = 0;
    struct cconn *c = b->c;

    switch (b->state) {
    case BS_CONNECTING:
        e = EPOLLOUT;
        break;
    case BS_SEND:
        e = EPOLLIN;
        if (b->req_len > b->req_off)
            e |= EPOLLOUT;
        break;
    case BS_HEAD:
    case BS_BODY:
        if (!c || c->out_len == c->out_off)
            e = EPOLLIN;
        break;
    case BS_IDLE:
        e = EPOLLIN;
        break;
    case BS_TCP:
        if (b->in_len == 0 && !b->eof)
            e |= EPOLLIN;
        if (c && c->in_len > c->in_off)
            e |= EPOLLOUT;
        break;
    }
    set_events(b->l->ev, b->fd, &b->events, e);
}

/* --- client I/O, plain or TLS ------------------------------------------------------------ */

/* Maps an SSL_read/SSL_write result to recv/send's: bytes, 0 at the end, -1 with errno
 * (EAGAIN while the session waits for the socket; *want says for what). */
static ssize_t tls_result(struct cconn *c, int r, uint32_t *want)
{
    int e;

    if (r > 0) {
        *want = 0;
        return r;
    }
    e = SSL_get_error(c->ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        *want = e == SSL_ERROR_WANT_READ ? EPOLLIN : EPOLLOUT;
        errno = EAGAIN;
        return -1;
    }
    ERR_clear_error();
    if (e == SSL_ERROR_SSL && c->l->mtls == SC_MTLS_VERIFY && !SSL_is_init_finished(c->ssl)) {
        char ip[INET_ADDRSTRLEN] = "?";

        inet_ntop(AF_INET, &c->peer.sin_addr, ip, sizeof(ip));
        log_info("connection log: %s %s:%d %s", c->l->name, ip, ntohs(c->peer.sin_port),
                 lb_tls_verify_status(c->ssl));
    }
    if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && r == 0))
        return 0; /* close_notify, or EOF without one */
    errno = ECONNRESET;
    return -1;
}

static ssize_t counted(struct cconn *c, ssize_t r)
{
    if (r > 0)
        c->l->m.client_bytes += (uint64_t)r;
    return r;
}

ssize_t lb_c_recv(struct cconn *c, void *buf, size_t n)
{
    if (!c->ssl)
        return counted(c, recv(c->fd, buf, n, 0));
    return counted(
        c, tls_result(c, SSL_read(c->ssl, buf, n > 1 << 30 ? 1 << 30 : (int)n), &c->ssl_rd_want));
}

ssize_t lb_c_send(struct cconn *c, const void *buf, size_t n)
{
    if (!c->ssl)
        return counted(c, send(c->fd, buf, n, MSG_NOSIGNAL));
    if (n == 0)
        return 0;
    return counted(
        c, tls_result(c, SSL_write(c->ssl, buf, n > 1 << 30 ? 1 << 30 : (int)n), &c->ssl_wr_want));
}

/* writev's contract over lb_c_send: the bytes taken from iov in order. */
static ssize_t c_writev(struct cconn *c, const struct iovec *iov, int k)
{
    ssize_t total = 0;

    if (!c->ssl)
        return counted(c, writev(c->fd, iov, k));
    for (int i = 0; i < k; i++) {
        ssize_t w = lb_c_send(c, iov[i].iov_base, iov[i].iov_len);

        if (w < 0)
            return total > 0 ? total : -1;
        total += w;
        if ((size_t)w < iov[i].iov_len)
            break;
    }
    return total;
}

/* The client's write side is done (TCP/SSL listeners pass the backend's FIN on). */
void lb_c_shutdown_write(struct cconn *c)
{
    if (c->ssl)
        SSL_shutdown(c->ssl); /* close_notify; the peer's is not awaited */
    shutdown(c->fd, SHUT_WR);
}

/* Clients whose decrypted input waits inside OpenSSL get a read without an epoll event. */
static int64_t on_tls_kick(struct cm_ev *ev, int64_t now, void *ud)
{
    struct lb_listener *l = ud;
    struct cconn *c;

    (void)ev;
    (void)now;
    l->tls_kick_timer = 0;
again:
    for (c = l->all; c; c = c->next) {
        if (!c->ssl_kick)
            continue;
        c->ssl_kick = 0;
        if (c->ssl && SSL_pending(c->ssl) > 0)
            lb_on_client(l->ev, c->fd, EPOLLIN, c); /* may close c */
        goto again;
    }
    return -1;
}

static void tls_kick(struct cconn *c)
{
    struct lb_listener *l = c->l;

    c->ssl_kick = 1;
    if (!l->tls_kick_timer)
        l->tls_kick_timer = cm_ev_add_timer(l->ev, 0, on_tls_kick, l);
}

/* --- backend connections ------------------------------------------------------------------ */

static void idle_unlink(struct bconn *b)
{
    struct bconn **pp = (struct bconn **)&b->be->idle;

    for (; *pp; pp = &(*pp)->inext) {
        if (*pp == b) {
            *pp = b->inext;
            b->be->nidle--;
            return;
        }
    }
}

void lb_bconn_free(struct bconn *b)
{
    struct lb_listener *l = b->l;

    if (b->state == BS_IDLE)
        idle_unlink(b);
    if (b->fd >= 0) {
        cm_ev_del_fd(l->ev, b->fd);
        close(b->fd);
        l->m.conns_open--;
        l->m.conns_closed++;
    }
    b->be->conns--;
    bal_unref(b->be);
    if (l->nbfree < FREE_MAX) {
        b->inext = l->bfree;
        l->bfree = b;
        l->nbfree++;
    } else {
        free(b);
    }
}

/* A new connection to be (non-blocking connect). NULL when the socket call fails at once
 * (counted as a backend connection error). */
struct bconn *lb_bconn_connect(struct lb_listener *l, struct bal_backend *be)
{
    struct bconn *b;
    int fd, one = 1;

    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return NULL;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(fd, (const struct sockaddr *)&be->addr, sizeof(be->addr)) < 0 &&
        errno != EINPROGRESS) {
        close(fd);
        return NULL;
    }
    if (l->bfree) {
        b = l->bfree;
        l->bfree = b->inext;
        l->nbfree--;
    } else {
        b = cm_xmalloc(sizeof(*b));
    }
    b->l = l;
    b->be = be;
    bal_ref(be);
    be->conns++;
    l->m.backend_conns++;
    l->m.conns_open++;
    b->fd = fd;
    b->events = EPOLLOUT;
    b->state = BS_CONNECTING;
    b->c = NULL;
    b->reused = 0;
    b->eof = 0;
    b->inext = NULL;
    b->req_off = b->req_len = b->in_off = b->in_len = 0;
    if (cm_ev_add_fd(l->ev, fd, EPOLLOUT, lb_on_backend, b) < 0) {
        b->fd = -1;
        l->m.conns_open--;
        close(fd);
        lb_bconn_free(b);
        return NULL;
    }
    return b;
}

struct bconn *lb_bconn_get_or_connect(struct lb_listener *l, struct bal_backend *be)
{
    struct bconn *b = be->idle;

    if (b) {
        be->idle = b->inext;
        be->nidle--;
        b->inext = NULL;
        b->reused = 1;
        b->state = BS_SEND;
        b->req_off = b->req_len = b->in_off = b->in_len = 0;
        return b;
    }
    return lb_bconn_connect(l, be);
}

void lb_bconn_to_idle(struct bconn *b)
{
    b->c = NULL;
    b->state = BS_IDLE;
    b->idle_since = lb_now_ms();
    b->inext = b->be->idle;
    b->be->idle = b;
    b->be->nidle++;
    lb_backend_events(b);
}

void lb_close_idle(struct bal_backend *be)
{
    while (be->idle)
        lb_bconn_free(be->idle);
}

int lb_close_idle_since(struct bal_backend *be, int64_t now_ms, int64_t idle_ms)
{
    struct bconn **pp = (struct bconn **)&be->idle;
    int n = 0;

    while (*pp) {
        struct bconn *b = *pp;

        if (now_ms - b->idle_since < idle_ms) {
            pp = &b->inext;
            continue;
        }
        *pp = b->inext; /* out of the pool here: lb_bconn_free would search for it */
        be->nidle--;
        b->state = BS_SEND;
        lb_bconn_free(b);
        n++;
    }
    return n;
}

/* --- client side --------------------------------------------------------------------------- */

struct cconn *lb_cconn_new(struct lb_listener *l, int fd)
{
    struct cconn *c;

    if (l->cfree) {
        c = l->cfree;
        l->cfree = c->next;
        l->ncfree--;
    } else {
        c = cm_xmalloc(sizeof(*c));
    }
    c->l = l;
    c->fd = fd;
    c->tgck_len = 0;
    c->mtls_hdr = NULL;
    c->mtls_done = 0;
    l->m.conns_open++;
    c->ssl = NULL;
    c->ssl_rd_want = c->ssl_wr_want = 0;
    c->ssl_kick = 0;
    c->events = 0;
    c->state = l->mode == LB_MODE_TCP ? CS_TCP : CS_HEAD;
    c->node = -1;
    c->group = -1;
    c->b = NULL;
    c->last_ms = lb_now_ms();
    c->keep_alive = 1;
    c->minor = 1;
    c->is_head = 0;
    c->close_after = 0;
    c->eof = 0;
    c->body_kind = LB_HTTP_BODY_NONE;
    c->retries = 0;
    c->resp_started = 0;
    c->qnext = NULL;
    c->in_off = c->in_len = c->out_off = c->out_len = 0;
    c->prev = NULL;
    c->next = l->all;
    if (l->all)
        l->all->prev = c;
    l->all = c;
    l->nclients++;
    return c;
}

void lb_surge_remove(struct cconn *c)
{
    struct lb_listener *l = c->l;
    struct cconn **pp = &l->qhead, *prev = NULL;

    for (; *pp; prev = *pp, pp = &(*pp)->qnext) {
        if (*pp == c) {
            *pp = c->qnext;
            if (l->qtail == c)
                l->qtail = prev;
            l->qlen--;
            return;
        }
    }
}

int lb_surge_push(struct cconn *c)
{
    struct lb_listener *l = c->l;

    if (l->qlen >= l->surge_max) {
        l->m.spillover++;
        return -1;
    }
    c->state = CS_QUEUED;
    c->qnext = NULL;
    if (l->qtail)
        l->qtail->qnext = c;
    else
        l->qhead = c;
    l->qtail = c;
    l->qlen++;
    if (l->qlen > l->m.surge_queue_max)
        l->m.surge_queue_max = l->qlen;
    return 0;
}

/* Detaches and closes the backend connection of an unfinished request. */
void lb_abort_backend(struct cconn *c)
{
    struct bconn *b = c->b;

    if (!b)
        return;
    c->b = NULL;
    b->c = NULL;
    if (b->be->outstanding > 0)
        b->be->outstanding--;
    lb_bconn_free(b);
}

void lb_client_close(struct cconn *c)
{
    struct lb_listener *l = c->l;

    if (c->state == CS_QUEUED)
        lb_surge_remove(c);
    lb_abort_backend(c);
    if (c->ssl) {
        SSL_free(c->ssl);
        c->ssl = NULL;
    }
    free(c->mtls_hdr);
    c->mtls_hdr = NULL;
    if (c->fd >= 0) {
        cm_ev_del_fd(l->ev, c->fd);
        close(c->fd);
        l->m.conns_open--;
        l->m.conns_closed++;
        l->m.client_closed++;
    }
    if (c->prev)
        c->prev->next = c->next;
    else
        l->all = c->next;
    if (c->next)
        c->next->prev = c->prev;
    l->nclients--;
    if (l->ncfree < FREE_MAX) {
        c->next = l->cfree;
        l->cfree = c;
        l->ncfree++;
    } else {
        free(c);
    }
    lb_run_surge_queue(l);
}

/* Sends pending output; closes when asked to after it; resumes the next request. */
void lb_client_flush(struct cconn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = lb_c_send(c, c->out + c->out_off, c->out_len - c->out_off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            lb_client_events(c);
            return;
        }
        if (n <= 0) {
            lb_client_close(c);
            return;
        }
        c->out_off += (size_t)n;
        c->resp_started = 1;
    }
    c->out_off = c->out_len = 0;
    if (c->state == CS_HEAD && c->close_after) {
        lb_client_close(c);
        return;
    }
    if (c->b)
        lb_backend_events(c->b);
    lb_client_events(c);
    if (c->state == CS_HEAD && c->in_len > 0)
        lb_client_process(c);
}

/* Sends head (already in c->out) and p[0..n) to the client, writev when nothing waits. */
int lb_client_send(struct cconn *c, const char *p, size_t n)
{
    struct iovec iov[2];
    int k = 0;
    ssize_t w;
    size_t pending = c->out_len - c->out_off;

    if (pending) {
        iov[k].iov_base = c->out + c->out_off;
        iov[k++].iov_len = pending;
    }
    if (n) {
        iov[k].iov_base = (void *)p;
        iov[k++].iov_len = n;
    }
    if (k == 0)
        return 0;
    do {
        w = c_writev(c, iov, k);
    } while (w < 0 && errno == EINTR);
    if (w < 0 && errno != EAGAIN)
        return -1;
    if (w < 0)
        w = 0;
    if (w > 0)
        c->resp_started = 1;
    if ((size_t)w >= pending) {
        size_t used = (size_t)w - pending;

        c->out_off = c->out_len = 0;
        if (used < n && lb_out_append(c, p + used, n - used) < 0)
            return -1;
    } else {
        c->out_off += (size_t)w;
        if (n && lb_out_append(c, p, n) < 0)
            return -1;
    }
    return 0;
}
