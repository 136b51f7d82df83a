/* scaler/lb_sticky.h: session stickiness by cookie, the rules classic ELB and the
 * Application Load Balancer share (docs/elbv2.md 10.1, docs/elb-classic.md 4.1).
 *
 * A load balancer cookie names one target opaquely: an encrypted 64-bit target key (the
 * caller's, sc_sticky_key of a stable id) and an expiry, tagged so that a client's edits
 * or another load balancer's cookie are rejected. The proxy keeps the key per backend.
 *
 * Pure: no clock (times are passed in), no allocation, no I/O; every call is hot-path
 * safe. */
#ifndef SCALER_LB_STICKY_H
#define SCALER_LB_STICKY_H

#include <stddef.h>
#include <stdint.h>

#define SC_STICKY_VALUE_LEN 49  /* 48 characters + NUL */
#define SC_STICKY_NAME_LEN  129 /* cookie names this side keeps */

enum sc_sticky_type {
    SC_STICKY_NONE = 0,
    SC_STICKY_LB_COOKIE,  /* the load balancer's own cookie, duration given */
    SC_STICKY_APP_COOKIE, /* follows the application's cookie */
    SC_STICKY_SOURCE_IP,  /* NLB: the client's address picks the target (elbv2.h) */
};

/* One listener's (classic) or target group's (ALB) stickiness. */
struct sc_sticky {
    enum sc_sticky_type type;
    int alb;                             /* 1: ALB cookies (AWSALB/AWSALBCORS, AWSALBAPP-0) */
    int64_t duration_s;                  /* validity; 0: none (a classic session cookie) */
    char app_cookie[SC_STICKY_NAME_LEN]; /* APP_COOKIE: the application's cookie name */
};

/* A stable key for a target id (FNV-1a 64), never 0. */
uint64_t sc_sticky_key(const char *id);

/* Writes the cookie value of target key expiring at expires_s (wall clock seconds; 0 =
 * never) under secret into out (SC_STICKY_VALUE_LEN bytes). Returns its length. */
int sc_sticky_encode(uint64_t secret, uint64_t key, int64_t expires_s, char *out);
/* Reads a cookie value (len bytes, not terminated). Returns 0 and fills *key / *expires_s
 * when it is one of ours under secret, -1 otherwise (tampered, foreign, malformed). */
int sc_sticky_decode(uint64_t secret, const char *v, size_t len, uint64_t *key, int64_t *expires_s);

/* Finds cookie name in a Cookie header value (len bytes): "a=1; b=2". Returns 1 and sets
 * *val / *vlen (a view into hdr) when present, else 0. Names are case-sensitive. */
int sc_sticky_cookie_find(const char *hdr, size_t len, const char *name, const char **val,
                          size_t *vlen);
/* 1 when a Set-Cookie header value (len bytes) sets cookie name. */
int sc_sticky_sets_cookie(const char *hdr, size_t len, const char *name);

/* The stickiness decision for one request: the target the cookie names is used when the
 * cookie decoded, has not expired at now_s, and that target is present and routable
 * (healthy, registered, not draining); otherwise the load-balancing algorithm picks a new
 * target and the response re-binds the client to it. Returns 1 to stick, 0 to re-pick. */
int sc_sticky_keep(int decoded, int64_t expires_s, int64_t now_s, int target_routable);

/* The Set-Cookie header lines (each ending in CRLF) binding the client to key, written
 * into out[0..cap): classic AWSELB (lb_cookie: Expires when duration_s > 0; app_cookie: a
 * session cookie); ALB lb_cookie AWSALB and AWSALBCORS (SameSite=None; Secure), Expires
 * now + duration_s; ALB app_cookie AWSALBAPP-0 (and its CORS twin), Expires now + 7 days.
 * now_s is the wall clock. Returns the length, -1 when it does not fit. */
long sc_sticky_set_cookie(const struct sc_sticky *s, uint64_t secret, uint64_t key, int64_t now_s,
                          char *out, size_t cap);
/* The same for target group stickiness of a forward (AWSALBTG, AWSALBTGCORS). */
long sc_sticky_set_group_cookie(uint64_t secret, uint64_t key, int64_t duration_s, int64_t now_s,
                                char *out, size_t cap);
/* The name of the cookie the load balancer reads for s ("AWSELB", "AWSALB",
 * "AWSALBAPP-0"). */
const char *sc_sticky_cookie_name(const struct sc_sticky *s);

/* Formats an HTTP date (IMF-fixdate, "Wed, 09 Dec 2026 06:00:00 GMT") of wall-clock
 * seconds into out (30 bytes). */
void sc_sticky_http_date(int64_t s, char out[30]);

#endif
