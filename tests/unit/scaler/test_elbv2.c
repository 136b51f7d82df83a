/* tests/unit/scaler/test_elbv2.c: scaler/elbv2*.c, one test per rule of docs/elbv2.md. */
#include "scaler/elbv2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <jansson.h>

#include "scaler/ec2.h"

#define T0 1767225600000LL

struct fx {
    struct sc_ec2 *ec2;
    struct sc_elbv2 *v2;
    struct sc_error err;
    char lb[SC_ELBV2_ARN_LEN], tg[SC_ELBV2_ARN_LEN], lis[SC_ELBV2_ARN_LEN];
    const char *subnets[2];
    const char *vpc;
};

static int setup(void **state)
{
    static struct fx f;
    struct sc_ec2_config ec = { 0 };
    struct sc_elbv2_config vc = { 0 };

    memset(&f, 0, sizeof(f));
    ec.seed = 1;
    f.ec2 = sc_ec2_create(&ec);
    vc.ec2 = f.ec2;
    vc.seed = 2;
    f.v2 = sc_elbv2_create(&vc);
    if (!f.ec2 || !f.v2)
        return -1;
    f.subnets[0] = sc_ec2_default_subnet(f.ec2, "us-east-1a")->subnet_id;
    f.subnets[1] = sc_ec2_default_subnet(f.ec2, "us-east-1b")->subnet_id;
    f.vpc = sc_ec2_default_vpc(f.ec2)->vpc_id;
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

static void mk_alb(struct fx *f, const char *name)
{
    struct sc_elbv2_lb_req r = { .name = name, .subnets = f->subnets, .nsubnets = 2 };
    const struct sc_elbv2_lb *b;

    assert_int_equal(sc_elbv2_create_load_balancer(f->v2, &r, T0, &b, &f->err), SC_OK);
    snprintf(f->lb, sizeof(f->lb), "%s", b->arn);
}

static void mk_tg(struct fx *f, const char *name, char *arn_out)
{
    struct sc_elbv2_tg_req r = { .name = name, .protocol = "HTTP", .has_port = 1, .port = 80 };
    const struct sc_elbv2_tg *g;

    r.vpc_id = f->vpc;
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &r, T0, &g, &f->err), SC_OK);
    snprintf(arn_out, SC_ELBV2_ARN_LEN, "%s", g->arn);
}

static void mk_listener(struct fx *f, const char *tg)
{
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FORWARD, .target_group_arn = tg };
    struct sc_elbv2_listener_req r = { .load_balancer_arn = f->lb,
                                       .protocol = "HTTP",
                                       .has_port = 1,
                                       .port = 80,
                                       .actions = &a,
                                       .nactions = 1 };
    const struct sc_elbv2_listener *l;

    assert_int_equal(sc_elbv2_create_listener(f->v2, &r, T0, &l, &f->err), SC_OK);
    snprintf(f->lis, sizeof(f->lis), "%s", l->arn);
}

static const char *mk_inst(struct fx *f, const char *zone)
{
    static char ids[8][SC_EC2_ID_LEN];
    static int next;
    struct sc_ec2_run_req req = { 0 };
    const struct sc_ec2_reservation *r;
    char *id = ids[next++ % 8];

    req.image_id = "ami-12c6146b";
    req.min_count = req.max_count = 1;
    req.availability_zone = zone;
    assert_int_equal(sc_ec2_run_instances(f->ec2, &req, T0, &r, &f->err), SC_OK);
    strcpy(id, r->instances[0]->instance_id);
    assert_int_equal(sc_ec2_instance_running(f->ec2, id, T0), SC_OK);
    return id;
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
    q.source.addr[0] = 10;
    q.source.addr[3] = 7;
    return q;
}

/* --- names, ARNs, DNS ----------------------------------------------------------------------- */

static void test_elbv2_alb_arn_dns_and_defaults(void **state)
{
    struct fx *f = *state;
    const struct sc_elbv2_lb *b;

    mk_alb(f, "web");
    b = sc_elbv2_lb_find(f->v2, f->lb);
    assert_non_null(b);
    assert_true(strncmp(b->arn,
                        "arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/app/web/",
                        73) == 0);
    assert_int_equal(strlen(b->arn), 73 + 16);
    assert_true(strncmp(b->dns_name, "web-", 4) == 0);
    assert_non_null(strstr(b->dns_name, ".us-east-1.elb.amazonaws.com"));
    assert_string_equal(b->canonical_hosted_zone_id, "Z35SXDOTRQ7X7K");
    assert_string_equal(b->state, "active");
    assert_int_equal(b->nzones, 2);
    assert_string_equal(b->zones[0], "us-east-1a");
    assert_int_equal(b->nsecurity_groups, 1); /* the VPC's default group */
    assert_string_equal(sc_elbv2_attr(b->attrs, b->nattrs, "idle_timeout.timeout_seconds"), "60");
    assert_string_equal(sc_elbv2_attr(b->attrs, b->nattrs, "load_balancing.cross_zone.enabled"),
                        "true");
}

static void test_elbv2_load_balancer_name_rules(void **state)
{
    struct fx *f = *state;
    const char *bad[] = {
        "", "-a", "a-", "internal-x", "a_b", "abcdefghijklmnopqrstuvwxyz0123456"
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct sc_elbv2_lb_req r = { .name = bad[i], .subnets = f->subnets, .nsubnets = 2 };

        assert_int_equal(sc_elbv2_create_load_balancer(f->v2, &r, T0, NULL, &f->err),
                         SC_ERR_VALIDATION);
    }
    assert_int_equal(sc_elbv2_lb_count(f->v2), 0);
}

