/* RDMA RC over RoCEv2 in small scenarios: DCQCN fairness (two flows together, a late joiner),
 * the consistency of ECN marks and CNPs, go-back-N under loss, the retransmission timeout,
 * the header codec, and configuration errors. Each scenario is a few tens of simulated ms. */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/transport/roce_hdr.h"
#include "models/transport/rdma.h"
#include "models/net/p4switch.h"
#include "models/net/switch.h"
#include "sim/app/scenario.h"
#include "sim/util.h"
#include "tests/testspool.h"

struct fixture {
    struct diag diag;
    FILE *msgs;
    char *buf;
    size_t len;
    struct scenario *sc;
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    fx->msgs = open_memstream(&fx->buf, &fx->len);
    diag_init(&fx->diag, fx->msgs);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    scenario_destroy(fx->sc); /* asserts that no packet leaked */
    fclose(fx->msgs);
    free(fx->buf);
    free(fx);
    return 0;
}

static struct scenario *load(struct fixture *fx, const char *yaml)
{
    fx->sc = scenario_load_string("test.yaml", yaml, NULL, &fx->diag);
    fflush(fx->msgs);
    if (!fx->sc)
        fprintf(stderr, "%s", fx->buf);
    assert_non_null(fx->sc);
    return fx->sc;
}

static struct rdma_flow *rflow(struct scenario *sc, const char *name)
{
    struct flow *f = scenario_flow(sc, name);
    assert_non_null(f);
    assert_ptr_equal(f->ops, &rdma_flow_ops);
    return container_of(f, struct rdma_flow, base);
}

/* Payload goodput a 10 Gb/s link carries with 1024 B payloads: each frame has 58 B of
 * Ethernet/IPv4/UDP/BTH/ICRC headers and 24 B of Ethernet overhead on the wire. */
#define GOODPUT_10G (10e9 * 1024.0 / (1024 + 58 + 24))

/* Goodput of each flow over [t0, t1], in bits/s. */
static void measure(struct scenario *sc, struct rdma_flow **f, int n, sim_time_t t0, sim_time_t t1,
                    double *bps)
{
    uint64_t b0[4];
    sim_run(sc->sim, t0);
    for (int i = 0; i < n; i++)
        b0[i] = f[i]->base.st.rx_bytes;
    sim_run(sc->sim, t1);
    for (int i = 0; i < n; i++)
        bps[i] = (double)(f[i]->base.st.rx_bytes - b0[i]) * 8 / simtime_sec(t1 - t0);
}

/* After the run: every CNP a receiver sent reached its sender and cut its rate, a CNP needs a
 * CE-marked packet (so CNPs ≤ marks at the bottleneck), CNPs of one flow are at least
 * cnp_interval apart, and the bottleneck queue stayed short. */
static void check_cnps(struct scenario *sc, struct rdma_flow **f, int n, uint32_t port)
{
    struct sw *s0 = switch_of(scenario_node(sc, "s0"));
    uint64_t marks = s0->tm.ports[port].cls[0].mark_pkts;
    uint64_t cnps = 0;
    for (int i = 0; i < n; i++) {
        assert_true(f[i]->cnps_sent > 10);
        assert_int_equal(f[i]->cnps_rx, f[i]->cnps_sent);
        assert_int_equal(f[i]->dcqcn.cuts, f[i]->cnps_rx);
        assert_true(f[i]->cnps_sent <= f[i]->base.st.rx_ce);
        assert_true(f[i]->min_cnp_gap_ps >= SIM_US(50));
        cnps += f[i]->cnps_sent;
    }
    assert_true(cnps <= marks);
    /* the rate machine holds the queue near ecn_kmax (50 KB): no standing multi-MB queue */
    assert_true(tmgr_enq(&s0->tm.ports[port], 0)->max_bytes < 200000);
    if (getenv("TEST_VERBOSE")) {
        for (int i = 0; i < n; i++)
            fprintf(stderr, "f%d: %lu CE received, %lu CNPs sent, %lu received, min gap %.1f us\n",
                    i, (unsigned long)f[i]->base.st.rx_ce, (unsigned long)f[i]->cnps_sent,
                    (unsigned long)f[i]->cnps_rx, simtime_sec(f[i]->min_cnp_gap_ps) * 1e6);
        fprintf(stderr, "marks at the bottleneck: %lu, peak queue %lu B, end %.3f ms\n",
                (unsigned long)marks, (unsigned long)tmgr_enq(&s0->tm.ports[port], 0)->max_bytes,
                simtime_sec(sc->sim->now) * 1e3);
    }
}

