/* Calls and methods: see p4call.h. */
#include "p4/engine/p4call.h"
#include "p4/engine/p4expr.h"
#include "p4/engine/p4extern.h"
#include "p4/engine/p4irgen.h"
#include "p4/engine/p4scope.h"
#include "p4/engine/p4stmt.h"
#include "p4/engine/p4type.h"

#include <string.h>

struct p4ir_expr *p4call_dontcare(struct p4sem *s, struct p4_type *t, struct p4_loc loc)
{
    struct p4ir_expr *e = p4irgen_expr(s, P4OP_LOAD, t, loc);
    e->slot = p4irgen_slots(s, t->nslots);
    return e;
}

/* A struct, header, stack or tuple passed in: a reference, a list, a call returning one. */
static struct p4ir_expr *compound_arg(struct p4sem *s, const struct p4ast *arg,
                                      const struct p4ir_param *p)
{
    struct p4ir_expr *v = p4expr_coerce(s, p4expr_lower(s, arg), p->type, "argument");
    if (v->type != s->t_bad && (v->type != p->type || !p4irgen_is_value(v))) {
        char b1[64];
        char b2[64];
        p4sem_err(s, arg->loc, "type mismatch in argument '%s': expected %s, got %s", p->name,
                  p4type_str(p->type, b1, sizeof(b1)), p4type_str(v->type, b2, sizeof(b2)));
    }
    return v;
}

/* Arguments for a callable: values for in/directionless, references for out/inout. */
struct p4ir_call *p4call_bind(struct p4sem *s, struct p4ir_callable *fn, const struct p4ast *call,
                              int first_arg, bool allow_data, struct p4_loc loc)
{
    struct p4ir_call *c = NEW(s, struct p4ir_call);
    c->fn = fn;
    c->nargs = fn->nparams;
    c->locs = p4irgen_slots(s, fn->nparams);
    c->args = NEWN(s, struct p4ir_expr *, fn->nparams);
    int given = call ? call->nlist - first_arg : 0;
    int ndir = 0;
    for (int i = 0; i < fn->nparams; i++)
        ndir += fn->params[i].dir != P4_DIR_NONE || fn->kind != P4CALL_ACTION;
    if (given > fn->nparams || (!allow_data && given != fn->nparams) ||
        (allow_data && given != ndir && given != fn->nparams)) {
        p4sem_err(s, loc, "'%s' expects %d arguments, got %d", fn->name,
                  allow_data ? ndir : fn->nparams, given);
        return c;
    }
    for (int i = 0; i < given; i++) {
        const struct p4ir_param *p = &fn->params[i];
        const struct p4ast *arg = call->list[first_arg + i];
        bool ref = p->dir == P4_DIR_OUT || p->dir == P4_DIR_INOUT;
        if (ref && arg->kind == P4AST_E_NAME && strcmp(arg->name, "_") == 0) {
            c->args[i] = p4call_dontcare(s, p->type, arg->loc);
            continue;
        }
        if (!ref && p4type_is_compound(p->type)) {
            c->args[i] = compound_arg(s, arg, p);
            continue;
        }
        if (ref) {
            struct p4ir_expr *r = p4expr_lower_ref(s, arg, "argument for an out parameter");
            if (r && r->type != p->type &&
                !(r->op == P4OP_SLICE && p4type_is_num(p->type) && r->width == p->type->width)) {
                char b1[64];
                char b2[64];
                p4sem_err(s, arg->loc, "type mismatch in argument '%s': expected %s, got %s",
                          p->name, p4type_str(p->type, b1, sizeof(b1)),
                          p4type_str(r->type, b2, sizeof(b2)));
            }
            c->args[i] = r;
        } else {
            c->args[i] = p4expr_coerce(s, p4expr_lower(s, arg), p->type, "argument");
        }
    }
    return c;
}

bool p4call_nargs_ok(struct p4sem *s, const struct p4ast *call, const char *name, int lo, int hi)
{
    if (call->nlist < lo || call->nlist > hi) {
        if (lo == hi)
            p4sem_err(s, call->loc, "'%s' expects %d arguments, got %d", name, lo, call->nlist);
        else
            p4sem_err(s, call->loc, "'%s' expects %d to %d arguments, got %d", name, lo, hi,
                      call->nlist);
        return false;
    }
    return true;
}

