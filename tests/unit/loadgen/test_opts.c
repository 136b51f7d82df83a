/* tests/unit/loadgen/test_opts.c: loadgen/opts.c, ab's flags with ab's meaning and the
 * wrk-style long options. */
#include "loadgen/opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static int parse(struct opts *o, char *err, const char *first, ...)
{
    char *argv[40];
    int argc = 0;
    va_list ap;
    const char *a;

    argv[argc++] = (char *)"loadgen";
    va_start(ap, first);
    for (a = first; a; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    return opts_parse(argc, argv, o, err, 256);
}

static void test_opts_ab_defaults_and_flags(void **state)
{
    struct opts o;
    char err[256];
    char *req;
    size_t len;

    (void)state;
    assert_int_equal(parse(&o, err, "http://h:81/x", NULL), 0);
    assert_int_equal(o.requests, 1);
    assert_int_equal(o.concurrency, 1);
    assert_int_equal(o.wrk_style, 0);
    assert_int_equal(o.keepalive, 0);
    assert_int_equal(o.timeout_us, 30000000);
    opts_cleanup(&o);

    assert_int_equal(parse(&o, err, "-n", "1000", "-c", "10", "-k", "-H", "X-A: 1", "-C", "a=1",
                           "-C", "b=2", "-A", "user:pass", "-A", " x:y", "-s", "2", "-q", "-d",
                           "-S", "-l", "-r", "http://h/", NULL),
                     0);
    assert_int_equal(o.requests, 1000);
    assert_int_equal(o.concurrency, 10);
    assert_int_equal(o.keepalive, 1);
    assert_int_equal(o.timeout_us, 2000000);
    assert_int_equal(o.heartbeat, 0);
    assert_int_equal(o.percentiles, 0);
    assert_int_equal(o.confidence, 0);
    assert_int_equal(o.nolength, 1);
    assert_int_equal(o.recv_errors_ok, 1);
    opts_build_request(&o, &req, &len);
    assert_string_equal(req, "GET / HTTP/1.0\r\n"
                             "Connection: Keep-Alive\r\n"
                             "Cookie: b=2\r\n"
                             "Authorization: Basic dXNlcjpwYXNz\r\n"
                             "Authorization: Basic eDp5\r\n"
                             "X-A: 1\r\n"
                             "Host: h\r\n"
                             "User-Agent: ApacheBench/2.3\r\n"
                             "Accept: */*\r\n\r\n");
    free(req);
    opts_cleanup(&o);
}

static void test_opts_t_implies_50000_as_ab(void **state)
{
    struct opts o;
    char err[256];

    (void)state;
    assert_int_equal(parse(&o, err, "-t", "5", "http://h/", NULL), 0);
    assert_int_equal(o.requests, 50000);
    assert_int_equal(o.tlimit_us, 5000000);
    opts_cleanup(&o);
    /* order matters as in ab: a later -n wins, an earlier one is overridden */
    assert_int_equal(parse(&o, err, "-t", "5", "-n", "70", "http://h/", NULL), 0);
    assert_int_equal(o.requests, 70);
    opts_cleanup(&o);
    assert_int_equal(parse(&o, err, "-n", "70", "-t", "5", "http://h/", NULL), 0);
    assert_int_equal(o.requests, 50000);
    opts_cleanup(&o);
    /* ab -t 0: no time limit, 50000 requests */
    assert_int_equal(parse(&o, err, "-t", "0", "http://h/", NULL), 0);
    assert_int_equal(o.requests, 50000);
    assert_int_equal(o.tlimit_us, 0);
    assert_int_equal(o.count_timeouts, 0);
    opts_cleanup(&o);
    assert_int_equal(parse(&o, err, "--count-timeouts", "-n", "3", "http://h/", NULL), 0);
    assert_int_equal(o.count_timeouts, 1);
    assert_int_equal(o.wrk_style, 0);
    opts_cleanup(&o);
}

static void test_opts_methods_and_body(void **state)
{
    struct opts o;
    char err[256], path[] = "/tmp/lg-opts-XXXXXX", *req;
    size_t len;
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "a=1&b=2", 7), 7);
    close(fd);
    assert_int_equal(parse(&o, err, "-p", path, "-T", "application/x-www-form-urlencoded",
                           "http://h/post", NULL),
                     0);
    assert_string_equal(o.method, "POST");
    opts_build_request(&o, &req, &len);
    assert_int_equal(len, strlen(req));
    assert_non_null(strstr(req, "POST /post HTTP/1.0\r\n"));
    assert_non_null(
        strstr(req, "Content-length: 7\r\nContent-type: application/x-www-form-urlencoded\r\n"));
    assert_true(len > 7 && memcmp(req + len - 11, "\r\n\r\na=1&b=2", 11) == 0);
    free(req);
    opts_cleanup(&o);
    assert_int_equal(parse(&o, err, "-i", "-p", path, "http://h/", NULL), -1);
    assert_non_null(strstr(err, "Cannot mix"));
    opts_cleanup(&o);
    assert_int_equal(parse(&o, err, "-u", path, "http://h/", NULL), 0);
    assert_string_equal(o.method, "PUT");
    opts_cleanup(&o);
    assert_int_equal(parse(&o, err, "-m", "DELETE", "http://h/", NULL), 0);
    assert_string_equal(o.method, "DELETE");
    opts_cleanup(&o);
    unlink(path);
    assert_int_equal(parse(&o, err, "-p", path, "http://h/", NULL), -2);
    assert_non_null(strstr(err, "Could not open POST data file"));
    opts_cleanup(&o);
}

