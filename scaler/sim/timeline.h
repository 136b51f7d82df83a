/* scaler/sim/timeline.h: the stream of samples and events a simulation produces.
 *
 * The engine pushes one sample per sample interval (default 60 s of virtual time,
 * `--sample`) and one event per scaling activity, alarm transition and fault. The
 * timeline is a streaming sink: every push is handed at once to the attached sinks (the
 * terminal table, the `--json` writer, the elasticity accumulator) and then folded into a
 * bounded, downsampled copy kept for the HTML report. Memory is fixed at creation
 * (max_buckets buckets, max_events events), so a simulated year costs what a day does.
 *
 * Downsampling: while fewer than max_buckets samples have arrived, each bucket holds one
 * sample (min = mean = max). When the buckets are full, neighbours merge pairwise and the
 * span of a bucket doubles, so the kept copy always covers the whole run in at most
 * max_buckets buckets of equal span (the last one may be partial). A bucket keeps, per
 * figure, the minimum, the maximum and the mean of the samples it merged; counts
 * (completed, failed) are summed. Events are kept in time order; when max_events is
 * reached, every second kept event is dropped and from then on only every 2^k-th event
 * is admitted (k doubles at each thinning), so the kept events still span the run.
 * Sinks always see every sample and every event.
 *
 * Ownership: the timeline copies names at creation; pushed samples and events are
 * borrowed for the duration of the call (their strings are copied when kept). Views
 * returned by the read functions are borrowed, valid until the next push or destroy.
 * Single-threaded. Deterministic: the kept copy depends only on what was pushed. */
#ifndef SCALER_SIM_TIMELINE_H
#define SCALER_SIM_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

struct sc_decision;
struct sc_hook_note;
struct sc_asg_launch_info;
struct sim_launch;       /* scaler/sim/scenario.h */
struct sim_demand_basis; /* scaler/sim/elastic.h */

/* An alarm's state in a sample (mirrors CloudWatch's three states). */
enum sim_alarm_state {
    SIM_ALARM_OK = 0,
    SIM_ALARM_ALARM = 1,
    SIM_ALARM_INSUFFICIENT_DATA = 2,
};

/* "OK", "ALARM", "INSUFFICIENT_DATA". */
const char *sim_alarm_state_str(enum sim_alarm_state s);

/* One Auto Scaling group's figures in a sample, as at the end of the interval except
 * where said. */
struct sim_group_sample {
    int desired;     /* DesiredCapacity */
    int in_service;  /* instances in lifecycle state InService */
    int pending;     /* Pending (launching, booting, not yet InService) */
    int terminating; /* Terminating (draining, shutting down) */
    /* Average CPUUtilization (percent) over the interval across the group's running
     * instances (warming ones included: this is what the machines did, not the
     * scaling metric); NAN when no instance ran during the interval. */
    double cpu_pct;
    /* Demand in instances: the minimal number of InService instances that would keep
     * the group's CPU at or below the target utilization (the scenario's
     * `demand_target_pct`, default 70) at the interval's offered load:
     * ceil(offered work / (target * workers)), at least 1 while any load is offered,
     * 0 when none is. The elasticity figures compare in_service (supply) with it. */
    int demand;
    /* the warm pool's instances EC2 bills now (sc_asg_warm_billed: running in the pool,
     * not stopped or hibernated; docs/autoscaling.md 7.4); 0 without a pool */
    int warm_billed;
};

/* One sample: the interval (t_ms - interval_ms, t_ms]. */
struct sim_sample {
    int64_t t_ms;        /* end of the interval, epoch ms on the virtual clock */
    int64_t interval_ms; /* the sample interval (the last one of a run may be shorter) */
    /* Offered load as the active phases state it: requests per second for open-model
     * phases, concurrent clients for closed-model phases (sum over active phases of the
     * same kind; when both kinds run, rate phases win and load_is_clients is 0). */
    double load;
    int load_is_clients;
    double offered_rps; /* requests that arrived in the interval / interval seconds */
    uint64_t completed; /* requests answered successfully in the interval */
    uint64_t failed;    /* requests that failed (no InService instance, queue full, hang) */
    /* Latency (queueing + service, ms) of the requests completed in the interval; both
     * 0 when none completed. Failed requests are not included. */
    double p50_ms;
    double p99_ms;
    double error_pct; /* 100 * failed / (completed + failed); 0 when no request ended */
    int ngroups;      /* as given at creation */
    const struct sim_group_sample *groups; /* ngroups entries, creation order */
    int nalarms;                           /* as given at creation */
    const enum sim_alarm_state *alarms;    /* nalarms entries, creation order */
};

