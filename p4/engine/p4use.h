/* What a lowered program can observe of the state the v1model glue (p4.c) prepares, found by
 * a conservative walk of its whole IR: every slot any expression, statement, call, table key
 * or field list refers to (read or written, whole structs included) counts as used, so the
 * glue may leave out only work no block of the program can see, on either engine. */
#ifndef SIM_P4_P4USE_H
#define SIM_P4_P4USE_H

#include "p4/engine/p4ir.h"

/* Fills prog->use (after lowering; the compiled engine's slots play no part). */
void p4use_analyse(struct p4_prog *prog);

#endif
