/* scaler/asg_predict.h: predictive scaling policies (docs/autoscaling.md section 12).
 *
 * A PredictiveScaling policy of a group keeps its PredictiveScalingConfiguration (as sent,
 * with AWS's defaults) and its forecast: the hourly load of the next 48 hours, made from the
 * group's own load metric history (the last 14 days, at least 24 hours of it) by scalelab's
 * documented model, and the capacity each hour needs (load / target value). sc_asg_step
 * makes the forecast again every 6 hours and, in ForecastAndScale mode, raises the group's
 * desired capacity to each hour's forecast capacity SchedulingBufferTime before the hour.
 *
 * The asg reaches the metric history only through env.load_history (scaler/asg.h): the world
 * answers it from CloudWatch; tests fill it with a fake.
 *
 * Ownership: request strings and queries are borrowed and copied when kept; the views are
 * borrowed as every sc_asg view (valid until the next mutating call). */
#ifndef SCALER_ASG_PREDICT_H
#define SCALER_ASG_PREDICT_H

#include <stdint.h>

#include "scaler/alarm.h"
#include "scaler/status.h"

struct sc_asg;

#define SC_PREDICT_HOUR_MS           3600000LL
#define SC_PREDICT_HISTORY_HOURS     336 /* 14 days of history */
#define SC_PREDICT_MIN_HISTORY_HOURS 24  /* the first hour with data at least this far back */
#define SC_PREDICT_FORECAST_HOURS    48
#define SC_PREDICT_REFRESH_MS        (6 * SC_PREDICT_HOUR_MS) /* at 00, 06, 12, 18 UTC */
#define SC_PREDICT_DEFAULT_BUFFER_S  300
#define SC_PREDICT_MAX_RANGE_MS      (30LL * 24 * SC_PREDICT_HOUR_MS) /* a forecast request */

/* The six metric members of a PredictiveScalingMetricSpecification, in the model's order. */
enum sc_predict_slot {
    SC_PREDICT_PAIR = 0,        /* PredefinedMetricPairSpecification */
    SC_PREDICT_SCALING,         /* PredefinedScalingMetricSpecification */
    SC_PREDICT_LOAD,            /* PredefinedLoadMetricSpecification */
    SC_PREDICT_CUSTOM_SCALING,  /* CustomizedScalingMetricSpecification */
    SC_PREDICT_CUSTOM_LOAD,     /* CustomizedLoadMetricSpecification */
    SC_PREDICT_CUSTOM_CAPACITY, /* CustomizedCapacityMetricSpecification */
    SC_PREDICT_NSLOTS
};
/* "PredefinedMetricPairSpecification", ... (the model's member names). */
const char *sc_predict_slot_name(enum sc_predict_slot s);
/* 1 for the three customized slots (MetricDataQueries), 0 for the predefined ones
 * (PredefinedMetricType + ResourceLabel). */
int sc_predict_slot_customized(enum sc_predict_slot s);

/* One metric member as sent: predefined (type, label) or customized (queries). */
struct sc_predict_metric_req {
    int set;                              /* the member was sent */
    const char *predefined_metric_type;   /* predefined slots */
    const char *resource_label;           /* NULL when none */
    const struct sc_alarm_query *queries; /* customized slots: MetricDataQueries */
    int nqueries;
};

struct sc_predict_spec_req {
    int has_target_value;
    double target_value;
    struct sc_predict_metric_req slot[SC_PREDICT_NSLOTS];
};

/* PutScalingPolicy's PredictiveScalingConfiguration. */
struct sc_asg_predictive_req {
    const struct sc_predict_spec_req *specs; /* MetricSpecifications */
    int nspecs;
    const char *mode; /* NULL: ForecastOnly */
    int has_scheduling_buffer_time;
    int scheduling_buffer_time;               /* seconds */
    const char *max_capacity_breach_behavior; /* NULL: HonorMaxCapacity */
    int has_max_capacity_buffer;
    int max_capacity_buffer; /* percent */
};

struct sc_predict_metric {
    int set;
    char *predefined_metric_type;
    char *resource_label;
    struct sc_alarm_query *queries; /* owned */
    int nqueries;
};

