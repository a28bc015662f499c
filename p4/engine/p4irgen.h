/* IR allocation: constructors of expression and statement nodes, blocks, constants, field
 * references and slots. Every node is allocated in program-owned memory (p4ir_alloc), so
 * freeing the program frees the IR. */
#ifndef SIM_P4_P4IRGEN_H
#define SIM_P4_P4IRGEN_H

#include "p4/engine/p4sem.h"

#define NEW(s, T) ((T *)p4ir_alloc((s)->prog, sizeof(T)))
#define NEWN(s, T, n) ((T *)p4ir_alloc((s)->prog, sizeof(T) * (size_t)((n) ? (n) : 1)))

/* An expression node of type t (width, words, mask and signedness from t). */
struct p4ir_expr *p4irgen_expr(struct p4sem *s, enum p4op op, struct p4_type *t, struct p4_loc loc);
/* A constant of type t (truncated to its width unless t is the literal type int). */
struct p4ir_expr *p4irgen_const(struct p4sem *s, struct p4_type *t, const struct p4_big *v,
                                struct p4_loc loc);
struct p4ir_expr *p4irgen_const64(struct p4sem *s, struct p4_type *t, uint64_t v,
                                  struct p4_loc loc);
bool p4irgen_is_const(const struct p4ir_expr *e);
/* Value of a constant (sign-extended if its type is int<W>). */
void p4irgen_const_big(const struct p4ir_expr *e, struct p4_big *v);
/* LOAD or LOADX: a reference to slots. */
bool p4irgen_is_ref(const struct p4ir_expr *e);
/* Reference to a field at slot offset off inside the compound reference base. */
struct p4ir_expr *p4irgen_field_ref(struct p4sem *s, const struct p4ir_expr *base, int off,
                                    struct p4_type *t, struct p4_loc loc);
/* Appends st to block b. */
void p4irgen_append(struct p4sem *s, struct p4ir_block *b, struct p4ir_stmt *st);
/* A new statement appended to b. */
struct p4ir_stmt *p4irgen_stmt(struct p4sem *s, struct p4ir_block *b, enum p4st op,
                               struct p4_loc loc);
/* n fresh slots (the first index); reports "program state too large" once. */
int p4irgen_slots(struct p4sem *s, int n);
/* Makes the program own a malloc'ed string. */
const char *p4irgen_keep(struct p4sem *s, const char *str);

#endif
