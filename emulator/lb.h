/* emulator/lb.h: one classic-ELB listener as a real reverse proxy on 127.0.0.1, on the
 * caller's common/ev loop (single-threaded, non-blocking).
 *
 * HTTPS and SSL listeners terminate TLS first (lb_config.tls, lb_tls.h), non-blocking.
 * HTTP listeners parse each request (lb_http), add X-Forwarded-For/-Proto/-Port, answer
 * Expect: 100-continue themselves, and send it to the backend with the fewest outstanding
 * requests over a pooled keep-alive connection; the response goes back unchanged but for
 * the hop-by-hop headers; a pooled connection idle for the idle timeout closes. TCP
 * listeners pipe bytes both ways to backends taken in turn; a connection that finds every
 * routable backend at `backend_max_conns` waits in the surge queue (closed when it is full:
 * SpilloverCount; closed after the idle timeout in it).
 * The proxy's own answers (spec 6.5): 503 when no backend is routable or the surge queue
 * (1,024) is full (SpilloverCount), 504 when a request sees no progress for the idle
 * timeout, 502 when the backend's response is unparsable or the backend fails before
 * answering (a request that was never sent, or whose backend failed before any byte of
 * the response, is retried once on another backend; BackendConnectionErrors counts each
 * failed connection). Requests wait in the surge queue while every routable backend has
 * `backend_max_conns` connections.
 *
 * Zones: each accepted client connection is assigned a load-balancer node (one per enabled
 * zone, in turn, among zones that have a routable backend); without cross-zone a node
 * routes only to its zone's backends.
 *
 * Hot path: no allocation per request (connections come from free lists), one recv and
 * one send/writev per direction, no logging.
 *
 * Ownership: the listener owns its sockets, connections and backend set; everything is
 * closed by lb_listener_destroy(). Ids and zones passed in are copied. */
#ifndef EMULATOR_LB_H
#define EMULATOR_LB_H

#include <netinet/in.h>
#include <stdint.h>

#include "common/ev.h"
#include "scaler/lb_sticky.h"

enum lb_mode {
    LB_MODE_HTTP,
    LB_MODE_TCP,
};

#define LB_ZONES_MAX  8
#define LB_GROUPS_MAX 16 /* ELBv2: target groups one listener forwards to */

struct ssl_ctx_st; /* OpenSSL's SSL_CTX (emulator/lb_tls.h) */
struct lb_http_msg;

/* ELBv2 (Application Load Balancer) listeners: what the routing hook decided for one
 * request. */
struct lb_route {
    int group;         /* >= 0: forward to a routable backend of that group; -1: answer */
    int status;        /* the answer: status, Content-Type, extra header lines (each ending */
    const char *ctype; /* in CRLF, or NULL) and body */
    const char *extra;
    const char *body;
    size_t body_len;
    /* a forward: header lines (each ending in CRLF, or NULL) the target's response gets
     * (target group stickiness's AWSALBTG cookies); copied */
    const char *set_cookie;
};
/* Called once per parsed request on the hot path (buf holds the head, m its parse, peer is
 * the client's address): decides and returns at once; the strings it puts in *out live
 * until its next call. */
typedef void (*lb_route_fn)(void *ud, const char *buf, const struct lb_http_msg *m,
                            const struct sockaddr_in *peer, struct lb_route *out);

