/* scaler/elbv2_sni.h: which server certificate an HTTPS (ALB) or TLS (NLB) listener presents
 * to a client, by the server name the client sent (SNI) among the listener's default
 * certificate and its certificate list (docs/elbv2.md 10.6). The caller (the emulator, with
 * OpenSSL) describes each certificate and the client; the rule is here. No allocation. */
#ifndef SCALER_ELBV2_SNI_H
#define SCALER_ELBV2_SNI_H

#include <stdint.h>

/* A certificate's public key algorithm (bits: a client's accepted algorithms are a mask). */
enum sc_sni_key {
    SC_SNI_KEY_OTHER = 1,
    SC_SNI_KEY_RSA = 2,
    SC_SNI_KEY_ECDSA = 4,
};

/* The hash of the certificate's signature. */
enum sc_sni_hash {
    SC_SNI_HASH_OTHER,
    SC_SNI_HASH_MD5,
    SC_SNI_HASH_SHA, /* SHA-1 or SHA-2 */
};

/* One certificate as the choice sees it. */
struct sc_sni_cert {
    /* the names it is for: its subjectAltName DNS names, or its subject CN when it has none;
     * "*.example.com" covers one label */
    const char *const *names;
    int nnames;
    enum sc_sni_key key;
    enum sc_sni_hash hash;
    int key_bits;
    int64_t not_before_s, not_after_s; /* Unix seconds */
};

/* 1 when a certificate for name covers host: equal ignoring ASCII case, or name is
 * "*.REST" and host is one label (not empty) followed by ".REST". A trailing dot of host
 * is ignored. */
int sc_sni_name_matches(const char *name, const char *host);

/* 1 when one of c's names covers host. */
int sc_sni_cert_matches(const struct sc_sni_cert *c, const char *host);

/* The index in certs of the certificate to present: certs[0] is the listener's default
 * certificate, certs[1..n-1] its certificate list. host: the client's server name (NULL or
 * "" when it sent none); client_keys: the mask of enum sc_sni_key the client can verify
 * (from its signature algorithms; 0: unknown, all); now_s: the handshake's time.
 * No server name, or none of the list covers it: 0. One covers it: that one. Several: the
 * best the client supports (ECDSA over RSA, SHA over MD5, the larger key, valid at now_s,
 * the later notAfter; then the list's order). */
int sc_sni_choose(const char *host, const struct sc_sni_cert *certs, int n, unsigned client_keys,
                  int64_t now_s);

#endif
