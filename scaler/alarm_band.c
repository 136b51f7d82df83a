/* scaler/alarm_band.c: alarms on an anomaly detection band (docs/cloudwatch.md "Anomaly
 * detection alarms"): PutMetricAlarm's rules for ThresholdMetricId and the band operators,
 * the slots an evaluation reads (the watched value and the band at the same period), the
 * band comparison and its StateReason words. The state machine is alarm_eval.c's. */
#include "scaler/alarm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scaler/alarm_internal.h"

static int band_op(const char *op)
{
    for (int i = OP_BAND_OUT; op && i <= OP_BAND_HIGH; i++)
        if (strcmp(op, alarm_op_names[i]) == 0)
            return 1;
    return 0;
}

static int autoscaling_arn(const char *a)
{
    return a && strncmp(a, "arn:", 4) == 0 && strstr(a, ":autoscaling:") != NULL;
}

enum sc_status alarm_band_validate(const struct sc_put_metric_alarm_req *r, struct sc_error *err)
{
    const char *const *lists[3] = { r->ok_actions, r->alarm_actions, r->insufficient_data_actions };
    const int ns[3] = { r->n_ok_actions, r->n_alarm_actions, r->n_insufficient_data_actions };
    int known = 0;

    for (int i = 0; r->comparison_operator && i < OP_BAND_OUT; i++)
        known |= strcmp(r->comparison_operator, alarm_op_names[i]) == 0;
    if (band_op(r->comparison_operator) && !r->threshold_metric_id)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "ComparisonOperators for ranges require ThresholdMetricId to be set");
    if (!r->threshold_metric_id)
        return SC_OK;
    if (known)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "ThresholdMetricId can only be used with the comparison operators "
                       "LessThanLowerOrGreaterThanUpperThreshold, LessThanLowerThreshold and "
                       "GreaterThanUpperThreshold.");
    if (!r->has_metrics)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "ThresholdMetricId can only be used with a list of Metrics.");
    for (int s = 0; s < 3; s++)
        for (int i = 0; i < ns[s]; i++)
            if (autoscaling_arn(lists[s][i]))
                return sc_fail(err, SC_ERR_VALIDATION,
                               "Alarms based on anomaly detection models cannot have Auto "
                               "Scaling actions.");
    return SC_OK;
}

void sc_alarms_set_anomaly(struct sc_alarms *a, const struct sc_anomaly_detectors *d)
{
    a->det = d;
}

/* The slot of a timestamp (1 = newest), 0 when it is none of 1..r. */
static int slot_of(int64_t tick_ms, int64_t pms, int64_t ts, int r)
{
    int64_t off = tick_ms - ts;

    if (off <= 0 || off % pms != 0 || off / pms > r)
        return 0;
    return (int)(off / pms);
}

void alarm_band_slots(struct sc_alarms *a, struct alarm *al, const struct sc_metric_store *store,
                      int64_t tick_ms, int r)
{
    int64_t pms = (int64_t)al->period * 1000, start = tick_ms - (int64_t)r * pms;
    const struct sc_math_series *val = NULL, *lo = NULL, *hi = NULL;
    struct sc_math_error me;
    char *has_band = (char *)a->scratch; /* r + 1 <= MAX_SLOTS < SCRATCH_LEN */

    sc_math_program_set_anomaly(al->prog, a->det);
    if (sc_math_program_run(al->prog, store, start, tick_ms, tick_ms, &me) != SC_OK)
        return; /* every slot missing */
    for (int i = 0; i < sc_math_program_result_count(al->prog); i++) {
        const struct sc_math_result *res = sc_math_program_result(al->prog, i);
        if (res->query != al->band_q)
            val = val ? val : res->series;
        else if (!lo)
            lo = res->series;
        else if (!hi)
            hi = res->series;
    }
    if (!val || !lo || !hi)
        return;
    memset(has_band, 0, (size_t)r + 1);
    for (int i = 0; i < lo->n && i < hi->n; i++) {
        int k = slot_of(tick_ms, pms, lo->ts[i], r);
        if (!k || hi->ts[i] != lo->ts[i])
            continue;
        has_band[k] = 1;
        a->slot_lo[k] = lo->v[i];
        a->slot_hi[k] = hi->v[i];
    }
    for (int i = 0; i < val->n; i++) {
        int k = slot_of(tick_ms, pms, val->ts[i], r);
        if (!k || !has_band[k])
            continue;
        a->slot_has[k] = 1;
        a->slot_val[k] = val->v[i];
        a->slot_cnt[k] = 1;
    }
}

int alarm_band_breaches(const struct sc_alarms *a, const struct alarm *al, int k)
{
    double v = a->slot_val[k];

    switch (al->op) {
    case OP_BAND_OUT:
        return v < a->slot_lo[k] || v > a->slot_hi[k];
    case OP_BAND_LOW:
        return v < a->slot_lo[k];
    case OP_BAND_HIGH:
        return v > a->slot_hi[k];
    default:
        return 0;
    }
}

static void edges(struct sb *b, const struct sc_alarms *a, const double *e, const int *slots, int n)
{
    (void)a;
    sb_raw(b, "[");
    for (int i = 0; i < n; i++) {
        if (i)
            sb_raw(b, ", ");
        sb_num(b, e[slots[i]]);
    }
    sb_raw(b, "]");
}

void alarm_band_reason(struct sb *b, const struct sc_alarms *a, const struct alarm *al,
                       const int *slots, int n, int to_alarm, int x)
{
    const char *no = to_alarm ? "" : "not ";

    sb_printf(b, " %s ", x == 1 ? "was" : "were");
    if (al->op != OP_BAND_HIGH) {
        sb_printf(b, "%sless than the lower thresholds ", no);
        edges(b, a, a->slot_lo, slots, n);
    }
    if (al->op == OP_BAND_OUT)
        sb_printf(b, " %s ", to_alarm ? "or" : "and");
    if (al->op != OP_BAND_LOW) {
        sb_printf(b, "%sgreater than the upper thresholds ", no);
        edges(b, a, a->slot_hi, slots, n);
    }
}
