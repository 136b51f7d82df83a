/* bench/bench_elb.c: cost of the data-plane reads the proxy and the simulator make on
 * libscaler's EC2 and ELB records (libscaler only).
 *
 * A region with N instances (default 1,000, all running), one load balancer over three
 * zones with R of them registered and InService (default 200). Prints CPU time per call of
 * sc_ec2_instance_find beside its peer, a linear scan over sc_ec2_instance_at (what a
 * caller without the index would do), and of sc_elb_route_set, sc_elb_target_at over every
 * target, sc_elb_health_result and DescribeInstanceHealth of every registration.
 *   bench_elb [instances] [registered]   (defaults 1000 200) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scaler/elb.h"

#define T0 1767225600000LL

/* CPU time of this process: the 2-core hosts are shared, so wall time measures neighbours. */
static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const struct sc_ec2_instance *linear_find(const struct sc_ec2 *ec2, const char *id)
{
    for (int i = 0; i < sc_ec2_instance_count(ec2); i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(ec2, i);

        if (strcmp(in->instance_id, id) == 0)
            return in;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int ninst = argc > 1 ? atoi(argv[1]) : 1000;
    int nreg = argc > 2 ? atoi(argv[2]) : 200;
    const char *zones[] = { "us-east-1a", "us-east-1b", "us-east-1c" };
    struct sc_elb_listener l = { "HTTP", 80, "HTTP", 8080, NULL };
    struct sc_elb_create_req req = { 0 };
    struct sc_ec2_config ec = { 0 };
    struct sc_elb_config lc = { 0 };
    struct sc_error err = { 0 };
    struct sc_ec2 *ec2;
    struct sc_elb *elb;
    char(*ids)[SC_EC2_ID_LEN];
    const char **route;
    struct sc_elb_instance_health *rows;
    long sink = 0;
    int iters, n;
    double t0, t_find, t_lin, t_route, t_target, t_health, t_describe;

    if (ninst < 1 || nreg < 1 || nreg > ninst) {
        fprintf(stderr, "usage: bench_elb [instances] [registered <= instances]\n");
        return 2;
    }
    ec.max_instances = ninst;
    ec2 = sc_ec2_create(&ec);
    lc.ec2 = ec2;
    elb = ec2 ? sc_elb_create(&lc) : NULL;
    ids = calloc((size_t)ninst, sizeof(*ids));
    route = calloc((size_t)nreg, sizeof(*route));
    rows = calloc((size_t)nreg, sizeof(*rows));
    if (!elb || !ids || !route || !rows)
        return 1;
    req.load_balancer_name = "bench";
    req.listeners = &l;
    req.nlisteners = 1;
    req.availability_zones = zones;
    req.nzones = 3;
    if (sc_elb_create_load_balancer(elb, &req, T0, NULL, &err) != SC_OK)
        return 1;
    for (int i = 0; i < ninst; i++) {
        struct sc_ec2_run_req rq = { 0 };
        const struct sc_ec2_reservation *r;

        rq.image_id = "ami-12c6146b";
        rq.min_count = rq.max_count = 1;
        if (sc_ec2_run_instances(ec2, &rq, T0, &r, &err) != SC_OK)
            return 1;
        snprintf(ids[i], sizeof(ids[i]), "%s", r->instances[0]->instance_id);
        sc_ec2_instance_running(ec2, ids[i], T0);
    }
    for (int i = ninst - nreg; i < ninst; i++) {
        const char *id = ids[i];

        sc_elb_register_instances(elb, "bench", &id, 1, T0, &err);
        sc_elb_health_result(elb, "bench", id, 1, T0);
    }

    iters = 2000000;
    t0 = now_s();
    for (int k = 0; k < iters; k++)
        sink += sc_ec2_instance_find(ec2, ids[k % ninst]) != NULL;
    t_find = (now_s() - t0) / iters;
    iters = 20000;
    t0 = now_s();
    for (int k = 0; k < iters; k++)
        sink += linear_find(ec2, ids[k % ninst]) != NULL;
    t_lin = (now_s() - t0) / iters;
    iters = 20000;
    t0 = now_s();
    for (int k = 0; k < iters; k++)
        sink += sc_elb_route_set(elb, "bench", NULL, route, nreg);
    t_route = (now_s() - t0) / iters;
    iters = 20000;
    t0 = now_s();
    for (int k = 0; k < iters; k++) {
        struct sc_elb_target t;

        for (int i = 0; i < nreg; i++)
            sink += sc_elb_target_at(elb, "bench", i, &t) == 0 && t.routable;
    }
    t_target = (now_s() - t0) / iters;
    iters = 200;
    t0 = now_s();
    for (int k = 0; k < iters; k++) {
        for (int i = ninst - nreg; i < ninst; i++)
            sink += sc_elb_health_result(elb, "bench", ids[i], 1, T0);
    }
    t_health = (now_s() - t0) / iters / nreg;
    iters = 20000;
    t0 = now_s();
    for (int k = 0; k < iters; k++) {
        sc_elb_describe_instance_health(elb, "bench", NULL, 0, rows, &n, &err);
        sink += n;
    }
    t_describe = (now_s() - t0) / iters;

    printf("instances %d, registered %d (checksum %ld)\n", ninst, nreg, sink);
    printf("sc_ec2_instance_find          %10.3f us/call\n", t_find * 1e6);
    printf("  peer: linear scan by index  %10.3f us/call  (%.0fx slower)\n", t_lin * 1e6,
           t_lin / t_find);
    printf("sc_elb_route_set (all zones)  %10.3f us/call\n", t_route * 1e6);
    printf("sc_elb_target_at x%d         %10.3f us/sweep\n", nreg, t_target * 1e6);
    printf("sc_elb_health_result          %10.3f us/call\n", t_health * 1e6);
    printf("DescribeInstanceHealth (all)  %10.3f us/call\n", t_describe * 1e6);
    free(rows);
    free(route);
    free(ids);
    sc_elb_destroy(elb);
    sc_ec2_destroy(ec2);
    return 0;
}
