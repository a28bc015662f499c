/* Expressions of the semantic stage: name resolution, type checking and implicit
 * conversions, constant folding (typed values through the evaluator, integer literals of
 * arbitrary precision through the operator table), lowering to p4ir expression trees. */
#ifndef SIM_P4_P4EXPR_H
#define SIM_P4_P4EXPR_H

#include "p4/engine/p4sem.h"

/* Lowers an expression; after an error, an expression of type s->t_bad. */
struct p4ir_expr *p4expr_lower(struct p4sem *s, const struct p4ast *a);
/* Lowers a reference (variable, field, slice of one); NULL after an error. */
struct p4ir_expr *p4expr_lower_ref(struct p4sem *s, const struct p4ast *a, const char *what);
/* Lowers a call used as a value (isValid, lookahead, a function). */
struct p4ir_expr *p4expr_lower_call(struct p4sem *s, const struct p4ast *a);
/* Replaces a constant typed subtree by its value. */
struct p4ir_expr *p4expr_fold(struct p4sem *s, struct p4ir_expr *e);
/* Constant integer value of an expression, or false (an error is reported). */
bool p4expr_const_int(struct p4sem *s, const struct p4ast *a, struct p4_big *out);
/* Implicit conversion of e to t (integer literals take the type of what they meet);
 * reports a mismatch naming `what`. */
struct p4ir_expr *p4expr_coerce(struct p4sem *s, struct p4ir_expr *e, struct p4_type *t,
                                const char *what);
/* The table of `t.apply()`, or NULL. */
struct p4ir_table *p4expr_table_of_apply(struct p4sem *s, const struct p4ast *call);

#endif
