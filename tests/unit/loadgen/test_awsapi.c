/* tests/unit/loadgen/test_awsapi.c: loadgen/awsapi.c: shared-file parsing, configuration
 * resolution tables, endpoints, form encoding, XML reply and error parsing, retry
 * classification, and the retry loop against a scripted loopback server. */
#include "loadgen/awsapi.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* --- INI ---------------------------------------------------------------------------- */

static const char *const ini_text = "# comment\n"
                                    "[default]\n"
                                    "aws_access_key_id = AKIDDEFAULT\n"
                                    "aws_secret_access_key=secret/with=equals\n"
                                    "; another comment\n"
                                    "[ dev ]\n"
                                    "region = eu-west-1  \n"
                                    "s3 =\n"
                                    "  region = not-this-one\n"
                                    "  max_concurrent_requests = 4\n"
                                    "output = json\n"
                                    "[profile dev]\n"
                                    "region = ap-south-1\n"
                                    "endpoint_url = http://127.0.0.1:4566\n";

static void test_awsapi_ini_table(void **state)
{
    static const struct {
        const char *section, *key, *want; /* want NULL: absent */
    } rows[] = {
        { "default", "aws_access_key_id", "AKIDDEFAULT" },
        { "default", "aws_secret_access_key", "secret/with=equals" },
        { "default", "region", NULL },
        { "dev", "region", "eu-west-1" }, /* nested s3 region skipped */
        { "dev", "output", "json" },      /* after the nested block */
        { "dev", "max_concurrent_requests", NULL },
        { "profile dev", "region", "ap-south-1" },
        { "profile dev", "endpoint_url", "http://127.0.0.1:4566" },
        { "nope", "region", NULL },
        { "default", "AWS_ACCESS_KEY_ID", NULL }, /* keys are case-sensitive */
    };
    char out[128];

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        int rc = aws_ini_get(ini_text, rows[i].section, rows[i].key, out, sizeof(out));

        if (rows[i].want) {
            assert_int_equal(rc, 0);
            assert_string_equal(out, rows[i].want);
        } else {
            assert_int_equal(rc, -1);
            assert_string_equal(out, "");
        }
    }
    assert_int_equal(aws_ini_get(NULL, "default", "x", out, sizeof(out)), -1);
    /* truncation keeps a terminated string */
    assert_int_equal(aws_ini_get(ini_text, "default", "aws_access_key_id", out, 5), 0);
    assert_string_equal(out, "AKID");
}

/* --- configuration resolution ------------------------------------------------------------- */

struct fake_env {
    const char *kv[32]; /* name, value pairs, NULL-terminated */
};

static const char *fake_get(const char *name, void *ud)
{
    struct fake_env *e = ud;

    for (int i = 0; e->kv[i]; i += 2) {
        if (strcmp(e->kv[i], name) == 0)
            return e->kv[i + 1];
    }
    return NULL;
}

static char dir[256], cred_path[300], conf_path[300];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int files_setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/test_awsapi.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(cred_path, sizeof(cred_path), "%s/credentials", dir);
    snprintf(conf_path, sizeof(conf_path), "%s/config", dir);
    write_file(cred_path, "[default]\n"
                          "aws_access_key_id = AKIDCREDDEF\n"
                          "aws_secret_access_key = SECRETCREDDEF\n"
                          "[prod]\n"
                          "aws_access_key_id = AKIDPROD\n"
                          "aws_secret_access_key = SECRETPROD\n"
                          "aws_session_token = TOKENPROD\n");
    write_file(conf_path, "[default]\n"
                          "region = us-west-2\n"
                          "[profile prod]\n"
                          "region = eu-central-1\n"
                          "[profile cfgonly]\n"
                          "aws_access_key_id = AKIDCFG\n"
                          "aws_secret_access_key = SECRETCFG\n"
                          "endpoint_url = http://127.0.0.1:9\n");
    return 0;
}

static int files_teardown(void **state)
{
    (void)state;
    unlink(cred_path);
    unlink(conf_path);
    rmdir(dir);
    return 0;
}

