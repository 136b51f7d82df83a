/* scaler/sim/report.c: see report.h. */
#include "scaler/sim/report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/svg.h"
#include "common/xalloc.h"
#include "scaler/civil.h"

#define MAX_EVENT_ROWS 1000

#define COLOR_INSERVICE "#0072b2"
#define COLOR_DESIRED   "#e69f00"
#define COLOR_PENDING   "#56b4e9"
#define COLOR_STALL     "#7f7f7f"
#define COLOR_DEMAND    "#555555"
#define COLOR_COMPARE   "#cc79a7"
#define COLOR_LOAD      "#009e73"
#define COLOR_CPU       "#0072b2"
#define COLOR_P50       "#0072b2"
#define COLOR_P99       "#d55e00"
#define COLOR_ERRORS    "#cc0000"
#define COLOR_LAUNCH    "#009e73"
#define COLOR_TERMINATE "#8856a7"
#define COLOR_FAILED    "#cc0000"
#define COLOR_FAULT     "#000000"
#define COLOR_INSUFF    "#999999"
#define COLOR_DECISION  "#999999"

/* Alarm colours: distinct from the series drawn over them. */
static const char *const alarm_colors[] = { "#d55e00", "#cc79a7", "#e69f00", "#56b4e9", "#009e73" };

static const char *alarm_color(int a)
{
    return alarm_colors[a % (int)(sizeof(alarm_colors) / sizeof(alarm_colors[0]))];
}

/* The page under construction: the input, resolved once. */
struct page {
    const struct sim_report_input *in;
    const struct sim_timeline_config *cfg;
    int nb;
    int64_t start_ms, end_ms;
    struct cm_buf *o;
    int rc;
};

/* The scenario's name: the input's, else the timeline's; NULL when neither has one. */
static const char *scenario_name(const struct page *p)
{
    const char *n = p->in->scenario_name ? p->in->scenario_name : p->cfg->scenario_name;

    return n && *n ? n : NULL;
}

static double rel_s(const struct page *p, int64_t t_ms)
{
    return (double)(t_ms - p->start_ms) / 1000.0;
}

static void puts_(struct page *p, const char *s)
{
    p->rc |= cm_buf_puts(p->o, s);
}

static void esc(struct page *p, const char *s)
{
    p->rc |= cm_svg_escape(p->o, s);
}

static void printf_(struct page *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(struct page *p, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0) {
        p->rc = -1;
        return;
    }
    if ((size_t)n < sizeof(small)) {
        p->rc |= cm_buf_append(p->o, small, (size_t)n);
        return;
    }
    {
        char *big = cm_xmalloc((size_t)n + 1);
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        p->rc |= cm_buf_append(p->o, big, (size_t)n);
        free(big);
    }
}

/* A time before 1970 prints as "?". */
static void iso_time(int64_t t_ms, char *out, size_t len)
{
    if (t_ms < 0)
        snprintf(out, len, "?");
    else
        sc_civil_format_iso(t_ms, out, len);
}

/* The one elapsed-time format of every output (sim_elapsed_format: 1d05:33:00). */
static void rel_time(const struct page *p, int64_t t_ms, char *out, size_t len)
{
    sim_elapsed_format(t_ms > p->start_ms ? t_ms - p->start_ms : 0, out, len);
}

static const char *comparison_symbol(const char *op)
{
    if (!op)
        return "?";
    if (strcmp(op, "GreaterThanThreshold") == 0)
        return ">";
    if (strcmp(op, "GreaterThanOrEqualToThreshold") == 0)
        return ">=";
    if (strcmp(op, "LessThanThreshold") == 0)
        return "<";
    if (strcmp(op, "LessThanOrEqualToThreshold") == 0)
        return "<=";
    return op;
}

/* --- series from the kept buckets ------------------------------------------------ */

enum figure {
    FIG_DESIRED,
    FIG_IN_SERVICE,
    FIG_PENDING,
    FIG_DEMAND,
    FIG_CPU,
    FIG_OFFERED_RPS,
    FIG_P50,
    FIG_P99,
    FIG_ERRORS,
};

static double bucket_value(const struct sim_bucket *b, int g, enum figure f)
{
    const struct sim_stat *st = NULL;

    switch (f) {
    case FIG_DESIRED:
        st = &b->groups[g].desired;
        break;
    case FIG_IN_SERVICE:
        st = &b->groups[g].in_service;
        break;
    case FIG_PENDING:
        st = &b->groups[g].pending;
        break;
    case FIG_DEMAND:
        st = &b->groups[g].demand;
        break;
    case FIG_CPU:
        st = &b->groups[g].cpu_pct;
        break;
    case FIG_OFFERED_RPS:
        st = &b->offered_rps;
        break;
    case FIG_P50:
    case FIG_P99:
        if (b->completed == 0)
            return NAN; /* no latency without completions: a gap, not a zero */
        st = f == FIG_P50 ? &b->p50_ms : &b->p99_ms;
        break;
    case FIG_ERRORS:
        st = &b->error_pct;
        break;
    }
    if (!st || st->n == 0)
        return NAN;
    return st->mean;
}

