/* The lean calls (p4_pipe_ingress_lean, p4_pipe_egress_lean) against the general ones: for
 * basic.p4 and basic_wide.p4 on the three engines, every packet of a generated set (IPv4 to
 * routed and unrouted addresses, other EtherTypes, packets cut short inside either header,
 * varied TTL and ECN, wire lengths, output buffers too short) gives the same ingress results,
 * the same state (every slot) and the same output (bytes, length, where) through both.
 * Programs that make requests, truncate or send at egress are not lean. */
#include "tests/testp4.h"

#include <stdlib.h>
#include <string.h>

#include "p4/engine/p4rt.h"

#define NPKTS 600
#define CAP 128
#define SHORT_CAP 40 /* an output buffer shorter than the headers and payload */

static void add_routes(struct p4_pipe *pipe)
{
    char err[256];
    for (int i = 0; i < 8; i++) {
        char key[32], mac[32], port[8];
        snprintf(key, sizeof(key), "0x0a0000%02x/%d", i * 16, i ? 28 : 24);
        snprintf(mac, sizeof(mac), "0x0000000000%02x", 0x10 + i);
        snprintf(port, sizeof(port), "%d", i + 1);
        struct p4rt_kv k = {"dstAddr", key};
        struct p4rt_kv a[2] = {{"dstAddr", mac}, {"port", port}};
        assert_int_equal(p4rt_table_add(pipe, "ipv4_lpm", &k, 1, "ipv4_forward", a, 2, -1, NULL,
                                        err, sizeof(err)),
                         0);
    }
}

/* Packet i of the set (its header bytes in b, their count returned; *wire its wire length). */
static uint32_t make_packet(int i, uint8_t *b, uint32_t *wire)
{
    static const uint32_t cut[] = {0, 5, 13, 14, 20, 33};
    memset(b, 0, CAP);
    for (int k = 0; k < 12; k++)
        b[k] = (uint8_t)(k * 7 + i);
    bool ipv4 = i % 9 != 4;
    b[12] = ipv4 ? 0x08 : 0x86;
    b[13] = ipv4 ? 0x00 : 0xdd;
    b[14] = 0x45;
    b[15] = (uint8_t)(i & 3); /* ECN */
    b[16] = 0x05;
    b[17] = 0xdc;
    b[22] = (uint8_t)(i % 5 == 0 ? 0 : i % 5 == 1 ? 1 : 64); /* TTL */
    b[23] = 6;
    b[30] = 10;
    b[33] = (uint8_t)(i * 5); /* routed below 128, unrouted above */
    for (int k = 34; k < 54; k++)
        b[k] = (uint8_t)(i + k);
    uint32_t len = i % 11 == 3 ? cut[(i / 11) % 6] : 54;
    *wire = i % 7 == 0 ? 0 : len + (uint32_t)(i * 13 % 1500);
    return len;
}

/* One packet through both paths (a state and a copy of its bytes each). */
static void check_packet(struct p4_pipe *gen, struct p4_pipe *lean, const struct p4_prog *prog,
                         int i, int *short_cut)
{
    size_t bytes = p4_prog_state_bytes(prog);
    uint64_t *sg = calloc(1, bytes + 8), *sl = calloc(1, bytes + 8);
    uint8_t pg[CAP], pl[CAP], og[CAP], ol[CAP];
    uint32_t wire;
    uint32_t len = make_packet(i, pg, &wire);
    memcpy(pl, pg, CAP);
    struct p4_ingress_in in = {pg, len, wire, (uint32_t)(i % 5), 0, NULL, -1};
    struct p4_ingress_out rg, rl;
    p4_pipe_ingress(gen, sg, &in, &rg);
    p4_pipe_ingress_lean(lean, sl, pl, len, wire, (uint32_t)(i % 5), &rl);
    if (memcmp(&rg, &rl, sizeof(rg)) != 0)
        fail_msg("packet %d: ingress results differ (fwd %d/%d port %u/%u)", i, rg.fwd, rl.fwd,
                 rg.egress_port, rl.egress_port);
    assert_memory_equal(sg, sl, bytes);
    if (rg.fwd == P4_FWD_UNICAST) {
        uint32_t cap = i % 13 == 6 ? SHORT_CAP : CAP; /* short: into the buffer, cut */
        struct p4_egress_in ein = {
            .bytes = pg, .len = len, .out = og, .out_cap = cap, .in_place = pg};
        struct p4_egress_out eg, el;
        p4_pipe_egress(gen, sg, &ein, &eg);
        p4_pipe_egress_lean(lean, sl, pl, len, ol, cap, &el);
        *short_cut += eg.overflow;
        if (eg.drop != el.drop || eg.out_len != el.out_len ||
            eg.clone_session != el.clone_session || eg.clone_fl != el.clone_fl ||
            eg.recirculate != el.recirculate || eg.recirc_fl != el.recirc_fl ||
            eg.overflow != el.overflow || eg.in_place != el.in_place)
            fail_msg("packet %d: egress results differ (len %u/%u)", i, eg.out_len, el.out_len);
        assert_memory_equal(eg.in_place ? pg : og, el.in_place ? pl : ol, eg.out_len);
        assert_memory_equal(sg, sl, bytes);
    }
    free(sg);
    free(sl);
}

/* A packet through the general calls of pipe on state s (its bytes in b, output in o):
 * the ingress results, and for a unicast packet the egress results; the output is returned. */
