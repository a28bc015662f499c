/* A distributed training job: workers that compute a DNN layer by layer and exchange gradients
 * and parameters with parameter servers (arch: ps, ps.c) or among themselves (arch: allreduce,
 * ring.c), over message connections (transfer.c, msg.h) on any transport. This header holds the
 * job's data model, shared by its parts: setup (job.c), the host scheduler (scheduler.c), the
 * workers' compute loop (worker.c), the architectures (struct ddl_arch_ops), and the metrics
 * (metrics.c).
 *
 * Worker, per iteration t: forward of layer i starts when forward i-1 is done and layer i's
 * parameters from iteration t-1 have arrived (iteration 0 starts at once); backward runs from the
 * last layer to the first; the gradient of layer i is ready when its backward step ends and is
 * cut into chunks of at most `chunk` bytes. Iteration t+1 begins when backward of layer 0 ends.
 *
 * Host schedulers (at workers and servers): fifo releases chunks in the order they become ready;
 * priority (P3 / ByteScheduler) keeps them in a queue ordered by layer (input side first),
 * releases while the bytes in flight (sent, not yet acknowledged) stay under `credit`, and so
 * preempts at chunk boundaries. Every DDL packet carries the shim header (ddl_shim.h) and the
 * layer's priority as its packet priority.
 *
 * Parameter servers own tensors (round robin or size-balanced). Synchronous: a chunk is
 * aggregated when every worker's copy arrived (cost on the server CPU: fixed + bytes at
 * aggregation_bw), then sent to every worker. Asynchronous: each push is aggregated and sent back
 * to its worker at once.
 *
 * Metrics (docs in README): tensor latency (push: gradient ready → last byte at the server;
 * pull: tensor aggregated → last byte at the worker), network blocking time per tensor (sum of its
 * packets' blocking, tmgr.h), iteration time, samples/s, and per burst (a worker's pushes of one
 * iteration) completion time, start queue length and throughput. */
#ifndef SIM_MODELS_DDL_JOB_H
#define SIM_MODELS_DDL_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <gsl/gsl_rng.h>
#include <jansson.h>

#include "models/ddl/dnn.h"
#include "models/ddl/pcn_signal.h"
#include "models/net/host.h"
#include "models/transport/msg.h"
#include "sim/arena.h"
#include "sim/param.h"
#include "sim/pool.h"
#include "sim/stats.h"

/* Workers (and servers) of a job: the shim's 16-bit worker field numbers 0..65535. A parameter
 * server opens one connection per worker and a host has 256 DDL source ports, so parameter
 * server jobs stop far below this (ddl_check_ports); a ring opens one per worker. */
#define DDL_MAX_HOSTS 65536u

enum ddl_arch {
    DDL_ARCH_PS = 0,
    DDL_ARCH_ALLREDUCE = 1,
    DDL_ARCH_INC = 2,
    DDL_ARCH_LIBRA = 3,
};

enum ddl_sched {
    DDL_SCHED_FIFO = 0,
    DDL_SCHED_PRIORITY = 1,
};

enum ddl_shard {
    DDL_SHARD_ROUND_ROBIN = 0,
    DDL_SHARD_BALANCED = 1,
};

/* The all-reduce algorithm of arch allreduce (`collective:`). */
enum ddl_collective {
    DDL_COLL_RING = 0,         /* flat ring over every GPU (ring.c) */
    DDL_COLL_TREE = 1,         /* binomial tree: reduce to GPU 0, broadcast back (tree.c) */
    DDL_COLL_HIERARCHICAL = 2, /* chain reduce in each host, ring of hosts, chain broadcast */
};

struct ddl_job_cfg {
    const char *name;
    int arch;
    const struct cfg_node *model;
    double compute_scale;
    double jitter;        /* a worker's compute time of an iteration x U[1 - jitter, 1 + jitter] */
    const struct cfg_node *layer_overrides;
    int64_t batch; /* 0 = the model's */
    const struct cfg_node *workers;
    const struct cfg_node *servers;
    int64_t iterations;
    sim_time_t start_ps;
    uint64_t chunk_bytes; /* 0 = whole tensors */
    uint64_t slice_bytes; /* allreduce: pipelining unit of a ring step; 0 = whole segments */
    /* allreduce collective costs (collective.h) */
    sim_time_t cycle_ps;   /* negotiation cycle; 0 = none */
    uint64_t fusion_bytes; /* fusion buffer; 0 = one collective per tensor */
    sim_time_t launch_ps;  /* per collective */
    sim_time_t step_latency_ps; /* per ring message, before the successor may use it */
    double contention;     /* compute slowdown while communicating: x (1 + contention) */
    int64_t gpus;          /* GPUs (workers) per listed host */
    int collective;        /* enum ddl_collective */
    uint64_t intra_bps;    /* intra-host interconnect, per GPU and direction (intra.h) */
    sim_time_t intra_latency_ps;
    int sched;
    uint64_t credit_bytes; /* priority: bytes in flight per sender; 0 = unlimited */
    int64_t levels;        /* priority levels layers map onto */
    int64_t groups;        /* connections per peer pair, one traffic class each */
    int sharding;
    bool sync;
    sim_time_t agg_fixed_ps;
    uint64_t agg_bps; /* 0 = free */
    const char *transport;
    const struct cfg_node *transport_params;
    int preset;
    struct msg_cost cost;
    struct ddl_pcn_cfg pcn;
    const struct cfg_node *inc;    /* arch inc, libra: in-network aggregation (inc.h) */
    const struct cfg_node *sparse; /* arch libra: the sparse workload (sparse.h) */
    int64_t id;
};

