/* emulator/api_cloudwatch_streams.c: metric streams and OTel enrichment over
 * scaler/metric_stream.h (docs/cloudwatch.md "Metric streams"). IR in -> one libscaler
 * call -> IR out; every rule and message is the library's. */
#include "emulator/api_cloudwatch_ext.h"

#include <stdlib.h>

#include "scaler/cloudwatch.h"
#include "scaler/world.h"

static struct sc_metric_streams *streams(struct api_ctx *ctx)
{
    return sc_cw_metric_streams(sc_world_cw(ctx->world));
}

static int put_metric_stream(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se;
    const char *arn = NULL;

    if (sc_metric_streams_put(streams(ctx), in, ctx->now_ms, &arn, &se) != SC_OK)
        return awserr_from_sc(err, &se);
    *out = json_pack("{s:s}", "Arn", arn);
    return 0;
}

static int get_metric_stream(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    struct sc_error se;

    if (sc_metric_streams_get(streams(ctx), api_str(in, "Name"), out, &se) != SC_OK)
        return awserr_from_sc(err, &se);
    return 0;
}

static int list_metric_streams(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    json_t *o = json_object();

    if (api_page(sc_metric_streams_list(streams(ctx)), in, "NextToken", "MaxResults", 500, 500, o,
                 "Entries", "NextToken", err) != 0) {
        json_decref(o);
        return -1;
    }
    *out = o;
    return 0;
}

static int delete_metric_stream(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    (void)err;
    sc_metric_streams_delete(streams(ctx), api_str(in, "Name"));
    *out = NULL;
    return 0;
}

static int set_state(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err, int running)
{
    struct sc_error se;
    int n;
    const char **names = api_strings(in, "Names", &n);
    enum sc_status st =
        sc_metric_streams_set_state(streams(ctx), names, n, running, ctx->now_ms, &se);

    free(names);
    *out = NULL;
    return st == SC_OK ? 0 : awserr_from_sc(err, &se);
}

static int start_metric_streams(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return set_state(ctx, in, out, err, 1);
}

static int stop_metric_streams(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    return set_state(ctx, in, out, err, 0);
}

static int start_otel(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    (void)in;
    (void)err;
    sc_metric_streams_set_otel(streams(ctx), 1);
    *out = NULL;
    return 0;
}

static int stop_otel(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    (void)in;
    (void)err;
    sc_metric_streams_set_otel(streams(ctx), 0);
    *out = NULL;
    return 0;
}

static int get_otel(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    (void)in;
    (void)err;
    *out =
        json_pack("{s:s}", "Status", sc_metric_streams_otel(streams(ctx)) ? "Running" : "Stopped");
    return 0;
}

const struct api_handler api_cloudwatch_stream_handlers[] = {
    { "DeleteMetricStream", delete_metric_stream, API_MUTATES },
    { "GetMetricStream", get_metric_stream, 0 },
    { "GetOTelEnrichment", get_otel, 0 },
    { "ListMetricStreams", list_metric_streams, 0 },
    { "PutMetricStream", put_metric_stream, API_MUTATES },
    { "StartMetricStreams", start_metric_streams, API_MUTATES },
    { "StartOTelEnrichment", start_otel, API_MUTATES },
    { "StopMetricStreams", stop_metric_streams, API_MUTATES },
    { "StopOTelEnrichment", stop_otel, API_MUTATES },
    { NULL, NULL, 0 },
};
