/* scaler/sim/scenario.h: the scenario file (JSON, read with Jansson), parsed and checked.
 *
 * The format is documented in docs/scenarios.md and docs/scenario.schema.json. Parsing
 * checks everything that can be checked without the scaler library: unknown keys, types,
 * ranges (min <= max, rates >= 0), references between objects (an alarm naming a
 * missing policy, a group naming a missing launch configuration). AWS's own parameter
 * rules (for example health-check Timeout < Interval) are left to libscaler, whose
 * sc_error the engine reports with the `path` of the object that caused it.
 *
 * Every error message has the shape `$.load[2].rate: must be >= 0` (JSON path, colon,
 * what is wrong), and every error of the file is reported, one per line (every unknown key
 * with a "did you mean", every object's first wrong value, every reference naming nothing);
 * the caller prefixes each line with the file name (sim_scenario_print_lines). Durations accept the
 * units of common/units.h ("90s", "10m", "30h"); a bare number is seconds.
 *
 * Ownership: sim_scenario_parse() returns an object owning all its strings and arrays;
 * free it with sim_scenario_destroy(). Times are milliseconds relative to the run start,
 * except start_ms (epoch ms). */
#ifndef SCALER_SIM_SCENARIO_H
#define SCALER_SIM_SCENARIO_H

#include <stdint.h>
#include <stdio.h>

#include "scaler/alarm.h"
#include "scaler/app.h"

#define SIM_PATH_MAX 128
#define SIM_ERR_MAX  8192

/* ---- infrastructure (one object per AWS create call) ---- */

struct sim_listener {
    int lb_port, instance_port;
    char *protocol;          /* HTTP, HTTPS, TCP, SSL */
    char *instance_protocol; /* NULL: same as protocol */
};

struct sim_health_check {
    char *target; /* "TCP:9763", "HTTP:80/health" */
    int interval_s, timeout_s, unhealthy_threshold, healthy_threshold;
};

struct sim_lb {
    char path[SIM_PATH_MAX];
    char *name;
    char **zones;
    int nzones;
    struct sim_listener *listeners;
    int nlisteners;
    int has_health_check;
    struct sim_health_check health_check;
    int cross_zone; /* CrossZoneLoadBalancing */
    int draining;   /* ConnectionDraining enabled */
    int draining_timeout_s;
};

/* ---- Application Load Balancers (docs/scenarios.md, "Application Load Balancers") ---- */

/* A target group (CreateTargetGroup, then ModifyTargetGroupAttributes). */
struct sim_tg {
    char path[SIM_PATH_MAX];
    char *name;
    char *protocol; /* HTTP (default), HTTPS */
    int port;       /* default 80 */
    /* health_check: members not given are NULL / has_* 0 (AWS's defaults) */
    char *hc_protocol, *hc_port, *hc_path, *hc_matcher;
    int has_interval, interval_s, has_timeout, timeout_s;
    int has_healthy, healthy_threshold, has_unhealthy, unhealthy_threshold;
    int has_deregistration_delay, deregistration_delay_s;
    int has_slow_start, slow_start_s;
    char *algorithm; /* round_robin, least_outstanding_requests, weighted_random; NULL */
};

enum sim_alb_action_kind {
    SIM_ALB_FORWARD = 0,
    SIM_ALB_FIXED_RESPONSE,
    SIM_ALB_REDIRECT,
};

struct sim_alb_forward {
    char *target_group;
    int weight; /* default 1 */
};

struct sim_alb_action {
    enum sim_alb_action_kind kind;
    struct sim_alb_forward *forward;
    int nforward;
    int weighted; /* given as a list (ForwardConfig), else TargetGroupArn */
    char *status; /* fixed_response: "404"; redirect: "HTTP_301" / "HTTP_302" */
    char *content_type /* fixed_response */, *body;
    char *r_protocol, *r_port, *r_host, *r_path, *r_query; /* redirect; NULL: #{...} */
};

/* One condition: field is scaler/elbv2.h's enum sc_elbv2_field. */
struct sim_alb_condition {
    int field;
    char *header_name; /* http_header */
    char **values;
    char **query_keys; /* query_string: parallel to values, NULL entries: any key */
    int nvalues;
};

struct sim_alb_rule {
    char path[SIM_PATH_MAX];
    int priority;
    struct sim_alb_condition *conditions;
    int nconditions;
    struct sim_alb_action action;
};

