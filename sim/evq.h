/* The event queue: 16-byte {time, key} entries, ordered by (time, key). The key is
 * (phase << 62 | insertion counter << 24 | slot): among events at the same picosecond, lower
 * phases run first, and within a phase events run in the order they were scheduled, so runs are
 * bit-for-bit reproducible (the counter is unique, so the slot never decides, and the order does
 * not depend on where an entry waits). At most 2^38 events are scheduled in a run and 2^24 are
 * pending at once (exit 1 beyond).
 *
 * Where entries wait (struct evq): the next few nanoseconds' in two sorted runs and a 4-ary
 * heap, the next microseconds' unordered in a ring of buckets (an append each), later ones in a
 * second heap; a bucket is sorted into the run when its time comes. At scale most pending
 * events are link arrivals a microsecond or two ahead: they are appended, not sifted through a
 * heap of all of them (at 58,000 pending entries that heap did not fit an L2 and its sift was
 * half the instructions).
 *
 * Timers are intrusive: embedded in their owner, which recovers itself with container_of. A
 * pending timer holds a slot; the queue keeps each slot's timer in a compact array. A cancel
 * only clears that (the entry stays, dead, until it is the next entry, where it is dropped;
 * when more than half the entries are dead they are all removed at once), so a sift moves
 * entries and writes nothing else: with an array of heap positions, every moved entry wrote a
 * random line of it, a cache miss per level at scale. Scheduling never allocates once the
 * arrays have grown (they grow geometrically and never shrink; an array of 2 MiB or more is on
 * huge pages, hugepage.h). */
#ifndef SIM_SIM_EVQ_H
#define SIM_SIM_EVQ_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/simtime.h"

struct sim;
struct evq_timer;

typedef void evq_fire_fn(struct sim *sim, struct evq_timer *t);

/* Same-instant ordering. A packet that arrives at a queue at the instant the queue's link
 * finishes a transmission is admitted before the departure frees its place (as in ns-3). */
enum evq_phase {
    EVQ_PHASE_ARRIVAL = 0, /* packet deliveries at the end of a link */
    EVQ_PHASE_DEFAULT = 1, /* applications, timers */
    EVQ_PHASE_DEPART = 2,  /* link transmission completions */
};

#define EVQ_IDLE UINT32_MAX

/* 16 bytes. The hint (evq_timer_hint) names a pointer in the timer's owner whose target the
 * event reads first: the pop of the event before prefetches that target (evq.c). */
struct evq_timer {
    evq_fire_fn *fire;
    uint32_t slot;      /* EVQ_IDLE when not scheduled */
    uint8_t phase;      /* enum evq_phase */
    uint8_t hint_lines; /* bit i: line i of the hint's target is prefetched */
    int16_t hint;       /* bytes from the timer to the hint pointer; 0: none */
};

/* 16 bytes: the 4 children of a heap node fill one cache line (the heap is aligned so). */
struct evq_entry {
    sim_time_t at;
    uint64_t key;
};

/* The ring: EVQ_RING buckets of 2^ring_shift ps each. The width starts at 2^EVQ_RING_SHIFT ps
 * (4.1 ns; the ring spans 4.2 us) and doubles, up to 2^EVQ_RING_SHIFT_MAX, while buckets hold
 * fewer than a few entries. */
#define EVQ_RING_BITS 10
#define EVQ_RING (1u << EVQ_RING_BITS)
#define EVQ_RING_SHIFT 12
#define EVQ_RING_SHIFT_MAX 36

/* A bucket is a chain of chunks of 7 entries (two cache lines; the first holds the chunk's
 * count and link and 3 entries), unordered; chunks come from a pool shared by the buckets and
 * go back to it when their bucket becomes the run, so the ring holds the lines of its entries
 * only, and reuses the ones just freed. */
#define EVQ_CHUNK 7
#define EVQ_NONE UINT32_MAX
struct evq_chunk {
    _Alignas(64) uint32_t next; /* the next chunk of the bucket, or EVQ_NONE */
    uint32_t n;
    _Alignas(16) struct evq_entry e[EVQ_CHUNK]; /* from byte 16: 3 in the first line */
};

struct evq_bucket {
    uint32_t head; /* chunk, or EVQ_NONE */
    uint32_t tail;
};

/* Two levels: the entries before near_end wait in the run (a bucket's entries, sorted), the side
 * run and the heap (those scheduled before near_end since: appended to the run or the side run
 * when not before its last entry, else in the heap); the ring's buckets those of the next
 * EVQ_RING bucket widths, unordered; the far heap the later ones. The next event is the least
 * of the run's and the side run's next entries and the heap's top. When all are empty, the
 * ring's next bucket that holds entries becomes the run, and the ring moves on (taking in the
 * far heap's entries it then covers). A bucket's entries arrive nearly in order (often one
 * instant's, in scheduling order), so sorting them costs less than sifting each out of a heap;
 * the entries placed beside them mostly come in order too (reserved places, a link's
 * transmission ends at one instant, taken in their order), two runs take most of them. */
