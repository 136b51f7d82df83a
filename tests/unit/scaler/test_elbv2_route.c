/* tests/unit/scaler/test_elbv2_route.c: the ALB data plane's rules in libscaler:
 * scaler/elbv2_route.c, one test per routing rule of docs/elbv2.md 10 (rules built through
 * the API, requests as the proxy parses them), and scaler/elbv2_metrics.c (docs/elbv2.md
 * 11-12). */
#include "scaler/elbv2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/cloudwatch.h"
#include "scaler/ec2.h"

#define T0 1767225600000LL

struct fx {
    struct sc_ec2 *ec2;
    struct sc_elbv2 *v2;
    struct sc_error err;
    char lb[SC_ELBV2_ARN_LEN], web[SC_ELBV2_ARN_LEN], api[SC_ELBV2_ARN_LEN];
    char lis[SC_ELBV2_ARN_LEN];
    int next_priority;
};

static int setup(void **state)
{
    static struct fx f;
    struct sc_ec2_config ec = { 0 };
    struct sc_elbv2_config vc = { 0 };
    const char *subnets[2];
    struct sc_elbv2_lb_req lr = { .name = "web", .nsubnets = 2 };
    struct sc_elbv2_tg_req tr = { .protocol = "HTTP", .has_port = 1, .port = 80 };
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FORWARD };
    struct sc_elbv2_listener_req li = { .protocol = "HTTP", .has_port = 1, .port = 80 };
    const struct sc_elbv2_lb *b;
    const struct sc_elbv2_tg *g;
    const struct sc_elbv2_listener *l;

    memset(&f, 0, sizeof(f));
    ec.seed = 1;
    f.ec2 = sc_ec2_create(&ec);
    vc.ec2 = f.ec2;
    vc.seed = 2;
    f.v2 = sc_elbv2_create(&vc);
    if (!f.ec2 || !f.v2)
        return -1;
    subnets[0] = sc_ec2_default_subnet(f.ec2, "us-east-1a")->subnet_id;
    subnets[1] = sc_ec2_default_subnet(f.ec2, "us-east-1b")->subnet_id;
    lr.subnets = subnets;
    if (sc_elbv2_create_load_balancer(f.v2, &lr, T0, &b, &f.err) != SC_OK)
        return -1;
    snprintf(f.lb, sizeof(f.lb), "%s", b->arn);
    tr.vpc_id = sc_ec2_default_vpc(f.ec2)->vpc_id;
    tr.name = "web";
    if (sc_elbv2_create_target_group(f.v2, &tr, T0, &g, &f.err) != SC_OK)
        return -1;
    snprintf(f.web, sizeof(f.web), "%s", g->arn);
    tr.name = "api";
    if (sc_elbv2_create_target_group(f.v2, &tr, T0, &g, &f.err) != SC_OK)
        return -1;
    snprintf(f.api, sizeof(f.api), "%s", g->arn);
    a.target_group_arn = f.web;
    li.load_balancer_arn = f.lb;
    li.actions = &a;
    li.nactions = 1;
    if (sc_elbv2_create_listener(f.v2, &li, T0, &l, &f.err) != SC_OK)
        return -1;
    snprintf(f.lis, sizeof(f.lis), "%s", l->arn);
    f.next_priority = 10;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;

    sc_elbv2_destroy(f->v2);
    sc_ec2_destroy(f->ec2);
    return 0;
}

/* Adds a rule with one condition at priority p (0: the next free one, by tens). */
static void add_rule(struct fx *f, int p, const struct sc_elbv2_condition *c, int nc,
                     const struct sc_elbv2_action *a)
{
    struct sc_elbv2_rule_req r = { .listener_arn = f->lis, .has_priority = 1 };

    r.priority = p ? p : f->next_priority;
    f->next_priority += 10;
    r.conditions = c;
    r.nconditions = nc;
    r.actions = a;
    r.nactions = 1;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, NULL, &f->err), SC_OK);
}

static struct sc_elbv2_action fixed(const char *status)
{
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FIXED_RESPONSE, .fixed_status = status };

    return a;
}

static struct sc_elbv2_http_request req(const char *method, const char *path, const char *query,
                                        const char *host)
{
    struct sc_elbv2_http_request q = { 0 };

    q.method = method;
    q.method_len = strlen(method);
    q.path = path;
    q.path_len = strlen(path);
    q.query = query;
    q.query_len = strlen(query);
    q.host = host;
    q.host_len = strlen(host);
    q.source.family = 4;
    q.source.addr[0] = 127;
    q.source.addr[3] = 1;
    return q;
}

/* The status a request gets: a fixed response's code, or 1 for a forward to web, 2 to api. */
static int route(struct fx *f, const struct sc_elbv2_http_request *q)
{
    struct sc_elbv2_route r;
    const struct sc_elbv2_listener *l = sc_elbv2_listener_find(f->v2, f->lis);

    sc_elbv2_route(l, q, 0, &r);
    if (r.type == SC_ELBV2_ACTION_FORWARD)
        return strcmp(r.target_group_arn, f->web) == 0 ? 1 : 2;
    return r.status;
}

static void test_elbv2_route_priority_order(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition any = { .field = SC_ELBV2_PATH_PATTERN,
                                      .values = { "/*" },
                                      .nvalues = 1 };
    struct sc_elbv2_action a201 = fixed("201"), a202 = fixed("202");
    struct sc_elbv2_http_request q = req("GET", "/x", "", "h");

    add_rule(f, 20, &any, 1, &a202);
    add_rule(f, 5, &any, 1, &a201); /* created later, evaluated first: the lowest number */
    assert_int_equal(route(f, &q), 201);
}

