/* emulator/autoscale.h: the emulator's real world around libscaler (scaler/world.h's
 * level-triggered data plane). After each sc_world_step its owner (emu_step(),
 * emulator/emu.h) calls autoscale_step(), which makes processes and proxies match the records:
 *   - EC2 `pending` instances get a child process (instance.c) with the application
 *     profile from their UserData (JSON, or base64 of JSON; else the default profile) and
 *     the boot time divided by --time-scale; once it listens: sc_ec2_instance_running and
 *     a `scalelab:port` tag (with --clock manual: once the emulated clock passes launch +
 *     boot_s); `shutting-down`/`stopping` ones get SIGTERM and, once reaped,
 *     sc_ec2_instance_terminated/_stopped; a process that died on its own:
 *     sc_ec2_instance_lost; a hung one (fault): status impaired.
 *   - each classic ELB listener is a proxy (lb.c) on 127.0.0.1:LoadBalancerPort, or on an
 *     ephemeral port when that one is privileged or taken (the map is in the status JSON
 *     and the log); backends are the registered instances, routable as libscaler says
 *     (InService, not draining, zone enabled); idle timeout, zones and cross-zone follow
 *     the attributes; a draining instance with nothing in flight: sc_elb_drain_done.
 *   - each HTTP/HTTPS listener of an Application Load Balancer is a proxy too (autoscale_alb.c,
 *     docs/elbv2.md 10): its rules decide per request (libscaler's sc_elbv2_route), forwards
 *     go to the target group's routable targets on their instances' ports;
 *   - health checks (health.c) as ConfigureHealthCheck says, interval and timeout divided
 *     by --time-scale; results go to sc_elb_health_result.
 *   - every emulated minute: CPUUtilization per instance (modelled from busy workers,
 *     read from the instance's /_instance/status) through sc_world_report_instance_cpu,
 *     and the AWS/ELB metrics per load balancer through sc_cw_put_value (counts are
 *     scaled by --time-scale: what the emulated minute would have seen).
 * Single-threaded on the emulator's ev loop. */
#ifndef EMULATOR_AUTOSCALE_H
#define EMULATOR_AUTOSCALE_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/ev.h"

struct events;
struct lb_tls_cert_map;
struct sc_world;

struct autoscale_config {
    struct cm_ev *ev;
    /* The owner's hooks (ud is theirs): now_ms is the emulated clock that dates health
     * results and metrics; soon after an event that changes the records, step(ud) steps
     * every world. Hooks, not the owner's type, so the data plane never calls back into
     * a module that includes it (emu.c owns autoscale, not the other way round). */
    int64_t (*now_ms)(void *ud);
    void (*step)(void *ud);
    void *ud;
    struct events *events; /* the owner's event log (borrowed): faults, exits by signal */
    double time_scale;     /* emulated ms per real ms (>= 1e-6) */
    /* 1: the emulator's clock is manual: an instance's process starts listening at once and
     * is reported running once the emulated clock passes its launch time + boot_s (boot
     * follows the clock, not the wall) */
    int clock_manual;
    const char *instance_exe; /* NULL: instance.c's default */
    const char *tls_cert;     /* HTTPS/SSL listeners: PEM certificate and key, or both */
    const char *tls_key;      /* NULL for a self-signed certificate (emulator/lb_tls.h) */
    /* certificate ARNs with their own PEM files (--certificate; lb_tls_cert_for; borrowed) */
    const struct lb_tls_cert_map *cert_map;
    int ncert_map;
    /* Instance processes started per real second, at most (a token bucket holding a tenth
     * of a second's worth, at least one): a step starts what the bucket holds and leaves
     * the rest `pending` for a timer, so no request and no loop turn waits for thousands
     * of posix_spawn calls. 0: AUTOSCALE_DEFAULT_LAUNCH_RATE. */
    double launch_rate;
};

#define AUTOSCALE_DEFAULT_LAUNCH_RATE 50.0

struct autoscale;

/* NULL with err filled when the child watcher cannot start. */
struct autoscale *autoscale_create(const struct autoscale_config *cfg, char *err, size_t errlen);
/* Stops every instance (TERM, then KILL) and closes every proxy. NULL is a no-op. */
void autoscale_destroy(struct autoscale *a);
/* Makes processes, proxies and health checks match w's records at now_ms (emulated).
 * Returns 1 when it changed the world (the caller steps again), else 0. */
int autoscale_step(struct autoscale *a, struct sc_world *w, int64_t now_ms);
/* w is about to be destroyed (admin reset): its instances and proxies go. */
void autoscale_forget_world(struct autoscale *a, struct sc_world *w);
/* Faults on an instance's process: "kill" (kill -9), "hang" (SIGSTOP), "resume"
 * (SIGCONT), "slow=K", "fail_health=0|1", "error_rate=P". Returns 0, or -1 with err. */
int autoscale_fault(struct autoscale *a, const char *instance_id, const char *what, char *err,
                    size_t errlen);
/* The AZ-outage fault on world w (admin API, docs/dataplane.md): down 1 takes zone down
 * through libscaler's sc_ec2_zone_outage (its pending and running instances die: their
 * processes get kill -9; launches there fail) for for_ms emulated ms (0: until a call
 * with down 0); down 0 brings it back. Appends the dead instances' ids to ids_json as
 * JSON strings joined by commas (a comma first when ids_json is not empty). Returns how many died
 * (0 for down 0), or -1 with err for a zone w does not have. */
int autoscale_zone_fault(struct autoscale *a, struct sc_world *w, const char *zone, int down,
                         int64_t for_ms, int64_t now_ms, struct cm_buf *ids_json, char *err,
                         size_t errlen);
/* The worlds the data plane has stepped (borrowed): for admin faults that span accounts. */
int autoscale_world_count(const struct autoscale *a);
struct sc_world *autoscale_world_at(const struct autoscale *a, int i); /* NULL past the end */
/* A JSON object (malloc'd; the caller frees): instances (id, pid, port, state) and
 * listeners (load balancer, LoadBalancerPort, the port it really listens on). */
char *autoscale_status_json(const struct autoscale *a);

#endif
