/* Statements: see p4stmt.h. */
#include "p4/engine/p4stmt.h"
#include "p4/engine/p4call.h"
#include "p4/engine/p4expr.h"
#include "p4/engine/p4irgen.h"
#include "p4/engine/p4scope.h"
#include "p4/engine/p4type.h"

#include <string.h>

/* Assignment of value expression (or list) to a reference. */
void p4stmt_assign(struct p4sem *s, struct p4ir_block *b, struct p4ir_expr *dst,
                   const struct p4ast *rhs, struct p4ir_expr *val, struct p4_loc loc)
{
    if (!dst)
        return;
    struct p4_type *t = dst->type;
    if (!val)
        val = p4expr_lower(s, rhs);
    if (val->type == s->t_bad)
        return;
    if (dst->op == P4OP_SLICE) {
        val = p4expr_coerce(s, val, dst->type, "assignment");
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_ASSIGN_SLICE, loc);
        st->a = dst->a;
        st->b = val;
        st->aux = dst->aux;
        return;
    }
    if (p4type_is_compound(t)) {
        val = p4expr_coerce(s, val, t, "assignment");
        if (val->type == s->t_bad)
            return;
        if (val->type != t || !p4irgen_is_value(val)) {
            char b1[64];
            char b2[64];
            p4sem_err(s, loc, "type mismatch in assignment: expected %s, got %s",
                      p4type_str(t, b1, sizeof(b1)), p4type_str(val->type, b2, sizeof(b2)));
            return;
        }
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_COPY, loc);
        st->a = dst;
        st->b = val;
        st->aux = t->nslots;
        return;
    }
    val = p4expr_coerce(s, val, t, "assignment");
    if (val->type->kind == P4T_LIST || !p4type_is_scalar(val->type)) {
        p4sem_err(s, loc, "cannot assign this value");
        return;
    }
    struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_ASSIGN, loc);
    st->a = dst;
    st->b = val;
}

static void zero(struct p4sem *s, struct p4ir_block *b, int slot, struct p4_type *t,
                 struct p4_loc loc)
{
    struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_ZERO, loc);
    st->a = p4irgen_expr(s, P4OP_LOAD, t, loc);
    st->a->slot = slot;
    st->aux = t->nslots;
}

void p4stmt_zero(struct p4sem *s, struct p4ir_block *b, struct p4ir_expr *ref)
{
    zero(s, b, ref->slot, ref->type, ref->loc);
}

/* list<T> x = {v, ...}: a tuple of as many T as the list has values (P4_16 1.2.4 lists). */
static struct p4_type *list_var_type(struct p4sem *s, const struct p4ast *a)
{
    if (a->a->nlist != 1 || !a->b || a->b->kind != P4AST_E_LIST || a->b->nlist > 64) {
        p4sem_err(s, a->loc, "a list<T> variable needs a list of at most 64 values as initializer");
        return s->t_bad;
    }
    struct p4_type *el[64];
    for (int i = 0; i < a->b->nlist; i++)
        el[i] = p4type_resolve(s, a->a->list[0]);
    return p4type_tuple(s, el, a->b->nlist);
}

void p4stmt_var_decl(struct p4sem *s, const struct p4ast *a, struct p4ir_block *b)
{
    bool list = a->a->kind == P4AST_TY_NAME && strcmp(a->a->name, "list") == 0;
    struct p4_type *t = list ? list_var_type(s, a) : p4type_resolve(s, a->a);
    if (t == s->t_bad)
        return;
    if (!p4type_storable(s, t, a->loc, "a variable"))
        return;
    int slot = p4irgen_slots(s, t->nslots);
    struct p4ir_expr *dst = p4irgen_expr(s, P4OP_LOAD, t, a->loc);
    dst->slot = slot;
    if (a->b)
        p4stmt_assign(s, b, dst, a->b, NULL, a->loc);
    else
        zero(s, b, slot, t, a->loc);
    struct p4sym *y = p4scope_declare(s, a->name, SYM_VAR, a->loc);
    y->type = t;
    y->slot = slot;
}

