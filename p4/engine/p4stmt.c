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
    if (rhs && rhs->kind == P4AST_E_LIST && (t->kind == P4T_STRUCT || t->kind == P4T_HEADER)) {
        if (rhs->nlist != t->nfields) {
            p4sem_err(s, rhs->loc, "'%s' has %d fields, list has %d", t->name, t->nfields,
                      rhs->nlist);
            return;
        }
        if (t->kind == P4T_HEADER) {
            struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_SETVALID, loc);
            st->a = dst;
            st->aux = 1;
        }
        for (int i = 0; i < t->nfields; i++) {
            struct p4ir_expr *fr =
                p4irgen_field_ref(s, dst, t->fields[i].off, t->fields[i].type, loc);
            p4stmt_assign(s, b, fr, rhs->list[i], NULL, rhs->list[i]->loc);
        }
        return;
    }
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
        if (val->type != t || !p4irgen_is_ref(val)) {
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

void p4stmt_var_decl(struct p4sem *s, const struct p4ast *a, struct p4ir_block *b)
{
    struct p4_type *t = p4type_resolve(s, a->a);
    if (!p4type_is_scalar(t) && !p4type_is_compound(t)) {
        char b1[64];
        p4sem_err(s, a->loc, "variables of type %s are not supported",
                  p4type_str(t, b1, sizeof(b1)));
        return;
    }
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
    case P4AST_S_ASSIGN: {
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
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_RETURN, a->loc);
        struct p4ir_callable *fn = s->cur_fn;
        if (a->a) {
            if (!fn || fn->kind != P4CALL_FUNC || fn->ret_type == s->t_void) {
                p4sem_err(s, a->loc, "return with a value outside a function");
                return;
            }
            st->a = p4irgen_expr(s, P4OP_LOAD, fn->ret_type, a->loc);
            st->a->slot = fn->ret_slot;
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
