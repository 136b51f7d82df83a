/* emulator/lb_tcp.c: TCP and SSL listeners (see lb.h): a client connection piped both
 * ways to a backend taken in turn. */
#include "emulator/lb.h"

#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "emulator/balancer.h"
#include "emulator/lb_internal.h"

/* --- TCP listeners ---------------------------------------------------------------------------- */

static void tcp_close_both(struct cconn *c)
{
    lb_client_close(c); /* closes c->b too */
}

/* The next close of fd sends a TCP RST. */
static void rst_on_close(int fd)
{
    struct linger lg = { 1, 0 };

    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

/* A reset from one side reaches the other (NetworkELB: TCP_Client_Reset_Count /
 * TCP_Target_Reset_Count); closes both. */
static void tcp_reset_both(struct cconn *c, int from_client)
{
    if (from_client) {
        c->l->m.client_resets++;
        if (c->b)
            rst_on_close(c->b->fd);
    } else {
        c->l->m.backend_resets++;
        rst_on_close(c->fd);
    }
    tcp_close_both(c);
}

void lb_tcp_reset(struct cconn *c)
{
    c->l->m.own_resets++; /* TCP_ELB_Reset_Count */
    rst_on_close(c->fd);
    if (c->b)
        rst_on_close(c->b->fd);
    tcp_close_both(c);
}

/* Moves bytes both ways as far as the sockets allow. */
void lb_tcp_pump(struct cconn *c)
{
    struct bconn *b = c->b;
    ssize_t n;

    if (!b || b->state != BS_TCP)
        return;
    /* client -> backend */
    while (c->in_len > c->in_off) {
        n = send(b->fd, c->in + c->in_off, c->in_len - c->in_off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) {
            tcp_close_both(c);
            return;
        }
        c->in_off += (size_t)n;
    }
    if (c->in_off == c->in_len) {
        c->in_off = c->in_len = 0;
        if (c->eof)
            shutdown(b->fd, SHUT_WR);
    }
    /* backend -> client */
    while (b->in_len > b->in_off) {
        n = lb_c_send(c, b->in + b->in_off, b->in_len - b->in_off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) {
            tcp_close_both(c);
            return;
        }
        b->in_off += (size_t)n;
    }
    if (b->in_off == b->in_len) {
        b->in_off = b->in_len = 0;
        if (b->eof)
            lb_c_shutdown_write(c);
    }
    if (c->eof && b->eof && c->in_len == 0 && b->in_len == 0) {
        tcp_close_both(c);
        return;
    }
    lb_client_events(c);
    lb_backend_events(b);
}

void lb_tcp_client(struct cconn *c, uint32_t events)
{
    if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && c->in_len == 0 && !c->eof) {
        ssize_t n = lb_c_recv(c, c->in, CIN_CAP);

        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            if (errno == ECONNRESET)
                tcp_reset_both(c, 1);
            else
                tcp_close_both(c);
            return;
        }
        if (n == 0)
            c->eof = 1;
        if (n > 0) {
            c->in_len = (size_t)n;
            c->in_off = 0;
            c->last_ms = lb_now_ms();
        }
    }
    if (!c->b || c->b->state != BS_TCP) {
        lb_client_events(c);
        if (c->eof && c->in_len == 0)
            tcp_close_both(c);
        return;
    }
    lb_tcp_pump(c);
}

void lb_tcp_backend(struct bconn *b, uint32_t events)
{
    struct cconn *c = b->c;

    if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && b->in_len == 0 && !b->eof) {
        ssize_t n = recv(b->fd, b->in, BIN_CAP, 0);

        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            if (errno == ECONNRESET)
                tcp_reset_both(c, 0);
            else
                tcp_close_both(c);
            return;
        }
        if (n == 0)
            b->eof = 1;
        if (n > 0) {
            b->in_len = (size_t)n;
            b->in_off = 0;
            c->last_ms = lb_now_ms();
        }
    }
    lb_tcp_pump(c);
}

void lb_tcp_start(struct cconn *c)
{
    struct lb_listener *l = c->l;
    struct bal_backend *be;
    struct bconn *b;

    lb_assign_node(c);
    for (int attempt = 0; attempt < 2; attempt++) {
        be = bal_pick_round_robin(&l->set, lb_node_zone(c), l->max_conns, NULL);
        if (!be)
            break;
        b = lb_bconn_connect(l, be);
        if (!b) {
            l->m.backend_conn_errors++;
            continue;
        }
        b->c = c;
        c->b = b;
        be->outstanding++;
        lb_client_events(c);
        return;
    }
    lb_tcp_reset(c); /* no target can take it: the load balancer resets the client */
}