void p4stmt_const_decl(struct p4sem *s, const struct p4ast *a)
{
    struct p4_type *t = p4type_resolve(s, a->a);
    struct p4ir_expr *v = a->b->kind == P4AST_E_LIST ? NULL : p4expr_fold(s, p4expr_lower(s, a->b));
    if (v)
        v = p4expr_coerce(s, v, t, "constant");
    if (v && !p4irgen_is_const(v) && v->type->kind != P4T_STRING) {
        p4sem_err(s, a->b->loc, "value of '%s' is not a compile-time constant", a->name);
        v = NULL;
    }
    if (!v)
        v = p4irgen_const64(s, t, 0, a->loc);
    struct p4sym *y = p4scope_declare(s, a->name, SYM_CONST, a->loc);
    y->type = t;
    y->cval = v;
}

/* If `a` names a member of a header_union, makes the other members invalid (P4: at most
 * one member of a union is valid; extract, setValid and assignment select the member). */
void p4stmt_union_select(struct p4sem *s, const struct p4ast *a, struct p4ir_block *b,
                         struct p4_loc loc)
{
    if (a->kind != P4AST_E_MEMBER)
        return;
    int before = s->diag->nerrors;
    struct p4ir_expr *u = p4expr_lower(s, a->a);
    if (s->diag->nerrors != before || u->type->kind != P4T_UNION || !p4irgen_is_ref(u))
        return;
    for (int i = 0; i < u->type->nfields; i++) {
        const struct p4_field *m = &u->type->fields[i];
        if (strcmp(m->name, a->name) == 0)
            continue;
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_SETVALID, loc);
        st->a = p4irgen_field_ref(s, u, m->off, m->type, loc);
        st->aux = 0;
    }
}

static void lower_switch(struct p4sem *s, const struct p4ast *a, struct p4ir_block *b)
{
    const struct p4ast *x = a->a;
    if (x->kind == P4AST_E_MEMBER && strcmp(x->name, "action_run") == 0) {
        struct p4ir_table *t = p4expr_table_of_apply(s, x->a);
        if (!t) {
            p4sem_err(s, x->loc, "action_run needs a table apply");
            return;
        }
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_SWITCH, a->loc);
        st->table = t;
        st->ncases = t->nactions;
        st->cases = NEWN(s, struct p4ir_block, t->nactions);
        st->has_case = NEWN(s, bool, t->nactions);
        int pending[64];
        int npending = 0;
        bool pending_default = false;
        for (int i = 0; i < a->nlist; i++) {
            const struct p4ast *c = a->list[i];
            if (!c->a) {
                pending_default = true;
            } else if (c->a->kind != P4AST_E_NAME) {
                p4sem_err(s, c->loc, "switch label must be an action name");
            } else {
                int k = -1;
                for (int j = 0; j < t->nactions; j++) {
                    const char *full = t->actions[j].call.fn->name;
                    const char *dot = strrchr(full, '.');
                    if (strcmp(full, c->a->name) == 0 || (dot && strcmp(dot + 1, c->a->name) == 0))
                        k = j;
                }
                if (k < 0)
                    p4sem_err(s, c->a->loc, "'%s' is not an action of table '%s'", c->a->name,
                              t->name);
                else if (npending < 64)
                    pending[npending++] = k;
            }
            if (c->b) {
                struct p4ir_block body = {0};
                p4stmt_block(s, c->b, &body);
                for (int j = 0; j < npending; j++) {
                    st->cases[pending[j]] = body;
                    st->has_case[pending[j]] = true;
                }
                if (pending_default)
                    st->els = body;
                npending = 0;
                pending_default = false;
            }
        }
        return;
    }
    /* switch on a value: lowered to SWITCHV with constant labels */
    struct p4ir_expr *v = p4expr_lower(s, x);
    if (!p4type_is_scalar(v->type) || v->nw > 1) {
        p4sem_err(s, x->loc, "switch expression must be a scalar of at most 64 bits");
        return;
    }
    struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_SWITCHV, a->loc);
    st->b = v;
    st->cases = NEWN(s, struct p4ir_block, a->nlist);
    st->vals = NEWN(s, uint64_t, a->nlist);
    st->has_case = NEWN(s, bool, a->nlist);
    int first_pending = 0;
    for (int i = 0; i < a->nlist; i++) {
        const struct p4ast *c = a->list[i];
        if (c->a) {
            struct p4ir_expr *k =
                p4expr_fold(s, p4expr_coerce(s, p4expr_lower(s, c->a), v->type, "switch label"));
            if (!p4irgen_is_const(k))
                p4sem_err(s, c->a->loc, "switch label must be a constant");
            st->vals[i] = k->k;
            st->has_case[i] = true;
        }
        if (c->b) {
            struct p4ir_block body = {0};
            p4stmt_block(s, c->b, &body);
            for (int j = first_pending; j <= i; j++) {
                if (a->list[j]->a)
                    st->cases[j] = body;
                else
                    st->els = body;
            }
            first_pending = i + 1;
        }
    }
    st->ncases = a->nlist;
}

