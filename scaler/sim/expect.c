/* scaler/sim/expect.c: streaming expectation checks. */
#include "scaler/sim/expect.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/sim/model.h"

struct state {
    struct sim_check_result r;
    int group;
    /* in_service / desired */
    int seen;
    double last_value;
    double extreme; /* the worst value seen in range */
    /* failed_pct */
    double completed, failed;
    /* p99 */
    struct cm_hist hist;
    int has_hist;
    /* direction changes */
    int64_t *changes;
    int nchanges, capchanges, head;
    int last_dir;
    int prev_desired;
    int have_prev;
    int max_count;
    /* scale_out */
    int baseline;
    int have_baseline;
};

struct sim_checker {
    const struct sim_scenario *sc;
    int64_t start_ms;
    struct state *st;
    int n;
};

static void fmt_dur(char *out, size_t n, int64_t ms)
{
    if (ms % 3600000 == 0)
        snprintf(out, n, "%lldh", (long long)(ms / 3600000));
    else if (ms % 60000 == 0)
        snprintf(out, n, "%lldm", (long long)(ms / 60000));
    else if (ms % 1000 == 0)
        snprintf(out, n, "%llds", (long long)(ms / 1000));
    else
        snprintf(out, n, "%lldms", (long long)ms);
}

static const char *kind_name(enum sim_expect_kind k)
{
    switch (k) {
    case SIM_EXPECT_IN_SERVICE:
        return "in_service";
    case SIM_EXPECT_DESIRED:
        return "desired";
    case SIM_EXPECT_FAILED_PCT:
        return "failed_pct";
    case SIM_EXPECT_P99_MS:
        return "p99_ms";
    case SIM_EXPECT_DIRECTION_CHANGES:
        return "direction_changes";
    case SIM_EXPECT_SCALE_OUT:
        return "scale_out";
    }
    return "?";
}

static void describe(const struct sim_expect *e, char *out, size_t n)
{
    char a[32], b[32], bounds[64], when[96] = "";

    if (e->has_min && e->has_max)
        snprintf(bounds, sizeof(bounds), "within %g..%g", e->min, e->max);
    else if (e->has_min)
        snprintf(bounds, sizeof(bounds), ">= %g", e->min);
    else
        snprintf(bounds, sizeof(bounds), "<= %g", e->max);
    switch (e->when) {
    case SIM_WHEN_AT:
        fmt_dur(a, sizeof(a), e->at_ms);
        snprintf(when, sizeof(when), " at %s", a);
        break;
    case SIM_WHEN_BY:
        fmt_dur(a, sizeof(a), e->at_ms);
        snprintf(when, sizeof(when), " by %s", a);
        break;
    case SIM_WHEN_THROUGHOUT:
        fmt_dur(a, sizeof(a), e->from_ms);
        fmt_dur(b, sizeof(b), e->until_ms);
        snprintf(when, sizeof(when), " from %s to %s", a, b);
        break;
    }
    if (e->label) {
        snprintf(out, n, "%s", e->label);
        return;
    }
    switch (e->kind) {
    case SIM_EXPECT_IN_SERVICE:
    case SIM_EXPECT_DESIRED:
        snprintf(out, n, "%s of %s %s%s", kind_name(e->kind), e->group, bounds, when);
        break;
    case SIM_EXPECT_FAILED_PCT:
    case SIM_EXPECT_P99_MS:
        snprintf(out, n, "%s %s%s", kind_name(e->kind), bounds, when);
        break;
    case SIM_EXPECT_DIRECTION_CHANGES:
        fmt_dur(a, sizeof(a), e->window_ms);
        snprintf(out, n, "direction changes of %s %s in any %s%s", e->group, bounds, a, when);
        break;
    case SIM_EXPECT_SCALE_OUT:
        fmt_dur(a, sizeof(a), e->after_ms);
        fmt_dur(b, sizeof(b), e->within_ms);
        snprintf(out, n, "%s scales out within %s after %s", e->group, b, a);
        break;
    }
}

struct sim_checker *sim_checker_create(const struct sim_scenario *sc, int64_t start_ms)
{
    struct sim_checker *ch = cm_xcalloc(1, sizeof(*ch));

    ch->sc = sc;
    ch->start_ms = start_ms;
    ch->n = sc->nexpects;
    ch->st = cm_xcalloc((size_t)ch->n + 1, sizeof(*ch->st));
    for (int i = 0; i < ch->n; i++) {
        struct state *s = &ch->st[i];
        s->r.e = &sc->expects[i];
        s->r.value = NAN;
        s->group = sc->expects[i].group ? sim_scenario_group_index(sc, sc->expects[i].group) : -1;
        describe(s->r.e, s->r.what, sizeof(s->r.what));
        s->max_count = (int)s->r.e->max;
        if (s->r.e->kind == SIM_EXPECT_P99_MS) {
            cm_hist_init(&s->hist, SIM_HIST_HIGHEST_US, SIM_HIST_DIGITS);
            s->has_hist = 1;
        }
    }
    return ch;
}

