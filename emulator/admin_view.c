/* emulator/admin_view.c: see admin_view.h. */
#include "emulator/admin_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "emulator/autoscale.h"
#include "emulator/emu.h"
#include "emulator/events.h"
#include "scaler/alarm.h"
#include "scaler/asg.h"
#include "scaler/asg_warm.h"
#include "scaler/civil.h"
#include "scaler/cloudwatch.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "scaler/elbv2.h"
#include "scaler/world.h"

#define RECENT_ACTIVITIES 8

static int member_is(json_t *o, const char *key, const char *s);

/* The data plane's document (autoscale_status_json), or NULL without one. */
static json_t *dataplane_json(struct emu *e)
{
    char *js = emu_autoscale(e) ? autoscale_status_json(emu_autoscale(e)) : NULL;
    json_t *o = js ? json_loads(js, 0, NULL) : NULL;

    free(js);
    return o;
}

/* The data plane's member for instance id (borrowed), or NULL. */
static json_t *process_of(json_t *dp, const char *id)
{
    size_t i;
    json_t *p;

    json_array_foreach(json_object_get(dp, "instances"), i, p)
    {
        const char *pid = json_string_value(json_object_get(p, "id"));

        if (pid && strcmp(pid, id) == 0)
            return p;
    }
    return NULL;
}

/* The real port of load balancer lb's listener on lb_port, or 0. */
static int listener_port(json_t *dp, const char *lb, int lb_port)
{
    size_t i;
    json_t *l;

    json_array_foreach(json_object_get(dp, "listeners"), i, l)
    {
        const char *name = json_string_value(json_object_get(l, "load_balancer"));

        if (name && strcmp(name, lb) == 0 &&
            json_integer_value(json_object_get(l, "load_balancer_port")) == lb_port)
            return (int)json_integer_value(json_object_get(l, "port"));
    }
    return 0;
}

/* ---- overview ---------------------------------------------------------------------------- */

/* The data plane's traffic for target id (and, for an ELBv2 target group, tg and port)
 * summed over listeners (classic: those of load balancer lb): request_rate, latency_ms
 * (the window's mean, weighted by the listeners' rates), responses, errors_5xx; set on o.
 * Nothing is set without a data plane. */
static void traffic_into(json_t *o, json_t *dp, const char *which, const char *lb, const char *tg,
                         const char *id, int port)
{
    double rate = 0, lat_w = 0;
    json_int_t responses = 0, errors = 0;
    int found = 0;
    size_t i, k;
    json_t *l, *t;

    if (!dp)
        return;
    json_array_foreach(json_object_get(dp, which), i, l)
    {
        if (lb && !member_is(l, "load_balancer", lb))
            continue;
        json_array_foreach(json_object_get(l, "targets"), k, t)
        {
            double r;

            if (!member_is(t, "id", id) ||
                (tg && (!member_is(t, "target_group_arn", tg) ||
                        json_integer_value(json_object_get(t, "port")) != port)))
                continue;
            found = 1;
            r = json_number_value(json_object_get(t, "request_rate"));
            rate += r;
            lat_w += r * json_number_value(json_object_get(t, "latency_ms"));
            responses += json_integer_value(json_object_get(t, "responses"));
            errors += json_integer_value(json_object_get(t, "errors_5xx"));
        }
    }
    if (!found)
        return;
    json_object_set_new(o, "request_rate", json_real(round(rate * 1000.0) / 1000.0));
    json_object_set_new(o, "latency_ms",
                        json_real(rate > 0 ? round(lat_w / rate * 1000.0) / 1000.0 : 0.0));
    json_object_set_new(o, "responses", json_integer(responses));
    json_object_set_new(o, "errors_5xx", json_integer(errors));
}

