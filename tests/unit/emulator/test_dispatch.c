/* tests/unit/emulator/test_dispatch.c: emulator/dispatch.c, one request from memory to its
 * reply, over an emu with the records-only data plane and a manual clock: routing in each
 * protocol (Query and EC2 with Version or the SigV4 scope, JSON 1.0 by X-Amz-Target, RPC
 * v2 CBOR by path), the admin API, the world found once (Invalid region; catalogues need
 * none), unknown and unimplemented actions, gzip bodies, bodies over the cap (413), the
 * operation table's mutates flag (the same operations as the name rule it replaced) and
 * the step after a change (and none after a read). */
#include "emulator/dispatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <zlib.h>

#include "common/log.h"
#include "emulator/api.h"
#include "emulator/api_autoscaling_hooks.h"
#include "emulator/emu.h"
#include "emulator/state.h"
#include "scaler/ec2.h"
#include "scaler/world.h"

#define START_MS  1767225600000LL /* 2026-01-01 */
#define ACCOUNT   "123456789012"
#define FORM      "application/x-www-form-urlencoded"
#define JSON10    "application/x-amz-json-1.0"
#define TARGET    "GraniteServiceVersion20100801."
#define CBOR_PATH "/service/GraniteServiceVersion20100801/operation/"
#define SCOPE(r, s)                                                                                \
    "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/" r "/" s "/aws4_request, "                  \
    "SignedHeaders=host, Signature=00"
#define MAX_BODY 4096

struct fixture {
    struct emu *emu;
    struct dispatch *d;
    struct dispatch_response rs;
    int have_rs;
};

/* One request; its headers are name/value pairs ended by NULL. */
struct req {
    const char *method, *path, *query;
    const char *hdrs[8];
    const char *body;
    size_t len; /* 0: strlen(body) */
    int too_large;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    struct emu_config ec;
    struct dispatch_config dc;
    char err[256];

    cm_log_set_level(CM_LOG_ERROR);
    emu_config_defaults(&ec);
    ec.clock_manual = 1;
    ec.start_ms = START_MS;
    f->emu = emu_create(&ec);
    dispatch_config_defaults(&dc);
    dc.quiet = 1;
    dc.max_body = MAX_BODY;
    f->d = dispatch_create(&dc, f->emu, err, sizeof(err));
    if (!f->d)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    if (f->have_rs)
        dispatch_response_cleanup(&f->rs);
    dispatch_destroy(f->d);
    emu_destroy(f->emu);
    free(f);
    return 0;
}

/* Answers rq into f->rs (the previous reply is freed); returns f->rs. */
static struct dispatch_response *send_req(struct fixture *f, const struct req *rq)
{
    struct cm_sigv4_header h[4];
    struct dispatch_request r;
    int n = 0;

    for (int i = 0; rq->hdrs[i] && n < 4; i += 2, n++) {
        h[n].name = rq->hdrs[i];
        h[n].value = rq->hdrs[i + 1];
    }
    memset(&r, 0, sizeof(r));
    r.method = rq->method ? rq->method : "POST";
    r.path = rq->path ? rq->path : "/";
    r.query = rq->query ? rq->query : "";
    r.hdrs = h;
    r.nhdrs = n;
    r.body = rq->body ? rq->body : "";
    r.body_len = rq->len ? rq->len : strlen(r.body);
    r.too_large = rq->too_large;
    if (f->have_rs)
        dispatch_response_cleanup(&f->rs);
    dispatch_handle(f->d, &r, &f->rs);
    f->have_rs = 1;
    return &f->rs;
}

/* A Query request (POST, form body), signed for scope when it is non-NULL. */
static struct dispatch_response *query(struct fixture *f, const char *scope, const char *form)
{
    struct req rq = { .body = form };

    rq.hdrs[0] = "Content-Type";
    rq.hdrs[1] = FORM;
    if (scope) {
        rq.hdrs[2] = "Authorization";
        rq.hdrs[3] = scope;
    }
    return send_req(f, &rq);
}

static struct dispatch_response *json_call(struct fixture *f, const char *op, const char *body)
{
    char target[128];
    struct req rq = { .body = body };

    snprintf(target, sizeof(target), "%s%s", TARGET, op);
    rq.hdrs[0] = "Content-Type";
    rq.hdrs[1] = JSON10;
    rq.hdrs[2] = "X-Amz-Target";
    rq.hdrs[3] = target;
    return send_req(f, &rq);
}

