/* loadgen/opts.c: see opts.h. */
#include "loadgen/opts.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/buf.h"
#include "common/units.h"
#include "common/xalloc.h"

#define AB_MAX_REQUESTS 50000 /* -t implies -n 50000, as in ab */

enum {
    /* the wrk-style options, OPT_DURATION..OPT_RATE: each selects wrk's report */
    OPT_DURATION = 256,
    OPT_THREADS,
    OPT_CONNECTIONS,
    OPT_LATENCY,
    OPT_RATE,
    OPT_TIMEOUT,
    OPT_JSON,
    OPT_HEADER,
    OPT_HELP,
    OPT_VERSION,
    OPT_COUNT_TIMEOUTS,
    OPT_MAX_CONNECTIONS,
};

static const struct option long_opts[] = {
    { "duration", required_argument, NULL, OPT_DURATION },
    { "threads", required_argument, NULL, OPT_THREADS },
    { "connections", required_argument, NULL, OPT_CONNECTIONS },
    { "latency", no_argument, NULL, OPT_LATENCY },
    { "rate", required_argument, NULL, OPT_RATE },
    { "timeout", required_argument, NULL, OPT_TIMEOUT },
    { "json", no_argument, NULL, OPT_JSON },
    { "header", required_argument, NULL, OPT_HEADER },
    { "help", no_argument, NULL, OPT_HELP },
    { "version", no_argument, NULL, OPT_VERSION },
    { "count-timeouts", no_argument, NULL, OPT_COUNT_TIMEOUTS },
    { "max-connections", required_argument, NULL, OPT_MAX_CONNECTIONS },
    { NULL, 0, NULL, 0 },
};

static int usage_err(char *err, size_t errlen, const char *fmt, const char *arg)
{
    snprintf(err, errlen, "%s%s", fmt, arg ? arg : "");
    return -1;
}

static int parse_pos_int(const char *s, int64_t max, int64_t *out)
{
    uint64_t v;

    if (cm_count_parse(s, &v) < 0 || v == 0 || v > (uint64_t)max)
        return -1;
    *out = (int64_t)v;
    return 0;
}

static int read_file(const char *path, char **out, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;

    if (!f) {
        snprintf(err, errlen, "Could not open POST data file (%s): %s", path, strerror(errno));
        return -2;
    }
    for (;;) {
        size_t r;
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            buf = cm_xrealloc(buf, cap);
        }
        r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "Could not read POST data file (%s): %s", path, strerror(errno));
        fclose(f);
        free(buf);
        return -2;
    }
    fclose(f);
    *out = buf;
    *len = n;
    return 0;
}

/* A header line the user gave: "Name: value", a token name, no CR/LF anywhere. */
static int header_ok(const char *h)
{
    const char *colon = strchr(h, ':');

    if (!colon || colon == h)
        return 0;
    for (const char *p = h; p < colon; p++) {
        unsigned char c = (unsigned char)*p;
        if (c <= ' ' || c >= 0x7f || strchr("()<>@,;\\\"/[]?={}", c))
            return 0;
    }
    for (const char *p = colon; *p; p++)
        if (*p == '\r' || *p == '\n')
            return 0;
    return 1;
}

static int set_method(struct opts *o, const char *m, char *err, size_t errlen)
{
    if (o->method && strcmp(o->method, m) != 0)
        return usage_err(err, errlen, "Cannot mix methods: ", m);
    o->method = m;
    return 0;
}

