/* scaler/observe.h: the story of a world as events, for both worlds to tell (the emulator's
 * console and log; the simulator may print the same lines).
 *
 * An observer remembers what it saw of a world's records at its last call and reports
 * each difference as one event: an alarm's state transition (with StateReason), a scaling
 * activity's start and end (with AWS's Cause, StatusCode, StatusMessage; a failed launch
 * is its own kind), an EC2 instance launched and its state changes, an instance's
 * lifecycle state in its group (Pending, InService, Terminating, ...), each (load
 * balancer, instance) pair's health as DescribeInstanceHealth shows it, and the moments
 * the records do not keep, from the asg's decision log (scaler/decision.h): each policy
 * evaluation with its arithmetic and reason, each lifecycle action's wait and end. Deciding what
 * counts as a transition is a rule, so it lives here, once.
 *
 * Level-triggered like the world: a change and its reversal between two calls are not
 * seen; call it after every sc_world_step. Pure: no clock, no stdio; now_ms dates the
 * events that have no time of their own.
 *
 * Ownership: the observer copies what it remembers; the event's strings are borrowed from
 * the world and valid only during the callback. Allocates only when the world holds more
 * records than the observer has room for. */
#ifndef SCALER_OBSERVE_H
#define SCALER_OBSERVE_H

#include <stdint.h>

struct sc_world;
struct sc_decision;
struct sc_hook_note;
struct sc_asg_notification;

enum sc_event_kind {
    SC_EVENT_ALARM = 0,      /* alarm, from, to, text = StateReason */
    SC_EVENT_ACTIVITY_START, /* group, activity_id, description, text = Cause, status */
    SC_EVENT_ACTIVITY_END,   /* same, status = StatusCode, status_message */
    SC_EVENT_LAUNCH_FAILED,  /* an activity "Launching ..." that ended Failed: its end */
    SC_EVENT_LAUNCH,         /* instance_id, zone, group (NULL outside groups), to = state */
    SC_EVENT_INSTANCE,       /* instance_id: EC2 state from -> to, text = the reason */
    SC_EVENT_LIFECYCLE,      /* group, instance_id, zone: lifecycle from (NULL: joined) -> to */
    SC_EVENT_HEALTH,         /* load_balancer, instance_id: from (NULL: registered) -> to,
                                text = Description, status = ReasonCode */
    SC_EVENT_DECISION,       /* a policy evaluation: group, alarm, decision (scaler/decision.h),
                                to = "changed"/"unchanged", status = the reason's name */
    SC_EVENT_HOOK,           /* a lifecycle action: group, instance_id, hook, to = "waiting",
                                "heartbeat", "completed", "timeout", status = the result */
    SC_EVENT_NOTIFICATION,   /* a notification (scaler/asg_notify.h): group, instance_id ("" when
                                none), to = its type, text = the message body */
    SC_EVENT_KIND_COUNT
};

/* "alarm", "activity_start", "activity_end", "launch_failed", "launch", "instance",
 * "lifecycle", "health", "decision", "hook", "notification". */
const char *sc_event_kind_name(enum sc_event_kind k);

struct sc_event {
    enum sc_event_kind kind;
    int64_t time_ms; /* the record's own time when it has one (activity start or end, alarm
                        update, EC2 state change), else the call's now_ms */
    const char *group;
    const char *instance_id;
    const char *load_balancer;
    const char *alarm;
    const char *activity_id;
    const char *zone;
    const char *from; /* previous state's name; NULL when the thing is new */
    const char *to;
    const char *text;                   /* see the kinds; NULL when none */
    const char *description;            /* an activity's Description */
    const char *status;                 /* an activity's StatusCode, a health ReasonCode */
    const char *status_message;         /* an activity's StatusMessage; NULL when none */
    const struct sc_decision *decision; /* SC_EVENT_DECISION: the whole record */
    const struct sc_hook_note *hook;    /* SC_EVENT_HOOK: the whole note */
    const struct sc_asg_notification *notification; /* SC_EVENT_NOTIFICATION: the whole one */
};

typedef void (*sc_event_fn)(const struct sc_event *ev, void *ud);

struct sc_observer;

/* An observer that has seen nothing (the first sc_observer_step reports everything the
 * world holds as new; sc_observer_sync first to start silently). NULL on OOM. */
struct sc_observer *sc_observer_create(void);
void sc_observer_destroy(struct sc_observer *o); /* NULL is a no-op */

/* Reports only the kinds whose bit (1u << kind) is set in mask (0: every kind, the
 * default); the others are not looked at, so a world that wants decisions alone pays only
 * for those. */
void sc_observer_set_kinds(struct sc_observer *o, unsigned mask);

/* Remembers w's records without reporting (a world loaded from a state file). */
void sc_observer_sync(struct sc_observer *o, struct sc_world *w, int64_t now_ms);
/* Reports, through fn, every difference since the last call (order: alarms, policy
 * decisions, activity starts, launches and EC2 states, lifecycle states, lifecycle-hook
 * notes, health, activity ends, notifications), then
 * remembers the records. Returns how many events it reported. */
int sc_observer_step(struct sc_observer *o, struct sc_world *w, int64_t now_ms, sc_event_fn fn,
                     void *ud);

#endif
