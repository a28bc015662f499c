/* PFC: lossless incast, exact pause timing at a NIC, lossless vs lossy classes. */
#include "tests/testscenario.h"

#include <stdio.h>

#include "models/net/pfc.h"
#include "models/net/p4switch.h"
#include "models/net/switch.h"
#include "sim/app/scenario.h"
#include "sim/util.h"

static const char *incast = "topology:\n"
                            "  kind: star\n"
                            "  hosts: 9\n"
                            "  switch: {buffer: 256KB, pfc: %s, pfc_xoff: 20KB, pfc_xon: 10KB}\n"
                            "flows:\n"
                            "  - {src: h0, dst: h8, bytes: 1MB}\n"
                            "  - {src: h1, dst: h8, bytes: 1MB}\n"
                            "  - {src: h2, dst: h8, bytes: 1MB}\n"
                            "  - {src: h3, dst: h8, bytes: 1MB}\n"
                            "  - {src: h4, dst: h8, bytes: 1MB}\n"
                            "  - {src: h5, dst: h8, bytes: 1MB}\n"
                            "  - {src: h6, dst: h8, bytes: 1MB}\n"
                            "  - {src: h7, dst: h8, bytes: 1MB}\n";

static uint64_t drops(const struct scenario *sc)
{
    const struct sw *s = switch_of(scenario_node(sc, "s0"));
    uint64_t d = 0;
    for (uint32_t p = 0; p < s->node.nports; p++)
        for (int c = 0; c < 8; c++)
            d += s->tm.ports[p].cls[c].drop_pkts;
    return d;
}

static void test_pfc_incast_lossless(void **state)
{
    char y[2048];
    snprintf(y, sizeof(y), incast, "false");
    struct scenario *lossy = load(y);
    scenario_run(lossy);
    assert_true(drops(lossy) > 0);
    scenario_destroy(lossy);

    snprintf(y, sizeof(y), incast, "true");
    struct scenario *sc = load_run(y);
    assert_int_equal(drops(sc), 0);
    struct sw *s = switch_of(scenario_node(sc, "s0"));
    uint64_t pauses = 0;
    for (uint32_t i = 0; i < sc->nflows; i++) {
        const struct flow *f = sc->flows[i];
        assert_true(f->st.rx_bytes == 1000000);
        struct port *nic = f->src->node.ports[0];
        assert_true(nic->pfc_rx.frames > 0);
        assert_true(nic->pfc_rx.paused_ps[0] > 0);
        pauses += s->node.ports[i]->pfc_tx.pause_frames;
        /* every pause was eventually lifted: none in force at the end, and each XOFF
         * transition (a class going from running to paused) had its XON */
        assert_int_equal(s->node.ports[i]->pfc_tx.paused, 0);
        assert_int_equal(s->node.ports[i]->pfc_tx.xoff_transitions,
                         s->node.ports[i]->pfc_tx.resume_frames);
    }
    assert_true(pauses > 0);
    /* the bottleneck never idled: lossless, and PFC did not starve it (XON > 0) */
    sim_time_t frame = simtime_tx_ps(1514 + 24, 10000000000ULL);
    uint64_t frames = sc->nflows * ((1000000 + 1471) / 1472);
    assert_true(link_busy_ps(&s->node.ports[8]->tx) >= (sim_time_t)(frames - 8) * frame);
    scenario_destroy(sc);
}

/* Priority groups keep a high-priority tensor out of PFC's head-of-line blocking. Four workers
 * push a 4 MB low-priority layer (b, ready first) and then a 50 KB high-priority one (a) to one
 * server through tensorexpress.p4's strict-priority queues, with PFC on.
 * - One group: one connection and one class per pair; b's 4 x 4 MB backlog at the server port
 *   (16 MB at 10 Gb/s = 12.8 ms) pauses that class, and a waits behind b: a's push takes more
 *   than 0.95 x 12.8 ms.
 * - priority_groups = priorities = 4: a travels in class 3, b in class 1. a's 4 x 50 KB (under
 *   the 64 KB XOFF per ingress port and class) never pauses class 3; b's backlog pauses class 1
 *   only; a crosses the port in about 4 x 50 KB / 10 Gb/s = 160 us: under 320 us. */
static const char groups_yaml[] =
    "topology: {kind: star, hosts: 5, link: {rate: 10Gbps, delay: 1us},"
    " switch: {program: tensorexpress, pfc: true}}\n"
    "jobs:\n"
    "  - {name: j, model: {name: m, layers: [{name: a, bytes: 50KB, forward: 10us, backward: 10us},"
    " {name: b, bytes: 4MB, forward: 10us, backward: 10us}]}, workers: [h0, h1, h2, h3],"
    " servers: [h4], iterations: 1, scheduler: priority, priorities: 4, priority_groups: %d}\n";

