/* emulator/lb_internal.h: what lb.c, lb_conn.c and lb_tcp.c share; not public (lb.h is).
 *
 * One proxy state machine in three files: lb_conn.c holds the connections (epoll interest,
 * client I/O plain or TLS, the backend pool, client connections made, flushed, closed),
 * lb_tcp.c the TCP pump, lb.c accept, the idle sweep, the HTTP request and response phases
 * and the API. Everything runs on the listener's ev loop; a call that may close a
 * connection says so ("may close c"), and the caller does not touch it afterwards. */
#ifndef EMULATOR_LB_INTERNAL_H
#define EMULATOR_LB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <openssl/ssl.h>

#include "common/ev.h"
#include "emulator/accept_guard.h"
#include "emulator/balancer.h"
#include "emulator/lb.h"
#include "emulator/lb_http.h"

#define CIN_CAP      16384
#define COUT_CAP     (LB_HTTP_MAX_HEAD + 1024 + 16384)
#define BIN_CAP      16384
#define MTLS_HDR_MAX 8192 /* the X-Amzn-Mtls-Clientcert* lines of one connection */
#define BREQ_CAP     (LB_HTTP_MAX_HEAD + 1024 + CIN_CAP + MTLS_HDR_MAX)
#define FREE_MAX     256 /* connections kept on a free list */

enum cstate {
    CS_HEAD,   /* waiting for a request head (idle keep-alive or partial) */
    CS_QUEUED, /* in the surge queue (HTTP: a parsed request; TCP: a connection) */
    CS_PROXY,  /* a backend connection serves the request */
    CS_TCP,    /* TCP listener: piping */
};

enum bstate {
    BS_CONNECTING,
    BS_SEND, /* request (or its body) still going out */
    BS_HEAD, /* waiting for the response head */
    BS_BODY, /* response body flowing to the client */
    BS_IDLE, /* in the keep-alive pool */
    BS_TCP,
};

struct bconn;

struct cconn {
    struct lb_listener *l;
    int fd;
    SSL *ssl; /* HTTPS/SSL listeners: the TLS session over fd (NULL: plain) */
    uint32_t ssl_rd_want, ssl_wr_want; /* what the last SSL_read/SSL_write waits for */
    int ssl_kick; /* decrypted bytes wait inside OpenSSL: read them without an event */
    uint32_t events;
    enum cstate state;
    int node;  /* zone index, -1 = any */
    int group; /* ELBv2: the backend group of the current request, -1 = any */
    struct sockaddr_in peer;
    struct bconn *b;
    int64_t last_ms;
    int64_t req_us; /* request head parsed */
    int keep_alive, minor, is_head;
    int close_after; /* close once out is flushed */
    int eof;         /* client sent FIN (TCP mode) */
    enum lb_http_body body_kind;
    int64_t body_left;
    struct lb_http_chunked ch;
    int body_done;
    int retryable; /* the whole request sits in b->req */
    int retries;
    int resp_started;
    struct cconn *prev, *next; /* all client connections */
    struct cconn *qnext;
    size_t in_off, in_len; /* in_off: TCP mode only */
    size_t out_off, out_len;
    struct lb_http_msg msg;
    char *mtls_hdr;  /* mTLS listeners: the certificate headers, made after the handshake */
    int mtls_done;   /* mtls_hdr made (or none to make) */
    size_t tgck_len; /* the route's set_cookie lines for the current response */
    char tgck[512];
    char in[CIN_CAP];
    char out[COUT_CAP];
};

struct bconn {
    struct lb_listener *l;
    struct bal_backend *be;
    int fd;
    uint32_t events;
    enum bstate state;
    struct cconn *c;
    int reused;
    int eof; /* TCP mode */
    enum lb_http_body body_kind;
    int64_t body_left;
    struct lb_http_chunked ch;
    int keep_alive;
    int status;
    int64_t idle_since;
    struct bconn *inext;
    size_t req_off, req_len;
    size_t in_off, in_len;
    struct lb_http_msg msg;
    char req[BREQ_CAP];
    char in[BIN_CAP];
};

