/* common/svg.h: a small deterministic SVG chart writer (line and step series, bands,
 * threshold lines, markers with tooltips, two y-axes, time and numeric axes, legends).
 *
 * Used by the simulator's HTML report, loadgen's scenario report and loadgen's rate-sweep
 * plot. A chart is built by calls that copy what they are given (names, colours, data),
 * then rendered into a struct cm_buf as one <svg> element (optionally with an XML
 * prolog, for a standalone .svg file). No JavaScript, no external resources: tooltips
 * are SVG <title> children, which browsers show on hover.
 *
 * Deterministic: the same calls give the same bytes. Numbers are printed with printf
 * in the C locale (programs never call setlocale for LC_NUMERIC). Non-finite y values
 * (NAN) break a line into separate runs; non-finite x values are skipped.
 *
 * Sizes: a series with more points than the plot has pixel columns is reduced, per
 * column, to its first, minimum, maximum and last points (shape kept to the pixel), so
 * the output stays bounded by the chart's width whatever the input length.
 *
 * Ownership: every string and array passed in is copied; the chart owns its copies and
 * frees them in cm_svg_destroy(). Allocation aborts on OOM (cm_xmalloc), as programs do.
 * Single-threaded. */
#ifndef COMMON_SVG_H
#define COMMON_SVG_H

#include <stddef.h>

#include "common/buf.h"

/* How an axis labels its ticks. */
enum cm_svg_scale {
    CM_SVG_NUMBER = 0, /* plain numbers: 0, 2.5, 10k, 1.5M */
    CM_SVG_TIME = 1,   /* values are seconds: ticks on 1/2/5/10/15/30 s, minutes, hours,
                          days, labelled "0", "30s", "5m", "1h30m", "2d" */
    CM_SVG_CLOCK = 2,  /* values are epoch seconds: ticks as CM_SVG_TIME's, labelled with the
                          UTC time of day "14:05" ("14:05:30" below a minute, "06-01" for
                          steps of a day or more) */
};

struct cm_svg_axis {
    const char *label;       /* axis title, or NULL */
    enum cm_svg_scale scale; /* CM_SVG_NUMBER unless set */
    /* Range: when fixed is 0, the range covers the data (and the bands, lines and
     * markers placed on this axis); a CM_SVG_NUMBER range is then widened to whole tick
     * steps (a CM_SVG_TIME range is kept exact, so the run fills the plot);
     * include_zero pulls it to 0. When fixed is 1, [min, max] is used as given
     * (min < max). */
    int fixed;
    double min, max;
    int include_zero;
    /* Half-fixed ranges (CloudWatch's yAxis with only min or only max): when fixed is 0,
     * fix_min pins the low end at min and fix_max the high end at max; the other end still
     * covers the data (and is widened to a whole tick step). A pinned end the data cross is
     * kept: what lies beyond it is clipped. */
    int fix_min, fix_max;
    /* Labels the ticks (value, out, outlen) instead of the scale's format (the steps stay
     * the scale's): a caller's one format for its values, e.g. the simulator's elapsed
     * time "1d05:33:00". NULL: the scale's. */
    void (*tick_label)(double v, char *out, size_t outlen);
};

/* Where the legend goes. */
enum cm_svg_legend_pos {
    CM_SVG_LEGEND_TOP = 0, /* rows under the title, above the plot (the report's) */
    CM_SVG_LEGEND_BOTTOM,  /* rows under the x axis */
    CM_SVG_LEGEND_RIGHT,   /* one entry a row, in a column right of the plot */
    CM_SVG_LEGEND_NONE,    /* no legend and no room kept for it */
};

struct cm_svg_opts {
    const char *id;    /* unique per page (used in clipPath ids); NULL: "chart" */
    const char *title; /* drawn above the plot and as the <svg>'s <title>; may be NULL */
    int width_px;      /* 0: 900 */
    int height_px;     /* 0: 320 */
    int standalone;    /* 1: emit an XML prolog (for a .svg file) */
    int reserve_y2;    /* 1: keep the right axis' margin even when nothing uses it, so
                          charts stacked on a page share their x pixels */
    enum cm_svg_legend_pos legend; /* CM_SVG_LEGEND_TOP unless set */
    struct cm_svg_axis x;
    struct cm_svg_axis y;  /* left */
    struct cm_svg_axis y2; /* right; drawn only when something is placed on it */
};

/* Which y-axis a series, band or marker belongs to. */
enum cm_svg_yaxis {
    CM_SVG_Y1 = 0,
    CM_SVG_Y2 = 1,
};

/* Series style flags (OR them). */
enum cm_svg_style {
    CM_SVG_LINE = 0,        /* straight segments between points */
    CM_SVG_STEP = 1 << 0,   /* a step function: each value holds until the next x */
    CM_SVG_DASHED = 1 << 1, /* dashed stroke */
    CM_SVG_POINTS = 1 << 2, /* a dot at each point (as gnuplot's linespoints) */
    CM_SVG_THICK = 1 << 3,  /* 2.5 px instead of 1.5 px */
    CM_SVG_NOLEGEND = 1 << 4,
};

