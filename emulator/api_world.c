/* emulator/api_world.c: see api_world.h. */
#include "emulator/api_world.h"

#include "emulator/server.h"

struct sc_world *api_world(struct api_ctx *ctx, struct awserr *err)
{
    struct sc_world *w = srv_world(ctx->srv, ctx->account, ctx->region);

    if (!w)
        awserr_set(err, 400, "InvalidParameterValue", "Invalid region: %s", ctx->region);
    return w;
}