static json_t *load_balancers_json(struct sc_world *w, json_t *dp)
{
    struct sc_elb *elb = sc_world_elb(w);
    json_t *arr = json_array();

    for (int i = 0; i < sc_elb_lb_count(elb); i++) {
        const struct sc_elb_lb *lb = sc_elb_lb_at(elb, i);
        json_t *ls = json_array(), *hs = json_array();
        int nt = sc_elb_target_count(elb, lb->load_balancer_name), nout = 0;
        struct sc_elb_instance_health *h = NULL;

        for (int k = 0; k < lb->nlisteners; k++) {
            const struct sc_elb_listener *l = &lb->listeners[k];

            json_array_append_new(
                ls, json_pack("{s:s,s:i,s:i,s:i}", "protocol", l->protocol, "load_balancer_port",
                              l->load_balancer_port, "instance_port", l->instance_port, "port",
                              listener_port(dp, lb->load_balancer_name, l->load_balancer_port)));
        }
        if (nt > 0) {
            h = calloc((size_t)nt, sizeof(*h));
            if (h && sc_elb_describe_instance_health(elb, lb->load_balancer_name, NULL, 0, h, &nout,
                                                     NULL) != SC_OK)
                nout = 0;
        }
        for (int k = 0; h && k < nout; k++) {
            json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "instance_id", h[k].instance_id, "state",
                                  h[k].state_name, "reason_code", h[k].reason_code, "description",
                                  h[k].description);

            traffic_into(o, dp, "listeners", lb->load_balancer_name, NULL, h[k].instance_id, 0);
            json_array_append_new(hs, o);
        }
        free(h);
        json_array_append_new(arr, json_pack("{s:s,s:s,s:o,s:o}", "name", lb->load_balancer_name,
                                             "dns_name", lb->dns_name, "listeners", ls, "instances",
                                             hs));
    }
    return arr;
}

/* ELBv2 target groups: each with its load balancers' names, health check, and targets
 * (DescribeTargetHealth's state, reason and description) with their traffic. */
static json_t *target_groups_json(struct sc_world *w, json_t *dp)
{
    struct sc_elbv2 *v2 = sc_world_elbv2(w);
    json_t *arr = json_array();

    for (int g = 0; g < sc_elbv2_tg_count(v2); g++) {
        const struct sc_elbv2_tg *tg = sc_elbv2_tg_at(v2, g);
        int n = sc_elbv2_target_count(v2, tg->arn), nout = 0;
        struct sc_elbv2_target_health *h = n > 0 ? calloc((size_t)n, sizeof(*h)) : NULL;
        json_t *lbs = json_array(), *ts = json_array();

        for (int k = 0; k < tg->nload_balancer_arns; k++) {
            const struct sc_elbv2_lb *lb = sc_elbv2_lb_find(v2, tg->load_balancer_arns[k]);

            if (lb)
                json_array_append_new(lbs, json_string(lb->name));
        }
        if (h && sc_elbv2_describe_target_health(v2, tg->arn, NULL, 0, h, &nout, NULL) != SC_OK)
            nout = 0;
        for (int k = 0; h && k < nout && k < n; k++) {
            const char *st = sc_elbv2_target_state_name(h[k].state);
            json_t *o = json_pack("{s:s,s:i,s:s,s:s?,s:s,s:s?}", "id", h[k].id, "port", h[k].port,
                                  "state", st ? st : "unknown", "reason", h[k].reason,
                                  "description", h[k].description, "zone", h[k].availability_zone);

            traffic_into(o, dp, "alb_listeners", NULL, tg->arn, h[k].id, h[k].port);
            json_array_append_new(ts, o);
        }
        free(h);
        json_array_append_new(arr, json_pack("{s:s,s:s,s:s?,s:i,s:o,s:o}", "name", tg->name, "arn",
                                             tg->arn, "protocol", tg->protocol, "port", tg->port,
                                             "load_balancers", lbs, "targets", ts));
    }
    return arr;
}

