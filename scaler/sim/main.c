/* scaler/sim/main.c: `scaler simulate SCENARIO.json`, the simulator's command line. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/units.h"
#include "common/xalloc.h"
#include "scaler/sim/elastic.h"
#include "scaler/sim/expect.h"
#include "scaler/sim/report.h"
#include "scaler/sim/run.h"
#include "scaler/sim/scenario.h"
#include "scaler/sim/timeline.h"

#define SCALER_VERSION "0.1.0"

struct opts {
    const char *file;
    uint64_t seed;
    int has_seed;
    int mode; /* SIM_MODE_AUTO, SIM_MODE_DES, SIM_MODE_FLUID */
    int json;
    int quiet;
    const char *report;
    const char *sweep;
    int64_t sample_ms;
    int64_t tick_us;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: scaler simulate SCENARIO.json [options]\n"
            "\n"
            "Runs a scenario (docs/scenarios.md) in virtual time: the scaler library's AWS\n"
            "rules against modelled instances and load. Prints a timeline, elasticity\n"
            "figures and cost, and checks the scenario's expectations.\n"
            "\n"
            "options:\n"
            "  --seed N            random seed (default: the scenario's, else 1)\n"
            "  --mode M            des (request by request), fluid (per tick) or auto (default:\n"
            "                      des up to 2M estimated requests, fluid beyond)\n"
            "  --json              the full timeline as JSON on stdout (byte-identical for the\n"
            "                      same scenario and seed)\n"
            "  --report FILE.html  a self-contained HTML report with plots\n"
            "  --sweep P=FROM:TO:STEP\n"
            "                      run once per value of the number at JSON path P (e.g.\n"
            "                      alarms.high-cpu.threshold=60:90:10) and print the figures\n"
            "  --sample DUR        sample interval of the timeline (default: the scenario's, 60s)\n"
            "  --tick DUR          fluid-mode step (default 1s)\n"
            "  --quiet             no timeline table, only the summary\n"
            "  --help, --version\n"
            "\n"
            "exit status: 0 every expectation holds; 3 one failed; 2 bad scenario or usage;\n"
            "1 runtime failure.\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "scaler: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\ntry 'scaler --help'\n");
    return 2;
}

/* ---- formatting ---- */

static void iso_time(int64_t ms, char *out, size_t n)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void elapsed(int64_t ms, char *out, size_t n)
{
    int64_t s = ms / 1000;

    if (s >= 86400)
        snprintf(out, n, "%lldd%02lld:%02lld", (long long)(s / 86400),
                 (long long)(s % 86400 / 3600), (long long)(s % 3600 / 60));
    else
        snprintf(out, n, "%02lld:%02lld:%02lld", (long long)(s / 3600), (long long)(s % 3600 / 60),
                 (long long)(s % 60));
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

/* Numbers with 4 decimals at most, trailing zeros trimmed; NAN as null. */
static void json_num(FILE *f, double v)
{
    char buf[64];
    size_t n;

    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    if (fabs(v) < 5e-5)
        v = 0;
    snprintf(buf, sizeof(buf), "%.4f", v);
    n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n > 0 && buf[n - 1] == '.')
        buf[--n] = '\0';
    fputs(buf, f);
}

/* ---- sinks ---- */

struct out {
    FILE *f;
    int64_t start_ms;
    int json;
    int table;
    int rows;
    const struct sim_timeline_config *tc;
    int first_entry;
};

static void table_header(struct out *o)
{
    fprintf(o->f, "%-10s %8s", "time", "load");
    for (int g = 0; g < o->tc->ngroups; g++)
        fprintf(o->f, "  %-11s %5s", o->tc->ngroups > 1 ? o->tc->group_names[g] : "des/ins/pen",
                "cpu%");
    fprintf(o->f, " %8s %8s %6s", "p50ms", "p99ms", "err%");
    for (int a = 0; a < o->tc->nalarms; a++)
        fprintf(o->f, "  %s", o->tc->alarms[a].name);
    fputc('\n', o->f);
}

