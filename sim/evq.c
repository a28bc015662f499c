#include "sim/evq.h"

#include <stdlib.h>

#include "sim/util.h"

#define KEY_PHASE_SHIFT 56
/* A 4-ary heap: half the levels of a binary one, so a sift moves half as many entries (each
 * move writes the moved timer's heap_idx, a cache miss in a large fabric); the 4 children of a
 * node are adjacent. Keys are unique, so the order of events is the same with any arity. */
#define ARITY 4
#define PARENT(i) (((i)-1) / ARITY)

static inline bool entry_less(const struct evq_entry *a, const struct evq_entry *b)
{
    return a->at < b->at || (a->at == b->at && a->key < b->key);
}

static inline void place(struct evq *q, uint32_t i, struct evq_entry e)
{
    q->heap[i] = e;
    e.timer->heap_idx = i;
}

static void sift_up(struct evq *q, uint32_t i, struct evq_entry e)
{
    while (i > 0) {
        uint32_t parent = PARENT(i);
        if (!entry_less(&e, &q->heap[parent]))
            break;
        place(q, i, q->heap[parent]);
        i = parent;
    }
    place(q, i, e);
}

static void sift_down(struct evq *q, uint32_t i, struct evq_entry e)
{
    uint32_t n = q->len;
    for (;;) {
        uint32_t first = ARITY * i + 1;
        if (first >= n)
            break;
        uint32_t end = first + ARITY < n ? first + ARITY : n;
        uint32_t c = first;
        for (uint32_t k = first + 1; k < end; k++) {
            if (entry_less(&q->heap[k], &q->heap[c]))
                c = k;
        }
        if (!entry_less(&q->heap[c], &e))
            break;
        place(q, i, q->heap[c]);
        i = c;
    }
    place(q, i, e);
}

void evq_init(struct evq *q)
{
    q->cap = 1024;
    q->len = 0;
    q->heap = xmalloc(sizeof(*q->heap) * q->cap);
    q->counter = 0;
    q->fired = 0;
}

void evq_fini(struct evq *q)
{
    for (uint32_t i = 0; i < q->len; i++)
        q->heap[i].timer->heap_idx = EVQ_IDLE;
    free(q->heap);
    q->heap = NULL;
    q->len = q->cap = 0;
}

void evq_timer_init(struct evq_timer *t, evq_fire_fn *fire, enum evq_phase phase)
{
    t->fire = fire;
    t->heap_idx = EVQ_IDLE;
    t->phase = (uint8_t)phase;
}

void evq_schedule(struct evq *q, struct evq_timer *t, sim_time_t at)
{
    SIM_ASSERT(t->heap_idx == EVQ_IDLE);
    SIM_ASSERT(at >= 0);
    if (at > SIM_TIME_HORIZON) {
        /* kept in the queue (its owner expects it scheduled); the run loop stops first */
        if (!q->past_horizon)
            q->past_horizon = at;
        at = SIM_TIME_NEVER;
    }
    if (q->len == q->cap) {
        q->cap *= 2;
        q->heap = xrealloc(q->heap, sizeof(*q->heap) * q->cap);
    }
    struct evq_entry e = {
        .at = at,
        .key = ((uint64_t)t->phase << KEY_PHASE_SHIFT) | q->counter++,
        .timer = t,
    };
    q->len++;
    sift_up(q, q->len - 1, e);
}

static void remove_at(struct evq *q, uint32_t i)
{
    struct evq_timer *t = q->heap[i].timer;
    t->heap_idx = EVQ_IDLE;
    q->len--;
    if (i == q->len)
        return;
    struct evq_entry last = q->heap[q->len];
    if (i > 0 && entry_less(&last, &q->heap[PARENT(i)]))
        sift_up(q, i, last);
    else
        sift_down(q, i, last);
}

void evq_cancel(struct evq *q, struct evq_timer *t)
{
    if (t->heap_idx == EVQ_IDLE)
        return;
    SIM_ASSERT(t->heap_idx < q->len && q->heap[t->heap_idx].timer == t);
    remove_at(q, t->heap_idx);
}

void evq_reschedule(struct evq *q, struct evq_timer *t, sim_time_t at)
{
    evq_cancel(q, t);
    evq_schedule(q, t, at);
}

struct evq_timer *evq_pop(struct evq *q, sim_time_t *at)
{
    if (q->len == 0)
        return NULL;
    struct evq_timer *t = q->heap[0].timer;
    *at = q->heap[0].at;
    t->heap_idx = EVQ_IDLE;
    q->len--;
    if (q->len > 0)
        sift_down(q, 0, q->heap[q->len]);
    return t;
}
