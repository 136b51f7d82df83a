/* bench/bench_metrics.c: CloudWatch store and alarm throughput and memory (libscaler only).
 *
 * Plays one day of 1-minute data for 1,000 metrics (AWS/EC2-like CPUUtilization with an
 * InstanceId dimension), sent as PutMetricData requests of 20 datums, with 1,000 alarms
 * (Period 60, 3 of 3) evaluated each minute through sc_cw_step. Prints the put rate
 * (datapoints/s), the evaluation cost per alarm, and RSS before and after.
 *   bench_metrics [metrics] [minutes]   (defaults 1000 1440) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scaler/cloudwatch.h"

#define T0    1767225600000LL
#define BATCH 20

/* CPU time of this process: the 2-core hosts are shared, so wall time measures neighbours. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = strtol(line + 6, NULL, 10);
    fclose(f);
    return kb;
}

static int actions;
static const char *on_action(const char *arn, const struct sc_alarm_view *a, int64_t now, void *ud)
{
    (void)arn;
    (void)a;
    (void)now;
    (void)ud;
    actions++;
    return NULL;
}

int main(int argc, char **argv)
{
    int nmetrics = argc > 1 ? atoi(argv[1]) : 1000;
    int minutes = argc > 2 ? atoi(argv[2]) : 1440;
    struct sc_cw_config cfg;
    struct sc_cw *cw;
    char(*ids)[32];
    struct sc_dimension *dims;
    struct sc_metric_datum batch[BATCH];
    const char *acts[] = { "arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:u:"
                           "autoScalingGroupName/g:policyName/up" };
    double put_s = 0, step_s = 0, t;
    long rss0, rss_alarms, rss_end;
    uint64_t points = 0;
    unsigned seed = 1;

    if (nmetrics < 1 || minutes < 1) {
        fprintf(stderr, "usage: bench_metrics [metrics] [minutes]\n");
        return 2;
    }
    sc_cw_config_defaults(&cfg);
    cfg.start_ms = T0;
    rss0 = rss_kb();
    cw = sc_cw_create(&cfg);
    ids = calloc((size_t)nmetrics, sizeof(*ids));
    dims = calloc((size_t)nmetrics, sizeof(*dims));
    if (!cw || !ids || !dims)
        return 1;
    sc_cw_set_action_handler(cw, on_action, NULL);
    for (int i = 0; i < nmetrics; i++) {
        struct sc_put_metric_alarm_req a;
        char name[64];
        snprintf(ids[i], sizeof(ids[i]), "i-%017x", i);
        dims[i].name = "InstanceId";
        dims[i].value = ids[i];
        memset(&a, 0, sizeof(a));
        snprintf(name, sizeof(name), "cpu-high-%d", i);
        a.alarm_name = name;
        a.metric_name = "CPUUtilization";
        a.namespace = "Bench";
        a.statistic = "Average";
        a.dimensions = &dims[i];
        a.n_dimensions = 1;
        a.has_period = 1;
        a.period = 60;
        a.has_evaluation_periods = 1;
        a.evaluation_periods = 3;
        a.has_threshold = 1;
        a.threshold = 80;
        a.comparison_operator = "GreaterThanThreshold";
        a.alarm_actions = acts;
        a.n_alarm_actions = 1;
        if (sc_cw_put_metric_alarm(cw, &a, T0, NULL) != SC_OK)
            return 1;
    }
    rss_alarms = rss_kb();
    for (int m = 0; m < minutes; m++) {
        int64_t ts = T0 + (int64_t)m * 60000 + 1000;
        t = now_s();
        for (int i = 0; i < nmetrics; i += BATCH) {
            struct sc_put_metric_data_req r = { "Bench", batch, 0, 0 };
            for (int j = 0; j < BATCH && i + j < nmetrics; j++) {
                seed = seed * 1103515245u + 12345u;
                memset(&batch[j], 0, sizeof(batch[j]));
                batch[j].metric_name = "CPUUtilization";
                batch[j].dimensions = &dims[i + j];
                batch[j].n_dimensions = 1;
                batch[j].has_value = 1;
                batch[j].value = (double)(seed >> 16 & 0x7fff) / 32767.0 * 100.0;
                batch[j].has_timestamp = 1;
                batch[j].timestamp_ms = ts;
                batch[j].unit = "Percent";
                r.n_metric_data++;
            }
            if (sc_cw_put_metric_data(cw, &r, ts, NULL) != SC_OK)
                return 1;
            points += (uint64_t)r.n_metric_data;
        }
        put_s += now_s() - t;
        t = now_s();
        sc_cw_step(cw, T0 + (int64_t)(m + 1) * 60000);
        step_s += now_s() - t;
    }
    rss_end = rss_kb();
    /* put only, best of 5 rounds of 100 minutes: the figure least disturbed by neighbours */
    double best = 1e9;
    for (int round = 0; round < 5; round++) {
        uint64_t n = 0;
        t = now_s();
        for (int m = 0; m < 100; m++) {
            int64_t ts = T0 + (int64_t)(minutes + round * 100 + m) * 60000 + 1000;
            for (int i = 0; i < nmetrics; i += BATCH) {
                struct sc_put_metric_data_req r = { "Bench", batch, 0, 0 };
                for (int j = 0; j < BATCH && i + j < nmetrics; j++) {
                    batch[j].dimensions = &dims[i + j];
                    batch[j].value = (double)((i + j + m) % 100);
                    batch[j].timestamp_ms = ts;
                    r.n_metric_data++;
                }
                if (sc_cw_put_metric_data(cw, &r, ts, NULL) != SC_OK)
                    return 1;
                n += (uint64_t)r.n_metric_data;
            }
        }
        t = (now_s() - t) / (double)n;
        if (t < best)
            best = t;
    }
    printf("metrics=%d minutes=%d datapoints=%llu alarms=%d\n", nmetrics, minutes,
           (unsigned long long)points, nmetrics);
    printf("(rates are per CPU-second of this process)\n");
    printf("put: %.0f datapoints/s (%.3f us/datapoint), bar >= 20000/s\n", points / put_s,
           put_s * 1e6 / (double)points);
    printf("put only (best of 5 x %d points): %.0f datapoints/s (%.3f us/datapoint)\n",
           100 * nmetrics, 1 / best, best * 1e6);
    printf("alarm evaluation: %.3f us per alarm per minute (%d ticks, %d actions)\n",
           step_s * 1e6 / ((double)minutes * nmetrics), minutes, actions);
    printf(
        "rss: start %ld kB, after alarms %ld kB, after data %ld kB; store %zu kB; bar < 100 MB\n",
        rss0, rss_alarms, rss_end, sc_metric_store_bytes(sc_cw_metrics(cw)) / 1024);
    sc_cw_destroy(cw);
    free(ids);
    free(dims);
    return 0;
}
