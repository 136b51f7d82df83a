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
#include "scaler/alarm_composite.h"
#include "scaler/civil.h"
#include "scaler/cloudwatch.h"
#include "scaler/dashboard.h"
#include "scaler/dashboard_view.h"
#include "scaler/world.h"

#define GRID_DEFAULT  6 /* [D] a widget's width and height default to 6 grid units */
#define WIDGET_PX_MAX 2000
#define ALARMS_MAX    100 /* [D] an alarm widget lists up to 100 alarms */

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

/* The alarm named by arn in cw, or NULL (a composite alarm's state comes through cs). */
static const struct sc_alarm_view *alarm_by_arn(struct sc_cw *cw, const char *arn)
{
    const char *name = arn ? strstr(arn, ":alarm:") : NULL;
    const struct sc_alarm_view *v = name ? sc_cw_alarm_find(cw, name + strlen(":alarm:")) : NULL;

    return v && strcmp(v->alarm_arn, arn) == 0 ? v : NULL;
}

struct composite_find {
    const char *arn;
    const char *state;
};

static int composite_visit(const struct sc_composite_view *v, void *ud)
{
    struct composite_find *f = ud;

    if (strcmp(v->alarm_arn, f->arn) == 0)
        f->state = v->state_value;
    return 0;
}

/* The CloudWatch of the world an alarm ARN names (arn:PARTITION:cloudwatch:REGION:ACCOUNT:
 * alarm:NAME), or NULL: alarms are a region's, though the dashboard is the account's. */
static struct sc_cw *alarm_cw(struct emu *e, const char *account, const char *arn)
{
    const char *p = arn;
    char region[48];
    size_t len;

    for (int field = 0; p && field < 3; field++)
        p = (p = strchr(p, ':')) ? p + 1 : NULL;
    if (!p || !(len = strcspn(p, ":")) || len >= sizeof(region))
        return NULL;
    memcpy(region, p, len);
    region[len] = 0;
    struct sc_world *w = emu_world_find(e, account, region);
    return w ? sc_world_cw(w) : NULL;
}

/* An alarm widget's alarms [D: properties.alarms, ARNs]: each one's name, state and, for a
 * metric alarm, the URL of its graph; a missing alarm has state null. */
static json_t *alarm_list(struct emu *e, const char *account, const json_t *props,
                          const char *url_base)
{
    json_t *arr = json_array(), *a;
    size_t k;

    json_array_foreach(json_object_get(props, "alarms"), k, a)
    {
        const char *arn = json_string_value(a);
        struct sc_cw *cw = arn ? alarm_cw(e, account, arn) : NULL;
        const struct sc_alarm_view *v = cw ? alarm_by_arn(cw, arn) : NULL;
        const char *name = arn ? strstr(arn, ":alarm:") : NULL;
        json_t *o;

        if (k >= ALARMS_MAX)
            break;
        o = json_pack("{s:s?,s:s?}", "arn", arn, "name", name ? name + strlen(":alarm:") : arn);
        if (v) {
            char url[600];
            snprintf(url, sizeof(url), "%s&alarm=%zu", url_base, k);
            json_object_set_new(o, "state", json_string(v->state_value));
            json_object_set_new(o, "svg", json_string(url));
        } else {
            struct composite_find f = { arn ? arn : "", NULL };
            struct sc_describe_alarms_req req = { 0 };

            if (cw && name)
                sc_cw_describe_composite_alarms(cw, &req, composite_visit, &f, NULL);
            json_object_set_new(o, "state", f.state ? json_string(f.state) : json_null());
        }
        json_array_append_new(arr, o);
    }
    return arr;
}

/* One widget of a dashboard as the console draws it. A metric widget is drawn from the
 * metrics of its own properties.region (a dashboard belongs to no region); without one,
 * the URL names none and the admin API's default (--region) applies. */
static json_t *widget_json(struct emu *e, const json_t *wd, size_t i, const char *account,
                           const char *name)
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
    } else if (type && strcmp(type, "alarm") == 0) {
        char url[512];

        /* each alarm's graph comes from the world its ARN names */
        snprintf(url, sizeof(url), "/_scalelab/dashboards/%s/widgets/%zu.svg?account=%s", name, i,
                 account);
        json_object_set_new(o, "alarms", alarm_list(e, account, props, url));
    }
    return o;
}

