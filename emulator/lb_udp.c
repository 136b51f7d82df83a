/* emulator/lb_udp.c: a Network Load Balancer's UDP listener (UDP and TCP_UDP) as a real
 * forwarder on the listener's port (docs/elbv2.md 10.5). A flow is the datagrams of one
 * client address and port (the 5-tuple's varying part: protocol and destination are the
 * listener's); its first datagram picks a target (source_ip stickiness or in turn, within
 * the client's node zone) and opens a UDP socket connected to it, so the target's answers
 * come back on that socket and go out from the listener's port to the client. A flow with
 * no datagram either way for the UDP idle timeout (120 s, real time like the TCP idle
 * timeout) ends; one whose target left the set ends at its next datagram, which starts a
 * new flow. Hot path: no allocation per datagram or flow (the flow table is allocated when
 * the listener opens), bounded loops per readiness event. */
#include "emulator/lb_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "scaler/elbv2.h"

#define UDP_DGRAM_MAX 65536
#define UDP_BURST     64 /* datagrams per readiness event, then back to the loop */

static unsigned flow_bucket(const struct sockaddr_in *a)
{
    uint32_t h = (uint32_t)a->sin_addr.s_addr * 2654435761u ^ (uint32_t)a->sin_port * 40503u;

    return (h ^ (h >> 16)) % LB_UDP_BUCKETS;
}

static struct lb_udp_flow *flow_find(struct lb_listener *l, const struct sockaddr_in *a)
{
    for (int i = l->udp_bucket[flow_bucket(a)]; i >= 0; i = l->flows[i].next) {
        struct lb_udp_flow *f = &l->flows[i];

        if (f->client.sin_addr.s_addr == a->sin_addr.s_addr && f->client.sin_port == a->sin_port)
            return f;
    }
    return NULL;
}

static void flow_end(struct lb_listener *l, struct lb_udp_flow *f)
{
    int idx = (int)(f - l->flows);
    int *p = &l->udp_bucket[flow_bucket(&f->client)];

    while (*p >= 0 && *p != idx)
        p = &l->flows[*p].next;
    if (*p == idx)
        *p = f->next;
    cm_ev_del_fd(l->ev, f->fd);
    close(f->fd);
    f->fd = -1;
    if (f->be) {
        f->be->outstanding -= f->be->outstanding > 0;
        bal_unref(f->be);
        f->be = NULL;
    }
    f->next = l->udp_free;
    l->udp_free = idx;
    l->nflows--;
    l->m.udp_flows_closed++;
}

/* The target's answers: each goes to the flow's client from the listener's port. */
static void on_target(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct lb_udp_flow *f = ud;
    struct lb_listener *l = f->l;
    static char buf[UDP_DGRAM_MAX];

    (void)ev;
    (void)events;
    for (int k = 0; k < UDP_BURST; k++) {
        ssize_t n = recv(fd, buf, sizeof(buf), 0);

        if (n < 0)
            return; /* EAGAIN, or an ICMP error (the target's port closed): nothing to pass */
        f->last_ms = lb_now_ms();
        l->m.udp_bytes += (uint64_t)n;
        sendto(l->udp_fd, buf, (size_t)n, 0, (struct sockaddr *)&f->client, sizeof(f->client));
    }
}

static struct lb_udp_flow *flow_start(struct lb_listener *l, const struct sockaddr_in *client)
{
    struct sockaddr_in peer = *client;
    uint64_t key = sc_elbv2_source_ip_key(&peer.sin_addr, sizeof(peer.sin_addr));
    int node = lb_pick_node(l, key), at_cap = 0, idx, fd;
    const char *zone = l->nzones == 0 || l->cross_zone || node < 0 ? NULL : l->zones[node];
    struct bal_backend *be;
    struct lb_udp_flow *f;

