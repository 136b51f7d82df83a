/* emulator/api.h: the operation handlers. Each is thin: IR in (json_t, typed and checked
 * against the model by the protocol layer) -> one library call -> IR out. Handlers keep
 * no AWS rules; errors come from libscaler's sc_error (awserr_from_sc) and are rendered
 * by server.c only. Handlers run on the loop thread and return at once. */
#ifndef EMULATOR_API_H
#define EMULATOR_API_H

#include <stdint.h>

#include <jansson.h>

#include "emulator/awserr.h"

struct srv;

struct api_ctx {
    struct srv *srv;
    const char *account;
    const char *region;
    const char *request_id;
    int64_t now_ms; /* emulated epoch ms (the scaled or manual clock) */
};

/* in is borrowed; on success *out is a new reference (NULL means an empty result).
 * Returns 0, or -1 with err set. */
typedef int (*api_fn)(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err);

struct api_handler {
    const char *op;
    api_fn fn;
};

/* The handler for service (model name: "autoscaling", "elb", "cloudwatch", "ec2") and
 * op, or NULL when the emulator does not serve it yet. */
api_fn api_find(const char *service, const char *op);

/* Per-service tables, each ended by { NULL, NULL }. */
extern const struct api_handler api_autoscaling_handlers[];
extern const struct api_handler api_elb_handlers[];
extern const struct api_handler api_cloudwatch_handlers[];
extern const struct api_handler api_ec2_handlers[];

#endif
