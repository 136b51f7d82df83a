/* tests/unit/loadgen/test_scn_reply.c: loadgen/scn_reply.c (placeholders,
 * AWS replies read into sample figures and events) */
#include "loadgen/scn_reply.h"

#include <math.h>
#include <string.h>

#include <libxml/parser.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/asg_launch.h"

static xmlDoc *doc_of(const char *xml)
{
    xmlDoc *d = xmlReadMemory(xml, (int)strlen(xml), "t.xml", NULL, XML_PARSE_NONET);
    assert_non_null(d);
    return d;
}

static const char *lookup(const char *policy, void *ud)
{
    (void)ud;
    if (strcmp(policy, "up") == 0)
        return "arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:1:autoScalingGroupName/"
               "g:policyName/up";
    if (strcmp(policy, "down") == 0)
        return "arn:down";
    return NULL;
}

static const char *ref_lookup(const char *key, void *ud)
{
    (void)ud;
    if (strcmp(key, "lbdim:front") == 0)
        return "app/p-front/50dc6c495c0c9188";
    if (strcmp(key, "tgdim:api") == 0)
        return "targetgroup/p-api/73e2d6bc24d8a067";
    if (strcmp(key, "subnet:us-east-1a") == 0)
        return "subnet-1";
    return NULL;
}

static void test_scn_reply_ref_substitute(void **state)
{
    char out[256];

    (void)state;
    assert_int_equal(
        scn_ref_substitute("{lbdim:front}/{tgdim:api}", ref_lookup, NULL, out, sizeof(out)), 0);
    assert_string_equal(out, "app/p-front/50dc6c495c0c9188/targetgroup/p-api/73e2d6bc24d8a067");
    assert_int_equal(scn_ref_substitute("{subnet:us-east-1a}", ref_lookup, NULL, out, sizeof(out)),
                     0);
    assert_string_equal(out, "subnet-1");
    /* a redirect's #{path} and any other brace stay */
    assert_int_equal(scn_ref_substitute("/new/#{path}?{arn:x}", ref_lookup, NULL, out, sizeof(out)),
                     0);
    assert_string_equal(out, "/new/#{path}?{arn:x}");
    assert_int_equal(scn_ref_substitute("{tg:nope}", ref_lookup, NULL, out, sizeof(out)), -1);
    assert_string_equal(out, "nothing made for tg:nope");
    assert_int_equal(scn_ref_substitute("{lbdim:front}", ref_lookup, NULL, out, 8), -1);
}

static void test_scn_reply_arn_substitute(void **state)
{
    char out[512];

    (void)state;
    assert_int_equal(scn_arn_substitute("{arn:down}", lookup, NULL, out, sizeof(out)), 0);
    assert_string_equal(out, "arn:down");
    assert_int_equal(scn_arn_substitute("x{arn:down}y{arn:down}", lookup, NULL, out, sizeof(out)),
                     0);
    assert_string_equal(out, "xarn:downyarn:down");
    assert_int_equal(scn_arn_substitute("plain value", lookup, NULL, out, sizeof(out)), 0);
    assert_string_equal(out, "plain value");
    assert_int_equal(scn_arn_substitute("", lookup, NULL, out, sizeof(out)), 0);
    assert_string_equal(out, "");
    assert_int_equal(scn_arn_substitute("{arn:up}", lookup, NULL, out, sizeof(out)), 0);
    assert_non_null(strstr(out, "policyName/up"));
    /* an unclosed brace is text */
    assert_int_equal(scn_arn_substitute("{arn:up", lookup, NULL, out, sizeof(out)), 0);
    assert_string_equal(out, "{arn:up");
    /* unknown policy: named */
    assert_int_equal(scn_arn_substitute("{arn:nope}", lookup, NULL, out, sizeof(out)), -1);
    assert_string_equal(out, "no PolicyARN for nope");
    /* too small */
    assert_int_equal(scn_arn_substitute("{arn:up}", lookup, NULL, out, 10), -1);
}

