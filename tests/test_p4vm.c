/* The per-packet API (p4.h) without the STF runner: forwarding decisions, priority, clone
 * requests, output length changes (headers added and removed, virtual payload carried; in
 * place over the input), state buffers that outlive the pipeline's scratch, and the host
 * time callback. */
#include "tests/testp4.h"

#include <stdlib.h>
#include <string.h>

#include "p4/engine/p4.h"
#include "p4/engine/p4rt.h"

static const char program[] =
    "#include <core.p4>\n"
    "#include <v1model.p4>\n"
    "header a_t { bit<8> op; bit<8> arg; }\n"
    "header tag_t { bit<16> v; }\n"
    "struct headers { a_t a; tag_t tag; }\n"
    "struct meta_t { bit<8> seen; }\n"
    "parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {\n"
    "  state start { pkt.extract(h.a); transition select(h.a.op) {\n"
    "    0x10: tagged; default: accept; } }\n"
    "  state tagged { pkt.extract(h.tag); transition accept; }\n"
    "}\n"
    "control VC(inout headers h, inout meta_t m) { apply { } }\n"
    "control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {\n"
    "  apply {\n"
    "    m.seen = h.a.arg;\n"
    "    sm.priority = h.a.arg[2:0];\n"
    "    if (h.a.op == 1) { sm.egress_spec = 7; h.tag.setValid(); h.tag.v = 0xBEEF; }\n"
    "    else if (h.a.op == 2) { mark_to_drop(sm); }\n"
    "    else if (h.a.op == 3) { sm.mcast_grp = 4; }\n"
    "    else if (h.a.op == 4) { resubmit_preserving_field_list(0); }\n"
    "    else if (h.a.op == 5) { clone(CloneType.I2E, 33); sm.egress_spec = 1; }\n"
    "    else if (h.a.op == 0x10) { h.tag.setInvalid(); sm.egress_spec = 2; }\n"
    "  }\n"
    "}\n"
    "control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {\n"
    "  apply { h.a.arg = m.seen + 1; if (h.tag.isValid()) { h.tag.v = "
    "(bit<16>)sm.egress_global_timestamp; }\n"
    "    if (h.a.op == 6) { clone(CloneType.E2E, 9); } }\n"
    "}\n"
    "control CC(inout headers h, inout meta_t m) { apply { } }\n"
    "control D(packet_out pkt, in headers h) { apply { pkt.emit(h.a); pkt.emit(h.tag); } }\n"
    "V1Switch(P(), VC(), I(), E(), CC(), D()) main;\n";

struct fixture {
    struct p4_prog *prog;
    struct p4_pipe *pipe;
    int64_t now_ps;
    uint64_t *state;
};

static int64_t now(void *ud)
{
    return ((struct fixture *)ud)->now_ps;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    struct p4_host host = {f, now, NULL, false, 1, NULL};
    f->pipe = test_pipe("vm.p4", program, &host, &f->prog);
    f->state = calloc(1, p4_prog_state_bytes(f->prog));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    free(f->state);
    test_pipe_free(f->pipe, f->prog);
    free(f);
    return 0;
}

static void ingress(struct fixture *f, const uint8_t *b, uint32_t len, uint32_t wire,
                    struct p4_ingress_out *out)
{
    struct p4_ingress_in in = {b, len, wire, 3, 0, NULL, -1};
    p4_pipe_ingress(f->pipe, f->state, &in, out);
}

static void test_p4vm_decisions(void **state)
{
    struct fixture *f = *state;
    struct p4_ingress_out out;
    uint8_t drop[] = {2, 0};
    ingress(f, drop, 2, 0, &out);
    assert_int_equal(out.fwd, P4_FWD_DROP);
    uint8_t mc[] = {3, 6};
    ingress(f, mc, 2, 0, &out);
    assert_int_equal(out.fwd, P4_FWD_MULTICAST);
    assert_int_equal(out.mcast_grp, 4);
    assert_int_equal(out.priority, 6);
    uint8_t rs[] = {4, 0};
    ingress(f, rs, 2, 0, &out);
    assert_int_equal(out.fwd, P4_FWD_RESUBMIT);
    assert_int_equal(out.resubmit_fl, 0);
    uint8_t cl[] = {5, 0};
    ingress(f, cl, 2, 0, &out);
    assert_int_equal(out.fwd, P4_FWD_UNICAST);
    assert_int_equal(out.egress_port, 1);
    assert_int_equal(out.clone_session, 33);
    uint8_t def[] = {9, 0};
    ingress(f, def, 2, 0, &out);
    assert_int_equal(out.fwd, P4_FWD_UNICAST);
    assert_int_equal(out.egress_port, 0); /* standard_metadata starts zeroed */
    assert_int_equal(out.clone_session, -1);
}

