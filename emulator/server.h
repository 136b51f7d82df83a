/* emulator/server.h: the emulator's HTTP front: libmicrohttpd in external-epoll mode on
 * the common/ev loop. Each request's work is emulator/dispatch.c's (from memory, so tests
 * and fuzzers drive it without sockets); the clock and the worlds are emulator/emu.c's;
 * with --state the state file is emulator/persist.c's, and a reply that changed state is
 * held (the connection suspended) until its change is durable. Single-threaded:
 * everything runs on the loop's thread. */
#ifndef EMULATOR_SERVER_H
#define EMULATOR_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "common/ev.h"
#include "emulator/dispatch.h"

#define SRV_DEFAULT_MAX_BODY        DISPATCH_DEFAULT_MAX_BODY
#define SRV_DEFAULT_MAX_CONNECTIONS 1000

struct lb_tls_cert_map;

struct srv_config {
    const char *bind;    /* "127.0.0.1" */
    int port;            /* 4566; 0 = any free port */
    const char *region;  /* default region: "us-east-1" */
    const char *account; /* "123456789012" */
    double time_scale;   /* emulated ms per real ms; 1 = real time */
    int clock_manual;    /* 1: time moves only through the admin API */
    int64_t start_ms;    /* manual clock start (epoch ms); 0 = the wall clock at start */
    const char *state_file;
    int auth_sigv4;            /* 1: verify signatures */
    const char *credentials;   /* keys file for auth_sigv4 (env keys are added) */
    const char *console_token; /* with auth_sigv4: the console's (dispatch.h); NULL: none */
    const char *s3_dir;        /* S3 objects ELBv2 reads: DIR/bucket/key (NULL: none) */
    size_t max_body;           /* request bodies over this answer 413 */
    int quiet;                 /* no per-request log line */
    size_t event_buffer;       /* each event stream client's buffer; 0: EVENTS_SUB_MAX_BYTES */
    const char *tls_cert;      /* HTTPS/SSL listeners' PEM certificate and key (both or */
    const char *tls_key;       /* neither: NULL = self-signed, emulator/lb_tls.h) */
    /* --certificate: the PEM files behind certificate ARNs (checked at start; borrowed) */
    const struct lb_tls_cert_map *cert_map;
    int ncert_map;
    int max_metric_series;      /* per world (sc_world_config); 0 = libscaler's 100,000 */
    int max_vcpus;              /* per account and Region (sc_world_config); 0 = no limit */
    int max_instances;          /* every world's together (emu_config); 0 = no such bound */
    double launch_rate;         /* instance processes started per second; 0 = the default */
    const char *notify_webhook; /* Auto Scaling notifications POSTed here (webhook.h), or NULL */
    int max_connections;        /* API connections at once (docs/dataplane.md); 0 = 1000 */
    /* AWS requests a second and burst per client address and per account and Region
     * (emulator/ratelimit.h); rate 0 = off, burst 0 = twice the rate */
    double client_rate, client_burst;
    double account_rate, account_burst;
};

void srv_config_defaults(struct srv_config *cfg);

struct srv;

/* Creates the server state (the clock, the worlds, --state loaded); with ev non-NULL
 * also starts MHD on cfg's address, registers it with the loop and starts the data plane
 * (emu_start). Returns NULL with err filled on failure. */
struct srv *srv_create(const struct srv_config *cfg, struct cm_ev *ev, char *err, size_t errlen);
void srv_destroy(struct srv *s); /* NULL is a no-op */
/* The bound port (after --port 0), or 0 without a listener. */
int srv_port(const struct srv *s);

#endif