static const char *header(const struct dispatch_response *rs, const char *name)
{
    for (int i = 0; i < rs->nheaders; i++) {
        if (strcasecmp(rs->headers[i].name, name) == 0)
            return rs->headers[i].value;
    }
    return NULL;
}

static void assert_body_has(const struct dispatch_response *rs, const char *text)
{
    if (!rs->body.data || !strstr(rs->body.data, text))
        fail_msg("body lacks \"%s\": %s", text, rs->body.data ? rs->body.data : "(empty)");
}

/* gzip (RFC 1952) of text into out; returns its length. */
static size_t gzip_of(const char *text, size_t n, char *out, size_t cap)
{
    z_stream z;

    memset(&z, 0, sizeof(z));
    assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (Bytef *)(uintptr_t)text;
    z.avail_in = (uInt)n;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    deflateEnd(&z);
    return cap - z.avail_out;
}

/* ---- routing ------------------------------------------------------------------------------ */

static void test_dispatch_routes_query(void **state)
{
    struct fixture *f = *state;
    struct dispatch_response *rs;

    rs = query(f, NULL, "Action=DescribeAutoScalingGroups&Version=2011-01-01");
    assert_int_equal(rs->status, 200);
    assert_string_equal(rs->content_type, "text/xml");
    assert_body_has(rs, "<DescribeAutoScalingGroupsResponse");
    assert_non_null(header(rs, "x-amzn-RequestId"));
    assert_body_has(rs, header(rs, "x-amzn-RequestId"));
    /* the service from the credential scope when there is no Version */
    rs = query(f, SCOPE("us-east-1", "elasticloadbalancing"), "Action=DescribeLoadBalancers");
    assert_int_equal(rs->status, 200);
    assert_body_has(rs, "<DescribeLoadBalancersResponse");
    /* GET carries the form in the query string; EC2 is its own flavour of Query */
    {
        struct req rq = { .method = "GET", .query = "Action=DescribeInstances&Version=2016-11-15" };

        rs = send_req(f, &rq);
    }
    assert_int_equal(rs->status, 200);
    assert_body_has(rs, "<DescribeInstancesResponse");
    assert_body_has(rs, "<requestId>");
}

static void test_dispatch_routes_json_target(void **state)
{
    struct fixture *f = *state;
    struct dispatch_response *rs;

    rs = json_call(f, "DescribeAlarms", "{}");
    assert_int_equal(rs->status, 200);
    assert_string_equal(rs->content_type, JSON10);
    assert_body_has(rs, "\"MetricAlarms\"");
    /* a target prefix no service has */
    {
        struct req rq = { .body = "{}" };

        rq.hdrs[0] = "X-Amz-Target";
        rq.hdrs[1] = "Nope_20100801.DescribeAlarms";
        rs = send_req(f, &rq);
    }
    assert_int_equal(rs->status, 400);
    assert_string_equal(header(rs, "X-Amzn-Errortype"), "UnknownOperationException");
}

static void test_dispatch_routes_cbor_path(void **state)
{
    struct fixture *f = *state;
    struct req rq = { .path = CBOR_PATH "DescribeAlarms", .body = "\xa0", .len = 1 };
    struct dispatch_response *rs;

    rq.hdrs[0] = "Content-Type";
    rq.hdrs[1] = "application/cbor";
    rs = send_req(f, &rq);
    assert_int_equal(rs->status, 200);
    assert_string_equal(rs->content_type, "application/cbor");
    assert_string_equal(header(rs, "smithy-protocol"), "rpc-v2-cbor");
    /* RPC v2 is POST only */
    rq.method = "GET";
    rs = send_req(f, &rq);
    assert_int_equal(rs->status, 405);
    assert_string_equal(header(rs, "x-amzn-query-error"), "MethodNotAllowed;Sender");
}

/* a change whose commit failed (disk full) answers 500 in the request's own protocol
 * (issue 19 finding 13: always XML, so a CBOR or JSON client saw only "500") */
