/* tests/unit/scaler/test_asg_traffic.c: scaler/asg_traffic.c through the world: a group with
 * TargetGroupARNs registers its instances as targets, health checks of the target group
 * decide ELB health, and scale-in drains before termination (docs/elbv2.md 9). */
#include "scaler/asg.h"

#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/ec2.h"
#include "scaler/elbv2.h"
#include "scaler/world.h"

#define T0  1767225600000LL
#define SEC 1000LL

struct fx {
    struct sc_world *w;
    char tg[SC_ELBV2_ARN_LEN];
    struct sc_error err;
};

static int setup(void **state)
{
    static struct fx f;
    struct sc_world_config cfg;
    struct sc_ec2 *ec2;
    struct sc_elbv2 *v2;
    const char *subnets[2];
    struct sc_elbv2_lb_req lb = { .name = "web", .nsubnets = 2 };
    struct sc_elbv2_tg_req tg = { .name = "tg", .protocol = "HTTP", .has_port = 1, .port = 80 };
    const struct sc_elbv2_lb *b;
    const struct sc_elbv2_tg *g;
    struct sc_elbv2_action a = { .type = SC_ELBV2_ACTION_FORWARD };
    struct sc_elbv2_listener_req l = {
        .protocol = "HTTP", .has_port = 1, .port = 80, .actions = &a, .nactions = 1
    };
    struct sc_elbv2_kv delay = { "deregistration_delay.timeout_seconds", "60" };

    memset(&f, 0, sizeof(f));
    sc_world_config_defaults(&cfg);
    cfg.seed = 7;
    cfg.start_ms = T0;
    f.w = sc_world_create(&cfg);
    if (!f.w)
        return -1;
    ec2 = sc_world_ec2(f.w);
    v2 = sc_world_elbv2(f.w);
    subnets[0] = sc_ec2_default_subnet(ec2, "us-east-1a")->subnet_id;
    subnets[1] = sc_ec2_default_subnet(ec2, "us-east-1b")->subnet_id;
    lb.subnets = subnets;
    tg.vpc_id = sc_ec2_default_vpc(ec2)->vpc_id;
    tg.hc.has_healthy = 1;
    tg.hc.healthy_threshold = 2;
    if (sc_elbv2_create_load_balancer(v2, &lb, T0, &b, &f.err) != SC_OK)
        return -1;
    l.load_balancer_arn = b->arn;
    if (sc_elbv2_create_target_group(v2, &tg, T0, &g, &f.err) != SC_OK)
        return -1;
    snprintf(f.tg, sizeof(f.tg), "%s", g->arn);
    a.target_group_arn = f.tg;
    if (sc_elbv2_create_listener(v2, &l, T0, NULL, &f.err) != SC_OK ||
        sc_elbv2_modify_attributes(v2, f.tg, &delay, 1, T0, &f.err) != SC_OK)
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;

    sc_world_destroy(f->w);
    return 0;
}

static void mk_group(struct fx *f, int desired, const char *hc_type)
{
    static const char *const zones[] = { "us-east-1a", "us-east-1b" };
    const char *tgs[1] = { f->tg };
    struct sc_asg_lc_req lc = { .launch_configuration_name = "lc", .instance_type = "t3.micro" };
    struct sc_asg_group_req g = { .auto_scaling_group_name = "g",
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .min_size = 0,
                                  .has_max_size = 1,
                                  .max_size = 4,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = desired,
                                  .availability_zones = zones,
                                  .navailability_zones = 2,
                                  .health_check_type = hc_type,
                                  .target_group_arns = tgs,
                                  .ntarget_group_arns = 1 };

    lc.image_id = sc_ec2_image_at(0)->image_id;
    assert_int_equal(sc_asg_create_launch_configuration(sc_world_asg(f->w), &lc, T0, &f->err),
                     SC_OK);
    assert_int_equal(sc_asg_create_group(sc_world_asg(f->w), &g, T0, &f->err), SC_OK);
}

/* The data plane every 10 s: instances boot at once, stop when asked; every target the
 * library marks checked answers `pass` (or fails when it is `sick`). */