static void test_pfc_priority_groups(void **state)
{
    double ser16 = 16e6 * 8 / 10e9;
    for (int groups = 1; groups <= 4; groups += 3) {
        char y[1024];
        snprintf(y, sizeof(y), groups_yaml, groups);
        struct scenario *sc = load_run(y);
        const struct ddl_job *job = sc->jobs[0];
        assert_int_equal(job->prio_of[0], 3);
        assert_int_equal(job->prio_of[1], 1);
        double a_lat = job->push_lat[0].max;
        print_message("  %d group(s): high-priority push %.6f s\n", groups, a_lat);
        for (uint32_t w = 0; w < 4; w++) {
            const struct port *nic = job->workers[w].host->node.ports[0];
            if (groups == 1) {
                assert_true(nic->pfc_rx.paused_ps[0] > 0);
            } else {
                assert_int_equal(nic->pfc_rx.paused_ps[3], 0);
                assert_true(nic->pfc_rx.paused_ps[1] > 0);
            }
        }
        if (groups == 1)
            assert_true(a_lat > 0.95 * ser16);
        else
            assert_true(a_lat < 320e-6);
        scenario_destroy(sc);
    }
}

/* A PAUSE of q quanta holds a NIC for exactly q x 512 bit times. */
static void test_pfc_pause_timing(void **state)
{
    struct scenario *sc = load("hosts: [{name: a}, {name: b}]\n"
                               "links: [{a: a, b: b, rate: 10Gbps, delay: 1us}]\n"
                               "flows: [{src: a, dst: b, bytes: 10MB}]\n");
    struct sim *sim = sc->sim;
    struct port *nic = scenario_node(sc, "a")->ports[0];
    sim_run(sim, SIM_US(100));
    struct pkt *f = pkt_alloc(sim);
    uint16_t quanta[PFC_NCLASSES] = {1000};
    pfc_build(f, 0x01, quanta);
    pfc_receive(sim, nic, f);
    sim_time_t hold = 1000 * simtime_tx_ps(64, 10000000000ULL); /* 51.2 us */
    assert_int_equal(hold, SIM_NS(51200));
    uint64_t before = nic->tx.tx_pkts;
    sim_run(sim, SIM_US(100) + hold - 1);
    assert_true(nic->tx.tx_pkts <= before + 1); /* at most the frame already on the wire */
    sim_run(sim, SIM_US(100) + hold + SIM_US(5));
    assert_true(nic->tx.tx_pkts >= before + 3);
    assert_int_equal(nic->pfc_rx.paused_ps[0], hold);
    /* a resume (quanta 0) ends a pause early and counts only the time held */
    f = pkt_alloc(sim);
    quanta[0] = 0xffff;
    pfc_build(f, 0x01, quanta);
    pfc_receive(sim, nic, f);
    sim_run(sim, sim->now + SIM_US(10));
    f = pkt_alloc(sim);
    quanta[0] = 0;
    pfc_build(f, 0x01, quanta);
    pfc_receive(sim, nic, f);
    assert_int_equal(nic->pfc_rx.paused_ps[0], hold + SIM_US(10));
    scenario_run(sc);
    assert_true(sc->flows[0]->st.rx_bytes == 10000000);
    scenario_destroy(sc);
}

/* Only the listed classes are lossless: class 3 survives the incast, class 0 loses packets. */
static void test_pfc_classes(void **state)
{
    struct scenario *sc = load_run("topology:\n"
                                   "  kind: star\n"
                                   "  hosts: 5\n"
                                   "  switch: {buffer: 128KB, pfc: true, pfc_classes: [3],\n"
                                   "           pfc_xoff: 16KB, pfc_xon: 8KB}\n"
                                   "flows:\n"
                                   "  - {name: l0, src: h0, dst: h4, bytes: 1MB, priority: 3}\n"
                                   "  - {name: l1, src: h1, dst: h4, bytes: 1MB, priority: 3}\n"
                                   "  - {name: y0, src: h2, dst: h4, bytes: 1MB, priority: 0}\n"
                                   "  - {name: y1, src: h3, dst: h4, bytes: 1MB, priority: 0}\n");
    assert_true(scenario_flow(sc, "l0")->st.rx_bytes == 1000000);
    assert_true(scenario_flow(sc, "l1")->st.rx_bytes == 1000000);
    assert_true(scenario_flow(sc, "y0")->st.rx_bytes < 1000000);
    assert_true(scenario_node(sc, "h0")->ports[0]->pfc_rx.frames > 0);
    struct port *lossy_nic = scenario_node(sc, "h2")->ports[0];
    assert_int_equal(lossy_nic->pfc_rx.frames, 0);
    scenario_destroy(sc);
}

TEST_MAIN(cmocka_unit_test(test_pfc_incast_lossless), cmocka_unit_test(test_pfc_pause_timing),
          cmocka_unit_test(test_pfc_classes), cmocka_unit_test(test_pfc_priority_groups))
