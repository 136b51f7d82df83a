/* loadgen/scn_poll.c: the scenario runner's view of the world: the alarms the timeline
 * knows, the live sinks, and each sample period's polling of groups, instance health,
 * alarms, activities and CPU into the timeline (see scn_run.h). */
#include "loadgen/scn_run.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <libxml/tree.h>

#include "common/buf.h"
#include "common/hist.h"
#include "common/xalloc.h"
#include "loadgen/awsapi.h"
#include "loadgen/player.h"
#include "loadgen/scn_internal.h"
#include "loadgen/scn_reply.h"
#include "scaler/app.h"
#include "scaler/asg_warm.h"
#include "scaler/civil.h"
#include "scaler/sim/elastic.h"
#include "scaler/sim/expect.h"
#include "scaler/sim/output.h"
#include "scaler/sim/timeline.h"

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
    a->alarm_rule = NULL;
    a->state = SIM_ALARM_INSUFFICIENT_DATA;
    a->action_ms = INT64_MIN;
    a->action_seen = 0;
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
int scn_alarms_discover(struct run *r)
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
    /* composites as the simulator shows them: the name and the rule as written, no metric */
    for (int i = 0; i < r->sc->ncomposites; i++) {
        const struct sim_composite *co = &r->sc->composites[i];
        char aws_name[256];
        int before = r->nalarms;

        snprintf(aws_name, sizeof(aws_name), "%s-%s", r->prefix, co->name);
        alarm_add(r, aws_name, co->name, "", "", 0);
        if (r->nalarms > before)
            r->alarms[before].alarm_rule = cm_xstrdup(co->alarm_rule);
    }
    for (int i = 0; i < r->sc->npolicies; i++)
        if (r->sc->policies[i].type == SIM_POLICY_TARGET)
            goto tt;
    return 0;
