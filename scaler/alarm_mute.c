/* scaler/alarm_mute.c: alarm mute rules (see alarm_mute.h, docs/cloudwatch.md "Alarm mute
 * rules"): validation of the schedule, the duration and the targets, the status at a time,
 * the muting rule, and the rules' part of the state file. */
#include "scaler/alarm_mute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/alarm_internal.h"
#include "scaler/asg_sched.h"
#include "scaler/civil.h"
#include "scaler/vec.h"

#define MIN_DURATION_MS 60000LL
#define MAX_DURATION_MS (15LL * 86400 * 1000)

struct mute {
    char *name, *arn, *description, *expression, *duration, *timezone;
    char *cron;    /* the 5 fields inside cron(...), NULL for at() */
    int64_t at_ms; /* at(): the window's start, UTC */
    int64_t dur_ms;
    char **targets;
    int ntargets;
    int has_start, has_expire;
    int64_t start_ms, expire_ms, updated_ms;
    struct tag *tags;
    int ntags;
    struct sc_alarm_mute_rule_view view;
};
SC_SORTED_DEFINE(mute_vec, struct mute, name)

struct tag **mute_tags_by_arn(const struct sc_alarms *a, const char *arn, int **ntags)
{
    for (int i = 0; arn && i < a->nmute; i++)
        if (strcmp(a->mutes[i]->arn, arn) == 0) {
            *ntags = &a->mutes[i]->ntags;
            return &a->mutes[i]->tags;
        }
    return NULL;
}

void sc_alarms_set_tz(struct sc_alarms *a,
                      int (*tz_offset)(void *ud, const char *zone, int64_t utc_ms, int *offset_s),
                      void *ud)
{
    a->tz_offset = tz_offset;
    a->tz_ud = ud;
}

static void mute_free(struct mute *m)
{
    if (!m)
        return;
    free(m->name);
    free(m->arn);
    free(m->description);
    free(m->expression);
    free(m->duration);
    free(m->timezone);
    free(m->cron);
    for (int i = 0; i < m->ntargets; i++)
        free(m->targets[i]);
    free(m->targets);
    tags_free(m->tags, m->ntags);
    free(m);
}

void mutes_free(struct sc_alarms *a)
{
    for (int i = 0; i < a->nmute; i++)
        mute_free(a->mutes[i]);
    free(a->mutes);
    a->mutes = NULL;
    a->nmute = a->mcap = 0;
}

static int mute_idx(const struct sc_alarms *a, const char *name)
{
    return mute_vec_find(a->mutes, a->nmute, name);
}

int sc_alarms_mute_rule_count(const struct sc_alarms *a)
{
    return a->nmute;
}

/* --- schedule, duration, zone -------------------------------------------------------------- */

/* "P[nD][T[nH][nM][nS]]" into ms; -1 when it does not read. */
static int64_t parse_duration(const char *s)
{
    int64_t total = 0;
    int in_time = 0, parts = 0;

    if (!s || *s != 'P')
        return -1;
    s++;
    while (*s) {
        int64_t n = 0;
        int digits = 0;
        if (*s == 'T' && !in_time) {
            in_time = 1;
            s++;
            continue;
        }
        while (*s >= '0' && *s <= '9' && digits < 9) {
            n = n * 10 + (*s++ - '0');
            digits++;
        }
        if (!digits)
            return -1;
        if (!in_time && *s == 'D')
            total += n * 86400000;
        else if (in_time && *s == 'H')
            total += n * 3600000;
        else if (in_time && *s == 'M')
            total += n * 60000;
        else if (in_time && *s == 'S')
            total += n * 1000;
        else
            return -1;
        s++;
        parts++;
    }
    return parts ? total : -1;
}

static int zone_offset(const struct sc_alarms *a, const char *zone, int64_t utc_ms, int *off)
{
    *off = 0;
    if (!zone || strcmp(zone, "UTC") == 0 || strcmp(zone, "Etc/UTC") == 0)
        return 0;
    if (!a->tz_offset)
        return -1;
    return a->tz_offset(a->tz_ud, zone, utc_ms, off) == 0 ? 0 : -1;
}

