/* tests/unit/emulator/test_autoscale.c: emulator/autoscale.c, the emulator's real data
 * plane, driven directly over a world (the ELB API handlers need not exist): EC2 instances
 * become emulator-instance processes, a classic ELB listener becomes a proxy (on port 80,
 * or an ephemeral port when 80 is privileged or taken), HTTP health checks put the instances
 * InService, requests through the listener reach both, a killed instance goes
 * OutOfService and is reported lost, deregistration with draining ends by drain_done,
 * and each emulated minute brings CPUUtilization and AWS/ELB RequestCount. An instance
 * stopped from outside (SIGSTOP) and then terminated reaches EC2 `terminated`.
 *
 * It starts real child processes ($SCALELAB_ROOT/$BUILD/bin/emulator-instance); every
 * wait is a condition polled up to a generous deadline, never a timing assertion. */
#include "emulator/autoscale.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "common/ev.h"
#include "emulator/emu.h"
#include "emulator/instance.h"
#include "scaler/cloudwatch.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "scaler/world.h"

#define TIME_SCALE 60.0
#define LB         "web"

struct fixture {
    struct cm_ev *ev;
    struct emu *emu; /* the clock, the world's registry, the step */
    struct sc_world *w;
    struct autoscale *as;
    int (*until)(struct fixture *f);
    int met;
    char exe[4096];
    char ids[2][SC_EC2_ID_LEN];
    int lb_port;
    /* client thread */
    int nreq, ok200, code_other;
    char bodies[4096];
    int client_done;
};

static int64_t emu_now(struct fixture *f)
{
    return emu_now_ms(f->emu);
}

static int64_t on_poll(struct cm_ev *ev, int64_t now, void *ud)
{
    struct fixture *f = ud;

    (void)now;
    emu_step(f->emu);
    if (f->until(f)) {
        f->met = 1;
        cm_ev_stop(ev);
    }
    return 20;
}

static int64_t on_deadline(struct cm_ev *ev, int64_t now, void *ud)
{
    (void)now;
    (void)ud;
    cm_ev_stop(ev);
    return -1;
}

/* Runs the loop until f->until holds or secs pass; returns whether it held. */
static int run_until(struct fixture *f, int (*until)(struct fixture *), int secs)
{
    long t1, t2;

    f->until = until;
    f->met = 0;
    t1 = cm_ev_add_timer(f->ev, 0, on_poll, f);
    t2 = cm_ev_add_timer(f->ev, secs * 1000, on_deadline, f);
    cm_ev_run(f->ev);
    cm_ev_del_timer(f->ev, t1);
    cm_ev_del_timer(f->ev, t2);
    return f->met;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    struct emu_config ec;
    const char *root = getenv("SCALELAB_ROOT");
    const char *build = getenv("BUILD");

    signal(SIGPIPE, SIG_IGN);
    snprintf(f->exe, sizeof(f->exe), "%s/%s/bin/emulator-instance", root ? root : ".",
             build ? build : "build");
    if (access(f->exe, X_OK) != 0) {
        fprintf(stderr, "no %s (build it first)\n", f->exe);
        free(f);
        return -1;
    }
    f->ev = cm_ev_create();
    if (!f->ev) {
        free(f);
        return -1;
    }
    /* the data plane as the emulator runs it: emu owns the clock, the world and the step */
    emu_config_defaults(&ec);
    ec.time_scale = TIME_SCALE;
    ec.instance_exe = f->exe;
    f->emu = emu_create(&ec);
    emu_start(f->emu, f->ev);
    f->as = emu_autoscale(f->emu);
    f->w = emu_world(f->emu, "123456789012", "us-east-1");
    if (!f->w || !f->as) {
        fprintf(stderr, "setup: no data plane (see the log)\n");
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    emu_destroy(f->emu); /* the data plane and the world */
    cm_ev_destroy(f->ev);
    free(f);
    return 0;
}

static int both_running(struct fixture *f)
{
    struct sc_ec2 *ec2 = sc_world_ec2(f->w);

    for (int i = 0; i < 2; i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_find(ec2, f->ids[i]);

        if (!in || in->state != SC_EC2_RUNNING)
            return 0;
    }
    return 1;
}

static int both_in_service(struct fixture *f)
{
    struct sc_elb *elb = sc_world_elb(f->w);

    return sc_elb_instance_in_service(elb, LB, f->ids[0]) &&
           sc_elb_instance_in_service(elb, LB, f->ids[1]);
}

static int first_out_of_service(struct fixture *f)
{
    struct sc_ec2 *ec2 = sc_world_ec2(f->w);
    const struct sc_ec2_instance *in = sc_ec2_instance_find(ec2, f->ids[0]);

    return !sc_elb_instance_in_service(sc_world_elb(f->w), LB, f->ids[0]) && in &&
           in->state == SC_EC2_TERMINATED;
}

static int second_deregistered(struct fixture *f)
{
    return !sc_elb_registered_anywhere(sc_world_elb(f->w), f->ids[1]);
}

static int client_done(struct fixture *f)
{
    return __atomic_load_n(&f->client_done, __ATOMIC_ACQUIRE);
}

/* One GET over a fresh connection: returns the status, body appended to f->bodies. */
static int http_get(struct fixture *f, const char *path)
{
    struct sockaddr_in sa;
    struct timeval tv = { 5, 0 };
    char req[256], buf[8192];
    size_t len = 0;
    int fd, status = -1;

    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)f->lb_port);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        goto out;
    snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path);
    if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0)
        goto out;
    for (;;) {
        ssize_t n = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);

        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    if (len > 12)
        status = atoi(buf + 9);
    if (strlen(f->bodies) + len < sizeof(f->bodies) - 1)
        strcat(f->bodies, buf);