/* Fills x/y (capacity nb + 1) with one point per bucket; a step series also gets a
 * last point at the last bucket's end, so its final value is drawn. Returns the count. */
static size_t bucket_series(const struct page *p, int g, enum figure f, int step, double *x,
                            double *y)
{
    size_t n = 0;

    for (int i = 0; i < p->nb; i++) {
        const struct sim_bucket *b = sim_timeline_bucket(p->in->tl, i);
        /* Step values hold over their bucket; sampled values sit at its end. */
        x[n] = rel_s(p, step ? b->t0_ms : b->t1_ms);
        y[n] = bucket_value(b, g, f);
        n++;
    }
    if (step && p->nb > 0) {
        const struct sim_bucket *b = sim_timeline_bucket(p->in->tl, p->nb - 1);
        x[n] = rel_s(p, b->t1_ms);
        y[n] = y[n - 1];
        n++;
    }
    return n;
}

static void add_bucket_series(const struct page *p, struct cm_svg *c, int g, enum figure f,
                              const char *name, const char *color, enum cm_svg_yaxis axis,
                              int style)
{
    size_t cap = (size_t)p->nb + 1;
    double *x = cm_xmalloc(cap * sizeof(double)), *y = cm_xmalloc(cap * sizeof(double));
    size_t n = bucket_series(p, g, f, style & CM_SVG_STEP, x, y);

    cm_svg_series(c, name, color, axis, style, x, y, n);
    free(x);
    free(y);
}

static int event_in_group(const struct page *p, const struct sim_event *e, int g)
{
    return !e->group || g < 0 || strcmp(e->group, p->cfg->group_names[g]) == 0;
}

static void event_tooltip(const struct page *p, const struct sim_event *e, struct cm_buf *tip)
{
    char rel[64], iso[80];

    rel_time(p, e->t_ms, rel, sizeof(rel));
    iso_time(e->t_ms, iso, sizeof(iso));
    cm_buf_reset(tip);
    cm_buf_printf(tip, "+%s (%s)", rel, iso);
    if (e->name)
        cm_buf_printf(tip, " %s", e->name);
    if (e->group)
        cm_buf_printf(tip, " [%s]", e->group);
    if (*e->status)
        cm_buf_printf(tip, " %s", e->status);
    if (*e->cause)
        cm_buf_printf(tip, "\n%s", e->cause);
    if (*e->description)
        cm_buf_printf(tip, "\n%s", e->description);
}

/* Activity and fault markers for group g along the top rail. */
static void add_event_markers(const struct page *p, struct cm_svg *c, int g)
{
    int ne = sim_timeline_event_count(p->in->tl);
    struct cm_buf tip;

    cm_buf_init(&tip, 0);
    for (int i = 0; i < ne; i++) {
        const struct sim_event *e = sim_timeline_event(p->in->tl, i);
        const char *legend, *color;
        enum cm_svg_shape shape;

        if (e->kind == SIM_EVENT_ALARM || e->kind == SIM_EVENT_HOOK ||
            e->kind == SIM_EVENT_NOTIFICATION || e->kind == SIM_EVENT_FORECAST ||
            e->kind == SIM_EVENT_LAUNCH || !event_in_group(p, e, g))
            continue;
        if (e->kind == SIM_EVENT_DECISION) {
            /* --explain: mark where a policy ran and capacity stayed (the activity
             * markers show where it changed) */
            if (strcmp(e->status, "changed") == 0)
                continue;
            legend = "policy ran, capacity unchanged";
            color = COLOR_DECISION;
            shape = CM_SVG_CIRCLE;
        } else if (e->kind == SIM_EVENT_FAULT) {
            legend = "fault";
            color = COLOR_FAULT;
            shape = CM_SVG_DIAMOND;
        } else if (strcmp(e->status, "Failed") == 0 || strcmp(e->status, "Cancelled") == 0) {
            legend = "failed activity";
            color = COLOR_FAILED;
            shape = CM_SVG_CIRCLE;
        } else if (strncmp(e->description, "Terminating", 11) == 0) {
            legend = "terminate";
            color = COLOR_TERMINATE;
            shape = CM_SVG_TRIANGLE_DOWN;
        } else {
            legend = "launch";
            color = COLOR_LAUNCH;
            shape = CM_SVG_TRIANGLE_UP;
        }
        event_tooltip(p, e, &tip);
        cm_svg_marker(c, legend, color, shape, CM_SVG_Y1, rel_s(p, e->t_ms), NAN,
                      tip.data ? tip.data : "");
    }
    cm_buf_cleanup(&tip);
}

