/* loadgen/scn_run.c: see scn_run.h. */
#include "loadgen/scn_run.h"

#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "common/buf.h"
#include "common/hist.h"
#include "common/xalloc.h"
#include "loadgen/awsapi.h"
#include "loadgen/scenario.h"
#include "loadgen/scn_emu.h"
#include "loadgen/scn_reply.h"
#include "loadgen/stats.h"
#include "scaler/sim/elastic.h"
#include "scaler/sim/expect.h"
#include "scaler/sim/output.h"
#include "scaler/sim/report.h"
#include "scaler/sim/run.h"
#include "scaler/sim/timeline.h"

#include "loadgen/player.h"

#define PROG "loadgen scenario"

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
    g_stop = sig;
}

static int64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double thread_cpu_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* Sleeps until the monotonic time `until` or a stop signal, in slices. */
static void sleep_until(int64_t until)
{
    for (;;) {
        int64_t now = mono_ms(), d;
        struct timespec ts;

        if (g_stop || now >= until)
            return;
        d = until - now;
        if (d > 100)
            d = 100;
        ts.tv_sec = 0;
        ts.tv_nsec = d * 1000000L;
        nanosleep(&ts, NULL);
    }
}

struct fault_track {
    const struct sim_fault *f;
    int started, ended;
    int nids;
    char ids[64][SCN_ID_MAX];
};

struct alarm_track {
    char *aws_name;
    char *name; /* as shown: the scenario's name, or the AWS name without the prefix */
    char *metric, *comparison;
    double threshold;
    enum sim_alarm_state state;
};

struct run {
    const struct scn_opts *o;
    const struct sim_scenario *sc;
    char prefix[96];
    struct scn_plan plan;
    int *done;   /* per setup call: 1 when it succeeded */
    char **arns; /* per scenario policy */
    struct aws_client *aws;
    struct scn_emu emu;
    int own_emu;
    int is_emulator; /* the endpoint answers /_scalelab/ */
    char base[256];  /* endpoint URL (emulator admin API) */
    double scale;
    int64_t emu_t0;  /* emulated epoch ms at scenario time 0 */
    int64_t mono_t0; /* monotonic ms at scenario time 0 */

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
};

static void fail_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail_msg(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, PROG ": ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- the clock ---- */

/* The scenario's clock (timeline epoch ms) for an emulated epoch ms. */
static int64_t scn_at(const struct run *r, int64_t emu_ms)
{
    return r->sc->start_ms + (emu_ms - r->emu_t0);
}

/* Reads the endpoint's clock and anchors it to the monotonic clock. */
static int clock_sync(struct run *r, int64_t *emu_now, int64_t *mono_now, char *err, size_t n)
{
    if (r->is_emulator) {
        double ts;
        int64_t m0 = mono_ms(), m1;

        if (scn_emu_clock(r->base, emu_now, &ts, err, n) != 0)
            return -1;
        m1 = mono_ms();
        *mono_now = (m0 + m1) / 2;
        return 0;
    }
    *emu_now = wall_ms();
    *mono_now = mono_ms();
    return 0;
}

/* ---- AWS calls ---- */

static const char *param_get(const struct aws_params *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->v[i].name, name) == 0)
            return p->v[i].value;
    return "";
}

static const char *arn_lookup(const char *policy, void *ud)
{
    struct run *r = ud;
    int i = sim_scenario_policy_index(r->sc, policy);

    return i >= 0 && r->arns[i] ? r->arns[i] : NULL;
}

/* One call; on an AWS error err is filled and -1 returned. */
static int call(struct run *r, enum aws_service svc, const char *action, const struct aws_params *p,
                xmlDoc **doc, struct aws_error *err)
{
    struct aws_reply rep = { 0 };

    if (aws_call(r->aws, svc, action, p, &rep, err) != 0)
        return -1;
    if (doc)
        *doc = rep.doc;
    else
        xmlFreeDoc(rep.doc);
    return 0;
}

static const char *call_name(const struct scn_call *c)
{
    static const char *const keys[] = { "LoadBalancerName", "LaunchConfigurationName", "AlarmName",
                                        "PolicyName", "AutoScalingGroupName" };

    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        const char *v = param_get(&c->params, keys[k]);
        if (v[0])
            return v;
    }
    return "";
}

static int setup(struct run *r)
{
    for (int i = 0; i < r->plan.nsetup && !g_stop; i++) {
        const struct scn_call *c = &r->plan.setup[i];
        struct aws_params p;
        struct aws_error err;
        xmlDoc *doc = NULL;
        char val[4096];
        int rc;

        aws_params_init(&p);
        for (int k = 0; k < c->params.n; k++) {
            if (scn_arn_substitute(c->params.v[k].value, arn_lookup, r, val, sizeof(val)) != 0) {
                fail_msg("setup: %s %s: %s", c->action, call_name(c), val);
                aws_params_cleanup(&p);
                return -1;
            }
            aws_params_add(&p, c->params.v[k].name, val);
        }
        rc = call(r, c->svc, c->action, &p, &doc, &err);
        aws_params_cleanup(&p);
        if (rc != 0) {
            fail_msg("setup: %s %s refused: %s: %s", c->action, call_name(c),
                     err.code[0] ? err.code : "error", err.message);
            return -1;
        }
        r->done[i] = 1;
        if (c->policy[0]) {
            char arn[2048];
            int pi = sim_scenario_policy_index(r->sc, c->policy);

            if (scn_reply_text(doc, "PolicyARN", arn, sizeof(arn)) != 0 || pi < 0) {
                fail_msg("setup: PutScalingPolicy %s: no PolicyARN in the reply", c->policy);
                xmlFreeDoc(doc);
                return -1;
            }
            free(r->arns[pi]);
            r->arns[pi] = cm_xstrdup(arn);
        }
        xmlFreeDoc(doc);
    }
    return g_stop ? -1 : 0;
}

static int gone_error(const struct aws_error *e)
{
    return strstr(e->code, "NotFound") || strstr(e->message, "not found") ||
           strstr(e->message, "does not exist");
}

static int busy_error(const struct aws_error *e)
{
    return strcmp(e->code, "ResourceInUse") == 0 ||
           strcmp(e->code, "ScalingActivityInProgress") == 0;
}

/* Deletes what setup created: alarms, groups (ForceDelete), launch configurations
 * (retried while a group still uses them), load balancers. Returns the number of
 * deletions that failed. */
static int teardown(struct run *r)
{
    struct aws_params p;
    int failed = 0, nal = 0;
    /* in use for up to 20 emulated minutes on an emulator; 10 real minutes on AWS */
    int64_t deadline =
        mono_ms() + (r->is_emulator ? (int64_t)(1200000.0 / r->scale) + 2000 : 600000);

    aws_params_init(&p);
    for (int i = 0; i < r->plan.nsetup; i++) {
        const struct scn_call *c = &r->plan.setup[i];
        char k[64];

        if (!r->done[i] || strcmp(c->action, "PutMetricAlarm") != 0)
            continue;
        snprintf(k, sizeof(k), "AlarmNames.member.%d", ++nal);
        aws_params_add(&p, k, param_get(&c->params, "AlarmName"));
    }
    static const struct {
        const char *create, *del, *key;
        enum aws_service svc;
    } order[] = {
        { "PutMetricAlarm", "DeleteAlarms", NULL, AWS_CLOUDWATCH },
        { "CreateAutoScalingGroup", "DeleteAutoScalingGroup", "AutoScalingGroupName",
          AWS_AUTOSCALING },
        { "CreateLaunchConfiguration", "DeleteLaunchConfiguration", "LaunchConfigurationName",
          AWS_AUTOSCALING },
        { "CreateLoadBalancer", "DeleteLoadBalancer", "LoadBalancerName", AWS_ELB },
    };
    for (size_t s = 0; s < sizeof(order) / sizeof(order[0]); s++) {
        for (int i = 0; i < r->plan.nsetup; i++) {
            const struct scn_call *c = &r->plan.setup[i];
            struct aws_params q;
            struct aws_error err;
            const char *name;
            int rc;

            if (!r->done[i] || strcmp(c->action, order[s].create) != 0)
                continue;
            if (!order[s].key) {
                if (nal > 0) {
                    rc = call(r, order[s].svc, order[s].del, &p, NULL, &err);
                    if (rc != 0 && !gone_error(&err)) {
                        fail_msg("teardown: DeleteAlarms: %s: %s", err.code, err.message);
                        failed++;
                    }
                    nal = 0;
                }
                continue;
            }
            name = param_get(&c->params, order[s].key);
            aws_params_init(&q);
            aws_params_add(&q, order[s].key, name);
            if (strcmp(order[s].del, "DeleteAutoScalingGroup") == 0)
                aws_params_add(&q, "ForceDelete", "true");
            for (;;) {
                rc = call(r, order[s].svc, order[s].del, &q, NULL, &err);
                if (rc == 0 || gone_error(&err))
                    break;
                if (busy_error(&err) && mono_ms() < deadline) {
                    struct timespec ts = { 0, 200000000L };
                    nanosleep(&ts, NULL);
                    continue;
                }
                fail_msg("teardown: %s %s: %s: %s", order[s].del, name, err.code, err.message);
                failed++;
                break;
            }
            aws_params_cleanup(&q);
        }
    }
    aws_params_cleanup(&p);
    memset(r->done, 0, (size_t)r->plan.nsetup * sizeof(*r->done));
    return failed;
}

