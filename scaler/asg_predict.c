/* scaler/asg_predict.c: predictive scaling policies (see asg_predict.h; docs/autoscaling.md
 * section 12): the configuration's checks, the forecast model, the ForecastAndScale action
 * and GetPredictiveScalingForecast. */
#include "scaler/asg_predict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scaler/asg.h"
#include "scaler/asg_internal.h"
#include "scaler/civil.h"
#include "scaler/elbv2.h"
#include "scaler/save.h"
#include "scaler/str.h"

static const char *const slot_names[SC_PREDICT_NSLOTS] = {
    [SC_PREDICT_PAIR] = "PredefinedMetricPairSpecification",
    [SC_PREDICT_SCALING] = "PredefinedScalingMetricSpecification",
    [SC_PREDICT_LOAD] = "PredefinedLoadMetricSpecification",
    [SC_PREDICT_CUSTOM_SCALING] = "CustomizedScalingMetricSpecification",
    [SC_PREDICT_CUSTOM_LOAD] = "CustomizedLoadMetricSpecification",
    [SC_PREDICT_CUSTOM_CAPACITY] = "CustomizedCapacityMetricSpecification",
};

/* the model's camel-case paths of the predefined members, for its enum messages */
static const char *const slot_paths[3] = {
    "predefinedMetricPairSpecification",
    "predefinedScalingMetricSpecification",
    "predefinedLoadMetricSpecification",
};

static const char *const pair_types[] = { "ASGCPUUtilization", "ASGNetworkIn", "ASGNetworkOut",
                                          "ALBRequestCount", NULL };
static const char *const scaling_types[] = { "ASGAverageCPUUtilization", "ASGAverageNetworkIn",
                                             "ASGAverageNetworkOut", "ALBRequestCountPerTarget",
                                             NULL };
static const char *const load_types[] = { "ASGTotalCPUUtilization", "ASGTotalNetworkIn",
                                          "ASGTotalNetworkOut", "ALBTargetGroupRequestCount",
                                          NULL };
static const char *const *const slot_types[3] = { pair_types, scaling_types, load_types };

const char *sc_predict_slot_name(enum sc_predict_slot s)
{
    if ((unsigned)s >= SC_PREDICT_NSLOTS)
        return "";
    return slot_names[s];
}

int sc_predict_slot_customized(enum sc_predict_slot s)
{
    return s >= SC_PREDICT_CUSTOM_SCALING;
}

const char *sc_predict_mode_str(int forecast_and_scale)
{
    return forecast_and_scale ? "ForecastAndScale" : "ForecastOnly";
}

const char *sc_predict_breach_str(int increase_max_capacity)
{
    return increase_max_capacity ? "IncreaseMaxCapacity" : "HonorMaxCapacity";
}

int sc_predict_buffer_s(const struct sc_asg_predictive_info *p)
{
    return p->has_scheduling_buffer_time ? p->scheduling_buffer_time : SC_PREDICT_DEFAULT_BUFFER_S;
}

/* --- the model ---------------------------------------------------------------------------- */

static int64_t floor_to(int64_t t, int64_t unit)
{
    int64_t r = t % unit;

    return r < 0 ? t - r - unit : t - r;
}

int64_t sc_predict_refresh_floor(int64_t now_ms)
{
    return floor_to(now_ms, SC_PREDICT_REFRESH_MS);
}

int sc_predict_load_forecast(const double *history, int nhist, double *out, int nout)
{
    int first = -1, nall = 0;
    double all = 0;

    for (int i = 0; i < nhist; i++) {
        if (isnan(history[i]))
            continue;
        if (first < 0)
            first = i;
        all += history[i];
        nall++;
    }
    if (first < 0 || nhist - first < SC_PREDICT_MIN_HISTORY_HOURS)
        return -1;
    for (int i = 0; i < nout; i++) {
        double sum = 0;
        int n = 0;

        /* the same hour of day on each day before, from yesterday's back */
        for (int k = nhist - 24 + (i % 24); k >= 0; k -= 24) {
            if (k >= nhist || isnan(history[k]))
                continue;
            sum += history[k];
            n++;
        }
        out[i] = n ? sum / n : all / nall;
    }
    return 0;
}

