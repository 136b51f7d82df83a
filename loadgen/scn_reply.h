/* loadgen/scn_reply.h: the pure parts of `loadgen scenario`: AWS replies (Auto Scaling,
 * CloudWatch, ELB XML documents) read into what a timeline sample and its events need,
 * the {arn:POLICY} placeholders of the plan resolved (timestamps are read with
 * scaler/civil.h's sc_civil_parse_iso).
 *
 * No I/O and no clock: every function works on the documents and values given.
 * Ownership: documents are borrowed; results are plain data in the caller's storage. */
#ifndef LOADGEN_SCN_REPLY_H
#define LOADGEN_SCN_REPLY_H

#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#define SCN_ID_MAX   64
#define SCN_TEXT_MAX 512

/* ---- placeholders ---- */

/* Looks a policy's PolicyARN up by the scenario's policy name (NULL when unknown). */
typedef const char *(*scn_arn_lookup_fn)(const char *policy, void *ud);

/* Copies value into out (n bytes) with every "{arn:NAME}" replaced by lookup(NAME).
 * Returns 0, or -1 when a name is unknown (out then names it: "no PolicyARN for NAME")
 * or the result does not fit. */
int scn_arn_substitute(const char *value, scn_arn_lookup_fn lookup, void *ud, char *out, size_t n);
/* Copies value into out (n bytes) with every ELBv2 placeholder of the plan ("{tg:T}",
 * "{alb:A}", "{listener:A:PORT}", "{rule:A:PORT:PRIO}", "{subnet:ZONE}", "{vpc:default}",
 * "{lbdim:A}", "{tgdim:T}"; loadgen/scenario.h) replaced by lookup("KIND:NAME"); any other
 * brace (a redirect's "#{path}") is copied. Returns 0, or -1 when a key is unknown (out
 * then names it: "nothing made for KEY") or the result does not fit. */
int scn_ref_substitute(const char *value, scn_arn_lookup_fn lookup, void *ud, char *out, size_t n);

/* A value that is "{at:MS}" as the ISO 8601 time (seconds, UTC) t0_ms + MS into out (n
 * bytes): 1; any other value: 0 and out untouched. */
int scn_at_substitute(const char *value, int64_t t0_ms, char *out, size_t n);

/* ---- DescribeAutoScalingGroups ---- */

#define SCN_MAX_INSTANCES 256

struct scn_group_state {
    int found; /* the group is in the reply */
    int desired, min, max;
    int in_service, pending, terminating, other;
    int ninstances;      /* instances listed (at most SCN_MAX_INSTANCES kept) */
    char pool_state[16]; /* DescribeWarmPool: the pool's PoolState ("" otherwise) */
    struct {
        char id[SCN_ID_MAX];
        char lifecycle[32]; /* "InService", "Pending", ... */
        char health[16];    /* "Healthy", "Unhealthy" */
    } inst[SCN_MAX_INSTANCES];
};

/* Fills st from the reply's group named name (st->found = 0 when absent). Pending
 * counts Pending, Pending:Wait and Pending:Proceed; terminating counts Terminating,
 * Terminating:Wait and Terminating:Proceed. */
void scn_reply_group(xmlDoc *doc, const char *name, struct scn_group_state *st);

/* ---- DescribeWarmPool ---- */

/* Fills st->inst and st->ninstances from the reply's Instances (the warm pool's instances
 * with their Warmed:* LifecycleState; the counts stay 0: they are not the group's), st->found
 * = 1 when the reply has a WarmPoolConfiguration; the NextToken (or "") into next (n bytes). */
void scn_reply_warm_pool(xmlDoc *doc, struct scn_group_state *st, char *next, size_t n);

/* ---- LaunchInstances ---- */

struct sc_asg_launch_info;
/* Fills *rep (zeroed first; scaler/asg_launch.h's reply, the simulator's shape) from a
 * LaunchInstances reply: AutoScalingGroupName, ClientToken, each Instances and Errors
 * member. Free with scn_reply_launch_free(). */
void scn_reply_launch(xmlDoc *doc, struct sc_asg_launch_info *rep);
void scn_reply_launch_free(struct sc_asg_launch_info *rep);

/* ---- GetMetricStatistics ---- */

/* The average over the reply's datapoints, weighted by SampleCount when present; NAN when
 * there is none. *ndatapoints (optional) receives their count. */
double scn_reply_metric_average(xmlDoc *doc, int *ndatapoints);
/* The Average of the datapoint with the latest Timestamp (its time into *t_ms when not
 * NULL); NAN when there is none. */
double scn_reply_metric_latest(xmlDoc *doc, int64_t *t_ms);

/* ---- DescribeAlarms ---- */

struct scn_alarm_state {
    int found;
    char state[32];            /* "OK", "ALARM", "INSUFFICIENT_DATA" */
    int64_t updated_ms;        /* StateUpdatedTimestamp, epoch ms (0 when absent) */
    char reason[SCN_TEXT_MAX]; /* StateReason */
    char metric[128];          /* MetricName */
    char comparison[64];       /* ComparisonOperator */
    double threshold;
};

/* Fills st from the reply's MetricAlarms member named name, else its CompositeAlarms
 * member (state, reason, time; no metric). */
void scn_reply_alarm(xmlDoc *doc, const char *name, struct scn_alarm_state *st);
/* DescribeAlarmHistory: fn for each AlarmHistoryItems member (Timestamp in epoch ms,
 * HistorySummary), in the reply's order. Returns the count. */
int scn_reply_history(xmlDoc *doc, void (*fn)(int64_t t_ms, const char *summary, void *ud),
                      void *ud);
/* Calls fn for each MetricAlarms member's AlarmName, in order. Returns the count. */
int scn_reply_alarm_names(xmlDoc *doc, void (*fn)(const char *name, void *ud), void *ud);

/* ---- DescribeScalingActivities ---- */

struct scn_activity {
    char id[SCN_ID_MAX];
    char group[256];
    char status[32]; /* StatusCode */
    char cause[SCN_TEXT_MAX];
    char description[SCN_TEXT_MAX];
    int64_t start_ms, end_ms; /* epoch ms; end 0 while unfinished */
};

/* 1 when the StatusCode is final (Successful, Failed, Cancelled). */
int scn_activity_done(const char *status);
/* Calls fn for each Activities member, oldest first (AWS lists the newest first).
 * Returns the count. */
int scn_reply_activities(xmlDoc *doc, void (*fn)(const struct scn_activity *a, void *ud), void *ud);

/* ---- DescribeInstanceHealth ---- */

/* Counts the reply's InstanceStates by State: InService into *in_service, the rest into
 * *out_of_service. */
void scn_reply_instance_health(xmlDoc *doc, int *in_service, int *out_of_service);

/* ---- DescribeTargetHealth (ELBv2) ---- */

/* Counts the reply's TargetHealthDescriptions by TargetHealth.State: healthy into
 * *healthy, the rest (initial, unhealthy, draining, unused ...) into *other. */
void scn_reply_target_health(xmlDoc *doc, int *healthy, int *other);

/* ---- GetMetricStatistics with Sum and Maximum ---- */

/* Adds the datapoints' Sum into *sum (0 without any) and their largest Maximum into *max
 * (NAN without any); returns the count of datapoints. */
int scn_reply_metric_sum_max(xmlDoc *doc, double *sum, double *max);

/* ---- PutScalingPolicy / DescribeLoadBalancers ---- */

/* The text of the first element named name (PolicyARN, DNSName ...) into out; returns 0,
 * or -1 when absent. */
int scn_reply_text(xmlDoc *doc, const char *name, char *out, size_t n);

#endif
