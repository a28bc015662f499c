#include "sim/evq.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/hugepage.h"
#include "sim/prefetch.h"
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
/* The first sizes of the slot arrays and of the chunk pool (both double when full). */
#define EVQ_CAP0 1024
#define EVQ_CHUNKS0 256

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

/* A heap's array of `cap` entries keeping its first n (it starts HEAP_PAD entries into *mem). */
static struct evq_entry *regrow_heap(void **mem, uint32_t n, uint32_t cap)
{
    size_t entry = sizeof(struct evq_entry);
    *mem = regrow(*mem, n ? (HEAP_PAD + n) * entry : 0, (HEAP_PAD + cap) * entry);
    return (struct evq_entry *)*mem + HEAP_PAD;
}

static inline struct evq_entry *top(struct evq *q);

/* Grows both heaps and the slot arrays to `cap` entries (the new slots are free). */
static void grow(struct evq *q, uint32_t cap)
{
    if (cap > SLOTS_MAX)
        too_many("pending events", SLOTS_MAX);
    q->heap = regrow_heap(&q->heap_mem, q->nlen, cap);
    q->far = regrow_heap(&q->far_mem, q->flen, cap);
    q->run = regrow(q->run, q->rlen * sizeof(*q->run), cap * sizeof(*q->run));
    q->scratch = regrow(q->scratch, q->slen * sizeof(*q->scratch), cap * sizeof(*q->scratch));
    q->timers = regrow(q->timers, q->cap * sizeof(*q->timers), cap * sizeof(*q->timers));
    q->free = regrow(q->free, q->cap * sizeof(*q->free), cap * sizeof(*q->free));
    uint32_t nfree = q->cap - q->len;
    for (uint32_t s = cap; s-- > q->cap;)
        q->free[nfree++] = s;
    q->cap = cap;
    q->next = top(q); /* the arrays moved */
}