static void run(struct fx *f, int64_t from, int64_t to, const char *sick)
{
    struct sc_ec2 *ec2 = sc_world_ec2(f->w);
    struct sc_elbv2 *v2 = sc_world_elbv2(f->w);

    for (int64_t t = from; t <= to; t += 10 * SEC) {
        for (int i = 0; i < sc_ec2_instance_count(ec2); i++) {
            const struct sc_ec2_instance *in = sc_ec2_instance_at(ec2, i);
            char id[SC_EC2_ID_LEN];

            snprintf(id, sizeof(id), "%s", in->instance_id);
            if (in->state == SC_EC2_PENDING)
                sc_ec2_instance_running(ec2, id, t);
            else if (in->state == SC_EC2_SHUTTING_DOWN)
                sc_ec2_instance_terminated(ec2, id, t);
        }
        for (int i = 0; i < sc_elbv2_target_count(v2, f->tg); i++) {
            struct sc_elbv2_target_health h;
            char id[64];

            if (sc_elbv2_target_at(v2, f->tg, i, &h) != 0 || !h.checked)
                continue;
            snprintf(id, sizeof(id), "%s", h.id);
            sc_elbv2_health_result(
                v2, f->tg, id, h.port,
                sick && strcmp(sick, id) == 0 ? SC_ELBV2_HC_FAILED : SC_ELBV2_HC_OK, 200, t);
        }
        sc_world_step(f->w, t);
    }
}

static int healthy_targets(struct fx *f)
{
    struct sc_elbv2_target_health h[8];
    int n = 0, healthy = 0;

    assert_int_equal(
        sc_elbv2_describe_target_health(sc_world_elbv2(f->w), f->tg, NULL, 0, h, &n, &f->err),
        SC_OK);
    for (int i = 0; i < n; i++)
        healthy += h[i].state == SC_ELBV2_HEALTHY;
    return healthy;
}

static void test_asg_traffic_group_instances_become_healthy_targets(void **state)
{
    struct fx *f = *state;
    const struct sc_asg_group_info *g;

    mk_group(f, 2, "ELB");
    run(f, T0, T0 + 60 * SEC, NULL);
    assert_int_equal(sc_elbv2_target_count(sc_world_elbv2(f->w), f->tg), 2);
    assert_int_equal(healthy_targets(f), 2);
    g = sc_asg_group_find(sc_world_asg(f->w), "g");
    assert_int_equal(g->ntarget_group_arns, 1);
    assert_string_equal(sc_asg_target_group_state(sc_world_asg(f->w), g, 0), "InService");
}

static void test_asg_traffic_state_adding_added_in_service(void **state)
{
    struct fx *f = *state;
    const struct sc_asg_group_info *g;
    struct sc_asg *asg = sc_world_asg(f->w);

    mk_group(f, 0, NULL); /* EC2 health checks: an unhealthy target is not replaced */
    g = sc_asg_group_find(asg, "g");
    /* no instances: all (none) registered */
    assert_string_equal(sc_asg_target_group_state(asg, g, 0), "Added");
    assert_int_equal(sc_asg_set_desired_capacity(asg, "g", 1, 0, T0, &f->err), SC_OK);
    /* InService and registered, no check passed yet: registration in progress */
    for (int64_t t = T0; t <= T0 + 60 * SEC; t += SEC) {
        struct sc_ec2 *ec2 = sc_world_ec2(f->w);

        for (int i = 0; i < sc_ec2_instance_count(ec2); i++) {
            char id[SC_EC2_ID_LEN];

            snprintf(id, sizeof(id), "%s", sc_ec2_instance_at(ec2, i)->instance_id);
            if (sc_ec2_instance_at(ec2, i)->state == SC_EC2_PENDING)
                sc_ec2_instance_running(ec2, id, t);
        }
        sc_world_step(f->w, t);
        g = sc_asg_group_find(asg, "g");
        if (sc_asg_group_instance_count(g) == 1 &&
            sc_asg_group_instance_at(g, 0)->lifecycle_state == SC_ASG_IN_SERVICE)
            break;
    }
    g = sc_asg_group_find(asg, "g");
    assert_int_equal(sc_asg_group_instance_at(g, 0)->lifecycle_state, SC_ASG_IN_SERVICE);
    assert_string_equal(sc_asg_target_group_state(asg, g, 0), "Adding");
    /* healthy in the target group: InService */
    run(f, T0 + 61 * SEC, T0 + 120 * SEC, NULL);
    g = sc_asg_group_find(asg, "g");
    assert_string_equal(sc_asg_target_group_state(asg, g, 0), "InService");
    /* unhealthy but registered: Added */
    run(f, T0 + 130 * SEC, T0 + 150 * SEC, sc_asg_group_instance_at(g, 0)->instance_id);
    g = sc_asg_group_find(asg, "g");
    assert_string_equal(sc_asg_target_group_state(asg, g, 0), "Added");
}

