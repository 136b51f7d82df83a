/* scaler/alarm_composite.h: CloudWatch composite alarms (docs/cloudwatch.md "Composite
 * alarms"): the AlarmRule parser and evaluator, PutCompositeAlarm, the composites'
 * describes, their evaluation when a child changes state, and actions suppression.
 *
 * Composite alarms live in the same struct sc_alarms as metric alarms (one name space, one
 * history ring, one state file); alarm.c and alarm_eval.c call into alarm_composite.c
 * where a rule of theirs involves composites (names taken, deletion of a child, state
 * changes of a child). Most callers use this through scaler/cloudwatch.h (sc_cw_*).
 * Strings in views are borrowed until the next mutating call. */
#ifndef SCALER_ALARM_COMPOSITE_H
#define SCALER_ALARM_COMPOSITE_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/alarm.h"
#include "scaler/status.h"

#define SC_ALARM_RULE_MAX     10240 /* AlarmRule characters (the model's max) */
#define SC_ALARM_RULE_MAX_REF 100   /* distinct alarms one rule may name */

/* --- the rule ----------------------------------------------------------------------------- */

struct sc_alarm_rule; /* opaque: a parsed AlarmRule */

/* Parses text (the AlarmRule grammar of docs/cloudwatch.md: ALARM/OK/INSUFFICIENT_DATA of
 * a name or ARN, quoted or bare, NOT > AND > OR, parentheses, TRUE, FALSE). On success
 * *out is the caller's (sc_alarm_rule_destroy); on error *out is NULL and err holds
 * ValidationError with AWS's text or ours. */
enum sc_status sc_alarm_rule_parse(const char *text, struct sc_alarm_rule **out,
                                   struct sc_error *err);
void sc_alarm_rule_destroy(struct sc_alarm_rule *r); /* NULL is a no-op */
/* The alarm references in order of appearance (repeats included), as written. */
int sc_alarm_rule_nrefs(const struct sc_alarm_rule *r);
const char *sc_alarm_rule_ref(const struct sc_alarm_rule *r, int i);
/* The rule's value when reference i is in states[i]: 1 true, 0 false. Never allocates. */
int sc_alarm_rule_eval(const struct sc_alarm_rule *r, const enum sc_alarm_state *states);

/* A reference's new text for sc_alarm_rule_rename: given the reference as written (a name
 * or an ARN, without its quotes), the text to put in its place, or NULL to keep it. The
 * result is copied before the next call. */
typedef const char *(*sc_alarm_rule_rename_fn)(const char *ref, void *ud);
/* text with each alarm reference the parser finds replaced by fn's text, and everything
 * else (functions, operators, blanks, quotes, AT_LEAST's lists) as written, into out
 * (outlen bytes, NUL-terminated). The one way to rename a rule's alarms (loadgen scenario
 * prefixes them): ALARM("x"), ALARM(x) and ARNs alike, never text that only looks like a
 * name (a function name, a name inside another name). Returns SC_OK, the parser's error
 * for a rule that does not parse, or ValidationError when out is too small. */
enum sc_status sc_alarm_rule_rename(const char *text, sc_alarm_rule_rename_fn fn, void *ud,
                                    char *out, size_t outlen, struct sc_error *err);

/* --- composite alarms ----------------------------------------------------------------------- */

struct sc_put_composite_alarm_req {
    const char *alarm_name;
    const char *alarm_rule;
    const char *alarm_description;
    int has_actions_enabled;
    int actions_enabled;
    const char *const *ok_actions;
    int n_ok_actions;
    const char *const *alarm_actions;
    int n_alarm_actions;
    const char *const *insufficient_data_actions;
    int n_insufficient_data_actions;
    const struct sc_tag *tags; /* applied on create only */
    int n_tags;
    const char *actions_suppressor; /* name or ARN, NULL = none */
    int has_wait_period;
    int wait_period_s;
    int has_extension_period;
    int extension_period_s;
};

