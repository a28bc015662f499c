/* A DDL worker's compute loop. Per iteration t: forward of layer i starts when forward i-1 is
 * done and layer i's parameters from iteration t-1 have arrived (iteration 0 starts at once);
 * backward runs from the last layer to the first; the gradient of layer i is ready when its
 * backward step ends, and the job's architecture takes it from there. Iteration t+1 begins when
 * backward of layer 0 ends. */
#ifndef SIM_MODELS_DDL_WORKER_H
#define SIM_MODELS_DDL_WORKER_H

#include "models/ddl/job.h"

void ddl_worker_init(struct ddl_job *job, struct ddl_worker *w, uint32_t i, struct host *h);
void ddl_worker_fini(struct ddl_job *job, struct ddl_worker *w);
/* The job's start timer: every worker begins its first forward pass. */
void ddl_job_start(struct sim *sim, struct evq_timer *t);
/* w->comm_active changed: a compute step in progress goes on at the speed that now applies
 * (slower by the job's contention while an all-reduce is in flight). */
void ddl_worker_comm_changed(struct ddl_worker *w);
/* Worker w now holds the parameters of `layer` from iteration `iter`. */
void ddl_worker_params_ready(struct ddl_worker *w, uint32_t layer, uint32_t iter);

#endif