static void test_dispatch_response_fail_in_the_request_protocol(void **state)
{
    struct fixture *f = *state;
    struct req rq = { .path = CBOR_PATH "ListMetrics", .body = "\xa0", .len = 1 };
    struct dispatch_response *rs;
    const char *msg = "scalelab could not save its state file";
    char rid[64];

    /* query */
    rs = query(f, NULL,
               "Action=PutMetricData&Version=2010-08-01&Namespace=n&"
               "MetricData.member.1.MetricName=m&MetricData.member.1.Value=1");
    assert_int_equal(rs->status, 200);
    snprintf(rid, sizeof(rid), "%s", header(rs, "x-amzn-RequestId"));
    dispatch_response_fail(rs, msg);
    assert_int_equal(rs->status, 500);
    assert_string_equal(rs->content_type, "text/xml");
    assert_body_has(rs, "<Code>InternalFailure</Code>");
    assert_body_has(rs, msg);
    assert_body_has(rs, rid);
    assert_string_equal(header(rs, "x-amzn-RequestId"), rid);
    /* JSON 1.0 */
    rs = json_call(f, "PutMetricData",
                   "{\"Namespace\":\"n\",\"MetricData\":[{\"MetricName\":\"m\",\"Value\":1}]}");
    assert_int_equal(rs->status, 200);
    dispatch_response_fail(rs, msg);
    assert_int_equal(rs->status, 500);
    assert_string_equal(rs->content_type, "application/x-amz-json-1.0");
    assert_string_equal(header(rs, "x-amzn-query-error"), "InternalFailure;Receiver");
    assert_body_has(rs, msg);
    /* RPC v2 CBOR */
    rq.hdrs[0] = "Content-Type";
    rq.hdrs[1] = "application/cbor";
    rq.path = CBOR_PATH "ListMetrics";
    rs = send_req(f, &rq);
    assert_int_equal(rs->status, 200);
    dispatch_response_fail(rs, msg);
    assert_int_equal(rs->status, 500);
    assert_string_equal(rs->content_type, "application/cbor");
    assert_string_equal(header(rs, "smithy-protocol"), "rpc-v2-cbor");
    assert_string_equal(header(rs, "x-amzn-query-error"), "InternalFailure;Receiver");
}

static void test_dispatch_routes_admin(void **state)
{
    struct fixture *f = *state;
    struct req rq = { .method = "GET", .path = "/_scalelab/health" };
    struct dispatch_response *rs;

    query(f, NULL, "Action=DescribeAlarms&Version=2010-08-01");
    rs = send_req(f, &rq);
    assert_int_equal(rs->status, 200);
    assert_string_equal(rs->content_type, "application/json");
    assert_body_has(rs, "\"requests\":2");
    assert_body_has(rs, "\"mode\":\"manual\"");
    assert_int_equal(dispatch_requests(f->d), 2);
}

/* GET / without an AWS Action is the console's front door: a few plain lines for curl;
 * with an Action it is an AWS request as before. */
static void test_dispatch_root_for_curl(void **state)
{
    struct fixture *f = *state;
    struct req rq = { .method = "GET", .path = "/", .hdrs = { "Host", "127.0.0.1:4566", NULL } };
    struct req aws = { .method = "GET", .path = "/", .query = "Action=DescribeAlarms" };
    struct dispatch_response *rs;

    rs = send_req(f, &rq);
    assert_int_equal(rs->status, 200);
    assert_string_equal(rs->content_type, "text/plain; charset=utf-8");
    assert_body_has(rs, "scalelab emulator");
    assert_body_has(rs, "region:   us-east-1");
    assert_body_has(rs, "account:  123456789012");
    assert_body_has(rs, "manual");
    assert_body_has(rs, "http://127.0.0.1:4566/_scalelab/");
    rs = send_req(f, &aws);
    assert_int_equal(rs->status, 400);
    assert_body_has(rs, "Could not determine the service of action DescribeAlarms");
}

/* A known admin path with another method: 405 and the methods it takes in Allow; an
 * unknown path 404; GET /_scalelab/ lists the endpoints. */
static void test_dispatch_admin_wrong_method_405(void **state)
{
    struct fixture *f = *state;
    struct req del = { .method = "DELETE", .path = "/_scalelab/clock" };
    struct req post = { .method = "POST", .path = "/_scalelab/events" };
    struct req nope = { .method = "GET", .path = "/_scalelab/nope" };
    struct req index = { .method = "GET", .path = "/_scalelab/" };
    struct dispatch_response *rs;

    rs = send_req(f, &del);
    assert_int_equal(rs->status, 405);
    assert_string_equal(header(rs, "Allow"), "GET, POST");
    rs = send_req(f, &post);
    assert_int_equal(rs->status, 405);
    assert_string_equal(header(rs, "Allow"), "GET");
    rs = send_req(f, &nope);
    assert_int_equal(rs->status, 404);
    rs = send_req(f, &index);
    assert_int_equal(rs->status, 200);
    assert_body_has(rs, "\"path\":\"/_scalelab/events\"");
    assert_body_has(rs, "docs/admin-api.md");
}

