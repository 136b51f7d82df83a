/* emulator/lb_proxy.c: `emulator proxy`, one lb listener over fixed backends without the
 * AWS API: the standalone proof of the proxy (tests, bench/bench_lb.sh) and a plain
 * least-outstanding-requests proxy for users. See lb.h and --help. */
#include "emulator/lb.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/ev.h"
#include "common/log.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "emulator/health.h"
#include "emulator/instance.h"
#include "emulator/lb_tls.h"
#include "scaler/elb.h"

#define MAX_BACKENDS 256

struct backend {
    char id[32];
    int port; /* 0 while an instance boots */
    int exited;
    int healthy;                 /* routable */
    struct sc_elb_health health; /* libscaler's threshold rule, as a new registration */
};

struct proxy {
    struct cm_ev *ev;
    struct lb_listener *l;
    struct hc_set *hc;
    struct inst_mgr *im;
    struct hc_check chk;
    int64_t interval_ms;
    struct backend b[MAX_BACKENDS];
    int nb;
    int healthy_threshold, unhealthy_threshold;
    const char *metrics_file;
    struct lb_metrics total;
    uint64_t hc_conn_errors;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emulator proxy --listen [127.0.0.1:]PORT --backend 127.0.0.1:PORT ...\n"
            "  A reverse proxy on 127.0.0.1 (the load balancer of the emulator, standalone).\n"
            "  HTTP: least outstanding requests, keep-alive to backends, X-Forwarded-*;\n"
            "  --tcp: byte pipe, round robin.\n"
            "options:\n"
            "  --listen [HOST:]PORT      port to listen on (0 = any; see --port-file)\n"
            "  --backend HOST:PORT       a backend on loopback (repeat; up to 256)\n"
            "  --tcp                     TCP listener instead of HTTP\n"
            "  --tls                     terminate TLS (HTTPS, or SSL with --tcp) with a\n"
            "                            self-signed certificate made at start\n"
            "  --tls-cert PEM --tls-key PEM  ... or with this certificate and key\n"
            "  --health-check TARGET     TCP or HTTP:/path (off by default: all in service)\n"
            "  --interval DUR            health-check interval [5s]\n"
            "  --timeout DUR             health-check timeout [2s]\n"
            "  --healthy N --unhealthy N thresholds [2, 2]; a backend starts in service after\n"
            "                            its first passing check, as a new ELB registration\n"
            "  --idle-timeout DUR        504 / close after this without progress [60s]\n"
            "  --max-conns N             connections per backend before the surge queue [512]\n"
            "  --port-file F             write the bound port to F (tmp + rename)\n"
            "  --metrics-file F          on SIGUSR1 and at exit write the totals as JSON\n"
            "  --instances N             start N emulated instances (`emulator instance`) as the\n"
            "                            backends (with or without --backend); SIGTERM ends them\n"
            "  --profile JSON            their application profile (see instance_main.h)\n"
            "  --boot-ms MS              their boot time in real ms [the profile's boot_s]\n"
            "  --log-level L             error|warn|info|debug [warn]\n"
            "SIGUSR1 writes --metrics-file (AWS/ELB figures, backends with pid, health and\n"
            "their consecutive passes/failures).\n");
}

static int parse_port(const char *s, int *port)
{
    const char *p = strrchr(s, ':');
    char *end;
    long v;

    if (p) {
        size_t hl = (size_t)(p - s);

        if (!((hl == 9 && strncmp(s, "127.0.0.1", 9) == 0) ||
              (hl == 9 && strncmp(s, "localhost", 9) == 0)))
            return -1;
        s = p + 1;
    }
    v = strtol(s, &end, 10);
    if (*s == '\0' || *end || v < 0 || v > 65535)
        return -1;
    *port = (int)v;
    return 0;
}

static int parse_ms(const char *s, int64_t *ms)
{
    int64_t us;

    if (cm_duration_parse_us(s, CM_UNIT_S, &us) < 0 || us < 1000)
        return -1;
    *ms = us / 1000;
    return 0;
}

static void add_totals(struct proxy *p)
{
    struct lb_metrics m;

    lb_listener_metrics_take(p->l, &m);
    p->total.requests += m.requests;
    p->total.latency_sum_ms += m.latency_sum_ms;
    p->total.latency_count += m.latency_count;
    if (m.latency_max_ms > p->total.latency_max_ms)
        p->total.latency_max_ms = m.latency_max_ms;
    p->total.backend_2xx += m.backend_2xx;
    p->total.backend_3xx += m.backend_3xx;
    p->total.backend_4xx += m.backend_4xx;
    p->total.backend_5xx += m.backend_5xx;
    p->total.elb_4xx += m.elb_4xx;
    p->total.elb_5xx += m.elb_5xx;
    p->total.elb_502 += m.elb_502;
    p->total.elb_503 += m.elb_503;
    p->total.elb_504 += m.elb_504;
    if (m.surge_queue_max > p->total.surge_queue_max)
        p->total.surge_queue_max = m.surge_queue_max;
    p->total.spillover += m.spillover;
    p->total.backend_conn_errors += m.backend_conn_errors;
    p->total.client_conns += m.client_conns;
}

