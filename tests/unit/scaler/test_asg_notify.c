/* tests/unit/scaler/test_asg_notify.c: scaler/asg_notify.c and scaler/asg_filter.c against a
 * fake EC2: one test per rule of docs/autoscaling.md sections 9 and 10. */
#include "scaler/asg_notify.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <jansson.h>

#include "scaler/asg_filter.h"
#include "scaler/asg_internal.h"
#include "tests/unit/scaler/asg_fixture.h"

#define TOPIC "arn:aws:sns:us-east-1:123456789012:events"

static const char *const all_types[] = {
    "autoscaling:EC2_INSTANCE_LAUNCH",    "autoscaling:EC2_INSTANCE_LAUNCH_ERROR",
    "autoscaling:EC2_INSTANCE_TERMINATE", "autoscaling:EC2_INSTANCE_TERMINATE_ERROR",
    "autoscaling:TEST_NOTIFICATION",
};

static int setup(void **state)
{
    struct fx *x = fx_alloc();

    if (!x || !(x->asg = fx_asg(x)) || fx_group(x, "g", 0, 0) != SC_OK)
        return -1;
    *state = x;
    return 0;
}

static void put(struct fx *x, const char *topic, const char *const *types, int n)
{
    assert_int_equal(
        sc_asg_put_notification_configuration(x->asg, "g", topic, types, n, T0, &x->err), SC_OK);
}

static const char *member_id(struct fx *x, int i)
{
    const struct sc_asg_group_info *g = sc_asg_group_find(x->asg, "g");

    assert_true(i < sc_asg_group_instance_count(g));
    return sc_asg_group_instance_at(g, i)->instance_id;
}

/* The message of notification seq as JSON (decref it). */
static json_t *message(struct fx *x, uint64_t seq)
{
    const struct sc_asg_notification *n = sc_asg_notification_get(x->asg, seq);

    assert_non_null(n);
    return json_loads(n->message, 0, NULL);
}

/* The newest notification of type t after seq after, or NULL. */
static const struct sc_asg_notification *find(struct fx *x, uint64_t after, int t)
{
    for (uint64_t q = sc_asg_notification_last(x->asg); q > after; q--) {
        const struct sc_asg_notification *n = sc_asg_notification_get(x->asg, q);

        if (n && (int)n->type == t)
            return n;
    }
    return NULL;
}

static void test_asg_notify_put_sends_test_notification(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_notification *n;
    json_t *m;

    put(x, TOPIC, all_types, 1); /* EC2_INSTANCE_LAUNCH only: the test goes all the same */
    assert_int_equal(sc_asg_notification_last(x->asg), 1);
    n = sc_asg_notification_get(x->asg, 1);
    assert_int_equal(n->type, SC_ASG_NOTIFY_TEST);
    assert_string_equal(n->topic_arn, TOPIC);
    assert_string_equal(n->subject, "Auto Scaling: test notification for group \"g\"");
    m = message(x, 1);
    assert_int_equal(json_object_size(m), 7);
    assert_string_equal(json_string_value(json_object_get(m, "Event")),
                        "autoscaling:TEST_NOTIFICATION");
    assert_string_equal(json_string_value(json_object_get(m, "Service")), "AWS Auto Scaling");
    assert_string_equal(json_string_value(json_object_get(m, "AutoScalingGroupName")), "g");
    assert_string_equal(json_string_value(json_object_get(m, "Time")), "2026-01-01T00:00:00.000Z");
    assert_non_null(json_object_get(m, "RequestId"));
    json_decref(m);
}

static void test_asg_notify_put_overwrites_the_topics_types(void **state)
{
    struct fx *x = *state;

    put(x, TOPIC, all_types, 5);
    put(x, TOPIC, all_types + 2, 1);
    assert_int_equal(sc_asg_notification_config_count(x->asg, "g"), 1);
    assert_int_equal(sc_asg_notification_config_at(x->asg, "g", 0)->types,
                     1u << SC_ASG_NOTIFY_TERMINATE);
    put(x, "arn:aws:sns:us-east-1:123456789012:a-first", all_types, 1);
    assert_int_equal(sc_asg_notification_config_count(x->asg, "g"), 2);
    assert_string_equal(sc_asg_notification_config_at(x->asg, "g", 0)->topic_arn,
                        "arn:aws:sns:us-east-1:123456789012:a-first"); /* by ARN */
}

