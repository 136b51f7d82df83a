/* tests/unit/emulator/test_console.c: emulator/console.c's console token (docs/auth.md "The
 * console under --auth sigv4"): which tokens --console-token takes, the cookie and header
 * that present one, and the front door: the URL with the token answers 303 with an HttpOnly
 * SameSite=Strict cookie and no token in Location, a wrong one 403, a page request without
 * credentials 403, anything else goes on to the other checks. */
#include "emulator/console.h"

#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define TOKEN "abcdefghijklmnop0123"

static void test_console_token_check(void **state)
{
    static const char *good[] = { "abcdefghijklmnop", "A-Z.a_z~0123456789",
                                  "0123456789abcdef0123456789abcdef0123456789abcdef" };
    static const struct {
        const char *t, *err;
    } bad[] = {
        { "short", "the console token must be 16 to 128 bytes, not 5" },
        { "abcdefghijklmno p",
          "the console token holds byte 0x20 at 15: only A-Z a-z 0-9 - . _ ~" },
        { "abcdefghijklmnop;x", "the console token holds byte 0x3b at 16" },
        { "abcdefghijklmnop%41", "the console token holds byte 0x25 at 16" },
    };
    char err[256], big[200];

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_int_equal(console_token_check(good[i], err, sizeof(err)), 0);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(console_token_check(bad[i].t, err, sizeof(err)), -1);
        assert_non_null(strstr(err, bad[i].err));
    }
    memset(big, 'a', 129);
    big[129] = '\0';
    assert_int_equal(console_token_check(big, err, sizeof(err)), -1);
    big[128] = '\0';
    assert_int_equal(console_token_check(big, err, sizeof(err)), 0);
}

static void test_console_token_make(void **state)
{
    char a[CONSOLE_TOKEN_MAX + 1], b[CONSOLE_TOKEN_MAX + 1], err[128];

    (void)state;
    assert_int_equal(console_token_make(a), 0);
    assert_int_equal(console_token_make(b), 0);
    assert_int_equal(strlen(a), 48);
    assert_int_equal(console_token_check(a, err, sizeof(err)), 0);
    assert_string_not_equal(a, b);
}

static struct dispatch_request request(const char *method, const char *path, const char *query,
                                       const struct cm_sigv4_header *h, int n)
{
    struct dispatch_request rq;

    memset(&rq, 0, sizeof(rq));
    rq.method = method;
    rq.path = path;
    rq.query = query;
    rq.hdrs = h;
    rq.nhdrs = n;
    rq.body = "";
    return rq;
}

static void test_console_token_presented(void **state)
{
    static const struct {
        const char *name, *value;
        int want;
    } cases[] = {
        { "Cookie", "scalelab_console_4566=" TOKEN, 1 },
        { "cookie", "a=b; scalelab_console_9=" TOKEN "; c=d", 1 },
        { "Cookie", "a=b; scalelab_console_9=" TOKEN "x", -1 },
        { "Cookie", "scalelab_console_9=abcdefghijklmnop012", -1 }, /* a prefix of it */
        { "Cookie", "other=" TOKEN, 0 },                            /* not the console's */
        { "X-Scalelab-Token", TOKEN, 1 },
        { "X-Scalelab-Token", "nope", -1 },
        { "Host", "127.0.0.1:4566", 0 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct cm_sigv4_header h = { cases[i].name, cases[i].value };
        struct dispatch_request rq = request("GET", "/_scalelab/overview", "", &h, 1);

        assert_int_equal(console_token_presented(TOKEN, &rq), cases[i].want);
        /* no token configured: nothing counts */
        assert_int_equal(console_token_presented(NULL, &rq), 0);
    }
}

static const char *resp_header(const struct dispatch_response *rs, const char *name)
{
    for (int i = 0; i < rs->nheaders; i++) {
        if (strcmp(rs->headers[i].name, name) == 0)
            return rs->headers[i].value;
    }
    return NULL;
}

static void test_console_token_door(void **state)
{
    struct cm_sigv4_header host = { "Host", "127.0.0.1:4566" };
    struct dispatch_request rq;
    struct dispatch_response rs;

    (void)state;
    /* the console URL: 303 to the page without the token, the cookie set */
    memset(&rs, 0, sizeof(rs));
    cm_buf_init(&rs.body, 0);
    rq = request("GET", "/_scalelab/ui", "token=" TOKEN, &host, 1);
    assert_int_equal(console_token_door(TOKEN, 0, 0, &rq, &rs), 1);
    assert_int_equal(rs.status, 303);
    assert_string_equal(resp_header(&rs, "Location"), "/_scalelab/ui");
    assert_string_equal(resp_header(&rs, "Set-Cookie"),
                        "scalelab_console_4566=" TOKEN "; Path=/; HttpOnly; SameSite=Strict");
    dispatch_response_cleanup(&rs);

    /* a wrong token in the URL: 403, no cookie */
    memset(&rs, 0, sizeof(rs));
    cm_buf_init(&rs.body, 0);
    rq = request("GET", "/", "token=" TOKEN "0", &host, 1);
    assert_int_equal(console_token_door(TOKEN, 0, 1, &rq, &rs), 1);
    assert_int_equal(rs.status, 403);
    assert_null(resp_header(&rs, "Set-Cookie"));
    assert_non_null(strstr(rs.body.data, "not this emulator"));
    dispatch_response_cleanup(&rs);

    /* the page with no credentials at all: 403 saying how to get in */
    memset(&rs, 0, sizeof(rs));
    cm_buf_init(&rs.body, 0);
    rq = request("GET", "/", "", &host, 1);
    assert_int_equal(console_token_door(TOKEN, 0, 1, &rq, &rs), 1);
    assert_int_equal(rs.status, 403);
    assert_non_null(strstr(rs.body.data, "--console-token"));
    dispatch_response_cleanup(&rs);

    /* the page with the cookie, an API path, a POST, no token configured: not answered here */
    memset(&rs, 0, sizeof(rs));
    cm_buf_init(&rs.body, 0);
    assert_int_equal(console_token_door(TOKEN, 1, 1, &rq, &rs), 0);
    rq = request("GET", "/_scalelab/overview", "token=" TOKEN, &host, 1);
    assert_int_equal(console_token_door(TOKEN, 0, 0, &rq, &rs), 0);
    rq = request("POST", "/_scalelab/ui", "token=" TOKEN, &host, 1);
    assert_int_equal(console_token_door(TOKEN, 0, 0, &rq, &rs), 0);
    rq = request("GET", "/", "token=" TOKEN, &host, 1);
    assert_int_equal(console_token_door(NULL, 0, 1, &rq, &rs), 0);
    assert_int_equal(rs.status, 0);
    dispatch_response_cleanup(&rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_console_token_check),
        cmocka_unit_test(test_console_token_make),
        cmocka_unit_test(test_console_token_presented),
        cmocka_unit_test(test_console_token_door),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