/* ---- alarms known to the timeline ---- */

static char *strip_prefix(const struct run *r, const char *aws_name)
{
    char pre[128];
    const char *at;
    struct cm_buf b;

    snprintf(pre, sizeof(pre), "%s-", r->prefix);
    at = strstr(aws_name, pre);
    if (!at)
        return cm_xstrdup(aws_name);
    cm_buf_init(&b, 0);
    cm_buf_append(&b, aws_name, (size_t)(at - aws_name));
    cm_buf_puts(&b, at + strlen(pre));
    return cm_buf_take(&b, NULL);
}

static void alarm_add(struct run *r, const char *aws_name, const char *name, const char *metric,
                      const char *comparison, double threshold)
{
    struct alarm_track *a;

    if (r->nalarms >= SIM_TIMELINE_MAX_ALARMS)
        return;
    r->alarms = cm_xrealloc(r->alarms, (size_t)(r->nalarms + 1) * sizeof(*r->alarms));
    a = &r->alarms[r->nalarms++];
    a->aws_name = cm_xstrdup(aws_name);
    a->name = name ? cm_xstrdup(name) : strip_prefix(r, aws_name);
    a->metric = cm_xstrdup(metric);
    a->comparison = cm_xstrdup(comparison);
    a->threshold = threshold;
    a->state = SIM_ALARM_INSUFFICIENT_DATA;
}

struct tt_scan {
    struct run *r;
    xmlDoc *doc;
};

static void on_tt_alarm(const char *aws_name, void *ud)
{
    struct tt_scan *t = ud;
    struct scn_alarm_state st;

    scn_reply_alarm(t->doc, aws_name, &st);
    alarm_add(t->r, aws_name, NULL, st.metric, st.comparison, st.threshold);
}

/* The scenario's alarms, then those target-tracking policies made (AWS names them
 * TargetTracking-<group>-...). */
static int alarms_discover(struct run *r)
{
    struct aws_params p;
    struct aws_error err;
    xmlDoc *doc = NULL;
    char pre[160];
    struct tt_scan t;

    for (int i = 0; i < r->sc->nalarms; i++) {
        const struct sim_alarm *al = &r->sc->alarms[i];
        char aws_name[256];

        snprintf(aws_name, sizeof(aws_name), "%s-%s", r->prefix, al->name);
        alarm_add(r, aws_name, al->name, al->metric, al->comparison, al->threshold);
    }
    for (int i = 0; i < r->sc->npolicies; i++)
        if (r->sc->policies[i].type == SIM_POLICY_TARGET)
            goto tt;
    return 0;
tt:
    aws_params_init(&p);
    snprintf(pre, sizeof(pre), "TargetTracking-%s-", r->prefix);
    aws_params_add(&p, "AlarmNamePrefix", pre);
    if (call(r, AWS_CLOUDWATCH, "DescribeAlarms", &p, &doc, &err) != 0) {
        fail_msg("DescribeAlarms: %s: %s", err.code, err.message);
        aws_params_cleanup(&p);
        return -1;
    }
    t.r = r;
    t.doc = doc;
    scn_reply_alarm_names(doc, on_tt_alarm, &t);
    xmlFreeDoc(doc);
    aws_params_cleanup(&p);
    return 0;
}

static enum sim_alarm_state alarm_state_of(const char *s)
{
    return strcmp(s, "OK") == 0      ? SIM_ALARM_OK
           : strcmp(s, "ALARM") == 0 ? SIM_ALARM_ALARM
                                     : SIM_ALARM_INSUFFICIENT_DATA;
}

/* ---- sinks ---- */

static void live_on_sample(const struct sim_sample *s, void *ud)
{
    struct run *r = ud;
    char line[4096];

    if (r->live_rows % 40 == 0) {
        sim_out_format_header(sim_timeline_config(r->tl), line, sizeof(line));
        printf("%s  %s\n", line, "elb");
    }
    r->live_rows++;
    sim_out_format_row(sim_timeline_config(r->tl), r->sc->start_ms, s, line, sizeof(line));
    printf("%s  %d/%d\n", line, r->elb_in_service, r->elb_total);
    fflush(stdout);
}

static void live_on_event(const struct sim_event *e, void *ud)
{
    struct run *r = ud;

    sim_out_on_event(e, &r->live);
    fflush(stdout);
}

static void push_event(struct run *r, enum sim_event_kind kind, int64_t t_ms, int64_t end_ms,
                       const char *group, const char *name, const char *cause, const char *desc,
                       const char *status)
{
    struct sim_event ev = { 0 };

    ev.kind = kind;
    ev.t_ms = t_ms < r->sc->start_ms ? r->sc->start_ms : t_ms;
    ev.end_ms = end_ms;
    if (end_ms && end_ms < ev.t_ms)
        ev.end_ms = ev.t_ms;
    ev.group = group;
    ev.name = name;
    ev.cause = cause ? cause : "";
    ev.description = desc ? desc : "";
    ev.status = status ? status : "";
    sim_timeline_push_event(r->tl, &ev);
}

/* ---- polling ---- */

static int seen(const struct run *r, const char *id)
{
    for (int i = r->nseen - 1; i >= 0; i--)
        if (strcmp(r->seen[i], id) == 0)
            return 1;
    return 0;
}

struct act_scan {
    struct run *r;
    const char *group; /* scenario name */
};

static void on_activity(const struct scn_activity *a, void *ud)
{
    struct act_scan *s = ud;
    struct run *r = s->r;

    if (seen(r, a->id))
        return;
    if (!scn_activity_done(a->status)) {
        if (r->nopen == r->capopen) {
            r->capopen = r->capopen ? r->capopen * 2 : 16;
            r->open_acts = cm_xrealloc(r->open_acts, (size_t)r->capopen * sizeof(*r->open_acts));
        }
        r->open_acts[r->nopen] = *a;
        snprintf(r->open_acts[r->nopen].group, sizeof(r->open_acts[0].group), "%s", s->group);
        r->nopen++;
        return;
    }
    if (r->nseen == r->capseen) {
        r->capseen = r->capseen ? r->capseen * 2 : 64;
        r->seen = cm_xrealloc(r->seen, (size_t)r->capseen * sizeof(*r->seen));
    }
    snprintf(r->seen[r->nseen++], SCN_ID_MAX, "%s", a->id);
    push_event(r, SIM_EVENT_ACTIVITY, scn_at(r, a->start_ms), a->end_ms ? scn_at(r, a->end_ms) : 0,
               s->group, NULL, a->cause, a->description, a->status);
}

