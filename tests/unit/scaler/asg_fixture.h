/* tests/unit/scaler/asg_fixture.h: the fake EC2 and load balancer the sc_asg rule tests share
 * (test_asg_hook.c, test_asg_protect.c, test_asg_mixed.c, test_asg_refresh.c,
 * test_asg_warm.c): instances that boot when the test says so (settle), terminations that
 * pass through shutting-down, stops and starts (warm pools), launches that fail on demand,
 * one load balancer "lb" whose registrations and health the test can set and read, the
 * group metrics last published, and the group's step with its self check. Static
 * inline, one copy per test binary (the Makefile builds each tests/unit/<folder>/test_*.c
 * alone). Include after <cmocka.h>; a test may define FX_MAXI first. */
#ifndef TESTS_UNIT_SCALER_ASG_FIXTURE_H
#define TESTS_UNIT_SCALER_ASG_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/asg.h"
#include "scaler/asg_internal.h"
#include "scaler/rng.h"

#define T0  1767225600000LL /* 2026-01-01T00:00:00Z */
#define SEC 1000LL
#ifndef FX_MAXI
#define FX_MAXI 32
#endif

struct fake_inst {
    char id[SC_ASG_ID_LEN];
    char zone[SC_ASG_ID_LEN];
    char type[SC_ASG_ID_LEN];
    char lt[SC_ASG_ID_LEN]; /* the template id or name launched from */
    char version[8];        /* the launch template version launched, "-" for none */
    enum sc_asg_ec2_state state;
    int registered; /* with "lb" */
    int ever_registered;
    int lb_out; /* "lb"'s health check fails it */
    int stops, starts;
};

struct fake {
    struct sc_rng rng;
    struct fake_inst inst[FX_MAXI];
    int ninst;
    int drain;             /* deregistration leaves the instance draining until cleared */
    int slow_stop;         /* stops stay stopping until the test moves them to stopped */
    const char *fail_type; /* launches of this type fail (no capacity; test_asg_mixed) */
    int fail_launches;     /* every launch fails (no capacity) */
    int runs;              /* run_instance calls that launched */
    double metric[SC_ASG_METRIC_COUNT]; /* the last value of each group metric, by sc_asg_metric_str
                                           index */
    int metric_puts;                    /* group metric datapoints put */
};

struct fx {
    struct fake f;
    struct sc_rng rng;
    struct sc_asg *asg;
    struct sc_error err;
    int64_t now; /* for tests that keep their clock here */
};

static inline struct fake_inst *finst(struct fake *f, const char *id)
{
    for (int i = 0; i < f->ninst; i++)
        if (strcmp(f->inst[i].id, id) == 0)
            return &f->inst[i];
    return NULL;
}

/* A new pending instance of spec s and the given type. */
static inline enum sc_status fake_launch(struct fake *f, const struct sc_asg_launch_spec *s,
                                         const char *type, char id[SC_ASG_ID_LEN],
                                         struct sc_error *err)
{
    struct fake_inst *in;

    if (f->fail_launches)
        return sc_fail(err, SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY,
                       "We currently do not have sufficient capacity");
    if (f->ninst == FX_MAXI)
        return sc_fail(err, SC_ERR_INTERNAL, "fake full");
    in = &f->inst[f->ninst++];
    memset(in, 0, sizeof(*in));
    sc_rng_instance_id(&f->rng, in->id);
    snprintf(in->zone, sizeof(in->zone), "%s", s->zone ? s->zone : "");
    snprintf(in->type, sizeof(in->type), "%s", type ? type : "");
    snprintf(in->lt, sizeof(in->lt), "%s",
             s->launch_template_id     ? s->launch_template_id
             : s->launch_template_name ? s->launch_template_name
                                       : "");
    snprintf(in->version, sizeof(in->version), "%s",
             s->launch_template_version ? s->launch_template_version : "-");
    in->state = SC_ASG_EC2_PENDING;
    f->runs++;
    snprintf(id, SC_ASG_ID_LEN, "%s", in->id);
    return SC_OK;
}

static inline enum sc_status f_run(void *ud, const struct sc_asg_launch_spec *s, int64_t now,
                                   char id[SC_ASG_ID_LEN], struct sc_error *err)
{
    (void)now;
    return fake_launch(ud, s, s->instance_type, id, err);
}

static inline void f_term(void *ud, const char *id, int64_t now)
{
    struct fake_inst *in = finst(ud, id);

    (void)now;
    if (in && in->state != SC_ASG_EC2_GONE)
        in->state = SC_ASG_EC2_SHUTTING_DOWN;
}

static inline void f_stop(void *ud, const char *id, int64_t now)
{
    struct fake_inst *in = finst(ud, id);

    (void)now;
    if (in) {
        in->state = ((struct fake *)ud)->slow_stop ? SC_ASG_EC2_STOPPING : SC_ASG_EC2_STOPPED;
        in->stops++;
    }
}

static inline void f_start(void *ud, const char *id, int64_t now)
{
    struct fake_inst *in = finst(ud, id);

    (void)now;
    if (in && in->state == SC_ASG_EC2_STOPPED) {
        in->state = SC_ASG_EC2_PENDING;
        in->starts++;
    }
}

static inline enum sc_asg_ec2_state f_state(void *ud, const char *id)
{
    struct fake_inst *in = finst(ud, id);

    return in ? in->state : SC_ASG_EC2_GONE;
}

static inline int f_zone_valid(void *ud, const char *zone)
{
    (void)ud;
    return strcmp(zone, "us-east-1a") == 0 || strcmp(zone, "us-east-1b") == 0;
}

