/* scaler/alarm_save.c: the alarms' part of the emulator's state file (sc_alarms_save,
 * sc_alarms_load; see alarm.h). */
#include "scaler/alarm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/alarm_internal.h"
#include "scaler/save.h"

/* --- save / load (the emulator's state file) -------------------------------------------------- */

static json_t *str_list_json(char *const *v, int n)
{
    json_t *a = json_array();

    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

int alarm_base_save_identity(json_t *o, const struct alarm_base *b)
{
    int r = json_object_set_new(o, "name", json_string(b->name));

    if (b->description)
        r |= json_object_set_new(o, "description", json_string(b->description));
    if (b->composite)
        r |= json_object_set_new(o, "arn", json_string(b->arn));
    r |= json_object_set_new(o, "actions_enabled", json_boolean(b->actions_enabled));
    r |= json_object_set_new(o, "ok_actions",
                             str_list_json(b->actions[SC_ALARM_OK], b->nactions[SC_ALARM_OK]));
    r |= json_object_set_new(
        o, "alarm_actions", str_list_json(b->actions[SC_ALARM_ALARM], b->nactions[SC_ALARM_ALARM]));
    r |= json_object_set_new(o, "insufficient_data_actions",
                             str_list_json(b->actions[SC_ALARM_INSUFFICIENT_DATA],
                                           b->nactions[SC_ALARM_INSUFFICIENT_DATA]));
    return r ? -1 : 0;
}

int alarm_base_save_state(json_t *o, const struct alarm_base *b)
{
    int r = json_object_set_new(o, "config_updated_ms", json_integer(b->config_updated_ms));

    r |= json_object_set_new(o, "state",
                             b->composite ? json_integer((json_int_t)b->state)
                                          : json_string(alarm_state_names[b->state]));
    r |= json_object_set_new(o, "reason", json_string(b->reason));
    r |= json_object_set_new(o, "reason_data", json_string(b->reason_data));
    r |= json_object_set_new(o, "state_updated_ms", json_integer(b->state_updated_ms));
    r |= json_object_set_new(o, "state_transitioned_ms", json_integer(b->state_transitioned_ms));
    return r ? -1 : 0;
}

int alarm_base_save_tags(json_t *o, const struct alarm_base *b)
{
    json_t *tags = json_array();
    int r = json_object_set_new(o, "pending", json_boolean(b->pending));

    for (int i = 0; tags && i < b->ntags; i++)
        r |= json_array_append_new(
            tags, b->composite
                      ? json_pack("{ssss}", "key", b->tags[i].key, "value", b->tags[i].value)
                      : json_pack("[ss]", b->tags[i].key, b->tags[i].value));
    r |= json_object_set_new(o, "tags", tags);
    return r ? -1 : 0;
}

static json_t *alarm_save(const struct alarm *al)
{
    json_t *o = json_object(), *dims = json_array(), *recent = json_array();

    if (!o || !dims || !recent || alarm_base_save_identity(o, &al->b) < 0) {
        json_decref(o);
        json_decref(dims);
        json_decref(recent);
        return NULL;
    }
    if (al->nmq) {
        json_t *m = alarm_math_save(al);
        if (!m || json_object_set_new(o, "metrics", m) < 0) {
            json_decref(o);
            json_decref(dims);
            json_decref(recent);
            return NULL;
        }
    } else {
        json_object_set_new(o, "metric_name", json_string(al->metric_name));
        json_object_set_new(o, "namespace", json_string(al->ns));
    }
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
    if (al->tmid)
        json_object_set_new(o, "threshold_metric_id", json_string(al->tmid));
    json_object_set_new(o, "comparison_operator", json_string(alarm_op_names[al->op]));
    if (al->has_tmd)
        json_object_set_new(o, "treat_missing_data", json_string(alarm_tmd_names[al->tmd]));
    if (al->elscp)
        json_object_set_new(o, "evaluate_low_sample_count_percentile", json_string(al->elscp));
    for (int i = 0; i < al->nrecent; i++)
        json_array_append_new(recent, json_real(al->recent[i]));
    if (alarm_base_save_state(o, &al->b) < 0 || json_object_set_new(o, "recent", recent) < 0 ||
        json_object_set_new(o, "last_eval_ms", json_integer(al->last_eval_ms)) < 0 ||
        alarm_base_save_tags(o, &al->b) < 0) {
        json_decref(o);
        return NULL;
    }
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
        if (h && d->composite)
            json_object_set_new(h, "composite", json_true());
        if (!h || json_array_append_new(hist, h) < 0)
            goto fail;
    }
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "alarms", list);
    json_object_set_new(root, "history", hist);
    if (a->ncomp > 0) {
        json_t *comps = composites_save(a);
        if (!comps) {
            json_decref(root);
            return NULL;
        }
        json_object_set_new(root, "composites", comps);
    }
    if (a->nmute > 0) {
        json_t *mutes = mutes_save(a);
        if (!mutes) {
            json_decref(root);
            return NULL;
        }
        json_object_set_new(root, "mute_rules", mutes);
    }
    return root;

