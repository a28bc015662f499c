/* Host endpoint table: bind, bind to a port, unbind (probe runs stay intact), lookups. The NIC:
 * strict priority over queued packets and sources, and folded ends of transmission (link.h) when
 * nothing is queued and no source is backlogged, with times and event counts derived here. */
#include "tests/testutil.h"

#include <stdlib.h>

#include "models/net/host.h"
#include "sim/sim.h"
#include "sim/util.h"
#include "sim/param.h"

static void noop_recv(struct endpoint *ep, struct host *h, struct pkt *p)
{
    (void)ep;
    pkt_free(h->node.sim, p);
}

static void test_host_endpoints(void **state)
{
    struct sim *sim = sim_create(1, NULL);
    struct host_cfg cfg;
    param_defaults(host_node_ops.params, *host_node_ops.nparams, &cfg);
    struct host *h = host_create(sim, "h", 0, 0, &cfg);
    enum { N = 1000 };
    struct endpoint *eps = calloc(N, sizeof(*eps));
    for (int i = 0; i < N; i++) {
        eps[i].recv = noop_recv;
        assert_int_equal(host_bind(h, &eps[i]), 10000 + i);
    }
    struct endpoint roce = {.recv = noop_recv};
    assert_true(host_bind_port(h, &roce, 4791));
    struct endpoint dup = {.recv = noop_recv};
    assert_false(host_bind_port(h, &dup, 4791));
    assert_false(host_bind_port(h, &dup, 10005));
    /* unbind every third endpoint; the rest must still be found */
    for (int i = 0; i < N; i += 3)
        host_unbind(h, &eps[i]);
    for (int i = 0; i < N; i++) {
        struct endpoint *e = host_endpoint(h, (uint16_t)(10000 + i));
        if (i % 3 == 0)
            assert_null(e);
        else
            assert_ptr_equal(e, &eps[i]);
    }
    assert_ptr_equal(host_endpoint(h, 4791), &roce);
    assert_int_equal(h->nep, N - (N + 2) / 3 + 1);
    /* a freed port can be bound again; DDL ports come from their own range */
    assert_true(host_bind_port(h, &dup, 10000));
    assert_int_equal(host_ddl_port(h), 0xDD00);
    assert_int_equal(host_ddl_port(h), 0xDD01);
    h->node.ops->destroy(&h->node);
    free(eps);
    sim_destroy(sim);
}

#define RATE_BPS 10000000000ULL /* 10 Gbps */
#define FRAME_BYTES 1000u
/* (1000 + 24 overhead) x 8 bits at 10 Gbps: 819.2 ns */
#define FRAME_PS ((sim_time_t)(FRAME_BYTES + 24) * 8 * 1000 / 10)
#define DELAY_PS SIM_US(1)
#define MAXRX 16

/* The far end: records what arrives, in order. */
struct sink {
    struct node node;
    int n;
    uint8_t tc[MAXRX];
    sim_time_t at[MAXRX];
};

static void sink_receive(struct node *n, struct port *in, struct pkt *p)
{
    (void)in;
    struct sink *k = container_of(n, struct sink, node);
    if (k->n < MAXRX) {
        k->tc[k->n] = p->tc;
        k->at[k->n] = n->sim->now;
    }
    k->n++;
    pkt_free(n->sim, p);
}

static struct pkt *sink_pull(struct node *n, struct port *out)
{
    (void)n;
    (void)out;
    return NULL;
}

static void sink_destroy(struct node *n)
{
    (void)n;
}

static const struct node_ops sink_ops = {
    .receive = sink_receive, .pull = sink_pull, .destroy = sink_destroy};

static struct pkt *frame(struct sim *sim, uint8_t tc)
{
    struct pkt *p = pkt_alloc(sim);
    p->size_bytes = FRAME_BYTES;
    p->tc = tc;
    p->prio = tc;
    return p;
}

/* A source of class `tc` that has `left` frames. */
struct src {
    struct nic_source s;
    int left;
    uint8_t tc;
};

static struct pkt *src_next(struct nic_source *s, struct host *h)
{
    struct src *x = container_of(s, struct src, s);
    if (x->left == 0)
        return NULL;
    x->left--;
    return frame(h->node.sim, x->tc);
}

/* At `at`: a frame of class `tc` to the NIC (host_send), or the source activated. */
struct act {
    struct evq_timer t;
    struct host *h;
    struct src *src;
    uint8_t tc;
};

static void act_fire(struct sim *sim, struct evq_timer *t)
{
    struct act *a = container_of(t, struct act, t);
    if (a->src)
        host_activate(a->h, &a->src->s);
    else
        host_send(a->h, frame(sim, a->tc));
}

struct nic_run {
    struct sim *sim;
    struct host *h;
    struct sink k;
    struct node_ops plain; /* host_node_ops without idle: every end is an event */
};

static void nic_setup(struct nic_run *r, bool folding, bool keyed)
{
    r->sim = sim_create(1, NULL);
    struct host_cfg cfg;
    param_defaults(host_node_ops.params, *host_node_ops.nparams, &cfg);
    r->h = host_create(r->sim, "h", 0, 0, &cfg);
    r->plain = host_node_ops;
    r->plain.idle = NULL;
    if (!folding)
        r->h->node.ops = &r->plain;
    r->k = (struct sink){0};
    node_init(&r->k.node, r->sim, &sink_ops, "k", 1);
    struct link_cfg lc = {.rate_bps = RATE_BPS, .delay_ps = DELAY_PS,
                          .framing = LINK_FRAMING_ETHERNET};
    link_cfg_finish(&lc, false);
    node_connect(&r->h->node, &r->k.node, &lc);
    if (keyed)
        link_key_arrivals(&r->h->node.ports[0]->tx);
}

