#include "tests/testutil.h"

#include <stdbool.h>

#include <stdlib.h>

#include "sim/evq.h"
#include "sim/hugepage.h"
#include "sim/sim.h"
#include "sim/util.h"

struct rec {
    struct evq_timer t;
    int id;
    int *log;
    int *nlog;
};

static void rec_fire(struct sim *sim, struct evq_timer *t)
{
    (void)sim;
    struct rec *r = container_of(t, struct rec, t);
    r->log[(*r->nlog)++] = r->id;
}

/* Makes r the timer `id` that appends its id to log when it fires, and schedules it at `at`. */
static void rec_at(struct sim *sim, struct rec *r, int id, int *log, int *nlog,
                   enum evq_phase phase, sim_time_t at)
{
    *r = (struct rec){.id = id, .log = log, .nlog = nlog};
    evq_timer_init(&r->t, rec_fire, phase);
    sim_at(sim, &r->t, at);
}

static void test_evq_order_and_ties(void **state)
{
    struct sim *sim = sim_create(1, NULL);
    int log[16];
    int nlog = 0;
    struct rec r[6];
    sim_time_t at[6] = {30, 10, 10, 20, 10, 5};
    for (int i = 0; i < 6; i++)
        rec_at(sim, &r[i], i, log, &nlog, EVQ_PHASE_DEFAULT, at[i]);
    assert_int_equal(sim_run(sim, SIM_TIME_NEVER), 6);
    int want[6] = {5, 1, 2, 4, 3, 0}; /* ties in scheduling order */
    for (int i = 0; i < 6; i++)
        assert_int_equal(log[i], want[i]);
    assert_int_equal(sim->now, 30);
    sim_destroy(sim);
}

/* At one instant, arrivals run before default events, which run before departures, whatever
 * the scheduling order. */
static void test_evq_phases(void **state)
{
    struct sim *sim = sim_create(1, NULL);
    int log[8];
    int nlog = 0;
    struct rec r[3];
    enum evq_phase ph[3] = {EVQ_PHASE_DEPART, EVQ_PHASE_DEFAULT, EVQ_PHASE_ARRIVAL};
    for (int i = 0; i < 3; i++)
        rec_at(sim, &r[i], i, log, &nlog, ph[i], 100);
    sim_run(sim, SIM_TIME_NEVER);
    assert_int_equal(log[0], 2);
    assert_int_equal(log[1], 1);
    assert_int_equal(log[2], 0);
    sim_destroy(sim);
}

static void test_evq_cancel_reschedule(void **state)
{
    struct sim *sim = sim_create(1, NULL);
    int log[8];
    int nlog = 0;
    struct rec r[4];
    for (int i = 0; i < 4; i++)
        rec_at(sim, &r[i], i, log, &nlog, EVQ_PHASE_DEFAULT, 10 * (i + 1));
    evq_cancel(&sim->evq, &r[1].t);
    assert_false(evq_timer_pending(&r[1].t));
    evq_cancel(&sim->evq, &r[1].t); /* idle: no-op */
    evq_reschedule(&sim->evq, &r[0].t, 35);
    assert_int_equal(evq_len(&sim->evq), 3);
    sim_run(sim, SIM_TIME_NEVER);
    assert_int_equal(nlog, 3);
    assert_int_equal(log[0], 2);
    assert_int_equal(log[1], 0);
    assert_int_equal(log[2], 3);
    sim_destroy(sim);
}

static void test_evq_run_until(void **state)
{
    struct sim *sim = sim_create(1, NULL);
    int log[8];
    int nlog = 0;
    struct rec r[2] = {{.id = 0, .log = log, .nlog = &nlog}, {.id = 1, .log = log, .nlog = &nlog}};
    evq_timer_init(&r[0].t, rec_fire, EVQ_PHASE_DEFAULT);
    evq_timer_init(&r[1].t, rec_fire, EVQ_PHASE_DEFAULT);
    sim_at(sim, &r[0].t, 100);
    sim_at(sim, &r[1].t, 300);
    assert_int_equal(sim_run(sim, 200), 1);
    assert_int_equal(sim->now, 200);
    assert_int_equal(sim_run(sim, SIM_TIME_NEVER), 1);
    assert_int_equal(sim->now, 300);
    sim_destroy(sim);
}

