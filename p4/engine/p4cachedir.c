/* The cache folder's bound: see p4cachedir.h. */
#include "p4/engine/p4cachedir.h"
#include "p4/engine/p4util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STALE_TEMP_SECONDS (24 * 3600)

struct cached {
    char *name;
    uint64_t size;
    struct timespec used;
};

uint64_t p4cachedir_limit(char *why, size_t nwhy)
{
    const char *s = getenv("DDLSIM_P4_CACHE_MAX");
    why[0] = 0;
    if (!s || !*s)
        return P4CACHEDIR_DEFAULT_MAX;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    end += shift != 0;
    if (errno || *end || v == 0 || s[0] == '-' || v > (UINT64_MAX >> 30)) {
        snprintf(why, nwhy, "DDLSIM_P4_CACHE_MAX '%s' is not a size such as 512M; the limit is "
                            "%lluM", s, P4CACHEDIR_DEFAULT_MAX >> 20);
        return P4CACHEDIR_DEFAULT_MAX;
    }
    return (uint64_t)v << shift;
}

void p4cachedir_touch(const char *path)
{
    utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW);
}

static bool has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static bool has_suffix(const char *s, const char *x)
{
    size_t n = strlen(s);
    size_t m = strlen(x);
    return n >= m && strcmp(s + n - m, x) == 0;
}

/* A temporary file of a writer (finished or dead). */
static bool is_temp(const char *name)
{
    return has_prefix(name, ".p4n-") || (has_prefix(name, "p4cpp-") && has_suffix(name, ".tmp"));
}

static bool is_entry(const char *name)
{
    return !is_temp(name) && (has_prefix(name, "p4n-") || has_prefix(name, "p4cpp-"));
}

/* Least recently used first; ties by name, so that every process trims alike. */
static int by_use(const void *pa, const void *pb)
{
    const struct cached *a = pa;
    const struct cached *b = pb;
    if (a->used.tv_sec != b->used.tv_sec)
        return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
    if (a->used.tv_nsec != b->used.tv_nsec)
        return a->used.tv_nsec < b->used.tv_nsec ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* Removes dir/name if it is still the user's own regular file; true if removed. */
static bool remove_in(int dfd, const char *name)
{
    struct stat st;
    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
           st.st_uid == geteuid() && unlinkat(dfd, name, 0) == 0;
}

/* Lists the entries of dir other than keep into *v (their total size added to *total),
 * removing stale temporaries on the way (counted in *removed); returns the count. */
static int list(DIR *d, const char *keep, struct cached **v, uint64_t *total, int *removed)
{
    int n = 0;
    int cap = 0;
    time_t now = time(NULL);
    struct dirent *de;
    while ((de = readdir(d))) {
        struct stat st;
        const char *name = de->d_name;
        if (!(is_entry(name) || is_temp(name)) || (keep && strcmp(name, keep) == 0) ||
            fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        if (is_temp(name)) {
            if (now - st.st_mtim.tv_sec > STALE_TEMP_SECONDS && remove_in(dirfd(d), name))
                (*removed)++;
            continue;
        }
        struct cached c = {p4util_strdup(name), (uint64_t)st.st_size, st.st_mtim};
        P4_PUSH(*v, n, cap, c);
        *total += (uint64_t)st.st_size;
    }
    return n;
}

int p4cachedir_trim(const char *dir, uint64_t limit, const char *keep)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct cached *v = NULL;
    uint64_t total = 0;
    int removed = 0;
    struct stat ks;
    if (keep && fstatat(dirfd(d), keep, &ks, AT_SYMLINK_NOFOLLOW) == 0)
        total += (uint64_t)ks.st_size;
    int n = list(d, keep, &v, &total, &removed);
    if (total > limit) {
        qsort(v, (size_t)n, sizeof(*v), by_use);
        uint64_t target = limit - limit / 4;
        for (int i = 0; i < n && total > target; i++) {
            if (remove_in(dirfd(d), v[i].name)) {
                total -= v[i].size;
                removed++;
            }
        }
    }
    for (int i = 0; i < n; i++)
        free(v[i].name);
    free(v);
    closedir(d);
    return removed;
}
