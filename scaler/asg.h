/* scaler/asg.h: EC2 Auto Scaling for one account and region (spec sections 3 and 4).
 *
 * struct sc_asg keeps launch configurations, groups, their instances' Auto Scaling
 * lifecycle, scaling activities, policies, cooldowns and warm-up. It reaches EC2, the
 * load balancers and CloudWatch only through struct sc_asg_env (callbacks the world
 * fills with sc_ec2 / sc_elb / sc_cw calls; tests fill them with fakes), so every rule
 * here is testable alone.
 *
 * Pure and deterministic: no clock, no I/O; every call takes now_ms. Ids come from the
 * struct sc_rng given at create (borrowed; the world's).
 *
 * Ownership: request strings are borrowed and copied when kept. The *_info views
 * returned by reads are borrowed and valid until the next mutating call on the asg (any
 * call taking a non-const struct sc_asg *, sc_asg_step included). Lists come in AWS
 * order: groups and launch configurations by name, activities newest first with
 * in-progress ones before finished ones, policies by group then creation.
 *
 * Loop: the world calls sc_asg_step(asg, now) after CloudWatch evaluation; it sweeps
 * health, replaces unhealthy instances, reconciles each group toward desired, advances
 * lifecycle transitions, cooldowns and warm-up, and puts group metrics. */
#ifndef SCALER_ASG_H
#define SCALER_ASG_H

#include <stdint.h>

#include "scaler/alarm.h"
#include "scaler/policy.h"
#include "scaler/rng.h"
#include "scaler/status.h"

struct json_t;

struct sc_asg;

#define SC_ASG_ID_LEN                    32
#define SC_ASG_MAX_GROUPS                500
#define SC_ASG_MAX_LAUNCH_CONFIGURATIONS 200
#define SC_ASG_MAX_POLICIES              50 /* per group */
#define SC_ASG_MAX_LOAD_BALANCERS        50 /* per group */
#define SC_ASG_MAX_TAGS                  50 /* per group */
#define SC_ASG_MAX_ACTIVITIES            100 /* finished activities kept per group (plus in progress) */
/* Deleted groups' activities kept, all groups together (the oldest go first). */
#define SC_ASG_MAX_DELETED_ACTIVITIES 1000
#define SC_ASG_MAX_IDS_PER_CALL       20
#define SC_ASG_MAX_OVERRIDES          40  /* instance types in a mixed instances policy */
#define SC_ASG_LT_NAME_LEN            132 /* a launch template name (<= 128) and its NUL */

/* --- what the asg needs from the rest of the world --------------------------------- */

/* An instance as EC2 sees it, reduced to what health checks need. */
enum sc_asg_ec2_state {
    SC_ASG_EC2_PENDING = 0,
    SC_ASG_EC2_RUNNING,
    SC_ASG_EC2_IMPAIRED, /* running, status checks impaired */
    SC_ASG_EC2_STOPPED,
    SC_ASG_EC2_SHUTTING_DOWN,
    SC_ASG_EC2_GONE,     /* terminated / unknown */
    SC_ASG_EC2_STOPPING, /* a warm instance is Warmed:Stopped only once EC2 says stopped */
};

/* An instance as a load balancer sees it. */
enum sc_asg_lb_state {
    SC_ASG_LB_NOT_REGISTERED = 0,
    SC_ASG_LB_IN_SERVICE,
    SC_ASG_LB_OUT_OF_SERVICE,
    SC_ASG_LB_DRAINING, /* deregistration in progress (connection draining) */
};

struct sc_asg_kv {
    const char *key;
    const char *value;
};

/* What to launch: the group's launch configuration or template, placement and tags
 * (aws:autoscaling:groupName first, then the group's PropagateAtLaunch tags). */
struct sc_asg_launch_spec {
    const char *group_name;
    const char *zone;
    const char *subnet_id; /* NULL when the group uses AvailabilityZones only */
    /* From the launch configuration (NULL with a template). */
    const char *launch_configuration_name;
    const char *image_id;
    const char *instance_type;
    const char *key_name;
    const char *user_data;
    int monitoring_enabled;
    /* From LaunchTemplate / MixedInstancesPolicy (NULL with a configuration). */
    const char *launch_template_id;
    const char *launch_template_name;
    const char *launch_template_version;
    const struct sc_asg_kv *tags;
    int ntags;
};

/* An alarm target tracking owns (spec 4.5). */
struct sc_asg_alarm_spec {
    const char *alarm_name;
    const char *alarm_description;
    const char *namespace_;
    const char *metric_name;
    const struct sc_asg_kv *dimensions;
    int ndimensions;
    const char *statistic; /* "Average", "Sum", ... */
    const char *unit;      /* NULL when unset */
    int period_s;
    int evaluation_periods;
    int datapoints_to_alarm;
    double threshold;
    const char *comparison_operator; /* "GreaterThanThreshold" / "LessThanThreshold" */
    const char *alarm_action;        /* the policy ARN */
    /* metric math instead of namespace ... unit (then those are NULL and period_s unused) */
    const struct sc_alarm_query *metrics;
    int nmetrics;
};

/* A launch template as resolved by env.launch_template_resolve. */
struct sc_asg_lt_resolved {
    char launch_template_id[SC_ASG_ID_LEN];
    char launch_template_name[SC_ASG_LT_NAME_LEN];
    char instance_type[SC_ASG_ID_LEN]; /* the version's, "" when it has none */
};

/* What a launch configuration derives from an EC2 instance (CreateLaunchConfiguration's
 * and CreateAutoScalingGroup's InstanceId, docs/autoscaling.md 15). The strings are
 * borrowed from the instance's record; NULL when it has none. */
struct sc_asg_instance_attrs {
    const char *image_id;
    const char *instance_type;
    const char *key_name;
    const char *user_data;
    const char *iam_instance_profile;
    const char *const *security_groups;
    int nsecurity_groups;
    int monitoring_enabled;
    const char *availability_zone;
    const char *subnet_id;
};

/* Callbacks; any may be NULL (then: launches fail with a clear reason, instances are
 * reported GONE, load balancers are not known, alarms and metrics are not kept). */