extern const struct param_def ddl_job_params[];
extern const size_t ddl_job_nparams;

struct ddl_job;
struct ddl_sender;
struct ddl_ring;
struct ddl_item;
struct ddl_worker;
struct ddl_peer;
struct ddl_intra_chan;
struct ddl_ucoll;

/* An architecture: how gradients become parameters (parameter servers, ring all-reduce, ...).
 * A plug-in table; the job calls only these. */
struct ddl_arch_ops {
    /* Hooks only: the name, servers, PCN bursts and where a chunk goes are properties of the
     * job's `arch:` and `collective:` (job.c's tables: ddl_arch_name, ddl_arch_bursts,
     * ddl_to_successor). */
    /* Connections and the architecture's state, once the hosts are known (servers: NULL when
     * the architecture has none). Returns the number of errors. */
    int (*init)(struct ddl_job *job, struct host **workers, struct host **servers,
                struct diag *d);
    void (*fini)(struct ddl_job *job);
    /* Worker w's gradient of `layer` (current iteration) is ready to leave. */
    void (*grad_ready)(struct ddl_worker *w, uint32_t layer);
    /* A chunk arrived at the other end of its connection. */
    void (*delivered)(struct ddl_job *job, struct ddl_item *it);
    /* Optional: the architecture's own statistics in summary.json. */
    void (*json)(const struct ddl_job *job, json_t *o);
};

/* One chunk on its way: a push (worker → server), a pull (server → worker) or a ring step. */
struct ddl_item {
    struct ddl_item *next;
    struct ddl_sender *sender;
    struct msg_conn *conn;
    uint64_t bytes;
    uint64_t seq;
    sim_time_t ready_ps; /* pull: when the server had the chunk aggregated */
    uint32_t layer;
    uint32_t chunk;
    uint32_t worker;
    uint32_t server;
    uint32_t iter;
    uint32_t step; /* ring: step of the all-reduce */
    uint32_t dst;  /* the receiving worker (set by ddl_send) */
    sim_time_t at_ps; /* intra-host: when it arrives */
    uint8_t prio;
    uint8_t phase; /* tree: up or down; hierarchical: ring, intra reduce or intra broadcast */
    bool pull;
    bool burst_first;
    bool acked;
    bool delivered;
};

/* A host's scheduler of outgoing chunks (fifo or priority with a credit window). */
struct ddl_sender {
    struct ddl_job *job;
    struct ddl_item *head; /* pending, in release order */
    uint64_t inflight;     /* released, not yet acknowledged */
    uint64_t seq;
};

/* Network blocking of a tensor in flight: its packets' sum, and the packet that arrived last,
 * which is on the tensor's critical path. */
struct ddl_blk {
    sim_time_t last;
    sim_time_t sum;
};

struct ddl_worker {
    struct ddl_job *job;
    uint32_t idx;
    struct host *host;
    struct ddl_sender tx;
    struct msg_conn **push; /* [nservers * groups] (ps); [groups] to the ring successor */
    struct ddl_peer *peers; /* tree, hierarchical: connections made on first use */
    uint32_t npeers;
    struct ddl_intra_chan *intra; /* its egress on the host's GPU interconnect (intra.h) */
    uint32_t iter;          /* iteration being computed */
    uint32_t layer;         /* layer being computed */
    bool backward;
    bool computing;
    bool compute_done; /* all iterations computed */
    uint32_t comm_active; /* all-reduces of this worker in flight (compute contention) */
    sim_time_t gpu_left_ps; /* the compute step's work left at gpu_mark_ps, uncontended */
    sim_time_t gpu_mark_ps;
    double gpu_factor;      /* its current slowdown */
    bool done;         /* and every parameter of the last iteration arrived */
    struct evq_timer gpu;
    double speed;           /* this iteration's compute time factor (compute_jitter) */
    uint32_t *params_iter;   /* [L]: forward of iteration t may use layer l when ≥ t */
    uint32_t *pull_left;     /* [L]: chunks of the outstanding pull still missing */
    uint32_t *push_left;     /* [L]: chunks of the outstanding push not yet at their server */
    sim_time_t *push_ready;  /* [L] */
    sim_time_t *pull_ready;  /* [L]: latest aggregation time among the pull's chunks */
    struct ddl_blk *push_blk; /* [L]: blocking of the outstanding push */
    struct ddl_blk *pull_blk; /* [L]: blocking of the outstanding pull */
    sim_time_t iter_start;
    /* the current burst: this worker's pushes of one iteration */
    uint32_t burst_iter;
    bool burst_started;
    uint32_t burst_left; /* tensors of the burst not yet delivered */
    uint64_t burst_bytes;
    sim_time_t burst_first_tx;
    uint32_t burst_start_queue;
    bool burst_seen_first;
};

