/* scaler/asg_notify.c: notification configurations and the notifications they make
 * (asg_notify.h; docs/autoscaling.md section 9). */
#include "scaler/asg_notify.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scaler/asg_internal.h"
#include "scaler/civil.h"
#include "scaler/save.h"

static const char *const type_names[SC_ASG_NOTIFY_TYPE_COUNT] = {
    "autoscaling:EC2_INSTANCE_LAUNCH",    "autoscaling:EC2_INSTANCE_LAUNCH_ERROR",
    "autoscaling:EC2_INSTANCE_TERMINATE", "autoscaling:EC2_INSTANCE_TERMINATE_ERROR",
    "autoscaling:TEST_NOTIFICATION",
};

/* SNS's subjects (docs/autoscaling.md 9.3), before ` for group "<g>"`. */
static const char *const subjects[SC_ASG_NOTIFY_TYPE_COUNT] = {
    "launch", "failed launch", "termination", "failed termination", "test notification",
};

const char *sc_asg_notify_type_str(enum sc_asg_notify_type t)
{
    return t >= 0 && t < SC_ASG_NOTIFY_TYPE_COUNT ? type_names[t] : "";
}

int sc_asg_notify_type_parse(const char *name)
{
    for (int t = 0; name && t < SC_ASG_NOTIFY_TYPE_COUNT; t++)
        if (strcmp(name, type_names[t]) == 0)
            return t;
    return -1;
}

/* --- the log ------------------------------------------------------------------------------ */

struct notice {
    struct sc_asg_notification pub;
    char group[256];
    char topic[SC_ASG_TOPIC_ARN_LEN];
    char instance[SC_ASG_ID_LEN];
    char subject[300];
    char *message;
};

struct asg_notify_log {
    struct notice ring[SC_ASG_NOTIFY_LOG_CAP];
    uint64_t seq;
};

void asg_notify_log_free(struct sc_asg *asg)
{
    if (!asg->notices)
        return;
    for (int i = 0; i < SC_ASG_NOTIFY_LOG_CAP; i++)
        free(asg->notices->ring[i].message);
    free(asg->notices);
    asg->notices = NULL;
}

