/* Parser and checker diagnostics: exact messages, lines and columns (Lua's checksyntax), and
 * programs that must be rejected. Runs from the repository root (p4/include). */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p4/engine/p4.h"

/* Loads text; returns the diagnostics (caller frees) and whether it loaded. */
static char *load(const char *text, bool preprocess, bool *ok)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int nerr = 0;
    struct p4_prog *prog = p4_prog_load_text("t.p4", text, "p4/include", preprocess, f, &nerr);
    fclose(f);
    *ok = prog != NULL;
    p4_prog_free(prog);
    return buf;
}

static void expect_error(const char *text, bool preprocess, const char *want)
{
    bool ok;
    char *got = load(text, preprocess, &ok);
    assert_false(ok);
    assert_string_equal(got, want);
    free(got);
}

static void test_p4parse_expected_token(void **state)
{
    expect_error("header h_t { bit<8> a }", false, "t.p4:1:23: error: expected ';' near '}'\n");
    expect_error("const bit<8> x = ;", false, "t.p4:1:18: error: expected expression near ';'\n");
    expect_error("const bit<8> x = (1 + 2;", false, "t.p4:1:24: error: expected ')' near ';'\n");
}

static void test_p4parse_unclosed(void **state)
{
    expect_error("control C() {\n  apply {\n  }\n", false,
                 "t.p4:4:1: error: expected '}' (to close '{' at line 1) near <eof>\n");
    expect_error("struct s {\n  bit<8> a;\n  bit<8> b;\n\nconst bit<8> c = 1;", false,
                 "t.p4:5:1: error: expected type near 'const'\n");
}

static void test_p4parse_lexical_error_location(void **state)
{
    expect_error("const bit<8> x = 1;\n  const bit<8> y = 8w300;", false,
                 "t.p4:2:20: error: value does not fit in 8 bits near '8w300'\n");
}

/* A v1model program whose ingress control body is `body` (line 11). */
static char *program(const char *body)
{
    static const char *const head =
        "#include <core.p4>\n"
        "#include <v1model.p4>\n"
        "header h_t { bit<8> a; bit<16> b; }\n"
        "struct headers { h_t h; }\n"
        "struct meta_t { bit<8> m; }\n"
        "parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {\n"
        "    state start { pkt.extract(hdr.h); transition accept; }\n"
        "}\n"
        "control VC(inout headers hdr, inout meta_t m) { apply { } }\n"
        "control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {\n";
    static const char *const tail =
        "\n}\n"
        "control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }\n"
        "control CC(inout headers hdr, inout meta_t m) { apply { } }\n"
        "control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }\n"
        "V1Switch(P(), VC(), I(), E(), CC(), D()) main;\n";
    size_t n = strlen(head) + strlen(body) + strlen(tail) + 1;
    char *p = malloc(n);
    snprintf(p, n, "%s%s%s", head, body, tail);
    return p;
}

static void expect_sem_error(const char *body, const char *want)
{
    char *p = program(body);
    expect_error(p, true, want);
    free(p);
}

static void test_p4parse_semantic_errors(void **state)
{
    expect_sem_error("    apply { hdr.h.a = hdr.h.b; }",
                     "t.p4:11:29: error: type mismatch in assignment: expected bit<8>, got "
                     "bit<16> near 'b'\n");
    expect_sem_error("    apply { hdr.h.c = 1; }",
                     "t.p4:11:19: error: 'h_t' has no field 'c' near 'c'\n");
    expect_sem_error("    apply { foo = 1; }",
                     "t.p4:11:13: error: unknown name 'foo' near 'foo'\n");
    expect_sem_error("    apply { hdr.h.a = hdr.h.a + true; }",
                     "t.p4:11:31: error: operands of '+' have different types (bit<8> and "
                     "bool) near '+'\n");
    expect_sem_error("    table t { key = { hdr.h.a: fuzzy; } actions = { NoAction; } }\n"
                     "    apply { t.apply(); }",
                     "t.p4:11:32: error: unsupported match kind 'fuzzy' near 'fuzzy'\n");
    expect_sem_error("    apply { hdr.h.a = hdr.h.a[8:1]; }",
                     "t.p4:11:30: error: slice bounds [8:1] out of range for width 8 near '['\n");
    expect_sem_error("    apply { bit<8> x = 1; bit<8> x = 2; }",
                     "t.p4:11:34: error: 'x' is already declared near 'x'\n");
    expect_sem_error("    apply { undefined_fn(); }",
                     "t.p4:11:13: error: unknown function 'undefined_fn' near 'undefined_fn'\n");
    expect_sem_error("    apply { hdr.h.a = 8w1 ++ 8w2; }",
                     "t.p4:11:27: error: type mismatch in assignment: expected bit<8>, got "
                     "bit<16> near '++'\n");
    /* a local variable must be storable: an extern object is declared by instantiation */
    expect_sem_error("    apply { packet_out q; }",
                     "t.p4:11:24: error: a variable of type packet_out is not supported near "
                     "'q'\n");
}

/* A parser whose start state selects on `nkeys` copies of hdr.h.a. */
static char *select_program(int nkeys)
{
    char keys[512] = "";
    for (int i = 0; i < nkeys; i++)
        strcat(keys, i ? ", hdr.h.a" : "hdr.h.a");
    char *p = malloc(2048);
    snprintf(p, 2048,
             "#include <core.p4>\n#include <v1model.p4>\n"
             "header h_t { bit<8> a; }\nstruct headers { h_t h; }\nstruct meta_t { }\n"
             "parser P(packet_in pkt, out headers hdr, inout meta_t m, "
             "inout standard_metadata_t sm) {\n"
             "    state start { pkt.extract(hdr.h); transition select(%s) { default: accept; } }\n"
             "}\n"
             "control VC(inout headers hdr, inout meta_t m) { apply { } }\n"
             "control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) "
             "{ apply { } }\n"
             "control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) "
             "{ apply { } }\n"
             "control CC(inout headers hdr, inout meta_t m) { apply { } }\n"
             "control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }\n"
             "V1Switch(P(), VC(), I(), E(), CC(), D()) main;\n",
             keys);
    return p;
}

/* Both engines evaluate a select's keys into a buffer of P4_SELECT_KEYS_MAX (16): 16 keys load,
 * 17 are refused at the select (they were once cut to 16 without a word). */
static void test_p4parse_select_key_limit(void **state)
{
    char *p = select_program(16);
    bool ok;
    char *got = load(p, true, &ok);
    assert_true(ok);
    free(got);
    free(p);
    p = select_program(17);
    /* column 50: 4 spaces, "state start { " (14), "pkt.extract(hdr.h); " (20), "transition " (11) */
    expect_error(p, true, "t.p4:7:50: error: select has 17 keys; at most 16 are supported near "
                          "'select'\n");
    free(p);
}

static void test_p4parse_accepts_valid(void **state)
{
    char *p = program("    register<bit<32>>(4) r;\n"
                      "    apply { bit<32> v; r.read(v, 0); r.write(0, v |+| 1); }");
    bool ok;
    char *got = load(p, true, &ok);
    assert_true(ok);
    assert_string_equal(got, "");
    free(got);
    free(p);
}

TEST_MAIN(cmocka_unit_test(test_p4parse_expected_token), cmocka_unit_test(test_p4parse_unclosed),
          cmocka_unit_test(test_p4parse_lexical_error_location),
          cmocka_unit_test(test_p4parse_semantic_errors),
          cmocka_unit_test(test_p4parse_select_key_limit),
          cmocka_unit_test(test_p4parse_accepts_valid))
