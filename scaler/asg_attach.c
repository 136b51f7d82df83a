/* scaler/asg_attach.c: a group's load balancers, suspended processes, tags and metrics
 * collection (see asg.h). */
#include "scaler/asg.h"

#include <stdlib.h>
#include <string.h>

#include "scaler/asg_internal.h"

/* --- load balancers and target groups ------------------------------------------------------ */

static int listed(char *const *list, int n, const char *name)
{
    for (int k = 0; k < n; k++) {
        if (strcmp(list[k], name) == 0)
            return 1;
    }
    return 0;
}

int asg_attach_fresh(char *const *list, int n, const char *const *names, int nnames)
{
    int fresh = 0;

    for (int i = 0; i < nnames; i++)
        fresh += !listed(list, n, names[i]) && !listed((char *const *)names, i, names[i]);
    return fresh;
}

/* --- detached sources: Removing, then Removed (docs/elbv2.md 9) --- */

static void removing_free_one(struct asg_removing *r)
{
    free(r->name);
    for (int k = 0; k < r->ninst; k++)
        free(r->inst[k]);
    free(r->inst);
}

static void removing_drop(struct asg_group *g, const char *name)
{
    for (int i = 0; i < g->nremoving; i++) {
        if (strcmp(g->removing[i].name, name) != 0)
            continue;
        removing_free_one(&g->removing[i]);
        memmove(&g->removing[i], &g->removing[i + 1],
                (size_t)(g->nremoving - i - 1) * sizeof(*g->removing));
        g->nremoving--;
        return;
    }
}

void asg_removing_free(struct asg_group *g)
{
    for (int i = 0; i < g->nremoving; i++)
        removing_free_one(&g->removing[i]);
    free(g->removing);
    g->removing = NULL;
    g->nremoving = 0;
}

/* Keeps the detached source and the ids of the instances it deregisters; out of memory it
 * is simply not listed (the deregistrations go on all the same). */
static void removing_add(struct asg_group *g, const char *name, int elbv2)
{
    struct asg_removing *grown, *r;

    removing_drop(g, name);
    grown = realloc(g->removing, (size_t)(g->nremoving + 1) * sizeof(*grown));
    if (!grown)
        return;
    g->removing = grown;
    r = &grown[g->nremoving];
    memset(r, 0, sizeof(*r));
    r->name = sc_strdup(name);
    r->elbv2 = elbv2;
    r->inst = g->ninst > 0 ? calloc((size_t)g->ninst, sizeof(*r->inst)) : NULL;
    if (!r->name || (g->ninst > 0 && !r->inst)) {
        removing_free_one(r);
        return;
    }
    for (int k = 0; k < g->ninst; k++) {
        r->inst[r->ninst] = sc_strdup(g->inst[k].info.instance_id);
        if (r->inst[r->ninst])
            r->ninst++;
    }
    g->nremoving++;
}

/* Removing while one of the instances the source had is still registered there (draining
 * its connections for the deregistration delay), else Removed. */
static const char *removing_state(const struct sc_asg *asg, const struct asg_removing *r)
{
    if (!asg->env.lb_instance_state)
        return "Removed";
    for (int k = 0; k < r->ninst; k++) {
        if (asg->env.lb_instance_state(asg->env.ud, r->name, r->inst[k]) !=
            SC_ASG_LB_NOT_REGISTERED)
            return "Removing";
    }
    return "Removed";
}

void asg_removing_sweep(const struct sc_asg *asg, struct asg_group *g)
{
    for (int i = 0; i < g->nremoving; i++) {
        if (strcmp(removing_state(asg, &g->removing[i]), "Removed") != 0)
            continue;
        removing_free_one(&g->removing[i]);
        memmove(&g->removing[i], &g->removing[i + 1],
                (size_t)(g->nremoving - i - 1) * sizeof(*g->removing));
        g->nremoving--;
        i--;
    }
}

int sc_asg_removing_count(const struct sc_asg_group_info *gi)
{
    return ((const struct asg_group *)gi)->nremoving;
}

const char *sc_asg_removing_at(const struct sc_asg *asg, const struct sc_asg_group_info *gi, int i,
                               int *elbv2, const char **state)
{
    const struct asg_group *g = (const struct asg_group *)gi;

    if (i < 0 || i >= g->nremoving)
        return NULL;
    if (elbv2)
        *elbv2 = g->removing[i].elbv2;
    if (state)
        *state = removing_state(asg, &g->removing[i]);
    return g->removing[i].name;
}

