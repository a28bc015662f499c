/* Input files of a run, their digests, and the configuration hash (provenance.h). */
#include "sim/app/provenance.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/app/registry.h"
#include "sim/app/version.h"
#include "sim/util.h"

static void add(struct prov_inputs *in, const char *role, const char *path, bool folder)
{
    char *real = realpath(path, NULL);
    if (!real)
        real = xstrdup(path);
    for (size_t i = 0; i < in->n; i++) {
        if (strcmp(in->v[i].path, real) == 0) {
            free(real);
            return;
        }
    }
    in->v = xrealloc(in->v, (in->n + 1) * sizeof(*in->v));
    struct prov_input *p = &in->v[in->n++];
    p->role = xstrdup(role);
    p->path = real;
    int rc = folder ? prov_folder_digest(real, p->sha256) : sha256_file(real, p->sha256);
    if (rc < 0)
        snprintf(p->sha256, sizeof(p->sha256), "unreadable: %s", strerror(errno));
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int prov_folder_digest(const char *dir, char out[SHA256_HEX_LEN])
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *p = xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            names = xrealloc(names, (n + 1) * sizeof(*names));
            names[n++] = xstrdup(e->d_name);
        }
        free(p);
    }
    closedir(d);
    qsort(names, n, sizeof(*names), name_cmp);
    struct sha256 s;
    sha256_init(&s);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char *p = xasprintf("%s/%s", dir, names[i]);
        char h[SHA256_HEX_LEN];
        if (sha256_file(p, h) < 0)
            rc = -1;
        sha256_update(&s, names[i], strlen(names[i]) + 1);
        sha256_update(&s, h, strlen(h));
        free(p);
        free(names[i]);
    }
    free(names);
    sha256_hex(&s, out);
    return rc;
}

/* Inputs a node kind reports: folders are digested by their files. */
static void note(void *ud, const char *role, const char *path)
{
    struct stat st;
    add(ud, role, path, stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

void prov_collect(const struct scenario *sc, struct prov_inputs *in)
{
    memset(in, 0, sizeof(*in));
    if (sc->doc->file)
        add(in, "scenario", sc->doc->file, false);
    for (size_t k = 0; k < registry_nnode_kinds; k++) {
        const struct node_ops *ops = registry_node_kinds[k].ops;
        if (ops->shared_inputs && sc->kind_shared[k])
            ops->shared_inputs(sc->kind_shared[k], note, in);
    }
    for (uint32_t i = 0; i < sc->njobs; i++) {
        if (sc->jobs[i]->model && sc->jobs[i]->model->file)
            add(in, "model", sc->jobs[i]->model->file, false);
    }
}

void prov_free(struct prov_inputs *in)
{
    for (size_t i = 0; i < in->n; i++) {
        free(in->v[i].role);
        free(in->v[i].path);
    }
    free(in->v);
    memset(in, 0, sizeof(*in));
}

json_t *prov_json(const struct scenario *sc)
{
    json_t *o = json_object();
    json_object_set_new(o, "ddlsim_version", json_string(ddlsim_version()));
    struct prov_inputs in;
    prov_collect(sc, &in);
    json_t *arr = json_array();
    for (size_t i = 0; i < in.n; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "role", json_string(in.v[i].role));
        json_object_set_new(e, "path", json_string(in.v[i].path));
        json_object_set_new(e, "sha256", json_string(in.v[i].sha256));
        json_array_append_new(arr, e);
    }
    json_object_set_new(o, "inputs", arr);
    prov_free(&in);
    return o;
}

void prov_config_hash(const struct scenario *sc, char out[SHA256_HEX_LEN])
{
    struct cfg_buf b = {0};
    cfg_canonical(sc->doc->root, &b);
    struct sha256 s;
    sha256_init(&s);
    sha256_update(&s, b.s ? b.s : "", b.len);
    char seed[32];
    snprintf(seed, sizeof(seed), "\nseed=%lld\n", (long long)sc->cfg.seed);
    sha256_update(&s, seed, strlen(seed));
    free(b.s);
    struct prov_inputs in;
    prov_collect(sc, &in);
    for (size_t i = 0; i < in.n; i++) {
        if (strcmp(in.v[i].role, "scenario") == 0)
            continue;
        sha256_update(&s, in.v[i].role, strlen(in.v[i].role) + 1);
        sha256_update(&s, in.v[i].sha256, strlen(in.v[i].sha256) + 1);
    }
    prov_free(&in);
    sha256_hex(&s, out);
}
