/* tests/unit/scaler/test_elb_vpc.c: scaler/elb_vpc.c (a classic load balancer's security
 * groups, subnets and listener certificates after creation; DescribeAccountLimits), one
 * test per rule (docs/elb-classic.md 6). */
#include "scaler/elb.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define T0     1767225600000LL /* 2026-01-01T00:00:00Z */
#define CERT_A "arn:aws:iam::123456789012:server-certificate/a"
#define CERT_B "arn:aws:acm:us-east-1:123456789012:certificate/12345678-1234-1234-1234-123456789012"

struct fx {
    struct sc_ec2 *ec2;
    struct sc_elb *elb;
    struct sc_error err;
};

static const char *const zones_ab[] = { "us-east-1a", "us-east-1b" };
static const struct sc_elb_listener ls[] = {
    { "HTTP", 80, "HTTP", 8080, NULL },
    { "HTTPS", 443, "HTTP", 8080, CERT_A },
};

static int setup(void **state)
{
    static struct fx f;
    struct sc_ec2_config ec = { 0 };
    struct sc_elb_config lc = { 0 };
    struct sc_elb_create_req req = { 0 };

    memset(&f, 0, sizeof(f));
    ec.seed = 1;
    f.ec2 = sc_ec2_create(&ec);
    lc.ec2 = f.ec2;
    lc.seed = 2;
    f.elb = sc_elb_create(&lc);
    if (!f.ec2 || !f.elb)
        return -1;
    req.load_balancer_name = "web";
    req.listeners = ls;
    req.nlisteners = 2;
    req.availability_zones = zones_ab;
    req.nzones = 2;
    if (sc_elb_create_load_balancer(f.elb, &req, T0, NULL, &f.err) != SC_OK)
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;

    sc_elb_destroy(f->elb);
    sc_ec2_destroy(f->ec2);
    return 0;
}

static const char *mk_group(struct fx *f, const char *name, const char *vpc)
{
    const struct sc_ec2_security_group *g = NULL;

    assert_int_equal(
        sc_ec2_create_security_group(f->ec2, name, "test", vpc, NULL, 0, T0, &g, &f->err), SC_OK);
    return g->group_id;
}

static const struct sc_elb_lb *lb(struct fx *f)
{
    const struct sc_elb_lb *b = sc_elb_lb_find(f->elb, "web");

    assert_non_null(b);
    return b;
}

static void test_elb_vpc_apply_security_groups_replaces_and_names_source_group(void **state)
{
    struct fx *f = *state;
    const char *vpc = lb(f)->vpc_id;
    const char *g1 = mk_group(f, "front", vpc), *g2 = mk_group(f, "back", vpc);
    const char *groups[] = { g1, g2, g1 };

    assert_int_equal(sc_elb_apply_security_groups(f->elb, "web", groups, 3, T0, &f->err), SC_OK);
    assert_int_equal(lb(f)->nsecurity_groups, 2);
    assert_string_equal(lb(f)->security_groups[0], g1);
    assert_string_equal(lb(f)->security_groups[1], g2);
    assert_string_equal(lb(f)->source_security_group_name, "front");
    assert_string_equal(lb(f)->source_security_group_owner_alias, "123456789012");
}

