/* emulator/admin.c: see admin.h; docs/admin-api.md documents every endpoint (the table
 * `endpoints` below is the list). */
#include "emulator/admin.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "emulator/admin_dash.h"
#include "emulator/admin_view.h"
#include "emulator/autoscale.h"
#include "emulator/console.h"
#include "emulator/emu.h"
#include "emulator/events.h"
#include "emulator/instance_main.h"
#include "emulator/persist.h"
#include "emulator/state.h"
#include "scaler/civil.h"
#include "scaler/stall.h"

int admin_is_admin_path(const char *path)
{
    return strncmp(path, "/_scalelab/", 11) == 0 || strncmp(path, "/moto-api/", 10) == 0;
}

static void reply(struct dispatch_response *rs, int status, json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT);

    rs->status = status;
    rs->content_type = "application/json";
    cm_buf_puts(&rs->body, s ? s : "{}");
    cm_buf_putc(&rs->body, '\n');
    free(s);
    json_decref(o);
}

static void error(struct dispatch_response *rs, int status, const char *msg)
{
    reply(rs, status, json_pack("{s:s}", "error", msg));
}

static json_t *clock_json(struct emu *e)
{
    char iso[40];
    int64_t now = emu_now_ms(e);

    sc_civil_format_iso_ms(now, iso, sizeof(iso));
    return json_pack("{s:I,s:s,s:s,s:f}", "now_ms", (json_int_t)now, "now", iso, "mode",
                     emu_clock_is_manual(e) ? "manual" : "real", "time_scale", emu_time_scale(e));
}

#define ZONE_FAULT_USAGE                                                                           \
    "expected {\"zone\": \"us-east-1a\", \"fault\": \"az_outage|az_recover\", \"for_s\": N, "      \
    "\"region\": R, \"account\": A} (for_s, region and account optional)"

/* POST /_scalelab/fault with "zone": the AZ outage (docs/dataplane.md) in every world of
 * the zone's region (or the one account given). */
static void zone_fault(struct emu *e, json_t *o, struct dispatch_response *rs)
{
    const char *zone = json_string_value(json_object_get(o, "zone"));
    const char *what = json_string_value(json_object_get(o, "fault"));
    const char *region = json_string_value(json_object_get(o, "region"));
    const char *account = json_string_value(json_object_get(o, "account"));
    json_t *for_s = json_object_get(o, "for_s");
    char rbuf[64], err[256] = "";
    struct cm_buf ids;
    int64_t now = emu_now_ms(e), for_ms = 0;
    int down;
    size_t zl = strlen(zone);

    if (!what || (strcmp(what, "az_outage") != 0 && strcmp(what, "az_recover") != 0) || zl < 2 ||
        zl >= 32 || (for_s && !json_is_number(for_s)) ||
        (json_object_get(o, "region") && !region) || (json_object_get(o, "account") && !account)) {
        error(rs, 400, ZONE_FAULT_USAGE);
        return;
    }
    down = strcmp(what, "az_outage") == 0;
    if (for_s) {
        double v = json_number_value(for_s);

        if (!(v >= 0) || !isfinite(v) || v > 1e12 || !down) {
            error(rs, 400, "for_s must be a number >= 0, with az_outage only");
            return;
        }
        for_ms = (int64_t)(v * 1000.0 + 0.5);
    }
    if (!emu_autoscale(e)) {
        error(rs, 501, "no real data plane (instances are records only)");
        return;
    }
    if (!region) {
        snprintf(rbuf, sizeof(rbuf), "%.*s", (int)(zl - 1), zone);
        region = rbuf;
    }
    cm_buf_init(&ids, 0);
    if (!emu_zone_fault(e, zone, down, for_ms, now, region, account, &ids, err, sizeof(err))) {
        cm_buf_cleanup(&ids);
        error(rs, 400, err[0] ? err : "no world has that availability zone");
        return;
    }
    {
        struct cm_buf arr;
        json_t *list;

        cm_buf_init(&arr, 0);
        cm_buf_printf(&arr, "[%s]", ids.data ? ids.data : "");
        cm_buf_cleanup(&ids);
        list = json_loads(arr.data, 0, NULL); /* ids are "i-" + hex: valid JSON */
        cm_buf_cleanup(&arr);
        reply(
            rs, 200,
            json_pack("{s:s,s:s,s:s,s:o,s:o}", "status", "ok", "zone", zone, "fault", what,
                      "instances", list ? list : json_array(), "until_ms",
                      down && for_ms > 0 ? json_integer((json_int_t)(now + for_ms)) : json_null()));
    }
}