/* A fresh variable of type t (scratch slots). */
static struct p4ir_expr *temp(struct p4sem *s, struct p4_type *t, struct p4_loc loc)
{
    struct p4ir_expr *e = p4irgen_expr(s, P4OP_LOAD, t, loc);
    e->slot = p4irgen_slots(s, t->nslots);
    return e;
}

/* A reference that names the same location as ref whenever it is evaluated later: a
 * computed stack index is evaluated once, now, into a temporary. */
struct p4ir_expr *p4stmt_pin_ref(struct p4sem *s, struct p4ir_block *b, struct p4ir_expr *ref)
{
    if (!ref)
        return NULL;
    if (ref->op == P4OP_SLICE) {
        struct p4ir_expr *pinned = p4irgen_expr(s, P4OP_SLICE, ref->type, ref->loc);
        *pinned = *ref;
        pinned->a = p4stmt_pin_ref(s, b, ref->a);
        return pinned;
    }
    if (ref->op != P4OP_LOADX || ref->idx != P4IDX_EXPR || ref->a->op == P4OP_CONST)
        return ref;
    struct p4ir_expr *idx = temp(s, ref->a->type, ref->loc);
    struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_ASSIGN, ref->loc);
    st->a = idx;
    st->b = ref->a;
    struct p4ir_expr *pinned = NEW(s, struct p4ir_expr);
    *pinned = *ref;
    pinned->a = idx;
    return pinned;
}

/* x op= e (P4_16 1.2.4): x = x op e with x's location evaluated once, before e. */
static void compound_assign(struct p4sem *s, const struct p4ast *a, struct p4ir_block *b)
{
    struct p4ir_expr *dst = p4expr_lower_ref(s, a->a, "left side of assignment");
    if (!dst)
        return;
    if (!p4type_is_num(dst->type)) {
        char b1[64];
        p4sem_err(s, a->loc, "compound assignment to a non-integer value (%s)",
                  p4type_str(dst->type, b1, sizeof(b1)));
        return;
    }
    dst = p4stmt_pin_ref(s, b, dst);
    struct p4ir_expr *val = p4expr_binary(s, a->op, dst, p4expr_lower(s, a->b), a->loc);
    p4stmt_assign(s, b, dst, NULL, val, a->loc);
}

static struct p4ir_stmt *loop_body(struct p4sem *s, const struct p4ast *a, struct p4ir_stmt *st)
{
    s->loops++;
    p4scope_push(s);
    p4stmt_lower(s, a, &st->body);
    p4scope_pop(s);
    s->loops--;
    return st;
}

/* for (init; cond; update) body, in its own scope */
static void lower_for(struct p4sem *s, const struct p4ast *a, struct p4ir_block *b)
{
    struct p4ir_stmt *blk = p4irgen_stmt(s, b, P4ST_BLOCK, a->loc);
    p4scope_push(s);
    for (int i = 0; i < a->nlist; i++)
        p4stmt_lower(s, a->list[i], &blk->body);
    struct p4ir_stmt *st = p4irgen_stmt(s, &blk->body, P4ST_LOOP, a->loc);
    if (a->a) {
        st->b = p4expr_fold(s, p4expr_lower(s, a->a));
        if (st->b->type != s->t_bool)
            p4sem_err(s, a->a->loc, "condition must be bool");
    }
    for (int i = 0; i < a->nlist2; i++)
        p4stmt_lower(s, a->list2[i], &st->els);
    loop_body(s, a->c, st);
    p4scope_pop(s);
}

