/* emulator/s3_object.c: see s3_object.h. */
#include "emulator/s3_object.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#define BUNDLE_MAX (1024 * 1024)      /* 25 certificates of 16 KB, PEM-encoded, and room */
#define CRL_MAX    (50 * 1024 * 1024) /* AWS's revocation list file size quota */

/* A bucket or key that stays inside the directory: no empty name, no "..", no leading
 * '/' (a bucket has no '/'). */
static int name_ok(const char *s, int is_bucket)
{
    const char *p = s;

    if (!s || !*s || *s == '/')
        return 0;
    if (is_bucket && strchr(s, '/'))
        return 0;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);

        if ((n == 2 && p[0] == '.' && p[1] == '.') || (n == 1 && p[0] == '.'))
            return 0;
        p += n;
        if (*p == '/')
            p++;
    }
    return 1;
}

/* The object's bytes (NUL-terminated, *len set) and its file:// location, or NULL. */
static char *read_object(const char *dir, const char *bucket, const char *key, size_t cap,
                         size_t *len, char **location)
{
    char path[PATH_MAX], real[PATH_MAX];
    char *buf = NULL;
    FILE *f = NULL;
    size_t n;

    *len = 0;
    *location = NULL;
    if (!dir || !name_ok(bucket, 1) || !name_ok(key, 0))
        return NULL;
    if (snprintf(path, sizeof(path), "%s/%s/%s", dir, bucket, key) >= (int)sizeof(path))
        return NULL;
    f = fopen(path, "rbe");
    if (!f)
        return NULL;
    buf = malloc(cap + 1);
    if (!buf)
        goto fail;
    n = fread(buf, 1, cap + 1, f);
    if (ferror(f) || n > cap)
        goto fail;
    fclose(f);
    buf[n] = '\0';
    *len = n;
    if (!realpath(path, real))
        snprintf(real, sizeof(real), "%s", path);
    *location = malloc(strlen(real) + 8);
    if (*location)
        sprintf(*location, "file://%s", real);
    return buf;

fail:
    free(buf);
    fclose(f);
    return NULL;
}

void s3_bundle_read(const char *s3_dir, const char *bucket, const char *key, struct s3_bundle *b)
{
    BIO *bio = NULL;
    size_t len;
    int ok = 1;

    memset(b, 0, sizeof(*b));
    b->v.certs = b->certs;
    b->data = read_object(s3_dir, bucket, key, BUNDLE_MAX, &len, &b->location);
    if (!b->data)
        return;
    b->v.found = 1;
    b->v.pem = b->data;
    b->v.pem_len = len;
    b->v.location = b->location;
    bio = BIO_new_mem_buf(b->data, (int)len);
    if (!bio)
        return;
    for (;;) {
        char *name = NULL, *header = NULL;
        unsigned char *der = NULL;
        const unsigned char *p;
        long dlen = 0;
        X509 *x;

        if (PEM_read_bio(bio, &name, &header, &der, &dlen) != 1) {
            /* the end (no further BEGIN line), or a block that does not decode */
            if (ERR_GET_REASON(ERR_peek_last_error()) != PEM_R_NO_START_LINE)
                ok = 0;
            ERR_clear_error();
            break;
        }
        p = der;
        x = strcmp(name, "CERTIFICATE") == 0 ? d2i_X509(NULL, &p, dlen) : NULL;
        if (!x || p != der + dlen || b->v.ncerts >= S3_OBJECT_MAX_CERTS) {
            ok = 0;
        } else {
            struct sc_elbv2_ca_cert *c = &b->certs[b->v.ncerts++];

            c->version = (int)X509_get_version(x) + 1;
            c->is_ca = X509_check_ca(x) == 1;
            c->der_len = (size_t)dlen;
            c->subject = X509_NAME_hash_ex(X509_get_subject_name(x), NULL, NULL, NULL);
        }
        X509_free(x);
        OPENSSL_free(name);
        OPENSSL_free(header);
        OPENSSL_free(der);
    }
    b->v.parsed = ok && b->v.ncerts > 0;
    BIO_free(bio);
}

void s3_bundle_free(struct s3_bundle *b)
{
    free(b->data);
    free(b->location);
    memset(b, 0, sizeof(*b));
}

void s3_crl_read(const char *s3_dir, const char *bucket, const char *key, struct s3_crl *c)
{
    BIO *bio;
    X509_CRL *crl;
    size_t len;
    char *data;

    memset(c, 0, sizeof(*c));
    data = read_object(s3_dir, bucket, key, CRL_MAX, &len, &c->location);
    if (!data)
        return;
    c->v.found = 1;
    c->v.location = c->location;
    bio = BIO_new_mem_buf(data, (int)len);
    crl = bio ? PEM_read_bio_X509_CRL(bio, NULL, NULL, NULL) : NULL;
    if (crl) {
        STACK_OF(X509_REVOKED) *rev = X509_CRL_get_REVOKED(crl);

        c->v.parsed = 1;
        c->v.issuer = X509_NAME_hash_ex(X509_CRL_get_issuer(crl), NULL, NULL, NULL);
        c->v.revoked = rev ? sk_X509_REVOKED_num(rev) : 0;
        X509_CRL_free(crl);
    }
    BIO_free(bio);
    free(data);
}

void s3_crl_free(struct s3_crl *c)
{
    free(c->location);
    memset(c, 0, sizeof(*c));
}