int opts_parse(int argc, char **argv, struct opts *o, char *err, size_t errlen)
{
    int c, rc;
    int64_t v;
    char uerr[160];

    memset(o, 0, sizeof(*o));
    o->requests = 1;
    o->concurrency = 1;
    o->threads = 1;
    o->timeout_us = INT64_C(30) * 1000000;
    o->heartbeat = 1;
    o->percentiles = 1;
    o->confidence = 1;
    optind = 1;
    opterr = 0;
    while (
        (c = getopt_long(argc, argv, ":n:c:t:s:T:p:u:v:lrkVhiC:H:A:g:de:Sqm:b:B:wx:y:z:X:P:f:Z:E:I",
                         long_opts, NULL)) != -1) {
        if (c >= OPT_DURATION && c <= OPT_RATE)
            o->wrk_style = 1;
        switch (c) {
        case 'n':
            if (parse_pos_int(optarg, INT64_C(1) << 40, &v) < 0)
                return usage_err(err, errlen, "Invalid number of requests: ", optarg);
            o->requests = (uint64_t)v;
            o->requests_set = 1;
            break;
        case 'c':
            if (parse_pos_int(optarg, 20000, &v) < 0)
                return usage_err(err, errlen, "Invalid Concurrency [Range 1..20000]: ", optarg);
            o->concurrency = (int)v;
            break;
        case 't': /* as ab: -t 0 means no time limit, still -n 50000 */
            if (cm_duration_parse_us(optarg, CM_UNIT_S, &v) < 0 || v < 0)
                return usage_err(err, errlen, "Invalid time limit: ", optarg);
            o->tlimit_us = v;
            o->requests = AB_MAX_REQUESTS;
            o->requests_set = 1;
            break;
        case 's':
        case OPT_TIMEOUT:
            if (cm_duration_parse_us(optarg, CM_UNIT_S, &v) < 0 || v <= 0)
                return usage_err(err, errlen, "Invalid timeout: ", optarg);
            o->timeout_us = v;
            break;
        case 'T':
            o->content_type = optarg;
            break;
        case 'p':
        case 'u':
            if (set_method(o, c == 'p' ? "POST" : "PUT", err, errlen) < 0)
                return -1;
            free(o->body);
            o->body = NULL;
            rc = read_file(optarg, &o->body, &o->body_len, err, errlen);
            if (rc < 0)
                return rc;
            o->send_body = 1;
            break;
        case 'v':
            o->verbosity = atoi(optarg);
            break;
        case 'l':
            o->nolength = 1;
            break;
        case 'r':
            o->recv_errors_ok = 1;
            break;
        case 'k':
            o->keepalive = 1;
            break;
        case 'V':
        case OPT_VERSION:
            o->show_version = 1;
            break;
        case 'h':
        case OPT_HELP:
            o->show_help = 1;
            break;
        case 'i':
            if (set_method(o, "HEAD", err, errlen) < 0)
                return -1;
            o->head = 1;
            break;
        case 'C': /* ab keeps the last -C (its help says repeatable; its code replaces) */
            free(o->cookie);
            o->cookie = cm_xstrdup(optarg);
            break;
        case 'H':
        case OPT_HEADER:
            if (!header_ok(optarg))
                return usage_err(err, errlen, "invalid header (want 'Name: value'): ", optarg);
            if (o->nheaders == OPTS_MAX_HEADERS)
                return usage_err(err, errlen, "too many headers", NULL);
            o->headers[o->nheaders++] = optarg;
            if (strncasecmp(optarg, "Host:", 5) == 0)
                o->host_set = 1;
            else if (strncasecmp(optarg, "Accept:", 7) == 0)
                o->accept_set = 1;
            else if (strncasecmp(optarg, "User-Agent:", 11) == 0)
                o->ua_set = 1;
            break;
        case 'A': { /* each -A adds an Authorization line, as in ab */
            const char *a = optarg;
            char *b64, *na;
            size_t n;
            while (isspace((unsigned char)*a))
                a++;
            n = strlen(a);
            if (n > 1024)
                return usage_err(err, errlen, "Authentication credentials too long", NULL);
            b64 = cm_base64_encode(a, n);
            na = cm_xasprintf("%sAuthorization: Basic %s\r\n", o->auth ? o->auth : "", b64);
            free(b64);
            free(o->auth);
            o->auth = na;
            break;
        }
        case 'g':
            o->gnuplot_file = optarg;
            break;
        case 'd':
            o->percentiles = 0;
            break;
        case 'e':
            o->csv_file = optarg;
            break;
        case 'S':
            o->confidence = 0;
            break;
        case 'q':
            o->heartbeat = 0;
            break;
        case 'm':
            if (!*optarg || strpbrk(optarg, " \t\r\n"))
                return usage_err(err, errlen, "invalid method: ", optarg);
            o->method = optarg;
            break;
        case OPT_DURATION:
            if (cm_duration_parse_us(optarg, CM_UNIT_S, &v) < 0 || v <= 0)
                return usage_err(err, errlen, "invalid --duration: ", optarg);
            o->tlimit_us = v;
            break;
        case OPT_THREADS:
            if (parse_pos_int(optarg, 256, &v) < 0)
                return usage_err(err, errlen, "invalid --threads (1..256): ", optarg);
            o->threads = (int)v;
            break;
        case OPT_CONNECTIONS:
            if (parse_pos_int(optarg, 20000, &v) < 0)
                return usage_err(err, errlen, "invalid --connections (1..20000): ", optarg);
            o->concurrency = (int)v;
            break;
        case OPT_LATENCY:
            o->latency = 1;
            break;
        case OPT_RATE:
            o->rate_spec = optarg;
            o->have_rate = 1;
            break;
        case OPT_JSON:
            o->json = 1;
            break;
        case OPT_COUNT_TIMEOUTS:
            o->count_timeouts = 1;
            break;
        case OPT_MAX_CONNECTIONS:
            if (parse_pos_int(optarg, 20000, &v) < 0)
                return usage_err(err, errlen, "invalid --max-connections (1..20000): ", optarg);
            o->max_connections = (int)v;
            break;
        case ':':
            snprintf(uerr, sizeof(uerr), "option requires an argument: %s", argv[optind - 1]);
            return usage_err(err, errlen, uerr, NULL);
        case '?':
        default:
            if (optopt && optopt < 256)
                snprintf(uerr, sizeof(uerr), "unknown option: -%c", optopt);
            else
                snprintf(uerr, sizeof(uerr), "unknown option: %s", argv[optind - 1]);
            return usage_err(err, errlen, uerr, NULL);
        case 'b':
        case 'B':
        case 'w':
        case 'x':
        case 'y':
        case 'z':
        case 'X':
        case 'P':
        case 'f':
        case 'Z':
        case 'E':
        case 'I':
            snprintf(uerr, sizeof(uerr), "ab option -%c is not supported by loadgen", c);
            return usage_err(err, errlen, uerr, NULL);
        }
    }
    if (o->show_help || o->show_version)
        return 0;
    if (optind != argc - 1)
        return usage_err(err, errlen, optind >= argc ? "missing URL" : "wrong number of arguments",
                         NULL);
    o->url_text = argv[optind];
    if (url_parse(o->url_text, &o->url, uerr, sizeof(uerr)) < 0) {
        snprintf(err, errlen, "invalid URL '%s': %s", o->url_text, uerr);
        return -1;
    }
    if (!o->method)
        o->method = "GET";
    if (o->wrk_style) {
        o->keepalive = 1;
        if (!o->requests_set)
            o->requests = 0;
        if (!o->tlimit_us && !o->requests_set && !o->have_rate)
            o->tlimit_us = INT64_C(10) * 1000000;
        if (o->threads > o->concurrency)
            return usage_err(err, errlen, "--connections must be at least --threads", NULL);
    } else {
        if ((uint64_t)o->concurrency > o->requests)
            return usage_err(err, errlen,
                             "Cannot use concurrency level greater than total number of requests",
                             NULL);
    }
    if (o->max_connections && !o->have_rate)
        return usage_err(err, errlen, "--max-connections is for --rate (the pool grows there)",
                         NULL);
    if (o->max_connections && o->max_connections < o->concurrency)
        return usage_err(err, errlen, "--max-connections must be at least --connections", NULL);
    if (o->have_rate && !o->max_connections)
        o->max_connections =
            o->concurrency > OPTS_POOL_CAP_DEFAULT ? o->concurrency : OPTS_POOL_CAP_DEFAULT;
    if (o->have_rate) {
        o->sched = cm_xcalloc(1, sizeof(*o->sched));
        if (sched_parse(o->rate_spec, o->sched, uerr, sizeof(uerr)) < 0) {
            snprintf(err, errlen, "invalid --rate '%s': %s", o->rate_spec, uerr);
            return -1;
        }
        if (o->sched->n == 1 && o->sched->phase[0].r0 == o->sched->phase[0].r1)
            o->rate = o->sched->phase[0].r0;
        if (o->sched->n == 1 && o->sched->phase[0].r0 <= 0)
            return usage_err(err, errlen, "--rate must be above 0", NULL);
        if (!o->tlimit_us && sched_total_us(o->sched) < 0 && !o->requests_set)
            o->tlimit_us = INT64_C(10) * 1000000;
    }
    return 0;
}

