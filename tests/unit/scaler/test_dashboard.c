/* tests/unit/scaler/test_dashboard.c: scaler/dashboard.c (the DashboardBody checks and
 * their messages, the store, the state file) */
#include "scaler/dashboard.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "scaler/cloudwatch.h"
#include "scaler/world.h"

#define T0 1767225600000LL

#define GOOD                                                                                       \
    "{\"start\":\"-PT6H\",\"widgets\":[{\"type\":\"metric\",\"x\":0,\"y\":0,\"width\":12,"         \
    "\"height\":6,\"properties\":{\"metrics\":[[\"AWS/EC2\",\"CPUUtilization\"]],"                 \
    "\"region\":\"us-east-1\"}},{\"type\":\"text\",\"x\":0,\"y\":7,\"width\":3,\"height\":3,"      \
    "\"properties\":{\"markdown\":\"Hello world\"}}]}"

static void test_dashboard_body_validation_messages(void **state)
{
    static const struct {
        const char *body;
        int errors;
        const char *path, *message; /* the first message */
    } cases[] = {
        { GOOD, 0, NULL, NULL },
        { "{\"widgets\":[]}", 0, NULL, NULL },
        { "not json", 1, "", "The field DashboardBody must be a valid JSON object" },
        { "{\"widgets\":[", 1, "", "The field DashboardBody must be a valid JSON object" },
        { "[1]", 1, "", "Should be object" },
        { "{}", 1, "", "Should have required property 'widgets'" },
        { "{\"widgets\":{}}", 1, "/widgets", "Should be array" },
        { "{\"widgets\":[3]}", 1, "/widgets/0", "Should be object" },
        { "{\"widgets\":[{\"x\":0}]}", 1, "/widgets/0", "Should have required property 'type'" },
        { "{\"widgets\":[{\"type\":\"gauge\"}]}", 1, "/widgets/0/type",
          "Should be equal to one of the allowed values" },
        { "{\"widgets\":[{\"type\":\"text\",\"properties\":{\"markdown\":\"a\"}},"
          "{\"type\":\"bogus\"}]}",
          1, "/widgets/1/type", "Should be equal to one of the allowed values" },
        { "{\"widgets\":[{\"type\":\"metric\",\"properties\":{}}]}", 3, "/widgets/0/properties",
          "Should have required property 'metrics'" },
        { "{\"widgets\":[{\"type\":\"text\",\"properties\":{}}]}", 1, "/widgets/0/properties",
          "Should have required property 'markdown'" },
        { "{\"widgets\":[{\"type\":\"text\",\"width\":25,\"properties\":{\"markdown\":\"a\"}}]}", 1,
          "/widgets/0/width", "Should NOT be greater than 24" },
        { "{\"widgets\":[{\"type\":\"text\",\"height\":\"6\",\"properties\":{\"markdown\":\"a\"}}]}",
          1, "/widgets/0/height", "Should be integer" },
    };
    struct sc_dashboard_check c;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int n = sc_dashboard_body_check(cases[i].body, &c);
        if (n != cases[i].errors)
            fail_msg("case %zu: %d errors, want %d", i, n, cases[i].errors);
        if (!cases[i].path)
            continue;
        assert_string_equal(c.msg[0].data_path, cases[i].path);
        assert_string_equal(c.msg[0].message, cases[i].message);
    }
}

struct seen {
    int n;
    char names[8][32];
    int64_t size[8];
};

static int visit(const struct sc_dashboard_view *d, void *ud)
{
    struct seen *s = ud;
    snprintf(s->names[s->n], sizeof(s->names[0]), "%s", d->name);
    s->size[s->n++] = d->size;
    return 0;
}

