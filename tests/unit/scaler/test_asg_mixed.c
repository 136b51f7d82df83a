/* tests/unit/scaler/test_asg_mixed.c: scaler/asg_mixed.c (and the step and launches it
 * drives) against a fake EC2: one test per rule of docs/autoscaling.md; time passed in. */
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

#define FX_MAXI 64
#include "tests/unit/scaler/asg_fixture.h"

/* Two templates: lt-0aaa "web" (t3.micro, versions 1..2) and lt-0bbb "arm" (c5.large). */
static const struct {
    const char *id, *name, *type;
} templates[] = { { "lt-0aaa", "web", "t3.micro" }, { "lt-0bbb", "arm", "c5.large" } };

static enum sc_status f_lt_resolve(void *ud, const char *id, const char *name, const char *version,
                                   struct sc_asg_lt_resolved *out, struct sc_error *err)
{
    (void)ud;
    for (size_t k = 0; k < sizeof(templates) / sizeof(templates[0]); k++) {
        if ((id && strcmp(id, templates[k].id) == 0) ||
            (!id && name && strcmp(name, templates[k].name) == 0)) {
            if (version && strcmp(version, "$Latest") != 0 && strcmp(version, "$Default") != 0 &&
                strcmp(version, "1") != 0 && strcmp(version, "2") != 0)
                return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_VERSION_NOT_FOUND,
                               "Could not find launch template version %s", version);
            if (out) {
                snprintf(out->launch_template_id, sizeof(out->launch_template_id), "%s",
                         templates[k].id);
                snprintf(out->launch_template_name, sizeof(out->launch_template_name), "%s",
                         templates[k].name);
                snprintf(out->instance_type, sizeof(out->instance_type), "%s", templates[k].type);
            }
            return SC_OK;
        }
    }
    return sc_fail(err, SC_ERR_LAUNCH_TEMPLATE_NOT_FOUND,
                   "The specified launch template, with template name %s, does not exist.",
                   name ? name : id);
}

static double f_price(void *ud, const char *type)
{
    (void)ud;
    return strcmp(type, "m5.large") == 0   ? 0.096
           : strcmp(type, "t3.micro") == 0 ? 0.0104
           : strcmp(type, "t3.small") == 0 ? 0.0208
           : strcmp(type, "c5.large") == 0 ? 0.085
                                           : -1;
}

static enum sc_status f_run_mixed(void *ud, const struct sc_asg_launch_spec *s, int64_t now,
                                  char id[SC_ASG_ID_LEN], struct sc_error *err)
{
    struct fake *f = ud;
    const char *type = s->instance_type;

    (void)now;
    if (!type) { /* the template's */
        for (size_t k = 0; k < sizeof(templates) / sizeof(templates[0]); k++)
            if ((s->launch_template_id && strcmp(s->launch_template_id, templates[k].id) == 0) ||
                (s->launch_template_name &&
                 strcmp(s->launch_template_name, templates[k].name) == 0))
                type = templates[k].type;
    }
    if (f->fail_type && type && strcmp(type, f->fail_type) == 0)
        return sc_fail(err, SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY,
                       "We currently do not have sufficient %s capacity in the Availability Zone "
                       "you requested (%s).",
                       type, s->zone);
    return fake_launch(f, s, type, id, err);
}

/* the fake's callbacks with templates, prices and the capacity failures */
static struct sc_asg_env mixed_env(struct fx *x)
{
    struct sc_asg_env env = fx_env(x);

    env.run_instance = f_run_mixed;
    env.launch_template_resolve = f_lt_resolve;
    env.on_demand_price = f_price;
    env.lb_exists = NULL;
    env.lb_register = NULL;
    env.lb_deregister = NULL;
    env.lb_instance_state = NULL;
    return env;
}

static int setup(void **state)
{
    struct fx *x = fx_alloc();

    if (!x || !(x->asg = fx_asg_with(x, mixed_env(x))))
        return -1;
    *state = x;
    return 0;
}

static const char *const zones[] = { "us-east-1a", "us-east-1b" };

/* A group request over a mixed instances policy m: min 0, max 10, desired d. */
static struct sc_asg_group_req group(const char *name, const struct sc_asg_mixed_req *m, int d)
{
    struct sc_asg_group_req r = { .auto_scaling_group_name = name,
                                  .mixed_instances_policy = m,
                                  .has_min_size = 1,
                                  .min_size = 0,
                                  .has_max_size = 1,
                                  .max_size = 10,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = d,
                                  .availability_zones = zones,
                                  .navailability_zones = 2 };

    return r;
}

/* The policy "web" with overrides ov (n of them). */
static struct sc_asg_mixed_req policy(const struct sc_asg_override_req *ov, int n)
{
    struct sc_asg_mixed_req m = { .has_launch_template_spec = 1,
                                  .launch_template_name = "web",
                                  .has_overrides = 1,
                                  .overrides = ov,
                                  .noverrides = n };

    return m;
}

static const struct sc_asg_override_req weighted2[] = {
    { .instance_type = "t3.small", .weighted_capacity = "2" },
    { .instance_type = "t3.micro", .weighted_capacity = "1" },
};

static const struct sc_asg_group_info *find(struct fx *x, const char *name)
{
    const struct sc_asg_group_info *g = sc_asg_group_find(x->asg, name);

    assert_non_null(g);
    return g;
}

