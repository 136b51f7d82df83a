/* common/hist.h: a log-linear latency histogram in the manner of HdrHistogram.
 *
 * Values are non-negative integers in the caller's unit (loadgen and the simulator use
 * microseconds). Each value lands in a bucket whose width is at most 10^-digits of the
 * value, so percentiles keep `digits` significant digits; values above the highest
 * trackable one are clamped to it and counted in `clamped`. Min, max, count and sum are
 * exact. Two histograms with the same (highest, digits) merge exactly.
 *
 * cm_hist_reset() clears only the range of slots that recorded something, so a
 * histogram reused every period costs in proportion to what it saw, not its size. */
#ifndef COMMON_HIST_H
#define COMMON_HIST_H

#include <stdint.h>

struct cm_hist {
    int64_t highest;  /* highest trackable value */
    int digits;       /* significant digits, 1..4 */
    int sub_half_mag; /* log2 of half the sub-buckets per bucket */
    int bucket_count;
    int counts_len;
    uint64_t *counts;
    int lo_idx, hi_idx; /* touched range, lo > hi when empty */
    uint64_t total;
    uint64_t clamped;
    int64_t min, max;
    double sum;
    double sum_sq;
};

/* highest >= 2, digits 1..4. Returns 0, or -1 on bad arguments. Allocates (aborts on OOM). */
int cm_hist_init(struct cm_hist *h, int64_t highest, int digits);
void cm_hist_cleanup(struct cm_hist *h);
void cm_hist_reset(struct cm_hist *h);

void cm_hist_record(struct cm_hist *h, int64_t value);
void cm_hist_record_n(struct cm_hist *h, int64_t value, uint64_t n);
/* Adds src into dst. Returns 0, or -1 when their layouts differ (dst unchanged). */
int cm_hist_merge(struct cm_hist *dst, const struct cm_hist *src);

/* The value at or below which p percent (0..100) of the recorded values fall, reported
 * as the highest value equivalent to its bucket (as HdrHistogram does); 0 when empty. */
int64_t cm_hist_percentile(const struct cm_hist *h, double p);
double cm_hist_mean(const struct cm_hist *h);
double cm_hist_stddev(const struct cm_hist *h);

/* Walks the non-empty slots in value order: for each, the highest value the slot
 * stands for and its count. Used to serialize and to draw distributions. */
typedef void (*cm_hist_visit_fn)(int64_t value, uint64_t count, void *ud);
void cm_hist_foreach(const struct cm_hist *h, cm_hist_visit_fn fn, void *ud);
/* Slot-level access for exact serialization: the index of a value, and back. */
int cm_hist_index_of(const struct cm_hist *h, int64_t value);
int64_t cm_hist_value_at(const struct cm_hist *h, int index);

#endif
