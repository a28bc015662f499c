/* Workers: forward and backward passes layer by layer on the GPU. */
#include "models/ddl/worker.h"

#include <math.h>
#include <stdlib.h>

#include "models/ddl/metrics.h"
#include "models/ddl/transfer.h"
#include "sim/util.h"

static void worker_step(struct ddl_worker *w);

static void worker_check_done(struct ddl_worker *w)
{
    struct ddl_job *job = w->job;
    if (w->done || !w->compute_done)
        return;
    for (uint32_t l = 0; l < job->L; l++) {
        if (w->params_iter[l] < (uint32_t)job->cfg.iterations)
            return;
    }
    w->done = true;
    ddl_record_iteration(w, w->iter, job->sim->now);
    job->workers_done++;
    if (job->workers_done == job->nworkers)
        job->end_ps = job->sim->now;
}

static void gpu_done(struct sim *sim, struct evq_timer *t)
{
    (void)sim;
    struct ddl_worker *w = container_of(t, struct ddl_worker, gpu);
    struct ddl_job *job = w->job;
    w->computing = false;
    if (!w->backward) {
        if (w->layer == job->L - 1)
            w->backward = true;
        else
            w->layer++;
    } else {
        w->push_ready[w->layer] = job->sim->now;
        job->arch->grad_ready(w, w->layer);
        if (w->layer > 0) {
            w->layer--;
        } else if (w->iter + 1 == (uint32_t)job->cfg.iterations) {
            w->compute_done = true;
            worker_check_done(w);
            return;
        } else {
            /* the next iteration's forward pass (its first layer may wait for parameters) */
            w->iter++;
            w->backward = false;
            w->layer = 0;
        }
    }
    worker_step(w);
}

static void worker_step(struct ddl_worker *w)
{
    struct ddl_job *job = w->job;
    if (w->computing || w->compute_done)
        return;
    const struct dnn_layer *l = &job->model->layers[w->layer];
    if (!w->backward && w->params_iter[w->layer] < w->iter)
        return; /* waiting for this layer's parameters */
    if (!w->backward && w->layer == 0 && w->iter > 0) {
        ddl_record_iteration(w, w->iter - 1, job->sim->now);
        w->iter_start = job->sim->now;
    }
    if (!w->backward && w->layer == 0)
        w->speed = job->jitter_rng ? 1.0 + job->cfg.jitter * (2.0 * gsl_rng_uniform(job->jitter_rng) - 1.0)
                                   : 1.0;
    sim_time_t dur = w->backward ? l->bwd_ps : l->fwd_ps;
    if (w->speed != 1.0)
        dur = (sim_time_t)llround((double)dur * w->speed);
    w->computing = true;
    if (!w->backward)
        ddl_pcn_forward(w);
    w->gpu_left_ps = dur;
    w->gpu_mark_ps = job->sim->now;
    w->gpu_factor = w->comm_active ? 1.0 + job->cfg.contention : 1.0;
    sim_time_t t = (sim_time_t)((double)w->gpu_left_ps * w->gpu_factor + 0.5);
    evq_schedule(&job->sim->evq, &w->gpu, job->sim->now + t);
}

void ddl_worker_comm_changed(struct ddl_worker *w)
{
    struct ddl_job *job = w->job;
    double factor = w->comm_active ? 1.0 + job->cfg.contention : 1.0;
    if (!w->computing || factor == w->gpu_factor)
        return;
    /* the work done so far at the old speed; the rest at the new one */
    sim_time_t now = job->sim->now;
    sim_time_t done = (sim_time_t)((double)(now - w->gpu_mark_ps) / w->gpu_factor + 0.5);
    w->gpu_left_ps = done < w->gpu_left_ps ? w->gpu_left_ps - done : 0;
    w->gpu_mark_ps = now;
    w->gpu_factor = factor;
    evq_cancel(&job->sim->evq, &w->gpu);
    evq_schedule(&job->sim->evq, &w->gpu,
                 now + (sim_time_t)((double)w->gpu_left_ps * factor + 0.5));
}

void ddl_worker_params_ready(struct ddl_worker *w, uint32_t layer, uint32_t iter)
{
    w->params_iter[layer] = iter + 1;
    worker_step(w);
    worker_check_done(w);
}

void ddl_job_start(struct sim *sim, struct evq_timer *t)
{
    struct ddl_job *job = container_of(t, struct ddl_job, start);
    for (uint32_t i = 0; i < job->nworkers; i++) {
        job->workers[i].iter_start = sim->now;
        worker_step(&job->workers[i]);
    }
}

void ddl_worker_init(struct ddl_job *job, struct ddl_worker *w, uint32_t i, struct host *h)
{
    uint32_t L = job->L;
    w->job = job;
    w->idx = i;
    w->host = h;
    w->tx.job = job;
    evq_timer_init(&w->gpu, gpu_done, EVQ_PHASE_DEFAULT);
    w->params_iter = arena_calloc(&job->arena, L, sizeof(*w->params_iter));
    w->pull_left = arena_calloc(&job->arena, L, sizeof(*w->pull_left));
    w->push_left = arena_calloc(&job->arena, L, sizeof(*w->push_left));
    w->push_ready = arena_calloc(&job->arena, L, sizeof(*w->push_ready));
    w->pull_ready = arena_calloc(&job->arena, L, sizeof(*w->pull_ready));
    w->push_blk = arena_calloc(&job->arena, L, sizeof(*w->push_blk));
    w->pull_blk = arena_calloc(&job->arena, L, sizeof(*w->pull_blk));
    for (uint32_t l = 0; l < L; l++)
        w->pull_left[l] = job->nchunks[l];
}


void ddl_worker_fini(struct ddl_job *job, struct ddl_worker *w)
{
    evq_cancel(&job->sim->evq, &w->gpu);
    ddl_peers_fini(job, w);
}
