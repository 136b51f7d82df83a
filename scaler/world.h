/* scaler/world.h: one AWS account in one region, the object both worlds drive.
 *
 * A world owns the four services and the RNG every id comes from:
 *   struct sc_cw  (cloudwatch.h: metrics, alarms)
 *   struct sc_asg (asg.h: launch configurations, groups, policies, activities)
 *   struct sc_elb (elb.h: classic load balancers, health bookkeeping, draining)
 *   struct sc_ec2 (ec2.h: instance records, zones, subnets, launch templates)
 * and wires them together: alarm actions naming Auto Scaling policy ARNs run the policy
 * on its group; groups launch and terminate through EC2 and register with their load
 * balancers; target-tracking policies create their alarms in CloudWatch; group metrics
 * go to CloudWatch when collection is enabled.
 *
 * Pure and deterministic: no clock, sockets or stdio; every call takes now_ms (epoch ms
 * on the caller's clock). Same config (seed) + same calls = same ids and results.
 *
 * Ownership: the world owns its services; the accessors return borrowed pointers valid
 * until sc_world_destroy(). Single-threaded: the caller serializes every call.
 *
 * The caller's loop (the simulator's event loop, the emulator's ev loop):
 *   1. calls sc_world_step(w, now) whenever now >= sc_world_next_due_ms(w, now), and
 *      after every mutating API call it serves (so effects show promptly);
 *   2. then makes its data plane match the EC2 records, level-triggered:
 *      - instance `pending` that it has not started: start it; when up,
 *        sc_ec2_instance_running(ec2, id, now);
 *      - instance `shutting-down`: stop it, then sc_ec2_instance_terminated(ec2, id, now);
 *      - an instance that died on its own: sc_ec2_instance_lost(ec2, id, now);
 *   3. runs health checks and reports sc_elb_health_result(...);
 *   4. reports metrics: sc_world_report_instance_cpu() for CPU, sc_cw_put_metric_data()
 *      for ELB metrics. */
#ifndef SCALER_WORLD_H
#define SCALER_WORLD_H

#include <stdint.h>

#include "scaler/rng.h"
#include "scaler/status.h"

struct sc_world;
struct sc_cw;
struct sc_asg;
struct sc_elb;
struct sc_elbv2;
struct sc_ec2;
struct sc_dashboards;

#define SC_WORLD_MAX_ZONES 8

struct sc_world_config {
    const char *account_id; /* NULL: "123456789012" */
    const char *region;     /* NULL: "us-east-1" */
    /* Availability zones; nzones 0: region + "a", "b", "c". */
    const char *zones[SC_WORLD_MAX_ZONES];
    int nzones;
    uint64_t seed;    /* seeds the RNG (sc_rng_init) */
    int64_t start_ms; /* creation time (default VPC, subnets); 0 is fine */
    /* Period of the ASG health sweep (spec 7: 10 s); 0: 10000. */
    int64_t health_sweep_ms;
    /* 1: CloudWatch keeps metric data as long as AWS does (sc_metric_config_aws: 1-minute
     * data 15 days, hourly 455 days; up to ~1.2 MB per series once full); 0: the shorter
     * default tiers (1-minute 26 h, hourly 15 days; up to ~71 KB per series). Memory grows
     * with the data a series holds (docs/cloudwatch.md). */
    int aws_retention;
    /* Time zones for scheduled actions (scaler/asg_sched.h): the caller's zoneinfo
     * (common/tz.h's cm_tz_offset in the programs); NULL: only UTC is known. */
    int (*tz_offset)(void *ud, const char *zone, int64_t utc_ms, int *offset_s);
    void *tz_ud;
    /* CloudWatch metric series the world holds at most (sc_metric_config.max_series:
     * PutMetricData past it answers LimitExceeded); 0: SC_METRIC_DEFAULT_MAX_SERIES
     * (100,000). scalelab's own cap, not an AWS quota (docs/cloudwatch.md). */
    int max_metric_series;
    /* The host's room for more instances, shared by the program's worlds (the emulator's
     * --max-instances): sc_ec2_config.host_room. NULL: no host bound (the simulator). */
    int (*host_room)(void *ud);
    void *host_ud;
    /* The account's running On-Demand vCPU limit in this Region: sc_ec2_config.max_vcpus
     * (VcpuLimitExceeded past it; a group's launch fails with that text). 0: none. */
    int max_vcpus;
    /* The account's CloudWatch dashboards, which AWS keeps per account, not per region:
     * one set shared by the account's worlds (sc_cw_config.dashboards; borrowed, must
     * outlive the world, and is not in sc_world_save). NULL: the world has its own. */
    struct sc_dashboards *dashboards;
};

/* Fills cfg with the defaults above (zero seed, zero start). */
void sc_world_config_defaults(struct sc_world_config *cfg);

