/* emulator/api_autoscaling_refresh.h: the Auto Scaling handlers of instance refresh (over
 * scaler/asg_refresh.h), a third table beside api_autoscaling_handlers that api_find
 * searches after the hooks' table. */
#ifndef EMULATOR_API_AUTOSCALING_REFRESH_H
#define EMULATOR_API_AUTOSCALING_REFRESH_H

#include "emulator/api.h"

/* Ended by { NULL, NULL, 0 }. */
extern const struct api_handler api_autoscaling_refresh_handlers[];

#endif
