/* Tree all-reduce (collective: tree): a binomial tree over the job's workers (GPUs, in list
 * order), rooted at worker 0. The parent of r > 0 is r with its lowest set bit cleared; the
 * children of r are r + 2^k for every 2^k below that bit (below N for the root). Each tensor
 * is cut into slices (units.h) and every slice is pipelined on its own: it goes up to the
 * parent once the worker's own gradient is ready and every child's partial sum of the slice
 * has arrived; the root, holding the full sum, sends it down to its children (the largest
 * subtree first), and every worker forwards what it receives from its parent to its children.
 * Worker r sends S up (r > 0) and S to each child: every edge carries the tensor once each
 * way, 2(N-1)S in all, as the ring; but the root sends log2(N) S where a ring member sends
 * 2(N-1)/N S. Edges between GPUs of one host take the intra-host interconnect (intra.h); with
 * workers listed host by host, the low levels of the tree stay inside the hosts.
 *
 * NCCL's trees are double binary trees (two complementary trees, each carrying half of the
 * data, so that no node sends more than the ring's share); ddlsim models the simpler binomial
 * tree. */
#include "models/ddl/arch.h"

#include <stdlib.h>

#include "models/ddl/collective.h"
#include "models/ddl/intra.h"
#include "models/ddl/transfer.h"
#include "models/ddl/units.h"
#include "sim/util.h"

enum { TREE_UP = 1, TREE_DOWN = 2 };

/* The lowest set bit of r; for the root, the first power of two not below n. */
static uint32_t span_of(uint32_t r, uint32_t n)
{
    if (r)
        return r & -r;
    uint32_t s = 1;
    while (s < n)
        s <<= 1;
    return s;
}

static uint32_t nchildren(uint32_t r, uint32_t n)
{
    uint32_t c = 0;
    for (uint32_t k = 1; k < span_of(r, n) && r + k < n; k <<= 1)
        c++;
    return c;
}

/* Unit u is complete at worker r: its share of the broadcast goes on to its children. */
static void unit_done(struct ddl_job *job, uint32_t r, uint32_t u, uint32_t iter)
{
    struct ddl_ucoll *t = job->ucoll;
    struct ddl_unit_state *tw = &t->w[r];
    uint32_t n = job->nworkers;
    for (uint32_t k = span_of(r, n) >> 1; k >= 1; k >>= 1) {
        if (r + k < n)
            ddl_unit_send(job, u, r, r + k, iter, TREE_DOWN);
    }
    tw->own[u] = 0;
    tw->got[u] = 0;
    uint32_t layer = t->us.layer_of[u];
    if (ddl_unit_layer_done(tw, &t->us, layer))
        ddl_coll_done(t->coll, &job->workers[r], layer, iter);
}

/* Worker r's partial sum of unit u goes up once its gradient and its children's sums are in. */
static void try_up(struct ddl_job *job, uint32_t r, uint32_t u)
{
    struct ddl_unit_state *tw = &job->ucoll->w[r];
    if (!tw->own[u] || tw->got[u] < nchildren(r, job->nworkers))
        return;
    if (r == 0) {
        unit_done(job, 0, u, tw->iter[u]);
        return;
    }
    tw->own[u] = 0; /* sent: the next arrivals are of the next iteration */
    tw->got[u] = 0;
    ddl_unit_send(job, u, r, r & (r - 1), tw->iter[u], TREE_UP);
}

static void tree_start(struct ddl_job *job, uint32_t w, uint32_t layer, uint32_t iter)
{
    ddl_ucoll_start(job, w, layer, iter, try_up);
}

static void tree_delivered(struct ddl_job *job, struct ddl_item *it)
{
    struct ddl_ucoll *t = job->ucoll;
    uint32_t u = t->us.base[it->layer] + it->chunk;
    if (it->phase == TREE_DOWN) {
        unit_done(job, it->dst, u, it->iter);
        return;
    }
    t->w[it->dst].got[u]++;
    try_up(job, it->dst, u);
}

/* Every host has DDL source ports for its GPUs' tree edges to other hosts. */
static int check_ports(struct ddl_job *job, struct host **wh, struct diag *d)
{
    uint32_t n = job->nworkers, peers = 0;
    int errors = 0;
    for (uint32_t r = 0; r < n; r++) {
        if (r > 0 && ddl_host_of(job, r) != ddl_host_of(job, r & (r - 1)))
            peers++;
        for (uint32_t k = 1; k < span_of(r, n) && r + k < n; k <<= 1)
            peers += ddl_host_of(job, r) != ddl_host_of(job, r + k);
        if (r + 1 == n || ddl_host_of(job, r + 1) != ddl_host_of(job, r)) {
            errors += ddl_check_ports(job, wh[r], peers, d);
            peers = 0;
        }
    }
    return errors;
}

static int tree_init(struct ddl_job *job, struct host **wh, struct host **sh, struct diag *d)
{
    (void)sh;
    if (ddl_coll_check_workers(job, d) || check_ports(job, wh, d))
        return 1;
    ddl_ucoll_create(job, tree_start);
    return 0;
}

const struct ddl_arch_ops ddl_arch_tree = {
    .init = tree_init,
    .fini = ddl_ucoll_destroy,
    .grad_ready = ddl_ucoll_grad_ready,
    .delivered = tree_delivered,
};