static void test_asg_traffic_create_takes_traffic_sources(void **state)
{
    struct fx *f = *state;
    struct sc_asg *asg = sc_world_asg(f->w);
    struct sc_asg_lc_req lc = { .launch_configuration_name = "lc", .instance_type = "t3.micro" };
    static const char *const zones[] = { "us-east-1a" };
    struct sc_asg_traffic_source src[2] = { { .identifier = f->tg, .type = "elbv2" },
                                            { .identifier = f->tg } };
    struct sc_asg_traffic_source bad = { .identifier = "nope", .type = "vpc-lattice" };
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = 2,
                                  .availability_zones = zones,
                                  .navailability_zones = 1 };
    const struct sc_asg_group_info *g;

    lc.image_id = sc_ec2_image_at(0)->image_id;
    assert_int_equal(sc_asg_create_launch_configuration(asg, &lc, T0, &f->err), SC_OK);
    /* a bad source: nothing created */
    r.traffic_sources = &bad;
    r.ntraffic_sources = 1;
    assert_int_equal(sc_asg_create_group(asg, &r, T0, &f->err), SC_ERR_VALIDATION);
    assert_string_equal(f->err.message,
                        "Traffic source type 'vpc-lattice' is not supported. Valid values are "
                        "elb, elbv2.");
    assert_null(sc_asg_group_find(asg, "g"));
    /* the same target group twice (typed and untyped): attached once */
    r.traffic_sources = src;
    r.ntraffic_sources = 2;
    assert_int_equal(sc_asg_create_group(asg, &r, T0, &f->err), SC_OK);
    g = sc_asg_group_find(asg, "g");
    assert_int_equal(g->ntarget_group_arns, 1);
    assert_string_equal(g->target_group_arns[0], f->tg);
    assert_int_equal(g->nload_balancer_names, 0);
}

