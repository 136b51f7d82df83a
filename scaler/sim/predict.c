/* scaler/sim/predict.c: sim_predict() over sim_run (see predict.h). */
#include "scaler/sim/predict.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/sim/run.h"
#include "scaler/sim/timeline.h"

struct collect {
    struct sim_prediction *p;
    int group;
};

static void on_sample(const struct sim_sample *s, void *ud)
{
    struct collect *c = ud;
    struct sim_prediction *p = c->p;

    if (c->group < 0 || s->ngroups <= c->group)
        return;
    p->t_ms = cm_xrealloc(p->t_ms, (size_t)(p->n + 1) * sizeof(*p->t_ms));
    p->capacity = cm_xrealloc(p->capacity, (size_t)(p->n + 1) * sizeof(*p->capacity));
    p->t_ms[p->n] = s->t_ms;
    p->capacity[p->n] = s->groups[c->group].in_service;
    p->n++;
}

static void on_timeline(struct sim_timeline *tl, void *ud)
{
    sim_timeline_add_sink(tl, on_sample, NULL, ud);
}

int sim_predict(const struct sim_scenario *sc, const struct sim_predict_options *opt,
                struct sim_prediction *out, char *err)
{
    struct sim_run_config rc = { 0 };
    struct sim_run_result res;
    struct collect c = { out, opt->group };
    int rv;

    memset(out, 0, sizeof(*out));
    rc.sc = sc;
    rc.mode = SIM_MODE_AUTO;
    rc.seed = opt->seed;
    rc.on_timeline = on_timeline;
    rc.ud = &c;
    rv = sim_run(&rc, &res, NULL, err);
    out->mode = sim_mode_str(res.mode);
    if (opt->group >= 0 && opt->group < res.ngroups)
        out->final_in_service = res.final_in_service[opt->group];
    /* the warnings pass to the prediction */
    out->warnings = res.warnings;
    out->nwarnings = res.nwarnings;
    res.warnings = NULL;
    res.nwarnings = 0;
    sim_run_result_cleanup(&res);
    return rv == 0 ? 0 : -1;
}

void sim_prediction_cleanup(struct sim_prediction *p)
{
    for (int i = 0; i < p->nwarnings; i++)
        free(p->warnings[i]);
    free(p->warnings);
    free(p->t_ms);
    free(p->capacity);
    memset(p, 0, sizeof(*p));
}
