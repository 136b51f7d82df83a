/* loadgen/scn_run.c: scn_run() (see scn_run.h): the clock, the prediction and the run
 * itself. The AWS calls are in scn_calls.c, the polling in scn_poll.c, the faults in
 * scn_fault.c and the load in scn_load.c (loadgen/scn_internal.h). */
#include "loadgen/scn_run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/hist.h"
#include "common/xalloc.h"
#include "loadgen/awsapi.h"
#include "loadgen/player.h"
#include "loadgen/scenario.h"
#include "loadgen/scn_emu.h"
#include "loadgen/scn_internal.h"
#include "loadgen/scn_reply.h"
#include "loadgen/stats.h"
#include "scaler/app.h"
#include "scaler/sim/elastic.h"
#include "scaler/sim/expect.h"
#include "scaler/sim/output.h"
#include "scaler/sim/predict.h"
#include "scaler/sim/report.h"
#include "scaler/sim/timeline.h"

#define PROG "loadgen scenario"

volatile sig_atomic_t scn_g_stop;

static void on_signal(int sig)
{
    scn_g_stop = sig;
}

int64_t scn_mono_ms(void)
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
        int64_t now = scn_mono_ms(), d;
        struct timespec ts;

        if (scn_g_stop || now >= until)
            return;
        d = until - now;
        if (d > 100)
            d = 100;
        ts.tv_sec = 0;
        ts.tv_nsec = d * 1000000L;
        nanosleep(&ts, NULL);
    }
}

void scn_fail_msg(const char *fmt, ...)
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
int64_t scn_at(const struct run *r, int64_t emu_ms)
{
    return r->sc->start_ms + (emu_ms - r->emu_t0);
}

/* Reads the endpoint's clock and anchors it to the monotonic clock. */
static int clock_sync(struct run *r, int64_t *emu_now, int64_t *mono_now, char *err, size_t n)
{
    if (r->is_emulator) {
        double ts;
        int64_t m0 = scn_mono_ms(), m1;

        if (scn_emu_clock(r->base, emu_now, &ts, err, n) != 0)
            return -1;
        m1 = scn_mono_ms();
        *mono_now = (m0 + m1) / 2;
        return 0;
    }
    *emu_now = wall_ms();
    *mono_now = scn_mono_ms();
    return 0;
}

/* ---- the prediction ---- */

/* The simulator's capacity for the first group (scaler/sim/predict.h), its warnings
 * printed as scaler simulate prints them. */
static int predict(const struct run *r, struct sim_prediction *p)
{
    struct sim_predict_options po = { r->sc->seed, 0 };
    char err[SIM_ERR_MAX];
    int rv = sim_predict(r->sc, &po, p, err);

    for (int i = 0; i < p->nwarnings; i++)
        fprintf(stderr, "scaler: warning: %s\n", p->warnings[i]);
    if (rv != 0) {
        scn_fail_msg("the prediction (scaler simulate) failed: %s", err);
        return -1;
    }
    return 0;
}

/* One line: which clock service times and latencies are on (every output says it). */
static void print_time_basis(const struct run *r, FILE *f)
{
    if (r->svc.scaled)
        fprintf(f,
                "time: service, think and gap times on the emulated clock (x%g), each request "
                "standing for %g of the scenario's; latencies are emulated time\n",
                r->scale, r->svc.weight);
    else
        fprintf(f, "time: service and think times in real time; latencies are real time%s\n",
                r->scale > 1 ? " (the control plane runs on the emulated clock)" : "");
}

/* ---- the run ---- */

static void run_cleanup(struct run *r)
{
    scn_explain_stop(r);
    player_destroy(r->player);
    scn_stall_stop(r);
    free(r->targets);
    free(r->hosts);
    free(r->albfig);
    free(r->tg_rps);
    free(r->tgfig);
    if (r->aws)
        aws_client_destroy(r->aws);
    sim_timeline_destroy(r->tl);
    sim_checker_destroy(r->checker);
    for (int i = 0; i < r->nalarms; i++) {
        free(r->alarms[i].aws_name);
        free(r->alarms[i].name);
        free(r->alarms[i].metric);
        free(r->alarms[i].comparison);
        free(r->alarms[i].alarm_rule);
    }
    free(r->alarms);
    for (int i = 0; r->arns && i < r->sc->npolicies; i++)
        free(r->arns[i]);
    free(r->arns);
    for (int i = 0; i < r->nrefs; i++) {
        free(r->refk[i]);
        free(r->refv[i]);
    }
    free(r->refk);
    free(r->refv);
    free(r->done);
    free(r->seen);
    free(r->open_acts);
    free(r->faults);
    free(r->waits);
    free(r->members);
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
            scn_fail_msg("%s", err);
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
        scn_fail_msg("%s", err);
        return -1;
    }
    return 0;
}