/* After a flow stopped and drained: whole 1 MiB messages, each byte delivered once, nothing
 * retransmitted, everything acknowledged. */
static void check_drained(struct rdma_flow **f, int n)
{
    for (int i = 0; i < n; i++) {
        const struct flow_stats *st = &f[i]->base.st;
        assert_true(f[i]->done_ps > 0);
        assert_int_equal(st->retx_pkts, 0);
        assert_int_equal(st->rx_bytes, st->tx_bytes);
        assert_int_equal(st->rx_bytes, (uint64_t)f[i]->rcv_msn << 20);
        assert_int_equal(f[i]->snd_una, f[i]->snd_max);
    }
}

#define STAR_10G                                                                                   \
    "topology: {kind: star, hosts: 3, link: {rate: 10Gbps, delay: 1us}}\n"                         \
    "defaults:\n"                                                                                  \
    "  switch: {buffer: 16MB, ecn: red, ecn_kmin: 5KB, ecn_kmax: 50KB, ecn_pmax: 0.01}\n"          \
    "  flow: {type: rdma}\n"

static void report(const char *what, const double *bps, int n)
{
    if (getenv("TEST_VERBOSE")) {
        for (int i = 0; i < n; i++)
            fprintf(stderr, "%s f%d %.3f Gb/s (%.1f%% of fair share)\n", what, i, bps[i] / 1e9,
                    100 * bps[i] / (GOODPUT_10G / 2));
    }
}

/* Both flows f[0], f[1] (stopping at t1) get within 10% of half the link over [t0, t1); then
 * they drain within 5 ms: nothing lost, nothing left in flight, and check_cnps holds at the
 * bottleneck (switch port 2). */
static void check_fair_then_drained(struct scenario *sc, struct rdma_flow **f, const char *what,
                                    sim_time_t t0, sim_time_t t1)
{
    double bps[2];
    measure(sc, f, 2, t0, t1, bps);
    report(what, bps, 2);
    for (int i = 0; i < 2; i++)
        assert_true(bps[i] > 0.9 * GOODPUT_10G / 2 && bps[i] < 1.1 * GOODPUT_10G / 2);
    sim_run(sc->sim, SIM_TIME_NEVER);
    assert_true(sc->sim->now < t1 + SIM_MS(5));
    check_drained(f, 2);
    check_cnps(sc, f, 2, 2);
}

/* Two flows that start together converge to fair shares by 20 ms, for every seed tried (RED
 * marking is random): each within 10% of half the link over the next 40 ms. */
static void test_rdma_dcqcn_two_flows_converge(void **state)
{
    struct fixture *fx = *state;
    for (int seed = 1; seed <= 5; seed++) {
        char y[1024];
        snprintf(y, sizeof(y), "seed: %d\n" STAR_10G "flows:\n"
                               "  - {name: f0, src: h0, dst: h2, stop: 60ms}\n"
                               "  - {name: f1, src: h1, dst: h2, stop: 60ms}\n", seed);
        struct scenario *sc = load(fx, y);
        struct rdma_flow *f[2] = {rflow(sc, "f0"), rflow(sc, "f1")};
        /* the flows stop at 60 ms and drain: no loss, nothing left in flight */
        check_fair_then_drained(sc, f, "together", SIM_MS(20), SIM_MS(60));
        if (seed < 5) { /* the fixture's teardown destroys the last one */
            scenario_destroy(sc);
            fx->sc = NULL;
        }
    }
}

