#include "models/ddl/dnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/install.h"
#include "sim/param.h"
#include "sim/util.h"

struct layer_cfg {
    const char *name;
    uint64_t bytes;
    sim_time_t fwd_ps;
    sim_time_t bwd_ps;
};

#define LP(f) offsetof(struct layer_cfg, f)
static const struct param_def layer_params[] = {
    {"name", PARAM_STRING, LP(name), NULL, NULL, NULL, NULL, "layer name"},
    {"bytes", PARAM_SIZE, LP(bytes), NULL, "1B", NULL, NULL, "parameter (= gradient) bytes"},
    {"forward", PARAM_TIME, LP(fwd_ps), "0", "0", NULL, NULL, "forward compute time"},
    {"backward", PARAM_TIME, LP(bwd_ps), "0", "0", NULL, NULL, "backward compute time"},
};

struct model_cfg {
    const char *name;
    const char *gpu;
    int64_t batch;
    const struct cfg_node *layers;
};

#define MP(f) offsetof(struct model_cfg, f)
static const struct param_def model_params[] = {
    {"name", PARAM_STRING, MP(name), NULL, NULL, NULL, NULL, "model name"},
    {"gpu", PARAM_STRING, MP(gpu), PARAM_OPTIONAL, NULL, NULL, NULL, "GPU the times are for"},
    {"batch", PARAM_INT, MP(batch), "1", "1", NULL, NULL, "samples per iteration per worker"},
    {"layers", PARAM_NODE, MP(layers), NULL, NULL, NULL, NULL, "layers, input side first"},
};

static struct dnn_model *from_map(const struct cfg_node *m, struct diag *d)
{
    struct model_cfg mc;
    if (param_decode(d, model_params, ARRAY_LEN(model_params), m, &mc, "model"))
        return NULL;
    if (mc.layers->kind != CFG_SEQ || mc.layers->n == 0) {
        diag_error(d, mc.layers->loc, "model '%s': layers must be a non-empty list", mc.name);
        return NULL;
    }
    if (mc.layers->n > 65535) {
        diag_error(d, mc.layers->loc, "model '%s': at most 65535 layers", mc.name);
        return NULL;
    }
    struct arena mem = {0};
    struct dnn_model *dm = arena_calloc(&mem, 1, sizeof(*dm));
    dm->mem = mem;
    dm->name = arena_printf(&dm->mem, "%s", mc.name);
    dm->batch = mc.batch;
    dm->nlayers = (uint32_t)mc.layers->n;
    dm->layers = arena_calloc(&dm->mem, dm->nlayers, sizeof(*dm->layers));
    int errors = 0;
    for (uint32_t i = 0; i < dm->nlayers; i++) {
        struct layer_cfg lc;
        char what[64];
        snprintf(what, sizeof(what), "layer %u", i);
        if (param_decode(d, layer_params, ARRAY_LEN(layer_params), mc.layers->items[i], &lc,
                         what)) {
            errors++;
            continue;
        }
        dm->layers[i] = (struct dnn_layer){arena_printf(&dm->mem, "%s", lc.name), lc.bytes,
                                           lc.fwd_ps, lc.bwd_ps};
    }
    if (errors) {
        dnn_free(dm);
        return NULL;
    }
    return dm;
}

static struct dnn_model *from_file(const char *path, struct diag *d)
{
    struct cfg_doc *doc = cfg_load_file(path, d);
    if (!doc)
        return NULL;
    struct dnn_model *m = from_map(doc->root, d);
    cfg_free(doc);
    return m;
}

static bool readable(const char *p)
{
    return access(p, R_OK) == 0;
}

