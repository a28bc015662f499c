/* A DDL job's setup: its parameters, checks, hosts, tensor layout (chunks, priorities), the
 * workers and the architecture's state; and its teardown. */
#include "models/ddl/job.h"

#include <stdlib.h>
#include <string.h>

#include "models/ddl/arch.h"
#include "models/ddl/intra.h"
#include "models/ddl/metrics.h"
#include "models/ddl/worker.h"
#include "models/transport/transports.h"
#include "sim/util.h"

static const char *const arch_names[] = {"ps", "allreduce", "inc", "libra", NULL};
static const char *const sched_names[] = {"fifo", "priority", NULL};
static const char *const shard_names[] = {"round_robin", "balanced", NULL};
static const char *const coll_names[] = {"ring", "tree", "hierarchical", NULL};

#define JP(f) offsetof(struct ddl_job_cfg, f)
const struct param_def ddl_job_params[] = {
    {"name", PARAM_STRING, JP(name), PARAM_OPTIONAL, NULL, NULL, NULL, "job name"},
    {"arch", PARAM_ENUM, JP(arch), "ps", NULL, NULL, arch_names,
     "ps: parameter servers; allreduce: ring all-reduce among the workers; inc: in-network "
     "aggregation in the switch (aggregation.p4, SwitchML/ATP) with the server as fallback; "
     "libra: sparse model, hot rows aggregated in the switch, cold rows by the server"},
    {"model", PARAM_NODE, JP(model), NULL, NULL, NULL, NULL,
     "vgg16, resnet50, alexnet, inception_v3, a .yaml path, or an inline {name, layers}"},
    {"compute_scale", PARAM_DOUBLE, JP(compute_scale), "1", "0", "1000", NULL,
     "multiplies every compute time (e.g. 4 for a K80)"},
    {"compute_jitter", PARAM_DOUBLE, JP(jitter), "0", "0", "0.9", NULL,
     "each worker's compute time of each iteration is multiplied by a factor drawn uniformly "
     "from [1 - j, 1 + j] (stream job.NAME.jitter): GPUs that do not finish in lockstep"},
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
     "tensors are cut into chunks of at most this (0 = whole tensors); allreduce: a ring step's "
     "segment per piece of N x chunk"},
    {"slice", PARAM_SIZE, JP(slice_bytes), "512KB", "0", NULL, NULL,
     "allreduce: a ring step's segment travels in slices of at most this, each forwarded as soon "
     "as it arrived (0 = whole segments); default NCCL's step, its 4 MiB buffer / 8 steps"},
    {"cycle", PARAM_TIME, JP(cycle_ps), "0", "0", "10s", NULL,
     "allreduce: negotiation cycle: a tensor is launched at the first tick after its gradient "
     "is ready at every worker (0 = no negotiation; Horovod's default was 5ms, 1ms since 0.21)"},
    {"fusion", PARAM_SIZE, JP(fusion_bytes), "0", "0", NULL, NULL,
     "allreduce: tensors launched at one tick are fused into buffers of at most this, one "
     "collective each, whose tensors arrive together (0 = none; Horovod's default 64MB, "
     "128MB since 0.21)"},
    {"launch", PARAM_TIME, JP(launch_ps), "0", "0", "1s", NULL,
     "allreduce: latency of each collective before its first step (negotiation, kernel launch); "
     "with cycle or fusion, collectives run one at a time, each `launch` after the previous one "
     "completed everywhere"},
    {"step_latency", PARAM_TIME, JP(step_latency_ps), "0", "0", "1s", NULL,
     "allreduce: a ring message is usable at its receiver this long after its last byte "
     "(the library's per-step hand-off)"},
    {"contention", PARAM_DOUBLE, JP(contention), "0", "0", "100", NULL,
     "allreduce: compute steps take (1 + contention) times longer while the worker has an "
     "all-reduce in flight (communication kernels share the GPU)"},
    {"gpus_per_host", PARAM_INT, JP(gpus), "1", "1", "64", NULL,
     "allreduce: GPUs (workers) on each listed host; worker w is GPU w mod G of host w / G, and "
     "GPUs of one host exchange chunks over the intra-host interconnect, never the NIC"},
    {"collective", PARAM_ENUM, JP(collective), "ring", NULL, NULL, coll_names,
     "allreduce: ring (flat, over every GPU in list order, as NCCL); tree (binomial: reduce to "
     "GPU 0, broadcast back, pipelined in slices); hierarchical (chain reduce to each host's "
     "first GPU, ring over the hosts, chain broadcast back)"},
    {"intra_bw", PARAM_RATE, JP(intra_bps), "100Gbps", "1Mbps", NULL, NULL,
     "intra-host interconnect rate per GPU and direction: 100Gbps = PCIe 3.0 x16 as measured "
     "(~12.5 GB/s); NVLink 1.0 (P100) 160Gbps per link, NVLink 2.0 (V100) 200Gbps per link"},
    {"intra_latency", PARAM_TIME, JP(intra_latency_ps), "2us", "0", "1ms", NULL,
     "intra-host interconnect latency of a GPU-to-GPU chunk after its last byte"},
    {"scheduler", PARAM_ENUM, JP(sched), "fifo", NULL, NULL, sched_names,
     "host-side order of chunks: ready order, or by layer with a credit window"},
    {"credit", PARAM_SIZE, JP(credit_bytes), "8MB", "0", NULL, NULL,
     "priority scheduler: bytes in flight per sending host (0 = unlimited)"},
    {"priorities", PARAM_INT, JP(levels), "8", "1", "8", NULL,
     "priority levels; layer i of L gets levels-1 - floor(i*levels/L)"},
    {"priority_groups", PARAM_INT, JP(groups), "1", "1", "8", NULL,
     "connections per peer pair, each in its own traffic class (NIC queue, PFC class): priority p "
     "uses group floor(p*groups/priorities); with groups = priorities a packet's NIC queue, PFC "
     "class and tensor priority agree"},
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
    DDL_PCN_PARAMS(struct ddl_job_cfg, pcn),
    {"inc", PARAM_NODE, JP(inc), PARAM_OPTIONAL, NULL, NULL, NULL,
     "arch inc and libra: in-network aggregation settings (ddlsim describe inc)"},
    {"sparse", PARAM_NODE, JP(sparse), PARAM_OPTIONAL, NULL, NULL, NULL,
     "arch libra: the sparse workload and hot set (ddlsim describe sparse)"},
};
const size_t ddl_job_nparams = ARRAY_LEN(ddl_job_params);