/* at(yyyy-mm-ddThh:mm) in zone into UTC ms; -1 when it does not read. */
static int parse_at(const struct sc_alarms *a, const char *e, const char *zone, int64_t *out)
{
    struct sc_civil c = { 0 };
    char tail[4] = "";
    int64_t local;
    int off;

    if (sscanf(e, "at(%4d-%2d-%2dT%2d:%2d%3s", &c.year, &c.month, &c.day, &c.hour, &c.minute,
               tail) != 6 ||
        strcmp(tail, ")") != 0)
        return -1;
    if (c.month < 1 || c.month > 12 || c.day < 1 || c.day > 31 || c.hour > 23 || c.minute > 59 ||
        c.hour < 0 || c.minute < 0)
        return -1;
    local = sc_civil_to_ms(&c);
    if (zone_offset(a, zone, local, &off) < 0)
        return -1;
    *out = local - (int64_t)off * 1000;
    return 0;
}

/* The 5 cron fields of cron(...) (malloc'd), or NULL. */
static char *cron_fields(const char *e)
{
    size_t n = strlen(e);
    char *f;

    if (strncmp(e, "cron(", 5) != 0 || n < 7 || e[n - 1] != ')')
        return NULL;
    f = malloc(n - 5);
    if (!f)
        return NULL;
    memcpy(f, e + 5, n - 6);
    f[n - 6] = 0;
    if (sc_asg_recurrence_valid(f) != 0) {
        free(f);
        return NULL;
    }
    return f;
}

/* --- status -------------------------------------------------------------------------------- */

enum mstat { M_SCHEDULED, M_ACTIVE, M_EXPIRED };
static const char *const mstat_names[3] = { "SCHEDULED", "ACTIVE", "EXPIRED" };

static enum mstat status_at(const struct sc_alarms *a, const struct mute *m, int64_t now_ms)
{
    int64_t after, o;

    if (m->has_expire && now_ms >= m->expire_ms)
        return M_EXPIRED;
    if (!m->cron) {
        if (now_ms >= m->at_ms + m->dur_ms)
            return M_EXPIRED;
        return now_ms >= m->at_ms ? M_ACTIVE : M_SCHEDULED;
    }
    if (m->has_start && now_ms < m->start_ms)
        return M_SCHEDULED;
    /* the first occurrence strictly after now - duration: active when it has begun */
    after = now_ms - m->dur_ms;
    if (m->has_start && after < m->start_ms - 1)
        after = m->start_ms - 1;
    o = sc_asg_recurrence_next(m->cron, after, a->tz_offset, a->tz_ud,
                               m->timezone ? m->timezone : "UTC");
    return o >= 0 && o <= now_ms ? M_ACTIVE : M_SCHEDULED;
}

static void view_sync(const struct sc_alarms *a, struct mute *m, int64_t now_ms)
{
    struct sc_alarm_mute_rule_view *v = &m->view;

    v->name = m->name;
    v->arn = m->arn;
    v->description = m->description;
    v->expression = m->expression;
    v->duration = m->duration;
    v->timezone = m->timezone;
    v->alarm_names = (const char *const *)m->targets;
    v->n_alarm_names = m->ntargets;
    v->has_start_date = m->has_start;
    v->start_date_ms = m->start_ms;
    v->has_expire_date = m->has_expire;
    v->expire_date_ms = m->expire_ms;
    v->status = mstat_names[status_at(a, m, now_ms)];
    v->mute_type = m->cron ? "RECURRING" : "ONE_TIME";
    v->last_updated_ms = m->updated_ms;
}

int sc_alarms_is_muted(const struct sc_alarms *a, const char *alarm_name, int64_t now_ms)
{
    for (int i = 0; i < a->nmute; i++) {
        const struct mute *m = a->mutes[i];
        int hit = 0;
        for (int k = 0; k < m->ntargets && !hit; k++)
            hit = strcmp(m->targets[k], alarm_name) == 0;
        if (hit && status_at(a, m, now_ms) == M_ACTIVE)
            return 1;
    }
    return 0;
}

/* --- the operations ------------------------------------------------------------------------ */

static int alarm_exists(const struct sc_alarms *a, const char *name)
{
    return alarm_find(a, name) || composite_find(a, name);
}

/* Checks r and builds the rule (NULL with err set on a refusal or OOM). check_targets 0:
 * the state file's load (targets may have been deleted since). */