struct lb_config {
    const char *name; /* for logs ("autoscalelb:80"), copied */
    /* HTTPS (mode HTTP) and SSL (mode TCP) listeners: the TLS context the proxy terminates
     * TLS with (borrowed; outlives the listener); backends get plain HTTP or bytes. NULL:
     * plain HTTP/TCP. */
    struct ssl_ctx_st *tls;
    /* the context's mutual TLS (enum sc_mtls_mode, lb_tls_ctx_create_opts): 0 off; else
     * each request to a backend carries the client certificate headers the session gives
     * (lb_tls_client_headers) and a client's own X-Amzn-Mtls-Clientcert* are dropped */
    int mtls;
    int port; /* 127.0.0.1 port to listen on; 0 = any */
    enum lb_mode mode;
    int forwarded_port;      /* X-Forwarded-Port (the LoadBalancerPort); 0 = port */
    int64_t idle_timeout_ms; /* 0 -> 60000 */
    int backend_max_conns;   /* per backend; 0 -> 512 */
    int surge_max;           /* 0 -> 1024 */
    /* ELBv2 HTTP listeners: the per-request routing hook (NULL: classic, every backend);
     * the proxy's own 502/503/504/400 are then the Application Load Balancer's pages */
    lb_route_fn route;
    void *route_ud;
    /* NLB UDP listeners (lb_udp.c, docs/elbv2.md 10.5): 1 also forwards UDP datagrams on
     * the same port number (TCP_UDP), 2 UDP only (no TCP socket) */
    int udp;
};

/* Per backend group since the last lb_listener_group_metrics_take() (ELBv2 target groups). */
struct lb_group_metrics {
    uint64_t requests; /* a backend of the group was chosen: its answer, or the 502/504 */
    uint64_t target_2xx, target_3xx, target_4xx, target_5xx;
    double resp_sum_ms; /* request sent -> response head, over resp_count responses */
    uint64_t resp_count;
    uint64_t conn_errors; /* connections to its backends that failed */
};

/* Per-listener figures since the last lb_listener_metrics_take(): the AWS/ELB metrics. */
struct lb_metrics {
    uint64_t requests;     /* RequestCount: requests answered by a backend or the proxy */
    double latency_sum_ms; /* Latency: request sent to backend -> response head seen */
    uint64_t latency_count;
    double latency_max_ms;
    uint64_t backend_2xx, backend_3xx, backend_4xx, backend_5xx;
    uint64_t elb_4xx, elb_5xx; /* HTTPCode_ELB_4XX/5XX: the proxy's own answers */
    uint64_t elb_502, elb_503, elb_504;
    int surge_queue_max;          /* SurgeQueueLength (Maximum) */
    uint64_t spillover;           /* SpilloverCount */
    uint64_t backend_conn_errors; /* BackendConnectionErrors */
    uint64_t client_conns;        /* accepted connections */
    uint64_t backend_conns;       /* connections opened to backends */
    uint64_t conns_closed;        /* client and backend connections closed */
    uint64_t client_closed;       /* client connections closed */
    int conns_open;               /* client and backend connections open now */
    uint64_t client_bytes;        /* bytes from and to clients (after TLS) */
    uint64_t client_resets, backend_resets, own_resets; /* TCP listeners: RSTs seen, sent */
    uint64_t udp_new_flows;    /* UDP: flows started (a client address and port's first) */
    uint64_t udp_flows_closed; /* UDP: flows ended (idle, target gone) */
    uint64_t udp_bytes;        /* UDP: payload both ways */
};

struct lb_listener;

/* Binds and starts accepting. Returns NULL with a message in err (errlen bytes, may be
 * NULL) when the port cannot be bound. */
struct lb_listener *lb_listener_create(struct cm_ev *ev, const struct lb_config *cfg, char *err,
                                       size_t errlen);
/* Closes the listening socket, every client and backend connection. NULL is a no-op. */
void lb_listener_destroy(struct lb_listener *l);
int lb_listener_port(const struct lb_listener *l); /* the bound port */
/* UDP flows open now (lb_config.udp); 0 without UDP. */
int lb_listener_udp_flows(const struct lb_listener *l);
enum lb_mode lb_listener_mode(const struct lb_listener *l);

/* A new TLS context (and its mutual TLS mode) for connections accepted from now on
 * (borrowed, as lb_config.tls; open connections keep theirs: OpenSSL counts references). */
void lb_listener_set_tls(struct lb_listener *l, struct ssl_ctx_st *tls, int mtls);

