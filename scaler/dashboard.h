/* scaler/dashboard.h: CloudWatch dashboards of one account (docs/cloudwatch.md
 * "Dashboards"): the store behind Put/Get/List/DeleteDashboards and the DashboardBody
 * checks with AWS's DashboardValidationMessages. AWS keeps dashboards per account, not per
 * region ("All dashboards in your account are global, not region-specific"): one store
 * serves every region of an account (in one partition), shared by its worlds
 * (sc_cw_config.dashboards). Bodies are kept byte for byte as put. Strings in views are
 * borrowed until the next mutating call. */
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

/* account and partition ("aws", "aws-cn", "aws-us-gov": sc_alarm_partition of a region)
 * are copied (NULL: "123456789012", "aws"). NULL on OOM. */
struct sc_dashboards *sc_dashboards_create(const char *account, const char *partition);
void sc_dashboards_destroy(struct sc_dashboards *d); /* NULL is a no-op */
/* The create call's account and partition (borrowed, live as long as d). */
const char *sc_dashboards_account(const struct sc_dashboards *d);
const char *sc_dashboards_partition(const struct sc_dashboards *d);

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

/* A name both sides of a merge hold (sc_dashboards_merge): which one stayed. name is
 * borrowed for the callback's duration. */
struct sc_dashboard_clash {
    const char *name;
    int kept_new;                /* 1: the merged one replaced d's; 0: d's stayed */
    int64_t kept_ms, dropped_ms; /* their LastModified */
};
typedef void (*sc_dashboard_clash_fn)(const struct sc_dashboard_clash *c, void *ud);

/* Adds j's dashboards (a list as sc_dashboards_save writes; borrowed; NULL = none) to d's,
 * as a state file of an older version is loaded: those were kept per account+region, so
 * two regions of one account may hold the same name. The rule for a name both hold: the
 * later LastModified stays, and on a tie the one d held already (the one met first); fn
 * (may be NULL) is told of each such name, in name order. j is checked whole first (as by
 * sc_dashboards_load): on error d is unchanged. */
enum sc_status sc_dashboards_merge(struct sc_dashboards *d, const json_t *j,
                                   sc_dashboard_clash_fn fn, void *ud, struct sc_error *err);

#endif
