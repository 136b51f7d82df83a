/* tests/fuzz/fuzz_query.c: libFuzzer target for the Query/EC2 form parser. The first
 * byte picks the service and operation; the rest is the form. */
#include <stddef.h>
#include <stdint.h>

#include "emulator/query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct model_service *svc;
    const struct model_op *op;
    struct query_form f;
    struct awserr err = { 0 };
    json_t *out = NULL;

    if (size < 2)
        return 0;
    svc = model_services[data[0] % 4];
    op = &svc->ops[data[1] % svc->nops];
    if (query_form_parse(&f, (const char *)data + 2, size - 2, &err) == 0) {
        if (query_parse(svc, op, &f, svc == &model_ec2, &out, &err) == 0)
            json_decref(out);
        query_form_cleanup(&f);
    }
    return 0;
}
