/* loadgen/url.c: see url.h. */
#include "loadgen/url.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, const char *why)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", why);
    return -1;
}

int url_parse(const char *s, struct url *u, char *err, size_t errlen)
{
    const char *p = s, *host_start, *host_end, *port_start = NULL, *path_start;
    size_t hl;
    int has_scheme = 0;

    memset(u, 0, sizeof(*u));
    if (!s || !*s)
        return fail(err, errlen, "empty URL");
    if (strncasecmp(p, "http://", 7) == 0) {
        p += 7;
        has_scheme = 1;
    } else if (strncasecmp(p, "https://", 8) == 0) {
        p += 8;
        u->tls = 1;
        has_scheme = 1;
    } else if (strstr(p, "://")) {
        return fail(err, errlen, "unsupported scheme (only http and https)");
    }
    host_start = p;
    if (*p == '[') {
        host_start = ++p;
        while (*p && *p != ']')
            p++;
        if (*p != ']')
            return fail(err, errlen, "unterminated IPv6 address");
        host_end = p++;
        u->ipv6_literal = 1;
    } else {
        while (*p && *p != ':' && *p != '/' && *p != '?' && *p != '#')
            p++;
        host_end = p;
    }
    hl = (size_t)(host_end - host_start);
    if (hl == 0)
        return fail(err, errlen, "missing host");
    if (hl >= sizeof(u->host))
        return fail(err, errlen, "host name too long");
    for (const char *q = host_start; q < host_end; q++) {
        unsigned char ch = (unsigned char)*q;
        if (ch <= ' ' || ch >= 0x7f || ch == '@' || (!u->ipv6_literal && ch == '['))
            return fail(err, errlen, "invalid character in host");
    }
    memcpy(u->host, host_start, hl);
    u->host[hl] = '\0';
    if (*p == ':') {
        char *end;
        long port;

        port_start = ++p;
        while (isdigit((unsigned char)*p))
            p++;
        if (p == port_start || (*p && *p != '/' && *p != '?' && *p != '#'))
            return fail(err, errlen, "invalid port");
        port = strtol(port_start, &end, 10);
        if (port < 1 || port > 65535)
            return fail(err, errlen, "port out of range (1..65535)");
        u->port = (uint16_t)port;
        u->port_explicit = 1;
    } else if (*p && *p != '/' && *p != '?' && *p != '#') {
        return fail(err, errlen, "invalid host");
    }
    if (!u->port_explicit)
        u->port = u->tls ? 443 : 80;
    path_start = p;
    if (!*path_start || *path_start == '#') {
        if (!has_scheme)
            return fail(err, errlen, "missing path (write host/ or http://host)");
        strcpy(u->path, "/");
    } else {
        size_t pl = strcspn(path_start, "#");
        if (pl + 2 > sizeof(u->path))
            return fail(err, errlen, "path too long");
        for (size_t i = 0; i < pl; i++) {
            unsigned char ch = (unsigned char)path_start[i];
            if (ch <= ' ' || ch == 0x7f)
                return fail(err, errlen, "invalid character in path (encode it as %XX)");
        }
        if (*path_start == '?') {
            u->path[0] = '/';
            memcpy(u->path + 1, path_start, pl);
            u->path[pl + 1] = '\0';
        } else {
            memcpy(u->path, path_start, pl);
            u->path[pl] = '\0';
        }
    }
    {
        int default_port = u->port == (u->tls ? 443 : 80);
        const char *l = u->ipv6_literal ? "[" : "", *r = u->ipv6_literal ? "]" : "";

        if (default_port)
            snprintf(u->host_hdr, sizeof(u->host_hdr), "%s%s%s", l, u->host, r);
        else
            snprintf(u->host_hdr, sizeof(u->host_hdr), "%s%s%s:%u", l, u->host, r,
                     (unsigned)u->port);
    }
    return 0;
}

int url_resolve(const struct url *u, struct sockaddr_storage *sa, socklen_t *salen, char *err,
                size_t errlen)
{
    struct addrinfo hints, *res = NULL;
    char port[8];
    int rc;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_ADDRCONFIG;
    if (u->ipv6_literal)
        hints.ai_flags = AI_NUMERICHOST;
    snprintf(port, sizeof(port), "%u", (unsigned)u->port);
    rc = getaddrinfo(u->host, port, &hints, &res);
    if (rc != 0 && hints.ai_flags == AI_ADDRCONFIG) {
        hints.ai_flags = 0; /* loopback-only hosts have no "configured" address */
        rc = getaddrinfo(u->host, port, &hints, &res);
    }
    if (rc != 0) {
        if (err && errlen)
            snprintf(err, errlen, "cannot resolve %s: %s", u->host, gai_strerror(rc));
        return -1;
    }
    url_pick_addr(res, sa, salen);
    freeaddrinfo(res);
    return 0;
}

/* One connect attempt, bounded by URL_PROBE_MS; 1 if it connected. */
static int probe(const struct addrinfo *ai)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    int ok = 0;

    if (fd < 0)
        return 0;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
        ok = 1;
    } else if (errno == EINPROGRESS) {
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        int soerr = 0;
        socklen_t len = sizeof(soerr);

        ok = poll(&p, 1, URL_PROBE_MS) == 1 &&
             getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 && soerr == 0;
    }
    close(fd);
    return ok;
}

void url_pick_addr(const struct addrinfo *res, struct sockaddr_storage *sa, socklen_t *salen)
{
    const struct addrinfo *pick = res;

    for (const struct addrinfo *ai = res; ai && res->ai_next; ai = ai->ai_next) {
        if (probe(ai)) {
            pick = ai;
            break;
        }
    }
    memcpy(sa, pick->ai_addr, pick->ai_addrlen);
    *salen = pick->ai_addrlen;
}
