/* scaler/sim/run_internal.h: what run.c, run_plane.c and run_sample.c share; not public.
 *
 * The engine's state (struct eng and its per-slot, per-load-balancer, per-alarm, per-group
 * and per-fault records) and the steps the loop in run.c calls: run_plane.c keeps EC2, the
 * model and the route sets in step, runs health checks and faults and pushes the world's
 * events; run_sample.c puts the per-minute metrics and emits the samples. */
#ifndef SCALER_SIM_RUN_INTERNAL_H
#define SCALER_SIM_RUN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/hist.h"
#include "scaler/alarm.h"
#include "scaler/elb.h"
#include "scaler/elbv2.h"
#include "scaler/observe.h"
#include "scaler/rng.h"
#include "scaler/sim/expect.h"
#include "scaler/sim/model.h"
#include "scaler/sim/run.h"
#include "scaler/sim/scenario.h"
#include "scaler/sim/timeline.h"
#include "scaler/world.h"

/* The AWS/ELB metrics the simulator's data plane has figures for (sc_elb_report_minute
 * puts them); an alarm on another gets a warning. */
#define SIM_ELB_METRICS                                                                            \
    (SC_ELB_METRIC_BIT(SC_ELB_METRIC_REQUEST_COUNT) | SC_ELB_METRIC_BIT(SC_ELB_METRIC_LATENCY) |   \
     SC_ELB_METRIC_BIT(SC_ELB_METRIC_ELB_5XX) |                                                    \
     SC_ELB_METRIC_BIT(SC_ELB_METRIC_HEALTHY_HOST_COUNT) |                                         \
     SC_ELB_METRIC_BIT(SC_ELB_METRIC_UNHEALTHY_HOST_COUNT))

struct slot_state {
    char id[32];
    int group;
    int running_reported;
    int warmed;
    double min_busy, min_up; /* snapshot at the last metric minute */
    double smp_busy, smp_up; /* snapshot at the last sample */
    int hc_ok_streak;        /* last reported result was a pass (per run, any lb) */
};

struct lb_state {
    uint64_t hc_sig;              /* world signature at the last full health round */
    uint64_t hu_model, hu_streak; /* health_unchanged() held at these versions */
    int hc_all_good;              /* that round found every target InService and passing */
    int64_t hc_next_ms;
    int64_t hc_interval_ms;
    int http;
    int port_ok;      /* the check's port is one the app listens on */
    unsigned metrics; /* SC_ELB_METRIC_BIT()s some alarm reads */
    struct sim_lb_counters min_snap, smp_snap;
    int ngroups_behind;
    const char **ids; /* route set scratch */
    int *slots;
    int *zones;
    int cap;
};

/* A target group of the scenario (run_alb.c): its model route is sc->nlbs + its index. */
struct tg_state {
    char arn[SC_ELBV2_ARN_LEN];
    int alb;            /* the ALB whose metrics count its traffic (the first forwarding), -1 */
    int64_t hc_next_ms; /* INT64_MAX: no checks (nothing registered yet is fine) */
    int64_t hc_interval_ms;
    int http;
    int port_ok; /* the check's port is the traffic port (the one the app serves) */
    int ngroups_behind;
    struct sim_lb_counters min_snap, smp_snap;
    /* the last sample interval's RequestCount: completed + failed, as the minute's
     * metric counts them (alb_metrics_minute), for the request demand basis */
    double smp_requests;
    const char **ids; /* route set scratch */
    int *ports, *slots, *last;
    int cap, nlast;
    /* slow start: when each of slots (last) entered it (libscaler's target record), and
     * the balancing the model last got */
    int64_t *since, *last_since;
    int64_t last_ss_ms;
    int last_alg;
};

/* One kind of answer an ALB gives itself (a model route after the target groups'). */
enum answer_kind {
    ANSWER_FIXED = 0, /* a fixed-response action */
    ANSWER_REDIRECT,  /* a redirect action */
    ANSWER_NO_TARGET, /* a forward whose weights are all 0: the load balancer's 503 */
};
struct answer_route {
    int alb;
    int status;
    enum answer_kind kind;
    struct sim_lb_counters min_snap, smp_snap;
};

struct alarm_track {
    char name[256];
    enum sc_alarm_state last;
    int composite; /* a composite alarm (infrastructure.composite_alarms) */
    /* a composite's Action history items already pushed: those up to action_ms, of which
     * action_seen at action_ms itself */
    int64_t action_ms;
    int action_seen;
    /* pushes left that read its history: set after a transition and while actions are
     * held (the actions run at the next steps), so a quiet composite costs no scan */
    int action_watch;
};

struct group_track {
    char newest_done[SC_RNG_UUID_LEN]; /* the newest finished activity already pushed */
    int cpu_metric;                    /* some alarm reads this group's CPUUtilization */
    const struct sc_app *app;
    int lb;              /* first load balancer, or -1 */
    int refresh_started; /* its instance_refresh was started */
    char *launch_made;   /* per launch_instances member: 1 once its call was made */
};

struct fault_track {
    const struct sim_fault *f;
    int started, ended;
    char ids[64][32]; /* instances a hang/slow acted on, to undo */
    int nids;
};

struct eng {
    const struct sim_run_config *cfg;
    const struct sim_scenario *sc;
    struct sc_world *w;
    struct sc_cw *cw;
    struct sc_asg *asg;
    struct sc_elb *elb;
    struct sc_ec2 *ec2;
    struct sim_model *model;
    struct sim_timeline *tl;
    struct sc_observer *obs; /* cfg->explain: the decisions and hook notes, else NULL */
    enum sim_mode mode;

