/* emulator/api_cloudwatch_widget.c: GetMetricWidgetImage (docs/cloudwatch.md). libscaler
 * reads the MetricWidget and fetches its series (scaler/widget.h); this file draws them with
 * the report's chart writer (common/svg.h) and, for png, rasterizes that SVG
 * (emulator/widget_png.h). */
#include "emulator/api_cloudwatch_ext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/buf.h"
#include "common/svg.h"
#include "common/xalloc.h"
#include "emulator/widget_png.h"
#include "scaler/widget.h"
#include "scaler/world.h"

#define IMAGE_MAX (8u << 20)

/* The value of series k at timestamp t in a stack: its own plus every earlier visible
 * series' value at t (those without a point at t add nothing). */
static double stacked_at(const struct sc_widget *w, int k, int64_t t)
{
    double sum = 0;

    for (int i = 0; i < k; i++) {
        const struct sc_widget_series *s = &w->series[i];
        if (s->right != w->series[k].right)
            continue;
        for (int j = 0; j < s->n; j++)
            if (s->ts_ms[j] == t && isfinite(s->values[j]))
                sum += s->values[j];
    }
    return sum;
}

/* yAxis.left/right: both ends given fix the range; one end pins that end and the other
 * covers the data [D: "min ... max" each optional]. */
static void axis_from(const struct sc_widget_axis *a, struct cm_svg_axis *out)
{
    out->label = a->label;
    out->scale = CM_SVG_NUMBER;
    if (a->has_min && a->has_max && a->min < a->max) {
        out->fixed = 1;
        out->min = a->min;
        out->max = a->max;
        return;
    }
    out->fix_min = a->has_min;
    out->min = a->min;
    out->fix_max = a->has_max && !(a->has_min && a->min >= a->max);
    out->max = a->max;
}

/* showUnits: the unit the series on one axis share, as the axis' title when it has no
 * label; NULL when they share none. */
static const char *axis_unit(const struct sc_widget *w, int right)
{
    const char *unit = NULL;

    for (int k = 0; k < w->n_series; k++) {
        const struct sc_widget_series *s = &w->series[k];
        if (s->right != right)
            continue;
        if (!s->unit || (unit && strcmp(unit, s->unit) != 0))
            return NULL;
        unit = s->unit;
    }
    return unit;
}

static enum cm_svg_legend_pos legend_pos(enum sc_widget_legend l)
{
    return l == SC_WIDGET_LEGEND_RIGHT    ? CM_SVG_LEGEND_RIGHT
           : l == SC_WIDGET_LEGEND_HIDDEN ? CM_SVG_LEGEND_NONE
                                          : CM_SVG_LEGEND_BOTTOM;
}

#define FILL_OPACITY 0.15 /* an annotation's fill, under the series */

static int draw_time_series(const struct sc_widget *w, const struct cm_svg_opts *base,
                            struct cm_buf *out)
{
    struct cm_svg_opts o = *base;
    struct cm_svg *c;
    double span_s = (double)(w->end_ms - w->start_ms) / 1000.0;
    /* `timezone`: every time is drawn shifted by the offset, so the clock axis' ticks fall
     * on the zone's round hours and read as its wall time. */
    double tz = (double)w->tz_offset_s;
    int rc;

    o.legend = legend_pos(w->legend);
    o.x.scale = CM_SVG_CLOCK;
    o.x.fixed = 1;
    o.x.min = (double)w->start_ms / 1000.0 + tz;
    o.x.max = (double)w->end_ms / 1000.0 + tz;
    axis_from(&w->left, &o.y);
    axis_from(&w->right, &o.y2);
    if (!o.y.label && w->left.show_units)
        o.y.label = axis_unit(w, 0);
    if (!o.y2.label && w->right.show_units)
        o.y2.label = axis_unit(w, 1);
    c = cm_svg_create(&o);
    for (int k = 0; k < w->n_series; k++) {
        const struct sc_widget_series *s = &w->series[k];
        double *x = cm_xcalloc((size_t)s->n + 1, sizeof(*x));
        double *y = cm_xcalloc((size_t)s->n + 1, sizeof(*y));

        for (int j = 0; j < s->n; j++) {
            x[j] = (double)s->ts_ms[j] / 1000.0 + tz;
            y[j] = s->values[j] + (w->stacked ? stacked_at(w, k, s->ts_ms[j]) : 0);
        }
        cm_svg_series(c, s->label, s->color, s->right ? CM_SVG_Y2 : CM_SVG_Y1,
                      s->n == 1 ? CM_SVG_POINTS : CM_SVG_LINE, x, y, (size_t)s->n);
        free(x);
        free(y);
    }
    for (int k = 0; k < w->n_hlines; k++) {
        const struct sc_widget_hline *h = &w->hlines[k];
        const char *col = h->color ? h->color : "#d62728";
        enum cm_svg_yaxis ax = h->right ? CM_SVG_Y2 : CM_SVG_Y1;

        if (h->band) {
            /* [D] a band: two values, the space between them filled */
            cm_svg_yband(c, h->label, col, 0.2, ax, fmin(h->y, h->y2), fmax(h->y, h->y2));
            continue;
        }
        if (h->fill) /* [D] fill "above" / "below": the line's side, to the plot's edge */
            cm_svg_yband(c, NULL, col, FILL_OPACITY, ax, h->y, h->fill == 1 ? INFINITY : -INFINITY);
        cm_svg_hline(c, h->label, col, ax, h->y);
    }
    for (int k = 0; k < w->n_vlines; k++) {
        const struct sc_widget_vline *v = &w->vlines[k];
        const char *col = v->color ? v->color : "#9467bd";
        double x0 = (double)v->t_ms / 1000.0 + tz;
        double x1 = v->band ? (double)v->t2_ms / 1000.0 + tz : x0;

        if (!v->band && v->fill) /* [D] fill "before" / "after": to the plot's edge */
            cm_svg_xband(c, NULL, col, FILL_OPACITY, x0, v->fill == 1 ? -INFINITY : INFINITY);
        if (!v->band) /* a line: one pixel's width of the plot */
            x1 = x0 + span_s / (w->width > 0 ? w->width : 600);
        cm_svg_xband(c, v->label, col, v->band ? 0.2 : 0.9, fmin(x0, x1), fmax(x0, x1));
    }
    rc = cm_svg_render(c, out);
    cm_svg_destroy(c);
    return rc;
}

