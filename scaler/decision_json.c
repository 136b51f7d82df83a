/* scaler/decision_json.c: see decision_json.h. The member names are docs/admin-api.md's. */
#include "scaler/decision_json.h"

#include <stdio.h>
#include <string.h>

#include "scaler/asg.h"

static void set_str(json_t *o, const char *key, const char *v)
{
    if (v)
        json_object_set_new(o, key, json_string(v));
}

static void set_num(json_t *o, const char *key, int has, double v)
{
    if (has)
        json_object_set_new(o, key, json_real(v));
}

static void set_int(json_t *o, const char *key, int64_t v)
{
    json_object_set_new(o, key, json_integer((json_int_t)v));
}

void sc_decision_to_json(json_t *o, const struct sc_decision *d)
{
    set_str(o, "policy", d->policy);
    set_str(o, "policy_type", d->policy_type);
    set_str(o, "trigger", d->trigger);
    set_str(o, "alarm", d->alarm[0] ? d->alarm : NULL);
    set_num(o, "metric", d->has_metric, d->metric);
    set_num(o, "threshold", d->has_threshold, d->threshold);
    set_num(o, "target", d->has_target, d->target);
    set_str(o, "direction", sc_decision_direction_name(d->direction));
    set_int(o, "current", d->current);
    set_int(o, "counted", d->counted);
    set_int(o, "warming", d->warming);
    set_int(o, "computed", d->computed);
    set_int(o, "desired", d->desired);
    set_int(o, "min", d->min_size);
    set_int(o, "max", d->max_size);
    set_str(o, "arithmetic", d->arithmetic);
    set_str(o, "result", sc_decision_result(d));
    if (d->reason != SC_DECISION_CHANGED)
        set_str(o, "reason", sc_decision_reason_name(d->reason));
    set_str(o, "process", d->process);
    if (d->reason == SC_DECISION_COOLDOWN)
        set_int(o, "cooldown_left_s", d->cooldown_left_s);
    if (d->capped)
        set_str(o, "capped", d->capped > 0 ? "max" : "min");
}

void sc_hook_note_to_json(json_t *o, const struct sc_hook_note *h)
{
    set_str(o, "hook", h->hook);
    set_str(o, "instance_id", h->instance_id);
    set_str(o, "transition", h->launching ? "launching" : "terminating");
    set_str(o, "to", sc_hook_note_kind_name(h->kind));
    set_str(o, "token", h->token);
    if (h->kind == SC_HOOK_WAITING || h->kind == SC_HOOK_HEARTBEAT)
        set_int(o, "heartbeat_timeout_s", h->heartbeat_timeout_s);
    set_str(o, h->kind == SC_HOOK_WAITING ? "default_result" : "result", h->result);
    set_str(o, "why", h->why);
}

/* ---- reading ---- */

static const char *get_str(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    return json_is_string(v) ? json_string_value(v) : NULL;
}

static void copy_str(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

static int get_num(const json_t *o, const char *key, double *out)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_number(v))
        return 0;
    *out = json_number_value(v);
    return 1;
}

/* 0 and *out set, or -1 when key is absent or not an integer. */
static int get_int(const json_t *o, const char *key, int64_t *out)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_integer(v))
        return -1;
    *out = (int64_t)json_integer_value(v);
    return 0;
}

static const char *policy_type_name(const char *s)
{
    static const enum sc_asg_policy_type types[] = { SC_ASG_SIMPLE_SCALING, SC_ASG_STEP_SCALING,
                                                     SC_ASG_TARGET_TRACKING_SCALING,
                                                     SC_ASG_PREDICTIVE_SCALING };

    for (size_t i = 0; s && i < sizeof(types) / sizeof(types[0]); i++)
        if (strcmp(s, sc_asg_policy_type_str(types[i])) == 0)
            return sc_asg_policy_type_str(types[i]);
    return NULL;
}

static const char *process_name(const char *s)
{
    for (int p = 0; s && p < SC_ASG_PROC_COUNT; p++)
        if (strcmp(s, sc_asg_process_str((enum sc_asg_process)p)) == 0)
            return sc_asg_process_str((enum sc_asg_process)p);
    return NULL;
}

