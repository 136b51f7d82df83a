/* scaler/widget.c: see widget.h. */
#include "scaler/widget.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scaler/alarm.h"
#include "scaler/civil.h"
#include "scaler/cloudwatch.h"
#include "scaler/metric.h"
#include "scaler/str.h"

#define MAX_STRS 64 /* namespace, name and up to 30 dimension pairs, with room */

/* One metrics entry as read: strings borrowed from the parsed JSON. */
struct entry {
    const char *strs[MAX_STRS];
    int nstrs;
    struct sc_dimension dims[MAX_STRS / 2];
    const char *id, *label, *color, *stat, *expression;
    int period;
    int visible;
    int right;
};

__attribute__((format(printf, 2, 3))) static enum sc_status bad(struct sc_error *err,
                                                                const char *fmt, ...)
{
    char msg[SC_ERR_MESSAGE_LEN];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return sc_fail(err, SC_ERR_INVALID_PARAMETER_INPUT, "%s", msg);
}

int sc_widget_parse_time(const char *s, int64_t now_ms, int64_t *out_ms)
{
    const char *p = s;
    int64_t total_s = 0;
    int in_time = 0, any = 0;

    if (!s)
        return -1;
    if (sc_civil_parse_iso(s, out_ms) == 0)
        return 0;
    if (*p == '-')
        p++;
    if (*p++ != 'P')
        return -1;
    while (*p) {
        int64_t v = 0;
        int digits = 0;

        if (*p == 'T') {
            if (in_time)
                return -1;
            in_time = 1;
            p++;
            continue;
        }
        while (isdigit((unsigned char)*p) && digits < 12) {
            v = v * 10 + (*p++ - '0');
            digits++;
        }
        if (!digits)
            return -1;
        switch (*p++) {
        case 'W':
            if (in_time)
                return -1;
            total_s += v * 7 * 86400;
            break;
        case 'D':
            if (in_time)
                return -1;
            total_s += v * 86400;
            break;
        case 'H':
            if (!in_time)
                return -1;
            total_s += v * 3600;
            break;
        case 'M':
            if (!in_time)
                return -1;
            total_s += v * 60;
            break;
        case 'S':
            if (!in_time)
                return -1;
            total_s += v;
            break;
        default:
            return -1;
        }
        any = 1;
    }
    if (!any)
        return -1;
    *out_ms = now_ms - total_s * 1000;
    return 0;
}

int sc_widget_parse_timezone(const char *s, int *out_s)
{
    int hh, mm;

    if (!s)
        return -1;
    if (strcmp(s, "LOCAL") == 0) {
        *out_s = 0;
        return 0;
    }
    if ((s[0] != '+' && s[0] != '-') || strlen(s) != 5 || strspn(s + 1, "0123456789") != 4)
        return -1;
    hh = (s[1] - '0') * 10 + (s[2] - '0');
    mm = (s[3] - '0') * 10 + (s[4] - '0');
    if (hh > 23 || mm > 59)
        return -1;
    *out_s = (s[0] == '-' ? -1 : 1) * (hh * 3600 + mm * 60);
    return 0;
}

void sc_widget_alarm_label(const char *metric, const char *comparison, double threshold,
                           int datapoints, int evaluation_periods, int period_s, char *out,
                           size_t outlen)
{
    static const struct {
        const char *op, *sym;
    } ops[] = {
        { "GreaterThanOrEqualToThreshold", ">=" },
        { "GreaterThanThreshold", ">" },
        { "LessThanThreshold", "<" },
        { "LessThanOrEqualToThreshold", "<=" },
    };
    const char *sym = comparison ? comparison : "?";
    long span = (long)evaluation_periods * period_s;

    for (size_t i = 0; comparison && i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(comparison, ops[i].op) == 0)
            sym = ops[i].sym;
    if (span % 60 == 0)
        snprintf(out, outlen, "%s %s %.15g for %d datapoints within %ld minutes",
                 metric ? metric : "m1", sym, threshold, datapoints, span / 60);
    else
        snprintf(out, outlen, "%s %s %.15g for %d datapoints within %ld seconds",
                 metric ? metric : "m1", sym, threshold, datapoints, span);
}