static void on_sample(const struct sim_sample *s, void *ud)
{
    struct out *o = ud;
    char t[32];

    if (o->json) {
        fputs(o->first_entry ? "\n" : ",\n", o->f);
        o->first_entry = 0;
        fprintf(o->f, "{\"t_s\":%lld,\"type\":\"sample\",\"load\":",
                (long long)((s->t_ms - o->start_ms) / 1000));
        json_num(o->f, s->load);
        fprintf(o->f,
                ",\"load_unit\":\"%s\",\"offered_rps\":", s->load_is_clients ? "clients" : "req/s");
        json_num(o->f, s->offered_rps);
        fprintf(o->f,
                ",\"completed\":%llu,\"failed\":%llu,\"p50_ms\":", (unsigned long long)s->completed,
                (unsigned long long)s->failed);
        json_num(o->f, s->p50_ms);
        fputs(",\"p99_ms\":", o->f);
        json_num(o->f, s->p99_ms);
        fputs(",\"error_pct\":", o->f);
        json_num(o->f, s->error_pct);
        fputs(",\"groups\":[", o->f);
        for (int g = 0; g < s->ngroups; g++) {
            const struct sim_group_sample *gs = &s->groups[g];
            fprintf(o->f,
                    "%s{\"desired\":%d,\"in_service\":%d,\"pending\":%d,\"terminating\":%d,"
                    "\"cpu_pct\":",
                    g ? "," : "", gs->desired, gs->in_service, gs->pending, gs->terminating);
            json_num(o->f, gs->cpu_pct);
            fprintf(o->f, ",\"demand\":%d}", gs->demand);
        }
        fputs("],\"alarms\":[", o->f);
        for (int a = 0; a < s->nalarms; a++)
            fprintf(o->f, "%s\"%s\"", a ? "," : "", sim_alarm_state_str(s->alarms[a]));
        fputs("]}", o->f);
        return;
    }
    if (!o->table)
        return;
    if (o->rows % 40 == 0)
        table_header(o);
    o->rows++;
    elapsed(s->t_ms - o->start_ms, t, sizeof(t));
    fprintf(o->f, "%-10s %7.0f%c", t, s->load, s->load_is_clients ? 'c' : ' ');
    for (int g = 0; g < s->ngroups; g++) {
        char cap[32], cpu[16];
        snprintf(cap, sizeof(cap), "%d/%d/%d", s->groups[g].desired, s->groups[g].in_service,
                 s->groups[g].pending);
        if (isnan(s->groups[g].cpu_pct))
            snprintf(cpu, sizeof(cpu), "-");
        else
            snprintf(cpu, sizeof(cpu), "%.1f", s->groups[g].cpu_pct);
        fprintf(o->f, "  %-11s %5s", cap, cpu);
    }
    if (s->completed > 0)
        fprintf(o->f, " %8.1f %8.1f", s->p50_ms, s->p99_ms);
    else
        fprintf(o->f, " %8s %8s", "-", "-");
    fprintf(o->f, " %6.2f", s->error_pct);
    for (int a = 0; a < s->nalarms; a++) {
        const char *st = s->alarms[a] == SIM_ALARM_ALARM ? "ALARM"
                         : s->alarms[a] == SIM_ALARM_OK  ? "ok"
                                                         : "--";
        fprintf(o->f, "  %*s", (int)strlen(o->tc->alarms[a].name), st);
    }
    fputc('\n', o->f);
}

static const char *event_type(enum sim_event_kind k)
{
    return k == SIM_EVENT_ACTIVITY ? "activity" : k == SIM_EVENT_ALARM ? "alarm" : "fault";
}