struct sc_asg_env {
    void *ud;
    /* EC2 */
    enum sc_status (*run_instance)(void *ud, const struct sc_asg_launch_spec *spec, int64_t now_ms,
                                   char id_out[SC_ASG_ID_LEN], struct sc_error *err);
    void (*terminate_instance)(void *ud, const char *instance_id, int64_t now_ms);
    enum sc_asg_ec2_state (*instance_state)(void *ud, const char *instance_id);
    /* Zone of an existing instance (AttachInstances) into zone_out; 0, or -1 unknown. */
    int (*instance_zone)(void *ud, const char *instance_id, char zone_out[SC_ASG_ID_LEN]);
    /* The launch attributes of an existing instance (pending, running, stopping or
     * stopped) into *out; 0, or -1 when it is unknown or terminated. NULL: every
     * instance is unknown. */
    int (*instance_attrs)(void *ud, const char *instance_id, struct sc_asg_instance_attrs *out);
    /* Zone of a subnet (VPCZoneIdentifier) into zone_out; 0, or -1 unknown. */
    int (*subnet_zone)(void *ud, const char *subnet_id, char zone_out[SC_ASG_ID_LEN]);
    /* 1 when zone is an availability zone of the region. */
    int (*zone_valid)(void *ud, const char *zone);
    /* The zone id ("use1-az1") of a zone into id_out; 0, or -1 unknown (LaunchInstances'
     * AvailabilityZoneIds). NULL: no zone has an id. */
    int (*zone_id)(void *ud, const char *zone, char id_out[SC_ASG_ID_LEN]);
    /* SC_OK when the launch template (id or name, version) resolves, with what the asg
     * describes and launches filled into *out (optional); else its error. */
    enum sc_status (*launch_template_resolve)(void *ud, const char *id, const char *name,
                                              const char *version, struct sc_asg_lt_resolved *out,
                                              struct sc_error *err);
    /* On-Demand price of an instance type in USD per hour, or < 0 when unknown (the
     * lowest-price allocation strategy). */
    double (*on_demand_price)(void *ud, const char *instance_type);
    /* ELB */
    int (*lb_exists)(void *ud, const char *lb);
    void (*lb_register)(void *ud, const char *lb, const char *instance_id, int64_t now_ms);
    void (*lb_deregister)(void *ud, const char *lb, const char *instance_id, int64_t now_ms);
    enum sc_asg_lb_state (*lb_instance_state)(void *ud, const char *lb, const char *instance_id);
    /* CloudWatch */
    enum sc_status (*put_alarm)(void *ud, const struct sc_asg_alarm_spec *alarm, int64_t now_ms,
                                struct sc_error *err);
    void (*delete_alarm)(void *ud, const char *alarm_name, int64_t now_ms);
    /* 1 when the alarm is in state ALARM. */
    int (*alarm_in_alarm)(void *ud, const char *alarm_name);
    void (*put_metric)(void *ud, const char *namespace_, const char *metric_name,
                       const char *dim_name, const char *dim_value, double value, const char *unit,
                       int64_t now_ms);
    /* Optional, for speed only: a summary (hash) of everything instance_state and, when
     * with_lb is 1, lb_instance_state could answer for any instance: it must change
     * whenever one of their answers may have changed. With it, a health sweep that would
     * find nothing new (same inputs as the last sweep, no timer running out) is skipped,
     * and sc_asg_next_due_ms does not ask for the 10 s sweep instants while it would be
     * a no-op. Without it (NULL) every sweep runs. */
    uint64_t (*health_inputs_sig)(void *ud, int with_lb);
    /* Time zones of scheduled actions (asg_sched.h): the offset east of UTC in seconds of
     * an IANA zone at utc_ms; 0, or -1 for a zone not known. NULL: only UTC is known. */
    int (*tz_offset)(void *ud, const char *zone, int64_t utc_ms, int *offset_s);
    /* Warm pools (asg_warm.h): StopInstances / StartInstances of one instance. NULL: a
     * Stopped or Hibernated pool keeps its instances running. */
    void (*stop_instance)(void *ud, const char *instance_id, int64_t now_ms);
    void (*start_instance)(void *ud, const char *instance_id, int64_t now_ms);
    /* StopInstances with Hibernate (a Hibernated pool); NULL: stop_instance acts. */
    void (*hibernate_instance)(void *ud, const char *instance_id, int64_t now_ms);
    /* Predictive scaling (asg_predict.h): the load metric's history, n hours from from_ms
     * (hour-aligned) into out[0..n): each hour the mean of the metric's per-minute stat
     * (unit NULL: any) over the minutes of the hour with data, NAN for an hour without
     * any. NULL: no history (predictive policies make no forecast). */
    void (*load_history)(void *ud, const struct sc_metric_key *metric, const char *stat,
                         const char *unit, int64_t from_ms, int n, double *out, int64_t now_ms);
};

struct sc_asg_config {
    const char *account_id; /* NULL: "123456789012" */
    const char *region;     /* NULL: "us-east-1" */
    struct sc_rng *rng;     /* required, borrowed */
    struct sc_asg_env env;
    int64_t health_sweep_ms; /* 0: 10000 */
};

/* Returns NULL without an rng, or on OOM. Free with sc_asg_destroy(). */
struct sc_asg *sc_asg_create(const struct sc_asg_config *cfg);
void sc_asg_destroy(struct sc_asg *asg); /* NULL is a no-op */

/* --- launch configurations ------------------------------------------------------------ */

struct sc_asg_lc_req {
    const char *launch_configuration_name; /* required, 1..255 */
    const char *image_id;                  /* required unless instance_id */
    const char *instance_type;             /* required unless instance_id */
    /* InstanceId: image, type, key, user data, IAM profile, security groups and
     * monitoring come from the instance (env.instance_attrs) where not given here
     * (sc_asg_lc_from_instance). */
    const char *instance_id;
    const char *key_name;
    const char *user_data;
    const char *iam_instance_profile;
    const char *const *security_groups;
    int nsecurity_groups;
    int has_instance_monitoring;
    int instance_monitoring; /* default true */
    int has_associate_public_ip_address;
    int associate_public_ip_address;
    /* Every other member as sent (a JSON object in the model's member names:
     * BlockDeviceMappings, EbsOptimized, KernelId, RamdiskId, SpotPrice, PlacementTenancy,
     * MetadataOptions, ClassicLinkVPC*), or NULL: copied, described as given; nothing in
     * either world acts on them. */
    const struct json_t *other;
};