/* The time axis' ticks in the one elapsed-time format (sim_elapsed_format), not the
 * plot's own "1d6h". */
static void elapsed_tick(double v, char *out, size_t len)
{
    sim_elapsed_format(v > 0 ? llround(v * 1000.0) : 0, out, len);
}

static void time_axis(const struct page *p, struct cm_svg_opts *o)
{
    o->x.scale = CM_SVG_TIME;
    o->x.tick_label = elapsed_tick;
    o->x.label = "time since start";
    o->x.fixed = 1;
    o->x.min = 0;
    o->x.max = rel_s(p, p->end_ms);
    o->reserve_y2 = 1; /* the stacked charts share their time pixels */
}

static void emit_chart(struct page *p, struct cm_svg *c)
{
    p->rc |= cm_svg_render(c, p->o);
    cm_svg_destroy(c);
}

/* The highest capacity figure any plotted series of group g reaches. */
static double capacity_max(const struct page *p, int g)
{
    double m = 1;

    for (int i = 0; i < p->nb; i++) {
        const struct sim_group_bucket *gb = &sim_timeline_bucket(p->in->tl, i)->groups[g];
        const struct sim_stat *st[] = { &gb->desired, &gb->in_service, &gb->pending, &gb->demand };
        for (size_t k = 0; k < sizeof(st) / sizeof(st[0]); k++)
            if (st[k]->n > 0 && st[k]->max > m)
                m = st[k]->max;
    }
    if (p->in->compare && p->in->compare->group == g)
        for (int i = 0; i < p->in->compare->n; i++)
            if (isfinite(p->in->compare->capacity[i]) && p->in->compare->capacity[i] > m)
                m = p->in->compare->capacity[i];
    return ceil(m);
}

/* The host stalls' windows (scaler/stall.h) as bands: the load or the datapoints of these
 * minutes may be missing for the host's sake, not the scaling's. */
static void add_stall_bands(const struct page *p, struct cm_svg *c)
{
    struct sc_stall_window w[SC_STALL_MAX_INTERVALS];
    int nw;

    if (!p->in->stalls)
        return;
    nw = sc_stalls_windows(p->in->stalls, w, SC_STALL_MAX_INTERVALS);
    for (int i = 0; i < nw && i < SC_STALL_MAX_INTERVALS; i++)
        cm_svg_xband(c, "host stall", COLOR_STALL, 0.22, (double)w[i].from_ms / 1000.0,
                     (double)w[i].to_ms / 1000.0);
}

static void chart_capacity(struct page *p, int g)
{
    const struct sim_report_input *in = p->in;
    struct cm_svg_opts o = { 0 };
    char id[64], title[256];
    struct cm_svg *c;

    snprintf(id, sizeof(id), "capacity-%d", g);
    snprintf(title, sizeof(title), "Capacity vs load: %s", p->cfg->group_names[g]);
    o.id = id;
    o.title = title;
    time_axis(p, &o);
    o.y.label = "instances";
    o.y.fixed = 1; /* integer counts, with one instance of headroom over the highest */
    o.y.min = 0;
    o.y.max = capacity_max(p, g) + 1;
    o.y2.label = "offered req/s";
    o.y2.include_zero = 1;
    o.height_px = 340;
    c = cm_svg_create(&o);
    add_stall_bands(p, c);
    add_bucket_series(p, c, g, FIG_OFFERED_RPS, "offered req/s", COLOR_LOAD, CM_SVG_Y2,
                      CM_SVG_LINE);
    add_bucket_series(p, c, g, FIG_DEMAND, "demand (instances)", COLOR_DEMAND, CM_SVG_Y1,
                      CM_SVG_STEP | CM_SVG_DASHED);
    add_bucket_series(p, c, g, FIG_PENDING, "pending", COLOR_PENDING, CM_SVG_Y1,
                      CM_SVG_STEP | CM_SVG_DASHED);
    add_bucket_series(p, c, g, FIG_DESIRED, "desired", COLOR_DESIRED, CM_SVG_Y1, CM_SVG_STEP);
    add_bucket_series(p, c, g, FIG_IN_SERVICE,
                      in->observed_label ? in->observed_label : "InService", COLOR_INSERVICE,
                      CM_SVG_Y1, CM_SVG_STEP | CM_SVG_THICK);
    if (in->compare && in->compare->group == g && in->compare->n > 0) {
        const struct sim_report_capacity *cmp = in->compare;
        double *x = cm_xmalloc(((size_t)cmp->n + 1) * sizeof(double));
        double *y = cm_xmalloc(((size_t)cmp->n + 1) * sizeof(double));
        size_t n = 0;

        /* a sample steps over the interval before it, as bucket_series() steps ours */
        for (int i = 0; i < cmp->n && cmp->t_ms[i] <= p->end_ms; i++) {
            int64_t t0 = cmp->t_ms[i] - p->cfg->interval_ms;
            x[n] = rel_s(p, t0 > p->start_ms ? t0 : p->start_ms);
            y[n] = cmp->capacity[i];
            n++;
        }
        if (n > 0) {
            x[n] = rel_s(p, p->end_ms);
            y[n] = y[n - 1];
            n++;
        }
        cm_svg_series(c, cmp->label ? cmp->label : "predicted", COLOR_COMPARE, CM_SVG_Y1,
                      CM_SVG_STEP | CM_SVG_THICK | CM_SVG_DASHED, x, y, n);
        free(x);
        free(y);
    }
    add_event_markers(p, c, g);
    emit_chart(p, c);
}