static void test_elbv2_route_default_rule_last(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition api = { .field = SC_ELBV2_PATH_PATTERN,
                                      .values = { "/api/*" },
                                      .nvalues = 1 };
    struct sc_elbv2_action fwd = { .type = SC_ELBV2_ACTION_FORWARD };
    struct sc_elbv2_http_request q = req("GET", "/index.html", "", "h");

    fwd.target_group_arn = f->api;
    add_rule(f, 0, &api, 1, &fwd);
    assert_int_equal(route(f, &q), 1); /* no rule matches: the listener's default action */
    q = req("GET", "/api/users", "", "h");
    assert_int_equal(route(f, &q), 2);
}

static void test_elbv2_route_path_pattern_wildcards(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition c = { .field = SC_ELBV2_PATH_PATTERN,
                                    .values = { "/img/?.png", "/api/*" },
                                    .nvalues = 2 };
    struct sc_elbv2_action a = fixed("201");
    struct sc_elbv2_http_request q = req("GET", "/img/a.png", "", "h");

    add_rule(f, 0, &c, 1, &a);
    assert_int_equal(route(f, &q), 201);
    q = req("GET", "/img/ab.png", "", "h"); /* ? is exactly one character */
    assert_int_equal(route(f, &q), 1);
    q = req("GET", "/api/", "", "h"); /* * includes none */
    assert_int_equal(route(f, &q), 201);
    q = req("GET", "/API/x", "", "h"); /* case-sensitive */
    assert_int_equal(route(f, &q), 1);
    q = req("GET", "/web", "to=/api/x", "h"); /* the query string is not the path */
    assert_int_equal(route(f, &q), 1);
}

static void test_elbv2_route_host_header_case_insensitive(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition c = { .field = SC_ELBV2_HOST_HEADER,
                                    .values = { "*.example.com" },
                                    .nvalues = 1 };
    struct sc_elbv2_action a = fixed("201");
    struct sc_elbv2_http_request q = req("GET", "/", "", "API.Example.COM:8080");

    add_rule(f, 0, &c, 1, &a);
    assert_int_equal(route(f, &q), 201); /* case folded, port dropped */
    q = req("GET", "/", "", "example.org");
    assert_int_equal(route(f, &q), 1);
}

static void test_elbv2_route_http_header(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition c = {
        .field = SC_ELBV2_HTTP_HEADER, .header_name = "X-Canary", .values = { "yes" }, .nvalues = 1
    };
    struct sc_elbv2_action a = fixed("201");
    struct sc_elbv2_http_header h[2] = { { "accept", 6, "*/*", 3 }, { "x-canary", 8, "YES", 3 } };
    struct sc_elbv2_http_request q = req("GET", "/", "", "h");

    add_rule(f, 0, &c, 1, &a);
    q.headers = h;
    q.nheaders = 2;
    assert_int_equal(route(f, &q), 201); /* name and value case-insensitive */
    q.nheaders = 1;
    assert_int_equal(route(f, &q), 1);
}

static void test_elbv2_route_http_request_method(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition c = { .field = SC_ELBV2_HTTP_REQUEST_METHOD,
                                    .values = { "POST" },
                                    .nvalues = 1 };
    struct sc_elbv2_action a = fixed("201");
    struct sc_elbv2_http_request q = req("POST", "/", "", "h");

    add_rule(f, 0, &c, 1, &a);
    assert_int_equal(route(f, &q), 201);
    q = req("post", "/", "", "h"); /* case-sensitive */
    assert_int_equal(route(f, &q), 1);
}

static void test_elbv2_route_query_string(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition c = { .field = SC_ELBV2_QUERY_STRING,
                                    .values = { "beta*" },
                                    .query_keys = { "version" },
                                    .nvalues = 1 };
    struct sc_elbv2_action a = fixed("201");
    struct sc_elbv2_http_request q = req("GET", "/", "a=1&Version=Beta%202", "h");

    add_rule(f, 0, &c, 1, &a);
    assert_int_equal(route(f, &q), 201); /* decoded, case-insensitive */
    q = req("GET", "/", "version=alpha", "h");
    assert_int_equal(route(f, &q), 1);
}

static void test_elbv2_route_source_ip(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition c = { .field = SC_ELBV2_SOURCE_IP,
                                    .values = { "127.0.0.0/8" },
                                    .nvalues = 1 };
    struct sc_elbv2_action a = fixed("403");
    struct sc_elbv2_http_request q = req("GET", "/", "", "h");

    add_rule(f, 0, &c, 1, &a);
    assert_int_equal(route(f, &q), 403);
    q.source.addr[0] = 10;
    assert_int_equal(route(f, &q), 1);
}

static void test_elbv2_route_every_condition_must_match(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition c[2] = {
        { .field = SC_ELBV2_PATH_PATTERN, .values = { "/api/*" }, .nvalues = 1 },
        { .field = SC_ELBV2_HTTP_REQUEST_METHOD, .values = { "PUT" }, .nvalues = 1 },
    };
    struct sc_elbv2_action a = fixed("201");
    struct sc_elbv2_http_request q = req("PUT", "/api/x", "", "h");

    add_rule(f, 0, c, 2, &a);
    assert_int_equal(route(f, &q), 201);
    q = req("GET", "/api/x", "", "h");
    assert_int_equal(route(f, &q), 1);
}

