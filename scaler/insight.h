/* scaler/insight.h: CloudWatch Contributor Insights rules of one account+region
 * (docs/cloudwatch.md "Contributor Insights rules"): PutInsightRule with the rule
 * syntax's checks, Describe/Delete/Enable/DisableInsightRules, managed rules, and
 * GetInsightRuleReport's answer for a rule without log data; and DescribeAlarmContributors'
 * rule. No rule is evaluated: there are no CloudWatch Logs here.
 *
 * As scaler/metric_stream.h: requests are the operation's input (json_t, borrowed), answers
 * the output's shape (new references); records are kept as DescribeInsightRules shows them. */
#ifndef SCALER_INSIGHT_H
#define SCALER_INSIGHT_H

#include <stdint.h>

#include <jansson.h>

#include "scaler/status.h"

struct sc_alarms;
struct sc_insights; /* opaque */

/* NULL on OOM. */
struct sc_insights *sc_insights_create(void);
void sc_insights_destroy(struct sc_insights *s); /* NULL is a no-op */

/* Checks a RuleDefinition as PutInsightRule does; SC_OK or InvalidParameterValue. */
enum sc_status sc_insight_definition_check(const char *definition, struct sc_error *err);

/* PutInsightRule: creates or replaces (Tags kept from the creation). Nothing changes on an
 * error. */
enum sc_status sc_insights_put(struct sc_insights *s, const json_t *req, struct sc_error *err);
/* DescribeInsightRules' InsightRules in name order, a new reference. */
json_t *sc_insights_describe(const struct sc_insights *s);

enum sc_insight_op {
    SC_INSIGHT_DELETE = 0,
    SC_INSIGHT_ENABLE,
    SC_INSIGHT_DISABLE,
};
/* Delete/Enable/DisableInsightRules: acts on the known names; returns the Failures
 * (PartialFailure list) for the others, a new reference. */
json_t *sc_insights_batch(struct sc_insights *s, const char *const *names, int n,
                          enum sc_insight_op op);
/* PutManagedInsightRules' Failures for ManagedRules (borrowed), a new reference. */
json_t *sc_insights_put_managed(struct sc_insights *s, const json_t *managed_rules);
/* ListManagedInsightRules' ManagedRules for resource_arn, a new reference. */
json_t *sc_insights_list_managed(const struct sc_insights *s, const char *resource_arn);
/* GetInsightRuleReport: ResourceNotFoundException for a missing rule; *out the report. */
enum sc_status sc_insights_report(const struct sc_insights *s, const json_t *req, json_t **out,
                                  struct sc_error *err);
int sc_insights_count(const struct sc_insights *s);
/* The rule named name, as kept (its "Tags" beside; borrowed, for TagResource), or NULL. */
json_t *sc_insights_rule(struct sc_insights *s, const char *name);

/* DescribeAlarmContributors: ResourceNotFoundException when no metric or composite alarm
 * is named name; otherwise SC_OK (no alarm here has contributors: see the docs). */
enum sc_status sc_alarm_contributors_check(const struct sc_alarms *a, const char *name,
                                           struct sc_error *err);

/* The state file: the rules, a list. New reference, NULL on OOM. */
json_t *sc_insights_save(const struct sc_insights *s);
/* Replaces s's rules with j's (borrowed; NULL = none); on error s is unchanged. */
enum sc_status sc_insights_load(struct sc_insights *s, const json_t *j, struct sc_error *err);

#endif
