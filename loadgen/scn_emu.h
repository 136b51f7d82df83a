/* loadgen/scn_emu.h: the emulator `loadgen scenario` runs against: starting its own (the
 * `emulator` binary next to loadgen, or $SCALELAB_EMULATOR) on an ephemeral port and
 * stopping it by PID, and the emulator's admin API (/_scalelab/...) over HTTP.
 *
 * Ownership: a struct scn_emu is the caller's storage; scn_emu_stop() releases what
 * scn_emu_start() made (the process, its temporary folder). */
#ifndef LOADGEN_SCN_EMU_H
#define LOADGEN_SCN_EMU_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/buf.h"

struct scn_emu {
    pid_t pid;     /* -1 when none was started */
    char url[128]; /* http://127.0.0.1:PORT */
    char dir[256]; /* temporary folder: port file and emulator.log */
    char log[300]; /* dir/emulator.log */
};

/* Path of the emulator binary: $SCALELAB_EMULATOR, else "emulator" in loadgen's own
 * folder (/proc/self/exe). Returns 0, or -1 with err. */
int scn_emu_find(char *out, size_t n, char *err, size_t errlen);

/* Starts `bin --port 0 --port-file DIR/port --time-scale scale --quiet` in its own
 * process group (so a terminal's Ctrl-C reaches only loadgen, which tears down first),
 * stderr to DIR/emulator.log; with die_with_parent it gets SIGTERM if loadgen dies.
 * Waits up to 10 s for the port file and GET /_scalelab/health, failing at once if the
 * process exits. Returns 0, or -1 with err (the process is then stopped). */
int scn_emu_start(struct scn_emu *e, const char *bin, double scale, int die_with_parent, char *err,
                  size_t errlen);
/* SIGTERM, wait up to 5 s, then SIGKILL; reaps it; removes the folder unless keep_dir.
 * No-op when none runs. */
void scn_emu_stop(struct scn_emu *e, int keep_dir);

/* One HTTP request to url (GET when body is NULL, else POST of body as JSON), the reply
 * body into out (capped). Returns the HTTP status, or -1 with err on a transport error.
 * timeout_ms bounds the whole request. With AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY
 * set (and AWS_SESSION_TOKEN) it is SigV4-signed for the signing name "scalelab" in
 * AWS_REGION / AWS_DEFAULT_REGION (us-east-1), as an emulator under --auth sigv4 wants
 * its admin API (docs/auth.md); one under --auth none ignores the signature. */
int scn_http(const char *url, const char *body, struct cm_buf *out, long timeout_ms, char *err,
             size_t errlen);

/* Signs the curl easy handle's request as scn_http does when the environment holds keys
 * (CURLOPT_AWS_SIGV4 for "scalelab"; a session token's header appended to *hdr, which the
 * caller sets and frees). Returns 1 when it signs, 0 when no keys are set. */
struct curl_slist;
int scn_http_auth(void *curl, struct curl_slist **hdr);

/* GET base/_scalelab/clock: the emulated epoch ms and the time scale. Returns 0, or -1
 * when base does not answer it as a scalelab emulator (err says why). */
int scn_emu_clock(const char *base, int64_t *now_ms, double *time_scale, char *err, size_t errlen);

/* One stall of the emulator's loop, as GET /_scalelab/health "loop" lists it. */
struct scn_emu_stall {
    uint64_t seq;
    int64_t at_ms;  /* emulated epoch ms */
    double late_ms; /* real */
};
/* GET base/_scalelab/health's "loop" (docs/admin-api.md): the recent stalls with seq >=
 * since into out (at most max, oldest first) and in *total how many the emulator has
 * counted in all. Returns how many it filled, or -1 (err) when the emulator does not
 * say (unreachable, an older build, a manual clock). */
int scn_emu_loop_stalls(const char *base, uint64_t since, struct scn_emu_stall *out, int max,
                        uint64_t *total, char *err, size_t errlen);

#endif
