/* tests/unit/common/test_svg.c: common/svg.c */
#include "common/svg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "common/buf.h"

static char *escaped(const char *s)
{
    struct cm_buf b;

    cm_buf_init(&b, 0);
    assert_int_equal(cm_svg_escape(&b, s), 0);
    return cm_buf_take(&b, NULL);
}

static void test_svg_escape_markup_and_quotes(void **state)
{
    char *s;

    (void)state;
    s = escaped("a<b & \"c\" > 'd'");
    assert_string_equal(s, "a&lt;b &amp; &quot;c&quot; &gt; &#39;d&#39;");
    free(s);
    /* Already-escaped text is escaped again: the writer never guesses. */
    s = escaped("&amp;");
    assert_string_equal(s, "&amp;amp;");
    free(s);
    s = escaped(NULL);
    assert_string_equal(s, "");
    free(s);
}

static void test_svg_escape_controls_and_bad_utf8(void **state)
{
    char *s;

    (void)state;
    s = escaped("a\x01"
                "b\tc\nd\x7f");
    assert_string_equal(s, "a b\tc\nd ");
    free(s);
    /* Valid multibyte text passes through unchanged. */
    s = escaped("\xce\xbc"
                "s \xe2\x86\x92 ok \xf0\x9f\x93\x88");
    assert_string_equal(s, "\xce\xbc"
                           "s \xe2\x86\x92 ok \xf0\x9f\x93\x88");
    free(s);
    /* A lone continuation byte, a truncated sequence, an overlong form and a surrogate
     * each become U+FFFD. */
    s = escaped("x\x80y\xe2\x86z\xc0\xafw\xed\xa0\x80");
    assert_string_equal(s, "x\xef\xbf\xbdy\xef\xbf\xbd\xef\xbf\xbdz\xef\xbf\xbd\xef\xbf\xbdw"
                           "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    free(s);
}

static void test_svg_ticks_numbers(void **state)
{
    double step, first;
    int n;

    (void)state;
    n = cm_svg_ticks(0, 10, 6, CM_SVG_NUMBER, &step, &first);
    assert_true(step == 2.0);
    assert_true(first == 0.0);
    assert_int_equal(n, 6);
    n = cm_svg_ticks(0, 100, 6, CM_SVG_NUMBER, &step, &first);
    assert_true(step == 20.0);
    assert_int_equal(n, 6);
    n = cm_svg_ticks(3, 97, 5, CM_SVG_NUMBER, &step, &first);
    assert_true(step == 50.0);
    assert_true(first == 50.0);
    assert_int_equal(n, 1);
    n = cm_svg_ticks(0, 1, 5, CM_SVG_NUMBER, &step, &first);
    assert_true(fabs(step - 0.5) < 1e-12);
    assert_int_equal(n, 3);
    n = cm_svg_ticks(0.013, 0.087, 8, CM_SVG_NUMBER, &step, &first);
    assert_true(fabs(step - 0.02) < 1e-12); /* 0.01 would give 8 ticks */
    assert_true(fabs(first - 0.02) < 1e-12);
    assert_int_equal(n, 4);
    n = cm_svg_ticks(-45, 45, 7, CM_SVG_NUMBER, &step, &first);
    assert_true(step == 20.0);
    assert_true(first == -40.0);
    assert_int_equal(n, 5);
    /* Empty and non-finite ranges give no ticks. */
    assert_int_equal(cm_svg_ticks(5, 5, 6, CM_SVG_NUMBER, &step, &first), 0);
    assert_int_equal(cm_svg_ticks(7, 5, 6, CM_SVG_NUMBER, &step, &first), 0);
    assert_int_equal(cm_svg_ticks(0, INFINITY, 6, CM_SVG_NUMBER, &step, &first), 0);
    assert_int_equal(cm_svg_ticks(NAN, 1, 6, CM_SVG_NUMBER, &step, &first), 0);
    /* Never more ticks than asked, whatever the range; at least one from 4 asked (a
     * nice step is under 2.5 times the raw one). */
    for (int k = 1; k < 2000; k += 7) {
        for (int mt = 2; mt < 12; mt++) {
            n = cm_svg_ticks(0.37 * k, 1.91 * k + 3, mt, CM_SVG_NUMBER, &step, &first);
            assert_true(n <= mt);
            assert_true(mt < 4 || n >= 1);
        }
    }
}

static void test_svg_ticks_time(void **state)
{
    double step, first;
    int n;

    (void)state;
    /* 30 hours over 10 ticks: 3 h steps (clock-friendly, not 2.5 h or 5 h). */
    n = cm_svg_ticks(0, 30 * 3600.0, 11, CM_SVG_TIME, &step, &first);
    assert_true(step == 3 * 3600.0);
    assert_int_equal(n, 11);
    /* 10 minutes over 6 ticks: 2 min. */
    n = cm_svg_ticks(0, 600, 6, CM_SVG_TIME, &step, &first);
    assert_true(step == 120.0);
    assert_int_equal(n, 6);
    /* 45 minutes over 4 ticks: 15 min. */
    n = cm_svg_ticks(0, 2700, 4, CM_SVG_TIME, &step, &first);
    assert_true(step == 900.0);
    assert_int_equal(n, 4);
    /* A year over 10 ticks: whole days (50 d). */
    n = cm_svg_ticks(0, 365 * 86400.0, 10, CM_SVG_TIME, &step, &first);
    assert_true(step == 50 * 86400.0);
    assert_int_equal(n, 8);
}

static void test_svg_format_ticks(void **state)
{
    static const struct {
        double v, step;
        enum cm_svg_scale scale;
        const char *want;
    } cases[] = {
        { 0, 20, CM_SVG_NUMBER, "0" },          { 40, 20, CM_SVG_NUMBER, "40" },
        { 0.5, 0.5, CM_SVG_NUMBER, "0.5" },     { 0.02, 0.01, CM_SVG_NUMBER, "0.02" },
        { 0.25, 0.25, CM_SVG_NUMBER, "0.25" },  { 1500, 500, CM_SVG_NUMBER, "1500" },
        { 10000, 2000, CM_SVG_NUMBER, "10k" },  { 2500, 500, CM_SVG_NUMBER, "2500" },
        { 1.5e6, 5e5, CM_SVG_NUMBER, "1500k" }, { 2e6, 1e6, CM_SVG_NUMBER, "2M" },
        { -1e-17, 0.1, CM_SVG_NUMBER, "0.0" },  { -40, 20, CM_SVG_NUMBER, "-40" },
        { 0, 3600, CM_SVG_TIME, "0" },          { 45, 15, CM_SVG_TIME, "45s" },
        { 90, 30, CM_SVG_TIME, "1m30s" },       { 7200, 3600, CM_SVG_TIME, "2h" },
        { 5400, 1800, CM_SVG_TIME, "1h30m" },   { 108000, 10800, CM_SVG_TIME, "1d6h" },
        { 0.5, 0.5, CM_SVG_TIME, "0.5s" },      { -60, 60, CM_SVG_TIME, "-1m" },
    };
    char out[64];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cm_svg_format_tick(cases[i].v, cases[i].step, cases[i].scale, out, sizeof(out));
        assert_string_equal(out, cases[i].want);
    }
}

