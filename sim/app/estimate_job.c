/* The memory estimate's part for DDL training jobs and hosts' CPU cores (estimate.h): what a
 * job's declaration implies before it is built. A job's workers and servers, the per-layer and
 * per-slice tables of its collective, the connections its architecture opens (each a flow of
 * the estimate, with its timers, in bytes its transport's) and the timers of its own parts.
 * The job's keys are decoded with the job's parameter table, its model loaded (and adjusted) as
 * the builder will; a job whose keys or model do not decode counts with the defaults (the
 * builder reports its errors). */
#include "sim/app/estimate.h"

#include <stdlib.h>
#include <string.h>

#include "models/ddl/dnn.h"
#include "models/ddl/inc.h"
#include "models/ddl/job.h"
#include "models/net/hostcpu.h"

/* Bytes, from the peak RSS of `ddlsim run` of a fat tree k = 16 (program none) with a job
 * starting after `stop: 1ns`, so that the job is built but has sent nothing: a worker of a
 * one-layer model (collective tree, slice 0: no connection exists before the run, one slice)
 * took 0.9-1.0 KB (1,024 workers: 27.5 -> 28.5 MB), and a server counts as one; a worker's
 * tables per layer are 60 bytes (models/ddl/job.h: params_iter, pull_left, push_left,
 * push_ready, pull_ready, push_blk, pull_blk) and 4 for the collective's ready iteration, and a
 * slice (unit) of a pipelined collective 7 bytes per worker (units.h: own, got, iter) or 13 per
 * ring member (ring.c: recv, sent, own, iter) and 4 per job (layer_of). A connection (msg_conn
 * and its data flow) took 3.1 KB over tcp, 1.9 over rdma and 1.5 over udp (a stream draws no
 * random numbers, so it has no generator) in a parameter server job of 256 workers and 4 or 16
 * servers (2,048 and 8,192 connections), and 3.2, 2.0 and 1.5 KB in `check` of one of 200
 * workers and 200 servers on a star (80,000 connections, alexnet: 258, 161 and 125 MB); a
 * rendezvous's request and reply flows are udp's. */
#define EST_CONN_TCP 4000ULL
#define EST_CONN_RDMA 2500ULL
#define EST_CONN_UDP 2000ULL
/* A chunk in flight (struct ddl_item, its message and their share of the stream's state): a
 * parameter server job of 256 workers x 4 servers on that fat tree, starting at 0 with zero
 * compute, has its 64,000 pushes of 4 MB chunks queued at 1 ns: 61.7 MB against 34.4 MB when it
 * starts at 1 s, 427 bytes each. */
#define EST_ITEM 512ULL
#define EST_WORKER 1500ULL
#define EST_WORKER_LAYER 64ULL
#define EST_UNIT 7ULL
#define EST_RING_UNIT 13ULL
/* Timers pending at once: a job's start; a worker's compute step and its PCN burst start, two
 * more with several GPUs per host (the intra-host channel's transmission end and arrival); an
 * all-reduce's negotiation tick and one per fused group (at most a layer each); a ring's step
 * latency one per unit and member (a message waiting out its hand-off); an in-network job's
 * worker one per aggregator slot (its retransmission). */
#define EST_TIMERS_JOB 1ULL
#define EST_TIMERS_WORKER 2ULL
#define EST_TIMERS_INTRA 2ULL

/* Errors found while decoding are the builder's to report: this diag prints none. */
static void quiet(struct diag *d)
{
    diag_init(d, NULL);
    d->max_errors = -1; /* every error is past the limit; the first one's notice never comes */
}

/* The model's layers and the slices (units) of the job's collective over them. */
struct est_model {
    uint64_t layers;
    uint64_t chunks;     /* job.c: a layer cut into chunks of at most `chunk` */
    uint64_t units;      /* units.h: a slice of a layer */
    uint64_t ring_units; /* ring.c: pieces x slices per segment, over `members` */
};

