/* The ring all-reduce architecture (arch: allreduce): each tensor is cut into pieces of at most
 * N × chunk bytes; a piece is split into N segments and all-reduced in 2(N−1) steps around the
 * ring (reduce-scatter, then all-gather), so each worker sends 2(N−1)/N of the tensor. A step at
 * a worker starts when its own gradient is ready and the previous step's segment has arrived from
 * its predecessor; steps of different pieces and layers overlap, ordered by the job's host
 * scheduler. The tensor's parameters are ready at a worker when its last all-gather step of the
 * last piece arrives. */
#include "models/ddl/arch.h"

#include <stdlib.h>

#include "models/ddl/metrics.h"
#include "models/ddl/scheduler.h"
#include "models/ddl/transfer.h"
#include "models/ddl/worker.h"
#include "sim/util.h"

struct ddl_ring_worker {
    uint32_t *recv;   /* [pieces]: steps received from the predecessor this iteration */
    uint32_t *sent;   /* [pieces]: steps sent */
    uint8_t *own;     /* [pieces]: own gradient ready */
    uint32_t *iter;   /* [pieces]: the iteration that gradient is from */
    uint32_t *left;   /* [L]: pieces of the layer not yet complete here */
};

struct ddl_ring {
    uint32_t *npieces; /* [L] */
    uint32_t *base;    /* [L]: first piece of the layer */
    uint32_t total;
    uint32_t *layer_of; /* [total] */
    struct ddl_ring_worker *w;
};

static uint64_t piece_bytes(const struct ddl_job *job, uint32_t layer, uint32_t piece)
{
    uint64_t b = job->model->layers[layer].bytes;
    uint64_t span = job->cfg.chunk_bytes ? job->cfg.chunk_bytes * job->nworkers : b;
    uint64_t off = (uint64_t)piece * span;
    return MIN(span, b - off);
}

/* Segment i of a piece of B bytes: B/N each, the first B%N segments one byte more. */
static uint64_t segment_bytes(uint64_t piece, uint32_t n, uint32_t i)
{
    return piece / n + (i < piece % n ? 1 : 0);
}

static void ring_state_init(struct ddl_job *job)
{
    struct ddl_ring *r = xcalloc(1, sizeof(*r));
    uint32_t L = job->L;
    r->npieces = xcalloc(L, sizeof(*r->npieces));
    r->base = xcalloc(L, sizeof(*r->base));
    for (uint32_t l = 0; l < L; l++) {
        uint64_t b = job->model->layers[l].bytes;
        uint64_t span = job->cfg.chunk_bytes ? job->cfg.chunk_bytes * job->nworkers : b;
        r->npieces[l] = (uint32_t)((b + span - 1) / span);
        r->base[l] = r->total;
        r->total += r->npieces[l];
    }
    r->layer_of = xcalloc(r->total, sizeof(*r->layer_of));
    for (uint32_t l = 0; l < L; l++) {
        for (uint32_t p = 0; p < r->npieces[l]; p++)
            r->layer_of[r->base[l] + p] = l;
    }
    r->w = xcalloc(job->nworkers, sizeof(*r->w));
    for (uint32_t i = 0; i < job->nworkers; i++) {
        struct ddl_ring_worker *rw = &r->w[i];
        rw->recv = xcalloc(r->total, sizeof(*rw->recv));
        rw->sent = xcalloc(r->total, sizeof(*rw->sent));
        rw->own = xcalloc(r->total, sizeof(*rw->own));
        rw->iter = xcalloc(r->total, sizeof(*rw->iter));
        rw->left = xcalloc(L, sizeof(*rw->left));
        for (uint32_t l = 0; l < L; l++)
            rw->left[l] = r->npieces[l];
    }
    job->ring = r;
}

static void ring_fini(struct ddl_job *job)
{
    for (uint32_t w = 0; job->workers && w < job->nworkers; w++) {
        for (uint32_t g = 0; job->workers[w].push && g < job->cfg.groups; g++)
            msg_conn_destroy(job->workers[w].push[g]);
        free(job->workers[w].push);
        job->workers[w].push = NULL;
    }
    struct ddl_ring *r = job->ring;
    if (!r)
        return;
    for (uint32_t i = 0; r->w && i < job->nworkers; i++) {
        free(r->w[i].recv);
        free(r->w[i].sent);
        free(r->w[i].own);
        free(r->w[i].iter);
        free(r->w[i].left);
    }
    free(r->w);
    free(r->layer_of);
    free(r->npieces);
    free(r->base);
    free(r);
    job->ring = NULL;
}

