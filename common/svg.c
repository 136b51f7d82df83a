/* common/svg.c: see svg.h. */
#include "common/svg.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

#define FONT_PX       11
#define CHAR_PX       6.2 /* average advance of an 11 px sans-serif glyph */
#define LEGEND_ROW_PX 16
#define MARKER_PX     5.0
#define RAIL_PX       8.0

enum legend_kind {
    LEG_LINE,
    LEG_BAND,
    LEG_HLINE,
    LEG_MARKER,
};

struct legend_item {
    enum legend_kind kind;
    char *name;
    char *color;
    int style;               /* series style, for LEG_LINE */
    double opacity;          /* LEG_BAND */
    enum cm_svg_shape shape; /* LEG_MARKER */
};

struct series {
    char *name;
    char *color;
    enum cm_svg_yaxis axis;
    int style;
    double *x, *y;
    size_t n;
};

struct xband {
    char *name;
    char *color;
    double opacity;
    double x0, x1;
};

struct yband {
    char *name;
    char *color;
    double opacity;
    enum cm_svg_yaxis axis;
    double y0, y1;
};

struct hline {
    char *name;
    char *color;
    enum cm_svg_yaxis axis;
    double y;
};

struct marker {
    char *color;
    enum cm_svg_shape shape;
    enum cm_svg_yaxis axis;
    double x, y;
    char *tooltip;
};

/* A growable array of fixed-size elements. */
struct vec {
    void *p;
    size_t n, cap, size;
};

struct cm_svg {
    char *id;
    char *title;
    int width, height;
    int standalone;
    int reserve_y2;
    enum cm_svg_legend_pos legend_pos;
    struct cm_svg_axis axis[3]; /* x, y, y2; labels owned */
    struct vec series, xbands, ybands, hlines, markers, legend;
};

/* The resolved geometry of one render. */
struct layout {
    double px0, px1, py0, py1; /* plot area */
    double lo[3], hi[3];       /* ranges of x, y, y2 */
    double step[3], first[3];
    int nticks[3];
    int has_y2;
    int has_rail;
    double legend_y; /* top of the first legend row */
    double legend_x; /* left of the legend column (CM_SVG_LEGEND_RIGHT) */
};

static const char *const palette[] = {
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999999",
};

const char *cm_svg_palette(int i)
{
    int n = (int)(sizeof(palette) / sizeof(palette[0]));

    if (i < 0)
        i = -i;
    return palette[i % n];
}

static char *dup_or_null(const char *s)
{
    return s ? cm_xstrdup(s) : NULL;
}

static void *vec_push(struct vec *v, size_t size)
{
    void *slot;

    v->size = size;
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 8;
        v->p = cm_xrealloc(v->p, v->cap * size);
    }
    slot = (char *)v->p + v->n * size;
    memset(slot, 0, size);
    v->n++;
    return slot;
}

#define VEC_AT(v, type, i) (&((type *)(v).p)[i])

struct cm_svg *cm_svg_create(const struct cm_svg_opts *opts)
{
    struct cm_svg *c = cm_xcalloc(1, sizeof(*c));

    c->id = cm_xstrdup(opts && opts->id ? opts->id : "chart");
    c->title = dup_or_null(opts ? opts->title : NULL);
    c->width = opts && opts->width_px > 0 ? opts->width_px : 900;
    c->height = opts && opts->height_px > 0 ? opts->height_px : 320;
    c->standalone = opts ? opts->standalone : 0;
    c->reserve_y2 = opts ? opts->reserve_y2 : 0;
    c->legend_pos = opts ? opts->legend : CM_SVG_LEGEND_TOP;
    if (opts) {
        c->axis[0] = opts->x;
        c->axis[1] = opts->y;
        c->axis[2] = opts->y2;
    }
    for (int i = 0; i < 3; i++) {
        c->axis[i].label = dup_or_null(c->axis[i].label);
        if (c->axis[i].fixed && !(c->axis[i].min < c->axis[i].max))
            c->axis[i].fixed = 0;
    }
    return c;
}

void cm_svg_destroy(struct cm_svg *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->series.n; i++) {
        struct series *s = VEC_AT(c->series, struct series, i);
        free(s->name);
        free(s->color);
        free(s->x);
        free(s->y);
    }
    for (size_t i = 0; i < c->xbands.n; i++) {
        free(VEC_AT(c->xbands, struct xband, i)->name);
        free(VEC_AT(c->xbands, struct xband, i)->color);
    }
    for (size_t i = 0; i < c->ybands.n; i++) {
        free(VEC_AT(c->ybands, struct yband, i)->name);
        free(VEC_AT(c->ybands, struct yband, i)->color);
    }
    for (size_t i = 0; i < c->hlines.n; i++) {
        free(VEC_AT(c->hlines, struct hline, i)->name);
        free(VEC_AT(c->hlines, struct hline, i)->color);
    }
    for (size_t i = 0; i < c->markers.n; i++) {
        free(VEC_AT(c->markers, struct marker, i)->color);
        free(VEC_AT(c->markers, struct marker, i)->tooltip);
    }
    for (size_t i = 0; i < c->legend.n; i++) {
        free(VEC_AT(c->legend, struct legend_item, i)->name);
        free(VEC_AT(c->legend, struct legend_item, i)->color);
    }
    free(c->series.p);
    free(c->xbands.p);
    free(c->ybands.p);
    free(c->hlines.p);
    free(c->markers.p);
    free(c->legend.p);
    for (int i = 0; i < 3; i++)
        free((char *)c->axis[i].label);
    free(c->id);
    free(c->title);
    free(c);
}

/* Adds a legend entry unless one of the same kind and name exists (dedup is for bands
 * and markers, which come many to a name). */
static void legend_add(struct cm_svg *c, enum legend_kind kind, const char *name, const char *color,
                       int style, double opacity, enum cm_svg_shape shape, int dedup)
{
    struct legend_item *it;

    if (!name || !*name)
        return;
    if (dedup) {
        for (size_t i = 0; i < c->legend.n; i++) {
            it = VEC_AT(c->legend, struct legend_item, i);
            if (it->kind == kind && strcmp(it->name, name) == 0)
                return;
        }
    }
    it = vec_push(&c->legend, sizeof(*it));
    it->kind = kind;
    it->name = cm_xstrdup(name);
    it->color = cm_xstrdup(color);
    it->style = style;
    it->opacity = opacity;
    it->shape = shape;
}