/* Random schedules, cancels and reschedules against a reference: pops come out sorted by
 * (time, insertion) and every live timer fires exactly once. */
struct fz {
    struct evq_timer t;
    sim_time_t at;
    uint64_t order;
    int fired;
    bool live; /* scheduled and not cancelled since */
};

static void fz_fire(struct sim *sim, struct evq_timer *t)
{
    (void)sim;
    container_of(t, struct fz, t)->fired++;
}

/* A time in [0, range) (range up to 2^62). */
static sim_time_t rand_time(unsigned *seed, sim_time_t range)
{
    uint64_t r = (uint64_t)rand_r(seed) << 31 | (uint64_t)rand_r(seed);
    return (sim_time_t)(r % (uint64_t)range);
}

/* N timers at random times in [0, range) (many ties when the range is small), then N / 3
 * random cancels and reschedules: pops come in (time, scheduling order) order, each live timer
 * exactly once. */
static void random_heap(int N, sim_time_t range)
{
    struct evq q;
    evq_init(&q);
    struct fz *v = calloc(N, sizeof(*v));
    uint64_t order = 0;
    unsigned seed = 12345;
    for (int i = 0; i < N; i++) {
        evq_timer_init(&v[i].t, fz_fire, EVQ_PHASE_DEFAULT);
        v[i].at = rand_time(&seed, range);
        v[i].order = order++;
        v[i].live = true;
        evq_schedule(&q, &v[i].t, v[i].at);
    }
    for (int i = 0; i < N / 3; i++) {
        int k = rand_r(&seed) % N;
        if (rand_r(&seed) % 2) {
            evq_cancel(&q, &v[k].t);
            v[k].live = false;
        } else {
            v[k].at = rand_time(&seed, range);
            v[k].order = order++;
            v[k].live = true;
            evq_reschedule(&q, &v[k].t, v[k].at);
        }
    }
    sim_time_t last_t = -1;
    uint64_t last_o = 0;
    sim_time_t at;
    struct evq_timer *t;
    while ((t = evq_pop(&q, &at)) != NULL) {
        struct fz *f = container_of(t, struct fz, t);
        assert_int_equal(at, f->at);
        assert_true(at > last_t || (at == last_t && f->order > last_o));
        last_t = at;
        last_o = f->order;
        f->fired++;
    }
    int live = 0;
    for (int i = 0; i < N; i++) {
        assert_int_equal(v[i].fired, v[i].live ? 1 : 0);
        live += v[i].live;
    }
    /* N / 3 random operations, about half of them cancels: some timers end cancelled, at most
     * N / 3 of them */
    assert_true(live >= N - N / 3 && live < N);
    evq_fini(&q);
    free(v);
}

static void test_evq_random_heap(void **state)
{
    random_heap(5000, 1000);
    /* spread over the ring's buckets and beyond its span (evq.h) */
    random_heap(5000, 4 * ((sim_time_t)EVQ_RING << EVQ_RING_SHIFT));
}

/* Large enough that the heap (16 B an entry) and the slot arrays move onto huge pages as they
 * grow (evq.c regrow): the order and the slots survive the copies. */
static void test_evq_random_heap_huge(void **state)
{
    random_heap(300000, 1000);
    assert_true(300000 * sizeof(struct evq_entry) > 2 * HUGEPAGE_BYTES);
}

/* Layout and slots: an entry is 16 bytes and the children of node i (4i+1..4i+4) fill one
 * 64-byte line, also after the heap grows; a bucket's chunk is two lines, its count, link and
 * first 3 entries in the first; a timer scheduled and popped 10,000 times reuses
 * its slot, so the queue does not grow past its first 1,024 entries. */
