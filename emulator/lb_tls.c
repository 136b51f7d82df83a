/* emulator/lb_tls.c: see lb_tls.h. */
#include "emulator/lb_tls.h"

#include <stdio.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

static void fail_msg(char *err, size_t errlen, const char *what)
{
    unsigned long e = ERR_get_error();
    char buf[256] = "";

    if (e)
        ERR_error_string_n(e, buf, sizeof(buf));
    snprintf(err, errlen, "%s%s%s", what, buf[0] ? ": " : "", buf);
    ERR_clear_error();
}

static int add_ext(X509 *x, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509_EXTENSION *ex;
    int ok;

    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
    ex = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ex)
        return -1;
    ok = X509_add_ext(x, ex, -1);
    X509_EXTENSION_free(ex);
    return ok ? 0 : -1;
}

/* A self-signed certificate for localhost with a new EC P-256 key, into ctx. */
static int self_signed(SSL_CTX *ctx, char *err, size_t errlen)
{
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *x = NULL;
    X509_NAME *name;
    unsigned char serial[8];
    BIGNUM *bn = NULL;
    int rc = -1;

    if (!key) {
        fail_msg(err, errlen, "cannot make a TLS key");
        goto out;
    }
    x = X509_new();
    if (!x)
        goto fail;
    X509_set_version(x, 2);
    /* a random positive serial */
    if (RAND_bytes(serial, sizeof(serial)) != 1)
        goto fail;
    serial[0] &= 0x7f;
    bn = BN_bin2bn(serial, sizeof(serial), NULL);
    if (!bn || !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)))
        goto fail;
    if (!X509_gmtime_adj(X509_getm_notBefore(x), -3600) ||
        !X509_gmtime_adj(X509_getm_notAfter(x), 365L * 24 * 3600) || !X509_set_pubkey(x, key))
        goto fail;
    name = X509_get_subject_name(x);
    if (!X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, (const unsigned char *)"scalelab", -1,
                                    -1, 0) ||
        !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"localhost",
                                    -1, -1, 0) ||
        !X509_set_issuer_name(x, name))
        goto fail;
    if (add_ext(x, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1") < 0 ||
        add_ext(x, NID_basic_constraints, "critical,CA:FALSE") < 0 ||
        add_ext(x, NID_ext_key_usage, "serverAuth") < 0)
        goto fail;
    if (!X509_sign(x, key, EVP_sha256()))
        goto fail;
    if (SSL_CTX_use_certificate(ctx, x) != 1 || SSL_CTX_use_PrivateKey(ctx, key) != 1)
        goto fail;
    rc = 0;
    goto out;

fail:
    fail_msg(err, errlen, "cannot make a self-signed certificate");
out:
    BN_free(bn);
    X509_free(x);
    EVP_PKEY_free(key);
    return rc;
}

struct ssl_ctx_st *lb_tls_ctx_create(const char *cert_file, const char *key_file, char *err,
                                     size_t errlen)
{
    SSL_CTX *ctx;

    if (!cert_file != !key_file) {
        snprintf(err, errlen, "give both a certificate and a key file, or neither");
        return NULL;
    }
    ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        fail_msg(err, errlen, "cannot make a TLS context");
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    /* non-blocking record I/O: partial writes, retries from a moved buffer */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                              SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
    if (cert_file) {
        if (SSL_CTX_use_certificate_chain_file(ctx, cert_file) != 1) {
            fail_msg(err, errlen, "cannot load the TLS certificate");
            goto fail;
        }
        if (SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) != 1 ||
            SSL_CTX_check_private_key(ctx) != 1) {
            fail_msg(err, errlen, "cannot load the TLS key (or it does not match)");
            goto fail;
        }
    } else if (self_signed(ctx, err, errlen) < 0) {
        goto fail;
    }
    return ctx;

fail:
    SSL_CTX_free(ctx);
    return NULL;
}

void lb_tls_ctx_free(struct ssl_ctx_st *ctx)
{
    SSL_CTX_free(ctx);
}