int cm_svg_series(struct cm_svg *c, const char *name, const char *color, enum cm_svg_yaxis axis,
                  int style, const double *x, const double *y, size_t n)
{
    int idx = (int)c->series.n;
    struct series *s = vec_push(&c->series, sizeof(*s));

    s->name = dup_or_null(name);
    s->color = cm_xstrdup(color ? color : cm_svg_palette(idx));
    s->axis = axis;
    s->style = style;
    s->n = n;
    s->x = cm_xmalloc((n ? n : 1) * sizeof(double));
    s->y = cm_xmalloc((n ? n : 1) * sizeof(double));
    if (n) {
        memcpy(s->x, x, n * sizeof(double));
        memcpy(s->y, y, n * sizeof(double));
    }
    if (!(style & CM_SVG_NOLEGEND))
        legend_add(c, LEG_LINE, name, s->color, style, 1.0, CM_SVG_CIRCLE, 0);
    return idx;
}

static double clamp_opacity(double o)
{
    if (!(o > 0.0))
        return 0.2;
    return o > 1.0 ? 1.0 : o;
}

void cm_svg_xband(struct cm_svg *c, const char *name, const char *color, double opacity, double x0,
                  double x1)
{
    struct xband *b = vec_push(&c->xbands, sizeof(*b));

    b->name = dup_or_null(name);
    b->color = cm_xstrdup(color ? color : "#d55e00");
    b->opacity = clamp_opacity(opacity);
    b->x0 = x0 < x1 ? x0 : x1;
    b->x1 = x0 < x1 ? x1 : x0;
    legend_add(c, LEG_BAND, name, b->color, 0, b->opacity, CM_SVG_CIRCLE, 1);
}

void cm_svg_yband(struct cm_svg *c, const char *name, const char *color, double opacity,
                  enum cm_svg_yaxis axis, double y0, double y1)
{
    struct yband *b = vec_push(&c->ybands, sizeof(*b));

    b->name = dup_or_null(name);
    b->color = cm_xstrdup(color ? color : "#009e73");
    b->opacity = clamp_opacity(opacity);
    b->axis = axis;
    b->y0 = y0 < y1 ? y0 : y1;
    b->y1 = y0 < y1 ? y1 : y0;
    legend_add(c, LEG_BAND, name, b->color, 0, b->opacity, CM_SVG_CIRCLE, 1);
}

void cm_svg_hline(struct cm_svg *c, const char *name, const char *color, enum cm_svg_yaxis axis,
                  double y)
{
    struct hline *h = vec_push(&c->hlines, sizeof(*h));

    h->name = dup_or_null(name);
    h->color = cm_xstrdup(color ? color : "#cc0000");
    h->axis = axis;
    h->y = y;
}

void cm_svg_marker(struct cm_svg *c, const char *legend, const char *color, enum cm_svg_shape shape,
                   enum cm_svg_yaxis axis, double x, double y, const char *tooltip)
{
    struct marker *m = vec_push(&c->markers, sizeof(*m));

    m->color = cm_xstrdup(color ? color : "#333333");
    m->shape = shape;
    m->axis = axis;
    m->x = x;
    m->y = y;
    m->tooltip = dup_or_null(tooltip);
    legend_add(c, LEG_MARKER, legend, m->color, 0, 1.0, shape, 1);
}

/* --- text ---------------------------------------------------------------------- */

/* Length of a valid UTF-8 sequence starting at s (1..4), or 0 when invalid. */
static int utf8_seq_len(const unsigned char *s)
{
    unsigned char c = s[0];
    int n;
    uint32_t cp;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
        return 0;
    return n;
}

int cm_svg_escape(struct cm_buf *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    int rc = 0;

    if (!s)
        return 0;
    while (*p && rc == 0) {
        int n;

        switch (*p) {
        case '&':
            rc = cm_buf_puts(out, "&amp;");
            p++;
            continue;
        case '<':
            rc = cm_buf_puts(out, "&lt;");
            p++;
            continue;
        case '>':
            rc = cm_buf_puts(out, "&gt;");
            p++;
            continue;
        case '"':
            rc = cm_buf_puts(out, "&quot;");
            p++;
            continue;
        case '\'':
            rc = cm_buf_puts(out, "&#39;");
            p++;
            continue;
        default:
            break;
        }
        if (*p < 0x20 && *p != '\t' && *p != '\n') {
            rc = cm_buf_putc(out, ' ');
            p++;
            continue;
        }
        if (*p == 0x7f) {
            rc = cm_buf_putc(out, ' ');
            p++;
            continue;
        }
        n = utf8_seq_len(p);
        if (n == 0) {
            rc = cm_buf_puts(out, "\xef\xbf\xbd");
            p++;
            continue;
        }
        rc = cm_buf_append(out, p, (size_t)n);
        p += n;
    }
    return rc;
}

/* Display width of s in code points. */
static size_t text_cols(const char *s)
{
    size_t n = 0;

    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
        if ((*p & 0xc0) != 0x80)
            n++;
    return n;
}

/* --- ticks --------------------------------------------------------------------- */

static double nice_step(double raw)
{
    double mag = pow(10.0, floor(log10(raw)));
    static const double mult[] = { 1, 2, 5, 10 };

    for (size_t i = 0; i < sizeof(mult) / sizeof(mult[0]); i++)
        if (mult[i] * mag >= raw * (1 - 1e-9))
            return mult[i] * mag;
    return 10 * mag;
}

static double time_step(double raw)
{
    static const double steps[] = {
        1,   2,    5,    10,   15,    30,    60,    120,   300,    600,
        900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800,
    };

    if (raw < 1)
        return nice_step(raw);
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
        if (steps[i] >= raw * (1 - 1e-9))
            return steps[i];
    return nice_step(raw / 86400.0) * 86400.0;
}

int cm_svg_ticks(double lo, double hi, int max_ticks, enum cm_svg_scale scale, double *step,
                 double *first)
{
    double span = hi - lo, st, f;
    int n;

    *step = 0;
    *first = 0;
    if (!isfinite(lo) || !isfinite(hi) || !(span > 0) || !isfinite(span))
        return 0;
    if (max_ticks < 2)
        max_ticks = 2;
    st = span / (max_ticks - 1);
    st = scale == CM_SVG_NUMBER ? nice_step(st) : time_step(st);
    f = ceil(lo / st - 1e-9) * st;
    n = (int)floor((hi - f) / st + 1e-9) + 1;
    if (n < 0)
        n = 0;
    if (fabs(f) < st * 1e-9)
        f = 0;
    *step = st;
    *first = f;
    return n;
}

