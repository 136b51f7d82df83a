/* emulator/api_cloudwatch_ext.h: CloudWatch operation tables beside
 * api_cloudwatch_handlers, each in its own file, that api_find searches after it:
 * GetMetricWidgetImage (api_cloudwatch_widget.c), metric streams and OTel enrichment
 * (api_cloudwatch_streams.c), Contributor Insights rules and DescribeAlarmContributors
 * (api_cloudwatch_insight.c). */
#ifndef EMULATOR_API_CLOUDWATCH_EXT_H
#define EMULATOR_API_CLOUDWATCH_EXT_H

#include "emulator/api.h"

/* Each ended by { NULL, NULL, 0 }. */
extern const struct api_handler api_cloudwatch_widget_handlers[];
extern const struct api_handler api_cloudwatch_stream_handlers[];
extern const struct api_handler api_cloudwatch_insight_handlers[];

#endif