static void test_elbv2_route_forward_weights(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition any = { .field = SC_ELBV2_PATH_PATTERN,
                                      .values = { "/*" },
                                      .nvalues = 1 };
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FORWARD, .has_forward_config = 1 };
    const struct sc_elbv2_listener *l;
    struct sc_elbv2_http_request q = req("GET", "/x", "", "h");
    struct sc_elbv2_route r;
    int api = 0;

    a.forward[0].target_group_arn = f->web;
    a.forward[0].weight = 3;
    a.forward[1].target_group_arn = f->api;
    a.forward[1].weight = 1;
    a.nforward = 2;
    add_rule(f, 0, &any, 1, &a);
    l = sc_elbv2_listener_find(f->v2, f->lis);
    for (uint64_t d = 0; d < 400; d++) {
        assert_int_equal(sc_elbv2_route(l, &q, d, &r), SC_ELBV2_ACTION_FORWARD);
        api += strcmp(r.target_group_arn, f->api) == 0;
    }
    assert_int_equal(api, 100); /* weight 1 of 4 */
}

static void test_elbv2_route_redirect_placeholders(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition any = { .field = SC_ELBV2_PATH_PATTERN,
                                      .values = { "/old/*" },
                                      .nvalues = 1 };
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_REDIRECT,
                                 .redirect_status = "HTTP_301",
                                 .redirect_host = "new.#{host}",
                                 .redirect_path = "/v2/#{path}",
                                 .redirect_query = "#{query}&from=#{port}" };
    const struct sc_elbv2_listener *l;
    struct sc_elbv2_http_request q = req("GET", "/old/a", "x=1", "Shop.example.com:8080");
    struct sc_elbv2_route r;
    char loc[256];

    add_rule(f, 0, &any, 1, &a);
    l = sc_elbv2_listener_find(f->v2, f->lis);
    assert_int_equal(sc_elbv2_route(l, &q, 0, &r), SC_ELBV2_ACTION_REDIRECT);
    assert_int_equal(r.status, 301);
    assert_true(sc_elbv2_redirect_format(r.action, &q, "HTTP", 8080, loc, sizeof(loc)) > 0);
    assert_string_equal(loc, "http://new.Shop.example.com:8080/v2/old/a?x=1&from=8080");
    /* too small a buffer */
    assert_int_equal(sc_elbv2_redirect_format(r.action, &q, "HTTP", 8080, loc, 10), -1);
}

static void test_elbv2_route_redirect_default_port_and_empty_query(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition any = { .field = SC_ELBV2_PATH_PATTERN,
                                      .values = { "/*" },
                                      .nvalues = 1 };
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_REDIRECT,
                                 .redirect_status = "HTTP_302",
                                 .redirect_protocol = "HTTPS",
                                 .redirect_port = "443" };
    const struct sc_elbv2_listener *l;
    struct sc_elbv2_http_request q = req("GET", "/login", "", "example.com");
    struct sc_elbv2_route r;
    char loc[256];

    add_rule(f, 0, &any, 1, &a);
    l = sc_elbv2_listener_find(f->v2, f->lis);
    sc_elbv2_route(l, &q, 0, &r);
    assert_int_equal(r.status, 302);
    assert_true(sc_elbv2_redirect_format(r.action, &q, "HTTP", 80, loc, sizeof(loc)) > 0);
    assert_string_equal(loc, "https://example.com/login");
}

static void test_elbv2_route_fixed_response(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition any = { .field = SC_ELBV2_PATH_PATTERN,
                                      .values = { "/health" },
                                      .nvalues = 1 };
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FIXED_RESPONSE,
                                 .fixed_status = "418",
                                 .fixed_content_type = "application/json",
                                 .fixed_body = "{\"ok\":true}" };
    const struct sc_elbv2_listener *l;
    struct sc_elbv2_http_request q = req("GET", "/health", "", "h");
    struct sc_elbv2_route r;

    add_rule(f, 0, &any, 1, &a);
    l = sc_elbv2_listener_find(f->v2, f->lis);
    assert_int_equal(sc_elbv2_route(l, &q, 0, &r), SC_ELBV2_ACTION_FIXED_RESPONSE);
    assert_int_equal(r.status, 418);
    assert_string_equal(r.action->fixed_content_type, "application/json");
    assert_string_equal(r.action->fixed_body, "{\"ok\":true}");
}

/* --- metrics ---------------------------------------------------------------------------- */

struct put {
    char metric[64];
    char dims[3][96];
    int nd;
    double value;
};

struct puts {
    struct put p[96];
    int n;
    const char *ns; /* the namespace expected; NULL: AWS/ApplicationELB */
};

static void on_put(const struct sc_put_metric_data_req *req, int64_t now_ms, void *ud)
{
    struct puts *ps = ud;

    (void)now_ms;
    if (!ps->ns)
        assert_string_equal(req->namespace, "AWS/ApplicationELB");
    else
        assert_string_equal(req->namespace, ps->ns);
    for (int i = 0; i < req->n_metric_data && ps->n < 96; i++) {
        const struct sc_metric_datum *d = &req->metric_data[i];
        struct put *p = &ps->p[ps->n++];

        snprintf(p->metric, sizeof(p->metric), "%s", d->metric_name);
        p->nd = d->n_dimensions;
        for (int k = 0; k < d->n_dimensions && k < 3; k++)
            snprintf(p->dims[k], sizeof(p->dims[k]), "%s=%s", d->dimensions[k].name,
                     d->dimensions[k].value);
        p->value = d->value;
    }
}

