/* scaler/alarm.c: see alarm.h. The store: helpers, the history ring, create, lookup, alarm
 * JSON, PutMetricAlarm, describes and tags (state, actions and evaluation: alarm_eval.c;
 * save / load: alarm_save.c). */
#include "scaler/alarm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/alarm_internal.h"
#include "scaler/civil.h"

const char *const alarm_op_names[7] = { "GreaterThanOrEqualToThreshold",
                                        "GreaterThanThreshold",
                                        "LessThanThreshold",
                                        "LessThanOrEqualToThreshold",
                                        "LessThanLowerOrGreaterThanUpperThreshold",
                                        "LessThanLowerThreshold",
                                        "GreaterThanUpperThreshold" };
const char *const alarm_tmd_names[4] = { "missing", "ignore", "breaching", "notBreaching" };
const char *const alarm_state_names[3] = { "OK", "ALARM", "INSUFFICIENT_DATA" };
const char *const alarm_hist_names[3] = { "ConfigurationUpdate", "StateUpdate", "Action" };

/* --- small helpers ----------------------------------------------------------------------- */

const char *sc_alarm_state_name(enum sc_alarm_state s)
{
    if ((unsigned)s > SC_ALARM_INSUFFICIENT_DATA)
        return "";
    return alarm_state_names[s];
}

