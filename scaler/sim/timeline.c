/* scaler/sim/timeline.c: streaming sinks plus a bounded, downsampled copy. */
#include "scaler/sim/timeline.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "scaler/asg_launch.h"
#include "scaler/decision.h"
#include "scaler/sim/elastic.h"
#include "scaler/sim/scenario.h"

struct kept_event {
    struct sim_event ev;
    char group[128];
    char name[256];
    char cause[SIM_EVENT_TEXT_MAX];
    char description[SIM_EVENT_TEXT_MAX];
    char status[32];
};

struct sink {
    sim_sample_fn on_sample;
    sim_event_fn on_event;
    void *ud;
};

struct sim_timeline {
    struct sim_timeline_config cfg; /* strings and arrays owned copies */
    char **group_names;
    struct sim_demand_basis *group_basis;
    struct sim_alarm_info *alarm_infos;

    struct sink sinks[SIM_TIMELINE_MAX_SINKS];
    int nsinks;

    struct sim_bucket *buckets;
    struct sim_group_bucket *group_store; /* max_buckets * ngroups */
    double *alarm_alarm_store;            /* max_buckets * nalarms */
    double *alarm_insuff_store;
    enum sim_alarm_state *alarm_last_store;
    int nbuckets;
    int64_t span_samples; /* samples per full bucket: 2^k */

    struct kept_event *events;
    int nevents;
    uint64_t event_stride; /* admit every stride-th pushed event */
    uint64_t events_pushed;
    uint64_t samples_pushed;

    struct sim_sample last;
    struct sim_group_sample *last_groups;
    enum sim_alarm_state *last_alarms;
    int have_last;
};

const char *sim_alarm_state_str(enum sim_alarm_state s)
{
    switch (s) {
    case SIM_ALARM_OK:
        return "OK";
    case SIM_ALARM_ALARM:
        return "ALARM";
    case SIM_ALARM_INSUFFICIENT_DATA:
        return "INSUFFICIENT_DATA";
    }
    return "?";
}

struct sim_timeline *sim_timeline_create(const struct sim_timeline_config *cfg)
{
    struct sim_timeline *tl;
    size_t nb, ng, na;

    if (!cfg || cfg->interval_ms <= 0 || cfg->ngroups < 0 ||
        cfg->ngroups > SIM_TIMELINE_MAX_GROUPS || cfg->nalarms < 0 ||
        cfg->nalarms > SIM_TIMELINE_MAX_ALARMS || cfg->max_buckets == 1 || cfg->max_buckets < 0 ||
        cfg->max_events == 1 || cfg->max_events < 0)
        return NULL;
    if (cfg->ngroups > 0 && !cfg->group_names)
        return NULL;
    if (cfg->nalarms > 0 && !cfg->alarms)
        return NULL;
    for (int i = 0; i < cfg->ngroups; i++)
        if (!cfg->group_names[i])
            return NULL;
    for (int i = 0; i < cfg->nalarms; i++)
        if (!cfg->alarms[i].name)
            return NULL;

    tl = cm_xcalloc(1, sizeof(*tl));
    tl->cfg = *cfg;
    if (!tl->cfg.max_buckets)
        tl->cfg.max_buckets = SIM_TIMELINE_DEFAULT_BUCKETS;
    if (!tl->cfg.max_events)
        tl->cfg.max_events = SIM_TIMELINE_DEFAULT_EVENTS;
    tl->cfg.scenario_name = cm_xstrdup(cfg->scenario_name ? cfg->scenario_name : "");
    ng = (size_t)cfg->ngroups;
    na = (size_t)cfg->nalarms;
    nb = (size_t)tl->cfg.max_buckets;
    tl->group_names = cm_xcalloc(ng + 1, sizeof(char *));
    for (size_t i = 0; i < ng; i++)
        tl->group_names[i] = cm_xstrdup(cfg->group_names[i]);
    tl->cfg.group_names = (const char *const *)tl->group_names;
    tl->group_basis = NULL;
    if (cfg->group_basis) {
        tl->group_basis = cm_xcalloc(ng + 1, sizeof(*tl->group_basis));
        memcpy(tl->group_basis, cfg->group_basis, ng * sizeof(*tl->group_basis));
    }
    tl->cfg.group_basis = tl->group_basis;
    tl->alarm_infos = cm_xcalloc(na + 1, sizeof(*tl->alarm_infos));
    for (size_t i = 0; i < na; i++) {
        const struct sim_alarm_info *a = &cfg->alarms[i];
        tl->alarm_infos[i].name = cm_xstrdup(a->name);
        tl->alarm_infos[i].metric = cm_xstrdup(a->metric ? a->metric : "");
        tl->alarm_infos[i].comparison = cm_xstrdup(a->comparison ? a->comparison : "");
        tl->alarm_infos[i].threshold = a->threshold;
        tl->alarm_infos[i].alarm_rule = a->alarm_rule ? cm_xstrdup(a->alarm_rule) : NULL;
    }
    tl->cfg.alarms = tl->alarm_infos;

