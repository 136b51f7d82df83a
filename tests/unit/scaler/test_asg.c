/* tests/unit/scaler/test_asg.c: scaler/asg*.c against a fake EC2/ELB/CloudWatch env.
 * One test per rule of spec sections 3 and 4; time is passed in. */
#include "scaler/asg.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <jansson.h>

#include "scaler/asg_internal.h"
#include "scaler/hash.h"

#define T0   1767225600000LL /* 2026-01-01T00:00:00Z */
#define SEC  1000LL
#define MIN  60000LL
#define MAXI 256

/* --- the fake world ---------------------------------------------------------------------- */

struct fake_inst {
    char id[SC_ASG_ID_LEN];
    char zone[SC_ASG_ID_LEN];
    enum sc_asg_ec2_state state;
    int reg[4];      /* registered with lb k */
    int draining[4]; /* deregistration in progress at lb k */
    enum sc_asg_lb_state lbstate[4];
    char tags[8][64];
    int ntags;
};

struct fake_alarm {
    char name[160];
    char desc[400];
    char ns[64], metric[64], stat[16], op[32], action[400];
    double threshold;
    int eval, dtoa, period;
    int in_alarm;
    int live;
};

struct fake {
    struct sc_rng rng;
    struct fake_inst inst[MAXI];
    int ninst;
    const char *lbs[4];
    int nlbs;
    int drain; /* deregistration leaves instances draining until cleared */
    struct fake_alarm alarms[16];
    int nalarms;
    int metric_puts;
    char last_metric[64];
    int fail_launch;
};

static struct fake_inst *finst(struct fake *f, const char *id)
{
    for (int i = 0; i < f->ninst; i++)
        if (strcmp(f->inst[i].id, id) == 0)
            return &f->inst[i];
    return NULL;
}

static int flb(struct fake *f, const char *lb)
{
    for (int i = 0; i < f->nlbs; i++)
        if (strcmp(f->lbs[i], lb) == 0)
            return i;
    /* "q<n>": as many load balancers as a quota test needs, sharing the last slot */
    return lb[0] == 'q' && lb[1] >= '0' && lb[1] <= '9' ? 3 : -1;
}

static enum sc_status f_run(void *ud, const struct sc_asg_launch_spec *s, int64_t now,
                            char id[SC_ASG_ID_LEN], struct sc_error *err)
{
    struct fake *f = ud;
    struct fake_inst *in;

    (void)now;
    if (f->fail_launch == 2 && strcmp(s->zone, "us-east-1a") == 0)
        return sc_fail(err, SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY,
                       "We currently do not have sufficient m1.large capacity in the "
                       "Availability Zone you requested (us-east-1a). You can currently get "
                       "m1.large capacity by choosing us-east-1b.");
    if (f->fail_launch == 1)
        return sc_fail(err, SC_ERR_VALIDATION, "The image id '[ami-bad]' does not exist");
    in = &f->inst[f->ninst++];
    memset(in, 0, sizeof(*in));
    sc_rng_instance_id(&f->rng, in->id);
    snprintf(in->zone, sizeof(in->zone), "%s", s->zone);
    in->state = SC_ASG_EC2_PENDING;
    for (int k = 0; k < s->ntags && k < 8; k++)
        snprintf(in->tags[in->ntags++], 64, "%s=%s", s->tags[k].key, s->tags[k].value);
    snprintf(id, SC_ASG_ID_LEN, "%s", in->id);
    return SC_OK;
}

static void f_term(void *ud, const char *id, int64_t now)
{
    struct fake_inst *in = finst(ud, id);

    (void)now;
    if (in && in->state != SC_ASG_EC2_GONE)
        in->state = SC_ASG_EC2_SHUTTING_DOWN;
}

static enum sc_asg_ec2_state f_state(void *ud, const char *id)
{
    struct fake_inst *in = finst(ud, id);

    return in ? in->state : SC_ASG_EC2_GONE;
}

static int f_izone(void *ud, const char *id, char zone[SC_ASG_ID_LEN])
{
    struct fake_inst *in = finst(ud, id);

    if (!in)
        return -1;
    snprintf(zone, SC_ASG_ID_LEN, "%s", in->zone);
    return 0;
}

static int f_subnet_zone(void *ud, const char *subnet, char zone[SC_ASG_ID_LEN])
{
    (void)ud;
    if (strcmp(subnet, "subnet-a") == 0)
        snprintf(zone, SC_ASG_ID_LEN, "us-east-1a");
    else if (strcmp(subnet, "subnet-b") == 0)
        snprintf(zone, SC_ASG_ID_LEN, "us-east-1b");
    else
        return -1;
    return 0;
}

static int f_zone_valid(void *ud, const char *zone)
{
    (void)ud;
    return strncmp(zone, "us-east-1", 9) == 0 && strlen(zone) == 10;
}

static int f_lb_exists(void *ud, const char *lb)
{
    return flb(ud, lb) >= 0;
}

static void f_lb_reg(void *ud, const char *lb, const char *id, int64_t now)
{
    struct fake *f = ud;
    struct fake_inst *in = finst(f, id);
    int k = flb(f, lb);

    (void)now;
    if (in && k >= 0) {
        in->reg[k] = 1;
        in->lbstate[k] = SC_ASG_LB_IN_SERVICE;
    }
}

static void f_lb_dereg(void *ud, const char *lb, const char *id, int64_t now)
{
    struct fake *f = ud;
    struct fake_inst *in = finst(f, id);
    int k = flb(f, lb);

    (void)now;
    if (in && k >= 0 && in->reg[k]) {
        in->reg[k] = 0;
        in->draining[k] = f->drain;
        in->lbstate[k] = f->drain ? SC_ASG_LB_DRAINING : SC_ASG_LB_NOT_REGISTERED;
    }
}

static enum sc_asg_lb_state f_lb_state(void *ud, const char *lb, const char *id)
{
    struct fake *f = ud;
    struct fake_inst *in = finst(f, id);
    int k = flb(f, lb);

    if (!in || k < 0)
        return SC_ASG_LB_NOT_REGISTERED;
    return in->lbstate[k];
}

static struct fake_alarm *falarm(struct fake *f, const char *name)
{
    for (int i = 0; i < f->nalarms; i++)
        if (f->alarms[i].live && strcmp(f->alarms[i].name, name) == 0)
            return &f->alarms[i];
    return NULL;
}

static enum sc_status f_put_alarm(void *ud, const struct sc_asg_alarm_spec *a, int64_t now,
                                  struct sc_error *err)
{
    struct fake *f = ud;
    struct fake_alarm *x = falarm(f, a->alarm_name);

    (void)now;
    (void)err;
    if (!x)
        x = &f->alarms[f->nalarms++];
    memset(x, 0, sizeof(*x));
    x->live = 1;
    snprintf(x->name, sizeof(x->name), "%s", a->alarm_name);
    snprintf(x->desc, sizeof(x->desc), "%s", a->alarm_description);
    snprintf(x->ns, sizeof(x->ns), "%s", a->namespace_);
    snprintf(x->metric, sizeof(x->metric), "%s", a->metric_name);
    snprintf(x->stat, sizeof(x->stat), "%s", a->statistic);
    snprintf(x->op, sizeof(x->op), "%s", a->comparison_operator);
    snprintf(x->action, sizeof(x->action), "%s", a->alarm_action);
    x->threshold = a->threshold;
    x->eval = a->evaluation_periods;
    x->dtoa = a->datapoints_to_alarm;
    x->period = a->period_s;
    return SC_OK;
}

static void f_del_alarm(void *ud, const char *name, int64_t now)
{
    struct fake_alarm *x = falarm(ud, name);

    (void)now;
    if (x)
        x->live = 0;
}

static int f_in_alarm(void *ud, const char *name)
{
    struct fake_alarm *x = falarm(ud, name);

    return x && x->in_alarm;
}

static void f_put_metric(void *ud, const char *ns, const char *name, const char *dn, const char *dv,
                         double v, const char *unit, int64_t now)
{
    struct fake *f = ud;

    (void)ns;
    (void)dn;
    (void)dv;
    (void)v;
    (void)unit;
    (void)now;
    f->metric_puts++;
    snprintf(f->last_metric, sizeof(f->last_metric), "%s", name);
}

struct fx {
    struct fake f;
    struct sc_rng rng;
    struct sc_asg *asg;
    struct sc_error err;
};

static uint64_t f_health_sig(void *ud, int with_lb);

/* The library over the fake environment; health_sig: with env.health_inputs_sig, so the
 * library may skip sweeps whose inputs did not change. */
static struct sc_asg *fx_asg(struct fx *x, int health_sig)
{
    struct sc_asg_config cfg = { 0 };

    cfg.rng = &x->rng;
    cfg.env = (struct sc_asg_env){
        .ud = &x->f,
        .run_instance = f_run,
        .terminate_instance = f_term,
        .instance_state = f_state,
        .instance_zone = f_izone,
        .subnet_zone = f_subnet_zone,
        .zone_valid = f_zone_valid,
        .lb_exists = f_lb_exists,
        .lb_register = f_lb_reg,
        .lb_deregister = f_lb_dereg,
        .lb_instance_state = f_lb_state,
        .put_alarm = f_put_alarm,
        .delete_alarm = f_del_alarm,
        .alarm_in_alarm = f_in_alarm,
        .put_metric = f_put_metric,
        .health_inputs_sig = health_sig ? f_health_sig : NULL,
    };
    return sc_asg_create(&cfg);
}

static int setup(void **state)
{
    struct fx *x = calloc(1, sizeof(*x));

    sc_rng_init(&x->rng, 1);
    sc_rng_init(&x->f.rng, 2);
    x->f.lbs[0] = "lb1";
    x->f.lbs[1] = "lb2";
    x->f.nlbs = 2;
    x->asg = fx_asg(x, 0);
    if (!x->asg)
        return -1;
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    struct fx *x = *state;

    sc_asg_destroy(x->asg);
    free(x);
    return 0;
}

/* The data plane: every pending instance boots; every shutting-down one goes away. */
static void boot_all(struct fx *x)
{
    for (int i = 0; i < x->f.ninst; i++) {
        if (x->f.inst[i].state == SC_ASG_EC2_PENDING)
            x->f.inst[i].state = SC_ASG_EC2_RUNNING;
        else if (x->f.inst[i].state == SC_ASG_EC2_SHUTTING_DOWN)
            x->f.inst[i].state = SC_ASG_EC2_GONE;
    }
}

/* step, data plane, step: the usual caller loop at one instant */
static void settle(struct fx *x, int64_t now)
{
    sc_asg_step(x->asg, now);
    boot_all(x);
    sc_asg_step(x->asg, now);
}

static void make_lc(struct fx *x, const char *name, int64_t now)
{
    struct sc_asg_lc_req r = { .launch_configuration_name = name,
                               .image_id = "ami-12345678",
                               .instance_type = "t3.micro" };

    assert_int_equal(sc_asg_create_launch_configuration(x->asg, &r, now, &x->err), SC_OK);
}

static enum sc_status make_group(struct fx *x, const char *name, int min, int max, int desired)
{
    static const char *const zones[] = { "us-east-1a", "us-east-1b" };
    struct sc_asg_group_req r = { .auto_scaling_group_name = name,
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .min_size = min,
                                  .has_max_size = 1,
                                  .max_size = max,
                                  .availability_zones = zones,
                                  .navailability_zones = 2 };

    if (!sc_asg_lc_find(x->asg, "lc"))
        make_lc(x, "lc", T0);
    if (desired >= 0) {
        r.has_desired_capacity = 1;
        r.desired_capacity = desired;
    }
    return sc_asg_create_group(x->asg, &r, T0, &x->err);
}

static int count_state(struct fx *x, const char *g, enum sc_asg_lifecycle s)
{
    const struct sc_asg_group_info *gi = sc_asg_group_find(x->asg, g);
    int n = 0;

    for (int i = 0; i < sc_asg_group_instance_count(gi); i++)
        n += sc_asg_group_instance_at(gi, i)->lifecycle_state == s;
    return n;
}

static const char *inst_id(struct fx *x, const char *g, int i)
{
    return sc_asg_group_instance_at(sc_asg_group_find(x->asg, g), i)->instance_id;
}

#define ASSERT_ERR(call, code, text)                                                               \
    do {                                                                                           \
        assert_int_equal((call), (code));                                                          \
        assert_string_equal(x->err.message, (text));                                               \
    } while (0)

/* --- 3.1 sizes and validation ---------------------------------------------------------------- */

static void test_asg_desired_defaults_to_min(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_group_info *g;

    assert_int_equal(make_group(x, "g", 2, 5, -1), SC_OK);
    g = sc_asg_group_find(x->asg, "g");
    assert_int_equal(g->desired_capacity, 2);
    assert_int_equal(g->default_cooldown, 300);
    assert_string_equal(g->health_check_type, "EC2");
    assert_int_equal(g->health_check_grace_period, 0);
    assert_string_equal(g->termination_policies[0], "Default");
    assert_non_null(strstr(g->auto_scaling_group_arn,
                           "arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:"));
    assert_non_null(strstr(g->auto_scaling_group_arn, ":autoScalingGroupName/g"));
}

static void test_asg_max_below_min_text(void **state)
{
    struct fx *x = *state;

    ASSERT_ERR(make_group(x, "g", 5, 3, -1), SC_ERR_VALIDATION,
               "Max bound, 3, must be greater than or equal to min bound, 5");
}