static void write_metrics(struct proxy *p)
{
    char tmp[4096];
    FILE *f;

    add_totals(p);
    if (!p->metrics_file)
        return;
    snprintf(tmp, sizeof(tmp), "%s.tmp", p->metrics_file);
    f = fopen(tmp, "we");
    if (!f)
        return;
    fprintf(f,
            "{\"RequestCount\":%llu,\"Latency_avg_ms\":%.3f,\"Latency_max_ms\":%.3f,"
            "\"HTTPCode_Backend_2XX\":%llu,\"HTTPCode_Backend_3XX\":%llu,"
            "\"HTTPCode_Backend_4XX\":%llu,\"HTTPCode_Backend_5XX\":%llu,"
            "\"HTTPCode_ELB_4XX\":%llu,\"HTTPCode_ELB_5XX\":%llu,\"ELB_502\":%llu,"
            "\"ELB_503\":%llu,\"ELB_504\":%llu,\"SurgeQueueLength\":%d,\"SpilloverCount\":%llu,"
            "\"BackendConnectionErrors\":%llu,\"HealthCheckConnectionErrors\":%llu,"
            "\"ClientConnections\":%llu,\"OpenClientConnections\":%d,"
            "\"IdleBackendConnections\":%d,\"SurgeQueueNow\":%d,\"Healthy\":[",
            (unsigned long long)p->total.requests,
            p->total.latency_count ? p->total.latency_sum_ms / (double)p->total.latency_count : 0.0,
            p->total.latency_max_ms, (unsigned long long)p->total.backend_2xx,
            (unsigned long long)p->total.backend_3xx, (unsigned long long)p->total.backend_4xx,
            (unsigned long long)p->total.backend_5xx, (unsigned long long)p->total.elb_4xx,
            (unsigned long long)p->total.elb_5xx, (unsigned long long)p->total.elb_502,
            (unsigned long long)p->total.elb_503, (unsigned long long)p->total.elb_504,
            p->total.surge_queue_max, (unsigned long long)p->total.spillover,
            (unsigned long long)p->total.backend_conn_errors, (unsigned long long)p->hc_conn_errors,
            (unsigned long long)p->total.client_conns, lb_listener_client_conns(p->l),
            lb_listener_idle_backend_conns(p->l), lb_listener_surge_len(p->l));
    for (int i = 0; i < p->nb; i++)
        fprintf(f, "%s%d", i ? "," : "", p->b[i].healthy);
    fprintf(f, "],\"Backends\":[");
    for (int i = 0; i < p->nb; i++)
        fprintf(f,
                "%s{\"id\":\"%s\",\"port\":%d,\"pid\":%ld,\"healthy\":%d,\"exited\":%d,"
                "\"passes\":%d,\"failures\":%d}",
                i ? "," : "", p->b[i].id, p->b[i].port,
                p->im ? (long)inst_pid(p->im, p->b[i].id) : -1L, p->b[i].healthy, p->b[i].exited,
                p->b[i].health.consec_ok, p->b[i].health.consec_fail);
    fprintf(f, "],\"Reaped\":%llu,\"Children\":%d}\n",
            p->im ? (unsigned long long)inst_reaped(p->im) : 0ULL, p->im ? inst_count(p->im) : 0);
    if (fclose(f) == 0)
        rename(tmp, p->metrics_file);
}

static void on_health(void *ud, const char *key, const struct hc_result *res)
{
    int ok = res->ok, connect_failed = res->connect_failed;

    struct proxy *p = ud;
    struct backend *b = NULL;

    for (int i = 0; i < p->nb; i++) {
        if (strcmp(p->b[i].id, key) == 0)
            b = &p->b[i];
    }
    if (!b)
        return;
    p->hc_conn_errors += connect_failed != 0;
    /* a backend is a registration: in service on its first pass, out after the unhealthy
     * threshold, back after the healthy threshold (scaler/elb.h) */
    if (sc_elb_health_step(&b->health, ok, p->healthy_threshold, p->unhealthy_threshold) ==
        b->healthy)
        return;
    b->healthy = b->health.in_service;
    if (b->healthy)
        log_info("proxy: backend in service %s passes=%d", b->id, b->health.consec_ok);
    else
        log_info("proxy: backend out of service %s failures=%d", b->id, b->health.consec_fail);
    lb_backend_set(p->l, b->id, b->port, NULL, b->healthy);
}

