/* tests/unit/emulator/test_emu.c: emulator/emu.c without a loop: the --max-instances default
 * for a machine (emu_default_max_instances) and the host bound it sets, shared by every
 * world (sc_world_config.host_room: launches past it fail with InsufficientInstanceCapacity). */
#include "emulator/emu.h"

#include <stdint.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/ec2.h"
#include "scaler/world.h"

#define MIB (1024ull * 1024ull)

/* the least of RAM / 8 MiB, (fd limit - 256) / 8 and 256 per CPU, within [1, 2000] */
static void test_emu_default_max_instances(void **state)
{
    (void)state;
    /* this kind of machine: 24 GB, 20,000 fds, 2 CPUs -> the CPUs bound it */
    assert_int_equal(emu_default_max_instances(24000 * MIB, 20000, 2), 512);
    /* Debian's default soft limit of 1,024 fds */
    assert_int_equal(emu_default_max_instances(24000 * MIB, 1024, 2), 96);
    /* a small VM: 512 MiB */
    assert_int_equal(emu_default_max_instances(512 * MIB, 1 << 20, 64), 64);
    /* a big one: capped at 2,000 (the launch step's cost) */
    assert_int_equal(emu_default_max_instances(1024 * 1024 * MIB, 1 << 20, 128), 2000);
    /* nothing known or nothing left: still one */
    assert_int_equal(emu_default_max_instances(0, 0, 0), 1);
    assert_int_equal(emu_default_max_instances(64 * MIB, 100, 1), 1);
}

static int launch(struct sc_world *w, int n, struct sc_error *err)
{
    struct sc_ec2_run_req req;

    memset(&req, 0, sizeof(req));
    req.image_id = "ami-12c6146b";
    req.min_count = req.max_count = n;
    return sc_ec2_run_instances(sc_world_ec2(w), &req, 1767225600000LL, NULL, err);
}

/* --max-instances bounds every account and region together, not each world */
static void test_emu_max_instances_spans_worlds(void **state)
{
    struct emu_config cfg;
    struct emu *e;
    struct sc_world *a, *b;
    struct sc_error err;

    (void)state;
    emu_config_defaults(&cfg);
    cfg.clock_manual = 1;
    cfg.start_ms = 1767225600000LL;
    cfg.max_instances = 4;
    e = emu_create(&cfg);
    a = emu_world(e, "123456789012", "us-east-1");
    b = emu_world(e, "210987654321", "eu-west-1");
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(launch(a, 3, &err), SC_OK);
    assert_int_equal(launch(b, 2, &err), SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY);
    assert_string_equal(err.message, "Insufficient capacity.");
    assert_int_equal(launch(b, 1, &err), SC_OK);
    assert_int_equal(launch(a, 1, &err), SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY);
    emu_destroy(e);
}

/* worlds only for AWS's regions and the configured --region (issue 19 finding 7) */
static void test_emu_worlds_only_for_aws_regions_or_the_configured_one(void **state)
{
    struct emu_config cfg;
    struct emu *e;
    struct sc_world *w;

    (void)state;
    emu_config_defaults(&cfg);
    cfg.clock_manual = 1;
    cfg.region = "local-lab-1";
    e = emu_create(&cfg);
    assert_true(emu_region_ok(e, "eusc-de-east-1"));
    assert_true(emu_region_ok(e, "local-lab-1"));
    assert_false(emu_region_ok(e, "xx-fake-1"));
    assert_null(emu_world(e, "123456789012", "xx-fake-1"));
    assert_non_null(emu_world(e, "123456789012", "local-lab-1"));
    /* a read's scratch world: not registered */
    w = emu_world_scratch(e, "123456789012", "eu-west-3");
    assert_non_null(w);
    assert_null(emu_world_scratch(e, "123456789012", "xx-fake-1"));
    assert_int_equal(emu_world_count(e), 1);
    sc_world_destroy(w);
    /* a saved world of a made-up region (an older emulator's) is restored */
    assert_non_null(emu_world_restore(e, "123456789012", "xx-fake-1"));
    assert_null(emu_world_restore(e, "123456789012", "Bad Name"));
    assert_int_equal(emu_world_count(e), 2);
    emu_destroy(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_emu_default_max_instances),
        cmocka_unit_test(test_emu_max_instances_spans_worlds),
        cmocka_unit_test(test_emu_worlds_only_for_aws_regions_or_the_configured_one),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