/* How many of g's members counting toward capacity have that type. */
static int count_type(const struct sc_asg_group_info *g, const char *type)
{
    int n = 0;

    for (int i = 0; i < sc_asg_group_instance_count(g); i++) {
        const struct sc_asg_instance_info *in = sc_asg_group_instance_at(g, i);

        n += in->instance_type && strcmp(in->instance_type, type) == 0 &&
             (in->lifecycle_state == SC_ASG_IN_SERVICE || in->lifecycle_state == SC_ASG_PENDING);
    }
    return n;
}

static void expect_error(struct fx *x, const struct sc_asg_group_req *r, int update,
                         const char *text)
{
    enum sc_status st = update ? sc_asg_update_group(x->asg, r, T0, &x->err)
                               : sc_asg_create_group(x->asg, r, T0, &x->err);

    assert_int_equal(st, SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, text);
}

/* --- what is stored and described -------------------------------------------------------- */

static void test_asg_mixed_describes_aws_defaults(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 0);
    const struct sc_asg_group_info *g;

    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    g = find(x, "g");
    assert_true(g->mixed_instances_policy);
    assert_null(g->launch_configuration_name);
    /* both id and name, whichever was sent; no version since none was sent */
    assert_string_equal(g->launch_template_id, "lt-0aaa");
    assert_string_equal(g->launch_template_name, "web");
    assert_null(g->launch_template_version);
    assert_int_equal(g->mixed.noverrides, 2);
    assert_true(g->mixed.weighted);
    assert_string_equal(g->mixed.overrides[0].instance_type, "t3.small");
    assert_string_equal(g->mixed.overrides[0].weighted_capacity, "2");
    assert_int_equal(g->mixed.overrides[0].weight, 2);
    assert_null(g->mixed.overrides[0].launch_template_id);
    assert_string_equal(g->mixed.on_demand_allocation_strategy, "prioritized");
    assert_int_equal(g->mixed.on_demand_base_capacity, 0);
    assert_int_equal(g->mixed.on_demand_percentage_above_base_capacity, 100);
    assert_string_equal(g->mixed.spot_allocation_strategy, "lowest-price");
    assert_true(g->mixed.has_spot_instance_pools);
    assert_int_equal(g->mixed.spot_instance_pools, 2);
    assert_null(g->mixed.spot_max_price);
    assert_null(g->desired_capacity_type);
}

static void test_asg_mixed_echoes_what_was_sent(void **state)
{
    struct fx *x = *state;
    static const struct sc_asg_override_req ov[] = {
        { .instance_type = "c5.large",
          .launch_template_id = "lt-0bbb",
          .launch_template_version = "2" },
        { .instance_type = "t3.micro" },
    };
    struct sc_asg_mixed_req m = policy(ov, 2);
    struct sc_asg_group_req r = group("g", &m, 0);
    const struct sc_asg_group_info *g;

    m.launch_template_name = NULL;
    m.launch_template_id = "lt-0aaa";
    m.launch_template_version = "$Latest";
    m.on_demand_allocation_strategy = "lowest-price";
    m.has_on_demand_base_capacity = 1;
    m.on_demand_base_capacity = 1;
    m.has_on_demand_percentage_above_base_capacity = 1;
    m.on_demand_percentage_above_base_capacity = 25;
    m.spot_allocation_strategy = "capacity-optimized";
    m.spot_max_price = "0.05";
    r.desired_capacity_type = "units";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    g = find(x, "g");
    assert_string_equal(g->launch_template_id, "lt-0aaa");
    assert_string_equal(g->launch_template_name, "web");
    assert_string_equal(g->launch_template_version, "$Latest");
    assert_false(g->mixed.weighted);
    assert_null(g->mixed.overrides[0].weighted_capacity);
    assert_string_equal(g->mixed.overrides[0].launch_template_id, "lt-0bbb");
    assert_string_equal(g->mixed.overrides[0].launch_template_name, "arm");
    assert_string_equal(g->mixed.overrides[0].launch_template_version, "2");
    assert_null(g->mixed.overrides[1].launch_template_id);
    assert_string_equal(g->mixed.on_demand_allocation_strategy, "lowest-price");
    assert_int_equal(g->mixed.on_demand_base_capacity, 1);
    assert_int_equal(g->mixed.on_demand_percentage_above_base_capacity, 25);
    assert_string_equal(g->mixed.spot_allocation_strategy, "capacity-optimized");
    assert_string_equal(g->mixed.spot_max_price, "0.05");
    assert_string_equal(g->desired_capacity_type, "units");
}

static void test_asg_mixed_spot_pools_described_only_for_lowest_price(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 0);
    struct sc_asg_mixed_req up = { .spot_allocation_strategy = "lowest-price" };
    struct sc_asg_group_req u = { .auto_scaling_group_name = "g", .mixed_instances_policy = &up };

    m.spot_allocation_strategy = "price-capacity-optimized";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    assert_false(find(x, "g")->mixed.has_spot_instance_pools);
    assert_int_equal(sc_asg_update_group(x->asg, &u, T0, &x->err), SC_OK);
    assert_true(find(x, "g")->mixed.has_spot_instance_pools);
    assert_int_equal(find(x, "g")->mixed.spot_instance_pools, 2);
    up.spot_allocation_strategy = "capacity-optimized";
    up.has_spot_instance_pools = 1;
    up.spot_instance_pools = 4; /* sent: described whatever the strategy */
    assert_int_equal(sc_asg_update_group(x->asg, &u, T0, &x->err), SC_OK);
    assert_true(find(x, "g")->mixed.has_spot_instance_pools);
    assert_int_equal(find(x, "g")->mixed.spot_instance_pools, 4);
}