/* Decimals needed to show multiples of step exactly (up to 9). */
static int step_decimals(double step)
{
    double m = fabs(step);

    for (int d = 0; d < 9; d++) {
        if (fabs(m - round(m)) <= 1e-6 * (m > 1 ? m : 1))
            return d;
        m *= 10;
    }
    return 9;
}

static void format_number(double v, double step, char *out, size_t outlen)
{
    const char *suffix = "";
    double div = 1;
    int dec;

    if (fabs(step) >= 1e6 && fabs(v) >= 1e6) {
        div = 1e6;
        suffix = "M";
    } else if (fabs(step) >= 1e3 && fabs(v) >= 1e3) {
        div = 1e3;
        suffix = "k";
    }
    dec = step_decimals(step / div);
    v /= div;
    if (fabs(v) < 0.5 * pow(10.0, -dec))
        v = 0; /* no "-0" */
    snprintf(out, outlen, "%.*f%s", dec, v, suffix);
}

static void format_time(double v, double step, char *out, size_t outlen)
{
    static const struct {
        double s;
        const char *u;
    } units[] = { { 86400, "d" }, { 3600, "h" }, { 60, "m" } };
    size_t used = 0;
    double a = fabs(v);
    int dec = step < 1 ? step_decimals(step) : 0;

    if (outlen == 0)
        return;
    out[0] = '\0';
    a = dec ? a : round(a);
    if (a < 0.5 * pow(10.0, -dec)) {
        snprintf(out, outlen, "0");
        return;
    }
    if (v < 0)
        used += (size_t)snprintf(out + used, outlen - used, "-");
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]) && used < outlen; i++) {
        double q = floor(a / units[i].s);
        if (q >= 1) {
            used += (size_t)snprintf(out + used, outlen - used, "%.0f%s", q, units[i].u);
            a -= q * units[i].s;
        }
    }
    if (used < outlen && a >= 0.5 * pow(10.0, -dec))
        snprintf(out + used, outlen - used, "%.*fs", dec, a);
}

static void format_clock(double v, double step, char *out, size_t outlen)
{
    int64_t t = (int64_t)floor(v + 0.5), day = t >= 0 ? t / 86400 : (t - 86399) / 86400;
    int64_t sod = t - day * 86400;

    if (step >= 86400) {
        /* civil date of day (days since 1970-01-01), Howard Hinnant's algorithm */
        int64_t z = day + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
        int64_t doe = z - era * 146097;
        int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
        int d = (int)(doy - (153 * mp + 2) / 5 + 1), m = (int)(mp < 10 ? mp + 3 : mp - 9);

        snprintf(out, outlen, "%02d-%02d", m, d);
    } else if (step < 60) {
        snprintf(out, outlen, "%02d:%02d:%02d", (int)(sod / 3600), (int)(sod / 60 % 60),
                 (int)(sod % 60));
    } else {
        snprintf(out, outlen, "%02d:%02d", (int)(sod / 3600), (int)(sod / 60 % 60));
    }
}

void cm_svg_format_tick(double v, double step, enum cm_svg_scale scale, char *out, size_t outlen)
{
    if (!isfinite(v)) {
        snprintf(out, outlen, "?");
        return;
    }
    if (scale == CM_SVG_CLOCK)
        format_clock(v, step, out, outlen);
    else if (scale == CM_SVG_TIME)
        format_time(v, step, out, outlen);
    else
        format_number(v, step, out, outlen);
}

/* --- layout -------------------------------------------------------------------- */

static void widen(double *lo, double *hi, double v)
{
    if (!isfinite(v))
        return;
    if (v < *lo)
        *lo = v;
    if (v > *hi)
        *hi = v;
}

/* A tick's label on axis ax: its own labeller's, else the scale's. */
static void axis_tick_label(const struct cm_svg_axis *ax, double v, double step, char *out,
                            size_t outlen)
{
    if (ax->tick_label && isfinite(v))
        ax->tick_label(v, out, outlen);
    else
        cm_svg_format_tick(v, step, ax->scale, out, outlen);
}

/* Resolves axis a (0 x, 1 y, 2 y2) from the data; ticks sized to span_px. */
static void resolve_axis(const struct cm_svg *c, int a, double span_px, struct layout *L)
{
    const struct cm_svg_axis *ax = &c->axis[a];
    double lo = INFINITY, hi = -INFINITY;
    int max_ticks = a == 0 ? (int)(span_px / 90) : (int)(span_px / 36);

    if (max_ticks < 2)
        max_ticks = 2;
    if (ax->fixed) {
        lo = ax->min;
        hi = ax->max;
    } else {
        for (size_t i = 0; i < c->series.n; i++) {
            const struct series *s = VEC_AT(c->series, struct series, i);
            if (a != 0 && (int)s->axis != a - 1)
                continue;
            for (size_t k = 0; k < s->n; k++) {
                if (!isfinite(s->x[k]))
                    continue;
                widen(&lo, &hi, a == 0 ? s->x[k] : s->y[k]);
            }
        }
        for (size_t i = 0; i < c->markers.n; i++) {
            const struct marker *m = VEC_AT(c->markers, struct marker, i);
            if (a == 0)
                widen(&lo, &hi, m->x);
            else if ((int)m->axis == a - 1)
                widen(&lo, &hi, m->y);
        }
        if (a == 0) {
            for (size_t i = 0; i < c->xbands.n; i++) {
                widen(&lo, &hi, VEC_AT(c->xbands, struct xband, i)->x0);
                widen(&lo, &hi, VEC_AT(c->xbands, struct xband, i)->x1);
            }
        } else {
            for (size_t i = 0; i < c->ybands.n; i++) {
                const struct yband *b = VEC_AT(c->ybands, struct yband, i);
                if ((int)b->axis != a - 1)
                    continue;
                widen(&lo, &hi, b->y0);
                widen(&lo, &hi, b->y1);
            }
            for (size_t i = 0; i < c->hlines.n; i++) {
                const struct hline *h = VEC_AT(c->hlines, struct hline, i);
                if ((int)h->axis == a - 1)
                    widen(&lo, &hi, h->y);
            }
        }
        if (lo > hi) {
            lo = 0;
            hi = 1;
        }
        if (ax->include_zero) {
            widen(&lo, &hi, 0);
        }
        if (lo == hi) {
            if (lo == 0) {
                hi = 1;
            } else {
                double d = fabs(lo) * 0.1;
                lo -= d;
                hi += d;
            }
        }
        if (ax->fix_min && isfinite(ax->min))
            lo = ax->min;
        if (ax->fix_max && isfinite(ax->max))
            hi = ax->max;
        if (!(lo < hi)) {
            /* The pin passed the data: the free end goes a tenth beyond it (1 at 0). */
            double d = fabs(ax->fix_min ? lo : hi) * 0.1;
            if (d == 0)
                d = 1;
            if (ax->fix_min)
                hi = lo + d;
            else
                lo = hi - d;
        }
        if (ax->scale == CM_SVG_NUMBER) {
            double st, f;
            /* A little headroom, so a y series' peak does not ride on the frame; the
             * padding never crosses zero. */
            if (a != 0) {
                double pad = (hi - lo) * 0.03;
                if (!ax->fix_max)
                    hi = hi <= 0 ? fmin(0, hi + pad) : hi + pad;
                if (!ax->fix_min)
                    lo = lo >= 0 ? fmax(0, lo - pad) : lo - pad;
            }
            if (cm_svg_ticks(lo, hi, max_ticks, ax->scale, &st, &f) > 0) {
                if (!ax->fix_min)
                    lo = floor(lo / st + 1e-9) * st;
                if (!ax->fix_max)
                    hi = ceil(hi / st - 1e-9) * st;
            }
        }
    }
    L->lo[a] = lo;
    L->hi[a] = hi;
    L->nticks[a] = cm_svg_ticks(lo, hi, max_ticks, ax->scale, &L->step[a], &L->first[a]);
}