static void test_scn_reply_at_substitute(void **state)
{
    char out[64] = "untouched";

    (void)state;
    /* 2026-01-01T00:00:00Z + 2 h */
    assert_int_equal(scn_at_substitute("{at:7200000}", 1767225600000LL, out, sizeof(out)), 1);
    assert_string_equal(out, "2026-01-01T02:00:00Z");
    assert_int_equal(scn_at_substitute("{at:0}", 1767225600000LL, out, sizeof(out)), 1);
    assert_string_equal(out, "2026-01-01T00:00:00Z");
    /* anything else is left to the caller */
    strcpy(out, "untouched");
    assert_int_equal(scn_at_substitute("{at:}", 0, out, sizeof(out)), 0);
    assert_int_equal(scn_at_substitute("{at:12", 0, out, sizeof(out)), 0);
    assert_int_equal(scn_at_substitute("{at:12}x", 0, out, sizeof(out)), 0);
    assert_int_equal(scn_at_substitute("2026-01-01T00:00:00Z", 0, out, sizeof(out)), 0);
    assert_string_equal(out, "untouched");
}

static const char groups_xml[] =
    "<DescribeAutoScalingGroupsResponse xmlns=\"http://autoscaling.amazonaws.com/doc/2011-01-01/\">"
    "<DescribeAutoScalingGroupsResult><AutoScalingGroups>"
    "<member><AutoScalingGroupName>p-other</AutoScalingGroupName><DesiredCapacity>9"
    "</DesiredCapacity><Instances/></member>"
    "<member><AutoScalingGroupName>p-web</AutoScalingGroupName>"
    "<LaunchConfigurationName>p-lc</LaunchConfigurationName>"
    "<MinSize>1</MinSize><MaxSize>10</MaxSize><DesiredCapacity>4</DesiredCapacity>"
    "<Instances>"
    "<member><InstanceId>i-1</InstanceId><LifecycleState>InService</LifecycleState>"
    "<HealthStatus>Healthy</HealthStatus><LaunchConfigurationName>p-lc</LaunchConfigurationName>"
    "</member>"
    "<member><InstanceId>i-2</InstanceId><LifecycleState>Pending</LifecycleState>"
    "<HealthStatus>Healthy</HealthStatus></member>"
    "<member><InstanceId>i-3</InstanceId><LifecycleState>Pending:Wait</LifecycleState>"
    "<HealthStatus>Healthy</HealthStatus></member>"
    "<member><InstanceId>i-4</InstanceId><LifecycleState>Terminating</LifecycleState>"
    "<HealthStatus>Unhealthy</HealthStatus></member>"
    "<member><InstanceId>i-5</InstanceId><LifecycleState>Standby</LifecycleState>"
    "<HealthStatus>Healthy</HealthStatus></member>"
    "</Instances></member>"
    "</AutoScalingGroups></DescribeAutoScalingGroupsResult></DescribeAutoScalingGroupsResponse>";

static void test_scn_reply_group(void **state)
{
    xmlDoc *d = doc_of(groups_xml);
    struct scn_group_state st;

    (void)state;
    scn_reply_group(d, "p-web", &st);
    assert_int_equal(st.found, 1);
    assert_int_equal(st.desired, 4);
    assert_int_equal(st.min, 1);
    assert_int_equal(st.max, 10);
    assert_int_equal(st.in_service, 1);
    assert_int_equal(st.pending, 2);
    assert_int_equal(st.terminating, 1);
    assert_int_equal(st.other, 1);
    assert_int_equal(st.ninstances, 5);
    assert_string_equal(st.inst[0].id, "i-1");
    assert_string_equal(st.inst[3].health, "Unhealthy");
    assert_string_equal(st.inst[2].lifecycle, "Pending:Wait");
    scn_reply_group(d, "p-other", &st);
    assert_int_equal(st.found, 1);
    assert_int_equal(st.desired, 9);
    assert_int_equal(st.ninstances, 0);
    scn_reply_group(d, "p-none", &st);
    assert_int_equal(st.found, 0);
    scn_reply_group(NULL, "p-web", &st);
    assert_int_equal(st.found, 0);
    xmlFreeDoc(d);
}