static void test_awsapi_config_resolution_table(void **state)
{
    static const struct {
        const char *name;
        const char *env[16];
        const char *akid, *secret, *token, *region, *endpoint, *source;
    } rows[] = {
        { "default profile from the files",
          { NULL },
          "AKIDCREDDEF",
          "SECRETCREDDEF",
          "",
          "us-west-2",
          "",
          "shared-credentials-file" },
        { "env keys beat the files",
          { "AWS_ACCESS_KEY_ID", "AKIDENV", "AWS_SECRET_ACCESS_KEY", "SECRETENV",
            "AWS_SESSION_TOKEN", "TOKENENV", NULL },
          "AKIDENV",
          "SECRETENV",
          "TOKENENV",
          "us-west-2",
          "",
          "env" },
        { "env key without secret falls back",
          { "AWS_ACCESS_KEY_ID", "AKIDENV", NULL },
          "AKIDCREDDEF",
          "SECRETCREDDEF",
          "",
          "us-west-2",
          "",
          "shared-credentials-file" },
        { "AWS_PROFILE picks [prod] and [profile prod]",
          { "AWS_PROFILE", "prod", NULL },
          "AKIDPROD",
          "SECRETPROD",
          "TOKENPROD",
          "eu-central-1",
          "",
          "shared-credentials-file" },
        { "AWS_DEFAULT_PROFILE when AWS_PROFILE is unset",
          { "AWS_DEFAULT_PROFILE", "prod", NULL },
          "AKIDPROD",
          "SECRETPROD",
          "TOKENPROD",
          "eu-central-1",
          "",
          "shared-credentials-file" },
        { "keys in the config file",
          { "AWS_PROFILE", "cfgonly", NULL },
          "AKIDCFG",
          "SECRETCFG",
          "",
          "",
          "http://127.0.0.1:9",
          "config-file" },
        { "AWS_REGION beats AWS_DEFAULT_REGION beats the profile",
          { "AWS_REGION", "sa-east-1", "AWS_DEFAULT_REGION", "ca-central-1", NULL },
          "AKIDCREDDEF",
          "SECRETCREDDEF",
          "",
          "sa-east-1",
          "",
          "shared-credentials-file" },
        { "AWS_DEFAULT_REGION",
          { "AWS_DEFAULT_REGION", "ca-central-1", NULL },
          "AKIDCREDDEF",
          "SECRETCREDDEF",
          "",
          "ca-central-1",
          "",
          "shared-credentials-file" },
        { "AWS_ENDPOINT_URL beats the profile's",
          { "AWS_PROFILE", "cfgonly", "AWS_ENDPOINT_URL", "http://localhost:1", NULL },
          "AKIDCFG",
          "SECRETCFG",
          "",
          "",
          "http://localhost:1",
          "config-file" },
        { "empty variables count as unset",
          { "AWS_REGION", "", "AWS_ACCESS_KEY_ID", "", "AWS_SECRET_ACCESS_KEY", "", NULL },
          "AKIDCREDDEF",
          "SECRETCREDDEF",
          "",
          "us-west-2",
          "",
          "shared-credentials-file" },
    };
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct fake_env e;
        struct aws_config cfg;
        int n = 0;

        memset(&e, 0, sizeof(e));
        e.kv[n++] = "AWS_SHARED_CREDENTIALS_FILE";
        e.kv[n++] = cred_path;
        e.kv[n++] = "AWS_CONFIG_FILE";
        e.kv[n++] = conf_path;
        for (int j = 0; rows[i].env[j]; j++)
            e.kv[n++] = rows[i].env[j];
        print_message("# %s\n", rows[i].name);
        assert_int_equal(aws_config_resolve(&cfg, fake_get, &e, err, sizeof(err)), 0);
        assert_string_equal(cfg.access_key_id, rows[i].akid);
        assert_string_equal(cfg.secret_access_key, rows[i].secret);
        assert_string_equal(cfg.session_token, rows[i].token);
        assert_string_equal(cfg.region, rows[i].region);
        assert_string_equal(cfg.endpoint_url, rows[i].endpoint);
        assert_string_equal(cfg.credential_source, rows[i].source);
    }
}

