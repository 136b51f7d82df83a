/* scaler/alarm_internal.h: what alarm.c, alarm_eval.c and alarm_save.c share; not public.
 *
 * alarm.c holds the store (create, lookup, Put/Delete, describes, tags, the history ring),
 * alarm_eval.c the state changes, actions and evaluation, alarm_save.c the state file. */
#ifndef SCALER_ALARM_INTERNAL_H
#define SCALER_ALARM_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "scaler/alarm.h"
#include "scaler/alarm_composite.h"
#include "scaler/alarm_mute.h"
#include "scaler/anomaly.h"
#include "scaler/math.h"
#include "scaler/str.h"
#include "scaler/vec.h"

#define MAX_SLOTS   (86400 / 10 + 2) /* R = N+2 with Period 10 and N = 8640 */
#define SCRATCH_LEN (64 * 1024)

enum op { OP_GE, OP_GT, OP_LT, OP_LE, OP_BAND_OUT, OP_BAND_LOW, OP_BAND_HIGH };
#define OP_IS_BAND(op) ((op) >= OP_BAND_OUT)
enum tmd { TMD_MISSING, TMD_IGNORE, TMD_BREACHING, TMD_NOT_BREACHING };
enum hist_type { H_CONFIG, H_STATE, H_ACTION };

/* Indexed by enum op, enum tmd, enum sc_alarm_state and enum hist_type. */
extern const char *const alarm_op_names[7];
extern const char *const alarm_tmd_names[4];
extern const char *const alarm_state_names[3];
extern const char *const alarm_hist_names[3];

struct tag {
    char *key, *value;
};

/* One evaluation slot kept for the next evaluation. */
struct wslot {
    double val, cnt;
    char has, settled;
};

/* What a metric alarm and a composite alarm share: the first member of struct alarm and of
 * struct composite. */
struct alarm_base {
    char *name, *arn, *description;
    int composite; /* 1 in a struct composite (AlarmType CompositeAlarm) */
    int actions_enabled;
    char *actions[3][SC_ALARM_MAX_ACTIONS]; /* indexed by enum sc_alarm_state */
    int nactions[3];
    int64_t config_updated_ms;
    enum sc_alarm_state state;
    char reason[SC_ALARM_REASON_MAX];
    char reason_data[SC_ALARM_REASON_DATA_MAX];
    int64_t state_updated_ms, state_transitioned_ms;
    uint64_t state_gen;  /* a->gen at its last state change */
    uint64_t change_seq; /* a->change_seq when created, replaced or changing state */
    int pending;         /* actions of its current state to run (sc_alarms_run_pending) */
    struct tag *tags;
    int ntags;
};

struct alarm {
    struct alarm_base b;
    char *metric_name, *ns;
    struct sc_dimension *dims;
    int ndims;
    char *statistic, *extended_statistic;
    struct sc_stat stat;
    int period, n, m, has_m;
    char *unit;
    enum sc_unit unit_e;
    double threshold;
    enum op op;
    enum tmd tmd;
    int has_tmd;
    char *elscp;
    double recent[SC_ALARM_MAX_RECENT];
    int nrecent;
    int64_t last_eval_ms;
    /* the metric the last evaluation found, while the store's generation is m_gen */
    const struct sc_metric *m_cache;
    uint64_t m_gen;
    /* the last evaluation's slots 1..w_n at w_tick (w[k - 1] for slot k), of w_metric at
     * its late version w_late; w_cap entries, none when the alarm cannot keep them */
    struct wslot *w;
    int w_cap, w_n;
    const struct sc_metric *w_metric;
    uint64_t w_late;
    int64_t w_tick;
    /* Metrics: owned copies, the program (scaler/math.h), and the returned query */
    struct sc_alarm_query *mq;
    int nmq;
    struct sc_math_program *prog;
    /* an anomaly detection alarm: ThresholdMetricId and the index of its band query */
    char *tmid;
    int band_q;
    struct sc_alarm_view view;
};
SC_SORTED_DEFINE(alarm_vec, struct alarm, b.name)

struct hdesc {
    int64_t ts;
    enum hist_type type;
    int composite; /* AlarmType CompositeAlarm */
    size_t off, len;
};

struct mute;
struct sc_load;

