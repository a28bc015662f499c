/* User-declared extern functions (an `extern` function that is not one of v1model's): a
 * program that calls one without a C model is refused at load with the call's location;
 * with a model (struct p4_extern_model in p4_load_opts) the engine copies the arguments in,
 * calls the model, and copies out/inout arguments and the result back cut to their widths.
 * The models here: a 16-bit ones' complement add with a carry out, and a counter that keeps
 * its state in the model's ud. Checked with an STF run of a program that uses both. */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p4/engine/p4.h"
#include "p4/engine/p4stf.h"

static const char program[] =
    "#include <core.p4>\n"
    "#include <v1model.p4>\n"
    "extern bit<16> oc_add(in bit<16> a, in bit<16> b, out bit<1> carry);\n"
    "extern void bump(inout bit<8> x);\n"
    "header h_t { bit<16> a; bit<16> b; bit<16> sum; bit<8> carry; bit<8> n; }\n"
    "struct headers { h_t h; }\n"
    "struct meta_t { }\n"
    "parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {\n"
    "  state start { pkt.extract(h.h); transition accept; } }\n"
    "control VC(inout headers h, inout meta_t m) { apply { } }\n"
    "control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {\n"
    "  apply {\n"
    "    bit<1> c;\n"
    "    h.h.sum = oc_add(h.h.a, h.h.b, c);\n"
    "    h.h.carry = (bit<8>)c;\n"
    "    bump(h.h.n);\n"
    "    sm.egress_spec = 1;\n"
    "  }\n"
    "}\n"
    "control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }\n"
    "control CC(inout headers h, inout meta_t m) { apply { } }\n"
    "control D(packet_out pkt, in headers h) { apply { pkt.emit(h.h); } }\n"
    "V1Switch(P(), VC(), I(), E(), CC(), D()) main;\n";

/* ones' complement sum of two 16-bit words (RFC 1071), carry: whether it wrapped */
static void oc_add(struct p4_extern_call *c)
{
    assert_int_equal(c->nargs, 3);
    assert_int_equal(c->widths[0], 16);
    assert_int_equal(c->ret_width, 16);
    uint32_t s = (uint32_t)c->args[0][0] + (uint32_t)c->args[1][0];
    c->args[2][0] = s > 0xffff;
    c->ret[0] = (s & 0xffff) + (s >> 16);
}

/* x + (calls so far); writes a value wider than 8 bits, which the engine cuts */
static void bump(struct p4_extern_call *c)
{
    unsigned *calls = c->model_ud;
    (*calls)++;
    c->args[0][0] += 0x100 + *calls;
}

static struct p4_prog *load(const struct p4_load_opts *opts, char **err)
{
    size_t n;
    FILE *e = open_memstream(err, &n);
    int nerr;
    struct p4_prog *prog =
        p4_prog_load_text_opts("ext.p4", program, "p4/include", true, opts, e, &nerr);
    fclose(e);
    return prog;
}

static void test_p4extern_no_model_is_a_located_error(void **state)
{
    char *err;
    struct p4_prog *prog = load(NULL, &err);
    assert_null(prog);
    assert_non_null(strstr(err, "ext.p4:14:15: error: extern function 'oc_add' has no model"));
    free(err);
}

static void test_p4extern_models_run(void **state)
{
    unsigned calls = 0;
    const struct p4_extern_model models[] = {{"oc_add", oc_add, NULL}, {"bump", bump, &calls}};
    const struct p4_load_opts opts = {models, 2};
    char *err;
    struct p4_prog *prog = load(&opts, &err);
    assert_non_null(prog);
    free(err);
    /* 0xfff0 + 0x0020 = 0x10010: wraps, ones' complement sum 0x0011, carry 1; n = 5 + 1 (the
     * 0x100 is cut); then 0x1234 + 0x0001 = 0x1235, no carry; n = 7 + 2 */
    static const char stf[] = "packet 0 fff0 0020 0000 00 05\n"
                              "expect 1 fff0 0020 0011 01 06 $\n"
                              "packet 0 1234 0001 0000 00 07\n"
                              "expect 1 1234 0001 1235 00 09 $\n";
    char path[] = "/tmp/ddlsim-ext-XXXXXX";
    test_write_temp(path, 0, stf);
    char *out;
    size_t n;
    FILE *o = open_memstream(&out, &n);
    int rc = p4stf_run(prog, path, o, o);
    fclose(o);
    unlink(path);
    if (rc != 0)
        fprintf(stderr, "%s", out);
    assert_int_equal(rc, 0);
    assert_int_equal(calls, 2);
    free(out);
    p4_prog_free(prog);
}

TEST_MAIN(cmocka_unit_test(test_p4extern_no_model_is_a_located_error),
          cmocka_unit_test(test_p4extern_models_run))