static void test_elbv2_alb_needs_two_zones(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_lb_req r = { .name = "one", .subnets = f->subnets, .nsubnets = 1 };

    assert_int_equal(sc_elbv2_create_load_balancer(f->v2, &r, T0, NULL, &f->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(f->err.message, "At least two subnets in two different Availability "
                                        "Zones must be specified");
    r.type = "network";
    assert_int_equal(sc_elbv2_create_load_balancer(f->v2, &r, T0, NULL, &f->err), SC_OK);
}

static void test_elbv2_duplicate_load_balancer_name_other_settings(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_lb_req r = { .name = "web", .subnets = f->subnets, .nsubnets = 2 };

    mk_alb(f, "web");
    assert_int_equal(sc_elbv2_create_load_balancer(f->v2, &r, T0, NULL, &f->err), SC_OK);
    r.scheme = "internal";
    assert_int_equal(sc_elbv2_create_load_balancer(f->v2, &r, T0, NULL, &f->err),
                     SC_ERR_DUPLICATE_LOAD_BALANCER_NAME);
    assert_string_equal(f->err.message,
                        "A load balancer with the same name 'web' exists, but with different "
                        "settings");
    assert_int_equal(sc_elbv2_lb_count(f->v2), 1);
}

static void test_elbv2_deletion_protection_refuses_delete(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_kv on = { "deletion_protection.enabled", "true" };

    mk_alb(f, "web");
    assert_int_equal(sc_elbv2_modify_attributes(f->v2, f->lb, &on, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_delete_load_balancer(f->v2, f->lb, T0, &f->err),
                     SC_ERR_OPERATION_NOT_PERMITTED);
    on.value = "false";
    assert_int_equal(sc_elbv2_modify_attributes(f->v2, f->lb, &on, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_delete_load_balancer(f->v2, f->lb, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_delete_load_balancer(f->v2, f->lb, T0, &f->err), SC_OK);
}

static void test_elbv2_attribute_checks_all_or_nothing(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_kv a[2] = { { "idle_timeout.timeout_seconds", "120" },
                                { "routing.http.desync_mitigation_mode", "lenient" } };
    const struct sc_elbv2_kv *out;
    int n;

    mk_alb(f, "web");
    assert_int_equal(sc_elbv2_modify_attributes(f->v2, f->lb, a, 2, T0, &f->err),
                     SC_ERR_VALIDATION);
    assert_int_equal(sc_elbv2_describe_attributes(f->v2, f->lb, &out, &n, &f->err), SC_OK);
    assert_string_equal(sc_elbv2_attr(out, n, "idle_timeout.timeout_seconds"), "60");
    a[1].key = "no.such.key";
    assert_int_equal(sc_elbv2_modify_attributes(f->v2, f->lb, a, 2, T0, &f->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(f->err.message, "Load balancer attribute key 'no.such.key' is not "
                                        "recognized");
    assert_int_equal(sc_elbv2_modify_attributes(f->v2, f->lb, a, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_describe_attributes(f->v2, f->lb, &out, &n, &f->err), SC_OK);
    assert_string_equal(sc_elbv2_attr(out, n, "idle_timeout.timeout_seconds"), "120");
}

/* AWS's key names, as the Terraform provider sends them at create (x_amzn, not x_amz). */
static void test_elbv2_attribute_keys_as_aws_names_them(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_kv tls = { "routing.http.x_amzn_tls_version_and_cipher_suite.enabled", "true" };
    const struct sc_elbv2_kv *out;
    int n;

    mk_alb(f, "web");
    assert_int_equal(sc_elbv2_describe_attributes(f->v2, f->lb, &out, &n, &f->err), SC_OK);
    assert_string_equal(sc_elbv2_attr(out, n, tls.key), "false");
    assert_int_equal(sc_elbv2_modify_attributes(f->v2, f->lb, &tls, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_describe_attributes(f->v2, f->lb, &out, &n, &f->err), SC_OK);
    assert_string_equal(sc_elbv2_attr(out, n, tls.key), "true");
    assert_null(sc_elbv2_attr(out, n, "routing.http.x_amz_tls_version_and_cipher_suite.enabled"));
}

/* --- target groups -------------------------------------------------------------------------- */

static void test_elbv2_target_group_health_check_defaults_by_protocol(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_tg_req r = { .name = "t", .protocol = "HTTP", .has_port = 1, .port = 80 };
    const struct sc_elbv2_tg *g;

    r.vpc_id = f->vpc;
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &r, T0, &g, &f->err), SC_OK);
    assert_string_equal(g->hc.protocol, "HTTP");
    assert_string_equal(g->hc.port, "traffic-port");
    assert_string_equal(g->hc.path, "/");
    assert_string_equal(g->hc.matcher, "200");
    assert_int_equal(g->hc.interval_s, 30);
    assert_int_equal(g->hc.timeout_s, 6);
    assert_int_equal(g->hc.healthy_threshold, 5);
    assert_int_equal(g->hc.unhealthy_threshold, 2);
    assert_string_equal(sc_elbv2_attr(g->attrs, g->nattrs, "deregistration_delay.timeout_seconds"),
                        "300");
    assert_string_equal(sc_elbv2_attr(g->attrs, g->nattrs, "stickiness.type"), "lb_cookie");
    r.name = "u";
    r.protocol = "TCP";
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &r, T0, &g, &f->err), SC_OK);
    assert_string_equal(g->hc.protocol, "TCP");
    assert_null(g->hc.path);
    assert_null(g->hc.matcher);
    assert_int_equal(g->hc.timeout_s, 10);
    assert_string_equal(sc_elbv2_attr(g->attrs, g->nattrs, "stickiness.type"), "source_ip");
}

static void test_elbv2_health_check_ranges_and_timeout_below_interval(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_tg_req r = { .name = "t", .protocol = "HTTP", .has_port = 1, .port = 80 };

    r.vpc_id = f->vpc;
    r.hc.has_timeout = 1;
    r.hc.timeout_s = 30;
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &r, T0, NULL, &f->err), SC_ERR_VALIDATION);
    assert_string_equal(f->err.message,
                        "Health check timeout '30' must be smaller than the interval '30'");
    r.hc.timeout_s = 5;
    r.hc.has_healthy = 1;
    r.hc.healthy_threshold = 11;
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &r, T0, NULL, &f->err), SC_ERR_VALIDATION);
    r.hc.healthy_threshold = 3;
    r.hc.protocol = "TCP";
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &r, T0, NULL, &f->err), SC_ERR_VALIDATION);
    r.hc.protocol = NULL;
    r.hc.matcher = "200-600";
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &r, T0, NULL, &f->err), SC_ERR_VALIDATION);
    r.hc.matcher = "200,202-299";
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &r, T0, NULL, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_tg_count(f->v2), 1);
}

static void test_elbv2_duplicate_target_group_name(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_tg_req r = { .name = "t", .protocol = "HTTP", .has_port = 1, .port = 80 };

    r.vpc_id = f->vpc;
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &r, T0, NULL, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &r, T0, NULL, &f->err), SC_OK);
    r.port = 81;
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &r, T0, NULL, &f->err),
                     SC_ERR_DUPLICATE_TARGET_GROUP_NAME);
    assert_string_equal(f->err.message, "A target group with the same name 't' exists, but "
                                        "with different settings");
}