static void test_asg_notify_unknown_group_is_awss_text(void **state)
{
    struct fx *x = *state;

    assert_int_equal(
        sc_asg_put_notification_configuration(x->asg, "nope", TOPIC, all_types, 5, T0, &x->err),
        SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, "AutoScalingGroup name not found - null");
    assert_int_equal(sc_asg_delete_notification_configuration(x->asg, "nope", TOPIC, T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, "AutoScalingGroup name not found - null");
    assert_int_equal(sc_asg_notification_config_count(x->asg, "nope"), -1);
}

static void test_asg_notify_unknown_type_changes_nothing(void **state)
{
    struct fx *x = *state;
    const char *const bad[] = { "autoscaling:EC2_INSTANCE_LAUNCH", "autoscaling:REBOOT" };

    assert_int_equal(sc_asg_put_notification_configuration(x->asg, "g", TOPIC, bad, 2, T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_non_null(strstr(x->err.message, "autoscaling:REBOOT"));
    assert_int_equal(sc_asg_put_notification_configuration(x->asg, "g", TOPIC, bad, 0, T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_int_equal(sc_asg_notification_config_count(x->asg, "g"), 0);
    assert_int_equal(sc_asg_notification_last(x->asg), 0); /* no test notification either */
}

static void test_asg_notify_topic_arn_must_be_an_sns_topics(void **state)
{
    struct fx *x = *state;
    static const char *const bad[] = {
        "arn:aws:sqs:us-east-1:123456789012:q",
        "arn:aws:sns:us-east-1:12345:t",
        "arn:aws:sns:us-east-1:123456789012:",
        "arn:aws:sns:us-east-1:123456789012:a b",
        "sns-topic",
        "",
    };
    static const char *const good[] = {
        "arn:aws:sns:eu-west-2:123456789012:my_topic-1",
        "arn:aws-cn:sns:cn-north-1:123456789012:t.fifo",
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(
            sc_asg_put_notification_configuration(x->asg, "g", bad[i], all_types, 1, T0, &x->err),
            SC_ERR_VALIDATION);
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        put(x, good[i], all_types, 1);
    assert_int_equal(sc_asg_notification_config_count(x->asg, "g"), 2);
}

static void test_asg_notify_eleventh_topic_is_limit_exceeded(void **state)
{
    struct fx *x = *state;
    char t[128];

    for (int i = 0; i < SC_ASG_MAX_NOTIFY_TOPICS; i++) {
        snprintf(t, sizeof(t), "%s%d", TOPIC, i);
        put(x, t, all_types, 1);
    }
    put(x, t, all_types, 2); /* an update of one of them is no new topic */
    assert_int_equal(
        sc_asg_put_notification_configuration(x->asg, "g", TOPIC, all_types, 1, T0, &x->err),
        SC_ERR_LIMIT_EXCEEDED);
    assert_int_equal(sc_asg_notification_config_count(x->asg, "g"), SC_ASG_MAX_NOTIFY_TOPICS);
}

static void test_asg_notify_launch_is_sent_when_the_launch_activity_ends(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_notification *n;
    json_t *m;

    put(x, TOPIC, all_types, 5);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 1, 0, T0, &x->err), SC_OK);
    sc_asg_step(x->asg, T0 + SEC); /* launched, Pending: nothing yet */
    assert_null(find(x, 1, SC_ASG_NOTIFY_LAUNCH));
    settle(x, T0 + 2 * SEC); /* InService: the activity ends */
    n = find(x, 1, SC_ASG_NOTIFY_LAUNCH);
    assert_non_null(n);
    assert_string_equal(n->instance_id, member_id(x, 0));
    assert_string_equal(n->subject, "Auto Scaling: launch for group \"g\"");
    m = json_loads(n->message, 0, NULL);
    assert_int_equal(json_object_size(m), 19);
    assert_string_equal(json_string_value(json_object_get(m, "StatusCode")), "InProgress");
    assert_int_equal(json_integer_value(json_object_get(m, "Progress")), 50);
    assert_string_equal(json_string_value(json_object_get(m, "Origin")), "EC2");
    assert_string_equal(json_string_value(json_object_get(m, "Destination")), "AutoScalingGroup");
    assert_string_equal(json_string_value(json_object_get(m, "EC2InstanceId")), n->instance_id);
    assert_string_equal(json_string_value(json_object_get(m, "EndTime")),
                        json_string_value(json_object_get(m, "Time")));
    assert_true(json_is_object(json_object_get(m, "Details")));
    json_decref(m);
    /* once: later steps send it again to no one */
    settle(x, T0 + 3 * SEC);
    assert_ptr_equal(find(x, 1, SC_ASG_NOTIFY_LAUNCH), n);
}

static void test_asg_notify_terminate_is_sent_when_the_instance_is_gone(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_notification *n;
    uint64_t before;
    json_t *m;

    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 1, 0, T0, &x->err), SC_OK);
    settle(x, T0 + SEC);
    put(x, TOPIC, all_types + 2, 1);
    before = sc_asg_notification_last(x->asg);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 0, 0, T0 + 10 * SEC, &x->err), SC_OK);
    settle(x, T0 + 10 * SEC);
    n = find(x, before, SC_ASG_NOTIFY_TERMINATE);
    assert_non_null(n);
    assert_string_equal(n->subject, "Auto Scaling: termination for group \"g\"");
    m = json_loads(n->message, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(m, "Origin")), "AutoScalingGroup");
    assert_string_equal(json_string_value(json_object_get(m, "Destination")), "EC2");
    assert_non_null(strstr(json_string_value(json_object_get(m, "Description")),
                           "Terminating EC2 instance: i-"));
    json_decref(m);
}

