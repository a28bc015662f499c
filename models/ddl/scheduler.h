/* The host-side scheduler of a DDL job: chunks (struct ddl_item, from the job's pool) wait in
 * a sender's queue and are released to their message connection. fifo releases in the order
 * chunks became ready; priority (P3 / ByteScheduler) orders by layer priority (then older
 * iteration, then arrival) and releases while the bytes in flight (sent, not yet acknowledged)
 * stay under the job's credit, so it preempts at chunk boundaries. */
#ifndef SIM_MODELS_DDL_SCHEDULER_H
#define SIM_MODELS_DDL_SCHEDULER_H

#include "models/ddl/job.h"

/* A zeroed chunk from the job's pool. */
struct ddl_item *ddl_item_new(struct ddl_job *job);
/* Returns the chunk to the pool once it is both acknowledged and delivered. */
void ddl_item_done(struct ddl_job *job, struct ddl_item *it);
/* Queues a chunk at sender s and releases what the scheduler allows. */
void ddl_sender_add(struct ddl_sender *s, struct ddl_item *it);
/* Queues at server s the pull of `bytes` (chunk `chunk` of `layer`, aggregated now, from
 * iteration iter) to `worker`, on the connection of the layer's priority group. */
void ddl_pull_send(struct ddl_server *s, uint32_t worker, uint32_t layer, uint32_t chunk,
                   uint32_t iter, uint64_t bytes);
/* Releases what the scheduler allows (after an acknowledgement freed credit). */
void ddl_sender_release(struct ddl_sender *s);

#endif