static int poll_activities(struct run *r)
{
    r->nopen = 0;
    for (int g = 0; g < r->sc->ngroups; g++) {
        struct aws_params p;
        struct aws_error err;
        xmlDoc *doc = NULL;
        struct act_scan s = { r, r->sc->groups[g].name };

        aws_params_init(&p);
        aws_params_addf(&p, "AutoScalingGroupName", "%s-%s", r->prefix, r->sc->groups[g].name);
        aws_params_add(&p, "MaxRecords", "100");
        if (call(r, AWS_AUTOSCALING, "DescribeScalingActivities", &p, &doc, &err) != 0) {
            fail_msg("DescribeScalingActivities: %s: %s", err.code, err.message);
            aws_params_cleanup(&p);
            return -1;
        }
        scn_reply_activities(doc, on_activity, &s);
        xmlFreeDoc(doc);
        aws_params_cleanup(&p);
    }
    return 0;
}

static int poll_alarms(struct run *r, enum sim_alarm_state *states)
{
    struct aws_params p;
    struct aws_error err;
    xmlDoc *doc = NULL;

    if (r->nalarms == 0)
        return 0;
    aws_params_init(&p);
    for (int i = 0; i < r->nalarms; i++) {
        char k[64];
        snprintf(k, sizeof(k), "AlarmNames.member.%d", i + 1);
        aws_params_add(&p, k, r->alarms[i].aws_name);
    }
    if (call(r, AWS_CLOUDWATCH, "DescribeAlarms", &p, &doc, &err) != 0) {
        fail_msg("DescribeAlarms: %s: %s", err.code, err.message);
        aws_params_cleanup(&p);
        return -1;
    }
    for (int i = 0; i < r->nalarms; i++) {
        struct scn_alarm_state st;
        enum sim_alarm_state now;

        scn_reply_alarm(doc, r->alarms[i].aws_name, &st);
        now = st.found ? alarm_state_of(st.state) : r->alarms[i].state;
        if (now != r->alarms[i].state) {
            char cause[96];
            snprintf(cause, sizeof(cause), "%s -> %s", sim_alarm_state_str(r->alarms[i].state),
                     sim_alarm_state_str(now));
            push_event(r, SIM_EVENT_ALARM, st.updated_ms ? scn_at(r, st.updated_ms) : 0, 0, NULL,
                       r->alarms[i].name, cause, st.reason, "");
            r->alarms[i].state = now;
        }
        states[i] = now;
    }
    xmlFreeDoc(doc);
    aws_params_cleanup(&p);
    return 0;
}

static int poll_groups(struct run *r, struct scn_group_state *st)
{
    struct aws_params p;
    struct aws_error err;
    xmlDoc *doc = NULL;

    aws_params_init(&p);
    for (int g = 0; g < r->sc->ngroups; g++) {
        char k[64];
        snprintf(k, sizeof(k), "AutoScalingGroupNames.member.%d", g + 1);
        aws_params_addf(&p, k, "%s-%s", r->prefix, r->sc->groups[g].name);
    }
    if (call(r, AWS_AUTOSCALING, "DescribeAutoScalingGroups", &p, &doc, &err) != 0) {
        fail_msg("DescribeAutoScalingGroups: %s: %s", err.code, err.message);
        aws_params_cleanup(&p);
        return -1;
    }
    for (int g = 0; g < r->sc->ngroups; g++) {
        char name[256];
        snprintf(name, sizeof(name), "%s-%s", r->prefix, r->sc->groups[g].name);
        scn_reply_group(doc, name, &st[g]);
    }
    xmlFreeDoc(doc);
    aws_params_cleanup(&p);
    return 0;
}

/* The group's CPUUtilization (AWS/EC2, AutoScalingGroupName, Average) for the period
 * ending at `to` (emulated): the latest one-minute datapoint in (to - 2 periods, to]. The
 * emulator reads its instances each emulated minute on its own schedule, so the minute
 * just ended may be stamped a little before or after `to`; the latest one is what an
 * alarm evaluated at `to` reads. */
static int poll_cpu(struct run *r, int g, int64_t period_ms, int64_t to, double *cpu)
{
    struct aws_params p;
    struct aws_error err;
    xmlDoc *doc = NULL;
    char t0[40], t1[40];

    if (period_ms < 60000)
        period_ms = 60000;
    scn_time_format(to - 2 * period_ms, t0, sizeof(t0));
    scn_time_format(to + 1000, t1, sizeof(t1));
    aws_params_init(&p);
    aws_params_add(&p, "Namespace", "AWS/EC2");
    aws_params_add(&p, "MetricName", "CPUUtilization");
    aws_params_add(&p, "Dimensions.member.1.Name", "AutoScalingGroupName");
    aws_params_addf(&p, "Dimensions.member.1.Value", "%s-%s", r->prefix, r->sc->groups[g].name);
    aws_params_add(&p, "StartTime", t0);
    aws_params_add(&p, "EndTime", t1);
    aws_params_add(&p, "Period", "60");
    aws_params_add(&p, "Statistics.member.1", "Average");
    if (call(r, AWS_CLOUDWATCH, "GetMetricStatistics", &p, &doc, &err) != 0) {
        fail_msg("GetMetricStatistics: %s: %s", err.code, err.message);
        aws_params_cleanup(&p);
        return -1;
    }
    *cpu = scn_reply_metric_latest(doc, NULL);
    xmlFreeDoc(doc);
    aws_params_cleanup(&p);
    return 0;
}

static int poll_health(struct run *r)
{
    r->elb_in_service = r->elb_total = 0;
    for (int i = 0; i < r->sc->nlbs; i++) {
        struct aws_params p;
        struct aws_error err;
        xmlDoc *doc = NULL;
        int in, out;

        aws_params_init(&p);
        aws_params_addf(&p, "LoadBalancerName", "%s-%s", r->prefix, r->sc->lbs[i].name);
        if (call(r, AWS_ELB, "DescribeInstanceHealth", &p, &doc, &err) != 0) {
            fail_msg("DescribeInstanceHealth: %s: %s", err.code, err.message);
            aws_params_cleanup(&p);
            return -1;
        }
        scn_reply_instance_health(doc, &in, &out);
        r->elb_in_service += in;
        r->elb_total += in + out;
        xmlFreeDoc(doc);
        aws_params_cleanup(&p);
    }
    return 0;
}

/* Demand in instances from the offered arrivals (docs/loadgen.md): the smallest count
 * keeping the group's busy share at or below demand_target_pct. */
static int demand_of(const struct run *r, int g, double offered_rps)
{
    const struct sim_group *grp = &r->sc->groups[g];
    int lc = sim_scenario_lc_index(r->sc, grp->launch_configuration);
    const struct sim_app *app = &r->sc->lcs[lc].app;
    double share = 1.0, work, cap;
    int behind = 0;

    if (!(offered_rps > 0))
        return 0;
    /* load is split over the groups sharing the load balancers */
    for (int k = 0; k < r->sc->ngroups; k++)
        if (r->sc->groups[k].nload_balancers > 0)
            behind++;
    if (grp->nload_balancers == 0)
        return 0;
    if (behind > 1)
        share = 1.0 / behind;
    work = offered_rps * share * sim_app_mean_service_s(app) * app->cpu_per_request;
    cap = r->sc->demand_target_pct / 100.0 * app->workers;
    if (cap <= 0)
        return 1;
    return work / cap < 1 ? 1 : (int)ceil(work / cap - 1e-9);
}