static void test_evq_layout_and_slots(void **state)
{
    assert_int_equal(sizeof(struct evq_entry), 16);
    assert_int_equal(sizeof(struct evq_chunk), 128);
    assert_int_equal(offsetof(struct evq_chunk, e[3]), 64);
    struct evq q;
    evq_init(&q);
    struct evq_timer t[3000];
    for (int i = 0; i < 3000; i++) {
        evq_timer_init(&t[i], fz_fire, EVQ_PHASE_DEFAULT);
        evq_schedule(&q, &t[i], 3000 - i);
    }
    assert_true(q.cap >= 3000);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal((uintptr_t)&q.heap[4 * i + 1] % 64, 0);
    sim_time_t at;
    for (int i = 0; i < 3000; i++)
        assert_ptr_equal(evq_pop(&q, &at), &t[2999 - i]);
    evq_fini(&q);
    evq_init(&q);
    for (int i = 0; i < 10000; i++) {
        evq_schedule(&q, &t[0], i);
        assert_true(evq_timer_pending(&t[0]));
        assert_ptr_equal(evq_pop(&q, &at), &t[0]);
        assert_false(evq_timer_pending(&t[0]));
    }
    assert_int_equal(q.cap, 1024);
    evq_fini(&q);
}

/* The reference's least pending timer: by (time, phase, scheduling order), or -1. */
static int ref_least(const struct fz *v, const uint8_t *phase, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (!v[i].live)
            continue;
        if (best < 0 || v[i].at < v[best].at ||
            (v[i].at == v[best].at && (phase[i] < phase[best] ||
                                       (phase[i] == phase[best] && v[i].order < v[best].order))))
            best = i;
    }
    return best;
}

/* Cancels as often as pops, on 600 timers in all three phases at times with many ties:
 * every pop is the reference's least pending timer (so cancelled entries left in the heap never
 * run and never change the order), the queue counts only pending timers, and the heap holds at
 * most twice the pending timers (dead entries are removed, not kept). */
#define NMAX_HEAVY 600
static void cancel_heavy(int N, bool wide)
{
    enum { NMAX = NMAX_HEAVY, OPS = 60000 };
    /* how far ahead a timer is scheduled: within one of the ring's buckets (ties), or (wide) also
     * across its buckets and beyond its span, into the far heap (evq.h) */
    const sim_time_t ahead[3] = {40, 20 * ((sim_time_t)1 << EVQ_RING_SHIFT),
                                 3 * ((sim_time_t)EVQ_RING << EVQ_RING_SHIFT)};
    struct fz v[NMAX] = {0};
    uint8_t phase[NMAX];
    struct evq q;
    evq_init(&q);
    unsigned seed = 777;
    for (int i = 0; i < N; i++) {
        phase[i] = (uint8_t)(rand_r(&seed) % 3);
        evq_timer_init(&v[i].t, fz_fire, (enum evq_phase)phase[i]);
    }
    uint64_t order = 0;
    sim_time_t now = 0;
    int live = 0, pops = 0;
    for (int op = 0; op < OPS; op++) {
        int k = rand_r(&seed) % N;
        int what = rand_r(&seed) % 4;
        if (what == 0) { /* pop */
            int want = ref_least(v, phase, N);
            sim_time_t at;
            struct evq_timer *t = evq_pop(&q, &at);
            if (want < 0) {
                assert_null(t);
                continue;
            }
            assert_ptr_equal(t, &v[want].t);
            assert_int_equal(at, v[want].at);
            v[want].live = false;
            now = at;
            live--;
            pops++;
        } else if (what == 1) { /* cancel (of an idle timer: nothing) */
            live -= v[k].live;
            v[k].live = false;
            evq_cancel(&q, &v[k].t);
        } else { /* schedule or move, at most 40 ps ahead (ties), or farther when wide */
            live += !v[k].live;
            v[k].at = now + rand_r(&seed) % ahead[wide ? rand_r(&seed) % 3 : 0];
            v[k].order = order++;
            v[k].live = true;
            evq_reschedule(&q, &v[k].t, v[k].at);
        }
        assert_int_equal(evq_len(&q), live);
        assert_true(q.len <= 2 * (uint32_t)live + 1);
        int least = ref_least(v, phase, N);
        assert_int_equal(evq_next_time(&q), least < 0 ? SIM_TIME_NEVER : v[least].at);
    }
    assert_true(pops > OPS / 8);
    evq_fini(&q);
    for (int i = 0; i < N; i++)
        assert_false(evq_timer_pending(&v[i].t));
}

