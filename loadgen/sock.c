/* loadgen/sock.c: see sock.h. */
#include "loadgen/sock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

static enum sock_status plain_handshake(struct sock *s)
{
    (void)s;
    return SOCK_OK;
}

/* What recv/send returned (r), as a sock status with *n the bytes moved. */
static enum sock_status plain_status(ssize_t r, size_t *n)
{
    if (r >= 0) {
        *n = (size_t)r;
        return SOCK_OK;
    }
    *n = 0;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return SOCK_RETRY;
    return SOCK_ERROR;
}

static enum sock_status plain_read(struct sock *s, char *buf, size_t len, size_t *n)
{
    return plain_status(recv(s->fd, buf, len, 0), n);
}

static enum sock_status plain_write(struct sock *s, const char *buf, size_t len, size_t *n)
{
    return plain_status(send(s->fd, buf, len, MSG_NOSIGNAL), n);
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
static int tls_verbosity;

/* --- ab's -v output for TLS (ab's ssl_print_info, ssl_state_cb, ssl_print_cb) ----- */

static BIO *bio_out, *bio_err; /* stdout and stderr, made before any thread runs */

static void print_cert(BIO *b, X509 *cert)
{
    char buf[1024];
    EVP_PKEY *pk = X509_get0_pubkey(cert);

    BIO_printf(b, "Certificate version: %ld\n", X509_get_version(cert) + 1);
    BIO_printf(b, "Valid from: ");
    ASN1_TIME_print(b, X509_get0_notBefore(cert));
    BIO_printf(b, "\n");
    BIO_printf(b, "Valid to  : ");
    ASN1_TIME_print(b, X509_get0_notAfter(cert));
    BIO_printf(b, "\n");
    BIO_printf(b, "Public key is %d bits\n", pk ? EVP_PKEY_get_bits(pk) : 0);
    X509_NAME_oneline(X509_get_issuer_name(cert), buf, sizeof(buf));
    BIO_printf(b, "The issuer name is %s\n", buf);
    X509_NAME_oneline(X509_get_subject_name(cert), buf, sizeof(buf));
    BIO_printf(b, "The subject name is %s\n", buf);
    BIO_printf(b, "Extension Count: %d\n", X509_get_ext_count(cert));
}

static void print_handshake(SSL *ssl)
{
    BIO *out = bio_out, *err = bio_err;
    STACK_OF(X509) *chain = SSL_get_peer_cert_chain(ssl);
    X509 *cert = SSL_get1_peer_certificate(ssl);
    const SSL_CIPHER *c = SSL_get_current_cipher(ssl);
    int alg_bits = 0, bits;

    fflush(stdout);
    BIO_printf(err, "\n");
    for (int i = 1; chain && i < sk_X509_num(chain); i++)
        print_cert(out, sk_X509_value(chain, i));
    if (!cert) {
        BIO_printf(out, "Anon DH\n");
    } else {
        BIO_printf(out, "Peer certificate\n");
        print_cert(out, cert);
        X509_free(cert);
    }
    BIO_printf(err, "Transport Protocol      :%s\n", SSL_get_version(ssl));
    BIO_printf(err, "Cipher Suite Protocol   :%s\n", SSL_CIPHER_get_version(c));
    BIO_printf(err, "Cipher Suite Name       :%s\n", SSL_CIPHER_get_name(c));
    bits = SSL_CIPHER_get_bits(c, &alg_bits);
    BIO_printf(err, "Cipher Suite Cipher Bits:%d (%d)\n", bits, alg_bits);
    SSL_SESSION_print(err, SSL_get_session(ssl));
    (void)BIO_flush(out);
    (void)BIO_flush(err);
}

static void on_state(const SSL *s, int where, int ret)
{
    BIO *err = bio_err;

    if (where & SSL_CB_ALERT)
        BIO_printf(err, "SSL/TLS Alert [%s] %s:%s\n", (where & SSL_CB_READ) ? "read" : "write",
                   SSL_alert_type_string_long(ret), SSL_alert_desc_string_long(ret));
    else if (where & SSL_CB_LOOP)
        BIO_printf(err, "SSL/TLS State [%s] %s\n", SSL_in_connect_init((SSL *)s) ? "connect" : "-",
                   SSL_state_string_long(s));
    else if (where & (SSL_CB_HANDSHAKE_START | SSL_CB_HANDSHAKE_DONE))
        BIO_printf(err, "SSL/TLS Handshake [%s] %s\n",
                   (where & SSL_CB_HANDSHAKE_START) ? "Start" : "Done", SSL_state_string_long(s));
}

static long on_bio(BIO *bio, int oper, const char *argp, size_t len, int argi, long argl, int ret,
                   size_t *processed)
{
    BIO *err = bio_err;
    long n = (ret > 0 && processed) ? (long)*processed : (long)ret;

    (void)argi;
    (void)argl;
    if (oper == (BIO_CB_READ | BIO_CB_RETURN) || oper == (BIO_CB_WRITE | BIO_CB_RETURN)) {
        BIO_printf(err, "%s %p [%p] (%zu bytes => %ld (0x%lX))\n",
                   oper == (BIO_CB_READ | BIO_CB_RETURN) ? "read from" : "write to", (void *)bio,
                   (const void *)argp, len, n, (unsigned long)n);
        if (n > 0)
            BIO_dump(err, argp, (int)n);
    }
    return ret;
}

void sock_tls_set_verbosity(void *ctx, int verbosity)
{
    tls_verbosity = verbosity;
    if (verbosity >= 2 && !bio_out) {
        bio_out = BIO_new_fp(stdout, BIO_NOCLOSE);
        bio_err = BIO_new_fp(stderr, BIO_NOCLOSE);
    }
    if (verbosity >= 3)
        SSL_CTX_set_info_callback(ctx, on_state);
}

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
    if (tls_verbosity >= 4)
        BIO_set_callback_ex(SSL_get_rbio(ssl), on_bio);
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

void sock_tls_describe(const struct sock *s, char *info, size_t info_len, char *tmp_key,
                       size_t tmp_len)
{
    const SSL_CIPHER *c = SSL_get_current_cipher(s->ssl);
    X509 *cert = SSL_get1_peer_certificate(s->ssl);
    EVP_PKEY *key = NULL;
    int pk_bits = 0, sk_bits, unused;

    if (cert && X509_get0_pubkey(cert))
        pk_bits = EVP_PKEY_get_bits(X509_get0_pubkey(cert));
    X509_free(cert);
    sk_bits = SSL_CIPHER_get_bits(c, &unused);
    snprintf(info, info_len, "%s,%s,%d,%d", SSL_get_version(s->ssl), SSL_CIPHER_get_name(c),
             pk_bits, sk_bits);
    tmp_key[0] = '\0';
    if (!SSL_get_peer_tmp_key(s->ssl, &key))
        return;
    switch (EVP_PKEY_get_id(key)) {
    case EVP_PKEY_RSA:
        snprintf(tmp_key, tmp_len, "RSA %d bits", EVP_PKEY_get_bits(key));
        break;
    case EVP_PKEY_DH:
        snprintf(tmp_key, tmp_len, "DH %d bits", EVP_PKEY_get_bits(key));
        break;
    case EVP_PKEY_EC: {
        char group[64] = "";
        const char *nist;
        EVP_PKEY_get_group_name(key, group, sizeof(group), NULL);
        nist = EC_curve_nid2nist(OBJ_sn2nid(group));
        snprintf(tmp_key, tmp_len, "ECDH %s %d bits", nist ? nist : group, EVP_PKEY_get_bits(key));
        break;
    }
    default:
        snprintf(tmp_key, tmp_len, "%s %d bits", OBJ_nid2sn(EVP_PKEY_get_id(key)),
                 EVP_PKEY_get_bits(key));
        break;
    }
    EVP_PKEY_free(key);
}

/* A handshake or write that did not complete: RETRY, or ERROR with errno set. */
static enum sock_status tls_status(SSL *ssl, int rc)
{
    switch (SSL_get_error(ssl, rc)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        return SOCK_RETRY;
    default:
        if (errno == 0)
            errno = EPROTO;
        return SOCK_ERROR;
    }
}

static enum sock_status tls_handshake(struct sock *s)
{
    int rc = SSL_do_handshake(s->ssl);

    if (rc == 1) {
        if (tls_verbosity >= 2)
            print_handshake(s->ssl);
        s->cache->handshakes++;
        if (SSL_session_reused(s->ssl))
            s->cache->resumed++;
        return SOCK_OK;
    }
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