static void test_opts_wrk_style(void **state)
{
    struct opts o;
    char err[256], *req;
    size_t len;

    (void)state;
    assert_int_equal(parse(&o, err, "--duration", "2s", "--threads", "2", "--connections", "1k",
                           "--latency", "http://h:8080/p", NULL),
                     0);
    assert_int_equal(o.wrk_style, 1);
    assert_int_equal(o.tlimit_us, 2000000);
    assert_int_equal(o.threads, 2);
    assert_int_equal(o.concurrency, 1000);
    assert_int_equal(o.requests, 0);
    assert_int_equal(o.keepalive, 1);
    opts_build_request(&o, &req, &len);
    assert_string_equal(req, "GET /p HTTP/1.1\r\nHost: h:8080\r\n\r\n");
    free(req);
    opts_cleanup(&o);

    assert_int_equal(parse(&o, err, "--rate", "500", "http://h/", NULL), 0);
    assert_non_null(o.sched);
    assert_true(o.rate == 500);
    assert_int_equal(o.tlimit_us, 10000000); /* endless rate: wrk's default 10 s */
    opts_cleanup(&o);
    assert_int_equal(parse(&o, err, "--rate", "ramp:1:10:2s,gap:1s", "http://h/", NULL), 0);
    assert_int_equal(o.tlimit_us, 0); /* the schedule's own end */
    opts_cleanup(&o);
}

static void test_opts_usage_errors(void **state)
{
    struct {
        const char *a, *b, *c;
        const char *want;
    } bad[] = {
        { "-n", "5", "-c", "Cannot use concurrency level greater than total number of requests" },
        { "-n", "0", NULL, "Invalid number of requests" },
        { "-n", "abc", NULL, "Invalid number of requests" },
        { "-c", "0", NULL, "Invalid Concurrency" },
        { "-H", "NoColon", NULL, "invalid header" },
        { "-H", "Bad Name: x", NULL, "invalid header" },
        { "-s", "soon", NULL, "Invalid timeout" },
        { "-X", "proxy:1", NULL, "not supported" },
        { "--rate", "fast", NULL, "invalid --rate" },
        { "--threads", "0", NULL, "invalid --threads" },
        { "--bogus", NULL, NULL, "unknown option" },
    };
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct opts o;
        int rc;
        if (i == 0)
            rc = parse(&o, err, "-n", "5", "-c", "10", "http://h/", NULL);
        else if (bad[i].b)
            rc = parse(&o, err, bad[i].a, bad[i].b, "http://h/", NULL);
        else
            rc = parse(&o, err, bad[i].a, "http://h/", NULL);
        if (rc != -1 || !strstr(err, bad[i].want))
            fail_msg("case %zu: rc %d err '%s', want '%s'", i, rc, err, bad[i].want);
        opts_cleanup(&o);
    }
    {
        struct opts o;
        assert_int_equal(parse(&o, err, "-n", "1", NULL), -1);
        assert_non_null(strstr(err, "missing URL"));
        opts_cleanup(&o);
        assert_int_equal(parse(&o, err, "-n", "1", "not a url", NULL), -1);
        assert_non_null(strstr(err, "invalid URL"));
        opts_cleanup(&o);
        assert_int_equal(parse(&o, err, "--threads", "4", "--connections", "2", "http://h/", NULL),
                         -1);
        opts_cleanup(&o);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opts_ab_defaults_and_flags),
        cmocka_unit_test(test_opts_t_implies_50000_as_ab),
        cmocka_unit_test(test_opts_methods_and_body),
        cmocka_unit_test(test_opts_wrk_style),
        cmocka_unit_test(test_opts_usage_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
