/* Message layer and host cost models: analytic times on an idle network, CPU queueing, order. */
#include "tests/testscenario.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net/hostcpu.h"
#include "models/transport/msg.h"
#include "models/transport/tcp.h"
#include "models/transport/udp.h"
#include "models/net/host.h"
#include "sim/app/scenario.h"
#include "sim/util.h"

#define TAG_TEST_BYTES 12
#define LINK "hosts: [{name: a}, {name: b}]\nlinks: [{a: a, b: b, rate: 10Gbps, delay: 1us}]\n"

/* Wire time of `bytes` of UDP payload in 1472-byte packets on the 10 Gbps link, plus delay. */
static sim_time_t udp_transfer_ps(uint64_t bytes)
{
    sim_time_t t = 0;
    while (bytes > 0) {
        uint64_t n = MIN(bytes, 1472);
        t += simtime_tx_ps(n + 42 + 24, 10000000000ULL);
        bytes -= n;
    }
    return t + SIM_US(1);
}

static void test_msg_cost_formulas(void **state)
{
    struct msg_cost c;
    assert_string_equal(msg_preset(MSG_PRESET_GRPC_TCP, &c), "tcp");
    /* 25 us + 2 copies of 1 MB at 5 GB/s (200 us each) */
    assert_int_equal(msg_tx_cost_ps(&c, 1000000), SIM_US(425));
    assert_int_equal(msg_rx_cost_ps(&c, 1000000), SIM_US(225));
    assert_string_equal(msg_preset(MSG_PRESET_RPC_RDMA, &c), "rdma");
    assert_true(c.control_rtt);
    assert_int_equal(msg_tx_cost_ps(&c, 1000000), SIM_US(205));
    assert_string_equal(msg_preset(MSG_PRESET_RDMA_ZERO_COPY, &c), "rdma");
    assert_int_equal(msg_rx_cost_ps(&c, 1000000), SIM_NS(1500));
    assert_null(msg_preset(MSG_PRESET_NONE, &c));
}

/* One 1 MB message: sender CPU, then the bytes on the wire, then receiver CPU. */
static void test_msg_one_message_analytic(void **state)
{
    struct scenario *sc =
        load_run(LINK "flows: [{name: m, type: rpc, src: a, dst: b, transport: udp,"
                      " size: 1MB, tx_fixed: 25us, rx_fixed: 25us, tx_copies: 2,"
                      " rx_copies: 1, copy_bw: 40Gbps}]\n");
    const struct flow *f = scenario_flow(sc, "m");
    sim_time_t expect = SIM_US(425) + udp_transfer_ps(1000000) + SIM_US(225);
    assert_int_equal(f->st.complete_ps, expect);
    assert_int_equal(expect, SIM_NS(1486904));
    scenario_destroy(sc);
}

/* The rendezvous adds one request/reply round trip of 64-byte datagrams before the payload. */
static void test_msg_control_rtt(void **state)
{
    struct scenario *sc =
        load_run(LINK "flows: [{name: r, type: rpc, src: a, dst: b, transport: udp,"
                      " size: 1MB, control_rtt: true}]\n");
    sim_time_t rtt = 2 * udp_transfer_ps(64);
    assert_int_equal(scenario_flow(sc, "r")->st.complete_ps, rtt + udp_transfer_ps(1000000));
    scenario_destroy(sc);
}

/* Closed loop, window 1: messages follow each other; each takes the same time. Open loop with a
 * single sender core: the CPU serializes the sender costs, so message k leaves the CPU at
 * (k+1) x cost even when they are all submitted at once. */
static void test_msg_loops_and_cpu(void **state)
{
    struct scenario *sc = load_run(LINK "flows:\n"
                                        "  - {name: c, type: rpc, src: a, dst: b, transport: udp,"
                                        " size: 100KB, count: 5, tx_fixed: 10us}\n");
    sim_time_t one = SIM_US(10) + udp_transfer_ps(100000);
    assert_int_equal(scenario_flow(sc, "c")->st.complete_ps, 5 * one);
    scenario_destroy(sc);
    sc = load(LINK "flows:\n"
                   "  - {name: w, type: rpc, src: a, dst: b, transport: udp, size: 1000,"
                   " count: 4, window: 4, tx_fixed: 100us}\n");
    scenario_run(sc);
    /* four jobs of 100 us on one core; the last message leaves the CPU at 400 us */
    assert_int_equal(scenario_flow(sc, "w")->st.complete_ps, SIM_US(400) + udp_transfer_ps(1000));
    assert_int_equal(scenario_node(sc, "a") ? host_of(scenario_node(sc, "a"))->cpu.busy_ps : 0,
                     SIM_US(400));
    scenario_destroy(sc);
    sc = load("hosts: [{name: a, cpu_cores: 2}, {name: b}]\n"
              "links: [{a: a, b: b, rate: 10Gbps, delay: 1us}]\n"
              "flows:\n"
              "  - {name: w, type: rpc, src: a, dst: b, transport: udp, size: 1000,"
              " count: 4, window: 4, tx_fixed: 100us}\n");
    scenario_run(sc);
    /* two cores: messages 3 and 4 leave the CPU together at 200 us, so the last one also waits
     * for the other's frame on the wire */
    assert_int_equal(scenario_flow(sc, "w")->st.complete_ps,
                     SIM_US(200) + simtime_tx_ps(1000 + 42 + 24, 10000000000ULL) +
                         udp_transfer_ps(1000));
    scenario_destroy(sc);
}