/* DescribeWarmPool: the pool's instances with their Warmed:* states, and the page token. */
static void test_scn_reply_warm_pool(void **state)
{
    static const char *const xml =
        "<DescribeWarmPoolResponse xmlns=\"http://autoscaling.amazonaws.com/doc/2011-01-01/\">"
        "<DescribeWarmPoolResult><WarmPoolConfiguration><MinSize>0</MinSize>"
        "<PoolState>Stopped</PoolState></WarmPoolConfiguration><Instances>"
        "<member><InstanceId>i-a</InstanceId><LifecycleState>Warmed:Pending:Wait</LifecycleState>"
        "<HealthStatus>Healthy</HealthStatus></member>"
        "<member><InstanceId>i-b</InstanceId>"
        "<LifecycleState>Warmed:Terminating:Wait</LifecycleState></member>"
        "</Instances><NextToken>tok2</NextToken></DescribeWarmPoolResult>"
        "</DescribeWarmPoolResponse>";
    static const char *const none = "<DescribeWarmPoolResponse><DescribeWarmPoolResult><Instances/>"
                                    "</DescribeWarmPoolResult></DescribeWarmPoolResponse>";
    xmlDoc *d = doc_of(xml);
    struct scn_group_state st;
    char next[64];

    (void)state;
    scn_reply_warm_pool(d, &st, next, sizeof(next));
    assert_int_equal(st.found, 1);
    assert_int_equal(st.ninstances, 2);
    assert_string_equal(st.inst[0].id, "i-a");
    assert_string_equal(st.inst[0].lifecycle, "Warmed:Pending:Wait");
    assert_string_equal(st.inst[1].lifecycle, "Warmed:Terminating:Wait");
    assert_int_equal(st.in_service + st.pending + st.terminating + st.other, 0);
    assert_string_equal(next, "tok2");
    assert_string_equal(st.pool_state, "Stopped");
    xmlFreeDoc(d);
    d = doc_of(none);
    scn_reply_warm_pool(d, &st, next, sizeof(next));
    assert_int_equal(st.found, 0);
    assert_int_equal(st.ninstances, 0);
    assert_string_equal(next, "");
    xmlFreeDoc(d);
}

static void test_scn_reply_metric(void **state)
{
    xmlDoc *d = doc_of(
        "<GetMetricStatisticsResponse><GetMetricStatisticsResult><Label>CPUUtilization</Label>"
        "<Datapoints>"
        "<member><Timestamp>2026-01-01T00:00:00Z</Timestamp><Average>90</Average>"
        "<SampleCount>3</SampleCount><Unit>Percent</Unit></member>"
        "<member><Timestamp>2026-01-01T00:01:00Z</Timestamp><Average>50</Average>"
        "<SampleCount>1</SampleCount><Unit>Percent</Unit></member>"
        "</Datapoints></GetMetricStatisticsResult></GetMetricStatisticsResponse>");
    xmlDoc *e = doc_of("<GetMetricStatisticsResponse><GetMetricStatisticsResult><Datapoints/>"
                       "</GetMetricStatisticsResult></GetMetricStatisticsResponse>");
    int n = -1;

    (void)state;
    assert_true(fabs(scn_reply_metric_average(d, &n) - 80.0) < 1e-9);
    assert_int_equal(n, 2);
    assert_true(isnan(scn_reply_metric_average(e, &n)));
    {
        int64_t t = -1;
        assert_true(scn_reply_metric_latest(d, &t) == 50.0);
        assert_true(t == INT64_C(1767225660000));
        assert_true(isnan(scn_reply_metric_latest(e, &t)));
        assert_true(t == 0);
    }
    assert_int_equal(n, 0);
    xmlFreeDoc(d);
    xmlFreeDoc(e);
}

/* A count over minutes (RequestCount's Sum, the request demand basis's input, through
 * scn_alb_metric_window). */
