/* The v1model externs in the semantic stage: extern functions (mark_to_drop, hash, random,
 * checksums, clone, resubmit, recirculate, log_msg, truncate, assert, digest, verify),
 * extern instances (register, counter, meter, direct variants) and their methods, and the
 * field lists that clone/resubmit/recirculate preserve. */
#ifndef SIM_P4_P4EXTERN_H
#define SIM_P4_P4EXTERN_H

#include "p4/engine/p4sem.h"

/* A call statement of the extern function `name` (declared in v1model.p4 or core.p4). */
void p4extern_call_function(struct p4sem *s, const struct p4ast *call, struct p4ir_block *b);
/* A method call on an extern instance (symbol y). */
void p4extern_call_method(struct p4sem *s, const struct p4ast *call, const struct p4sym *y,
                          struct p4ir_block *b);
/* An instantiation `T(args) name;` of an extern or a control. */
void p4extern_instantiate(struct p4sem *s, const struct p4ast *d);

#endif
