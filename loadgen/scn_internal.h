/* loadgen/scn_internal.h: what scn_run.c, scn_calls.c, scn_poll.c, scn_fault.c and
 * scn_load.c share; not public (the runner's API is scn_run.h).
 *
 * One run's state (struct run) lives in scn_run() for the whole run; every function here
 * takes it and is called from the controlling thread only (scn_run.h). */
#ifndef LOADGEN_SCN_INTERNAL_H
#define LOADGEN_SCN_INTERNAL_H

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

struct fault_track {
    const struct sim_fault *f;
    int started, ended;
    int nids;
    char ids[64][SCN_ID_MAX];
};

/* A lifecycle action seen waiting (scn_asg.c): an instance of group gi in Pending:Wait
 * (launching) or Terminating:Wait, since the poll at scenario time seen_ms. */
struct hook_wait {
    int gi;
    int launching;
    char id[SCN_ID_MAX];
    int64_t seen_ms;
    uint32_t done; /* the group's hooks (bit k: hooks[k]) whose handler has answered */
    int present;   /* listed waiting by the last poll */
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
    int64_t hooks_next_poll; /* scenario time of the next hook poll */

    int elb_in_service, elb_total; /* last poll, all load balancers */
    struct sim_run_result obs;     /* observed totals, filled as we go */
    struct cm_hist run_hist, period_hist;
    int64_t *obs_t;
    double *obs_cap; /* group 0's InService per sample */
    int nobs;

    double cpu_ms_sum, cpu_ms_max;
    int cpu_periods;
    struct player *player;
    struct player_target *targets;
    char (*hosts)[300];
    char details[256][256]; /* report_write's expectation details (sim_out_report_expects) */
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
/* Makes the plan's setup calls in order, marking each one done; -1 at the first refusal
 * (reported) or a stop signal. */
int scn_setup(struct run *r);
/* Deletes what scn_setup() made; returns the number of deletions that failed. */
int scn_teardown(struct run *r);

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

/* scn_load.c */
/* Finds the load balancers' addresses and starts the player (none without phases);
 * -1 reported. */
int scn_load_start(struct run *r);
void scn_load_stop(struct run *r); /* stops the player, if any; safe to repeat */

#endif
