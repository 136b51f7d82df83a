/* scaler/dashboard.h: CloudWatch dashboards of one account+region (docs/cloudwatch.md
 * "Dashboards"): the store behind Put/Get/List/DeleteDashboards and the DashboardBody
 * checks with AWS's DashboardValidationMessages. Bodies are kept byte for byte as put.
 * Strings in views are borrowed until the next mutating call. */
#ifndef SCALER_DASHBOARD_H
#define SCALER_DASHBOARD_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "scaler/status.h"

#define SC_DASHBOARD_MAX_MESSAGES 32 /* validation messages kept per check */

struct sc_dashboard_message {
    char data_path[128]; /* "/widgets/0/type", "" for the body */
    char message[160];
};

/* The messages of one body check. */
struct sc_dashboard_check {
    struct sc_dashboard_message msg[SC_DASHBOARD_MAX_MESSAGES];
    int n;     /* kept */
    int total; /* found (may exceed n) */
};

/* Checks body as PutDashboard does (never allocates past Jansson's parse). Returns the
 * number of errors found (0: valid); out (may be NULL) gets the messages. */
int sc_dashboard_body_check(const char *body, struct sc_dashboard_check *out);

struct sc_dashboard_view {
    const char *name;
    const char *arn; /* arn:aws:cloudwatch::<account>:dashboard/<name> */
    const char *body;
    int64_t last_modified_ms;
    int64_t size; /* bytes of body */
};
typedef int (*sc_dashboard_visit_fn)(const struct sc_dashboard_view *d, void *ud);

struct sc_dashboards; /* opaque */

/* account and region are copied (NULL: "123456789012", "us-east-1"). NULL on OOM. */
struct sc_dashboards *sc_dashboards_create(const char *account, const char *region);
void sc_dashboards_destroy(struct sc_dashboards *d); /* NULL is a no-op */

/* PutDashboard: creates or replaces. A body with errors answers InvalidParameterInput
 * ("The dashboard body is invalid, there are N validation errors: [...]") and check (may
 * be NULL) holds the messages; nothing stored changes. */
enum sc_status sc_dashboards_put(struct sc_dashboards *d, const char *name, const char *body,
                                 int64_t now_ms, struct sc_dashboard_check *check,
                                 struct sc_error *err);
/* GetDashboard: ResourceNotFound (404) for a missing one. */
enum sc_status sc_dashboards_get(const struct sc_dashboards *d, const char *name,
                                 const struct sc_dashboard_view **out, struct sc_error *err);
/* ListDashboards: name order, prefix NULL = all. */
enum sc_status sc_dashboards_list(const struct sc_dashboards *d, const char *prefix,
                                  sc_dashboard_visit_fn fn, void *ud, struct sc_error *err);
/* DeleteDashboards: all or nothing; ResourceNotFound naming the missing ones. */
enum sc_status sc_dashboards_delete(struct sc_dashboards *d, const char *const *names, int n,
                                    struct sc_error *err);
int sc_dashboards_count(const struct sc_dashboards *d);

/* The state file: every dashboard (name, body, last modified). New reference, NULL on OOM. */
json_t *sc_dashboards_save(const struct sc_dashboards *d);
/* Replaces d's dashboards with j's (borrowed; NULL = none); on error d is unchanged. */
enum sc_status sc_dashboards_load(struct sc_dashboards *d, const json_t *j, struct sc_error *err);

#endif
