/* tests/unit/common/test_sigv4.c: common/sigv4 against AWS's published SigV4 test suite.
 *
 * Expected strings are copied from awslabs/aws-c-auth tests/aws-signing-test-suite/v4/
 * (commit 495329c2433034bd8fd53fc6ba9e0202d3fac876): get-vanilla, get-header-value-trim,
 * get-utf8, get-vanilla-query-order-key-case, get-slashes-normalized,
 * post-x-www-form-urlencoded (header-*.txt). Credentials AKIDEXAMPLE /
 * wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, us-east-1, service "service",
 * 20150830T123600Z. Then the verifier's helpers: thousands of headers in a canonical request,
 * the X-Amz-Date shape, and the signature comparison. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/sigv4.h"

#define SECRET    "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define DATE      "20150830T123600Z"
#define SCOPE     "20150830/us-east-1/service/aws4_request"
#define EMPTY_SHA "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

struct vec {
    const char *name;
    const char *method, *path, *query;
    struct cm_sigv4_header hdrs[6];
    int nhdrs;
    const char *signed_headers;
    const char *body;
    const char *creq;
    const char *signature;
};

static const struct vec vecs[] = {
    { "get-vanilla",
      "GET",
      "/",
      "",
      { { "Host", "example.amazonaws.com" }, { "X-Amz-Date", DATE } },
      2,
      "host;x-amz-date",
      "",
      "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" EMPTY_SHA,
      "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
    { "get-header-value-trim",
      "GET",
      "/",
      "",
      { { "Host", "example.amazonaws.com" },
        { "My-Header1", " value1" },
        { "My-Header2", " \"a   b   c\"" },
        { "X-Amz-Date", DATE } },
      4,
      "host;my-header1;my-header2;x-amz-date",
      "",
      "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\n"
      "x-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\n" EMPTY_SHA,
      "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736" },
    { "get-utf8",
      "GET",
      "/\xe1\x88\xb4",
      "",
      { { "Host", "example.amazonaws.com" }, { "X-Amz-Date", DATE } },
      2,
      "host;x-amz-date",
      "",
      "GET\n/%E1%88%B4\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" EMPTY_SHA,
      "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85" },
    { "get-vanilla-query-order-key-case",
      "GET",
      "/",
      "Param2=value2&Param1=value1",
      { { "Host", "example.amazonaws.com" }, { "X-Amz-Date", DATE } },
      2,
      "host;x-amz-date",
      "",
      "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
      "host;x-amz-date\n" EMPTY_SHA,
      "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500" },
    { "get-slashes-normalized",
      "GET",
      "//example//",
      "",
      { { "Host", "example.amazonaws.com" }, { "X-Amz-Date", DATE } },
      2,
      "host;x-amz-date",
      "",
      "GET\n/example/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" EMPTY_SHA,
      "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84" },
    { "post-x-www-form-urlencoded",
      "POST",
      "/",
      "",
      { { "Content-Type", "application/x-www-form-urlencoded" },
        { "Host", "example.amazonaws.com" },
        { "Content-Length", "13" },
        { "X-Amz-Date", DATE },
        { "x-amz-content-sha256",
          "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e" } },
      5,
      "content-length;content-type;host;x-amz-content-sha256;x-amz-date",
      "Param1=value1",
      "POST\n/\n\ncontent-length:13\ncontent-type:application/x-www-form-urlencoded\n"
      "host:example.amazonaws.com\n"
      "x-amz-content-sha256:9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e\n"
      "x-amz-date:20150830T123600Z\n\n"
      "content-length;content-type;host;x-amz-content-sha256;x-amz-date\n"
      "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
      "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b" },
};

static void test_sigv4_aws_test_suite(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
        const struct vec *v = &vecs[i];
        struct cm_buf creq, sts;
        char phash[CM_SIGV4_HEX_LEN], sig[CM_SIGV4_HEX_LEN], auth[512], want[512];
        unsigned char key[32];

        cm_buf_init(&creq, 0);
        cm_buf_init(&sts, 0);
        cm_sigv4_sha256_hex(v->body, strlen(v->body), phash);
        assert_int_equal(cm_sigv4_canonical_request(&creq, v->method, v->path, v->query, v->hdrs,
                                                    v->nhdrs, v->signed_headers, phash),
                         0);
        if (strcmp(creq.data, v->creq) != 0)
            fail_msg("%s: canonical request\n%s\n--- want\n%s", v->name, creq.data, v->creq);
        cm_sigv4_string_to_sign(&sts, DATE, SCOPE, creq.data, creq.len);
        cm_sigv4_signing_key(SECRET, "20150830", "us-east-1", "service", key);
        cm_sigv4_signature(key, sts.data, sts.len, sig);
        if (strcmp(sig, v->signature) != 0)
            fail_msg("%s: signature %s, want %s", v->name, sig, v->signature);
        /* the one-call signer signs every header it is given */
        assert_int_equal(cm_sigv4_sign(v->method, v->path, v->query, v->hdrs, v->nhdrs, v->body,
                                       strlen(v->body), "AKIDEXAMPLE", SECRET, "us-east-1",
                                       "service", DATE, auth, sizeof(auth)),
                         0);
        snprintf(want, sizeof(want),
                 "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/" SCOPE
                 ", SignedHeaders=%s, Signature=%s",
                 v->signed_headers, v->signature);
        assert_string_equal(auth, want);
        cm_buf_cleanup(&creq);
        cm_buf_cleanup(&sts);
    }
}