static void test_rdma_dcqcn_late_joiner(void **state)
{
    struct fixture *fx = *state;
    struct scenario *sc = load(fx, "seed: 1\n" STAR_10G "flows:\n"
                                   "  - {name: f0, src: h0, dst: h2, stop: 80ms}\n"
                                   "  - {name: f1, src: h1, dst: h2, start: 10ms, stop: 80ms}\n");
    struct rdma_flow *f[2] = {rflow(sc, "f0"), rflow(sc, "f1")};
    double bps[2];
    /* alone, f0 fills the link */
    measure(sc, f, 1, SIM_MS(2), SIM_MS(10), bps);
    report("alone", bps, 1);
    assert_true(bps[0] > 0.99 * GOODPUT_10G);
    assert_int_equal(f[0]->cnps_rx, 0);
    /* the joiner has its share within 30 ms: both within 10% of half the link over 40 ms */
    check_fair_then_drained(sc, f, "joined", SIM_MS(40), SIM_MS(80));
}

/* The notification point honours cnp_interval; without DCQCN (cc: none, ecn off) data is not
 * ECN-capable, so nothing is marked and no CNP is sent. */
static void test_rdma_cnp_interval(void **state)
{
    struct fixture *fx = *state;
    struct scenario *sc =
        load(fx, "seed: 1\n" STAR_10G "flows:\n"
                 "  - {name: f0, src: h0, dst: h2, stop: 10ms, cnp_interval: 200us}\n"
                 "  - {name: f1, src: h1, dst: h2, stop: 10ms, cnp_interval: 200us}\n");
    scenario_run(sc);
    struct rdma_flow *f[2] = {rflow(sc, "f0"), rflow(sc, "f1")};
    for (int i = 0; i < 2; i++) {
        assert_true(f[i]->cnps_sent > 3);
        assert_int_equal(f[i]->cnps_rx, f[i]->cnps_sent);
        assert_true(f[i]->min_cnp_gap_ps >= SIM_US(200));
        /* at most one per interval over the flow's life */
        assert_true(f[i]->cnps_sent <= (uint64_t)(f[i]->done_ps / SIM_US(200)) + 1);
    }
    check_drained(f, 2);
    scenario_destroy(sc);
    fx->sc = load(fx, "seed: 1\n" STAR_10G "flows:\n"
                      "  - {name: f0, src: h0, dst: h2, bytes: 2MB, cc: none}\n"
                      "  - {name: f1, src: h1, dst: h2, bytes: 2MB, cc: none}\n");
    scenario_run(fx->sc);
    struct sw *s0 = switch_of(scenario_node(fx->sc, "s0"));
    assert_true(tmgr_enq(&s0->tm.ports[2], 0)->max_bytes > 50000); /* queue past ecn_kmax */
    assert_int_equal(s0->tm.ports[2].cls[0].mark_pkts, 0);
    assert_int_equal(rflow(fx->sc, "f0")->cnps_sent, 0);
    assert_int_equal(rflow(fx->sc, "f0")->base.st.rx_bytes, 2000000);
}

/* Three senders at line rate into one receiver through a 40 KB switch buffer, no ECN and no
 * congestion control: packets drop, receivers NAK, senders go back N; every byte still arrives
 * exactly once. f0's PSNs wrap past 2^24 after 1000 packets; f2 uses 4 KB SENDs of odd size. */
