/* scaler/metric_stream.c: see metric_stream.h. Each stream is kept as its
 * GetMetricStream output object (json_t), in a JSON object keyed by name (Jansson keeps
 * keys unsorted, so lists sort the names). */
#include "scaler/metric_stream.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/metric.h"
#include "scaler/str.h"

#define MAX_FILTER_NAMES 1000
#define MAX_STAT_CONFIGS 100

struct sc_metric_streams {
    char *account, *region;
    json_t *streams; /* name -> GetMetricStream output (with "Tags" kept beside) */
    int otel;
};

struct sc_metric_streams *sc_metric_streams_create(const char *account, const char *region)
{
    struct sc_metric_streams *s = calloc(1, sizeof(*s));

    if (!s)
        return NULL;
    s->account = sc_strdup(account ? account : "123456789012");
    s->region = sc_strdup(region ? region : "us-east-1");
    s->streams = json_object();
    if (!s->account || !s->region || !s->streams) {
        sc_metric_streams_destroy(s);
        return NULL;
    }
    return s;
}

void sc_metric_streams_destroy(struct sc_metric_streams *s)
{
    if (!s)
        return;
    free(s->account);
    free(s->region);
    json_decref(s->streams);
    free(s);
}

static int valid_name(const char *n)
{
    if (!n || !*n || strlen(n) > 255)
        return 0;
    for (const char *p = n; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
            return 0;
    return 1;
}

/* "arn:<partition>:<service>:<region>:<account>:<resource-prefix><rest>": 0 when arn has
 * that form with a non-empty rest; *acct points at its account field. */
static int arn_form(const char *arn, const char *service, int regional, const char *prefix,
                    const char *account)
{
    char part[32], svc[32], reg[32], acct[32];
    int used = 0;

    if (!arn || sscanf(arn, "arn:%31[^:]:%31[^:]:%n", part, svc, &used) != 2 || used == 0)
        return -1;
    arn += used;
    if (strcmp(svc, service) != 0)
        return -1;
    if (regional) {
        if (sscanf(arn, "%31[^:]:%n", reg, &used) != 1)
            return -1;
        arn += used;
    } else {
        if (*arn != ':')
            return -1;
        arn++;
    }
    if (sscanf(arn, "%31[^:]:%n", acct, &used) != 1)
        return -1;
    arn += used;
    if (strncmp(arn, prefix, strlen(prefix)) != 0 || !arn[strlen(prefix)])
        return -1;
    return strcmp(acct, account) == 0 ? 0 : 1;
}

static int is_percentile(const char *s)
{
    struct sc_stat st;

    return sc_stat_parse(s, 0, &st) == 0;
}

/* Additional statistics of the json format: CloudWatch's statistics beyond the four sent
 * anyway: percentiles and the trimmed/winsorized/percentile-rank families, pNN, tmNN,
 * wmNN, tcNN, tsNN, prNN, with an optional (a:b) range form tm(10%:90%). */
static int is_cw_statistic(const char *s)
{
    static const char *const fam[] = { "p",  "tm", "wm", "tc", "ts", "pr",
                                       "TM", "WM", "TC", "TS", "PR" };
    if (is_percentile(s) || strcmp(s, "IQM") == 0)
        return 1;
    for (size_t i = 0; i < sizeof(fam) / sizeof(fam[0]); i++) {
        size_t n = strlen(fam[i]);
        if (strncmp(s, fam[i], n) == 0 && s[n] && (isdigit((unsigned char)s[n]) || s[n] == '('))
            return 1;
    }
    return 0;
}

static enum sc_status check_filters(const json_t *f, int *names, struct sc_error *err)
{
    size_t i;
    const json_t *e;

    json_array_foreach(f, i, e)
    {
        if (!json_string_value(json_object_get(e, "Namespace")))
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "A metric stream filter must have a Namespace.");
        *names += 1 + (int)json_array_size(json_object_get(e, "MetricNames"));
    }
    return SC_OK;
}

static enum sc_status check(const struct sc_metric_streams *s, const json_t *req,
                            struct sc_error *err)
{
    const char *name = json_string_value(json_object_get(req, "Name"));
    const char *fh = json_string_value(json_object_get(req, "FirehoseArn"));
    const char *role = json_string_value(json_object_get(req, "RoleArn"));
    const char *fmt = json_string_value(json_object_get(req, "OutputFormat"));
    const json_t *inc = json_object_get(req, "IncludeFilters");
    const json_t *exc = json_object_get(req, "ExcludeFilters");
    const json_t *sc = json_object_get(req, "StatisticsConfigurations");
    int names = 0, r, otel;
    enum sc_status st;
    size_t i;
    const json_t *e;