    if (l->udp_free < 0)
        return NULL; /* the table is full: the datagram is dropped */
    if (l->sticky[1].type == SC_STICKY_SOURCE_IP)
        be = bal_pick_source_ip(&l->set, zone, key, 0, &at_cap);
    else
        be = bal_pick_round_robin(&l->set, zone, 0, &at_cap);
    if (!be)
        return NULL;
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&be->addr, sizeof(be->addr)) < 0) {
        if (fd >= 0)
            close(fd);
        l->m.backend_conn_errors++;
        return NULL;
    }
    idx = l->udp_free;
    f = &l->flows[idx];
    l->udp_free = f->next;
    f->l = l;
    f->client = *client;
    f->fd = fd;
    f->be = be;
    f->last_ms = lb_now_ms();
    if (cm_ev_add_fd(l->ev, fd, EPOLLIN, on_target, f) < 0) {
        close(fd);
        f->fd = -1;
        f->be = NULL;
        f->next = l->udp_free;
        l->udp_free = idx;
        return NULL;
    }
    bal_ref(be);
    be->outstanding++; /* a draining target waits for its flows (docs/elbv2.md 7) */
    f->next = l->udp_bucket[flow_bucket(client)];
    l->udp_bucket[flow_bucket(client)] = idx;
    l->nflows++;
    l->m.udp_new_flows++;
    return f;
}

/* Clients' datagrams on the listener's port. */
static void on_client(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct lb_listener *l = ud;
    static char buf[UDP_DGRAM_MAX];

    (void)ev;
    (void)events;
    for (int k = 0; k < UDP_BURST; k++) {
        struct sockaddr_in from;
        socklen_t fl = sizeof(from);
        ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
        struct lb_udp_flow *f;

        if (n < 0)
            return;
        f = flow_find(l, &from);
        if (f && f->be->removed) {
            flow_end(l, f); /* its target left: the datagram starts a new flow */
            f = NULL;
        }
        if (!f)
            f = flow_start(l, &from);
        if (!f)
            continue; /* no routable target (or no room): dropped, as UDP may be */
        f->last_ms = lb_now_ms();
        l->m.udp_bytes += (uint64_t)n;
        send(f->fd, buf, (size_t)n, 0);
    }
}

int lb_udp_open(struct lb_listener *l, int port, char *err, size_t errlen)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);

    l->udp_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->udp_fd < 0)
        goto fail;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    if (bind(l->udp_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        getsockname(l->udp_fd, (struct sockaddr *)&sa, &sl) < 0)
        goto fail;
    if (cm_ev_add_fd(l->ev, l->udp_fd, EPOLLIN, on_client, l) < 0)
        goto fail;
    l->flows = cm_xcalloc(LB_UDP_FLOWS, sizeof(*l->flows));
    for (int i = 0; i < LB_UDP_BUCKETS; i++)
        l->udp_bucket[i] = -1;
    for (int i = 0; i < LB_UDP_FLOWS; i++) {
        l->flows[i].fd = -1;
        l->flows[i].next = i + 1 < LB_UDP_FLOWS ? i + 1 : -1;
    }
    l->udp_free = 0;
    if (l->udp_idle_ms <= 0)
        l->udp_idle_ms = LB_UDP_IDLE_MS;
    return ntohs(sa.sin_port);

fail:
    if (err && errlen)
        snprintf(err, errlen, "cannot bind UDP 127.0.0.1:%d: %s", port, strerror(errno));
    if (l->udp_fd >= 0)
        close(l->udp_fd);
    l->udp_fd = -1;
    return -1;
}

void lb_udp_close(struct lb_listener *l)
{
    if (l->udp_fd < 0)
        return;
    for (int i = 0; l->flows && i < LB_UDP_FLOWS; i++) {
        if (l->flows[i].fd >= 0)
            flow_end(l, &l->flows[i]);
    }
    cm_ev_del_fd(l->ev, l->udp_fd);
    close(l->udp_fd);
    l->udp_fd = -1;
    free(l->flows);
    l->flows = NULL;
}

void lb_udp_sweep(struct lb_listener *l, int64_t now)
{
    if (l->udp_fd < 0 || l->nflows == 0)
        return;
    for (int i = 0; i < LB_UDP_FLOWS; i++) {
        if (l->flows[i].fd >= 0 && now - l->flows[i].last_ms >= l->udp_idle_ms)
            flow_end(l, &l->flows[i]);
    }
}
