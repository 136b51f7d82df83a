/* loadgen/report.c: see report.h. */
#include "loadgen/report.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t round_ms(int64_t us)
{
    return (us + 500) / 1000;
}

void report_ab_banner(FILE *out)
{
    fprintf(out, "This is loadgen, Version 1.0 (ApacheBench, Version 2.3 compatible)\n");
    fprintf(out, "Report layout and flags of ApacheBench by Adam Twiss, Zeus Technology Ltd\n");
    fprintf(out, "and The Apache Software Foundation; part of scalelab\n");
    fprintf(out, "\n");
}

static int cmp_ctime(const void *a, const void *b)
{
    const struct stats_rec *x = a, *y = b;
    return (x->ctime_us > y->ctime_us) - (x->ctime_us < y->ctime_us);
}

static int cmp_dtime(const void *a, const void *b)
{
    const struct stats_rec *x = a, *y = b;
    int64_t p = (int64_t)x->time_us - x->ctime_us, q = (int64_t)y->time_us - y->ctime_us;
    return (p > q) - (p < q);
}

static int cmp_wait(const void *a, const void *b)
{
    const struct stats_rec *x = a, *y = b;
    return (x->wait_us > y->wait_us) - (x->wait_us < y->wait_us);
}

static int cmp_time(const void *a, const void *b)
{
    const struct stats_rec *x = a, *y = b;
    return (x->time_us > y->time_us) - (x->time_us < y->time_us);
}

struct col {
    int64_t min, max, mean, median;
    double sd;
};

static int64_t f_ctime(const struct stats_rec *r)
{
    return r->ctime_us;
}
static int64_t f_dtime(const struct stats_rec *r)
{
    return (int64_t)r->time_us - r->ctime_us;
}
static int64_t f_wait(const struct stats_rec *r)
{
    return r->wait_us;
}
static int64_t f_time(const struct stats_rec *r)
{
    return r->time_us;
}

/* ab's figures for one column: integer mean, sample sd, median of the middle pair. */
static void column(struct stats_rec *rec, size_t n, int64_t (*f)(const struct stats_rec *),
                   int (*cmp)(const void *, const void *), struct col *c)
{
    int64_t sum = 0;
    double sq = 0;

    c->min = INT64_MAX;
    c->max = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t v = f(&rec[i]);
        if (v < c->min)
            c->min = v;
        if (v > c->max)
            c->max = v;
        sum += v;
    }
    c->mean = sum / (int64_t)n;
    for (size_t i = 0; i < n; i++) {
        double a = (double)f(&rec[i]) - (double)c->mean;
        sq += a * a;
    }
    c->sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
    qsort(rec, n, sizeof(*rec), cmp);
    if (n > 1 && n % 2)
        c->median = (f(&rec[n / 2]) + f(&rec[n / 2 + 1])) / 2;
    else
        c->median = f(&rec[n / 2]);
    c->min = round_ms(c->min);
    c->max = round_ms(c->max);
    c->mean = round_ms(c->mean);
    c->median = round_ms(c->median);
    c->sd = c->sd / 1000.0;
}

static void sane(FILE *out, const char *what, const struct col *c)
{
    double d = fabs((double)c->mean - (double)c->median);

    if (d > 2 * c->sd)
        fprintf(out,
                "ERROR: The median and mean for %s are more than twice the standard\n"
                "       deviation apart. These results are NOT reliable.\n",
                what);
    else if (d > c->sd)
        fprintf(out,
                "WARNING: The median and mean for %s are not within a normal deviation\n"
                "        These results are probably not that reliable.\n",
                what);
}

