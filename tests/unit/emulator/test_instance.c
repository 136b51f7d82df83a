/* tests/unit/emulator/test_instance.c: emulator/instance.c, the owner of the emulator's
 * child processes, and the program they run (emulator/instance_main.c), with real
 * processes: an instance stopped from outside (SIGSTOP) still ends when terminated; one
 * that ignores SIGTERM is killed once the bound passes; /_instance/status is valid JSON
 * whatever the fault requests sent (nan, inf, negative, garbage are refused with 400) and
 * whatever the instance id holds.
 *
 * It starts $SCALELAB_ROOT/$BUILD/bin/emulator-instance and /bin/sh; every wait is a
 * condition polled up to a deadline, and a bound is asserted only with a wide margin. */
#include "emulator/instance.h"

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <jansson.h>

#include "common/ev.h"
#include "emulator/instance_main.h"

struct fixture {
    struct cm_ev *ev;
    struct inst_mgr *m;
    char exe[4096];
    char dir[64]; /* mkdtemp, for the TERM-ignoring script */
    /* what the callback saw, for the last instance */
    int ready_port;
    int exited;
    int status;
    int64_t exited_ms;
    int (*until)(struct fixture *f);
    int met;
};

static void on_event(void *ud, const char *id, enum inst_event event, int port, int status)
{
    struct fixture *f = ud;

    (void)id;
    if (event == INST_READY) {
        f->ready_port = port;
    } else {
        f->exited = 1;
        f->status = status;
        f->exited_ms = cm_ev_now_ms();
    }
}

static int64_t on_poll(struct cm_ev *ev, int64_t now, void *ud)
{
    struct fixture *f = ud;

    (void)now;
    if (f->until(f)) {
        f->met = 1;
        cm_ev_stop(ev);
    }
    return 10;
}

static int64_t on_deadline(struct cm_ev *ev, int64_t now, void *ud)
{
    (void)now;
    (void)ud;
    cm_ev_stop(ev);
    return -1;
}

/* Runs the loop until f->until holds or ms pass; returns whether it held. */
static int run_until(struct fixture *f, int (*until)(struct fixture *), int64_t ms)
{
    long t1, t2;

    f->until = until;
    f->met = 0;
    t1 = cm_ev_add_timer(f->ev, 0, on_poll, f);
    t2 = cm_ev_add_timer(f->ev, ms, on_deadline, f);
    cm_ev_run(f->ev);
    cm_ev_del_timer(f->ev, t1);
    cm_ev_del_timer(f->ev, t2);
    return f->met;
}

static int is_ready(struct fixture *f)
{
    return f->ready_port > 0;
}

static int has_exited(struct fixture *f)
{
    return f->exited;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
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
    snprintf(f->dir, sizeof(f->dir), "/tmp/test_instance.XXXXXX");
    f->ev = cm_ev_create();
    if (!f->ev || !mkdtemp(f->dir))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    char path[128];

    inst_mgr_destroy(f->m, 2000);
    snprintf(path, sizeof(path), "%s/ignore-term.sh", f->dir);
    unlink(path);
    rmdir(f->dir);
    cm_ev_destroy(f->ev);
    free(f);
    return 0;
}

/* The manager over exe, and instance id started with boot time 0; returns its pid. */
static pid_t start(struct fixture *f, const char *exe, const char *id)
{
    char err[256];

    f->m = inst_mgr_create(f->ev, exe, on_event, f);
    assert_non_null(f->m);
    assert_int_equal(inst_spawn(f->m, id, NULL, NULL, 0, err, sizeof(err)), 0);
    assert_true(run_until(f, is_ready, 10000));
    return inst_pid(f->m, id);
}

/* The state letter of /proc/PID/stat ('T' stopped), or 0. */
static char proc_state(pid_t pid)
{
    char path[64], buf[512], *rp;
    FILE *fp;
    size_t n;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    fp = fopen(path, "re");
    if (!fp)
        return 0;
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    rp = strrchr(buf, ')');
    return rp && rp[1] == ' ' ? rp[2] : 0;
}

static void wait_stopped(pid_t pid)
{
    struct timespec ts = { 0, 10 * 1000 * 1000 };

    for (int i = 0; i < 500 && proc_state(pid) != 'T'; i++)
        nanosleep(&ts, NULL);
    assert_int_equal(proc_state(pid), 'T');
}