static void test_asg_mixed_empty_spot_max_price_removes_it(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 0);
    struct sc_asg_mixed_req up = { .spot_max_price = "" };
    struct sc_asg_group_req u = { .auto_scaling_group_name = "g", .mixed_instances_policy = &up };

    m.spot_max_price = "0.1";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    assert_string_equal(find(x, "g")->mixed.spot_max_price, "0.1");
    assert_int_equal(sc_asg_update_group(x->asg, &u, T0, &x->err), SC_OK);
    assert_null(find(x, "g")->mixed.spot_max_price);
    /* what Terraform sends when spot_max_price is not configured: nothing stored */
    m.spot_max_price = "";
    r.auto_scaling_group_name = "h";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    assert_null(find(x, "h")->mixed.spot_max_price);
}

static void test_asg_mixed_update_changes_only_what_is_sent(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 0);
    struct sc_asg_mixed_req up = { .has_on_demand_percentage_above_base_capacity = 1,
                                   .on_demand_percentage_above_base_capacity = 50 };
    struct sc_asg_group_req u = { .auto_scaling_group_name = "g", .mixed_instances_policy = &up };
    const struct sc_asg_group_info *g;

    m.launch_template_version = "1";
    m.has_on_demand_base_capacity = 1;
    m.on_demand_base_capacity = 2;
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_update_group(x->asg, &u, T0, &x->err), SC_OK);
    g = find(x, "g");
    assert_int_equal(g->mixed.on_demand_percentage_above_base_capacity, 50);
    assert_int_equal(g->mixed.on_demand_base_capacity, 2);
    assert_int_equal(g->mixed.noverrides, 2);
    assert_string_equal(g->launch_template_name, "web");
    assert_string_equal(g->launch_template_version, "1");
    /* a top-level LaunchTemplate drops the policy */
    u.mixed_instances_policy = NULL;
    u.launch_template_name = "arm";
    assert_int_equal(sc_asg_update_group(x->asg, &u, T0, &x->err), SC_OK);
    g = find(x, "g");
    assert_false(g->mixed_instances_policy);
    assert_int_equal(g->mixed.noverrides, 0);
    assert_string_equal(g->launch_template_id, "lt-0bbb");
    assert_string_equal(g->launch_template_name, "arm");
    assert_null(g->launch_template_version);
}

static void test_asg_mixed_launch_template_version_only_as_given(void **state)
{
    struct fx *x = *state;
    struct sc_asg_group_req r = group("g", NULL, 1);
    const struct sc_asg_group_info *g;
    const struct sc_asg_instance_info *in;

    r.launch_template_id = "lt-0bbb";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    g = find(x, "g");
    assert_false(g->mixed_instances_policy);
    assert_string_equal(g->launch_template_id, "lt-0bbb");
    assert_string_equal(g->launch_template_name, "arm");
    assert_null(g->launch_template_version);
    in = sc_asg_group_instance_at(g, 0);
    assert_string_equal(in->launch_template_id, "lt-0bbb");
    assert_string_equal(in->launch_template_name, "arm");
    assert_null(in->launch_template_version);
    assert_string_equal(in->instance_type, "c5.large"); /* the template's */
    assert_int_equal(in->weight, 1);
}

/* --- validation ---------------------------------------------------------------------------- */

static void test_asg_mixed_exactly_one_launch_source(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 0);
    struct sc_asg_lc_req lc = { .launch_configuration_name = "lc",
                                .image_id = "ami-1",
                                .instance_type = "t3.micro" };
    static const char *const text =
        "Valid requests must contain either LaunchTemplate, LaunchConfigurationName, InstanceId or MixedInstancesPolicy parameter.";

    assert_int_equal(sc_asg_create_launch_configuration(x->asg, &lc, T0, &x->err), SC_OK);
    r.launch_configuration_name = "lc";
    expect_error(x, &r, 0, text);
    r.launch_configuration_name = NULL;
    r.launch_template_name = "web";
    expect_error(x, &r, 0, text);
    r.launch_template_name = NULL;
    r.mixed_instances_policy = NULL;
    expect_error(x, &r, 0, text);
    assert_int_equal(sc_asg_group_count(x->asg), 0);
}

static void test_asg_mixed_needs_a_template_id_or_name(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 0);
    static const char *const text =
        "Valid requests must contain either launchTemplateId or LaunchTemplateName";

    m.launch_template_id = "lt-0aaa"; /* and the name: both */
    expect_error(x, &r, 0, text);
    m.launch_template_id = NULL;
    m.launch_template_name = NULL;
    expect_error(x, &r, 0, text);
    m.has_launch_template_spec = 0;
    expect_error(x, &r, 0, text);
    m.launch_template_name = "nope";
    m.has_launch_template_spec = 1;
    expect_error(
        x, &r, 0,
        "You must use a valid fully-formed launch template. The specified launch template, with template name nope, does not exist.");
}

