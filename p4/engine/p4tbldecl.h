/* Table declarations of the semantic stage: keys with their match kinds, action lists with
 * directional arguments, default actions, const entries (keys, masks, ranges, action data,
 * priorities), size, direct counters and meters. */
#ifndef SIM_P4_P4TBLDECL_H
#define SIM_P4_P4TBLDECL_H

#include "p4/engine/p4sem.h"

/* Lowers `table name { ... }` and declares it in the current scope. */
void p4tbldecl_lower(struct p4sem *s, const struct p4ast *d);

#endif