static void test_dashboard_put_get_list_delete(void **state)
{
    struct sc_dashboards *d = sc_dashboards_create(NULL, NULL);
    const struct sc_dashboard_view *v;
    struct sc_error err = { 0 };
    struct seen s = { 0 };
    const char *del[] = { "ops-b", "missing", "gone" }, *ok[] = { "ops-b" };

    (void)state;
    assert_int_equal(sc_dashboards_put(d, "ops-b", GOOD, T0, NULL, NULL), SC_OK);
    assert_int_equal(sc_dashboards_put(d, "ops_a", "{\"widgets\":[]}", T0 + 1, NULL, NULL), SC_OK);
    assert_int_equal(sc_dashboards_put(d, "other", "{\"widgets\":[]}", T0 + 2, NULL, NULL), SC_OK);
    assert_int_equal(sc_dashboards_get(d, "ops-b", &v, NULL), SC_OK);
    assert_string_equal(v->body, GOOD);
    assert_string_equal(v->arn, "arn:aws:cloudwatch::123456789012:dashboard/ops-b");
    assert_int_equal(v->size, (int64_t)strlen(GOOD));
    assert_int_equal(v->last_modified_ms, T0);
    assert_int_equal(sc_dashboards_list(d, "ops", visit, &s, NULL), SC_OK);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.names[0], "ops-b");
    assert_string_equal(s.names[1], "ops_a");
    assert_int_equal(sc_dashboards_get(d, "nope", &v, &err), SC_ERR_RESOURCE_NOT_FOUND);
    assert_string_equal(err.message, "Dashboard nope does not exist");
    /* all or nothing */
    assert_int_equal(sc_dashboards_delete(d, del, 3, &err), SC_ERR_RESOURCE_NOT_FOUND);
    assert_string_equal(err.message, "The specified dashboard does not exist. [missing, gone]");
    assert_int_equal(sc_dashboards_count(d), 3);
    assert_int_equal(sc_dashboards_delete(d, ok, 1, NULL), SC_OK);
    assert_int_equal(sc_dashboards_count(d), 2);
    /* names */
    assert_int_equal(sc_dashboards_put(d, "bad name", GOOD, T0, NULL, &err),
                     SC_ERR_INVALID_PARAMETER_INPUT);
    assert_non_null(strstr(err.message, "contains invalid characters"));
    sc_dashboards_destroy(d);
}

static void test_dashboard_refused_body_changes_nothing(void **state)
{
    struct sc_dashboards *d = sc_dashboards_create(NULL, NULL);
    const struct sc_dashboard_view *v;
    struct sc_dashboard_check c;
    struct sc_error err = { 0 };

    (void)state;
    assert_int_equal(sc_dashboards_put(d, "x", GOOD, T0, NULL, NULL), SC_OK);
    assert_int_equal(
        sc_dashboards_put(d, "x", "{\"widgets\":[{\"type\":\"metric\"}]}", T0 + 5, &c, &err),
        SC_ERR_INVALID_PARAMETER_INPUT);
    assert_int_equal(c.total, 3);
    assert_string_equal(err.message,
                        "The dashboard body is invalid, there are 3 validation errors:\n[\n  {\n"
                        "    \"dataPath\": \"/widgets/0/properties\",\n    \"message\": \"Should "
                        "have required property 'metrics'\"\n  },\n  {\n    \"dataPath\": "
                        "\"/widgets/0/properties\",\n    \"message\": \"The metric widget should "
                        "have specified a region and a data source or an alarm annotation\"\n  },\n"
                        "  {\n    \"dataPath\": \"/widgets/0/properties\",\n    \"message\": "
                        "\"Should have required property 'annotations'\"\n  }\n]");
    assert_int_equal(sc_dashboards_get(d, "x", &v, NULL), SC_OK);
    assert_string_equal(v->body, GOOD);
    assert_int_equal(v->last_modified_ms, T0);
    sc_dashboards_destroy(d);
}

