/* The P4_16 parser's two halves and what they share (internal to the parser): p4parse.c
 * holds the token helpers, annotations, type references and expressions; p4pdecl.c the
 * statements and declarations. Errors longjmp to p->fail after reporting. */
#ifndef SIM_P4_P4PDECL_H
#define SIM_P4_P4PDECL_H

#include "p4/engine/p4parse.h"

/* ---- p4parse.c: nodes and tokens ---- */
struct p4ast *p4parse_node(struct p4parse *p, enum p4ast_kind k, struct p4_loc loc);
void p4parse_add(struct p4ast *n, struct p4ast *kid);
void p4parse_add2(struct p4ast *n, struct p4ast *kid);
/* p4parse_add2 when `second`, else p4parse_add. */
void p4parse_add_to(struct p4ast *n, bool second, struct p4ast *kid);
void p4parse_advance(struct p4parse *p);
/* k-th token after the current one (k >= 1). */
const struct p4_token *p4parse_peek(struct p4parse *p, int k);
/* Reports "expected WHAT near 'token'" and abandons the parse. */
_Noreturn void p4parse_expected(struct p4parse *p, const char *what);
/* Consumes the current token if it is k. */
bool p4parse_test(struct p4parse *p, enum p4tok_kind k);
/* Requires and consumes k; returns its location. */
struct p4_loc p4parse_check(struct p4parse *p, enum p4tok_kind k);
/* Closing token of a pair opened at `open`: Lua's "(to close X at line N)". */
void p4parse_match(struct p4parse *p, enum p4tok_kind what, enum p4tok_kind who,
                   struct p4_loc open);
const char *p4parse_name(struct p4parse *p);
/* Names declared as types so far (the grammar needs them to tell declarations apart). */
bool p4parse_is_type(struct p4parse *p, const char *s);
void p4parse_declare_type(struct p4parse *p, const char *s);
bool p4parse_type_start(struct p4parse *p, const struct p4_token *t);
/* Nesting depth guard of expressions and statements. */
void p4parse_enter(struct p4parse *p);

/* ---- p4parse.c: annotations, types, expressions ---- */
void p4parse_annotations(struct p4parse *p, struct p4ast *target);
void p4parse_move_annots(struct p4ast *from, struct p4ast *to);
struct p4ast *p4parse_type(struct p4parse *p);
/* Type parameters <T, ...> if present: declared as type names; returns how many. */
int p4parse_type_params(struct p4parse *p);
/* Parameter list into owner->list (or list2 if second). */
void p4parse_params(struct p4parse *p, struct p4ast *owner, bool second);
/* Argument list into call->list. */
void p4parse_args(struct p4parse *p, struct p4ast *call);
struct p4ast *p4parse_expr(struct p4parse *p);
struct p4ast *p4parse_unary(struct p4parse *p);
/* A select/entry keyset: expression, mask, range, default or a tuple of them. */
struct p4ast *p4parse_keyset(struct p4parse *p);

/* ---- p4pdecl.c ---- */
/* One top-level declaration (NULL for an empty one). */
struct p4ast *p4pdecl_declaration(struct p4parse *p);

#endif
