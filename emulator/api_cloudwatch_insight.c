/* emulator/api_cloudwatch_insight.c: Contributor Insights rules. */
#include "emulator/api_cloudwatch_ext.h"

const struct api_handler api_cloudwatch_insight_handlers[] = {
    { NULL, NULL, 0 },
};