/* Creates a world (all four services, empty). Returns NULL on bad config (unknown
 * fields are not checked; nzones > SC_WORLD_MAX_ZONES, empty strings) or OOM.
 * The config's strings are copied. Free with sc_world_destroy(). */
struct sc_world *sc_world_create(const struct sc_world_config *cfg);
/* NULL is a no-op. */
void sc_world_destroy(struct sc_world *w);

/* Borrowed, valid until sc_world_destroy(). */
struct sc_cw *sc_world_cw(struct sc_world *w);
struct sc_asg *sc_world_asg(struct sc_world *w);
struct sc_elb *sc_world_elb(struct sc_world *w);
struct sc_elbv2 *sc_world_elbv2(struct sc_world *w); /* scaler/elbv2.h */
struct sc_ec2 *sc_world_ec2(struct sc_world *w);
struct sc_rng *sc_world_rng(struct sc_world *w);
const char *sc_world_account(const struct sc_world *w);
const char *sc_world_region(const struct sc_world *w);

/* Advances every service to now_ms, in this order:
 *   1. due ELB connection-draining ends;
 *   2. CloudWatch alarm evaluation at each evaluation tick: alarm actions naming Auto
 *      Scaling policy ARNs run the policy (cause "a monitor alarm <a> in state ALARM
 *      triggered policy <p> changing the desired capacity from 3 to 2"); AS actions are
 *      re-invoked each minute while the alarm stays in the state; each call is logged in
 *      the alarm's history (success, or "Failed to execute Auto Scaling action: ...");
 *      nothing runs while the group's AlarmNotification process is suspended;
 *   3. ASG health sweep (EC2 state; ELB health past the grace period when the group's
 *      HealthCheckType is ELB) and replacement of unhealthy instances;
 *   4. reconciliation of each group toward desired (launch / terminate, one activity per
 *      instance, registration with its load balancers before InService, deregistration
 *      and draining before termination);
 *   5. cooldown and warm-up bookkeeping;
 *   6. AWS/AutoScaling group metrics (once a minute) for groups with collection enabled.
 * Calls with now_ms earlier than a previous call are treated as that previous time.
 * Never allocates except to create activities and instances. */
void sc_world_step(struct sc_world *w, int64_t now_ms);

/* The earliest time at which sc_world_step has work that does not depend on the caller's
 * events (alarm tick, health sweep, draining end, warm-up end, cooldown end, metrics
 * minute): now_ms itself when work is already pending (alarm actions left by
 * SetAlarmState), INT64_MAX when nothing is scheduled. A caller that reported something
 * (instance running, health result, metric) or served a mutating API call should step at
 * once. */
int64_t sc_world_next_due_ms(const struct sc_world *w, int64_t now_ms);

/* Reports an instance's CPU utilization (percent, 0..100) for the minute containing
 * now_ms: puts AWS/EC2 CPUUtilization (unit Percent) with dimension InstanceId, and,
 * when the instance belongs to a group and is InService past its warm-up, also with
 * dimension AutoScalingGroupName (the group figure excludes warming instances, as
 * AWS's does for scaling). Returns SC_OK, SC_ERR_INSTANCE_ID_NOT_FOUND for an unknown
 * instance, SC_ERR_VALIDATION for pct outside 0..100 or not finite. */
enum sc_status sc_world_report_instance_cpu(struct sc_world *w, const char *instance_id, double pct,
                                            int64_t now_ms);

struct sc_alarm_view;
/* A scaling policy's Alarms as DescribePolicies shows them: the CloudWatch alarms of the
 * world whose actions (any of the three lists) name policy_arn, in name order, so a simple
 * or step policy lists the alarms a user pointed at it, and a target-tracking policy its
 * own High and Low alarms. The first max go into out (borrowed until the next mutating
 * call); returns how many there are. */
int sc_world_policy_alarms(const struct sc_world *w, const char *policy_arn,
                           const struct sc_alarm_view **out, int max);

/* --- save / load (the emulator's --state FILE) ------------------------------------------ */

/* The save format's version (the "version" member of a saved world). */
#define SC_WORLD_SAVE_VERSION 1

struct json_t;
/* The world as a new JSON object: {"version":1, "account", "region", "zones", "rng" (the
 * RNG's four words, hex), "last_ms", "ec2", "elb", "asg"} (sc_ec2_save, sc_elb_save,
 * sc_asg_save); NULL on OOM. CloudWatch (alarms, metrics) is not in it yet. */
struct json_t *sc_world_save(const struct sc_world *w);
/* Loads what sc_world_save wrote into a world just made by sc_world_create with the same
 * account, region and zones (the seed does not matter: the RNG state is restored).
 * Errors (ValidationError "state: <service>: <member>: <problem>"): wrong version,
 * account, region or zones, a missing or malformed member. On error the world may be
 * partly loaded: destroy it (each service loads whole or not at all, but not the set). */
enum sc_status sc_world_load(struct sc_world *w, const struct json_t *obj, struct sc_error *err);

#endif
