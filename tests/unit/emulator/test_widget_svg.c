/* tests/unit/emulator/test_widget_svg.c: GetMetricWidgetImage's drawing (cw_widget_svg in
 * emulator/api_cloudwatch_widget.c over common/svg): the legend's position, annotation
 * fills and bands, half-fixed y ranges, the timezone of the time axis and an alarm
 * annotation, each checked on the SVG's elements and coordinates. */
#include "emulator/api_cloudwatch_ext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "common/buf.h"
#include "scaler/alarm.h"
#include "scaler/cloudwatch.h"

#define T0  1767225600000LL /* 2026-01-01T00:00:00Z */
#define MIN 60000LL
#define NOW (T0 + 60 * MIN) /* 01:00 UTC */

/* App/Lat (H=a): 10, 11, ... 69 each minute of the hour before NOW. */
static struct sc_cw *cw_with_data(void)
{
    struct sc_cw_config c;
    struct sc_cw *cw;

    sc_cw_config_defaults(&c);
    c.start_ms = T0;
    cw = sc_cw_create(&c);
    assert_non_null(cw);
    for (int i = 0; i < 60; i++) {
        struct sc_dimension da = { "H", "a" };
        struct sc_metric_datum d = { .metric_name = "Lat",
                                     .dimensions = &da,
                                     .n_dimensions = 1,
                                     .has_value = 1,
                                     .value = 10 + i,
                                     .has_timestamp = 1,
                                     .timestamp_ms = T0 + i * MIN };
        struct sc_put_metric_data_req r = { "App", &d, 1, 0 };
        assert_int_equal(sc_cw_put_metric_data(cw, &r, NOW, NULL), SC_OK);
    }
    return cw;
}

static char *draw(struct sc_cw *cw, const char *json)
{
    struct cm_buf b;
    struct sc_error err;

    cm_buf_init(&b, 0);
    if (cw_widget_svg(cw, json, NOW, "w", NULL, NULL, &b, &err) != 0)
        fail_msg("%s: %s", json, err.message);
    return cm_buf_take(&b, NULL);
}

/* The plot frame (x, y, width, height): the rect with stroke #888. */
static void plot_frame(const char *svg, double f[4])
{
    const char *p = strstr(svg, "fill=\"none\" stroke=\"#888\"/>"), *r = p;

    assert_non_null(p);
    while (r > svg && strncmp(r, "<rect x=", 8) != 0)
        r--;
    assert_int_equal(sscanf(r, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &f[0],
                            &f[1], &f[2], &f[3]),
                     4);
}

/* The first band rect filled with color (x, y, width, height); 0 when there is none. */
static int band(const char *svg, const char *color, double b[4])
{
    char key[64];

    snprintf(key, sizeof(key), "fill=\"%s\" fill-opacity", color);
    for (const char *p = strstr(svg, "<rect class=\"band\""); p;
         p = strstr(p + 1, "<rect class=\"band\"")) {
        const char *f = strstr(p, key), *end = strchr(p, '>');
        if (!f || f > end)
            continue;
        assert_int_equal(sscanf(p,
                                "<rect class=\"band\" x=\"%lf\" y=\"%lf\" width=\"%lf\" "
                                "height=\"%lf\"",
                                &b[0], &b[1], &b[2], &b[3]),
                         4);
        return 1;
    }
    return 0;
}

static void legend_origin(const char *svg, double *x, double *y)
{
    const char *g = strstr(svg, "<g class=\"legend\">");

    *x = *y = -1;
    if (!g)
        return;
    assert_int_equal(
        sscanf(g + strlen("<g class=\"legend\">"), "<line x1=\"%lf\" y1=\"%lf\"", x, y), 2);
}

#define LAT "\"metrics\":[[\"App\",\"Lat\",\"H\",\"a\",{\"label\":\"lat a\"}]]"

/* legend.position: bottom (default) under the plot, right in a column right of it, hidden
 * none. */