/* UDP listeners (lb_udp.c): one flow per client address and port. */
#define LB_UDP_FLOWS   4096
#define LB_UDP_BUCKETS 1024
#define LB_UDP_IDLE_MS 120000 /* AWS's UDP idle timeout (docs/elbv2.md 10.5) */
struct lb_udp_flow {
    struct lb_listener *l;
    struct sockaddr_in client;
    struct bal_backend *be; /* held (bal_ref) while the flow lives */
    int fd;                 /* connected to the target; -1: a free slot */
    int next;               /* the bucket's chain, or the free list */
    int64_t last_ms;
};

struct lb_listener {
    struct cm_ev *ev;
    SSL_CTX *tls; /* borrowed; NULL: plain */
    int mtls;     /* enum sc_mtls_mode of tls */
    long tls_kick_timer;
    char *name;
    int fd;
    int port;
    int fwd_port;
    enum lb_mode mode;
    int64_t idle_ms;
    int max_conns;
    int surge_max;
    long sweep_timer;
    struct accept_guard guard; /* out of fds: accepting pauses */
    struct bal_set set;
    char zones[LB_ZONES_MAX][BAL_ZONE_LEN];
    int nzones;
    int cross_zone;
    unsigned node_rr;
    struct cconn *all;
    int nclients;
    struct cconn *qhead, *qtail;
    int qlen;
    int surge_running; /* lb_tcp_run_surge_queue is on the stack (closing re-enters it) */
    struct cconn *cfree;
    int ncfree;
    struct bconn *bfree;
    int nbfree;
    struct lb_metrics m;
    lb_route_fn route; /* ELBv2 listeners; NULL: classic */
    void *route_ud;
    struct lb_group_metrics gm[LB_GROUPS_MAX];
    struct lb_group_metrics gmz[LB_GROUPS_MAX][LB_ZONES_MAX]; /* by the client's node zone */
    int alg[LB_GROUPS_MAX];                     /* enum sc_elbv2_algorithm per group */
    struct sc_sticky sticky[LB_GROUPS_MAX + 1]; /* [0]: classic (group -1), [g + 1] */
    uint64_t secret;                            /* seals stickiness cookies */
    uint64_t rng;
    /* UDP (lb_config.udp): the forwarder's socket (-1: none) and its flows */
    int udp_fd;
    struct lb_udp_flow *flows; /* LB_UDP_FLOWS */
    int udp_bucket[LB_UDP_BUCKETS];
    int udp_free;
    int nflows;
    int64_t udp_idle_ms;
};

static inline int64_t lb_now_ms(void)
{
    return cm_ev_now_ms();
}

static inline int64_t lb_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* lb_conn.c */
/* Sets the epoll interest from the connection's state (a TLS client's input that waits
 * inside OpenSSL gets a read on the next loop turn). */
void lb_client_events(struct cconn *c);
void lb_backend_events(struct bconn *b);
/* recv/send's contract over the client's socket, plain or TLS: bytes, 0 at the end, -1
 * with errno (EAGAIN while a TLS session waits for the socket). */
ssize_t lb_c_recv(struct cconn *c, void *buf, size_t n);
ssize_t lb_c_send(struct cconn *c, const void *buf, size_t n);
/* The client's write side is done (TCP/SSL listeners pass the backend's FIN on). */
void lb_c_shutdown_write(struct cconn *c);
/* Closes b (out of the idle pool if there); its memory goes to the listener's free list. */
void lb_bconn_free(struct bconn *b);
/* A new connection to be (non-blocking connect), or NULL when the socket call fails. */
struct bconn *lb_bconn_connect(struct lb_listener *l, struct bal_backend *be);
/* A pooled connection to be (ready to send), else a new one (connecting); NULL on failure. */
struct bconn *lb_bconn_get_or_connect(struct lb_listener *l, struct bal_backend *be);
void lb_bconn_to_idle(struct bconn *b); /* into be's keep-alive pool */
void lb_close_idle(struct bal_backend *be);
/* Closes be's pooled connections idle for idle_ms or more at now_ms (the load balancer's
 * idle timeout applies to back-end connections too); returns how many. */
