/* emulator/events.c: see events.h. */
#include "emulator/events.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "scaler/asg_notify.h"
#include "scaler/civil.h"
#include "scaler/decision.h"
#include "scaler/decision_json.h"
#include "scaler/observe.h"

#define TEXT_MAX 1536 /* a log line's text; AWS's causes fit */

struct slot {
    uint64_t seq;
    char type[24];
    char *json; /* one line, no newline */
};

struct events_sub {
    struct events *ev;
    struct cm_buf buf; /* unsent SSE bytes from off on */
    size_t off;
    int waiting; /* the reader found nothing: wake on the next data */
    int dropped, ended;
    events_wake_fn wake;
    void *ud;
    struct events_sub *prev, *next;
};

struct events {
    struct slot *ring;
    int cap;
    uint64_t seq; /* the newest's */
    size_t sub_max;
    struct events_sub *subs;
    int nsubs;
};

struct events *events_create(int ring, size_t sub_max)
{
    struct events *ev = cm_xcalloc(1, sizeof(*ev));

    ev->cap = ring > 0 ? ring : EVENTS_RING;
    ev->sub_max = sub_max ? sub_max : EVENTS_SUB_MAX_BYTES;
    ev->ring = cm_xcalloc((size_t)ev->cap, sizeof(*ev->ring));
    return ev;
}

void events_destroy(struct events *ev)
{
    if (!ev)
        return;
    while (ev->subs)
        events_unsubscribe(ev->subs);
    for (int i = 0; i < ev->cap; i++)
        free(ev->ring[i].json);
    free(ev->ring);
    free(ev);
}

uint64_t events_last_seq(const struct events *ev)
{
    return ev->seq;
}

int events_sub_count(const struct events *ev)
{
    return ev->nsubs;
}

/* ---- subscribers ------------------------------------------------------------------------ */

static void wake(struct events_sub *s)
{
    if (s->waiting && s->wake) {
        s->waiting = 0;
        s->wake(s->ud);
    }
}

/* Drops s: its buffer goes at once (a stalled client holds no memory), its reader gets -1. */
static void drop(struct events_sub *s)
{
    s->dropped = 1;
    cm_buf_cleanup(&s->buf);
    cm_buf_init(&s->buf, s->ev->sub_max);
    s->off = 0;
    s->waiting = 1; /* wake it even if it is not waiting: the server closes it */
    wake(s);
}

/* Appends n bytes to s's buffer; drops s when they do not fit. */
static void sub_put(struct events_sub *s, const char *p, size_t n)
{
    if (s->dropped || s->ended)
        return;
    if (s->off > 0) {
        memmove(s->buf.data, s->buf.data + s->off, s->buf.len - s->off);
        s->buf.len -= s->off;
        s->buf.data[s->buf.len] = '\0';
        s->off = 0;
    }
    if (cm_buf_append(&s->buf, p, n) < 0) {
        log_warn("events: a stream client fell %zu bytes behind: dropped", s->buf.len);
        drop(s);
        return;
    }
    wake(s);
}

static void sub_put_event(struct events_sub *s, const struct slot *sl)
{
    struct cm_buf b;

    cm_buf_init(&b, 0);
    cm_buf_printf(&b, "id: %llu\nevent: %s\ndata: %s\n\n", (unsigned long long)sl->seq, sl->type,
                  sl->json);
    sub_put(s, b.data, b.len);
    cm_buf_cleanup(&b);
}

struct events_sub *events_subscribe(struct events *ev, uint64_t after, events_wake_fn wakefn,
                                    void *ud)
{
    struct events_sub *s = cm_xcalloc(1, sizeof(*s));
    static const char hello[] = "retry: 2000\n: scalelab events\n\n";

    s->ev = ev;
    cm_buf_init(&s->buf, ev->sub_max);
    s->wake = wakefn;
    s->ud = ud;
    s->next = ev->subs;
    if (ev->subs)
        ev->subs->prev = s;
    ev->subs = s;
    ev->nsubs++;
    sub_put(s, hello, sizeof(hello) - 1);
    /* the kept events after `after`, as many of the newest as fill half the buffer */
    {
        uint64_t first = ev->seq > (uint64_t)ev->cap ? ev->seq - (uint64_t)ev->cap + 1 : 1;
        uint64_t q = ev->seq;
        size_t bytes = 0;

        if (after + 1 > first)
            first = after + 1;
        while (q >= first && q > 0) {
            const struct slot *sl = &ev->ring[(q - 1) % (uint64_t)ev->cap];

            if (sl->seq != q || !sl->json)
                break;
            bytes += strlen(sl->json) + 64;
            if (bytes > ev->sub_max / 2)
                break;
            q--;
        }
        for (q = q + 1; q <= ev->seq; q++)
            sub_put_event(s, &ev->ring[(q - 1) % (uint64_t)ev->cap]);
    }
    return s;
}