static void test_p4vm_output_grows_and_shrinks(void **state)
{
    struct fixture *f = *state;
    struct p4_ingress_out io;
    struct p4_egress_out eo;
    uint8_t outbuf[64];
    /* header added: 2 bytes + 2 new + 3 payload bytes carried */
    uint8_t grow[] = {1, 4, 0xA, 0xB, 0xC};
    ingress(f, grow, sizeof(grow), 1500, &io);
    assert_int_equal(io.egress_port, 7);
    assert_int_equal(io.payload_off, 2);
    f->now_ps = 5000000; /* 5 us */
    struct p4_egress_in ein = {7, 0, 0, 0, 0, 0, 0, grow, sizeof(grow), outbuf, sizeof(outbuf)};
    p4_pipe_egress(f->pipe, f->state, &ein, &eo);
    assert_false(eo.drop);
    assert_int_equal(eo.out_len, 7);
    uint8_t want1[] = {1, 5, 0x00, 0x05, 0xA, 0xB, 0xC};
    assert_memory_equal(outbuf, want1, 7);
    /* header removed */
    uint8_t shrink[] = {0x10, 7, 0x12, 0x34, 0xD};
    ingress(f, shrink, sizeof(shrink), 0, &io);
    assert_int_equal(io.payload_off, 4);
    struct p4_egress_in e2 = {2, 0, 0, 0, 0, 0, 0, shrink, sizeof(shrink), outbuf, 2};
    p4_pipe_egress(f->pipe, f->state, &e2, &eo);
    assert_true(eo.overflow); /* 3 bytes do not fit in 2 */
    e2.out_cap = sizeof(outbuf);
    ingress(f, shrink, sizeof(shrink), 0, &io);
    p4_pipe_egress(f->pipe, f->state, &e2, &eo);
    assert_int_equal(eo.out_len, 3);
    uint8_t want2[] = {0x10, 8, 0xD};
    assert_memory_equal(outbuf, want2, 3);
}

/* Egress in place (p4_egress_in.in_place): the output of in's bytes (n of them) replaces them,
 * or is in out when the headers grew or an E2E clone needs the input as it came. */
static void egress_in_place(struct fixture *f, uint8_t *in, uint32_t n, uint8_t *out,
                            struct p4_egress_out *eo)
{
    struct p4_ingress_out io;
    ingress(f, in, n, 0, &io);
    struct p4_egress_in e = {io.egress_port, 0, 0, 0, 0, 0, 0, in, n, out, 64, in};
    p4_pipe_egress(f->pipe, f->state, &e, eo);
    assert_false(eo->overflow);
}

static void test_p4vm_output_in_place(void **state)
{
    struct fixture *f = *state;
    struct p4_egress_out eo;
    uint8_t out[64] = {0};
    /* same headers: written over themselves, the payload stays */
    uint8_t same[64] = {9, 0x20, 0xA, 0xB};
    egress_in_place(f, same, 4, out, &eo);
    assert_true(eo.in_place);
    assert_int_equal(eo.out_len, 4);
    uint8_t want_same[] = {9, 0x21, 0xA, 0xB};
    assert_memory_equal(same, want_same, 4);
    /* a header removed: the payload moves up */
    uint8_t shrink[64] = {0x10, 7, 0x12, 0x34, 0xD};
    egress_in_place(f, shrink, 5, out, &eo);
    assert_true(eo.in_place);
    assert_int_equal(eo.out_len, 3);
    uint8_t want_shrink[] = {0x10, 8, 0xD};
    assert_memory_equal(shrink, want_shrink, 3);
    /* a header added: it does not fit over the parsed one, so the deparser runs again into
     * out, with the payload as it came */
    uint8_t grow[64] = {1, 4, 0xA, 0xB, 0xC};
    f->now_ps = 5000000;
    egress_in_place(f, grow, 5, out, &eo);
    assert_false(eo.in_place);
    assert_int_equal(eo.out_len, 7);
    uint8_t want_grow[] = {1, 5, 0x00, 0x05, 0xA, 0xB, 0xC};
    assert_memory_equal(out, want_grow, 7);
    /* an E2E clone copies the input after egress: it is left as it came */
    uint8_t clone[64] = {6, 0, 0xE};
    egress_in_place(f, clone, 3, out, &eo);
    assert_int_equal(eo.clone_session, 9);
    assert_false(eo.in_place);
    uint8_t want_clone[] = {6, 0, 0xE};
    assert_memory_equal(clone, want_clone, 3);
    uint8_t want_out[] = {6, 1, 0xE};
    assert_memory_equal(out, want_out, 3);
}