/* Builds a chart using every kind of element. */
static struct cm_svg *sample_chart(const char *title)
{
    struct cm_svg_opts o = { 0 };
    struct cm_svg *c;
    double x[50], y[50], y2[50];

    o.id = "cap";
    o.title = title;
    o.x.scale = CM_SVG_TIME;
    o.x.label = "time";
    o.y.label = "instances";
    o.y.include_zero = 1;
    o.y2.label = "req/s";
    c = cm_svg_create(&o);
    for (int i = 0; i < 50; i++) {
        x[i] = i * 60.0;
        y[i] = 1 + i / 10;
        y2[i] = 100 + 50 * sin(i / 5.0);
    }
    y2[20] = NAN; /* a gap */
    cm_svg_series(c, "desired", NULL, CM_SVG_Y1, CM_SVG_STEP | CM_SVG_THICK, x, y, 50);
    cm_svg_series(c, "load <req/s>", NULL, CM_SVG_Y2, CM_SVG_LINE | CM_SVG_DASHED, x, y2, 50);
    cm_svg_xband(c, "high-cpu ALARM", "#d55e00", 0.2, 600, 900);
    cm_svg_xband(c, "high-cpu ALARM", "#d55e00", 0.2, 1500, 1620);
    cm_svg_yband(c, "target", "#009e73", 0.1, CM_SVG_Y1, 2, 3);
    cm_svg_hline(c, "max 10", "#cc0000", CM_SVG_Y1, 5);
    cm_svg_marker(c, "launch", "#009e73", CM_SVG_TRIANGLE_UP, CM_SVG_Y1, 660, NAN,
                  "Launching a new EC2 instance: i-0123 \"quoted\" & <tagged>");
    cm_svg_marker(c, "terminate", "#cc79a7", CM_SVG_TRIANGLE_DOWN, CM_SVG_Y1, 1700, NAN, "bye");
    cm_svg_marker(c, "fault", "#000", CM_SVG_DIAMOND, CM_SVG_Y1, 1200, 3, "kill 1");
    return c;
}

