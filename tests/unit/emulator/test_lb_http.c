/* tests/unit/emulator/test_lb_http.c: emulator/lb_http.c, the HTTP/1.x parsing the proxy,
 * the health checker and the instance share: tables of valid, malformed and partial
 * inputs, chunked framing fed byte by byte, and the forwarding rewrites. */
#include "emulator/lb_http.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void test_lb_http_request_valid(void **state)
{
    static const struct {
        const char *in;
        const char *method;
        const char *target;
        int minor;
        int keep_alive;
        int64_t content_length;
        int chunked;
        int expect;
    } ok[] = {
        { "GET / HTTP/1.1\r\nHost: a\r\n\r\n", "GET", "/", 1, 1, -1, 0, 0 },
        { "GET /x?y=1 HTTP/1.0\r\n\r\n", "GET", "/x?y=1", 0, 0, -1, 0, 0 },
        { "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", "GET", "/", 0, 1, -1, 0, 0 },
        { "GET / HTTP/1.1\r\nConnection: close\r\n\r\n", "GET", "/", 1, 0, -1, 0, 0 },
        { "GET / HTTP/1.1\r\nConnection: foo, Close\r\n\r\n", "GET", "/", 1, 0, -1, 0, 0 },
        { "POST /s HTTP/1.1\r\nContent-Length: 12\r\n\r\n", "POST", "/s", 1, 1, 12, 0, 0 },
        { "POST /s HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", "POST", "/s", 1, 1,
          5, 0, 0 },
        { "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "POST", "/", 1, 1, -1, 1, 0 },
        { "PUT / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n", "PUT", "/", 1, 1,
          3, 0, 1 },
        { "GET / HTTP/1.1\nHost: bare-lf\n\n", "GET", "/", 1, 1, -1, 0, 0 },
        { "HEAD /h HTTP/1.1\r\nX-Empty:\r\n\r\n", "HEAD", "/h", 1, 1, -1, 0, 0 },
        { "GET / HTTP/1.1\r\nHost:   spaced   \r\n\r\n", "GET", "/", 1, 1, -1, 0, 0 },
    };
    struct lb_http_msg m;

    (void)state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        const char *in = ok[i].in;

        assert_int_equal(lb_http_parse_request(in, strlen(in), &m), LB_HTTP_OK);
        assert_int_equal(m.head_len, strlen(in));
        assert_int_equal(m.method_len, strlen(ok[i].method));
        assert_memory_equal(in + m.method_off, ok[i].method, m.method_len);
        assert_int_equal(m.target_len, strlen(ok[i].target));
        assert_memory_equal(in + m.target_off, ok[i].target, m.target_len);
        assert_int_equal(m.minor, ok[i].minor);
        assert_int_equal(m.keep_alive, ok[i].keep_alive);
        assert_int_equal(m.content_length, ok[i].content_length);
        assert_int_equal(m.chunked, ok[i].chunked);
        assert_int_equal(m.expect_continue, ok[i].expect);
    }
    /* header values are trimmed */
    assert_int_equal(lb_http_parse_request(ok[11].in, strlen(ok[11].in), &m), LB_HTTP_OK);
    assert_int_equal(m.nheaders, 1);
    assert_int_equal(m.headers[0].value_len, 6);
    assert_memory_equal(ok[11].in + m.headers[0].value_off, "spaced", 6);
    assert_int_equal(lb_http_parse_request(ok[10].in, strlen(ok[10].in), &m), LB_HTTP_OK);
    assert_true(m.is_head);
    assert_int_equal(m.headers[0].value_len, 0);
}

static void test_lb_http_request_malformed(void **state)
{
    static const char *const bad[] = {
        "\r\n\r\n",
        "GET\r\n\r\n",
        "GET /\r\n\r\n",
        "GET / HTTP/2.0\r\n\r\n",
        "GET / HTTP/1.1 x\r\n\r\n",
        "GET  / HTTP/1.1\r\n\r\n",
        "G(T / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nNo colon\r\n\r\n",
        "GET / HTTP/1.1\r\nBad name: x\r\n\r\n",
        "GET / HTTP/1.1\r\nName : x\r\n\r\n",
        "GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
        "GET / HTTP/1.1\r\n: empty-name\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
        "GET /a\x01 HTTP/1.1\r\n\r\n",
    };
    struct lb_http_msg m;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (lb_http_parse_request(bad[i], strlen(bad[i]), &m) != LB_HTTP_MALFORMED)
            fail_msg("accepted: %s", bad[i]);
    }
}

