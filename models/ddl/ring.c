/* The ring all-reduce architecture (arch: allreduce): each tensor is cut into pieces of at most
 * N × chunk bytes; a piece is split into N segments and all-reduced in 2(N−1) steps around the
 * ring (reduce-scatter, then all-gather), so each worker sends 2(N−1)/N of the tensor. A step's
 * segment travels as slices of at most `slice` bytes (NCCL pipelines a step in slices the same
 * way), and the ring's data dependency is per slice: slice j of step k leaves a worker when its
 * own gradient is ready and slice j of step k−1 has arrived from its predecessor, so a step does
 * not wait for the whole segment. Slices of different pieces and layers overlap, ordered by the
 * job's host scheduler. The tensor's parameters are ready at a worker when the last all-gather
 * slice of every piece has arrived. */
#include "models/ddl/ring.h"

#include <stdlib.h>

#include "models/ddl/arch.h"
#include "models/ddl/collective.h"
#include "models/ddl/intra.h"
#include "models/ddl/metrics.h"
#include "models/ddl/scheduler.h"
#include "models/ddl/transfer.h"
#include "models/ddl/worker.h"
#include "sim/util.h"

/* A unit is one slice position of one piece: (piece, slice), the ring's unit of dependency. */
struct ddl_ring_worker {
    uint32_t *recv;   /* [units]: steps received from the predecessor this iteration */
    uint32_t *sent;   /* [units]: steps sent */
    uint8_t *own;     /* [units]: own gradient ready */
    uint32_t *iter;   /* [units]: the iteration that gradient is from */
    uint32_t *left;   /* [L]: units of the layer not yet complete here */
};

/* A ring message that arrived, waiting out the step latency. */
struct ring_hop {
    struct evq_timer timer;
    struct ddl_job *job;
    struct ring_hop *next_live;
    struct ring_hop *prev_live;
    uint32_t layer;
    uint32_t unit;
    uint32_t worker;
    uint32_t iter;
};

struct ddl_ring {
    struct ddl_coll *coll; /* flat ring: the collective layer it starts from */
    uint32_t n;            /* members: workers 0, stride, 2 stride, ... */
    uint32_t stride;
    ddl_ring_done_fn *done;
    struct pool hops;
    struct ring_hop *live; /* hops waiting, cancelled at the end */
    uint32_t *npieces; /* [L] */
    uint32_t *nslices; /* [L]: slices per segment (of the layer's largest segment) */
    uint32_t *base;    /* [L]: first unit of the layer */
    uint32_t total;
    uint32_t *layer_of; /* [total] */
    struct ddl_ring_worker *w;
};

static uint64_t piece_bytes(const struct ddl_job *job, uint32_t layer, uint32_t piece)
{
    uint64_t b = job->model->layers[layer].bytes;
    uint64_t span = job->cfg.chunk_bytes ? job->cfg.chunk_bytes * job->ring->n : b;
    uint64_t off = (uint64_t)piece * span;
    return MIN(span, b - off);
}

/* Segment i of a piece of B bytes: B/N each, the first B%N segments one byte more. */
static uint64_t segment_bytes(uint64_t piece, uint32_t n, uint32_t i)
{
    return piece / n + (i < piece % n ? 1 : 0);
}

/* Slice j of a segment of S bytes: `slice` bytes each, the last one the rest (0 past the end). */
static uint64_t slice_bytes(const struct ddl_job *job, uint64_t seg, uint32_t j)
{
    uint64_t sl = job->cfg.slice_bytes;
    if (!sl)
        return seg;
    uint64_t off = (uint64_t)j * sl;
    return off >= seg ? 0 : MIN(sl, seg - off);
}

