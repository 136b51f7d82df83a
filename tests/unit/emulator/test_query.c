/* tests/unit/emulator/test_query.c: the Query protocol parser (emulator/query.c) and the
 * model checks behind it, as tables of valid and malformed forms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator/model.h"
#include "emulator/query.h"

struct qcase {
    const struct model_service *svc;
    const char *op;
    const char *form;
    const char *want_json; /* compact, sorted keys; NULL when an error is wanted */
    const char *want_code;
    const char *want_msg; /* substring */
};

#define ASG (&model_autoscaling)
#define CW  (&model_cloudwatch)
#define EC2 (&model_ec2)

static const struct qcase cases[] = {
    /* valid */
    { ASG, "CreateAutoScalingGroup",
      "AutoScalingGroupName=g&MinSize=1&MaxSize=10&LoadBalancerNames.member.1=lb"
      "&AvailabilityZones.member.1=us-east-1a&AvailabilityZones.member.2=us-east-1b",
      "{\"AutoScalingGroupName\":\"g\",\"AvailabilityZones\":[\"us-east-1a\",\"us-east-1b\"],"
      "\"LoadBalancerNames\":[\"lb\"],\"MaxSize\":10,\"MinSize\":1}",
      NULL, NULL },
    { ASG, "DescribeAutoScalingGroups",
      "AutoScalingGroupNames.member.10=j&AutoScalingGroupNames.member.2=b&AutoScalingGroupNames.member.1=a",
      "{\"AutoScalingGroupNames\":[\"a\",\"b\",\"j\"]}", NULL, NULL },
    { ASG, "DescribeAutoScalingGroups", "AutoScalingGroupNames=", "{\"AutoScalingGroupNames\":[]}",
      NULL, NULL },
    { ASG, "DescribeAutoScalingGroups", "", "{}", NULL, NULL },
    { ASG, "DeleteAutoScalingGroup", "AutoScalingGroupName=a+b%20c&ForceDelete=true",
      "{\"AutoScalingGroupName\":\"a b c\",\"ForceDelete\":true}", NULL, NULL },
    { ASG, "CreateOrUpdateTags",
      "Tags.member.1.ResourceId=g&Tags.member.1.ResourceType=auto-scaling-group&Tags.member.1.Key=k"
      "&Tags.member.1.Value=v&Tags.member.1.PropagateAtLaunch=false",
      "{\"Tags\":[{\"Key\":\"k\",\"PropagateAtLaunch\":false,\"ResourceId\":\"g\","
      "\"ResourceType\":\"auto-scaling-group\",\"Value\":\"v\"}]}",
      NULL, NULL },
    { CW, "PutMetricData",
      "Namespace=App&MetricData.member.1.MetricName=m&MetricData.member.1.Value=1.5"
      "&MetricData.member.1.Dimensions.member.1.Name=A&MetricData.member.1.Dimensions.member.1.Value=x"
      "&MetricData.member.1.Timestamp=2026-01-01T00%3A00%3A00.250Z",
      "{\"MetricData\":[{\"Dimensions\":[{\"Name\":\"A\",\"Value\":\"x\"}],\"MetricName\":\"m\","
      "\"Timestamp\":1767225600250,\"Value\":1.5}],\"Namespace\":\"App\"}",
      NULL, NULL },
    { EC2, "DescribeInstances",
      "InstanceId.1=i-1&InstanceId.2=i-2&Filter.1.Name=instance-state-name&Filter.1.Value.1=running",
      "{\"Filters\":[{\"Name\":\"instance-state-name\",\"Values\":[\"running\"]}],"
      "\"InstanceIds\":[\"i-1\",\"i-2\"]}",
      NULL, NULL },
    { EC2, "RunInstances",
      "ImageId=ami-1&MinCount=1&MaxCount=2&Placement.AvailabilityZone=us-east-1b"
      "&TagSpecification.1.ResourceType=instance&TagSpecification.1.Tag.1.Key=Name"
      "&TagSpecification.1.Tag.1.Value=web",
      "{\"ImageId\":\"ami-1\",\"MaxCount\":2,\"MinCount\":1,\"Placement\":{\"AvailabilityZone\":"
      "\"us-east-1b\"},\"TagSpecifications\":[{\"ResourceType\":\"instance\",\"Tags\":[{\"Key\":"
      "\"Name\",\"Value\":\"web\"}]}]}",
      NULL, NULL },
    /* malformed */
    { ASG, "CreateAutoScalingGroup", "AutoScalingGroupName=g&MinSize=1", NULL, "ValidationError",
      "1 validation error detected: Value null at 'maxSize' failed to satisfy constraint: Member "
      "must not be null" },
    { ASG, "CreateAutoScalingGroup", "AutoScalingGroupName=g", NULL, "ValidationError",
      "2 validation errors detected: " },
    { ASG, "SetDesiredCapacity", "AutoScalingGroupName=g&DesiredCapacity=abc", NULL,
      "ValidationError", "Value 'abc' at 'desiredCapacity' failed to satisfy constraint" },
    { ASG, "SetDesiredCapacity", "AutoScalingGroupName=g&DesiredCapacity=99999999999", NULL,
      "ValidationError", "at 'desiredCapacity'" },
    { ASG, "DeleteAutoScalingGroup", "AutoScalingGroupName=g&ForceDelete=maybe", NULL,
      "ValidationError", "Value 'maybe' at 'forceDelete'" },
    { ASG, "DeleteAutoScalingGroup", "AutoScalingGroupName=", NULL, "ValidationError",
      "Member must have length greater than or equal to 1" },
    { ASG, "DeleteAutoScalingGroup", "AutoScalingGroupName=%ff%fe", NULL, "ValidationError",
      "UTF-8" },
    { ASG, "DeleteAutoScalingGroup", "AutoScalingGroupName=a%00b", NULL, "ValidationError",
      "1 validation error detected: Value 'a' at 'autoScalingGroupName' failed to satisfy "
      "constraint: Member must satisfy regular expression pattern: "
      "[\\u0020-\\uD7FF\\uE000-\\uFFFD\\uD800\\uDC00-\\uDBFF\\uDFFF\\r\\n\\t]*" },
    { ASG, "DeleteAutoScalingGroup", "AutoScalingGroupName=a%01b", NULL, "ValidationError",
      "1 validation error detected: Value 'a\001b' at 'autoScalingGroupName' failed to satisfy "
      "constraint: Member must satisfy regular expression pattern: [\\u0020-" },
    { ASG, "DeleteAutoScalingGroup", "AutoScalingGroupName=%ef%bf%bf", NULL, "ValidationError",
      "Member must satisfy regular expression pattern" },
    { ASG, "DeleteAutoScalingGroup", "AutoScalingGroupName=%f0%9f%98%80%20%c3%a9%0d%0a%09",
      "{\"AutoScalingGroupName\":\"\360\237\230\200 \303\251\\r\\n\\t\"}", NULL, NULL },
    { ASG, "CreateLaunchConfiguration", "LaunchConfigurationName=lc%07", NULL, "ValidationError",
      "1 validation error detected: Value 'lc\a' at 'launchConfigurationName' failed to satisfy "
      "constraint: Member must satisfy regular expression pattern" },
    { ASG, "DeleteAutoScalingGroup", "AutoScalingGroupName=a%00b&ForceDelete=true", NULL,
      "ValidationError", "Value 'a' at 'autoScalingGroupName'" },
    { CW, "PutMetricData", "MetricData.member.1.MetricName=m", NULL, "MissingParameter",
      "The parameter Namespace is required." },
    { CW, "SetAlarmState", "AlarmName=a&StateValue=BAD&StateReason=r", NULL, "ValidationError",
      "1 validation error detected: Value 'BAD' at 'stateValue' failed to satisfy constraint: "
      "Member must satisfy enum value set: [" },
    { CW, "PutMetricData",
      "Namespace=App&MetricData.member.1.MetricName=m&MetricData.member.1.Timestamp=yesterday",
      NULL, "ValidationError", "metricData.1.member.timestamp" },
    { CW, "PutMetricData",
      "Namespace=App&MetricData.member.1.MetricName=m&MetricData.member.1.Value=nan", NULL,
      "ValidationError", "finite" },
    { EC2, "RunInstances", "ImageId=ami-1&MinCount=1", NULL, "MissingParameter",
      "The request must contain the parameter MaxCount" },
    { EC2, "RunInstances", "ImageId=ami-1&MinCount=x&MaxCount=1", NULL, "InvalidParameterValue",
      "Value (x) for parameter MinCount is invalid" },
    { EC2, "DescribeInstances", "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.aa.bb=1", NULL,
      "ValidationError", "nested too deeply" },
    /* unknown parameters: UnknownParameter naming the wire path down to the first unknown part */
    { ASG, "DescribeAutoScalingGroups", "MaxRecords=5&Bogus=1", NULL, "UnknownParameter",
      "The parameter Bogus is not recognized" },
    { ASG, "DescribeAutoScalingGroups",
      "AutoScalingGroupNames.member.1=a&AutoScalingGroupNames.x=b", NULL, "UnknownParameter",
      "The parameter AutoScalingGroupNames.x is not recognized" },
    { ASG, "DescribeAutoScalingGroups", "AutoScalingGroupNames.member.0=a", NULL,
      "UnknownParameter", "The parameter AutoScalingGroupNames.member.0 is not recognized" },
    { ASG, "CreateOrUpdateTags", "Tags.member.2.Key=k&Tags.member.2.Extra.Deep=1", NULL,
      "UnknownParameter", "The parameter Tags.member.2.Extra is not recognized" },
    { ASG, "DescribeAutoScalingGroups", "MaxRecords=5&MaxRecords.sub=1", NULL, "UnknownParameter",
      "The parameter MaxRecords.sub is not recognized" },
    { ASG, "DescribeAdjustmentTypes", "Foo=1", NULL, "UnknownParameter",
      "The parameter Foo is not recognized" },
    { CW, "PutMetricData",
      "Namespace=App&MetricData.member.1.MetricName=m&MetricData.member.1.Value=1"
      "&MetricData.member.1.Dimensions.member.1.Name=A&MetricData.member.1.Dimensions.member.1.Valu=x",
      NULL, "UnknownParameter",
      "The parameter MetricData.member.1.Dimensions.member.1.Valu is not recognized" },
    { EC2, "DescribeInstances", "ImageType=machine", NULL, "UnknownParameter",
      "The parameter ImageType is not recognized" },
    { EC2, "DescribeInstances", "Filter.1.Name=n&Filter.1.Value.1=v&Filter.1.Value.x=w", NULL,
      "UnknownParameter", "The parameter Filter.1.Value.x is not recognized" },
    /* the common parameters are not the operation's but are accepted */
    { ASG, "DescribeAutoScalingGroups",
      "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=c&X-Amz-Date=d&X-Amz-Expires=60"
      "&X-Amz-SignedHeaders=host&X-Amz-Signature=s&X-Amz-Security-Token=t&AWSAccessKeyId=a"
      "&Signature=s&SignatureMethod=HmacSHA256&SignatureVersion=2&Timestamp=t&Action=x&Version=y",
      "{}", NULL, NULL },
    { EC2, "DescribeAvailabilityZones", "X-Amz-Date=d&Expires=e", "{}", NULL, NULL },
    /* the tree's rules (query.c): the first of repeated parameters wins */
    { ASG, "DeleteAutoScalingGroup", "AutoScalingGroupName=a&AutoScalingGroupName=b",
      "{\"AutoScalingGroupName\":\"a\"}", NULL, NULL },
    /* list elements in numeric order whatever order they come in (`10` after `9`) */
    { ASG, "DescribeAutoScalingGroups",
      "AutoScalingGroupNames.member.10=j&AutoScalingGroupNames.member.9=i"
      "&AutoScalingGroupNames.member.100=k&AutoScalingGroupNames.member.1=a",
      "{\"AutoScalingGroupNames\":[\"a\",\"i\",\"j\",\"k\"]}", NULL, NULL },
    /* of several unknown parameters the first sent is named */
    { ASG, "DescribeAutoScalingGroups", "Zeta=1&Alpha=2&Mid.x=3", NULL, "UnknownParameter",
      "The parameter Zeta is not recognized" },
    { ASG, "DescribeAutoScalingGroups",
      "AutoScalingGroupNames.member.2.z=1&AutoScalingGroupNames.member.1=a&Bogus=1", NULL,
      "UnknownParameter", "The parameter Bogus is not recognized" },
    { ASG, "DescribeAutoScalingGroups",
      "AutoScalingGroupNames.member.2.z=1&AutoScalingGroupNames.member.1.y=a", NULL,
      "UnknownParameter", "The parameter AutoScalingGroupNames.member.1.y is not recognized" },
    /* an empty segment names nothing: after the value it is ignored (the Jansson tree read
     * freed memory here), before it the value is an object */
    { ASG, "DeleteAutoScalingGroup", "AutoScalingGroupName=g&AutoScalingGroupName..x=2",
      "{\"AutoScalingGroupName\":\"g\"}", NULL, NULL },
    { ASG, "DeleteAutoScalingGroup", "AutoScalingGroupName.=x&AutoScalingGroupName=g", NULL,
      "ValidationError", "Member must be a string" },
    { ASG, "DescribeAutoScalingGroups", "=1&.x=2", "{}", NULL, NULL },
    /* a map's entries by their key, a repeated key taking the last value */
    { CW, "PutMetricData",
      "Namespace=N&EntityMetricData.member.1.Entity.KeyAttributes.entry.2.key=b"
      "&EntityMetricData.member.1.Entity.KeyAttributes.entry.2.value=2"
      "&EntityMetricData.member.1.Entity.KeyAttributes.entry.1.key=a"
      "&EntityMetricData.member.1.Entity.KeyAttributes.entry.1.value=1"
      "&EntityMetricData.member.1.Entity.KeyAttributes.entry.3.key=b"
      "&EntityMetricData.member.1.Entity.KeyAttributes.entry.3.value=3",
      "{\"EntityMetricData\":[{\"Entity\":{\"KeyAttributes\":{\"a\":\"1\",\"b\":\"3\"}}}],"
      "\"Namespace\":\"N\"}",
      NULL, NULL },
};

