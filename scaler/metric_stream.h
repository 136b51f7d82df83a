/* scaler/metric_stream.h: CloudWatch metric streams and the account's OTel enrichment
 * status, of one account+region (docs/cloudwatch.md "Metric streams", "DescribeAlarmContributors,
 * OTel enrichment"): Put/Get/List/Delete/Start/StopMetricStreams with AWS's checks, and the
 * filter rule a delivery would apply. Nothing is delivered: there is no Firehose here.
 *
 * Requests come in as the operation's input (json_t in the model's shape, borrowed) and
 * answers go out in the output's shape (new references): the records are kept in that
 * shape, so the state file holds them as they are described. */
#ifndef SCALER_METRIC_STREAM_H
#define SCALER_METRIC_STREAM_H

#include <stdint.h>

#include <jansson.h>

#include "scaler/status.h"

struct sc_metric_streams; /* opaque */

/* account and region are copied (NULL: "123456789012", "us-east-1"). NULL on OOM. */
struct sc_metric_streams *sc_metric_streams_create(const char *account, const char *region);
void sc_metric_streams_destroy(struct sc_metric_streams *s); /* NULL is a no-op */

/* PutMetricStream: creates (State running, Tags kept) or updates (State and Tags kept).
 * *arn (may be NULL) is borrowed until the next change. Nothing changes on an error. */
enum sc_status sc_metric_streams_put(struct sc_metric_streams *s, const json_t *req, int64_t now_ms,
                                     const char **arn, struct sc_error *err);
/* GetMetricStream's output, a new reference; ResourceNotFoundException for a missing name. */
enum sc_status sc_metric_streams_get(const struct sc_metric_streams *s, const char *name,
                                     json_t **out, struct sc_error *err);
/* ListMetricStreams' entries in name order (MetricStreamEntry), a new reference. */
json_t *sc_metric_streams_list(const struct sc_metric_streams *s);
/* DeleteMetricStream; a missing name is no error. */
void sc_metric_streams_delete(struct sc_metric_streams *s, const char *name);
/* Start (running 1) or StopMetricStreams: all or nothing; InvalidParameterValue naming the
 * missing ones. */
enum sc_status sc_metric_streams_set_state(struct sc_metric_streams *s, const char *const *names,
                                           int n, int running, int64_t now_ms,
                                           struct sc_error *err);
int sc_metric_streams_count(const struct sc_metric_streams *s);
/* The stream whose Arn is arn, as kept (its "Tags" beside; borrowed, for TagResource), or
 * NULL. */
json_t *sc_metric_streams_by_arn(struct sc_metric_streams *s, const char *arn);

/* The filter rule: 1 when the stream named name (running or not) selects metric_name in
 * namespace (IncludeFilters: only those; ExcludeFilters: all but those; neither: all; a
 * filter without MetricNames covers its whole namespace). 0 for a missing stream. */
int sc_metric_stream_selects(const struct sc_metric_streams *s, const char *name,
                             const char *namespace, const char *metric_name);

/* OTel enrichment (Start/Stop/GetOTelEnrichment): 1 Running, 0 Stopped (the default). */
void sc_metric_streams_set_otel(struct sc_metric_streams *s, int running);
int sc_metric_streams_otel(const struct sc_metric_streams *s);

/* The state file: {"streams": [...], "otel": bool}. New reference, NULL on OOM. */
json_t *sc_metric_streams_save(const struct sc_metric_streams *s);
/* Replaces s's content with j's (borrowed; NULL = none); on error s is unchanged. */
enum sc_status sc_metric_streams_load(struct sc_metric_streams *s, const json_t *j,
                                      struct sc_error *err);

#endif
