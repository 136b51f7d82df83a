/* scaler/dashboard.c: the dashboards' store and the DashboardBody checks (see dashboard.h).
 * The checks follow "Dashboard Body Structure and Syntax" with the messages AWS's
 * validator writes (docs/cloudwatch.md "Dashboards"). */
#include "scaler/dashboard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/str.h"
#include "scaler/vec.h"

#define MAX_WIDGETS 500
#define MAX_NAME    255

struct dash {
    char *name, *arn, *body;
    int64_t modified_ms;
    struct sc_dashboard_view view;
};
SC_SORTED_DEFINE(dash_vec, struct dash, name)

struct sc_dashboards {
    char *account, *partition;
    struct dash **list; /* sorted by name */
    int n, cap;
};

/* --- the body ---------------------------------------------------------------------------- */

static void add(struct sc_dashboard_check *c, const char *path, const char *msg)
{
    if (c->n < SC_DASHBOARD_MAX_MESSAGES) {
        snprintf(c->msg[c->n].data_path, sizeof(c->msg[0].data_path), "%s", path);
        snprintf(c->msg[c->n].message, sizeof(c->msg[0].message), "%s", msg);
        c->n++;
    }
    c->total++;
}

static const char *const widget_types[] = { "metric",   "text",   "log",  "alarm",
                                            "explorer", "custom", "chart" };

/* x, y, width, height: integers in their documented ranges when present. */
static void check_geometry(struct sc_dashboard_check *c, const json_t *w, const char *base)
{
    static const struct {
        const char *key;
        int lo, hi;
    } g[] = { { "x", 0, 23 }, { "y", 0, 1000000 }, { "width", 1, 24 }, { "height", 1, 1000 } };
    char path[128], msg[64];

    for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
        const json_t *v = json_object_get(w, g[i].key);
        if (!v)
            continue;
        snprintf(path, sizeof(path), "%s/%s", base, g[i].key);
        if (!json_is_integer(v)) {
            add(c, path, "Should be integer");
        } else if (json_integer_value(v) < g[i].lo) {
            snprintf(msg, sizeof(msg), "Should NOT be less than %d", g[i].lo);
            add(c, path, msg);
        } else if (json_integer_value(v) > g[i].hi) {
            snprintf(msg, sizeof(msg), "Should NOT be greater than %d", g[i].hi);
            add(c, path, msg);
        }
    }
}

static void check_widget(struct sc_dashboard_check *c, const json_t *w, size_t i)
{
    char base[64], path[128];
    const json_t *type, *props;
    const char *t;
    int known = 0;

    snprintf(base, sizeof(base), "/widgets/%zu", i);
    if (!json_is_object(w)) {
        add(c, base, "Should be object");
        return;
    }
    type = json_object_get(w, "type");
    if (!type) {
        add(c, base, "Should have required property 'type'");
        return;
    }
    snprintf(path, sizeof(path), "%s/type", base);
    if (!json_is_string(type)) {
        add(c, path, "Should be string");
        return;
    }
    t = json_string_value(type);
    for (size_t k = 0; k < sizeof(widget_types) / sizeof(widget_types[0]); k++)
        known |= strcmp(t, widget_types[k]) == 0;
    if (!known) {
        add(c, path, "Should be equal to one of the allowed values");
        return;
    }
    check_geometry(c, w, base);
    props = json_object_get(w, "properties");
    snprintf(path, sizeof(path), "%s/properties", base);
    if (props && !json_is_object(props)) {
        add(c, path, "Should be object");
        return;
    }
    if (strcmp(t, "metric") == 0 && !json_object_get(props, "metrics") &&
        !json_object_get(props, "annotations")) {
        add(c, path, "Should have required property 'metrics'");
        add(c, path,
            "The metric widget should have specified a region and a data source or an alarm "
            "annotation");
        add(c, path, "Should have required property 'annotations'");
    } else if (strcmp(t, "metric") == 0 && json_object_get(props, "metrics") &&
               !json_is_array(json_object_get(props, "metrics"))) {
        snprintf(path, sizeof(path), "%s/properties/metrics", base);
        add(c, path, "Should be array");
    } else if (strcmp(t, "text") == 0 && !json_is_string(json_object_get(props, "markdown"))) {
        add(c, path, "Should have required property 'markdown'");
    }
}