static void test_scn_reply_metric_sum(void **state)
{
    xmlDoc *d =
        doc_of("<GetMetricStatisticsResponse><GetMetricStatisticsResult><Label>RequestCount</Label>"
               "<Datapoints>"
               "<member><Timestamp>2026-01-01T00:00:00Z</Timestamp><Sum>1200</Sum>"
               "<Unit>Count</Unit></member>"
               "<member><Timestamp>2026-01-01T00:01:00Z</Timestamp><Sum>601</Sum>"
               "<Unit>Count</Unit></member>"
               "<member><Timestamp>2026-01-01T00:02:00Z</Timestamp><Average>7</Average></member>"
               "</Datapoints></GetMetricStatisticsResult></GetMetricStatisticsResponse>");
    xmlDoc *e = doc_of("<GetMetricStatisticsResponse><GetMetricStatisticsResult><Datapoints/>"
                       "</GetMetricStatisticsResult></GetMetricStatisticsResponse>");
    double sum = -1, max = 0;

    (void)state;
    /* the datapoint without a Sum counts as a datapoint and adds nothing */
    assert_int_equal(scn_reply_metric_sum_max(d, &sum, &max), 3);
    assert_true(sum == 1801.0);
    assert_true(isnan(max));
    assert_int_equal(scn_reply_metric_sum_max(e, &sum, &max), 0);
    assert_true(sum == 0.0);
    xmlFreeDoc(d);
    xmlFreeDoc(e);
}

static const char alarms_xml[] =
    "<DescribeAlarmsResponse><DescribeAlarmsResult><MetricAlarms>"
    "<member><AlarmName>p-high</AlarmName><StateValue>ALARM</StateValue>"
    "<StateReason>Threshold Crossed: 1 datapoint [91.0 (01/01/26 00:09:00)] was greater than the "
    "threshold (80.0).</StateReason>"
    "<StateUpdatedTimestamp>2026-01-01T00:10:00.250Z</StateUpdatedTimestamp>"
    "<MetricName>CPUUtilization</MetricName><ComparisonOperator>GreaterThanThreshold"
    "</ComparisonOperator><Threshold>80.0</Threshold>"
    "<Dimensions><member><Name>AutoScalingGroupName</Name><Value>p-web</Value></member>"
    "</Dimensions></member>"
    "<member><AlarmName>p-low</AlarmName><StateValue>OK</StateValue></member>"
    "</MetricAlarms></DescribeAlarmsResult></DescribeAlarmsResponse>";

static void collect_name(const char *name, void *ud)
{
    char *out = ud;
    strcat(out, name);
    strcat(out, ";");
}

static void test_scn_reply_alarms(void **state)
{
    xmlDoc *d = doc_of(alarms_xml);
    struct scn_alarm_state st;
    char names[128] = "";

    (void)state;
    scn_reply_alarm(d, "p-high", &st);
    assert_int_equal(st.found, 1);
    assert_string_equal(st.state, "ALARM");
    assert_true(st.updated_ms == INT64_C(1767225600000) + 600250);
    assert_non_null(strstr(st.reason, "greater than the threshold"));
    assert_string_equal(st.metric, "CPUUtilization");
    assert_string_equal(st.comparison, "GreaterThanThreshold");
    assert_true(st.threshold == 80.0);
    scn_reply_alarm(d, "p-low", &st);
    assert_int_equal(st.found, 1);
    assert_string_equal(st.state, "OK");
    assert_true(st.updated_ms == 0);
    scn_reply_alarm(d, "p-none", &st);
    assert_int_equal(st.found, 0);
    assert_int_equal(scn_reply_alarm_names(d, collect_name, names), 2);
    assert_string_equal(names, "p-high;p-low;");
    xmlFreeDoc(d);
}

struct acts {
    int n;
    struct scn_activity a[4];
};

static void collect_act(const struct scn_activity *a, void *ud)
{
    struct acts *v = ud;
    if (v->n < 4)
        v->a[v->n++] = *a;
}

