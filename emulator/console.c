/* emulator/console.c: see console.h. The page is emulator/console.html, assembled into
 * .rodata with .incbin (the Makefile makes this object depend on it), so it is edited as
 * HTML and shipped inside the binary. */
#include "emulator/console.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

__asm__(".section .rodata\n"
        ".balign 16\n"
        ".type console_html_start, @object\n"
        "console_html_start:\n"
        ".incbin \"emulator/console.html\"\n"
        "console_html_end:\n"
        ".byte 0\n"
        ".previous\n");

extern const char console_html_start[];
extern const char console_html_end[];

const char *console_page_html(size_t *len)
{
    *len = (size_t)(console_html_end - console_html_start);
    return console_html_start;
}

void console_page(struct dispatch_response *rs)
{
    size_t len;
    const char *html = console_page_html(&len);

    rs->status = 200;
    rs->content_type = "text/html; charset=utf-8";
    dispatch_response_header(rs, "Cache-Control", "no-cache");
    cm_buf_append(&rs->body, html, len);
}

/* ---- the console token ------------------------------------------------------------------ */

static int token_byte_ok(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~';
}

int console_token_check(const char *t, char *err, size_t errlen)
{
    size_t n = strlen(t);

    if (n < CONSOLE_TOKEN_MIN || n > CONSOLE_TOKEN_MAX) {
        snprintf(err, errlen, "the console token must be %d to %d bytes, not %zu",
                 CONSOLE_TOKEN_MIN, CONSOLE_TOKEN_MAX, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!token_byte_ok((unsigned char)t[i])) {
            snprintf(err, errlen,
                     "the console token holds byte 0x%02x at %zu: only A-Z a-z 0-9 - . _ ~",
                     (unsigned char)t[i], i);
            return -1;
        }
    }
    return 0;
}

int console_token_make(char out[CONSOLE_TOKEN_MAX + 1])
{
    unsigned char r[24];

    if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
        return -1;
    for (size_t i = 0; i < sizeof(r); i++)
        snprintf(out + 2 * i, 3, "%02x", r[i]);
    return 0;
}

/* 1 when given (len bytes) is token, in time independent of where they differ: the two
 * SHA-256 digests are compared with CRYPTO_memcmp, so not even the length shows. */
static int token_equal(const char *token, const char *given, size_t len)
{
    unsigned char a[SHA256_DIGEST_LENGTH], b[SHA256_DIGEST_LENGTH];

    SHA256((const unsigned char *)token, strlen(token), a);
    SHA256((const unsigned char *)given, len, b);
    return CRYPTO_memcmp(a, b, sizeof(a)) == 0;
}

static const char *header(const struct dispatch_request *rq, const char *name)
{
    for (int i = 0; i < rq->nhdrs; i++) {
        if (strcasecmp(rq->hdrs[i].name, name) == 0)
            return rq->hdrs[i].value;
    }
    return NULL;
}

int console_token_presented(const char *token, const struct dispatch_request *rq)
{
    const char *h = header(rq, "X-Scalelab-Token");
    int seen = 0;

    if (!token)
        return 0;
    if (h) {
        if (token_equal(token, h, strlen(h)))
            return 1;
        seen = 1;
    }
    /* Cookie: a=b; c=d (RFC 6265 5.4); every scalelab_console* cookie is tried */
    for (int i = 0; i < rq->nhdrs; i++) {
        const char *p = rq->hdrs[i].value;

        if (strcasecmp(rq->hdrs[i].name, "Cookie") != 0)
            continue;
        for (int pairs = 0; p && *p && pairs < 256; pairs++) {
            const char *semi = strchr(p, ';');
            const char *end = semi ? semi : p + strlen(p);
            const char *eq;

            while (*p == ' ')
                p++;
            eq = memchr(p, '=', (size_t)(end - p));
            if (eq && strncmp(p, CONSOLE_COOKIE, strlen(CONSOLE_COOKIE)) == 0) {
                if (token_equal(token, eq + 1, (size_t)(end - eq - 1)))
                    return 1;
                seen = 1;
            }
            p = semi ? semi + 1 : NULL;
        }
    }
    return seen ? -1 : 0;
}

