/* loadgen/main.c: `loadgen [options] URL` (ab's flags and report, wrk's long options),
 * `loadgen merge A.json B.json ...`, `loadgen sweep ...`. Parse, validate, run, report. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <unistd.h>

#include <jansson.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "loadgen/awsapi.h"
#include "loadgen/conn.h"
#include "loadgen/opts.h"
#include "loadgen/report.h"
#include "loadgen/scenario.h"
#include "loadgen/sock.h"
#include "loadgen/stats.h"
#include "loadgen/sweep.h"

static void usage(FILE *out)
{
    fputs(
        "Usage: loadgen [options] [http[s]://]hostname[:port]/path\n"
        "       loadgen merge RESULT.json...      combine --json results exactly\n"
        "       loadgen sweep [sweep options] URL  autobench-style rate sweep (see loadgen sweep --help)\n"
        "       loadgen scenario FILE [--endpoint URL|--aws] [--report F.html]  play a scenario (see loadgen scenario --help)\n"
        "       loadgen aws SERVICE ACTION [Name=Value ...]  one signed AWS Query call (see loadgen aws --help)\n"
        "ab's options (same meaning as ApacheBench 2.3):\n"
        "    -n requests     Number of requests to perform\n"
        "    -c concurrency  Number of multiple requests to make at a time\n"
        "    -t timelimit    Seconds to max. to spend on benchmarking (implies -n 50000)\n"
        "    -s timeout      Seconds to max. wait for each response (default 30; 500ms works);\n"
        "                    as ab, a request that passes it stops the run (exit 1)\n"
        "    -p postfile     File containing data to POST. Remember also to set -T\n"
        "    -u putfile      File containing data to PUT. Remember also to set -T\n"
        "    -T content-type Content-type header for POST/PUT data (default text/plain)\n"
        "    -v verbosity    How much troubleshooting info to print\n"
        "    -i              Use HEAD instead of GET\n"
        "    -C attribute    Add cookie, eg. 'Apache=1234' (the last -C counts, as in ab)\n"
        "    -H attribute    Add header line, eg. 'Accept-Encoding: gzip' (repeatable)\n"
        "    -A user:pass    Add Basic WWW Authentication (repeatable)\n"
        "    -k              Use HTTP KeepAlive feature\n"
        "    -d              Do not show percentiles served table\n"
        "    -S              Do not show confidence estimators and warnings\n"
        "    -q              Do not show progress when doing more than 150 requests\n"
        "    -l              Accept variable document length\n"
        "    -g filename     Output collected data to gnuplot format file\n"
        "    -e filename     Output CSV file with percentages served\n"
        "    -r              Don't exit on socket receive errors\n"
        "    -m method       Method name\n"
        "    -V, --version   Print version number and exit\n"
        "    -h, --help      Display usage information (this message)\n"
        "wrk-style options (print wrk's report; connections kept alive):\n"
        "    --duration D    Run for D (\"30s\", \"2m\"; default 10s)\n"
        "    --threads N     Threads, each with its own event loop (default 1)\n"
        "    --connections N Connections kept open (default 1; -c is the same)\n"
        "    --latency       Print the latency distribution\n"
        "    --timeout D     Per-request timeout (same as -s)\n"
        "    --header H      Add a header (same as -H)\n"
        "    --rate R        Open model: send R requests/s whatever the server does; latency\n"
        "                    from each intended send time (coordinated omission corrected),\n"
        "                    uncorrected figures beside. R may be a schedule, phases joined by\n"
        "                    ',': N | const:N:DUR | ramp:A:B:DUR | step:A:B:S:DUR | gap:DUR |\n"
        "                    burst:R:ON:OFF:COUNT\n"
        "    --max-connections N  With --rate: a due request that finds every connection busy\n"
        "                    opens one more, up to N in all (default 512, or --connections\n"
        "                    if larger; N = --connections: a fixed pool)\n"
        "    --json          Print one compact JSON result (with the histogram) instead\n"
        "    --count-timeouts ab mode: a request that passes -s counts as failed (Exceptions)\n"
        "                    and the run goes on (wrk style always does this)\n"
        "Exit: 0 ok, 1 runtime failure, 2 usage error, 4 a --rate run sent more than 1 %\n"
        "less than its schedule (said on stderr and in --json).\n",
        out);
}

static void on_sigint(int sig)
{
    (void)sig;
    conn_request_stop();
}

static int64_t wall_us(void)
{
    struct timeval tv;

    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

static int cmd_merge(int argc, char **argv)
{
    struct stats total;
    int json = 0, nfiles = 0, threads = 0, conns = 0, mixed = 0, any_short = 0;
    const char *url = NULL;
    char err[256];
    double requested = 0, achieved = 0;

    stats_init(&total);
    for (int i = 1; i < argc; i++) {
        struct stats one;
        char *text;
        json_error_t je;
        json_t *o;

        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
            continue;
        }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf(
                "Usage: loadgen merge [--json] RESULT.json...\n"
                "Adds the results of runs made at the same time (threads, processes, machines)\n"
                "into one report: counts and histograms add exactly; the duration is the longest.\n"
                "Each run's requested and achieved (sent) rate is listed, their sums reported;\n"
                "results of different URLs are merged with a warning.\n");
            stats_cleanup(&total);
            return 0;
        }
        o = json_load_file(argv[i], 0, &je);
        if (!o) {
            fprintf(stderr, "loadgen: merge: %s: %s\n", argv[i], je.text);
            stats_cleanup(&total);
            return 1;
        }
        text = json_dumps(o, JSON_COMPACT);
        if (json_is_string(json_object_get(o, "url"))) {
            const char *u = json_string_value(json_object_get(o, "url"));
            if (!url) {
                url = cm_xstrdup(u);
            } else if (strcmp(url, u) != 0) {
                fprintf(stderr,
                        "loadgen: merge: warning: %s ran against %s, not %s: the merged "
                        "figures mix different targets\n",
                        argv[i], u, url);
                mixed = 1;
            }
        }
        threads += (int)json_integer_value(json_object_get(o, "threads"));
        conns += (int)json_integer_value(json_object_get(o, "connections"));
        if (stats_from_json(text, &one, err, sizeof(err)) < 0) {
            fprintf(stderr, "loadgen: merge: %s: %s\n", argv[i], err);
            json_decref(o);
            free(text);
            stats_cleanup(&one);
            stats_cleanup(&total);
            return 1;
        }
        free(text);
        {
            /* each run's rates: requested (its schedule) and achieved (what it sent) */
            double secs = (double)one.duration_us / 1e6;
            double req = json_number_value(json_object_get(o, "requested_rate"));
            double ach = secs > 0 ? (double)(one.sent ? one.sent : one.done) / secs : 0;
            if (req <= 0)
                req = one.rate;
            requested += req;
            achieved += ach;
            if (req > 0 && ach < 0.99 * req)
                any_short = 1;
            if (!json && req > 0)
                fprintf(stdout, "%s: requested %.1f req/s, achieved %.1f req/s%s\n", argv[i], req,
                        ach, ach < 0.99 * req ? " (short)" : "");
        }
        json_decref(o);
        if (nfiles == 0)
            total.has_uncorr = one.has_uncorr;
        stats_merge(&total, &one);
        stats_cleanup(&one);
        nfiles++;
    }
    if (nfiles == 0) {
        fprintf(stderr, "loadgen: merge: no result files\ntry 'loadgen merge --help'\n");
        stats_cleanup(&total);
        return 2;
    }
    if (json) {
        json_t *extra = json_object();
        char *text;
        json_object_set_new(extra, "url", json_string(url ? url : ""));
        json_object_set_new(extra, "threads", json_integer(threads));
        json_object_set_new(extra, "connections", json_integer(conns));
        json_object_set_new(extra, "merged", json_integer(nfiles));
        json_object_set_new(extra, "requested_rate", json_real(requested));
        json_object_set_new(extra, "achieved_rate", json_real(achieved));
        json_object_set_new(extra, "short", json_boolean(any_short));
        json_object_set_new(extra, "mixed_urls", json_boolean(mixed));
        text = stats_to_json(&total, extra);
        json_decref(extra);
        printf("%s\n", text);
        free(text);
    } else {
        struct report_wrk_info wi = { url ? url : "(merged)", threads, conns, 1, NULL };
        char rate[32];
        if (total.has_uncorr) {
            snprintf(rate, sizeof(rate), "%g", total.rate);
            wi.rate_desc = rate;
        }
        printf("Merged %d results\n", nfiles);
        report_wrk(stdout, &wi, &total);
        if (requested > 0)
            printf("Rate: requested %.1f req/s, achieved %.1f req/s (sent)%s\n", requested,
                   achieved, any_short ? "; a run fell short" : "");
    }
    free((char *)url);
    stats_cleanup(&total);
    return 0;
}