static void on_event(const struct sim_event *e, void *ud)
{
    struct out *o = ud;
    char t[32];

    if (o->json) {
        fputs(o->first_entry ? "\n" : ",\n", o->f);
        o->first_entry = 0;
        fprintf(o->f, "{\"t_s\":%lld,\"type\":\"%s\"", (long long)((e->t_ms - o->start_ms) / 1000),
                event_type(e->kind));
        if (e->kind == SIM_EVENT_ACTIVITY) {
            fputs(",\"end_s\":", o->f);
            if (e->end_ms)
                fprintf(o->f, "%lld", (long long)((e->end_ms - o->start_ms) / 1000));
            else
                fputs("null", o->f);
        }
        if (e->group) {
            fputs(",\"group\":", o->f);
            json_str(o->f, e->group);
        }
        if (e->name) {
            fputs(",\"name\":", o->f);
            json_str(o->f, e->name);
        }
        fputs(",\"status\":", o->f);
        json_str(o->f, e->status);
        fputs(",\"cause\":", o->f);
        json_str(o->f, e->cause);
        fputs(",\"description\":", o->f);
        json_str(o->f, e->description);
        fputc('}', o->f);
        return;
    }
    if (!o->table)
        return;
    elapsed(e->t_ms - o->start_ms, t, sizeof(t));
    if (e->kind == SIM_EVENT_ACTIVITY)
        fprintf(o->f, "  ^ %s %s: %s (%s)\n", t, e->group ? e->group : "", e->description,
                e->status);
    else if (e->kind == SIM_EVENT_ALARM)
        fprintf(o->f, "  ^ %s alarm %s %s\n", t, e->name ? e->name : "", e->cause);
    else
        fprintf(o->f, "  ^ %s fault %s %s%s%s\n", t, e->cause, e->group ? e->group : "",
                e->group ? ": " : "", e->description);
}

struct sinks {
    struct out out;
    struct sim_elastic_sink elastic;
    struct sim_checker *checker;
    const struct opts *o;
    const struct sim_scenario *sc;
    enum sim_mode mode;
};

static void on_timeline(struct sim_timeline *tl, void *ud)
{
    struct sinks *s = ud;
    const struct sim_timeline_config *tc = sim_timeline_config(tl);
    char iso[32];

    s->out.tc = tc;
    s->out.start_ms = tc->start_ms;
    sim_elastic_sink_init(&s->elastic, tc->ngroups);
    if (s->out.json) {
        FILE *f = s->out.f;
        iso_time(tc->start_ms, iso, sizeof(iso));
        fputs("{\"scenario\":", f);
        json_str(f, s->sc->name);
        fprintf(f,
                ",\"seed\":%llu,\"mode\":\"%s\",\"start\":\"%s\",\"duration_s\":%lld,\"sample_s\":",
                (unsigned long long)(s->o->has_seed ? s->o->seed : s->sc->seed),
                sim_mode_str(s->mode), iso, (long long)((tc->end_ms - tc->start_ms) / 1000));
        json_num(f, (double)tc->interval_ms / 1000.0);
        fputs(",\"groups\":[", f);
        for (int g = 0; g < tc->ngroups; g++) {
            fputs(g ? "," : "", f);
            json_str(f, tc->group_names[g]);
        }
        fputs("],\"alarms\":[", f);
        for (int a = 0; a < tc->nalarms; a++) {
            fputs(a ? ",{\"name\":" : "{\"name\":", f);
            json_str(f, tc->alarms[a].name);
            fputs(",\"metric\":", f);
            json_str(f, tc->alarms[a].metric);
            fputs(",\"comparison\":", f);
            json_str(f, tc->alarms[a].comparison);
            fputs(",\"threshold\":", f);
            json_num(f, tc->alarms[a].threshold);
            fputc('}', f);
        }
        fputs("],\n\"timeline\":[", f);
        s->out.first_entry = 1;
    }
    sim_timeline_add_sink(tl, on_sample, on_event, &s->out);
    sim_timeline_add_sink(tl, sim_elastic_sink_on_sample, NULL, &s->elastic);
    if (s->checker)
        sim_timeline_add_sink(tl, sim_checker_on_sample, NULL, s->checker);
}

/* ---- one run ---- */

static void fmt_when(int64_t ms, char *out, size_t n)
{
    elapsed(ms, out, n);
}

