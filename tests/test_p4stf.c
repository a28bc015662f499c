/* STF runner semantics that need a failing run to observe: mismatches, missing and
 * unexpected packets, prefix vs exact ('$') compare, '*' nibbles, bad input with locations,
 * name suffix matching and its ambiguity. Uses p4/programs/basic.p4 from the repo root. */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p4/engine/p4.h"
#include "p4/engine/p4stf.h"

/* IPv4 to 10.0.1.5, TTL 64; forwarded output with dst aa.., TTL 63 and a new checksum. */
#define PKT_IN                                                                                     \
    "000000000001000000000002080045000018000100004011"                                             \
    "65CE0A0000020A000105DEADBEEF"
#define PKT_OUT                                                                                    \
    "AABBCCDDEEFF000000000001080045000018000100003F11"                                             \
    "66CE0A0000020A000105DEADBEEF"
#define ADD                                                                                        \
    "add ipv4_lpm hdr.ipv4.dstAddr:0x0a000100/24 ipv4_forward(dstAddr:0xaabbccddeeff, "            \
    "port:1)\n"

struct result {
    int rc;
    char *out;
    char *err;
};

/* Runs an STF script (text) against a program of the tree, capturing what it prints. */
static struct result run_file(const char *p4path, const char *stf)
{
    char path[] = "/tmp/ddlsim-stf-XXXXXX";
    test_write_temp(path, 0, stf);
    struct result r;
    size_t lo;
    size_t le;
    FILE *o = open_memstream(&r.out, &lo);
    FILE *e = open_memstream(&r.err, &le);
    int nerr;
    struct p4_prog *prog = p4_prog_load(p4path, "p4/include", e, &nerr);
    assert_non_null(prog);
    r.rc = p4stf_run(prog, path, o, e);
    fclose(o);
    fclose(e);
    p4_prog_free(prog);
    unlink(path);
    return r;
}

static struct result run(const char *stf)
{
    return run_file("p4/programs/basic.p4", stf);
}

/* The same with a program given as source text. */
static struct result run_prog(const char *p4src, const char *stf)
{
    char p4path[] = "/tmp/ddlsim-p4-XXXXXX.p4";
    test_write_temp(p4path, 3, p4src);
    struct result r = run_file(p4path, stf);
    unlink(p4path);
    return r;
}

static void done(struct result *r)
{
    free(r->out);
    free(r->err);
}

/* Asserts a run's exit code and, where given, a text its output and its errors hold. */
static void expect(struct result r, int rc, const char *out_has, const char *err_has)
{
    if (r.rc != rc)
        fprintf(stderr, "exit %d, expected %d; output:\n%s\nerrors:\n%s\n", r.rc, rc, r.out, r.err);
    assert_int_equal(r.rc, rc);
    if (out_has)
        assert_non_null(strstr(r.out, out_has));
    if (err_has)
        assert_non_null(strstr(r.err, err_has));
    done(&r);
}

static void test_p4stf_pass(void **state)
{
    expect(run(ADD "packet 0 " PKT_IN "\nexpect 1 " PKT_OUT " $\n"), 0, NULL, NULL);
    /* prefix compare, '*' nibbles, spaces anywhere */
    expect(run(ADD "packet 0 " PKT_IN "\nexpect 1 AABB CCDD EEFF **** **** **01\n"), 0, NULL, NULL);
    /* `expect PORT` without data: any number of packets on that port */
    expect(run(ADD "packet 0 " PKT_IN "\npacket 0 " PKT_IN "\nexpect 1\n"), 0, NULL, NULL);
    /* lpm length from the written digits: 0x0a00**** is /16, so 10.0.1.5 matches */
    expect(run("add ipv4_lpm dstAddr:0x0a00**** ipv4_forward(dstAddr:0xaabbccddeeff, port:1)\n"
               "packet 0 " PKT_IN "\nexpect 1 " PKT_OUT "\n"),
           0, NULL, NULL);
}

