/* Switches running P4 programs: ECN marking from enq_qdepth, multicast replication, routes
 * installed into the program's table, the same timing as fixed routing. */
#include "tests/testscenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net/p4switch.h"
#include "p4/engine/p4rt.h"
#include "models/net/p4switch.h"
#include "models/net/switch.h"
#include "models/net/switch_report.h"
#include "models/net/host.h"
#include "models/net/link.h"
#include "sim/pcap.h"
#include "sim/app/scenario.h"
#include "sim/util.h"

/* The program marks CE when enq_qdepth >= 100 (set in a register from the scenario). As in the
 * fixed-function test (test_scenario.c), the arrivals of each instant find 15k + j packets
 * waiting, so exactly 106 packets escape the mark; the program's counter and the port's count
 * of marks made by P4 agree. */
static void test_p4switch_ecn_from_enq_qdepth(void **state)
{
    char *y = incast_yaml(16, "1MB",
                          "program: tests/p4sim/ecn_qdepth.p4, buffer: 64MB,"
                          " registers: [{register: ecn_threshold, index: 0, value: 100}]",
                          true);
    struct scenario *sc = load_run(y);
    uint64_t per_flow = (1000000 + 1471) / 1472;
    uint64_t ce = 0;
    for (uint32_t i = 0; i < sc->nflows; i++)
        ce += sc->flows[i]->st.rx_ce;
    assert_true(ce == 16 * per_flow - 106);
    struct sw *s = switch_of(scenario_node(sc, "s0"));
    assert_true(switch_is_p4(s));
    uint64_t pkts = 0;
    uint64_t bytes = 0;
    char err[256];
    assert_int_equal(p4rt_counter_read(p4switch_pipe(s), "marked", 0, &pkts, &bytes, err,
                                       sizeof(err)),
                     0);
    assert_true(pkts == ce);
    assert_true(s->tm.ports[16].cls[0].mark_pkts == 0); /* the traffic manager did not mark */
    assert_true(s->tm.ports[16].p4_marks == ce);        /* the port counts the program's marks */
    scenario_destroy(sc);
    free(y);
}

/* Group 1 = ports 1, 2, 3 with rids 1, 2, 3: every packet from h0 reaches the three hosts. */
static void test_p4switch_multicast(void **state)
{
    struct scenario *sc =
        load_run("topology: {kind: star, hosts: 4,\n"
                 "  switch: {program: tests/p4sim/multicast.p4, multicast: [\n"
                 "    {group: 1, ports: [1], rid: 1}, {group: 1, ports: [2], rid: 2},\n"
                 "    {group: 1, ports: [3], rid: 3}]}}\n"
                 "flows: [{src: h0, dst: h1, bytes: 147200}]\n");
    for (int h = 1; h <= 3; h++) {
        char name[16];
        snprintf(name, sizeof(name), "h%d", h);
        assert_int_equal(host_of(scenario_node(sc, name))->rx_pkts, 100);
    }
    assert_true(sc->flows[0]->st.rx_bytes == 147200); /* h1 is also the flow's receiver */
    assert_int_equal(host_of(scenario_node(sc, "h2"))->rx_unclaimed, 100);
    assert_int_equal(host_of(scenario_node(sc, "h0"))->rx_pkts, 0);
    scenario_destroy(sc);
}

/* basic.p4 (the default) forwards with the same timing as fixed routing: the foundation's
 * incast finishes at the same picosecond either way. */
static void test_p4switch_same_timing_as_fixed(void **state)
{
    sim_time_t last[2];
    const char *sw[2] = {"program: none, buffer: 64MB", "buffer: 64MB"};
    for (int i = 0; i < 2; i++) {
        char *y = incast_yaml(16, "1MB", sw[i], true);
        struct scenario *sc = load_run(y);
        last[i] = 0;
        for (uint32_t f = 0; f < sc->nflows; f++)
            last[i] = MAX(last[i], sc->flows[f]->st.last_rx_ps);
        assert_true(switch_is_p4(switch_of(scenario_node(sc, "s0"))) == (i == 1));
        scenario_destroy(sc);
        free(y);
    }
    assert_int_equal(last[0], last[1]);
}

