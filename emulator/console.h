/* emulator/console.h: the lab console, one self-contained page (emulator/console.html:
 * HTML, CSS and JavaScript, nothing fetched from elsewhere) embedded in the binary at build
 * time, served by the admin API at GET / (Accept: text/html) and GET /_scalelab/ui. The
 * page reads /_scalelab/overview and follows /_scalelab/events (docs/admin-api.md). */
#ifndef EMULATOR_CONSOLE_H
#define EMULATOR_CONSOLE_H

#include <stddef.h>

#include "emulator/dispatch.h"

/* The page (borrowed, static) and its length in bytes. */
const char *console_page_html(size_t *len);
/* Fills rs (initialized by the caller) with the page: 200, text/html, no caching. */
void console_page(struct dispatch_response *rs);

/* ---- the console token (docs/auth.md "The console under --auth sigv4") ----------------
 * A browser cannot SigV4-sign, so with --auth sigv4 the emulator holds a console token
 * (--console-token, or random at start) and prints the console URL with it once, at
 * start. GET / or /_scalelab/ui with ?token=T exchanges it for an HttpOnly SameSite=Strict
 * cookie (303 to the same page without the token, so it leaves the address bar); the
 * admin API then accepts the cookie, or the header X-Scalelab-Token: T, besides a
 * signature. Tokens are compared in constant time (SHA-256 of each, CRYPTO_memcmp). */

#define CONSOLE_TOKEN_MIN 16
#define CONSOLE_TOKEN_MAX 128
#define CONSOLE_COOKIE    "scalelab_console" /* + "_<port>": one per emulator on a host */

/* 0 when t is a usable token: CONSOLE_TOKEN_MIN..MAX bytes of A-Z a-z 0-9 - . _ ~ (so it
 * goes into a URL and a cookie as it is); else -1 with err naming the problem. */
int console_token_check(const char *t, char *err, size_t errlen);
/* A new random token (48 hex digits from getrandom) in out. Returns 0, or -1 (errno). */
int console_token_make(char out[CONSOLE_TOKEN_MAX + 1]);

/* What rq carries of token (the emulator's): 1 a cookie or X-Scalelab-Token that matches,
 * -1 one that does not (and none that does), 0 none. */
int console_token_presented(const char *token, const struct dispatch_request *rq);
/* The console's front door under --auth sigv4: for GET/HEAD of / (a console request) or
 * /_scalelab/ui, a ?token= that matches answers 303 with the cookie, one that does not 403
 * (text/html), and a page request with no credentials at all (presented is 0 or -1 and no
 * Authorization header) 403 saying how to get in. Returns 1 when it answered rs, else 0
 * (the request goes on to the cookie or signature checks). */
int console_token_door(const char *token, int presented, int console_request,
                       const struct dispatch_request *rq, struct dispatch_response *rs);

#endif