/* The `arch:` values, by enum ddl_arch (names: arch_names): the ops (allreduce: its
 * collective's, below), whether the job lists parameter servers, and whether a worker's pushes
 * of an iteration form a PCN burst (bursts.csv). */
static const struct arch_kind {
    const struct ddl_arch_ops *ops;
    bool servers;
    bool bursts;
} archs[] = {
    [DDL_ARCH_PS] = {&ddl_arch_ps, true, true},
    [DDL_ARCH_ALLREDUCE] = {&ddl_arch_ring, false, false},
    [DDL_ARCH_INC] = {&ddl_arch_inc, true, false},
    [DDL_ARCH_LIBRA] = {&ddl_arch_libra, true, false},
};

const char *ddl_arch_name(const struct ddl_job *job)
{
    return arch_names[job->cfg.arch];
}

bool ddl_arch_bursts(const struct ddl_job *job)
{
    return archs[job->cfg.arch].bursts;
}

/* arch allreduce's `collective:` values, by enum ddl_collective (names: coll_names): the ops,
 * and whether a chunk from worker w is for worker w + 1. */
static const struct coll_kind {
    const struct ddl_arch_ops *ops;
    bool to_successor;
} colls[] = {
    [DDL_COLL_RING] = {&ddl_arch_ring, true},
    [DDL_COLL_TREE] = {&ddl_arch_tree, false},
    [DDL_COLL_HIERARCHICAL] = {&ddl_arch_hier, false},
};

