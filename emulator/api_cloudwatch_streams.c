/* emulator/api_cloudwatch_streams.c: metric streams and OTel enrichment. */
#include "emulator/api_cloudwatch_ext.h"

const struct api_handler api_cloudwatch_stream_handlers[] = {
    { NULL, NULL, 0 },
};