static double map_x(const struct layout *L, double x)
{
    return L->px0 + (x - L->lo[0]) / (L->hi[0] - L->lo[0]) * (L->px1 - L->px0);
}

static double map_y(const struct layout *L, enum cm_svg_yaxis axis, double y)
{
    int a = axis == CM_SVG_Y2 ? 2 : 1;

    return L->py1 - (y - L->lo[a]) / (L->hi[a] - L->lo[a]) * (L->py1 - L->py0);
}

/* Coordinates are clamped far outside the plot so huge values stay printable. */
static double clampc(double v)
{
    if (v < -1e5)
        return -1e5;
    if (v > 1e5)
        return 1e5;
    return v;
}

static double legend_item_px(const struct legend_item *it)
{
    return 26 + (double)text_cols(it->name) * CHAR_PX + 14;
}

static void compute_layout(const struct cm_svg *c, struct layout *L)
{
    double ml = 62, mr = 20, mt, mb = 42, x, y;

    memset(L, 0, sizeof(*L));
    for (size_t i = 0; i < c->series.n; i++)
        if (VEC_AT(c->series, struct series, i)->axis == CM_SVG_Y2)
            L->has_y2 = 1;
    for (size_t i = 0; i < c->ybands.n; i++)
        if (VEC_AT(c->ybands, struct yband, i)->axis == CM_SVG_Y2)
            L->has_y2 = 1;
    for (size_t i = 0; i < c->hlines.n; i++)
        if (VEC_AT(c->hlines, struct hline, i)->axis == CM_SVG_Y2)
            L->has_y2 = 1;
    for (size_t i = 0; i < c->markers.n; i++) {
        const struct marker *m = VEC_AT(c->markers, struct marker, i);
        if (isnan(m->y))
            L->has_rail = 1;
        else if (m->axis == CM_SVG_Y2)
            L->has_y2 = 1;
    }
    if (L->has_y2 || c->reserve_y2)
        mr = 62;
    if (!c->axis[0].label)
        mb = 26;
    mt = c->title ? 30 : 10;
    L->legend_y = mt + 2;
    if (c->legend.n && c->legend_pos == CM_SVG_LEGEND_RIGHT) {
        /* One entry a row in a column right of the plot (and of the right axis' ticks),
         * as wide as the widest entry, at most 40 % of the chart. */
        double w = 0;
        for (size_t i = 0; i < c->legend.n; i++)
            w = fmax(w, legend_item_px(VEC_AT(c->legend, struct legend_item, i)));
        w = fmin(w, c->width * 0.4);
        L->legend_x = c->width - w;
        mr += w;
    } else if (c->legend.n && c->legend_pos != CM_SVG_LEGEND_NONE) {
        /* Legend rows flow left to right under the title (or under the x axis). */
        x = ml;
        y = 0;
        for (size_t i = 0; i < c->legend.n; i++) {
            double w = legend_item_px(VEC_AT(c->legend, struct legend_item, i));
            if (x + w > c->width - mr && x > ml) {
                x = ml;
                y += LEGEND_ROW_PX;
            }
            x += w;
        }
        if (c->legend_pos == CM_SVG_LEGEND_BOTTOM) {
            mb += y + LEGEND_ROW_PX + 4;
            L->legend_y = c->height - (y + LEGEND_ROW_PX + 4);
        } else {
            mt += y + LEGEND_ROW_PX + 4;
        }
    }
    if (L->has_rail)
        mt += 2 * RAIL_PX; /* a strip above the plot, so markers never hide the data */
    L->px0 = ml;
    L->px1 = c->width - mr;
    L->py0 = mt;
    L->py1 = c->height - mb;
    if (L->py1 - L->py0 < 40)
        L->py1 = L->py0 + 40;
    resolve_axis(c, 0, L->px1 - L->px0, L);
    resolve_axis(c, 1, L->py1 - L->py0, L);
    resolve_axis(c, 2, L->py1 - L->py0, L);
}

/* --- rendering ----------------------------------------------------------------- */

static int shape_path(struct cm_buf *o, enum cm_svg_shape shape, double x, double y, double r,
                      const char *color)
{
    switch (shape) {
    case CM_SVG_TRIANGLE_UP:
        return cm_buf_printf(o, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"", x, y - r,
                             x + r, y + r * 0.8, x - r, y + r * 0.8) ||
               cm_svg_escape(o, color) || cm_buf_puts(o, "\"");
    case CM_SVG_TRIANGLE_DOWN:
        return cm_buf_printf(o, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"", x, y + r,
                             x + r, y - r * 0.8, x - r, y - r * 0.8) ||
               cm_svg_escape(o, color) || cm_buf_puts(o, "\"");
    case CM_SVG_DIAMOND:
        return cm_buf_printf(o, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"", x,
                             y - r, x + r, y, x, y + r, x - r, y) ||
               cm_svg_escape(o, color) || cm_buf_puts(o, "\"");
    case CM_SVG_CIRCLE:
    default:
        return cm_buf_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"", x, y,
                             r * 0.8) ||
               cm_svg_escape(o, color) || cm_buf_puts(o, "\"");
    }
}