struct p4ir_expr *p4call_value_arg(struct p4sem *s, const struct p4ast *a, struct p4_type *t)
{
    struct p4ir_expr *e = p4expr_lower(s, a);
    if (t)
        return p4expr_coerce(s, e, t, "argument");
    if (e->type->kind == P4T_INFINT)
        return p4expr_coerce(s, e, p4type_bit(s, 32, false), "argument");
    return e;
}

void p4call_function(struct p4sem *s, const struct p4ast *call, struct p4ir_block *b)
{
    const char *name = call->a->name;
    struct p4_loc loc = call->loc;
    struct p4sym *y = p4scope_lookup(s, name);
    if (y && (y->kind == SYM_ACTION || y->kind == SYM_GLOBAL_ACTION || y->kind == SYM_FUNC)) {
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_CALL, loc);
        st->call = p4call_bind(s, y->fn, call, 0, false, loc);
        return;
    }
    if (!y && s->cur_fn && s->cur_fn->kind == P4CALL_FUNC && s->cur_fn->name &&
        strcmp(s->cur_fn->name, name) == 0) {
        p4sem_err(s, call->a->loc, "function '%s' calls itself; P4 has no recursion", name);
        return;
    }
    if (!y || y->kind != SYM_EXTERN_FUNC) {
        p4sem_err(s, call->a->loc, y ? "'%s' cannot be called" : "unknown function '%s'", name);
        return;
    }
    if (p4extern_is_builtin(name)) {
        p4extern_call_function(s, call, b);
        return;
    }
    struct p4ir_callable *fn = p4extern_user(s, y, call->a->loc);
    if (fn) {
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_CALL, loc);
        st->call = p4call_bind(s, fn, call, 0, false, loc);
    }
}

/* packet.emit(h): a header, a stack, or each header (and union member) of a struct */
static void emit_call(struct p4sem *s, const struct p4ast *call, struct p4ir_block *b)
{
    struct p4_loc loc = call->loc;
    if (!p4call_nargs_ok(s, call, "emit", 1, 1))
        return;
    struct p4ir_expr *h = p4expr_lower_ref(s, call->list[0], "emit argument");
    if (!h)
        return;
    if (h->type->kind == P4T_STRUCT || h->type->kind == P4T_UNION) {
        for (int i = 0; i < h->type->nfields; i++) {
            struct p4_field *f = &h->type->fields[i];
            if (f->type->kind == P4T_UNION) {
                struct p4ir_expr *u = p4irgen_field_ref(s, h, f->off, f->type, loc);
                for (int j = 0; j < f->type->nfields; j++) {
                    struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_EMIT, loc);
                    st->a = p4irgen_field_ref(s, u, f->type->fields[j].off, f->type->fields[j].type,
                                              loc);
                    st->type = f->type->fields[j].type;
                }
                continue;
            }
            if (f->type->kind != P4T_HEADER && f->type->kind != P4T_STACK) {
                p4sem_err(s, call->list[0]->loc, "emit of a struct with non-header field '%s'",
                          f->name);
                return;
            }
            struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_EMIT, loc);
            st->a = p4irgen_field_ref(s, h, f->off, f->type, loc);
            st->type = f->type;
        }
        return;
    }
    if (h->type->kind != P4T_HEADER && h->type->kind != P4T_STACK) {
        p4sem_err(s, call->list[0]->loc, "emit needs a header, header stack or struct");
        return;
    }
    struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_EMIT, loc);
    st->a = h;
    st->type = h->type;
}