struct sim_alb_listener {
    char path[SIM_PATH_MAX];
    int port;       /* default 80 */
    char *protocol; /* HTTP (default) */
    struct sim_alb_action default_action;
    struct sim_alb_rule *rules;
    int nrules;
};

struct sim_alb {
    char path[SIM_PATH_MAX];
    char *name;
    char **zones; /* NULL: the scenario's (an ALB needs two or more) */
    int nzones;
    struct sim_alb_listener *listeners;
    int nlisteners;
};

/* One kind of request of a load phase aimed at an ALB (its `requests` mix). */
struct sim_request {
    double weight;    /* default 1 */
    char *method;     /* default GET */
    char *path;       /* default / */
    char *query;      /* default "" */
    char *host;       /* default: the load balancer's DNS name */
    char **header_kv; /* "Name", "value" pairs */
    int nheaders;     /* pairs */
    char *source_ip;  /* default 198.51.100.10 */
};

struct sim_launch_config {
    char path[SIM_PATH_MAX];
    char *name;
    char *image_id;      /* default "ami-0c02fb55956c7d316" (Amazon Linux 2) */
    char *instance_type; /* default "t3.micro" */
    struct sc_app app;   /* the application profile the instances run (scaler/app.h) */
    int template;        /* 1: an entry of launch_templates (CreateLaunchTemplate, version 1) */
};

/* A lifecycle hook of a group, with the handler the scenario plays for it. */
struct sim_hook {
    char *name;
    int launching;            /* "launching" (else "terminating") */
    int heartbeat_s;          /* default 3600 */
    char *default_result;     /* default "ABANDON" */
    int has_handler;          /* absent: nothing completes its actions (the timeout decides) */
    int64_t handler_after_ms; /* the handler completes each action this long after it opened */
    char *handler_result;     /* default "CONTINUE" */
};

/* A scheduled action of a group (PutScheduledUpdateGroupAction at the scenario's start). */
struct sim_sched {
    char *name;
    int has_at;
    int64_t at_ms; /* StartTime, from the scenario's start */
    int has_until;
    int64_t until_ms; /* EndTime, from the scenario's start */
    char *recurrence; /* NULL: none */
    char *time_zone;  /* NULL: UTC */
    int has_min, min;
    int has_max, max;
    int has_desired, desired;
};

/* A group's instance refresh (StartInstanceRefresh at a time, docs/autoscaling.md 8): with
 * launch_configuration, the group first switches to it (UpdateAutoScalingGroup). */
struct sim_refresh {
    int has; /* the group has one */
    int64_t at_ms;
    char *launch_configuration; /* NULL: keep the group's */
    int has_min, min_healthy_percentage;
    int has_max, max_healthy_percentage;
    int has_warmup, instance_warmup_s;
    int *checkpoints; /* checkpoint_percentages */
    int ncheckpoints;
    int has_delay, checkpoint_delay_s;
};

/* One launch_instances member: a LaunchInstances call at a time (docs/autoscaling.md 11,
 * docs/scenarios.md); the rules are libscaler's (sc_asg_launch_instances). */
struct sim_launch {
    int64_t at_ms;
    int requested_capacity; /* RequestedCapacity, >= 1 */
    char *zone;             /* AvailabilityZones' one member; NULL: none sent */
    char *retry_strategy;   /* RetryStrategy; NULL: none sent ("none") */
    char *client_token;     /* ClientToken; NULL: the run makes one (sim_launch_token) */
};

/* One notifications member: PutNotificationConfiguration at the scenario's start
 * (docs/scenarios.md). */
struct sim_notify {
    char *topic_arn;
    char **types; /* as given; libscaler checks them when the run puts them */
    int ntypes;
};

/* A group's warm pool (PutWarmPool at the scenario's start; docs/scenarios.md). */
struct sim_warm {
    int has_max_group_prepared_capacity;
    int max_group_prepared_capacity;
    int min_size;     /* default 0 */
    char *pool_state; /* "Stopped" (default), "Running", "Hibernated" */
    int reuse_on_scale_in;
};