static void test_rdma_go_back_n_lossy(void **state)
{
    struct fixture *fx = *state;
    struct scenario *sc =
        load(fx, "seed: 1\n"
                 "topology: {kind: star, hosts: 4, link: {rate: 10Gbps, delay: 1us}}\n"
                 "defaults:\n"
                 "  switch: {buffer: 40KB}\n"
                 "  flow: {type: rdma, cc: none, message: 100KB, rto: 200us}\n"
                 "flows:\n"
                 "  - {name: f0, src: h0, dst: h3, bytes: 2MB, psn_start: 16776216}\n"
                 "  - {name: f1, src: h1, dst: h3, bytes: 2MB}\n"
                 "  - {name: f2, src: h2, dst: h3, bytes: 1000001B, mtu: 4096B, verb: send}\n");
    scenario_run(sc);
    struct sw *s0 = switch_of(scenario_node(sc, "s0"));
    assert_true(s0->tm.ports[3].cls[0].drop_pkts > 0);
    uint64_t retx = 0;
    uint64_t timeouts = 0;
    const char *names[3] = {"f0", "f1", "f2"};
    const uint64_t bytes[3] = {2000000, 2000000, 1000001};
    const uint64_t mtu[3] = {1024, 1024, 4096};
    for (int i = 0; i < 3; i++) {
        struct rdma_flow *f = rflow(sc, names[i]);
        const struct flow_stats *st = &f->base.st;
        assert_int_equal(st->rx_bytes, bytes[i]);
        assert_true(st->complete_ps > 0);
        assert_true(f->done_ps >= st->complete_ps);
        /* every packet was sent once plus its retransmissions */
        uint64_t msg = 100000;
        uint64_t per_msg = (msg + mtu[i] - 1) / mtu[i];
        uint64_t nmsg = (bytes[i] + msg - 1) / msg;
        uint64_t last = bytes[i] - (nmsg - 1) * msg;
        uint64_t pkts = (nmsg - 1) * per_msg + (last + mtu[i] - 1) / mtu[i];
        assert_int_equal(st->tx_pkts, pkts + st->retx_pkts);
        assert_int_equal(f->rcv_nxt, pkts);
        assert_int_equal(f->rcv_msn, nmsg);
        assert_int_equal(f->cnps_sent, 0);
        if (getenv("TEST_VERBOSE"))
            fprintf(stderr, "%s: done %.3f ms, retx %lu, timeouts %lu, NAKs %lu\n", names[i],
                    simtime_sec(f->done_ps) * 1e3, (unsigned long)st->retx_pkts,
                    (unsigned long)st->timeouts, (unsigned long)f->naks_rx);
        retx += st->retx_pkts;
        timeouts += st->timeouts;
        assert_true(f->naks_rx <= f->naks_sent);
    }
    assert_true(retx > 0);
    assert_true(timeouts > 0); /* tail losses: nothing follows them to trigger a NAK */
    if (getenv("TEST_VERBOSE"))
        fprintf(stderr, "drops %lu retx %lu timeouts %lu\n",
                (unsigned long)s0->tm.ports[3].cls[0].drop_pkts, (unsigned long)retx,
                (unsigned long)timeouts);
}

/* NAK-driven go-back-N alone: with a 1 s retransmission timeout, recovering within
 * milliseconds needs the responder's NAK (expected PSN) and the requester going back to it. */
static void test_rdma_go_back_n_nak(void **state)
{
    struct fixture *fx = *state;
    struct scenario *sc =
        load(fx, "seed: 1\n"
                 "topology: {kind: star, hosts: 3, link: {rate: 10Gbps, delay: 1us}}\n"
                 "defaults:\n"
                 "  switch: {buffer: 40KB}\n"
                 "  flow: {type: rdma, cc: none, rto: 1s}\n"
                 "flows:\n"
                 "  - {name: f0, src: h0, dst: h2, bytes: 2MB}\n"
                 "  - {name: f1, src: h1, dst: h2, bytes: 2MB}\n");
    scenario_run(sc);
    struct sw *s0 = switch_of(scenario_node(sc, "s0"));
    assert_true(s0->tm.ports[2].cls[0].drop_pkts > 0);
    uint64_t retx = 0;
    uint64_t naks = 0;
    for (int i = 0; i < 2; i++) {
        struct rdma_flow *f = rflow(sc, i ? "f1" : "f0");
        assert_int_equal(f->base.st.rx_bytes, 2000000);
        assert_true(f->base.st.complete_ps < SIM_MS(10));
        assert_int_equal(f->base.st.timeouts, 0);
        assert_int_equal(f->base.st.tx_pkts, 1954 + f->base.st.retx_pkts);
        assert_int_equal(f->naks_rx, f->naks_sent);
        retx += f->base.st.retx_pkts;
        naks += f->naks_rx;
    }
    assert_true(retx > 0);
    assert_true(naks > 0);
}