static void test_instance_stopped_from_outside_terminates(void **state)
{
    struct fixture *f = *state;
    pid_t pid = start(f, f->exe, "i-stopped");
    int64_t t0;

    assert_true(pid > 0);
    /* stopped by someone else: the manager's hang flag is not set */
    assert_int_equal(kill(pid, SIGSTOP), 0);
    wait_stopped(pid);
    assert_false(inst_is_hung(f->m, "i-stopped"));
    t0 = cm_ev_now_ms();
    assert_int_equal(inst_terminate(f->m, "i-stopped"), 0);
    /* SIGCONT lets it die of the SIGTERM; at the latest the bound's SIGKILL ends it */
    assert_true(run_until(f, has_exited, INST_TERM_GRACE_MS + 5000));
    assert_true(f->exited_ms - t0 <= INST_TERM_GRACE_MS + 3000);
    assert_true(WIFEXITED(f->status) || WIFSIGNALED(f->status));
    assert_int_equal(inst_count(f->m), 0);
}

static void test_instance_hung_by_fault_terminates(void **state)
{
    struct fixture *f = *state;
    pid_t pid = start(f, f->exe, "i-hung");

    assert_int_equal(inst_hang(f->m, "i-hung", 1), 0);
    wait_stopped(pid);
    assert_int_equal(inst_terminate(f->m, "i-hung"), 0);
    assert_true(run_until(f, has_exited, INST_TERM_GRACE_MS + 5000));
    assert_true(WIFEXITED(f->status));
    assert_int_equal(WEXITSTATUS(f->status), 0);
}

/* A child that ignores SIGTERM (and is stopped besides) dies of the SIGKILL at the bound. */
static void test_instance_term_ignored_killed_after_bound(void **state)
{
    struct fixture *f = *state;
    char script[128];
    FILE *fp;
    pid_t pid;
    int64_t t0;

    snprintf(script, sizeof(script), "%s/ignore-term.sh", f->dir);
    fp = fopen(script, "we");
    assert_non_null(fp);
    /* the port line "1" makes it READY; SIG_IGN survives the exec */
    fputs("#!/bin/sh\ntrap '' TERM\necho 1 >&3\nexec sleep 60\n", fp);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(chmod(script, 0700), 0);
    pid = start(f, script, "i-stubborn");
    assert_true(pid > 0);
    inst_mgr_set_term_grace(f->m, 300);
    assert_int_equal(kill(pid, SIGSTOP), 0);
    wait_stopped(pid);
    t0 = cm_ev_now_ms();
    assert_int_equal(inst_terminate(f->m, "i-stubborn"), 0);
    assert_true(run_until(f, has_exited, 10000));
    assert_true(WIFSIGNALED(f->status));
    assert_int_equal(WTERMSIG(f->status), SIGKILL);
    assert_true(f->exited_ms - t0 >= 250);
    assert_true(f->exited_ms - t0 <= 300 + 3000);
}

/* GET path from 127.0.0.1:port; returns the status code, the body in body (NUL ended). */
static int http_get(int port, const char *path, char *body, size_t cap)
{
    struct sockaddr_in sa;
    struct timeval tv = { 5, 0 };
    char req[512], buf[8192];
    size_t len = 0;
    int fd, status = -1;
    char *b;

    body[0] = '\0';
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
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
    b = strstr(buf, "\r\n\r\n");
    if (b)
        snprintf(body, cap, "%s", b + 4);
out:
    close(fd);
    return status;
}

/* The instance's status, parsed (a new reference); fails the test when it is not JSON. */
static json_t *status_json(int port)
{
    char body[8192];
    json_error_t je;
    json_t *j;

    assert_int_equal(http_get(port, "/_instance/status", body, sizeof(body)), 200);
    j = json_loads(body, 0, &je);
    if (!j)
        fprintf(stderr, "not JSON (%s): %s\n", je.text, body);
    assert_non_null(j);
    assert_true(json_is_object(j));
    return j;
}

static double num(json_t *j, const char *key)
{
    json_t *v = json_object_get(j, key);

    assert_true(json_is_number(v));
    return json_number_value(v);
}

