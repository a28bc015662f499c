#include "models/ddl/job.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/ddl/ring.h"
#include "models/ddl/shim.h"
#include "models/transport/transports.h"
#include "sim/util.h"

static const char *const arch_names[] = {"ps", "allreduce", NULL};
static const char *const sched_names[] = {"fifo", "priority", NULL};
static const char *const shard_names[] = {"round_robin", "balanced", NULL};

#define JP(f) offsetof(struct ddl_job_cfg, f)
const struct param_def ddl_job_params[] = {
    {"name", PARAM_STRING, JP(name), PARAM_OPTIONAL, NULL, NULL, NULL, "job name"},
    {"arch", PARAM_ENUM, JP(arch), "ps", NULL, NULL, arch_names,
     "ps: parameter servers; allreduce: ring all-reduce among the workers"},
    {"model", PARAM_NODE, JP(model), NULL, NULL, NULL, NULL,
     "vgg16, resnet50, alexnet, inception_v3, a .yaml path, or an inline {name, layers}"},
    {"compute_scale", PARAM_DOUBLE, JP(compute_scale), "1", "0", "1000", NULL,
     "multiplies every compute time (e.g. 4 for a K80)"},
    {"layers", PARAM_NODE, JP(layer_overrides), PARAM_OPTIONAL, NULL, NULL, NULL,
     "per-layer overrides {layer: {forward, backward, bytes}}"},
    {"batch", PARAM_INT, JP(batch), "0", "0", NULL, NULL,
     "samples per worker per iteration (0 = the model's)"},
    {"workers", PARAM_NODE, JP(workers), NULL, NULL, NULL, NULL, "list of worker hosts"},
    {"servers", PARAM_NODE, JP(servers), PARAM_OPTIONAL, NULL, NULL, NULL,
     "list of parameter server hosts (arch ps)"},
    {"iterations", PARAM_INT, JP(iterations), "3", "1", "10000000", NULL, "training iterations"},
    {"start", PARAM_TIME, JP(start_ps), "0", "0", NULL, NULL, "when the workers start"},
    {"chunk", PARAM_SIZE, JP(chunk_bytes), "4MB", "0", NULL, NULL,
     "tensors are cut into chunks of at most this (0 = whole tensors)"},
    {"scheduler", PARAM_ENUM, JP(sched), "fifo", NULL, NULL, sched_names,
     "host-side order of chunks: ready order, or by layer with a credit window"},
    {"credit", PARAM_SIZE, JP(credit_bytes), "8MB", "0", NULL, NULL,
     "priority scheduler: bytes in flight per sending host (0 = unlimited)"},
    {"priorities", PARAM_INT, JP(levels), "8", "1", "8", NULL,
     "priority levels; layer i of L gets levels-1 - floor(i*levels/L)"},
    {"sharding", PARAM_ENUM, JP(sharding), "round_robin", NULL, NULL, shard_names,
     "tensors to servers: round robin by layer, or size-balanced (largest first)"},
    {"sync", PARAM_BOOL, JP(sync), "true", NULL, NULL, NULL,
     "synchronous (aggregate all workers) or asynchronous updates"},
    {"aggregation_fixed", PARAM_TIME, JP(agg_fixed_ps), "0", "0", "1s", NULL,
     "server CPU time per aggregated chunk"},
    {"aggregation_bw", PARAM_RATE, JP(agg_bps), "0", "0", NULL, NULL,
     "server aggregation speed per chunk byte (0 = free)"},
    {"transport", PARAM_STRING, JP(transport), PARAM_OPTIONAL, NULL, NULL, NULL,
     "flow type of the connections (default: the preset's, or udp)"},
    {"transport_params", PARAM_NODE, JP(transport_params), PARAM_OPTIONAL, NULL, NULL, NULL,
     "parameters of the transport flows"},
    {"preset", PARAM_ENUM, JP(preset), "none", NULL, NULL, msg_preset_names,
     "host cost model (and transport) of a communication system"},
    MSG_COST_PARAMS(struct ddl_job_cfg, cost),
};
const size_t ddl_job_nparams = ARRAY_LEN(ddl_job_params);

