/* scaler/asg_sched.c: scheduled actions, their cron recurrences and their runs (see
 * asg_sched.h, docs/autoscaling.md section 5). */
#include "scaler/asg_sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "scaler/asg_internal.h"
#include "scaler/civil.h"
#include "scaler/save.h"

#define MIN_MS    60000LL
#define DAY_MS    86400000LL
#define SCAN_DAYS (8 * 366) /* "0 0 29 2 1" still matches within it */

/* --- cron ---------------------------------------------------------------------------------- */

struct cron {
    uint64_t minute; /* bit 0..59 */
    uint32_t hour;   /* 0..23 */
    uint32_t dom;    /* 1..31 */
    uint32_t month;  /* 1..12 */
    uint32_t dow;    /* 0..6, Sunday 0 (7 read as 0) */
    int dom_star, dow_star;
};

static const char *const month_names[] = { "JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                           "JUL", "AUG", "SEP", "OCT", "NOV", "DEC" };
static const char *const dow_names[] = { "SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT" };

/* One number (or, for months and days, a three-letter name) at *s; -1 when none. */
static int cron_num(const char **s, const char *const *names, int nnames, int name_base)
{
    int v = 0, n = 0;

    for (int k = 0; names && k < nnames; k++)
        if (strncasecmp(*s, names[k], 3) == 0) {
            *s += 3;
            return k + name_base;
        }
    while (**s >= '0' && **s <= '9' && n < 3) {
        v = v * 10 + (**s - '0');
        (*s)++;
        n++;
    }
    return n ? v : -1;
}

/* One field (list of *, a, a-b, each with an optional /step) into bits lo..hi. */
static int cron_field(const char *f, int lo, int hi, const char *const *names, int nnames,
                      int name_base, uint64_t *bits, int *star)
{
    const char *s = f;

    *bits = 0;
    *star = strcmp(f, "*") == 0;
    for (;;) {
        int a, b, step = 1;

        if (*s == '*') {
            a = lo;
            b = hi;
            s++;
        } else {
            a = cron_num(&s, names, nnames, name_base);
            if (a < 0)
                return -1;
            b = a;
            if (*s == '-') {
                s++;
                b = cron_num(&s, names, nnames, name_base);
                if (b < 0)
                    return -1;
            }
        }
        if (*s == '/') {
            s++;
            step = cron_num(&s, NULL, 0, 0);
            if (step <= 0)
                return -1;
        }
        if (a < lo || b > hi || a > b)
            return -1;
        for (int v = a; v <= b; v += step)
            *bits |= 1ULL << v;
        if (*s == '\0')
            return 0;
        if (*s != ',')
            return -1;
        s++;
    }
}

static int cron_parse(const char *r, struct cron *c)
{
    char buf[256], *fields[6], *save = NULL, *tok;
    int n = 0;
    uint64_t b;
    int star;

    if (!r || strlen(r) >= sizeof(buf))
        return -1;
    memset(c, 0, sizeof(*c));
    snprintf(buf, sizeof(buf), "%s", r);
    for (tok = strtok_r(buf, " \t", &save); tok && n < 6; tok = strtok_r(NULL, " \t", &save))
        fields[n++] = tok;
    if (n != 5 || tok)
        return -1;
    if (cron_field(fields[0], 0, 59, NULL, 0, 0, &c->minute, &star) ||
        cron_field(fields[1], 0, 23, NULL, 0, 0, &b, &star))
        return -1;
    c->hour = (uint32_t)b;
    if (cron_field(fields[2], 1, 31, NULL, 0, 0, &b, &c->dom_star))
        return -1;
    c->dom = (uint32_t)b;
    if (cron_field(fields[3], 1, 12, month_names, 12, 1, &b, &star))
        return -1;
    c->month = (uint32_t)b;
    if (cron_field(fields[4], 0, 7, dow_names, 7, 0, &b, &c->dow_star))
        return -1;
    if (b & (1ULL << 7))
        b |= 1; /* 7 is Sunday too */
    c->dow = (uint32_t)(b & 0x7f);
    return 0;
}

int sc_asg_recurrence_valid(const char *recurrence)
{
    struct cron c;

    return cron_parse(recurrence, &c);
}

typedef int (*tz_fn)(void *ud, const char *zone, int64_t utc_ms, int *offset_s);

/* UTC offset of zone at utc_ms in ms (0 for UTC or without a zone function). */
static int64_t offset_ms(tz_fn tz, void *ud, const char *zone, int64_t utc_ms)
{
    int off = 0;

    if (!zone || !tz || tz(ud, zone, utc_ms, &off) != 0)
        return 0;
    return (int64_t)off * 1000;
}

/* Standard cron day rule: when both are restricted, either matches. */
static int day_matches(const struct cron *c, const struct sc_civil *d, int dow)
{
    int dm = (c->dom >> d->day) & 1u, wm = (c->dow >> dow) & 1u;

    if (!((c->month >> d->month) & 1u))
        return 0;
    if (c->dom_star && c->dow_star)
        return 1;
    if (c->dom_star)
        return wm;
    if (c->dow_star)
        return dm;
    return dm || wm;
}

static int64_t cron_next(const struct cron *c, int64_t after_ms, tz_fn tz, void *ud,
                         const char *zone)
{
    int64_t off = offset_ms(tz, ud, zone, after_ms);
    int64_t local = after_ms + off, day0 = local - ((local % DAY_MS) + DAY_MS) % DAY_MS;

    for (int d = 0; d < SCAN_DAYS; d++) {
        int64_t day = day0 + d * DAY_MS;
        struct sc_civil cv;
        int dow = (int)(((day / DAY_MS) % 7 + 7 + 4) % 7); /* 1970-01-01 was a Thursday */

        sc_civil_from_ms(day, &cv);
        if (!day_matches(c, &cv, dow))
            continue;
        for (int h = 0; h < 24; h++) {
            if (!((c->hour >> h) & 1u))
                continue;
            for (int m = 0; m < 60; m++) {
                int64_t l = day + h * 3600000LL + m * MIN_MS, o, utc;

                /* well before after_ms whatever the offsets (they differ by hours at most) */
                if (!((c->minute >> m) & 1u) || l < local - 3 * 3600000LL)
                    continue;
                o = offset_ms(tz, ud, zone, l - off);
                utc = l - o;
                if (offset_ms(tz, ud, zone, utc) != o) /* a local time skipped by DST */
                    continue;
                if (utc > after_ms)
                    return utc;
            }
        }
    }
    return -1;
}

int64_t sc_asg_recurrence_next(const char *recurrence, int64_t after_ms, tz_fn tz, void *ud,
                               const char *zone)
{
    struct cron c;

    if (cron_parse(recurrence, &c) != 0)
        return -1;
    return cron_next(&c, after_ms, tz, ud, zone);
}

/* --- records --------------------------------------------------------------------------------- */

static void sched_free(struct asg_sched *s)
{
    struct sc_asg_sched_info *i;

    if (!s)
        return;
    i = &s->info;
    free(i->auto_scaling_group_name);
    free(i->scheduled_action_name);
    free(i->scheduled_action_arn);
    free(i->recurrence);
    free(i->time_zone);
    free(s);
}

void asg_scheds_free(struct asg_group *g)
{
    for (int i = 0; i < g->nscheds; i++)
        sched_free(g->scheds[i]);
    free(g->scheds);
    g->scheds = NULL;
    g->nscheds = 0;
}

static int sched_index(const struct asg_group *g, const char *name)
{
    for (int i = 0; name && i < g->nscheds; i++)
        if (strcmp(g->scheds[i]->info.scheduled_action_name, name) == 0)
            return i;
    return -1;
}

static int utc_zone(const char *z)
{
    return !z || strcmp(z, "UTC") == 0 || strcmp(z, "Etc/UTC") == 0 || strcmp(z, "GMT") == 0 ||
           strcmp(z, "Etc/GMT") == 0;
}

static const char *zone_of(const struct asg_sched *s)
{
    return utc_zone(s->info.time_zone) ? NULL : s->info.time_zone;
}

/* The checks of a request (docs/autoscaling.md 5.1), and its first run into *first. */
static enum sc_status sched_check(struct sc_asg *asg, const struct asg_group *g,
                                  const struct sc_asg_sched_req *r, int64_t now_ms, int64_t *first,
                                  struct sc_error *err)
{
    int k = sched_index(g, r->scheduled_action_name);
    int off;

    if (!r->scheduled_action_name || !r->scheduled_action_name[0])
        return sc_fail(err, SC_ERR_VALIDATION, "Scheduled action name must not be empty.");
    if (!r->has_min_size && !r->has_max_size && !r->has_desired_capacity)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "At least one of max size, min size, or desired capacity must be specified");
    if (r->has_desired_capacity && r->desired_capacity < 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Desired capacity must be non-negative");
    if (r->has_min_size && r->min_size < 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Min size must be non-negative");
    if (r->has_max_size && r->max_size < 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Max size must be non-negative");
    if (r->has_min_size && r->has_max_size && r->min_size > r->max_size)
        return sc_fail(err, SC_ERR_VALIDATION, "Min size must be less than or equal to max size");
    if (r->has_desired_capacity && r->has_max_size && r->desired_capacity > r->max_size)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Desired capacity must be less than or equal to max size");
    if (r->has_desired_capacity && r->has_min_size && r->desired_capacity < r->min_size)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Desired capacity must be greater than or equal to min size");
    if (r->recurrence && sc_asg_recurrence_valid(r->recurrence) != 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Given recurrence string: %s is invalid",
                       r->recurrence);
    if (r->time_zone && !utc_zone(r->time_zone) &&
        (!asg->env.tz_offset || asg->env.tz_offset(asg->env.ud, r->time_zone, now_ms, &off) != 0))
        return sc_fail(err, SC_ERR_VALIDATION, "Invalid time zone: %s", r->time_zone);
    if (!r->has_start_time && !r->recurrence)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "Scheduled start time must be specified for non-recurrent future group action");
    if (r->has_start_time && r->start_ms < now_ms)
        return sc_fail(err, SC_ERR_VALIDATION, "Given start time is in the past");
    if (r->has_end_time && r->end_ms < now_ms)
        return sc_fail(err, SC_ERR_VALIDATION, "Given end time is in the past");
    if (r->has_end_time && r->has_start_time && r->end_ms <= r->start_ms)
        return sc_fail(err, SC_ERR_VALIDATION, "Given end time must be after start time");
    if (r->has_start_time) {
        *first = r->start_ms;
    } else {
        *first = sc_asg_recurrence_next(r->recurrence, now_ms, asg->env.tz_offset, asg->env.ud,
                                        utc_zone(r->time_zone) ? NULL : r->time_zone);
        if (*first < 0)
            return sc_fail(err, SC_ERR_VALIDATION, "Given recurrence string: %s is invalid",
                           r->recurrence);
    }
    for (int i = 0; i < g->nscheds; i++)
        if (i != k && g->scheds[i]->info.start_ms == *first)
            return sc_fail(err, SC_ERR_ALREADY_EXISTS,
                           "Scheduled action with this scheduled start time already exists");
    if (k < 0 && g->nscheds >= SC_ASG_MAX_SCHEDULED_ACTIONS)
        return sc_fail(
            err, SC_ERR_LIMIT_EXCEEDED,
            "Unable to create the scheduled action. The maximum number of scheduled actions allowed per Auto Scaling group (%d) has been reached.",
            SC_ASG_MAX_SCHEDULED_ACTIONS);
    return SC_OK;
}

enum sc_status sc_asg_put_scheduled_action(struct sc_asg *asg, const struct sc_asg_sched_req *r,
                                           int64_t now_ms, struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, r->auto_scaling_group_name);
    struct asg_sched *s, **grown;
    int64_t first = 0;
    enum sc_status st;
    int k, bad = 0;
    char uuid[SC_RNG_UUID_LEN];

    if (!g || g->deleting)
        return sc_asg_group_not_found(r->auto_scaling_group_name, err);
    st = sched_check(asg, g, r, now_ms, &first, err);
    if (st != SC_OK)
        return st;
    k = sched_index(g, r->scheduled_action_name);
    s = calloc(1, sizeof(*s));
    if (!s)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    s->info.auto_scaling_group_name = sc_strdup(g->info.auto_scaling_group_name);
    s->info.scheduled_action_name = sc_strdup(r->scheduled_action_name);
    if (k >= 0) {
        s->info.scheduled_action_arn = sc_strdup(g->scheds[k]->info.scheduled_action_arn);
    } else {
        sc_rng_uuid(asg->rng, uuid);
        s->info.scheduled_action_arn = asg_asprintf(
            "arn:aws:autoscaling:%s:%s:scheduledUpdateGroupAction:%s:autoScalingGroupName/%s:scheduledActionName/%s",
            asg->region, asg->account, uuid, g->info.auto_scaling_group_name,
            r->scheduled_action_name);
    }
    bad |= sc_strdup_opt(&s->info.recurrence, r->recurrence);
    bad |= sc_strdup_opt(&s->info.time_zone, r->time_zone);
    s->info.start_ms = first;
    s->info.has_end_time = r->has_end_time;
    s->info.end_ms = r->end_ms;
    s->info.has_min_size = r->has_min_size;
    s->info.min_size = r->min_size;
    s->info.has_max_size = r->has_max_size;
    s->info.max_size = r->max_size;
    s->info.has_desired_capacity = r->has_desired_capacity;
    s->info.desired_capacity = r->desired_capacity;
    if (bad || !s->info.auto_scaling_group_name || !s->info.scheduled_action_name ||
        !s->info.scheduled_action_arn) {
        sched_free(s);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    if (k >= 0) {
        sched_free(g->scheds[k]);
        g->scheds[k] = s;
        return SC_OK;
    }
    grown = realloc(g->scheds, (size_t)(g->nscheds + 1) * sizeof(*grown));
    if (!grown) {
        sched_free(s);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    g->scheds = grown;
    g->scheds[g->nscheds++] = s;
    return SC_OK;
}

static void sched_remove(struct asg_group *g, int k)
{
    sched_free(g->scheds[k]);
    memmove(&g->scheds[k], &g->scheds[k + 1], (size_t)(g->nscheds - k - 1) * sizeof(*g->scheds));
    g->nscheds--;
}

enum sc_status sc_asg_delete_scheduled_action(struct sc_asg *asg, const char *group,
                                              const char *name, int64_t now_ms,
                                              struct sc_error *err)
{
    struct asg_group *g = asg_group_find(asg, group);
    int k;

    (void)now_ms;
    if (!g || g->deleting)
        return sc_asg_group_not_found(group, err);
    k = sched_index(g, name);
    if (k < 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Scheduled action name not found");
    sched_remove(g, k);
    return SC_OK;
}

int sc_asg_scheduled_action_count(const struct sc_asg *asg, const char *group)
{
    const struct asg_group *g;
    int n = 0;

    if (group) {
        g = asg_group_find(asg, group);
        return g && !g->deleting ? g->nscheds : -1;
    }
    for (int i = 0; i < asg->ngroups; i++)
        n += asg->groups[i]->deleting ? 0 : asg->groups[i]->nscheds;
    return n;
}

const struct sc_asg_sched_info *sc_asg_scheduled_action_at(const struct sc_asg *asg,
                                                           const char *group, int i)
{
    if (group) {
        const struct asg_group *g = asg_group_find(asg, group);

        return g && i >= 0 && i < g->nscheds ? &g->scheds[i]->info : NULL;
    }
    for (int k = 0; k < asg->ngroups; k++) {
        const struct asg_group *g = asg->groups[k];

        if (g->deleting)
            continue;
        if (i < g->nscheds)
            return &g->scheds[i]->info;
        i -= g->nscheds;
    }
    return NULL;
}

/* --- runs ---------------------------------------------------------------------------------- */

/* Applies s to g (docs/autoscaling.md 5.2): sizes sent replace the group's, the desired
 * capacity kept within them; nothing when the result would not be a valid group. */
static void sched_apply(struct asg_group *g, const struct asg_sched *s, int64_t now_ms)
{
    const struct sc_asg_sched_info *i = &s->info;
    int min = i->has_min_size ? i->min_size : g->info.min_size;
    int max = i->has_max_size ? i->max_size : g->info.max_size;
    int desired = i->has_desired_capacity ? i->desired_capacity : g->info.desired_capacity;

    if (!i->has_desired_capacity)
        desired = desired < min ? min : desired > max ? max : desired;
    if (min > max || desired < min || desired > max)
        return;
    g->info.min_size = min;
    g->info.max_size = max;
    asg_set_desired(
        g, desired, now_ms,
        "a scheduled action update of AutoScalingGroup constraints to min: %d, max: %d, desired: %d",
        min, max, desired);
}

void asg_sched_step(struct sc_asg *asg, struct asg_group *g, int64_t now_ms)
{
    for (int k = 0; k < g->nscheds;) {
        struct asg_sched *s = g->scheds[k];
        int64_t next;

        if (s->info.start_ms > now_ms) {
            k++;
            continue;
        }
        /* a suspended ScheduledActions process skips the run [I] */
        if (!asg_proc_suspended(g, SC_ASG_PROC_SCHEDULED_ACTIONS) && !g->deleting)
            sched_apply(g, s, s->info.start_ms);
        next = s->info.recurrence
                   ? sc_asg_recurrence_next(s->info.recurrence, now_ms, asg->env.tz_offset,
                                            asg->env.ud, zone_of(s))
                   : -1;
        if (next < 0 || (s->info.has_end_time && next > s->info.end_ms)) {
            sched_remove(g, k); /* one-time, or past its end: it does not persist */
            continue;
        }
        s->info.start_ms = next;
        k++;
    }
}

int64_t asg_sched_next_due(const struct asg_group *g)
{
    int64_t due = INT64_MAX;

    for (int k = 0; k < g->nscheds; k++)
        if (g->scheds[k]->info.start_ms < due)
            due = g->scheds[k]->info.start_ms;
    return due;
}

/* --- save / load ----------------------------------------------------------------------------- */

json_t *asg_scheds_save(const struct asg_group *g)
{
    json_t *a = json_array();
    int bad = !a;

    for (int k = 0; !bad && k < g->nscheds; k++) {
        const struct sc_asg_sched_info *i = &g->scheds[k]->info;
        json_t *o = json_object();

        bad |= !o;
        bad |= sc_save_str(o, "name", i->scheduled_action_name);
        bad |= sc_save_str(o, "arn", i->scheduled_action_arn);
        bad |= sc_save_int(o, "next_ms", i->start_ms);
        bad |= sc_save_bool(o, "has_end", i->has_end_time);
        bad |= sc_save_int(o, "end_ms", i->end_ms);
        bad |= sc_save_str(o, "recurrence", i->recurrence);
        bad |= sc_save_str(o, "time_zone", i->time_zone);
        bad |= sc_save_bool(o, "has_min", i->has_min_size);
        bad |= sc_save_int(o, "min", i->min_size);
        bad |= sc_save_bool(o, "has_max", i->has_max_size);
        bad |= sc_save_int(o, "max", i->max_size);
        bad |= sc_save_bool(o, "has_desired", i->has_desired_capacity);
        bad |= sc_save_int(o, "desired", i->desired_capacity);
        bad |= json_array_append_new(a, o);
    }
    if (bad) {
        json_decref(a);
        return NULL;
    }
    return a;
}

void asg_scheds_load(struct sc_load *l, const json_t *a, struct asg_group *g)
{
    size_t n = json_array_size(a);

    if (n == 0)
        return;
    g->scheds = calloc(n, sizeof(*g->scheds));
    if (!g->scheds) {
        sc_load_fail(l, "out of memory");
        return;
    }
    for (size_t k = 0; k < n && !l->failed; k++) {
        const json_t *o = json_array_get(a, k);
        struct asg_sched *s = calloc(1, sizeof(*s));
        struct sc_asg_sched_info *i;

        if (!s) {
            sc_load_fail(l, "out of memory");
            return;
        }
        g->scheds[g->nscheds++] = s;
        i = &s->info;
        i->auto_scaling_group_name = sc_strdup(g->info.auto_scaling_group_name);
        i->scheduled_action_name = sc_load_str(l, o, "name");
        i->scheduled_action_arn = sc_load_str(l, o, "arn");
        i->start_ms = sc_load_int(l, o, "next_ms");
        i->has_end_time = sc_load_bool(l, o, "has_end");
        i->end_ms = sc_load_int(l, o, "end_ms");
        i->recurrence = sc_load_str(l, o, "recurrence");
        i->time_zone = sc_load_str(l, o, "time_zone");
        i->has_min_size = sc_load_bool(l, o, "has_min");
        i->min_size = (int)sc_load_int(l, o, "min");
        i->has_max_size = sc_load_bool(l, o, "has_max");
        i->max_size = (int)sc_load_int(l, o, "max");
        i->has_desired_capacity = sc_load_bool(l, o, "has_desired");
        i->desired_capacity = (int)sc_load_int(l, o, "desired");
        if (!l->failed && (!i->scheduled_action_name || !i->scheduled_action_arn ||
                           (i->recurrence && sc_asg_recurrence_valid(i->recurrence) != 0)))
            sc_load_fail(l, "scheduled_actions[%zu]: not a valid scheduled action", k);
    }
}