enum sc_status asg_attach_names(struct sc_asg *asg, struct asg_group *g, char ***list, int *n,
                                const char *const *names, int nnames, int64_t now_ms,
                                struct sc_error *err)
{
    for (int i = 0; i < nnames; i++) {
        char **grown, *c;

        if (listed(*list, *n, names[i]))
            continue;
        /* attached again while Removing: attached, no longer removing */
        removing_drop(g, names[i]);
        c = sc_strdup(names[i]);
        grown = c ? realloc(*list, (size_t)(*n + 1) * sizeof(*grown)) : NULL;
        if (!grown) {
            free(c);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        *list = grown;
        grown[(*n)++] = c;
        asg_inputs_changed(asg);
        if (asg->env.lb_register && !asg_proc_suspended(g, SC_ASG_PROC_ADD_TO_LOAD_BALANCER))
            for (int k = 0; k < g->ninst; k++)
                if (g->inst[k].info.lifecycle_state == SC_ASG_IN_SERVICE)
                    asg->env.lb_register(asg->env.ud, c, g->inst[k].info.instance_id, now_ms);
    }
    return SC_OK;
}

void asg_detach_names(struct sc_asg *asg, struct asg_group *g, char **list, int *n,
                      const char *const *names, int nnames, int elbv2, int64_t now_ms)
{
    for (int i = 0; i < nnames; i++) {
        for (int k = 0; names[i] && k < *n; k++) {
            if (strcmp(list[k], names[i]) != 0)
                continue;
            if (asg->env.lb_deregister)
                for (int m = 0; m < g->ninst; m++)
                    asg->env.lb_deregister(asg->env.ud, list[k], g->inst[m].info.instance_id,
                                           now_ms);
            removing_add(g, list[k], elbv2);
            free(list[k]);
            memmove(&list[k], &list[k + 1], (size_t)(*n - k - 1) * sizeof(char *));
            (*n)--;
            asg_inputs_changed(asg);
            break;
        }
    }
}

const char *asg_attached_state(const struct sc_asg *asg, const struct asg_group *g,
                               const char *name)
{
    int adding = 0;

    if (!asg->env.lb_instance_state)
        return "Added";
    for (int k = 0; k < g->ninst; k++) {
        enum sc_asg_lb_state s =
            asg->env.lb_instance_state(asg->env.ud, name, g->inst[k].info.instance_id);

        if (s == SC_ASG_LB_IN_SERVICE)
            return "InService";
        /* an InService instance whose registration is still in progress */
        adding |=
            s == SC_ASG_LB_NOT_REGISTERED && g->inst[k].info.lifecycle_state == SC_ASG_IN_SERVICE;
    }
    return adding ? "Adding" : "Added";
}

enum sc_status sc_asg_attach_load_balancers(struct sc_asg *asg, const char *group,
                                            const char *const *names, int nnames, int64_t now_ms,
                                            struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    struct sc_asg_group_info *gi;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    gi = &g->info;
    if (nnames > 10)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value at 'loadBalancerNames' failed to satisfy constraint: Member must have length less than or equal to 10");
    for (int i = 0; i < nnames; i++) {
        if (!names[i] || !asg->env.lb_exists || !asg->env.lb_exists(asg->env.ud, names[i]))
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "Provided Load Balancers may not be valid. Please ensure they exist and try again.");
    }
    /* the quota before anything is attached: nothing changes on an error */
    if (gi->nload_balancer_names +
            asg_attach_fresh(gi->load_balancer_names, gi->nload_balancer_names, names, nnames) >
        SC_ASG_MAX_LOAD_BALANCERS)
        return sc_fail(
            err, SC_ERR_LIMIT_EXCEEDED,
            "You have reached your quota of %d Classic Load Balancers per Auto Scaling group.",
            SC_ASG_MAX_LOAD_BALANCERS);
    return asg_attach_names(asg, g, &gi->load_balancer_names, &gi->nload_balancer_names, names,
                            nnames, now_ms, err);
}

enum sc_status sc_asg_detach_load_balancers(struct sc_asg *asg, const char *group,
                                            const char *const *names, int nnames, int64_t now_ms,
                                            struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    struct sc_asg_group_info *gi;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    gi = &g->info;
    if (nnames > 10)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value at 'loadBalancerNames' failed to satisfy constraint: Member must have length less than or equal to 10");
    asg_detach_names(asg, g, gi->load_balancer_names, &gi->nload_balancer_names, names, nnames, 0,
                     now_ms);
    return SC_OK;
}

