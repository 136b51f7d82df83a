/* tests/unit/emulator/test_xml.c: XML replies and errors (emulator/xml.c) for the Query
 * protocol and EC2's dialect. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "emulator/xml.h"

static char *reply(const struct model_service *svc, const char *op, const char *ir)
{
    struct cm_buf b;
    json_t *out = ir ? json_loads(ir, 0, NULL) : NULL;

    cm_buf_init(&b, 0);
    xml_write_reply(&b, svc, model_op_find(svc, op), out, "rid-1");
    json_decref(out);
    return cm_buf_take(&b, NULL);
}

static void want(const char *doc, const char *part)
{
    if (!strstr(doc, part))
        fail_msg("document lacks %s:\n%s", part, doc);
}

static void test_xml_query_reply_wrapper_lists_and_metadata(void **state)
{
    char *d = reply(&model_autoscaling, "DescribeAutoScalingGroups",
                    "{\"AutoScalingGroups\":[{\"AutoScalingGroupName\":\"g<&>\",\"MinSize\":1,"
                    "\"Instances\":[],\"CreatedTime\":1767225600000,"
                    "\"NewInstancesProtectedFromScaleIn\":false}]}");

    (void)state;
    want(d, "<DescribeAutoScalingGroupsResponse xmlns=\"http://autoscaling.amazonaws.com/doc/"
            "2011-01-01/\"><DescribeAutoScalingGroupsResult><AutoScalingGroups><member>");
    want(d, "<AutoScalingGroupName>g&lt;&amp;&gt;</AutoScalingGroupName>");
    want(d, "<MinSize>1</MinSize>");
    want(d, "<Instances/>");
    want(d, "<CreatedTime>2026-01-01T00:00:00.000Z</CreatedTime>");
    want(d, "<NewInstancesProtectedFromScaleIn>false</NewInstancesProtectedFromScaleIn>");
    want(d, "</DescribeAutoScalingGroupsResult><ResponseMetadata><RequestId>rid-1</RequestId>"
            "</ResponseMetadata></DescribeAutoScalingGroupsResponse>");
    free(d);
}

static void test_xml_query_reply_without_output(void **state)
{
    char *d = reply(&model_cloudwatch, "PutMetricData", NULL);

    (void)state;
    want(d, "<PutMetricDataResponse xmlns=\"http://monitoring.amazonaws.com/doc/2010-08-01/\">"
            "<ResponseMetadata><RequestId>rid-1</RequestId></ResponseMetadata>"
            "</PutMetricDataResponse>");
    free(d);
}

static void test_xml_maps_and_doubles(void **state)
{
    char *d = reply(&model_cloudwatch, "GetMetricStatistics",
                    "{\"Label\":\"m\",\"Datapoints\":[{\"Average\":0.1,\"Maximum\":70.0,"
                    "\"ExtendedStatistics\":{\"p99\":12.5}}]}");

    (void)state;
    want(d, "<Datapoints><member>");
    want(d, "<Average>0.1</Average>");
    want(d, "<Maximum>70.0</Maximum>");
    want(d, "<ExtendedStatistics><entry><key>p99</key><value>12.5</value></entry>"
            "</ExtendedStatistics>");
    free(d);
}

static void test_xml_ec2_dialect(void **state)
{
    char *d = reply(&model_ec2, "DescribeInstances",
                    "{\"Reservations\":[{\"ReservationId\":\"r-1\",\"Instances\":[{\"InstanceId\":"
                    "\"i-1\",\"State\":{\"Code\":16,\"Name\":\"running\"}}]}]}");

    (void)state;
    want(d, "<DescribeInstancesResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"
            "<requestId>rid-1</requestId><reservationSet><item><reservationId>r-1</reservationId>");
    want(d, "<instancesSet><item><instanceId>i-1</instanceId>");
    want(d, "<instanceState><code>16</code><name>running</name></instanceState>");
    free(d);
}

static void test_xml_errors(void **state)
{
    struct awserr e = { 0 };
    struct cm_buf b;

    (void)state;
    awserr_set(&e, 400, "ResourceInUse", "can't <delete>");
    cm_buf_init(&b, 0);
    xml_write_error(&b, &model_autoscaling, &e, "rid-2");
    want(b.data, "<ErrorResponse xmlns=\"http://autoscaling.amazonaws.com/doc/2011-01-01/\">"
                 "<Error><Type>Sender</Type><Code>ResourceInUse</Code><Message>can&apos;t "
                 "&lt;delete&gt;</Message></Error><RequestId>rid-2</RequestId></ErrorResponse>");
    cm_buf_reset(&b);
    awserr_set(&e, 500, "InternalFailure", "x");
    xml_write_error(&b, &model_ec2, &e, "rid-3");
    want(b.data, "<Response><Errors><Error><Code>InternalFailure</Code><Message>x</Message>"
                 "</Error></Errors><RequestID>rid-3</RequestID></Response>");
    cm_buf_cleanup(&b);
}

/* XML 1.0 cannot carry C0 controls (even as &#x1;), U+FFFE/U+FFFF, surrogates or
 * malformed bytes: each is written as U+FFFD, everything else as sent. */
static void test_xml_escape_writes_fffd_for_what_xml_cannot_carry(void **state)
{
    static const char in[] = "a\x01"
                             "b\x1f\tc\n\r\xef\xbf\xbf\xef\xbf\xbe\xed\xa0\x80\xff"
                             "\xc3\xa9\xf0\x9f\x98\x80<&";
    struct cm_buf b;
    char *out;

    (void)state;
    cm_buf_init(&b, 0);
    xml_escape(&b, in, sizeof(in) - 1);
    out = cm_buf_take(&b, NULL);
    assert_string_equal(out, "a\xef\xbf\xbd"
                             "b\xef\xbf\xbd\tc\n&#xD;\xef\xbf\xbd\xef\xbf\xbd"
                             "\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9\xf0\x9f\x98\x80&lt;&amp;");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xml_query_reply_wrapper_lists_and_metadata),
        cmocka_unit_test(test_xml_query_reply_without_output),
        cmocka_unit_test(test_xml_maps_and_doubles),
        cmocka_unit_test(test_xml_ec2_dialect),
        cmocka_unit_test(test_xml_errors),
        cmocka_unit_test(test_xml_escape_writes_fffd_for_what_xml_cannot_carry),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
