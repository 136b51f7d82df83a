/* scaler/elb_metrics.c: the AWS/ELB metric set of a classic load balancer, from the raw
 * counters either world's data plane keeps, by AWS's reporting criteria
 * (docs/elb-metrics.md). */
#include "scaler/elb.h"

#include <string.h>

#include "scaler/cloudwatch.h"

static const struct {
    const char *name;
    const char *unit;
} catalog[SC_ELB_NMETRICS] = {
    [SC_ELB_METRIC_HEALTHY_HOST_COUNT] = { "HealthyHostCount", "Count" },
    [SC_ELB_METRIC_UNHEALTHY_HOST_COUNT] = { "UnHealthyHostCount", "Count" },
    [SC_ELB_METRIC_REQUEST_COUNT] = { "RequestCount", "Count" },
    [SC_ELB_METRIC_LATENCY] = { "Latency", "Seconds" },
    [SC_ELB_METRIC_BACKEND_2XX] = { "HTTPCode_Backend_2XX", "Count" },
    [SC_ELB_METRIC_BACKEND_3XX] = { "HTTPCode_Backend_3XX", "Count" },
    [SC_ELB_METRIC_BACKEND_4XX] = { "HTTPCode_Backend_4XX", "Count" },
    [SC_ELB_METRIC_BACKEND_5XX] = { "HTTPCode_Backend_5XX", "Count" },
    [SC_ELB_METRIC_ELB_4XX] = { "HTTPCode_ELB_4XX", "Count" },
    [SC_ELB_METRIC_ELB_5XX] = { "HTTPCode_ELB_5XX", "Count" },
    [SC_ELB_METRIC_SURGE_QUEUE_LENGTH] = { "SurgeQueueLength", "Count" },
    [SC_ELB_METRIC_SPILLOVER_COUNT] = { "SpilloverCount", "Count" },
    [SC_ELB_METRIC_BACKEND_CONNECTION_ERRORS] = { "BackendConnectionErrors", "Count" },
};

const char *sc_elb_metric_name(enum sc_elb_metric m)
{
    return (unsigned)m < SC_ELB_NMETRICS ? catalog[m].name : NULL;
}

const char *sc_elb_metric_unit(enum sc_elb_metric m)
{
    return (unsigned)m < SC_ELB_NMETRICS ? catalog[m].unit : NULL;
}

int sc_elb_metric_find(const char *metric_name)
{
    for (int m = 0; metric_name && m < SC_ELB_NMETRICS; m++) {
        if (strcmp(catalog[m].name, metric_name) == 0)
            return m;
    }
    return -1;
}

struct report {
    struct sc_cw *cw;
    struct sc_dimension dim;
    unsigned wanted;
    int64_t timestamp_ms, now_ms;
    int n;
};

static void put(struct report *r, enum sc_elb_metric m, double v)
{
    if (!(r->wanted & SC_ELB_METRIC_BIT(m)))
        return;
    if (sc_cw_put_value(r->cw, "AWS/ELB", catalog[m].name, &r->dim, 1, catalog[m].unit, v,
                        r->timestamp_ms, r->now_ms) == SC_OK)
        r->n++;
}

/* Counts and peaks are reported only when non-zero. */
static void put_nonzero(struct report *r, enum sc_elb_metric m, double v)
{
    if (v != 0)
        put(r, m, v);
}

int sc_elb_report_minute(const struct sc_elb *elb, struct sc_cw *cw, const char *name,
                         const struct sc_elb_traffic *t, unsigned metrics, int64_t timestamp_ms,
                         int64_t now_ms)
{
    struct report r = { cw, { "LoadBalancerName", name }, metrics, timestamp_ms, now_ms, 0 };
    int healthy = 0, unhealthy = 0;

    if (sc_elb_host_counts(elb, name, NULL, &healthy, &unhealthy) < 0)
        return -1;
    /* reported while there are registered instances, zeros too */
    if (sc_elb_target_count(elb, name) > 0) {
        put(&r, SC_ELB_METRIC_HEALTHY_HOST_COUNT, healthy);
        put(&r, SC_ELB_METRIC_UNHEALTHY_HOST_COUNT, unhealthy);
    }
    put_nonzero(&r, SC_ELB_METRIC_REQUEST_COUNT, t->requests);
    if (t->latency_count > 0)
        put(&r, SC_ELB_METRIC_LATENCY, t->latency_sum_us / t->latency_count / 1e6);
    put_nonzero(&r, SC_ELB_METRIC_BACKEND_2XX, t->backend_2xx);
    put_nonzero(&r, SC_ELB_METRIC_BACKEND_3XX, t->backend_3xx);
    put_nonzero(&r, SC_ELB_METRIC_BACKEND_4XX, t->backend_4xx);
    put_nonzero(&r, SC_ELB_METRIC_BACKEND_5XX, t->backend_5xx);
    put_nonzero(&r, SC_ELB_METRIC_ELB_4XX, t->elb_4xx);
    put_nonzero(&r, SC_ELB_METRIC_ELB_5XX, t->elb_5xx);
    put_nonzero(&r, SC_ELB_METRIC_SURGE_QUEUE_LENGTH, t->surge_queue_max);
    put_nonzero(&r, SC_ELB_METRIC_SPILLOVER_COUNT, t->spillover);
    put_nonzero(&r, SC_ELB_METRIC_BACKEND_CONNECTION_ERRORS, t->backend_conn_errors);
    return r.n;
}