static void test_asg_traffic_unknown_target_group_is_refused(void **state)
{
    struct fx *f = *state;
    const char *bad = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/no/1";

    mk_group(f, 0, NULL);
    assert_int_equal(sc_asg_attach_target_groups(sc_world_asg(f->w), "g", &bad, 1, T0, &f->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(f->err.message, "Provided Target Groups may not be valid. Please ensure "
                                        "they exist and try again.");
}

static void test_asg_traffic_unhealthy_target_is_replaced_with_elb_checks(void **state)
{
    struct fx *f = *state;
    const struct sc_asg_group_info *g;
    char sick[SC_EC2_ID_LEN];
    int still = 0;

    mk_group(f, 1, "ELB");
    run(f, T0, T0 + 60 * SEC, NULL);
    g = sc_asg_group_find(sc_world_asg(f->w), "g");
    snprintf(sick, sizeof(sick), "%s", sc_asg_group_instance_at(g, 0)->instance_id);
    run(f, T0 + 70 * SEC, T0 + 400 * SEC, sick);
    g = sc_asg_group_find(sc_world_asg(f->w), "g");
    for (int i = 0; i < sc_asg_group_instance_count(g); i++)
        still |= strcmp(sc_asg_group_instance_at(g, i)->instance_id, sick) == 0 &&
                 sc_asg_group_instance_at(g, i)->lifecycle_state == SC_ASG_IN_SERVICE;
    assert_false(still);
    assert_int_equal(healthy_targets(f), 1);
}

static void test_asg_traffic_scale_in_drains_before_termination(void **state)
{
    struct fx *f = *state;
    struct sc_elbv2_target_health h[4];
    int n = 0, draining = 0;

    mk_group(f, 2, NULL);
    run(f, T0, T0 + 60 * SEC, NULL);
    assert_int_equal(
        sc_asg_set_desired_capacity(sc_world_asg(f->w), "g", 1, 0, T0 + 61 * SEC, &f->err), SC_OK);
    run(f, T0 + 70 * SEC, T0 + 80 * SEC, NULL);
    assert_int_equal(
        sc_elbv2_describe_target_health(sc_world_elbv2(f->w), f->tg, NULL, 0, h, &n, &f->err),
        SC_OK);
    for (int i = 0; i < n; i++)
        draining += h[i].state == SC_ELBV2_DRAINING;
    assert_int_equal(draining, 1);
    /* the draining instance is not terminated yet */
    for (int i = 0; i < n; i++) {
        if (h[i].state == SC_ELBV2_DRAINING)
            assert_int_equal(sc_ec2_instance_find(sc_world_ec2(f->w), h[i].id)->state,
                             SC_EC2_RUNNING);
    }
    run(f, T0 + 90 * SEC, T0 + 200 * SEC, NULL);
    assert_int_equal(sc_elbv2_target_count(sc_world_elbv2(f->w), f->tg), 1);
}

/* Detaching: the source is Removing while an instance drains in it (the deregistration
 * delay, 60 s here), Removed once none is registered, then no longer listed at the next
 * step (AWS: once all instances are deregistered it can no longer be described). */
static void test_asg_detached_source_removing_then_removed_then_gone(void **state)
{
    struct fx *f = *state;
    struct sc_asg *asg = sc_world_asg(f->w);
    const struct sc_asg_group_info *g;
    const char *arn = f->tg, *st = NULL;
    int v2 = 0;

    mk_group(f, 1, NULL);
    run(f, T0, T0 + 60 * SEC, NULL);
    assert_int_equal(sc_asg_detach_target_groups(asg, "g", &arn, 1, T0 + 61 * SEC, &f->err), SC_OK);
    g = sc_asg_group_find(asg, "g");
    assert_int_equal(g->ntarget_group_arns, 0);
    assert_int_equal(sc_asg_removing_count(g), 1);
    assert_string_equal(sc_asg_removing_at(asg, g, 0, &v2, &st), f->tg);
    assert_int_equal(v2, 1);
    assert_string_equal(st, "Removing");
    /* still draining 30 s later: Removing */
    run(f, T0 + 70 * SEC, T0 + 90 * SEC, NULL);
    g = sc_asg_group_find(asg, "g");
    assert_int_equal(sc_asg_removing_count(g), 1);
    sc_asg_removing_at(asg, g, 0, NULL, &st);
    assert_string_equal(st, "Removing");
    /* the delay over: deregistered, and the step that sees it drops the source */
    assert_int_equal(sc_elbv2_drain_idle(sc_world_elbv2(f->w), f->tg,
                                         sc_asg_group_instance_at(g, 0)->instance_id, 80),
                     1);
    sc_asg_removing_at(asg, g, 0, NULL, &st);
    assert_string_equal(st, "Removed");
    run(f, T0 + 100 * SEC, T0 + 100 * SEC, NULL);
    assert_int_equal(sc_asg_removing_count(sc_asg_group_find(asg, "g")), 0);
    assert_null(sc_asg_removing_at(asg, sc_asg_group_find(asg, "g"), 0, NULL, NULL));
}

/* Attached again while Removing: attached, not removing. */
static void test_asg_detached_source_attached_again_is_not_removing(void **state)
{
    struct fx *f = *state;
    struct sc_asg *asg = sc_world_asg(f->w);
    struct sc_asg_traffic_source src = { .identifier = f->tg, .type = "elbv2" };
    const struct sc_asg_group_info *g;

    mk_group(f, 1, NULL);
    run(f, T0, T0 + 60 * SEC, NULL);
    assert_int_equal(sc_asg_detach_traffic_sources(asg, "g", &src, 1, T0 + 61 * SEC, &f->err),
                     SC_OK);
    assert_int_equal(sc_asg_removing_count(sc_asg_group_find(asg, "g")), 1);
    assert_int_equal(sc_asg_attach_traffic_sources(asg, "g", &src, 1, T0 + 62 * SEC, &f->err),
                     SC_OK);
    g = sc_asg_group_find(asg, "g");
    assert_int_equal(sc_asg_removing_count(g), 0);
    assert_int_equal(g->ntarget_group_arns, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_asg_traffic_group_instances_become_healthy_targets,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_asg_traffic_state_adding_added_in_service, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_asg_traffic_create_takes_traffic_sources, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_asg_traffic_unknown_target_group_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_asg_traffic_unhealthy_target_is_replaced_with_elb_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_asg_traffic_scale_in_drains_before_termination, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_asg_detached_source_removing_then_removed_then_gone,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_asg_detached_source_attached_again_is_not_removing,
                                        setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
