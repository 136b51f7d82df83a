/* scaler/alarm.c: see alarm.h. */
#include "scaler/alarm.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/civil.h"

#define MAX_SLOTS   (86400 / 10 + 2) /* R = N+2 with Period 10 and N = 8640 */
#define SCRATCH_LEN (64 * 1024)
#define AS_PREFIX   "arn:aws:autoscaling:"

enum op { OP_GE, OP_GT, OP_LT, OP_LE };
enum tmd { TMD_MISSING, TMD_IGNORE, TMD_BREACHING, TMD_NOT_BREACHING };
enum hist_type { H_CONFIG, H_STATE, H_ACTION };

static const char *const op_names[] = { "GreaterThanOrEqualToThreshold", "GreaterThanThreshold",
                                        "LessThanThreshold", "LessThanOrEqualToThreshold" };
static const char *const op_words[] = { "greater than or equal to", "greater than", "less than",
                                        "less than or equal to" };
static const char *const anomaly_ops[] = { "LessThanLowerOrGreaterThanUpperThreshold",
                                           "LessThanLowerThreshold", "GreaterThanUpperThreshold" };
static const char *const tmd_names[] = { "missing", "ignore", "breaching", "notBreaching" };
static const char *const state_names[] = { "OK", "ALARM", "INSUFFICIENT_DATA" };
static const char *const hist_names[] = { "ConfigurationUpdate", "StateUpdate", "Action" };

struct tag {
    char *key, *value;
};

/* One evaluation slot kept for the next evaluation. */
struct wslot {
    double val, cnt;
    char has, settled;
};

struct alarm {
    char *name, *arn, *description;
    int actions_enabled;
    char *actions[3][SC_ALARM_MAX_ACTIONS]; /* indexed by enum sc_alarm_state */
    int nactions[3];
    char *metric_name, *ns;
    struct sc_dimension *dims;
    int ndims;
    char *statistic, *extended_statistic;
    struct sc_stat stat;
    int period, n, m, has_m;
    char *unit;
    enum sc_unit unit_e;
    double threshold;
    enum op op;
    enum tmd tmd;
    int has_tmd;
    char *elscp;
    int64_t config_updated_ms;
    enum sc_alarm_state state;
    char reason[SC_ALARM_REASON_MAX];
    char reason_data[SC_ALARM_REASON_DATA_MAX];
    int64_t state_updated_ms, state_transitioned_ms;
    double recent[SC_ALARM_MAX_RECENT];
    int nrecent;
    int64_t last_eval_ms;
    /* the metric the last evaluation found, while the store's generation is m_gen */
    const struct sc_metric *m_cache;
    uint64_t m_gen;
    /* the last evaluation's slots 1..w_n at w_tick (w[k - 1] for slot k), of w_metric at
     * its late version w_late; w_cap entries, none when the alarm cannot keep them */
    struct wslot *w;
    int w_cap, w_n;
    const struct sc_metric *w_metric;
    uint64_t w_late;
    int64_t w_tick;
    int pending;
    struct tag *tags;
    int ntags;
    struct sc_alarm_view view;
};

struct hdesc {
    int64_t ts;
    enum hist_type type;
    size_t off, len;
};

struct sc_alarms {
    char *region, *account;
    struct alarm **list; /* sorted by name */
    int n, cap;
    /* history: descriptors in a ring over a byte arena */
    char *arena;
    size_t arena_cap, head;
    struct hdesc *hd;
    int hd_cap, hd_first, hd_count;
    int64_t keep_ms;
    /* evaluation scratch */
    double *slot_val, *slot_cnt;
    char *slot_has;
    int *eval_slots;
    char *scratch, *scratch2;
};

/* --- small helpers ----------------------------------------------------------------------- */

const char *sc_alarm_state_name(enum sc_alarm_state s)
{
    if ((unsigned)s > SC_ALARM_INSUFFICIENT_DATA)
        return "";
    return state_names[s];
}

int sc_alarm_state_parse(const char *s, enum sc_alarm_state *out)
{
    for (int i = 0; s && i < 3; i++) {
        if (strcmp(s, state_names[i]) == 0) {
            *out = (enum sc_alarm_state)i;
            return 0;
        }
    }
    return -1;
}

void sc_alarms_config_defaults(struct sc_alarms_config *c)
{
    c->region = "us-east-1";
    c->account = "123456789012";
    c->history_bytes = 8u << 20;
    c->history_items = 65536;
    c->history_keep_ms = 14LL * 86400 * 1000;
}

static char *dup_str(const char *s)
{
    char *d;
    size_t n;

    if (!s)
        return NULL;
    n = strlen(s) + 1;
    d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* dd/MM/yy HH:mm:ss */
static void fmt_reason_date(int64_t ms, char *out, size_t n)
{
    struct sc_civil c;

    sc_civil_from_ms(ms, &c);
    snprintf(out, n, "%02d/%02d/%02d %02d:%02d:%02d", c.day, c.month, c.year % 100, c.hour,
             c.minute, c.second);
}

/* 2014-04-09T18:59:06.419+0000 */
static void fmt_json_date(int64_t ms, char *out, size_t n)
{
    struct sc_civil c;

    sc_civil_from_ms(ms, &c);
    snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03d+0000", c.year, c.month, c.day, c.hour,
             c.minute, c.second, c.msec);
}

/* A bounded string builder: writes what fits, always NUL-terminated. */
struct sb {
    char *p;
    size_t n, cap;
};

static void sb_init(struct sb *b, char *p, size_t cap)
{
    b->p = p;
    b->n = 0;
    b->cap = cap;
    p[0] = 0;
}

static void sb_raw(struct sb *b, const char *s)
{
    size_t l = strlen(s);

    if (b->n + 1 >= b->cap)
        return;
    if (l > b->cap - b->n - 1)
        l = b->cap - b->n - 1;
    memcpy(b->p + b->n, s, l);
    b->n += l;
    b->p[b->n] = 0;
}

static void sb_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sb *b, const char *fmt, ...)
{
    va_list ap;
    int r;

    if (b->n + 1 >= b->cap)
        return;
    va_start(ap, fmt);
    r = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    if (r < 0)
        return;
    b->n += (size_t)r < b->cap - b->n ? (size_t)r : b->cap - b->n - 1;
}

static void sb_num(struct sb *b, double v)
{
    char num[40];

    sc_java_double(v, num, sizeof(num));
    sb_raw(b, num);
}

static void sb_jstr(struct sb *b, const char *s)
{
    char u[8];

    sb_raw(b, "\"");
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            u[0] = '\\';
            u[1] = (char)c;
            u[2] = 0;
            sb_raw(b, u);
        } else if (c < 0x20) {
            snprintf(u, sizeof(u), "\\u%04x", c);
            sb_raw(b, u);
        } else {
            u[0] = (char)c;
            u[1] = 0;
            sb_raw(b, u);
        }
    }
    sb_raw(b, "\"");
}

/* A light structural check, enough to embed text as a JSON value safely. */
static int json_object_like(const char *s)
{
    int depth = 0, in_str = 0;
    const char *p = s;

    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    if (*p != '{')
        return 0;
    for (; *p; p++) {
        if (in_str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_str = 0;
            else if ((unsigned char)*p < 0x20)
                return 0;
            continue;
        }
        if (*p == '"')
            in_str = 1;
        else if (*p == '{' || *p == '[')
            depth++;
        else if (*p == '}' || *p == ']') {
            if (--depth < 0)
                return 0;
            if (depth == 0) {
                p++;
                while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
                    p++;
                return *p == 0;
            }
        }
    }
    return 0;
}

/* --- history ring -------------------------------------------------------------------------- */

static void hist_evict_oldest(struct sc_alarms *a)
{
    a->hd_first = (a->hd_first + 1) % a->hd_cap;
    a->hd_count--;
}

static void hist_add(struct sc_alarms *a, int64_t ts, enum hist_type type, const char *name,
                     const char *summary, const char *data)
{
    size_t ln = strlen(name) + 1, ls = strlen(summary) + 1, ld = strlen(data) + 1, n;
    struct hdesc *d;
    char *p;

    if (ld > a->arena_cap / 4)
        ld = a->arena_cap / 4; /* truncated (never with the default sizes) */
    n = ln + ls + ld;
    if (n > a->arena_cap)
        return;
    if (a->head + n > a->arena_cap) {
        while (a->hd_count > 0 && a->hd[a->hd_first].off >= a->head)
            hist_evict_oldest(a);
        a->head = 0;
    }
    while (a->hd_count > 0 && a->hd[a->hd_first].off >= a->head &&
           a->hd[a->hd_first].off < a->head + n)
        hist_evict_oldest(a);
    if (a->hd_count == a->hd_cap)
        hist_evict_oldest(a);
    p = a->arena + a->head;
    memcpy(p, name, ln);
    memcpy(p + ln, summary, ls);
    memcpy(p + ln + ls, data, ld - 1);
    p[ln + ls + ld - 1] = 0;
    d = &a->hd[(a->hd_first + a->hd_count) % a->hd_cap];
    d->ts = ts;
    d->type = type;
    d->off = a->head;
    d->len = n;
    a->hd_count++;
    a->head += n;
}

/* --- create / destroy ---------------------------------------------------------------------- */

static void alarm_free(struct alarm *al)
{
    if (!al)
        return;
    free(al->name);
    free(al->arn);
    free(al->description);
    for (int s = 0; s < 3; s++)
        for (int i = 0; i < al->nactions[s]; i++)
            free(al->actions[s][i]);
    free(al->metric_name);
    free(al->ns);
    free(al->w);
    for (int i = 0; i < al->ndims; i++) {
        free((char *)al->dims[i].name);
        free((char *)al->dims[i].value);
    }
    free(al->dims);
    free(al->statistic);
    free(al->extended_statistic);
    free(al->unit);
    free(al->elscp);
    for (int i = 0; i < al->ntags; i++) {
        free(al->tags[i].key);
        free(al->tags[i].value);
    }
    free(al->tags);
    free(al);
}

struct sc_alarms *sc_alarms_create(const struct sc_alarms_config *cfg)
{
    struct sc_alarms_config c;
    struct sc_alarms *a = calloc(1, sizeof(*a));