const char *sc_asg_load_balancer_state(const struct sc_asg *asg, const struct sc_asg_group_info *gi,
                                       int i)
{
    if (i < 0 || i >= gi->nload_balancer_names)
        return "";
    return asg_attached_state(asg, (const struct asg_group *)gi, gi->load_balancer_names[i]);
}

/* --- processes, tags, metrics ----------------------------------------------------------------- */

static enum sc_status process_mask(const char *const *names, int n, unsigned *mask,
                                   struct sc_error *err)
{
    *mask = 0;
    if (n == 0) {
        *mask = (1u << SC_ASG_PROC_COUNT) - 1;
        return SC_OK;
    }
    for (int i = 0; i < n; i++) {
        int found = -1;

        for (int p = 0; p < SC_ASG_PROC_COUNT; p++)
            if (names[i] && strcmp(names[i], sc_asg_process_str((enum sc_asg_process)p)) == 0)
                found = p;
        if (found < 0)
            return sc_fail(err, SC_ERR_VALIDATION, "Process %s is not a valid process name.",
                           names[i] ? names[i] : "null");
        *mask |= 1u << found;
    }
    return SC_OK;
}

enum sc_status sc_asg_suspend_processes(struct sc_asg *asg, const char *group,
                                        const char *const *names, int nnames, int64_t now_ms,
                                        struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    unsigned mask;
    enum sc_status st;

    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    st = process_mask(names, nnames, &mask, err);
    if (st != SC_OK)
        return st;
    for (int p = 0; p < SC_ASG_PROC_COUNT; p++)
        if (((mask >> p) & 1u) && !((g->info.suspended >> p) & 1u))
            g->info.suspended_ms[p] = now_ms;
    g->info.suspended |= mask;
    asg_inputs_changed(asg);
    return SC_OK;
}

enum sc_status sc_asg_resume_processes(struct sc_asg *asg, const char *group,
                                       const char *const *names, int nnames, int64_t now_ms,
                                       struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    unsigned mask;
    enum sc_status st;

    (void)now_ms;
    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    st = process_mask(names, nnames, &mask, err);
    if (st != SC_OK)
        return st;
    g->info.suspended &= ~mask;
    asg_inputs_changed(asg);
    return SC_OK;
}

static enum sc_status tag_target(struct sc_asg *asg, const struct sc_asg_tag_req *t,
                                 struct asg_group **out, struct sc_error *err)
{
    if (t->resource_type && strcmp(t->resource_type, "auto-scaling-group") != 0)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Invalid resource type: %s. The only valid resource type is auto-scaling-group.",
            t->resource_type);
    *out = asg_group_find(asg, t->resource_id);
    if (!*out)
        return sc_asg_group_not_found(t->resource_id, err);
    if (!t->key || !t->key[0] || strlen(t->key) > 128)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value at 'tags.member.key' failed to satisfy constraint: Member must have length between 1 and 128");
    return SC_OK;
}