fail:
    json_decref(root);
    json_decref(list);
    json_decref(hist);
    return NULL;
}

/* Loading: every value is checked through save.h's struct sc_load (the first failure is
 * kept); failures name the path, "state: alarms[2].period: expected an integer" (l->sep is
 * "."). The helpers below keep this file's wording where save.h's readers word a failure
 * differently. */

/* A string (absent or null: "missing"); the borrowed value. */
static const char *need_str(struct sc_load *l, const json_t *o, const char *key)
{
    const char *s = sc_load_cstr_opt(l, o, key);

    if (!s)
        sc_load_fail(l, "%s: missing", key);
    return s;
}

/* An integer in int's 32-bit range. */
static int load_i32(struct sc_load *l, const json_t *o, const char *key)
{
    int64_t v = sc_load_int(l, o, key);

    if (v < INT32_MIN || v > INT32_MAX) {
        sc_load_fail(l, "%s: out of range", key);
        return 0;
    }
    return (int)v;
}

/* true or false (absent counts as neither). */
static int need_bool(struct sc_load *l, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_boolean(v)) {
        sc_load_fail(l, "%s: expected a boolean", key);
        return 0;
    }
    return json_is_true(v);
}

/* A list of strings (at most max; absent: none) into out[] (borrowed). */
static void load_strs(struct sc_load *l, const json_t *o, const char *key, const char **out,
                      int max, int *n)
{
    const json_t *v = json_object_get(o, key);
    size_t i;
    const json_t *e;

    *n = 0;
    if (!v || l->failed)
        return;
    if (!json_is_array(v) || json_array_size(v) > (size_t)max) {
        sc_load_fail(l, "%s: expected a short list of strings", key);
        return;
    }
    json_array_foreach(v, i, e)
    {
        if (!json_is_string(e)) {
            sc_load_fail(l, "%s: expected strings", key);
            return;
        }
        out[(*n)++] = json_string_value(e);
    }
}

/* [[a, b], ...] pairs (at most max; absent: none) into out (borrowed). */
static void load_pairs(struct sc_load *l, const json_t *o, const char *key,
                       struct sc_dimension *out, int max, int *n)
{
    const json_t *v = json_object_get(o, key);
    size_t i;
    const json_t *e;

    *n = 0;
    if (!v || l->failed)
        return;
    if (!json_is_array(v) || json_array_size(v) > (size_t)max) {
        sc_load_fail(l, "%s: expected a short list of pairs", key);
        return;
    }
    json_array_foreach(v, i, e)
    {
        if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_string(json_array_get(e, 0)) ||
            !json_is_string(json_array_get(e, 1))) {
            sc_load_fail(l, "%s: expected [string, string] pairs", key);
            return;
        }
        out[*n].name = json_string_value(json_array_get(e, 0));
        out[*n].value = json_string_value(json_array_get(e, 1));
        (*n)++;
    }
}

int alarm_base_load_state(struct sc_load *l, const json_t *o, struct alarm_base *b)
{
    const json_t *st = json_object_get(o, "state"), *tags, *e;
    size_t i;

    b->config_updated_ms = sc_load_int(l, o, "config_updated_ms");
    if (json_is_string(st)) {
        if (sc_alarm_state_parse(json_string_value(st), &b->state) < 0)
            sc_load_fail(l, "state: not an alarm state");
    } else {
        b->state = (enum sc_alarm_state)sc_load_int_range(l, o, "state", 0, 2);
    }
    sc_load_buf(l, o, "reason", b->reason, sizeof(b->reason));
    sc_load_buf(l, o, "reason_data", b->reason_data, sizeof(b->reason_data));
    b->state_updated_ms = sc_load_int(l, o, "state_updated_ms");
    b->state_transitioned_ms = sc_load_int(l, o, "state_transitioned_ms");
    b->pending = need_bool(l, o, "pending");
    tags = json_object_get(o, "tags");
    if (l->failed || !tags)
        return l->failed ? -1 : 0;
    if (!json_is_array(tags))
        return sc_load_fail(l, "tags: expected a list");
    b->tags = calloc(json_array_size(tags) + 1, sizeof(*b->tags));
    if (!b->tags)
        return sc_load_fail(l, "out of memory");
    json_array_foreach(tags, i, e)
    {
        const json_t *k = json_is_array(e) ? json_array_get(e, 0) : json_object_get(e, "key");
        const json_t *v = json_is_array(e) ? json_array_get(e, 1) : json_object_get(e, "value");
        if (!json_is_string(k) || !json_is_string(v) ||
            (json_is_array(e) && json_array_size(e) != 2))
            return sc_load_fail(l, "tags: expected [key, value] pairs or {key, value} objects");
        b->tags[i].key = sc_strdup(json_string_value(k));
        b->tags[i].value = sc_strdup(json_string_value(v));
        b->ntags++;
        if (!b->tags[i].key || !b->tags[i].value)
            return sc_load_fail(l, "out of memory");
    }
    return 0;
}