static int resolve_hosts(struct diag *d, const struct cfg_node *list, const char *what,
                         struct host *(*find)(void *, const char *), void *ud, struct host ***out,
                         uint32_t *n)
{
    if (!list || list->kind != CFG_SEQ || list->n == 0) {
        diag_error(d, list ? list->loc : (struct src_loc){0}, "%s must be a non-empty list of "
                                                              "hosts", what);
        return 1;
    }
    if (list->n > DDL_MAX_HOSTS) {
        diag_error(d, list->loc, "at most %u %s", DDL_MAX_HOSTS, what);
        return 1;
    }
    *out = xcalloc(list->n, sizeof(**out));
    *n = (uint32_t)list->n;
    int errors = 0;
    uint8_t *seen = NULL; /* by host index: listed already */
    size_t nseen = 0;
    for (size_t i = 0; i < list->n; i++) {
        const struct cfg_node *v = list->items[i];
        struct host *h = v->kind == CFG_SCALAR ? find(ud, v->str) : NULL;
        if (!h) {
            diag_error(d, v->loc, "%s: '%s' is not a host", what,
                       v->kind == CFG_SCALAR ? v->str : "?");
            errors++;
        }
        if (h && h->index >= nseen) {
            size_t grown = MAX(2 * nseen, (size_t)h->index + 1);
            seen = xrealloc(seen, grown);
            memset(seen + nseen, 0, grown - nseen);
            nseen = grown;
        }
        if (h && seen[h->index]) {
            diag_error(d, v->loc, "%s: host '%s' is listed twice", what, v->str);
            errors++;
        }
        if (h)
            seen[h->index] = 1;
        (*out)[i] = h;
    }
    free(seen);
    return errors;
}

/* With G GPUs per host, the job's workers are the hosts' GPUs: wh becomes one entry per GPU. */
static int expand_gpus(struct ddl_job *job, struct host ***wh, struct diag *d)
{
    job->gpus = (uint32_t)job->cfg.gpus;
    if (job->gpus == 1)
        return 0;
    uint64_t n = (uint64_t)job->nworkers * job->gpus;
    if (n > DDL_MAX_HOSTS) {
        diag_error(d, job->cfg.workers->loc, "job '%s': %llu GPUs; at most %u workers", job->name,
                   (unsigned long long)n, DDL_MAX_HOSTS);
        return 1;
    }
    struct host **g = xcalloc(n, sizeof(*g));
    for (uint32_t w = 0; w < n; w++)
        g[w] = (*wh)[w / job->gpus];
    free(*wh);
    *wh = g;
    job->nworkers = (uint32_t)n;
    return 0;
}

static void layout(struct ddl_job *job)
{
    job->nchunks = arena_calloc(&job->arena, job->L, sizeof(*job->nchunks));
    job->chunk_base = arena_calloc(&job->arena, job->L, sizeof(*job->chunk_base));
    job->server_of = arena_calloc(&job->arena, job->L, sizeof(*job->server_of));
    job->prio_of = arena_calloc(&job->arena, job->L, sizeof(*job->prio_of));
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
    /* a group's class is the highest priority it carries, so with one group per priority the
     * class is the priority itself */
    for (int64_t p = 0; p < job->cfg.levels; p++) {
        uint8_t g = (uint8_t)(p * job->cfg.groups / job->cfg.levels);
        job->group_of[p] = g;
        job->class_of[g] = (uint8_t)p;
    }
}

