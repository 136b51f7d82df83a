/* tests/unit/emulator/test_model_pattern.c: the models' pattern constraints
 * (emulator/model_pattern.c) and the ValidationError texts model_coerce gives for them
 * (emulator/model_check.c), one test per rule of docs/models.md "Patterns". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "emulator/awserr.h"
#include "emulator/model.h"
#include "emulator/model_pattern.h"

#define XML_STRING "[\\u0020-\\uD7FF\\uE000-\\uFFFD\\uD800\\uDC00-\\uDBFF\\uDFFF\\r\\n\\t]*"
#define TAG_PAT    "^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$"

static int m(const char *pat, const char *s)
{
    char err[MODEL_PATTERN_ERR_LEN] = "";
    int r = model_pattern_match(pat, s, strlen(s), err);

    if (r < 0)
        fail_msg("pattern %s: %s", pat, err);
    return r;
}

static const char *shape_pattern(const struct model_service *svc, const char *name)
{
    for (int i = 0; i < svc->nshapes; i++) {
        if (strcmp(svc->shapes[i].name, name) == 0)
            return svc->shapes[i].pattern;
    }
    fail_msg("no shape %s", name);
    return NULL;
}

static void test_model_pattern_every_model_pattern_compiles(void **state)
{
    int n = 0;

    (void)state;
    for (int k = 0; model_services[k]; k++) {
        const struct model_service *svc = model_services[k];

        for (int i = 0; i < svc->nshapes; i++) {
            char err[MODEL_PATTERN_ERR_LEN] = "";

            if (!svc->shapes[i].pattern)
                continue;
            if (model_pattern_check(svc->shapes[i].pattern, err) != 0)
                fail_msg("%s %s: %s", svc->name, svc->shapes[i].name, err);
            n++;
        }
    }
    assert_true(n >= 40); /* 51 in the carried models */
}

static void test_model_pattern_xml_string_refuses_control_characters_and_uffff(void **state)
{
    const char nul[] = { 'a', '\0', 'b' };

    (void)state;
    assert_int_equal(m(XML_STRING, "web tier-1"), 1);
    assert_int_equal(m(XML_STRING, ""), 1);
    assert_int_equal(m(XML_STRING, "tab\tcr\rlf\n"), 1);
    assert_int_equal(m(XML_STRING, "caf\xc3\xa9 \xe2\x82\xac"), 1);
    assert_int_equal(m(XML_STRING, "\xef\xbf\xbd"), 1); /* U+FFFD is allowed */
    assert_int_equal(m(XML_STRING, "a\x01"), 0);
    assert_int_equal(m(XML_STRING, "\x1f"), 0);
    assert_int_equal(m(XML_STRING, "\x7f"), 1);         /* DEL is >= U+0020 */
    assert_int_equal(m(XML_STRING, "\xef\xbf\xbf"), 0); /* U+FFFF */
    assert_int_equal(m(XML_STRING, "\xef\xbf\xbe"), 0); /* U+FFFE */
    assert_int_equal(model_pattern_match(XML_STRING, nul, sizeof(nul), NULL), 0);
}

static void test_model_pattern_surrogate_pair_escapes_are_one_code_point(void **state)
{
    (void)state;
    /* \uD800\uDC00-\uDBFF\uDFFF is U+10000..U+10FFFF, as in Java */
    assert_int_equal(m(XML_STRING, "\xf0\x9f\x98\x80"), 1);         /* U+1F600 */
    assert_int_equal(m(XML_STRING, "\xf4\x8f\xbf\xbf"), 1);         /* U+10FFFF */
    assert_int_equal(m("[\\uD83D\\uDE00]", "\xf0\x9f\x98\x80"), 1); /* one pair, one point */
    assert_int_equal(m("[\\uD83D\\uDE00]", "\xf0\x9f\x98\x81"), 0);
}

static void test_model_pattern_matches_the_whole_value(void **state)
{
    const char *lt = shape_pattern(&model_autoscaling, "LaunchTemplateName");

    (void)state;
    assert_int_equal(m(lt, "my-template_(1)/x.y"), 1);
    assert_int_equal(m(lt, "has space"), 0); /* not just a prefix */
    assert_int_equal(m("[a-z]+", "abc1"), 0);
    assert_int_equal(m("a|ab", "ab"), 1); /* alternation tried whole, not first wins */
}

