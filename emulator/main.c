/* emulator/main.c: `emulator`, a local AWS endpoint (Auto Scaling, classic ELB,
 * CloudWatch, EC2) for unmodified clients. Parse, validate, init, run, tear down. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/ev.h"
#include "common/log.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "emulator/console.h"
#include "emulator/emu.h"
#include "emulator/instance_main.h"
#include "emulator/lb.h"
#include "emulator/lb_tls.h"
#include "emulator/model.h"
#include "emulator/ratelimit.h"
#include "emulator/server.h"
#include "emulator/webhook.h"

#define EMULATOR_VERSION "0.1.0"

struct config {
    struct srv_config srv;
    const char *port_file;
    int quiet;
};

/* --certificate's ARN->files list, owned by main() so that every return frees it */
struct cert_list {
    struct lb_tls_cert_map *certs;
    int ncerts;
};

static void usage(FILE *f)
{
    fprintf(f, "usage: emulator [options]\n"
               "A local AWS endpoint: Auto Scaling, classic ELB, CloudWatch and EC2 over their\n"
               "wire protocols (query/XML, EC2, JSON 1.0, RPC v2 CBOR).\n"
               "  --port N            listen port (default 4566; 0 = any, see --port-file)\n"
               "  --bind ADDR         listen address (default 127.0.0.1)\n"
               "  --region R          region when a request names none (default us-east-1)\n"
               "  --account ID        account id in ARNs (default 123456789012)\n"
               "  --time-scale N      emulated seconds per real second (default 1)\n"
               "  --clock real|manual manual: time moves only via POST /_scalelab/clock\n"
               "  --state FILE        keep the state in FILE: loaded at start, every acknowledged\n"
               "                      change written before its reply (see docs/state.md)\n"
               "  --auth none|sigv4   verify SigV4 signatures (default none)\n"
               "  --credentials FILE  'AKID SECRET' lines for --auth sigv4 (env keys added)\n"
               "  --console-token T   with --auth sigv4: the console's token (16 to 128 of\n"
               "                      A-Z a-z 0-9 - . _ ~; default: random at start); the\n"
               "                      console URL with it is printed once at start (docs/auth.md)\n"
               "  --port-file PATH    write the bound port to PATH once listening\n"
               "  --tls-cert PEM      certificate of HTTPS/SSL listeners (with --tls-key;\n"
               "                      default: a self-signed one made at start)\n"
               "  --tls-key PEM       its private key\n"
               "  --certificate ARN=CERT,KEY  the certificate behind a certificate ARN (PEM\n"
               "                      files; repeatable): listeners naming ARN present it,\n"
               "                      an HTTPS/TLS listener picks among its certificates by\n"
               "                      the client's server name (SNI; docs/elbv2.md 10.6);\n"
               "                      other ARNs get --tls-cert or a self-signed one\n"
               "  --s3-dir DIR        what S3 objects ELBv2 trust stores read: bucket B, key K\n"
               "                      is DIR/B/K (docs/elbv2.md 14; default: none exist)\n"
               "  --max-metric-series N  CloudWatch metric series per account and region\n"
               "                      (default 100000; PutMetricData past it: LimitExceeded)\n"
               "  --max-instances N   instances of all accounts and regions together (default:\n"
               "                      the least of RAM / 8 MiB, (fd limit - 256) / 8 and 256 per\n"
               "                      CPU, at most 2000; launches past it fail with\n"
               "                      InsufficientInstanceCapacity)\n"
               "  --launch-rate N     instance processes started per second (default 50)\n"
               "  --max-vcpus N       running On-Demand vCPUs per account and Region (default\n"
               "                      0: no limit); launches past it fail with VcpuLimitExceeded\n"
               "  --max-connections N API connections at once (default 1000); a new one past\n"
               "                      it closes the longest-waiting idle or slow one, or\n"
               "                      gets 503 ServiceUnavailable when all are busy\n"
               "  --rate-limit RATE[:BURST]  AWS requests a second per client address\n"
               "                      (default 5000, burst twice RATE; 0 = off); past it\n"
               "                      Throttling / RequestLimitExceeded (docs/dataplane.md)\n"
               "  --account-rate-limit RATE[:BURST]  the same per account and Region\n"
               "                      (default 10000; 0 = off)\n"
               "  --event-buffer SIZE each /_scalelab/events client's buffer; one that falls this\n"
               "                      far behind is dropped (default 256k, at least 4k)\n"
               "  --notify-webhook URL  also POST each Auto Scaling notification to URL (http://\n"
               "                      127.0.0.1 or localhost only), as SNS posts to a subscriber\n"
               "  --quiet             warnings only: no per-request or event lines\n"
               "  --help, --version\n"
               "sub-modes: emulator instance --help (an emulated instance),\n"
               "           emulator proxy --help (a standalone load-balancing proxy)\n");
}

