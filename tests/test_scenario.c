/* Scenario tests with analytic expectations: every expected value is derived here from rates,
 * sizes and delays, never read back from a previous run. */
#include "tests/testscenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net/p4switch.h"
#include "models/net/switch.h"
#include "sim/app/scenario.h"
#include "sim/util.h"

#define RATE_BPS 10000000000ULL /* 10 Gbps */
#define DELAY_PS SIM_US(1)
#define ETH_OVERHEAD 24u        /* preamble + IFG + FCS, the link default */
#define HEADERS 42u             /* Ethernet + IPv4 + UDP */
#define PAYLOAD_MAX 1472u       /* 1500 B MTU */

static sim_time_t wire_ps(uint32_t frame_bytes)
{
    return simtime_tx_ps(frame_bytes + ETH_OVERHEAD, RATE_BPS);
}

/* Ample buffer: the bottleneck starts when the first packets have crossed the first hop and
 * then never idles (16 links feed one), so the last byte arrives at
 *   T(first frame) + d + Σ T(all frames) + d. */
static void test_scenario_incast_exact_time(void **state)
{
    const int n = 16;
    const uint64_t bytes = 4000000;
    char *y = incast_yaml(n, "4MB", "buffer: 64MB", false);
    struct scenario *sc = load_run(y);
    uint64_t full = bytes / PAYLOAD_MAX;
    uint32_t last_payload = (uint32_t)(bytes - full * PAYLOAD_MAX);
    sim_time_t t_full = wire_ps(PAYLOAD_MAX + HEADERS);
    sim_time_t t_last = wire_ps(last_payload + HEADERS);
    sim_time_t busy = (sim_time_t)n * ((sim_time_t)full * t_full + t_last);
    sim_time_t expect = t_full + DELAY_PS + busy + DELAY_PS;
    sim_time_t last = 0;
    for (uint32_t i = 0; i < sc->nflows; i++) {
        const struct flow *f = sc->flows[i];
        assert_true(f->st.rx_bytes == bytes);
        assert_true(f->st.complete_ps > 0);
        last = MAX(last, f->st.last_rx_ps);
    }
    assert_int_equal(last, expect);
    assert_int_equal(expect, SIM_PS(53499396800)); /* the same sum, worked by hand */
    struct sw *s = switch_of(scenario_node(sc, "s0"));
    assert_int_equal(link_busy_ps(&s->node.ports[n]->tx), busy);
    assert_int_equal(s->tm.ports[n].cls[0].drop_pkts, 0);
    scenario_destroy(sc);
    free(y);
}

/* Finite buffer B. Senders are synchronized, so at every departure instant of the bottleneck n
 * frames arrive together; by the tie rule (evq.h) they are admitted against the occupancy
 * before the departure. At the first instant one frame goes straight onto the idle wire, so
 * the queue gains n-1 frames per frame time until it holds C = floor(B / frame) frames; from
 * then on exactly one arrival per instant finds room (the one freed by the departure). The last,
 * shorter frames arrive T(last) after an instant, when C-1 frames wait. */
static void incast_drops(const char *framing, uint64_t l2_bytes, uint64_t expect_delivered)
{
    const uint64_t n = 16;
    const uint64_t bytes = 4000000;
    const uint64_t buffer = 1000000;
    char *y = incast_yaml_framed((int)n, "4MB", "buffer: 1MB", false, framing);
    struct scenario *sc = load_run(y);
    /* what the buffer counts per datagram: IP + UDP + payload + the framing's layer-2 bytes */
    const uint64_t frame = PAYLOAD_MAX + HEADERS - ETH_HDR_LEN + l2_bytes;
    const uint64_t full = bytes / PAYLOAD_MAX; /* full frames per sender: 2717 */
    const uint64_t last_frame = bytes - full * PAYLOAD_MAX + HEADERS - ETH_HDR_LEN + l2_bytes;
    const uint64_t cap = buffer / frame;      /* 660 (Ethernet), 665 (PPP) */
    uint64_t q = 0;                            /* frames waiting before the instant's arrivals */
    uint64_t admitted = 0;
    for (uint64_t k = 0; k < full; k++) {
        uint64_t room = cap - q;
        uint64_t a = MIN(n, room);
        admitted += a;
        q = q + a - 1; /* the departure (at k = 0: the first frame starts on the idle wire) */
    }
    uint64_t room_bytes = buffer - q * frame;
    uint64_t a_last = MIN(n, room_bytes / last_frame);
    uint64_t delivered_pkts = admitted + a_last;
    uint64_t delivered_bytes = (admitted * PAYLOAD_MAX) + a_last * (bytes - full * PAYLOAD_MAX);
    uint64_t sent = n * (full + 1);
    assert_true(delivered_pkts == expect_delivered); /* the recurrence above, worked by hand */
    struct sw *s = switch_of(scenario_node(sc, "s0"));
    uint64_t rx_pkts = 0;
    uint64_t rx_bytes = 0;
    for (uint32_t i = 0; i < sc->nflows; i++) {
        rx_pkts += sc->flows[i]->st.rx_pkts;
        rx_bytes += sc->flows[i]->st.rx_bytes;
    }
    assert_true(rx_pkts == delivered_pkts);
    assert_true(rx_bytes == delivered_bytes);
    assert_true(s->tm.ports[n].cls[0].drop_pkts == sent - delivered_pkts);
    assert_true(s->tm.ports[n].max_bytes <= buffer);
    assert_true(s->tm.ports[n].max_bytes > buffer - frame);
    scenario_destroy(sc);
    free(y);
}

