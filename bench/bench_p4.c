/* Per-packet cost of the P4 engine: one full pass (parser, verify, ingress, egress,
 * checksum, deparser) through basic.p4 with one lpm lookup, and through a program with
 * three tables and a register read-modify-write. Run from the repository root. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "p4/engine/p4.h"
#include "p4/engine/p4rt.h"

static const char three_tables[] =
    "#include <core.p4>\n"
    "#include <v1model.p4>\n"
    "header eth_t { bit<48> dst; bit<48> src; bit<16> type; }\n"
    "header ipv4_t { bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id;\n"
    "  bit<3> flags; bit<13> frag; bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src;\n"
    "  bit<32> dst; }\n"
    "struct headers { eth_t eth; ipv4_t ip; }\n"
    "struct meta_t { bit<32> cnt; bit<8> cls; }\n"
    "parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {\n"
    "  state start { pkt.extract(h.eth); transition select(h.eth.type) {\n"
    "    0x800: ip; default: accept; } }\n"
    "  state ip { pkt.extract(h.ip); transition accept; }\n"
    "}\n"
    "control VC(inout headers h, inout meta_t m) { apply { } }\n"
    "register<bit<32>>(1024) flows;\n"
    "control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {\n"
    "  action fwd(bit<9> port) { sm.egress_spec = port; h.ip.ttl = h.ip.ttl - 1; }\n"
    "  action drop() { mark_to_drop(sm); }\n"
    "  action set_cls(bit<8> c) { m.cls = c; }\n"
    "  action set_prio(bit<3> p) { sm.priority = p; }\n"
    "  table acl { key = { h.ip.src: ternary; h.ip.proto: ternary; }\n"
    "    actions = { set_cls; NoAction; } default_action = NoAction(); }\n"
    "  table route { key = { h.ip.dst: lpm; } actions = { fwd; drop; }\n"
    "    default_action = drop(); }\n"
    "  table qos { key = { m.cls: exact; } actions = { set_prio; NoAction; }\n"
    "    default_action = NoAction(); }\n"
    "  apply {\n"
    "    if (h.ip.isValid()) {\n"
    "      acl.apply(); route.apply(); qos.apply();\n"
    "      bit<32> idx = h.ip.src & 1023;\n"
    "      flows.read(m.cnt, idx);\n"
    "      flows.write(idx, m.cnt + 1);\n"
    "    }\n"
    "  }\n"
    "}\n"
    "control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }\n"
    "control CC(inout headers h, inout meta_t m) { apply {\n"
    "  update_checksum(h.ip.isValid(), { h.ip.version, h.ip.ihl, h.ip.tos, h.ip.len,\n"
    "    h.ip.id, h.ip.flags, h.ip.frag, h.ip.ttl, h.ip.proto, h.ip.src, h.ip.dst },\n"
    "    h.ip.csum, HashAlgorithm.csum16); } }\n"
    "control D(packet_out pkt, in headers h) { apply { pkt.emit(h.eth); pkt.emit(h.ip); } }\n"
    "V1Switch(P(), VC(), I(), E(), CC(), D()) main;\n";

static const uint8_t packet[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
                                 0x00, 0x02, 0x08, 0x00, 0x45, 0x00, 0x00, 0x18, 0x00, 0x01,
                                 0x00, 0x00, 0x40, 0x11, 0x65, 0xce, 0x0a, 0x00, 0x00, 0x02,
                                 0x0a, 0x00, 0x01, 0x05, 0xde, 0xad, 0xbe, 0xef};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double run(struct p4_pipe *pipe, const struct p4_prog *prog, long n)
{
    uint64_t *state = calloc(1, p4_prog_state_bytes(prog) + 8);
    uint8_t out[256];
    struct p4_ingress_in in = {packet, sizeof(packet), 0, 3, 0, NULL, -1};
    struct p4_ingress_out io;
    struct p4_egress_in ein;
    memset(&ein, 0, sizeof(ein));
    ein.bytes = packet;
    ein.len = sizeof(packet);
    ein.out = out;
    ein.out_cap = sizeof(out);
    struct p4_egress_out eo;
    unsigned sink = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        p4_pipe_ingress(pipe, state, &in, &io);
        ein.egress_port = io.egress_port;
        p4_pipe_egress(pipe, state, &ein, &eo);
        sink += eo.out_len + io.fwd;
    }
    double t1 = now_ns();
    if (sink == 42)
        printf(" ");
    free(state);
    return (t1 - t0) / (double)n;
}

/* aggregation.p4: contributions (64 int32 values) of 32 workers over 2048 slots; packet i
 * is worker (i / 2048) % 32's block for slot i % 2048, so most passes add into a slot and
 * one in 32 completes it (multicast to the group). */