/* The value put for metric with nd dimensions whose first is dim0 (a "Name=" prefix). */
static const struct put *put_of(const struct puts *ps, const char *metric, int nd, const char *dim0)
{
    for (int i = 0; i < ps->n; i++) {
        const struct put *p = &ps->p[i];

        if (strcmp(p->metric, metric) == 0 && p->nd == nd &&
            strncmp(p->dims[0], dim0, strlen(dim0)) == 0)
            return p;
    }
    return NULL;
}

static const char *mk_target(struct fx *f, const char *tg, int healthy)
{
    static char ids[8][SC_EC2_ID_LEN];
    static int next;
    struct sc_ec2_run_req rq = { 0 };
    const struct sc_ec2_reservation *r;
    struct sc_elbv2_target_req t = { 0 };
    char *id = ids[next++ % 8];

    rq.image_id = "ami-12c6146b";
    rq.min_count = rq.max_count = 1;
    rq.availability_zone = "us-east-1a";
    assert_int_equal(sc_ec2_run_instances(f->ec2, &rq, T0, &r, &f->err), SC_OK);
    strcpy(id, r->instances[0]->instance_id);
    assert_int_equal(sc_ec2_instance_running(f->ec2, id, T0), SC_OK);
    t.id = id;
    assert_int_equal(sc_elbv2_register_targets(f->v2, tg, &t, 1, T0, &f->err), SC_OK);
    for (int k = 0; healthy && k < 5; k++)
        sc_elbv2_health_result(f->v2, tg, id, 80, SC_ELBV2_HC_OK, 200, T0 + k);
    return id;
}

static void test_elbv2_metric_known(void **state)
{
    (void)state;
    assert_true(sc_elbv2_metric_known("RequestCountPerTarget"));
    assert_true(sc_elbv2_metric_known("HealthyHostCount"));
    assert_true(sc_elbv2_metric_known("HTTP_Redirect_Count"));
    assert_true(sc_elbv2_metric_known("ActiveConnectionCount"));
    assert_false(sc_elbv2_metric_known("requestcount"));
    assert_false(sc_elbv2_metric_known("ActiveFlowCount")); /* AWS/NetworkELB's */
    assert_false(sc_elbv2_metric_known("Latency"));         /* AWS/ELB's */
    assert_false(sc_elbv2_metric_known(""));
    assert_false(sc_elbv2_metric_known(NULL));
}

static void test_elbv2_metrics_resource_label_form(void **state)
{
    (void)state;
    assert_true(sc_elbv2_resource_label_valid(
        "app/my-alb/778d41231b141a0f/targetgroup/my-alb-target-group/943f017f100becff"));
    assert_false(sc_elbv2_resource_label_valid(NULL));
    assert_false(sc_elbv2_resource_label_valid(""));
    assert_false(sc_elbv2_resource_label_valid("targetgroup/my-tg/943f017f100becff"));
    assert_false(sc_elbv2_resource_label_valid(
        "net/my-nlb/778d41231b141a0f/targetgroup/my-tg/943f017f100becff"));
    assert_false(sc_elbv2_resource_label_valid(
        "app/my-alb/778d41231b141a0/targetgroup/my-tg/943f017f100becff")); /* 15 digits */
    assert_false(sc_elbv2_resource_label_valid(
        "app/my_alb/778d41231b141a0f/targetgroup/my-tg/943f017f100becff"));
    assert_false(sc_elbv2_resource_label_valid(
        "app/my-alb/778d41231b141a0f/targetgroup/my-tg/943f017f100becff/x"));
}

static void test_elbv2_metrics_dimension_is_the_arns_final_portion(void **state)
{
    struct fx *f = *state;
    const char *d = sc_elbv2_arn_dimension(f->lb);

    assert_non_null(d);
    assert_true(strncmp(d, "app/web/", 8) == 0);
    assert_int_equal(strlen(d), 8 + 16);
    d = sc_elbv2_arn_dimension(f->web);
    assert_true(strncmp(d, "targetgroup/web/", 16) == 0);
    assert_null(sc_elbv2_arn_dimension("i-123"));
}

static void test_elbv2_metrics_request_count_per_target_by_healthy_targets(void **state)
{
    (void)state;
    assert_true(sc_elbv2_request_count_per_target(120, 4, 4) == 30);
    assert_true(sc_elbv2_request_count_per_target(120, 0, 3) == 40); /* fail open */
    assert_true(sc_elbv2_request_count_per_target(120, 0, 0) == 120);
    assert_true(sc_elbv2_request_count_per_target(0, 2, 2) == 0);
}

/* RequestCountPerTarget and the host counts are always put for every group the load
 * balancer forwards to; the counts only when non-zero. */