static struct mute *build(const struct sc_alarms *a, const struct sc_put_alarm_mute_rule_req *r,
                          int check_targets, struct sc_error *err)
{
    struct mute *m;
    char missing[900], arn[600];
    size_t off = 0;
    int nmissing = 0, bad = 0, zoff;

    if (!r->name || !*r->name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter Name is required."), NULL;
    if (strlen(r->name) > 255)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value '%s' at 'name' failed to satisfy "
                       "constraint: Member must have length less than or equal to 255",
                       r->name),
               NULL;
    if (r->description && strlen(r->description) > 1024)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at 'description' failed to satisfy "
                       "constraint: Member must have length less than or equal to 1024"),
               NULL;
    if (!r->expression || !r->duration)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The parameters Rule.Schedule.Expression and Rule.Schedule.Duration are "
                       "required."),
               NULL;
    if (r->timezone && zone_offset(a, r->timezone, 0, &zoff) < 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Unknown time zone: %s", r->timezone), NULL;
    if (r->n_alarm_names > 100)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "The collection MuteTargets.AlarmNames must not have a size greater than "
                       "100."),
               NULL;
    missing[0] = 0;
    for (int i = 0; check_targets && i < r->n_alarm_names; i++) {
        if (r->alarm_names[i] && alarm_exists(a, r->alarm_names[i]))
            continue;
        if (off < sizeof(missing)) {
            int w = snprintf(missing + off, sizeof(missing) - off, "%s%s", nmissing ? ", " : "",
                             r->alarm_names[i] ? r->alarm_names[i] : "");
            if (w > 0)
                off += (size_t)w;
        }
        nmissing++;
    }
    if (nmissing)
        return sc_fail(err, SC_ERR_VALIDATION, "The alarms [%s] in MuteTargets do not exist",
                       missing),
               NULL;
    if (r->has_start_date && r->has_expire_date && r->expire_date_ms <= r->start_date_ms)
        return sc_fail(err, SC_ERR_VALIDATION, "ExpireDate must be after StartDate"), NULL;
    m = calloc(1, sizeof(*m));
    if (!m)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory"), NULL;
    m->dur_ms = parse_duration(r->duration);
    if (m->dur_ms < MIN_DURATION_MS || m->dur_ms > MAX_DURATION_MS) {
        sc_fail(err, SC_ERR_VALIDATION, "Invalid duration: %s (ISO 8601, PT1M to P15D)",
                r->duration);
        goto fail;
    }
    if (strncmp(r->expression, "at(", 3) == 0) {
        if (parse_at(a, r->expression, r->timezone, &m->at_ms) < 0) {
            sc_fail(err, SC_ERR_VALIDATION, "Invalid schedule expression: %s", r->expression);
            goto fail;
        }
        if (r->has_start_date || r->has_expire_date) {
            sc_fail(err, SC_ERR_VALIDATION,
                    "StartDate and ExpireDate cannot be used with an at() expression");
            goto fail;
        }
    } else {
        m->cron = cron_fields(r->expression);
        if (!m->cron || strlen(r->expression) > 256) {
            sc_fail(err, SC_ERR_VALIDATION, "Invalid schedule expression: %s", r->expression);
            goto fail;
        }
    }
    snprintf(arn, sizeof(arn), "arn:%s:cloudwatch:%s:%s:alarm-mute-rule:%s",
             sc_alarm_partition(a->region), a->region, a->account, r->name);
    m->name = sc_strdup(r->name);
    m->arn = sc_strdup(arn);
    m->expression = sc_strdup(r->expression);
    m->duration = sc_strdup(r->duration);
    bad |= sc_strdup_opt(&m->description, r->description);
    bad |= sc_strdup_opt(&m->timezone, r->timezone);
    m->targets = calloc((size_t)r->n_alarm_names + 1, sizeof(*m->targets));
    bad |= !m->name || !m->arn || !m->expression || !m->duration || !m->targets;
    for (int i = 0; !bad && i < r->n_alarm_names; i++) {
        m->targets[i] = sc_strdup(r->alarm_names[i] ? r->alarm_names[i] : "");
        bad |= !m->targets[i];
        m->ntargets++;
    }
    if (!bad && r->n_tags > 0) {
        m->tags = calloc((size_t)r->n_tags, sizeof(*m->tags));
        bad |= !m->tags;
        for (int i = 0; !bad && i < r->n_tags; i++) {
            m->tags[i].key = sc_strdup(r->tags[i].key ? r->tags[i].key : "");
            m->tags[i].value = sc_strdup(r->tags[i].value ? r->tags[i].value : "");
            m->ntags++;
            bad |= !m->tags[i].key || !m->tags[i].value;
        }
    }
    if (bad) {
        sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        goto fail;
    }
    m->has_start = r->has_start_date;
    m->start_ms = r->start_date_ms;
    m->has_expire = r->has_expire_date;
    m->expire_ms = r->expire_date_ms;
    return m;
