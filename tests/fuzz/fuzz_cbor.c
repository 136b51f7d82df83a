/* tests/fuzz/fuzz_cbor.c: libFuzzer target for the RPC v2 CBOR decoder and request
 * parser; accepted documents are re-encoded and decoded again. */
#include <stddef.h>
#include <stdint.h>

#include "emulator/acbor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct model_op *op;
    struct awserr err = { 0 };
    json_t *out = NULL, *back = NULL;

    if (size < 1)
        return 0;
    op = &model_cloudwatch.ops[data[0] % model_cloudwatch.nops];
    if (acbor_decode(data + 1, size - 1, &out, &err) == 0) {
        struct cm_buf b;

        cm_buf_init(&b, 0);
        acbor_put_json(&b, out);
        if (acbor_decode((const uint8_t *)b.data, b.len, &back, &err) == 0)
            json_decref(back);
        cm_buf_cleanup(&b);
        json_decref(out);
    }
    if (acbor_parse_request(&model_cloudwatch, op, data + 1, size - 1, &out, &err) == 0)
        json_decref(out);
    return 0;
}