int sc_alarm_state_parse(const char *s, enum sc_alarm_state *out)
{
    for (int i = 0; s && i < 3; i++) {
        if (strcmp(s, alarm_state_names[i]) == 0) {
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

/* --- history ring -------------------------------------------------------------------------- */

static void hist_evict_oldest(struct sc_alarms *a)
{
    a->hd_first = (a->hd_first + 1) % a->hd_cap;
    a->hd_count--;
}

void alarm_hist_add(struct sc_alarms *a, int64_t ts, enum hist_type type, const char *name,
                    const char *summary, const char *data)
{
    alarm_hist_add_kind(a, ts, type, 0, name, summary, data);
}

void alarm_hist_add_kind(struct sc_alarms *a, int64_t ts, enum hist_type type, int composite,
                         const char *name, const char *summary, const char *data)
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
    d->composite = composite != 0;
    d->off = a->head;
    d->len = n;
    a->hd_count++;
    a->head += n;
}

const char *sc_alarm_partition(const char *region)
{
    if (region && strncmp(region, "cn-", 3) == 0)
        return "aws-cn";
    if (region && strncmp(region, "us-gov-", 7) == 0)
        return "aws-us-gov";
    return "aws";
}

/* --- the base both kinds share ------------------------------------------------------------- */

int alarm_base_init(struct alarm_base *b, const struct sc_alarms *a, const char *name,
                    const char *description, int actions_enabled, const char *const *const acts[3],
                    const int nacts[3])
{
    char arn[1024];
    int bad = 0;

    snprintf(arn, sizeof(arn), "arn:%s:cloudwatch:%s:%s:alarm:%s", sc_alarm_partition(a->region),
             a->region, a->account, name);
    b->name = sc_strdup(name);
    b->arn = sc_strdup(arn);
    bad |= !b->name || !b->arn;
    bad |= sc_strdup_opt(&b->description, description);
    b->actions_enabled = actions_enabled;
    for (int s = 0; s < 3; s++)
        for (int i = 0; i < nacts[s]; i++) {
            b->actions[s][i] = sc_strdup(acts[s][i]);
            bad |= !b->actions[s][i];
            b->nactions[s]++;
        }
    return bad ? -1 : 0;
}

void alarm_base_cleanup(struct alarm_base *b)
{
    free(b->name);
    free(b->arn);
    free(b->description);
    for (int s = 0; s < 3; s++)
        for (int i = 0; i < b->nactions[s]; i++)
            free(b->actions[s][i]);
    tags_free(b->tags, b->ntags);
}

void alarm_base_keep_state(struct alarm_base *b, struct alarm_base *old)
{
    b->state = old->state;
    memcpy(b->reason, old->reason, sizeof(b->reason));
    memcpy(b->reason_data, old->reason_data, sizeof(b->reason_data));
    b->state_updated_ms = old->state_updated_ms;
    b->state_transitioned_ms = old->state_transitioned_ms;
    b->tags = old->tags;
    b->ntags = old->ntags;
    old->tags = NULL;
    old->ntags = 0;
}

void alarm_base_initial_state(struct alarm_base *b, int64_t now_ms)
{
    b->state = SC_ALARM_INSUFFICIENT_DATA;
    snprintf(b->reason, sizeof(b->reason), "Unchecked: Initial alarm creation");
    b->state_updated_ms = now_ms;
    b->state_transitioned_ms = now_ms;
}

void alarm_base_view(const struct alarm_base *b, struct sc_alarm_view_base *v)
{
    v->alarm_name = b->name;
    v->alarm_arn = b->arn;
    v->alarm_description = b->description;
    v->alarm_configuration_updated_timestamp_ms = b->config_updated_ms;
    v->actions_enabled = b->actions_enabled;
    v->ok_actions = (const char *const *)b->actions[SC_ALARM_OK];
    v->n_ok_actions = b->nactions[SC_ALARM_OK];
    v->alarm_actions = (const char *const *)b->actions[SC_ALARM_ALARM];
    v->n_alarm_actions = b->nactions[SC_ALARM_ALARM];
    v->insufficient_data_actions = (const char *const *)b->actions[SC_ALARM_INSUFFICIENT_DATA];
    v->n_insufficient_data_actions = b->nactions[SC_ALARM_INSUFFICIENT_DATA];
    v->state = b->state;
    v->state_value = alarm_state_names[b->state];
    v->state_reason = b->reason;
    v->state_reason_data = b->reason_data[0] ? b->reason_data : NULL;
    v->state_updated_timestamp_ms = b->state_updated_ms;
    v->state_transitioned_timestamp_ms = b->state_transitioned_ms;
}

int tags_copy(struct tag **t, int *nt, const struct sc_tag *src, int n)
{
    if (n <= 0)
        return 0;
    *t = calloc((size_t)n, sizeof(**t));
    if (!*t)
        return -1;
    for (int i = 0; i < n; i++) {
        (*t)[i].key = sc_strdup(src[i].key);
        (*t)[i].value = sc_strdup(src[i].value);
        (*nt)++;
        if (!(*t)[i].key || !(*t)[i].value)
            return -1;
    }
    return 0;
}

void tags_free(struct tag *t, int n)
{
    for (int i = 0; i < n; i++) {
        free(t[i].key);
        free(t[i].value);
    }
    free(t);
}

/* --- create / destroy ---------------------------------------------------------------------- */

void alarm_free(struct alarm *al)
{
    if (!al)
        return;
    alarm_base_cleanup(&al->b);
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
    free(al->tmid);
    alarm_math_free(al);
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
    a->region = sc_strdup(c.region);
    a->account = sc_strdup(c.account);
    a->arena_cap = c.history_bytes;
    a->arena = malloc(a->arena_cap);
    a->hd_cap = c.history_items;
    a->hd = calloc((size_t)a->hd_cap, sizeof(*a->hd));
    a->keep_ms = c.history_keep_ms;
    a->slot_val = calloc(MAX_SLOTS, sizeof(*a->slot_val));
    a->slot_cnt = calloc(MAX_SLOTS, sizeof(*a->slot_cnt));
    a->slot_has = calloc(MAX_SLOTS, 1);
    a->slot_lo = calloc(MAX_SLOTS, sizeof(*a->slot_lo));
    a->slot_hi = calloc(MAX_SLOTS, sizeof(*a->slot_hi));
    a->eval_slots = calloc(MAX_SLOTS, sizeof(*a->eval_slots));
    a->scratch = malloc(SCRATCH_LEN);
    a->scratch2 = malloc(SCRATCH_LEN);
    if (!a->region || !a->account || !a->arena || !a->hd || !a->slot_val || !a->slot_cnt ||
        !a->slot_has || !a->slot_lo || !a->slot_hi || !a->eval_slots || !a->scratch ||
        !a->scratch2) {
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
    for (int i = 0; i < a->ncomp; i++)
        composite_free(a->comps[i]);
    free(a->comps);
    mutes_free(a);
    free(a->region);
    free(a->account);
    free(a->arena);
    free(a->hd);
    free(a->slot_val);
    free(a->slot_cnt);
    free(a->slot_has);
    free(a->slot_lo);
    free(a->slot_hi);
    free(a->eval_slots);
    free(a->scratch);
    free(a->scratch2);
    free(a);
}

/* --- lookup ---------------------------------------------------------------------------------- */

struct alarm *alarm_find(const struct sc_alarms *a, const char *name)
{
    int i;

    if (!name)
        return NULL;
    i = alarm_vec_find(a->list, a->n, name);
    return i >= 0 ? a->list[i] : NULL;
}

void alarm_view_sync(struct alarm *al)
{
    struct sc_alarm_view *v = &al->view;

    alarm_base_view(&al->b, &v->base);
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
    v->threshold_metric_id = al->tmid;
    v->comparison_operator = alarm_op_names[al->op];
    v->treat_missing_data = al->has_tmd ? alarm_tmd_names[al->tmd] : NULL;
    v->evaluate_low_sample_count_percentile = al->elscp;
    v->metrics = al->mq;
    v->n_metrics = al->nmq;
    v->recent_values = al->recent;
    v->n_recent_values = al->nrecent;
    v->last_evaluated_ms = al->last_eval_ms;
}

const struct sc_alarm_view *sc_alarms_find(const struct sc_alarms *a, const char *name)
{
    struct alarm *al = alarm_find(a, name);
    return al ? &al->view : NULL;
}

int sc_alarms_count(const struct sc_alarms *a)
{
    return a->n;
}

uint64_t sc_alarms_change_seq(const struct sc_alarms *a)
{
    return a->change_seq;
}

uint64_t sc_alarms_delete_count(const struct sc_alarms *a)
{
    return a->delete_count;
}

void sc_alarms_visit_changed(const struct sc_alarms *a, uint64_t since, sc_alarm_visit_fn afn,
                             sc_composite_visit_fn cfn, void *ud)
{
    if (since >= a->change_seq)
        return;
    for (int i = 0; afn && i < a->n; i++)
        if (a->list[i]->b.change_seq > since && afn(&a->list[i]->view, ud))
            break;
    for (int i = 0; cfn && i < a->ncomp; i++)
        if (a->comps[i]->b.change_seq > since && cfn(&a->comps[i]->view, ud))
            break;
}

const char *sc_alarms_name_at(const struct sc_alarms *a, int i)
{
    return i >= 0 && i < a->n ? a->list[i]->b.name : NULL;
}

const char *sc_alarms_composite_name_at(const struct sc_alarms *a, int i)
{
    return i >= 0 && i < a->ncomp ? a->comps[i]->b.name : NULL;
}

int sc_alarms_with_action(const struct sc_alarms *a, const char *arn,
                          const struct sc_alarm_view **out, int max)
{
    int n = 0;

    for (int i = 0; i < a->n; i++) {
        const struct alarm *al = a->list[i];
        int hit = 0;

        for (int s = 0; s < 3 && !hit; s++)
            for (int k = 0; k < al->b.nactions[s] && !hit; k++)
                hit = strcmp(al->b.actions[s][k], arn) == 0;
        if (!hit)
            continue;
        if (n < max)
            out[n] = &al->view;
        n++;
    }
    return n;
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
        if (a->list[i]->b.pending)
            return 1;
    return composite_has_pending(a);
}

/* --- alarm JSON (history data) ---------------------------------------------------------------- */

static void alarm_json(struct sb *b, const struct alarm *al)
{
    static const char *const keys[3] = { "okactions", "alarmActions", "insufficientDataActions" };
    char date[40];

    sb_raw(b, "{\"alarmName\":");
    sb_jstr(b, al->b.name);
    sb_raw(b, ",\"alarmArn\":");
    sb_jstr(b, al->b.arn);
    if (al->b.description) {
        sb_raw(b, ",\"alarmDescription\":");
        sb_jstr(b, al->b.description);
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
    sb_jstr(b, alarm_op_names[al->op]);
    if (al->has_tmd) {
        sb_raw(b, ",\"treatMissingData\":");
        sb_jstr(b, alarm_tmd_names[al->tmd]);
    }
    if (al->unit) {
        sb_raw(b, ",\"unit\":");
        sb_jstr(b, al->unit);
    }
    sb_printf(b, ",\"actionsEnabled\":%s", al->b.actions_enabled ? "true" : "false");
    for (int s = 0; s < 3; s++) {
        sb_printf(b, ",\"%s\":[", keys[s]);
        for (int i = 0; i < al->b.nactions[s]; i++) {
            if (i)
                sb_raw(b, ",");
            sb_jstr(b, al->b.actions[s][i]);
        }
        sb_raw(b, "]");
    }
    sb_raw(b, ",\"stateValue\":");
    sb_jstr(b, alarm_state_names[al->b.state]);
    sc_civil_format_iso_ms_offset(al->b.config_updated_ms, date, sizeof(date));
    sb_raw(b, ",\"alarmConfigurationUpdatedTimestamp\":");
    sb_jstr(b, date);
    sb_raw(b, "}");
}

/* --- PutMetricAlarm --------------------------------------------------------------------------- */

static int valid_period(int p)
{
    return p == 10 || p == 20 || p == 30 || (p > 0 && p % 60 == 0);
}

enum sc_status alarm_validate_actions(const char *const *const acts[3], const int nacts[3],
                                      struct sc_error *err)
{
    static const char *const params[3] = { "OKActions", "AlarmActions", "InsufficientDataActions" };

    for (int s = 0; s < 3; s++) {
        if (nacts[s] > SC_ALARM_MAX_ACTIONS)
            return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                           "The collection %s must not have a size greater than 5.", params[s]);
        for (int i = 0; i < nacts[s]; i++) {
            const char *act = acts[s][i];
            if (!act || strncmp(act, "arn:", 4) != 0 || strlen(act) > 1024)
                return sc_fail(err, SC_ERR_VALIDATION, "Invalid arn syntax: %s", act ? act : "");
        }
    }
    return SC_OK;
}

enum sc_status alarm_validate_name(const char *name, const char *description, struct sc_error *err)
{
    if (!name || !*name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter AlarmName is required.");
    if (strlen(name) > 255)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'alarmName' failed to satisfy "
                       "constraint: Member must have length less than or equal to 255",
                       name);
    if (description && strlen(description) > 1024)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at 'alarmDescription' failed to satisfy "
                       "constraint: Member must have length less than or equal to 1024");
    return SC_OK;
}

/* MetricName, Namespace, Dimensions, Statistic / ExtendedStatistic and Period of a metric
 * alarm (an alarm on Metrics has none of them: alarm_math_validate). */
static enum sc_status validate_metric(const struct sc_put_metric_alarm_req *r, struct sc_stat *st,
                                      struct sc_error *err)
{
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
    return SC_OK;
}

enum sc_status alarm_validate_put(const struct sc_put_metric_alarm_req *r, struct sc_stat *st,
                                  enum op *op, enum tmd *tmd, enum sc_unit *unit,
                                  struct sc_error *err)
{
    const char *const *const acts[3] = { r->ok_actions, r->alarm_actions,
                                         r->insufficient_data_actions };
    const int nacts[3] = { r->n_ok_actions, r->n_alarm_actions, r->n_insufficient_data_actions };
    enum sc_status s;
    int period = r->period;

    memset(st, 0, sizeof(*st));
    s = alarm_validate_name(r->alarm_name, r->alarm_description, err);
    if (s != SC_OK)
        return s;
    s = alarm_band_validate(r, err);
    if (s != SC_OK)
        return s;
    if (r->has_metrics)
        s = alarm_math_validate(r, &period, err);
    else
        s = validate_metric(r, st, err);
    if (s != SC_OK)
        return s;
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
    if ((int64_t)period * r->evaluation_periods > 86400)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "Metrics cannot be checked across more than a day (EvaluationPeriods * "
                       "Period must be <= 86400).");
    if (!r->has_threshold && !r->threshold_metric_id)
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
    for (int i = 0; i < 7; i++)
        if (strcmp(r->comparison_operator, alarm_op_names[i]) == 0)
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
            if (strcmp(r->treat_missing_data, alarm_tmd_names[i]) == 0) {
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
    s = alarm_validate_actions(acts, nacts, err);
    if (s != SC_OK)
        return s;
    return sc_tags_check(r->tags, r->n_tags, err);
}

/* Builds the configuration part of a new alarm from a validated request. */
struct alarm *alarm_build(const struct sc_alarms *a, const struct sc_put_metric_alarm_req *r,
                          const struct sc_stat *st, enum op op, enum tmd tmd, enum sc_unit unit)
{
    struct alarm *al = calloc(1, sizeof(*al));
    const char *const *const lists[3] = { r->ok_actions, r->alarm_actions,
                                          r->insufficient_data_actions };
    const int ns[3] = { r->n_ok_actions, r->n_alarm_actions, r->n_insufficient_data_actions };
    int bad = 0;

    if (!al)
        return NULL;
    bad |= alarm_base_init(&al->b, a, r->alarm_name, r->alarm_description,
                           r->has_actions_enabled ? r->actions_enabled != 0 : 1, lists, ns) < 0;
    if (r->has_metrics) {
        struct sc_error e;
        int period = 60;

        alarm_math_validate(r, &period, &e); /* validated: gives the period */
        bad |= alarm_math_build(al, r) != 0;
        if (r->threshold_metric_id) {
            al->tmid = sc_strdup(r->threshold_metric_id);
            bad |= !al->tmid;
            for (int i = 0; i < r->n_metrics; i++)
                if (strcmp(r->metrics[i].id, r->threshold_metric_id) == 0)
                    al->band_q = i;
        }
        al->stat = *st;
        al->period = period;
        goto common;
    }
    al->metric_name = sc_strdup(r->metric_name);
    al->ns = sc_strdup(r->namespace);
    bad |= !al->metric_name || !al->ns;
    if (r->n_dimensions > 0) {
        al->dims = calloc((size_t)r->n_dimensions, sizeof(*al->dims));
        bad |= !al->dims;
        for (int i = 0; al->dims && i < r->n_dimensions; i++) {
            al->dims[i].name = sc_strdup(r->dimensions[i].name);
            al->dims[i].value = sc_strdup(r->dimensions[i].value);
            al->ndims++;
            bad |= !al->dims[i].name || !al->dims[i].value;
        }
    }
    if (r->statistic) {
        al->statistic = sc_strdup(r->statistic);
        bad |= !al->statistic;
    } else {
        al->extended_statistic = sc_strdup(r->extended_statistic);
        bad |= !al->extended_statistic;
    }
    al->stat = *st;
    al->period = r->period;
common:
    al->n = r->evaluation_periods;
    al->has_m = r->has_datapoints_to_alarm;
    al->m = r->has_datapoints_to_alarm ? r->datapoints_to_alarm : r->evaluation_periods;
    if (r->unit) {
        al->unit = sc_strdup(r->unit);
        bad |= !al->unit;
    }
    al->unit_e = unit;
    al->threshold = r->threshold_metric_id ? 0 : r->threshold;
    al->op = op;
    al->tmd = tmd;
    al->has_tmd = r->treat_missing_data != NULL;
    if (r->evaluate_low_sample_count_percentile) {
        al->elscp = sc_strdup(r->evaluate_low_sample_count_percentile);
        bad |= !al->elscp;
    }
    if (bad) {
        alarm_free(al);
        return NULL;
    }
    /* slots a minute-aligned evaluation can keep (sc_metric_period_settled); without the
     * memory the alarm just aggregates every slot */
    if (!al->prog && al->period % 60 == 0 && al->period % 3600 != 0 &&
        al->stat.kind != SC_STAT_PERCENTILE) {
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

    s = alarm_validate_put(req, &st, &op, &tmd, &unit, err);
    if (s != SC_OK)
        return s;
    if (composite_find(a, req->alarm_name))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "An alarm with the name %s already exists as a composite alarm.",
                       req->alarm_name);
    al = alarm_build(a, req, &st, op, tmd, unit);
    if (!al)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    al->b.config_updated_ms = now_ms;
    idx = alarm_vec_find(a->list, a->n, req->alarm_name);
    if (idx >= 0) {
        /* full overwrite of the configuration; state and tags stay */
        old = a->list[idx];
        alarm_base_keep_state(&al->b, &old->b);
        memcpy(al->recent, old->recent, sizeof(al->recent));
        al->nrecent = old->nrecent;
        al->last_eval_ms = old->last_eval_ms;
        sb_init(&b, a->scratch, SCRATCH_LEN);
        sb_raw(&b, "{\"type\":\"Update\",\"version\":\"1.0\",\"originalUpdatedAlarm\":");
        alarm_json(&b, old);
        sb_raw(&b, ",\"updatedAlarm\":");
        alarm_json(&b, al);
        sb_raw(&b, "}");
        snprintf(summary, sizeof(summary), "Alarm \"%s\" updated", al->b.name);
        a->list[idx] = al;
        al->b.change_seq = ++a->change_seq;
        alarm_free(old);
    } else {
        alarm_base_initial_state(&al->b, now_ms);
        if (tags_copy(&al->b.tags, &al->b.ntags, req->tags, req->n_tags) < 0 ||
            alarm_vec_insert(&a->list, &a->n, &a->cap, -idx - 1, al) < 0) {
            alarm_free(al);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        al->b.change_seq = ++a->change_seq;
        sb_init(&b, a->scratch, SCRATCH_LEN);
        sb_raw(&b, "{\"type\":\"Create\",\"version\":\"1.0\",\"createdAlarm\":");
        alarm_json(&b, al);
        sb_raw(&b, "}");
        snprintf(summary, sizeof(summary), "Alarm \"%s\" created", al->b.name);
    }
    alarm_view_sync(al);
    alarm_hist_add(a, now_ms, H_CONFIG, al->b.name, summary, a->scratch);
    return SC_OK;
}

enum sc_status alarm_check_names(const char *const *names, int n, struct sc_error *err)
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
    enum sc_status s = alarm_check_names(names, n, err);
    char summary[400];
    struct sb b;

    if (s == SC_OK)
        s = composite_check_delete(a, names, n, err);
    if (s != SC_OK)
        return s;
    for (int i = 0; i < n; i++) {
        int idx = alarm_vec_find(a->list, a->n, names[i]);
        struct alarm *al;
        if (idx < 0) {
            composite_delete(a, names[i], now_ms);
            continue;
        }
        al = a->list[idx];
        sb_init(&b, a->scratch, SCRATCH_LEN);
        sb_raw(&b, "{\"type\":\"Delete\",\"version\":\"1.0\",\"deletedAlarm\":");
        alarm_json(&b, al);
        sb_raw(&b, "}");
        snprintf(summary, sizeof(summary), "Alarm \"%s\" deleted", al->b.name);
        alarm_hist_add(a, now_ms, H_CONFIG, al->b.name, summary, a->scratch);
        alarm_free(alarm_vec_remove(a->list, &a->n, idx));
        a->delete_count++;
    }
    return SC_OK;
}

/* --- describes -------------------------------------------------------------------------------- */

enum sc_status alarm_state_value_error(const char *v, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VALIDATION,
                   "1 validation error detected: Value '%s' at 'stateValue' failed to satisfy "
                   "constraint: Member must satisfy enum value set: [INSUFFICIENT_DATA, ALARM, OK]",
                   v);
}

static int has_action_prefix(const struct alarm_base *b, const char *prefix)
{
    size_t l = strlen(prefix);

    for (int s = 0; s < 3; s++)
        for (int i = 0; i < b->nactions[s]; i++)
            if (strncmp(b->actions[s][i], prefix, l) == 0)
                return 1;
    return 0;
}

enum sc_status alarm_describe_check(const struct sc_describe_alarms_req *req,
                                    enum sc_alarm_state *sv, struct sc_error *err)
{
    *sv = SC_ALARM_OK;
    if (req->n_alarm_names > SC_ALARM_MAX_NAMES)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE,
                       "The collection AlarmNames must not have a size greater than 100.");
    if (req->n_alarm_names > 0 && req->alarm_name_prefix)
        return sc_fail(err, SC_ERR_INVALID_PARAMETER_COMBINATION,
                       "AlarmNamePrefix and AlarmNames.member are mutually exclusive");
    if (req->state_value && sc_alarm_state_parse(req->state_value, sv) < 0)
        return alarm_state_value_error(req->state_value, err);
    return SC_OK;
}