/* A composite alarm (alarm_composite.c). */
struct composite {
    struct alarm_base b;
    char *rule_text;
    struct sc_alarm_rule *rule;
    char **child; /* per rule reference: the alarm's name */
    int nchild;
    enum sc_alarm_state *child_state; /* evaluation scratch, nchild */
    char *suppressor;                 /* as put, NULL = none */
    char *suppressor_name;            /* the alarm it names */
    int wait_s, ext_s;
    uint64_t seen_gen; /* the children's generation it last evaluated */
    int held;          /* ALARM actions held: 0, or enum held_by + 1 */
    int64_t held_until_ms;
    struct sc_composite_view view;
    struct sc_alarm_view aview; /* what an action handler sees */
    char sup_reason[64];
};
SC_SORTED_DEFINE(comp_vec, struct composite, b.name)

struct sc_alarms {
    char *region, *account;
    struct alarm **list; /* sorted by name */
    int n, cap;
    struct composite **comps; /* sorted by name */
    int ncomp, ccap;
    struct mute **mutes; /* alarm mute rules (alarm_mute.c), sorted by name */
    int nmute, mcap;
    int (*tz_offset)(void *ud, const char *zone, int64_t utc_ms, int *offset_s);
    void *tz_ud;
    uint64_t gen; /* counts state changes: struct alarm's and struct composite's state_gen */
    /* for observers (sc_alarms_visit_changed): counts creations, replacements and state
     * changes of alarms and composite alarms; deletions are counted apart */
    uint64_t change_seq, delete_count;
    /* history: descriptors in a ring over a byte arena */
    char *arena;
    size_t arena_cap, head;
    struct hdesc *hd;
    int hd_cap, hd_first, hd_count;
    int64_t keep_ms;
    /* evaluation scratch */
    double *slot_val, *slot_cnt;
    double *slot_lo, *slot_hi; /* the band of each slot (anomaly detection alarms) */
    const struct sc_anomaly_detectors *det;
    char *slot_has;
    int *eval_slots;
    char *scratch, *scratch2;
};

/* A bounded string builder: writes what fits, always NUL-terminated. */
struct sb {
    char *p;
    size_t n, cap;
};

static inline void sb_init(struct sb *b, char *p, size_t cap)
{
    b->p = p;
    b->n = 0;
    b->cap = cap;
    p[0] = 0;
}

static inline void sb_raw(struct sb *b, const char *s)
{
    size_t l = strlen(s);

    if (b->n + 1 >= b->cap)
        return;
    if (l > b->cap - b->n - 1)
        l = b->cap - b->n - 1;
    memcpy(b->p + b->n, s, l);
    b->n += l;
    b->p[b->n] = 0;
}

static inline void sb_printf(struct sb *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void sb_printf(struct sb *b, const char *fmt, ...)
{
    va_list ap;
    int r;

    if (b->n + 1 >= b->cap)
        return;
    va_start(ap, fmt);
    r = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    if (r < 0)
        return;
    b->n += (size_t)r < b->cap - b->n ? (size_t)r : b->cap - b->n - 1;
}

static inline void sb_num(struct sb *b, double v)
{
    char num[40];

    sc_java_double(v, num, sizeof(num));
    sb_raw(b, num);
}

static inline void sb_jstr(struct sb *b, const char *s)
{
    char u[8];

    sb_raw(b, "\"");
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            u[0] = '\\';
            u[1] = (char)c;
            u[2] = 0;
            sb_raw(b, u);
        } else if (c < 0x20) {
            snprintf(u, sizeof(u), "\\u%04x", c);
            sb_raw(b, u);
        } else {
            u[0] = (char)c;
            u[1] = 0;
            sb_raw(b, u);
        }
    }
    sb_raw(b, "\"");
}

/* --- defined in alarm.c ----------------------------------------------------------------------- */

/* The base's common part (name, ARN, description, actions, tags) freed; b itself is not. */
void alarm_base_cleanup(struct alarm_base *b);
/* A new alarm's identity in b (zeroed): name, its ARN in a's region and account,
 * description (NULL: none), ActionsEnabled and the nacts[s] actions of each state. Returns
 * 0, or -1 on OOM (what was copied stays in b for alarm_base_cleanup). */
int alarm_base_init(struct alarm_base *b, const struct sc_alarms *a, const char *name,
                    const char *description, int actions_enabled, const char *const *const acts[3],
                    const int nacts[3]);
/* A Put that replaces old with b: state, reasons, their timestamps and the tags move over
 * (old's tags are then empty). */
void alarm_base_keep_state(struct alarm_base *b, struct alarm_base *old);
/* A new alarm's first state: INSUFFICIENT_DATA, "Unchecked: Initial alarm creation". */
void alarm_base_initial_state(struct alarm_base *b, int64_t now_ms);
/* Fills the view members both kinds share from b. */
void alarm_base_view(const struct alarm_base *b, struct sc_alarm_view_base *v);
/* The tags of a Put (create): copies n tags into *t, *nt (empty). 0, or -1 on OOM (what
 * was copied stays for tags_free). */