struct list_ctx {
    json_t *arr;
    const char *account, *partition;
    struct emu *e;
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
            json_array_append_new(widgets, widget_json(c->e, wd, i, c->account, d->name));
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
    struct list_ctx c = { json_array(), NULL, NULL, e };

    for (int i = 0; i < emu_dashboards_count(e); i++) {
        struct sc_dashboards *d = emu_dashboards_at(e, i);

        c.account = sc_dashboards_account(d);
        c.partition = sc_dashboards_partition(d);
        sc_dashboards_list(d, NULL, list_one, &c, NULL);
    }
    return json_pack("{s:o,s:i,s:i}", "dashboards", c.arr, "col_px", ADMIN_DASH_COL_PX, "row_px",
                     ADMIN_DASH_ROW_PX);
}

/* The MetricWidget of dashboard widget wd: its properties as the dashboard presents them
 * (variables, periodOverride), its size in pixels, and the dashboard's start and end where
 * the widget gives none; with alarm_arn, the graph of that alarm instead. New reference. */
static json_t *metric_widget(const json_t *body, const json_t *wd, const char *alarm_arn,
                             int64_t now_ms)
{
    const json_t *props = json_object_get(wd, "properties");
    json_t *mw;

    if (alarm_arn) {
        mw = json_pack("{s:{s:[s]}}", "annotations", "alarms", alarm_arn);
        sc_dashboard_present(body, mw, now_ms);
    } else {
        mw = json_is_object(props) ? json_deep_copy(props) : json_object();
        sc_dashboard_present(body, mw, now_ms);
    }
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
                          const char *index, const char *alarm, struct cm_buf *out, char *err,
                          size_t errlen)
{
    const char *alarm_arn = NULL;
    struct sc_dashboards *set = emu_dashboards_find(e, account, sc_alarm_partition(region));
    struct sc_world *scratch = NULL;
    struct sc_cw *cw;
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
    if (alarm && type && strcmp(type, "alarm") == 0) {
        const json_t *arns = json_object_get(json_object_get(wd, "properties"), "alarms");
        char *aend = NULL;
        unsigned long k;

        errno = 0;
        k = strtoul(alarm, &aend, 10);
        alarm_arn = *alarm && *alarm != '-' && !errno && aend && !*aend
                        ? json_string_value(json_array_get(arns, k))
                        : NULL;
        if (!alarm_arn) {
            snprintf(err, errlen, "alarm widget %lu of %.255s has %zu alarms, not '%.20s'", n, name,
                     json_array_size(arns), alarm);
            status = 404;
            goto out;
        }
    } else if (!type || strcmp(type, "metric") != 0) {
        snprintf(err, errlen,
                 "widget %lu of %.255s is a %.40s widget: only metric widgets (and each alarm of "
                 "an alarm widget, with alarm=K) are drawn",
                 n, name, type ? type : "typeless");
        status = 400;
        goto out;
    }
    mw = metric_widget(body, wd, alarm_arn, emu_now_ms(e));
    if (alarm_arn) {
        /* an alarm is its region's, though the dashboard is the account's */
        cw = alarm_cw(e, account, alarm_arn);
        if (!cw) {
            snprintf(err, errlen, "alarm widget %lu of %.255s: no alarm %.255s", n, name,
                     alarm_arn);
            status = 404;
            goto out;
        }
    } else {
        /* [D] a widget's `region` (after the dashboard's variables) is where its metrics
         * come from: that world, or an empty one when the region has no world yet; else
         * the URL's */
        const char *wregion = json_string_value(json_object_get(mw, "region"));
        struct sc_world *src;

        if (!wregion)
            wregion = region;
        src = emu_world_find(e, account, wregion);
        if (!src)
            src = scratch = emu_world_scratch(e, account, wregion);
        if (!src) {
            snprintf(err, errlen, "widget %lu of %.255s: region %.40s is not served here", n, name,
                     wregion);
            status = 400;
            goto out;
        }
        cw = sc_world_cw(src);
    }
    mws = json_dumps(mw, JSON_COMPACT);
    snprintf(id, sizeof(id), "w%lu", n);
    if (cw_widget_svg(cw, mws, emu_now_ms(e), id, NULL, NULL, out, &se) != 0) {
        snprintf(err, errlen, "%s: %s", sc_status_code(se.status), se.message);
        status = 400;
    }
out:
    sc_world_destroy(scratch);
    free(mws);
    json_decref(mw);
    json_decref(body);
    return status;
}