static void test_lb_http_request_partial_and_large(void **state)
{
    static const char full[] = "GET /p HTTP/1.1\r\nHost: x\r\nA: b\r\n\r\nNEXT";
    static char big[LB_HTTP_MAX_HEAD + 100];
    static char many[LB_HTTP_MAX_HEADERS * 8 + 64];
    struct lb_http_msg m;
    size_t head = strlen(full) - 4;
    size_t n;

    (void)state;
    /* every prefix shorter than the head is partial; the head parses with or without
     * what follows it (pipelining) */
    for (size_t i = 0; i < head; i++)
        assert_int_equal(lb_http_parse_request(full, i, &m), LB_HTTP_PARTIAL);
    assert_int_equal(lb_http_parse_request(full, head, &m), LB_HTTP_OK);
    assert_int_equal(lb_http_parse_request(full, strlen(full), &m), LB_HTTP_OK);
    assert_int_equal(m.head_len, head);
    /* an endless head is refused once it passes the cap */
    memset(big, 'a', sizeof(big));
    memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
    assert_int_equal(lb_http_parse_request(big, LB_HTTP_MAX_HEAD - 1, &m), LB_HTTP_PARTIAL);
    assert_int_equal(lb_http_parse_request(big, sizeof(big), &m), LB_HTTP_TOO_LARGE);
    /* too many headers */
    n = (size_t)snprintf(many, sizeof(many), "GET / HTTP/1.1\r\n");
    for (int i = 0; i <= LB_HTTP_MAX_HEADERS; i++)
        n += (size_t)snprintf(many + n, sizeof(many) - n, "A: b\r\n");
    n += (size_t)snprintf(many + n, sizeof(many) - n, "\r\n");
    assert_int_equal(lb_http_parse_request(many, n, &m), LB_HTTP_TOO_LARGE);
}

static void test_lb_http_response_heads(void **state)
{
    static const struct {
        const char *in;
        int status;
        int req_head;
        enum lb_http_body body;
        int keep_alive;
    } ok[] = {
        { "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", 200, 0, LB_HTTP_BODY_LENGTH, 1 },
        { "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 200, 0, LB_HTTP_BODY_NONE, 1 },
        { "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", 200, 1, LB_HTTP_BODY_NONE, 1 },
        { "HTTP/1.1 204 No Content\r\n\r\n", 204, 0, LB_HTTP_BODY_NONE, 1 },
        { "HTTP/1.1 304 Not Modified\r\n\r\n", 304, 0, LB_HTTP_BODY_NONE, 1 },
        { "HTTP/1.1 100 Continue\r\n\r\n", 100, 0, LB_HTTP_BODY_NONE, 1 },
        { "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 200, 0, LB_HTTP_BODY_CHUNKED,
          1 },
        { "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\n\r\n", 200, 0,
          LB_HTTP_BODY_CHUNKED, 1 },
        { "HTTP/1.0 200 OK\r\n\r\n", 200, 0, LB_HTTP_BODY_EOF, 0 },
        { "HTTP/1.1 503\r\nConnection: close\r\n\r\n", 503, 0, LB_HTTP_BODY_EOF, 0 },
        { "HTTP/1.1 500 Internal Server Error\nContent-Length: 5\n\n", 500, 0, LB_HTTP_BODY_LENGTH,
          1 },
    };
    static const char *const bad[] = {
        "HTTP/1.1 20 OK\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",
        "HTTP/2 200 OK\r\n\r\n",
        "ICY 200 OK\r\n\r\n",
        "HTTP/1.1 099 x\r\n\r\n",
        "garbage\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
    };
    struct lb_http_msg m;

    (void)state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        assert_int_equal(lb_http_parse_response(ok[i].in, strlen(ok[i].in), &m), LB_HTTP_OK);
        assert_int_equal(m.status, ok[i].status);
        assert_int_equal(lb_http_response_body(&m, ok[i].req_head), ok[i].body);
        assert_int_equal(m.keep_alive, ok[i].keep_alive);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (lb_http_parse_response(bad[i], strlen(bad[i]), &m) != LB_HTTP_MALFORMED)
            fail_msg("accepted: %s", bad[i]);
    }
    assert_int_equal(lb_http_parse_response("HTTP/1.1 200 OK\r\n", 17, &m), LB_HTTP_PARTIAL);
}

