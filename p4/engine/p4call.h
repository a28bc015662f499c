/* Calls of the semantic stage: argument binding (values for in, references for out/inout,
 * action data left to the table), calls of actions and functions, and methods: packet_in
 * and packet_out, table and control apply, headers (setValid/setInvalid), header stacks
 * (push_front/pop_front); extern functions and instances go to p4extern. */
#ifndef SIM_P4_P4CALL_H
#define SIM_P4_P4CALL_H

#include "p4/engine/p4sem.h"

/* Binds the arguments of call (from call->list[first_arg]) to fn's parameters; with
 * allow_data, action data parameters may be left out (NULL arguments). */
struct p4ir_call *p4call_bind(struct p4sem *s, struct p4ir_callable *fn, const struct p4ast *call,
                              int first_arg, bool allow_data, struct p4_loc loc);
/* Checks lo <= number of arguments <= hi (an error naming `name` otherwise). */
bool p4call_nargs_ok(struct p4sem *s, const struct p4ast *call, const char *name, int lo, int hi);
/* An argument by value, converted to t (or bit<32> for a literal when t is NULL). */
struct p4ir_expr *p4call_value_arg(struct p4sem *s, const struct p4ast *a, struct p4_type *t);
/* A call statement `f(...)`. */
void p4call_function(struct p4sem *s, const struct p4ast *call, struct p4ir_block *b);
/* A call statement `x.m(...)`. */
void p4call_method(struct p4sem *s, const struct p4ast *call, struct p4ir_block *b);

#endif