static void test_instance_fault_values_checked_status_json(void **state)
{
    static const char *const bad[] = {
        "slow=nan",       "slow=NaN",        "slow=inf",       "slow=-inf",       "slow=-5",
        "slow=1001",      "slow=1e999",      "slow=",          "slow=abc",        "slow=2x",
        "slow=0x10",      "slow=%20",        "error_rate=nan", "error_rate=-0.1", "error_rate=1.5",
        "error_rate=inf", "fail_health=2",   "fail_health=",   "fail_health=yes", "bogus=1",
        "slow=2&bogus=1", "slow=2&slow=nan",
    };
    struct fixture *f = *state;
    char path[256], body[4096];
    json_t *j;

    start(f, f->exe, "i-faults");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *e;

        snprintf(path, sizeof(path), "/_instance/fault?%s", bad[i]);
        if (http_get(f->ready_port, path, body, sizeof(body)) != 400)
            fail_msg("fault %s: not refused (%s)", bad[i], body);
        /* the refusal is JSON too, naming the problem */
        e = json_loads(body, 0, NULL);
        assert_non_null(e);
        assert_true(json_is_string(json_object_get(e, "error")));
        json_decref(e);
        /* nothing changed, and the status stays JSON */
        j = status_json(f->ready_port);
        assert_true(num(j, "slow") == 1.0);
        assert_true(num(j, "error_rate") == 0.0);
        assert_true(json_is_false(json_object_get(j, "fail_health")));
        json_decref(j);
    }
    /* good values apply together, and the answer is the status */
    assert_int_equal(http_get(f->ready_port,
                              "/_instance/fault?slow=2.5&error_rate=0.25&fail_health=1", body,
                              sizeof(body)),
                     200);
    j = json_loads(body, 0, NULL);
    assert_non_null(j);
    assert_true(num(j, "slow") == 2.5);
    assert_true(num(j, "error_rate") == 0.25);
    assert_true(json_is_true(json_object_get(j, "fail_health")));
    json_decref(j);
    assert_int_equal(http_get(f->ready_port,
                              "/_instance/fault?slow=0&error_rate=1&fail_health=false", body,
                              sizeof(body)),
                     200);
    j = status_json(f->ready_port);
    assert_true(num(j, "slow") == 0.0);
    assert_true(num(j, "error_rate") == 1.0);
    assert_true(json_is_false(json_object_get(j, "fail_health")));
    assert_true(num(j, "uptime_ms") >= 0);
    assert_true(json_is_array(json_object_get(j, "ports")));
    json_decref(j);
}

/* An id with JSON's special characters comes back intact. */
static void test_instance_status_json_escapes_id(void **state)
{
    struct fixture *f = *state;
    const char *id = "i-\"q\\u\x01\t";
    json_t *j;

    start(f, f->exe, id);
    j = status_json(f->ready_port);
    assert_string_equal(json_string_value(json_object_get(j, "id")), id);
    json_decref(j);
}

/* The one fault grammar (the instance and the admin API's check): a refusal names the
 * key or value and leaves every value as it was, even those before it in the query. */
static void test_instance_fault_parse_refuses_as_a_whole(void **state)
{
    struct instance_fault f = { 1, 0, 0 };
    const char *bad[] = { "slow=-5",   "slow=nan",        "slow=1e999",
                          "slow=0x10", "error_rate=-0.1", "fail_health=yes",
                          "slow",      "boom=1",          "slow=2&error_rate=2" };
    char msg[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        msg[0] = '\0';
        assert_int_equal(instance_fault_parse(bad[i], strlen(bad[i]), &f, msg, sizeof(msg)), -1);
        assert_true(msg[0] != '\0');
        assert_true(f.slow == 1 && f.error_rate == 0 && f.fail_health == 0);
    }
    assert_int_equal(
        instance_fault_parse("slow=1000&error_rate=1&fail_health=true", 39, &f, msg, sizeof(msg)),
        0);
    assert_true(f.slow == 1000 && f.error_rate == 1 && f.fail_health == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_instance_stopped_from_outside_terminates, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_instance_hung_by_fault_terminates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_instance_term_ignored_killed_after_bound, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_instance_fault_values_checked_status_json, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_instance_status_json_escapes_id, setup, teardown),
        cmocka_unit_test(test_instance_fault_parse_refuses_as_a_whole),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