static void sift_up(struct evq_entry *h, uint32_t i, struct evq_entry e)
{
    while (i > 0) {
        uint32_t parent = PARENT(i);
        if (!entry_less(&e, &h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
}

/* The least child of node i of the heap h of n entries, chosen without branches (which one it
 * is, the predictor guesses wrong about half the time), its rank in *least; n when i is a leaf. */
static inline uint32_t least_child(const struct evq_entry *h, uint32_t n, uint32_t i,
                                   unsigned __int128 *least)
{
    uint32_t first = ARITY * i + 1;
    if (first >= n)
        return n;
    uint32_t end = first + ARITY < n ? first + ARITY : n;
    uint32_t c = first;
    unsigned __int128 m = rank(&h[first]);
    for (uint32_t k = first + 1; k < end; k++) {
        unsigned __int128 r = rank(&h[k]);
        bool lt = r < m;
        c = lt ? k : c;
        m = lt ? r : m;
    }
    *least = m;
    return c;
}

/* Puts e at node i of the heap h of n entries, or below. */
static void sift_down(struct evq_entry *h, uint32_t n, uint32_t i, struct evq_entry e)
{
    unsigned __int128 least;
    uint32_t c;
    while ((c = least_child(h, n, i, &least)) < n && least < rank(&e)) {
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

/* Fills the root's hole of the heap h of n entries with e, its former last leaf: the hole goes
 * down along the least children to a leaf without comparing with e (an entry from the bottom
 * nearly always belongs near the bottom), then e rises from there. */
static void sift_hole(struct evq_entry *h, uint32_t n, struct evq_entry e)
{
    unsigned __int128 least;
    uint32_t i = 0;
    uint32_t c;
    while ((c = least_child(h, n, i, &least)) < n) {
        h[i] = h[c];
        i = c;
    }
    sift_up(h, i, e);
}

/* Removes the root of the heap h of *n entries. */
static void heap_pop(struct evq_entry *h, uint32_t *n)
{
    if (--*n > 0)
        sift_hole(h, *n, h[*n]);
}

/* Orders the n entries of h (bottom-up: O(n)). */
static void heapify(struct evq_entry *h, uint32_t n)
{
    for (uint32_t i = n > 1 ? PARENT(n - 1) + 1 : 0; i-- > 0;)
        sift_down(h, n, i, h[i]);
}

/* Sorts the n entries of a by insertion: linear when they are nearly in order. */
static void insertion_sort(struct evq_entry *a, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        struct evq_entry e = a[i];
        uint32_t j = i;
        for (; j > 0 && entry_less(&e, &a[j - 1]); j--)
            a[j] = a[j - 1];
        a[j] = e;
    }
}

/* Merges the ordered a[0..nl) and a[nl..nl+nr) (nl, nr > 0) through tmp: nothing to do when
 * they are already in order; else only the left's entries after the right's first move. */
static void merge(struct evq_entry *a, uint32_t nl, uint32_t nr, struct evq_entry *tmp)
{
    struct evq_entry *r = a + nl;
    if (!entry_less(&r[0], &a[nl - 1]))
        return;
    uint32_t lo = 0;
    while (!entry_less(&r[0], &a[lo]))
        lo++;
    uint32_t n = nl - lo;
    memcpy(tmp, a + lo, n * sizeof(*tmp));
    struct evq_entry *out = a + lo;
    uint32_t i = 0, j = 0;
    while (i < n && j < nr)
        *out++ = entry_less(&r[j], &tmp[i]) ? r[j++] : tmp[i++];
    memcpy(out, tmp + i, (n - i) * sizeof(*tmp));
}

/* Sorts the n entries of a (tmp: room for n): insertion in blocks, then merges of blocks, each
 * skipped when its halves are already in order; a bucket's entries mostly are. */
#define SORT_BLOCK 16
static void sort_run(struct evq_entry *a, uint32_t n, struct evq_entry *tmp)
{
    for (uint32_t lo = 0; lo < n; lo += SORT_BLOCK)
        insertion_sort(a + lo, n - lo < SORT_BLOCK ? n - lo : SORT_BLOCK);
    for (uint32_t w = SORT_BLOCK; w < n; w *= 2)
        for (uint32_t lo = 0; lo + w < n; lo += 2 * w)
            merge(a + lo, w, n - lo - w < w ? n - lo - w : w, tmp);
}

/* The bytes of the queue's arrays with room for `cap` entries and `nchunks` chunks: the two heaps
 * (with their pads), the run and the scratch (side run, merges), the slot arrays, the ring and
 * the pool. */
static uint64_t arrays_bytes(uint64_t cap, uint64_t nchunks)
{
    uint64_t entries = 2 * (HEAP_PAD + cap) + 2 * cap; /* heap, far; run, scratch */
    return entries * sizeof(struct evq_entry) +
           cap * (sizeof(struct evq_timer *) + sizeof(uint32_t)) +
           EVQ_RING * sizeof(struct evq_bucket) + nchunks * sizeof(struct evq_chunk);
}

uint64_t evq_bytes(const struct evq *q)
{
    return arrays_bytes(q->cap, q->nchunks);
}

/* The least of base, 2 base, 4 base... that is at least n (the arrays' geometric growth). */
static uint64_t grown(uint64_t base, uint64_t n)
{
    while (base < n)
        base *= 2;
    return base;
}

uint64_t evq_bytes_bound(uint64_t pending)
{
    /* dead entries stay until they are more than half (evq_cancel), so at most 2 x pending are
     * held; a bucket's chunks are full but its last */
    uint64_t held = 2 * pending;
    uint64_t chunks = (held + EVQ_CHUNK - 1) / EVQ_CHUNK + (held < EVQ_RING ? held : EVQ_RING);
    return arrays_bytes(grown(EVQ_CAP0, held), grown(EVQ_CHUNKS0, chunks));
}

void evq_init(struct evq *q)
{
    *q = (struct evq){0};
    grow(q, EVQ_CAP0);
    q->ring = xaligned(64, EVQ_RING * sizeof(*q->ring));
    for (uint32_t b = 0; b < EVQ_RING; b++)
        q->ring[b] = (struct evq_bucket){EVQ_NONE, EVQ_NONE};
    q->ring_shift = EVQ_RING_SHIFT;
    q->free_chunk = EVQ_NONE;
}

/* Empties bucket b into h (appending at *n), its chunks back to the pool; returns how many. */
static uint32_t take_bucket(struct evq *q, uint32_t b, struct evq_entry *h, uint32_t *n)
{
    uint32_t count = 0;
    for (uint32_t c = q->ring[b].head; c != EVQ_NONE;) {
        struct evq_chunk *ch = &q->chunks[c];
        for (uint32_t i = 0; i < ch->n; i++)
            h[(*n)++] = ch->e[i];
        count += ch->n;
        uint32_t next = ch->next;
        ch->next = q->free_chunk;
        q->free_chunk = c;
        c = next;
    }
    q->ring[b] = (struct evq_bucket){EVQ_NONE, EVQ_NONE};
    q->ring_bits[b / 64] &= ~(1ull << (b % 64));
    q->ring_len -= count;
    return count;
}

/* Every entry of the ring moves to the end of the far heap's array (not ordered). */
static void ring_to_far(struct evq *q)
{
    for (uint32_t w = 0; w < EVQ_RING / 64; w++)
        while (q->ring_bits[w])
            take_bucket(q, w * 64 + (uint32_t)__builtin_ctzll(q->ring_bits[w]), q->far, &q->flen);
}

void evq_fini(struct evq *q)
{
    ring_to_far(q);
    while (q->rpos < q->rlen)
        q->far[q->flen++] = q->run[q->rpos++];
    while (q->spos < q->slen)
        q->far[q->flen++] = q->scratch[q->spos++];
    for (uint32_t i = 0; i < q->nlen + q->flen; i++) {
        struct evq_entry e = i < q->nlen ? q->heap[i] : q->far[i - q->nlen];
        struct evq_timer *t = q->timers[SLOT_OF(e)];
        if (t)
            t->slot = EVQ_IDLE;
    }
    void *arrays[] = {q->chunks, q->ring,   q->heap_mem, q->far_mem,
                      q->timers, q->free,   q->run,      q->scratch};
    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
        free(arrays[i]);
    *q = (struct evq){0};
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
 * that the pop of the event before prefetched). A prefetch never faults, so a NULL target costs nothing.
 * Always inlined: as a function of its own it has no effect the compiler counts (a prefetch is
 * none), so GCC found it pure and dropped its calls. */
static inline __attribute__((always_inline)) void prefetch_hint(const struct evq_timer *t)
{
    if (!t->hint)
        return;
    /* the pointer (of the owner's type) as a number: lines past a NULL target are addresses,
     * not pointer arithmetic on NULL (undefined) */
    uintptr_t p;
    memcpy(&p, (const char *)t + t->hint, sizeof(p));
    unsigned lines = t->hint_lines;
    if (lines & 1)
        SIM_PREFETCH((const void *)p);
    if (lines & 2)
        SIM_PREFETCH((const void *)(p + 64));
    if (lines & 4)
        SIM_PREFETCH((const void *)(p + 128));
    if (lines & 8)
        SIM_PREFETCH((const void *)(p + 192));
}

/* Frees the slot of an entry that leaves the queue. */
static void free_slot(struct evq *q, uint32_t slot)
{
    q->len--;
    q->free[q->cap - q->len - 1] = slot;
}

/* An empty chunk from the pool (which grows geometrically when none is free). */
static uint32_t new_chunk(struct evq *q)
{
    if (q->free_chunk == EVQ_NONE) {
        uint32_t n = q->nchunks ? 2 * q->nchunks : EVQ_CHUNKS0;
        if (n > SLOTS_MAX)
            too_many("pending events", SLOTS_MAX);
        q->chunks = regrow(q->chunks, q->nchunks * sizeof(*q->chunks), n * sizeof(*q->chunks));
        for (uint32_t c = n; c-- > q->nchunks;) {
            q->chunks[c].next = q->free_chunk;
            q->free_chunk = c;
        }
        q->nchunks = n;
    }
    uint32_t c = q->free_chunk;
    q->free_chunk = q->chunks[c].next;
    q->chunks[c].next = EVQ_NONE;
    q->chunks[c].n = 0;
    return c;
}

/* Appends e to bucket b of the ring in a new chunk (the bucket is empty or its last chunk full). */
static __attribute__((noinline)) void append_chunk(struct evq *q, uint32_t b, struct evq_entry e)
{
    struct evq_bucket *bk = &q->ring[b];
    uint32_t c = new_chunk(q);
    if (bk->tail == EVQ_NONE)
        bk->head = c;
    else
        q->chunks[bk->tail].next = c;
    bk->tail = c;
    q->ring_bits[b / 64] |= 1ull << (b % 64);
    q->chunks[c].e[0] = e;
    q->chunks[c].n = 1;
    q->ring_len++;
}

/* Appends e to the sorted array a (at *pos..*len, room for cap) if it is not before a's last
 * entry (an empty one starts again at 0); returns whether it did. */
static inline __attribute__((always_inline)) bool append_sorted(struct evq_entry *a, uint32_t *pos,
                                                                uint32_t *len, uint32_t cap,
                                                                struct evq_entry e)
{
    if (*pos == *len)
        *pos = *len = 0;
    if (*len == cap || (*len > 0 && entry_less(&e, &a[*len - 1])))
        return false;
    a[(*len)++] = e;
    return true;
}

/* e, just placed at `at`, is the next entry if it is before the next one. */
static inline __attribute__((always_inline)) void note_next(struct evq *q, struct evq_entry *at,
                                                            struct evq_entry e)
{
    if (!q->next || entry_less(&e, q->next))
        q->next = at;
}

/* place_near of an entry before the run's last: the side run or the heap. */
static __attribute__((noinline)) void place_beside(struct evq *q, struct evq_entry e)
{
    if (append_sorted(q->scratch, &q->spos, &q->slen, q->cap, e)) {
        if (q->slen == 1) /* else after the side run's next entry: not the next */
            note_next(q, q->scratch, e);
        return;
    }
    sift_up(q->heap, q->nlen++, e);
    note_next(q, q->heap, e); /* the heap's top if it is the least */
}

/* An entry before near_end: at the run's end when it is not before the run's last entry (the
 * events scheduled at one instant, or at now plus one delay, come in order), else at the side
 * run's end when not before its last (a bucket's reserved places taken late, in their order),
 * else in the heap. */
static inline __attribute__((always_inline)) void place_near(struct evq *q, struct evq_entry e)
{
    if (!append_sorted(q->run, &q->rpos, &q->rlen, q->cap, e))
        place_beside(q, e);
    else if (q->rlen == 1) /* else after the run's next entry: not the next */
        note_next(q, q->run, e);
}

/* Where an entry waits: the run or the heap before near_end; a bucket of the ring up to
 * EVQ_RING bucket widths after it; beyond, the far heap. */
static inline __attribute__((always_inline)) void place(struct evq *q, struct evq_entry e)
{
    uint64_t at = (uint64_t)e.at;
    if (at < q->near_end) {
        place_near(q, e);
        return;
    }
    uint64_t off = (at - q->near_end) >> q->ring_shift;
    if (off >= EVQ_RING) {
        sift_up(q->far, q->flen++, e);
        return;
    }
    uint32_t b = (q->ring_head + (uint32_t)off) & (EVQ_RING - 1);
    uint32_t tail = q->ring[b].tail;
    if (tail == EVQ_NONE || q->chunks[tail].n == EVQ_CHUNK) {
        append_chunk(q, b, e);
        return;
    }
    struct evq_chunk *ch = &q->chunks[tail];
    ch->e[ch->n++] = e;
    q->ring_len++;
}

/* The offset from the ring's head of its first bucket that holds entries (ring_len > 0). */
static uint32_t first_bucket(const struct evq *q)
{
    uint32_t h = q->ring_head;
    for (uint32_t k = 0; k <= EVQ_RING / 64; k++) {
        uint32_t w = (h / 64 + k) % (EVQ_RING / 64);
        uint64_t bits = q->ring_bits[w];
        if (k == 0)
            bits &= ~0ull << (h % 64); /* the head's word: from the head on */
        else if (k == EVQ_RING / 64)
            bits &= h % 64 ? ~(~0ull << (h % 64)) : 0; /* back at it: below the head */
        if (bits)
            return (w * 64 + (uint32_t)__builtin_ctzll(bits) - h) & (EVQ_RING - 1);
    }
    SIM_ASSERT(false);
    return 0;
}

/* The far heap's entries that the ring now covers move into it. */
static void migrate(struct evq *q)
{
    while (q->flen > 0 && ((uint64_t)q->far[0].at - q->near_end) >> q->ring_shift < EVQ_RING) {
        struct evq_entry e = q->far[0];
        heap_pop(q->far, &q->flen);
        place(q, e);
    }
}

/* Keeps the pending entries of h[0..*n), in their order; the dead ones leave (their slots
 * freed, q->dead counted down). */
static void keep_pending(struct evq *q, struct evq_entry *h, uint32_t *n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < *n; i++) {
        if (q->timers[SLOT_OF(h[i])])
            h[k++] = h[i];
        else
            free_slot(q, SLOT_OF(h[i]));
    }
    q->dead -= *n - k;
    *n = k;
}

/* keep_pending of a heap, ordered again. */
static void keep_pending_heap(struct evq *q, struct evq_entry *h, uint32_t *n)
{
    keep_pending(q, h, n);
    heapify(h, *n);
}

/* Every entry of the ring moves to the far heap, and the ring's buckets become 2^shift ps. */
static void rebucket(struct evq *q, uint32_t shift)
{
    ring_to_far(q);
    heapify(q->far, q->flen);
    q->ring_head = 0;
    q->ring_shift = shift;
}

/* Every 256 buckets moved into the heap: if they held fewer than 8 entries on average, buckets
 * become twice as wide (a move costs more than the entries' sifts save). They never become
 * narrower: a full bucket often holds one instant's events (equal links send in step), which no
 * width splits, and a narrower ring would leave the events a microsecond ahead to the far heap. */
static void review_width(struct evq *q)
{
    uint64_t avg = q->moved / q->refills;
    q->refills = 0;
    q->moved = 0;
    if (avg < 8 && q->ring_shift < EVQ_RING_SHIFT_MAX) {
        rebucket(q, q->ring_shift + 1);
        migrate(q);
    }
}

/* While the run and the heap are empty and entries wait elsewhere: the ring's next bucket that
 * holds entries becomes the run (sorted; its dead entries leave when they come to the top), and
 * the ring moves past it; when the ring is empty, it moves to the far heap's first entry. */
static void refill(struct evq *q)
{
    while (q->nlen == 0 && q->rpos == q->rlen && q->spos == q->slen && q->len > 0) {
        if (q->ring_len == 0) {
            q->near_end = (uint64_t)q->far[0].at;
            migrate(q);
            continue;
        }
        uint32_t off = first_bucket(q);
        uint32_t b = (q->ring_head + off) & (EVQ_RING - 1);
        q->rpos = q->rlen = q->spos = q->slen = 0; /* the scratch is free */
        q->moved += take_bucket(q, b, q->run, &q->rlen);
        sort_run(q->run, q->rlen, q->scratch);
        q->ring_head = (b + 1) & (EVQ_RING - 1);
        q->near_end += (uint64_t)(off + 1) << q->ring_shift;
        migrate(q);
        if (++q->refills == 256)
            review_width(q);
    }
}

/* The next entry: the least of the run's next, the side run's next and the heap's top; NULL
 * when all are empty. */
static inline __attribute__((always_inline)) struct evq_entry *top(struct evq *q)
{
    struct evq_entry *r = q->rpos < q->rlen ? &q->run[q->rpos] : NULL;
    if (q->spos < q->slen && (!r || entry_less(&q->scratch[q->spos], r)))
        r = &q->scratch[q->spos];
    if (q->nlen > 0 && (!r || entry_less(&q->heap[0], r)))
        return &q->heap[0];
    return r;
}

/* Moves past the next entry e (top(q)) of the run or the side run. */
static inline __attribute__((always_inline)) void advance(struct evq *q, struct evq_entry *e)
{
    if (e == &q->run[q->rpos])
        q->rpos++;
    else
        q->spos++;
}

/* Removes the next entry, e (top(q)), and frees its slot. */
static inline __attribute__((always_inline)) void remove_top(struct evq *q, struct evq_entry *e)
{
    free_slot(q, SLOT_OF(*e));
    if (e == q->heap)
        heap_pop(q->heap, &q->nlen);
    else
        advance(q, e);
}

/* Drops dead entries from the top, so that the next entry is a pending timer's; returns it, or
 * NULL when the queue is empty. */
static __attribute__((noinline)) struct evq_entry *drop_dead_top(struct evq *q)
{
    for (;;) {
        struct evq_entry *e;
        while ((e = top(q)) && !q->timers[SLOT_OF(*e)]) {
            remove_top(q, e);
            q->dead--;
        }
        if (e || q->len == 0)
            return q->next = e;
        refill(q);
    }
}

/* Removes every dead entry. Keys are unique, so the order of the events does not depend on
 * where entries sit. */
static struct evq_entry *drop_dead(struct evq *q)
{
    ring_to_far(q);
    uint32_t n = q->rlen - q->rpos;
    keep_pending(q, q->run + q->rpos, &n);
    q->rlen = q->rpos + n;
    n = q->slen - q->spos;
    keep_pending(q, q->scratch + q->spos, &n);
    q->slen = q->spos + n;
    keep_pending_heap(q, q->heap, &q->nlen);
    keep_pending_heap(q, q->far, &q->flen);
    SIM_ASSERT(q->dead == 0);
    migrate(q);
    return drop_dead_top(q);
}

static inline __attribute__((always_inline)) uint64_t next_seq(struct evq *q)
{
    if (q->counter == KEY_COUNTER_MAX)
        too_many("scheduled events", KEY_COUNTER_MAX);
    return q->counter++;
}

uint64_t evq_reserve(struct evq *q)
{
    return next_seq(q);
}

static inline void insert(struct evq *q, struct evq_timer *t, sim_time_t at, uint64_t seq);

void evq_schedule(struct evq *q, struct evq_timer *t, sim_time_t at)
{
    insert(q, t, at, next_seq(q));
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

/* The time an entry asked for at `at`, past the horizon, waits at: never (it is kept in the
 * queue, as its owner expects it scheduled; the run loop stops first). */
static __attribute__((noinline)) sim_time_t past_horizon(struct evq *q, sim_time_t at)
{
    SIM_ASSERT(at >= 0);
    if (!q->past_horizon)
        q->past_horizon = at;
    return SIM_TIME_NEVER;
}

/* insert, once the timer is known idle, the time within the horizon and a slot free. */
static inline __attribute__((always_inline)) void insert_checked(struct evq *q,
                                                                 struct evq_timer *t,
                                                                 sim_time_t at, uint64_t seq)
{
    uint32_t slot = q->free[q->cap - q->len - 1];
    struct evq_entry e = {
        .at = at,
        .key = (uint64_t)t->phase << KEY_PHASE_SHIFT | seq << KEY_SLOT_BITS | slot,
    };
    t->slot = slot;
    q->timers[slot] = t;
    q->len++;
    if (q->len == 1 && (uint64_t)at >= q->near_end)
        q->near_end = (uint64_t)at + 1; /* into an empty queue: the near span moves up to it */
    place(q, e);
}

/* insert when the time is past the horizon, the arrays are full or the timer is pending (a
 * bug): out of line, so that the common insert makes no call but tail calls and saves no
 * registers. */
static __attribute__((noinline)) void insert_slow(struct evq *q, struct evq_timer *t,
                                                  sim_time_t at, uint64_t seq)
{
    SIM_ASSERT(t->slot == EVQ_IDLE);
    if ((uint64_t)at > SIM_TIME_HORIZON) /* a negative time too */
        at = past_horizon(q, at);
    if (q->len == q->cap)
        grow(q, 2 * q->cap);
    insert_checked(q, t, at, seq);
}

static inline __attribute__((always_inline)) void insert(struct evq *q, struct evq_timer *t,
                                                         sim_time_t at, uint64_t seq)
{
    if (__builtin_expect(
            (uint64_t)at > SIM_TIME_HORIZON || q->len == q->cap || t->slot != EVQ_IDLE, 0)) {
        insert_slow(q, t, at, seq);
        return;
    }
    insert_checked(q, t, at, seq);
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

/* Prefetches the timer t's line and the lines before and after it: its owner's lines that its
 * event reads first (a link's end of transmission reads the line before its timer's, where the
 * hint's pointer is; an object's fields around its timer), and where the hint's pointer is. */
static inline __attribute__((always_inline)) void prefetch_timer(const struct evq_timer *t)
{
    uintptr_t p = (uintptr_t)t; /* the line before is outside the timer: an address */
    SIM_PREFETCH((const void *)(p - 64));
    SIM_PREFETCH(t);
    SIM_PREFETCH((const void *)(p + 64));
}

/* A pop's prefetches, a software pipeline: at scale the lines an event reads are far apart in
 * memory and nearly always cache misses, and one event lasts long enough for a miss to be served,
 * so what is fetched one event ahead arrives in time, what an event fetches at its own start
 * does not. The pop of event i fetches the timer of event i + 2 as the queue has it then, the
 * run's second entry (prefetch_second: the next is nearly always the run's first; an entry placed
 * before the second meanwhile was written as it was scheduled, so its timer is at hand), and the
 * hint of event i + 1 (the lines it reads first: its timer's lines came during event i - 1, from
 * the pop of i - 1). */
static inline __attribute__((always_inline)) void prefetch_second(const struct evq *q)
{
    const struct evq_timer *t;
    if (q->rpos + 1 < q->rlen && (t = q->timers[SLOT_OF(q->run[q->rpos + 1])])) /* else dead */
        prefetch_timer(t);
}

/* The end of a pop whose entry was the heap's top (`heap`) or whose next entry is not simply
 * the run's or heap's live front: the heap is sifted, dead entries go, the next is prefetched.
 * Out of line, so that the common pop saves no registers. */
static __attribute__((noinline)) struct evq_timer *pop_rest(struct evq *q, struct evq_timer *t,
                                                            bool heap)
{
    if (heap)
        heap_pop(q->heap, &q->nlen);
    struct evq_entry *e;
    if (q->dead > q->len / 2) /* dead entries far ahead outnumber the pending ones: all go */
        e = drop_dead(q);
    else if (!(e = top(q)) || !q->timers[SLOT_OF(*e)])
        e = drop_dead_top(q);
    q->next = e;
    prefetch_second(q);
    if (e)
        prefetch_hint(q->timers[SLOT_OF(*e)]);
    return t;
}

/* Removes the next entry e (live, top(q)) and returns its timer. */
static inline __attribute__((always_inline)) struct evq_timer *pop_entry(struct evq *q,
                                                                         struct evq_entry *e,
                                                                         sim_time_t *at)
{
    struct evq_timer *t = q->timers[SLOT_OF(*e)];
    q->cur = *e;
    *at = e->at;
    t->slot = EVQ_IDLE;
    free_slot(q, SLOT_OF(*e));
    if (e == &q->run[q->rpos])
        q->rpos++;
    else if (e == q->heap)
        return pop_rest(q, t, true);
    else
        q->spos++;
    prefetch_second(q); /* before top(q): its registers are free again after it */
    struct evq_timer *next;
    if (q->dead > q->len / 2 || !(e = top(q)) || !(next = q->timers[SLOT_OF(*e)]))
        return pop_rest(q, t, false);
    q->next = e;
    prefetch_hint(next);
    return t;
}

struct evq_timer *evq_pop(struct evq *q, sim_time_t *at)
{
    struct evq_entry *e = q->next;
    return e ? pop_entry(q, e, at) : NULL;
}

struct evq_timer *evq_pop_until(struct evq *q, sim_time_t until, sim_time_t *at)
{
    struct evq_entry *e = q->next;
    return e && e->at <= until ? pop_entry(q, e, at) : NULL;
}