static void print_summary(FILE *f, const struct sinks *s, const struct sim_run_result *r,
                          const struct sim_timeline_config *tc)
{
    double tot = r->completed + r->failed;

    fprintf(f, "\nscenario %s: %s mode, seed %llu, %.1f h simulated\n", s->sc->name,
            sim_mode_str(r->mode), (unsigned long long)(s->o->has_seed ? s->o->seed : s->sc->seed),
            (double)(r->end_ms - r->start_ms) / 3600000.0);
    fprintf(f, "requests: %.0f completed, %.0f failed (%.3f%%), latency p50 %.1f ms, p99 %.1f ms\n",
            r->completed, r->failed, tot > 0 ? 100.0 * r->failed / tot : 0.0, r->p50_ms, r->p99_ms);
    for (int g = 0; g < tc->ngroups; g++) {
        struct sim_elastic_result er;
        sim_elastic_result(&s->elastic.groups[g], r->end_ms, &er);
        fprintf(f,
                "group %s: final desired %d, InService %d; cost %.2f instance-hours\n"
                "  elasticity: under-provisioning accuracy %.2f%%, over-provisioning accuracy "
                "%.2f%%,\n  timeshare under %.2f%% / over %.2f%%, instability %.2f%%, jitter "
                "%.3f/h (mean demand %.2f, supply %.2f)\n",
                tc->group_names[g], r->final_desired[g], r->final_in_service[g],
                er.cost_instance_hours, er.theta_u_pct, er.theta_o_pct, er.tau_u_pct, er.tau_o_pct,
                er.instability_pct, er.jitter_per_h, er.mean_demand, er.mean_supply);
    }
}

static void print_expectations(FILE *f, const struct sim_checker *ch)
{
    int n = sim_checker_count(ch);

    if (n == 0)
        return;
    fprintf(f, "expectations:\n");
    for (int i = 0; i < n; i++) {
        const struct sim_check_result *r = sim_checker_result(ch, i);
        char when[32];
        fmt_when(r->when_ms, when, sizeof(when));
        fprintf(f, "  %s %s: %s (%s at %s)\n", r->ok ? "ok  " : "FAIL", r->e->path, r->what,
                r->observed, when);
    }
}

static void json_tail(FILE *f, const struct sinks *s, const struct sim_run_result *r,
                      const struct sim_timeline_config *tc, int exit_code)
{
    double tot = r->completed + r->failed;
    int n = sim_checker_count(s->checker);

    fputs("\n],\n\"summary\":{\"completed\":", f);
    json_num(f, floor(r->completed + 0.5));
    fputs(",\"failed\":", f);
    json_num(f, floor(r->failed + 0.5));
    fputs(",\"failed_pct\":", f);
    json_num(f, tot > 0 ? 100.0 * r->failed / tot : 0);
    fputs(",\"p50_ms\":", f);
    json_num(f, r->p50_ms);
    fputs(",\"p99_ms\":", f);
    json_num(f, r->p99_ms);
    fputs(",\"groups\":[", f);
    for (int g = 0; g < tc->ngroups; g++) {
        struct sim_elastic_result er;
        sim_elastic_result(&s->elastic.groups[g], r->end_ms, &er);
        fputs(g ? ",{\"name\":" : "{\"name\":", f);
        json_str(f, tc->group_names[g]);
        fprintf(f, ",\"final_desired\":%d,\"final_in_service\":%d,\"instance_hours\":",
                r->final_desired[g], r->final_in_service[g]);
        json_num(f, er.cost_instance_hours);
        fputs(",\"theta_u_pct\":", f);
        json_num(f, er.theta_u_pct);
        fputs(",\"theta_o_pct\":", f);
        json_num(f, er.theta_o_pct);
        fputs(",\"tau_u_pct\":", f);
        json_num(f, er.tau_u_pct);
        fputs(",\"tau_o_pct\":", f);
        json_num(f, er.tau_o_pct);
        fputs(",\"instability_pct\":", f);
        json_num(f, er.instability_pct);
        fputs(",\"jitter_per_h\":", f);
        json_num(f, er.jitter_per_h);
        fputc('}', f);
    }
    fputs("]},\n\"expectations\":[", f);
    for (int i = 0; i < n; i++) {
        const struct sim_check_result *c = sim_checker_result(s->checker, i);
        fputs(i ? ",\n{\"path\":" : "\n{\"path\":", f);
        json_str(f, c->e->path);
        fputs(",\"what\":", f);
        json_str(f, c->what);
        fprintf(f, ",\"ok\":%s,\"when_s\":%lld,\"observed\":", c->ok ? "true" : "false",
                (long long)(c->when_ms / 1000));
        json_str(f, c->observed);
        fputc('}', f);
    }
    fprintf(f, "],\n\"exit\":%d}\n", exit_code);
}