/* Builds one alarm from its saved form into t (a fresh store); l->where names it. */
static enum sc_status alarm_load(struct sc_alarms *t, const json_t *o, struct sc_load *l)
{
    struct sc_put_metric_alarm_req r;
    const char *acts[3][SC_ALARM_MAX_ACTIONS];
    struct sc_dimension dims[SC_METRIC_MAX_DIMENSIONS];
    struct sc_alarm_query mq[SC_ALARM_MAX_QUERIES];
    struct sc_dimension mdims[SC_ALARM_MAX_QUERIES][SC_METRIC_MAX_DIMENSIONS];
    const char *cmp;
    struct sc_stat st;
    enum op op;
    enum tmd tmd;
    enum sc_unit unit;
    enum sc_status s;
    struct alarm *al = NULL;
    int idx;
    const json_t *recent;
    int64_t le;
    double threshold;

    if (!json_is_object(o))
        return sc_fail(l->err, SC_ERR_VALIDATION, "state: %s: expected an object", l->where);
    memset(&r, 0, sizeof(r));
    r.alarm_name = need_str(l, o, "name");
    r.alarm_description = sc_load_cstr_opt(l, o, "description");
    r.actions_enabled = need_bool(l, o, "actions_enabled");
    load_strs(l, o, "ok_actions", acts[0], SC_ALARM_MAX_ACTIONS, &r.n_ok_actions);
    load_strs(l, o, "alarm_actions", acts[1], SC_ALARM_MAX_ACTIONS, &r.n_alarm_actions);
    load_strs(l, o, "insufficient_data_actions", acts[2], SC_ALARM_MAX_ACTIONS,
              &r.n_insufficient_data_actions);
    if (json_object_get(o, "metrics")) {
        char msg[160];
        if (alarm_math_load(json_object_get(o, "metrics"), mq, mdims, &r.n_metrics, msg,
                            sizeof(msg)) < 0)
            sc_load_fail(l, "%s", msg);
        r.has_metrics = 1;
        r.metrics = mq;
    } else {
        r.metric_name = need_str(l, o, "metric_name");
        r.namespace = need_str(l, o, "namespace");
    }
    load_pairs(l, o, "dimensions", dims, SC_METRIC_MAX_DIMENSIONS, &r.n_dimensions);
    r.statistic = sc_load_cstr_opt(l, o, "statistic");
    r.extended_statistic = sc_load_cstr_opt(l, o, "extended_statistic");
    r.period = load_i32(l, o, "period");
    r.evaluation_periods = load_i32(l, o, "evaluation_periods");
    if (json_object_get(o, "datapoints_to_alarm")) {
        r.has_datapoints_to_alarm = 1;
        r.datapoints_to_alarm = load_i32(l, o, "datapoints_to_alarm");
    }
    r.unit = sc_load_cstr_opt(l, o, "unit");
    cmp = need_str(l, o, "comparison_operator");
    r.treat_missing_data = sc_load_cstr_opt(l, o, "treat_missing_data");
    r.evaluate_low_sample_count_percentile =
        sc_load_cstr_opt(l, o, "evaluate_low_sample_count_percentile");
    le = sc_load_int(l, o, "last_eval_ms");
    if (!json_object_get(o, "threshold"))
        sc_load_fail(l, "threshold: expected a number");
    threshold = sc_load_real(l, o, "threshold");
    if (l->failed)
        return SC_ERR_VALIDATION;
    r.has_actions_enabled = 1;
    r.ok_actions = acts[0];
    r.alarm_actions = acts[1];
    r.insufficient_data_actions = acts[2];
    r.dimensions = dims;
    r.has_period = !r.has_metrics;
    r.has_evaluation_periods = 1;
    r.threshold_metric_id = sc_load_cstr_opt(l, o, "threshold_metric_id");
    r.has_threshold = !r.threshold_metric_id;
    r.threshold = threshold;
    r.comparison_operator = cmp;
    s = alarm_validate_put(&r, &st, &op, &tmd, &unit, l->err);
    if (s != SC_OK)
        return s;
    al = alarm_build(t, &r, &st, op, tmd, unit);
    if (!al)
        return sc_fail(l->err, SC_ERR_INTERNAL, "out of memory");
    if (alarm_base_load_state(l, o, &al->b) < 0) {
        alarm_free(al);
        return SC_ERR_VALIDATION;
    }
    al->last_eval_ms = le;
    recent = json_object_get(o, "recent");
    if (!json_is_array(recent) || json_array_size(recent) > SC_ALARM_MAX_RECENT) {
        alarm_free(al);
        sc_load_fail(l, "recent: expected a list of at most 64 numbers");
        return SC_ERR_VALIDATION;
    }
    for (size_t i = 0; i < json_array_size(recent); i++) {
        if (!json_is_number(json_array_get(recent, i))) {
            alarm_free(al);
            sc_load_fail(l, "recent: expected numbers");
            return SC_ERR_VALIDATION;
        }
        al->recent[al->nrecent++] = json_number_value(json_array_get(recent, i));
    }
    idx = alarm_vec_find(t->list, t->n, al->b.name);
    if (idx >= 0) {
        alarm_free(al);
        sc_load_fail(l, "name: duplicate alarm");
        return SC_ERR_VALIDATION;
    }
    if (alarm_vec_insert(&t->list, &t->n, &t->cap, -idx - 1, al) < 0) {
        alarm_free(al);
        return sc_fail(l->err, SC_ERR_INTERNAL, "out of memory");
    }
    alarm_view_sync(al);
    return SC_OK;
}

