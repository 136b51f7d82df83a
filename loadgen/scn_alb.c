/* loadgen/scn_alb.c: the ALB figures of an observed run (see scn_internal.h): what the
 * load balancers' AWS/ApplicationELB metrics say the load did, read back through
 * CloudWatch once the load has ended (the emulator's data plane puts them each emulated
 * minute, libscaler's sc_elbv2_report_minute; AWS every minute). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/xalloc.h"
#include "loadgen/scn_internal.h"
#include "scaler/civil.h"

/* Largest count of datapoints one GetMetricStatistics returns (AWS's 1440). */
#define MAX_POINTS 1440

/* 1 when a listener action of b forwards to target group tg. */
static int forwards_to(const struct sim_alb *b, const char *tg)
{
    for (int l = 0; l < b->nlisteners; l++) {
        const struct sim_alb_listener *li = &b->listeners[l];
        for (int k = -1; k < li->nrules; k++) {
            const struct sim_alb_action *a = k < 0 ? &li->default_action : &li->rules[k].action;
            if (a->kind != SIM_ALB_FORWARD)
                continue;
            for (int f = 0; f < a->nforward; f++)
                if (a->forward[f].target_group && strcmp(a->forward[f].target_group, tg) == 0)
                    return 1;
        }
    }
    return 0;
}

int scn_alb_metric_window(struct run *r, const char *metric, const char *lbdim, const char *tgdim,
                          int64_t from, int64_t to, double *sum, double *max, int *npoints)
{
    struct aws_params p;
    struct aws_error err;
    xmlDoc *doc = NULL;
    char t0[40], t1[40];
    int64_t minutes = (to - from + 59999) / 60000;
    int64_t period = 60 * ((minutes + MAX_POINTS - 1) / MAX_POINTS);
    int k = 1, n;

    sc_civil_format_iso_ms(from, t0, sizeof(t0));
    sc_civil_format_iso_ms(to, t1, sizeof(t1));
    aws_params_init(&p);
    aws_params_add(&p, "Namespace", "AWS/ApplicationELB");
    aws_params_add(&p, "MetricName", metric);
    if (tgdim) {
        aws_params_add(&p, "Dimensions.member.1.Name", "TargetGroup");
        aws_params_add(&p, "Dimensions.member.1.Value", tgdim);
        k++;
    }
    if (lbdim) {
        char dn[64], dv[64];
        snprintf(dn, sizeof(dn), "Dimensions.member.%d.Name", k);
        snprintf(dv, sizeof(dv), "Dimensions.member.%d.Value", k);
        aws_params_add(&p, dn, "LoadBalancer");
        aws_params_add(&p, dv, lbdim);
    }
    aws_params_add(&p, "StartTime", t0);
    aws_params_add(&p, "EndTime", t1);
    aws_params_addf(&p, "Period", "%lld", (long long)period);
    aws_params_add(&p, "Statistics.member.1", "Sum");
    aws_params_add(&p, "Statistics.member.2", "Maximum");
    if (scn_aws_call(r, AWS_CLOUDWATCH, "GetMetricStatistics", &p, &doc, &err) != 0) {
        scn_fail_msg("GetMetricStatistics %s: %s: %s", metric, err.code, err.message);
        aws_params_cleanup(&p);
        return -1;
    }
    n = scn_reply_metric_sum_max(doc, sum, max);
    if (npoints)
        *npoints = n;
    xmlFreeDoc(doc);
    aws_params_cleanup(&p);
    return 0;
}

static int metric_sum_max(struct run *r, const char *metric, const char *lbdim, const char *tgdim,
                          double *sum, double *max)
{
    return scn_alb_metric_window(r, metric, lbdim, tgdim, r->emu_t0 - 60000,
                                 r->emu_t0 + r->sc->duration_ms + 120000, sum, max, NULL);
}

int scn_alb_poll(struct run *r, int64_t emu_end, int64_t interval)
{
    int64_t span = interval < 60000 ? 60000 : interval;

    if (r->sc->ntgs == 0)
        return 0;
    if (!r->tg_rps)
        r->tg_rps = cm_xcalloc((size_t)r->sc->ntgs, sizeof(*r->tg_rps));
    for (int t = 0; t < r->sc->ntgs; t++) {
        char tkey[300];
        const char *tgdim;

        r->tg_rps[t] = 0;
        snprintf(tkey, sizeof(tkey), "tgdim:%s", r->sc->tgs[t].name);
        tgdim = scn_ref(r, tkey);
        for (int i = 0; tgdim && i < r->sc->nalbs; i++) {
            char key[300];
            const char *lbdim;
            double sum, mx;
            int n = 0;

            if (!forwards_to(&r->sc->albs[i], r->sc->tgs[t].name))
                continue;
            snprintf(key, sizeof(key), "lbdim:%s", r->sc->albs[i].name);
            lbdim = scn_ref(r, key);
            /* the minutes reported in the period (and the one before, which the last
             * report may still be): their mean count a minute */
            if (!lbdim ||
                scn_alb_metric_window(r, "RequestCount", lbdim, tgdim, emu_end - span - 60000,
                                      emu_end + 1000, &sum, &mx, &n) != 0)
                return -1;
            if (n > 0)
                r->tg_rps[t] += sum / n / 60.0;
        }
    }
    return 0;
}

double scn_alb_group_rps(const struct run *r, int g)
{
    const struct sim_group *grp = &r->sc->groups[g];
    double rps = 0;

    for (int k = 0; r->tg_rps && k < grp->ntarget_groups; k++) {
        int t = sim_scenario_tg_index(r->sc, grp->target_groups[k]);
        if (t >= 0)
            rps += r->tg_rps[t];
    }
    return rps;
}

