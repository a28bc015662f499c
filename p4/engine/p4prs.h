/* Parsers of the semantic stage: parser parameters bound to the packet slots, locals,
 * states with their statements and select transitions (values, masks, ranges, value sets,
 * default). */
#ifndef SIM_P4_P4PRS_H
#define SIM_P4_P4PRS_H

#include "p4/engine/p4sem.h"

/* Lowers the package's parser into prog->states, inlining a copy of a sub-parser's states
 * at each `inst.apply(...)` (P4_16 13.9). */
void p4prs_lower(struct p4sem *s, const struct p4ast *decl);
/* Declares `P() inst;`, an instance of the parser decl, in the current scope. */
void p4prs_instance(struct p4sem *s, const struct p4ast *inst, const struct p4ast *decl);

#endif
