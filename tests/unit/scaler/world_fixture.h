/* tests/unit/scaler/world_fixture.h: the world set-up the sc_world tests share (test_world.c,
 * test_save.c): a world at T0, a minimal data plane the test plays itself, and the loop that
 * steps both every 10 s with time passed in. Static functions, one copy per test binary (the
 * Makefile builds each tests/unit/<folder>/test_*.c alone); a test that includes this uses
 * them all, as -Wunused-function wants. Include after <cmocka.h>. */
#ifndef TESTS_UNIT_SCALER_WORLD_FIXTURE_H
#define TESTS_UNIT_SCALER_WORLD_FIXTURE_H

#include <stdint.h>
#include <stdio.h>

#include "scaler/asg.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "scaler/world.h"

#define T0  1767225600000LL /* 2026-01-01T00:00:00Z */
#define SEC 1000LL
#define MIN 60000LL

static struct sc_world *new_world(uint64_t seed)
{
    struct sc_world_config cfg;
    struct sc_world *w;

    sc_world_config_defaults(&cfg);
    cfg.seed = seed;
    cfg.start_ms = T0;
    w = sc_world_create(&cfg);
    assert_non_null(w);
    return w;
}

/* The data plane: pending instances come up boot_ms after launch; shutting-down and
 * stopping ones end; every registered instance passes its health checks. */
static void data_plane(struct sc_world *w, int64_t now, int64_t boot_ms)
{
    struct sc_ec2 *ec2 = sc_world_ec2(w);
    struct sc_elb *elb = sc_world_elb(w);

    for (int i = 0; i < sc_ec2_instance_count(ec2); i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(ec2, i);
        char id[SC_EC2_ID_LEN];

        snprintf(id, sizeof(id), "%s", in->instance_id);
        if (in->state == SC_EC2_PENDING && now - in->launch_time_ms >= boot_ms)
            sc_ec2_instance_running(ec2, id, now);
        else if (in->state == SC_EC2_SHUTTING_DOWN)
            sc_ec2_instance_terminated(ec2, id, now);
        else if (in->state == SC_EC2_STOPPING)
            sc_ec2_instance_stopped(ec2, id, now);
    }
    for (int i = 0; i < sc_elb_lb_count(elb); i++) {
        const struct sc_elb_lb *lb = sc_elb_lb_at(elb, i);

        for (int k = 0; k < lb->ninstances; k++) {
            char id[SC_EC2_ID_LEN];

            snprintf(id, sizeof(id), "%s", lb->instances[k]);
            sc_elb_health_result(elb, lb->load_balancer_name, id, 1, now);
        }
    }
}

/* Every running instance reports pct CPU at now. */
static void report_cpu(struct sc_world *w, double pct, int64_t now)
{
    struct sc_ec2 *ec2 = sc_world_ec2(w);

    for (int i = 0; i < sc_ec2_instance_count(ec2); i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(ec2, i);

        if (in->state == SC_EC2_RUNNING)
            assert_int_equal(sc_world_report_instance_cpu(w, in->instance_id, pct, now), SC_OK);
    }
}

/* Runs the caller's loop every 10 s from `from` to `to` (inclusive): the data plane, cpu
 * reported when it is not negative, then the world's step. */
static void run(struct sc_world *w, int64_t from, int64_t to, double cpu, int64_t boot_ms)
{
    for (int64_t t = from; t <= to; t += 10 * SEC) {
        data_plane(w, t, boot_ms);
        if (cpu >= 0)
            report_cpu(w, cpu, t);
        sc_world_step(w, t);
    }
}

/* The simple policy "up" both tests scale with: +1 instance, cooldown 300 s. */
static struct sc_asg_policy_req up_policy(const char *group)
{
    struct sc_asg_policy_req r = { .auto_scaling_group_name = group,
                                   .policy_name = "up",
                                   .adjustment_type = "ChangeInCapacity",
                                   .has_scaling_adjustment = 1,
                                   .scaling_adjustment = 1,
                                   .has_cooldown = 1,
                                   .cooldown = 300 };

    return r;
}

/* The target tracking policy "cpu50": ASGAverageCPUUtilization kept at target. */
static struct sc_asg_policy_req cpu50_policy(const char *group, double target)
{
    struct sc_asg_policy_req r = { .auto_scaling_group_name = group,
                                   .policy_name = "cpu50",
                                   .policy_type = "TargetTrackingScaling",
                                   .has_target_tracking = 1,
                                   .target_tracking = { .predefined_metric_type =
                                                            "ASGAverageCPUUtilization",
                                                        .target_value = target } };

    return r;
}

/* The id of group's i-th instance (the group and the instance must exist). */
static const char *member_id(struct sc_world *w, const char *group, int i)
{
    const struct sc_asg_group_info *g = sc_asg_group_find(sc_world_asg(w), group);

    assert_non_null(g);
    assert_true(i < sc_asg_group_instance_count(g));
    return sc_asg_group_instance_at(g, i)->instance_id;
}

#endif