double sc_predict_capacity(double load, double target_value)
{
    double c;

    if (!(load > 0) || !(target_value > 0))
        return 0;
    c = load / target_value;
    /* a quotient a rounding error above a whole number stays that number */
    return ceil(c - 1e-9);
}

void sc_predict_scale_target(double capacity, int min_size, int max_size, int increase_max,
                             int buffer_pct, int *desired, int *new_max)
{
    double want = capacity > 1e9 ? 1e9 : capacity;
    int max = max_size;

    if (increase_max) {
        double eff = ceil(want * (1.0 + buffer_pct / 100.0) - 1e-9);

        if (eff > max)
            max = (int)eff;
    }
    if (want > max)
        want = max;
    if (want < min_size)
        want = min_size;
    *desired = (int)want;
    *new_max = max;
}

/* --- the configuration -------------------------------------------------------------------- */

static int in_set(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(s, *set) == 0)
            return 1;
    return 0;
}

static void enum_list(const char *const *set, char *buf, size_t len)
{
    size_t k = 0;

    buf[0] = '\0';
    for (int i = 0; set[i] && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "", set[i]);
}

static enum sc_status check_predefined(const struct sc_predict_metric_req *m, int slot,
                                       struct sc_error *err)
{
    char list[160];
    const char *t = m->predefined_metric_type;

    if (!t || !in_set(t, slot_types[slot])) {
        enum_list(slot_types[slot], list, sizeof(list));
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%s' at 'predictiveScalingConfiguration.metricSpecifications.member.1.%s.predefinedMetricType' failed to satisfy constraint: Member must satisfy enum value set: [%s]",
            t ? t : "null", slot_paths[slot], list);
    }
    if (strncmp(t, "ALB", 3) == 0) {
        if (!m->resource_label || !*m->resource_label)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Resource label should be specified for predefined metric type %s", t);
        if (!sc_elbv2_resource_label_valid(m->resource_label))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Invalid resource label '%s' for predefined metric type %s",
                           m->resource_label, t);
    }
    return SC_OK;
}

static enum sc_status check_customized(const struct sc_predict_metric_req *m, struct sc_error *err)
{
    int nret = 0;

    if (m->nqueries < 1 || m->nqueries > SC_ALARM_MAX_QUERIES)
        return sc_fail(err, SC_ERR_VALIDATION, "Invalid metrics list");
    for (int k = 0; k < m->nqueries; k++) {
        const struct sc_alarm_query *q = &m->queries[k];

        if (!q->id || !*q->id)
            return sc_fail(err, SC_ERR_VALIDATION, "Invalid metrics list");
        if (!!q->expression == !!q->has_metric_stat)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Exactly one of Expression and MetricStat must be specified in a MetricDataQuery.");
        nret += !q->has_return_data || q->return_data;
    }
    if (nret != 1)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Exactly one element of the metrics list should return data.");
    return SC_OK;
}

enum sc_status sc_asg_predictive_validate(const struct sc_asg_predictive_req *r,
                                          struct sc_error *err)
{
    const struct sc_predict_spec_req *s;
    enum sc_status st;
    int pair, load, scaling;