static void test_evq_cancel_heavy(void **state)
{
    cancel_heavy(NMAX_HEAVY, false);
}

/* The same with times across the ring's buckets and beyond it: entries move from the far heap
 * to the ring and from the ring to the heap as the run advances, in the reference's order. */
static void test_evq_cancel_heavy_wide(void **state)
{
    cancel_heavy(NMAX_HEAVY, true);
    cancel_heavy(12, true); /* sparse: gaps in the ring */
}

/* One bucket's worth of entries (evq.h: the ring's next bucket becomes the run, sorted): 3,000
 * timers at one instant T in all three phases, and some at T + 1..T + 63, scheduled in an order
 * far from theirs, a third of them into places reserved earlier (an older insertion number than
 * entries already waiting); then, while the bucket is popped, cancels of waiting timers and new
 * timers at T and T + 1 (into the heap beside the run). Every pop is the reference's least
 * pending timer (time, phase, insertion number), and every pending timer runs once. */
#define NBUCKET 3000
static void test_evq_bucket_run(void **state)
{
    static struct fz v[NBUCKET];
    static uint8_t phase[NBUCKET];
    static uint64_t seq[NBUCKET];
    const sim_time_t T = 10 * ((sim_time_t)1 << EVQ_RING_SHIFT) + 7;
    struct evq q;
    evq_init(&q);
    unsigned seed = 4242;
    struct evq_timer first;
    evq_timer_init(&first, fz_fire, EVQ_PHASE_DEFAULT);
    evq_schedule(&q, &first, 0); /* the heap's span ends at 1: T goes to a bucket */
    uint64_t counter = 1;        /* evq's insertion numbers, mirrored */
    for (int i = 0; i < NBUCKET; i++) {
        phase[i] = (uint8_t)(rand_r(&seed) % 3);
        evq_timer_init(&v[i].t, fz_fire, (enum evq_phase)phase[i]);
        v[i].at = rand_r(&seed) % 4 ? T : T + 1 + rand_r(&seed) % 63;
        if (i % 3 == 0) { /* a place reserved now, scheduled later */
            seq[i] = evq_reserve(&q);
            v[i].order = counter++;
        }
    }
    for (int i = NBUCKET; i-- > 0;) { /* backwards: the reserved places are older */
        if (i % 3 == 0) {
            evq_schedule_reserved(&q, &v[i].t, v[i].at, seq[i]);
        } else {
            v[i].order = counter++;
            evq_schedule(&q, &v[i].t, v[i].at);
        }
        v[i].live = true;
    }
    sim_time_t at;
    assert_ptr_equal(evq_pop(&q, &at), &first);
    int live = NBUCKET, pops = 0;
    while (live > 0) {
        int k = rand_r(&seed) % NBUCKET;
        int what = rand_r(&seed) % 8;
        if (what == 0 && v[k].live) { /* cancel: a dead entry in the run or the heap */
            evq_cancel(&q, &v[k].t);
            v[k].live = false;
            live--;
        } else if (what == 1 && !v[k].live && pops < 2 * NBUCKET) { /* back, at T or T + 1 */
            v[k].at = T + rand_r(&seed) % 2;
            v[k].order = counter++;
            v[k].live = true;
            live++;
            evq_schedule(&q, &v[k].t, v[k].at);
        } else {
            int want = ref_least(v, phase, NBUCKET);
            struct evq_timer *t = evq_pop(&q, &at);
            assert_ptr_equal(t, &v[want].t);
            assert_int_equal(at, v[want].at);
            v[want].live = false;
            live--;
            pops++;
        }
        assert_int_equal(evq_len(&q), live);
    }
    assert_null(evq_pop(&q, &at));
    assert_true(pops > NBUCKET);
    evq_fini(&q);
}