void events_unsubscribe(struct events_sub *s)
{
    if (!s)
        return;
    if (s->prev)
        s->prev->next = s->next;
    else
        s->ev->subs = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->ev->nsubs--;
    cm_buf_cleanup(&s->buf);
    free(s);
}

ssize_t events_sub_read(struct events_sub *s, char *buf, size_t max)
{
    size_t n = s->buf.len - s->off;

    if (s->dropped)
        return -1;
    if (n == 0) {
        if (s->ended)
            return -1;
        s->waiting = 1;
        return 0;
    }
    if (n > max)
        n = max;
    memcpy(buf, s->buf.data + s->off, n);
    s->off += n;
    if (s->off == s->buf.len) {
        s->off = 0;
        s->buf.len = 0;
        s->buf.data[0] = '\0';
    }
    return (ssize_t)n;
}

int events_sub_dropped(const struct events_sub *s)
{
    return s->dropped;
}

void events_keepalive(struct events *ev)
{
    static const char ping[] = ": keepalive\n\n";

    for (struct events_sub *s = ev->subs; s; s = s->next)
        sub_put(s, ping, sizeof(ping) - 1);
}

void events_end_all(struct events *ev)
{
    for (struct events_sub *s = ev->subs; s; s = s->next) {
        s->ended = 1;
        s->waiting = 1;
        wake(s);
    }
}

/* ---- recording -------------------------------------------------------------------------- */

static uint64_t record(struct events *ev, int64_t now_ms, const char *type, json_t *o, int warn,
                       const char *text)
{
    char iso[40];
    struct slot *sl;
    char *js;

    json_t *out;

    ev->seq++;
    sc_civil_format_iso_ms(now_ms, iso, sizeof(iso));
    /* the common members first, then the type's */
    out = json_pack("{s:I,s:s,s:I,s:s}", "seq", (json_int_t)ev->seq, "time", iso, "time_ms",
                    (json_int_t)now_ms, "type", type);
    if (o)
        json_object_update(out, o);
    json_decref(o);
    json_object_set_new(out, "text", json_string(text));
    js = json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(out);
    if (!js)
        js = cm_xstrdup("{}");
    sl = &ev->ring[(ev->seq - 1) % (uint64_t)ev->cap];
    free(sl->json);
    sl->json = js;
    sl->seq = ev->seq;
    snprintf(sl->type, sizeof(sl->type), "%s", type);
    if (warn)
        log_warn("event: %s", text);
    else
        log_info("event: %s", text);
    for (struct events_sub *s = ev->subs; s; s = s->next)
        sub_put_event(s, sl);
    return ev->seq;
}

