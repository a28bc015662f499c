/* Libra's hot set in the switch: how many slots the switch's registers leave the job, the hot
 * keys sampled to fill them (sparse.c), their key blocks (64/dim rows each, in the order of the
 * keys' sampled frequency) as the slot engine's blocks, and one hot_keys entry per block. */
#include "models/ddl/libra.h"

#include <stdlib.h>

#include "sim/util.h"

/* Slots the job may use for hot rows: sparse.hot_slots, or all of the pool from slot_base.
 * Returns -1 after reporting. */
static int64_t hot_slot_count(struct ddl_job *job, struct libra *lb, struct host *w0,
                              struct diag *d)
{
    int64_t pool = inc_pool_slots(w0);
    int64_t base = lb->inc.cfg.slot_base;
    int64_t room = pool > base ? pool - base : 0;
    if (pool < 0) {
        diag_error(d, job->cfg.workers->loc,
                   "job '%s': arch libra needs its workers on a switch running an aggregation "
                   "program (program: aggregation)", job->name);
        return -1;
    }
    if (lb->sp.cfg.hot_slots < 0)
        return room;
    if (lb->sp.cfg.hot_slots > room) {
        diag_error(d, cfg_key_loc(job->cfg.sparse, "hot_slots"),
                   "job '%s': sparse.hot_slots (%lld) exceeds the %lld slots of the switch's "
                   "pool of %lld from inc.slot_base %lld", job->name,
                   (long long)lb->sp.cfg.hot_slots, (long long)room, (long long)pool,
                   (long long)base);
        return -1;
    }
    return lb->sp.cfg.hot_slots;
}

static int check_cfg(struct ddl_job *job, const struct sparse_cfg *c, struct diag *d)
{
    if ((uint64_t)c->layer >= job->L) {
        diag_error(d, cfg_key_loc(job->cfg.sparse, "layer"),
                   "job '%s': sparse.layer %lld is not a layer of model '%s' (%u layers)",
                   job->name, (long long)c->layer, job->model->name, job->L);
        return 1;
    }
    return 0;
}

/* The hot key blocks as the slot engine's blocks (all of the embedding layer). */
static int hot_path(struct ddl_job *job, struct libra *lb, struct host **wh, struct host *ps,
                    uint32_t rpb, struct diag *d)
{
    uint32_t Hb = (uint32_t)((lb->sp.nhot + rpb - 1) / rpb);
    uint32_t layer = (uint32_t)lb->sp.cfg.layer;
    uint32_t dim = (uint32_t)lb->sp.cfg.dim;
    struct inc_block *blocks = arena_calloc(&job->arena, Hb, sizeof(*blocks));
    uint64_t *end = arena_calloc(&job->arena, job->L, sizeof(*end));
    for (uint32_t l = 0; l <= layer; l++)
        end[l] = Hb;
    lb->inc.idx_of = arena_calloc(&job->arena, Hb, sizeof(*lb->inc.idx_of));
    for (uint32_t b = 0; b < Hb; b++) {
        uint64_t rows = MIN((uint64_t)rpb, lb->sp.nhot - (uint64_t)b * rpb);
        blocks[b] = (struct inc_block){layer, (uint32_t)rows * dim, (uint64_t)b * INC_NVALS};
        lb->inc.idx_of[b] = (uint32_t)lb->sp.hot_keys[(uint64_t)b * rpb];
    }
    lb->inc.W = Hb;
    lb->inc.sparse = true;
    if (inc_setup(&lb->inc, job, job->cfg.inc, wh, ps, blocks, Hb, end, d))
        return 1;
    for (uint32_t b = 0; b < Hb; b++) {
        if (inc_switch_hot(&lb->inc, lb->inc.idx_of[b], (uint32_t)lb->inc.cfg.slot_base + b, d))
            return 1;
    }
    return 0;
}

int libra_setup(struct ddl_job *job, struct libra *lb, struct host **wh, struct host *ps,
                struct diag *d)
{
    char what[300];
    struct sparse_cfg c;
    param_defaults(sparse_params, sparse_nparams, &c);
    snprintf(what, sizeof(what), "sparse of job '%s'", job->name);
    if (param_apply(d, sparse_params, sparse_nparams, job->cfg.sparse, &c, what) ||
        check_cfg(job, &c, d))
        return 1;
    if (inc_decode(&lb->inc, job, job->cfg.inc, d))
        return 1;
    lb->sp.cfg = c;
    int64_t slots = hot_slot_count(job, lb, wh[0], d);
    if (slots < 0)
        return 1;
    uint32_t rpb = INC_NVALS / (uint32_t)c.dim;
    char name[300];
    snprintf(name, sizeof(name), "job.%s.libra.sample", job->name);
    sparse_init(&lb->sp, &c, (uint64_t)slots * rpb, sim_rng(job->sim, name));
    lb->rng = arena_calloc(&job->arena, job->nworkers, sizeof(*lb->rng));
    for (uint32_t w = 0; w < job->nworkers; w++) {
        snprintf(name, sizeof(name), "job.%s.libra.w%u", job->name, w);
        lb->rng[w] = sim_rng(job->sim, name);
    }
    lb->cold_bytes = arena_calloc(&job->arena, job->nworkers, sizeof(*lb->cold_bytes));
    lb->emb_left = arena_calloc(&job->arena, job->nworkers, sizeof(*lb->emb_left));
    lb->push_bytes = arena_calloc(&job->arena, job->L, sizeof(*lb->push_bytes));
    stats_init(&lb->agg_time, 4);
    lb->have_hot = lb->sp.nhot > 0;
    return lb->have_hot ? hot_path(job, lb, wh, ps, rpb, d) : 0;
}

void libra_teardown(struct ddl_job *job, struct libra *lb)
{
    (void)job;
    if (lb->inc.job)
        inc_teardown(&lb->inc);
    sparse_fini(&lb->sp);
    stats_fini(&lb->agg_time);
}
