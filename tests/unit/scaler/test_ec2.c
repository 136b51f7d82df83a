/* tests/unit/scaler/test_ec2.c: scaler/ec2.c, one test per rule. */
#include "scaler/ec2.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define T0   1767225600000LL /* 2026-01-01T00:00:00Z */
#define MAXI 64

static struct sc_ec2 *mk(void)
{
    struct sc_ec2_config cfg = { 0 };
    struct sc_ec2 *ec2;

    cfg.seed = 42;
    ec2 = sc_ec2_create(&cfg);
    assert_non_null(ec2);
    return ec2;
}

/* Launches n standalone instances; returns the reservation. */
static const struct sc_ec2_reservation *run(struct sc_ec2 *ec2, int n, const char *zone)
{
    struct sc_ec2_run_req req = { 0 };
    const struct sc_ec2_reservation *r = NULL;
    struct sc_error err = { 0 };

    req.image_id = "ami-12c6146b";
    req.min_count = n;
    req.max_count = n;
    req.availability_zone = zone;
    assert_int_equal(sc_ec2_run_instances(ec2, &req, T0, &r, &err), SC_OK);
    assert_non_null(r);
    return r;
}

static const char *first_id(struct sc_ec2 *ec2)
{
    const struct sc_ec2_reservation *r = run(ec2, 1, NULL);

    return r->instances[0]->instance_id;
}

static void test_ec2_default_zones_and_default_vpc(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const struct sc_ec2_vpc *v;

    (void)state;
    assert_int_equal(sc_ec2_zone_count(ec2), 3);
    assert_string_equal(sc_ec2_zone_at(ec2, 0)->zone_name, "us-east-1a");
    assert_string_equal(sc_ec2_zone_at(ec2, 2)->zone_name, "us-east-1c");
    assert_string_equal(sc_ec2_zone_at(ec2, 1)->zone_id, "use1-az2");
    assert_string_equal(sc_ec2_zone_at(ec2, 0)->state, "available");
    v = sc_ec2_default_vpc(ec2);
    assert_non_null(v);
    assert_true(v->is_default);
    assert_string_equal(v->cidr_block, "172.31.0.0/16");
    assert_int_equal(sc_ec2_subnet_count(ec2), 3);
    for (int i = 0; i < 3; i++) {
        const struct sc_ec2_subnet *s = sc_ec2_subnet_at(ec2, i);

        assert_true(s->default_for_az);
        assert_string_equal(s->vpc_id, v->vpc_id);
        assert_string_equal(s->availability_zone, sc_ec2_zone_at(ec2, i)->zone_name);
        assert_int_equal(s->available_ip_address_count, 4091);
        assert_ptr_equal(sc_ec2_default_subnet(ec2, s->availability_zone), s);
    }
    assert_string_equal(sc_ec2_subnet_at(ec2, 1)->cidr_block, "172.31.16.0/20");
    assert_int_equal(strncmp(sc_ec2_subnet_at(ec2, 0)->subnet_id, "subnet-0", 8), 0);
    sc_ec2_destroy(ec2);
}

static void test_ec2_zones_from_config(void **state)
{
    const char *zones[] = { "eu-west-2b", "eu-west-2c" };
    const char *dup[] = { "x-1a", "x-1a" };
    struct sc_ec2_config cfg = { 0 };
    struct sc_ec2 *ec2;
    const struct sc_ec2_zone *out[4];
    const char *bad[] = { "eu-west-2z" };
    struct sc_error err = { 0 };
    int n;

    (void)state;
    cfg.region = "eu-west-2";
    cfg.zones = zones;
    cfg.nzones = 2;
    ec2 = sc_ec2_create(&cfg);
    assert_non_null(ec2);
    assert_int_equal(sc_ec2_zone_count(ec2), 2);
    assert_string_equal(sc_ec2_zone_at(ec2, 0)->zone_name, "eu-west-2b");
    assert_string_equal(sc_ec2_zone_at(ec2, 0)->zone_id, "euw2-az1");
    assert_int_equal(sc_ec2_describe_zones(ec2, zones + 1, 1, NULL, 0, out, &n, &err), SC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(out[0]->zone_name, "eu-west-2c");
    assert_int_equal(sc_ec2_describe_zones(ec2, bad, 1, NULL, 0, out, &n, &err),
                     SC_ERR_INVALID_PARAMETER_VALUE);
    assert_string_equal(err.message, "Invalid availability zone: [eu-west-2z]");
    sc_ec2_destroy(ec2);
    cfg.zones = dup;
    assert_null(sc_ec2_create(&cfg));
}

static void test_ec2_ids_deterministic_for_a_seed(void **state)
{
    struct sc_ec2 *a = mk(), *b = mk();
    const char *ia, *ib;

    (void)state;
    ia = first_id(a);
    ib = first_id(b);
    assert_string_equal(ia, ib);
    assert_int_equal(strlen(ia), 19);
    assert_true(sc_ec2_instance_id_valid(ia));
    assert_string_equal(sc_ec2_default_vpc(a)->vpc_id, sc_ec2_default_vpc(b)->vpc_id);
    sc_ec2_destroy(a);
    sc_ec2_destroy(b);
}

static uint64_t counter_rand(void *ud)
{
    uint64_t *c = ud;

    return ++*c;
}

static void test_ec2_ids_come_from_the_rand_callback(void **state)
{
    uint64_t c = 0;
    struct sc_ec2_config cfg = { 0 };
    struct sc_ec2 *ec2;
    const char *id;

    (void)state;
    cfg.rand64 = counter_rand;
    cfg.rand_ud = &c;
    ec2 = sc_ec2_create(&cfg);
    assert_non_null(ec2);
    id = first_id(ec2);
    /* vpc, dopt, 3 subnets, reservation, then the instance */
    assert_string_equal(id, "i-00000000000000007");
    sc_ec2_destroy(ec2);
}

static void test_ec2_run_instances_starts_pending_with_aws_fields(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const struct sc_ec2_reservation *r = run(ec2, 2, "us-east-1b");
    const struct sc_ec2_instance *in = r->instances[1];

    (void)state;
    assert_int_equal(r->ninstances, 2);
    assert_int_equal(strncmp(r->reservation_id, "r-", 2), 0);
    assert_string_equal(r->owner_id, "123456789012");
    assert_int_equal(in->state, SC_EC2_PENDING);
    assert_int_equal((int)in->state, 0);
    assert_string_equal(sc_ec2_state_name(in->state), "pending");
    assert_string_equal(in->private_ip_address, "127.0.0.1");
    assert_string_equal(in->private_dns_name, "ip-127-0-0-1.ec2.internal");
    assert_string_equal(in->instance_type, "m1.small");
    assert_string_equal(in->availability_zone, "us-east-1b");
    assert_string_equal(in->subnet_id, sc_ec2_default_subnet(ec2, "us-east-1b")->subnet_id);
    assert_string_equal(in->vpc_id, sc_ec2_default_vpc(ec2)->vpc_id);
    assert_int_equal(in->ami_launch_index, 1);
    assert_true(in->launch_time_ms == T0);
    assert_string_equal(in->state_transition_reason, "");
    assert_null(in->state_reason_code);
    assert_int_equal(in->system_status, SC_EC2_CHECK_NOT_APPLICABLE);
    assert_int_equal(sc_ec2_subnet_find(ec2, in->subnet_id)->available_ip_address_count, 4089);
    assert_int_equal(sc_ec2_instance_count(ec2), 2);
    sc_ec2_destroy(ec2);
}

static void test_ec2_run_instances_rejects_malformed_requests(void **state)
{
    static const struct {
        const char *image, *type, *subnet, *zone;
        int min, max;
        enum sc_status st;
        const char *msg;
    } bad[] = {
        { NULL, NULL, NULL, NULL, 1, 1, SC_ERR_MISSING_PARAMETER,
          "The request must contain the parameter ImageId" },
        { "ami-xyz", NULL, NULL, NULL, 1, 1, SC_ERR_AMI_ID_MALFORMED,
          "Invalid id: \"ami-xyz\" (expecting \"ami-...\")" },
        { "img-12345678", NULL, NULL, NULL, 1, 1, SC_ERR_AMI_ID_MALFORMED, NULL },
        { "ami-12c6146b", "m9.huge", NULL, NULL, 1, 1, SC_ERR_INVALID_PARAMETER_VALUE,
          "Invalid value 'm9.huge' for InstanceType." },
        { "ami-12c6146b", NULL, NULL, NULL, 0, 1, SC_ERR_INVALID_PARAMETER_VALUE, NULL },
        { "ami-12c6146b", NULL, NULL, NULL, 3, 2, SC_ERR_INVALID_PARAMETER_VALUE, NULL },
        { "ami-12c6146b", NULL, "subnet-0000000000000000f", NULL, 1, 1, SC_ERR_SUBNET_NOT_FOUND,
          "The subnet ID 'subnet-0000000000000000f' does not exist" },
        { "ami-12c6146b", NULL, NULL, "us-east-1q", 1, 1, SC_ERR_INVALID_PARAMETER_VALUE,
          "Invalid availability zone: [us-east-1q]" },
    };
    struct sc_ec2 *ec2 = mk();

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct sc_ec2_run_req req = { 0 };
        struct sc_error err = { 0 };

        req.image_id = bad[i].image;
        req.instance_type = bad[i].type;
        req.subnet_id = bad[i].subnet;
        req.availability_zone = bad[i].zone;
        req.min_count = bad[i].min;
        req.max_count = bad[i].max;
        assert_int_equal(sc_ec2_run_instances(ec2, &req, T0, NULL, &err), bad[i].st);
        assert_int_equal(err.status, bad[i].st);
        if (bad[i].msg)
            assert_string_equal(err.message, bad[i].msg);
    }
    assert_int_equal(sc_ec2_instance_count(ec2), 0);
    sc_ec2_destroy(ec2);
}

static void test_ec2_run_instances_subnet_zone_mismatch(void **state)
{
    struct sc_ec2 *ec2 = mk();
    struct sc_ec2_run_req req = { 0 };
    struct sc_error err = { 0 };

    (void)state;
    req.image_id = "ami-12c6146b";
    req.min_count = req.max_count = 1;
    req.subnet_id = sc_ec2_default_subnet(ec2, "us-east-1a")->subnet_id;
    req.availability_zone = "us-east-1b";
    assert_int_equal(sc_ec2_run_instances(ec2, &req, T0, NULL, &err),
                     SC_ERR_INVALID_PARAMETER_VALUE);
    req.availability_zone = NULL;
    assert_int_equal(sc_ec2_run_instances(ec2, &req, T0, NULL, &err), SC_OK);
    assert_string_equal(sc_ec2_instance_at(ec2, 0)->availability_zone, "us-east-1a");
    sc_ec2_destroy(ec2);
}

static void test_ec2_run_instances_min_max_count_against_limit(void **state)
{
    struct sc_ec2_config cfg = { 0 };
    struct sc_ec2 *ec2;
    struct sc_ec2_run_req req = { 0 };
    const struct sc_ec2_reservation *r;
    struct sc_error err = { 0 };

    (void)state;
    cfg.max_instances = 3;
    ec2 = sc_ec2_create(&cfg);
    req.image_id = "ami-12c6146b";
    req.min_count = 1;
    req.max_count = 5;
    assert_int_equal(sc_ec2_run_instances(ec2, &req, T0, &r, &err), SC_OK);
    assert_int_equal(r->ninstances, 3);
    assert_int_equal(sc_ec2_run_instances(ec2, &req, T0, &r, &err), SC_ERR_INSTANCE_LIMIT_EXCEEDED);
    assert_non_null(strstr(err.message, "You have requested more instances (1) than your "
                                        "current instance limit of 3 allows"));
    assert_int_equal(sc_ec2_instance_count(ec2), 3);
    sc_ec2_destroy(ec2);
}

static void test_ec2_run_instances_strict_images(void **state)
{
    struct sc_ec2_config cfg = { 0 };
    struct sc_ec2 *ec2, *lax = mk();
    struct sc_ec2_run_req req = { 0 };
    struct sc_error err = { 0 };

    (void)state;
    cfg.strict_images = 1;
    ec2 = sc_ec2_create(&cfg);
    req.image_id = "ami-0123456789abcdef0";
    req.min_count = req.max_count = 1;
    assert_int_equal(sc_ec2_run_instances(ec2, &req, T0, NULL, &err), SC_ERR_AMI_ID_NOT_FOUND);
    assert_string_equal(err.message, "The image id '[ami-0123456789abcdef0]' does not exist");
    assert_int_equal(sc_ec2_run_instances(lax, &req, T0, NULL, &err), SC_OK);
    sc_ec2_destroy(ec2);
    sc_ec2_destroy(lax);
}

