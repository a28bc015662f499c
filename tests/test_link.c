/* Links: folded ends of transmission and keyed arrivals (link.h). A sender node with a FIFO
 * sends frames to a receiver over one link; the same run is made with the sender telling the
 * link when it is idle (folds allowed) and without (every end is an event). Expected times and
 * fold counts are derived here from the frame time, the gaps and the delay. */
#include "tests/testscenario.h"

#include <stdbool.h>
#include <stdlib.h>

#include "models/net/link.h"
#include "models/net/node.h"
#include "sim/sim.h"
#include "sim/util.h"

#define RATE_BPS 10000000000ULL /* 10 Gbps */
#define FRAME_BYTES 1000u
#define OVERHEAD 24u /* Ethernet: preamble, IFG, FCS */
#define NPKTS 6
/* one frame on the wire: (1000 + 24) x 8 bits at 10 Gbps = 819.2 ns */
#define FRAME_PS ((sim_time_t)(FRAME_BYTES + OVERHEAD) * 8 * 1000 / 10)

struct end {
    struct node node;
    struct pkt_fifo q;
    sim_time_t rx_at[NPKTS + 1];
    int nrx;
};

/* A frame enters the sender's queue at `at` (phase DEFAULT); `late` (if set) is a DEPART-phase
 * timer the enqueue schedules at `late_at`, after it, to enqueue the next frame. */
struct send {
    struct evq_timer t;
    struct end *from;
    struct send *late;
    sim_time_t late_at;
};

static struct end *end_of(struct node *n)
{
    return container_of(n, struct end, node);
}

static struct pkt *end_pull(struct node *n, struct port *out)
{
    (void)out;
    return pkt_fifo_pop(&end_of(n)->q);
}

static bool end_idle(const struct node *n, const struct port *out)
{
    (void)out;
    return !container_of(n, struct end, node)->q.head;
}

static void end_receive(struct node *n, struct port *in, struct pkt *p)
{
    (void)in;
    struct end *e = end_of(n);
    if (e->nrx < (int)ARRAY_LEN(e->rx_at))
        e->rx_at[e->nrx] = n->sim->now;
    e->nrx++;
    pkt_free(n->sim, p);
}

static void end_destroy(struct node *n)
{
    (void)n;
}

static const struct node_ops folding_ops = {
    .receive = end_receive, .pull = end_pull, .idle = end_idle, .destroy = end_destroy};
static const struct node_ops plain_ops = {
    .receive = end_receive, .pull = end_pull, .destroy = end_destroy};

static void send_fire(struct sim *sim, struct evq_timer *t)
{
    struct send *s = container_of(t, struct send, t);
    struct pkt *p = pkt_alloc(sim);
    p->size_bytes = FRAME_BYTES;
    pkt_fifo_push(&s->from->q, p);
    link_kick(sim, &s->from->node.ports[0]->tx);
    if (s->late)
        sim_at(sim, &s->late->t, s->late_at);
}

struct result {
    sim_time_t rx_at[NPKTS];
    int nrx;
    uint64_t fired, folded, counter;
    sim_time_t busy_ps;
};

/* How a run is made: the link's delay, the gap between the first five frames, keyed arrivals
 * (link.h), and whether the sixth frame comes late (below). */
struct mode {
    sim_time_t delay, gap;
    bool keyed, late;
};

/* Frames enter at 0, gap, 2 gap, 3 gap, 4 gap; the sixth at the end of the fifth's
 * transmission, in phase DEFAULT (before the end's place) or, when `late`, in phase DEPART
 * scheduled after the end's place was reserved (after it). */
