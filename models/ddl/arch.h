/* The architectures a DDL job can use (`arch:`), each a struct ddl_arch_ops. Adding one = its
 * file with the ops table, a line here, and a name and its properties in job.c's arch table. */
#ifndef SIM_MODELS_DDL_ARCH_H
#define SIM_MODELS_DDL_ARCH_H

#include "models/ddl/job.h"

extern const struct ddl_arch_ops ddl_arch_ps;   /* parameter servers (ps.c) */
extern const struct ddl_arch_ops ddl_arch_ring; /* ring all-reduce (ring.c) */
extern const struct ddl_arch_ops ddl_arch_tree; /* binomial tree all-reduce (tree.c) */
extern const struct ddl_arch_ops ddl_arch_hier; /* hierarchical all-reduce (hier.c) */
extern const struct ddl_arch_ops ddl_arch_inc;  /* in-network aggregation (inc.c) */
extern const struct ddl_arch_ops ddl_arch_libra; /* hot/cold sparse aggregation (libra.c) */

/* ps.c: destroys the workers' push and the servers' pull connections (ps and libra's fini). */
void ddl_ps_fini(struct ddl_job *job);

#endif