void report_ab(FILE *out, const struct report_ab_info *info, struct conn_result *res)
{
    struct stats *st = &res->st;
    double taken = (double)st->duration_us / 1e6;
    uint64_t done = st->done, bad = stats_failed(st);
    size_t n = st->nrec;

    fprintf(out, "\n\n");
    fprintf(out, "Server Software:        %s\n", res->server);
    fprintf(out, "Server Hostname:        %s\n", info->host);
    fprintf(out, "Server Port:            %u\n", info->port);
    if (info->tls && res->tls_info[0])
        fprintf(out, "SSL/TLS Protocol:       %s\n", res->tls_info);
    if (info->tls && res->tls_tmp_key[0])
        fprintf(out, "Server Temp Key:        %s\n", res->tls_tmp_key);
    if (info->tls && info->sni)
        fprintf(out, "TLS Server Name:        %s\n", info->sni);
    fprintf(out, "\n");
    fprintf(out, "Document Path:          %s\n", info->path);
    if (info->nolength)
        fprintf(out, "Document Length:        Variable\n");
    else
        fprintf(out, "Document Length:        %" PRId64 " bytes\n",
                res->doclen < 0 ? (int64_t)0 : res->doclen);
    fprintf(out, "\n");
    fprintf(out, "Concurrency Level:      %d\n", info->concurrency);
    fprintf(out, "Time taken for tests:   %.3f seconds\n", taken);
    fprintf(out, "Complete requests:      %" PRIu64 "\n", done);
    fprintf(out, "Failed requests:        %" PRIu64 "\n", bad);
    if (bad)
        fprintf(out,
                "   (Connect: %" PRIu64 ", Receive: %" PRIu64 ", Length: %" PRIu64
                ", Exceptions: %" PRIu64 ")\n",
                st->err_connect, st->err_read, st->err_length, st->err_except + st->err_timeout);
    if (st->err_write)
        fprintf(out, "Write errors:           %" PRIu64 "\n", st->err_write);
    if (st->non2xx)
        fprintf(out, "Non-2xx responses:      %" PRIu64 "\n", st->non2xx);
    if (info->keepalive)
        fprintf(out, "Keep-Alive requests:    %" PRIu64 "\n", st->doneka);
    fprintf(out, "Total transferred:      %" PRIu64 " bytes\n", st->bytes_read);
    if (info->send_body)
        fprintf(out, "Total body sent:        %" PRIu64 "\n", st->bytes_sent);
    fprintf(out, "HTML transferred:       %" PRIu64 " bytes\n", st->body_read);
    if (taken > 0 && done) {
        fprintf(out, "Requests per second:    %.2f [#/sec] (mean)\n", (double)done / taken);
        fprintf(out, "Time per request:       %.3f [ms] (mean)\n",
                (double)info->concurrency * taken * 1000 / (double)done);
        fprintf(out, "Time per request:       %.3f [ms] (mean, across all concurrent requests)\n",
                taken * 1000 / (double)done);
        fprintf(out, "Transfer rate:          %.2f [Kbytes/sec] received\n",
                (double)st->bytes_read / 1024 / taken);
        if (info->send_body) {
            fprintf(out, "                        %.2f kb/s sent\n",
                    (double)st->bytes_sent / 1024 / taken);
            fprintf(out, "                        %.2f kb/s total\n",
                    (double)(st->bytes_read + st->bytes_sent) / 1024 / taken);
        }
    }
    if (n > 0) {
        struct col con, proc, wait, tot;

        column(st->rec, n, f_ctime, cmp_ctime, &con);
        column(st->rec, n, f_dtime, cmp_dtime, &proc);
        column(st->rec, n, f_wait, cmp_wait, &wait);
        column(st->rec, n, f_time, cmp_time, &tot);
        fprintf(out, "\nConnection Times (ms)\n");
        if (info->confidence) {
            fprintf(out, "              min  mean[+/-sd] median   max\n");
#define ROW(name, c)                                                                               \
    fprintf(out, "%s%5" PRId64 " %4" PRId64 " %5.1f %6" PRId64 " %7" PRId64 "\n", name, c.min,     \
            c.mean, c.sd, c.median, c.max)
            ROW("Connect:    ", con);
            ROW("Processing: ", proc);
            ROW("Waiting:    ", wait);
            ROW("Total:      ", tot);
#undef ROW
            sane(out, "the initial connection time", &con);
            sane(out, "the processing time", &proc);
            sane(out, "the waiting time", &wait);
            sane(out, "the total time", &tot);
        } else {
            fprintf(out, "              min   avg   max\n");
#define ROW(name, c)                                                                               \
    fprintf(out, "%s%5" PRId64 " %5" PRId64 "%5" PRId64 "\n", name, c.min, c.mean, c.max)
            ROW("Connect:    ", con);
            ROW("Processing: ", proc);
            ROW("Waiting:    ", wait);
            ROW("Total:      ", tot);
#undef ROW
        }
        if (info->percentiles && n > 1) {
            static const int percs[] = { 50, 66, 75, 80, 90, 95, 98, 99, 100 };
            fprintf(out, "\nPercentage of the requests served within a certain time (ms)\n");
            for (size_t i = 0; i < sizeof(percs) / sizeof(percs[0]); i++) {
                if (percs[i] >= 100)
                    fprintf(out, " 100%%  %5" PRId64 " (longest request)\n",
                            round_ms(st->rec[n - 1].time_us));
                else
                    fprintf(out, "  %d%%  %5" PRId64 "\n", percs[i],
                            round_ms(st->rec[n * (size_t)percs[i] / 100].time_us));
            }
        }
    }
}