static void test_asg_mixed_at_most_40_overrides(void **state)
{
    struct fx *x = *state;
    struct sc_asg_override_req ov[SC_ASG_MAX_OVERRIDES + 1];
    char types[SC_ASG_MAX_OVERRIDES + 1][24];
    struct sc_asg_mixed_req m = policy(ov, SC_ASG_MAX_OVERRIDES + 1);
    struct sc_asg_group_req r = group("g", &m, 0);

    memset(ov, 0, sizeof(ov));
    for (int k = 0; k <= SC_ASG_MAX_OVERRIDES; k++) {
        snprintf(types[k], sizeof(types[k]), "x%d.large", k);
        ov[k].instance_type = types[k];
    }
    expect_error(
        x, &r, 0,
        "1 validation error detected: Value at 'mixedInstancesPolicy.launchTemplate.overrides' failed to satisfy constraint: Member must have length less than or equal to 40");
    m.noverrides = SC_ASG_MAX_OVERRIDES;
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    assert_int_equal(find(x, "g")->mixed.noverrides, 40);
}

static void test_asg_mixed_weighted_capacity_is_1_to_999(void **state)
{
    struct fx *x = *state;
    static const char *const bad[] = { "0", "1000", "abc", "01", "", "-1", "2.5" };
    struct sc_asg_override_req ov[] = { { .instance_type = "t3.small" } };
    struct sc_asg_mixed_req m = policy(ov, 1);
    struct sc_asg_group_req r = group("g", &m, 0);
    char text[256];

    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        ov[0].weighted_capacity = bad[k];
        snprintf(
            text, sizeof(text),
            "The value %s for WeightedCapacity is invalid. Weighted capacity must be an integer between 1 and 999.",
            bad[k]);
        expect_error(x, &r, 0, text);
    }
    ov[0].weighted_capacity = "999";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    assert_int_equal(find(x, "g")->mixed.overrides[0].weight, 999);
}

static void test_asg_mixed_weights_on_all_overrides_or_none(void **state)
{
    struct fx *x = *state;
    static const struct sc_asg_override_req ov[] = {
        { .instance_type = "t3.small", .weighted_capacity = "2" },
        { .instance_type = "t3.micro" },
    };
    struct sc_asg_mixed_req m = policy(ov, 2);
    struct sc_asg_group_req r = group("g", &m, 0);

    expect_error(
        x, &r, 0,
        "If you specify WeightedCapacity for one instance type, you must specify it for all of them.");
}

static void test_asg_mixed_instance_type_once(void **state)
{
    struct fx *x = *state;
    static const struct sc_asg_override_req ov[] = {
        { .instance_type = "t3.small" },
        { .instance_type = "t3.micro" },
        { .instance_type = "t3.small", .launch_template_name = "arm" },
    };
    struct sc_asg_mixed_req m = policy(ov, 3);
    struct sc_asg_group_req r = group("g", &m, 0);

    expect_error(x, &r, 0, "Duplicate instance type t3.small in the launch template overrides.");
}

static void test_asg_mixed_override_needs_a_type_not_requirements(void **state)
{
    struct fx *x = *state;
    struct sc_asg_override_req ov[] = { { .has_instance_requirements = 1 } };
    struct sc_asg_mixed_req m = policy(ov, 1);
    struct sc_asg_group_req r = group("g", &m, 0);

    expect_error(
        x, &r, 0,
        "InstanceRequirements in a mixed instances policy is not supported by scalelab; list the instance types in Overrides.");
    ov[0].has_instance_requirements = 0;
    expect_error(x, &r, 0,
                 "The instance type must be specified for each launch template override.");
    ov[0].instance_type = "t3.micro";
    ov[0].launch_template_id = "lt-0bbb";
    ov[0].launch_template_name = "arm";
    expect_error(x, &r, 0,
                 "Valid requests must contain either launchTemplateId or LaunchTemplateName");
}

static void test_asg_mixed_distribution_values_checked(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 0);

    m.on_demand_allocation_strategy = "cheapest";
    expect_error(
        x, &r, 0,
        "Invalid value cheapest for OnDemandAllocationStrategy. Valid values are prioritized, lowest-price.");
    m.on_demand_allocation_strategy = NULL;
    m.spot_allocation_strategy = "diversified";
    expect_error(
        x, &r, 0,
        "Invalid value diversified for SpotAllocationStrategy. Valid values are lowest-price, capacity-optimized, capacity-optimized-prioritized, price-capacity-optimized.");
    m.spot_allocation_strategy = NULL;
    m.has_on_demand_base_capacity = 1;
    m.on_demand_base_capacity = -1;
    expect_error(
        x, &r, 0,
        "1 validation error detected: Value -1 at 'mixedInstancesPolicy.instancesDistribution.onDemandBaseCapacity' failed to satisfy constraint: Member must have value greater than or equal to 0");
    m.has_on_demand_base_capacity = 0;
    m.has_on_demand_percentage_above_base_capacity = 1;
    m.on_demand_percentage_above_base_capacity = 101;
    expect_error(
        x, &r, 0,
        "1 validation error detected: Value 101 at 'mixedInstancesPolicy.instancesDistribution.onDemandPercentageAboveBaseCapacity' failed to satisfy constraint: Member must have value between 0 and 100");
    m.has_on_demand_percentage_above_base_capacity = 0;
    m.has_spot_instance_pools = 1;
    m.spot_instance_pools = 21;
    expect_error(
        x, &r, 0,
        "1 validation error detected: Value 21 at 'mixedInstancesPolicy.instancesDistribution.spotInstancePools' failed to satisfy constraint: Member must have value between 1 and 20");
    m.has_spot_instance_pools = 0;
    m.spot_max_price = "0.0001";
    expect_error(
        x, &r, 0,
        "The value 0.0001 for SpotMaxPrice is invalid. The maximum price must be at least 0.001.");
    m.spot_max_price = NULL;
    r.desired_capacity_type = "vcpu";
    expect_error(
        x, &r, 0,
        "DesiredCapacityType vcpu is not supported by scalelab: it needs InstanceRequirements (attribute-based instance type selection). Valid values are units.");
    assert_int_equal(sc_asg_group_count(x->asg), 0);
}

