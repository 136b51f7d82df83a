/* common/sigv4.h: AWS Signature Version 4, the one implementation both the emulator's
 * verifier and loadgen's signer use, so the two are byte-identical.
 *
 * Steps
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html):
 * canonical request -> string to sign -> signing key (HMAC chain) -> signature.
 * Pure functions: no clock, no I/O; outputs are appended to caller buffers. */
#ifndef COMMON_SIGV4_H
#define COMMON_SIGV4_H

#include <stddef.h>

#include "common/buf.h"

#define CM_SIGV4_HEX_LEN 65 /* 64 hex digits + NUL */

struct cm_sigv4_header {
    const char *name; /* any case */
    const char *value;
};

/* Appends the canonical URI of a request path as sent on the wire (before '?'):
 * dot segments removed, repeated slashes merged, each byte outside A-Za-z0-9-_.~/
 * percent-encoded (so an encoded path is encoded again, as AWS does for every service
 * but S3). "" becomes "/". */
void cm_sigv4_canonical_uri(struct cm_buf *out, const char *path, size_t n);
/* Appends the canonical query string of a raw query string (after '?', may be ""):
 * each name and value percent-decoded, re-encoded (RFC 3986 unreserved kept, '+' kept
 * literal and so encoded %2B), pairs sorted by name then value, joined with '&'. */
void cm_sigv4_canonical_query(struct cm_buf *out, const char *query);
/* Appends the canonical request:
 *   METHOD\nURI\nQUERY\nname:value\n...\n\nSIGNED_HEADERS\nPAYLOAD_HASH
 * signed_headers is the lower-case ';'-joined list as in the Authorization header; each
 * named header's values (all of hdrs whose name matches, case-insensitively, joined by
 * ',' in their order in hdrs) are trimmed with inner runs of spaces collapsed. Any number
 * of headers: they are looked up through a sorted index, O((n + m) log n) for n headers
 * and m signed names. Returns 0, or -1 when a signed header is missing from hdrs. */
int cm_sigv4_canonical_request(struct cm_buf *out, const char *method, const char *path,
                               const char *query, const struct cm_sigv4_header *hdrs, int nhdrs,
                               const char *signed_headers, const char *payload_hash_hex);
/* out = lower-case hex of SHA-256(p[0..n)). */
void cm_sigv4_sha256_hex(const void *p, size_t n, char out[CM_SIGV4_HEX_LEN]);
/* Appends "AWS4-HMAC-SHA256\n<amz_date>\n<scope>\n<hex sha256(canonical_request)>". */
void cm_sigv4_string_to_sign(struct cm_buf *out, const char *amz_date, const char *scope,
                             const char *canonical_request, size_t creq_len);
/* key = HMAC chain "AWS4"+secret -> date8 (yyyymmdd) -> region -> service -> "aws4_request". */
void cm_sigv4_signing_key(const char *secret, const char *date8, const char *region,
                          const char *service, unsigned char key[32]);
/* out = hex(HMAC-SHA256(key, string_to_sign)). */
void cm_sigv4_signature(const unsigned char key[32], const char *sts, size_t sts_len,
                        char out[CM_SIGV4_HEX_LEN]);

/* Whether s is an X-Amz-Date, "yyyymmddThhmmssZ" exactly (digits where digits go; the
 * calendar is not checked). Reads s no further than its NUL. */
int cm_sigv4_amz_date_ok(const char *s);
/* Whether the signature given (hex, from a request) equals the one computed, in time that
 * depends only on their lengths: a verifier's comparison leaks nothing of the expected
 * digits. Both are NUL-terminated; 0 when either is longer than 64 digits. */
int cm_sigv4_signature_equal(const char *given, const char *computed);

/* Signs a whole request: computes the Authorization header value into auth (NUL
 * terminated, at most n bytes) for the given headers (which must include host and
 * x-amz-date; every header given is signed). amz_date is "yyyymmddThhmmssZ".
 * Returns 0, or -1 when auth is too small or a header is malformed. */
int cm_sigv4_sign(const char *method, const char *path, const char *query,
                  const struct cm_sigv4_header *hdrs, int nhdrs, const void *body, size_t body_len,
                  const char *akid, const char *secret, const char *region, const char *service,
                  const char *amz_date, char *auth, size_t n);

#endif
