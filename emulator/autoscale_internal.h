/* emulator/autoscale_internal.h: what autoscale.c and autoscale_metrics.c share; not
 * public (autoscale.h is).
 *
 * autoscale.c keeps the instance processes, proxies, health checks and outages in step
 * with the worlds; autoscale_metrics.c collects each emulated minute's CPU (a
 * non-blocking GET /_instance/status per instance) and load-balancer figures. */
#ifndef EMULATOR_AUTOSCALE_INTERNAL_H
#define EMULATOR_AUTOSCALE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "emulator/autoscale.h"
#include "emulator/lb.h"
#include "scaler/app.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "scaler/elbv2.h"

struct alb;
struct cm_buf;
struct hc_set;
struct inst_mgr;
struct ssl_ctx_st;

#define MAX_TARGETS 1024
#define PMAP_MAX    16 /* InstancePorts with their own port per instance */

/* one non-blocking GET /_instance/status in flight (CPU collection) */
struct fetch {
    int fd;     /* -1: none */
    int queued; /* waits for a free slot (FETCH_PARALLEL) */
    int sent;
    long timer;
    int64_t now; /* the emulated minute it reports for */
    int minutes; /* and the minutes before it (manual clock: one advance over several) */
    size_t len;
    char buf[2048];
};

struct proc {
    struct autoscale *a;
    struct sc_world *w;
    char id[SC_EC2_ID_LEN];
    int port;         /* 0 while booting */
    int64_t up_at_ms; /* manual clock: running once the emulated clock reaches this */
    int exited;       /* the process is gone (reaped) */
    int stopping;     /* SIGTERM sent for terminate/stop */
    int hibernated;   /* SIGSTOPped by a hibernation: resumed (SIGCONT) by the next start */
    int hung;
    int impaired; /* reported to EC2 */
    int tagged;
    struct sc_app app; /* its profile: the CPU model reads workers and cpu_per_request */
    int have_last;
    double last_busy_ms;
    double last_up_ms;
    /* InstancePort -> the real loopback port serving it (inst_add_port) */
    int map_iport[PMAP_MAX];
    int map_port[PMAP_MAX];
    int nmap;
    int map_tagged; /* entries already in the scalelab:ports tag */
    struct fetch f;
};

struct listener {
    struct sc_world *w;
    char lb[SC_ELB_NAME_LEN];
    int lb_port;
    int instance_port;
    enum lb_mode mode;
    int tls; /* HTTPS or SSL: TLS terminated at the proxy */
    struct lb_listener *l;
    /* HTTPS/SSL: the context serving the listener's SSLCertificateId (cert), remade when
     * SetLoadBalancerListenerSSLCertificate changes it (docs/elb-classic.md 6) */
    struct ssl_ctx_st *ctx;
    char cert[512];
    int seen;
};

/* per load balancer: health-check connection failures for BackendConnectionErrors */
struct lbstat {
    struct sc_world *w;
    char lb[SC_ELB_NAME_LEN];
    uint64_t hc_conn_errors;
    int seen;
};

struct hcref {
    char key[96];
    struct sc_world *w;
    char lb[SC_ELB_NAME_LEN];
    char tg[SC_ELBV2_ARN_LEN]; /* an ELBv2 target group's check when set (lb is "") */
    int tg_port;               /* the target's port in that group */
    char id[SC_EC2_ID_LEN];
    int seen;
};

/* a zone taken down by the az_outage fault, with its end (emulated ms; 0: until recovered) */
struct outage {
    struct sc_world *w;
    char zone[32];
    int64_t until_ms;
};

/* one load balancer target as sync_lb() copies it (health results and drain ends change
 * the views while it works) */
struct tcopy {
    char id[SC_EC2_ID_LEN];
    char zone[32];
    int routable, draining, checked;
};

