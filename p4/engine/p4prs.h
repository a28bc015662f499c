/* Parsers of the semantic stage: parser parameters bound to the packet slots, locals,
 * states with their statements and select transitions (values, masks, ranges, value sets,
 * default). */
#ifndef SIM_P4_P4PRS_H
#define SIM_P4_P4PRS_H

#include "p4/engine/p4sem.h"

/* Lowers the package's parser into prog->states. */
void p4prs_lower(struct p4sem *s, const struct p4ast *decl);

#endif