/* ---- the endpoints ------------------------------------------------------------------------ */

struct admin_ctx {
    struct emu *e;
    const struct dispatch_config *cfg;
    uint64_t requests;
    const struct dispatch_request *rq;
    struct dispatch_response *rs;
};

static void get_health(struct admin_ctx *c)
{
    struct emu *e = c->e;
    json_t *o = clock_json(e);

    json_object_set_new(o, "status", json_string("ok"));
    json_object_set_new(o, "requests", json_integer((json_int_t)c->requests));
    if (emu_loop_stalls(e)) {
        const struct sc_stall_ring *g = emu_loop_stalls(e);
        json_t *recent = json_array();
        uint64_t first = g->seq > SC_STALL_RING ? g->seq - SC_STALL_RING : 0;

        for (uint64_t q = first; q < g->seq; q++)
            json_array_append_new(recent, json_pack("{s:I,s:I,s:f}", "seq", (json_int_t)q, "at_ms",
                                                    (json_int_t)g->r[q % SC_STALL_RING].at_ms,
                                                    "late_ms", g->r[q % SC_STALL_RING].late_ms));
        json_object_set_new(o, "loop",
                            json_pack("{s:f,s:I,s:f,s:o}", "stall_threshold_ms",
                                      sc_stall_threshold_ms(emu_time_scale(e)), "stalls",
                                      (json_int_t)g->seq, "longest_ms", g->longest_ms, "recent",
                                      recent));
    }
    if (emu_state(e)) {
        struct state_stats ss;

        state_get_stats(emu_state(e), &ss);
        json_object_set_new(
            o, "state",
            json_pack("{s:s,s:I,s:I,s:I,s:I,s:f,s:f,s:f}", "file", state_path(emu_state(e)),
                      "commits", (json_int_t)ss.commits, "snapshots", (json_int_t)ss.snapshots,
                      "tickets", (json_int_t)ss.tickets, "last_bytes", (json_int_t)ss.last_bytes,
                      "last_ms", ss.last_ms, "total_ms", ss.total_ms, "loop_ms", ss.loop_ms));
    }
    reply(c->rs, 200, o);
}

static void get_clock(struct admin_ctx *c)
{
    reply(c->rs, 200, clock_json(c->e));
}

static void post_clock(struct admin_ctx *c)
{
    const struct dispatch_request *rq = c->rq;
    struct dispatch_response *rs = c->rs;
    json_error_t jerr;
    json_t *in = json_loadb(rq->body ? rq->body : "", rq->body_len, 0, &jerr);
    json_t *ms = in ? json_object_get(in, "advance_ms") : NULL;
    json_t *sec = in ? json_object_get(in, "advance_s") : NULL;
    double adv = -1;

    if (json_is_number(ms))
        adv = json_number_value(ms);
    else if (json_is_number(sec))
        adv = json_number_value(sec) * 1000.0;
    json_decref(in);
    if (!(adv >= 0) || !isfinite(adv) || adv > 1e15) {
        error(rs, 400, "body must be {\"advance_ms\": N} or {\"advance_s\": N}, N >= 0");
        return;
    }
    if (emu_clock_advance(c->e, (int64_t)adv) < 0) {
        error(rs, 409, "the clock is real; start the emulator with --clock manual to move it");
        return;
    }
    emu_step(c->e);
    rs->state_kind = STATE_SNAPSHOT; /* the manual clock is part of the state */
    reply(rs, 200, clock_json(c->e));
}

static void post_reset(struct admin_ctx *c)
{
    emu_reset(c->e);
    c->rs->state_kind = STATE_SNAPSHOT;
    reply(c->rs, 200, json_pack("{s:s}", "status", "ok"));
}

static void get_state(struct admin_ctx *c)
{
    json_t *o = persist_state_json(c->e);

    if (o)
        reply(c->rs, 200, o);
    else
        error(c->rs, 500, "out of memory");
}