/* Header codec: exact bytes of a BTH, AETH and RETH, and 24-bit PSN distance. */
static void test_rdma_header_codec(void **state)
{
    uint8_t b[16];
    struct roce_bth h = {.opcode = ROCE_OP_WRITE_FIRST,
                         .solicited = true,
                         .pad = 3,
                         .pkey = 0xffff,
                         .becn = true,
                         .dqpn = 0x123456,
                         .ack_req = true,
                         .psn = 0xabcdef};
    roce_bth_write(b, &h);
    const uint8_t want[12] = {0x06, 0xb0, 0xff, 0xff, 0x40, 0x12,
                              0x34, 0x56, 0x80, 0xab, 0xcd, 0xef};
    assert_memory_equal(b, want, 12);
    struct roce_bth r;
    roce_bth_read(b, &r);
    assert_int_equal(r.opcode, 6);
    assert_true(r.solicited && r.becn && r.ack_req && !r.fecn && !r.migreq);
    assert_int_equal(r.pad, 3);
    assert_int_equal(r.dqpn, 0x123456);
    assert_int_equal(r.psn, 0xabcdef);
    struct roce_aeth a = {.syndrome = ROCE_AETH_NAK_PSN_SEQ, .msn = 7};
    roce_aeth_write(b, &a);
    const uint8_t want_a[4] = {0x60, 0, 0, 7};
    assert_memory_equal(b, want_a, 4);
    assert_true(ROCE_AETH_IS_NAK(b[0]));
    assert_false(ROCE_AETH_IS_NAK(ROCE_AETH_ACK));
    struct roce_reth rw = {.va = 0x0102030405060708ull, .rkey = 0x1000, .dma_len = 65536};
    struct roce_reth rr;
    roce_reth_write(b, &rw);
    roce_reth_read(b, &rr);
    assert_true(rr.va == rw.va && rr.rkey == rw.rkey && rr.dma_len == rw.dma_len);
    assert_int_equal(roce_psn_diff(2, 0xfffffe), 4);
    assert_int_equal(roce_psn_diff(0xfffffe, 2), -4);
    assert_int_equal(roce_psn_diff(5, 5), 0);
}

/* One flow alone: no congestion, line rate, one ACK per packet, exact frame sizes on the
 * receiver's link (RETH only on the first packet of the WRITE). */
static void test_rdma_single_flow_line_rate(void **state)
{
    struct fixture *fx = *state;
    struct scenario *sc = load(fx, "seed: 1\n" STAR_10G "flows:\n"
                                   "  - {name: f0, src: h0, dst: h2, bytes: 1MB, ack_every: 4}\n");
    scenario_run(sc);
    struct rdma_flow *f = rflow(sc, "f0");
    const struct flow_stats *st = &f->base.st;
    assert_int_equal(st->rx_bytes, 1000000);
    assert_int_equal(st->tx_pkts, 977); /* ceil(1e6 / 1024) */
    assert_int_equal(st->retx_pkts, 0);
    assert_int_equal(f->cnps_sent, 0);
    assert_int_equal(f->dcqcn.rc_bps, 10000000000ull);
    /* A bit every 4th packet and on the last: 244 + 1 */
    assert_int_equal(f->acks_sent, 245);
    struct sw *s0 = switch_of(scenario_node(sc, "s0"));
    /* 976 full frames of 1024 + 58, the first with a 16 B RETH, and a last of 576 + 58 */
    assert_int_equal(s0->node.ports[2]->tx.tx_bytes, 976ull * 1082 + 16 + 576 + 58);
    /* paced at line rate: the last byte arrives one serialization per packet after the first */
    sim_time_t wire = simtime_tx_ps(976ull * (1082 + 24) + 16 + 576 + 58 + 24, 10000000000ull);
    assert_true(st->complete_ps >= wire && st->complete_ps < wire + SIM_US(5));
}

/* A flow without `bytes` sends until `stop`, finishes the message it began, then drains:
 * everything sent is acknowledged, the sender's timers stop and the run ends by itself. */