static void test_asg_mixed_refused_update_changes_nothing(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 2);
    static const struct sc_asg_override_req bad[] = {
        { .instance_type = "m5.large", .weighted_capacity = "4" },
        { .instance_type = "m5.large", .weighted_capacity = "4" },
    };
    struct sc_asg_mixed_req up = policy(bad, 2);
    struct sc_asg_group_req u = { .auto_scaling_group_name = "g",
                                  .mixed_instances_policy = &up,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = 6 };
    const struct sc_asg_group_info *g;

    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    up.spot_allocation_strategy = "lowest-price";
    expect_error(x, &u, 1, "Duplicate instance type m5.large in the launch template overrides.");
    g = find(x, "g");
    assert_int_equal(g->desired_capacity, 2);
    assert_int_equal(g->mixed.noverrides, 2);
    assert_string_equal(g->mixed.overrides[0].instance_type, "t3.small");
    assert_int_equal(sc_asg_group_capacity(g), 2);
}

/* --- how it acts --------------------------------------------------------------------------- */

static void test_asg_mixed_weights_count_toward_desired(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 4);
    const struct sc_asg_group_info *g;

    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    g = find(x, "g");
    /* prioritized: the first override for every instance; 2 x weight 2 = 4 units */
    assert_int_equal(sc_asg_group_instance_count(g), 2);
    assert_int_equal(count_type(g, "t3.small"), 2);
    assert_int_equal(sc_asg_group_capacity(g), 4);
    settle(x, T0 + 10 * SEC); /* stable */
    assert_int_equal(sc_asg_group_instance_count(g), 2);
}

static void test_asg_mixed_last_launch_may_pass_desired(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 3);
    const struct sc_asg_group_info *g;

    r.max_size = 3;
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    g = find(x, "g");
    /* 3 units wanted: 2 + 2 = 4 (overage 1, above MaxSize by less than the largest weight) */
    assert_int_equal(sc_asg_group_instance_count(g), 2);
    assert_int_equal(sc_asg_group_capacity(g), 4);
    settle(x, T0 + 10 * SEC); /* and it does not scale in below desired to remove it */
    assert_int_equal(sc_asg_group_capacity(g), 4);
    assert_int_equal(g->desired_capacity, 3);
}

static void test_asg_mixed_prioritized_next_type_when_one_fails(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 3);
    const struct sc_asg_group_info *g;

    x->f.fail_type = "t3.small";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    g = find(x, "g");
    assert_int_equal(count_type(g, "t3.small"), 0);
    assert_int_equal(count_type(g, "t3.micro"), 3);
    assert_int_equal(sc_asg_group_capacity(g), 3);
    /* no activity failed: each launch found a type */
    for (int i = 0; i < sc_asg_activity_count(x->asg, "g"); i++)
        assert_string_not_equal(sc_asg_activity_at(x->asg, "g", i)->status_code, "Failed");
}

static void test_asg_mixed_every_type_failing_fails_the_launch(void **state)
{
    struct fx *x = *state;
    static const struct sc_asg_override_req ov[] = { { .instance_type = "t3.small" } };
    struct sc_asg_mixed_req m = policy(ov, 1);
    struct sc_asg_group_req r = group("g", &m, 1);
    const struct sc_asg_activity_info *a;

    x->f.fail_type = "t3.small";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    sc_asg_step(x->asg, T0);
    assert_int_equal(sc_asg_group_instance_count(find(x, "g")), 0);
    assert_true(sc_asg_activity_count(x->asg, "g") >= 1);
    a = sc_asg_activity_at(x->asg, "g", 0);
    assert_string_equal(a->status_code, "Failed");
    assert_non_null(strstr(a->status_message, "sufficient t3.small capacity"));
}

