/* tests/unit/common/test_base64.c: common/base64.c against RFC 4648's test vectors */
#include "common/base64.h"

#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* RFC 4648 section 10. */
static const struct {
    const char *plain;
    const char *coded;
} rfc4648[] = {
    { "", "" },
    { "f", "Zg==" },
    { "fo", "Zm8=" },
    { "foo", "Zm9v" },
    { "foob", "Zm9vYg==" },
    { "fooba", "Zm9vYmE=" },
    { "foobar", "Zm9vYmFy" },
};

static void test_base64_encode_rfc4648_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(rfc4648) / sizeof(rfc4648[0]); i++) {
        char *s = cm_base64_encode(rfc4648[i].plain, strlen(rfc4648[i].plain));

        assert_string_equal(s, rfc4648[i].coded);
        free(s);
    }
}

static void test_base64_decode_rfc4648_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(rfc4648) / sizeof(rfc4648[0]); i++) {
        size_t n = 99;
        char *s = cm_base64_decode(rfc4648[i].coded, &n);

        assert_non_null(s);
        assert_int_equal(n, strlen(rfc4648[i].plain));
        assert_string_equal(s, rfc4648[i].plain);
        free(s);
    }
}

/* Every byte value round-trips, including NUL and the two last sextets ('+' and '/'). */
static void test_base64_binary_round_trip(void **state)
{
    unsigned char bytes[256];
    char *coded, *plain;
    size_t n = 0;

    (void)state;
    for (int i = 0; i < 256; i++)
        bytes[i] = (unsigned char)(255 - i);
    coded = cm_base64_encode(bytes, sizeof(bytes));
    assert_int_equal(strlen(coded), (sizeof(bytes) + 2) / 3 * 4);
    assert_memory_equal(coded, "//79/Pv6", 8);
    plain = cm_base64_decode(coded, &n);
    assert_non_null(plain);
    assert_int_equal(n, sizeof(bytes));
    assert_memory_equal(plain, bytes, sizeof(bytes));
    assert_int_equal(plain[n], '\0');
    free(plain);
    free(coded);
}

/* The decoder reads the URL-safe alphabet (RFC 4648 section 5) and skips padding and line
 * breaks wherever they are, as UserData arrives from clients that wrap at 76 columns. */
static void test_base64_decode_lenient(void **state)
{
    static const struct {
        const char *coded;
        const char *plain;
    } ok[] = {
        { "Zm9vYmFy\r\n", "foobar" }, { "Zm9v\nYmFy", "foobar" }, { " Zm9v YmFy ", "foobar" },
        { "Zm9vYg", "foob" },         { "Zm9vYmE", "fooba" },     { "Zm=9v", "foo" },
        { "-_-_", "\xfb\xff\xbf" },   { "+/+/", "\xfb\xff\xbf" },
    };

    (void)state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        char *s = cm_base64_decode(ok[i].coded, NULL);

        assert_non_null(s);
        assert_string_equal(s, ok[i].plain);
        free(s);
    }
}

static void test_base64_decode_rejects_foreign_characters(void **state)
{
    static const char *const bad[] = { "Zm9v!", "Zm9v\tYmFy", "Zm.v", "{\"a\":1}", "Zm9v\x80" };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_null(cm_base64_decode(bad[i], NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base64_encode_rfc4648_vectors),
        cmocka_unit_test(test_base64_decode_rfc4648_vectors),
        cmocka_unit_test(test_base64_binary_round_trip),
        cmocka_unit_test(test_base64_decode_lenient),
        cmocka_unit_test(test_base64_decode_rejects_foreign_characters),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
