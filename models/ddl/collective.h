/* The collective layer of an all-reduce job, between the workers and the ring: when a tensor's
 * all-reduce starts and when its result counts as arrived, with the costs a real collective
 * library adds on top of moving bytes (Horovod over NCCL):
 * - negotiation cycles (`cycle`): a background thread wakes every cycle; a tensor is launched at
 *   the first tick after its gradient is ready at every worker (Horovod's coordinator);
 * - tensor fusion (`fusion`): the tensors launched at one tick are packed, in ready order, into
 *   fused buffers of at most `fusion` bytes; a fused buffer is one collective, and its tensors'
 *   results arrive together when the whole buffer is reduced;
 * - fused buffers run one at a time, in launch order (Horovod's background thread waits for
 *   each collective), each `launch` after the previous one completed at every worker (the
 *   negotiation round and kernel launch);
 * - compute slowdown while communication kernels share the GPU (`contention`): a worker's
 *   compute steps take (1 + contention) times longer while any of its all-reduces is in flight.
 * With cycle, fusion and launch all 0 the collective is ideal: each worker starts a tensor's
 * ring as soon as its own gradient is ready (the ring's data dependency does the rest). */
#ifndef SIM_MODELS_DDL_COLLECTIVE_H
#define SIM_MODELS_DDL_COLLECTIVE_H

#include "models/ddl/job.h"

struct ddl_coll;

/* `start` begins worker w's part of the all-reduce of `layer`, its gradient of `iter`. */
typedef void ddl_coll_start_fn(struct ddl_job *job, uint32_t w, uint32_t layer, uint32_t iter);

/* An all-reduce needs two workers: reports and returns 1 when the job has fewer. */
int ddl_coll_check_workers(const struct ddl_job *job, struct diag *d);
struct ddl_coll *ddl_coll_create(struct ddl_job *job, ddl_coll_start_fn *start);
void ddl_coll_destroy(struct ddl_coll *c);
/* Worker w's gradient of `layer` (its current iteration) is ready. */
void ddl_coll_ready(struct ddl_coll *c, struct ddl_worker *w, uint32_t layer);
/* The all-reduce of `layer` (from iteration `iter`) is complete at worker w: records the tensor
 * and hands the parameters to the worker (with fusion, once its whole buffer is complete). */
void ddl_coll_done(struct ddl_coll *c, struct ddl_worker *w, uint32_t layer, uint32_t iter);

#endif