int tags_copy(struct tag **t, int *nt, const struct sc_tag *src, int n);
void tags_free(struct tag *t, int n);

void alarm_hist_add(struct sc_alarms *a, int64_t ts, enum hist_type type, const char *name,
                    const char *summary, const char *data);
/* The same, for an item of a composite alarm when composite is 1. */
void alarm_hist_add_kind(struct sc_alarms *a, int64_t ts, enum hist_type type, int composite,
                         const char *name, const char *summary, const char *data);
/* "Invalid arn syntax" and the 5-action cap of PutMetricAlarm and PutCompositeAlarm. */
enum sc_status alarm_validate_actions(const char *const *const acts[3], const int nacts[3],
                                      struct sc_error *err);
/* AlarmName (required, <= 255) and AlarmDescription (<= 1024) of both Puts. */
enum sc_status alarm_validate_name(const char *name, const char *description, struct sc_error *err);
/* The tags of the alarm or composite whose ARN is arn, or NULL. */
struct tag **alarm_tags_by_arn(const struct sc_alarms *a, const char *arn, int **ntags);
void alarm_free(struct alarm *al);
struct alarm *alarm_find(const struct sc_alarms *a, const char *name);
void alarm_view_sync(struct alarm *al);
enum sc_status alarm_validate_put(const struct sc_put_metric_alarm_req *r, struct sc_stat *st,
                                  enum op *op, enum tmd *tmd, enum sc_unit *unit,
                                  struct sc_error *err);
/* Builds the configuration part of a new alarm from a validated request. */
struct alarm *alarm_build(const struct sc_alarms *a, const struct sc_put_metric_alarm_req *r,
                          const struct sc_stat *st, enum op op, enum tmd tmd, enum sc_unit unit);
enum sc_status alarm_check_names(const char *const *names, int n, struct sc_error *err);
enum sc_status alarm_state_value_error(const char *v, struct sc_error *err);
/* DescribeAlarms' request rules (AlarmNames <= 100, not with AlarmNamePrefix, StateValue);
 * *sv is the StateValue asked for. */
enum sc_status alarm_describe_check(const struct sc_describe_alarms_req *req,
                                    enum sc_alarm_state *sv, struct sc_error *err);
/* 1 when b passes req's filters (names, prefix, state sv, action prefix). */
int alarm_describe_match(const struct alarm_base *b, const struct sc_describe_alarms_req *req,
                         enum sc_alarm_state sv);

/* --- defined in alarm_eval.c ------------------------------------------------------------------ */

/* Moves b to state ns with its reason texts (a transition: both timestamps, a new
 * generation and change_seq) and logs the StateUpdate history item. The item's
 * stateReasonData is the text as is for a composite; a metric alarm's is quoted unless it is
 * a JSON object. The caller syncs its view. */
void alarm_base_change_state(struct sc_alarms *a, struct alarm_base *b, enum sc_alarm_state ns,
                             const char *reason, const char *reason_data, int64_t now_ms);
/* Logs the Action history item of one action (fail: NULL, or its error text) of the alarm
 * or, when composite, composite alarm named name. */
void alarm_log_action(struct sc_alarms *a, int composite, const char *name, const char *arn,
                      int64_t updated_ms, const char *fail, int64_t now_ms);
/* SetAlarmState to the state b is in: new reason texts and StateUpdatedTimestamp only. */
void alarm_base_set_reason(struct alarm_base *b, const char *reason, const char *reason_data,
                           int64_t now_ms);

/* --- defined in alarm_save.c ------------------------------------------------------------------ */

/* The state file's form of b, set into o in three parts (each kind puts its own members
 * between them): the identity (name, description, a composite's arn, actions_enabled and
 * the actions), the state (config_updated_ms, state, reason, reason_data and their
 * timestamps), and pending with the tags. A metric alarm's state is its name and its tags
 * [key, value] pairs; a composite's state is its number and its tags {"key", "value"}
 * objects. Each returns 0, or -1 on OOM. */
int alarm_base_save_identity(json_t *o, const struct alarm_base *b);
int alarm_base_save_state(json_t *o, const struct alarm_base *b);
int alarm_base_save_tags(json_t *o, const struct alarm_base *b);
/* Reads what alarm_base_save_state and alarm_base_save_tags wrote (either kind's form)
 * into b; 0, or -1 with l failed. */
int alarm_base_load_state(struct sc_load *l, const json_t *o, struct alarm_base *b);

