/* tests/unit/loadgen/test_url.c: loadgen/url.c */
#include "loadgen/url.h"

#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

struct ucase {
    const char *in;
    int ok;
    int tls;
    const char *host;
    unsigned port;
    const char *path;
    const char *host_hdr;
};

static const struct ucase cases[] = {
    { "http://127.0.0.1:8080/ok", 1, 0, "127.0.0.1", 8080, "/ok", "127.0.0.1:8080" },
    { "http://example.com", 1, 0, "example.com", 80, "/", "example.com" },
    { "https://example.com/a/b?x=1&y=2", 1, 1, "example.com", 443, "/a/b?x=1&y=2", "example.com" },
    { "https://example.com:8443/", 1, 1, "example.com", 8443, "/", "example.com:8443" },
    { "http://[::1]:8080/p", 1, 0, "::1", 8080, "/p", "[::1]:8080" },
    { "http://[::1]/", 1, 0, "::1", 80, "/", "[::1]" },
    { "HTTP://Host:80/x#frag", 1, 0, "Host", 80, "/x", "Host" },
    { "localhost:81/index.html", 1, 0, "localhost", 81, "/index.html", "localhost:81" },
    { "http://h?q=1", 1, 0, "h", 80, "/?q=1", "h" },
    /* bad */
    { "", 0, 0, NULL, 0, NULL, NULL },
    { "localhost", 0, 0, NULL, 0, NULL, NULL },
    { "ftp://example.com/", 0, 0, NULL, 0, NULL, NULL },
    { "http://", 0, 0, NULL, 0, NULL, NULL },
    { "http://:80/", 0, 0, NULL, 0, NULL, NULL },
    { "http://h:0/", 0, 0, NULL, 0, NULL, NULL },
    { "http://h:65536/", 0, 0, NULL, 0, NULL, NULL },
    { "http://h:80x/", 0, 0, NULL, 0, NULL, NULL },
    { "http://h:/", 0, 0, NULL, 0, NULL, NULL },
    { "http://[::1/", 0, 0, NULL, 0, NULL, NULL },
    { "http://user@h/", 0, 0, NULL, 0, NULL, NULL },
    { "http://h/a b", 0, 0, NULL, 0, NULL, NULL },
};

static void test_url_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct ucase *c = &cases[i];
        struct url u;
        char err[128] = "";
        int rc = url_parse(c->in, &u, err, sizeof(err));

        if ((rc == 0) != c->ok)
            fail_msg("'%s': rc %d (%s), want ok=%d", c->in, rc, err, c->ok);
        if (!c->ok) {
            assert_true(err[0] != '\0');
            continue;
        }
        assert_int_equal(u.tls, c->tls);
        assert_string_equal(u.host, c->host);
        assert_int_equal(u.port, c->port);
        assert_string_equal(u.path, c->path);
        assert_string_equal(u.host_hdr, c->host_hdr);
    }
}

static void test_url_resolve_numeric(void **state)
{
    struct url u;
    struct sockaddr_storage sa;
    socklen_t len;
    char err[128];

    (void)state;
    assert_int_equal(url_parse("http://127.0.0.1:9/", &u, err, sizeof(err)), 0);
    assert_int_equal(url_resolve(&u, &sa, &len, err, sizeof(err)), 0);
    assert_int_equal(sa.ss_family, AF_INET);
    assert_int_equal(url_parse("http://[::1]:9/", &u, err, sizeof(err)), 0);
    assert_int_equal(url_resolve(&u, &sa, &len, err, sizeof(err)), 0);
    assert_int_equal(sa.ss_family, AF_INET6);
    assert_int_equal(url_parse("http://no-such-host.invalid/", &u, err, sizeof(err)), 0);
    assert_int_equal(url_resolve(&u, &sa, &len, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "no-such-host.invalid"));
}

/* A loopback port with a listener (listen 1) or one that refuses (listen 0). */
static int loopback_port(int listen_on, int *fd_out)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    if (listen_on) {
        assert_int_equal(listen(fd, 4), 0);
        *fd_out = fd;
    } else {
        close(fd); /* nothing listens there now: connect is refused */
        *fd_out = -1;
    }
    return ntohs(a.sin_port);
}

/* "localhost" -> ::1, 127.0.0.1 on a host without IPv6 loopback: the first address
 * refuses, the run must use the next one that accepts (as wrk and curl do). */
static void test_url_pick_addr_first_that_connects(void **state)
{
    struct sockaddr_in refuse = { .sin_family = AF_INET }, accept_ = { .sin_family = AF_INET };
    struct addrinfo second = { .ai_family = AF_INET,
                               .ai_socktype = SOCK_STREAM,
                               .ai_addrlen = sizeof(accept_),
                               .ai_addr = (struct sockaddr *)&accept_ };
    struct addrinfo first = { .ai_family = AF_INET,
                              .ai_socktype = SOCK_STREAM,
                              .ai_addrlen = sizeof(refuse),
                              .ai_addr = (struct sockaddr *)&refuse,
                              .ai_next = &second };
    struct sockaddr_storage sa;
    socklen_t len = 0;
    int lfd, none;

    (void)state;
    refuse.sin_addr.s_addr = accept_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    refuse.sin_port = htons(loopback_port(0, &none));
    accept_.sin_port = htons(loopback_port(1, &lfd));
    url_pick_addr(&first, &sa, &len);
    assert_int_equal(len, sizeof(accept_));
    assert_int_equal(((struct sockaddr_in *)&sa)->sin_port, accept_.sin_port);
    /* none accepts: the first, so the run reports that address's error */
    close(lfd);
    url_pick_addr(&first, &sa, &len);
    assert_int_equal(((struct sockaddr_in *)&sa)->sin_port, refuse.sin_port);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_table),
        cmocka_unit_test(test_url_resolve_numeric),
        cmocka_unit_test(test_url_pick_addr_first_that_connects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