    tl->buckets = cm_xcalloc(nb, sizeof(*tl->buckets));
    tl->group_store = cm_xcalloc(nb * ng + 1, sizeof(*tl->group_store));
    tl->alarm_alarm_store = cm_xcalloc(nb * na + 1, sizeof(double));
    tl->alarm_insuff_store = cm_xcalloc(nb * na + 1, sizeof(double));
    tl->alarm_last_store = cm_xcalloc(nb * na + 1, sizeof(enum sim_alarm_state));
    for (size_t i = 0; i < nb; i++) {
        tl->buckets[i].groups = tl->group_store + i * ng;
        tl->buckets[i].alarm_in_alarm = tl->alarm_alarm_store + i * na;
        tl->buckets[i].alarm_insufficient = tl->alarm_insuff_store + i * na;
        tl->buckets[i].alarm_last = tl->alarm_last_store + i * na;
    }
    tl->span_samples = 1;
    tl->events = cm_xcalloc((size_t)tl->cfg.max_events, sizeof(*tl->events));
    tl->event_stride = 1;
    tl->last_groups = cm_xcalloc(ng + 1, sizeof(*tl->last_groups));
    tl->last_alarms = cm_xcalloc(na + 1, sizeof(*tl->last_alarms));
    return tl;
}

void sim_timeline_destroy(struct sim_timeline *tl)
{
    if (!tl)
        return;
    for (int i = 0; i < tl->cfg.ngroups; i++)
        free(tl->group_names[i]);
    free(tl->group_names);
    free(tl->group_basis);
    for (int i = 0; i < tl->cfg.nalarms; i++) {
        free((char *)tl->alarm_infos[i].name);
        free((char *)tl->alarm_infos[i].metric);
        free((char *)tl->alarm_infos[i].comparison);
        free((char *)tl->alarm_infos[i].alarm_rule);
    }
    free(tl->alarm_infos);
    free((char *)tl->cfg.scenario_name);
    free(tl->buckets);
    free(tl->group_store);
    free(tl->alarm_alarm_store);
    free(tl->alarm_insuff_store);
    free(tl->alarm_last_store);
    free(tl->events);
    free(tl->last_groups);
    free(tl->last_alarms);
    free(tl);
}

int sim_timeline_add_sink(struct sim_timeline *tl, sim_sample_fn on_sample, sim_event_fn on_event,
                          void *ud)
{
    if (tl->nsinks >= SIM_TIMELINE_MAX_SINKS)
        return -1;
    tl->sinks[tl->nsinks].on_sample = on_sample;
    tl->sinks[tl->nsinks].on_event = on_event;
    tl->sinks[tl->nsinks].ud = ud;
    tl->nsinks++;
    return 0;
}

static void stat_set(struct sim_stat *s, double v)
{
    if (isnan(v)) {
        s->min = s->mean = s->max = NAN;
        s->n = 0;
        return;
    }
    s->min = s->mean = s->max = v;
    s->n = 1;
}

static void stat_merge(struct sim_stat *dst, const struct sim_stat *src)
{
    if (src->n == 0)
        return;
    if (dst->n == 0) {
        *dst = *src;
        return;
    }
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->mean = (dst->mean * dst->n + src->mean * src->n) / (double)(dst->n + src->n);
    dst->n += src->n;
}