void sc_widget_destroy(struct sc_widget *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->n_series; i++) {
        free(w->series[i].id);
        free(w->series[i].label);
        free(w->series[i].color);
        free(w->series[i].ts_ms);
        free(w->series[i].values);
    }
    for (int i = 0; i < w->n_hlines; i++) {
        free(w->hlines[i].label);
        free(w->hlines[i].color);
    }
    for (int i = 0; i < w->n_vlines; i++) {
        free(w->vlines[i].label);
        free(w->vlines[i].color);
    }
    free(w->series);
    free(w->hlines);
    free(w->vlines);
    free(w->title);
    free(w->alarm_arn);
    free(w->alarm_name);
    free(w->left.label);
    free(w->right.label);
    free(w);
}

double sc_widget_series_value(const struct sc_widget_series *s)
{
    for (int i = s->n - 1; i >= 0; i--)
        if (isfinite(s->values[i]))
            return s->values[i];
    return NAN;
}

static int is_stat(const char *s)
{
    struct sc_stat st;

    return sc_stat_parse(s, 1, &st) == 0 || sc_stat_parse(s, 0, &st) == 0;
}

static int period_ok(int p)
{
    return p == 1 || p == 5 || p == 10 || p == 30 || (p > 0 && p % 60 == 0);
}

/* Rendering properties of one entry (the object at its end). */
static enum sc_status read_props(const json_t *o, int i, struct entry *e, struct sc_error *err)
{
    const json_t *v;
    char path[48];

    snprintf(path, sizeof(path), "/metrics/%d", i);
    if (!json_is_object(o))
        return bad(err, "%s: Should be object", path);
    e->id = json_string_value(json_object_get(o, "id"));
    e->label = json_string_value(json_object_get(o, "label"));
    e->color = json_string_value(json_object_get(o, "color"));
    e->stat = json_string_value(json_object_get(o, "stat"));
    e->expression = json_string_value(json_object_get(o, "expression"));
    v = json_object_get(o, "period");
    if (v) {
        if (!json_is_integer(v) || !period_ok((int)json_integer_value(v)))
            return bad(err, "%s/period: Should be a multiple of 60", path);
        e->period = (int)json_integer_value(v);
    }
    v = json_object_get(o, "visible");
    if (v && !json_is_boolean(v))
        return bad(err, "%s/visible: Should be boolean", path);
    if (v)
        e->visible = json_is_true(v);
    v = json_object_get(o, "yAxis");
    if (v && (!json_is_string(v) || (strcmp(json_string_value(v), "left") != 0 &&
                                     strcmp(json_string_value(v), "right") != 0)))
        return bad(err, "%s/yAxis: Should be equal to one of the allowed values", path);
    e->right = v && strcmp(json_string_value(v), "right") == 0;
    if (e->stat && !is_stat(e->stat))
        return bad(err, "%s/stat: Should be a valid statistic", path);
    if (e->color && (e->color[0] != '#' || strlen(e->color) != 7 ||
                     strspn(e->color + 1, "0123456789abcdefABCDEF") != 6))
        return bad(err, "%s/color: Should match pattern \"^#([0-9a-fA-F]{6})$\"", path);
    return SC_OK;
}

/* Reads entry i, expanding "." and "..." against prev (the previous metric entry). */
static enum sc_status read_entry(const json_t *a, int i, const struct entry *prev, struct entry *e,
                                 struct sc_error *err)
{
    size_t n = json_array_size(a), nstr = n;
    const char *given[MAX_STRS];
    char path[48];
    enum sc_status s;

