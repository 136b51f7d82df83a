/* emulator/api_cloudwatch_anomaly.h: the anomaly detector handlers of api_cloudwatch.c's
 * table (Put/Describe/DeleteAnomalyDetector(s)), over scaler/anomaly.h. */
#ifndef EMULATOR_API_CLOUDWATCH_ANOMALY_H
#define EMULATOR_API_CLOUDWATCH_ANOMALY_H

#include "emulator/api.h"

int cw_put_anomaly_detector(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err);
int cw_describe_anomaly_detectors(struct api_ctx *ctx, json_t *in, json_t **out,
                                  struct awserr *err);
int cw_delete_anomaly_detector(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err);

#endif