/* Merges bucket b into bucket a (a earlier), keeping a's storage. */
static void bucket_merge(struct sim_timeline *tl, struct sim_bucket *a, const struct sim_bucket *b)
{
    double wa = a->nsamples, wb = b->nsamples, w = wa + wb;
    struct sim_group_bucket *ga = (struct sim_group_bucket *)a->groups;
    double *aa = (double *)a->alarm_in_alarm, *ai = (double *)a->alarm_insufficient;
    enum sim_alarm_state *al = (enum sim_alarm_state *)a->alarm_last;

    a->t1_ms = b->t1_ms;
    stat_merge(&a->load, &b->load);
    stat_merge(&a->offered_rps, &b->offered_rps);
    stat_merge(&a->p50_ms, &b->p50_ms);
    stat_merge(&a->p99_ms, &b->p99_ms);
    stat_merge(&a->error_pct, &b->error_pct);
    a->completed += b->completed;
    a->failed += b->failed;
    a->load_is_clients = b->load_is_clients;
    for (int g = 0; g < tl->cfg.ngroups; g++) {
        stat_merge(&ga[g].desired, &b->groups[g].desired);
        stat_merge(&ga[g].in_service, &b->groups[g].in_service);
        stat_merge(&ga[g].pending, &b->groups[g].pending);
        stat_merge(&ga[g].terminating, &b->groups[g].terminating);
        stat_merge(&ga[g].warm_billed, &b->groups[g].warm_billed);
        stat_merge(&ga[g].cpu_pct, &b->groups[g].cpu_pct);
        stat_merge(&ga[g].demand, &b->groups[g].demand);
    }
    for (int i = 0; i < tl->cfg.nalarms; i++) {
        aa[i] = (aa[i] * wa + b->alarm_in_alarm[i] * wb) / w;
        ai[i] = (ai[i] * wa + b->alarm_insufficient[i] * wb) / w;
        al[i] = b->alarm_last[i];
    }
    a->nsamples += b->nsamples;
}

/* Copies bucket src's contents into dst's storage. */
static void bucket_copy(struct sim_timeline *tl, struct sim_bucket *dst,
                        const struct sim_bucket *src)
{
    struct sim_group_bucket *g = (struct sim_group_bucket *)dst->groups;
    double *aa = (double *)dst->alarm_in_alarm, *ai = (double *)dst->alarm_insufficient;
    enum sim_alarm_state *al = (enum sim_alarm_state *)dst->alarm_last;
    const struct sim_group_bucket *sg = src->groups;
    const double *saa = src->alarm_in_alarm, *sai = src->alarm_insufficient;
    const enum sim_alarm_state *sal = src->alarm_last;
    size_t ng = (size_t)tl->cfg.ngroups, na = (size_t)tl->cfg.nalarms;

    if (dst == src)
        return;
    *dst = *src;
    dst->groups = g;
    dst->alarm_in_alarm = aa;
    dst->alarm_insufficient = ai;
    dst->alarm_last = al;
    memmove(g, sg, ng * sizeof(*g));
    memmove(aa, saa, na * sizeof(*aa));
    memmove(ai, sai, na * sizeof(*ai));
    memmove(al, sal, na * sizeof(*al));
}

static void buckets_halve(struct sim_timeline *tl)
{
    int n = tl->nbuckets, out = 0;

    for (int i = 0; i < n; i += 2) {
        struct sim_bucket *a = &tl->buckets[i];
        bucket_copy(tl, &tl->buckets[out], a);
        if (i + 1 < n)
            bucket_merge(tl, &tl->buckets[out], &tl->buckets[i + 1]);
        out++;
    }
    tl->nbuckets = out;
    tl->span_samples *= 2;
}

static void bucket_from_sample(struct sim_timeline *tl, struct sim_bucket *b,
                               const struct sim_sample *s)
{
    struct sim_group_bucket *g = (struct sim_group_bucket *)b->groups;
    double *aa = (double *)b->alarm_in_alarm, *ai = (double *)b->alarm_insufficient;
    enum sim_alarm_state *al = (enum sim_alarm_state *)b->alarm_last;

    b->t0_ms = s->t_ms - s->interval_ms;
    b->t1_ms = s->t_ms;
    b->nsamples = 1;
    stat_set(&b->load, s->load);
    stat_set(&b->offered_rps, s->offered_rps);
    stat_set(&b->p50_ms, s->p50_ms);
    stat_set(&b->p99_ms, s->p99_ms);
    stat_set(&b->error_pct, s->error_pct);
    b->completed = s->completed;
    b->failed = s->failed;
    b->load_is_clients = s->load_is_clients;
    for (int i = 0; i < tl->cfg.ngroups; i++) {
        stat_set(&g[i].desired, s->groups[i].desired);
        stat_set(&g[i].in_service, s->groups[i].in_service);
        stat_set(&g[i].pending, s->groups[i].pending);
        stat_set(&g[i].terminating, s->groups[i].terminating);
        stat_set(&g[i].warm_billed, s->groups[i].warm_billed);
        stat_set(&g[i].cpu_pct, s->groups[i].cpu_pct);
        stat_set(&g[i].demand, s->groups[i].demand);
    }
    for (int i = 0; i < tl->cfg.nalarms; i++) {
        aa[i] = s->alarms[i] == SIM_ALARM_ALARM;
        ai[i] = s->alarms[i] == SIM_ALARM_INSUFFICIENT_DATA;
        al[i] = s->alarms[i];
    }
}