static int shape_close(struct cm_buf *o, enum cm_svg_shape shape)
{
    return cm_buf_puts(o, shape == CM_SVG_CIRCLE ? "</circle>" : "</path>");
}

static int render_legend(const struct cm_svg *c, const struct layout *L, struct cm_buf *o)
{
    int column = c->legend_pos == CM_SVG_LEGEND_RIGHT;
    double x = column ? L->legend_x : L->px0, y = L->legend_y;
    int rc = 0;

    if (!c->legend.n || c->legend_pos == CM_SVG_LEGEND_NONE)
        return 0;
    rc |= cm_buf_puts(o, "<g class=\"legend\">");
    for (size_t i = 0; i < c->legend.n && rc == 0; i++) {
        const struct legend_item *it = VEC_AT(c->legend, struct legend_item, i);
        double w = legend_item_px(it), cy = y + 6;

        if (column && i > 0) {
            y += LEGEND_ROW_PX;
            cy = y + 6;
        } else if (!column && x + w > L->px1 && x > L->px0) {
            x = L->px0;
            y += LEGEND_ROW_PX;
            cy = y + 6;
        }
        switch (it->kind) {
        case LEG_LINE:
        case LEG_HLINE:
            rc |=
                cm_buf_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"",
                              x, cy, x + 20, cy);
            rc |= cm_svg_escape(o, it->color);
            rc |= cm_buf_printf(
                o, "\" stroke-width=\"%s\"%s/>", it->style & CM_SVG_THICK ? "2.5" : "2",
                (it->style & CM_SVG_DASHED) || it->kind == LEG_HLINE ? " stroke-dasharray=\"5 3\""
                                                                     : "");
            if (it->style & CM_SVG_POINTS) {
                rc |= cm_buf_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"", x + 10,
                                    cy);
                rc |= cm_svg_escape(o, it->color);
                rc |= cm_buf_puts(o, "\"/>");
            }
            break;
        case LEG_BAND:
            rc |= cm_buf_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"20\" height=\"10\" fill=\"",
                                x, cy - 5);
            rc |= cm_svg_escape(o, it->color);
            /* A swatch stays visible even for faint bands. */
            rc |= cm_buf_printf(o, "\" fill-opacity=\"%.2f\"/>", fmax(it->opacity, 0.3));
            break;
        case LEG_MARKER:
            rc |= shape_path(o, it->shape, x + 10, cy, MARKER_PX, it->color);
            rc |= cm_buf_puts(o, "/>");
            break;
        }
        rc |= cm_buf_printf(o, "<text x=\"%.1f\" y=\"%.1f\">", x + 26, cy + 4);
        rc |= cm_svg_escape(o, it->name);
        rc |= cm_buf_puts(o, "</text>");
        if (!column)
            x += w;
    }
    rc |= cm_buf_puts(o, "</g>\n");
    return rc;
}

static int render_grid_and_ticks(const struct cm_svg *c, const struct layout *L, struct cm_buf *o)
{
    char label[64];
    int rc = 0;

    rc |= cm_buf_puts(o, "<g class=\"grid\" stroke=\"#e4e4e4\" stroke-width=\"1\">");
    for (int i = 0; i < L->nticks[0]; i++) {
        double px = map_x(L, L->first[0] + i * L->step[0]);
        rc |= cm_buf_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", px,
                            L->py0, px, L->py1);
    }
    for (int i = 0; i < L->nticks[1]; i++) {
        double py = map_y(L, CM_SVG_Y1, L->first[1] + i * L->step[1]);
        rc |= cm_buf_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", L->px0,
                            py, L->px1, py);
    }
    rc |= cm_buf_puts(o, "</g>\n<g class=\"ticks\" fill=\"#333\">");
    for (int i = 0; i < L->nticks[0]; i++) {
        double v = L->first[0] + i * L->step[0];
        axis_tick_label(&c->axis[0], v, L->step[0], label, sizeof(label));
        rc |= cm_buf_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
                            map_x(L, v), L->py1 + 14, label);
    }
    for (int i = 0; i < L->nticks[1]; i++) {
        double v = L->first[1] + i * L->step[1];
        axis_tick_label(&c->axis[1], v, L->step[1], label, sizeof(label));
        rc |= cm_buf_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
                            L->px0 - 5, map_y(L, CM_SVG_Y1, v) + 4, label);
    }
    if (L->has_y2) {
        for (int i = 0; i < L->nticks[2]; i++) {
            double v = L->first[2] + i * L->step[2];
            axis_tick_label(&c->axis[2], v, L->step[2], label, sizeof(label));
            rc |= cm_buf_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\">%s</text>",
                                L->px1 + 5, map_y(L, CM_SVG_Y2, v) + 4, label);
        }
    }
    rc |= cm_buf_puts(o, "</g>\n");
    if (c->axis[0].label) {
        rc |= cm_buf_printf(o,
                            "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" "
                            "text-anchor=\"middle\">",
                            (L->px0 + L->px1) / 2, L->py1 + 32);
        rc |= cm_svg_escape(o, c->axis[0].label);
        rc |= cm_buf_puts(o, "</text>");
    }
    if (c->axis[1].label) {
        double cy = (L->py0 + L->py1) / 2;
        rc |= cm_buf_printf(o,
                            "<text class=\"axis-label\" x=\"14\" y=\"%.1f\" "
                            "text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">",
                            cy, cy);
        rc |= cm_svg_escape(o, c->axis[1].label);
        rc |= cm_buf_puts(o, "</text>");
    }
    if (L->has_y2 && c->axis[2].label) {
        double cx = c->width - 12, cy = (L->py0 + L->py1) / 2;
        rc |= cm_buf_printf(o,
                            "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" "
                            "text-anchor=\"middle\" transform=\"rotate(90 %.1f %.1f)\">",
                            cx, cy, cx, cy);
        rc |= cm_svg_escape(o, c->axis[2].label);
        rc |= cm_buf_puts(o, "</text>");
    }
    rc |= cm_buf_puts(o, "\n");
    return rc;
}

/* One pixel column's reduction: the indexes of its first, min, max and last points. */
struct column {
    long px;
    size_t first, last, min, max;
};

