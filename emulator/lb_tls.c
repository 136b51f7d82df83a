/* emulator/lb_tls.c: see lb_tls.h. */
#include "emulator/lb_tls.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "scaler/elbv2_mtls.h"
#include "scaler/elbv2_sni.h"

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
static int self_signed(SSL_CTX *ctx, const char *label, char *err, size_t errlen)
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
        (label && label[0] &&
         !X509_NAME_add_entry_by_txt(name, "OU", MBSTRING_UTF8, (const unsigned char *)label,
                                     (int)(strlen(label) > 64 ? 64 : strlen(label)), -1, 0)) ||
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
        char what[1024];

        if (SSL_CTX_use_certificate_chain_file(ctx, cert_file) != 1) {
            snprintf(what, sizeof(what), "cannot load the TLS certificate %s", cert_file);
            fail_msg(err, errlen, what);
            goto fail;
        }
        if (SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) != 1) {
            unsigned long e = ERR_peek_last_error();

            /* OpenSSL compares the key with the certificate as it loads it */
            if (ERR_GET_LIB(e) == ERR_LIB_X509 && ERR_GET_REASON(e) == X509_R_KEY_VALUES_MISMATCH)
                snprintf(what, sizeof(what), "the TLS key %s does not match the certificate %s",
                         key_file, cert_file);
            else
                snprintf(what, sizeof(what), "cannot load the TLS key %s", key_file);
            fail_msg(err, errlen, what);
            goto fail;
        }
        if (SSL_CTX_check_private_key(ctx) != 1) {
            snprintf(what, sizeof(what), "the TLS key %s does not match the certificate %s",
                     key_file, cert_file);
            fail_msg(err, errlen, what);
            goto fail;
        }
    } else if (self_signed(ctx, NULL, err, errlen) < 0) {
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

int lb_tls_check_pair(const char *cert_file, const char *key_file, char *err, size_t errlen)
{
    FILE *f;
    SSL_CTX *ctx;

    /* an unreadable file said as such, not as OpenSSL's "system library" */
    for (int i = 0; i < 2; i++) {
        const char *p = i ? key_file : cert_file;

        f = p ? fopen(p, "r") : NULL;
        if (!f) {
            snprintf(err, errlen, "cannot read %s: %s", p ? p : "(none)",
                     p ? strerror(errno) : "no file given");
            return -1;
        }
        fclose(f);
    }
    ctx = lb_tls_ctx_create(cert_file, key_file, err, errlen);
    if (!ctx)
        return -1;
    SSL_CTX_free(ctx);
    return 0;
}

void lb_tls_cert_for(const char *arn, const struct lb_tls_cert_map *map, int nmap,
                     const char *cert_file, const char *key_file, struct lb_tls_cert *out)
{
    const char *slash;

    arn = arn ? arn : "";
    slash = strrchr(arn, '/');
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < nmap; i++) {
        if (strcmp(map[i].arn, arn) == 0) {
            out->cert_file = map[i].cert_file;
            out->key_file = map[i].key_file;
            return;
        }
    }
    out->cert_file = cert_file;
    out->key_file = key_file;
    out->label = slash ? slash + 1 : arn;
}

/* --- one listener's context: certificate and mutual TLS (docs/elbv2.md 14.1) ------------- */

struct mtls_cfg {
    int mode;
    int ignore_expiry;
};

static int ctx_idx = -1, ssl_idx = -1;

static void free_cfg(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
    (void)parent, (void)ad, (void)idx, (void)argl, (void)argp;
    free(ptr);
}

static void ex_indexes(void)
{
    if (ctx_idx < 0)
        ctx_idx = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, free_cfg);
    if (ssl_idx < 0)
        ssl_idx = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

static const struct mtls_cfg *cfg_of(const SSL *ssl)
{
    return ctx_idx < 0 ? NULL : SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), ctx_idx);
}

/* The first refusal of a session's verification: enum sc_mtls_check + 1 (0: none). */
static void note_check(SSL *ssl, enum sc_mtls_check c)
{
    if (!SSL_get_ex_data(ssl, ssl_idx))
        SSL_set_ex_data(ssl, ssl_idx, (void *)(intptr_t)(c + 1));
}