void ddl_ring_create(struct ddl_job *job, uint32_t n, uint32_t stride, ddl_ring_done_fn *done)
{
    struct ddl_ring *r = arena_calloc(&job->arena, 1, sizeof(*r));
    uint32_t L = job->L;
    r->n = n;
    r->stride = stride;
    r->done = done;
    job->ring = r;
    r->npieces = arena_calloc(&job->arena, L, sizeof(*r->npieces));
    r->nslices = arena_calloc(&job->arena, L, sizeof(*r->nslices));
    r->base = arena_calloc(&job->arena, L, sizeof(*r->base));
    for (uint32_t l = 0; l < L; l++) {
        uint64_t b = job->model->layers[l].bytes;
        uint64_t span = job->cfg.chunk_bytes ? job->cfg.chunk_bytes * n : b;
        r->npieces[l] = (uint32_t)((b + span - 1) / span);
        uint64_t seg = segment_bytes(piece_bytes(job, l, 0), n, 0);
        uint64_t sl = job->cfg.slice_bytes;
        r->nslices[l] = sl && seg > sl ? (uint32_t)((seg + sl - 1) / sl) : 1;
        r->base[l] = r->total;
        r->total += r->npieces[l] * r->nslices[l];
    }
    r->layer_of = arena_calloc(&job->arena, r->total, sizeof(*r->layer_of));
    for (uint32_t l = 0; l < L; l++) {
        for (uint32_t u = 0; u < r->npieces[l] * r->nslices[l]; u++)
            r->layer_of[r->base[l] + u] = l;
    }
    r->w = arena_calloc(&job->arena, n, sizeof(*r->w));
    for (uint32_t i = 0; i < n; i++) {
        struct ddl_ring_worker *rw = &r->w[i];
        rw->recv = arena_calloc(&job->arena, r->total, sizeof(*rw->recv));
        rw->sent = arena_calloc(&job->arena, r->total, sizeof(*rw->sent));
        rw->own = arena_calloc(&job->arena, r->total, sizeof(*rw->own));
        rw->iter = arena_calloc(&job->arena, r->total, sizeof(*rw->iter));
        rw->left = arena_calloc(&job->arena, L, sizeof(*rw->left));
        for (uint32_t l = 0; l < L; l++)
            rw->left[l] = r->npieces[l] * r->nslices[l];
    }
    pool_init(&r->hops, sizeof(struct ring_hop), 256);
}

void ddl_ring_fini(struct ddl_job *job)
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
    for (struct ring_hop *h = r->live; h; h = h->next_live)
        evq_cancel(&job->sim->evq, &h->timer);
    pool_fini(&r->hops);
    ddl_coll_destroy(r->coll);
    job->ring = NULL; /* its tables go with the job's arena */
}

/* Sends every step of unit u (a slice of a piece) that member w may send now. */
static void try_send(struct ddl_job *job, uint32_t w, uint32_t u)
{
    struct ddl_ring *r = job->ring;
    struct ddl_ring_worker *rw = &r->w[w];
    uint32_t n = r->n;
    uint32_t from = w * r->stride;
    uint32_t steps = 2 * (n - 1);
    uint32_t layer = r->layer_of[u];
    uint32_t p = (u - r->base[layer]) / r->nslices[layer];
    uint32_t j = (u - r->base[layer]) % r->nslices[layer];
    while (rw->own[u] && rw->sent[u] < steps && rw->recv[u] >= rw->sent[u]) {
        uint32_t k = rw->sent[u]++;
        /* reduce-scatter step k sends segment (w - k) mod n; all-gather step k sends the
         * segment completed one step earlier, (w - k + 1) mod n */
        uint32_t seg = k < n - 1 ? (w + n - k % n) % n : (w + 1 + n - k % n) % n;
        struct ddl_item *it = ddl_item_new(job);
        it->bytes = slice_bytes(job, segment_bytes(piece_bytes(job, layer, p), n, seg), j);
        it->layer = layer;
        it->chunk = u - r->base[layer];
        it->worker = from;
        it->iter = rw->iter[u]; /* the worker may be computing the next one already */
        it->step = k;
        it->prio = job->prio_of[layer];
        if (it->bytes == 0) /* a tiny piece or a short last segment: a 1-byte token */
            it->bytes = 1;
        struct msg_conn **push = job->workers[from].push;
        ddl_send(job, it, (w + 1) % n * r->stride, push ? push[job->group_of[it->prio]] : NULL);
    }
}

void ddl_ring_start(struct ddl_job *job, uint32_t w, uint32_t layer, uint32_t iter)
{
    struct ddl_ring *r = job->ring;
    uint32_t m = w / r->stride;
    for (uint32_t i = 0; i < r->npieces[layer] * r->nslices[layer]; i++) {
        uint32_t u = r->base[layer] + i;
        r->w[m].own[u] = 1;
        r->w[m].iter[u] = iter;
        try_send(job, m, u);
    }
}

static void ring_grad_ready(struct ddl_worker *w, uint32_t layer)
{
    ddl_coll_ready(w->job->ring->coll, w, layer);
}