static int emit_point(struct cm_buf *o, const struct series *s, const struct layout *L, size_t k,
                      int *pen_down)
{
    double px = clampc(map_x(L, s->x[k])), py = clampc(map_y(L, s->axis, s->y[k]));
    int rc;

    if (!*pen_down)
        rc = cm_buf_printf(o, "M%.1f %.1f", px, py);
    else if (s->style & CM_SVG_STEP)
        rc = cm_buf_printf(o, "H%.1fV%.1f", px, py);
    else
        rc = cm_buf_printf(o, "L%.1f %.1f", px, py);
    *pen_down = 1;
    return rc;
}

/* Writes the path data of a series, reducing runs that share a pixel column. */
static int series_path(struct cm_buf *o, const struct series *s, const struct layout *L)
{
    int pen_down = 0, rc = 0, reduce = s->n > (size_t)(L->px1 - L->px0);
    struct column col = { 0 };
    int col_open = 0;

    for (size_t k = 0; k < s->n && rc == 0; k++) {
        long px;

        if (!isfinite(s->x[k]))
            continue;
        if (!isfinite(s->y[k])) {
            if (col_open) {
                size_t idx[4] = { col.first, col.min < col.max ? col.min : col.max,
                                  col.min < col.max ? col.max : col.min, col.last };
                for (int j = 0; j < 4; j++)
                    if (j == 0 || idx[j] != idx[j - 1])
                        rc |= emit_point(o, s, L, idx[j], &pen_down);
                col_open = 0;
            }
            pen_down = 0;
            continue;
        }
        if (!reduce) {
            rc |= emit_point(o, s, L, k, &pen_down);
            continue;
        }
        px = (long)floor(map_x(L, s->x[k]));
        if (col_open && px == col.px) {
            col.last = k;
            if (s->y[k] < s->y[col.min])
                col.min = k;
            if (s->y[k] > s->y[col.max])
                col.max = k;
            continue;
        }
        if (col_open) {
            size_t idx[4] = { col.first, col.min < col.max ? col.min : col.max,
                              col.min < col.max ? col.max : col.min, col.last };
            for (int j = 0; j < 4; j++)
                if (j == 0 || idx[j] != idx[j - 1])
                    rc |= emit_point(o, s, L, idx[j], &pen_down);
        }
        col.px = px;
        col.first = col.last = col.min = col.max = k;
        col_open = 1;
    }
    if (col_open && rc == 0) {
        size_t idx[4] = { col.first, col.min < col.max ? col.min : col.max,
                          col.min < col.max ? col.max : col.min, col.last };
        for (int j = 0; j < 4; j++)
            if (j == 0 || idx[j] != idx[j - 1])
                rc |= emit_point(o, s, L, idx[j], &pen_down);
    }
    return rc;
}

static int render_series(const struct series *s, const struct layout *L, struct cm_buf *o)
{
    int rc = 0;
    size_t mark = o->len;

    rc |= cm_buf_puts(o, "<path class=\"series\" fill=\"none\" stroke=\"");
    rc |= cm_svg_escape(o, s->color);
    rc |= cm_buf_printf(o, "\" stroke-width=\"%s\" stroke-linejoin=\"round\"%s d=\"",
                        s->style & CM_SVG_THICK ? "2.5" : "1.5",
                        s->style & CM_SVG_DASHED ? " stroke-dasharray=\"6 3\"" : "");
    mark = o->len;
    rc |= series_path(o, s, L);
    if (o->len == mark)
        rc |= cm_buf_puts(o, "M0 0"); /* an empty series still makes valid markup */
    rc |= cm_buf_puts(o, "\">");
    if (s->name) {
        rc |= cm_buf_puts(o, "<title>");
        rc |= cm_svg_escape(o, s->name);
        rc |= cm_buf_puts(o, "</title>");
    }
    rc |= cm_buf_puts(o, "</path>\n");
    if (s->style & CM_SVG_POINTS) {
        rc |= cm_buf_puts(o, "<g fill=\"");
        rc |= cm_svg_escape(o, s->color);
        rc |= cm_buf_puts(o, "\">");
        for (size_t k = 0; k < s->n && rc == 0; k++) {
            if (!isfinite(s->x[k]) || !isfinite(s->y[k]))
                continue;
            rc |= cm_buf_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>",
                                clampc(map_x(L, s->x[k])), clampc(map_y(L, s->axis, s->y[k])));
        }
        rc |= cm_buf_puts(o, "</g>\n");
    }
    return rc;
}

static int render_plot(const struct cm_svg *c, const struct layout *L, struct cm_buf *o)
{
    int rc = 0;

    rc |= cm_buf_printf(o, "<g clip-path=\"url(#");
    rc |= cm_svg_escape(o, c->id);
    rc |= cm_buf_puts(o, "-clip)\">\n");
    for (size_t i = 0; i < c->xbands.n; i++) {
        const struct xband *b = VEC_AT(c->xbands, struct xband, i);
        double x0 = isinf(b->x0) ? L->px0 : clampc(map_x(L, b->x0));
        double x1 = isinf(b->x1) ? L->px1 : clampc(map_x(L, b->x1));
        if (isnan(b->x0) || isnan(b->x1))
            continue;
        rc |= cm_buf_printf(o,
                            "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                            "height=\"%.1f\" fill=\"",
                            x0, L->py0, x1 - x0 < 0.5 ? 0.5 : x1 - x0, L->py1 - L->py0);
        rc |= cm_svg_escape(o, b->color);
        rc |= cm_buf_printf(o, "\" fill-opacity=\"%.2f\">", b->opacity);
        if (b->name) {
            rc |= cm_buf_puts(o, "<title>");
            rc |= cm_svg_escape(o, b->name);
            rc |= cm_buf_puts(o, "</title>");
        }
        rc |= cm_buf_puts(o, "</rect>\n");
    }
    for (size_t i = 0; i < c->ybands.n; i++) {
        const struct yband *b = VEC_AT(c->ybands, struct yband, i);
        double y0 = isinf(b->y1) ? L->py0 : clampc(map_y(L, b->axis, b->y1));
        double y1 = isinf(b->y0) ? L->py1 : clampc(map_y(L, b->axis, b->y0));
        if (isnan(b->y0) || isnan(b->y1))
            continue;
        rc |= cm_buf_printf(o,
                            "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                            "height=\"%.1f\" fill=\"",
                            L->px0, y0, L->px1 - L->px0, y1 - y0 < 0.5 ? 0.5 : y1 - y0);
        rc |= cm_svg_escape(o, b->color);
        rc |= cm_buf_printf(o, "\" fill-opacity=\"%.2f\">", b->opacity);
        if (b->name) {
            rc |= cm_buf_puts(o, "<title>");
            rc |= cm_svg_escape(o, b->name);
            rc |= cm_buf_puts(o, "</title>");
        }
        rc |= cm_buf_puts(o, "</rect>\n");
    }
    for (size_t i = 0; i < c->series.n && rc == 0; i++)
        rc |= render_series(VEC_AT(c->series, struct series, i), L, o);
    for (size_t i = 0; i < c->hlines.n; i++) {
        const struct hline *h = VEC_AT(c->hlines, struct hline, i);
        double py = clampc(map_y(L, h->axis, h->y));
        if (!isfinite(h->y))
            continue;
        rc |= cm_buf_printf(o,
                            "<line class=\"threshold\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                            "y2=\"%.1f\" stroke=\"",
                            L->px0, py, L->px1, py);
        rc |= cm_svg_escape(o, h->color);
        rc |= cm_buf_puts(o, "\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\">");
        if (h->name) {
            rc |= cm_buf_puts(o, "<title>");
            rc |= cm_svg_escape(o, h->name);
            rc |= cm_buf_puts(o, "</title>");
        }
        rc |= cm_buf_puts(o, "</line>");
        if (h->name) {
            /* A white halo keeps the label readable over the series it crosses. */
            rc |= cm_buf_printf(o,
                                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" stroke=\"#fff\" "
                                "stroke-width=\"3\" paint-order=\"stroke\" fill=\"",
                                L->px1 - 4, py - 3);
            rc |= cm_svg_escape(o, h->color);
            rc |= cm_buf_puts(o, "\">");
            rc |= cm_svg_escape(o, h->name);
            rc |= cm_buf_puts(o, "</text>");
        }
        rc |= cm_buf_puts(o, "\n");
    }
    rc |= cm_buf_puts(o, "</g>\n");
    return rc;
}

