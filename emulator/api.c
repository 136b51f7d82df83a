/* emulator/api.c: handler lookup (see api.h). */
#include "emulator/api.h"

#include <string.h>

static api_fn find_in(const struct api_handler *t, const char *op)
{
    for (; t->op; t++) {
        if (strcmp(t->op, op) == 0)
            return t->fn;
    }
    return NULL;
}

api_fn api_find(const char *service, const char *op)
{
    if (strcmp(service, "autoscaling") == 0)
        return find_in(api_autoscaling_handlers, op);
    if (strcmp(service, "elb") == 0)
        return find_in(api_elb_handlers, op);
    if (strcmp(service, "cloudwatch") == 0)
        return find_in(api_cloudwatch_handlers, op);
    if (strcmp(service, "ec2") == 0)
        return find_in(api_ec2_handlers, op);
    return NULL;
}
