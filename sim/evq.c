#include "sim/evq.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/hugepage.h"
#include "sim/util.h"

#define KEY_PHASE_SHIFT 62
#define KEY_SLOT_BITS 24
#define KEY_COUNTER_MAX (1ull << (KEY_PHASE_SHIFT - KEY_SLOT_BITS))
#define SLOTS_MAX (1u << KEY_SLOT_BITS)
#define SLOT_OF(e) ((uint32_t)((e).key & (SLOTS_MAX - 1)))
/* A 4-ary heap: half the levels of a binary one, so a sift moves half as many entries; the 4
 * children of a node are adjacent. Keys are unique, so the order of events is the same with any
 * arity. The heap starts 3 entries past a 64-byte boundary, so children 4i+1..4i+4 fill one
 * cache line. */
#define ARITY 4
#define PARENT(i) (((i)-1) / ARITY)
#define HEAP_PAD 3

/* An entry's place in the order, (time, key) as one number (times are never negative). */
static inline unsigned __int128 rank(const struct evq_entry *e)
{
    return (unsigned __int128)(uint64_t)e->at << 64 | e->key;
}

static inline bool entry_less(const struct evq_entry *a, const struct evq_entry *b)
{
    return rank(a) < rank(b);
}

/* A run past the queue's limits is a runtime failure (exit 1), like running out of memory. */
static _Noreturn void too_many(const char *what, unsigned long long limit)
{
    fprintf(stderr, "ddlsim: error: more than %llu %s in one run (event queue limit)\n", limit,
            what);
    exit(1);
}

/* `bytes` of memory that start with the first `keep` bytes of `old` (freed), 64-byte aligned;
 * on huge pages once it spans one: at scale the heap's lower levels and the slot arrays are
 * read at random, an event's worth of TLB misses on 4 KiB pages. */
static void *regrow(void *old, size_t keep, size_t bytes)
{
    void *p = bytes >= HUGEPAGE_BYTES ? hugepage_alloc(bytes) : xaligned(64, bytes);
    if (keep)
        memcpy(p, old, keep);
    free(old);
    return p;
}

/* Grows the heap and the slot arrays to `cap` entries (the new slots are free). */
static void grow(struct evq *q, uint32_t cap)
{
    if (cap > SLOTS_MAX)
        too_many("pending events", SLOTS_MAX);
    size_t entry = sizeof(struct evq_entry);
    q->heap_mem = regrow(q->heap_mem, q->len ? (HEAP_PAD + q->len) * entry : 0,
                         (HEAP_PAD + cap) * entry);
    q->heap = (struct evq_entry *)q->heap_mem + HEAP_PAD;
    q->timers = regrow(q->timers, q->cap * sizeof(*q->timers), cap * sizeof(*q->timers));
    q->free = regrow(q->free, q->cap * sizeof(*q->free), cap * sizeof(*q->free));
    uint32_t nfree = q->cap - q->len;
    for (uint32_t s = cap; s-- > q->cap;)
        q->free[nfree++] = s;
    q->cap = cap;
}

static void sift_up(struct evq *q, uint32_t i, struct evq_entry e)
{
    while (i > 0) {
        uint32_t parent = PARENT(i);
        if (!entry_less(&e, &q->heap[parent]))
            break;
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = e;
}

static void sift_down(struct evq *q, uint32_t i, struct evq_entry e)
{
    uint32_t n = q->len;
    for (;;) {
        uint32_t first = ARITY * i + 1;
        if (first >= n)
            break;
        uint32_t end = first + ARITY < n ? first + ARITY : n;
        /* the least child, chosen without branches (which one it is, the predictor guesses
         * wrong about half the time) */
        uint32_t c = first;
        unsigned __int128 least = rank(&q->heap[first]);
        for (uint32_t k = first + 1; k < end; k++) {
            unsigned __int128 r = rank(&q->heap[k]);
            bool lt = r < least;
            c = lt ? k : c;
            least = lt ? r : least;
        }
        if (least >= rank(&e))
            break;
        q->heap[i] = q->heap[c];
        i = c;
    }
    q->heap[i] = e;
}

void evq_init(struct evq *q)
{
    q->heap = NULL;
    q->heap_mem = NULL;
    q->timers = NULL;
    q->free = NULL;
    q->cap = 0;
    q->len = 0;
    q->dead = 0;
    grow(q, 1024);
    q->counter = 0;
    q->fired = 0;
    q->folded = 0;
    q->cur = (struct evq_entry){0, 0};
}

void evq_fini(struct evq *q)
{
    for (uint32_t i = 0; i < q->len; i++) {
        struct evq_timer *t = q->timers[SLOT_OF(q->heap[i])];
        if (t)
            t->slot = EVQ_IDLE;
    }
    free(q->heap_mem);
    free(q->timers);
    free(q->free);
    q->heap = q->heap_mem = NULL;
    q->free = NULL;
    q->timers = NULL;
    q->len = q->cap = q->dead = 0;
}

void evq_timer_init(struct evq_timer *t, evq_fire_fn *fire, enum evq_phase phase)
{
    t->fire = fire;
    t->slot = EVQ_IDLE;
    t->phase = (uint8_t)phase;
    t->hint_lines = 0;
    t->hint = 0;
}

void evq_timer_hint(struct evq_timer *t, void *const *ptr, uint8_t lines)
{
    ptrdiff_t off = (const char *)ptr - (const char *)t;
    SIM_ASSERT(off != 0 && off >= INT16_MIN && off <= INT16_MAX && lines < 16);
    t->hint = (int16_t)off;
    t->hint_lines = lines;
}

/* Prefetches the lines of the object t's hint points to (the pointer is in a line of t's owner
 * that the previous pop prefetched). A prefetch never faults, so a NULL target costs nothing. */
static inline void prefetch_hint(const struct evq_timer *t)
{
    if (!t->hint)
        return;
    const char *p;
    memcpy(&p, (const char *)t + t->hint, sizeof(p)); /* a pointer of the owner's type */
    unsigned lines = t->hint_lines;
    for (unsigned i = 0; lines; i++, lines >>= 1)
        if (lines & 1)
            __builtin_prefetch(p + 64 * i);
}

/* Removes the top entry and frees its slot. */
static void remove_top(struct evq *q)
{
    q->len--;
    q->free[q->cap - q->len - 1] = SLOT_OF(q->heap[0]);
    if (q->len > 0)
        sift_down(q, 0, q->heap[q->len]);
}

/* Drops dead entries from the top, so the top is a pending timer (or the heap is empty). */
static void drop_dead_top(struct evq *q)
{
    while (q->len > 0 && !q->timers[SLOT_OF(q->heap[0])]) {
        remove_top(q);
        q->dead--;
    }
}

/* Removes every dead entry and orders the rest again (bottom-up: O(len)). Keys are unique, so
 * the order of the events does not depend on where entries sit. */
static void drop_dead(struct evq *q)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < q->len; i++) {
        struct evq_entry e = q->heap[i];
        if (q->timers[SLOT_OF(e)]) {
            q->heap[n++] = e;
            continue;
        }
        q->free[q->cap - q->len + (i - n)] = SLOT_OF(e);
    }
    q->len = n;
    q->dead = 0;
    for (uint32_t i = n > 1 ? PARENT(n - 1) + 1 : 0; i-- > 0;)
        sift_down(q, i, q->heap[i]);
}