/* The TLS server name, as ab picks it: the -H Host: value if given, else the URL's host;
 * NULL for an address. Written into buf. */
static const char *tls_server_name(const struct opts *o, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int i = 0; i < o->nheaders && !buf[0]; i++) {
        const char *h = o->headers[i];
        if (strncasecmp(h, "Host:", 5) == 0) {
            h += 5 + strspn(h + 5, " \t");
            snprintf(buf, n, "%.*s", (int)strcspn(h, " \t"), h);
        }
    }
    if (!buf[0] && !o->url.ipv6_literal)
        snprintf(buf, n, "%s", o->url.host);
    if (!buf[0] || strspn(buf, "0123456789.") == strlen(buf) || strchr(buf, ':'))
        return NULL;
    return buf;
}

/* A --rate run against its schedule: what it was asked and what it sent. */
struct rate_check {
    double requested_rate, achieved_rate, short_pct;
};

/* Short when the run sent more than 1 % fewer requests than its schedule had due over the
 * time it ran (the -n cap counted); the rates are those counts over that time. */
static int check_rate(const struct opts *o, const struct conn_result *res, struct rate_check *rc)
{
    double secs = (double)res->st.duration_us / 1e6;
    double due = sched_count_at(o->sched, res->st.duration_us);

    if (o->requests && due > (double)o->requests)
        due = (double)o->requests;
    due = floor(due);
    if (secs <= 0)
        return 0;
    rc->requested_rate = due / secs;
    rc->achieved_rate = (double)res->st.sent / secs;
    rc->short_pct = due > 0 ? 100.0 * (due - (double)res->st.sent) / due : 0;
    return (double)res->st.sent < 0.99 * due;
}