static void test_elbv2_target_group_in_use_cannot_be_deleted(void **state)
{
    struct fx *f = *state;
    const struct sc_elbv2_tg *g;

    mk_alb(f, "web");
    mk_tg(f, "t", f->tg);
    mk_listener(f, f->tg);
    g = sc_elbv2_tg_find(f->v2, f->tg);
    assert_int_equal(g->nload_balancer_arns, 1);
    assert_string_equal(g->load_balancer_arns[0], f->lb);
    assert_int_equal(sc_elbv2_delete_target_group(f->v2, f->tg, T0, &f->err),
                     SC_ERR_RESOURCE_IN_USE);
    assert_non_null(strstr(f->err.message, "is currently in use by a listener or a rule"));
    assert_int_equal(sc_elbv2_delete_listener(f->v2, f->lis, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_delete_target_group(f->v2, f->tg, T0, &f->err), SC_OK);
}

/* --- listeners ------------------------------------------------------------------------------ */

static void test_elbv2_duplicate_listener_port(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FIXED_RESPONSE, .fixed_status = "404" };
    struct sc_elbv2_listener_req r = {
        .protocol = "HTTP", .has_port = 1, .port = 80, .actions = &a, .nactions = 1
    };

    mk_alb(f, "web");
    mk_tg(f, "t", f->tg);
    mk_listener(f, f->tg);
    r.load_balancer_arn = f->lb;
    assert_int_equal(sc_elbv2_create_listener(f->v2, &r, T0, NULL, &f->err),
                     SC_ERR_DUPLICATE_LISTENER);
    r.protocol = "TCP";
    r.port = 81;
    assert_int_equal(sc_elbv2_create_listener(f->v2, &r, T0, NULL, &f->err),
                     SC_ERR_UNSUPPORTED_PROTOCOL);
    r.protocol = "HTTPS";
    assert_int_equal(sc_elbv2_create_listener(f->v2, &r, T0, NULL, &f->err),
                     SC_ERR_CERTIFICATE_NOT_FOUND);
    assert_int_equal(sc_elbv2_listener_count(f->v2), 1);
}

static void test_elbv2_redirect_must_change_something(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_REDIRECT, .redirect_status = "HTTP_301" };
    struct sc_elbv2_listener_req r = {
        .protocol = "HTTP", .has_port = 1, .port = 80, .actions = &a, .nactions = 1
    };
    const struct sc_elbv2_listener *l;

    mk_alb(f, "web");
    r.load_balancer_arn = f->lb;
    assert_int_equal(sc_elbv2_create_listener(f->v2, &r, T0, NULL, &f->err),
                     SC_ERR_INVALID_LOAD_BALANCER_ACTION);
    a.redirect_protocol = "HTTPS";
    a.redirect_port = "443";
    assert_int_equal(sc_elbv2_create_listener(f->v2, &r, T0, &l, &f->err), SC_OK);
    assert_string_equal(l->default_actions[0].redirect_host, "#{host}");
    assert_string_equal(l->default_actions[0].redirect_path, "/#{path}");
    assert_string_equal(l->default_actions[0].redirect_query, "#{query}");
    assert_int_equal(l->default_actions[0].order, 1);
}

static void test_elbv2_forward_to_incompatible_or_missing_target_group(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_tg_req t = { .name = "tcp", .protocol = "TCP", .has_port = 1, .port = 80 };
    const struct sc_elbv2_tg *g;
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FORWARD };
    struct sc_elbv2_listener_req r = {
        .protocol = "HTTP", .has_port = 1, .port = 80, .actions = &a, .nactions = 1
    };

    mk_alb(f, "web");
    t.vpc_id = f->vpc;
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &t, T0, &g, &f->err), SC_OK);
    r.load_balancer_arn = f->lb;
    a.target_group_arn = g->arn;
    assert_int_equal(sc_elbv2_create_listener(f->v2, &r, T0, NULL, &f->err),
                     SC_ERR_INCOMPATIBLE_PROTOCOLS);
    a.target_group_arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/x/1";
    assert_int_equal(sc_elbv2_create_listener(f->v2, &r, T0, NULL, &f->err),
                     SC_ERR_TARGET_GROUP_NOT_FOUND);
    assert_string_equal(f->err.message, "One or more target groups not found");
}

/* --- rules ---------------------------------------------------------------------------------- */

static void test_elbv2_rule_priority_in_use(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition c = { .field = SC_ELBV2_PATH_PATTERN,
                                    .values = { "/api/*" },
                                    .nvalues = 1 };
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FIXED_RESPONSE, .fixed_status = "200" };
    struct sc_elbv2_rule_req r = { .has_priority = 1,
                                   .priority = 10,
                                   .conditions = &c,
                                   .nconditions = 1,
                                   .actions = &a,
                                   .nactions = 1 };
    const struct sc_elbv2_rule *out[4];
    int n;

    mk_alb(f, "web");
    mk_tg(f, "t", f->tg);
    mk_listener(f, f->tg);
    r.listener_arn = f->lis;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, NULL, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, NULL, &f->err), SC_ERR_PRIORITY_IN_USE);
    assert_string_equal(f->err.message, "Priority '10' is currently in use");
    r.priority = 5;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, NULL, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_describe_rules(f->v2, f->lis, NULL, 0, out, &n, &f->err), SC_OK);
    assert_int_equal(n, 3);
    assert_int_equal(out[0]->priority, 5);
    assert_int_equal(out[1]->priority, 10);
    assert_true(out[2]->is_default);
    assert_int_equal(sc_elbv2_delete_rule(f->v2, out[2]->arn, T0, &f->err),
                     SC_ERR_OPERATION_NOT_PERMITTED);
}