/* /_scalelab/events?format=jsonl: the group's launch events, one JSON object a line; the
 * default is a stream (the server subscribes); bad parameters answer 400. */
static void test_dispatch_events_jsonl(void **state)
{
    struct fixture *f = *state;
    struct req jl = { .method = "GET", .path = "/_scalelab/events", .query = "format=jsonl" };
    struct req since = { .method = "GET",
                         .path = "/_scalelab/events",
                         .query = "format=jsonl&since=999" };
    struct req sse = { .method = "GET", .path = "/_scalelab/events" };
    struct req bad = { .method = "GET", .path = "/_scalelab/events", .query = "since=x" };
    struct dispatch_response *rs;
    char body[2048];

    snprintf(body, sizeof(body),
             "Action=CreateLaunchConfiguration&Version=2011-01-01&"
             "LaunchConfigurationName=lc&ImageId=ami-12345678&"
             "InstanceType=t3.micro");
    assert_int_equal(query(f, NULL, body)->status, 200);
    assert_int_equal(query(f, NULL,
                           "Action=CreateAutoScalingGroup&Version=2011-01-01&"
                           "AutoScalingGroupName=web&LaunchConfigurationName=lc&MinSize=1&"
                           "MaxSize=2&AvailabilityZones.member.1=us-east-1a")
                         ->status,
                     200);
    rs = send_req(f, &jl);
    assert_int_equal(rs->status, 200);
    assert_string_equal(rs->content_type, "application/x-ndjson");
    assert_body_has(rs, "\"type\":\"activity_start\"");
    assert_body_has(rs, "\"type\":\"launch\",\"account\":\"123456789012\"");
    assert_body_has(rs, "\"group\":\"web\"");
    assert_body_has(rs, "a user request created an AutoScalingGroup");
    rs = send_req(f, &since);
    assert_int_equal(rs->status, 200);
    assert_int_equal(rs->body.len, 0);
    rs = send_req(f, &sse);
    assert_int_equal(rs->status, 200);
    assert_string_equal(rs->content_type, "text/event-stream");
    assert_non_null(rs->stream);
    rs = send_req(f, &bad);
    assert_int_equal(rs->status, 400);
}

/* ---- the world ---------------------------------------------------------------------------- */

/* Worlds only for AWS's regions (emulator/region.h) and --region, made only by a change
 * (issue 19 finding 7: any scope's region, even a read's, made a world saved for good, and
 * after 32 of them real regions were refused). */