static void test_asg_mixed_lowest_price_per_unit(void **state)
{
    struct fx *x = *state;
    /* m5.large 0.096 / 4 = 0.024 per unit; t3.small 0.0208 / 1; t3.micro 0.0104 / 1 */
    static const struct sc_asg_override_req ov[] = {
        { .instance_type = "m5.large", .weighted_capacity = "4" },
        { .instance_type = "t3.small", .weighted_capacity = "1" },
        { .instance_type = "t3.micro", .weighted_capacity = "1" },
    };
    struct sc_asg_mixed_req m = policy(ov, 3);
    struct sc_asg_group_req r = group("g", &m, 2);
    const struct sc_asg_group_info *g;
    int order[SC_ASG_MAX_OVERRIDES];

    m.on_demand_allocation_strategy = "lowest-price";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    g = find(x, "g");
    assert_int_equal(asg_mixed_order(x->asg, (const struct asg_group *)g, order), 3);
    assert_int_equal(order[0], 2);
    assert_int_equal(order[1], 1);
    assert_int_equal(order[2], 0);
    settle(x, T0);
    assert_int_equal(count_type(g, "t3.micro"), 2);
    /* with m5.large at weight 16 (0.006 per unit) it is the cheapest */
    {
        struct sc_asg_override_req ov2[3];
        struct sc_asg_mixed_req up;
        struct sc_asg_group_req u = { .auto_scaling_group_name = "g" };

        memcpy(ov2, ov, sizeof(ov2));
        ov2[0].weighted_capacity = "16";
        up = policy(ov2, 3);
        up.has_launch_template_spec = 0;
        u.mixed_instances_policy = &up;
        assert_int_equal(sc_asg_update_group(x->asg, &u, T0, &x->err), SC_OK);
        assert_int_equal(asg_mixed_order(x->asg, (const struct asg_group *)g, order), 3);
        assert_int_equal(order[0], 0);
    }
}

static void test_asg_mixed_scale_in_keeps_capacity_at_desired(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 4);
    const struct sc_asg_group_info *g;

    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    g = find(x, "g");
    assert_int_equal(sc_asg_group_capacity(g), 4);
    /* 3: removing a weight-2 instance would leave 2 < 3, so nothing goes */
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 3, 0, T0 + SEC, &x->err), SC_OK);
    settle(x, T0 + SEC);
    assert_int_equal(sc_asg_group_capacity(g), 4);
    /* 2: one goes */
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 2, 0, T0 + 2 * SEC, &x->err), SC_OK);
    settle(x, T0 + 2 * SEC);
    assert_int_equal(sc_asg_group_capacity(g), 2);
    assert_int_equal(count_type(g, "t3.small"), 1);
}

static void test_asg_mixed_instances_show_the_override_used(void **state)
{
    struct fx *x = *state;
    static const struct sc_asg_override_req ov[] = {
        { .instance_type = "c5.large", .weighted_capacity = "3", .launch_template_name = "arm" },
        { .instance_type = "t3.micro", .weighted_capacity = "1" },
    };
    struct sc_asg_mixed_req m = policy(ov, 2);
    struct sc_asg_group_req r = group("g", &m, 3);
    const struct sc_asg_group_info *g;
    const struct sc_asg_instance_info *in;

    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    g = find(x, "g");
    assert_int_equal(sc_asg_group_instance_count(g), 1);
    in = sc_asg_group_instance_at(g, 0);
    assert_string_equal(in->instance_type, "c5.large");
    assert_string_equal(in->launch_template_id, "lt-0bbb");
    assert_string_equal(in->launch_template_name, "arm");
    assert_int_equal(in->weight, 3);
    /* EC2 was asked for that type from that template */
    assert_string_equal(x->f.inst[0].type, "c5.large");
    assert_string_equal(x->f.inst[0].lt, "lt-0bbb");
    /* the one from the policy's template shows it */
    x->f.fail_type = "c5.large";
    assert_int_equal(sc_asg_set_desired_capacity(x->asg, "g", 4, 0, T0 + SEC, &x->err), SC_OK);
    settle(x, T0 + SEC);
    in = sc_asg_group_instance_at(g, 1);
    assert_string_equal(in->instance_type, "t3.micro");
    assert_string_equal(in->launch_template_id, "lt-0aaa");
    assert_string_equal(in->launch_template_name, "web");
    assert_int_equal(in->weight, 1);
}

static void test_asg_mixed_weights_apply_to_running_instances(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 4);
    static const struct sc_asg_override_req heavier[] = {
        { .instance_type = "t3.small", .weighted_capacity = "4" },
        { .instance_type = "t3.micro", .weighted_capacity = "1" },
    };
    struct sc_asg_mixed_req up = policy(heavier, 2);
    struct sc_asg_group_req u = { .auto_scaling_group_name = "g", .mixed_instances_policy = &up };
    const struct sc_asg_group_info *g;

    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    g = find(x, "g");
    assert_int_equal(sc_asg_group_capacity(g), 4);
    assert_int_equal(sc_asg_update_group(x->asg, &u, T0 + SEC, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_capacity(g), 8); /* the two running count 4 each now */
    assert_int_equal(sc_asg_group_instance_at(g, 0)->weight, 4);
    settle(x, T0 + SEC); /* 8 > 4: one goes */
    assert_int_equal(sc_asg_group_capacity(g), 4);
    assert_int_equal(sc_asg_group_instance_count(g), 1);
}

static void test_asg_mixed_weights_need_every_running_type(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(NULL, 0); /* the template's type: t3.micro */
    struct sc_asg_group_req r = group("g", &m, 1);
    static const struct sc_asg_override_req ov[] = {
        { .instance_type = "t3.small", .weighted_capacity = "2" },
    };
    struct sc_asg_mixed_req up = policy(ov, 1);
    struct sc_asg_group_req u = { .auto_scaling_group_name = "g", .mixed_instances_policy = &up };

    m.has_overrides = 0;
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    assert_string_equal(sc_asg_group_instance_at(find(x, "g"), 0)->instance_type, "t3.micro");
    expect_error(
        x, &u, 1,
        "Cannot configure weights because instance type [t3.micro] is not in the overrides but is currently running in the group. Add [t3.micro] to the overrides, specify a weight, and try again.");
    up.overrides = weighted2;
    up.noverrides = 2;
    assert_int_equal(sc_asg_update_group(x->asg, &u, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_group_capacity(find(x, "g")), 1);
}

static void test_asg_mixed_terminate_with_decrement_by_weight(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 4);
    const struct sc_asg_group_info *g;

    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    g = find(x, "g");
    assert_int_equal(sc_asg_terminate_instance(x->asg, sc_asg_group_instance_at(g, 0)->instance_id,
                                               1, T0 + SEC, NULL, &x->err),
                     SC_OK);
    assert_int_equal(g->desired_capacity, 2);
    settle(x, T0 + SEC);
    assert_int_equal(sc_asg_group_capacity(g), 2);
    assert_int_equal(sc_asg_group_instance_count(g), 1);
}