/* ALARM (and INSUFFICIENT_DATA) spans of alarm a as bands. A bucket that merged several
 * samples shades in proportion to the share of them in the state (quartiles, so a short
 * alarm stays visible and a long run of buckets at one level is one band). */
static void add_alarm_bands(const struct page *p, struct cm_svg *c, int a, int insufficient,
                            const char *name, const char *color, double opacity)
{
    int run_start = -1, run_level = 0;

    for (int i = 0; i <= p->nb; i++) {
        int level = 0;
        if (i < p->nb) {
            const struct sim_bucket *b = sim_timeline_bucket(p->in->tl, i);
            double frac = insufficient ? b->alarm_insufficient[a] : b->alarm_in_alarm[a];
            level = frac > 0 ? (int)ceil(frac * 4 - 1e-9) : 0;
            if (frac > 0 && level < 1)
                level = 1;
        }
        if (run_start >= 0 && level != run_level) {
            const struct sim_bucket *b0 = sim_timeline_bucket(p->in->tl, run_start);
            const struct sim_bucket *b1 = sim_timeline_bucket(p->in->tl, i - 1);
            cm_svg_xband(c, name, color, opacity * run_level / 4.0, rel_s(p, b0->t0_ms),
                         rel_s(p, b1->t1_ms));
            run_start = -1;
        }
        if (level > 0 && run_start < 0) {
            run_start = i;
            run_level = level;
        }
    }
}

static void chart_cpu(struct page *p, int g)
{
    struct cm_svg_opts o = { 0 };
    char id[64], title[256], name[512];
    struct cm_svg *c;
    int ne = sim_timeline_event_count(p->in->tl);
    struct cm_buf tip;

    snprintf(id, sizeof(id), "cpu-%d", g);
    snprintf(title, sizeof(title), "CPU utilization vs alarm thresholds: %s",
             p->cfg->group_names[g]);
    o.id = id;
    o.title = title;
    time_axis(p, &o);
    o.y.label = "CPUUtilization %";
    o.y.fixed = 1;
    o.y.min = 0;
    o.y.max = 100;
    c = cm_svg_create(&o);
    for (int a = 0; a < p->cfg->nalarms; a++) {
        const struct sim_alarm_info *ai = &p->cfg->alarms[a];
        snprintf(name, sizeof(name), "%s in ALARM", ai->name);
        add_alarm_bands(p, c, a, 0, name, alarm_color(a), 0.18);
        add_alarm_bands(p, c, a, 1, "INSUFFICIENT_DATA", COLOR_INSUFF, 0.12);
    }
    add_stall_bands(p, c);
    add_bucket_series(p, c, g, FIG_CPU, "CPU % (mean)", COLOR_CPU, CM_SVG_Y1,
                      CM_SVG_LINE | CM_SVG_THICK);
    for (int a = 0; a < p->cfg->nalarms; a++) {
        const struct sim_alarm_info *ai = &p->cfg->alarms[a];
        if (!ai->metric || strcmp(ai->metric, "CPUUtilization") != 0)
            continue;
        snprintf(name, sizeof(name), "%s %s %g", ai->name, comparison_symbol(ai->comparison),
                 ai->threshold);
        cm_svg_hline(c, name, alarm_color(a), CM_SVG_Y1, ai->threshold);
    }
    cm_buf_init(&tip, 0);
    for (int i = 0; i < ne; i++) {
        const struct sim_event *e = sim_timeline_event(p->in->tl, i);
        const char *color = COLOR_INSUFF;
        if (e->kind != SIM_EVENT_ALARM)
            continue;
        for (int a = 0; a < p->cfg->nalarms; a++)
            if (e->name && strcmp(e->name, p->cfg->alarms[a].name) == 0)
                color = alarm_color(a);
        event_tooltip(p, e, &tip);
        cm_svg_marker(c, "alarm state change", color, CM_SVG_CIRCLE, CM_SVG_Y1, rel_s(p, e->t_ms),
                      NAN, tip.data ? tip.data : "");
    }
    cm_buf_cleanup(&tip);
    emit_chart(p, c);
}