static void test_ec2_run_instances_zone_down_insufficient_capacity(void **state)
{
    struct sc_ec2 *ec2 = mk();
    struct sc_ec2_run_req req = { 0 };
    struct sc_error err = { 0 };

    (void)state;
    assert_int_equal(sc_ec2_zone_set_available(ec2, "us-east-1a", 0), 0);
    assert_int_equal(sc_ec2_zone_set_available(ec2, "nope", 0), -1);
    assert_string_equal(sc_ec2_zone_find(ec2, "us-east-1a")->state, "impaired");
    req.image_id = "ami-12c6146b";
    req.instance_type = "m1.large";
    req.min_count = req.max_count = 1;
    req.availability_zone = "us-east-1a";
    assert_int_equal(sc_ec2_run_instances(ec2, &req, T0, NULL, &err),
                     SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY);
    assert_non_null(strstr(err.message, "We currently do not have sufficient m1.large capacity "
                                        "in the Availability Zone you requested (us-east-1a)."));
    assert_int_equal(sc_status_http(err.status), 500);
    /* default placement skips the zone that is down */
    req.availability_zone = NULL;
    for (int i = 0; i < 4; i++)
        assert_int_equal(sc_ec2_run_instances(ec2, &req, T0, NULL, &err), SC_OK);
    for (int i = 0; i < 4; i++)
        assert_string_not_equal(sc_ec2_instance_at(ec2, i)->availability_zone, "us-east-1a");
    sc_ec2_destroy(ec2);
}

/* The host bound (sc_ec2_config.host_room, the emulator's --max-instances) shared by two
 * worlds: a RunInstances that cannot get MinCount fails whole with
 * InsufficientInstanceCapacity "Insufficient capacity." (HTTP 500), one that can gets at
 * most the room; terminating makes room again. */
static int room_left(void *ud)
{
    struct sc_ec2 **pair = ud;

    return 5 - sc_ec2_live_count(pair[0]) - sc_ec2_live_count(pair[1]);
}

static void test_ec2_host_room_insufficient_capacity(void **state)
{
    struct sc_ec2 *pair[2];
    struct sc_ec2_config cfg = { 0 };
    struct sc_ec2_run_req req = { 0 };
    const struct sc_ec2_reservation *r = NULL;
    struct sc_error err = { 0 };
    char id[SC_EC2_ID_LEN];
    const char *ids[1] = { id };

    (void)state;
    cfg.host_room = room_left;
    cfg.host_ud = pair;
    cfg.seed = 1;
    pair[0] = sc_ec2_create(&cfg);
    cfg.region = "eu-west-1";
    pair[1] = sc_ec2_create(&cfg);
    req.image_id = "ami-12c6146b";
    req.min_count = req.max_count = 3;
    assert_int_equal(sc_ec2_run_instances(pair[0], &req, T0, &r, &err), SC_OK);
    assert_int_equal(r->ninstances, 3);
    snprintf(id, sizeof(id), "%s", r->instances[0]->instance_id);
    /* 2 left: MinCount 3 is refused and nothing is stored; MinCount 1 MaxCount 3 gets 2 */
    assert_int_equal(sc_ec2_run_instances(pair[1], &req, T0, &r, &err),
                     SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY);
    assert_string_equal(err.message, "Insufficient capacity.");
    assert_string_equal(sc_status_code(err.status), "InsufficientInstanceCapacity");
    assert_int_equal(sc_status_http(err.status), 500);
    assert_int_equal(sc_ec2_instance_count(pair[1]), 0);
    req.min_count = 1;
    assert_int_equal(sc_ec2_run_instances(pair[1], &req, T0, &r, &err), SC_OK);
    assert_int_equal(r->ninstances, 2);
    assert_int_equal(sc_ec2_run_instances(pair[1], &req, T0, &r, &err),
                     SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY);
    /* a terminated (or shutting-down) instance no longer counts */
    assert_int_equal(sc_ec2_terminate_instances(pair[0], ids, 1, T0 + 1000, NULL, &err), SC_OK);
    req.max_count = 1;
    assert_int_equal(sc_ec2_run_instances(pair[1], &req, T0 + 2000, &r, &err), SC_OK);
    assert_int_equal(sc_ec2_live_count(pair[0]) + sc_ec2_live_count(pair[1]), 5);
    sc_ec2_destroy(pair[0]);
    sc_ec2_destroy(pair[1]);
}

/* The AZ outage: pending and running instances of the zone die, others live; launches
 * into it fail until it is back. */
static void test_ec2_zone_outage_kills_the_zone(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const struct sc_ec2_reservation *a = run(ec2, 2, "us-east-1a");
    const struct sc_ec2_reservation *b = run(ec2, 1, "us-east-1b");
    char a0[SC_EC2_ID_LEN], a1[SC_EC2_ID_LEN], b0[SC_EC2_ID_LEN];
    const char *ids[4] = { 0 };
    struct sc_ec2_run_req req = { 0 };
    struct sc_error err = { 0 };

    (void)state;
    snprintf(a0, sizeof(a0), "%s", a->instances[0]->instance_id);
    snprintf(a1, sizeof(a1), "%s", a->instances[1]->instance_id);
    snprintf(b0, sizeof(b0), "%s", b->instances[0]->instance_id);
    assert_int_equal(sc_ec2_instance_running(ec2, a0, T0 + 1000), SC_OK); /* a1 stays pending */
    assert_int_equal(sc_ec2_instance_running(ec2, b0, T0 + 1000), SC_OK);
    assert_int_equal(sc_ec2_zone_outage(ec2, "nope", T0 + 2000, ids, 4), -1);
    assert_int_equal(sc_ec2_zone_outage(ec2, "us-east-1a", T0 + 2000, ids, 4), 2);
    assert_string_equal(ids[0], a0);
    assert_string_equal(ids[1], a1);
    assert_int_equal(sc_ec2_instance_find(ec2, a0)->state, SC_EC2_TERMINATED);
    assert_int_equal(sc_ec2_instance_find(ec2, a1)->state, SC_EC2_TERMINATED);
    assert_int_equal(sc_ec2_instance_find(ec2, a0)->instance_status, SC_EC2_CHECK_IMPAIRED);
    assert_string_equal(sc_ec2_instance_find(ec2, a0)->state_reason_code, "Server.InternalError");
    assert_int_equal(sc_ec2_instance_find(ec2, b0)->state, SC_EC2_RUNNING);
    assert_string_equal(sc_ec2_zone_find(ec2, "us-east-1a")->state, "impaired");
    req.image_id = "ami-12c6146b";
    req.min_count = req.max_count = 1;
    req.availability_zone = "us-east-1a";
    assert_int_equal(sc_ec2_run_instances(ec2, &req, T0 + 3000, NULL, &err),
                     SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY);
    /* a second outage of the same zone finds nobody */
    assert_int_equal(sc_ec2_zone_outage(ec2, "us-east-1a", T0 + 4000, ids, 4), 0);
    assert_int_equal(sc_ec2_zone_set_available(ec2, "us-east-1a", 1), 0);
    assert_int_equal(sc_ec2_run_instances(ec2, &req, T0 + 5000, NULL, &err), SC_OK);
    sc_ec2_destroy(ec2);
}

static void test_ec2_run_instances_default_placement_round_robin(void **state)
{
    struct sc_ec2 *ec2 = mk();

    (void)state;
    for (int i = 0; i < 3; i++)
        run(ec2, 1, NULL);
    assert_string_equal(sc_ec2_instance_at(ec2, 0)->availability_zone, "us-east-1a");
    assert_string_equal(sc_ec2_instance_at(ec2, 1)->availability_zone, "us-east-1b");
    assert_string_equal(sc_ec2_instance_at(ec2, 2)->availability_zone, "us-east-1c");
    sc_ec2_destroy(ec2);
}

static void test_ec2_run_instances_tags_allow_autoscaling_prefix(void **state)
{
    struct sc_ec2 *ec2 = mk();
    struct sc_ec2_tag tags[] = { { "aws:autoscaling:groupName", "web" }, { "Name", "x" } };
    struct sc_ec2_run_req req = { 0 };
    const struct sc_ec2_reservation *r;
    struct sc_error err = { 0 };

    (void)state;
    req.image_id = "ami-12c6146b";
    req.min_count = req.max_count = 1;
    req.tags = tags;
    req.ntags = 2;
    req.launch_configuration_name = "lc1";
    assert_int_equal(sc_ec2_run_instances(ec2, &req, T0, &r, &err), SC_OK);
    assert_string_equal(sc_ec2_instance_tag(r->instances[0], "aws:autoscaling:groupName"), "web");
    assert_string_equal(r->instances[0]->launch_configuration_name, "lc1");
    assert_null(sc_ec2_instance_tag(r->instances[0], "nope"));
    sc_ec2_destroy(ec2);
}

static void test_ec2_terminate_instances_is_idempotent(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const char *id = first_id(ec2);
    const char *ids[] = { id };
    struct sc_ec2_state_change ch[1];
    struct sc_error err = { 0 };

    (void)state;
    assert_int_equal(sc_ec2_instance_running(ec2, id, T0 + 1000), SC_OK);
    assert_int_equal(sc_ec2_terminate_instances(ec2, ids, 1, T0 + 300000, ch, &err), SC_OK);
    assert_int_equal(ch[0].previous, SC_EC2_RUNNING);
    assert_int_equal(ch[0].current, SC_EC2_SHUTTING_DOWN);
    assert_string_equal(ch[0].instance_id, id);
    assert_string_equal(sc_ec2_instance_find(ec2, id)->state_transition_reason,
                        "User initiated (2026-01-01 00:05:00 GMT)");
    assert_string_equal(sc_ec2_instance_find(ec2, id)->state_reason_code,
                        "Client.UserInitiatedShutdown");
    assert_int_equal(sc_ec2_terminate_instances(ec2, ids, 1, T0 + 301000, ch, &err), SC_OK);
    assert_int_equal(ch[0].previous, SC_EC2_SHUTTING_DOWN);
    assert_int_equal(ch[0].current, SC_EC2_SHUTTING_DOWN);
    assert_int_equal(sc_ec2_instance_terminated(ec2, id, T0 + 302000), SC_OK);
    assert_int_equal(sc_ec2_terminate_instances(ec2, ids, 1, T0 + 303000, ch, &err), SC_OK);
    assert_int_equal(ch[0].previous, SC_EC2_TERMINATED);
    assert_int_equal(ch[0].current, SC_EC2_TERMINATED);
    sc_ec2_destroy(ec2);
}

static void test_ec2_terminate_one_bad_id_terminates_nothing(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const char *id = first_id(ec2);
    const char *ids1[] = { id, "i-0000000000000000a" };
    const char *ids2[] = { id, "i-0000000000000000a", "i-0000000000000000b" };
    const char *ids3[] = { id, "x" };
    struct sc_error err = { 0 };

    (void)state;
    assert_int_equal(sc_ec2_terminate_instances(ec2, ids1, 2, T0, NULL, &err),
                     SC_ERR_INSTANCE_ID_NOT_FOUND);
    assert_string_equal(sc_status_code(err.status), "InvalidInstanceID.NotFound");
    assert_string_equal(err.message, "The instance ID 'i-0000000000000000a' does not exist");
    assert_int_equal(sc_ec2_terminate_instances(ec2, ids2, 3, T0, NULL, &err),
                     SC_ERR_INSTANCE_ID_NOT_FOUND);
    assert_string_equal(err.message,
                        "The instance IDs 'i-0000000000000000a, i-0000000000000000b' do not exist");
    assert_int_equal(sc_ec2_terminate_instances(ec2, ids3, 2, T0, NULL, &err),
                     SC_ERR_INSTANCE_ID_MALFORMED);
    assert_string_equal(sc_status_code(err.status), "InvalidInstanceID.Malformed");
    assert_string_equal(err.message, "Invalid id: \"x\"");
    assert_int_equal(sc_ec2_instance_find(ec2, id)->state, SC_EC2_PENDING);
    sc_ec2_destroy(ec2);
}

static void test_ec2_instance_id_validity_table(void **state)
{
    static const char *const good[] = { "i-12345678", "i-0123456789abcdef0" };
    static const char *const bad[] = { "",
                                       "i-",
                                       "i-1234567",
                                       "i-123456789",
                                       "i-0123456789ABCDEF0",
                                       "x-12345678",
                                       "i-0123456789abcdefg",
                                       "i-0123456789abcdef01" };

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_true(sc_ec2_instance_id_valid(good[i]));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_false(sc_ec2_instance_id_valid(bad[i]));
    assert_false(sc_ec2_instance_id_valid(NULL));
}