struct sim_group {
    char path[SIM_PATH_MAX];
    char *name;
    char *launch_configuration; /* exactly one of the two is set */
    char *launch_template;      /* LaunchTemplate {LaunchTemplateName}, version $Default */
    int min, max;
    int has_desired;
    int desired;
    char **zones; /* NULL/0: the zones of its first load balancer, else the region's */
    int nzones;
    char **load_balancers;
    int nload_balancers;
    char **target_groups; /* ELBv2 target groups (TargetGroupARNs) */
    int ntarget_groups;
    int default_cooldown_s;          /* default 300 */
    char *health_check_type;         /* "EC2" (default) or "ELB" */
    int health_check_grace_period_s; /* default 300 */
    char **termination_policies;
    int ntermination_policies;
    int new_instances_protected_from_scale_in; /* default false */
    int has_max_instance_lifetime;             /* max_instance_lifetime given */
    int max_instance_lifetime_s;               /* MaxInstanceLifetime (0 or >= 86400) */
    struct sim_hook *hooks;                    /* lifecycle_hooks */
    int nhooks;
    struct sim_sched *scheds; /* scheduled_actions */
    int nscheds;
    struct sim_refresh refresh;       /* instance_refresh */
    struct sim_warm *warm;            /* warm_pool, NULL when none */
    struct sim_notify *notifications; /* notifications */
    int nnotifications;
    struct sim_launch *launches; /* launch_instances, in the file's order */
    int nlaunches;
};

enum sim_policy_type {
    SIM_POLICY_SIMPLE = 0,
    SIM_POLICY_STEP = 1,
    SIM_POLICY_TARGET = 2,
    SIM_POLICY_PREDICTIVE = 3, /* PredictiveScaling (docs/autoscaling.md 12) */
};

struct sim_step {
    int has_lower, has_upper;
    double lower, upper; /* relative to the alarm threshold */
    int adjustment;
};

struct sim_policy {
    char path[SIM_PATH_MAX];
    char *name;
    char *group;
    enum sim_policy_type type;
    char *adjustment_type; /* ChangeInCapacity, ExactCapacity, PercentChangeInCapacity */
    int adjustment;        /* simple */
    int has_cooldown;
    int cooldown_s;
    int has_min_adjustment_magnitude;
    int min_adjustment_magnitude;
    struct sim_step *steps; /* step */
    int nsteps;
    char *metric_aggregation_type; /* step: Average (default), Minimum, Maximum */
    int has_warmup;
    int estimated_instance_warmup_s;
    /* target tracking */
    char *predefined_metric; /* ASGAverageCPUUtilization, ALBRequestCountPerTarget, ... */
    char *resource_label;
    /* target.metrics: CustomizedMetricSpecification.Metrics (metric math), owned; then
     * predefined_metric is NULL */
    struct sc_alarm_query *metrics;
    int nmetrics;
    double target_value; /* target tracking's and predictive's */
    int disable_scale_in;
    /* predictive: the metric pair (predefined_metric: ASGCPUUtilization, ...; with
     * resource_label for ALBRequestCount), Mode, SchedulingBufferTime,
     * MaxCapacityBreachBehavior and MaxCapacityBuffer as the "predictive" key gives them */
    char *mode;
    int has_buffer_s;
    int buffer_s;
    char *breach;
    int has_max_buffer;
    int max_buffer_pct;
};

struct sim_dimension {
    char *name, *value;
};

struct sim_alarm {
    char path[SIM_PATH_MAX];
    char *name;
    char *namespace_;
    char *metric;
    struct sim_dimension *dimensions;
    int ndimensions;
    char *statistic;          /* NULL when extended_statistic is set */
    char *extended_statistic; /* "p99" */
    int period_s;
    int evaluation_periods;
    int has_datapoints_to_alarm;
    int datapoints_to_alarm;
    char *comparison; /* AWS ComparisonOperator name (">" etc. are translated) */
    double threshold;
    char *treat_missing_data; /* NULL: AWS's default (missing) */
    char **actions;           /* policy names */
    int nactions;
    char **ok_actions;
    int nok_actions;
    int actions_enabled; /* default 1 */
    /* "metrics": PutMetricAlarm's Metrics (metric math, an anomaly band), owned; then the
     * metric members above are not sent. "threshold_metric_id": the band's id (no
     * threshold then). */
    struct sc_alarm_query *metrics;
    int nmetrics;
    char *threshold_metric_id;
};

/* infrastructure.composite_alarms[]: PutCompositeAlarm (docs/cloudwatch.md "Composite
 * alarms"). The rule names the scenario's alarms (or composites given before it); the run
 * puts it through libscaler, which answers a bad rule with AWS's code and text. */
struct sim_composite {
    char path[SIM_PATH_MAX];
    char *name;
    char *alarm_rule;
    char **actions; /* policy names: AWS never runs them from a composite */
    int nactions;
    char **ok_actions;
    int nok_actions;
    int actions_enabled;      /* default 1 */
    char *actions_suppressor; /* NULL: none */
    int has_wait_period;
    int wait_period_s;
    int has_extension_period;
    int extension_period_s;
};

