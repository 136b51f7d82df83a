/* common/hist.c: see hist.h. The layout follows HdrHistogram's: bucket b holds
 * sub-buckets of width 2^b, the first bucket covering 0..2*half-1 at width 1. */
#include "common/hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

static int log2_ceil(int64_t v)
{
    int r = 0;

    while ((INT64_C(1) << r) < v)
        r++;
    return r;
}

int cm_hist_init(struct cm_hist *h, int64_t highest, int digits)
{
    int64_t largest_single_unit = 2;
    int sub_count_mag, buckets;
    int64_t sub_count, trackable;

    memset(h, 0, sizeof(*h));
    if (highest < 2 || digits < 1 || digits > 4)
        return -1;
    for (int i = 0; i < digits; i++)
        largest_single_unit *= 10;
    sub_count_mag = log2_ceil(largest_single_unit);
    h->sub_half_mag = sub_count_mag - 1;
    sub_count = INT64_C(1) << sub_count_mag;
    trackable = sub_count - 1;
    buckets = 1;
    while (trackable < highest) {
        trackable = (trackable << 1) | 1;
        buckets++;
    }
    h->highest = highest;
    h->digits = digits;
    h->bucket_count = buckets;
    h->counts_len = (buckets + 1) << h->sub_half_mag;
    h->counts = cm_xcalloc((size_t)h->counts_len, sizeof(*h->counts));
    h->lo_idx = h->counts_len;
    h->hi_idx = -1;
    h->min = INT64_MAX;
    h->max = 0;
    return 0;
}

void cm_hist_cleanup(struct cm_hist *h)
{
    free(h->counts);
    h->counts = NULL;
}

void cm_hist_reset(struct cm_hist *h)
{
    if (h->hi_idx >= h->lo_idx)
        memset(h->counts + h->lo_idx, 0, (size_t)(h->hi_idx - h->lo_idx + 1) * sizeof(*h->counts));
    h->lo_idx = h->counts_len;
    h->hi_idx = -1;
    h->total = 0;
    h->clamped = 0;
    h->min = INT64_MAX;
    h->max = 0;
    h->sum = 0;
    h->sum_sq = 0;
}

int cm_hist_index_of(const struct cm_hist *h, int64_t value)
{
    int64_t half = INT64_C(1) << h->sub_half_mag;
    int64_t mask = (half << 1) - 1;
    int pow2ceil, bucket;
    int64_t sub;

    if (value < 0)
        value = 0;
    pow2ceil = 64 - __builtin_clzll((unsigned long long)(value | mask));
    bucket = pow2ceil - (h->sub_half_mag + 1);
    sub = value >> bucket;
    return (int)(((int64_t)(bucket + 1) << h->sub_half_mag) + (sub - half));
}

/* The lowest value of a slot. */
static int64_t slot_low(const struct cm_hist *h, int index)
{
    int64_t half = INT64_C(1) << h->sub_half_mag;
    int bucket = (index >> h->sub_half_mag) - 1;
    int64_t sub = (index & (half - 1)) + half;

    if (bucket < 0) {
        sub -= half;
        bucket = 0;
    }
    return sub << bucket;
}

int64_t cm_hist_value_at(const struct cm_hist *h, int index)
{
    int bucket = (index >> h->sub_half_mag) - 1;

    if (bucket < 0)
        bucket = 0;
    return slot_low(h, index) + (INT64_C(1) << bucket) - 1;
}

void cm_hist_record_n(struct cm_hist *h, int64_t value, uint64_t n)
{
    int idx;

    if (n == 0)
        return;
    if (value < 0)
        value = 0;
    if (value > h->highest) {
        value = h->highest;
        h->clamped += n;
    }
    idx = cm_hist_index_of(h, value);
    h->counts[idx] += n;
    if (idx < h->lo_idx)
        h->lo_idx = idx;
    if (idx > h->hi_idx)
        h->hi_idx = idx;
    h->total += n;
    if (value < h->min)
        h->min = value;
    if (value > h->max)
        h->max = value;
    h->sum += (double)value * (double)n;
    h->sum_sq += (double)value * (double)value * (double)n;
}

void cm_hist_record(struct cm_hist *h, int64_t value)
{
    cm_hist_record_n(h, value, 1);
}

int cm_hist_merge(struct cm_hist *dst, const struct cm_hist *src)
{
    if (dst->highest != src->highest || dst->digits != src->digits)
        return -1;
    for (int i = src->lo_idx; i <= src->hi_idx; i++)
        dst->counts[i] += src->counts[i];
    if (src->total) {
        if (src->lo_idx < dst->lo_idx)
            dst->lo_idx = src->lo_idx;
        if (src->hi_idx > dst->hi_idx)
            dst->hi_idx = src->hi_idx;
        if (src->min < dst->min)
            dst->min = src->min;
        if (src->max > dst->max)
            dst->max = src->max;
    }
    dst->total += src->total;
    dst->clamped += src->clamped;
    dst->sum += src->sum;
    dst->sum_sq += src->sum_sq;
    return 0;
}

int64_t cm_hist_percentile(const struct cm_hist *h, double p)
{
    uint64_t want, seen = 0;
    int64_t v;

    if (h->total == 0)
        return 0;
    if (p < 0)
        p = 0;
    if (p > 100)
        p = 100;
    want = (uint64_t)ceil(p / 100.0 * (double)h->total);
    if (want == 0)
        want = 1;
    for (int i = h->lo_idx; i <= h->hi_idx; i++) {
        seen += h->counts[i];
        if (seen >= want) {
            v = cm_hist_value_at(h, i);
            /* Never report beyond what was actually seen. */
            if (v > h->max)
                v = h->max;
            if (v < h->min)
                v = h->min;
            return v;
        }
    }
    return h->max;
}

double cm_hist_mean(const struct cm_hist *h)
{
    return h->total ? h->sum / (double)h->total : 0.0;
}

double cm_hist_stddev(const struct cm_hist *h)
{
    double mean, var;

    if (h->total < 2)
        return 0.0;
    mean = cm_hist_mean(h);
    var = h->sum_sq / (double)h->total - mean * mean;
    return var > 0 ? sqrt(var) : 0.0;
}

void cm_hist_foreach(const struct cm_hist *h, cm_hist_visit_fn fn, void *ud)
{
    for (int i = h->lo_idx; i <= h->hi_idx; i++)
        if (h->counts[i])
            fn(cm_hist_value_at(h, i), h->counts[i], ud);
}