    snprintf(path, sizeof(path), "/metrics/%d", i);
    memset(e, 0, sizeof(*e));
    e->visible = 1;
    if (!json_is_array(a))
        return bad(err, "%s: Should be array", path);
    if (n > 0 && json_is_object(json_array_get(a, n - 1))) {
        s = read_props(json_array_get(a, n - 1), i, e, err);
        if (s != SC_OK)
            return s;
        nstr = n - 1;
    }
    if (e->expression)
        return nstr == 0 ? SC_OK : bad(err, "%s: Should NOT have more than 1 items", path);
    if (nstr > MAX_STRS)
        return bad(err, "%s: Should NOT have more than 62 items", path);
    for (size_t k = 0; k < nstr; k++) {
        given[k] = json_string_value(json_array_get(a, k));
        if (!given[k])
            return bad(err, "%s: Should be string", path);
    }
    for (size_t k = 0; k < nstr; k++) {
        if (strcmp(given[k], "...") == 0 && prev) {
            int upto = prev->nstrs - (int)(nstr - k - 1);
            while (e->nstrs < upto && e->nstrs < MAX_STRS) {
                e->strs[e->nstrs] = prev->strs[e->nstrs];
                e->nstrs++;
            }
        } else if (strcmp(given[k], ".") == 0 && prev && e->nstrs < prev->nstrs) {
            e->strs[e->nstrs] = prev->strs[e->nstrs];
            e->nstrs++;
        } else if (e->nstrs < MAX_STRS) {
            e->strs[e->nstrs++] = given[k];
        }
    }
    if (e->nstrs < 2)
        return bad(err, "%s: Should NOT have fewer than 2 items", path);
    if (e->nstrs % 2)
        return bad(err, "%s: Should have an even number of dimension names and values", path);
    for (int k = 2; k + 1 < e->nstrs; k += 2) {
        e->dims[(k - 2) / 2].name = e->strs[k];
        e->dims[(k - 2) / 2].value = e->strs[k + 1];
    }
    return SC_OK;
}

static char *dup_json_str(const json_t *o, const char *k, int *oom)
{
    const char *s = json_string_value(json_object_get(o, k));
    char *d = sc_strdup(s);

    if (s && !d)
        *oom = 1;
    return d;
}

static enum sc_status read_axis(const json_t *o, const char *side, struct sc_widget_axis *ax,
                                struct sc_error *err)
{
    const json_t *a = json_object_get(o, side), *v;
    int oom = 0;

    ax->show_units = 1;
    if (!a)
        return SC_OK;
    if (!json_is_object(a))
        return bad(err, "/yAxis/%s: Should be object", side);
    v = json_object_get(a, "min");
    if (v && !json_is_number(v))
        return bad(err, "/yAxis/%s/min: Should be number", side);
    ax->has_min = v != NULL;
    ax->min = json_number_value(v);
    v = json_object_get(a, "max");
    if (v && !json_is_number(v))
        return bad(err, "/yAxis/%s/max: Should be number", side);
    ax->has_max = v != NULL;
    ax->max = json_number_value(v);
    if (json_is_false(json_object_get(a, "showUnits")))
        ax->show_units = 0;
    ax->label = dup_json_str(a, "label", &oom);
    return oom ? sc_fail(err, SC_ERR_INTERNAL, "out of memory") : SC_OK;
}

/* One annotation object (or the first of a band pair) into a line. */
static enum sc_status read_annotations(const json_t *ann, struct sc_widget *w, int64_t now_ms,
                                       struct sc_error *err)
{
    const json_t *h = json_object_get(ann, "horizontal"), *vt = json_object_get(ann, "vertical");
    size_t i;
    const json_t *e;
    int oom = 0;