static char *render(const struct cm_svg *c)
{
    struct cm_buf b;

    cm_buf_init(&b, 0);
    assert_int_equal(cm_svg_render(c, &b), 0);
    return cm_buf_take(&b, NULL);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;

    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_svg_render_well_formed(void **state)
{
    struct cm_svg *c = sample_chart("Capacity & load");
    char *s = render(c);
    xmlDocPtr doc;
    xmlNodePtr root;

    (void)state;
    doc = xmlReadMemory(s, (int)strlen(s), "chart.svg", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR);
    assert_non_null(doc);
    root = xmlDocGetRootElement(doc);
    assert_string_equal((const char *)root->name, "svg");
    xmlFreeDoc(doc);
    /* Escaped title, one legend entry per band name, tooltips on markers. */
    assert_non_null(strstr(s, "<title>Capacity &amp; load</title>"));
    assert_int_equal(count(s, ">high-cpu ALARM</text>"), 1);
    assert_int_equal(count(s, "<title>high-cpu ALARM</title>"), 2);
    assert_non_null(strstr(s, "i-0123 &quot;quoted&quot; &amp; &lt;tagged&gt;</title>"));
    assert_non_null(strstr(s, ">load &lt;req/s&gt;</text>"));
    assert_non_null(strstr(s, "clipPath id=\"cap-clip\""));
    /* Both axes are labelled; the time axis shows clock labels. */
    assert_non_null(strstr(s, ">req/s</text>"));
    assert_non_null(strstr(s, ">instances</text>"));
    assert_non_null(strstr(s, ">10m</text>"));
    /* The NaN splits the load line into two runs: two moves in one path. */
    {
        const char *p = strstr(s, "<title>load &lt;req/s&gt;</title>");
        const char *d;
        assert_non_null(p);
        while (p > s && strncmp(p, " d=\"", 4) != 0)
            p--;
        d = p + 4;
        assert_int_equal(count(d, "M") - count(strchr(d, '"'), "M"), 2);
    }
    free(s);
    cm_svg_destroy(c);
}

static void test_svg_render_deterministic(void **state)
{
    struct cm_svg *a = sample_chart("same"), *b = sample_chart("same");
    char *sa = render(a), *sb = render(b), *sa2 = render(a);

    (void)state;
    assert_string_equal(sa, sb);
    assert_string_equal(sa, sa2);
    free(sa);
    free(sb);
    free(sa2);
    cm_svg_destroy(a);
    cm_svg_destroy(b);
}

static void test_svg_long_series_bounded(void **state)
{
    struct cm_svg_opts o = { 0 };
    struct cm_svg *c;
    size_t n = 200000;
    double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
    char *s;

    (void)state;
    o.width_px = 600;
    o.height_px = 200;
    c = cm_svg_create(&o);
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)i;
        y[i] = (double)(i % 97);
    }
    y[123456] = 1000; /* a one-sample spike must survive the reduction */
    cm_svg_series(c, "noise", NULL, CM_SVG_Y1, CM_SVG_LINE, x, y, n);
    s = render(c);
    /* At most 4 points per pixel column of a ~520 px plot, each under 16 bytes. */
    assert_true(strlen(s) < 600 * 4 * 16 + 4096);
    /* The axis reached the spike (0, 500, 1000, 1500: the range got headroom). */
    assert_non_null(strstr(s, ">1000</text>"));
    assert_null(strstr(s, ">-")); /* and no padding below zero */
    free(s);
    cm_svg_destroy(c);
    free(x);
    free(y);
}