static inline int f_lb_exists(void *ud, const char *lb)
{
    (void)ud;
    return strcmp(lb, "lb") == 0;
}

static inline void f_lb_reg(void *ud, const char *lb, const char *id, int64_t now)
{
    struct fake_inst *in = finst(ud, id);

    (void)lb;
    (void)now;
    if (in)
        in->registered = in->ever_registered = 1;
}

static inline void f_lb_dereg(void *ud, const char *lb, const char *id, int64_t now)
{
    struct fake_inst *in = finst(ud, id);

    (void)lb;
    (void)now;
    if (in)
        in->registered = 0;
}

static inline enum sc_asg_lb_state f_lb_state(void *ud, const char *lb, const char *id)
{
    struct fake *f = ud;
    struct fake_inst *in = finst(f, id);

    (void)lb;
    if (!in)
        return SC_ASG_LB_NOT_REGISTERED;
    if (in->registered)
        return in->lb_out ? SC_ASG_LB_OUT_OF_SERVICE : SC_ASG_LB_IN_SERVICE;
    return f->drain ? SC_ASG_LB_DRAINING : SC_ASG_LB_NOT_REGISTERED;
}

static inline void f_put_metric(void *ud, const char *ns, const char *name, const char *dn,
                                const char *dv, double v, const char *unit, int64_t now)
{
    struct fake *f = ud;

    (void)ns;
    (void)dn;
    (void)dv;
    (void)unit;
    (void)now;
    f->metric_puts++;
    for (int m = 0; m < SC_ASG_METRIC_COUNT; m++)
        if (strcmp(sc_asg_metric_str(m), name) == 0)
            f->metric[m] = v;
}

/* The fake's callbacks; a test sets more fields (launch_template_resolve) before
 * fx_asg_with. */
static inline struct sc_asg_env fx_env(struct fx *x)
{
    return (struct sc_asg_env){
        .ud = &x->f,
        .run_instance = f_run,
        .terminate_instance = f_term,
        .instance_state = f_state,
        .zone_valid = f_zone_valid,
        .lb_exists = f_lb_exists,
        .lb_register = f_lb_reg,
        .lb_deregister = f_lb_dereg,
        .lb_instance_state = f_lb_state,
        .put_metric = f_put_metric,
        .stop_instance = f_stop,
        .start_instance = f_start,
    };
}

/* A fixture (seeds 1 and 2) without its sc_asg, or NULL. */
static inline struct fx *fx_alloc(void)
{
    struct fx *x = calloc(1, sizeof(*x));

    if (x) {
        sc_rng_init(&x->rng, 1);
        sc_rng_init(&x->f.rng, 2);
    }
    return x;
}

/* An sc_asg drawing on x->rng over env (fx_env's, or a test's with more callbacks). */
static inline struct sc_asg *fx_asg_with(struct fx *x, struct sc_asg_env env)
{
    struct sc_asg_config cfg = { 0 };

    cfg.rng = &x->rng;
    cfg.env = env;
    return sc_asg_create(&cfg);
}

static inline struct sc_asg *fx_asg(struct fx *x)
{
    return fx_asg_with(x, fx_env(x));
}

/* Group g over launch configuration "lc": min 0, max 5, desired, in us-east-1a, behind "lb"
 * when lb is set. */
static inline struct sc_asg_group_req fx_group_req(const char *g, int desired, int lb)
{
    static const char *const zones[] = { "us-east-1a" };
    static const char *const lbs[] = { "lb" };
    struct sc_asg_group_req r = { .auto_scaling_group_name = g,
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .min_size = 0,
                                  .has_max_size = 1,
                                  .max_size = 5,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = desired,
                                  .availability_zones = zones,
                                  .navailability_zones = 1,
                                  .load_balancer_names = lb ? lbs : NULL,
                                  .nload_balancer_names = lb ? 1 : 0 };

    return r;
}

/* The launch configuration "lc" (ami-1, t3.micro; made on the first call) and fx_group_req's
 * group. */
static inline enum sc_status fx_group(struct fx *x, const char *g, int desired, int lb)
{
    struct sc_asg_lc_req lc = { .launch_configuration_name = "lc",
                                .image_id = "ami-1",
                                .instance_type = "t3.micro" };
    struct sc_asg_group_req r = fx_group_req(g, desired, lb);

    if (!sc_asg_lc_find(x->asg, "lc") &&
        sc_asg_create_launch_configuration(x->asg, &lc, T0, &x->err) != SC_OK)
        return x->err.status;
    return sc_asg_create_group(x->asg, &r, T0, &x->err);
}

static inline int fx_teardown(void **state)
{
    struct fx *x = *state;

    sc_asg_destroy(x->asg);
    free(x);
    return 0;
}

/* step, data plane (pending boots, shutting-down goes), step twice; then the caches
 * recounted */
static inline void settle(struct fx *x, int64_t now)
{
    char why[256];

    sc_asg_step(x->asg, now);
    for (int i = 0; i < x->f.ninst; i++) {
        if (x->f.inst[i].state == SC_ASG_EC2_PENDING)
            x->f.inst[i].state = SC_ASG_EC2_RUNNING;
        else if (x->f.inst[i].state == SC_ASG_EC2_SHUTTING_DOWN)
            x->f.inst[i].state = SC_ASG_EC2_GONE;
    }
    sc_asg_step(x->asg, now + 1);
    sc_asg_step(x->asg, now + 2);
    if (asg_self_check(x->asg, why, sizeof(why)) != 0)
        fail_msg("self check: %s", why);
}

#endif
