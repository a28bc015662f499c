/* The bounded child runner (p4proc.h) that runs the preprocessor and the native engine's C
 * compiler: output and messages read together, the exit status, and the child killed at the
 * wall-time and output limits, with the reason naming the program. */
#include "tests/testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "p4/engine/p4proc.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Both outputs kept, in full, and the exit status reported. */
static void test_p4proc_outputs_and_status(void **state)
{
    char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    const struct p4proc_limits lim = {1024UL << 20, 10, 1 << 20, 1 << 10};
    struct p4proc_result r;
    assert_int_equal(p4proc_run(argv, "the shell", &lim, &r), 0);
    assert_string_equal(r.out, "out\n");
    assert_string_equal(r.err, "err\n");
    assert_null(r.gave_up);
    assert_true(WIFEXITED(r.status));
    assert_int_equal(WEXITSTATUS(r.status), 3);
    assert_false(p4proc_ok(&r));
    p4proc_free(&r);
}

/* A child that outlives the wall-time limit is killed about then (not after it ends). */
static void test_p4proc_time_limit(void **state)
{
    char *argv[] = {"sleep", "20", NULL};
    const struct p4proc_limits lim = {1024UL << 20, 1, 1 << 20, 1 << 10};
    struct p4proc_result r;
    double t0 = now_s();
    assert_int_equal(p4proc_run(argv, "the sleeper", &lim, &r), 0);
    double dt = now_s() - t0;
    assert_true(dt >= 0.9 && dt < 5);
    assert_string_equal(r.gave_up, "the sleeper took longer than the limit");
    assert_false(p4proc_ok(&r));
    p4proc_free(&r);
}

/* A child that writes more than the output limit is killed; at most the limit is kept. */
static void test_p4proc_output_limit(void **state)
{
    char *argv[] = {"yes", NULL};
    const struct p4proc_limits lim = {1024UL << 20, 10, 4096, 1 << 10};
    struct p4proc_result r;
    assert_int_equal(p4proc_run(argv, "yes", &lim, &r), 0);
    assert_string_equal(r.gave_up, "yes wrote more output than the limit");
    assert_int_equal(r.nout, 4096);
    assert_false(p4proc_ok(&r));
    p4proc_free(&r);
}

/* A program that does not exist: the child exits 127 with a message. */
static void test_p4proc_missing_program(void **state)
{
    char *argv[] = {"/nonexistent/program", NULL};
    const struct p4proc_limits lim = {1024UL << 20, 10, 1 << 20, 1 << 10};
    struct p4proc_result r;
    assert_int_equal(p4proc_run(argv, "it", &lim, &r), 0);
    assert_true(WIFEXITED(r.status));
    assert_int_equal(WEXITSTATUS(r.status), 127);
    assert_string_equal(r.err, "cannot run /nonexistent/program\n");
    p4proc_free(&r);
}

TEST_MAIN(cmocka_unit_test(test_p4proc_outputs_and_status), cmocka_unit_test(test_p4proc_time_limit),
          cmocka_unit_test(test_p4proc_output_limit), cmocka_unit_test(test_p4proc_missing_program))