/* The state of instance id on load balancer lb in lbs (load_balancers_json), or NULL. */
static const char *lb_state(json_t *lbs, const char *lb, const char *id)
{
    size_t i, k;
    json_t *l, *h;

    json_array_foreach(lbs, i, l)
    {
        if (strcmp(json_string_value(json_object_get(l, "name")), lb) != 0)
            continue;
        json_array_foreach(json_object_get(l, "instances"), k, h)
        {
            if (strcmp(json_string_value(json_object_get(h, "instance_id")), id) == 0)
                return json_string_value(json_object_get(h, "state"));
        }
    }
    return NULL;
}

static json_t *activities_json(const struct sc_asg *asg, const char *group)
{
    json_t *arr = json_array();
    int n = sc_asg_activity_count(asg, group);

    for (int i = 0; i < n && i < RECENT_ACTIVITIES; i++) {
        const struct sc_asg_activity_info *a = sc_asg_activity_at(asg, group, i);
        char start[40];

        sc_civil_format_iso_ms(a->start_ms, start, sizeof(start));
        json_array_append_new(arr,
                              json_pack("{s:s,s:s,s:s,s:s,s:s?}", "description", a->description,
                                        "cause", a->cause, "status", a->status_code, "start", start,
                                        "status_message", a->status_message));
    }
    return arr;
}

/* The group's warm pool as the console draws it (DescribeWarmPool's figures), or null. */
static json_t *warm_json(const struct sc_asg_group_info *gi)
{
    const struct sc_asg_warm_info *w = sc_asg_warm_pool(gi);

    if (!w)
        return json_null();
    return json_pack("{s:s,s:i,s:i,s:i,s:b}", "pool_state", sc_asg_pool_state_str(w->pool_state),
                     "min_size", w->min_size, "max_group_prepared_capacity",
                     w->has_max_group_prepared_capacity ? w->max_group_prepared_capacity : -1,
                     "size", sc_asg_warm_pool_size(gi), "pending_delete", w->pending_delete);
}

static json_t *groups_json(struct sc_world *w, json_t *dp, json_t *lbs)
{
    struct sc_asg *asg = sc_world_asg(w);
    json_t *arr = json_array();

    for (int g = 0; g < sc_asg_group_count(asg); g++) {
        const struct sc_asg_group_info *gi = sc_asg_group_at(asg, g);
        json_t *ins = json_array(), *names = json_array();

        for (int k = 0; k < gi->nload_balancer_names; k++)
            json_array_append_new(names, json_string(gi->load_balancer_names[k]));
        for (int i = 0; i < sc_asg_group_instance_count(gi); i++) {
            const struct sc_asg_instance_info *in = sc_asg_group_instance_at(gi, i);
            json_t *p = process_of(dp, in->instance_id);
            json_t *o =
                json_pack("{s:s,s:s,s:s,s:s}", "id", in->instance_id, "zone", in->availability_zone,
                          "lifecycle_state", sc_asg_lifecycle_str(in->lifecycle_state), "health",
                          sc_asg_health_str(in->healthy));
            json_t *lbo = json_object();

            for (int k = 0; k < gi->nload_balancer_names; k++) {
                const char *st = lb_state(lbs, gi->load_balancer_names[k], in->instance_id);

                if (st)
                    json_object_set_new(lbo, gi->load_balancer_names[k], json_string(st));
            }
            json_object_set_new(o, "load_balancers", lbo);
            if (p) {
                json_object_set(o, "pid", json_object_get(p, "pid"));
                json_object_set(o, "port", json_object_get(p, "port"));
                json_object_set(o, "process", json_object_get(p, "state"));
            }
            json_array_append_new(ins, o);
        }
        json_array_append_new(
            arr, json_pack("{s:s,s:i,s:i,s:i,s:s,s:o,s:o,s:o,s:o}", "name",
                           gi->auto_scaling_group_name, "min", gi->min_size, "desired",
                           gi->desired_capacity, "max", gi->max_size, "health_check_type",
                           gi->health_check_type, "load_balancers", names, "instances", ins,
                           "activities", activities_json(asg, gi->auto_scaling_group_name),
                           "warm_pool", warm_json(gi)));
    }
    return arr;
}