static void test_svg_standalone_and_empty(void **state)
{
    struct cm_svg_opts o = { 0 };
    struct cm_svg *c;
    char *s;
    xmlDocPtr doc;

    (void)state;
    o.standalone = 1;
    c = cm_svg_create(&o);
    cm_svg_series(c, "nothing", NULL, CM_SVG_Y1, CM_SVG_LINE, NULL, NULL, 0);
    s = render(c);
    assert_true(strncmp(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) == 0);
    doc = xmlReadMemory(s, (int)strlen(s), "e.svg", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR);
    assert_non_null(doc);
    xmlFreeDoc(doc);
    free(s);
    cm_svg_destroy(c);
}

static void test_svg_render_cap(void **state)
{
    struct cm_svg *c = sample_chart("capped");
    struct cm_buf b;

    (void)state;
    cm_buf_init(&b, 512);
    assert_int_equal(cm_svg_render(c, &b), -1);
    assert_true(b.len <= 512);
    cm_buf_cleanup(&b);
    cm_svg_destroy(c);
}

/* loadgen's sweep plot, as autobench's bench2graph draws it: demanded rate on x, the
 * measured rates as lines with points, response time on the right axis. The rows are
 * the seed's autobench run (httperf --rate 10..50, num_call 1). */
static void test_svg_autobench_sweep(void **state)
{
    static const double dem[] = { 10, 20, 30, 40, 50 };
    static const double req[] = { 10.0, 20.0, 30.0, 40.0, 50.0 };
    static const double rep_avg[] = { 10.0, 20.0, 30.0, 40.0, 50.0 };
    static const double resp_ms[] = { 1.1, 1.1, 1.0, 1.1, 1.0 };
    static const double errors[] = { 0, 0, 0, 0, 0 };
    struct cm_svg_opts o = { 0 };
    struct cm_svg *c;
    char *s;
    xmlDocPtr doc;

    (void)state;
    o.id = "sweep";
    o.title = "results.tsv";
    o.standalone = 1;
    o.x.label = "demanded request rate (req/s)";
    o.y.label = "rate (per s)";
    o.y.include_zero = 1;
    o.y2.label = "response time (ms)";
    o.y2.include_zero = 1;
    c = cm_svg_create(&o);
    cm_svg_series(c, "req_rate", NULL, CM_SVG_Y1, CM_SVG_POINTS, dem, req, 5);
    cm_svg_series(c, "avg_rep_rate", NULL, CM_SVG_Y1, CM_SVG_POINTS | CM_SVG_DASHED, dem, rep_avg,
                  5);
    cm_svg_series(c, "errors", NULL, CM_SVG_Y1, CM_SVG_POINTS, dem, errors, 5);
    cm_svg_series(c, "resp_time", NULL, CM_SVG_Y2, CM_SVG_POINTS, dem, resp_ms, 5);
    s = render(c);
    doc = xmlReadMemory(s, (int)strlen(s), "sweep.svg", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR);
    assert_non_null(doc);
    xmlFreeDoc(doc);
    /* Numeric x ticks at the demanded rates, points drawn, both axes labelled. */
    assert_non_null(strstr(s, "text-anchor=\"middle\">10</text>"));
    assert_non_null(strstr(s, "text-anchor=\"middle\">50</text>"));
    assert_int_equal(count(s, "r=\"2.5\"/>"), 20); /* 4 series x 5 points */
    assert_non_null(strstr(s, ">response time (ms)</text>"));
    assert_non_null(strstr(s, ">1.5</text>")); /* right axis 0..1.5 in steps of 0.5 */
    free(s);
    cm_svg_destroy(c);
}