    int64_t start_ms, end_ms, now_ms;
    int64_t sample_ms;
    char *policy_arns[256];
    int64_t forecast_seen[256]; /* a predictive policy's last forecast pushed (update time) */

    struct lb_state *lbs;
    struct sc_elbv2 *elbv2;
    struct tg_state *tgs;               /* per sc->tgs */
    char (*alb_arns)[SC_ELBV2_ARN_LEN]; /* per sc->albs */
    struct answer_route *answers;       /* routes sc->nlbs + sc->ntgs + i */
    int nanswers;
    struct sim_model_split *splits;
    int nsplits;
    int *answer_status; /* per route after the classic load balancers' (the model's) */
    struct group_track *groups;
    struct alarm_track *alarms;
    int nalarms;
    struct fault_track *faults;

    struct slot_state *slots;
    int nslots;

    int cpu_all_metric, cpu_instance_metric;
    /* what the data plane last saw, so unchanged rounds skip the library's reads */
    uint64_t world_sig; /* EC2 instance count and states, registrations */
    int routes_dirty;   /* the route sets must be read again */
    struct cm_hist run_hist;
    /* world_signature() cache: epoch counts the engine's own changes to EC2 and the load
     * balancers (world steps, reports, faults) */
    uint64_t epoch, sig_epoch, sig_value;
    /* world_signature()'s EC2 part as of sc_ec2_generation() == sig_ec2_gen (0: none) */
    uint64_t sig_ec2_gen, sig_ec2_value;
    uint64_t sync_sig;     /* world_signature() after the last sync_instances() */
    int sync_force;        /* the model changed (a boot ended, a fault): sync even if equal */
    int need_hist;         /* a p99 expectation reads each sample's histogram */
    uint64_t streak_ver;   /* counts changes of any slot's hc_ok_streak */
    uint64_t acts_seen;    /* sc_asg_activity_version() + 1 at the last push_activities */
    int has_handlers;      /* some lifecycle hook has a handler (hook_handlers) */
    int has_notifications; /* some group has notifications (their timeline events) */
    int64_t hook_next_ms;  /* the next instant a handler completes an action */
    struct sim_latency_entry *ents; /* scratch: a sample's latencies, sorted */
    int cap_ents;
    char err[SIM_ERR_MAX];
};

/* Milliseconds on the engine's clock to microseconds on the model's. */
static inline int64_t us(int64_t ms)
{
    return ms * 1000;
}

/* run_plane.c: the data plane (see each definition). sync_instances() and health_checks()
 * return 1 when they reported something to the world. */
int sync_instances(struct eng *e);
/* The scenario's lifecycle-hook handlers: completes every open action whose handler's delay
 * has passed (with the handler's result); returns how many, and sets e->hook_next_ms to
 * the next such instant (INT64_MAX: none). */
int hook_handlers(struct eng *e);
int cpu_table(struct eng *e, const struct sim_slot_cpu **tab);
void sync_routes(struct eng *e);
int health_checks(struct eng *e, int lb);
/* run_plane.c: faults. */
void fault_start(struct eng *e, struct fault_track *ft);
void fault_end(struct eng *e, struct fault_track *ft);
/* run_plane.c: events from the world, pushed to the timeline. */
void push_activities(struct eng *e);
void push_unfinished(struct eng *e);
enum sim_alarm_state to_sim_state(enum sc_alarm_state s);
void push_alarm_changes(struct eng *e);
/* With --explain: the decisions and lifecycle-hook notes since the last call. */
void push_decisions(struct eng *e);
/* Each predictive policy's forecast made since the last call, as a forecast event. */
void push_forecasts(struct eng *e);

/* run_alb.c: Application Load Balancers (docs/scenarios.md). alb_setup() makes the target
 * groups, load balancers, listeners and rules through libscaler (before the groups, which
 * name the target groups); alb_plan() routes each phase's request mix with sc_elbv2_route
 * into e->splits (before the model). Both return 0 or 2 with e->err set. alb_label()
 * expands a resource label "app/LB/targetgroup/TG" (names only) to AWS's form with the
 * ids made here; any other label is returned as given. */
int alb_setup(struct eng *e);
int alb_plan(struct eng *e);
const char *alb_label(struct eng *e, const char *label, char *buf, size_t cap);
const char *alb_tg_arn(struct eng *e, const char *name);
/* An alarm's dimension: LoadBalancer "app/LB" and TargetGroup "targetgroup/TG" (names of
 * the scenario) get the ids made here; any other value is returned as given. */
const char *alb_dimension(struct eng *e, const char *name, const char *value, char *buf,
                          size_t cap);
/* Route sets of the target groups from their routable targets. */
void alb_sync_routes(struct eng *e);
/* Target group tg's health checks when due; returns 1 when it reported a result. */
int alb_health_checks(struct eng *e, int tg);
/* The minute ended: every ALB's AWS/ApplicationELB metrics (sc_elbv2_report_minute). */
void alb_metrics_minute(struct eng *e);
/* The counters of every ALB route (target groups' and answers') added to *c since *snap
 * (the sample's snapshot, per route), then snapshots taken. */
void alb_sample_counters(struct eng *e, double *done, double *fail, double *arrived);
/* The share of route's load one group behind it takes (1 / groups behind it). */
double route_group_share(const struct eng *e, int route);
void alb_cleanup(struct eng *e);

/* run_sample.c: the minute [now - 60 s, now) ended: put what alarms read. */
void metrics_minute(struct eng *e);
/* run_sample.c: pushes the sample of the interval_ms ending now to the timeline. */
void emit_sample(struct eng *e, int64_t interval_ms, struct sim_checker *checker);

#endif
