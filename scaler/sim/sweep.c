/* scaler/sim/sweep.c: the sweep's table, CSV, JSON and SVG (see sweep.h). */
#include "scaler/sim/sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/buf.h"
#include "common/svg.h"
#include "common/xalloc.h"

const char *const sim_sweep_columns[] = {
    "value",         "group",        "instance_hours", "under_pct", "over_pct", "time_under_pct",
    "time_over_pct", "unstable_pct", "failed_pct",     "p99_ms",    "expect",   NULL,
};

const char *const sim_sweep_legend[] = {
    "the swept parameter's value",
    "the Auto Scaling group",
    "cost: instance-hours billed (pending + InService + terminating + running warm-pool instances)",
    "under-provisioning accuracy (theta_U): missing capacity, % of demand, averaged over the run",
    "over-provisioning accuracy (theta_O): idle capacity, % of demand, averaged over the run",
    "under-provisioning timeshare (tau_U): % of the time with fewer instances than demand",
    "over-provisioning timeshare (tau_O): % of the time with more instances than demand",
    "instability (upsilon): % of the time supply and demand moved in different directions",
    "failed requests, % of all that ended (every group)",
    "p99 latency of completed requests, ms",
    "ok: every expectation held; FAIL: one failed",
    NULL,
};

/* The table's header: the same names, the parameter's own in the first column. */
static const char *const table_names[] = {
    NULL,      "group",     "inst-hours", "under%", "over%",  "t-under%",
    "t-over%", "unstable%", "failed%",    "p99-ms", "expect", NULL,
};

static double row_num(const struct sim_sweep_row *r, int col)
{
    switch (col) {
    case 0:
        return r->value;
    case 2:
        return r->instance_hours;
    case 3:
        return r->theta_u_pct;
    case 4:
        return r->theta_o_pct;
    case 5:
        return r->tau_u_pct;
    case 6:
        return r->tau_o_pct;
    case 7:
        return r->instability_pct;
    case 8:
        return r->failed_pct;
    case 9:
        return r->p99_ms;
    default:
        return NAN;
    }
}

void sim_sweep_print_table(FILE *f, const struct sim_sweep *s)
{
    int wg = 5, wp = (int)strlen(s->param) > 12 ? (int)strlen(s->param) : 12;

    for (int i = 0; i < s->nrows; i++)
        if ((int)strlen(s->rows[i].group) > wg)
            wg = (int)strlen(s->rows[i].group);
    fprintf(f, "%-*s %-*s %10s %8s %8s %9s %8s %10s %8s %9s %6s\n", wp, s->param, wg, "group",
            table_names[2], table_names[3], table_names[4], table_names[5], table_names[6],
            table_names[7], table_names[8], table_names[9], table_names[10]);
    for (int i = 0; i < s->nrows; i++) {
        const struct sim_sweep_row *r = &s->rows[i];
        fprintf(f, "%-*g %-*s %10.2f %8.2f %8.2f %9.2f %8.2f %10.2f %8.3f %9.1f %6s\n", wp,
                r->value, wg, r->group, r->instance_hours, r->theta_u_pct, r->theta_o_pct,
                r->tau_u_pct, r->tau_o_pct, r->instability_pct, r->failed_pct, r->p99_ms,
                r->expect_failed ? "FAIL" : "ok");
    }
    fprintf(f, "\n");
    if (s->defaulted)
        fprintf(f, "%s is not in the scenario: the sweep sets it over its default\n", s->param);
    for (int c = 2; table_names[c]; c++)
        fprintf(f, "  %-10s %s\n", table_names[c], sim_sweep_legend[c]);
}

void sim_sweep_print_csv(FILE *f, const struct sim_sweep *s)
{
    for (int c = 0; sim_sweep_columns[c]; c++)
        fprintf(f, "%s%s", c ? "," : "", sim_sweep_columns[c]);
    fprintf(f, "\n");
    for (int i = 0; i < s->nrows; i++) {
        const struct sim_sweep_row *r = &s->rows[i];
        /* group names are AWS names (no comma or quote), written as they are */
        fprintf(f, "%.17g,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f,%s\n", r->value, r->group,
                r->instance_hours, r->theta_u_pct, r->theta_o_pct, r->tau_u_pct, r->tau_o_pct,
                r->instability_pct, r->failed_pct, r->p99_ms, r->expect_failed ? "FAIL" : "ok");
    }
}