static void test_widget_svg_legend_position(void **state)
{
    struct sc_cw *cw = cw_with_data();
    char *bottom = draw(cw, "{" LAT "}");
    char *right = draw(cw, "{" LAT ",\"legend\":{\"position\":\"right\"}}");
    char *hidden = draw(cw, "{" LAT ",\"legend\":{\"position\":\"hidden\"}}");
    double f[4], x, y;

    (void)state;
    plot_frame(bottom, f);
    legend_origin(bottom, &x, &y);
    assert_true(y > f[1] + f[3]);
    plot_frame(right, f);
    legend_origin(right, &x, &y);
    assert_true(x > f[0] + f[2]);
    assert_true(y < f[1] + f[3]);
    assert_non_null(strstr(right, ">lat a</text>"));
    assert_null(strstr(hidden, "class=\"legend\""));
    free(bottom);
    free(right);
    free(hidden);
    sc_cw_destroy(cw);
}

/* On a fixed 0..100 axis: fill above 50 covers the plot's top half, fill below 25 its
 * bottom quarter, a band 20..40 a fifth of it, a hidden annotation nothing. */
static void test_widget_svg_horizontal_fill_and_band(void **state)
{
    struct sc_cw *cw = cw_with_data();
    char *s = draw(cw, "{" LAT ",\"yAxis\":{\"left\":{\"min\":0,\"max\":100}},"
                       "\"annotations\":{\"horizontal\":["
                       "{\"value\":50,\"fill\":\"above\",\"color\":\"#aa0000\",\"label\":\"hot\"},"
                       "{\"value\":25,\"fill\":\"below\",\"color\":\"#00aa00\"},"
                       "[{\"value\":20,\"color\":\"#0000aa\",\"label\":\"ok\"},{\"value\":40}],"
                       "{\"value\":90,\"color\":\"#abcdef\",\"visible\":false}]}}");
    double f[4], b[4];

    (void)state;
    plot_frame(s, f);
    assert_true(band(s, "#aa0000", b));
    assert_true(b[0] == f[0] && b[1] == f[1] && b[2] == f[2]);
    assert_true(fabs(b[3] - f[3] * 0.5) < 0.11);
    assert_non_null(strstr(s, "<line class=\"threshold\"")); /* the line itself */
    assert_non_null(strstr(s, ">hot</text>"));
    assert_true(band(s, "#00aa00", b));
    assert_true(fabs(b[1] - (f[1] + f[3] * 0.75)) < 0.11);
    assert_true(fabs(b[1] + b[3] - (f[1] + f[3])) < 0.11);
    assert_true(band(s, "#0000aa", b));
    assert_true(fabs(b[1] - (f[1] + f[3] * 0.6)) < 0.11);
    assert_true(fabs(b[3] - f[3] * 0.2) < 0.11);
    assert_null(strstr(s, "#abcdef"));
    free(s);
    sc_cw_destroy(cw);
}

/* Over 00:00..01:00: fill before 00:15 covers the first quarter of the plot, fill after
 * 00:45 the last, a band 00:30..00:45 a quarter in the middle. */
static void test_widget_svg_vertical_fill_and_band(void **state)
{
    struct sc_cw *cw = cw_with_data();
    char *s =
        draw(cw, "{" LAT ",\"start\":\"2026-01-01T00:00:00Z\",\"end\":\"2026-01-01T01:00:00Z\","
                 "\"annotations\":{\"vertical\":["
                 "{\"value\":\"2026-01-01T00:15:00Z\",\"fill\":\"before\",\"color\":\"#aa0000\"},"
                 "{\"value\":\"2026-01-01T00:45:00Z\",\"fill\":\"after\",\"color\":\"#00aa00\"},"
                 "[{\"value\":\"2026-01-01T00:30:00Z\",\"color\":\"#0000aa\"},"
                 "{\"value\":\"2026-01-01T00:45:00Z\"}]]}}");
    double f[4], b[4];

    (void)state;
    plot_frame(s, f);
    assert_true(band(s, "#aa0000", b)); /* the fill (the line comes after it) */
    assert_true(b[0] == f[0] && fabs(b[2] - f[2] / 4) < 0.11 && b[3] == f[3]);
    assert_true(band(s, "#00aa00", b));
    assert_true(fabs(b[0] - (f[0] + f[2] * 0.75)) < 0.11 && fabs(b[2] - f[2] / 4) < 0.11);
    assert_true(band(s, "#0000aa", b));
    assert_true(fabs(b[0] - (f[0] + f[2] * 0.5)) < 0.11 && fabs(b[2] - f[2] / 4) < 0.11);
    free(s);
    sc_cw_destroy(cw);
}

/* The left axis' range: the values at the plot's bottom and top, read from two of its
 * tick labels (value, y) and the frame. */