static void chart_latency(struct page *p)
{
    struct cm_svg_opts o = { 0 };
    struct cm_svg *c;

    o.id = "latency";
    o.title = "Latency and errors";
    time_axis(p, &o);
    o.y.label = "latency ms";
    o.y.include_zero = 1;
    o.y2.label = "errors %";
    o.y2.include_zero = 1;
    c = cm_svg_create(&o);
    add_bucket_series(p, c, 0, FIG_P50, "p50 ms", COLOR_P50, CM_SVG_Y1, CM_SVG_LINE);
    add_bucket_series(p, c, 0, FIG_P99, "p99 ms", COLOR_P99, CM_SVG_Y1, CM_SVG_LINE | CM_SVG_THICK);
    add_bucket_series(p, c, 0, FIG_ERRORS, "errors %", COLOR_ERRORS, CM_SVG_Y2,
                      CM_SVG_LINE | CM_SVG_DASHED);
    emit_chart(p, c);
}

/* --- tables ---------------------------------------------------------------------- */

static void elastic_from_buckets(const struct page *p, int g, struct sim_elastic_result *r)
{
    struct sim_elastic e;

    sim_elastic_init(&e);
    for (int i = 0; i < p->nb; i++) {
        const struct sim_bucket *b = sim_timeline_bucket(p->in->tl, i);
        const struct sim_group_bucket *gb = &b->groups[g];
        double warm = gb->warm_billed.n ? gb->warm_billed.mean : 0;
        double billed = gb->in_service.mean + (gb->pending.n ? gb->pending.mean : 0) +
                        (gb->terminating.n ? gb->terminating.mean : 0) + warm;
        sim_elastic_add(&e, b->t0_ms, gb->demand.mean, gb->in_service.mean, billed);
        sim_elastic_set_warm(&e, warm);
    }
    sim_elastic_result(&e, p->end_ms, r);
}

static void table_elasticity(struct page *p)
{
    static const char *const rows[] = {
        "&theta;<sub>U</sub> under-provisioning accuracy (% of demand)",
        "&theta;<sub>O</sub> over-provisioning accuracy (% of demand)",
        "&tau;<sub>U</sub> under-provisioning timeshare (% of time)",
        "&tau;<sub>O</sub> over-provisioning timeshare (% of time)",
        "&upsilon; instability (% of time)",
        "jitter (adaptations per hour)",
        "supply adaptations / demand changes",
        "mean demand / mean supply (instances)",
        "cost (instance-hours billed)",
        "InService instance-hours",
        "demand basis (what demand is counted against)",
    };
    int ng = p->cfg->ngroups;
    struct sim_elastic_result *r = cm_xcalloc(ng > 0 ? (size_t)ng : 1, sizeof(*r));

    for (int g = 0; g < ng; g++) {
        if (p->in->elastic && g < p->in->elastic->ngroups)
            sim_elastic_result(&p->in->elastic->groups[g], p->end_ms, &r[g]);
        else
            elastic_from_buckets(p, g, &r[g]);
    }
    puts_(p, "<h2 id=\"elasticity\">Elasticity and cost</h2>\n");
    if (!p->in->elastic)
        puts_(p, "<p class=\"note\">Computed from the report's downsampled copy (bucket "
                 "means), not at full resolution.</p>\n");
    puts_(p, "<table class=\"figures\"><tr><th>figure</th>");
    for (int g = 0; g < ng; g++) {
        puts_(p, "<th>");
        esc(p, p->cfg->group_names[g]);
        puts_(p, "</th>");
    }
    puts_(p, "</tr>\n");
    for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        printf_(p, "<tr><td>%s</td>", rows[k]);
        for (int g = 0; g < ng; g++) {
            const struct sim_elastic_result *x = &r[g];
            switch (k) {
            case 0:
                printf_(p, "<td>%.2f</td>", x->theta_u_pct);
                break;
            case 1:
                printf_(p, "<td>%.2f</td>", x->theta_o_pct);
                break;
            case 2:
                printf_(p, "<td>%.2f</td>", x->tau_u_pct);
                break;
            case 3:
                printf_(p, "<td>%.2f</td>", x->tau_o_pct);
                break;
            case 4:
                printf_(p, "<td>%.2f</td>", x->instability_pct);
                break;
            case 5:
                printf_(p, "<td>%+.3f</td>", x->jitter_per_h);
                break;
            case 6:
                printf_(p, "<td>%d / %d</td>", x->supply_changes, x->demand_changes);
                break;
            case 7:
                printf_(p, "<td>%.2f / %.2f</td>", x->mean_demand, x->mean_supply);
                break;
            case 8:
                printf_(p, "<td>%.2f</td>", x->cost_instance_hours);
                break;
            case 9:
                printf_(p, "<td>%.2f</td>", x->supply_instance_hours);
                break;
            default:
                if (p->cfg->group_basis) {
                    char basis[2 * SIM_PATH_MAX + 160];
                    sim_elastic_basis_format(&p->cfg->group_basis[g], basis, sizeof(basis));
                    puts_(p, "<td>");
                    esc(p, basis);
                    puts_(p, "</td>");
                } else {
                    puts_(p, "<td>n/a</td>");
                }
                break;
            }
        }
        puts_(p, "</tr>\n");
    }
    puts_(p, "</table>\n<p class=\"note\">Definitions: SPEC Research Group elasticity metrics "
             "(Herbst et al., ICAC 2013; TOMPECS 2018); demand = instances needed to keep "
             "the group at its demand basis (the row above: the scenario's "
             "demand_target_pct, else its target-tracking policy's CPU or "
             "ALBRequestCountPerTarget target, else CPU at 70 %), "
             "supply = InService; see docs/elasticity.md.</p>\n");
    free(r);
}