const char ddl_tensors_header[] =
    "job,worker,iteration,layer,direction,bytes,ready_s,done_s,latency_s,blocking_s\n";
const char ddl_iterations_header[] = "job,worker,iteration,start_s,end_s,time_s\n";
const char ddl_bursts_header[] = "job,worker,iteration,bytes,first_tx_s,last_rx_s,bct_s,"
                                 "throughput_bps,start_queue_bytes\n";

/* --- items and the host-side scheduler --- */

struct ddl_item *ddl_item_new(struct ddl_job *job)
{
    struct ddl_item *it = pool_get(&job->items);
    memset(it, 0, sizeof(*it));
    return it;
}

static void item_done(struct ddl_job *job, struct ddl_item *it)
{
    if (it->acked && it->delivered)
        pool_put(&job->items, it);
}

/* Priority order: higher priority first, then older iteration, then insertion. */
static bool before(const struct ddl_item *a, const struct ddl_item *b)
{
    if (a->prio != b->prio)
        return a->prio > b->prio;
    if (a->iter != b->iter)
        return a->iter < b->iter;
    return a->seq < b->seq;
}

static void release(struct ddl_sender *s)
{
    struct ddl_job *job = s->job;
    bool prio = job->cfg.sched == DDL_SCHED_PRIORITY;
    while (s->head) {
        struct ddl_item *it = s->head;
        if (prio && job->cfg.credit_bytes && s->inflight > 0 &&
            s->inflight + it->bytes > job->cfg.credit_bytes)
            return;
        s->head = it->next;
        it->next = NULL;
        s->inflight += it->bytes;
        if (!it->pull && job->cfg.arch == DDL_ARCH_PS) {
            struct ddl_worker *w = &job->workers[it->worker];
            if (!w->burst_started || w->burst_iter != it->iter) {
                w->burst_started = true;
                w->burst_iter = it->iter;
                w->burst_seen_first = false;
                it->burst_first = true;
            }
        }
        job->bytes_sent += it->bytes;
        if (!it->pull)
            job->worker_bytes[it->worker] += it->bytes;
        msg_send(it->conn, it->bytes, it);
    }
}

void ddl_sender_add(struct ddl_sender *s, struct ddl_item *it)
{
    it->sender = s;
    it->seq = s->seq++;
    it->next = NULL;
    struct ddl_item **pp = &s->head;
    if (s->job->cfg.sched == DDL_SCHED_PRIORITY) {
        while (*pp && !before(it, *pp))
            pp = &(*pp)->next;
    } else {
        while (*pp)
            pp = &(*pp)->next;
    }
    it->next = *pp;
    *pp = it;
    release(s);
}

/* --- records --- */

void ddl_record_tensor(struct ddl_job *job, uint32_t worker, uint32_t iter, uint32_t layer,
                       bool pull, sim_time_t ready, sim_time_t blk)
{
    sim_time_t now = job->sim->now;
    stats_add(pull ? &job->pull_lat[layer] : &job->push_lat[layer], simtime_sec(now - ready));
    stats_add(pull ? &job->pull_blk[layer] : &job->push_blk[layer], simtime_sec(blk));
    if (job->out.tensors)
        fprintf(job->out.tensors, "%s,%u,%u,%u,%s,%llu,%.9f,%.9f,%.9f,%.9f\n", job->name, worker,
                iter, layer, pull ? "pull" : "push",
                (unsigned long long)job->model->layers[layer].bytes, simtime_sec(ready),
                simtime_sec(now), simtime_sec(now - ready), simtime_sec(blk));
}

/* Iteration t of a worker runs from the start of its forward pass (layer 0 computing) to the
 * start of iteration t+1's forward pass; the last one ends when its parameters have all arrived. */
static void record_iteration(struct ddl_worker *w, uint32_t iter, sim_time_t end)
{
    struct ddl_job *job = w->job;
    stats_add(&job->iter_time, simtime_sec(end - w->iter_start));
    if (job->out.iterations)
        fprintf(job->out.iterations, "%s,%u,%u,%.9f,%.9f,%.9f\n", job->name, w->idx, iter,
                simtime_sec(w->iter_start), simtime_sec(end), simtime_sec(end - w->iter_start));
}