/* CM_SVG_CLOCK: epoch seconds labelled with the UTC time of day (GetMetricWidgetImage). */
static void test_svg_format_ticks_clock(void **state)
{
    char out[32];
    double step, first;

    (void)state;
    cm_svg_format_tick(1767225600 + 5 * 3600 + 5 * 60, 300, CM_SVG_CLOCK, out, sizeof(out));
    assert_string_equal(out, "05:05");
    cm_svg_format_tick(1767225600 + 30, 10, CM_SVG_CLOCK, out, sizeof(out));
    assert_string_equal(out, "00:00:30");
    cm_svg_format_tick(1767225600 + 86400 * 31, 86400, CM_SVG_CLOCK, out, sizeof(out));
    assert_string_equal(out, "02-01");
    /* three hours: ticks on a clock step (30 min), the first at a round time */
    assert_true(cm_svg_ticks(1767225600 + 100, 1767225600 + 10900, 8, CM_SVG_CLOCK, &step, &first) >
                0);
    assert_true(step == 1800 && first == 1767225600 + 1800);
}

/* The value charts: numbers, bars and a pie, well-formed, one element per value. */
static void test_svg_values_charts(void **state)
{
    const struct cm_svg_value v[] = { { "a", NULL, 39 },
                                      { "b", "#0000ff", 11 },
                                      { "c", NULL, NAN } };
    struct cm_svg_opts o = { .title = "T", .width_px = 400, .height_px = 200 };
    struct cm_buf b;

    (void)state;
    cm_buf_init(&b, 1 << 20);
    assert_int_equal(cm_svg_values_render(&o, CM_SVG_NUMBERS, v, 3, &b), 0);
    assert_non_null(strstr(b.data, ">39<"));
    assert_non_null(strstr(b.data, ">-<")); /* no data */
    cm_buf_reset(&b);
    assert_int_equal(cm_svg_values_render(&o, CM_SVG_BARS, v, 3, &b), 0);
    assert_non_null(strstr(b.data, "fill=\"#0000ff\"><title>b</title>"));
    cm_buf_reset(&b);
    assert_int_equal(cm_svg_values_render(&o, CM_SVG_PIE, v, 3, &b), 0);
    assert_non_null(strstr(b.data, "<path d=\"M"));
    assert_non_null(strstr(b.data, "</svg>"));
    cm_buf_cleanup(&b);
}

/* The x of the legend's first swatch (<g class="legend"><line x1=...> or <rect x=...>) and
 * its y, or -1 when the chart has no legend. */
static void legend_origin(const char *svg, double *x, double *y)
{
    const char *g = strstr(svg, "<g class=\"legend\">");

    *x = *y = -1;
    if (!g)
        return;
    g += strlen("<g class=\"legend\">");
    if (sscanf(g, "<line x1=\"%lf\" y1=\"%lf\"", x, y) != 2)
        assert_int_equal(sscanf(g, "<rect x=\"%lf\" y=\"%lf\"", x, y), 2);
}

/* The plot frame: the last <rect fill="none"> (x, y, width, height). */
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