/* One sample period ending at scenario time t (ms since the start). */
static int poll_period(struct run *r, int64_t t, int64_t interval)
{
    struct scn_group_state st[SIM_TIMELINE_MAX_GROUPS];
    struct sim_group_sample gs[SIM_TIMELINE_MAX_GROUPS];
    enum sim_alarm_state as[SIM_TIMELINE_MAX_ALARMS];
    struct sim_sample s = { 0 };
    int64_t emu_end = r->emu_t0 + t;
    double offered_rps = 0;

    memset(gs, 0, sizeof(gs));
    if (poll_groups(r, st) != 0 || poll_health(r) != 0 || poll_alarms(r, as) != 0 ||
        poll_activities(r) != 0)
        return -1;
    s.t_ms = r->sc->start_ms + t;
    s.interval_ms = interval;
    if (r->player) {
        struct player_period pp;

        pp.lat = r->period_hist;
        player_take(r->player, &pp);
        r->period_hist = pp.lat;
        s.load = pp.load;
        s.load_is_clients = pp.load_is_clients;
        s.completed = pp.completed;
        s.failed = pp.failed;
        offered_rps = (double)pp.sent / ((double)interval / 1000.0) * r->scale;
        if (r->period_hist.total > 0) {
            s.p50_ms = (double)cm_hist_percentile(&r->period_hist, 50) / 1000.0;
            s.p99_ms = (double)cm_hist_percentile(&r->period_hist, 99) / 1000.0;
        }
    }
    s.offered_rps = offered_rps;
    s.error_pct = s.completed + s.failed > 0
                      ? 100.0 * (double)s.failed / (double)(s.completed + s.failed)
                      : 0;
    for (int g = 0; g < r->sc->ngroups; g++) {
        gs[g].desired = st[g].desired;
        gs[g].in_service = st[g].in_service;
        gs[g].pending = st[g].pending;
        gs[g].terminating = st[g].terminating;
        gs[g].cpu_pct = NAN;
        if (poll_cpu(r, g, interval, emu_end, &gs[g].cpu_pct) != 0)
            return -1;
        gs[g].demand = demand_of(r, g, offered_rps);
        r->obs.final_desired[g] = st[g].desired;
        r->obs.final_in_service[g] = st[g].in_service;
    }
    s.ngroups = r->sc->ngroups;
    s.groups = gs;
    s.nalarms = r->nalarms;
    s.alarms = as;
    r->obs.completed += (double)s.completed;
    r->obs.failed += (double)s.failed;
    if (r->checker)
        sim_checker_on_hist(r->checker, s.t_ms, &r->period_hist);
    cm_hist_merge(&r->run_hist, &r->period_hist);
    cm_hist_reset(&r->period_hist);
    if (r->sc->ngroups > 0) {
        r->obs_t = cm_xrealloc(r->obs_t, (size_t)(r->nobs + 1) * sizeof(*r->obs_t));
        r->obs_cap = cm_xrealloc(r->obs_cap, (size_t)(r->nobs + 1) * sizeof(*r->obs_cap));
        r->obs_t[r->nobs] = s.t_ms;
        r->obs_cap[r->nobs] = gs[0].in_service;
        r->nobs++;
    }
    sim_timeline_push_sample(r->tl, &s);
    return 0;
}

/* An emulator that can take a zone down answers az_recover for a zone that is up with
 * 200; one that cannot asks for an instance id. Returns 1 when supported. */
static int emu_has_az_outage(const struct run *r, const char *zone)
{
    char url[300], body[256], err[256];
    struct cm_buf b;
    int st;

    snprintf(url, sizeof(url), "%s/_scalelab/fault", r->base);
    snprintf(body, sizeof(body), "{\"zone\":\"%s\",\"fault\":\"az_recover\"}", zone);
    cm_buf_init(&b, 1 << 16);
    st = scn_http(url, body, &b, 5000, err, sizeof(err));
    cm_buf_cleanup(&b);
    return st == 200;
}

/* Takes the fault's zone down; the dead instances' ids into desc. */
static int emu_az_outage(struct run *r, const struct sim_fault *f, char *desc, size_t n)
{
    char url[300], body[256], err[256];
    struct cm_buf b;
    json_t *o, *insts, *it;
    size_t i, len;
    int st;

    snprintf(url, sizeof(url), "%s/_scalelab/fault", r->base);
    if (f->for_ms > 0)
        snprintf(body, sizeof(body), "{\"zone\":\"%s\",\"fault\":\"az_outage\",\"for_s\":%lld}",
                 f->zone, (long long)(f->for_ms / 1000));
    else
        snprintf(body, sizeof(body), "{\"zone\":\"%s\",\"fault\":\"az_outage\"}", f->zone);
    cm_buf_init(&b, 1 << 20);
    st = scn_http(url, body, &b, 5000, err, sizeof(err));
    if (st != 200) {
        fail_msg("fault az_outage on %s: %s", f->zone, st < 0 ? err : (b.data ? b.data : ""));
        cm_buf_cleanup(&b);
        return -1;
    }
    o = json_loadb(b.data ? b.data : "", b.len, 0, NULL);
    cm_buf_cleanup(&b);
    /* the dead instances, as the simulator's event lists them */
    desc[0] = '\0';
    len = 0;
    insts = json_object_get(o, "instances");
    json_array_foreach(insts, i, it)
    {
        if (len < n && json_is_string(it))
            len += (size_t)snprintf(desc + len, n - len, "%s%s", len ? " " : "",
                                    json_string_value(it));
    }
    if (len == 0)
        snprintf(desc, n, "no running instance in %s", f->zone);
    json_decref(o);
    return 0;
}

/* ---- faults ---- */

static const char *const fault_causes[] = { "kill", "hang", "slow", "az-outage" };

/* The group's running instances in launch order (the emulator's process list), at most
 * max, into ids. */
static int fault_targets(struct run *r, const struct sim_fault *f, char (*ids)[SCN_ID_MAX], int max)
{
    struct scn_group_state st;
    struct aws_params p;
    struct aws_error err;
    xmlDoc *doc = NULL;
    char name[256];
    int n = 0;

    snprintf(name, sizeof(name), "%s-%s", r->prefix, f->group);
    aws_params_init(&p);
    aws_params_add(&p, "AutoScalingGroupNames.member.1", name);
    if (call(r, AWS_AUTOSCALING, "DescribeAutoScalingGroups", &p, &doc, &err) != 0) {
        fail_msg("DescribeAutoScalingGroups: %s: %s", err.code, err.message);
        aws_params_cleanup(&p);
        return -1;
    }
    scn_reply_group(doc, name, &st);
    xmlFreeDoc(doc);
    aws_params_cleanup(&p);
    if (r->is_emulator) {
        char url[300], herr[256];
        struct cm_buf b;
        json_t *o = NULL, *insts;
        size_t i;
        json_t *it;

        snprintf(url, sizeof(url), "%s/_scalelab/dataplane", r->base);
        cm_buf_init(&b, 1 << 22);
        if (scn_http(url, NULL, &b, 5000, herr, sizeof(herr)) == 200)
            o = json_loadb(b.data ? b.data : "", b.len, 0, NULL);
        cm_buf_cleanup(&b);
        insts = json_object_get(o, "instances");
        json_array_foreach(insts, i, it)
        {
            const char *id = json_string_value(json_object_get(it, "id"));
            const char *state = json_string_value(json_object_get(it, "state"));
            int member = 0;

            if (!id || !state || strcmp(state, "listening") != 0 || n >= max)
                continue;
            for (int k = 0; k < st.ninstances; k++)
                if (strcmp(st.inst[k].id, id) == 0 &&
                    strncmp(st.inst[k].lifecycle, "Terminating", 11) != 0)
                    member = 1;
            if (member)
                snprintf(ids[n++], SCN_ID_MAX, "%s", id);
        }
        json_decref(o);
        return n;
    }
    for (int k = 0; k < st.ninstances && n < max; k++)
        if (strcmp(st.inst[k].lifecycle, "InService") == 0)
            snprintf(ids[n++], SCN_ID_MAX, "%s", st.inst[k].id);
    return n;
}

