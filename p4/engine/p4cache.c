/* The program cache: see p4cache.h. */
#include "p4/engine/p4cache.h"
#include "p4/engine/p4util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct p4_cache_entry {
    char *path;
    char *include_dir;
    struct stat st;
    struct p4_prog *prog;
};

struct p4_cache {
    struct p4_cache_entry *v;
    int n;
    int cap;
    int loads;
};

struct p4_cache *p4_cache_create(void)
{
    return p4util_calloc(1, sizeof(struct p4_cache));
}

void p4_cache_free(struct p4_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++) {
        free(c->v[i].path);
        free(c->v[i].include_dir);
        p4_prog_free(c->v[i].prog);
    }
    free(c->v);
    free(c);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = p4util_malloc(n);
    memcpy(d, s, n);
    return d;
}

const struct p4_prog *p4_cache_load(struct p4_cache *c, const char *path, const char *include_dir,
                                    FILE *diag_out, int *nerrors)
{
    struct stat st;
    bool have = stat(path, &st) == 0;
    for (int i = 0; have && i < c->n; i++) {
        struct p4_cache_entry *e = &c->v[i];
        if (strcmp(e->path, path) || strcmp(e->include_dir, include_dir))
            continue;
        if (e->st.st_ino && same_file(&e->st, &st)) {
            if (nerrors)
                *nerrors = 0;
            return e->prog;
        }
    }
    struct p4_prog *prog = p4_prog_load(path, include_dir, diag_out, nerrors);
    if (!prog)
        return NULL;
    c->loads++;
    if (!have) /* the file could not be stat'ed: kept (freed with the cache), never matched */
        memset(&st, 0, sizeof(st));
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 4;
        c->v = p4util_realloc(c->v, (size_t)c->cap * sizeof(*c->v));
    }
    c->v[c->n++] = (struct p4_cache_entry){dup_str(path), dup_str(include_dir), st, prog};
    return prog;
}

int p4_cache_loads(const struct p4_cache *c)
{
    return c->loads;
}