/* Routes go into ipv4_lpm; a fat tree's equal-cost paths are spread by destination (D-mod-k)
 * so inter-pod traffic crosses several core switches. */
static void test_p4switch_routes_fat_tree(void **state)
{
    struct scenario *sc = load_fat_tree_flows(7, "50KB");
    scenario_run(sc);
    assert_flows_received(sc, 50000);
    assert_true(fat_tree_cores_used(sc) >= 3);
    scenario_destroy(sc);
}

/* An entry the scenario gives wins over the builder's route for the same prefix: traffic for
 * h1 (10.0.0.2) is sent out of port 2, to h2, which does not claim it. */
static void test_p4switch_explicit_entry_wins(void **state)
{
    struct scenario *sc =
        load_run("topology: {kind: star, hosts: 3, switch: {tables: [\n"
                 "  {table: ipv4_lpm, key: {hdr.ipv4.dstAddr: 0x0a000002/32},\n"
                 "   action: ipv4_forward, args: {dstAddr: 0x020000000003, port: 2}}]}}\n"
                 "flows: [{src: h0, dst: h1, bytes: 14720}]\n");
    assert_true(sc->flows[0]->st.rx_bytes == 0);
    assert_int_equal(host_of(scenario_node(sc, "h2"))->rx_unclaimed, 10);
    scenario_destroy(sc);
}

/* A star of 600 hosts with the default program: basic.p4's 9-bit ports end at 510 (511 is the
 * drop port), so the switch runs basic_wide.p4 (its table holds 2^20 routes) and numbers its
 * port p >= 511 as P4 port p + 1. Traffic reaches h511 (port 511, P4 port 512) and comes from
 * and goes to ports above it. */
static void test_p4switch_wide_ports(void **state)
{
    assert_int_equal(p4switch_port(510), 510);
    assert_int_equal(p4switch_port(511), 512);
    assert_int_equal(p4switch_port_of(512), 511);
    assert_int_equal(p4switch_port_of(p4switch_port(599)), 599);
    struct scenario *sc = load("topology: {kind: star, hosts: 600}\n"
                               "flows: [{src: h0, dst: h511, bytes: 14720},\n"
                               "  {src: h512, dst: h599, bytes: 14720},\n"
                               "  {src: h599, dst: h3, bytes: 14720}]\n");
    struct sw *sw = switch_of(scenario_node(sc, "s0"));
    assert_true(switch_is_p4(sw));
    assert_int_equal(p4rt_table_size(p4switch_pipe(sw), "ipv4_lpm"), 1 << 20);
    scenario_run(sc);
    assert_flows_received(sc, 14720);
    scenario_destroy(sc);
}

/* A dumbbell of 510 + 500 hosts and a third switch with 15 more: no edge-switch prefixes
 * (flat addresses), so every switch needs 1025 routes, one more than basic.p4's table holds,
 * and `program: basic` runs basic_wide.p4 (2^20 entries) on each; traffic flows from end to
 * end. The same 3 leaves of 400 hosts as a leaf_spine need only 400 + 2 routes on a leaf and 3
 * on the spine (one prefix per leaf), so they keep basic.p4. basic.p4 named by path is taken as
 * it is (tests/bad/routes_table_full.yaml). */
