/* emulator/api_world.h: the one step every handler over a libscaler service starts with,
 * finding the world of the request's account and region, so that a bad region is the
 * same error in every service. Called on the loop thread. */
#ifndef EMULATOR_API_WORLD_H
#define EMULATOR_API_WORLD_H

#include "emulator/api.h"

struct sc_world;

/* The world of ctx's account and region (srv_world: borrowed until the server resets),
 * or NULL with err set to 400 InvalidParameterValue "Invalid region: <region>". */
struct sc_world *api_world(struct api_ctx *ctx, struct awserr *err);

#endif