static void test_asg_desired_outside_text(void **state)
{
    struct fx *x = *state;

    ASSERT_ERR(make_group(x, "g", 4, 10, 2), SC_ERR_VALIDATION,
               "Desired capacity:2 must be between the specified min size:4 and max size:10");
}

static void test_asg_already_exists_text(void **state)
{
    struct fx *x = *state;

    assert_int_equal(make_group(x, "g", 0, 1, 0), SC_OK);
    ASSERT_ERR(
        make_group(x, "g", 0, 1, 0), SC_ERR_ALREADY_EXISTS,
        "AutoScalingGroup by this name already exists - A group with the name g already exists");
}

static void test_asg_unknown_launch_configuration_text(void **state)
{
    struct fx *x = *state;
    static const char *const zones[] = { "us-east-1a" };
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .launch_configuration_name = "nope",
                                  .has_min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = 1,
                                  .availability_zones = zones,
                                  .navailability_zones = 1 };

    ASSERT_ERR(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION,
               "Launch configuration name not found - Launch configuration nope not found");
    r.launch_configuration_name = NULL;
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
    assert_non_null(strstr(x->err.message, "Valid requests must contain either LaunchTemplate"));
}

static void test_asg_group_not_found_text(void **state)
{
    struct fx *x = *state;

    ASSERT_ERR(sc_asg_set_desired_capacity(x->asg, "ghost", 1, 0, T0, &x->err), SC_ERR_VALIDATION,
               "AutoScalingGroup name not found - AutoScalingGroup: ghost not found");
    ASSERT_ERR(sc_asg_group_not_found(NULL, &x->err), SC_ERR_VALIDATION,
               "AutoScalingGroup name not found - null");
}

static void test_asg_zones_or_subnets_required(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = 1 };

    make_lc(x, "lc", T0);
    ASSERT_ERR(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION,
               "At least one Availability Zone or VPC Subnet is required.");
    r.vpc_zone_identifier = "subnet-a,subnet-zz";
    ASSERT_ERR(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION,
               "The subnet ID 'subnet-zz' does not exist");
    r.vpc_zone_identifier = "subnet-a, subnet-b";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->navailability_zones, 2);
    assert_string_equal(sc_asg_group_find(x->asg, "g")->availability_zones[1], "us-east-1b");
}

static void test_asg_unknown_load_balancer_text(void **state)
{
    struct fx *x = *state;
    static const char *const zones[] = { "us-east-1a" };
    static const char *const lbs[] = { "nolb" };
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = 1,
                                  .availability_zones = zones,
                                  .navailability_zones = 1,
                                  .load_balancer_names = lbs,
                                  .nload_balancer_names = 1 };

    make_lc(x, "lc", T0);
    ASSERT_ERR(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION,
               "Provided Load Balancers may not be valid. Please ensure they exist and try again.");
}

static void test_asg_update_min_raises_desired_max_lowers(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .has_min_size = 1,
                                  .min_size = 3 };

    assert_int_equal(make_group(x, "g", 1, 5, 1), SC_OK);
    assert_int_equal(sc_asg_update_group(x->asg, &r, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 3);
    r = (struct sc_asg_group_req){ .auto_scaling_group_name = "g",
                                   .has_min_size = 1,
                                   .min_size = 0,
                                   .has_max_size = 1,
                                   .max_size = 2 };
    assert_int_equal(sc_asg_update_group(x->asg, &r, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 2);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->min_size, 0);
}

/* --- 3.4 activities -------------------------------------------------------------------------- */

static void test_asg_launch_cause_sentences_two_spaces(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_activity_info *a;
    char want[64];

    assert_int_equal(make_group(x, "g", 1, 3, 1), SC_OK);
    sc_asg_step(x->asg, T0 + 3 * SEC);
    assert_int_equal(sc_asg_activity_count(x->asg, "g"), 1);
    a = sc_asg_activity_at(x->asg, "g", 0);
    assert_string_equal(
        a->cause,
        "At 2026-01-01T00:00:00Z a user request created an AutoScalingGroup changing the desired capacity from 0 to 1.  "
        "At 2026-01-01T00:00:03Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 0 to 1.");
    snprintf(want, sizeof(want), "Launching a new EC2 instance: %s", inst_id(x, "g", 0));
    assert_string_equal(a->description, want);
    assert_string_equal(a->status_code, "PreInService");
    assert_int_equal(a->end_ms, 0);
    assert_string_equal(a->details, "{\"Availability Zone\":\"us-east-1a\"}");
    assert_int_equal(count_state(x, "g", SC_ASG_PENDING), 1);
    boot_all(x);
    sc_asg_step(x->asg, T0 + 20 * SEC);
    a = sc_asg_activity_at(x->asg, "g", 0);
    assert_string_equal(a->status_code, "Successful");
    assert_int_equal(a->progress, 100);
    assert_int_equal(a->end_ms, T0 + 20 * SEC);
    assert_int_equal(count_state(x, "g", SC_ASG_IN_SERVICE), 1);
}

static void test_asg_update_cause_text(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .has_min_size = 1,
                                  .min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = 5,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = 3 };

    assert_int_equal(make_group(x, "g", 0, 1, 0), SC_OK);
    assert_int_equal(sc_asg_update_group(x->asg, &r, T0 + 1000, &x->err), SC_OK);
    sc_asg_step(x->asg, T0 + 4000);
    assert_int_equal(sc_asg_activity_count(x->asg, "g"), 3);
    assert_string_equal(
        sc_asg_activity_at(x->asg, "g", 0)->cause,
        "At 2026-01-01T00:00:01Z a user request update of AutoScalingGroup constraints to min: 1, max: 5, desired: 3 changing the desired capacity from 0 to 3.  "
        "At 2026-01-01T00:00:04Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 0 to 3.");
}

static void test_asg_activities_in_progress_first_then_newest(void **state)
{
    struct fx *x = *state;

    assert_int_equal(make_group(x, "g", 0, 5, 1), SC_OK);
    settle(x, T0);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 2, 0, T0 + MIN, &x->err), SC_OK);
    sc_asg_step(x->asg, T0 + MIN);
    assert_string_equal(sc_asg_activity_at(x->asg, "g", 0)->status_code, "PreInService");
    assert_string_equal(sc_asg_activity_at(x->asg, "g", 1)->status_code, "Successful");
    assert_string_equal(
        sc_asg_activity_at(x->asg, "g", 0)->cause + strlen("At 2026-01-01T00:01:00Z "),
        "a user request explicitly set group desired capacity changing the desired capacity from 1 to 2.  "
        "At 2026-01-01T00:01:00Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 1 to 2.");
}

static void test_asg_activity_history_bounded(void **state)
{
    struct fx *x = *state;

    assert_int_equal(make_group(x, "g", 0, 1, 0), SC_OK);
    for (int i = 0; i < 3 * SC_ASG_MAX_ACTIVITIES; i++) {
        int64_t t = T0 + i * MIN;

        assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", (i + 1) % 2, 0, t, &x->err),
                         SC_OK);
        settle(x, t);
        settle(x, t + 1);
    }
    assert_true(sc_asg_activity_count(x->asg, "g") <= SC_ASG_MAX_ACTIVITIES + 1);
}

static void test_asg_set_desired_capacity_bounds_text(void **state)
{
    struct fx *x = *state;

    assert_int_equal(make_group(x, "g", 0, 1, 0), SC_OK);
    ASSERT_ERR(sc_asg_set_desired_capacity(x->asg, "g", 2, 0, T0, &x->err), SC_ERR_VALIDATION,
               "New SetDesiredCapacity value 2 is above max value 1 for the AutoScalingGroup.");
    assert_int_equal(make_group(x, "h", 2, 4, 2), SC_OK);
    ASSERT_ERR(sc_asg_set_desired_capacity(x->asg, "h", 0, 0, T0, &x->err), SC_ERR_VALIDATION,
               "New SetDesiredCapacity value 0 is below min value 2 for the AutoScalingGroup.");
}

/* --- terminate, scale-in --------------------------------------------------------------------- */

static void test_asg_terminate_decrement_min_size_text(void **state)
{
    struct fx *x = *state;

    assert_int_equal(make_group(x, "g", 1, 3, 1), SC_OK);
    settle(x, T0);
    ASSERT_ERR(
        sc_asg_terminate_instance(x->asg, inst_id(x, "g", 0), 1, T0, NULL, &x->err),
        SC_ERR_VALIDATION,
        "Currently, desiredSize equals minSize (1). Terminating instance without replacement will violate group's min size constraint. Either set shouldDecrementDesiredCapacity flag to false or lower group's min size.");
}

static void test_asg_terminate_with_decrement_shrinks(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_activity_info *a;
    char id[SC_ASG_ID_LEN], want[256];

    assert_int_equal(make_group(x, "g", 0, 3, 1), SC_OK);
    settle(x, T0);
    snprintf(id, sizeof(id), "%s", inst_id(x, "g", 0));
    assert_int_equal(sc_asg_terminate_instance(x->asg, id, 1, T0 + MIN, &a, &x->err), SC_OK);
    snprintf(
        want, sizeof(want),
        "At 2026-01-01T00:01:00Z instance %s was taken out of service in response to a user request, shrinking the capacity from 1 to 0.",
        id);
    assert_string_equal(a->cause, want);
    snprintf(want, sizeof(want), "Terminating EC2 instance: %s", id);
    assert_string_equal(a->description, want);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 0);
    settle(x, T0 + MIN + 1);
    assert_int_equal(sc_asg_group_instance_count(sc_asg_group_find(x->asg, "g")), 0);
}

static void test_asg_terminate_without_decrement_replaces(void **state)
{
    struct fx *x = *state;
    char id[SC_ASG_ID_LEN];

    assert_int_equal(make_group(x, "g", 1, 3, 1), SC_OK);
    settle(x, T0);
    snprintf(id, sizeof(id), "%s", inst_id(x, "g", 0));
    assert_int_equal(sc_asg_terminate_instance(x->asg, id, 0, T0 + MIN, NULL, &x->err), SC_OK);
    settle(x, T0 + MIN);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 1);
    assert_int_equal(count_state(x, "g", SC_ASG_IN_SERVICE), 1);
    assert_string_not_equal(inst_id(x, "g", 0), id);
}

/* sc_asg_group_lifecycle_counts: Pending*, InService, Terminating* in one pass, as
 * counting the members state by state gives. */
static void check_counts(struct fx *x, const char *g)
{
    int p, in, t;

    sc_asg_group_lifecycle_counts(sc_asg_group_find(x->asg, g), &p, &in, &t);
    assert_int_equal(p, count_state(x, g, SC_ASG_PENDING) + count_state(x, g, SC_ASG_PENDING_WAIT) +
                            count_state(x, g, SC_ASG_PENDING_PROCEED));
    assert_int_equal(in, count_state(x, g, SC_ASG_IN_SERVICE));
    assert_int_equal(t, count_state(x, g, SC_ASG_TERMINATING) +
                            count_state(x, g, SC_ASG_TERMINATING_WAIT) +
                            count_state(x, g, SC_ASG_TERMINATING_PROCEED));
}

static void test_asg_lifecycle_counts_by_state(void **state)
{
    struct fx *x = *state;
    int p, in, t;

    assert_int_equal(make_group(x, "g", 0, 5, 3), SC_OK);
    sc_asg_step(x->asg, T0);
    sc_asg_group_lifecycle_counts(sc_asg_group_find(x->asg, "g"), &p, &in, &t);
    assert_int_equal(p, 3);
    assert_int_equal(in, 0);
    assert_int_equal(t, 0);
    check_counts(x, "g");
    settle(x, T0);
    sc_asg_group_lifecycle_counts(sc_asg_group_find(x->asg, "g"), &p, &in, &t);
    assert_int_equal(p, 0);
    assert_int_equal(in, 3);
    check_counts(x, "g");
    assert_int_equal(
        sc_asg_terminate_instance(x->asg, inst_id(x, "g", 0), 1, T0 + MIN, NULL, &x->err), SC_OK);
    sc_asg_group_lifecycle_counts(sc_asg_group_find(x->asg, "g"), &p, &in, &t);
    assert_int_equal(in, 2);
    assert_int_equal(t, 1);
    check_counts(x, "g");
}

static void test_asg_scale_in_selected_for_termination(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_activity_info *a;
    char want[512];
    const char *victim;

    assert_int_equal(make_group(x, "g", 0, 3, 2), SC_OK);
    settle(x, T0);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 1, 0, T0 + MIN, &x->err), SC_OK);
    sc_asg_step(x->asg, T0 + MIN);
    a = sc_asg_activity_at(x->asg, "g", 0);
    victim = strstr(a->description, "i-");
    assert_non_null(victim);
    snprintf(
        want, sizeof(want),
        "At 2026-01-01T00:01:00Z a user request explicitly set group desired capacity changing the desired capacity from 2 to 1.  "
        "At 2026-01-01T00:01:00Z an instance was taken out of service in response to a difference between desired and actual capacity, shrinking the capacity from 2 to 1.  "
        "At 2026-01-01T00:01:00Z instance %s was selected for termination.",
        victim);
    assert_string_equal(a->cause, want);
}

