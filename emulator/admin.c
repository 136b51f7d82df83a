/* emulator/admin.c: see admin.h.
 *   GET  /_scalelab/health  {"status":"ok","clock":"real|manual","now":..., "requests":N,
 *                           "state": {"file", "commits", "snapshots", "tickets",
 *                           "last_bytes", "last_ms", "total_ms", "loop_ms"} with --state}
 *   GET  /_scalelab/clock   {"now_ms":N,"now":"ISO","mode":"real|manual","time_scale":X}
 *   POST /_scalelab/clock   {"advance_ms":N} or {"advance_s":N} (manual clock only)
 *   POST /_scalelab/reset   drops every account's state
 *   POST /moto-api/reset    the same
 *   GET  /_scalelab/state   the whole state (every account+region's world) as JSON: the
 *                           same document --state FILE holds (persist.h persist_state_json)
 *   GET  /_scalelab/dataplane  instance processes (id, pid, port) and the listener port map
 *   POST /_scalelab/fault   {"instance_id":"i-..","fault":"kill|hang|resume|slow=K|
 *                           fail_health=0|1|error_rate=P"} (emulator/autoscale.h), or
 *                           {"zone":"us-east-1a","fault":"az_outage|az_recover","for_s":N}
 *                           (docs/dataplane.md) */
#include "emulator/admin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "emulator/autoscale.h"
#include "emulator/emu.h"
#include "emulator/persist.h"
#include "emulator/state.h"
#include "scaler/civil.h"

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

void admin_handle(struct emu *e, uint64_t requests, const struct dispatch_request *rq,
                  struct dispatch_response *rs)
{
    int get = strcmp(rq->method, "GET") == 0;
    int post = strcmp(rq->method, "POST") == 0;
    const char *p = rq->path;

    if (strcmp(p, "/_scalelab/health") == 0 && get) {
        json_t *o = clock_json(e);

        json_object_set_new(o, "status", json_string("ok"));
        json_object_set_new(o, "requests", json_integer((json_int_t)requests));
        if (emu_state(e)) {
            struct state_stats ss;

            state_get_stats(emu_state(e), &ss);
            json_object_set_new(
                o, "state",
                json_pack("{s:s,s:I,s:I,s:I,s:I,s:f,s:f,s:f}", "file", state_path(emu_state(e)),
                          "commits", (json_int_t)ss.commits, "snapshots", (json_int_t)ss.snapshots,
                          "tickets", (json_int_t)ss.tickets, "last_bytes",
                          (json_int_t)ss.last_bytes, "last_ms", ss.last_ms, "total_ms", ss.total_ms,
                          "loop_ms", ss.loop_ms));
        }
        reply(rs, 200, o);
        return;
    }
    if (strcmp(p, "/_scalelab/clock") == 0 && get) {
        reply(rs, 200, clock_json(e));
        return;
    }
    if (strcmp(p, "/_scalelab/clock") == 0 && post) {
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
        if (emu_clock_advance(e, (int64_t)adv) < 0) {
            error(rs, 409, "the clock is real; start the emulator with --clock manual to move it");
            return;
        }
        emu_step(e);
        rs->state_kind = STATE_SNAPSHOT; /* the manual clock is part of the state */
        reply(rs, 200, clock_json(e));
        return;
    }
    if ((strcmp(p, "/_scalelab/reset") == 0 || strcmp(p, "/moto-api/reset") == 0) && post) {
        emu_reset(e);
        rs->state_kind = STATE_SNAPSHOT;
        reply(rs, 200, json_pack("{s:s}", "status", "ok"));
        return;
    }
    if (strcmp(p, "/_scalelab/state") == 0 && get) {
        json_t *o = persist_state_json(e);

        if (o)
            reply(rs, 200, o);
        else
            error(rs, 500, "out of memory");
        return;
    }
    if (strcmp(p, "/_scalelab/dataplane") == 0 && get) {
        char *js = emu_autoscale(e) ? autoscale_status_json(emu_autoscale(e)) : NULL;
        json_t *o = js ? json_loads(js, 0, NULL) : NULL;

        free(js);
        if (o)
            reply(rs, 200, o);
        else
            error(rs, 501, "no real data plane (instances are records only)");
        return;
    }
    if (strcmp(p, "/_scalelab/fault") == 0 && post) {
        json_t *o = json_loadb(rq->body ? rq->body : "", rq->body_len, 0, NULL);

        if (json_is_string(json_object_get(o, "zone"))) {
            zone_fault(e, o, rs);
            json_decref(o);
            return;
        }
        const char *id = json_string_value(json_object_get(o, "instance_id"));
        const char *what = json_string_value(json_object_get(o, "fault"));
        char err[256];

        if (!id || !what)
            error(
                rs, 400,
                "expected {\"instance_id\": \"i-...\", \"fault\": \"kill|hang|resume|slow=K|fail_health=0|1|error_rate=P\"}");
        else if (!emu_autoscale(e))
            error(rs, 501, "no real data plane (instances are records only)");
        else if (emu_instance_fault(e, id, what, err, sizeof(err)) < 0)
            error(rs, 400, err);
        else
            reply(rs, 200,
                  json_pack("{s:s,s:s,s:s}", "status", "ok", "instance_id", id, "fault", what));
        json_decref(o);
        return;
    }
    error(rs, 404, "no such admin endpoint");
}
