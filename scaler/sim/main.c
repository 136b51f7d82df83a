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
#include "scaler/app.h"
#include "scaler/sim/elastic.h"
#include "scaler/sim/expect.h"
#include "scaler/sim/output.h"
#include "scaler/sim/report.h"
#include "scaler/sim/run.h"
#include "scaler/sim/scenario.h"
#include "scaler/sim/sweep.h"
#include "scaler/sim/timeline.h"

#define SCALER_VERSION "0.1.0"

struct opts {
    const char *file;
    uint64_t seed;
    int has_seed;
    int mode; /* SIM_MODE_AUTO, SIM_MODE_DES, SIM_MODE_FLUID */
    int json;
    int quiet;
    int lenient;
    int explain;
    const char *report;
    const char *junit;
    const char *sweep;
    int csv;         /* --csv: the sweep as CSV */
    const char *svg; /* --svg FILE: the sweep's plot */
    int fail_exit;   /* --fail-exit: a sweep exits 3 when a row's expectations failed */
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
            "                      des up to 2M estimated requests, fluid beyond; des up to\n"
            "                      50M when a p99 is judged, outside fluid's validity)\n"
            "  --json              the full timeline as JSON on stdout (byte-identical for the\n"
            "                      same scenario and seed)\n"
            "  --report FILE.html  a self-contained HTML report with plots\n"
            "  --junit FILE.xml    a JUnit report: one testcase per expectation, a failed one\n"
            "                      with the line stderr prints\n"
            "  --sweep P=FROM:TO:STEP\n"
            "                      run once per value of the number at JSON path P (e.g.\n"
            "                      alarms.high-cpu.threshold=60:90:10; a key left at its\n"
            "                      default is added) and print a row of figures per value and\n"
            "                      group, with a legend; --json or --csv print them as data\n"
            "  --svg FILE.svg      with --sweep: plot the figures over the parameter\n"
            "  --fail-exit         with --sweep: exit 3 when a row's expectations failed\n"
            "  --sample DUR        sample interval of the timeline (default: the scenario's, 60s)\n"
            "  --tick DUR          fluid-mode step (default 1s)\n"
            "  --explain           every policy decision (metric, arithmetic, computed capacity,\n"
            "                      why it did not change) and lifecycle-hook event in the\n"
            "                      timeline, the --json and the --report (docs/decisions.md)\n"
            "  --quiet             no timeline table, only the summary\n"
            "  --lenient           an alarm or policy dimension naming no group or load\n"
            "                      balancer of the scenario is a warning, not an error\n"
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

/* ---- sinks ---- */

struct sinks {
    struct sim_out out;
    struct sim_elastic_sink elastic;
    struct sim_checker *checker;
    const struct opts *o;
    const struct sim_scenario *sc;
    enum sim_mode mode;
    const struct sim_run_result *res; /* the run's, for its warnings */
    int warned;
};

/* The run's warnings, once: when the timeline starts (before the first sample, as a
 * long run's user wants them) or after a run that failed before it. */
static void print_warnings(struct sinks *s)
{
    if (s->warned)
        return;
    s->warned = 1;
    for (int i = 0; i < s->res->nwarnings; i++)
        fprintf(stderr, "scaler: warning: %s\n", s->res->warnings[i]);
}

static void on_timeline(struct sim_timeline *tl, void *ud)
{
    struct sinks *s = ud;
    const struct sim_timeline_config *tc = sim_timeline_config(tl);

    print_warnings(s);

    sim_out_bind(&s->out, tc);
    sim_elastic_sink_init(&s->elastic, tc->ngroups);
    if (s->out.json)
        sim_out_json_head(&s->out, s->sc->name, s->o->has_seed ? s->o->seed : s->sc->seed,
                          sim_mode_str(s->mode));
    sim_timeline_add_sink(tl, sim_out_on_sample, sim_out_on_event, &s->out);
    sim_timeline_add_sink(tl, sim_elastic_sink_on_sample, NULL, &s->elastic);
    if (s->checker)
        sim_timeline_add_sink(tl, sim_checker_on_sample, NULL, s->checker);
}

/* ---- one run ---- */

static int write_report(const struct opts *o, const struct sinks *s, const struct sim_timeline *tl,
                        const struct sim_run_result *r)
{
    struct sim_report_expect ex[256];
    char details[256][256];
    char mode[64];
    struct sim_report_input in = { 0 };
    int n = sim_out_report_expects(s->checker, ex, details, 256);

    snprintf(mode, sizeof(mode), "scaler simulate (%s model)", sim_mode_str(r->mode));
    in.tl = tl;
    in.scenario_name = s->sc->name;
    in.scenario_path = o->file;
    in.seed = o->has_seed ? o->seed : s->sc->seed;
    in.has_seed = 1;
    in.mode = mode;
    in.elastic = &s->elastic;
    in.end_ms = r->end_ms;
    in.result = r;
    in.expects = ex;
    in.nexpects = n;
    in.generated_by = "scaler simulate " SCALER_VERSION;
    if (sim_report_write(o->report, &in) != 0) {
        fprintf(stderr, "scaler: %s: cannot write the report: %s\n", o->report, strerror(errno));
        return -1;
    }
    return 0;
}

/* The profile keys only the emulator honours: said once, never silently dropped. */
static void warn_emulator_only(const struct sim_scenario *sc)
{
    for (int i = 0; i < sc->nlcs; i++) {
        char keys[128];

        if (sc_app_sim_ignored(&sc->lcs[i].app, keys, sizeof(keys)) > 0)
            fprintf(stderr,
                    "scaler: warning: %s.app: %s: only the emulator's instances honour them; "
                    "the simulator does not model them\n",
                    sc->lcs[i].path, keys);
    }
}

/* Monotonic seconds, for the JUnit report's time. */
static double mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run_once(const struct opts *o, const struct sim_scenario *sc)
{
    struct sinks s;
    struct sim_run_config rc = { 0 };
    struct sim_run_result r;
    struct sim_timeline *tl = NULL;
    char err[SIM_ERR_MAX];
    int rv, failed, exit_code;
    double t0_s;

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
    rc.explain = o->explain;
    s.res = &r;
    t0_s = mono_s();
    rv = sim_run(&rc, &r, &tl, err);
    print_warnings(&s);
    if (rv != 0) {
        fprintf(stderr, "scaler: %s: %s\n", o->file, err);
        sim_run_result_cleanup(&r);
        sim_checker_destroy(s.checker);
        return rv;
    }
    sim_checker_finish(s.checker, r.end_ms);
    failed = sim_checker_failed(s.checker);
    exit_code = failed ? 3 : 0;
    if (o->json) {
        sim_out_json_tail(stdout, &s.elastic, s.checker, &r, sim_timeline_config(tl), NULL,
                          exit_code);
    } else {
        char how[96];
        snprintf(how, sizeof(how), "%s mode, seed %llu", sim_mode_str(r.mode),
                 (unsigned long long)(o->has_seed ? o->seed : sc->seed));
        sim_out_print_summary(stdout, sc->name, how, "simulated", &s.elastic, &r,
                              sim_timeline_config(tl));
        sim_out_print_expectations(stdout, s.checker);
    }
    if (failed)
        sim_out_print_failures(stderr, "scaler", o->file, s.checker);
    if (o->report && write_report(o, &s, tl, &r) != 0)
        exit_code = 1;
    if (o->junit && sim_out_write_junit(o->junit, sc->name, "scaler", o->file, s.checker,
                                        mono_s() - t0_s) != 0) {
        fprintf(stderr, "scaler: %s: cannot write the JUnit report: %s\n", o->junit,
                strerror(errno));
        exit_code = 1;
    }
    fflush(stdout);
    sim_run_result_cleanup(&r);
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
    int nvalues, status = 0, added = 0, any_failed = 0;
    struct sim_sweep out = { 0 };
    char **names = NULL;
    int nnames = 0;

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
    for (int i = 0; i < nvalues; i++) {
        double v = from + i * step;
        char *t = sim_scenario_set_param_ex(text, param, v, &added, err);
        struct sim_scenario *sc;
        struct sinks s;
        struct sim_run_config rc = { 0 };
        struct sim_run_result r;
        struct sim_timeline *tl = NULL;
        int rv;
        if (!t) {
            fprintf(stderr, "scaler: %s: %s\n", o->file, err);
            status = 2;
            goto out;
        }
        sc = sim_scenario_parse_flags(t, o->file, o->lenient ? SIM_SCENARIO_LENIENT : 0, err);
        free(t);
        if (!sc) {
            char where[512];
            snprintf(where, sizeof(where), "%s (%s=%g)", o->file, param, v);
            sim_scenario_print_lines(stderr, "scaler", where, err, 0);
            status = 2;
            goto out;
        }
        if (i == 0)
            sim_scenario_print_lines(stderr, "scaler", o->file, sc->warnings, 1);
        if (i == 0) {
            warn_emulator_only(sc);
            out.param = param;
            out.scenario = cm_xstrdup(sc->name);
            out.defaulted = added;
            out.rows = cm_xcalloc((size_t)nvalues * (size_t)sc->ngroups + 1, sizeof(*out.rows));
            names = cm_xcalloc((size_t)sc->ngroups + 1, sizeof(*names));
            for (int g = 0; g < sc->ngroups; g++)
                names[g] = cm_xstrdup(sc->groups[g].name);
            nnames = sc->ngroups;
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
        s.res = &r;
        rv = sim_run(&rc, &r, &tl, err);
        print_warnings(&s);
        if (rv != 0) {
            fprintf(stderr, "scaler: %s (%s=%g): %s\n", o->file, param, v, err);
            sim_run_result_cleanup(&r);
            sim_checker_destroy(s.checker);
            sim_scenario_destroy(sc);
            status = rv;
            goto out;
        }
        sim_checker_finish(s.checker, r.end_ms);
        any_failed |= sim_checker_failed(s.checker) != 0;
        for (int g = 0; g < sc->ngroups && g < nnames; g++) {
            struct sim_elastic_result er;
            struct sim_sweep_row *row = &out.rows[out.nrows++];
            double tot = r.completed + r.failed;
            sim_elastic_result(&s.elastic.groups[g], r.end_ms, &er);
            row->value = v;
            row->group = names[g];
            row->instance_hours = er.cost_instance_hours;
            row->theta_u_pct = er.theta_u_pct;
            row->theta_o_pct = er.theta_o_pct;
            row->tau_u_pct = er.tau_u_pct;
            row->tau_o_pct = er.tau_o_pct;
            row->instability_pct = er.instability_pct;
            row->failed_pct = tot > 0 ? 100.0 * r.failed / tot : 0.0;
            row->p99_ms = r.p99_ms;
            row->expect_failed = sim_checker_failed(s.checker) != 0;
        }
        sim_run_result_cleanup(&r);
        sim_timeline_destroy(tl);
        sim_checker_destroy(s.checker);
        sim_scenario_destroy(sc);
    }
    if (o->json)
        sim_sweep_print_json(stdout, &out);
    else if (o->csv)
        sim_sweep_print_csv(stdout, &out);
    else
        sim_sweep_print_table(stdout, &out);
    if (o->svg && sim_sweep_write_svg(o->svg, &out) != 0) {
        fprintf(stderr, "scaler: %s: cannot write the plot: %s\n", o->svg, strerror(errno));
        status = 1;
    }
    if (status == 0 && o->fail_exit && any_failed) {
        fprintf(stderr, "scaler: %s: --fail-exit: a row's expectations failed\n", o->file);
        status = 3;
    }
out:
    fflush(stdout);
    for (int g = 0; g < nnames; g++)
        free(names[g]);
    free(names);
    free(out.rows);
    free((char *)out.scenario);
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
    case 'J':
        o->junit = arg;
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
    case 'x':
        o->explain = 1;
        return -1;
    case 'L':
        o->lenient = 1;
        return -1;
    case 'C':
        o->csv = 1;
        return -1;
    case 'G':
        o->svg = arg;
        return -1;
    case 'F':
        o->fail_exit = 1;
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
        { "junit", required_argument, NULL, 'J' },
        { "sweep", required_argument, NULL, 'w' },
        { "sample", required_argument, NULL, 'S' },
        { "tick", required_argument, NULL, 't' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { "lenient", no_argument, NULL, 'L' },
        { "csv", no_argument, NULL, 'C' },
        { "svg", required_argument, NULL, 'G' },
        { "fail-exit", no_argument, NULL, 'F' },
        { "version", no_argument, NULL, 'V' },
        { "explain", no_argument, NULL, 'x' },
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
    if (o.sweep && (o.report || o.junit))
        return usage_error("--sweep prints a table; it does not combine with --report or --junit");
    if (!o.sweep && (o.csv || o.svg || o.fail_exit))
        return usage_error("--csv, --svg and --fail-exit are for --sweep");
    if (o.csv && o.json)
        return usage_error("--csv and --json exclude each other");
    if (o.sweep)
        return run_sweep(&o);
    sc = sim_scenario_load_flags(o.file, o.lenient ? SIM_SCENARIO_LENIENT : 0, err);
    if (!sc) {
        sim_scenario_print_lines(stderr, "scaler", o.file, err, 0);
        return 2;
    }
    sim_scenario_print_lines(stderr, "scaler", o.file, sc->warnings, 1);
    warn_emulator_only(sc);
    rv = run_once(&o, sc);
    sim_scenario_destroy(sc);
    return rv;
}