    if (!a)
        return NULL;
    sc_alarms_config_defaults(&c);
    if (cfg) {
        if (cfg->region)
            c.region = cfg->region;
        if (cfg->account)
            c.account = cfg->account;
        if (cfg->history_bytes)
            c.history_bytes = cfg->history_bytes;
        if (cfg->history_items > 0)
            c.history_items = cfg->history_items;
        if (cfg->history_keep_ms > 0)
            c.history_keep_ms = cfg->history_keep_ms;
    }
    if (c.history_bytes < 4096)
        c.history_bytes = 4096;
    a->region = dup_str(c.region);
    a->account = dup_str(c.account);
    a->arena_cap = c.history_bytes;
    a->arena = malloc(a->arena_cap);
    a->hd_cap = c.history_items;
    a->hd = calloc((size_t)a->hd_cap, sizeof(*a->hd));
    a->keep_ms = c.history_keep_ms;
    a->slot_val = calloc(MAX_SLOTS, sizeof(*a->slot_val));
    a->slot_cnt = calloc(MAX_SLOTS, sizeof(*a->slot_cnt));
    a->slot_has = calloc(MAX_SLOTS, 1);
    a->eval_slots = calloc(MAX_SLOTS, sizeof(*a->eval_slots));
    a->scratch = malloc(SCRATCH_LEN);
    a->scratch2 = malloc(SCRATCH_LEN);
    if (!a->region || !a->account || !a->arena || !a->hd || !a->slot_val || !a->slot_cnt ||
        !a->slot_has || !a->eval_slots || !a->scratch || !a->scratch2) {
        sc_alarms_destroy(a);
        return NULL;
    }
    return a;
}

void sc_alarms_destroy(struct sc_alarms *a)
{
    if (!a)
        return;
    for (int i = 0; i < a->n; i++)
        alarm_free(a->list[i]);
    free(a->list);
    free(a->region);
    free(a->account);
    free(a->arena);
    free(a->hd);
    free(a->slot_val);
    free(a->slot_cnt);
    free(a->slot_has);
    free(a->eval_slots);
    free(a->scratch);
    free(a->scratch2);
    free(a);
}

/* --- lookup ---------------------------------------------------------------------------------- */

/* Index of name, or -(insertion point)-1. */
static int find_idx(const struct sc_alarms *a, const char *name)
{
    int lo = 0, hi = a->n - 1;

    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(a->list[mid]->name, name);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

static struct alarm *find_alarm(const struct sc_alarms *a, const char *name)
{
    int i;

    if (!name)
        return NULL;
    i = find_idx(a, name);
    return i >= 0 ? a->list[i] : NULL;
}

static void view_sync(struct alarm *al)
{
    struct sc_alarm_view *v = &al->view;

    v->alarm_name = al->name;
    v->alarm_arn = al->arn;
    v->alarm_description = al->description;
    v->alarm_configuration_updated_timestamp_ms = al->config_updated_ms;
    v->actions_enabled = al->actions_enabled;
    v->ok_actions = (const char *const *)al->actions[SC_ALARM_OK];
    v->n_ok_actions = al->nactions[SC_ALARM_OK];
    v->alarm_actions = (const char *const *)al->actions[SC_ALARM_ALARM];
    v->n_alarm_actions = al->nactions[SC_ALARM_ALARM];
    v->insufficient_data_actions = (const char *const *)al->actions[SC_ALARM_INSUFFICIENT_DATA];
    v->n_insufficient_data_actions = al->nactions[SC_ALARM_INSUFFICIENT_DATA];
    v->state = al->state;
    v->state_value = state_names[al->state];
    v->state_reason = al->reason;
    v->state_reason_data = al->reason_data[0] ? al->reason_data : NULL;
    v->state_updated_timestamp_ms = al->state_updated_ms;
    v->state_transitioned_timestamp_ms = al->state_transitioned_ms;
    v->metric_name = al->metric_name;
    v->namespace = al->ns;
    v->statistic = al->statistic;
    v->extended_statistic = al->extended_statistic;
    v->dimensions = al->dims;
    v->n_dimensions = al->ndims;
    v->period = al->period;
    v->unit = al->unit;
    v->evaluation_periods = al->n;
    v->has_datapoints_to_alarm = al->has_m;
    v->datapoints_to_alarm = al->m;
    v->threshold = al->threshold;
    v->comparison_operator = op_names[al->op];
    v->treat_missing_data = al->has_tmd ? tmd_names[al->tmd] : NULL;
    v->evaluate_low_sample_count_percentile = al->elscp;
    v->recent_values = al->recent;
    v->n_recent_values = al->nrecent;
    v->last_evaluated_ms = al->last_eval_ms;
}

const struct sc_alarm_view *sc_alarms_find(const struct sc_alarms *a, const char *name)
{
    struct alarm *al = find_alarm(a, name);
    return al ? &al->view : NULL;
}

int sc_alarms_count(const struct sc_alarms *a)
{
    return a->n;
}

int sc_alarms_has_hires(const struct sc_alarms *a)
{
    for (int i = 0; i < a->n; i++)
        if (a->list[i]->period < 60)
            return 1;
    return 0;
}

int sc_alarms_has_pending(const struct sc_alarms *a)
{
    for (int i = 0; i < a->n; i++)
        if (a->list[i]->pending)
            return 1;
    return 0;
}

/* --- alarm JSON (history data) ---------------------------------------------------------------- */

static void alarm_json(struct sb *b, const struct alarm *al)
{
    static const char *const keys[3] = { "okactions", "alarmActions", "insufficientDataActions" };
    char date[40];

    sb_raw(b, "{\"alarmName\":");
    sb_jstr(b, al->name);
    sb_raw(b, ",\"alarmArn\":");
    sb_jstr(b, al->arn);
    if (al->description) {
        sb_raw(b, ",\"alarmDescription\":");
        sb_jstr(b, al->description);
    }
    sb_raw(b, ",\"namespace\":");
    sb_jstr(b, al->ns);
    sb_raw(b, ",\"metricName\":");
    sb_jstr(b, al->metric_name);
    sb_raw(b, ",\"dimensions\":[");
    for (int i = 0; i < al->ndims; i++) {
        sb_raw(b, i ? ",{\"name\":" : "{\"name\":");
        sb_jstr(b, al->dims[i].name);
        sb_raw(b, ",\"value\":");
        sb_jstr(b, al->dims[i].value);
        sb_raw(b, "}");
    }
    sb_raw(b, "]");
    if (al->statistic) {
        sb_raw(b, ",\"statistic\":");
        sb_jstr(b, al->statistic);
    } else {
        sb_raw(b, ",\"extendedStatistic\":");
        sb_jstr(b, al->extended_statistic);
    }
    sb_printf(b, ",\"period\":%d,\"evaluationPeriods\":%d", al->period, al->n);
    if (al->has_m)
        sb_printf(b, ",\"datapointsToAlarm\":%d", al->m);
    sb_raw(b, ",\"threshold\":");
    sb_num(b, al->threshold);
    sb_raw(b, ",\"comparisonOperator\":");
    sb_jstr(b, op_names[al->op]);
    if (al->has_tmd) {
        sb_raw(b, ",\"treatMissingData\":");
        sb_jstr(b, tmd_names[al->tmd]);
    }
    if (al->unit) {
        sb_raw(b, ",\"unit\":");
        sb_jstr(b, al->unit);
    }
    sb_printf(b, ",\"actionsEnabled\":%s", al->actions_enabled ? "true" : "false");
    for (int s = 0; s < 3; s++) {
        sb_printf(b, ",\"%s\":[", keys[s]);
        for (int i = 0; i < al->nactions[s]; i++) {
            if (i)
                sb_raw(b, ",");
            sb_jstr(b, al->actions[s][i]);
        }
        sb_raw(b, "]");
    }
    sb_raw(b, ",\"stateValue\":");
    sb_jstr(b, state_names[al->state]);
    fmt_json_date(al->config_updated_ms, date, sizeof(date));
    sb_raw(b, ",\"alarmConfigurationUpdatedTimestamp\":");
    sb_jstr(b, date);
    sb_raw(b, "}");
}

/* --- PutMetricAlarm ----------------------------------------------------------------------------
 */

static int valid_period(int p)
{
    return p == 10 || p == 20 || p == 30 || (p > 0 && p % 60 == 0);
}

static enum sc_status validate_actions(const char *const *acts, int n, const char *param,
                                       struct sc_error *err)
{
    if (n > SC_ALARM_MAX_ACTIONS)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection %s must not have a size greater than 5.", param);
    for (int i = 0; i < n; i++) {
        if (!acts[i] || strncmp(acts[i], "arn:", 4) != 0 || strlen(acts[i]) > 1024)
            return sc_fail(err, SC_ERR_VALIDATION, "Invalid arn syntax: %s",
                           acts[i] ? acts[i] : "");
    }
    return SC_OK;
}

static enum sc_status validate_put(const struct sc_put_metric_alarm_req *r, struct sc_stat *st,
                                   enum op *op, enum tmd *tmd, enum sc_unit *unit,
                                   struct sc_error *err)
{
    enum sc_status s;

    if (!r->alarm_name || !*r->alarm_name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter AlarmName is required.");
    if (strlen(r->alarm_name) > 255)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'alarmName' failed to satisfy "
                       "constraint: Member must have length less than or equal to 255",
                       r->alarm_name);
    if (r->alarm_description && strlen(r->alarm_description) > 1024)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at 'alarmDescription' failed to satisfy "
                       "constraint: Member must have length less than or equal to 1024");
    if (r->has_metrics)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Metric math alarms (the Metrics parameter) are not supported by scalelab; "
                       "use MetricName, Namespace and Statistic.");
    if (r->comparison_operator) {
        for (int i = 0; i < 3; i++)
            if (strcmp(r->comparison_operator, anomaly_ops[i]) == 0)
                return sc_fail(err, SC_ERR_VALIDATION,
                               "ComparisonOperator %s is not supported by scalelab: anomaly "
                               "detection bands are not implemented.",
                               r->comparison_operator);
    }
    if (r->threshold_metric_id)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "ThresholdMetricId is not supported by scalelab: anomaly detection bands "
                       "are not implemented.");
    if (!r->metric_name || !*r->metric_name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter MetricName is required.");
    if (strlen(r->metric_name) > 255)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'metricName' failed to satisfy "
                       "constraint: Member must have length less than or equal to 255",
                       r->metric_name);
    if (!r->namespace || !*r->namespace)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter Namespace is required.");
    if (strlen(r->namespace) > 255 || r->namespace[0] == ':')
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'namespace' failed to satisfy "
                       "constraint: Member must satisfy regular expression pattern: [^:].*",
                       r->namespace);
    if (r->n_dimensions < 0 || r->n_dimensions > SC_METRIC_MAX_DIMENSIONS)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection Dimensions must not have a size greater than 30.");
    for (int i = 0; i < r->n_dimensions; i++) {
        if (!r->dimensions[i].name || !*r->dimensions[i].name)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter Dimensions.member.%d.Name is required.", i + 1);
        if (!r->dimensions[i].value || !*r->dimensions[i].value)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter Dimensions.member.%d.Value is required.", i + 1);
    }
    if (!r->statistic && !r->extended_statistic)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "One of the parameters Statistic or ExtendedStatistic is required.");
    if (r->statistic && r->extended_statistic)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "The parameters Statistic and ExtendedStatistic are mutually exclusive and "
                       "you have specified both.");
    if (r->statistic && sc_stat_parse(r->statistic, 1, st) < 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'statistic' failed to satisfy "
                       "constraint: Member must satisfy enum value set: [Maximum, SampleCount, "
                       "Sum, Minimum, Average]",
                       r->statistic);
    if (r->extended_statistic && sc_stat_parse(r->extended_statistic, 0, st) < 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The value %s for parameter ExtendedStatistic is invalid.",
                       r->extended_statistic);
    if (!r->has_period)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter Period is required.");
    if (r->period <= 0)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter Period must be greater than 0.");
    if (!valid_period(r->period))
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter Period must be a multiple of 60.");
    if (!r->has_evaluation_periods)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The parameter EvaluationPeriods is required.");
    if (r->evaluation_periods < 1)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter EvaluationPeriods must be greater than or equal to 1.");
    if (r->has_datapoints_to_alarm && r->datapoints_to_alarm < 1)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter DatapointsToAlarm must be greater than or equal to 1.");
    if (r->has_datapoints_to_alarm && r->datapoints_to_alarm > r->evaluation_periods)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "DatapointsToAlarm must be less than or equal to EvaluationPeriods.");
    if ((int64_t)r->period * r->evaluation_periods > 86400)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "Metrics cannot be checked across more than a day (EvaluationPeriods * "
                       "Period must be <= 86400).");
    if (!r->has_threshold)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter Threshold is required.");
    if (!isfinite(r->threshold)) {
        char num[40];
        sc_java_double(r->threshold, num, sizeof(num));
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The value %s for parameter Threshold is invalid.", num);
    }
    if (!r->comparison_operator)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The parameter ComparisonOperator is required.");
    *op = (enum op) - 1;
    for (int i = 0; i < 4; i++)
        if (strcmp(r->comparison_operator, op_names[i]) == 0)
            *op = (enum op)i;
    if ((int)*op < 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'comparisonOperator' failed to "
                       "satisfy constraint: Member must satisfy enum value set: "
                       "[GreaterThanOrEqualToThreshold, GreaterThanThreshold, LessThanThreshold, "
                       "LessThanOrEqualToThreshold, LessThanLowerOrGreaterThanUpperThreshold, "
                       "LessThanLowerThreshold, GreaterThanUpperThreshold]",
                       r->comparison_operator);
    *tmd = TMD_MISSING;
    if (r->treat_missing_data) {
        int ok = 0;
        for (int i = 0; i < 4; i++) {
            if (strcmp(r->treat_missing_data, tmd_names[i]) == 0) {
                *tmd = (enum tmd)i;
                ok = 1;
            }
        }
        if (!ok)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The value %s is not a valid TreatMissingData value. Valid values are "
                           "breaching, notBreaching, ignore and missing.",
                           r->treat_missing_data);
    }
    if (r->evaluate_low_sample_count_percentile) {
        if (!r->extended_statistic)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                           "EvaluateLowSampleCountPercentile can only be used with "
                           "ExtendedStatistic.");
        if (strcmp(r->evaluate_low_sample_count_percentile, "evaluate") != 0 &&
            strcmp(r->evaluate_low_sample_count_percentile, "ignore") != 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The value %s is not a valid EvaluateLowSampleCountPercentile value. "
                           "Valid values are evaluate and ignore.",
                           r->evaluate_low_sample_count_percentile);
    }
    *unit = SC_UNIT_ANY;
    if (r->unit && sc_unit_parse(r->unit, unit) < 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'unit' failed to satisfy "
                       "constraint: Member must satisfy enum value set: [Seconds, Microseconds, "
                       "Milliseconds, Bytes, Kilobytes, Megabytes, Gigabytes, Terabytes, Bits, "
                       "Kilobits, Megabits, Gigabits, Terabits, Percent, Count, Bytes/Second, "
                       "Kilobytes/Second, Megabytes/Second, Gigabytes/Second, Terabytes/Second, "
                       "Bits/Second, Kilobits/Second, Megabits/Second, Gigabits/Second, "
                       "Terabits/Second, Count/Second, None]",
                       r->unit);
    s = validate_actions(r->ok_actions, r->n_ok_actions, "OKActions", err);
    if (s == SC_OK)
        s = validate_actions(r->alarm_actions, r->n_alarm_actions, "AlarmActions", err);
    if (s == SC_OK)
        s = validate_actions(r->insufficient_data_actions, r->n_insufficient_data_actions,
                             "InsufficientDataActions", err);
    if (s != SC_OK)
        return s;
    for (int i = 0; i < r->n_tags; i++)
        if (!r->tags[i].key || !*r->tags[i].key || !r->tags[i].value)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter Tags.member.%d.%s is required.", i + 1,
                           r->tags[i].key && *r->tags[i].key ? "Value" : "Key");
    return SC_OK;
}