/* The port of the Host header ("127.0.0.1:4566", "[::1]:4566"), "80" when it has none. */
static void host_port(const struct dispatch_request *rq, char *out, size_t n)
{
    const char *h = header(rq, "Host");
    const char *colon = h ? strrchr(h, ':') : NULL;
    const char *bracket = h ? strrchr(h, ']') : NULL;
    size_t len;

    snprintf(out, n, "80");
    if (!colon || (bracket && bracket > colon))
        return;
    len = strlen(colon + 1);
    if (len == 0 || len > 5 || strspn(colon + 1, "0123456789") != len)
        return;
    snprintf(out, n, "%s", colon + 1);
}

/* The raw value of ?token= in rq's query (*len bytes), or NULL. */
static const char *query_token(const char *query, size_t *len)
{
    for (const char *p = query; p && *p;) {
        const char *amp = strchr(p, '&');
        size_t l = amp ? (size_t)(amp - p) : strlen(p);

        if (l >= 6 && strncmp(p, "token=", 6) == 0) {
            *len = l - 6;
            return p + 6;
        }
        p = amp ? amp + 1 : NULL;
    }
    return NULL;
}

static void refused_page(struct dispatch_response *rs, const char *why)
{
    rs->status = 403;
    rs->content_type = "text/html; charset=utf-8";
    dispatch_response_header(rs, "Cache-Control", "no-store");
    cm_buf_reset(&rs->body);
    cm_buf_printf(
        &rs->body,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<link rel=\"icon\" href=\"data:,\"><title>scalelab console: a token is needed</title></head>\n<body "
        "style=\"font: 18px/1.5 system-ui, sans-serif; max-width: 46em; margin: "
        "3em auto\">\n<h1>scalelab console: a token is needed</h1>\n<p>%s</p>\n"
        "<p>This emulator runs with <code>--auth sigv4</code>: its console and admin "
        "API need credentials. Open the console URL it printed on its standard error "
        "when it started (the line <code>emulator: console: "
        "http://&hellip;/?token=&hellip;</code>), or start it with "
        "<code>--console-token TOKEN</code> and open <code>/?token=TOKEN</code>. "
        "Scripts sign their requests instead (docs/auth.md).</p>\n</body></html>\n",
        why);
}

int console_token_door(const char *token, int presented, int console_request,
                       const struct dispatch_request *rq, struct dispatch_response *rs)
{
    int page = console_request || strcmp(rq->path, "/_scalelab/ui") == 0;
    const char *given;
    size_t len = 0;

    if (!token || !page || (strcmp(rq->method, "GET") != 0 && strcmp(rq->method, "HEAD") != 0))
        return 0;
    given = query_token(rq->query, &len);
    if (given) {
        char port[8];

        if (!token_equal(token, given, len)) {
            refused_page(rs, "The token in this URL is not this emulator's (a restart makes a "
                             "new one unless --console-token gives it).");
            return 1;
        }
        host_port(rq, port, sizeof(port));
        rs->status = 303;
        rs->content_type = "text/plain; charset=utf-8";
        /* the page again, without the token: it leaves the address bar and the history */
        dispatch_response_header(rs, "Location", "%s", rq->path);
        dispatch_response_header(rs, "Set-Cookie", "%s_%s=%s; Path=/; HttpOnly; SameSite=Strict",
                                 CONSOLE_COOKIE, port, token);
        dispatch_response_header(rs, "Cache-Control", "no-store");
        cm_buf_printf(&rs->body, "see %s\n", rq->path);
        return 1;
    }
    if (presented == 1 || header(rq, "Authorization"))
        return 0;
    refused_page(rs, presented < 0 ? "This browser's console cookie is not this emulator's (a "
                                     "restart makes a new token unless --console-token gives it)."
                                   : "This request carries no console token and no signature.");
    return 1;
}