int alarm_describe_match(const struct alarm_base *b, const struct sc_describe_alarms_req *req,
                         enum sc_alarm_state sv)
{
    if (req->n_alarm_names > 0) {
        int hit = 0;
        for (int j = 0; j < req->n_alarm_names && !hit; j++)
            hit = req->alarm_names[j] && strcmp(req->alarm_names[j], b->name) == 0;
        if (!hit)
            return 0;
    }
    if (req->alarm_name_prefix &&
        strncmp(b->name, req->alarm_name_prefix, strlen(req->alarm_name_prefix)) != 0)
        return 0;
    if (req->state_value && b->state != sv)
        return 0;
    return !req->action_prefix || has_action_prefix(b, req->action_prefix);
}

enum sc_status sc_alarms_describe(const struct sc_alarms *a,
                                  const struct sc_describe_alarms_req *req, sc_alarm_visit_fn fn,
                                  void *ud, struct sc_error *err)
{
    enum sc_alarm_state sv;
    enum sc_status s = alarm_describe_check(req, &sv, err);

    for (int i = 0; s == SC_OK && i < a->n; i++)
        if (alarm_describe_match(&a->list[i]->b, req, sv) && fn(&a->list[i]->view, ud))
            break;
    return s;
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
        if (!al->metric_name) /* an alarm on Metrics watches no one metric */
            continue;
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
            if (strcmp(req->history_item_type, alarm_hist_names[i]) == 0)
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
        v.alarm_type = d->composite ? "CompositeAlarm" : "MetricAlarm";
        v.timestamp_ms = d->ts;
        v.history_item_type = alarm_hist_names[d->type];
        v.history_summary = name + strlen(name) + 1;
        v.history_data = v.history_summary + strlen(v.history_summary) + 1;
        if (fn(&v, ud))
            break;
    }
    return SC_OK;
}