/* Builds the configuration part of a new alarm from a validated request. */
static struct alarm *alarm_build(const struct sc_alarms *a, const struct sc_put_metric_alarm_req *r,
                                 const struct sc_stat *st, enum op op, enum tmd tmd,
                                 enum sc_unit unit)
{
    struct alarm *al = calloc(1, sizeof(*al));
    const char *const *lists[3] = { r->ok_actions, r->alarm_actions, r->insufficient_data_actions };
    const int ns[3] = { r->n_ok_actions, r->n_alarm_actions, r->n_insufficient_data_actions };
    char arn[1024];
    int bad = 0;

    if (!al)
        return NULL;
    snprintf(arn, sizeof(arn), "arn:aws:cloudwatch:%s:%s:alarm:%s", a->region, a->account,
             r->alarm_name);
    al->name = dup_str(r->alarm_name);
    al->arn = dup_str(arn);
    bad |= !al->name || !al->arn;
    if (r->alarm_description) {
        al->description = dup_str(r->alarm_description);
        bad |= !al->description;
    }
    al->actions_enabled = r->has_actions_enabled ? r->actions_enabled != 0 : 1;
    for (int s = 0; s < 3; s++) {
        for (int i = 0; i < ns[s]; i++) {
            al->actions[s][i] = dup_str(lists[s][i]);
            bad |= !al->actions[s][i];
            al->nactions[s]++;
        }
    }
    al->metric_name = dup_str(r->metric_name);
    al->ns = dup_str(r->namespace);
    bad |= !al->metric_name || !al->ns;
    if (r->n_dimensions > 0) {
        al->dims = calloc((size_t)r->n_dimensions, sizeof(*al->dims));
        bad |= !al->dims;
        for (int i = 0; al->dims && i < r->n_dimensions; i++) {
            al->dims[i].name = dup_str(r->dimensions[i].name);
            al->dims[i].value = dup_str(r->dimensions[i].value);
            al->ndims++;
            bad |= !al->dims[i].name || !al->dims[i].value;
        }
    }
    if (r->statistic) {
        al->statistic = dup_str(r->statistic);
        bad |= !al->statistic;
    } else {
        al->extended_statistic = dup_str(r->extended_statistic);
        bad |= !al->extended_statistic;
    }
    al->stat = *st;
    al->period = r->period;
    al->n = r->evaluation_periods;
    al->has_m = r->has_datapoints_to_alarm;
    al->m = r->has_datapoints_to_alarm ? r->datapoints_to_alarm : r->evaluation_periods;
    if (r->unit) {
        al->unit = dup_str(r->unit);
        bad |= !al->unit;
    }
    al->unit_e = unit;
    al->threshold = r->threshold;
    al->op = op;
    al->tmd = tmd;
    al->has_tmd = r->treat_missing_data != NULL;
    if (r->evaluate_low_sample_count_percentile) {
        al->elscp = dup_str(r->evaluate_low_sample_count_percentile);
        bad |= !al->elscp;
    }
    if (bad) {
        alarm_free(al);
        return NULL;
    }
    /* slots a minute-aligned evaluation can keep (sc_metric_period_settled); without the
     * memory the alarm just aggregates every slot */
    if (al->period % 60 == 0 && al->period % 3600 != 0 && al->stat.kind != SC_STAT_PERCENTILE) {
        al->w_cap = al->n + 2 < MAX_SLOTS - 1 ? al->n + 2 : MAX_SLOTS - 1;
        al->w = calloc((size_t)al->w_cap, sizeof(*al->w));
        if (!al->w)
            al->w_cap = 0;
    }
    return al;
}