int sc_dashboard_body_check(const char *body, struct sc_dashboard_check *out)
{
    struct sc_dashboard_check local;
    struct sc_dashboard_check *c = out ? out : &local;
    json_error_t je;
    json_t *root, *widgets, *w;
    size_t i;

    memset(c, 0, sizeof(*c));
    root = body ? json_loads(body, JSON_DECODE_ANY, &je) : NULL;
    if (!root) {
        add(c, "", "The field DashboardBody must be a valid JSON object");
        return c->total;
    }
    if (!json_is_object(root)) {
        add(c, "", "Should be object");
        goto out;
    }
    widgets = json_object_get(root, "widgets");
    if (!widgets) {
        add(c, "", "Should have required property 'widgets'");
        goto out;
    }
    if (!json_is_array(widgets)) {
        add(c, "/widgets", "Should be array");
        goto out;
    }
    if (json_array_size(widgets) > MAX_WIDGETS) {
        add(c, "/widgets", "Should NOT have more than 500 items");
        goto out;
    }
    json_array_foreach(widgets, i, w) check_widget(c, w, i);
out:
    json_decref(root);
    return c->total;
}

/* --- the store --------------------------------------------------------------------------- */

struct sc_dashboards *sc_dashboards_create(const char *account, const char *partition)
{
    struct sc_dashboards *d = calloc(1, sizeof(*d));

    if (!d)
        return NULL;
    d->account = sc_strdup(account ? account : "123456789012");
    d->partition = sc_strdup(partition ? partition : "aws");
    if (!d->account || !d->partition) {
        sc_dashboards_destroy(d);
        return NULL;
    }
    return d;
}

static void dash_free(struct dash *x)
{
    if (!x)
        return;
    free(x->name);
    free(x->arn);
    free(x->body);
    free(x);
}

static void clear(struct sc_dashboards *d)
{
    for (int i = 0; i < d->n; i++)
        dash_free(d->list[i]);
    free(d->list);
    d->list = NULL;
    d->n = d->cap = 0;
}

void sc_dashboards_destroy(struct sc_dashboards *d)
{
    if (!d)
        return;
    clear(d);
    free(d->account);
    free(d->partition);
    free(d);
}

int sc_dashboards_count(const struct sc_dashboards *d)
{
    return d->n;
}

const char *sc_dashboards_account(const struct sc_dashboards *d)
{
    return d->account;
}

const char *sc_dashboards_partition(const struct sc_dashboards *d)
{
    return d->partition;
}

static int find_idx(const struct sc_dashboards *d, const char *name)
{
    return dash_vec_find(d->list, d->n, name);
}

static void view_sync(struct dash *x)
{
    x->view.name = x->name;
    x->view.arn = x->arn;
    x->view.body = x->body;
    x->view.last_modified_ms = x->modified_ms;
    x->view.size = (int64_t)strlen(x->body);
}

static struct dash *dash_new(const struct sc_dashboards *d, const char *name, const char *body,
                             int64_t modified_ms)
{
    struct dash *x = calloc(1, sizeof(*x));
    char arn[400];

    if (!x)
        return NULL;
    snprintf(arn, sizeof(arn), "arn:%s:cloudwatch::%s:dashboard/%s", d->partition, d->account,
             name);
    x->name = sc_strdup(name);
    x->arn = sc_strdup(arn);
    x->body = sc_strdup(body);
    x->modified_ms = modified_ms;
    if (!x->name || !x->arn || !x->body) {
        dash_free(x);
        return NULL;
    }
    view_sync(x);
    return x;
}

/* Stores x under its name (replacing one there). Returns 0 or -1 (OOM, x not taken). */
static int store(struct sc_dashboards *d, struct dash *x)
{
    int idx = find_idx(d, x->name);

    if (idx >= 0) {
        dash_free(d->list[idx]);
        d->list[idx] = x;
        return 0;
    }
    return dash_vec_insert(&d->list, &d->n, &d->cap, -idx - 1, x);
}