static double run_agg(struct p4_pipe *pipe, const struct p4_prog *prog, long n)
{
    enum { LEN = 14 + 20 + 8 + 16 + 256 };
    uint8_t pkt[LEN] = {0};
    static const uint8_t head[] = {0x02, 0, 0, 0, 0, 0x09, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
                                   0x45, 0x02, 0x01, 0x2c, 0, 0, 0, 0, 0x40, 0x11, 0, 0,
                                   0x0a, 0, 0, 0x01, 0x0a, 0, 0, 0x09,
                                   0xa6, 0x01, 0xa6, 0x6a, 0x01, 0x18, 0, 0};
    memcpy(pkt, head, sizeof(head));
    uint8_t *agg = pkt + sizeof(head);
    agg[1] = 5;   /* job */
    agg[9] = 32;  /* fan-in */
    for (int i = 0; i < 256; i++)
        agg[16 + i] = (uint8_t)(i * 7);
    uint64_t *state = calloc(1, p4_prog_state_bytes(prog) + 8);
    uint8_t out[512];
    struct p4_ingress_in in = {pkt, LEN, LEN, 1, 0, NULL, -1};
    struct p4_ingress_out io;
    struct p4_egress_in ein;
    memset(&ein, 0, sizeof(ein));
    ein.bytes = pkt;
    ein.len = LEN;
    ein.out = out;
    ein.out_cap = sizeof(out);
    struct p4_egress_out eo;
    unsigned sink = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        uint32_t slot = (uint32_t)(i % 2048);
        agg[4] = (uint8_t)(slot >> 24);
        agg[5] = (uint8_t)(slot >> 16);
        agg[6] = (uint8_t)(slot >> 8);
        agg[7] = (uint8_t)slot;
        agg[8] = (uint8_t)((i / 2048) % 32);
        p4_pipe_ingress(pipe, state, &in, &io);
        ein.egress_port = io.egress_port;
        p4_pipe_egress(pipe, state, &ein, &eo);
        sink += eo.out_len + io.fwd;
    }
    double t1 = now_ns();
    if (sink == 42)
        printf(" ");
    free(state);
    return (t1 - t0) / (double)n;
}

static int add(struct p4_pipe *pipe, const char *table, const char *key, const char *kval,
               const char *action, const char *arg, const char *aval, int prio)
{
    char err[256];
    struct p4rt_kv k = {key, kval};
    struct p4rt_kv a = {arg, aval};
    if (p4rt_table_add(pipe, table, &k, 1, action, &a, arg ? 1 : 0, prio, NULL, err, sizeof(err))) {
        fprintf(stderr, "bench_p4: %s\n", err);
        return -1;
    }
    return 0;
}

int main(void)
{
    const char *inc = getenv("DDLSIM_P4_INCLUDE") ? getenv("DDLSIM_P4_INCLUDE") : "p4/include";
    int nerr;
    struct p4_prog *basic = p4_prog_load("p4/programs/basic.p4", inc, stderr, &nerr);
    struct p4_prog *three =
        p4_prog_load_text("three_tables.p4", three_tables, inc, true, stderr, &nerr);
    struct p4_prog *agg = p4_prog_load("p4/programs/aggregation.p4", inc, stderr, &nerr);
    if (!basic || !three || !agg) {
        fprintf(stderr, "bench_p4: cannot load programs (run from the repository root)\n");
        return 1;
    }
    struct p4_pipe *pb = p4_pipe_create(basic, NULL);
    struct p4_pipe *pt = p4_pipe_create(three, NULL);
    char route[64];
    char err[256];
    for (int i = 0; i < 64; i++) {
        snprintf(route, sizeof(route), "0x0a%02x0000/16", i + 1);
        struct p4rt_kv k = {"dstAddr", route};
        struct p4rt_kv a[2] = {{"dstAddr", "0x0a0b0c0d0e0f"}, {"port", "2"}};
        if (p4rt_table_add(pb, "ipv4_lpm", &k, 1, "ipv4_forward", a, 2, 0, NULL, err, sizeof(err)))
            fprintf(stderr, "bench_p4: %s\n", err);
    }
    struct p4rt_kv k = {"dstAddr", "0x0a000100/24"};
    struct p4rt_kv a[2] = {{"dstAddr", "0xaabbccddeeff"}, {"port", "1"}};
    p4rt_table_add(pb, "ipv4_lpm", &k, 1, "ipv4_forward", a, 2, 0, NULL, err, sizeof(err));
    add(pt, "acl", "h.ip.src", "0x0a0000**", "set_cls", "c", "3", 10);
    add(pt, "route", "h.ip.dst", "0x0a000100/24", "fwd", "port", "1", 0);
    add(pt, "qos", "m.cls", "3", "set_prio", "p", "5", 0);
    long n = getenv("BENCH_P4_N") ? atol(getenv("BENCH_P4_N")) : 2000000;
    if (n < 10)
        n = 10;
    run(pb, basic, n / 10); /* warm up */
    double b = run(pb, basic, n);
    double t = run(pt, three, n);
    printf("bench_p4: basic.p4 (parse Eth/IPv4, lpm over 65 routes, checksum, deparse): "
           "%.1f ns/packet\n",
           b);
    printf("bench_p4: three tables + register read-modify-write: %.1f ns/packet\n", t);
    printf("bench_p4: target <= 300 ns/packet: %s\n", b <= 300 && t <= 300 ? "met" : "MISSED");
    struct p4_pipe *pa = p4_pipe_create(agg, NULL);
    p4rt_mc_add_member(pa, 6, 1, 0);
    double g = run_agg(pa, agg, n / 4);
    printf("bench_p4: aggregation.p4 (a contribution of 64 int32 values: slot registers, 64 "
           "register adds, completion every 32nd): %.1f ns/packet\n",
           g);
    p4_pipe_destroy(pa);
    p4_prog_free(agg);
    p4_pipe_destroy(pb);
    p4_pipe_destroy(pt);
    p4_prog_free(basic);
    p4_prog_free(three);
    return 0;
}