static void test_scn_reply_activities(void **state)
{
    xmlDoc *d = doc_of(
        "<DescribeScalingActivitiesResponse><DescribeScalingActivitiesResult><Activities>"
        "<member><ActivityId>b</ActivityId><AutoScalingGroupName>p-web</AutoScalingGroupName>"
        "<Description>Launching a new EC2 instance: i-2</Description>"
        "<Cause>At 2026-01-01T00:10:00Z a monitor alarm p-high in state ALARM triggered policy "
        "up changing the desired capacity from 1 to 2.</Cause>"
        "<StartTime>2026-01-01T00:10:01Z</StartTime><StatusCode>InProgress</StatusCode>"
        "<Progress>30</Progress></member>"
        "<member><ActivityId>a</ActivityId><AutoScalingGroupName>p-web</AutoScalingGroupName>"
        "<Description>Launching a new EC2 instance: i-1</Description><Cause>c</Cause>"
        "<StartTime>2026-01-01T00:00:00Z</StartTime><EndTime>2026-01-01T00:01:30Z</EndTime>"
        "<StatusCode>Successful</StatusCode></member>"
        "</Activities></DescribeScalingActivitiesResult></DescribeScalingActivitiesResponse>");
    struct acts v = { 0 };

    (void)state;
    assert_int_equal(scn_reply_activities(d, collect_act, &v), 2);
    assert_int_equal(v.n, 2);
    /* oldest first */
    assert_string_equal(v.a[0].id, "a");
    assert_string_equal(v.a[0].status, "Successful");
    assert_true(v.a[0].end_ms - v.a[0].start_ms == 90000);
    assert_int_equal(scn_activity_done(v.a[0].status), 1);
    assert_string_equal(v.a[1].id, "b");
    assert_true(v.a[1].end_ms == 0);
    assert_int_equal(scn_activity_done(v.a[1].status), 0);
    assert_non_null(strstr(v.a[1].cause, "from 1 to 2"));
    assert_string_equal(v.a[1].group, "p-web");
    assert_int_equal(scn_activity_done("Failed"), 1);
    assert_int_equal(scn_activity_done("Cancelled"), 1);
    assert_int_equal(scn_activity_done("WaitingForSpotInstanceId"), 0);
    xmlFreeDoc(d);
}

static void test_scn_reply_health_and_text(void **state)
{
    xmlDoc *d =
        doc_of("<DescribeInstanceHealthResponse><DescribeInstanceHealthResult><InstanceStates>"
               "<member><InstanceId>i-1</InstanceId><State>InService</State></member>"
               "<member><InstanceId>i-2</InstanceId><State>OutOfService</State></member>"
               "<member><InstanceId>i-3</InstanceId><State>InService</State></member>"
               "<member><InstanceId>i-4</InstanceId><State>Unknown</State></member>"
               "</InstanceStates></DescribeInstanceHealthResult></DescribeInstanceHealthResponse>");
    xmlDoc *p = doc_of("<PutScalingPolicyResponse><PutScalingPolicyResult><PolicyARN>arn:x"
                       "</PolicyARN></PutScalingPolicyResult></PutScalingPolicyResponse>");
    int in = -1, out = -1;
    char b[64];

    (void)state;
    scn_reply_instance_health(d, &in, &out);
    assert_int_equal(in, 2);
    assert_int_equal(out, 2);
    assert_int_equal(scn_reply_text(p, "PolicyARN", b, sizeof(b)), 0);
    assert_string_equal(b, "arn:x");
    assert_int_equal(scn_reply_text(p, "DNSName", b, sizeof(b)), -1);
    assert_int_equal(scn_reply_text(NULL, "PolicyARN", b, sizeof(b)), -1);
    xmlFreeDoc(d);
    xmlFreeDoc(p);
}

static void test_scn_reply_target_health_and_sum_max(void **state)
{
    xmlDoc *d = doc_of(
        "<DescribeTargetHealthResponse><DescribeTargetHealthResult><TargetHealthDescriptions>"
        "<member><Target><Id>i-1</Id></Target><TargetHealth><State>healthy</State>"
        "</TargetHealth></member>"
        "<member><Target><Id>i-2</Id></Target><TargetHealth><State>initial</State>"
        "<Reason>Elb.InitialHealthChecking</Reason></TargetHealth></member>"
        "<member><Target><Id>i-3</Id></Target><TargetHealth><State>healthy</State>"
        "</TargetHealth></member>"
        "<member><Target><Id>i-4</Id></Target><TargetHealth><State>draining</State>"
        "</TargetHealth></member>"
        "</TargetHealthDescriptions></DescribeTargetHealthResult>"
        "</DescribeTargetHealthResponse>");
    xmlDoc *m = doc_of("<GetMetricStatisticsResponse><GetMetricStatisticsResult><Datapoints>"
                       "<member><Sum>120</Sum><Maximum>70</Maximum></member>"
                       "<member><Sum>30.5</Sum><Maximum>90</Maximum></member>"
                       "<member><Sum>0</Sum><Maximum>0</Maximum></member>"
                       "</Datapoints><Label>RequestCount</Label></GetMetricStatisticsResult>"
                       "</GetMetricStatisticsResponse>");
    xmlDoc *e = doc_of("<GetMetricStatisticsResponse><GetMetricStatisticsResult><Datapoints/>"
                       "</GetMetricStatisticsResult></GetMetricStatisticsResponse>");
    int h = -1, o = -1;
    double sum = -1, max = -1;

    (void)state;
    scn_reply_target_health(d, &h, &o);
    assert_int_equal(h, 2);
    assert_int_equal(o, 2);
    assert_int_equal(scn_reply_metric_sum_max(m, &sum, &max), 3);
    assert_float_equal(sum, 150.5, 1e-9);
    assert_float_equal(max, 90, 1e-9);
    assert_int_equal(scn_reply_metric_sum_max(e, &sum, &max), 0);
    assert_float_equal(sum, 0, 1e-9);
    assert_true(isnan(max));
    xmlFreeDoc(d);
    xmlFreeDoc(m);
    xmlFreeDoc(e);
}

