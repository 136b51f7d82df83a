/* scaler/alarm_save.c: the alarms' part of the emulator's state file (sc_alarms_save,
 * sc_alarms_load; see alarm.h). */
#include "scaler/alarm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/alarm_internal.h"

/* --- save / load (the emulator's state file) -------------------------------------------------- */

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
    json_object_set_new(o, "comparison_operator", json_string(alarm_op_names[al->op]));
    if (al->has_tmd)
        json_object_set_new(o, "treat_missing_data", json_string(alarm_tmd_names[al->tmd]));
    if (al->elscp)
        json_object_set_new(o, "evaluate_low_sample_count_percentile", json_string(al->elscp));
    json_object_set_new(o, "config_updated_ms", json_integer(al->config_updated_ms));
    json_object_set_new(o, "state", json_string(alarm_state_names[al->state]));
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
        json_t *h =
            json_pack("{sIssssssss}", "ts", (json_int_t)d->ts, "type", alarm_hist_names[d->type],
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
    s = alarm_validate_put(&r, &st, &op, &tmd, &unit, l->err);
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
            al->tags[i].key = alarm_dup_str(tagv[i].name);
            al->tags[i].value = alarm_dup_str(tagv[i].value);
            al->ntags++;
            if (!al->tags[i].key || !al->tags[i].value) {
                alarm_free(al);
                return sc_fail(l->err, SC_ERR_INTERNAL, "out of memory");
            }
        }
    }
    idx = alarm_find_idx(t, al->name);
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
    alarm_view_sync(al);
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
        for (k = 0; k < 3 && strcmp(type, alarm_hist_names[k]) != 0; k++)
            ;
        if (k == 3) {
            s = ld_fail(&l, "type", "not a history item type");
            goto out;
        }
        alarm_hist_add(t, ts, (enum hist_type)k, name, summary, data);
    }
    /* success: the loaded store takes a's place (a's address stays valid for its owner) */
    swap = *a;
    *a = *t;
    *t = swap;
out:
    sc_alarms_destroy(t);
    return s;
}