static void test_awsapi_config_missing_profile_and_files(void **state)
{
    struct fake_env e = { { "AWS_SHARED_CREDENTIALS_FILE", NULL, "AWS_CONFIG_FILE", NULL,
                            "AWS_PROFILE", "ghost", NULL } };
    struct aws_config cfg;
    char err[256];

    (void)state;
    e.kv[1] = cred_path;
    e.kv[3] = conf_path;
    assert_int_equal(aws_config_resolve(&cfg, fake_get, &e, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "ghost"));
    /* no files at all and no env: no credentials, not an error */
    e.kv[1] = "/nonexistent/credentials";
    e.kv[3] = "/nonexistent/config";
    e.kv[4] = NULL;
    assert_int_equal(aws_config_resolve(&cfg, fake_get, &e, err, sizeof(err)), 0);
    assert_string_equal(cfg.access_key_id, "");
    assert_string_equal(cfg.profile, "default");
    assert_null(aws_client_create(&cfg, NULL, fake_get, &e, err, sizeof(err)));
    assert_non_null(strstr(err, "credentials"));
    /* HOME/.aws is the default location */
    {
        char home_aws[300], p[340];
        struct fake_env h = { { "HOME", dir, NULL } };

        snprintf(home_aws, sizeof(home_aws), "%s/.aws", dir);
        assert_int_equal(mkdir(home_aws, 0700), 0);
        snprintf(p, sizeof(p), "%s/credentials", home_aws);
        write_file(p, "[default]\naws_access_key_id=AKIDHOME\naws_secret_access_key=S\n");
        assert_int_equal(aws_config_resolve(&cfg, fake_get, &h, err, sizeof(err)), 0);
        assert_string_equal(cfg.access_key_id, "AKIDHOME");
        unlink(p);
        rmdir(home_aws);
    }
}

static void test_awsapi_endpoints(void **state)
{
    struct aws_config cfg;
    struct fake_env e = { { "AWS_ENDPOINT_URL_AUTO_SCALING", "http://as:1",
                            "AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING", "http://elb:2",
                            "AWS_ENDPOINT_URL_CLOUDWATCH", "http://cw:3", NULL } };
    struct fake_env none = { { NULL } };
    char out[256];

    (void)state;
    memset(&cfg, 0, sizeof(cfg));
    assert_int_equal(aws_endpoint_for(&cfg, AWS_EC2, fake_get, &none, out, sizeof(out)), -1);
    snprintf(cfg.region, sizeof(cfg.region), "eu-west-1");
    assert_int_equal(aws_endpoint_for(&cfg, AWS_EC2, fake_get, &none, out, sizeof(out)), 0);
    assert_string_equal(out, "https://ec2.eu-west-1.amazonaws.com");
    aws_endpoint_for(&cfg, AWS_CLOUDWATCH, fake_get, &none, out, sizeof(out));
    assert_string_equal(out, "https://monitoring.eu-west-1.amazonaws.com");
    aws_endpoint_for(&cfg, AWS_ELB, fake_get, &none, out, sizeof(out));
    assert_string_equal(out, "https://elasticloadbalancing.eu-west-1.amazonaws.com");
    snprintf(cfg.endpoint_url, sizeof(cfg.endpoint_url), "http://all:9");
    aws_endpoint_for(&cfg, AWS_AUTOSCALING, fake_get, &e, out, sizeof(out));
    assert_string_equal(out, "http://as:1");
    aws_endpoint_for(&cfg, AWS_ELB, fake_get, &e, out, sizeof(out));
    assert_string_equal(out, "http://elb:2");
    aws_endpoint_for(&cfg, AWS_CLOUDWATCH, fake_get, &e, out, sizeof(out));
    assert_string_equal(out, "http://cw:3");
    aws_endpoint_for(&cfg, AWS_EC2, fake_get, &e, out, sizeof(out));
    assert_string_equal(out, "http://all:9");
    assert_string_equal(aws_service_name(AWS_CLOUDWATCH), "monitoring");
    assert_string_equal(aws_service_version(AWS_AUTOSCALING), "2011-01-01");
}