static void test_dashboard_state_file_round_trip(void **state)
{
    struct sc_dashboards *d = sc_dashboards_create(NULL, NULL),
                         *e = sc_dashboards_create(NULL, NULL);
    json_t *j, *bad;
    const struct sc_dashboard_view *v;

    (void)state;
    assert_int_equal(sc_dashboards_put(d, "x", GOOD, T0, NULL, NULL), SC_OK);
    assert_int_equal(sc_dashboards_put(d, "y", "{\"widgets\":[]}", T0 + 7, NULL, NULL), SC_OK);
    j = sc_dashboards_save(d);
    assert_int_equal(sc_dashboards_load(e, j, NULL), SC_OK);
    assert_int_equal(sc_dashboards_get(e, "y", &v, NULL), SC_OK);
    assert_int_equal(v->last_modified_ms, T0 + 7);
    bad = json_pack("[{ss}]", "name", "z");
    assert_int_not_equal(sc_dashboards_load(e, bad, NULL), SC_OK);
    assert_int_equal(sc_dashboards_count(e), 2);
    json_decref(bad);
    json_decref(j);
    sc_dashboards_destroy(d);
    sc_dashboards_destroy(e);
}

struct clashes {
    int n;
    char names[4][16];
    int kept_new[4];
    int64_t kept_ms[4], dropped_ms[4];
};

static void on_clash(const struct sc_dashboard_clash *c, void *ud)
{
    struct clashes *x = ud;

    if (x->n == 4)
        fail_msg("more than 4 clashes");
    snprintf(x->names[x->n], sizeof(x->names[0]), "%s", c->name);
    x->kept_new[x->n] = c->kept_new;
    x->kept_ms[x->n] = c->kept_ms;
    x->dropped_ms[x->n] = c->dropped_ms;
    x->n++;
}

/* Merging a region's dashboards (a version 1 state file) into the account's: a name both
 * hold keeps the later LastModified, a tie keeps the one held first, new names join, and
 * every clash is reported; a bad list changes nothing. */
static void test_dashboards_merge_keeps_later_last_modified(void **state)
{
    struct sc_dashboards *d = sc_dashboards_create("111122223333", "aws-cn");
    struct clashes c = { 0 };
    const struct sc_dashboard_view *v;
    json_t *j, *bad;

    (void)state;
    assert_int_equal(sc_dashboards_put(d, "older-there", "{\"widgets\":[]}", T0 + 5, NULL, NULL),
                     SC_OK);
    assert_int_equal(sc_dashboards_put(d, "newer-there", "{\"widgets\":[]}", T0, NULL, NULL),
                     SC_OK);
    assert_int_equal(sc_dashboards_put(d, "tie", "{\"widgets\":[]}", T0, NULL, NULL), SC_OK);
    j = json_pack("[{sssssI},{sssssI},{sssssI},{sssssI}]", "name", "older-there", "body", GOOD,
                  "last_modified_ms", (json_int_t)T0, "name", "newer-there", "body", GOOD,
                  "last_modified_ms", (json_int_t)(T0 + 9), "name", "tie", "body", GOOD,
                  "last_modified_ms", (json_int_t)T0, "name", "only-there", "body", GOOD,
                  "last_modified_ms", (json_int_t)(T0 + 1));
    assert_int_equal(sc_dashboards_merge(d, j, on_clash, &c, NULL), SC_OK);
    assert_int_equal(sc_dashboards_count(d), 4);
    assert_int_equal(sc_dashboards_get(d, "older-there", &v, NULL), SC_OK);
    assert_string_equal(v->body, "{\"widgets\":[]}");
    assert_int_equal(v->last_modified_ms, T0 + 5);
    assert_int_equal(sc_dashboards_get(d, "newer-there", &v, NULL), SC_OK);
    assert_string_equal(v->body, GOOD);
    assert_int_equal(v->last_modified_ms, T0 + 9);
    assert_string_equal(v->arn, "arn:aws-cn:cloudwatch::111122223333:dashboard/newer-there");
    assert_int_equal(sc_dashboards_get(d, "tie", &v, NULL), SC_OK);
    assert_string_equal(v->body, "{\"widgets\":[]}");
    assert_int_equal(sc_dashboards_get(d, "only-there", &v, NULL), SC_OK);
    assert_string_equal(v->arn, "arn:aws-cn:cloudwatch::111122223333:dashboard/only-there");
    /* reported in name order */
    assert_int_equal(c.n, 3);
    assert_string_equal(c.names[0], "newer-there");
    assert_int_equal(c.kept_new[0], 1);
    assert_int_equal(c.kept_ms[0], T0 + 9);
    assert_int_equal(c.dropped_ms[0], T0);
    assert_string_equal(c.names[1], "older-there");
    assert_int_equal(c.kept_new[1], 0);
    assert_int_equal(c.kept_ms[1], T0 + 5);
    assert_int_equal(c.dropped_ms[1], T0);
    assert_string_equal(c.names[2], "tie");
    assert_int_equal(c.kept_new[2], 0);
    /* a list with a name twice is refused whole: nothing joins, nothing is replaced */
    bad = json_pack("[{sssssI},{sssssI}]", "name", "fresh", "body", GOOD, "last_modified_ms",
                    (json_int_t)(T0 + 50), "name", "fresh", "body", GOOD, "last_modified_ms",
                    (json_int_t)(T0 + 51));
    c.n = 0;
    assert_int_equal(sc_dashboards_merge(d, bad, on_clash, &c, NULL), SC_ERR_VALIDATION);
    assert_int_equal(sc_dashboards_count(d), 4);
    assert_int_equal(c.n, 0);
    assert_int_equal(sc_dashboards_merge(d, NULL, on_clash, &c, NULL), SC_OK);
    assert_int_equal(sc_dashboards_count(d), 4);
    json_decref(bad);
    json_decref(j);
    sc_dashboards_destroy(d);
}

