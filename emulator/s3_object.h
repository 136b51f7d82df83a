/* emulator/s3_object.h: the emulator's stand-in for the S3 objects ELBv2 trust stores read
 * (docs/elbv2.md 14). There is no S3 here: object (bucket, key) is the file
 * DIR/bucket/key under the --s3-dir directory (no such option: no object exists). A
 * bundle or revocation list is read and parsed with OpenSSL into the description
 * libscaler's rules take (scaler/elbv2_trust.h); the rules are libscaler's. */
#ifndef EMULATOR_S3_OBJECT_H
#define EMULATOR_S3_OBJECT_H

#include <stddef.h>

#include "scaler/elbv2_trust.h"

#define S3_OBJECT_MAX_CERTS 64

/* A bundle read; s3_bundle_read fills b (b->v points into it). Free with s3_bundle_free. */
struct s3_bundle {
    struct sc_elbv2_bundle v;
    struct sc_elbv2_ca_cert certs[S3_OBJECT_MAX_CERTS];
    char *data;
    char *location;
};

/* Reads DIR/bucket/key (s3_dir NULL, a bucket or key that leaves DIR, a missing or
 * unreadable file: v.found 0) and parses it: v.parsed when it is PEM CERTIFICATE blocks
 * only, each a DER X.509 certificate. Never fails otherwise. */
void s3_bundle_read(const char *s3_dir, const char *bucket, const char *key, struct s3_bundle *b);
void s3_bundle_free(struct s3_bundle *b);

/* A revocation list read: v.parsed when the object is one PEM X509 CRL. */
struct s3_crl {
    struct sc_elbv2_crl v;
    char *location;
};
void s3_crl_read(const char *s3_dir, const char *bucket, const char *key, struct s3_crl *c);
void s3_crl_free(struct s3_crl *c);

#endif
