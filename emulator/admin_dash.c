/* emulator/admin_dash.c: see admin_dash.h. */
#include "emulator/admin_dash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "emulator/api_cloudwatch_ext.h"
#include "emulator/emu.h"
#include "scaler/alarm.h"
#include "scaler/civil.h"
#include "scaler/cloudwatch.h"
#include "scaler/dashboard.h"
#include "scaler/world.h"

#define GRID_DEFAULT  6 /* [D] a widget's width and height default to 6 grid units */
#define WIDGET_PX_MAX 2000

/* A whole number member of o, or def when absent or not an integer. */
static json_int_t int_member(const json_t *o, const char *key, json_int_t def)
{
    const json_t *v = json_object_get(o, key);

    return json_is_integer(v) ? json_integer_value(v) : def;
}

/* o's member key as given when it is an integer, else null (new reference). */
static json_t *int_or_null(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    return json_is_integer(v) ? json_integer(json_integer_value(v)) : json_null();
}

static json_t *string_or_null(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s ? json_string(s) : json_null();
}

/* One widget of a dashboard as the console draws it. A metric widget is drawn from the
 * metrics of its own properties.region (a dashboard belongs to no region); without one,
 * the URL names none and the admin API's default (--region) applies. */
static json_t *widget_json(const json_t *wd, size_t i, const char *account, const char *name)
{
    const json_t *props = json_object_get(wd, "properties");
    const char *type = json_string_value(json_object_get(wd, "type"));
    json_t *o = json_object();

    json_object_set_new(o, "index", json_integer((json_int_t)i));
    json_object_set_new(o, "type", json_string(type ? type : ""));
    json_object_set_new(o, "x", int_or_null(wd, "x"));
    json_object_set_new(o, "y", int_or_null(wd, "y"));
    json_object_set_new(o, "width", json_integer(int_member(wd, "width", GRID_DEFAULT)));
    json_object_set_new(o, "height", json_integer(int_member(wd, "height", GRID_DEFAULT)));
    json_object_set_new(o, "title", string_or_null(props, "title"));
    if (type && strcmp(type, "text") == 0) {
        json_object_set_new(o, "markdown", string_or_null(props, "markdown"));
        json_object_set_new(o, "background", string_or_null(props, "background"));
    } else if (type && strcmp(type, "metric") == 0) {
        const char *region = json_string_value(json_object_get(props, "region"));
        char url[512];

        /* a region is a query value only when it is a region name (the body is the user's) */
        if (region && (!*region || strlen(region) >= 40 ||
                       strspn(region, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(region)))
            region = NULL;
        snprintf(url, sizeof(url), "/_scalelab/dashboards/%s/widgets/%zu.svg?account=%s%s%s", name,
                 i, account, region ? "&region=" : "", region ? region : "");
        json_object_set_new(o, "view", string_or_null(props, "view"));
        json_object_set_new(o, "region", region ? json_string(region) : json_null());
        json_object_set_new(o, "svg", json_string(url));
    }
    return o;
}

struct list_ctx {
    json_t *arr;
    const char *account, *partition;
};

static int list_one(const struct sc_dashboard_view *d, void *ud)
{
    struct list_ctx *c = ud;
    json_t *body = json_loads(d->body, 0, NULL);
    json_t *widgets = json_array(), *wd;
    char iso[40];
    size_t i;

    /* the body passed PutDashboard's checks: an object with a widgets array */
    json_array_foreach(json_object_get(body, "widgets"), i, wd)
    {
        if (json_is_object(wd))
            json_array_append_new(widgets, widget_json(wd, i, c->account, d->name));
    }
    sc_civil_format_iso_ms(d->last_modified_ms, iso, sizeof(iso));
    json_array_append_new(c->arr,
                          json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:o,s:o,s:o,s:o}", "account",
                                    c->account, "partition", c->partition, "name", d->name, "arn",
                                    d->arn, "last_modified", iso, "size", (json_int_t)d->size,
                                    "start", string_or_null(body, "start"), "end",
                                    string_or_null(body, "end"), "period_override",
                                    string_or_null(body, "periodOverride"), "widgets", widgets));
    json_decref(body);
    return 0;
}

