/* tests/unit/scaler/test_elb.c: scaler/elb.c (and elb_health.c, elb_metrics.c), one test per
 * rule. */
#include "scaler/elb.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <jansson.h>

#include "scaler/cloudwatch.h"

#define T0 1767225600000LL /* 2026-01-01T00:00:00Z */

struct fx {
    struct sc_ec2 *ec2;
    struct sc_elb *elb;
    struct sc_error err;
};

static const char *const zones_ab[] = { "us-east-1b", "us-east-1a" };
static const struct sc_elb_listener http80 = { "HTTP", 80, "HTTP", 8080, NULL };

static int setup(void **state)
{
    static struct fx f;
    struct sc_ec2_config ec = { 0 };
    struct sc_elb_config lc = { 0 };

    memset(&f, 0, sizeof(f));
    ec.seed = 1;
    f.ec2 = sc_ec2_create(&ec);
    lc.ec2 = f.ec2;
    lc.seed = 2;
    f.elb = sc_elb_create(&lc);
    if (!f.ec2 || !f.elb)
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

static enum sc_status mk_lb(struct fx *f, const char *name)
{
    struct sc_elb_create_req req = { 0 };

    req.load_balancer_name = name;
    req.listeners = &http80;
    req.nlisteners = 1;
    req.availability_zones = zones_ab;
    req.nzones = 2;
    return sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err);
}

/* A running instance in zone; returns its id (static storage per call slot). */
static const char *mk_inst(struct fx *f, const char *zone, int running)
{
    static char ids[16][SC_EC2_ID_LEN];
    static int next;
    struct sc_ec2_run_req req = { 0 };
    const struct sc_ec2_reservation *r;
    char *id = ids[next++ % 16];

    req.image_id = "ami-12c6146b";
    req.min_count = req.max_count = 1;
    req.availability_zone = zone;
    assert_int_equal(sc_ec2_run_instances(f->ec2, &req, T0, &r, &f->err), SC_OK);
    strcpy(id, r->instances[0]->instance_id);
    if (running)
        assert_int_equal(sc_ec2_instance_running(f->ec2, id, T0), SC_OK);
    return id;
}

static void health(struct fx *f, const char *lb, const char *id, struct sc_elb_instance_health *h)
{
    int n;

    assert_int_equal(sc_elb_describe_instance_health(f->elb, lb, &id, 1, h, &n, &f->err), SC_OK);
    assert_int_equal(n, 1);
}

static void expect_row(struct fx *f, const char *lb, const char *id, const char *state,
                       const char *reason, const char *desc)
{
    struct sc_elb_instance_health h;

    health(f, lb, id, &h);
    assert_string_equal(h.state_name, state);
    assert_string_equal(h.reason_code, reason);
    assert_string_equal(h.description, desc);
}

static void test_elb_create_load_balancer_dns_name_and_defaults(void **state)
{
    struct fx *f = *state;
    const struct sc_elb_lb *lb;
    char prefix[64];
    const char *dot;

    assert_int_equal(mk_lb(f, "web"), SC_OK);
    lb = sc_elb_lb_find(f->elb, "web");
    assert_non_null(lb);
    snprintf(prefix, sizeof(prefix), "web-");
    assert_int_equal(strncmp(lb->dns_name, prefix, 4), 0);
    dot = strchr(lb->dns_name, '.');
    assert_non_null(dot);
    assert_int_equal(dot - lb->dns_name, 4 + 10); /* web-<10 digits> */
    assert_string_equal(dot, ".us-east-1.elb.amazonaws.com");
    assert_string_equal(lb->canonical_hosted_zone_name, lb->dns_name);
    assert_string_equal(lb->canonical_hosted_zone_name_id, "Z35SXDOTRQ7X7K");
    assert_string_equal(lb->scheme, "internet-facing");
    assert_int_equal(lb->nzones, 2);
    assert_string_equal(lb->availability_zones[0], "us-east-1a"); /* sorted */
    assert_string_equal(lb->availability_zones[1], "us-east-1b");
    assert_string_equal(lb->subnets[0], sc_ec2_default_subnet(f->ec2, "us-east-1a")->subnet_id);
    assert_string_equal(lb->vpc_id, sc_ec2_default_vpc(f->ec2)->vpc_id);
    assert_string_equal(lb->health_check.target, "TCP:80");
    assert_int_equal(lb->health_check.interval_s, 30);
    assert_int_equal(lb->health_check.timeout_s, 5);
    assert_int_equal(lb->health_check.unhealthy_threshold, 2);
    assert_int_equal(lb->health_check.healthy_threshold, 10);
    assert_int_equal(lb->hc_target.protocol, SC_ELB_HC_TCP);
    assert_int_equal(lb->hc_target.port, 80);
    assert_false(lb->attributes.connection_draining_enabled);
    assert_int_equal(lb->attributes.connection_draining_timeout_s, 300);
    assert_int_equal(lb->attributes.idle_timeout_s, 60);
    assert_false(lb->attributes.cross_zone_enabled);
    assert_false(lb->attributes.access_log_enabled);
    assert_int_equal(lb->ninstances, 0);
    assert_int_equal(lb->nlisteners, 1);
    /* default VPC, no groups given: the default_elb group (test_elb_security_group_...) */
    assert_string_equal(lb->source_security_group_owner_alias, "123456789012");
    assert_int_equal(lb->nsecurity_groups, 1);
    assert_int_equal(strncmp(lb->source_security_group_name, "default_elb_", 12), 0);
    assert_true(lb->created_time_ms == T0);
}

static void test_elb_create_internal_scheme_dns_prefix(void **state)
{
    struct fx *f = *state;
    struct sc_elb_create_req req = { 0 };
    const struct sc_elb_lb *lb;

    req.load_balancer_name = "inner";
    req.listeners = &http80;
    req.nlisteners = 1;
    req.availability_zones = zones_ab;
    req.nzones = 1;
    req.scheme = "internal";
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, &lb, &f->err), SC_OK);
    assert_int_equal(strncmp(lb->dns_name, "internal-inner-", 15), 0);
    assert_null(lb->canonical_hosted_zone_name);
    req.load_balancer_name = "odd";
    req.scheme = "public";
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, &lb, &f->err),
                     SC_ERR_INVALID_SCHEME);
}

static void test_elb_load_balancer_name_rules(void **state)
{
    struct fx *f = *state;
    static const char *const bad[] = { "",
                                       "-web",
                                       "web-",
                                       "a_b",
                                       "a.b",
                                       "sp ace",
                                       "012345678901234567890123456789012" /* 33 */ };
    static const char *const good[] = { "a", "A-1", "01234567890123456789012345678901" };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(mk_lb(f, bad[i]), SC_ERR_VALIDATION);
        assert_string_equal(sc_status_code(f->err.status), "ValidationError");
    }
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_int_equal(mk_lb(f, good[i]), SC_OK);
    assert_int_equal(sc_elb_lb_count(f->elb), 3);
}

static void test_elb_listener_validation(void **state)
{
    struct fx *f = *state;
    static const struct {
        struct sc_elb_listener l;
        enum sc_status st;
    } t[] = {
        { { "FTP", 80, NULL, 80, NULL }, SC_ERR_VALIDATION },
        { { NULL, 80, NULL, 80, NULL }, SC_ERR_VALIDATION },
        { { "HTTP", 0, NULL, 80, NULL }, SC_ERR_VALIDATION },
        { { "HTTP", 65536, NULL, 80, NULL }, SC_ERR_VALIDATION },
        { { "HTTP", 80, NULL, 0, NULL }, SC_ERR_VALIDATION },
        { { "HTTP", 80, "TCP", 80, NULL }, SC_ERR_VALIDATION },
        { { "TCP", 80, "HTTP", 80, NULL }, SC_ERR_VALIDATION },
        { { "SSL", 443, "HTTPS", 443, "arn:cert" }, SC_ERR_VALIDATION },
        { { "HTTP", 80, "BOGUS", 80, NULL }, SC_ERR_VALIDATION },
        { { "HTTPS", 443, "HTTP", 80, NULL }, SC_ERR_VALIDATION },
        { { "SSL", 443, "TCP", 80, "" }, SC_ERR_CERTIFICATE_NOT_FOUND },
        { { "HTTPS", 443, "HTTP", 80, "arn:aws:iam::123456789012:server-certificate/x" }, SC_OK },
        { { "SSL", 443, "TCP", 9443, "arn:c" }, SC_ERR_CERTIFICATE_NOT_FOUND },
        { { "SSL", 443, "TCP", 9443, "arn:aws:acm:us-east-1:123456789012:certificate/c" }, SC_OK },
        { { "tcp", 1, NULL, 65535, NULL }, SC_OK },
        { { "http", 8080, "https", 8443, NULL }, SC_OK },
    };
    struct sc_elb_create_req req = { 0 };

    req.availability_zones = zones_ab;
    req.nzones = 1;
    req.nlisteners = 1;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char name[32];

        snprintf(name, sizeof(name), "lb%zu", i);
        req.load_balancer_name = name;
        req.listeners = &t[i].l;
        assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err), t[i].st);
    }
    /* AWS's text for a secure listener without a certificate */
    req.load_balancer_name = "nocert";
    req.listeners = &t[9].l;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(f->err.message, "Secure Listeners need to specify a SSLCertificateId");
    /* normalized: upper case, instance protocol defaulted to the family */
    assert_string_equal(sc_elb_lb_find(f->elb, "lb14")->listeners[0].protocol, "TCP");
    assert_string_equal(sc_elb_lb_find(f->elb, "lb14")->listeners[0].instance_protocol, "TCP");
    assert_string_equal(sc_elb_lb_find(f->elb, "lb15")->listeners[0].instance_protocol, "HTTPS");
}

static void test_elb_create_needs_listeners(void **state)
{
    struct fx *f = *state;
    struct sc_elb_create_req req = { 0 };

    req.load_balancer_name = "nolisteners";
    req.availability_zones = zones_ab;
    req.nzones = 1;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err),
                     SC_ERR_VALIDATION);
}

static void test_elb_duplicate_load_balancer_name_other_config(void **state)
{
    struct fx *f = *state;
    struct sc_elb_create_req req = { 0 };
    const struct sc_elb_lb *a, *b;
    struct sc_elb_listener other = { "TCP", 80, "TCP", 8080, NULL };

    req.load_balancer_name = "dup";
    req.listeners = &http80;
    req.nlisteners = 1;
    req.availability_zones = zones_ab;
    req.nzones = 2;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, &a, &f->err), SC_OK);
    /* identical: succeeds again with the same load balancer */
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0 + 1, &b, &f->err), SC_OK);
    assert_ptr_equal(a, b);
    assert_int_equal(sc_elb_lb_count(f->elb), 1);
    req.listeners = &other;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, &b, &f->err),
                     SC_ERR_DUPLICATE_LOAD_BALANCER_NAME);
    assert_string_equal(f->err.message, "Load Balancer named 'dup' already exists and it is "
                                        "configured with different parameters.");
    req.listeners = &http80;
    req.nzones = 1;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, &b, &f->err),
                     SC_ERR_DUPLICATE_LOAD_BALANCER_NAME);
}

static void test_elb_too_many_load_balancers_at_20(void **state)
{
    struct fx *f = *state;
    char name[32];

    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof(name), "lb-%02d", i);
        assert_int_equal(mk_lb(f, name), SC_OK);
    }
    assert_int_equal(mk_lb(f, "lb-20"), SC_ERR_TOO_MANY_LOAD_BALANCERS);
    assert_string_equal(sc_status_code(f->err.status), "TooManyLoadBalancers");
    assert_int_equal(mk_lb(f, "lb-00"), SC_OK); /* identical re-create still fine */
    sc_elb_delete_load_balancer(f->elb, "lb-05", T0, &f->err);
    assert_int_equal(mk_lb(f, "lb-20"), SC_OK);
}