/* for-in over a list or tuple variable: each of its fields, all of the loop's type */
static bool forin_tuple(struct p4sem *s, struct p4ir_expr *tu, struct p4ir_stmt *st,
                        struct p4_type *t)
{
    st->nargs = tu->type->nfields;
    st->args = NEWN(s, struct p4ir_expr *, st->nargs);
    for (int i = 0; i < st->nargs; i++) {
        const struct p4_field *f = &tu->type->fields[i];
        if (f->type != t) {
            p4sem_err(s, tu->loc, "element %d of the list does not have the loop variable's type",
                      i);
            return false;
        }
        st->args[i] = p4irgen_field_ref(s, tu, f->off, f->type, tu->loc);
    }
    return true;
}

/* The elements a for-in loop visits: each element of a stack (copies), each value of a
 * list, or (range) the bounds. */
static bool forin_elements(struct p4sem *s, const struct p4ast *c, struct p4ir_stmt *st,
                           struct p4_type *t)
{
    if (c->kind == P4AST_E_RANGE) {
        st->flag = 1;
        st->b = p4expr_coerce(s, p4expr_lower(s, c->a), t, "range");
        st->nargs = 1;
        st->args = NEWN(s, struct p4ir_expr *, 1);
        st->args[0] = p4expr_coerce(s, p4expr_lower(s, c->b), t, "range");
        if (!p4type_is_num(t) || st->b->nw > 1) {
            p4sem_err(s, c->loc, "a range loop needs an integer variable of at most 64 bits");
            return false;
        }
        return true;
    }
    if (c->kind == P4AST_E_LIST) {
        st->nargs = c->nlist;
        st->args = NEWN(s, struct p4ir_expr *, c->nlist);
        for (int i = 0; i < c->nlist; i++)
            st->args[i] = p4expr_coerce(s, p4expr_lower(s, c->list[i]), t, "loop element");
        return true;
    }
    struct p4ir_expr *hs = p4expr_lower(s, c);
    if (hs->type->tuple && p4irgen_is_ref(hs))
        return forin_tuple(s, hs, st, t);
    if (hs->type->kind != P4T_STACK || hs->op != P4OP_LOAD || hs->type->elem != t) {
        p4sem_err(s, c->loc,
                  "a for-in loop goes over a range, a list or a header stack of "
                  "the variable's type");
        return false;
    }
    st->nargs = hs->type->size;
    st->args = NEWN(s, struct p4ir_expr *, st->nargs);
    for (int i = 0; i < st->nargs; i++) {
        struct p4ir_expr *e = p4irgen_expr(s, P4OP_LOAD, t, c->loc);
        e->slot = hs->slot + 1 + i * t->nslots;
        st->args[i] = e;
    }
    return true;
}

/* for (T x in collection) body */
static void lower_forin(struct p4sem *s, const struct p4ast *a, struct p4ir_block *b)
{
    struct p4ir_stmt *blk = p4irgen_stmt(s, b, P4ST_BLOCK, a->loc);
    p4scope_push(s);
    const struct p4ast *v = a->a;
    struct p4_type *t = p4type_resolve(s, v->a);
    struct p4ir_expr *var = temp(s, t, v->loc);
    struct p4sym *y = p4scope_declare(s, v->name, SYM_VAR, v->loc);
    y->type = t;
    y->slot = var->slot;
    struct p4ir_stmt *st = p4irgen_stmt(s, &blk->body, P4ST_FORIN, a->loc);
    st->a = var;
    st->type = t;
    if (forin_elements(s, a->b, st, t))
        loop_body(s, a->c, st);
    p4scope_pop(s);
}

