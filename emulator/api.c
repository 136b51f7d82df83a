/* emulator/api.c: handler lookup (see api.h). */
#include "emulator/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "emulator/api_autoscaling_hooks.h"
#include "emulator/api_autoscaling_internal.h"
#include "emulator/api_autoscaling_notify.h"
#include "emulator/api_autoscaling_predict.h"
#include "emulator/api_autoscaling_refresh.h"
#include "emulator/api_cloudwatch_anomaly.h"
#include "emulator/api_cloudwatch_ext.h"
#include "scaler/alarm.h"

static const struct api_handler *find_in(const struct api_handler *t, const char *op)
{
    for (; t->op; t++) {
        if (strcmp(t->op, op) == 0)
            return t;
    }
    return NULL;
}

/* The first of n tables (searched in order) that serves op. */
static const struct api_handler *find_in_tables(const struct api_handler *const *tables, size_t n,
                                                const char *op)
{
    for (size_t i = 0; i < n; i++) {
        const struct api_handler *h = find_in(tables[i], op);
        if (h)
            return h;
    }
    return NULL;
}

const struct api_handler *api_find(const char *service, const char *op)
{
    if (strcmp(service, "autoscaling") == 0) {
        const struct api_handler *const tables[] = {
            api_autoscaling_handlers,        api_autoscaling_instance_handlers,
            api_autoscaling_attach_handlers, api_autoscaling_policy_handlers,
            api_autoscaling_hook_handlers,   api_autoscaling_refresh_handlers,
            api_autoscaling_notify_handlers, api_autoscaling_predict_handlers,
            api_autoscaling_launch_handlers
        };
        return find_in_tables(tables, sizeof(tables) / sizeof(tables[0]), op);
    }
    if (strcmp(service, "elb") == 0)
        return find_in(api_elb_handlers, op);
    if (strcmp(service, "elbv2") == 0)
        return find_in(api_elbv2_handlers, op);
    if (strcmp(service, "cloudwatch") == 0) {
        const struct api_handler *const tables[] = {
            api_cloudwatch_handlers, api_cloudwatch_widget_handlers, api_cloudwatch_stream_handlers,
            api_cloudwatch_insight_handlers, api_cloudwatch_anomaly_handlers
        };
        return find_in_tables(tables, sizeof(tables) / sizeof(tables[0]), op);
    }
    if (strcmp(service, "ec2") == 0)
        return find_in(api_ec2_handlers, op);
    if (strcmp(service, "sts") == 0)
        return find_in(api_sts_handlers, op);
    return NULL;
}

const char **api_strings(json_t *in, const char *member, int *n)
{
    json_t *a = json_object_get(in, member);
    const char **v;
    size_t i;
    json_t *e;

    *n = 0;
    if (!json_is_array(a) || json_array_size(a) == 0)
        return NULL;
    v = cm_xcalloc(json_array_size(a), sizeof(*v));
    json_array_foreach(a, i, e)
    {
        if (json_is_string(e))
            v[(*n)++] = json_string_value(e);
    }
    return v;
}

const char *api_str(json_t *in, const char *member)
{
    return json_string_value(json_object_get(in, member));
}

int api_int(json_t *in, const char *member, int *v)
{
    json_t *j = json_object_get(in, member);

    if (!json_is_integer(j))
        return 0;
    *v = (int)json_integer_value(j);
    return 1;
}

int api_bool(json_t *in, const char *member, int def)
{
    json_t *j = json_object_get(in, member);

    return json_is_boolean(j) ? json_is_true(j) : def;
}

/* Tokens are "sl1-<offset>": opaque to clients, checked here. */
void api_page_window(json_t *in, const char *token_in, const char *limit_in, int def_limit,
                     int max_limit, size_t *start, size_t *limit)
{
    const char *tok = token_in ? api_str(in, token_in) : NULL;
    int l = def_limit;

    *start = 0;
    if (tok && strncmp(tok, "sl1-", 4) == 0 && tok[4]) {
        char *e;
        unsigned long long v = strtoull(tok + 4, &e, 10);

        if (!*e)
            *start = (size_t)v;
    }
    if (limit_in && api_int(in, limit_in, &l)) {
        if (l < 1)
            l = 1;
        if (l > max_limit)
            l = max_limit;
    }
    *limit = (size_t)l;
}

int api_page(json_t *items, json_t *in, const char *token_in, const char *limit_in, int def_limit,
             int max_limit, json_t *out, const char *list_key, const char *token_out,
             struct awserr *err)
{
    const char *tok = token_in ? api_str(in, token_in) : NULL;
    size_t total = json_array_size(items), start = 0, end;
    int limit = def_limit;
    json_t *page;

