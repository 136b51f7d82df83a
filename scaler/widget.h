/* scaler/widget.h: GetMetricWidgetImage's MetricWidget (docs/cloudwatch.md
 * "GetMetricWidgetImage"): the JSON read and checked with AWS's structure, its metrics and
 * math expressions fetched through GetMetricData over the world's metric store, and the
 * result as plain data a chart writer draws (the emulator draws it with common/svg). No
 * drawing here: libscaler knows no image format.
 *
 * Ownership: sc_widget_create() returns a widget the caller frees with
 * sc_widget_destroy(); every string and array in it is the widget's own. */
#ifndef SCALER_WIDGET_H
#define SCALER_WIDGET_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/status.h"

struct sc_cw;

#define SC_WIDGET_MAX_METRICS 100 /* [D] "As many as 100 metrics in the graph" */

enum sc_widget_view {
    SC_WIDGET_TIME_SERIES = 0,
    SC_WIDGET_SINGLE_VALUE,
    SC_WIDGET_BAR,
    SC_WIDGET_PIE,
};

enum sc_widget_legend {
    SC_WIDGET_LEGEND_BOTTOM = 0,
    SC_WIDGET_LEGEND_RIGHT,
    SC_WIDGET_LEGEND_HIDDEN,
};

/* One drawn series: a visible metric, or one series of a visible expression. */
struct sc_widget_series {
    char *id;
    char *label;
    char *color; /* "#rrggbb" as given, or NULL (the palette's) */
    int right;   /* 1: on the right y-axis */
    /* the metric's unit ("Percent", static) when it has one unit other than None; NULL for
     * an expression, no unit or several */
    const char *unit;
    int n;
    int64_t *ts_ms; /* ascending */
    double *values;
};

/* A horizontal annotation: a line at y, or with band a band [y, y2]. An alarm
 * annotation's threshold is one too (alarm 1, its fill on the alarm's side). */
struct sc_widget_hline {
    double y, y2;
    int band;
    int right;
    int fill; /* 0 none, 1 above, 2 below */
    int alarm;
    char *label, *color;
};

/* A vertical annotation: a line at t, or with band a band [t, t2]. */
struct sc_widget_vline {
    int64_t t_ms, t2_ms;
    int band;
    int fill; /* 0 none, 1 before, 2 after */
    char *label, *color;
};

struct sc_widget_axis {
    int has_min, has_max;
    double min, max;
    char *label;
    int show_units; /* default 1 */
};

struct sc_widget {
    enum sc_widget_view view;
    enum sc_widget_legend legend;
    int stacked;
    int width, height; /* pixels, default 600 x 400 */
    char *title;       /* NULL when none */
    int64_t start_ms, end_ms;
    int period_s;
    int period_to_range; /* setPeriodToTimeRange */
    struct sc_widget_axis left, right;
    struct sc_widget_series *series;
    int n_series;
    struct sc_widget_hline *hlines;
    int n_hlines;
    struct sc_widget_vline *vlines;
    int n_vlines;
    /* `timezone`: the offset from UTC the time axis is labelled in ("+0130": 5400; "LOCAL"
     * and none: 0, the emulator renders in UTC) */
    int tz_offset_s;
    /* `annotations.alarms`: the alarm graphed (its ARN and name; NULL when none) and its
     * state when the widget was read */
    char *alarm_arn, *alarm_name;
    const char *alarm_state; /* "OK", "ALARM", "INSUFFICIENT_DATA" (static) */
};

/* Reads widget_json (MetricWidget) and fetches its data from cw at now_ms. A widget that
 * does not follow AWS's structure answers InvalidParameterInput with the message of the
 * first fault (docs/cloudwatch.md's table); a math error answers as GetMetricData does.
 * Returns SC_OK with *out set, or an error with *out NULL. */
enum sc_status sc_widget_create(struct sc_cw *cw, const char *widget_json, int64_t now_ms,
                                struct sc_widget **out, struct sc_error *err);
void sc_widget_destroy(struct sc_widget *w); /* NULL is a no-op */

/* The value a singleValue, bar or pie view shows for series s: the most recent value
 * (NAN when the series is empty). */
double sc_widget_series_value(const struct sc_widget_series *s);

/* Reads a widget time: ISO 8601 ("2018-04-25T12:00:00.000Z") or a duration before now_ms
 * ("-PT3H", "-P1D", "-PT5M", "-P1W"). Returns 0, or -1 when malformed. */
int sc_widget_parse_time(const char *s, int64_t now_ms, int64_t *out_ms);

/* Reads a widget `timezone`: "+HHMM" / "-HHMM" (hours 00..23, minutes 00..59) into
 * seconds east of UTC, "LOCAL" into 0 (the emulator draws in UTC). Returns 0, or -1. */
int sc_widget_parse_timezone(const char *s, int *out_s);

/* The legend of an alarm's threshold line, as the console's alarm graph words it:
 * "CPUUtilization >= 70 for 3 datapoints within 15 minutes" (metric name, comparison,
 * threshold, DatapointsToAlarm, EvaluationPeriods x Period). Writes out (outlen bytes). */
void sc_widget_alarm_label(const char *metric, const char *comparison, double threshold,
                           int datapoints, int evaluation_periods, int period_s, char *out,
                           size_t outlen);

#endif