struct sc_asg_lc_info {
    char *launch_configuration_name;
    char *launch_configuration_arn;
    char *image_id;
    char *instance_type;
    char *key_name; /* NULL when none */
    char *user_data;
    char *iam_instance_profile;
    char **security_groups;
    int nsecurity_groups;
    int instance_monitoring;
    int has_associate_public_ip_address;
    int associate_public_ip_address;
    struct json_t *other; /* owned (sc_asg_lc_req.other), NULL when none */
    int64_t created_ms;
};

/* AlreadyExists `Launch Configuration by this name already exists - A launch
 * configuration already exists with the name <n>`; ValidationError for missing fields
 * or an unknown or terminated InstanceId (`The instance ID '<id>' does not exist`);
 * LimitExceeded past 200. */
enum sc_status sc_asg_create_launch_configuration(struct sc_asg *asg,
                                                  const struct sc_asg_lc_req *req, int64_t now_ms,
                                                  struct sc_error *err);
/* The rule of an LC from an instance (docs/autoscaling.md 15): *out is *req with every
 * member req leaves out (image, type, key, user data, IAM profile, security groups,
 * monitoring) taken from *attrs; what req gives wins. Block devices are never derived.
 * The strings stay borrowed from req and attrs. */
void sc_asg_lc_from_instance(const struct sc_asg_lc_req *req,
                             const struct sc_asg_instance_attrs *attrs, struct sc_asg_lc_req *out);
/* ResourceInUse `Cannot delete launch configuration <lc> because it is attached to
 * AutoScalingGroup <asg>`; ValidationError `Launch configuration name not found -
 * Launch configuration <n> not found`. */
enum sc_status sc_asg_delete_launch_configuration(struct sc_asg *asg, const char *name,
                                                  int64_t now_ms, struct sc_error *err);
int sc_asg_lc_count(const struct sc_asg *asg);
const struct sc_asg_lc_info *sc_asg_lc_at(const struct sc_asg *asg, int i); /* by name */
const struct sc_asg_lc_info *sc_asg_lc_find(const struct sc_asg *asg, const char *name);

/* --- groups ---------------------------------------------------------------------------- */

enum sc_asg_lifecycle {
    SC_ASG_PENDING = 0,
    SC_ASG_PENDING_WAIT,
    SC_ASG_PENDING_PROCEED,
    SC_ASG_IN_SERVICE,
    SC_ASG_TERMINATING,
    SC_ASG_TERMINATING_WAIT,
    SC_ASG_TERMINATING_PROCEED,
    SC_ASG_TERMINATED,
    SC_ASG_DETACHING,
    SC_ASG_DETACHED,
    SC_ASG_ENTERING_STANDBY,
    SC_ASG_STANDBY,
    /* the warm pool's own lifecycle (scaler/asg_warm.h; docs/autoscaling.md 7.2) */
    SC_ASG_WARMED_PENDING,
    SC_ASG_WARMED_PENDING_WAIT,
    SC_ASG_WARMED_PENDING_PROCEED,
    SC_ASG_WARMED_TERMINATING,
    SC_ASG_WARMED_TERMINATING_WAIT,
    SC_ASG_WARMED_TERMINATING_PROCEED,
    SC_ASG_WARMED_TERMINATED,
    SC_ASG_WARMED_STOPPED,
    SC_ASG_WARMED_RUNNING,
    SC_ASG_WARMED_HIBERNATED,
};
/* "Pending", "Pending:Wait", ..., "Standby". */
const char *sc_asg_lifecycle_str(enum sc_asg_lifecycle s);

/* Processes (spec 3.6), as bits of sc_asg_group_info.suspended. */
enum sc_asg_process {
    SC_ASG_PROC_LAUNCH = 0,
    SC_ASG_PROC_TERMINATE,
    SC_ASG_PROC_ADD_TO_LOAD_BALANCER,
    SC_ASG_PROC_ALARM_NOTIFICATION,
    SC_ASG_PROC_AZ_REBALANCE,
    SC_ASG_PROC_HEALTH_CHECK,
    SC_ASG_PROC_REPLACE_UNHEALTHY,
    SC_ASG_PROC_SCHEDULED_ACTIONS,
    SC_ASG_PROC_INSTANCE_REFRESH,
    SC_ASG_PROC_COUNT
};
const char *sc_asg_process_str(enum sc_asg_process p); /* "Launch", ... */

/* Group metrics (EnableMetricsCollection), as bits of sc_asg_group_info.metrics_enabled:
 * the eight Group* metrics every group publishes, then the eight warm pool metrics only a
 * group with a warm pool publishes (docs/autoscaling.md 7.3), then the five Group*Capacity
 * metrics every group publishes, in capacity units (docs/autoscaling.md 14). The capacity
 * ones come last so that a mask saved before they existed keeps its meaning. */
#define SC_ASG_METRIC_COUNT          21
#define SC_ASG_METRIC_GROUP_COUNT    8
#define SC_ASG_METRIC_WARM_END       16 /* the warm pool metrics are [GROUP_COUNT, WARM_END) */
#define SC_ASG_METRIC_CAPACITY_COUNT 5
/* What a group without a warm pool publishes with every metric enabled. */
#define SC_ASG_METRIC_NO_POOL_COUNT (SC_ASG_METRIC_GROUP_COUNT + SC_ASG_METRIC_CAPACITY_COUNT)
/* "GroupMinSize", ... "GroupTotalInstances", "WarmPoolMinSize", ...
 * "GroupAndWarmPoolTotalCapacity", "GroupInServiceCapacity", ... "GroupTotalCapacity" */
const char *sc_asg_metric_str(int i);

struct sc_asg_tag_req {
    const char *resource_id;   /* the group name */
    const char *resource_type; /* "auto-scaling-group" (NULL accepted) */
    const char *key;           /* 1..128 */
    const char *value;         /* <= 256; NULL = "" */
    int propagate_at_launch;
};

struct sc_asg_tag {
    char *key;
    char *value;
    int propagate_at_launch;
};

