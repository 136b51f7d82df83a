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

struct sc_ec2;
struct sc_world;
struct state;

#define SRV_DEFAULT_MAX_BODY DISPATCH_DEFAULT_MAX_BODY

struct srv_config {
    const char *bind;    /* "127.0.0.1" */
    int port;            /* 4566; 0 = any free port */
    const char *region;  /* default region: "us-east-1" */
    const char *account; /* "123456789012" */
    double time_scale;   /* emulated ms per real ms; 1 = real time */
    int clock_manual;    /* 1: time moves only through the admin API */
    int64_t start_ms;    /* manual clock start (epoch ms); 0 = the wall clock at start */
    const char *state_file;
    int auth_sigv4;          /* 1: verify signatures */
    const char *credentials; /* keys file for auth_sigv4 (env keys are added) */
    size_t max_body;         /* request bodies over this answer 413 */
    int quiet;               /* no per-request log line */
    const char *tls_cert;    /* HTTPS/SSL listeners' PEM certificate and key (both or */
    const char *tls_key;     /* neither: NULL = self-signed, emulator/lb_tls.h) */
};

void srv_config_defaults(struct srv_config *cfg);

struct srv;

/* Creates the server state; with ev non-NULL also starts MHD on cfg's address and
 * registers it with the loop. Returns NULL with err filled on failure. */
struct srv *srv_create(const struct srv_config *cfg, struct cm_ev *ev, char *err, size_t errlen);
void srv_destroy(struct srv *s); /* NULL is a no-op */
/* The bound port (after --port 0), or 0 without a listener. */
int srv_port(const struct srv *s);

/* The emulated clock (epoch ms): real time times --time-scale, or the manual clock. */
int64_t srv_now_ms(const struct srv *s);
int srv_clock_is_manual(const struct srv *s);
double srv_time_scale(const struct srv *s);
/* Moves the manual clock forward by ms (>= 0). Returns 0, or -1 on a real clock. */
int srv_clock_advance(struct srv *s, int64_t ms);
/* Drops every account's state (admin reset). */
void srv_reset(struct srv *s);
/* The world (scaler/world.h) of account+region, created on first use (NULL when the
 * region name is malformed or 32 regions exist already). Borrowed until
 * srv_reset()/srv_destroy(). */
struct sc_world *srv_world(struct srv *s, const char *account, const char *region);
/* Runs the control-plane data plane after a mutating call and on the loop's timer:
 * until instances are processes, pending instances come up at once and shutting-down /
 * stopping ones finish (the level-triggered contract of scaler/world.h). */
void srv_step(struct srv *s);
/* The real data plane (emulator/autoscale.h), or NULL (records only, no ev loop). */
struct autoscale *srv_autoscale(struct srv *s);
/* The state file's writer (emulator/state.h), or NULL without --state. A second durable
 * writer (the metric journal) registers itself on it with state_add_writer(). */
struct state *srv_state(struct srv *s);
/* The whole state as JSON (GET /_scalelab/state; the --state snapshot): {"version":1,
 * "saved_at", "now_ms" (the emulated clock), "clock", "worlds": [sc_world_save of each
 * account+region]}. A new reference, NULL on OOM. */
struct json_t *srv_state_json(struct srv *s);

#endif
