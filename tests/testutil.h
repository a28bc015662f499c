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

#include <dirent.h>
#include <unistd.h>

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

/* Removes the folder dir and the files in it (no subfolders). */
static inline void test_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    char path[1024];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    assert_int_equal(rmdir(dir), 0);
}

#endif