/* The observed capacity of the compared group as a step series over the kept buckets. */
static int observed_capacity(const struct page *p, int g, int64_t **t, double **v)
{
    *t = cm_xmalloc(((size_t)p->nb + 1) * sizeof(int64_t));
    *v = cm_xmalloc(((size_t)p->nb + 1) * sizeof(double));
    for (int i = 0; i < p->nb; i++) {
        const struct sim_bucket *b = sim_timeline_bucket(p->in->tl, i);
        (*t)[i] = b->t1_ms; /* a one-sample bucket's t1 is its sample's time */
        (*v)[i] = b->groups[g].in_service.mean;
    }
    return p->nb;
}

static int page_init(struct page *p, const struct sim_report_input *in, struct cm_buf *out)
{
    memset(p, 0, sizeof(*p));
    if (!in || !in->tl)
        return -1;
    p->in = in;
    p->o = out;
    p->cfg = sim_timeline_config(in->tl);
    p->nb = sim_timeline_bucket_count(in->tl);
    p->start_ms = p->cfg->start_ms;
    p->end_ms = in->end_ms;
    if (p->end_ms <= 0 && p->nb > 0)
        p->end_ms = sim_timeline_bucket(in->tl, p->nb - 1)->t1_ms;
    if (p->end_ms <= p->start_ms)
        p->end_ms = p->cfg->end_ms > p->start_ms ? p->cfg->end_ms : p->start_ms + 1000;
    return 0;
}

int sim_report_compare(const struct sim_report_input *in, struct sim_elastic_diff *out)
{
    struct page p;
    int64_t *t = NULL;
    double *v = NULL;
    int n, rc;
    const struct sim_report_capacity *cmp = in ? in->compare : NULL;

    memset(out, 0, sizeof(*out));
    if (page_init(&p, in, NULL) < 0 || !cmp || cmp->group < 0 || cmp->group >= p.cfg->ngroups)
        return -1;
    if (cmp->diff) {
        *out = *cmp->diff;
        return 0;
    }
    n = observed_capacity(&p, cmp->group, &t, &v);
    rc = sim_elastic_diff(t, v, n, cmp->t_ms, cmp->capacity, cmp->n, p.end_ms,
                          cmp->tolerance > 0 ? cmp->tolerance : 1, out);
    free(t);
    free(v);
    return rc;
}

static void section_compare(struct page *p)
{
    const struct sim_report_capacity *cmp = p->in->compare;
    struct sim_elastic_diff d;
    double tol;

    if (!cmp)
        return;
    tol = cmp->tolerance > 0 ? cmp->tolerance : 1;
    puts_(p, "<h2 id=\"compare\">");
    esc(p, cmp->label ? cmp->label : "predicted");
    puts_(p, " vs ");
    esc(p, p->in->observed_label ? p->in->observed_label : "InService");
    puts_(p, "</h2>\n");
    if (sim_report_compare(p->in, &d) < 0) {
        puts_(p, "<p class=\"fail\">No common time span to compare.</p>\n");
        return;
    }
    puts_(p, "<table class=\"figures\">");
    printf_(p,
            "<tr><td>time where they differ by more than %g instance%s</td>"
            "<td class=\"big\" id=\"compare-figure\">%.2f %%</td>",
            tol, tol == 1 ? "" : "s", d.over_tolerance_pct);
    if (cmp->bar_pct > 0)
        printf_(p, "<td class=\"%s\">%s (bar: at most %g %%)</td>",
                d.over_tolerance_pct <= cmp->bar_pct ? "pass" : "fail",
                d.over_tolerance_pct <= cmp->bar_pct ? "PASS" : "FAIL", cmp->bar_pct);
    puts_(p, "</tr>\n");
    printf_(p, "<tr><td>time where they differ at all</td><td>%.2f %%</td></tr>\n", d.differ_pct);
    printf_(p, "<tr><td>largest difference (instances)</td><td>%.2f</td></tr>\n", d.max_abs);
    printf_(p, "<tr><td>final capacity: predicted / observed</td><td>%g / %g</td>", d.final_b,
            d.final_a);
    printf_(p, "<td class=\"%s\">%s</td></tr>\n",
            fabs(d.final_a - d.final_b) < 0.5 ? "pass" : "fail",
            fabs(d.final_a - d.final_b) < 0.5 ? "same" : "different");
    printf_(p, "<tr><td>span compared</td><td>%.0f s</td></tr>\n</table>\n", d.duration_s);
}