/* Adds a notification (message stolen, as a compact JSON text). On OOM it is dropped. */
static void notice_add(struct sc_asg *asg, int64_t now_ms, enum sc_asg_notify_type type,
                       const char *group, const char *topic, const char *instance_id,
                       json_t *message)
{
    struct notice *n;
    char *text;

    if (!asg->notices)
        asg->notices = calloc(1, sizeof(*asg->notices));
    text = message ? json_dumps(message, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(message);
    if (!asg->notices || !text) {
        free(text);
        return;
    }
    asg->notices->seq++;
    n = &asg->notices->ring[(asg->notices->seq - 1) % SC_ASG_NOTIFY_LOG_CAP];
    free(n->message);
    memset(n, 0, sizeof(*n));
    snprintf(n->group, sizeof(n->group), "%s", group);
    snprintf(n->topic, sizeof(n->topic), "%s", topic);
    snprintf(n->instance, sizeof(n->instance), "%s", instance_id ? instance_id : "");
    snprintf(n->subject, sizeof(n->subject), "Auto Scaling: %s for group \"%s\"", subjects[type],
             group);
    n->message = text;
    n->pub.seq = asg->notices->seq;
    n->pub.time_ms = now_ms;
    n->pub.type = type;
    n->pub.group = n->group;
    n->pub.topic_arn = n->topic;
    n->pub.instance_id = n->instance;
    n->pub.subject = n->subject;
    n->pub.message = n->message;
}

uint64_t sc_asg_notification_last(const struct sc_asg *asg)
{
    return asg->notices ? asg->notices->seq : 0;
}

const struct sc_asg_notification *sc_asg_notification_get(const struct sc_asg *asg, uint64_t seq)
{
    const struct notice *n;

    if (!asg->notices || seq == 0 || seq > asg->notices->seq)
        return NULL;
    n = &asg->notices->ring[(seq - 1) % SC_ASG_NOTIFY_LOG_CAP];
    return n->pub.seq == seq ? &n->pub : NULL;
}

/* --- message bodies ------------------------------------------------------------------------ */

static void set_s(json_t *o, const char *k, const char *v)
{
    json_object_set_new(o, k, json_string(v ? v : ""));
}

static void set_time(json_t *o, const char *k, int64_t ms)
{
    char t[SC_CIVIL_TIME_LEN];

    sc_civil_format_iso_ms(ms, t, sizeof(t));
    set_s(o, k, t);
}

/* The test notification's body (9.3). */
static json_t *test_message(struct sc_asg *asg, const struct asg_group *g, int64_t now_ms)
{
    char rid[SC_RNG_UUID_LEN];
    json_t *o = json_object();

    sc_rng_uuid(asg->rng, rid);
    set_s(o, "AccountId", asg->account);
    set_s(o, "RequestId", rid);
    set_s(o, "AutoScalingGroupARN", g->info.auto_scaling_group_arn);
    set_s(o, "AutoScalingGroupName", g->info.auto_scaling_group_name);
    set_s(o, "Service", "AWS Auto Scaling");
    set_s(o, "Event", type_names[SC_ASG_NOTIFY_TEST]);
    set_time(o, "Time", now_ms);
    return o;
}

static int has_prefix(const char *s, const char *p)
{
    return s && strncmp(s, p, strlen(p)) == 0;
}

/* The notification an ended activity makes (9.2), or -1: launches and terminations only,
 * Successful or Failed (a Cancelled one makes none). */
static int activity_type(const struct sc_asg_activity_info *a)
{
    int ok = strcmp(a->status_code, "Successful") == 0;
    int failed = strcmp(a->status_code, "Failed") == 0;

    if (!ok && !failed)
        return -1;
    if (has_prefix(a->description, "Launching a new EC2 instance"))
        return ok ? SC_ASG_NOTIFY_LAUNCH : SC_ASG_NOTIFY_LAUNCH_ERROR;
    if (has_prefix(a->description, "Terminating EC2 instance"))
        return ok ? SC_ASG_NOTIFY_TERMINATE : SC_ASG_NOTIFY_TERMINATE_ERROR;
    return -1;
}

/* The instance id at the end of "...: i-0123" into out ("" when none). */
static void activity_instance(const char *desc, char out[SC_ASG_ID_LEN])
{
    const char *p = strrchr(desc, ':');

    out[0] = '\0';
    if (p && p[1] == ' ' && strncmp(p + 2, "i-", 2) == 0)
        snprintf(out, SC_ASG_ID_LEN, "%s", p + 2);
}

static json_t *activity_message(struct sc_asg *asg, const struct asg_group *g,
                                const struct sc_asg_activity_info *a, int type,
                                const char *instance_id)
{
    json_t *o = json_object();
    json_t *details = json_loads(a->details ? a->details : "{}", 0, NULL);
    const char *origin = "EC2", *dest = "AutoScalingGroup";
    int ok = type == SC_ASG_NOTIFY_LAUNCH || type == SC_ASG_NOTIFY_TERMINATE;
    const struct asg_inst *in = instance_id[0] ? asg_inst_find(asg, instance_id, NULL) : NULL;

    if (type == SC_ASG_NOTIFY_TERMINATE || type == SC_ASG_NOTIFY_TERMINATE_ERROR) {
        origin = "AutoScalingGroup";
        dest = "EC2";
    } else if (has_prefix(a->description, "Launching a new EC2 instance from warm pool")) {
        origin = "WarmPool";
    } else if (in && asg_is_warmed(in->info.lifecycle_state)) {
        dest = "WarmPool"; /* launched into the pool */
    }
    set_s(o, "Origin", origin);
    set_s(o, "Destination", dest);
    json_object_set_new(o, "Progress", json_integer(ok ? 50 : a->progress));
    set_s(o, "AccountId", asg->account);
    set_s(o, "Description", a->description);
    set_s(o, "RequestId", a->activity_id);
    set_time(o, "EndTime", a->end_ms);
    set_s(o, "AutoScalingGroupARN", g->info.auto_scaling_group_arn);
    set_s(o, "ActivityId", a->activity_id);
    set_time(o, "StartTime", a->start_ms);
    set_s(o, "Service", "AWS Auto Scaling");
    set_time(o, "Time", a->end_ms);
    set_s(o, "EC2InstanceId", instance_id);
    set_s(o, "StatusCode", ok ? "InProgress" : a->status_code);
    set_s(o, "StatusMessage", ok ? "" : a->status_message);
    json_object_set_new(o, "Details", details ? details : json_object());
    set_s(o, "AutoScalingGroupName", g->info.auto_scaling_group_name);
    set_s(o, "Cause", a->cause);
    set_s(o, "Event", type_names[type]);
    return o;
}

void asg_notify_step(struct sc_asg *asg, struct asg_group *g)
{
    unsigned ver = g->acts_ver + g->acts_made;

    if (g->nnotify == 0 || ver == g->notify_ver)
        return;
    g->notify_ver = ver;
    for (int i = 0; i < g->nacts; i++) {
        struct asg_activity *a = g->acts[i];
        char id[SC_ASG_ID_LEN];
        int type;

        if (a->notified || a->info.end_ms == 0)
            continue;
        a->notified = 1;
        type = activity_type(&a->info);
        if (type < 0)
            continue;
        activity_instance(a->info.description, id);
        if (type == SC_ASG_NOTIFY_LAUNCH_ERROR)
            id[0] = '\0';
        for (int k = 0; k < g->nnotify; k++)
            if (g->notify[k].types & (1u << type))
                notice_add(asg, a->info.end_ms, type, g->info.auto_scaling_group_name,
                           g->notify[k].topic_arn, id,
                           activity_message(asg, g, &a->info, type, id));
    }
}

void asg_notify_mark_all(struct asg_group *g)
{
    for (int i = 0; i < g->nacts; i++)
        if (g->acts[i]->info.end_ms != 0)
            g->acts[i]->notified = 1;
    g->notify_ver = g->acts_ver + g->acts_made;
}

/* --- configurations ------------------------------------------------------------------------ */

/* arn:<partition>:sns:<region>:<12 digits>:<topic>, the topic 1..256 of [A-Za-z0-9_-] with
 * an optional ".fifo" (SNS's topic name rule). */
static int topic_arn_valid(const char *s)
{
    const char *p = s, *name;
    size_t n;

    if (!s || strncmp(p, "arn:aws", 7) != 0)
        return 0;
    p += 7;
    while (*p && *p != ':') {
        if (!islower((unsigned char)*p) && *p != '-')
            return 0;
        p++;
    }
    if (strncmp(p, ":sns:", 5) != 0)
        return 0;
    p += 5;
    if (*p == ':')
        return 0;
    while (*p && *p != ':') {
        if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '-')
            return 0;
        p++;
    }
    if (*p++ != ':')
        return 0;
    for (int d = 0; d < 12; d++)
        if (!isdigit((unsigned char)*p++))
            return 0;
    if (*p++ != ':')
        return 0;
    name = p;
    n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".fifo") == 0)
        n -= 5;
    if (n < 1 || n > 256)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)name[i]) || name[i] == '-' || name[i] == '_'))
            return 0;
    return 1;
}