/* Sends every step of `piece` that worker w may send now. */
static void try_send(struct ddl_job *job, uint32_t w, uint32_t piece)
{
    struct ddl_ring *r = job->ring;
    struct ddl_ring_worker *rw = &r->w[w];
    uint32_t n = job->nworkers;
    uint32_t steps = 2 * (n - 1);
    uint32_t layer = r->layer_of[piece];
    uint32_t p = piece - r->base[layer];
    while (rw->own[piece] && rw->sent[piece] < steps && rw->recv[piece] >= rw->sent[piece]) {
        uint32_t k = rw->sent[piece]++;
        /* reduce-scatter step k sends segment (w - k) mod n; all-gather step k sends the
         * segment completed one step earlier, (w - k + 1) mod n */
        uint32_t seg = k < n - 1 ? (w + n - k % n) % n : (w + 1 + n - k % n) % n;
        struct ddl_item *it = ddl_item_new(job);
        it->bytes = segment_bytes(piece_bytes(job, layer, p), n, seg);
        it->layer = layer;
        it->chunk = p;
        it->worker = w;
        it->iter = rw->iter[piece]; /* the worker may be computing the next one already */
        it->step = k;
        it->prio = job->prio_of[layer];
        it->conn = job->workers[w].push[job->group_of[it->prio]];
        if (it->bytes == 0) { /* a tiny piece: nothing to carry, the step is immediate */
            it->bytes = 1;
        }
        ddl_sender_add(&job->workers[w].tx, it);
    }
}

static void ring_grad_ready(struct ddl_worker *w, uint32_t layer)
{
    struct ddl_job *job = w->job;
    struct ddl_ring *r = job->ring;
    for (uint32_t p = 0; p < r->npieces[layer]; p++) {
        uint32_t piece = r->base[layer] + p;
        r->w[w->idx].own[piece] = 1;
        r->w[w->idx].iter[piece] = w->iter;
        try_send(job, w->idx, piece);
    }
}

static void ring_delivered(struct ddl_job *job, struct ddl_item *it)
{
    struct ddl_ring *r = job->ring;
    uint32_t n = job->nworkers;
    uint32_t dst = (it->worker + 1) % n;
    uint32_t piece = r->base[it->layer] + it->chunk;
    struct ddl_ring_worker *rw = &r->w[dst];
    rw->recv[piece]++;
    if (rw->recv[piece] == 2 * (n - 1)) {
        /* the piece is complete here; reset it for the next iteration */
        rw->recv[piece] = 0;
        rw->sent[piece] = 0;
        rw->own[piece] = 0;
        if (--rw->left[it->layer] == 0) {
            struct ddl_worker *w = &job->workers[dst];
            rw->left[it->layer] = r->npieces[it->layer];
            ddl_record_tensor(job, dst, it->iter, it->layer, false, w->push_ready[it->layer],
                              &w->push_blk[it->layer]);
            w->push_blk[it->layer] = (struct ddl_blk){0, 0};
            ddl_worker_params_ready(w, it->layer, it->iter);
        }
        return;
    }
    try_send(job, dst, piece);
}

static int ring_init(struct ddl_job *job, struct host **wh, struct host **sh, struct diag *d)
{
    (void)sh;
    if (job->nworkers < 2) {
        diag_error(d, job->cfg.workers->loc, "job '%s': all-reduce needs at least 2 workers",
                   job->name);
        return 1;
    }
    int errors = 0;
    for (uint32_t w = 0; w < job->nworkers; w++)
        errors += ddl_check_ports(job, wh[w], 1, d);
    if (errors)
        return errors;
    for (uint32_t w = 0; w < job->nworkers; w++) {
        uint32_t next = (w + 1) % job->nworkers;
        job->workers[w].push = xcalloc((size_t)job->cfg.groups, sizeof(struct msg_conn *));
        for (uint32_t g = 0; g < job->cfg.groups; g++)
            job->workers[w].push[g] = ddl_connect(job, "ring", w, next, g, wh[w], wh[next]);
    }
    ring_state_init(job);
    return 0;
}

const struct ddl_arch_ops ddl_arch_ring = {
    .name = "allreduce",
    .bursts = false,
    .to_successor = true,
    .servers = DDL_SERVERS_NONE,
    .init = ring_init,
    .fini = ring_fini,
    .grad_ready = ring_grad_ready,
    .delivered = ring_delivered,
};