static void test_sigv4_string_to_sign_vanilla(void **state)
{
    struct cm_buf sts;
    const char *creq = vecs[0].creq;

    (void)state;
    cm_buf_init(&sts, 0);
    cm_sigv4_string_to_sign(&sts, DATE, SCOPE, creq, strlen(creq));
    assert_string_equal(sts.data,
                        "AWS4-HMAC-SHA256\n20150830T123600Z\n" SCOPE "\n"
                        "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
    cm_buf_cleanup(&sts);
}

static void test_sigv4_missing_signed_header(void **state)
{
    struct cm_buf creq;
    struct cm_sigv4_header h[] = { { "Host", "x" } };

    (void)state;
    cm_buf_init(&creq, 0);
    assert_int_equal(
        cm_sigv4_canonical_request(&creq, "GET", "/", "", h, 1, "host;x-amz-date", EMPTY_SHA), -1);
    cm_buf_cleanup(&creq);
}

static void test_sigv4_canonical_uri_dots_and_encoding(void **state)
{
    static const struct {
        const char *in, *out;
    } t[] = {
        { "", "/" },
        { "/", "/" },
        { "/example1/example2/../..", "/" },
        { "/example/./", "/example/" },
        { "/example space/", "/example%20space/" },
        { "/a%20b", "/a%2520b" }, /* encoded paths are encoded again */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct cm_buf b;

        cm_buf_init(&b, 0);
        cm_sigv4_canonical_uri(&b, t[i].in, strlen(t[i].in));
        assert_string_equal(b.data, t[i].out);
        cm_buf_cleanup(&b);
    }
}

static void test_sigv4_canonical_query_reencodes(void **state)
{
    struct cm_buf b;

    (void)state;
    cm_buf_init(&b, 0);
    cm_sigv4_canonical_query(&b, "b=2&a=%7e1&a=0&c&d=x y");
    assert_string_equal(b.data, "a=0&a=~1&b=2&c=&d=x%20y");
    cm_buf_cleanup(&b);
}

/* Repeated names join in request order whatever their case; thousands of headers are
 * looked up (and the one asked for last is found as surely as the first). */
static void test_sigv4_canonical_headers_many(void **state)
{
    enum { N = 3000 };
    static struct cm_sigv4_header h[N + 3];
    static char names[N][16];
    struct cm_buf creq, want, sh;
    int n = 0;

    (void)state;
    h[n++] = (struct cm_sigv4_header){ "X-Dup", " one " };
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "%s-%04d", i % 2 ? "X-H" : "x-h", N - 1 - i);
        h[n++] = (struct cm_sigv4_header){ names[i], "v" };
    }
    h[n++] = (struct cm_sigv4_header){ "x-DUP", "two" };
    h[n++] = (struct cm_sigv4_header){ "Host", "example.amazonaws.com" };
    cm_buf_init(&creq, 0);
    cm_buf_init(&want, 0);
    cm_buf_init(&sh, 0);
    cm_buf_puts(&sh, "host");
    cm_buf_puts(&want, "GET\n/\n\nhost:example.amazonaws.com\n");
    for (int i = 0; i < N; i++) {
        cm_buf_printf(&sh, ";x-h-%04d", i);
        cm_buf_printf(&want, "x-h-%04d:v\n", i);
    }
    cm_buf_puts(&sh, ";x-dup");
    cm_buf_printf(&want, "x-dup:one,two\n\n%s\n%s", sh.data, EMPTY_SHA);
    assert_int_equal(cm_sigv4_canonical_request(&creq, "GET", "/", "", h, n, sh.data, EMPTY_SHA),
                     0);
    assert_string_equal(creq.data, want.data);
    cm_buf_cleanup(&creq);
    cm_buf_init(&creq, 0);
    assert_int_equal(
        cm_sigv4_canonical_request(&creq, "GET", "/", "", h, n, "host;x-h-3000", EMPTY_SHA), -1);
    cm_buf_cleanup(&creq);
    cm_buf_cleanup(&want);
    cm_buf_cleanup(&sh);
}