static void get_dataplane(struct admin_ctx *c)
{
    char *js = emu_autoscale(c->e) ? autoscale_status_json(emu_autoscale(c->e)) : NULL;
    json_t *o = js ? json_loads(js, 0, NULL) : NULL;

    free(js);
    if (!o) {
        error(c->rs, 501, "no real data plane (instances are records only)");
        return;
    }
    admin_view_dataplane(c->e, o);
    reply(c->rs, 200, o);
}

/* The instance fault F before it reaches the process: kill, hang, resume, or a query of
 * the instance program's own grammar (instance_fault_parse, the one rule), in printable
 * ASCII only, so a CR/LF or a space cannot end the request line inside.
 * 0, or -1 with err naming the problem. */
static int fault_check(const char *f, char *err, size_t errlen)
{
    struct instance_fault any = { 1, 0, 0 };

    if (strcmp(f, "kill") == 0 || strcmp(f, "hang") == 0 || strcmp(f, "resume") == 0)
        return 0;
    for (const unsigned char *p = (const unsigned char *)f; *p; p++) {
        if (*p <= 0x20 || *p >= 0x7f || *p == '?' || *p == '#' || *p == '%') {
            snprintf(err, errlen,
                     "fault holds byte 0x%02x at %zu: only kill, hang, resume, "
                     "slow=K, fail_health=0|1, error_rate=P",
                     *p, (size_t)(p - (const unsigned char *)f));
            return -1;
        }
    }
    if (!*f || strlen(f) > 200) {
        snprintf(err, errlen, "fault must be 1 to 200 bytes");
        return -1;
    }
    return instance_fault_parse(f, strlen(f), &any, err, errlen);
}

static void post_fault(struct admin_ctx *c)
{
    const struct dispatch_request *rq = c->rq;
    struct dispatch_response *rs = c->rs;
    json_t *o = json_loadb(rq->body ? rq->body : "", rq->body_len, 0, NULL);
    const char *id, *what;
    char err[256];

    if (json_is_string(json_object_get(o, "zone"))) {
        zone_fault(c->e, o, rs);
        json_decref(o);
        return;
    }
    id = json_string_value(json_object_get(o, "instance_id"));
    what = json_string_value(json_object_get(o, "fault"));
    if (!id || !what)
        error(
            rs, 400,
            "expected {\"instance_id\": \"i-...\", \"fault\": \"kill|hang|resume|slow=K|fail_health=0|1|error_rate=P\"}");
    else if (fault_check(what, err, sizeof(err)) < 0)
        error(rs, 400, err);
    else if (!emu_autoscale(c->e))
        error(rs, 501, "no real data plane (instances are records only)");
    else if (emu_instance_fault(c->e, id, what, err, sizeof(err)) < 0)
        error(rs, 400, err);
    else
        reply(rs, 200,
              json_pack("{s:s,s:s,s:s}", "status", "ok", "instance_id", id, "fault", what));
    json_decref(o);
}

/* The value of name in the raw query string (not decoded: the parameters here are plain
 * words and numbers), or NULL. */
static const char *query_get(const char *query, const char *name, char *out, size_t n)
{
    size_t nl = strlen(name);

    for (const char *p = query; p && *p;) {
        const char *amp = strchr(p, '&');
        size_t len = amp ? (size_t)(amp - p) : strlen(p);

        if (len > nl && strncmp(p, name, nl) == 0 && p[nl] == '=') {
            snprintf(out, n, "%.*s", (int)(len - nl - 1), p + nl + 1);
            return out;
        }
        p = amp ? amp + 1 : NULL;
    }
    return NULL;
}

static const char *header_get(const struct dispatch_request *rq, const char *name)
{
    for (int i = 0; i < rq->nhdrs; i++) {
        if (strcasecmp(rq->hdrs[i].name, name) == 0)
            return rq->hdrs[i].value;
    }
    return NULL;
}

/* GET /_scalelab/events: SSE by default, ?format=jsonl for scripts; ?since=N (or SSE's
 * Last-Event-ID on a reconnect) starts after event N. */