enum sc_status sc_alarms_put(struct sc_alarms *a, const struct sc_put_metric_alarm_req *req,
                             int64_t now_ms, struct sc_error *err)
{
    struct sc_stat st;
    enum op op;
    enum tmd tmd;
    enum sc_unit unit;
    enum sc_status s;
    struct alarm *al, *old;
    struct sb b;
    char summary[400];
    int idx;

    s = validate_put(req, &st, &op, &tmd, &unit, err);
    if (s != SC_OK)
        return s;
    al = alarm_build(a, req, &st, op, tmd, unit);
    if (!al)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    al->config_updated_ms = now_ms;
    idx = find_idx(a, req->alarm_name);
    if (idx >= 0) {
        /* full overwrite of the configuration; state and tags stay */
        old = a->list[idx];
        al->state = old->state;
        memcpy(al->reason, old->reason, sizeof(al->reason));
        memcpy(al->reason_data, old->reason_data, sizeof(al->reason_data));
        al->state_updated_ms = old->state_updated_ms;
        al->state_transitioned_ms = old->state_transitioned_ms;
        memcpy(al->recent, old->recent, sizeof(al->recent));
        al->nrecent = old->nrecent;
        al->last_eval_ms = old->last_eval_ms;
        al->tags = old->tags;
        al->ntags = old->ntags;
        old->tags = NULL;
        old->ntags = 0;
        sb_init(&b, a->scratch, SCRATCH_LEN);
        sb_raw(&b, "{\"type\":\"Update\",\"version\":\"1.0\",\"originalUpdatedAlarm\":");
        alarm_json(&b, old);
        sb_raw(&b, ",\"updatedAlarm\":");
        alarm_json(&b, al);
        sb_raw(&b, "}");
        snprintf(summary, sizeof(summary), "Alarm \"%s\" updated", al->name);
        a->list[idx] = al;
        alarm_free(old);
    } else {
        if (a->n == a->cap) {
            int nc = a->cap ? a->cap * 2 : 64;
            struct alarm **l = realloc(a->list, (size_t)nc * sizeof(*l));
            if (!l) {
                alarm_free(al);
                return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
            }
            a->list = l;
            a->cap = nc;
        }
        if (req->n_tags > 0) {
            al->tags = calloc((size_t)req->n_tags, sizeof(*al->tags));
            if (!al->tags) {
                alarm_free(al);
                return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
            }
            for (int i = 0; i < req->n_tags; i++) {
                al->tags[i].key = dup_str(req->tags[i].key);
                al->tags[i].value = dup_str(req->tags[i].value);
                al->ntags++;
                if (!al->tags[i].key || !al->tags[i].value) {
                    alarm_free(al);
                    return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
                }
            }
        }
        al->state = SC_ALARM_INSUFFICIENT_DATA;
        snprintf(al->reason, sizeof(al->reason), "Unchecked: Initial alarm creation");
        al->state_updated_ms = now_ms;
        al->state_transitioned_ms = now_ms;
        idx = -idx - 1;
        memmove(&a->list[idx + 1], &a->list[idx], (size_t)(a->n - idx) * sizeof(a->list[0]));
        a->list[idx] = al;
        a->n++;
        sb_init(&b, a->scratch, SCRATCH_LEN);
        sb_raw(&b, "{\"type\":\"Create\",\"version\":\"1.0\",\"createdAlarm\":");
        alarm_json(&b, al);
        sb_raw(&b, "}");
        snprintf(summary, sizeof(summary), "Alarm \"%s\" created", al->name);
    }
    view_sync(al);
    hist_add(a, now_ms, H_CONFIG, al->name, summary, a->scratch);
    return SC_OK;
}

static enum sc_status check_names(const char *const *names, int n, struct sc_error *err)
{
    if (n < 1 || !names)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter AlarmNames is required.");
    if (n > SC_ALARM_MAX_NAMES)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection AlarmNames must not have a size greater than 100.");
    for (int i = 0; i < n; i++)
        if (!names[i] || !*names[i])
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter AlarmNames.member.%d is required.", i + 1);
    return SC_OK;
}

enum sc_status sc_alarms_delete(struct sc_alarms *a, const char *const *names, int n,
                                int64_t now_ms, struct sc_error *err)
{
    enum sc_status s = check_names(names, n, err);
    char summary[400];
    struct sb b;

    if (s != SC_OK)
        return s;
    for (int i = 0; i < n; i++) {
        int idx = find_idx(a, names[i]);
        struct alarm *al;
        if (idx < 0)
            continue;
        al = a->list[idx];
        sb_init(&b, a->scratch, SCRATCH_LEN);
        sb_raw(&b, "{\"type\":\"Delete\",\"version\":\"1.0\",\"deletedAlarm\":");
        alarm_json(&b, al);
        sb_raw(&b, "}");
        snprintf(summary, sizeof(summary), "Alarm \"%s\" deleted", al->name);
        hist_add(a, now_ms, H_CONFIG, al->name, summary, a->scratch);
        memmove(&a->list[idx], &a->list[idx + 1], (size_t)(a->n - idx - 1) * sizeof(a->list[0]));
        a->n--;
        alarm_free(al);
    }
    return SC_OK;
}

/* --- describes ----------------------------------------------------------------------------------
 */

static int has_action_prefix(const struct alarm *al, const char *prefix)
{
    size_t l = strlen(prefix);

    for (int s = 0; s < 3; s++)
        for (int i = 0; i < al->nactions[s]; i++)
            if (strncmp(al->actions[s][i], prefix, l) == 0)
                return 1;
    return 0;
}

static enum sc_status state_value_error(const char *v, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VALIDATION,
                   "1 validation error detected: Value '%s' at 'stateValue' failed to satisfy "
                   "constraint: Member must satisfy enum value set: [INSUFFICIENT_DATA, ALARM, OK]",
                   v);
}

enum sc_status sc_alarms_describe(const struct sc_alarms *a,
                                  const struct sc_describe_alarms_req *req, sc_alarm_visit_fn fn,
                                  void *ud, struct sc_error *err)
{
    enum sc_alarm_state sv = SC_ALARM_OK;
    size_t plen = req->alarm_name_prefix ? strlen(req->alarm_name_prefix) : 0;

    if (req->n_alarm_names > SC_ALARM_MAX_NAMES)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection AlarmNames must not have a size greater than 100.");
    if (req->n_alarm_names > 0 && req->alarm_name_prefix)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "AlarmNamePrefix and AlarmNames.member are mutually exclusive");
    if (req->state_value && sc_alarm_state_parse(req->state_value, &sv) < 0)
        return state_value_error(req->state_value, err);
    for (int i = 0; i < a->n; i++) {
        struct alarm *al = a->list[i];
        if (req->n_alarm_names > 0) {
            int hit = 0;
            for (int j = 0; j < req->n_alarm_names && !hit; j++)
                hit = req->alarm_names[j] && strcmp(req->alarm_names[j], al->name) == 0;
            if (!hit)
                continue;
        }
        if (req->alarm_name_prefix && strncmp(al->name, req->alarm_name_prefix, plen) != 0)
            continue;
        if (req->state_value && al->state != sv)
            continue;
        if (req->action_prefix && !has_action_prefix(al, req->action_prefix))
            continue;
        if (fn(&al->view, ud))
            break;
    }
    return SC_OK;
}

static int same_dims(const struct alarm *al, const struct sc_dimension *d, int n)
{
    if (al->ndims != n)
        return 0;
    for (int i = 0; i < n; i++) {
        int hit = 0;
        for (int j = 0; j < n && !hit; j++)
            hit = d[i].name && d[i].value && strcmp(al->dims[j].name, d[i].name) == 0 &&
                  strcmp(al->dims[j].value, d[i].value) == 0;
        if (!hit)
            return 0;
    }
    return 1;
}

enum sc_status sc_alarms_describe_for_metric(const struct sc_alarms *a,
                                             const struct sc_describe_alarms_for_metric_req *req,
                                             sc_alarm_visit_fn fn, void *ud, struct sc_error *err)
{
    if (!req->metric_name || !*req->metric_name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter MetricName is required.");
    if (!req->namespace || !*req->namespace)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter Namespace is required.");
    for (int i = 0; i < a->n; i++) {
        struct alarm *al = a->list[i];
        if (strcmp(al->metric_name, req->metric_name) != 0 || strcmp(al->ns, req->namespace) != 0)
            continue;
        if (!same_dims(al, req->dimensions, req->n_dimensions))
            continue;
        if (req->statistic && (!al->statistic || strcmp(al->statistic, req->statistic) != 0))
            continue;
        if (req->extended_statistic &&
            (!al->extended_statistic || strcmp(al->extended_statistic, req->extended_statistic)))
            continue;
        if (req->has_period && al->period != req->period)
            continue;
        if (req->unit && (!al->unit || strcmp(al->unit, req->unit) != 0))
            continue;
        if (fn(&al->view, ud))
            break;
    }
    return SC_OK;
}

enum sc_status sc_alarms_describe_history(const struct sc_alarms *a,
                                          const struct sc_describe_alarm_history_req *req,
                                          int64_t now_ms, sc_alarm_history_visit_fn fn, void *ud,
                                          struct sc_error *err)
{
    int type = -1, asc = 0;

    if (req->history_item_type) {
        for (int i = 0; i < 3; i++)
            if (strcmp(req->history_item_type, hist_names[i]) == 0)
                type = i;
        if (type < 0)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "1 validation error detected: Value '%s' at 'historyItemType' failed "
                "to satisfy constraint: Member must satisfy enum value set: "
                "[Action, StateUpdate, ConfigurationUpdate, AlarmContributorStateUpdate, "
                "AlarmContributorAction]",
                req->history_item_type);
    }
    if (req->scan_by) {
        if (strcmp(req->scan_by, "TimestampAscending") == 0)
            asc = 1;
        else if (strcmp(req->scan_by, "TimestampDescending") != 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "1 validation error detected: Value '%s' at 'scanBy' failed to satisfy "
                           "constraint: Member must satisfy enum value set: [TimestampDescending, "
                           "TimestampAscending]",
                           req->scan_by);
    }
    if (req->has_start_date && req->has_end_date && req->start_date_ms > req->end_date_ms)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter EndDate must be greater than StartDate.");
    for (int k = 0; k < a->hd_count; k++) {
        int i = asc ? k : a->hd_count - 1 - k;
        const struct hdesc *d = &a->hd[(a->hd_first + i) % a->hd_cap];
        const char *name = a->arena + d->off;
        struct sc_alarm_history_view v;
        if (now_ms - d->ts > a->keep_ms)
            continue;
        if (type >= 0 && (int)d->type != type)
            continue;
        if (req->alarm_name && strcmp(req->alarm_name, name) != 0)
            continue;
        if (req->has_start_date && d->ts < req->start_date_ms)
            continue;
        if (req->has_end_date && d->ts > req->end_date_ms)
            continue;
        v.alarm_name = name;
        v.alarm_type = "MetricAlarm";
        v.timestamp_ms = d->ts;
        v.history_item_type = hist_names[d->type];
        v.history_summary = name + strlen(name) + 1;
        v.history_data = v.history_summary + strlen(v.history_summary) + 1;
        if (fn(&v, ud))
            break;
    }
    return SC_OK;
}

