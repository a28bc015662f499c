/* In-network aggregation (arch: inc, SwitchML/ATP; and the hot part of arch: libra) over
 * p4/programs/aggregation.p4. Shared by inc.c (the workers' slot windows), inc_ps.c (the
 * parameter server's software fallback), inc_pkt.c (packets, values and their quantisation) and
 * inc_switch.c (the switch's multicast group, worker addresses and hot keys).
 *
 * A job's gradient of one iteration is a sequence of B blocks of at most INC_NVALS values; block
 * k of the job's life (iteration k / B) uses slot base + k mod W and copy (k / W) mod 2 of the
 * switch's pool (W = `slots`). A worker sends block k when its gradient is ready and block k − W
 * has come back aggregated (one packet in flight per slot: the self-clocked window); it resends
 * a block whose result has not arrived within `timeout`. Results are checked against the sum of
 * every worker's quantised values. */
#ifndef SIM_MODELS_DDL_INC_H
#define SIM_MODELS_DDL_INC_H

#include "models/ddl/job.h"
#include "models/net/pkt.h"

struct p4_pipe;

#define INC_PORT 0xA66A
#define INC_NVALS 64
#define INC_HDR_BYTES 16
#define INC_PKT_BYTES (ETH_HDR_LEN + IPV4_HDR_LEN + UDP_HDR_LEN + INC_HDR_BYTES + 4 * INC_NVALS)
#define INC_F_RESULT 0x01
#define INC_F_SPARSE 0x02
#define INC_F_FROM_PS 0x04

/* `inc:` of a job (ddlsim describe inc). */
struct inc_cfg {
    int64_t slots;     /* W: the job's window of aggregator slots */
    int64_t slot_base; /* first slot of the switch pool the job uses */
    sim_time_t timeout;
    double loss;       /* probability that a packet a worker sends or receives is lost */
    bool verify;
    bool ecn_window;   /* ATP: the window of blocks in flight reacts to ECN-marked results */
};
extern const struct param_def inc_params[];
extern const size_t inc_nparams;

/* The aggregation header (16 bytes after UDP; aggregation.p4's agg_t). */
struct inc_hdr {
    uint16_t job;
    uint8_t flags;
    uint8_t ver;
    uint32_t idx;
    uint8_t worker;
    uint8_t fanin;
    uint16_t slot; /* the sender's slot in its window (hosts only; the switch ignores it) */
    uint32_t seq;
};

/* Where a block's values come from: layer, first value in the layer, count. */
struct inc_block {
    uint32_t layer;
    uint32_t nvals;
    uint64_t first;
};

struct inc_slot {
    struct evq_timer timer; /* retransmission */
    struct inc_worker *w;
    uint64_t k;  /* block in flight; UINT64_MAX: idle */
};

struct inc_worker {
    struct ddl_worker *dw;
    struct inc *inc;
    struct endpoint ep;
    struct inc_slot *slots; /* [W] */
    uint64_t next;          /* next block to send */
    uint64_t ready;         /* blocks whose gradient is ready */
    uint32_t *left;         /* [L]: blocks of the layer still to come back this iteration */
    uint16_t sport;
    double cwnd;            /* ecn_window: blocks this worker may have in flight */
    uint32_t inflight;
    uint32_t since_cut;     /* results since the window was last halved */
};

/* The parameter server's copy of a slot (software aggregation of fallback packets). */
struct inc_cell {
    uint32_t seen;
    uint32_t count;
    uint32_t seq;
    int32_t vals[INC_NVALS];
};

struct inc_stats {
    uint64_t sent;        /* contributions sent (first copies) */
    uint64_t retx;        /* resent after a timeout */
    uint64_t lost;        /* packets the loss knob dropped */
    uint64_t results_sw;  /* results a worker took from the switch */
    uint64_t results_ps;  /* results a worker took from the server */
    uint64_t dup_results; /* results for a block no longer outstanding */
    uint64_t ps_contrib;  /* contributions the server aggregated (fallback) */
    uint64_t ce;          /* results that arrived ECN-marked */
    uint64_t checked;     /* values compared with the exact sum */
    uint64_t wrong;       /* values that differed */
    uint64_t cuts;        /* ecn_window: times a worker halved its window */
    double cwnd_min;      /* ecn_window: the smallest window any worker had */
};