struct dnn_model *dnn_load(const struct cfg_node *spec, const char *scenario_file,
                           struct diag *d)
{
    if (spec->kind == CFG_MAP)
        return from_map(spec, d);
    if (spec->kind != CFG_SCALAR) {
        diag_error(d, spec->loc, "model must be a name, a .yaml path or a map of layers");
        return NULL;
    }
    const char *s = spec->str;
    const char *slash = strrchr(scenario_file, '/');
    char *dir = slash ? xasprintf("%.*s", (int)(slash - scenario_file), scenario_file)
                      : xstrdup(".");
    const char *env = getenv("DDLSIM_MODELS");
    char *cands[4] = {NULL, NULL, NULL, NULL};
    size_t n = 0;
    size_t len = strlen(s);
    if (strchr(s, '/') || (len > 5 && strcmp(s + len - 5, ".yaml") == 0)) {
        cands[n++] = s[0] == '/' ? xstrdup(s) : xasprintf("%s/%s", dir, s);
        cands[n++] = xstrdup(s);
    } else {
        cands[n++] = xasprintf("%s/models/%s.yaml", dir, s);
        char root[4096];
        install_root(root, sizeof(root));
        cands[n++] = xasprintf("%s/configs/models/%s.yaml", root, s);
        if (env)
            cands[n++] = xasprintf("%s/%s.yaml", env, s);
    }
    struct dnn_model *m = NULL;
    size_t i;
    for (i = 0; i < n && !readable(cands[i]); i++)
        ;
    if (i < n) {
        m = from_file(cands[i], d);
        if (m)
            m->file = arena_printf(&m->mem, "%s", cands[i]);
    }
    else
        diag_error(d, spec->loc, "model '%s' not found (looked for %s%s%s%s%s)", s, cands[0],
                   n > 1 ? ", " : "", n > 1 ? cands[1] : "", n > 2 ? ", " : "",
                   n > 2 ? cands[2] : "");
    for (size_t k = 0; k < n; k++)
        free(cands[k]);
    free(dir);
    return m;
}

void dnn_free(struct dnn_model *m)
{
    if (m)
        arena_free(&m->mem);
}

int dnn_adjust(struct dnn_model *m, double compute_scale, const struct cfg_node *overrides,
               struct diag *d)
{
    for (uint32_t i = 0; i < m->nlayers; i++) {
        m->layers[i].fwd_ps = (sim_time_t)llround((double)m->layers[i].fwd_ps * compute_scale);
        m->layers[i].bwd_ps = (sim_time_t)llround((double)m->layers[i].bwd_ps * compute_scale);
    }
    if (!overrides)
        return 0;
    if (overrides->kind != CFG_MAP) {
        diag_error(d, overrides->loc, "layers must map layer names to {forward, backward, bytes}");
        return 1;
    }
    int errors = 0;
    for (size_t k = 0; k < overrides->n; k++) {
        struct dnn_layer *l = NULL;
        for (uint32_t i = 0; i < m->nlayers && !l; i++) {
            if (strcmp(m->layers[i].name, overrides->keys[k]) == 0)
                l = &m->layers[i];
        }
        if (!l) {
            diag_error(d, overrides->key_locs[k], "model '%s' has no layer '%s'", m->name,
                       overrides->keys[k]);
            errors++;
            continue;
        }
        struct layer_cfg lc = {l->name, l->bytes, l->fwd_ps, l->bwd_ps};
        /* only name-less keys: forward, backward, bytes */
        errors += param_apply(d, layer_params + 1, ARRAY_LEN(layer_params) - 1,
                              overrides->items[k], &lc, "a layer override");
        l->bytes = lc.bytes;
        l->fwd_ps = lc.fwd_ps;
        l->bwd_ps = lc.bwd_ps;
    }
    return errors;
}

uint64_t dnn_total_bytes(const struct dnn_model *m)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < m->nlayers; i++)
        t += m->layers[i].bytes;
    return t;
}

sim_time_t dnn_compute_ps(const struct dnn_model *m)
{
    sim_time_t t = 0;
    for (uint32_t i = 0; i < m->nlayers; i++)
        t += m->layers[i].fwd_ps + m->layers[i].bwd_ps;
    return t;
}
