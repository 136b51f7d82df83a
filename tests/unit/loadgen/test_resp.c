/* tests/unit/loadgen/test_resp.c: loadgen/resp.c, a table of valid, truncated and
 * malformed replies, each fed whole and byte by byte. */
#include "loadgen/resp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

struct rcase {
    const char *name;
    const char *bytes;
    int head;
    int eof;               /* the connection ends after the bytes */
    enum resp_result want; /* after the bytes (and the end, if eof) */
    enum resp_error err;
    int status;
    int keep_alive;
    uint64_t body;   /* body bytes as ab counts them */
    size_t leftover; /* bytes after the response */
};

static const struct rcase cases[] = {
    { "content-length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 0, 0, RESP_DONE,
      RESP_E_NONE, 200, 1, 2, 0 },
    { "http/1.0 closes", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 0, 0, RESP_DONE,
      RESP_E_NONE, 200, 0, 2, 0 },
    { "1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok",
      0, 0, RESP_DONE, RESP_E_NONE, 200, 1, 2, 0 },
    { "1.1 close", "HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n", 0, 0,
      RESP_DONE, RESP_E_NONE, 404, 0, 0, 0 },
    { "chunked",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=1\r\n world\r\n0\r\nX-T: 1\r\n\r\n",
      0, 0, RESP_DONE, RESP_E_NONE, 200, 1, 38, 0 },
    { "chunked upper hex",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n", 0, 0,
      RESP_DONE, RESP_E_NONE, 200, 1, 20, 0 },
    { "until close", "HTTP/1.0 200 OK\r\nServer: x\r\n\r\nbody until the end", 0, 1, RESP_DONE,
      RESP_E_NONE, 200, 0, 18, 0 },
    { "head has no body", "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n", 1, 0, RESP_DONE,
      RESP_E_NONE, 200, 1, 0, 0 },
    { "204", "HTTP/1.1 204 No Content\r\n\r\n", 0, 0, RESP_DONE, RESP_E_NONE, 204, 1, 0, 0 },
    { "304", "HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n", 0, 0, RESP_DONE,
      RESP_E_NONE, 304, 1, 0, 0 },
    { "100 continue first",
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx", 0, 0,
      RESP_DONE, RESP_E_NONE, 201, 1, 1, 0 },
    { "bare newlines (NCSA)", "HTTP/1.1 200 OK\nContent-Length: 3\n\nabc", 0, 0, RESP_DONE,
      RESP_E_NONE, 200, 1, 3, 0 },
    { "status without reason", "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", 0, 0, RESP_DONE,
      RESP_E_NONE, 200, 1, 0, 0 },
    { "bytes after the response", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA", 0, 0,
      RESP_DONE, RESP_E_NONE, 200, 1, 2, 5 },
    { "same length twice", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok", 0,
      0, RESP_DONE, RESP_E_NONE, 200, 1, 2, 0 },
    /* truncated */
    { "truncated body", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789", 0, 1,
      RESP_ERROR, RESP_E_TRUNCATED, 200, 1, 10, 0 },
    { "truncated header", "HTTP/1.1 200 OK\r\nContent-Len", 0, 1, RESP_ERROR, RESP_E_TRUNCATED, 200,
      1, 0, 0 },
    { "truncated chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc", 0, 1,
      RESP_ERROR, RESP_E_TRUNCATED, 200, 1, 7, 0 },
    { "waiting for more", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", 0, 0, RESP_MORE,
      RESP_E_NONE, 200, 1, 2, 0 },
    { "nothing at all", "", 0, 1, RESP_MORE, RESP_E_NONE, 0, 0, 0, 0 },
    /* malformed */
    { "not http", "SSH-2.0-OpenSSH_9.2\r\n", 0, 0, RESP_ERROR, RESP_E_NOT_HTTP, 0, 0, 0, 0 },
    { "html without status", "<html>hello</html>", 0, 0, RESP_ERROR, RESP_E_NOT_HTTP, 0, 0, 0, 0 },
    { "http/2 preface", "HTTP/2 200\r\n\r\n", 0, 0, RESP_ERROR, RESP_E_STATUS, 0, 0, 0, 0 },
    { "bad status code", "HTTP/1.1 2x0 OK\r\n\r\n", 0, 0, RESP_ERROR, RESP_E_STATUS, 0, 0, 0, 0 },
    { "header without colon", "HTTP/1.1 200 OK\r\nNoColonHere\r\n\r\n", 0, 0, RESP_ERROR,
      RESP_E_HEADER, 200, 1, 0, 0 },
    { "space in header name", "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", 0, 0, RESP_ERROR,
      RESP_E_HEADER, 200, 1, 0, 0 },
    { "bad content-length", "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n", 0, 0, RESP_ERROR,
      RESP_E_LENGTH, 200, 1, 0, 0 },
    { "conflicting lengths", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n", 0,
      0, RESP_ERROR, RESP_E_LENGTH, 200, 1, 0, 0 },
    { "bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0, 0,
      RESP_ERROR, RESP_E_CHUNK, 200, 1, 4, 0 },
    { "chunk without crlf", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX\r\n", 0,
      0, RESP_ERROR, RESP_E_CHUNK, 200, 1, 9, 0 },
};