static void fold_sample(struct sim_timeline *tl, const struct sim_sample *s)
{
    struct sim_group_bucket g[SIM_TIMELINE_MAX_GROUPS];
    double aa[SIM_TIMELINE_MAX_ALARMS], ai[SIM_TIMELINE_MAX_ALARMS];
    enum sim_alarm_state al[SIM_TIMELINE_MAX_ALARMS];
    struct sim_bucket one = { 0 };

    if (tl->nbuckets == tl->cfg.max_buckets &&
        tl->buckets[tl->nbuckets - 1].nsamples >= tl->span_samples)
        buckets_halve(tl);
    if (tl->nbuckets == 0 || tl->buckets[tl->nbuckets - 1].nsamples >= tl->span_samples) {
        bucket_from_sample(tl, &tl->buckets[tl->nbuckets], s);
        tl->nbuckets++;
        return;
    }
    one.groups = g;
    one.alarm_in_alarm = aa;
    one.alarm_insufficient = ai;
    one.alarm_last = al;
    bucket_from_sample(tl, &one, s);
    bucket_merge(tl, &tl->buckets[tl->nbuckets - 1], &one);
}

void sim_timeline_push_sample(struct sim_timeline *tl, const struct sim_sample *s)
{
    assert(s->ngroups == tl->cfg.ngroups && s->nalarms == tl->cfg.nalarms);
    assert(!tl->have_last || s->t_ms > tl->last.t_ms);

    for (int i = 0; i < tl->nsinks; i++)
        if (tl->sinks[i].on_sample)
            tl->sinks[i].on_sample(s, tl->sinks[i].ud);
    fold_sample(tl, s);

    tl->samples_pushed++;
    tl->last = *s;
    /* memcpy from NULL is undefined even for zero bytes: scenarios may have no alarms. */
    if (s->ngroups > 0)
        memcpy(tl->last_groups, s->groups, (size_t)s->ngroups * sizeof(*s->groups));
    if (s->nalarms > 0)
        memcpy(tl->last_alarms, s->alarms, (size_t)s->nalarms * sizeof(*s->alarms));
    tl->last.groups = tl->last_groups;
    tl->last.alarms = tl->last_alarms;
    tl->have_last = 1;
}

static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t n;

    if (!src) {
        dst[0] = '\0';
        return;
    }
    n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void event_fix_pointers(struct kept_event *k, int has_group, int has_name)
{
    k->ev.group = has_group ? k->group : NULL;
    k->ev.name = has_name ? k->name : NULL;
    k->ev.cause = k->cause;
    k->ev.description = k->description;
    k->ev.status = k->status;
    k->ev.decision = NULL; /* borrowed only during the push */
    k->ev.hook = NULL;
    k->ev.launch = NULL;
}

void sim_timeline_push_event(struct sim_timeline *tl, const struct sim_event *e)
{
    struct kept_event *k;
    uint64_t idx = tl->events_pushed++;

    for (int i = 0; i < tl->nsinks; i++)
        if (tl->sinks[i].on_event)
            tl->sinks[i].on_event(e, tl->sinks[i].ud);

    if (idx % tl->event_stride != 0)
        return;
    if (tl->nevents == tl->cfg.max_events) {
        int out = 0;
        for (int i = 0; i < tl->nevents; i += 2) {
            if (out != i) {
                tl->events[out] = tl->events[i];
                event_fix_pointers(&tl->events[out], tl->events[i].ev.group != NULL,
                                   tl->events[i].ev.name != NULL);
            }
            out++;
        }
        tl->nevents = out;
        tl->event_stride *= 2;
        if (idx % tl->event_stride != 0)
            return;
    }
    k = &tl->events[tl->nevents++];
    k->ev = *e;
    copy_text(k->group, sizeof(k->group), e->group);
    copy_text(k->name, sizeof(k->name), e->name);
    copy_text(k->cause, sizeof(k->cause), e->cause);
    copy_text(k->description, sizeof(k->description), e->description);
    copy_text(k->status, sizeof(k->status), e->status);
    event_fix_pointers(k, e->group != NULL, e->name != NULL);
}

