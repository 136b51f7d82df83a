/* scaler/asg_activity.c: scaling activities (made, updated, ended, trimmed, listed) and
 * the deleted groups' activities (see asg.h). */
#include "scaler/asg.h"

#include <stdlib.h>
#include <string.h>

#include "scaler/asg_internal.h"

/* --- activities ---------------------------------------------------------------------------- */

void asg_activity_free(struct asg_activity *a)
{
    if (!a)
        return;
    free(a->info.auto_scaling_group_name);
    free(a->info.auto_scaling_group_arn);
    free(a->info.description);
    free(a->info.cause);
    free(a->info.status_message);
    free(a->info.details);
    free(a);
}

static int act_finished(const struct asg_activity *a)
{
    return a->info.end_ms != 0;
}

int asg_group_busy(const struct asg_group *g)
{
    /* remembered until an activity is made, finishes or is dropped */
    struct asg_group *memo = (struct asg_group *)g;

    if (!memo->busy_valid || memo->busy_made != g->acts_made || memo->busy_ver != g->acts_ver ||
        memo->busy_dropped != g->acts_dropped || memo->busy_nacts != g->nacts) {
        memo->busy = 0;
        for (int i = 0; i < g->nacts && !memo->busy; i++)
            memo->busy = !act_finished(g->acts[i]);
        memo->busy_made = g->acts_made;
        memo->busy_ver = g->acts_ver;
        memo->busy_dropped = g->acts_dropped;
        memo->busy_nacts = g->nacts;
        memo->busy_valid = 1;
    }
    return memo->busy;
}

/* The six-week rule: a finished activity is kept until ASG_ACTIVITY_KEEP_MS after its end. */
static int act_expired(const struct asg_activity *a, int64_t now_ms)
{
    return act_finished(a) && now_ms - a->info.end_ms > ASG_ACTIVITY_KEEP_MS;
}

/* The first instant act_expired() holds for a finished activity. */
static int64_t act_expiry_ms(const struct asg_activity *a)
{
    return a->info.end_ms + ASG_ACTIVITY_KEEP_MS + 1;
}

/* Drops the oldest finished activities beyond the bound (and those past six weeks). */
void asg_acts_trim(struct asg_group *g, int64_t now_ms)
{
    int finished = 0;
    int64_t next = INT64_MAX;

    if (g->nacts == g->trim_nacts && g->acts_ver == g->trim_ver && now_ms < g->trim_next_ms)
        return;
    for (int i = 0; i < g->nacts; i++)
        finished += act_finished(g->acts[i]);
    for (int i = 0; i < g->nacts;) {
        struct asg_activity *a = g->acts[i];

        if (act_finished(a) && (finished > SC_ASG_MAX_ACTIVITIES || act_expired(a, now_ms))) {
            asg_activity_free(a);
            memmove(&g->acts[i], &g->acts[i + 1], (size_t)(g->nacts - i - 1) * sizeof(g->acts[0]));
            g->nacts--;
            finished--;
            g->acts_dropped++;
        } else {
            if (act_finished(a) && act_expiry_ms(a) < next)
                next = act_expiry_ms(a);
            i++;
        }
    }
    g->trim_nacts = g->nacts;
    g->trim_ver = g->acts_ver;
    g->trim_next_ms = next;
}

static char *details_json(const char *subnet, const char *zone)
{
    if (subnet && subnet[0])
        return asg_asprintf("{\"Subnet ID\":\"%s\",\"Availability Zone\":\"%s\"}", subnet, zone);
    return asg_asprintf("{\"Availability Zone\":\"%s\"}", zone);
}

/* A new activity (NULL on OOM: the operation proceeds without its record). */
struct asg_activity *asg_act_new(struct sc_asg *asg, struct asg_group *g, int64_t now_ms,
                                 const char *description, const char *cause,
                                 const char *status_code, int progress, const char *subnet,
                                 const char *zone)
{
    struct asg_activity *a, **grown;

    asg_acts_trim(g, now_ms);
    a = calloc(1, sizeof(*a));
    if (!a)
        return NULL;
    sc_rng_uuid(asg->rng, a->info.activity_id);
    a->info.auto_scaling_group_name = sc_strdup(g->info.auto_scaling_group_name);
    a->info.auto_scaling_group_arn = sc_strdup(g->info.auto_scaling_group_arn);
    a->info.description = sc_strdup(description);
    a->info.cause = sc_strdup(cause);
    a->info.details = details_json(subnet, zone ? zone : "");
    a->info.start_ms = now_ms;
    a->info.status_code = status_code;
    a->info.progress = progress;
    a->seq = ++asg->seq;
    asg->acts_version++;
    if (!a->info.auto_scaling_group_name || !a->info.auto_scaling_group_arn ||
        !a->info.description || !a->info.cause || !a->info.details)
        goto fail;
    grown = realloc(g->acts, (size_t)(g->nacts + 1) * sizeof(*grown));
    if (!grown)
        goto fail;
    g->acts = grown;
    g->acts[g->nacts++] = a;
    g->acts_made++;
    return a;

fail:
    asg_activity_free(a);
    return NULL;
}

struct asg_activity *asg_act_of(const struct asg_group *g, const struct asg_inst *in)
{
    if (!in->activity_id[0])
        return NULL;
    for (int i = g->nacts - 1; i >= 0; i--)
        if (strcmp(g->acts[i]->info.activity_id, in->activity_id) == 0)
            return g->acts[i];
    return NULL;
}

void asg_act_set(struct asg_group *g, struct asg_inst *in, const char *status_code, int progress)
{
    struct asg_activity *a = asg_act_of(g, in);

    if (a && !act_finished(a)) {
        g->acts_ver++;
        a->info.status_code = status_code;
        a->info.progress = progress;
    }
}