/* Settings that change at run time (ModifyLoadBalancerAttributes, zones). */
void lb_listener_set_idle_timeout(struct lb_listener *l, int64_t idle_timeout_ms);
/* Enabled zones (copied) and cross-zone; n 0 = zones ignored (one node, every backend). */
void lb_listener_set_zones(struct lb_listener *l, const char *const *zones, int n, int cross_zone);

/* How a backend group spreads requests and keeps clients (ELBv2 target groups; group -1:
 * a classic listener, whose algorithm stays least outstanding requests): algorithm is an
 * enum sc_elbv2_algorithm; sticky (copied) binds clients by cookie (docs/elbv2.md 10.1,
 * docs/elb-classic.md 4.1). */
void lb_listener_set_group(struct lb_listener *l, int group, int algorithm,
                           const struct sc_sticky *sticky);
/* A backend's share (slow start, docs/elbv2.md 10.2): 0..1. */
void lb_backend_set_weight(struct lb_listener *l, const char *id, double weight);
/* The key of the secret the listener's stickiness cookies are sealed with (random at
 * create; tests set it). */
void lb_listener_set_secret(struct lb_listener *l, uint64_t secret);

/* Adds or updates a backend (id copied): address 127.0.0.1:port, zone (NULL = ""),
 * routable (new requests may go to it). A backend that stops being routable keeps its
 * in-flight requests (draining) and loses its idle connections. */
void lb_backend_set(struct lb_listener *l, const char *id, int port, const char *zone,
                    int routable);
/* The same for a backend of group (0..LB_GROUPS_MAX-1) on a listener with a routing hook;
 * ids are unique across groups. */
void lb_backend_set_in(struct lb_listener *l, int group, const char *id, int port, const char *zone,
                       int routable);
/* Removes a backend: no new requests; requests in flight finish. */
void lb_backend_remove(struct lb_listener *l, const char *id);
/* Requests in flight (HTTP) or open connections (TCP) to that backend; -1 when unknown. */
int lb_backend_outstanding(const struct lb_listener *l, const char *id);
int lb_backend_count(const struct lb_listener *l);
/* The i-th backend's id (borrowed), or NULL. */
const char *lb_backend_id_at(const struct lb_listener *l, int i);
/* The i-th backend's traffic for the console (emulator/balancer.h's window over the real
 * clock): HTTP listeners count each response of the backend; TCP listeners count none. */
struct lb_backend_traffic {
    const char *id; /* borrowed */
    int group;      /* -1: classic */
    int routable, outstanding;
    uint64_t responses, errors_5xx; /* since it was added */
    double latency_mean_ms;         /* over those */
    double rate_per_s;              /* responses a second over the last 10 whole seconds */
    double rate_latency_ms;         /* their mean latency */
};
/* 0, or -1 past the end. */
int lb_backend_traffic_at(const struct lb_listener *l, int i, struct lb_backend_traffic *out);

/* Copies the figures into *out and starts a new interval. */
void lb_listener_metrics_take(struct lb_listener *l, struct lb_metrics *out);
/* The same for one backend group (zeros out of range). */
void lb_listener_group_metrics_take(struct lb_listener *l, int group, struct lb_group_metrics *out);
/* The same for the requests of one group taken by the node of zone (the index into the
 * zones of lb_listener_set_zones), the AvailabilityZone of ELBv2's request metrics. */
void lb_listener_group_zone_metrics_take(struct lb_listener *l, int group, int zone,
                                         struct lb_group_metrics *out);
/* Current surge queue length and connections (for status pages and tests). */
int lb_listener_surge_len(const struct lb_listener *l);
int lb_listener_client_conns(const struct lb_listener *l);
/* Pooled keep-alive connections to backends (closed after the idle timeout). */
int lb_listener_idle_backend_conns(const struct lb_listener *l);

/* `emulator proxy --listen [HOST:]PORT --backend HOST:PORT ... [options]`: a standalone
 * least-outstanding-requests HTTP proxy (or --tcp round robin) with optional active
 * health checks; see --help. argv[0] is "proxy". Returns the exit status. */
int lb_proxy_main(int argc, char **argv);

#endif