static char *legend_chart(enum cm_svg_legend_pos pos)
{
    struct cm_svg_opts o = { 0 };
    struct cm_svg *c;
    double x[3] = { 0, 1, 2 }, y[3] = { 1, 2, 3 };
    char *s;

    o.width_px = 600;
    o.height_px = 400;
    o.legend = pos;
    c = cm_svg_create(&o);
    cm_svg_series(c, "first series", "#111111", CM_SVG_Y1, CM_SVG_LINE, x, y, 3);
    cm_svg_series(c, "second", "#222222", CM_SVG_Y1, CM_SVG_LINE, x, y, 3);
    s = render(c);
    cm_svg_destroy(c);
    return s;
}

/* CM_SVG_LEGEND_RIGHT: a column right of the plot, one entry a row; BOTTOM: rows under the
 * x axis; NONE: no legend and the plot takes its room; TOP stays the report's. */
static void test_svg_legend_position(void **state)
{
    char *top = legend_chart(CM_SVG_LEGEND_TOP), *bottom = legend_chart(CM_SVG_LEGEND_BOTTOM);
    char *right = legend_chart(CM_SVG_LEGEND_RIGHT), *none = legend_chart(CM_SVG_LEGEND_NONE);
    double x, y, x2, y2, ft[4], fb[4], fr[4], fn[4];
    const char *second;

    (void)state;
    plot_frame(top, ft);
    plot_frame(bottom, fb);
    plot_frame(right, fr);
    plot_frame(none, fn);
    legend_origin(top, &x, &y);
    assert_true(y < ft[1]); /* above the plot */
    legend_origin(bottom, &x, &y);
    assert_true(y > fb[1] + fb[3]); /* under the plot and its tick labels */
    assert_true(fb[1] < ft[1]);     /* the plot moved up */
    legend_origin(right, &x, &y);
    assert_true(x > fr[0] + fr[2]); /* right of the plot */
    assert_true(fr[2] < ft[2]);     /* which is narrower */
    /* the second entry is under the first, at the same x */
    second = strstr(strstr(right, "<g class=\"legend\">"), "<text");
    second = strstr(second, "<line");
    assert_int_equal(sscanf(second, "<line x1=\"%lf\" y1=\"%lf\"", &x2, &y2), 2);
    assert_true(x2 == x);
    assert_true(y2 == y + 16);
    legend_origin(none, &x, &y);
    assert_true(x == -1);
    assert_true(fn[1] < ft[1] && fn[3] > ft[3]);
    free(top);
    free(bottom);
    free(right);
    free(none);
}

/* The y tick labels of a chart, in order, as numbers. Returns how many. */
static int y_ticks(const char *svg, double *out, int max)
{
    const char *p = svg;
    int n = 0;

    while (n < max && (p = strstr(p, "text-anchor=\"end\">")) != NULL) {
        p += strlen("text-anchor=\"end\">");
        if (sscanf(p, "%lf", &out[n]) == 1)
            n++;
    }
    return n;
}

static char *range_chart(int fix_min, double min, int fix_max, double max)
{
    struct cm_svg_opts o = { 0 };
    struct cm_svg *c;
    double x[3] = { 0, 1, 2 }, y[3] = { 40, 50, 60 };
    char *s;

    o.width_px = 600;
    o.height_px = 400;
    o.y.fix_min = fix_min;
    o.y.min = min;
    o.y.fix_max = fix_max;
    o.y.max = max;
    c = cm_svg_create(&o);
    cm_svg_series(c, "s", NULL, CM_SVG_Y1, CM_SVG_LINE, x, y, 3);
    s = render(c);
    cm_svg_destroy(c);
    return s;
}