    if (r->nspecs != 1)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "MetricSpecifications must contain exactly one metric specification: a target value and a metric pair, or a target value, a load metric and a scaling metric.");
    s = &r->specs[0];
    if (!s->has_target_value || !isfinite(s->target_value))
        return sc_fail(err, SC_ERR_VALIDATION, "TargetValue must be a finite number.");
    if (!(s->target_value > 0))
        return sc_fail(err, SC_ERR_VALIDATION, "TargetValue must be greater than 0.");
    pair = s->slot[SC_PREDICT_PAIR].set;
    load = s->slot[SC_PREDICT_LOAD].set + s->slot[SC_PREDICT_CUSTOM_LOAD].set;
    scaling = s->slot[SC_PREDICT_SCALING].set + s->slot[SC_PREDICT_CUSTOM_SCALING].set;
    if (!(pair && !load && !scaling) && !(!pair && load == 1 && scaling == 1))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "The metric specification is invalid. A policy must have either one scaling metric and one load metric or one metric pair.");
    for (int k = 0; k < SC_PREDICT_NSLOTS; k++) {
        if (!s->slot[k].set)
            continue;
        st = sc_predict_slot_customized(k) ? check_customized(&s->slot[k], err)
                                           : check_predefined(&s->slot[k], k, err);
        if (st != SC_OK)
            return st;
    }
    if (r->mode && strcmp(r->mode, "ForecastOnly") != 0 && strcmp(r->mode, "ForecastAndScale") != 0)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%s' at 'predictiveScalingConfiguration.mode' failed to satisfy constraint: Member must satisfy enum value set: [ForecastAndScale, ForecastOnly]",
            r->mode);
    if (r->has_scheduling_buffer_time && r->scheduling_buffer_time < 0)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%d' at 'predictiveScalingConfiguration.schedulingBufferTime' failed to satisfy constraint: Member must have value greater than or equal to 0",
            r->scheduling_buffer_time);
    if (r->has_scheduling_buffer_time && r->scheduling_buffer_time > 3600)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "SchedulingBufferTime must be less than or equal to 3600 seconds.");
    if (r->max_capacity_breach_behavior &&
        strcmp(r->max_capacity_breach_behavior, "HonorMaxCapacity") != 0 &&
        strcmp(r->max_capacity_breach_behavior, "IncreaseMaxCapacity") != 0)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%s' at 'predictiveScalingConfiguration.maxCapacityBreachBehavior' failed to satisfy constraint: Member must satisfy enum value set: [HonorMaxCapacity, IncreaseMaxCapacity]",
            r->max_capacity_breach_behavior);
    if (r->has_max_capacity_buffer && (r->max_capacity_buffer < 0 || r->max_capacity_buffer > 100))
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%d' at 'predictiveScalingConfiguration.maxCapacityBuffer' failed to satisfy constraint: Member must have value between 0 and 100",
            r->max_capacity_buffer);
    if (r->max_capacity_breach_behavior &&
        strcmp(r->max_capacity_breach_behavior, "IncreaseMaxCapacity") == 0) {
        if (!r->has_max_capacity_buffer)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "MaxCapacityBuffer is required when MaxCapacityBreachBehavior is IncreaseMaxCapacity.");
    } else if (r->has_max_capacity_buffer) {
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "MaxCapacityBuffer can only be specified when MaxCapacityBreachBehavior is IncreaseMaxCapacity.");
    }
    return SC_OK;
}

void asg_predictive_free(struct sc_asg_predictive_info *p)
{
    if (!p)
        return;
    for (int k = 0; k < SC_PREDICT_NSLOTS; k++) {
        free(p->slot[k].predefined_metric_type);
        free(p->slot[k].resource_label);
        sc_alarm_queries_free(p->slot[k].queries, p->slot[k].nqueries);
    }
    free(p);
}

struct sc_asg_predictive_info *asg_predictive_dup(const struct sc_asg_predictive_req *r)
{
    struct sc_asg_predictive_info *p = calloc(1, sizeof(*p));
    const struct sc_predict_spec_req *s = &r->specs[0];

    if (!p)
        return NULL;
    p->target_value = s->target_value;
    for (int k = 0; k < SC_PREDICT_NSLOTS; k++) {
        const struct sc_predict_metric_req *m = &s->slot[k];
        struct sc_predict_metric *d = &p->slot[k];

        if (!m->set)
            continue;
        d->set = 1;
        if (sc_strdup_opt(&d->predefined_metric_type, m->predefined_metric_type) ||
            sc_strdup_opt(&d->resource_label, m->resource_label))
            goto oom;
        if (m->nqueries) {
            if (sc_alarm_queries_dup(m->queries, m->nqueries, &d->queries))
                goto oom;
            d->nqueries = m->nqueries;
        }
    }
    p->forecast_and_scale = r->mode && strcmp(r->mode, "ForecastAndScale") == 0;
    p->has_scheduling_buffer_time = r->has_scheduling_buffer_time;
    p->scheduling_buffer_time = r->scheduling_buffer_time;
    p->increase_max_capacity = r->max_capacity_breach_behavior &&
                               strcmp(r->max_capacity_breach_behavior, "IncreaseMaxCapacity") == 0;
    p->has_max_capacity_buffer = r->has_max_capacity_buffer;
    p->max_capacity_buffer = r->max_capacity_buffer;
    return p;

oom:
    asg_predictive_free(p);
    return NULL;
}