static void test_scn_reply_launch(void **state)
{
    xmlDoc *d = doc_of(
        "<LaunchInstancesResponse><LaunchInstancesResult>"
        "<AutoScalingGroupName>p-web</AutoScalingGroupName><ClientToken>p-t</ClientToken>"
        "<Instances><member><InstanceType>m5.large</InstanceType><MarketType>OnDemand"
        "</MarketType><AvailabilityZone>us-east-1a</AvailabilityZone><AvailabilityZoneId>"
        "use1-az1</AvailabilityZoneId><InstanceIds><member>i-1</member><member>i-2</member>"
        "</InstanceIds></member></Instances>"
        "<Errors><member><InstanceType>m5.large</InstanceType><MarketType>OnDemand</MarketType>"
        "<AvailabilityZone>us-east-1a</AvailabilityZone><ErrorCode>"
        "InsufficientInstanceCapacity</ErrorCode><ErrorMessage>no room</ErrorMessage></member>"
        "</Errors></LaunchInstancesResult></LaunchInstancesResponse>");
    struct sc_asg_launch_info rep;

    (void)state;
    scn_reply_launch(d, &rep);
    assert_string_equal(rep.auto_scaling_group_name, "p-web");
    assert_string_equal(rep.client_token, "p-t");
    assert_int_equal(rep.ninstances, 1);
    assert_string_equal(rep.instances[0].instance_type, "m5.large");
    assert_string_equal(rep.instances[0].availability_zone_id, "use1-az1");
    assert_int_equal(rep.instances[0].ninstance_ids, 2);
    assert_string_equal(rep.instances[0].instance_ids[1], "i-2");
    assert_null(rep.instances[0].error_code);
    assert_int_equal(rep.nerrors, 1);
    assert_string_equal(rep.errors[0].error_code, "InsufficientInstanceCapacity");
    assert_string_equal(rep.errors[0].error_message, "no room");
    assert_int_equal(rep.errors[0].ninstance_ids, 0);
    scn_reply_launch_free(&rep);
    assert_int_equal(rep.ninstances, 0);
    /* no reply (a refused call): nothing */
    scn_reply_launch(NULL, &rep);
    assert_int_equal(rep.ninstances + rep.nerrors, 0);
    scn_reply_launch_free(&rep);
    xmlFreeDoc(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scn_reply_arn_substitute),
        cmocka_unit_test(test_scn_reply_ref_substitute),
        cmocka_unit_test(test_scn_reply_at_substitute),
        cmocka_unit_test(test_scn_reply_group),
        cmocka_unit_test(test_scn_reply_warm_pool),
        cmocka_unit_test(test_scn_reply_metric),
        cmocka_unit_test(test_scn_reply_metric_sum),
        cmocka_unit_test(test_scn_reply_alarms),
        cmocka_unit_test(test_scn_reply_activities),
        cmocka_unit_test(test_scn_reply_health_and_text),
        cmocka_unit_test(test_scn_reply_target_health_and_sum_max),
        cmocka_unit_test(test_scn_reply_launch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