static void record_burst(struct ddl_worker *w)
{
    struct ddl_job *job = w->job;
    sim_time_t now = job->sim->now;
    if (!w->burst_seen_first)
        return; /* the first packet was lost: no start queue or first byte to report */
    double bct = simtime_sec(now - w->burst_first_tx);
    double tput = bct > 0 ? (double)w->burst_bytes * 8.0 / bct : NAN;
    stats_add(&job->bct, bct);
    if (isfinite(tput))
        stats_add(&job->burst_tput, tput);
    stats_add(&job->start_queue, (double)w->burst_start_queue);
    if (job->out.bursts)
        fprintf(job->out.bursts, "%s,%u,%u,%llu,%.9f,%.9f,%.9f,%.6g,%u\n", job->name, w->idx,
                w->burst_iter, (unsigned long long)w->burst_bytes,
                simtime_sec(w->burst_first_tx), simtime_sec(now), bct, tput,
                w->burst_start_queue);
}

/* --- workers: compute --- */

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
    record_iteration(w, w->iter, job->sim->now);
    job->workers_done++;
    if (job->workers_done == job->nworkers)
        job->end_ps = job->sim->now;
}

/* The gradient of `layer` for the current iteration is ready. */
static void grad_ready(struct ddl_worker *w, uint32_t layer)
{
    struct ddl_job *job = w->job;
    if (layer == job->L - 1 && job->cfg.arch == DDL_ARCH_PS) {
        /* the first gradient of the iteration opens its burst */
        w->burst_left = job->L;
        w->burst_bytes = dnn_total_bytes(job->model);
    }
    w->push_ready[layer] = job->sim->now;
    w->push_blk[layer] = 0;
    if (job->cfg.arch == DDL_ARCH_ALLREDUCE) {
        ddl_ring_grad_ready(w, layer);
        return;
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
        it->conn = w->push[it->server];
        ddl_sender_add(&w->tx, it);
    }
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
        grad_ready(w, w->layer);
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
        record_iteration(w, w->iter - 1, job->sim->now);
        w->iter_start = job->sim->now;
    }
    w->computing = true;
    evq_schedule(&job->sim->evq, &w->gpu, job->sim->now + (w->backward ? l->bwd_ps : l->fwd_ps));
}

void ddl_worker_params_ready(struct ddl_worker *w, uint32_t layer, uint32_t iter)
{
    w->params_iter[layer] = iter + 1;
    worker_step(w);
    worker_check_done(w);
}

static void job_start(struct sim *sim, struct evq_timer *t)
{
    struct ddl_job *job = container_of(t, struct ddl_job, start);
    for (uint32_t i = 0; i < job->nworkers; i++) {
        job->workers[i].iter_start = sim->now;
        worker_step(&job->workers[i]);
    }
}

/* --- parameter servers --- */