    if (!name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter Name is required.");
    if (!valid_name(name))
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The value for parameter Name contains invalid characters.");
    if (!fh)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter FirehoseArn is required.");
    if (!role)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter RoleArn is required.");
    if (!fmt)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter OutputFormat is required.");
    r = arn_form(fh, "firehose", 1, "deliverystream/", s->account);
    if (r < 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "Invalid FirehoseArn: %s", fh);
    if (r > 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The FirehoseArn %s must be in the same account as the metric stream.", fh);
    r = arn_form(role, "iam", 0, "role/", s->account);
    if (r < 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "Invalid RoleArn: %s", role);
    if (r > 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The RoleArn %s must be in the same account as the metric stream.", role);
    if (strcmp(fmt, "json") != 0 && strcmp(fmt, "opentelemetry0.7") != 0 &&
        strcmp(fmt, "opentelemetry1.0") != 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "1 validation error detected: Value '%s' at 'outputFormat' failed to "
                       "satisfy constraint: Member must satisfy enum value set: [json, "
                       "opentelemetry0.7, opentelemetry1.0]",
                       fmt);
    if (json_array_size(inc) > 0 && json_array_size(exc) > 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "You cannot include both IncludeFilters and ExcludeFilters in the same "
                       "operation.");
    st = check_filters(inc, &names, err);
    if (st == SC_OK)
        st = check_filters(exc, &names, err);
    if (st != SC_OK)
        return st;
    if (names > MAX_FILTER_NAMES)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "A metric stream's filters can include up to 1000 total names.");
    if (json_array_size(sc) > MAX_STAT_CONFIGS)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "StatisticsConfigurations can have up to 100 members.");
    otel = strncmp(fmt, "opentelemetry", 13) == 0;
    json_array_foreach(sc, i, e)
    {
        size_t k;
        const json_t *v;

        json_array_foreach(json_object_get(e, "AdditionalStatistics"), k, v)
        {
            const char *stat = json_string_value(v);
            if (!stat || (otel ? !is_percentile(stat) : !is_cw_statistic(stat)))
                return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                               "Invalid statistic %s for output format %s.", stat ? stat : "", fmt);
        }
    }
    return SC_OK;
}

static void copy_member(json_t *dst, const json_t *src, const char *k)
{
    json_t *v = json_object_get(src, k);

    if (v)
        json_object_set_new(dst, k, json_deep_copy(v));
    else
        json_object_del(dst, k);
}

enum sc_status sc_metric_streams_put(struct sc_metric_streams *s, const json_t *req, int64_t now_ms,
                                     const char **arn, struct sc_error *err)
{
    static const char *const members[] = { "IncludeFilters", "ExcludeFilters",
                                           "FirehoseArn",    "RoleArn",
                                           "OutputFormat",   "StatisticsConfigurations" };
    const char *name;
    json_t *old, *o;
    char buf[512];
    enum sc_status st = check(s, req, err);

    if (st != SC_OK)
        return st;
    name = json_string_value(json_object_get(req, "Name"));
    old = json_object_get(s->streams, name);
    o = old ? json_deep_copy(old) : json_object();
    if (!o)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    if (!old) {
        snprintf(buf, sizeof(buf), "arn:aws:cloudwatch:%s:%s:metric-stream/%s", s->region,
                 s->account, name);
        json_object_set_new(o, "Arn", json_string(buf));
        json_object_set_new(o, "Name", json_string(name));
        json_object_set_new(o, "State", json_string("running"));
        json_object_set_new(o, "CreationDate", json_integer(now_ms));
        copy_member(o, req, "Tags");
    }
    for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++)
        copy_member(o, req, members[i]);
    json_object_set_new(
        o, "IncludeLinkedAccountsMetrics",
        json_boolean(json_is_true(json_object_get(req, "IncludeLinkedAccountsMetrics"))));
    json_object_set_new(o, "LastUpdateDate", json_integer(now_ms));
    if (json_object_set_new(s->streams, name, o) != 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    if (arn)
        *arn = json_string_value(json_object_get(o, "Arn"));
    return SC_OK;
}

enum sc_status sc_metric_streams_get(const struct sc_metric_streams *s, const char *name,
                                     json_t **out, struct sc_error *err)
{
    json_t *o = name ? json_object_get(s->streams, name) : NULL;

    *out = NULL;
    if (!o)
        return sc_fail(err, SC_ERR_RESOURCE_NOT_FOUND_EXCEPTION,
                       "The metric stream %s does not exist.", name ? name : "");
    *out = json_deep_copy(o);
    json_object_del(*out, "Tags");
    return *out ? SC_OK : sc_fail(err, SC_ERR_INTERNAL, "out of memory");
}

