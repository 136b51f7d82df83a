/* emulator/auth.h: the Authorization header's credential scope (which routes requests
 * and picks the region) and, with --auth sigv4, signature verification through
 * common/sigv4 with AWS's errors. */
#ifndef EMULATOR_AUTH_H
#define EMULATOR_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "common/sigv4.h"
#include "emulator/awserr.h"

struct auth_scope {
    char akid[128];
    char date[16]; /* yyyymmdd */
    char region[64];
    char service[64];
    char signed_headers[8192];
    char signature[80]; /* longer values are cut here and flagged signature_too_long */
    int has_credential, has_signed_headers, has_signature;
    int signature_too_long;
};

/* Parses "AWS4-HMAC-SHA256 Credential=AKID/DATE/REGION/SERVICE/aws4_request,
 * SignedHeaders=a;b, Signature=hex" (components separated by ',' and optional spaces, in
 * any order). Returns 0 when it is a SigV4 header, the algorithm followed by a space or
 * nothing (a field that is missing, given twice, empty, or longer than its buffer is
 * flagged has_* = 0; a Credential needs exactly five non-empty '/' parts ending in
 * aws4_request), -1 when it is not one at all. Reads a, NUL-terminated, never past it. */
int auth_parse(const char *authorization, struct auth_scope *out);

struct auth_keys; /* access key id -> secret */

/* Loads keys from a file of "AKID SECRET" or "AKID:SECRET" lines ('#' comments) when
 * path is non-NULL, plus AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY from the environment.
 * Returns NULL with err filled when the file cannot be read or holds no key. */
struct auth_keys *auth_keys_load(const char *path, char *err, size_t errlen);
void auth_keys_destroy(struct auth_keys *k);
/* The secret of akid, borrowed, or NULL. */
const char *auth_keys_find(const struct auth_keys *k, const char *akid);

struct auth_request {
    const char *method;
    const char *path;  /* raw path as sent */
    const char *query; /* raw query string, "" when none */
    const struct cm_sigv4_header *hdrs;
    int nhdrs;
    const void *body;
    size_t body_len;
    const char *service; /* the endpoint's signing name ("monitoring"); NULL: not checked */
    const char *region;  /* a region served besides AWS's own (--region); NULL: none */
};

/* Verifies a request's SigV4 Authorization header as AWS's query and JSON services do.
 * wall_ms is the real wall clock (skew over 15 minutes is RequestExpired). The credential
 * scope's region must be an AWS region or rq->region, its service rq->service; `host`
 * must be among the signed headers; the payload hash is always SHA-256 of the body as
 * received (x-amz-content-sha256, UNSIGNED-PAYLOAD included, is only a header: S3 alone
 * honours it); the signature is compared in constant time. Returns 0, or -1 with err set
 * to AWS's MissingAuthenticationToken (403), IncompleteSignature (400),
 * InvalidClientTokenId (403), RequestExpired (400) or SignatureDoesNotMatch (403: a bad
 * signature, a scope of another date, region or service, `host` not signed). */
int auth_verify(const struct auth_keys *keys, const struct auth_request *rq, int64_t wall_ms,
                struct awserr *err);

#endif