static int cmd_run(int argc, char **argv)
{
    struct opts o;
    struct conn_cfg cfg;
    struct conn_result res;
    char err[512], *req = NULL, sni[256] = "";
    size_t req_len = 0;
    int rc, status = 0, short_run = 0;
    uint64_t heartbeat = 0;
    int64_t wall0;
    struct rate_check shortfall = { 0 };

    memset(&cfg, 0, sizeof(cfg));
    rc = opts_parse(argc, argv, &o, err, sizeof(err));
    if (rc < 0) {
        fprintf(stderr, "loadgen: %s\n", err);
        if (rc == -1)
            fprintf(stderr, "try 'loadgen --help'\n");
        status = rc == -1 ? 2 : 1;
        goto out;
    }
    if (o.show_help || o.show_version) {
        if (o.show_help)
            usage(stdout);
        else
            report_ab_banner(stdout);
        goto out;
    }
    if (url_resolve(&o.url, &cfg.addr, &cfg.addrlen, err, sizeof(err)) < 0) {
        fprintf(stderr, "loadgen: %s\n", err);
        status = 1;
        goto out;
    }
    if (o.url.tls) {
        cfg.tls_ctx = sock_tls_ctx_create(err, sizeof(err));
        if (!cfg.tls_ctx) {
            fprintf(stderr, "loadgen: %s\n", err);
            status = 1;
            goto out;
        }
        cfg.sni = tls_server_name(&o, sni, sizeof(sni));
        sock_tls_set_verbosity(cfg.tls_ctx, o.verbosity);
    }
    opts_build_request(&o, &req, &req_len);
    if (!o.wrk_style && o.heartbeat && o.requests > 150) {
        heartbeat = o.requests / 10;
        if (heartbeat < 100)
            heartbeat = 100;
    }
    cfg.req = req;
    cfg.req_len = req_len;
    cfg.body_len = o.send_body ? o.body_len : 0;
    cfg.head = o.head;
    cfg.keepalive = o.keepalive;
    cfg.threads = o.threads;
    cfg.connections = o.concurrency;
    cfg.max_connections = o.max_connections;
    cfg.max_requests = o.requests;
    cfg.duration_us = o.tlimit_us;
    cfg.timeout_us = o.timeout_us;
    cfg.sched = o.sched;
    cfg.record = !o.wrk_style;
    cfg.heartbeat = heartbeat;
    cfg.recv_errors_ok = o.wrk_style || o.recv_errors_ok;
    cfg.nolength = o.nolength || o.wrk_style;
    cfg.live = o.wrk_style && !o.json && isatty(STDERR_FILENO);
    cfg.verbosity = o.verbosity;
    cfg.timeout_aborts = !o.wrk_style && !o.count_timeouts;
    if (!o.wrk_style && !o.json) {
        report_ab_banner(stdout);
        printf("Benchmarking %s (be patient)%s", o.url.host, heartbeat ? "\n" : "...");
        fflush(stdout);
    }
    if (o.verbosity >= 2)
        printf("INFO: %s header == \n---\n%.*s\n---\n", o.method,
               (int)(req_len - (o.send_body ? o.body_len : 0)), req);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_sigint);
    wall0 = wall_us();
    if (conn_run(&cfg, &res) < 0) {
        fprintf(stderr, "loadgen: %s\n", res.why);
        stats_cleanup(&res.st);
        status = 1;
        goto out;
    }
    res.st.rate = o.rate;
    if (o.sched && !res.aborted && !res.interrupted)
        short_run = check_rate(&o, &res, &shortfall);
    if (res.aborted) {
        if (!o.wrk_style && !o.json && !heartbeat)
            printf("\n");
        /* ab's own words where ab stops the run, so that scripts grepping them still match */
        if (strncmp(res.why, "Test aborted", 12) == 0)
            fprintf(stderr, "\n%s\n", res.why);
        else
            fprintf(stderr, "%s%s\n", strncmp(res.why, "apr_", 4) ? "loadgen: " : "", res.why);
        status = 1;
    }
    if (o.json) {
        json_t *extra = json_object();
        char *text;
        json_object_set_new(extra, "url", json_string(o.url_text));
        json_object_set_new(extra, "threads", json_integer(o.threads));
        json_object_set_new(extra, "connections", json_integer(o.concurrency));
        if (o.rate_spec)
            json_object_set_new(extra, "schedule", json_string(o.rate_spec));
        if (o.sched) {
            json_object_set_new(extra, "requested_rate", json_real(shortfall.requested_rate));
            json_object_set_new(extra, "achieved_rate", json_real(shortfall.achieved_rate));
            json_object_set_new(extra, "short", json_boolean(short_run));
            json_object_set_new(extra, "max_connections", json_integer(o.max_connections));
            json_object_set_new(extra, "pool_connections", json_integer(res.pool));
        }
        {
            json_t *tc = json_array();
            for (int i = 0; i < res.nthreads && i < 256; i++)
                json_array_append_new(tc, json_integer(res.thread_cpu_us[i]));
            json_object_set_new(extra, "thread_cpu_us", tc);
            json_object_set_new(extra, "cpus_seen",
                                json_integer(__builtin_popcountll(res.cpu_mask)));
        }
        if (o.url.tls) {
            json_object_set_new(extra, "tls_handshakes",
                                json_integer((json_int_t)res.tls_handshakes));
            json_object_set_new(extra, "tls_resumed", json_integer((json_int_t)res.tls_resumed));
        }
        text = stats_to_json(&res.st, extra);
        json_decref(extra);
        printf("%s\n", text);
        free(text);
    } else if (o.wrk_style) {
        struct report_wrk_info wi = { o.url_text, o.threads, o.concurrency, o.latency,
                                      o.rate_spec };
        report_wrk(stdout, &wi, &res.st);
        if (o.sched && res.pool != o.concurrency)
            printf("  connection pool grew from %d to %d (cap %d, --max-connections)\n",
                   o.concurrency, res.pool, o.max_connections);
        if (o.url.tls && res.tls_handshakes)
            printf("  TLS handshakes: %llu, resumed: %llu\n",
                   (unsigned long long)res.tls_handshakes, (unsigned long long)res.tls_resumed);
    } else {
        struct report_ab_info ai = { o.url.host,    o.url.port,   o.url.path,  o.url.tls,
                                     o.concurrency, o.keepalive,  o.send_body, o.nolength,
                                     o.percentiles, o.confidence, cfg.sni };
        if (!res.aborted) {
            if (heartbeat)
                fprintf(stderr, "Finished %llu requests\n", (unsigned long long)res.st.done);
            else
                printf("..done\n");
        }
        report_ab(stdout, &ai, &res);
        if (o.csv_file && report_ab_csv(o.csv_file, &res.st) < 0) {
            fprintf(stderr, "loadgen: Cannot open CSV output file %s: %s\n", o.csv_file,
                    strerror(errno));
            status = 1;
        }
        if (o.gnuplot_file && report_ab_gnuplot(o.gnuplot_file, &res.st, wall0) < 0) {
            fprintf(stderr, "loadgen: Cannot open gnuplot output file %s: %s\n", o.gnuplot_file,
                    strerror(errno));
            status = 1;
        }
    }
    if (res.interrupted)
        status = 1;
    if (short_run) {
        fprintf(stderr,
                "loadgen: short of the requested rate: sent %.1f req/s of %.1f req/s (%.1f %% "
                "short) on %d connection%s (cap %d)%s\n",
                shortfall.achieved_rate, shortfall.requested_rate, shortfall.short_pct, res.pool,
                res.pool == 1 ? "" : "s", o.max_connections,
                res.pool >= o.max_connections ? ": the pool reached its cap (--max-connections)"
                                              : ": the client could not send faster");
        if (status == 0)
            status = 4;
    }
    stats_cleanup(&res.st);
out:
    fflush(stdout);
    if (cfg.tls_ctx)
        sock_tls_ctx_destroy(cfg.tls_ctx);
    free(req);
    opts_cleanup(&o);
    return status;
}

int main(int argc, char **argv)
{
    cm_log_init("loadgen", CM_LOG_WARN);
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return cmd_merge(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "scenario") == 0)
        return scenario_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "aws") == 0)
        return aws_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "sweep") == 0)
        return sweep_main(argc - 1, argv + 1);
    return cmd_run(argc, argv);
}