static enum sc_status f_run_fail(void *ud, const struct sc_asg_launch_spec *s, int64_t now,
                                 char id[SC_ASG_ID_LEN], struct sc_error *err)
{
    (void)ud;
    (void)s;
    (void)now;
    (void)id;
    return sc_fail(err, SC_ERR_VALIDATION, "We currently do not have sufficient capacity.");
}

static void test_asg_notify_failed_launch_is_launch_error(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_notification *n;
    struct sc_asg_env env;
    json_t *m;

    sc_asg_destroy(x->asg);
    env = fx_env(x);
    env.run_instance = f_run_fail;
    x->asg = fx_asg_with(x, env);
    assert_int_equal(fx_group(x, "g", 0, 0), SC_OK);
    put(x, TOPIC, all_types, 5);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 1, 0, T0, &x->err), SC_OK);
    sc_asg_step(x->asg, T0 + SEC);
    n = find(x, 1, SC_ASG_NOTIFY_LAUNCH_ERROR);
    assert_non_null(n);
    assert_string_equal(n->instance_id, "");
    assert_string_equal(n->subject, "Auto Scaling: failed launch for group \"g\"");
    m = json_loads(n->message, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(m, "StatusCode")), "Failed");
    assert_int_equal(json_integer_value(json_object_get(m, "Progress")), 100);
    assert_string_equal(json_string_value(json_object_get(m, "StatusMessage")),
                        "We currently do not have sufficient capacity.");
    assert_string_equal(json_string_value(json_object_get(m, "EC2InstanceId")), "");
    json_decref(m);
}

static void test_asg_notify_only_the_configured_types_go(void **state)
{
    struct fx *x = *state;

    put(x, TOPIC, all_types + 2, 1); /* terminations only */
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 1, 0, T0, &x->err), SC_OK);
    settle(x, T0 + SEC);
    assert_int_equal(sc_asg_notification_last(x->asg), 1); /* the test notification */
}

static void test_asg_notify_activities_before_the_configuration_make_none(void **state)
{
    struct fx *x = *state;

    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 1, 0, T0, &x->err), SC_OK);
    settle(x, T0 + SEC);
    put(x, TOPIC, all_types, 5);
    settle(x, T0 + 2 * SEC);
    assert_int_equal(sc_asg_notification_last(x->asg), 1);
}

static void test_asg_notify_one_per_topic(void **state)
{
    struct fx *x = *state;

    put(x, TOPIC, all_types, 1);
    put(x, "arn:aws:sns:us-east-1:123456789012:other", all_types, 1);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 1, 0, T0, &x->err), SC_OK);
    settle(x, T0 + SEC);
    assert_int_equal(sc_asg_notification_last(x->asg), 4); /* 2 tests, 2 launches */
    assert_string_not_equal(sc_asg_notification_get(x->asg, 3)->topic_arn,
                            sc_asg_notification_get(x->asg, 4)->topic_arn);
}