static void test_elbv2_set_rule_priorities_all_or_nothing(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition c = { .field = SC_ELBV2_PATH_PATTERN,
                                    .values = { "/a" },
                                    .nvalues = 1 };
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FIXED_RESPONSE, .fixed_status = "200" };
    struct sc_elbv2_rule_req r = { .has_priority = 1,
                                   .priority = 1,
                                   .conditions = &c,
                                   .nconditions = 1,
                                   .actions = &a,
                                   .nactions = 1 };
    const struct sc_elbv2_rule *x, *y;
    const char *arns[2];
    int pr[2] = { 3, 3 };

    mk_alb(f, "web");
    mk_tg(f, "t", f->tg);
    mk_listener(f, f->tg);
    r.listener_arn = f->lis;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, &x, &f->err), SC_OK);
    arns[0] = x->arn;
    r.priority = 2;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, &y, &f->err), SC_OK);
    arns[1] = y->arn;
    assert_int_equal(sc_elbv2_set_rule_priorities(f->v2, arns, pr, 2, T0, &f->err),
                     SC_ERR_PRIORITY_IN_USE);
    assert_int_equal(sc_elbv2_rule_find(f->v2, arns[0])->priority, 1);
    assert_int_equal(sc_elbv2_rule_find(f->v2, arns[1])->priority, 2);
    pr[0] = 2;
    pr[1] = 1;
    assert_int_equal(sc_elbv2_set_rule_priorities(f->v2, arns, pr, 2, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_rule_find(f->v2, arns[0])->priority, 2);
}

static void test_elbv2_condition_limits(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition c[2] = {
        { .field = SC_ELBV2_PATH_PATTERN, .values = { "/a", "/b", "/c" }, .nvalues = 3 },
        { .field = SC_ELBV2_HOST_HEADER,
          .values = { "a.example.com", "b.example.com", "c" },
          .nvalues = 3 },
    };
    struct sc_elbv2_condition host = {
        .field = SC_ELBV2_HTTP_HEADER, .header_name = "Host", .values = { "x" }, .nvalues = 1
    };
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FIXED_RESPONSE, .fixed_status = "200" };
    struct sc_elbv2_rule_req r = { .has_priority = 1,
                                   .priority = 1,
                                   .conditions = c,
                                   .nconditions = 2,
                                   .actions = &a,
                                   .nactions = 1 };

    mk_alb(f, "web");
    mk_tg(f, "t", f->tg);
    mk_listener(f, f->tg);
    r.listener_arn = f->lis;
    /* six values in one rule */
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, NULL, &f->err), SC_ERR_VALIDATION);
    assert_string_equal(f->err.message, "A rule can only have '5' condition values");
    /* two path-pattern conditions */
    c[1] = c[0];
    c[0].nvalues = c[1].nvalues = 1;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, NULL, &f->err), SC_ERR_VALIDATION);
    /* none at all */
    r.nconditions = 0;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, NULL, &f->err), SC_ERR_VALIDATION);
    /* the Host header belongs to host-header */
    r.conditions = &host;
    r.nconditions = 1;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, NULL, &f->err), SC_ERR_VALIDATION);
    /* a priority out of range */
    r.conditions = c;
    r.priority = 50001;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, NULL, &f->err), SC_ERR_VALIDATION);
    assert_int_equal(sc_elbv2_rule_count(f->v2), 1); /* the default rule only */
}

/* --- rule evaluation ------------------------------------------------------------------------ */

static void test_elbv2_glob_star_and_question_mark(void **state)
{
    (void)state;
    assert_true(sc_elbv2_glob("/api/*", "/api/v1/x", 9, 0));
    assert_true(sc_elbv2_glob("/api/*", "/api/", 5, 0));
    assert_false(sc_elbv2_glob("/api/*", "/apix", 5, 0));
    assert_true(sc_elbv2_glob("/img/?.png", "/img/a.png", 10, 0));
    assert_false(sc_elbv2_glob("/img/?.png", "/img/ab.png", 11, 0));
    assert_false(sc_elbv2_glob("/API/*", "/api/x", 6, 0)); /* paths are case-sensitive */
    assert_true(sc_elbv2_glob("*.EXAMPLE.com", "www.example.COM", 15, 1));
    assert_true(sc_elbv2_glob("*", "", 0, 0));
    assert_true(sc_elbv2_glob("a*b*c", "axxbyyc", 7, 0));
    assert_false(sc_elbv2_glob("a*b*c", "axxbyy", 6, 0));
}

static void test_elbv2_path_pattern_ignores_query(void **state)
{
    struct sc_elbv2_condition c = { .field = SC_ELBV2_PATH_PATTERN,
                                    .values = { "/api/*" },
                                    .nvalues = 1 };
    struct sc_elbv2_http_request q = req("GET", "/api/users", "x=/api/", "h");

    (void)state;
    assert_true(sc_elbv2_conditions_match(&c, 1, &q));
    q = req("GET", "/web", "p=/api/x", "h");
    assert_false(sc_elbv2_conditions_match(&c, 1, &q));
}

static void test_elbv2_host_header_case_insensitive_without_port(void **state)
{
    struct sc_elbv2_condition c = { .field = SC_ELBV2_HOST_HEADER,
                                    .values = { "api.example.com", "*.test.io" },
                                    .nvalues = 2 };
    struct sc_elbv2_http_request q = req("GET", "/", "", "API.Example.com:8080");

    (void)state;
    assert_true(sc_elbv2_conditions_match(&c, 1, &q));
    q = req("GET", "/", "", "a.test.io");
    assert_true(sc_elbv2_conditions_match(&c, 1, &q));
    q = req("GET", "/", "", "example.com");
    assert_false(sc_elbv2_conditions_match(&c, 1, &q));
}

static void test_elbv2_http_header_name_and_value(void **state)
{
    struct sc_elbv2_condition c = { .field = SC_ELBV2_HTTP_HEADER,
                                    .header_name = "User-Agent",
                                    .values = { "*Mobile*" },
                                    .nvalues = 1 };
    struct sc_elbv2_http_header h[2] = { { "accept", 6, "*/*", 3 },
                                         { "user-agent", 10, "x mobile y", 10 } };
    struct sc_elbv2_http_request q = req("GET", "/", "", "h");

    (void)state;
    q.headers = h;
    q.nheaders = 2;
    assert_true(sc_elbv2_conditions_match(&c, 1, &q));
    q.nheaders = 1;
    assert_false(sc_elbv2_conditions_match(&c, 1, &q));
}