uint64_t evq_reserve(struct evq *q)
{
    if (q->counter == KEY_COUNTER_MAX)
        too_many("scheduled events", KEY_COUNTER_MAX);
    return q->counter++;
}

static void insert(struct evq *q, struct evq_timer *t, sim_time_t at, uint64_t seq);

void evq_schedule(struct evq *q, struct evq_timer *t, sim_time_t at)
{
    insert(q, t, at, evq_reserve(q));
}

void evq_schedule_reserved(struct evq *q, struct evq_timer *t, sim_time_t at, uint64_t seq)
{
    SIM_ASSERT(seq < q->counter);
    insert(q, t, at, seq);
}

bool evq_passed(const struct evq *q, sim_time_t at, enum evq_phase phase, uint64_t seq)
{
    uint64_t key = (uint64_t)phase << KEY_PHASE_SHIFT | seq << KEY_SLOT_BITS;
    uint64_t cur = q->cur.key & ~(uint64_t)(SLOTS_MAX - 1);
    return at < q->cur.at || (at == q->cur.at && key < cur);
}

void evq_mark_until(struct evq *q, sim_time_t until)
{
    q->cur = (struct evq_entry){.at = until, .key = UINT64_MAX};
}

static void insert(struct evq *q, struct evq_timer *t, sim_time_t at, uint64_t seq)
{
    SIM_ASSERT(t->slot == EVQ_IDLE);
    SIM_ASSERT(at >= 0);
    if (at > SIM_TIME_HORIZON) {
        /* kept in the queue (its owner expects it scheduled); the run loop stops first */
        if (!q->past_horizon)
            q->past_horizon = at;
        at = SIM_TIME_NEVER;
    }
    if (q->len == q->cap)
        grow(q, 2 * q->cap);
    uint32_t slot = q->free[q->cap - q->len - 1];
    struct evq_entry e = {
        .at = at,
        .key = (uint64_t)t->phase << KEY_PHASE_SHIFT | seq << KEY_SLOT_BITS | slot,
    };
    t->slot = slot;
    q->timers[slot] = t;
    q->len++;
    sift_up(q, q->len - 1, e);
}

void evq_cancel(struct evq *q, struct evq_timer *t)
{
    if (t->slot == EVQ_IDLE)
        return;
    SIM_ASSERT(t->slot < q->cap && q->timers[t->slot] == t);
    q->timers[t->slot] = NULL;
    t->slot = EVQ_IDLE;
    q->dead++;
    if (q->dead > q->len / 2)
        drop_dead(q);
    else
        drop_dead_top(q);
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
    struct evq_timer *t = q->timers[SLOT_OF(q->heap[0])];
    prefetch_hint(t); /* its lines arrive while the heap is sifted */
    q->cur = q->heap[0];
    *at = q->heap[0].at;
    t->slot = EVQ_IDLE;
    remove_top(q);
    drop_dead_top(q);
    if (q->len > 0) {
        /* the next event's owner (its timer's line and the next), to arrive while this event
         * runs: at scale they are far apart in memory and nearly always cache misses */
        const char *next = (const char *)q->timers[SLOT_OF(q->heap[0])];
        __builtin_prefetch(next);
        __builtin_prefetch(next + 64);
    }
    return t;
}
