/* The use analysis (p4use.h): the pipeline sets only the standard metadata some part of the
 * program refers to, so a timestamp the program reaches by any path must arrive with its
 * value: a field read, a struct copy, a function's, action's or nested control's struct
 * argument, an extern's argument, a hash data list, a table key, a parser select key, and in
 * egress. A program that never refers to it does not get it (the analysis is not everything
 * by default); clone/resubmit/recirculate, truncate, scratch use in the blocks after
 * ingress and a deparser that does more than emit are found where they appear. */
#include "tests/testp4.h"

#include <stdlib.h>
#include <string.h>

#include "p4/engine/p4ir.h"

/* The time of every packet: 7000 us, the value a timestamp of the program holds. */
#define NOW_PS 7000000000LL
#define NOW_US 7000

struct use_case {
    const char *name;
    const char *decls;    /* top level */
    const char *select;   /* the parser's start transition */
    const char *idecls;   /* ingress declarations */
    const char *ingress;  /* ingress statements */
    const char *egress;   /* egress statements */
    const char *compute;  /* computeChecksum statements */
    uint64_t v;           /* h.v out */
    uint8_t w;            /* h.w out */
    const char *deparser; /* its statements (NULL: emit(h.h)) */
};

static int64_t now(void *ud)
{
    (void)ud;
    return NOW_PS;
}

static struct p4_prog *load(const struct use_case *c, enum p4_exec exec, struct p4_pipe **pipe)
{
    char text[4096];
    snprintf(
        text, sizeof(text),
        "#include <core.p4>\n#include <v1model.p4>\n"
        "header h_t { bit<48> v; bit<8> w; }\n"
        "struct headers { h_t h; }\nstruct meta_t { }\n%s\n"
        "parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {\n"
        "  state start { pkt.extract(h.h); transition %s; }\n"
        "  state hit { h.h.w = 1; transition accept; }\n}\n"
        "control VC(inout headers h, inout meta_t m) { apply { } }\n"
        "control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {\n"
        "  %s\n  apply { sm.egress_spec = 1; %s }\n}\n"
        "control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {\n"
        "  apply { %s }\n}\n"
        "control CC(inout headers h, inout meta_t m) { apply { %s } }\n"
        "control D(packet_out pkt, in headers h) { apply { %s } }\n"
        "V1Switch(P(), VC(), I(), E(), CC(), D()) main;\n",
        c->decls, c->select, c->idecls, c->ingress, c->egress, c->compute,
        c->deparser ? c->deparser : "pkt.emit(h.h);");
    struct p4_prog *prog;
    struct p4_host host = {.now_ps = now, .exec = exec};
    *pipe = test_pipe(c->name, text, &host, &prog);
    return prog;
}

/* One packet of zeros through ingress and egress: h.v and h.w as the case says. */
static void check_packet(const struct use_case *c, struct p4_pipe *pipe, const struct p4_prog *prog)
{
    uint64_t *state = calloc(1, p4_prog_state_bytes(prog));
    uint8_t pkt[7] = {0};
    uint8_t out[64];
    struct p4_ingress_in in = {pkt, sizeof(pkt), 0, 3, 0, NULL, -1};
    struct p4_ingress_out io;
    p4_pipe_ingress(pipe, state, &in, &io);
    assert_int_equal(io.fwd, P4_FWD_UNICAST);
    struct p4_egress_in ein = {.egress_port = io.egress_port,
                               .bytes = pkt,
                               .len = sizeof(pkt),
                               .out = out,
                               .out_cap = sizeof(out)};
    struct p4_egress_out eo;
    p4_pipe_egress(pipe, state, &ein, &eo);
    assert_int_equal(eo.out_len, 7);
    uint64_t v = 0;
    for (int i = 0; i < 6; i++)
        v = v << 8 | out[i];
    if (v != c->v || out[6] != c->w)
        fail_msg("%s: v %llu w %u, expected %llu %u", c->name, (unsigned long long)v, out[6],
                 (unsigned long long)c->v, c->w);
    free(state);
}

