/* The parameter-server architecture (arch: ps). Parameter servers own tensors (round robin or
 * size-balanced). A worker's gradient is cut into chunks pushed to the tensor's server.
 * Synchronous: a chunk is aggregated when every worker's copy arrived (cost on the server CPU:
 * fixed + bytes at aggregation_bw), then sent to every worker. Asynchronous: each push is
 * aggregated and sent back to its worker at once. A worker's pushes of one iteration form its
 * burst (PCN's metrics). */
#include "models/ddl/arch.h"

#include <stdlib.h>

#include "models/ddl/metrics.h"
#include "models/ddl/scheduler.h"
#include "models/ddl/transfer.h"
#include "models/ddl/worker.h"
#include "sim/util.h"

/* The gradient of `layer` for the current iteration leaves in chunks to its server. */
static void ps_grad_ready(struct ddl_worker *w, uint32_t layer)
{
    struct ddl_job *job = w->job;
    if (layer == job->L - 1) {
        /* the first gradient of the iteration opens its burst */
        w->burst_left = job->L;
        w->burst_bytes = dnn_total_bytes(job->model);
    }
    w->push_left[layer] = job->nchunks[layer];
    uint64_t left = job->model->layers[layer].bytes;
    for (uint32_t c = 0; c < job->nchunks[layer]; c++) {
        struct ddl_item *it = ddl_item_new(job);
        uint64_t n = job->cfg.chunk_bytes ? MIN(left, job->cfg.chunk_bytes) : left;
        left -= n;
        it->bytes = n;
        it->layer = layer;
        it->chunk = c;
        it->worker = w->idx;
        it->server = job->server_of[layer];
        it->iter = w->iter;
        it->prio = job->prio_of[layer];
        it->conn = w->push[it->server * job->cfg.groups + job->group_of[it->prio]];
        ddl_sender_add(&w->tx, it);
    }
}

static void send_pull(struct ddl_server *s, uint32_t worker, uint32_t layer, uint32_t chunk,
                      uint32_t iter)
{
    struct ddl_job *job = s->job;
    uint64_t off = (uint64_t)chunk * job->cfg.chunk_bytes;
    uint64_t bytes = job->model->layers[layer].bytes;
    ddl_pull_send(s, worker, layer, chunk, iter,
                  job->cfg.chunk_bytes ? MIN(job->cfg.chunk_bytes, bytes - off) : bytes);
}

static void agg_done(struct sim *sim, struct hostcpu_job *hj)
{
    (void)sim;
    struct ddl_agg *a = container_of(hj, struct ddl_agg, job);
    struct ddl_server *s = a->server;
    struct ddl_job *job = s->job;
    if (!job->cfg.sync) {
        send_pull(s, a->worker, a->layer, a->chunk, a->iter);
    } else {
        for (uint32_t w = 0; w < job->nworkers; w++)
            send_pull(s, w, a->layer, a->chunk, a->iter);
    }
    pool_put(&job->aggs, a);
}

static void server_on_push(struct ddl_server *s, struct ddl_item *it)
{
    struct ddl_job *job = s->job;
    uint32_t k = job->chunk_base[it->layer] + it->chunk;
    if (job->cfg.sync && ++s->recv[k] < job->nworkers)
        return;
    s->recv[k] = 0;
    struct ddl_agg *a = pool_get(&job->aggs);
    *a = (struct ddl_agg){.server = s,
                          .layer = it->layer,
                          .chunk = it->chunk,
                          .iter = it->iter,
                          .worker = it->worker};
    a->job.done = agg_done;
    a->job.cost_ps = job->cfg.agg_fixed_ps +
                     (job->cfg.agg_bps ? simtime_tx_ps(it->bytes, job->cfg.agg_bps) : 0);
    hostcpu_submit(job->sim, &s->host->cpu, &a->job);
}

static void ps_delivered(struct ddl_job *job, struct ddl_item *it)
{
    struct ddl_worker *w = &job->workers[it->worker];
    uint32_t l = it->layer;
    if (it->pull) {
        w->pull_ready[l] = MAX(w->pull_ready[l], it->ready_ps);
        if (--w->pull_left[l] == 0) {
            ddl_record_tensor(job, w->idx, it->iter, l, true, w->pull_ready[l], &w->pull_blk[l]);
            w->pull_left[l] = job->nchunks[l];
            w->pull_ready[l] = 0;
            w->pull_blk[l] = (struct ddl_blk){0, 0};
            ddl_worker_params_ready(w, l, it->iter);
        }
        return;
    }
    if (--w->push_left[l] == 0) {
        ddl_record_tensor(job, w->idx, it->iter, l, false, w->push_ready[l], &w->push_blk[l]);
        w->push_blk[l] = (struct ddl_blk){0, 0};
        if (--w->burst_left == 0) {
            ddl_record_burst(w);
            ddl_pcn_burst_end(w);
        }
    }
    server_on_push(&job->servers[it->server], it);
}

