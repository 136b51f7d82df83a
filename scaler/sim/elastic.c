/* scaler/sim/elastic.c: see elastic.h and docs/elasticity.md. */
#include "scaler/sim/elastic.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double clean(double v)
{
    return isfinite(v) && v > 0 ? v : 0;
}

static int sgn(double v)
{
    return (v > 0) - (v < 0);
}

void sim_elastic_init(struct sim_elastic *e)
{
    memset(e, 0, sizeof(*e));
}

/* Folds the open sample, held for dt_ms, into the integrals; it becomes "prev". */
static void close_open(struct sim_elastic *e, double dt_ms)
{
    double floor_d = e->d > 1 ? e->d : 1;

    if (e->d > e->s) {
        e->under_ms += (e->d - e->s) / floor_d * dt_ms;
        e->under_time_ms += dt_ms;
    } else if (e->s > e->d) {
        e->over_ms += (e->s - e->d) / floor_d * dt_ms;
        e->over_time_ms += dt_ms;
    }
    e->demand_ms += e->d * dt_ms;
    e->supply_ms += e->s * dt_ms;
    e->billed_ms += e->b * dt_ms;
    e->warm_ms += e->w * dt_ms;
    if (e->have_prev) {
        if (sgn(e->s - e->prev_s) != sgn(e->d - e->prev_d))
            e->mismatch_ms += dt_ms;
        e->after_first_ms += dt_ms;
        e->supply_changes += e->s != e->prev_s;
        e->demand_changes += e->d != e->prev_d;
    }
    e->prev_d = e->d;
    e->prev_s = e->s;
    e->have_prev = 1;
}

int sim_elastic_add(struct sim_elastic *e, int64_t t_ms, double demand, double supply,
                    double billed)
{
    if (e->nsamples > 0) {
        if (t_ms < e->last_ms)
            return -1;
        if (t_ms > e->last_ms)
            close_open(e, (double)(t_ms - e->last_ms));
    } else {
        e->t0_ms = t_ms;
    }
    if (e->nsamples == 0 || t_ms > e->last_ms)
        e->nsamples++;
    e->last_ms = t_ms;
    e->d = clean(demand);
    e->s = clean(supply);
    e->b = clean(billed);
    e->w = 0;
    return 0;
}

void sim_elastic_set_warm(struct sim_elastic *e, double warm)
{
    e->w = clean(warm);
}

void sim_elastic_result(const struct sim_elastic *e, int64_t end_ms, struct sim_elastic_result *out)
{
    struct sim_elastic c = *e;
    double T;

    memset(out, 0, sizeof(*out));
    if (e->nsamples == 0)
        return;
    if (end_ms < c.last_ms)
        end_ms = c.last_ms;
    close_open(&c, (double)(end_ms - c.last_ms));
    T = (double)(end_ms - c.t0_ms);
    out->supply_changes = c.supply_changes;
    out->demand_changes = c.demand_changes;
    if (T <= 0)
        return;
    out->duration_s = T / 1000.0;
    out->theta_u_pct = 100.0 * c.under_ms / T;
    out->theta_o_pct = 100.0 * c.over_ms / T;
    out->tau_u_pct = 100.0 * c.under_time_ms / T;
    out->tau_o_pct = 100.0 * c.over_time_ms / T;
    out->instability_pct = c.after_first_ms > 0 ? 100.0 * c.mismatch_ms / c.after_first_ms : 0;
    out->jitter_per_h = (c.supply_changes - c.demand_changes) / (T / 3600000.0);
    out->mean_demand = c.demand_ms / T;
    out->mean_supply = c.supply_ms / T;
    out->supply_instance_hours = c.supply_ms / 3600000.0;
    out->cost_instance_hours = c.billed_ms / 3600000.0;
    out->warm_instance_hours = c.warm_ms / 3600000.0;
}

void sim_elastic_sink_init(struct sim_elastic_sink *sink, int ngroups)
{
    if (ngroups < 0)
        ngroups = 0;
    if (ngroups > SIM_TIMELINE_MAX_GROUPS)
        ngroups = SIM_TIMELINE_MAX_GROUPS;
    sink->ngroups = ngroups;
    for (int g = 0; g < SIM_TIMELINE_MAX_GROUPS; g++)
        sim_elastic_init(&sink->groups[g]);
}

void sim_elastic_sink_on_sample(const struct sim_sample *s, void *ud)
{
    struct sim_elastic_sink *sink = ud;
    int n = s->ngroups < sink->ngroups ? s->ngroups : sink->ngroups;

    for (int g = 0; g < n; g++) {
        const struct sim_group_sample *gs = &s->groups[g];
        sim_elastic_add(&sink->groups[g], s->t_ms - s->interval_ms, gs->demand, gs->in_service,
                        gs->in_service + gs->pending + gs->terminating + gs->warm_billed);
        sim_elastic_set_warm(&sink->groups[g], gs->warm_billed);
    }
}

int sim_elastic_diff(const int64_t *ta, const double *va, int na, const int64_t *tb,
                     const double *vb, int nb, int64_t end_ms, double tolerance,
                     struct sim_elastic_diff *out)
{
    int64_t cur;
    int ia = 0, ib = 0;
    double over = 0, differ = 0, total = 0;