enum sim_event_kind {
    SIM_EVENT_ACTIVITY = 0,     /* an Auto Scaling activity (launch, terminate) */
    SIM_EVENT_ALARM = 1,        /* an alarm changed state: cause = "OK -> ALARM", description =
                                   the StateReason */
    SIM_EVENT_FAULT = 2,        /* a scenario fault acted: cause = "kill", "hang", "slow",
                                   "az-outage", description says on what */
    SIM_EVENT_DECISION = 3,     /* a policy evaluation (docs/decisions.md, `--explain`): name =
                                   the policy, cause = the arithmetic, status = "changed" or the
                                   reason, description = the human line; decision = the record */
    SIM_EVENT_HOOK = 4,         /* a lifecycle action (`--explain`): name = the hook, cause =
                                   "waiting", "heartbeat", "completed" or "timeout", status = the
                                   result, description = the human line; hook = the note */
    SIM_EVENT_NOTIFICATION = 5, /* what Auto Scaling would publish to a group's topic (the
                                   group's notifications key): name = the type, cause = the
                                   subject, status = the topic ARN, description = the
                                   message body (docs/autoscaling.md 9) */
    SIM_EVENT_FORECAST = 6,     /* a predictive scaling policy made a forecast
                                   (docs/autoscaling.md 12.3): name = the policy, status = its
                                   Mode, cause = when and from which hour, description = the
                                   capacity of each forecast hour */
    SIM_EVENT_LAUNCH = 7,       /* a LaunchInstances call of a group's launch_instances
                                   (sim_event_from_launch): name = the ClientToken */
};

/* One event. For activities: group, cause (AWS's Cause text), description (AWS's
 * Description), status (StatusCode: "Successful", "Failed", "Cancelled", or
 * "InProgress" when the run ended first); t_ms is the activity's StartTime and end_ms its
 * EndTime (0 while unfinished). Activities are pushed once, when they finish or when
 * the run ends. For alarms and faults, end_ms = t_ms and group may be NULL. */
struct sim_event {
    enum sim_event_kind kind;
    int64_t t_ms;
    int64_t end_ms;
    const char *group;       /* group name, or NULL */
    const char *name;        /* alarm name (SIM_EVENT_ALARM), else NULL */
    const char *cause;       /* never NULL ("" when none) */
    const char *description; /* never NULL */
    const char *status;      /* never NULL */
    /* SIM_EVENT_DECISION / SIM_EVENT_HOOK as pushed (sinks see them); NULL otherwise and in
     * the kept copy */
    const struct sc_decision *decision;
    const struct sc_hook_note *hook;
    const struct sc_asg_launch_info *launch; /* SIM_EVENT_LAUNCH's reply, the same way */
};

/* What an alarm watches, so the report can draw CPU against thresholds. */
struct sim_alarm_info {
    const char *name;
    const char *metric;     /* e.g. "CPUUtilization" */
    const char *comparison; /* AWS ComparisonOperator, e.g. "GreaterThanThreshold" */
    double threshold;
    const char *alarm_rule; /* a composite alarm's AlarmRule (no metric then), else NULL */
};

struct sim_timeline_config {
    int64_t start_ms;          /* the virtual epoch ms the run starts at */
    int64_t end_ms;            /* the run's planned end (start + duration) */
    int64_t interval_ms;       /* the sample interval, > 0 */
    const char *scenario_name; /* copied; may be NULL */
    int ngroups;               /* 0..SIM_TIMELINE_MAX_GROUPS */
    const char *const *group_names;
    /* per group, or NULL: the demand basis (sim_elastic_demand_basis, copied), printed
     * beside the elasticity figures */
    const struct sim_demand_basis *group_basis;
    int nalarms; /* 0..SIM_TIMELINE_MAX_ALARMS */
    const struct sim_alarm_info *alarms;
    int max_buckets; /* kept copy size; 0: SIM_TIMELINE_DEFAULT_BUCKETS (>= 2 otherwise) */
    int max_events;  /* kept events; 0: SIM_TIMELINE_DEFAULT_EVENTS (>= 2 otherwise) */
};

#define SIM_TIMELINE_MAX_GROUPS      16
#define SIM_TIMELINE_MAX_ALARMS      64
#define SIM_TIMELINE_MAX_SINKS       4
#define SIM_TIMELINE_DEFAULT_BUCKETS 1440
#define SIM_TIMELINE_DEFAULT_EVENTS  2000

/* min / mean / max of one figure over the samples a bucket merged. n counts the samples
 * where the figure was defined (cpu_pct may be NAN); when n is 0 all three are NAN. */
struct sim_stat {
    double min, mean, max;
    int n;
};

struct sim_group_bucket {
    struct sim_stat desired, in_service, pending, terminating, cpu_pct, demand, warm_billed;
};