static int emu_fault(struct run *r, const char *id, const char *what)
{
    char url[300], body[256], err[256];
    struct cm_buf b;
    int st;

    snprintf(url, sizeof(url), "%s/_scalelab/fault", r->base);
    snprintf(body, sizeof(body), "{\"instance_id\":\"%s\",\"fault\":\"%s\"}", id, what);
    cm_buf_init(&b, 1 << 16);
    st = scn_http(url, body, &b, 5000, err, sizeof(err));
    if (st != 200)
        fail_msg("fault %s on %s: %s", what, id, st < 0 ? err : (b.data ? b.data : ""));
    cm_buf_cleanup(&b);
    return st == 200 ? 0 : -1;
}

static int aws_fault(struct run *r, const char *id, enum sim_fault_kind kind)
{
    struct aws_params p;
    struct aws_error err;
    int rc;

    aws_params_init(&p);
    if (kind == SIM_FAULT_KILL) {
        aws_params_add(&p, "InstanceId.1", id);
        rc = call(r, AWS_EC2, "TerminateInstances", &p, NULL, &err);
    } else {
        aws_params_add(&p, "InstanceId", id);
        aws_params_add(&p, "HealthStatus", "Unhealthy");
        aws_params_add(&p, "ShouldRespectGracePeriod", "false");
        rc = call(r, AWS_AUTOSCALING, "SetInstanceHealth", &p, NULL, &err);
    }
    if (rc != 0)
        fail_msg("fault %s on %s: %s: %s", fault_causes[kind], id, err.code, err.message);
    aws_params_cleanup(&p);
    return rc;
}

static void fault_start(struct run *r, struct fault_track *ft, int64_t t)
{
    const struct sim_fault *f = ft->f;
    int max = f->count < 64 ? f->count : 64, n;
    char desc[SIM_EVENT_TEXT_MAX], what[64];
    char ids[64][SCN_ID_MAX];
    size_t len = 0;

    ft->started = 1;
    if (f->kind == SIM_FAULT_AZ_OUTAGE) {
        if (emu_az_outage(r, f, desc, sizeof(desc)) == 0)
            ft->nids = 1;
        else
            snprintf(desc, sizeof(desc), "%s: the emulator refused the outage", f->zone);
        push_event(r, SIM_EVENT_FAULT, r->sc->start_ms + t, r->sc->start_ms + t, NULL, NULL,
                   "az-outage", desc, "");
        if (f->for_ms == 0)
            ft->ended = 1;
        return;
    }
    n = fault_targets(r, f, ids, max);
    desc[0] = '\0';
    if (f->kind == SIM_FAULT_SLOW)
        snprintf(what, sizeof(what), "slow=%g", f->factor);
    else
        snprintf(what, sizeof(what), "%s", fault_causes[f->kind]);
    for (int i = 0; i < n; i++) {
        int rc = r->is_emulator ? emu_fault(r, ids[i], what) : aws_fault(r, ids[i], f->kind);
        if (rc != 0)
            continue;
        snprintf(ft->ids[ft->nids++], SCN_ID_MAX, "%.63s", ids[i]);
        len += (size_t)snprintf(desc + len, len < sizeof(desc) ? sizeof(desc) - len : 0, "%s%s",
                                len ? " " : "", ids[i]);
        if (len >= sizeof(desc))
            len = sizeof(desc) - 1;
    }
    if (ft->nids == 0)
        snprintf(desc, sizeof(desc), "no running instance to act on");
    push_event(r, SIM_EVENT_FAULT, r->sc->start_ms + t, r->sc->start_ms + t, f->group, NULL,
               fault_causes[f->kind], desc, "");
    if (f->for_ms == 0 || f->kind == SIM_FAULT_KILL)
        ft->ended = 1;
}

static void fault_end(struct run *r, struct fault_track *ft, int64_t t)
{
    const struct sim_fault *f = ft->f;

    ft->ended = 1;
    if (f->kind == SIM_FAULT_AZ_OUTAGE) {
        /* the emulator brings the zone back by itself at for_s */
        push_event(r, SIM_EVENT_FAULT, r->sc->start_ms + t, r->sc->start_ms + t, NULL, NULL,
                   "az-outage-end", f->zone, "");
        return;
    }
    if (r->is_emulator)
        for (int i = 0; i < ft->nids; i++)
            emu_fault(r, ft->ids[i], f->kind == SIM_FAULT_HANG ? "resume" : "slow=1");
    push_event(r, SIM_EVENT_FAULT, r->sc->start_ms + t, r->sc->start_ms + t, f->group, NULL,
               f->kind == SIM_FAULT_HANG ? "hang-end" : "slow-end", "", "");
}

/* Acts on the faults due by scenario time t; returns the next due time (or INT64_MAX). */
static int64_t faults_step(struct run *r, int64_t t)
{
    int64_t next = INT64_MAX;

    for (int i = 0; i < r->nfaults; i++) {
        struct fault_track *ft = &r->faults[i];
        if (!ft->started && ft->f->at_ms <= t)
            fault_start(r, ft, t);
        if (ft->started && !ft->ended && ft->f->at_ms + ft->f->for_ms <= t)
            fault_end(r, ft, t);
        if (!ft->started && ft->f->at_ms < next)
            next = ft->f->at_ms;
        else if (ft->started && !ft->ended && ft->f->at_ms + ft->f->for_ms < next)
            next = ft->f->at_ms + ft->f->for_ms;
    }
    return next;
}

/* ---- the load ---- */

/* Where each load balancer listens: the emulator's listener map, or AWS's DNSName. */
static int targets_find(struct run *r)
{
    json_t *o = NULL;

    r->targets = cm_xcalloc((size_t)r->sc->nlbs, sizeof(*r->targets));
    r->hosts = cm_xcalloc((size_t)r->sc->nlbs, sizeof(*r->hosts));
    if (r->is_emulator) {
        char url[300], herr[256];
        struct cm_buf b;

        snprintf(url, sizeof(url), "%s/_scalelab/dataplane", r->base);
        cm_buf_init(&b, 1 << 22);
        if (scn_http(url, NULL, &b, 5000, herr, sizeof(herr)) == 200)
            o = json_loadb(b.data ? b.data : "", b.len, 0, NULL);
        cm_buf_cleanup(&b);
        if (!o) {
            fail_msg("%s: no listener map (GET /_scalelab/dataplane)", r->base);
            return -1;
        }
    }
    for (int i = 0; i < r->sc->nlbs; i++) {
        const struct sim_lb *lb = &r->sc->lbs[i];
        struct player_target *tg = &r->targets[i];
        char name[256], host[256];
        int port = 0, lb_port = 0;
        struct addrinfo hints = { 0 }, *ai = NULL;
        char ports[16];

        for (int l = 0; l < lb->nlisteners && !lb_port; l++)
            if (strcmp(lb->listeners[l].protocol, "HTTP") == 0 ||
                strcmp(lb->listeners[l].protocol, "TCP") == 0)
                lb_port = lb->listeners[l].lb_port;
        snprintf(name, sizeof(name), "%s-%s", r->prefix, lb->name);
        tg->lb = lb->name;
        if (!lb_port)
            continue; /* no plain listener: the player refuses phases aimed at it */
        if (r->is_emulator) {
            size_t k;
            json_t *it;

            json_array_foreach(json_object_get(o, "listeners"), k, it)
            {
                const char *n = json_string_value(json_object_get(it, "load_balancer"));
                if (n && strcmp(n, name) == 0 &&
                    json_integer_value(json_object_get(it, "load_balancer_port")) == lb_port)
                    port = (int)json_integer_value(json_object_get(it, "port"));
            }
            snprintf(host, sizeof(host), "127.0.0.1");
        } else {
            struct aws_params p;
            struct aws_error err;
            xmlDoc *doc = NULL;

            aws_params_init(&p);
            aws_params_add(&p, "LoadBalancerNames.member.1", name);
            if (call(r, AWS_ELB, "DescribeLoadBalancers", &p, &doc, &err) != 0 ||
                scn_reply_text(doc, "DNSName", host, sizeof(host)) != 0) {
                fail_msg("DescribeLoadBalancers %s: no DNSName", name);
                xmlFreeDoc(doc);
                aws_params_cleanup(&p);
                json_decref(o);
                return -1;
            }
            xmlFreeDoc(doc);
            aws_params_cleanup(&p);
            port = lb_port;
        }
        if (port <= 0) {
            fail_msg("load balancer %s: no listener address for port %d", name, lb_port);
            json_decref(o);
            return -1;
        }
        snprintf(ports, sizeof(ports), "%d", port);
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        if (getaddrinfo(host, ports, &hints, &ai) != 0 || !ai) {
            fail_msg("load balancer %s: cannot resolve %s", name, host);
            json_decref(o);
            return -1;
        }
        memcpy(&tg->addr, ai->ai_addr, ai->ai_addrlen);
        tg->addrlen = ai->ai_addrlen;
        freeaddrinfo(ai);
        snprintf(r->hosts[i], sizeof(r->hosts[i]), "%s:%d", host, port);
        tg->host = r->hosts[i];
        tg->path = "/";
    }
    json_decref(o);
    return 0;
}