static const struct use_case cases[] = {
    {"field", "", "accept", "", "h.h.v = sm.ingress_global_timestamp;", "", "", NOW_US, 0},
    {"struct copy", "", "accept", "",
     "standard_metadata_t c = sm; h.h.v = c.ingress_global_timestamp;", "", "", NOW_US, 0},
    {"function argument",
     "bit<48> ts(in standard_metadata_t s) { return s.ingress_global_timestamp; }", "accept", "",
     "h.h.v = ts(sm);", "", "", NOW_US, 0},
    {"control argument",
     "control S(inout headers hh, in standard_metadata_t s) {\n"
     "  apply { hh.h.v = s.ingress_global_timestamp; } }",
     "accept", "S() s;", "s.apply(h, sm);", "", "", NOW_US, 0},
    {"action argument", "", "accept",
     "action a(inout standard_metadata_t s) { h.h.v = s.ingress_global_timestamp; }", "a(sm);", "",
     "", NOW_US, 0},
    {"extern argument", "register<bit<48>>(1) r;", "accept", "",
     "r.write(0, sm.ingress_global_timestamp); r.read(h.h.v, 0);", "", "", NOW_US, 0},
    {"hash data list", "", "accept", "",
     "hash(h.h.v, HashAlgorithm.identity, 48w0, { sm.ingress_global_timestamp },"
     " 64w0x1000000000000);",
     "", "", NOW_US, 0},
    {"table key", "", "accept",
     "action set() { h.h.w = 1; }\n"
     "  table t { key = { sm.ingress_global_timestamp: exact; } actions = { set; NoAction; }\n"
     "    const entries = { 7000: set(); } default_action = NoAction(); }",
     "t.apply();", "", "", 0, 1},
    {"select key", "", "select(sm.ingress_global_timestamp[15:0]) { 7000: hit; default: accept; }",
     "", "", "", "", 0, 1},
    {"egress struct copy", "", "accept", "", "",
     "standard_metadata_t e = sm; h.h.v = e.egress_global_timestamp;", "", NOW_US, 0},
};

/* on both engines */
static void test_p4use_every_path_sees_the_timestamp(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2 * sizeof(cases) / sizeof(cases[0]); i++) {
        struct p4_pipe *pipe;
        const struct use_case *c = &cases[i / 2];
        struct p4_prog *prog = load(c, i % 2 ? P4_EXEC_INTERP : P4_EXEC_COMPILED, &pipe);
        check_packet(c, pipe, prog);
        test_pipe_free(pipe, prog);
    }
}

static void test_p4use_unreferenced_fields_are_left_out(void **state)
{
    (void)state;
    const struct use_case c = {"none", "", "accept", "", "h.h.v = 1;", "", "", 1, 0};
    struct p4_pipe *pipe;
    struct p4_prog *prog = load(&c, P4_EXEC_DEFAULT, &pipe);
    check_packet(&c, pipe, prog);
    assert_int_equal(prog->use.std.ingress_global_timestamp, -1);
    assert_int_equal(prog->use.std.egress_global_timestamp, -1);
    assert_int_equal(prog->use.std.ingress_port, -1);
    assert_true(prog->use.std.egress_spec >= 0); /* ingress writes it */
    assert_false(prog->use.requests);
    assert_false(prog->use.egress_scratch);
    assert_true(prog->use.deparse_emits);
    test_pipe_free(pipe, prog);
}

