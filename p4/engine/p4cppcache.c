/* The preprocessed programs kept in the cache folder (see p4cppcache.h). An entry is
 * `p4cpp-KEY.i` with KEY the digest of the preprocessor's identity, the working folder, the
 * program path and the include folder as given; it holds a manifest (every file the output's
 * line markers name, with its size, modification time and inode) and the output. */
#include "p4/engine/p4cppcache.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "p4/engine/p4cachedir.h"
#include "p4/engine/p4cpp.h"
#include "p4/engine/p4native.h"
#include "p4/engine/p4util.h"

#define MAGIC "ddlsim-cpp 1\n"

/* The entry's path for this run of the preprocessor; 0 or -1 (no usable cache). */
static int entry_path(const char *path, const char *include_dir, char *out, size_t n)
{
    char dir[PATH_MAX - 64];
    char ident[PATH_MAX + 128];
    char cwd[PATH_MAX];
    char why[PATH_MAX + 128];
    if (p4native_cache_dir(dir, sizeof(dir), why, sizeof(why)) != 0 ||
        p4native_tool_ident("cpp", ident, sizeof(ident), why, sizeof(why)) != 0 ||
        !getcwd(cwd, sizeof(cwd)))
        return -1;
    uint64_t h = p4util_fnv(0xcbf29ce484222325ULL, MAGIC, sizeof(MAGIC));
    h = p4util_fnv(h, ident, strlen(ident) + 1);
    h = p4util_fnv(h, cwd, strlen(cwd) + 1);
    h = p4util_fnv(h, path, strlen(path) + 1);
    h = p4util_fnv(h, include_dir, strlen(include_dir) + 1);
    snprintf(out, n, "%s/p4cpp-%016llx.i", dir, (unsigned long long)h);
    return 0;
}

static void stamp(FILE *f, const char *path, const struct stat *st)
{
    fprintf(f, "%lld %lld %ld %llu %s\n", (long long)st->st_size, (long long)st->st_mtim.tv_sec,
            st->st_mtim.tv_nsec, (unsigned long long)st->st_ino, path);
}

/* Reads the manifest of f; true if every file it names is unchanged. */
static bool manifest_holds(FILE *f)
{
    char line[PATH_MAX + 128];
    char name[PATH_MAX];
    while (fgets(line, sizeof(line), f) && strcmp(line, "--\n") != 0) {
        long long size;
        long long sec;
        long nsec;
        unsigned long long ino;
        struct stat st;
        if (sscanf(line, "%lld %lld %ld %llu %4095[^\n]", &size, &sec, &nsec, &ino, name) != 5 ||
            stat(name, &st) != 0 || st.st_size != size || st.st_mtim.tv_sec != sec ||
            st.st_mtim.tv_nsec != nsec || st.st_ino != ino)
            return false;
    }
    return !feof(f) && !ferror(f);
}

char *p4cppcache_get(const char *path, const char *include_dir, size_t *len)
{
    char entry[PATH_MAX];
    struct stat st;
    if (entry_path(path, include_dir, entry, sizeof(entry)) != 0 || lstat(entry, &st) != 0 ||
        !S_ISREG(st.st_mode) || st.st_uid != geteuid())
        return NULL;
    FILE *f = fopen(entry, "rb");
    if (!f)
        return NULL;
    char magic[sizeof(MAGIC)];
    size_t n = 0;
    char *text = NULL;
    if (fgets(magic, sizeof(magic), f) && strcmp(magic, MAGIC) == 0 && manifest_holds(f) &&
        fscanf(f, "%zu", &n) == 1 && fgetc(f) == '\n' && n <= P4CPP_MAX_OUTPUT) {
        text = p4util_malloc(n + 1);
        if (fread(text, 1, n, f) != n || fgetc(f) != EOF) {
            free(text);
            text = NULL;
        } else {
            text[n] = 0;
            *len = n;
            p4cachedir_touch(entry);
        }
    }
    fclose(f);
    return text;
}

/* Writes the manifest: the files named by the line markers (`# N "FILE" ...`) of text.
 * false if one cannot be resolved (the entry is then not kept). */
static bool write_manifest(FILE *f, const char *text, size_t len)
{
    for (const char *p = text; p && p < text + len; p = memchr(p, '\n', (size_t)(text + len - p))) {
        p += *p == '\n';
        char name[PATH_MAX];
        char real[PATH_MAX];
        if (sscanf(p, "# %*d \"%4095[^\"\n]\"", name) != 1 || name[0] == '<')
            continue;
        struct stat st;
        if (strchr(name, '\\') || !realpath(name, real) || stat(real, &st) != 0 ||
            st.st_mtim.tv_sec >= time(NULL) - 1) /* may change again within its time stamp */
            return false;
        stamp(f, real, &st);
    }
    return true;
}

void p4cppcache_put(const char *path, const char *include_dir, const char *text, size_t len)
{
    char entry[PATH_MAX];
    char tmp[PATH_MAX + 32];
    if (entry_path(path, include_dir, entry, sizeof(entry)) != 0)
        return;
    snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", entry, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return;
    fputs(MAGIC, f);
    bool ok = write_manifest(f, text, len);
    fprintf(f, "--\n%zu\n", len);
    ok = ok && fwrite(text, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, entry) != 0) {
        unlink(tmp);
        return;
    }
    char why[256];
    char *slash = strrchr(entry, '/');
    *slash = 0;
    p4cachedir_trim(entry, p4cachedir_limit(why, sizeof(why)), slash + 1);
}