static void test_rdma_until_stop(void **state)
{
    struct fixture *fx = *state;
    struct scenario *sc = load(fx, "seed: 1\n" STAR_10G "flows:\n"
                                   "  - {name: f0, src: h0, dst: h2, stop: 1ms, message: 64KB}\n");
    scenario_run(sc);
    struct rdma_flow *f = rflow(sc, "f0");
    const struct flow_stats *st = &f->base.st;
    assert_int_equal(evq_len(&sc->sim->evq), 0);
    assert_true(f->done_ps >= SIM_MS(1) && f->done_ps < SIM_MS(1) + SIM_US(80));
    assert_int_equal(st->rx_bytes, st->tx_bytes);
    assert_int_equal(f->snd_una, f->snd_max);
    /* about 1 ms at the payload goodput of the link, then the message begun is finished */
    assert_true(st->rx_bytes > 0.99 * GOODPUT_10G / 8 / 1000);
    assert_true(st->rx_bytes < 1.06 * GOODPUT_10G / 8 / 1000);
    assert_int_equal(st->rx_bytes % 64000, 0); /* KB is 1000 B */
    assert_int_equal(f->rcv_msn, st->rx_bytes / 64000);
}

static void test_rdma_config_errors(void **state)
{
    struct fixture *fx = *state;
    fx->sc = scenario_load_string("bad.yaml",
                                  "topology: {kind: star, hosts: 2}\n"
                                  "flows:\n"
                                  "  - {type: rdma, src: h0, dst: h1}\n"
                                  "  - {type: rdma, src: h0, dst: h1, bytes: 1MB, cc: tcp}\n",
                                  NULL, &fx->diag);
    fflush(fx->msgs);
    assert_null(fx->sc);
    assert_non_null(strstr(fx->buf, "flow 'f0' never ends"));
    assert_non_null(strstr(fx->buf, "bad.yaml:4:"));
}

/* rate_interval samples the reaction point: one sample per interval while the flow runs, line
 * rate before the first CNP, a cut (Rc < line rate) once CNPs arrive. */
static void test_rdma_rate_samples(void **state)
{
    struct fixture *fx = *state;
    struct scenario *sc = load(fx, "topology: {kind: star, hosts: 3,\n"
                                   "  switch: {ecn: red, ecn_kmin: 5KB, ecn_kmax: 50KB, ecn_pmax: 0.01}}\n"
                                   "flows:\n"
                                   "  - {name: a, type: rdma, src: h0, dst: h2, bytes: 4MB,"
                                   " rate_interval: 100us}\n"
                                   "  - {name: b, type: rdma, src: h1, dst: h2, bytes: 4MB}\n");
    scenario_run(sc);
    struct rdma_flow *a = rflow(sc, "a");
    size_t n;
    struct rdma_sample *x = spool_collect(&a->base.samples, &n);
    assert_true(n >= 2);
    assert_int_equal(x[0].t_ps, 0);
    assert_true(x[0].rc_bps == 10000000000ULL);
    uint64_t lowest = UINT64_MAX;
    for (size_t i = 1; i < n; i++) {
        assert_int_equal(x[i].t_ps - x[i - 1].t_ps, SIM_US(100));
        lowest = MIN(lowest, x[i].rc_bps);
    }
    free(x);
    assert_true(a->cnps_rx > 0);
    assert_true(lowest < 10000000000ULL);
    assert_int_equal(rflow(sc, "b")->base.samples.count, 0);
}

TEST_MAIN(cmocka_unit_test_setup_teardown(test_rdma_header_codec, setup, teardown),
          cmocka_unit_test_setup_teardown(test_rdma_rate_samples, setup, teardown),
          cmocka_unit_test_setup_teardown(test_rdma_single_flow_line_rate, setup, teardown),
          cmocka_unit_test_setup_teardown(test_rdma_until_stop, setup, teardown),
          cmocka_unit_test_setup_teardown(test_rdma_config_errors, setup, teardown),
          cmocka_unit_test_setup_teardown(test_rdma_cnp_interval, setup, teardown),
          cmocka_unit_test_setup_teardown(test_rdma_go_back_n_nak, setup, teardown),
          cmocka_unit_test_setup_teardown(test_rdma_go_back_n_lossy, setup, teardown),
          cmocka_unit_test_setup_teardown(test_rdma_dcqcn_two_flows_converge, setup, teardown),
          cmocka_unit_test_setup_teardown(test_rdma_dcqcn_late_joiner, setup, teardown))