/* Feeds s to a fresh scanner in pieces of `step` bytes; returns the body length consumed
 * when done, -1 malformed, -2 never done. */
static long scan_in_steps(const char *s, size_t len, size_t step)
{
    struct lb_http_chunked c;
    size_t pos = 0;
    int done = 0;

    lb_http_chunked_init(&c);
    while (pos < len && !done) {
        size_t n = len - pos < step ? len - pos : step;
        ssize_t r = lb_http_chunked_scan(&c, s + pos, n, &done);

        if (r < 0)
            return -1;
        pos += (size_t)r;
        if (!done && (size_t)r != n)
            return -1;
    }
    return done ? (long)pos : -2;
}

static void test_lb_http_chunked(void **state)
{
    static const struct {
        const char *in;
        long body; /* bytes of body, -1 malformed, -2 incomplete */
    } cases[] = {
        { "0\r\n\r\n", 5 },
        { "5\r\nhello\r\n0\r\n\r\nNEXT", 15 },
        { "5;ext=1\r\nhello\r\n0\r\n\r\n", 21 },
        { "a\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n", 32 },
        { "A\n0123456789\n0\n\n", 16 },
        { "5\r\nhello\r\n", -2 },
        { "5\r\nhello\r\n0\r\n", -2 },
        { "x\r\n", -1 },
        { "\r\n", -1 },
        { "5\r\nhelloXX", -1 },
        { "ffffffffffffffff0\r\n", -1 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len = strlen(cases[i].in);

        for (size_t step = 1; step <= len; step++) {
            long r = scan_in_steps(cases[i].in, len, step);

            if (r != cases[i].body)
                fail_msg("case %zu step %zu: got %ld want %ld", i, step, r, cases[i].body);
        }
    }
}

static void test_lb_http_forward_request(void **state)
{
    static const char in1[] = "POST /a?b HTTP/1.0\r\nHost: h\r\nConnection: keep-alive\r\n"
                              "Keep-Alive: 5\r\nX-Forwarded-For: 10.0.0.1\r\nX-Forwarded-Port: 9"
                              "\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n";
    static const char want1[] = "POST /a?b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n"
                                "X-Forwarded-For: 10.0.0.1, 127.0.0.1\r\n"
                                "X-Forwarded-Proto: http\r\nX-Forwarded-Port: 80\r\n\r\n";
    static const char in2[] = "GET / HTTP/1.1\r\nUpgrade: h2c\r\nTE: trailers\r\n\r\n";
    static const char want2[] = "GET / HTTP/1.1\r\nX-Forwarded-For: 127.0.0.1\r\n"
                                "X-Forwarded-Proto: http\r\nX-Forwarded-Port: 8080\r\n\r\n";
    struct lb_http_forward fwd = { "127.0.0.1", "http", 80, 1, NULL, NULL };
    struct lb_http_msg m;
    char out[1024];
    ssize_t n;

    (void)state;
    assert_int_equal(lb_http_parse_request(in1, strlen(in1), &m), LB_HTTP_OK);
    n = lb_http_forward_request(in1, &m, &fwd, out, sizeof(out));
    assert_int_equal(n, strlen(want1));
    assert_memory_equal(out, want1, (size_t)n);
    assert_int_equal(lb_http_forward_request(in1, &m, &fwd, out, 20), -1);
    fwd.port = 8080;
    fwd.drop_expect = 0;
    assert_int_equal(lb_http_parse_request(in2, strlen(in2), &m), LB_HTTP_OK);
    n = lb_http_forward_request(in2, &m, &fwd, out, sizeof(out));
    assert_int_equal(n, strlen(want2));
    assert_memory_equal(out, want2, (size_t)n);
}

/* mTLS listeners (docs/elbv2.md 14.1): the client's X-Amzn-Mtls-Clientcert* dropped, the
 * load balancer's lines appended */
static void test_lb_http_forward_request_mtls_headers(void **state)
{
    static const char in[] = "GET / HTTP/1.1\r\nx-amzn-mtls-clientcert-subject: CN=forged\r\n"
                             "X-Amzn-Mtls-Clientcert: x\r\nX-Amzn-Trace-Id: t\r\n\r\n";
    static const char want[] =
        "GET / HTTP/1.1\r\nX-Amzn-Trace-Id: t\r\n"
        "X-Forwarded-For: 127.0.0.1\r\nX-Forwarded-Proto: https\r\n"
        "X-Forwarded-Port: 443\r\nX-Amzn-Mtls-Clientcert-Subject: CN=c\r\n\r\n";
    struct lb_http_forward fwd = { "127.0.0.1",
                                   "https",
                                   443,
                                   0,
                                   "X-Amzn-Mtls-Clientcert",
                                   "X-Amzn-Mtls-Clientcert-Subject: CN=c\r\n" };
    struct lb_http_msg m;
    char out[1024];
    ssize_t n;

    (void)state;
    assert_int_equal(lb_http_parse_request(in, strlen(in), &m), LB_HTTP_OK);
    n = lb_http_forward_request(in, &m, &fwd, out, sizeof(out));
    assert_int_equal(n, strlen(want));
    assert_memory_equal(out, want, (size_t)n);
}

static void test_lb_http_forward_response(void **state)
{
    static const char in[] = "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2"
                             "\r\nKeep-Alive: timeout=5\r\nX-Backend: b1\r\n\r\nok";
    struct lb_http_msg m;
    char out[512];
    ssize_t n;

    (void)state;
    assert_int_equal(lb_http_parse_response(in, strlen(in), &m), LB_HTTP_OK);
    n = lb_http_forward_response(in, &m, 0, 1, out, sizeof(out));
    out[n] = '\0';
    assert_string_equal(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Backend: b1\r\n\r\n");
    n = lb_http_forward_response(in, &m, 1, 1, out, sizeof(out));
    out[n] = '\0';
    assert_string_equal(
        out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Backend: b1\r\nConnection: close\r\n\r\n");
    n = lb_http_forward_response(in, &m, 0, 0, out, sizeof(out));
    out[n] = '\0';
    assert_non_null(strstr(out, "Connection: keep-alive\r\n\r\n"));
}

static void test_lb_http_format_response(void **state)
{
    char out[256];
    ssize_t n;

    (void)state;
    n = lb_http_format_response(out, sizeof(out), 503, "text/plain", NULL, "none", 4, 0, 1);
    out[n] = '\0';
    assert_string_equal(out, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
                             "Content-Length: 4\r\n\r\nnone");
    n = lb_http_format_response(out, sizeof(out), 200, NULL, "X-A: 1\r\n", "", 0, 1, 0);
    out[n] = '\0';
    assert_string_equal(out, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 0"
                             "\r\nConnection: close\r\nX-A: 1\r\n\r\n");
    assert_int_equal(lb_http_format_response(out, 10, 200, NULL, NULL, "", 0, 0, 1), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lb_http_request_valid),
        cmocka_unit_test(test_lb_http_request_malformed),
        cmocka_unit_test(test_lb_http_request_partial_and_large),
        cmocka_unit_test(test_lb_http_response_heads),
        cmocka_unit_test(test_lb_http_chunked),
        cmocka_unit_test(test_lb_http_forward_request),
        cmocka_unit_test(test_lb_http_forward_request_mtls_headers),
        cmocka_unit_test(test_lb_http_forward_response),
        cmocka_unit_test(test_lb_http_format_response),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