/* Entries scheduled before the near span's end go to the end of the sorted run when they are
 * not before its last entry, else into the heap (evq.c place_near). Three timers at one instant,
 * each popped and scheduled again at the same instant (after the others: the run grows at its
 * end, 10,000 times, past the run's array, where they go to the heap), interleaved with a timer
 * scheduled 1 ps ahead and then at the instant itself in an earlier phase (before the run's last
 * entry: the heap): they run in the reference's order, and the run never outgrows its array. */
static void test_evq_run_appends(void **state)
{
    enum { N = 4, OPS = 10000 };
    struct fz v[N] = {0};
    uint8_t phase[N] = {EVQ_PHASE_DEFAULT, EVQ_PHASE_DEFAULT, EVQ_PHASE_DEFAULT,
                        EVQ_PHASE_DEFAULT};
    struct evq q;
    evq_init(&q);
    uint64_t order = 0;
    sim_time_t now = 1000;
    for (int i = 0; i < N - 1; i++) {
        evq_timer_init(&v[i].t, fz_fire, EVQ_PHASE_DEFAULT);
        v[i] = (struct fz){.t = v[i].t, .at = now, .order = order++, .live = true};
        evq_schedule(&q, &v[i].t, now);
    }
    evq_timer_init(&v[N - 1].t, fz_fire, EVQ_PHASE_DEFAULT);
    bool heap_used = false, full = false;
    for (int op = 0; op < OPS; op++) {
        int want = ref_least(v, phase, N);
        sim_time_t at;
        assert_ptr_equal(evq_pop(&q, &at), &v[want].t);
        assert_int_equal(at, v[want].at);
        v[want].live = false;
        now = at;
        for (int k = 0; k < N; k++) { /* the one just run again, and every 7th op the odd one */
            if (k != want && (k != N - 1 || op % 7 != 3))
                continue;
            evq_cancel(&q, &v[k].t);
            phase[k] = k == N - 1 && op % 2 ? EVQ_PHASE_ARRIVAL : EVQ_PHASE_DEFAULT;
            evq_timer_init(&v[k].t, fz_fire, (enum evq_phase)phase[k]);
            v[k].at = now + (k == N - 1 && op % 2 == 0);
            v[k].order = order++;
            v[k].live = true;
            evq_schedule(&q, &v[k].t, v[k].at);
        }
        heap_used |= q.nlen > 0;
        full |= q.rlen == q.cap;
        assert_true(q.rlen <= q.cap);
        int live = 0;
        for (int k = 0; k < N; k++)
            live += v[k].live;
        assert_int_equal(evq_len(&q), live);
    }
    assert_true(heap_used);
    assert_true(full);
    evq_fini(&q);
}

struct probe {
    struct evq_timer t;
    uint64_t seq; /* the reserved place asked about */
    bool passed;
};

static void probe_fire(struct sim *sim, struct evq_timer *t)
{
    struct probe *p = container_of(t, struct probe, t);
    p->passed = evq_passed(&sim->evq, 10, EVQ_PHASE_DEFAULT, p->seq);
}

/* A timer scheduled into a reserved place runs where it would have run had it been scheduled
 * when the place was reserved: after r0 (scheduled before), before r2 (scheduled after), at the
 * same instant and phase. evq_passed says whether the place is behind the running event: not
 * during the probe scheduled before the reservation, yes during the one scheduled after it, and
 * after a run up to `until`, every place up to until is behind. */