/* --- tags ------------------------------------------------------------------------------------- */

struct tag **alarm_tags_by_arn(const struct sc_alarms *a, const char *arn, int **ntags)
{
    for (int i = 0; arn && i < a->n + a->ncomp; i++) {
        struct alarm_base *b = i < a->n ? &a->list[i]->b : &a->comps[i - a->n]->b;
        if (strcmp(b->arn, arn) == 0) {
            *ntags = &b->ntags;
            return &b->tags;
        }
    }
    return mute_tags_by_arn(a, arn, ntags);
}

enum sc_status sc_tags_check(const struct sc_tag *tags, int n, struct sc_error *err)
{
    for (int i = 0; i < n; i++)
        if (!tags[i].key || !*tags[i].key || !tags[i].value)
            return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                           "The parameter Tags.member.%d.%s is required.", i + 1,
                           tags[i].key && *tags[i].key ? "Value" : "Key");
    return SC_OK;
}

static enum sc_status arn_not_found(const char *arn, struct sc_error *err)
{
    if (!arn || !*arn)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter ResourceARN is required.");
    /* TagResource, UntagResource and ListTagsForResource model ResourceNotFoundException
     * (not ResourceNotFound, SetAlarmState's); moto's test_tag_resource_error_not_exists
     * quotes its text "Unknown" */
    return sc_fail(err, SC_ERR_RESOURCE_NOT_FOUND_EXCEPTION, "Unknown");
}

