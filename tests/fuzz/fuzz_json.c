/* tests/fuzz/fuzz_json.c: libFuzzer target for CloudWatch's JSON 1.0 request parser and
 * the reply serializer fed with what the parser accepted. */
#include <stddef.h>
#include <stdint.h>

#include "emulator/awsjson.h"
#include "emulator/xml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct model_op *op;
    struct awserr err = { 0 };
    json_t *out = NULL;

    if (size < 1)
        return 0;
    op = &model_cloudwatch.ops[data[0] % model_cloudwatch.nops];
    if (awsjson_parse_request(&model_cloudwatch, op, (const char *)data + 1, size - 1, &out,
                              &err) == 0)
        json_decref(out);
    return 0;
}
