/* Negotiation cycles, tensor fusion, launch latency and compute contention of an all-reduce
 * job (collective.h). */
#include "models/ddl/collective.h"

#include <stdlib.h>

#include "models/ddl/metrics.h"
#include "models/ddl/worker.h"
#include "sim/util.h"

/* A fused buffer: one collective over `n` tensors, launched `launch` after its tick. */
struct coll_group {
    struct evq_timer timer;
    struct ddl_coll *c;
    struct coll_group *next_free; /* also: the queue of buffers waiting to run */
    uint32_t *layers;    /* [n], capacity L */
    uint32_t n;
    uint32_t *left;      /* [nworkers]: tensors not yet complete at each worker */
    uint32_t workers_left;
};

struct ddl_coll {
    struct ddl_job *job;
    ddl_coll_start_fn *start;
    bool ideal;
    uint32_t *nready;         /* [L]: workers whose gradient is ready, not yet launched */
    uint32_t *ready_iter;     /* [nworkers * L]: the iteration of each worker's gradient */
    uint32_t *scratch;        /* [L] */
    uint32_t *pending;        /* [L]: tensors ready everywhere, waiting for a tick (FIFO) */
    uint32_t npending;
    struct coll_group **group_of; /* [L]: the tensor's active fused buffer */
    struct coll_group *groups;    /* [L] */
    struct coll_group *free;
    struct coll_group *wait_head; /* fused buffers waiting for the running one, in order */
    struct coll_group *wait_tail;
    bool running;
    struct evq_timer tick;
};

static void group_fire(struct sim *sim, struct evq_timer *t)
{
    (void)sim;
    struct coll_group *g = container_of(t, struct coll_group, timer);
    struct ddl_job *job = g->c->job;
    for (uint32_t i = 0; i < g->n; i++) {
        for (uint32_t w = 0; w < job->nworkers; w++) {
            uint32_t l = g->layers[i];
            if (job->workers[w].comm_active++ == 0)
                ddl_worker_comm_changed(&job->workers[w]);
            g->c->start(job, w, l, g->c->ready_iter[(size_t)w * job->L + l]);
        }
    }
}

static struct coll_group *group_new(struct ddl_coll *c)
{
    struct coll_group *g = c->free;
    SIM_ASSERT(g != NULL); /* a tensor is in at most one active buffer: L buffers suffice */
    c->free = g->next_free;
    g->n = 0;
    g->workers_left = c->job->nworkers;
    return g;
}

/* The next waiting buffer runs, `launch` from now. */
static void run_next(struct ddl_coll *c)
{
    struct coll_group *g = c->wait_head;
    if (c->running || !g)
        return;
    c->wait_head = g->next_free;
    if (!c->wait_head)
        c->wait_tail = NULL;
    c->running = true;
    struct ddl_job *job = c->job;
    for (uint32_t w = 0; w < job->nworkers; w++)
        g->left[w] = g->n;
    evq_schedule(&job->sim->evq, &g->timer, job->sim->now + job->cfg.launch_ps);
}

/* Buffers run one at a time, in launch order (Horovod's background thread waits for each). */
static void group_launch(struct ddl_coll *c, struct coll_group *g)
{
    g->next_free = NULL;
    if (c->wait_tail)
        c->wait_tail->next_free = g;
    else
        c->wait_head = g;
    c->wait_tail = g;
    run_next(c);
}

/* A tick: the pending tensors, in ready order, packed into fused buffers. */
static void tick_fire(struct sim *sim, struct evq_timer *t)
{
    (void)sim;
    struct ddl_coll *c = container_of(t, struct ddl_coll, tick);
    struct ddl_job *job = c->job;
    struct coll_group *g = NULL;
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < c->npending; i++) {
        uint32_t l = c->pending[i];
        uint64_t b = job->model->layers[l].bytes;
        if (g && (job->cfg.fusion_bytes == 0 || bytes + b > job->cfg.fusion_bytes)) {
            group_launch(c, g);
            g = NULL;
        }
        if (!g) {
            g = group_new(c);
            bytes = 0;
        }
        g->layers[g->n++] = l;
        c->group_of[l] = g;
        bytes += b;
    }
    if (g)
        group_launch(c, g);
    c->npending = 0;
}

int ddl_coll_check_workers(const struct ddl_job *job, struct diag *d)
{
    if (job->nworkers >= 2)
        return 0;
    diag_error(d, job->cfg.workers->loc, "job '%s': all-reduce needs at least 2 workers",
               job->name);
    return 1;
}

