/* loadgen/sweep.c: see sweep.h. Each rate is one conn_run in session mode; the figures
 * are httperf's as autobench collects them. */
#include "loadgen/sweep.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/svg.h"
#include "common/units.h"
#include "common/xalloc.h"
#include "loadgen/conn.h"
#include "loadgen/sched.h"
#include "loadgen/sock.h"
#include "loadgen/url.h"

#define NCOLS 10

static const char *const col_names[NCOLS] = {
    "dem_req_rate", "req_rate",        "con_rate",  "min_rep_rate", "avg_rep_rate",
    "max_rep_rate", "stddev_rep_rate", "resp_time", "net_io",       "errors",
};

static void usage(FILE *out)
{
    fputs(
        "Usage: loadgen sweep [options] URL\n"
        "Steps the connection rate as autobench does with httperf, and writes autobench's TSV.\n"
        "    --low-rate R     first rate, new connections per second (required)\n"
        "    --high-rate R    last rate (required)\n"
        "    --rate-step S    increment (required)\n"
        "    --num-conns N    connections per rate (default 1000)\n"
        "    --num-calls N    requests per connection, kept alive (default 1)\n"
        "    --timeout D      per-request timeout (default 5s; bare numbers are seconds)\n"
        "    --file PATH      write the TSV there (default: stdout)\n"
        "    --svg PATH       draw bench2graph's plot of the columns as SVG\n"
        "    --quiet          no progress lines on stderr\n"
        "(autobench's spellings --low_rate --high_rate --rate_step --num_conn --num_call work too)\n"
        "Columns: dem_req_rate req_rate con_rate min_rep_rate avg_rep_rate max_rep_rate\n"
        "stddev_rep_rate resp_time (ms) net_io (KB/s) errors; reply rates are sampled each\n"
        "second (httperf samples each 5 s).\n",
        out);
}

enum {
    O_LOW = 300,
    O_HIGH,
    O_STEP,
    O_CONNS,
    O_CALLS,
    O_TIMEOUT,
    O_FILE,
    O_SVG,
    O_QUIET,
    O_HELP,
};

static const struct option sweep_opts[] = {
    { "low-rate", required_argument, NULL, O_LOW },
    { "low_rate", required_argument, NULL, O_LOW },
    { "high-rate", required_argument, NULL, O_HIGH },
    { "high_rate", required_argument, NULL, O_HIGH },
    { "rate-step", required_argument, NULL, O_STEP },
    { "rate_step", required_argument, NULL, O_STEP },
    { "num-conns", required_argument, NULL, O_CONNS },
    { "num_conn", required_argument, NULL, O_CONNS },
    { "num-calls", required_argument, NULL, O_CALLS },
    { "num_call", required_argument, NULL, O_CALLS },
    { "timeout", required_argument, NULL, O_TIMEOUT },
    { "file", required_argument, NULL, O_FILE },
    { "svg", required_argument, NULL, O_SVG },
    { "quiet", no_argument, NULL, O_QUIET },
    { "help", no_argument, NULL, O_HELP },
    { NULL, 0, NULL, 0 },
};

static int pos_num(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);

    if (*end || !isfinite(v) || v <= 0)
        return -1;
    *out = v;
    return 0;
}

static int draw(const char *path, const char *host, double (*rows)[NCOLS], int nrows)
{
    struct cm_svg_opts so;
    struct cm_svg *chart;
    struct cm_buf b;
    double *x = cm_xcalloc((size_t)nrows, sizeof(double));
    double *y = cm_xcalloc((size_t)nrows, sizeof(double));
    char title[300];
    FILE *f;
    int rc = -1;

    memset(&so, 0, sizeof(so));
    snprintf(title, sizeof(title), "loadgen sweep: %s", host);
    so.id = "sweep";
    so.title = title;
    so.standalone = 1;
    so.x.label = "demanded request rate (requests/s)";
    so.y.label = "rates (1/s), response time (ms), errors";
    so.y.include_zero = 1;
    so.y2.label = "net I/O (KB/s)";
    so.y2.include_zero = 1;
    chart = cm_svg_create(&so);
    for (int i = 0; i < nrows; i++)
        x[i] = rows[i][0];
    for (int c = 1; c < NCOLS; c++) {
        for (int i = 0; i < nrows; i++)
            y[i] = rows[i][c];
        cm_svg_series(chart, col_names[c], NULL, c == 8 ? CM_SVG_Y2 : CM_SVG_Y1,
                      CM_SVG_POINTS | (c == 8 ? CM_SVG_DASHED : 0), x, y, (size_t)nrows);
    }
    cm_buf_init(&b, 0);
    cm_svg_render(chart, &b);
    f = fopen(path, "w");
    if (f) {
        rc = fwrite(b.data, 1, b.len, f) == b.len ? 0 : -1;
        if (fclose(f) != 0)
            rc = -1;
    }
    cm_buf_cleanup(&b);
    cm_svg_destroy(chart);
    free(x);
    free(y);
    return rc;
}

