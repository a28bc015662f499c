/* Statements of the semantic stage: blocks with their scopes, assignments (scalars, slices,
 * compound copies, lists into headers and structs), local variables and constants, if,
 * switch (on action_run or on a value), exit and return. */
#ifndef SIM_P4_P4STMT_H
#define SIM_P4_P4STMT_H

#include "p4/engine/p4sem.h"

void p4stmt_lower(struct p4sem *s, const struct p4ast *a, struct p4ir_block *b);
/* Lowers a block statement into b, in its own scope. */
void p4stmt_block(struct p4sem *s, const struct p4ast *a, struct p4ir_block *b);
/* dst = rhs (AST, may be a list) or dst = val (already lowered). */
void p4stmt_assign(struct p4sem *s, struct p4ir_block *b, struct p4ir_expr *dst,
                   const struct p4ast *rhs, struct p4ir_expr *val, struct p4_loc loc);
void p4stmt_var_decl(struct p4sem *s, const struct p4ast *a, struct p4ir_block *b);
void p4stmt_const_decl(struct p4sem *s, const struct p4ast *a);
/* If a names a member of a header_union, makes the other members invalid. */
void p4stmt_union_select(struct p4sem *s, const struct p4ast *a, struct p4ir_block *b,
                         struct p4_loc loc);

#endif