/* 3.5: scale-in keeps the zones balanced before any termination policy. */
static void test_asg_scale_in_balances_zones(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_group_info *g;
    int a = 0, b = 0;

    assert_int_equal(make_group(x, "g", 0, 6, 3), SC_OK);
    settle(x, T0); /* a, b, a */
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 2, 0, T0 + MIN, &x->err), SC_OK);
    settle(x, T0 + MIN);
    g = sc_asg_group_find(x->asg, "g");
    for (int i = 0; i < sc_asg_group_instance_count(g); i++) {
        const struct sc_asg_instance_info *in = sc_asg_group_instance_at(g, i);

        a += strcmp(in->availability_zone, "us-east-1a") == 0;
        b += strcmp(in->availability_zone, "us-east-1b") == 0;
    }
    assert_int_equal(a, 1);
    assert_int_equal(b, 1);
}

static void test_asg_launch_goes_to_fewest_zone(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_group_info *g;

    assert_int_equal(make_group(x, "g", 0, 6, 4), SC_OK);
    settle(x, T0);
    g = sc_asg_group_find(x->asg, "g");
    assert_string_equal(sc_asg_group_instance_at(g, 0)->availability_zone, "us-east-1a");
    assert_string_equal(sc_asg_group_instance_at(g, 1)->availability_zone, "us-east-1b");
    assert_string_equal(sc_asg_group_instance_at(g, 2)->availability_zone, "us-east-1a");
    assert_string_equal(sc_asg_group_instance_at(g, 3)->availability_zone, "us-east-1b");
}

/* Group "g" of one instance from lc in one zone, max 5, scaled in by policy alone. */
static void make_policy_group(struct fx *x, const char *lc, const char *policy)
{
    const char *policies[] = { policy };
    static const char *const zones[] = { "us-east-1a" };
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .launch_configuration_name = lc,
                                  .has_min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = 5,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = 1,
                                  .availability_zones = zones,
                                  .navailability_zones = 1,
                                  .termination_policies = policies,
                                  .ntermination_policies = 1 };

    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
}

static void test_asg_termination_policy_newest_and_oldest(void **state)
{
    struct fx *x = *state;
    char first[SC_ASG_ID_LEN];

    make_lc(x, "lc", T0);
    make_policy_group(x, "lc", "NewestInstance");
    snprintf(first, sizeof(first), "%s", inst_id(x, "g", 0));
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 3, 0, T0 + MIN, &x->err), SC_OK);
    settle(x, T0 + MIN);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 1, 0, T0 + 2 * MIN, &x->err), SC_OK);
    settle(x, T0 + 2 * MIN);
    assert_int_equal(sc_asg_group_instance_count(sc_asg_group_find(x->asg, "g")), 1);
    assert_string_equal(inst_id(x, "g", 0), first);
}

/* OldestLaunchConfiguration: instances of a configuration deleted since they launched go
 * first (the oldest), before those of an older configuration that still exists. */
static void test_asg_termination_policy_deleted_configuration_is_oldest(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req u = { .auto_scaling_group_name = "g" };
    char from_old[SC_ASG_ID_LEN], from_gone[SC_ASG_ID_LEN];

    make_lc(x, "old", T0);
    make_lc(x, "gone", T0 + MIN);
    make_lc(x, "new", T0 + 2 * MIN);
    make_policy_group(x, "old", "OldestLaunchConfiguration");
    snprintf(from_old, sizeof(from_old), "%s", inst_id(x, "g", 0));
    /* one instance from "gone", then the group moves on to "new" and "gone" is deleted */
    u.launch_configuration_name = "gone";
    assert_int_equal(sc_asg_update_group(x->asg, &u, T0 + MIN, &x->err), SC_OK);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 2, 0, T0 + MIN, &x->err), SC_OK);
    settle(x, T0 + MIN);
    snprintf(from_gone, sizeof(from_gone), "%s", inst_id(x, "g", 1));
    u.launch_configuration_name = "new";
    assert_int_equal(sc_asg_update_group(x->asg, &u, T0 + 2 * MIN, &x->err), SC_OK);
    assert_int_equal(sc_asg_delete_launch_configuration(x->asg, "gone", T0 + 2 * MIN, &x->err),
                     SC_OK);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 1, 0, T0 + 3 * MIN, &x->err), SC_OK);
    settle(x, T0 + 3 * MIN);
    assert_int_equal(sc_asg_group_instance_count(sc_asg_group_find(x->asg, "g")), 1);
    assert_string_equal(inst_id(x, "g", 0), from_old);
    assert_string_not_equal(inst_id(x, "g", 0), from_gone);
}

static void test_asg_default_policy_must_be_last(void **state)
{
    struct fx *x = *state;
    static const char *const bad[] = { "Default", "OldestInstance" };
    static const char *const unknown[] = { "Youngest" };
    static const char *const zones[] = { "us-east-1a" };
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = 5,
                                  .availability_zones = zones,
                                  .navailability_zones = 1,
                                  .termination_policies = bad,
                                  .ntermination_policies = 2 };

    make_lc(x, "lc", T0);
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
    assert_non_null(strstr(x->err.message, "must be the last"));
    r.termination_policies = unknown;
    r.ntermination_policies = 1;
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_ERR_VALIDATION);
}

static void test_asg_protected_instances_not_scaled_in(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .has_new_instances_protected_from_scale_in = 1,
                                  .new_instances_protected_from_scale_in = 1 };

    assert_int_equal(make_group(x, "g", 0, 3, 0), SC_OK);
    assert_int_equal(sc_asg_update_group(x->asg, &r, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 2, 0, T0, &x->err), SC_OK);
    settle(x, T0);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 0, 0, T0 + MIN, &x->err), SC_OK);
    settle(x, T0 + MIN);
    assert_int_equal(count_state(x, "g", SC_ASG_IN_SERVICE), 2);
}

/* --- 3.8 deletion ---------------------------------------------------------------------------- */

static void test_asg_delete_refused_with_instances(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .has_min_size = 1,
                                  .has_max_size = 1,
                                  .has_desired_capacity = 1 };

    assert_int_equal(make_group(x, "g", 1, 1, 1), SC_OK);
    settle(x, T0);
    ASSERT_ERR(
        sc_asg_delete_group(x->asg, "g", 0, T0, &x->err), SC_ERR_RESOURCE_IN_USE,
        "You cannot delete an AutoScalingGroup while there are instances or pending Spot instance request(s) still in the group.");
    assert_int_equal(sc_asg_update_group(x->asg, &r, T0 + MIN, &x->err), SC_OK);
    sc_asg_step(x->asg, T0 + MIN);
    ASSERT_ERR(
        sc_asg_delete_group(x->asg, "g", 0, T0 + MIN, &x->err), SC_ERR_SCALING_ACTIVITY_IN_PROGRESS,
        "You cannot delete an AutoScalingGroup while there are scaling activities in progress for that group.");
    settle(x, T0 + MIN + 1);
    assert_int_equal(sc_asg_delete_group(x->asg, "g", 0, T0 + 2 * MIN, &x->err), SC_OK);
    assert_null(sc_asg_group_find(x->asg, "g"));
    assert_int_equal(sc_asg_group_count(x->asg), 0);
}

static void test_asg_force_delete(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_group_info *g;

    assert_int_equal(make_group(x, "g", 2, 2, 2), SC_OK);
    settle(x, T0);
    assert_int_equal(sc_asg_delete_group(x->asg, "g", 1, T0 + MIN, &x->err), SC_OK);
    g = sc_asg_group_find(x->asg, "g");
    assert_non_null(g);
    assert_string_equal(g->status, "Delete in progress");
    assert_int_equal(make_group(x, "g", 0, 1, 0), SC_ERR_ALREADY_EXISTS);
    assert_string_equal(x->err.message,
                        "AutoScalingGroup by this name already exists and is pending delete");
    settle(x, T0 + MIN);
    sc_asg_step(x->asg, T0 + MIN + 1);
    assert_null(sc_asg_group_find(x->asg, "g"));
}

static void test_asg_delete_lc_in_use_text(void **state)
{
    struct fx *x = *state;

    assert_int_equal(make_group(x, "g", 0, 1, 0), SC_OK);
    ASSERT_ERR(
        sc_asg_delete_launch_configuration(x->asg, "lc", T0, &x->err), SC_ERR_RESOURCE_IN_USE,
        "Cannot delete launch configuration lc because it is attached to AutoScalingGroup g");
    ASSERT_ERR(sc_asg_delete_launch_configuration(x->asg, "zz", T0, &x->err), SC_ERR_VALIDATION,
               "Launch configuration name not found - Launch configuration zz not found");
    make_lc(x, "other", T0);
    assert_int_equal(sc_asg_delete_launch_configuration(x->asg, "other", T0, &x->err), SC_OK);
    ASSERT_ERR(
        sc_asg_create_launch_configuration(
            x->asg,
            &(struct sc_asg_lc_req){ .launch_configuration_name = "lc",
                                     .image_id = "ami-1",
                                     .instance_type = "t3.micro" },
            T0, &x->err),
        SC_ERR_ALREADY_EXISTS,
        "Launch Configuration by this name already exists - A launch configuration already exists with the name lc");
}

/* --- 3.3 health ------------------------------------------------------------------------------ */

static void test_asg_lost_instance_replaced_even_in_grace(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .has_health_check_grace_period = 1,
                                  .health_check_grace_period = 600 };
    const struct sc_asg_activity_info *a = NULL;
    char id[SC_ASG_ID_LEN];

    assert_int_equal(make_group(x, "g", 1, 2, 1), SC_OK);
    assert_int_equal(sc_asg_update_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    snprintf(id, sizeof(id), "%s", inst_id(x, "g", 0));
    finst(&x->f, id)->state = SC_ASG_EC2_GONE; /* killed */
    sc_asg_step(x->asg, T0 + 30 * SEC);
    for (int i = 0; i < sc_asg_activity_count(x->asg, "g"); i++) {
        const struct sc_asg_activity_info *b = sc_asg_activity_at(x->asg, "g", i);

        if (strstr(b->description, "Terminating"))
            a = b;
    }
    assert_non_null(a);
    assert_string_equal(
        a->cause,
        "At 2026-01-01T00:00:30Z an instance was taken out of service in response to a EC2 health check indicating it has been terminated or stopped.");
    boot_all(x);
    sc_asg_step(x->asg, T0 + 40 * SEC);
    assert_int_equal(count_state(x, "g", SC_ASG_IN_SERVICE), 1);
    assert_string_not_equal(inst_id(x, "g", 0), id);
}

static struct sc_asg_group_req elb_group(void)
{
    static const char *const zones[] = { "us-east-1a" };
    static const char *const lbs[] = { "lb1" };

    return (struct sc_asg_group_req){ .auto_scaling_group_name = "g",
                                      .launch_configuration_name = "lc",
                                      .has_min_size = 1,
                                      .min_size = 1,
                                      .has_max_size = 1,
                                      .max_size = 3,
                                      .availability_zones = zones,
                                      .navailability_zones = 1,
                                      .load_balancer_names = lbs,
                                      .nload_balancer_names = 1,
                                      .health_check_type = "ELB",
                                      .has_health_check_grace_period = 1,
                                      .health_check_grace_period = 300 };
}

static void test_asg_registers_with_lb_before_in_service(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = elb_group();

    make_lc(x, "lc", T0);
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    sc_asg_step(x->asg, T0);
    assert_int_equal(x->f.inst[0].reg[0], 0);
    settle(x, T0 + SEC);
    assert_int_equal(x->f.inst[0].reg[0], 1);
    assert_int_equal(count_state(x, "g", SC_ASG_IN_SERVICE), 1);
    assert_string_equal(sc_asg_load_balancer_state(x->asg, sc_asg_group_find(x->asg, "g"), 0),
                        "InService");
}

static void test_asg_elb_unhealthy_only_after_grace(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = elb_group();

    make_lc(x, "lc", T0);
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    x->f.inst[0].lbstate[0] = SC_ASG_LB_OUT_OF_SERVICE;
    sc_asg_step(x->asg, T0 + 100 * SEC);
    assert_int_equal(count_state(x, "g", SC_ASG_IN_SERVICE), 1);
    assert_true(sc_asg_group_instance_at(sc_asg_group_find(x->asg, "g"), 0)->healthy);
    sc_asg_step(x->asg, T0 + 310 * SEC);
    assert_int_equal(count_state(x, "g", SC_ASG_TERMINATING), 1);
    /* in progress, newest first: the replacement launch, then the termination */
    assert_non_null(strstr(sc_asg_activity_at(x->asg, "g", 0)->description, "Launching"));
    assert_non_null(strstr(
        sc_asg_activity_at(x->asg, "g", 1)->cause,
        "an instance was taken out of service in response to an ELB system health check failure."));
}

static void test_asg_ec2_health_type_ignores_elb(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = elb_group();

    r.health_check_type = "EC2";
    make_lc(x, "lc", T0);
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    x->f.inst[0].lbstate[0] = SC_ASG_LB_OUT_OF_SERVICE;
    sc_asg_step(x->asg, T0 + 1000 * SEC);
    assert_int_equal(count_state(x, "g", SC_ASG_IN_SERVICE), 1);
}