static void nic_finish(struct nic_run *r)
{
    link_settle(r->sim, &r->h->node.ports[0]->tx);
}

static void nic_teardown(struct nic_run *r)
{
    r->h->node.ops->destroy(&r->h->node);
    node_fini(&r->k.node);
    sim_destroy(r->sim);
}

/* Frames handed to the NIC every 2 us, each sent at once (the wire is 0.82 us + 1 us): arrivals
 * at 2 us i + 1.82 us. Nothing is queued and no source waits when a frame starts, so with keyed
 * arrivals every end is folded: N sends + N arrivals run, N ends folded, against 3 N events
 * without folds; the same insertion numbers are used. Not keyed, the wire is empty at each
 * start (the frame ahead arrived), so no end may fold. */
static void test_host_nic_fold(void **state)
{
    (void)state;
    enum { N = 5 };
    for (int keyed = 0; keyed < 2; keyed++) {
        uint64_t fired[2], folded[2], counter[2];
        for (int folding = 0; folding < 2; folding++) {
            struct nic_run r;
            nic_setup(&r, folding, keyed);
            struct act a[N];
            for (int i = 0; i < N; i++) {
                a[i] = (struct act){.h = r.h};
                evq_timer_init(&a[i].t, act_fire, EVQ_PHASE_DEFAULT);
                sim_at(r.sim, &a[i].t, SIM_US(2) * i);
            }
            fired[folding] = sim_run(r.sim, SIM_TIME_NEVER);
            nic_finish(&r);
            folded[folding] = r.sim->evq.folded;
            counter[folding] = r.sim->evq.counter;
            assert_int_equal(r.k.n, N);
            for (int i = 0; i < N; i++)
                assert_int_equal(r.k.at[i], SIM_US(2) * i + FRAME_PS + DELAY_PS);
            nic_teardown(&r);
        }
        assert_int_equal(fired[0], 3 * N);
        assert_int_equal(folded[0], 0);
        assert_int_equal(folded[1], keyed ? N : 0);
        assert_int_equal(fired[1] + folded[1], fired[0]);
        assert_int_equal(counter[1], counter[0]);
    }
}

/* A source with N frames, activated at 0: back to back, arrivals at (i + 1) frame times + 1 us.
 * The source is in the rotation at every start (it is asked again at the end), so no end is
 * folded: were one folded, the link would wait for a kick that never comes and frames would be
 * lost. Then strict priority: while a frame of class 7 is on the wire, frames of classes 1, 5
 * and 3 are queued and a source of class 2 with two frames is activated: they leave 5, 3, 2, 2,
 * 1 (classes without work are skipped; the class just below a source that ran dry is served). */
static void test_host_nic_sources(void **state)
{
    (void)state;
    enum { N = 4 };
    struct nic_run r;
    nic_setup(&r, true, true);
    struct src s = {.s.next_pkt = src_next, .left = N, .tc = 0};
    struct act a = {.h = r.h, .src = &s};
    evq_timer_init(&a.t, act_fire, EVQ_PHASE_DEFAULT);
    sim_at(r.sim, &a.t, 0);
    assert_int_equal(sim_run(r.sim, SIM_TIME_NEVER), 1 + 2 * N);
    nic_finish(&r);
    assert_int_equal(r.sim->evq.folded, 0);
    assert_int_equal(r.k.n, N);
    for (int i = 0; i < N; i++)
        assert_int_equal(r.k.at[i], (i + 1) * FRAME_PS + DELAY_PS);
    nic_teardown(&r);

    nic_setup(&r, true, true);
    static const uint8_t tcs[] = {7, 1, 5, 3};
    struct act q[ARRAY_LEN(tcs) + 1];
    for (size_t i = 0; i < ARRAY_LEN(tcs); i++) {
        q[i] = (struct act){.h = r.h, .tc = tcs[i]};
        evq_timer_init(&q[i].t, act_fire, EVQ_PHASE_DEFAULT);
        sim_at(r.sim, &q[i].t, SIM_NS(100) * i);
    }
    struct src s2 = {.s.next_pkt = src_next, .s.prio = 2, .left = 2, .tc = 2};
    q[ARRAY_LEN(tcs)] = (struct act){.h = r.h, .src = &s2};
    evq_timer_init(&q[ARRAY_LEN(tcs)].t, act_fire, EVQ_PHASE_DEFAULT);
    sim_at(r.sim, &q[ARRAY_LEN(tcs)].t, SIM_NS(400));
    sim_run(r.sim, SIM_TIME_NEVER);
    static const uint8_t order[] = {7, 5, 3, 2, 2, 1};
    assert_int_equal(r.k.n, ARRAY_LEN(order));
    for (size_t i = 0; i < ARRAY_LEN(order); i++) {
        assert_int_equal(r.k.tc[i], order[i]);
        assert_int_equal(r.k.at[i], (sim_time_t)(i + 1) * FRAME_PS + DELAY_PS);
    }
    nic_teardown(&r);
}

TEST_MAIN(cmocka_unit_test(test_host_endpoints), cmocka_unit_test(test_host_nic_fold),
          cmocka_unit_test(test_host_nic_sources))