int report_ab_csv(const char *path, const struct stats *st)
{
    FILE *f = fopen(path, "w");
    size_t n = st->nrec;

    if (!f)
        return -1;
    fprintf(f, "Percentage served,Time in ms\n");
    for (int i = 0; i <= 100 && n; i++) {
        size_t idx;
        if (i == 0)
            idx = 0;
        else if (i == 100)
            idx = n - 1;
        else
            idx = (size_t)(0.5 + (double)n * i / 100.0);
        if (idx >= n)
            idx = n - 1;
        fprintf(f, "%d,%.3f\n", i, (double)st->rec[idx].time_us / 1000.0);
    }
    return fclose(f) == 0 ? 0 : -1;
}

int report_ab_gnuplot(const char *path, const struct stats *st, int64_t wall_t0_us)
{
    FILE *f = fopen(path, "w");
    static const char *days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
    static const char *months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

    if (!f)
        return -1;
    fprintf(f, "starttime\tseconds\tctime\tdtime\tttime\twait\n");
    for (size_t i = 0; i < st->nrec; i++) {
        const struct stats_rec *r = &st->rec[i];
        int64_t us = wall_t0_us + r->start_us;
        time_t secs = (time_t)(us / 1000000);
        struct tm tm;

        localtime_r(&secs, &tm);
        fprintf(f,
                "%s %s %02d %02d:%02d:%02d %d\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64
                "\t%" PRId64 "\n",
                days[tm.tm_wday], months[tm.tm_mon], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                tm.tm_year + 1900, (int64_t)secs, round_ms(r->ctime_us),
                round_ms((int64_t)r->time_us - r->ctime_us), round_ms(r->time_us),
                round_ms(r->wait_us));
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* --- wrk ---------------------------------------------------------------------------- */

static void scaled(double v, double base, const char *const *units, int nunits, char *out, size_t n)
{
    int i = 0;

    while (i + 1 < nunits && fabs(v) >= base) {
        v /= base;
        i++;
    }
    snprintf(out, n, "%.2f%s", v, units[i]);
}

void report_fmt_time_us(double us, char *out, size_t n)
{
    if (us < 1000)
        snprintf(out, n, "%.2fus", us);
    else if (us < 1e6)
        snprintf(out, n, "%.2fms", us / 1e3);
    else if (us < 60e6)
        snprintf(out, n, "%.2fs", us / 1e6);
    else if (us < 3600e6)
        snprintf(out, n, "%.2fm", us / 60e6);
    else
        snprintf(out, n, "%.2fh", us / 3600e6);
}

void report_fmt_metric(double v, char *out, size_t n)
{
    static const char *const u[] = { "", "k", "M", "G", "T" };
    scaled(v, 1000, u, 5, out, n);
}

void report_fmt_binary(double v, char *out, size_t n)
{
    static const char *const u[] = { "", "K", "M", "G", "T" };
    scaled(v, 1024, u, 5, out, n);
}

/* wrk's print_units: right-aligned in width, units counted as part of the padding. */
static void units(FILE *out, const char *msg, int width)
{
    int len = (int)strlen(msg), pad = 2;

    if (len && isalpha((unsigned char)msg[len - 1]))
        pad--;
    if (len > 1 && isalpha((unsigned char)msg[len - 2]))
        pad--;
    width -= pad;
    fprintf(out, "%*.*s%.*s", width, width, msg, pad, "  ");
}

struct within_ctx {
    double lo, hi;
    uint64_t n;
};

static void within_visit(int64_t value, uint64_t count, void *ud)
{
    struct within_ctx *w = ud;
    if ((double)value >= w->lo && (double)value <= w->hi)
        w->n += count;
}

static double within_stdev(const struct cm_hist *h)
{
    struct within_ctx w;
    double m = cm_hist_mean(h), sd = cm_hist_stddev(h);

    if (!h->total)
        return 0;
    w.lo = m - sd;
    w.hi = m + sd;
    w.n = 0;
    cm_hist_foreach(h, within_visit, &w);
    return 100.0 * (double)w.n / (double)h->total;
}

static void stats_line(FILE *out, const char *name, const struct cm_hist *h, int is_time)
{
    char a[32], b[32], c[32];
    double m = cm_hist_mean(h), sd = cm_hist_stddev(h), mx = h->total ? (double)h->max : 0;

    if (is_time) {
        report_fmt_time_us(m, a, sizeof(a));
        report_fmt_time_us(sd, b, sizeof(b));
        report_fmt_time_us(mx, c, sizeof(c));
    } else {
        report_fmt_metric(m, a, sizeof(a));
        report_fmt_metric(sd, b, sizeof(b));
        report_fmt_metric(mx, c, sizeof(c));
    }
    fprintf(out, "    %-10s", name);
    units(out, a, 8);
    units(out, b, 10);
    units(out, c, 9);
    fprintf(out, "%8.2f%%\n", within_stdev(h));
}

static void distribution(FILE *out, const char *title, const struct cm_hist *h)
{
    static const double ps[] = { 50, 75, 90, 99, 99.9, 99.99 };

    fprintf(out, "  %s\n", title);
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        char v[32];
        if (ps[i] > 99 && h->total < 1000)
            break;
        report_fmt_time_us((double)cm_hist_percentile(h, ps[i]), v, sizeof(v));
        if (ps[i] == floor(ps[i]))
            fprintf(out, "%7.0f%%", ps[i]);
        else
            fprintf(out, "%7.2f%%", ps[i]);
        units(out, v, 10);
        fprintf(out, "\n");
    }
}

void report_wrk(FILE *out, const struct report_wrk_info *info, const struct stats *st)
{
    char d[32], b[32];
    double secs = (double)st->duration_us / 1e6;

    report_fmt_time_us((double)st->duration_us, d, sizeof(d));
    fprintf(out, "Running %s test @ %s\n", d, info->url);
    fprintf(out, "  %d threads and %d connections\n", info->threads, info->connections);
    if (info->rate_desc)
        fprintf(out,
                "  open model, rate %s requests/s; latency measured from each request's "
                "intended send time\n",
                info->rate_desc);
    fprintf(out, "  Thread Stats%6s%11s%8s%12s\n", "Avg", "Stdev", "Max", "+/- Stdev");
    stats_line(out, "Latency", &st->lat, 1);
    stats_line(out, "Req/Sec", &st->rps, 0);
    if (st->has_uncorr)
        stats_line(out, "Uncorr.", &st->lat_uncorr, 1);
    if (info->latency || st->has_uncorr) {
        distribution(out,
                     st->has_uncorr
                         ? "Latency Distribution (corrected: from the intended send time)"
                         : "Latency Distribution",
                     &st->lat);
        if (st->has_uncorr)
            distribution(out, "Uncorrected Latency Distribution (from the actual send time)",
                         &st->lat_uncorr);
    }
    report_fmt_binary((double)st->bytes_read, b, sizeof(b));
    fprintf(out, "  %" PRIu64 " requests in %s, %sB read\n", st->done, d, b);
    if (st->err_connect || st->err_read || st->err_write || st->err_timeout || st->err_except ||
        st->err_length)
        fprintf(out,
                "  Socket errors: connect %" PRIu64 ", read %" PRIu64 ", write %" PRIu64
                ", timeout %" PRIu64 "\n",
                st->err_connect, st->err_read + st->err_except + st->err_length, st->err_write,
                st->err_timeout);
    if (st->status_err)
        fprintf(out, "  Non-2xx or 3xx responses: %" PRIu64 "\n", st->status_err);
    fprintf(out, "Requests/sec: %9.2f\n", secs > 0 ? (double)st->done / secs : 0.0);
    report_fmt_binary(secs > 0 ? (double)st->bytes_read / secs : 0, b, sizeof(b));
    fprintf(out, "Transfer/sec: %10sB\n", b);
}