static int load_start(struct run *r)
{
    struct player_config pc = { 0 };
    char err[512];
    sigset_t block, old;
    int rc;

    if (r->sc->nphases == 0)
        return 0;
    if (targets_find(r) != 0)
        return -1;
    pc.sc = r->sc;
    pc.targets = r->targets;
    pc.ntargets = r->sc->nlbs;
    pc.time_scale = r->scale;
    pc.threads = 1;
    r->player = player_create(&pc, err, sizeof(err));
    if (!r->player) {
        fail_msg("load: %s", err);
        return -1;
    }
    /* the load threads inherit a mask without SIGINT/SIGTERM: signals reach this thread */
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    rc = player_start(r->player, err, sizeof(err));
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        fail_msg("load: %s", err);
        return -1;
    }
    return 0;
}

static void load_stop(struct run *r)
{
    if (r->player)
        player_stop(r->player);
}

/* ---- the prediction ---- */

struct pred {
    int64_t *t;
    double *cap;
    int n;
};

static void pred_on_sample(const struct sim_sample *s, void *ud)
{
    struct pred *p = ud;

    if (s->ngroups < 1)
        return;
    p->t = cm_xrealloc(p->t, (size_t)(p->n + 1) * sizeof(*p->t));
    p->cap = cm_xrealloc(p->cap, (size_t)(p->n + 1) * sizeof(*p->cap));
    p->t[p->n] = s->t_ms;
    p->cap[p->n] = s->groups[0].in_service;
    p->n++;
}

static void pred_on_timeline(struct sim_timeline *tl, void *ud)
{
    sim_timeline_add_sink(tl, pred_on_sample, NULL, ud);
}

static int predict(struct run *r, struct pred *p, struct sim_run_result *res)
{
    struct sim_run_config rc = { 0 };
    char err[SIM_ERR_MAX];

    rc.sc = r->sc;
    rc.mode = SIM_MODE_AUTO;
    rc.seed = r->sc->seed;
    rc.on_timeline = pred_on_timeline;
    rc.ud = p;
    if (sim_run(&rc, res, NULL, err) != 0) {
        fail_msg("the prediction (scaler simulate) failed: %s", err);
        return -1;
    }
    return 0;
}

/* ---- the run ---- */

static void run_cleanup(struct run *r)
{
    player_destroy(r->player);
    free(r->targets);
    free(r->hosts);
    if (r->aws)
        aws_client_destroy(r->aws);
    sim_timeline_destroy(r->tl);
    sim_checker_destroy(r->checker);
    for (int i = 0; i < r->nalarms; i++) {
        free(r->alarms[i].aws_name);
        free(r->alarms[i].name);
        free(r->alarms[i].metric);
        free(r->alarms[i].comparison);
    }
    free(r->alarms);
    for (int i = 0; r->arns && i < r->sc->npolicies; i++)
        free(r->arns[i]);
    free(r->arns);
    free(r->done);
    free(r->seen);
    free(r->open_acts);
    free(r->faults);
    free(r->obs_t);
    free(r->obs_cap);
    cm_hist_cleanup(&r->run_hist);
    cm_hist_cleanup(&r->period_hist);
    scn_plan_cleanup(&r->plan);
    if (r->jsonf)
        fclose(r->jsonf);
}

static const char *null_env(const char *name, void *ud)
{
    (void)name;
    (void)ud;
    return NULL;
}

static int client_make(struct run *r)
{
    struct aws_config cfg;
    struct aws_client_opts co;
    char err[512];

    memset(&cfg, 0, sizeof(cfg));
    aws_client_opts_defaults(&co);
    co.timeout_ms = 30000;
    if (r->o->aws) {
        if (aws_config_resolve(&cfg, NULL, NULL, err, sizeof(err)) != 0) {
            fail_msg("%s", err);
            return -1;
        }
        /* the scenario's zones name its region */
        snprintf(cfg.region, sizeof(cfg.region), "%s", r->sc->region);
        r->aws = aws_client_create(&cfg, &co, NULL, NULL, err, sizeof(err));
    } else {
        const char *ak = getenv("AWS_ACCESS_KEY_ID"), *sk = getenv("AWS_SECRET_ACCESS_KEY");

        /* an emulator: the environment's keys when set (an emulator verifying SigV4
         * knows them), else any */
        snprintf(cfg.access_key_id, sizeof(cfg.access_key_id), "%s", ak && *ak ? ak : "scalelab");
        snprintf(cfg.secret_access_key, sizeof(cfg.secret_access_key), "%s",
                 sk && *sk ? sk : "scalelab");
        snprintf(cfg.region, sizeof(cfg.region), "%s", r->sc->region);
        snprintf(cfg.endpoint_url, sizeof(cfg.endpoint_url), "%s", r->base);
        r->aws = aws_client_create(&cfg, &co, null_env, NULL, err, sizeof(err));
    }
    if (!r->aws) {
        fail_msg("%s", err);
        return -1;
    }
    return 0;
}

static void timeline_make(struct run *r)
{
    struct sim_timeline_config tc = { 0 };
    const char *gnames[SIM_TIMELINE_MAX_GROUPS];
    struct sim_alarm_info ai[SIM_TIMELINE_MAX_ALARMS];

    for (int g = 0; g < r->sc->ngroups && g < SIM_TIMELINE_MAX_GROUPS; g++)
        gnames[g] = r->sc->groups[g].name;
    for (int i = 0; i < r->nalarms; i++) {
        ai[i].name = r->alarms[i].name;
        ai[i].metric = r->alarms[i].metric;
        ai[i].comparison = r->alarms[i].comparison;
        ai[i].threshold = r->alarms[i].threshold;
    }
    tc.start_ms = r->sc->start_ms;
    tc.end_ms = r->sc->start_ms + r->sc->duration_ms;
    tc.interval_ms = r->sc->sample_ms;
    tc.scenario_name = r->sc->name;
    tc.ngroups =
        r->sc->ngroups < SIM_TIMELINE_MAX_GROUPS ? r->sc->ngroups : SIM_TIMELINE_MAX_GROUPS;
    tc.group_names = gnames;
    tc.nalarms = r->nalarms;
    tc.alarms = ai;
    r->tl = sim_timeline_create(&tc);
    sim_elastic_sink_init(&r->elastic, tc.ngroups);
    r->live.f = stdout;
    r->live.table = 1;
    sim_out_bind(&r->live, sim_timeline_config(r->tl));
    if (!r->o->quiet)
        sim_timeline_add_sink(r->tl, live_on_sample, live_on_event, r);
    if (r->jsonf) {
        r->json.f = r->jsonf;
        r->json.json = 1;
        sim_out_bind(&r->json, sim_timeline_config(r->tl));
        sim_out_json_head(&r->json, r->sc->name, r->sc->seed, r->is_emulator ? "emulator" : "aws");
        sim_timeline_add_sink(r->tl, sim_out_on_sample, sim_out_on_event, &r->json);
    }
    sim_timeline_add_sink(r->tl, sim_elastic_sink_on_sample, NULL, &r->elastic);
    sim_timeline_add_sink(r->tl, sim_checker_on_sample, NULL, r->checker);
}