static void test_ec2_data_plane_lifecycle(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const char *id = first_id(ec2);
    const char *ids[] = { id };
    struct sc_error err = { 0 };

    (void)state;
    assert_int_equal(sc_ec2_instance_terminated(ec2, id, T0), SC_ERR_INCORRECT_INSTANCE_STATE);
    assert_int_equal(sc_ec2_instance_running(ec2, id, T0 + 5000), SC_OK);
    assert_int_equal(sc_ec2_instance_find(ec2, id)->state, SC_EC2_RUNNING);
    assert_int_equal((int)sc_ec2_instance_find(ec2, id)->state, 16);
    assert_int_equal(sc_ec2_instance_find(ec2, id)->instance_status, SC_EC2_CHECK_OK);
    assert_int_equal(sc_ec2_instance_running(ec2, id, T0 + 6000), SC_OK); /* idempotent */
    assert_int_equal(sc_ec2_terminate_instances(ec2, ids, 1, T0 + 7000, NULL, &err), SC_OK);
    assert_int_equal((int)sc_ec2_instance_find(ec2, id)->state, 32);
    assert_int_equal(sc_ec2_instance_running(ec2, id, T0 + 7000), SC_ERR_INCORRECT_INSTANCE_STATE);
    assert_int_equal(sc_ec2_instance_terminated(ec2, id, T0 + 8000), SC_OK);
    assert_int_equal((int)sc_ec2_instance_find(ec2, id)->state, 48);
    assert_int_equal(sc_ec2_instance_find(ec2, id)->instance_status, SC_EC2_CHECK_NOT_APPLICABLE);
    assert_int_equal(sc_ec2_instance_running(ec2, "i-0000000000000000a", T0),
                     SC_ERR_INSTANCE_ID_NOT_FOUND);
    sc_ec2_destroy(ec2);
}

static void test_ec2_terminated_instances_vanish_after_retention(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const char *id = first_id(ec2);
    const char *ids[] = { id };
    char keep[SC_EC2_ID_LEN];
    struct sc_error err = { 0 };

    (void)state;
    strcpy(keep, id);
    run(ec2, 1, NULL);
    sc_ec2_terminate_instances(ec2, ids, 1, T0, NULL, &err);
    sc_ec2_instance_terminated(ec2, keep, T0 + 1000);
    assert_true(sc_ec2_next_due_ms(ec2, T0 + 1000) == T0 + 1000 + 3600000);
    sc_ec2_step(ec2, T0 + 1000 + 3599999);
    assert_non_null(sc_ec2_instance_find(ec2, keep));
    sc_ec2_step(ec2, T0 + 1000 + 3600000);
    assert_null(sc_ec2_instance_find(ec2, keep));
    assert_int_equal(sc_ec2_instance_count(ec2), 1);
    assert_true(sc_ec2_next_due_ms(ec2, T0) == INT64_MAX);
    ids[0] = keep;
    assert_int_equal(sc_ec2_terminate_instances(ec2, ids, 1, T0, NULL, &err),
                     SC_ERR_INSTANCE_ID_NOT_FOUND);
    sc_ec2_destroy(ec2);
}

static void test_ec2_terminated_ip_returns_to_subnet(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const char *id = first_id(ec2);
    const char *sid = sc_ec2_instance_find(ec2, id)->subnet_id;
    const char *ids[] = { id };
    struct sc_error err = { 0 };

    (void)state;
    assert_int_equal(sc_ec2_subnet_find(ec2, sid)->available_ip_address_count, 4090);
    sc_ec2_terminate_instances(ec2, ids, 1, T0, NULL, &err);
    sc_ec2_instance_terminated(ec2, id, T0);
    assert_int_equal(sc_ec2_subnet_find(ec2, sid)->available_ip_address_count, 4091);
    sc_ec2_destroy(ec2);
}

static void test_ec2_lost_instance_is_terminated_and_impaired(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const char *id = first_id(ec2);
    const struct sc_ec2_instance *in;

    (void)state;
    sc_ec2_instance_running(ec2, id, T0);
    assert_int_equal(sc_ec2_instance_lost(ec2, id, T0 + 60000), SC_OK);
    in = sc_ec2_instance_find(ec2, id);
    assert_int_equal(in->state, SC_EC2_TERMINATED);
    assert_int_equal(in->instance_status, SC_EC2_CHECK_IMPAIRED);
    assert_int_equal(in->system_status, SC_EC2_CHECK_IMPAIRED);
    assert_string_equal(in->state_reason_code, "Server.InternalError");
    assert_true(in->impaired_since_ms == T0 + 60000);
    assert_int_equal(sc_ec2_instance_lost(ec2, id, T0 + 61000), SC_OK);
    sc_ec2_destroy(ec2);
}

static void test_ec2_set_impaired_for_hangs(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const char *id = first_id(ec2);

    (void)state;
    assert_int_equal(sc_ec2_instance_set_impaired(ec2, id, 1, T0), SC_ERR_INCORRECT_INSTANCE_STATE);
    sc_ec2_instance_running(ec2, id, T0);
    assert_int_equal(sc_ec2_instance_set_impaired(ec2, id, 1, T0 + 10), SC_OK);
    assert_int_equal(sc_ec2_instance_find(ec2, id)->instance_status, SC_EC2_CHECK_IMPAIRED);
    assert_int_equal(sc_ec2_instance_find(ec2, id)->system_status, SC_EC2_CHECK_OK);
    assert_true(sc_ec2_instance_find(ec2, id)->impaired_since_ms == T0 + 10);
    assert_int_equal(sc_ec2_instance_find(ec2, id)->state, SC_EC2_RUNNING);
    assert_int_equal(sc_ec2_instance_set_impaired(ec2, id, 0, T0 + 20), SC_OK);
    assert_int_equal(sc_ec2_instance_find(ec2, id)->instance_status, SC_EC2_CHECK_OK);
    sc_ec2_destroy(ec2);
}

static void test_ec2_status_checks_initializing_then_ok(void **state)
{
    struct sc_ec2_config cfg = { 0 };
    struct sc_ec2 *ec2;
    const char *id;

    (void)state;
    cfg.status_init_ms = 120000;
    ec2 = sc_ec2_create(&cfg);
    id = first_id(ec2);
    sc_ec2_instance_running(ec2, id, T0);
    assert_int_equal(sc_ec2_instance_find(ec2, id)->instance_status, SC_EC2_CHECK_INITIALIZING);
    assert_string_equal(sc_ec2_check_name(SC_EC2_CHECK_INITIALIZING), "initializing");
    assert_true(sc_ec2_next_due_ms(ec2, T0) == T0 + 120000);
    sc_ec2_step(ec2, T0 + 119999);
    assert_int_equal(sc_ec2_instance_find(ec2, id)->system_status, SC_EC2_CHECK_INITIALIZING);
    sc_ec2_step(ec2, T0 + 120000);
    assert_int_equal(sc_ec2_instance_find(ec2, id)->system_status, SC_EC2_CHECK_OK);
    assert_int_equal(sc_ec2_instance_find(ec2, id)->instance_status, SC_EC2_CHECK_OK);
    sc_ec2_destroy(ec2);
}