static int check_cfg(struct ddl_job *job, const struct cfg_node *m, struct diag *d)
{
    struct ddl_job_cfg *c = &job->cfg;
    msg_cost_resolve(&c->cost, (enum msg_preset)c->preset, m);
    struct msg_cost tmp;
    const char *t = c->transport ? c->transport : msg_preset((enum msg_preset)c->preset, &tmp);
    job->arch = c->arch == DDL_ARCH_ALLREDUCE ? colls[c->collective].ops : archs[c->arch].ops;
    job->to_successor = c->arch == DDL_ARCH_ALLREDUCE && colls[c->collective].to_successor;
    if (c->arch != DDL_ARCH_ALLREDUCE && (c->gpus > 1 || c->collective != DDL_COLL_RING)) {
        diag_error(d, cfg_key_loc(m, c->gpus > 1 ? "gpus_per_host" : "collective"),
                   "job '%s': %s needs arch allreduce", job->name,
                   c->gpus > 1 ? "gpus_per_host" : "collective");
        return 1;
    }
    job->tp = transport_find(t ? t : "udp");
    if (!job->tp || !job->tp->push) {
        diag_error(d, c->transport ? cfg_get(m, "transport")->loc : cfg_key_loc(m, "preset"),
                   "job '%s': transport '%s' %s", job->name, t ? t : "udp",
                   job->tp ? "cannot carry messages" : "is not available");
        return 1;
    }
    job->tp_cfg = arena_calloc(&job->arena, 1, job->tp->cfg_size);
    param_defaults(job->tp->params, *job->tp->nparams, job->tp_cfg);
    char what[300];
    snprintf(what, sizeof(what), "transport_params of job '%s'", job->name);
    if (param_apply(d, job->tp->params, *job->tp->nparams, c->transport_params, job->tp_cfg, what))
        return 1;
    if (c->groups > c->levels) {
        diag_error(d, cfg_key_loc(m, "priority_groups"),
                   "job '%s': priority_groups (%lld) exceeds priorities (%lld)", job->name,
                   (long long)c->groups, (long long)c->levels);
        return 1;
    }
    if (archs[c->arch].servers && !c->servers) {
        diag_error(d, m->loc, "job '%s': arch %s needs 'servers'", job->name, ddl_arch_name(job));
        return 1;
    }
    if (!archs[c->arch].servers && c->servers) {
        diag_error(d, cfg_key_loc(m, "servers"), "job '%s': arch %s has no servers", job->name,
                   ddl_arch_name(job));
        return 1;
    }
    return 0;
}

struct ddl_job *ddl_job_create(struct sim *sim, const struct cfg_node *m, const char *scenario_file,
                               int64_t id, struct host *(*find)(void *ud, const char *name),
                               void *ud, struct diag *d)
{
    struct arena mem = {0};
    struct ddl_job *job = arena_calloc(&mem, 1, sizeof(*job));
    job->arena = mem;
    job->sim = sim;
    evq_timer_init(&job->start, ddl_job_start, EVQ_PHASE_DEFAULT); /* idle until the end */
    pool_init(&job->items, sizeof(struct ddl_item), 256);
    pool_init(&job->aggs, sizeof(struct ddl_agg), 64);
    char what[64];
    snprintf(what, sizeof(what), "job %lld", (long long)id);
    if (param_decode(d, ddl_job_params, ddl_job_nparams, m, &job->cfg, what))
        goto out_fail;
    job->cfg.id = id;
    job->name = job->cfg.name ? arena_printf(&job->arena, "%s", job->cfg.name)
                              : arena_printf(&job->arena, "job%lld", (long long)id);
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
    if (job->cfg.servers)
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
    if (e) {
        free(wh);
        free(sh);
        goto out_fail;
    }
    layout(job);
    if (job->cfg.jitter > 0) {
        char *stream = xasprintf("job.%s.jitter", job->name);
        job->jitter_rng = sim_rng(sim, stream);
        free(stream);
    }
    if (expand_gpus(job, &wh, d)) {
        free(wh);
        free(sh);
        goto out_fail;
    }
    job->workers = arena_calloc(&job->arena, job->nworkers, sizeof(*job->workers));
    job->worker_bytes = arena_calloc(&job->arena, job->nworkers, sizeof(*job->worker_bytes));
    for (uint32_t i = 0; i < job->nworkers; i++)
        ddl_worker_init(job, &job->workers[i], i, wh[i]);
    ddl_intra_init(job);
    e = job->arch->init(job, wh, sh, d);
    free(wh);
    free(sh);
    if (e || ddl_pcn_init(job, m, d))
        goto out_fail;
    ddl_metrics_init(job);
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
    ddl_pcn_fini(job);
    if (job->arch && job->workers)
        job->arch->fini(job);
    ddl_intra_fini(job);
    for (uint32_t i = 0; job->workers && i < job->nworkers; i++)
        ddl_worker_fini(job, &job->workers[i]);
    ddl_metrics_fini(job);
    dnn_free(job->model);
    pool_fini(&job->items);
    pool_fini(&job->aggs);
    arena_free(&job->arena); /* job itself and the tables of its set-up */
}