int sc_decision_from_json(const json_t *o, struct sc_decision *d)
{
    const char *policy = get_str(o, "policy"), *result = get_str(o, "result");
    const char *reason = get_str(o, "reason"), *dir = get_str(o, "direction");
    const char *trigger = get_str(o, "trigger"), *capped = get_str(o, "capped");
    int64_t v = 0;

    memset(d, 0, sizeof(*d));
    if (!json_is_object(o) || !policy || !result || !dir)
        goto bad;
    if (strcmp(result, "changed") == 0) {
        if (reason)
            goto bad;
        d->reason = SC_DECISION_CHANGED;
    } else if (strcmp(result, "unchanged") == 0 && reason) {
        int r;

        for (r = 1; r < SC_DECISION_REASON_COUNT; r++)
            if (strcmp(reason, sc_decision_reason_name((enum sc_decision_reason)r)) == 0)
                break;
        if (r == SC_DECISION_REASON_COUNT)
            goto bad;
        d->reason = (enum sc_decision_reason)r;
    } else {
        goto bad;
    }
    if (strcmp(dir, "out") == 0)
        d->direction = 1;
    else if (strcmp(dir, "in") == 0)
        d->direction = -1;
    else if (strcmp(dir, "none") != 0)
        goto bad;
    if (get_int(o, "current", &d->current) != 0 || get_int(o, "counted", &d->counted) != 0 ||
        get_int(o, "warming", &d->warming) != 0 || get_int(o, "computed", &d->computed) != 0 ||
        get_int(o, "desired", &d->desired) != 0 || get_int(o, "min", &d->min_size) != 0 ||
        get_int(o, "max", &d->max_size) != 0)
        goto bad;
    copy_str(d->group, sizeof(d->group), get_str(o, "group"));
    copy_str(d->policy, sizeof(d->policy), policy);
    copy_str(d->alarm, sizeof(d->alarm), get_str(o, "alarm"));
    copy_str(d->arithmetic, sizeof(d->arithmetic), get_str(o, "arithmetic"));
    d->policy_type = policy_type_name(get_str(o, "policy_type"));
    d->trigger = !trigger                                ? NULL
                 : strcmp(trigger, "alarm") == 0         ? "alarm"
                 : strcmp(trigger, "ExecutePolicy") == 0 ? "ExecutePolicy"
                                                         : NULL;
    d->has_metric = get_num(o, "metric", &d->metric);
    d->has_threshold = get_num(o, "threshold", &d->threshold);
    d->has_target = get_num(o, "target", &d->target);
    d->process = process_name(get_str(o, "process"));
    if (get_int(o, "cooldown_left_s", &v) == 0)
        d->cooldown_left_s = (int)v;
    d->capped = !capped ? 0 : strcmp(capped, "max") == 0 ? 1 : strcmp(capped, "min") == 0 ? -1 : 0;
    if (get_int(o, "time_ms", &d->time_ms) != 0)
        d->time_ms = 0;
    return 0;
bad:
    memset(d, 0, sizeof(*d));
    return -1;
}

int sc_hook_note_from_json(const json_t *o, struct sc_hook_note *h)
{
    const char *to = get_str(o, "to"), *tr = get_str(o, "transition");
    const char *why = get_str(o, "why");
    int k;
    int64_t v = 0;

    memset(h, 0, sizeof(*h));
    if (!json_is_object(o) || !to || !tr || !get_str(o, "hook"))
        goto bad;
    for (k = 0; k < SC_HOOK_KIND_COUNT; k++)
        if (strcmp(to, sc_hook_note_kind_name((enum sc_hook_note_kind)k)) == 0)
            break;
    if (k == SC_HOOK_KIND_COUNT)
        goto bad;
    h->kind = (enum sc_hook_note_kind)k;
    if (strcmp(tr, "launching") == 0)
        h->launching = 1;
    else if (strcmp(tr, "terminating") != 0)
        goto bad;
    copy_str(h->group, sizeof(h->group), get_str(o, "group"));
    copy_str(h->hook, sizeof(h->hook), get_str(o, "hook"));
    copy_str(h->instance_id, sizeof(h->instance_id), get_str(o, "instance_id"));
    copy_str(h->token, sizeof(h->token), get_str(o, "token"));
    copy_str(h->result, sizeof(h->result),
             get_str(o, h->kind == SC_HOOK_WAITING ? "default_result" : "result"));
    if (get_int(o, "heartbeat_timeout_s", &v) == 0)
        h->heartbeat_timeout_s = (int)v;
    h->why = !why                                    ? NULL
             : strcmp(why, "Heartbeat Timeout") == 0 ? "Heartbeat Timeout"
             : strcmp(why, "Global Timeout") == 0    ? "Global Timeout"
                                                     : NULL;
    if (get_int(o, "time_ms", &h->time_ms) != 0)
        h->time_ms = 0;
    return 0;
bad:
    memset(h, 0, sizeof(*h));
    return -1;
}
