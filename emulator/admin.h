/* emulator/admin.h: the admin API under /_scalelab/ (JSON): health, clock (read;
 * advance in manual mode), reset, state; POST /moto-api/reset as an alias of reset so
 * suites written for moto's server mode run unchanged. */
#ifndef EMULATOR_ADMIN_H
#define EMULATOR_ADMIN_H

#include "emulator/server.h"

/* 1 when path belongs to the admin API. */
int admin_is_admin_path(const char *path);
/* Answers an admin request into rs (initialized by the caller). */
void admin_handle(struct srv *s, const struct srv_request *rq, struct srv_response *rs);

#endif