static const uint8_t *general_pass(struct p4_pipe *pipe, uint64_t *s, int i, uint8_t *b,
                                   uint8_t *o, struct p4_ingress_out *r, struct p4_egress_out *e)
{
    uint32_t wire, len = make_packet(i, b, &wire);
    struct p4_ingress_in in = {b, len, wire, (uint32_t)(i % 5), 0, NULL, -1};
    p4_pipe_ingress(pipe, s, &in, r);
    if (r->fwd != P4_FWD_UNICAST)
        return NULL;
    struct p4_egress_in ein = {.bytes = b, .len = len, .out = o, .out_cap = CAP, .in_place = b};
    p4_pipe_egress(pipe, s, &ein, e);
    return e->in_place ? b : o;
}

/* The lean calls made directly (p4_pipe_lean_calls, as the P4 switch makes them, with a
 * packet_length that is not 0) give what the general calls give, packet by packet of the same
 * set: the same engine's (results, every slot, output) and the interpreter's, the reference
 * (results and output: the native engine's generated checksum and deparser against the
 * interpreter's). */
static void check_direct(struct p4_pipe *gen, struct p4_pipe *ref, struct p4_pipe *lean,
                         const struct p4_prog *prog)
{
    struct p4_lean_calls c = p4_pipe_lean_calls(lean);
    size_t bytes = p4_prog_state_bytes(prog);
    uint64_t *sg = calloc(1, bytes + 8), *sr = calloc(1, bytes + 8), *sl = calloc(1, bytes + 8);
    for (int i = 0; i < NPKTS; i++) {
        uint8_t pg[CAP], pr[CAP], pl[CAP], og[CAP], orf[CAP], ol[CAP];
        struct p4_ingress_out rg, rr, rl;
        struct p4_egress_out eg, er, el;
        const uint8_t *outg = general_pass(gen, sg, i, pg, og, &rg, &eg);
        const uint8_t *outr = general_pass(ref, sr, i, pr, orf, &rr, &er);
        uint32_t wire, len = make_packet(i, pl, &wire);
        c.in(c.vm, sl, pl, p4_lean_lens(len, wire ? wire : len), (uint32_t)(i % 5), &rl);
        assert_memory_equal(&rg, &rl, sizeof(rg));
        assert_memory_equal(&rr, &rl, sizeof(rr));
        if (rg.fwd == P4_FWD_UNICAST) {
            c.out(c.vm, sl, pl, p4_lean_lens(len, CAP), ol, &el);
            assert_int_equal(eg.out_len, el.out_len);
            assert_int_equal(er.out_len, el.out_len);
            assert_int_equal(eg.in_place, el.in_place);
            assert_memory_equal(outg, el.in_place ? pl : ol, eg.out_len);
            assert_memory_equal(outr, el.in_place ? pl : ol, er.out_len);
        }
        assert_memory_equal(sg, sl, bytes);
    }
    free(sg);
    free(sr);
    free(sl);
}

static void check_program(const char *path, enum p4_exec exec, int *unicast, int *short_cut)
{
    struct p4_prog *prog;
    struct p4_host host = {.exec = exec};
    struct p4_pipe *gen = test_pipe(path, NULL, &host, &prog);
    struct p4_pipe *lean = p4_pipe_create(prog, &host);
    assert_true(p4_pipe_lean(lean));
    add_routes(gen);
    add_routes(lean);
    for (int i = 0; i < NPKTS; i++) {
        struct p4_ingress_out r;
        check_packet(gen, lean, prog, i, short_cut);
        uint8_t b[CAP];
        uint32_t wire;
        uint32_t len = make_packet(i, b, &wire);
        uint64_t *s = calloc(1, p4_prog_state_bytes(prog) + 8);
        p4_pipe_ingress_lean(lean, s, b, len, wire, 0, &r);
        *unicast += r.fwd == P4_FWD_UNICAST;
        free(s);
    }
    struct p4_host rhost = {.exec = P4_EXEC_INTERP};
    struct p4_pipe *ref = p4_pipe_create(prog, &rhost);
    add_routes(ref);
    check_direct(gen, ref, lean, prog);
    p4_pipe_destroy(ref);
    p4_pipe_destroy(lean);
    test_pipe_free(gen, prog);
}

static void test_p4lean_same_as_general(void **state)
{
    (void)state;
    static const enum p4_exec engines[] = {P4_EXEC_NATIVE, P4_EXEC_COMPILED, P4_EXEC_INTERP};
    for (int e = 0; e < 3; e++) {
        int unicast = 0, short_cut = 0;
        check_program("p4/programs/basic.p4", engines[e], &unicast, &short_cut);
        check_program("p4/programs/basic_wide.p4", engines[e], &unicast, &short_cut);
        /* both kinds of packets were seen: forwarded (egress compared) and dropped; and
         * outputs cut to the short buffer */
        assert_in_range(unicast, NPKTS / 4, 2 * NPKTS - NPKTS / 4);
        assert_true(short_cut > 0);
    }
}

/* The programs under tests/p4 that clone, resubmit or recirculate are not lean. */
static void test_p4lean_requests_are_not_lean(void **state)
{
    (void)state;
    static const char *const paths[] = {"tests/p4/lifecycle.p4", "tests/p4/misc.p4"};
    for (int i = 0; i < 2; i++) {
        struct p4_prog *prog;
        struct p4_pipe *pipe = test_pipe(paths[i], NULL, NULL, &prog);
        assert_false(p4_pipe_lean(pipe));
        test_pipe_free(pipe, prog);
    }
}

TEST_MAIN(cmocka_unit_test(test_p4lean_same_as_general),
          cmocka_unit_test(test_p4lean_requests_are_not_lean))