static void test_asg_draining_awaited_before_terminate(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = elb_group();
    struct fake_inst *fi;

    x->f.drain = 1;
    r.min_size = 0;
    r.has_desired_capacity = 1;
    r.desired_capacity = 1;
    make_lc(x, "lc", T0);
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    fi = &x->f.inst[0];
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 0, 0, T0 + MIN, &x->err), SC_OK);
    sc_asg_step(x->asg, T0 + MIN);
    assert_int_equal(fi->state, SC_ASG_EC2_RUNNING); /* still draining */
    assert_string_equal(sc_asg_activity_at(x->asg, "g", 0)->status_code,
                        "WaitingForELBConnectionDraining");
    fi->lbstate[0] = SC_ASG_LB_NOT_REGISTERED; /* draining over */
    sc_asg_step(x->asg, T0 + 2 * MIN);
    assert_int_equal(fi->state, SC_ASG_EC2_SHUTTING_DOWN);
    boot_all(x);
    sc_asg_step(x->asg, T0 + 2 * MIN + 1);
    assert_int_equal(sc_asg_group_instance_count(sc_asg_group_find(x->asg, "g")), 0);
}

static void test_asg_set_instance_health_grace_rule(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .has_health_check_grace_period = 1,
                                  .health_check_grace_period = 300 };
    char id[SC_ASG_ID_LEN];

    assert_int_equal(make_group(x, "g", 1, 2, 1), SC_OK);
    assert_int_equal(sc_asg_update_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    snprintf(id, sizeof(id), "%s", inst_id(x, "g", 0));
    assert_int_equal(sc_asg_set_instance_health(x->asg, id, "Unhealthy", 1, T0 + MIN, &x->err),
                     SC_OK);
    sc_asg_step(x->asg, T0 + MIN);
    assert_int_equal(count_state(x, "g", SC_ASG_IN_SERVICE), 1);
    assert_int_equal(sc_asg_set_instance_health(x->asg, id, "Unhealthy", 0, T0 + MIN, &x->err),
                     SC_OK);
    assert_string_equal(
        sc_asg_health_str(sc_asg_group_instance_at(sc_asg_group_find(x->asg, "g"), 0)->healthy),
        "Unhealthy");
    assert_string_equal(sc_asg_health_upper_str(0), "UNHEALTHY");
    sc_asg_step(x->asg, T0 + MIN + 1);
    assert_int_equal(count_state(x, "g", SC_ASG_TERMINATING), 1);
    assert_non_null(
        strstr(sc_asg_activity_at(x->asg, "g", 1)->cause, "in response to a user health-check."));
    assert_int_equal(sc_asg_set_instance_health(x->asg, id, "Sick", 0, T0, &x->err),
                     SC_ERR_VALIDATION);
}

/* --- 3.6 processes, 3.7 standby / attach / detach -------------------------------------------- */

static void test_asg_suspended_launch_no_replacement(void **state)
{
    struct fx *x = *state;
    static const char *const launch[] = { "Launch" };
    const struct sc_asg_group_info *g;

    assert_int_equal(make_group(x, "g", 1, 2, 1), SC_OK);
    settle(x, T0);
    assert_int_equal(sc_asg_suspend_processes(x->asg, "g", launch, 1, T0, &x->err), SC_OK);
    g = sc_asg_group_find(x->asg, "g");
    assert_true(g->suspended & (1u << SC_ASG_PROC_LAUNCH));
    x->f.inst[0].state = SC_ASG_EC2_GONE;
    settle(x, T0 + MIN);
    settle(x, T0 + 2 * MIN);
    assert_int_equal(sc_asg_group_instance_count(sc_asg_group_find(x->asg, "g")), 0);
    assert_int_equal(sc_asg_resume_processes(x->asg, "g", NULL, 0, T0, &x->err), SC_OK);
    settle(x, T0 + 3 * MIN);
    assert_int_equal(count_state(x, "g", SC_ASG_IN_SERVICE), 1);
    assert_int_equal(
        sc_asg_suspend_processes(x->asg, "g", (const char *const[]){ "Nap" }, 1, T0, &x->err),
        SC_ERR_VALIDATION);
}

static void test_asg_suspended_terminate_no_scale_in(void **state)
{
    struct fx *x = *state;
    static const char *const term[] = { "Terminate" };

    assert_int_equal(make_group(x, "g", 0, 2, 2), SC_OK);
    settle(x, T0);
    assert_int_equal(sc_asg_suspend_processes(x->asg, "g", term, 1, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 0, 0, T0 + MIN, &x->err), SC_OK);
    settle(x, T0 + MIN);
    assert_int_equal(count_state(x, "g", SC_ASG_IN_SERVICE), 2);
}

static void test_asg_standby_enter_exit(void **state)
{
    struct fx *x = *state;
    const char *ids[1];
    char id[SC_ASG_ID_LEN], want[256];

    assert_int_equal(make_group(x, "g", 1, 3, 2), SC_OK);
    settle(x, T0);
    snprintf(id, sizeof(id), "%s", inst_id(x, "g", 0));
    ids[0] = id;
    assert_int_equal(sc_asg_enter_standby(x->asg, "g", ids, 1, 1, T0 + MIN, &x->err), SC_OK);
    snprintf(
        want, sizeof(want),
        "At 2026-01-01T00:01:00Z instance %s was moved to standby in response to a user request, shrinking the capacity from 2 to 1.",
        id);
    assert_string_equal(sc_asg_activity_at(x->asg, "g", 0)->cause, want);
    settle(x, T0 + MIN);
    assert_int_equal(count_state(x, "g", SC_ASG_STANDBY), 1);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 1);
    assert_int_equal(count_state(x, "g", SC_ASG_IN_SERVICE), 1);
    /* a second one would put desired below min */
    ids[0] = inst_id(x, "g", 1);
    assert_int_equal(sc_asg_enter_standby(x->asg, "g", ids, 1, 1, T0 + MIN, &x->err),
                     SC_ERR_VALIDATION);
    ids[0] = id;
    assert_int_equal(sc_asg_exit_standby(x->asg, "g", ids, 1, T0 + 2 * MIN, &x->err), SC_OK);
    assert_string_equal(sc_asg_activity_at(x->asg, "g", 0)->status_code, "PreInService");
    settle(x, T0 + 2 * MIN);
    assert_int_equal(count_state(x, "g", SC_ASG_IN_SERVICE), 2);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 2);
}