static int visit_alarm(const struct sc_alarm_view *a, void *ud)
{
    json_t *arr = ud, *recent = json_array(), *dims = json_object();

    for (int i = 0; i < a->n_recent_values; i++)
        json_array_append_new(recent, json_real(a->recent_values[i]));
    for (int i = 0; i < a->n_dimensions; i++)
        json_object_set_new(dims, a->dimensions[i].name, json_string(a->dimensions[i].value));
    json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s?,s:o,s:s,s:f,s:i,s:i,s:o}",
                                         "name", a->alarm_name, "state", a->state_value, "reason",
                                         a->state_reason, "namespace", a->namespace, "metric",
                                         a->metric_name, "statistic", a->statistic, "dimensions",
                                         dims, "comparison", a->comparison_operator, "threshold",
                                         a->threshold, "period", a->period, "evaluation_periods",
                                         a->evaluation_periods, "recent", recent));
    return 0;
}

/* o[key] is the string s. */
static int member_is(json_t *o, const char *key, const char *s)
{
    const char *v = json_string_value(json_object_get(o, key));

    return v && strcmp(v, s) == 0;
}

/* The world's zones with their state ("impaired" while an az_outage holds it) and, when
 * the outage has an end, its until_ms from the data plane's zones_down. */
static json_t *zones_json(struct sc_world *w, const char *account, json_t *dp)
{
    const struct sc_ec2 *ec2 = sc_world_ec2(w);
    json_t *arr = json_array();

    for (int i = 0; i < sc_ec2_zone_count(ec2); i++) {
        const struct sc_ec2_zone *z = sc_ec2_zone_at(ec2, i);
        json_t *o =
            json_pack("{s:s,s:s,s:s}", "name", z->zone_name, "id", z->zone_id, "state", z->state);
        size_t k;
        json_t *d;

        json_array_foreach(json_object_get(dp, "zones_down"), k, d)
        {
            json_t *until = json_object_get(d, "until_ms");

            if (json_is_integer(until) && json_integer_value(until) > 0 &&
                member_is(d, "zone", z->zone_name) && member_is(d, "account", account))
                json_object_set(o, "until_ms", until);
        }
        json_array_append_new(arr, o);
    }
    return arr;
}

json_t *admin_view_overview(struct emu *e)
{
    json_t *dp = dataplane_json(e);
    json_t *worlds = json_array();

    for (int i = 0; i < emu_world_count(e); i++) {
        const char *account, *region;
        struct sc_world *w = emu_world_at(e, i, &account, &region);
        struct sc_describe_alarms_req req;
        json_t *alarms = json_array();
        json_t *lbs = load_balancers_json(w, dp);

        memset(&req, 0, sizeof(req));
        sc_cw_describe_alarms(sc_world_cw(w), &req, visit_alarm, alarms, NULL);
        json_array_append_new(
            worlds, json_pack("{s:s,s:s,s:o,s:o,s:o,s:o,s:o}", "account", account, "region", region,
                              "zones", zones_json(w, account, dp), "groups",
                              groups_json(w, dp, lbs), "load_balancers", lbs, "target_groups",
                              target_groups_json(w, dp), "alarms", alarms));
    }
    json_decref(dp);
    return json_pack("{s:o,s:b,s:I}", "worlds", worlds, "data_plane", emu_autoscale(e) != NULL,
                     "events_seq", (json_int_t)events_last_seq(emu_events(e)));
}

/* ---- data plane -------------------------------------------------------------------------- */