struct ddl_coll *ddl_coll_create(struct ddl_job *job, ddl_coll_start_fn *start)
{
    struct ddl_coll *c = arena_calloc(&job->arena, 1, sizeof(*c));
    const struct ddl_job_cfg *cfg = &job->cfg;
    c->job = job;
    c->start = start;
    c->ideal = cfg->cycle_ps == 0 && cfg->fusion_bytes == 0 && cfg->launch_ps == 0;
    c->nready = arena_calloc(&job->arena, job->L, sizeof(*c->nready));
    c->ready_iter =
        arena_calloc(&job->arena, (size_t)job->nworkers * job->L, sizeof(*c->ready_iter));
    c->scratch = arena_calloc(&job->arena, job->L, sizeof(*c->scratch));
    c->pending = arena_calloc(&job->arena, job->L, sizeof(*c->pending));
    c->group_of = arena_calloc(&job->arena, job->L, sizeof(*c->group_of));
    c->groups = arena_calloc(&job->arena, job->L, sizeof(*c->groups));
    for (uint32_t i = 0; i < job->L; i++) {
        struct coll_group *g = &c->groups[i];
        g->c = c;
        g->layers = arena_calloc(&job->arena, job->L, sizeof(*g->layers));
        g->left = arena_calloc(&job->arena, job->nworkers, sizeof(*g->left));
        evq_timer_init(&g->timer, group_fire, EVQ_PHASE_DEFAULT);
        g->next_free = c->free;
        c->free = g;
    }
    evq_timer_init(&c->tick, tick_fire, EVQ_PHASE_DEFAULT);
    return c;
}

void ddl_coll_destroy(struct ddl_coll *c)
{
    if (!c)
        return;
    struct evq *q = &c->job->sim->evq;
    evq_cancel(q, &c->tick);
    for (uint32_t i = 0; i < c->job->L; i++)
        evq_cancel(q, &c->groups[i].timer);
    /* its tables go with the job's arena */
}

void ddl_coll_ready(struct ddl_coll *c, struct ddl_worker *w, uint32_t layer)
{
    struct ddl_job *job = c->job;
    if (c->ideal) {
        if (w->comm_active++ == 0)
            ddl_worker_comm_changed(w);
        c->start(job, w->idx, layer, w->iter);
        return;
    }
    c->ready_iter[(size_t)w->idx * job->L + layer] = w->iter;
    if (++c->nready[layer] < job->nworkers)
        return;
    c->nready[layer] = 0;
    c->pending[c->npending++] = layer;
    if (job->cfg.cycle_ps == 0) {
        tick_fire(job->sim, &c->tick);
    } else if (!evq_timer_pending(&c->tick)) {
        sim_time_t now = job->sim->now;
        evq_schedule(&job->sim->evq, &c->tick, (now / job->cfg.cycle_ps + 1) * job->cfg.cycle_ps);
    }
}

static void finish(struct ddl_job *job, struct ddl_worker *w, uint32_t layer, uint32_t iter)
{
    ddl_record_tensor(job, w->idx, iter, layer, false, w->push_ready[layer], &w->push_blk[layer]);
    w->push_blk[layer] = (struct ddl_blk){0, 0};
    ddl_worker_params_ready(w, layer, iter);
}

void ddl_coll_done(struct ddl_coll *c, struct ddl_worker *w, uint32_t layer, uint32_t iter)
{
    struct ddl_job *job = c->job;
    SIM_ASSERT(w->comm_active > 0);
    if (--w->comm_active == 0)
        ddl_worker_comm_changed(w);
    struct coll_group *g = c->group_of[layer];
    if (c->ideal || !g) {
        finish(job, w, layer, iter);
        return;
    }
    if (--g->left[w->idx] > 0)
        return;
    /* the whole buffer is reduced here: release it before the worker runs on (its next
     * gradients may start a new buffer with these tensors; launches are timer events, so the
     * scratch copy is not reused before the loop below ends) */
    uint32_t n = g->n;
    uint32_t *layers = c->scratch;
    for (uint32_t i = 0; i < n; i++)
        layers[i] = g->layers[i];
    if (--g->workers_left == 0) {
        for (uint32_t i = 0; i < n; i++)
            c->group_of[layers[i]] = NULL;
        g->next_free = c->free;
        c->free = g;
        c->running = false;
        run_next(c); /* a timer: nothing starts before the loop below ends */
    }
    for (uint32_t i = 0; i < n; i++)
        finish(job, w, layers[i], iter);
}