/* ---- load ---- */

enum sim_shape {
    SIM_SHAPE_CONSTANT = 0,
    SIM_SHAPE_RAMP,    /* linear from value to `to` over the phase */
    SIM_SHAPE_STEP,    /* value, then `to` from at_ms */
    SIM_SHAPE_SPIKE,   /* value, `to` during [at_ms, at_ms + for_ms) */
    SIM_SHAPE_DIURNAL, /* value * (1 + amplitude * cos(2 pi (t - peak_ms) / period_ms)) */
    SIM_SHAPE_BURSTS,  /* `requests` per burst (closed) or on_ms of load, then gap_ms idle */
};

struct sim_phase {
    char path[SIM_PATH_MAX];
    int64_t at_ms, until_ms;      /* [at, until) relative to the run start */
    char *target;                 /* load balancer name (classic or ALB) */
    int listener_port;            /* ALB: the listener the requests go to; 0: its first */
    struct sim_request *requests; /* ALB: the mix; NULL: one GET / */
    int nrequests;
    int closed;      /* 1: clients (closed model), 0: rate (open model) */
    double value;    /* req/s or clients */
    double think_ms; /* closed: mean think time between a reply and the next request */
    enum sim_shape shape;
    double to;              /* ramp, step, spike */
    int64_t shape_at_ms;    /* step, spike: relative to the phase start */
    int64_t shape_for_ms;   /* spike */
    double amplitude;       /* diurnal, 0..1 */
    int64_t period_ms;      /* diurnal */
    int64_t peak_ms;        /* diurnal: time of the peak, relative to the run start */
    int64_t burst_requests; /* bursts (closed): requests per burst, 0 when on_ms used */
    int64_t on_ms, gap_ms;  /* bursts */
    /* trace: a CSV of time,rate (time in seconds or a duration, relative to the phase
     * start); the rate holds until the next row. Open model only. */
    int64_t *trace_t_ms;
    double *trace_rate;
    int ntrace;
};

/* ---- faults ---- */

enum sim_fault_kind {
    SIM_FAULT_KILL = 0, /* count instances die (EC2 loses them) */
    SIM_FAULT_HANG,     /* count instances stop answering (health checks and requests time
                           out) for for_ms, or for good when 0 */
    SIM_FAULT_SLOW,     /* count instances serve factor x slower for for_ms (0: for good) */
    SIM_FAULT_AZ_OUTAGE /* every instance in zone dies, launches there fail, for for_ms */
};

struct sim_fault {
    char path[SIM_PATH_MAX];
    int64_t at_ms;
    enum sim_fault_kind kind;
    char *group; /* kill, hang, slow */
    int count;   /* default 1 */
    double factor;
    int64_t for_ms;
    char *zone; /* az_outage */
};

/* ---- expectations ---- */

enum sim_expect_kind {
    SIM_EXPECT_IN_SERVICE = 0,    /* group's InService count within [min, max] */
    SIM_EXPECT_DESIRED,           /* group's desired capacity within [min, max] */
    SIM_EXPECT_FAILED_PCT,        /* failed requests, % of all that ended, <= max */
    SIM_EXPECT_P99_MS,            /* p99 latency of completed requests <= max */
    SIM_EXPECT_DIRECTION_CHANGES, /* desired changes direction at most max times in any
                                     window_ms */
    SIM_EXPECT_SCALE_OUT,         /* desired grows within within_ms after after_ms */
};

enum sim_when {
    SIM_WHEN_AT = 0,     /* the sample at (or first after) at_ms */
    SIM_WHEN_BY,         /* some sample at or before at_ms */
    SIM_WHEN_THROUGHOUT, /* every sample in [from_ms, until_ms] */
};

struct sim_expect {
    char path[SIM_PATH_MAX];
    char *label; /* optional "name", else a generated description */
    enum sim_expect_kind kind;
    char *group;
    enum sim_when when;
    int64_t at_ms;
    int64_t from_ms, until_ms; /* throughout: default the whole run */
    int has_min, has_max;
    double min, max;
    int64_t window_ms;           /* direction_changes */
    int64_t after_ms, within_ms; /* scale_out */
};