/* --- the forecast ------------------------------------------------------------------------ */

/* The load metric of p for group: 1 with *key, stat and unit set (dims in dims[]), or 0 when
 * there is none scalelab can read (a customized load metric that is an expression). */
static int load_metric(const struct sc_asg_predictive_info *p, const char *group,
                       struct sc_metric_key *key, struct sc_dimension *dims, const char **stat,
                       const char **unit)
{
    const struct sc_predict_metric *m = &p->slot[SC_PREDICT_PAIR];
    const char *t;

    *unit = NULL;
    *stat = "Sum";
    if (!m->set)
        m = &p->slot[SC_PREDICT_LOAD];
    if (m->set) {
        t = m->predefined_metric_type;
        if (strncmp(t, "ALB", 3) == 0) {
            const char *tg = m->resource_label ? strstr(m->resource_label, "targetgroup/") : NULL;

            key->namespace = "AWS/ApplicationELB";
            key->metric_name = "RequestCount";
            dims[0].name = "TargetGroup";
            dims[0].value = tg ? tg : "";
        } else {
            key->namespace = "AWS/EC2";
            key->metric_name = strstr(t, "CPU")  ? "CPUUtilization"
                               : strstr(t, "In") ? "NetworkIn"
                                                 : "NetworkOut";
            dims[0].name = "AutoScalingGroupName";
            dims[0].value = group;
        }
        key->dimensions = dims;
        key->n_dimensions = 1;
        return 1;
    }
    m = &p->slot[SC_PREDICT_CUSTOM_LOAD];
    for (int k = 0; k < m->nqueries; k++) {
        const struct sc_alarm_query *q = &m->queries[k];

        if (q->has_return_data && !q->return_data)
            continue;
        if (!q->has_metric_stat)
            return 0;
        *key = q->metric;
        *stat = q->stat ? q->stat : "Sum";
        *unit = q->unit;
        return 1;
    }
    return 0;
}

void asg_predict_update(struct sc_asg *asg, const struct asg_group *g,
                        struct sc_asg_predictive_info *p, int64_t now_ms)
{
    double hist[SC_PREDICT_HISTORY_HOURS];
    struct sc_metric_key key;
    struct sc_dimension dims[1];
    const char *stat, *unit;
    int64_t first = floor_to(now_ms, SC_PREDICT_HOUR_MS);

    p->update_ms = now_ms;
    p->next_update_ms = sc_predict_refresh_floor(now_ms) + SC_PREDICT_REFRESH_MS;
    if (!asg->env.load_history ||
        !load_metric(p, g->info.auto_scaling_group_name, &key, dims, &stat, &unit))
        return;
    for (int i = 0; i < SC_PREDICT_HISTORY_HOURS; i++)
        hist[i] = NAN;
    asg->env.load_history(asg->env.ud, &key, stat, unit,
                          first - SC_PREDICT_HISTORY_HOURS * SC_PREDICT_HOUR_MS,
                          SC_PREDICT_HISTORY_HOURS, hist, now_ms);
    if (sc_predict_load_forecast(hist, SC_PREDICT_HISTORY_HOURS, p->load,
                                 SC_PREDICT_FORECAST_HOURS) != 0) {
        /* under 24 hours of data: no forecast yet, tried again at the next hour */
        p->has_forecast = 0;
        p->next_update_ms = first + SC_PREDICT_HOUR_MS;
        return;
    }
    p->has_forecast = 1;
    p->start_ms = first;
    for (int i = 0; i < SC_PREDICT_FORECAST_HOURS; i++)
        p->capacity[i] = sc_predict_capacity(p->load[i], p->target_value);
}