static void section_expectations(struct page *p)
{
    int failed = 0;

    for (int i = 0; i < p->in->nexpects; i++)
        failed += !p->in->expects[i].passed;
    puts_(p, "<h2 id=\"expectations\">Expectations</h2>\n");
    if (p->in->nexpects == 0) {
        puts_(p, "<p>The scenario states no expectations.</p>\n");
        return;
    }
    printf_(p, "<p class=\"verdict %s\">%s: %d of %d expectations hold</p>\n",
            failed ? "fail" : "pass", failed ? "FAIL" : "PASS", p->in->nexpects - failed,
            p->in->nexpects);
    puts_(p, "<table><tr><th>result</th><th>expectation</th><th>observed</th></tr>\n");
    for (int i = 0; i < p->in->nexpects; i++) {
        const struct sim_report_expect *x = &p->in->expects[i];
        printf_(p, "<tr><td class=\"%s\">%s</td><td>", x->passed ? "pass" : "fail",
                x->passed ? "pass" : "FAIL");
        esc(p, x->text ? x->text : "");
        puts_(p, "</td><td>");
        esc(p, x->detail ? x->detail : "");
        puts_(p, "</td></tr>\n");
    }
    puts_(p, "</table>\n");
}

static void section_summary(struct page *p)
{
    const struct sim_report_input *in = p->in;
    const char *name = scenario_name(p);
    char start[80], dur[64], span[64], interval[64];

    iso_time(p->start_ms, start, sizeof(start));
    cm_svg_format_tick(rel_s(p, p->end_ms), 1, CM_SVG_TIME, dur, sizeof(dur));
    cm_svg_format_tick((double)sim_timeline_bucket_span_ms(in->tl) / 1000.0, 1, CM_SVG_TIME, span,
                       sizeof(span));
    cm_svg_format_tick((double)p->cfg->interval_ms / 1000.0, 1, CM_SVG_TIME, interval,
                       sizeof(interval));
    puts_(p, "<table class=\"summary\">\n<tr><th>scenario</th><td>");
    esc(p, name ? name : "(unnamed)");
    puts_(p, "</td></tr>\n");
    if (in->scenario_path) {
        puts_(p, "<tr><th>file</th><td>");
        esc(p, in->scenario_path);
        puts_(p, "</td></tr>\n");
    }
    if (in->has_seed)
        printf_(p, "<tr><th>seed</th><td>%llu</td></tr>\n", (unsigned long long)in->seed);
    if (in->mode) {
        puts_(p, "<tr><th>run</th><td>");
        esc(p, in->mode);
        puts_(p, "</td></tr>\n");
    }
    printf_(p, "<tr><th>start</th><td>%s</td></tr>\n<tr><th>duration</th><td>%s</td></tr>\n", start,
            dur);
    printf_(p, "<tr><th>samples</th><td>%llu every %s; plotted as %d points of %s</td></tr>\n",
            (unsigned long long)sim_timeline_samples_pushed(in->tl), interval, p->nb, span);
    if (in->result) {
        char req[256];
        sim_run_result_format_requests(in->result, req, sizeof(req));
        puts_(p, "<tr><th>requests</th><td id=\"requests\">");
        esc(p, req);
        puts_(p, "</td></tr>\n");
    }
    if (in->stalls) {
        char line[1024];
        sc_stalls_line(in->stalls, line, sizeof(line));
        puts_(p, "<tr><th>host</th><td id=\"host-stalls\">");
        esc(p, line);
        puts_(p, "</td></tr>\n");
    }
    printf_(p, "<tr><th>events</th><td>%llu (%d kept)</td></tr>\n",
            (unsigned long long)sim_timeline_events_pushed(in->tl),
            sim_timeline_event_count(in->tl));
    puts_(p, "</table>\n");
}