void asg_act_end(struct asg_group *g, struct asg_inst *in, const char *status_code, int64_t now_ms)
{
    struct asg_activity *a = asg_act_of(g, in);

    if (a && !act_finished(a)) {
        g->acts_ver++;
        a->info.status_code = status_code;
        a->info.progress = 100;
        a->info.end_ms = now_ms > a->info.start_ms ? now_ms : a->info.start_ms + 1;
        if (a->info.end_ms == 0)
            a->info.end_ms = 1;
    }
    in->activity_id[0] = '\0';
}

uint64_t sc_asg_activity_version(const struct sc_asg *asg)
{
    return asg->acts_version;
}

int sc_asg_activity_count(const struct sc_asg *asg, const char *group)
{
    struct asg_group *g = asg_group_find(asg, group);

    return g ? g->nacts : -1;
}

const struct sc_asg_activity_info *sc_asg_activity_at(const struct sc_asg *asg, const char *group,
                                                      int i)
{
    struct asg_group *g = asg_group_find(asg, group);
    int k = 0;

    if (!g || i < 0 || i >= g->nacts)
        return NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (int j = g->nacts - 1; j >= 0; j--) {
            if (act_finished(g->acts[j]) != pass)
                continue;
            if (k++ == i)
                return &g->acts[j]->info;
        }
    }
    return NULL;
}

const struct sc_asg_activity_info *sc_asg_activity_find(const struct sc_asg *asg,
                                                        const char *activity_id)
{
    if (!activity_id)
        return NULL;
    for (int gi = 0; gi < asg->ngroups; gi++) {
        struct asg_group *g = asg->groups[gi];

        for (int j = 0; j < g->nacts; j++)
            if (strcmp(g->acts[j]->info.activity_id, activity_id) == 0)
                return &g->acts[j]->info;
    }
    for (int j = 0; j < asg->ndel_acts; j++)
        if (strcmp(asg->del_acts[j]->info.activity_id, activity_id) == 0)
            return &asg->del_acts[j]->info;
    return NULL;
}

/* --- deleted groups' activities --------------------------------------------------------- */

/* AWS order: in progress before finished, then newest (latest made) first. */
static int act_aws_cmp(const void *pa, const void *pb)
{
    const struct asg_activity *a = *(const struct asg_activity *const *)pa;
    const struct asg_activity *b = *(const struct asg_activity *const *)pb;

    if (act_finished(a) != act_finished(b))
        return act_finished(a) - act_finished(b);
    if (a->seq != b->seq)
        return a->seq > b->seq ? -1 : 1;
    return 0;
}

void asg_deleted_acts_sort(struct sc_asg *asg)
{
    if (asg->ndel_acts > 1)
        qsort(asg->del_acts, (size_t)asg->ndel_acts, sizeof(asg->del_acts[0]), act_aws_cmp);
    asg->del_trim_next_ms = INT64_MIN; /* look again at the next trim */
}

void asg_deleted_acts_trim(struct sc_asg *asg, int64_t now_ms)
{
    int64_t next = INT64_MAX;
    int kept = 0;

    if (now_ms < asg->del_trim_next_ms && asg->ndel_acts <= SC_ASG_MAX_DELETED_ACTIVITIES)
        return;
    for (int i = 0; i < asg->ndel_acts; i++) {
        struct asg_activity *a = asg->del_acts[i];

        /* the list is in AWS order: past the bound are the oldest */
        if (act_expired(a, now_ms) || kept >= SC_ASG_MAX_DELETED_ACTIVITIES) {
            asg_activity_free(a);
            continue;
        }
        if (act_finished(a) && act_expiry_ms(a) < next)
            next = act_expiry_ms(a);
        asg->del_acts[kept++] = a;
    }
    asg->ndel_acts = kept;
    asg->del_trim_next_ms = next;
}

void asg_deleted_acts_take(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    struct asg_activity **grown = NULL;

    if (g->nacts == 0)
        return;
    grown = realloc(asg->del_acts, (size_t)(asg->ndel_acts + g->nacts) * sizeof(*grown));
    if (!grown) {
        for (int k = 0; k < g->nacts; k++)
            asg_activity_free(g->acts[k]);
    } else {
        asg->del_acts = grown;
        for (int k = 0; k < g->nacts; k++) {
            g->acts[k]->info.group_deleted = 1;
            asg->del_acts[asg->ndel_acts++] = g->acts[k];
        }
        asg_deleted_acts_sort(asg);
    }
    g->nacts = 0;
    asg_deleted_acts_trim(asg, now_ms);
}

static int deleted_match(const struct asg_activity *a, const char *group)
{
    return !group || strcmp(a->info.auto_scaling_group_name, group) == 0;
}

int sc_asg_deleted_activity_count(const struct sc_asg *asg, const char *group)
{
    int n = 0;

    if (!group)
        return asg->ndel_acts;
    for (int j = 0; j < asg->ndel_acts; j++)
        n += deleted_match(asg->del_acts[j], group);
    return n;
}

const struct sc_asg_activity_info *sc_asg_deleted_activity_at(const struct sc_asg *asg,
                                                              const char *group, int i)
{
    if (i < 0)
        return NULL;
    if (!group)
        return i < asg->ndel_acts ? &asg->del_acts[i]->info : NULL;
    for (int j = 0; j < asg->ndel_acts; j++) {
        if (deleted_match(asg->del_acts[j], group) && i-- == 0)
            return &asg->del_acts[j]->info;
    }
    return NULL;
}

int sc_asg_group_busy(const struct sc_asg *asg, const char *group)
{
    struct asg_group *g = asg_group_find(asg, group);

    return g ? asg_group_busy(g) : 0;
}