static int draw_values(const struct sc_widget *w, const struct cm_svg_opts *base,
                       struct cm_buf *out)
{
    struct cm_svg_opts o = *base;
    struct cm_svg_value *v = cm_xcalloc((size_t)w->n_series + 1, sizeof(*v));
    enum cm_svg_values_kind kind = w->view == SC_WIDGET_PIE   ? CM_SVG_PIE
                                   : w->view == SC_WIDGET_BAR ? CM_SVG_BARS
                                                              : CM_SVG_NUMBERS;
    int rc;

    axis_from(&w->left, &o.y);
    for (int k = 0; k < w->n_series; k++) {
        v[k].name = w->series[k].label;
        v[k].color = w->series[k].color;
        v[k].value = sc_widget_series_value(&w->series[k]);
    }
    rc = cm_svg_values_render(&o, kind, v, (size_t)w->n_series, out);
    free(v);
    return rc;
}

int cw_widget_svg(struct sc_cw *cw, const char *widget_json, int64_t now_ms, const char *svg_id,
                  int *width, int *height, struct cm_buf *out, struct sc_error *err)
{
    struct sc_widget *w = NULL;
    struct cm_svg_opts o;
    enum sc_status st = sc_widget_create(cw, widget_json, now_ms, &w, err);
    int rc;

    if (st != SC_OK)
        return -1;
    memset(&o, 0, sizeof(o));
    o.id = svg_id;
    o.title = w->title;
    o.width_px = w->width;
    o.height_px = w->height;
    o.standalone = 1;
    rc = w->view == SC_WIDGET_TIME_SERIES ? draw_time_series(w, &o, out) : draw_values(w, &o, out);
    if (width)
        *width = w->width;
    if (height)
        *height = w->height;
    sc_widget_destroy(w);
    if (rc != 0) {
        sc_fail(err, SC_ERR_INVALID_PARAMETER_INPUT, "The widget image is too large");
        return -1;
    }
    return 0;
}

static int get_metric_widget_image(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    const char *fmt = api_str(in, "OutputFormat");
    struct sc_error se;
    struct cm_buf svg, png;
    char perr[256];
    char *b64 = NULL;
    int width = 0, height = 0, rc = -1;

    cm_buf_init(&svg, IMAGE_MAX);
    cm_buf_init(&png, IMAGE_MAX);
    if (!fmt)
        fmt = "png";
    if (strcmp(fmt, "png") != 0 && strcmp(fmt, "svg") != 0) {
        awserr_set(err, 400, "InvalidParameterValue",
                   "The OutputFormat %s is not supported; use png or svg", fmt);
        goto out;
    }
    if (cw_widget_svg(sc_world_cw(ctx->world), api_str(in, "MetricWidget"), ctx->now_ms, "widget",
                      &width, &height, &svg, &se) != 0) {
        rc = awserr_from_sc(err, &se);
        goto out;
    }
    if (strcmp(fmt, "png") == 0) {
        if (widget_png_render(svg.data, svg.len, width, height, &png, perr, sizeof(perr)) != 0) {
            awserr_set(err, 500, "InternalServiceError", "%s", perr);
            goto out;
        }
        b64 = cm_base64_encode(png.data, png.len);
    } else {
        b64 = cm_base64_encode(svg.data, svg.len);
    }
    *out = json_pack("{s:s}", "MetricWidgetImage", b64);
    rc = 0;
out:
    free(b64);
    cm_buf_cleanup(&svg);
    cm_buf_cleanup(&png);
    return rc;
}

const struct api_handler api_cloudwatch_widget_handlers[] = {
    { "GetMetricWidgetImage", get_metric_widget_image, 0 },
    { NULL, NULL, 0 },
};
