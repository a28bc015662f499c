/* Lexer: width-prefixed literals, separators, multi-character operators, line markers,
 * error messages with exact locations. */
#include "tests/testutil.h"

#include <stdlib.h>
#include <string.h>

#include "p4/engine/p4lex.h"

struct lexed {
    struct p4lex lx;
    struct p4_diag diag;
};

static void lex_all(struct lexed *l, const char *src, struct p4_token *toks, int max, int *n)
{
    memset(&l->diag, 0, sizeof(l->diag));
    p4lex_init(&l->lx, src, strlen(src), "t.p4", &l->diag);
    *n = 0;
    for (;;) {
        struct p4_token t;
        p4lex_next(&l->lx, &t);
        if (*n < max)
            toks[(*n)++] = t;
        if (t.kind == P4TOK_EOF)
            break;
    }
}

static void test_p4lex_width_literals(void **state)
{
    struct lexed l;
    struct p4_token t[16];
    int n;
    lex_all(&l, "8w255 4s-1 32w0x0800 1_000 0xFF_FF 2s1 0b1010 16w0o17", t, 16, &n);
    assert_int_equal(l.diag.nerrors, 0);
    assert_int_equal(n, 9);
    assert_int_equal(t[0].kind, P4TOK_NUMBER);
    assert_int_equal(t[0].num.width, 8);
    assert_false(t[0].num.is_signed);
    assert_int_equal(t[0].num.v.w[0], 255);
    assert_int_equal(t[1].num.width, 4);
    assert_true(t[1].num.is_signed);
    assert_int_equal(t[1].num.v.w[0] & 0xF, 0xF); /* -1 in 4 bits */
    assert_int_equal(t[2].num.width, 32);
    assert_int_equal(t[2].num.v.w[0], 0x800);
    assert_int_equal(t[3].num.width, -1);
    assert_int_equal(t[3].num.v.w[0], 1000);
    assert_int_equal(t[4].num.v.w[0], 0xFFFF);
    assert_int_equal(t[5].num.width, 2);
    assert_int_equal(t[6].num.v.w[0], 10);
    assert_int_equal(t[7].num.v.w[0], 15);
    p4lex_fini(&l.lx);
}

static void test_p4lex_wide_literal(void **state)
{
    struct lexed l;
    struct p4_token t[4];
    int n;
    lex_all(&l, "128w0x0102030405060708090a0b0c0d0e0f10", t, 4, &n);
    assert_int_equal(l.diag.nerrors, 0);
    assert_int_equal(t[0].num.width, 128);
    assert_true(t[0].num.v.w[0] == 0x090a0b0c0d0e0f10ULL);
    assert_true(t[0].num.v.w[1] == 0x0102030405060708ULL);
    p4lex_fini(&l.lx);
}

static void test_p4lex_operators(void **state)
{
    struct lexed l;
    struct p4_token t[32];
    int n;
    lex_all(&l, "a &&& b .. c ++ d |+| e |-| f >> g && h || i <= j >= k != l == m << n", t, 32, &n);
    assert_int_equal(l.diag.nerrors, 0);
    enum p4tok_kind want[] = {P4TOK_IDENT,    P4TOK_MASK,  P4TOK_IDENT,  P4TOK_RANGE, P4TOK_IDENT,
                              P4TOK_PLUSPLUS, P4TOK_IDENT, P4TOK_SATADD, P4TOK_IDENT, P4TOK_SATSUB,
                              P4TOK_IDENT,    P4TOK_GT,    P4TOK_GT,     P4TOK_IDENT, P4TOK_ANDAND,
                              P4TOK_IDENT,    P4TOK_OROR,  P4TOK_IDENT,  P4TOK_LE,    P4TOK_IDENT,
                              P4TOK_GE,       P4TOK_IDENT, P4TOK_NE,     P4TOK_IDENT, P4TOK_EQ,
                              P4TOK_IDENT,    P4TOK_SHL,   P4TOK_IDENT,  P4TOK_EOF};
    assert_int_equal(n, (int)(sizeof(want) / sizeof(want[0])));
    for (int i = 0; i < n; i++)
        assert_int_equal(t[i].kind, want[i]);
    /* '>>' is two adjacent '>' so `bit<32>>` closes nested type arguments */
    assert_true(t[12].adjacent);
    p4lex_fini(&l.lx);
}

static void test_p4lex_nested_type_args(void **state)
{
    struct lexed l;
    struct p4_token t[16];
    int n;
    lex_all(&l, "register<bit<32>>(16)", t, 16, &n);
    assert_int_equal(l.diag.nerrors, 0);
    assert_int_equal(t[5].kind, P4TOK_GT);
    assert_int_equal(t[6].kind, P4TOK_GT);
    assert_int_equal(t[6].loc.col, 17);
    p4lex_fini(&l.lx);
}

static void test_p4lex_line_markers(void **state)
{
    struct lexed l;
    struct p4_token t[8];
    int n;
    lex_all(&l, "# 1 \"x.p4\"\na\n# 40 \"user.p4\" 2\n  b /* c\n */ c // d\n", t, 8, &n);
    assert_int_equal(l.diag.nerrors, 0);
    assert_string_equal(t[0].loc.file, "x.p4");
    assert_int_equal(t[0].loc.line, 1);
    assert_string_equal(t[1].loc.file, "user.p4");
    assert_int_equal(t[1].loc.line, 40);
    assert_int_equal(t[1].loc.col, 3);
    assert_int_equal(t[2].loc.line, 41);
    assert_int_equal(t[2].loc.col, 5);
    p4lex_fini(&l.lx);
}

static void test_p4lex_errors(void **state)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct p4_diag diag = {f, 0, 0};
    struct p4lex lx;
    const char *src = "a\n  $ 12abc";
    p4lex_init(&lx, src, strlen(src), "t.p4", &diag);
    struct p4_token t;
    do {
        p4lex_next(&lx, &t);
    } while (t.kind != P4TOK_EOF);
    fclose(f);
    assert_int_equal(diag.nerrors, 2);
    assert_string_equal(buf, "t.p4:2:3: error: unexpected character near '$'\n"
                             "t.p4:2:5: error: malformed number near '12abc'\n");
    free(buf);
    p4lex_fini(&lx);
}

TEST_MAIN(cmocka_unit_test(test_p4lex_width_literals), cmocka_unit_test(test_p4lex_wide_literal),
          cmocka_unit_test(test_p4lex_operators), cmocka_unit_test(test_p4lex_nested_type_args),
          cmocka_unit_test(test_p4lex_line_markers), cmocka_unit_test(test_p4lex_errors))