out:
    close(fd);
    return status;
}

static void *client(void *ud)
{
    struct fixture *f = ud;

    for (int i = 0; i < f->nreq; i++) {
        int st = http_get(f, "/_instance/status");

        if (st == 200)
            f->ok200++;
        else
            f->code_other++;
    }
    __atomic_store_n(&f->client_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Requests from a thread while the loop (the proxy) runs on this one. */
static void requests(struct fixture *f, int n)
{
    pthread_t th;

    f->nreq = n;
    f->ok200 = f->code_other = 0;
    f->bodies[0] = '\0';
    f->client_done = 0;
    assert_int_equal(pthread_create(&th, NULL, client, f), 0);
    assert_true(run_until(f, client_done, 30));
    pthread_join(th, NULL);
}

static int count_points(const struct sc_datapoint *dp, void *ud)
{
    (void)dp;
    (*(int *)ud)++;
    return 0;
}

static int points(struct fixture *f, const char *ns, const char *metric, const char *dim,
                  const char *value)
{
    struct sc_dimension d = { dim, value };
    const char *stats[1] = { "Sum" };
    struct sc_get_metric_statistics_req rq;
    struct sc_error err;
    int n = 0;
    int64_t now = emu_now(f);

    memset(&rq, 0, sizeof(rq));
    rq.namespace = ns;
    rq.metric_name = metric;
    rq.dimensions = &d;
    rq.n_dimensions = 1;
    rq.has_start_time = rq.has_end_time = rq.has_period = 1;
    rq.start_time_ms = now - 3600000;
    rq.end_time_ms = now + 60000;
    rq.period = 60;
    rq.statistics = stats;
    rq.n_statistics = 1;
    sc_cw_get_metric_statistics(sc_world_cw(f->w), &rq, now, count_points, &n, &err);
    return n;
}

static int have_metrics(struct fixture *f)
{
    return points(f, "AWS/EC2", "CPUUtilization", "InstanceId", f->ids[1]) > 0 &&
           points(f, "AWS/ELB", "RequestCount", "LoadBalancerName", LB) > 0;
}

static void test_autoscale_elb_end_to_end(void **state)
{
    struct fixture *f = *state;
    struct sc_ec2 *ec2 = sc_world_ec2(f->w);
    struct sc_elb *elb = sc_world_elb(f->w);
    struct sc_elb_listener li = { "HTTP", 80, "HTTP", 8080, NULL };
    const char *zones[] = { "us-east-1a" };
    struct sc_elb_create_req cr;
    struct sc_elb_health_check hc = { "HTTP:8080/health", 5, 2, 2, 2 };
    struct sc_elb_attributes_req ar;
    struct sc_ec2_run_req rr;
    const struct sc_ec2_reservation *res;
    struct sc_error err;
    const char *ids[2];
    char *json, *p;
    int64_t now = emu_now(f);

    memset(&cr, 0, sizeof(cr));
    cr.load_balancer_name = LB;
    cr.listeners = &li;
    cr.nlisteners = 1;
    cr.availability_zones = zones;
    cr.nzones = 1;
    assert_int_equal(sc_elb_create_load_balancer(elb, &cr, now, NULL, &err), SC_OK);
    assert_int_equal(sc_elb_configure_health_check(elb, LB, &hc, now, NULL, &err), SC_OK);
    memset(&rr, 0, sizeof(rr));
    rr.image_id = "ami-12345678";
    rr.min_count = rr.max_count = 2;
    rr.availability_zone = "us-east-1a";
    rr.user_data = "{\"boot_s\": 6, \"workers\": 2, \"service_ms\": 20}";
    assert_int_equal(sc_ec2_run_instances(ec2, &rr, now, &res, &err), SC_OK);
    for (int i = 0; i < 2; i++)
        snprintf(f->ids[i], sizeof(f->ids[i]), "%s", res->instances[i]->instance_id);
    ids[0] = f->ids[0];
    ids[1] = f->ids[1];
    assert_int_equal(sc_elb_register_instances(elb, LB, ids, 2, now, &err), SC_OK);

    /* processes boot (6 s / 60), listen, EC2 running, health checks pass */
    assert_true(run_until(f, both_running, 10));
    assert_true(run_until(f, both_in_service, 10));
    json = autoscale_status_json(f->as);
    p = strstr(json, "\"load_balancer_port\":80,\"port\":");
    assert_non_null(p);
    f->lb_port = atoi(p + strlen("\"load_balancer_port\":80,\"port\":"));
    free(json);
    assert_true(f->lb_port > 0);

    /* requests through the listener reach both instances */
    requests(f, 20);
    assert_int_equal(f->ok200, 20);
    assert_non_null(strstr(f->bodies, f->ids[0]));
    assert_non_null(strstr(f->bodies, f->ids[1]));

    /* CPU and ELB metrics arrive with the emulated minute (1 s real) */
    assert_true(run_until(f, have_metrics, 10));

    /* kill -9 of the first: lost in EC2, OutOfService; the second serves everything */
    assert_int_equal(autoscale_fault(f->as, f->ids[0], "kill", NULL, 0), 0);
    assert_true(run_until(f, first_out_of_service, 10));
    requests(f, 10);
    assert_int_equal(f->ok200, 10);
    assert_null(strstr(f->bodies, f->ids[0]));

    /* deregistration with draining: no request in flight, so the drain ends at once */
    memset(&ar, 0, sizeof(ar));
    ar.has_connection_draining = 1;
    ar.connection_draining_enabled = 1;
    ar.has_connection_draining_timeout = 1;
    ar.connection_draining_timeout_s = 3600;
    assert_int_equal(sc_elb_modify_attributes(elb, LB, &ar, emu_now(f), NULL, &err), SC_OK);
    assert_int_equal(sc_elb_deregister_instances(elb, LB, &ids[1], 1, emu_now(f), &err), SC_OK);
    assert_true(run_until(f, second_deregistered, 10));
    /* nothing routable now: the proxy answers 503 */
    f->nreq = 1;
    f->bodies[0] = '\0';
    requests(f, 1);
    assert_int_equal(f->ok200, 0);
    assert_non_null(strstr(f->bodies, "HTTP/1.1 503"));
}

static int first_state_is(struct fixture *f, enum sc_ec2_state st)
{
    const struct sc_ec2_instance *in = sc_ec2_instance_find(sc_world_ec2(f->w), f->ids[0]);

    return in && in->state == st;
}

static int first_running(struct fixture *f)
{
    return first_state_is(f, SC_EC2_RUNNING);
}

static int first_terminated(struct fixture *f)
{
    return first_state_is(f, SC_EC2_TERMINATED);
}

/* The process id of instance id from autoscale_status_json, or -1. */
static pid_t instance_pid(struct fixture *f, const char *id)
{
    char *json = autoscale_status_json(f->as);
    char key[64];
    char *p;
    pid_t pid = -1;

    snprintf(key, sizeof(key), "{\"id\":\"%s\",\"pid\":", id);
    p = strstr(json, key);
    if (p)
        pid = (pid_t)atol(p + strlen(key));
    free(json);
    return pid;
}

/* Stopped from outside (not the hang fault), then TerminateInstances: shutting-down ends
 * in terminated within the SIGKILL bound, not never. */
static void test_autoscale_sigstopped_instance_terminates(void **state)
{
    struct fixture *f = *state;
    struct sc_ec2 *ec2 = sc_world_ec2(f->w);
    struct sc_ec2_run_req rr;
    const struct sc_ec2_reservation *res;
    struct sc_error err;
    const char *ids[1];
    int64_t t0;
    pid_t pid;

    memset(&rr, 0, sizeof(rr));
    rr.image_id = "ami-12345678";
    rr.min_count = rr.max_count = 1;
    rr.availability_zone = "us-east-1a";
    rr.user_data = "{\"boot_s\": 0}";
    assert_int_equal(sc_ec2_run_instances(ec2, &rr, emu_now(f), &res, &err), SC_OK);
    snprintf(f->ids[0], sizeof(f->ids[0]), "%s", res->instances[0]->instance_id);
    assert_true(run_until(f, first_running, 10));
    pid = instance_pid(f, f->ids[0]);
    assert_true(pid > 0);
    assert_int_equal(kill(pid, SIGSTOP), 0);
    ids[0] = f->ids[0];
    t0 = cm_ev_now_ms();
    assert_int_equal(sc_ec2_terminate_instances(ec2, ids, 1, emu_now(f), NULL, &err), SC_OK);
    assert_true(run_until(f, first_terminated, (INST_TERM_GRACE_MS + 5000) / 1000));
    assert_true(cm_ev_now_ms() - t0 <= INST_TERM_GRACE_MS + 3000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_autoscale_elb_end_to_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_autoscale_sigstopped_instance_terminates, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
