/* emulator/api_autoscaling_predict.h: predictive scaling in the Auto Scaling API (over
 * scaler/asg_predict.h; docs/autoscaling.md section 12): PutScalingPolicy's
 * PredictiveScalingConfiguration read and DescribePolicies' echo (called by
 * api_autoscaling.c), and GetPredictiveScalingForecast, a fourth handler table api_find
 * searches after the refresh table. */
#ifndef EMULATOR_API_AUTOSCALING_PREDICT_H
#define EMULATOR_API_AUTOSCALING_PREDICT_H

#include <jansson.h>

#include "emulator/api.h"
#include "scaler/asg_predict.h"

/* A PredictiveScalingConfiguration read: cfg points into spec and the queries; strings are
 * borrowed from the request. Free with api_predictive_cleanup. */
struct api_predictive {
    struct sc_asg_predictive_req cfg;
    struct sc_predict_spec_req *specs;
    int nspecs;
};

/* Reads in (a PredictiveScalingConfiguration object, borrowed) into *p. */
void api_predictive_read(json_t *in, struct api_predictive *p);
void api_predictive_cleanup(struct api_predictive *p);
/* The configuration as DescribePolicies shows it (a new reference). */
json_t *api_predictive_json(const struct sc_asg_predictive_info *p);

/* Ended by { NULL, NULL, 0 }. */
extern const struct api_handler api_autoscaling_predict_handlers[];

#endif