static void test_asg_notify_delete_unknown_topic_is_validation_error(void **state)
{
    struct fx *x = *state;

    put(x, TOPIC, all_types, 1);
    assert_int_equal(sc_asg_delete_notification_configuration(
                         x->asg, "g", "arn:aws:sns:us-east-1:123456789012:x", T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_int_equal(sc_asg_notification_config_count(x->asg, "g"), 1);
    assert_int_equal(sc_asg_delete_notification_configuration(x->asg, "g", TOPIC, T0, &x->err),
                     SC_OK);
    assert_int_equal(sc_asg_notification_config_count(x->asg, "g"), 0);
}

static void test_asg_notify_log_keeps_the_newest(void **state)
{
    struct fx *x = *state;

    for (int i = 0; i < SC_ASG_NOTIFY_LOG_CAP + 10; i++)
        put(x, TOPIC, all_types, 1);
    assert_int_equal(sc_asg_notification_last(x->asg), SC_ASG_NOTIFY_LOG_CAP + 10);
    assert_null(sc_asg_notification_get(x->asg, 10));
    assert_non_null(sc_asg_notification_get(x->asg, 11));
}

static void test_asg_notify_configurations_are_saved(void **state)
{
    struct fx *x = *state;
    struct fx *y = fx_alloc();
    json_t *o;

    put(x, TOPIC, all_types, 3);
    o = sc_asg_save(x->asg);
    assert_non_null(o);
    y->asg = fx_asg(y);
    assert_int_equal(sc_asg_load(y->asg, o, &y->err), SC_OK);
    assert_int_equal(sc_asg_notification_config_count(y->asg, "g"), 1);
    assert_int_equal(sc_asg_notification_config_at(y->asg, "g", 0)->types, 7u);
    assert_int_equal(sc_asg_notification_last(y->asg), 0); /* what was sent is not sent again */
    json_decref(o);
    sc_asg_destroy(y->asg);
    free(y);
}

/* --- DescribeAutoScalingGroups Filters ----------------------------------------------------- */

static void tag(struct fx *x, const char *key, const char *value)
{
    struct sc_asg_tag_req t = { .resource_id = "g", .key = key, .value = value };

    assert_int_equal(sc_asg_create_or_update_tags(x->asg, &t, 1, T0, &x->err), SC_OK);
}

static int matches(struct fx *x, const struct sc_asg_filter *f, int n)
{
    return sc_asg_group_matches_filters(sc_asg_group_find(x->asg, "g"), f, n);
}

static void test_asg_filter_tag_key_tag_value_and_tag_colon_key(void **state)
{
    struct fx *x = *state;
    const char *const env[] = { "env" }, *const prod[] = { "prod" }, *const dev[] = { "dev" };
    struct sc_asg_filter key = { "tag-key", env, 1 }, value = { "tag-value", prod, 1 };
    struct sc_asg_filter kv = { "tag:env", prod, 1 }, kv_dev = { "tag:env", dev, 1 };

    tag(x, "env", "prod");
    assert_true(matches(x, &key, 1));
    assert_true(matches(x, &value, 1));
    assert_true(matches(x, &kv, 1));
    assert_false(matches(x, &kv_dev, 1));
    assert_true(matches(x, NULL, 0));
}

static void test_asg_filter_values_or_filters_and(void **state)
{
    struct fx *x = *state;
    const char *const either[] = { "dev", "prod" }, *const team[] = { "team" };
    struct sc_asg_filter f[2] = { { "tag:env", either, 2 }, { "tag-key", team, 1 } };

    tag(x, "env", "prod");
    assert_true(matches(x, f, 1));  /* one of the values */
    assert_false(matches(x, f, 2)); /* and no tag team */
    tag(x, "team", "blue");
    assert_true(matches(x, f, 2));
}

static void test_asg_filter_values_are_exact(void **state)
{
    struct fx *x = *state;
    const char *const v[] = { "Prod" }, *const w[] = { "pro*" };
    struct sc_asg_filter f[2] = { { "tag-value", v, 1 }, { "tag-value", w, 1 } };

    tag(x, "env", "prod");
    assert_false(matches(x, &f[0], 1)); /* case-sensitive */
    assert_false(matches(x, &f[1], 1)); /* no wildcards */
}

static void test_asg_filter_unknown_name_is_validation_error(void **state)
{
    struct fx *x = *state;
    struct sc_asg_filter bad[] = { { "instance-type", NULL, 0 } }, none[] = { { NULL, NULL, 0 } },
                         empty_key[] = { { "tag:", NULL, 0 } };

    assert_int_equal(sc_asg_filters_check(bad, 1, &x->err), SC_ERR_VALIDATION);
    assert_non_null(strstr(x->err.message, "instance-type"));
    assert_int_equal(sc_asg_filters_check(none, 1, &x->err), SC_ERR_VALIDATION);
    assert_int_equal(sc_asg_filters_check(empty_key, 1, &x->err), SC_ERR_VALIDATION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, fx_teardown)
        T(test_asg_notify_put_sends_test_notification),
        T(test_asg_notify_put_overwrites_the_topics_types),
        T(test_asg_notify_unknown_group_is_awss_text),
        T(test_asg_notify_unknown_type_changes_nothing),
        T(test_asg_notify_topic_arn_must_be_an_sns_topics),
        T(test_asg_notify_eleventh_topic_is_limit_exceeded),
        T(test_asg_notify_launch_is_sent_when_the_launch_activity_ends),
        T(test_asg_notify_terminate_is_sent_when_the_instance_is_gone),
        T(test_asg_notify_failed_launch_is_launch_error),
        T(test_asg_notify_only_the_configured_types_go),
        T(test_asg_notify_activities_before_the_configuration_make_none),
        T(test_asg_notify_one_per_topic),
        T(test_asg_notify_delete_unknown_topic_is_validation_error),
        T(test_asg_notify_log_keeps_the_newest),
        T(test_asg_notify_configurations_are_saved),
        T(test_asg_filter_tag_key_tag_value_and_tag_colon_key),
        T(test_asg_filter_values_or_filters_and),
        T(test_asg_filter_values_are_exact),
        T(test_asg_filter_unknown_name_is_validation_error),
#undef T
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