static void test_sigv4_amz_date_shape(void **state)
{
    static const char *const good[] = { "20150830T123600Z", "99991231T235959Z" };
    static const char *const bad[] = {
        "",
        "2",
        "2015",
        "20150830",
        "20150830T",
        "20150830T123600",
        "20150830T123600ZZ",
        "2015083OT123600Z",
        "20150830t123600Z",
        "20150830T123600z",
        "2015-08-30T12:36:00Z",
        " 20150830T123600Z",
        "20150830T12360 Z",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_true(cm_sigv4_amz_date_ok(good[i]));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (cm_sigv4_amz_date_ok(bad[i]))
            fail_msg("accepted '%s'", bad[i]);
    }
}

static void test_sigv4_signature_equal(void **state)
{
    const char *sig = vecs[0].signature;
    char other[CM_SIGV4_HEX_LEN + 8];

    (void)state;
    assert_true(cm_sigv4_signature_equal(sig, sig));
    snprintf(other, sizeof(other), "%s", sig);
    other[0] = other[0] == '0' ? '1' : '0';
    assert_false(cm_sigv4_signature_equal(other, sig));
    snprintf(other, sizeof(other), "%s", sig);
    other[63] = other[63] == '0' ? '1' : '0';
    assert_false(cm_sigv4_signature_equal(other, sig));
    snprintf(other, sizeof(other), "%.63s", sig);
    assert_false(cm_sigv4_signature_equal(other, sig));
    snprintf(other, sizeof(other), "%s0", sig);
    assert_false(cm_sigv4_signature_equal(other, sig));
    assert_false(cm_sigv4_signature_equal("", sig));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigv4_aws_test_suite),
        cmocka_unit_test(test_sigv4_string_to_sign_vanilla),
        cmocka_unit_test(test_sigv4_missing_signed_header),
        cmocka_unit_test(test_sigv4_canonical_uri_dots_and_encoding),
        cmocka_unit_test(test_sigv4_canonical_query_reencodes),
        cmocka_unit_test(test_sigv4_canonical_headers_many),
        cmocka_unit_test(test_sigv4_amz_date_shape),
        cmocka_unit_test(test_sigv4_signature_equal),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