enum sc_status sc_asg_create_or_update_tags(struct sc_asg *asg, const struct sc_asg_tag_req *tags,
                                            int ntags, int64_t now_ms, struct sc_error *err)
{
    (void)now_ms;
    for (int i = 0; i < ntags; i++) {
        struct asg_group *g;
        enum sc_status st = tag_target(asg, &tags[i], &g, err);
        int exists = 0;

        if (st != SC_OK)
            return st;
        if (strncmp(tags[i].key, "aws:", 4) == 0)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Tag keys starting with 'aws:' are reserved for internal use");
        if (tags[i].value && strlen(tags[i].value) > 256)
            return sc_fail(
                err, SC_ERR_VALIDATION,
                "1 validation error detected: Value at 'tags.member.value' failed to satisfy constraint: Member must have length less than or equal to 256");
        for (int k = 0; k < g->info.ntags; k++)
            exists |= strcmp(g->info.tags[k].key, tags[i].key) == 0;
        if (!exists && g->info.ntags + 1 > SC_ASG_MAX_TAGS)
            return sc_fail(err, SC_ERR_LIMIT_EXCEEDED,
                           "Tag limit exceeded: an Auto Scaling group can have at most %d tags.",
                           SC_ASG_MAX_TAGS);
    }
    for (int i = 0; i < ntags; i++) {
        struct asg_group *g = asg_group_find(asg, tags[i].resource_id);
        struct sc_asg_group_info *gi = &g->info;
        struct sc_asg_tag *grown;
        char *v = sc_strdup(tags[i].value ? tags[i].value : "");
        int done = 0;

        if (!v)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        for (int k = 0; k < gi->ntags && !done; k++) {
            if (strcmp(gi->tags[k].key, tags[i].key) == 0) {
                free(gi->tags[k].value);
                gi->tags[k].value = v;
                gi->tags[k].propagate_at_launch = !!tags[i].propagate_at_launch;
                done = 1;
            }
        }
        if (done)
            continue;
        if (gi->ntags >= SC_ASG_MAX_TAGS) {
            free(v);
            return sc_fail(err, SC_ERR_LIMIT_EXCEEDED,
                           "Tag limit exceeded: an Auto Scaling group can have at most %d tags.",
                           SC_ASG_MAX_TAGS);
        }
        grown = realloc(gi->tags, (size_t)(gi->ntags + 1) * sizeof(*grown));
        if (!grown) {
            free(v);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        gi->tags = grown;
        grown[gi->ntags].key = sc_strdup(tags[i].key);
        if (!grown[gi->ntags].key) {
            free(v);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        grown[gi->ntags].value = v;
        grown[gi->ntags].propagate_at_launch = !!tags[i].propagate_at_launch;
        gi->ntags++;
    }
    return SC_OK;
}

enum sc_status sc_asg_delete_tags(struct sc_asg *asg, const struct sc_asg_tag_req *tags, int ntags,
                                  int64_t now_ms, struct sc_error *err)
{
    (void)now_ms;
    for (int i = 0; i < ntags; i++) {
        struct asg_group *g;
        enum sc_status st = tag_target(asg, &tags[i], &g, err);

        if (st != SC_OK)
            return st;
    }
    for (int i = 0; i < ntags; i++) {
        struct sc_asg_group_info *gi = &asg_group_find(asg, tags[i].resource_id)->info;

        for (int k = 0; k < gi->ntags; k++) {
            if (strcmp(gi->tags[k].key, tags[i].key) != 0)
                continue;
            if (tags[i].value && strcmp(gi->tags[k].value, tags[i].value) != 0)
                continue;
            free(gi->tags[k].key);
            free(gi->tags[k].value);
            memmove(&gi->tags[k], &gi->tags[k + 1],
                    (size_t)(gi->ntags - k - 1) * sizeof(gi->tags[0]));
            gi->ntags--;
            break;
        }
    }
    return SC_OK;
}

static enum sc_status metric_mask(const char *const *names, int n, unsigned *mask,
                                  struct sc_error *err)
{
    *mask = 0;
    if (n == 0) {
        *mask = (1u << SC_ASG_METRIC_COUNT) - 1;
        return SC_OK;
    }
    for (int i = 0; i < n; i++) {
        int found = -1;

        for (int m = 0; m < SC_ASG_METRIC_COUNT; m++)
            if (names[i] && strcmp(names[i], sc_asg_metric_str(m)) == 0)
                found = m;
        if (found < 0)
            return sc_fail(err, SC_ERR_VALIDATION, "Invalid metric name: %s",
                           names[i] ? names[i] : "null");
        *mask |= 1u << found;
    }
    return SC_OK;
}

enum sc_status sc_asg_enable_metrics_collection(struct sc_asg *asg, const char *group,
                                                const char *const *metrics, int nmetrics,
                                                const char *granularity, int64_t now_ms,
                                                struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    unsigned mask;
    enum sc_status st;

    (void)now_ms;
    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    if (!granularity || strcmp(granularity, "1Minute") != 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Invalid granularity: %s. The only valid granularity is 1Minute.",
                       granularity ? granularity : "null");
    st = metric_mask(metrics, nmetrics, &mask, err);
    if (st != SC_OK)
        return st;
    g->info.metrics_enabled |= mask;
    g->next_metrics_ms = INT64_MAX; /* put at the next step */
    return SC_OK;
}

enum sc_status sc_asg_disable_metrics_collection(struct sc_asg *asg, const char *group,
                                                 const char *const *metrics, int nmetrics,
                                                 int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    unsigned mask;
    enum sc_status st;

    (void)now_ms;
    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    st = metric_mask(metrics, nmetrics, &mask, err);
    if (st != SC_OK)
        return st;
    g->info.metrics_enabled &= ~mask;
    return SC_OK;
}