tt:
    aws_params_init(&p);
    snprintf(pre, sizeof(pre), "TargetTracking-%s-", r->prefix);
    aws_params_add(&p, "AlarmNamePrefix", pre);
    if (scn_aws_call(r, AWS_CLOUDWATCH, "DescribeAlarms", &p, &doc, &err) != 0) {
        scn_fail_msg("DescribeAlarms: %s: %s", err.code, err.message);
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

void scn_live_on_sample(const struct sim_sample *s, void *ud)
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

void scn_live_on_event(const struct sim_event *e, void *ud)
{
    struct run *r = ud;

    sim_out_on_event(e, &r->live);
    fflush(stdout);
}

void scn_push_event(struct run *r, enum sim_event_kind kind, int64_t t_ms, int64_t end_ms,
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

int scn_seen(const struct run *r, const char *id)
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

    if (scn_seen(r, a->id))
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
    scn_push_event(r, SIM_EVENT_ACTIVITY, scn_at(r, a->start_ms),
                   a->end_ms ? scn_at(r, a->end_ms) : 0, s->group, NULL, a->cause, a->description,
                   a->status);
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
        if (scn_aws_call(r, AWS_AUTOSCALING, "DescribeScalingActivities", &p, &doc, &err) != 0) {
            scn_fail_msg("DescribeScalingActivities: %s: %s", err.code, err.message);
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
    if (r->sc->ncomposites) { /* without AlarmTypes AWS lists metric alarms only */
        aws_params_add(&p, "AlarmTypes.member.1", "MetricAlarm");
        aws_params_add(&p, "AlarmTypes.member.2", "CompositeAlarm");
    }
    if (scn_aws_call(r, AWS_CLOUDWATCH, "DescribeAlarms", &p, &doc, &err) != 0) {
        scn_fail_msg("DescribeAlarms: %s: %s", err.code, err.message);
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
            scn_push_event(r, SIM_EVENT_ALARM, st.updated_ms ? scn_at(r, st.updated_ms) : 0, 0,
                           NULL, r->alarms[i].name, cause, st.reason, "");
            r->alarms[i].state = now;
        }
        states[i] = now;
    }
    xmlFreeDoc(doc);
    aws_params_cleanup(&p);
    return 0;
}

/* A composite's Action history items not yet shown, oldest first: the timeline's note, as
 * the simulator's (an Auto Scaling action of a composite never runs: AWS logs the failed
 * item instead). */
struct action_scan {
    struct run *r;
    struct alarm_track *t;
    int at_last; /* items seen so far at t->action_ms */
};

static void on_action_item(int64_t t_ms, const char *summary, void *ud)
{
    struct action_scan *s = ud;
    struct alarm_track *t = s->t;

    if (t_ms < t->action_ms)
        return;
    if (t_ms == t->action_ms && s->at_last++ < t->action_seen)
        return;
    if (t_ms > t->action_ms) {
        t->action_ms = t_ms;
        t->action_seen = 0;
        s->at_last = 1;
    }
    t->action_seen++;
    scn_push_event(s->r, SIM_EVENT_ALARM, scn_at(s->r, t_ms), 0, NULL, t->name, summary, summary,
                   "Action");
}

static int poll_composite_actions(struct run *r)
{
    for (int i = 0; i < r->nalarms; i++) {
        struct alarm_track *t = &r->alarms[i];
        struct action_scan s = { r, t, 0 };
        struct aws_params p;
        struct aws_error err;
        xmlDoc *doc = NULL;
        char iso[40];

        if (!t->alarm_rule)
            continue;
        aws_params_init(&p);
        aws_params_add(&p, "AlarmName", t->aws_name);
        aws_params_add(&p, "HistoryItemType", "Action");
        aws_params_add(&p, "ScanBy", "TimestampAscending");
        if (t->action_ms != INT64_MIN) {
            sc_civil_format_iso_ms(t->action_ms, iso, sizeof(iso));
            aws_params_add(&p, "StartDate", iso);
        }
        if (scn_aws_call(r, AWS_CLOUDWATCH, "DescribeAlarmHistory", &p, &doc, &err) != 0) {
            scn_fail_msg("DescribeAlarmHistory: %s: %s", err.code, err.message);
            aws_params_cleanup(&p);
            return -1;
        }
        scn_reply_history(doc, on_action_item, &s);
        xmlFreeDoc(doc);
        aws_params_cleanup(&p);
    }
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
    if (scn_aws_call(r, AWS_AUTOSCALING, "DescribeAutoScalingGroups", &p, &doc, &err) != 0) {
        scn_fail_msg("DescribeAutoScalingGroups: %s: %s", err.code, err.message);
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

/* The warm pool's instances of group g that EC2 bills now (sc_asg_warm_billed_str on
 * DescribeWarmPool's states, every page; docs/autoscaling.md 7.4) into *billed. */
static int poll_warm(struct run *r, int g, int *billed)
{
    static struct scn_group_state st; /* large; the controlling thread only */
    char next[1024] = "";

    *billed = 0;
    for (int page = 0; page < SCN_MAX_INSTANCES; page++) {
        struct aws_params p;
        struct aws_error err;
        xmlDoc *doc = NULL;

        aws_params_init(&p);
        aws_params_addf(&p, "AutoScalingGroupName", "%s-%s", r->prefix, r->sc->groups[g].name);
        aws_params_add(&p, "MaxRecords", "50");
        if (next[0])
            aws_params_add(&p, "NextToken", next);
        if (scn_aws_call(r, AWS_AUTOSCALING, "DescribeWarmPool", &p, &doc, &err) != 0) {
            scn_fail_msg("DescribeWarmPool: %s: %s", err.code, err.message);
            aws_params_cleanup(&p);
            return -1;
        }
        aws_params_cleanup(&p);
        scn_reply_warm_pool(doc, &st, next, sizeof(next));
        xmlFreeDoc(doc);
        for (int k = 0; k < st.ninstances; k++)
            *billed += sc_asg_warm_billed_str(st.inst[k].lifecycle, st.pool_state);
        if (!next[0])
            break;
    }
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
    sc_civil_format_iso_ms(to - 2 * period_ms, t0, sizeof(t0));
    sc_civil_format_iso_ms(to + 1000, t1, sizeof(t1));
    aws_params_init(&p);
    aws_params_add(&p, "Namespace", "AWS/EC2");
    aws_params_add(&p, "MetricName", "CPUUtilization");
    aws_params_add(&p, "Dimensions.member.1.Name", "AutoScalingGroupName");
    aws_params_addf(&p, "Dimensions.member.1.Value", "%s-%s", r->prefix, r->sc->groups[g].name);
    aws_params_add(&p, "StartTime", t0);
    aws_params_add(&p, "EndTime", t1);
    aws_params_add(&p, "Period", "60");
    aws_params_add(&p, "Statistics.member.1", "Average");
    if (scn_aws_call(r, AWS_CLOUDWATCH, "GetMetricStatistics", &p, &doc, &err) != 0) {
        scn_fail_msg("GetMetricStatistics: %s: %s", err.code, err.message);
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
        if (scn_aws_call(r, AWS_ELB, "DescribeInstanceHealth", &p, &doc, &err) != 0) {
            scn_fail_msg("DescribeInstanceHealth: %s: %s", err.code, err.message);
            aws_params_cleanup(&p);
            return -1;
        }
        scn_reply_instance_health(doc, &in, &out);
        r->elb_in_service += in;
        r->elb_total += in + out;
        xmlFreeDoc(doc);
        aws_params_cleanup(&p);
    }
    /* the target groups' registered targets, healthy among them (ELBv2) */
    for (int i = 0; i < r->sc->ntgs; i++) {
        struct aws_params p;
        struct aws_error err;
        xmlDoc *doc = NULL;
        char key[300];
        const char *arn;
        int healthy, other;

        snprintf(key, sizeof(key), "tg:%s", r->sc->tgs[i].name);
        arn = scn_ref(r, key);
        if (!arn)
            continue;
        aws_params_init(&p);
        aws_params_add(&p, "TargetGroupArn", arn);
        if (scn_aws_call(r, AWS_ELBV2, "DescribeTargetHealth", &p, &doc, &err) != 0) {
            scn_fail_msg("DescribeTargetHealth: %s: %s", err.code, err.message);
            aws_params_cleanup(&p);
            return -1;
        }
        scn_reply_target_health(doc, &healthy, &other);
        r->elb_in_service += healthy;
        r->elb_total += healthy + other;
        xmlFreeDoc(doc);
        aws_params_cleanup(&p);
    }
    return 0;
}

/* Demand in instances under an ALBRequestCountPerTarget basis (sim_elastic_request_demand,
 * the simulator's rule): the requests the load balancer routed to the target group, as the
 * endpoint publishes them (RequestCount, AWS/ApplicationELB, LoadBalancer + TargetGroup,
 * Sum of the one-minute datapoints stamped in [to - w, to), w the period but at least a
 * minute: a shorter period has no minute of its own). */
static int poll_request_demand(struct run *r, const struct sim_demand_basis *b, int64_t period_ms,
                               int64_t to, int *demand)
{
    char key[160];
    const char *lb, *tg;
    int64_t w = period_ms < 60000 ? 60000 : period_ms;
    double sum, max;

    *demand = 0;
    snprintf(key, sizeof(key), "lbdim:%s", r->sc->albs[b->alb].name);
    lb = scn_ref(r, key); /* "app/NAME/ID" */
    snprintf(key, sizeof(key), "tgdim:%s", b->target_group);
    tg = scn_ref(r, key);
    if (!lb || !tg) {
        scn_fail_msg("the demand basis's target group %s or its load balancer %s was not made",
                     b->target_group, r->sc->albs[b->alb].name);
        return -1;
    }
    if (scn_alb_metric_window(r, "RequestCount", lb, tg, to - w, to, &sum, &max, NULL) != 0)
        return -1;
    *demand = sim_elastic_request_demand(b, sum, w);
    return 0;
}

/* Demand in instances from the offered arrivals (docs/loadgen.md; of a group behind an ALB,
 * the requests its target groups took: scn_alb_poll): the smallest count
 * keeping the group's busy share at or below its demand basis (sim_elastic_demand_basis:
 * the simulator's). */
static int demand_of(const struct run *r, int g, double offered_rps)
{
    const struct sim_group *grp = &r->sc->groups[g];
    int lc = sim_scenario_group_lc(r->sc, grp);
    const struct sc_app *app = &r->sc->lcs[lc].app;
    double share = 1.0, work, cap;
    int behind = 0;
    struct sim_demand_basis basis;

    if (grp->ntarget_groups > 0) {
        /* behind an ALB: the requests its target groups took (the rules route the mix) */
        offered_rps = scn_alb_group_rps(r, g);
        behind = 1;
    } else {
        /* load is split over the groups sharing the classic load balancers */
        for (int k = 0; k < r->sc->ngroups; k++)
            if (r->sc->groups[k].nload_balancers > 0)
                behind++;
        if (grp->nload_balancers == 0)
            return 0;
    }
    if (!(offered_rps > 0))
        return 0;
    if (behind > 1)
        share = 1.0 / behind;
    work = sc_app_cpu_time(app, offered_rps * share * (app->service_mean_ms / 1000.0));
    sim_elastic_demand_basis(r->sc, g, &basis);
    cap = basis.cpu_pct / 100.0 * app->workers;
    if (cap <= 0)
        return 1;
    return work / cap < 1 ? 1 : (int)ceil(work / cap - 1e-9);
}

/* One sample period ending at scenario time t (ms since the start). */
int scn_poll_period(struct run *r, int64_t t, int64_t interval)
{
    struct scn_group_state st[SIM_TIMELINE_MAX_GROUPS];
    struct sim_group_sample gs[SIM_TIMELINE_MAX_GROUPS];
    enum sim_alarm_state as[SIM_TIMELINE_MAX_ALARMS];
    struct sim_sample s = { 0 };
    int64_t emu_end = r->emu_t0 + t;
    double offered_rps = 0;
    struct sim_demand_basis basis;

    memset(gs, 0, sizeof(gs));
    if (r->player && scn_alb_poll(r, emu_end, interval) != 0)
        return -1;
    if (poll_groups(r, st) != 0 || poll_health(r) != 0 || poll_alarms(r, as) != 0 ||
        poll_composite_actions(r) != 0 || poll_activities(r) != 0)
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
        /* sent per emulated second; with real-time service the rates are real ones */
        offered_rps =
            (double)pp.sent / ((double)interval / 1000.0) * (r->svc.scaled ? 1 : r->scale);
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
        if (r->sc->groups[g].warm && poll_warm(r, g, &gs[g].warm_billed) != 0)
            return -1;
        gs[g].cpu_pct = NAN;
        if (poll_cpu(r, g, interval, emu_end, &gs[g].cpu_pct) != 0)
            return -1;
        sim_elastic_demand_basis(r->sc, g, &basis);
        if (basis.kind == SIM_DEMAND_REQUESTS) {
            int d;
            if (poll_request_demand(r, &basis, interval, emu_end, &d) != 0)
                return -1;
            gs[g].demand = d;
        } else {
            gs[g].demand = demand_of(r, g, offered_rps);
        }
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
    /* the period's decisions before its row, as the simulator prints them */
    scn_explain_drain(r);
    sim_timeline_push_sample(r->tl, &s);
    return 0;
}