enum sc_status sc_alarms_load(struct sc_alarms *a, const json_t *j, struct sc_error *err)
{
    struct sc_alarms_config c;
    struct sc_alarms *t, swap;
    const json_t *list, *hist, *e;
    struct sc_load l;
    char where[64];
    size_t i;
    enum sc_status s = SC_OK;

    where[0] = '\0';
    sc_load_init(&l, where, err);
    l.sep = ".";
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
        snprintf(where, sizeof(where), "alarms[%zu]", i);
        s = alarm_load(t, e, &l);
        if (s != SC_OK)
            goto out;
    }
    json_array_foreach(hist, i, e)
    {
        const char *type, *name, *summary, *data;
        int64_t ts;
        int k;

        snprintf(where, sizeof(where), "history[%zu]", i);
        if (!json_is_object(e)) {
            s = sc_fail(err, SC_ERR_VALIDATION, "state: %s: expected an object", where);
            goto out;
        }
        ts = sc_load_int(&l, e, "ts");
        type = need_str(&l, e, "type");
        name = need_str(&l, e, "name");
        summary = need_str(&l, e, "summary");
        data = need_str(&l, e, "data");
        if (l.failed) {
            s = SC_ERR_VALIDATION;
            goto out;
        }
        for (k = 0; k < 3 && strcmp(type, alarm_hist_names[k]) != 0; k++)
            ;
        if (k == 3) {
            sc_load_fail(&l, "type: not a history item type");
            s = SC_ERR_VALIDATION;
            goto out;
        }
        alarm_hist_add_kind(t, ts, (enum hist_type)k, json_is_true(json_object_get(e, "composite")),
                            name, summary, data);
    }
    if (composites_load(t, json_object_get(j, "composites"), err) < 0) {
        s = SC_ERR_VALIDATION;
        goto out;
    }
    t->tz_offset = a->tz_offset;
    t->det = a->det;
    t->tz_ud = a->tz_ud;
    if (mutes_load(t, json_object_get(j, "mute_rules"), err) < 0) {
        s = SC_ERR_VALIDATION;
        goto out;
    }
    /* success: the loaded store takes a's place (a's address stays valid for its owner) */
    swap = *a;
    *a = *t;
    *t = swap;
    /* everything loaded is new to an observer, and what was there before is gone */
    a->change_seq = t->change_seq;
    a->delete_count = t->delete_count + 1;
    for (int k = 0; k < a->n; k++)
        a->list[k]->b.change_seq = ++a->change_seq;
    for (int k = 0; k < a->ncomp; k++)
        a->comps[k]->b.change_seq = ++a->change_seq;
out:
    sc_alarms_destroy(t);
    return s;
}
