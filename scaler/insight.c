/* scaler/insight.c: see insight.h. Rules are kept as DescribeInsightRules' InsightRule
 * objects (with "Tags" beside), keyed by name. */
#include "scaler/insight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/alarm.h"
#include "scaler/alarm_composite.h"

#define OWN_SCHEMA "{\"Name\": \"CloudWatchLogRule\", \"Version\": 1}"

struct sc_insights {
    json_t *rules; /* name -> InsightRule */
};

struct sc_insights *sc_insights_create(void)
{
    struct sc_insights *s = calloc(1, sizeof(*s));

    if (!s)
        return NULL;
    s->rules = json_object();
    if (!s->rules) {
        free(s);
        return NULL;
    }
    return s;
}

void sc_insights_destroy(struct sc_insights *s)
{
    if (!s)
        return;
    json_decref(s->rules);
    free(s);
}

static enum sc_status inval(struct sc_error *err, const char *msg)
{
    return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "%s", msg);
}

static int str_is(const json_t *v, const char *a, const char *b)
{
    const char *s = json_string_value(v);

    return s && (strcmp(s, a) == 0 || (b && strcmp(s, b) == 0));
}

enum sc_status sc_insight_definition_check(const char *definition, struct sc_error *err)
{
    json_t *d = definition ? json_loads(definition, 0, NULL) : NULL;
    const json_t *schema, *contrib, *keys, *names, *arns, *fmt, *agg;
    enum sc_status st = SC_OK;

    if (!json_is_object(d)) {
        st = inval(err, "RuleDefinition must be a valid JSON object.");
        goto out;
    }
    schema = json_object_get(d, "Schema");
    if (!str_is(json_object_get(schema, "Name"), "CloudWatchLogRule", NULL) ||
        !json_is_integer(json_object_get(schema, "Version")) ||
        json_integer_value(json_object_get(schema, "Version")) != 1) {
        st = inval(err, "The Schema must be " OWN_SCHEMA ".");
        goto out;
    }
    names = json_object_get(d, "LogGroupNames");
    arns = json_object_get(d, "LogGroupARNs");
    if ((json_array_size(names) > 0) == (json_array_size(arns) > 0)) {
        st = inval(err, "Specify either LogGroupNames or LogGroupARNs, but not both.");
        goto out;
    }
    fmt = json_object_get(d, "LogFormat");
    if (!str_is(fmt, "JSON", "CLF")) {
        st = inval(err, "LogFormat must be JSON or CLF.");
        goto out;
    }
    contrib = json_object_get(d, "Contribution");
    keys = json_object_get(contrib, "Keys");
    if (!json_is_array(keys) || json_array_size(keys) < 1 || json_array_size(keys) > 4) {
        st = inval(err, "Contribution.Keys must have 1 to 4 keys.");
        goto out;
    }
    agg = json_object_get(d, "AggregateOn");
    if (!str_is(agg, "Count", "Sum")) {
        st = inval(err, "AggregateOn must be Count or Sum.");
        goto out;
    }
    if (str_is(agg, "Sum", NULL) && !json_string_value(json_object_get(contrib, "ValueOf"))) {
        st = inval(err, "ValueOf is required when AggregateOn is Sum.");
        goto out;
    }
    if (json_array_size(json_object_get(contrib, "Filters")) > 4) {
        st = inval(err, "Contribution.Filters can have at most 4 filters.");
        goto out;
    }
    if (json_object_get(d, "Fields") && str_is(fmt, "JSON", NULL))
        st = inval(err, "Fields can only be used with the CLF log format.");
out:
    json_decref(d);
    return st;
}

enum sc_status sc_insights_put(struct sc_insights *s, const json_t *req, struct sc_error *err)
{
    const char *name = json_string_value(json_object_get(req, "RuleName"));
    const char *def = json_string_value(json_object_get(req, "RuleDefinition"));
    const json_t *state = json_object_get(req, "RuleState");
    const json_t *old;
    json_t *o;
    enum sc_status st;