static struct result run(bool folding, struct mode m)
{
    struct sim *sim = sim_create(1, NULL);
    struct end a = {0}, b = {0};
    node_init(&a.node, sim, folding ? &folding_ops : &plain_ops, "a", 0);
    node_init(&b.node, sim, &plain_ops, "b", 1);
    struct link_cfg cfg = {
        .rate_bps = RATE_BPS, .delay_ps = m.delay, .framing = LINK_FRAMING_ETHERNET};
    link_cfg_finish(&cfg, false);
    node_connect(&a.node, &b.node, &cfg);
    if (m.keyed)
        link_key_arrivals(&a.node.ports[0]->tx);
    struct send s[NPKTS];
    for (int i = 0; i < NPKTS; i++) {
        s[i] = (struct send){.from = &a};
        evq_timer_init(&s[i].t, send_fire,
                       m.late && i == NPKTS - 1 ? EVQ_PHASE_DEPART : EVQ_PHASE_DEFAULT);
    }
    for (int i = 0; i < NPKTS - 1; i++)
        sim_at(sim, &s[i].t, m.gap * i);
    sim_time_t end4 = 4 * m.gap + FRAME_PS;
    if (m.late) {
        s[NPKTS - 2].late = &s[NPKTS - 1];
        s[NPKTS - 2].late_at = end4;
    } else {
        sim_at(sim, &s[NPKTS - 1].t, end4);
    }
    uint64_t n = sim_run(sim, SIM_TIME_NEVER);
    link_settle(sim, &a.node.ports[0]->tx); /* the last end is folded: counted once passed */
    struct result r = {.nrx = b.nrx,
                       .fired = n,
                       .folded = sim->evq.folded,
                       .counter = sim->evq.counter,
                       .busy_ps = link_busy_ps(&a.node.ports[0]->tx)};
    for (int i = 0; i < b.nrx && i < NPKTS; i++)
        r.rx_at[i] = b.rx_at[i];
    node_fini(&a.node);
    node_fini(&b.node);
    sim_destroy(sim);
    return r;
}

static void check_times(const struct result *r, struct mode m)
{
    assert_int_equal(r->nrx, NPKTS);
    for (int i = 0; i < NPKTS - 1; i++) /* each starts at once: gap > frame time */
        assert_int_equal(r->rx_at[i], m.gap * i + FRAME_PS + m.delay);
    /* the sixth starts when the fifth ends */
    assert_int_equal(r->rx_at[NPKTS - 1], 4 * m.gap + 2 * FRAME_PS + m.delay);
    assert_int_equal(r->busy_ps, NPKTS * FRAME_PS);
}

/* Runs the scenario without and with folds: both have the expected times, the plain run has
 * every end as an event (6 sends + 6 ends + 6 arrivals), the folding one `folds` folded ends
 * and is the same run: as many events counted, the same insertion numbers used. */
static void check_same_run(struct mode m, uint64_t folds)
{
    struct result plain = run(false, m), fold = run(true, m);
    check_times(&plain, m);
    check_times(&fold, m);
    assert_int_equal(plain.fired, 3 * NPKTS);
    assert_int_equal(plain.folded, 0);
    assert_int_equal(fold.folded, folds);
    assert_int_equal(fold.fired + fold.folded, plain.fired);
    assert_int_equal(fold.counter, plain.counter);
}

/* Delay 10 us, gaps 2 us. The second to fourth frames end while the wire still holds the
 * previous frame and nothing waits, and so does the sixth; the first finds the wire empty (its
 * end schedules the arrival) and the fifth's end is called back by the sixth frame, which comes
 * in phase DEFAULT before it: 4 folds. Keyed, the first's end schedules the arrival into its own
 * place, which can be done at its start: 5 folds. */
static void test_link_fold_called_back(void **state)
{
    check_same_run((struct mode){SIM_US(10), SIM_US(2), false, false}, 4);
    check_same_run((struct mode){SIM_US(10), SIM_US(2), true, false}, 5);
}

/* The sixth frame comes at the fifth's end in phase DEPART but after the end's place: the end
 * has passed (it would have found nothing), so the kick counts it folded and starts the frame at
 * once: 5 folds, 6 keyed. */
static void test_link_fold_passed(void **state)
{
    check_same_run((struct mode){SIM_US(10), SIM_US(2), false, true}, 5);
    check_same_run((struct mode){SIM_US(10), SIM_US(2), true, true}, 6);
}