json_t *sc_metric_streams_by_arn(struct sc_metric_streams *s, const char *arn)
{
    const char *name;
    json_t *o;

    json_object_foreach(s->streams, name, o)
    {
        const char *a = json_string_value(json_object_get(o, "Arn"));

        if (arn && a && strcmp(a, arn) == 0)
            return o;
    }
    return NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

json_t *sc_metric_streams_list(const struct sc_metric_streams *s)
{
    static const char *const entry[] = { "Arn",         "CreationDate", "LastUpdateDate", "Name",
                                         "FirehoseArn", "State",        "OutputFormat" };
    size_t n = json_object_size(s->streams), i = 0;
    const char **names = calloc(n + 1, sizeof(*names));
    json_t *arr = json_array(), *v;
    const char *k;

    if (!names || !arr) {
        free(names);
        json_decref(arr);
        return NULL;
    }
    json_object_foreach(s->streams, k, v) names[i++] = k;
    qsort(names, n, sizeof(*names), cmp_str);
    for (i = 0; i < n; i++) {
        json_t *src = json_object_get(s->streams, names[i]), *o = json_object();
        for (size_t m = 0; o && m < sizeof(entry) / sizeof(entry[0]); m++)
            copy_member(o, src, entry[m]);
        json_array_append_new(arr, o);
    }
    free(names);
    return arr;
}

void sc_metric_streams_delete(struct sc_metric_streams *s, const char *name)
{
    if (name)
        json_object_del(s->streams, name);
}

enum sc_status sc_metric_streams_set_state(struct sc_metric_streams *s, const char *const *names,
                                           int n, int running, int64_t now_ms, struct sc_error *err)
{
    char missing[SC_ERR_MESSAGE_LEN] = "";
    size_t used = 0;

    for (int i = 0; i < n; i++) {
        if (json_object_get(s->streams, names[i]))
            continue;
        used +=
            (size_t)snprintf(missing + used, used < sizeof(missing) ? sizeof(missing) - used : 0,
                             "%s%s", used ? ", " : "", names[i]);
        if (used >= sizeof(missing))
            used = sizeof(missing) - 1;
    }
    if (missing[0])
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "The metric streams [%s] do not exist.",
                       missing);
    for (int i = 0; i < n; i++) {
        json_t *o = json_object_get(s->streams, names[i]);
        json_object_set_new(o, "State", json_string(running ? "running" : "stopped"));
        json_object_set_new(o, "LastUpdateDate", json_integer(now_ms));
    }
    return SC_OK;
}

int sc_metric_streams_count(const struct sc_metric_streams *s)
{
    return (int)json_object_size(s->streams);
}

static int filters_match(const json_t *f, const char *ns, const char *metric)
{
    size_t i;
    const json_t *e;

    json_array_foreach(f, i, e)
    {
        const json_t *names = json_object_get(e, "MetricNames"), *m;
        size_t k;

        const char *fns = json_string_value(json_object_get(e, "Namespace"));

        if (!fns || strcmp(fns, ns) != 0)
            continue;
        if (json_array_size(names) == 0)
            return 1;
        json_array_foreach(names, k, m) if (json_string_value(m) &&
                                            strcmp(json_string_value(m), metric) == 0) return 1;
    }
    return 0;
}

int sc_metric_stream_selects(const struct sc_metric_streams *s, const char *name,
                             const char *namespace, const char *metric_name)
{
    const json_t *o = name ? json_object_get(s->streams, name) : NULL;
    const json_t *inc, *exc;

    if (!o)
        return 0;
    inc = json_object_get(o, "IncludeFilters");
    exc = json_object_get(o, "ExcludeFilters");
    if (json_array_size(inc) > 0)
        return filters_match(inc, namespace, metric_name);
    if (json_array_size(exc) > 0)
        return !filters_match(exc, namespace, metric_name);
    return 1;
}

void sc_metric_streams_set_otel(struct sc_metric_streams *s, int running)
{
    s->otel = running ? 1 : 0;
}

int sc_metric_streams_otel(const struct sc_metric_streams *s)
{
    return s->otel;
}

json_t *sc_metric_streams_save(const struct sc_metric_streams *s)
{
    json_t *arr = json_array(), *v;
    const char *k;

    if (!arr)
        return NULL;
    json_object_foreach(s->streams, k, v)
    {
        if (json_array_append_new(arr, json_deep_copy(v)) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return json_pack("{s:o,s:b}", "streams", arr, "otel", s->otel);
}

enum sc_status sc_metric_streams_load(struct sc_metric_streams *s, const json_t *j,
                                      struct sc_error *err)
{
    const json_t *arr = json_object_get(j, "streams"), *e;
    json_t *t;
    size_t i;

    if (!j) {
        json_object_clear(s->streams);
        s->otel = 0;
        return SC_OK;
    }
    if (!json_is_object(j) || (arr && !json_is_array(arr)))
        return sc_fail(err, SC_ERR_VALIDATION, "state: metric_streams: expected an object");
    t = json_object();
    if (!t)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    json_array_foreach(arr, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "Name"));
        const char *state = json_string_value(json_object_get(e, "State"));

        if (!valid_name(name) || !json_string_value(json_object_get(e, "Arn")) || !state ||
            (strcmp(state, "running") != 0 && strcmp(state, "stopped") != 0) ||
            !json_is_integer(json_object_get(e, "CreationDate")) ||
            !json_is_integer(json_object_get(e, "LastUpdateDate")) || json_object_get(t, name)) {
            json_decref(t);
            return sc_fail(err, SC_ERR_VALIDATION,
                           "state: metric_streams[%zu]: Name (unique), Arn, State, CreationDate "
                           "and LastUpdateDate are required",
                           i);
        }
        json_object_set_new(t, name, json_deep_copy(e));
    }
    json_decref(s->streams);
    s->streams = t;
    s->otel = json_is_true(json_object_get(j, "otel"));
    return SC_OK;
}