static void test_asg_mixed_standby_moves_the_weight(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 4);
    const struct sc_asg_group_info *g;
    const char *id[1];

    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    g = find(x, "g");
    id[0] = sc_asg_group_instance_at(g, 0)->instance_id;
    assert_int_equal(sc_asg_enter_standby(x->asg, "g", id, 1, 1, T0 + SEC, &x->err), SC_OK);
    assert_int_equal(g->desired_capacity, 2);
    settle(x, T0 + SEC);
    assert_int_equal(sc_asg_group_capacity(g), 2);
    assert_int_equal(sc_asg_exit_standby(x->asg, "g", id, 1, T0 + 2 * SEC, &x->err), SC_OK);
    assert_int_equal(g->desired_capacity, 4);
    settle(x, T0 + 2 * SEC);
    assert_int_equal(sc_asg_group_capacity(g), 4);
    assert_int_equal(sc_asg_group_instance_count(g), 2);
}

/* The metric's last value published (the fixture keeps them by sc_asg_metric_str index). */
static double metric(struct fx *x, const char *name)
{
    for (int m = 0; m < SC_ASG_METRIC_COUNT; m++)
        if (strcmp(sc_asg_metric_str(m), name) == 0)
            return x->f.metric[m];
    fail_msg("no metric %s", name);
    return -1;
}

/* GroupInServiceCapacity, GroupPendingCapacity, GroupStandbyCapacity,
 * GroupTerminatingCapacity and GroupTotalCapacity count the instances' weights where the
 * Group*Instances metrics count the instances (docs/autoscaling.md 14). */
static void test_asg_mixed_capacity_metrics_count_weights(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 6);
    const struct sc_asg_group_info *g;
    const char *id[1];

    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    assert_int_equal(sc_asg_enable_metrics_collection(x->asg, "g", NULL, 0, "1Minute", T0, &x->err),
                     SC_OK);
    sc_asg_step(x->asg, T0); /* three t3.small (weight 2) launched, Pending */
    sc_asg_step(x->asg, T0 + 60 * SEC);
    assert_int_equal((int)metric(x, "GroupPendingInstances"), 3);
    assert_int_equal((int)metric(x, "GroupPendingCapacity"), 6);
    assert_int_equal((int)metric(x, "GroupInServiceCapacity"), 0);
    assert_int_equal((int)metric(x, "GroupTotalCapacity"), 6);
    settle(x, T0 + 61 * SEC);
    g = find(x, "g");
    id[0] = sc_asg_group_instance_at(g, 0)->instance_id;
    assert_int_equal(sc_asg_enter_standby(x->asg, "g", id, 1, 1, T0 + 62 * SEC, &x->err), SC_OK);
    settle(x, T0 + 62 * SEC);
    id[0] = sc_asg_group_instance_at(g, 1)->instance_id;
    assert_int_equal(sc_asg_terminate_instance(x->asg, id[0], 1, T0 + 63 * SEC, NULL, &x->err),
                     SC_OK);
    sc_asg_step(x->asg, T0 + 120 * SEC);
    assert_int_equal((int)metric(x, "GroupInServiceInstances"), 1);
    assert_int_equal((int)metric(x, "GroupInServiceCapacity"), 2);
    assert_int_equal((int)metric(x, "GroupStandbyInstances"), 1);
    assert_int_equal((int)metric(x, "GroupStandbyCapacity"), 2);
    assert_int_equal((int)metric(x, "GroupTerminatingCapacity"), 2);
    assert_int_equal((int)metric(x, "GroupPendingCapacity"), 0);
    /* Total: InService + Pending + Terminating, as GroupTotalInstances (Standby left out) */
    assert_int_equal((int)metric(x, "GroupTotalInstances"), 2);
    assert_int_equal((int)metric(x, "GroupTotalCapacity"), 4);
}

static void test_asg_mixed_spot_share_launches_on_demand(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(weighted2, 2);
    struct sc_asg_group_req r = group("g", &m, 4);
    const struct sc_asg_group_info *g;

    /* everything above the base as Spot: still the On-Demand strategy's type */
    m.has_on_demand_percentage_above_base_capacity = 1;
    m.on_demand_percentage_above_base_capacity = 0;
    m.spot_allocation_strategy = "capacity-optimized";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    g = find(x, "g");
    assert_int_equal(count_type(g, "t3.small"), 2);
    assert_int_equal(g->mixed.on_demand_percentage_above_base_capacity, 0);
}

/* --- state ------------------------------------------------------------------------------------ */