struct cm_svg; /* opaque: a chart being built */

/* Creates an empty chart. opts is copied (strings too). Never NULL. */
struct cm_svg *cm_svg_create(const struct cm_svg_opts *opts);
void cm_svg_destroy(struct cm_svg *c); /* NULL is a no-op */

/* Adds a series of n points (x[i], y[i]); x should not decrease (points are drawn in the
 * order given). name (legend entry, may be NULL) and color (any SVG colour; NULL picks
 * cm_svg_palette(series index)) are copied. Returns the series index. */
int cm_svg_series(struct cm_svg *c, const char *name, const char *color, enum cm_svg_yaxis axis,
                  int style, const double *x, const double *y, size_t n);

/* A filled vertical span [x0, x1] over the whole plot height (alarm state spans). Spans
 * sharing a name share one legend entry. opacity in (0, 1]. An infinite end (-INFINITY,
 * INFINITY) reaches the plot's edge and leaves the range alone (an annotation's fill
 * before or after a time); a NAN end draws nothing. cm_svg_yband alike. */
void cm_svg_xband(struct cm_svg *c, const char *name, const char *color, double opacity, double x0,
                  double x1);
/* A filled horizontal band [y0, y1] on an axis, across the whole plot width. */
void cm_svg_yband(struct cm_svg *c, const char *name, const char *color, double opacity,
                  enum cm_svg_yaxis axis, double y0, double y1);
/* A horizontal line at y (thresholds), dashed, labelled at its right end with name. */
void cm_svg_hline(struct cm_svg *c, const char *name, const char *color, enum cm_svg_yaxis axis,
                  double y);

enum cm_svg_shape {
    CM_SVG_CIRCLE = 0,
    CM_SVG_TRIANGLE_UP = 1,
    CM_SVG_TRIANGLE_DOWN = 2,
    CM_SVG_DIAMOND = 3,
};

/* A marker at (x, y) with a hover tooltip (copied, may be NULL). y NAN places it on a
 * rail in a strip just above the plot (activity and fault markers), where it never
 * hides the data. legend names the
 * marker kind in the legend (markers sharing a legend name share one entry; NULL for
 * none). */
void cm_svg_marker(struct cm_svg *c, const char *legend, const char *color, enum cm_svg_shape shape,
                   enum cm_svg_yaxis axis, double x, double y, const char *tooltip);

/* Appends the chart as one <svg> element (with prolog when standalone). Returns 0, or
 * -1 when the buffer's cap is hit (the buffer then holds a partial chart). */
int cm_svg_render(const struct cm_svg *c, struct cm_buf *out);

/* A value chart: one value per named item (CloudWatch's singleValue, bar and pie views),
 * drawn in the same frame, fonts and palette as the line charts. */
enum cm_svg_values_kind {
    CM_SVG_NUMBERS = 0, /* each value as a large number under its name */
    CM_SVG_BARS = 1,    /* vertical bars from 0 on a numeric axis */
    CM_SVG_PIE = 2,     /* a pie of the positive values, with a legend */
};
struct cm_svg_value {
    const char *name;  /* may be NULL */
    const char *color; /* NULL: cm_svg_palette(index) */
    double value;      /* NAN: shown as "-" (no data), left out of bars and pie */
};
/* Appends the chart of n values as one <svg> element; opts as for cm_svg_create (title,
 * size, standalone, id; opts->y's label, fixed range and include_zero for bars). Returns
 * 0, or -1 when the buffer's cap is hit. */
int cm_svg_values_render(const struct cm_svg_opts *opts, enum cm_svg_values_kind kind,
                         const struct cm_svg_value *v, size_t n, struct cm_buf *out);

/* Helpers, public for tests and for callers that write their own markup. */

/* Appends s with &, <, >, " and ' escaped; control characters other than tab and
 * newline become spaces and invalid UTF-8 bytes become U+FFFD, so the result is always
 * well-formed XML text or attribute content. NULL appends nothing. Returns 0 or -1. */
int cm_svg_escape(struct cm_buf *out, const char *s);

/* The i-th colour of the default palette (cycles; colour-blind-safe hues). */
const char *cm_svg_palette(int i);

/* Chooses ticks for [lo, hi] with at most max_ticks ticks: step is 1, 2 or 5 times a
 * power of ten (for CM_SVG_TIME, a clock-friendly step: 1 2 5 10 15 30 s, 1 2 5 10 15 30
 * min, 1 2 3 6 12 h, 1 2 7 d...). Writes the step and the first tick at or above lo, and
 * returns the tick count (0 when the range is empty or not finite). */
int cm_svg_ticks(double lo, double hi, int max_ticks, enum cm_svg_scale scale, double *step,
                 double *first);

/* Formats a tick value: numbers with just the decimals step needs ("0.25", "10k",
 * "1.5M"); times as a compact duration ("0", "45s", "1m30s", "2h", "1d6h"). */
void cm_svg_format_tick(double v, double step, enum cm_svg_scale scale, char *out, size_t outlen);

#endif
