/* loadgen/opts.h: the command line of `loadgen [options] URL`.
 *
 * ab's short options keep ab's meaning (-n -c -t -k -p -u -T -H -C -A -m -s -v -q -r
 * -e -g -d -S -l -i -h -V); wrk-style settings are long options only (--duration,
 * --threads, --connections, --latency, --rate, --timeout, --json), so no ab flag changes
 * meaning. Any wrk-style option selects wrk's report; otherwise the report is ab's.
 * Pure: reads files for -p/-u, no network. */
#ifndef LOADGEN_OPTS_H
#define LOADGEN_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "loadgen/sched.h"
#include "loadgen/url.h"

#define OPTS_MAX_HEADERS 64
/* --rate: the connection pool grows from --connections up to this many by default
 * (--max-connections) when a due request finds every connection busy. */
#define OPTS_POOL_CAP_DEFAULT 512

struct opts {
    int wrk_style;     /* a wrk-style long option was given */
    uint64_t requests; /* -n (ab), 0 = unbounded */
    int requests_set;
    int concurrency;     /* -c or --connections */
    int max_connections; /* --rate: the pool's cap (--max-connections; default
                            OPTS_POOL_CAP_DEFAULT or --connections if larger) */
    int threads;         /* --threads */
    int64_t tlimit_us;   /* -t (ab) or --duration */
    int64_t timeout_us;  /* -s or --timeout */
    int keepalive;       /* -k (always on in wrk style) */
    const char *method;  /* -m, or GET/HEAD/POST/PUT */
    int head;            /* -i */
    char *body;          /* -p / -u file contents (owned) */
    size_t body_len;
    int send_body;
    const char *content_type;
    const char *headers[OPTS_MAX_HEADERS];
    int nheaders;
    int host_set, accept_set, ua_set;
    char *cookie; /* "a=1; b=2" (owned) */
    char *auth;   /* "Authorization: Basic ...\r\n" lines, one per -A (owned) */
    int verbosity;
    int heartbeat;            /* -q turns it off */
    int recv_errors_ok;       /* -r */
    int nolength;             /* -l */
    int percentiles;          /* -d turns off */
    int confidence;           /* -S turns off */
    const char *csv_file;     /* -e */
    const char *gnuplot_file; /* -g */
    int latency;              /* --latency */
    int json;                 /* --json */
    int count_timeouts;       /* --count-timeouts: a request past -s fails, the run goes on */
    int have_rate;
    double rate; /* constant rate, when the schedule is one constant phase */
    const char *rate_spec;
    struct sched *sched; /* owned; NULL for the closed model */
    int show_help, show_version;
    struct url url;
    const char *url_text;
};

/* Parses argv (argv[0] is the program). On success returns 0; on a usage error returns
 * -1 with a one-line message in err (the caller prints it with "try --help", exit 2);
 * on an I/O error (unreadable -p file) returns -2 with err set (exit 1). */
int opts_parse(int argc, char **argv, struct opts *o, char *err, size_t errlen);
void opts_cleanup(struct opts *o);
/* Builds the request bytes (headers, then the body). The caller frees *out. */
void opts_build_request(const struct opts *o, char **out, size_t *len);

#endif