static void test_p4vm_state_is_per_packet(void **state)
{
    struct fixture *f = *state;
    /* two packets through ingress, then egress in reverse order: metadata (m.seen) travels
     * in each packet's own state buffer */
    uint64_t *s1 = calloc(1, p4_prog_state_bytes(f->prog));
    uint64_t *s2 = calloc(1, p4_prog_state_bytes(f->prog));
    uint8_t p1[] = {9, 0x20};
    uint8_t p2[] = {9, 0x40};
    struct p4_ingress_in in1 = {p1, 2, 0, 1, 0, NULL, -1};
    struct p4_ingress_in in2 = {p2, 2, 0, 1, 0, NULL, -1};
    struct p4_ingress_out io;
    p4_pipe_ingress(f->pipe, s1, &in1, &io);
    p4_pipe_ingress(f->pipe, s2, &in2, &io);
    uint8_t o[8];
    struct p4_egress_out eo;
    struct p4_egress_in e2 = {0, 0, 0, 0, 0, 0, 0, p2, 2, o, sizeof(o)};
    p4_pipe_egress(f->pipe, s2, &e2, &eo);
    assert_int_equal(o[1], 0x41);
    struct p4_egress_in e1 = {0, 0, 0, 0, 0, 0, 0, p1, 2, o, sizeof(o)};
    p4_pipe_egress(f->pipe, s1, &e1, &eo);
    assert_int_equal(o[1], 0x21);
    free(s1);
    free(s2);
}

static void test_p4vm_control_plane_errors(void **state)
{
    struct fixture *f = *state;
    char err[128];
    assert_int_equal(p4rt_register_write(f->pipe, "nope", 0, 1, err, sizeof(err)), -1);
    assert_string_equal(err, "unknown register 'nope'");
    assert_int_equal(p4rt_mc_add_member(f->pipe, 4, 1, 10), 0);
    assert_int_equal(p4rt_mc_add_member(f->pipe, 4, 2, 11), 0);
    const struct p4_mc_member *m;
    assert_int_equal(p4_pipe_mcast_members(f->pipe, 4, &m), 2);
    assert_int_equal(m[1].port, 2);
    assert_int_equal(m[1].rid, 11);
    assert_int_equal(p4rt_mirror_add(f->pipe, 33, 5, err, sizeof(err)), 0);
    assert_int_equal(p4_pipe_mirror_port(f->pipe, 33), 5);
    assert_int_equal(p4_pipe_mirror_port(f->pipe, 34), -1);
}

static void test_p4vm_introspection(void **state)
{
    struct p4_prog *prog;
    struct p4_pipe *pipe = test_pipe("p4/programs/basic.p4", NULL, NULL, &prog);
    const char *name;
    const char *mk;
    int w;
    assert_int_equal(p4rt_table_at(pipe, 0, &name), 0);
    assert_string_equal(name, "MyIngress.ipv4_lpm");
    assert_int_equal(p4rt_table_at(pipe, 1, &name), -1);
    assert_int_equal(p4rt_table_key(pipe, "ipv4_lpm", 0, &name, &mk, &w), 0);
    assert_string_equal(name, "hdr.ipv4.dstAddr");
    assert_string_equal(mk, "lpm");
    assert_int_equal(w, 32);
    assert_int_equal(p4rt_table_action(pipe, "ipv4_lpm", 0, &name), 0);
    assert_string_equal(name, "MyIngress.ipv4_forward");
    assert_int_equal(p4rt_action_param(pipe, "ipv4_lpm", "ipv4_forward", 1, &name, &w), 0);
    assert_string_equal(name, "port");
    assert_int_equal(w, 9);
    assert_int_equal(p4rt_action_param(pipe, "ipv4_lpm", "ipv4_forward", 2, &name, &w), -1);
    test_pipe_free(pipe, prog);
}

/* A program of one header h_t (its fields given) whose ingress control holds `ingress` (the
 * control's first line is line 9). */