/* --- defined in alarm_math.c (alarms on Metrics, docs/metric-math.md 6) ---------------------- */

/* Checks r's Metrics (AWS's "... should not be set if list of Metrics is set.", "Exactly
 * one element of the metrics list should return data.", "Invalid metrics list") and gives
 * the alarm's period. */
enum sc_status alarm_math_validate(const struct sc_put_metric_alarm_req *r, int *period,
                                   struct sc_error *err);
/* Copies r's Metrics into al and builds its program. Returns 0 or -1 on OOM. */
int alarm_math_build(struct alarm *al, const struct sc_put_metric_alarm_req *r);
void alarm_math_free(struct alarm *al);
/* Fills a->slot_has/val/cnt for slots 1..r at tick_ms from the program's returned series. */
void alarm_math_slots(struct sc_alarms *a, struct alarm *al, const struct sc_metric_store *store,
                      int64_t tick_ms, int r);
/* The Metrics in the state file's form (AWS's member names); NULL on OOM. */
json_t *alarm_math_save(const struct alarm *al);
/* Reads saved Metrics (borrowed strings into q and dims, at most SC_ALARM_MAX_QUERIES).
 * Returns 0, or -1 with msg set. */
int alarm_math_load(const json_t *arr, struct sc_alarm_query *q,
                    struct sc_dimension (*dims)[SC_METRIC_MAX_DIMENSIONS], int *n, char *msg,
                    size_t msglen);

/* --- defined in alarm_band.c (anomaly detection alarms, docs/cloudwatch.md) ----------------- */

/* The band operators' rules of PutMetricAlarm (ThresholdMetricId, Auto Scaling actions). */
enum sc_status alarm_band_validate(const struct sc_put_metric_alarm_req *r, struct sc_error *err);
/* Fills the slots of an anomaly detection alarm: value, and the band (slot_lo/slot_hi) at
 * the same slot; a slot with no band counts as missing. */
void alarm_band_slots(struct sc_alarms *a, struct alarm *al, const struct sc_metric_store *store,
                      int64_t tick_ms, int r);
/* 1 when slot k breaches the band under al's operator. */
int alarm_band_breaches(const struct sc_alarms *a, const struct alarm *al, int k);
/* The StateReason's comparison of a band alarm: " was less than the lower thresholds [..] or
 * greater than the upper thresholds [..]" of the listed slots. */
void alarm_band_reason(struct sb *b, const struct sc_alarms *a, const struct alarm *al,
                       const int *slots, int n, int to_alarm, int x);

/* --- defined in alarm_composite.c --------------------------------------------------------------
 */

struct composite *composite_find(const struct sc_alarms *a, const char *name);
void composite_free(struct composite *c);
/* DeleteAlarms' rules (at most one composite; no child of a composite that stays). */
enum sc_status composite_check_delete(const struct sc_alarms *a, const char *const *names, int n,
                                      struct sc_error *err);
/* Deletes the composite named so (history item). Returns 1, or 0 when there is none. */
int composite_delete(struct sc_alarms *a, const char *name, int64_t now_ms);
/* Enable/DisableAlarmActions. Returns 1 when name is a composite. */
int composite_set_actions_enabled(struct sc_alarms *a, const char *name, int enable);
/* SetAlarmState of a composite (validated). ResourceNotFound when there is none. */
enum sc_status composite_set_state(struct sc_alarms *a, const char *name, enum sc_alarm_state st,
                                   const char *reason, const char *reason_data, int64_t now_ms,
                                   struct sc_error *err);
int composite_run_pending(struct sc_alarms *a, int64_t now_ms, sc_alarm_action_fn fn, void *ud);
int composite_has_pending(const struct sc_alarms *a);
/* The composites in the state file's form; NULL on OOM. */
json_t *composites_save(const struct sc_alarms *a);
/* Reads composites_save's list into t (empty); 0 or -1 with err set. */
int composites_load(struct sc_alarms *t, const json_t *arr, struct sc_error *err);

/* --- defined in alarm_mute.c ------------------------------------------------------------------ */

void mutes_free(struct sc_alarms *a);
/* The tags of the mute rule whose ARN is arn (TagResource), or NULL. */
struct tag **mute_tags_by_arn(const struct sc_alarms *a, const char *arn, int **ntags);
/* The rules in the state file's form; NULL on OOM. */
json_t *mutes_save(const struct sc_alarms *a);
/* Reads mutes_save's list into t (empty); 0 or -1 with err set. */
int mutes_load(struct sc_alarms *t, const json_t *arr, struct sc_error *err);

#endif