int lb_close_idle_since(struct bal_backend *be, int64_t now_ms, int64_t idle_ms);
/* A client connection on fd (from the free list or new), linked into l->all. */
struct cconn *lb_cconn_new(struct lb_listener *l, int fd);
void lb_surge_remove(struct cconn *c); /* out of the surge queue */
/* Appends c to the surge queue (state CS_QUEUED; the peak counts for SurgeQueueLength);
 * -1 when it is full (counted in SpilloverCount: the caller answers 503 or closes). */
int lb_surge_push(struct cconn *c);
/* Detaches and closes the backend connection of an unfinished request. */
void lb_abort_backend(struct cconn *c);
/* Closes c (and its backend connection); queued requests may start. */
void lb_client_close(struct cconn *c);
/* Sends pending output; closes when asked to after it; resumes the next request. May
 * close c. */
void lb_client_flush(struct cconn *c);
/* Sends head (already in c->out) and p[0..n) to the client, writev when nothing waits;
 * -1 on a send error or when what is left does not fit in c->out. */
int lb_client_send(struct cconn *c, const char *p, size_t n);

/* lb.c */
/* The ev callbacks of backend and client sockets (ud is the connection). */
void lb_on_backend(struct cm_ev *ev, int fd, uint32_t events, void *ud);
void lb_on_client(struct cm_ev *ev, int fd, uint32_t events, void *ud);
void lb_run_surge_queue(struct lb_listener *l); /* starts queued requests that can go */
/* A parse of the input buffer when no request is in progress. May close c. */
void lb_client_process(struct cconn *c);
/* Appends bytes to the client's pending output. Returns -1 when they do not fit. */
int lb_out_append(struct cconn *c, const char *p, size_t n);
/* Assigns a node (zone) to a new client, in turn among zones with routable backends (with
 * an NLB group's source_ip stickiness and cross-zone off: by the client's address). */
void lb_assign_node(struct cconn *c);
/* The client's address as sc_elbv2_source_ip_key reads it. */
uint64_t lb_client_key(const struct cconn *c);
/* The node (zone index, -1 any) for a new client or flow whose address has key client. */
int lb_pick_node(struct lb_listener *l, uint64_t client);
/* The zone c's node routes to, or NULL for any. */
const char *lb_node_zone(const struct cconn *c);

/* The backend for c's current request (its group's algorithm; classic: least
 * outstanding requests); NULL, *at_cap as bal_pick_*. */
struct bal_backend *lb_pick(struct cconn *c, int *at_cap);

/* lb_udp.c */
/* Binds the UDP forwarder on 127.0.0.1:port (0: any) and allocates its flow table.
 * Returns the bound port, or -1 with a message in err. */
int lb_udp_open(struct lb_listener *l, int port, char *err, size_t errlen);
/* Ends every flow and closes the socket; a no-op without one. */
void lb_udp_close(struct lb_listener *l);
/* Ends flows idle for the UDP idle timeout. */
void lb_udp_sweep(struct lb_listener *l, int64_t now);

/* lb_tcp.c */
/* Moves bytes both ways as far as the sockets allow. May close c. */
void lb_tcp_pump(struct cconn *c);
/* The client's and the backend's socket events on a TCP listener. May close both. */
void lb_tcp_client(struct cconn *c, uint32_t events);
void lb_tcp_backend(struct bconn *b, uint32_t events);
/* Connects a new client to a backend taken in turn; when every routable backend is at
 * the per-backend limit the connection waits in the surge queue (closed when that is full:
 * SpilloverCount); closed when no backend can be had. May close c. */
void lb_tcp_start(struct cconn *c);
/* The load balancer resets the flow (RST both ways; no target, the idle timeout). */
void lb_tcp_reset(struct cconn *c);
/* Connects queued TCP clients while backends have room (lb_run_surge_queue's TCP half). */
void lb_tcp_run_surge_queue(struct lb_listener *l);

#endif