static void test_p4stf_mismatch_reports_bytes(void **state)
{
    expect(run(ADD "packet 0 " PKT_IN "\nexpect 1 AABBCCDDEE00\n"), 1,
           ":3: packet on port 1 differs\n  expected: AABBCCDDEE00\n"
           "  received: " PKT_OUT "\n",
           NULL);
}

static void test_p4stf_exact_length(void **state)
{
    /* the output is longer than the expectation: ok as a prefix, fails with '$' */
    expect(run(ADD "packet 0 " PKT_IN "\nexpect 1 AABBCCDDEEFF $\n"), 1, NULL, NULL);
}

static void test_p4stf_missing_and_unexpected(void **state)
{
    struct result r = run(ADD "packet 0 " PKT_IN "\nexpect 2 AABB\n");
    assert_int_equal(r.rc, 1);
    assert_non_null(strstr(r.out, "expected packet on port 2 not received"));
    assert_non_null(strstr(r.out, "unexpected packet on port 1"));
    done(&r);
    /* two packets, one expect */
    expect(run(ADD "packet 0 " PKT_IN "\npacket 0 " PKT_IN "\nexpect 1 " PKT_OUT "\n"), 1, NULL,
           NULL);
}

static void test_p4stf_bad_input(void **state)
{
    expect(run("add no_such_table k:1 a()\n"), 2, NULL,
           ":1:5: error: unknown table 'no_such_table'");
    expect(run("\npacket 0 00 1G\n"), 2, NULL, ":2:14: error: invalid hex digit near 'G'");
    expect(run("add ipv4_lpm hdr.ipv4.dstAddr:0x0a000100/24 ipv4_forward(port:1)\n"), 2, NULL,
           "missing parameter 'dstAddr'");
    expect(run("frobnicate 1\n"), 2, NULL, ":1:1: error: unknown command 'frobnicate'");
    expect(run("add ipv4_lpm dstAddr:0x0a0*0100 drop()\n"), 2, NULL, "must be at the end");
    /* a command that names a table without the name */
    expect(run("add\n"), 2, NULL, ":1:4: error: expected table name");
}

static void test_p4stf_suffix_names(void **state)
{
    /* key by suffix, action by qualified name, default action by suffix */
    expect(run("add MyIngress.ipv4_lpm dstAddr:0x0a000100/24 "
               "MyIngress.ipv4_forward(dstAddr:0xaabbccddeeff, port:1)\n"
               "setdefault ipv4_lpm NoAction()\n"
               "packet 0 " PKT_IN "\nexpect 1 " PKT_OUT "\n"),
           0, NULL, NULL);
    /* srcAddr? no: only dstAddr is a key. The entry is accepted (no error, exit 2), but the
     * script checks nothing, which fails */
    expect(run("add ipv4_lpm Addr:0x0a000100/24 drop()\n"), 1, "nothing was checked", NULL);
}

/* False passes: numbers out of range are located errors that echo the number as written (they
 * wrapped modulo 2^32 or were dropped: `expect 512` checked nothing and passed); an `expect 1`
 * without data beside a wrong data expectation on port 1 does not turn that one off. */
static void test_p4stf_no_false_pass(void **state)
{
    expect(run(ADD "packet 0 " PKT_IN "\nexpect 512 " PKT_OUT "\n"), 2, NULL,
           "port 512 is out of range (at most 511)");
    expect(run(ADD "packet 0 " PKT_IN "\nexpect 4294967297 " PKT_OUT "\n"), 2, NULL,
           "port 4294967297 is out of range (at most 511)");
    expect(run("mc_mgrp_create 4294967296\n"), 2, NULL,
           "group 4294967296 is out of range (at most 65535)");
    expect(run("mirroring_add 99999999999999999999999 1\n"), 2, NULL,
           "session 99999999999999999999999 is out of range");
    expect(run(ADD "packet 0 " PKT_IN "\nexpect 1 00\nexpect 1\n"), 1, "packet on port 1 differs",
           NULL);
    /* beside data expectations, `expect 1` stands for one packet: the second is missing */
    expect(run(ADD "packet 0 " PKT_IN "\nexpect 1\nexpect 1 00\n"), 1,
           "expected packet on port 1 not received", NULL);
    /* a packet and no expectation: nothing checked, so it fails */
    expect(run(ADD "packet 0 " PKT_IN "\n"), 1, NULL, NULL);
}