struct sim_scenario {
    char *file; /* as given */
    char *name;
    char *description;
    uint64_t seed;
    int64_t start_ms;          /* epoch ms, default 2026-01-01T00:00:00Z */
    int64_t duration_ms;       /* > 0 */
    int64_t sample_ms;         /* default 60000 */
    double demand_target_pct;  /* default 70 */
    int has_demand_target_pct; /* the file sets it (else the demand basis may be a policy's
                                  target: sim_elastic_demand_basis) */
    char *region;              /* default us-east-1 */
    char **zones;              /* default region + a, b, c */
    int nzones;

    struct sim_lb *lbs;
    int nlbs;
    struct sim_tg *tgs;
    int ntgs;
    struct sim_alb *albs;
    int nalbs;
    /* launch_configurations, then launch_templates (the last nlts entries, template set):
     * one array, so everything that reads an app profile reads both */
    struct sim_launch_config *lcs;
    int nlcs;
    int nlts;
    struct sim_group *groups;
    int ngroups;
    struct sim_policy *policies;
    int npolicies;
    struct sim_alarm *alarms;
    int nalarms;
    struct sim_composite *composites;
    int ncomposites;
    struct sim_phase *phases;
    int nphases;
    struct sim_fault *faults;
    int nfaults;
    struct sim_expect *expects;
    int nexpects;

    char *warnings; /* the reader's warnings, one per line ("PATH: message"); "" none */
    int nwarnings;
};

/* sim_scenario_parse_flags()'s flags. LENIENT: an alarm's or a target-tracking policy's
 * dimension (AutoScalingGroupName, LoadBalancerName) naming no group or load balancer of
 * the scenario is a warning in sc->warnings, not an error (AWS accepts it; the alarm never
 * gets data). */
#define SIM_SCENARIO_LENIENT 1

/* Parses a scenario from text. `file` names it in messages and anchors relative trace
 * paths. Returns the scenario, or NULL with err (SIM_ERR_MAX) set to "$.path: problem". */
struct sim_scenario *sim_scenario_parse(const char *text, const char *file, char *err);
struct sim_scenario *sim_scenario_parse_flags(const char *text, const char *file, int flags,
                                              char *err);
/* Reads and parses a file; err as above (or "cannot read: <errno text>"). */
struct sim_scenario *sim_scenario_load(const char *file, char *err);
struct sim_scenario *sim_scenario_load_flags(const char *file, int flags, char *err);

/* Prints each line of lines (errors or warnings as the reader wrote them) to f as
 * "PROG: FILE: LINE" (with "warning: " after PROG: when warning is set). */
void sim_scenario_print_lines(FILE *f, const char *prog, const char *file, const char *lines,
                              int warning);
void sim_scenario_destroy(struct sim_scenario *sc); /* NULL is a no-op */

/* Applies PARAM=VALUE to the JSON text before parsing (used by --sweep): param is a
 * dotted path where array elements are addressed by their "name" (alarms.high-cpu.
 * threshold) or index (load.0.rate); a last key absent from the file is added (sweeping
 * a default). Returns a new text (caller frees) or NULL with err. */
char *sim_scenario_set_param(const char *text, const char *param, double value, char *err);
/* The same; a last key absent from its object (left at its default) is added with the
 * value, *added (may be NULL) set to 1: the reader then checks it as any key. */
char *sim_scenario_set_param_ex(const char *text, const char *param, double value, int *added,
                                char *err);

/* Lookups by name; NULL or -1 when absent. */
int sim_scenario_group_index(const struct sim_scenario *sc, const char *name);
int sim_scenario_lb_index(const struct sim_scenario *sc, const char *name);
int sim_scenario_lc_index(const struct sim_scenario *sc, const char *name);
/* A launch template's index in sc->lcs (its template set), or -1. */
int sim_scenario_lt_index(const struct sim_scenario *sc, const char *name);
/* The index in sc->lcs of what group g launches from (its launch configuration or launch
 * template), or -1. */
int sim_scenario_group_lc(const struct sim_scenario *sc, const struct sim_group *g);
/* The ClientToken launch_instances[k] of group gi sends: its client_token, or one made
 * from the group's name and k ("GROUP-launch-K", characters outside [A-Za-z0-9-_/] as "-",
 * at most 64); prefix (NULL: none) goes before it with a "-" (loadgen's run prefix). */
void sim_launch_token(const struct sim_scenario *sc, int gi, int k, const char *prefix, char *out,
                      size_t n);
int sim_scenario_policy_index(const struct sim_scenario *sc, const char *name);
int sim_scenario_tg_index(const struct sim_scenario *sc, const char *name);
int sim_scenario_alb_index(const struct sim_scenario *sc, const char *name);

#endif