    if (h && !json_is_array(h))
        return bad(err, "%s: Should be array", "/annotations/horizontal");
    if (vt && !json_is_array(vt))
        return bad(err, "%s: Should be array", "/annotations/vertical");
    w->hlines = calloc(json_array_size(h) + 2, sizeof(*w->hlines)); /* + an alarm's */
    w->vlines = calloc(json_array_size(vt) + 1, sizeof(*w->vlines));
    if (!w->hlines || !w->vlines)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    json_array_foreach(h, i, e)
    {
        const json_t *first = json_is_array(e) ? json_array_get(e, 0) : e;
        const json_t *second = json_is_array(e) ? json_array_get(e, 1) : NULL;
        struct sc_widget_hline *l = &w->hlines[w->n_hlines];
        const char *fill = json_string_value(json_object_get(first, "fill"));
        const char *axis = json_string_value(json_object_get(first, "yAxis"));

        if (!json_is_object(first) || !json_is_number(json_object_get(first, "value")))
            return bad(err, "%s: Should have required property 'value'", "/annotations/horizontal");
        if (json_is_false(json_object_get(first, "visible")))
            continue;
        l->y = json_number_value(json_object_get(first, "value"));
        if (second) {
            if (!json_is_number(json_object_get(second, "value")))
                return bad(err, "%s: Should have required property 'value'",
                           "/annotations/horizontal");
            l->band = 1;
            l->y2 = json_number_value(json_object_get(second, "value"));
        }
        l->right = axis && strcmp(axis, "right") == 0;
        l->fill = fill ? (strcmp(fill, "above") == 0 ? 1 : strcmp(fill, "below") == 0 ? 2 : 0) : 0;
        l->label = dup_json_str(first, "label", &oom);
        l->color = dup_json_str(first, "color", &oom);
        w->n_hlines++;
    }
    json_array_foreach(vt, i, e)
    {
        const json_t *first = json_is_array(e) ? json_array_get(e, 0) : e;
        const json_t *second = json_is_array(e) ? json_array_get(e, 1) : NULL;
        struct sc_widget_vline *l = &w->vlines[w->n_vlines];
        const char *fill = json_string_value(json_object_get(first, "fill"));

        if (!json_is_object(first) ||
            sc_widget_parse_time(json_string_value(json_object_get(first, "value")), now_ms,
                                 &l->t_ms) != 0)
            return bad(err, "%s: Should have required property 'value'", "/annotations/vertical");
        if (json_is_false(json_object_get(first, "visible")))
            continue;
        if (second) {
            if (sc_widget_parse_time(json_string_value(json_object_get(second, "value")), now_ms,
                                     &l->t2_ms) != 0)
                return bad(err, "%s: Should have required property 'value'",
                           "/annotations/vertical");
            l->band = 1;
        }
        l->fill = fill ? (strcmp(fill, "before") == 0 ? 1 : strcmp(fill, "after") == 0 ? 2 : 0) : 0;
        l->label = dup_json_str(first, "label", &oom);
        l->color = dup_json_str(first, "color", &oom);
        w->n_vlines++;
    }
    return oom ? sc_fail(err, SC_ERR_INTERNAL, "out of memory") : SC_OK;
}

static enum sc_status read_top(const json_t *root, struct sc_widget *w, int64_t now_ms,
                               struct sc_error *err)
{
    static const char *const views[] = { "timeSeries", "singleValue", "bar", "pie" };
    const char *view = json_string_value(json_object_get(root, "view"));
    const json_t *v;
    const char *t;
    int oom = 0;
    enum sc_status s;