static int write_report(const struct opts *o, const struct sinks *s, const struct sim_timeline *tl,
                        const struct sim_run_result *r)
{
    struct sim_report_expect ex[256];
    char details[256][256];
    char mode[64];
    struct sim_report_input in = { 0 };
    int n = sim_checker_count(s->checker);

    if (n > 256)
        n = 256;
    for (int i = 0; i < n; i++) {
        const struct sim_check_result *c = sim_checker_result(s->checker, i);
        char when[32];
        fmt_when(c->when_ms, when, sizeof(when));
        snprintf(details[i], sizeof(details[i]), "%s at %s", c->observed, when);
        ex[i].text = c->what;
        ex[i].passed = c->ok;
        ex[i].detail = details[i];
    }
    snprintf(mode, sizeof(mode), "scaler simulate (%s model)", sim_mode_str(r->mode));
    in.tl = tl;
    in.scenario_name = s->sc->name;
    in.scenario_path = o->file;
    in.seed = o->has_seed ? o->seed : s->sc->seed;
    in.has_seed = 1;
    in.mode = mode;
    in.elastic = &s->elastic;
    in.end_ms = r->end_ms;
    in.expects = ex;
    in.nexpects = n;
    in.generated_by = "scaler simulate " SCALER_VERSION;
    if (sim_report_write(o->report, &in) != 0) {
        fprintf(stderr, "scaler: %s: cannot write the report: %s\n", o->report, strerror(errno));
        return -1;
    }
    return 0;
}

static int run_once(const struct opts *o, const struct sim_scenario *sc)
{
    struct sinks s;
    struct sim_run_config rc = { 0 };
    struct sim_run_result r;
    struct sim_timeline *tl = NULL;
    char err[SIM_ERR_MAX];
    int rv, failed, exit_code;

    memset(&s, 0, sizeof(s));
    s.o = o;
    s.sc = sc;
    s.out.f = stdout;
    s.out.json = o->json;
    s.out.table = !o->quiet && !o->json;
    s.checker = sim_checker_create(sc, sc->start_ms);
    s.mode = o->mode == SIM_MODE_AUTO ? sim_run_auto_mode(sc, NULL) : (enum sim_mode)o->mode;
    rc.sc = sc;
    rc.mode = o->mode;
    rc.seed = o->has_seed ? o->seed : sc->seed;
    rc.sample_ms = o->sample_ms;
    rc.tick_us = o->tick_us;
    rc.on_timeline = on_timeline;
    rc.ud = &s;
    rc.checker = s.checker;
    rv = sim_run(&rc, &r, &tl, err);
    if (rv != 0) {
        fprintf(stderr, "scaler: %s: %s\n", o->file, err);
        sim_checker_destroy(s.checker);
        return rv;
    }
    sim_checker_finish(s.checker, r.end_ms);
    failed = sim_checker_failed(s.checker);
    exit_code = failed ? 3 : 0;
    if (o->json) {
        json_tail(stdout, &s, &r, sim_timeline_config(tl), exit_code);
    } else {
        print_summary(stdout, &s, &r, sim_timeline_config(tl));
        print_expectations(stdout, s.checker);
    }
    if (failed) {
        for (int i = 0; i < sim_checker_count(s.checker); i++) {
            const struct sim_check_result *c = sim_checker_result(s.checker, i);
            char when[32];
            if (c->ok)
                continue;
            fmt_when(c->when_ms, when, sizeof(when));
            fprintf(stderr, "scaler: %s: expectation %s failed: %s; %s at %s\n", o->file,
                    c->e->path, c->what, c->observed, when);
        }
    }
    if (o->report && write_report(o, &s, tl, &r) != 0)
        exit_code = 1;
    fflush(stdout);
    sim_timeline_destroy(tl);
    sim_checker_destroy(s.checker);
    return exit_code;
}

/* ---- --sweep ---- */

