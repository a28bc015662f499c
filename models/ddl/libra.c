/* Libra (arXiv 2205.05243): a parameter server for sparse models whose hot parameters are
 * aggregated in the switch (arch: libra). The model's embedding layer (`sparse.layer`) is a
 * sparse workload (sparse.h): each iteration a worker touches a Zipf-distributed set of rows.
 * The hot rows — the most frequent keys of a sample drawn before training, as many as the
 * switch's aggregator slots hold (64/dim rows per slot) — are sent in full by every worker
 * every iteration, as key blocks that the switch's hot_keys table maps to slots (inc.c's slot
 * engine, INC_F_SPARSE); a key block the table does not know goes on to the server. The cold
 * rows a worker touched go to the parameter server as one message (rows and their 8-byte keys),
 * like the dense layers; when every worker's push of a layer has arrived the server aggregates
 * it (aggregation_fixed + bytes at aggregation_bw) and sends each worker its rows back (dense:
 * the layer; embedding: the cold rows that worker touched). The embedding's parameters are
 * ready at a worker when its hot blocks and its cold rows have both come back. With
 * sparse.hot_slots = 0 there is no hot set: every row goes through the server (PS only). */
#include "models/ddl/libra.h"

#include <stdlib.h>
#include <string.h>

#include "models/ddl/arch.h"
#include "models/ddl/metrics.h"
#include "models/ddl/scheduler.h"
#include "models/ddl/transfer.h"
#include "models/ddl/worker.h"
#include "sim/util.h"

#define KEY_BYTES 8

static uint64_t row_bytes(const struct libra *lb)
{
    return (uint64_t)lb->sp.cfg.dim * 4 + KEY_BYTES;
}

static void part_done(struct ddl_job *job, struct ddl_worker *dw, uint32_t iter)
{
    struct libra *lb = job->libra;
    uint32_t l = (uint32_t)lb->sp.cfg.layer;
    if (--lb->emb_left[dw->idx] > 0)
        return;
    ddl_record_tensor(job, dw->idx, iter, l, false, dw->push_ready[l], &dw->push_blk[l]);
    dw->push_blk[l] = (struct ddl_blk){0, 0};
    stats_add(&lb->agg_time, simtime_sec(job->sim->now - dw->push_ready[l]));
    ddl_worker_params_ready(dw, l, iter);
}

static void hot_done(struct inc *inc, struct inc_worker *w, uint32_t layer, uint32_t iter)
{
    (void)layer;
    part_done(inc->job, w->dw, iter);
}

static void push(struct ddl_job *job, struct ddl_worker *w, uint32_t layer, uint64_t bytes)
{
    struct ddl_item *it = ddl_item_new(job);
    it->bytes = bytes;
    it->layer = layer;
    it->worker = w->idx;
    it->iter = w->iter;
    it->prio = job->prio_of[layer];
    it->conn = w->push[job->group_of[it->prio]];
    ddl_sender_add(&w->tx, it);
}

static void libra_grad_ready(struct ddl_worker *w, uint32_t layer)
{
    struct ddl_job *job = w->job;
    struct libra *lb = job->libra;
    if (layer != (uint32_t)lb->sp.cfg.layer) {
        push(job, w, layer, job->model->layers[layer].bytes);
        return;
    }
    uint64_t cold = sparse_cold_rows(&lb->sp, lb->rng[w->idx]);
    lb->cold_rows += cold;
    lb->hot_rows += lb->sp.nhot;
    /* the key list goes even when every row is hot, so the server knows the worker is done */
    lb->cold_bytes[w->idx] = MAX(cold * row_bytes(lb), (uint64_t)KEY_BYTES);
    lb->emb_left[w->idx] = lb->have_hot ? 2 : 1;
    push(job, w, layer, lb->cold_bytes[w->idx]);
    if (lb->have_hot)
        inc_ready(&lb->inc, &lb->inc.w[w->idx], ((uint64_t)w->iter + 1) * lb->inc.B);
}

static void pull(struct ddl_job *job, struct ddl_server *s, uint32_t worker, uint32_t layer,
                 uint32_t iter)
{
    struct libra *lb = job->libra;
    ddl_pull_send(s, worker, layer, 0, iter,
                  layer == (uint32_t)lb->sp.cfg.layer ? lb->cold_bytes[worker]
                                                      : job->model->layers[layer].bytes);
}

static void agg_done(struct sim *sim, struct hostcpu_job *hj)
{
    (void)sim;
    struct ddl_agg *a = container_of(hj, struct ddl_agg, job);
    struct ddl_job *job = a->server->job;
    for (uint32_t w = 0; w < job->nworkers; w++)
        pull(job, a->server, w, a->layer, a->iter);
    pool_put(&job->aggs, a);
}

