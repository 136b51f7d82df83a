/* tests/unit/scaler/test_asg_sched.c: scaler/asg_sched.c: one test per rule of
 * docs/autoscaling.md section 5 (cron, time zones through a fake zone table, the runs,
 * the validation texts); time passed in. */
#include "scaler/asg_sched.h"

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
#include "scaler/civil.h"

#define SEC 1000LL
#define MIN (60 * SEC)
#define HR  (60 * MIN)

static int64_t at(const char *iso)
{
    int64_t ms = 0;

    assert_int_equal(sc_civil_parse_iso(iso, &ms), 0);
    return ms;
}

/* A fake zone table: "Test/East2" is UTC+2; "Test/NewYork" is UTC-5, and UTC-4 from
 * 2026-03-08T07:00Z (the 2 a.m. local spring-forward) to 2026-11-01T06:00Z. */
static int fake_tz(void *ud, const char *zone, int64_t utc_ms, int *off)
{
    (void)ud;
    if (strcmp(zone, "Test/East2") == 0) {
        *off = 7200;
        return 0;
    }
    if (strcmp(zone, "Test/NewYork") == 0) {
        *off = utc_ms >= at("2026-03-08T07:00:00Z") && utc_ms < at("2026-11-01T06:00:00Z")
                   ? -4 * 3600
                   : -5 * 3600;
        return 0;
    }
    return -1;
}

struct fx {
    struct sc_rng rng;
    struct sc_asg *asg;
    struct sc_error err;
};

static const char *const zones[] = { "us-east-1a" };

