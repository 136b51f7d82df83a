/* scaler/sim/queue.h: the simulator's event heap and virtual clock.
 *
 * A binary min-heap of events ordered by (time, sequence number): events at the same
 * time pop in the order they were pushed, so a run is deterministic. Times are int64
 * microseconds on the virtual clock; the clock (sim_queue_now_us) is the time of the last
 * event popped and never goes back. The heap grows by doubling (aborts on OOM, as
 * programs do); its peak size is the peak number of pending events, not the run length.
 *
 * Ownership: events are copied in and out; the queue owns its storage. */
#ifndef SCALER_SIM_QUEUE_H
#define SCALER_SIM_QUEUE_H

#include <stdint.h>

/* One event: what it is (kind), three ints and an int64 the model gives meaning to. */
struct sim_event_rec {
    int64_t t_us;
    uint64_t seq; /* set by push */
    int kind;
    int a, b, d;
    int64_t c;
};

struct sim_queue {
    struct sim_event_rec *heap;
    int len, cap;
    uint64_t next_seq;
    int64_t now_us;
};

/* Starts empty at time start_us. */
void sim_queue_init(struct sim_queue *q, int64_t start_us);
void sim_queue_cleanup(struct sim_queue *q);
/* Pushes ev (its seq is assigned). An event earlier than now is clamped to now. */
void sim_queue_push(struct sim_queue *q, const struct sim_event_rec *ev);
/* Pops the earliest event at or before until_us into *out and advances the clock to it.
 * Returns 1, or 0 when no event is due by until_us (the clock is then unchanged). */
int sim_queue_pop_until(struct sim_queue *q, int64_t until_us, struct sim_event_rec *out);
/* The earliest pending time, or INT64_MAX when empty. */
int64_t sim_queue_peek_us(const struct sim_queue *q);
/* Moves the clock forward to t_us (no-op if t_us <= now). */
void sim_queue_advance(struct sim_queue *q, int64_t t_us);
static inline int64_t sim_queue_now_us(const struct sim_queue *q)
{
    return q->now_us;
}
static inline int sim_queue_len(const struct sim_queue *q)
{
    return q->len;
}

#endif
