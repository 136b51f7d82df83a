/* tests/unit/emulator/test_auth.c: emulator/auth.c, SigV4 verification as AWS does it for
 * the query and JSON services the emulator serves. Requests are signed with common/sigv4's
 * signer (itself checked against AWS's test suite in test_sigv4.c) and then bent: the
 * credential scope names another service (s3) or a region AWS does not have, `host` is
 * left out of the signed headers, the payload is UNSIGNED-PAYLOAD (a signature captured
 * from one body replayed with another), hundreds of headers are signed, the signature
 * differs in its last digit, and malformed X-Amz-Date and Authorization values sit at the
 * very end of a page followed by an unreadable one, so reading one byte past them crashes
 * the test. Each expects AWS's code and message. */
#include "emulator/auth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "common/buf.h"
#include "common/sigv4.h"
#include "emulator/region.h"

#define AKID    "AKIDEXAMPLE"
#define SECRET  "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define DATE    "20260101T000000Z"
#define WALL_MS 1767225600000LL /* DATE */
#define BODY    "Action=DescribeAlarms&Version=2010-08-01"
#define HOST    "monitoring.us-east-1.amazonaws.com"
#define MAXH    600

#define MISMATCH                                                                                   \
    "The request signature we calculated does not match the signature you provided. Check your "   \
    "AWS Secret Access Key and signing method. Consult the service documentation for details."

struct req {
    struct cm_sigv4_header h[MAXH];
    int n;
    char names[MAXH][24];
    char auth[16384];
    const char *body;
};

static struct auth_keys *keys;

static int setup(void **state)
{
    char err[256];

    (void)state;
    setenv("AWS_ACCESS_KEY_ID", AKID, 1);
    setenv("AWS_SECRET_ACCESS_KEY", SECRET, 1);
    keys = auth_keys_load(NULL, err, sizeof(err));
    return keys ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    auth_keys_destroy(keys);
    return 0;
}

/* A POST of body signed for service/region with extra X-Extra-N headers; host is among
 * the signed headers when sign_host (else the Host header is added after signing). */
static void sign(struct req *r, const char *service, const char *region, const char *body,
                 int extra, int sign_host)
{
    memset(r, 0, sizeof(*r));
    r->body = body;
    if (sign_host)
        r->h[r->n++] = (struct cm_sigv4_header){ "Host", HOST };
    r->h[r->n++] = (struct cm_sigv4_header){ "X-Amz-Date", DATE };
    r->h[r->n++] = (struct cm_sigv4_header){ "Content-Type",
                                             "application/x-www-form-urlencoded; charset=utf-8" };
    for (int i = 0; i < extra && r->n < MAXH - 2; i++) {
        snprintf(r->names[i], sizeof(r->names[i]), "X-Extra-%d", i);
        r->h[r->n++] = (struct cm_sigv4_header){ r->names[i], "v" };
    }
    assert_int_equal(cm_sigv4_sign("POST", "/", "", r->h, r->n, body, strlen(body), AKID, SECRET,
                                   region, service, DATE, r->auth, sizeof(r->auth)),
                     0);
    if (!sign_host)
        r->h[r->n++] = (struct cm_sigv4_header){ "Host", HOST };
    r->h[r->n++] = (struct cm_sigv4_header){ "Authorization", r->auth };
}

/* auth_verify for the CloudWatch endpoint (monitoring), the emulator's region ap-local-1. */
static int verify(const struct req *r, struct awserr *err)
{
    struct auth_request ar = { "POST",          "/",          "",          r->h, r->n, r->body,
                               strlen(r->body), "monitoring", "ap-local-1" };

    memset(err, 0, sizeof(*err));
    return auth_verify(keys, &ar, WALL_MS, err);
}

static void expect(const struct req *r, int http, const char *code, const char *message)
{
    struct awserr err;

    assert_int_equal(verify(r, &err), -1);
    assert_int_equal(err.http, http);
    assert_string_equal(err.code, code);
    if (message)
        assert_string_equal(err.message, message);
}

static void test_auth_signed_request_accepted(void **state)
{
    struct req r;
    struct awserr err;

    (void)state;
    sign(&r, "monitoring", "us-east-1", BODY, 0, 1);
    assert_int_equal(verify(&r, &err), 0);
    /* any AWS region, and the emulator's own --region */
    sign(&r, "monitoring", "eu-north-1", BODY, 0, 1);
    assert_int_equal(verify(&r, &err), 0);
    sign(&r, "monitoring", "ap-local-1", BODY, 0, 1);
    assert_int_equal(verify(&r, &err), 0);
}

static void test_auth_scope_service_checked(void **state)
{
    struct req r;

    (void)state;
    sign(&r, "s3", "us-east-1", BODY, 0, 1);
    expect(&r, 403, "SignatureDoesNotMatch",
           "Credential should be scoped to correct service: 'monitoring'. ");
    sign(&r, "ec2", "us-east-1", BODY, 0, 1);
    expect(&r, 403, "SignatureDoesNotMatch",
           "Credential should be scoped to correct service: 'monitoring'. ");
}