static void print_keep(const struct run *r)
{
    printf("\n--keep: the infrastructure is left in place (names prefixed %s-)\n", r->prefix);
    if (r->is_emulator) {
        printf("  endpoint: %s%s\n", r->base, r->own_emu ? " (the emulator this run started)" : "");
        if (r->own_emu)
            printf("  emulator: PID %ld, log %s; stop it with: kill %ld\n", (long)r->emu.pid,
                   r->emu.log, (long)r->emu.pid);
        printf("  look:     AWS_ENDPOINT_URL=%s AWS_REGION=%s AWS_ACCESS_KEY_ID=x "
               "AWS_SECRET_ACCESS_KEY=x loadgen aws autoscaling DescribeAutoScalingGroups\n",
               r->base, r->sc->region);
    }
    printf("  delete:   the teardown calls of `loadgen scenario %s --dry-run --prefix %s`, "
           "through `loadgen aws`\n",
           r->o->file, r->prefix);
}

static void finish_activities(struct run *r)
{
    /* what is still in progress at the end, as the simulator pushes it */
    for (int i = 0; i < r->nopen; i++) {
        const struct scn_activity *a = &r->open_acts[i];
        if (!seen(r, a->id))
            push_event(r, SIM_EVENT_ACTIVITY, scn_at(r, a->start_ms), 0, a->group, NULL, a->cause,
                       a->description, "InProgress");
    }
    r->nopen = 0;
}

static int report_write(struct run *r, const struct pred *p, const struct sim_run_result *pr,
                        const char *mode)
{
    struct sim_report_expect ex[256];
    static char details[256][256];
    struct sim_report_input in = { 0 };
    struct sim_report_capacity cmp = { 0 };
    char gen[64];

    in.tl = r->tl;
    in.scenario_name = r->sc->name;
    in.scenario_path = r->o->file;
    in.seed = r->sc->seed;
    in.has_seed = 1;
    in.mode = mode;
    in.elastic = &r->elastic;
    in.end_ms = r->obs.end_ms;
    in.nexpects = sim_out_report_expects(r->checker, ex, details, 256);
    in.expects = ex;
    snprintf(gen, sizeof(gen), "loadgen scenario");
    in.generated_by = gen;
    if (p && p->n > 0) {
        static char label[96];
        snprintf(label, sizeof(label), "predicted (scaler simulate, %s)", sim_mode_str(pr->mode));
        cmp.label = label;
        cmp.t_ms = p->t;
        cmp.capacity = p->cap;
        cmp.n = p->n;
        cmp.group = 0;
        cmp.tolerance = 1;
        cmp.bar_pct = 10;
        in.compare = &cmp;
    }
    if (sim_report_write(r->o->report, &in) != 0) {
        fail_msg("%s: cannot write the report: %s", r->o->report, strerror(errno));
        return -1;
    }
    return 0;
}

/* Checks what this build and the endpoint can do before anything is created. */
static int preflight(const struct run *r)
{
    for (int i = 0; i < r->sc->nfaults; i++) {
        const struct sim_fault *f = &r->sc->faults[i];
        if (f->kind == SIM_FAULT_AZ_OUTAGE && r->o->aws) {
            fail_msg("%s: %s: az_outage faults need the emulator (AWS has no API to take a zone "
                     "down)",
                     r->o->file, f->path);
            return 2;
        }
        if (f->kind == SIM_FAULT_SLOW && r->o->aws) {
            fail_msg("%s: %s: slow faults need the emulator (AWS cannot slow an instance down)",
                     r->o->file, f->path);
            return 2;
        }
    }
    for (int i = 0; i < r->sc->nlcs; i++)
        if (r->sc->lcs[i].app.cpu_per_request != 1 && !r->o->aws)
            fprintf(stderr,
                    PROG ": warning: %s.app.cpu_per_request %g: the emulator's CPUUtilization is "
                         "the workers' busy share (as if 1); the prediction applies it\n",
                    r->sc->lcs[i].path, r->sc->lcs[i].app.cpu_per_request);
    if (r->sc->ngroups > SIM_TIMELINE_MAX_GROUPS) {
        fail_msg("%s: at most %d groups", r->o->file, SIM_TIMELINE_MAX_GROUPS);
        return 2;
    }
    return 0;
}

