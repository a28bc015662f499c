/* Derived-column expressions: precedence, units in numbers and cells, and located errors. */
#include "tests/testutil.h"

#include <math.h>
#include <string.h>

#include "sim/app/expr.h"

static const char *row(void *ud, const char *name)
{
    (void)ud;
    if (strcmp(name, "senders") == 0)
        return "4";
    if (strcmp(name, "bytes") == 0)
        return "1MB";
    if (strcmp(name, "rate") == 0)
        return "10Gbps";
    if (strcmp(name, "label") == 0)
        return "high";
    return NULL;
}

static double eval(const char *s)
{
    double x = NAN;
    char err[256];
    assert_int_equal(expr_eval(s, row, NULL, &x, err, sizeof(err)), 0);
    return x;
}

static void test_expr_arithmetic(void **state)
{
    assert_true(eval("1 + 2 * 3") == 7);
    assert_true(eval("(1 + 2) * 3") == 9);
    assert_true(eval("-2 * -3 - 1") == 5);
    assert_true(eval("8 / 4 / 2") == 1);
    assert_true(fabs(eval("1e-6 * 2") - 2e-6) < 1e-18);
}

/* 4 senders x 1 MB x 8 bits at 10 Gbps = 3.2 ms; 2 x 1 us = 2 us. */
static void test_expr_units(void **state)
{
    assert_true(fabs(eval("senders * bytes * 8 / rate") - 3.2e-3) < 1e-15);
    assert_true(fabs(eval("2 * 1us") - 2e-6) < 1e-18);
    assert_true(eval("64KiB") == 65536);
}

static void test_expr_errors(void **state)
{
    char err[256];
    double x;
    assert_int_equal(expr_eval("senders * nope", row, NULL, &x, err, sizeof(err)), -1);
    assert_string_equal(err, "in 'senders * nope' at column 15: unknown column nope");
    assert_int_equal(expr_eval("label + 1", row, NULL, &x, err, sizeof(err)), -1);
    assert_string_equal(err, "in 'label + 1' at column 6: not a number in column label");
    assert_int_equal(expr_eval("(1 + 2", row, NULL, &x, err, sizeof(err)), -1);
    assert_string_equal(err, "in '(1 + 2' at column 7: expected ')'");
    assert_int_equal(expr_eval("1 / (2 - 2)", row, NULL, &x, err, sizeof(err)), -1);
    assert_string_equal(err, "in '1 / (2 - 2)' at column 12: division by zero");
    assert_int_equal(expr_eval("1 2", row, NULL, &x, err, sizeof(err)), -1);
    assert_string_equal(err, "in '1 2' at column 3: unexpected 2");
}

TEST_MAIN(cmocka_unit_test(test_expr_arithmetic), cmocka_unit_test(test_expr_units),
          cmocka_unit_test(test_expr_errors))
