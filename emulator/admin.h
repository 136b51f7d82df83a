/* emulator/admin.h: the admin API under /_scalelab/ (JSON; docs/admin-api.md): health,
 * clock (read; advance in manual mode), reset, state, overview, data plane, faults, the
 * event stream, the console page (also at GET /); POST /moto-api/reset as an alias of
 * reset so suites written for moto's server mode run unchanged. */
#ifndef EMULATOR_ADMIN_H
#define EMULATOR_ADMIN_H

#include <stdint.h>

#include "emulator/dispatch.h"

struct emu;

/* The signing name an admin request's SigV4 credential scope carries under --auth sigv4
 * (`curl --aws-sigv4 aws:amz:us-east-1:scalelab`; docs/auth.md). */
#define ADMIN_SIGV4_SERVICE "scalelab"

/* 1 when path belongs to the admin API. */
int admin_is_admin_path(const char *path);
/* 1 for GET / without an AWS Action (a browser, or curl): the console's front door, served
 * by admin_handle like the rest of the admin API (and behind the same checks). */
int admin_is_console_request(const struct dispatch_request *rq);
/* Answers an admin request on e's worlds into rs (initialized by the caller, which
 * dispatch.c is); cfg gives the default region and account GET / shows; requests is the
 * count /_scalelab/health reports. A known path with another method answers 405 with
 * Allow; an unknown one 404. */
void admin_handle(struct emu *e, const struct dispatch_config *cfg, uint64_t requests,
                  const struct dispatch_request *rq, struct dispatch_response *rs);

#endif