static int setup(void **state)
{
    struct fx *x = calloc(1, sizeof(*x));
    struct sc_asg_config cfg = { 0 };
    struct sc_asg_lc_req lc = { .launch_configuration_name = "lc",
                                .image_id = "ami-1",
                                .instance_type = "t3.micro" };
    struct sc_asg_group_req g = { .auto_scaling_group_name = "g",
                                  .launch_configuration_name = "lc",
                                  .has_min_size = 1,
                                  .min_size = 1,
                                  .has_max_size = 1,
                                  .max_size = 5,
                                  .has_desired_capacity = 1,
                                  .desired_capacity = 1,
                                  .availability_zones = zones,
                                  .navailability_zones = 1 };

    if (!x)
        return -1;
    sc_rng_init(&x->rng, 1);
    cfg.rng = &x->rng;
    cfg.env.tz_offset = fake_tz;
    x->asg = sc_asg_create(&cfg);
    if (!x->asg ||
        sc_asg_create_launch_configuration(x->asg, &lc, at("2026-01-01T00:00:00Z"), &x->err) !=
            SC_OK ||
        sc_asg_create_group(x->asg, &g, at("2026-01-01T00:00:00Z"), &x->err) != SC_OK)
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

static const struct sc_asg_group_info *grp(struct fx *x)
{
    return sc_asg_group_find(x->asg, "g");
}

/* --- cron -------------------------------------------------------------------------------- */

static void test_asg_sched_recurrence_five_fields(void **state)
{
    static const char *const good[] = { "0 9 * * *",     "*/15 * * * *",    "30 6 * * 2",
                                        "0 18 * * 1-5",  "30 0 1 1,6,12 *", "0 0 * * 7",
                                        "0 8 * JAN MON", "0-30/10 * * * *" };
    static const char *const bad[] = { "0 0 6 * * 1-5", "0 9 * *",     "30 6 ? * MON",
                                       "60 * * * *",    "0 24 * * *",  "0 0 0 * *",
                                       "0 0 * 13 *",    "0 0 * * 8",   "cron(0 9 * * ? *)",
                                       "*/0 * * * *",   "5-1 * * * *", "" };

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        if (sc_asg_recurrence_valid(good[i]) != 0)
            fail_msg("should parse: %s", good[i]);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (sc_asg_recurrence_valid(bad[i]) == 0)
            fail_msg("should not parse: %s", bad[i]);
}

static void test_asg_sched_recurrence_next_utc(void **state)
{
    (void)state;
    assert_int_equal(
        sc_asg_recurrence_next("0 9 * * *", at("2026-01-01T10:00:00Z"), NULL, NULL, NULL),
        at("2026-01-02T09:00:00Z"));
    assert_int_equal(
        sc_asg_recurrence_next("*/15 * * * *", at("2026-01-01T10:00:00Z"), NULL, NULL, NULL),
        at("2026-01-01T10:15:00Z"));
    /* 2026-01-02 is a Friday: the next weekday 18:00 after Friday 19:00 is Monday */
    assert_int_equal(
        sc_asg_recurrence_next("0 18 * * 1-5", at("2026-01-02T19:00:00Z"), NULL, NULL, NULL),
        at("2026-01-05T18:00:00Z"));
    /* both day fields restricted: either matches (the 13th, or a Friday) */
    assert_int_equal(
        sc_asg_recurrence_next("0 0 13 * 5", at("2026-01-03T00:00:00Z"), NULL, NULL, NULL),
        at("2026-01-09T00:00:00Z"));
    assert_int_equal(
        sc_asg_recurrence_next("0 0 29 2 *", at("2026-01-01T00:00:00Z"), NULL, NULL, NULL),
        at("2028-02-29T00:00:00Z"));
}

static void test_asg_sched_recurrence_in_time_zone_follows_dst(void **state)
{
    (void)state;
    assert_int_equal(sc_asg_recurrence_next("0 9 * * *", at("2026-01-01T00:00:00Z"), fake_tz, NULL,
                                            "Test/East2"),
                     at("2026-01-01T07:00:00Z"));
    /* 8:00 New York: 13:00Z in winter, 12:00Z in summer */
    assert_int_equal(sc_asg_recurrence_next("0 8 * * *", at("2026-03-06T14:00:00Z"), fake_tz, NULL,
                                            "Test/NewYork"),
                     at("2026-03-07T13:00:00Z"));
    assert_int_equal(sc_asg_recurrence_next("0 8 * * *", at("2026-03-07T14:00:00Z"), fake_tz, NULL,
                                            "Test/NewYork"),
                     at("2026-03-08T12:00:00Z"));
    /* 2:30 local does not exist on the spring-forward day: the next day's */
    assert_int_equal(sc_asg_recurrence_next("30 2 * * *", at("2026-03-08T05:00:00Z"), fake_tz, NULL,
                                            "Test/NewYork"),
                     at("2026-03-09T06:30:00Z"));
}

/* --- put and its texts ----------------------------------------------------------------------- */

static struct sc_asg_sched_req req(const char *name)
{
    struct sc_asg_sched_req r = { .auto_scaling_group_name = "g", .scheduled_action_name = name };

    return r;
}

static void test_asg_sched_put_errors_change_nothing(void **state)
{
    struct fx *x = *state;
    int64_t now = at("2026-01-01T00:00:00Z");
    struct {
        struct sc_asg_sched_req r;
        enum sc_status st;
        const char *msg;
    } bad[16];
    int n = 0;

#define BAD(st_, msg_) (bad[n].st = (st_), bad[n].msg = (msg_), &bad[n++].r)
    {
        struct sc_asg_sched_req *r =
            BAD(SC_ERR_VALIDATION,
                "At least one of max size, min size, or desired capacity must be specified");
        *r = req("a");
        r->recurrence = "0 9 * * *";
    }
    {
        struct sc_asg_sched_req *r =
            BAD(SC_ERR_VALIDATION, "Given recurrence string: 0 9 * * ? is invalid");
        *r = req("a");
        r->recurrence = "0 9 * * ?";
        r->has_desired_capacity = 1;
    }
    {
        struct sc_asg_sched_req *r = BAD(SC_ERR_VALIDATION, "Given start time is in the past");
        *r = req("a");
        r->has_start_time = 1;
        r->start_ms = now - MIN;
        r->has_desired_capacity = 1;
    }
    {
        struct sc_asg_sched_req *r =
            BAD(SC_ERR_VALIDATION, "Given end time must be after start time");
        *r = req("a");
        r->has_start_time = 1;
        r->start_ms = now + 2 * HR;
        r->has_end_time = 1;
        r->end_ms = now + HR;
        r->has_desired_capacity = 1;
    }
    {
        struct sc_asg_sched_req *r = BAD(SC_ERR_VALIDATION, "Given end time is in the past");
        *r = req("a");
        r->recurrence = "0 9 * * *";
        r->has_end_time = 1;
        r->end_ms = now - HR;
        r->has_desired_capacity = 1;
    }
    {
        struct sc_asg_sched_req *r =
            BAD(SC_ERR_VALIDATION,
                "Scheduled start time must be specified for non-recurrent future group action");
        *r = req("a");
        r->has_end_time = 1;
        r->end_ms = now + HR;
        r->has_desired_capacity = 1;
    }
    {
        struct sc_asg_sched_req *r =
            BAD(SC_ERR_VALIDATION, "Desired capacity must be less than or equal to max size");
        *r = req("a");
        r->recurrence = "0 9 * * *";
        r->has_desired_capacity = 1;
        r->desired_capacity = 6;
        r->has_max_size = 1;
        r->max_size = 5;
    }
    {
        struct sc_asg_sched_req *r =
            BAD(SC_ERR_VALIDATION, "Min size must be less than or equal to max size");
        *r = req("a");
        r->recurrence = "0 9 * * *";
        r->has_min_size = 1;
        r->min_size = 3;
        r->has_max_size = 1;
        r->max_size = 2;
    }
    {
        struct sc_asg_sched_req *r =
            BAD(SC_ERR_VALIDATION, "Desired capacity must be non-negative");
        *r = req("a");
        r->recurrence = "0 9 * * *";
        r->has_desired_capacity = 1;
        r->desired_capacity = -1;
    }
    {
        struct sc_asg_sched_req *r = BAD(SC_ERR_VALIDATION, "Invalid time zone: Mars/Olympus");
        *r = req("a");
        r->recurrence = "0 9 * * *";
        r->time_zone = "Mars/Olympus";
        r->has_desired_capacity = 1;
    }
    {
        struct sc_asg_sched_req *r =
            BAD(SC_ERR_VALIDATION,
                "AutoScalingGroup name not found - AutoScalingGroup: nope not found");
        *r = req("a");
        r->auto_scaling_group_name = "nope";
        r->recurrence = "0 9 * * *";
        r->has_desired_capacity = 1;
    }
#undef BAD
    for (int i = 0; i < n; i++) {
        struct sc_error e = { 0 };

        assert_int_equal(sc_asg_put_scheduled_action(x->asg, &bad[i].r, now, &e), bad[i].st);
        assert_string_equal(e.message, bad[i].msg);
        assert_int_equal(sc_asg_scheduled_action_count(x->asg, "g"), 0);
    }
}

static void test_asg_sched_unique_start_time(void **state)
{
    struct fx *x = *state;
    int64_t now = at("2026-01-01T00:00:00Z");
    struct sc_asg_sched_req a = req("a"), b = req("b");

    a.has_start_time = b.has_start_time = 1;
    a.start_ms = b.start_ms = now + HR;
    a.has_desired_capacity = b.has_desired_capacity = 1;
    assert_int_equal(sc_asg_put_scheduled_action(x->asg, &a, now, &x->err), SC_OK);
    assert_int_equal(sc_asg_put_scheduled_action(x->asg, &b, now, &x->err), SC_ERR_ALREADY_EXISTS);
    assert_string_equal(x->err.message,
                        "Scheduled action with this scheduled start time already exists");
    /* the same action again is an update, not a clash */
    a.desired_capacity = 2;
    assert_int_equal(sc_asg_put_scheduled_action(x->asg, &a, now, &x->err), SC_OK);
    assert_int_equal(sc_asg_scheduled_action_count(x->asg, "g"), 1);
    assert_int_equal(sc_asg_scheduled_action_at(x->asg, "g", 0)->desired_capacity, 2);
}

static void test_asg_sched_limit_125(void **state)
{
    struct fx *x = *state;
    int64_t now = at("2026-01-01T00:00:00Z");
    char name[16];

    for (int i = 0; i <= SC_ASG_MAX_SCHEDULED_ACTIONS; i++) {
        struct sc_asg_sched_req r = req(name);

        snprintf(name, sizeof(name), "a%d", i);
        r.has_start_time = 1;
        r.start_ms = now + (i + 1) * HR;
        r.has_desired_capacity = 1;
        assert_int_equal(sc_asg_put_scheduled_action(x->asg, &r, now, &x->err),
                         i < SC_ASG_MAX_SCHEDULED_ACTIONS ? SC_OK : SC_ERR_LIMIT_EXCEEDED);
    }
    assert_int_equal(sc_asg_scheduled_action_count(x->asg, "g"), SC_ASG_MAX_SCHEDULED_ACTIONS);
}

/* --- runs ---------------------------------------------------------------------------------- */

static void test_asg_sched_one_time_runs_at_start_then_goes(void **state)
{
    struct fx *x = *state;
    int64_t now = at("2026-01-01T00:00:00Z");
    struct sc_asg_sched_req r = req("once");

    r.has_start_time = 1;
    r.start_ms = at("2026-01-01T08:00:00Z");
    r.has_desired_capacity = 1;
    r.desired_capacity = 3;
    r.has_max_size = 1;
    r.max_size = 4;
    assert_int_equal(sc_asg_put_scheduled_action(x->asg, &r, now, &x->err), SC_OK);
    assert_int_equal(asg_sched_next_due((const struct asg_group *)grp(x)),
                     at("2026-01-01T08:00:00Z"));
    assert_true(sc_asg_next_due_ms(x->asg, at("2026-01-01T07:59:59Z")) <=
                at("2026-01-01T08:00:00Z"));
    sc_asg_step(x->asg, at("2026-01-01T07:59:59Z"));
    assert_int_equal(grp(x)->desired_capacity, 1);
    sc_asg_step(x->asg, at("2026-01-01T08:00:00Z"));
    assert_int_equal(grp(x)->desired_capacity, 3);
    assert_int_equal(grp(x)->max_size, 4);
    assert_int_equal(grp(x)->min_size, 1);
    assert_int_equal(sc_asg_scheduled_action_count(x->asg, "g"), 0); /* does not persist */
}

static void test_asg_sched_cause_text(void **state)
{
    struct fx *x = *state;
    int64_t now = at("2026-01-01T00:00:00Z");
    struct sc_asg_sched_req r = req("once");
    const struct sc_asg_activity_info *a;

    r.has_start_time = 1;
    r.start_ms = at("2026-01-01T08:00:00Z");
    r.has_desired_capacity = 1;
    r.desired_capacity = 2;
    assert_int_equal(sc_asg_put_scheduled_action(x->asg, &r, now, &x->err), SC_OK);
    sc_asg_step(x->asg, at("2026-01-01T08:00:00Z"));
    /* the launch it causes carries it (this fixture's launches fail: no EC2) */
    a = sc_asg_activity_at(x->asg, "g", 0);
    assert_non_null(a);
    assert_non_null(strstr(
        a->cause,
        "At 2026-01-01T08:00:00Z a scheduled action update of AutoScalingGroup constraints to min: 1, max: 5, desired: 2 changing the desired capacity from 1 to 2."));
}

static void test_asg_sched_recurrence_repeats_until_end(void **state)
{
    struct fx *x = *state;
    int64_t now = at("2026-01-01T00:00:00Z");
    struct sc_asg_sched_req r = req("daily");

    r.recurrence = "0 9 * * *";
    r.time_zone = "Test/East2"; /* 07:00Z */
    r.has_end_time = 1;
    r.end_ms = at("2026-01-02T12:00:00Z");
    r.has_desired_capacity = 1;
    r.desired_capacity = 2;
    assert_int_equal(sc_asg_put_scheduled_action(x->asg, &r, now, &x->err), SC_OK);
    /* no StartTime: the first run is described as StartTime */
    assert_int_equal(sc_asg_scheduled_action_at(x->asg, "g", 0)->start_ms,
                     at("2026-01-01T07:00:00Z"));
    sc_asg_step(x->asg, at("2026-01-01T07:00:00Z"));
    assert_int_equal(grp(x)->desired_capacity, 2);
    assert_int_equal(sc_asg_scheduled_action_at(x->asg, "g", 0)->start_ms,
                     at("2026-01-02T07:00:00Z"));
    assert_int_equal(
        sc_asg_set_desired_capacity(x->asg, "g", 1, 0, at("2026-01-01T12:00:00Z"), &x->err), SC_OK);
    sc_asg_step(x->asg, at("2026-01-02T07:00:00Z"));
    assert_int_equal(grp(x)->desired_capacity, 2); /* again */
    /* the next run would be past EndTime: the action goes */
    assert_int_equal(sc_asg_scheduled_action_count(x->asg, "g"), 0);
}

static void test_asg_sched_start_then_recurrence(void **state)
{
    struct fx *x = *state;
    int64_t now = at("2026-01-01T00:00:00Z");
    struct sc_asg_sched_req r = req("s");

    r.has_start_time = 1;
    r.start_ms = at("2026-01-01T03:17:00Z");
    r.recurrence = "0 * * * *";
    r.has_desired_capacity = 1;
    r.desired_capacity = 2;
    assert_int_equal(sc_asg_put_scheduled_action(x->asg, &r, now, &x->err), SC_OK);
    sc_asg_step(x->asg, at("2026-01-01T03:17:00Z"));
    assert_int_equal(grp(x)->desired_capacity, 2);
    assert_int_equal(sc_asg_scheduled_action_at(x->asg, "g", 0)->start_ms,
                     at("2026-01-01T04:00:00Z"));
}

static void test_asg_sched_suspended_process_skips_runs(void **state)
{
    struct fx *x = *state;
    int64_t now = at("2026-01-01T00:00:00Z");
    struct sc_asg_sched_req r = req("daily");
    const char *procs[1] = { "ScheduledActions" };

    r.recurrence = "0 9 * * *";
    r.has_desired_capacity = 1;
    r.desired_capacity = 2;
    assert_int_equal(sc_asg_put_scheduled_action(x->asg, &r, now, &x->err), SC_OK);
    assert_int_equal(sc_asg_suspend_processes(x->asg, "g", procs, 1, now, &x->err), SC_OK);
    sc_asg_step(x->asg, at("2026-01-01T09:00:00Z"));
    assert_int_equal(grp(x)->desired_capacity, 1);
    assert_int_equal(sc_asg_scheduled_action_at(x->asg, "g", 0)->start_ms,
                     at("2026-01-02T09:00:00Z"));
}

static void test_asg_sched_keeps_desired_within_new_sizes(void **state)
{
    struct fx *x = *state;
    int64_t now = at("2026-01-01T00:00:00Z");
    struct sc_asg_sched_req r = req("floor");

    r.has_start_time = 1;
    r.start_ms = now + HR;
    r.has_min_size = 1;
    r.min_size = 3; /* no desired: the current one (1) is raised to the new min */
    assert_int_equal(sc_asg_put_scheduled_action(x->asg, &r, now, &x->err), SC_OK);
    sc_asg_step(x->asg, now + HR);
    assert_int_equal(grp(x)->min_size, 3);
    assert_int_equal(grp(x)->desired_capacity, 3);
}

static void test_asg_sched_delete_and_not_found(void **state)
{
    struct fx *x = *state;
    int64_t now = at("2026-01-01T00:00:00Z");
    struct sc_asg_sched_req r = req("a");

    r.recurrence = "0 9 * * *";
    r.has_desired_capacity = 1;
    assert_int_equal(sc_asg_put_scheduled_action(x->asg, &r, now, &x->err), SC_OK);
    assert_int_equal(sc_asg_delete_scheduled_action(x->asg, "g", "b", now, &x->err),
                     SC_ERR_VALIDATION);
    assert_string_equal(x->err.message, "Scheduled action name not found");
    assert_int_equal(sc_asg_delete_scheduled_action(x->asg, "g", "a", now, &x->err), SC_OK);
    assert_int_equal(sc_asg_scheduled_action_count(x->asg, "g"), 0);
    assert_int_equal(sc_asg_scheduled_action_count(x->asg, "nope"), -1);
}

static void test_asg_sched_save_load(void **state)
{
    struct fx *x = *state;
    int64_t now = at("2026-01-01T00:00:00Z");
    struct sc_asg_sched_req r = req("a");
    struct sc_asg_config cfg = { 0 };
    struct sc_rng rng;
    struct sc_asg *y;
    json_t *j, *k;
    char *s1, *s2;

    r.recurrence = "30 6 * * 2";
    r.time_zone = "Test/East2";
    r.has_min_size = r.has_max_size = r.has_desired_capacity = 1;
    r.min_size = 1;
    r.max_size = 4;
    r.desired_capacity = 2;
    assert_int_equal(sc_asg_put_scheduled_action(x->asg, &r, now, &x->err), SC_OK);
    j = sc_asg_save(x->asg);
    sc_rng_init(&rng, 1);
    cfg.rng = &rng;
    cfg.env.tz_offset = fake_tz;
    y = sc_asg_create(&cfg);
    assert_int_equal(sc_asg_load(y, j, &x->err), SC_OK);
    k = sc_asg_save(y);
    s1 = json_dumps(j, JSON_SORT_KEYS);
    s2 = json_dumps(k, JSON_SORT_KEYS);
    assert_string_equal(s1, s2);
    assert_string_equal(sc_asg_scheduled_action_at(y, "g", 0)->scheduled_action_arn,
                        sc_asg_scheduled_action_at(x->asg, "g", 0)->scheduled_action_arn);
    free(s1);
    free(s2);
    json_decref(j);
    json_decref(k);
    sc_asg_destroy(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_asg_sched_recurrence_five_fields),
        cmocka_unit_test(test_asg_sched_recurrence_next_utc),
        cmocka_unit_test(test_asg_sched_recurrence_in_time_zone_follows_dst),
        cmocka_unit_test_setup_teardown(test_asg_sched_put_errors_change_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_asg_sched_unique_start_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_asg_sched_limit_125, setup, teardown),
        cmocka_unit_test_setup_teardown(test_asg_sched_one_time_runs_at_start_then_goes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_asg_sched_cause_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_asg_sched_recurrence_repeats_until_end, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_asg_sched_start_then_recurrence, setup, teardown),
        cmocka_unit_test_setup_teardown(test_asg_sched_suspended_process_skips_runs, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_asg_sched_keeps_desired_within_new_sizes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_asg_sched_delete_and_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_asg_sched_save_load, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
