/* The lean calls (p4_pipe_lean_calls) against the general ones: for basic.p4 and
 * basic_wide.p4 on the three engines, every packet of a generated set (IPv4 to routed and
 * unrouted addresses, other EtherTypes, packets cut short inside either header, varied TTL and
 * ECN, wire lengths, output buffers too short), with the states kept from packet to packet,
 * gives the same ingress results, the same state (every slot) and the same output (bytes,
 * length, where) through both, and the interpreter's results and output.
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

/* A packet through the general calls of pipe on state s (its bytes in b, output in o, cap
 * bytes of it): the ingress results, and for a unicast packet the egress results; the output is
 * returned. */
static const uint8_t *general_pass(struct p4_pipe *pipe, uint64_t *s, int i, uint32_t cap,
                                   uint8_t *b, uint8_t *o, struct p4_ingress_out *r,
                                   struct p4_egress_out *e)
{
    uint32_t wire, len = make_packet(i, b, &wire);
    struct p4_ingress_in in = {b, len, wire, (uint32_t)(i % 5), 0, NULL, -1};
    p4_pipe_ingress(pipe, s, &in, r);
    if (r->fwd != P4_FWD_UNICAST)
        return NULL;
    struct p4_egress_in ein = {.bytes = b, .len = len, .out = o, .out_cap = cap, .in_place = b};
    p4_pipe_egress(pipe, s, &ein, e);
    return e->in_place ? b : o;
}

static bool same_egress(const struct p4_egress_out *a, const struct p4_egress_out *b)
{
    return a->drop == b->drop && a->out_len == b->out_len &&
           a->clone_session == b->clone_session && a->clone_fl == b->clone_fl &&
           a->recirculate == b->recirculate && a->recirc_fl == b->recirc_fl &&
           a->overflow == b->overflow && a->in_place == b->in_place;
}

/* The pipelines of one program and engine and their states, kept from packet to packet: the
 * general calls (gen), the lean calls (lean, made directly, as the P4 switch makes them) and
 * the interpreter's general calls (ref). */
struct trio {
    struct p4_pipe *gen, *lean, *ref;
    struct p4_lean_calls c;
    size_t bytes;
    uint64_t *sg, *sl, *sr;
};

/* Packet i (a wire length of 0 passed to the lean call as the header length, as the switch's
 * size_bytes counts the headers) gives through the lean calls what the general calls give:
 * the same engine's results, every slot and output, and the interpreter's results and output
 * (the reference for the native engine's generated checksum and deparser, which its general
 * path shares). */
static void check_packet(struct trio *t, int i, int *unicast, int *short_cut)
{
    uint8_t pg[CAP], pr[CAP], pl[CAP], og[CAP], orf[CAP], ol[CAP];
    uint32_t cap = i % 13 == 6 ? SHORT_CAP : CAP; /* short: into the buffer, cut */
    struct p4_ingress_out rg, rr, rl;
    struct p4_egress_out eg, er, el;
    const uint8_t *outg = general_pass(t->gen, t->sg, i, cap, pg, og, &rg, &eg);
    const uint8_t *outr = general_pass(t->ref, t->sr, i, cap, pr, orf, &rr, &er);
    uint32_t wire, len = make_packet(i, pl, &wire);
    t->c.in(t->c.vm, t->sl, pl, p4_lean_lens(len, wire ? wire : len), (uint32_t)(i % 5), &rl);
    if (memcmp(&rg, &rl, sizeof(rg)) != 0 || memcmp(&rr, &rl, sizeof(rr)) != 0)
        fail_msg("packet %d: ingress results differ (fwd %d/%d/%d port %u/%u/%u)", i, rg.fwd,
                 rl.fwd, rr.fwd, rg.egress_port, rl.egress_port, rr.egress_port);
    if (rg.fwd == P4_FWD_UNICAST) {
        (*unicast)++;
        t->c.out(t->c.vm, t->sl, pl, p4_lean_lens(len, cap), ol, &el);
        *short_cut += eg.overflow;
        if (!same_egress(&eg, &el) || !same_egress(&er, &el))
            fail_msg("packet %d: egress results differ (len %u/%u/%u)", i, eg.out_len,
                     el.out_len, er.out_len);
        assert_memory_equal(outg, el.in_place ? pl : ol, eg.out_len);
        assert_memory_equal(outr, el.in_place ? pl : ol, er.out_len);
    }
    assert_memory_equal(t->sg, t->sl, t->bytes);
}

static void check_program(const char *path, enum p4_exec exec, int *unicast, int *short_cut)
{
    struct p4_prog *prog;
    struct p4_host host = {.exec = exec}, rhost = {.exec = P4_EXEC_INTERP};
    struct trio t;
    t.gen = test_pipe(path, NULL, &host, &prog);
    t.lean = p4_pipe_create(prog, &host);
    t.ref = p4_pipe_create(prog, &rhost);
    assert_true(p4_pipe_lean(t.lean));
    add_routes(t.gen);
    add_routes(t.lean);
    add_routes(t.ref);
    t.c = p4_pipe_lean_calls(t.lean);
    t.bytes = p4_prog_state_bytes(prog);
    t.sg = calloc(1, t.bytes + 8);
    t.sl = calloc(1, t.bytes + 8);
    t.sr = calloc(1, t.bytes + 8);
    for (int i = 0; i < NPKTS; i++)
        check_packet(&t, i, unicast, short_cut);
    free(t.sg);
    free(t.sl);
    free(t.sr);
    p4_pipe_destroy(t.ref);
    p4_pipe_destroy(t.lean);
    test_pipe_free(t.gen, prog);
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