/* Step k of unit u (of `layer`, from worker `src`'s gradient of `iter`) is usable at src's
 * successor. */
static void ring_arrived(struct ddl_job *job, uint32_t src, uint32_t layer, uint32_t u,
                         uint32_t iter)
{
    struct ddl_ring *r = job->ring;
    uint32_t n = r->n;
    uint32_t dst = (src / r->stride + 1) % n;
    struct ddl_ring_worker *rw = &r->w[dst];
    rw->recv[u]++;
    if (rw->recv[u] == 2 * (n - 1)) {
        /* the unit is complete here; reset it for the next iteration */
        rw->recv[u] = 0;
        rw->sent[u] = 0;
        rw->own[u] = 0;
        if (--rw->left[layer] == 0) {
            rw->left[layer] = r->npieces[layer] * r->nslices[layer];
            r->done(job, dst * r->stride, layer, iter);
        }
        return;
    }
    try_send(job, dst, u);
}

static void hop_fire(struct sim *sim, struct evq_timer *t)
{
    (void)sim;
    struct ring_hop *h = container_of(t, struct ring_hop, timer);
    struct ddl_job *job = h->job;
    struct ddl_ring *r = job->ring;
    if (h->prev_live)
        h->prev_live->next_live = h->next_live;
    else
        r->live = h->next_live;
    if (h->next_live)
        h->next_live->prev_live = h->prev_live;
    uint32_t src = h->worker, layer = h->layer, u = h->unit, iter = h->iter;
    pool_put(&r->hops, h);
    ring_arrived(job, src, layer, u, iter);
}

void ddl_ring_delivered(struct ddl_job *job, struct ddl_item *it)
{
    struct ddl_ring *r = job->ring;
    uint32_t u = r->base[it->layer] + it->chunk;
    if (job->cfg.step_latency_ps == 0) {
        ring_arrived(job, it->worker, it->layer, u, it->iter);
        return;
    }
    struct ring_hop *h = pool_get(&r->hops);
    *h = (struct ring_hop){.job = job, .layer = it->layer, .unit = u, .worker = it->worker,
                           .iter = it->iter, .next_live = r->live};
    if (r->live)
        r->live->prev_live = h;
    r->live = h;
    evq_timer_init(&h->timer, hop_fire, EVQ_PHASE_DEFAULT);
    evq_schedule(&job->sim->evq, &h->timer, job->sim->now + job->cfg.step_latency_ps);
}

int ddl_ring_connect(struct ddl_job *job, struct host **wh, struct diag *d)
{
    struct ddl_ring *r = job->ring;
    int errors = 0;
    for (uint32_t m = 0; m < r->n; m++) {
        uint32_t w = m * r->stride, next = (m + 1) % r->n * r->stride;
        if (ddl_host_of(job, w) != ddl_host_of(job, next))
            errors += ddl_check_ports(job, wh[w], 1, d);
    }
    for (uint32_t m = 0; !errors && m < r->n; m++) {
        uint32_t w = m * r->stride, next = (m + 1) % r->n * r->stride;
        if (ddl_host_of(job, w) == ddl_host_of(job, next))
            continue; /* GPUs of one host: the intra-host interconnect */
        job->workers[w].push = xcalloc((size_t)job->cfg.groups, sizeof(struct msg_conn *));
        for (uint32_t g = 0; g < job->cfg.groups; g++)
            job->workers[w].push[g] = ddl_connect(job, "ring", w, next, g, wh[w], wh[next]);
    }
    return errors;
}

static void ring_done(struct ddl_job *job, uint32_t w, uint32_t layer, uint32_t iter)
{
    ddl_coll_done(job->ring->coll, &job->workers[w], layer, iter);
}

static int ring_init(struct ddl_job *job, struct host **wh, struct host **sh, struct diag *d)
{
    (void)sh;
    if (ddl_coll_check_workers(job, d))
        return 1;
    ddl_ring_create(job, job->nworkers, 1, ring_done);
    job->ring->coll = ddl_coll_create(job, ddl_ring_start);
    return ddl_ring_connect(job, wh, d);
}

const struct ddl_arch_ops ddl_arch_ring = {
    .init = ring_init,
    .fini = ddl_ring_fini,
    .grad_ready = ring_grad_ready,
    .delivered = ddl_ring_delivered,
};
