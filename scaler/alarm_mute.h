/* scaler/alarm_mute.h: CloudWatch alarm mute rules (docs/cloudwatch.md "Alarm mute
 * rules"): Put/Get/List/DeleteAlarmMuteRule and the rule "while a rule naming the alarm
 * is ACTIVE, its actions are muted", which alarm_eval.c and alarm_composite.c apply before
 * running any action. Rules live in struct sc_alarms (scaler/alarm.h). Status is computed
 * at the time passed in. Views are borrowed until the next mutating call. */
#ifndef SCALER_ALARM_MUTE_H
#define SCALER_ALARM_MUTE_H

#include <stdint.h>

#include "scaler/alarm.h"
#include "scaler/status.h"

struct sc_put_alarm_mute_rule_req {
    const char *name;
    const char *description;
    const char *expression; /* cron(m h dom mon dow) or at(yyyy-mm-ddThh:mm) */
    const char *duration;   /* ISO 8601, PT1M .. P15D */
    const char *timezone;   /* NULL = UTC */
    const char *const *alarm_names;
    int n_alarm_names;
    const struct sc_tag *tags; /* taken on create */
    int n_tags;
    int has_start_date;
    int64_t start_date_ms;
    int has_expire_date;
    int64_t expire_date_ms;
};

struct sc_alarm_mute_rule_view {
    const char *name;
    const char *arn;
    const char *description; /* NULL when unset */
    const char *expression;
    const char *duration;
    const char *timezone; /* NULL when unset */
    const char *const *alarm_names;
    int n_alarm_names;
    int has_start_date;
    int64_t start_date_ms;
    int has_expire_date;
    int64_t expire_date_ms;
    const char *status;    /* "SCHEDULED", "ACTIVE", "EXPIRED" at the time asked */
    const char *mute_type; /* "RECURRING" or "ONE_TIME" */
    int64_t last_updated_ms;
};
typedef int (*sc_alarm_mute_rule_visit_fn)(const struct sc_alarm_mute_rule_view *r, void *ud);

/* The zone database the world has (sc_world_config.tz_offset); NULL: only UTC. */
void sc_alarms_set_tz(struct sc_alarms *a,
                      int (*tz_offset)(void *ud, const char *zone, int64_t utc_ms, int *offset_s),
                      void *ud);

enum sc_status sc_alarms_put_mute_rule(struct sc_alarms *a,
                                       const struct sc_put_alarm_mute_rule_req *req, int64_t now_ms,
                                       struct sc_error *err);
/* ResourceNotFoundException (404) for a missing rule. */
enum sc_status sc_alarms_get_mute_rule(struct sc_alarms *a, const char *name, int64_t now_ms,
                                       const struct sc_alarm_mute_rule_view **out,
                                       struct sc_error *err);
/* alarm_name (NULL = any) and statuses (n = 0: any) filter; name order. */
enum sc_status sc_alarms_list_mute_rules(struct sc_alarms *a, const char *alarm_name,
                                         const char *const *statuses, int n, int64_t now_ms,
                                         sc_alarm_mute_rule_visit_fn fn, void *ud,
                                         struct sc_error *err);
/* A missing name is no error. */
enum sc_status sc_alarms_delete_mute_rule(struct sc_alarms *a, const char *name,
                                          struct sc_error *err);
/* 1 when an ACTIVE rule names the alarm at now_ms: its actions do not run. */
int sc_alarms_is_muted(const struct sc_alarms *a, const char *alarm_name, int64_t now_ms);
int sc_alarms_mute_rule_count(const struct sc_alarms *a);

#endif
