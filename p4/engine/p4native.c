/* The native back end: generation, compilation, the cache and loading (see p4native.h). */
#include "p4/engine/p4native.h"
#include "p4/engine/p4cachedir.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "p4/engine/p4cci.h"
#include "p4/engine/p4nemit.h"
#include "p4/engine/p4proc.h"

#define CC_FLAGS "-std=gnu11", "-O2", "-fPIC", "-shared", "-fno-strict-aliasing", "-w"
#define CC_FLAGS_TEXT "-std=gnu11 -O2 -fPIC -shared -fno-strict-aliasing -w"

struct p4native {
    void *dl;
    const void **rec;
    bool compiled; /* by this process (else found in the cache) */
};

/* ---- digests ---- */

/* A second digest of another construction (multiply, xor-shift per 8 bytes), so that a
 * collision of the file name's digest is caught after loading. */
static uint64_t mix(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = 0;
        memcpy(&w, s + i, n - i < 8 ? n - i : 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
    }
    return h;
}

/* ---- the compiler and the cache folder ---- */

/* dlopen runs an object's constructors before its embedded digest can be checked, so the
 * folder objects are loaded from must be the user's own directory (not a symbolic link), not
 * writable by group or others; 0 or -1 with the reason in why. */
static int dir_is_safe(const char *dir, char *why, size_t nwhy)
{
    struct stat st;
    if (lstat(dir, &st) != 0)
        snprintf(why, nwhy, "cannot inspect the cache folder %s: %s", dir, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        snprintf(why, nwhy, "the cache folder %s is not a directory", dir);
    else if (st.st_uid != geteuid())
        snprintf(why, nwhy, "the cache folder %s is not owned by you", dir);
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        snprintf(why, nwhy, "the cache folder %s is writable by group or others", dir);
    else
        return 0;
    return -1;
}

/* An object found in the cache is loaded only if it is the user's own regular file. */
static bool own_file(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid();
}

int p4native_cache_dir(char *dir, size_t n, char *why, size_t nwhy)
{
    const char *d = getenv("DDLSIM_P4_CACHE");
    const char *x = getenv("XDG_CACHE_HOME");
    const char *h = getenv("HOME");
    if (d && *d)
        snprintf(dir, n, "%s", d);
    else if (x && *x)
        snprintf(dir, n, "%s/ddlsim", x);
    else if (h && *h)
        snprintf(dir, n, "%s/.cache/ddlsim", h);
    else
        snprintf(dir, n, "/tmp/ddlsim-cache-%ld", (long)getuid());
    for (size_t l = strlen(dir); l > 1 && dir[l - 1] == '/'; l--)
        dir[l - 1] = 0; /* so that lstat sees the last component itself */
    if (p4util_mkdirs(dir, 0700) != 0) {
        snprintf(why, nwhy, "cannot create the cache folder %s: %s", dir, strerror(errno));
        return -1;
    }
    return dir_is_safe(dir, why, nwhy);
}

int p4native_tool_ident(const char *cc, char *ident, size_t n, char *why, size_t nwhy)
{
    char path[PATH_MAX];
    char real[PATH_MAX];
    const char *dirs = strchr(cc, '/') ? "" : getenv("PATH");
    bool found = false;
    for (const char *p = dirs ? dirs : ""; !found;) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (strchr(cc, '/'))
            snprintf(path, sizeof(path), "%s", cc);
        else
            snprintf(path, sizeof(path), "%.*s/%s", (int)len, len ? p : ".", cc);
        found = access(path, X_OK) == 0;
        if (!e || strchr(cc, '/'))
            break;
        p = e + 1;
    }
    struct stat st;
    if (!found || !realpath(path, real) || stat(real, &st) != 0) {
        snprintf(why, nwhy, "the C compiler '%s' was not found", cc);
        return -1;
    }
    snprintf(ident, n, "%s %lld %lld.%09ld", real, (long long)st.st_size,
             (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    return 0;
}

/* Writes n bytes to path; 0 or -1. */
static int write_file(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t w = fwrite(text, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

/* The compiler's first error line (at most 200 bytes of it: *n), else its first line. */
static const char *first_error(const char *err, int *n)
{
    const char *e = strstr(err, "error");
    while (e && e > err && e[-1] != '\n')
        e--;
    if (!e)
        e = err;
    size_t len = strcspn(e, "\n");
    *n = (int)(len > 200 ? 200 : len);
    return e;
}

/* Compiles src into the object `so` through temporary files in dir renamed into place. */
static int compile(const char *cc, const char *dir, const char *key, const struct p4nsrc *src,
                   const char *so, char *why, size_t nwhy)
{
    char tc[PATH_MAX];
    char tso[PATH_MAX];
    char fc[PATH_MAX];
    snprintf(tc, sizeof(tc), "%s/.p4n-%s-%ld.c", dir, key, (long)getpid());
    snprintf(tso, sizeof(tso), "%s/.p4n-%s-%ld.so", dir, key, (long)getpid());
    snprintf(fc, sizeof(fc), "%s/p4n-%s.c", dir, key);
    if (write_file(tc, src->text, src->len) != 0) {
        snprintf(why, nwhy, "cannot write %s: %s", tc, strerror(errno));
        unlink(tc);
        return -1;
    }
    char *argv[] = {(char *)cc, CC_FLAGS, "-o", tso, tc, NULL};
    const struct p4proc_limits lim = {2048UL << 20, 120, 1 << 20, 64 << 10};
    struct p4proc_result r;
    int rc = p4proc_run(argv, "the C compiler", &lim, &r);
    bool ok = rc == 0 && p4proc_ok(&r);
    int n = 0;
    const char *msg = rc == 0 ? first_error(r.err, &n) : "";
    if (rc != 0)
        snprintf(why, nwhy, "the C compiler '%s' could not be started", cc);
    else if (r.gave_up)
        snprintf(why, nwhy, "%s", r.gave_up);
    else if (!ok && WIFEXITED(r.status))
        snprintf(why, nwhy, "the C compiler '%s' failed with exit status %d%s%.*s", cc,
                 WEXITSTATUS(r.status), n ? ": " : "", n, msg);
    else if (!ok)
        snprintf(why, nwhy, "the C compiler '%s' was stopped by signal %d", cc,
                 WTERMSIG(r.status));
    if (rc == 0)
        p4proc_free(&r);
    if (ok && rename(tso, so) != 0) {
        snprintf(why, nwhy, "cannot rename %s: %s", tso, strerror(errno));
        ok = false;
    }
    if (rename(tc, fc) != 0) /* the source stays in the folder, for reading */
        unlink(tc);
    unlink(tso);
    return ok ? 0 : -1;
}

/* ---- loading ---- */

static const char *const ctl_names[5] = {"p4n_ctl0", "p4n_ctl1", "p4n_ctl2", "p4n_ctl3",
                                         "p4n_ctl4"};

/* Opens so and binds the twin's entry points; 0, or -1 (why filled when failed loudly). */
static int open_so(struct p4cc *tw, const char *so, uint64_t check, char *why, size_t nwhy)
{
    void *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *e = dlerror();
        snprintf(why, nwhy, "cannot load %s: %s", so, e ? e : "unknown error");
        return -1;
    }
    const uint64_t *have = dlsym(dl, "p4n_check");
    void *parser = dlsym(dl, "p4n_parser");
    void *ctl[5];
    bool all = have && *have == check && parser;
    for (int i = 0; i < 5; i++) {
        ctl[i] = dlsym(dl, ctl_names[i]);
        all &= ctl[i] != NULL;
    }
    if (!all) {
        dlclose(dl);
        snprintf(why, nwhy, "%s is not the object of this program", so);
        return -1;
    }
    tw->nat->dl = dl;
    *(void **)&tw->nparser = parser;
    *(void **)&tw->nlean_in = dlsym(dl, "p4n_lean_in");
    *(void **)&tw->nlean_out = dlsym(dl, "p4n_lean_out");
    for (int i = 0; i < 5; i++) {
        if (tw->ctl[i])
            *(void **)&tw->nctl[i] = ctl[i];
    }
    return 0;
}

/* Marks the object so (dir/p4n-KEY.so) and its source as used. */
static void touch_entry(const char *so)
{
    char c[PATH_MAX];
    p4cachedir_touch(so);
    snprintf(c, sizeof(c), "%.*s.c", (int)(strlen(so) - 3), so);
    p4cachedir_touch(c);
}

/* Trims the cache folder after the object so was written into it. */
static void trim_after(const char *dir, const char *so, FILE *diag)
{
    char why[256];
    uint64_t limit = p4cachedir_limit(why, sizeof(why));
    if (why[0] && diag)
        fprintf(diag, "ddlsim: note: %s\n", why);
    p4cachedir_trim(dir, limit, strrchr(so, '/') + 1);
}

/* Finds the program's object in the cache or compiles it, and loads it into tw. */
static int load(struct p4cc *tw, struct p4nsrc *src, FILE *diag, char *why, size_t nwhy)
{
    char dir[PATH_MAX - 64];
    char ident[PATH_MAX + 128];
    const char *cc = getenv("DDLSIM_P4_CC") && *getenv("DDLSIM_P4_CC") ? getenv("DDLSIM_P4_CC")
                                                                          : "cc";
    if (p4native_cache_dir(dir, sizeof(dir), why, nwhy) != 0 ||
        p4native_tool_ident(cc, ident, sizeof(ident) - sizeof(CC_FLAGS_TEXT) - 1, why, nwhy) != 0)
        return -1;
    strcat(ident, " " CC_FLAGS_TEXT);
    uint64_t check = mix(src->text, src->len);
    p4nemit_put(src, "const uint64_t p4n_check = 0x%016llxULL;\n", (unsigned long long)check);
    uint64_t h = p4util_fnv(0xcbf29ce484222325ULL, ident, strlen(ident) + 1);
    h = p4util_fnv(h, src->text, src->len);
    char key[17];
    char so[PATH_MAX];
    snprintf(key, sizeof(key), "%016llx", (unsigned long long)h);
    snprintf(so, sizeof(so), "%s/p4n-%s.so", dir, key);
    if (own_file(so) && open_so(tw, so, check, why, nwhy) == 0) {
        touch_entry(so);
        return 0;
    }
    if (compile(cc, dir, key, src, so, why, nwhy) != 0)
        return -1;
    tw->nat->compiled = true;
    trim_after(dir, so, diag);
    return open_so(tw, so, check, why, nwhy);
}

const struct p4cc *p4native_twin(const struct p4cc *cc, FILE *diag)
{
    struct p4cc *self = (struct p4cc *)cc; /* the twin is made once and kept with the program */
    if (cc->twin_tried)
        return cc->twin ? cc->twin : cc;
    self->twin_tried = true;
    struct p4nsrc src;
    p4nemit_program(cc, &src);
    struct p4cc *tw = p4util_malloc(sizeof(*tw));
    *tw = *cc;
    tw->allocs = NULL; /* the records stay the original's */
    tw->nallocs = tw->capallocs = 0;
    tw->fns = NULL;
    tw->nfns = tw->capfns = 0;
    tw->twin = NULL;
    tw->nat = p4util_calloc(1, sizeof(*tw->nat));
    char why[PATH_MAX + 256];
    if (load(tw, &src, diag, why, sizeof(why)) != 0) {
        if (diag)
            fprintf(diag, "ddlsim: note: no native code for the P4 program (%s); it runs on the "
                          "compiled engine\n", why);
        free(tw->nat);
        free(tw);
        p4nemit_free(&src);
        return cc;
    }
    tw->nat->rec = src.rec; /* kept: the generated code reads it */
    tw->nrec = src.rec;
    src.rec = NULL;
    p4nemit_free(&src);
    self->twin = tw;
    return tw;
}

void p4native_free(struct p4native *n)
{
    if (!n)
        return;
    if (n->dl)
        dlclose(n->dl);
    free(n->rec);
    free(n);
}

enum p4native_status p4native_status(const struct p4_prog *prog)
{
    const struct p4cc *cc = prog->cc;
    if (!cc || !cc->twin_tried)
        return P4NATIVE_NOT_TRIED;
    if (!cc->twin)
        return P4NATIVE_FAILED;
    return cc->twin->nat->compiled ? P4NATIVE_COMPILED : P4NATIVE_CACHED;
}
