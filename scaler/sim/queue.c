/* scaler/sim/queue.c: binary min-heap keyed by (t_us, seq). */
#include "scaler/sim/queue.h"

#include <stdlib.h>

#include "common/xalloc.h"

void sim_queue_init(struct sim_queue *q, int64_t start_us)
{
    q->heap = NULL;
    q->len = 0;
    q->cap = 0;
    q->next_seq = 0;
    q->now_us = start_us;
}

void sim_queue_cleanup(struct sim_queue *q)
{
    free(q->heap);
    q->heap = NULL;
    q->len = q->cap = 0;
}

static int before(const struct sim_event_rec *a, const struct sim_event_rec *b)
{
    if (a->t_us != b->t_us)
        return a->t_us < b->t_us;
    return a->seq < b->seq;
}

void sim_queue_push(struct sim_queue *q, const struct sim_event_rec *ev)
{
    int i;

    if (q->len == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 256;
        q->heap = cm_xrealloc(q->heap, (size_t)q->cap * sizeof(*q->heap));
    }
    i = q->len++;
    q->heap[i] = *ev;
    q->heap[i].seq = q->next_seq++;
    if (q->heap[i].t_us < q->now_us)
        q->heap[i].t_us = q->now_us;
    while (i > 0) {
        int parent = (i - 1) / 2;
        struct sim_event_rec tmp;
        if (!before(&q->heap[i], &q->heap[parent]))
            break;
        tmp = q->heap[i];
        q->heap[i] = q->heap[parent];
        q->heap[parent] = tmp;
        i = parent;
    }
}

int sim_queue_pop_until(struct sim_queue *q, int64_t until_us, struct sim_event_rec *out)
{
    int i = 0;

    if (q->len == 0 || q->heap[0].t_us > until_us)
        return 0;
    *out = q->heap[0];
    q->heap[0] = q->heap[--q->len];
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        struct sim_event_rec tmp;
        if (l < q->len && before(&q->heap[l], &q->heap[m]))
            m = l;
        if (r < q->len && before(&q->heap[r], &q->heap[m]))
            m = r;
        if (m == i)
            break;
        tmp = q->heap[i];
        q->heap[i] = q->heap[m];
        q->heap[m] = tmp;
        i = m;
    }
    if (out->t_us > q->now_us)
        q->now_us = out->t_us;
    return 1;
}

int64_t sim_queue_peek_us(const struct sim_queue *q)
{
    return q->len ? q->heap[0].t_us : INT64_MAX;
}

void sim_queue_advance(struct sim_queue *q, int64_t t_us)
{
    if (t_us > q->now_us)
        q->now_us = t_us;
}