/* One kept bucket: samples with t_ms in (t0_ms, t1_ms]. */
struct sim_bucket {
    int64_t t0_ms, t1_ms;
    int nsamples;
    struct sim_stat load, offered_rps, p50_ms, p99_ms, error_pct;
    uint64_t completed, failed;            /* sums */
    int load_is_clients;                   /* of the last merged sample */
    const struct sim_group_bucket *groups; /* ngroups entries */
    /* Per alarm: the fraction (0..1) of merged samples in ALARM, and in
     * INSUFFICIENT_DATA; the state of the last merged sample. */
    const double *alarm_in_alarm;
    const double *alarm_insufficient;
    const enum sim_alarm_state *alarm_last;
};

/* Sinks: called for every push, in the order attached. A sink must not push into the
 * timeline it is attached to. Either function may be NULL. */
typedef void (*sim_sample_fn)(const struct sim_sample *s, void *ud);
typedef void (*sim_event_fn)(const struct sim_event *e, void *ud);

struct sim_timeline;

/* Returns NULL on bad config (interval <= 0, too many groups/alarms, NULL names, max_*
 * of 1 or negative). Allocates all it will ever use (aborts on OOM, as programs do).
 * Free with sim_timeline_destroy(). */
struct sim_timeline *sim_timeline_create(const struct sim_timeline_config *cfg);
void sim_timeline_destroy(struct sim_timeline *tl); /* NULL is a no-op */

/* Attaches a sink (ud borrowed). Returns 0, or -1 when SIM_TIMELINE_MAX_SINKS are
 * attached. Attach before the first push. */
int sim_timeline_add_sink(struct sim_timeline *tl, sim_sample_fn on_sample, sim_event_fn on_event,
                          void *ud);

/* Pushes a sample: t_ms must grow from push to push and s->ngroups / s->nalarms must
 * match the config (asserted). Hands it to the sinks, then folds it into the kept copy.
 * Never allocates. */
void sim_timeline_push_sample(struct sim_timeline *tl, const struct sim_sample *s);
/* Pushes an event (any order of t_ms; the engine pushes in the order they happen).
 * Hands it to the sinks, then keeps a copy when admitted (see thinning above). Strings
 * longer than SIM_EVENT_TEXT_MAX are truncated in the kept copy. */
void sim_timeline_push_event(struct sim_timeline *tl, const struct sim_event *e);

#define SIM_EVENT_TEXT_MAX 512

/* A policy decision (docs/decisions.md 3) as the timeline's SIM_EVENT_DECISION: name, cause,
 * status, decision and the human line (sc_decision_format, written into line, n bytes) as
 * description; t_ms = end_ms = d->time_ms and group = d->group. One mapping for both worlds:
 * the simulator's run and `loadgen scenario --explain` reading the emulator's events. */
void sim_event_from_decision(struct sim_event *se, const struct sc_decision *d, char *line,
                             size_t n);
/* A lifecycle-hook note (docs/decisions.md 4) as SIM_EVENT_HOOK, the same way. */
void sim_event_from_hook(struct sim_event *se, const struct sc_hook_note *h, char *line, size_t n);

/* A LaunchInstances call of launch_instances (docs/scenarios.md) as SIM_EVENT_LAUNCH, one
 * mapping for both worlds (the simulator calls libscaler, `loadgen scenario` reads the
 * endpoint's reply): t_ms = end_ms = t_ms, group (the scenario's name), name = token, cause =
 * the request ("RequestedCapacity N[, AvailabilityZones Z][, RetryStrategy S]", written
 * into cause, ncause bytes). With the reply rep: status "Successful" (no Errors item),
 * "Partial" (instances and Errors) or "Failed" (Errors only), description = what launched
 * and each Errors item, launch = rep. A refused call (rep NULL): status = its code,
 * description = its message. The description is written into line (n bytes). */
void sim_event_from_launch(struct sim_event *se, int64_t t_ms, const char *group,
                           const struct sim_launch *l, const char *token,
                           const struct sc_asg_launch_info *rep, const char *code,
                           const char *message, char *cause, size_t ncause, char *line, size_t n);

/* Reads. */
const struct sim_timeline_config *sim_timeline_config(const struct sim_timeline *tl);
int sim_timeline_bucket_count(const struct sim_timeline *tl);
/* 0 <= i < bucket_count, in time order. */
const struct sim_bucket *sim_timeline_bucket(const struct sim_timeline *tl, int i);
/* The span of every full bucket: interval_ms * 2^k. */
int64_t sim_timeline_bucket_span_ms(const struct sim_timeline *tl);
int sim_timeline_event_count(const struct sim_timeline *tl);
const struct sim_event *sim_timeline_event(const struct sim_timeline *tl, int i);
uint64_t sim_timeline_samples_pushed(const struct sim_timeline *tl);
uint64_t sim_timeline_events_pushed(const struct sim_timeline *tl);
/* The last sample pushed, or NULL before the first. */
const struct sim_sample *sim_timeline_last_sample(const struct sim_timeline *tl);

#endif