static void test_awsapi_form_encoding_and_lists(void **state)
{
    struct aws_params p;
    const char *const names[] = { "a b", "c/d+e" };
    char *form;

    (void)state;
    aws_params_init(&p);
    aws_params_add(&p, "AutoScalingGroupName", "lab-1 x");
    aws_params_addf(&p, "MaxSize", "%d", 10);
    aws_params_add_list(&p, "AlarmNames", 1, names, 2);
    aws_params_add_list(&p, "InstanceId.", 0, names, 1);
    form = aws_params_form(&p, "CreateAutoScalingGroup", "2011-01-01");
    assert_string_equal(form, "Action=CreateAutoScalingGroup&Version=2011-01-01"
                              "&AutoScalingGroupName=lab-1%20x&MaxSize=10"
                              "&AlarmNames.member.1=a%20b&AlarmNames.member.2=c%2Fd%2Be"
                              "&InstanceId.1=a%20b");
    free(form);
    aws_params_cleanup(&p);
    form = aws_params_form(NULL, "DescribeVpcs", "2016-11-15");
    assert_string_equal(form, "Action=DescribeVpcs&Version=2016-11-15");
    free(form);
}

/* --- XML ---------------------------------------------------------------------------------- */

static void test_awsapi_xml_reply_lists(void **state)
{
    static const char body[] =
        "<?xml version=\"1.0\"?>\n"
        "<DescribeAutoScalingGroupsResponse xmlns=\"http://autoscaling.amazonaws.com/doc/2011-01-01/\">"
        "<DescribeAutoScalingGroupsResult><AutoScalingGroups>"
        "<member><AutoScalingGroupName>g1</AutoScalingGroupName><DesiredCapacity>2</DesiredCapacity>"
        "<Instances><member><InstanceId>i-1</InstanceId><LifecycleState>InService</LifecycleState></member>"
        "<member><InstanceId>i-2</InstanceId><LifecycleState>Pending</LifecycleState></member></Instances>"
        "</member>"
        "<member><AutoScalingGroupName>g&amp;2</AutoScalingGroupName><DesiredCapacity>0</DesiredCapacity>"
        "<Instances/></member>"
        "</AutoScalingGroups></DescribeAutoScalingGroupsResult>"
        "<ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>"
        "</DescribeAutoScalingGroupsResponse>";
    xmlDoc *doc = xmlReadMemory(body, (int)strlen(body), "t.xml", NULL, XML_PARSE_NONET);
    xmlNode *root, *groups, *g, *inst;
    char v[64];
    int n = 0;

    (void)state;
    assert_non_null(doc);
    root = xmlDocGetRootElement(doc);
    groups = aws_xml_find(root, "AutoScalingGroups");
    assert_non_null(groups);
    g = aws_xml_find(groups, "member");
    assert_non_null(g);
    assert_int_equal(aws_xml_text(g, "AutoScalingGroupName", v, sizeof(v)), 0);
    assert_string_equal(v, "g1");
    inst = aws_xml_find(aws_xml_find(g, "Instances"), "member");
    for (; inst; inst = aws_xml_next(inst))
        n++;
    assert_int_equal(n, 2);
    g = aws_xml_next(g);
    assert_non_null(g);
    aws_xml_text(g, "AutoScalingGroupName", v, sizeof(v));
    assert_string_equal(v, "g&2"); /* entities decoded by the parser */
    assert_null(aws_xml_find(aws_xml_find(g, "Instances"), "member"));
    assert_null(aws_xml_next(g));
    assert_int_equal(aws_xml_text(g, "Nope", v, sizeof(v)), -1);
    assert_string_equal(v, "");
    xmlFreeDoc(doc);
}