/* packet.extract(h) and packet.extract(h, bits) */
static void extract_call(struct p4sem *s, const struct p4ast *call, struct p4ir_block *b)
{
    struct p4_loc loc = call->loc;
    if (call->nlist != 1 && call->nlist != 2) {
        p4sem_err(s, loc, "extract expects 1 or 2 arguments");
        return;
    }
    struct p4ir_expr *h = p4expr_lower_ref(s, call->list[0], "extract target");
    if (!h)
        return;
    if (h->type->kind != P4T_HEADER) {
        p4sem_err(s, call->list[0]->loc, "extract needs a header");
        return;
    }
    if ((call->nlist == 2) != (h->type->varbit_max > 0)) {
        p4sem_err(s, loc,
                  call->nlist == 2 ? "two-argument extract needs a header with a varbit"
                                   : "a header with a varbit needs extract(hdr, bits)");
        return;
    }
    p4stmt_union_select(s, call->list[0], b, loc);
    struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_EXTRACT, loc);
    st->a = h;
    st->type = h->type;
    if (call->nlist == 2)
        st->b = p4call_value_arg(s, call->list[1], p4type_bit(s, 32, false));
}

/* Methods of packet_in (extract, advance, lookahead) and packet_out (emit). */
static void packet_method(struct p4sem *s, const struct p4ast *call, const struct p4sym *y,
                          struct p4ir_block *b)
{
    const char *name = call->a->name;
    if (!y->packet_out && strcmp(name, "extract") == 0) {
        extract_call(s, call, b);
    } else if (!y->packet_out && strcmp(name, "advance") == 0) {
        if (!p4call_nargs_ok(s, call, name, 1, 1))
            return;
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_ADVANCE, call->loc);
        st->b = p4call_value_arg(s, call->list[0], p4type_bit(s, 32, false));
    } else if (!y->packet_out && strcmp(name, "lookahead") == 0) {
        p4expr_lower_call(s, call);
    } else if (y->packet_out && strcmp(name, "emit") == 0) {
        emit_call(s, call, b);
    } else {
        p4sem_err(s, call->a->loc, "unknown packet method '%s'", name);
    }
}

void p4call_method(struct p4sem *s, const struct p4ast *call, struct p4ir_block *b)
{
    const struct p4ast *m = call->a;
    const char *name = m->name;
    struct p4_loc loc = call->loc;
    struct p4sym *y = m->a->kind == P4AST_E_NAME ? p4scope_lookup(s, m->a->name) : NULL;
    if (y && y->kind == SYM_PACKET) {
        packet_method(s, call, y, b);
        return;
    }
    if (y && y->kind == SYM_TABLE && strcmp(name, "apply") == 0) {
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_APPLY, loc);
        st->table = y->table;
        return;
    }
    if (y && y->kind == SYM_PARSER_INST) {
        p4sem_err(s, loc, "a parser can only be applied by a statement of a parser state");
        return;
    }
    if (y && y->kind == SYM_CONTROL_INST && strcmp(name, "apply") == 0) {
        if (!y->fn) /* the instance was refused (p4ctl_instance) */
            return;
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_CALL, loc);
        st->call = p4call_bind(s, y->fn, call, 0, false, loc);
        return;
    }
    if (y && y->kind == SYM_EXTERN_INST) {
        p4extern_call_method(s, call, y, b);
        return;
    }
    struct p4ir_expr *h = p4expr_lower(s, m->a);
    if (h->type->kind == P4T_HEADER && p4irgen_is_ref(h) &&
        (strcmp(name, "setValid") == 0 || strcmp(name, "setInvalid") == 0)) {
        if (name[3] == 'V')
            p4stmt_union_select(s, m->a, b, loc);
        struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_SETVALID, loc);
        st->a = h;
        st->aux = name[3] == 'V';
        return;
    }
    if (h->type->kind == P4T_HEADER && strcmp(name, "isValid") == 0)
        return;
    if (h->type->kind == P4T_STACK && h->op == P4OP_LOAD &&
        (strcmp(name, "push_front") == 0 || strcmp(name, "pop_front") == 0)) {
        struct p4_big v;
        if (!p4call_nargs_ok(s, call, name, 1, 1) || !p4expr_const_int(s, call->list[0], &v))
            return;
        struct p4ir_stmt *st = p4irgen_stmt(s, b, name[1] == 'u' ? P4ST_PUSH : P4ST_POP, loc);
        st->a = h;
        st->aux = (int)(v.w[0] > 1000 ? 1000 : v.w[0]);
        st->type = h->type;
        return;
    }
    p4sem_err(s, m->loc, "unknown method '%s'", name);
}
