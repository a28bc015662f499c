/* Per-packet cost of the P4 engine: one full pass (parser, verify, ingress, egress,
 * checksum, deparser) through basic.p4 with one lpm lookup, and through a program with
 * three tables and a register read-modify-write, on the compiled engine, on the native
 * engine (the compiled form as machine code) and on the interpreter. Times are CPU time of this thread (the best of 5 rounds), so other load on the
 * machine inflates them less than wall time would. Run from the repository root. */
#include <stdbool.h>
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
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU ns per pass of n passes of pkt (len bytes, from port) through ingress and egress;
 * vary(i, ctx), if given, changes the packet before pass i. Without vary the output replaces
 * the input in place, as in a switch: each pass parses the previous one's output (the same
 * path through basic.p4 and the three tables: only the TTL, MACs and checksum change). */
static double passes(struct p4_pipe *pipe, const struct p4_prog *prog, const uint8_t *pkt,
                     uint32_t len, uint32_t port, long n, void (*vary)(long i, void *ctx),
                     void *ctx)
{
    uint64_t *state = calloc(1, p4_prog_state_bytes(prog) + 8);
    uint8_t out[512];
    uint8_t buf[512];
    memcpy(buf, pkt, len);
    struct p4_ingress_in in = {vary ? pkt : buf, len, 0, port, 0, NULL, -1};
    struct p4_ingress_out io;
    struct p4_egress_in ein;
    memset(&ein, 0, sizeof(ein));
    ein.bytes = in.bytes;
    ein.len = len;
    ein.out = out;
    ein.out_cap = sizeof(out);
    ein.in_place = vary ? NULL : buf;
    struct p4_egress_out eo;
    unsigned sink = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        if (vary)
            vary(i, ctx);
        p4_pipe_ingress(pipe, state, &in, &io);
        ein.egress_port = io.egress_port;
        p4_pipe_egress(pipe, state, &ein, &eo);
        sink += eo.out_len + io.fwd;
        if (!vary && !eo.drop) {
            if (!eo.in_place)
                memcpy(buf, out, eo.out_len);
            in.len = ein.len = eo.out_len;
        }
    }
    double t1 = now_ns();
    if (sink == 42)
        printf(" ");
    free(state);
    return (t1 - t0) / (double)n;
}

static double run(struct p4_pipe *pipe, const struct p4_prog *prog, long n)
{
    return passes(pipe, prog, packet, sizeof(packet), 3, n, NULL, NULL);
}

/* aggregation.p4's header fields of pass i: slot i % 2048 of worker (i / 2048) % 32 */
static void agg_vary(long i, void *ctx)
{
    uint8_t *agg = ctx;
    uint32_t slot = (uint32_t)(i % 2048);
    agg[4] = (uint8_t)(slot >> 24);
    agg[5] = (uint8_t)(slot >> 16);
    agg[6] = (uint8_t)(slot >> 8);
    agg[7] = (uint8_t)slot;
    agg[8] = (uint8_t)((i / 2048) % 32);
}

/* aggregation.p4: contributions (64 int32 values) of 32 workers over 2048 slots; packet i
 * is worker (i / 2048) % 32's block for slot i % 2048, so most passes add into a slot and
 * one in 32 completes it (multicast to the group). */