void p4stmt_lower(struct p4sem *s, const struct p4ast *a, struct p4ir_block *b)
{
    switch (a->kind) {
    case P4AST_S_EMPTY:
        return;
    case P4AST_S_BLOCK: {
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_BLOCK, a->loc);
        p4stmt_block(s, a, &st->body);
        return;
    }
    case P4AST_S_IF: {
        struct p4ir_expr *c = p4expr_fold(s, p4expr_lower(s, a->a));
        if (c->type != s->t_bool)
            p4sem_err(s, a->a->loc, "condition must be bool");
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_IF, a->loc);
        st->b = c;
        p4scope_push(s);
        p4stmt_lower(s, a->b, &st->body);
        p4scope_pop(s);
        if (a->c) {
            p4scope_push(s);
            p4stmt_lower(s, a->c, &st->els);
            p4scope_pop(s);
        }
        return;
    }
    case P4AST_S_SWITCH:
        lower_switch(s, a, b);
        return;
    case P4AST_S_FOR:
        lower_for(s, a, b);
        return;
    case P4AST_S_FORIN:
        lower_forin(s, a, b);
        return;
    case P4AST_S_BREAK:
    case P4AST_S_CONTINUE:
        if (!s->loops)
            p4sem_err(s, a->loc, "%s outside a loop",
                      a->kind == P4AST_S_BREAK ? "break" : "continue");
        p4irgen_stmt(s, b, a->kind == P4AST_S_BREAK ? P4ST_BREAK : P4ST_CONTINUE, a->loc);
        return;
    case P4AST_S_ASSIGN: {
        if (a->op) {
            compound_assign(s, a, b);
            return;
        }
        struct p4ir_expr *dst = p4expr_lower_ref(s, a->a, "left side of assignment");
        if (dst && dst->type->kind == P4T_HEADER)
            p4stmt_union_select(s, a->a, b, a->loc);
        p4stmt_assign(s, b, dst, a->b, NULL, a->loc);
        return;
    }
    case P4AST_S_CALL: {
        const struct p4ast *c = a->a;
        if (c->a->kind == P4AST_E_NAME)
            p4call_function(s, c, b);
        else if (c->a->kind == P4AST_E_MEMBER)
            p4call_method(s, c, b);
        else
            p4sem_err(s, c->loc, "cannot call this expression");
        return;
    }
    case P4AST_S_VAR:
        p4stmt_var_decl(s, a, b);
        return;
    case P4AST_S_CONST:
        p4stmt_const_decl(s, a);
        return;
    case P4AST_S_EXIT:
        if (s->in_parser)
            p4sem_err(s, a->loc, "exit is not allowed in a parser");
        p4irgen_stmt(s, b, P4ST_EXIT, a->loc);
        return;
    case P4AST_S_RETURN: {
        struct p4ir_callable *fn = s->cur_fn;
        if (a->a && (!fn || fn->kind != P4CALL_FUNC || fn->ret_type == s->t_void)) {
            p4irgen_stmt(s, b, P4ST_RETURN, a->loc);
            p4sem_err(s, a->loc, "return with a value outside a function");
            return;
        }
        struct p4ir_expr *ret = NULL;
        if (a->a) {
            ret = p4irgen_expr(s, P4OP_LOAD, fn->ret_type, a->loc);
            ret->slot = fn->ret_slot;
        }
        if (ret && p4type_is_compound(fn->ret_type)) { /* the value, then return */
            p4stmt_assign(s, b, ret, a->a, NULL, a->loc);
            ret = NULL;
        }
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_RETURN, a->loc);
        if (ret) {
            st->a = ret;
            st->b = p4expr_coerce(s, p4expr_lower(s, a->a), fn->ret_type, "return");
        }
        return;
    }
    case P4AST_S_TRANSITION:
        p4sem_err(s, a->loc, "transition must be the last statement of a parser state");
        return;
    case P4AST_D_INST:
        p4sem_err(s, a->loc, "instantiation is not allowed here");
        return;
    default:
        p4sem_err(s, a->loc, "statement expected");
        return;
    }
}

void p4stmt_block(struct p4sem *s, const struct p4ast *a, struct p4ir_block *b)
{
    p4scope_push(s);
    for (int i = 0; i < a->nlist; i++)
        p4stmt_lower(s, a->list[i], b);
    p4scope_pop(s);
}