static void section_events(struct page *p)
{
    int ne = sim_timeline_event_count(p->in->tl);
    static const char *const kinds[] = { "activity", "alarm",        "fault",   "decision",
                                         "hook",     "notification", "forecast" };

    puts_(p, "<h2 id=\"events\">Activities, alarms and faults</h2>\n");
    if (ne == 0) {
        puts_(p, "<p>None.</p>\n");
        return;
    }
    if ((uint64_t)ne < sim_timeline_events_pushed(p->in->tl))
        printf_(p, "<p class=\"note\">%d of %llu events kept (thinned evenly over the run).</p>\n",
                ne, (unsigned long long)sim_timeline_events_pushed(p->in->tl));
    puts_(p, "<table class=\"events\"><tr><th>time</th><th>kind</th><th>group / alarm</th>"
             "<th>status</th><th>cause</th><th>description</th></tr>\n");
    for (int i = 0; i < ne && i < MAX_EVENT_ROWS; i++) {
        const struct sim_event *e = sim_timeline_event(p->in->tl, i);
        char rel[64];

        rel_time(p, e->t_ms, rel, sizeof(rel));
        printf_(p, "<tr><td>+%s</td><td>%s</td><td>", rel,
                (unsigned)e->kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[e->kind] : "?");
        esc(p, e->name ? e->name : (e->group ? e->group : ""));
        puts_(p, "</td><td>");
        esc(p, e->status);
        puts_(p, "</td><td>");
        esc(p, e->cause);
        puts_(p, "</td><td>");
        esc(p, e->description);
        puts_(p, "</td></tr>\n");
    }
    puts_(p, "</table>\n");
    if (ne > MAX_EVENT_ROWS)
        printf_(p, "<p class=\"note\">First %d rows shown.</p>\n", MAX_EVENT_ROWS);
}

static const char css[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:960px;color:#222;padding:0 1em}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}"
    "table{border-collapse:collapse;margin:.5em 0;font-size:.9em}"
    "th,td{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}"
    "table.summary th{background:#f5f5f5}table.figures td:not(:first-child){text-align:right}"
    ".pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}"
    ".verdict{font-size:1.15em}.big{font-size:1.3em;font-weight:bold}"
    ".note{color:#666;font-size:.85em}svg.cm-svg{max-width:100%;height:auto;display:block;"
    "margin:.8em 0}table.events td{font-size:.85em}";

int sim_report_render(const struct sim_report_input *in, struct cm_buf *out)
{
    struct page p;
    const char *name;

    if (page_init(&p, in, out) < 0)
        return -1;
    name = scenario_name(&p);
    puts_(&p, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
              "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    if (in->title)
        esc(&p, in->title);
    else {
        puts_(&p, "scalelab report: ");
        esc(&p, name ? name : "(unnamed)");
    }
    printf_(&p, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
    if (in->title)
        esc(&p, in->title);
    else {
        puts_(&p, "scalelab report: ");
        esc(&p, name ? name : "(unnamed)");
    }
    puts_(&p, "</h1>\n");
    section_summary(&p);
    section_expectations(&p);
    for (int g = 0; g < p.cfg->ngroups; g++) {
        puts_(&p, "<h2>Group ");
        esc(&p, p.cfg->group_names[g]);
        puts_(&p, "</h2>\n");
        chart_capacity(&p, g);
        chart_cpu(&p, g);
    }
    puts_(&p, "<h2>Requests</h2>\n");
    chart_latency(&p);
    if (p.nb > 1 && sim_timeline_bucket_span_ms(in->tl) > p.cfg->interval_ms)
        puts_(&p, "<p class=\"note\">Each plotted point is the mean of the samples its bucket "
                  "merged.</p>\n");
    section_compare(&p);
    table_elasticity(&p);
    section_events(&p);
    puts_(&p, "<p class=\"note\">Generated by ");
    esc(&p, in->generated_by ? in->generated_by : "scalelab");
    puts_(&p, ".</p>\n</body>\n</html>\n");
    return p.rc ? -1 : 0;
}

int sim_report_write(const char *path, const struct sim_report_input *in)
{
    struct cm_buf b;
    char *tmp = NULL;
    FILE *f = NULL;
    int rc = -1, saved;

    cm_buf_init(&b, 0);
    if (!path || sim_report_render(in, &b) < 0) {
        errno = EINVAL;
        goto out;
    }
    tmp = cm_xasprintf("%s.tmp", path);
    f = fopen(tmp, "w");
    if (!f)
        goto out;
    if (fwrite(b.data, 1, b.len, f) != b.len) {
        saved = errno;
        fclose(f);
        f = NULL;
        unlink(tmp);
        errno = saved;
        goto out;
    }
    if (fclose(f) != 0) {
        f = NULL;
        saved = errno;
        unlink(tmp);
        errno = saved;
        goto out;
    }
    f = NULL;
    if (rename(tmp, path) != 0) {
        saved = errno;
        unlink(tmp);
        errno = saved;
        goto out;
    }
    rc = 0;
out:
    free(tmp);
    cm_buf_cleanup(&b);
    return rc;
}