/* Messages of different sizes share one stream; each is delivered when its own last byte is in,
 * in order, and the latency statistics count each once. */
struct order_log {
    uint64_t ids[16];
    int n;
};

static void log_delivered(struct msg_conn *c, const struct msg *m, void *ud)
{
    (void)c;
    struct order_log *l = ud;
    l->ids[l->n++] = m->id;
}

static void test_msg_stream_boundaries(void **state)
{
    struct scenario *sc = load(LINK);
    struct host *a = host_of(scenario_node(sc, "a"));
    struct host *b = host_of(scenario_node(sc, "b"));
    struct udp_flow_cfg ucfg;
    param_defaults(udp_flow_ops.params, *udp_flow_ops.nparams, &ucfg);
    struct msg_cost cost = {.copy_bps = 40000000000ULL};
    struct order_log log = {.n = 0};
    struct msg_hooks hooks = {.on_delivered = log_delivered, .ud = &log};
    struct msg_conn *c = msg_conn_create(sc->sim, "t", 0, a, b, &udp_flow_ops, &ucfg, &cost,
                                         &hooks);
    uint64_t sizes[5] = {100, 3000, 1, 1472, 50000};
    for (int i = 0; i < 5; i++)
        msg_send(c, sizes[i], NULL);
    scenario_run(sc);
    assert_int_equal(log.n, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(log.ids[i], i);
    assert_int_equal(c->delivered_bytes, 54573);
    assert_int_equal(c->latency.n, 5);
    assert_null(c->head); /* every message acked and delivered, returned to the pool */
    msg_conn_destroy(c);
    scenario_destroy(sc);
}

/* tag_per_msg: the layer copies a message's tag for its packets after the first instead of
 * asking again; what arrives (tag bytes and priority of every packet, in order) is what the
 * hook writes when asked for every packet, over UDP and TCP, with messages reusing the pool. */
struct tag_log {
    uint8_t rx[2048][TAG_TEST_BYTES + 1];
    int n;
    int calls;
};

static void test_tag(struct msg_conn *c, const struct msg *m, uint64_t off, uint32_t len,
                     uint8_t *tag, struct pkt *p, void *ud)
{
    (void)c;
    (void)len;
    struct tag_log *l = ud;
    l->calls++;
    pkt_wr32(tag, (uint32_t)m->id);
    pkt_wr32(tag + 4, (uint32_t)m->bytes);
    tag[8] = off == 0;
    p->prio = (uint8_t)(m->id % 3);
}

static void log_tag(struct msg_conn *c, const struct pkt *p, const uint8_t *tag, void *ud)
{
    (void)c;
    struct tag_log *l = ud;
    assert_true(l->n < 2048);
    memcpy(l->rx[l->n], tag, TAG_TEST_BYTES);
    l->rx[l->n++][TAG_TEST_BYTES] = p->prio;
}

static void run_tagged(const struct flow_ops *tp, bool per_msg, struct tag_log *l)
{
    struct scenario *sc = load(LINK);
    struct host *a = host_of(scenario_node(sc, "a"));
    struct host *b = host_of(scenario_node(sc, "b"));
    _Alignas(max_align_t) char cfg[512] = {0};
    assert_true(tp->cfg_size <= sizeof(cfg));
    param_defaults(tp->params, *tp->nparams, cfg);
    struct msg_cost cost = {.copy_bps = 40000000000ULL};
    struct msg_hooks hooks = {.tag_bytes = TAG_TEST_BYTES, .tag = test_tag,
                              .tag_per_msg = per_msg, .rx_packet = log_tag, .ud = l};
    struct msg_conn *c = msg_conn_create(sc->sim, "t", 0, a, b, tp, cfg, &cost, &hooks);
    for (int i = 0; i < 200; i++)
        msg_send(c, (uint64_t)(i % 7) * 1000 + 1 + (uint64_t)(i % 3) * 1460, NULL);
    scenario_run(sc);
    assert_int_equal(c->delivered_msgs, 200);
    msg_conn_destroy(c);
    scenario_destroy(sc);
}

static void test_msg_tag_per_msg(void **state)
{
    const struct flow_ops *tps[] = {&udp_flow_ops, &tcp_flow_ops};
    static struct tag_log each;
    static struct tag_log kept;
    for (int t = 0; t < 2; t++) {
        memset(&each, 0, sizeof(each));
        memset(&kept, 0, sizeof(kept));
        run_tagged(tps[t], false, &each);
        run_tagged(tps[t], true, &kept);
        assert_int_equal(each.calls, each.n); /* one call per packet (no loss here) */
        assert_true(kept.calls <= 2 * 200);   /* the first packet and one more per message */
        assert_true(kept.calls < each.calls);
        assert_int_equal(kept.n, each.n);
        assert_memory_equal(kept.rx, each.rx, sizeof(each.rx[0]) * (size_t)each.n);
    }
}

/* The check: a 1 MB message over each preset on an idle 10 Gbps link takes what the cost
 * model predicts. Network part, per transport: frames at line rate (every window covers the
 * bandwidth-delay product here) plus one propagation delay. */
static sim_time_t frames_ps(uint64_t bytes, uint64_t per_pkt, uint32_t headers, uint32_t first_extra)
{
    sim_time_t t = 0;
    bool first = true;
    while (bytes > 0) {
        uint64_t n = MIN(bytes, per_pkt);
        uint32_t pad = headers == 58 ? (uint32_t)((4 - n % 4) % 4) : 0; /* RoCE pads to 4 B */
        t += simtime_tx_ps(n + pad + headers + (first ? first_extra : 0) + 24, 10000000000ULL);
        bytes -= n;
        first = false;
    }
    return t + SIM_US(1);
}

static void test_msg_presets_analytic(void **state)
{
    struct scenario *sc =
        load_run(LINK "flows:\n"
                      "  - {name: g, type: rpc, src: a, dst: b, preset: grpc-tcp}\n"
                      "  - {name: r, type: rpc, src: a, dst: b, preset: rpc-rdma,"
                      " start: 3ms}\n"
                      "  - {name: z, type: rpc, src: a, dst: b,"
                      " preset: rdma-zero-copy, start: 6ms}\n");
    struct msg_cost c;
    /* gRPC: TCP segments of 1460 B (54 B of headers) */
    msg_preset(MSG_PRESET_GRPC_TCP, &c);
    sim_time_t grpc = msg_tx_cost_ps(&c, 1000000) + frames_ps(1000000, 1460, 54, 0) +
                      msg_rx_cost_ps(&c, 1000000);
    assert_int_equal(scenario_flow(sc, "g")->st.complete_ps, grpc);
    /* RoCE: 1024 B payload, 58 B of headers (Eth, IPv4, UDP, BTH, ICRC), RETH on the first */
    msg_preset(MSG_PRESET_RPC_RDMA, &c);
    sim_time_t rpc = msg_tx_cost_ps(&c, 1000000) + 2 * udp_transfer_ps(MSG_CONTROL_BYTES) +
                     frames_ps(1000000, 1024, 58, 16) + msg_rx_cost_ps(&c, 1000000);
    assert_int_equal(scenario_flow(sc, "r")->st.complete_ps - SIM_MS(3), rpc);
    msg_preset(MSG_PRESET_RDMA_ZERO_COPY, &c);
    sim_time_t zc = msg_tx_cost_ps(&c, 1000000) + frames_ps(1000000, 1024, 58, 16) +
                    msg_rx_cost_ps(&c, 1000000);
    assert_int_equal(scenario_flow(sc, "z")->st.complete_ps - SIM_MS(6), zc);
    assert_true(grpc > rpc && rpc > zc);
    scenario_destroy(sc);
}

static void test_msg_bad_transport(void **state)
{
    struct diag d;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    diag_init(&d, f);
    struct scenario *sc = scenario_load_string(
        "bad.yaml", LINK "flows: [{type: rpc, src: a, dst: b, transport: rpc}]\n", NULL, &d);
    fflush(f);
    assert_null(sc);
    assert_non_null(strstr(buf, "transport 'rpc' cannot carry messages"));
    fclose(f);
    free(buf);
}

/* NCCL's transports: sockets copy each slice once at each side at 5 GB/s over TCP (a 512 KB
 * slice: 104.8576 us per side, nothing fixed); GPUDirect RDMA copies nothing (1 us to post,
 * 1.5 us to see the completion). */
static void test_msg_nccl_presets(void **state)
{
    struct msg_cost c;
    assert_string_equal(msg_preset(MSG_PRESET_NCCL_SOCKET, &c), "tcp");
    assert_int_equal(msg_tx_cost_ps(&c, 524288), 104857600);
    assert_int_equal(msg_rx_cost_ps(&c, 524288), 104857600);
    assert_string_equal(msg_preset(MSG_PRESET_NCCL_GDR, &c), "rdma");
    assert_int_equal(msg_tx_cost_ps(&c, 524288), SIM_US(1));
    assert_int_equal(msg_rx_cost_ps(&c, 524288), SIM_NS(1500));
}

TEST_MAIN(cmocka_unit_test(test_msg_cost_formulas), cmocka_unit_test(test_msg_one_message_analytic),
          cmocka_unit_test(test_msg_control_rtt), cmocka_unit_test(test_msg_loops_and_cpu),
          cmocka_unit_test(test_msg_stream_boundaries), cmocka_unit_test(test_msg_bad_transport),
          cmocka_unit_test(test_msg_presets_analytic), cmocka_unit_test(test_msg_nccl_presets),
          cmocka_unit_test(test_msg_tag_per_msg))