static char *read_file(const char *path, char *err)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long len;

    if (!f) {
        snprintf(err, SIM_ERR_MAX, "cannot read: %s", strerror(errno));
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (len < 0) {
        fclose(f);
        snprintf(err, SIM_ERR_MAX, "cannot read: %s", strerror(errno));
        return NULL;
    }
    text = cm_xmalloc((size_t)len + 1);
    if (fread(text, 1, (size_t)len, f) != (size_t)len) {
        fclose(f);
        free(text);
        snprintf(err, SIM_ERR_MAX, "cannot read: short read");
        return NULL;
    }
    text[len] = '\0';
    fclose(f);
    return text;
}

static int run_sweep(const struct opts *o)
{
    char param[256], err[SIM_ERR_MAX];
    const char *eq = strchr(o->sweep, '=');
    double from, to, step;
    char *text, *end;
    int nvalues, status = 0;

    if (!eq || (size_t)(eq - o->sweep) >= sizeof(param) || eq == o->sweep)
        return usage_error("--sweep wants PARAM=FROM:TO:STEP, not '%s'", o->sweep);
    memcpy(param, o->sweep, (size_t)(eq - o->sweep));
    param[eq - o->sweep] = '\0';
    from = strtod(eq + 1, &end);
    if (*end != ':')
        return usage_error("--sweep wants PARAM=FROM:TO:STEP, not '%s'", o->sweep);
    to = strtod(end + 1, &end);
    if (*end != ':')
        return usage_error("--sweep wants PARAM=FROM:TO:STEP, not '%s'", o->sweep);
    step = strtod(end + 1, &end);
    if (*end != '\0' || !(step > 0) || to < from)
        return usage_error("--sweep: FROM <= TO and STEP > 0, got '%s'", eq + 1);
    nvalues = (int)floor((to - from) / step + 1e-9) + 1;
    if (nvalues > 1000)
        return usage_error("--sweep: %d values is too many (at most 1000)", nvalues);
    text = read_file(o->file, err);
    if (!text) {
        fprintf(stderr, "scaler: %s: %s\n", o->file, err);
        return 2;
    }
    printf("%-12s %6s %10s %8s %8s %8s %8s %8s %8s %9s %8s\n", param, "group", "inst-h", "thetaU%",
           "thetaO%", "tauU%", "tauO%", "instab%", "failed%", "p99ms", "expect");
    for (int i = 0; i < nvalues; i++) {
        double v = from + i * step;
        char *t = sim_scenario_set_param(text, param, v, err);
        struct sim_scenario *sc;
        struct sinks s;
        struct sim_run_config rc = { 0 };
        struct sim_run_result r;
        struct sim_timeline *tl = NULL;
        int rv;
        if (!t) {
            fprintf(stderr, "scaler: %s: %s\n", o->file, err);
            free(text);
            return 2;
        }
        sc = sim_scenario_parse(t, o->file, err);
        free(t);
        if (!sc) {
            fprintf(stderr, "scaler: %s (%s=%g): %s\n", o->file, param, v, err);
            free(text);
            return 2;
        }
        memset(&s, 0, sizeof(s));
        s.o = o;
        s.sc = sc;
        s.out.f = stdout;
        s.checker = sim_checker_create(sc, sc->start_ms);
        s.mode = o->mode == SIM_MODE_AUTO ? sim_run_auto_mode(sc, NULL) : (enum sim_mode)o->mode;
        rc.sc = sc;
        rc.mode = o->mode;
        rc.seed = o->has_seed ? o->seed : sc->seed;
        rc.sample_ms = o->sample_ms;
        rc.tick_us = o->tick_us;
        rc.on_timeline = on_timeline;
        rc.ud = &s;
        rc.checker = s.checker;
        rv = sim_run(&rc, &r, &tl, err);
        if (rv != 0) {
            fprintf(stderr, "scaler: %s (%s=%g): %s\n", o->file, param, v, err);
            sim_checker_destroy(s.checker);
            sim_scenario_destroy(sc);
            free(text);
            return rv;
        }
        sim_checker_finish(s.checker, r.end_ms);
        for (int g = 0; g < sc->ngroups; g++) {
            struct sim_elastic_result er;
            double tot = r.completed + r.failed;
            sim_elastic_result(&s.elastic.groups[g], r.end_ms, &er);
            printf("%-12g %6s %10.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.3f %9.1f %8s\n", v,
                   sc->groups[g].name, er.cost_instance_hours, er.theta_u_pct, er.theta_o_pct,
                   er.tau_u_pct, er.tau_o_pct, er.instability_pct,
                   tot > 0 ? 100.0 * r.failed / tot : 0.0, r.p99_ms,
                   sim_checker_failed(s.checker) ? "FAIL" : "ok");
        }
        sim_timeline_destroy(tl);
        sim_checker_destroy(s.checker);
        sim_scenario_destroy(sc);
    }
    free(text);
    return status;
}