static void send_pull(struct ddl_server *s, uint32_t worker, uint32_t layer, uint32_t chunk,
                      uint32_t iter)
{
    struct ddl_job *job = s->job;
    struct ddl_item *it = ddl_item_new(job);
    uint64_t off = (uint64_t)chunk * job->cfg.chunk_bytes;
    uint64_t bytes = job->model->layers[layer].bytes;
    it->bytes = job->cfg.chunk_bytes ? MIN(job->cfg.chunk_bytes, bytes - off) : bytes;
    it->layer = layer;
    it->chunk = chunk;
    it->worker = worker;
    it->server = s->idx;
    it->iter = iter;
    it->prio = job->prio_of[layer];
    it->pull = true;
    it->ready_ps = job->sim->now;
    it->conn = s->pull[worker];
    ddl_sender_add(&s->tx, it);
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

/* --- connections: what the message layer tells us --- */

static void on_delivered(struct msg_conn *c, const struct msg *m, void *ud)
{
    (void)c;
    struct ddl_job *job = ud;
    struct ddl_item *it = m->meta;
    it->delivered = true;
    if (job->cfg.arch == DDL_ARCH_ALLREDUCE) {
        ddl_ring_delivered(job, it);
    } else if (it->pull) {
        struct ddl_worker *w = &job->workers[it->worker];
        uint32_t l = it->layer;
        w->pull_ready[l] = MAX(w->pull_ready[l], it->ready_ps);
        if (--w->pull_left[l] == 0) {
            ddl_record_tensor(job, w->idx, it->iter, l, true, w->pull_ready[l], w->pull_blk[l]);
            w->pull_left[l] = job->nchunks[l];
            w->pull_ready[l] = 0;
            w->pull_blk[l] = 0;
            ddl_worker_params_ready(w, l, it->iter);
        }
    } else {
        struct ddl_worker *w = &job->workers[it->worker];
        uint32_t l = it->layer;
        if (--w->push_left[l] == 0) {
            ddl_record_tensor(job, w->idx, it->iter, l, false, w->push_ready[l], w->push_blk[l]);
            if (--w->burst_left == 0)
                record_burst(w);
        }
        server_on_push(&job->servers[it->server], it);
    }
    item_done(job, it);
}

static void on_acked(struct msg_conn *c, const struct msg *m, void *ud)
{
    (void)c;
    struct ddl_job *job = ud;
    struct ddl_item *it = m->meta;
    struct ddl_sender *s = it->sender;
    it->acked = true;
    s->inflight -= it->bytes;
    item_done(job, it);
    release(s);
}

static void tag(struct msg_conn *c, const struct msg *m, uint64_t off, uint32_t len, uint8_t *t,
                struct pkt *p, void *ud)
{
    (void)c;
    (void)len;
    struct ddl_job *job = ud;
    const struct ddl_item *it = m->meta;
    struct ddl_shim s = {
        .flags = (uint8_t)((it->pull ? DDL_FLAG_PULL : 0) |
                           (it->burst_first && off == 0 ? DDL_FLAG_BURST_FIRST : 0)),
        .job = (uint16_t)job->cfg.id,
        .layer = (uint16_t)it->layer,
        .chunk = (uint16_t)it->chunk,
        .worker = (uint16_t)it->worker,
        .priority = it->prio,
        .iteration = it->iter,
    };
    ddl_shim_write(t, &s);
    p->prio = it->prio;
}

static void rx_packet(struct msg_conn *c, const struct pkt *p, const uint8_t *t, void *ud)
{
    (void)c;
    struct ddl_job *job = ud;
    struct ddl_shim s;
    if (!t || !ddl_shim_read(t, &s) || s.worker >= job->nworkers || s.layer >= job->L)
        return;
    struct ddl_worker *w = &job->workers[s.worker];
    if (s.flags & DDL_FLAG_PULL)
        w->pull_blk[s.layer] += p->blocking_ps;
    else
        w->push_blk[s.layer] += p->blocking_ps;
    if ((s.flags & DDL_FLAG_BURST_FIRST) && s.iteration == w->burst_iter) {
        w->burst_seen_first = true;
        w->burst_first_tx = p->t_created;
        w->burst_start_queue = p->qseen_bytes;
    }
}

static struct msg_conn *connect(struct ddl_job *job, const char *what, uint32_t a, uint32_t b,
                                struct host *src, struct host *dst)
{
    char *name = xasprintf("%s.%s%u-%u", job->name, what, a, b);
    struct msg_hooks hooks = {
        .on_delivered = on_delivered,
        .on_acked = on_acked,
        .tag_bytes = DDL_SHIM_BYTES,
        .tag = tag,
        .rx_packet = rx_packet,
        .ddl_port = true,
        .ud = job,
    };
    uint32_t index = (uint32_t)(0x80000000u | ((uint32_t)job->cfg.id << 20) | (a << 10) | b);
    struct msg_conn *c =
        msg_conn_create(job->sim, name, index, src, dst, job->tp, job->tp_cfg, &job->cfg.cost,
                        &hooks);
    free(name);
    return c;
}

/* --- construction --- */

static int resolve_hosts(struct diag *d, const struct cfg_node *list, const char *what,
                         struct host *(*find)(void *, const char *), void *ud, struct host ***out,
                         uint32_t *n)
{
    if (!list || list->kind != CFG_SEQ || list->n == 0) {
        diag_error(d, list ? list->loc : (struct src_loc){0}, "%s must be a non-empty list of "
                                                              "hosts", what);
        return 1;
    }
    if (list->n > 1023) {
        diag_error(d, list->loc, "at most 1023 %s", what);
        return 1;
    }
    *out = xcalloc(list->n, sizeof(**out));
    *n = (uint32_t)list->n;
    int errors = 0;
    for (size_t i = 0; i < list->n; i++) {
        const struct cfg_node *v = list->items[i];
        struct host *h = v->kind == CFG_SCALAR ? find(ud, v->str) : NULL;
        if (!h) {
            diag_error(d, v->loc, "%s: '%s' is not a host", what,
                       v->kind == CFG_SCALAR ? v->str : "?");
            errors++;
        }
        for (size_t k = 0; h && k < i; k++) {
            if ((*out)[k] == h) {
                diag_error(d, v->loc, "%s: host '%s' is listed twice", what, v->str);
                errors++;
            }
        }
        (*out)[i] = h;
    }
    return errors;
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

static void layout(struct ddl_job *job)
{
    job->nchunks = xcalloc(job->L, sizeof(*job->nchunks));
    job->chunk_base = xcalloc(job->L, sizeof(*job->chunk_base));
    job->server_of = xcalloc(job->L, sizeof(*job->server_of));
    job->prio_of = xcalloc(job->L, sizeof(*job->prio_of));
    for (uint32_t l = 0; l < job->L; l++) {
        uint64_t b = job->model->layers[l].bytes;
        uint64_t c = job->cfg.chunk_bytes;
        job->nchunks[l] = c ? (uint32_t)((b + c - 1) / c) : 1;
        job->chunk_base[l] = job->nchunks_total;
        job->nchunks_total += job->nchunks[l];
        /* input side highest: levels-1 - floor(l * levels / L) */
        job->prio_of[l] = (uint8_t)(job->cfg.levels - 1 -
                                    (int64_t)((uint64_t)l * (uint64_t)job->cfg.levels / job->L));
    }
}

static void init_worker(struct ddl_job *job, struct ddl_worker *w, uint32_t i, struct host *h)
{
    uint32_t L = job->L;
    w->job = job;
    w->idx = i;
    w->host = h;
    w->tx.job = job;
    evq_timer_init(&w->gpu, gpu_done, EVQ_PHASE_DEFAULT);
    w->params_iter = xcalloc(L, sizeof(*w->params_iter));
    w->pull_left = xcalloc(L, sizeof(*w->pull_left));
    w->push_left = xcalloc(L, sizeof(*w->push_left));
    w->push_ready = xcalloc(L, sizeof(*w->push_ready));
    w->pull_ready = xcalloc(L, sizeof(*w->pull_ready));
    w->push_blk = xcalloc(L, sizeof(*w->push_blk));
    w->pull_blk = xcalloc(L, sizeof(*w->pull_blk));
    for (uint32_t l = 0; l < L; l++)
        w->pull_left[l] = job->nchunks[l];
}

static int check_cfg(struct ddl_job *job, const struct cfg_node *m, struct diag *d)
{
    struct ddl_job_cfg *c = &job->cfg;
    msg_cost_resolve(&c->cost, (enum msg_preset)c->preset, m);
    struct msg_cost tmp;
    const char *t = c->transport ? c->transport : msg_preset((enum msg_preset)c->preset, &tmp);
    job->tp = transport_find(t ? t : "udp");
    if (!job->tp || !job->tp->push) {
        diag_error(d, c->transport ? cfg_get(m, "transport")->loc : cfg_key_loc(m, "preset"),
                   "job '%s': transport '%s' %s", job->name, t ? t : "udp",
                   job->tp ? "cannot carry messages" : "is not available");
        return 1;
    }
    job->tp_cfg = xcalloc(1, job->tp->cfg_size);
    param_defaults(job->tp->params, *job->tp->nparams, job->tp_cfg);
    char what[300];
    snprintf(what, sizeof(what), "transport_params of job '%s'", job->name);
    if (param_apply(d, job->tp->params, *job->tp->nparams, c->transport_params, job->tp_cfg, what))
        return 1;
    if (c->arch == DDL_ARCH_PS && !c->servers) {
        diag_error(d, m->loc, "job '%s': arch ps needs 'servers'", job->name);
        return 1;
    }
    if (c->arch == DDL_ARCH_ALLREDUCE && c->servers) {
        diag_error(d, cfg_key_loc(m, "servers"), "job '%s': arch allreduce has no servers",
                   job->name);
        return 1;
    }
    return 0;
}

struct ddl_job *ddl_job_create(struct sim *sim, const struct cfg_node *m, const char *scenario_file,
                               int64_t id, struct host *(*find)(void *ud, const char *name),
                               void *ud, struct diag *d)
{
    struct ddl_job *job = xcalloc(1, sizeof(*job));
    job->sim = sim;
    evq_timer_init(&job->start, job_start, EVQ_PHASE_DEFAULT); /* idle until the end */
    pool_init(&job->items, sizeof(struct ddl_item), 256);
    pool_init(&job->aggs, sizeof(struct ddl_agg), 64);
    char what[64];
    snprintf(what, sizeof(what), "job %lld", (long long)id);
    if (param_decode(d, ddl_job_params, ddl_job_nparams, m, &job->cfg, what))
        goto out_fail;
    job->cfg.id = id;
    job->name = job->cfg.name ? xstrdup(job->cfg.name) : xasprintf("job%lld", (long long)id);
    if (check_cfg(job, m, d))
        goto out_fail;
    job->model = dnn_load(job->cfg.model, scenario_file, d);
    if (!job->model ||
        dnn_adjust(job->model, job->cfg.compute_scale, job->cfg.layer_overrides, d))
        goto out_fail;
    job->L = job->model->nlayers;
    if (job->cfg.batch == 0)
        job->cfg.batch = job->model->batch;
    struct host **wh = NULL;
    struct host **sh = NULL;
    int e = resolve_hosts(d, job->cfg.workers, "workers", find, ud, &wh, &job->nworkers);
    if (job->cfg.arch == DDL_ARCH_PS)
        e += resolve_hosts(d, job->cfg.servers, "servers", find, ud, &sh, &job->nservers);
    for (uint32_t i = 0; e == 0 && i < job->nservers; i++) {
        for (uint32_t k = 0; k < job->nworkers; k++) {
            if (sh[i] == wh[k]) {
                diag_error(d, job->cfg.servers->items[i]->loc,
                           "job '%s': '%s' is both a worker and a server", job->name,
                           sh[i]->node.name);
                e++;
            }
        }
    }
    if (e == 0 && job->cfg.arch == DDL_ARCH_ALLREDUCE && job->nworkers < 2) {
        diag_error(d, job->cfg.workers->loc, "job '%s': all-reduce needs at least 2 workers",
                   job->name);
        e++;
    }
    if (e) {
        free(wh);
        free(sh);
        goto out_fail;
    }
    layout(job);
    job->workers = xcalloc(job->nworkers, sizeof(*job->workers));
    job->worker_bytes = xcalloc(job->nworkers, sizeof(*job->worker_bytes));
    for (uint32_t i = 0; i < job->nworkers; i++)
        init_worker(job, &job->workers[i], i, wh[i]);
    if (job->cfg.arch == DDL_ARCH_PS) {
        shard(job);
        job->servers = xcalloc(job->nservers, sizeof(*job->servers));
        for (uint32_t s = 0; s < job->nservers; s++) {
            struct ddl_server *sv = &job->servers[s];
            sv->job = job;
            sv->idx = s;
            sv->host = sh[s];
            sv->tx.job = job;
            sv->recv = xcalloc(job->nchunks_total, sizeof(*sv->recv));
            sv->pull = xcalloc(job->nworkers, sizeof(*sv->pull));
            for (uint32_t w = 0; w < job->nworkers; w++)
                sv->pull[w] = connect(job, "pull", s, w, sh[s], wh[w]);
        }
        for (uint32_t w = 0; w < job->nworkers; w++) {
            job->workers[w].push = xcalloc(job->nservers, sizeof(struct msg_conn *));
            for (uint32_t s = 0; s < job->nservers; s++)
                job->workers[w].push[s] = connect(job, "push", w, s, wh[w], sh[s]);
        }
    } else {
        for (uint32_t w = 0; w < job->nworkers; w++) {
            job->workers[w].push = xcalloc(1, sizeof(struct msg_conn *));
            job->workers[w].push[0] = connect(job, "ring", w, (w + 1) % job->nworkers, wh[w],
                                              wh[(w + 1) % job->nworkers]);
        }
        ddl_ring_init(job);
    }
    free(wh);
    free(sh);
    stats_init(&job->iter_time, 4);
    stats_init(&job->bct, 4);
    stats_init(&job->burst_tput, 4);
    stats_init(&job->start_queue, 4);
    job->push_lat = xcalloc(job->L, sizeof(struct stats));
    job->pull_lat = xcalloc(job->L, sizeof(struct stats));
    job->push_blk = xcalloc(job->L, sizeof(struct stats));
    job->pull_blk = xcalloc(job->L, sizeof(struct stats));
    for (uint32_t l = 0; l < job->L; l++) {
        stats_init(&job->push_lat[l], 4);
        stats_init(&job->pull_lat[l], 4);
        stats_init(&job->push_blk[l], 4);
        stats_init(&job->pull_blk[l], 4);
    }
    job->end_ps = -1;
    evq_schedule(&sim->evq, &job->start, job->cfg.start_ps);
    return job;
out_fail:
    ddl_job_destroy(job);
    return NULL;
}

void ddl_job_destroy(struct ddl_job *job)
{
    if (!job)
        return;
    evq_cancel(&job->sim->evq, &job->start);
    for (uint32_t i = 0; job->workers && i < job->nworkers; i++) {
        struct ddl_worker *w = &job->workers[i];
        evq_cancel(&job->sim->evq, &w->gpu);
        uint32_t nconn = job->cfg.arch == DDL_ARCH_PS ? job->nservers : 1;
        for (uint32_t s = 0; w->push && s < nconn; s++)
            msg_conn_destroy(w->push[s]);
        free(w->push);
        free(w->params_iter);
        free(w->pull_left);
        free(w->push_left);
        free(w->push_ready);
        free(w->pull_ready);
        free(w->push_blk);
        free(w->pull_blk);
    }
    for (uint32_t s = 0; job->servers && s < job->nservers; s++) {
        for (uint32_t w = 0; w < job->nworkers; w++)
            msg_conn_destroy(job->servers[s].pull[w]);
        free(job->servers[s].pull);
        free(job->servers[s].recv);
    }
    if (job->cfg.arch == DDL_ARCH_ALLREDUCE)
        ddl_ring_fini(job);
    free(job->workers);
    free(job->servers);
    free(job->worker_bytes);
    free(job->nchunks);
    free(job->chunk_base);
    free(job->server_of);
    free(job->prio_of);
    free(job->push_lat);
    free(job->pull_lat);
    free(job->push_blk);
    free(job->pull_blk);
    free(job->tp_cfg);
    dnn_free(job->model);
    pool_fini(&job->items);
    pool_fini(&job->aggs);
    free(job->name);
    free(job);
}

/* --- results --- */

static json_t *jnum(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *layer_stats(const struct stats *s, uint32_t L)
{
    json_t *a = json_array();
    for (uint32_t l = 0; l < L; l++)
        json_array_append_new(a, jnum(stats_mean(&s[l])));
    return a;
}

static double mean_over_layers(const struct stats *s, uint32_t L)
{
    double sum = 0;
    uint64_t n = 0;
    for (uint32_t l = 0; l < L; l++) {
        sum += s[l].sum;
        n += s[l].n;
    }
    return n ? sum / (double)n : NAN;
}

void ddl_job_json(const struct ddl_job *job, json_t *o)
{
    double it = stats_mean(&job->iter_time);
    json_object_set_new(o, "name", json_string(job->name));
    json_object_set_new(o, "arch", json_string(arch_names[job->cfg.arch]));
    json_object_set_new(o, "model", json_string(job->model->name));
    json_object_set_new(o, "workers", json_integer(job->nworkers));
    json_object_set_new(o, "servers", json_integer(job->nservers));
    json_object_set_new(o, "transport", json_string(job->tp->type));
    json_object_set_new(o, "scheduler", json_string(sched_names[job->cfg.sched]));
    json_object_set_new(o, "iterations", json_integer(job->cfg.iterations));
    json_object_set_new(o, "completed", json_boolean(job->workers_done == job->nworkers));
    json_object_set_new(o, "end_s", jnum(job->end_ps >= 0 ? simtime_sec(job->end_ps) : NAN));
    json_object_set_new(o, "iteration_time_mean_s", jnum(it));
    json_object_set_new(o, "iteration_time_max_s",
                        jnum(job->iter_time.n ? job->iter_time.max : NAN));
    json_object_set_new(o, "throughput_samples_per_s",
                        jnum((double)job->nworkers * (double)job->cfg.batch / it));
    json_object_set_new(o, "bytes_sent", json_integer((json_int_t)job->bytes_sent));
    json_object_set_new(o, "push_latency_mean_s", jnum(mean_over_layers(job->push_lat, job->L)));
    json_object_set_new(o, "pull_latency_mean_s", jnum(mean_over_layers(job->pull_lat, job->L)));
    json_object_set_new(o, "push_blocking_mean_s",
                        jnum(mean_over_layers(job->push_blk, job->L)));
    json_object_set_new(o, "pull_blocking_mean_s",
                        jnum(mean_over_layers(job->pull_blk, job->L)));
    json_object_set_new(o, "push_latency_by_layer_s", layer_stats(job->push_lat, job->L));
    json_object_set_new(o, "pull_latency_by_layer_s", layer_stats(job->pull_lat, job->L));
    json_object_set_new(o, "push_blocking_by_layer_s", layer_stats(job->push_blk, job->L));
    json_object_set_new(o, "pull_blocking_by_layer_s", layer_stats(job->pull_blk, job->L));
    json_t *b = json_object();
    json_object_set_new(b, "count", json_integer((json_int_t)job->bct.n));
    json_object_set_new(b, "completion_time_mean_s", jnum(stats_mean(&job->bct)));
    json_object_set_new(b, "throughput_mean_bps", jnum(stats_mean(&job->burst_tput)));
    json_object_set_new(b, "start_queue_mean_bytes", jnum(stats_mean(&job->start_queue)));
    json_object_set_new(o, "bursts", b);
}

void ddl_job_print(const struct ddl_job *job, FILE *out)
{
    char t[32];
    double it = stats_mean(&job->iter_time);
    fprintf(out, "\njob %s: %s %s, %u workers%s, %lld iterations, %s, %s scheduler%s\n",
            job->name, job->model->name, arch_names[job->cfg.arch], job->nworkers,
            job->nservers ? "" : "", (long long)job->cfg.iterations, job->tp->type,
            sched_names[job->cfg.sched],
            job->workers_done == job->nworkers ? "" : "  (NOT COMPLETED)");
    if (job->nservers)
        fprintf(out, "  servers %u\n", job->nservers);
    fprintf(out, "  iteration time %s, %.1f samples/s\n",
            sim_time_fmt((sim_time_t)llround(it * 1e12), t, sizeof(t)),
            (double)job->nworkers * (double)job->cfg.batch / it);
    fprintf(out, "  tensor latency push %.3f ms, pull %.3f ms; blocking push %.3f ms, pull %.3f ms\n",
            1e3 * mean_over_layers(job->push_lat, job->L),
            1e3 * mean_over_layers(job->pull_lat, job->L),
            1e3 * mean_over_layers(job->push_blk, job->L),
            1e3 * mean_over_layers(job->pull_blk, job->L));
    if (job->bct.n)
        fprintf(out, "  bursts: %llu, completion %.3f ms, throughput %.3f Gbps, start queue %.0f B\n",
                (unsigned long long)job->bct.n, 1e3 * stats_mean(&job->bct),
                stats_mean(&job->burst_tput) / 1e9, stats_mean(&job->start_queue));
}