static void test_auth_scope_region_checked(void **state)
{
    struct req r;

    (void)state;
    sign(&r, "monitoring", "xx-fake-9", BODY, 0, 1);
    expect(&r, 403, "SignatureDoesNotMatch",
           "Credential should be scoped to a valid region, not 'xx-fake-9'. ");
    sign(&r, "monitoring", "US-EAST-1", BODY, 0, 1);
    expect(&r, 403, "SignatureDoesNotMatch",
           "Credential should be scoped to a valid region, not 'US-EAST-1'. ");
    assert_true(region_is_aws("us-east-1"));
    assert_true(region_is_aws("us-gov-west-1"));
    assert_true(region_is_aws("cn-north-1"));
    assert_false(region_is_aws("us-east-"));
    assert_false(region_is_aws(""));
}

static void test_auth_host_must_be_signed(void **state)
{
    struct req r;

    (void)state;
    sign(&r, "monitoring", "us-east-1", BODY, 0, 0);
    expect(&r, 403, "SignatureDoesNotMatch",
           "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.");
}

/* UNSIGNED-PAYLOAD: the signature covers no body, so one captured from a DescribeAlarms
 * would pass with any other body. These services hash the body they get. */
static void test_auth_unsigned_payload_refused(void **state)
{
    struct cm_sigv4_header h[4] = {
        { "Host", HOST },
        { "X-Amz-Content-SHA256", "UNSIGNED-PAYLOAD" },
        { "X-Amz-Date", DATE },
    };
    struct cm_buf creq, sts;
    char sig[CM_SIGV4_HEX_LEN], auth[512];
    unsigned char key[32];
    struct req r;

    (void)state;
    cm_buf_init(&creq, 0);
    cm_buf_init(&sts, 0);
    assert_int_equal(cm_sigv4_canonical_request(&creq, "POST", "/", "", h, 3,
                                                "host;x-amz-content-sha256;x-amz-date",
                                                "UNSIGNED-PAYLOAD"),
                     0);
    cm_sigv4_string_to_sign(&sts, DATE, "20260101/us-east-1/monitoring/aws4_request", creq.data,
                            creq.len);
    cm_sigv4_signing_key(SECRET, "20260101", "us-east-1", "monitoring", key);
    cm_sigv4_signature(key, sts.data, sts.len, sig);
    snprintf(auth, sizeof(auth),
             "AWS4-HMAC-SHA256 Credential=" AKID "/20260101/us-east-1/monitoring/aws4_request, "
             "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=%s",
             sig);
    cm_buf_cleanup(&creq);
    cm_buf_cleanup(&sts);
    memset(&r, 0, sizeof(r));
    memcpy(r.h, h, sizeof(h));
    r.h[3] = (struct cm_sigv4_header){ "Authorization", auth };
    r.n = 4;
    r.body = BODY;
    expect(&r, 403, "SignatureDoesNotMatch", MISMATCH);
    r.body = "Action=PutMetricAlarm&Version=2010-08-01&AlarmName=x";
    expect(&r, 403, "SignatureDoesNotMatch", MISMATCH);
    /* a payload hash that is not the body's is no better */
    r.h[1].value = "0000000000000000000000000000000000000000000000000000000000000000";
    expect(&r, 403, "SignatureDoesNotMatch", MISMATCH);
}

static void test_auth_many_signed_headers(void **state)
{
    struct req r;
    struct awserr err;

    (void)state;
    sign(&r, "monitoring", "us-east-1", BODY, 300, 1);
    assert_true(r.n > 300);
    assert_int_equal(verify(&r, &err), 0);
    /* the last signed header counts as much as the first */
    r.h[r.n - 2].value = "w";
    expect(&r, 403, "SignatureDoesNotMatch", MISMATCH);
}

static void test_auth_signature_compared_whole(void **state)
{
    struct req r;
    char *sig;

    (void)state;
    sign(&r, "monitoring", "us-east-1", BODY, 0, 1);
    sig = strstr(r.auth, "Signature=") + 10;
    assert_int_equal(strlen(sig), 64);
    sig[63] = sig[63] == '0' ? '1' : '0';
    expect(&r, 403, "SignatureDoesNotMatch", MISMATCH);
    sig[63] = '\0'; /* a prefix of the right one */
    expect(&r, 403, "SignatureDoesNotMatch", MISMATCH);
}

/* A copy of s ending at the last byte of a readable page; the next page is PROT_NONE. */
static char *page_end(const char *s, void **map)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t n = strlen(s) + 1;
    char *m =
        mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    assert_true(m != MAP_FAILED);
    assert_true(n <= (size_t)pg);
    assert_int_equal(mprotect(m + pg, (size_t)pg, PROT_NONE), 0);
    memcpy(m + pg - n, s, n);
    *map = m;
    return m + pg - n;
}