static void test_scenario_incast_drops(void **state)
{
    incast_drops("ethernet", ETH_HDR_LEN, 3379);
}

/* framing: ppp — the buffer holds IP + 2 bytes per datagram (ns-3's PointToPointNetDevice), so
 * 665 datagrams fit instead of 660: 3385 delivered, as ns-3 counts for this incast. */
static void test_scenario_incast_drops_ppp(void **state)
{
    incast_drops("ppp", 2, 3385);
}

/* framing: ppp and none with an ample buffer: the last byte arrives after the same sum as with
 * Ethernet, each frame taking its device bytes (IP + 2, or IP alone) with no overhead unless
 * `overhead` is given (then it is added on the wire). */
static void test_scenario_incast_time_framing(void **state)
{
    const char *framings[] = {"ppp", "none", "ppp, overhead: 8B"};
    const uint64_t l2[] = {2, 0, 2 + 8};
    for (int f = 0; f < 3; f++) {
        const int n = 4;
        char *y = incast_yaml_framed(n, "1MB", "buffer: 64MB", false, framings[f]);
        struct scenario *sc = load_run(y);
        uint64_t full = 1000000 / PAYLOAD_MAX;
        uint32_t last_payload = (uint32_t)(1000000 - full * PAYLOAD_MAX);
        uint64_t ip_hdr = HEADERS - ETH_HDR_LEN;
        sim_time_t t_full = simtime_tx_ps(PAYLOAD_MAX + ip_hdr + l2[f], RATE_BPS);
        sim_time_t t_last = simtime_tx_ps(last_payload + ip_hdr + l2[f], RATE_BPS);
        sim_time_t busy = (sim_time_t)n * ((sim_time_t)full * t_full + t_last);
        sim_time_t last = 0;
        for (uint32_t i = 0; i < sc->nflows; i++)
            last = MAX(last, sc->flows[i]->st.last_rx_ps);
        assert_int_equal(last, t_full + DELAY_PS + busy + DELAY_PS);
        scenario_destroy(sc);
        free(y);
    }
}

/* ECN threshold K = 100 packets with ECN-capable senders and an ample buffer: a packet is marked
 * iff it finds at least K packets waiting. Arrival j (0-based) of instant k finds 15k + j waiting
 * (k ≥ 1); at instant 0 they find 0, 0, 1, ..., 14. So the unmarked packets are the 16 of instant
 * 0 plus those of instants k ≥ 1 with 15k + j < K. */
static void test_scenario_ecn_threshold_marks(void **state)
{
    const int n = 16;
    const uint64_t K = 100;
    char *y = incast_yaml(n, "1MB", "buffer: 64MB, ecn: threshold, ecn_unit: packets, "
                                    "ecn_kmin: 100",
                          true);
    struct scenario *sc = load_run(y);
    uint64_t per_flow = (1000000 + PAYLOAD_MAX - 1) / PAYLOAD_MAX;
    uint64_t unmarked = (uint64_t)n;
    for (uint64_t k = 1; 15 * k < K; k++) {
        for (uint64_t j = 0; j < (uint64_t)n; j++)
            unmarked += (15 * k + j < K);
    }
    uint64_t ce = 0;
    for (uint32_t i = 0; i < sc->nflows; i++)
        ce += sc->flows[i]->st.rx_ce;
    assert_true(unmarked == 106);
    assert_true(ce == (uint64_t)n * per_flow - unmarked);
    struct sw *s = switch_of(scenario_node(sc, "s0"));
    assert_true(s->tm.ports[n].cls[0].mark_pkts == ce);
    scenario_destroy(sc);
    free(y);
}