/* A policy's configuration and its current forecast (sc_asg_policy_info.predictive). */
struct sc_asg_predictive_info {
    double target_value;
    struct sc_predict_metric slot[SC_PREDICT_NSLOTS];
    int forecast_and_scale; /* Mode */
    int has_scheduling_buffer_time;
    int scheduling_buffer_time;
    int increase_max_capacity; /* MaxCapacityBreachBehavior */
    int has_max_capacity_buffer;
    int max_capacity_buffer;
    /* the forecast: made at update_ms (0: never tried); has_forecast 0 while the history
     * held under 24 hours; load[i] and capacity[i] are the hour start_ms + i hours */
    int64_t update_ms;
    int has_forecast;
    int64_t start_ms;
    double load[SC_PREDICT_FORECAST_HOURS];
    double capacity[SC_PREDICT_FORECAST_HOURS];
    /* bookkeeping of sc_asg_step: the next forecast, the next scaling instant (an hour
     * minus the buffer) */
    int64_t next_update_ms;
    int64_t next_action_ms;
};

/* "ForecastOnly" / "ForecastAndScale"; "HonorMaxCapacity" / "IncreaseMaxCapacity". */
const char *sc_predict_mode_str(int forecast_and_scale);
const char *sc_predict_breach_str(int increase_max_capacity);
/* The buffer the policy schedules with (SchedulingBufferTime, 300 s when not sent). */
int sc_predict_buffer_s(const struct sc_asg_predictive_info *p);

/* --- the model (pure; docs/autoscaling.md 12.3) ---------------------------------------- */

/* The update time of the forecast due at or before now: the last 6-hour boundary. */
int64_t sc_predict_refresh_floor(int64_t now_ms);
/* The load forecast from history[0..nhist) (hourly loads, oldest first, history[nhist-1]
 * the hour just before the forecast's first; NAN = no data): out[i] for the i-th hour of
 * the forecast (nout <= SC_PREDICT_FORECAST_HOURS) is the mean of the same hour of day on
 * the days before with data (history[nhist - 24k + i], k >= 1), else the mean of every hour
 * with data. Returns 0, or -1 when the history has under 24 hours (its first hour with data
 * less than SC_PREDICT_MIN_HISTORY_HOURS back): out is then untouched. */
int sc_predict_load_forecast(const double *history, int nhist, double *out, int nout);
/* The capacity a load needs: ceil(load / target), 0 for a load <= 0 (target > 0). */
double sc_predict_capacity(double load, double target_value);
/* What a ForecastAndScale action does to a group: the desired capacity it raises to and the
 * maximum it leaves (docs/autoscaling.md 12.4). HonorMaxCapacity: min(capacity, max);
 * IncreaseMaxCapacity: when capacity * (1 + buffer/100) exceeds max, the maximum becomes
 * ceil(capacity * (1 + buffer/100)). The desired is never below min_size. */
void sc_predict_scale_target(double capacity, int min_size, int max_size, int increase_max,
                             int buffer_pct, int *desired, int *new_max);

/* --- the asg -------------------------------------------------------------------------- */

/* The checks of a PredictiveScalingConfiguration (the texts of docs/autoscaling.md 12.2).
 * SC_OK or ValidationError. */
enum sc_status sc_asg_predictive_validate(const struct sc_asg_predictive_req *r,
                                          struct sc_error *err);

/* GetPredictiveScalingForecast: the policy's current forecast, the hours in
 * [start_ms, end_ms). ValidationError for an unknown group or policy, a policy of another
 * type, end <= start or a range over 30 days. *out borrowed (the policy's). */
struct sc_predict_forecast_view {
    const struct sc_asg_predictive_info *policy; /* the whole configuration */
    int64_t update_ms;
    int64_t first_ms; /* the hour of load[0] */
    const double *load;
    const double *capacity;
    int n; /* hours in the range (0 without a forecast) */
};
enum sc_status sc_asg_get_predictive_forecast(const struct sc_asg *asg, const char *group,
                                              const char *policy, int64_t start_ms, int64_t end_ms,
                                              struct sc_predict_forecast_view *out,
                                              struct sc_error *err);

#endif