static void get_events(struct admin_ctx *c)
{
    char fmt[16], since[24];
    const char *last_id = header_get(c->rq, "Last-Event-ID");
    const char *v = query_get(c->rq->query, "since", since, sizeof(since));
    uint64_t after = 0;
    char *end = NULL;

    if (!v && last_id && *last_id)
        v = last_id;
    if (v) {
        errno = 0;
        after = strtoull(v, &end, 10);
        if (errno || end == v || *end || *v == '-') {
            error(c->rs, 400, "since (or Last-Event-ID) must be an event's seq, a whole number");
            return;
        }
    }
    if (query_get(c->rq->query, "format", fmt, sizeof(fmt))) {
        if (strcmp(fmt, "jsonl") != 0 && strcmp(fmt, "sse") != 0) {
            error(c->rs, 400, "format must be jsonl or sse");
            return;
        }
        if (strcmp(fmt, "jsonl") == 0) {
            c->rs->status = 200;
            c->rs->content_type = "application/x-ndjson";
            events_format_jsonl(emu_events(c->e), after, &c->rs->body);
            return;
        }
    }
    c->rs->status = 200;
    c->rs->content_type = "text/event-stream";
    dispatch_response_header(c->rs, "Cache-Control", "no-cache");
    c->rs->stream = emu_events(c->e);
    c->rs->stream_after = after;
}

static void get_overview(struct admin_ctx *c)
{
    json_t *o = admin_view_overview(c->e);

    json_object_set_new(o, "clock", clock_json(c->e));
    reply(c->rs, 200, o);
}

static int wants_html(const struct dispatch_request *rq)
{
    const char *accept = header_get(rq, "Accept");

    return accept && strstr(accept, "text/html") != NULL;
}

/* GET /: the page for a browser, a few lines for curl */
static void get_root(struct admin_ctx *c)
{
    if (wants_html(c->rq)) {
        console_page(c->rs);
        return;
    }
    c->rs->status = 200;
    c->rs->content_type = "text/plain; charset=utf-8";
    admin_view_about(c->e, header_get(c->rq, "Host"), c->cfg->region, c->cfg->account,
                     &c->rs->body);
}

static void get_ui(struct admin_ctx *c)
{
    console_page(c->rs);
}

static void get_dashboards(struct admin_ctx *c)
{
    reply(c->rs, 200, admin_dash_list(c->e));
}

/* GET /_scalelab/dashboards/NAME/widgets/N.svg[?account=A&region=R][&alarm=K] */
static void get_widget_svg(struct admin_ctx *c)
{
    const char *p = c->rq->path + strlen("/_scalelab/dashboards/");
    const char *slash = strchr(p, '/');
    char name[256], index[32], account[32], region[64], alarm[16], err[512];
    const char *num = slash ? slash + strlen("/widgets/") : NULL;
    size_t nl = num ? strlen(num) : 0;
    int status;

    /* the pattern matched: NAME/widgets/N.svg */
    if (!slash || (size_t)(slash - p) >= sizeof(name) || nl < 5 || nl - 4 >= sizeof(index)) {
        error(c->rs, 404, "no such dashboard widget (GET /_scalelab/dashboards lists them)");
        return;
    }
    snprintf(name, sizeof(name), "%.*s", (int)(slash - p), p);
    snprintf(index, sizeof(index), "%.*s", (int)(nl - 4), num);
    if (!query_get(c->rq->query, "account", account, sizeof(account)))
        snprintf(account, sizeof(account), "%s", c->cfg->account);
    if (!query_get(c->rq->query, "region", region, sizeof(region)))
        snprintf(region, sizeof(region), "%s", c->cfg->region);
    if (!query_get(c->rq->query, "alarm", alarm, sizeof(alarm)))
        alarm[0] = '\0';
    status = admin_dash_widget_svg(c->e, account, region, name, index, alarm[0] ? alarm : NULL,
                                   &c->rs->body, err, sizeof(err));
    if (status != 200) {
        cm_buf_reset(&c->rs->body);
        error(c->rs, status, err);
        return;
    }
    c->rs->status = 200;
    c->rs->content_type = "image/svg+xml";
    dispatch_response_header(c->rs, "Cache-Control", "no-store");
}

static void get_index(struct admin_ctx *c);

typedef void (*endpoint_fn)(struct admin_ctx *c);