    if (!name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter RuleName is required.");
    if (!def)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter RuleDefinition is required.");
    if (state && !str_is(state, "ENABLED", "DISABLED"))
        return inval(err, "RuleState must be ENABLED or DISABLED.");
    old = json_object_get(s->rules, name);
    if (old && json_is_true(json_object_get(old, "ManagedRule")))
        return inval(err, "You cannot edit managed rules with PutInsightRule.");
    st = sc_insight_definition_check(def, err);
    if (st != SC_OK)
        return st;
    o = json_pack("{s:s,s:s,s:s,s:s,s:b,s:b}", "Name", name, "State",
                  state ? json_string_value(state) : "ENABLED", "Schema", OWN_SCHEMA, "Definition",
                  def, "ManagedRule", 0, "ApplyOnTransformedLogs",
                  json_is_true(json_object_get(req, "ApplyOnTransformedLogs")));
    if (!o)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    if (old && json_object_get(old, "Tags"))
        json_object_set_new(o, "Tags", json_deep_copy(json_object_get(old, "Tags")));
    else if (!old && json_object_get(req, "Tags"))
        json_object_set_new(o, "Tags", json_deep_copy(json_object_get(req, "Tags")));
    if (json_object_set_new(s->rules, name, o) != 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    return SC_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

json_t *sc_insights_describe(const struct sc_insights *s)
{
    size_t n = json_object_size(s->rules), i = 0;
    const char **names = calloc(n + 1, sizeof(*names));
    json_t *arr = json_array(), *v;
    const char *k;

    if (!names || !arr) {
        free(names);
        json_decref(arr);
        return NULL;
    }
    json_object_foreach(s->rules, k, v) names[i++] = k;
    qsort(names, n, sizeof(*names), cmp_str);
    for (i = 0; i < n; i++) {
        json_t *o = json_deep_copy(json_object_get(s->rules, names[i]));
        json_object_del(o, "Tags");
        json_object_del(o, "TemplateName");
        json_object_del(o, "ResourceARN");
        json_array_append_new(arr, o);
    }
    free(names);
    return arr;
}

json_t *sc_insights_batch(struct sc_insights *s, const char *const *names, int n,
                          enum sc_insight_op op)
{
    json_t *fails = json_array();

    for (int i = 0; fails && i < n; i++) {
        json_t *o = json_object_get(s->rules, names[i]);
        char msg[256];

        if (!o) {
            snprintf(msg, sizeof(msg), "The rule %s does not exist.", names[i]);
            json_array_append_new(fails,
                                  json_pack("{s:s,s:s,s:s,s:s}", "FailureResource", names[i],
                                            "ExceptionType", "ResourceNotFoundException",
                                            "FailureCode", "404", "FailureDescription", msg));
            continue;
        }
        if (op == SC_INSIGHT_DELETE)
            json_object_del(s->rules, names[i]);
        else
            json_object_set_new(o, "State",
                                json_string(op == SC_INSIGHT_ENABLE ? "ENABLED" : "DISABLED"));
    }
    return fails;
}

json_t *sc_insights_put_managed(struct sc_insights *s, const json_t *managed_rules)
{
    json_t *fails = json_array();
    const json_t *e;
    size_t i;

    (void)s; /* no template is available for this emulator's resources (docs) */
    json_array_foreach(managed_rules, i, e)
    {
        const char *t = json_string_value(json_object_get(e, "TemplateName"));
        const char *arn = json_string_value(json_object_get(e, "ResourceARN"));
        char msg[512];

        snprintf(msg, sizeof(msg), "The template %s is not available for resource %s.", t ? t : "",
                 arn ? arn : "");
        json_array_append_new(fails,
                              json_pack("{s:s,s:s,s:s,s:s}", "FailureResource", arn ? arn : "",
                                        "ExceptionType", "InvalidParameterValueException",
                                        "FailureCode", "400", "FailureDescription", msg));
    }
    return fails;
}

json_t *sc_insights_list_managed(const struct sc_insights *s, const char *resource_arn)
{
    json_t *arr = json_array(), *v;
    const char *k;

    json_object_foreach(s->rules, k, v)
    {
        const char *arn = json_string_value(json_object_get(v, "ResourceARN"));
        if (!arr || !arn || !resource_arn || strcmp(arn, resource_arn) != 0)
            continue;
        json_array_append_new(arr, json_pack("{s:O,s:s,s:{s:s,s:O}}", "TemplateName",
                                             json_object_get(v, "TemplateName"), "ResourceARN", arn,
                                             "RuleState", "RuleName", k, "State",
                                             json_object_get(v, "State")));
    }
    return arr;
}

enum sc_status sc_insights_report(const struct sc_insights *s, const json_t *req, json_t **out,
                                  struct sc_error *err)
{
    static const char *const metrics[] = { "UniqueContributors",
                                           "MaxContributorValue",
                                           "SampleCount",
                                           "Sum",
                                           "Minimum",
                                           "Maximum",
                                           "Average" };
    const char *name = json_string_value(json_object_get(req, "RuleName"));
    const json_t *rule = name ? json_object_get(s->rules, name) : NULL, *m;
    const json_t *count = json_object_get(req, "MaxContributorCount");
    const json_t *order = json_object_get(req, "OrderBy");
    json_t *d, *keys;
    const char *agg;
    size_t i;

    *out = NULL;
    if (json_integer_value(json_object_get(req, "StartTime")) >=
        json_integer_value(json_object_get(req, "EndTime")))
        return inval(err, "The parameter StartTime must be less than the parameter EndTime.");
    if (count && (json_integer_value(count) < 1 || json_integer_value(count) > 100))
        return inval(err, "MaxContributorCount must be between 1 and 100.");
    if (order && !str_is(order, "SUM", "MAXIMUM"))
        return inval(err, "OrderBy must be SUM or MAXIMUM.");
    json_array_foreach(json_object_get(req, "Metrics"), i, m)
    {
        int known = 0;
        for (size_t k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++)
            known |= str_is(m, metrics[k], NULL);
        if (!known)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "Invalid metric %s.",
                           json_string_value(m) ? json_string_value(m) : "");
    }
    if (!rule)
        return sc_fail(err, SC_ERR_RESOURCE_NOT_FOUND_EXCEPTION, "The rule %s does not exist.",
                       name ? name : "");
    d = json_loads(json_string_value(json_object_get(rule, "Definition")), 0, NULL);
    keys = json_object_get(json_object_get(d, "Contribution"), "Keys");
    agg = json_string_value(json_object_get(d, "AggregateOn"));
    *out = json_pack("{s:o,s:s,s:f,s:I,s:[],s:[]}", "KeyLabels",
                     keys ? json_incref(keys) : json_array(), "AggregationStatistic",
                     agg && strcmp(agg, "Sum") == 0 ? "sum" : "count", "AggregateValue", 0.0,
                     "ApproximateUniqueCount", (json_int_t)0, "Contributors", "MetricDatapoints");
    json_decref(d);
    return *out ? SC_OK : sc_fail(err, SC_ERR_INTERNAL, "out of memory");
}

json_t *sc_insights_rule(struct sc_insights *s, const char *name)
{
    return name ? json_object_get(s->rules, name) : NULL;
}

int sc_insights_count(const struct sc_insights *s)
{
    return (int)json_object_size(s->rules);
}

enum sc_status sc_alarm_contributors_check(const struct sc_alarms *a, const char *name,
                                           struct sc_error *err)
{
    if (name && (sc_alarms_find(a, name) || sc_alarms_composite_find(a, name)))
        return SC_OK;
    return sc_fail(err, SC_ERR_RESOURCE_NOT_FOUND_EXCEPTION, "Alarm %s does not exist.",
                   name ? name : "");
}

json_t *sc_insights_save(const struct sc_insights *s)
{
    json_t *arr = json_array(), *v;
    const char *k;

    json_object_foreach(s->rules, k, v)
    {
        if (!arr || json_array_append_new(arr, json_deep_copy(v)) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

enum sc_status sc_insights_load(struct sc_insights *s, const json_t *j, struct sc_error *err)
{
    json_t *t;
    const json_t *e;
    size_t i;

    if (!j) {
        json_object_clear(s->rules);
        return SC_OK;
    }
    if (!json_is_array(j))
        return sc_fail(err, SC_ERR_VALIDATION, "state: insight_rules: expected a list");
    t = json_object();
    if (!t)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    json_array_foreach(j, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "Name"));

        if (!name || !str_is(json_object_get(e, "State"), "ENABLED", "DISABLED") ||
            !json_string_value(json_object_get(e, "Definition")) || json_object_get(t, name)) {
            json_decref(t);
            return sc_fail(err, SC_ERR_VALIDATION,
                           "state: insight_rules[%zu]: Name (unique), State and Definition are "
                           "required",
                           i);
        }
        json_object_set_new(t, name, json_deep_copy(e));
    }
    json_decref(s->rules);
    s->rules = t;
    return SC_OK;
}