static void test_elbv2_metrics_report_minute_dimensions_and_criteria(void **state)
{
    struct fx *f = *state;
    struct puts ps;
    struct sc_cw *cw = sc_cw_create(NULL);
    struct sc_elbv2_tg_traffic tt = { 0 };
    struct sc_elbv2_traffic t = { 0 };
    const struct put *p;
    char tgdim[128];

    assert_non_null(cw);
    memset(&ps, 0, sizeof(ps));
    sc_cw_set_put_observer(cw, on_put, &ps);
    mk_target(f, f->web, 1);
    mk_target(f, f->web, 1);
    mk_target(f, f->web, 0); /* initial: neither healthy nor unhealthy */
    tt.target_group_arn = f->web;
    tt.requests = 100;
    tt.target_2xx = 98;
    tt.target_5xx = 2;
    tt.resp_time_sum_s = 5;
    tt.resp_count = 100;
    t.tgs = &tt;
    t.ntgs = 1;
    t.elb_5xx = 3;
    t.elb_503 = 3;
    assert_true(sc_elbv2_report_minute(f->v2, cw, f->lb, &t, T0, T0) > 0);
    snprintf(tgdim, sizeof(tgdim), "TargetGroup=%s", sc_elbv2_arn_dimension(f->web));
    p = put_of(&ps, "RequestCountPerTarget", 1, tgdim);
    assert_non_null(p);
    assert_true(p->value == 50); /* 100 requests over 2 healthy targets */
    assert_non_null(put_of(&ps, "RequestCountPerTarget", 2, tgdim));
    p = put_of(&ps, "RequestCount", 1, "LoadBalancer=app/web/");
    assert_true(p && p->value == 100);
    p = put_of(&ps, "RequestCount", 2, tgdim);
    assert_true(p && p->value == 100);
    assert_true(strncmp(p->dims[1], "LoadBalancer=app/web/", 21) == 0);
    p = put_of(&ps, "TargetResponseTime", 1, "LoadBalancer=");
    assert_true(p && p->value == 0.05);
    assert_true(put_of(&ps, "HTTPCode_Target_5XX_Count", 2, tgdim)->value == 2);
    assert_null(put_of(&ps, "HTTPCode_Target_4XX_Count", 2, tgdim));
    assert_true(put_of(&ps, "HTTPCode_ELB_503_Count", 1, "LoadBalancer=")->value == 3);
    assert_null(put_of(&ps, "HTTPCode_ELB_502_Count", 1, "LoadBalancer="));
    assert_null(put_of(&ps, "HTTP_Fixed_Response_Count", 1, "LoadBalancer="));
    assert_true(put_of(&ps, "HealthyHostCount", 2, tgdim)->value == 2);
    assert_true(put_of(&ps, "UnHealthyHostCount", 2, tgdim)->value == 0);
    p = put_of(&ps, "HealthyHostCount", 3, tgdim);
    assert_non_null(p);
    assert_true(strncmp(p->dims[1], "AvailabilityZone=us-east-1", 26) == 0);
    /* the api group gets nothing: no listener or rule forwards to it */
    snprintf(tgdim, sizeof(tgdim), "TargetGroup=%s", sc_elbv2_arn_dimension(f->api));
    assert_null(put_of(&ps, "RequestCountPerTarget", 1, tgdim));
    /* a quiet minute: RequestCountPerTarget 0, still put */
    memset(&ps, 0, sizeof(ps));
    memset(&t, 0, sizeof(t));
    sc_elbv2_report_minute(f->v2, cw, f->lb, &t, T0 + 60000, T0 + 60000);
    snprintf(tgdim, sizeof(tgdim), "TargetGroup=%s", sc_elbv2_arn_dimension(f->web));
    p = put_of(&ps, "RequestCountPerTarget", 1, tgdim);
    assert_true(p && p->value == 0);
    assert_null(put_of(&ps, "HTTPCode_Target_2XX_Count", 2, tgdim));
    sc_cw_destroy(cw);
}

/* docs/elbv2.md 11: the connection metrics (LoadBalancer; TargetConnectionErrorCount also
 * TargetGroup+LoadBalancer) when non-zero, and the request metrics by the node's zone. */
static void test_elbv2_metrics_connections_and_availability_zone(void **state)
{
    struct fx *f = *state;
    struct puts ps;
    struct sc_cw *cw = sc_cw_create(NULL);
    struct sc_elbv2_tg_traffic tt[2] = { { 0 } };
    struct sc_elbv2_traffic t = { 0 };
    const struct put *p;
    char tgdim[128];

    memset(&ps, 0, sizeof(ps));
    sc_cw_set_put_observer(cw, on_put, &ps);
    mk_target(f, f->web, 1);
    tt[0].target_group_arn = tt[1].target_group_arn = f->web;
    tt[0].requests = 10;
    tt[0].conn_errors = 2;
    tt[1].zone = "us-east-1b";
    tt[1].requests = 4;
    tt[1].target_2xx = 4;
    t.tgs = tt;
    t.ntgs = 2;
    t.active_conns = 5;
    t.new_conns = 7;
    t.processed_bytes = 1234;
    assert_true(sc_elbv2_report_minute(f->v2, cw, f->lb, &t, T0, T0) > 0);
    assert_true(put_of(&ps, "ActiveConnectionCount", 1, "LoadBalancer=app/web/")->value == 5);
    assert_true(put_of(&ps, "NewConnectionCount", 1, "LoadBalancer=")->value == 7);
    assert_true(put_of(&ps, "ProcessedBytes", 1, "LoadBalancer=")->value == 1234);
    assert_true(put_of(&ps, "TargetConnectionErrorCount", 1, "LoadBalancer=")->value == 2);
    snprintf(tgdim, sizeof(tgdim), "TargetGroup=%s", sc_elbv2_arn_dimension(f->web));
    assert_true(put_of(&ps, "TargetConnectionErrorCount", 2, tgdim)->value == 2);
    /* zone entries do not add to the totals */
    assert_true(put_of(&ps, "RequestCount", 1, "LoadBalancer=")->value == 10);
    p = put_of(&ps, "RequestCount", 2, "AvailabilityZone=us-east-1b");
    assert_true(p && p->value == 4 && strncmp(p->dims[1], "LoadBalancer=app/web/", 21) == 0);
    assert_null(put_of(&ps, "RequestCount", 2, "AvailabilityZone=us-east-1a"));
    p = put_of(&ps, "RequestCount", 3, tgdim);
    assert_true(p && p->value == 4 && strcmp(p->dims[1], "AvailabilityZone=us-east-1b") == 0);
    memset(&ps, 0, sizeof(ps));
    memset(&t, 0, sizeof(t));
    sc_elbv2_report_minute(f->v2, cw, f->lb, &t, T0 + 60000, T0 + 60000);
    assert_null(put_of(&ps, "ActiveConnectionCount", 1, "LoadBalancer="));
    assert_null(put_of(&ps, "ProcessedBytes", 1, "LoadBalancer="));
    sc_cw_destroy(cw);
}

