/* tests/unit/sim/test_report.c: scaler/sim/report.c, driven by a timeline built by hand.
 *
 * With SIM_REPORT_OUT=path in the environment, test_report_write_file writes its page
 * there (the browser integration test renders that page). */
#include "scaler/sim/report.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include "common/buf.h"
#include "scaler/sim/elastic.h"
#include "scaler/sim/timeline.h"
#include "scaler/stall.h"

#define START_MS 1767225600000LL /* 2026-01-01T00:00:00Z */
#define MIN_MS   60000LL

static const char *const group_names[] = { "web-asg" };
static const struct sim_alarm_info alarms[] = {
    { "high-cpu", "CPUUtilization", "GreaterThanThreshold", 80, NULL },
    { "low-cpu", "CPUUtilization", "LessThanThreshold", 40, NULL },
};

struct fixture {
    struct sim_timeline *tl;
    struct sim_elastic_sink sink;
};

static void push_activity(struct sim_timeline *tl, int64_t t, const char *desc)
{
    struct sim_event e = { 0 };

    e.kind = SIM_EVENT_ACTIVITY;
    e.t_ms = t;
    e.end_ms = t + 30000;
    e.group = "web-asg";
    e.cause = "At 2026-01-01T00:10:00Z a monitor alarm high-cpu in state ALARM triggered policy "
              "up changing the desired capacity from 1 to 2.";
    e.description = desc;
    e.status = "Successful";
    sim_timeline_push_event(tl, &e);
}

static void push_alarm(struct sim_timeline *tl, int64_t t, const char *name, const char *change)
{
    struct sim_event e = { 0 };

    e.kind = SIM_EVENT_ALARM;
    e.t_ms = t;
    e.end_ms = t;
    e.name = name;
    e.cause = change;
    e.description = "Threshold Crossed: 1 datapoint [91.2 (01/01/26 00:09:00)] was greater than "
                    "the threshold (80.0).";
    e.status = "";
    sim_timeline_push_event(tl, &e);
}

/* Three hours at one-minute samples: the load rises at 0:10, the high-cpu alarm fires,
 * the group grows from 1 to 3 with a boot lag, an instance is killed at 1:30 and
 * replaced, the load falls at 2:00 and the group shrinks. */
static void build(struct fixture *fx, int max_buckets, const char *name)
{
    struct sim_timeline_config cfg = { 0 };
    struct sim_group_sample g;
    enum sim_alarm_state st[2];
    struct sim_sample s;
    int desired = 1, in_service = 1;

    cfg.start_ms = START_MS;
    cfg.end_ms = START_MS + 180 * MIN_MS;
    cfg.interval_ms = MIN_MS;
    cfg.scenario_name = name;
    cfg.ngroups = 1;
    cfg.group_names = group_names;
    cfg.nalarms = 2;
    cfg.alarms = alarms;
    cfg.max_buckets = max_buckets;
    fx->tl = sim_timeline_create(&cfg);
    assert_non_null(fx->tl);
    sim_elastic_sink_init(&fx->sink, 1);
    assert_int_equal(sim_timeline_add_sink(fx->tl, sim_elastic_sink_on_sample, NULL, &fx->sink), 0);
    for (int m = 1; m <= 180; m++) {
        int64_t t = START_MS + m * MIN_MS;
        double rps = m < 10 ? 50 : m < 120 ? 250 : 40;
        int demand = rps >= 200 ? 3 : 1;

        if (m == 12 || m == 24) {
            desired++;
            push_activity(fx->tl, t - 30000, "Launching a new EC2 instance: i-0a1b2c3d4e5f60718");
        }
        if ((m == 15 || m == 27) && in_service < desired)
            in_service++;
        if (m == 90) {
            struct sim_event e = { 0 };
            e.kind = SIM_EVENT_FAULT;
            e.t_ms = t;
            e.end_ms = t;
            e.group = "web-asg";
            e.cause = "kill";
            e.description = "killed 1 instance of web-asg: i-0a1b2c3d4e5f60718";
            e.status = "";
            sim_timeline_push_event(fx->tl, &e);
            in_service--;
            push_activity(fx->tl, t + 20000, "Launching a new EC2 instance: i-0fedcba987654321a");
        }
        if (m == 94)
            in_service++;
        if (m == 135 || m == 150) {
            desired--;
            in_service--;
            push_activity(fx->tl, t - 30000, "Terminating EC2 instance: i-0a1b2c3d4e5f60718");
        }
        if (m == 11)
            push_alarm(fx->tl, t, "high-cpu", "OK -> ALARM");
        if (m == 28)
            push_alarm(fx->tl, t, "high-cpu", "ALARM -> OK");
        if (m == 130)
            push_alarm(fx->tl, t, "low-cpu", "OK -> ALARM");
        memset(&g, 0, sizeof(g));
        g.desired = desired;
        g.in_service = in_service;
        g.pending = desired - in_service > 0 ? desired - in_service : 0;
        g.cpu_pct = fmin(100, rps / (in_service * 100.0) * 100 * 0.9);
        g.demand = demand;
        st[0] = m >= 11 && m < 28 ? SIM_ALARM_ALARM : SIM_ALARM_OK;
        st[1] = m < 5                 ? SIM_ALARM_INSUFFICIENT_DATA
                : m >= 130 && m < 155 ? SIM_ALARM_ALARM
                                      : SIM_ALARM_OK;
        memset(&s, 0, sizeof(s));
        s.t_ms = t;
        s.interval_ms = MIN_MS;
        s.load = rps;
        s.offered_rps = rps;
        s.completed = (uint64_t)(rps * 60);
        s.failed = m >= 90 && m < 94 ? 120 : 0;
        s.p50_ms = 20 + g.cpu_pct / 4;
        s.p99_ms = 60 + g.cpu_pct * 2;
        s.error_pct = 100.0 * (double)s.failed / (double)(s.completed + s.failed);
        s.ngroups = 1;
        s.groups = &g;
        s.nalarms = 2;
        s.alarms = st;
        sim_timeline_push_sample(fx->tl, &s);
    }
}