    memset(out, 0, sizeof(*out));
    if (na <= 0 || nb <= 0)
        return -1;
    cur = ta[0] > tb[0] ? ta[0] : tb[0];
    if (end_ms <= cur)
        return -1;
    while (ia + 1 < na && ta[ia + 1] <= cur)
        ia++;
    while (ib + 1 < nb && tb[ib + 1] <= cur)
        ib++;
    while (cur < end_ms) {
        int64_t next = end_ms;
        double d, dt;

        if (ia + 1 < na && ta[ia + 1] < next)
            next = ta[ia + 1];
        if (ib + 1 < nb && tb[ib + 1] < next)
            next = tb[ib + 1];
        dt = (double)(next - cur);
        d = fabs(va[ia] - vb[ib]);
        if (isfinite(d)) {
            if (d > tolerance)
                over += dt;
            if (d >= 0.5)
                differ += dt;
            if (d > out->max_abs)
                out->max_abs = d;
        }
        total += dt;
        cur = next;
        while (ia + 1 < na && ta[ia + 1] <= cur)
            ia++;
        while (ib + 1 < nb && tb[ib + 1] <= cur)
            ib++;
    }
    out->duration_s = total / 1000.0;
    out->over_tolerance_pct = 100.0 * over / total;
    out->differ_pct = 100.0 * differ / total;
    out->final_a = va[ia];
    out->final_b = vb[ib];
    return 0;
}

/* The target group an ALBRequestCountPerTarget resource_label names, in the scenario's
 * short form "app/LB/targetgroup/TG" (the one the reader and both worlds' setup take);
 * -1 when it names none of the scenario's. */
static int label_tg(const struct sim_scenario *sc, const char *label, int *alb)
{
    char lb[64], tg[64];
    int n = 0;

    if (!label || sscanf(label, "app/%63[^/]/targetgroup/%63[^/]%n", lb, tg, &n) != 2 ||
        label[n] != '\0')
        return -1;
    *alb = sim_scenario_alb_index(sc, lb);
    return *alb >= 0 ? sim_scenario_tg_index(sc, tg) : -1;
}

void sim_elastic_demand_basis(const struct sim_scenario *sc, int g, struct sim_demand_basis *out)
{
    const char *group = g >= 0 && g < sc->ngroups ? sc->groups[g].name : NULL;

    memset(out, 0, sizeof(*out));
    out->kind = SIM_DEMAND_CPU;
    out->cpu_pct = sc->demand_target_pct;
    out->tg = out->alb = -1;
    out->groups_sharing = 1;
    snprintf(out->source, sizeof(out->source), "%s",
             sc->has_demand_target_pct ? "demand_target_pct" : "default");
    if (sc->has_demand_target_pct || !group)
        return;
    for (int i = 0; i < sc->npolicies; i++) {
        const struct sim_policy *pl = &sc->policies[i];
        int tg, alb = -1, n = 0;

        if (pl->type != SIM_POLICY_TARGET || !pl->group || strcmp(pl->group, group) != 0 ||
            !pl->predefined_metric || !(pl->target_value > 0))
            continue;
        if (strcmp(pl->predefined_metric, "ASGAverageCPUUtilization") == 0) {
            out->cpu_pct = pl->target_value < 100 ? pl->target_value : 100;
        } else if (strcmp(pl->predefined_metric, "ALBRequestCountPerTarget") == 0 &&
                   (tg = label_tg(sc, pl->resource_label, &alb)) >= 0) {
            for (int k = 0; k < sc->ngroups; k++)
                for (int j = 0; j < sc->groups[k].ntarget_groups; j++)
                    n += strcmp(sc->groups[k].target_groups[j], sc->tgs[tg].name) == 0;
            out->kind = SIM_DEMAND_REQUESTS;
            out->cpu_pct = 0;
            out->requests_per_target = pl->target_value;
            out->tg = tg;
            out->alb = alb;
            out->groups_sharing = n > 0 ? n : 1;
            snprintf(out->target_group, sizeof(out->target_group), "%s", sc->tgs[tg].name);
        } else {
            continue;
        }
        snprintf(out->source, sizeof(out->source), "target-tracking policy \"%s\"", pl->name);
        return;
    }
}

int sim_elastic_request_demand(const struct sim_demand_basis *b, double requests,
                               int64_t interval_ms)
{
    double want;

    if (b->kind != SIM_DEMAND_REQUESTS || !(b->requests_per_target > 0) || interval_ms <= 0 ||
        !(requests > 0))
        return 0;
    /* one division of whole numbers: exact when the quotient is whole */
    want = requests * 60000.0 /
           (b->requests_per_target * (double)interval_ms *
            (b->groups_sharing > 1 ? b->groups_sharing : 1));
    if (!isfinite(want) || want >= (double)(1 << 20))
        return 1 << 20;
    return (int)ceil(want);
}

void sim_elastic_basis_format(const struct sim_demand_basis *b, char *buf, size_t cap)
{
    if (b->kind == SIM_DEMAND_REQUESTS)
        snprintf(buf, cap,
                 "ALBRequestCountPerTarget %g requests/target/min on target group %s%s (%s)",
                 b->requests_per_target, b->target_group,
                 b->groups_sharing > 1 ? ", its requests split evenly over the groups in it" : "",
                 b->source);
    else
        snprintf(buf, cap, "instances to keep CPU at or below %g %% (%s)", b->cpu_pct, b->source);
}