/* OpenSSL's verdict on one certificate of the chain, turned into AWS's (libscaler decides). */
static int verify_cb(int ok, X509_STORE_CTX *xs)
{
    SSL *ssl = X509_STORE_CTX_get_ex_data(xs, SSL_get_ex_data_X509_STORE_CTX_idx());
    const struct mtls_cfg *cfg = ssl ? cfg_of(ssl) : NULL;
    enum sc_mtls_check c = SC_MTLS_OK;

    if (!cfg || cfg->mode != SC_MTLS_VERIFY)
        return 1; /* passthrough: "without verifying it" */
    if (ok) {
        X509 *x = X509_STORE_CTX_get_current_cert(xs);

        if (X509_STORE_CTX_get_error_depth(xs) == 0 && x && X509_get_version(x) == 0)
            c = SC_MTLS_TYPE_UNSUPPORTED;
    } else {
        switch (X509_STORE_CTX_get_error(xs)) {
        case X509_V_ERR_UNABLE_TO_GET_CRL:
            return 1; /* an issuer without a revocation list in the store: not checked */
        case X509_V_ERR_CERT_HAS_EXPIRED:
            c = SC_MTLS_EXPIRED;
            break;
        case X509_V_ERR_CERT_NOT_YET_VALID:
            c = SC_MTLS_NOT_YET_VALID;
            break;
        case X509_V_ERR_CERT_REVOKED:
            c = SC_MTLS_REVOKED;
            break;
        default:
            c = SC_MTLS_UNTRUSTED;
        }
    }
    if (sc_elbv2_mtls_admit(SC_MTLS_VERIFY, c, cfg->ignore_expiry, NULL))
        return 1;
    note_check(ssl, c);
    return 0;
}

static int load_trust(SSL_CTX *ctx, const struct lb_tls_opts *o, char *err, size_t errlen)
{
    X509_STORE *st = SSL_CTX_get_cert_store(ctx);
    STACK_OF(X509_NAME) *names = o->advertise_ca_names ? sk_X509_NAME_new_null() : NULL;
    BIO *bio = BIO_new_mem_buf(o->ca_pem ? o->ca_pem : "", o->ca_pem ? (int)o->ca_len : 0);
    X509 *x;
    int n = 0;

    while (bio && (x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        X509_STORE_add_cert(st, x);
        if (names) {
            X509_NAME *nm = X509_NAME_dup(X509_get_subject_name(x));

            if (nm)
                sk_X509_NAME_push(names, nm);
        }
        X509_free(x);
        n++;
    }
    BIO_free(bio);
    ERR_clear_error();
    if (names)
        SSL_CTX_set_client_CA_list(ctx, names); /* takes names */
    for (int i = 0; i < o->ncrl; i++) {
        FILE *f = fopen(o->crl_files[i], "r");
        X509_CRL *crl = f ? PEM_read_X509_CRL(f, NULL, NULL, NULL) : NULL;

        if (f)
            fclose(f);
        if (!crl) {
            snprintf(err, errlen, "cannot read the revocation list %s", o->crl_files[i]);
            ERR_clear_error();
            return -1;
        }
        X509_STORE_add_crl(st, crl);
        X509_CRL_free(crl);
    }
    if (o->ncrl > 0)
        X509_STORE_set_flags(st, X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL);
    if (n == 0) {
        snprintf(err, errlen, "the trust store's bundle holds no certificate");
        return -1;
    }
    return 0;
}

/* --- the certificate list: one context per certificate, chosen by SNI (docs/elbv2.md 10.6) -- */

/* What the default context of a listener with a certificate list holds: the other
 * certificates' contexts (made with the same mutual TLS) and every certificate as
 * sc_sni_choose sees it. Index 0 is the default context itself (not referenced: no cycle). */
struct sni_set {
    int n;
    SSL_CTX **ctx;
    struct sc_sni_cert *c;
    char ***names; /* c[i].names, owned */
};

static int sni_idx = -1;

static void sni_free(struct sni_set *set)
{
    if (!set)
        return;
    for (int i = 0; i < set->n; i++) {
        if (i > 0)
            SSL_CTX_free(set->ctx[i]);
        for (int k = 0; set->names && set->names[i] && k < set->c[i].nnames; k++)
            free(set->names[i][k]);
        if (set->names)
            free(set->names[i]);
    }
    free(set->ctx);
    free(set->c);
    free(set->names);
    free(set);
}

static void free_sni(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
    (void)parent, (void)ad, (void)idx, (void)argl, (void)argp;
    sni_free(ptr);
}

static int64_t asn1_unix(const ASN1_TIME *t);

/* Appends a copy of s[0..n) to names (at most cap); NUL bytes make it no name. */
static void add_name(char **names, int *nn, int cap, const unsigned char *s, int n)
{
    char *v;

    if (*nn >= cap || n <= 0 || memchr(s, 0, (size_t)n))
        return;
    v = malloc((size_t)n + 1);
    if (!v)
        return;
    memcpy(v, s, (size_t)n);
    v[n] = '\0';
    names[(*nn)++] = v;
}

#define SNI_NAMES_MAX 100

/* x as the choice sees it: its SAN DNS names (its CN when it has none), key, hash, validity. */
static int describe(X509 *x, struct sc_sni_cert *c, char ***names_out)
{
    GENERAL_NAMES *gens = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
    char **names = calloc(SNI_NAMES_MAX, sizeof(*names));
    EVP_PKEY *pk = X509_get0_pubkey(x);
    int nn = 0, md = NID_undef, pkn = NID_undef, id = pk ? EVP_PKEY_get_base_id(pk) : 0;

    if (!names) {
        GENERAL_NAMES_free(gens);
        return -1;
    }
    for (int i = 0; gens && i < sk_GENERAL_NAME_num(gens); i++) {
        const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);

        if (g->type == GEN_DNS)
            add_name(names, &nn, SNI_NAMES_MAX, ASN1_STRING_get0_data(g->d.dNSName),
                     ASN1_STRING_length(g->d.dNSName));
    }
    GENERAL_NAMES_free(gens);
    if (nn == 0) {
        const X509_NAME *sub = X509_get_subject_name(x);
        int at = X509_NAME_get_index_by_NID(sub, NID_commonName, -1);
        unsigned char *u = NULL;
        int un =
            at >= 0
                ? ASN1_STRING_to_UTF8(&u, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(sub, at)))
                : -1;

        if (un > 0)
            add_name(names, &nn, SNI_NAMES_MAX, u, un);
        OPENSSL_free(u);
    }
    memset(c, 0, sizeof(*c));
    c->names = (const char *const *)names;
    c->nnames = nn;
    c->key = id == EVP_PKEY_EC                              ? SC_SNI_KEY_ECDSA
             : id == EVP_PKEY_RSA || id == EVP_PKEY_RSA_PSS ? SC_SNI_KEY_RSA
                                                            : SC_SNI_KEY_OTHER;
    c->key_bits = pk ? EVP_PKEY_get_bits(pk) : 0;
    if (OBJ_find_sigid_algs(X509_get_signature_nid(x), &md, &pkn) != 1)
        md = NID_undef;
    c->hash = md == NID_md5 ? SC_SNI_HASH_MD5
              : md == NID_sha1 || md == NID_sha224 || md == NID_sha256 || md == NID_sha384 ||
                      md == NID_sha512
                  ? SC_SNI_HASH_SHA
                  : SC_SNI_HASH_OTHER;
    c->not_before_s = asn1_unix(X509_get0_notBefore(x));
    c->not_after_s = asn1_unix(X509_get0_notAfter(x));
    *names_out = names;
    ERR_clear_error();
    return 0;
}