int scn_run(const struct scn_opts *o, const struct sim_scenario *sc)
{
    struct run run, *r = &run;
    struct sigaction sa, old_int, old_term;
    char err[1024];
    int rc = 1, setup_ok = 0, failed_teardown = 0;
    int64_t emu_now, mono_now, next_sample, next_fault, t_end;
    struct pred pred = { 0 };
    struct sim_run_result pres;
    char mode[400];

    memset(r, 0, sizeof(*r));
    r->o = o;
    r->sc = sc;
    r->emu.pid = -1;
    rc = preflight(r);
    if (rc != 0)
        return rc;
    rc = 1;
    if (o->prefix)
        snprintf(r->prefix, sizeof(r->prefix), "%s", o->prefix);
    else
        snprintf(r->prefix, sizeof(r->prefix), "sl-%x-%llx", (unsigned)getpid(),
                 (unsigned long long)time(NULL) & 0xffffffull);
    scn_plan_build(&r->plan, sc, r->prefix);
    r->done = cm_xcalloc((size_t)(r->plan.nsetup + 1), sizeof(*r->done));
    r->arns = cm_xcalloc((size_t)(sc->npolicies + 1), sizeof(*r->arns));
    r->nfaults = sc->nfaults;
    r->faults = cm_xcalloc((size_t)(sc->nfaults + 1), sizeof(*r->faults));
    for (int i = 0; i < sc->nfaults; i++)
        r->faults[i].f = &sc->faults[i];
    cm_hist_init(&r->run_hist, STATS_HIST_MAX_US, 3);
    cm_hist_init(&r->period_hist, STATS_HIST_MAX_US, 3);
    r->checker = sim_checker_create(sc, sc->start_ms);
    if (o->json) {
        r->jsonf = fopen(o->json, "w");
        if (!r->jsonf) {
            fail_msg("%s: %s", o->json, strerror(errno));
            goto out;
        }
    }

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    g_stop = 0;

    /* the endpoint */
    if (o->aws) {
        r->scale = 1;
    } else if (o->endpoint) {
        double ts = 0;
        snprintf(r->base, sizeof(r->base), "%s", o->endpoint);
        while (strlen(r->base) > 0 && r->base[strlen(r->base) - 1] == '/')
            r->base[strlen(r->base) - 1] = '\0';
        if (scn_emu_clock(r->base, &emu_now, &ts, err, sizeof(err)) == 0) {
            r->is_emulator = 1;
            if (o->time_scale > 0 && fabs(o->time_scale - ts) > 1e-9)
                fprintf(stderr,
                        PROG ": the emulator at %s runs at time scale %g; using it, not %g\n",
                        r->base, ts, o->time_scale);
            r->scale = ts > 0 ? ts : 1;
        } else {
            /* not a scalelab emulator (or not reachable: the first AWS call says which) */
            r->scale = o->time_scale > 0 ? o->time_scale : 1;
        }
    } else {
        char bin[4096];

        r->scale = o->time_scale > 0 ? o->time_scale : 60;
        if (scn_emu_find(bin, sizeof(bin), err, sizeof(err)) != 0) {
            fail_msg("%s", err);
            goto out_signals;
        }
        if (scn_emu_start(&r->emu, bin, r->scale, !o->keep, err, sizeof(err)) != 0) {
            fail_msg("cannot start the emulator: %s", err);
            goto out_signals;
        }
        r->own_emu = 1;
        r->is_emulator = 1;
        snprintf(r->base, sizeof(r->base), "%.200s", r->emu.url);
    }
    if (client_make(r) != 0)
        goto out_stop;
    for (int i = 0; i < sc->nfaults; i++) {
        const struct sim_fault *f = &sc->faults[i];
        if (f->kind == SIM_FAULT_AZ_OUTAGE && (!r->is_emulator || !emu_has_az_outage(r, f->zone))) {
            fail_msg("%s: %s: az_outage faults need an emulator that takes zones down "
                     "(POST /_scalelab/fault az_outage); %s does not",
                     o->file, f->path, r->base);
            rc = 2;
            goto out_stop;
        }
        if (f->kind == SIM_FAULT_SLOW && !r->is_emulator) {
            fail_msg("%s: %s: slow faults need the emulator; %s is not one", o->file, f->path,
                     r->base);
            rc = 2;
            goto out_stop;
        }
    }
    if (r->is_emulator)
        snprintf(mode, sizeof(mode), "loadgen scenario on %s emulator at %.200s (time scale %g)",
                 r->own_emu ? "its own" : "the", r->base, r->scale);
    else if (o->aws)
        snprintf(mode, sizeof(mode), "loadgen scenario on AWS (%.60s)", sc->region);
    else
        snprintf(mode, sizeof(mode), "loadgen scenario at %.200s", r->base);
    printf("%s: %s, names prefixed %s-\n", sc->name, mode, r->prefix);
    fflush(stdout);

    /* scenario time 0: an emulated minute boundary (as the simulator's start), so metric
     * minutes and alarm periods fall alike in both worlds */
    if (r->is_emulator) {
        int64_t boundary;
        if (clock_sync(r, &emu_now, &mono_now, err, sizeof(err)) != 0) {
            fail_msg("%s", err);
            goto out_stop;
        }
        boundary = (emu_now / 60000 + 1) * 60000;
        r->emu_t0 = boundary;
        r->mono_t0 = mono_now + (int64_t)((double)(boundary - emu_now) / r->scale);
        sleep_until(r->mono_t0);
    } else {
        r->emu_t0 = wall_ms();
        r->mono_t0 = mono_ms();
    }
    if (setup(r) != 0) {
        if (g_stop)
            fail_msg("interrupted during setup");
        goto out_teardown;
    }
    setup_ok = 1;
    if (alarms_discover(r) != 0)
        goto out_teardown;
    timeline_make(r);
    if (load_start(r) != 0)
        goto out_teardown;

    /* the loop: a sample each period, faults at their times */
    t_end = sc->duration_ms;
    next_sample = sc->sample_ms < t_end ? sc->sample_ms : t_end;
    next_fault = faults_step(r, 0);
    for (;;) {
        int64_t due = next_sample < next_fault ? next_sample : next_fault;
        int64_t t_wall = r->mono_t0 + (int64_t)((double)due / r->scale);

        sleep_until(t_wall);
        if (g_stop)
            break;
        if (next_fault <= due)
            next_fault = faults_step(r, due);
        if (next_sample <= due) {
            double c0 = thread_cpu_ms(), c1;
            int64_t prev = next_sample - sc->sample_ms < 0 ? 0 : next_sample - sc->sample_ms;
            if (poll_period(r, next_sample, next_sample - prev) != 0)
                goto out_teardown;
            c1 = thread_cpu_ms() - c0;
            r->cpu_ms_sum += c1;
            if (c1 > r->cpu_ms_max)
                r->cpu_ms_max = c1;
            r->cpu_periods++;
            if (next_sample >= t_end)
                break;
            next_sample += sc->sample_ms;
            if (next_sample > t_end)
                next_sample = t_end;
        }
    }
    load_stop(r);
    if (g_stop) {
        fail_msg("interrupted (signal %d): tearing down", (int)g_stop);
        goto out_teardown;
    }
    finish_activities(r);
    r->obs.start_ms = sc->start_ms;
    r->obs.end_ms = sc->start_ms + sc->duration_ms;
    r->obs.ngroups = sc->ngroups;
    r->obs.mode = SIM_MODE_DES;
    if (r->run_hist.total > 0) {
        r->obs.p50_ms = (double)cm_hist_percentile(&r->run_hist, 50) / 1000.0;
        r->obs.p99_ms = (double)cm_hist_percentile(&r->run_hist, 99) / 1000.0;
    }
    rc = 0;

out_teardown:
    load_stop(r);
    if (o->keep && setup_ok) {
        print_keep(r);
    } else {
        failed_teardown = teardown(r);
        if (failed_teardown && rc == 0)
            rc = 1;
    }
out_stop:
    if (r->own_emu && !o->keep)
        scn_emu_stop(&r->emu, 0);
out_signals:
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc == 0) {
        struct sim_elastic_diff d;
        int have_diff = 0;
        char how[256], extra[512];
        int failed;

        sim_checker_finish(r->checker, r->obs.end_ms);
        failed = sim_checker_failed(r->checker);
        rc = failed ? 3 : 0;
        if (predict(r, &pred, &pres) == 0 && r->nobs > 0 && pred.n > 0)
            have_diff = sim_elastic_diff(r->obs_t, r->obs_cap, r->nobs, pred.t, pred.cap, pred.n,
                                         r->obs.end_ms, 1.0, &d) == 0;
        snprintf(how, sizeof(how), "%s, seed %llu", r->is_emulator ? "emulator" : "aws",
                 (unsigned long long)sc->seed);
        sim_out_print_summary(stdout, sc->name, how, "observed", &r->elastic, &r->obs,
                              sim_timeline_config(r->tl));
        if (have_diff) {
            printf("predicted (scaler simulate, %s mode): final InService %d, observed %d; "
                   "capacity differs by more than one instance %.1f%% of the time (bar 10%%: "
                   "%s), differs at all %.1f%%, largest difference %.0f\n",
                   sim_mode_str(pres.mode), pres.final_in_service[0], r->obs.final_in_service[0],
                   d.over_tolerance_pct, d.over_tolerance_pct <= 10 ? "holds" : "missed",
                   d.differ_pct, d.max_abs);
        }
        printf("runner: %.2f ms CPU per observed period (mean of %d, max %.2f), load threads "
               "excluded\n",
               r->cpu_periods ? r->cpu_ms_sum / r->cpu_periods : 0.0, r->cpu_periods,
               r->cpu_ms_max);
        sim_out_print_expectations(stdout, r->checker);
        if (failed)
            sim_out_print_failures(stderr, PROG, o->file, r->checker);
        if (r->jsonf) {
            int k = snprintf(extra, sizeof(extra),
                             ",\n\"runner\":{\"prefix\":\"%s\",\"time_scale\":%.17g,"
                             "\"periods\":%d,\"cpu_ms_per_period\":%.4f,"
                             "\"cpu_ms_per_period_max\":%.4f}",
                             r->prefix, r->scale, r->cpu_periods,
                             r->cpu_periods ? r->cpu_ms_sum / r->cpu_periods : 0.0, r->cpu_ms_max);
            if (have_diff && k > 0 && (size_t)k < sizeof(extra))
                snprintf(extra + k, sizeof(extra) - (size_t)k,
                         ",\n\"predicted\":{\"mode\":\"%s\",\"final_in_service\":%d,"
                         "\"over_one_instance_pct\":%.4f,\"differ_pct\":%.4f,\"max_abs\":%.0f}",
                         sim_mode_str(pres.mode), pres.final_in_service[0], d.over_tolerance_pct,
                         d.differ_pct, d.max_abs);
            sim_out_json_tail(r->jsonf, &r->elastic, r->checker, &r->obs,
                              sim_timeline_config(r->tl), extra, rc);
        }
        if (o->report && report_write(r, &pred, &pres, mode) != 0)
            rc = 1;
        if (o->report)
            printf("report: %s\n", o->report);
    }
    free(pred.t);
    free(pred.cap);
out:
    run_cleanup(r);
    return rc;
}
