/* tests/unit/scaler/test_json_tags.c: scaler/json_tags.c, the Tags list of a JSON-kept
 * CloudWatch record (metric streams, Contributor Insights rules) under TagResource,
 * UntagResource and ListTagsForResource. */
#include "scaler/json_tags.h"

#include <stdio.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static int join(const char *k, const char *v, void *ud)
{
    char *out = ud;

    snprintf(out + strlen(out), 256 - strlen(out), "%s=%s;", k, v);
    return 0;
}

static void tags_of(const json_t *rec, char out[256])
{
    out[0] = 0;
    sc_json_tags_visit(rec, join, out);
}

/* A new key is appended, an existing key's value replaced, in the order first given. */
static void test_json_tags_add_appends_and_replaces(void **state)
{
    json_t *rec = json_object();
    struct sc_tag a[] = { { "team", "a" }, { "env", "lab" } }, b[] = { { "team", "b" } };
    char out[256];

    (void)state;
    assert_int_equal(sc_json_tags_add(rec, a, 2, NULL), SC_OK);
    assert_int_equal(sc_json_tags_add(rec, b, 1, NULL), SC_OK);
    tags_of(rec, out);
    assert_string_equal(out, "team=b;env=lab;");
    json_decref(rec);
}

/* A tag without a key or a value names itself, and nothing is added. */
static void test_json_tags_missing_key_or_value_changes_nothing(void **state)
{
    json_t *rec = json_pack("{s:[{s:s,s:s}]}", "Tags", "Key", "k", "Value", "v");
    struct sc_tag bad[] = { { "x", "1" }, { "", "2" } }, nov[] = { { "y", NULL } };
    struct sc_error err = { 0 };
    char out[256];

    (void)state;
    assert_int_equal(sc_json_tags_add(rec, bad, 2, &err), SC_ERR_MISSING_PARAMETER);
    assert_string_equal(err.message, "The parameter Tags.member.2.Key is required.");
    assert_int_equal(sc_json_tags_add(rec, nov, 1, &err), SC_ERR_MISSING_PARAMETER);
    assert_string_equal(err.message, "The parameter Tags.member.1.Value is required.");
    tags_of(rec, out);
    assert_string_equal(out, "k=v;");
    json_decref(rec);
}

/* Untag removes the named keys; unknown keys are ignored. */
static void test_json_tags_remove_ignores_unknown_keys(void **state)
{
    json_t *rec = json_pack("{s:[{s:s,s:s},{s:s,s:s}]}", "Tags", "Key", "a", "Value", "1", "Key",
                            "b", "Value", "2");
    const char *keys[] = { "nope", "a" };
    char out[256];

    (void)state;
    sc_json_tags_remove(rec, keys, 2);
    tags_of(rec, out);
    assert_string_equal(out, "b=2;");
    json_decref(rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_tags_add_appends_and_replaces),
        cmocka_unit_test(test_json_tags_missing_key_or_value_changes_nothing),
        cmocka_unit_test(test_json_tags_remove_ignores_unknown_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
