/* Hierarchical all-reduce (collective: hierarchical), as Horovod's hierarchical mode (NCCL
 * inside each server, a ring across servers): with G GPUs per host,
 * 1. reduce inside each host along a chain of its GPUs, G-1 -> G-2 -> ... -> 0, pipelined in
 *    slices (units.h): GPU g sends a slice once its own gradient is ready and GPU g+1's partial
 *    sum of it has arrived;
 * 2. once the whole tensor is reduced at a host's first GPU, those GPUs all-reduce it in a ring
 *    of the hosts (ring.h, with the ring's pieces, segments and slices);
 * 3. each first GPU broadcasts the result back along the chain 0 -> 1 -> ... -> G-1.
 * A tensor's phases follow each other at the host's first GPU (a phase starts when the previous
 * one ended for the whole tensor); slices pipeline inside each phase. Every chain hop is
 * intra-host (intra.h); each host's NIC carries only the ring: 2(H-1)/H of the tensor each way
 * for H hosts, where a flat ring over all GPUs sends the same through each host's one
 * inter-host hop. With one GPU per host this is the flat ring. */
#include "models/ddl/arch.h"

#include <stdlib.h>

#include "models/ddl/collective.h"
#include "models/ddl/intra.h"
#include "models/ddl/ring.h"
#include "models/ddl/units.h"
#include "sim/util.h"

enum { HIER_RING = 0, HIER_REDUCE = 1, HIER_BCAST = 2 };

/* Worker w's partial sum of unit u moves down the chain when it can. */
static void try_reduce(struct ddl_job *job, uint32_t w, uint32_t u)
{
    struct ddl_ucoll *h = job->ucoll;
    struct ddl_unit_state *hw = &h->w[w];
    uint32_t g = w % job->gpus;
    if (!hw->own[u] || (g + 1 < job->gpus && !hw->got[u]))
        return;
    hw->own[u] = 0;
    hw->got[u] = 0;
    if (g > 0) {
        ddl_unit_send(job, u, w, w - 1, hw->iter[u], HIER_REDUCE);
        return;
    }
    uint32_t layer = h->us.layer_of[u];
    if (ddl_unit_layer_done(hw, &h->us, layer))
        ddl_ring_start(job, w, layer, hw->iter[u]);
}

static void hier_start(struct ddl_job *job, uint32_t w, uint32_t layer, uint32_t iter)
{
    ddl_ucoll_start(job, w, layer, iter, try_reduce);
}

/* The ring finished `layer` at first GPU w: the result goes down the chain. */
static void ring_done(struct ddl_job *job, uint32_t w, uint32_t layer, uint32_t iter)
{
    struct ddl_ucoll *h = job->ucoll;
    for (uint32_t j = 0; job->gpus > 1 && j < h->us.n[layer]; j++)
        ddl_unit_send(job, h->us.base[layer] + j, w, w + 1, iter, HIER_BCAST);
    ddl_coll_done(h->coll, &job->workers[w], layer, iter);
}

static void hier_delivered(struct ddl_job *job, struct ddl_item *it)
{
    struct ddl_ucoll *h = job->ucoll;
    if (it->phase == HIER_RING) {
        ddl_ring_delivered(job, it);
        return;
    }
    uint32_t u = h->us.base[it->layer] + it->chunk, w = it->dst;
    if (it->phase == HIER_REDUCE) {
        h->w[w].got[u] = 1;
        try_reduce(job, w, u);
        return;
    }
    if ((w + 1) % job->gpus != 0)
        ddl_unit_send(job, u, w, w + 1, it->iter, HIER_BCAST);
    if (ddl_unit_layer_done(&h->w[w], &h->us, it->layer))
        ddl_coll_done(h->coll, &job->workers[w], it->layer, it->iter);
}

static int hier_init(struct ddl_job *job, struct host **wh, struct host **sh, struct diag *d)
{
    (void)sh;
    uint32_t hosts = job->nworkers / job->gpus;
    if (hosts < 2) {
        diag_error(d, job->cfg.workers->loc,
                   "job '%s': hierarchical all-reduce needs at least 2 hosts", job->name);
        return 1;
    }
    ddl_ucoll_create(job, hier_start);
    ddl_ring_create(job, hosts, job->gpus, ring_done);
    return ddl_ring_connect(job, wh, d);
}

static void hier_fini(struct ddl_job *job)
{
    ddl_ring_fini(job);
    ddl_ucoll_destroy(job);
}

const struct ddl_arch_ops ddl_arch_hier = {
    .init = hier_init,
    .fini = hier_fini,
    .grad_ready = ddl_ucoll_grad_ready,
    .delivered = hier_delivered,
};
