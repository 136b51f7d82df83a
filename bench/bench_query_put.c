/* bench/bench_query_put.c: the event loop's cost of one 1,000-datum PutMetricData over the
 * Query protocol (the soak's series explosion: boto3's form of 1,000 datums, each a new
 * series of one dimension), in CPU time, without sockets: the form split
 * (query_form_parse), the model-driven parse into the typed IR (query_parse), and the whole
 * request through dispatch_handle (routing, parse, handler, metric store, reply) against an
 * emu with the records-only data plane. Every call of the whole-request part puts new
 * series, as the soak does.
 *
 * CPU time, not wall time: the 2-core hosts are shared. For a figure independent of the
 * load, run it under `valgrind --tool=callgrind --toggle-collect=query_parse` (or
 * `--toggle-collect=dispatch_handle`) and read the instruction count (bench_query_put.sh
 * CALLGRIND=1).
 *   bench_query_put [datums] [parse-rounds] [requests]   (defaults 1000 50 20) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/resource.h>

#include <jansson.h>

#include "common/buf.h"
#include "common/log.h"
#include "emulator/awserr.h"
#include "emulator/dispatch.h"
#include "emulator/emu.h"
#include "emulator/model.h"
#include "emulator/query.h"

#define START_MS 1767225600000LL /* 2026-01-01 */

static double cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* boto3's body for call `call`: datum j has MetricName m, Value 1, dimension k=v<call>-<j>. */
static void put_body(struct cm_buf *b, int call, int datums)
{
    cm_buf_reset(b);
    cm_buf_printf(b, "Action=PutMetricData&Version=2010-08-01&Namespace=Soak");
    for (int j = 1; j <= datums; j++)
        cm_buf_printf(b,
                      "&MetricData.member.%d.MetricName=m&MetricData.member.%d.Value=1.0"
                      "&MetricData.member.%d.Dimensions.member.1.Name=k"
                      "&MetricData.member.%d.Dimensions.member.1.Value=v%d-%d",
                      j, j, j, j, call, j);
}

/* user and system CPU seconds and minor page faults of this process so far */
static void usage_now(double *user, double *sys, long *faults)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    *user = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
    *sys = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    *faults = ru.ru_minflt;
}

static int parse_rounds(const struct cm_buf *b, int rounds)
{
    const struct model_op *op = model_op_find(&model_cloudwatch, "PutMetricData");
    double t0, t_form = 0, t_parse = 0;

    if (!op) {
        fprintf(stderr, "no PutMetricData in the model\n");
        return -1;
    }
    for (int i = 0; i < rounds; i++) {
        struct query_form f;
        struct awserr err;
        json_t *in = NULL;

        t0 = cpu_s();
        if (query_form_parse(&f, b->data, b->len, &err) < 0) {
            fprintf(stderr, "form: %s\n", err.message);
            return -1;
        }
        t_form += cpu_s() - t0;
        t0 = cpu_s();
        if (query_parse(&model_cloudwatch, op, &f, 0, &in, &err) < 0) {
            fprintf(stderr, "parse: %s: %s\n", err.code, err.message);
            query_form_cleanup(&f);
            return -1;
        }
        t_parse += cpu_s() - t0;
        json_decref(in);
        query_form_cleanup(&f);
    }
    printf("query_form_parse %.3f ms  query_parse %.3f ms  (CPU per call, %d calls)\n",
           t_form * 1e3 / rounds, t_parse * 1e3 / rounds, rounds);
    return 0;
}

static int requests(struct cm_buf *b, int datums, int n)
{
    struct emu_config ec;
    struct dispatch_config dc;
    struct emu *e;
    struct dispatch *d;
    char err[256];
    double t = 0, worst = 0, u0, s0, u1, s1;
    long f0, f1;
    struct cm_sigv4_header h[2] = {
        { "Content-Type", "application/x-www-form-urlencoded; charset=utf-8" },
        { "Authorization", "AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/monitoring/"
                           "aws4_request, SignedHeaders=host, Signature=00" },
    };

    emu_config_defaults(&ec);
    ec.clock_manual = 1;
    ec.start_ms = START_MS;
    e = emu_create(&ec);
    dispatch_config_defaults(&dc);
    dc.quiet = 1;
    d = e ? dispatch_create(&dc, e, err, sizeof(err)) : NULL;
    if (!d) {
        fprintf(stderr, "dispatch: %s\n", e ? err : "no emu");
        return -1;
    }
    usage_now(&u0, &s0, &f0);
    for (int i = 0; i < n; i++) {
        struct dispatch_request r;
        struct dispatch_response rs;
        double t0, dt;

        put_body(b, i, datums);
        memset(&r, 0, sizeof(r));
        r.method = "POST";
        r.path = "/";
        r.query = "";
        r.hdrs = h;
        r.nhdrs = 2;
        r.body = b->data;
        r.body_len = b->len;
        t0 = cpu_s();
        dispatch_handle(d, &r, &rs);
        dt = cpu_s() - t0;
        if (rs.status != 200) {
            fprintf(stderr, "request %d: %d %.*s\n", i, rs.status, (int)rs.body.len, rs.body.data);
            dispatch_response_cleanup(&rs);
            return -1;
        }
        dispatch_response_cleanup(&rs);
        t += dt;
        if (dt > worst)
            worst = dt;
    }
    usage_now(&u1, &s1, &f1);
    printf("PutMetricData request %.3f ms (CPU per call, worst %.3f ms, %d calls of new "
           "series; per call %.3f ms user, %.3f ms system, %ld minor faults, bodies built "
           "included)\n",
           t * 1e3 / n, worst * 1e3, n, (u1 - u0) * 1e3 / n, (s1 - s0) * 1e3 / n, (f1 - f0) / n);
    dispatch_destroy(d);
    emu_destroy(e);
    return 0;
}

int main(int argc, char **argv)
{
    int datums = argc > 1 ? atoi(argv[1]) : 1000;
    int rounds = argc > 2 ? atoi(argv[2]) : 50;
    int n = argc > 3 ? atoi(argv[3]) : 20;
    struct cm_buf b;
    int rc = 0;

    cm_log_set_level(CM_LOG_ERROR);
    cm_buf_init(&b, 0);
    put_body(&b, 0, datums);
    printf("%d datums, %zu bytes of form\n", datums, b.len);
    if (rounds > 0 && parse_rounds(&b, rounds) < 0)
        rc = 1;
    if (rc == 0 && n > 0 && requests(&b, datums, n) < 0)
        rc = 1;
    cm_buf_cleanup(&b);
    return rc;
}