    w->width = 600;
    w->height = 400;
    w->period_s = 300;
    if (json_object_get(root, "view")) {
        int found = -1;
        for (int i = 0; view && i < 4; i++)
            if (strcmp(view, views[i]) == 0)
                found = i;
        if (found < 0)
            return bad(err, "%s: Should be equal to one of the allowed values", "/view");
        w->view = (enum sc_widget_view)found;
    }
    for (int k = 0; k < 2; k++) {
        const char *name = k ? "height" : "width";
        int *dst = k ? &w->height : &w->width;
        v = json_object_get(root, name);
        if (!v)
            continue;
        if (!json_is_integer(v))
            return bad(err, "/%s: Should be integer", name);
        if (json_integer_value(v) < 1)
            return bad(err, "/%s: Should NOT be less than 1", name);
        if (json_integer_value(v) > 2000)
            return bad(err, "/%s: Should NOT be greater than 2000", name);
        *dst = (int)json_integer_value(v);
    }
    v = json_object_get(root, "period");
    if (v) {
        if (!json_is_integer(v) || !period_ok((int)json_integer_value(v)))
            return bad(err, "%s: Should be a multiple of 60", "/period");
        w->period_s = (int)json_integer_value(v);
    }
    v = json_object_get(root, "stacked");
    w->stacked = json_is_true(v);
    w->period_to_range = json_is_true(json_object_get(root, "setPeriodToTimeRange"));
    t = json_string_value(json_object_get(root, "stat"));
    if (json_object_get(root, "stat") && (!t || !is_stat(t)))
        return bad(err, "%s: Should be a valid statistic", "/stat");
    w->end_ms = now_ms;
    w->start_ms = now_ms - 3 * 3600 * 1000LL;
    v = json_object_get(root, "start");
    if (v && sc_widget_parse_time(json_string_value(v), now_ms, &w->start_ms) != 0)
        return bad(err, "%s: Should be an ISO 8601 time or duration", "/start");
    v = json_object_get(root, "end");
    if (v && sc_widget_parse_time(json_string_value(v), now_ms, &w->end_ms) != 0)
        return bad(err, "%s: Should be an ISO 8601 time or duration", "/end");
    if (w->start_ms >= w->end_ms)
        return bad(err, "%s", "The start time must be before the end time");
    v = json_object_get(root, "timezone");
    if (v && sc_widget_parse_timezone(json_string_value(v), &w->tz_offset_s) != 0)
        return bad(err, "%s: Should be LOCAL or a UTC offset +HHMM / -HHMM", "/timezone");
    v = json_object_get(root, "legend");
    if (v) {
        const char *pos = json_string_value(json_object_get(v, "position"));
        if (pos && strcmp(pos, "right") == 0)
            w->legend = SC_WIDGET_LEGEND_RIGHT;
        else if (pos && strcmp(pos, "hidden") == 0)
            w->legend = SC_WIDGET_LEGEND_HIDDEN;
        else if (pos && strcmp(pos, "bottom") != 0)
            return bad(err, "%s: Should be equal to one of the allowed values", "/legend/position");
    }
    v = json_object_get(root, "yAxis");
    if (v && !json_is_object(v))
        return bad(err, "%s: Should be object", "/yAxis");
    s = read_axis(v, "left", &w->left, err);
    if (s == SC_OK)
        s = read_axis(v, "right", &w->right, err);
    if (s != SC_OK)
        return s;
    w->title = dup_json_str(root, "title", &oom);
    if (oom)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    v = json_object_get(root, "annotations");
    if (v && !json_is_object(v))
        return bad(err, "%s: Should be object", "/annotations");
    return read_annotations(v, w, now_ms, err);
}

/* `annotations.alarms`: at most one metric alarm, by ARN [D]. *out is NULL when none. */
static enum sc_status read_alarm(struct sc_cw *cw, const json_t *root,
                                 const struct sc_alarm_view **out, struct sc_error *err)
{
    const json_t *ann = json_object_get(root, "annotations");
    const json_t *a = json_is_object(ann) ? json_object_get(ann, "alarms") : NULL;
    const struct sc_alarm_view *v;
    const char *arn, *name;

    *out = NULL;
    if (!a)
        return SC_OK;
    if (!json_is_array(a))
        return bad(err, "%s: Should be array", "/annotations/alarms");
    if (json_array_size(a) > 1)
        return bad(err, "%s: Should NOT have more than 1 items", "/annotations/alarms");
    if (json_array_size(a) == 0)
        return SC_OK;
    arn = json_string_value(json_array_get(a, 0));
    if (!arn)
        return bad(err, "%s: Should be string", "/annotations/alarms/0");
    name = strstr(arn, ":alarm:");
    v = name ? sc_cw_alarm_find(cw, name + strlen(":alarm:")) : NULL;
    if (!v || strcmp(v->alarm_arn, arn) != 0)
        return bad(err, "The alarm %.*s does not exist", 256, arn);
    *out = v;
    return SC_OK;
}

