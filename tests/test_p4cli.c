/* `ddlsim p4 check|test` exit codes: 0 ok, 1 failed expectations, 2 bad input or usage.
 * Runs from the repository root. */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "p4/engine/p4cli.h"

static int cli(int argc, const char *a0, const char *a1, const char *a2)
{
    char *argv[4] = {(char *)a0, (char *)a1, (char *)a2, NULL};
    return p4cli_main(argc, argv);
}

static char *temp_file(const char *text)
{
    static const char tmpl[] = "/tmp/ddlsim-cli-XXXXXX";
    char *path = malloc(sizeof(tmpl));
    snprintf(path, sizeof(tmpl), "%s", tmpl);
    test_write_temp(path, 0, text);
    return path;
}

static void test_p4cli_usage(void **state)
{
    assert_int_equal(cli(0, NULL, NULL, NULL), 2);
    assert_int_equal(cli(1, "check", NULL, NULL), 2);
    assert_int_equal(cli(2, "frob", "x.p4", NULL), 2);
    assert_int_equal(cli(2, "test", "p4/programs/basic.p4", NULL), 2);
}

static void test_p4cli_check(void **state)
{
    assert_int_equal(cli(2, "check", "p4/programs/basic.p4", NULL), 0);
    assert_int_equal(cli(2, "check", "/nonexistent/x.p4", NULL), 2);
    char *bad = temp_file("#include <v1model.p4>\nheader h { bit<8> a }\n");
    assert_int_equal(cli(2, "check", bad, NULL), 2);
    unlink(bad);
    free(bad);
}

static void test_p4cli_test(void **state)
{
    assert_int_equal(cli(3, "test", "p4/programs/basic.p4", "tests/p4/basic.stf"), 0);
    char *fail = temp_file("packet 0 000000000001000000000002080045\nexpect 1 00\n");
    assert_int_equal(cli(3, "test", "p4/programs/basic.p4", fail), 1);
    unlink(fail);
    free(fail);
    char *bad = temp_file("expect x 00\n");
    assert_int_equal(cli(3, "test", "p4/programs/basic.p4", bad), 2);
    unlink(bad);
    free(bad);
}

TEST_MAIN(cmocka_unit_test(test_p4cli_usage), cmocka_unit_test(test_p4cli_check),
          cmocka_unit_test(test_p4cli_test))
