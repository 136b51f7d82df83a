/* scaler/elbv2_metrics.c: see elbv2.h. The AWS/ApplicationELB metric set of one Application
 * Load Balancer from the raw counters a world's data plane keeps, by AWS's reporting
 * criteria and dimensions (docs/elbv2.md 11), and the ResourceLabel of
 * ALBRequestCountPerTarget (docs/elbv2.md 12). */
#include "scaler/elbv2.h"

#include <ctype.h>
#include <string.h>

#include "scaler/cloudwatch.h"

#define NS "AWS/ApplicationELB"

const char *sc_elbv2_arn_dimension(const char *arn)
{
    const char *p;

    if (!arn)
        return NULL;
    p = strstr(arn, ":loadbalancer/");
    if (p)
        return p + 14;
    p = strstr(arn, ":targetgroup/");
    return p ? p + 1 : NULL;
}

/* name/ID: 1..32 of [A-Za-z0-9-] then '/' then 16 hex digits; returns the length used, 0
 * when not of that form. end: what must follow ('\0' or '/'). */
static size_t name_id(const char *s, char end)
{
    size_t n = 0, h = 0;

    while (s[n] && s[n] != '/' && (isalnum((unsigned char)s[n]) || s[n] == '-'))
        n++;
    if (n < 1 || n > 32 || s[n] != '/')
        return 0;
    while (isxdigit((unsigned char)s[n + 1 + h]))
        h++;
    if (h != 16 || s[n + 1 + h] != end)
        return 0;
    return n + 1 + h;
}

int sc_elbv2_resource_label_valid(const char *label)
{
    size_t n;

    if (!label || strncmp(label, "app/", 4) != 0)
        return 0;
    n = name_id(label + 4, '/');
    if (!n || strncmp(label + 4 + n, "/targetgroup/", 13) != 0)
        return 0;
    return name_id(label + 4 + n + 13, '\0') > 0;
}

struct report {
    struct sc_cw *cw;
    const char *ns;
    int64_t ts, now;
    int n;
};

