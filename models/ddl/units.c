/* Slices of tensors for the pipelined collectives (units.h). */
#include "models/ddl/units.h"

#include <stdlib.h>

#include "models/ddl/intra.h"
#include "models/ddl/scheduler.h"
#include "sim/util.h"

void ddl_units_init(const struct ddl_job *job, struct ddl_units *us)
{
    uint64_t sl = job->cfg.slice_bytes;
    us->n = xcalloc(job->L, sizeof(*us->n));
    us->base = xcalloc(job->L, sizeof(*us->base));
    us->total = 0;
    for (uint32_t l = 0; l < job->L; l++) {
        uint64_t b = job->model->layers[l].bytes;
        us->n[l] = sl && b > sl ? (uint32_t)((b + sl - 1) / sl) : 1;
        us->base[l] = us->total;
        us->total += us->n[l];
    }
    us->layer_of = xcalloc(us->total, sizeof(*us->layer_of));
    for (uint32_t l = 0; l < job->L; l++) {
        for (uint32_t j = 0; j < us->n[l]; j++)
            us->layer_of[us->base[l] + j] = l;
    }
}

void ddl_units_fini(struct ddl_units *us)
{
    free(us->n);
    free(us->base);
    free(us->layer_of);
}

struct ddl_unit_state *ddl_unit_states(const struct ddl_job *job, const struct ddl_units *us)
{
    struct ddl_unit_state *st = xcalloc(job->nworkers, sizeof(*st));
    for (uint32_t w = 0; w < job->nworkers; w++) {
        st[w].own = xcalloc(us->total, sizeof(*st[w].own));
        st[w].got = xcalloc(us->total, sizeof(*st[w].got));
        st[w].iter = xcalloc(us->total, sizeof(*st[w].iter));
        st[w].left = xcalloc(job->L, sizeof(*st[w].left));
        for (uint32_t l = 0; l < job->L; l++)
            st[w].left[l] = us->n[l];
    }
    return st;
}

void ddl_unit_states_free(const struct ddl_job *job, struct ddl_unit_state *st)
{
    for (uint32_t w = 0; st && w < job->nworkers; w++) {
        free(st[w].own);
        free(st[w].got);
        free(st[w].iter);
        free(st[w].left);
    }
    free(st);
}

bool ddl_unit_layer_done(struct ddl_unit_state *st, const struct ddl_units *us, uint32_t layer)
{
    if (--st->left[layer] > 0)
        return false;
    st->left[layer] = us->n[layer];
    return true;
}

struct ddl_ucoll *ddl_ucoll_create(struct ddl_job *job, ddl_coll_start_fn *start)
{
    struct ddl_ucoll *c = xcalloc(1, sizeof(*c));
    job->ucoll = c;
    ddl_units_init(job, &c->us);
    c->w = ddl_unit_states(job, &c->us);
    c->coll = ddl_coll_create(job, start);
    return c;
}

void ddl_ucoll_destroy(struct ddl_job *job)
{
    struct ddl_ucoll *c = job->ucoll;
    if (!c)
        return;
    ddl_coll_destroy(c->coll);
    ddl_unit_states_free(job, c->w);
    ddl_units_fini(&c->us);
    free(c);
    job->ucoll = NULL;
}

void ddl_ucoll_grad_ready(struct ddl_worker *w, uint32_t layer)
{
    ddl_coll_ready(w->job->ucoll->coll, w, layer);
}

uint64_t ddl_unit_bytes(const struct ddl_job *job, const struct ddl_units *us, uint32_t u)
{
    uint32_t l = us->layer_of[u];
    uint64_t b = job->model->layers[l].bytes;
    uint64_t sl = job->cfg.slice_bytes;
    if (!sl || us->n[l] == 1)
        return b ? b : 1;
    uint64_t off = (uint64_t)(u - us->base[l]) * sl;
    return MIN(sl, b - off);
}

void ddl_unit_send(struct ddl_job *job, uint32_t u, uint32_t from, uint32_t to, uint32_t iter,
                   uint8_t phase)
{
    const struct ddl_units *us = &job->ucoll->us;
    struct ddl_item *it = ddl_item_new(job);
    it->layer = us->layer_of[u];
    it->chunk = u - us->base[it->layer];
    it->bytes = ddl_unit_bytes(job, us, u);
    it->worker = from;
    it->iter = iter;
    it->prio = job->prio_of[it->layer];
    it->phase = phase;
    ddl_send(job, it, to, NULL);
}

void ddl_ucoll_start(struct ddl_job *job, uint32_t w, uint32_t layer, uint32_t iter,
                     void (*try)(struct ddl_job *job, uint32_t w, uint32_t u))
{
    struct ddl_ucoll *c = job->ucoll;
    for (uint32_t j = 0; j < c->us.n[layer]; j++) {
        uint32_t u = c->us.base[layer] + j;
        c->w[w].own[u] = 1;
        c->w[w].iter[u] = iter;
        try(job, w, u);
    }
}