struct sc_asg_instance_info {
    char instance_id[SC_ASG_ID_LEN];
    char availability_zone[SC_ASG_ID_LEN];
    char subnet_id[SC_ASG_ID_LEN]; /* "" when none */
    enum sc_asg_lifecycle lifecycle_state;
    int healthy; /* "Healthy"/"Unhealthy" in groups, "HEALTHY"/"UNHEALTHY" in instances */
    char *launch_configuration_name; /* NULL with a template */
    char *launch_template_id;
    char *launch_template_name;
    char *launch_template_version;
    char *instance_type; /* NULL when not known (attached) */
    int protected_from_scale_in;
    int64_t launch_ms;
    /* Capacity units it counts toward desired: its type's WeightedCapacity in the group's
     * overrides (current, not as at launch), 1 without weights. */
    int weight;
};

/* "Healthy" / "Unhealthy" (DescribeAutoScalingGroups). */
const char *sc_asg_health_str(int healthy);
/* "HEALTHY" / "UNHEALTHY" (DescribeAutoScalingInstances). */
const char *sc_asg_health_upper_str(int healthy);

/* One LaunchTemplate.Overrides member of a mixed instances policy, as described. */
struct sc_asg_override_info {
    char *instance_type;
    char *weighted_capacity; /* as sent ("1".."999"), NULL when none */
    int weight;              /* its value, 1 when none */
    /* LaunchTemplateSpecification: id and name resolved, version as sent; all NULL when
     * the override has none (the policy's template launches it) */
    char *launch_template_id;
    char *launch_template_name;
    char *launch_template_version;
};

/* MixedInstancesPolicy as DescribeAutoScalingGroups shows it (docs/autoscaling.md 2.1).
 * The policy's LaunchTemplateSpecification is the group's launch_template_* members. */
struct sc_asg_mixed_info {
    struct sc_asg_override_info *overrides; /* in the order sent */
    int noverrides;
    int weighted; /* the overrides carry WeightedCapacity */
    /* InstancesDistribution, AWS's defaults filled in */
    char *on_demand_allocation_strategy;          /* "prioritized" */
    int on_demand_base_capacity;                  /* 0 */
    int on_demand_percentage_above_base_capacity; /* 100 */
    char *spot_allocation_strategy;               /* "lowest-price" */
    int has_spot_instance_pools;  /* described: sent, or the strategy is lowest-price */
    int spot_instance_pools;      /* 2 unless sent */
    int spot_instance_pools_sent; /* a request set it */
    char *spot_max_price;         /* NULL when none */
};

struct sc_asg_group_info {
    char *auto_scaling_group_name;
    char *auto_scaling_group_arn;
    char *launch_configuration_name; /* NULL with a template */
    char *launch_template_id;        /* NULL unless given */
    char *launch_template_name;
    char *launch_template_version;  /* NULL when not given ($Default at launch) */
    int mixed_instances_policy;     /* the template came inside MixedInstancesPolicy */
    struct sc_asg_mixed_info mixed; /* its details (zeroed without a policy) */
    char *desired_capacity_type;    /* "units", NULL when not given */
    int min_size;
    int max_size;
    int desired_capacity;
    int default_cooldown; /* seconds */
    int has_default_instance_warmup;
    int default_instance_warmup; /* seconds */
    char **availability_zones;
    int navailability_zones;
    char *vpc_zone_identifier;     /* "" when none */
    char **subnets;                /* parallel to availability_zones when VPC-based */
    char *health_check_type;       /* "EC2" */
    int health_check_grace_period; /* seconds */
    char **load_balancer_names;
    int nload_balancer_names;
    char **target_group_arns; /* ELBv2 target groups (asg_traffic.c) */
    int ntarget_group_arns;
    char **termination_policies;
    int ntermination_policies;
    struct sc_asg_tag *tags;
    int ntags;
    int new_instances_protected_from_scale_in;
    /* CapacityRebalance: stored and described; it acts on Spot rebalance recommendations,
     * which neither world sends */
    int capacity_rebalance;
    /* PlacementGroup, Context, ServiceLinkedRoleARN: NULL when never set (the role then
     * describes as the account's AWSServiceRoleForAutoScaling); stored and described as
     * sent, nothing acts on them (instances have no placement, IAM is not modelled) */
    char *placement_group;
    char *context;
    char *service_linked_role_arn;
    /* MaxInstanceLifetime (docs/autoscaling.md 13): seconds, 0 = none; described once set */
    int has_max_instance_lifetime;
    int max_instance_lifetime;
    int64_t created_ms;
    unsigned suspended;                      /* bit (1u << enum sc_asg_process) */
    int64_t suspended_ms[SC_ASG_PROC_COUNT]; /* SuspensionReason "User suspended at <t>" */
    unsigned metrics_enabled;                /* bit i = sc_asg_metric_str(i) */
    const char *status;                      /* NULL, or "Delete in progress" */
};

/* One LaunchTemplate.Overrides member of a request. */
struct sc_asg_override_req {
    const char *instance_type;
    const char *weighted_capacity; /* NULL: none */
    /* its LaunchTemplateSpecification (all NULL: none) */
    const char *launch_template_id;
    const char *launch_template_name;
    const char *launch_template_version;
    int has_instance_requirements; /* InstanceRequirements was sent (not supported) */
};

/* MixedInstancesPolicy of a request; absent members are NULL / has_* 0. */
struct sc_asg_mixed_req {
    /* LaunchTemplate.LaunchTemplateSpecification */
    int has_launch_template_spec;
    const char *launch_template_id;
    const char *launch_template_name;
    const char *launch_template_version;
    int has_overrides; /* LaunchTemplate.Overrides was sent (maybe empty) */
    const struct sc_asg_override_req *overrides;
    int noverrides;
    /* InstancesDistribution */
    const char *on_demand_allocation_strategy;
    int has_on_demand_base_capacity;
    int on_demand_base_capacity;
    int has_on_demand_percentage_above_base_capacity;
    int on_demand_percentage_above_base_capacity;
    const char *spot_allocation_strategy;
    int has_spot_instance_pools;
    int spot_instance_pools;
    const char *spot_max_price; /* "" removes the price */
};

