/* Ring all-reduce for DDL jobs (arch: allreduce): each tensor is cut into pieces of at most
 * N × chunk bytes; a piece is split into N segments and all-reduced in 2(N−1) steps around the
 * ring (reduce-scatter, then all-gather), so each worker sends 2(N−1)/N of the tensor. A step at
 * a worker starts when its own gradient is ready and the previous step's segment has arrived from
 * its predecessor; steps of different pieces and layers overlap, ordered by the job's host
 * scheduler. The tensor's parameters are ready at a worker when its last all-gather step of the
 * last piece arrives. */
#ifndef SIM_MODELS_DDL_RING_H
#define SIM_MODELS_DDL_RING_H

#include "models/ddl/job.h"

void ddl_ring_init(struct ddl_job *job);
void ddl_ring_fini(struct ddl_job *job);
/* Worker w's gradient of `layer` is ready. */
void ddl_ring_grad_ready(struct ddl_worker *w, uint32_t layer);
/* A ring step's segment arrived at the sender's successor. */
void ddl_ring_delivered(struct ddl_job *job, struct ddl_item *it);

#endif