static void model_units(struct est_model *em, const struct ddl_job_cfg *c, const char *file,
                        uint64_t members)
{
    *em = (struct est_model){1, 1, 1, 1};
    struct diag d;
    quiet(&d);
    struct dnn_model *m = c->model ? dnn_load(c->model, file, &d) : NULL;
    if (m && dnn_adjust(m, c->compute_scale, c->layer_overrides, &d)) {
        dnn_free(m);
        m = NULL;
    }
    if (!m)
        return;
    *em = (struct est_model){m->nlayers, 0, 0, 0};
    uint64_t sl = c->slice_bytes;
    for (uint32_t l = 0; l < m->nlayers; l++) {
        uint64_t b = m->layers[l].bytes;
        em->chunks += c->chunk_bytes ? (b + c->chunk_bytes - 1) / c->chunk_bytes : 1;
        em->units += sl && b > sl ? (b + sl - 1) / sl : 1;
        uint64_t span = c->chunk_bytes ? c->chunk_bytes * members : b;
        uint64_t pieces = span ? (b + span - 1) / span : 1;
        uint64_t seg = (b < span ? b : span) / members + 1;
        em->ring_units += (pieces ? pieces : 1) * (sl && seg > sl ? (seg + sl - 1) / sl : 1);
    }
    dnn_free(m);
}

static uint64_t list_len(const struct cfg_node *n)
{
    return n && n->kind == CFG_SEQ ? n->n : 0;
}

/* The connections a job opens, at most, over its run: a parameter server job one each way per
 * worker and server; libra the same with its one server; a ring one per member whose successor
 * is on another host (at most one per listed host); a tree one each way per edge, made when
 * first used; hierarchical a ring over the hosts; inc none (its packets are its own). Each per
 * priority group. */
static uint64_t job_conns(const struct ddl_job_cfg *c, uint64_t hosts, uint64_t n, uint64_t s)
{
    uint64_t g = (uint64_t)c->groups;
    switch (c->arch) {
    case DDL_ARCH_PS:
        return 2 * n * s * g;
    case DDL_ARCH_LIBRA:
        return 2 * n * g;
    case DDL_ARCH_ALLREDUCE:
        if (c->collective == DDL_COLL_TREE)
            return 2 * (n - 1) * g;
        return hosts > 1 ? hosts * g : 0; /* ring, hierarchical */
    default:
        return 0;
    }
}

/* A connection's bytes over the job's transport (its `transport`, else its preset's, else udp:
 * job.c), with a rendezvous's two udp flows. */
static uint64_t conn_bytes(const struct ddl_job_cfg *c)
{
    struct msg_cost tmp;
    const char *t = c->transport ? c->transport : msg_preset((enum msg_preset)c->preset, &tmp);
    uint64_t b = !t || strcmp(t, "udp") == 0 ? EST_CONN_UDP
                 : strcmp(t, "tcp") == 0     ? EST_CONN_TCP
                 : strcmp(t, "rdma") == 0    ? EST_CONN_RDMA
                                             : EST_FLOW;
    return b + (c->cost.control_rtt ? 2 * EST_CONN_UDP : 0);
}

/* Chunks in flight at once, where a bound is tight: a parameter server job's worker pushes each
 * chunk of an iteration once and gets it back once (2 x workers x chunks), a tree's worker sends
 * each slice up once and down to each child (slices x (2 workers - 1)); an item lives until it
 * is both delivered and acknowledged, so the next iteration's may overlap it: twice that with
 * more than one iteration. A ring's slices follow each other around it, far fewer at once than
 * its steps: not counted. */
static uint64_t job_items(const struct ddl_job_cfg *c, const struct est_model *em, uint64_t n)
{
    uint64_t iters = c->iterations > 1 ? 2 : 1;
    if (c->arch == DDL_ARCH_PS)
        return iters * 2 * n * em->chunks;
    if (c->arch == DDL_ARCH_ALLREDUCE && c->collective == DDL_COLL_TREE)
        return iters * em->units * (2 * n - 1);
    return 0;
}

static int64_t inc_slots(const struct ddl_job_cfg *c)
{
    struct inc_cfg ic;
    struct diag d;
    quiet(&d);
    param_defaults(inc_params, inc_nparams, &ic);
    param_apply(&d, inc_params, inc_nparams, c->inc, &ic, "inc");
    return ic.slots;
}