static void test_awsapi_error_parsing_table(void **state)
{
    static const struct {
        const char *body;
        int rc;
        const char *code, *message, *request_id;
    } rows[] = {
        { "<ErrorResponse xmlns=\"http://autoscaling.amazonaws.com/doc/2011-01-01/\"><Error>"
          "<Type>Sender</Type><Code>ValidationError</Code><Message>Max bound, 0, must be "
          "greater than or equal to min bound, 1</Message></Error><RequestId>abc</RequestId>"
          "</ErrorResponse>",
          0, "ValidationError", "Max bound, 0, must be greater than or equal to min bound, 1",
          "abc" },
        { "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error>"
          "<Code>InvalidInstanceID.NotFound</Code><Message>The instance ID 'i-1' does not "
          "exist</Message></Error></Errors><RequestID>ec2id</RequestID></Response>",
          0, "InvalidInstanceID.NotFound", "The instance ID 'i-1' does not exist", "ec2id" },
        { "<ErrorResponse><Error><Code>Throttling</Code></Error></ErrorResponse>", 0, "Throttling",
          "", "" },
        { "<ErrorResponse><Error><Message>no code</Message></Error></ErrorResponse>", -1, "", "",
          "" },
        { "<html><body>502 Bad Gateway</body></html>", -1, "", "", "" },
        { "<ErrorResponse><Error><Code>Unclosed", -1, "", "", "" },
        { "", -1, "", "", "" },
        { "{\"__type\":\"Throttling\"}", -1, "", "", "" },
        /* an external entity is not fetched, and the document still parses */
        { "<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><ErrorResponse><Error>"
          "<Code>C</Code><Message>&x;</Message></Error></ErrorResponse>",
          0, "C", "", "" },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct aws_error e;

        memset(&e, 0x55, sizeof(e));
        print_message("# row %zu\n", i);
        assert_int_equal(aws_error_parse(rows[i].body, strlen(rows[i].body), &e), rows[i].rc);
        if (rows[i].rc == 0) {
            assert_string_equal(e.code, rows[i].code);
            assert_string_equal(e.message, rows[i].message);
            assert_string_equal(e.request_id, rows[i].request_id);
        }
    }
}

static void test_awsapi_retry_classification(void **state)
{
    static const struct {
        int status;
        const char *code;
        int retry;
    } rows[] = {
        { 400, "Throttling", 1 },
        { 400, "ThrottlingException", 1 },
        { 503, "RequestLimitExceeded", 1 },
        { 400, "ValidationError", 0 },
        { 403, "SignatureDoesNotMatch", 0 },
        { 403, "InvalidClientTokenId", 0 },
        { 500, "InternalFailure", 1 },
        { 502, "HTTP502", 1 },
        { 503, "ServiceUnavailable", 1 },
        { 504, "", 1 },
        { 501, "NotImplemented", 0 },
        { 0, "TransportError", 1 },
        { 400, "RequestTimeout", 1 },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct aws_error e;

        memset(&e, 0, sizeof(e));
        e.http_status = rows[i].status;
        snprintf(e.code, sizeof(e.code), "%s", rows[i].code);
        print_message("# %d %s\n", rows[i].status, rows[i].code);
        assert_int_equal(aws_error_is_retryable(&e), rows[i].retry);
    }
}

/* --- the retry loop against a scripted server ---------------------------------------------- */

struct script {
    int fd;
    const char *replies[4];
    int served;
};

static void *serve(void *arg)
{
    struct script *s = arg;

    for (int i = 0; s->replies[i]; i++) {
        int c = accept(s->fd, NULL, NULL);
        char req[8192];
        ssize_t got, total = 0;

        if (c < 0)
            break;
        /* read until the form body (it ends the request; small) */
        while ((got = read(c, req + total, sizeof(req) - 1 - (size_t)total)) > 0) {
            total += got;
            req[total] = '\0';
            if (strstr(req, "Action="))
                break;
        }
        if (write(c, s->replies[i], strlen(s->replies[i])) < 0)
            break;
        s->served++;
        close(c);
    }
    return NULL;
}

static const char *const r503 =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
static const char *const rthrottle =
    "HTTP/1.1 400 Bad Request\r\nContent-Type: text/xml\r\nContent-Length: 101\r\n"
    "Connection: close\r\n\r\n"
    "<ErrorResponse><Error><Code>Throttling</Code><Message>Rate exceeded</Message></Error>"
    "</ErrorResponse>";
static const char *const rvalidation =
    "HTTP/1.1 400 Bad Request\r\nContent-Type: text/xml\r\nContent-Length: 96\r\n"
    "Connection: close\r\n\r\n"
    "<ErrorResponse><Error><Code>ValidationError</Code><Message>bad</Message></Error>"
    "</ErrorResponse>";
static const char *const rok =
    "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 69\r\nConnection: close\r\n\r\n"
    "<DescribeVpcsResponse><vpcSet><item/></vpcSet></DescribeVpcsResponse>";

