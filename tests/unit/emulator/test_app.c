/* tests/unit/emulator/test_app.c: emulator/app.c, what the instance's application does
 * of its own: the SOAP adder's 260-byte reply. The profile's tests (parse, defaults,
 * service times, the CPU model) are libscaler's, tests/unit/scaler/test_app.c. */
#include "emulator/app.h"

#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

static void test_app_soap_add(void **state)
{
    static const char req[] =
        "<soapenv:Envelope xmlns:soapenv=\"http://www.w3.org/2003/05/soap-envelope\">"
        "<soapenv:Body><p:add xmlns:p=\"http://service.wso2\"><a> 12 </a><b>30</b></p:add>"
        "</soapenv:Body></soapenv:Envelope>";
    char out[APP_SOAP_REPLY_LEN + 1];

    (void)state;
    assert_int_equal(app_soap_add(req, strlen(req), out, sizeof(out)), APP_SOAP_REPLY_LEN);
    assert_int_equal(strlen(out), APP_SOAP_REPLY_LEN);
    assert_non_null(strstr(out, "<ns:return>42</ns:return>"));
    assert_true(strncmp(out, "<?xml", 5) == 0);
    assert_int_equal(app_soap_add("<a>1.5</a><b>-0.25</b>", 22, out, sizeof(out)), 260);
    assert_non_null(strstr(out, "<ns:return>1.25</ns:return>"));
    assert_int_equal(app_soap_add("<a>1</a>", 8, out, sizeof(out)), -1);
    assert_int_equal(app_soap_add("<a>x</a><b>2</b>", 16, out, sizeof(out)), -1);
    assert_int_equal(app_soap_add("<a>1</a><b>2</b>", 16, out, 100), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_app_soap_add),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
