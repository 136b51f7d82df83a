/* emulator/admin.h: the admin API under /_scalelab/ (JSON): health, clock (read;
 * advance in manual mode), reset, state; POST /moto-api/reset as an alias of reset so
 * suites written for moto's server mode run unchanged. */
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
/* Answers an admin request on e's worlds into rs (initialized by the caller, which
 * dispatch.c is); requests is the count /_scalelab/health reports. */
void admin_handle(struct emu *e, uint64_t requests, const struct dispatch_request *rq,
                  struct dispatch_response *rs);

#endif