struct evq {
    struct evq_entry *heap;
    uint32_t nlen;   /* entries in the heap */
    uint32_t rpos;   /* the run's next entry; runs and heap are empty only when the queue is */
    uint32_t rlen;   /* the run's end */
    struct evq_entry *run;
    struct evq_entry *scratch; /* the side run between refills; the run's merges at a refill */
    uint32_t spos;   /* the side run's next entry */
    uint32_t slen;   /* its end */
    struct evq_entry *next; /* the next entry (the least of the three; a pending timer's), or
                             * NULL when the queue is empty */
    uint32_t len;    /* entries in the queue, dead ones included */
    uint32_t cap;
    uint32_t dead;   /* entries of cancelled timers */
    uint64_t near_end; /* the heap's entries are before it, the others at or after it */
    struct evq_timer **timers; /* slot -> its pending timer, NULL for a dead entry's slot */
    uint32_t *free;  /* free slots: cap - len of them */
    void *heap_mem;  /* the heap's allocation (the heap starts 3 entries in: evq.c) */
    struct evq_bucket *ring; /* bucket (ring_head + i) % EVQ_RING: [near_end + i w, + w) */
    uint32_t ring_head;
    uint32_t ring_len; /* entries in the ring */
    uint32_t ring_shift; /* a bucket is 2^ring_shift ps */
    uint32_t refills;    /* buckets moved into the heap since the width was last reviewed */
    uint64_t moved;      /* entries they held */
    uint64_t ring_bits[EVQ_RING / 64]; /* bit b: bucket b holds entries */
    struct evq_chunk *chunks; /* the pool */
    uint32_t nchunks;
    uint32_t free_chunk;      /* first of the free chunks' chain, or EVQ_NONE */
    struct evq_entry *far;
    uint32_t flen;
    void *far_mem;
    uint64_t counter; /* insertion counter, low 56 bits of the key */
    uint64_t fired;   /* events executed, for statistics */
    uint64_t folded;  /* events that did nothing, run without an entry (evq_note_folded) */
    struct evq_entry cur; /* the event running now, or {until, max} after a run up to until */
    sim_time_t past_horizon; /* first time asked for beyond SIM_TIME_HORIZON, or 0 */
};

void evq_init(struct evq *q);
void evq_fini(struct evq *q);

/* Prepares a timer; it is idle until scheduled. */
void evq_timer_init(struct evq_timer *t, evq_fire_fn *fire, enum evq_phase phase);

/* The event of t reads *ptr first (ptr is a field of t's owner, in the line of t or in the
 * line before or after it), and of the object it points to, the 64-byte lines whose bits are
 * set in `lines` (bits 0-3). The pops run a pipeline: the pop two events before t's prefetches
 * t's line and those around it, the pop of the event before reads *ptr and prefetches those
 * lines, so they arrive while that event runs. */
void evq_timer_hint(struct evq_timer *t, void *const *ptr, uint8_t lines);

static inline bool evq_timer_pending(const struct evq_timer *t)
{
    return t->slot != EVQ_IDLE;
}

/* Schedules an idle timer at absolute time `at`. Scheduling a pending timer is a bug. */
void evq_schedule(struct evq *q, struct evq_timer *t, sim_time_t at);
/* Moves a timer (pending or idle) to `at`; it runs after events already scheduled there. */
void evq_reschedule(struct evq *q, struct evq_timer *t, sim_time_t at);
/* Cancels a pending timer; cancelling an idle timer does nothing. */
void evq_cancel(struct evq *q, struct evq_timer *t);

static inline sim_time_t evq_next_time(const struct evq *q)
{
    return q->next ? q->next->at : SIM_TIME_NEVER;
}

/* Removes and returns the earliest timer (its time in *at), or NULL when empty. */
struct evq_timer *evq_pop(struct evq *q, sim_time_t *at);
/* evq_pop of the earliest timer if its time is not after `until`, else NULL (the queue as it
 * was): the run loop's test and pop in one look at the next entry. */
struct evq_timer *evq_pop_until(struct evq *q, sim_time_t until, sim_time_t *at);

/* Reserved places. An owner whose event may turn out to do nothing (a link's end of
 * transmission when nothing waits to be sent) takes the event's place in the order when it
 * would schedule it (evq_reserve: the insertion number it would get), and schedules it into that
 * place only when it is needed (evq_schedule_reserved); if it never is, the owner calls
 * evq_note_folded once the place has passed (evq_passed). Every other event keeps its order, so
 * a run with folded events is the same run as without. */
uint64_t evq_reserve(struct evq *q);
void evq_schedule_reserved(struct evq *q, struct evq_timer *t, sim_time_t at, uint64_t seq);
/* Whether an event at `at` of `phase` with reserved number `seq` is ordered before the event
 * running now (or before the point where the last run stopped): it would have run already. */
bool evq_passed(const struct evq *q, sim_time_t at, enum evq_phase phase, uint64_t seq);
static inline void evq_note_folded(struct evq *q)
{
    q->folded++;
}
/* The run stopped at `until`: every event up to it has run (sim_run calls it). */
void evq_mark_until(struct evq *q, sim_time_t until);

/* The bytes the queue's arrays take now (they never shrink: the most it took so far). */
uint64_t evq_bytes(const struct evq *q);
/* The most they can take in a run that never has more than `pending` timers pending at once:
 * what the memory estimate counts for the queue (sim/app/estimate.h). */
uint64_t evq_bytes_bound(uint64_t pending);

/* Pending timers. */
static inline uint32_t evq_len(const struct evq *q)
{
    return q->len - q->dead;
}

#endif