static void test_dispatch_worlds_only_for_aws_regions_and_by_a_change(void **state)
{
    struct fixture *f = *state;
    struct dispatch_response *rs;
    static const char *const made_up[] = { "Not_A_Region", "xx-fake-1", "us-east-7" };

    /* a made-up region: AWS's answer to a credential scope of an unknown region, in every
     * service, and no world */
    for (size_t i = 0; i < sizeof(made_up) / sizeof(made_up[0]); i++) {
        char scope[256];

        snprintf(scope, sizeof(scope),
                 "AWS4-HMAC-SHA256 Credential=AKID/20260101/%s/autoscaling/aws4_request, "
                 "SignedHeaders=host, Signature=00",
                 made_up[i]);
        rs = query(f, scope, "Action=DescribeAutoScalingGroups");
        assert_int_equal(rs->status, 403);
        assert_body_has(rs, "<Code>SignatureDoesNotMatch</Code>");
        assert_body_has(rs, "Credential should be scoped to a valid region, not");
        assert_body_has(rs, made_up[i]);
        assert_int_equal(rs->state_kind, 0);
    }
    rs = query(f, SCOPE("xx-fake-1", "monitoring"),
               "Action=SetAlarmState&AlarmName=a&StateValue=OK&StateReason=r");
    assert_int_equal(rs->status, 403);
    assert_body_has(rs, "Credential should be scoped to a valid region, not");
    assert_int_equal(emu_world_count(f->emu), 0);
    /* catalogues read no world: any region answers, and none is made */
    rs = query(f, SCOPE("Not_A_Region", "autoscaling"), "Action=DescribeAdjustmentTypes");
    assert_int_equal(rs->status, 200);
    rs = query(f, SCOPE("eu-west-3", "ec2"), "Action=DescribeInstanceTypes&Version=2016-11-15");
    assert_int_equal(rs->status, 200);
    assert_int_equal(emu_world_count(f->emu), 0);
    /* reads of a real region answer from an empty world and make none */
    rs = query(f, SCOPE("eu-west-3", "autoscaling"), "Action=DescribeAutoScalingGroups");
    assert_int_equal(rs->status, 200);
    assert_body_has(rs, "<AutoScalingGroups/>");
    rs = query(f, SCOPE("eu-west-3", "elasticloadbalancing"), "Action=DescribeLoadBalancers");
    assert_int_equal(rs->status, 200);
    rs = query(f, SCOPE("ap-southeast-7", "ec2"), "Action=DescribeVpcs&Version=2016-11-15");
    assert_int_equal(rs->status, 200);
    assert_body_has(rs, "172.31.0.0/16");
    assert_int_equal(emu_world_count(f->emu), 0);
    /* a change makes the world, once */
    rs = query(f, SCOPE("eu-west-3", "autoscaling"),
               "Action=CreateLaunchConfiguration&LaunchConfigurationName=lc&ImageId=ami-12345678&"
               "InstanceType=m1.small");
    assert_int_equal(rs->status, 200);
    rs = query(f, SCOPE("eu-west-3", "autoscaling"), "Action=DescribeLaunchConfigurations");
    assert_body_has(rs, "<LaunchConfigurationName>lc</LaunchConfigurationName>");
    assert_int_equal(emu_world_count(f->emu), 1);
    assert_non_null(emu_world_find(f->emu, ACCOUNT, "eu-west-3"));
    /* ten more AWS regions */
    for (int i = 0; i < 10; i++) {
        static const char *const some[] = { "us-east-1",    "us-east-2",  "us-west-1",
                                            "us-west-2",    "eu-west-1",  "eu-west-2",
                                            "eu-central-1", "ap-south-1", "sa-east-1",
                                            "ca-central-1" };

        char scope[256];

        snprintf(scope, sizeof(scope),
                 "AWS4-HMAC-SHA256 Credential=AKID/20260101/%s/monitoring/aws4_request, "
                 "SignedHeaders=host, Signature=00",
                 some[i]);
        rs = query(f, scope, "Action=SetAlarmState&AlarmName=a&StateValue=OK&StateReason=r");
        assert_int_not_equal(rs->status, 403);
    }
    assert_int_equal(emu_world_count(f->emu), 11);
}

/* ---- errors ------------------------------------------------------------------------------- */

static void test_dispatch_unknown_action(void **state)
{
    struct fixture *f = *state;
    struct dispatch_response *rs;

    rs = query(f, NULL, "Action=Frobnicate&Version=2011-01-01");
    assert_int_equal(rs->status, 400);
    assert_string_equal(rs->content_type, "text/xml");
    assert_body_has(rs, "<Code>InvalidAction</Code>");
    assert_body_has(rs, "The action Frobnicate is not valid for this web service.");
    rs = json_call(f, "Frobnicate", "{}");
    assert_int_equal(rs->status, 400);
    assert_string_equal(header(rs, "X-Amzn-Errortype"), "UnknownOperationException");
    rs = query(f, NULL, "Version=2011-01-01");
    assert_int_equal(rs->status, 400);
    assert_body_has(rs, "<Code>MissingAction</Code>");
    /* no Version and no scope: the service cannot be known */
    rs = query(f, NULL, "Action=DescribeAlarms");
    assert_int_equal(rs->status, 400);
    assert_body_has(rs, "Could not determine the service of action DescribeAlarms");
    /* LaunchInstances, the last operation of the models without a handler (it answered
     * NotImplemented until issue 13 part 9), reaches its handler: every operation of every
     * model is served, so no request reaches the NotImplemented answer any more */
    rs = query(
        f, NULL,
        "Action=LaunchInstances&Version=2011-01-01&AutoScalingGroupName=g&RequestedCapacity=1&ClientToken=t");
    assert_int_equal(rs->status, 400);
    assert_body_has(rs, "AutoScalingGroup name not found - AutoScalingGroup: g not found");
}