/* An account's regions share one set (sc_world_config.dashboards): a Put through one
 * region's CloudWatch is the Get of another's, and a world neither saves nor loads it. */
static void test_dashboards_shared_by_an_accounts_regions(void **state)
{
    struct sc_dashboards *d = sc_dashboards_create("123456789012", "aws");
    struct sc_world_config cfg;
    struct sc_world *east, *west;
    const struct sc_dashboard_view *v;
    json_t *saved, *old;

    (void)state;
    sc_world_config_defaults(&cfg);
    cfg.dashboards = d;
    east = sc_world_create(&cfg);
    cfg.region = "eu-west-1";
    west = sc_world_create(&cfg);
    assert_non_null(east);
    assert_non_null(west);
    assert_ptr_equal(sc_cw_dashboards(sc_world_cw(east)), d);
    assert_int_equal(
        sc_dashboards_put(sc_cw_dashboards(sc_world_cw(east)), "ops", GOOD, T0, NULL, NULL), SC_OK);
    assert_int_equal(sc_dashboards_get(sc_cw_dashboards(sc_world_cw(west)), "ops", &v, NULL),
                     SC_OK);
    assert_string_equal(v->arn, "arn:aws:cloudwatch::123456789012:dashboard/ops");
    saved = sc_cw_save(sc_world_cw(east));
    assert_null(json_object_get(saved, "dashboards"));
    /* a version 1 world's own list is left to the owner's merge, not loaded over the set */
    old =
        json_pack("[{sssssI}]", "name", "other", "body", GOOD, "last_modified_ms", (json_int_t)T0);
    json_object_set_new(saved, "dashboards", old);
    assert_int_equal(sc_cw_load(sc_world_cw(west), saved, NULL), SC_OK);
    assert_int_equal(sc_dashboards_count(d), 1);
    json_decref(saved);
    sc_world_destroy(east);
    sc_world_destroy(west);
    assert_int_equal(sc_dashboards_count(d), 1); /* the worlds only borrowed it */
    sc_dashboards_destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dashboard_body_validation_messages),
        cmocka_unit_test(test_dashboard_put_get_list_delete),
        cmocka_unit_test(test_dashboard_refused_body_changes_nothing),
        cmocka_unit_test(test_dashboard_state_file_round_trip),
        cmocka_unit_test(test_dashboards_merge_keeps_later_last_modified),
        cmocka_unit_test(test_dashboards_shared_by_an_accounts_regions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
