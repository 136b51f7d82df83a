/* tests/fuzz/fuzz_dispatch.c: libFuzzer target for the whole front door from memory
 * (emulator/dispatch.c over an emu with a manual clock and the records-only data plane):
 * routing, gunzip, decoding, the world, the handlers and libscaler behind them, the
 * serializers and the admin API. Input: byte 0 picks the protocol (bits 0-1: Query,
 * JSON 1.0, RPC v2 CBOR, admin), gzips the body (bit 2), drops it as too large (bit 3),
 * uses GET (bit 4) and picks the Query service or admin path (bits 5-7); byte 1 picks the
 * operation; byte 2 is the length of the region that follows (SigV4 scope; none: the
 * default region); the rest is the body. Every world is dropped after each input. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "common/log.h"
#include "emulator/dispatch.h"
#include "emulator/emu.h"
#include "emulator/model.h"

#define TARGET    "GraniteServiceVersion20100801."
#define CBOR_PATH "/service/GraniteServiceVersion20100801/operation/"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct emu *emu;
static struct dispatch *disp;

static const char *const admin_paths[] = {
    "/_scalelab/health",    "/_scalelab/clock", "/_scalelab/reset", "/_scalelab/state",
    "/_scalelab/dataplane", "/_scalelab/fault", "/moto-api/reset",  "/_scalelab/nope",
};

static void init(void)
{
    struct emu_config ec;
    struct dispatch_config dc;
    char err[256];

    cm_log_set_level(CM_LOG_ERROR);
    emu_config_defaults(&ec);
    ec.clock_manual = 1;
    ec.start_ms = 1767225600000LL; /* 2026-01-01 */
    emu = emu_create(&ec);
    dispatch_config_defaults(&dc);
    dc.quiet = 1;
    dc.max_body = 65536;
    disp = dispatch_create(&dc, emu, err, sizeof(err));
    if (!disp)
        abort();
}

/* gzip of in[0..n) into a malloc'd buffer; its length in *len. */
static char *gzip_of(const uint8_t *in, size_t n, size_t *len)
{
    z_stream z;
    size_t cap = compressBound((uLong)n) + 64;
    char *out = malloc(cap);

    memset(&z, 0, sizeof(z));
    if (!out || deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END)
        abort();
    *len = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cm_sigv4_header h[4];
    struct dispatch_request rq;
    struct dispatch_response rs;
    const struct model_service *svc;
    const struct model_op *op;
    char region[32], auth[160], target[160], path[160];
    const uint8_t *body;
    size_t rlen, blen;
    char *form = NULL, *gz = NULL;
    unsigned flags;
    int n = 0;

    if (size < 3)
        return 0;
    if (!emu)
        init();
    flags = data[0];
    rlen = data[2] < sizeof(region) ? data[2] : sizeof(region) - 1;
    if (size < 3 + rlen)
        return 0;
    memcpy(region, data + 3, rlen);
    region[rlen] = '\0';
    if (strlen(region) != rlen)
        return 0; /* a NUL inside: not a header value */
    body = data + 3 + rlen;
    blen = size - 3 - rlen;

    memset(&rq, 0, sizeof(rq));
    rq.method = flags & 16 ? "GET" : "POST";
    rq.path = "/";
    rq.query = "";
    switch (flags & 3) {
    case 0: /* Query: the service from the credential scope, Action first in the form */
        svc = model_services[(flags >> 5) % 4];
        op = &svc->ops[data[1] % svc->nops];
        form = malloc(blen + strlen(op->name) + 16);
        if (!form)
            abort();
        n = snprintf(form, blen + strlen(op->name) + 16, "Action=%s&", op->name);
        memcpy(form + n, body, blen);
        body = (const uint8_t *)form;
        blen += (size_t)n;
        n = 0;
        h[n].name = "Content-Type";
        h[n++].value = "application/x-www-form-urlencoded";
        break;
    case 1: /* JSON 1.0 */
        svc = &model_cloudwatch;
        op = &svc->ops[data[1] % svc->nops];
        snprintf(target, sizeof(target), "%s%s", TARGET, op->name);
        h[n].name = "X-Amz-Target";
        h[n++].value = target;
        break;
    case 2: /* RPC v2 CBOR */
        svc = &model_cloudwatch;
        op = &svc->ops[data[1] % svc->nops];
        snprintf(path, sizeof(path), "%s%s", CBOR_PATH, op->name);
        rq.path = path;
        break;
    default: /* the admin API */
        svc = NULL;
        rq.path = admin_paths[(flags >> 5) % 8];
        break;
    }
    if (svc) {
        snprintf(auth, sizeof(auth),
                 "AWS4-HMAC-SHA256 Credential=AKID/20260101/%s/%s/aws4_request, "
                 "SignedHeaders=host, Signature=00",
                 rlen ? region : "us-east-1", svc->sigv4);
        h[n].name = "Authorization";
        h[n++].value = auth;
    }
    if (flags & 4) {
        gz = gzip_of(body, blen, &blen);
        body = (const uint8_t *)gz;
        h[n].name = "Content-Encoding";
        h[n++].value = "gzip";
    }
    rq.hdrs = h;
    rq.nhdrs = n;
    rq.body = (const char *)body;
    rq.body_len = blen;
    rq.too_large = (flags & 8) != 0;
    dispatch_handle(disp, &rq, &rs);
    dispatch_response_cleanup(&rs);
    free(form);
    free(gz);
    emu_reset(emu);
    return 0;
}