void sim_checker_destroy(struct sim_checker *ch)
{
    if (!ch)
        return;
    for (int i = 0; i < ch->n; i++) {
        if (ch->st[i].has_hist)
            cm_hist_cleanup(&ch->st[i].hist);
        free(ch->st[i].changes);
    }
    free(ch->st);
    free(ch);
}

static int in_bounds(const struct sim_expect *e, double v)
{
    return (!e->has_min || v >= e->min) && (!e->has_max || v <= e->max);
}

static void settle(struct state *s, int ok, int64_t when_ms, double value, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* value: the figure fmt prints, as a number (NAN: none). */
static void settle(struct state *s, int ok, int64_t when_ms, double value, const char *fmt, ...)
{
    va_list ap;

    s->r.settled = 1;
    s->r.ok = ok;
    s->r.when_ms = when_ms;
    s->r.value = value;
    va_start(ap, fmt);
    vsnprintf(s->r.observed, sizeof(s->r.observed), fmt, ap);
    va_end(ap);
}

static int in_span(const struct sim_expect *e, int64_t rel)
{
    return rel >= e->from_ms && rel <= e->until_ms;
}

static void on_capacity(struct state *s, int64_t rel, double v)
{
    const struct sim_expect *e = s->r.e;
    const char *k = kind_name(e->kind);
    switch (e->when) {
    case SIM_WHEN_AT:
        if (rel >= e->at_ms)
            settle(s, in_bounds(e, v), rel, v, "%s was %g", k, v);
        break;
    case SIM_WHEN_BY:
        if (rel > e->at_ms) {
            settle(s, 0, e->at_ms, s->seen ? s->last_value : v, "%s was %g", k,
                   s->seen ? s->last_value : v);
            break;
        }
        s->seen = 1;
        s->last_value = v;
        if (in_bounds(e, v))
            settle(s, 1, rel, v, "%s was %g", k, v);
        break;
    case SIM_WHEN_THROUGHOUT:
        if (!in_span(e, rel))
            break;
        s->seen = 1;
        if (!in_bounds(e, v))
            settle(s, 0, rel, v, "%s was %g", k, v);
        break;
    }
}

static void on_direction(struct state *s, int64_t rel, int desired)
{
    const struct sim_expect *e = s->r.e;
    int dir;

    if (!in_span(e, rel)) {
        s->prev_desired = desired;
        s->have_prev = 1;
        return;
    }
    if (!s->have_prev) {
        s->prev_desired = desired;
        s->have_prev = 1;
        return;
    }
    dir = desired > s->prev_desired ? 1 : desired < s->prev_desired ? -1 : 0;
    s->prev_desired = desired;
    if (dir == 0)
        return;
    if (s->last_dir != 0 && dir != s->last_dir) {
        /* a change of direction at rel: count those inside (rel - window, rel] */
        if (s->nchanges == s->capchanges) {
            int ncap = s->capchanges ? s->capchanges * 2 : 16;
            int64_t *n = cm_xmalloc((size_t)ncap * sizeof(*n));
            for (int i = 0; i < s->nchanges; i++)
                n[i] = s->changes[(s->head + i) % s->capchanges];
            free(s->changes);
            s->changes = n;
            s->capchanges = ncap;
            s->head = 0;
        }
        s->changes[(s->head + s->nchanges) % s->capchanges] = rel;
        s->nchanges++;
        while (s->nchanges > 0 && s->changes[s->head] <= rel - e->window_ms) {
            s->head = (s->head + 1) % s->capchanges;
            s->nchanges--;
        }
        if (s->nchanges > s->max_count)
            settle(s, 0, rel, s->nchanges, "%d direction changes in the window ending then",
                   s->nchanges);
        if ((double)s->nchanges > s->extreme)
            s->extreme = s->nchanges;
    }
    s->last_dir = dir;
}

static void on_scale_out(struct state *s, int64_t rel, int desired)
{
    const struct sim_expect *e = s->r.e;

    if (rel < e->after_ms)
        return;
    if (!s->have_baseline) {
        s->baseline = desired;
        s->have_baseline = 1;
        return;
    }
    if (desired > s->baseline && rel <= e->after_ms + e->within_ms) {
        settle(s, 1, rel, (double)(rel - e->after_ms) / 1000.0, "scaled out after %gs",
               (double)(rel - e->after_ms) / 1000.0);
        return;
    }
    if (rel > e->after_ms + e->within_ms)
        settle(s, 0, e->after_ms + e->within_ms, NAN, "desired stayed at %d", s->baseline);
}

void sim_checker_on_sample(const struct sim_sample *smp, void *ud)
{
    struct sim_checker *ch = ud;
    int64_t rel = smp->t_ms - ch->start_ms;

    for (int i = 0; i < ch->n; i++) {
        struct state *s = &ch->st[i];
        const struct sim_expect *e = s->r.e;
        if (s->r.settled)
            continue;
        switch (e->kind) {
        case SIM_EXPECT_IN_SERVICE:
            on_capacity(s, rel, smp->groups[s->group].in_service);
            break;
        case SIM_EXPECT_DESIRED:
            on_capacity(s, rel, smp->groups[s->group].desired);
            break;
        case SIM_EXPECT_FAILED_PCT:
            if (in_span(e, rel)) {
                s->seen = 1;
                s->completed += (double)smp->completed;
                s->failed += (double)smp->failed;
            }
            break;
        case SIM_EXPECT_P99_MS:
            break;
        case SIM_EXPECT_DIRECTION_CHANGES:
            on_direction(s, rel, smp->groups[s->group].desired);
            break;
        case SIM_EXPECT_SCALE_OUT:
            on_scale_out(s, rel, smp->groups[s->group].desired);
            break;
        }
    }
}

void sim_checker_on_hist(struct sim_checker *ch, int64_t t_ms, const struct cm_hist *h)
{
    int64_t rel = t_ms - ch->start_ms;

    for (int i = 0; i < ch->n; i++) {
        struct state *s = &ch->st[i];
        if (s->r.settled || !s->has_hist || !in_span(s->r.e, rel))
            continue;
        cm_hist_merge(&s->hist, h);
        s->seen = 1;
    }
}

void sim_checker_finish(struct sim_checker *ch, int64_t end_ms)
{
    int64_t rel_end = end_ms - ch->start_ms;

    for (int i = 0; i < ch->n; i++) {
        struct state *s = &ch->st[i];
        const struct sim_expect *e = s->r.e;
        if (s->r.settled)
            continue;
        switch (e->kind) {
        case SIM_EXPECT_IN_SERVICE:
        case SIM_EXPECT_DESIRED:
            if (e->when == SIM_WHEN_THROUGHOUT)
                settle(s, 1, rel_end, NAN, "held at every sample");
            else if (e->when == SIM_WHEN_BY)
                settle(s, 0, rel_end, s->last_value, "%s was %g at the last sample",
                       kind_name(e->kind), s->last_value);
            else
                settle(s, 0, rel_end, NAN, "the run ended first");
            break;
        case SIM_EXPECT_FAILED_PCT: {
            double tot = s->completed + s->failed;
            double pct = tot > 0 ? 100.0 * s->failed / tot : 0;
            settle(s, pct <= e->max + 1e-9, rel_end, pct, "failed %.3f%%", pct);
            break;
        }
        case SIM_EXPECT_P99_MS: {
            double p99 = (double)cm_hist_percentile(&s->hist, 99.0) / 1000.0;
            settle(s, p99 <= e->max, rel_end, p99, "p99 %.1f ms", p99);
            break;
        }
        case SIM_EXPECT_DIRECTION_CHANGES:
            settle(s, 1, rel_end, s->extreme, "at most %g direction changes in any window",
                   s->extreme);
            break;
        case SIM_EXPECT_SCALE_OUT:
            if (s->have_baseline)
                settle(s, 0, rel_end, NAN, "desired stayed at %d", s->baseline);
            else
                settle(s, 0, rel_end, NAN, "the run ended first");
            break;
        }
    }
}

int sim_checker_count(const struct sim_checker *ch)
{
    return ch->n;
}

const struct sim_check_result *sim_checker_result(const struct sim_checker *ch, int i)
{
    return &ch->st[i].r;
}

int sim_checker_failed(const struct sim_checker *ch)
{
    int n = 0;

    for (int i = 0; i < ch->n; i++)
        if (ch->st[i].r.settled && !ch->st[i].r.ok)
            n++;
    return n;
}

void sim_check_limits(const struct sim_expect *e, double *min, double *max)
{
    *min = e->has_min ? e->min : NAN;
    *max = e->has_max ? e->max : NAN;
    if (e->kind == SIM_EXPECT_SCALE_OUT) {
        *min = NAN;
        *max = (double)e->within_ms / 1000.0;
    }
}
