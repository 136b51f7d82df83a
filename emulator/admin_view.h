/* emulator/admin_view.h: the admin API's views that join the worlds' records (libscaler)
 * with the data plane's processes (emulator/autoscale.h): the console's overview, the
 * data plane listing with each instance's group, load balancers, zone and lifecycle
 * state, and the few lines GET / shows a non-browser. Reads only. Single-threaded: the
 * loop's thread. */
#ifndef EMULATOR_ADMIN_VIEW_H
#define EMULATOR_ADMIN_VIEW_H

#include "common/buf.h"

struct emu;
struct json_t;

/* A new JSON object: {"worlds": [{account, region, groups (min, desired, max, instances
 * with lifecycle, zone, health, per-load-balancer state, pid, port, process state, recent
 * activities), load_balancers (listeners with the real port, per-instance health),
 * alarms (state, reason, threshold, recent values)}], "events_seq"} (docs/admin-api.md). */
struct json_t *admin_view_overview(struct emu *e);
/* Adds to each member of dp's "instances" (autoscale_status_json's document, modified in
 * place) its account, region, group, load_balancers, zone and lifecycle_state. */
void admin_view_dataplane(struct emu *e, struct json_t *dp);
/* What GET / says to curl: what this is, region, account, clock, listeners, where the
 * admin API and the docs are; host is the request's Host (how the client reached us; NULL:
 * 127.0.0.1:4566). */
void admin_view_about(struct emu *e, const char *host, const char *region, const char *account,
                      struct cm_buf *out);

#endif
