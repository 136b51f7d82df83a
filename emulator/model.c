/* emulator/model.c: lookups over the generated model tables (see model.h). */
#include "emulator/model.h"

#include <stddef.h>
#include <string.h>

const struct model_service *const model_services[] = {
    &model_autoscaling, &model_elb, &model_elbv2, &model_cloudwatch, &model_ec2, &model_sts, NULL,
};

const struct model_op *model_op_find(const struct model_service *svc, const char *name)
{
    int lo = 0, hi = svc->nops - 1;

    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(name, svc->ops[mid].name);

        if (c == 0)
            return &svc->ops[mid];
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return NULL;
}

const struct model_shape *model_shape_get(const struct model_service *svc, uint32_t index)
{
    return &svc->shapes[index];
}

const struct model_member *model_member_get(const struct model_service *svc,
                                            const struct model_shape *sh, int i)
{
    return &svc->members[sh->members + (uint32_t)i];
}

const struct model_member *model_member_find(const struct model_service *svc,
                                             const struct model_shape *sh, const char *name,
                                             int which)
{
    for (int i = 0; i < sh->nmembers; i++) {
        const struct model_member *m = &svc->members[sh->members + (uint32_t)i];
        const char *n = which == 0 ? m->name : which == 1 ? m->xml_name : m->ec2_name;

        if (strcmp(n, name) == 0)
            return m;
    }
    return NULL;
}

const struct model_error *model_error_find(const struct model_service *svc, const char *code)
{
    for (int i = 0; i < svc->nerrors; i++) {
        if (svc->errors[i].code && strcmp(svc->errors[i].code, code) == 0)
            return &svc->errors[i];
    }
    return NULL;
}

int model_enum_ok(const struct model_service *svc, const struct model_shape *sh, const char *s)
{
    if (sh->nenums == 0)
        return 1;
    for (int i = 0; i < sh->nenums; i++) {
        if (strcmp(svc->enums[sh->enums + (uint32_t)i], s) == 0)
            return 1;
    }
    return 0;
}

const struct model_service *model_service_find(const char *sigv4, const char *version)
{
    for (int i = 0; model_services[i]; i++) {
        const struct model_service *s = model_services[i];

        if (strcmp(s->sigv4, sigv4) != 0 && strcmp(s->name, sigv4) != 0)
            continue;
        if (version && strcmp(s->version, version) != 0)
            continue;
        return s;
    }
    return NULL;
}

const struct model_service *model_service_by_version(const char *version)
{
    for (int i = 0; model_services[i]; i++) {
        if (strcmp(model_services[i]->version, version) == 0)
            return model_services[i];
    }
    return NULL;
}