json_t *admin_dash_list(struct emu *e)
{
    struct list_ctx c = { json_array(), NULL, NULL };

    for (int i = 0; i < emu_dashboards_count(e); i++) {
        struct sc_dashboards *d = emu_dashboards_at(e, i);

        c.account = sc_dashboards_account(d);
        c.partition = sc_dashboards_partition(d);
        sc_dashboards_list(d, NULL, list_one, &c, NULL);
    }
    return json_pack("{s:o,s:i,s:i}", "dashboards", c.arr, "col_px", ADMIN_DASH_COL_PX, "row_px",
                     ADMIN_DASH_ROW_PX);
}

/* The MetricWidget of dashboard widget wd: its properties, its size in pixels, and the
 * dashboard's start and end where the widget gives none. New reference. */
static json_t *metric_widget(const json_t *body, const json_t *wd)
{
    const json_t *props = json_object_get(wd, "properties");
    json_t *mw = json_is_object(props) ? json_deep_copy(props) : json_object();
    json_int_t w = int_member(wd, "width", GRID_DEFAULT) * ADMIN_DASH_COL_PX;
    json_int_t h = int_member(wd, "height", GRID_DEFAULT) * ADMIN_DASH_ROW_PX;

    json_object_set_new(mw, "width", json_integer(w > WIDGET_PX_MAX ? WIDGET_PX_MAX : w));
    json_object_set_new(mw, "height", json_integer(h > WIDGET_PX_MAX ? WIDGET_PX_MAX : h));
    for (int k = 0; k < 2; k++) {
        const char *key = k == 0 ? "start" : "end";
        const json_t *v = json_object_get(body, key);

        if (!json_object_get(mw, key) && json_is_string(v))
            json_object_set_new(mw, key, json_string(json_string_value(v)));
    }
    return mw;
}

int admin_dash_widget_svg(struct emu *e, const char *account, const char *region, const char *name,
                          const char *index, struct cm_buf *out, char *err, size_t errlen)
{
    struct sc_dashboards *set = emu_dashboards_find(e, account, sc_alarm_partition(region));
    struct sc_world *w = emu_world_find(e, account, region), *scratch = NULL;
    const struct sc_dashboard_view *d = NULL;
    struct sc_error se;
    json_t *body = NULL, *wd, *mw = NULL;
    const char *type;
    char *mws = NULL, *end = NULL, id[64];
    unsigned long n;
    int status = 200;

    errno = 0;
    n = strtoul(index, &end, 10);
    if (!*index || *index == '-' || *index == '+' || errno || !end || *end || n > 100000) {
        snprintf(err, errlen, "the widget must be its index in the dashboard, not '%.40s'", index);
        return 404;
    }
    if (!set || sc_dashboards_get(set, name, &d, &se) != SC_OK) {
        snprintf(err, errlen, "Dashboard %.255s does not exist in account %.20s", name, account);
        return 404;
    }
    if (!w) /* a region the account has no world in: its metrics are none (as a read's) */
        w = scratch = emu_world_scratch(e, account, region);
    if (!w) {
        snprintf(err, errlen, "no region %.40s", region);
        return 404;
    }
    body = json_loads(d->body, 0, NULL);
    wd = json_array_get(json_object_get(body, "widgets"), n);
    if (!json_is_object(wd)) {
        snprintf(err, errlen, "dashboard %.255s has %zu widgets (0 to %zd), not %lu", name,
                 json_array_size(json_object_get(body, "widgets")),
                 (ssize_t)json_array_size(json_object_get(body, "widgets")) - 1, n);
        status = 404;
        goto out;
    }
    type = json_string_value(json_object_get(wd, "type"));
    if (!type || strcmp(type, "metric") != 0) {
        snprintf(err, errlen,
                 "widget %lu of %.255s is a %.40s widget: only metric widgets are drawn", n, name,
                 type ? type : "typeless");
        status = 400;
        goto out;
    }
    mw = metric_widget(body, wd);
    mws = json_dumps(mw, JSON_COMPACT);
    snprintf(id, sizeof(id), "w%lu", n);
    if (cw_widget_svg(sc_world_cw(w), mws, emu_now_ms(e), id, NULL, NULL, out, &se) != 0) {
        snprintf(err, errlen, "%s: %s", sc_status_code(se.status), se.message);
        status = 400;
    }
out:
    free(mws);
    json_decref(mw);
    json_decref(body);
    sc_world_destroy(scratch);
    return status;
}