static void check(const struct rcase *c, size_t step)
{
    struct resp r;
    size_t n = strlen(c->bytes), off = 0, used = 0, left = 0;
    enum resp_result res = RESP_MORE;

    resp_init(&r);
    resp_begin(&r, c->head);
    while (off < n) {
        size_t k = n - off < step ? n - off : step;
        res = resp_feed(&r, c->bytes + off, k, &used);
        off += used;
        if (res != RESP_MORE) {
            left = n - off;
            break;
        }
    }
    if (res == RESP_MORE && c->eof)
        res = resp_eof(&r);
    if (res != c->want || r.error != c->err)
        fail_msg("case '%s' step %zu: result %d error %d, want %d error %d", c->name, step, res,
                 r.error, c->want, c->err);
    if (c->status && r.status != c->status)
        fail_msg("case '%s': status %d, want %d", c->name, r.status, c->status);
    if (c->want == RESP_DONE) {
        if (r.keep_alive != c->keep_alive)
            fail_msg("case '%s': keep_alive %d, want %d", c->name, r.keep_alive, c->keep_alive);
        if (left != c->leftover)
            fail_msg("case '%s' step %zu: leftover %zu, want %zu", c->name, step, left,
                     c->leftover);
    }
    if (c->want != RESP_ERROR || c->err == RESP_E_TRUNCATED)
        if (r.body_bytes != c->body)
            fail_msg("case '%s' step %zu: body %llu, want %llu", c->name, step,
                     (unsigned long long)r.body_bytes, (unsigned long long)c->body);
    resp_cleanup(&r);
}

static void test_resp_table_whole(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        check(&cases[i], 1 << 20);
}

static void test_resp_table_byte_by_byte(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        check(&cases[i], 1);
        check(&cases[i], 3);
        check(&cases[i], 7);
    }
}

static void test_resp_reuse_and_server_header(void **state)
{
    struct resp r;
    char server[16];
    const char *a =
        "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1 (Debian)\r\nContent-Length: 1\r\n\r\nx";
    size_t used;

    (void)state;
    resp_init(&r);
    for (int i = 0; i < 3; i++) {
        resp_begin(&r, 0);
        r.server = server;
        r.server_cap = sizeof(server);
        assert_int_equal(resp_feed(&r, a, strlen(a), &used), RESP_DONE);
        assert_int_equal(used, strlen(a));
        assert_string_equal(server, "nginx/1.22.1 (D"); /* capped, NUL-terminated */
    }
    resp_cleanup(&r);
}

static void test_resp_caps_long_lines(void **state)
{
    struct resp r;
    char *big = malloc(RESP_LINE_MAX + 100);
    size_t used;

    (void)state;
    memcpy(big, "HTTP/1.1 200 OK\r\nX: ", 20);
    memset(big + 20, 'a', RESP_LINE_MAX + 79);
    big[RESP_LINE_MAX + 99] = '\0';
    resp_init(&r);
    resp_begin(&r, 0);
    assert_int_equal(resp_feed(&r, big, strlen(big), &used), RESP_ERROR);
    assert_int_equal(r.error, RESP_E_TOO_BIG);
    resp_cleanup(&r);
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resp_table_whole),
        cmocka_unit_test(test_resp_table_byte_by_byte),
        cmocka_unit_test(test_resp_reuse_and_server_header),
        cmocka_unit_test(test_resp_caps_long_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