static struct backend *backend_find(struct proxy *p, const char *id)
{
    for (int i = 0; i < p->nb; i++) {
        if (strcmp(p->b[i].id, id) == 0)
            return &p->b[i];
    }
    return NULL;
}

/* Instances become backends once they listen; a dead one stays registered (as with an
 * ELB) until the health checks take it out, or at once without health checks. */
static void on_instance(void *ud, const char *id, enum inst_event event, int port, int status)
{
    struct proxy *p = ud;
    struct backend *b = backend_find(p, id);

    if (!b)
        return;
    if (event == INST_READY) {
        b->port = port;
        lb_backend_set(p->l, b->id, b->port, NULL, !p->hc);
        b->healthy = !p->hc;
        memset(&b->health, 0, sizeof(b->health));
        if (p->hc) {
            p->chk.port = port;
            hc_target_set(p->hc, b->id, &p->chk, p->interval_ms, 0);
        }
        log_info("proxy: instance %s ready on port %d", id, port);
        return;
    }
    b->exited = 1;
    log_warn("proxy: instance %s exited (status %d)", id, status);
    if (!p->hc) {
        b->healthy = 0;
        lb_backend_set(p->l, b->id, b->port, NULL, 0);
    }
}

static void on_signal(struct cm_ev *ev, int signo, void *ud)
{
    struct proxy *p = ud;

    if (signo == SIGUSR1) {
        write_metrics(p);
        return;
    }
    cm_ev_stop(ev);
}

static int write_port_file(const char *path, int port)
{
    char tmp[4096];
    FILE *f;

    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    f = fopen(tmp, "we");
    if (!f)
        return -1;
    fprintf(f, "%d\n", port);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        return -1;
    return 0;
}

