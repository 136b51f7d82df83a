/* scaler/dashboard_view.h: how a dashboard presents its widgets (docs/cloudwatch.md
 * "Dashboards as drawn"): the dashboard's `variables` substituted into a widget's
 * properties, and `periodOverride` ("auto" or "inherit") applied to its graph's period.
 * The console draws a dashboard's metric widgets through these before GetMetricWidgetImage's
 * renderer. Pure JSON in, JSON out: no store is read. */
#ifndef SCALER_DASHBOARD_VIEW_H
#define SCALER_DASHBOARD_VIEW_H

#include <stdint.h>

#include <jansson.h>

/* The period "auto" gives a graph over range_ms: the smallest of 1 min, 5 min, 15 min,
 * 1 h, 6 h and 1 d that draws at most 1440 points (60 s for a range of a day or less). */
int sc_dashboard_auto_period(int64_t range_ms);

/* Rewrites props (a widget's properties, modified in place) as dashboard body presents it
 * at now_ms:
 * - each of the body's `variables` with a value (its defaultValue, else its first
 *   values[].value): a "property" variable on "region" sets props.region; on another
 *   property (a dimension name) replaces the value after that dimension name in every
 *   metrics entry; a "pattern" variable replaces every match of its pattern (a POSIX
 *   extended regular expression) in every string of props;
 * - periodOverride absent or "auto": props.period becomes sc_dashboard_auto_period() of
 *   the widget's range (its start/end, else the body's, else the last 3 hours) and the
 *   metrics' own periods are dropped; "inherit" leaves every period as given.
 * Malformed variables are skipped (PutDashboard stored the body as given). */
void sc_dashboard_present(const json_t *body, json_t *props, int64_t now_ms);

#endif