static void test_evq_reserved_place(void **state)
{
    struct sim *sim = sim_create(1, NULL);
    int log[8];
    int nlog = 0;
    struct rec r[3];
    struct probe before = {0}, after = {0};
    evq_timer_init(&before.t, probe_fire, EVQ_PHASE_DEFAULT);
    evq_timer_init(&after.t, probe_fire, EVQ_PHASE_DEFAULT);
    rec_at(sim, &r[0], 0, log, &nlog, EVQ_PHASE_DEFAULT, 10);
    sim_at(sim, &before.t, 10);
    uint64_t seq = evq_reserve(&sim->evq);
    before.seq = after.seq = seq;
    sim_at(sim, &after.t, 10);
    rec_at(sim, &r[2], 2, log, &nlog, EVQ_PHASE_DEFAULT, 10);
    r[1] = (struct rec){.id = 1, .log = log, .nlog = &nlog};
    evq_timer_init(&r[1].t, rec_fire, EVQ_PHASE_DEFAULT);
    evq_schedule_reserved(&sim->evq, &r[1].t, 10, seq);
    assert_int_equal(sim_run(sim, 10), 5);
    assert_int_equal(nlog, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(log[i], i);
    assert_false(before.passed);
    assert_true(after.passed);
    /* the run stopped at 10: a place at 10 of any phase is behind, one at 11 is not */
    assert_true(evq_passed(&sim->evq, 10, EVQ_PHASE_DEPART, evq_reserve(&sim->evq)));
    assert_false(evq_passed(&sim->evq, 11, EVQ_PHASE_ARRIVAL, 0));
    sim_destroy(sim);
}

/* An owner with a hint: the pointer its event reads first, before or after the timer. */
struct hinted {
    void *before;
    struct rec r;
    void *after;
};

/* A hint (a pointer of the timer's owner that evq_pop prefetches through) keeps the timer at 16
 * bytes, records where the pointer is relative to the timer, and changes nothing in the run:
 * hinted timers whose pointers are NULL, point at a live object or at the owner itself run in
 * the same order as the same timers without hints. */
static void test_evq_hint(void **state)
{
    assert_int_equal(sizeof(struct evq_timer), 16);
    int logs[2][64], nlogs[2] = {0, 0};
    static struct hinted h[2][32];
    char target[256];
    for (int pass = 0; pass < 2; pass++) {
        struct sim *sim = sim_create(1, NULL);
        for (int i = 0; i < 32; i++) {
            struct hinted *o = &h[pass][i];
            rec_at(sim, &o->r, i, logs[pass], &nlogs[pass], (enum evq_phase)(i % 3), (i * 7) % 5);
            o->before = i % 4 == 0 ? NULL : target;
            o->after = o;
            if (pass == 0)
                continue;
            if (i % 2)
                evq_timer_hint(&o->r.t, &o->before, 1u << 0 | 1u << 3);
            else
                evq_timer_hint(&o->r.t, &o->after, 1u << 1);
            assert_int_equal(o->r.t.hint, i % 2 ? (int)(offsetof(struct hinted, before) -
                                                        offsetof(struct hinted, r.t))
                                                 : (int)(offsetof(struct hinted, after) -
                                                         offsetof(struct hinted, r.t)));
        }
        assert_int_equal(sim_run(sim, SIM_TIME_NEVER), 32);
        sim_destroy(sim);
    }
    assert_int_equal(nlogs[0], 32);
    assert_int_equal(nlogs[1], 32);
    assert_memory_equal(logs[0], logs[1], 32 * sizeof(int));
    evq_timer_init(&h[1][1].r.t, rec_fire, EVQ_PHASE_DEFAULT);
    assert_int_equal(h[1][1].r.t.hint, 0);
}

/* evq_pop_until against its general path, the next time and a pop: twin queues given the same
 * timers (times over the ring and beyond, cancels among them) and, at each step, a random
 * `until`; pop_until pops exactly when the next time is not after it, the same timer at the
 * same time, and leaves the queue as it was otherwise. */
static void test_evq_pop_until(void **state)
{
    enum { N = 4000 };
    struct evq q[2];
    struct evq_timer *t = xcalloc(2 * N, sizeof(*t));
    unsigned seed = 99;
    for (int k = 0; k < 2; k++)
        evq_init(&q[k]);
    sim_time_t span = 3 * ((sim_time_t)EVQ_RING << EVQ_RING_SHIFT);
    for (int i = 0; i < N; i++) {
        sim_time_t at = rand_time(&seed, span);
        for (int k = 0; k < 2; k++) {
            evq_timer_init(&t[k * N + i], rec_fire, (enum evq_phase)(i % 3));
            evq_schedule(&q[k], &t[k * N + i], at);
        }
    }
    for (int i = 0; i < N; i += 7)
        for (int k = 0; k < 2; k++)
            evq_cancel(&q[k], &t[k * N + i]);
    int popped = 0, refused = 0;
    while (evq_len(&q[1]) > 0) {
        sim_time_t next = evq_next_time(&q[1]);
        sim_time_t until = next - 2 + rand_time(&seed, 4); /* before, at or after it */
        sim_time_t at0 = -1, at1 = -1;
        struct evq_timer *got = evq_pop_until(&q[1], until, &at1);
        struct evq_timer *want = next > until ? NULL : evq_pop(&q[0], &at0);
        assert_int_equal(got ? got - &t[N] : -1, want ? want - t : -1);
        assert_int_equal(at1, at0);
        assert_int_equal(evq_next_time(&q[1]), evq_next_time(&q[0]));
        popped += got != NULL;
        refused += got == NULL;
    }
    assert_true(popped == N - (N + 6) / 7 && refused > N / 8);
    for (int k = 0; k < 2; k++)
        evq_fini(&q[k]);
    free(t);
}

/* The queue's memory against evq_bytes_bound, the estimate's figure for it: p timers pending,
 * p / EVQ_RING in each bucket of the ring, each moved again and again within its bucket (its
 * cancelled entry stays: up to twice as many entries as pending timers), then popped (buckets
 * sorted into the run through its scratch). The bound covers the arrays at every step. */
static void bytes_bound(uint32_t p)
{
    struct evq q;
    evq_init(&q);
    struct evq_timer *t = xcalloc(p, sizeof(*t));
    uint64_t bound = evq_bytes_bound(p);
    sim_time_t w = (sim_time_t)1 << EVQ_RING_SHIFT;
    for (uint32_t i = 0; i < p; i++) {
        evq_timer_init(&t[i], rec_fire, EVQ_PHASE_DEFAULT);
        evq_schedule(&q, &t[i], 1 + (sim_time_t)(i % EVQ_RING) * w + i / EVQ_RING);
    }
    uint32_t most = 0;
    for (uint32_t m = 0; m < 8 * p; m++) {
        uint32_t i = (m * 7) % p;
        evq_reschedule(&q, &t[i], 1 + (sim_time_t)(i % EVQ_RING) * w + 100 + m % 5);
        most = MAX(most, q.len);
        assert_true(evq_bytes(&q) <= bound);
    }
    assert_true(most > 3 * p / 2); /* cancelled entries held */
    assert_true(q.cap > p);        /* so the arrays grew past p's */
    sim_time_t at;
    uint32_t n = 0;
    while (evq_pop(&q, &at)) {
        assert_true(evq_bytes(&q) <= bound);
        n++;
    }
    assert_int_equal(n, p);
    /* the heaps, the run and its scratch, the slot arrays: the bound counts them all */
    assert_true(bound >= q.cap * (4 * sizeof(struct evq_entry) + sizeof(void *) + 4));
    evq_fini(&q);
    free(t);
}

/* With one timer per bucket, a chunk each (more chunks than entries / 7: the bound's term for
 * the buckets); with 8, the slot arrays outweigh the chunks (its factor 2 for cancelled
 * entries). Without either term the bound fails here. */
static void test_evq_bytes_bound(void **state)
{
    bytes_bound(EVQ_RING);
    bytes_bound(8 * EVQ_RING);
}

TEST_MAIN(cmocka_unit_test(test_evq_hint), cmocka_unit_test(test_evq_order_and_ties), cmocka_unit_test(test_evq_reserved_place), cmocka_unit_test(test_evq_phases),
          cmocka_unit_test(test_evq_cancel_reschedule), cmocka_unit_test(test_evq_run_until),
          cmocka_unit_test(test_evq_random_heap), cmocka_unit_test(test_evq_random_heap_huge),
          cmocka_unit_test(test_evq_layout_and_slots), cmocka_unit_test(test_evq_cancel_heavy),
          cmocka_unit_test(test_evq_cancel_heavy_wide), cmocka_unit_test(test_evq_bucket_run),
          cmocka_unit_test(test_evq_run_appends), cmocka_unit_test(test_evq_pop_until),
          cmocka_unit_test(test_evq_bytes_bound))