static void timeline_make(struct run *r)
{
    struct sim_timeline_config tc = { 0 };
    const char *gnames[SIM_TIMELINE_MAX_GROUPS];
    struct sim_alarm_info ai[SIM_TIMELINE_MAX_ALARMS];
    struct sim_demand_basis basis[SIM_TIMELINE_MAX_GROUPS];

    for (int g = 0; g < r->sc->ngroups && g < SIM_TIMELINE_MAX_GROUPS; g++)
        gnames[g] = r->sc->groups[g].name;
    for (int g = 0; g < r->sc->ngroups && g < SIM_TIMELINE_MAX_GROUPS; g++)
        sim_elastic_demand_basis(r->sc, g, &basis[g]);
    for (int i = 0; i < r->nalarms; i++) {
        ai[i].name = r->alarms[i].name;
        ai[i].metric = r->alarms[i].metric;
        ai[i].comparison = r->alarms[i].comparison;
        ai[i].threshold = r->alarms[i].threshold;
        ai[i].alarm_rule = r->alarms[i].alarm_rule;
    }
    tc.start_ms = r->sc->start_ms;
    tc.end_ms = r->sc->start_ms + r->sc->duration_ms;
    tc.interval_ms = r->sc->sample_ms;
    tc.scenario_name = r->sc->name;
    tc.ngroups =
        r->sc->ngroups < SIM_TIMELINE_MAX_GROUPS ? r->sc->ngroups : SIM_TIMELINE_MAX_GROUPS;
    tc.group_names = gnames;
    tc.group_basis = basis;
    tc.nalarms = r->nalarms;
    tc.alarms = ai;
    r->tl = sim_timeline_create(&tc);
    sim_elastic_sink_init(&r->elastic, tc.ngroups);
    r->live.f = stdout;
    r->live.table = 1;
    sim_out_bind(&r->live, sim_timeline_config(r->tl));
    if (!r->o->quiet)
        sim_timeline_add_sink(r->tl, scn_live_on_sample, scn_live_on_event, r);
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
        if (!scn_seen(r, a->id))
            scn_push_event(r, SIM_EVENT_ACTIVITY, scn_at(r, a->start_ms), 0, a->group, NULL,
                           a->cause, a->description, "InProgress");
    }
    r->nopen = 0;
}

/* d: the predicted-vs-observed figure the terminal and --json print (NULL: none), shown
 * on the page as is. */
static int report_write(struct run *r, const struct sim_prediction *p,
                        const struct sim_elastic_diff *d, const char *mode)
{
    struct sim_report_expect ex[256];
    struct sim_report_input in = { 0 };
    struct sim_report_capacity cmp = { 0 };
    char gen[64], label[96], note[512];
    char(*notes)[800] = NULL;
    int rc = 0;

    in.tl = r->tl;
    in.scenario_name = r->sc->name;
    in.scenario_path = r->o->file;
    in.seed = r->sc->seed;
    in.has_seed = 1;
    in.mode = mode;
    in.elastic = &r->elastic;
    in.end_ms = r->obs.end_ms;
    in.result = &r->obs;
    in.nexpects = sim_out_report_expects(r->checker, ex, r->details, 256);
    in.expects = ex;
    in.stalls = &r->stalls;
    /* beside a failure the host may have caused: the terminal's note */
    sc_stalls_note(&r->stalls, note, sizeof(note));
    for (int i = 0; i < in.nexpects; i++) {
        if (!scn_stall_blames(r, sim_checker_result(r->checker, i)))
            continue;
        if (!notes)
            notes = cm_xcalloc((size_t)in.nexpects, sizeof(*notes));
        snprintf(notes[i], sizeof(notes[i]), "%s; note: %s", ex[i].detail ? ex[i].detail : "",
                 note);
        ex[i].detail = notes[i];
    }
    snprintf(gen, sizeof(gen), "loadgen scenario");
    in.generated_by = gen;
    if (p && p->n > 0) {
        snprintf(label, sizeof(label), "predicted (scaler simulate, %s)", p->mode);
        cmp.label = label;
        cmp.t_ms = p->t_ms;
        cmp.capacity = p->capacity;
        cmp.n = p->n;
        cmp.group = 0;
        cmp.tolerance = 1;
        cmp.bar_pct = 10;
        cmp.diff = d;
        in.compare = &cmp;
    }
    if (sim_report_write(r->o->report, &in) != 0) {
        scn_fail_msg("%s: cannot write the report: %s", r->o->report, strerror(errno));
        rc = -1;
    }
    free(notes);
    return rc;
}