/* Create and Update take the same request; Update leaves absent fields unchanged. */
struct sc_asg_traffic_source;
struct sc_asg_group_req {
    const char *auto_scaling_group_name;
    const char *launch_configuration_name;
    /* Create only: InstanceId, a launch configuration named after the group is derived
     * from the instance (sc_asg_lc_from_instance); without zones and subnets the group
     * takes the instance's subnet, else its zone (docs/autoscaling.md 15). */
    const char *instance_id;
    /* the top-level LaunchTemplate */
    const char *launch_template_id;
    const char *launch_template_name;
    const char *launch_template_version;
    const struct sc_asg_mixed_req *mixed_instances_policy; /* NULL when not sent */
    const char *desired_capacity_type;
    int has_min_size;
    int min_size;
    int has_max_size;
    int max_size;
    int has_desired_capacity;
    int desired_capacity;
    int has_default_cooldown;
    int default_cooldown;
    int has_default_instance_warmup;
    int default_instance_warmup;
    const char *const *availability_zones;
    int navailability_zones;
    const char *vpc_zone_identifier; /* "subnet-a,subnet-b" */
    const char *health_check_type;
    int has_health_check_grace_period;
    int health_check_grace_period;
    const char *const *load_balancer_names; /* Create only */
    int nload_balancer_names;
    const char *const *target_group_arns; /* Create only */
    int ntarget_group_arns;
    /* Create only: each added to the load balancers or target groups (asg_traffic.c) */
    const struct sc_asg_traffic_source *traffic_sources;
    int ntraffic_sources;
    const char *const *termination_policies;
    int ntermination_policies;
    const struct sc_asg_tag_req *tags; /* Create only */
    int ntags;
    int has_new_instances_protected_from_scale_in;
    int new_instances_protected_from_scale_in;
    int has_capacity_rebalance;
    int capacity_rebalance;
    const char *placement_group;
    const char *context;
    const char *service_linked_role_arn;
    /* MaxInstanceLifetime: 0 or >= 86400 (docs/autoscaling.md 13) */
    int has_max_instance_lifetime;
    int max_instance_lifetime;
};

/* MaxInstanceLifetime's rule (docs/autoscaling.md 13.1): 0 (none) or at least
 * SC_ASG_MIN_INSTANCE_LIFETIME seconds; ValidationError otherwise. */
#define SC_ASG_MIN_INSTANCE_LIFETIME 86400
enum sc_status sc_asg_lifetime_check(int seconds, struct sc_error *err);

/* CreateAutoScalingGroup (spec 3.1, 3.8). Errors: AlreadyExists (`AutoScalingGroup by
 * this name already exists - A group with the name <n> already exists`, or `...
 * already exists and is pending delete`), ValidationError (the texts of 3.1; exactly
 * one of launch configuration / template / mixed policy, and the policy's rules with
 * their texts in docs/autoscaling.md 2.2; zones or subnets required; unknown launch
 * configuration, zone, subnet, load balancer, health check type, termination policy),
 * LimitExceeded past 500 groups. Launch templates (the top-level one, the policy's and its
 * overrides') are stored with both id and name as env.launch_template_resolve gives them,
 * their Version only as given. A desired capacity above 0 records
 * the cause "a user request created an AutoScalingGroup changing the desired capacity
 * from 0 to N"; instances launch at the next sc_asg_step. */
enum sc_status sc_asg_create_group(struct sc_asg *asg, const struct sc_asg_group_req *req,
                                   int64_t now_ms, struct sc_error *err);
/* UpdateAutoScalingGroup: without desired, MinSize above the current desired raises it,
 * MaxSize below lowers it (spec 3.1). A MixedInstancesPolicy is merged over the group's
 * (the members sent replace theirs; docs/autoscaling.md 2.1), a LaunchConfigurationName or
 * LaunchTemplate replaces it; every instance then counts its type's current weight. */
enum sc_status sc_asg_update_group(struct sc_asg *asg, const struct sc_asg_group_req *req,
                                   int64_t now_ms, struct sc_error *err);
/* DeleteAutoScalingGroup (spec 3.8): without force, ResourceInUse while instances are in
 * the group (ScalingActivityInProgress when every remaining instance is already
 * terminating); with force, terminates every instance and the group shows "Delete in
 * progress" until they are gone. Policies and their target-tracking alarms go at once. */
enum sc_status sc_asg_delete_group(struct sc_asg *asg, const char *name, int force_delete,
                                   int64_t now_ms, struct sc_error *err);

int sc_asg_group_count(const struct sc_asg *asg);
const struct sc_asg_group_info *sc_asg_group_at(const struct sc_asg *asg, int i); /* by name */
const struct sc_asg_group_info *sc_asg_group_find(const struct sc_asg *asg, const char *name);
/* Not-found error for operations naming a group: ValidationError `AutoScalingGroup name
 * not found - AutoScalingGroup: <n> not found` (`... - null` for NULL). */
enum sc_status sc_asg_group_not_found(const char *name, struct sc_error *err);
/* The group's members (every lifecycle state), in launch order. */
int sc_asg_group_instance_count(const struct sc_asg_group_info *g);
const struct sc_asg_instance_info *sc_asg_group_instance_at(const struct sc_asg_group_info *g,
                                                            int i);
/* Which group an instance belongs to (NULL: none); also its info through *out. */
const struct sc_asg_group_info *sc_asg_instance_group(const struct sc_asg *asg,
                                                      const char *instance_id,
                                                      const struct sc_asg_instance_info **out);
/* 1 when the instance is InService and past its warm-up (counts in group metrics). */
int sc_asg_instance_warmed(const struct sc_asg *asg, const char *instance_id, int64_t now_ms);
/* Capacity counted toward desired, in units (docs/autoscaling.md 2.3): the weights of
 * the Pending* and InService members (their number without weights). */
int sc_asg_group_capacity(const struct sc_asg_group_info *g);

/* The group's instances by lifecycle: Pending (with its wait and proceed states), InService,
 * Terminating (with its wait and proceed states). One pass; the simulator's timeline. */
void sc_asg_group_lifecycle_counts(const struct sc_asg_group_info *g, int *pending, int *in_service,
                                   int *terminating);

/* --- instances -------------------------------------------------------------------------- */

/* SetDesiredCapacity: ValidationError `New SetDesiredCapacity value 2 is above max value 1
 * for the AutoScalingGroup.` / `... below min value ...`; with honor_cooldown inside a
 * cooldown: ScalingActivityInProgress (open question 8.4, decided). */