struct ddl_server {
    struct ddl_job *job;
    uint32_t idx;
    struct host *host;
    struct ddl_sender tx;
    struct msg_conn **pull; /* [nworkers * groups] */
    uint32_t *recv;         /* [chunks]: pushes of the chunk's current iteration */
    uint32_t *agg_left;     /* [L]: chunks of the layer not yet aggregated this iteration */
};

/* Aggregation work on a server's CPU (from a pool). */
struct ddl_agg {
    struct hostcpu_job job;
    struct ddl_server *server;
    uint32_t layer;
    uint32_t chunk;
    uint32_t iter;
    uint32_t worker; /* async: the pushing worker */
};

struct ddl_out {
    FILE *tensors;
    FILE *iterations;
    FILE *bursts;
};

struct ddl_job {
    struct sim *sim;
    struct arena arena; /* the job itself and the tables of its set-up, freed at the end */
    struct ddl_job_cfg cfg;
    char *name;
    struct dnn_model *model;
    uint32_t L;
    uint32_t *nchunks;    /* [L] */
    uint32_t *chunk_base; /* [L]: index of the layer's first chunk */
    uint32_t nchunks_total;
    uint32_t *server_of;  /* [L] */
    uint8_t *prio_of;     /* [L] */
    uint8_t group_of[8];  /* priority -> connection group */
    uint8_t class_of[8];  /* connection group -> traffic class (NIC queue, PFC class) */
    struct ddl_worker *workers;
    uint32_t nworkers;    /* GPUs: hosts listed x gpus, worker w on host w / gpus */
    uint32_t wide_conns;  /* connections made with an end past worker 1,023 (their index) */
    uint32_t gpus;        /* per host */
    struct ddl_server *servers;
    uint32_t nservers;
    const struct ddl_arch_ops *arch;
    bool to_successor; /* ddl_to_successor, kept: read for every packet received */
    const struct flow_ops *tp;
    void *tp_cfg;
    struct pool items;
    gsl_rng *jitter_rng; /* compute_jitter draws; NULL without jitter */
    struct pool aggs;
    struct evq_timer start;
    uint32_t workers_done;
    sim_time_t end_ps;
    struct ddl_out out;
    struct ddl_ring *ring; /* allreduce state (ring.c) */
    struct ddl_ucoll *ucoll; /* collective tree or hierarchical (units.h) */
    struct ddl_pcn *pcn;   /* PCN signalling (pcn_signal.c), NULL without */
    struct inc *inc;       /* in-network aggregation state (inc.c; libra.c) */
    struct libra *libra;   /* libra's sparse model and cold path (libra.c) */
    /* summary statistics, seconds */
    struct stats iter_time;
    struct stats *push_lat; /* [L] */
    struct stats *pull_lat; /* [L] */
    struct stats *push_blk; /* [L]: critical-path blocking (the last packet's) */
    struct stats *pull_blk; /* [L] */
    struct stats *push_blk_sum; /* [L]: sum over the tensor's packets */
    struct stats *pull_blk_sum; /* [L] */
    struct stats bct;
    struct stats burst_tput; /* bits/s */
    struct stats start_queue; /* bytes */
    uint64_t bytes_sent;      /* payload bytes released to connections (the network) */
    uint64_t intra_bytes;     /* payload bytes moved inside hosts (never on a NIC) */
    uint64_t *worker_bytes;   /* [nworkers]: bytes each worker sent (allreduce check) */
};

/* Validates a job's configuration and creates it (hosts resolved by name through `find`).
 * Returns NULL after reporting errors. */
struct ddl_job *ddl_job_create(struct sim *sim, const struct cfg_node *m, const char *scenario_file,
                               int64_t id, struct host *(*find)(void *ud, const char *name),
                               void *ud, struct diag *d);
void ddl_job_destroy(struct ddl_job *job);
/* The job's `arch:` as written ("ps", "allreduce", "inc", "libra"). */
const char *ddl_arch_name(const struct ddl_job *job);
/* Whether a worker's pushes of an iteration form a PCN burst (arch ps). */
bool ddl_arch_bursts(const struct ddl_job *job);
/* Whether a chunk from worker w is for worker w + 1 (collective ring), else for w. */
static inline bool ddl_to_successor(const struct ddl_job *job)
{
    return job->to_successor;
}
/* Adds the job's results to a summary.json object (metrics.c). */
void ddl_job_json(const struct ddl_job *job, json_t *o);
/* Prints a short human summary (metrics.c). */
void ddl_job_print(const struct ddl_job *job, FILE *out);
/* Column headers of the CSV files the job writes rows to (job->out). */
extern const char ddl_tensors_header[];
extern const char ddl_iterations_header[];
extern const char ddl_bursts_header[];

#endif
