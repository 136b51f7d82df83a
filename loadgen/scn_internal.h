/* loadgen/scn_internal.h: what scn_run.c, scn_calls.c, scn_poll.c, scn_fault.c and
 * scn_load.c share; not public (the runner's API is scn_run.h).
 *
 * One run's state (struct run) lives in scn_run() for the whole run; every function here
 * takes it and is called from the controlling thread only (scn_run.h). */
#ifndef LOADGEN_SCN_INTERNAL_H
#define LOADGEN_SCN_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <libxml/tree.h>

#include "common/hist.h"
#include "loadgen/awsapi.h"
#include "loadgen/player.h"
#include "loadgen/scenario.h"
#include "loadgen/scn_emu.h"
#include "loadgen/scn_reply.h"
#include "loadgen/scn_run.h"
#include "scaler/sim/elastic.h"
#include "scaler/sim/expect.h"
#include "scaler/sim/output.h"
#include "scaler/sim/result.h"
#include "scaler/sim/scenario.h"
#include "scaler/sim/timeline.h"
#include "scaler/stall.h"

struct scn_events;

struct fault_track {
    const struct sim_fault *f;
    int started, ended;
    int nids;
    char ids[64][SCN_ID_MAX];
};

/* A lifecycle action seen waiting (scn_asg.c): an instance of group gi in Pending:Wait or
 * a launch's Warmed:Pending:Wait (launching), or Terminating:Wait, Warmed:Terminating:Wait
 * or a return's Warmed:Pending:Wait (terminating), since the poll at scenario time seen_ms. */
struct hook_wait {
    int gi;
    int launching;
    char id[SCN_ID_MAX];
    int64_t seen_ms;
    uint32_t done; /* the group's hooks (bit k: hooks[k]) whose handler has answered */
    int present;   /* listed waiting by the last poll */
};

/* An ALB's figures over an observed run (scn_alb.c): AWS/ApplicationELB sums by its
 * LoadBalancer dimension; read: CloudWatch answered. */
struct scn_alb_fig {
    const char *alb; /* the scenario's name */
    int read;
    double requests, fixed, redirects, elb_5xx;
};

/* A target group an ALB forwards to: RequestCount by TargetGroup+LoadBalancer over the run,
 * and the largest one-minute RequestCountPerTarget (NAN: none put). */
struct scn_tg_fig {
    const char *alb, *tg;
    int read;
    double requests, per_target_max;
};

struct alarm_track {
    char *aws_name;
    char *name; /* as shown: the scenario's name, or the AWS name without the prefix */
    char *metric, *comparison;
    double threshold;
    char *alarm_rule; /* a composite's AlarmRule as the scenario writes it; NULL: a metric alarm */
    enum sim_alarm_state state;
    int64_t action_ms; /* a composite: the newest Action history item shown (INT64_MIN: none) */
    int action_seen;   /* how many items at action_ms were shown */
};

struct run {
    const struct scn_opts *o;
    const struct sim_scenario *sc;
    char prefix[96];
    struct scn_plan plan;
    int *done;   /* per setup call: 1 when it succeeded */
    char **arns; /* per scenario policy */
    /* ELBv2: what the setup made, "KEY" -> value for the plan's placeholders (tg:T ->
     * TargetGroupArn, ..., subnet:ZONE, vpc:default; loadgen/scenario.h) */
    char **refk, **refv;
    int nrefs;
    struct aws_client *aws;
    struct scn_emu emu;
    int own_emu;
    int is_emulator; /* the endpoint answers /_scalelab/ */
    char base[256];  /* endpoint URL (emulator admin API) */
    double scale;
    struct scn_service svc; /* service times emulated (and the request weight) or real */
    int64_t emu_t0;         /* emulated epoch ms at scenario time 0 */
    int64_t mono_t0;        /* monotonic ms at scenario time 0 */

    struct sim_timeline *tl;
    struct sim_out live, json;
    FILE *jsonf;
    struct sim_elastic_sink elastic;
    struct sim_checker *checker;
    int live_rows;

    struct alarm_track *alarms;
    int nalarms;
    char (*seen)[SCN_ID_MAX]; /* activities pushed */
    int nseen, capseen;
    struct scn_activity *open_acts; /* unfinished at the last poll */
    int nopen, capopen;
    struct fault_track *faults;
    int nfaults;
    int ntimed_done;         /* the plan's timed calls made (scn_asg.c) */
    struct hook_wait *waits; /* lifecycle actions waiting for a scenario handler */
    int nwaits, capwaits;
    /* instances seen in a group's Instances (gi, id): a warm pool's instance in
     * Warmed:Pending:Wait that was a member is returning (terminate hooks), one never a
     * member is a launch into the pool (launch hooks); docs/autoscaling.md 7.2 */
    struct seen_member {
        int gi;
        char id[SCN_ID_MAX];
    } * members;
    int nmembers, capmembers;
    int64_t hooks_next_poll; /* scenario time of the next hook poll */

