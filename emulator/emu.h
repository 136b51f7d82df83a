/* emulator/emu.h: the emulated world behind the front door: the clock (real time times
 * --time-scale, or the manual clock), the registry of account+region worlds
 * (scaler/world.h), the step loop with its records-only data plane, the real data plane
 * (emulator/autoscale.h) when there is an event loop, the admin faults and reset.
 *
 * The step follows scaler/world.h's level-triggered contract: the world steps, the data
 * plane makes processes and proxies match the records, the world steps again so groups
 * see it. emu_step() runs after every mutating request (emulator/dispatch.c), on a timer
 * at least every emulated second, and when the data plane asks for one (autoscale.c).
 *
 * Single-threaded: everything runs on the loop's thread. */
#ifndef EMULATOR_EMU_H
#define EMULATOR_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/ev.h"

struct autoscale;
struct events;
struct lb_tls_cert_map;
struct metric_journal;
struct sc_dashboards;
struct sc_world;
struct sc_stall_ring;
struct state;

/* Account and region worlds at most (every AWS region and --region for one account, and
 * a few more accounts). */
#define EMU_MAX_WORLDS 64

/* An account id and a region name fit in these (with their NUL). */
#define EMU_ACCOUNT_LEN 16
#define EMU_REGION_LEN  40
/* A partition name ("aws", "aws-cn", "aws-us-gov") fits in this. */
#define EMU_PARTITION_LEN 16

struct emu_config {
    double time_scale;    /* emulated ms per real ms; 1 = real time */
    int clock_manual;     /* 1: time moves only through emu_clock_advance() */
    int64_t start_ms;     /* manual clock start (epoch ms); 0 = the wall clock at start */
    const char *tls_cert; /* HTTPS/SSL listeners' PEM certificate and key (both or */
    const char *tls_key;  /* neither: NULL = self-signed, emulator/lb_tls.h) */
    const struct lb_tls_cert_map *cert_map; /* --certificate's ARNs' files (borrowed) */
    int ncert_map;
    const char *instance_exe; /* the instance binary; NULL: instance.c's default */
    size_t event_buffer;      /* each event stream client's buffer; 0: the default */
    int max_metric_series;    /* per world (sc_world_config); 0 = libscaler's 100,000 */
    int max_vcpus;            /* per world: running On-Demand vCPUs (sc_world_config); 0 = none */
    /* Instances (neither shutting-down nor terminated) of every world together; a launch
     * past it fails with InsufficientInstanceCapacity (sc_world_config.host_room). 0: no
     * bound beyond libscaler's per-world limit. main.c's default: emu_default_max_instances */
    int max_instances;
    double launch_rate; /* instance processes started per real second; 0: the default */
    /* Auto Scaling notifications are also POSTed to this loopback URL (emulator/webhook.h)
     * once emu_start() runs; NULL: the event log only */
    const char *notify_webhook;
    /* the command line's --region: a world may be made for it besides AWS's regions
     * (emulator/region.h); NULL: AWS's only */
    const char *region;
};

void emu_config_defaults(struct emu_config *cfg);

/* The --max-instances default for a machine with mem_bytes of RAM, a file-descriptor limit
 * of nofile and ncpu CPUs: the least of mem_bytes / 8 MiB (an instance is ~2 MB RSS plus
 * the emulator's buffers for it), (nofile - 256) / 8 (its control socket, health checks,
 * proxy pool connections and clients' connections to it) and 256 per CPU (each is probed,
 * health-checked and polled every emulated minute on the one loop), within [1, 2000]
 * (a group's launches run in one step, whose cost grows with the square of a world's
 * instances: 2,000 at once hold the loop ~0.2 s, 10,000 ~5 s). Pure, for tests. */
int emu_default_max_instances(uint64_t mem_bytes, long nofile, long ncpu);

struct emu;

/* An empty registry on cfg's clock, with the records-only data plane (no processes)
 * until emu_start(). Free with emu_destroy(). */
struct emu *emu_create(const struct emu_config *cfg);
/* Starts the real data plane (instances as processes, load balancers as proxies) and
 * the step timer on ev. Without a child watcher the records-only data plane stays (the
 * log says why). */
void emu_start(struct emu *e, struct cm_ev *ev);
/* Stops what emu_start() started (every instance process ends); the worlds stay. */
void emu_stop(struct emu *e);
void emu_destroy(struct emu *e); /* NULL is a no-op; stops first */

/* The emulated clock (epoch ms). */
int64_t emu_now_ms(const struct emu *e);
int emu_clock_is_manual(const struct emu *e);
double emu_time_scale(const struct emu *e);
/* The step timer's lateness over the stall threshold at this scale (scaler/stall.h), or
 * NULL on a manual clock (no real-time timer to be late). */