#define ONE_HEADER_PROGRAM(fields, ingress)                                                        \
    "#include <v1model.p4>\n"                                                                      \
    "header h_t { " fields " }\n"                                                                  \
    "struct headers { h_t h; }\n"                                                                  \
    "struct meta_t { }\n"                                                                          \
    "parser P(packet_in p, out headers h, inout meta_t m, inout standard_metadata_t s) {\n"        \
    "  state start { p.extract(h.h); transition accept; } }\n"                                     \
    "control VC(inout headers h, inout meta_t m) { apply { } }\n"                                  \
    "control I(inout headers h, inout meta_t m, inout standard_metadata_t s) {\n" ingress          \
    "control E(inout headers h, inout meta_t m, inout standard_metadata_t s) { apply { } }\n"      \
    "control CC(inout headers h, inout meta_t m) { apply { } }\n"                                  \
    "control D(packet_out p, in headers h) { apply { p.emit(h.h); } }\n"                           \
    "V1Switch(P(), VC(), I(), E(), CC(), D()) main;\n"

static void test_p4vm_table_size(void **state)
{
    static const char small[] = ONE_HEADER_PROGRAM(
        "bit<8> k;", "  action a(bit<9> p) { s.egress_spec = p; }\n"
                     "  table t { key = { h.h.k: exact; } actions = { a; } size = 2; }\n"
                     "  apply { t.apply(); } }\n");
    struct p4_prog *prog;
    struct p4_pipe *pipe = test_pipe("small.p4", small, NULL, &prog);
    char err[128];
    struct p4rt_kv arg = {"p", "1"};
    const char *vals[] = {"1", "2", "3"};
    for (int i = 0; i < 3; i++) {
        struct p4rt_kv key = {"h.h.k", vals[i]};
        int rc = p4rt_table_add(pipe, "t", &key, 1, "a", &arg, 1, -1, NULL, err, sizeof(err));
        assert_int_equal(rc, i < 2 ? 0 : -1);
    }
    assert_string_equal(err, "table 'I.t' is full");
    struct p4rt_kv dup = {"h.h.k", "1"};
    /* removing handle 1 (key 2) frees a place; key 1 is still there, so adding it again is a
     * duplicate, not a full table */
    assert_int_equal(p4rt_table_remove(pipe, "t", 1, err, sizeof(err)), 0);
    assert_int_equal(p4rt_table_add(pipe, "t", &dup, 1, "a", &arg, 1, -1, NULL, err, sizeof(err)),
                     -1);
    assert_string_equal(err, "duplicate entry in table 'I.t'");
    test_pipe_free(pipe, prog);
}

struct faults {
    int n;
    int line;
    char msg[64];
};

static void on_fault(void *ud, const char *file, int line, int col, const char *msg)
{
    struct faults *fl = ud;
    (void)file;
    (void)col;
    fl->n++;
    fl->line = line;
    snprintf(fl->msg, sizeof(fl->msg), "%s", msg);
}

static void test_p4vm_runtime_fault(void **state)
{
    static const char prog_text[] = ONE_HEADER_PROGRAM("bit<8> a; bit<8> b;",
                                                       "  apply {\n"
                                                       "    h.h.a = h.h.a / h.h.b; } }\n");
    struct faults fl = {0, 0, ""};
    struct p4_host host = {.ud = &fl, .fault = on_fault};
    struct p4_prog *prog;
    struct p4_pipe *pipe = test_pipe("div.p4", prog_text, &host, &prog);
    uint64_t *st = calloc(1, p4_prog_state_bytes(prog));
    uint8_t ok[] = {10, 3};
    struct p4_ingress_in in = {ok, 2, 0, 0, 0, NULL, -1};
    struct p4_ingress_out out;
    p4_pipe_ingress(pipe, st, &in, &out);
    assert_int_equal(fl.n, 0);
    uint8_t zero[] = {10, 0};
    in.bytes = zero;
    p4_pipe_ingress(pipe, st, &in, &out);
    assert_int_equal(fl.n, 1);
    assert_int_equal(fl.line, 10);
    assert_string_equal(fl.msg, "division by zero");
    free(st);
    test_pipe_free(pipe, prog);
}

TEST_MAIN(cmocka_unit_test_setup_teardown(test_p4vm_decisions, setup, teardown),
          cmocka_unit_test_setup_teardown(test_p4vm_output_grows_and_shrinks, setup, teardown),
          cmocka_unit_test_setup_teardown(test_p4vm_output_in_place, setup, teardown),
          cmocka_unit_test_setup_teardown(test_p4vm_state_is_per_packet, setup, teardown),
          cmocka_unit_test_setup_teardown(test_p4vm_control_plane_errors, setup, teardown),
          cmocka_unit_test(test_p4vm_introspection), cmocka_unit_test(test_p4vm_table_size),
          cmocka_unit_test(test_p4vm_runtime_fault))
