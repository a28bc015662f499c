/* Names and scopes of the semantic stage: nested scopes of symbols (types, constants,
 * variables with their slots, actions, tables, extern instances, ...). Scopes and symbols are
 * owned by the struct p4sem and freed when lowering ends. */
#ifndef SIM_P4_P4SCOPE_H
#define SIM_P4_P4SCOPE_H

#include "p4/engine/p4sem.h"

/* Opens a scope inside the current one. */
void p4scope_push(struct p4sem *s);
void p4scope_pop(struct p4sem *s);
/* The innermost symbol named name, or NULL. */
struct p4sym *p4scope_lookup(struct p4sem *s, const char *name);
/* Declares name in the current scope (an error if it is there already, except extern
 * function overloads). */
struct p4sym *p4scope_declare(struct p4sem *s, const char *name, enum p4sym_kind k,
                              struct p4_loc loc);

#endif