static void test_elb_zones_or_subnets_validation(void **state)
{
    struct fx *f = *state;
    struct sc_elb_create_req req = { 0 };
    const char *bad_zone[] = { "us-east-1f" };
    const struct sc_ec2_subnet *s2;
    const struct sc_ec2_vpc *v;
    const char *subnets[2];
    const char *missing[] = { "subnet-00000000000000000" };

    req.load_balancer_name = "z";
    req.listeners = &http80;
    req.nlisteners = 1;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(f->err.message, "Either AvailabilityZones or SubnetIds must be specified");
    req.availability_zones = bad_zone;
    req.nzones = 1;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_int_equal(sc_status_http(f->err.status), 409);
    assert_string_equal(f->err.message,
                        "Classic Load Balancers do not support Availability Zone 'us-east-1f'.");
    req.availability_zones = zones_ab;
    subnets[0] = sc_ec2_default_subnet(f->ec2, "us-east-1a")->subnet_id;
    req.subnets = subnets;
    req.nsubnets = 1;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err),
                     SC_ERR_VALIDATION);
    req.nzones = 0;
    req.subnets = missing;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err),
                     SC_ERR_ELB_SUBNET_NOT_FOUND);
    /* a second subnet in the same zone of the default VPC */
    assert_int_equal(sc_ec2_create_subnet(f->ec2, sc_ec2_default_vpc(f->ec2)->vpc_id,
                                          "172.31.128.0/24", "us-east-1a", NULL, 0, T0, &s2,
                                          &f->err),
                     SC_OK);
    subnets[1] = s2->subnet_id;
    req.subnets = subnets;
    req.nsubnets = 2;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_string_equal(f->err.message, "A load balancer cannot be attached to multiple subnets "
                                        "in the same Availability Zone.");
    /* subnets of two VPCs */
    sc_ec2_create_vpc(f->ec2, "10.0.0.0/16", NULL, 0, T0, &v, &f->err);
    sc_ec2_create_subnet(f->ec2, v->vpc_id, "10.0.0.0/24", "us-east-1b", NULL, 0, T0, &s2, &f->err);
    subnets[1] = s2->subnet_id;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err),
                     SC_ERR_ELB_INVALID_SUBNET);
}

static void test_elb_create_with_subnets_takes_their_vpc_and_zones(void **state)
{
    struct fx *f = *state;
    struct sc_elb_create_req req = { 0 };
    const struct sc_ec2_vpc *v;
    const struct sc_ec2_subnet *s;
    const struct sc_elb_lb *lb;
    const char *sid;

    sc_ec2_create_vpc(f->ec2, "10.0.0.0/16", NULL, 0, T0, &v, &f->err);
    sc_ec2_create_subnet(f->ec2, v->vpc_id, "10.0.1.0/24", "us-east-1c", NULL, 0, T0, &s, &f->err);
    sid = s->subnet_id;
    req.load_balancer_name = "vpc-lb";
    req.listeners = &http80;
    req.nlisteners = 1;
    req.subnets = &sid;
    req.nsubnets = 1;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, &lb, &f->err), SC_OK);
    assert_string_equal(lb->vpc_id, sc_ec2_subnet_find(f->ec2, sid)->vpc_id);
    assert_int_equal(lb->nzones, 1);
    assert_string_equal(lb->availability_zones[0], "us-east-1c");
    assert_string_equal(lb->subnets[0], sid);
}

static void test_elb_delete_missing_load_balancer_is_success(void **state)
{
    struct fx *f = *state;

    assert_int_equal(sc_elb_delete_load_balancer(f->elb, "never", T0, &f->err), SC_OK);
    mk_lb(f, "gone");
    assert_int_equal(sc_elb_delete_load_balancer(f->elb, "gone", T0, &f->err), SC_OK);
    assert_null(sc_elb_lb_find(f->elb, "gone"));
}