/* The soft RLIMIT_NOFILE raised to the hard one (Debian's soft default, 1,024, ran out at
 * ~1,000 clients: issue 19 finding 3). Returns the soft limit now in force. */
static long raise_nofile(void)
{
    struct rlimit rl;
    rlim_t was;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return -1;
    was = rl.rlim_cur;
    if (rl.rlim_cur != rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
            log_warn("emulator: cannot raise the fd limit from %llu to %llu: %s",
                     (unsigned long long)was, (unsigned long long)rl.rlim_max, strerror(errno));
            rl.rlim_cur = was;
        }
    }
    return rl.rlim_cur == RLIM_INFINITY ? 1L << 20 : (long)rl.rlim_cur;
}

/* --max-instances' default for this machine (emu_default_max_instances). */
static int default_max_instances(void)
{
    struct rlimit rl;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    long nofile = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                      ? (long)rl.rlim_cur
                      : 1L << 20;

    return emu_default_max_instances(mem, nofile, sysconf(_SC_NPROCESSORS_ONLN));
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "emulator: %s%s%s\ntry 'emulator --help'\n", msg, arg ? ": " : "",
            arg ? arg : "");
    return 2;
}

/* --certificate ARN=CERT,KEY into l (the ARN ends at the last '=', CERT at the next
 * ','); -1 when malformed or the ARN is given twice. arg (a copy) is kept and freed by main(). */
static int add_certificate(struct cert_list *l, char *arg)
{
    char *eq = strrchr(arg, '='), *comma = eq ? strchr(eq + 1, ',') : NULL;
    struct lb_tls_cert_map m;

    if (!eq || eq == arg || !comma || comma == eq + 1 || !comma[1])
        return -1;
    *eq = '\0';
    *comma = '\0';
    m.arn = arg;
    m.cert_file = eq + 1;
    m.key_file = comma + 1;
    for (int i = 0; i < l->ncerts; i++) {
        if (strcmp(l->certs[i].arn, m.arn) == 0)
            return -1;
    }
    l->certs = cm_xrealloc(l->certs, sizeof(*l->certs) * (size_t)(l->ncerts + 1));
    l->certs[l->ncerts++] = m;
    return 0;
}