/* Delay 1 us. With gaps of 2 us each frame finds the wire empty (the previous one arrived
 * 0.18 us before); with gaps of 1.5 us the previous one arrives 0.32 us into its transmission
 * (before its end, so its end would schedule its arrival: keyed, the previous arrival does). Not
 * keyed, only the sixth folds (the fifth is on the wire until after its end); keyed, every end
 * but the fifth's (called back) or every end (late). */
static void test_link_fold_keyed(void **state)
{
    for (sim_time_t gap = SIM_NS(1500); gap <= SIM_US(2); gap += SIM_NS(500)) {
        check_same_run((struct mode){SIM_US(1), gap, false, false}, 1);
        check_same_run((struct mode){SIM_US(1), gap, false, true}, 1);
        check_same_run((struct mode){SIM_US(1), gap, true, false}, 5);
        check_same_run((struct mode){SIM_US(1), gap, true, true}, 6);
    }
}

/* Frame times: a multiplication when the rate divides 8e12 bits-ps, the same as the division.
 * 1514 B + 24 B overhead = 1538 B: at 25 Gbps 320 ps a byte -> 492,160 ps; at 10 Gbps 800 ps ->
 * 1,230,400 ps; at 3 Gbps (8e12 / 3e9 is not whole) ceil(1538 x 8000 / 3) = 4,101,334 ps; at
 * 1 Kbps (8e9 ps a byte, past the fast path's bound) 12,304,000,000,000 ps. */
static void test_link_frame_time(void **state)
{
    const uint64_t rates[] = {25000000000ULL, 10000000000ULL, 3000000000ULL, 1000ULL};
    const sim_time_t want[] = {492160, 1230400, 4101334, 12304000000000LL};
    for (size_t i = 0; i < ARRAY_LEN(rates); i++) {
        struct link_cfg cfg = {.rate_bps = rates[i], .framing = LINK_FRAMING_ETHERNET};
        link_cfg_finish(&cfg, false);
        struct link l;
        link_init(&l, NULL, &cfg);
        assert_int_equal(link_tx_ps(&l, 1514), want[i]);
        assert_int_equal(l.byte_ps != 0, i < 2);
        for (uint32_t size = 1; size < 70000; size += 997) /* any size: as the division */
            assert_int_equal(link_tx_ps(&l, size),
                             simtime_tx_ps(link_wire_bytes(&cfg, size), rates[i]));
    }
}

/* Busy time: with a whole number of ps per byte (10 Gbps) link_busy_ps derives it from the
 * frame and byte counters, else (3 Gbps) the link sums each frame's time; either way it is the
 * sum of link_tx_ps over the frames sent (sizes 1..2,911 B, some below the Ethernet minimum),
 * back to back and with gaps (folded ends included). */
static void test_link_busy_time(void **state)
{
    const uint64_t rates[] = {10000000000ULL, 3000000000ULL};
    for (size_t i = 0; i < ARRAY_LEN(rates); i++) {
        struct sim *sim = sim_create(1, NULL);
        struct end a = {0}, b = {0};
        node_init(&a.node, sim, &folding_ops, "a", 0);
        node_init(&b.node, sim, &plain_ops, "b", 1);
        struct link_cfg cfg = {.rate_bps = rates[i], .delay_ps = SIM_US(1),
                               .framing = LINK_FRAMING_ETHERNET};
        link_cfg_finish(&cfg, false);
        node_connect(&a.node, &b.node, &cfg);
        struct link *l = &a.node.ports[0]->tx;
        assert_int_equal(l->byte_ps != 0, i == 0);
        sim_time_t want = 0;
        for (uint32_t size = 1, k = 0; size < 3000; size += 97, k++) {
            struct pkt *p = pkt_alloc(sim);
            p->size_bytes = size;
            want += link_tx_ps(l, size);
            pkt_fifo_push(&a.q, p);
            link_kick(sim, l);
            if (k % 3 == 2) /* every third frame the queue drains: the next starts alone */
                sim_run(sim, SIM_TIME_NEVER);
        }
        sim_run(sim, SIM_TIME_NEVER);
        assert_int_equal(b.nrx, 31);
        assert_int_equal(link_busy_ps(l), want);
        node_fini(&a.node);
        node_fini(&b.node);
        sim_destroy(sim);
    }
}

