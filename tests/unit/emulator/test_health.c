/* tests/unit/emulator/test_health.c: emulator/health.c on the emulated clock
 * (hc_set_manual, hc_set_advance; issue 17 part 5): a check runs only when the clock passes
 * its due time, the first one first_delay_ms after the clock at hc_target_set, then every
 * interval; one advance over n intervals runs one probe whose result counts n times, at most
 * HC_CATCH_UP_MAX; the clock never goes back; on the real clock an advance does nothing.
 * Probes are real TCP connections to a listening socket on 127.0.0.1 (or a closed port). */
#include "emulator/health.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "common/ev.h"

struct fixture {
    struct cm_ev *ev;
    struct hc_set *hc;
    int lfd, port;
    int reports, ok, connect_failed, want;
};

static void on_report(void *ud, const char *key, const struct hc_result *r)
{
    struct fixture *f = ud;

    assert_string_equal(key, "lb/i-1");
    f->reports++;
    f->ok += r->ok != 0;
    f->connect_failed += r->connect_failed != 0;
    if (f->reports >= f->want)
        cm_ev_stop(f->ev);
}

static int64_t deadline(struct cm_ev *ev, int64_t now_ms, void *ud)
{
    (void)now_ms;
    (void)ud;
    cm_ev_stop(ev);
    return -1;
}

/* Runs the loop until want reports in all arrived or 3 s passed. */
static void run_for(struct fixture *f, int want)
{
    long t;

    f->want = want;
    if (f->reports >= want)
        return;
    t = cm_ev_add_timer(f->ev, 3000, deadline, NULL);
    cm_ev_run(f->ev);
    cm_ev_del_timer(f->ev, t);
}

/* A listening socket on 127.0.0.1 (connects succeed through the backlog). */
static int listen_any(int *port)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(fd, 64), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
    *port = ntohs(sa.sin_port);
    return fd;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));

    f->ev = cm_ev_create();
    f->hc = hc_set_create(f->ev, on_report, f);
    f->lfd = listen_any(&f->port);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    hc_set_destroy(f->hc);
    cm_ev_destroy(f->ev);
    if (f->lfd >= 0)
        close(f->lfd);
    free(f);
    return 0;
}

static void target(struct fixture *f, int port, int64_t interval_ms, int64_t first_delay_ms)
{
    struct hc_check chk = { HC_TCP, port, NULL, 1000 };

    hc_target_set(f->hc, "lb/i-1", &chk, interval_ms, first_delay_ms);
}

static void test_health_manual_first_check_waits_for_the_clock(void **state)
{
    struct fixture *f = *state;

    hc_set_manual(f->hc, 100000);
    target(f, f->port, 5000, 2000);
    assert_int_equal(hc_set_advance(f->hc, 101999), 0); /* not due yet */
    run_for(f, 1);
    assert_int_equal(f->reports, 0); /* 3 s of wall clock ran no check */
    assert_int_equal(hc_set_advance(f->hc, 102000), 1);
    run_for(f, 1);
    assert_int_equal(f->reports, 1);
    assert_int_equal(f->ok, 1);
    /* the next one is due an interval later, not before */
    assert_int_equal(hc_set_advance(f->hc, 106999), 0);
    assert_int_equal(hc_set_advance(f->hc, 107000), 1);
    run_for(f, 2);
    assert_int_equal(f->reports, 2);
}

static void test_health_manual_advance_counts_each_interval(void **state)
{
    struct fixture *f = *state;

    hc_set_manual(f->hc, 0);
    target(f, f->port, 5000, 0);
    /* due at 0, 5000, 10000: three intervals passed, one probe, three results */
    assert_int_equal(hc_set_advance(f->hc, 10000), 1);
    run_for(f, 3);
    assert_int_equal(f->reports, 3);
    assert_int_equal(f->ok, 3);
    /* next due at 15000 */
    assert_int_equal(hc_set_advance(f->hc, 14999), 0);
}

static void test_health_manual_catch_up_capped(void **state)
{
    struct fixture *f = *state;

    hc_set_manual(f->hc, 0);
    target(f, f->port, 1000, 0);
    /* an hour in one jump: 3601 intervals, counted HC_CATCH_UP_MAX times */
    assert_int_equal(hc_set_advance(f->hc, 3600000), 1);
    run_for(f, HC_CATCH_UP_MAX + 1);
    assert_int_equal(f->reports, HC_CATCH_UP_MAX);
    /* and the schedule moved past the jump: the next check is due at 3601000 */
    assert_int_equal(hc_set_advance(f->hc, 3600999), 0);
    assert_int_equal(hc_set_advance(f->hc, 3601000), 1);
}

static void test_health_manual_clock_never_goes_back(void **state)
{
    struct fixture *f = *state;

    hc_set_manual(f->hc, 50000);
    target(f, f->port, 5000, 1000);
    assert_int_equal(hc_set_advance(f->hc, 60000), 1);
    run_for(f, 2);
    /* due at 51000 and 56000 were passed: two results; next due 61000 */
    assert_int_equal(f->reports, 2);
    assert_int_equal(hc_set_advance(f->hc, 0), 0);
    assert_int_equal(hc_set_advance(f->hc, 60999), 0);
}

static void test_health_manual_connect_refused_counts_failed(void **state)
{
    struct fixture *f = *state;
    int port = f->port;

    close(f->lfd); /* nothing listens there now */
    f->lfd = -1;
    hc_set_manual(f->hc, 0);
    target(f, port, 5000, 0);
    assert_int_equal(hc_set_advance(f->hc, 5000), 1);
    run_for(f, 2);
    assert_int_equal(f->reports, 2);
    assert_int_equal(f->ok, 0);
    assert_int_equal(f->connect_failed, 2);
}

static void test_health_advance_is_a_noop_on_the_real_clock(void **state)
{
    struct fixture *f = *state;

    target(f, f->port, 60000, 60000); /* the real clock: a timer a minute away */
    assert_int_equal(hc_set_advance(f->hc, 1000000000), 0);
    assert_int_equal(f->reports, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_health_manual_first_check_waits_for_the_clock, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_health_manual_advance_counts_each_interval, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_health_manual_catch_up_capped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_health_manual_clock_never_goes_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_health_manual_connect_refused_counts_failed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_health_advance_is_a_noop_on_the_real_clock, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
