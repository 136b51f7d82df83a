/* emulator/api_autoscaling_notify.c: Put/Delete/DescribeNotificationConfiguration(s) (see
 * api_autoscaling_notify.h). IR in -> one sc_asg call -> IR out; every rule and message is
 * the library's (docs/autoscaling.md section 9). */
#include "emulator/api_autoscaling_notify.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/asg.h"
#include "scaler/asg_notify.h"
#include "scaler/world.h"

static int done(struct awserr *err, const struct sc_error *se, enum sc_status st)
{
    return st == SC_OK ? 0 : awserr_from_sc(err, se);
}

struct sc_asg_filter *api_asg_filters(json_t *in, int *n)
{
    json_t *a = json_object_get(in, "Filters"), *f;
    struct sc_asg_filter *out;
    size_t i;

    *n = 0;
    if (!json_is_array(a) || json_array_size(a) == 0)
        return NULL;
    out = cm_xcalloc(json_array_size(a), sizeof(*out));
    json_array_foreach(a, i, f)
    {
        out[*n].name = api_str(f, "Name");
        out[*n].values = api_strings(f, "Values", &out[*n].nvalues);
        (*n)++;
    }
    return out;
}

void api_asg_filters_free(struct sc_asg_filter *f, int n)
{
    for (int i = 0; i < n; i++)
        free((void *)f[i].values);
    free(f);
}

static int put_notification_configuration(struct api_ctx *ctx, json_t *in, json_t **out,
                                          struct awserr *err)
{
    struct sc_error se = { 0 };
    int n;
    const char **types = api_strings(in, "NotificationTypes", &n);
    enum sc_status st;

    *out = NULL;
    st = sc_asg_put_notification_configuration(sc_world_asg(ctx->world),
                                               api_str(in, "AutoScalingGroupName"),
                                               api_str(in, "TopicARN"), types, n, ctx->now_ms, &se);
    free(types);
    return done(err, &se, st);
}

static int delete_notification_configuration(struct api_ctx *ctx, json_t *in, json_t **out,
                                             struct awserr *err)
{
    struct sc_error se = { 0 };

    *out = NULL;
    return done(err, &se,
                sc_asg_delete_notification_configuration(
                    sc_world_asg(ctx->world), api_str(in, "AutoScalingGroupName"),
                    api_str(in, "TopicARN"), ctx->now_ms, &se));
}

static int named(const char **names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return 1;
    return 0;
}

/* One item per (group, topic, type): groups by name, topics by ARN, types in
 * DescribeAutoScalingNotificationTypes' order (9.1). */
static int describe_notification_configurations(struct api_ctx *ctx, json_t *in, json_t **out,
                                                struct awserr *err)
{
    struct sc_asg *asg = sc_world_asg(ctx->world);
    int nn;
    const char **names = api_strings(in, "AutoScalingGroupNames", &nn);
    json_t *items = json_array();

    for (int i = 0; i < sc_asg_group_count(asg); i++) {
        const char *g = sc_asg_group_at(asg, i)->auto_scaling_group_name;
        int nc = sc_asg_notification_config_count(asg, g);

        if (nn > 0 && !named(names, nn, g))
            continue;
        for (int k = 0; k < nc; k++) {
            const struct sc_asg_notify_info *c = sc_asg_notification_config_at(asg, g, k);

            for (int t = 0; t < SC_ASG_NOTIFY_TYPE_COUNT; t++)
                if (c->types & (1u << t))
                    json_array_append_new(items,
                                          json_pack("{s:s,s:s,s:s}", "AutoScalingGroupName", g,
                                                    "TopicARN", c->topic_arn, "NotificationType",
                                                    sc_asg_notify_type_str(t)));
        }
    }
    free(names);
    *out = json_object();
    return api_page(items, in, "NextToken", "MaxRecords", 50, 100, *out,
                    "NotificationConfigurations", "NextToken", err);
}

const struct api_handler api_autoscaling_notify_handlers[] = {
    { "DeleteNotificationConfiguration", delete_notification_configuration, API_MUTATES },
    { "DescribeNotificationConfigurations", describe_notification_configurations, 0 },
    { "PutNotificationConfiguration", put_notification_configuration, API_MUTATES },
    { NULL, NULL, 0 },
};