/* Every admin endpoint (docs/admin-api.md lists them). */
static const struct endpoint {
    const char *path;
    const char *method;
    endpoint_fn fn;
    const char *what;
} endpoints[] = {
    { "/", "GET", get_root, "the console page (Accept: text/html), else what this is" },
    { "/_scalelab/", "GET", get_index, "this list" },
    { "/_scalelab/ui", "GET", get_ui, "the console page" },
    { "/_scalelab/health", "GET", get_health, "liveness, clock, request count, state file" },
    { "/_scalelab/clock", "GET", get_clock, "the emulated clock" },
    { "/_scalelab/clock", "POST", post_clock, "advance the manual clock" },
    { "/_scalelab/reset", "POST", post_reset, "drop every account's state" },
    { "/moto-api/reset", "POST", post_reset, "the same (moto's server mode)" },
    { "/_scalelab/state", "GET", get_state, "the whole state as JSON" },
    { "/_scalelab/overview", "GET", get_overview, "groups, load balancers, alarms (the page's)" },
    { "/_scalelab/dataplane", "GET", get_dataplane, "instance processes and listener ports" },
    { "/_scalelab/fault", "POST", post_fault, "inject a fault on an instance or a zone" },
    { "/_scalelab/events", "GET", get_events, "the event log: SSE, or ?format=jsonl" },
    { "/_scalelab/dashboards", "GET", get_dashboards,
      "CloudWatch dashboards of every world, widgets on the 24-column grid" },
    { "/_scalelab/dashboards/*/widgets/*.svg", "GET", get_widget_svg,
      "a dashboard's metric widget drawn as SVG (?account=A&region=R)" },
};

#define NENDPOINTS ((int)(sizeof(endpoints) / sizeof(endpoints[0])))

static void get_index(struct admin_ctx *c)
{
    json_t *list = json_array();

    for (int i = 0; i < NENDPOINTS; i++)
        json_array_append_new(list,
                              json_pack("{s:s,s:s,s:s}", "method", endpoints[i].method, "path",
                                        endpoints[i].path, "what", endpoints[i].what));
    reply(c->rs, 200, json_pack("{s:o,s:s}", "endpoints", list, "docs", "docs/admin-api.md"));
}

/* 1 when path matches pattern, where '*' stands for one or more bytes other than '/'. */
static int path_match(const char *pattern, const char *path)
{
    while (*pattern) {
        if (*pattern == '*') {
            const char *q = path;

            while (*q && *q != '/')
                q++;
            if (q == path)
                return 0;
            /* the shortest span that lets the rest match ("*.svg" in "3.svg") */
            for (const char *t = path + 1; t <= q; t++) {
                if (path_match(pattern + 1, t))
                    return 1;
            }
            return 0;
        }
        if (*pattern++ != *path++)
            return 0;
    }
    return *path == '\0';
}

int admin_is_console_request(const struct dispatch_request *rq)
{
    /* GET / with no Action is no AWS request: AWS's Query GETs name their Action (and
     * Version; one without Action keeps its MissingAction) */
    return strcmp(rq->path, "/") == 0 &&
           (strcmp(rq->method, "GET") == 0 || strcmp(rq->method, "HEAD") == 0) &&
           !strstr(rq->query, "Action=") && !strstr(rq->query, "Version=") &&
           !header_get(rq, "X-Amz-Target");
}

void admin_handle(struct emu *e, const struct dispatch_config *cfg, uint64_t requests,
                  const struct dispatch_request *rq, struct dispatch_response *rs)
{
    struct admin_ctx c = { e, cfg, requests, rq, rs };
    const char *method = strcmp(rq->method, "HEAD") == 0 ? "GET" : rq->method;
    char allow[64] = "";

    for (int i = 0; i < NENDPOINTS; i++) {
        if (!path_match(endpoints[i].path, rq->path))
            continue;
        if (strcmp(endpoints[i].method, method) == 0) {
            endpoints[i].fn(&c);
            return;
        }
        snprintf(allow + strlen(allow), sizeof(allow) - strlen(allow), "%s%s", allow[0] ? ", " : "",
                 endpoints[i].method);
    }
    if (allow[0]) {
        dispatch_response_header(rs, "Allow", "%s", allow);
        reply(rs, 405,
              json_pack("{s:s,s:s}", "error", "method not allowed for this endpoint", "allow",
                        allow));
        return;
    }
    error(rs, 404, "no such admin endpoint (GET /_scalelab/ lists them)");
}
