/* emulator/lb_tls.h: the server-side TLS context of HTTPS and SSL listeners (OpenSSL 3).
 *
 * Classic ELB terminates TLS at the load balancer with the certificate its listener names
 * (SSLCertificateId); the emulator has no IAM or ACM, so every HTTPS/SSL listener presents
 * one certificate: a self-signed one made at start (EC P-256, CN and SAN localhost plus
 * IP 127.0.0.1, valid 365 days; clients use curl -k or loadgen's default), or the PEM
 * files given with --tls-cert/--tls-key. TLS 1.2 and 1.3. The proxy (lb.c, lb_conn.c) does the
 * handshakes and the record I/O, non-blocking. */
#ifndef EMULATOR_LB_TLS_H
#define EMULATOR_LB_TLS_H

#include <stddef.h>

struct ssl_ctx_st; /* OpenSSL's SSL_CTX */

/* cert_file and key_file (PEM) both set, or both NULL for a self-signed certificate.
 * Returns a context (free with lb_tls_ctx_free), or NULL with a message in err. */
struct ssl_ctx_st *lb_tls_ctx_create(const char *cert_file, const char *key_file, char *err,
                                     size_t errlen);
void lb_tls_ctx_free(struct ssl_ctx_st *ctx); /* NULL is a no-op */

#endif
