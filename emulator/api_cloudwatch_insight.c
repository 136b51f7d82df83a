/* emulator/api_cloudwatch_insight.c: Contributor Insights rules and
 * DescribeAlarmContributors over scaler/insight.h (docs/cloudwatch.md "Contributor Insights
 * rules"). IR in -> one libscaler call -> IR out. */
#include "emulator/api_cloudwatch_ext.h"

#include <stdlib.h>

#include "scaler/cloudwatch.h"
#include "scaler/world.h"

static struct sc_insights *insights(struct api_ctx *ctx)
{
    return sc_cw_insights(sc_world_cw(ctx->world));
}

static int put_insight_rule(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se;

    *out = NULL;
    if (sc_insights_put(insights(ctx), in, &se) != SC_OK)
        return awserr_from_sc(err, &se);
    return 0;
}

static int describe_insight_rules(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    json_t *o = json_object();

    if (api_page(sc_insights_describe(insights(ctx)), in, "NextToken", "MaxResults", 500, 500, o,
                 "InsightRules", "NextToken", err) != 0) {
        json_decref(o);
        return -1;
    }
    *out = o;
    return 0;
}

static int batch(struct api_ctx *ctx, json_t *in, json_t **out, enum sc_insight_op op)
{
    int n;
    const char **names = api_strings(in, "RuleNames", &n);

    *out = json_pack("{s:o}", "Failures", sc_insights_batch(insights(ctx), names, n, op));
    free(names);
    return 0;
}

static int delete_insight_rules(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    (void)err;
    return batch(ctx, in, out, SC_INSIGHT_DELETE);
}

static int enable_insight_rules(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    (void)err;
    return batch(ctx, in, out, SC_INSIGHT_ENABLE);
}

static int disable_insight_rules(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    (void)err;
    return batch(ctx, in, out, SC_INSIGHT_DISABLE);
}

static int put_managed_insight_rules(struct api_ctx *ctx, json_t *in, json_t **out,
                                     struct awserr *err)
{
    (void)err;
    *out = json_pack("{s:o}", "Failures",
                     sc_insights_put_managed(insights(ctx), json_object_get(in, "ManagedRules")));
    return 0;
}

static int list_managed_insight_rules(struct api_ctx *ctx, json_t *in, json_t **out,
                                      struct awserr *err)
{
    json_t *o = json_object();

    if (api_page(sc_insights_list_managed(insights(ctx), api_str(in, "ResourceARN")), in,
                 "NextToken", "MaxResults", 100, 500, o, "ManagedRules", "NextToken", err) != 0) {
        json_decref(o);
        return -1;
    }
    *out = o;
    return 0;
}

static int get_insight_rule_report(struct api_ctx *ctx, json_t *in, json_t **out,
                                   struct awserr *err)
{
    struct sc_error se;

    if (sc_insights_report(insights(ctx), in, out, &se) != SC_OK)
        return awserr_from_sc(err, &se);
    return 0;
}

static int describe_alarm_contributors(struct api_ctx *ctx, json_t *in, json_t **out,
                                       struct awserr *err)
{
    struct sc_error se;

    if (sc_alarm_contributors_check(sc_cw_alarms(sc_world_cw(ctx->world)), api_str(in, "AlarmName"),
                                    &se) != SC_OK)
        return awserr_from_sc(err, &se);
    if (api_str(in, "NextToken"))
        return awserr_set(err, 400, "InvalidNextToken", "The token '%.100s' is invalid.",
                          api_str(in, "NextToken"));
    *out = json_pack("{s:[]}", "AlarmContributors");
    return 0;
}

const struct api_handler api_cloudwatch_insight_handlers[] = {
    { "DeleteInsightRules", delete_insight_rules, API_MUTATES },
    { "DescribeAlarmContributors", describe_alarm_contributors, 0 },
    { "DescribeInsightRules", describe_insight_rules, 0 },
    { "DisableInsightRules", disable_insight_rules, API_MUTATES },
    { "EnableInsightRules", enable_insight_rules, API_MUTATES },
    { "GetInsightRuleReport", get_insight_rule_report, 0 },
    { "ListManagedInsightRules", list_managed_insight_rules, 0 },
    { "PutInsightRule", put_insight_rule, API_MUTATES },
    { "PutManagedInsightRules", put_managed_insight_rules, API_MUTATES },
    { NULL, NULL, 0 },
};