/* docs/elbv2.md 11.1: AWS/NetworkELB for a network load balancer only. */
static void test_elbv2_metrics_network_load_balancer_core(void **state)
{
    struct fx *f = *state;
    struct puts ps;
    struct sc_cw *cw = sc_cw_create(NULL);
    struct sc_elbv2_nlb_traffic t = { 0 };
    const struct sc_elbv2_lb *b;
    const char *subnets[1];
    struct sc_elbv2_lb_req lr = { .name = "net", .type = "network", .nsubnets = 1 };

    memset(&ps, 0, sizeof(ps));
    ps.ns = "AWS/NetworkELB";
    sc_cw_set_put_observer(cw, on_put, &ps);
    subnets[0] = sc_ec2_default_subnet(f->ec2, "us-east-1a")->subnet_id;
    lr.subnets = subnets;
    assert_int_equal(sc_elbv2_create_load_balancer(f->v2, &lr, T0, &b, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_report_nlb_minute(f->v2, cw, f->lb, &t, T0, T0), -1);
    t.active_flows_tcp = 3;
    t.new_flows_tcp = 2;
    t.bytes_tcp = 500;
    t.elb_resets = 1;
    assert_true(sc_elbv2_report_nlb_minute(f->v2, cw, b->arn, &t, T0, T0) > 0);
    assert_true(put_of(&ps, "ActiveFlowCount", 1, "LoadBalancer=net/net/")->value == 3);
    assert_true(put_of(&ps, "ActiveFlowCount_TCP", 1, "LoadBalancer=")->value == 3);
    assert_null(put_of(&ps, "ActiveFlowCount_TLS", 1, "LoadBalancer="));
    assert_true(put_of(&ps, "NewFlowCount", 1, "LoadBalancer=")->value == 2);
    assert_true(put_of(&ps, "ProcessedBytes_TCP", 1, "LoadBalancer=")->value == 500);
    assert_true(put_of(&ps, "TCP_ELB_Reset_Count", 1, "LoadBalancer=")->value == 1);
    assert_null(put_of(&ps, "TCP_Client_Reset_Count", 1, "LoadBalancer="));
    memset(&ps, 0, sizeof(ps));
    ps.ns = "AWS/NetworkELB";
    memset(&t, 0, sizeof(t));
    sc_elbv2_report_nlb_minute(f->v2, cw, b->arn, &t, T0 + 60000, T0 + 60000);
    assert_true(put_of(&ps, "ActiveFlowCount", 1, "LoadBalancer=")->value == 0); /* always */
    sc_cw_destroy(cw);
}

static void set_attr(struct fx *f, const char *tg, const char *k, const char *v)
{
    struct sc_elbv2_kv kv = { k, v };

    assert_int_equal(sc_elbv2_modify_attributes(f->v2, tg, &kv, 1, T0, &f->err), SC_OK);
}

static int64_t slow_since(struct fx *f, const char *tg, int i)
{
    struct sc_elbv2_target_health t;

    assert_int_equal(sc_elbv2_target_at(f->v2, tg, i, &t), 0);
    return t.slow_start_since_ms;
}

/* docs/elbv2.md 10.3: the attributes become the data plane's balancing. */
static void test_elbv2_balance_attributes_read(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_balancing b;

    assert_int_equal(sc_elbv2_tg_balancing(f->v2, f->web, &b), 0);
    assert_int_equal(b.algorithm, SC_ELBV2_ROUND_ROBIN);
    assert_int_equal(b.sticky.type, SC_STICKY_NONE);
    set_attr(f, f->web, "stickiness.enabled", "true");
    set_attr(f, f->web, "stickiness.lb_cookie.duration_seconds", "120");
    set_attr(f, f->web, "slow_start.duration_seconds", "30");
    set_attr(f, f->web, "load_balancing.algorithm.type", "weighted_random");
    set_attr(f, f->web, "load_balancing.algorithm.anomaly_mitigation", "on");
    assert_int_equal(sc_elbv2_tg_balancing(f->v2, f->web, &b), 0);
    assert_int_equal(b.algorithm, SC_ELBV2_WEIGHTED_RANDOM);
    assert_int_equal(b.anomaly_mitigation, 1);
    assert_int_equal(b.slow_start_ms, 30000);
    assert_int_equal(b.sticky.type, SC_STICKY_LB_COOKIE);
    assert_int_equal(b.sticky.duration_s, 120);
    set_attr(f, f->web, "stickiness.type", "app_cookie");
    set_attr(f, f->web, "stickiness.app_cookie.cookie_name", "SESS");
    set_attr(f, f->web, "load_balancing.algorithm.type", "least_outstanding_requests");
    assert_int_equal(sc_elbv2_tg_balancing(f->v2, f->web, &b), 0);
    assert_int_equal(b.sticky.type, SC_STICKY_APP_COOKIE);
    assert_string_equal(b.sticky.app_cookie, "SESS");
    assert_int_equal(b.slow_start_ms, 0); /* not with least outstanding requests */
    assert_int_equal(sc_elbv2_tg_balancing(f->v2, "arn:nope", &b), -1);
}

/* docs/elbv2.md 10.2: the share rises linearly from 0 to 1 over the duration. */
static void test_elbv2_balance_slow_start_share_linear(void **state)
{
    (void)state;
    assert_true(sc_elbv2_slow_start_share(1000, 1000, 30000) == 0.0);
    assert_true(sc_elbv2_slow_start_share(16000, 1000, 30000) == 0.5);
    assert_true(sc_elbv2_slow_start_share(31000, 1000, 30000) == 1.0);
    assert_true(sc_elbv2_slow_start_share(5000, -1, 30000) == 1.0);
    assert_true(sc_elbv2_slow_start_share(5000, 1000, 0) == 1.0);
}

/* docs/elbv2.md 10.2: a target entering healthy enters slow start only when another healthy
 * target is not in slow start; an unhealthy one leaves it; least outstanding requests has
 * none. */
static void test_elbv2_balance_slow_start_entered_beside_a_full_target(void **state)
{
    struct fx *f = *state;
    const char *a, *b;

    set_attr(f, f->web, "slow_start.duration_seconds", "30");
    a = mk_target(f, f->web, 1);
    assert_int_equal(slow_since(f, f->web, 0), -1); /* the only healthy target */
    b = mk_target(f, f->web, 1);
    assert_true(slow_since(f, f->web, 1) >= T0);
    for (int k = 0; k < 3; k++)
        sc_elbv2_health_result(f->v2, f->web, b, 80, SC_ELBV2_HC_FAILED, 0, T0 + 10 + k);
    assert_int_equal(slow_since(f, f->web, 1), -1);
    (void)a;
    set_attr(f, f->api, "slow_start.duration_seconds", "30");
    set_attr(f, f->api, "load_balancing.algorithm.type", "least_outstanding_requests");
    mk_target(f, f->api, 1);
    mk_target(f, f->api, 1);
    assert_int_equal(slow_since(f, f->api, 1), -1);
}

static void pick_n(enum sc_elbv2_algorithm alg, struct sc_elbv2_pick_cand *c, int n, int rounds,
                   int *counts)
{
    uint64_t z = 7;

    for (int r = 0; r < rounds; r++) {
        z = z * 6364136223846793005ULL + 1442695040888963407ULL;
        counts[sc_elbv2_pick(alg, c, n, z)]++;
    }
}

/* docs/elbv2.md 10.3: round_robin in turn, each target by its weight. */
static void test_elbv2_balance_round_robin_in_turn_by_weight(void **state)
{
    double cr[3] = { 0 };
    struct sc_elbv2_pick_cand c[3] = { { 0, 1, &cr[0] }, { 0, 1, &cr[1] }, { 0, 0.25, &cr[2] } };
    int counts[3] = { 0 }, seq[4];

    (void)state;
    pick_n(SC_ELBV2_ROUND_ROBIN, c, 3, 900, counts);
    assert_int_equal(counts[0], 400);
    assert_int_equal(counts[1], 400);
    assert_int_equal(counts[2], 100);
    c[2].weight = 1;
    for (int i = 0; i < 3; i++)
        cr[i] = 0;
    for (int i = 0; i < 4; i++)
        seq[i] = sc_elbv2_pick(SC_ELBV2_ROUND_ROBIN, c, 3, 0);
    assert_true(seq[0] != seq[1] && seq[1] != seq[2] && seq[0] != seq[2] && seq[3] == seq[0]);
}

/* docs/elbv2.md 10.3: least_outstanding_requests takes the fewest in flight. */
static void test_elbv2_balance_least_outstanding_takes_fewest(void **state)
{
    double cr[3] = { 0 };
    struct sc_elbv2_pick_cand c[3] = { { 5, 1, &cr[0] }, { 2, 1, &cr[1] }, { 9, 1, &cr[2] } };

    (void)state;
    assert_int_equal(sc_elbv2_pick(SC_ELBV2_LEAST_OUTSTANDING, c, 3, 0), 1);
    c[0].outstanding = 1;
    assert_int_equal(sc_elbv2_pick(SC_ELBV2_LEAST_OUTSTANDING, c, 3, 0), 0);
}

/* docs/elbv2.md 10.3: weighted_random draws by weight. */
static void test_elbv2_balance_weighted_random_by_weight(void **state)
{
    double cr[2] = { 0 };
    struct sc_elbv2_pick_cand c[2] = { { 0, 1, &cr[0] }, { 0, 0.5, &cr[1] } };
    int counts[2] = { 0 };

    (void)state;
    pick_n(SC_ELBV2_WEIGHTED_RANDOM, c, 2, 3000, counts);
    assert_in_range(counts[0], 1850, 2150);
    assert_in_range(counts[1], 850, 1150);
    c[1].weight = 0;
    counts[0] = counts[1] = 0;
    pick_n(SC_ELBV2_WEIGHTED_RANDOM, c, 2, 100, counts);
    assert_int_equal(counts[1], 0);
}

/* docs/elbv2.md 10.4: an NLB group's stickiness is source_ip (its default type); an HTTP
 * group refuses source_ip, a TCP group every other type, with AWS's text, nothing changed. */
static void test_elbv2_balance_source_ip_stickiness_read_and_validated(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_tg_req tr = { .name = "tcp", .protocol = "TCP", .has_port = 1, .port = 80 };
    struct sc_elbv2_kv bad = { "stickiness.type", "lb_cookie" };
    struct sc_elbv2_kv on = { "stickiness.enabled", "true" };
    struct sc_elbv2_kv ip = { "stickiness.type", "source_ip" };
    struct sc_elbv2_balancing b;
    const struct sc_elbv2_tg *g;
    char tcp[SC_ELBV2_ARN_LEN];

    tr.vpc_id = sc_ec2_default_vpc(f->ec2)->vpc_id;
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &tr, T0, &g, &f->err), SC_OK);
    snprintf(tcp, sizeof(tcp), "%s", g->arn);
    assert_int_equal(sc_elbv2_tg_balancing(f->v2, tcp, &b), 0);
    assert_int_equal(b.sticky.type, SC_STICKY_NONE);
    assert_int_equal(sc_elbv2_modify_attributes(f->v2, tcp, &bad, 1, T0, &f->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(f->err.message,
                        "Target group attribute value 'lb_cookie' is not valid for key "
                        "'stickiness.type'");
    assert_int_equal(sc_elbv2_modify_attributes(f->v2, f->web, &ip, 1, T0, &f->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(f->err.message,
                        "Target group attribute value 'source_ip' is not valid for key "
                        "'stickiness.type'");
    /* enabled with the type left at its default: source_ip */
    assert_int_equal(sc_elbv2_modify_attributes(f->v2, tcp, &on, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_tg_balancing(f->v2, tcp, &b), 0);
    assert_int_equal(b.sticky.type, SC_STICKY_SOURCE_IP);
    assert_int_equal(b.sticky.alb, 0);
    assert_int_equal(sc_elbv2_modify_attributes(f->v2, tcp, &ip, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_tg_balancing(f->v2, tcp, &b), 0);
    assert_int_equal(b.sticky.type, SC_STICKY_SOURCE_IP);
}

/* docs/elbv2.md 10.4: the same address always gets the same target, whatever the order
 * of the candidates; removing a target (unhealthy) moves only the clients it had; many
 * addresses spread over the targets. */
static void test_elbv2_source_ip_pick_sticks_and_moves_only_the_lost_targets_clients(void **state)
{
    uint64_t keys[4], rev[4], three[3];
    int count[4] = { 0 }, moved_other = 0;

    (void)state;
    for (int i = 0; i < 4; i++) {
        char id[32];

        snprintf(id, sizeof(id), "0/i-%d:80", i);
        keys[i] = sc_sticky_key(id);
        rev[3 - i] = keys[i];
    }
    assert_int_equal(sc_elbv2_source_ip_pick(1, keys, 0), -1);
    for (int a = 0; a < 1000; a++) {
        unsigned char ip[4] = { 10, (unsigned char)(a >> 16), (unsigned char)(a >> 8),
                                (unsigned char)a };
        uint64_t c = sc_elbv2_source_ip_key(ip, sizeof(ip));
        int k = sc_elbv2_source_ip_pick(c, keys, 4), j;

        assert_true(k >= 0 && k < 4);
        assert_int_equal(sc_elbv2_source_ip_pick(c, keys, 4), k);
        assert_int_equal(rev[sc_elbv2_source_ip_pick(c, rev, 4)], keys[k]);
        count[k]++;
        /* target 3 gone: its clients move, the others stay */
        memcpy(three, keys, sizeof(three));
        j = sc_elbv2_source_ip_pick(c, three, 3);
        if (k != 3 && j != k)
            moved_other++;
    }
    assert_int_equal(moved_other, 0);
    for (int i = 0; i < 4; i++)
        assert_in_range(count[i], 150, 350);
    /* 127.0.0.1 and 127.0.0.2 are different clients (keys differ) */
    {
        unsigned char a[4] = { 127, 0, 0, 1 }, b[4] = { 127, 0, 0, 2 };

        assert_true(sc_elbv2_source_ip_key(a, 4) != sc_elbv2_source_ip_key(b, 4));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
        T(test_elbv2_route_priority_order),
        T(test_elbv2_route_default_rule_last),
        T(test_elbv2_route_path_pattern_wildcards),
        T(test_elbv2_route_host_header_case_insensitive),
        T(test_elbv2_route_http_header),
        T(test_elbv2_route_http_request_method),
        T(test_elbv2_route_query_string),
        T(test_elbv2_route_source_ip),
        T(test_elbv2_route_every_condition_must_match),
        T(test_elbv2_route_forward_weights),
        T(test_elbv2_route_redirect_placeholders),
        T(test_elbv2_route_redirect_default_port_and_empty_query),
        T(test_elbv2_route_fixed_response),
        T(test_elbv2_metrics_resource_label_form),
        T(test_elbv2_metric_known),
        T(test_elbv2_metrics_dimension_is_the_arns_final_portion),
        T(test_elbv2_metrics_request_count_per_target_by_healthy_targets),
        T(test_elbv2_metrics_report_minute_dimensions_and_criteria),
        T(test_elbv2_metrics_connections_and_availability_zone),
        T(test_elbv2_metrics_network_load_balancer_core),
        T(test_elbv2_balance_attributes_read),
        T(test_elbv2_balance_slow_start_share_linear),
        T(test_elbv2_balance_slow_start_entered_beside_a_full_target),
        T(test_elbv2_balance_round_robin_in_turn_by_weight),
        T(test_elbv2_balance_least_outstanding_takes_fewest),
        T(test_elbv2_balance_weighted_random_by_weight),
        T(test_elbv2_balance_source_ip_stickiness_read_and_validated),
        T(test_elbv2_source_ip_pick_sticks_and_moves_only_the_lost_targets_clients),
#undef T
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