uint64_t events_add(struct events *ev, int64_t now_ms, const char *type, json_t *fields, int warn,
                    const char *fmt, ...)
{
    char text[TEXT_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return record(ev, now_ms, type, fields, warn, text);
}

static void set_str(json_t *o, const char *key, const char *v)
{
    if (v)
        json_object_set_new(o, key, json_string(v));
}

/* AWS's "N/A" says nothing in a log line. */
static int has_text(const char *s)
{
    return s && *s && strcmp(s, "N/A") != 0;
}

/* The human line of a world's event. */
static void world_text(const struct sc_event *se, char *t, size_t n)
{
    const char *from = se->from ? se->from : "";
    const char *arrow = se->from ? " -> " : "";

    switch (se->kind) {
    case SC_EVENT_ALARM:
        snprintf(t, n, "alarm %s %s -> %s: %s", se->alarm, from, se->to, se->text ? se->text : "");
        break;
    case SC_EVENT_ACTIVITY_START:
        snprintf(t, n, "group %s activity started: %s; cause: %s", se->group,
                 se->description ? se->description : "", se->text ? se->text : "");
        break;
    case SC_EVENT_ACTIVITY_END:
        snprintf(t, n, "group %s activity %s: %s%s%s", se->group, se->status,
                 se->description ? se->description : "", se->status_message ? ": " : "",
                 se->status_message ? se->status_message : "");
        break;
    case SC_EVENT_LAUNCH_FAILED:
        snprintf(t, n, "group %s failed launch: %s; %s; cause: %s", se->group,
                 se->description ? se->description : "",
                 se->status_message ? se->status_message : "no status message",
                 se->text ? se->text : "");
        break;
    case SC_EVENT_LAUNCH:
        snprintf(t, n, "instance %s launched in %s%s%s (%s)", se->instance_id,
                 se->zone ? se->zone : "?", se->group ? " for group " : "",
                 se->group ? se->group : "", se->to);
        break;
    case SC_EVENT_INSTANCE:
        snprintf(t, n, "instance %s %s -> %s%s%s", se->instance_id, from, se->to,
                 se->text ? ": " : "", se->text ? se->text : "");
        break;
    case SC_EVENT_LIFECYCLE:
        snprintf(t, n, "group %s instance %s (%s) %s%s%s", se->group, se->instance_id,
                 se->zone ? se->zone : "?", se->from ? from : "joined: ", arrow, se->to);
        break;
    case SC_EVENT_HEALTH:
        snprintf(t, n, "load balancer %s instance %s %s%s%s%s%s", se->load_balancer,
                 se->instance_id, se->from ? from : "registered: ", arrow, se->to,
                 has_text(se->text) ? ": " : "", has_text(se->text) ? se->text : "");
        break;
    default:
        snprintf(t, n, "%s", sc_event_kind_name(se->kind));
        break;
    }
}

/* A notification's members (docs/admin-api.md): what SNS would carry, the message body as
 * the JSON object it is. */
static void notification_fields(json_t *o, const struct sc_asg_notification *n)
{
    json_t *msg = json_loads(n->message, 0, NULL);

    set_str(o, "notification_type", sc_asg_notify_type_str(n->type));
    set_str(o, "topic_arn", n->topic_arn);
    set_str(o, "subject", n->subject);
    if (n->instance_id[0])
        set_str(o, "instance_id", n->instance_id);
    json_object_set_new(o, "message", msg ? msg : json_string(n->message));
}

void events_add_world(struct events *ev, const char *account, const char *region,
                      const struct sc_event *se)
{
    char text[TEXT_MAX];
    json_t *o = json_object();
    int warn = se->kind == SC_EVENT_LAUNCH_FAILED;

    if (se->kind == SC_EVENT_NOTIFICATION && se->notification) {
        const struct sc_asg_notification *n = se->notification;

        set_str(o, "account", account);
        set_str(o, "region", region);
        set_str(o, "group", se->group);
        notification_fields(o, n);
        snprintf(text, sizeof(text), "notification %s to %s: %s", sc_asg_notify_type_str(n->type),
                 n->topic_arn, n->subject);
        record(ev, se->time_ms, sc_event_kind_name(se->kind), o,
               n->type == SC_ASG_NOTIFY_LAUNCH_ERROR || n->type == SC_ASG_NOTIFY_TERMINATE_ERROR,
               text);
        return;
    }

    if ((se->kind == SC_EVENT_DECISION && se->decision) ||
        (se->kind == SC_EVENT_HOOK && se->hook)) {
        set_str(o, "account", account);
        set_str(o, "region", region);
        set_str(o, "group", se->group);
        if (se->decision) {
            sc_decision_to_json(o, se->decision);
            sc_decision_format(se->decision, text, sizeof(text));
        } else {
            sc_hook_note_to_json(o, se->hook);
            sc_hook_note_format(se->hook, text, sizeof(text));
        }
        record(ev, se->time_ms, sc_event_kind_name(se->kind), o, 0, text);
        return;
    }

    set_str(o, "account", account);
    set_str(o, "region", region);
    set_str(o, "group", se->group);
    set_str(o, "instance_id", se->instance_id);
    set_str(o, "load_balancer", se->load_balancer);
    set_str(o, "alarm", se->alarm);
    set_str(o, "activity_id", se->activity_id);
    set_str(o, "zone", se->zone);
    set_str(o, "from", se->from);
    set_str(o, "to", se->to);
    set_str(o,
            se->kind == SC_EVENT_ACTIVITY_START || se->kind == SC_EVENT_ACTIVITY_END ||
                    se->kind == SC_EVENT_LAUNCH_FAILED
                ? "cause"
                : "reason",
            se->text);
    set_str(o, "description", se->description);
    set_str(o, "status", se->status);
    set_str(o, "status_message", se->status_message);
    world_text(se, text, sizeof(text));
    record(ev, se->time_ms, sc_event_kind_name(se->kind), o, warn, text);
}

void events_format_jsonl(const struct events *ev, uint64_t after, struct cm_buf *out)
{
    uint64_t first = ev->seq > (uint64_t)ev->cap ? ev->seq - (uint64_t)ev->cap + 1 : 1;

    for (uint64_t q = after + 1 > first ? after + 1 : first; q <= ev->seq; q++) {
        const struct slot *sl = &ev->ring[(q - 1) % (uint64_t)ev->cap];

        if (sl->seq == q && sl->json) {
            cm_buf_puts(out, sl->json);
            cm_buf_putc(out, '\n');
        }
    }
}