static int write_port_file(const char *path, int port)
{
    char tmp[4096];
    FILE *f;

    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
    f = fopen(tmp, "we");
    if (!f)
        return -1;
    fprintf(f, "%d\n", port);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static void on_signal(struct cm_ev *ev, int signo, void *ud)
{
    (void)ud;
    log_info("emulator: signal %d, stopping", signo);
    cm_ev_stop(ev);
}

static int emulator_main(int argc, char **argv, struct cert_list *certs)
{
    static const struct option opts[] = {
        { "port", required_argument, NULL, 'p' },
        { "bind", required_argument, NULL, 'b' },
        { "region", required_argument, NULL, 'r' },
        { "account", required_argument, NULL, 'a' },
        { "time-scale", required_argument, NULL, 't' },
        { "clock", required_argument, NULL, 'c' },
        { "state", required_argument, NULL, 's' },
        { "auth", required_argument, NULL, 'A' },
        { "credentials", required_argument, NULL, 'C' },
        { "console-token", required_argument, NULL, 'T' + 256 },
        { "port-file", required_argument, NULL, 'P' },
        { "quiet", no_argument, NULL, 'q' },
        { "event-buffer", required_argument, NULL, 'E' },
        { "tls-cert", required_argument, NULL, 'X' },
        { "s3-dir", required_argument, NULL, 'S' + 256 },
        { "tls-key", required_argument, NULL, 'K' },
        { "certificate", required_argument, NULL, 'K' + 256 },
        { "max-metric-series", required_argument, NULL, 'M' },
        { "max-instances", required_argument, NULL, 'I' },
        { "launch-rate", required_argument, NULL, 'L' },
        { "max-connections", required_argument, NULL, 'N' },
        { "rate-limit", required_argument, NULL, 'R' + 256 },
        { "max-vcpus", required_argument, NULL, 'C' + 256 },
        { "account-rate-limit", required_argument, NULL, 'A' + 256 },
        { "notify-webhook", required_argument, NULL, 'W' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    struct config cfg;
    struct cm_ev *ev = NULL;
    struct srv *s = NULL;
    char err[1024] = "";
    static char token[CONSOLE_TOKEN_MAX + 1];
    int c, rc = 1;
    long nofile;
    static const int sigs[] = { SIGINT, SIGTERM };

    /* sub-modes (the data plane's): an emulated instance, a standalone proxy */
    if (argc > 1 && strcmp(argv[1], "instance") == 0)
        return instance_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "proxy") == 0)
        return lb_proxy_main(argc - 1, argv + 1);
    memset(&cfg, 0, sizeof(cfg));
    srv_config_defaults(&cfg.srv);
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        char *end;

        switch (c) {
        case 'p': {
            long v = strtol(optarg, &end, 10);

            if (*end || v < 0 || v > 65535)
                return usage_error("bad --port", optarg);
            cfg.srv.port = (int)v;
            break;
        }
        case 'E': {
            uint64_t v;

            if (cm_size_parse(optarg, &v) < 0 || v < 4096 || v > ((uint64_t)1 << 30))
                return usage_error("bad --event-buffer (4k..1g)", optarg);
            cfg.srv.event_buffer = (size_t)v;
            break;
        }
        case 'b':
            cfg.srv.bind = optarg;
            break;
        case 'r':
            if (!*optarg)
                return usage_error("empty --region", NULL);
            cfg.srv.region = optarg;
            break;
        case 'a':
            if (strlen(optarg) != 12 || strspn(optarg, "0123456789") != 12)
                return usage_error("--account must be 12 digits", optarg);
            cfg.srv.account = optarg;
            break;
        case 't': {
            double v = strtod(optarg, &end);

            if (*end || !isfinite(v) || v <= 0 || v > 1e6)
                return usage_error("bad --time-scale (a number > 0)", optarg);
            cfg.srv.time_scale = v;
            break;
        }
        case 'c':
            if (strcmp(optarg, "real") == 0)
                cfg.srv.clock_manual = 0;
            else if (strcmp(optarg, "manual") == 0)
                cfg.srv.clock_manual = 1;
            else
                return usage_error("--clock must be real or manual", optarg);
            break;
        case 's':
            cfg.srv.state_file = optarg;
            break;
        case 'A':
            if (strcmp(optarg, "none") == 0)
                cfg.srv.auth_sigv4 = 0;
            else if (strcmp(optarg, "sigv4") == 0)
                cfg.srv.auth_sigv4 = 1;
            else
                return usage_error("--auth must be none or sigv4", optarg);
            break;
        case 'C':
            cfg.srv.credentials = optarg;
            break;
        case 'P':
            cfg.port_file = optarg;
            break;
        case 'T' + 256:
            if (console_token_check(optarg, err, sizeof(err)) < 0)
                return usage_error(err, NULL);
            cfg.srv.console_token = optarg;
            break;
        case 'q':
            cfg.quiet = 1;
            break;
        case 'X':
            cfg.srv.tls_cert = optarg;
            break;
        case 'S' + 256:
            cfg.srv.s3_dir = optarg;
            break;
        case 'K':
            cfg.srv.tls_key = optarg;
            break;
        case 'K' + 256: {
            char *dup = cm_xstrdup(optarg);

            if (add_certificate(certs, dup) < 0) {
                free(dup);
                return usage_error("bad --certificate (ARN=CERT,KEY, each ARN once)", optarg);
            }
            break;
        }
        case 'M': {
            long v = strtol(optarg, &end, 10);

            if (end == optarg || *end || v < 1 || v > 100000000)
                return usage_error("bad --max-metric-series (1 to 100000000)", optarg);
            cfg.srv.max_metric_series = (int)v;
            break;
        }
        case 'I': {
            long v = strtol(optarg, &end, 10);

            if (end == optarg || *end || v < 1 || v > 320000)
                return usage_error("bad --max-instances (1 to 320000)", optarg);
            cfg.srv.max_instances = (int)v;
            break;
        }
        case 'L': {
            double v = strtod(optarg, &end);

            if (end == optarg || *end || !isfinite(v) || v < 0.1 || v > 10000)
                return usage_error("bad --launch-rate (0.1 to 10000 per second)", optarg);
            cfg.srv.launch_rate = v;
            break;
        }
        case 'N': {
            long v = strtol(optarg, &end, 10);

            if (end == optarg || *end || v < 1 || v > 100000)
                return usage_error("bad --max-connections (1 to 100000)", optarg);
            cfg.srv.max_connections = (int)v;
            break;
        }
        case 'C' + 256: {
            long v = strtol(optarg, &end, 10);

            if (end == optarg || *end || v < 0 || v > 10000000)
                return usage_error("bad --max-vcpus (0 to 10000000, 0 = no limit)", optarg);
            cfg.srv.max_vcpus = (int)v;
            break;
        }
        case 'R' + 256:
            if (ratelimit_parse(optarg, &cfg.srv.client_rate, &cfg.srv.client_burst) < 0)
                return usage_error("bad --rate-limit (RATE or RATE:BURST, RATE 0 to 1000000, "
                                   "0 = off)",
                                   optarg);
            break;
        case 'A' + 256:
            if (ratelimit_parse(optarg, &cfg.srv.account_rate, &cfg.srv.account_burst) < 0)
                return usage_error("bad --account-rate-limit (RATE or RATE:BURST, RATE 0 to "
                                   "1000000, 0 = off)",
                                   optarg);
            break;
        case 'W': {
            char why[256];

            if (webhook_url_check(optarg, why, sizeof(why)) != 0)
                return usage_error("bad --notify-webhook (an http:// loopback URL)", optarg);
            cfg.srv.notify_webhook = optarg;
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("emulator %s (models: autoscaling %s, elb %s, cloudwatch %s, ec2 %s)\n",
                   EMULATOR_VERSION, model_autoscaling.version, model_elb.version,
                   model_cloudwatch.version, model_ec2.version);
            return 0;
        default:
            fprintf(stderr, "try 'emulator --help'\n");
            return 2;
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument", argv[optind]);
    if (cfg.srv.credentials && !cfg.srv.auth_sigv4)
        return usage_error("--credentials needs --auth sigv4", NULL);
    if (cfg.srv.console_token && !cfg.srv.auth_sigv4)
        return usage_error("--console-token needs --auth sigv4 (without it the console is open)",
                           NULL);
    if (!cfg.srv.tls_cert != !cfg.srv.tls_key)
        return usage_error("--tls-cert and --tls-key go together", NULL);
    /* a file that cannot serve is said now, naming it, not at the first listener */
    if (cfg.srv.tls_cert &&
        lb_tls_check_pair(cfg.srv.tls_cert, cfg.srv.tls_key, err, sizeof(err)) < 0)
        return usage_error("bad --tls-cert/--tls-key", err);
    for (int i = 0; i < certs->ncerts; i++) {
        char what[1024];

        if (lb_tls_check_pair(certs->certs[i].cert_file, certs->certs[i].key_file, err,
                              sizeof(err)) < 0) {
            snprintf(what, sizeof(what), "bad --certificate %s", certs->certs[i].arn);
            return usage_error(what, err);
        }
    }
    cfg.srv.cert_map = certs->certs;
    cfg.srv.ncert_map = certs->ncerts;

    cm_log_init("emulator", cfg.quiet ? CM_LOG_WARN : CM_LOG_INFO);
    if (cfg.srv.auth_sigv4 && !cfg.srv.console_token) {
        if (console_token_make(token) < 0) {
            log_error("emulator: cannot make a console token: %s", strerror(errno));
            return 1;
        }
        cfg.srv.console_token = token;
    }
    cfg.srv.quiet = cfg.quiet;
    nofile = raise_nofile();
    if (cfg.srv.max_instances == 0)
        cfg.srv.max_instances = default_max_instances();
    signal(SIGPIPE, SIG_IGN);
    ev = cm_ev_create();
    if (!ev) {
        log_error("emulator: cannot create the event loop: %s", strerror(errno));
        goto out;
    }
    if (cm_ev_add_signals(ev, sigs, 2, on_signal, NULL) < 0) {
        log_error("emulator: cannot set up signals: %s", strerror(errno));
        goto out;
    }
    s = srv_create(&cfg.srv, ev, err, sizeof(err));
    if (!s) {
        log_error("emulator: %s", err);
        goto out;
    }
    if (cfg.port_file && write_port_file(cfg.port_file, srv_port(s)) < 0) {
        log_error("emulator: cannot write port file %s: %s", cfg.port_file, strerror(errno));
        goto out;
    }
    log_info("emulator: listening on http://%s:%d (region %s, account %s, clock %s x%g, auth %s, "
             "max instances %d, fd limit %ld)",
             cfg.srv.bind, srv_port(s), cfg.srv.region, cfg.srv.account,
             cfg.srv.clock_manual ? "manual" : "real", cfg.srv.time_scale,
             cfg.srv.auth_sigv4 ? "sigv4" : "none", cfg.srv.max_instances, nofile);
    if (cfg.srv.console_token) {
        /* the one place the token is written: the URL to open (at warning level too, so
         * --quiet does not hide it) */
        const char *host = cfg.srv.bind;
        int v6 = strchr(host, ':') != NULL;

        if (strcmp(host, "0.0.0.0") == 0)
            host = "127.0.0.1";
        else if (strcmp(host, "::") == 0)
            host = "::1";
        cm_log(cfg.quiet ? CM_LOG_WARN : CM_LOG_INFO,
               "emulator: console: http://%s%s%s:%d/?token=%s (the admin API also takes the "
               "header X-Scalelab-Token)",
               v6 ? "[" : "", host, v6 ? "]" : "", srv_port(s), cfg.srv.console_token);
    }
    if (cm_ev_run(ev) < 0) {
        log_error("emulator: event loop failed: %s", strerror(errno));
        goto out;
    }
    rc = 0;
out:
    srv_destroy(s);
    cm_ev_destroy(ev);
    return rc;
}

int main(int argc, char **argv)
{
    struct cert_list certs = { NULL, 0 };
    int rc = emulator_main(argc, argv, &certs);

    for (int i = 0; i < certs.ncerts; i++)
        free((char *)certs.certs[i].arn); /* the --certificate copy the others point into */
    free(certs.certs);
    return rc;
}
