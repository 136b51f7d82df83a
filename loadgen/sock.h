/* loadgen/sock.h: plain and TLS sockets behind one table of functions.
 *
 * Every call is non-blocking and answers SOCK_OK (done; for read, *n == 0 means the
 * peer closed), SOCK_RETRY (would block: wait for the socket's next edge) or SOCK_ERROR
 * (errno, or for TLS the OpenSSL error queue, says why). A sock is owned by the one
 * loop that uses it. TLS sessions are resumed: each thread keeps the last session its
 * handshakes produced (struct sock_tls_cache) and offers it on the next connection. */
#ifndef LOADGEN_SOCK_H
#define LOADGEN_SOCK_H

#include <stddef.h>
#include <stdint.h>

enum sock_status {
    SOCK_OK = 0,
    SOCK_ERROR = 1,
    SOCK_RETRY = 2,
};

struct sock_tls_cache {
    void *ctx;     /* SSL_CTX *, shared by all threads (borrowed) */
    void *session; /* SSL_SESSION *, owned; the last one a server issued */
    uint64_t handshakes;
    uint64_t resumed;
    const char *sni; /* server name to send, or NULL for IP literals */
};

struct sock {
    int fd;
    void *ssl; /* SSL *, or NULL for plain sockets */
    struct sock_tls_cache *cache;
};

struct sock_ops {
    /* After the TCP connection is up: plain returns SOCK_OK, TLS advances the
     * handshake (SOCK_RETRY until it completes). */
    enum sock_status (*handshake)(struct sock *s);
    enum sock_status (*read)(struct sock *s, char *buf, size_t len, size_t *n);
    enum sock_status (*write)(struct sock *s, const char *buf, size_t len, size_t *n);
    /* Closes the fd and frees TLS state; s->fd becomes -1. */
    void (*close)(struct sock *s);
};

extern const struct sock_ops sock_plain_ops;
extern const struct sock_ops sock_tls_ops;

/* Creates the shared client SSL_CTX (no certificate verification: a load generator
 * targets test servers). Returns NULL on failure with a reason in err. */
void *sock_tls_ctx_create(char *err, size_t errlen);
void sock_tls_ctx_destroy(void *ctx);
/* ab's -v for TLS, set once before any connection: 2 prints each handshake's peer
 * certificates (stdout) and cipher and session (stderr), 3 adds the handshake states
 * (stderr), 4 dumps every record read and written (stderr), in ab's words. */
void sock_tls_set_verbosity(void *ctx, int verbosity);
/* Releases a cache's session. */
void sock_tls_cache_cleanup(struct sock_tls_cache *c);
/* Binds a fresh TLS object to s->fd (call before the first handshake). Returns 0/-1. */
int sock_tls_attach(struct sock *s, struct sock_tls_cache *cache);
/* What ab reports of an established TLS sock: info gets its "SSL/TLS Protocol" value
 * ("TLSv1.3,TLS_AES_256_GCM_SHA384,2048,256": protocol, cipher, the peer key's bits, the
 * cipher's secret bits), tmp_key its "Server Temp Key" ("X25519 253 bits", or ""). */
void sock_tls_describe(const struct sock *s, char *info, size_t info_len, char *tmp_key,
                       size_t tmp_len);

#endif