/* M/D/1: Poisson arrivals of fixed-size frames on one link. Service time S = wire time of a
 * frame; Pollaczek–Khinchine mean wait Wq = ρS / (2(1 − ρ)). The measured mean (batch means,
 * 99% t interval) must contain it, and the interval must be tight enough to mean something. */
static void mdl_check(double rho, uint64_t seed)
{
    const uint32_t payload = 1000;
    sim_time_t S = wire_ps(payload + HEADERS);
    sim_time_t gap = (sim_time_t)llround((double)S / rho);
    char y[1024];
    snprintf(y, sizeof(y),
             "seed: %llu\n"
             "hosts: [{name: a}, {name: b}]\n"
             "links: [{a: a, b: b, rate: 10Gbps, delay: 1us}]\n"
             "flows: [{name: p, src: a, dst: b, pattern: poisson, size: %u, interval: %lldps,\n"
             "         bytes: %llu}]\n",
             (unsigned long long)seed, payload, (long long)gap, 400000ULL * payload);
    struct scenario *sc = load_run(y);
    const struct flow *f = scenario_flow(sc, "p");
    assert_true(f->st.rx_pkts == 400000);
    double wq = rho * simtime_sec(S) / (2 * (1 - rho));
    double mean = stats_mean(&f->st.qdelay);
    double hw = stats_ci_halfwidth(&f->st.qdelay, 0.99);
    printf("  M/D/1 rho=%.1f: Wq analytic %.4g s, measured %.4g s +- %.3g (99%%)\n", rho, wq, mean,
           hw);
    assert_true(fabs(mean - wq) <= hw);
    assert_true(hw < 0.05 * wq);
    /* one-way delay = wait + service + propagation, exactly, for every packet */
    double extra = simtime_sec(S + DELAY_PS);
    assert_true(fabs(stats_mean(&f->st.delay) - mean - extra) < 1e-12);
    scenario_destroy(sc);
}

static void test_scenario_md1_load_05(void **state)
{
    mdl_check(0.5, 1);
}

static void test_scenario_md1_load_08(void **state)
{
    mdl_check(0.8, 1);
}

/* A UDP flow has an RNG stream (about 5 KB of generator state) only when it draws: Poisson gaps
 * or random message sizes. Burst and fixed-size CBR flows have none, so a job's many connections
 * cost no generator each. */
static void test_scenario_udp_streams_when_drawn(void **state)
{
    struct scenario *sc =
        load_run("hosts: [{name: a}, {name: b}]\n"
                 "links: [{a: a, b: b, rate: 10Gbps, delay: 1us}]\n"
                 "flows:\n"
                 "  - {name: burst, src: a, dst: b, bytes: 10KB}\n"
                 "  - {name: cbr, src: a, dst: b, pattern: cbr, rate: 1Gbps, bytes: 10KB}\n"
                 "  - {name: cbrexp, src: a, dst: b, pattern: cbr, rate: 1Gbps, bytes: 10KB,\n"
                 "     size: 2KB, size_dist: exponential}\n"
                 "  - {name: pois, src: a, dst: b, pattern: poisson, rate: 1Gbps, bytes: 10KB}\n");
    uint32_t i;
    assert_false(strmap_get(&sc->sim->rng_index, "flow.burst", &i));
    assert_false(strmap_get(&sc->sim->rng_index, "flow.cbr", &i));
    assert_true(strmap_get(&sc->sim->rng_index, "flow.cbrexp", &i));
    assert_true(strmap_get(&sc->sim->rng_index, "flow.pois", &i));
    for (int f = 0; f < 4; f++) /* and each delivered its bytes */
        assert_int_equal(sc->flows[f]->st.rx_bytes, 10000);
    scenario_destroy(sc);
}

/* Strict priority: a high-priority burst sharing the bottleneck with a saturating low-priority
 * one is delayed by at most one low-priority frame (no preemption) relative to running alone.
 * Twice: the fixed-function stage queues by the sender's priority; tensorexpress.p4 by the
 * DSCP class selector (56 = class 7). */
