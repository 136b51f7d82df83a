/* emulator/lb_tcp.c: TCP and SSL listeners (see lb.h): a client connection piped both
 * ways to a backend taken in turn, or waiting in the surge queue while every backend has
 * its limit of connections. */
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

/* Connects c to a backend taken in turn (or by the client's address: source_ip): 0, or -1 when none
 * can be had (*at_cap set when every routable backend has max_conns connections). */
static int tcp_connect(struct cconn *c, int *at_cap)
{
    struct lb_listener *l = c->l;
    struct bal_backend *be;
    struct bconn *b;

    for (int attempt = 0; attempt < 2; attempt++) {
        /* an NLB group's source_ip stickiness (group 0: the listener's target group) */
        if (l->sticky[1].type == SC_STICKY_SOURCE_IP)
            be = bal_pick_source_ip(&l->set, lb_node_zone(c), lb_client_key(c), l->max_conns,
                                    at_cap);
        else
            be = bal_pick_round_robin(&l->set, lb_node_zone(c), l->max_conns, at_cap);
        if (!be)
            return -1;
        b = lb_bconn_connect(l, be);
        if (!b) {
            l->m.backend_conn_errors++;
            continue;
        }
        b->c = c;
        c->b = b;
        c->state = CS_TCP;
        be->outstanding++;
        lb_client_events(c);
        return 0;
    }
    *at_cap = 0;
    return -1;
}

void lb_tcp_start(struct cconn *c)
{
    int at_cap = 0;

    lb_assign_node(c);
    if (tcp_connect(c, &at_cap) == 0)
        return;
    /* AWS's surge queue holds connections (TCP listener) pending routing, up to 1,024;
     * past it the load balancer closes the connection (SpilloverCount) */
    if (at_cap && lb_surge_push(c) == 0) {
        lb_client_events(c);
        return;
    }
    lb_tcp_reset(c); /* no target can take it: the load balancer resets the client */
}

void lb_tcp_run_surge_queue(struct lb_listener *l)
{
    if (l->surge_running)
        return; /* a close below re-enters: the loop here goes on */
    l->surge_running = 1;
    while (l->qhead) {
        struct cconn *c = l->qhead;
        int at_cap = 0;

        l->qhead = c->qnext;
        if (!l->qhead)
            l->qtail = NULL;
        l->qlen--;
        c->qnext = NULL;
        c->state = CS_TCP;
        if (tcp_connect(c, &at_cap) == 0) {
            c->last_ms = lb_now_ms();
            continue;
        }
        if (at_cap) { /* back at the head, in its turn */
            c->state = CS_QUEUED;
            c->qnext = l->qhead;
            l->qhead = c;
            if (!l->qtail)
                l->qtail = c;
            l->qlen++;
            break;
        }
        lb_client_close(c);
    }
    l->surge_running = 0;
}
