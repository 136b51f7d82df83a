/* emulator/api_cloudwatch_ext.h: CloudWatch operation tables beside
 * api_cloudwatch_handlers, each in its own file, that api_find searches after it:
 * GetMetricWidgetImage (api_cloudwatch_widget.c), metric streams and OTel enrichment
 * (api_cloudwatch_streams.c), Contributor Insights rules and DescribeAlarmContributors
 * (api_cloudwatch_insight.c). */
#ifndef EMULATOR_API_CLOUDWATCH_EXT_H
#define EMULATOR_API_CLOUDWATCH_EXT_H

#include <stdint.h>

#include "common/buf.h"
#include "emulator/api.h"
#include "scaler/status.h"

struct sc_cw;

/* Each ended by { NULL, NULL, 0 }. */
extern const struct api_handler api_cloudwatch_widget_handlers[];
extern const struct api_handler api_cloudwatch_stream_handlers[];
extern const struct api_handler api_cloudwatch_insight_handlers[];

/* Draws widget_json (GetMetricWidgetImage's MetricWidget, read by scaler/widget.h over cw's
 * metrics at now_ms) as a standalone SVG appended to out (capped by the caller's buffer);
 * svg_id names its root element. width and height (may be NULL) get the image's pixels.
 * Returns 0, or -1 with err set (InvalidParameterInput, or metric math's error). The one
 * drawing of a widget: GetMetricWidgetImage and the console's dashboards
 * (emulator/admin_dash.c). */
int cw_widget_svg(struct sc_cw *cw, const char *widget_json, int64_t now_ms, const char *svg_id,
                  int *width, int *height, struct cm_buf *out, struct sc_error *err);

#endif