static void strict_priority(const char *sw, const char *hi_prio)
{
    char y[512];
    snprintf(y, sizeof(y),
             "topology: {kind: star, hosts: 3, switch: {%s}}\n"
             "flows:\n"
             "  - {name: lo, src: h0, dst: h2, bytes: 8MB}\n"
             "  - {name: hi, src: h1, dst: h2, bytes: 1MB, %s, start: 100us}\n",
             sw, hi_prio);
    struct scenario *sc = load_run(y);
    const struct flow *hi = scenario_flow(sc, "hi");
    uint64_t full = 1000000 / PAYLOAD_MAX;
    uint32_t last = (uint32_t)(1000000 - full * PAYLOAD_MAX);
    sim_time_t t_full = wire_ps(PAYLOAD_MAX + HEADERS);
    sim_time_t alone = (sim_time_t)full * t_full + wire_ps(last + HEADERS) + t_full +
                       2 * DELAY_PS;
    /* alone: the second hop lags the first by one frame time (store and forward) */
    sim_time_t fct = hi->st.complete_ps - SIM_US(100);
    assert_true(fct >= alone - t_full);
    assert_true(fct <= alone + t_full);
    assert_true(scenario_flow(sc, "lo")->st.rx_bytes == 8000000);
    scenario_destroy(sc);
}

static void test_scenario_strict_priority(void **state)
{
    strict_priority("program: none", "priority: 7");
    strict_priority("program: tensorexpress", "dscp: 56");
}

/* Generated topologies: sizes, and every host reaches every other over shortest paths. */
static void test_scenario_fat_tree(void **state)
{
    struct scenario *sc = load_fat_tree_flows(5, "300KB");
    assert_int_equal(scenario_count(sc, "host"), 16);
    assert_int_equal(scenario_count(sc, "switch"), 20);
    scenario_run(sc);
    assert_flows_received(sc, 300000);
    /* ECMP spreads the inter-pod flows over several core switches */
    assert_true(fat_tree_cores_used(sc) >= 2);
    scenario_destroy(sc);
}

static void test_scenario_leaf_spine_dumbbell(void **state)
{
    struct scenario *sc = load("topology: {kind: leaf_spine, leaves: 3, spines: 2, "
                               "hosts_per_leaf: 4}\n"
                               "flows: [{src: h0, dst: h11, bytes: 100KB}]\n");
    assert_int_equal(scenario_count(sc, "host"), 12);
    assert_int_equal(scenario_count(sc, "switch"), 5);
    scenario_run(sc);
    assert_true(sc->flows[0]->st.rx_bytes == 100000);
    scenario_destroy(sc);
    sc = load("topology: {kind: dumbbell, left: 2, right: 3, uplink: {rate: 1Gbps}}\n"
              "flows: [{src: h0, dst: h4, bytes: 1MB}]\n");
    assert_int_equal(scenario_count(sc, "host"), 5);
    scenario_run(sc);
    /* the 1 Gbps bottleneck sets the completion time */
    sim_time_t fct = sc->flows[0]->st.complete_ps;
    assert_true(fct > SIM_MS(8) && fct < SIM_MS(9));
    scenario_destroy(sc);
}

/* Same seed → identical results; another seed changes a Poisson run. */
static void test_scenario_determinism(void **state)
{
    const char *y = "topology: {kind: star, hosts: 3}\n"
                    "flows:\n"
                    "  - {name: a, src: h0, dst: h2, pattern: poisson, rate: 4Gbps, bytes: 5MB}\n"
                    "  - {name: b, src: h1, dst: h2, pattern: poisson, rate: 4Gbps, bytes: 5MB,\n"
                    "     size_dist: exponential, size: 3000}\n";
    struct scenario_opts o = {.seed_given = true, .seed = 5};
    struct diag d;
    diag_init(&d, stderr);
    double means[3];
    sim_time_t ends[3];
    for (int i = 0; i < 3; i++) {
        o.seed = i < 2 ? 5 : 6;
        struct scenario *sc = scenario_load_string("det.yaml", y, &o, &d);
        assert_non_null(sc);
        scenario_run(sc);
        means[i] = stats_mean(&scenario_flow(sc, "b")->st.qdelay);
        ends[i] = sc->sim->now;
        scenario_destroy(sc);
    }
    assert_true(means[0] == means[1]);
    assert_int_equal(ends[0], ends[1]);
    assert_true(means[0] != means[2]);
    assert_true(ends[0] != ends[2]);
}