/* The alarm's metric (or its Metrics queries) as widget entries: what the alarm
 * evaluates, with its period and statistic. Returns the entry count. */
static int alarm_entries(const struct sc_alarm_view *v, struct entry *entries)
{
    if (v->n_metrics == 0) {
        struct entry *e = &entries[0];

        memset(e, 0, sizeof(*e));
        e->visible = 1;
        e->strs[0] = v->namespace;
        e->strs[1] = v->metric_name;
        e->nstrs = 2;
        for (int k = 0; k < v->n_dimensions && e->nstrs + 2 <= MAX_STRS; k++) {
            e->dims[k] = v->dimensions[k];
            e->strs[e->nstrs++] = v->dimensions[k].name;
            e->strs[e->nstrs++] = v->dimensions[k].value;
        }
        e->stat = v->statistic ? v->statistic : v->extended_statistic;
        e->period = v->period;
        return 1;
    }
    for (int i = 0; i < v->n_metrics; i++) {
        const struct sc_alarm_query *q = &v->metrics[i];
        struct entry *e = &entries[i];

        memset(e, 0, sizeof(*e));
        e->id = q->id;
        e->label = q->label;
        e->visible = q->has_return_data ? q->return_data : 1;
        e->expression = q->expression;
        e->period = q->expression ? q->period : q->stat_period;
        if (!q->expression) {
            e->strs[0] = q->metric.namespace;
            e->strs[1] = q->metric.metric_name;
            e->nstrs = 2;
            for (int k = 0; k < q->metric.n_dimensions && e->nstrs + 2 <= MAX_STRS; k++) {
                e->dims[k] = q->metric.dimensions[k];
                e->strs[e->nstrs++] = q->metric.dimensions[k].name;
                e->strs[e->nstrs++] = q->metric.dimensions[k].value;
            }
            e->stat = q->stat;
        }
    }
    return v->n_metrics;
}

/* The alarm's threshold as a horizontal annotation with the alarm's side filled (an
 * anomaly detection alarm has no fixed threshold: its band is one of its queries). */
static enum sc_status alarm_threshold(const struct sc_alarm_view *v, struct sc_widget *w,
                                      struct sc_error *err)
{
    struct sc_widget_hline *l = &w->hlines[w->n_hlines];
    const char *metric = v->metric_name;
    int period = v->period;
    char label[256];

    w->alarm_arn = sc_strdup(v->alarm_arn);
    w->alarm_name = sc_strdup(v->alarm_name);
    w->alarm_state = sc_alarm_state_name(v->state);
    if (!w->alarm_arn || !w->alarm_name)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    if (v->threshold_metric_id)
        return SC_OK;
    for (int i = 0; !metric && i < v->n_metrics; i++)
        if (!v->metrics[i].has_return_data || v->metrics[i].return_data)
            metric = v->metrics[i].label ? v->metrics[i].label : v->metrics[i].id;
    for (int i = 0; period <= 0 && i < v->n_metrics; i++) /* an alarm on Metrics */
        period = v->metrics[i].expression ? v->metrics[i].period : v->metrics[i].stat_period;
    sc_widget_alarm_label(metric, v->comparison_operator, v->threshold, v->datapoints_to_alarm,
                          v->evaluation_periods, period, label, sizeof(label));
    l->y = v->threshold;
    l->alarm = 1;
    l->fill = strncmp(v->comparison_operator, "Greater", 7) == 0 ? 1 : 2;
    l->label = sc_strdup(label);
    l->color = sc_strdup("#d62728");
    w->n_hlines++;
    if (!l->label || !l->color)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    return SC_OK;
}