static void y_range(const char *svg, double *lo, double *hi)
{
    const char *p = svg;
    double v[2], y[2], f[4];
    int n = 0;

    while (n < 2 && (p = strstr(p, "\" text-anchor=\"end\">")) != NULL) {
        const char *q = p;
        while (strncmp(q, " y=\"", 4) != 0)
            q--;
        assert_int_equal(sscanf(q, " y=\"%lf\"", &y[n]), 1);
        p += strlen("\" text-anchor=\"end\">");
        assert_int_equal(sscanf(p, "%lf", &v[n]), 1);
        y[n] -= 4; /* labels sit 4 px under their tick */
        n++;
    }
    assert_int_equal(n, 2);
    plot_frame(svg, f);
    *lo = v[0] + (y[0] - (f[1] + f[3])) * (v[1] - v[0]) / (y[0] - y[1]);
    *hi = v[0] + (y[0] - f[1]) * (v[1] - v[0]) / (y[0] - y[1]);
}

/* yAxis.left.min alone pins the low end (data 10..69), max alone the high end; label and
 * showUnits false are read. */
static void test_widget_svg_partial_y_range(void **state)
{
    struct sc_cw *cw = cw_with_data();
    char *lo = draw(cw, "{" LAT ",\"start\":\"-PT1H\",\"yAxis\":{\"left\":{\"min\":5,"
                        "\"label\":\"ms\",\"showUnits\":false}}}");
    char *hi = draw(cw, "{" LAT ",\"start\":\"-PT1H\",\"yAxis\":{\"left\":{\"max\":200}}}");
    double a, b;

    (void)state;
    y_range(lo, &a, &b);
    assert_true(fabs(a - 5) < 0.2);
    assert_true(b >= 65); /* the data's 5-minute averages reach 67 */
    assert_non_null(strstr(lo, ">ms</text>"));
    y_range(hi, &a, &b);
    assert_true(fabs(b - 200) < 0.5);
    assert_true(a <= 12 && a >= 0);
    free(lo);
    free(hi);
    sc_cw_destroy(cw);
}

/* The x of the time axis' tick labelled text, or -1. */
static double x_tick(const char *svg, const char *text)
{
    char key[32];
    const char *p, *q;
    double x;

    snprintf(key, sizeof(key), "text-anchor=\"middle\">%s</text>", text);
    p = strstr(svg, key);
    if (!p)
        return -1;
    q = p;
    while (strncmp(q, "<text x=\"", 9) != 0)
        q--;
    assert_int_equal(sscanf(q, "<text x=\"%lf\"", &x), 1);
    return x;
}

/* timezone shifts the time axis: 22:00..01:00 UTC reads 23:30..02:30 at +0130, its ticks
 * on the zone's round hours (00:00 there is 22:30 UTC, a sixth into the plot), and
 * 17:00..20:00 at -0500; the series stays at the same pixels; LOCAL draws UTC. */
static void test_widget_svg_timezone_labels(void **state)
{
    struct sc_cw *cw = cw_with_data();
    char *utc = draw(cw, "{" LAT "}");
    char *plus = draw(cw, "{" LAT ",\"timezone\":\"+0130\"}");
    char *minus = draw(cw, "{" LAT ",\"timezone\":\"-0500\"}");
    char *local = draw(cw, "{" LAT ",\"timezone\":\"LOCAL\"}");
    const char *a, *b;
    double f[4];

    (void)state;
    plot_frame(utc, f);
    assert_true(x_tick(utc, "22:00") == f[0]);
    assert_true(fabs(x_tick(utc, "01:00") - (f[0] + f[2])) < 0.11);
    assert_true(x_tick(plus, "22:00") < 0);
    assert_true(x_tick(plus, "23:00") < 0);
    assert_true(fabs(x_tick(plus, "00:00") - (f[0] + f[2] / 6)) < 0.11);
    assert_true(fabs(x_tick(plus, "02:00") - (f[0] + f[2] * 5 / 6)) < 0.11);
    assert_true(x_tick(minus, "17:00") == f[0]);
    assert_true(fabs(x_tick(minus, "20:00") - (f[0] + f[2])) < 0.11);
    a = strstr(utc, "<path class=\"series\"");
    b = strstr(plus, "<path class=\"series\"");
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(strcspn(a, ">"), strcspn(b, ">"));
    assert_memory_equal(a, b, strcspn(a, ">")); /* same pixels */
    assert_string_equal(local, utc);
    free(utc);
    free(plus);
    free(minus);
    free(local);
    sc_cw_destroy(cw);
}

