/* scaler/asg_protect.h: instance scale-in protection (docs/autoscaling.md section 4).
 * The termination choice in asg_step.c skips protected InService instances; this is the
 * operation that sets the flag. Same contract as asg.h. */
#ifndef SCALER_ASG_PROTECT_H
#define SCALER_ASG_PROTECT_H

#include <stdint.h>

#include "scaler/asg.h"
#include "scaler/status.h"

#define SC_ASG_MAX_PROTECT_IDS 50

/* SetInstanceProtection: every id must be a member of group; all or nothing. */
enum sc_status sc_asg_set_instance_protection(struct sc_asg *asg, const char *group,
                                              const char *const *ids, int nids,
                                              int protected_from_scale_in, int64_t now_ms,
                                              struct sc_error *err);

#endif