static void test_p4use_requests_and_scratch(void **state)
{
    (void)state;
    const struct use_case c = {"requests",
                               "bit<8> twice(in bit<8> x) { bit<8> y = x; return y + y; }",
                               "accept",
                               "",
                               "if (h.h.w == 9) { resubmit_preserving_field_list(0); }",
                               "",
                               "h.h.w = twice(h.h.w);",
                               0,
                               0,
                               "if (h.h.isValid()) { pkt.emit(h.h); }"};
    struct p4_pipe *pipe;
    struct p4_prog *prog = load(&c, P4_EXEC_DEFAULT, &pipe);
    check_packet(&c, pipe, prog);
    assert_true(prog->use.requests);
    assert_true(prog->use.egress_scratch);
    assert_false(prog->use.deparse_emits); /* more than emits: never run twice */
    test_pipe_free(pipe, prog);
    int nerr;
    prog = p4_prog_load("p4/programs/basic.p4", "p4/include", stderr, &nerr);
    assert_non_null(prog);
    assert_false(prog->use.requests);
    assert_false(prog->use.egress_scratch);
    assert_true(prog->use.deparse_emits);
    /* mark_to_drop(standard_metadata) refers to the two fields it writes, not to all */
    assert_int_equal(prog->use.std.ingress_global_timestamp, -1);
    assert_false(prog->use.truncates);
    p4_prog_free(prog);
    prog = p4_prog_load("tests/p4/misc.p4", "p4/include", stderr, &nerr);
    assert_non_null(prog);
    assert_true(prog->use.truncates); /* its STF checks the truncated output on both engines */
    p4_prog_free(prog);
}

/* The output is made early (p4.h) only when egress is empty and computeChecksum and the
 * deparser only compute on the state: a statement in egress, or in the checksum control a
 * division (a fault at zero), a call, an extern with state, a log or a random number, keeps it
 * at egress, where such a thing happens at the packet's time and in the order of egress. */
static void test_p4use_output_early(void **state)
{
    (void)state;
    const char *twice = "bit<8> twice(in bit<8> x) { return x + x; }";
    const char *reg = "register<bit<8>>(1) r;";
    const struct {
        const char *decls, *egress, *compute, *deparser;
        bool early;
    } c[] = {
        {"", "", "", NULL, true},
        {"", "", "if (h.h.isValid()) { h.h.w = h.h.w + 1; }", NULL, true},
        {"", "", "", "if (h.h.w != 2) { pkt.emit(h.h); }", true},
        {"", "h.h.w = 1;", "", NULL, false},
        {"", "", "h.h.w = h.h.w / (bit<8>)h.h.v;", NULL, false},
        {"", "", "h.h.w = h.h.w % 3;", NULL, false},
        {twice, "", "h.h.w = twice(h.h.w);", NULL, false},
        {reg, "", "r.write(0, h.h.w);", NULL, false},
        {reg, "", "r.read(h.h.w, 0);", NULL, false},
        {"", "", "log_msg(\"x\");", NULL, false},
        {"", "", "random(h.h.w, 0, 7);", NULL, false},
        {"", "", "hash(h.h.w, HashAlgorithm.random, 8w0, { h.h.v }, 8w4);", NULL, false},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        const struct use_case u = {"early", c[i].decls, "accept", "", "", c[i].egress,
                                   c[i].compute, 0, 0, c[i].deparser};
        struct p4_pipe *pipe;
        struct p4_prog *prog = load(&u, P4_EXEC_DEFAULT, &pipe);
        if (p4_prog_output_early(prog) != c[i].early)
            fail_msg("case %zu: output early %d", i, !c[i].early);
        test_pipe_free(pipe, prog);
    }
    int nerr;
    struct p4_prog *prog = p4_prog_load("p4/programs/basic.p4", "p4/include", stderr, &nerr);
    assert_true(p4_prog_output_early(prog)); /* update_checksum and emits */
    p4_prog_free(prog);
}

TEST_MAIN(cmocka_unit_test(test_p4use_every_path_sees_the_timestamp),
          cmocka_unit_test(test_p4use_unreferenced_fields_are_left_out),
          cmocka_unit_test(test_p4use_requests_and_scratch),
          cmocka_unit_test(test_p4use_output_early))
