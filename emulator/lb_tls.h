/* emulator/lb_tls.h: the server-side TLS context of HTTPS and SSL listeners (OpenSSL 3).
 *
 * Classic ELB terminates TLS at the load balancer with the certificate its listener names
 * (SSLCertificateId); the emulator has no IAM or ACM, so a listener presents a self-signed
 * certificate made for its id (EC P-256, CN and SAN localhost plus IP 127.0.0.1, OU the
 * id's label, valid 365 days; clients use curl -k or loadgen's default), or the PEM files
 * `--certificate` gives the id, or those given with --tls-cert/--tls-key for every id. ALB HTTPS
 * listeners' contexts also carry their mutual TLS (lb_tls_ctx_create_opts, docs/elbv2.md 14.1) and
 * their certificate list: a context per certificate, the one for the client's server name taken at
 * its client hello (SNI, docs/elbv2.md 10.6). `--certificate ARN=CERT,KEY` gives an ARN its own PEM
 * files (lb_tls_cert_for). TLS 1.2 and 1.3. The proxy (lb.c, lb_conn.c) does the handshakes and the
 * record I/O, non-blocking. */
#ifndef EMULATOR_LB_TLS_H
#define EMULATOR_LB_TLS_H

#include <stddef.h>

struct ssl_ctx_st; /* OpenSSL's SSL_CTX */

/* cert_file and key_file (PEM) both set, or both NULL for a self-signed certificate.
 * Returns a context (free with lb_tls_ctx_free), or NULL with a message in err. */
struct ssl_ctx_st *lb_tls_ctx_create(const char *cert_file, const char *key_file, char *err,
                                     size_t errlen);
void lb_tls_ctx_free(struct ssl_ctx_st *ctx); /* NULL is a no-op */

/* One certificate a listener presents: PEM files, both or neither; neither: a self-signed
 * certificate for localhost whose subject's OU is label (NULL: plain "scalelab"). */
struct lb_tls_cert {
    const char *cert_file, *key_file;
    const char *label;
};

/* `emulator --certificate ARN=CERT,KEY`: the PEM files behind one certificate ARN. */
struct lb_tls_cert_map {
    const char *arn, *cert_file, *key_file;
};

/* The certificate certificate id arn stands for: its map entry's files, else the global
 * pair (--tls-cert / --tls-key, both or neither), else a self-signed one labelled with the
 * id's last part (after its last '/'). out's strings are views into the arguments. */
void lb_tls_cert_for(const char *arn, const struct lb_tls_cert_map *map, int nmap,
                     const char *cert_file, const char *key_file, struct lb_tls_cert *out);

/* Loads cert_file (a PEM chain) and key_file and checks the key is the certificate's: 0, or
 * -1 with a message naming the file at fault in err. */
int lb_tls_check_pair(const char *cert_file, const char *key_file, char *err, size_t errlen);

/* One listener's context: its server certificate and its mutual TLS (docs/elbv2.md 14.1). */
struct lb_tls_opts {
    const char *cert_file, *key_file; /* PEM, both or neither (--tls-cert / --tls-key) */
    /* neither file: a self-signed certificate for localhost whose subject's OU is this
     * label (the listener's certificate id: the certificate served changes with it), or
     * plain "scalelab" when NULL */
    const char *label;
    int mtls;           /* enum sc_mtls_mode (scaler/elbv2_mtls.h) */
    const char *ca_pem; /* verify: the trust store's CA bundle (PEM) */
    size_t ca_len;
    const char *const *crl_files; /* verify: its revocation lists (PEM files) */
    int ncrl;
    int ignore_expiry;      /* IgnoreClientCertificateExpiry */
    int advertise_ca_names; /* AdvertiseTrustStoreCaNames on */
    /* the listener's certificate list beside the default above (AddListenerCertificates):
     * each handshake presents the one sc_sni_choose picks for the client's server name
     * (docs/elbv2.md 10.6), with the same mutual TLS */
    const struct lb_tls_cert *more;
    int nmore;
};
struct ssl_ctx_st *lb_tls_ctx_create_opts(const struct lb_tls_opts *o, char *err, size_t errlen);

struct ssl_st; /* OpenSSL's SSL */
/* The enum sc_mtls_mode of the context an SSL session was made from (0: off). */
int lb_tls_mtls_mode(const struct ssl_st *ssl);
/* After a handshake: the X-Amzn-Mtls-Clientcert* header lines the session's mode gives the
 * target, into out (NUL-terminated); 0 when none, -1 when they do not fit in cap. */
long lb_tls_client_headers(struct ssl_st *ssl, char *out, size_t cap);
/* After a failed handshake on a verify-mode context: the connection log's tls_verify_status
 * ("Failed:ClientCertUntrusted", ...); "-" on other contexts. */
const char *lb_tls_verify_status(const struct ssl_st *ssl);

#endif