/* Near the horizon: a frame whose arrival would be past it is not folded, so the run stops where
 * it stops without folds, at the end of its transmission (the end schedules the arrival, and the
 * run loop sees the horizon passed), with and without keyed arrivals. */
static void test_link_fold_horizon(void **state)
{
    for (int keyed = 0; keyed < 2; keyed++) {
        sim_time_t stop[2];
        for (int folding = 0; folding < 2; folding++) {
            struct sim *sim = sim_create(1, NULL);
            struct end a = {0}, b = {0};
            node_init(&a.node, sim, folding ? &folding_ops : &plain_ops, "a", 0);
            node_init(&b.node, sim, &plain_ops, "b", 1);
            struct link_cfg cfg = {
                .rate_bps = RATE_BPS, .delay_ps = SIM_US(10), .framing = LINK_FRAMING_ETHERNET};
            link_cfg_finish(&cfg, false);
            node_connect(&a.node, &b.node, &cfg);
            if (keyed)
                link_key_arrivals(&a.node.ports[0]->tx);
            struct send s = {.from = &a};
            evq_timer_init(&s.t, send_fire, EVQ_PHASE_DEFAULT);
            sim_at(sim, &s.t, SIM_TIME_HORIZON - SIM_US(5));
            sim_run(sim, SIM_TIME_NEVER);
            assert_true(sim->evq.past_horizon > SIM_TIME_HORIZON);
            assert_int_equal(sim->evq.folded, 0);
            stop[folding] = sim->now;
            node_fini(&a.node);
            node_fini(&b.node);
            sim_destroy(sim);
        }
        assert_int_equal(stop[0], SIM_TIME_HORIZON - SIM_US(5) + FRAME_PS);
        assert_int_equal(stop[1], stop[0]);
    }
}

/* The builder keys arrivals only when every link has one delay d > 0 and every switch pipeline
 * is shorter than d (link.h): the default star (1 us links, no pipeline), a pipeline of 999 ns
 * yes; a pipeline of 1 us, zero delays, or two delays no. Every port of every node agrees. */
static void test_link_keyed_when(void **state)
{
    static const struct {
        const char *yaml;
        bool keyed;
    } cases[] = {
        {"topology: {kind: star, hosts: 2}\n", true},
        {"topology: {kind: star, hosts: 2, switch: {latency: 999ns}}\n", true},
        {"topology: {kind: star, hosts: 2, switch: {latency: 1us}}\n", false},
        {"topology: {kind: star, hosts: 2, link: {delay: 0s}}\n", false},
        {"switches: [{name: s0}]\nhosts: [{name: a}, {name: b}]\n"
         "links: [{a: a, b: s0, delay: 1us}, {a: b, b: s0, delay: 2us}]\n",
         false},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        struct scenario *sc = load(cases[i].yaml);
        uint32_t ports = 0;
        for (uint32_t n = 0; n < sc->nnodes; n++) {
            for (uint32_t k = 0; k < sc->nodes[n]->nports; k++, ports++)
                assert_int_equal(sc->nodes[n]->ports[k]->tx.keyed, cases[i].keyed);
        }
        assert_int_equal(ports, 4);
        scenario_destroy(sc);
    }
}

TEST_MAIN(cmocka_unit_test(test_link_keyed_when), cmocka_unit_test(test_link_fold_horizon),
          cmocka_unit_test(test_link_fold_called_back), cmocka_unit_test(test_link_fold_passed),
          cmocka_unit_test(test_link_fold_keyed), cmocka_unit_test(test_link_frame_time),
          cmocka_unit_test(test_link_busy_time))