/* A pipeline latency delays every packet by exactly that much per switch. */
static void test_scenario_switch_latency(void **state)
{
    struct scenario *a = load("topology: {kind: star, hosts: 2}\n"
                              "flows: [{src: h0, dst: h1, bytes: 1472}]\n");
    struct scenario *b = load("topology: {kind: star, hosts: 2, switch: {latency: 700ns}}\n"
                              "flows: [{src: h0, dst: h1, bytes: 1472}]\n");
    scenario_run(a);
    scenario_run(b);
    sim_time_t t_full = wire_ps(PAYLOAD_MAX + HEADERS);
    assert_int_equal(a->flows[0]->st.complete_ps, 2 * (t_full + DELAY_PS));
    assert_int_equal(b->flows[0]->st.complete_ps, 2 * (t_full + DELAY_PS) + SIM_NS(700));
    scenario_destroy(a);
    scenario_destroy(b);
}

/* `after`: a flow starts when the flows it names have delivered everything; its completion
 * time counts from then. Two bursts in sequence on an idle path take twice one burst. */
static void test_scenario_after(void **state)
{
    struct scenario *sc = load_run("topology: {kind: star, hosts: 3}\n"
                                   "flows:\n"
                                   "  - {name: a, src: h0, dst: h2, bytes: 1472}\n"
                                   "  - {name: b, src: h1, dst: h2, bytes: 1472}\n"
                                   "  - {name: c, src: h2, dst: h0, bytes: 1472, after: [a, b]}\n");
    const struct flow *c = scenario_flow(sc, "c");
    sim_time_t one = 2 * (wire_ps(PAYLOAD_MAX + HEADERS) + DELAY_PS);
    /* a and b cross the switch one after the other: b completes one frame time after a */
    sim_time_t b_done = one + wire_ps(PAYLOAD_MAX + HEADERS);
    assert_int_equal(scenario_flow(sc, "b")->st.complete_ps, b_done);
    assert_int_equal(c->st.first_tx_ps, b_done);
    assert_int_equal(c->st.complete_ps, b_done + one);
    assert_true(fabs(flow_fct_s(c) - simtime_sec(one)) < 1e-15);
    scenario_destroy(sc);
}

/* defaults.flow may hold any key a flow has, required ones included (src, dst): each flow
 * that does not set one takes it, and a flow's own value wins; the run then delivers every byte
 * of both flows to the defaulted receiver. */
static void test_scenario_defaults_required_keys(void **state)
{
    struct scenario *sc = load("topology: {kind: star, hosts: 4}\n"
                               "defaults:\n"
                               "  flow: {src: h0, dst: h3, bytes: 2944}\n"
                               "flows:\n"
                               "  - {name: a}\n"
                               "  - {name: b, src: h1}\n"
                               "  - {name: c, dst: h2}\n");
    assert_int_equal(sc->nflows, 3);
    assert_string_equal(scenario_flow(sc, "a")->src->node.name, "h0");
    assert_string_equal(scenario_flow(sc, "a")->dst->node.name, "h3");
    assert_string_equal(scenario_flow(sc, "b")->src->node.name, "h1");
    assert_string_equal(scenario_flow(sc, "c")->dst->node.name, "h2");
    scenario_run(sc);
    assert_flows_received(sc, 2944);
    scenario_destroy(sc);
}

TEST_MAIN(cmocka_unit_test(test_scenario_incast_exact_time),
          cmocka_unit_test(test_scenario_incast_drops),
          cmocka_unit_test(test_scenario_incast_drops_ppp),
          cmocka_unit_test(test_scenario_incast_time_framing),
          cmocka_unit_test(test_scenario_ecn_threshold_marks),
          cmocka_unit_test(test_scenario_md1_load_05), cmocka_unit_test(test_scenario_md1_load_08),
          cmocka_unit_test(test_scenario_udp_streams_when_drawn),
          cmocka_unit_test(test_scenario_strict_priority), cmocka_unit_test(test_scenario_fat_tree),
          cmocka_unit_test(test_scenario_leaf_spine_dumbbell),
          cmocka_unit_test(test_scenario_determinism),
          cmocka_unit_test(test_scenario_switch_latency), cmocka_unit_test(test_scenario_after),
          cmocka_unit_test(test_scenario_defaults_required_keys))