enum sc_status sc_asg_set_desired_capacity(struct sc_asg *asg, const char *group, int desired,
                                           int honor_cooldown, int64_t now_ms,
                                           struct sc_error *err);

struct sc_asg_activity_info {
    char activity_id[SC_RNG_UUID_LEN];
    char *auto_scaling_group_name;
    char *auto_scaling_group_arn;
    char *description;
    char *cause;
    int64_t start_ms;
    int64_t end_ms;          /* 0 while in progress */
    const char *status_code; /* "PreInService", "InProgress", ..., "Successful" */
    char *status_message;    /* NULL when none */
    int progress;
    char *details;     /* {"Subnet ID":"subnet-1","Availability Zone":"us-east-1a"} */
    int group_deleted; /* AutoScalingGroupState "Deleted" (else "InService") */
};

/* TerminateInstanceInAutoScalingGroup. With decrement: ValidationError `Currently,
 * desiredSize equals minSize (1). Terminating instance without replacement will violate
 * group's min size constraint. Either set shouldDecrementDesiredCapacity flag to false
 * or lower group's min size.`; without: a replacement launches. *out (optional) is the
 * terminate activity. Unknown instance: ValidationError `Instance Id not found - No
 * managed instance found for instance ID: i-x`. */
enum sc_status sc_asg_terminate_instance(struct sc_asg *asg, const char *instance_id,
                                         int should_decrement, int64_t now_ms,
                                         const struct sc_asg_activity_info **out,
                                         struct sc_error *err);
/* SetInstanceHealth "Healthy"/"Unhealthy"; with should_respect_grace_period (AWS's
 * default) a report inside the grace period is ignored. Unhealthy instances are replaced
 * at the next step ("... in response to a user health-check"). */
enum sc_status sc_asg_set_instance_health(struct sc_asg *asg, const char *instance_id,
                                          const char *health_status,
                                          int should_respect_grace_period, int64_t now_ms,
                                          struct sc_error *err);
/* AttachInstances (<= 20 running instances, same zones as the group): desired grows;
 * ValidationError past MaxSize. */
enum sc_status sc_asg_attach_instances(struct sc_asg *asg, const char *group,
                                       const char *const *ids, int nids, int64_t now_ms,
                                       struct sc_error *err);
/* DetachInstances: deregisters, then the instance leaves the group (EC2 keeps it); with
 * decrement desired shrinks (must stay >= min), else a replacement launches. */
enum sc_status sc_asg_detach_instances(struct sc_asg *asg, const char *group,
                                       const char *const *ids, int nids, int should_decrement,
                                       int64_t now_ms, struct sc_error *err);
/* EnterStandby (InService only; decrement only if desired stays >= min) and ExitStandby
 * (Standby only; desired grows, must stay <= max). */
enum sc_status sc_asg_enter_standby(struct sc_asg *asg, const char *group, const char *const *ids,
                                    int nids, int should_decrement, int64_t now_ms,
                                    struct sc_error *err);
enum sc_status sc_asg_exit_standby(struct sc_asg *asg, const char *group, const char *const *ids,
                                   int nids, int64_t now_ms, struct sc_error *err);

/* Scaling activities of a group, AWS order (in progress first, then newest first).
 * Returns the count, or -1 for an unknown group. */
int sc_asg_activity_count(const struct sc_asg *asg, const char *group);
const struct sc_asg_activity_info *sc_asg_activity_at(const struct sc_asg *asg, const char *group,
                                                      int i);
/* By id, among live groups' activities and then deleted groups' (group_deleted tells
 * which: DescribeScalingActivities shows the latter only with IncludeDeletedGroups). */
const struct sc_asg_activity_info *sc_asg_activity_find(const struct sc_asg *asg,
                                                        const char *activity_id);
/* Activities of deleted groups (IncludeDeletedGroups). When a group is removed (deleted,
 * or a force delete's last instance gone) its activities move to one list for the whole
 * asg, marked group_deleted, and are kept as a live group's are: a finished one until six
 * weeks after its end (dropped by the sc_asg_step after that; no due time of its own in
 * sc_asg_next_due_ms), at most SC_ASG_MAX_DELETED_ACTIVITIES in all, the oldest dropped
 * first. They do not move sc_asg_activity_version. AWS order (in progress first, then
 * newest first). group NULL: every deleted group's; a name: those of deleted groups of
 * that name (a group deleted, then created again, keeps its old activities here). Count
 * is 0 when there are none. */
int sc_asg_deleted_activity_count(const struct sc_asg *asg, const char *group);
const struct sc_asg_activity_info *sc_asg_deleted_activity_at(const struct sc_asg *asg,
                                                              const char *group, int i);
/* 1 when the group has an activity in progress. */
int sc_asg_group_busy(const struct sc_asg *asg, const char *group);

/* --- load balancers, processes, tags, metrics ---------------------------------------- */

/* AttachLoadBalancers / DetachLoadBalancers (<= 10 names per call). Unknown balancer:
 * ValidationError `Provided Load Balancers may not be valid. Please ensure they exist and
 * try again.` */
enum sc_status sc_asg_attach_load_balancers(struct sc_asg *asg, const char *group,
                                            const char *const *names, int nnames, int64_t now_ms,
                                            struct sc_error *err);
enum sc_status sc_asg_detach_load_balancers(struct sc_asg *asg, const char *group,
                                            const char *const *names, int nnames, int64_t now_ms,
                                            struct sc_error *err);
/* DescribeLoadBalancers State: "Adding" / "Added" / "InService" (one instance of the
 * group InService at the balancer) for g's i-th balancer. */
const char *sc_asg_load_balancer_state(const struct sc_asg *asg, const struct sc_asg_group_info *g,
                                       int i);

/* --- ELBv2 target groups and traffic sources (asg_traffic.c; docs/elbv2.md 9) -------------- */

/* Attach/DetachLoadBalancerTargetGroups (<= 10 ARNs per call). Each must exist
 * (env.lb_exists): ValidationError `Provided Target Groups may not be valid. Please ensure
 * they exist and try again.`. Attaching registers the InService instances; detaching
 * deregisters them (the target group drains them). */
enum sc_status sc_asg_attach_target_groups(struct sc_asg *asg, const char *group,
                                           const char *const *arns, int n, int64_t now_ms,
                                           struct sc_error *err);