static void test_model_pattern_anchors_and_counted_repetition(void **state)
{
    const char *ami = shape_pattern(&model_autoscaling, "ImageId");
    const char *tn = shape_pattern(&model_cloudwatch, "TemplateName");

    (void)state;
    assert_string_equal(ami, "^ami-[a-z0-9]{1,17}$");
    assert_int_equal(m(ami, "ami-0abc"), 1);
    assert_int_equal(m(ami, "ami-0123456789abcdef0"), 1);  /* 17 */
    assert_int_equal(m(ami, "ami-0123456789abcdef01"), 0); /* 18 */
    assert_int_equal(m(ami, "ami-"), 0);
    assert_int_equal(m(ami, "AMI-1"), 0);
    assert_int_equal(m(tn, "ab"), 1);
    assert_int_equal(m(tn, "a"), 0);
    assert_int_equal(m(tn, "a-b.c_d"), 1);
    assert_int_equal(m(tn, "a-"), 0);
    assert_int_equal(m("^(2|4|5)\\d\\d$", "503"), 1);
    assert_int_equal(m("^(2|4|5)\\d\\d$", "302"), 0);
    assert_int_equal(m("^(HTTPS?|#\\{protocol\\})$", "#{protocol}"), 1);
    assert_int_equal(m("^(HTTPS?|#\\{protocol\\})$", "HTTPS"), 1);
    assert_int_equal(m("^(HTTPS?|#\\{protocol\\})$", "FTP"), 0);
    assert_int_equal(m("x{2,}", "xxxx"), 1);
    assert_int_equal(m("x{2,}", "x"), 0);
}

static void test_model_pattern_unicode_categories(void **state)
{
    (void)state;
    assert_string_equal(shape_pattern(&model_elb, "TagKey"), TAG_PAT);
    assert_int_equal(m(TAG_PAT, "Name"), 1);
    assert_int_equal(m(TAG_PAT, "env:prod/web=1+2-3@x_y.z"), 1);
    assert_int_equal(m(TAG_PAT, "caf\xc3\xa9 \xd9\xa3"), 1);     /* L, Zs, Nd (Arabic-Indic 3) */
    assert_int_equal(m(TAG_PAT, "\xe2\x80\xa8"), 1);             /* U+2028 is Zl */
    assert_int_equal(m(TAG_PAT, "\xe6\x97\xa5\xe6\x9c\xac"), 1); /* CJK letters */
    assert_int_equal(m(TAG_PAT, "a!"), 0);
    assert_int_equal(m(TAG_PAT, "a\tb"), 0);
    assert_int_equal(m(TAG_PAT, "\xe2\x82\xac"), 0); /* the euro sign is Sc */
    assert_int_equal(m("\\P{L}+", "12"), 1);
    assert_int_equal(m("\\P{L}+", "a"), 0);
    assert_true(strlen(model_ucat_version) >= 5);
}

static void test_model_pattern_dot_excludes_line_terminators(void **state)
{
    const char *ns = shape_pattern(&model_cloudwatch, "Namespace");

    (void)state;
    assert_string_equal(ns, "[^:].*");
    assert_int_equal(m(ns, "AWS/EC2"), 1);
    assert_int_equal(m(ns, ":x"), 0);
    assert_int_equal(m(ns, "a\nb"), 0);
    assert_int_equal(m(ns, "a\rb"), 0);
    assert_int_equal(m(ns, "\nb"), 1); /* the class [^:] takes a newline; only . refuses */
    assert_int_equal(m(ns, "a\xe2\x80\xa9"), 0); /* U+2029 */
}

static void test_model_pattern_extended_statistic(void **state)
{
    const char *st = shape_pattern(&model_cloudwatch, "AnomalyDetectorMetricStat");
    const char *good[] = { "Average", "p99",  "p99.9",       "p100",       "tm99",
                           "IQM",     "tc10", "TM(10%:90%)", "TM(:95%)",   "WM(10%:)",
                           "PR(10:)", "o5",   "p90_E",       "PR(1e3:2e4)" };
    const char *bad[] = { "p101", "avg", "TM(10%)", "p", "TM(10:90%)", "Sum_X" };

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        if (m(st, good[i]) != 1)
            fail_msg("%s refused", good[i]);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (m(st, bad[i]) != 0)
            fail_msg("%s accepted", bad[i]);
    }
}

static void test_model_pattern_nested_quantifiers_run_in_linear_time(void **state)
{
    static char s[200002];
    const char *ts = shape_pattern(&model_elbv2, "TrustStoreName");
    clock_t t0;

    (void)state;
    assert_string_equal(ts, "^([a-zA-Z0-9]+-)*[a-zA-Z0-9]+$");
    memset(s, 'a', sizeof(s) - 2);
    s[sizeof(s) - 2] = '!'; /* a backtracking matcher takes 2^n here */
    t0 = clock();
    assert_int_equal(m(ts, s), 0);
    assert_int_equal(m(ts, "a-b-c"), 1);
    assert_int_equal(m(ts, "a--b"), 0);
    assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0);
}