void admin_view_dataplane(struct emu *e, json_t *dp)
{
    size_t i;
    json_t *p;

    json_array_foreach(json_object_get(dp, "instances"), i, p)
    {
        const char *id = json_string_value(json_object_get(p, "id"));

        for (int k = 0; id && k < emu_world_count(e); k++) {
            const char *account, *region;
            struct sc_world *w = emu_world_at(e, k, &account, &region);
            const struct sc_ec2_instance *in = sc_ec2_instance_find(sc_world_ec2(w), id);
            const struct sc_asg_instance_info *ai = NULL;
            const struct sc_asg_group_info *g;
            struct sc_elb *elb = sc_world_elb(w);
            json_t *lbs = json_array();

            if (!in)
                continue;
            g = sc_asg_instance_group(sc_world_asg(w), id, &ai);
            for (int l = 0; l < sc_elb_lb_count(elb); l++) {
                const struct sc_elb_lb *lb = sc_elb_lb_at(elb, l);

                for (int r = 0; r < lb->ninstances; r++) {
                    if (strcmp(lb->instances[r], id) == 0)
                        json_array_append_new(lbs, json_string(lb->load_balancer_name));
                }
            }
            json_object_set_new(p, "account", json_string(account));
            json_object_set_new(p, "region", json_string(region));
            json_object_set_new(p, "group",
                                g ? json_string(g->auto_scaling_group_name) : json_null());
            json_object_set_new(p, "load_balancers", lbs);
            json_object_set_new(p, "zone", json_string(in->availability_zone));
            json_object_set_new(p, "ec2_state", json_string(sc_ec2_state_name(in->state)));
            json_object_set_new(p, "lifecycle_state",
                                ai ? json_string(sc_asg_lifecycle_str(ai->lifecycle_state))
                                   : json_null());
            break;
        }
    }
}

/* ---- GET / for curl ----------------------------------------------------------------------- */

void admin_view_about(struct emu *e, const char *host, const char *region, const char *account,
                      struct cm_buf *out)
{
    char iso[40];
    json_t *dp = dataplane_json(e);
    size_t i;
    json_t *l;
    const char *h = host && *host ? host : "127.0.0.1:4566";

    sc_civil_format_iso_ms(emu_now_ms(e), iso, sizeof(iso));
    cm_buf_printf(out,
                  "scalelab emulator: a local AWS (EC2, Auto Scaling, classic ELB, CloudWatch) "
                  "for rehearsing autoscaling\n"
                  "endpoint: http://%s  (aws --endpoint-url http://%s ...)\n"
                  "region:   %s (default; a signed request's region is used when it names one)\n"
                  "account:  %s\n",
                  h, h, region, account);
    if (emu_clock_is_manual(e))
        cm_buf_printf(out, "clock:    %s, manual (POST /_scalelab/clock {\"advance_s\": N})\n",
                      iso);
    else
        cm_buf_printf(out, "clock:    %s, time scale %g (one real second is %g emulated)\n", iso,
                      emu_time_scale(e), emu_time_scale(e));
    cm_buf_printf(out, "worlds:   %d account+region(s)\n", emu_world_count(e));
    cm_buf_puts(out, "listeners:\n");
    cm_buf_printf(out, "  http://%s  AWS API, admin API, console\n", h);
    json_array_foreach(json_object_get(dp, "listeners"), i, l)
    {
        cm_buf_printf(out, "  127.0.0.1:%lld  load balancer %s, %s port %lld\n",
                      (long long)json_integer_value(json_object_get(l, "port")),
                      json_string_value(json_object_get(l, "load_balancer")),
                      json_string_value(json_object_get(l, "protocol")),
                      (long long)json_integer_value(json_object_get(l, "load_balancer_port")));
    }
    if (!dp)
        cm_buf_puts(out, "  (no data plane: instances are records only)\n");
    json_decref(dp);
    cm_buf_printf(out,
                  "console:  http://%s/ in a browser (or /_scalelab/ui)\n"
                  "events:   curl -N http://%s/_scalelab/events  (?format=jsonl for scripts)\n"
                  "admin:    http://%s/_scalelab/ lists the endpoints; docs/admin-api.md\n"
                  "docs:     docs/ in the scalelab tree (README.md, docs/admin-api.md)\n",
                  h, h, h);
}