static void test_ec2_describe_instances_filters(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const struct sc_ec2_instance *out[MAXI];
    struct sc_ec2_tag tag = { "role", "web-1" };
    const char *running[] = { "running" };
    const char *web[] = { "web-*" };
    const char *roles[] = { "role" };
    const char *zone_b[] = { "us-east-1b" };
    const char *type[] = { "m1.small" };
    struct sc_ec2_filter f;
    struct sc_ec2_describe_req req = { 0 };
    struct sc_error err = { 0 };
    const char *a, *b;
    int n;

    (void)state;
    a = run(ec2, 1, "us-east-1a")->instances[0]->instance_id;
    b = run(ec2, 1, "us-east-1b")->instances[0]->instance_id;
    sc_ec2_instance_running(ec2, a, T0);
    assert_int_equal(sc_ec2_create_tags(ec2, &b, 1, &tag, 1, T0, &err), SC_OK);
    req.filters = &f;
    req.nfilters = 1;

    f = (struct sc_ec2_filter){ "instance-state-name", running, 1 };
    assert_int_equal(sc_ec2_describe_instances(ec2, &req, out, &n, &err), SC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(out[0]->instance_id, a);
    f = (struct sc_ec2_filter){ "tag:role", web, 1 };
    assert_int_equal(sc_ec2_describe_instances(ec2, &req, out, &n, &err), SC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(out[0]->instance_id, b);
    f = (struct sc_ec2_filter){ "tag-key", roles, 1 };
    sc_ec2_describe_instances(ec2, &req, out, &n, &err);
    assert_int_equal(n, 1);
    f = (struct sc_ec2_filter){ "availability-zone", zone_b, 1 };
    sc_ec2_describe_instances(ec2, &req, out, &n, &err);
    assert_int_equal(n, 1);
    assert_string_equal(out[0]->instance_id, b);
    f = (struct sc_ec2_filter){ "instance-type", type, 1 };
    sc_ec2_describe_instances(ec2, &req, out, &n, &err);
    assert_int_equal(n, 2);
    f = (struct sc_ec2_filter){ "instance-id", &a, 1 };
    sc_ec2_describe_instances(ec2, &req, out, &n, &err);
    assert_int_equal(n, 1);
    f = (struct sc_ec2_filter){ "flavour", type, 1 };
    assert_int_equal(sc_ec2_describe_instances(ec2, &req, out, &n, &err),
                     SC_ERR_INVALID_PARAMETER_VALUE);
    assert_string_equal(err.message, "The filter 'flavour' is invalid");
    req.nfilters = 0;
    req.instance_ids = &b;
    req.ninstance_ids = 1;
    sc_ec2_describe_instances(ec2, &req, out, &n, &err);
    assert_int_equal(n, 1);
    assert_string_equal(out[0]->instance_id, b);
    sc_ec2_destroy(ec2);
}

static void test_ec2_describe_instances_groups_by_reservation(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const struct sc_ec2_instance *out[MAXI];
    struct sc_ec2_describe_req req = { 0 };
    struct sc_error err = { 0 };
    const struct sc_ec2_reservation *r1 = run(ec2, 2, NULL), *r2 = run(ec2, 1, NULL);
    int n;

    (void)state;
    assert_int_equal(sc_ec2_describe_instances(ec2, &req, out, &n, &err), SC_OK);
    assert_int_equal(n, 3);
    assert_string_equal(out[0]->reservation_id, r1->reservation_id);
    assert_string_equal(out[1]->reservation_id, r1->reservation_id);
    assert_string_equal(out[2]->reservation_id, r2->reservation_id);
    sc_ec2_destroy(ec2);
}

static void test_ec2_describe_instance_status_running_unless_include_all(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const struct sc_ec2_instance *out[MAXI];
    struct sc_ec2_describe_req req = { 0 };
    struct sc_error err = { 0 };
    const char *a = run(ec2, 1, NULL)->instances[0]->instance_id;
    const char *ok[] = { "ok" };
    struct sc_ec2_filter f = { "instance-status.status", ok, 1 };
    int n;

    (void)state;
    run(ec2, 1, NULL);
    sc_ec2_instance_running(ec2, a, T0);
    assert_int_equal(sc_ec2_describe_instance_status(ec2, &req, 0, out, &n, &err), SC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(out[0]->instance_id, a);
    assert_int_equal(sc_ec2_describe_instance_status(ec2, &req, 1, out, &n, &err), SC_OK);
    assert_int_equal(n, 2);
    req.filters = &f;
    req.nfilters = 1;
    sc_ec2_describe_instance_status(ec2, &req, 1, out, &n, &err);
    assert_int_equal(n, 1);
    sc_ec2_destroy(ec2);
}

static void test_ec2_stop_and_start_instances(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const char *id = first_id(ec2);
    const char *ids[] = { id };
    struct sc_ec2_state_change ch[1];
    struct sc_error err = { 0 };

    (void)state;
    sc_ec2_instance_running(ec2, id, T0);
    assert_int_equal(sc_ec2_start_instances(ec2, ids, 1, T0, ch, &err), SC_OK);
    assert_int_equal(ch[0].current, SC_EC2_RUNNING);
    assert_int_equal(sc_ec2_stop_instances(ec2, ids, 1, T0, ch, &err), SC_OK);
    assert_int_equal(ch[0].previous, SC_EC2_RUNNING);
    assert_int_equal((int)ch[0].current, 64);
    assert_int_equal(sc_ec2_instance_stopped(ec2, id, T0 + 1), SC_OK);
    assert_int_equal((int)sc_ec2_instance_find(ec2, id)->state, 80);
    assert_int_equal(sc_ec2_start_instances(ec2, ids, 1, T0 + 2, ch, &err), SC_OK);
    assert_int_equal(ch[0].current, SC_EC2_PENDING);
    sc_ec2_terminate_instances(ec2, ids, 1, T0 + 3, NULL, &err);
    assert_int_equal(sc_ec2_stop_instances(ec2, ids, 1, T0 + 4, ch, &err),
                     SC_ERR_INCORRECT_INSTANCE_STATE);
    assert_int_equal(sc_ec2_start_instances(ec2, ids, 1, T0 + 4, ch, &err),
                     SC_ERR_INCORRECT_INSTANCE_STATE);
    sc_ec2_destroy(ec2);
}

/* StopInstances with Hibernate marks the instance hibernated (its memory kept: the data
 * plane pauses its process); a plain stop clears the mark. */
static void test_ec2_hibernate_instances(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const char *id = first_id(ec2);
    const char *ids[] = { id };
    struct sc_ec2_state_change ch[1];
    struct sc_error err = { 0 };

    (void)state;
    sc_ec2_instance_running(ec2, id, T0);
    assert_int_equal(sc_ec2_hibernate_instances(ec2, ids, 1, T0, ch, &err), SC_OK);
    assert_int_equal(ch[0].current, SC_EC2_STOPPING);
    assert_true(sc_ec2_instance_find(ec2, id)->hibernated);
    assert_int_equal(sc_ec2_instance_stopped(ec2, id, T0 + 1), SC_OK);
    assert_true(sc_ec2_instance_find(ec2, id)->hibernated);
    assert_int_equal(sc_ec2_start_instances(ec2, ids, 1, T0 + 2, ch, &err), SC_OK);
    sc_ec2_instance_running(ec2, id, T0 + 3);
    assert_int_equal(sc_ec2_stop_instances(ec2, ids, 1, T0 + 4, ch, &err), SC_OK);
    assert_false(sc_ec2_instance_find(ec2, id)->hibernated);
    sc_ec2_destroy(ec2);
}

static void test_ec2_state_names_and_codes(void **state)
{
    static const struct {
        enum sc_ec2_state s;
        const char *name;
        int code;
    } t[] = { { SC_EC2_PENDING, "pending", 0 },
              { SC_EC2_RUNNING, "running", 16 },
              { SC_EC2_SHUTTING_DOWN, "shutting-down", 32 },
              { SC_EC2_TERMINATED, "terminated", 48 },
              { SC_EC2_STOPPING, "stopping", 64 },
              { SC_EC2_STOPPED, "stopped", 80 } };

    (void)state;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        assert_int_equal((int)t[i].s, t[i].code);
        assert_string_equal(sc_ec2_state_name(t[i].s), t[i].name);
        assert_int_equal(sc_ec2_state_parse(t[i].name), t[i].code);
    }
    assert_int_equal(sc_ec2_state_parse("exploded"), -1);
}

static void test_ec2_instance_type_catalogue(void **state)
{
    static const char *const need[] = { "t2.micro", "t3.micro", "m5.large",
                                        "c5.large", "m1.large", "m1.small" };
    const struct sc_ec2_instance_type *out[64];
    const char *bad[] = { "m9.huge" };
    const char *two[] = { "2" };
    struct sc_ec2_filter f = { "vcpu-info.default-vcpus", two, 1 };
    struct sc_error err = { 0 };
    int n;

    (void)state;
    for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
        assert_non_null(sc_ec2_instance_type_find(need[i]));
    assert_int_equal(sc_ec2_instance_type_find("m1.large")->vcpus, 2);
    assert_int_equal(sc_ec2_instance_type_find("m1.large")->memory_mib, 7680);
    for (int i = 1; i < sc_ec2_instance_type_count(); i++)
        assert_true(strcmp(sc_ec2_instance_type_at(i - 1)->instance_type,
                           sc_ec2_instance_type_at(i)->instance_type) < 0);
    assert_int_equal(sc_ec2_describe_instance_types(bad, 1, NULL, 0, out, &n, &err),
                     SC_ERR_INVALID_INSTANCE_TYPE);
    assert_string_equal(err.message,
                        "The following supplied instance types do not exist: [m9.huge]");
    assert_int_equal(sc_ec2_describe_instance_types(need, 2, NULL, 0, out, &n, &err), SC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(sc_ec2_describe_instance_types(NULL, 0, &f, 1, out, &n, &err), SC_OK);
    for (int i = 0; i < n; i++)
        assert_int_equal(out[i]->vcpus, 2);
    assert_true(n > 3);
}

static void test_ec2_describe_images_catalogue(void **state)
{
    const struct sc_ec2_image *out[16];
    const char *good[] = { "ami-12c6146b" };
    const char *unknown[] = { "ami-00000000" };
    const char *malformed[] = { "foo" };
    struct sc_error err = { 0 };
    int n;

    (void)state;
    assert_true(sc_ec2_image_count() >= 3);
    assert_int_equal(sc_ec2_describe_images(NULL, 0, NULL, 0, out, &n, &err), SC_OK);
    assert_int_equal(n, sc_ec2_image_count());
    assert_int_equal(sc_ec2_describe_images(good, 1, NULL, 0, out, &n, &err), SC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(sc_ec2_describe_images(unknown, 1, NULL, 0, out, &n, &err),
                     SC_ERR_AMI_ID_NOT_FOUND);
    assert_string_equal(err.message, "The image id '[ami-00000000]' does not exist");
    assert_int_equal(sc_ec2_describe_images(malformed, 1, NULL, 0, out, &n, &err),
                     SC_ERR_AMI_ID_MALFORMED);
}

static void test_ec2_launch_template_create_and_versions(void **state)
{
    struct sc_ec2 *ec2 = mk();
    struct sc_ec2_lt_create_req req = { 0 };
    struct sc_ec2_lt_version_req vreq = { 0 };
    struct sc_ec2_lt_versions_req dreq = { 0 };
    const struct sc_ec2_launch_template *t;
    const struct sc_ec2_lt_version *v, *vs[8];
    const char *latest[] = { "$Latest", "1" };
    struct sc_error err = { 0 };
    int n;

    (void)state;
    req.launch_template_name = "web-lt";
    req.version_description = "first";
    req.data.image_id = "ami-12c6146b";
    req.data.instance_type = "t3.micro";
    assert_int_equal(sc_ec2_create_launch_template(ec2, &req, T0, &t, &err), SC_OK);
    assert_int_equal(strncmp(t->launch_template_id, "lt-0", 4), 0);
    assert_int_equal(strlen(t->launch_template_id), 20);
    assert_int_equal(t->default_version_number, 1);
    assert_int_equal(t->latest_version_number, 1);
    assert_string_equal(t->created_by, "arn:aws:iam::123456789012:root");

    vreq.launch_template_name = "web-lt";
    vreq.source_version = "1";
    vreq.data.instance_type = "m5.large";
    assert_int_equal(sc_ec2_create_launch_template_version(ec2, &vreq, T0 + 1, &v, &err), SC_OK);
    assert_int_equal(v->version_number, 2);
    assert_string_equal(v->data.image_id, "ami-12c6146b"); /* from the source */
    assert_string_equal(v->data.instance_type, "m5.large");
    assert_false(v->default_version);

    assert_int_equal(sc_ec2_resolve_launch_template(ec2, NULL, "web-lt", NULL, &v, &err), SC_OK);
    assert_int_equal(v->version_number, 1);
    assert_int_equal(sc_ec2_resolve_launch_template(ec2, NULL, "web-lt", "$Latest", &v, &err),
                     SC_OK);
    assert_int_equal(v->version_number, 2);
    assert_int_equal(sc_ec2_modify_launch_template(ec2, NULL, "web-lt", "$Latest", T0, &t, &err),
                     SC_OK);
    assert_int_equal(t->default_version_number, 2);
    assert_int_equal(sc_ec2_resolve_launch_template(ec2, NULL, "web-lt", "$Default", &v, &err),
                     SC_OK);
    assert_int_equal(v->version_number, 2);
    assert_true(v->default_version);

    dreq.launch_template_id = t->launch_template_id;
    assert_int_equal(sc_ec2_describe_launch_template_versions(ec2, &dreq, vs, 8, &n, &err), SC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(vs[0]->version_number, 1);
    dreq.versions = latest;
    dreq.nversions = 2;
    assert_int_equal(sc_ec2_describe_launch_template_versions(ec2, &dreq, vs, 8, &n, &err), SC_OK);
    assert_int_equal(n, 2);
    dreq.nversions = 1;
    sc_ec2_describe_launch_template_versions(ec2, &dreq, vs, 8, &n, &err);
    assert_int_equal(n, 1);
    assert_int_equal(vs[0]->version_number, 2);
    sc_ec2_destroy(ec2);
}

/* A template's other LaunchTemplateData members (BlockDeviceMappings, MetadataOptions, ...)
 * are kept as sent; a version from a SourceVersion takes the source's, the members sent
 * replacing theirs one top-level member at a time; save and load keep them. */
static void test_ec2_launch_template_other_members_kept_and_merged(void **state)
{
    struct sc_ec2 *ec2 = mk(), *again = mk();
    struct sc_ec2_lt_create_req req = { 0 };
    struct sc_ec2_lt_version_req vreq = { 0 };
    const struct sc_ec2_lt_version *v = NULL;
    json_t *first = json_pack("{s:{s:s,s:i},s:b}", "MetadataOptions", "HttpTokens", "required",
                              "HttpPutResponseHopLimit", 2, "EbsOptimized", 1);
    json_t *second = json_pack("{s:{s:s}}", "MetadataOptions", "HttpTokens", "optional");
    json_t *saved;
    struct sc_error err = { 0 };

    (void)state;
    req.launch_template_name = "web-lt";
    req.data.image_id = "ami-12c6146b";
    req.data.instance_type = "t3.micro";
    req.data.other = first;
    assert_int_equal(sc_ec2_create_launch_template(ec2, &req, T0, NULL, &err), SC_OK);
    json_decref(first); /* copied */
    vreq.launch_template_name = "web-lt";
    vreq.source_version = "1";
    vreq.data.other = second;
    assert_int_equal(sc_ec2_create_launch_template_version(ec2, &vreq, T0 + 1, &v, &err), SC_OK);
    assert_true(json_is_true(json_object_get(v->data.other, "EbsOptimized"))); /* the source's */
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(v->data.other, "MetadataOptions"), "HttpTokens")),
                        "optional");
    assert_null(json_object_get(json_object_get(v->data.other, "MetadataOptions"),
                                "HttpPutResponseHopLimit")); /* a whole member replaced */
    saved = sc_ec2_save(ec2);
    assert_int_equal(sc_ec2_load(again, saved, &err), SC_OK);
    assert_int_equal(sc_ec2_resolve_launch_template(again, NULL, "web-lt", "1", &v, &err), SC_OK);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(v->data.other, "MetadataOptions"),
                                           "HttpPutResponseHopLimit")),
        2);
    json_decref(second);
    json_decref(saved);
    sc_ec2_destroy(again);
    sc_ec2_destroy(ec2);
}

static void test_ec2_launch_template_errors(void **state)
{
    struct sc_ec2 *ec2 = mk();
    struct sc_ec2_lt_create_req req = { 0 };
    const struct sc_ec2_launch_template *t;
    const struct sc_ec2_lt_version *v;
    struct sc_ec2_lt_deleted del;
    struct sc_error err = { 0 };
    static const char *const bad_names[] = { "ab", "has space", "star*", "" };
    char id[SC_EC2_ID_LEN];

    (void)state;
    for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
        req.launch_template_name = bad_names[i];
        assert_int_equal(sc_ec2_create_launch_template(ec2, &req, T0, &t, &err),
                         SC_ERR_LAUNCH_TEMPLATE_NAME_MALFORMED);
    }
    req.launch_template_name = "lt-one";
    assert_int_equal(sc_ec2_create_launch_template(ec2, &req, T0, &t, &err), SC_OK);
    strcpy(id, t->launch_template_id);
    assert_int_equal(sc_ec2_create_launch_template(ec2, &req, T0, &t, &err),
                     SC_ERR_LAUNCH_TEMPLATE_EXISTS);
    assert_string_equal(sc_status_code(err.status),
                        "InvalidLaunchTemplateName.AlreadyExistsException");
    assert_string_equal(err.message, "Launch template name already in use.");
    req.launch_template_name = "lt-two";
    req.data.instance_type = "m9.huge";
    assert_int_equal(sc_ec2_create_launch_template(ec2, &req, T0, &t, &err),
                     SC_ERR_INVALID_PARAMETER_VALUE);

    assert_int_equal(sc_ec2_resolve_launch_template(ec2, NULL, "nope", NULL, &v, &err),
                     SC_ERR_LAUNCH_TEMPLATE_NOT_FOUND);
    assert_string_equal(err.message,
                        "The specified launch template, with template name nope, does not exist.");
    assert_int_equal(
        sc_ec2_resolve_launch_template(ec2, "lt-0000000000000000a", NULL, NULL, &v, &err),
        SC_ERR_LAUNCH_TEMPLATE_ID_NOT_FOUND);
    assert_int_equal(sc_ec2_resolve_launch_template(ec2, "lt-zz", NULL, NULL, &v, &err),
                     SC_ERR_LAUNCH_TEMPLATE_ID_MALFORMED);
    assert_int_equal(sc_ec2_resolve_launch_template(ec2, id, NULL, "7", &v, &err),
                     SC_ERR_LAUNCH_TEMPLATE_VERSION_NOT_FOUND);
    assert_non_null(strstr(err.message, "Could not find the specified version 7 for the launch "
                                        "template with ID lt-"));
    assert_int_equal(sc_ec2_resolve_launch_template(ec2, id, "lt-one", NULL, &v, &err),
                     SC_ERR_INVALID_PARAMETER_COMBINATION);
    assert_int_equal(sc_ec2_resolve_launch_template(ec2, NULL, NULL, NULL, &v, &err),
                     SC_ERR_MISSING_PARAMETER);

    assert_int_equal(sc_ec2_delete_launch_template(ec2, NULL, "lt-one", T0, &del, &err), SC_OK);
    assert_string_equal(del.launch_template_id, id);
    assert_string_equal(del.launch_template_name, "lt-one");
    assert_int_equal(sc_ec2_launch_template_count(ec2), 0);
    assert_int_equal(sc_ec2_delete_launch_template(ec2, id, NULL, T0, &del, &err),
                     SC_ERR_LAUNCH_TEMPLATE_ID_NOT_FOUND);
    sc_ec2_destroy(ec2);
}