enum sc_status sc_asg_detach_target_groups(struct sc_asg *asg, const char *group,
                                           const char *const *arns, int n, int64_t now_ms,
                                           struct sc_error *err);
/* DescribeLoadBalancerTargetGroups State of g's i-th target group: "Added", or "InService"
 * when one of the group's instances is healthy in it. */
const char *sc_asg_target_group_state(const struct sc_asg *asg, const struct sc_asg_group_info *g,
                                      int i);
/* Load balancers and target groups detached from g whose instances are still being
 * deregistered: state "Removing" while one of them is registered there (draining), then
 * "Removed" until the next sc_asg_step drops the source (AWS: once all instances are
 * deregistered it can no longer be described). sc_asg_removing_at gives the i-th one's name
 * (NULL past the end), whether it is a target group (*elbv2) and its state. Describe
 * LoadBalancers / LoadBalancerTargetGroups / TrafficSources list them after the attached
 * ones. */
int sc_asg_removing_count(const struct sc_asg_group_info *g);
const char *sc_asg_removing_at(const struct sc_asg *asg, const struct sc_asg_group_info *g, int i,
                               int *elbv2, const char **state);
/* AttachTrafficSources / DetachTrafficSources, and CreateAutoScalingGroup's TrafficSources:
 * type "elbv2" (a target group ARN) or "elb" (a classic load balancer name); others
 * ValidationError. */
struct sc_asg_traffic_source {
    const char *identifier;
    const char *type; /* NULL: elbv2 for a target group ARN, elb for a name */
};
enum sc_status sc_asg_attach_traffic_sources(struct sc_asg *asg, const char *group,
                                             const struct sc_asg_traffic_source *t, int n,
                                             int64_t now_ms, struct sc_error *err);
enum sc_status sc_asg_detach_traffic_sources(struct sc_asg *asg, const char *group,
                                             const struct sc_asg_traffic_source *t, int n,
                                             int64_t now_ms, struct sc_error *err);

/* Suspend/ResumeProcesses; no names = all. Unknown name: ValidationError. */
enum sc_status sc_asg_suspend_processes(struct sc_asg *asg, const char *group,
                                        const char *const *names, int nnames, int64_t now_ms,
                                        struct sc_error *err);
enum sc_status sc_asg_resume_processes(struct sc_asg *asg, const char *group,
                                       const char *const *names, int nnames, int64_t now_ms,
                                       struct sc_error *err);

/* CreateOrUpdateTags / DeleteTags (resource type auto-scaling-group). */
enum sc_status sc_asg_create_or_update_tags(struct sc_asg *asg, const struct sc_asg_tag_req *tags,
                                            int ntags, int64_t now_ms, struct sc_error *err);
enum sc_status sc_asg_delete_tags(struct sc_asg *asg, const struct sc_asg_tag_req *tags, int ntags,
                                  int64_t now_ms, struct sc_error *err);

/* Enable/DisableMetricsCollection; no names = all; granularity must be "1Minute". */
enum sc_status sc_asg_enable_metrics_collection(struct sc_asg *asg, const char *group,
                                                const char *const *metrics, int nmetrics,
                                                const char *granularity, int64_t now_ms,
                                                struct sc_error *err);
enum sc_status sc_asg_disable_metrics_collection(struct sc_asg *asg, const char *group,
                                                 const char *const *metrics, int nmetrics,
                                                 int64_t now_ms, struct sc_error *err);

/* --- policies ----------------------------------------------------------------------------- */

enum sc_asg_policy_type {
    SC_ASG_SIMPLE_SCALING = 0,
    SC_ASG_STEP_SCALING,
    SC_ASG_TARGET_TRACKING_SCALING,
    SC_ASG_PREDICTIVE_SCALING, /* scaler/asg_predict.h */
};
const char *sc_asg_policy_type_str(enum sc_asg_policy_type t);

struct sc_asg_tt_req {
    const char *predefined_metric_type; /* ASGAverageCPUUtilization, ... or NULL */
    const char *resource_label;         /* ALBRequestCountPerTarget */
    /* CustomizedMetricSpecification (when no predefined type). */
    const char *metric_name;
    const char *namespace_;
    const struct sc_asg_kv *dimensions;
    int ndimensions;
    const char *statistic;
    const char *unit;
    /* CustomizedMetricSpecification.Metrics (metric math, docs/metric-math.md 7) */
    int has_metrics;
    const struct sc_alarm_query *metrics;
    int nmetrics;
    double target_value;
    int disable_scale_in;
};

struct sc_asg_policy_req {
    const char *auto_scaling_group_name;
    const char *policy_name;
    const char *policy_type; /* NULL: SimpleScaling */
    const char *adjustment_type;
    int has_scaling_adjustment;
    int64_t scaling_adjustment;
    int has_min_adjustment_magnitude;
    int64_t min_adjustment_magnitude;
    /* it came as MinAdjustmentStep, the older name of the same setting: described under
     * both names (docs/autoscaling.md 3) */
    int min_adjustment_step;
    int has_cooldown;
    int cooldown;
    const char *metric_aggregation_type; /* NULL: Average */
    int has_estimated_instance_warmup;
    int estimated_instance_warmup;
    const struct sc_step_adjustment *step_adjustments;
    int nstep_adjustments;
    int has_target_tracking;
    struct sc_asg_tt_req target_tracking;
    int has_enabled;
    int enabled;
    /* PredictiveScalingConfiguration (asg_predict.h), NULL when not sent */
    const struct sc_asg_predictive_req *predictive;
};

struct sc_asg_predictive_info;