int sc_elbv2_metric_known(const char *name)
{
    static const char *const names[] = {
        "RequestCount",
        "TargetResponseTime",
        "HTTPCode_Target_2XX_Count",
        "HTTPCode_Target_3XX_Count",
        "HTTPCode_Target_4XX_Count",
        "HTTPCode_Target_5XX_Count",
        "ActiveConnectionCount",
        "NewConnectionCount",
        "ProcessedBytes",
        "TargetConnectionErrorCount",
        "HTTPCode_ELB_3XX_Count",
        "HTTPCode_ELB_4XX_Count",
        "HTTPCode_ELB_5XX_Count",
        "HTTPCode_ELB_502_Count",
        "HTTPCode_ELB_503_Count",
        "HTTPCode_ELB_504_Count",
        "HTTP_Fixed_Response_Count",
        "HTTP_Redirect_Count",
        "RequestCountPerTarget",
        "HealthyHostCount",
        "UnHealthyHostCount",
        NULL,
    };

    for (int i = 0; name && names[i]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

static void put(struct report *r, const char *metric, const char *unit,
                const struct sc_dimension *d, int nd, double v)
{
    if (sc_cw_put_value(r->cw, r->ns, metric, d, nd, unit, v, r->ts, r->now) == SC_OK)
        r->n++;
}

static void put_nonzero(struct report *r, const char *metric, const struct sc_dimension *d, int nd,
                        double v)
{
    if (v != 0)
        put(r, metric, "Count", d, nd, v);
}

/* The target-side figures one dimension set gets (a group's, or the load balancer's sum). */
static void add_traffic(struct sc_elbv2_tg_traffic *sum, const struct sc_elbv2_tg_traffic *t)
{
    sum->requests += t->requests;
    sum->target_2xx += t->target_2xx;
    sum->target_3xx += t->target_3xx;
    sum->target_4xx += t->target_4xx;
    sum->target_5xx += t->target_5xx;
    sum->resp_time_sum_s += t->resp_time_sum_s;
    sum->resp_count += t->resp_count;
    sum->conn_errors += t->conn_errors;
}

static void put_target_side(struct report *r, const struct sc_dimension *d, int nd,
                            const struct sc_elbv2_tg_traffic *t)
{
    put(r, "RequestCount", "Count", d, nd, t->requests);
    if (t->resp_count > 0)
        put(r, "TargetResponseTime", "Seconds", d, nd, t->resp_time_sum_s / t->resp_count);
    put_nonzero(r, "HTTPCode_Target_2XX_Count", d, nd, t->target_2xx);
    put_nonzero(r, "HTTPCode_Target_3XX_Count", d, nd, t->target_3xx);
    put_nonzero(r, "HTTPCode_Target_4XX_Count", d, nd, t->target_4xx);
    put_nonzero(r, "HTTPCode_Target_5XX_Count", d, nd, t->target_5xx);
}

static int forwards_from(const struct sc_elbv2_tg *g, const char *lb_arn)
{
    for (int i = 0; i < g->nload_balancer_arns; i++) {
        if (strcmp(g->load_balancer_arns[i], lb_arn) == 0)
            return 1;
    }
    return 0;
}

int sc_elbv2_group_counts(const struct sc_elbv2 *v2, const char *tg_arn, const char *zone,
                          int *healthy, int *unhealthy, int *routable)
{
    int n = sc_elbv2_target_count(v2, tg_arn);

    *healthy = *unhealthy = 0;
    if (routable)
        *routable = 0;
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        struct sc_elbv2_target_health t;

        if (sc_elbv2_target_at(v2, tg_arn, i, &t) != 0)
            continue;
        if (zone && (!t.availability_zone || strcmp(t.availability_zone, zone) != 0))
            continue;
        *healthy += t.state == SC_ELBV2_HEALTHY;
        *unhealthy += t.state == SC_ELBV2_UNHEALTHY;
        if (routable)
            *routable += t.routable;
    }
    return n;
}

double sc_elbv2_request_count_per_target(double requests, int healthy, int routable)
{
    if (healthy > 0)
        return requests / healthy;
    if (routable > 0)
        return requests / routable; /* fail open: every registered target not draining */
    return requests;
}

int sc_elbv2_report_minute(const struct sc_elbv2 *v2, struct sc_cw *cw, const char *lb_arn,
                           const struct sc_elbv2_traffic *t, int64_t timestamp_ms, int64_t now_ms)
{
    struct report r = { cw, NS, timestamp_ms, now_ms, 0 };
    const struct sc_elbv2_lb *b = sc_elbv2_lb_find(v2, lb_arn);
    struct sc_elbv2_tg_traffic sum;
    struct sc_dimension lb[1], tg[1], tglb[2], tgazlb[3], azlb[2];
    static const struct sc_elbv2_tg_traffic none;

    if (!b || strcmp(b->type, "application") != 0)
        return -1;
    memset(&sum, 0, sizeof(sum));
    lb[0].name = "LoadBalancer";
    lb[0].value = sc_elbv2_arn_dimension(b->arn);
    for (int i = 0; i < t->ntgs; i++) {
        if (!t->tgs[i].zone)
            add_traffic(&sum, &t->tgs[i]);
    }
    put_target_side(&r, lb, 1, &sum);
    /* the requests each zone's node took: AvailabilityZone+LoadBalancer (zones with any) */
    for (int z = 0; z < b->nzones; z++) {
        struct sc_elbv2_tg_traffic zs;
        int any = 0;

        memset(&zs, 0, sizeof(zs));
        for (int i = 0; i < t->ntgs; i++) {
            if (t->tgs[i].zone && strcmp(t->tgs[i].zone, b->zones[z]) == 0) {
                add_traffic(&zs, &t->tgs[i]);
                any = 1;
            }
        }
        if (!any)
            continue;
        azlb[0].name = "AvailabilityZone";
        azlb[0].value = b->zones[z];
        azlb[1] = lb[0];
        put_target_side(&r, azlb, 2, &zs);
    }
    put_nonzero(&r, "ActiveConnectionCount", lb, 1, t->active_conns);
    put_nonzero(&r, "NewConnectionCount", lb, 1, t->new_conns);
    if (t->processed_bytes != 0)
        put(&r, "ProcessedBytes", "Bytes", lb, 1, t->processed_bytes);
    put_nonzero(&r, "TargetConnectionErrorCount", lb, 1, sum.conn_errors);
    put_nonzero(&r, "HTTPCode_ELB_3XX_Count", lb, 1, t->elb_3xx);
    put_nonzero(&r, "HTTPCode_ELB_4XX_Count", lb, 1, t->elb_4xx);
    put_nonzero(&r, "HTTPCode_ELB_5XX_Count", lb, 1, t->elb_5xx);
    put_nonzero(&r, "HTTPCode_ELB_502_Count", lb, 1, t->elb_502);
    put_nonzero(&r, "HTTPCode_ELB_503_Count", lb, 1, t->elb_503);
    put_nonzero(&r, "HTTPCode_ELB_504_Count", lb, 1, t->elb_504);
    put_nonzero(&r, "HTTP_Fixed_Response_Count", lb, 1, t->fixed_responses);
    put_nonzero(&r, "HTTP_Redirect_Count", lb, 1, t->redirects);
    for (int g = 0; g < sc_elbv2_tg_count(v2); g++) {
        const struct sc_elbv2_tg *grp = sc_elbv2_tg_at(v2, g);
        const struct sc_elbv2_tg_traffic *tt = &none;
        int healthy, unhealthy, routable;

        if (!forwards_from(grp, lb_arn))
            continue;
        tg[0].name = "TargetGroup";
        tg[0].value = sc_elbv2_arn_dimension(grp->arn);
        for (int i = 0; i < t->ntgs; i++) {
            if (!t->tgs[i].target_group_arn || strcmp(t->tgs[i].target_group_arn, grp->arn) != 0)
                continue;
            if (!t->tgs[i].zone) {
                tt = &t->tgs[i];
                continue;
            }
            tgazlb[0] = tg[0];
            tgazlb[1].name = "AvailabilityZone";
            tgazlb[1].value = t->tgs[i].zone;
            tgazlb[2] = lb[0];
            put_target_side(&r, tgazlb, 3, &t->tgs[i]);
        }
        tglb[0] = tg[0];
        tglb[1] = lb[0];
        put_target_side(&r, tglb, 2, tt);
        put_nonzero(&r, "TargetConnectionErrorCount", tglb, 2, tt->conn_errors);
        sc_elbv2_group_counts(v2, grp->arn, NULL, &healthy, &unhealthy, &routable);
        put(&r, "RequestCountPerTarget", "Count", tg, 1,
            sc_elbv2_request_count_per_target(tt->requests, healthy, routable));
        put(&r, "RequestCountPerTarget", "Count", tglb, 2,
            sc_elbv2_request_count_per_target(tt->requests, healthy, routable));
        put(&r, "HealthyHostCount", "Count", tglb, 2, healthy);
        put(&r, "UnHealthyHostCount", "Count", tglb, 2, unhealthy);
        for (int z = 0; z < b->nzones; z++) {
            sc_elbv2_group_counts(v2, grp->arn, b->zones[z], &healthy, &unhealthy, NULL);
            tgazlb[0] = tg[0];
            tgazlb[1].name = "AvailabilityZone";
            tgazlb[1].value = b->zones[z];
            tgazlb[2] = lb[0];
            put(&r, "HealthyHostCount", "Count", tgazlb, 3, healthy);
            put(&r, "UnHealthyHostCount", "Count", tgazlb, 3, unhealthy);
        }
    }
    return r.n;
}

/* HealthyHostCount / UnHealthyHostCount of each group lb forwards to. */
static void put_host_counts(struct report *r, const struct sc_elbv2 *v2,
                            const struct sc_elbv2_lb *b, const struct sc_dimension *lb)
{
    struct sc_dimension tglb[2], tgazlb[3];

    for (int g = 0; g < sc_elbv2_tg_count(v2); g++) {
        const struct sc_elbv2_tg *grp = sc_elbv2_tg_at(v2, g);
        int healthy, unhealthy;

        if (!forwards_from(grp, b->arn))
            continue;
        tglb[0].name = "TargetGroup";
        tglb[0].value = sc_elbv2_arn_dimension(grp->arn);
        tglb[1] = lb[0];
        sc_elbv2_group_counts(v2, grp->arn, NULL, &healthy, &unhealthy, NULL);
        put(r, "HealthyHostCount", "Count", tglb, 2, healthy);
        put(r, "UnHealthyHostCount", "Count", tglb, 2, unhealthy);
        for (int z = 0; z < b->nzones; z++) {
            sc_elbv2_group_counts(v2, grp->arn, b->zones[z], &healthy, &unhealthy, NULL);
            tgazlb[0] = tglb[0];
            tgazlb[1].name = "AvailabilityZone";
            tgazlb[1].value = b->zones[z];
            tgazlb[2] = lb[0];
            put(r, "HealthyHostCount", "Count", tgazlb, 3, healthy);
            put(r, "UnHealthyHostCount", "Count", tgazlb, 3, unhealthy);
        }
    }
}

int sc_elbv2_report_nlb_minute(const struct sc_elbv2 *v2, struct sc_cw *cw, const char *lb_arn,
                               const struct sc_elbv2_nlb_traffic *t, int64_t timestamp_ms,
                               int64_t now_ms)
{
    struct report r = { cw, "AWS/NetworkELB", timestamp_ms, now_ms, 0 };
    const struct sc_elbv2_lb *b = sc_elbv2_lb_find(v2, lb_arn);
    struct sc_dimension lb[1];

    if (!b || strcmp(b->type, "network") != 0)
        return -1;
    lb[0].name = "LoadBalancer";
    lb[0].value = sc_elbv2_arn_dimension(b->arn);
    put(&r, "ActiveFlowCount", "Count", lb, 1,
        t->active_flows_tcp + t->active_flows_tls + t->active_flows_udp);
    put_nonzero(&r, "ActiveFlowCount_TCP", lb, 1, t->active_flows_tcp);
    put_nonzero(&r, "ActiveFlowCount_TLS", lb, 1, t->active_flows_tls);
    put_nonzero(&r, "ActiveFlowCount_UDP", lb, 1, t->active_flows_udp);
    put(&r, "NewFlowCount", "Count", lb, 1, t->new_flows_tcp + t->new_flows_tls + t->new_flows_udp);
    put_nonzero(&r, "NewFlowCount_TCP", lb, 1, t->new_flows_tcp);
    put_nonzero(&r, "NewFlowCount_TLS", lb, 1, t->new_flows_tls);
    put_nonzero(&r, "NewFlowCount_UDP", lb, 1, t->new_flows_udp);
    put(&r, "ProcessedBytes", "Bytes", lb, 1, t->bytes_tcp + t->bytes_tls + t->bytes_udp);
    if (t->bytes_tcp != 0)
        put(&r, "ProcessedBytes_TCP", "Bytes", lb, 1, t->bytes_tcp);
    if (t->bytes_tls != 0)
        put(&r, "ProcessedBytes_TLS", "Bytes", lb, 1, t->bytes_tls);
    if (t->bytes_udp != 0)
        put(&r, "ProcessedBytes_UDP", "Bytes", lb, 1, t->bytes_udp);
    put_nonzero(&r, "TCP_Client_Reset_Count", lb, 1, t->client_resets);
    put_nonzero(&r, "TCP_ELB_Reset_Count", lb, 1, t->elb_resets);
    put_nonzero(&r, "TCP_Target_Reset_Count", lb, 1, t->target_resets);
    put_host_counts(&r, v2, b, lb);
    return r.n;
}