static int run_script(struct script *s, int max_attempts, struct aws_reply *reply,
                      struct aws_error *err)
{
    struct sockaddr_in a;
    socklen_t alen = sizeof(a);
    pthread_t th;
    struct aws_config cfg;
    struct aws_client_opts o;
    struct aws_client *c;
    struct aws_params p;
    char ep[64], e[256];
    int rc;
    struct fake_env none = { { NULL } };

    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s->fd >= 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s->fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(s->fd, 8), 0);
    assert_int_equal(getsockname(s->fd, (struct sockaddr *)&a, &alen), 0);
    snprintf(ep, sizeof(ep), "http://127.0.0.1:%d", ntohs(a.sin_port));
    memset(&cfg, 0, sizeof(cfg));
    snprintf(cfg.access_key_id, sizeof(cfg.access_key_id), "AKID");
    snprintf(cfg.secret_access_key, sizeof(cfg.secret_access_key), "S");
    snprintf(cfg.region, sizeof(cfg.region), "us-east-1");
    snprintf(cfg.endpoint_url, sizeof(cfg.endpoint_url), "%s", ep);
    aws_client_opts_defaults(&o);
    o.max_attempts = max_attempts;
    o.backoff_base_ms = 1;
    o.seed = 42;
    o.timeout_ms = 10000;
    c = aws_client_create(&cfg, &o, fake_get, &none, e, sizeof(e));
    assert_non_null(c);
    assert_int_equal(pthread_create(&th, NULL, serve, s), 0);
    aws_params_init(&p);
    rc = aws_call(c, AWS_EC2, "DescribeVpcs", &p, reply, err);
    aws_params_cleanup(&p);
    shutdown(s->fd, SHUT_RDWR);
    close(s->fd);
    pthread_join(th, NULL);
    aws_client_destroy(c);
    return rc;
}

static void test_awsapi_retry_throttling_and_5xx_then_success(void **state)
{
    struct script s = { .replies = { r503, rthrottle, rok, NULL } };
    struct aws_reply reply;
    struct aws_error err;

    (void)state;
    assert_int_equal(run_script(&s, 3, &reply, &err), 0);
    assert_int_equal(s.served, 3);
    assert_int_equal(reply.attempts, 3);
    assert_int_equal(reply.http_status, 200);
    assert_non_null(aws_xml_find(xmlDocGetRootElement(reply.doc), "item"));
    aws_reply_cleanup(&reply);
}

static void test_awsapi_retry_gives_up_after_max_attempts(void **state)
{
    struct script s = { .replies = { rthrottle, rthrottle, rthrottle, NULL } };
    struct aws_reply reply;
    struct aws_error err;

    (void)state;
    assert_int_equal(run_script(&s, 3, &reply, &err), -1);
    assert_int_equal(s.served, 3);
    assert_int_equal(reply.attempts, 3);
    assert_string_equal(err.code, "Throttling");
    assert_string_equal(err.message, "Rate exceeded");
    assert_int_equal(err.http_status, 400);
    assert_null(reply.doc);
}

static void test_awsapi_no_retry_on_client_error(void **state)
{
    struct script s = { .replies = { rvalidation, rok, NULL } };
    struct aws_reply reply;
    struct aws_error err;

    (void)state;
    assert_int_equal(run_script(&s, 3, &reply, &err), -1);
    assert_int_equal(reply.attempts, 1);
    assert_string_equal(err.code, "ValidationError");
    assert_string_equal(err.message, "bad");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_awsapi_ini_table),
        cmocka_unit_test_setup_teardown(test_awsapi_config_resolution_table, files_setup,
                                        files_teardown),
        cmocka_unit_test_setup_teardown(test_awsapi_config_missing_profile_and_files, files_setup,
                                        files_teardown),
        cmocka_unit_test(test_awsapi_endpoints),
        cmocka_unit_test(test_awsapi_form_encoding_and_lists),
        cmocka_unit_test(test_awsapi_xml_reply_lists),
        cmocka_unit_test(test_awsapi_error_parsing_table),
        cmocka_unit_test(test_awsapi_retry_classification),
        cmocka_unit_test(test_awsapi_retry_throttling_and_5xx_then_success),
        cmocka_unit_test(test_awsapi_retry_gives_up_after_max_attempts),
        cmocka_unit_test(test_awsapi_no_retry_on_client_error),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