/* issue 19 finding 13: a %00 in Action cut the name, so DescribeAlarms%00Foo ran
 * DescribeAlarms; a %00 in a key made it another key */
static void test_dispatch_action_with_nul_refused(void **state)
{
    struct fixture *f = *state;
    struct dispatch_response *rs;

    rs = query(f, NULL, "Action=DescribeAlarms%00Foo&Version=2010-08-01");
    assert_int_equal(rs->status, 400);
    assert_body_has(rs, "<Code>InvalidAction</Code>");
    assert_body_has(rs, "The action DescribeAlarms%00... is not valid for this web service.");
    rs = query(f, NULL, "Action%00x=DescribeAlarms&Version=2010-08-01");
    assert_int_equal(rs->status, 400);
    assert_body_has(rs, "<Code>MissingAction</Code>");
    /* a member name with a NUL names no member: the filter is not applied */
    rs = query(f, NULL,
               "Action=PutMetricAlarm&Version=2010-08-01&AlarmName=a&MetricName=m&Namespace=n&"
               "Statistic=Average&Period=60&EvaluationPeriods=1&Threshold=1&"
               "ComparisonOperator=GreaterThanThreshold");
    assert_int_equal(rs->status, 200);
    rs = query(f, NULL, "Action=DescribeAlarms&Version=2010-08-01&AlarmNames.member.1%00x=zz");
    assert_int_equal(rs->status, 200);
    assert_body_has(rs, "<AlarmName>a</AlarmName>");
}

static void test_dispatch_gzip_body(void **state)
{
    struct fixture *f = *state;
    const char *form = "Action=PutMetricData&Version=2010-08-01&Namespace=Gz&"
                       "MetricData.member.1.MetricName=m&MetricData.member.1.Value=2";
    char gz[512];
    struct req rq = { .body = gz };
    struct dispatch_response *rs;

    rq.len = gzip_of(form, strlen(form), gz, sizeof(gz));
    rq.hdrs[0] = "Content-Type";
    rq.hdrs[1] = FORM;
    rq.hdrs[2] = "Content-Encoding";
    rq.hdrs[3] = "gzip";
    rs = send_req(f, &rq);
    assert_int_equal(rs->status, 200);
    assert_body_has(rs, "<PutMetricDataResponse");
    rs = json_call(f, "ListMetrics", "{\"Namespace\":\"Gz\"}");
    assert_int_equal(rs->status, 200);
    assert_body_has(rs, "\"MetricName\":\"m\"");
    /* RFC 1952: two members are one body (issue 19 finding 13: only the first was read) */
    {
        const char *half = "Action=PutMetricData&Version=2010-08-01&Namespace=Gz2&";
        const char *rest = "MetricData.member.1.MetricName=m2&MetricData.member.1.Value=2";
        size_t a = gzip_of(half, strlen(half), gz, sizeof(gz));

        rq.len = a + gzip_of(rest, strlen(rest), gz + a, sizeof(gz) - a);
        rs = send_req(f, &rq);
        assert_int_equal(rs->status, 200);
        rs = json_call(f, "ListMetrics", "{\"Namespace\":\"Gz2\"}");
        assert_body_has(rs, "\"MetricName\":\"m2\"");
        /* trailing garbage after a member is a malformed body, and nothing is stored */
        rq.len = gzip_of(form, strlen(form), gz, sizeof(gz));
        memcpy(gz + rq.len, "XYZ", 3);
        rq.len += 3;
        rs = send_req(f, &rq);
        assert_int_equal(rs->status, 400);
        assert_body_has(rs, "<Code>SerializationException</Code>");
        /* a truncated member too */
        rq.len = gzip_of(form, strlen(form), gz, sizeof(gz)) - 4;
        rs = send_req(f, &rq);
        assert_int_equal(rs->status, 400);
    }
    /* not gzip at all */
    rq.body = "plain text";
    rq.len = 0;
    rs = send_req(f, &rq);
    assert_int_equal(rs->status, 400);
    assert_body_has(rs, "<Code>SerializationException</Code>");
}