const struct sc_stall_ring *emu_loop_stalls(const struct emu *e);
/* Moves the manual clock forward by ms (>= 0). Returns 0, or -1 on a real clock. */
int emu_clock_advance(struct emu *e, int64_t ms);
/* A saved clock (emulator/persist.c): the clock goes on from now_ms, never backwards
 * (a manual clock given a start keeps the later of the two). */
void emu_clock_restore(struct emu *e, int64_t now_ms);

/* Whether a world may be made for region: one of AWS's (emulator/region.h) or the
 * configured --region. */
int emu_region_ok(const struct emu *e, const char *region);
/* The world of account+region, created on first use (NULL when emu_region_ok() says no
 * or 64 worlds exist already). Borrowed until emu_reset()/emu_destroy(). Only what
 * changes a world calls it (emulator/dispatch.c: an API_MUTATES operation, a fault): a
 * read of a region with no world yet reads an emu_world_scratch() instead, so reads
 * never make worlds (issue 19 finding 7). */
struct sc_world *emu_world(struct emu *e, const char *account, const char *region);
/* emu_world() for a world the state file or the metric journal names: any well-formed
 * region name (an older emulator may have saved a made-up one; its data is kept). */
struct sc_world *emu_world_restore(struct emu *e, const char *account, const char *region);
/* A new empty world for account+region as emu_world() would make it (same seed, so the
 * same default VPC and ids), but not registered, saved or journaled: a read of a region
 * that has no world yet. NULL when emu_region_ok() says no. The caller destroys it
 * (sc_world_destroy) once the reply is rendered. */
struct sc_world *emu_world_scratch(struct emu *e, const char *account, const char *region);
/* The world of account+region when it exists, else NULL (never creates one). */
struct sc_world *emu_world_find(const struct emu *e, const char *account, const char *region);
/* The worlds in creation order: i in [0, emu_world_count()); *account and *region (each
 * optional) are borrowed like the world. */
int emu_world_count(const struct emu *e);
struct sc_world *emu_world_at(const struct emu *e, int i, const char **account,
                              const char **region);

/* An account's CloudWatch dashboards (docs/cloudwatch.md "Dashboards"): AWS keeps them
 * per account, not per region, so every world of account whose region is in partition
 * (sc_alarm_partition: "aws", "aws-cn", "aws-us-gov") shares one set. emu_dashboards
 * makes it on first use (a world's creation does; NULL past EMU_MAX_WORLDS sets);
 * emu_dashboards_find never makes one. Borrowed until emu_reset()/emu_destroy(). */
struct sc_dashboards *emu_dashboards(struct emu *e, const char *account, const char *partition);
struct sc_dashboards *emu_dashboards_find(const struct emu *e, const char *account,
                                          const char *partition);
/* The sets in creation order, i in [0, emu_dashboards_count()) (sc_dashboards_account
 * and sc_dashboards_partition name each). */
int emu_dashboards_count(const struct emu *e);
struct sc_dashboards *emu_dashboards_at(const struct emu *e, int i);

/* Steps every world to now and lets the data plane follow (see above). */
void emu_step(struct emu *e);
/* The event log (emulator/events.h): each step adds the worlds' changes to it. Borrowed
 * until emu_destroy(). */
struct events *emu_events(struct emu *e);
/* The worlds were loaded (--state): what they hold is the story's start, not news. */
void emu_observe_sync(struct emu *e);
/* Drops every account's worlds and dashboards (admin reset); the durable writers reset
 * too. */
void emu_reset(struct emu *e);

/* The real data plane, or NULL (records only: before emu_start(), or no child watcher). */
struct autoscale *emu_autoscale(struct emu *e);
/* Faults (POST /_scalelab/fault) through the real data plane. On an instance's process
 * (autoscale_fault(); the data plane asks for the step): returns 0, or -1 with err. */
int emu_instance_fault(struct emu *e, const char *instance_id, const char *what, char *err,
                       size_t errlen);
/* The AZ outage (down 1, for for_ms emulated ms, 0 = until recovered) or its end (down
 * 0) in every world of region that has zone, or only account's when account is
 * non-NULL; with no such world yet, in the account's (default 123456789012) world of
 * region. The dead instances' ids go to ids_json as autoscale_zone_fault() writes them.
 * Returns how many worlds it hit, then steps them; 0: none has the zone (err may say
 * why). */
int emu_zone_fault(struct emu *e, const char *zone, int down, int64_t for_ms, int64_t now_ms,
                   const char *region, const char *account, struct cm_buf *ids_json, char *err,
                   size_t errlen);

/* The durable writers (emulator/persist.c), both borrowed, either NULL: a step touches
 * st (clock-driven changes are written), a reset resets its writers, a new world is
 * journaled. */
void emu_set_durable(struct emu *e, struct state *st, struct metric_journal *journal);
/* The state file's writer, or NULL without --state. */
struct state *emu_state(struct emu *e);

#endif
