/* Shared by the cmocka tests: the includes older libcmocka needs before cmocka.h, and main. */
#ifndef SIM_TESTS_TESTUTIL_H
#define SIM_TESTS_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

/* A test binary's main: runs the given cmocka_unit_test(...) entries as one group. */
#define TEST_MAIN(...)                                                                             \
    int main(void)                                                                                 \
    {                                                                                              \
        const struct CMUnitTest tests[] = {__VA_ARGS__};                                           \
        return cmocka_run_group_tests(tests, NULL, NULL);                                          \
    }

/* Writes text to a new file made from the mkstemps template tmpl (`suffix` characters after the
 * XXXXXX) and leaves its name in tmpl. */
static inline void test_write_temp(char *tmpl, int suffix, const char *text)
{
    int fd = mkstemps(tmpl, suffix);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

#endif