    if (tok && *tok) {
        char *e;
        unsigned long long v;

        if (strncmp(tok, "sl1-", 4) != 0 || !tok[4])
            goto bad;
        v = strtoull(tok + 4, &e, 10);
        if (*e || v > total)
            goto bad;
        start = (size_t)v;
    }
    if (limit_in && api_int(in, limit_in, &limit)) {
        if (limit < 1)
            limit = 1;
        if (limit > max_limit)
            limit = max_limit;
    }
    end = start + (size_t)limit < total ? start + (size_t)limit : total;
    page = json_array();
    for (size_t i = start; i < end; i++)
        json_array_append(page, json_array_get(items, i));
    json_object_set_new(out, list_key, page);
    if (end < total) {
        char t[40];

        snprintf(t, sizeof(t), "sl1-%zu", end);
        json_object_set_new(out, token_out, json_string(t));
    }
    json_decref(items);
    return 0;
bad:
    json_decref(items);
    return awserr_set(err, 400, "InvalidNextToken", "The token '%.100s' is invalid.", tok);
}

/* ---- metric queries (CloudWatch Metrics, Auto Scaling CustomizedMetricSpecification) ---- */

struct sc_dimension *api_dims(json_t *in, const char *member, int *n)
{
    json_t *a = json_object_get(in, member);
    struct sc_dimension *d;
    size_t i;
    json_t *e;

    *n = (int)json_array_size(a);
    d = cm_xcalloc((size_t)*n + 1, sizeof(*d));
    json_array_foreach(a, i, e)
    {
        d[i].name = api_str(e, "Name");
        d[i].value = api_str(e, "Value");
    }
    return d;
}

json_t *api_dims_json(const struct sc_dimension *d, int n)
{
    json_t *a = json_array();

    for (int i = 0; i < n; i++)
        json_array_append_new(
            a, json_pack("{s:s,s:s}", "Name", d[i].name, "Value", d[i].value ? d[i].value : ""));
    return a;
}

static void set_opt(json_t *o, const char *k, const char *v)
{
    if (v)
        json_object_set_new(o, k, json_string(v));
}

struct sc_alarm_query *api_alarm_queries(json_t *a, int *n)
{
    struct sc_alarm_query *q;
    size_t i;
    json_t *e;

    *n = (int)json_array_size(a);
    q = cm_xcalloc((size_t)*n + 1, sizeof(*q));
    json_array_foreach(a, i, e)
    {
        json_t *ms = json_object_get(e, "MetricStat");
        json_t *m = json_object_get(ms, "Metric");

        q[i].id = api_str(e, "Id");
        q[i].expression = api_str(e, "Expression");
        q[i].label = api_str(e, "Label");
        q[i].has_return_data = json_is_boolean(json_object_get(e, "ReturnData"));
        q[i].return_data = api_bool(e, "ReturnData", 1);
        api_int(e, "Period", &q[i].period);
        if (ms) {
            q[i].has_metric_stat = 1;
            q[i].metric.namespace = api_str(m, "Namespace");
            q[i].metric.metric_name = api_str(m, "MetricName");
            q[i].metric.dimensions = api_dims(m, "Dimensions", &q[i].metric.n_dimensions);
            q[i].has_stat_period = api_int(ms, "Period", &q[i].stat_period);
            q[i].stat = api_str(ms, "Stat");
            q[i].unit = api_str(ms, "Unit");
        }
    }
    return q;
}

void api_alarm_queries_free(struct sc_alarm_query *q, int n)
{
    for (int i = 0; i < n; i++)
        free((void *)q[i].metric.dimensions);
    free(q);
}

json_t *api_alarm_queries_json(const struct sc_alarm_query *q, int n)
{
    json_t *a = json_array();

    for (int i = 0; i < n; i++) {
        json_t *o = json_pack("{s:s}", "Id", q[i].id);

        if (q[i].has_metric_stat) {
            json_t *ms =
                json_pack("{s:{s:s,s:s,s:o},s:i,s:s}", "Metric", "Namespace", q[i].metric.namespace,
                          "MetricName", q[i].metric.metric_name, "Dimensions",
                          api_dims_json(q[i].metric.dimensions, q[i].metric.n_dimensions), "Period",
                          q[i].stat_period, "Stat", q[i].stat);
            set_opt(ms, "Unit", q[i].unit);
            json_object_set_new(o, "MetricStat", ms);
        }
        set_opt(o, "Expression", q[i].expression);
        set_opt(o, "Label", q[i].label);
        json_object_set_new(o, "ReturnData",
                            json_boolean(!q[i].has_return_data || q[i].return_data));
        if (q[i].period)
            json_object_set_new(o, "Period", json_integer(q[i].period));
        json_array_append_new(a, o);
    }
    return a;
}