static void test_elbv2_http_request_method_case_sensitive(void **state)
{
    struct sc_elbv2_condition c = { .field = SC_ELBV2_HTTP_REQUEST_METHOD,
                                    .values = { "POST", "PUT" },
                                    .nvalues = 2 };
    struct sc_elbv2_http_request q = req("PUT", "/", "", "h");

    (void)state;
    assert_true(sc_elbv2_conditions_match(&c, 1, &q));
    q = req("post", "/", "", "h");
    assert_false(sc_elbv2_conditions_match(&c, 1, &q));
    q = req("GET", "/", "", "h");
    assert_false(sc_elbv2_conditions_match(&c, 1, &q));
}

static void test_elbv2_query_string_decoded_pairs(void **state)
{
    struct sc_elbv2_condition c = { .field = SC_ELBV2_QUERY_STRING,
                                    .values = { "b*", "x y" },
                                    .query_keys = { "version", NULL },
                                    .nvalues = 2 };
    struct sc_elbv2_http_request q = req("GET", "/", "a=1&Version=BETA2", "h");

    (void)state;
    assert_true(sc_elbv2_conditions_match(&c, 1, &q));
    q = req("GET", "/", "k=x%20y", "h"); /* any key, value decoded */
    assert_true(sc_elbv2_conditions_match(&c, 1, &q));
    q = req("GET", "/", "k=x+y", "h");
    assert_true(sc_elbv2_conditions_match(&c, 1, &q));
    q = req("GET", "/", "version=alpha", "h");
    assert_false(sc_elbv2_conditions_match(&c, 1, &q));
    q = req("GET", "/", "", "h");
    assert_false(sc_elbv2_conditions_match(&c, 1, &q));
}

static void test_elbv2_source_ip_cidr(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition c = { .field = SC_ELBV2_SOURCE_IP,
                                    .values = { "10.0.0.0/8", "2001:db8::/32" },
                                    .nvalues = 2 };
    struct sc_elbv2_condition bad = { .field = SC_ELBV2_SOURCE_IP,
                                      .values = { "10.0.0.0/33" },
                                      .nvalues = 1 };
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FIXED_RESPONSE, .fixed_status = "403" };
    struct sc_elbv2_rule_req r = { .has_priority = 1,
                                   .priority = 1,
                                   .conditions = &c,
                                   .nconditions = 1,
                                   .actions = &a,
                                   .nactions = 1 };
    const struct sc_elbv2_rule *rule;
    struct sc_elbv2_http_request q = req("GET", "/", "", "h");

    mk_alb(f, "web");
    mk_tg(f, "t", f->tg);
    mk_listener(f, f->tg);
    r.listener_arn = f->lis;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, &rule, &f->err), SC_OK);
    assert_true(sc_elbv2_conditions_match(rule->conditions, 1, &q)); /* 10.0.0.7 */
    q.source.addr[0] = 11;
    assert_false(sc_elbv2_conditions_match(rule->conditions, 1, &q));
    r.conditions = &bad;
    r.priority = 2;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, NULL, &f->err), SC_ERR_VALIDATION);
}

static void test_elbv2_listener_match_lowest_priority_first_then_default(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_condition api = { .field = SC_ELBV2_PATH_PATTERN,
                                      .values = { "/api/*" },
                                      .nvalues = 1 };
    struct sc_elbv2_condition all = { .field = SC_ELBV2_PATH_PATTERN,
                                      .values = { "/*" },
                                      .nvalues = 1 };
    struct sc_elbv2_action a1 = { .type = SC_ELBV2_ACTION_FIXED_RESPONSE, .fixed_status = "201" };
    struct sc_elbv2_action a2 = { .type = SC_ELBV2_ACTION_FIXED_RESPONSE, .fixed_status = "202" };
    struct sc_elbv2_rule_req r = { .has_priority = 1, .nconditions = 1, .nactions = 1 };
    const struct sc_elbv2_listener *l;
    const struct sc_elbv2_rule *m;
    struct sc_elbv2_http_request q = req("GET", "/api/x", "", "h");

    mk_alb(f, "web");
    mk_tg(f, "t", f->tg);
    mk_listener(f, f->tg);
    r.listener_arn = f->lis;
    r.priority = 20;
    r.conditions = &all;
    r.actions = &a2;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, NULL, &f->err), SC_OK);
    r.priority = 10;
    r.conditions = &api;
    r.actions = &a1;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, NULL, &f->err), SC_OK);
    l = sc_elbv2_listener_find(f->v2, f->lis);
    m = sc_elbv2_listener_match(l, &q);
    assert_string_equal(sc_elbv2_rule_action(m)->fixed_status, "201");
    q = req("GET", "/web", "", "h");
    assert_string_equal(sc_elbv2_rule_action(sc_elbv2_listener_match(l, &q))->fixed_status, "202");
    q = req("GET", "", "", "h"); /* matches no pattern: the default rule */
    m = sc_elbv2_listener_match(l, &q);
    assert_true(m->is_default);
    assert_string_equal(sc_elbv2_rule_action(m)->target_group_arn, f->tg);
}

static void test_elbv2_forward_pick_by_weight(void **state)
{
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FORWARD,
                                 .nforward = 3,
                                 .forward = { { "a", 1 }, { "b", 0 }, { "c", 3 } } };
    int hits[3] = { 0 };

    (void)state;
    for (uint64_t d = 0; d < 400; d++)
        hits[sc_elbv2_forward_pick(&a, d)]++;
    assert_int_equal(hits[0], 100);
    assert_int_equal(hits[1], 0);
    assert_int_equal(hits[2], 300);
    a.forward[0].weight = a.forward[2].weight = 0;
    assert_int_equal(sc_elbv2_forward_pick(&a, 7), -1);
}

/* --- targets and health --------------------------------------------------------------------- */

static struct sc_elbv2_target_health one_health(struct fx *f, const char *tg, const char *id)
{
    struct sc_elbv2_target_req t = { .id = id };
    struct sc_elbv2_target_health h;
    int n = 0;

    assert_int_equal(sc_elbv2_describe_target_health(f->v2, tg, &t, 1, &h, &n, &f->err), SC_OK);
    assert_int_equal(n, 1);
    return h;
}