int sweep_main(int argc, char **argv)
{
    double low = 0, high = 0, step = 0, conns = 1000, calls = 1;
    int64_t timeout_us = 5000000;
    const char *file = NULL, *svg = NULL, *url_text;
    int quiet = 0, c, nrows = 0, status = 0;
    struct url u;
    struct conn_cfg cfg;
    char err[256], *req = NULL;
    double(*rows)[NCOLS] = NULL;
    FILE *out = stdout;
    struct sched *sched = NULL; /* ~100 kB: on the heap, not the stack */

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", sweep_opts, NULL)) != -1) {
        switch (c) {
        case O_LOW:
        case O_HIGH:
        case O_STEP:
        case O_CONNS:
        case O_CALLS: {
            double v;
            if (pos_num(optarg, &v) < 0) {
                fprintf(stderr, "loadgen: sweep: bad number '%s'\ntry 'loadgen sweep --help'\n",
                        optarg);
                return 2;
            }
            if (c == O_LOW)
                low = v;
            else if (c == O_HIGH)
                high = v;
            else if (c == O_STEP)
                step = v;
            else if (c == O_CONNS)
                conns = floor(v);
            else
                calls = floor(v);
            break;
        }
        case O_TIMEOUT:
            if (cm_duration_parse_us(optarg, CM_UNIT_S, &timeout_us) < 0 || timeout_us <= 0) {
                fprintf(stderr, "loadgen: sweep: bad --timeout '%s'\ntry 'loadgen sweep --help'\n",
                        optarg);
                return 2;
            }
            break;
        case O_FILE:
            file = optarg;
            break;
        case O_SVG:
            svg = optarg;
            break;
        case O_QUIET:
            quiet = 1;
            break;
        case 'h':
        case O_HELP:
            usage(stdout);
            return 0;
        default:
            fprintf(stderr, "loadgen: sweep: unknown option %s\ntry 'loadgen sweep --help'\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind != argc - 1 || low <= 0 || high < low || step <= 0 || conns < 1 || calls < 1) {
        fprintf(stderr, "loadgen: sweep: need --low-rate, --high-rate >= low, --rate-step and "
                        "one URL\ntry 'loadgen sweep --help'\n");
        return 2;
    }
    url_text = argv[optind];
    if (url_parse(url_text, &u, err, sizeof(err)) < 0) {
        fprintf(stderr, "loadgen: sweep: invalid URL '%s': %s\n", url_text, err);
        return 2;
    }
    memset(&cfg, 0, sizeof(cfg));
    if (url_resolve(&u, &cfg.addr, &cfg.addrlen, err, sizeof(err)) < 0) {
        fprintf(stderr, "loadgen: sweep: %s\n", err);
        return 1;
    }
    if (u.tls) {
        cfg.tls_ctx = sock_tls_ctx_create(err, sizeof(err));
        if (!cfg.tls_ctx) {
            fprintf(stderr, "loadgen: sweep: %s\n", err);
            return 1;
        }
    }
    req = cm_xasprintf("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", u.path, u.host_hdr);
    if (file) {
        out = fopen(file, "w");
        if (!out) {
            fprintf(stderr, "loadgen: sweep: cannot write %s\n", file);
            status = 1;
            goto done;
        }
    }
    fprintf(out, "dem_req_rate");
    for (int i = 1; i < NCOLS; i++)
        fprintf(out, "\t%s_%s", col_names[i], u.host);
    fprintf(out, "\n");
    fflush(out);
    cfg.req = req;
    cfg.req_len = strlen(req);
    cfg.keepalive = 1;
    cfg.threads = 1;
    cfg.connections = 1;
    cfg.calls_per_conn = (uint32_t)calls;
    cfg.max_requests = (uint64_t)conns; /* tickets count connections in session mode */
    cfg.timeout_us = timeout_us;
    cfg.max_open = 10000;
    cfg.recv_errors_ok = 1;
    cfg.nolength = 1;
    cfg.sample_us = 1000000;
    sched = cm_xcalloc(1, sizeof(*sched));
    cfg.sched = sched;
    for (double rate = low; rate <= high + 1e-9; rate += step) {
        struct conn_result res;
        double secs, *row;
        const struct stats *st;

        sched_init_const(sched, rate, 0);
        cfg.duration_us = (int64_t)(conns / rate * 1e6) + timeout_us * (int64_t)calls + 5000000;
        if (!quiet)
            fprintf(stderr, "loadgen: sweep: %g connections/s (%g requests/s)...\n", rate,
                    rate * calls);
        if (conn_run(&cfg, &res) < 0) {
            fprintf(stderr, "loadgen: sweep: %s\n", res.why);
            stats_cleanup(&res.st);
            status = 1;
            break;
        }
        st = &res.st;
        secs = (double)st->duration_us / 1e6;
        rows = cm_xrealloc(rows, (size_t)(nrows + 1) * sizeof(*rows));
        row = rows[nrows++];
        row[0] = rate * calls;
        row[1] = secs > 0 ? (double)(st->bytes_sent / cfg.req_len) / secs : 0;
        row[2] = secs > 0 ? (double)st->connects / secs : 0;
        row[3] = st->rps.total ? (double)st->rps.min : 0;
        row[4] = cm_hist_mean(&st->rps);
        row[5] = (double)st->rps.max;
        row[6] = cm_hist_stddev(&st->rps);
        row[7] = cm_hist_mean(&st->lat_uncorr) / 1000.0;
        row[8] = secs > 0 ? (double)(st->bytes_read + st->bytes_sent) / 1024.0 / secs : 0;
        row[9] = (double)(stats_failed(st) + st->err_write);
        fprintf(out, "%g\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f\n", row[0], row[1],
                row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9]);
        fflush(out);
        if (res.aborted)
            fprintf(stderr, "loadgen: sweep: %s\n", res.why);
        stats_cleanup(&res.st);
        if (res.interrupted) {
            status = 1;
            break;
        }
    }
    if (svg && nrows > 0 && draw(svg, u.host, rows, nrows) < 0) {
        fprintf(stderr, "loadgen: sweep: cannot write %s\n", svg);
        status = 1;
    }
done:
    if (out && out != stdout)
        fclose(out);
    free(rows);
    free(req);
    free(sched);
    if (cfg.tls_ctx)
        sock_tls_ctx_destroy(cfg.tls_ctx);
    return status;
}