static int render_markers(const struct cm_svg *c, const struct layout *L, struct cm_buf *o)
{
    int rc = 0;

    if (!c->markers.n)
        return 0;
    rc |= cm_buf_puts(o, "<g class=\"markers\" stroke=\"#fff\" stroke-width=\"0.6\">");
    for (size_t i = 0; i < c->markers.n && rc == 0; i++) {
        const struct marker *m = VEC_AT(c->markers, struct marker, i);
        double px, py;

        if (!isfinite(m->x))
            continue;
        px = map_x(L, m->x);
        if (px < L->px0 - 0.5 || px > L->px1 + 0.5)
            continue;
        if (isnan(m->y)) {
            py = L->py0 - RAIL_PX;
        } else {
            py = map_y(L, m->axis, m->y);
            if (!isfinite(py))
                continue;
            if (py < L->py0)
                py = L->py0;
            if (py > L->py1)
                py = L->py1;
        }
        rc |= shape_path(o, m->shape, px, py, MARKER_PX, m->color);
        rc |= cm_buf_puts(o, ">");
        if (m->tooltip) {
            rc |= cm_buf_puts(o, "<title>");
            rc |= cm_svg_escape(o, m->tooltip);
            rc |= cm_buf_puts(o, "</title>");
        }
        rc |= shape_close(o, m->shape);
    }
    rc |= cm_buf_puts(o, "</g>\n");
    return rc;
}

int cm_svg_render(const struct cm_svg *c, struct cm_buf *o)
{
    struct layout L;
    int rc = 0;

    compute_layout(c, &L);
    if (c->standalone)
        rc |= cm_buf_puts(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    rc |= cm_buf_printf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cm-svg\" id=\"");
    rc |= cm_svg_escape(o, c->id);
    rc |= cm_buf_printf(o,
                        "\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        "font-family=\"sans-serif\" font-size=\"%d\" role=\"img\">\n",
                        c->width, c->height, c->width, c->height, FONT_PX);
    if (c->title) {
        rc |= cm_buf_puts(o, "<title>");
        rc |= cm_svg_escape(o, c->title);
        rc |= cm_buf_puts(o, "</title>\n");
    }
    rc |= cm_buf_puts(o, "<defs><clipPath id=\"");
    rc |= cm_svg_escape(o, c->id);
    rc |= cm_buf_printf(o,
                        "-clip\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
                        "</clipPath></defs>\n",
                        L.px0, L.py0, L.px1 - L.px0, L.py1 - L.py0);
    rc |= cm_buf_printf(o, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", c->width,
                        c->height);
    if (c->title) {
        rc |= cm_buf_printf(o,
                            "<text class=\"chart-title\" x=\"%.1f\" y=\"18\" "
                            "text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">",
                            c->width / 2.0);
        rc |= cm_svg_escape(o, c->title);
        rc |= cm_buf_puts(o, "</text>\n");
    }
    rc |= render_legend(c, &L, o);
    rc |= render_grid_and_ticks(c, &L, o);
    rc |= render_plot(c, &L, o);
    rc |= cm_buf_printf(o,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                        "fill=\"none\" stroke=\"#888\"/>\n",
                        L.px0, L.py0, L.px1 - L.px0, L.py1 - L.py0);
    rc |= render_markers(c, &L, o);
    rc |= cm_buf_puts(o, "</svg>\n");
    return rc ? -1 : 0;
}

/* --- value charts ---------------------------------------------------------------- */

static int values_numbers(const struct cm_svg_value *v, size_t n, double x0, double y0, double w,
                          double h, struct cm_buf *o)
{
    double cell = w / (double)(n ? n : 1);
    int rc = 0;

    for (size_t i = 0; i < n; i++) {
        double cx = x0 + cell * ((double)i + 0.5);
        char num[48];

        if (isfinite(v[i].value) && v[i].value == floor(v[i].value) && fabs(v[i].value) < 1e15)
            snprintf(num, sizeof(num), "%.0f", v[i].value);
        else if (isfinite(v[i].value))
            snprintf(num, sizeof(num), "%.4g", v[i].value);
        else
            snprintf(num, sizeof(num), "-");
        rc |= cm_buf_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", cx,
                            y0 + h * 0.35);
        rc |= cm_svg_escape(o, v[i].name);
        rc |=
            cm_buf_printf(o,
                          "</text>\n<text class=\"value\" x=\"%.1f\" y=\"%.1f\" "
                          "text-anchor=\"middle\" font-size=\"28\" fill=\"%s\">",
                          cx, y0 + h * 0.35 + 36, v[i].color ? v[i].color : cm_svg_palette((int)i));
        rc |= cm_svg_escape(o, num);
        rc |= cm_buf_puts(o, "</text>\n");
    }
    return rc;
}