static void test_dispatch_too_large_body(void **state)
{
    struct fixture *f = *state;
    struct req rq = { .too_large = 1 };
    struct dispatch_response *rs;
    char *big = calloc(1, 4 * MAX_BODY), gz[1024];

    /* the server dropped the body: answered in the protocol the request announced */
    rq.hdrs[0] = "Content-Type";
    rq.hdrs[1] = FORM;
    rs = send_req(f, &rq);
    assert_int_equal(rs->status, 413);
    assert_string_equal(rs->content_type, "text/xml");
    assert_body_has(rs, "<Code>RequestEntityTooLarge</Code>");
    assert_body_has(rs, "Request body exceeds 4096 bytes");
    rq.hdrs[0] = "X-Amz-Target";
    rq.hdrs[1] = TARGET "PutMetricData";
    rs = send_req(f, &rq);
    assert_int_equal(rs->status, 413);
    assert_string_equal(rs->content_type, JSON10);
    rq.hdrs[0] = NULL;
    rq.path = CBOR_PATH "PutMetricData";
    rs = send_req(f, &rq);
    assert_int_equal(rs->status, 413);
    assert_string_equal(rs->content_type, "application/cbor");
    /* small on the wire, over the cap once inflated */
    memset(big, 'a', 4 * MAX_BODY - 1);
    memset(&rq, 0, sizeof(rq));
    rq.body = gz;
    rq.len = gzip_of(big, 4 * MAX_BODY - 1, gz, sizeof(gz));
    rq.hdrs[0] = "Content-Encoding";
    rq.hdrs[1] = "gzip";
    rq.hdrs[2] = "X-Amz-Target";
    rq.hdrs[3] = TARGET "PutMetricData";
    rs = send_req(f, &rq);
    assert_int_equal(rs->status, 413);
    assert_string_equal(header(rs, "X-Amzn-Errortype"), "RequestEntityTooLarge");
    free(big);
}

/* A NaN datapoint over CBOR reaches PutMetricData's rule: AWS's InvalidParameterValue
 * (moto test_put_metric_data_can_not_have_nan), not the wire layer's ValidationError. */
static void test_dispatch_cbor_nan_value_is_invalid_parameter_value(void **state)
{
    static const char body[] = "\xa2\x69Namespace\x63"
                               "App\x6aMetricData\x81\xa2\x6aMetricName"
                               "\x61m\x65Value\xf9\x7e\x00";
    struct fixture *f = *state;
    struct req rq = { .path = CBOR_PATH "PutMetricData", .body = body, .len = sizeof(body) - 1 };
    struct dispatch_response *rs;

    rq.hdrs[0] = "Content-Type";
    rq.hdrs[1] = "application/cbor";
    rs = send_req(f, &rq);
    assert_int_equal(rs->status, 400);
    assert_string_equal(header(rs, "x-amzn-query-error"), "InvalidParameterValue;Sender");
    assert_true(memmem(rs->body.data, rs->body.len,
                       "The value NaN for parameter "
                       "MetricData.member.1.Value is invalid.",
                       57) != NULL);
}

/* ---- changes ------------------------------------------------------------------------------ */

static int name_says_read(const char *op)
{
    return strncmp(op, "Describe", 8) == 0 || strncmp(op, "List", 4) == 0 ||
           strncmp(op, "Get", 3) == 0;
}