/* A composite alarm as DescribeAlarms shows it. */
struct sc_composite_view {
    union {
        struct sc_alarm_view_base base;
        struct {
            SC_ALARM_VIEW_BASE_MEMBERS
        };
    };
    const char *alarm_rule;
    const char *actions_suppressor; /* as put, NULL when none */
    int actions_suppressor_wait_period;
    int actions_suppressor_extension_period;
    /* while ALARM actions are held: "WaitPeriod", "ExtensionPeriod" or "Alarm" and
     * "Actions suppressed by <that>"; NULL otherwise */
    const char *actions_suppressed_by;
    const char *actions_suppressed_reason;
};
typedef int (*sc_composite_visit_fn)(const struct sc_composite_view *c, void *ud);

/* PutCompositeAlarm: creates (INSUFFICIENT_DATA, then evaluated at once) or overwrites
 * the configuration (state kept, re-evaluated). Actions of the resulting transitions are
 * left pending (sc_alarms_run_pending runs them at the next step). Nothing changes on an
 * error. */
enum sc_status sc_alarms_put_composite(struct sc_alarms *a,
                                       const struct sc_put_composite_alarm_req *req, int64_t now_ms,
                                       struct sc_error *err);
/* DescribeAlarms' composites: the same filters as sc_alarms_describe (names, prefix,
 * StateValue, ActionPrefix), in name order. */
enum sc_status sc_alarms_describe_composites(const struct sc_alarms *a,
                                             const struct sc_describe_alarms_req *req,
                                             sc_composite_visit_fn fn, void *ud,
                                             struct sc_error *err);
/* ChildrenOfAlarmName: the alarms name's rule references (each once, metric alarms through
 * mfn, composites through cfn, each in name order). A name that is no composite visits
 * nothing. */
void sc_alarms_children_of(const struct sc_alarms *a, const char *name, sc_alarm_visit_fn mfn,
                           sc_composite_visit_fn cfn, void *ud);
/* ParentsOfAlarmName: the composites whose rule references name, in name order. */
void sc_alarms_parents_of(const struct sc_alarms *a, const char *name, sc_composite_visit_fn cfn,
                          void *ud);
const struct sc_composite_view *sc_alarms_composite_find(const struct sc_alarms *a,
                                                         const char *name);
int sc_alarms_composite_count(const struct sc_alarms *a);

/* Change counting for an observer (scaler/observe.h), which then looks only at what a
 * call touched. Each alarm or composite alarm created, overwritten by a Put, loaded from a
 * state file or changing state takes the registry's next change number; each deletion
 * (and each load) adds one to the deletion count. */
uint64_t sc_alarms_change_seq(const struct sc_alarms *a);
uint64_t sc_alarms_delete_count(const struct sc_alarms *a);
/* Visits the alarms whose change number is above since, in name order, then the
 * composite alarms likewise. A visitor's nonzero return stops that list. Looks at one
 * number per alarm; nothing at all when since is the current change number. */
void sc_alarms_visit_changed(const struct sc_alarms *a, uint64_t since, sc_alarm_visit_fn afn,
                             sc_composite_visit_fn cfn, void *ud);
/* The name of alarm i (0 <= i < sc_alarms_count) and of composite alarm i, in name order;
 * NULL out of range. Borrowed until the next mutating call. */
const char *sc_alarms_name_at(const struct sc_alarms *a, int i);
const char *sc_alarms_composite_name_at(const struct sc_alarms *a, int i);

/* Re-evaluates every composite against its children's states now and moves the
 * suppression of held actions on (the suppressor's state, the wait and extension
 * deadlines). Actions run through fn (NULL: left pending for sc_alarms_run_pending).
 * sc_alarms_evaluate and sc_alarms_set_state call it; the world's step calls it through
 * sc_cw_step for the deadlines. */
void sc_alarms_composites_step(struct sc_alarms *a, int64_t now_ms, sc_alarm_action_fn fn,
                               void *ud);
/* The earliest wait or extension deadline of held actions, or INT64_MAX. */
int64_t sc_alarms_composites_next_due_ms(const struct sc_alarms *a);

#endif