int lb_proxy_main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "listen", required_argument, NULL, 'L' },
        { "backend", required_argument, NULL, 'B' },
        { "tcp", no_argument, NULL, 'T' },
        { "tls", no_argument, NULL, 'S' },
        { "tls-cert", required_argument, NULL, 'X' },
        { "tls-key", required_argument, NULL, 'K' },
        { "health-check", required_argument, NULL, 'H' },
        { "interval", required_argument, NULL, 'I' },
        { "timeout", required_argument, NULL, 't' },
        { "healthy", required_argument, NULL, 'y' },
        { "unhealthy", required_argument, NULL, 'u' },
        { "idle-timeout", required_argument, NULL, 'i' },
        { "max-conns", required_argument, NULL, 'm' },
        { "port-file", required_argument, NULL, 'f' },
        { "metrics-file", required_argument, NULL, 'M' },
        { "log-level", required_argument, NULL, 'l' },
        { "instances", required_argument, NULL, 'N' },
        { "profile", required_argument, NULL, 'P' },
        { "boot-ms", required_argument, NULL, 'b' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct proxy p;
    struct lb_config cfg;
    struct hc_check chk;
    int have_listen = 0, have_hc = 0, c;
    int64_t interval_ms = 5000, timeout_ms = 2000;
    const char *port_file = NULL;
    enum cm_log_level lvl = CM_LOG_WARN;
    char err[256];
    int sigs[] = { SIGTERM, SIGINT, SIGUSR1 };
    int rc = 1;
    int ninst = 0;
    const char *profile = NULL;
    long boot_ms = -1;
    int tls = 0;
    const char *tls_cert = NULL, *tls_key = NULL;
    struct ssl_ctx_st *tls_ctx = NULL;

    memset(&p, 0, sizeof(p));
    memset(&cfg, 0, sizeof(cfg));
    memset(&chk, 0, sizeof(chk));
    p.healthy_threshold = 2;
    p.unhealthy_threshold = 2;
    cfg.name = "proxy";
    cfg.mode = LB_MODE_HTTP;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        char *end = NULL;
        long v;

        switch (c) {
        case 'L':
            if (parse_port(optarg, &cfg.port) < 0)
                goto bad;
            have_listen = 1;
            break;
        case 'B':
            if (p.nb == MAX_BACKENDS || parse_port(optarg, &p.b[p.nb].port) < 0 ||
                p.b[p.nb].port == 0)
                goto bad;
            snprintf(p.b[p.nb].id, sizeof(p.b[p.nb].id), "127.0.0.1:%d", p.b[p.nb].port);
            p.nb++;
            break;
        case 'T':
            cfg.mode = LB_MODE_TCP;
            break;
        case 'S':
            tls = 1;
            break;
        case 'X':
            tls_cert = optarg;
            tls = 1;
            break;
        case 'K':
            tls_key = optarg;
            tls = 1;
            break;
        case 'H':
            have_hc = 1;
            if (strcmp(optarg, "TCP") == 0) {
                chk.proto = HC_TCP;
            } else if (strncmp(optarg, "HTTP:/", 6) == 0) {
                chk.proto = HC_HTTP;
                chk.path = optarg + 5;
            } else {
                goto bad;
            }
            break;
        case 'I':
            if (parse_ms(optarg, &interval_ms) < 0)
                goto bad;
            break;
        case 't':
            if (parse_ms(optarg, &timeout_ms) < 0)
                goto bad;
            break;
        case 'y':
        case 'u':
            v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 100)
                goto bad;
            if (c == 'y')
                p.healthy_threshold = (int)v;
            else
                p.unhealthy_threshold = (int)v;
            break;
        case 'i':
            if (parse_ms(optarg, &cfg.idle_timeout_ms) < 0)
                goto bad;
            break;
        case 'm':
            v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 100000)
                goto bad;
            cfg.backend_max_conns = (int)v;
            break;
        case 'f':
            port_file = optarg;
            break;
        case 'M':
            p.metrics_file = optarg;
            break;
        case 'l':
            if (cm_log_level_parse(optarg, &lvl) < 0)
                goto bad;
            break;
        case 'N':
            v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > MAX_BACKENDS)
                goto bad;
            ninst = (int)v;
            break;
        case 'P':
            profile = optarg;
            break;
        case 'b':
            boot_ms = strtol(optarg, &end, 10);
            if (*end || boot_ms < 0)
                goto bad;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            goto bad;
        }
    }
    if (optind != argc || !have_listen || p.nb + ninst == 0 || p.nb + ninst > MAX_BACKENDS)
        goto bad;
    cm_log_init("proxy", lvl);
    signal(SIGPIPE, SIG_IGN);
    p.ev = cm_ev_create();
    if (!p.ev || cm_ev_add_signals(p.ev, sigs, 3, on_signal, &p) < 0) {
        log_error("proxy: event loop: %s", strerror(errno));
        goto out;
    }
    if (tls) {
        tls_ctx = lb_tls_ctx_create(tls_cert, tls_key, err, sizeof(err));
        if (!tls_ctx) {
            log_error("proxy: %s", err);
            goto out;
        }
        cfg.tls = tls_ctx;
    }
    p.l = lb_listener_create(p.ev, &cfg, err, sizeof(err));
    if (!p.l) {
        log_error("proxy: %s", err);
        goto out;
    }
    if (have_hc)
        p.hc = hc_set_create(p.ev, on_health, &p);
    chk.timeout_ms = timeout_ms;
    p.chk = chk;
    p.interval_ms = interval_ms;
    if (ninst > 0) {
        p.im = inst_mgr_create(p.ev, NULL, on_instance, &p);
        if (!p.im) {
            log_error("proxy: cannot watch children: %s", strerror(errno));
            goto out;
        }
    }
    for (int i = 0; i < ninst; i++) {
        struct backend *b = &p.b[p.nb++];

        snprintf(b->id, sizeof(b->id), "i-%017x", i + 1);
        if (inst_spawn(p.im, b->id, NULL, profile, boot_ms, err, sizeof(err)) < 0) {
            log_error("proxy: %s", err);
            goto out;
        }
    }
    for (int i = 0; i < p.nb; i++) {
        if (p.b[i].port == 0)
            continue; /* an instance: added when it listens */
        p.b[i].healthy = !have_hc;
        lb_backend_set(p.l, p.b[i].id, p.b[i].port, NULL, p.b[i].healthy);
        if (have_hc) {
            chk.port = p.b[i].port;
            chk.timeout_ms = timeout_ms;
            hc_target_set(p.hc, p.b[i].id, &chk, interval_ms, 0);
        }
    }
    if (port_file && write_port_file(port_file, lb_listener_port(p.l)) < 0) {
        log_error("proxy: cannot write %s: %s", port_file, strerror(errno));
        goto out;
    }
    log_info("proxy: listening on 127.0.0.1:%d with %d backends", lb_listener_port(p.l), p.nb);
    cm_ev_run(p.ev);
    write_metrics(&p);
    rc = 0;
out:
    inst_mgr_destroy(p.im, 2000);
    hc_set_destroy(p.hc);
    lb_listener_destroy(p.l);
    lb_tls_ctx_free(tls_ctx);
    cm_ev_destroy(p.ev);
    return rc;

bad:
    fprintf(stderr, "emulator proxy: bad arguments; try --help\n");
    return 2;
}