static void page_free(void *map)
{
    munmap(map, (size_t)sysconf(_SC_PAGESIZE) * 2);
}

static void test_auth_short_amz_date_bounds(void **state)
{
    static const char *const bad[] = {
        "",
        "2",
        "2026",
        "202601",
        "20260101",
        "20260101T",
        "20260101T0000",
        "20260101T000000",
        "20260101T000000",
        "2026-01-01T00:00:00Z",
        "20260101T000000ZZ",
        "2026010xT000000Z",
        "20260101 000000Z",
        "20261301T000000Z",
    };
    struct req r;
    struct awserr err;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        void *map;

        sign(&r, "monitoring", "us-east-1", BODY, 0, 1);
        r.h[1].value = page_end(bad[i], &map);
        assert_int_equal(verify(&r, &err), -1);
        if (strcmp(err.code, "IncompleteSignature") != 0)
            fail_msg("X-Amz-Date '%s': %s %s", bad[i], err.code, err.message);
        assert_int_equal(err.http, 400);
        page_free(map);
    }
}

static void test_auth_malformed_authorization(void **state)
{
    static const char *const bad[] = {
        "AWS4-HMAC-SHA256",
        "AWS4-HMAC-SHA256 ",
        "AWS4-HMAC-SHA256 Credential=",
        "AWS4-HMAC-SHA256 Credential=" AKID,
        "AWS4-HMAC-SHA256 Credential=" AKID "/20260101/us-east-1/monitoring",
        "AWS4-HMAC-SHA256 Credential=" AKID "/20260101/us-east-1/monitoring/aws4_request",
        "AWS4-HMAC-SHA256 Credential=" AKID "/20260101/us-east-1/monitoring/aws4_request, "
        "SignedHeaders=host",
        "AWS4-HMAC-SHA256 Credential=" AKID "/20260101/us-east-1/monitoring/aws4_request, "
        "SignedHeaders=host, Signature=",
        "AWS4-HMAC-SHA256 Credential=" AKID "/20260101/us-east-1/monitoring/aws4_request/x, "
        "SignedHeaders=host;x-amz-date, Signature=00",
        "AWS4-HMAC-SHA256 Credential=" AKID "//us-east-1/monitoring/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=00",
        "AWS4-HMAC-SHA256 Credential=" AKID "/20260101/us-east-1/monitoring/aws4_requesx, "
        "SignedHeaders=host;x-amz-date, Signature=00",
        "AWS4-HMAC-SHA256 SignedHeaders=host;x-amz-date, Signature=00",
        "AWS4-HMAC-SHA256 Credential=" AKID "/20260101/us-east-1/monitoring/aws4_request, "
        "SignedHeaders=, Signature=00",
    };
    struct req r;
    struct awserr err;
    struct auth_scope sc;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        void *map;

        sign(&r, "monitoring", "us-east-1", BODY, 0, 1);
        r.h[r.n - 1].value = page_end(bad[i], &map);
        assert_int_equal(verify(&r, &err), -1);
        if (strcmp(err.code, "IncompleteSignature") != 0)
            fail_msg("Authorization '%s': %s %s", bad[i], err.code, err.message);
        assert_int_equal(err.http, 400);
        auth_parse(r.h[r.n - 1].value, &sc);
        page_free(map);
    }
    /* not SigV4 at all */
    sign(&r, "monitoring", "us-east-1", BODY, 0, 1);
    r.h[r.n - 1].value = "AWS4-HMAC-SHA256X Credential=a/b/c/d/aws4_request";
    assert_int_equal(auth_parse(r.h[r.n - 1].value, &sc), -1);
    expect(&r, 400, "IncompleteSignature", NULL);
    /* a field longer than its buffer is not cut short into something that could pass */
    {
        char longer[sizeof(r.auth) + 256];
        char *sig;

        sign(&r, "monitoring", "us-east-1", BODY, 0, 1);
        snprintf(longer, sizeof(longer), "%s%0150d", r.auth, 0);
        r.h[r.n - 1].value = longer;
        expect(&r, 403, "SignatureDoesNotMatch", MISMATCH);
        sign(&r, "monitoring", "us-east-1", BODY, 0, 1);
        sig = strstr(r.auth, "Credential=") + 11;
        snprintf(longer, sizeof(longer), "AWS4-HMAC-SHA256 Credential=%0200d%s", 0, sig);
        r.h[r.n - 1].value = longer;
        expect(&r, 400, "IncompleteSignature", NULL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auth_signed_request_accepted),
        cmocka_unit_test(test_auth_scope_service_checked),
        cmocka_unit_test(test_auth_scope_region_checked),
        cmocka_unit_test(test_auth_host_must_be_signed),
        cmocka_unit_test(test_auth_unsigned_payload_refused),
        cmocka_unit_test(test_auth_many_signed_headers),
        cmocka_unit_test(test_auth_signature_compared_whole),
        cmocka_unit_test(test_auth_short_amz_date_bounds),
        cmocka_unit_test(test_auth_malformed_authorization),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
