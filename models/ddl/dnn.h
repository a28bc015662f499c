/* A DNN model as data: per layer (forward order) the gradient/parameter bytes and forward and
 * backward compute times. Loaded from configs/models/NAME.yaml (generated from published layer
 * tables, see scripts/gen-models.py), from a path, or written inline in a scenario. */
#ifndef SIM_MODELS_DDL_DNN_H
#define SIM_MODELS_DDL_DNN_H

#include <stdint.h>

#include "sim/arena.h"
#include "sim/cfg.h"
#include "sim/diag.h"
#include "sim/simtime.h"

struct dnn_layer {
    char *name;
    uint64_t bytes;
    sim_time_t fwd_ps;
    sim_time_t bwd_ps;
};

struct dnn_model {
    struct arena mem; /* this struct, its layers and strings */
    char *name;
    int64_t batch;
    uint32_t nlayers;
    struct dnn_layer *layers;
    char *file; /* the file it was read from (NULL for an inline map), for provenance */
};

/* `spec` is a model name (looked up as <scenario dir>/models/NAME.yaml, then
 * configs/models/NAME.yaml of the installation, then $DDLSIM_MODELS/NAME.yaml), a path to a .yaml file, or an inline
 * map {name, batch, layers: [...]}. `scenario_file` locates relative paths. Returns NULL after
 * reporting errors. */
struct dnn_model *dnn_load(const struct cfg_node *spec, const char *scenario_file,
                           struct diag *d);
void dnn_free(struct dnn_model *m);
/* Scales compute times and applies per-layer overrides {layer: {forward, backward, bytes}}. */
int dnn_adjust(struct dnn_model *m, double compute_scale, const struct cfg_node *overrides,
               struct diag *d);
uint64_t dnn_total_bytes(const struct dnn_model *m);
sim_time_t dnn_compute_ps(const struct dnn_model *m);

#endif