/* An alarm annotation alone: the alarm's metric drawn, its threshold a dashed line with
 * the console's wording, the alarm's side (above for GreaterThan) filled red. */
static void test_widget_svg_alarm_annotation(void **state)
{
    struct sc_cw *cw = cw_with_data();
    struct sc_dimension d = { "H", "a" };
    struct sc_put_metric_alarm_req r = { 0 };
    struct sc_error err;
    char json[512], *s;
    double f[4], b[4];

    (void)state;
    r.alarm_name = "lat-high";
    r.namespace = "App";
    r.metric_name = "Lat";
    r.statistic = "Average";
    r.dimensions = &d;
    r.n_dimensions = 1;
    r.has_period = 1;
    r.period = 60;
    r.has_evaluation_periods = 1;
    r.evaluation_periods = 3;
    r.has_threshold = 1;
    r.threshold = 50;
    r.comparison_operator = "GreaterThanOrEqualToThreshold";
    assert_int_equal(sc_cw_put_metric_alarm(cw, &r, NOW, &err), SC_OK);
    snprintf(json, sizeof(json),
             "{\"annotations\":{\"alarms\":[\"%s\"]},\"start\":\"-PT1H\","
             "\"yAxis\":{\"left\":{\"min\":0,\"max\":100}}}",
             sc_cw_alarm_find(cw, "lat-high")->alarm_arn);
    s = draw(cw, json);
    plot_frame(s, f);
    assert_non_null(strstr(s, "<path class=\"series\""));
    assert_non_null(strstr(s, "<line class=\"threshold\""));
    assert_non_null(strstr(s, ">Lat &gt;= 50 for 3 datapoints within 3 minutes</text>"));
    assert_true(band(s, "#d62728", b));
    assert_true(b[1] == f[1] && fabs(b[3] - f[3] / 2) < 0.11);
    free(s);
    sc_cw_destroy(cw);
}

/* showUnits (default true): the unit the axis' series share titles the axis when it has no
 * label; false, a label, mixed units or an expression leave no unit. */
static void test_widget_svg_show_units(void **state)
{
    struct sc_cw *cw = cw_with_data();
    char *on, *off, *labelled, *mixed;

    (void)state;
    for (int i = 0; i < 10; i++) {
        struct sc_metric_datum d = { .metric_name = "Time",
                                     .unit = "Milliseconds",
                                     .has_value = 1,
                                     .value = i,
                                     .has_timestamp = 1,
                                     .timestamp_ms = NOW - (10 - i) * MIN };
        struct sc_put_metric_data_req r = { "App", &d, 1, 0 };
        assert_int_equal(sc_cw_put_metric_data(cw, &r, NOW, NULL), SC_OK);
    }
    on = draw(cw, "{\"metrics\":[[\"App\",\"Time\"]]}");
    off = draw(cw, "{\"metrics\":[[\"App\",\"Time\"]],\"yAxis\":{\"left\":{\"showUnits\":false}}}");
    labelled =
        draw(cw, "{\"metrics\":[[\"App\",\"Time\"]],\"yAxis\":{\"left\":{\"label\":\"lag\"}}}");
    mixed = draw(cw, "{\"metrics\":[[\"App\",\"Time\"],[\"App\",\"Lat\",\"H\",\"a\"]]}");
    assert_non_null(strstr(on, "class=\"axis-label\""));
    assert_non_null(strstr(on, ">Milliseconds</text>"));
    assert_null(strstr(off, "Milliseconds"));
    assert_null(strstr(labelled, "Milliseconds"));
    assert_non_null(strstr(labelled, ">lag</text>"));
    assert_null(strstr(mixed, "Milliseconds"));
    free(on);
    free(off);
    free(labelled);
    free(mixed);
    sc_cw_destroy(cw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widget_svg_legend_position),
        cmocka_unit_test(test_widget_svg_horizontal_fill_and_band),
        cmocka_unit_test(test_widget_svg_vertical_fill_and_band),
        cmocka_unit_test(test_widget_svg_partial_y_range),
        cmocka_unit_test(test_widget_svg_timezone_labels),
        cmocka_unit_test(test_widget_svg_alarm_annotation),
        cmocka_unit_test(test_widget_svg_show_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