/* --- state changes -------------------------------------------------------------------------------
 */

/* Sets a new state with reason texts, logging the StateUpdate item. */
static void change_state(struct sc_alarms *a, struct alarm *al, enum sc_alarm_state ns,
                         const char *reason, const char *reason_data, int64_t now_ms)
{
    struct sb b;
    char summary[128];

    sb_init(&b, a->scratch2, SCRATCH_LEN);
    sb_raw(&b, "{\"version\":\"1.0\",\"oldState\":{\"stateValue\":");
    sb_jstr(&b, state_names[al->state]);
    sb_raw(&b, ",\"stateReason\":");
    sb_jstr(&b, al->reason);
    if (al->reason_data[0]) {
        sb_raw(&b, ",\"stateReasonData\":");
        if (json_object_like(al->reason_data))
            sb_raw(&b, al->reason_data);
        else
            sb_jstr(&b, al->reason_data);
    }
    sb_raw(&b, "},\"newState\":{\"stateValue\":");
    sb_jstr(&b, state_names[ns]);
    sb_raw(&b, ",\"stateReason\":");
    sb_jstr(&b, reason);
    if (reason_data && reason_data[0]) {
        sb_raw(&b, ",\"stateReasonData\":");
        if (json_object_like(reason_data))
            sb_raw(&b, reason_data);
        else
            sb_jstr(&b, reason_data);
    }
    sb_raw(&b, "}}");
    snprintf(summary, sizeof(summary), "Alarm updated from %s to %s", state_names[al->state],
             state_names[ns]);
    al->state = ns;
    snprintf(al->reason, sizeof(al->reason), "%s", reason);
    snprintf(al->reason_data, sizeof(al->reason_data), "%s", reason_data ? reason_data : "");
    al->state_updated_ms = now_ms;
    al->state_transitioned_ms = now_ms;
    hist_add(a, now_ms, H_STATE, al->name, summary, a->scratch2);
    view_sync(al);
}

enum sc_status sc_alarms_set_state(struct sc_alarms *a, const struct sc_set_alarm_state_req *req,
                                   int64_t now_ms, struct sc_error *err)
{
    enum sc_alarm_state st;
    struct alarm *al;

    if (!req->alarm_name || !*req->alarm_name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter AlarmName is required.");
    if (!req->state_value)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter StateValue is required.");
    if (sc_alarm_state_parse(req->state_value, &st) < 0)
        return state_value_error(req->state_value, err);
    if (!req->state_reason)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter StateReason is required.");
    if (strlen(req->state_reason) > 1023)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at 'stateReason' failed to satisfy "
                       "constraint: Member must have length less than or equal to 1023");
    if (req->state_reason_data && strlen(req->state_reason_data) > 4000)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at 'stateReasonData' failed to satisfy "
                       "constraint: Member must have length less than or equal to 4000");
    if (req->state_reason_data && !json_object_like(req->state_reason_data))
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The parameter StateReasonData must be valid JSON.");
    al = find_alarm(a, req->alarm_name);
    if (!al)
        return sc_fail(err, SC_ERR_RESOURCE_NOT_FOUND, "%s", "");
    if (al->state == st) {
        snprintf(al->reason, sizeof(al->reason), "%s", req->state_reason);
        snprintf(al->reason_data, sizeof(al->reason_data), "%s",
                 req->state_reason_data ? req->state_reason_data : "");
        al->state_updated_ms = now_ms;
        view_sync(al);
        return SC_OK;
    }
    change_state(a, al, st, req->state_reason, req->state_reason_data, now_ms);
    al->pending = 1;
    return SC_OK;
}

enum sc_status sc_alarms_enable_actions(struct sc_alarms *a, const char *const *names, int n,
                                        int enable, int64_t now_ms, struct sc_error *err)
{
    enum sc_status s = check_names(names, n, err);

    (void)now_ms;
    if (s != SC_OK)
        return s;
    for (int i = 0; i < n; i++) {
        struct alarm *al = find_alarm(a, names[i]);
        if (al) {
            al->actions_enabled = enable != 0;
            view_sync(al);
        }
    }
    return SC_OK;
}

/* --- tags ----------------------------------------------------------------------------------------
 */

static struct alarm *find_by_arn(const struct sc_alarms *a, const char *arn)
{
    for (int i = 0; arn && i < a->n; i++)
        if (strcmp(a->list[i]->arn, arn) == 0)
            return a->list[i];
    return NULL;
}

static enum sc_status arn_not_found(const char *arn, struct sc_error *err)
{
    if (!arn || !*arn)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter ResourceARN is required.");
    return sc_fail(err, SC_ERR_RESOURCE_NOT_FOUND, "%s", "");
}

enum sc_status sc_alarms_tag(struct sc_alarms *a, const char *arn, const struct sc_tag *tags, int n,
                             struct sc_error *err)
{
    struct alarm *al = find_by_arn(a, arn);

    if (!al)
        return arn_not_found(arn, err);
    for (int i = 0; i < n; i++)
        if (!tags[i].key || !*tags[i].key || !tags[i].value)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter Tags.member.%d.%s is required.", i + 1,
                           tags[i].key && *tags[i].key ? "Value" : "Key");
    for (int i = 0; i < n; i++) {
        int j;
        char *v = dup_str(tags[i].value);
        if (!v)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        for (j = 0; j < al->ntags; j++)
            if (strcmp(al->tags[j].key, tags[i].key) == 0)
                break;
        if (j < al->ntags) {
            free(al->tags[j].value);
            al->tags[j].value = v;
        } else {
            struct tag *t = realloc(al->tags, (size_t)(al->ntags + 1) * sizeof(*t));
            char *k = dup_str(tags[i].key);
            if (!t || !k) {
                if (t)
                    al->tags = t;
                free(v);
                free(k);
                return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
            }
            al->tags = t;
            al->tags[al->ntags].key = k;
            al->tags[al->ntags].value = v;
            al->ntags++;
        }
    }
    return SC_OK;
}

enum sc_status sc_alarms_untag(struct sc_alarms *a, const char *arn, const char *const *keys, int n,
                               struct sc_error *err)
{
    struct alarm *al = find_by_arn(a, arn);

    if (!al)
        return arn_not_found(arn, err);
    for (int i = 0; i < n; i++) {
        for (int j = 0; keys[i] && j < al->ntags; j++) {
            if (strcmp(al->tags[j].key, keys[i]) == 0) {
                free(al->tags[j].key);
                free(al->tags[j].value);
                memmove(&al->tags[j], &al->tags[j + 1],
                        (size_t)(al->ntags - j - 1) * sizeof(*al->tags));
                al->ntags--;
                break;
            }
        }
    }
    return SC_OK;
}

enum sc_status sc_alarms_list_tags(const struct sc_alarms *a, const char *arn, sc_tag_visit_fn fn,
                                   void *ud, struct sc_error *err)
{
    const struct alarm *al = find_by_arn(a, arn);

    if (!al)
        return arn_not_found(arn, err);
    for (int i = 0; i < al->ntags; i++)
        if (fn(al->tags[i].key, al->tags[i].value, ud))
            break;
    return SC_OK;
}

/* --- actions -------------------------------------------------------------------------------------
 */

/* Runs one action and logs its Action item. The handler may create or delete alarms (even
 * this one), so the alarm is looked up again by name afterwards. */
static void run_action(struct sc_alarms *a, const char *name, const char *arn, int64_t now_ms,
                       sc_alarm_action_fn fn, void *ud)
{
    struct alarm *al = find_alarm(a, name);
    const char *fail;
    int64_t updated;
    char summary[1400];
    struct sb b;

    if (!al)
        return;
    updated = al->state_updated_ms;
    fail = fn ? fn(arn, &al->view, now_ms, ud) : "no action handler";
    sb_init(&b, a->scratch2, SCRATCH_LEN);
    sb_printf(&b, "{\"actionState\":\"%s\",\"stateUpdateTimestamp\":%lld,\"notificationResource\":",
              fail ? "Failed" : "Succeeded", (long long)updated);
    sb_jstr(&b, arn);
    if (fail) {
        sb_raw(&b, ",\"error\":");
        sb_jstr(&b, fail);
        snprintf(summary, sizeof(summary), "%.1300s", fail);
    } else {
        snprintf(summary, sizeof(summary), "Successfully executed action %.1024s", arn);
    }
    sb_raw(&b, "}");
    hist_add(a, now_ms, H_ACTION, name, summary, a->scratch2);
}

/* Runs the actions of the alarm's current state: all of them, or only Auto Scaling ones.
 * Names and ARNs are copied first: a handler may change or delete the alarm. */
static int run_actions(struct sc_alarms *a, struct alarm *al, int only_as, int64_t now_ms,
                       sc_alarm_action_fn fn, void *ud)
{
    char name[256], arns[SC_ALARM_MAX_ACTIONS][1025];
    int n = 0, ran = 0;

    if (!al->actions_enabled || al->nactions[al->state] == 0)
        return 0;
    snprintf(name, sizeof(name), "%s", al->name);
    for (int i = 0; i < al->nactions[al->state]; i++) {
        const char *arn = al->actions[al->state][i];
        if (only_as && strncmp(arn, AS_PREFIX, strlen(AS_PREFIX)) != 0)
            continue;
        snprintf(arns[n++], sizeof(arns[0]), "%s", arn);
    }
    for (int i = 0; i < n; i++) {
        run_action(a, name, arns[i], now_ms, fn, ud);
        ran++;
    }
    return ran;
}

