/* Tensors cut into slices for the pipelined tree and hierarchical collectives: layer l has
 * n[l] slices of at most `slice` bytes (one slice when slice is 0), numbered globally from
 * base[l]; a slice is the unit every step of those collectives depends on. */
#ifndef SIM_MODELS_DDL_UNITS_H
#define SIM_MODELS_DDL_UNITS_H

#include "models/ddl/collective.h"
#include "models/ddl/job.h"

struct ddl_units {
    uint32_t *n;        /* [L] */
    uint32_t *base;     /* [L] */
    uint32_t *layer_of; /* [total] */
    uint32_t total;
};

/* A worker's progress on every unit of a pipelined collective. */
struct ddl_unit_state {
    uint8_t *own;   /* [units]: own gradient ready (and not yet passed on) */
    uint16_t *got;  /* [units]: partial sums arrived from the worker's children / successor */
    uint32_t *iter; /* [units]: the iteration of the own gradient */
    uint32_t *left; /* [L]: units of the layer not yet complete here */
};

/* A pipelined collective's state (tree.c, hier.c): its collective layer, units and workers. */
struct ddl_ucoll {
    struct ddl_coll *coll;
    struct ddl_units us;
    struct ddl_unit_state *w; /* [nworkers] */
};

/* job->ucoll, whose collective layer starts workers through `start`. */
struct ddl_ucoll *ddl_ucoll_create(struct ddl_job *job, ddl_coll_start_fn *start);
void ddl_ucoll_destroy(struct ddl_job *job);
/* The arch's grad_ready: the collective layer takes the gradient. */
void ddl_ucoll_grad_ready(struct ddl_worker *w, uint32_t layer);

void ddl_units_init(const struct ddl_job *job, struct ddl_units *u);
void ddl_units_fini(struct ddl_units *u);
/* The state of every worker of the job, left[] full. */
struct ddl_unit_state *ddl_unit_states(const struct ddl_job *job, const struct ddl_units *us);
void ddl_unit_states_free(const struct ddl_job *job, struct ddl_unit_state *st);
/* One unit of `layer` is complete at state st: true when it was the layer's last (left[] is
 * then full again for the next iteration). */
bool ddl_unit_layer_done(struct ddl_unit_state *st, const struct ddl_units *us, uint32_t layer);
/* Bytes of unit u (at least 1: an empty layer still passes a token). */
uint64_t ddl_unit_bytes(const struct ddl_job *job, const struct ddl_units *us, uint32_t u);
/* Sends unit u (of gradients of `iter`) from worker `from` to worker `to` (ddl_send), tagged
 * with the collective's `phase`. */
void ddl_unit_send(struct ddl_job *job, uint32_t u, uint32_t from, uint32_t to, uint32_t iter,
                   uint8_t phase);
/* Worker w's gradient of `layer` (from iter) is in: marks its units and calls try(job, w, u)
 * for each. */
void ddl_ucoll_start(struct ddl_job *job, uint32_t w, uint32_t layer, uint32_t iter,
                     void (*try)(struct ddl_job *job, uint32_t w, uint32_t u));

#endif
