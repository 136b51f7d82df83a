/* emulator/admin_dash.h: the console's CloudWatch dashboards (docs/admin-api.md
 * "/_scalelab/dashboards"): every account's dashboards with their widgets placed on AWS's
 * 24-column grid, and one metric widget drawn as SVG by the one widget renderer
 * (cw_widget_svg, GetMetricWidgetImage's). Reads only. Single-threaded: the loop's thread. */
#ifndef EMULATOR_ADMIN_DASH_H
#define EMULATOR_ADMIN_DASH_H

#include <stddef.h>

#include "common/buf.h"

struct emu;
struct json_t;

/* Pixels of one grid unit in a drawn widget: a widget width x height units is drawn
 * width * ADMIN_DASH_COL_PX by height * ADMIN_DASH_ROW_PX (at most 2000 each, the
 * MetricWidget's limit). */
#define ADMIN_DASH_COL_PX 40
#define ADMIN_DASH_ROW_PX 40

/* A new JSON object {"dashboards": [...]} over every account, in account then name order
 * (docs/admin-api.md gives the members). */
struct json_t *admin_dash_list(struct emu *e);

/* Draws widget index of account's dashboard name as SVG into out: a metric widget as the
 * dashboard presents it (scaler/dashboard_view.h: variables, periodOverride) from the
 * metrics of its own region's world (else region's; an empty one where the account has no
 * world), or with alarm (an index into an alarm widget's properties.alarms; NULL otherwise)
 * the graph of that alarm from the world its ARN names. Returns 200, or an HTTP status (404
 * no such dashboard, widget or alarm; 400 neither a metric widget nor an alarm of an alarm
 * widget, or the widget's error as GetMetricWidgetImage answers it) with err naming the
 * problem. */
int admin_dash_widget_svg(struct emu *e, const char *account, const char *region, const char *name,
                          const char *index, const char *alarm, struct cm_buf *out, char *err,
                          size_t errlen);

#endif