static double run_agg(struct p4_pipe *pipe, const struct p4_prog *prog, long n)
{
    enum { LEN = 14 + 20 + 8 + 16 + 256 };
    uint8_t pkt[LEN] = {0};
    static const uint8_t head[] = {0x02, 0,    0,    0,    0,    0x09, 0x02, 0,    0,    0, 0,
                                   0x01, 0x08, 0x00, 0x45, 0x02, 0x01, 0x2c, 0,    0,    0, 0,
                                   0x40, 0x11, 0,    0,    0x0a, 0,    0,    0x01, 0x0a, 0, 0,
                                   0x09, 0xa6, 0x01, 0xa6, 0x6a, 0x01, 0x18, 0,    0};
    memcpy(pkt, head, sizeof(head));
    uint8_t *agg = pkt + sizeof(head);
    agg[1] = 5;  /* job */
    agg[9] = 32; /* fan-in */
    for (int i = 0; i < 256; i++)
        agg[16 + i] = (uint8_t)(i * 7);
    return passes(pipe, prog, pkt, LEN, 1, n, agg_vary, agg);
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

/* The pipelines of both programs on one engine, with the same entries. */
struct pipes {
    struct p4_pipe *basic;
    struct p4_pipe *three;
};

static void setup(struct pipes *p, const struct p4_prog *basic, const struct p4_prog *three,
                  enum p4_exec exec)
{
    struct p4_host host = {0};
    host.exec = exec;
    p->basic = p4_pipe_create(basic, &host);
    p->three = p4_pipe_create(three, &host);
    struct p4_pipe *pb = p->basic;
    struct p4_pipe *pt = p->three;
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
}

/* The best of 5 rounds of n passes. */
static double best(struct p4_pipe *pipe, const struct p4_prog *prog, long n)
{
    double b = 0;
    for (int r = 0; r < 5; r++) {
        double t = run(pipe, prog, n);
        if (r == 0 || t < b)
            b = t;
    }
    return b;
}

static void destroy_all(struct pipes *c, struct pipes *i, struct pipes *nv, struct p4_prog *basic,
                        struct p4_prog *three)
{
    struct p4_pipe *all[6] = {c->basic, c->three, i->basic, i->three, nv->basic, nv->three};
    for (int k = 0; k < 6; k++)
        p4_pipe_destroy(all[k]);
    p4_prog_free(basic);
    p4_prog_free(three);
}

int main(void)
{
    const char *inc = getenv("DDLSIM_P4_INCLUDE") ? getenv("DDLSIM_P4_INCLUDE") : "p4/include";
    int nerr;
    struct p4_prog *basic = p4_prog_load("p4/programs/basic.p4", inc, stderr, &nerr);
    struct p4_prog *three =
        p4_prog_load_text("three_tables.p4", three_tables, inc, true, stderr, &nerr);
    if (!basic || !three) {
        fprintf(stderr, "bench_p4: cannot load programs (run from the repository root)\n");
        return 1;
    }
    long n = getenv("BENCH_P4_N") ? atol(getenv("BENCH_P4_N")) : 400000;
    if (n < 10)
        n = 10;
    /* BENCH_P4_ENGINE=compiled, native or interp runs only that engine, BENCH_P4_PROGRAM=basic
     * or three only that program and no aggregation.p4 (for profilers and instruction counts:
     * one engine and one program make 5.1 N passes) */
    const char *only = getenv("BENCH_P4_ENGINE") ? getenv("BENCH_P4_ENGINE") : "";
    const char *prog = getenv("BENCH_P4_PROGRAM") ? getenv("BENCH_P4_PROGRAM") : "";
    bool rc = !*only || strcmp(only, "compiled") == 0;
    bool ri = !*only || strcmp(only, "interp") == 0;
    bool rn = !*only || strcmp(only, "native") == 0;
    bool rb = strcmp(prog, "three") != 0;
    bool rt = strcmp(prog, "basic") != 0;
    struct pipes c;
    struct pipes i;
    struct pipes nv;
    setup(&c, basic, three, P4_EXEC_COMPILED);
    setup(&i, basic, three, P4_EXEC_INTERP);
    setup(&nv, basic, three, P4_EXEC_NATIVE);
    struct pipes *w = rn ? &nv : rc ? &c : &i;
    if (rb) /* warm up */
        run(w->basic, basic, n / 10);
    else
        run(w->three, three, n / 10);
    double cb = rc && rb ? best(c.basic, basic, n) : 0;
    double ct = rc && rt ? best(c.three, three, n) : 0;
    double nb = rn && rb ? best(nv.basic, basic, n) : 0;
    double nt = rn && rt ? best(nv.three, three, n) : 0;
    double ib = ri && rb ? best(i.basic, basic, n) : 0;
    double it = ri && rt ? best(i.three, three, n) : 0;
    printf("bench_p4: basic.p4 (parse Eth/IPv4, lpm over 65 routes, checksum, deparse): "
           "%.1f ns/pass compiled, %.1f native, %.1f interpreted\n",
           cb, nb, ib);
    printf("bench_p4: three tables + register read-modify-write: %.1f ns/pass compiled, "
           "%.1f native, %.1f interpreted\n",
           ct, nt, it);
    printf("bench_p4: targets (native) basic.p4 <= 80 ns: %s, three tables <= 120 ns: %s\n",
           !nb ? "not run" : nb <= 80 ? "met" : "MISSED",
           !nt ? "not run" : nt <= 120 ? "met" : "MISSED");
    if (*prog) {
        destroy_all(&c, &i, &nv, basic, three);
        return 0;
    }
    struct p4_prog *agg = p4_prog_load("p4/programs/aggregation.p4", inc, stderr, &nerr);
    if (!agg) {
        fprintf(stderr, "bench_p4: cannot load p4/programs/aggregation.p4\n");
        return 1;
    }
    double g[2];
    enum p4_exec ex[2] = {P4_EXEC_COMPILED, P4_EXEC_NATIVE};
    for (int k = 0; k < 2; k++) {
        struct p4_host host = {0};
        host.exec = ex[k];
        struct p4_pipe *pa = p4_pipe_create(agg, &host);
        p4rt_mc_add_member(pa, 6, 1, 0);
        g[k] = run_agg(pa, agg, n / 4);
        p4_pipe_destroy(pa);
    }
    printf("bench_p4: aggregation.p4 (a contribution of 64 int32 values: slot registers, 64 "
           "register adds, completion every 32nd): %.1f ns/pass compiled, %.1f native\n",
           g[0], g[1]);
    p4_prog_free(agg);
    destroy_all(&c, &i, &nv, basic, three);
    return 0;
}