static int notify_index(const struct asg_group *g, const char *topic, int *pos)
{
    int lo = 0, hi = g->nnotify;

    while (lo < hi) {
        int mid = (lo + hi) / 2, c = strcmp(g->notify[mid].topic_arn, topic);

        if (c == 0) {
            *pos = mid;
            return 1;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *pos = lo;
    return 0;
}

/* Unknown group: AWS's text for the notification operations (9.1). */
static enum sc_status no_group(struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VALIDATION, "AutoScalingGroup name not found - null");
}

/* Sets (or adds) the configuration of topic in g; -1 on OOM. */
static int notify_set(struct asg_group *g, const char *topic, unsigned types)
{
    struct sc_asg_notify_info *grown;
    int pos;

    if (notify_index(g, topic, &pos)) {
        g->notify[pos].types = types;
        return 0;
    }
    grown = realloc(g->notify, (size_t)(g->nnotify + 1) * sizeof(*grown));
    if (!grown)
        return -1;
    g->notify = grown;
    memmove(&g->notify[pos + 1], &g->notify[pos], (size_t)(g->nnotify - pos) * sizeof(*grown));
    memset(&g->notify[pos], 0, sizeof(*grown));
    snprintf(g->notify[pos].topic_arn, sizeof(g->notify[pos].topic_arn), "%s", topic);
    g->notify[pos].types = types;
    g->nnotify++;
    return 0;
}

/* The checks of 9.1 (nothing changes): the types as bits into *out. */
static enum sc_status put_check(const struct asg_group *g, const char *topic,
                                const char *const *types, int ntypes, unsigned *out,
                                struct sc_error *err)
{
    int pos;

    if (!g)
        return no_group(err);
    if (!topic || !topic[0] || strlen(topic) > 255)
        return sc_fail(err, SC_ERR_VALIDATION, "TopicARN is required.");
    if (!topic_arn_valid(topic))
        return sc_fail(err, SC_ERR_VALIDATION, "Invalid SNS topic ARN: %s", topic);
    if (ntypes <= 0)
        return sc_fail(err, SC_ERR_VALIDATION, "NotificationTypes is required.");
    *out = 0;
    for (int i = 0; i < ntypes; i++) {
        int t = sc_asg_notify_type_parse(types[i]);

        if (t < 0)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Invalid notification type: %s. Valid types are "
                "autoscaling:EC2_INSTANCE_LAUNCH, autoscaling:EC2_INSTANCE_LAUNCH_ERROR, "
                "autoscaling:EC2_INSTANCE_TERMINATE, "
                "autoscaling:EC2_INSTANCE_TERMINATE_ERROR and "
                "autoscaling:TEST_NOTIFICATION.",
                types[i] ? types[i] : "null");
        *out |= 1u << t;
    }
    if (!notify_index(g, topic, &pos) && g->nnotify >= SC_ASG_MAX_NOTIFY_TOPICS)
        return sc_fail(err, SC_ERR_LIMIT_EXCEEDED,
                       "The maximum number of SNS topics allowed per Auto Scaling group (%d) has "
                       "been reached.",
                       SC_ASG_MAX_NOTIFY_TOPICS);
    return SC_OK;
}

