/* scaler/asg_protect.c: SetInstanceProtection (see asg_protect.h). */
#include "scaler/asg_protect.h"

#include "scaler/asg_internal.h"

enum sc_status sc_asg_set_instance_protection(struct sc_asg *asg, const char *group,
                                              const char *const *ids, int nids,
                                              int protected_from_scale_in, int64_t now_ms,
                                              struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);

    (void)now_ms; /* the flag acts at the next scale-in */
    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    if (nids > SC_ASG_MAX_PROTECT_IDS)
        return sc_fail(err, SC_ERR_LIMIT_EXCEEDED,
                       "The maximum number of instance IDs (%d) per call has been exceeded.",
                       SC_ASG_MAX_PROTECT_IDS);
    for (int i = 0; i < nids; i++) {
        struct asg_group *owner = NULL;

        if (!ids[i] || !asg_inst_find(asg, ids[i], &owner) || owner != g)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The instance %s is not part of Auto Scaling group %s.",
                           ids[i] ? ids[i] : "null", g->info.auto_scaling_group_name);
    }
    for (int i = 0; i < nids; i++)
        asg_inst_find(asg, ids[i], NULL)->info.protected_from_scale_in = !!protected_from_scale_in;
    return SC_OK;
}
