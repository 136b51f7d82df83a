/* emulator/instance_main.h: `emulator instance ...`, the program every emulated EC2
 * instance runs (a child of the emulator; see instance.h for the parent's side).
 *
 *   emulator instance [--port 0] [--port-file F] [--ready-fd N] [--profile JSON]
 *                     [--boot-ms MS] [--parent-pid PID] [--id ID] [--log-level L]
 *
 * It sleeps its boot time (--boot-ms, else the profile's boot_s) without listening, then
 * binds 127.0.0.1:--port (0 = any), writes the port to --port-file (tmp + rename) and as
 * "PORT\n" to --ready-fd, and serves HTTP/1.1 with keep-alive on one epoll loop:
 *   /                      small text body ("ok")
 *   /health, health_path   200 "ok" (500 while the fail-health fault is on); not queued
 *   /cpu                   burns real CPU for the service time (one core: blocks the loop)
 *   POST with an XML body, or /soap, /services/...: the SOAP adder (260-byte reply)
 *   /_instance/status      JSON: modelled CPU (busy_ms, uptime_ms, cpu_pct), real process
 *                          CPU (cpu_time_ms), requests, errors, rejected, in_flight, queued
 *   /_instance/fault?slow=K&fail_health=0|1&error_rate=P   changes behaviour at run time
 *                          (K 0..1000, P 0..1, decimal; any other key or value, nan, inf:
 *                          400 {"error": "..."} and nothing changes; else the status)
 *   /_instance/echo        the request head as received (text/plain)
 * Other paths are served like `/`. Requests beyond `workers` queue (FIFO, `queue_limit` long),
 * then get 503. With --parent-pid it sets PR_SET_PDEATHSIG(SIGKILL) and exits at once if
 * the parent is already gone. SIGTERM/SIGINT end it with status 0. Every JSON answer is
 * built with Jansson, so it is valid whatever the id or the faults. */
#ifndef EMULATOR_INSTANCE_MAIN_H
#define EMULATOR_INSTANCE_MAIN_H

#include <stddef.h>

/* The run-time faults of /_instance/fault. */
struct instance_fault {
    double slow;       /* service-time factor, 0..1000 */
    double error_rate; /* share of requests answered 500, 0..1 */
    int fail_health;   /* 1: the health path answers 500 */
};

/* Reads a fault query "slow=K&error_rate=P&fail_health=0|1" (q[0..len), raw, pairs in
 * any order, each at most once in effect) over *f: 0 with *f updated, or -1 with msg
 * naming the key or value refused (K 0..1000, P 0..1, plain decimals: no nan, inf, hex or
 * empty) and *f unchanged. The one rule for the instance and the admin API's check. */
int instance_fault_parse(const char *q, size_t len, struct instance_fault *f, char *msg,
                         size_t msglen);

/* argv[0] is "instance". Returns the process exit status (0, 1 runtime, 2 usage). */
int instance_main(int argc, char **argv);

#endif
