/* Shared by the cmocka tests: the includes older libcmocka needs before cmocka.h, and main. */
#ifndef SIM_TESTS_TESTUTIL_H
#define SIM_TESTS_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* A test binary's main: runs the given cmocka_unit_test(...) entries as one group. */
#define TEST_MAIN(...)                                                                             \
    int main(void)                                                                                 \
    {                                                                                              \
        const struct CMUnitTest tests[] = {__VA_ARGS__};                                           \
        return cmocka_run_group_tests(tests, NULL, NULL);                                          \
    }

#endif