/* The first scaling instant (an hour start minus the buffer) after now. */
static int64_t next_instant(const struct sc_asg_predictive_info *p, int64_t now_ms)
{
    int64_t b = (int64_t)sc_predict_buffer_s(p) * 1000;

    return floor_to(now_ms + b, SC_PREDICT_HOUR_MS) + SC_PREDICT_HOUR_MS - b;
}

void asg_predict_init(struct sc_asg *asg, const struct asg_group *g,
                      struct sc_asg_predictive_info *p, int64_t now_ms)
{
    asg_predict_update(asg, g, p, now_ms);
    p->next_action_ms = next_instant(p, now_ms);
}

/* ForecastAndScale at an instant: the hour it scales for is instant + buffer. */
static void scale_for_hour(struct asg_group *g, const struct asg_policy *pol,
                           const struct sc_asg_predictive_info *p, int64_t hour_ms, int64_t now_ms)
{
    int64_t i;
    int desired, max;
    char when[32];

    if (!p->has_forecast || hour_ms < p->start_ms)
        return;
    i = (hour_ms - p->start_ms) / SC_PREDICT_HOUR_MS;
    if (i >= SC_PREDICT_FORECAST_HOURS || asg_proc_suspended(g, SC_ASG_PROC_LAUNCH))
        return;
    sc_predict_scale_target(p->capacity[i], g->info.min_size, g->info.max_size,
                            p->increase_max_capacity, p->max_capacity_buffer, &desired, &max);
    if (desired <= g->info.desired_capacity)
        return; /* predictive scaling never scales in */
    sc_civil_format_iso(hour_ms, when, sizeof(when));
    if (max > g->info.max_size)
        g->info.max_size = max;
    asg_set_desired(g, desired, now_ms,
                    "the predictive scaling policy %s forecast a capacity of %g for %s",
                    pol->info.policy_name, p->capacity[i], when);
}

void asg_predict_step(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    for (int k = 0; k < g->npol; k++) {
        struct asg_policy *pol = g->pol[k];
        struct sc_asg_predictive_info *p = pol->info.predictive;
        int64_t last = -1;

        if (!p)
            continue;
        if (now_ms >= p->next_update_ms)
            asg_predict_update(asg, g, p, now_ms);
        while (now_ms >= p->next_action_ms) {
            last = p->next_action_ms;
            p->next_action_ms += SC_PREDICT_HOUR_MS;
        }
        if (last >= 0 && p->forecast_and_scale && pol->info.enabled && !g->deleting)
            scale_for_hour(g, pol, p, last + (int64_t)sc_predict_buffer_s(p) * 1000, now_ms);
    }
}

int asg_predict_min(const struct asg_group *g, int64_t now_ms, int64_t want)
{
    int floor = g->info.min_size;

    if (want >= g->info.desired_capacity)
        return floor;
    for (int k = 0; k < g->npol; k++) {
        const struct asg_policy *pol = g->pol[k];
        const struct sc_asg_predictive_info *p = pol->info.predictive;
        int64_t b, hour, i;
        int desired, max;

        if (!p || !p->forecast_and_scale || !p->has_forecast || !pol->info.enabled)
            continue;
        /* the hour whose instant (hour - buffer) was the last at or before now */
        b = (int64_t)sc_predict_buffer_s(p) * 1000;
        hour = floor_to(now_ms + b, SC_PREDICT_HOUR_MS);
        if (hour < p->start_ms)
            continue;
        i = (hour - p->start_ms) / SC_PREDICT_HOUR_MS;
        if (i >= SC_PREDICT_FORECAST_HOURS)
            continue;
        sc_predict_scale_target(p->capacity[i], g->info.min_size, g->info.max_size,
                                p->increase_max_capacity, p->max_capacity_buffer, &desired, &max);
        if (desired > floor)
            floor = desired;
    }
    return floor;
}