struct inc {
    struct ddl_job *job;
    struct inc_cfg cfg;
    bool decoded;
    uint32_t W;
    uint64_t B;               /* blocks per iteration */
    struct inc_block *blocks; /* [B], in the order gradients become ready */
    uint64_t *layer_end;      /* [L]: blocks ready once layer l's gradient is (backward order) */
    uint32_t clog2n;          /* ceil(log2(workers)): headroom bits of the quantised sums */
    bool sparse;              /* libra: packets carry key blocks (INC_F_SPARSE) */
    uint32_t *idx_of;         /* libra: [W] the key block each slot carries; NULL: dense */
    struct inc_worker *w;     /* [workers] */
    struct host *ps;
    struct p4_pipe *pipe;     /* the workers' switch */
    struct endpoint ps_ep;
    struct inc_cell *cells;   /* [2 W] */
    int32_t *expect;          /* [2 W][INC_NVALS]: exact sums, computed once per block */
    uint64_t *expect_k;       /* [2 W]: the block `expect` holds (UINT64_MAX: none) */
    gsl_rng *rng;             /* losses */
    uint64_t seed;
    struct inc_stats st;
    /* libra: the block's layer is done (hot part); NULL for dense */
    void (*layer_done)(struct inc *inc, struct inc_worker *w, uint32_t layer, uint32_t iter);
};

/* inc.c: the engine, used by arch inc and libra. `blocks` (B of them) and `layer_end` are
 * the job's (job->arena), like inc's own tables. Returns the number of errors. */
/* Decodes `inc:` into inc->cfg (once; inc_setup does it when nobody did). */
int inc_decode(struct inc *inc, struct ddl_job *job, const struct cfg_node *m, struct diag *d);
int inc_setup(struct inc *inc, struct ddl_job *job, const struct cfg_node *m,
              struct host **wh, struct host *ps, struct inc_block *blocks, uint64_t B,
              uint64_t *layer_end, struct diag *d);
void inc_teardown(struct inc *inc);
/* The blocks up to `ready` (exclusive, counted over the job's life) may go. */
void inc_ready(struct inc *inc, struct inc_worker *w, uint64_t ready);
void inc_stats_json(const struct inc *inc, json_t *o);

/* inc_pkt.c */
void inc_hdr_write(uint8_t *b, const struct inc_hdr *h);
void inc_hdr_read(const uint8_t *b, struct inc_hdr *h);
/* A packet from host `src` to `dst` with the header and values. */
struct pkt *inc_pkt_new(struct sim *sim, const struct host *src, uint32_t dst_ip, uint16_t sport,
                        const struct inc_hdr *h, const int32_t *vals);
/* Worker w's quantised values of block k (INC_NVALS, zero beyond the block). */
void inc_values(const struct inc *inc, uint32_t worker, uint64_t k, int32_t *q);
/* The exact sum over every worker of block k's quantised values. */
void inc_expected(const struct inc *inc, uint64_t k, int32_t *sum);

/* inc_ps.c: the server's endpoint (software aggregation of what the switch passed on). */
void inc_ps_recv(struct endpoint *ep, struct host *h, struct pkt *p);

/* inc_switch.c: the workers' switch gets the job's multicast group and worker addresses
 * (and, for libra, hot keys: inc_switch_hot). Returns the number of errors. */
int inc_switch_setup(struct inc *inc, struct host **wh, struct diag *d);
/* Slots in the pool of the aggregation program on host h's switch, or -1 (no such switch). */
int64_t inc_pool_slots(struct host *h);
int inc_switch_hot(struct inc *inc, uint32_t key_block, uint32_t slot, struct diag *d);

#endif