struct autoscale {
    struct autoscale_config cfg;
    struct outage **out;
    int nout, cap_out;
    long outage_timer;
    struct inst_mgr *im;
    struct hc_set *hc;
    struct proc **procs;
    int nprocs, cap_procs;
    struct listener **ls;
    int nls, cap_ls;
    struct lbstat **st;
    int nst, cap_st;
    struct hcref **hr;
    int nhr, cap_hr;
    struct alb **albs; /* ELBv2 listeners' proxies (autoscale_alb.c) */
    int nalbs, cap_albs;
    struct sc_world **worlds;
    int nworlds, cap_worlds;
    long kick_timer;
    long minute_timer;      /* real clock: the metrics minute */
    int64_t minute_next_ms; /* manual clock: the emulated end of the next metrics minute */
    double launch_tokens;   /* the launch-rate bucket (autoscale_config.launch_rate) */
    int64_t launch_tokens_ms;
    long launch_timer;  /* steps again when the bucket has a token for a waiting launch */
    int tls_failed;     /* logged once */
    int blocking_fetch; /* SCALELAB_BLOCKING_CPU_FETCH=1: the old collector (bench) */
    int fetching;       /* status GETs in flight */
    int fetch_rr;       /* where the next queued one is looked for */
    uint64_t key_seq;
    struct tcopy tc[MAX_TARGETS]; /* sync_lb()'s copy of one load balancer's targets */
};

#define PUSH(arr, n, cap, item)                                                                    \
    do {                                                                                           \
        if ((n) == (cap)) {                                                                        \
            (cap) = (cap) ? (cap)*2 : 16;                                                          \
            (arr) = cm_xrealloc((arr), (size_t)(cap) * sizeof(*(arr)));                            \
        }                                                                                          \
        (arr)[(n)++] = (item);                                                                     \
    } while (0)
/* Real ms for emulated_ms at the time scale, at least min_ms. */
int64_t as_scaled_ms(const struct autoscale *a, double emulated_ms, int64_t min_ms);
/* Asks for a world step soon (coalesced). */
void as_kick(struct autoscale *a);
/* The counters of (w, lb), made on the first call. */
struct lbstat *as_lbstat_ensure(struct autoscale *a, struct sc_world *w, const char *lb);

/* The process of instance id in w, or NULL. */
struct proc *as_proc_find(const struct autoscale *a, const struct sc_world *w, const char *id);
/* The real port serving instance_port on p (made on first use); 0 while not listening. */
int as_proc_port_for(struct autoscale *a, struct proc *p, int instance_port);
/* The loopback port an ELBv2 target (id, port) of a group of target_type ("instance" |
 * "ip") is reached on: an instance's process port for that port; an ip target in
 * 127.0.0.0/8 is 127.0.0.1:port itself (docs/elbv2.md 10); 0 when unreachable. */
int as_target_port(struct autoscale *a, const struct sc_world *w, const char *target_type,
                   const char *id, int port);

/* autoscale_alb.c: each ELBv2 HTTP/HTTPS listener of an Application Load Balancer as a
 * proxy whose routing hook is libscaler's sc_elbv2_route (docs/elbv2.md 10). */
/* Makes w's ALB listeners' proxies and their target-group backends match the records;
 * returns 1 when it changed the world. */
int as_alb_sync(struct autoscale *a, struct sc_world *w, int64_t now);
/* Reports each of w's Application Load Balancers' minute (sc_elbv2_report_minute). */
void as_alb_report_minute(struct autoscale *a, struct sc_world *w, int64_t now);
void as_alb_forget_world(struct autoscale *a, struct sc_world *w);
void as_alb_destroy_all(struct autoscale *a);
/* Appends the listeners as JSON objects joined by commas. */
void as_alb_status_json(const struct autoscale *a, struct cm_buf *b);

/* Appends "targets":[...] for listener l's backends: id (the instance), routable,
 * outstanding, responses, errors_5xx, latency_mean_ms, request_rate (a second, the last 10
 * whole real seconds) and latency_ms (their mean); with tgs (an ALB listener's groups) also
 * target_group_arn and port. */
void as_traffic_json(struct cm_buf *b, const struct lb_listener *l,
                     const char (*tgs)[SC_ELBV2_ARN_LEN], int ntgs);

/* autoscale_metrics.c */
/* Ends p's status GET (no report) and takes it off the queue. */
void as_fetch_end(struct proc *p);
/* The manual clock's metrics minute (issue 17 part 5): when now passes the end of one or
 * more emulated minutes (60 s after the first step, then every 60 s of that clock), every
 * world's minute is reported at the last one's end: each instance's modelled CPU (since the
 * previous reading) for each of those minutes (at most AS_CATCH_UP_MINUTES), the load
 * balancers' traffic counted since the last report in that last minute. */
#define AS_CATCH_UP_MINUTES 15
void as_manual_minutes(struct autoscale *a, int64_t now);
/* The minute timer: reports every world's minute, then steps. */
int64_t as_on_minute(struct cm_ev *ev, int64_t now_real, void *ud);

#endif
