/* emulator/api_cloudwatch_anomaly.h: the anomaly detector handlers of api_cloudwatch.c's
 * table (Put/Describe/DeleteAnomalyDetector(s)), over scaler/anomaly.h. */
#ifndef EMULATOR_API_CLOUDWATCH_ANOMALY_H
#define EMULATOR_API_CLOUDWATCH_ANOMALY_H

#include "emulator/api.h"

/* DeleteAnomalyDetector, DescribeAnomalyDetectors, PutAnomalyDetector; ended by
 * { NULL, NULL, 0 }. api_find looks here after api_cloudwatch_handlers. */
extern const struct api_handler api_cloudwatch_anomaly_handlers[];

#endif