/* Two tables named t (ingress and egress), and two headers with a field `ab` each: a suffix
 * (at a dot) that matches more than one name is an error that names the ambiguity; the
 * qualified name or a longer unique suffix works. */
static const char twin_tables[] =
    "#include <core.p4>\n#include <v1model.p4>\n"
    "header h_t { bit<8> ab; bit<8> res; }\n"
    "struct hs { h_t h; h_t g; }\nstruct m_t { }\n"
    "parser P(packet_in p, out hs h, inout m_t m, inout standard_metadata_t s) {\n"
    "  state start { p.extract(h.h); p.extract(h.g); transition accept; } }\n"
    "control V(inout hs h, inout m_t m) { apply { } }\n"
    "control I(inout hs h, inout m_t m, inout standard_metadata_t s) {\n"
    "  action set(bit<8> v) { h.h.res = v; s.egress_spec = 1; }\n"
    "  table t { key = { h.h.ab : exact; h.g.ab : exact; } actions = { set; NoAction; } }\n"
    "  apply { t.apply(); } }\n"
    "control E(inout hs h, inout m_t m, inout standard_metadata_t s) {\n"
    "  action set(bit<8> v) { h.h.res = h.h.res + v; }\n"
    "  table t { key = { h.h.ab : exact; } actions = { set; NoAction; } }\n"
    "  apply { t.apply(); } }\n"
    "control C(inout hs h, inout m_t m) { apply { } }\n"
    "control D(packet_out p, in hs h) { apply { p.emit(h.h); p.emit(h.g); } }\n"
    "V1Switch(P(), V(), I(), E(), C(), D()) main;\n";

static void test_p4stf_ambiguous_names(void **state)
{
    /* table: `t` is I.t and E.t */
    expect(run_prog(twin_tables, "add t h.h.ab:1 h.g.ab:2 set(v:5)\n"), 2, NULL,
           ":1:5: error: ambiguous table name 't'");
    /* key: `ab` ends both h.h.ab and h.g.ab */
    expect(run_prog(twin_tables, "add I.t ab:1 g.ab:2 set(v:5)\n"), 2, NULL,
           "ambiguous key name 'ab'");
    /* action: `set` is I.set and E.set, but within table I.t only I.set applies */
    expect(run_prog(twin_tables, "add I.t h.ab:1 g.ab:2 set(v:5)\n"
                                 "add E.t h.h.ab:1 set(v:3)\n"
                                 "packet 0 01000200\nexpect 1 01080200 $\n"),
           0, NULL, NULL);
}

/* A const entry (tests/p4/priorities.p4: the first entry of tA is marked const) cannot be
 * removed; the entry after it can. */
static void test_p4stf_const_entry_not_removed(void **state)
{
    struct result r = run_file("tests/p4/priorities.p4", "remove tA 1\nremove tA 0\n");
    assert_int_equal(r.rc, 2);
    assert_non_null(strstr(r.err, ":2:8: error: entry 0 of table 'tA' is const"));
    assert_null(strstr(r.err, ":1:"));
    done(&r);
}

TEST_MAIN(cmocka_unit_test(test_p4stf_pass), cmocka_unit_test(test_p4stf_mismatch_reports_bytes),
          cmocka_unit_test(test_p4stf_exact_length),
          cmocka_unit_test(test_p4stf_missing_and_unexpected),
          cmocka_unit_test(test_p4stf_bad_input), cmocka_unit_test(test_p4stf_suffix_names),
          cmocka_unit_test(test_p4stf_no_false_pass), cmocka_unit_test(test_p4stf_ambiguous_names),
          cmocka_unit_test(test_p4stf_const_entry_not_removed))