static char *dump_asg(const struct sc_asg *asg)
{
    json_t *o = sc_asg_save(asg);
    char *s;

    assert_non_null(o);
    s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    assert_non_null(s);
    return s;
}

static void test_asg_mixed_saved_and_loaded(void **state)
{
    struct fx *x = *state;
    static const struct sc_asg_override_req ov[] = {
        { .instance_type = "c5.large",
          .weighted_capacity = "3",
          .launch_template_id = "lt-0bbb",
          .launch_template_version = "$Latest" },
        { .instance_type = "t3.micro", .weighted_capacity = "1" },
    };
    struct sc_asg_mixed_req m = policy(ov, 2);
    struct sc_asg_group_req r = group("g", &m, 3);
    struct fx y = { 0 };
    char *a, *b;
    json_t *o;

    m.spot_max_price = "0.2";
    m.spot_allocation_strategy = "capacity-optimized";
    r.desired_capacity_type = "units";
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    a = dump_asg(x->asg);
    sc_rng_init(&y.rng, 9);
    y.asg = fx_asg_with(&y, mixed_env(&y));
    assert_non_null(y.asg);
    o = sc_asg_save(x->asg);
    if (sc_asg_load(y.asg, o, &y.err) != SC_OK)
        fail_msg("load: %s", y.err.message);
    json_decref(o);
    b = dump_asg(y.asg);
    assert_string_equal(a, b);
    assert_int_equal(sc_asg_group_capacity(find(&y, "g")), 3);
    assert_int_equal(find(&y, "g")->mixed.overrides[0].weight, 3);
    free(a);
    free(b);
    sc_asg_destroy(y.asg);
}

static void test_asg_mixed_old_state_files_load(void **state)
{
    struct fx *x = *state;
    struct sc_asg_mixed_req m = policy(NULL, 0);
    struct sc_asg_group_req r = group("g", &m, 2);
    struct fx y = { 0 };
    json_t *o, *g, *inst;
    const struct sc_asg_group_info *gi;
    size_t k;

    m.has_overrides = 0;
    assert_int_equal(sc_asg_create_group(x->asg, &r, T0, &x->err), SC_OK);
    settle(x, T0);
    o = sc_asg_save(x->asg);
    /* as a build before the policy's details and weights wrote it */
    g = json_array_get(json_object_get(o, "groups"), 0);
    assert_non_null(g);
    json_object_del(g, "mixed");
    json_object_del(g, "desired_capacity_type");
    json_array_foreach(json_object_get(g, "instances"), k, inst) json_object_del(inst, "weight");
    sc_rng_init(&y.rng, 9);
    y.asg = fx_asg_with(&y, mixed_env(&y));
    if (sc_asg_load(y.asg, o, &y.err) != SC_OK)
        fail_msg("load: %s", y.err.message);
    json_decref(o);
    gi = find(&y, "g");
    assert_true(gi->mixed_instances_policy);
    assert_string_equal(gi->mixed.on_demand_allocation_strategy, "prioritized");
    assert_int_equal(gi->mixed.on_demand_percentage_above_base_capacity, 100);
    assert_string_equal(gi->mixed.spot_allocation_strategy, "lowest-price");
    assert_true(gi->mixed.has_spot_instance_pools);
    assert_int_equal(sc_asg_group_capacity(gi), 2);
    assert_int_equal(sc_asg_group_instance_at(gi, 0)->weight, 1);
    sc_asg_destroy(y.asg);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, fx_teardown)
    const struct CMUnitTest tests[] = {
        T(test_asg_mixed_describes_aws_defaults),
        T(test_asg_mixed_echoes_what_was_sent),
        T(test_asg_mixed_spot_pools_described_only_for_lowest_price),
        T(test_asg_mixed_empty_spot_max_price_removes_it),
        T(test_asg_mixed_update_changes_only_what_is_sent),
        T(test_asg_mixed_launch_template_version_only_as_given),
        T(test_asg_mixed_exactly_one_launch_source),
        T(test_asg_mixed_needs_a_template_id_or_name),
        T(test_asg_mixed_at_most_40_overrides),
        T(test_asg_mixed_weighted_capacity_is_1_to_999),
        T(test_asg_mixed_weights_on_all_overrides_or_none),
        T(test_asg_mixed_instance_type_once),
        T(test_asg_mixed_override_needs_a_type_not_requirements),
        T(test_asg_mixed_distribution_values_checked),
        T(test_asg_mixed_refused_update_changes_nothing),
        T(test_asg_mixed_weights_count_toward_desired),
        T(test_asg_mixed_last_launch_may_pass_desired),
        T(test_asg_mixed_prioritized_next_type_when_one_fails),
        T(test_asg_mixed_every_type_failing_fails_the_launch),
        T(test_asg_mixed_lowest_price_per_unit),
        T(test_asg_mixed_scale_in_keeps_capacity_at_desired),
        T(test_asg_mixed_instances_show_the_override_used),
        T(test_asg_mixed_weights_apply_to_running_instances),
        T(test_asg_mixed_weights_need_every_running_type),
        T(test_asg_mixed_terminate_with_decrement_by_weight),
        T(test_asg_mixed_standby_moves_the_weight),
        T(test_asg_mixed_capacity_metrics_count_weights),
        T(test_asg_mixed_spot_share_launches_on_demand),
        T(test_asg_mixed_saved_and_loaded),
        T(test_asg_mixed_old_state_files_load),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