static int valid_name(const char *s)
{
    size_t n = 0;

    for (; s[n]; n++) {
        char ch = s[n];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_'))
            return 0;
    }
    return n > 0 && n <= MAX_NAME;
}

/* "The dashboard body is invalid, there are N validation errors:\n[ {...} ]" */
static enum sc_status body_error(const struct sc_dashboard_check *c, struct sc_error *err)
{
    char list[SC_ERR_MESSAGE_LEN];
    size_t off = 0;

    list[0] = 0;
    for (int i = 0; i < c->n && off < sizeof(list); i++) {
        int w = snprintf(list + off, sizeof(list) - off,
                         "%s\n  {\n    \"dataPath\": \"%s\",\n    \"message\": \"%s\"\n  }",
                         i ? "," : "", c->msg[i].data_path, c->msg[i].message);
        if (w < 0)
            break;
        off += (size_t)w;
    }
    return sc_fail(err, SC_ERR_INVALID_PARAMETER_INPUT,
                   "The dashboard body is invalid, there are %d validation errors:\n[%s\n]",
                   c->total, list);
}

enum sc_status sc_dashboards_put(struct sc_dashboards *d, const char *name, const char *body,
                                 int64_t now_ms, struct sc_dashboard_check *check,
                                 struct sc_error *err)
{
    struct sc_dashboard_check local;
    struct sc_dashboard_check *c = check ? check : &local;
    struct dash *x;