static const struct sim_report_expect expects[] = {
    { "by 30m: web-asg InService >= 3", 1, NULL },
    { "throughout: failed requests <= 1 %", 0, "at +1h31m: 0.80 % in the minute, 2.1 % <peak>" },
};

static void base_input(struct fixture *fx, struct sim_report_input *in)
{
    memset(in, 0, sizeof(*in));
    in->tl = fx->tl;
    in->scenario_path = "scenarios/seed-tutorial.json";
    in->seed = 42;
    in->has_seed = 1;
    in->mode = "scaler simulate (hand-built timeline)";
    in->elastic = &fx->sink;
    in->end_ms = START_MS + 180 * MIN_MS;
    in->expects = expects;
    in->nexpects = 2;
    in->generated_by = "test_report";
}

static char *render(const struct sim_report_input *in)
{
    struct cm_buf b;

    cm_buf_init(&b, 0);
    assert_int_equal(sim_report_render(in, &b), 0);
    return cm_buf_take(&b, NULL);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;

    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Counts elements named name in the parsed tree. */
static int count_elements(xmlNodePtr n, const char *name)
{
    int c = 0;

    for (; n; n = n->next) {
        if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0)
            c++;
        c += count_elements(n->children, name);
    }
    return c;
}

static void test_report_has_each_plot(void **state)
{
    struct fixture fx;
    struct sim_report_input in;
    char *page;
    htmlDocPtr doc;

    (void)state;
    build(&fx, 0, "seed <tutorial> & co");
    base_input(&fx, &in);
    page = render(&in);
    /* One self-contained page: no scripts, no external references. */
    assert_true(strncmp(page, "<!DOCTYPE html>", 15) == 0);
    assert_null(strstr(page, "<script"));
    assert_null(strstr(page, "src="));
    assert_null(strstr(page, "href="));
    /* The plots, each an inline SVG. */
    assert_non_null(strstr(page, "id=\"capacity-0\""));
    assert_non_null(strstr(page, "id=\"cpu-0\""));
    assert_non_null(strstr(page, "id=\"latency\""));
    assert_int_equal(count(page, "<svg "), 3);
    /* Capacity against load, CPU against thresholds with alarm bands, latency. */
    assert_non_null(strstr(page, ">InService</text>"));
    assert_non_null(strstr(page, ">desired</text>"));
    assert_non_null(strstr(page, ">offered req/s</text>"));
    assert_non_null(strstr(page, ">high-cpu &gt; 80</text>"));
    assert_non_null(strstr(page, ">low-cpu &lt; 40</text>"));
    assert_non_null(strstr(page, "<title>high-cpu in ALARM</title>"));
    assert_non_null(strstr(page, ">p99 ms</text>"));
    /* Activity and fault markers carry AWS's text as tooltips. */
    assert_non_null(strstr(page, ">launch</text>"));
    assert_non_null(strstr(page, ">terminate</text>"));
    assert_non_null(strstr(page, ">fault</text>"));
    assert_non_null(strstr(page, "Launching a new EC2 instance: i-0a1b2c3d4e5f60718</title>"));
    /* Name, seed, expectations with verdicts, elasticity and cost. */
    assert_non_null(strstr(page, "seed &lt;tutorial&gt; &amp; co"));
    assert_non_null(strstr(page, "<th>seed</th><td>42</td>"));
    assert_non_null(strstr(page, "FAIL: 1 of 2 expectations hold"));
    assert_non_null(strstr(page, "2.1 % &lt;peak&gt;"));
    assert_non_null(strstr(page, "under-provisioning accuracy"));
    assert_non_null(strstr(page, "instance-hours billed"));
    assert_null(strstr(page, "downsampled copy (bucket"));
    /* No comparison unless asked. */
    assert_null(strstr(page, "id=\"compare\""));
    /* libxml2's HTML parser reads it, and finds the three <svg> elements. */
    doc = htmlReadMemory(page, (int)strlen(page), "report.html", "utf-8",
                         HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
    assert_non_null(doc);
    assert_int_equal(count_elements(xmlDocGetRootElement(doc), "svg"), 3);
    xmlFreeDoc(doc);
    free(page);
    sim_timeline_destroy(fx.tl);
}

/* The elasticity row matches the sink's own figures (hand-checkable: under-provisioned
 * while the group lags the load). */
static void test_report_elasticity_figures(void **state)
{
    struct fixture fx;
    struct sim_report_input in;
    struct sim_elastic_result r;
    char *page, cell[64];

    (void)state;
    build(&fx, 0, "figures");
    base_input(&fx, &in);
    sim_elastic_result(&fx.sink.groups[0], in.end_ms, &r);
    assert_true(r.theta_u_pct > 0);
    assert_true(r.tau_u_pct > 0);
    page = render(&in);
    snprintf(cell, sizeof(cell), "<td>%.2f</td>", r.theta_u_pct);
    assert_non_null(strstr(page, cell));
    snprintf(cell, sizeof(cell), "<td>%.2f</td>", r.cost_instance_hours);
    assert_non_null(strstr(page, cell));
    free(page);
    /* Without the sink the page says its figures come from the kept buckets. */
    in.elastic = NULL;
    page = render(&in);
    assert_non_null(strstr(page, "downsampled copy (bucket"));
    free(page);
    sim_timeline_destroy(fx.tl);
}

static void test_report_deterministic(void **state)
{
    struct fixture a, b;
    struct sim_report_input ia, ib;
    char *pa, *pb;

    (void)state;
    build(&a, 0, "same");
    build(&b, 0, "same");
    base_input(&a, &ia);
    base_input(&b, &ib);
    pa = render(&ia);
    pb = render(&ib);
    assert_string_equal(pa, pb);
    free(pa);
    free(pb);
    sim_timeline_destroy(a.tl);
    sim_timeline_destroy(b.tl);
}

/* A predicted capacity beside the observed one, and the difference figure, both series
 * read at their sample times (the value of the sample at t holds from t to the next one),
 * as `loadgen scenario` compares them on its terminal and in --json. Observed InService:
 * 1 until 0:15, 2 until 0:27, 3 until 1:30, 2 until 1:34, 3 until 2:15, 2 until 2:30, then
 * 1 (the first sample at 0:01). Predicted: 1 until 0:12, 3 until 2:14, then 1. They differ
 * by more than one instance on [0:12, 0:15) (3 vs 1) and [2:14, 2:15) (1 vs 3): 4 of the
 * 179 minutes both cover = 2.23 %. Both end at 1. */
static void test_report_predicted_vs_observed(void **state)
{
    static const int64_t t[] = { START_MS, START_MS + 12 * MIN_MS, START_MS + 134 * MIN_MS };
    static const double v[] = { 1, 3, 1 };
    struct sim_report_capacity cmp = { "predicted (scaler simulate)", t, v, 3, 0, 1, 10, NULL };
    struct fixture fx;
    struct sim_report_input in;
    struct sim_elastic_diff d;
    char *page;

    (void)state;
    build(&fx, 0, "compare");
    base_input(&fx, &in);
    in.compare = &cmp;
    in.observed_label = "observed (emulator)";
    assert_int_equal(sim_report_compare(&in, &d), 0);
    assert_true(fabs(d.over_tolerance_pct - 400.0 / 179) < 1e-9);
    assert_true(fabs(d.final_a - 1) < 1e-9 && fabs(d.final_b - 1) < 1e-9);
    page = render(&in);
    assert_non_null(strstr(page, ">predicted (scaler simulate)</text>"));
    assert_non_null(strstr(page, ">observed (emulator)</text>"));
    assert_non_null(strstr(page, "id=\"compare-figure\">2.23 %</td>"));
    assert_non_null(strstr(page, "PASS (bar: at most 10 %)"));
    free(page);
    sim_timeline_destroy(fx.tl);
}

/* One figure, one source: a caller that printed the figure hands it in, and the page
 * shows that value, not one of its own (loadgen scenario's terminal, --json and report). */
static void test_report_shows_the_callers_figure(void **state)
{
    static const int64_t t[] = { START_MS, START_MS + 12 * MIN_MS, START_MS + 134 * MIN_MS };
    static const double v[] = { 1, 3, 1 };
    struct sim_elastic_diff given = { 179, 15.4, 20.5, 2, 3, 1 };
    struct sim_report_capacity cmp = { "predicted", t, v, 3, 0, 1, 10, &given };
    struct fixture fx;
    struct sim_report_input in;
    struct sim_elastic_diff d;
    char *page;

    (void)state;
    build(&fx, 0, "given");
    base_input(&fx, &in);
    in.compare = &cmp;
    assert_int_equal(sim_report_compare(&in, &d), 0);
    assert_true(d.over_tolerance_pct == 15.4 && d.max_abs == 2);
    page = render(&in);
    assert_non_null(strstr(page, "id=\"compare-figure\">15.40 %</td>"));
    assert_non_null(strstr(page, "FAIL (bar: at most 10 %)"));
    assert_non_null(strstr(page, "<td>1 / 3</td>")); /* predicted / observed */
    free(page);
    sim_timeline_destroy(fx.tl);
}

/* Host stalls (scaler/stall.h): the summary's host row is sc_stalls_line() as the
 * terminal prints it, and each window is a band on the capacity and CPU charts; without
 * stalls given there is neither. */
static void test_report_shows_the_host_stalls(void **state)
{
    struct fixture fx;
    struct sim_report_input in;
    struct sc_stalls st;
    char line[1024], *page;

    (void)state;
    build(&fx, 0, "stalls");
    base_input(&fx, &in);
    page = render(&in);
    assert_null(strstr(page, "host-stalls"));
    assert_null(strstr(page, "host stall"));
    free(page);
    sc_stalls_init(&st, 600);
    st.measured[SC_STALL_EMULATOR] = 1;
    sc_stalls_add(&st, SC_STALL_EMULATOR, 30 * MIN_MS, 140); /* [28:36, 30:00] */
    sc_stalls_add(&st, SC_STALL_EMULATOR, 90 * MIN_MS, 20);  /* [89:48, 90:00] */
    sc_stalls_line(&st, line, sizeof(line));
    in.stalls = &st;
    page = render(&in);
    assert_non_null(strstr(page, "<td id=\"host-stalls\">host: 2 stalls"));
    assert_non_null(strstr(page, "in emulated minutes 00:28-00:30, 01:29-01:30"));
    assert_non_null(strstr(line, "in emulated minutes 00:28-00:30, 01:29-01:30"));
    /* two windows on each of the capacity and CPU charts, one legend entry each */
    assert_true(count(page, "host stall") >= 2);
    free(page);
    sim_timeline_destroy(fx.tl);
}

/* A small kept copy (downsampled 180 -> at most 16 buckets) still renders every plot,
 * and the page says points are bucket means. */
static void test_report_downsampled(void **state)
{
    struct fixture fx;
    struct sim_report_input in;
    char *page;

    (void)state;
    build(&fx, 16, "downsampled");
    assert_true(sim_timeline_bucket_count(fx.tl) <= 16);
    base_input(&fx, &in);
    page = render(&in);
    assert_int_equal(count(page, "<svg "), 3);
    assert_non_null(strstr(page, "mean of the samples its bucket"));
    free(page);
    sim_timeline_destroy(fx.tl);
}

/* Issue 12 part 10: the plots' time axis writes its ticks as every output writes elapsed
 * times (sim_elapsed_format: "01:00:00", "1d05:33:00"), not the plot's own "1h". */
static void test_report_time_axis_in_the_elapsed_format(void **state)
{
    struct fixture fx;
    struct sim_report_input in;
    char *page;

    (void)state;
    build(&fx, 0, "time axis");
    base_input(&fx, &in);
    page = render(&in);
    assert_true(count(page, "text-anchor=\"middle\">01:00:00</text>") >= 1);
    assert_true(count(page, "text-anchor=\"middle\">02:00:00</text>") >= 1);
    assert_int_equal(count(page, "text-anchor=\"middle\">1h</text>"), 0);
    assert_int_equal(count(page, "text-anchor=\"middle\">2h</text>"), 0);
    free(page);
    sim_timeline_destroy(fx.tl);
}

/* Two groups, no alarms, no events, no expectations; then no group at all. */
static void test_report_edges(void **state)
{
    static const char *const two[] = { "a & b", "c" };
    struct sim_timeline_config cfg = { 0 };
    struct sim_group_sample g[2];
    enum sim_alarm_state no_alarm[1] = { SIM_ALARM_OK }; /* never read: nalarms is 0 */
    struct sim_sample s;
    struct sim_report_input in;
    struct sim_timeline *tl;
    char *page;

    (void)state;
    cfg.start_ms = START_MS;
    cfg.end_ms = START_MS + 10 * MIN_MS;
    cfg.interval_ms = MIN_MS;
    cfg.ngroups = 2;
    cfg.group_names = two;
    tl = sim_timeline_create(&cfg);
    assert_non_null(tl);
    for (int m = 1; m <= 10; m++) {
        memset(g, 0, sizeof(g));
        memset(&s, 0, sizeof(s));
        g[0].desired = g[0].in_service = 2;
        g[0].cpu_pct = NAN; /* no instance ran: a gap */
        g[1].desired = g[1].in_service = 1;
        g[1].cpu_pct = 30;
        s.t_ms = START_MS + m * MIN_MS;
        s.interval_ms = MIN_MS;
        s.ngroups = 2;
        s.groups = g;
        s.alarms = no_alarm;
        sim_timeline_push_sample(tl, &s);
    }
    memset(&in, 0, sizeof(in));
    in.tl = tl;
    page = render(&in);
    assert_int_equal(count(page, "<svg "), 5);
    assert_non_null(strstr(page, "id=\"capacity-1\""));
    assert_non_null(strstr(page, "id=\"cpu-1\""));
    assert_non_null(strstr(page, "Capacity vs load: a &amp; b"));
    assert_non_null(strstr(page, "The scenario states no expectations."));
    assert_non_null(strstr(page, "scalelab report: (unnamed)"));
    free(page);
    sim_timeline_destroy(tl);

    cfg.ngroups = 0;
    cfg.group_names = NULL;
    tl = sim_timeline_create(&cfg);
    assert_non_null(tl);
    in.tl = tl;
    page = render(&in); /* nothing pushed: an empty run still renders */
    assert_int_equal(count(page, "<svg "), 1);
    free(page);
    sim_timeline_destroy(tl);
}

static void test_report_write_file(void **state)
{
    struct fixture fx;
    struct sim_report_input in;
    const char *env = getenv("SIM_REPORT_OUT");
    char tmpl[] = "/tmp/test_report_XXXXXX";
    char path[256];
    FILE *f;
    char head[16] = { 0 };
    int fd = -1;

    (void)state;
    build(&fx, 0, "seed-tutorial (hand-built)");
    base_input(&fx, &in);
    if (env && *env) {
        snprintf(path, sizeof(path), "%s", env);
    } else {
        fd = mkstemp(tmpl);
        assert_true(fd >= 0);
        close(fd);
        snprintf(path, sizeof(path), "%s", tmpl);
    }
    assert_int_equal(sim_report_write(path, &in), 0);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fread(head, 1, 15, f), 15);
    fclose(f);
    assert_string_equal(head, "<!DOCTYPE html>");
    if (!env || !*env)
        unlink(path);
    /* A directory that does not exist fails with errno, leaving nothing behind. */
    assert_int_equal(sim_report_write("/nonexistent-dir/x/report.html", &in), -1);
    in.tl = NULL;
    assert_int_equal(sim_report_write("/tmp/never-written.html", &in), -1);
    sim_timeline_destroy(fx.tl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_has_each_plot),
        cmocka_unit_test(test_report_elasticity_figures),
        cmocka_unit_test(test_report_deterministic),
        cmocka_unit_test(test_report_predicted_vs_observed),
        cmocka_unit_test(test_report_shows_the_callers_figure),
        cmocka_unit_test(test_report_shows_the_host_stalls),
        cmocka_unit_test(test_report_downsampled),
        cmocka_unit_test(test_report_time_axis_in_the_elapsed_format),
        cmocka_unit_test(test_report_edges),
        cmocka_unit_test(test_report_write_file),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
