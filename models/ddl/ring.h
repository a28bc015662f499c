/* The ring all-reduce engine (ring.c), used by arch allreduce's flat ring over every GPU and by
 * the hierarchical collective's ring over each host's first GPU: the ring's members are workers
 * 0, stride, 2 stride, ... (n of them); a hop between GPUs of one host takes the intra-host
 * interconnect (intra.h), any other hop the member's network connection. */
#ifndef SIM_MODELS_DDL_RING_H
#define SIM_MODELS_DDL_RING_H

#include "models/ddl/job.h"

/* The all-reduce of `layer` (gradients of `iter`) is complete at worker w. */
typedef void ddl_ring_done_fn(struct ddl_job *job, uint32_t w, uint32_t layer, uint32_t iter);

/* The ring's state in job->ring. */
void ddl_ring_create(struct ddl_job *job, uint32_t n, uint32_t stride, ddl_ring_done_fn *done);
/* Network connections of the members whose successor is on another host (wh: worker hosts);
 * returns the number of errors. */
int ddl_ring_connect(struct ddl_job *job, struct host **wh, struct diag *d);
/* Closes the connections and frees the state. */
void ddl_ring_fini(struct ddl_job *job);
/* Member worker w contributes its data of `layer` (from iteration iter). */
void ddl_ring_start(struct ddl_job *job, uint32_t w, uint32_t layer, uint32_t iter);
/* A ring chunk arrived at its receiver. */
void ddl_ring_delivered(struct ddl_job *job, struct ddl_item *it);

#endif
