/* Controls, actions and functions of the semantic stage: callables with copy-in/copy-out
 * parameter slots, control locals (constants, variables, instances, actions, tables, value
 * sets), constructor arguments, and one lowered copy of a control per instance. */
#ifndef SIM_P4_P4CTL_H
#define SIM_P4_P4CTL_H

#include "p4/engine/p4sem.h"

/* A callable with one slot range per parameter. */
struct p4ir_callable *p4ctl_new_callable(struct p4sem *s, enum p4ir_call_kind k, const char *name,
                                         const struct p4ast *params, struct p4_loc loc);
/* Declares fn's parameters as variables of the current scope. */
void p4ctl_bind_params(struct p4sem *s, struct p4ir_callable *fn, const struct p4ast *params);
struct p4ir_callable *p4ctl_lower_action(struct p4sem *s, const struct p4ast *d);
void p4ctl_lower_function(struct p4sem *s, const struct p4ast *d);
/* Lowers the local declarations of a control or parser; initializers go to init. */
void p4ctl_locals(struct p4sem *s, const struct p4ast *locals, struct p4ir_block *init);
/* Lowers one instance of a control named prefix. Top-level instances bind their parameters
 * to the packet slots; nested ones get their own parameter slots. */
struct p4ir_callable *p4ctl_lower(struct p4sem *s, const struct p4ast *decl, const char *prefix,
                                  bool top, const struct p4ast *ctor_args,
                                  struct p4scope *arg_scope);
/* A control instantiated inside a control: `C(args) name;`. */
void p4ctl_instance(struct p4sem *s, const struct p4ast *inst, const struct p4ast *decl);

#endif