/* The host_name of a server_name extension (RFC 6066 3) into host; "" when none. */
static void sni_host(const unsigned char *p, size_t len, char *host, size_t cap)
{
    size_t list, at = 2;

    host[0] = '\0';
    if (len < 2)
        return;
    list = (size_t)p[0] << 8 | p[1];
    if (list + 2 > len)
        return;
    while (at + 3 <= 2 + list) {
        unsigned type = p[at];
        size_t n = (size_t)p[at + 1] << 8 | p[at + 2];

        if (at + 3 + n > 2 + list)
            return;
        if (type == 0) {
            if (n == 0 || n >= cap || memchr(p + at + 3, 0, n))
                return;
            memcpy(host, p + at + 3, n);
            host[n] = '\0';
            return;
        }
        at += 3 + n;
    }
}

/* The key algorithms a signature_algorithms extension (RFC 8446 4.2.3; TLS 1.2's hash and
 * signature pairs read the same way) says the client verifies: enum sc_sni_key bits. */
static unsigned sigalg_keys(const unsigned char *p, size_t len)
{
    unsigned keys = 0;
    size_t n;

    if (len < 2)
        return 0;
    n = (size_t)p[0] << 8 | p[1];
    if (n + 2 > len)
        return 0;
    for (size_t i = 2; i + 1 < 2 + n; i += 2) {
        unsigned v = (unsigned)p[i] << 8 | p[i + 1];

        if ((v & 0xff) == 0x03 && v < 0x0800)
            keys |= SC_SNI_KEY_ECDSA; /* ecdsa_*_sha* */
        else if (((v & 0xff) == 0x01 && v < 0x0800) || (v >= 0x0804 && v <= 0x0806) ||
                 (v >= 0x0809 && v <= 0x080b))
            keys |= SC_SNI_KEY_RSA; /* rsa_pkcs1_*, rsa_pss_rsae_*, rsa_pss_pss_* */
        else
            keys |= SC_SNI_KEY_OTHER;
    }
    return keys;
}