enum sc_status sc_asg_put_notification_configuration(struct sc_asg *asg, const char *group,
                                                     const char *topic_arn,
                                                     const char *const *types, int ntypes,
                                                     int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    unsigned bits = 0;
    enum sc_status st = put_check(g, topic_arn, types, ntypes, &bits, err);

    if (st != SC_OK)
        return st;
    /* activities that ended before the group had a configuration make none */
    if (g->nnotify == 0)
        asg_notify_mark_all(g);
    if (notify_set(g, topic_arn, bits) != 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    notice_add(asg, now_ms, SC_ASG_NOTIFY_TEST, g->info.auto_scaling_group_name, topic_arn, "",
               test_message(asg, g, now_ms));
    return SC_OK;
}

enum sc_status sc_asg_delete_notification_configuration(struct sc_asg *asg, const char *group,
                                                        const char *topic_arn, int64_t now_ms,
                                                        struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    int pos;

    (void)now_ms;
    if (!g)
        return no_group(err);
    if (!topic_arn || !notify_index(g, topic_arn, &pos))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "No notification configuration found for topic %s in group %s.",
                       topic_arn ? topic_arn : "null", group);
    memmove(&g->notify[pos], &g->notify[pos + 1],
            (size_t)(g->nnotify - pos - 1) * sizeof(g->notify[0]));
    g->nnotify--;
    return SC_OK;
}

int sc_asg_notification_config_count(const struct sc_asg *asg, const char *group)
{
    const struct asg_group *g = asg_group_find(asg, group);

    return g ? g->nnotify : -1;
}

const struct sc_asg_notify_info *sc_asg_notification_config_at(const struct sc_asg *asg,
                                                               const char *group, int i)
{
    const struct asg_group *g = asg_group_find(asg, group);

    return g && i >= 0 && i < g->nnotify ? &g->notify[i] : NULL;
}

void asg_notify_free(struct asg_group *g)
{
    free(g->notify);
    g->notify = NULL;
    g->nnotify = 0;
}

/* --- save / load ------------------------------------------------------------------------- */

json_t *asg_notify_save(const struct asg_group *g)
{
    json_t *a = json_array();
    int bad = !a;

    for (int k = 0; !bad && k < g->nnotify; k++) {
        json_t *o = json_object(), *types = json_array();

        bad |= !o || !types;
        for (int t = 0; !bad && t < SC_ASG_NOTIFY_TYPE_COUNT; t++)
            if (g->notify[k].types & (1u << t))
                bad |= json_array_append_new(types, json_string(type_names[t]));
        bad |= sc_save_str(o, "topic_arn", g->notify[k].topic_arn);
        bad |= sc_save_take(o, "types", types);
        bad |= json_array_append_new(a, o);
    }
    if (bad) {
        json_decref(a);
        return NULL;
    }
    return a;
}

void asg_notify_load(struct sc_load *l, const json_t *a, struct asg_group *g)
{
    size_t n = json_array_size(a);

    for (size_t k = 0; k < n && !l->failed; k++) {
        const json_t *o = json_array_get(a, k);
        const char *topic = sc_load_cstr(l, o, "topic_arn");
        const json_t *types = sc_load_array(l, o, "types");
        unsigned bits = 0;
        size_t i;
        json_t *v;
        int pos;

        if (l->failed)
            return;
        json_array_foreach(types, i, v)
        {
            int t = sc_asg_notify_type_parse(json_string_value(v));

            if (t < 0) {
                sc_load_fail(l, "notifications[%zu]: not a notification type", k);
                return;
            }
            bits |= 1u << t;
        }
        if (!topic_arn_valid(topic) || bits == 0 || notify_index(g, topic, &pos) ||
            g->nnotify >= SC_ASG_MAX_NOTIFY_TOPICS) {
            sc_load_fail(l, "notifications[%zu]: not a valid configuration", k);
            return;
        }
        if (notify_set(g, topic, bits) != 0)
            sc_load_fail(l, "out of memory");
    }
}