    int elb_in_service, elb_total; /* last poll, all load balancers */
    struct sim_run_result obs;     /* observed totals, filled as we go */
    struct cm_hist run_hist, period_hist;
    int64_t *obs_t;
    double *obs_cap; /* group 0's InService per sample */
    int nobs;

    double cpu_ms_sum, cpu_ms_max;
    int cpu_periods;
    struct scn_alb_fig *albfig; /* per ALB, after the load (scn_alb.c); NULL: not read */
    struct scn_tg_fig *tgfig;
    int ntgfig;
    double *tg_rps; /* per scenario target group: requests/s it took in the last period */
    struct player *player;
    struct player_target *targets; /* classic load balancers', then ALB listeners */
    int ntargets;
    char (*hosts)[300];
    char details[256][256]; /* report_write's expectation details (sim_out_report_expects) */

    /* host stalls (scn_stall.c, scaler/stall.h): added from the controlling thread and the
     * load threads under stall_mu */
    struct sc_stalls stalls;
    pthread_mutex_t stall_mu;
    int stall_on;
    uint64_t emu_stall_seq;    /* the emulator's next stall to read */
    int emu_stall_read;        /* 1 once the emulator has answered */
    int64_t emu_stall_next_ms; /* monotonic: when to read them next */

    /* --explain (scn_explain.c): the emulator's event stream, NULL when not followed */
    struct scn_events *events;
    int explain_decisions, explain_hooks, explain_bad;
    uint64_t explain_missed; /* events missed or dropped */
};

/* scn_run.c */
/* 0, or the signal (SIGINT, SIGTERM) that stops the run; set by scn_run()'s handler. */
extern volatile sig_atomic_t scn_g_stop;
int64_t scn_mono_ms(void);
/* One line on stderr: "loadgen scenario: " and the message. */
void scn_fail_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The scenario's clock (timeline epoch ms) for an emulated epoch ms. */
int64_t scn_at(const struct run *r, int64_t emu_ms);

/* scn_calls.c */
/* One call; the reply document, when doc is not NULL, is the caller's (xmlFreeDoc). On an
 * AWS error err is filled and -1 returned. */
int scn_aws_call(struct run *r, enum aws_service svc, const char *action,
                 const struct aws_params *p, xmlDoc **doc, struct aws_error *err);
/* A placeholder's value as the setup calls filled it in ("tgdim:api-tg" ->
 * "targetgroup/sl-api-tg/0123..."); NULL when setup has not made it. */
const char *scn_ref(struct run *r, const char *key);
/* Makes the plan's setup calls in order, marking each one done; -1 at the first refusal
 * (reported) or a stop signal. */
int scn_setup(struct run *r);
/* Deletes what scn_setup() made; returns the number of deletions that failed. */
int scn_teardown(struct run *r);
/* What the setup made for a plan placeholder's KEY (loadgen/scenario.h: "alb:A" the ALB's
 * ARN, "tg:T", "lbdim:A" app/NAME/ID, "tgdim:T" targetgroup/NAME/ID ...), or NULL. */
const char *scn_ref(struct run *r, const char *key);

/* scn_poll.c */
/* The alarms the timeline shows: the scenario's, then target tracking's. -1 reported. */
int scn_alarms_discover(struct run *r);
/* The terminal's timeline sink (ud is the run). */
void scn_live_on_sample(const struct sim_sample *s, void *ud);
void scn_live_on_event(const struct sim_event *e, void *ud);
/* Pushes one event into the timeline; the strings are borrowed for the call. */
void scn_push_event(struct run *r, enum sim_event_kind kind, int64_t t_ms, int64_t end_ms,
                    const char *group, const char *name, const char *cause, const char *desc,
                    const char *status);
/* 1 when the activity id has been pushed already. */
int scn_seen(const struct run *r, const char *id);
/* Polls one sample period ending at scenario time t into the timeline; -1 reported. */
int scn_poll_period(struct run *r, int64_t t, int64_t interval);

/* scn_fault.c */
/* 1 when the emulator at r->base can take a zone down (POST /_scalelab/fault az_outage). */
int scn_emu_has_az_outage(const struct run *r, const char *zone);
/* Acts on the faults due by scenario time t; returns the next due time (or INT64_MAX). */
int64_t scn_faults_step(struct run *r, int64_t t);

