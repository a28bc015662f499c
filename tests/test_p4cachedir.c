/* The cache folder's bound (p4cachedir.h): the least recently used entries go first until the
 * folder fits in three quarters of the limit, the entry just written and files that are not
 * ddlsim's (or are symbolic links) stay, stale temporaries go, and $DDLSIM_P4_CACHE_MAX is read
 * with its suffixes and refused with an exact message when it is not a size.
 * tests/test_p4native.c checks that compiling an object trims the folder. */
#include "tests/testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "p4/engine/p4cachedir.h"

static void fresh_dir(char *dir, size_t n)
{
    const char *b = getenv("BUILD") ? getenv("BUILD") : "build";
    snprintf(dir, n, "%s/p4cachedir-test-XXXXXX", b);
    assert_non_null(mkdtemp(dir));
}

/* Writes dir/name with `bytes` bytes, last modified `age` seconds ago. */
static void put(const char *dir, const char *name, size_t bytes, long age)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < bytes; i++)
        fputc('x', f);
    assert_int_equal(fclose(f), 0);
    struct timespec t[2] = {{time(NULL) - age, 0}, {time(NULL) - age, 0}};
    assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

static bool exists(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return lstat(path, &st) == 0;
}

/* Eight 1,000-byte entries used 100..800 s ago, the entry just written (1,000 bytes, its time
 * set old on purpose), a 5,000-byte file of someone else and a link named like an entry.
 * Limit 6,000: ours are 9,000 bytes; three quarters of the limit is 4,500, so the five least
 * recently used go (9,000 - 5 x 1,000 = 4,000 <= 4,500, while four would leave 5,000). */
static void test_p4cachedir_trims_least_recently_used(void **state)
{
    char dir[256];
    fresh_dir(dir, sizeof(dir));
    char name[64];
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof(name), i % 2 ? "p4n-%d.so" : "p4cpp-%d.i", i);
        put(dir, name, 1000, 800 - 100 * i);
    }
    put(dir, "p4n-new.so", 1000, 5000);
    put(dir, "notes.txt", 5000, 9000);
    char target[512];
    char link[512];
    snprintf(target, sizeof(target), "%s/notes.txt", dir);
    snprintf(link, sizeof(link), "%s/p4n-link.so", dir);
    assert_int_equal(symlink("notes.txt", link), 0);
    assert_int_equal(p4cachedir_trim(dir, 6000, "p4n-new.so"), 5);
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof(name), i % 2 ? "p4n-%d.so" : "p4cpp-%d.i", i);
        assert_int_equal(exists(dir, name), i >= 5);
    }
    assert_true(exists(dir, "p4n-new.so"));
    assert_true(exists(dir, "notes.txt"));
    assert_true(exists(dir, "p4n-link.so"));
    /* now 4,000 bytes: under the limit, nothing more goes */
    assert_int_equal(p4cachedir_trim(dir, 6000, NULL), 0);
    test_remove_dir(dir);
}

/* A temporary file of a writer that died a day and more ago goes, whatever the limit; one of
 * a writer still at work (an hour old) stays; temporaries do not count towards the limit. */
static void test_p4cachedir_removes_stale_temporaries(void **state)
{
    char dir[256];
    fresh_dir(dir, sizeof(dir));
    put(dir, ".p4n-0123-77.c", 3000, 2 * 86400);
    put(dir, "p4cpp-0123.i.77.tmp", 3000, 2 * 86400);
    put(dir, ".p4n-4567-78.so", 3000, 3600);
    put(dir, "p4n-4567.so", 1000, 10);
    assert_int_equal(p4cachedir_trim(dir, 2000, NULL), 2);
    assert_false(exists(dir, ".p4n-0123-77.c"));
    assert_false(exists(dir, "p4cpp-0123.i.77.tmp"));
    assert_true(exists(dir, ".p4n-4567-78.so"));
    assert_true(exists(dir, "p4n-4567.so"));
    test_remove_dir(dir);
}

/* Touching an entry makes it the most recently used: of two entries, the touched older one
 * stays. */
static void test_p4cachedir_touch_marks_use(void **state)
{
    char dir[256];
    fresh_dir(dir, sizeof(dir));
    put(dir, "p4n-a.so", 1000, 500);
    put(dir, "p4n-b.so", 1000, 100);
    char path[512];
    snprintf(path, sizeof(path), "%s/p4n-a.so", dir);
    p4cachedir_touch(path);
    assert_int_equal(p4cachedir_trim(dir, 1500, NULL), 1);
    assert_true(exists(dir, "p4n-a.so"));
    assert_false(exists(dir, "p4n-b.so"));
    test_remove_dir(dir);
}

/* The limit: the default when unset or empty, bytes with K, M and G, and each value that is
 * not a positive size refused with the default and the exact message. */
static void test_p4cachedir_limit_from_environment(void **state)
{
    char why[256];
    unsetenv("DDLSIM_P4_CACHE_MAX");
    assert_int_equal(p4cachedir_limit(why, sizeof(why)), 256ULL << 20);
    assert_string_equal(why, "");
    const struct {
        const char *v;
        unsigned long long want;
    } good[] = {{"", 256ULL << 20}, {"4096", 4096}, {"64K", 64ULL << 10}, {"512M", 512ULL << 20},
                {"2G", 2ULL << 30}};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        setenv("DDLSIM_P4_CACHE_MAX", good[i].v, 1);
        assert_int_equal(p4cachedir_limit(why, sizeof(why)), good[i].want);
        assert_string_equal(why, "");
    }
    const char *bad[] = {"0", "-5", "10X", "M", "12MB", "99999999999999999999", "17179869184G"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        setenv("DDLSIM_P4_CACHE_MAX", bad[i], 1);
        char want[256];
        snprintf(want, sizeof(want),
                 "DDLSIM_P4_CACHE_MAX '%s' is not a size such as 512M; the limit is 256M", bad[i]);
        assert_int_equal(p4cachedir_limit(why, sizeof(why)), 256ULL << 20);
        assert_string_equal(why, want);
    }
    unsetenv("DDLSIM_P4_CACHE_MAX");
}

TEST_MAIN(cmocka_unit_test(test_p4cachedir_trims_least_recently_used),
          cmocka_unit_test(test_p4cachedir_removes_stale_temporaries),
          cmocka_unit_test(test_p4cachedir_touch_marks_use),
          cmocka_unit_test(test_p4cachedir_limit_from_environment))