static void add_job(struct estimate *e, const struct cfg_node *m, const char *file)
{
    struct ddl_job_cfg c;
    struct diag d;
    quiet(&d);
    param_defaults(ddl_job_params, ddl_job_nparams, &c);
    param_apply(&d, ddl_job_params, ddl_job_nparams, m, &c, "job");
    msg_cost_resolve(&c.cost, (enum msg_preset)c.preset, m);
    uint64_t hosts = list_len(c.workers);
    uint64_t gpus = c.arch == DDL_ARCH_ALLREDUCE && c.gpus > 1 ? (uint64_t)c.gpus : 1;
    uint64_t n = hosts * gpus;
    uint64_t s = c.arch == DDL_ARCH_LIBRA ? 1 : list_len(c.servers);
    if (n == 0)
        return;
    bool hier = c.arch == DDL_ARCH_ALLREDUCE && c.collective == DDL_COLL_HIERARCHICAL;
    uint64_t members = hier ? hosts : n;
    struct est_model em;
    model_units(&em, &c, file, members);
    /* a rendezvous (control_rtt) adds a request and a reply flow to every connection */
    uint64_t conns = job_conns(&c, hosts, n, s);
    uint64_t flows = conns * (c.cost.control_rtt ? 3 : 1);
    e->workers += n;
    e->servers += s;
    e->flows += flows;
    uint64_t items = job_items(&c, &em, n);
    e->items += items;
    e->job_bytes += (n + s) * (EST_WORKER + em.layers * EST_WORKER_LAYER) + conns * conn_bytes(&c) +
                    items * EST_ITEM;
    uint64_t timers = EST_TIMERS_JOB + n * EST_TIMERS_WORKER + flows * EST_TIMERS_FLOW;
    if (gpus > 1)
        timers += n * EST_TIMERS_INTRA;
    if (c.arch == DDL_ARCH_INC || c.arch == DDL_ARCH_LIBRA)
        timers += n * (uint64_t)inc_slots(&c);
    if (c.arch == DDL_ARCH_ALLREDUCE) {
        timers += 1 + em.layers;
        bool ring = c.collective != DDL_COLL_TREE;
        bool units = c.collective != DDL_COLL_RING;
        e->job_bytes += units ? em.units * (n * EST_UNIT + 4) : 0;
        e->job_bytes += ring ? em.ring_units * (members * EST_RING_UNIT + 4) : 0;
        timers += ring && c.step_latency_ps ? em.ring_units * members : 0;
    }
    e->job_timers += timers;
    e->timers += timers;
}

/* A host's `cpu_cores`, as the builder layers it: its own map, its generator's, the defaults.
 * A core adds a timer, not bytes: struct hostcpu holds HOSTCPU_MAX_CORES cores in place. */
static uint64_t host_cores(const struct decl_node *dn, const struct cfg_node *defaults)
{
    const struct cfg_node *layers[] = {dn->map, dn->gen, defaults};
    for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
        const struct cfg_node *v = layers[i] ? cfg_get(layers[i], "cpu_cores") : NULL;
        if (v && v->kind == CFG_SCALAR) {
            long long k = strtoll(v->str, NULL, 10);
            return k >= 1 && k <= HOSTCPU_MAX_CORES ? (uint64_t)k : 1;
        }
    }
    return 1;
}

void estimate_jobs(struct estimate *e, const struct topo *t, const struct cfg_node *root)
{
    const struct cfg_node *defaults = cfg_get(root, "defaults");
    const struct cfg_node *hd = defaults ? cfg_get(defaults, "host") : NULL;
    for (size_t i = 0; i < t->nnodes; i++) {
        if (t->nodes[i].kind == DECL_HOST)
            e->timers += host_cores(&t->nodes[i], hd) - 1; /* a core's work in progress */
    }
    const struct cfg_node *jobs = cfg_get(root, "jobs");
    for (size_t i = 0; jobs && jobs->kind == CFG_SEQ && i < jobs->n; i++)
        add_job(e, jobs->items[i], root->loc.file);
}
