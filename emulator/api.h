/* emulator/api.h: the operation handlers. Each is thin: IR in (json_t, typed and checked
 * against the model by the protocol layer) -> one library call -> IR out. Handlers keep
 * no AWS rules; errors come from libscaler's sc_error (awserr_from_sc) and are rendered
 * by dispatch.c only, which also finds the request's world before the call. Handlers run
 * on the loop thread and return at once. */
#ifndef EMULATOR_API_H
#define EMULATOR_API_H

#include <stdint.h>

#include <jansson.h>

#include "emulator/awserr.h"

struct sc_world;

struct api_ctx {
    /* the world (scaler/world.h) of the request's account and region, borrowed for the
     * call; NULL for an API_WORLDLESS operation */
    struct sc_world *world;
    const char *account;
    const char *region;
    const char *request_id;
    int64_t now_ms; /* emulated epoch ms (the scaled or manual clock) */
    /* what the emulator takes for S3: object (bucket, key) is the file s3_dir/bucket/key
     * (--s3-dir; NULL: no object exists); ELBv2 trust stores read their bundles there */
    const char *s3_dir;
};

/* in is borrowed; on success *out is a new reference (NULL means an empty result).
 * Returns 0, or -1 with err set. */
typedef int (*api_fn)(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err);

/* What an operation does besides answering (struct api_handler's flags). */
enum {
    /* it may change the worlds: the worlds step after it succeeds, and with --state its
     * reply waits until the change is durable. Every operation whose name does not start
     * with Describe, List or Get, and only those (the test_dispatch tests check it). */
    API_MUTATES = 1,
    /* what it changes is datapoints only, durable through the metric journal rather
     * than the snapshot (PutMetricData) */
    API_JOURNAL = 2,
    /* it reads no world (catalogues): no world is found or made, any region answers */
    API_WORLDLESS = 4,
};

struct api_handler {
    const char *op;
    api_fn fn;
    unsigned flags; /* API_* bits */
};

/* The handler for service (model name: "autoscaling", "elb", "elbv2", "cloudwatch", "ec2",
 * "sts") and
 * op, or NULL when the emulator does not serve it yet. */
const struct api_handler *api_find(const char *service, const char *op);

/* ---- helpers shared by the handlers (api.c) ---------------------------------------- */

/* Borrowed strings of a string-list member (NULL and *n = 0 when absent); free() the
 * array, not the strings. */
const char **api_strings(json_t *in, const char *member, int *n);
/* Borrowed string member, or NULL. */
const char *api_str(json_t *in, const char *member);
/* Integer member into *v; returns 1 when present. */
int api_int(json_t *in, const char *member, int *v);
/* Boolean member (def when absent). */
int api_bool(json_t *in, const char *member, int def);

/* [{Name, Value}] of member as dimensions (borrowed strings, *n of them); free() the
 * array. */
struct sc_dimension;
struct sc_dimension *api_dims(json_t *in, const char *member, int *n);
/* Dimensions as CloudWatch shows them ([{Name, Value}], a missing value as ""). New
 * reference. */
json_t *api_dims_json(const struct sc_dimension *d, int n);

/* A MetricDataQuery list (PutMetricAlarm Metrics, CustomizedMetricSpecification.Metrics) as
 * alarm queries with strings borrowed from a; free with api_alarm_queries_free. */
struct sc_alarm_query;
struct sc_alarm_query *api_alarm_queries(json_t *a, int *n);
void api_alarm_queries_free(struct sc_alarm_query *q, int n);
/* The queries as DescribeAlarms / DescribePolicies show them. New reference. */
json_t *api_alarm_queries_json(const struct sc_alarm_query *q, int n);
/* Pagination (spec 1.10): takes items (an array, stolen), the request's token member
 * and limit member, the default and max page size; sets out[list_key] to the page and
 * out[token_key] to the next token when more remain. A token that is not one we issued
 * -> InvalidNextToken. Returns 0 or -1. */
int api_page(json_t *items, json_t *in, const char *token_in, const char *limit_in, int def_limit,
             int max_limit, json_t *out, const char *list_key, const char *token_out,
             struct awserr *err);

/* The page api_page will cut for this request: items [*start, *start + *limit) of the
 * full list. Handlers that build items expensively build only those and put json_null()
 * in the other places (api_page keeps the indexes, so tokens stay the same). A bad token
 * gives start 0 here; api_page reports it. */
void api_page_window(json_t *in, const char *token_in, const char *limit_in, int def_limit,
                     int max_limit, size_t *start, size_t *limit);

/* Per-service tables, each ended by { NULL, NULL, 0 }. */
extern const struct api_handler api_autoscaling_handlers[];
extern const struct api_handler api_elb_handlers[];
extern const struct api_handler api_elbv2_handlers[];
extern const struct api_handler api_cloudwatch_handlers[];
extern const struct api_handler api_ec2_handlers[];
extern const struct api_handler api_sts_handlers[];

#endif