static void test_elbv2_health_step_initial_needs_healthy_threshold(void **state)
{
    struct sc_elbv2_health h = { 0 };

    (void)state;
    assert_int_equal(sc_elbv2_health_step(&h, SC_ELBV2_HC_OK, 0, 3, 2), 0);
    assert_int_equal(sc_elbv2_health_step(&h, SC_ELBV2_HC_OK, 0, 3, 2), 0);
    assert_false(h.decided);
    assert_int_equal(sc_elbv2_health_step(&h, SC_ELBV2_HC_OK, 0, 3, 2), 1);
    assert_true(h.decided);
    /* healthy: out after unhealthy_threshold consecutive failures */
    assert_int_equal(sc_elbv2_health_step(&h, SC_ELBV2_HC_TIMEOUT, 0, 3, 2), 1);
    assert_int_equal(sc_elbv2_health_step(&h, SC_ELBV2_HC_TIMEOUT, 0, 3, 2), 0);
    /* back after healthy_threshold passes */
    assert_int_equal(sc_elbv2_health_step(&h, SC_ELBV2_HC_OK, 0, 3, 2), 0);
    assert_int_equal(sc_elbv2_health_step(&h, SC_ELBV2_HC_OK, 0, 3, 2), 0);
    assert_int_equal(sc_elbv2_health_step(&h, SC_ELBV2_HC_OK, 0, 3, 2), 1);
}

static void test_elbv2_target_states_and_reasons(void **state)
{
    struct fx *f = *state;
    const char *id = mk_inst(f, "us-east-1a");
    struct sc_elbv2_target_req t = { .id = id };
    struct sc_elbv2_target_health h;

    mk_alb(f, "web");
    mk_tg(f, "t", f->tg);
    h = one_health(f, f->tg, id);
    assert_int_equal(h.state, SC_ELBV2_UNUSED);
    assert_string_equal(h.reason, "Target.NotRegistered");
    assert_string_equal(h.description, "Target is not registered to the target group");
    assert_int_equal(sc_elbv2_register_targets(f->v2, f->tg, &t, 1, T0, &f->err), SC_OK);
    h = one_health(f, f->tg, id);
    assert_int_equal(h.state, SC_ELBV2_UNUSED);
    assert_string_equal(h.reason, "Target.NotInUse");
    assert_string_equal(h.description,
                        "Target group is not configured to receive traffic from the load "
                        "balancer");
    assert_false(h.checked);
    mk_listener(f, f->tg);
    h = one_health(f, f->tg, id);
    assert_int_equal(h.state, SC_ELBV2_INITIAL);
    assert_string_equal(h.reason, "Elb.RegistrationInProgress");
    assert_string_equal(h.description, "Target registration is in progress");
    assert_true(h.checked);
    assert_string_equal(h.health_check_port, "80");
    sc_elbv2_health_result(f->v2, f->tg, id, 80, SC_ELBV2_HC_OK, 200, T0);
    h = one_health(f, f->tg, id);
    assert_string_equal(h.reason, "Elb.InitialHealthChecking");
    assert_string_equal(h.description, "Initial health checks in progress");
    for (int i = 0; i < 4; i++)
        sc_elbv2_health_result(f->v2, f->tg, id, 80, SC_ELBV2_HC_OK, 200, T0);
    h = one_health(f, f->tg, id);
    assert_int_equal(h.state, SC_ELBV2_HEALTHY);
    assert_null(h.reason);
    sc_elbv2_health_result(f->v2, f->tg, id, 80, SC_ELBV2_HC_CODE_MISMATCH, 503, T0);
    sc_elbv2_health_result(f->v2, f->tg, id, 80, SC_ELBV2_HC_CODE_MISMATCH, 503, T0);
    h = one_health(f, f->tg, id);
    assert_int_equal(h.state, SC_ELBV2_UNHEALTHY);
    assert_string_equal(h.reason, "Target.ResponseCodeMismatch");
    assert_string_equal(h.description, "Health checks failed with these codes: [503]");
    sc_elbv2_health_result(f->v2, f->tg, id, 80, SC_ELBV2_HC_TIMEOUT, 0, T0);
    h = one_health(f, f->tg, id);
    assert_string_equal(h.reason, "Target.Timeout");
    assert_string_equal(h.description, "Request timed out");
    sc_elbv2_health_result(f->v2, f->tg, id, 80, SC_ELBV2_HC_FAILED, 0, T0);
    h = one_health(f, f->tg, id);
    assert_string_equal(h.reason, "Target.FailedHealthChecks");
    assert_string_equal(h.description, "Health checks failed");
}