static void test_elb_vpc_apply_security_groups_unknown_or_other_vpc_refused(void **state)
{
    struct fx *f = *state;
    const struct sc_ec2_vpc *v = NULL;
    const char *missing[] = { "sg-0123456789abcdef0" };
    const char *other[1];
    const char *before;

    before = lb(f)->security_groups[0];
    assert_int_equal(sc_elb_apply_security_groups(f->elb, "web", missing, 1, T0, &f->err),
                     SC_ERR_ELB_INVALID_SECURITY_GROUP);
    assert_string_equal(f->err.message,
                        "One or more of the specified security groups do not exist.");
    assert_int_equal(sc_ec2_create_vpc(f->ec2, "10.9.0.0/16", NULL, 0, T0, &v, &f->err), SC_OK);
    other[0] = mk_group(f, "elsewhere", v->vpc_id);
    assert_int_equal(sc_elb_apply_security_groups(f->elb, "web", other, 1, T0, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_string_equal(lb(f)->security_groups[0], before); /* nothing changed */
    assert_int_equal(sc_elb_apply_security_groups(f->elb, "nope", missing, 1, T0, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
    assert_int_equal(sc_elb_apply_security_groups(f->elb, "web", NULL, 0, T0, &f->err),
                     SC_ERR_VALIDATION);
}

static void test_elb_vpc_attach_subnets_enables_the_zone(void **state)
{
    struct fx *f = *state;
    const struct sc_ec2_subnet *s = NULL;
    const char *ids[1];

    assert_int_equal(sc_ec2_create_subnet(f->ec2, lb(f)->vpc_id, "172.31.200.0/24", "us-east-1c",
                                          NULL, 0, T0, &s, &f->err),
                     SC_OK);
    ids[0] = s->subnet_id;
    assert_int_equal(sc_elb_attach_subnets(f->elb, "web", ids, 1, T0, &f->err), SC_OK);
    assert_int_equal(lb(f)->nzones, 3);
    assert_string_equal(lb(f)->availability_zones[2], "us-east-1c");
    assert_string_equal(lb(f)->subnets[2], s->subnet_id);
    /* attaching it again changes nothing */
    assert_int_equal(sc_elb_attach_subnets(f->elb, "web", ids, 1, T0, &f->err), SC_OK);
    assert_int_equal(lb(f)->nzones, 3);
}

static void test_elb_vpc_attach_subnets_refuses_unknown_second_in_zone_other_vpc(void **state)
{
    struct fx *f = *state;
    const struct sc_ec2_subnet *s = NULL;
    const struct sc_ec2_vpc *v = NULL;
    const char *ids[] = { "subnet-0123456789abcdef0" };

    assert_int_equal(sc_elb_attach_subnets(f->elb, "web", ids, 1, T0, &f->err),
                     SC_ERR_ELB_SUBNET_NOT_FOUND);
    assert_int_equal(sc_ec2_create_subnet(f->ec2, lb(f)->vpc_id, "172.31.201.0/24", "us-east-1a",
                                          NULL, 0, T0, &s, &f->err),
                     SC_OK);
    ids[0] = s->subnet_id;
    assert_int_equal(sc_elb_attach_subnets(f->elb, "web", ids, 1, T0, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_int_equal(sc_ec2_create_vpc(f->ec2, "10.8.0.0/16", NULL, 0, T0, &v, &f->err), SC_OK);
    assert_int_equal(sc_ec2_create_subnet(f->ec2, v->vpc_id, "10.8.1.0/24", "us-east-1c", NULL, 0,
                                          T0, &s, &f->err),
                     SC_OK);
    ids[0] = s->subnet_id;
    assert_int_equal(sc_elb_attach_subnets(f->elb, "web", ids, 1, T0, &f->err),
                     SC_ERR_ELB_INVALID_SUBNET);
    assert_int_equal(lb(f)->nzones, 2);
}

static void test_elb_vpc_detach_subnets_disables_zone_and_keeps_one(void **state)
{
    struct fx *f = *state;
    char sub_a[64], sub_b[64];
    const char *ids[2];

    snprintf(sub_a, sizeof(sub_a), "%s", lb(f)->subnets[0]);
    snprintf(sub_b, sizeof(sub_b), "%s", lb(f)->subnets[1]);
    ids[0] = sub_a;
    ids[1] = sub_b;
    assert_int_equal(sc_elb_detach_subnets(f->elb, "web", ids, 2, T0, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_int_equal(lb(f)->nzones, 2);
    assert_int_equal(sc_elb_detach_subnets(f->elb, "web", ids, 1, T0, &f->err), SC_OK);
    assert_int_equal(lb(f)->nzones, 1);
    assert_string_equal(lb(f)->availability_zones[0], "us-east-1b");
    /* a subnet it is not attached to is ignored */
    assert_int_equal(sc_elb_detach_subnets(f->elb, "web", ids, 1, T0, &f->err), SC_OK);
    assert_int_equal(lb(f)->nzones, 1);
}

static void test_elb_vpc_set_listener_certificate_replaces_it(void **state)
{
    struct fx *f = *state;

    assert_int_equal(sc_elb_set_listener_certificate(f->elb, "web", 443, CERT_B, T0, &f->err),
                     SC_OK);
    assert_string_equal(lb(f)->listeners[1].ssl_certificate_id, CERT_B);
}

static void test_elb_vpc_set_listener_certificate_errors(void **state)
{
    struct fx *f = *state;
    static const char *const bad[] = {
        "",
        "x",
        "arn:aws:iam::123:server-certificate/a",
        "arn:aws:iam::123456789012:server-certificate/",
        "arn:aws:acm:us-east-1:123456789012:certificate/",
        "arn:aws:s3:::bucket",
    };

    assert_int_equal(sc_elb_set_listener_certificate(f->elb, "web", 8443, CERT_B, T0, &f->err),
                     SC_ERR_LISTENER_NOT_FOUND);
    assert_string_equal(f->err.message, "There is no listener on port 8443");
    assert_int_equal(sc_elb_set_listener_certificate(f->elb, "web", 80, CERT_B, T0, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(sc_elb_set_listener_certificate(f->elb, "web", 443, bad[i], T0, &f->err),
                         SC_ERR_CERTIFICATE_NOT_FOUND);
        assert_non_null(strstr(f->err.message, "does not refer to a valid SSL certificate"));
    }
    assert_string_equal(lb(f)->listeners[1].ssl_certificate_id, CERT_A);
    assert_int_equal(sc_elb_set_listener_certificate(f->elb, "nope", 443, CERT_B, T0, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
}

static void test_elb_vpc_create_listener_certificate_must_be_an_arn(void **state)
{
    struct fx *f = *state;
    struct sc_elb_listener l = { "SSL", 8443, "TCP", 8080, "my-cert" };

    assert_int_equal(sc_elb_create_listeners(f->elb, "web", &l, 1, T0, &f->err),
                     SC_ERR_CERTIFICATE_NOT_FOUND);
    l.ssl_certificate_id = CERT_B;
    assert_int_equal(sc_elb_create_listeners(f->elb, "web", &l, 1, T0, &f->err), SC_OK);
}

static void test_elb_vpc_account_limits_aws_order(void **state)
{
    (void)state;
    assert_int_equal(sc_elb_limit_count(), 3);
    assert_string_equal(sc_elb_limit_at(0)->name, "classic-load-balancers");
    assert_string_equal(sc_elb_limit_at(0)->max, "20");
    assert_string_equal(sc_elb_limit_at(1)->name, "classic-listeners");
    assert_string_equal(sc_elb_limit_at(1)->max, "100");
    assert_string_equal(sc_elb_limit_at(2)->name, "classic-registered-instances");
    assert_string_equal(sc_elb_limit_at(2)->max, "1000");
    assert_null(sc_elb_limit_at(3));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_elb_vpc_apply_security_groups_replaces_and_names_source_group),
        T(test_elb_vpc_apply_security_groups_unknown_or_other_vpc_refused),
        T(test_elb_vpc_attach_subnets_enables_the_zone),
        T(test_elb_vpc_attach_subnets_refuses_unknown_second_in_zone_other_vpc),
        T(test_elb_vpc_detach_subnets_disables_zone_and_keeps_one),
        T(test_elb_vpc_set_listener_certificate_replaces_it),
        T(test_elb_vpc_set_listener_certificate_errors),
        T(test_elb_vpc_create_listener_certificate_must_be_an_arn),
        T(test_elb_vpc_account_limits_aws_order),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
