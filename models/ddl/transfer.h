/* Message connections of a DDL job (transfer.c). */
#ifndef SIM_MODELS_DDL_TRANSFER_H
#define SIM_MODELS_DDL_TRANSFER_H

#include "models/ddl/job.h"

/* A connection from `src` to `dst` over the job's transport and host costs, named
 * "<job>.<what><a>-<b>". */
struct msg_conn *ddl_connect(struct ddl_job *job, const char *what, uint32_t a, uint32_t b,
                             struct host *src, struct host *dst);

#endif