/* ---- main ---- */

/* Applies one option; returns -1 to go on, else the exit status. */
static int apply_opt(struct opts *o, int c, const char *arg, const char *opt_text)
{
    char *end;
    int64_t v;

    switch (c) {
    case 's':
        errno = 0;
        o->seed = strtoull(arg, &end, 10);
        if (errno || *end || arg[0] == '-' || !arg[0])
            return usage_error("--seed wants a non-negative integer, not '%s'", arg);
        o->has_seed = 1;
        return -1;
    case 'm':
        if (strcmp(arg, "des") == 0)
            o->mode = SIM_MODE_DES;
        else if (strcmp(arg, "fluid") == 0)
            o->mode = SIM_MODE_FLUID;
        else if (strcmp(arg, "auto") == 0)
            o->mode = SIM_MODE_AUTO;
        else
            return usage_error("--mode wants des, fluid or auto, not '%s'", arg);
        return -1;
    case 'j':
        o->json = 1;
        return -1;
    case 'r':
        o->report = arg;
        return -1;
    case 'w':
        o->sweep = arg;
        return -1;
    case 'S':
        if (cm_duration_parse_us(arg, CM_UNIT_S, &v) != 0 || v < 1000000)
            return usage_error("--sample wants a duration of at least 1s, not '%s'", arg);
        o->sample_ms = v / 1000;
        return -1;
    case 't':
        if (cm_duration_parse_us(arg, CM_UNIT_S, &v) != 0 || v < 1000)
            return usage_error("--tick wants a duration of at least 1ms, not '%s'", arg);
        o->tick_us = v;
        return -1;
    case 'q':
        o->quiet = 1;
        return -1;
    case 'h':
        usage(stdout);
        return 0;
    case 'V':
        printf("scaler %s\n", SCALER_VERSION);
        return 0;
    case ':':
        return usage_error("option '%s' needs a value", opt_text);
    default:
        return usage_error("unknown option '%s'", opt_text);
    }
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "seed", required_argument, NULL, 's' },
        { "mode", required_argument, NULL, 'm' },
        { "json", no_argument, NULL, 'j' },
        { "report", required_argument, NULL, 'r' },
        { "sweep", required_argument, NULL, 'w' },
        { "sample", required_argument, NULL, 'S' },
        { "tick", required_argument, NULL, 't' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    struct opts o = { 0 };
    struct sim_scenario *sc;
    char err[SIM_ERR_MAX];
    int c, rv;

    o.mode = SIM_MODE_AUTO;
    opterr = 0;
    /* GNU getopt permutes: options may come before or after the command and the file */
    while ((c = getopt_long(argc, argv, ":hV", longopts, NULL)) != -1) {
        rv = apply_opt(&o, c, optarg, argv[optind - 1]);
        if (rv >= 0)
            return rv;
    }
    if (optind >= argc)
        return usage_error("missing command: scaler simulate SCENARIO.json");
    if (strcmp(argv[optind], "simulate") != 0)
        return usage_error("unknown command '%s' (the command is 'simulate')", argv[optind]);
    if (optind + 1 >= argc)
        return usage_error("missing SCENARIO.json");
    if (optind + 2 < argc)
        return usage_error("one scenario file at a time ('%s' and '%s')", argv[optind + 1],
                           argv[optind + 2]);
    o.file = argv[optind + 1];
    if (o.sweep && (o.json || o.report))
        return usage_error("--sweep prints a table; it does not combine with --json or --report");
    if (o.sweep)
        return run_sweep(&o);
    sc = sim_scenario_load(o.file, err);
    if (!sc) {
        fprintf(stderr, "scaler: %s: %s\n", o.file, err);
        return 2;
    }
    rv = run_once(&o, sc);
    sim_scenario_destroy(sc);
    return rv;
}