fail:
    mute_free(m);
    return NULL;
}

/* Stores m (replacing one of its name, whose tags m takes when it has none). 0 or -1. */
static int store(struct sc_alarms *a, struct mute *m)
{
    int idx = mute_idx(a, m->name);

    if (idx >= 0) {
        struct mute *old = a->mutes[idx];
        if (!m->ntags) {
            m->tags = old->tags;
            m->ntags = old->ntags;
            old->tags = NULL;
            old->ntags = 0;
        }
        mute_free(old);
        a->mutes[idx] = m;
        return 0;
    }
    return mute_vec_insert(&a->mutes, &a->nmute, &a->mcap, -idx - 1, m);
}

enum sc_status sc_alarms_put_mute_rule(struct sc_alarms *a,
                                       const struct sc_put_alarm_mute_rule_req *req, int64_t now_ms,
                                       struct sc_error *err)
{
    struct mute *m = build(a, req, 1, err);

    if (!m)
        return err ? err->status : SC_ERR_VALIDATION;
    m->updated_ms = now_ms;
    if (store(a, m) < 0) {
        mute_free(m);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    return SC_OK;
}

enum sc_status sc_alarms_get_mute_rule(struct sc_alarms *a, const char *name, int64_t now_ms,
                                       const struct sc_alarm_mute_rule_view **out,
                                       struct sc_error *err)
{
    int idx;

    *out = NULL;
    if (!name || !*name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The parameter AlarmMuteRuleName is required.");
    idx = mute_idx(a, name);
    if (idx < 0)
        return sc_fail(err, SC_ERR_RESOURCE_NOT_FOUND_EXCEPTION,
                       "The alarm mute rule %s does not exist.", name);
    view_sync(a, a->mutes[idx], now_ms);
    *out = &a->mutes[idx]->view;
    return SC_OK;
}

enum sc_status sc_alarms_list_mute_rules(struct sc_alarms *a, const char *alarm_name,
                                         const char *const *statuses, int n, int64_t now_ms,
                                         sc_alarm_mute_rule_visit_fn fn, void *ud,
                                         struct sc_error *err)
{
    for (int i = 0; i < n; i++) {
        int known = 0;
        for (int k = 0; k < 3; k++)
            known |= statuses[i] && strcmp(statuses[i], mstat_names[k]) == 0;
        if (!known)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "1 validation error detected: Value '%s' at 'statuses' failed to "
                           "satisfy constraint: Member must satisfy enum value set: [SCHEDULED, "
                           "ACTIVE, EXPIRED]",
                           statuses[i] ? statuses[i] : "");
    }
    for (int i = 0; i < a->nmute; i++) {
        struct mute *m = a->mutes[i];
        int hit = !alarm_name, want = n == 0;
        for (int k = 0; !hit && k < m->ntargets; k++)
            hit = strcmp(m->targets[k], alarm_name) == 0;
        if (!hit)
            continue;
        view_sync(a, m, now_ms);
        for (int k = 0; !want && k < n; k++)
            want = strcmp(statuses[k], m->view.status) == 0;
        if (want && fn(&m->view, ud))
            break;
    }
    return SC_OK;
}

enum sc_status sc_alarms_delete_mute_rule(struct sc_alarms *a, const char *name,
                                          struct sc_error *err)
{
    int idx;

    if (!name || !*name)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER,
                       "The parameter AlarmMuteRuleName is required.");
    idx = mute_idx(a, name);
    if (idx < 0)
        return SC_OK;
    mute_free(mute_vec_remove(a->mutes, &a->nmute, idx));
    return SC_OK;
}