static void test_elb_describe_load_balancer_not_found(void **state)
{
    struct fx *f = *state;
    const struct sc_elb_lb *out[4];
    const char *names[] = { "web", "nope" };
    char marker[SC_ELB_NAME_LEN];
    int n;

    mk_lb(f, "web");
    assert_int_equal(
        sc_elb_describe_load_balancers(f->elb, names, 2, NULL, 0, out, &n, marker, &f->err),
        SC_ERR_LOAD_BALANCER_NOT_FOUND);
    assert_string_equal(f->err.message, "There is no ACTIVE Load Balancer named 'nope'");
    assert_int_equal(
        sc_elb_describe_load_balancers(f->elb, names, 1, NULL, 0, out, &n, marker, &f->err), SC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(marker, "");
}

static void test_elb_describe_load_balancers_paging_in_name_order(void **state)
{
    struct fx *f = *state;
    static const char *const names[] = { "delta", "alpha", "echo", "charlie", "bravo" };
    static const char *const sorted[] = { "alpha", "bravo", "charlie", "delta", "echo" };
    const struct sc_elb_lb *out[400];
    char marker[SC_ELB_NAME_LEN] = "";
    int n, seen = 0;

    for (int i = 0; i < 5; i++)
        mk_lb(f, names[i]);
    for (int page = 0; page < 3; page++) {
        char prev[SC_ELB_NAME_LEN];

        strcpy(prev, marker);
        assert_int_equal(
            sc_elb_describe_load_balancers(f->elb, NULL, 0, prev, 2, out, &n, marker, &f->err),
            SC_OK);
        for (int i = 0; i < n; i++)
            assert_string_equal(out[i]->load_balancer_name, sorted[seen++]);
    }
    assert_int_equal(seen, 5);
    assert_string_equal(marker, "");
    /* a marker whose load balancer was deleted still resumes after it */
    sc_elb_delete_load_balancer(f->elb, "bravo", T0, &f->err);
    sc_elb_describe_load_balancers(f->elb, NULL, 0, "bravo", 2, out, &n, marker, &f->err);
    assert_int_equal(n, 2);
    assert_string_equal(out[0]->load_balancer_name, "charlie");
    assert_string_equal(marker, "delta");
    assert_int_equal(
        sc_elb_describe_load_balancers(f->elb, NULL, 0, NULL, 401, out, &n, marker, &f->err),
        SC_ERR_VALIDATION);
    assert_int_equal(
        sc_elb_describe_load_balancers(f->elb, NULL, 0, NULL, -1, out, &n, marker, &f->err),
        SC_ERR_VALIDATION);
    assert_int_equal(
        sc_elb_describe_load_balancers(f->elb, NULL, 0, NULL, 0, out, &n, marker, &f->err), SC_OK);
    assert_int_equal(n, 4);
}

static void test_elb_identical_listener_is_noop(void **state)
{
    struct fx *f = *state;
    struct sc_elb_listener again = { "http", 80, NULL, 8080, NULL };

    mk_lb(f, "web");
    assert_int_equal(sc_elb_create_listeners(f->elb, "web", &again, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_lb_find(f->elb, "web")->nlisteners, 1);
}

static void test_elb_duplicate_listener_same_port_other_protocol(void **state)
{
    struct fx *f = *state;
    struct sc_elb_listener tcp = { "TCP", 80, "TCP", 8080, NULL };

    mk_lb(f, "web");
    assert_int_equal(sc_elb_create_listeners(f->elb, "web", &tcp, 1, T0, &f->err),
                     SC_ERR_DUPLICATE_LISTENER);
    assert_string_equal(f->err.message, "A listener already exists for web with LoadBalancerPort "
                                        "80, but with a different InstancePort, Protocol, or "
                                        "SSLCertificateId");
}

static void test_elb_duplicate_listener_same_port_other_instance_port(void **state)
{
    struct fx *f = *state;
    struct sc_elb_listener ls[] = { { "TCP", 443, "TCP", 9443, NULL },
                                    { "HTTP", 80, "HTTP", 9090, NULL } };

    mk_lb(f, "web");
    /* all-or-nothing: the valid first listener is not added either */
    assert_int_equal(sc_elb_create_listeners(f->elb, "web", ls, 2, T0, &f->err),
                     SC_ERR_DUPLICATE_LISTENER);
    assert_int_equal(sc_elb_lb_find(f->elb, "web")->nlisteners, 1);
    /* and two conflicting listeners in one request */
    ls[1] = (struct sc_elb_listener){ "TCP", 443, "TCP", 9444, NULL };
    assert_int_equal(sc_elb_create_listeners(f->elb, "web", ls, 2, T0, &f->err),
                     SC_ERR_DUPLICATE_LISTENER);
}

static void test_elb_delete_listeners_by_port(void **state)
{
    struct fx *f = *state;
    struct sc_elb_listener tcp = { "TCP", 443, "TCP", 9443, NULL };
    int ports[] = { 80, 1234 };
    const struct sc_elb_lb *lb;

    mk_lb(f, "web");
    assert_int_equal(sc_elb_create_listeners(f->elb, "web", &tcp, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_delete_listeners(f->elb, "web", ports, 2, T0, &f->err), SC_OK);
    lb = sc_elb_lb_find(f->elb, "web");
    assert_int_equal(lb->nlisteners, 1);
    assert_int_equal(lb->listeners[0].load_balancer_port, 443);
    assert_int_equal(sc_elb_delete_listeners(f->elb, "nope", ports, 1, T0, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
}

static void test_elb_health_check_ranges(void **state)
{
    struct fx *f = *state;
    static const struct sc_elb_health_check bad[] = {
        { "TCP:80", 4, 3, 2, 2 },   { "TCP:80", 301, 3, 2, 2 },   { "TCP:80", 30, 1, 2, 2 },
        { "TCP:80", 90, 61, 2, 2 }, { "TCP:80", 30, 5, 1, 2 },    { "TCP:80", 30, 5, 11, 2 },
        { "TCP:80", 30, 5, 2, 1 },  { "TCP:80", 30, 5, 2, 11 },   { "TCP:80", 5, 5, 2, 2 },
        { "TCP:0", 30, 5, 2, 2 },   { "TCP:65536", 30, 5, 2, 2 }, { "HTTP:80", 30, 5, 2, 2 },
        { "UDP:80", 30, 5, 2, 2 },  { "TCP:80/x", 30, 5, 2, 2 },  { "tcp:80", 30, 5, 2, 2 },
        { "", 30, 5, 2, 2 },        { NULL, 30, 5, 2, 2 },
    };
    static const struct sc_elb_health_check seed = { "TCP:9763", 5, 3, 2, 2 };
    const struct sc_elb_health_check *out;

    mk_lb(f, "web");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(sc_elb_configure_health_check(f->elb, "web", &bad[i], T0, &out, &f->err),
                         SC_ERR_VALIDATION);
    assert_int_equal(sc_elb_configure_health_check(f->elb, "web", &bad[8], T0, &out, &f->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(f->err.message, "Health check interval must be greater than the timeout.");
    assert_int_equal(sc_elb_configure_health_check(f->elb, "web", &seed, T0, &out, &f->err), SC_OK);
    assert_string_equal(out->target, "TCP:9763");
    assert_int_equal(out->interval_s, 5);
    assert_int_equal(sc_elb_lb_find(f->elb, "web")->hc_target.port, 9763);
    assert_int_equal(sc_elb_configure_health_check(f->elb, "nope", &seed, T0, &out, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
}

static void test_elb_health_check_target_parse(void **state)
{
    struct sc_elb_hc_target t;

    (void)state;
    assert_int_equal(sc_elb_hc_target_parse("HTTP:8080/index.html", &t), 0);
    assert_int_equal(t.protocol, SC_ELB_HC_HTTP);
    assert_int_equal(t.port, 8080);
    assert_string_equal(t.path, "/index.html");
    assert_int_equal(sc_elb_hc_target_parse("HTTPS:443/", &t), 0);
    assert_int_equal(t.protocol, SC_ELB_HC_HTTPS);
    assert_int_equal(sc_elb_hc_target_parse("SSL:443", &t), 0);
    assert_null(t.path);
    assert_int_equal(sc_elb_hc_target_parse("HTTP:80", &t), -1);
    assert_int_equal(sc_elb_hc_target_parse("HTTP:/x", &t), -1);
    assert_int_equal(sc_elb_hc_target_parse("TCP:123456", &t), -1);
    assert_int_equal(sc_elb_hc_target_parse(NULL, &t), -1);
}

static void test_elb_attributes_modify_and_ranges(void **state)
{
    struct fx *f = *state;
    struct sc_elb_attributes_req req = { 0 };
    const struct sc_elb_attributes *a;

    mk_lb(f, "web");
    req.has_connection_draining_timeout = 1;
    req.connection_draining_timeout_s = 0;
    assert_int_equal(sc_elb_modify_attributes(f->elb, "web", &req, T0, &a, &f->err),
                     SC_ERR_VALIDATION);
    req.connection_draining_timeout_s = 3601;
    assert_int_equal(sc_elb_modify_attributes(f->elb, "web", &req, T0, &a, &f->err),
                     SC_ERR_VALIDATION);
    memset(&req, 0, sizeof(req));
    req.has_idle_timeout = 1;
    req.idle_timeout_s = 0;
    assert_int_equal(sc_elb_modify_attributes(f->elb, "web", &req, T0, &a, &f->err),
                     SC_ERR_VALIDATION);
    memset(&req, 0, sizeof(req));
    req.has_access_log = 1;
    req.access_log_enabled = 1;
    assert_int_equal(sc_elb_modify_attributes(f->elb, "web", &req, T0, &a, &f->err),
                     SC_ERR_VALIDATION);
    req.access_log_s3_bucket_name = "logs";
    req.access_log_emit_interval = 7;
    assert_int_equal(sc_elb_modify_attributes(f->elb, "web", &req, T0, &a, &f->err),
                     SC_ERR_VALIDATION);
    req.access_log_emit_interval = 5;
    assert_int_equal(sc_elb_modify_attributes(f->elb, "web", &req, T0, &a, &f->err), SC_OK);
    assert_true(a->access_log_enabled);
    assert_string_equal(a->access_log_s3_bucket_name, "logs");
    assert_int_equal(a->access_log_emit_interval, 5);
    memset(&req, 0, sizeof(req));
    req.has_connection_draining = 1;
    req.connection_draining_enabled = 1;
    req.has_connection_draining_timeout = 1;
    req.connection_draining_timeout_s = 3600;
    req.has_idle_timeout = 1;
    req.idle_timeout_s = 1;
    req.has_cross_zone = 1;
    req.cross_zone_enabled = 1;
    assert_int_equal(sc_elb_modify_attributes(f->elb, "web", &req, T0, &a, &f->err), SC_OK);
    assert_int_equal(sc_elb_describe_attributes(f->elb, "web", &a, &f->err), SC_OK);
    assert_true(a->connection_draining_enabled);
    assert_int_equal(a->connection_draining_timeout_s, 3600);
    assert_int_equal(a->idle_timeout_s, 1);
    assert_true(a->cross_zone_enabled);
    assert_true(a->access_log_enabled); /* untouched */
    assert_int_equal(sc_elb_describe_attributes(f->elb, "nope", &a, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
}

static void test_elb_register_unknown_instance_is_invalid_instance(void **state)
{
    struct fx *f = *state;
    const char *ids[2];
    const char *gone;
    struct sc_error e2 = { 0 };

    mk_lb(f, "web");
    ids[0] = mk_inst(f, "us-east-1a", 1);
    ids[1] = "i-0000000000000000a";
    assert_int_equal(sc_elb_register_instances(f->elb, "web", ids, 2, T0, &f->err),
                     SC_ERR_INVALID_INSTANCE);
    assert_string_equal(f->err.message, "Could not find EC2 instance i-0000000000000000a.");
    assert_int_equal(sc_elb_lb_find(f->elb, "web")->ninstances, 0); /* nothing registered */
    gone = mk_inst(f, "us-east-1a", 1);
    sc_ec2_instance_lost(f->ec2, gone, T0);
    assert_int_equal(sc_elb_register_instances(f->elb, "web", &gone, 1, T0, &e2),
                     SC_ERR_INVALID_INSTANCE);
    assert_int_equal(sc_elb_register_instances(f->elb, "web", ids, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_register_instances(f->elb, "web", ids, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_lb_find(f->elb, "web")->ninstances, 1);
    assert_string_equal(sc_elb_lb_find(f->elb, "web")->instances[0], ids[0]);
}

static void test_elb_new_registration_in_progress_then_in_service_on_first_pass(void **state)
{
    struct fx *f = *state;
    const char *id;

    mk_lb(f, "web");
    id = mk_inst(f, "us-east-1a", 1);
    sc_elb_register_instances(f->elb, "web", &id, 1, T0, &f->err);
    expect_row(f, "web", id, "OutOfService", "ELB", "Instance registration is still in progress.");
    assert_false(sc_elb_routable(f->elb, "web", id));
    /* a failure below UnhealthyThreshold keeps it in progress */
    assert_int_equal(sc_elb_health_result(f->elb, "web", id, 0, T0 + 30000), 0);
    expect_row(f, "web", id, "OutOfService", "ELB", "Instance registration is still in progress.");
    assert_int_equal(sc_elb_health_result(f->elb, "web", id, 1, T0 + 60000), 1);
    expect_row(f, "web", id, "InService", "N/A", "N/A");
    assert_true(sc_elb_instance_in_service(f->elb, "web", id));
    assert_true(sc_elb_routable(f->elb, "web", id));
    assert_int_equal(sc_elb_health_result(f->elb, "nope", id, 1, T0), -1);
    assert_int_equal(sc_elb_health_result(f->elb, "web", "i-0000000000000000a", 1, T0), -1);
}

static void test_elb_unhealthy_threshold_then_healthy_threshold(void **state)
{
    struct fx *f = *state;
    struct sc_elb_health_check hc = { "HTTP:8080/health", 10, 5, 3, 4 };
    const char *id;

    mk_lb(f, "web");
    sc_elb_configure_health_check(f->elb, "web", &hc, T0, NULL, &f->err);
    id = mk_inst(f, "us-east-1b", 1);
    sc_elb_register_instances(f->elb, "web", &id, 1, T0, &f->err);
    sc_elb_health_result(f->elb, "web", id, 1, T0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(sc_elb_health_result(f->elb, "web", id, 0, T0), 1);
    assert_int_equal(sc_elb_health_result(f->elb, "web", id, 0, T0), 0);
    expect_row(f, "web", id, "OutOfService", "Instance",
               "Instance has failed at least the UnhealthyThreshold number of health checks "
               "consecutively.");
    for (int i = 0; i < 3; i++) {
        assert_int_equal(sc_elb_health_result(f->elb, "web", id, 1, T0), 0);
        expect_row(f, "web", id, "OutOfService", "Instance",
                   "Instance has not passed the configured HealthyThreshold number of health "
                   "checks consecutively.");
    }
    /* a failure in between starts the count again */
    sc_elb_health_result(f->elb, "web", id, 0, T0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(sc_elb_health_result(f->elb, "web", id, 1, T0), 0);
    assert_int_equal(sc_elb_health_result(f->elb, "web", id, 1, T0), 1);
    expect_row(f, "web", id, "InService", "N/A", "N/A");
}

static void test_elb_new_registration_failing_threshold_needs_healthy_threshold(void **state)
{
    struct fx *f = *state;
    const char *id;

    mk_lb(f, "web");
    id = mk_inst(f, "us-east-1a", 1);
    sc_elb_register_instances(f->elb, "web", &id, 1, T0, &f->err);
    sc_elb_health_result(f->elb, "web", id, 0, T0);
    sc_elb_health_result(f->elb, "web", id, 0, T0);
    expect_row(f, "web", id, "OutOfService", "Instance",
               "Instance has failed at least the UnhealthyThreshold number of health checks "
               "consecutively.");
    assert_int_equal(sc_elb_health_result(f->elb, "web", id, 1, T0), 0);
}

static void test_elb_describe_instance_health_ec2_states(void **state)
{
    struct fx *f = *state;
    const char *pending, *stopped, *term;
    struct sc_elb_instance_health rows[8];
    int n;

    mk_lb(f, "web");
    pending = mk_inst(f, "us-east-1a", 0);
    stopped = mk_inst(f, "us-east-1a", 1);
    term = mk_inst(f, "us-east-1a", 1);
    sc_elb_register_instances(f->elb, "web", &pending, 1, T0, &f->err);
    sc_elb_register_instances(f->elb, "web", &stopped, 1, T0, &f->err);
    sc_elb_register_instances(f->elb, "web", &term, 1, T0, &f->err);
    sc_elb_health_result(f->elb, "web", stopped, 1, T0);
    sc_ec2_stop_instances(f->ec2, &stopped, 1, T0, NULL, &f->err);
    sc_ec2_instance_stopped(f->ec2, stopped, T0);
    sc_ec2_instance_lost(f->ec2, term, T0);
    expect_row(f, "web", pending, "OutOfService", "Instance", "Instance is in pending state.");
    expect_row(f, "web", stopped, "OutOfService", "Instance", "Instance is in stopped state.");
    expect_row(f, "web", term, "OutOfService", "Instance", "Instance is in terminated state.");
    assert_int_equal(sc_elb_describe_instance_health(f->elb, "web", NULL, 0, rows, &n, &f->err),
                     SC_OK);
    assert_int_equal(n, 3);
    assert_string_equal(rows[0].instance_id, pending);
    assert_false(sc_elb_routable(f->elb, "web", stopped));
    /* health starts over when it runs again */
    sc_elb_step(f->elb, T0 + 1);
    sc_ec2_start_instances(f->ec2, &stopped, 1, T0 + 2, NULL, &f->err);
    sc_ec2_instance_running(f->ec2, stopped, T0 + 3);
    expect_row(f, "web", stopped, "OutOfService", "ELB",
               "Instance registration is still in progress.");
}

static void test_elb_describe_instance_health_named_not_registered(void **state)
{
    struct fx *f = *state;
    const char *id, *unknown = "i-0000000000000000a";
    struct sc_elb_instance_health h;
    int n;

    mk_lb(f, "web");
    id = mk_inst(f, "us-east-1a", 1);
    expect_row(f, "web", id, "OutOfService", "N/A",
               "Instance is not currently registered with the LoadBalancer.");
    assert_int_equal(sc_elb_describe_instance_health(f->elb, "web", &unknown, 1, &h, &n, &f->err),
                     SC_ERR_INVALID_INSTANCE);
    assert_string_equal(f->err.message, "Could not find EC2 instance i-0000000000000000a.");
    assert_int_equal(sc_elb_describe_instance_health(f->elb, "nope", &id, 1, &h, &n, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
}

static void test_elb_instance_in_zone_not_enabled(void **state)
{
    struct fx *f = *state;
    const char *id;

    mk_lb(f, "web"); /* zones a and b */
    id = mk_inst(f, "us-east-1c", 1);
    sc_elb_register_instances(f->elb, "web", &id, 1, T0, &f->err);
    sc_elb_health_result(f->elb, "web", id, 1, T0);
    expect_row(f, "web", id, "OutOfService", "ELB",
               "Instance is in the EC2 Availability Zone for which LoadBalancer is not "
               "configured to route traffic to.");
    assert_false(sc_elb_routable(f->elb, "web", id));
    assert_int_equal(
        sc_elb_enable_zones(f->elb, "web", (const char *[]){ "us-east-1c" }, 1, T0, &f->err),
        SC_OK);
    expect_row(f, "web", id, "InService", "N/A", "N/A");
    assert_int_equal(sc_elb_lb_find(f->elb, "web")->nzones, 3);
    assert_string_equal(sc_elb_lb_find(f->elb, "web")->availability_zones[2], "us-east-1c");
}

static void enable_draining(struct fx *f, const char *lb, int timeout_s)
{
    struct sc_elb_attributes_req req = { 0 };

    req.has_connection_draining = 1;
    req.connection_draining_enabled = 1;
    req.has_connection_draining_timeout = 1;
    req.connection_draining_timeout_s = timeout_s;
    assert_int_equal(sc_elb_modify_attributes(f->elb, lb, &req, T0, NULL, &f->err), SC_OK);
}

static const char *in_service(struct fx *f, const char *lb, const char *zone)
{
    const char *id = mk_inst(f, zone, 1);

    assert_int_equal(sc_elb_register_instances(f->elb, lb, &id, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_health_result(f->elb, lb, id, 1, T0), 1);
    return id;
}

static void test_elb_draining_keeps_instance_in_service_until_done(void **state)
{
    struct fx *f = *state;
    const char *id;

    mk_lb(f, "web");
    enable_draining(f, "web", 120);
    id = in_service(f, "web", "us-east-1a");
    assert_int_equal(sc_elb_deregister_instances(f->elb, "web", &id, 1, T0 + 1000, &f->err), SC_OK);
    expect_row(f, "web", id, "InService", "N/A", "Instance deregistration currently in progress.");
    assert_false(sc_elb_routable(f->elb, "web", id));
    assert_true(sc_elb_instance_draining(f->elb, "web", id));
    assert_true(sc_elb_draining_anywhere(f->elb, id));
    assert_int_equal(sc_elb_lb_find(f->elb, "web")->ninstances, 0);
    assert_int_equal(sc_elb_target_count(f->elb, "web"), 1);
    assert_int_equal(sc_elb_drain_done(f->elb, "web", id, T0 + 2000), 1);
    assert_false(sc_elb_draining_anywhere(f->elb, id));
    expect_row(f, "web", id, "OutOfService", "N/A",
               "Instance is not currently registered with the LoadBalancer.");
    assert_int_equal(sc_elb_drain_done(f->elb, "web", id, T0 + 2000), 0);
    assert_int_equal(sc_elb_drain_done(f->elb, "nope", id, T0 + 2000), -1);
}

static void test_elb_draining_timeout_expires_in_step(void **state)
{
    struct fx *f = *state;
    const char *id;

    mk_lb(f, "web");
    enable_draining(f, "web", 60);
    id = in_service(f, "web", "us-east-1a");
    assert_true(sc_elb_next_due_ms(f->elb, T0) == INT64_MAX);
    sc_elb_deregister_instances(f->elb, "web", &id, 1, T0, &f->err);
    assert_true(sc_elb_next_due_ms(f->elb, T0) == T0 + 60000);
    sc_elb_step(f->elb, T0 + 59999);
    assert_true(sc_elb_draining_anywhere(f->elb, id));
    sc_elb_step(f->elb, T0 + 60000);
    assert_false(sc_elb_draining_anywhere(f->elb, id));
    assert_false(sc_elb_registered_anywhere(f->elb, id));
}

/* sc_elb_next_due_ms follows every drain that starts (deregistration, zone disabled) and
 * every one that ends (re-registration, drain done, deadline in the step). */
static void test_elb_next_due_follows_every_drain_start_and_end(void **state)
{
    struct fx *f = *state;
    const char *a, *b, *zone_b = "us-east-1b";

    mk_lb(f, "web");
    enable_draining(f, "web", 60);
    a = in_service(f, "web", "us-east-1a");
    b = in_service(f, "web", "us-east-1b");
    assert_true(sc_elb_next_due_ms(f->elb, T0) == INT64_MAX);
    /* deregistered, then registered again: the drain is cancelled */
    assert_int_equal(sc_elb_deregister_instances(f->elb, "web", &a, 1, T0, &f->err), SC_OK);
    assert_true(sc_elb_next_due_ms(f->elb, T0) == T0 + 60000);
    assert_int_equal(sc_elb_register_instances(f->elb, "web", &a, 1, T0 + 1000, &f->err), SC_OK);
    assert_true(sc_elb_next_due_ms(f->elb, T0 + 1000) == INT64_MAX);
    /* deregistered, then the caller says the drain is done */
    assert_int_equal(sc_elb_deregister_instances(f->elb, "web", &a, 1, T0 + 2000, &f->err), SC_OK);
    assert_true(sc_elb_next_due_ms(f->elb, T0 + 2000) == T0 + 62000);
    assert_int_equal(sc_elb_drain_done(f->elb, "web", a, T0 + 3000), 1);
    assert_true(sc_elb_next_due_ms(f->elb, T0 + 3000) == INT64_MAX);
    /* its zone disabled: drains, stays registered; the deadline passes in the step */
    assert_int_equal(sc_elb_disable_zones(f->elb, "web", &zone_b, 1, T0 + 4000, &f->err), SC_OK);
    assert_true(sc_elb_next_due_ms(f->elb, T0 + 4000) == T0 + 64000);
    sc_elb_step(f->elb, T0 + 63999);
    assert_true(sc_elb_next_due_ms(f->elb, T0 + 63999) == T0 + 64000);
    sc_elb_step(f->elb, T0 + 64000);
    assert_true(sc_elb_next_due_ms(f->elb, T0 + 64000) == INT64_MAX);
    assert_true(sc_elb_registered_anywhere(f->elb, b));
}

static void test_elb_deregister_without_draining_is_immediate(void **state)
{
    struct fx *f = *state;
    const char *id;

    mk_lb(f, "web");
    id = in_service(f, "web", "us-east-1a");
    assert_true(sc_elb_registered_anywhere(f->elb, id));
    sc_elb_deregister_instances(f->elb, "web", &id, 1, T0, &f->err);
    assert_false(sc_elb_registered_anywhere(f->elb, id));
    assert_false(sc_elb_draining_anywhere(f->elb, id));
    /* not registered: ignored; unknown to EC2: InvalidInstance */
    assert_int_equal(sc_elb_deregister_instances(f->elb, "web", &id, 1, T0, &f->err), SC_OK);
    id = "i-0000000000000000a";
    assert_int_equal(sc_elb_deregister_instances(f->elb, "web", &id, 1, T0, &f->err),
                     SC_ERR_INVALID_INSTANCE);
}

static void test_elb_draining_does_not_hold_unhealthy_instances(void **state)
{
    struct fx *f = *state;
    const char *sick, *id;

    mk_lb(f, "web");
    enable_draining(f, "web", 300);
    sick = mk_inst(f, "us-east-1a", 1);
    sc_elb_register_instances(f->elb, "web", &sick, 1, T0, &f->err);
    sc_elb_deregister_instances(f->elb, "web", &sick, 1, T0, &f->err);
    assert_false(sc_elb_registered_anywhere(f->elb, sick)); /* never InService: at once */
    id = in_service(f, "web", "us-east-1a");
    sc_elb_deregister_instances(f->elb, "web", &id, 1, T0, &f->err);
    assert_true(sc_elb_draining_anywhere(f->elb, id));
    sc_elb_health_result(f->elb, "web", id, 0, T0);
    sc_elb_health_result(f->elb, "web", id, 0, T0);
    assert_false(sc_elb_draining_anywhere(f->elb, id));
}

static void test_elb_reregister_while_draining_cancels_drain(void **state)
{
    struct fx *f = *state;
    const char *id;

    mk_lb(f, "web");
    enable_draining(f, "web", 300);
    id = in_service(f, "web", "us-east-1a");
    sc_elb_deregister_instances(f->elb, "web", &id, 1, T0, &f->err);
    sc_elb_register_instances(f->elb, "web", &id, 1, T0, &f->err);
    assert_false(sc_elb_draining_anywhere(f->elb, id));
    expect_row(f, "web", id, "InService", "N/A", "N/A");
    assert_int_equal(sc_elb_lb_find(f->elb, "web")->ninstances, 1);
}

static void test_elb_disable_zone_in_progress_while_draining(void **state)
{
    struct fx *f = *state;
    const char *a, *b;
    const char *za[] = { "us-east-1a" };
    const char *both[] = { "us-east-1a", "us-east-1b" };

    mk_lb(f, "web");
    enable_draining(f, "web", 30);
    a = in_service(f, "web", "us-east-1a");
    b = in_service(f, "web", "us-east-1b");
    assert_int_equal(sc_elb_disable_zones(f->elb, "web", both, 2, T0, &f->err), SC_ERR_VALIDATION);
    assert_int_equal(sc_elb_disable_zones(f->elb, "web", za, 1, T0, &f->err), SC_OK);
    expect_row(f, "web", a, "OutOfService", "ELB",
               "Disable Availability Zone is currently in progress.");
    assert_false(sc_elb_routable(f->elb, "web", a));
    assert_false(sc_elb_draining_anywhere(f->elb, a)); /* still registered */
    expect_row(f, "web", b, "InService", "N/A", "N/A");
    sc_elb_step(f->elb, T0 + 30000);
    expect_row(f, "web", a, "OutOfService", "ELB",
               "Instance is in the EC2 Availability Zone for which LoadBalancer is not "
               "configured to route traffic to.");
    assert_true(sc_elb_registered_anywhere(f->elb, a));
}

static void test_elb_route_set_honours_cross_zone(void **state)
{
    struct fx *f = *state;
    struct sc_elb_attributes_req req = { 0 };
    const char *ids[8];
    const char *a, *b;

    mk_lb(f, "web");
    a = in_service(f, "web", "us-east-1a");
    b = in_service(f, "web", "us-east-1b");
    mk_inst(f, "us-east-1a", 1); /* not registered */
    assert_int_equal(sc_elb_route_set(f->elb, "web", "us-east-1a", ids, 8), 1);
    assert_string_equal(ids[0], a);
    assert_int_equal(sc_elb_route_set(f->elb, "web", "us-east-1b", ids, 8), 1);
    assert_string_equal(ids[0], b);
    assert_int_equal(sc_elb_route_set(f->elb, "web", NULL, ids, 8), 2);
    assert_int_equal(sc_elb_route_set(f->elb, "web", NULL, ids, 1), 2); /* count beyond cap */
    req.has_cross_zone = 1;
    req.cross_zone_enabled = 1;
    sc_elb_modify_attributes(f->elb, "web", &req, T0, NULL, &f->err);
    assert_int_equal(sc_elb_route_set(f->elb, "web", "us-east-1a", ids, 8), 2);
    assert_int_equal(sc_elb_route_set(f->elb, "nope", NULL, ids, 8), -1);
}

static void test_elb_targets_for_the_checker(void **state)
{
    struct fx *f = *state;
    struct sc_elb_target t;
    const char *id, *pending;

    mk_lb(f, "web");
    id = in_service(f, "web", "us-east-1b");
    pending = mk_inst(f, "us-east-1a", 0);
    sc_elb_register_instances(f->elb, "web", &pending, 1, T0 + 5, &f->err);
    assert_int_equal(sc_elb_target_count(f->elb, "web"), 2);
    assert_int_equal(sc_elb_target_at(f->elb, "web", 0, &t), 0);
    assert_string_equal(t.instance_id, id);
    assert_string_equal(t.availability_zone, "us-east-1b");
    assert_int_equal(t.state, SC_ELB_IN_SERVICE);
    assert_true(t.routable);
    assert_true(t.checked);
    assert_false(t.draining);
    assert_int_equal(sc_elb_target_at(f->elb, "web", 1, &t), 0);
    assert_false(t.checked); /* pending: nothing to check yet */
    assert_true(t.registered_ms == T0 + 5);
    assert_int_equal(sc_elb_target_at(f->elb, "web", 2, &t), -1);
    assert_int_equal(sc_elb_target_count(f->elb, "nope"), -1);
}

static void test_elb_step_drops_instances_ec2_no_longer_lists(void **state)
{
    struct fx *f = *state;
    const char *id;

    mk_lb(f, "web");
    id = in_service(f, "web", "us-east-1a");
    sc_ec2_instance_lost(f->ec2, id, T0);
    sc_elb_step(f->elb, T0);
    assert_true(sc_elb_registered_anywhere(f->elb, id));
    sc_ec2_step(f->ec2, T0 + 3600000);
    sc_elb_step(f->elb, T0 + 3600000);
    assert_false(sc_elb_registered_anywhere(f->elb, id));
    assert_int_equal(sc_elb_lb_find(f->elb, "web")->ninstances, 0);
}

static void test_elb_tags_add_remove_describe(void **state)
{
    struct fx *f = *state;
    const char *names[] = { "web" };
    struct sc_elb_tag t2[] = { { "env", "dev" }, { "team", "" } };
    struct sc_elb_tag dup[] = { { "a", "1" }, { "a", "2" } };
    struct sc_elb_tag reserved = { "aws:x", "1" };
    struct sc_elb_tag over = { "env", "prod" };
    struct sc_elb_tag many[11];
    char keys[11][16];
    const char *rm[] = { "team" };
    const struct sc_elb_lb *out[2];

    mk_lb(f, "web");
    assert_int_equal(sc_elb_add_tags(f->elb, names, 1, t2, 2, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_add_tags(f->elb, names, 1, &over, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_describe_tags(f->elb, names, 1, out, &f->err), SC_OK);
    assert_int_equal(out[0]->ntags, 2);
    assert_string_equal(out[0]->tags[0].value, "prod");
    assert_int_equal(sc_elb_add_tags(f->elb, names, 1, dup, 2, T0, &f->err),
                     SC_ERR_DUPLICATE_TAG_KEYS);
    assert_int_equal(sc_elb_add_tags(f->elb, names, 1, &reserved, 1, T0, &f->err),
                     SC_ERR_VALIDATION);
    for (int i = 0; i < 11; i++) {
        snprintf(keys[i], sizeof(keys[i]), "k%d", i);
        many[i] = (struct sc_elb_tag){ keys[i], "v" };
    }
    assert_int_equal(sc_elb_add_tags(f->elb, names, 1, many, 9, T0, &f->err), SC_ERR_TOO_MANY_TAGS);
    assert_int_equal(sc_elb_add_tags(f->elb, names, 1, many, 8, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_remove_tags(f->elb, names, 1, rm, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_lb_find(f->elb, "web")->ntags, 9);
    names[0] = "nope";
    assert_int_equal(sc_elb_describe_tags(f->elb, names, 1, out, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
    assert_int_equal(sc_elb_add_tags(f->elb, names, 1, t2, 1, T0, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
}

static void test_elb_create_with_too_many_tags(void **state)
{
    struct fx *f = *state;
    struct sc_elb_create_req req = { 0 };
    struct sc_elb_tag many[11];
    char keys[11][16];

    for (int i = 0; i < 11; i++) {
        snprintf(keys[i], sizeof(keys[i]), "k%d", i);
        many[i] = (struct sc_elb_tag){ keys[i], "v" };
    }
    req.load_balancer_name = "tagged";
    req.listeners = &http80;
    req.nlisteners = 1;
    req.availability_zones = zones_ab;
    req.nzones = 1;
    req.tags = many;
    req.ntags = 11;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err),
                     SC_ERR_TOO_MANY_TAGS);
    req.ntags = 10;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err), SC_OK);
}

static void test_elb_seed_tutorial_listener_swap(void **state)
{
    struct fx *f = *state;
    struct sc_elb_create_req req = { 0 };
    const char *zone_c[] = { "us-east-1c" };
    struct sc_elb_listener first[] = { { "HTTP", 80, "HTTP", 9763, NULL },
                                       { "TCP", 443, "TCP", 9443, NULL } };
    struct sc_elb_listener second[] = { { "HTTP", 8280, "HTTP", 9763, NULL },
                                        { "TCP", 8243, "TCP", 9443, NULL } };
    int old_ports[] = { 80, 443 };
    struct sc_elb_health_check hc = { "TCP:9763", 5, 3, 2, 2 };
    const struct sc_elb_lb *lb;

    req.load_balancer_name = "autoscalelb";
    req.listeners = first;
    req.nlisteners = 2;
    req.availability_zones = zone_c;
    req.nzones = 1;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, &lb, &f->err), SC_OK);
    assert_int_equal(sc_elb_create_listeners(f->elb, "autoscalelb", second, 2, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_delete_listeners(f->elb, "autoscalelb", old_ports, 2, T0, &f->err),
                     SC_OK);
    assert_int_equal(sc_elb_configure_health_check(f->elb, "autoscalelb", &hc, T0, NULL, &f->err),
                     SC_OK);
    lb = sc_elb_lb_find(f->elb, "autoscalelb");
    assert_int_equal(lb->nlisteners, 2);
    assert_int_equal(lb->listeners[0].load_balancer_port, 8280);
    assert_int_equal(lb->listeners[1].load_balancer_port, 8243);
    assert_int_equal(lb->health_check.healthy_threshold, 2);
}

static void test_elb_not_found_everywhere(void **state)
{
    struct fx *f = *state;
    const char *id = "i-0000000000000000a";
    struct sc_elb_listener l = http80;
    const char *z[] = { "us-east-1a" };

    assert_int_equal(sc_elb_create_listeners(f->elb, "x", &l, 1, T0, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
    assert_int_equal(sc_elb_register_instances(f->elb, "x", &id, 1, T0, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
    assert_int_equal(sc_elb_deregister_instances(f->elb, "x", &id, 1, T0, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
    assert_int_equal(sc_elb_enable_zones(f->elb, "x", z, 1, T0, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
    assert_int_equal(sc_elb_disable_zones(f->elb, "x", z, 1, T0, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
    assert_string_equal(f->err.message, "There is no ACTIVE Load Balancer named 'x'");
    assert_false(sc_elb_instance_in_service(f->elb, "x", id));
    assert_false(sc_elb_routable(f->elb, "x", id));
}

static void test_elb_enable_unknown_zone(void **state)
{
    struct fx *f = *state;
    const char *z[] = { "us-east-1q" };

    mk_lb(f, "web");
    assert_int_equal(sc_elb_enable_zones(f->elb, "web", z, 1, T0, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_int_equal(sc_elb_lb_find(f->elb, "web")->nzones, 2);
}

static void test_elb_instance_membership_for_the_asg(void **state)
{
    struct fx *f = *state;
    const char *id;

    mk_lb(f, "web");
    enable_draining(f, "web", 60);
    id = mk_inst(f, "us-east-1a", 1);
    assert_int_equal(sc_elb_instance_membership(f->elb, "web", id), SC_ELB_MEMBER_NONE);
    assert_false(sc_elb_instance_registered(f->elb, "web", id));
    sc_elb_register_instances(f->elb, "web", &id, 1, T0, &f->err);
    assert_true(sc_elb_instance_registered(f->elb, "web", id));
    assert_int_equal(sc_elb_instance_membership(f->elb, "web", id), SC_ELB_MEMBER_REGISTERING);
    sc_elb_health_result(f->elb, "web", id, 1, T0);
    assert_int_equal(sc_elb_instance_membership(f->elb, "web", id), SC_ELB_MEMBER_IN_SERVICE);
    sc_elb_health_result(f->elb, "web", id, 0, T0);
    sc_elb_health_result(f->elb, "web", id, 0, T0);
    assert_int_equal(sc_elb_instance_membership(f->elb, "web", id), SC_ELB_MEMBER_OUT_OF_SERVICE);
    sc_elb_health_result(f->elb, "web", id, 1, T0); /* recovering: still out */
    assert_int_equal(sc_elb_instance_membership(f->elb, "web", id), SC_ELB_MEMBER_OUT_OF_SERVICE);
    for (int i = 0; i < 9; i++)
        sc_elb_health_result(f->elb, "web", id, 1, T0);
    assert_int_equal(sc_elb_instance_membership(f->elb, "web", id), SC_ELB_MEMBER_IN_SERVICE);
    sc_elb_deregister_instances(f->elb, "web", &id, 1, T0, &f->err);
    assert_int_equal(sc_elb_instance_membership(f->elb, "web", id), SC_ELB_MEMBER_DRAINING);
    assert_int_equal(sc_elb_instance_membership(f->elb, "nope", id), SC_ELB_MEMBER_NONE);
}

static void test_elb_host_counts_per_zone(void **state)
{
    struct fx *f = *state;
    const char *sick;
    int h = -1, u = -1;

    mk_lb(f, "web");
    in_service(f, "web", "us-east-1a");
    in_service(f, "web", "us-east-1b");
    sick = mk_inst(f, "us-east-1b", 1);
    sc_elb_register_instances(f->elb, "web", &sick, 1, T0, &f->err);
    assert_int_equal(sc_elb_host_counts(f->elb, "web", NULL, &h, &u), 0);
    assert_int_equal(h, 2);
    assert_int_equal(u, 1);
    assert_int_equal(sc_elb_host_counts(f->elb, "web", "us-east-1b", &h, &u), 0);
    assert_int_equal(h, 1);
    assert_int_equal(u, 1);
    assert_int_equal(sc_elb_host_counts(f->elb, "web", "us-east-1c", &h, &u), 0);
    assert_int_equal(h + u, 0);
    assert_int_equal(sc_elb_host_counts(f->elb, "nope", NULL, &h, &u), -1);
}

static void test_elb_register_instance_of_another_vpc(void **state)
{
    struct fx *f = *state;
    const struct sc_ec2_vpc *v;
    const struct sc_ec2_subnet *s;
    struct sc_ec2_run_req req = { 0 };
    const struct sc_ec2_reservation *r;
    const char *id;

    mk_lb(f, "web");
    sc_ec2_create_vpc(f->ec2, "10.0.0.0/16", NULL, 0, T0, &v, &f->err);
    sc_ec2_create_subnet(f->ec2, v->vpc_id, "10.0.0.0/24", "us-east-1a", NULL, 0, T0, &s, &f->err);
    req.image_id = "ami-12c6146b";
    req.min_count = req.max_count = 1;
    req.subnet_id = s->subnet_id;
    assert_int_equal(sc_ec2_run_instances(f->ec2, &req, T0, &r, &f->err), SC_OK);
    id = r->instances[0]->instance_id;
    assert_int_equal(sc_elb_register_instances(f->elb, "web", &id, 1, T0, &f->err),
                     SC_ERR_INVALID_INSTANCE);
    assert_non_null(strstr(f->err.message, "is not in the same VPC as ELB."));
}

/* The errors several calls share keep AWS's codes and words on every path that gives them. */
static void test_elb_shared_errors_keep_their_words(void **state)
{
    struct fx *f = *state;
    struct sc_elb_create_req req = { 0 };
    struct sc_elb_health_check hc = { 0 };
    const char *web[] = { "web" };
    struct sc_elb_tag many[11];
    char keys[11][16];
    static const struct {
        const char *member;
        int call;
    } nulls[] = { { "loadBalancerName", 0 },  { "listeners", 1 },
                  { "listeners", 2 },         { "healthCheck.target", 3 },
                  { "availabilityZones", 4 }, { "availabilityZones", 5 },
                  { "loadBalancerNames", 6 }, { "tags", 7 } };

    for (int i = 0; i < 11; i++) {
        snprintf(keys[i], sizeof(keys[i]), "k%d", i);
        many[i] = (struct sc_elb_tag){ keys[i], "v" };
    }
    assert_int_equal(mk_lb(f, "web"), SC_OK);
    for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++) {
        enum sc_status st = SC_OK;
        char msg[256];

        req = (struct sc_elb_create_req){ 0 };
        req.load_balancer_name = nulls[i].call == 0 ? NULL : "other";
        switch (nulls[i].call) {
        case 0:
        case 1:
            st = sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err);
            break;
        case 2:
            st = sc_elb_create_listeners(f->elb, "web", NULL, 0, T0, &f->err);
            break;
        case 3:
            st = sc_elb_configure_health_check(f->elb, "web", &hc, T0, NULL, &f->err);
            break;
        case 4:
            st = sc_elb_enable_zones(f->elb, "web", NULL, 0, T0, &f->err);
            break;
        case 5:
            st = sc_elb_disable_zones(f->elb, "web", NULL, 0, T0, &f->err);
            break;
        case 6:
            st = sc_elb_add_tags(f->elb, NULL, 0, many, 1, T0, &f->err);
            break;
        case 7:
            st = sc_elb_add_tags(f->elb, web, 1, NULL, 0, T0, &f->err);
            break;
        }
        assert_int_equal(st, SC_ERR_VALIDATION);
        snprintf(msg, sizeof(msg),
                 "1 validation error detected: Value null at '%s' failed to satisfy constraint: "
                 "Member must not be null",
                 nulls[i].member);
        assert_string_equal(f->err.message, msg);
    }
    /* the tag limit, at create and when adding */
    req = (struct sc_elb_create_req){ 0 };
    req.load_balancer_name = "tagged";
    req.listeners = &http80;
    req.nlisteners = 1;
    req.availability_zones = zones_ab;
    req.nzones = 1;
    req.tags = many;
    req.ntags = 11;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err),
                     SC_ERR_TOO_MANY_TAGS);
    assert_string_equal(f->err.message, "Tag count exceeds limit of 10 tags per load balancer.");
    memset(&f->err, 0, sizeof(f->err));
    assert_int_equal(sc_elb_add_tags(f->elb, web, 1, many, 11, T0, &f->err), SC_ERR_TOO_MANY_TAGS);
    assert_string_equal(f->err.message, "Tag count exceeds limit of 10 tags per load balancer.");
}

/* --- security groups and network interfaces (docs/elb-classic.md 1-2) ------------------------ */

static const struct sc_ec2_network_interface *eni_of(struct fx *f, const char *desc, int k)
{
    for (int i = 0, seen = 0; i < sc_ec2_network_interface_count(f->ec2); i++) {
        const struct sc_ec2_network_interface *e = sc_ec2_network_interface_at(f->ec2, i);

        if (strcmp(e->description, desc) == 0 && seen++ == k)
            return e;
    }
    return NULL;
}

static int enis_of(struct fx *f, const char *desc)
{
    int n = 0;

    while (eni_of(f, desc, n))
        n++;
    return n;
}

static void test_elb_security_group_default_vpc_gets_default_elb_group(void **state)
{
    struct fx *f = *state;
    const struct sc_elb_lb *lb, *lb2;
    const struct sc_ec2_security_group *g;
    int ngroups = sc_ec2_security_group_count(f->ec2);

    assert_int_equal(mk_lb(f, "web"), SC_OK);
    lb = sc_elb_lb_find(f->elb, "web");
    g = sc_ec2_security_group_find(f->ec2, lb->security_groups[0]);
    assert_non_null(g);
    assert_int_equal(sc_ec2_security_group_count(f->ec2), ngroups + 1);
    /* default_elb_ + a UUID (8-4-4-4-12) */
    assert_int_equal(strlen(g->group_name), 12 + 36);
    assert_int_equal(strncmp(g->group_name, "default_elb_", 12), 0);
    assert_int_equal(g->group_name[12 + 8], '-');
    assert_string_equal(g->description,
                        "ELB created security group used when no security group is specified "
                        "during ELB creation - modifications could impact traffic to future ELBs");
    assert_string_equal(g->vpc_id, sc_ec2_default_vpc(f->ec2)->vpc_id);
    /* ingress on the listener's port from anywhere, the all-traffic egress */
    assert_int_equal(g->ningress, 1);
    assert_string_equal(g->ingress[0].ip_protocol, "tcp");
    assert_int_equal(g->ingress[0].from_port, 80);
    assert_string_equal(g->ingress[0].peer, "0.0.0.0/0");
    assert_int_equal(g->negress, 1);
    assert_string_equal(g->egress[0].ip_protocol, "-1");
    /* SourceSecurityGroup: the account and the group's name */
    assert_string_equal(lb->source_security_group_owner_alias, "123456789012");
    assert_string_equal(lb->source_security_group_name, g->group_name);
    /* one per account: the next load balancer reuses it; it outlives them */
    assert_int_equal(mk_lb(f, "api"), SC_OK);
    lb2 = sc_elb_lb_find(f->elb, "api");
    lb = sc_elb_lb_find(f->elb, "web");
    assert_string_equal(lb2->security_groups[0], lb->security_groups[0]);
    assert_int_equal(sc_ec2_security_group_count(f->ec2), ngroups + 1);
    assert_int_equal(sc_elb_delete_load_balancer(f->elb, "web", T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_delete_load_balancer(f->elb, "api", T0, &f->err), SC_OK);
    assert_int_equal(sc_ec2_security_group_count(f->ec2), ngroups + 1);
}

static void test_elb_security_group_given_must_exist_in_the_vpc(void **state)
{
    struct fx *f = *state;
    struct sc_elb_create_req req = { 0 };
    const struct sc_ec2_security_group *mine, *other;
    const struct sc_ec2_vpc *v;
    const char *ids[1];
    const struct sc_elb_lb *lb;

    assert_int_equal(
        sc_ec2_create_security_group(f->ec2, "my-elb-sg", "web", NULL, NULL, 0, T0, &mine, &f->err),
        SC_OK);
    ids[0] = mine->group_id;
    sc_ec2_create_vpc(f->ec2, "10.0.0.0/16", NULL, 0, T0, &v, &f->err);
    assert_int_equal(
        sc_ec2_create_security_group(f->ec2, "far", "x", v->vpc_id, NULL, 0, T0, &other, &f->err),
        SC_OK);
    req.load_balancer_name = "web";
    req.listeners = &http80;
    req.nlisteners = 1;
    req.availability_zones = zones_ab;
    req.nzones = 2;
    req.security_groups = (const char *const[]){ "sg-0123456789abcdef0" };
    req.nsecurity_groups = 1;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err),
                     SC_ERR_ELB_INVALID_SECURITY_GROUP);
    assert_string_equal(f->err.message,
                        "One or more of the specified security groups do not exist.");
    req.security_groups = (const char *const[]){ other->group_id };
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, NULL, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_non_null(strstr(f->err.message, "does not belong to VPC \""));
    assert_int_equal(sc_elb_lb_count(f->elb), 0);
    req.security_groups = ids;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, &lb, &f->err), SC_OK);
    assert_string_equal(lb->security_groups[0], ids[0]);
    assert_string_equal(lb->source_security_group_name, "my-elb-sg");
}

static void test_elb_security_group_other_vpc_gets_its_default_group(void **state)
{
    struct fx *f = *state;
    struct sc_elb_create_req req = { 0 };
    const struct sc_ec2_vpc *v;
    const struct sc_ec2_subnet *s;
    const struct sc_elb_lb *lb;
    const char *subnets[1];

    sc_ec2_create_vpc(f->ec2, "10.0.0.0/16", NULL, 0, T0, &v, &f->err);
    sc_ec2_create_subnet(f->ec2, v->vpc_id, "10.0.0.0/24", "us-east-1a", NULL, 0, T0, &s, &f->err);
    subnets[0] = s->subnet_id;
    req.load_balancer_name = "inner";
    req.listeners = &http80;
    req.nlisteners = 1;
    req.subnets = subnets;
    req.nsubnets = 1;
    assert_int_equal(sc_elb_create_load_balancer(f->elb, &req, T0, &lb, &f->err), SC_OK);
    assert_string_equal(lb->security_groups[0],
                        sc_ec2_security_group_by_name(f->ec2, lb->vpc_id, "default")->group_id);
    assert_string_equal(lb->source_security_group_name, "default");
}

static void test_elb_network_interfaces_follow_zones_and_hold_groups(void **state)
{
    struct fx *f = *state;
    const struct sc_ec2_network_interface *e;
    const char *one[] = { "us-east-1b" };
    char sg[SC_EC2_ID_LEN];

    assert_int_equal(mk_lb(f, "web"), SC_OK);
    assert_int_equal(enis_of(f, "ELB web"), 2);
    e = eni_of(f, "ELB web", 0);
    assert_string_equal(e->requester_id, "amazon-elb");
    assert_string_equal(e->instance_owner_id, "amazon-elb");
    assert_string_equal(e->status, "in-use");
    assert_string_equal(e->subnet_id, sc_elb_lb_find(f->elb, "web")->subnets[0]);
    assert_int_equal(e->ngroups, 1);
    strcpy(sg, e->group_ids[0]);
    /* a group a load balancer's interface uses cannot go */
    assert_int_equal(sc_ec2_delete_security_group(f->ec2, sg, NULL, T0, NULL, &f->err),
                     SC_ERR_DEPENDENCY_VIOLATION);
    assert_string_equal(sc_status_code(f->err.status), "DependencyViolation");
    assert_int_equal(sc_elb_disable_zones(f->elb, "web", one, 1, T0, &f->err), SC_OK);
    assert_int_equal(enis_of(f, "ELB web"), 1);
    assert_int_equal(sc_elb_enable_zones(f->elb, "web", one, 1, T0, &f->err), SC_OK);
    assert_int_equal(enis_of(f, "ELB web"), 2);
    assert_int_equal(sc_elb_delete_load_balancer(f->elb, "web", T0, &f->err), SC_OK);
    assert_int_equal(enis_of(f, "ELB web"), 0);
    assert_int_equal(sc_ec2_delete_security_group(f->ec2, sg, NULL, T0, NULL, &f->err), SC_OK);
}

/* --- policies (docs/elb-classic.md 4) -----------------------------------------------------------
 */

static const char *attr_of(const struct sc_elb_policy *p, const char *name)
{
    for (int i = 0; i < p->nattrs; i++) {
        if (strcmp(p->attrs[i].name, name) == 0)
            return p->attrs[i].value;
    }
    return NULL;
}

static const struct sc_elb_policy *policy_of(struct fx *f, const char *lb, const char *name)
{
    const struct sc_elb_policy *out[1];
    int n;

    if (sc_elb_describe_policies(f->elb, lb, &name, 1, out, &n, &f->err) != SC_OK)
        return NULL;
    return out[0];
}

static void test_elb_policy_types_are_aws_data(void **state)
{
    struct fx *f = *state;
    const struct sc_elb_policy_type *out[8];
    const char *names[] = { "ProxyProtocolPolicyType", "NoSuchType" };
    int n;

    (void)f;
    assert_int_equal(sc_elb_policy_type_count(), 6);
    assert_int_equal(sc_elb_describe_policy_types(names, 1, out, &n, NULL), SC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(out[0]->attrs[0].name, "ProxyProtocol");
    assert_string_equal(out[0]->attrs[0].type, "Boolean");
    assert_string_equal(out[0]->attrs[0].cardinality, "ONE");
    assert_int_equal(sc_elb_describe_policy_types(names, 2, out, &n, &f->err),
                     SC_ERR_POLICY_TYPE_NOT_FOUND);
    assert_string_equal(sc_status_code(f->err.status), "PolicyTypeNotFound");
    assert_int_equal(sc_elb_describe_policy_types(NULL, 0, out, &n, NULL), SC_OK);
    assert_int_equal(n, 6);
    assert_string_equal(out[4]->name, "SSLNegotiationPolicyType");
    assert_string_equal(out[4]->attrs[0].name, "Reference-Security-Policy");
    assert_string_equal(
        sc_elb_policy_type_find("LBCookieStickinessPolicyType")->description,
        "Stickiness policy with session lifetimes controlled by the browser (user-agent) or a "
        "specified expiration period. This policy can be associated only with HTTP/HTTPS "
        "listeners.");
}

static void test_elb_policy_predefined_ssl_policies(void **state)
{
    struct fx *f = *state;
    const struct sc_elb_policy *out[8];
    const struct sc_elb_policy *p;
    int n;

    assert_int_equal(sc_elb_policy_count(f->elb, NULL), 6);
    assert_int_equal(sc_elb_describe_policies(f->elb, NULL, NULL, 0, out, &n, &f->err), SC_OK);
    assert_int_equal(n, 6);
    assert_string_equal(out[0]->policy_name, "ELBSecurityPolicy-2016-08");
    p = policy_of(f, NULL, "ELBSecurityPolicy-TLS-1-2-2017-01");
    assert_non_null(p);
    assert_string_equal(p->policy_type_name, "SSLNegotiationPolicyType");
    assert_string_equal(attr_of(p, "Protocol-TLSv1"), "false");
    assert_string_equal(attr_of(p, "Protocol-TLSv1.1"), "false");
    assert_string_equal(attr_of(p, "Protocol-TLSv1.2"), "true");
    assert_string_equal(attr_of(p, "ECDHE-RSA-AES128-SHA"), "false");
    assert_string_equal(attr_of(p, "AES256-GCM-SHA384"), "true");
    assert_string_equal(attr_of(p, "Server-Defined-Cipher-Order"), "true");
    p = policy_of(f, NULL, "ELBSecurityPolicy-2015-05");
    assert_string_equal(attr_of(p, "DES-CBC3-SHA"), "true");
    assert_string_equal(attr_of(p, "DHE-RSA-AES128-SHA"), "false");
    assert_string_equal(attr_of(p, "Protocol-SSLv3"), "false");
    assert_null(policy_of(f, NULL, "ELBSecurityPolicy-1999-01"));
    assert_string_equal(sc_status_code(f->err.status), "PolicyNotFound");
}

static void test_elb_policy_create_checks_type_name_and_attributes(void **state)
{
    struct fx *f = *state;
    struct sc_elb_policy_attr proxy = { "ProxyProtocol", "true" };
    struct sc_elb_policy_attr bad_bool = { "ProxyProtocol", "yes" };
    struct sc_elb_policy_attr stray = { "CookieName", "x" };
    struct sc_elb_policy_attr key_ref = { "PublicKeyPolicyName", "nope" };
    struct sc_elb_policy_attr ref = { "Reference-Security-Policy", "ELBSecurityPolicy-2015-03" };
    struct sc_elb_policy_attr bad_ref = { "Reference-Security-Policy", "ELBSecurityPolicy-x" };
    const struct sc_elb_policy *p;

    assert_int_equal(mk_lb(f, "web"), SC_OK);
    assert_int_equal(sc_elb_create_policy(f->elb, "nope", "p", "ProxyProtocolPolicyType", &proxy, 1,
                                          T0, &f->err),
                     SC_ERR_LOAD_BALANCER_NOT_FOUND);
    assert_int_equal(sc_elb_create_policy(f->elb, "web", "p", "NoSuchType", &proxy, 1, T0, &f->err),
                     SC_ERR_POLICY_TYPE_NOT_FOUND);
    assert_int_equal(sc_elb_create_policy(f->elb, "web", "p", "ProxyProtocolPolicyType", &bad_bool,
                                          1, T0, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_int_equal(
        sc_elb_create_policy(f->elb, "web", "p", "ProxyProtocolPolicyType", &stray, 1, T0, &f->err),
        SC_ERR_INVALID_CONFIGURATION_REQUEST);
    /* a ONE attribute left out */
    assert_int_equal(
        sc_elb_create_policy(f->elb, "web", "p", "ProxyProtocolPolicyType", NULL, 0, T0, &f->err),
        SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_int_equal(sc_elb_create_policy(f->elb, "web", "auth",
                                          "BackendServerAuthenticationPolicyType", &key_ref, 1, T0,
                                          &f->err),
                     SC_ERR_POLICY_NOT_FOUND);
    assert_int_equal(sc_elb_policy_count(f->elb, "web"), 0); /* nothing stored on errors */
    assert_int_equal(
        sc_elb_create_policy(f->elb, "web", "p", "ProxyProtocolPolicyType", &proxy, 1, T0, &f->err),
        SC_OK);
    assert_int_equal(
        sc_elb_create_policy(f->elb, "web", "p", "ProxyProtocolPolicyType", &proxy, 1, T0, &f->err),
        SC_ERR_DUPLICATE_POLICY_NAME);
    assert_string_equal(f->err.message, "Policy Name [p] already exists.");
    /* a reference copies the predefined policy's settings */
    assert_int_equal(sc_elb_create_policy(f->elb, "web", "ssl", "SSLNegotiationPolicyType",
                                          &bad_ref, 1, T0, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_int_equal(sc_elb_create_policy(f->elb, "web", "ssl", "SSLNegotiationPolicyType", &ref, 1,
                                          T0, &f->err),
                     SC_OK);
    p = policy_of(f, "web", "ssl");
    assert_string_equal(p->attrs[0].name, "Reference-Security-Policy");
    assert_string_equal(attr_of(p, "DHE-RSA-AES128-SHA"), "true");
    assert_null(policy_of(f, "web", "other"));
    assert_string_equal(f->err.message, "There is no policy with name other for load balancer web");
}

static void test_elb_policy_set_listener_and_backend_by_type(void **state)
{
    struct fx *f = *state;
    struct sc_elb_policy_attr proxy = { "ProxyProtocol", "true" };
    const char *pp[] = { "proxy" }, *lbc[] = { "sticky" }, *none[] = { "ghost" };
    const char *const *names;
    int port, n;

    assert_int_equal(mk_lb(f, "web"), SC_OK);
    assert_int_equal(sc_elb_create_policy(f->elb, "web", "proxy", "ProxyProtocolPolicyType", &proxy,
                                          1, T0, &f->err),
                     SC_OK);
    assert_int_equal(sc_elb_create_lb_cookie_policy(f->elb, "web", "sticky", 60, T0, &f->err),
                     SC_OK);
    assert_int_equal(sc_elb_set_listener_policies(f->elb, "web", 81, lbc, 1, T0, &f->err),
                     SC_ERR_LISTENER_NOT_FOUND);
    assert_int_equal(sc_elb_set_listener_policies(f->elb, "web", 80, none, 1, T0, &f->err),
                     SC_ERR_POLICY_NOT_FOUND);
    /* Proxy Protocol is a back-end policy */
    assert_int_equal(sc_elb_set_listener_policies(f->elb, "web", 80, pp, 1, T0, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_string_equal(f->err.message, "proxy cannot be enabled");
    assert_int_equal(sc_elb_set_backend_policies(f->elb, "web", 8080, lbc, 1, T0, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_int_equal(sc_elb_set_listener_policies(f->elb, "web", 80, lbc, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_listener_policy_names(f->elb, "web", 80, &names), 1);
    assert_string_equal(names[0], "sticky");
    assert_int_equal(sc_elb_set_backend_policies(f->elb, "web", 9000, pp, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_set_backend_policies(f->elb, "web", 8080, pp, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_backend_count(f->elb, "web"), 2);
    assert_int_equal(sc_elb_backend_at(f->elb, "web", 0, &port, &names, &n), 0);
    assert_int_equal(port, 8080); /* ascending */
    /* an empty list clears the set */
    assert_int_equal(sc_elb_set_backend_policies(f->elb, "web", 9000, NULL, 0, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_backend_count(f->elb, "web"), 1);
    assert_int_equal(sc_elb_set_listener_policies(f->elb, "web", 80, NULL, 0, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_listener_policy_names(f->elb, "web", 80, &names), 0);
}

static void test_elb_policy_delete_refuses_enabled_and_unknown(void **state)
{
    struct fx *f = *state;
    const char *app[] = { "app" };

    assert_int_equal(mk_lb(f, "web"), SC_OK);
    assert_int_equal(sc_elb_create_app_cookie_policy(f->elb, "web", "app", NULL, T0, &f->err),
                     SC_ERR_VALIDATION);
    assert_int_equal(
        sc_elb_create_app_cookie_policy(f->elb, "web", "app", "JSESSIONID", T0, &f->err), SC_OK);
    assert_string_equal(attr_of(policy_of(f, "web", "app"), "CookieName"), "JSESSIONID");
    assert_int_equal(sc_elb_set_listener_policies(f->elb, "web", 80, app, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_delete_policy(f->elb, "web", "app", T0, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_int_equal(sc_elb_delete_policy(f->elb, "web", "ghost", T0, &f->err),
                     SC_ERR_INVALID_CONFIGURATION_REQUEST);
    assert_int_equal(sc_elb_set_listener_policies(f->elb, "web", 80, NULL, 0, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_delete_policy(f->elb, "web", "app", T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_policy_count(f->elb, "web"), 0);
}

static void test_elb_policy_https_listener_gets_default_policy(void **state)
{
    struct fx *f = *state;
    const struct sc_elb_listener https = { "HTTPS", 443, "HTTP", 8080,
                                           "arn:aws:iam::123456789012:server-certificate/x" };
    const char *const *names;
    const int ports[] = { 443 };

    assert_int_equal(mk_lb(f, "web"), SC_OK);
    assert_int_equal(sc_elb_policy_count(f->elb, "web"), 0);
    assert_int_equal(sc_elb_create_listeners(f->elb, "web", &https, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_listener_policy_names(f->elb, "web", 443, &names), 1);
    assert_string_equal(names[0], "ELBSecurityPolicy-2016-08");
    assert_string_equal(policy_of(f, "web", "ELBSecurityPolicy-2016-08")->policy_type_name,
                        "SSLNegotiationPolicyType");
    assert_int_equal(sc_elb_listener_policy_names(f->elb, "web", 80, &names), 0);
    /* deleting the listener drops its set (the policy stays) */
    assert_int_equal(sc_elb_delete_listeners(f->elb, "web", ports, 1, T0, &f->err), SC_OK);
    assert_int_equal(sc_elb_listener_policy_names(f->elb, "web", 443, &names), 0);
    assert_int_equal(sc_elb_policy_count(f->elb, "web"), 1);
}

static void test_elb_policy_saved_and_old_state_loads(void **state)
{
    struct fx *f = *state;
    struct sc_elb_policy_attr proxy = { "ProxyProtocol", "true" };
    const char *pp[] = { "proxy" }, *lbc[] = { "sticky" };
    struct sc_elb_config lc = { 0 };
    struct sc_elb *copy;
    json_t *saved, *again, *lbs;
    const char *const *names;
    char *a, *b;
    size_t i;
    json_t *x;

    assert_int_equal(mk_lb(f, "web"), SC_OK);
    sc_elb_create_policy(f->elb, "web", "proxy", "ProxyProtocolPolicyType", &proxy, 1, T0, &f->err);
    sc_elb_create_lb_cookie_policy(f->elb, "web", "sticky", -1, T0, &f->err);
    sc_elb_set_listener_policies(f->elb, "web", 80, lbc, 1, T0, &f->err);
    assert_int_equal(sc_elb_set_backend_policies(f->elb, "web", 8080, pp, 1, T0, &f->err), SC_OK);
    saved = sc_elb_save(f->elb);
    assert_non_null(saved);
    /* the interfaces are made again on load, not kept twice */
    sc_elb_delete_load_balancer(f->elb, "web", T0, &f->err);
    lc.ec2 = f->ec2;
    copy = sc_elb_create(&lc);
    assert_int_equal(sc_elb_load(copy, saved, &f->err), SC_OK);
    assert_int_equal(enis_of(f, "ELB web"), 2);
    again = sc_elb_save(copy);
    a = json_dumps(saved, JSON_SORT_KEYS);
    b = json_dumps(again, JSON_SORT_KEYS);
    assert_string_equal(a, b);
    free(a);
    free(b);
    json_decref(again);
    assert_int_equal(sc_elb_policy_count(copy, "web"), 2);
    assert_int_equal(sc_elb_listener_policy_names(copy, "web", 80, &names), 1);
    assert_int_equal(sc_elb_backend_count(copy, "web"), 1);
    assert_string_equal(sc_elb_lb_find(copy, "web")->source_security_group_owner_alias,
                        "123456789012");
    sc_elb_destroy(copy);
    /* a file written before policies loads with none */
    lbs = json_object_get(saved, "load_balancers");
    json_array_foreach(lbs, i, x)
    {
        json_object_del(x, "policies");
        json_object_del(x, "listener_policies");
        json_object_del(x, "backend_policies");
    }
    copy = sc_elb_create(&lc);
    assert_int_equal(sc_elb_load(copy, saved, &f->err), SC_OK);
    assert_int_equal(sc_elb_policy_count(copy, "web"), 0);
    assert_int_equal(sc_elb_backend_count(copy, "web"), 0);
    sc_elb_destroy(copy);
    json_decref(saved);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

/* --- the health rule on plain counters (what `emulator proxy` keeps per backend) ------------- */

/* sc_elb_health_step is the rule sc_elb_health_result applies: the same results give the
 * same answers, whatever the sequence. */
static void test_elb_health_step_is_the_rule_of_health_result(void **state)
{
    struct fx *f = *state;
    struct sc_elb_health_check hc = { "TCP:8080", 10, 5, 3, 4 };
    static const int seq[] = { 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1 };
    struct sc_elb_health h = { 0 };
    const char *id;

    mk_lb(f, "web");
    sc_elb_configure_health_check(f->elb, "web", &hc, T0, NULL, &f->err);
    id = mk_inst(f, "us-east-1a", 1);
    sc_elb_register_instances(f->elb, "web", &id, 1, T0, &f->err);
    for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
        assert_int_equal(sc_elb_health_step(&h, seq[i], 4, 3),
                         sc_elb_health_result(f->elb, "web", id, seq[i], T0));
}

static void test_elb_health_step_new_registration_in_on_first_pass(void **state)
{
    struct sc_elb_health h = { 0 };

    (void)state;
    assert_int_equal(sc_elb_health_step(&h, 0, 5, 2), 0); /* below UnhealthyThreshold */
    assert_int_equal(sc_elb_health_step(&h, 1, 5, 2), 1);
    assert_true(h.ever_in_service);
}

static void test_elb_health_step_failing_first_needs_healthy_threshold(void **state)
{
    struct sc_elb_health h = { 0 };

    (void)state;
    sc_elb_health_step(&h, 0, 3, 2);
    sc_elb_health_step(&h, 0, 3, 2);
    assert_true(h.failed_out);
    assert_int_equal(sc_elb_health_step(&h, 1, 3, 2), 0);
    assert_int_equal(sc_elb_health_step(&h, 1, 3, 2), 0);
    assert_int_equal(sc_elb_health_step(&h, 1, 3, 2), 1);
}

static void test_elb_health_step_out_after_unhealthy_back_after_healthy(void **state)
{
    struct sc_elb_health h = { 0 };

    (void)state;
    sc_elb_health_step(&h, 1, 2, 3);
    assert_int_equal(sc_elb_health_step(&h, 0, 2, 3), 1);
    assert_int_equal(sc_elb_health_step(&h, 0, 2, 3), 1);
    assert_int_equal(sc_elb_health_step(&h, 0, 2, 3), 0);
    assert_int_equal(sc_elb_health_step(&h, 1, 2, 3), 0);
    assert_int_equal(sc_elb_health_step(&h, 0, 2, 3), 0); /* a failure starts the count again */
    assert_int_equal(sc_elb_health_step(&h, 1, 2, 3), 0);
    assert_int_equal(sc_elb_health_step(&h, 1, 2, 3), 1);
}

/* A report arriving after a drain's timeout, before the step ended it, sees it ended. */
static void test_elb_reports_after_drain_timeout_see_it_ended(void **state)
{
    struct fx *f = *state;
    const char *a, *b;

    mk_lb(f, "web");
    enable_draining(f, "web", 60);
    a = in_service(f, "web", "us-east-1a");
    b = in_service(f, "web", "us-east-1b");
    sc_elb_deregister_instances(f->elb, "web", &a, 1, T0, &f->err);
    sc_elb_deregister_instances(f->elb, "web", &b, 1, T0, &f->err);
    assert_int_equal(sc_elb_health_result(f->elb, "web", a, 1, T0 + 59999), 1); /* draining */
    assert_int_equal(sc_elb_health_result(f->elb, "web", a, 1, T0 + 60000), -1);
    assert_false(sc_elb_registered_anywhere(f->elb, a));
    assert_int_equal(sc_elb_drain_done(f->elb, "web", b, T0 + 61000), 1);
    assert_false(sc_elb_registered_anywhere(f->elb, b));
    assert_true(sc_elb_next_due_ms(f->elb, T0 + 61000) == INT64_MAX);
}

/* --- AWS/ELB metrics ----------------------------------------------------------------------------
 */

struct put {
    char metric[64];
    char unit[16];
    char lb[SC_ELB_NAME_LEN];
    double value;
    int64_t timestamp_ms, now_ms;
};

struct puts {
    struct put p[32];
    int n;
};

static void on_put(const struct sc_put_metric_data_req *req, int64_t now_ms, void *ud)
{
    struct puts *ps = ud;

    for (int i = 0; i < req->n_metric_data && ps->n < 32; i++) {
        const struct sc_metric_datum *d = &req->metric_data[i];
        struct put *p = &ps->p[ps->n++];

        assert_string_equal(req->namespace, "AWS/ELB");
        assert_int_equal(d->n_dimensions, 1);
        assert_string_equal(d->dimensions[0].name, "LoadBalancerName");
        snprintf(p->metric, sizeof(p->metric), "%s", d->metric_name);
        snprintf(p->unit, sizeof(p->unit), "%s", d->unit);
        snprintf(p->lb, sizeof(p->lb), "%s", d->dimensions[0].value);
        p->value = d->value;
        p->timestamp_ms = d->timestamp_ms;
        p->now_ms = now_ms;
    }
}

/* cw observed into ps (static: one per test). */
static struct sc_cw *observed_cw(struct puts *ps)
{
    struct sc_cw *cw = sc_cw_create(NULL);

    assert_non_null(cw);
    memset(ps, 0, sizeof(*ps));
    sc_cw_set_put_observer(cw, on_put, ps);
    return cw;
}

static const struct put *put_of(const struct puts *ps, const char *metric)
{
    for (int i = 0; i < ps->n; i++) {
        if (strcmp(ps->p[i].metric, metric) == 0)
            return &ps->p[i];
    }
    return NULL;
}

/* HealthyHostCount counts registered InService instances; one being deregistered
 * (draining, still InService in DescribeInstanceHealth) counts in neither figure. */
static void test_elb_report_minute_host_counts_exclude_draining(void **state)
{
    struct fx *f = *state;
    struct sc_elb_traffic t = { 0 };
    struct puts ps;
    struct sc_cw *cw = observed_cw(&ps);
    const char *a, *sick;

    mk_lb(f, "web");
    enable_draining(f, "web", 300);
    a = in_service(f, "web", "us-east-1a");
    in_service(f, "web", "us-east-1b");
    in_service(f, "web", "us-east-1b");
    sick = mk_inst(f, "us-east-1a", 1);
    sc_elb_register_instances(f->elb, "web", &sick, 1, T0, &f->err);
    assert_int_equal(sc_elb_deregister_instances(f->elb, "web", &a, 1, T0, &f->err), SC_OK);
    expect_row(f, "web", a, "InService", "N/A", "Instance deregistration currently in progress.");
    assert_int_equal(sc_elb_report_minute(f->elb, cw, "web", &t, SC_ELB_METRICS_ALL, T0, T0), 2);
    assert_non_null(put_of(&ps, "HealthyHostCount"));
    assert_true(put_of(&ps, "HealthyHostCount")->value == 2);
    assert_string_equal(put_of(&ps, "HealthyHostCount")->unit, "Count");
    assert_true(put_of(&ps, "UnHealthyHostCount")->value == 1);
    sc_cw_destroy(cw);
}

/* The host counts are reported while the load balancer has registered instances, zeros
 * included; without any, not at all. */
static void test_elb_report_minute_host_counts_while_registered_zeros_too(void **state)
{
    struct fx *f = *state;
    struct sc_elb_traffic t = { 0 };
    struct puts ps;
    struct sc_cw *cw = observed_cw(&ps);
    const char *id;

    mk_lb(f, "web");
    assert_int_equal(sc_elb_report_minute(f->elb, cw, "web", &t, SC_ELB_METRICS_ALL, T0, T0), 0);
    assert_int_equal(ps.n, 0);
    id = mk_inst(f, "us-east-1a", 1);
    sc_elb_register_instances(f->elb, "web", &id, 1, T0, &f->err); /* registration in progress */
    assert_int_equal(sc_elb_report_minute(f->elb, cw, "web", &t, SC_ELB_METRICS_ALL, T0, T0), 2);
    assert_true(put_of(&ps, "HealthyHostCount")->value == 0);
    assert_true(put_of(&ps, "UnHealthyHostCount")->value == 1);
    sc_cw_destroy(cw);
}

/* Every other metric is reported only when it is non-zero, SurgeQueueLength too. */
static void test_elb_report_minute_others_only_when_nonzero(void **state)
{
    struct fx *f = *state;
    struct sc_elb_traffic t = { 0 };
    struct puts ps;
    struct sc_cw *cw = observed_cw(&ps);

    mk_lb(f, "web");
    in_service(f, "web", "us-east-1a");
    t.requests = 120;
    t.backend_2xx = 118;
    t.elb_5xx = 2;
    assert_int_equal(sc_elb_report_minute(f->elb, cw, "web", &t, SC_ELB_METRICS_ALL, T0, T0), 5);
    assert_true(put_of(&ps, "RequestCount")->value == 120);
    assert_true(put_of(&ps, "HTTPCode_Backend_2XX")->value == 118);
    assert_true(put_of(&ps, "HTTPCode_ELB_5XX")->value == 2);
    assert_null(put_of(&ps, "SurgeQueueLength"));
    assert_null(put_of(&ps, "Latency"));
    assert_null(put_of(&ps, "HTTPCode_Backend_5XX"));
    assert_null(put_of(&ps, "SpilloverCount"));
    assert_null(put_of(&ps, "BackendConnectionErrors"));
    sc_cw_destroy(cw);
}

/* Every metric with its AWS unit; Latency is the mean of the timed requests, in seconds;
 * each value as the caller counted it (the emulator's already time-scaled). */
static void test_elb_report_minute_full_set_with_units(void **state)
{
    struct fx *f = *state;
    struct sc_elb_traffic t;
    struct puts ps;
    struct sc_cw *cw = observed_cw(&ps);

    mk_lb(f, "web");
    in_service(f, "web", "us-east-1a");
    t.requests = 600;
    t.latency_sum_us = 3e6; /* 3 s over 100 requests */
    t.latency_count = 100;
    t.backend_2xx = 1;
    t.backend_3xx = 2;
    t.backend_4xx = 3;
    t.backend_5xx = 4;
    t.elb_4xx = 5;
    t.elb_5xx = 6;
    t.surge_queue_max = 7;
    t.spillover = 8;
    t.backend_conn_errors = 9;
    assert_int_equal(
        sc_elb_report_minute(f->elb, cw, "web", &t, SC_ELB_METRICS_ALL, T0 - 60000, T0),
        SC_ELB_NMETRICS);
    for (int m = 0; m < SC_ELB_NMETRICS; m++) {
        const struct put *p = &ps.p[m];

        assert_string_equal(p->metric, sc_elb_metric_name((enum sc_elb_metric)m));
        assert_string_equal(p->unit, m == SC_ELB_METRIC_LATENCY ? "Seconds" : "Count");
        assert_string_equal(p->lb, "web");
        assert_true(p->timestamp_ms == T0 - 60000);
        assert_true(p->now_ms == T0);
    }
    assert_true(put_of(&ps, "Latency")->value == 0.03);
    assert_true(put_of(&ps, "SurgeQueueLength")->value == 7);
    assert_true(put_of(&ps, "BackendConnectionErrors")->value == 9);
    sc_cw_destroy(cw);
}

/* Only the selected metrics are put (the simulator's: those some alarm reads). */
static void test_elb_report_minute_only_the_selected_metrics(void **state)
{
    struct fx *f = *state;
    struct sc_elb_traffic t = { 0 };
    struct puts ps;
    struct sc_cw *cw = observed_cw(&ps);

    mk_lb(f, "web");
    in_service(f, "web", "us-east-1a");
    t.requests = 10;
    t.elb_5xx = 1;
    assert_int_equal(sc_elb_report_minute(f->elb, cw, "web", &t,
                                          SC_ELB_METRIC_BIT(SC_ELB_METRIC_HEALTHY_HOST_COUNT) |
                                              SC_ELB_METRIC_BIT(SC_ELB_METRIC_ELB_5XX),
                                          T0, T0),
                     2);
    assert_non_null(put_of(&ps, "HealthyHostCount"));
    assert_non_null(put_of(&ps, "HTTPCode_ELB_5XX"));
    assert_null(put_of(&ps, "UnHealthyHostCount"));
    assert_null(put_of(&ps, "RequestCount"));
    assert_int_equal(sc_elb_report_minute(f->elb, cw, "nope", &t, SC_ELB_METRICS_ALL, T0, T0), -1);
    sc_cw_destroy(cw);
}

static void test_elb_report_minute_metric_names(void **state)
{
    (void)state;
    for (int m = 0; m < SC_ELB_NMETRICS; m++)
        assert_int_equal(sc_elb_metric_find(sc_elb_metric_name((enum sc_elb_metric)m)), m);
    assert_int_equal(sc_elb_metric_find("HealthyHostCount"), SC_ELB_METRIC_HEALTHY_HOST_COUNT);
    assert_int_equal(sc_elb_metric_find("healthyhostcount"), -1); /* names are exact */
    assert_int_equal(sc_elb_metric_find("CPUUtilization"), -1);
    assert_int_equal(sc_elb_metric_find(NULL), -1);
    assert_null(sc_elb_metric_name(SC_ELB_NMETRICS));
    assert_null(sc_elb_metric_unit(SC_ELB_NMETRICS));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_elb_create_load_balancer_dns_name_and_defaults),
        T(test_elb_create_internal_scheme_dns_prefix),
        T(test_elb_load_balancer_name_rules),
        T(test_elb_listener_validation),
        T(test_elb_create_needs_listeners),
        T(test_elb_duplicate_load_balancer_name_other_config),
        T(test_elb_too_many_load_balancers_at_20),
        T(test_elb_zones_or_subnets_validation),
        T(test_elb_create_with_subnets_takes_their_vpc_and_zones),
        T(test_elb_delete_missing_load_balancer_is_success),
        T(test_elb_describe_load_balancer_not_found),
        T(test_elb_describe_load_balancers_paging_in_name_order),
        T(test_elb_identical_listener_is_noop),
        T(test_elb_duplicate_listener_same_port_other_protocol),
        T(test_elb_duplicate_listener_same_port_other_instance_port),
        T(test_elb_delete_listeners_by_port),
        T(test_elb_health_check_ranges),
        T(test_elb_health_check_target_parse),
        T(test_elb_attributes_modify_and_ranges),
        T(test_elb_register_unknown_instance_is_invalid_instance),
        T(test_elb_new_registration_in_progress_then_in_service_on_first_pass),
        T(test_elb_unhealthy_threshold_then_healthy_threshold),
        T(test_elb_new_registration_failing_threshold_needs_healthy_threshold),
        T(test_elb_describe_instance_health_ec2_states),
        T(test_elb_describe_instance_health_named_not_registered),
        T(test_elb_instance_in_zone_not_enabled),
        T(test_elb_draining_keeps_instance_in_service_until_done),
        T(test_elb_draining_timeout_expires_in_step),
        T(test_elb_next_due_follows_every_drain_start_and_end),
        T(test_elb_deregister_without_draining_is_immediate),
        T(test_elb_draining_does_not_hold_unhealthy_instances),
        T(test_elb_reregister_while_draining_cancels_drain),
        T(test_elb_disable_zone_in_progress_while_draining),
        T(test_elb_route_set_honours_cross_zone),
        T(test_elb_targets_for_the_checker),
        T(test_elb_step_drops_instances_ec2_no_longer_lists),
        T(test_elb_tags_add_remove_describe),
        T(test_elb_create_with_too_many_tags),
        T(test_elb_seed_tutorial_listener_swap),
        T(test_elb_not_found_everywhere),
        T(test_elb_enable_unknown_zone),
        T(test_elb_instance_membership_for_the_asg),
        T(test_elb_host_counts_per_zone),
        T(test_elb_register_instance_of_another_vpc),
        T(test_elb_shared_errors_keep_their_words),
        T(test_elb_health_step_is_the_rule_of_health_result),
        T(test_elb_health_step_new_registration_in_on_first_pass),
        T(test_elb_health_step_failing_first_needs_healthy_threshold),
        T(test_elb_health_step_out_after_unhealthy_back_after_healthy),
        T(test_elb_reports_after_drain_timeout_see_it_ended),
        T(test_elb_report_minute_host_counts_exclude_draining),
        T(test_elb_report_minute_host_counts_while_registered_zeros_too),
        T(test_elb_report_minute_others_only_when_nonzero),
        T(test_elb_report_minute_full_set_with_units),
        T(test_elb_report_minute_only_the_selected_metrics),
        T(test_elb_report_minute_metric_names),
        T(test_elb_security_group_default_vpc_gets_default_elb_group),
        T(test_elb_security_group_given_must_exist_in_the_vpc),
        T(test_elb_security_group_other_vpc_gets_its_default_group),
        T(test_elb_network_interfaces_follow_zones_and_hold_groups),
        T(test_elb_policy_types_are_aws_data),
        T(test_elb_policy_predefined_ssl_policies),
        T(test_elb_policy_create_checks_type_name_and_attributes),
        T(test_elb_policy_set_listener_and_backend_by_type),
        T(test_elb_policy_delete_refuses_enabled_and_unknown),
        T(test_elb_policy_https_listener_gets_default_policy),
        T(test_elb_policy_saved_and_old_state_loads),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