static void shard(struct ddl_job *job)
{
    uint64_t *load = xcalloc(job->nservers, sizeof(*load));
    uint32_t *order = xmalloc(job->L * sizeof(*order));
    for (uint32_t l = 0; l < job->L; l++)
        order[l] = l;
    if (job->cfg.sharding == DDL_SHARD_BALANCED) {
        /* largest tensors first, each to the least loaded server (ties: lowest index) */
        for (uint32_t i = 1; i < job->L; i++) {
            for (uint32_t k = i; k > 0; k--) {
                uint64_t a = job->model->layers[order[k]].bytes;
                uint64_t b = job->model->layers[order[k - 1]].bytes;
                if (a <= b)
                    break;
                uint32_t tmp = order[k];
                order[k] = order[k - 1];
                order[k - 1] = tmp;
            }
        }
    }
    for (uint32_t i = 0; i < job->L; i++) {
        uint32_t l = order[i];
        uint32_t s = l % job->nservers;
        if (job->cfg.sharding == DDL_SHARD_BALANCED) {
            s = 0;
            for (uint32_t k = 1; k < job->nservers; k++) {
                if (load[k] < load[s])
                    s = k;
            }
        }
        job->server_of[l] = s;
        load[s] += job->model->layers[l].bytes;
    }
    free(order);
    free(load);
}

static int ps_init(struct ddl_job *job, struct host **wh, struct host **sh, struct diag *d)
{
    uint32_t G = (uint32_t)job->cfg.groups;
    int errors = 0;
    for (uint32_t w = 0; w < job->nworkers; w++)
        errors += ddl_check_ports(job, wh[w], job->nservers, d);
    for (uint32_t s = 0; s < job->nservers; s++)
        errors += ddl_check_ports(job, sh[s], job->nworkers, d);
    if (errors)
        return errors;
    shard(job);
    job->servers = arena_calloc(&job->arena, job->nservers, sizeof(*job->servers));
    for (uint32_t s = 0; s < job->nservers; s++) {
        struct ddl_server *sv = &job->servers[s];
        sv->job = job;
        sv->idx = s;
        sv->host = sh[s];
        sv->tx.job = job;
        sv->recv = arena_calloc(&job->arena, job->nchunks_total, sizeof(*sv->recv));
        sv->pull = arena_calloc(&job->arena, job->nworkers * G, sizeof(*sv->pull));
        for (uint32_t w = 0; w < job->nworkers; w++) {
            for (uint32_t g = 0; g < G; g++)
                sv->pull[w * G + g] = ddl_connect(job, "pull", s, w, g, sh[s], wh[w]);
        }
    }
    for (uint32_t w = 0; w < job->nworkers; w++) {
        job->workers[w].push =
            arena_calloc(&job->arena, job->nservers * G, sizeof(struct msg_conn *));
        for (uint32_t s = 0; s < job->nservers; s++) {
            for (uint32_t g = 0; g < G; g++)
                job->workers[w].push[s * G + g] = ddl_connect(job, "push", w, s, g, wh[w], sh[s]);
        }
    }
    return 0;
}

void ddl_ps_fini(struct ddl_job *job)
{
    uint32_t G = (uint32_t)job->cfg.groups;
    for (uint32_t i = 0; job->workers && i < job->nworkers; i++) {
        struct ddl_worker *w = &job->workers[i];
        for (uint32_t k = 0; w->push && k < job->nservers * G; k++)
            msg_conn_destroy(w->push[k]);
        w->push = NULL;
    }
    for (uint32_t s = 0; job->servers && s < job->nservers; s++) {
        struct ddl_server *sv = &job->servers[s];
        for (uint32_t k = 0; sv->pull && k < job->nworkers * G; k++)
            msg_conn_destroy(sv->pull[k]);
    }
    job->servers = NULL; /* the tables are the job's (job->arena) */
}

const struct ddl_arch_ops ddl_arch_ps = {
    .init = ps_init,
    .fini = ddl_ps_fini,
    .grad_ready = ps_grad_ready,
    .delivered = ps_delivered,
};