/* --- the state file ------------------------------------------------------------------------ */

json_t *mutes_save(const struct sc_alarms *a)
{
    json_t *arr = json_array();

    for (int i = 0; arr && i < a->nmute; i++) {
        const struct mute *m = a->mutes[i];
        json_t *t = json_array(), *tags = json_array(), *o;
        for (int k = 0; t && k < m->ntargets; k++)
            json_array_append_new(t, json_string(m->targets[k]));
        for (int k = 0; tags && k < m->ntags; k++)
            json_array_append_new(
                tags, json_pack("{ssss}", "key", m->tags[k].key, "value", m->tags[k].value));
        o = json_pack("{ss ss ss so* so* so so sI}", "name", m->name, "expression", m->expression,
                      "duration", m->duration, "description",
                      m->description ? json_string(m->description) : NULL, "timezone",
                      m->timezone ? json_string(m->timezone) : NULL, "targets", t, "tags", tags,
                      "updated_ms", (json_int_t)m->updated_ms);
        if (!o) {
            json_decref(arr);
            return NULL;
        }
        if (m->has_start)
            json_object_set_new(o, "start_ms", json_integer(m->start_ms));
        if (m->has_expire)
            json_object_set_new(o, "expire_ms", json_integer(m->expire_ms));
        json_array_append_new(arr, o);
    }
    return arr;
}

int mutes_load(struct sc_alarms *t, const json_t *arr, struct sc_error *err)
{
    const json_t *e;
    size_t i;

    if (!arr)
        return 0;
    if (!json_is_array(arr))
        return sc_fail(err, SC_ERR_VALIDATION, "state: mute_rules: expected a list"), -1;
    json_array_foreach(arr, i, e)
    {
        struct sc_put_alarm_mute_rule_req r = { 0 };
        const json_t *tg = json_object_get(e, "targets"), *tags = json_object_get(e, "tags"), *x;
        const char *names[100];
        struct sc_tag tv[64];
        struct sc_error le = { 0 };
        struct mute *m;
        size_t k;

        if (!json_is_object(e) || !json_is_array(tg) || json_array_size(tg) > 100 ||
            !json_is_array(tags) || json_array_size(tags) > 64 ||
            !json_is_integer(json_object_get(e, "updated_ms")))
            return sc_fail(err, SC_ERR_VALIDATION, "state: mute_rules[%zu]: malformed", i), -1;
        r.name = json_string_value(json_object_get(e, "name"));
        r.expression = json_string_value(json_object_get(e, "expression"));
        r.duration = json_string_value(json_object_get(e, "duration"));
        r.description = json_string_value(json_object_get(e, "description"));
        r.timezone = json_string_value(json_object_get(e, "timezone"));
        json_array_foreach(tg, k, x) names[k] = json_string_value(x);
        r.alarm_names = names;
        r.n_alarm_names = (int)json_array_size(tg);
        json_array_foreach(tags, k, x)
        {
            tv[k].key = json_string_value(json_object_get(x, "key"));
            tv[k].value = json_string_value(json_object_get(x, "value"));
        }
        r.tags = tv;
        r.n_tags = (int)json_array_size(tags);
        r.has_start_date = json_is_integer(json_object_get(e, "start_ms"));
        r.start_date_ms = json_integer_value(json_object_get(e, "start_ms"));
        r.has_expire_date = json_is_integer(json_object_get(e, "expire_ms"));
        r.expire_date_ms = json_integer_value(json_object_get(e, "expire_ms"));
        m = build(t, &r, 0, &le);
        if (!m)
            return sc_fail(err, SC_ERR_VALIDATION, "state: mute_rules[%zu]: %s", i, le.message), -1;
        if (mute_idx(t, m->name) >= 0) {
            mute_free(m);
            return sc_fail(err, SC_ERR_VALIDATION, "state: mute_rules[%zu]: name is there twice",
                           i),
                   -1;
        }
        m->updated_ms = json_integer_value(json_object_get(e, "updated_ms"));
        if (store(t, m) < 0) {
            mute_free(m);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory"), -1;
        }
    }
    return 0;
}