int sc_alarms_run_pending(struct sc_alarms *a, int64_t now_ms, sc_alarm_action_fn fn, void *ud)
{
    int ran = 0;

    for (int i = 0; i < a->n; i++) {
        struct alarm *al = a->list[i];
        if (!al->pending)
            continue;
        al->pending = 0;
        ran += run_actions(a, al, 0, now_ms, fn, ud);
    }
    return ran;
}

/* --- evaluation ----------------------------------------------------------------------------------
 */

static int breaches(const struct alarm *al, double v)
{
    switch (al->op) {
    case OP_GE:
        return v >= al->threshold;
    case OP_GT:
        return v > al->threshold;
    case OP_LT:
        return v < al->threshold;
    case OP_LE:
        return v <= al->threshold;
    }
    return 0;
}

static const char *plural(int n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* "[v (date), v (date)]" of the listed real slots (1-based slot numbers, newest first). */
static void list_points(struct sb *b, const struct sc_alarms *a, const struct alarm *al,
                        int64_t tick_ms, const int *slots, int n)
{
    char date[32];

    sb_raw(b, "[");
    for (int i = 0; i < n; i++) {
        int k = slots[i];
        if (i)
            sb_raw(b, ", ");
        sb_num(b, a->slot_val[k]);
        fmt_reason_date(tick_ms - (int64_t)k * al->period * 1000, date, sizeof(date));
        sb_printf(b, " (%s)", date);
    }
    sb_raw(b, "]");
}

static void reason_data(struct sb *b, const struct sc_alarms *a, const struct alarm *al,
                        int64_t tick_ms, int r, const int *eval_slots, int n_eval)
{
    char date[40];
    int first = 1;

    sb_raw(b, "{\"version\":\"1.0\",\"queryDate\":");
    fmt_json_date(tick_ms, date, sizeof(date));
    sb_jstr(b, date);
    sb_raw(b, ",\"startDate\":");
    fmt_json_date(tick_ms - (int64_t)r * al->period * 1000, date, sizeof(date));
    sb_jstr(b, date);
    if (al->unit) {
        sb_raw(b, ",\"unit\":");
        sb_jstr(b, al->unit);
    }
    if (al->statistic) {
        sb_raw(b, ",\"statistic\":");
        sb_jstr(b, al->statistic);
    } else {
        sb_raw(b, ",\"extendedStatistic\":");
        sb_jstr(b, al->extended_statistic);
    }
    sb_printf(b, ",\"period\":%d,\"recentDatapoints\":[", al->period);
    for (int k = r; k >= 1; k--) {
        if (!a->slot_has[k])
            continue;
        if (!first)
            sb_raw(b, ",");
        first = 0;
        sb_num(b, a->slot_val[k]);
    }
    sb_raw(b, "],\"threshold\":");
    sb_num(b, al->threshold);
    sb_raw(b, ",\"evaluatedDatapoints\":[");
    for (int i = 0; i < n_eval; i++) {
        int k = eval_slots[i];
        if (i)
            sb_raw(b, ",");
        fmt_json_date(tick_ms - (int64_t)k * al->period * 1000, date, sizeof(date));
        sb_raw(b, "{\"timestamp\":");
        sb_jstr(b, date);
        if (a->slot_has[k]) {
            sb_raw(b, ",\"sampleCount\":");
            sb_num(b, a->slot_cnt[k]);
            sb_raw(b, ",\"value\":");
            sb_num(b, a->slot_val[k]);
        }
        sb_raw(b, "}");
    }
    sb_raw(b, "]}");
}

static void evaluate_one(struct sc_alarms *a, struct alarm *al, const struct sc_metric_store *store,
                         int64_t tick_ms, int minute_tick, sc_alarm_action_fn fn, void *ud)
{
    uint64_t gen = sc_metric_store_generation(store);
    const struct sc_metric *m = al->m_cache;
    int r = al->n + 2, kreal = 0, breach_real = 0, nonbreach_real = 0, oldest_breach = 0;
    int *eval_slots = a->eval_slots;
    int n_eval = 0, breach = 0, filled = 0;
    enum sc_alarm_state ns = al->state;
    double pct = al->stat.pct;
    char reason[SC_ALARM_REASON_MAX], rdata[SC_ALARM_REASON_DATA_MAX];
    struct sb b;
    int decided = 1;

    int64_t period_ms = (int64_t)al->period * 1000, shift = -1, win_from = 0, win_to = 0;
    uint64_t late = 0;
    int keep;

    if (gen != al->m_gen) {
        struct sc_metric_key key = { al->ns, al->metric_name, al->dims, al->ndims };
        m = sc_metric_store_find(store, &key);
        al->m_cache = m;
        al->m_gen = gen;
        al->w_metric = NULL; /* a freed metric's address may come back */
    }
    if (r > MAX_SLOTS - 1)
        r = MAX_SLOTS - 1;
    /* slots settled at the last evaluation are still what they were while no put landed
     * late: slot k now is slot k - shift then (newest last, so that entry is still the
     * old one when read) */
    keep = m && al->w_cap >= r && tick_ms % 60000 == 0 &&
           sc_metric_settled_window(m, &win_from, &win_to);
    if (keep) {
        late = sc_metric_late_version(m);
        if (al->w_metric == m && al->w_late == late && tick_ms > al->w_tick &&
            (tick_ms - al->w_tick) % period_ms == 0)
            shift = (tick_ms - al->w_tick) / period_ms;
    }
    for (int k = r; k >= 1; k--) {
        struct sc_agg ag;
        int64_t start = tick_ms - (int64_t)k * period_ms;
        int settled = keep && start >= win_from && start + period_ms <= win_to;
        double v;
        a->slot_has[k] = 0;
        if (keep)
            al->w[k - 1].settled = 0;
        if (!m)
            continue;
        if (settled && shift > 0 && k - shift >= 1 && k - shift <= al->w_n &&
            al->w[k - shift - 1].settled) {
            const struct wslot *o = &al->w[k - shift - 1];
            a->slot_has[k] = o->has;
            a->slot_val[k] = o->val;
            a->slot_cnt[k] = o->cnt;
        } else if (sc_metric_aggregate(m, al->unit_e, start, al->period,
                                       al->stat.kind == SC_STAT_PERCENTILE ? &pct : NULL,
                                       al->stat.kind == SC_STAT_PERCENTILE, &ag) &&
                   sc_agg_value(&ag, &al->stat, 0, &v) >= 0) {
            a->slot_has[k] = 1;
            a->slot_val[k] = v;
            a->slot_cnt[k] = ag.sample_count;
        }
        if (keep) {
            al->w[k - 1].has = a->slot_has[k];
            al->w[k - 1].val = a->slot_val[k];
            al->w[k - 1].cnt = a->slot_cnt[k];
            al->w[k - 1].settled = (char)settled;
        }
    }
    if (keep) {
        al->w_metric = m;
        al->w_late = late;
        al->w_tick = tick_ms;
        al->w_n = r;
    } else {
        al->w_metric = NULL;
    }
    /* the real points, newest first */
    for (int k = 1; k <= r; k++) {
        if (!a->slot_has[k])
            continue;
        if (kreal < al->n) {
            eval_slots[n_eval++] = k;
            if (breaches(al, a->slot_val[k])) {
                breach_real++;
                oldest_breach = k;
            } else {
                nonbreach_real++;
            }
        }
        kreal++;
    }
    al->nrecent = 0;
    for (int i = 0; i < n_eval && al->nrecent < SC_ALARM_MAX_RECENT; i++)
        al->recent[al->nrecent++] = a->slot_val[eval_slots[i]];
    al->last_eval_ms = tick_ms;
    if (kreal >= al->n) {
        breach = breach_real;
        ns = breach >= al->m ? SC_ALARM_ALARM : SC_ALARM_OK;
    } else if (al->tmd == TMD_BREACHING || al->tmd == TMD_NOT_BREACHING) {
        filled = 1;
        breach = breach_real + (al->tmd == TMD_BREACHING ? al->n - kreal : 0);
        ns = breach >= al->m ? SC_ALARM_ALARM : SC_ALARM_OK;
    } else if (kreal == 0) {
        if (al->tmd == TMD_MISSING)
            ns = SC_ALARM_INSUFFICIENT_DATA;
        else
            decided = 0;
    } else if (breach_real >= al->m) {
        ns = SC_ALARM_ALARM;
    } else if (nonbreach_real > 0) {
        ns = SC_ALARM_OK;
    } else if (oldest_breach >= al->m) {
        /* premature-alarm rule: only breaching points, the oldest far enough back */
        if (al->tmd == TMD_MISSING)
            ns = SC_ALARM_ALARM;
        else
            decided = 0;
    } else {
        if (al->tmd == TMD_MISSING)
            ns = SC_ALARM_INSUFFICIENT_DATA;
        else
            decided = 0;
    }
    if (!decided || ns == al->state) {
        view_sync(al);
        if (minute_tick)
            run_actions(a, al, 1, tick_ms, fn, ud);
        return;
    }
    /* StateReason */
    sb_init(&b, reason, sizeof(reason));
    if (ns == SC_ALARM_INSUFFICIENT_DATA) {
        sb_printf(&b, "Insufficient Data: %d %s unknown.", al->n,
                  plural(al->n, "datapoint was", "datapoints were"));
    } else if (filled) {
        int miss = al->n - kreal;
        const char *as = al->tmd == TMD_BREACHING ? "Breaching" : "NonBreaching";
        if (kreal == 0)
            sb_printf(&b,
                      "Threshold Crossed: no datapoints were received for %d %s and %d missing "
                      "%s treated as [%s].",
                      al->n, plural(al->n, "period", "periods"), miss,
                      plural(miss, "datapoint was", "datapoints were"), as);
        else
            sb_printf(&b,
                      "Threshold Crossed: %d %s received for %d %s and %d missing %s treated "
                      "as [%s].",
                      kreal, plural(kreal, "datapoint was", "datapoints were"), al->n,
                      plural(al->n, "period", "periods"), miss,
                      plural(miss, "datapoint was", "datapoints were"), as);
    } else {
        int to_alarm = ns == SC_ALARM_ALARM;
        int x = to_alarm ? breach_real : nonbreach_real;
        if (al->n == 1 && n_eval == 1) {
            sb_raw(&b, "Threshold Crossed: 1 datapoint ");
            list_points(&b, a, al, tick_ms, eval_slots, n_eval);
            sb_printf(&b, " was %s%s the threshold (", to_alarm ? "" : "not ", op_words[al->op]);
            sb_num(&b, al->threshold);
            sb_raw(&b, ").");
        } else {
            int need = to_alarm ? al->m : al->n - al->m + 1;
            sb_printf(&b, "Threshold Crossed: %d out of the last %d datapoints ", x, n_eval);
            list_points(&b, a, al, tick_ms, eval_slots, n_eval);
            sb_printf(&b, " %s %s%s the threshold (", x == 1 ? "was" : "were",
                      to_alarm ? "" : "not ", op_words[al->op]);
            sb_num(&b, al->threshold);
            sb_printf(&b, ") (minimum %d %s for %s transition).", need,
                      plural(need, "datapoint", "datapoints"),
                      to_alarm ? "OK -> ALARM" : "ALARM -> OK");
        }
    }
    /* StateReasonData: for filled/insufficient cases the N newest slots, real or not */
    if (filled || ns == SC_ALARM_INSUFFICIENT_DATA || kreal < al->n) {
        n_eval = 0;
        for (int k = 1; k <= al->n && k <= r; k++)
            eval_slots[n_eval++] = k;
    }
    sb_init(&b, rdata, sizeof(rdata));
    reason_data(&b, a, al, tick_ms, r, eval_slots, n_eval);
    change_state(a, al, ns, reason, rdata, tick_ms);
    run_actions(a, al, 0, tick_ms, fn, ud);
}

void sc_alarms_evaluate(struct sc_alarms *a, const struct sc_metric_store *store, int64_t tick_ms,
                        sc_alarm_action_fn fn, void *ud)
{
    int minute_tick = tick_ms % 60000 == 0;

    sc_alarms_run_pending(a, tick_ms, fn, ud);
    /* A handler may create or delete alarms, shifting the list: a second pass catches any
     * alarm skipped by a shift, and the tick stamp keeps each alarm to one evaluation. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < a->n; i++) {
            struct alarm *al = a->list[i];
            if (!minute_tick && al->period >= 60)
                continue;
            if (al->last_eval_ms == tick_ms)
                continue;
            evaluate_one(a, al, store, tick_ms, minute_tick, fn, ud);
        }
    }
}

/* --- save / load (the emulator's state file)
 * ------------------------------------------------------
 */

static json_t *str_list_json(char *const *v, int n)
{
    json_t *a = json_array();

    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *alarm_save(const struct alarm *al)
{
    json_t *o = json_object(), *dims = json_array(), *recent = json_array(), *tags = json_array();

    if (!o || !dims || !recent || !tags) {
        json_decref(o);
        json_decref(dims);
        json_decref(recent);
        json_decref(tags);
        return NULL;
    }
    json_object_set_new(o, "name", json_string(al->name));
    if (al->description)
        json_object_set_new(o, "description", json_string(al->description));
    json_object_set_new(o, "actions_enabled", json_boolean(al->actions_enabled));
    json_object_set_new(o, "ok_actions",
                        str_list_json(al->actions[SC_ALARM_OK], al->nactions[SC_ALARM_OK]));
    json_object_set_new(o, "alarm_actions",
                        str_list_json(al->actions[SC_ALARM_ALARM], al->nactions[SC_ALARM_ALARM]));
    json_object_set_new(o, "insufficient_data_actions",
                        str_list_json(al->actions[SC_ALARM_INSUFFICIENT_DATA],
                                      al->nactions[SC_ALARM_INSUFFICIENT_DATA]));
    json_object_set_new(o, "metric_name", json_string(al->metric_name));
    json_object_set_new(o, "namespace", json_string(al->ns));
    for (int i = 0; i < al->ndims; i++)
        json_array_append_new(dims, json_pack("[ss]", al->dims[i].name, al->dims[i].value));
    json_object_set_new(o, "dimensions", dims);
    if (al->statistic)
        json_object_set_new(o, "statistic", json_string(al->statistic));
    else
        json_object_set_new(o, "extended_statistic", json_string(al->extended_statistic));
    json_object_set_new(o, "period", json_integer(al->period));
    json_object_set_new(o, "evaluation_periods", json_integer(al->n));
    if (al->has_m)
        json_object_set_new(o, "datapoints_to_alarm", json_integer(al->m));
    if (al->unit)
        json_object_set_new(o, "unit", json_string(al->unit));
    json_object_set_new(o, "threshold", json_real(al->threshold));
    json_object_set_new(o, "comparison_operator", json_string(op_names[al->op]));
    if (al->has_tmd)
        json_object_set_new(o, "treat_missing_data", json_string(tmd_names[al->tmd]));
    if (al->elscp)
        json_object_set_new(o, "evaluate_low_sample_count_percentile", json_string(al->elscp));
    json_object_set_new(o, "config_updated_ms", json_integer(al->config_updated_ms));
    json_object_set_new(o, "state", json_string(state_names[al->state]));
    json_object_set_new(o, "reason", json_string(al->reason));
    json_object_set_new(o, "reason_data", json_string(al->reason_data));
    json_object_set_new(o, "state_updated_ms", json_integer(al->state_updated_ms));
    json_object_set_new(o, "state_transitioned_ms", json_integer(al->state_transitioned_ms));
    for (int i = 0; i < al->nrecent; i++)
        json_array_append_new(recent, json_real(al->recent[i]));
    json_object_set_new(o, "recent", recent);
    json_object_set_new(o, "last_eval_ms", json_integer(al->last_eval_ms));
    json_object_set_new(o, "pending", json_boolean(al->pending));
    for (int i = 0; i < al->ntags; i++)
        json_array_append_new(tags, json_pack("[ss]", al->tags[i].key, al->tags[i].value));
    json_object_set_new(o, "tags", tags);
    return o;
}

json_t *sc_alarms_save(const struct sc_alarms *a)
{
    json_t *root = json_object(), *list = json_array(), *hist = json_array();

    if (!root || !list || !hist)
        goto fail;
    for (int i = 0; i < a->n; i++) {
        json_t *o = alarm_save(a->list[i]);
        if (!o || json_array_append_new(list, o) < 0)
            goto fail;
    }
    for (int k = 0; k < a->hd_count; k++) {
        const struct hdesc *d = &a->hd[(a->hd_first + k) % a->hd_cap];
        const char *name = a->arena + d->off;
        const char *summary = name + strlen(name) + 1;
        const char *data = summary + strlen(summary) + 1;
        json_t *h = json_pack("{sIssssssss}", "ts", (json_int_t)d->ts, "type", hist_names[d->type],
                              "name", name, "summary", summary, "data", data);
        if (!h || json_array_append_new(hist, h) < 0)
            goto fail;
    }
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "alarms", list);
    json_object_set_new(root, "history", hist);
    return root;

fail:
    json_decref(root);
    json_decref(list);
    json_decref(hist);
    return NULL;
}

/* Loading: every value is checked; failures name the path. */
struct ld {
    struct sc_error *err;
    char where[64];
};

static enum sc_status ld_fail(struct ld *l, const char *key, const char *what)
{
    return sc_fail(l->err, SC_ERR_VALIDATION, "state: %s.%s: %s", l->where, key, what);
}

/* Optional string (absent or null -> NULL). Returns 0 or -1. */
static int ld_str(struct ld *l, const json_t *o, const char *key, int required, const char **out)
{
    const json_t *v = json_object_get(o, key);

    *out = NULL;
    if (!v || json_is_null(v)) {
        if (required) {
            ld_fail(l, key, "missing");
            return -1;
        }
        return 0;
    }
    if (!json_is_string(v)) {
        ld_fail(l, key, "expected a string");
        return -1;
    }
    *out = json_string_value(v);
    return 0;
}

static int ld_i64(struct ld *l, const json_t *o, const char *key, int required, int64_t *out)
{
    const json_t *v = json_object_get(o, key);

    if (!v) {
        if (required) {
            ld_fail(l, key, "missing");
            return -1;
        }
        return 0;
    }
    if (!json_is_integer(v)) {
        ld_fail(l, key, "expected an integer");
        return -1;
    }
    *out = json_integer_value(v);
    return 1;
}

static int ld_int(struct ld *l, const json_t *o, const char *key, int required, int *out)
{
    int64_t v = 0;
    int r = ld_i64(l, o, key, required, &v);

    if (r == 1 && (v < INT32_MIN || v > INT32_MAX)) {
        ld_fail(l, key, "out of range");
        return -1;
    }
    if (r == 1)
        *out = (int)v;
    return r;
}

static int ld_bool(struct ld *l, const json_t *o, const char *key, int *out)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_boolean(v)) {
        ld_fail(l, key, "expected a boolean");
        return -1;
    }
    *out = json_is_true(v);
    return 0;
}