struct collect {
    struct sc_cw *cw;
    struct sc_widget *w;
    const struct entry *entries;
    char (*ids)[32];
    int n;
    int oom;
};

/* The unit of a metric entry's metric: its one unit other than None, else NULL. */
static const char *entry_unit(struct sc_cw *cw, const struct entry *e)
{
    struct sc_metric_key k = { e->strs[0], e->strs[1], e->dims, (e->nstrs - 2) / 2 };
    const struct sc_metric *m = sc_metric_store_find(sc_cw_metrics(cw), &k);

    if (!m || sc_metric_unit_count(m) != 1 || sc_metric_unit_at(m, 0) == SC_UNIT_NONE)
        return NULL;
    return sc_unit_name(sc_metric_unit_at(m, 0));
}

static int collect_visit(const struct sc_metric_data_result *r, void *ud)
{
    struct collect *c = ud;
    struct sc_widget_series *s = &c->w->series[c->w->n_series];
    const struct entry *e = NULL;

    for (int i = 0; i < c->n; i++)
        if (strcmp(c->ids[i], r->id) == 0)
            e = &c->entries[i];
    s->id = sc_strdup(r->id);
    s->label = sc_strdup(r->label ? r->label : r->id);
    s->color = sc_strdup(e ? e->color : NULL);
    s->right = e ? e->right : 0;
    s->unit = e && !e->expression ? entry_unit(c->cw, e) : NULL;
    s->n = r->n_values;
    s->ts_ms = malloc(sizeof(*s->ts_ms) * (size_t)(r->n_values + 1));
    s->values = malloc(sizeof(*s->values) * (size_t)(r->n_values + 1));
    c->w->n_series++;
    if (!s->id || !s->label || (e && e->color && !s->color) || !s->ts_ms || !s->values) {
        c->oom = 1;
        return 1;
    }
    if (r->n_values > 0) {
        memcpy(s->ts_ms, r->timestamps_ms, sizeof(*s->ts_ms) * (size_t)r->n_values);
        memcpy(s->values, r->values, sizeof(*s->values) * (size_t)r->n_values);
    }
    return c->w->n_series >= SC_WIDGET_MAX_METRICS * 4;
}

static enum sc_status fetch(struct sc_cw *cw, struct sc_widget *w, struct entry *entries, int n,
                            const char *stat, int64_t now_ms, struct sc_error *err)
{
    struct sc_metric_data_query *q = calloc((size_t)n, sizeof(*q));
    char(*ids)[32] = calloc((size_t)n, sizeof(*ids));
    struct sc_get_metric_data_req req = { 0 };
    struct collect c = { cw, w, entries, ids, n, 0 };
    int period = w->period_s, nm = 0, ne = 0;
    enum sc_status s;

    w->series = calloc(SC_WIDGET_MAX_METRICS * 4 + 1, sizeof(*w->series));
    if (!q || !ids || !w->series) {
        s = sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        goto out;
    }
    if (w->period_to_range && w->view != SC_WIDGET_TIME_SERIES) {
        int64_t span_s = (w->end_ms - w->start_ms + 999) / 1000;
        period = (int)((span_s + 59) / 60 * 60);
    }
    for (int i = 0; i < n; i++) {
        struct entry *e = &entries[i];

        int ord = e->expression ? ++ne : ++nm;

        if (e->id)
            snprintf(ids[i], sizeof(ids[i]), "%s", e->id);
        else
            snprintf(ids[i], sizeof(ids[i]), "%s%d", e->expression ? "e" : "m", ord);
        q[i].id = ids[i];
        q[i].label = e->label;
        q[i].has_return_data = 1;
        q[i].return_data = e->visible;
        if (e->expression) {
            q[i].expression = e->expression;
            q[i].expression_period = e->period ? e->period : period;
        } else {
            q[i].has_metric_stat = 1;
            q[i].metric.namespace = e->strs[0];
            q[i].metric.metric_name = e->strs[1];
            q[i].metric.dimensions = e->dims;
            q[i].metric.n_dimensions = (e->nstrs - 2) / 2;
            q[i].period = w->period_to_range && w->view != SC_WIDGET_TIME_SERIES
                              ? period
                              : (e->period ? e->period : period);
            q[i].stat = e->stat ? e->stat : stat;
        }
    }
    req.queries = q;
    req.n_queries = n;
    req.has_start_time = 1;
    req.start_time_ms = w->start_ms;
    req.has_end_time = 1;
    req.end_time_ms = w->end_ms;
    req.scan_by = "TimestampAscending";
    s = sc_cw_get_metric_data(cw, &req, now_ms, collect_visit, &c, err);
    if (s == SC_OK && c.oom)
        s = sc_fail(err, SC_ERR_INTERNAL, "out of memory");
out:
    free(q);
    free(ids);
    return s;
}