static void test_elbv2_deregistration_drains_for_the_delay(void **state)
{
    struct fx *f = *state;
    const char *id = mk_inst(f, "us-east-1a");
    struct sc_elbv2_target_req t = { .id = id };
    struct sc_elbv2_kv d = { "deregistration_delay.timeout_seconds", "30" };
    struct sc_elbv2_target_health h;

    mk_alb(f, "web");
    mk_tg(f, "t", f->tg);
    mk_listener(f, f->tg);
    assert_int_equal(sc_elbv2_modify_attributes(f->v2, f->tg, &d, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_register_targets(f->v2, f->tg, &t, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_deregister_targets(f->v2, f->tg, &t, 1, T0 + 1000, &f->err), SC_OK);
    h = one_health(f, f->tg, id);
    assert_int_equal(h.state, SC_ELBV2_DRAINING);
    assert_string_equal(h.reason, "Target.DeregistrationInProgress");
    assert_string_equal(h.description, "Target deregistration is in progress");
    assert_int_equal(sc_elbv2_next_due_ms(f->v2, T0), T0 + 31000);
    sc_elbv2_step(f->v2, T0 + 30999);
    assert_int_equal(one_health(f, f->tg, id).state, SC_ELBV2_DRAINING);
    sc_elbv2_step(f->v2, T0 + 31000);
    assert_string_equal(one_health(f, f->tg, id).reason, "Target.NotRegistered");
    assert_int_equal(sc_elbv2_target_count(f->v2, f->tg), 0);
}

static void test_elbv2_drain_idle_ends_deregistration_early(void **state)
{
    struct fx *f = *state;
    const char *a = mk_inst(f, "us-east-1a");
    const char *b = mk_inst(f, "us-east-1b");
    struct sc_elbv2_target_req t[2] = { { .id = a }, { .id = b } };

    mk_alb(f, "web");
    mk_tg(f, "t", f->tg);
    mk_listener(f, f->tg);
    assert_int_equal(sc_elbv2_register_targets(f->v2, f->tg, t, 2, T0, &f->err), SC_OK);
    /* a registered target is not draining: nothing ends */
    assert_int_equal(sc_elbv2_drain_idle(f->v2, f->tg, a, 80), 0);
    assert_int_equal(sc_elbv2_target_count(f->v2, f->tg), 2);
    assert_int_equal(sc_elbv2_deregister_targets(f->v2, f->tg, t, 1, T0 + 1000, &f->err), SC_OK);
    assert_int_equal(one_health(f, f->tg, a).state, SC_ELBV2_DRAINING);
    /* nothing in flight: gone at once, long before the 300 s delay */
    assert_int_equal(sc_elbv2_drain_idle(f->v2, f->tg, a, 80), 1);
    assert_string_equal(one_health(f, f->tg, a).reason, "Target.NotRegistered");
    assert_int_equal(sc_elbv2_target_count(f->v2, f->tg), 1);
    assert_int_equal(one_health(f, f->tg, b).state, SC_ELBV2_INITIAL);
    assert_int_equal(sc_elbv2_drain_idle(f->v2, f->tg, a, 80), -1);
    assert_int_equal(sc_elbv2_drain_idle(f->v2, "arn:nope", b, 80), -1);
}

static void test_elbv2_matcher_takes_codes_lists_and_ranges(void **state)
{
    (void)state;
    assert_true(sc_elbv2_matcher_takes(NULL, 200));
    assert_false(sc_elbv2_matcher_takes(NULL, 204));
    assert_true(sc_elbv2_matcher_takes("200", 200));
    assert_false(sc_elbv2_matcher_takes("200", 201));
    assert_true(sc_elbv2_matcher_takes("200,202", 202));
    assert_false(sc_elbv2_matcher_takes("200,202", 201));
    assert_true(sc_elbv2_matcher_takes("200-299", 204));
    assert_true(sc_elbv2_matcher_takes("200-299", 299));
    assert_false(sc_elbv2_matcher_takes("200-299", 300));
    assert_true(sc_elbv2_matcher_takes("200,300-399", 302));
    assert_false(sc_elbv2_matcher_takes("200,300-399", 404));
}

static void test_elbv2_hc_judge_reasons_by_load_balancer_type(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_tg_req r = { .name = "n", .protocol = "TCP", .has_port = 1, .port = 80 };
    const struct sc_elbv2_tg *alb, *nlb, *nlb_http;

    mk_tg(f, "a", f->tg);
    alb = sc_elbv2_tg_find(f->v2, f->tg);
    /* ALB group, HTTP check, matcher 200 */
    assert_int_equal(sc_elbv2_hc_judge(alb, SC_ELBV2_PROBE_ANSWERED, 200), SC_ELBV2_HC_OK);
    assert_int_equal(sc_elbv2_hc_judge(alb, SC_ELBV2_PROBE_ANSWERED, 503),
                     SC_ELBV2_HC_CODE_MISMATCH);
    assert_int_equal(sc_elbv2_hc_judge(alb, SC_ELBV2_PROBE_TIMEOUT, 0), SC_ELBV2_HC_TIMEOUT);
    assert_int_equal(sc_elbv2_hc_judge(alb, SC_ELBV2_PROBE_CONN_ERROR, 0), SC_ELBV2_HC_FAILED);
    assert_int_equal(sc_elbv2_hc_judge(alb, SC_ELBV2_PROBE_MALFORMED, 0), SC_ELBV2_HC_FAILED);
    /* NLB group, TCP check: connected passes; Target.Timeout is the ALB's only */
    r.vpc_id = f->vpc;
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &r, T0, &nlb, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_hc_judge(nlb, SC_ELBV2_PROBE_ANSWERED, 0), SC_ELBV2_HC_OK);
    assert_int_equal(sc_elbv2_hc_judge(nlb, SC_ELBV2_PROBE_TIMEOUT, 0), SC_ELBV2_HC_FAILED);
    assert_int_equal(sc_elbv2_hc_judge(nlb, SC_ELBV2_PROBE_CONN_ERROR, 0), SC_ELBV2_HC_FAILED);
    /* NLB group, HTTP check: a status outside the matcher is a plain failure */
    r.name = "nh";
    r.hc.protocol = "HTTP";
    r.hc.matcher = "200-299";
    assert_int_equal(sc_elbv2_create_target_group(f->v2, &r, T0, &nlb_http, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_hc_judge(nlb_http, SC_ELBV2_PROBE_ANSWERED, 204), SC_ELBV2_HC_OK);
    assert_int_equal(sc_elbv2_hc_judge(nlb_http, SC_ELBV2_PROBE_ANSWERED, 500), SC_ELBV2_HC_FAILED);
}

static void test_elbv2_register_targets_checks(void **state)
{
    struct fx *f = *state;
    const char *id = mk_inst(f, "us-east-1a");
    struct sc_elbv2_target_req t[2] = { { .id = id }, { .id = "i-00000000000000000" } };

    mk_tg(f, "t", f->tg);
    assert_int_equal(sc_elbv2_register_targets(f->v2, f->tg, t, 2, T0, &f->err),
                     SC_ERR_INVALID_TARGET);
    assert_string_equal(f->err.message,
                        "The following targets are not valid instances: 'i-00000000000000000'");
    assert_int_equal(sc_elbv2_target_count(f->v2, f->tg), 0); /* nothing registered */
    {
        struct sc_ec2_run_req rr = { .image_id = "ami-12c6146b", .min_count = 1, .max_count = 1 };
        const struct sc_ec2_reservation *res;

        assert_int_equal(sc_ec2_run_instances(f->ec2, &rr, T0, &res, &f->err), SC_OK);
        t[1].id = res->instances[0]->instance_id; /* pending */
    }
    assert_int_equal(sc_elbv2_register_targets(f->v2, f->tg, t, 2, T0, &f->err),
                     SC_ERR_INVALID_TARGET);
    assert_non_null(strstr(f->err.message, "not in a running state"));
}

static void test_elbv2_route_set_healthy_else_fail_open(void **state)
{
    struct fx *f = *state;
    const char *a = mk_inst(f, "us-east-1a"), *b = mk_inst(f, "us-east-1b");
    struct sc_elbv2_target_req t[2] = { { .id = a }, { .id = b } };
    const char *ids[4];
    int ports[4];

    mk_alb(f, "web");
    mk_tg(f, "t", f->tg);
    mk_listener(f, f->tg);
    assert_int_equal(sc_elbv2_register_targets(f->v2, f->tg, t, 2, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_route_set(f->v2, f->tg, ids, ports, 4), 2); /* none healthy */
    for (int i = 0; i < 5; i++)
        sc_elbv2_health_result(f->v2, f->tg, b, 80, SC_ELBV2_HC_OK, 200, T0);
    assert_int_equal(sc_elbv2_route_set(f->v2, f->tg, ids, ports, 4), 1);
    assert_string_equal(ids[0], b);
    assert_int_equal(ports[0], 80);
    assert_int_equal(sc_elbv2_instance_membership(f->v2, f->tg, b), SC_ELBV2_MEMBER_HEALTHY);
    assert_int_equal(sc_elbv2_instance_membership(f->v2, f->tg, a), SC_ELBV2_MEMBER_INITIAL);
}

static void test_elbv2_tags_limits_and_kinds(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_kv tags[2] = { { "team", "a" }, { "team", "b" } };
    const char *arns[2];
    const struct sc_elbv2_kv *out;
    int n;

    mk_alb(f, "web");
    mk_tg(f, "t", f->tg);
    arns[0] = f->lb;
    arns[1] = f->tg;
    assert_int_equal(sc_elbv2_add_tags(f->v2, arns, 2, tags, 2, T0, &f->err),
                     SC_ERR_DUPLICATE_TAG_KEYS);
    assert_int_equal(sc_elbv2_add_tags(f->v2, arns, 2, tags, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_tags(f->v2, f->tg, &out, &n, &f->err), SC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(out[0].value, "a");
    arns[1] = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/no/1";
    assert_int_equal(sc_elbv2_add_tags(f->v2, arns, 2, tags, 1, T0, &f->err),
                     SC_ERR_TARGET_GROUP_NOT_FOUND);
}

static void test_elbv2_save_load_round_trip(void **state)
{
    struct fx *f = *state;
    const char *id = mk_inst(f, "us-east-1a");
    struct sc_elbv2_target_req t = { .id = id };
    struct sc_elbv2_condition c = { .field = SC_ELBV2_SOURCE_IP,
                                    .values = { "10.0.0.0/8" },
                                    .nvalues = 1 };
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FIXED_RESPONSE,
                                 .fixed_status = "403",
                                 .fixed_body = "no" };
    struct sc_elbv2_rule_req r = { .has_priority = 1,
                                   .priority = 7,
                                   .conditions = &c,
                                   .nconditions = 1,
                                   .actions = &a,
                                   .nactions = 1 };
    struct sc_elbv2_config vc = { 0 };
    struct sc_elbv2 *v2b;
    struct sc_elbv2_http_request q = req("GET", "/", "", "h");
    json_t *j, *j2;
    char *s1, *s2;

    mk_alb(f, "web");
    mk_tg(f, "t", f->tg);
    mk_listener(f, f->tg);
    r.listener_arn = f->lis;
    assert_int_equal(sc_elbv2_create_rule(f->v2, &r, T0, NULL, &f->err), SC_OK);
    assert_int_equal(sc_elbv2_register_targets(f->v2, f->tg, &t, 1, T0, &f->err), SC_OK);
    sc_elbv2_health_result(f->v2, f->tg, id, 80, SC_ELBV2_HC_OK, 200, T0);
    j = sc_elbv2_save(f->v2);
    assert_non_null(j);
    vc.ec2 = f->ec2;
    v2b = sc_elbv2_create(&vc);
    assert_int_equal(sc_elbv2_load(v2b, j, &f->err), SC_OK);
    j2 = sc_elbv2_save(v2b);
    s1 = json_dumps(j, JSON_SORT_KEYS);
    s2 = json_dumps(j2, JSON_SORT_KEYS);
    assert_string_equal(s1, s2);
    assert_string_equal(
        sc_elbv2_rule_action(sc_elbv2_listener_match(sc_elbv2_listener_find(v2b, f->lis), &q))
            ->fixed_status,
        "403");
    assert_string_equal(one_health(f, f->tg, id).reason, "Elb.InitialHealthChecking");
    free(s1);
    free(s2);
    json_decref(j);
    json_decref(j2);
    sc_elbv2_destroy(v2b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(x) cmocka_unit_test_setup_teardown(x, setup, teardown)
        T(test_elbv2_alb_arn_dns_and_defaults),
        T(test_elbv2_load_balancer_name_rules),
        T(test_elbv2_alb_needs_two_zones),
        T(test_elbv2_duplicate_load_balancer_name_other_settings),
        T(test_elbv2_deletion_protection_refuses_delete),
        T(test_elbv2_attribute_checks_all_or_nothing),
        T(test_elbv2_attribute_keys_as_aws_names_them),
        T(test_elbv2_target_group_health_check_defaults_by_protocol),
        T(test_elbv2_health_check_ranges_and_timeout_below_interval),
        T(test_elbv2_duplicate_target_group_name),
        T(test_elbv2_target_group_in_use_cannot_be_deleted),
        T(test_elbv2_duplicate_listener_port),
        T(test_elbv2_redirect_must_change_something),
        T(test_elbv2_forward_to_incompatible_or_missing_target_group),
        T(test_elbv2_rule_priority_in_use),
        T(test_elbv2_set_rule_priorities_all_or_nothing),
        T(test_elbv2_condition_limits),
        T(test_elbv2_glob_star_and_question_mark),
        T(test_elbv2_path_pattern_ignores_query),
        T(test_elbv2_host_header_case_insensitive_without_port),
        T(test_elbv2_http_header_name_and_value),
        T(test_elbv2_http_request_method_case_sensitive),
        T(test_elbv2_query_string_decoded_pairs),
        T(test_elbv2_source_ip_cidr),
        T(test_elbv2_listener_match_lowest_priority_first_then_default),
        T(test_elbv2_forward_pick_by_weight),
        T(test_elbv2_health_step_initial_needs_healthy_threshold),
        T(test_elbv2_target_states_and_reasons),
        T(test_elbv2_deregistration_drains_for_the_delay),
        T(test_elbv2_drain_idle_ends_deregistration_early),
        T(test_elbv2_matcher_takes_codes_lists_and_ranges),
        T(test_elbv2_hc_judge_reasons_by_load_balancer_type),
        T(test_elbv2_register_targets_checks),
        T(test_elbv2_route_set_healthy_else_fail_open),
        T(test_elbv2_tags_limits_and_kinds),
        T(test_elbv2_save_load_round_trip),
#undef T
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