/* A list of strings (at most max) into out[] (borrowed). */
static int ld_strs(struct ld *l, const json_t *o, const char *key, const char **out, int max,
                   int *n)
{
    const json_t *v = json_object_get(o, key);
    size_t i;
    const json_t *e;

    *n = 0;
    if (!v)
        return 0;
    if (!json_is_array(v) || json_array_size(v) > (size_t)max) {
        ld_fail(l, key, "expected a short list of strings");
        return -1;
    }
    json_array_foreach(v, i, e)
    {
        if (!json_is_string(e)) {
            ld_fail(l, key, "expected strings");
            return -1;
        }
        out[(*n)++] = json_string_value(e);
    }
    return 0;
}

/* [[a, b], ...] pairs into out (borrowed), at most max. */
static int ld_pairs(struct ld *l, const json_t *o, const char *key, struct sc_dimension *out,
                    int max, int *n)
{
    const json_t *v = json_object_get(o, key);
    size_t i;
    const json_t *e;

    *n = 0;
    if (!v)
        return 0;
    if (!json_is_array(v) || json_array_size(v) > (size_t)max) {
        ld_fail(l, key, "expected a short list of pairs");
        return -1;
    }
    json_array_foreach(v, i, e)
    {
        if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_string(json_array_get(e, 0)) ||
            !json_is_string(json_array_get(e, 1))) {
            ld_fail(l, key, "expected [string, string] pairs");
            return -1;
        }
        out[*n].name = json_string_value(json_array_get(e, 0));
        out[*n].value = json_string_value(json_array_get(e, 1));
        (*n)++;
    }
    return 0;
}