/* At the client hello: the context of the certificate libscaler picks for its server name.
 * A second hello (after a HelloRetryRequest) finds a chosen context without a list. */
static int hello_cb(SSL *ssl, int *al, void *arg)
{
    const struct sni_set *set =
        sni_idx < 0 ? NULL : SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), sni_idx);
    const unsigned char *p;
    size_t len;
    char host[256] = "";
    unsigned keys = 0;
    int i;

    (void)al, (void)arg;
    if (!set)
        return SSL_CLIENT_HELLO_SUCCESS;
    if (SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_server_name, &p, &len) == 1)
        sni_host(p, len, host, sizeof(host));
    if (SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_signature_algorithms, &p, &len) == 1)
        keys = sigalg_keys(p, len);
    i = sc_sni_choose(host, set->c, set->n, keys, (int64_t)time(NULL));
    if (i > 0 && i < set->n)
        SSL_set_SSL_CTX(ssl, set->ctx[i]);
    return SSL_CLIENT_HELLO_SUCCESS;
}

/* ctx (the default certificate's, made from o) gets o's certificate list; -1 with err. */
static int sni_attach(SSL_CTX *ctx, const struct lb_tls_opts *o, char *err, size_t errlen)
{
    struct sni_set *set = calloc(1, sizeof(*set));
    int n = o->nmore + 1;

    if (!set || !(set->ctx = calloc((size_t)n, sizeof(*set->ctx))) ||
        !(set->c = calloc((size_t)n, sizeof(*set->c))) ||
        !(set->names = calloc((size_t)n, sizeof(*set->names)))) {
        sni_free(set);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    set->n = n;
    set->ctx[0] = ctx;
    for (int i = 0; i < n; i++) {
        if (i > 0) {
            struct lb_tls_opts one = *o;

            one.cert_file = o->more[i - 1].cert_file;
            one.key_file = o->more[i - 1].key_file;
            one.label = o->more[i - 1].label;
            one.more = NULL;
            one.nmore = 0;
            set->ctx[i] = lb_tls_ctx_create_opts(&one, err, errlen);
            if (!set->ctx[i]) {
                sni_free(set);
                return -1;
            }
        }
        if (describe(SSL_CTX_get0_certificate(set->ctx[i]), &set->c[i], &set->names[i]) < 0) {
            sni_free(set);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    if (sni_idx < 0)
        sni_idx = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, free_sni);
    if (sni_idx < 0 || SSL_CTX_set_ex_data(ctx, sni_idx, set) != 1) {
        sni_free(set);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    SSL_CTX_set_client_hello_cb(ctx, hello_cb, NULL);
    return 0;
}

struct ssl_ctx_st *lb_tls_ctx_create_opts(const struct lb_tls_opts *o, char *err, size_t errlen)
{
    SSL_CTX *ctx;
    struct mtls_cfg *cfg;
    static const unsigned char sid[] = "scalelab";

    if (o->cert_file || o->key_file) {
        ctx = lb_tls_ctx_create(o->cert_file, o->key_file, err, errlen);
    } else {
        ctx = SSL_CTX_new(TLS_server_method());
        if (ctx) {
            SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
            SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
                                      SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                                      SSL_MODE_RELEASE_BUFFERS);
            SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
            if (self_signed(ctx, o->label, err, errlen) < 0) {
                SSL_CTX_free(ctx);
                ctx = NULL;
            }
        } else {
            fail_msg(err, errlen, "cannot make a TLS context");
        }
    }
    if (!ctx)
        return NULL;
    ex_indexes();
    cfg = calloc(1, sizeof(*cfg));
    if (!cfg || SSL_CTX_set_ex_data(ctx, ctx_idx, cfg) != 1) {
        free(cfg);
        SSL_CTX_free(ctx);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    cfg->mode = o->mtls;
    cfg->ignore_expiry = o->ignore_expiry;
    /* resumed sessions keep their peer's certificate (a verify context needs an id) */
    SSL_CTX_set_session_id_context(ctx, sid, sizeof(sid) - 1);
    if (o->mtls == SC_MTLS_VERIFY) {
        if (load_trust(ctx, o, err, errlen) < 0) {
            SSL_CTX_free(ctx);
            return NULL;
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, verify_cb);
    } else if (o->mtls == SC_MTLS_PASSTHROUGH) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, verify_cb);
    }
    if (o->nmore > 0 && sni_attach(ctx, o, err, errlen) < 0) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

int lb_tls_mtls_mode(const struct ssl_st *ssl)
{
    const struct mtls_cfg *cfg = ssl ? cfg_of(ssl) : NULL;

    return cfg ? cfg->mode : SC_MTLS_OFF;
}

const char *lb_tls_verify_status(const struct ssl_st *ssl)
{
    const char *why = "-";
    intptr_t c;

    if (lb_tls_mtls_mode(ssl) != SC_MTLS_VERIFY)
        return why;
    c = (intptr_t)SSL_get_ex_data(ssl, ssl_idx);
    if (c == 0)
        c = SSL_get0_peer_certificate(ssl) ? SC_MTLS_UNTRUSTED + 1 : SC_MTLS_NO_CERT + 1;
    sc_elbv2_mtls_admit(SC_MTLS_VERIFY, (enum sc_mtls_check)(c - 1), 0, &why);
    return why;
}

/* Appends x's PEM to bio. */
static void pem_of(BIO *bio, X509 *x)
{
    if (x)
        PEM_write_bio_X509(bio, x);
}

static int64_t asn1_unix(const ASN1_TIME *t)
{
    struct tm tm;

    if (!t || ASN1_TIME_to_tm(t, &tm) != 1)
        return 0;
    return (int64_t)timegm(&tm);
}

long lb_tls_client_headers(struct ssl_st *ssl, char *out, size_t cap)
{
    int mode = lb_tls_mtls_mode(ssl);
    X509 *leaf = mode == SC_MTLS_OFF ? NULL : SSL_get0_peer_certificate(ssl);
    struct sc_mtls_client cl = { 0 };
    BIO *chain = NULL, *one = NULL, *is = NULL, *su = NULL;
    char serial[2 * 20 + 1] = "", *p;
    long n, len;
    static const char hex[] = "0123456789ABCDEF";

    if (cap)
        out[0] = '\0';
    if (!leaf)
        return 0;
    if (mode == SC_MTLS_PASSTHROUGH) {
        STACK_OF(X509) *sk = SSL_get_peer_cert_chain(ssl); /* server side: without the leaf */

        chain = BIO_new(BIO_s_mem());
        pem_of(chain, leaf);
        for (int i = 0; sk && i < sk_X509_num(sk); i++)
            pem_of(chain, sk_X509_value(sk, i));
        len = BIO_get_mem_data(chain, &p);
        cl.chain_pem = p;
        cl.chain_len = len > 0 ? (size_t)len : 0;
    } else {
        const ASN1_INTEGER *sn = X509_get0_serialNumber(leaf);
        int k = 0;

        for (int i = 0; sn && i < sn->length && i < 20; i++) {
            serial[k++] = hex[sn->data[i] >> 4];
            serial[k++] = hex[sn->data[i] & 15];
        }
        serial[k] = '\0';
        one = BIO_new(BIO_s_mem());
        pem_of(one, leaf);
        len = BIO_get_mem_data(one, &p);
        cl.leaf_pem = p;
        cl.leaf_len = len > 0 ? (size_t)len : 0;
        is = BIO_new(BIO_s_mem());
        su = BIO_new(BIO_s_mem());
        X509_NAME_print_ex(is, X509_get_issuer_name(leaf), 0, XN_FLAG_RFC2253);
        X509_NAME_print_ex(su, X509_get_subject_name(leaf), 0, XN_FLAG_RFC2253);
        BIO_write(is, "", 1);
        BIO_write(su, "", 1);
        BIO_get_mem_data(is, &p);
        cl.issuer = p;
        BIO_get_mem_data(su, &p);
        cl.subject = p;
        cl.serial_hex = serial;
        cl.not_before_s = asn1_unix(X509_get0_notBefore(leaf));
        cl.not_after_s = asn1_unix(X509_get0_notAfter(leaf));
    }
    n = sc_elbv2_mtls_headers((enum sc_mtls_mode)mode, &cl, out, cap);
    BIO_free(chain);
    BIO_free(one);
    BIO_free(is);
    BIO_free(su);
    return n;
}
