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
    char signed_headers[1024];
    char signature[80];
    int has_credential, has_signed_headers, has_signature;
};

/* Parses "AWS4-HMAC-SHA256 Credential=AKID/DATE/REGION/SERVICE/aws4_request,
 * SignedHeaders=a;b, Signature=hex". Returns 0 when it is a SigV4 header (fields it
 * lacks are flagged has_* = 0), -1 when it is not one at all. */
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
};

/* Verifies a request's SigV4 Authorization header. wall_ms is the real wall clock
 * (skew over 15 minutes is RequestExpired). Returns 0, or -1 with err set to AWS's
 * MissingAuthenticationToken (403), IncompleteSignature (400), InvalidClientTokenId
 * (403), RequestExpired (400) or SignatureDoesNotMatch (403). */
int auth_verify(const struct auth_keys *keys, const struct auth_request *rq, int64_t wall_ms,
                struct awserr *err);

#endif
