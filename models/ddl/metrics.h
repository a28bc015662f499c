/* A DDL job's metrics (definitions in README): per tensor (tensors.csv: push and pull latency,
 * network blocking time), per iteration (iterations.csv) and per burst (bursts.csv: completion
 * time, throughput, start queue), with their means in summary.json and the human summary. */
#ifndef SIM_MODELS_DDL_METRICS_H
#define SIM_MODELS_DDL_METRICS_H

#include "models/ddl/job.h"

/* A tensor finished now: its push reached the server (pull = false), or its parameters reached
 * the worker (pull = true); `ready` is when it became ready to send, `blk` its blocking. */
void ddl_record_tensor(struct ddl_job *job, uint32_t worker, uint32_t iter, uint32_t layer,
                       bool pull, sim_time_t ready, const struct ddl_blk *blk);
/* Iteration `iter` of worker w ran from w->iter_start to `end`. */
void ddl_record_iteration(struct ddl_worker *w, uint32_t iter, sim_time_t end);
/* Worker w's burst of its iteration's pushes was delivered now. */
void ddl_record_burst(struct ddl_worker *w);
/* Summary statistics: set up and freed with the job. */
void ddl_metrics_init(struct ddl_job *job);
void ddl_metrics_fini(struct ddl_job *job);

#endif