void opts_cleanup(struct opts *o)
{
    free(o->body);
    free(o->cookie);
    free(o->auth);
    free(o->sched);
    o->body = o->cookie = o->auth = NULL;
    o->sched = NULL;
}

void opts_build_request(const struct opts *o, char **out, size_t *len)
{
    struct cm_buf b;

    cm_buf_init(&b, 0);
    if (!o->wrk_style) {
        /* ab's request, byte for byte in its order (HTTP/1.0) */
        cm_buf_printf(&b, "%s %s HTTP/1.0\r\n", o->method, o->url.path);
        if (o->keepalive)
            cm_buf_puts(&b, "Connection: Keep-Alive\r\n");
        if (o->cookie)
            cm_buf_printf(&b, "Cookie: %s\r\n", o->cookie);
        if (o->auth)
            cm_buf_puts(&b, o->auth);
        if (o->send_body)
            cm_buf_printf(&b, "Content-length: %zu\r\nContent-type: %s\r\n", o->body_len,
                          o->content_type ? o->content_type : "text/plain");
        for (int i = 0; i < o->nheaders; i++)
            cm_buf_printf(&b, "%s\r\n", o->headers[i]);
        if (!o->host_set)
            cm_buf_printf(&b, "Host: %s\r\n", o->url.host_hdr);
        if (!o->ua_set)
            cm_buf_puts(&b, "User-Agent: ApacheBench/2.3\r\n");
        if (!o->accept_set)
            cm_buf_puts(&b, "Accept: */*\r\n");
    } else {
        /* wrk's: HTTP/1.1, Host first, nothing the user did not ask for */
        cm_buf_printf(&b, "%s %s HTTP/1.1\r\n", o->method, o->url.path);
        if (!o->host_set)
            cm_buf_printf(&b, "Host: %s\r\n", o->url.host_hdr);
        if (o->cookie)
            cm_buf_printf(&b, "Cookie: %s\r\n", o->cookie);
        if (o->auth)
            cm_buf_puts(&b, o->auth);
        for (int i = 0; i < o->nheaders; i++)
            cm_buf_printf(&b, "%s\r\n", o->headers[i]);
        if (o->send_body)
            cm_buf_printf(&b, "Content-Length: %zu\r\nContent-Type: %s\r\n", o->body_len,
                          o->content_type ? o->content_type : "text/plain");
    }
    cm_buf_puts(&b, "\r\n");
    if (o->send_body)
        cm_buf_append(&b, o->body, o->body_len);
    *out = cm_buf_take(&b, len);
}