static void test_model_pattern_unsupported_syntax_is_an_error(void **state)
{
    const char *bad[] = { "([a-z]+)(?<!-)", "(a)\\1", "[a-z&&[^b]]", "a++", "(?i)a",
                          "\\p{Lu}",        "(a",     "a)",          "[a-", "*a",
                          "a{3,1}" };
    char err[MODEL_PATTERN_ERR_LEN];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        if (model_pattern_check(bad[i], err) != -1)
            fail_msg("%s compiled", bad[i]);
        assert_true(err[0] != '\0');
        assert_int_equal(model_pattern_match(bad[i], "a", 1, NULL), -1);
    }
}

static int coerce(const struct model_service *svc, const char *op, const char *json,
                  struct awserr *err)
{
    json_t *in = json_loads(json, JSON_ALLOW_NUL, NULL), *out = NULL;
    int rc;

    assert_non_null(in);
    memset(err, 0, sizeof(*err));
    rc = model_coerce(svc, (uint32_t)model_op_find(svc, op)->input, in, 0, &out, err);
    json_decref(in);
    json_decref(out);
    return rc;
}

static void test_model_check_pattern_error_is_awss_validation_error(void **state)
{
    struct awserr err;

    (void)state;
    assert_int_equal(coerce(&model_autoscaling, "CreateLaunchConfiguration",
                            "{\"LaunchConfigurationName\":\"x\\u0001\"}", &err),
                     -1);
    assert_int_equal(err.http, 400);
    assert_string_equal(err.code, "ValidationError");
    assert_string_equal(err.message,
                        "1 validation error detected: Value 'x\001' at 'launchConfigurationName' "
                        "failed to satisfy constraint: Member must satisfy regular expression "
                        "pattern: " XML_STRING);
    assert_int_equal(coerce(&model_autoscaling, "CreateLaunchConfiguration",
                            "{\"LaunchConfigurationName\":\"lc-\\uffff\"}", &err),
                     -1);
    assert_non_null(strstr(err.message, "regular expression pattern"));
    assert_int_equal(coerce(&model_autoscaling, "CreateLaunchConfiguration",
                            "{\"LaunchConfigurationName\":\"lc \\ud83d\\ude00\"}", &err),
                     0);
}

static void test_model_check_pattern_then_length_both_listed(void **state)
{
    struct awserr err;

    (void)state;
    /* LaunchTemplateName: 3..128 of [a-zA-Z0-9\(\)\.\-/_]+ */
    assert_int_equal(
        coerce(&model_ec2, "DeleteLaunchTemplate", "{\"LaunchTemplateName\":\"a b\"}", &err), -1);
    assert_string_equal(err.code, "InvalidParameterValue");
    assert_non_null(strstr(err.message, "regular expression pattern"));
    assert_int_equal(coerce(&model_autoscaling, "CreateAutoScalingGroup",
                            "{\"AutoScalingGroupName\":\"g\",\"MinSize\":0,\"MaxSize\":1,"
                            "\"LaunchTemplate\":{\"LaunchTemplateName\":\"!\"}}",
                            &err),
                     -1);
    assert_string_equal(err.message,
                        "2 validation errors detected: Value '!' at "
                        "'launchTemplate.launchTemplateName' failed to satisfy constraint: Member "
                        "must satisfy regular expression pattern: [a-zA-Z0-9\\(\\)\\.\\-/_]+; "
                        "Value '!' at 'launchTemplate.launchTemplateName' failed to satisfy "
                        "constraint: Member must have length greater than or equal to 3");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_pattern_every_model_pattern_compiles),
        cmocka_unit_test(test_model_pattern_xml_string_refuses_control_characters_and_uffff),
        cmocka_unit_test(test_model_pattern_surrogate_pair_escapes_are_one_code_point),
        cmocka_unit_test(test_model_pattern_matches_the_whole_value),
        cmocka_unit_test(test_model_pattern_anchors_and_counted_repetition),
        cmocka_unit_test(test_model_pattern_unicode_categories),
        cmocka_unit_test(test_model_pattern_dot_excludes_line_terminators),
        cmocka_unit_test(test_model_pattern_extended_statistic),
        cmocka_unit_test(test_model_pattern_nested_quantifiers_run_in_linear_time),
        cmocka_unit_test(test_model_pattern_unsupported_syntax_is_an_error),
        cmocka_unit_test(test_model_check_pattern_error_is_awss_validation_error),
        cmocka_unit_test(test_model_check_pattern_then_length_both_listed),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