int scn_alb_figures(struct run *r)
{
    int n = 0, rc = 0;

    if (r->sc->nalbs == 0)
        return 0;
    if (r->is_emulator) {
        /* the minute the run ended in is put at the next emulated minute's report */
        int64_t wait = (int64_t)ceil(61000.0 / r->scale);
        struct timespec ts;
        if (wait > 5000)
            wait = 5000;
        ts.tv_sec = wait / 1000;
        ts.tv_nsec = (long)(wait % 1000) * 1000000;
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < r->sc->nalbs; i++)
        for (int t = 0; t < r->sc->ntgs; t++)
            n += forwards_to(&r->sc->albs[i], r->sc->tgs[t].name);
    r->albfig = cm_xcalloc((size_t)r->sc->nalbs, sizeof(*r->albfig));
    r->tgfig = cm_xcalloc((size_t)n + 1, sizeof(*r->tgfig));
    for (int i = 0; i < r->sc->nalbs; i++) {
        const struct sim_alb *b = &r->sc->albs[i];
        struct scn_alb_fig *f = &r->albfig[i];
        char key[300];
        const char *lbdim;
        double mx;

        f->alb = b->name;
        f->fixed = f->redirects = f->elb_5xx = 0;
        snprintf(key, sizeof(key), "lbdim:%s", b->name);
        lbdim = scn_ref(r, key);
        if (!lbdim)
            continue;
        f->read =
            metric_sum_max(r, "RequestCount", lbdim, NULL, &f->requests, &mx) == 0 &&
            metric_sum_max(r, "HTTP_Fixed_Response_Count", lbdim, NULL, &f->fixed, &mx) == 0 &&
            metric_sum_max(r, "HTTP_Redirect_Count", lbdim, NULL, &f->redirects, &mx) == 0 &&
            metric_sum_max(r, "HTTPCode_ELB_5XX_Count", lbdim, NULL, &f->elb_5xx, &mx) == 0;
        if (!f->read)
            rc = -1;
        for (int t = 0; t < r->sc->ntgs; t++) {
            struct scn_tg_fig *g;
            const char *tgdim;
            char tkey[300];

            if (!forwards_to(b, r->sc->tgs[t].name))
                continue;
            g = &r->tgfig[r->ntgfig++];
            g->alb = b->name;
            g->tg = r->sc->tgs[t].name;
            g->per_target_max = NAN;
            snprintf(tkey, sizeof(tkey), "tgdim:%s", g->tg);
            tgdim = scn_ref(r, tkey);
            if (!tgdim)
                continue;
            g->read = metric_sum_max(r, "RequestCount", lbdim, tgdim, &g->requests, &mx) == 0 &&
                      metric_sum_max(r, "RequestCountPerTarget", lbdim, tgdim, &mx,
                                     &g->per_target_max) == 0;
            if (!g->read)
                rc = -1;
        }
    }
    return rc;
}

void scn_alb_print(const struct run *r, FILE *f)
{
    for (int i = 0; r->albfig && i < r->sc->nalbs; i++) {
        const struct scn_alb_fig *a = &r->albfig[i];

        if (!a->read)
            continue;
        fprintf(f,
                "alb %s (AWS/ApplicationELB over the run): RequestCount %.0f, "
                "HTTP_Fixed_Response_Count %.0f, HTTP_Redirect_Count %.0f, "
                "HTTPCode_ELB_5XX_Count %.0f\n",
                a->alb, a->requests, a->fixed, a->redirects, a->elb_5xx);
        for (int t = 0; t < r->ntgfig; t++) {
            const struct scn_tg_fig *g = &r->tgfig[t];
            if (strcmp(g->alb, a->alb) != 0 || !g->read)
                continue;
            if (isfinite(g->per_target_max))
                fprintf(f,
                        "  target group %s: RequestCount %.0f, RequestCountPerTarget at most "
                        "%.0f per minute\n",
                        g->tg, g->requests, g->per_target_max);
            else
                fprintf(f, "  target group %s: RequestCount %.0f\n", g->tg, g->requests);
        }
    }
}

int scn_alb_json(const struct run *r, char *out, size_t n)
{
    size_t k = 0;
    int first = 1;

#define PUT(...)                                                                                   \
    do {                                                                                           \
        int w_ = snprintf(out + k, k < n ? n - k : 0, __VA_ARGS__);                                \
        if (w_ < 0 || k + (size_t)w_ >= n)                                                         \
            return -1;                                                                             \
        k += (size_t)w_;                                                                           \
    } while (0)
    if (n)
        out[0] = '\0';
    if (!r->albfig)
        return 0;
    PUT(",\n\"albs\":[");
    for (int i = 0; i < r->sc->nalbs; i++) {
        const struct scn_alb_fig *a = &r->albfig[i];
        int tfirst = 1;

        if (!a->read)
            continue;
        PUT("%s{\"name\":\"%s\",\"request_count\":%.0f,\"fixed_response_count\":%.0f,"
            "\"redirect_count\":%.0f,\"elb_5xx_count\":%.0f,\"target_groups\":[",
            first ? "" : ",", a->alb, a->requests, a->fixed, a->redirects, a->elb_5xx);
        first = 0;
        for (int t = 0; t < r->ntgfig; t++) {
            const struct scn_tg_fig *g = &r->tgfig[t];
            if (strcmp(g->alb, a->alb) != 0 || !g->read)
                continue;
            PUT("%s{\"name\":\"%s\",\"request_count\":%.0f,", tfirst ? "" : ",", g->tg,
                g->requests);
            if (isfinite(g->per_target_max))
                PUT("\"request_count_per_target_max\":%.0f}", g->per_target_max);
            else
                PUT("\"request_count_per_target_max\":null}");
            tfirst = 0;
        }
        PUT("]}");
    }
    PUT("]");
#undef PUT
    return 0;
}