const struct sim_timeline_config *sim_timeline_config(const struct sim_timeline *tl)
{
    return &tl->cfg;
}

int sim_timeline_bucket_count(const struct sim_timeline *tl)
{
    return tl->nbuckets;
}

const struct sim_bucket *sim_timeline_bucket(const struct sim_timeline *tl, int i)
{
    assert(i >= 0 && i < tl->nbuckets);
    return &tl->buckets[i];
}

int64_t sim_timeline_bucket_span_ms(const struct sim_timeline *tl)
{
    return tl->cfg.interval_ms * tl->span_samples;
}

int sim_timeline_event_count(const struct sim_timeline *tl)
{
    return tl->nevents;
}

const struct sim_event *sim_timeline_event(const struct sim_timeline *tl, int i)
{
    assert(i >= 0 && i < tl->nevents);
    return &tl->events[i].ev;
}

uint64_t sim_timeline_samples_pushed(const struct sim_timeline *tl)
{
    return tl->samples_pushed;
}

uint64_t sim_timeline_events_pushed(const struct sim_timeline *tl)
{
    return tl->events_pushed;
}

const struct sim_sample *sim_timeline_last_sample(const struct sim_timeline *tl)
{
    return tl->have_last ? &tl->last : NULL;
}

void sim_event_from_decision(struct sim_event *se, const struct sc_decision *d, char *line,
                             size_t n)
{
    memset(se, 0, sizeof(*se));
    sc_decision_format(d, line, n);
    se->kind = SIM_EVENT_DECISION;
    se->t_ms = se->end_ms = d->time_ms;
    se->group = d->group;
    se->name = d->policy;
    se->cause = d->arithmetic;
    se->status = d->reason == SC_DECISION_CHANGED ? "changed" : sc_decision_reason_name(d->reason);
    se->description = line;
    se->decision = d;
}

void sim_event_from_hook(struct sim_event *se, const struct sc_hook_note *h, char *line, size_t n)
{
    memset(se, 0, sizeof(*se));
    sc_hook_note_format(h, line, n);
    se->kind = SIM_EVENT_HOOK;
    se->t_ms = se->end_ms = h->time_ms;
    se->group = h->group;
    se->name = h->hook;
    se->cause = sc_hook_note_kind_name(h->kind);
    se->status = h->result;
    se->description = line;
    se->hook = h;
}

void sim_event_from_launch(struct sim_event *se, int64_t t_ms, const char *group,
                           const struct sim_launch *l, const char *token,
                           const struct sc_asg_launch_info *rep, const char *code,
                           const char *message, char *cause, size_t ncause, char *line, size_t n)
{
    size_t k = 0;
    int launched = 0;

    memset(se, 0, sizeof(*se));
    snprintf(cause, ncause, "RequestedCapacity %d%s%s%s%s", l->requested_capacity,
             l->zone ? ", AvailabilityZones " : "", l->zone ? l->zone : "",
             l->retry_strategy ? ", RetryStrategy " : "",
             l->retry_strategy ? l->retry_strategy : "");
    se->kind = SIM_EVENT_LAUNCH;
    se->t_ms = se->end_ms = t_ms;
    se->group = group;
    se->name = token;
    se->cause = cause;
    se->description = line;
    line[0] = '\0';
    if (!rep) {
        se->status = code ? code : "";
        snprintf(line, n, "%s", message ? message : "");
        return;
    }
    se->launch = rep;
    for (int i = 0; i < rep->ninstances; i++) {
        const struct sc_asg_launch_item *it = &rep->instances[i];

        launched += it->ninstance_ids;
        if (k < n)
            k += (size_t)snprintf(line + k, n - k, "%slaunched %d (%s in %s):", i ? "; " : "",
                                  it->ninstance_ids, it->instance_type[0] ? it->instance_type : "-",
                                  it->availability_zone);
        for (int j = 0; j < it->ninstance_ids && k < n; j++)
            k += (size_t)snprintf(line + k, n - k, " %s", it->instance_ids[j]);
    }
    if (rep->ninstances == 0 && k < n)
        k += (size_t)snprintf(line + k, n - k, "launched none");
    for (int i = 0; i < rep->nerrors && k < n; i++)
        k += (size_t)snprintf(line + k, n - k, "; %s: %s", rep->errors[i].error_code,
                              rep->errors[i].error_message);
    se->status = rep->nerrors == 0 ? "Successful" : launched > 0 ? "Partial" : "Failed";
}