enum sc_status sc_alarms_tag(struct sc_alarms *a, const char *arn, const struct sc_tag *tags, int n,
                             struct sc_error *err)
{
    int *ntp = NULL;
    struct tag **tp = alarm_tags_by_arn(a, arn, &ntp);

    if (!tp)
        return arn_not_found(arn, err);
    if (sc_tags_check(tags, n, err) != SC_OK)
        return SC_ERR_MISSING_PARAMETER;
    for (int i = 0; i < n; i++) {
        int j;
        char *v = sc_strdup(tags[i].value);
        if (!v)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        for (j = 0; j < (*ntp); j++)
            if (strcmp((*tp)[j].key, tags[i].key) == 0)
                break;
        if (j < (*ntp)) {
            free((*tp)[j].value);
            (*tp)[j].value = v;
        } else {
            struct tag *t = realloc((*tp), (size_t)((*ntp) + 1) * sizeof(*t));
            char *k = sc_strdup(tags[i].key);
            if (!t || !k) {
                if (t)
                    (*tp) = t;
                free(v);
                free(k);
                return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
            }
            (*tp) = t;
            (*tp)[(*ntp)].key = k;
            (*tp)[(*ntp)].value = v;
            (*ntp)++;
        }
    }
    return SC_OK;
}

enum sc_status sc_alarms_untag(struct sc_alarms *a, const char *arn, const char *const *keys, int n,
                               struct sc_error *err)
{
    int *ntp = NULL;
    struct tag **tp = alarm_tags_by_arn(a, arn, &ntp);

    if (!tp)
        return arn_not_found(arn, err);
    for (int i = 0; i < n; i++) {
        for (int j = 0; keys[i] && j < (*ntp); j++) {
            if (strcmp((*tp)[j].key, keys[i]) == 0) {
                free((*tp)[j].key);
                free((*tp)[j].value);
                memmove(&(*tp)[j], &(*tp)[j + 1], (size_t)((*ntp) - j - 1) * sizeof(*(*tp)));
                (*ntp)--;
                break;
            }
        }
    }
    return SC_OK;
}

enum sc_status sc_alarms_list_tags(const struct sc_alarms *a, const char *arn, sc_tag_visit_fn fn,
                                   void *ud, struct sc_error *err)
{
    int *ntp = NULL;
    struct tag **tp = alarm_tags_by_arn(a, arn, &ntp);

    if (!tp)
        return arn_not_found(arn, err);
    for (int i = 0; i < (*ntp); i++)
        if (fn((*tp)[i].key, (*tp)[i].value, ud))
            break;
    return SC_OK;
}