static void test_dispatch_mutates_flag(void **state)
{
    const struct api_handler *tables[] = { api_autoscaling_handlers, api_autoscaling_hook_handlers,
                                           api_elb_handlers,         api_elbv2_handlers,
                                           api_cloudwatch_handlers,  api_ec2_handlers };
    struct fixture *f = *state;
    struct dispatch_response *rs;
    int n = 0, journal = 0;

    /* every operation is marked as the name rule it replaced decided at request time */
    for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
        for (const struct api_handler *h = tables[t]; h->op; h++, n++) {
            int mutates = (h->flags & API_MUTATES) != 0;

            if (mutates == name_says_read(h->op))
                fail_msg("%s: mutates flag %d", h->op, mutates);
            if (h->flags & API_JOURNAL) {
                assert_string_equal(h->op, "PutMetricData");
                journal++;
            }
            if (h->flags & API_WORLDLESS)
                assert_true(name_says_read(h->op));
        }
    }
    assert_true(n > 80);
    assert_int_equal(journal, 1);
    /* and the reply says what became durable */
    rs = query(f, NULL, "Action=DescribeAlarms&Version=2010-08-01");
    assert_int_equal(rs->status, 200);
    assert_int_equal(rs->state_kind, 0);
    rs = query(f, NULL,
               "Action=SetAlarmState&Version=2010-08-01&AlarmName=none&StateValue=OK&"
               "StateReason=r");
    assert_int_equal(rs->status, 404); /* ResourceNotFound: a failed change changes nothing */
    assert_int_equal(rs->state_kind, 0);
    rs = query(f, NULL,
               "Action=PutMetricAlarm&Version=2010-08-01&AlarmName=hi&MetricName=m&Namespace=N&"
               "Statistic=Average&Period=60&EvaluationPeriods=1&Threshold=1&"
               "ComparisonOperator=GreaterThanThreshold");
    assert_int_equal(rs->status, 200);
    assert_int_equal(rs->state_kind, STATE_SNAPSHOT);
    rs = json_call(f, "PutMetricData",
                   "{\"Namespace\":\"N\",\"MetricData\":[{\"MetricName\":\"m\","
                   "\"Value\":1}]}");
    assert_int_equal(rs->status, 200);
    assert_int_equal(rs->state_kind, STATE_JOURNAL);
}

static enum sc_ec2_state first_state(struct fixture *f)
{
    struct sc_world *w = emu_world_find(f->emu, ACCOUNT, "us-east-1");
    struct sc_ec2 *ec2 = sc_world_ec2(w);

    assert_int_equal(sc_ec2_instance_count(ec2), 1);
    return sc_ec2_instance_at(ec2, 0)->state;
}

static void test_dispatch_mutation_steps(void **state)
{
    struct fixture *f = *state;
    struct dispatch_response *rs;
    struct sc_ec2_run_req rr;
    const struct sc_ec2_reservation *res;
    struct sc_error se;
    char form[256];

    /* a change is stepped at once: the records-only data plane brings the instance up */
    rs = query(f, NULL,
               "Action=RunInstances&Version=2016-11-15&ImageId=ami-12345678&MinCount=1&MaxCount=1");
    assert_int_equal(rs->status, 200);
    assert_body_has(rs, "<name>pending</name>"); /* the reply is rendered before the step */
    assert_int_equal(first_state(f), SC_EC2_RUNNING);
    snprintf(form, sizeof(form), "Action=TerminateInstances&Version=2016-11-15&InstanceId.1=%s",
             sc_ec2_instance_at(sc_world_ec2(emu_world_find(f->emu, ACCOUNT, "us-east-1")), 0)
                 ->instance_id);
    rs = query(f, NULL, form);
    assert_int_equal(rs->status, 200);
    assert_int_equal(first_state(f), SC_EC2_TERMINATED);
    /* a read is not stepped: an instance launched behind its back stays pending */
    memset(&rr, 0, sizeof(rr));
    rr.image_id = "ami-12345678";
    rr.min_count = rr.max_count = 1;
    assert_int_equal(sc_ec2_run_instances(sc_world_ec2(emu_world(f->emu, ACCOUNT, "us-east-1")),
                                          &rr, emu_now_ms(f->emu), &res, &se),
                     SC_OK);
    rs = query(f, NULL, "Action=DescribeInstances&Version=2016-11-15");
    assert_int_equal(rs->status, 200);
    assert_body_has(rs, "<name>pending</name>");
    rs = query(f, NULL, "Action=DescribeInstances&Version=2016-11-15");
    assert_body_has(rs, "<name>pending</name>");
    /* the next change steps every world */
    rs = query(f, NULL, "Action=CreateVpc&Version=2016-11-15&CidrBlock=10.1.0.0/16");
    assert_int_equal(rs->status, 200);
    rs = query(f, NULL, "Action=DescribeInstances&Version=2016-11-15");
    assert_null(strstr(rs->body.data, "<name>pending</name>"));
    assert_body_has(rs, "<name>running</name>");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dispatch_routes_query, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_routes_json_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_routes_cbor_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_cbor_nan_value_is_invalid_parameter_value,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_routes_admin, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_worlds_only_for_aws_regions_and_by_a_change,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_unknown_action, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_action_with_nul_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_gzip_body, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_response_fail_in_the_request_protocol, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_too_large_body, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_mutates_flag, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_mutation_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_root_for_curl, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_admin_wrong_method_405, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch_events_jsonl, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