/* Each move names the state the instance is not in, and an unknown group is AWS's text. */
static void test_asg_standby_refuses_wrong_state(void **state)
{
    struct fx *x = *state;
    const char *ids[1];
    char id[SC_ASG_ID_LEN], want[128];

    assert_int_equal(make_group(x, "g", 0, 3, 2), SC_OK);
    settle(x, T0);
    snprintf(id, sizeof(id), "%s", inst_id(x, "g", 0));
    ids[0] = id;
    assert_int_equal(sc_asg_exit_standby(x->asg, "g", ids, 1, T0 + MIN, &x->err),
                     SC_ERR_VALIDATION);
    snprintf(want, sizeof(want), "The instance %s is not in Standby.", id);
    assert_string_equal(x->err.message, want);
    assert_int_equal(sc_asg_enter_standby(x->asg, "g", ids, 1, 0, T0 + MIN, &x->err), SC_OK);
    settle(x, T0 + MIN);
    assert_int_equal(sc_asg_enter_standby(x->asg, "g", ids, 1, 0, T0 + MIN, &x->err),
                     SC_ERR_VALIDATION);
    snprintf(want, sizeof(want), "The instance %s is not in InService.", id);
    assert_string_equal(x->err.message, want);
    assert_int_equal(sc_asg_enter_standby(x->asg, "nope", ids, 1, 0, T0 + MIN, &x->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(x->err.message,
                        "AutoScalingGroup name not found - AutoScalingGroup: nope not found");
    assert_int_equal(count_state(x, "g", SC_ASG_STANDBY), 1);
}

static void test_asg_attach_and_detach_instances(void **state)
{
    struct fx *x = *state;
    struct sc_asg_launch_spec spec = { .zone = "us-east-1a" };
    char loose[SC_ASG_ID_LEN];
    const char *ids[1] = { loose };

    assert_int_equal(make_group(x, "g", 0, 2, 1), SC_OK);
    settle(x, T0);
    assert_int_equal(f_run(&x->f, &spec, T0, loose, &x->err), SC_OK);
    assert_int_equal(sc_asg_attach_instances(x->asg, "g", ids, 1, T0, &x->err), SC_ERR_VALIDATION);
    boot_all(x);
    assert_int_equal(sc_asg_attach_instances(x->asg, "g", ids, 1, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 2);
    settle(x, T0 + 1);
    assert_int_equal(count_state(x, "g", SC_ASG_IN_SERVICE), 2);
    assert_int_equal(sc_asg_attach_instances(x->asg, "g", ids, 1, T0, &x->err), SC_ERR_VALIDATION);
    assert_int_equal(sc_asg_detach_instances(x->asg, "g", ids, 1, 1, T0 + MIN, &x->err), SC_OK);
    settle(x, T0 + MIN);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 1);
    assert_int_equal(sc_asg_group_instance_count(sc_asg_group_find(x->asg, "g")), 1);
    assert_int_equal(finst(&x->f, loose)->state, SC_ASG_EC2_RUNNING); /* EC2 keeps it */
}

/* --- tags, metrics, load balancers ------------------------------------------------------------ */

static void test_asg_tags_propagate_at_launch(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_tag_req tags[] = {
        { .resource_id = "g", .key = "env", .value = "prod", .propagate_at_launch = 1 },
        { .resource_id = "g", .key = "team", .value = "x", .propagate_at_launch = 0 },
    };

    assert_int_equal(make_group(x, "g", 0, 2, 0), SC_OK);
    assert_int_equal(sc_asg_create_or_update_tags(x->asg, tags, 2, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->ntags, 2);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 1, 0, T0, &x->err), SC_OK);
    sc_asg_step(x->asg, T0);
    assert_int_equal(x->f.inst[0].ntags, 2);
    assert_string_equal(x->f.inst[0].tags[0], "aws:autoscaling:groupName=g");
    assert_string_equal(x->f.inst[0].tags[1], "env=prod");
    assert_int_equal(sc_asg_delete_tags(x->asg, tags, 1, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->ntags, 1);
    assert_int_equal(
        sc_asg_create_or_update_tags(
            x->asg, &(struct sc_asg_tag_req){ .resource_id = "nope", .key = "k" }, 1, T0, &x->err),
        SC_ERR_VALIDATION);
}

static void test_asg_metrics_collection_each_minute(void **state)
{
    struct fx *x = *state;

    assert_int_equal(make_group(x, "g", 0, 2, 0), SC_OK);
    sc_asg_step(x->asg, T0);
    assert_int_equal(x->f.metric_puts, 0);
    assert_int_equal(sc_asg_enable_metrics_collection(x->asg, "g", NULL, 0, "5Minute", T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_int_equal(sc_asg_enable_metrics_collection(x->asg, "g", NULL, 0, "1Minute", T0, &x->err),
                     SC_OK);
    /* all metrics enabled; a group without a warm pool publishes the Group* ones (thirteen) */
    sc_asg_step(x->asg, T0 + 1);
    assert_int_equal(x->f.metric_puts, SC_ASG_METRIC_NO_POOL_COUNT);
    sc_asg_step(x->asg, T0 + 30 * SEC);
    assert_int_equal(x->f.metric_puts, SC_ASG_METRIC_NO_POOL_COUNT);
    assert_int_equal(sc_asg_next_due_ms(x->asg, T0 + 30 * SEC) <= T0 + MIN, 1);
    sc_asg_step(x->asg, T0 + MIN);
    assert_int_equal(x->f.metric_puts, 2 * SC_ASG_METRIC_NO_POOL_COUNT);
    assert_int_equal(sc_asg_disable_metrics_collection(x->asg, "g", NULL, 0, T0, &x->err), SC_OK);
    sc_asg_step(x->asg, T0 + 2 * MIN);
    assert_int_equal(x->f.metric_puts, 2 * SC_ASG_METRIC_NO_POOL_COUNT);
}

static void test_asg_attach_load_balancers_registers_in_service(void **state)
{
    struct fx *x = *state;
    static const char *const lbs[] = { "lb2" };
    static const char *const bad[] = { "lbX" };

    assert_int_equal(make_group(x, "g", 1, 2, 1), SC_OK);
    settle(x, T0);
    assert_int_equal(sc_asg_attach_load_balancers(x->asg, "g", bad, 1, T0, &x->err),
                     SC_ERR_VALIDATION);
    assert_int_equal(sc_asg_attach_load_balancers(x->asg, "g", lbs, 1, T0, &x->err), SC_OK);
    assert_int_equal(x->f.inst[0].reg[1], 1);
    assert_int_equal(sc_asg_detach_load_balancers(x->asg, "g", lbs, 1, T0, &x->err), SC_OK);
    assert_int_equal(x->f.inst[0].reg[1], 0);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->nload_balancer_names, 0);
}

/* The quota counts the names not yet attached, each once, before anything is attached. */
static void test_asg_attach_quota_checked_before_any_change(void **state)
{
    struct fx *x = *state;
    char names[SC_ASG_MAX_LOAD_BALANCERS + 1][16];
    const char *p[SC_ASG_MAX_LOAD_BALANCERS + 1];

    for (int i = 0; i <= SC_ASG_MAX_LOAD_BALANCERS; i++) {
        snprintf(names[i], sizeof(names[i]), "q%d", i);
        p[i] = names[i];
    }
    assert_int_equal(make_group(x, "g", 1, 2, 1), SC_OK);
    for (int i = 0; i < SC_ASG_MAX_LOAD_BALANCERS - 2; i += 10) /* a request names 10 at most */
        assert_int_equal(sc_asg_attach_load_balancers(x->asg, "g", p + i, i + 10 < 48 ? 10 : 48 - i,
                                                      T0, &x->err),
                         SC_OK);
    assert_int_equal(sc_asg_attach_load_balancers(x->asg, "g", p + 41, 10, T0, &x->err),
                     SC_ERR_LIMIT_EXCEEDED);
    assert_string_equal(
        x->err.message,
        "You have reached your quota of 50 Classic Load Balancers per Auto Scaling group.");
    assert_int_equal(sc_asg_group_find(x->asg, "g")->nload_balancer_names,
                     SC_ASG_MAX_LOAD_BALANCERS - 2);
    {
        const char *twice[] = { names[48], names[48], names[49], names[0] };

        assert_int_equal(sc_asg_attach_load_balancers(x->asg, "g", twice, 4, T0, &x->err), SC_OK);
    }
    assert_int_equal(sc_asg_group_find(x->asg, "g")->nload_balancer_names,
                     SC_ASG_MAX_LOAD_BALANCERS);
}

/* --- 4 policies ------------------------------------------------------------------------------ */

static const struct sc_asg_policy_info *put_simple(struct fx *x, const char *name, int adj,
                                                   int cooldown)
{
    const struct sc_asg_policy_info *p = NULL;
    struct sc_asg_policy_req r = { .auto_scaling_group_name = "g",
                                   .policy_name = name,
                                   .adjustment_type = "ChangeInCapacity",
                                   .has_scaling_adjustment = 1,
                                   .scaling_adjustment = adj,
                                   .has_cooldown = cooldown >= 0,
                                   .cooldown = cooldown };

    assert_int_equal(sc_asg_put_scaling_policy(x->asg, &r, T0, &p, &x->err), SC_OK);
    return p;
}

static void test_asg_policy_arn_format(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_policy_info *p;
    char arn[256];

    assert_int_equal(make_group(x, "g", 0, 5, 0), SC_OK);
    p = put_simple(x, "up", 1, -1);
    assert_int_equal(
        strncmp(p->policy_arn, "arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:", 57), 0);
    assert_non_null(strstr(p->policy_arn, ":autoScalingGroupName/g:policyName/up"));
    assert_int_equal(
        strlen(p->policy_arn),
        strlen(
            "arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy::autoScalingGroupName/g:policyName/up") +
            36);
    snprintf(arn, sizeof(arn), "%s", p->policy_arn);
    p = put_simple(x, "up", 2, -1); /* replace keeps the ARN */
    assert_string_equal(p->policy_arn, arn);
    assert_int_equal(sc_asg_policy_count(x->asg), 1);
    assert_int_equal(sc_asg_policy_find(x->asg, NULL, arn)->scaling_adjustment, 2);
}

static void test_asg_policy_validation(void **state)
{
    struct fx *x = *state;
    struct sc_asg_policy_req r = { .auto_scaling_group_name = "g",
                                   .policy_name = "p",
                                   .adjustment_type = "ChangeInCapacity" };

    assert_int_equal(make_group(x, "g", 0, 5, 0), SC_OK);
    assert_int_equal(sc_asg_put_scaling_policy(x->asg, &r, T0, NULL, &x->err), SC_ERR_VALIDATION);
    assert_non_null(strstr(x->err.message, "ScalingAdjustment is required"));
    r.has_scaling_adjustment = 1;
    r.has_min_adjustment_magnitude = 1;
    r.min_adjustment_magnitude = 2;
    assert_int_equal(sc_asg_put_scaling_policy(x->asg, &r, T0, NULL, &x->err), SC_ERR_VALIDATION);
    assert_non_null(strstr(x->err.message, "PercentChangeInCapacity"));
    r.policy_type = "StepScaling";
    r.has_scaling_adjustment = 0;
    r.has_min_adjustment_magnitude = 0;
    assert_int_equal(sc_asg_put_scaling_policy(x->asg, &r, T0, NULL, &x->err), SC_ERR_VALIDATION);
    assert_non_null(strstr(x->err.message, "at least one step"));
    r.policy_type = "Bogus";
    assert_int_equal(sc_asg_put_scaling_policy(x->asg, &r, T0, NULL, &x->err), SC_ERR_VALIDATION);
}

/* 4.3: the cooldown clock starts when the activity's instances finish launching. */
static void test_asg_simple_cooldown_starts_after_launch(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_policy_info *p;
    struct sc_asg_alarm_ctx ctx = { .alarm_name = "high" };

    assert_int_equal(make_group(x, "g", 1, 10, 1), SC_OK);
    settle(x, T0);
    p = put_simple(x, "up", 1, 300);
    assert_int_equal(sc_asg_alarm_action(x->asg, p->policy_arn, &ctx, T0 + MIN, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 2);
    assert_string_equal(sc_asg_group_find(x->asg, "g")->desired_capacity == 2 ? "ok" : "", "ok");
    sc_asg_step(x->asg, T0 + MIN);
    assert_non_null(strstr(
        sc_asg_activity_at(x->asg, "g", 0)->cause,
        "a monitor alarm high in state ALARM triggered policy up changing the desired capacity from 1 to 2."));
    /* still launching: ignored */
    assert_int_equal(sc_asg_alarm_action(x->asg, p->policy_arn, &ctx, T0 + 2 * MIN, &x->err),
                     SC_ERR_SCALING_ACTIVITY_IN_PROGRESS);
    boot_all(x);
    sc_asg_step(x->asg, T0 + 3 * MIN); /* launched: cooldown until +8 min */
    assert_int_equal(sc_asg_alarm_action(x->asg, p->policy_arn, &ctx, T0 + 7 * MIN, &x->err),
                     SC_ERR_SCALING_ACTIVITY_IN_PROGRESS);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 2);
    assert_int_equal(sc_asg_alarm_action(x->asg, p->policy_arn, &ctx, T0 + 8 * MIN, &x->err),
                     SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 3);
}

static void test_asg_execute_policy_honor_cooldown(void **state)
{
    struct fx *x = *state;
    struct sc_asg_exec_req e = { .auto_scaling_group_name = "g",
                                 .policy_name = "up",
                                 .honor_cooldown = 1 };

    assert_int_equal(make_group(x, "g", 1, 10, 1), SC_OK);
    settle(x, T0);
    put_simple(x, "up", 1, 300);
    assert_int_equal(sc_asg_execute_policy(x->asg, &e, T0, &x->err), SC_OK);
    settle(x, T0);
    assert_string_equal(
        sc_asg_activity_at(x->asg, "g", 0)->cause + 24,
        "a user request executed policy up changing the desired capacity from 1 to 2.  "
        "At 2026-01-01T00:00:00Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 1 to 2.");
    assert_int_equal(sc_asg_execute_policy(x->asg, &e, T0 + MIN, &x->err),
                     SC_ERR_SCALING_ACTIVITY_IN_PROGRESS);
    e.honor_cooldown = 0;
    assert_int_equal(sc_asg_execute_policy(x->asg, &e, T0 + MIN, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 3);
    e.has_metric_value = 1;
    assert_int_equal(sc_asg_execute_policy(x->asg, &e, T0 + MIN, &x->err), SC_ERR_VALIDATION);
}

static const struct sc_asg_policy_info *put_step(struct fx *x, int warmup)
{
    static const struct sc_step_adjustment steps[] = { { 1, 0, 1, 10, 0 },
                                                       { 1, 10, 1, 20, 10 },
                                                       { 1, 20, 0, 0, 30 } };
    const struct sc_asg_policy_info *p = NULL;
    struct sc_asg_policy_req r = { .auto_scaling_group_name = "g",
                                   .policy_name = "step",
                                   .policy_type = "StepScaling",
                                   .adjustment_type = "PercentChangeInCapacity",
                                   .step_adjustments = steps,
                                   .nstep_adjustments = 3,
                                   .has_estimated_instance_warmup = 1,
                                   .estimated_instance_warmup = warmup };

    assert_int_equal(sc_asg_put_scaling_policy(x->asg, &r, T0, &p, &x->err), SC_OK);
    return p;
}

/* 4.4: the user guide's worked example, with warm-up. */
static void test_asg_step_warmup_does_not_override(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_policy_info *p;
    struct sc_asg_alarm_ctx ctx = { .alarm_name = "hi", .has_metric_value = 1, .threshold = 50 };
    struct sc_asg_exec_req e = { .auto_scaling_group_name = "g", .policy_name = "step" };

    assert_int_equal(make_group(x, "g", 1, 20, 10), SC_OK);
    p = put_step(x, 300);
    settle(x, T0);
    sc_asg_step(x->asg, T0 + 10 * MIN); /* all warmed */
    ctx.metric_value = 60;
    assert_int_equal(sc_asg_alarm_action(x->asg, p->policy_arn, &ctx, T0 + 10 * MIN, &x->err),
                     SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 11);
    settle(x, T0 + 10 * MIN);
    /* the new instance is warming: the same breach gives nothing more */
    assert_int_equal(sc_asg_alarm_action(x->asg, p->policy_arn, &ctx, T0 + 11 * MIN, &x->err),
                     SC_ERR_SCALING_ACTIVITY_IN_PROGRESS);
    assert_string_equal(
        x->err.message,
        "Auto Scaling Policy not executed because its effect does not override in-progress scaling actions");
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 11);
    /* a bigger breach still counts only the warmed 10: +30% of 10 = 13 > 11 */
    ctx.metric_value = 70;
    assert_int_equal(sc_asg_alarm_action(x->asg, p->policy_arn, &ctx, T0 + 12 * MIN, &x->err),
                     SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 13);
    /* scale-in waits for warm-up */
    e.has_metric_value = e.has_breach_threshold = 1;
    e.metric_value = 5;
    e.breach_threshold = 50;
    assert_int_equal(sc_asg_execute_policy(x->asg, &e, T0 + 12 * MIN, &x->err), SC_ERR_VALIDATION);
    assert_non_null(strstr(x->err.message, "does not fall into any of the step adjustments"));
    e.has_breach_threshold = 0;
    assert_int_equal(sc_asg_execute_policy(x->asg, &e, T0 + 12 * MIN, &x->err), SC_ERR_VALIDATION);
}

static void test_asg_step_scale_in_blocked_while_warming(void **state)
{
    struct fx *x = *state;
    static const struct sc_step_adjustment in_steps[] = { { 0, 0, 1, 0, -1 } };
    struct sc_asg_policy_req r = { .auto_scaling_group_name = "g",
                                   .policy_name = "down",
                                   .policy_type = "StepScaling",
                                   .adjustment_type = "ChangeInCapacity",
                                   .step_adjustments = in_steps,
                                   .nstep_adjustments = 1 };
    struct sc_asg_exec_req e = { .auto_scaling_group_name = "g",
                                 .policy_name = "down",
                                 .has_metric_value = 1,
                                 .metric_value = 10,
                                 .has_breach_threshold = 1,
                                 .breach_threshold = 40 };

    assert_int_equal(make_group(x, "g", 1, 5, 3), SC_OK);
    assert_int_equal(sc_asg_put_scaling_policy(x->asg, &r, T0, NULL, &x->err), SC_OK);
    settle(x, T0);
    /* warm-up defaults to DefaultCooldown (300 s) */
    assert_int_equal(sc_asg_execute_policy(x->asg, &e, T0 + MIN, &x->err),
                     SC_ERR_SCALING_ACTIVITY_IN_PROGRESS);
    assert_int_equal(sc_asg_execute_policy(x->asg, &e, T0 + 5 * MIN, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 2);
}

static const struct sc_asg_policy_info *put_tt(struct fx *x, const char *name, double target,
                                               int disable_in)
{
    const struct sc_asg_policy_info *p = NULL;
    struct sc_asg_policy_req r = { .auto_scaling_group_name = "g",
                                   .policy_name = name,
                                   .policy_type = "TargetTrackingScaling",
                                   .has_target_tracking = 1,
                                   .target_tracking = { .predefined_metric_type =
                                                            "ASGAverageCPUUtilization",
                                                        .target_value = target,
                                                        .disable_scale_in = disable_in },
                                   .has_estimated_instance_warmup = 1,
                                   .estimated_instance_warmup = 60 };

    assert_int_equal(sc_asg_put_scaling_policy(x->asg, &r, T0, &p, &x->err), SC_OK);
    return p;
}

static void test_asg_target_tracking_alarms(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_policy_info *p;
    struct fake_alarm *hi, *lo;
    char want[400];

    assert_int_equal(make_group(x, "g", 1, 10, 2), SC_OK);
    p = put_tt(x, "tt", 50, 0);
    assert_non_null(p->alarm_names[0]);
    assert_non_null(p->alarm_names[1]);
    assert_int_equal(strncmp(p->alarm_names[0], "TargetTracking-g-AlarmHigh-", 27), 0);
    assert_int_equal(strlen(p->alarm_names[0]), 27 + 36);
    assert_int_equal(strncmp(p->alarm_names[1], "TargetTracking-g-AlarmLow-", 26), 0);
    hi = falarm(&x->f, p->alarm_names[0]);
    lo = falarm(&x->f, p->alarm_names[1]);
    assert_non_null(hi);
    assert_non_null(lo);
    snprintf(want, sizeof(want), "DO NOT EDIT OR DELETE. For TargetTrackingScaling policy %s.",
             p->policy_arn);
    assert_string_equal(hi->desc, want);
    assert_string_equal(hi->ns, "AWS/EC2");
    assert_string_equal(hi->metric, "CPUUtilization");
    assert_string_equal(hi->op, "GreaterThanThreshold");
    assert_true(hi->threshold == 50);
    assert_int_equal(hi->eval, 3);
    assert_int_equal(hi->dtoa, 3);
    assert_int_equal(hi->period, 60);
    assert_string_equal(hi->action, p->policy_arn);
    assert_string_equal(lo->op, "LessThanThreshold");
    assert_true(lo->threshold == 45);
    assert_int_equal(lo->eval, 15);
    /* DisableScaleIn: no Low alarm (and an update drops it) */
    p = put_tt(x, "tt", 50, 1);
    assert_null(p->alarm_names[1]);
    assert_null(falarm(&x->f, lo->name));
    assert_non_null(falarm(&x->f, p->alarm_names[0]));
    /* DeletePolicy deletes the alarms it owns */
    snprintf(want, sizeof(want), "%s", p->alarm_names[0]);
    assert_int_equal(sc_asg_delete_policy(x->asg, "g", "tt", T0, &x->err), SC_OK);
    assert_null(falarm(&x->f, want));
    assert_int_equal(sc_asg_delete_policy(x->asg, "g", "tt", T0, &x->err), SC_ERR_VALIDATION);
}

static void test_asg_target_tracking_scales_out_by_formula(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_policy_info *p;
    struct sc_asg_alarm_ctx ctx = { .has_metric_value = 1, .metric_value = 90 };

    assert_int_equal(make_group(x, "g", 1, 10, 2), SC_OK);
    p = put_tt(x, "tt", 50, 0);
    settle(x, T0);
    sc_asg_step(x->asg, T0 + 2 * MIN);
    ctx.alarm_name = p->alarm_names[0];
    assert_int_equal(sc_asg_alarm_action(x->asg, p->policy_arn, &ctx, T0 + 2 * MIN, &x->err),
                     SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 4); /* ceil(2*90/50) */
}

/* Several policies: scale in only when every scale-in-enabled one agrees. */
static void test_asg_target_tracking_scale_in_needs_all(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_policy_info *a, *b;
    struct sc_asg_alarm_ctx ctx = { .has_metric_value = 1, .metric_value = 10 };

    assert_int_equal(make_group(x, "g", 1, 10, 4), SC_OK);
    a = put_tt(x, "a", 50, 0);
    b = put_tt(x, "b", 40, 0);
    settle(x, T0);
    sc_asg_step(x->asg, T0 + 2 * MIN);
    ctx.alarm_name = a->alarm_names[1];
    assert_int_equal(sc_asg_alarm_action(x->asg, a->policy_arn, &ctx, T0 + 2 * MIN, &x->err),
                     SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 4);
    falarm(&x->f, b->alarm_names[1])->in_alarm = 1;
    assert_int_equal(sc_asg_alarm_action(x->asg, a->policy_arn, &ctx, T0 + 3 * MIN, &x->err),
                     SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 1); /* ceil(4*10/50) */
}

static void test_asg_delete_group_drops_policies_and_alarms(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_policy_info *p;
    char hi[160];

    assert_int_equal(make_group(x, "g", 0, 10, 0), SC_OK);
    p = put_tt(x, "tt", 50, 0);
    snprintf(hi, sizeof(hi), "%s", p->alarm_names[0]);
    put_simple(x, "up", 1, -1);
    assert_int_equal(sc_asg_policy_count(x->asg), 2);
    assert_int_equal(sc_asg_delete_group(x->asg, "g", 0, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_policy_count(x->asg), 0);
    assert_null(falarm(&x->f, hi));
}

static void test_asg_suspended_alarm_notification_runs_nothing(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_policy_info *p;
    static const char *const an[] = { "AlarmNotification" };
    struct sc_asg_alarm_ctx ctx = { .alarm_name = "a" };

    assert_int_equal(make_group(x, "g", 0, 10, 0), SC_OK);
    p = put_simple(x, "up", 1, -1);
    assert_int_equal(sc_asg_suspend_processes(x->asg, "g", an, 1, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_alarm_action(x->asg, p->policy_arn, &ctx, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 0);
}

static void test_asg_launch_failure_activity(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_activity_info *a;

    x->f.fail_launch = 1;
    assert_int_equal(make_group(x, "g", 1, 1, 1), SC_OK);
    sc_asg_step(x->asg, T0);
    a = sc_asg_activity_at(x->asg, "g", 0);
    assert_string_equal(a->status_code, "Failed");
    assert_string_equal(
        a->description,
        "Launching a new EC2 instance.  Status Reason: The image id '[ami-bad]' does not exist. Launching EC2 instance failed.");
    assert_non_null(strstr(a->details, "us-east-1a"));
    sc_asg_step(x->asg, T0 + SEC); /* the other zone is tried next */
    assert_int_equal(sc_asg_activity_count(x->asg, "g"), 2);
    assert_non_null(strstr(sc_asg_activity_at(x->asg, "g", 0)->details, "us-east-1b"));
    sc_asg_step(x->asg, T0 + 2 * SEC);
    assert_int_equal(sc_asg_activity_count(x->asg, "g"), 2); /* both failed: wait a minute */
    x->f.fail_launch = 0;
    sc_asg_step(x->asg, T0 + 2 * MIN);
    assert_int_equal(sc_asg_activity_count(x->asg, "g"), 3);
    assert_string_equal(sc_asg_activity_at(x->asg, "g", 0)->status_code, "PreInService");
}

/* A zone that cannot launch (AZ outage: InsufficientInstanceCapacity, whose text ends in a
 * period): one Failed activity there with a single period before "Launching EC2 instance
 * failed.", then the launch goes to the other zone at the next step. */
static void test_asg_launch_failure_in_a_zone_goes_to_another(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_activity_info *a;

    x->f.fail_launch = 2;
    assert_int_equal(make_group(x, "g", 1, 1, 1), SC_OK);
    sc_asg_step(x->asg, T0);
    a = sc_asg_activity_at(x->asg, "g", 0);
    assert_string_equal(a->status_code, "Failed");
    assert_string_equal(
        a->description,
        "Launching a new EC2 instance.  Status Reason: We currently do not have sufficient m1.large capacity in the Availability Zone you requested (us-east-1a). You can currently get m1.large capacity by choosing us-east-1b. Launching EC2 instance failed.");
    sc_asg_step(x->asg, T0 + SEC);
    a = sc_asg_activity_at(x->asg, "g", 0);
    assert_string_equal(a->status_code, "PreInService");
    assert_non_null(strstr(a->details, "us-east-1b"));
}

/* AZRebalance: terminating with decrement leaves the zones 2/0; a launch into the empty
 * zone comes first, then a termination in the full one. */
static void test_asg_az_rebalance_launch_before_terminate(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_group_info *g;
    int a = 0, b = 0;

    assert_int_equal(make_group(x, "g", 0, 6, 4), SC_OK);
    settle(x, T0); /* a b a b */
    g = sc_asg_group_find(x->asg, "g");
    for (int i = sc_asg_group_instance_count(g) - 1; i >= 0; i--)
        if (strcmp(sc_asg_group_instance_at(g, i)->availability_zone, "us-east-1b") == 0)
            assert_int_equal(sc_asg_terminate_instance(x->asg,
                                                       sc_asg_group_instance_at(g, i)->instance_id,
                                                       1, T0 + MIN, NULL, &x->err),
                             SC_OK);
    settle(x, T0 + MIN); /* 2 in a, 0 in b, desired 2 */
    settle(x, T0 + MIN + 1);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->desired_capacity, 2);
    assert_non_null(strstr(sc_asg_activity_at(x->asg, "g", 0)->cause,
                           "in response to an Availability Zone rebalancing"));
    settle(x, T0 + 2 * MIN);
    settle(x, T0 + 2 * MIN + 1);
    g = sc_asg_group_find(x->asg, "g");
    for (int i = 0; i < sc_asg_group_instance_count(g); i++) {
        a += strcmp(sc_asg_group_instance_at(g, i)->availability_zone, "us-east-1a") == 0;
        b += strcmp(sc_asg_group_instance_at(g, i)->availability_zone, "us-east-1b") == 0;
    }
    assert_int_equal(a, 1);
    assert_int_equal(b, 1);
    assert_int_equal(sc_asg_group_instance_count(g), 2);
}

static void test_asg_az_rebalance_skips_protected(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = { .auto_scaling_group_name = "g",
                                  .has_new_instances_protected_from_scale_in = 1,
                                  .new_instances_protected_from_scale_in = 1 };
    const struct sc_asg_group_info *g;

    assert_int_equal(make_group(x, "g", 0, 6, 0), SC_OK);
    assert_int_equal(sc_asg_update_group(x->asg, &r, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 4, 0, T0, &x->err), SC_OK);
    settle(x, T0); /* a b a b, all protected */
    g = sc_asg_group_find(x->asg, "g");
    for (int i = sc_asg_group_instance_count(g) - 1; i >= 0; i--)
        if (strcmp(sc_asg_group_instance_at(g, i)->availability_zone, "us-east-1b") == 0)
            assert_int_equal(sc_asg_terminate_instance(x->asg,
                                                       sc_asg_group_instance_at(g, i)->instance_id,
                                                       1, T0 + MIN, NULL, &x->err),
                             SC_OK);
    for (int k = 0; k < 5; k++)
        settle(x, T0 + (2 + k) * MIN);
    assert_int_equal(sc_asg_group_instance_count(sc_asg_group_find(x->asg, "g")), 2);
    assert_null(strstr(sc_asg_activity_at(x->asg, "g", 0)->cause, "rebalancing"));
}

static void test_asg_instance_index_survives_churn(void **state)
{
    struct fx *x = *state;
    char gone[SC_ASG_ID_LEN];

    assert_int_equal(make_group(x, "g", 0, 8, 8), SC_OK);
    for (int r = 0; r < 200; r++) {
        int64_t t = T0 + r * MIN;
        const struct sc_asg_group_info *g;

        settle(x, t);
        g = sc_asg_group_find(x->asg, "g");
        for (int i = 0; i < sc_asg_group_instance_count(g); i++) {
            const struct sc_asg_instance_info *out = NULL;

            assert_ptr_equal(
                sc_asg_instance_group(x->asg, sc_asg_group_instance_at(g, i)->instance_id, &out),
                g);
            assert_ptr_equal(out, sc_asg_group_instance_at(g, i));
        }
        snprintf(gone, sizeof(gone), "%s", sc_asg_group_instance_at(g, r % 8)->instance_id);
        assert_int_equal(sc_asg_terminate_instance(x->asg, gone, 0, t, NULL, &x->err), SC_OK);
        settle(x, t + 1);
        assert_null(sc_asg_instance_group(x->asg, gone, NULL));
    }
}

static void test_asg_lookups(void **state)
{
    struct fx *x = *state;
    struct sc_asg_account_limits l;
    int n = 0;

    assert_int_equal(make_group(x, "g", 0, 1, 0), SC_OK);
    sc_asg_account_limits(x->asg, &l);
    assert_int_equal(l.max_number_of_auto_scaling_groups, 500);
    assert_int_equal(l.max_number_of_launch_configurations, 200);
    assert_int_equal(l.number_of_auto_scaling_groups, 1);
    assert_int_equal(l.number_of_launch_configurations, 1);
    for (const char *const *p = sc_asg_scaling_process_types(); *p; p++)
        n++;
    assert_int_equal(n, SC_ASG_PROC_COUNT);
    assert_string_equal(sc_asg_adjustment_types()[2], "PercentChangeInCapacity");
    assert_string_equal(sc_asg_lifecycle_str(SC_ASG_TERMINATING_WAIT), "Terminating:Wait");
}

/* --- the census and the cached sweep signature ------------------------------------------- */

/* The fake's health summary for env.health_inputs_sig: every EC2 and load-balancer answer
 * it could give. */
static uint64_t f_health_sig(void *ud, int with_lb)
{
    struct fake *f = ud;
    uint64_t h = SC_HASH_FNV1A_BASIS;

    for (int i = 0; i < f->ninst; i++) {
        h = sc_hash_mix(h, (uint64_t)f->inst[i].state);
        for (int k = 0; with_lb && k < 4; k++)
            h = sc_hash_mix(h, (uint64_t)f->inst[i].lbstate[k]);
    }
    return h;
}

static struct sc_asg *census_asg(struct fx *x)
{
    return fx_asg(x, 1);
}

/* A random member of a random group, or NULL (then *g is NULL too when there is none). */
static const char *pick_member(struct fx *x, struct sc_rng *r, const char **g)
{
    int ng = sc_asg_group_count(x->asg), n;
    const struct sc_asg_group_info *gi;

    *g = NULL;
    if (ng == 0)
        return NULL;
    gi = sc_asg_group_at(x->asg, (int)sc_rng_below(r, (uint64_t)ng));
    *g = gi->auto_scaling_group_name;
    n = sc_asg_group_instance_count(gi);
    return n ? sc_asg_group_instance_at(gi, (int)sc_rng_below(r, (uint64_t)n))->instance_id : NULL;
}

/* One random operation (errors are fine: the check runs either way). Returns its name. */
static const char *census_op(struct fx *x, struct sc_rng *r, int64_t *now)
{
    static const char *const names[] = { "g0", "g1", "g2" };
    static const char *const zones[] = { "us-east-1a", "us-east-1b", "us-east-1c" };
    static const char *const lbs[] = { "lb1", "lb2" };
    static const char *const types[] = { "EC2", "ELB" };
    const char *g = NULL, *id = pick_member(x, r, &g);
    const char *gname = names[sc_rng_below(r, 3)];
    struct sc_error *err = &x->err;
    int op = (int)sc_rng_below(r, 21);

    switch (op) {
    case 0: {
        struct sc_asg_group_req q = { .auto_scaling_group_name = gname,
                                      .launch_configuration_name = "lc",
                                      .has_min_size = 1,
                                      .has_max_size = 1,
                                      .max_size = 1 + (int)sc_rng_below(r, 6),
                                      .availability_zones = zones,
                                      .navailability_zones = 1 + (int)sc_rng_below(r, 3),
                                      .health_check_type = types[sc_rng_below(r, 2)],
                                      .has_health_check_grace_period = 1,
                                      .health_check_grace_period = (int)sc_rng_below(r, 3) * 60,
                                      .load_balancer_names = lbs,
                                      .nload_balancer_names = (int)sc_rng_below(r, 3) };

        sc_asg_create_group(x->asg, &q, *now, err);
        return "create group";
    }
    case 1: {
        struct sc_asg_group_req q = { .auto_scaling_group_name = gname,
                                      .has_max_size = 1,
                                      .max_size = 1 + (int)sc_rng_below(r, 6),
                                      .has_health_check_grace_period = (int)sc_rng_below(r, 2),
                                      .health_check_grace_period = (int)sc_rng_below(r, 3) * 30,
                                      .health_check_type =
                                          sc_rng_below(r, 2) ? types[sc_rng_below(r, 2)] : NULL,
                                      .availability_zones = zones + sc_rng_below(r, 2),
                                      .navailability_zones = (int)sc_rng_below(r, 2) };

        sc_asg_update_group(x->asg, &q, *now, err);
        return "update group";
    }
    case 2:
        sc_asg_set_desired_capacity(x->asg, gname, (int)sc_rng_below(r, 7), 0, *now, err);
        return "set desired capacity";
    case 3:
        if (id)
            sc_asg_terminate_instance(x->asg, id, (int)sc_rng_below(r, 2), *now, NULL, err);
        return "terminate instance";
    case 4:
        if (id)
            sc_asg_set_instance_health(x->asg, id, sc_rng_below(r, 2) ? "Healthy" : "Unhealthy",
                                       (int)sc_rng_below(r, 2), *now, err);
        return "set instance health";
    case 5:
        if (g && x->f.ninst < MAXI - 40) {
            struct fake_inst *in = &x->f.inst[x->f.ninst++];
            const char *ids[1];

            memset(in, 0, sizeof(*in));
            sc_rng_instance_id(&x->f.rng, in->id);
            snprintf(in->zone, sizeof(in->zone), "%s", zones[sc_rng_below(r, 2)]);
            in->state = SC_ASG_EC2_RUNNING;
            ids[0] = in->id;
            sc_asg_attach_instances(x->asg, g, ids, 1, *now, err);
        }
        return "attach instance";
    case 6:
        if (id)
            sc_asg_detach_instances(x->asg, g, &id, 1, (int)sc_rng_below(r, 2), *now, err);
        return "detach instance";
    case 7:
        if (id)
            sc_asg_enter_standby(x->asg, g, &id, 1, (int)sc_rng_below(r, 2), *now, err);
        return "enter standby";
    case 8:
        if (id)
            sc_asg_exit_standby(x->asg, g, &id, 1, *now, err);
        return "exit standby";
    case 9:
    case 10: {
        const char *p = sc_asg_process_str((enum sc_asg_process)sc_rng_below(r, 7));

        if (op == 9)
            sc_asg_suspend_processes(x->asg, gname, &p, 1, *now, err);
        else
            sc_asg_resume_processes(x->asg, gname, &p, (int)sc_rng_below(r, 2), *now, err);
        return op == 9 ? "suspend process" : "resume processes";
    }
    case 11:
        sc_asg_attach_load_balancers(x->asg, gname, &lbs[sc_rng_below(r, 2)], 1, *now, err);
        return "attach load balancer";
    case 12:
        sc_asg_detach_load_balancers(x->asg, gname, &lbs[sc_rng_below(r, 2)], 1, *now, err);
        return "detach load balancer";
    case 13:
        sc_asg_delete_group(x->asg, gname, (int)sc_rng_below(r, 2), *now, err);
        return "delete group";
    case 14:
    case 20: { /* EC2 and load balancers change under the group */
        /* mostly a member, so impairments start and end while its group watches */
        struct fake_inst *in = id && sc_rng_below(r, 4) ? finst(&x->f, id)
                               : x->f.ninst ? &x->f.inst[sc_rng_below(r, (uint64_t)x->f.ninst)]
                                            : NULL;
        static const enum sc_asg_ec2_state st[] = { SC_ASG_EC2_RUNNING, SC_ASG_EC2_IMPAIRED,
                                                    SC_ASG_EC2_STOPPED };
        static const enum sc_asg_lb_state ls[] = { SC_ASG_LB_IN_SERVICE, SC_ASG_LB_OUT_OF_SERVICE,
                                                   SC_ASG_LB_NOT_REGISTERED };

        int nimp = 0;

        for (int i = 0; i < x->f.ninst; i++)
            nimp += x->f.inst[i].state == SC_ASG_EC2_IMPAIRED;
        if (nimp && sc_rng_below(r, 2)) { /* one recovers, maybe within the allowance */
            int k = (int)sc_rng_below(r, (uint64_t)nimp);

            for (int i = 0; i < x->f.ninst; i++)
                if (x->f.inst[i].state == SC_ASG_EC2_IMPAIRED && k-- == 0)
                    x->f.inst[i].state = SC_ASG_EC2_RUNNING;
            in = NULL;
        }
        if (in && in->state != SC_ASG_EC2_GONE && in->state != SC_ASG_EC2_SHUTTING_DOWN) {
            if (sc_rng_below(r, 2))
                in->state = st[sc_rng_below(r, 3)];
            else
                in->lbstate[sc_rng_below(r, 2)] = ls[sc_rng_below(r, 3)];
        }
        x->f.drain = (int)sc_rng_below(r, 2);
        return "EC2 or load balancer change";
    }
    case 15: {
        const char *m = "GroupInServiceInstances";

        sc_asg_enable_metrics_collection(x->asg, gname, &m, 1, "1Minute", *now, err);
        return "enable metrics";
    }
    case 16: {
        json_t *saved = sc_asg_save(x->asg);
        struct sc_asg *n = census_asg(x);

        assert_non_null(saved);
        assert_non_null(n);
        assert_int_equal(sc_asg_load(n, saved, err), SC_OK);
        json_decref(saved);
        sc_asg_destroy(x->asg);
        x->asg = n;
        return "save and load";
    }
    default: /* steps over time; instances boot, shut down, drain */
        *now += (int64_t)sc_rng_below(r, 4) * 5 * SEC;
        sc_asg_step(x->asg, *now);
        if (sc_rng_below(r, 2))
            boot_all(x);
        for (int i = 0; i < x->f.ninst; i++)
            for (int k = 0; k < 4; k++)
                if (x->f.inst[i].lbstate[k] == SC_ASG_LB_DRAINING && sc_rng_below(r, 2))
                    x->f.inst[i].lbstate[k] = SC_ASG_LB_NOT_REGISTERED;
        sc_asg_step(x->asg, *now);
        return "step";
    }
}

/* Every census count and cached signature part equals a recount from the instances after
 * any operation: no writer of what they summarize forgets to keep them. */
static void test_asg_census_matches_instances_after_every_operation(void **state)
{
    struct fx *x = *state;
    char why[256];

    for (uint64_t seed = 1; seed <= 30; seed++) {
        struct sc_rng r;
        int64_t now = T0;

        sc_asg_destroy(x->asg);
        memset(&x->f, 0, sizeof(x->f));
        sc_rng_init(&x->f.rng, seed + 100);
        x->f.lbs[0] = "lb1";
        x->f.lbs[1] = "lb2";
        x->f.nlbs = 2;
        x->asg = census_asg(x);
        assert_non_null(x->asg);
        make_lc(x, "lc", T0);
        sc_rng_init(&r, seed);
        for (int i = 0; i < 400 && x->f.ninst < MAXI - 40; i++) {
            const char *op = census_op(x, &r, &now);

            if (asg_self_check(x->asg, why, sizeof(why)) != 0)
                fail_msg("seed %d, operation %d (%s): %s", (int)seed, i, op, why);
        }
    }
}

/* --- deleted groups' activities (IncludeDeletedGroups) ---------------------------------- */

/* A group that launched one instance at t, scaled it in at t + 1 min and was deleted at
 * t + 2 min: two finished activities. */
static void group_with_history(struct fx *x, const char *name, int64_t t)
{
    assert_int_equal(make_group(x, name, 0, 2, 1), SC_OK);
    settle(x, t);
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, name, 0, 0, t + MIN, &x->err), SC_OK);
    settle(x, t + MIN);
    settle(x, t + MIN + 1);
    assert_int_equal(sc_asg_activity_count(x->asg, name), 2);
    assert_false(sc_asg_group_busy(x->asg, name));
    assert_int_equal(sc_asg_delete_group(x->asg, name, 0, t + 2 * MIN, &x->err), SC_OK);
}

static void test_asg_deleted_group_activities_kept_marked_deleted(void **state)
{
    struct fx *x = *state;
    const struct sc_asg_activity_info *a;
    char launch_id[SC_RNG_UUID_LEN];

    assert_int_equal(make_group(x, "other", 0, 2, 1), SC_OK);
    settle(x, T0);
    assert_int_equal(sc_asg_deleted_activity_count(x->asg, NULL), 0);
    group_with_history(x, "g", T0);
    /* gone from the live group's list ... */
    assert_null(sc_asg_group_find(x->asg, "g"));
    assert_int_equal(sc_asg_activity_count(x->asg, "g"), -1);
    /* ... kept in the deleted groups' list, newest first, marked Deleted */
    assert_int_equal(sc_asg_deleted_activity_count(x->asg, NULL), 2);
    assert_int_equal(sc_asg_deleted_activity_count(x->asg, "g"), 2);
    assert_int_equal(sc_asg_deleted_activity_count(x->asg, "other"), 0);
    a = sc_asg_deleted_activity_at(x->asg, "g", 0);
    assert_non_null(a);
    assert_non_null(strstr(a->description, "Terminating EC2 instance: i-"));
    assert_int_equal(a->group_deleted, 1);
    assert_string_equal(a->auto_scaling_group_name, "g");
    a = sc_asg_deleted_activity_at(x->asg, "g", 1);
    assert_non_null(strstr(a->description, "Launching a new EC2 instance: i-"));
    assert_int_equal(a->group_deleted, 1);
    assert_string_equal(a->status_code, "Successful");
    assert_ptr_equal(sc_asg_deleted_activity_at(x->asg, NULL, 1), a);
    assert_null(sc_asg_deleted_activity_at(x->asg, "g", 2));
    assert_null(sc_asg_deleted_activity_at(x->asg, "other", 0));
    snprintf(launch_id, sizeof(launch_id), "%s", a->activity_id);
    /* found by id, telling it is a deleted group's; the live group's are not marked */
    assert_ptr_equal(sc_asg_activity_find(x->asg, launch_id), a);
    assert_int_equal(sc_asg_activity_at(x->asg, "other", 0)->group_deleted, 0);
    /* a new group of the same name starts with no history; the old one stays */
    assert_int_equal(make_group(x, "g", 0, 2, 0), SC_OK);
    assert_int_equal(sc_asg_activity_count(x->asg, "g"), 0);
    assert_int_equal(sc_asg_deleted_activity_count(x->asg, "g"), 2);
    assert_int_equal(sc_asg_activity_find(x->asg, launch_id)->group_deleted, 1);
}

static void test_asg_force_deleted_group_activities_kept(void **state)
{
    struct fx *x = *state;

    assert_int_equal(make_group(x, "g", 2, 2, 2), SC_OK);
    settle(x, T0);
    assert_int_equal(sc_asg_delete_group(x->asg, "g", 1, T0 + MIN, &x->err), SC_OK);
    /* in progress: still the group's */
    assert_int_equal(sc_asg_deleted_activity_count(x->asg, NULL), 0);
    settle(x, T0 + MIN);
    sc_asg_step(x->asg, T0 + MIN + 1);
    assert_null(sc_asg_group_find(x->asg, "g"));
    /* two launches, two terminations "in response to a user request to delete the group" */
    assert_int_equal(sc_asg_deleted_activity_count(x->asg, "g"), 4);
    for (int i = 0; i < 4; i++) {
        const struct sc_asg_activity_info *a = sc_asg_deleted_activity_at(x->asg, "g", i);

        assert_int_equal(a->group_deleted, 1);
        assert_true(a->end_ms != 0);
        assert_non_null(strstr(a->description, i < 2 ? "Terminating" : "Launching"));
    }
    assert_non_null(strstr(sc_asg_deleted_activity_at(x->asg, "g", 0)->cause,
                           "in response to a user request to delete the group"));
}

static void test_asg_deleted_group_activities_trimmed_after_six_weeks(void **state)
{
    struct fx *x = *state;
    int64_t end_launch, end_term;

    group_with_history(x, "g", T0);
    end_term = sc_asg_deleted_activity_at(x->asg, "g", 0)->end_ms;
    end_launch = sc_asg_deleted_activity_at(x->asg, "g", 1)->end_ms;
    assert_true(end_launch < end_term);
    /* the same rule as a live group's: kept until six weeks after each one's end */
    sc_asg_step(x->asg, end_launch + ASG_ACTIVITY_KEEP_MS);
    assert_int_equal(sc_asg_deleted_activity_count(x->asg, "g"), 2);
    sc_asg_step(x->asg, end_launch + ASG_ACTIVITY_KEEP_MS + 1);
    assert_int_equal(sc_asg_deleted_activity_count(x->asg, "g"), 1);
    assert_non_null(strstr(sc_asg_deleted_activity_at(x->asg, "g", 0)->description, "Terminating"));
    sc_asg_step(x->asg, end_term + ASG_ACTIVITY_KEEP_MS);
    assert_int_equal(sc_asg_deleted_activity_count(x->asg, "g"), 1);
    sc_asg_step(x->asg, end_term + ASG_ACTIVITY_KEEP_MS + 1);
    assert_int_equal(sc_asg_deleted_activity_count(x->asg, NULL), 0);
    assert_null(sc_asg_deleted_activity_at(x->asg, NULL, 0));
}

static void test_asg_deleted_group_activities_bounded(void **state)
{
    struct fx *x = *state;
    int cycles = SC_ASG_MAX_DELETED_ACTIVITIES / 2 + 3;
    int64_t t = T0;
    const struct sc_asg_activity_info *a;

    /* memory stays flat: the oldest go past the bound; the newest first */
    for (int i = 0; i < cycles; i++) {
        char name[32];

        snprintf(name, sizeof(name), "g%04d", i);
        group_with_history(x, name, t);
        t += 3 * MIN;
        x->f.ninst = 0; /* the fake's instances are all gone */
    }
    assert_int_equal(sc_asg_deleted_activity_count(x->asg, NULL), SC_ASG_MAX_DELETED_ACTIVITIES);
    a = sc_asg_deleted_activity_at(x->asg, NULL, 0);
    assert_string_equal(a->auto_scaling_group_name, "g0502");
    assert_non_null(strstr(a->description, "Terminating"));
    a = sc_asg_deleted_activity_at(x->asg, NULL, SC_ASG_MAX_DELETED_ACTIVITIES - 1);
    assert_string_equal(a->auto_scaling_group_name, "g0003");
    assert_non_null(strstr(a->description, "Launching"));
    assert_int_equal(sc_asg_deleted_activity_count(x->asg, "g0002"), 0);
    for (int i = 1; i < SC_ASG_MAX_DELETED_ACTIVITIES; i++)
        assert_true(sc_asg_deleted_activity_at(x->asg, NULL, i - 1)->start_ms >=
                    sc_asg_deleted_activity_at(x->asg, NULL, i)->start_ms);
}

static void test_asg_deleted_group_activities_survive_save_load(void **state)
{
    struct fx *x = *state;
    json_t *saved, *again, *old;
    struct sc_asg *n, *o;

    group_with_history(x, "a", T0);
    group_with_history(x, "b", T0 + 10 * MIN);
    saved = sc_asg_save(x->asg);
    assert_non_null(saved);
    assert_int_equal(json_array_size(json_object_get(saved, "deleted_activities")), 4);
    n = census_asg(x);
    assert_int_equal(sc_asg_load(n, saved, &x->err), SC_OK);
    assert_int_equal(sc_asg_deleted_activity_count(n, NULL), 4);
    for (int i = 0; i < 4; i++) {
        const struct sc_asg_activity_info *p = sc_asg_deleted_activity_at(x->asg, NULL, i);
        const struct sc_asg_activity_info *q = sc_asg_deleted_activity_at(n, NULL, i);

        assert_string_equal(p->activity_id, q->activity_id);
        assert_string_equal(p->cause, q->cause);
        assert_int_equal(p->end_ms, q->end_ms);
        assert_int_equal(q->group_deleted, 1);
        assert_ptr_equal(sc_asg_activity_find(n, q->activity_id), q);
    }
    assert_string_equal(sc_asg_deleted_activity_at(n, NULL, 0)->auto_scaling_group_name, "b");
    again = sc_asg_save(n);
    assert_true(json_equal(saved, again));
    /* and they keep expiring after the load */
    sc_asg_step(n, T0 + 20 * MIN + ASG_ACTIVITY_KEEP_MS);
    assert_int_equal(sc_asg_deleted_activity_count(n, NULL), 0);
    /* a state file written before the list existed loads, with none */
    old = json_deep_copy(saved);
    assert_int_equal(json_object_del(old, "deleted_activities"), 0);
    o = census_asg(x);
    assert_int_equal(sc_asg_load(o, old, &x->err), SC_OK);
    assert_int_equal(sc_asg_deleted_activity_count(o, NULL), 0);
    sc_asg_destroy(o);
    json_decref(old);
    /* an entry not marked deleted is refused, and the asg stays empty */
    old = json_deep_copy(saved);
    json_object_set_new(json_array_get(json_object_get(old, "deleted_activities"), 0),
                        "group_deleted", json_false());
    o = census_asg(x);
    assert_int_equal(sc_asg_load(o, old, &x->err), SC_ERR_VALIDATION);
    assert_non_null(strstr(x->err.message, "is not marked deleted"));
    assert_int_equal(sc_asg_deleted_activity_count(o, NULL), 0);
    sc_asg_destroy(o);
    json_decref(old);
    json_decref(again);
    json_decref(saved);
    sc_asg_destroy(n);
}

/* CapacityRebalance (docs/autoscaling.md): false unless sent, kept as sent by Create,
 * changed only by an Update that sends it, and kept across a save and load. */
static void test_asg_capacity_rebalance_kept_as_sent(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req up = { .auto_scaling_group_name = "g",
                                   .has_capacity_rebalance = 1,
                                   .capacity_rebalance = 1 };
    struct sc_asg_group_req other = { .auto_scaling_group_name = "g",
                                      .has_max_size = 1,
                                      .max_size = 5 };
    json_t *saved;
    struct sc_asg *n;

    assert_int_equal(make_group(x, "g", 0, 4, 0), SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->capacity_rebalance, 0);
    assert_int_equal(sc_asg_update_group(x->asg, &up, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->capacity_rebalance, 1);
    assert_int_equal(sc_asg_update_group(x->asg, &other, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(x->asg, "g")->capacity_rebalance, 1);
    saved = sc_asg_save(x->asg);
    n = census_asg(x);
    assert_int_equal(sc_asg_load(n, saved, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(n, "g")->capacity_rebalance, 1);
    up.capacity_rebalance = 0;
    assert_int_equal(sc_asg_update_group(n, &up, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_find(n, "g")->capacity_rebalance, 0);
    sc_asg_destroy(n);
    json_decref(saved);
}

/* PlacementGroup, Context and ServiceLinkedRoleARN are kept as sent (an update without
 * them keeps them), through a save and load; a MaxInstanceLifetime below a day is refused
 * with nothing changed. A launch configuration's other members are kept as sent. */
static void test_asg_kept_members_and_short_max_instance_lifetime_refused(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req up = { .auto_scaling_group_name = "g",
                                   .placement_group = "pg",
                                   .context = "ctx",
                                   .service_linked_role_arn = "arn:aws:iam::123456789012:role/r" };
    struct sc_asg_group_req life = { .auto_scaling_group_name = "g",
                                     .has_max_instance_lifetime = 1,
                                     .max_instance_lifetime = 3600,
                                     .has_max_size = 1,
                                     .max_size = 7 };
    struct sc_asg_lc_req lr = { .launch_configuration_name = "lc2",
                                .image_id = "ami-12c6146b",
                                .instance_type = "t3.micro" };
    json_t *other = json_pack("{s:s,s:b}", "KernelId", "aki-1", "EbsOptimized", 1);
    const struct sc_asg_group_info *g;
    json_t *saved;
    struct sc_asg *n;

    assert_int_equal(make_group(x, "g", 0, 4, 0), SC_OK);
    assert_int_equal(sc_asg_update_group(x->asg, &up, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_update_group(x->asg, &life, T0, &x->err), SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, "MaxInstanceLifetime must be 0 or at least 86400 seconds.");
    g = sc_asg_group_find(x->asg, "g");
    assert_int_equal(g->max_size, 4);
    assert_false(g->has_max_instance_lifetime);
    lr.other = other;
    assert_int_equal(sc_asg_create_launch_configuration(x->asg, &lr, T0, &x->err), SC_OK);
    json_decref(other); /* copied */
    saved = sc_asg_save(x->asg);
    n = census_asg(x);
    assert_int_equal(sc_asg_load(n, saved, &x->err), SC_OK);
    g = sc_asg_group_find(n, "g");
    assert_string_equal(g->placement_group, "pg");
    assert_string_equal(g->context, "ctx");
    assert_string_equal(g->service_linked_role_arn, "arn:aws:iam::123456789012:role/r");
    assert_string_equal(
        json_string_value(json_object_get(sc_asg_lc_find(n, "lc2")->other, "KernelId")), "aki-1");
    sc_asg_destroy(n);
    json_decref(saved);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_asg_desired_defaults_to_min),
        T(test_asg_max_below_min_text),
        T(test_asg_desired_outside_text),
        T(test_asg_already_exists_text),
        T(test_asg_unknown_launch_configuration_text),
        T(test_asg_group_not_found_text),
        T(test_asg_zones_or_subnets_required),
        T(test_asg_unknown_load_balancer_text),
        T(test_asg_update_min_raises_desired_max_lowers),
        T(test_asg_launch_cause_sentences_two_spaces),
        T(test_asg_update_cause_text),
        T(test_asg_activities_in_progress_first_then_newest),
        T(test_asg_activity_history_bounded),
        T(test_asg_set_desired_capacity_bounds_text),
        T(test_asg_terminate_decrement_min_size_text),
        T(test_asg_terminate_with_decrement_shrinks),
        T(test_asg_terminate_without_decrement_replaces),
        T(test_asg_lifecycle_counts_by_state),
        T(test_asg_scale_in_selected_for_termination),
        T(test_asg_scale_in_balances_zones),
        T(test_asg_launch_goes_to_fewest_zone),
        T(test_asg_termination_policy_newest_and_oldest),
        T(test_asg_termination_policy_deleted_configuration_is_oldest),
        T(test_asg_default_policy_must_be_last),
        T(test_asg_protected_instances_not_scaled_in),
        T(test_asg_delete_refused_with_instances),
        T(test_asg_force_delete),
        T(test_asg_delete_lc_in_use_text),
        T(test_asg_lost_instance_replaced_even_in_grace),
        T(test_asg_registers_with_lb_before_in_service),
        T(test_asg_elb_unhealthy_only_after_grace),
        T(test_asg_ec2_health_type_ignores_elb),
        T(test_asg_draining_awaited_before_terminate),
        T(test_asg_set_instance_health_grace_rule),
        T(test_asg_suspended_launch_no_replacement),
        T(test_asg_suspended_terminate_no_scale_in),
        T(test_asg_standby_enter_exit),
        T(test_asg_standby_refuses_wrong_state),
        T(test_asg_attach_and_detach_instances),
        T(test_asg_tags_propagate_at_launch),
        T(test_asg_metrics_collection_each_minute),
        T(test_asg_attach_load_balancers_registers_in_service),
        T(test_asg_attach_quota_checked_before_any_change),
        T(test_asg_policy_arn_format),
        T(test_asg_policy_validation),
        T(test_asg_simple_cooldown_starts_after_launch),
        T(test_asg_execute_policy_honor_cooldown),
        T(test_asg_step_warmup_does_not_override),
        T(test_asg_step_scale_in_blocked_while_warming),
        T(test_asg_target_tracking_alarms),
        T(test_asg_target_tracking_scales_out_by_formula),
        T(test_asg_target_tracking_scale_in_needs_all),
        T(test_asg_delete_group_drops_policies_and_alarms),
        T(test_asg_deleted_group_activities_kept_marked_deleted),
        T(test_asg_force_deleted_group_activities_kept),
        T(test_asg_deleted_group_activities_trimmed_after_six_weeks),
        T(test_asg_deleted_group_activities_bounded),
        T(test_asg_deleted_group_activities_survive_save_load),
        T(test_asg_capacity_rebalance_kept_as_sent),
        T(test_asg_kept_members_and_short_max_instance_lifetime_refused),
        T(test_asg_suspended_alarm_notification_runs_nothing),
        T(test_asg_launch_failure_activity),
        T(test_asg_launch_failure_in_a_zone_goes_to_another),
        T(test_asg_az_rebalance_launch_before_terminate),
        T(test_asg_az_rebalance_skips_protected),
        T(test_asg_instance_index_survives_churn),
        T(test_asg_lookups),
        T(test_asg_census_matches_instances_after_every_operation),
    };
#undef T

    return cmocka_run_group_tests(tests, NULL, NULL);
}