    memset(c, 0, sizeof(*c));
    if (!name || !*name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter DashboardName is required.");
    if (!body)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter DashboardBody is required.");
    if (!valid_name(name))
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_INPUT,
                       "The value for field DashboardName contains invalid characters. It can "
                       "only contain alphanumerics, dash (-) and underscore (_).");
    if (sc_dashboard_body_check(body, c) > 0)
        return body_error(c, err);
    x = dash_new(d, name, body, now_ms);
    if (!x || store(d, x) < 0) {
        dash_free(x);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    return SC_OK;
}

enum sc_status sc_dashboards_get(const struct sc_dashboards *d, const char *name,
                                 const struct sc_dashboard_view **out, struct sc_error *err)
{
    int idx;

    *out = NULL;
    if (!name || !*name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter DashboardName is required.");
    idx = find_idx(d, name);
    if (idx < 0)
        return sc_fail(err, SC_ERR_RESOURCE_NOT_FOUND, "Dashboard %s does not exist", name);
    *out = &d->list[idx]->view;
    return SC_OK;
}

enum sc_status sc_dashboards_list(const struct sc_dashboards *d, const char *prefix,
                                  sc_dashboard_visit_fn fn, void *ud, struct sc_error *err)
{
    size_t pl = prefix ? strlen(prefix) : 0;

    (void)err;
    for (int i = 0; i < d->n; i++) {
        if (prefix && strncmp(d->list[i]->name, prefix, pl) != 0)
            continue;
        if (fn(&d->list[i]->view, ud))
            break;
    }
    return SC_OK;
}

enum sc_status sc_dashboards_delete(struct sc_dashboards *d, const char *const *names, int n,
                                    struct sc_error *err)
{
    char missing[SC_ERR_MESSAGE_LEN - 64];
    size_t off = 0;
    int nmissing = 0;

    if (n < 1 || !names)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter DashboardNames is required.");
    missing[0] = 0;
    for (int i = 0; i < n; i++) {
        if (names[i] && find_idx(d, names[i]) >= 0)
            continue;
        if (off < sizeof(missing)) {
            int w = snprintf(missing + off, sizeof(missing) - off, "%s%s", nmissing ? ", " : "",
                             names[i] ? names[i] : "");
            if (w > 0)
                off += (size_t)w;
        }
        nmissing++;
    }
    if (nmissing)
        return sc_fail(err, SC_ERR_RESOURCE_NOT_FOUND,
                       "The specified dashboard does not exist. [%s]", missing);
    for (int i = 0; i < n; i++) {
        int idx = find_idx(d, names[i]);
        if (idx < 0)
            continue; /* named twice */
        dash_free(dash_vec_remove(d->list, &d->n, idx));
    }
    return SC_OK;
}

/* --- the state file ---------------------------------------------------------------------- */

json_t *sc_dashboards_save(const struct sc_dashboards *d)
{
    json_t *arr = json_array();

    for (int i = 0; arr && i < d->n; i++) {
        json_t *o = json_pack("{sssssI}", "name", d->list[i]->name, "body", d->list[i]->body,
                              "last_modified_ms", (json_int_t)d->list[i]->modified_ms);
        if (!o || json_array_append_new(arr, o) < 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

/* Reads a saved list into t (empty, d's account and partition). On error t is empty. */
static enum sc_status parse_saved(struct sc_dashboards *t, const json_t *j, struct sc_error *err)
{
    const json_t *e;
    size_t i;

    if (!json_is_array(j))
        return sc_fail(err, SC_ERR_VALIDATION, "state: dashboards: expected a list");
    json_array_foreach(j, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *body = json_string_value(json_object_get(e, "body"));
        const json_t *ts = json_object_get(e, "last_modified_ms");
        struct dash *x;

        if (!name || !body || !json_is_integer(ts) || !valid_name(name) || find_idx(t, name) >= 0) {
            clear(t);
            return sc_fail(err, SC_ERR_VALIDATION,
                           "state: dashboards[%zu]: name (unique), body and last_modified_ms "
                           "are required",
                           i);
        }
        x = dash_new(t, name, body, json_integer_value(ts));
        if (!x || store(t, x) < 0) {
            dash_free(x);
            clear(t);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
    }
    return SC_OK;
}

enum sc_status sc_dashboards_load(struct sc_dashboards *d, const json_t *j, struct sc_error *err)
{
    struct sc_dashboards t = { 0 };
    enum sc_status s;

    if (!j) {
        clear(d);
        return SC_OK;
    }
    t.account = d->account;
    t.partition = d->partition;
    s = parse_saved(&t, j, err);
    if (s != SC_OK)
        return s;
    clear(d);
    d->list = t.list;
    d->n = t.n;
    d->cap = t.cap;
    return SC_OK;
}

enum sc_status sc_dashboards_merge(struct sc_dashboards *d, const json_t *j,
                                   sc_dashboard_clash_fn fn, void *ud, struct sc_error *err)
{
    struct sc_dashboards t = { 0 };
    enum sc_status s;
    int added = 0;

    if (!j)
        return SC_OK;
    t.account = d->account;
    t.partition = d->partition;
    s = parse_saved(&t, j, err);
    if (s != SC_OK)
        return s;
    /* room first, so that the moves below cannot fail half way */
    for (int i = 0; i < t.n; i++)
        added += find_idx(d, t.list[i]->name) < 0;
    if (d->n + added > d->cap) {
        struct dash **grown = realloc(d->list, (size_t)(d->n + added) * sizeof(*grown));

        if (!grown) {
            clear(&t);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        d->list = grown;
        d->cap = d->n + added;
    }
    for (int i = 0; i < t.n; i++) {
        struct dash *x = t.list[i];
        int idx = find_idx(d, x->name);
        struct sc_dashboard_clash c;

        t.list[i] = NULL;
        if (idx < 0) {
            if (store(d, x) < 0)
                dash_free(x); /* not reached: room was made above */
            continue;
        }
        /* the later LastModified stays; on a tie, the one d held (met first) */
        c.name = x->name;
        c.kept_new = x->modified_ms > d->list[idx]->modified_ms;
        c.kept_ms = c.kept_new ? x->modified_ms : d->list[idx]->modified_ms;
        c.dropped_ms = c.kept_new ? d->list[idx]->modified_ms : x->modified_ms;
        if (fn)
            fn(&c, ud);
        if (c.kept_new) {
            dash_free(d->list[idx]);
            d->list[idx] = x;
        } else {
            dash_free(x);
        }
    }
    free(t.list);
    return SC_OK;
}