static void test_ec2_describe_launch_templates_unknown_name(void **state)
{
    struct sc_ec2 *ec2 = mk();
    struct sc_ec2_lt_create_req req = { 0 };
    const struct sc_ec2_launch_template *out[4];
    const char *names[] = { "aaa", "zzz" };
    struct sc_error err = { 0 };
    int n;

    (void)state;
    req.launch_template_name = "aaa";
    sc_ec2_create_launch_template(ec2, &req, T0, NULL, &err);
    req.launch_template_name = "bbb";
    sc_ec2_create_launch_template(ec2, &req, T0, NULL, &err);
    assert_int_equal(
        sc_ec2_describe_launch_templates(ec2, NULL, 0, names, 1, NULL, 0, out, &n, &err), SC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(
        sc_ec2_describe_launch_templates(ec2, NULL, 0, NULL, 0, NULL, 0, out, &n, &err), SC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(
        sc_ec2_describe_launch_templates(ec2, NULL, 0, names, 2, NULL, 0, out, &n, &err),
        SC_ERR_LAUNCH_TEMPLATE_NOT_FOUND);
    assert_string_equal(err.message, "At least one of the launch templates specified in the "
                                     "request does not exist.");
    sc_ec2_destroy(ec2);
}

static void test_ec2_run_instances_from_launch_template(void **state)
{
    struct sc_ec2 *ec2 = mk();
    struct sc_ec2_lt_create_req req = { 0 };
    struct sc_ec2_tag ltag = { "app", "shop" };
    struct sc_ec2_run_req run_req = { 0 };
    const struct sc_ec2_reservation *r;
    struct sc_error err = { 0 };

    (void)state;
    req.launch_template_name = "shop";
    req.data.image_id = "ami-0c02fb55956c7d316";
    req.data.instance_type = "c5.large";
    req.data.tags = &ltag;
    req.data.ntags = 1;
    assert_int_equal(sc_ec2_create_launch_template(ec2, &req, T0, NULL, &err), SC_OK);
    run_req.launch_template_name = "shop";
    run_req.launch_template_version = "$Latest";
    run_req.min_count = run_req.max_count = 1;
    assert_int_equal(sc_ec2_run_instances(ec2, &run_req, T0, &r, &err), SC_OK);
    assert_string_equal(r->instances[0]->image_id, "ami-0c02fb55956c7d316");
    assert_string_equal(r->instances[0]->instance_type, "c5.large");
    assert_string_equal(r->instances[0]->launch_template_name, "shop");
    assert_int_equal(r->instances[0]->launch_template_version, 1);
    assert_string_equal(sc_ec2_instance_tag(r->instances[0], "app"), "shop");
    run_req.launch_template_name = "nope";
    assert_int_equal(sc_ec2_run_instances(ec2, &run_req, T0, &r, &err),
                     SC_ERR_LAUNCH_TEMPLATE_NOT_FOUND);
    sc_ec2_destroy(ec2);
}

static void test_ec2_create_vpc_and_subnet(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const struct sc_ec2_vpc *v;
    const struct sc_ec2_subnet *s;
    struct sc_error err = { 0 };
    char vid[SC_EC2_ID_LEN];
    static const char *const bad_vpc[] = { "10.0.0.0/8", "10.0.0.0/29",  "10.0.0.1/16",
                                           "10.0.0/16",  "300.0.0.0/16", "10.0.0.0",
                                           "x" };

    (void)state;
    for (size_t i = 0; i < sizeof(bad_vpc) / sizeof(bad_vpc[0]); i++)
        assert_int_equal(sc_ec2_create_vpc(ec2, bad_vpc[i], NULL, 0, T0, &v, &err),
                         SC_ERR_VPC_RANGE);
    assert_string_equal(err.message, "The CIDR 'x' is invalid.");
    assert_int_equal(sc_ec2_create_vpc(ec2, "10.0.0.0/16", NULL, 0, T0, &v, &err), SC_OK);
    assert_false(v->is_default);
    strcpy(vid, v->vpc_id);
    assert_int_equal(
        sc_ec2_create_subnet(ec2, vid, "10.0.1.0/24", "us-east-1b", NULL, 0, T0, &s, &err), SC_OK);
    assert_string_equal(s->availability_zone, "us-east-1b");
    assert_int_equal(s->available_ip_address_count, 251);
    assert_false(s->default_for_az);
    assert_int_equal(sc_ec2_create_subnet(ec2, vid, "10.0.1.128/25", NULL, NULL, 0, T0, &s, &err),
                     SC_ERR_SUBNET_CONFLICT);
    assert_int_equal(sc_ec2_create_subnet(ec2, vid, "10.1.0.0/24", NULL, NULL, 0, T0, &s, &err),
                     SC_ERR_SUBNET_RANGE);
    assert_int_equal(
        sc_ec2_create_subnet(ec2, vid, "10.0.2.0/24", "us-east-1z", NULL, 0, T0, &s, &err),
        SC_ERR_INVALID_PARAMETER_VALUE);
    assert_int_equal(sc_ec2_create_subnet(ec2, "vpc-00000000000000000", "10.0.2.0/24", NULL, NULL,
                                          0, T0, &s, &err),
                     SC_ERR_VPC_NOT_FOUND);
    assert_string_equal(err.message, "The vpc ID 'vpc-00000000000000000' does not exist");
    sc_ec2_destroy(ec2);
}

static void test_ec2_describe_vpcs_and_subnets_filters(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const struct sc_ec2_vpc *vo[8], *v;
    const struct sc_ec2_subnet *so[8];
    const char *yes[] = { "true" };
    const char *zone[] = { "us-east-1c" };
    const char *bad_subnet[] = { "subnet-00000000000000000" };
    struct sc_ec2_filter f;
    struct sc_error err = { 0 };
    int n;

    (void)state;
    sc_ec2_create_vpc(ec2, "10.0.0.0/16", NULL, 0, T0, &v, &err);
    assert_int_equal(sc_ec2_describe_vpcs(ec2, NULL, 0, NULL, 0, vo, &n, &err), SC_OK);
    assert_int_equal(n, 2);
    f = (struct sc_ec2_filter){ "is-default", yes, 1 };
    sc_ec2_describe_vpcs(ec2, NULL, 0, &f, 1, vo, &n, &err);
    assert_int_equal(n, 1);
    assert_true(vo[0]->is_default);
    f = (struct sc_ec2_filter){ "availability-zone", zone, 1 };
    assert_int_equal(sc_ec2_describe_subnets(ec2, NULL, 0, &f, 1, so, &n, &err), SC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(so[0]->availability_zone, "us-east-1c");
    f = (struct sc_ec2_filter){ "default-for-az", yes, 1 };
    sc_ec2_describe_subnets(ec2, NULL, 0, &f, 1, so, &n, &err);
    assert_int_equal(n, 3);
    /* the camel-case aliases AWS takes as well */
    f = (struct sc_ec2_filter){ "availabilityZone", zone, 1 };
    assert_int_equal(sc_ec2_describe_subnets(ec2, NULL, 0, &f, 1, so, &n, &err), SC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(so[0]->availability_zone, "us-east-1c");
    f = (struct sc_ec2_filter){ "defaultForAz", yes, 1 };
    assert_int_equal(sc_ec2_describe_subnets(ec2, NULL, 0, &f, 1, so, &n, &err), SC_OK);
    assert_int_equal(n, 3);
    f = (struct sc_ec2_filter){ "availabilityZone_x", zone, 1 };
    assert_int_equal(sc_ec2_describe_subnets(ec2, NULL, 0, &f, 1, so, &n, &err),
                     SC_ERR_INVALID_PARAMETER_VALUE);
    assert_int_equal(sc_ec2_describe_subnets(ec2, bad_subnet, 1, NULL, 0, so, &n, &err),
                     SC_ERR_SUBNET_NOT_FOUND);
    assert_string_equal(err.message, "The subnet ID 'subnet-00000000000000000' does not exist");
    sc_ec2_destroy(ec2);
}

static void test_ec2_create_and_delete_tags(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const char *id = first_id(ec2);
    const char *ids[] = { id, sc_ec2_default_vpc(ec2)->vpc_id };
    struct sc_ec2_tag t[] = { { "Name", "a" }, { "env", "dev" } };
    struct sc_ec2_tag reserved = { "aws:x", "1" };
    struct sc_ec2_tag del_wrong = { "Name", "b" }, del_any = { "env", NULL };
    const char *missing[] = { "i-0000000000000000a" };
    struct sc_error err = { 0 };

    (void)state;
    assert_int_equal(sc_ec2_create_tags(ec2, ids, 2, t, 2, T0, &err), SC_OK);
    assert_int_equal(sc_ec2_instance_find(ec2, id)->ntags, 2);
    assert_int_equal(sc_ec2_default_vpc(ec2)->ntags, 2);
    assert_int_equal(sc_ec2_create_tags(ec2, ids, 1, &reserved, 1, T0, &err),
                     SC_ERR_INVALID_PARAMETER_VALUE);
    assert_int_equal(sc_ec2_create_tags(ec2, missing, 1, t, 1, T0, &err),
                     SC_ERR_INSTANCE_ID_NOT_FOUND);
    assert_int_equal(sc_ec2_delete_tags(ec2, ids, 1, &del_wrong, 1, T0, &err), SC_OK);
    assert_string_equal(sc_ec2_instance_tag(sc_ec2_instance_find(ec2, id), "Name"), "a");
    assert_int_equal(sc_ec2_delete_tags(ec2, ids, 1, &del_any, 1, T0, &err), SC_OK);
    assert_null(sc_ec2_instance_tag(sc_ec2_instance_find(ec2, id), "env"));
    sc_ec2_destroy(ec2);
}

static void test_ec2_default_security_group_per_vpc(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const struct sc_ec2_security_group *out[4];
    const struct sc_ec2_vpc *v;
    const char *names[] = { "default" };
    const char *bad_names[] = { "web" };
    const char *bad_ids[] = { "sg-00000000000000000" };
    struct sc_error err = { 0 };
    char vpc_id[SC_EC2_ID_LEN];
    int n;

    (void)state;
    assert_int_equal(sc_ec2_security_group_count(ec2), 1);
    assert_string_equal(sc_ec2_security_group_at(ec2, 0)->group_name, "default");
    assert_string_equal(sc_ec2_security_group_at(ec2, 0)->vpc_id, sc_ec2_default_vpc(ec2)->vpc_id);
    assert_int_equal(strncmp(sc_ec2_security_group_at(ec2, 0)->group_id, "sg-0", 4), 0);
    sc_ec2_create_vpc(ec2, "10.0.0.0/16", NULL, 0, T0, &v, &err);
    strcpy(vpc_id, v->vpc_id);
    assert_int_equal(sc_ec2_security_group_count(ec2), 2);
    assert_int_equal(
        sc_ec2_describe_security_groups(ec2, NULL, 0, names, 1, NULL, 0, out, &n, &err), SC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(out[0]->vpc_id, sc_ec2_default_vpc(ec2)->vpc_id);
    assert_int_equal(
        sc_ec2_describe_security_groups(ec2, NULL, 0, bad_names, 1, NULL, 0, out, &n, &err),
        SC_ERR_SECURITY_GROUP_NOT_FOUND);
    assert_int_equal(
        sc_ec2_describe_security_groups(ec2, bad_ids, 1, NULL, 0, NULL, 0, out, &n, &err),
        SC_ERR_SECURITY_GROUP_NOT_FOUND);
    assert_string_equal(err.message, "The security group 'sg-00000000000000000' does not exist");
    assert_non_null(sc_ec2_security_group_find(ec2, sc_ec2_security_group_at(ec2, 1)->group_id));
    sc_ec2_destroy(ec2);
}

static void test_ec2_describe_tags_rows_and_filters(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const char *id = first_id(ec2);
    const char *ids[] = { id, sc_ec2_default_vpc(ec2)->vpc_id };
    struct sc_ec2_tag t[] = { { "Name", "a" }, { "env", "dev" } };
    struct sc_ec2_tag_row rows[8];
    const char *vpc[] = { "vpc" };
    const char *env[] = { "env" };
    struct sc_ec2_filter f;
    struct sc_error err = { 0 };
    int n;

    (void)state;
    sc_ec2_create_tags(ec2, ids, 2, t, 2, T0, &err);
    assert_int_equal(sc_ec2_describe_tags(ec2, NULL, 0, rows, 8, &n, &err), SC_OK);
    assert_int_equal(n, 4);
    assert_string_equal(rows[0].resource_id, id);
    assert_string_equal(rows[0].resource_type, "instance");
    assert_string_equal(rows[1].key, "env");
    assert_string_equal(rows[2].resource_type, "vpc");
    assert_int_equal(sc_ec2_describe_tags(ec2, NULL, 0, rows, 1, &n, &err), SC_OK);
    assert_int_equal(n, 4); /* total beyond cap */
    f = (struct sc_ec2_filter){ "resource-type", vpc, 1 };
    sc_ec2_describe_tags(ec2, &f, 1, rows, 8, &n, &err);
    assert_int_equal(n, 2);
    f = (struct sc_ec2_filter){ "key", env, 1 };
    sc_ec2_describe_tags(ec2, &f, 1, rows, 8, &n, &err);
    assert_int_equal(n, 2);
    f = (struct sc_ec2_filter){ "colour", env, 1 };
    assert_int_equal(sc_ec2_describe_tags(ec2, &f, 1, rows, 8, &n, &err),
                     SC_ERR_INVALID_PARAMETER_VALUE);
    sc_ec2_destroy(ec2);
}

static void test_ec2_instance_lookup_survives_purge_churn(void **state)
{
    static char ids[600][SC_EC2_ID_LEN];
    struct sc_ec2 *ec2 = mk();
    struct sc_error err = { 0 };
    int n = 0;

    (void)state;
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 300; i++, n++)
            strcpy(ids[n], first_id(ec2));
        /* terminate every third (of everything so far) and let retention purge them */
        for (int i = 0; i < n; i += 3) {
            const char *id = ids[i];

            if (!sc_ec2_instance_find(ec2, id))
                continue;
            assert_int_equal(sc_ec2_terminate_instances(ec2, &id, 1, T0, NULL, &err), SC_OK);
            sc_ec2_instance_terminated(ec2, id, T0);
        }
        sc_ec2_step(ec2, T0 + 3600000);
        for (int i = 0; i < n; i++) {
            const struct sc_ec2_instance *in = sc_ec2_instance_find(ec2, ids[i]);

            if (i % 3 == 0) {
                assert_null(in);
            } else {
                assert_non_null(in);
                assert_string_equal(in->instance_id, ids[i]);
            }
        }
    }
    assert_int_equal(sc_ec2_instance_count(ec2), 400);
    sc_ec2_destroy(ec2);
}

/* Every call that changes an instance record moves sc_ec2_generation(); reads and the
 * step with nothing due leave it. */
#define BUMPS(ec2, g, call)                                                                        \
    do {                                                                                           \
        call;                                                                                      \
        assert_true(sc_ec2_generation(ec2) > (g));                                                 \
        (g) = sc_ec2_generation(ec2);                                                              \
    } while (0)

static void test_ec2_generation_moves_with_every_instance_change(void **state)
{
    struct sc_ec2_config cfg = { 0 };
    struct sc_ec2 *ec2, *copy;
    struct sc_error err = { 0 };
    struct sc_ec2_tag tag = { "Name", "web" };
    char a[SC_EC2_ID_LEN], b[SC_EC2_ID_LEN];
    const char *pa = a, *pb = b;
    const char *gone[4];
    uint64_t g, g0;
    json_t *saved;

    (void)state;
    cfg.seed = 7;
    cfg.status_init_ms = 60000;
    ec2 = sc_ec2_create(&cfg);
    assert_non_null(ec2);
    g = sc_ec2_generation(ec2);
    assert_true(g > 0);

    BUMPS(ec2, g, strcpy(a, first_id(ec2)));
    BUMPS(ec2, g, strcpy(b, first_id(ec2)));
    /* reads, and a step with nothing due, change nothing */
    assert_non_null(sc_ec2_instance_find(ec2, a));
    assert_int_equal(sc_ec2_instance_count(ec2), 2);
    sc_ec2_step(ec2, T0 + 1000);
    assert_true(sc_ec2_generation(ec2) == g);

    BUMPS(ec2, g, sc_ec2_instance_running(ec2, a, T0 + 1000));
    BUMPS(ec2, g, sc_ec2_instance_running(ec2, b, T0 + 1000));
    /* status checks leave initializing */
    assert_int_equal(sc_ec2_next_due_ms(ec2, T0 + 1000), T0 + 61000);
    BUMPS(ec2, g, sc_ec2_step(ec2, T0 + 61000));
    assert_int_equal(sc_ec2_instance_find(ec2, a)->instance_status, SC_EC2_CHECK_OK);
    sc_ec2_step(ec2, T0 + 62000);
    assert_true(sc_ec2_generation(ec2) == g);

    BUMPS(ec2, g, sc_ec2_instance_set_impaired(ec2, a, 1, T0 + 62000));
    BUMPS(ec2, g, sc_ec2_instance_set_impaired(ec2, a, 0, T0 + 63000));
    BUMPS(ec2, g, sc_ec2_create_tags(ec2, &pa, 1, &tag, 1, T0, &err));
    BUMPS(ec2, g, sc_ec2_delete_tags(ec2, &pa, 1, &tag, 1, T0, &err));
    BUMPS(ec2, g, sc_ec2_stop_instances(ec2, &pa, 1, T0 + 64000, NULL, &err));
    BUMPS(ec2, g, sc_ec2_instance_stopped(ec2, a, T0 + 65000));
    BUMPS(ec2, g, sc_ec2_start_instances(ec2, &pa, 1, T0 + 66000, NULL, &err));
    BUMPS(ec2, g, sc_ec2_instance_running(ec2, a, T0 + 67000));
    BUMPS(ec2, g, sc_ec2_instance_lost(ec2, a, T0 + 68000));
    BUMPS(ec2, g, sc_ec2_terminate_instances(ec2, &pb, 1, T0 + 69000, NULL, &err));
    BUMPS(ec2, g, sc_ec2_instance_terminated(ec2, b, T0 + 70000));
    BUMPS(ec2, g, strcpy(a, first_id(ec2)));
    BUMPS(ec2, g,
          sc_ec2_zone_outage(ec2, sc_ec2_instance_find(ec2, a)->availability_zone, T0 + 71000, gone,
                             4));
    /* retention purges the terminated ones */
    BUMPS(ec2, g, sc_ec2_step(ec2, T0 + 71000 + 3600000));
    assert_int_equal(sc_ec2_instance_count(ec2), 0);
    sc_ec2_step(ec2, T0 + 72000 + 3600000);
    assert_true(sc_ec2_generation(ec2) == g);

    /* loading records is a change too */
    strcpy(a, first_id(ec2));
    saved = sc_ec2_save(ec2);
    assert_non_null(saved);
    copy = sc_ec2_create(&cfg);
    assert_non_null(copy);
    g0 = sc_ec2_generation(copy);
    BUMPS(copy, g0, assert_int_equal(sc_ec2_load(copy, saved, &err), SC_OK));
    json_decref(saved);
    sc_ec2_destroy(copy);
    sc_ec2_destroy(ec2);
}

/* The errors several calls share keep AWS's codes and words on every path that gives them. */
static void test_ec2_shared_errors_keep_their_words(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const char *id = first_id(ec2);
    const char *ids[] = { id };
    const char *vpc[] = { "vpc-0000000000000000a" };
    const char *subnet[] = { "subnet-0000000000000000a" };
    const char *zone[] = { "us-east-1q" };
    const char *lt_bad[] = { "lt-zz" };
    const char *lt_none[] = { "lt-0000000000000000a" };
    const char *ami_bad[] = { "ami-zz" };
    const char *ami_none[] = { "ami-0000000a" };
    const struct sc_ec2_tag tag = { "k", "v" };
    struct sc_ec2_run_req run_req = { 0 };
    struct sc_ec2_lt_create_req lt_req = { 0 };
    struct sc_ec2_lt_version_req ver_req = { 0 };
    const struct sc_ec2_launch_template *t;
    const struct sc_ec2_vpc *vo[4];
    const struct sc_ec2_subnet *so[4];
    const struct sc_ec2_zone *zo[4];
    const struct sc_ec2_launch_template *to[4];
    const struct sc_ec2_image *io[8];
    struct sc_ec2_state_change ch[1];
    struct sc_error err = { 0 };
    char long_desc[300];
    char msg[SC_ERR_MESSAGE_LEN];
    int n;

    (void)state;
    /* Terminate/Stop/StartInstances */
    assert_int_equal(sc_ec2_stop_instances(ec2, NULL, 0, T0, ch, &err), SC_ERR_MISSING_PARAMETER);
    assert_string_equal(err.message, "The request must contain the parameter InstanceId");
    assert_int_equal(sc_ec2_terminate_instances(ec2, ids, 1, T0, ch, &err), SC_OK);
    assert_int_equal(ch[0].previous, SC_EC2_PENDING);
    assert_int_equal(ch[0].current, SC_EC2_SHUTTING_DOWN);
    assert_string_equal(sc_ec2_instance_find(ec2, id)->state_transition_reason,
                        "User initiated (2026-01-01 00:00:00 GMT)");
    assert_string_equal(sc_ec2_instance_find(ec2, id)->state_reason_message,
                        "Client.UserInitiatedShutdown: User initiated shutdown");
    assert_int_equal(sc_ec2_stop_instances(ec2, ids, 1, T0, ch, &err),
                     SC_ERR_INCORRECT_INSTANCE_STATE);
    snprintf(msg, sizeof(msg), "This instance '%s' is not in a state from which it can be stopped.",
             id);
    assert_string_equal(err.message, msg);
    assert_int_equal(sc_ec2_start_instances(ec2, ids, 1, T0, ch, &err),
                     SC_ERR_INCORRECT_INSTANCE_STATE);
    snprintf(msg, sizeof(msg), "The instance '%s' is not in a state from which it can be started.",
             id);
    assert_string_equal(err.message, msg);
    /* the data plane's reports */
    assert_int_equal(sc_ec2_instance_stopped(ec2, id, T0), SC_ERR_INCORRECT_INSTANCE_STATE);
    assert_int_equal(sc_ec2_instance_terminated(ec2, "i-0000000000000000a", T0),
                     SC_ERR_INSTANCE_ID_NOT_FOUND);
    assert_int_equal(sc_ec2_instance_terminated(ec2, id, T0 + 1), SC_OK);
    assert_int_equal(sc_ec2_instance_terminated(ec2, id, T0 + 2), SC_OK);
    assert_int_equal(sc_ec2_instance_find(ec2, id)->state_changed_ms, T0 + 1);

    /* an unknown VPC: CreateSubnet, DescribeVpcs, CreateTags */
    assert_int_equal(
        sc_ec2_create_subnet(ec2, vpc[0], "10.0.0.0/24", NULL, NULL, 0, T0, NULL, &err),
        SC_ERR_VPC_NOT_FOUND);
    assert_string_equal(err.message, "The vpc ID 'vpc-0000000000000000a' does not exist");
    memset(&err, 0, sizeof(err));
    assert_int_equal(sc_ec2_describe_vpcs(ec2, vpc, 1, NULL, 0, vo, &n, &err),
                     SC_ERR_VPC_NOT_FOUND);
    assert_string_equal(err.message, "The vpc ID 'vpc-0000000000000000a' does not exist");
    memset(&err, 0, sizeof(err));
    assert_int_equal(sc_ec2_create_tags(ec2, vpc, 1, &tag, 1, T0, &err), SC_ERR_VPC_NOT_FOUND);
    assert_string_equal(err.message, "The vpc ID 'vpc-0000000000000000a' does not exist");

    /* an unknown subnet: RunInstances, DescribeSubnets, CreateTags */
    run_req.image_id = "ami-12c6146b";
    run_req.min_count = run_req.max_count = 1;
    run_req.subnet_id = subnet[0];
    assert_int_equal(sc_ec2_run_instances(ec2, &run_req, T0, NULL, &err), SC_ERR_SUBNET_NOT_FOUND);
    assert_string_equal(err.message, "The subnet ID 'subnet-0000000000000000a' does not exist");
    memset(&err, 0, sizeof(err));
    assert_int_equal(sc_ec2_describe_subnets(ec2, subnet, 1, NULL, 0, so, &n, &err),
                     SC_ERR_SUBNET_NOT_FOUND);
    assert_string_equal(err.message, "The subnet ID 'subnet-0000000000000000a' does not exist");
    memset(&err, 0, sizeof(err));
    assert_int_equal(sc_ec2_delete_tags(ec2, subnet, 1, &tag, 1, T0, &err),
                     SC_ERR_SUBNET_NOT_FOUND);
    assert_string_equal(err.message, "The subnet ID 'subnet-0000000000000000a' does not exist");

    /* an unknown zone: RunInstances, DescribeAvailabilityZones */
    run_req.subnet_id = NULL;
    run_req.availability_zone = zone[0];
    assert_int_equal(sc_ec2_run_instances(ec2, &run_req, T0, NULL, &err),
                     SC_ERR_INVALID_PARAMETER_VALUE);
    assert_string_equal(err.message, "Invalid availability zone: [us-east-1q]");
    memset(&err, 0, sizeof(err));
    assert_int_equal(sc_ec2_describe_zones(ec2, zone, 1, NULL, 0, zo, &n, &err),
                     SC_ERR_INVALID_PARAMETER_VALUE);
    assert_string_equal(err.message, "Invalid availability zone: [us-east-1q]");

    /* launch-template ids: DescribeLaunchTemplates, CreateTags, RunInstances */
    assert_int_equal(
        sc_ec2_describe_launch_templates(ec2, lt_bad, 1, NULL, 0, NULL, 0, to, &n, &err),
        SC_ERR_LAUNCH_TEMPLATE_ID_MALFORMED);
    assert_string_equal(err.message,
                        "The specified ID for the launch template 'lt-zz' is not valid. The ID "
                        "must be in the form 'lt-' followed by 17 hexadecimal characters.");
    assert_int_equal(sc_ec2_create_tags(ec2, lt_none, 1, &tag, 1, T0, &err),
                     SC_ERR_LAUNCH_TEMPLATE_ID_NOT_FOUND);
    assert_string_equal(
        err.message,
        "The specified launch template, with template ID lt-0000000000000000a, does not exist.");
    memset(&err, 0, sizeof(err));
    run_req.availability_zone = NULL;
    run_req.launch_template_id = lt_none[0];
    assert_int_equal(sc_ec2_run_instances(ec2, &run_req, T0, NULL, &err),
                     SC_ERR_LAUNCH_TEMPLATE_ID_NOT_FOUND);
    assert_string_equal(
        err.message,
        "The specified launch template, with template ID lt-0000000000000000a, does not exist.");

    /* DescribeImages: malformed before unknown */
    assert_int_equal(sc_ec2_describe_images(ami_bad, 1, NULL, 0, io, &n, &err),
                     SC_ERR_AMI_ID_MALFORMED);
    assert_string_equal(err.message, "Invalid id: \"ami-zz\" (expecting \"ami-...\")");
    assert_int_equal(sc_ec2_describe_images(ami_none, 1, NULL, 0, io, &n, &err),
                     SC_ERR_AMI_ID_NOT_FOUND);
    assert_string_equal(err.message, "The image id '[ami-0000000a]' does not exist");

    /* a version description over 255 characters, on both calls that make versions */
    memset(long_desc, 'd', 256);
    long_desc[256] = '\0';
    lt_req.launch_template_name = "web";
    lt_req.version_description = long_desc;
    assert_int_equal(sc_ec2_create_launch_template(ec2, &lt_req, T0, &t, &err),
                     SC_ERR_INVALID_PARAMETER_VALUE);
    assert_string_equal(err.message, "Version description must be 255 characters or fewer.");
    lt_req.version_description = NULL;
    assert_int_equal(sc_ec2_create_launch_template(ec2, &lt_req, T0, &t, &err), SC_OK);
    memset(&err, 0, sizeof(err));
    ver_req.launch_template_name = "web";
    ver_req.version_description = long_desc;
    assert_int_equal(sc_ec2_create_launch_template_version(ec2, &ver_req, T0, NULL, &err),
                     SC_ERR_INVALID_PARAMETER_VALUE);
    assert_string_equal(err.message, "Version description must be 255 characters or fewer.");
    sc_ec2_destroy(ec2);
}

/* --- security groups and network interfaces (docs/elb-classic.md 2-3) ------------------------ */

static const char *mk_sg(struct sc_ec2 *ec2, const char *name, const char *vpc)
{
    static char ids[8][SC_EC2_ID_LEN];
    static int next;
    const struct sc_ec2_security_group *g = NULL;
    struct sc_error err = { 0 };
    char *id = ids[next++ % 8];

    assert_int_equal(
        sc_ec2_create_security_group(ec2, name, "test group", vpc, NULL, 0, T0, &g, &err), SC_OK);
    strcpy(id, g->group_id);
    return id;
}

static struct sc_ec2_sg_rule_req tcp_rule(int from, int to, const char *cidr)
{
    struct sc_ec2_sg_rule_req r = { 0 };

    r.ip_protocol = "tcp";
    r.has_from_port = r.has_to_port = 1;
    r.from_port = from;
    r.to_port = to;
    r.peer_kind = SC_EC2_PEER_CIDR;
    r.peer = cidr;
    return r;
}

static void test_ec2_security_group_default_group_rules(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const struct sc_ec2_security_group *g = sc_ec2_security_group_at(ec2, 0);

    (void)state;
    assert_string_equal(g->description, "default VPC security group");
    assert_int_equal(g->ningress, 1);
    assert_string_equal(g->ingress[0].ip_protocol, "-1");
    assert_int_equal(g->ingress[0].peer_kind, SC_EC2_PEER_GROUP);
    assert_string_equal(g->ingress[0].peer, g->group_id); /* from itself */
    assert_int_equal(g->negress, 1);
    assert_string_equal(g->egress[0].peer, "0.0.0.0/0");
    sc_ec2_destroy(ec2);
}

static void test_ec2_security_group_create_errors(void **state)
{
    struct sc_ec2 *ec2 = mk();
    const struct sc_ec2_security_group *g = NULL;
    struct sc_error err = { 0 };
    const struct sc_ec2_tag tag = { "Name", "web" };
    int n0 = sc_ec2_security_group_count(ec2);

    (void)state;
    assert_int_equal(sc_ec2_create_security_group(ec2, "web", NULL, NULL, NULL, 0, T0, &g, &err),
                     SC_ERR_MISSING_PARAMETER);
    assert_string_equal(err.message, "The request must contain the parameter groupDescription");
    assert_int_equal(
        sc_ec2_create_security_group(ec2, "sg-017c251", "x", NULL, NULL, 0, T0, &g, &err),
        SC_ERR_INVALID_PARAMETER_VALUE);
    assert_string_equal(err.message, "Value (sg-017c251) for parameter GroupName is invalid. Group "
                                     "names may not be in the format sg-*.");
    assert_int_equal(sc_ec2_create_security_group(ec2, "default", "x", NULL, NULL, 0, T0, &g, &err),
                     SC_ERR_SECURITY_GROUP_RESERVED);
    assert_int_equal(sc_ec2_create_security_group(ec2, "web", "x", "vpc-0123456789abcdef0", NULL, 0,
                                                  T0, &g, &err),
                     SC_ERR_VPC_NOT_FOUND);
    assert_int_equal(sc_ec2_security_group_count(ec2), n0);
    assert_int_equal(sc_ec2_create_security_group(ec2, "web", "x", NULL, &tag, 1, T0, &g, &err),
                     SC_OK);
    assert_int_equal(strncmp(g->group_id, "sg-0", 4), 0);
    assert_int_equal(g->ntags, 1);
    assert_int_equal(g->ningress, 0);
    assert_int_equal(g->negress, 1); /* the all-traffic egress every new group has */
    assert_string_equal(g->egress[0].ip_protocol, "-1");
    assert_int_equal(sc_ec2_create_security_group(ec2, "web", "x", NULL, NULL, 0, T0, &g, &err),
                     SC_ERR_SECURITY_GROUP_DUPLICATE);
    assert_string_equal(sc_status_code(err.status), "InvalidGroup.Duplicate");
    assert_non_null(strstr(err.message, "The security group 'web' already exists for VPC 'vpc-"));
    assert_non_null(sc_ec2_security_group_by_name(ec2, NULL, "web"));
    sc_ec2_destroy(ec2);
}

static void test_ec2_security_group_delete_errors(void **state)
{
    struct sc_ec2 *ec2 = mk();
    struct sc_error err = { 0 };
    const char *a = mk_sg(ec2, "a", NULL);
    const char *b = mk_sg(ec2, "b", NULL);
    const char *subnet = sc_ec2_subnet_at(ec2, 0)->subnet_id;
    struct sc_ec2_sg_rule_req from_a = { 0 };
    char got[SC_EC2_ID_LEN] = "";
    char want[64];

    (void)state;
    assert_int_equal(sc_ec2_delete_security_group(ec2, NULL, NULL, T0, NULL, &err),
                     SC_ERR_MISSING_PARAMETER);
    assert_int_equal(
        sc_ec2_delete_security_group(ec2, "tcp_elb_security_group", NULL, T0, NULL, &err),
        SC_ERR_SECURITY_GROUP_ID_MALFORMED);
    assert_string_equal(err.message,
                        "Invalid id: \"tcp_elb_security_group\" (expecting \"sg-...\")");
    assert_int_equal(
        sc_ec2_delete_security_group(ec2, "sg-0123456789abcdef0", NULL, T0, NULL, &err),
        SC_ERR_SECURITY_GROUP_NOT_FOUND);
    assert_int_equal(sc_ec2_delete_security_group(ec2, NULL, "nope", T0, NULL, &err),
                     SC_ERR_SECURITY_GROUP_NOT_FOUND);
    assert_non_null(strstr(err.message, "does not exist in default VPC 'vpc-"));
    assert_int_equal(sc_ec2_delete_security_group(ec2, sc_ec2_security_group_at(ec2, 0)->group_id,
                                                  NULL, T0, NULL, &err),
                     SC_ERR_CANNOT_DELETE);
    assert_non_null(strstr(err.message, "name: \"default\" cannot be deleted by a user"));
    /* referenced by a rule of another group of the VPC */
    from_a.ip_protocol = "-1";
    from_a.peer_kind = SC_EC2_PEER_GROUP;
    from_a.peer = a;
    assert_int_equal(sc_ec2_security_group_rules(ec2, b, NULL, 0, 0, &from_a, 1, T0, &err), SC_OK);
    assert_int_equal(sc_ec2_delete_security_group(ec2, a, NULL, T0, NULL, &err),
                     SC_ERR_DEPENDENCY_VIOLATION);
    snprintf(want, sizeof(want), "resource %s has a dependent object", a);
    assert_string_equal(err.message, want);
    assert_int_equal(sc_ec2_security_group_rules(ec2, b, NULL, 0, 1, &from_a, 1, T0, &err), SC_OK);
    /* used by a network interface */
    assert_int_equal(
        sc_ec2_set_managed_interfaces(ec2, "ELB x", "amazon-elb", &subnet, 1, &a, 1, T0, &err),
        SC_OK);
    assert_int_equal(sc_ec2_delete_security_group(ec2, a, NULL, T0, NULL, &err),
                     SC_ERR_DEPENDENCY_VIOLATION);
    assert_int_equal(
        sc_ec2_set_managed_interfaces(ec2, "ELB x", "amazon-elb", NULL, 0, NULL, 0, T0, &err),
        SC_OK);
    assert_int_equal(sc_ec2_delete_security_group(ec2, NULL, "a", T0, got, &err), SC_OK);
    assert_null(sc_ec2_security_group_find(ec2, got));
    sc_ec2_destroy(ec2);
}

static void test_ec2_security_group_rules_authorize_revoke(void **state)
{
    struct sc_ec2 *ec2 = mk();
    struct sc_error err = { 0 };
    const char *g = mk_sg(ec2, "web", NULL);
    struct sc_ec2_sg_rule_req two[2] = { tcp_rule(80, 80, "0.0.0.0/0"),
                                         tcp_rule(2376, 2376, "0.0.0.0/0") };
    struct sc_ec2_sg_rule_req all = { 0 }, six = tcp_rule(22, 22, "10.0.0.0/8");
    struct sc_ec2_sg_rule_req noport = { 0 }, badcidr = tcp_rule(1, 2, "10.0.0.1/8");
    const struct sc_ec2_security_group *v;

    (void)state;
    assert_int_equal(sc_ec2_security_group_rules(ec2, g, NULL, 0, 0, two, 2, T0, &err), SC_OK);
    v = sc_ec2_security_group_find(ec2, g);
    assert_int_equal(v->ningress, 2);
    assert_int_equal(sc_ec2_security_group_rules(ec2, g, NULL, 0, 0, &two[1], 1, T0, &err),
                     SC_ERR_PERMISSION_DUPLICATE);
    assert_string_equal(err.message, "the specified rule \"peer: 0.0.0.0/0, TCP, from port: 2376, "
                                     "to port: 2376, ALLOW\" already exists");
    all.ip_protocol = "-1";
    all.peer_kind = SC_EC2_PEER_CIDR;
    all.peer = "0.0.0.0/0";
    assert_int_equal(sc_ec2_security_group_rules(ec2, g, NULL, 1, 0, &all, 1, T0, &err),
                     SC_ERR_PERMISSION_DUPLICATE);
    assert_string_equal(err.message,
                        "the specified rule \"peer: 0.0.0.0/0, ALL, ALLOW\" already exists");
    /* Terraform's first step: revoke the default egress rule */
    assert_int_equal(sc_ec2_security_group_rules(ec2, g, NULL, 1, 1, &all, 1, T0, &err), SC_OK);
    assert_int_equal(sc_ec2_security_group_find(ec2, g)->negress, 0);
    assert_int_equal(sc_ec2_security_group_rules(ec2, g, NULL, 1, 1, &all, 1, T0, &err),
                     SC_ERR_PERMISSION_NOT_FOUND);
    assert_string_equal(err.message, "The specified rule does not exist in this security group.");
    /* protocol numbers are shown by name; all or nothing */
    six.ip_protocol = "6";
    noport.ip_protocol = "udp";
    noport.peer_kind = SC_EC2_PEER_CIDR;
    noport.peer = "0.0.0.0/0";
    {
        struct sc_ec2_sg_rule_req mixed[2] = { six, noport };

        assert_int_equal(sc_ec2_security_group_rules(ec2, g, NULL, 0, 0, mixed, 2, T0, &err),
                         SC_ERR_INVALID_PARAMETER_VALUE);
        assert_string_equal(err.message, "Invalid value 'Must specify both from and to ports with "
                                         "TCP/UDP.' for portRange.");
    }
    assert_int_equal(sc_ec2_security_group_find(ec2, g)->ningress, 2);
    assert_int_equal(sc_ec2_security_group_rules(ec2, g, NULL, 0, 0, &badcidr, 1, T0, &err),
                     SC_ERR_INVALID_PARAMETER_VALUE);
    assert_int_equal(sc_ec2_security_group_rules(ec2, g, NULL, 0, 0, &six, 1, T0, &err), SC_OK);
    v = sc_ec2_security_group_find(ec2, g);
    assert_string_equal(v->ingress[2].ip_protocol, "tcp");
    /* ingress by name in the default VPC */
    assert_int_equal(sc_ec2_security_group_rules(ec2, NULL, "web", 0, 1, &six, 1, T0, &err), SC_OK);
    assert_int_equal(sc_ec2_security_group_find(ec2, g)->ningress, 2);
    sc_ec2_destroy(ec2);
}

static void test_ec2_security_group_tags_and_filters(void **state)
{
    struct sc_ec2 *ec2 = mk();
    struct sc_error err = { 0 };
    const char *g = mk_sg(ec2, "web", NULL);
    const struct sc_ec2_tag tag = { "team", "lab" };
    const char *vals[] = { "lab" };
    const struct sc_ec2_filter by_tag = { "tag:team", vals, 1 };
    const struct sc_ec2_security_group *out[4];
    struct sc_ec2_tag_row rows[8];
    int n;

    (void)state;
    assert_int_equal(sc_ec2_create_tags(ec2, &g, 1, &tag, 1, T0, &err), SC_OK);
    assert_int_equal(
        sc_ec2_describe_security_groups(ec2, NULL, 0, NULL, 0, &by_tag, 1, out, &n, &err), SC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(out[0]->group_id, g);
    assert_int_equal(sc_ec2_describe_tags(ec2, NULL, 0, rows, 8, &n, &err), SC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].resource_type, "security-group");
    sc_ec2_destroy(ec2);
}

static void test_ec2_security_group_saved_and_old_state_loads(void **state)
{
    struct sc_ec2 *ec2 = mk(), *copy;
    struct sc_error err = { 0 };
    const char *g = mk_sg(ec2, "web", NULL);
    struct sc_ec2_sg_rule_req r = tcp_rule(443, 443, "10.0.0.0/8");
    struct sc_ec2_config cfg = { 0 };
    json_t *saved, *again;
    char *a, *b;

    (void)state;
    r.description = "https";
    assert_int_equal(sc_ec2_security_group_rules(ec2, g, NULL, 0, 0, &r, 1, T0, &err), SC_OK);
    saved = sc_ec2_save(ec2);
    cfg.seed = 42;
    copy = sc_ec2_create(&cfg);
    assert_int_equal(sc_ec2_load(copy, saved, &err), SC_OK);
    again = sc_ec2_save(copy);
    a = json_dumps(saved, JSON_SORT_KEYS);
    b = json_dumps(again, JSON_SORT_KEYS);
    assert_string_equal(a, b);
    free(a);
    free(b);
    json_decref(again);
    assert_string_equal(sc_ec2_security_group_find(copy, g)->ingress[0].description, "https");
    sc_ec2_destroy(copy);
    /* a file written before security groups were records: each VPC's default group */
    json_object_del(saved, "security_groups");
    copy = sc_ec2_create(&cfg);
    assert_int_equal(sc_ec2_load(copy, saved, &err), SC_OK);
    assert_int_equal(sc_ec2_security_group_count(copy), 1);
    assert_string_equal(sc_ec2_security_group_at(copy, 0)->group_id,
                        sc_ec2_security_group_at(ec2, 0)->group_id);
    assert_int_equal(sc_ec2_security_group_at(copy, 0)->ningress, 1);
    sc_ec2_destroy(copy);
    json_decref(saved);
    sc_ec2_destroy(ec2);
}

static void test_ec2_network_interfaces_managed_and_described(void **state)
{
    struct sc_ec2 *ec2 = mk();
    struct sc_error err = { 0 };
    const char *subnets[] = { sc_ec2_subnet_at(ec2, 0)->subnet_id,
                              sc_ec2_subnet_at(ec2, 1)->subnet_id };
    const char *sg = sc_ec2_security_group_at(ec2, 0)->group_id;
    const char *desc[] = { "ELB web" }, *owner[] = { "amazon-elb" }, *dflt[] = { "default" };
    const struct sc_ec2_filter fs[] = { { "attachment.instance-owner-id", owner, 1 },
                                        { "description", desc, 1 },
                                        { "group-name", dflt, 1 } };
    const struct sc_ec2_filter bad = { "no-such-filter", desc, 1 };
    const struct sc_ec2_network_interface *out[4];
    const char *bad_ids[] = { "eni-0123456789abcdef0" }, *malformed[] = { "nic-1" };
    char first[SC_EC2_ID_LEN];
    int n;

    (void)state;
    assert_int_equal(
        sc_ec2_set_managed_interfaces(ec2, "ELB web", "amazon-elb", subnets, 2, &sg, 1, T0, &err),
        SC_OK);
    assert_int_equal(
        sc_ec2_set_managed_interfaces(ec2, "ELB api", "amazon-elb", subnets, 1, &sg, 1, T0, &err),
        SC_OK);
    assert_int_equal(sc_ec2_network_interface_count(ec2), 3);
    assert_int_equal(sc_ec2_describe_network_interfaces(ec2, NULL, 0, fs, 3, out, &n, &err), SC_OK);
    assert_int_equal(n, 2);
    assert_string_equal(out[0]->subnet_id, subnets[0]);
    assert_int_equal(strncmp(out[0]->network_interface_id, "eni-0", 5), 0);
    assert_int_equal(strncmp(out[0]->attachment_id, "eni-attach-0", 12), 0);
    assert_int_equal(strncmp(out[0]->private_ip_address, "172.31.", 7), 0);
    strcpy(first, out[0]->network_interface_id);
    /* keeping a subnet keeps its interface; dropping one removes it */
    assert_int_equal(sc_ec2_set_managed_interfaces(ec2, "ELB web", "amazon-elb", subnets, 1, &sg, 1,
                                                   T0 + 1000, &err),
                     SC_OK);
    assert_int_equal(sc_ec2_network_interface_count(ec2), 2);
    assert_non_null(sc_ec2_network_interface_find(ec2, first));
    assert_int_equal(sc_ec2_describe_network_interfaces(ec2, NULL, 0, &bad, 1, out, &n, &err),
                     SC_ERR_INVALID_PARAMETER_VALUE);
    assert_int_equal(sc_ec2_describe_network_interfaces(ec2, bad_ids, 1, NULL, 0, out, &n, &err),
                     SC_ERR_NETWORK_INTERFACE_NOT_FOUND);
    assert_string_equal(err.message,
                        "The networkInterface ID 'eni-0123456789abcdef0' does not exist");
    assert_int_equal(sc_ec2_describe_network_interfaces(ec2, malformed, 1, NULL, 0, out, &n, &err),
                     SC_ERR_NETWORK_INTERFACE_MALFORMED);
    sc_ec2_destroy(ec2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ec2_default_zones_and_default_vpc),
        cmocka_unit_test(test_ec2_zones_from_config),
        cmocka_unit_test(test_ec2_ids_deterministic_for_a_seed),
        cmocka_unit_test(test_ec2_ids_come_from_the_rand_callback),
        cmocka_unit_test(test_ec2_run_instances_starts_pending_with_aws_fields),
        cmocka_unit_test(test_ec2_run_instances_rejects_malformed_requests),
        cmocka_unit_test(test_ec2_run_instances_subnet_zone_mismatch),
        cmocka_unit_test(test_ec2_run_instances_min_max_count_against_limit),
        cmocka_unit_test(test_ec2_run_instances_strict_images),
        cmocka_unit_test(test_ec2_run_instances_zone_down_insufficient_capacity),
        cmocka_unit_test(test_ec2_host_room_insufficient_capacity),
        cmocka_unit_test(test_ec2_zone_outage_kills_the_zone),
        cmocka_unit_test(test_ec2_run_instances_default_placement_round_robin),
        cmocka_unit_test(test_ec2_run_instances_tags_allow_autoscaling_prefix),
        cmocka_unit_test(test_ec2_terminate_instances_is_idempotent),
        cmocka_unit_test(test_ec2_terminate_one_bad_id_terminates_nothing),
        cmocka_unit_test(test_ec2_instance_id_validity_table),
        cmocka_unit_test(test_ec2_data_plane_lifecycle),
        cmocka_unit_test(test_ec2_terminated_instances_vanish_after_retention),
        cmocka_unit_test(test_ec2_terminated_ip_returns_to_subnet),
        cmocka_unit_test(test_ec2_lost_instance_is_terminated_and_impaired),
        cmocka_unit_test(test_ec2_set_impaired_for_hangs),
        cmocka_unit_test(test_ec2_status_checks_initializing_then_ok),
        cmocka_unit_test(test_ec2_describe_instances_filters),
        cmocka_unit_test(test_ec2_describe_instances_groups_by_reservation),
        cmocka_unit_test(test_ec2_describe_instance_status_running_unless_include_all),
        cmocka_unit_test(test_ec2_stop_and_start_instances),
        cmocka_unit_test(test_ec2_hibernate_instances),
        cmocka_unit_test(test_ec2_state_names_and_codes),
        cmocka_unit_test(test_ec2_instance_type_catalogue),
        cmocka_unit_test(test_ec2_describe_images_catalogue),
        cmocka_unit_test(test_ec2_launch_template_create_and_versions),
        cmocka_unit_test(test_ec2_launch_template_other_members_kept_and_merged),
        cmocka_unit_test(test_ec2_launch_template_errors),
        cmocka_unit_test(test_ec2_describe_launch_templates_unknown_name),
        cmocka_unit_test(test_ec2_run_instances_from_launch_template),
        cmocka_unit_test(test_ec2_create_vpc_and_subnet),
        cmocka_unit_test(test_ec2_describe_vpcs_and_subnets_filters),
        cmocka_unit_test(test_ec2_create_and_delete_tags),
        cmocka_unit_test(test_ec2_default_security_group_per_vpc),
        cmocka_unit_test(test_ec2_describe_tags_rows_and_filters),
        cmocka_unit_test(test_ec2_instance_lookup_survives_purge_churn),
        cmocka_unit_test(test_ec2_generation_moves_with_every_instance_change),
        cmocka_unit_test(test_ec2_shared_errors_keep_their_words),
        cmocka_unit_test(test_ec2_security_group_default_group_rules),
        cmocka_unit_test(test_ec2_security_group_create_errors),
        cmocka_unit_test(test_ec2_security_group_delete_errors),
        cmocka_unit_test(test_ec2_security_group_rules_authorize_revoke),
        cmocka_unit_test(test_ec2_security_group_tags_and_filters),
        cmocka_unit_test(test_ec2_security_group_saved_and_old_state_loads),
        cmocka_unit_test(test_ec2_network_interfaces_managed_and_described),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