/* scn_asg.c */
/* Makes the plan's timed calls due by scenario time t (an instance refresh) and plays the
 * scenario's lifecycle-hook handlers: every SCN_HOOK_POLL_REAL_MS real (at least
 * SCN_HOOK_POLL_MIN_MS of scenario time) the groups with handlers are polled for instances
 * in Pending:Wait and Terminating:Wait, and each handler's CompleteLifecycleAction is
 * made its `after` past the poll that first saw the instance waiting. Returns the next
 * due time (or INT64_MAX). Refusals are reported on stderr; the run goes on, as the
 * simulator's. */
#define SCN_HOOK_POLL_REAL_MS 100
#define SCN_HOOK_POLL_MIN_MS  5000
int64_t scn_asg_step(struct run *r, int64_t t);

/* scn_explain.c */
/* --explain: starts following the emulator's events for the run's groups, or says once on
 * out that the endpoint has none (AWS, an endpoint that is not a scalelab emulator).
 * Returns 0, or -1 reported (the follower could not start). */
int scn_explain_start(struct run *r, FILE *out);
/* Puts the decisions and hook notes that arrived on the timeline (each at its emulated
 * time mapped by scn_at; names without the prefix). */
void scn_explain_drain(struct run *r);
/* The last drain, the follower stopped, a closing line on out and the stream's problems on
 * stderr. No-op when not following. */
void scn_explain_finish(struct run *r, FILE *out);
/* Stops following without a last drain (an interrupted run); safe to repeat. */
void scn_explain_stop(struct run *r);

/* scn_alb.c */
/* An AWS/ApplicationELB metric by LoadBalancer lbdim (and TargetGroup tgdim when not NULL)
 * over emulated epoch ms [from, to]: the sum of its datapoints, the largest one and how
 * many (npoints may be NULL); 0 when read (no datapoints: *sum 0, *max NAN), -1 reported. */
int scn_alb_metric_window(struct run *r, const char *metric, const char *lbdim, const char *tgdim,
                          int64_t from, int64_t to, double *sum, double *max, int *npoints);
/* Reads each ALB's figures over the run (RequestCount, fixed responses, redirects, ELB
 * 5xx; per target group it forwards to, RequestCount and the largest RequestCountPerTarget
 * minute) from CloudWatch, after the load and before the teardown (on the emulator, once
 * the run's last minute is reported). -1 when a read was refused (reported; the figures
 * read stay). */
int scn_alb_figures(struct run *r);
/* Each target group's requests/s over the sample period ending at emulated epoch ms
 * emu_end (RequestCount by TargetGroup+LoadBalancer, the mean of the minutes reported,
 * summed over the ALBs forwarding to it), for the demand of the groups behind them; -1
 * reported. */
int scn_alb_poll(struct run *r, int64_t emu_end, int64_t interval);
/* Group g's requests/s by scn_alb_poll: the sum over its target groups (0 before). */
double scn_alb_group_rps(const struct run *r, int g);
/* The terminal's lines ("alb NAME ...", "  target group T ..."); none without figures. */
void scn_alb_print(const struct run *r, FILE *f);
/* The --json member `,"albs":[...]` into out ("" without figures); -1 when it does not
 * fit. */
int scn_alb_json(const struct run *r, char *out, size_t n);

/* scn_stall.c: host stalls (scaler/stall.h; docs/loadgen.md, Host stalls) */
/* Starts watching at the run's scale (after the clock is anchored: mono_t0, emu_t0). */
void scn_stall_start(struct run *r);
/* A timer of `src` ran late_ms real late at monotonic ms mono_ms; any thread. */
void scn_stall_note(struct run *r, enum sc_stall_source src, int64_t mono_ms, double late_ms);
/* The player's on_late (loadgen/player.h): ud is the run. */
void scn_stall_on_late(void *ud, int64_t now_us, int64_t late_us);
/* Reads the emulator's loop stalls (GET /_scalelab/health "loop") when SCN_STALL_EMU_MS
 * real have passed since the last read, or now when force; the controlling thread. */
#define SCN_STALL_EMU_MS 500
void scn_stall_poll_emu(struct run *r, int force);
/* 1 when failure c may be the host's (sc_stalls_suspect at its time); 0 for a pass. */
int scn_stall_blames(const struct run *r, const struct sim_check_result *c);
/* How many failures the blame rule marks. */
int scn_stall_blamed(const struct run *r);
/* Under the verdicts: "  note: PATH: " and sc_stalls_note() for each failure it marks. */
void scn_stall_print_notes(const struct run *r, FILE *f);
/* Stops watching; safe to repeat and without a start. */
void scn_stall_stop(struct run *r);

/* scn_load.c */
/* Finds the load balancers' addresses and starts the player (none without phases);
 * -1 reported. */
int scn_load_start(struct run *r);
void scn_load_stop(struct run *r); /* stops the player, if any; safe to repeat */

#endif
