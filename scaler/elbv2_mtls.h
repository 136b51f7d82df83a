/* scaler/elbv2_mtls.h: mutual TLS on an Application Load Balancer's HTTPS listener in the
 * data plane (docs/elbv2.md 14.1): which handshakes a mode admits, the connection log's
 * tls_verify_status, and the X-Amzn-Mtls-Clientcert* headers a target gets. The caller
 * (the emulator, with OpenSSL) verifies certificates and describes the result; the rules
 * are here. No allocation. */
#ifndef SCALER_ELBV2_MTLS_H
#define SCALER_ELBV2_MTLS_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/elbv2.h"

enum sc_mtls_mode {
    SC_MTLS_OFF,
    SC_MTLS_PASSTHROUGH,
    SC_MTLS_VERIFY,
};

/* What the verification of a client's chain found (the caller's verifier). */
enum sc_mtls_check {
    SC_MTLS_OK,
    SC_MTLS_NO_CERT,          /* the client sent none */
    SC_MTLS_UNTRUSTED,        /* no chain to a CA of the trust store (or a bad signature) */
    SC_MTLS_EXPIRED,          /* a certificate of the chain past its notAfter */
    SC_MTLS_NOT_YET_VALID,    /* before its notBefore */
    SC_MTLS_REVOKED,          /* on one of the trust store's revocation lists */
    SC_MTLS_TYPE_UNSUPPORTED, /* an X.509v1 leaf */
};

/* The listener's mode (its MutualAuthentication; NULL or an unknown mode: off). */
enum sc_mtls_mode sc_elbv2_mtls_mode(const struct sc_elbv2_listener *li);

/* 1 when a handshake with this result is admitted in mode (off and passthrough admit
 * everything; verify only OK, and EXPIRED with ignore_expiry); *reason (optional) the
 * connection log's tls_verify_status ("Success", "Failed:ClientCertExpired", ...; "-" for
 * off). */
int sc_elbv2_mtls_admit(enum sc_mtls_mode mode, enum sc_mtls_check check, int ignore_expiry,
                        const char **reason);

/* URL-encodes s[0..n) into out (NUL-terminated): every byte but A-Za-z0-9 - _ . ~ and the
 * safe + = / as %XX (upper-case hex). Returns the length, or -1 when cap is too small. */
long sc_elbv2_mtls_urlencode(const char *s, size_t n, char *out, size_t cap);

/* The client certificate as the caller read it. */
struct sc_mtls_client {
    const char *chain_pem; /* passthrough: the chain the client sent, leaf first */
    size_t chain_len;
    const char *leaf_pem; /* verify: the leaf */
    size_t leaf_len;
    const char *serial_hex; /* the leaf's serial, DER bytes as upper-case hex */
    const char *issuer;     /* RFC 2253 */
    const char *subject;
    int64_t not_before_s, not_after_s; /* Unix seconds */
};

/* The header lines (each ending in CRLF) the target gets in mode, into out (NUL-terminated):
 * passthrough X-Amzn-Mtls-Clientcert (none without a certificate); verify -Serial-Number,
 * -Issuer, -Subject, -Validity, -Leaf; off nothing. Returns the length, or -1 when cap is
 * too small (out then holds ""). c NULL: no certificate. */
long sc_elbv2_mtls_headers(enum sc_mtls_mode mode, const struct sc_mtls_client *c, char *out,
                           size_t cap);

/* The headers the load balancer sets begin with this (any case): a client's own are dropped
 * on mTLS listeners. */
#define SC_ELBV2_MTLS_HEADER_PREFIX "X-Amzn-Mtls-Clientcert"
int sc_elbv2_mtls_reserved_header(const char *name, size_t n);

#endif