static void test_p4switch_wide_routes(void **state)
{
    char y[2048];
    int n = snprintf(y, sizeof(y), "topology: {kind: dumbbell, left: 510, right: 500, "
                                   "switch: {program: basic}}\n"
                                   "switches: [{name: s2, program: basic}]\n"
                                   "links: [{a: s1, b: s2}");
    for (int i = 0; i < 15; i++)
        n += snprintf(y + n, sizeof(y) - (size_t)n, ", {a: x%d, b: s2}", i);
    n += snprintf(y + n, sizeof(y) - (size_t)n, "]\nhosts: [");
    for (int i = 0; i < 15; i++)
        n += snprintf(y + n, sizeof(y) - (size_t)n, "%s{name: x%d}", i ? ", " : "", i);
    snprintf(y + n, sizeof(y) - (size_t)n, "]\nflows: [{src: h0, dst: x14, bytes: 14720}]\n");
    struct scenario *sc = load(y);
    const char *sws[] = {"s0", "s1", "s2"};
    for (int i = 0; i < 3; i++) {
        struct sw *sw = switch_of(scenario_node(sc, sws[i]));
        assert_int_equal(p4rt_table_size(p4switch_pipe(sw), "ipv4_lpm"), 1 << 20);
    }
    scenario_run(sc);
    assert_true(sc->flows[0]->st.rx_bytes == 14720);
    scenario_destroy(sc);
    sc = load("topology: {kind: leaf_spine, leaves: 3, spines: 1, hosts_per_leaf: 400, "
              "switch: {program: basic}}\n"
              "flows: [{src: h0, dst: h1199, bytes: 14720}]\n");
    const char *ls[] = {"leaf0", "leaf2", "spine0"};
    for (int i = 0; i < 3; i++) {
        struct sw *sw = switch_of(scenario_node(sc, ls[i]));
        assert_int_equal(p4rt_table_size(p4switch_pipe(sw), "ipv4_lpm"), 1024);
    }
    scenario_run(sc);
    assert_true(sc->flows[0]->st.rx_bytes == 14720);
    scenario_destroy(sc);
}

/* An entry sends h1's traffic to the program's drop action: the switch counts each packet as a
 * P4 ingress drop, and the total of drops includes them. */
static void test_p4switch_drops_by_reason(void **state)
{
    struct scenario *sc =
        load_run("topology: {kind: star, hosts: 3, switch: {tables: [\n"
                 "  {table: ipv4_lpm, key: {hdr.ipv4.dstAddr: 0x0a000002/32},\n"
                 "   action: drop}]}}\n"
                 "flows: [{src: h0, dst: h1, bytes: 14720}, {src: h0, dst: h2, bytes: 1472}]\n");
    struct node *n = scenario_node(sc, "s0");
    struct sw *s = switch_of(n);
    assert_int_equal(sc->flows[0]->st.rx_bytes, 0);
    assert_int_equal(sc->flows[1]->st.rx_bytes, 1472);
    assert_int_equal(s->ingress_drops, 10);
    assert_int_equal(s->egress_drops + s->p4_limit_drops + s->no_route_drops, 0);
    assert_int_equal(switch_drops(n), 10);
    scenario_destroy(sc);
}

/* What a run of early_output.p4 left: the frames switch `tap` sent on its port `port` (time,
 * length and bytes, as a trace holds them) and that port's counters. modes[i] is register
 * I.mode of switch s<i>; the switches make their output early or at egress. */
struct early_run {
    char *frames;
    size_t len;
    uint64_t enq, max_bytes, drops, marks, p4_marks, rx_ce;
};

static struct early_run run_early_output(const char *yaml, const int *modes, int nsw,
                                         uint32_t port, bool early)
{
    struct scenario *sc = load(yaml);
    struct sw *s = NULL;
    for (int i = 0; i < nsw; i++) {
        char name[16];
        snprintf(name, sizeof(name), "s%d", i);
        s = switch_of(scenario_node(sc, name));
        assert_true(p4switch_output_early(s)); /* empty egress, a checksum control that computes */
        if (!early)
            p4switch_output_at_egress(s);
        char err[256];
        assert_int_equal(p4rt_register_write(p4switch_pipe(s), "I.mode", 0, (uint64_t)modes[i],
                                             err, sizeof(err)),
                         0);
    }
    struct early_run r = {0};
    struct pcap_writer w = {0};
    w.file.f = open_memstream(&r.frames, &r.len);
    struct link *tx = &s->node.ports[port]->tx;
    tx->tap = &w;
    scenario_run(sc);
    tx->tap = NULL;
    fclose(w.file.f);
    const struct tmgr_stats *st = &s->tm.ports[port].cls[0];
    r.enq = tmgr_enq(&s->tm.ports[port], 0)->pkts;
    r.max_bytes = tmgr_enq(&s->tm.ports[port], 0)->max_bytes;
    r.drops = st->drop_pkts;
    r.marks = st->mark_pkts;
    r.p4_marks = s->tm.ports[port].p4_marks;
    for (uint32_t i = 0; i < sc->nflows; i++)
        r.rx_ce += sc->flows[i]->st.rx_ce;
    scenario_destroy(sc);
    return r;
}