int64_t asg_predict_next_due(const struct asg_group *g)
{
    int64_t due = INT64_MAX;

    for (int k = 0; k < g->npol; k++) {
        const struct sc_asg_predictive_info *p = g->pol[k]->info.predictive;

        if (!p)
            continue;
        if (p->next_update_ms < due)
            due = p->next_update_ms;
        if (p->forecast_and_scale && p->next_action_ms < due)
            due = p->next_action_ms;
    }
    return due;
}

enum sc_status sc_asg_get_predictive_forecast(const struct sc_asg *asg, const char *group,
                                              const char *policy, int64_t start_ms, int64_t end_ms,
                                              struct sc_predict_forecast_view *out,
                                              struct sc_error *err)
{
    const struct sc_asg_policy_info *pi;
    const struct sc_asg_predictive_info *p;
    int64_t a, b;

    memset(out, 0, sizeof(*out));
    if (!asg_group_find(asg, group) || asg_group_find(asg, group)->deleting)
        return sc_asg_group_not_found(group, err);
    pi = policy ? sc_asg_policy_find(asg, group, policy) : NULL;
    if (!pi)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "No policy found for service namespace: autoscaling, policy name: %s",
                       policy ? policy : "null");
    p = pi->predictive;
    if (!p)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "GetPredictiveScalingForecast is only supported for policies of type PredictiveScaling; policy %s is of type %s.",
            pi->policy_name, sc_asg_policy_type_str(pi->policy_type));
    if (end_ms <= start_ms)
        return sc_fail(err, SC_ERR_VALIDATION, "EndTime must be after StartTime.");
    if (end_ms - start_ms > SC_PREDICT_MAX_RANGE_MS)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "The time range between StartTime and EndTime must not exceed 30 days.");
    out->policy = p;
    out->update_ms = p->update_ms;
    if (!p->has_forecast)
        return SC_OK;
    /* the forecast's hours that start in [start, end) */
    a = start_ms <= p->start_ms
            ? 0
            : (start_ms - p->start_ms + SC_PREDICT_HOUR_MS - 1) / SC_PREDICT_HOUR_MS;
    b = end_ms <= p->start_ms
            ? 0
            : (end_ms - p->start_ms + SC_PREDICT_HOUR_MS - 1) / SC_PREDICT_HOUR_MS;
    if (b > SC_PREDICT_FORECAST_HOURS)
        b = SC_PREDICT_FORECAST_HOURS;
    if (a >= b)
        return SC_OK;
    out->first_ms = p->start_ms + a * SC_PREDICT_HOUR_MS;
    out->load = &p->load[a];
    out->capacity = &p->capacity[a];
    out->n = (int)(b - a);
    return SC_OK;
}

/* --- save / load (the emulator's --state) -------------------------------------------------- */

