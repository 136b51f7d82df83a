/* loadgen/url.h: the target URL, as ab and wrk accept it.
 *
 * Accepted: [http[s]://]host[:port][/path[?query]]. host is a name, an IPv4 address or
 * an IPv6 address in brackets ("http://[::1]:8080/"). Without a scheme the path is
 * required, as ab requires it ("localhost/" is fine, "localhost" is not); with a scheme
 * it defaults to "/". Pure: no resolution here (see url_resolve). */
#ifndef LOADGEN_URL_H
#define LOADGEN_URL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct url {
    int tls;            /* https */
    char host[256];     /* without brackets */
    int ipv6_literal;   /* host was written in brackets */
    uint16_t port;      /* explicit or the scheme's default */
    int port_explicit;  /* the URL named a port */
    char path[4096];    /* path and query, "/" at least */
    char host_hdr[300]; /* Host header value: host[:port], brackets kept for IPv6 */
};

/* Parses s into u. Returns 0, or -1 with a reason in err (errlen bytes). */
int url_parse(const char *s, struct url *u, char *err, size_t errlen);

/* Resolves u's host (numeric addresses without DNS) into *sa. Returns 0, or -1 with a
 * reason in err. Of several addresses, the first that accepts a connection (see
 * url_pick_addr). */
int url_resolve(const struct url *u, struct sockaddr_storage *sa, socklen_t *salen, char *err,
                size_t errlen);

/* Picks from getaddrinfo's list res the first address that accepts a TCP connection
 * within URL_PROBE_MS each, as wrk and curl do, or the first when none does (so the run
 * reports that address's error). "localhost" names ::1 first on many systems, which a
 * host without IPv6 loopback refuses; the run must reach 127.0.0.1 then. A single address
 * is taken without probing. */
#define URL_PROBE_MS 2000
struct addrinfo;
void url_pick_addr(const struct addrinfo *res, struct sockaddr_storage *sa, socklen_t *salen);

#endif