static void libra_delivered(struct ddl_job *job, struct ddl_item *it)
{
    struct libra *lb = job->libra;
    struct ddl_worker *w = &job->workers[it->worker];
    uint32_t l = it->layer;
    if (it->pull) {
        if (l == (uint32_t)lb->sp.cfg.layer) {
            part_done(job, w, it->iter);
        } else {
            ddl_record_tensor(job, w->idx, it->iter, l, false, w->push_ready[l], &w->push_blk[l]);
            w->push_blk[l] = (struct ddl_blk){0, 0};
            ddl_worker_params_ready(w, l, it->iter);
        }
        return;
    }
    struct ddl_server *s = &job->servers[0];
    lb->push_bytes[l] += it->bytes;
    if (++s->recv[l] < job->nworkers)
        return;
    s->recv[l] = 0;
    struct ddl_agg *a = pool_get(&job->aggs);
    *a = (struct ddl_agg){.server = s, .layer = l, .iter = it->iter};
    a->job.done = agg_done;
    a->job.cost_ps = job->cfg.agg_fixed_ps +
                     (job->cfg.agg_bps ? simtime_tx_ps(lb->push_bytes[l], job->cfg.agg_bps) : 0);
    lb->push_bytes[l] = 0;
    hostcpu_submit(job->sim, &s->host->cpu, &a->job);
}

/* Connections: a push per worker to the server, a pull per worker from it. */
static void connect_all(struct ddl_job *job, struct host **wh, struct host *ps)
{
    uint32_t G = (uint32_t)job->cfg.groups;
    job->nservers = 1;
    job->servers = arena_calloc(&job->arena, 1, sizeof(*job->servers));
    struct ddl_server *sv = &job->servers[0];
    sv->job = job;
    sv->host = ps;
    sv->tx.job = job;
    sv->recv = arena_calloc(&job->arena, job->L, sizeof(*sv->recv));
    sv->pull = arena_calloc(&job->arena, job->nworkers * G, sizeof(*sv->pull));
    for (uint32_t w = 0; w < job->nworkers; w++) {
        job->workers[w].push = arena_calloc(&job->arena, G, sizeof(struct msg_conn *));
        for (uint32_t g = 0; g < G; g++) {
            sv->pull[w * G + g] = ddl_connect(job, "pull", 0, w, g, ps, wh[w]);
            job->workers[w].push[g] = ddl_connect(job, "push", w, 0, g, wh[w], ps);
        }
    }
}

static int libra_init(struct ddl_job *job, struct host **wh, struct host **sh, struct diag *d)
{
    if (job->nservers != 1) {
        diag_error(d, job->cfg.servers->loc,
                   "job '%s': arch libra takes one parameter server, not %u", job->name,
                   job->nservers);
        return 1;
    }
    int errors = ddl_check_ports(job, sh[0], job->nworkers, d);
    for (uint32_t w = 0; w < job->nworkers; w++)
        errors += ddl_check_ports(job, wh[w], 1, d);
    if (errors)
        return errors;
    struct libra *lb = arena_calloc(&job->arena, 1, sizeof(*lb));
    job->libra = lb;
    lb->inc.layer_done = hot_done;
    if (libra_setup(job, lb, wh, sh[0], d))
        return 1;
    connect_all(job, wh, sh[0]);
    return 0;
}

static void libra_fini(struct ddl_job *job)
{
    ddl_ps_fini(job); /* the cold path's connections, one server */
    if (job->libra) {
        libra_teardown(job, job->libra);
        job->libra = NULL;
    }
}

static void libra_json(const struct ddl_job *job, json_t *o)
{
    const struct libra *lb = job->libra;
    json_t *j = json_object();
    double iters = (double)job->nworkers * (double)job->cfg.iterations;
    json_object_set_new(j, "hot_keys", json_integer((json_int_t)lb->sp.nhot));
    json_object_set_new(j, "hot_slots", json_integer((json_int_t)lb->inc.W));
    json_object_set_new(j, "hot_share_sampled", json_real(lb->sp.hot_share));
    json_object_set_new(j, "cold_rows_per_worker_iteration", json_real((double)lb->cold_rows / iters));
    json_object_set_new(j, "hot_rows_per_worker_iteration", json_real((double)lb->hot_rows / iters));
    json_object_set_new(j, "embedding_aggregation_mean_s", json_real(stats_mean(&lb->agg_time)));
    json_object_set_new(o, "libra", j);
    if (lb->have_hot)
        inc_stats_json(&lb->inc, o);
}

const struct ddl_arch_ops ddl_arch_libra = {
    .init = libra_init,
    .fini = libra_fini,
    .grad_ready = libra_grad_ready,
    .delivered = libra_delivered,
    .json = libra_json,
};