enum sc_status sc_widget_create(struct sc_cw *cw, const char *widget_json, int64_t now_ms,
                                struct sc_widget **out, struct sc_error *err)
{
    json_t *root = widget_json ? json_loads(widget_json, 0, NULL) : NULL;
    struct sc_widget *w = calloc(1, sizeof(*w));
    struct entry *entries = NULL;
    const struct sc_alarm_view *alarm = NULL;
    const json_t *metrics;
    const char *stat;
    enum sc_status s;
    int n;

    *out = NULL;
    if (!w) {
        s = sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        goto out;
    }
    if (!json_is_object(root)) {
        s = bad(err, "%s", "The field MetricWidget must be a valid JSON object");
        goto out;
    }
    metrics = json_object_get(root, "metrics");
    s = read_alarm(cw, root, &alarm, err);
    if (s != SC_OK)
        goto out;
    if (!metrics && !alarm) {
        s = bad(err, "%s", "Should have required property 'metrics'");
        goto out;
    }
    if (metrics && !json_is_array(metrics)) {
        s = bad(err, "%s: Should be array", "/metrics");
        goto out;
    }
    /* [D] "An alarm annotation is required only when metrics is not specified": the
     * graph of one alarm draws what the alarm evaluates. */
    n = metrics ? (int)json_array_size(metrics) : alarm->n_metrics ? alarm->n_metrics : 1;
    if (n < 1) {
        s = bad(err, "%s: Should NOT have fewer than 1 items", "/metrics");
        goto out;
    }
    if (n > SC_WIDGET_MAX_METRICS) {
        s = bad(err, "%s: Should NOT have more than 100 items", "/metrics");
        goto out;
    }
    s = read_top(root, w, now_ms, err);
    if (s == SC_OK && alarm)
        s = alarm_threshold(alarm, w, err);
    if (s != SC_OK)
        goto out;
    stat = json_string_value(json_object_get(root, "stat"));
    entries = calloc((size_t)n, sizeof(*entries));
    if (!entries) {
        s = sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        goto out;
    }
    if (!metrics) {
        n = alarm_entries(alarm, entries);
        if (!json_object_get(root, "period"))
            w->period_s = alarm->period > 0 ? alarm->period : w->period_s;
    } else {
        const struct entry *prev = NULL;
        for (int i = 0; i < n; i++) {
            s = read_entry(json_array_get(metrics, (size_t)i), i, prev, &entries[i], err);
            if (s != SC_OK)
                goto out;
            if (!entries[i].expression)
                prev = &entries[i];
        }
    }
    s = fetch(cw, w, entries, n, stat ? stat : "Average", now_ms, err);
out:
    free(entries);
    json_decref(root);
    if (s != SC_OK) {
        sc_widget_destroy(w);
        return s;
    }
    *out = w;
    return SC_OK;
}