/* Checks what this build and the endpoint can do before anything is created. */
static int preflight(const struct run *r)
{
    for (int i = 0; i < r->sc->nfaults; i++) {
        const struct sim_fault *f = &r->sc->faults[i];
        if (f->kind == SIM_FAULT_AZ_OUTAGE && r->o->aws) {
            scn_fail_msg(
                "%s: %s: az_outage faults need the emulator (AWS has no API to take a zone "
                "down)",
                r->o->file, f->path);
            return 2;
        }
        if (f->kind == SIM_FAULT_SLOW && r->o->aws) {
            scn_fail_msg("%s: %s: slow faults need the emulator (AWS cannot slow an instance down)",
                         r->o->file, f->path);
            return 2;
        }
    }
    for (int i = 0; i < r->sc->nlcs && !r->o->aws; i++) {
        char keys[128];

        if (sc_app_sim_ignored(&r->sc->lcs[i].app, keys, sizeof(keys)) > 0)
            fprintf(stderr,
                    PROG ": warning: %s.app: %s: the emulator's instances honour them, the "
                         "prediction (the simulator) does not model them\n",
                    r->sc->lcs[i].path, keys);
    }
    if (r->sc->ngroups > SIM_TIMELINE_MAX_GROUPS) {
        scn_fail_msg("%s: at most %d groups", r->o->file, SIM_TIMELINE_MAX_GROUPS);
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
    int64_t emu_now, mono_now, next_sample, next_fault, next_asg, t_end;
    struct sim_prediction pred = { 0 };
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
    if (scn_plan_build(&r->plan, sc, r->prefix, NULL, err, sizeof(err)) != 0) {
        scn_fail_msg("%s: %s", o->file, err);
        return 2;
    }
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
            scn_fail_msg("%s: %s", o->json, strerror(errno));
            goto out;
        }
    }

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    scn_g_stop = 0;

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
            scn_fail_msg("%s", err);
            goto out_signals;
        }
        if (scn_emu_start(&r->emu, bin, r->scale, !o->keep, err, sizeof(err)) != 0) {
            scn_fail_msg("cannot start the emulator: %s", err);
            goto out_signals;
        }
        r->own_emu = 1;
        r->is_emulator = 1;
        snprintf(r->base, sizeof(r->base), "%.200s", r->emu.url);
    }
    /* the scale is known: service times on the emulated clock or real (docs/dataplane.md) */
    scn_service_choose(sc, r->scale,
                       !r->is_emulator && o->service_mode == SCN_SERVICE_AUTO
                           ? SCN_SERVICE_REAL
                           : (enum scn_service_mode)o->service_mode,
                       o->batch, &r->svc);
    if (r->svc.scaled && !r->is_emulator) {
        scn_fail_msg("emulated service times need the emulator (its instances serve on its "
                     "clock); %s is not one: try --service-time real",
                     r->base[0] ? r->base : "AWS");
        rc = 2;
        goto out_stop;
    }
    if (r->svc.scaled) {
        scn_plan_cleanup(&r->plan);
        if (scn_plan_build(&r->plan, sc, r->prefix, &r->svc, err, sizeof(err)) != 0) {
            scn_fail_msg("%s: %s", o->file, err); /* the first build took it: not reached */
            rc = 2;
            goto out_stop;
        }
    }
    if (client_make(r) != 0)
        goto out_stop;
    for (int i = 0; i < sc->nfaults; i++) {
        const struct sim_fault *f = &sc->faults[i];
        if (f->kind == SIM_FAULT_AZ_OUTAGE &&
            (!r->is_emulator || !scn_emu_has_az_outage(r, f->zone))) {
            scn_fail_msg("%s: %s: az_outage faults need an emulator that takes zones down "
                         "(POST /_scalelab/fault az_outage); %s does not",
                         o->file, f->path, r->base);
            rc = 2;
            goto out_stop;
        }
        if (f->kind == SIM_FAULT_SLOW && !r->is_emulator) {
            scn_fail_msg("%s: %s: slow faults need the emulator; %s is not one", o->file, f->path,
                         r->base);
            rc = 2;
            goto out_stop;
        }
    }
    if (r->is_emulator)
        snprintf(mode, sizeof(mode),
                 "loadgen scenario on %s emulator at %.200s (time scale %g; latencies in %s)",
                 r->own_emu ? "its own" : "the", r->base, r->scale,
                 r->svc.scaled ? "emulated time" : "real time");
    else if (o->aws)
        snprintf(mode, sizeof(mode), "loadgen scenario on AWS (%.60s)", sc->region);
    else
        snprintf(mode, sizeof(mode), "loadgen scenario at %.200s", r->base);
    printf("%s: %s, names prefixed %s-\n", sc->name, mode, r->prefix);
    print_time_basis(r, stdout);
    if (r->is_emulator)
        scn_probe_warnings(sc, r->scale, &r->svc, stderr);
    /* before the setup, so the first decision of a group is not missed */
    if (scn_explain_start(r, stdout) != 0)
        goto out_stop;
    fflush(stdout);

    /* scenario time 0: an emulated minute boundary (as the simulator's start), so metric
     * minutes and alarm periods fall alike in both worlds */
    if (r->is_emulator) {
        int64_t boundary;
        if (clock_sync(r, &emu_now, &mono_now, err, sizeof(err)) != 0) {
            scn_fail_msg("%s", err);
            goto out_stop;
        }
        boundary = (emu_now / 60000 + 1) * 60000;
        r->emu_t0 = boundary;
        r->mono_t0 = mono_now + (int64_t)((double)(boundary - emu_now) / r->scale);
        sleep_until(r->mono_t0);
    } else {
        r->emu_t0 = wall_ms();
        r->mono_t0 = scn_mono_ms();
    }
    scn_stall_start(r);
    if (scn_setup(r) != 0) {
        if (scn_g_stop)
            scn_fail_msg("interrupted during setup");
        goto out_teardown;
    }
    setup_ok = 1;
    if (scn_alarms_discover(r) != 0)
        goto out_teardown;
    timeline_make(r);
    if (scn_load_start(r) != 0)
        goto out_teardown;

    /* the loop: a sample each period, faults, timed calls and hook handlers at their times */
    t_end = sc->duration_ms;
    next_sample = sc->sample_ms < t_end ? sc->sample_ms : t_end;
    next_fault = scn_faults_step(r, 0);
    next_asg = scn_asg_step(r, 0);
    for (;;) {
        int64_t due = next_sample < next_fault ? next_sample : next_fault;
        int64_t t_wall;

        if (next_asg < due)
            due = next_asg;
        t_wall = r->mono_t0 + (int64_t)((double)due / r->scale);
        if (scn_mono_ms() < t_wall) {
            int64_t woke;

            sleep_until(t_wall);
            /* how late the wake-up came (not a poll that overran its period: that is the
             * loop's own work, when it did not sleep) */
            woke = scn_mono_ms();
            scn_stall_note(r, SC_STALL_RUNNER, woke, (double)(woke - t_wall));
        }
        if (scn_g_stop)
            break;
        if (next_fault <= due)
            next_fault = scn_faults_step(r, due);
        if (next_asg <= due)
            next_asg = scn_asg_step(r, due);
        if (next_sample <= due) {
            double c0 = thread_cpu_ms(), c1;
            int64_t prev = next_sample - sc->sample_ms < 0 ? 0 : next_sample - sc->sample_ms;
            if (scn_poll_period(r, next_sample, next_sample - prev) != 0)
                goto out_teardown;
            c1 = thread_cpu_ms() - c0;
            r->cpu_ms_sum += c1;
            if (c1 > r->cpu_ms_max)
                r->cpu_ms_max = c1;
            r->cpu_periods++;
            scn_stall_poll_emu(r, 0);
            if (next_sample >= t_end)
                break;
            next_sample += sc->sample_ms;
            if (next_sample > t_end)
                next_sample = t_end;
        }
    }
    scn_load_stop(r);
    scn_stall_poll_emu(r, 1); /* the emulator's last stalls, before it is stopped */
    if (scn_g_stop) {
        scn_fail_msg("interrupted (signal %d): tearing down", (int)scn_g_stop);
        goto out_teardown;
    }
    scn_explain_finish(r, stdout);
    finish_activities(r);
    scn_alb_figures(r); /* a refused read is reported; the run's outcome stands */
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
    scn_load_stop(r);
    scn_explain_stop(r);
    if (o->keep && setup_ok) {
        print_keep(r);
    } else {
        failed_teardown = scn_teardown(r);
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
        char how[256], extra[32768], stall_line[1024];
        struct player_bursts bst;
        int failed;

        sim_checker_finish(r->checker, r->obs.end_ms);
        failed = sim_checker_failed(r->checker);
        rc = failed ? 3 : 0;
        if (predict(r, &pred) == 0 && r->nobs > 0 && pred.n > 0)
            have_diff = sim_elastic_diff(r->obs_t, r->obs_cap, r->nobs, pred.t_ms, pred.capacity,
                                         pred.n, r->obs.end_ms, 1.0, &d) == 0;
        snprintf(how, sizeof(how), "%s, seed %llu", r->is_emulator ? "emulator" : "aws",
                 (unsigned long long)sc->seed);
        sim_out_print_summary(stdout, sc->name, how, "observed", &r->elastic, &r->obs,
                              sim_timeline_config(r->tl));
        print_time_basis(r, stdout);
        if (have_diff) {
            printf("predicted (scaler simulate, %s mode): final InService %d, observed %d; "
                   "capacity differs by more than one instance %.1f%% of the time (bar 10%%: "
                   "%s), differs at all %.1f%%, largest difference %.0f\n",
                   pred.mode, pred.final_in_service, r->obs.final_in_service[0],
                   d.over_tolerance_pct, d.over_tolerance_pct <= 10 ? "holds" : "missed",
                   d.differ_pct, d.max_abs);
        }
        scn_alb_print(r, stdout);
        printf("runner: %.2f ms CPU per observed period (mean of %d, max %.2f), load threads "
               "excluded\n",
               r->cpu_periods ? r->cpu_ms_sum / r->cpu_periods : 0.0, r->cpu_periods,
               r->cpu_ms_max);
        player_bursts(r->player, &bst);
        r->stalls.measured[SC_STALL_LOAD] = bst.bursts > 0; /* the burst engines' timers */
        if (bst.bursts > 0)
            printf("runner: %llu closed bursts on the emulated clock; gap from a burst's last "
                   "reply to the next's first request %.2f real ms mean (asked %.2f), %.1f %% "
                   "of the bursts' time idle beyond it; start (release to first request) "
                   "%.2f ms mean, %.2f max (taken from the gap); %llu connects for %d "
                   "connections kept open across bursts\n",
                   (unsigned long long)bst.bursts, bst.gaps ? bst.gap_sum_ms / bst.gaps : 0.0,
                   bst.gap_ms,
                   bst.busy_sum_ms + bst.gap_sum_ms > 0
                       ? 100.0 * bst.excess_sum_ms / (bst.busy_sum_ms + bst.gap_sum_ms)
                       : 0.0,
                   bst.start_sum_ms / (double)bst.bursts, bst.start_max_ms,
                   (unsigned long long)bst.connects, bst.connections);
        sc_stalls_line(&r->stalls, stall_line, sizeof(stall_line));
        printf("%s\n", stall_line);
        sim_out_print_expectations(stdout, r->checker);
        scn_stall_print_notes(r, stdout);
        if (failed) {
            sim_out_print_failures(stderr, PROG, o->file, r->checker);
            scn_stall_print_notes(r, stderr);
        }
        if (o->junit && sim_out_write_junit(o->junit, sc->name, PROG, o->file, r->checker,
                                            (double)(scn_mono_ms() - r->mono_t0) / 1000.0) != 0) {
            scn_fail_msg("%s: cannot write the JUnit report: %s", o->junit, strerror(errno));
            rc = 1;
        }
        if (r->jsonf) {
            int k =
                snprintf(extra, sizeof(extra),
                         ",\n\"runner\":{\"prefix\":\"%s\",\"time_scale\":%.17g,"
                         "\"service_time\":\"%s\",\"latency_time\":\"%s\","
                         "\"request_weight\":%.17g,"
                         "\"periods\":%d,\"cpu_ms_per_period\":%.4f,"
                         "\"cpu_ms_per_period_max\":%.4f,"
                         "\"bursts\":{\"count\":%llu,\"gap_asked_ms\":%.4f,"
                         "\"gap_mean_ms\":%.4f,\"excess_ms\":%.4f,\"busy_ms\":%.4f,"
                         "\"start_mean_ms\":%.4f,\"start_max_ms\":%.4f,"
                         "\"connects\":%llu,\"connections\":%d}}",
                         r->prefix, r->scale, r->svc.scaled ? "emulated" : "real",
                         r->svc.scaled ? "emulated" : "real", r->svc.weight, r->cpu_periods,
                         r->cpu_periods ? r->cpu_ms_sum / r->cpu_periods : 0.0, r->cpu_ms_max,
                         (unsigned long long)bst.bursts, bst.gap_ms,
                         bst.gaps ? bst.gap_sum_ms / bst.gaps : 0.0, bst.excess_sum_ms,
                         bst.busy_sum_ms, bst.bursts ? bst.start_sum_ms / (double)bst.bursts : 0.0,
                         bst.start_max_ms, (unsigned long long)bst.connects, bst.connections);
            if (o->explain && k > 0 && (size_t)k < sizeof(extra))
                k += snprintf(extra + k, sizeof(extra) - (size_t)k,
                              ",\n\"explain\":{\"source\":\"%s\",\"decisions\":%d,"
                              "\"hooks\":%d,\"missed\":%llu}",
                              r->is_emulator ? "emulator events" : "none", r->explain_decisions,
                              r->explain_hooks, (unsigned long long)r->explain_missed);
            if (have_diff && k > 0 && (size_t)k < sizeof(extra))
                snprintf(extra + k, sizeof(extra) - (size_t)k,
                         ",\n\"predicted\":{\"mode\":\"%s\",\"final_in_service\":%d,"
                         "\"over_one_instance_pct\":%.4f,\"differ_pct\":%.4f,\"max_abs\":%.0f}",
                         pred.mode, pred.final_in_service, d.over_tolerance_pct, d.differ_pct,
                         d.max_abs);
            if (k > 0 && (size_t)k < sizeof(extra)) {
                size_t used = strlen(extra);
                if (scn_alb_json(r, extra + used, sizeof(extra) - used) != 0)
                    extra[used] = '\0'; /* too many to list: left out */
            }
            if (k > 0 && (size_t)k < sizeof(extra)) {
                size_t used = strlen(extra);
                int m = snprintf(extra + used, sizeof(extra) - used, ",\n");

                if (m < 0 || (size_t)m >= sizeof(extra) - used ||
                    sc_stalls_json(&r->stalls, scn_stall_blamed(r), extra + used + m,
                                   sizeof(extra) - used - (size_t)m) < 0)
                    extra[used] = '\0'; /* does not fit: left out */
            }
            sim_out_json_tail(r->jsonf, &r->elastic, r->checker, &r->obs,
                              sim_timeline_config(r->tl), extra, rc);
        }
        if (o->report && report_write(r, &pred, have_diff ? &d : NULL, mode) != 0)
            rc = 1;
        if (o->report)
            printf("report: %s\n", o->report);
    }
    sim_prediction_cleanup(&pred);
out:
    run_cleanup(r);
    return rc;
}
