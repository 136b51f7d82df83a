/* loadgen/sock.c: see sock.h. */
#include "loadgen/sock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

static enum sock_status plain_handshake(struct sock *s)
{
    (void)s;
    return SOCK_OK;
}

static enum sock_status plain_read(struct sock *s, char *buf, size_t len, size_t *n)
{
    ssize_t r = recv(s->fd, buf, len, 0);

    if (r >= 0) {
        *n = (size_t)r;
        return SOCK_OK;
    }
    *n = 0;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return SOCK_RETRY;
    return SOCK_ERROR;
}

static enum sock_status plain_write(struct sock *s, const char *buf, size_t len, size_t *n)
{
    ssize_t r = send(s->fd, buf, len, MSG_NOSIGNAL);

    if (r >= 0) {
        *n = (size_t)r;
        return SOCK_OK;
    }
    *n = 0;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return SOCK_RETRY;
    return SOCK_ERROR;
}

static void plain_close(struct sock *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

const struct sock_ops sock_plain_ops = {
    .handshake = plain_handshake,
    .read = plain_read,
    .write = plain_write,
    .close = plain_close,
};

/* --- TLS ------------------------------------------------------------------------- */

static int cache_index = -1;

static int on_new_session(SSL *ssl, SSL_SESSION *sess)
{
    struct sock_tls_cache *c = SSL_get_ex_data(ssl, cache_index);

    if (!c)
        return 0;
    if (c->session)
        SSL_SESSION_free(c->session);
    c->session = sess;
    return 1; /* we keep the reference */
}

void *sock_tls_ctx_create(char *err, size_t errlen)
{
    SSL_CTX *ctx;

    if (cache_index < 0)
        cache_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
    ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) {
        snprintf(err, errlen, "SSL_CTX_new failed");
        return NULL;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx, on_new_session);
    SSL_CTX_set_mode(ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    return ctx;
}

void sock_tls_ctx_destroy(void *ctx)
{
    SSL_CTX_free(ctx);
}

void sock_tls_cache_cleanup(struct sock_tls_cache *c)
{
    if (c->session)
        SSL_SESSION_free(c->session);
    c->session = NULL;
}

int sock_tls_attach(struct sock *s, struct sock_tls_cache *cache)
{
    SSL *ssl = SSL_new(cache->ctx);

    if (!ssl)
        return -1;
    if (!SSL_set_fd(ssl, s->fd)) {
        SSL_free(ssl);
        return -1;
    }
    SSL_set_ex_data(ssl, cache_index, cache);
    if (cache->sni)
        SSL_set_tlsext_host_name(ssl, cache->sni);
    if (cache->session)
        SSL_set_session(ssl, cache->session);
    SSL_set_connect_state(ssl);
    s->ssl = ssl;
    s->cache = cache;
    return 0;
}

const char *sock_tls_version(const struct sock *s)
{
    return s->ssl ? SSL_get_version(s->ssl) : NULL;
}

static enum sock_status tls_status(SSL *ssl, int rc)
{
    switch (SSL_get_error(ssl, rc)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        return SOCK_RETRY;
    default:
        return SOCK_ERROR;
    }
}

static enum sock_status tls_handshake(struct sock *s)
{
    int rc = SSL_do_handshake(s->ssl);

    if (rc == 1) {
        s->cache->handshakes++;
        if (SSL_session_reused(s->ssl))
            s->cache->resumed++;
        return SOCK_OK;
    }
    if (tls_status(s->ssl, rc) == SOCK_ERROR && errno == 0)
        errno = EPROTO;
    return tls_status(s->ssl, rc);
}

static enum sock_status tls_read(struct sock *s, char *buf, size_t len, size_t *n)
{
    int rc;

    *n = 0;
    ERR_clear_error();
    errno = 0;
    rc = SSL_read_ex(s->ssl, buf, len, n);
    if (rc == 1)
        return SOCK_OK;
    switch (SSL_get_error(s->ssl, rc)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        return SOCK_RETRY;
    case SSL_ERROR_ZERO_RETURN:
        *n = 0;
        return SOCK_OK;
    case SSL_ERROR_SYSCALL:
        if (errno == 0) { /* closed without close_notify: treat as the end */
            *n = 0;
            return SOCK_OK;
        }
        return SOCK_ERROR;
    default:
        if (errno == 0)
            errno = EPROTO;
        return SOCK_ERROR;
    }
}

static enum sock_status tls_write(struct sock *s, const char *buf, size_t len, size_t *n)
{
    int rc;

    *n = 0;
    ERR_clear_error();
    errno = 0;
    rc = SSL_write_ex(s->ssl, buf, len, n);
    if (rc == 1)
        return SOCK_OK;
    if (tls_status(s->ssl, rc) == SOCK_ERROR && errno == 0)
        errno = EPROTO;
    return tls_status(s->ssl, rc);
}

static void tls_close(struct sock *s)
{
    if (s->ssl) {
        /* Mark it shut down: OpenSSL drops sessions of connections freed without a
         * shutdown, and the cached one must stay resumable. */
        SSL_set_shutdown(s->ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
        SSL_free(s->ssl);
        s->ssl = NULL;
    }
    plain_close(s);
}

const struct sock_ops sock_tls_ops = {
    .handshake = tls_handshake,
    .read = tls_read,
    .write = tls_write,
    .close = tls_close,
};