/* The same frames and counts with the output made early and at egress; returns the first. */
static struct early_run same_either_way(const char *yaml, const int *modes, int nsw,
                                        uint32_t port)
{
    struct early_run a = run_early_output(yaml, modes, nsw, port, true);
    struct early_run b = run_early_output(yaml, modes, nsw, port, false);
    assert_true(a.len > 1000);
    assert_true(a.len == b.len && memcmp(a.frames, b.frames, a.len) == 0);
    assert_true(a.enq == b.enq && a.max_bytes == b.max_bytes);
    assert_true(a.drops == b.drops && a.marks == b.marks);
    assert_true(a.p4_marks == b.p4_marks && a.rx_ce == b.rx_ce);
    free(a.frames);
    free(b.frames);
    a.frames = NULL;
    return a;
}

#define EARLY_SWITCH                                                                       \
    "program: tests/p4sim/early_output.p4, buffer: 400KB, ecn: threshold, ecn_unit: packets," \
    " ecn_kmin: 4"

/* A program whose egress is empty and whose checksum control only computes has each unicast
 * packet's output made as soon as the traffic manager holds it, not when it leaves: every
 * frame on the wire (time, length, bytes) and every count is the same either way. The traffic
 * manager decides on the packet as it came: with ECN set by the program (mode 1) it sees
 * not-ECT packets and marks none; a longer or shorter output (modes 2, 5) waits for egress
 * (the buffer holds the bytes as they came); so does a CE mark of the program's own (mode 3),
 * which the port counts when the packet leaves. */
static void test_p4switch_early_output_same_frames(void **state)
{
    for (int mode = 0; mode <= 5; mode++) {
        if (mode == 4)
            continue; /* the two-switch test below */
        char *y = incast_yaml(8, "200KB", EARLY_SWITCH, mode != 1); /* 1: hosts send not-ECT */
        struct early_run r = same_either_way(y, &mode, 1, 8);
        if (mode == 0)
            assert_true(r.marks > 0 && r.drops > 0); /* the queue fills: marks and drops */
        if (mode == 1)
            assert_true(r.marks == 0 && r.rx_ce == 0);
        if (mode == 3)
            assert_true(r.p4_marks > 0);
        free(y);
    }
}

/* A packet that arrives CE with checksum 0xffff and leaves so: egress re-applies the traffic
 * manager's mark to the output, which writes the checksum 0 (RFC 1624 arithmetic), and so does
 * the output made in the queue. s0 makes such packets (mode 3) with no queue (a 100G uplink
 * for 80G of senders), s1 keeps them (mode 4) and marks them in its queue to h8. */
static void test_p4switch_early_output_ce_mark(void **state)
{
    char y[1024];
    int len = snprintf(y, sizeof(y),
                       "topology: {kind: dumbbell, left: 8, right: 1, link: {rate: 10Gbps},\n"
                       "  uplink: {rate: 100Gbps}}\n"
                       "defaults: {switch: {" EARLY_SWITCH "}, flow: {ecn: true}}\nflows:\n");
    for (int i = 0; i < 8; i++)
        len += snprintf(y + len, sizeof(y) - (size_t)len,
                        "  - {src: h%d, dst: h8, bytes: 200KB}\n", i);
    int modes[2] = {3, 4};
    struct early_run r = same_either_way(y, modes, 2, 1);
    assert_true(r.marks > 0);
}

TEST_MAIN(cmocka_unit_test(test_p4switch_ecn_from_enq_qdepth),
          cmocka_unit_test(test_p4switch_multicast),
          cmocka_unit_test(test_p4switch_same_timing_as_fixed),
          cmocka_unit_test(test_p4switch_routes_fat_tree),
          cmocka_unit_test(test_p4switch_explicit_entry_wins),
          cmocka_unit_test(test_p4switch_wide_ports), cmocka_unit_test(test_p4switch_wide_routes),
          cmocka_unit_test(test_p4switch_drops_by_reason),
          cmocka_unit_test(test_p4switch_early_output_same_frames),
          cmocka_unit_test(test_p4switch_early_output_ce_mark))