static json_t *reals_save(const double *v, int n)
{
    json_t *a = json_array();

    for (int i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_real(isfinite(v[i]) ? v[i] : 0))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

json_t *asg_predictive_save(const struct sc_asg_predictive_info *p)
{
    json_t *o = json_object(), *slots = json_array();
    int bad = !o || !slots;

    for (int k = 0; !bad && k < SC_PREDICT_NSLOTS; k++) {
        const struct sc_predict_metric *m = &p->slot[k];
        json_t *so = json_object();

        bad |= !so;
        if (!so)
            break;
        bad |= sc_save_bool(so, "set", m->set);
        bad |= sc_save_str(so, "predefined_metric_type", m->predefined_metric_type);
        bad |= sc_save_str(so, "resource_label", m->resource_label);
        if (m->nqueries)
            bad |= sc_save_take(so, "queries", sc_alarm_queries_save(m->queries, m->nqueries));
        bad |= json_array_append_new(slots, so);
    }
    if (bad) {
        json_decref(o);
        json_decref(slots);
        return NULL;
    }
    bad |= sc_save_take(o, "slots", slots);
    bad |= sc_save_real(o, "target_value", p->target_value);
    bad |= sc_save_bool(o, "forecast_and_scale", p->forecast_and_scale);
    bad |= sc_save_bool(o, "has_scheduling_buffer_time", p->has_scheduling_buffer_time);
    bad |= sc_save_int(o, "scheduling_buffer_time", p->scheduling_buffer_time);
    bad |= sc_save_bool(o, "increase_max_capacity", p->increase_max_capacity);
    bad |= sc_save_bool(o, "has_max_capacity_buffer", p->has_max_capacity_buffer);
    bad |= sc_save_int(o, "max_capacity_buffer", p->max_capacity_buffer);
    bad |= sc_save_int(o, "update_ms", p->update_ms);
    bad |= sc_save_bool(o, "has_forecast", p->has_forecast);
    bad |= sc_save_int(o, "start_ms", p->start_ms);
    bad |= sc_save_take(o, "load", reals_save(p->load, SC_PREDICT_FORECAST_HOURS));
    bad |= sc_save_take(o, "capacity", reals_save(p->capacity, SC_PREDICT_FORECAST_HOURS));
    bad |= sc_save_int(o, "next_update_ms", p->next_update_ms);
    bad |= sc_save_int(o, "next_action_ms", p->next_action_ms);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static void reals_load(struct sc_load *l, const json_t *o, const char *key, double *v, int n)
{
    const json_t *a = sc_load_array(l, o, key);

    if (a && (int)json_array_size(a) != n) {
        sc_load_fail(l, "%s: needs %d numbers", key, n);
        return;
    }
    for (int i = 0; a && i < n; i++)
        v[i] = json_number_value(json_array_get(a, (size_t)i));
}

struct sc_asg_predictive_info *asg_predictive_load(struct sc_load *l, const json_t *o)
{
    struct sc_asg_predictive_info *p = calloc(1, sizeof(*p));
    const json_t *slots = sc_load_array(l, o, "slots");

    if (!p) {
        sc_load_fail(l, "out of memory");
        return NULL;
    }
    if (slots && json_array_size(slots) != SC_PREDICT_NSLOTS)
        sc_load_fail(l, "predictive: slots: needs %d members", SC_PREDICT_NSLOTS);
    for (int k = 0; slots && !l->failed && k < SC_PREDICT_NSLOTS; k++) {
        const json_t *so = json_array_get(slots, (size_t)k);
        struct sc_predict_metric *m = &p->slot[k];

        m->set = sc_load_bool(l, so, "set");
        m->predefined_metric_type = sc_load_str(l, so, "predefined_metric_type");
        m->resource_label = sc_load_str(l, so, "resource_label");
        if (json_object_get(so, "queries")) {
            char msg[160];

            if (sc_alarm_queries_load(json_object_get(so, "queries"), &m->queries, &m->nqueries,
                                      msg, sizeof(msg)) < 0)
                sc_load_fail(l, "predictive: queries: %s", msg);
        }
    }
    p->target_value = sc_load_real(l, o, "target_value");
    p->forecast_and_scale = sc_load_bool(l, o, "forecast_and_scale");
    p->has_scheduling_buffer_time = sc_load_bool(l, o, "has_scheduling_buffer_time");
    p->scheduling_buffer_time = sc_load_int_range(l, o, "scheduling_buffer_time", 0, 3600);
    p->increase_max_capacity = sc_load_bool(l, o, "increase_max_capacity");
    p->has_max_capacity_buffer = sc_load_bool(l, o, "has_max_capacity_buffer");
    p->max_capacity_buffer = sc_load_int_range(l, o, "max_capacity_buffer", 0, 100);
    p->update_ms = sc_load_int(l, o, "update_ms");
    p->has_forecast = sc_load_bool(l, o, "has_forecast");
    p->start_ms = sc_load_int(l, o, "start_ms");
    reals_load(l, o, "load", p->load, SC_PREDICT_FORECAST_HOURS);
    reals_load(l, o, "capacity", p->capacity, SC_PREDICT_FORECAST_HOURS);
    p->next_update_ms = sc_load_int(l, o, "next_update_ms");
    p->next_action_ms = sc_load_int(l, o, "next_action_ms");
    return p;
}