/* fix_min / fix_max pin one end; the other still covers the data (40..60). */
static void test_svg_axis_half_fixed_range(void **state)
{
    double t[32];
    int n;
    char *s;

    (void)state;
    s = range_chart(1, 20, 0, 0); /* min 20: the axis starts at 20, ends at or above 60 */
    n = y_ticks(s, t, 32);
    assert_true(n >= 2);
    assert_true(t[0] == 20);
    assert_true(t[n - 1] >= 60);
    free(s);
    s = range_chart(0, 0, 1, 100); /* max 100: ends at 100, starts at or below 40 */
    n = y_ticks(s, t, 32);
    assert_true(t[n - 1] == 100);
    assert_true(t[0] <= 40 && t[0] > 0);
    free(s);
    s = range_chart(1, 80, 0, 0); /* min above the data: a range from 80 still */
    n = y_ticks(s, t, 32);
    assert_true(n >= 2 && t[0] == 80 && t[n - 1] > 80);
    free(s);
}

/* An infinite band end reaches the plot's edge; a NAN end draws nothing. */
static void test_svg_band_to_plot_edge(void **state)
{
    struct cm_svg_opts o = { 0 };
    struct cm_svg *c;
    double x[2] = { 0, 10 }, y[2] = { 0, 10 }, f[4], bx, by, bw, bh;
    const char *p;
    char *s;

    (void)state;
    o.width_px = 600;
    o.height_px = 400;
    o.x.fixed = 1;
    o.x.min = 0;
    o.x.max = 10;
    o.y.fixed = 1;
    o.y.min = 0;
    o.y.max = 10;
    c = cm_svg_create(&o);
    cm_svg_series(c, "s", NULL, CM_SVG_Y1, CM_SVG_LINE, x, y, 2);
    cm_svg_yband(c, NULL, "#ff0000", 0.1, CM_SVG_Y1, 5, INFINITY); /* above 5 */
    cm_svg_xband(c, NULL, "#00ff00", 0.1, -INFINITY, 5);           /* before 5 */
    cm_svg_xband(c, NULL, "#0000ff", 0.1, NAN, 5);
    s = render(c);
    cm_svg_destroy(c);
    plot_frame(s, f);
    p = strstr(s, "fill=\"#ff0000\"");
    assert_non_null(p);
    while (strncmp(p, "<rect", 5) != 0)
        p--;
    assert_int_equal(sscanf(p,
                            "<rect class=\"band\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"",
                            &bx, &by, &bw, &bh),
                     4);
    assert_true(bx == f[0] && by == f[1] && bw == f[2]);
    assert_true(fabs(bh - f[3] / 2) < 0.11); /* from the top to 5 of 0..10 */
    p = strstr(s, "fill=\"#00ff00\"");
    assert_non_null(p);
    while (strncmp(p, "<rect", 5) != 0)
        p--;
    assert_int_equal(sscanf(p,
                            "<rect class=\"band\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"",
                            &bx, &by, &bw, &bh),
                     4);
    assert_true(bx == f[0] && fabs(bw - f[2] / 2) < 0.11 && bh == f[3]);
    assert_null(strstr(s, "#0000ff"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_svg_escape_markup_and_quotes),
        cmocka_unit_test(test_svg_escape_controls_and_bad_utf8),
        cmocka_unit_test(test_svg_ticks_numbers),
        cmocka_unit_test(test_svg_ticks_time),
        cmocka_unit_test(test_svg_format_ticks),
        cmocka_unit_test(test_svg_format_ticks_clock),
        cmocka_unit_test(test_svg_values_charts),
        cmocka_unit_test(test_svg_render_well_formed),
        cmocka_unit_test(test_svg_render_deterministic),
        cmocka_unit_test(test_svg_long_series_bounded),
        cmocka_unit_test(test_svg_standalone_and_empty),
        cmocka_unit_test(test_svg_render_cap),
        cmocka_unit_test(test_svg_autobench_sweep),
        cmocka_unit_test(test_svg_legend_position),
        cmocka_unit_test(test_svg_axis_half_fixed_range),
        cmocka_unit_test(test_svg_band_to_plot_edge),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