void sim_sweep_print_json(FILE *f, const struct sim_sweep *s)
{
    json_t *o = json_object(), *cols = json_object(), *rows = json_array();
    char *text;

    json_object_set_new(o, "param", json_string(s->param));
    json_object_set_new(o, "scenario", json_string(s->scenario ? s->scenario : ""));
    json_object_set_new(o, "defaulted", json_boolean(s->defaulted));
    for (int c = 0; sim_sweep_columns[c]; c++)
        json_object_set_new(cols, sim_sweep_columns[c], json_string(sim_sweep_legend[c]));
    json_object_set_new(o, "columns", cols);
    for (int i = 0; i < s->nrows; i++) {
        const struct sim_sweep_row *r = &s->rows[i];
        json_t *jr = json_object();
        for (int c = 0; sim_sweep_columns[c]; c++) {
            if (c == 1)
                json_object_set_new(jr, "group", json_string(r->group));
            else if (c == 10)
                json_object_set_new(jr, "expect", json_string(r->expect_failed ? "FAIL" : "ok"));
            else
                json_object_set_new(jr, sim_sweep_columns[c], json_real(row_num(r, c)));
        }
        json_array_append_new(rows, jr);
    }
    json_object_set_new(o, "rows", rows);
    text = json_dumps(o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    fprintf(f, "%s\n", text);
    free(text);
    json_decref(o);
}

int sim_sweep_write_svg(const char *path, const struct sim_sweep *s)
{
    struct cm_svg_opts so;
    struct cm_svg *chart;
    struct cm_buf b;
    double *x = cm_xcalloc((size_t)s->nrows + 1, sizeof(double));
    double *y = cm_xcalloc((size_t)s->nrows + 1, sizeof(double));
    const char *groups[64];
    int ngroups = 0, rc = 0;
    char title[256];
    FILE *f;

    for (int i = 0; i < s->nrows; i++) {
        int seen = 0;
        for (int g = 0; g < ngroups; g++)
            seen |= strcmp(groups[g], s->rows[i].group) == 0;
        if (!seen && ngroups < 64)
            groups[ngroups++] = s->rows[i].group;
    }
    memset(&so, 0, sizeof(so));
    snprintf(title, sizeof(title), "%s: sweep of %s", s->scenario ? s->scenario : "scenario",
             s->param);
    so.id = "sweep";
    so.title = title;
    so.standalone = 1;
    so.x.label = s->param;
    so.y.label = "% (under, over, time under, time over, unstable, failed)";
    so.y.include_zero = 1;
    so.y2.label = "instance-hours";
    so.y2.include_zero = 1;
    chart = cm_svg_create(&so);
    for (int g = 0; g < ngroups; g++) {
        for (int c = 2; c <= 8; c++) {
            size_t n = 0;
            char name[160];
            for (int i = 0; i < s->nrows; i++) {
                if (strcmp(s->rows[i].group, groups[g]) != 0)
                    continue;
                x[n] = s->rows[i].value;
                y[n] = row_num(&s->rows[i], c);
                n++;
            }
            snprintf(name, sizeof(name), "%s%s%s", ngroups > 1 ? groups[g] : "",
                     ngroups > 1 ? " " : "", table_names[c]);
            cm_svg_series(chart, name, NULL, c == 2 ? CM_SVG_Y2 : CM_SVG_Y1,
                          CM_SVG_POINTS | (c == 2 ? CM_SVG_DASHED : 0), x, y, n);
        }
    }
    cm_buf_init(&b, 4u << 20);
    if (cm_svg_render(chart, &b) != 0) {
        errno = ENOSPC;
        rc = -1;
        goto out;
    }
    f = fopen(path, "w");
    if (!f) {
        rc = -1;
        goto out;
    }
    if (fwrite(b.data, 1, b.len, f) != b.len)
        rc = -1;
    if (fclose(f) != 0)
        rc = -1;
out:
    cm_buf_cleanup(&b);
    cm_svg_destroy(chart);
    free(x);
    free(y);
    return rc;
}
