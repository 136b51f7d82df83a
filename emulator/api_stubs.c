/* emulator/api_stubs.c: handler tables of the services whose library (scaler/elb.h,
 * scaler/cloudwatch.h, scaler/ec2.h) has not landed yet: empty, so every operation
 * answers NotImplemented (501) rather than a fake result. Each table moves to its
 * api_<service>.c when the library lands. */
#include "emulator/api.h"

#include <stddef.h>

const struct api_handler api_elb_handlers[] = { { NULL, NULL } };
const struct api_handler api_cloudwatch_handlers[] = { { NULL, NULL } };