static int values_legend(const struct cm_svg_value *v, size_t n, double x, double y,
                         struct cm_buf *o)
{
    int rc = 0;

    for (size_t i = 0; i < n; i++) {
        const char *col = v[i].color ? v[i].color : cm_svg_palette((int)i);

        rc |= cm_buf_printf(o,
                            "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                            "<text x=\"%.1f\" y=\"%.1f\">",
                            x, y + (double)i * LEGEND_ROW_PX - 9, col, x + 14,
                            y + (double)i * LEGEND_ROW_PX);
        rc |= cm_svg_escape(o, v[i].name);
        rc |= cm_buf_puts(o, "</text>\n");
    }
    return rc;
}

static int values_pie(const struct cm_svg_value *v, size_t n, double x0, double y0, double w,
                      double h, struct cm_buf *o)
{
    double total = 0, r = fmin(w * 0.6, h) / 2 - 4, cx = x0 + r + 8, cy = y0 + h / 2, a = 0;
    int rc = 0;

    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i].value) && v[i].value > 0)
            total += v[i].value;
    if (r < 4)
        r = 4;
    for (size_t i = 0; i < n && total > 0; i++) {
        const char *col = v[i].color ? v[i].color : cm_svg_palette((int)i);
        double share, b;

        if (!isfinite(v[i].value) || v[i].value <= 0)
            continue;
        share = v[i].value / total;
        if (share >= 1 - 1e-9) {
            rc |= cm_buf_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>\n", cx,
                                cy, r, col);
            break;
        }
        b = a + share * 2 * M_PI;
        rc |= cm_buf_printf(o,
                            "<path d=\"M%.1f,%.1fL%.1f,%.1fA%.1f,%.1f 0 %d 1 %.1f,%.1fZ\" "
                            "fill=\"%s\" stroke=\"#ffffff\"/>\n",
                            cx, cy, cx + r * sin(a), cy - r * cos(a), r, r, share > 0.5 ? 1 : 0,
                            cx + r * sin(b), cy - r * cos(b), col);
        a = b;
    }
    rc |= values_legend(v, n, cx + r + 24, y0 + 16, o);
    return rc;
}

static int values_bars(const struct cm_svg_opts *opts, const struct cm_svg_value *v, size_t n,
                       double x0, double y0, double w, double h, struct cm_buf *o)
{
    double lo = 0, hi = -INFINITY, st = 0, f = 0, slot, bw;
    int rc = 0, nt;

    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i].value)) {
            lo = fmin(lo, v[i].value);
            hi = fmax(hi, v[i].value);
        }
    if (opts->y.fixed && opts->y.min < opts->y.max) {
        lo = opts->y.min;
        hi = opts->y.max;
    }
    if (!(hi > lo))
        hi = lo + 1;
    nt = cm_svg_ticks(lo, hi, (int)(h / 36) > 2 ? (int)(h / 36) : 2, CM_SVG_NUMBER, &st, &f);
    if (nt > 0 && !opts->y.fixed) {
        lo = floor(lo / st + 1e-9) * st;
        hi = ceil(hi / st - 1e-9) * st;
        nt = cm_svg_ticks(lo, hi, (int)(h / 36) > 2 ? (int)(h / 36) : 2, CM_SVG_NUMBER, &st, &f);
    }
    for (int k = 0; k < nt; k++) {
        double t = f + st * k, y = y0 + h - (t - lo) / (hi - lo) * h;
        char lab[48];

        cm_svg_format_tick(t, st, CM_SVG_NUMBER, lab, sizeof(lab));
        rc |= cm_buf_printf(
            o,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
            x0, y, x0 + w, y, x0 - 4, y + 4, lab);
    }
    slot = w / (double)(n ? n : 1);
    bw = slot * 0.6;
    for (size_t i = 0; i < n; i++) {
        double top, base = y0 + h - (0 - lo) / (hi - lo) * h,
                    bx = x0 + slot * (double)i + (slot - bw) / 2;

        if (!isfinite(v[i].value))
            continue;
        top = y0 + h - (v[i].value - lo) / (hi - lo) * h;
        rc |= cm_buf_printf(o,
                            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                            "fill=\"%s\"><title>",
                            bx, fmin(top, base), bw, fabs(base - top),
                            v[i].color ? v[i].color : cm_svg_palette((int)i));
        rc |= cm_svg_escape(o, v[i].name);
        rc |= cm_buf_puts(o, "</title></rect>\n");
    }
    rc |= values_legend(v, n, x0, y0 + h + 20, o);
    return rc;
}

int cm_svg_values_render(const struct cm_svg_opts *opts, enum cm_svg_values_kind kind,
                         const struct cm_svg_value *v, size_t n, struct cm_buf *o)
{
    int w = opts->width_px > 0 ? opts->width_px : 900,
        h = opts->height_px > 0 ? opts->height_px : 320;
    const char *id = opts->id ? opts->id : "chart";
    double top = opts->title ? 30 : 10, left = kind == CM_SVG_BARS ? 56 : 12;
    double legend = kind == CM_SVG_BARS ? (double)n * LEGEND_ROW_PX + 24 : 0;
    double ph = (double)h - top - 10 - legend;
    int rc = 0;

    if (ph < 20)
        ph = 20;
    if (opts->standalone)
        rc |= cm_buf_puts(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    rc |= cm_buf_puts(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cm-svg\" id=\"");
    rc |= cm_svg_escape(o, id);
    rc |= cm_buf_printf(o,
                        "\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        "font-family=\"sans-serif\" font-size=\"%d\" role=\"img\">\n",
                        w, h, w, h, FONT_PX);
    rc |= cm_buf_printf(o, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
    if (opts->title) {
        rc |= cm_buf_puts(o, "<title>");
        rc |= cm_svg_escape(o, opts->title);
        rc |= cm_buf_printf(o,
                            "</title>\n<text class=\"chart-title\" x=\"%.1f\" y=\"18\" "
                            "text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">",
                            w / 2.0);
        rc |= cm_svg_escape(o, opts->title);
        rc |= cm_buf_puts(o, "</text>\n");
    }
    if (kind == CM_SVG_NUMBERS)
        rc |= values_numbers(v, n, left, top, (double)w - left - 12, ph, o);
    else if (kind == CM_SVG_PIE)
        rc |= values_pie(v, n, left, top, (double)w - left - 12, ph, o);
    else
        rc |= values_bars(opts, v, n, left, top, (double)w - left - 12, ph, o);
    rc |= cm_buf_puts(o, "</svg>\n");
    return rc ? -1 : 0;
}