static void test_query_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct qcase *c = &cases[i];
        const struct model_op *op = model_op_find(c->svc, c->op);
        struct query_form f;
        struct awserr err = { 0 };
        json_t *out = NULL;
        int rc;

        assert_non_null(op);
        assert_int_equal(query_form_parse(&f, c->form, strlen(c->form), &err), 0);
        rc = query_parse(c->svc, op, &f, c->svc == EC2, &out, &err);
        if (c->want_json) {
            char *got;

            if (rc != 0)
                fail_msg("case %zu (%s): unexpected %s: %s", i, c->op, err.code, err.message);
            got = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
            if (strcmp(got, c->want_json) != 0)
                fail_msg("case %zu (%s):\n got %s\nwant %s", i, c->op, got, c->want_json);
            free(got);
        } else {
            if (rc == 0)
                fail_msg("case %zu (%s): no error, want %s", i, c->op, c->want_code);
            assert_null(out);
            assert_int_equal(err.http, 400);
            assert_string_equal(err.code, c->want_code);
            if (!strstr(err.message, c->want_msg))
                fail_msg("case %zu (%s): message '%s' lacks '%s'", i, c->op, err.message,
                         c->want_msg);
        }
        json_decref(out);
        query_form_cleanup(&f);
    }
}

static void test_query_form_split_and_decode(void **state)
{
    struct query_form f;
    struct awserr err = { 0 };
    const char *s = "a=1&&b=%zz&c&d=%41+%2B&a=2";

    (void)state;
    assert_int_equal(query_form_parse(&f, s, strlen(s), &err), 0);
    assert_int_equal(f.n, 5);
    assert_string_equal(query_form_find(&f, "a"), "1");
    assert_string_equal(query_form_find(&f, "b"), "%zz");
    assert_string_equal(query_form_find(&f, "c"), "");
    assert_string_equal(query_form_find(&f, "d"), "A +");
    assert_null(query_form_find(&f, "e"));
    query_form_cleanup(&f);
}

static void test_query_too_many_pairs(void **state)
{
    struct query_form f;
    struct awserr err = { 0 };
    size_t n = (QUERY_MAX_PAIRS + 1) * 4;
    char *s = malloc(n + 1);

    (void)state;
    for (size_t i = 0; i < QUERY_MAX_PAIRS + 1; i++)
        memcpy(s + i * 4, "a=1&", 4);
    s[n] = '\0';
    assert_int_equal(query_form_parse(&f, s, n, &err), -1);
    assert_int_equal(err.http, 400);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query_table),
        cmocka_unit_test(test_query_form_split_and_decode),
        cmocka_unit_test(test_query_too_many_pairs),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