#define LD_MAX_TAGS 50

/* Builds one alarm from its saved form into t (a fresh store). */
static enum sc_status alarm_load(struct sc_alarms *t, const json_t *o, struct ld *l)
{
    struct sc_put_metric_alarm_req r;
    const char *acts[3][SC_ALARM_MAX_ACTIONS];
    struct sc_dimension dims[SC_METRIC_MAX_DIMENSIONS];
    struct sc_dimension tagv[LD_MAX_TAGS];
    const char *cmp = NULL, *state = NULL, *reason = NULL, *reason_data = NULL;
    struct sc_stat st;
    enum op op;
    enum tmd tmd;
    enum sc_unit unit;
    enum sc_status s;
    struct alarm *al = NULL;
    int ntags = 0, idx, pending = 0;
    const json_t *recent;
    int64_t cu = 0, su = 0, stt = 0, le = 0;
    double threshold;

    if (!json_is_object(o))
        return sc_fail(l->err, SC_ERR_VALIDATION, "state: %s: expected an object", l->where);
    memset(&r, 0, sizeof(r));
    if (ld_str(l, o, "name", 1, &r.alarm_name) < 0 ||
        ld_str(l, o, "description", 0, &r.alarm_description) < 0 ||
        ld_bool(l, o, "actions_enabled", &r.actions_enabled) < 0 ||
        ld_strs(l, o, "ok_actions", acts[0], SC_ALARM_MAX_ACTIONS, &r.n_ok_actions) < 0 ||
        ld_strs(l, o, "alarm_actions", acts[1], SC_ALARM_MAX_ACTIONS, &r.n_alarm_actions) < 0 ||
        ld_strs(l, o, "insufficient_data_actions", acts[2], SC_ALARM_MAX_ACTIONS,
                &r.n_insufficient_data_actions) < 0 ||
        ld_str(l, o, "metric_name", 1, &r.metric_name) < 0 ||
        ld_str(l, o, "namespace", 1, &r.namespace) < 0 ||
        ld_pairs(l, o, "dimensions", dims, SC_METRIC_MAX_DIMENSIONS, &r.n_dimensions) < 0 ||
        ld_str(l, o, "statistic", 0, &r.statistic) < 0 ||
        ld_str(l, o, "extended_statistic", 0, &r.extended_statistic) < 0 ||
        ld_int(l, o, "period", 1, &r.period) < 0 ||
        ld_int(l, o, "evaluation_periods", 1, &r.evaluation_periods) < 0 ||
        (r.has_datapoints_to_alarm =
             ld_int(l, o, "datapoints_to_alarm", 0, &r.datapoints_to_alarm)) < 0 ||
        ld_str(l, o, "unit", 0, &r.unit) < 0 || ld_str(l, o, "comparison_operator", 1, &cmp) < 0 ||
        ld_str(l, o, "treat_missing_data", 0, &r.treat_missing_data) < 0 ||
        ld_str(l, o, "evaluate_low_sample_count_percentile", 0,
               &r.evaluate_low_sample_count_percentile) < 0 ||
        ld_pairs(l, o, "tags", tagv, LD_MAX_TAGS, &ntags) < 0 ||
        ld_i64(l, o, "config_updated_ms", 1, &cu) < 0 || ld_str(l, o, "state", 1, &state) < 0 ||
        ld_str(l, o, "reason", 1, &reason) < 0 ||
        ld_str(l, o, "reason_data", 1, &reason_data) < 0 ||
        ld_i64(l, o, "state_updated_ms", 1, &su) < 0 ||
        ld_i64(l, o, "state_transitioned_ms", 1, &stt) < 0 ||
        ld_i64(l, o, "last_eval_ms", 1, &le) < 0 || ld_bool(l, o, "pending", &pending) < 0)
        return SC_ERR_VALIDATION;
    if (!json_is_number(json_object_get(o, "threshold")))
        return ld_fail(l, "threshold", "expected a number");
    threshold = json_number_value(json_object_get(o, "threshold"));
    r.has_actions_enabled = 1;
    r.ok_actions = acts[0];
    r.alarm_actions = acts[1];
    r.insufficient_data_actions = acts[2];
    r.dimensions = dims;
    r.has_period = 1;
    r.has_evaluation_periods = 1;
    r.has_threshold = 1;
    r.threshold = threshold;
    r.comparison_operator = cmp;
    s = validate_put(&r, &st, &op, &tmd, &unit, l->err);
    if (s != SC_OK)
        return s;
    al = alarm_build(t, &r, &st, op, tmd, unit);
    if (!al)
        return sc_fail(l->err, SC_ERR_INTERNAL, "out of memory");
    if (sc_alarm_state_parse(state, &al->state) < 0) {
        alarm_free(al);
        return ld_fail(l, "state", "not an alarm state");
    }
    if (strlen(reason) >= sizeof(al->reason) || strlen(reason_data) >= sizeof(al->reason_data)) {
        alarm_free(al);
        return ld_fail(l, "reason", "too long");
    }
    memcpy(al->reason, reason, strlen(reason) + 1);
    memcpy(al->reason_data, reason_data, strlen(reason_data) + 1);
    al->config_updated_ms = cu;
    al->state_updated_ms = su;
    al->state_transitioned_ms = stt;
    al->last_eval_ms = le;
    al->pending = pending;
    recent = json_object_get(o, "recent");
    if (!json_is_array(recent) || json_array_size(recent) > SC_ALARM_MAX_RECENT) {
        alarm_free(al);
        return ld_fail(l, "recent", "expected a list of at most 64 numbers");
    }
    for (size_t i = 0; i < json_array_size(recent); i++) {
        if (!json_is_number(json_array_get(recent, i))) {
            alarm_free(al);
            return ld_fail(l, "recent", "expected numbers");
        }
        al->recent[al->nrecent++] = json_number_value(json_array_get(recent, i));
    }
    if (ntags > 0) {
        al->tags = calloc((size_t)ntags, sizeof(*al->tags));
        if (!al->tags) {
            alarm_free(al);
            return sc_fail(l->err, SC_ERR_INTERNAL, "out of memory");
        }
        for (int i = 0; i < ntags; i++) {
            al->tags[i].key = dup_str(tagv[i].name);
            al->tags[i].value = dup_str(tagv[i].value);
            al->ntags++;
            if (!al->tags[i].key || !al->tags[i].value) {
                alarm_free(al);
                return sc_fail(l->err, SC_ERR_INTERNAL, "out of memory");
            }
        }
    }
    idx = find_idx(t, al->name);
    if (idx >= 0) {
        alarm_free(al);
        return ld_fail(l, "name", "duplicate alarm");
    }
    if (t->n == t->cap) {
        int nc = t->cap ? t->cap * 2 : 64;
        struct alarm **nl = realloc(t->list, (size_t)nc * sizeof(*nl));
        if (!nl) {
            alarm_free(al);
            return sc_fail(l->err, SC_ERR_INTERNAL, "out of memory");
        }
        t->list = nl;
        t->cap = nc;
    }
    idx = -idx - 1;
    memmove(&t->list[idx + 1], &t->list[idx], (size_t)(t->n - idx) * sizeof(t->list[0]));
    t->list[idx] = al;
    t->n++;
    view_sync(al);
    return SC_OK;
}

enum sc_status sc_alarms_load(struct sc_alarms *a, const json_t *j, struct sc_error *err)
{
    struct sc_alarms_config c;
    struct sc_alarms *t, swap;
    const json_t *list, *hist, *e;
    struct ld l;
    size_t i;
    enum sc_status s = SC_OK;

    memset(&l, 0, sizeof(l));
    l.err = err;
    if (!json_is_object(j) || json_integer_value(json_object_get(j, "version")) != 1)
        return sc_fail(err, SC_ERR_VALIDATION, "state: alarms: not a version 1 alarms object");
    list = json_object_get(j, "alarms");
    hist = json_object_get(j, "history");
    if (!json_is_array(list) || !json_is_array(hist))
        return sc_fail(err, SC_ERR_VALIDATION, "state: alarms: alarms and history must be lists");
    c.region = a->region;
    c.account = a->account;
    c.history_bytes = a->arena_cap;
    c.history_items = a->hd_cap;
    c.history_keep_ms = a->keep_ms;
    t = sc_alarms_create(&c);
    if (!t)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    json_array_foreach(list, i, e)
    {
        snprintf(l.where, sizeof(l.where), "alarms[%zu]", i);
        s = alarm_load(t, e, &l);
        if (s != SC_OK)
            goto out;
    }
    json_array_foreach(hist, i, e)
    {
        const char *type = NULL, *name = NULL, *summary = NULL, *data = NULL;
        int64_t ts = 0;
        int k;

        snprintf(l.where, sizeof(l.where), "history[%zu]", i);
        if (!json_is_object(e) || ld_i64(&l, e, "ts", 1, &ts) < 0 ||
            ld_str(&l, e, "type", 1, &type) < 0 || ld_str(&l, e, "name", 1, &name) < 0 ||
            ld_str(&l, e, "summary", 1, &summary) < 0 || ld_str(&l, e, "data", 1, &data) < 0) {
            s = SC_ERR_VALIDATION;
            if (!json_is_object(e))
                sc_fail(err, s, "state: %s: expected an object", l.where);
            goto out;
        }
        for (k = 0; k < 3 && strcmp(type, hist_names[k]) != 0; k++)
            ;
        if (k == 3) {
            s = ld_fail(&l, "type", "not a history item type");
            goto out;
        }
        hist_add(t, ts, (enum hist_type)k, name, summary, data);
    }
    /* success: the loaded store takes a's place (a's address stays valid for its owner) */
    swap = *a;
    *a = *t;
    *t = swap;
out:
    sc_alarms_destroy(t);
    return s;
}