struct sc_asg_policy_info {
    char *auto_scaling_group_name;
    char *policy_name;
    char *policy_arn;
    enum sc_asg_policy_type policy_type;
    int has_adjustment_type;
    enum sc_adjustment_type adjustment_type;
    int has_scaling_adjustment;
    int64_t scaling_adjustment;
    int has_min_adjustment_magnitude;
    int64_t min_adjustment_magnitude;
    /* it came as MinAdjustmentStep, the older name of the same setting: described under
     * both names (docs/autoscaling.md 3) */
    int min_adjustment_step;
    int has_cooldown;
    int cooldown;
    char *metric_aggregation_type; /* step only */
    int has_estimated_instance_warmup;
    int estimated_instance_warmup;
    struct sc_step_adjustment *step_adjustments;
    int nstep_adjustments;
    /* target tracking */
    char *predefined_metric_type;
    char *resource_label;
    char *metric_name;
    char *namespace_;
    struct sc_asg_tag *dimensions; /* key = Name, value = Value */
    int ndimensions;
    char *statistic;
    char *unit;
    struct sc_alarm_query *metrics; /* CustomizedMetricSpecification.Metrics, owned */
    int nmetrics;
    double target_value;
    int disable_scale_in;
    char *alarm_names[2]; /* target tracking: High, Low (NULL when none) */
    char *alarm_arns[2];
    int enabled;
    /* PredictiveScaling: its configuration and forecast (owned), NULL for other types */
    struct sc_asg_predictive_info *predictive;
};

/* PutScalingPolicy: creates or replaces (same ARN) the group's policy. Target tracking
 * (re)creates its alarms through env.put_alarm. *out (optional) gives PolicyARN and
 * Alarms. ValidationError for inconsistent parameters, LimitExceeded past 50. */
enum sc_status sc_asg_put_scaling_policy(struct sc_asg *asg, const struct sc_asg_policy_req *req,
                                         int64_t now_ms, const struct sc_asg_policy_info **out,
                                         struct sc_error *err);
/* DeletePolicy by name (group required) or ARN; target-tracking alarms go with it. */
enum sc_status sc_asg_delete_policy(struct sc_asg *asg, const char *group,
                                    const char *policy_name_or_arn, int64_t now_ms,
                                    struct sc_error *err);
/* All policies, by group (name order) then creation order. */
int sc_asg_policy_count(const struct sc_asg *asg);
const struct sc_asg_policy_info *sc_asg_policy_at(const struct sc_asg *asg, int i);
/* By ARN, or by name within group. */
const struct sc_asg_policy_info *sc_asg_policy_find(const struct sc_asg *asg, const char *group,
                                                    const char *policy_name_or_arn);

struct sc_asg_exec_req {
    const char *auto_scaling_group_name; /* may be NULL with an ARN */
    const char *policy_name;             /* name or ARN */
    int honor_cooldown;
    int has_metric_value;
    double metric_value;
    int has_breach_threshold;
    double breach_threshold;
};

/* ExecutePolicy (spec 4.6). HonorCooldown applies to SimpleScaling only (inside the
 * cooldown: ScalingActivityInProgress); StepScaling requires MetricValue and
 * BreachThreshold (and a matching step); TargetTracking: ValidationError. */
enum sc_status sc_asg_execute_policy(struct sc_asg *asg, const struct sc_asg_exec_req *req,
                                     int64_t now_ms, struct sc_error *err);

/* What an alarm knows when it invokes a policy. */
struct sc_asg_alarm_ctx {
    const char *alarm_name;
    int has_metric_value; /* the aggregated latest datapoint(s) */
    double metric_value;
    double threshold;
};

/* An alarm action naming a policy ARN (the world calls this; each call is logged in the
 * alarm's history). SC_OK: executed ("Successfully executed action <arn>"); otherwise
 * err->message is what AWS logs after "Failed to execute Auto Scaling action: ", e.g.
 * `Auto Scaling Policy not executed because its effect does not override in-progress
 * scaling actions`. Suspended AlarmNotification: SC_OK and nothing runs. */
enum sc_status sc_asg_alarm_action(struct sc_asg *asg, const char *policy_arn,
                                   const struct sc_asg_alarm_ctx *ctx, int64_t now_ms,
                                   struct sc_error *err);

/* --- time ---------------------------------------------------------------------------------- */

/* A number that changes whenever an activity is created, finishes or is dropped, in any
 * group: a caller that mirrors activities reads them again only when it moved. */
uint64_t sc_asg_activity_version(const struct sc_asg *asg);

/* The log of policy decisions and lifecycle-hook notes (scaler/decision.h,
 * docs/decisions.md): every policy evaluation and lifecycle action of the asg's groups.
 * Borrowed; lives as long as the asg. */
struct sc_decision_log;
const struct sc_decision_log *sc_asg_decisions(const struct sc_asg *asg);

/* Health sweep + replacement, reconciliation, lifecycle transitions, cooldowns, group
 * metrics (each minute), removal of force-deleted groups once empty. Allocates only for
 * new instances and activities. */
void sc_asg_step(struct sc_asg *asg, int64_t now_ms);
/* Earliest time > now_ms at which sc_asg_step has timed work; INT64_MAX when none. With
 * env.health_inputs_sig, health-sweep instants are left out while the last step found the
 * sweep would change nothing (a caller steps at once after anything it changes, so a
 * change is seen by a step at the instant it was made). */
int64_t sc_asg_next_due_ms(const struct sc_asg *asg, int64_t now_ms);

/* --- lookups ----------------------------------------------------------------------------- */

struct sc_asg_account_limits {
    int max_number_of_auto_scaling_groups;
    int max_number_of_launch_configurations;
    int number_of_auto_scaling_groups;
    int number_of_launch_configurations;
};
void sc_asg_account_limits(const struct sc_asg *asg, struct sc_asg_account_limits *out);
/* NULL-terminated string lists for the Describe*Types operations. */
const char *const *sc_asg_adjustment_types(void);
const char *const *sc_asg_termination_policy_types(void);
const char *const *sc_asg_scaling_process_types(void);
const char *const *sc_asg_metric_collection_types(void);
const char *const *sc_asg_metric_granularity_types(void);
const char *const *sc_asg_lifecycle_hook_types(void);
const char *const *sc_asg_notification_types(void);

/* --- save / load (the emulator's --state FILE) ------------------------------------------ */

struct json_t;
/* The whole Auto Scaling state as a new JSON object (launch configurations, groups with
 * instances, activities, policies and the private bookkeeping), or NULL on OOM. The
 * shape is scalelab's own (docs/state.md). */
struct json_t *sc_asg_save(const struct sc_asg *asg);
/* Loads what sc_asg_save wrote into a freshly created, empty asg (same account and
 * region). All or nothing: on error (ValidationError "state: asg: <member>: <problem>")
 * the asg is left empty. Borrowed obj. */
enum sc_status sc_asg_load(struct sc_asg *asg, const struct json_t *obj, struct sc_error *err);

#endif
